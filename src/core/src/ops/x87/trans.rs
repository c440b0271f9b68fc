//! Transcendentals: FSIN FCOS FSINCOS FPTAN FPATAN F2XM1 FYL2X FYL2XP1.
//!
//! FSIN/FCOS/FSINCOS/FPTAN reduce their argument by the x87's pi/2 (pi rounded
//! toward zero to 66 bits, which is what makes x87 results for large arguments
//! differ from the true function) exactly in integer arithmetic and evaluate the
//! series in double-double; the logarithms and 2^x - 1 are double-double series
//! too. Results match the hardware's rounded to double within an ulp. C1 (the
//! hardware's rounding indication from its 64-bit result) is 0. PE is set unless
//! the result is exact. FPATAN uses the host libm's atan2.

use super::num::{is_snan, mul_dir, nan2, quiet};
use super::{C1, C2, IE, INDEFINITE, PE, UE, ZE, wait};
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, next};
use iced_x86::{Instruction, Mnemonic};

const TRIG_LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63

pub const SIN: u8 = 0;
pub const COS: u8 = 1;
pub const TAN: u8 = 2;
pub const SINCOS: u8 = 3;

impl Fpu {
    /// Commits a transcendental result: PE unless `exact`, UE for a tiny inexact
    /// result, C1 = 0.
    fn trans_result(&mut self, r: f64, exact: bool) -> Option<f64> {
        let mut fl = 0;
        if !exact {
            fl |= PE;
            if r != 0.0 && r.abs() < f64::MIN_POSITIVE {
                fl |= UE;
            }
        }
        if self.exc(fl) {
            return None;
        }
        self.sw &= !C1;
        Some(r)
    }
}

/// FSIN, FCOS, FPTAN, FSINCOS.
fn trig<const OP: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
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
    let x = f.st[k];
    if x.is_nan() || x.is_infinite() {
        let (r, fl) = if x.is_nan() {
            (quiet(x), if is_snan(x) { IE } else { 0 })
        } else {
            (INDEFINITE, IE)
        };
        if !f.exc(fl) {
            f.sw &= !(C1 | C2);
            f.put(k, r);
            if pushes {
                f.push_raw(r);
            }
        }
        return next(cpu, ops, i);
    }
    if x.abs() >= TRIG_LIMIT {
        f.sw |= C2;
        return next(cpu, ops, i);
    }
    let zero = x == 0.0;
    let (first, second) = match OP {
        SIN => (sin_cos(x).0, 0.0),
        COS => (sin_cos(x).1, 0.0),
        TAN => (tan(x), 1.0),
        _ => sin_cos(x),
    };
    // sin(±0) = ±0, tan(±0) = ±0, cos(0) = 1 exactly.
    let exact = zero;
    let first = if zero && OP != COS { x } else { first };
    if let Some(r) = f.trans_result(first, exact) {
        f.sw &= !C2;
        f.put(k, r);
        if pushes {
            f.push_raw(second);
        }
    }
    next(cpu, ops, i)
}

/// pi/2 as the x87 reduces by it: pi rounded toward zero to 66 bits, halved:
/// `PIO2_M * 2^-65`.
const PIO2_M: u128 = 0x3_243f_6a88_85a3_08d3;

/// Reduces |x| < 2^63 by the x87's pi/2: (k mod 4, r_hi, r_lo) with
/// x = k * pi66/2 + r_hi + r_lo exactly enough for a double result.
fn reduce(x: f64) -> (u32, f64, f64) {
    let ax = x.abs();
    if ax < 0.785 {
        return (0, x, 0.0);
    }
    let (mx, ex) = super::num::decompose(ax);
    // ax = mx * 2^ex with ex + 65 in [12, 75]: N = ax * 2^65 fits in 128 bits.
    let n = (mx as u128) << (ex + 65);
    let mut k = n / PIO2_M;
    let mut rem = (n % PIO2_M) as i128;
    if 2 * rem as u128 > PIO2_M {
        k += 1;
        rem -= PIO2_M as i128;
    }
    let hi = rem as f64;
    let lo = (rem - hi as i128) as f64;
    let scale = 2f64.powi(-65);
    let (hi, lo) = (hi * scale, lo * scale);
    if x < 0.0 {
        // Odd functions: reduce |x| and mirror.
        ((4 - (k % 4) as u32) % 4, -hi, -lo)
    } else {
        ((k % 4) as u32, hi, lo)
    }
}

// ---- double-double arithmetic (for results within an ulp of the x87's) ----------

#[derive(Clone, Copy)]
struct Dd(f64, f64);

#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bp = s - a;
    (s, (a - (s - bp)) + (b - bp))
}

impl Dd {
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.0, o.0);
        let (t, f) = two_sum(self.1, o.1);
        let (s, e) = two_sum(s, e + t);
        let (s, e) = two_sum(s, e + f);
        Dd(s, e)
    }

    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }

    fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.0, o.0);
        let e = e + (self.0 * o.1 + self.1 * o.0);
        let (s, e) = two_sum(p, e);
        Dd(s, e)
    }

    fn div(self, o: Dd) -> Dd {
        let q1 = self.0 / o.0;
        let r = self.add(o.mul(Dd(q1, 0.0)).neg());
        let q2 = r.0 / o.0;
        let r = r.add(o.mul(Dd(q2, 0.0)).neg());
        let q3 = r.0 / o.0;
        let (s, e) = two_sum(q1, q2);
        Dd(s, 0.0).add(Dd(e, 0.0)).add(Dd(q3, 0.0))
    }

    fn scale(self, k: f64) -> Dd {
        // Division by a small exact integer.
        self.div(Dd(k, 0.0))
    }

    fn f(self) -> f64 {
        self.0 + self.1
    }
}

/// sin and cos of |r| <= pi/4 given as a double-double, by their Taylor series.
fn sin_cos_dd(r: Dd) -> (Dd, Dd) {
    let r2 = r.mul(r);
    let mut s = r;
    let mut ts = r;
    let mut c = Dd(1.0, 0.0);
    let mut tc = Dd(1.0, 0.0);
    for n in 1..40 {
        let n = n as f64;
        ts = ts.mul(r2).scale(2.0 * n * (2.0 * n + 1.0)).neg();
        tc = tc.mul(r2).scale((2.0 * n - 1.0) * (2.0 * n)).neg();
        s = s.add(ts);
        c = c.add(tc);
        if ts.0.abs() < 1e-34 && tc.0.abs() < 1e-34 {
            break;
        }
    }
    (s, c)
}

/// sin and cos with the x87's argument reduction.
fn sin_cos(x: f64) -> (f64, f64) {
    let (q, hi, lo) = reduce(x);
    let (s, c) = sin_cos_dd(Dd(hi, lo));
    let (s, c) = (s.f(), c.f());
    match q {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

fn tan(x: f64) -> f64 {
    let (q, hi, lo) = reduce(x);
    let (s, c) = sin_cos_dd(Dd(hi, lo));
    if q & 1 == 0 {
        s.div(c).f()
    } else {
        c.div(s).neg().f()
    }
}

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
    let (x, y) = (f.st[k0], f.st[k1]);
    let out = if x.is_nan() || y.is_nan() {
        let (r, ie) = nan2(x, y);
        f.result(r, if ie { IE } else { 0 })
    } else {
        match OP {
            ATAN => {
                let r = y.atan2(x);
                let exact = y == 0.0 && x.is_sign_positive();
                f.trans_result(r, exact)
            }
            YL2X => yl2x(f, x, y),
            _ => yl2xp1(f, x, y),
        }
    };
    if let Some(r) = out {
        f.put(k1, r);
        f.pop();
    }
    next(cpu, ops, i)
}

const ATAN: u8 = 0;
const YL2X: u8 = 1;
const YL2XP1: u8 = 2;

/// y * log2(x).
fn yl2x(f: &mut Fpu, x: f64, y: f64) -> Option<f64> {
    if x < 0.0 || (x.is_infinite() && y == 0.0) || (x == 1.0 && y.is_infinite()) {
        return f.result(INDEFINITE, IE);
    }
    if x == 0.0 {
        if y == 0.0 {
            return f.result(INDEFINITE, IE);
        }
        let r = if y.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        return f.result(r, if y.is_infinite() { 0 } else { ZE });
    }
    let l = if x.is_finite() {
        log2_dd(Dd(x, 0.0))
    } else {
        Dd(x.log2(), 0.0)
    };
    let r = if y == 0.0 || y.is_infinite() || x.is_infinite() || l.0 == 0.0 {
        y * l.0
    } else {
        Dd(y, 0.0).mul(l).f()
    };
    let l = l.0;
    let exact = x.is_infinite()
        || y.is_infinite()
        || y == 0.0
        || (x.to_bits() & super::num::FRAC == 0
            && x.is_normal()
            && (l == 0.0 || mul_dir(y, l, r) == 0));
    f.trans_result(r, exact)
}

/// y * log2(x + 1).
fn yl2xp1(f: &mut Fpu, x: f64, y: f64) -> Option<f64> {
    if (x.is_infinite() && y == 0.0) || (x == 0.0 && y.is_infinite()) {
        return f.result(INDEFINITE, IE);
    }
    if x <= -1.0 {
        // Outside the documented domain the result is undefined; the reference
        // host returns x (zero with the product's sign for y = 0) and PE.
        if y == 0.0 {
            return f.result(
                if x.is_sign_negative() != y.is_sign_negative() {
                    -0.0
                } else {
                    0.0
                },
                0,
            );
        }
        return f.trans_result(x, false);
    }
    // y * log2(1 + x) in double-double.
    let r = if x == 0.0 || y == 0.0 || !x.is_finite() || !y.is_finite() {
        y * x.ln_1p()
    } else {
        let l = if x.abs() < 0.5 {
            atanh_dd(Dd(x, 0.0).div(Dd(2.0, 0.0).add(Dd(x, 0.0))))
                .mul(Dd(2.0, 0.0))
                .mul(Dd(std::f64::consts::LOG2_E, LOG2_E_LO))
        } else {
            let (h, e) = two_sum(1.0, x);
            log2_dd(Dd(h, e))
        };
        Dd(y, 0.0).mul(l).f()
    };
    let exact = x == 0.0 || y == 0.0 || x.is_infinite() || y.is_infinite();
    let r = if x == 0.0 {
        // ±0 times y: the sign follows the product of the signs.
        if x.is_sign_negative() != y.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        r
    };
    f.trans_result(r, exact)
}

/// log2(e) - LOG2_E.
const LOG2_E_LO: f64 = 2.035_527_374_093_103_3e-17;

/// Exact product as a double-double (Dekker's splitting; no FMA needed).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if !p.is_finite() || p == 0.0 {
        return (p, 0.0);
    }
    let split = |x: f64| {
        let c = 134_217_729.0 * x; // 2^27 + 1
        let hi = c - (c - x);
        (hi, x - hi)
    };
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

/// F2XM1: 2^x - 1.
fn f2xm1(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow() else {
        return next(cpu, ops, i);
    };
    let x = f.st[k];
    let out = if x.is_nan() {
        f.result(quiet(x), if is_snan(x) { IE } else { 0 })
    } else if x == f64::NEG_INFINITY {
        f.result(-1.0, 0)
    } else if x == 0.0 || x == f64::INFINITY {
        f.result(x, 0)
    } else {
        let r = exp2m1(x);
        f.trans_result(r, x == 1.0 || x == -1.0)
    };
    if let Some(r) = out {
        f.put(k, r);
    }
    next(cpu, ops, i)
}

/// ln 2 - LN_2.
const LN2_LO: f64 = 2.319_046_813_846_299_6e-17;

/// 2^x - 1 = expm1(x ln 2) by its series in double-double (|x| <= 1; larger x
/// falls back to the host's exp2).
fn exp2m1(x: f64) -> f64 {
    if x == 1.0 {
        return 1.0;
    }
    if x == -1.0 {
        return -0.5;
    }
    if x.abs() > 1.0 {
        return x.exp2() - 1.0;
    }
    let t = Dd(x, 0.0).mul(Dd(std::f64::consts::LN_2, LN2_LO));
    let mut sum = t;
    let mut term = t;
    for n in 2..60 {
        term = term.mul(t).scale(n as f64);
        sum = sum.add(term);
        if term.0.abs() < 1e-34 * sum.0.abs().max(1e-300) {
            break;
        }
    }
    sum.f()
}

/// atanh(u) = u + u^3/3 + u^5/5 + ... for small |u|.
fn atanh_dd(u: Dd) -> Dd {
    let u2 = u.mul(u);
    let mut p = u;
    let mut sum = u;
    for k in 1..80 {
        p = p.mul(u2);
        let term = p.scale((2 * k + 1) as f64);
        sum = sum.add(term);
        if term.0.abs() < 1e-34 * sum.0.abs() {
            break;
        }
    }
    sum
}

/// log2 of a positive finite double-double.
fn log2_dd(x: Dd) -> Dd {
    let (m, e) = super::num::decompose(x.0);
    // x.0 = m1 * 2^k with m1 in [sqrt(1/2), sqrt(2)).
    let mut k = e + 52;
    let mut m1 = f64::from_bits((1023u64 << 52) | (m & super::num::FRAC));
    if m1 > std::f64::consts::SQRT_2 {
        m1 /= 2.0;
        k += 1;
    }
    let lo = x.1 * 2f64.powi(-k);
    // ln(m1 + lo) = 2 atanh((m1 + lo - 1) / (m1 + lo + 1))
    let num = Dd(m1 - 1.0, 0.0).add(Dd(lo, 0.0));
    let den = Dd(m1, 0.0).add(Dd(1.0, 0.0)).add(Dd(lo, 0.0));
    let ln = atanh_dd(num.div(den)).mul(Dd(2.0, 0.0));
    ln.mul(Dd(std::f64::consts::LOG2_E, LOG2_E_LO))
        .add(Dd(k as f64, 0.0))
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
