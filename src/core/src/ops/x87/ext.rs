//! Exact operations on 80-bit register values (the images of `cpu::fpu`): their
//! classes, conversion to integers (FIST, FISTP, FISTTP, FBSTP, FRNDINT) and to the
//! m32/m64 formats (FST, FSTP) under the control word, and compares.
//!
//! A value is `(m, se)`: the 64-bit significand with its explicit integer bit, and
//! sign | 15-bit biased exponent. Finite values are `m * 2^(max(e, 1) - 16383 - 63)`
//! (denormals and pseudo-denormals have e = 0 and the exponent of e = 1).

use super::{C0, C2, C3, DE, IE, OE, PE, RC_DOWN, RC_NEAREST, RC_UP, UE};
use std::cmp::Ordering;

/// What an 80-bit encoding is to the x87 (387 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Zero,
    /// Normal, denormal or pseudo-denormal.
    Finite,
    Inf,
    Nan {
        snan: bool,
    },
    /// Unnormals, pseudo-NaNs and pseudo-infinities (integer bit clear with a
    /// nonzero exponent): an invalid operand.
    Unsupported,
}

pub fn class(m: u64, se: u16) -> Class {
    let e = se & 0x7fff;
    let int = m >> 63 == 1;
    if e == 0x7fff {
        if !int {
            Class::Unsupported
        } else if m << 1 == 0 {
            Class::Inf
        } else {
            Class::Nan {
                snan: m & (1 << 62) == 0,
            }
        }
    } else if e != 0 && !int {
        Class::Unsupported
    } else if m == 0 {
        Class::Zero
    } else {
        Class::Finite
    }
}

/// Whether a finite value is in the 80-bit denormal range (denormal or
/// pseudo-denormal): a denormal operand (DE) where the instruction checks.
#[inline]
pub fn is_denormal(m: u64, se: u16) -> bool {
    se & 0x7fff == 0 && m != 0
}

/// Whether an integer of magnitude `mag` is exact as an f64 (at most 53
/// significant bits).
#[inline(always)]
pub fn int_fits_f64(mag: u64) -> bool {
    mag >> 53 == 0 || 64 - mag.leading_zeros() - mag.trailing_zeros() <= 53
}

/// The 80-bit value of the integer `-mag` (`neg`) or `mag`, nonzero.
#[inline]
pub fn int_image(neg: bool, mag: u64) -> (u64, u16) {
    let lz = mag.leading_zeros();
    (mag << lz, (neg as u16) << 15 | (16383 + 63 - lz) as u16)
}

/// `mn` (bit 63 set) rounded to its `keep` leading bits under rounding control `rc`
/// for a value of sign `neg`: (the kept bits as an integer, maybe carried to one bit
/// more; inexact; rounded up in magnitude). `keep` may be 0 or negative: every bit is
/// then below the kept ones.
fn round_bits(mn: u64, keep: i32, rc: u16, neg: bool) -> (u64, bool, bool) {
    if keep >= 64 {
        return (mn, false, false);
    }
    // Shifts of 65 and more give the same result as 127: nothing kept, the rest below
    // half.
    let s = (64 - keep).min(127) as u32;
    let x = mn as u128;
    let q = x >> s;
    let rem = x & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    let inexact = rem != 0;
    let inc = match rc {
        RC_NEAREST => rem > half || (rem == half && q & 1 == 1),
        RC_UP => !neg && inexact,
        RC_DOWN => neg && inexact,
        _ => false,
    };
    ((q + inc as u128) as u64, inexact, inc)
}

/// A finite value rounded to an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounded {
    pub neg: bool,
    pub mag: u64,
    pub inexact: bool,
    /// The magnitude was rounded up (C1).
    pub up: bool,
}

/// A zero or finite value rounded to an integer under `rc`; None when the result's
/// magnitude is 2^64 or more.
pub fn round_int(m: u64, se: u16, rc: u16) -> Option<Rounded> {
    let neg = se & 0x8000 != 0;
    if m == 0 {
        return Some(Rounded {
            neg,
            mag: 0,
            inexact: false,
            up: false,
        });
    }
    let shift = ((se & 0x7fff) as i32).max(1) - 16383 - 63;
    if shift >= 0 {
        if shift >= 64 || m.leading_zeros() < shift as u32 {
            return None;
        }
        return Some(Rounded {
            neg,
            mag: m << shift,
            inexact: false,
            up: false,
        });
    }
    // Keep the bits above the binary point: at most 63 of them, so even a carry
    // fits.
    let lz = m.leading_zeros() as i32;
    let (q, inexact, up) = round_bits(m << lz, 64 + shift - lz, rc, neg);
    Some(Rounded {
        neg,
        mag: q,
        inexact,
        up,
    })
}

/// FIST/FISTP/FISTTP of an 80-bit value to a `bits`-bit integer under `rc`:
/// (value, flags, rounded up). NaNs, infinities, unsupported encodings and values out
/// of range give the integer indefinite with IE.
pub fn to_int(rc: u16, m: u64, se: u16, bits: u32) -> (i64, u16, bool) {
    let indefinite = i64::MIN >> (64 - bits);
    if !matches!(class(m, se), Class::Zero | Class::Finite) {
        return (indefinite, IE, false);
    }
    let Some(r) = round_int(m, se, rc) else {
        return (indefinite, IE, false);
    };
    let lim = 1u64 << (bits - 1);
    if r.mag > lim || (r.mag == lim && !r.neg) {
        return (indefinite, IE, false);
    }
    let v = if r.neg {
        (r.mag as i64).wrapping_neg()
    } else {
        r.mag as i64
    };
    (v, if r.inexact { PE } else { 0 }, r.up)
}

/// FST/FSTP m64 (`double`) or m32 of an 80-bit value under control word `cw`:
/// (the memory bits, exception flags, rounded up in magnitude for C1).
///
/// Rounding follows RC from the exact value (one rounding). SNaNs are quieted with
/// IE, other NaNs keep the top of their payload; unsupported encodings give the
/// indefinite with IE. Overflow: OE and PE, the masked result infinity or the
/// largest finite number by RC. Underflow: tininess after rounding (to the
/// format's precision with an unbounded exponent); UE when tiny and inexact, or
/// tiny with UE unmasked. With OE or UE unmasked the store does not happen and they
/// are reported alone (as `ldst::to_f32` does).
pub fn to_float(m: u64, se: u16, cw: u16, double: bool) -> (u64, u16, bool) {
    let (p, ebits): (i32, u32) = if double { (53, 11) } else { (24, 8) };
    let bias = (1i32 << (ebits - 1)) - 1;
    let fbits = (p - 1) as u32;
    let neg = se & 0x8000 != 0;
    let sign = (neg as u64) << (fbits + ebits);
    let inf = ((1u64 << ebits) - 1) << fbits;
    let quiet = 1u64 << (fbits - 1);
    match class(m, se) {
        Class::Unsupported => return ((1 << (fbits + ebits)) | inf | quiet, IE, false),
        Class::Zero => return (sign, 0, false),
        Class::Inf => return (sign | inf, 0, false),
        Class::Nan { snan } => {
            let frac = ((m << 1) >> (64 - fbits)) | quiet;
            return (sign | inf | frac, if snan { IE } else { 0 }, false);
        }
        Class::Finite => {}
    }
    let rc = (cw >> 10) & 3;
    let lz = m.leading_zeros() as i32;
    let mn = m << lz;
    // The value is 1.f * 2^t.
    let t = ((se & 0x7fff) as i32).max(1) - 16383 - lz;
    let emin = 1 - bias;
    let (q1, _, _) = round_bits(mn, p, rc, neg);
    let tiny = t + ((q1 >> p) as i32) < emin;
    let (q, inexact, mut up) = round_bits(mn, p - (emin - t).max(0), rc, neg);
    let mut fl = if inexact { PE } else { 0 };
    let mut bits = if t > bias {
        inf
    } else if t >= emin {
        (((t + bias - 1) as u64) << fbits) + q
    } else {
        q
    };
    if bits >= inf {
        fl |= OE | PE;
        let to_inf = match rc {
            RC_NEAREST => true,
            RC_UP => !neg,
            RC_DOWN => neg,
            _ => false,
        };
        bits = if to_inf { inf } else { inf - 1 };
        up = to_inf;
    }
    if tiny && (inexact || cw & UE == 0) {
        fl |= UE;
    }
    if fl & (OE | UE) & !cw != 0 {
        fl &= OE | UE;
    }
    (sign | bits, fl, up)
}

/// The compare result patterns (C3 C2 C0).
pub const GT: u16 = 0;
pub const LT: u16 = C0;
pub const EQ: u16 = C3;
pub const UN: u16 = C3 | C2 | C0;

/// Magnitude order key of a zero, finite or infinite value.
fn key(m: u64, se: u16) -> (i32, u64) {
    if m == 0 {
        return (i32::MIN, 0);
    }
    let lz = m.leading_zeros();
    (((se & 0x7fff) as i32).max(1) - lz as i32, m << lz)
}

/// Compares `a` with `b` exactly: the C3 C2 C0 pattern and the exception flags (IE
/// for an unsupported operand, or a NaN unless `unordered` and both NaNs are quiet;
/// otherwise DE when either is an 80-bit denormal).
pub fn compare(a: (u64, u16), b: (u64, u16), unordered: bool) -> (u16, u16) {
    let (ca, cb) = (class(a.0, a.1), class(b.0, b.1));
    if ca == Class::Unsupported || cb == Class::Unsupported {
        return (UN, IE);
    }
    let nan = |c: Class| matches!(c, Class::Nan { .. });
    if nan(ca) || nan(cb) {
        let snan = |c: Class| matches!(c, Class::Nan { snan: true });
        let ie = !unordered || snan(ca) || snan(cb);
        return (UN, if ie { IE } else { 0 });
    }
    let de = if is_denormal(a.0, a.1) || is_denormal(b.0, b.1) {
        DE
    } else {
        0
    };
    let na = ca != Class::Zero && a.1 & 0x8000 != 0;
    let nb = cb != Class::Zero && b.1 & 0x8000 != 0;
    let c = if na != nb {
        if na { LT } else { GT }
    } else {
        let o = key(a.0, a.1).cmp(&key(b.0, b.1));
        let o = if na { o.reverse() } else { o };
        match o {
            Ordering::Greater => GT,
            Ordering::Less => LT,
            Ordering::Equal => EQ,
        }
    };
    (c, de)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::fpu::f64_to_ext80;
    use crate::ops::x87::RC_CHOP;

    #[test]
    fn integers_round_trip() {
        for v in [
            0x6d6f_4354_0000_abcdi64,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            (1 << 53) + 1,
            -(1 << 53) - 1,
            1,
            -1,
            12345,
        ] {
            let (m, se) = int_image(v < 0, v.unsigned_abs());
            for rc in 0..4 {
                assert_eq!(to_int(rc, m, se, 64), (v, 0, false), "{v:#x} rc {rc}");
            }
        }
        assert!(int_fits_f64(1 << 53));
        assert!(int_fits_f64(u64::MAX << 11));
        assert!(!int_fits_f64((1 << 53) + 1));
        assert!(!int_fits_f64(u64::MAX));
    }

    #[test]
    fn rounding_to_integers() {
        // 2.5 and -2.5 under each rounding mode; 0.75 * 2^-16382 (pseudo-denormal
        // range) rounds to 0 or 1.
        let (m, se) = f64_to_ext80(2.5);
        let want = [
            (2, true, false),
            (2, true, false),
            (3, true, true),
            (2, true, false),
        ];
        for (rc, (v, ie, up)) in want.iter().enumerate() {
            let r = round_int(m, se, rc as u16).unwrap();
            assert_eq!((r.mag, r.inexact, r.up), (*v, *ie, *up), "rc {rc}");
        }
        let r = round_int(m, se | 0x8000, RC_DOWN).unwrap();
        assert_eq!((r.neg, r.mag, r.up), (true, 3, true));
        let r = round_int(3 << 62, 0, RC_UP).unwrap();
        assert_eq!((r.mag, r.inexact, r.up), (1, true, true));
        let r = round_int(3 << 62, 0, RC_NEAREST).unwrap();
        assert_eq!((r.mag, r.inexact, r.up), (0, true, false));
        // 2^64 - 0.5 rounds up to 2^64: too large; 2^64 - 1 is exact.
        let (m, se) = (u64::MAX, 16383 + 63);
        assert_eq!(round_int(m, se, RC_CHOP).unwrap().mag, u64::MAX);
        assert_eq!(round_int(m, se + 1, RC_CHOP), None);
        let r = round_int(u64::MAX, 16383 + 62, RC_UP).unwrap();
        assert_eq!((r.mag, r.up), (1 << 63, true));
        assert_eq!(
            round_int(u64::MAX, 16383 + 62, RC_CHOP).unwrap().mag,
            u64::MAX >> 1
        );
        // Out of the integer's range: the indefinite with IE.
        assert_eq!(
            to_int(0, 1 << 63, 16383 + 31, 32),
            (i32::MIN as i64, IE, false)
        );
        assert_eq!(
            to_int(0, 1 << 63, 0x8000 | (16383 + 31), 32),
            (i32::MIN as i64, 0, false)
        );
    }

    #[test]
    fn stores_round_once() {
        // 1 + 2^-53 + 2^-60: above the half-way point between 1 and the next
        // double, so nearest rounds up (double rounding through 64 bits would not
        // matter here, but through 53 then 24 it could).
        let m = (1u64 << 63) | (1 << 10) | (1 << 3);
        let (b, fl, up) = to_float(m, 16383, 0x037f, true);
        assert_eq!((b, fl, up), (0x3ff0_0000_0000_0001, PE, true));
        let (b, fl, up) = to_float(m, 16383, 0x037f | 0x0c00, true);
        assert_eq!((b, fl, up), (0x3ff0_0000_0000_0000, PE, false));
        // The largest 80-bit value: overflow (OE PE), infinity or the largest double.
        let (b, fl, _) = to_float(u64::MAX, 0x7ffe, 0x037f, true);
        assert_eq!((b, fl), (0x7ff0_0000_0000_0000, OE | PE));
        let (b, _, up) = to_float(u64::MAX, 0x7ffe, 0x0f7f, true);
        assert_eq!((b, up), (0x7fef_ffff_ffff_ffff, false));
        // An 80-bit denormal: underflows to zero (UE PE), or the smallest denormal
        // rounding up.
        let (b, fl, _) = to_float(1, 0, 0x037f, false);
        assert_eq!((b, fl), (0, UE | PE));
        let (b, fl, up) = to_float(1, 0, 0x037f | 0x0800, false);
        assert_eq!((b, fl, up), (1, UE | PE, true));
        // NaN payloads: the top bits kept, SNaN quieted with IE.
        let (b, fl, _) = to_float(0xa000_0000_0000_0001, 0xffff, 0x037f, true);
        assert_eq!((b, fl), (0xfffc_0000_0000_0000, IE));
        // Unsupported: the indefinite with IE.
        let (b, fl, _) = to_float(0x4000_0000_0000_0000, 0x3fff, 0x037f, false);
        assert_eq!((b, fl), (0xffc0_0000, IE));
        // Every double converts back exactly.
        for v in [1.0, -0.1, 1e300, 5e-324, f64::MAX, -0.0, f64::INFINITY] {
            let (m, se) = f64_to_ext80(v);
            assert_eq!(
                to_float(m, se, 0x037f, true),
                (v.to_bits(), 0, false),
                "{v}"
            );
        }
    }

    #[test]
    fn compares_are_exact() {
        let a = int_image(false, (1 << 60) + 1);
        let b = int_image(false, 1 << 60);
        assert_eq!(compare(a, b, false), (GT, 0));
        assert_eq!(compare(b, a, false), (LT, 0));
        let na = (a.0, a.1 | 0x8000);
        let nb = (b.0, b.1 | 0x8000);
        assert_eq!(compare(na, nb, false), (LT, 0));
        assert_eq!(compare(na, b, false), (LT, 0));
        assert_eq!(compare(a, a, false), (EQ, 0));
        // +0 and -0 are equal; a pseudo-denormal equals the normal of the same value.
        assert_eq!(compare((0, 0), (0, 0x8000), false), (EQ, 0));
        assert_eq!(compare((1 << 63, 0), (1 << 63, 1), false), (EQ, DE));
        // Unsupported: IE even for FUCOM.
        assert_eq!(compare((1 << 62, 0x3fff), b, true), (UN, IE));
        // QNaN: FUCOM raises nothing, FCOM IE.
        let q = (0xc000_0000_0000_0001, 0x7fff);
        assert_eq!(compare(q, b, true), (UN, 0));
        assert_eq!(compare(q, b, false), (UN, IE));
        // Infinity is above every finite value.
        assert_eq!(
            compare((1 << 63, 0x7fff), (u64::MAX, 0x7ffe), false),
            (GT, 0)
        );
    }
}
