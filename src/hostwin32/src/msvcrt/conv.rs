//! Number <-> text conversions: atoi/strtol/strtoul/strtod families, _itoa and
//! friends, _ecvt/_fcvt/_gcvt.

#![allow(non_snake_case)]

use super::float;
use super::gmem::{read_cstr, read_wstr, write_cstr, write_wstr};
use super::state::{self, errno, intern};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, cdecl};

fn is_space(c: u16) -> bool {
    matches!(c, 0x20 | 0x09..=0x0d)
}

/// strtol-style parse: (value as magnitude with sign applied by wrapping,
/// negative, overflowed past u64, consumed units (0 if no digits)).
pub fn parse_int(s: &[u16], base: u32) -> (u64, bool, bool, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == 0x2d || s[i] == 0x2b) {
        neg = s[i] == 0x2d;
        i += 1;
    }
    let mut base = base;
    let hex_prefix = i + 1 < s.len() && s[i] == 0x30 && (s[i + 1] | 0x20) == 0x78;
    if (base == 0 || base == 16) && hex_prefix {
        base = 16;
        i += 2;
    } else if base == 0 {
        base = if i < s.len() && s[i] == 0x30 { 8 } else { 10 };
    }
    if !(2..=36).contains(&base) {
        return (0, false, false, 0);
    }
    let start = i;
    let mut v: u64 = 0;
    let mut over = false;
    while i < s.len() {
        let Some(d) = char::from_u32(s[i] as u32).and_then(|c| c.to_digit(base)) else {
            break;
        };
        match v
            .checked_mul(base as u64)
            .and_then(|x| x.checked_add(d as u64))
        {
            Some(x) => v = x,
            None => over = true,
        }
        i += 1;
    }
    if i == start {
        // "0x" with no hex digit: the "0" is the number.
        if hex_prefix && (base == 16) {
            return (0, neg, false, start - 1);
        }
        return (0, false, false, 0);
    }
    (v, neg, over, i)
}

/// strtod-style parse (msvcrt: no inf/nan/hex; `d`/`D` also start an exponent).
/// Returns the value and the units consumed (0 if nothing was converted).
pub fn parse_double(s: &[u16]) -> (f64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut text = String::new();
    if i < s.len() && (s[i] == 0x2d || s[i] == 0x2b) {
        text.push(s[i] as u8 as char);
        i += 1;
    }
    let digit = |c: u16| (0x30..=0x39).contains(&c);
    let mut digits = 0;
    while i < s.len() && digit(s[i]) {
        text.push(s[i] as u8 as char);
        i += 1;
        digits += 1;
    }
    if i < s.len() && s[i] == 0x2e {
        text.push('.');
        i += 1;
        while i < s.len() && digit(s[i]) {
            text.push(s[i] as u8 as char);
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if i < s.len() && matches!(s[i] | 0x20, 0x65 | 0x64) {
        let mut j = i + 1;
        let mut exp = String::from("e");
        if j < s.len() && (s[j] == 0x2d || s[j] == 0x2b) {
            exp.push(s[j] as u8 as char);
            j += 1;
        }
        let mut ed = 0;
        while j < s.len() && digit(s[j]) {
            exp.push(s[j] as u8 as char);
            j += 1;
            ed += 1;
        }
        if ed > 0 {
            text.push_str(&exp);
            i = j;
        }
    }
    (text.parse().unwrap_or(0.0), i)
}

fn units(cx: &Ctx, p: u32) -> ApiResult<Vec<u16>> {
    Ok(read_cstr(&cx.proc.mem, p, 4096)?
        .into_iter()
        .map(u16::from)
        .collect())
}

fn wunits(cx: &Ctx, p: u32) -> ApiResult<Vec<u16>> {
    Ok(read_wstr(&cx.proc.mem, p, 4096)?)
}

fn set_end(cx: &mut Ctx, endptr: Ptr, base: u32, used: usize, unit: u32) -> ApiResult<()> {
    if !endptr.is_null() {
        cx.proc.mem.write_u32(endptr.0, base + unit * used as u32)?;
    }
    Ok(())
}

fn strtol_impl(
    cx: &mut Ctx,
    s: Vec<u16>,
    p: u32,
    end: Ptr,
    base: u32,
    unit: u32,
) -> ApiResult<i32> {
    let (v, neg, over, used) = parse_int(&s, base);
    set_end(cx, end, p, used, unit)?;
    let limit = if neg { 1u64 << 31 } else { (1u64 << 31) - 1 };
    if over || v > limit {
        state::set_errno(cx, errno::ERANGE)?;
        return Ok(if neg { i32::MIN } else { i32::MAX });
    }
    Ok(if neg {
        (v as i64).wrapping_neg() as i32
    } else {
        v as i32
    })
}

fn strtoul_impl(
    cx: &mut Ctx,
    s: Vec<u16>,
    p: u32,
    end: Ptr,
    base: u32,
    unit: u32,
) -> ApiResult<u32> {
    let (v, neg, over, used) = parse_int(&s, base);
    set_end(cx, end, p, used, unit)?;
    if over || v > u32::MAX as u64 {
        state::set_errno(cx, errno::ERANGE)?;
        return Ok(u32::MAX);
    }
    Ok(if neg {
        (v as u32).wrapping_neg()
    } else {
        v as u32
    })
}

fn strtol(cx: &mut Ctx, nptr: CStrPtr, endptr: Ptr, base: u32) -> ApiResult<i32> {
    let s = units(cx, nptr.0)?;
    strtol_impl(cx, s, nptr.0, endptr, base, 1)
}

fn strtoul(cx: &mut Ctx, nptr: CStrPtr, endptr: Ptr, base: u32) -> ApiResult<u32> {
    let s = units(cx, nptr.0)?;
    strtoul_impl(cx, s, nptr.0, endptr, base, 1)
}

fn wcstol(cx: &mut Ctx, nptr: WStrPtr, endptr: Ptr, base: u32) -> ApiResult<i32> {
    let s = wunits(cx, nptr.0)?;
    strtol_impl(cx, s, nptr.0, endptr, base, 2)
}

fn wcstoul(cx: &mut Ctx, nptr: WStrPtr, endptr: Ptr, base: u32) -> ApiResult<u32> {
    let s = wunits(cx, nptr.0)?;
    strtoul_impl(cx, s, nptr.0, endptr, base, 2)
}

fn _strtoi64(cx: &mut Ctx, nptr: CStrPtr, endptr: Ptr, base: u32) -> ApiResult<u64> {
    let s = units(cx, nptr.0)?;
    let (v, neg, over, used) = parse_int(&s, base);
    set_end(cx, endptr, nptr.0, used, 1)?;
    let limit = if neg { 1u64 << 63 } else { (1u64 << 63) - 1 };
    if over || v > limit {
        state::set_errno(cx, errno::ERANGE)?;
        return Ok(if neg {
            i64::MIN as u64
        } else {
            i64::MAX as u64
        });
    }
    Ok(if neg { v.wrapping_neg() } else { v })
}

fn _strtoui64(cx: &mut Ctx, nptr: CStrPtr, endptr: Ptr, base: u32) -> ApiResult<u64> {
    let s = units(cx, nptr.0)?;
    let (v, neg, over, used) = parse_int(&s, base);
    set_end(cx, endptr, nptr.0, used, 1)?;
    if over {
        state::set_errno(cx, errno::ERANGE)?;
        return Ok(u64::MAX);
    }
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// atoi/atol: msvcrt's own loop, wrapping on overflow and leaving errno alone.
fn atol(cx: &mut Ctx, s: CStrPtr) -> ApiResult<i32> {
    let (v, neg, _, _) = parse_int(&units(cx, s.0)?, 10);
    Ok(if neg {
        (v as u32).wrapping_neg() as i32
    } else {
        v as i32
    })
}

fn _wtol(cx: &mut Ctx, s: WStrPtr) -> ApiResult<i32> {
    let (v, neg, _, _) = parse_int(&wunits(cx, s.0)?, 10);
    Ok(if neg {
        (v as u32).wrapping_neg() as i32
    } else {
        v as i32
    })
}

fn _atoi64(cx: &mut Ctx, s: CStrPtr) -> ApiResult<u64> {
    let (v, neg, _, _) = parse_int(&units(cx, s.0)?, 10);
    Ok(if neg { v.wrapping_neg() } else { v })
}

fn strtod_impl(cx: &mut Ctx, s: Vec<u16>, p: u32, end: Ptr, unit: u32) -> ApiResult<f64> {
    let (v, used) = parse_double(&s);
    set_end(cx, end, p, used, unit)?;
    if v.is_infinite() || (v == 0.0 && used > 0 && has_nonzero_digit(&s[..used])) {
        state::set_errno(cx, errno::ERANGE)?;
    }
    Ok(v)
}

fn has_nonzero_digit(s: &[u16]) -> bool {
    let mant_end = s
        .iter()
        .position(|&c| matches!(c | 0x20, 0x65 | 0x64))
        .unwrap_or(s.len());
    s[..mant_end].iter().any(|&c| (0x31..=0x39).contains(&c))
}

fn strtod(cx: &mut Ctx, nptr: CStrPtr, endptr: Ptr) -> ApiResult<f64> {
    let s = units(cx, nptr.0)?;
    strtod_impl(cx, s, nptr.0, endptr, 1)
}

fn wcstod(cx: &mut Ctx, nptr: WStrPtr, endptr: Ptr) -> ApiResult<f64> {
    let s = wunits(cx, nptr.0)?;
    strtod_impl(cx, s, nptr.0, endptr, 2)
}

fn atof(cx: &mut Ctx, s: CStrPtr) -> ApiResult<f64> {
    Ok(parse_double(&units(cx, s.0)?).0)
}

fn _wtof(cx: &mut Ctx, s: WStrPtr) -> ApiResult<f64> {
    Ok(parse_double(&wunits(cx, s.0)?).0)
}

/// Digits of `v` in `radix` (lower-case letters), with a '-' when `neg`.
pub fn to_radix(mut v: u64, radix: u32, neg: bool) -> Vec<u8> {
    let mut d = Vec::new();
    loop {
        let r = (v % radix as u64) as u8;
        d.push(if r < 10 { b'0' + r } else { b'a' + r - 10 });
        v /= radix as u64;
        if v == 0 {
            break;
        }
    }
    if neg {
        d.push(b'-');
    }
    d.reverse();
    d
}

fn itoa_out(cx: &mut Ctx, text: Vec<u8>, buf: Ptr, radix: u32) -> ApiResult<u32> {
    if !(2..=36).contains(&radix) {
        state::set_errno(cx, errno::EINVAL)?;
        return Ok(buf.0);
    }
    write_cstr(&cx.proc.mem, buf.0, &text)?;
    Ok(buf.0)
}

fn witoa_out(cx: &mut Ctx, text: Vec<u8>, buf: Ptr) -> ApiResult<u32> {
    let u: Vec<u16> = text.into_iter().map(u16::from).collect();
    write_wstr(&cx.proc.mem, buf.0, &u)?;
    Ok(buf.0)
}

/// Only radix 10 treats the value as signed (msvcrt's `_itoa`).
fn signed_text(v: i64, radix: u32, bits: u32) -> Vec<u8> {
    if radix == 10 && v < 0 {
        to_radix(v.unsigned_abs(), 10, true)
    } else {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        to_radix(v as u64 & mask, radix.clamp(2, 36), false)
    }
}

fn _itoa(cx: &mut Ctx, value: i32, buf: Ptr, radix: u32) -> ApiResult<u32> {
    itoa_out(cx, signed_text(value as i64, radix, 32), buf, radix)
}

fn _ultoa(cx: &mut Ctx, value: u32, buf: Ptr, radix: u32) -> ApiResult<u32> {
    itoa_out(
        cx,
        to_radix(value as u64, radix.clamp(2, 36), false),
        buf,
        radix,
    )
}

fn _i64toa(cx: &mut Ctx, value: u64, buf: Ptr, radix: u32) -> ApiResult<u32> {
    itoa_out(cx, signed_text(value as i64, radix, 64), buf, radix)
}

fn _ui64toa(cx: &mut Ctx, value: u64, buf: Ptr, radix: u32) -> ApiResult<u32> {
    itoa_out(cx, to_radix(value, radix.clamp(2, 36), false), buf, radix)
}

fn _itow(cx: &mut Ctx, value: i32, buf: Ptr, radix: u32) -> ApiResult<u32> {
    witoa_out(cx, signed_text(value as i64, radix, 32), buf)
}

fn _ultow(cx: &mut Ctx, value: u32, buf: Ptr, radix: u32) -> ApiResult<u32> {
    witoa_out(cx, to_radix(value as u64, radix.clamp(2, 36), false), buf)
}

/// `_ecvt`: `ndigits` significant digits, no point; decimal point position and
/// sign through the pointers. Uses msvcrt's digit rounding ([`float`]).
fn ecvt_text(v: f64, ndigits: i32, fixed: bool) -> (Vec<u8>, i32, bool) {
    let d = float::fltout(v);
    let n = if fixed {
        d.decpt.saturating_add(ndigits)
    } else {
        ndigits
    };
    let (mut digits, decpt) = float::fptostr(&d, n.max(0));
    if digits.len() > n.max(0) as usize && !fixed {
        digits.truncate(n.max(0) as usize);
    }
    (digits, decpt, d.negative)
}

fn cvt_common(cx: &mut Ctx, v: f64, n: i32, decpt: Ptr, sign: Ptr, fixed: bool) -> ApiResult<u32> {
    let (digits, dp, neg) = ecvt_text(v, n, fixed);
    cx.proc.mem.write_u32(decpt.0, dp as u32)?;
    cx.proc.mem.write_u32(sign.0, neg as u32)?;
    // The per-thread conversion buffer of msvcrt; interned text is as durable.
    let buf = state::thread_data(cx)?.block + state::ASCTIME + 32;
    if digits.len() < 64 {
        write_cstr(&cx.proc.mem, buf, &digits)?;
        Ok(buf)
    } else {
        intern(cx.proc, &digits)
    }
}

fn _ecvt(cx: &mut Ctx, value: f64, count: i32, dec: Ptr, sign: Ptr) -> ApiResult<u32> {
    cvt_common(cx, value, count, dec, sign, false)
}

fn _fcvt(cx: &mut Ctx, value: f64, count: i32, dec: Ptr, sign: Ptr) -> ApiResult<u32> {
    cvt_common(cx, value, count, dec, sign, true)
}

fn _gcvt(cx: &mut Ctx, value: f64, digits: u32, buffer: Ptr) -> ApiResult<u32> {
    let mut s = float::cftog(value, digits as usize, false);
    // _gcvt keeps the point even with nothing after it.
    float::cropzeros(&mut s);
    write_cstr(&cx.proc.mem, buffer.0, &s)?;
    Ok(buffer.0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("atoi", atol),
        cdecl("atol", atol),
        cdecl("_wtoi", _wtol),
        cdecl("_wtol", _wtol),
        cdecl("_atoi64", _atoi64),
        cdecl("atof", atof),
        cdecl("_wtof", _wtof),
        cdecl("strtol", strtol),
        cdecl("strtoul", strtoul),
        cdecl("wcstol", wcstol),
        cdecl("wcstoul", wcstoul),
        cdecl("_strtoi64", _strtoi64),
        cdecl("_strtoui64", _strtoui64),
        cdecl("strtod", strtod),
        cdecl("wcstod", wcstod),
        cdecl("_itoa", _itoa),
        cdecl("_ltoa", _itoa),
        cdecl("_ultoa", _ultoa),
        cdecl("_i64toa", _i64toa),
        cdecl("_ui64toa", _ui64toa),
        cdecl("_itow", _itow),
        cdecl("_ltow", _itow),
        cdecl("_ultow", _ultow),
        cdecl("_ecvt", _ecvt),
        cdecl("_fcvt", _fcvt),
        cdecl("_gcvt", _gcvt),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    // C standard strtol/strtod semantics (7.22.1.3/4).
    #[test]
    fn integers() {
        assert_eq!(parse_int(&u("  -123abc"), 10), (123, true, false, 6));
        assert_eq!(parse_int(&u("0x1F"), 0), (31, false, false, 4));
        assert_eq!(parse_int(&u("0x1F"), 16), (31, false, false, 4));
        assert_eq!(parse_int(&u("017"), 0), (15, false, false, 3));
        assert_eq!(parse_int(&u("zz"), 36), (1295, false, false, 2));
        assert_eq!(parse_int(&u("0xg"), 16), (0, false, false, 1));
        assert_eq!(parse_int(&u("abc"), 10).3, 0);
        assert!(parse_int(&u("99999999999999999999999"), 10).2);
    }

    #[test]
    fn doubles() {
        assert_eq!(parse_double(&u(" 1.5e3x")), (1500.0, 6));
        assert_eq!(parse_double(&u("-.25")), (-0.25, 4));
        assert_eq!(parse_double(&u("1e")), (1.0, 1));
        assert_eq!(parse_double(&u("2d2")), (200.0, 3));
        assert_eq!(parse_double(&u("inf")).1, 0);
        assert_eq!(parse_double(&u("0.1")).0, 0.1);
    }

    #[test]
    fn radix_text() {
        assert_eq!(signed_text(-255, 16, 32), b"ffffff01");
        assert_eq!(signed_text(-255, 10, 32), b"-255");
        assert_eq!(to_radix(0, 2, false), b"0");
        assert_eq!(to_radix(35, 36, false), b"z");
    }

    #[test]
    fn ecvt_fcvt() {
        assert_eq!(ecvt_text(1.23456, 3, false), (b"123".to_vec(), 1, false));
        assert_eq!(ecvt_text(-0.00123, 2, false), (b"12".to_vec(), -2, true));
        assert_eq!(ecvt_text(1.5, 2, true), (b"150".to_vec(), 1, false));
    }
}
