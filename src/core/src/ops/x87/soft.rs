//! The x87's arithmetic on 80-bit values, in software.
//!
//! Every result is computed exactly (or with a sticky bit below enough guard bits)
//! and rounded once by [`round_pack`]: to the precision control's 24, 53 or 64
//! significand bits under the rounding control, with the 80-bit format's 15-bit
//! exponent range. That routine also gives the x87's response to overflow (masked:
//! infinity or the largest value of the precision, by RC; unmasked: the exponent
//! wrapped down by 24576) and underflow (masked: the value denormalized and rounded
//! again at the 80-bit denormal's fixed point, to the precision's leading bits of
//! the 64-bit significand field, UE only when that is inexact;
//! unmasked: the exponent wrapped up by 24576, UE whether exact or not), PE, and
//! C1 ("rounded up in magnitude").
//!
//! Operations take their operands as they are in the register or memory, classify
//! them (unsupported encodings are invalid operands; NaNs propagate by the x87's
//! rules, SDM table 4-7) and raise DE for an 80-bit denormal or pseudo-denormal.

use super::ext::{Class, class, is_denormal};
use super::{DE, IE, OE, PE, RC_DOWN, RC_NEAREST, RC_UP, UE, ZE};
use crate::cpu::fpu::f64_to_ext80;

/// An 80-bit register value: the significand with its explicit integer bit, and
/// sign | 15-bit biased exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F80 {
    pub m: u64,
    pub se: u16,
}

/// The real indefinite (a negative QNaN).
pub const INDEF: F80 = F80 {
    m: 0xc000_0000_0000_0000,
    se: 0xffff,
};

/// Smallest normal exponent (unbiased).
const EMIN: i32 = -16382;
/// Largest finite exponent (unbiased).
const EMAX: i32 = 16383;
/// Exponent of the least significant bit of an 80-bit denormal.
const DENORM_LSB: i32 = EMIN - 63;
/// The exponent adjustment of an unmasked overflow or underflow response.
const WRAP: i32 = 24576;

impl F80 {
    #[inline(always)]
    pub const fn new(m: u64, se: u16) -> F80 {
        F80 { m, se }
    }

    #[inline(always)]
    pub fn from_f64(v: f64) -> F80 {
        let (m, se) = f64_to_ext80(v);
        F80 { m, se }
    }

    #[inline(always)]
    pub fn sign(self) -> bool {
        self.se & 0x8000 != 0
    }

    #[inline(always)]
    pub fn class(self) -> Class {
        class(self.m, self.se)
    }

    #[inline(always)]
    pub fn zero(neg: bool) -> F80 {
        F80 {
            m: 0,
            se: (neg as u16) << 15,
        }
    }

    #[inline(always)]
    pub fn inf(neg: bool) -> F80 {
        F80 {
            m: 1 << 63,
            se: (neg as u16) << 15 | 0x7fff,
        }
    }

    /// The value with sign `neg`.
    #[inline(always)]
    pub fn with_sign(self, neg: bool) -> F80 {
        F80 {
            m: self.m,
            se: (self.se & 0x7fff) | (neg as u16) << 15,
        }
    }

    /// A finite nonzero value as `m * 2^e` with `m`'s bit 63 set.
    #[inline]
    pub fn unpack(self) -> (u64, i32) {
        let lz = self.m.leading_zeros() as i32;
        let e = ((self.se & 0x7fff) as i32).max(1) - 16383 - 63;
        (self.m << lz, e - lz)
    }

    /// Whether the value is a denormal operand (80-bit denormal or pseudo-denormal).
    #[inline(always)]
    pub fn is_denormal(self) -> bool {
        is_denormal(self.m, self.se)
    }

    #[inline(always)]
    pub fn is_nan(self) -> bool {
        matches!(self.class(), Class::Nan { .. })
    }

    #[inline(always)]
    pub fn is_snan(self) -> bool {
        matches!(self.class(), Class::Nan { snan: true })
    }

    /// The value with a pseudo-denormal in its normal encoding (as arithmetic
    /// writes it).
    #[inline(always)]
    pub fn canonical(self) -> F80 {
        if self.se & 0x7fff == 0 && self.m >> 63 == 1 {
            F80 {
                m: self.m,
                se: self.se | 1,
            }
        } else {
            self
        }
    }

    /// The NaN quieted.
    #[inline(always)]
    pub fn quiet(self) -> F80 {
        F80 {
            m: self.m | 1 << 62,
            se: self.se,
        }
    }
}

/// An operation's result: the value, the exception flags it raises, and whether it
/// was rounded up in magnitude (C1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Res {
    pub v: F80,
    pub fl: u16,
    pub up: bool,
}

impl Res {
    #[inline(always)]
    pub fn exact(v: F80) -> Res {
        Res {
            v,
            fl: 0,
            up: false,
        }
    }

    #[inline(always)]
    pub fn invalid() -> Res {
        Res {
            v: INDEF,
            fl: IE,
            up: false,
        }
    }
}

/// Significand bits of the control word's precision control (PC = 1, reserved,
/// behaves as 64 bits).
#[inline(always)]
pub fn prec_bits(cw: u16) -> u32 {
    match (cw >> 8) & 3 {
        0 => 24,
        2 => 53,
        _ => 64,
    }
}

/// `mant >> s` rounded under `rc` for a value of sign `neg` (`s` > 0): (the
/// quotient, inexact, rounded up in magnitude).
#[inline]
fn shift_round(mant: u128, s: i32, rc: u16, neg: bool) -> (u128, bool, bool) {
    if s <= 0 {
        return (mant << (-s) as u32, false, false);
    }
    let (q, gt_half, eq_half, inexact) = if s >= 129 {
        (0, false, false, mant != 0)
    } else if s == 128 {
        let half = 1u128 << 127;
        (0, mant > half, mant == half, mant != 0)
    } else {
        let s = s as u32;
        let q = mant >> s;
        let rem = mant & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        (q, rem > half, rem == half, rem != 0)
    };
    let inc = match rc {
        RC_NEAREST => gt_half || (eq_half && q & 1 == 1),
        RC_UP => !neg && inexact,
        RC_DOWN => neg && inexact,
        _ => false,
    };
    (q + inc as u128, inexact, inc)
}

/// The encoding of `(-1)^neg * q * 2^lsb`, whose exponent is in the 80-bit range
/// (a denormal has `lsb` >= [`DENORM_LSB`]).
fn encode(neg: bool, q: u128, lsb: i32) -> F80 {
    let sign = (neg as u16) << 15;
    if q == 0 {
        return F80::zero(neg);
    }
    let n = 128 - q.leading_zeros() as i32;
    let t = lsb + n - 1;
    let biased = t + 16383;
    if biased >= 1 {
        let m = if n > 64 {
            (q >> (n - 64)) as u64
        } else {
            (q << (64 - n)) as u64
        };
        F80 {
            m,
            se: sign | biased as u16,
        }
    } else {
        F80 {
            m: (q << (lsb - DENORM_LSB)) as u64,
            se: sign,
        }
    }
}

/// The masked overflow response: infinity or the largest value of `prec` bits, by
/// the rounding mode.
fn overflow_response(neg: bool, prec: u32, rc: u16) -> Res {
    let to_inf = match rc {
        RC_NEAREST => true,
        RC_UP => !neg,
        RC_DOWN => neg,
        _ => false,
    };
    let v = if to_inf {
        F80::inf(neg)
    } else {
        F80 {
            m: !0u64 << (64 - prec),
            se: (neg as u16) << 15 | 0x7ffe,
        }
    };
    Res {
        v,
        fl: OE | PE,
        up: to_inf,
    }
}

/// Rounds `(-1)^neg * mant * 2^exp` (`mant` nonzero; a sticky bit may be jammed
/// into its least significant bit when at least two bits lie below the rounding
/// point) to `prec` bits under control word `cw`: see the module doc.
pub fn round_pack(neg: bool, mant: u128, exp: i32, prec: u32, cw: u16) -> Res {
    let rc = (cw >> 10) & 3;
    let n = 128 - mant.leading_zeros() as i32;
    let t = exp + n - 1;
    let lsb = t - (prec as i32 - 1);
    let (q, inexact, up) = shift_round(mant, lsb - exp, rc, neg);
    // The exponent after rounding (a carry out of the significand adds one).
    let tr = if q >> prec != 0 { t + 1 } else { t };
    let pe = if inexact { PE } else { 0 };
    if tr > EMAX {
        if cw & OE != 0 {
            return overflow_response(neg, prec, rc);
        }
        if tr - WRAP > EMAX {
            // Too large even wrapped (FSCALE): infinity, whatever the rounding.
            return Res {
                v: F80::inf(neg),
                fl: OE | PE,
                up: true,
            };
        }
        return Res {
            v: encode(neg, q, lsb - WRAP),
            fl: OE | pe,
            up,
        };
    }
    // Tininess after rounding (to the precision, with an unbounded exponent).
    if tr < EMIN {
        if cw & UE == 0 {
            if tr + WRAP < EMIN {
                // Too small even wrapped (FSCALE): a zero.
                return Res {
                    v: F80::zero(neg),
                    fl: UE | PE,
                    up: false,
                };
            }
            return Res {
                v: encode(neg, q, lsb + WRAP),
                fl: UE | pe,
                up,
            };
        }
        // The denormal keeps the precision's bits of the 64-bit significand field
        // at its fixed point, not counted from its leading one (the host does).
        let dl = lsb.max(DENORM_LSB + 64 - prec as i32);
        let (q, inexact, up) = shift_round(mant, dl - exp, rc, neg);
        return Res {
            v: encode(neg, q, dl),
            fl: if inexact { UE | PE } else { 0 },
            up,
        };
    }
    Res {
        v: encode(neg, q, lsb),
        fl: pe,
        up,
    }
}

/// Rounds a finite value (zero included) to `prec` bits (as an arithmetic result
/// with that value would be).
pub fn round_value(x: F80, prec: u32, cw: u16) -> Res {
    if x.m == 0 {
        return Res::exact(x);
    }
    let (m, e) = x.unpack();
    round_pack(x.sign(), m as u128, e, prec, cw)
}

/// The x87 NaN rules for two operands, at least one a NaN: the result and IE (an
/// SNaN was involved).
pub fn nan2(a: F80, b: F80) -> Res {
    let (na, nb) = (a.is_nan(), b.is_nan());
    let (sa, sb) = (a.is_snan(), b.is_snan());
    let r = match (na, nb) {
        (true, false) => a,
        (false, true) => b,
        _ => {
            if sa != sb {
                // An SNaN and a QNaN: the QNaN.
                if sa { b } else { a }
            } else if a.m != b.m {
                if a.m > b.m { a } else { b }
            } else if a.sign() {
                // Equal significands: the positive one.
                b
            } else {
                a
            }
        }
    };
    Res {
        v: r.quiet(),
        fl: if sa || sb { IE } else { 0 },
        up: false,
    }
}

/// Operation kinds.
pub const ADD: u8 = 0;
pub const MUL: u8 = 1;
pub const SUB: u8 = 2;
pub const DIV: u8 = 4;

/// `a OP b` (OP in ADD SUB MUL DIV) on 80-bit operands under control word `cw`,
/// rounded to the precision control. `de`: a memory operand was a denormal in its
/// format. The flags include DE; the caller decides what an unmasked one
/// suppresses (every flag but OE, UE and PE does).
pub fn arith(op: u8, a: F80, b: F80, de: bool, cw: u16) -> Res {
    let (ca, cb) = (a.class(), b.class());
    if ca == Class::Unsupported || cb == Class::Unsupported {
        return Res::invalid();
    }
    if a.is_nan() || b.is_nan() {
        return nan2(a, b);
    }
    let b = if op == SUB { b.with_sign(!b.sign()) } else { b };
    let neg = a.sign() != b.sign();
    let (ia, ib) = (ca == Class::Inf, cb == Class::Inf);
    let (za, zb) = (ca == Class::Zero, cb == Class::Zero);
    match op {
        ADD | SUB => {
            if ia && ib && neg {
                return Res::invalid();
            }
        }
        MUL => {
            if (za && ib) || (ia && zb) {
                return Res::invalid();
            }
        }
        _ => {
            if (za && zb) || (ia && ib) {
                return Res::invalid();
            }
            if zb && !ia {
                // Zero divide (it outranks a denormal dividend).
                return Res {
                    v: F80::inf(neg),
                    fl: ZE,
                    up: false,
                };
            }
        }
    }
    let de = if de || a.is_denormal() || b.is_denormal() {
        DE
    } else {
        0
    };
    let mut r = match op {
        ADD | SUB => {
            if ia {
                Res::exact(F80::inf(a.sign()))
            } else if ib {
                Res::exact(F80::inf(b.sign()))
            } else {
                add(a, b, cw)
            }
        }
        MUL => {
            if ia || ib {
                Res::exact(F80::inf(neg))
            } else if za || zb {
                Res::exact(F80::zero(neg))
            } else {
                let (ma, ea) = a.unpack();
                let (mb, eb) = b.unpack();
                round_pack(neg, ma as u128 * mb as u128, ea + eb, prec_bits(cw), cw)
            }
        }
        _ => {
            if ia {
                Res::exact(F80::inf(neg))
            } else if za || ib {
                Res::exact(F80::zero(neg))
            } else {
                div(neg, a, b, cw)
            }
        }
    };
    r.fl |= de;
    r
}

/// `a + b` of finite values.
fn add(a: F80, b: F80, cw: u16) -> Res {
    let prec = prec_bits(cw);
    let (za, zb) = (a.m == 0, b.m == 0);
    if za && zb {
        let neg = if a.sign() == b.sign() {
            a.sign()
        } else {
            (cw >> 10) & 3 == RC_DOWN
        };
        return Res::exact(F80::zero(neg));
    }
    if za {
        return round_value(b, prec, cw);
    }
    if zb {
        return round_value(a, prec, cw);
    }
    let (mut ma, mut ea) = a.unpack();
    let (mut mb, mut eb) = b.unpack();
    let (mut na, mut nb) = (a.sign(), b.sign());
    if (eb, mb) > (ea, ma) {
        std::mem::swap(&mut ma, &mut mb);
        std::mem::swap(&mut ea, &mut eb);
        std::mem::swap(&mut na, &mut nb);
    }
    let d = ea - eb;
    let big = (ma as u128) << 62;
    let full = (mb as u128) << 62;
    let (small, sticky) = if d == 0 {
        (full, false)
    } else if d < 128 {
        (full >> d, full & ((1u128 << d) - 1) != 0)
    } else {
        (0, true)
    };
    let exp = ea - 62;
    if na == nb {
        return round_pack(na, (big + small) | sticky as u128, exp, prec, cw);
    }
    if big == small && !sticky {
        return Res::exact(F80::zero((cw >> 10) & 3 == RC_DOWN));
    }
    let diff = (big - small - sticky as u128) | sticky as u128;
    round_pack(na, diff, exp, prec, cw)
}

/// `a / b` of finite nonzero values with result sign `neg`.
fn div(neg: bool, a: F80, b: F80, cw: u16) -> Res {
    let (ma, ea) = a.unpack();
    let (mb, eb) = b.unpack();
    let num = (ma as u128) << 64;
    let q1 = num / mb as u128;
    let r1 = num % mb as u128;
    let n2 = r1 << 32;
    let q2 = n2 / mb as u128;
    let sticky = !n2.is_multiple_of(mb as u128);
    let q = (q1 << 32) | q2 | sticky as u128;
    round_pack(neg, q, ea - eb - 96, prec_bits(cw), cw)
}

/// FSQRT: the square root rounded to the precision control.
pub fn sqrt(a: F80, cw: u16) -> Res {
    match a.class() {
        Class::Unsupported => return Res::invalid(),
        Class::Nan { snan } => {
            return Res {
                v: a.quiet(),
                fl: if snan { IE } else { 0 },
                up: false,
            };
        }
        Class::Zero => return Res::exact(a),
        Class::Inf => {
            return if a.sign() {
                Res::invalid()
            } else {
                Res::exact(a)
            };
        }
        Class::Finite => {}
    }
    if a.sign() {
        return Res::invalid();
    }
    let de = if a.is_denormal() { DE } else { 0 };
    let (m, e) = a.unpack();
    // x = m * 2^s with e - s even and x in [2^126, 2^128).
    let s = if (e - 64) & 1 == 0 { 64 } else { 63 };
    let x = (m as u128) << s;
    let r = x.isqrt();
    let rem = x - r * r;
    // Two more bits: the half (rem > r means the root is above r + 1/2; it cannot
    // be exactly there) and a sticky bit.
    let low = if rem > r {
        3
    } else if rem != 0 {
        1
    } else {
        0
    };
    let mut out = round_pack(false, (r << 2) | low, (e - s) / 2 - 2, prec_bits(cw), cw);
    out.fl |= de;
    out
}

/// A nonzero integer as an 80-bit value.
pub fn from_int(neg: bool, mag: u64) -> F80 {
    let lz = mag.leading_zeros();
    F80 {
        m: mag << lz,
        se: (neg as u16) << 15 | (16383 + 63 - lz) as u16,
    }
}

/// FSCALE: `a * 2^trunc(s)`, rounded to 64 bits (the precision control does not
/// apply).
pub fn scale(a: F80, s: F80, cw: u16) -> Res {
    let (ca, cs) = (a.class(), s.class());
    if ca == Class::Unsupported || cs == Class::Unsupported {
        return Res::invalid();
    }
    if a.is_nan() || s.is_nan() {
        return nan2(a, s);
    }
    let de = if a.is_denormal() || s.is_denormal() {
        DE
    } else {
        0
    };
    if cs == Class::Inf {
        let v = match (s.sign(), ca) {
            (false, Class::Zero) | (true, Class::Inf) => return Res::invalid(),
            (false, _) => F80::inf(a.sign()),
            (true, _) => F80::zero(a.sign()),
        };
        return Res {
            v,
            fl: de,
            up: false,
        };
    }
    if ca != Class::Finite {
        return Res {
            v: a,
            fl: de,
            up: false,
        };
    }
    // trunc(s), clamped far beyond every exponent a result can have.
    let n = if s.m == 0 {
        0
    } else {
        let (ms, es) = s.unpack();
        let mag = if es >= 0 {
            1 << 20
        } else if es <= -64 {
            0
        } else {
            (ms >> -es).min(1 << 20) as i32
        };
        if s.sign() { -mag } else { mag }
    };
    let (m, e) = a.unpack();
    let mut r = round_pack(a.sign(), m as u128, e + n, 64, cw);
    r.fl |= de;
    r
}

/// FXTRACT of a finite nonzero value: (exponent, significand) and DE for a
/// denormal.
pub fn extract(a: F80) -> (F80, F80, u16) {
    let (m, e) = a.unpack();
    let t = e + 63;
    let exp = if t == 0 {
        F80::zero(false)
    } else {
        from_int(t < 0, t.unsigned_abs() as u64)
    };
    let sig = F80 {
        m,
        se: (a.se & 0x8000) | 0x3fff,
    };
    (exp, sig, if a.is_denormal() { DE } else { 0 })
}

/// FPREM (`ieee` false: truncating quotient) or FPREM1 of finite nonzero `a` by
/// finite nonzero `b`: (remainder, low three quotient bits, incomplete).
pub fn prem(a: F80, b: F80, ieee: bool, cw: u16) -> (Res, u64, bool) {
    let (ma, ea) = a.unpack();
    let (mb, eb) = b.unpack();
    let d = ea - eb;
    let neg = a.sign();
    let de = if a.is_denormal() || b.is_denormal() {
        DE
    } else {
        0
    };
    let done = |neg: bool, rem: u128, e: i32| {
        let mut r = if rem == 0 {
            Res::exact(F80::zero(a.sign()))
        } else {
            round_pack(neg, rem, e, 64, cw)
        };
        r.fl |= de;
        r
    };
    if d >= 64 {
        // A partial remainder: reduced by a quotient of N bits (32 to 63).
        let n = 32 + ((d - 32) % 32);
        let sh = d - n;
        let rem = ((ma as u128) << n) % mb as u128;
        return (done(neg, rem, eb + sh), 0, true);
    }
    if d < -1 {
        // |a| < |b| / 2: the quotient is 0 for both, the remainder the dividend
        // (a denormal one underflows as any tiny result).
        return (done(neg, ma as u128, ea), 0, false);
    }
    let (num, shift) = if d >= 0 {
        ((ma as u128) << d, 0)
    } else {
        (ma as u128, 1)
    };
    let den = (mb as u128) << shift;
    let mut q = num / den;
    let mut rem = num % den;
    let mut rneg = neg;
    if ieee {
        let twice = rem * 2;
        if twice > den || (twice == den && q & 1 == 1) {
            q += 1;
            rem = den - rem;
            rneg = !neg;
        }
    }
    (done(rneg, rem, eb - shift), q as u64, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::x87::RC_CHOP;

    const CW64: u16 = 0x037f;
    const CW53: u16 = 0x027f;
    const CW24: u16 = 0x007f;

    fn f(v: f64) -> F80 {
        F80::from_f64(v)
    }

    #[test]
    fn doubles_at_53_bits_match_the_host() {
        // At PC 53 / nearest, with results in the double range, the x87 result is
        // the double result (the host's IEEE arithmetic is an independent oracle).
        let vals = [
            1.0,
            3.0,
            0.1,
            -7.25,
            1e10 / 3.0,
            2f64.sqrt(),
            -1e-5,
            123456.789,
        ];
        for &x in &vals {
            for &y in &vals {
                for (op, want) in [(ADD, x + y), (SUB, x - y), (MUL, x * y), (DIV, x / y)] {
                    let r = arith(op, f(x), f(y), false, CW53);
                    assert_eq!(r.v, f(want), "{x} op{op} {y}");
                    assert_eq!(r.fl & PE != 0, r.v != f(want) || inexact(op, x, y, want));
                }
            }
            if x > 0.0 {
                assert_eq!(sqrt(f(x), CW53).v, f(x.sqrt()), "sqrt {x}");
            }
        }
    }

    /// Whether the double operation was inexact (checked with wider arithmetic
    /// where the host has it exactly: fma for products and quotients).
    fn inexact(op: u8, x: f64, y: f64, r: f64) -> bool {
        match op {
            ADD => (r - x) - y != 0.0 || r - (r - x) != x,
            SUB => (r - x) + y != 0.0 || r - (r - x) != x,
            MUL => x.mul_add(y, -r) != 0.0,
            _ => (-r).mul_add(y, x) != 0.0,
        }
    }

    #[test]
    fn precision_24_matches_f32() {
        let vals = [1.0f32, 3.0, 0.1, -7.25, 1e10 / 3.0, 2f32.sqrt(), 123.456];
        for &x in &vals {
            for &y in &vals {
                let r = arith(DIV, f(x as f64), f(y as f64), false, CW24);
                assert_eq!(r.v, f((x / y) as f64), "{x}/{y}");
                let r = arith(MUL, f(x as f64), f(y as f64), false, CW24);
                assert_eq!(r.v, f((x * y) as f64), "{x}*{y}");
            }
        }
    }

    #[test]
    fn precision_64_keeps_64_bits() {
        // 1/3 in 64 bits: 0xAAAA...AAAB * 2^-65 (nearest), ...AAAA chopped.
        let r = arith(DIV, f(1.0), f(3.0), false, CW64);
        assert_eq!(r.v, F80::new(0xaaaa_aaaa_aaaa_aaab, 0x3ffd));
        assert_eq!((r.fl, r.up), (PE, true));
        let r = arith(DIV, f(1.0), f(3.0), false, CW64 | 0x0c00);
        assert_eq!(r.v, F80::new(0xaaaa_aaaa_aaaa_aaaa, 0x3ffd));
        assert_eq!((r.fl, r.up), (PE, false));
        // 1 + 2^-63 is exact at 64 bits, rounds to 1 at 53.
        let tiny = F80::new(1 << 63, 16383 - 63);
        let r = arith(ADD, f(1.0), tiny, false, CW64);
        assert_eq!((r.v, r.fl), (F80::new((1 << 63) | 1, 16383), 0));
        let r = arith(ADD, f(1.0), tiny, false, CW53);
        assert_eq!((r.v, r.fl, r.up), (f(1.0), PE, false));
        // 1 - 2^-200 rounds to 1 (nearest) or just below (chop, down).
        let t = F80::new(1 << 63, 16383 - 200);
        let r = arith(SUB, f(1.0), t, false, CW64);
        assert_eq!((r.v, r.fl), (f(1.0), PE));
        let r = arith(SUB, f(1.0), t, false, CW64 | (RC_CHOP << 10));
        assert_eq!((r.v, r.fl), (F80::new(!0, 16382), PE));
        // sqrt 2 in 64 bits: 0xB504F333F9DE6484 (the next bits are 0x597D..., below
        // half).
        let r = sqrt(f(2.0), CW64);
        assert_eq!(
            (r.v, r.fl, r.up),
            (F80::new(0xb504_f333_f9de_6484, 0x3fff), PE, false)
        );
    }

    #[test]
    fn the_wide_exponent_range() {
        // 1e300 * 1e300 at PC 53 stays finite in the register.
        let r = arith(MUL, f(1e300), f(1e300), false, CW53);
        assert_eq!(r.fl, PE);
        assert_eq!(r.v.se, 16383 + 1993);
        // The largest value squared overflows: masked, infinity or the largest.
        let big = F80::new(!0, 0x7ffe);
        let r = arith(MUL, big, big, false, CW64);
        assert_eq!((r.v, r.fl, r.up), (F80::inf(false), OE | PE, true));
        let r = arith(MUL, big, big, false, CW53 | (RC_CHOP << 10));
        assert_eq!(r.v, F80::new(!0 << 11, 0x7ffe));
        // Unmasked: the exponent wrapped by 24576.
        let r = arith(MUL, big, big, false, CW64 & !OE);
        // (2^64 - 1)^2 * 2^(2 * (16383 - 63)): exponent 32767, biased 49150.
        assert_eq!(r.v, F80::new(0xffff_ffff_ffff_fffe, 49150 - 24576));
        assert_eq!(r.fl, OE | PE);
        // Underflow to a denormal: 2^-16382 / 4 is exact (no UE); / 3 is not.
        let min = F80::new(1 << 63, 1);
        let r = arith(DIV, min, f(4.0), false, CW64);
        assert_eq!((r.v, r.fl), (F80::new(1 << 61, 0), 0));
        let r = arith(DIV, min, f(3.0), false, CW64);
        assert_eq!(r.fl, UE | PE);
        assert_eq!(r.v, F80::new(0x2aaa_aaaa_aaaa_aaab, 0));
        // A denormal operand raises DE.
        let r = arith(ADD, F80::new(1, 0), F80::new(1, 0), false, CW64);
        assert_eq!((r.v, r.fl), (F80::new(2, 0), DE));
        // Pseudo-denormal plus zero: DE, the normal encoding.
        let r = arith(ADD, F80::new(1 << 63, 0), f(0.0), false, CW64);
        assert_eq!((r.v, r.fl), (min, DE));
    }

    #[test]
    fn specials() {
        assert_eq!(
            arith(SUB, f(f64::INFINITY), f(f64::INFINITY), false, CW64),
            Res::invalid()
        );
        assert_eq!(
            arith(MUL, f(0.0), f(f64::INFINITY), false, CW64),
            Res::invalid()
        );
        let r = arith(DIV, f(-1.0), f(0.0), false, CW64);
        assert_eq!((r.v, r.fl), (F80::inf(true), ZE));
        // x - x is +0, or -0 rounding down.
        assert_eq!(arith(SUB, f(1.5), f(1.5), false, CW64).v, f(0.0));
        assert_eq!(
            arith(SUB, f(1.5), f(1.5), false, CW64 | (RC_DOWN << 10)).v,
            f(-0.0)
        );
        // Unnormal: invalid.
        let un = F80::new(1 << 62, 0x3fff);
        assert_eq!(arith(ADD, un, f(1.0), false, CW64), Res::invalid());
        // NaNs: the larger significand, quieted; SNaN raises IE.
        let s = F80::new(0x8000_0000_0000_0001, 0x7fff);
        let q = F80::new(0xc000_0000_0000_0002, 0xffff);
        assert_eq!(arith(ADD, s, f(1.0), false, CW64).v, s.quiet());
        assert_eq!(arith(ADD, s, f(1.0), false, CW64).fl, IE);
        assert_eq!(arith(MUL, s, q, false, CW64).v, q);
        assert_eq!(sqrt(f(-1.0), CW64), Res::invalid());
        assert_eq!(sqrt(f(-0.0), CW64).v, f(-0.0));
    }
}
