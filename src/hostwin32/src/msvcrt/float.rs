//! Floating-point to text the way msvcrt.dll does it (cvt.c: `_fltout2`, `_fptostr`,
//! `_cftoe`, `_cftof`, `_cftog`). The value is first turned into 17 significant
//! decimal digits (msvcrt's `$I10_OUTPUT(x, 17, ...)`; here exactly rounded by Rust's
//! formatter), then rounded half-up *on that digit string* to the requested
//! precision and padded with zeros. That is why msvcrt prints
//! `printf("%.2f", 0.125)` as `0.13` and `printf("%.20f", 0.1)` as
//! `0.10000000000000001000`. Infinities and NaNs become the digit strings
//! `1#INF`, `1#QNAN`, `1#SNAN`, `1#IND` and go through the same rounding, which gives
//! the familiar `1.#INF00`, `-1.#IND00` and `1.#J` (`%.2f` of infinity).

/// A value as a decimal digit string: `0.d1d2d3... * 10^decpt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub negative: bool,
    /// ASCII digits (or the special strings above); never empty.
    pub mant: Vec<u8>,
    pub decpt: i32,
}

/// msvcrt's `_fltout2`: 17 significant digits, trailing zeros dropped.
pub fn fltout(x: f64) -> Decimal {
    let negative = x.is_sign_negative();
    let bits = x.to_bits();
    if x.is_infinite() {
        return special(negative, b"1#INF");
    }
    if x.is_nan() {
        let frac = bits & 0x000f_ffff_ffff_ffff;
        // The x87 "real indefinite" (what 0.0/0.0 produces) prints as IND.
        let text: &[u8] = if negative && frac == 0x0008_0000_0000_0000 {
            b"1#IND"
        } else if frac & 0x0008_0000_0000_0000 != 0 {
            b"1#QNAN"
        } else {
            b"1#SNAN"
        };
        return special(negative, text);
    }
    if x == 0.0 {
        return Decimal {
            negative,
            mant: b"0".to_vec(),
            decpt: 0,
        };
    }
    // d.dddddddddddddddde[-]N, exactly rounded to 17 significant digits.
    let s = format!("{:.16e}", x.abs());
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    let mut mant: Vec<u8> = m.bytes().filter(|b| b.is_ascii_digit()).collect();
    while mant.len() > 1 && mant.last() == Some(&b'0') {
        mant.pop();
    }
    Decimal {
        negative,
        mant,
        decpt: exp + 1,
    }
}

fn special(negative: bool, text: &[u8]) -> Decimal {
    Decimal {
        negative,
        mant: text.to_vec(),
        decpt: 1,
    }
}

/// msvcrt's `_fptostr`: the first `ndigits` characters of the mantissa (padded with
/// '0'), rounded up when the next character is >= '5' (a plain character
/// comparison, so it applies to the special strings too). Returns the digits and
/// the decimal point position after rounding; on a carry out of the first digit the
/// result has `ndigits + 1` characters starting with '1'.
pub fn fptostr(d: &Decimal, ndigits: i32) -> (Vec<u8>, i32) {
    if ndigits < 0 {
        return (Vec::new(), d.decpt);
    }
    let n = ndigits as usize;
    let mut buf = Vec::with_capacity(n + 1);
    buf.push(b'0');
    for k in 0..n {
        buf.push(*d.mant.get(k).unwrap_or(&b'0'));
    }
    let mut decpt = d.decpt;
    if d.mant.get(n).is_some_and(|&c| c >= b'5') {
        let mut k = n;
        while buf[k] == b'9' {
            buf[k] = b'0';
            k -= 1;
        }
        buf[k] = buf[k].wrapping_add(1);
    }
    if buf[0] == b'1' {
        decpt += 1;
    } else {
        buf.remove(0);
    }
    (buf, decpt)
}

fn exponent(out: &mut Vec<u8>, caps: bool, d: &Decimal, decpt: i32) {
    out.push(if caps { b'E' } else { b'e' });
    // A zero mantissa keeps the exponent at +000 whatever decpt says.
    let e = if d.mant[0] != b'0' { decpt - 1 } else { 0 };
    out.push(if e < 0 { b'-' } else { b'+' });
    let e = e.unsigned_abs();
    if e >= 1000 {
        out.extend_from_slice(e.to_string().as_bytes());
    } else {
        out.extend_from_slice(format!("{e:03}").as_bytes());
    }
}

fn sign(out: &mut Vec<u8>, d: &Decimal) {
    if d.negative {
        out.push(b'-');
    }
}

/// `%e`: one digit, `prec` decimals, a signed exponent of at least three digits.
pub fn cftoe(x: f64, prec: usize, caps: bool) -> Vec<u8> {
    let d = fltout(x);
    let (buf, decpt) = fptostr(&d, prec as i32 + 1);
    let mut out = Vec::with_capacity(prec + 8);
    sign(&mut out, &d);
    e_body(&mut out, &buf, prec, caps, &d, decpt);
    out
}

fn e_body(out: &mut Vec<u8>, buf: &[u8], prec: usize, caps: bool, d: &Decimal, decpt: i32) {
    out.push(buf[0]);
    if prec > 0 {
        out.push(b'.');
        out.extend_from_slice(&buf[1..=prec]);
    }
    exponent(out, caps, d, decpt);
}

/// `%f`: `prec` decimals.
pub fn cftof(x: f64, prec: usize) -> Vec<u8> {
    let d = fltout(x);
    let (buf, decpt) = fptostr(&d, d.decpt.saturating_add(prec as i32));
    let mut out = Vec::with_capacity(prec + 24);
    sign(&mut out, &d);
    f_body(&mut out, &buf, decpt, prec);
    out
}

/// Integer part, point and `prec` decimals from the rounded digits `buf` whose
/// decimal point is at `decpt`.
fn f_body(out: &mut Vec<u8>, buf: &[u8], decpt: i32, prec: usize) {
    let rest = if decpt <= 0 {
        out.push(b'0');
        buf
    } else {
        let n = (decpt as usize).min(buf.len());
        out.extend_from_slice(&buf[..n]);
        out.resize(out.len() + (decpt as usize - n), b'0');
        &buf[n..]
    };
    if prec > 0 {
        out.push(b'.');
        let zeros = if decpt < 0 {
            prec.min(decpt.unsigned_abs() as usize)
        } else {
            0
        };
        out.resize(out.len() + zeros, b'0');
        let take = (prec - zeros).min(rest.len());
        out.extend_from_slice(&rest[..take]);
        out.resize(out.len() + (prec - zeros - take), b'0');
    }
}

/// `%g` before trailing-zero removal: `prec` significant digits (0 counts as 1),
/// e style when the exponent after rounding is below -4 or at least `prec`.
pub fn cftog(x: f64, prec: usize, caps: bool) -> Vec<u8> {
    let prec = prec.max(1);
    let d = fltout(x);
    let (buf, decpt) = fptostr(&d, prec as i32);
    let mut out = Vec::with_capacity(prec + 24);
    sign(&mut out, &d);
    let magnitude = decpt - 1;
    if magnitude < -4 || magnitude >= prec as i32 {
        e_body(&mut out, &buf, prec - 1, caps, &d, decpt);
    } else {
        let decimals = (prec as i32 - decpt).max(0) as usize;
        // Only `prec` significant digits: a carry leaves one digit too many.
        f_body(&mut out, &buf[..prec.min(buf.len())], decpt, decimals);
    }
    out
}

/// msvcrt's `_cropzeros`: drops trailing zeros of the fraction (before any
/// exponent) and the point itself if nothing is left after it.
pub fn cropzeros(s: &mut Vec<u8>) {
    let Some(dot) = s.iter().position(|&c| c == b'.') else {
        return;
    };
    let stop = s[dot + 1..]
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .map_or(s.len(), |p| dot + 1 + p);
    let mut end = stop;
    while end > dot + 1 && s[end - 1] == b'0' {
        end -= 1;
    }
    if end == dot + 1 {
        end = dot;
    }
    s.drain(end..stop);
}

/// msvcrt's `_forcdecpt` (the `#` flag with precision 0): a point after the
/// leading digits.
pub fn forcdecpt(s: &mut Vec<u8>) {
    if s.contains(&b'.') {
        return;
    }
    let mut k = 0;
    if !matches!(s.first(), Some(b'e' | b'E')) {
        k = 1;
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
    }
    s.insert(k.min(s.len()), b'.');
}

/// `%a`: `[-]0xh.hhhp±d` as the Microsoft C runtime prints it: 13 hex digits by
/// default (all of a double's fraction), rounded half-up when a precision cuts it,
/// a leading 0 digit for zero and subnormals, and a decimal binary exponent.
pub fn cftoa(x: f64, prec: Option<usize>, caps: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if x.is_sign_negative() {
        out.push(b'-');
    }
    if !x.is_finite() {
        // The special strings go through the %e path in the runtime.
        let mut s = cftoe(x.abs(), prec.unwrap_or(13), caps);
        out.append(&mut s);
        return out;
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let mut frac = bits & 0x000f_ffff_ffff_ffff;
    let (mut lead, exp) = if biased == 0 {
        (0u64, if frac == 0 { 0 } else { -1022 })
    } else {
        (1u64, biased - 1023)
    };
    let prec = prec.unwrap_or(13);
    if prec < 13 {
        let drop = 4 * (13 - prec) as u32;
        let half = 1u64 << (drop - 1);
        let rem = frac & ((1u64 << drop) - 1);
        frac >>= drop;
        if rem >= half {
            frac += 1;
            if frac >> (4 * prec as u32) != 0 {
                frac &= (1u64 << (4 * prec as u32)) - 1;
                lead += 1;
            }
        }
    }
    out.extend_from_slice(if caps { b"0X" } else { b"0x" });
    out.push(b'0' + lead as u8);
    let digits = if caps {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    if prec > 0 {
        out.push(b'.');
        let shown = prec.min(13);
        for k in (0..shown).rev() {
            out.push(digits[((frac >> (4 * k)) & 0xf) as usize]);
        }
        out.resize(out.len() + (prec - shown), b'0');
    }
    out.push(if caps { b'P' } else { b'p' });
    out.extend_from_slice(format!("{exp:+}").as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: Vec<u8>) -> String {
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn fltout_digits() {
        let d = fltout(0.1);
        assert_eq!(d.mant, b"10000000000000001");
        assert_eq!(d.decpt, 0);
        assert_eq!(fltout(1234.5).mant, b"12345");
        assert_eq!(fltout(1234.5).decpt, 4);
        assert_eq!(fltout(0.0).decpt, 0);
    }

    #[test]
    fn half_up_on_digit_string() {
        // 0.125 is exact in binary; msvcrt rounds the string "125" up.
        assert_eq!(s(cftof(0.125, 2)), "0.13");
        assert_eq!(s(cftof(0.5, 0)), "1");
        assert_eq!(s(cftof(2.5, 0)), "3");
        assert_eq!(s(cftof(0.05, 1)), "0.1");
        assert_eq!(s(cftof(0.005, 1)), "0.0");
        assert_eq!(s(cftof(9.9999, 2)), "10.00");
        assert_eq!(s(cftof(0.1, 20)), "0.10000000000000001000");
    }

    #[test]
    fn specials() {
        let inf = f64::INFINITY;
        let ind = f64::from_bits(0xfff8_0000_0000_0000);
        let qnan = f64::from_bits(0x7ff8_0000_0000_0000);
        assert_eq!(s(cftof(inf, 6)), "1.#INF00");
        assert_eq!(s(cftof(-inf, 6)), "-1.#INF00");
        assert_eq!(s(cftof(ind, 6)), "-1.#IND00");
        assert_eq!(s(cftof(qnan, 6)), "1.#QNAN0");
        assert_eq!(s(cftof(inf, 2)), "1.#J");
        assert_eq!(s(cftof(inf, 3)), "1.#IO");
        assert_eq!(s(cftof(inf, 1)), "1.$");
        assert_eq!(s(cftof(inf, 0)), "1");
        assert_eq!(s(cftoe(inf, 6, false)), "1.#INF00e+000");
        let mut g = cftog(inf, 6, false);
        cropzeros(&mut g);
        assert_eq!(s(g), "1.#INF");
    }

    #[test]
    fn hex_float() {
        assert_eq!(s(cftoa(1.0, None, false)), "0x1.0000000000000p+0");
        assert_eq!(s(cftoa(-2.5, None, false)), "-0x1.4000000000000p+1");
        assert_eq!(s(cftoa(0.0, None, false)), "0x0.0000000000000p+0");
        assert_eq!(s(cftoa(1.0, Some(0), true)), "0X1P+0");
        assert_eq!(s(cftoa(1.96875, Some(1), false)), "0x2.0p+0");
        assert_eq!(
            s(cftoa(f64::MIN_POSITIVE / 2.0, None, false)),
            "0x0.8000000000000p-1022"
        );
    }
}
