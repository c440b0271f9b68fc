//! Transcendentals: FSIN FCOS FSINCOS FPTAN FPATAN F2XM1 FYL2X FYL2XP1.
//!
//! Operands are the registers' full 80-bit values. Each function is evaluated in
//! the 128-bit wide format (`wide.rs`: series after an exact argument reduction)
//! and rounded once to 64 bits under the rounding control (the precision control
//! does not apply to these instructions), which sets PE, UE for a tiny result and
//! C1 ("rounded up"). FSIN/FCOS/FSINCOS/FPTAN reduce their argument by the x87's
//! pi/2 (pi rounded toward zero to 66 bits, which is what makes x87 results for
//! large arguments differ from the true function) exactly in integer arithmetic;
//! |x| >= 2^63 sets C2 and leaves the operand. The results are the correctly
//! rounded values of those functions; the CPU's own algorithms are not always
//! correctly rounded, so a residue of last-bit differences remains (see
//! `tests/diff_x87.rs`, which reports it).

use super::ext::Class;
use super::soft::{self, F80, Res};
use super::wide::{self, LOG2E, PI, W};
use super::{C1, C2, DE, IE, INDEFINITE, PE, ZE, wait};
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, next};
use iced_x86::{Instruction, Mnemonic};

pub const SIN: u8 = 0;
pub const COS: u8 = 1;
pub const TAN: u8 = 2;
pub const SINCOS: u8 = 3;

impl Fpu {
    /// Commits one or two results (the second pushed): the flags of both, C1 from
    /// the first; nothing is written when an unmasked exception stops it.
    fn commit_pair(&mut self, k: usize, first: Res, pushed: Option<Res>) -> bool {
        let fl = first.fl | pushed.map_or(0, |p| p.fl);
        let fl = if fl & DE != 0 && self.cw & DE == 0 {
            DE
        } else {
            fl
        };
        if self.exc_c1(fl) {
            return false;
        }
        self.put80(k, first.v);
        if let Some(p) = pushed {
            self.push_raw(0.0);
            let t = self.pk(0);
            self.put80(t, p.v);
        }
        // C1 is the first result's (the tangent, the sine), as the host reports.
        self.set_c1(first.up);
        true
    }
}

/// `r` reported inexact (PE) whether or not rounding made it so: what the host's
/// algorithms report for some results that are exact (see the callers).
fn with_pe(mut r: Res) -> Res {
    r.fl |= PE;
    r
}

/// An exact value reported inexact, not rounded up.
fn inexact(v: F80) -> Res {
    Res {
        v,
        fl: PE,
        up: false,
    }
}

fn with_de(mut r: Res, de: bool) -> Res {
    if de {
        r.fl |= DE;
    }
    r
}

/// The quiet NaN or indefinite result of an operand that is not a finite value or
/// zero (FSIN ... F2XM1 of an infinity are invalid).
fn special1(x: F80) -> Option<Res> {
    match x.class() {
        Class::Unsupported | Class::Inf => Some(Res::invalid()),
        Class::Nan { snan } => Some(Res {
            v: x.quiet(),
            fl: if snan { IE } else { 0 },
            up: false,
        }),
        _ => None,
    }
}

/// FSIN, FCOS, FPTAN, FSINCOS.
fn trig<const OP: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    // C2 ("out of range") is cleared on every path that does not set it.
    f.sw &= !C2;
    let pushes = OP == TAN || OP == SINCOS;
    let k = if pushes {
        f.st0_or_underflow_push()
    } else {
        f.st0_or_underflow()
    };
    let Some(k) = k else {
        return next(cpu, ops, i);
    };
    if pushes && !f.can_push() {
        if !f.overflow() {
            f.sw &= !C2;
            f.put(k, INDEFINITE);
            f.push_raw(INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    let x = f.f80(k);
    if let Some(r) = special1(x) {
        let pushed = pushes.then_some(r);
        if f.commit_pair(k, r, pushed) {
            f.sw &= !(C1 | C2);
        }
        return next(cpu, ops, i);
    }
    let de = x.is_denormal();
    if x.m != 0 && x.unpack().1 >= 0 {
        // |x| >= 2^63: out of range, the operand stays.
        if !f.exc_c1(if de { DE } else { 0 }) {
            f.sw = (f.sw & !C1) | C2;
        }
        return next(cpu, ops, i);
    }
    let (first, second) = if x.m == 0 {
        // sin(±0) = tan(±0) = ±0, cos(0) = 1 exactly.
        let one = Res::exact(F80::new(1 << 63, 0x3fff));
        match OP {
            SIN => (Res::exact(x), None),
            COS => (one, None),
            TAN => (Res::exact(x), Some(one)),
            _ => (Res::exact(x), Some(one)),
        }
    } else {
        let cw = f.cw;
        let (q, r) = reduce(x);
        // |r| < 2^-40: sin r and cos r are r and 1 less a fraction far below 64
        // bits (r^3/6, r^2/2), which the series' 128 bits may drop; a value just
        // below |r| and 1 rounds as they do. tan r is r plus r^3/3: a value just
        // above |r| rounds as it does (r has at most 66 significant bits here).
        let tiny = r.top() < -40;
        let (s, c) = if tiny {
            (
                W { m: r.m - 1, ..r },
                W {
                    neg: false,
                    m: u128::MAX,
                    e: -128,
                },
            )
        } else {
            wide::sin_cos(r)
        };
        let (sin, cos) = match q {
            0 => (s, c),
            1 => (c, s.neg()),
            2 => (s.neg(), c.neg()),
            _ => (c.neg(), s),
        };
        let one = Res::exact(F80::new(1 << 63, 0x3fff));
        match OP {
            SIN => (with_de(sin.round(cw), de), None),
            COS => (with_de(cos.round(cw), de), None),
            TAN => {
                let t = if tiny && q & 1 == 0 {
                    // tan(r + k pi) = tan r.
                    W { m: r.m + 1, ..r }
                } else {
                    sin.div(cos)
                };
                (with_de(t.round(cw), de), Some(one))
            }
            _ => (with_de(sin.round(cw), de), Some(cos.round(cw))),
        }
    };
    if f.commit_pair(k, first, second) {
        f.sw &= !C2;
    }
    next(cpu, ops, i)
}

/// pi/2 as the x87 reduces by it: pi rounded toward zero to 66 bits, halved:
/// `PIO2_M * 2^-65`.
const PIO2_M: u128 = 0x3_243f_6a88_85a3_08d3;

/// Reduces a finite nonzero |x| < 2^63 by the x87's pi/2: (k mod 4, r) with
/// x = k * pi66/2 + r exactly.
fn reduce(x: F80) -> (u32, W) {
    let (mx, ex) = x.unpack();
    let neg = x.sign();
    // |x| < 0.785 (pi/4 - a little): no reduction.
    if ex + 63 < -1 || (ex + 63 == -1 && mx < 0xc8f5_c28f_5c28_f5c3) {
        return (0, W::from_f80(x));
    }
    // |x| = mx * 2^ex with ex + 65 in [1, 64]: N = |x| * 2^65 fits in 128 bits.
    let n = (mx as u128) << (ex + 65);
    let mut k = n / PIO2_M;
    let rem = n % PIO2_M;
    let r = if 2 * rem > PIO2_M {
        k += 1;
        W::new(true, PIO2_M - rem, -65)
    } else {
        W::new(false, rem, -65)
    };
    if neg {
        // Odd functions: reduce |x| and mirror.
        ((4 - (k % 4) as u32) % 4, r.neg())
    } else {
        ((k % 4) as u32, r)
    }
}

const ATAN: u8 = 0;
const YL2X: u8 = 1;
const YL2XP1: u8 = 2;

/// Two-operand transcendentals: ST(1) = g(ST(1), ST(0)), then pop.
fn binary<const OP: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(1));
    if f.is_empty(k0) || f.is_empty(k1) {
        if !f.underflow() {
            f.put(k1, INDEFINITE);
            f.pop();
        }
        return next(cpu, ops, i);
    }
    let (x, y) = (f.f80(k0), f.f80(k1));
    let (cx, cy) = (x.class(), y.class());
    let r = if cx == Class::Unsupported || cy == Class::Unsupported {
        Res::invalid()
    } else if x.is_nan() || y.is_nan() {
        soft::nan2(x, y)
    } else {
        let cw = f.cw;
        let r = match OP {
            ATAN => atan2(y, x, cw),
            YL2X => yl2x(x, y, cw),
            _ => yl2xp1(x, y, cw),
        };
        // A denormal operand is reported unless the operation is invalid or
        // divides by zero (FYL2X of a zero x with a denormal y: ZE alone on the
        // host).
        with_de(
            r,
            r.fl & (IE | ZE) == 0 && (x.is_denormal() || y.is_denormal()),
        )
    };
    if f.commit(k1, r) {
        f.pop();
    }
    next(cpu, ops, i)
}

/// `n` eighths of a turn (n pi / 4, n in 0..=4) with sign `neg`, rounded.
fn eighths(n: i64, neg: bool, cw: u16) -> Res {
    if n == 0 {
        return Res::exact(F80::zero(neg));
    }
    let v = PI.mul(W::int(n)).scale(-2);
    (if neg { v.neg() } else { v }).round(cw)
}

/// FPATAN: atan2(y, x).
fn atan2(y: F80, x: F80, cw: u16) -> Res {
    let (cx, cy) = (x.class(), y.class());
    let ny = y.sign();
    match (cy, cx) {
        (Class::Zero, _) => {
            if x.sign() {
                eighths(4, ny, cw)
            } else {
                Res::exact(F80::zero(ny))
            }
        }
        (Class::Inf, Class::Inf) => eighths(if x.sign() { 3 } else { 1 }, ny, cw),
        (Class::Inf, _) | (_, Class::Zero) => eighths(2, ny, cw),
        (_, Class::Inf) => {
            if x.sign() {
                eighths(4, ny, cw)
            } else {
                Res::exact(F80::zero(ny))
            }
        }
        _ => {
            let (ay, ax) = (W::from_f80(y).abs(), W::from_f80(x).abs());
            let mut a = if (ay.e + 127, ay.m) <= (ax.e + 127, ax.m) {
                wide::atan(ay.div(ax))
            } else {
                PI.scale(-1).sub(wide::atan(ax.div(ay)))
            };
            if x.sign() {
                a = PI.sub(a);
            }
            (if ny { a.neg() } else { a }).round(cw)
        }
    }
}

/// FYL2X: y * log2(x).
fn yl2x(x: F80, y: F80, cw: u16) -> Res {
    let (cx, cy) = (x.class(), y.class());
    let zero_x = cx == Class::Zero;
    if (x.sign() && !zero_x)
        || (cx == Class::Inf && cy == Class::Zero)
        || (zero_x && cy == Class::Zero)
        || (is_one(x) && cy == Class::Inf)
    {
        return Res::invalid();
    }
    if zero_x {
        // log2(0) = -inf: zero divide unless y is infinite.
        return Res {
            v: F80::inf(!y.sign()),
            fl: if cy == Class::Inf { 0 } else { ZE },
            up: false,
        };
    }
    if cx == Class::Inf {
        return Res::exact(F80::inf(y.sign()));
    }
    // log2(x) for finite positive x.
    let (m, e) = x.unpack();
    let k = e + 63;
    if m == 1 << 63 {
        // A power of two: log2 is the integer k, the product exact.
        if cy == Class::Inf {
            return Res::exact(F80::inf(y.sign() != (k < 0)));
        }
        let p = W::from_f80(y).mul(W::int(k as i64));
        if p.m == 0 {
            return Res::exact(F80::zero(y.sign() != (k < 0)));
        }
        // The host reports the product inexact even when it is exact.
        return with_pe(soft::round_pack(p.neg, p.m, p.e, 64, cw));
    }
    let below_one = k < 0;
    if cy == Class::Inf {
        return Res::exact(F80::inf(y.sign() != below_one));
    }
    if cy == Class::Zero {
        return Res::exact(F80::zero(y.sign() != below_one));
    }
    let l = wide::ln(W::from_f80(x)).mul(LOG2E);
    W::from_f80(y).mul(l).round(cw)
}

fn is_one(x: F80) -> bool {
    x.m == 1 << 63 && x.se == 0x3fff
}

/// FYL2XP1: y * log2(x + 1).
fn yl2xp1(x: F80, y: F80, cw: u16) -> Res {
    let (cx, cy) = (x.class(), y.class());
    if (cx == Class::Inf && cy == Class::Zero) || (cx == Class::Zero && cy == Class::Inf) {
        return Res::invalid();
    }
    let sign = x.sign() != y.sign();
    if cx == Class::Zero || cy == Class::Zero {
        return Res::exact(F80::zero(sign));
    }
    if cx == Class::Inf && x.sign() {
        // log2(1 - inf): invalid, as on the host.
        return Res::invalid();
    }
    let wx = W::from_f80(x);
    if x.sign() && wx.top() >= 0 {
        // x <= -1: outside the documented domain the result is undefined; the
        // reference host returns x with PE, or for an infinite y the infinity of
        // the other sign (y times a negative logarithm) with no flag.
        if cy == Class::Inf {
            return Res::exact(F80::inf(!y.sign()));
        }
        return inexact(x);
    }
    if cx == Class::Inf || cy == Class::Inf {
        return Res::exact(F80::inf(sign));
    }
    let l = if wx.top() < -2 {
        wide::ln1p(wx)
    } else {
        // |x| >= 1/4: 1 + x is exact in the wide format.
        let sum = W::int(1).add(wx);
        if sum.m == 1 << 127 {
            // 1 + x a power of two: log2 is an integer, the product exact.
            let p = W::from_f80(y).mul(W::int(sum.top() as i64));
            // The host reports the product inexact even when it is exact.
            return with_pe(soft::round_pack(p.neg, p.m, p.e, 64, cw));
        }
        wide::ln(sum)
    };
    W::from_f80(y).mul(l.mul(LOG2E)).round(cw)
}

/// F2XM1: 2^x - 1.
fn f2xm1(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow() else {
        return next(cpu, ops, i);
    };
    let x = f.f80(k);
    let r = match x.class() {
        Class::Unsupported => Res::invalid(),
        Class::Nan { snan } => Res {
            v: x.quiet(),
            fl: if snan { IE } else { 0 },
            up: false,
        },
        Class::Inf if x.sign() => Res::exact(F80::new(1 << 63, 0xbfff)),
        Class::Inf | Class::Zero => Res::exact(x),
        Class::Finite => {
            let de = x.is_denormal();
            let w = W::from_f80(x);
            let r = if w.top() >= 0 && !(x.m == 1 << 63 && x.se & 0x7fff == 0x3fff) {
                // |x| > 1: outside the documented domain the result is undefined;
                // the host leaves the operand with PE.
                Res {
                    v: x,
                    fl: PE,
                    up: false,
                }
            } else if is_one(x) {
                // 2^1 - 1 = 1, which the host computes as a value just below 1
                // (1.0 with C1 rounding to nearest or up, the largest value below
                // 1 down or toward zero) and reports inexact.
                W {
                    neg: false,
                    m: u128::MAX,
                    e: -128,
                }
                .round(f.cw)
            } else if x.m == 1 << 63 && x.se == 0xbfff {
                // 2^-1 - 1 = -1/2 exactly, which the host reports inexact.
                inexact(F80::new(1 << 63, 0xbffe))
            } else {
                wide::expm1(w.mul(wide::LN2)).round(f.cw)
            };
            with_de(r, de)
        }
    };
    f.commit(k, r);
    next(cpu, ops, i)
}

pub fn lower(ins: &Instruction, _o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    Some(match ins.mnemonic() {
        Fsin => trig::<SIN>,
        Fcos => trig::<COS>,
        Fptan => trig::<TAN>,
        Fsincos => trig::<SINCOS>,
        Fpatan => binary::<ATAN>,
        Fyl2x => binary::<YL2X>,
        Fyl2xp1 => binary::<YL2XP1>,
        F2xm1 => f2xm1,
        _ => return None,
    })
}
