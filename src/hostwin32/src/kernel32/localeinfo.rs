//! KERNEL32 locale identity and GetLocaleInfo for the one locale winterp has,
//! English (United States), LCID 0x0409. The C runtimes of MSVC, Borland and
//! Delphi ask these at start-up (the user's LCID, its code pages, the decimal
//! separator, day and month names), so they must answer as Windows does for that
//! locale. The values are the documented en-US locale data.

#![allow(non_snake_case)]

use super::misc::err;
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::teb::set_last_error;

/// English (United States).
pub const LCID_EN_US: u32 = 0x0409;
const LANGID_EN_US: u32 = 0x0409;
const LOCALE_NEUTRAL: u32 = 0x0000;
const LOCALE_INVARIANT: u32 = 0x007f;
const LOCALE_USER_DEFAULT: u32 = 0x0400;
const LOCALE_SYSTEM_DEFAULT: u32 = 0x0800;
const LOCALE_CUSTOM_DEFAULT: u32 = 0x0c00;

const LOCALE_NOUSEROVERRIDE: u32 = 0x8000_0000;
const LOCALE_USE_CP_ACP: u32 = 0x4000_0000;
const LOCALE_RETURN_NUMBER: u32 = 0x2000_0000;

const LCID_INSTALLED: u32 = 1;
const LCID_SUPPORTED: u32 = 2;

/// Whether `lcid` names the locale winterp serves (directly or as a default).
fn is_ours(lcid: u32) -> bool {
    matches!(
        lcid,
        LCID_EN_US
            | LOCALE_NEUTRAL
            | LOCALE_INVARIANT
            | LOCALE_USER_DEFAULT
            | LOCALE_SYSTEM_DEFAULT
            | LOCALE_CUSTOM_DEFAULT
    )
}

const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The en-US value of an LCTYPE (the `LOCALE_*` numbers of winnls.h), or None
/// for a type Windows does not define.
pub fn en_us(lctype: u32) -> Option<String> {
    let s = |v: &str| Some(v.to_string());
    match lctype {
        0x2a..=0x30 => s(DAY_NAMES[(lctype - 0x2a) as usize]),
        0x31..=0x37 => s(&DAY_NAMES[(lctype - 0x31) as usize][..3]),
        0x38..=0x43 => s(MONTH_NAMES[(lctype - 0x38) as usize]),
        0x44..=0x4f => s(&MONTH_NAMES[(lctype - 0x44) as usize][..3]),
        0x01 => s("0409"),                    // ILANGUAGE
        0x02 => s("English (United States)"), // SLANGUAGE
        0x03 => s("ENU"),                     // SABBREVLANGNAME
        0x04 => s("English"),                 // SNATIVELANGNAME
        0x05 => s("1"),                       // ICOUNTRY
        0x06 => s("United States"),           // SCOUNTRY
        0x07 => s("USA"),                     // SABBREVCTRYNAME
        0x08 => s("United States"),           // SNATIVECTRYNAME
        0x09 => s("0409"),                    // IDEFAULTLANGUAGE
        0x0a => s("1"),                       // IDEFAULTCOUNTRY
        0x0b => s("437"),                     // IDEFAULTCODEPAGE (OEM)
        0x0c => s(","),                       // SLIST
        0x0d => s("1"),                       // IMEASURE (U.S.)
        0x0e => s("."),                       // SDECIMAL
        0x0f => s(","),                       // STHOUSAND
        0x10 => s("3;0"),                     // SGROUPING
        0x11 => s("2"),                       // IDIGITS
        0x12 => s("1"),                       // ILZERO
        0x13 => s("0123456789"),              // SNATIVEDIGITS
        0x14 => s("$"),                       // SCURRENCY
        0x15 => s("USD"),                     // SINTLSYMBOL
        0x16 => s("."),                       // SMONDECIMALSEP
        0x17 => s(","),                       // SMONTHOUSANDSEP
        0x18 => s("3;0"),                     // SMONGROUPING
        0x19 => s("2"),                       // ICURRDIGITS
        0x1a => s("2"),                       // IINTLCURRDIGITS
        0x1b => s("0"),                       // ICURRENCY
        0x1c => s("0"),                       // INEGCURR
        0x1d => s("/"),                       // SDATE
        0x1e => s(":"),                       // STIME
        0x1f => s("M/d/yyyy"),                // SSHORTDATE
        0x20 => s("dddd, MMMM d, yyyy"),      // SLONGDATE
        0x21 => s("0"),                       // IDATE (M/D/Y)
        0x22 => s("0"),                       // ILDATE
        0x23 => s("0"),                       // ITIME (12-hour)
        0x24 => s("1"),                       // ICENTURY
        0x25 => s("0"),                       // ITLZERO
        0x26 => s("0"),                       // IDAYLZERO
        0x27 => s("0"),                       // IMONLZERO
        0x28 => s("AM"),                      // S1159
        0x29 => s("PM"),                      // S2359
        0x50 => s(""),                        // SPOSITIVESIGN
        0x51 => s("-"),                       // SNEGATIVESIGN
        0x52 => s("3"),                       // IPOSSIGNPOSN
        0x53 => s("0"),                       // INEGSIGNPOSN
        0x54 => s("1"),                       // IPOSSYMPRECEDES
        0x55 => s("0"),                       // IPOSSEPBYSPACE
        0x56 => s("1"),                       // INEGSYMPRECEDES
        0x57 => s("0"),                       // INEGSEPBYSPACE
        0x59 => s("en"),                      // SISO639LANGNAME
        0x5a => s("US"),                      // SISO3166CTRYNAME
        0x5c => s("en-US"),                   // SNAME
        0x1001 => s("English"),               // SENGLANGUAGE
        0x1002 => s("United States"),         // SENGCOUNTRY
        0x1003 => s("h:mm:ss tt"),            // STIMEFORMAT
        0x1004 => s("1252"),                  // IDEFAULTANSICODEPAGE
        0x1005 => s("0"),                     // ITIMEMARKPOSN
        0x1006 => s("MMMM, yyyy"),            // SYEARMONTH
        0x1007 => s("US Dollar"),             // SENGCURRNAME
        0x1008 => s("US Dollar"),             // SNATIVECURRNAME
        0x1009 => s("1"),                     // ICALENDARTYPE (Gregorian)
        0x100a => s("1"),                     // IPAPERSIZE (letter)
        0x100b => s("0"),                     // IOPTIONALCALENDAR
        0x100c => s("6"),                     // IFIRSTDAYOFWEEK (Sunday)
        0x100d => s("0"),                     // IFIRSTWEEKOFYEAR
        0x100e | 0x100f => s(""),             // SMONTHNAME13, SABBREVMONTHNAME13
        0x1010 => s("1"),                     // INEGNUMBER
        0x1011 => s("10000"),                 // IDEFAULTMACCODEPAGE
        0x1012 => s("037"),                   // IDEFAULTEBCDICCODEPAGE
        0x1013 => s("Default"),               // SSORTNAME
        0x1014 => s("1"),                     // IDIGITSUBSTITUTION
        _ => None,
    }
}

/// GetLocaleInfoA/W: `cch` 0 asks for the size (with the NUL, in characters of
/// the call's width); LOCALE_RETURN_NUMBER stores a numeric value as a DWORD.
fn locale_info(
    cx: &mut Ctx,
    lcid: u32,
    lctype: u32,
    buf: u32,
    cch: i32,
    wide: bool,
) -> ApiResult<i32> {
    if !is_ours(lcid) {
        log::info!("GetLocaleInfo: LCID {lcid:#x} is not installed (only en-US is)");
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let base = lctype & !(LOCALE_NOUSEROVERRIDE | LOCALE_USE_CP_ACP | LOCALE_RETURN_NUMBER);
    let Some(value) = en_us(base) else {
        set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
        return Ok(0);
    };
    if cch < 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    if lctype & LOCALE_RETURN_NUMBER != 0 {
        let Ok(n) = value.parse::<u32>() else {
            set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
            return Ok(0);
        };
        let need = if wide { 2 } else { 4 };
        if cch == 0 {
            return Ok(need);
        }
        if cch < need {
            set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
            return Ok(0);
        }
        cx.proc.mem.write_u32(buf, n)?;
        return Ok(need);
    }
    super::locale::store(cx, &value, buf, cch, wide)
}

pub fn GetLocaleInfoA(
    cx: &mut Ctx,
    Locale: u32,
    LCType: u32,
    lpLCData: Ptr,
    cchData: i32,
) -> ApiResult<i32> {
    locale_info(cx, Locale, LCType, lpLCData.0, cchData, false)
}

pub fn GetLocaleInfoW(
    cx: &mut Ctx,
    Locale: u32,
    LCType: u32,
    lpLCData: Ptr,
    cchData: i32,
) -> ApiResult<i32> {
    locale_info(cx, Locale, LCType, lpLCData.0, cchData, true)
}

pub fn GetUserDefaultLCID(_cx: &mut Ctx) -> u32 {
    LCID_EN_US
}

pub fn GetSystemDefaultLCID(_cx: &mut Ctx) -> u32 {
    LCID_EN_US
}

pub fn GetUserDefaultLangID(_cx: &mut Ctx) -> u32 {
    LANGID_EN_US
}

pub fn GetSystemDefaultLangID(_cx: &mut Ctx) -> u32 {
    LANGID_EN_US
}

pub fn GetUserDefaultUILanguage(_cx: &mut Ctx) -> u32 {
    LANGID_EN_US
}

pub fn GetSystemDefaultUILanguage(_cx: &mut Ctx) -> u32 {
    LANGID_EN_US
}

pub fn GetThreadLocale(_cx: &mut Ctx) -> u32 {
    LCID_EN_US
}

/// Only en-US is installed: setting it (or a default that means it) succeeds,
/// anything else fails as for a locale that is not installed.
pub fn SetThreadLocale(cx: &mut Ctx, Locale: u32) -> ApiResult<bool> {
    if is_ours(Locale) {
        return Ok(true);
    }
    set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
    Ok(false)
}

pub fn IsValidLocale(_cx: &mut Ctx, Locale: u32, dwFlags: u32) -> bool {
    matches!(dwFlags, LCID_INSTALLED | LCID_SUPPORTED) && Locale == LCID_EN_US
}

pub fn ConvertDefaultLocale(_cx: &mut Ctx, Locale: u32) -> u32 {
    if is_ours(Locale) { LCID_EN_US } else { Locale }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetLocaleInfoA", GetLocaleInfoA),
        stdcall("GetLocaleInfoW", GetLocaleInfoW),
        stdcall("GetUserDefaultLCID", GetUserDefaultLCID),
        stdcall("GetSystemDefaultLCID", GetSystemDefaultLCID),
        stdcall("GetUserDefaultLangID", GetUserDefaultLangID),
        stdcall("GetSystemDefaultLangID", GetSystemDefaultLangID),
        stdcall("GetUserDefaultUILanguage", GetUserDefaultUILanguage),
        stdcall("GetSystemDefaultUILanguage", GetSystemDefaultUILanguage),
        stdcall("GetThreadLocale", GetThreadLocale),
        stdcall("SetThreadLocale", SetThreadLocale),
        stdcall("IsValidLocale", IsValidLocale),
        stdcall("ConvertDefaultLocale", ConvertDefaultLocale),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_of_en_us() {
        assert_eq!(en_us(0x2a).as_deref(), Some("Monday"));
        assert_eq!(en_us(0x30).as_deref(), Some("Sunday"));
        assert_eq!(en_us(0x37).as_deref(), Some("Sun"));
        assert_eq!(en_us(0x43).as_deref(), Some("December"));
        assert_eq!(en_us(0x44).as_deref(), Some("Jan"));
        assert_eq!(en_us(0x4f).as_deref(), Some("Dec"));
        assert_eq!(en_us(0x1004).as_deref(), Some("1252"));
        assert_eq!(en_us(0x0b).as_deref(), Some("437"));
        assert_eq!(en_us(0x0e).as_deref(), Some("."));
        assert_eq!(en_us(0x5b), None);
        assert_eq!(en_us(0x7777), None);
    }
}
