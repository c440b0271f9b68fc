//! KERNEL32 locale formatting for the one locale winterp has, English (United
//! States): GetDateFormat, GetTimeFormat and GetNumberFormat with their format
//! pictures, GetCPInfoEx, and MulDiv. The picture logic is host code over
//! [`SystemTimeFields`], unit-tested below with the documented examples.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API.
#![allow(clippy::too_many_arguments)]

use super::misc::err;
use super::string::{CodePage, encode_ansi, read_ansi, read_wstr, write_wide};
use super::time::{SystemTimeFields, filetime_to_fields, now_filetime};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::teb::set_last_error;

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
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

const DATE_SHORTDATE: u32 = 0x1;
const DATE_LONGDATE: u32 = 0x2;
const DATE_YEARMONTH: u32 = 0x8;
const TIME_NOMINUTESORSECONDS: u32 = 0x1;
const TIME_NOSECONDS: u32 = 0x2;
const TIME_NOTIMEMARKER: u32 = 0x4;
const TIME_FORCE24HOURFORMAT: u32 = 0x8;
/// LOCALE_NOUSEROVERRIDE and LOCALE_USE_CP_ACP change nothing with one locale.
const IGNORED_FLAGS: u32 = 0x8000_0000 | 0x4000_0000;

/// Runs of the same picture letter, quoted text (`'...'`, `''` for a quote) and
/// other characters, as the date and time pictures are read.
fn picture_tokens(pic: &str) -> Vec<(Option<char>, usize, String)> {
    let cs: Vec<char> = pic.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c == '\'' {
            let mut lit = String::new();
            i += 1;
            while i < cs.len() {
                if cs[i] == '\'' {
                    if cs.get(i + 1) == Some(&'\'') {
                        lit.push('\'');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                lit.push(cs[i]);
                i += 1;
            }
            out.push((None, 0, lit));
        } else if "dMygHhmstf".contains(c) {
            let mut n = 0;
            while i < cs.len() && cs[i] == c {
                n += 1;
                i += 1;
            }
            out.push((Some(c), n, String::new()));
        } else {
            out.push((None, 0, c.to_string()));
            i += 1;
        }
    }
    out
}

/// A date picture (`d dd ddd dddd M MM MMM MMMM y yy yyyy g gg`) applied to `t`.
pub fn format_date(pic: &str, t: &SystemTimeFields) -> String {
    let mut out = String::new();
    for (c, n, lit) in picture_tokens(pic) {
        match c {
            None => out.push_str(&lit),
            Some('d') => match n {
                1 => out.push_str(&t.day.to_string()),
                2 => out.push_str(&format!("{:02}", t.day)),
                3 => out.push_str(&DAYS[t.day_of_week as usize % 7][..3]),
                _ => out.push_str(DAYS[t.day_of_week as usize % 7]),
            },
            Some('M') => {
                let m = (t.month as usize).clamp(1, 12) - 1;
                match n {
                    1 => out.push_str(&t.month.to_string()),
                    2 => out.push_str(&format!("{:02}", t.month)),
                    3 => out.push_str(&MONTHS[m][..3]),
                    _ => out.push_str(MONTHS[m]),
                }
            }
            Some('y') => match n {
                1 => out.push_str(&(t.year % 100).to_string()),
                2 => out.push_str(&format!("{:02}", t.year % 100)),
                _ => out.push_str(&t.year.to_string()),
            },
            Some('g') => out.push_str("A.D."),
            // Time letters in a date picture are copied as they are.
            Some(other) => out.extend(std::iter::repeat_n(other, n)),
        }
    }
    out
}

/// A time picture (`h hh H HH m mm s ss t tt`) applied to `t`, after the
/// flags removed what they ask to remove (a removed field takes the separator
/// before it along).
pub fn format_time(pic: &str, t: &SystemTimeFields, flags: u32) -> String {
    let drop = |c: char| match c {
        'm' => flags & TIME_NOMINUTESORSECONDS != 0,
        's' => flags & (TIME_NOMINUTESORSECONDS | TIME_NOSECONDS) != 0,
        't' => flags & TIME_NOTIMEMARKER != 0,
        _ => false,
    };
    let mut out = String::new();
    let mut pending = String::new();
    for (c, n, lit) in picture_tokens(pic) {
        match c {
            None => pending.push_str(&lit),
            Some(c) if drop(c) => pending.clear(),
            Some(c) => {
                out.push_str(&pending);
                pending.clear();
                let h24 = flags & TIME_FORCE24HOURFORMAT != 0 || c == 'H';
                match c {
                    'h' | 'H' => {
                        let h = if h24 {
                            t.hour
                        } else {
                            match t.hour % 12 {
                                0 => 12,
                                h => h,
                            }
                        };
                        out.push_str(&if n >= 2 {
                            format!("{h:02}")
                        } else {
                            h.to_string()
                        });
                    }
                    'm' | 's' => {
                        let v = if c == 'm' { t.minute } else { t.second };
                        out.push_str(&if n >= 2 {
                            format!("{v:02}")
                        } else {
                            v.to_string()
                        });
                    }
                    't' => {
                        let mark = if t.hour < 12 { "AM" } else { "PM" };
                        out.push_str(if n >= 2 { mark } else { &mark[..1] });
                    }
                    other => out.extend(std::iter::repeat_n(other, n)),
                }
            }
        }
    }
    // Text after the last field stays unless it belonged to a dropped one.
    out.push_str(&pending);
    out.trim_end().to_string()
}

/// GetNumberFormat with the locale's defaults: two decimals (rounded), `,`
/// between thousands, a leading `-`. `None` if `value` is not a number string
/// (digits, one optional `.`, an optional leading `-`).
pub fn format_number(value: &str) -> Option<String> {
    let (neg, digits) = match value.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, value),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // Round to two decimals on the digit string (no float error).
    let mut all: Vec<u8> = int
        .bytes()
        .chain(frac.bytes().chain(*b"000").take(2))
        .collect();
    if frac.as_bytes().get(2).is_some_and(|&b| b >= b'5') {
        let mut k = all.len();
        loop {
            if k == 0 {
                all.insert(0, b'1');
                break;
            }
            k -= 1;
            if all[k] == b'9' {
                all[k] = b'0';
            } else {
                all[k] += 1;
                break;
            }
        }
    }
    let (ip, fp) = all.split_at(all.len() - 2);
    let ip = std::str::from_utf8(ip).ok()?.trim_start_matches('0');
    let ip = if ip.is_empty() { "0" } else { ip };
    let mut grouped = String::new();
    for (i, ch) in ip.chars().enumerate() {
        if i > 0 && (ip.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    let fp = std::str::from_utf8(fp).ok()?;
    let zero = ip == "0" && fp == "00";
    Some(format!(
        "{}{grouped}.{fp}",
        if neg && !zero { "-" } else { "" }
    ))
}

fn read_fields(cx: &mut Ctx, p: u32) -> ApiResult<SystemTimeFields> {
    let m = &cx.proc.mem;
    let r = |o: u32| m.read_u16(p + o);
    Ok(SystemTimeFields {
        year: r(0)?,
        month: r(2)?,
        day_of_week: r(4)?,
        day: r(6)?,
        hour: r(8)?,
        minute: r(10)?,
        second: r(12)?,
        millis: r(14)?,
    })
}

/// The SYSTEMTIME argument, or the current local time for NULL.
fn time_arg(cx: &mut Ctx, p: u32) -> ApiResult<SystemTimeFields> {
    if p != 0 {
        return read_fields(cx, p);
    }
    // GetLocalTime's clock (winterp's local time is UTC).
    filetime_to_fields(now_filetime(cx))
        .ok_or_else(|| ApiError::Other("the clock is outside the FILETIME range".into()))
}

/// Stores a formatting result the way the Get*Format functions do: with
/// `cch` 0 only the size (with the NUL) is returned; too small a buffer fails
/// with ERROR_INSUFFICIENT_BUFFER.
pub(super) fn store(cx: &mut Ctx, s: &str, buf: u32, cch: i32, wide: bool) -> ApiResult<i32> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let bytes = encode_ansi(s);
    let need = if wide { units.len() } else { bytes.len() } as i32 + 1;
    if cch == 0 {
        return Ok(need);
    }
    if cch < need || buf == 0 {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(0);
    }
    if wide {
        let mut v = units;
        v.push(0);
        write_wide(cx.proc, buf, &v)?;
    } else {
        let mut v = bytes;
        v.push(0);
        cx.proc.mem.write_bytes(buf, &v)?;
    }
    Ok(need)
}

fn read_pic(cx: &mut Ctx, p: u32, wide: bool) -> ApiResult<Option<String>> {
    if p == 0 {
        return Ok(None);
    }
    Ok(Some(if wide {
        read_wstr(cx.proc, p)?
    } else {
        read_ansi(cx.proc, p)?
    }))
}

fn date_format(
    cx: &mut Ctx,
    flags: u32,
    date: u32,
    pic: u32,
    buf: u32,
    cch: i32,
    wide: bool,
) -> ApiResult<i32> {
    let flags = flags & !IGNORED_FLAGS;
    let pic = match read_pic(cx, pic, wide)? {
        Some(p) if flags == 0 => p,
        Some(_) => {
            set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
            return Ok(0);
        }
        None => match flags {
            0 | DATE_SHORTDATE => "M/d/yyyy".to_string(),
            DATE_LONGDATE => "dddd, MMMM d, yyyy".to_string(),
            DATE_YEARMONTH => "MMMM yyyy".to_string(),
            _ => {
                return Err(ApiError::UnimplementedCase(format!(
                    "GetDateFormat flags {flags:#x}"
                )));
            }
        },
    };
    let t = time_arg(cx, date)?;
    if !(1..=12).contains(&t.month) || !(1..=31).contains(&t.day) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    store(cx, &format_date(&pic, &t), buf, cch, wide)
}

fn time_format(
    cx: &mut Ctx,
    flags: u32,
    time: u32,
    pic: u32,
    buf: u32,
    cch: i32,
    wide: bool,
) -> ApiResult<i32> {
    let flags = flags & !IGNORED_FLAGS;
    let pic = read_pic(cx, pic, wide)?.unwrap_or_else(|| "h:mm:ss tt".to_string());
    let t = time_arg(cx, time)?;
    if t.hour > 23 || t.minute > 59 || t.second > 59 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    store(cx, &format_time(&pic, &t, flags), buf, cch, wide)
}

pub fn GetDateFormatW(
    cx: &mut Ctx,
    _Locale: u32,
    dwFlags: u32,
    lpDate: Ptr,
    lpFormat: Ptr,
    lpDateStr: Ptr,
    cchDate: i32,
) -> ApiResult<i32> {
    date_format(
        cx,
        dwFlags,
        lpDate.0,
        lpFormat.0,
        lpDateStr.0,
        cchDate,
        true,
    )
}

pub fn GetDateFormatA(
    cx: &mut Ctx,
    _Locale: u32,
    dwFlags: u32,
    lpDate: Ptr,
    lpFormat: Ptr,
    lpDateStr: Ptr,
    cchDate: i32,
) -> ApiResult<i32> {
    date_format(
        cx,
        dwFlags,
        lpDate.0,
        lpFormat.0,
        lpDateStr.0,
        cchDate,
        false,
    )
}

pub fn GetTimeFormatW(
    cx: &mut Ctx,
    _Locale: u32,
    dwFlags: u32,
    lpTime: Ptr,
    lpFormat: Ptr,
    lpTimeStr: Ptr,
    cchTime: i32,
) -> ApiResult<i32> {
    time_format(
        cx,
        dwFlags,
        lpTime.0,
        lpFormat.0,
        lpTimeStr.0,
        cchTime,
        true,
    )
}

pub fn GetTimeFormatA(
    cx: &mut Ctx,
    _Locale: u32,
    dwFlags: u32,
    lpTime: Ptr,
    lpFormat: Ptr,
    lpTimeStr: Ptr,
    cchTime: i32,
) -> ApiResult<i32> {
    time_format(
        cx,
        dwFlags,
        lpTime.0,
        lpFormat.0,
        lpTimeStr.0,
        cchTime,
        false,
    )
}

fn number_format(
    cx: &mut Ctx,
    value: u32,
    fmt: u32,
    buf: u32,
    cch: i32,
    wide: bool,
) -> ApiResult<i32> {
    if fmt != 0 {
        return Err(ApiError::UnimplementedCase(
            "GetNumberFormat with a NUMBERFMT".into(),
        ));
    }
    let v = if wide {
        read_wstr(cx.proc, value)?
    } else {
        read_ansi(cx.proc, value)?
    };
    match format_number(&v) {
        Some(s) => store(cx, &s, buf, cch, wide),
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(0)
        }
    }
}

pub fn GetNumberFormatW(
    cx: &mut Ctx,
    _Locale: u32,
    _dwFlags: u32,
    lpValue: Ptr,
    lpFormat: Ptr,
    lpNumberStr: Ptr,
    cchNumber: i32,
) -> ApiResult<i32> {
    number_format(cx, lpValue.0, lpFormat.0, lpNumberStr.0, cchNumber, true)
}

pub fn GetNumberFormatA(
    cx: &mut Ctx,
    _Locale: u32,
    _dwFlags: u32,
    lpValue: Ptr,
    lpFormat: Ptr,
    lpNumberStr: Ptr,
    cchNumber: i32,
) -> ApiResult<i32> {
    number_format(cx, lpValue.0, lpFormat.0, lpNumberStr.0, cchNumber, false)
}

/// CPINFOEXW: CPINFO's fields, then UnicodeDefaultChar (+18), CodePage (+20)
/// and CodePageName (+24, 260 WCHARs).
pub fn GetCPInfoExW(
    cx: &mut Ctx,
    CodePage: u32,
    _dwFlags: u32,
    lpCPInfoEx: Ptr,
) -> ApiResult<bool> {
    let Some(cp) = self::CodePage::from_arg(CodePage)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    };
    if !super::string::GetCPInfo(cx, CodePage, lpCPInfoEx)? {
        return Ok(false);
    }
    let (number, name) = match cp {
        self::CodePage::Ansi1252 => (1252u32, "1252  (ANSI - Latin I)"),
        self::CodePage::Oem437 => (437, "437   (OEM - United States)"),
        self::CodePage::Utf8 => (65001, "65001 (UTF-8)"),
    };
    let m = &cx.proc.mem;
    m.write_u16(lpCPInfoEx.0 + 18, u16::from(b'?'))?;
    m.write_u32(lpCPInfoEx.0 + 20, number)?;
    let mut units: Vec<u16> = name.encode_utf16().collect();
    units.push(0);
    write_wide(cx.proc, lpCPInfoEx.0 + 24, &units)?;
    Ok(true)
}

/// `a * b / c` on 64 bits, rounded half away from zero; -1 when `c` is 0 or the
/// result does not fit an int.
pub fn mul_div(a: i32, b: i32, c: i32) -> i32 {
    if c == 0 {
        return -1;
    }
    let mut num = i64::from(a) * i64::from(b);
    let mut den = i64::from(c);
    if den < 0 {
        num = -num;
        den = -den;
    }
    let r = if num >= 0 {
        (num + den / 2) / den
    } else {
        -((-num + den / 2) / den)
    };
    if r > i64::from(i32::MAX) || r < -i64::from(i32::MAX) {
        -1
    } else {
        r as i32
    }
}

pub fn MulDiv(_cx: &mut Ctx, nNumber: i32, nNumerator: i32, nDenominator: i32) -> i32 {
    mul_div(nNumber, nNumerator, nDenominator)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetDateFormatW", GetDateFormatW),
        stdcall("GetDateFormatA", GetDateFormatA),
        stdcall("GetTimeFormatW", GetTimeFormatW),
        stdcall("GetTimeFormatA", GetTimeFormatA),
        stdcall("GetNumberFormatW", GetNumberFormatW),
        stdcall("GetNumberFormatA", GetNumberFormatA),
        stdcall("GetCPInfoExW", GetCPInfoExW),
        stdcall("MulDiv", MulDiv),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(y: u16, mo: u16, dow: u16, d: u16, h: u16, mi: u16, s: u16) -> SystemTimeFields {
        SystemTimeFields {
            year: y,
            month: mo,
            day_of_week: dow,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            millis: 0,
        }
    }

    // Pictures from the "Day, Month, Year, and Era Format Pictures" page.
    #[test]
    fn date_pictures() {
        let d = t(2026, 3, 1, 2, 0, 0, 0); // Monday, March 2, 2026
        assert_eq!(format_date("M/d/yyyy", &d), "3/2/2026");
        assert_eq!(
            format_date("dddd, MMMM d, yyyy", &d),
            "Monday, March 2, 2026"
        );
        assert_eq!(format_date("ddd dd MMM yy", &d), "Mon 02 Mar 26");
        assert_eq!(format_date("'Day' d 'of' MMMM", &d), "Day 2 of March");
        assert_eq!(format_date("yyyy'''s'", &d), "2026's");
    }

    #[test]
    fn time_pictures_and_flags() {
        let a = t(2026, 1, 0, 1, 13, 5, 9);
        assert_eq!(format_time("h:mm:ss tt", &a, 0), "1:05:09 PM");
        assert_eq!(format_time("HH:mm", &a, 0), "13:05");
        assert_eq!(format_time("h:mm:ss tt", &a, TIME_NOSECONDS), "1:05 PM");
        assert_eq!(
            format_time("h:mm:ss tt", &a, TIME_NOMINUTESORSECONDS),
            "1 PM"
        );
        assert_eq!(format_time("h:mm:ss tt", &a, TIME_NOTIMEMARKER), "1:05:09");
        let midnight = t(2026, 1, 0, 1, 0, 0, 0);
        assert_eq!(format_time("hh:mm t", &midnight, 0), "12:00 A");
    }

    #[test]
    fn numbers_in_the_us_locale() {
        assert_eq!(
            format_number("1234567.891").as_deref(),
            Some("1,234,567.89")
        );
        assert_eq!(format_number("-0.005").as_deref(), Some("-0.01"));
        assert_eq!(format_number("999.995").as_deref(), Some("1,000.00"));
        assert_eq!(format_number("12").as_deref(), Some("12.00"));
        assert_eq!(format_number("1e5"), None);
        assert_eq!(format_number(""), None);
    }

    // MulDiv's documented contract: rounded result, -1 on overflow or c == 0.
    #[test]
    fn mul_div_rounds_and_reports_overflow() {
        assert_eq!(mul_div(10, 10, 3), 33);
        assert_eq!(mul_div(5, 1, 2), 3);
        assert_eq!(mul_div(-5, 1, 2), -3);
        assert_eq!(mul_div(5, 1, -2), -3);
        assert_eq!(mul_div(1, 1, 0), -1);
        assert_eq!(mul_div(i32::MAX, 2, 1), -1);
        assert_eq!(mul_div(i32::MAX, i32::MAX, i32::MAX), i32::MAX);
    }
}
