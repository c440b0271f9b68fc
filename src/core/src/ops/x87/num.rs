//! Exact floating-point helpers: the sign of a rounding error, correct rounding
//! of an integer significand, rounding to the control word's precision and
//! rounding mode, and the x87 NaN rules.
//!
//! Directions: `dir` is the sign of `exact - result` as values (-1, 0, +1).

use super::{RC_CHOP, RC_DOWN, RC_NEAREST, RC_UP};

pub const FRAC: u64 = (1 << 52) - 1;
pub const SIGN: u64 = 1 << 63;
pub const QUIET: u64 = 1 << 51;
/// Largest value with a 24-bit significand in the double exponent range.
pub const MAX24: u64 = 0x7fef_ffff_e000_0000;

#[inline(always)]
pub fn exp_field(x: f64) -> u64 {
    (x.to_bits() >> 52) & 0x7ff
}

#[inline(always)]
pub fn is_snan(x: f64) -> bool {
    let b = x.to_bits();
    (b >> 52) & 0x7ff == 0x7ff && b & FRAC != 0 && b & QUIET == 0
}

#[inline(always)]
pub fn quiet(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | QUIET)
}

/// Finite, nonzero `x` as `m * 2^e` with `m` in [2^52, 2^53).
#[inline(always)]
pub fn decompose(x: f64) -> (u64, i32) {
    let b = x.to_bits();
    let ex = ((b >> 52) & 0x7ff) as i32;
    let f = b & FRAC;
    if ex == 0 {
        let sh = f.leading_zeros() as i32 - 11;
        (f << sh, -1074 - sh)
    } else {
        (f | (1 << 52), ex - 1075)
    }
}

#[inline(always)]
fn sgn(neg: bool) -> i8 {
    if neg { -1 } else { 1 }
}

/// Next representable value toward +inf (x not +inf, not NaN).
#[inline]
pub fn next_up(x: f64) -> f64 {
    let b = x.to_bits();
    if x == 0.0 {
        f64::from_bits(1)
    } else if b & SIGN == 0 {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

#[inline]
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Rounds the round-to-nearest double `r` with direction `dir` to the control
/// word's rounding mode and (when `pc` is set) precision. Returns the result and
/// the direction of the exact value from it.
pub fn round_cw(cw: u16, r: f64, dir: i8, pc: bool) -> (f64, i8) {
    let rc = (cw >> 10) & 3;
    if pc && (cw >> 8) & 3 == 0 && r.is_finite() && exp_field(r) != 0 {
        return round24(rc, r, dir);
    }
    if dir == 0 || rc == RC_NEAREST {
        return (r, dir);
    }
    let out = match rc {
        RC_DOWN if dir < 0 => (next_down(r), 1),
        RC_UP if dir > 0 => (next_up(r), -1),
        RC_CHOP if r != 0.0 && (dir > 0) == r.is_sign_negative() => {
            if r > 0.0 {
                (next_down(r), 1)
            } else {
                (next_up(r), -1)
            }
        }
        _ => (r, dir),
    };
    if pc && (cw >> 8) & 3 == 0 && out.0.abs() == f64::MAX {
        return (f64::from_bits((out.0.to_bits() & SIGN) | MAX24), out.1);
    }
    out
}

/// Rounds a normal double (with direction `dir` of the exact value) to a 24-bit
/// significand under rounding control `rc`.
fn round24(rc: u16, r: f64, dir: i8) -> (f64, i8) {
    const LOW: u64 = (1 << 29) - 1;
    const HALF: u64 = 1 << 28;
    let b = r.to_bits();
    let s = b & SIGN;
    let neg = s != 0;
    let mb = b & !SIGN;
    let mdir = dir * sgn(neg);
    let low = mb & LOW;
    let trunc = mb - low;
    let away = (rc == RC_UP && !neg) || (rc == RC_DOWN && neg);
    let toward = rc == RC_CHOP || (rc == RC_UP && neg) || (rc == RC_DOWN && !neg);
    let (res, new_mdir) = if low == 0 {
        match mdir {
            0 => (mb, 0),
            1 if away => (mb + LOW + 1, -1),
            1 => (mb, 1),
            _ if toward => (mb - LOW - 1, 1),
            _ => (mb, -1),
        }
    } else {
        let up = if rc == RC_NEAREST {
            low > HALF || (low == HALF && (mdir > 0 || (mdir == 0 && (trunc >> 29) & 1 == 1)))
        } else {
            away
        };
        if up {
            (trunc + LOW + 1, -1)
        } else {
            (trunc, 1)
        }
    };
    (f64::from_bits(s | res), new_mdir * sgn(neg))
}

/// Rounds to an integer under rounding control `rc`.
#[inline]
pub fn round_int(rc: u16, v: f64) -> f64 {
    match rc {
        RC_NEAREST => v.round_ties_even(),
        RC_DOWN => v.floor(),
        RC_UP => v.ceil(),
        _ => v.trunc(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round24_matches_f32() {
        for v in [1.0 / 3.0, 2.0 / 3.0, 0.1, 1e10 / 7.0, -5.0 / 7.0] {
            let (r, _) = round_cw(0x007f, v, 0, true);
            assert_eq!(r, v as f32 as f64, "{v}");
        }
        // Chop and up.
        let (r, _) = round_cw(0x0c7f, 1.0 / 3.0, 0, true);
        assert_eq!(r, f32::from_bits(0x3eaa_aaaa) as f64);
        let (r, d) = round_cw(0x087f, 0.1, 0, true);
        assert_eq!(r, f32::from_bits(0.1f32.to_bits()) as f64);
        assert_eq!(d, -1);
    }
}
