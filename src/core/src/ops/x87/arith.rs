//! Arithmetic: FADD FSUB FSUBR FMUL FDIV FDIVR in every form, FIADD FISUB FISUBR
//! FIMUL FIDIV FIDIVR, FSQRT, FRNDINT, FSCALE, FXTRACT, FPREM, FPREM1, FCHS, FABS.

use super::ext;
use super::num::{
    self, FRAC, add_dir, decompose, div_dir, exp_field, is_snan, make_f64, mul_dir, nan2, quiet,
    round_cw, sqrt_dir,
};
use super::{C1, C2, CC, DE, IE, INDEFINITE, OE, PE, RC_DOWN, RC_NEAREST, UE, ZE, wait};
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, next};
use crate::mtry;
use iced_x86::{Instruction, MemorySize, Mnemonic};

pub const ADD: u8 = 0;
pub const MUL: u8 = 1;
pub const SUB: u8 = 2;
pub const SUBR: u8 = 3;
pub const DIV: u8 = 4;
pub const DIVR: u8 = 5;

/// Memory operand kinds.
pub const M32: u8 = 0;
pub const M64: u8 = 1;
pub const I16: u8 = 2;
pub const I32: u8 = 3;

// ---- the core -----------------------------------------------------------------------

/// Round-to-nearest result of a basic operation with the exactness information
/// of the fast path: (result, inexact, rounded up in magnitude).
#[inline(always)]
pub fn fast<const OP: u8>(a: f64, b: f64) -> Option<(f64, bool, bool)> {
    match OP {
        ADD | SUB => {
            let b = if OP == SUB { -b } else { b };
            if exp_field(a) == 0x7ff || exp_field(b) == 0x7ff {
                return None;
            }
            let r = a + b;
            if r.is_infinite() {
                return None;
            }
            let bp = r - a;
            let ap = r - bp;
            let err = (a - ap) + (b - bp);
            let inexact = err != 0.0;
            Some((
                r,
                inexact,
                inexact && (err.is_sign_negative() != r.is_sign_negative()),
            ))
        }
        MUL => {
            let (ba, bb) = (a.to_bits(), b.to_bits());
            let r = a * b;
            let br = r.to_bits();
            if let Some(exact_zero) = mul_off_normal_range(ba, bb, br) {
                return exact_zero.then_some((r, false, false));
            }
            let ma = (ba & FRAC) | (1 << 52);
            let mb = (bb & FRAC) | (1 << 52);
            let p = ma as u128 * mb as u128;
            let sh = 52 + (p >> 105) as u32;
            let trunc = (p >> sh) as u64;
            let inexact = p & ((1u128 << sh) - 1) != 0;
            let mr = (br & FRAC) | (1 << 52);
            Some((r, inexact, mr != trunc))
        }
        _ => {
            let (ba, bb) = (a.to_bits(), b.to_bits());
            let q = a / b;
            let bq = q.to_bits();
            let (ea, eb, eq) = ((ba >> 52) & 0x7ff, (bb >> 52) & 0x7ff, (bq >> 52) & 0x7ff);
            if ea.wrapping_sub(1) >= 0x7fe
                || eb.wrapping_sub(1) >= 0x7fe
                || eq.wrapping_sub(2) >= 0x7fd
            {
                // Zero divided by a finite nonzero value is an exact (signed) zero.
                let zero = ba << 1 == 0 && bb << 1 != 0 && eb != 0x7ff;
                return zero.then_some((q, false, false));
            }
            let k = (ea as i32 - eq as i32 - eb as i32 + 1075) as u32;
            if k > 60 {
                return None;
            }
            let ma = (ba & FRAC) | (1 << 52);
            let mb = (bb & FRAC) | (1 << 52);
            let mq = (bq & FRAC) | (1 << 52);
            let lhs = (ma as u128) << k;
            let rhs = mq as u128 * mb as u128;
            Some((q, lhs != rhs, rhs > lhs))
        }
    }
}

/// For a product `br` of `ba * bb` (bit patterns): `None` when operands and result are
/// normal and away from the overflow/underflow edges (the fast path applies), else
/// whether it is still exact: a zero times a finite value is an exact (signed) zero.
#[inline(always)]
fn mul_off_normal_range(ba: u64, bb: u64, br: u64) -> Option<bool> {
    let (ea, eb, er) = ((ba >> 52) & 0x7ff, (bb >> 52) & 0x7ff, (br >> 52) & 0x7ff);
    if ea.wrapping_sub(1) >= 0x7fe || eb.wrapping_sub(1) >= 0x7fe || er.wrapping_sub(2) >= 0x7fd {
        let zero = ba << 1 == 0 || bb << 1 == 0;
        return Some(zero && ea != 0x7ff && eb != 0x7ff);
    }
    None
}

/// [`fast`]'s result without its exactness information: Some exactly when `fast`
/// is, with the same value. The x87 fusion tier uses it when PE is already set and
/// derives C1 (by `fast`) only if something reads it.
#[inline(always)]
pub fn fast_value<const OP: u8>(a: f64, b: f64) -> Option<f64> {
    match OP {
        ADD | SUB => {
            let b = if OP == SUB { -b } else { b };
            if exp_field(a) == 0x7ff || exp_field(b) == 0x7ff {
                return None;
            }
            let r = a + b;
            (!r.is_infinite()).then_some(r)
        }
        MUL => {
            let (ba, bb) = (a.to_bits(), b.to_bits());
            let r = a * b;
            let br = r.to_bits();
            if let Some(exact_zero) = mul_off_normal_range(ba, bb, br) {
                return exact_zero.then_some(r);
            }
            Some(r)
        }
        _ => {
            let (ba, bb) = (a.to_bits(), b.to_bits());
            let q = a / b;
            let bq = q.to_bits();
            let (ea, eb, eq) = ((ba >> 52) & 0x7ff, (bb >> 52) & 0x7ff, (bq >> 52) & 0x7ff);
            if ea.wrapping_sub(1) >= 0x7fe
                || eb.wrapping_sub(1) >= 0x7fe
                || eq.wrapping_sub(2) >= 0x7fd
            {
                let zero = ba << 1 == 0 && bb << 1 != 0 && eb != 0x7ff;
                return zero.then_some(q);
            }
            let k = (ea as i32 - eq as i32 - eb as i32 + 1075) as u32;
            (k <= 60).then_some(q)
        }
    }
}

/// `a OP b` for OP in ADD SUB MUL DIV with x87 flags. `de`: the memory operand
/// was a denormal. Returns None when an unmasked exception suppresses the result.
#[inline(always)]
pub fn arith<const OP: u8>(f: &mut Fpu, a: f64, b: f64, de: bool) -> Option<f64> {
    if f.fast_cw()
        && !de
        && let Some((r, inexact, up)) = fast::<OP>(a, b)
    {
        f.sw = (f.sw & !C1) | (inexact as u16 * PE) | ((up as u16) << 9);
        return Some(r);
    }
    arith_slow::<OP>(f, a, b, de)
}

#[inline(never)]
fn arith_slow<const OP: u8>(f: &mut Fpu, a: f64, b: f64, de: bool) -> Option<f64> {
    if a.is_nan() || b.is_nan() {
        let (r, ie) = nan2(a, b);
        return f.result(r, if ie { IE } else { 0 });
    }
    // A denormal operand with DE unmasked stops the operation before it computes
    // anything (a zero divisor outranks it).
    if de && f.cw & DE == 0 && !(OP == DIV && b == 0.0) {
        f.exc(DE);
        return None;
    }
    let de = if de { DE } else { 0 };
    let rc = f.rc();
    let (r, dir) = match OP {
        ADD | SUB => {
            let b = if OP == SUB { -b } else { b };
            if a.is_infinite() && b.is_infinite() && a.is_sign_negative() != b.is_sign_negative() {
                return f.result(INDEFINITE, IE);
            }
            let mut r = a + b;
            let dir = if a.is_infinite() || b.is_infinite() {
                0
            } else {
                add_dir(a, b, r)
            };
            if r == 0.0
                && dir == 0
                && rc == RC_DOWN
                && !(a == 0.0 && b == 0.0 && a.is_sign_negative() == b.is_sign_negative())
            {
                r = -0.0;
            }
            (r, dir)
        }
        MUL => {
            if (a == 0.0 && b.is_infinite()) || (a.is_infinite() && b == 0.0) {
                return f.result(INDEFINITE, IE);
            }
            let r = a * b;
            if a == 0.0 || b == 0.0 || a.is_infinite() || b.is_infinite() {
                (r, 0)
            } else {
                return muldiv_wide(f, a, b, false, de);
            }
        }
        _ => {
            if (a == 0.0 && b == 0.0) || (a.is_infinite() && b.is_infinite()) {
                return f.result(INDEFINITE, IE);
            }
            let q = a / b;
            if b == 0.0 && a.is_finite() {
                // Zero-divide outranks the denormal operand (the host reports ZE alone).
                return f.result(q, ZE);
            }
            if a == 0.0 || a.is_infinite() || b.is_infinite() {
                (q, 0)
            } else {
                return muldiv_wide(f, a, b, true, de);
            }
        }
    };
    f.finish(r, dir, de, true)
}

/// `a * b` or `a / b` (finite, nonzero) as the x87 computes them with its wide
/// exponent: the significand is rounded per the control word first (PE and C1
/// from that rounding), then the value is brought into the double range. Beyond
/// it: OE and the masked overflow response; below the normal range the value is
/// rounded to a double denormal without UE (the x87 register would still hold the
/// 53-bit value; a later FST m64 would flag the underflow there).
fn muldiv_wide(f: &mut Fpu, a: f64, b: f64, div: bool, de: u16) -> Option<f64> {
    let (ma, ea) = decompose(a);
    let (mb, eb) = decompose(b);
    let neg = a.is_sign_negative() != b.is_sign_negative();
    let sign = if neg { num::SIGN } else { 0 };
    let a1 = f64::from_bits(sign | (1023 << 52) | (ma & FRAC));
    let b1 = f64::from_bits((1023 << 52) | (mb & FRAC));
    let (r1, d1, e) = if div {
        let q = a1 / b1;
        (q, div_dir(a1, b1, q), ea - eb)
    } else {
        let p = a1 * b1;
        (p, mul_dir(a1, b1, p), ea + eb + 104)
    };
    let (r2, d2) = round_cw(f.cw, r1, d1, true);
    let mut fl = de;
    let mut c1 = false;
    if d2 != 0 {
        fl |= PE;
        c1 = (d2 > 0) == neg;
    }
    let (m2, e2) = decompose(r2);
    let (mut v, _) = make_f64(neg, m2 as u128, e2 + e);
    if v.is_infinite() {
        fl |= OE | PE;
        v = overflow_value(f.rc(), neg);
        c1 = v.is_infinite();
    }
    if f.exc(fl) {
        return None;
    }
    f.set_c1(c1);
    Some(v)
}

/// The masked response to overflow: infinity or the largest finite value, by the
/// rounding mode.
pub fn overflow_value(rc: u16, neg: bool) -> f64 {
    let inf = match rc {
        RC_NEAREST => true,
        RC_DOWN => neg,
        super::RC_UP => !neg,
        _ => false,
    };
    let v = if inf { f64::INFINITY } else { f64::MAX };
    if neg { -v } else { v }
}

impl Fpu {
    /// Commits a result with exception flags and no rounding information: C1 = 0.
    #[inline]
    pub fn result(&mut self, r: f64, flags: u16) -> Option<f64> {
        if self.exc(flags) {
            return None;
        }
        self.sw &= !C1;
        Some(r)
    }

    /// Rounds a to-nearest double `r` whose exact value lies in direction `dir`
    /// to the control word (precision control only when `pc`), and sets PE, OE,
    /// UE and C1 (rounded up in magnitude). `flags` holds earlier flags (DE).
    pub fn finish(&mut self, r53: f64, dir: i8, flags: u16, pc: bool) -> Option<f64> {
        let (r, d) = round_cw(self.cw, r53, dir, pc);
        let mut fl = flags;
        let mut c1 = false;
        if d != 0 {
            fl |= PE;
            // Exact magnitude below |r|: rounded up.
            let mag_lt = (d > 0) == r.is_sign_negative();
            c1 = mag_lt && r != 0.0;
            let ar = r.abs();
            if r.is_infinite()
                || r53.is_infinite()
                || (self.rc() != RC_NEAREST
                    && !mag_lt
                    && (ar == f64::MAX || ar.to_bits() == num::MAX24))
            {
                fl |= OE;
            }
            if ar < f64::MIN_POSITIVE || (ar == f64::MIN_POSITIVE && mag_lt) {
                fl |= UE;
            }
        }
        if self.exc(fl) {
            return None;
        }
        self.set_c1(c1);
        Some(r)
    }

    /// Checks ST(0) for a one-operand instruction. Returns its physical index, or
    /// None after the stack-underflow response (masked: ST(0) becomes the indefinite).
    #[inline(always)]
    pub fn st0_or_underflow(&mut self) -> Option<usize> {
        let k = self.pk(0);
        if self.is_empty(k) {
            if !self.underflow() {
                self.put(k, INDEFINITE);
            }
            return None;
        }
        Some(k)
    }
}

// ---- handlers -----------------------------------------------------------------------

#[inline(always)]
fn apply<const OP: u8>(f: &mut Fpu, dst: f64, src: f64, de: bool) -> Option<f64> {
    match OP {
        ADD => arith::<ADD>(f, dst, src, de),
        MUL => arith::<MUL>(f, dst, src, de),
        SUB => arith::<SUB>(f, dst, src, de),
        SUBR => arith::<SUB>(f, src, dst, de),
        DIV => arith::<DIV>(f, dst, src, de),
        _ => arith::<DIV>(f, src, dst, de),
    }
}

/// Loads a memory source operand: (value, denormal).
#[inline(always)]
pub fn load_src<const K: u8>(cpu: &Cpu, ea: u32) -> Result<(f64, bool), crate::mem::Fault> {
    Ok(match K {
        M32 => {
            let b = super::load32(cpu, ea)?;
            (
                f32_bits_to_f64(b),
                (b >> 23) & 0xff == 0 && b & 0x7f_ffff != 0,
            )
        }
        M64 => {
            let b = super::load64(cpu, ea)?;
            (f64::from_bits(b), (b >> 52) & 0x7ff == 0 && b & FRAC != 0)
        }
        I16 => (super::load16(cpu, ea)? as i16 as f64, false),
        _ => (super::load32(cpu, ea)? as i32 as f64, false),
    })
}

/// f32 bits to f64, keeping NaN payloads and signalling-ness.
#[inline(always)]
pub fn f32_bits_to_f64(b: u32) -> f64 {
    if (b >> 23) & 0xff == 0xff && b & 0x7f_ffff != 0 {
        let s = ((b >> 31) as u64) << 63;
        f64::from_bits(s | 0x7ff0_0000_0000_0000 | ((b as u64 & 0x7f_ffff) << 29))
    } else {
        f32::from_bits(b) as f64
    }
}

/// ST(0) = ST(0) OP m (or m OP ST(0) for the reversed ops).
fn arith_m<const OP: u8, const K: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let (src, de) = mtry!(cpu, ops, i, load_src::<K>(cpu, ea));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let k = f.pk(0);
    if f.is_empty(k) {
        if !f.underflow() {
            f.put(k, INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    if let Some(r) = apply::<OP>(f, f.st[k], src, de) {
        f.put(k, r);
    }
    next(cpu, ops, i)
}

/// ST(0) = ST(0) OP ST(i).
fn arith_st0_sti<const OP: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (d, s) = (f.pk(0), f.pk(ops[i].rm));
    reg_op::<OP, false>(f, d, s);
    next(cpu, ops, i)
}

/// ST(i) = ST(i) OP ST(0), popping for the P forms.
fn arith_sti_st0<const OP: u8, const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (d, s) = (f.pk(ops[i].rm), f.pk(0));
    reg_op::<OP, POP>(f, d, s);
    next(cpu, ops, i)
}

#[inline(always)]
fn reg_op<const OP: u8, const POP: bool>(f: &mut Fpu, d: usize, s: usize) {
    if f.is_empty(d) || f.is_empty(s) {
        if !f.underflow() {
            f.put(d, INDEFINITE);
            if POP {
                f.pop();
            }
        }
        return;
    }
    if let Some(r) = apply::<OP>(f, f.st[d], f.st[s], false) {
        f.put(d, r);
        if POP {
            f.pop();
        }
    }
}

fn fsqrt(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow() else {
        return next(cpu, ops, i);
    };
    let a = f.st[k];
    let out = if a.is_nan() {
        f.result(quiet(a), if is_snan(a) { IE } else { 0 })
    } else if a == 0.0 || a == f64::INFINITY {
        f.result(a, 0)
    } else if a < 0.0 {
        f.result(INDEFINITE, IE)
    } else {
        let r = a.sqrt();
        if f.fast_cw() && exp_field(a) != 0 {
            let (ma, ea) = decompose(a);
            let (mr, er) = decompose(r);
            let lhs = (ma as u128) << (ea - 2 * er);
            let rhs = mr as u128 * mr as u128;
            f.sw = (f.sw & !C1) | ((lhs != rhs) as u16 * PE) | (((rhs > lhs) as u16) << 9);
            Some(r)
        } else {
            let d = sqrt_dir(a, r);
            f.finish(r, d, 0, true)
        }
    };
    if let Some(r) = out {
        f.put(k, r);
    }
    next(cpu, ops, i)
}

fn fchs_fabs<const ABS: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    if let Some(k) = f.st0_or_underflow() {
        let raw = f.is_raw(k);
        let b = f.st[k].to_bits();
        let v = if ABS { b & !num::SIGN } else { b ^ num::SIGN };
        f.put(k, f64::from_bits(v));
        if raw {
            // The sign bit of whatever encoding the image is.
            let se = f.raw_se[k];
            let se = if ABS { se & 0x7fff } else { se ^ 0x8000 };
            f.set_image(k, f.raw_sig[k], se);
        }
        f.sw &= !C1;
    }
    next(cpu, ops, i)
}

fn frndint(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow() else {
        return next(cpu, ops, i);
    };
    if f.is_raw(k) {
        frndint_image(f, k);
        return next(cpu, ops, i);
    }
    let a = f.st[k];
    let out = if a.is_nan() {
        f.result(quiet(a), if is_snan(a) { IE } else { 0 })
    } else {
        let r = num::round_int(f.rc(), a);
        if r == a {
            f.result(r, 0)
        } else {
            let up = r.abs() > a.abs();
            if f.exc(PE) {
                None
            } else {
                f.set_c1(up);
                Some(r)
            }
        }
    };
    if let Some(r) = out {
        f.put(k, r);
    }
    next(cpu, ops, i)
}

/// FRNDINT of a register holding an exact image: rounded exactly under RC (an
/// integer result a double cannot hold keeps an image); a NaN is quieted keeping
/// its payload, an unsupported encoding gives the indefinite (IE), a denormal
/// operand raises DE.
#[cold]
#[inline(never)]
fn frndint_image(f: &mut Fpu, k: usize) {
    let (m, se) = f.ext80(k);
    match ext::class(m, se) {
        ext::Class::Unsupported => {
            if let Some(r) = f.result(INDEFINITE, IE) {
                f.put(k, r);
            }
        }
        ext::Class::Nan { snan } => {
            if f.result(0.0, if snan { IE } else { 0 }).is_some() {
                f.set_ext80(k, m | 1 << 62, se);
            }
        }
        ext::Class::Zero | ext::Class::Inf => f.sw &= !C1,
        ext::Class::Finite => {
            let de = if ext::is_denormal(m, se) { DE } else { 0 };
            match ext::round_int(m, se, f.rc()) {
                Some(r) if r.inexact => {
                    // An unmasked DE stops the instruction before PE.
                    if f.exc(de) || f.exc(PE) {
                        return;
                    }
                    f.set_c1(r.up);
                    let v = r.mag as f64;
                    f.put(k, if r.neg { -v } else { v });
                    if !ext::int_fits_f64(r.mag) {
                        let (m, se) = ext::int_image(r.neg, r.mag);
                        f.set_image(k, m, se);
                    }
                }
                // Already an integer: unchanged.
                _ => {
                    if !f.exc(de) {
                        f.sw &= !C1;
                    }
                }
            }
        }
    }
}

/// FSCALE: ST(0) * 2^trunc(ST(1)).
fn fscale(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(1));
    if f.is_empty(k0) || f.is_empty(k1) {
        if !f.underflow() {
            f.put(k0, INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    let (a, s) = (f.st[k0], f.st[k1]);
    let out = if a.is_nan() || s.is_nan() {
        let (r, ie) = nan2(a, s);
        f.result(r, if ie { IE } else { 0 })
    } else if s.is_infinite() {
        if (s > 0.0 && a == 0.0) || (s < 0.0 && a.is_infinite()) {
            f.result(INDEFINITE, IE)
        } else if s > 0.0 {
            f.result(
                if a.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
                0,
            )
        } else {
            f.result(if a.is_sign_negative() { -0.0 } else { 0.0 }, 0)
        }
    } else if a == 0.0 || a.is_infinite() {
        f.result(a, 0)
    } else {
        // Exact in the x87 register; beyond the double range: OE (the masked
        // response), below it: rounded to a double denormal without flags.
        let n = s.trunc().clamp(-70000.0, 70000.0) as i32;
        let (m, e) = decompose(a);
        let (r, _) = make_f64(a.is_sign_negative(), m as u128, e + n);
        if r.is_infinite() {
            let v = overflow_value(f.rc(), a.is_sign_negative());
            if f.exc(OE | PE) {
                None
            } else {
                f.set_c1(v.is_infinite());
                Some(v)
            }
        } else {
            f.result(r, 0)
        }
    };
    if let Some(r) = out {
        f.put(k0, r);
    }
    next(cpu, ops, i)
}

/// FXTRACT: ST(0) = x becomes ST(1) = exponent, ST(0) = significand.
fn fxtract(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow_push() else {
        return next(cpu, ops, i);
    };
    if !f.can_push() {
        if !f.overflow() {
            // Masked: ST(0) and the new ST(0) hold the indefinite.
            f.put(k, INDEFINITE);
            f.push_raw(INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    let a = f.st[k];
    let (e, s, fl) = if a.is_nan() {
        (quiet(a), quiet(a), if is_snan(a) { IE } else { 0 })
    } else if a.is_infinite() {
        (f64::INFINITY, a, 0)
    } else if a == 0.0 {
        (f64::NEG_INFINITY, a, ZE)
    } else {
        let (m, ex) = decompose(a);
        let sig = f64::from_bits((a.to_bits() & num::SIGN) | (0x3ffu64 << 52) | (m & FRAC));
        ((ex + 52) as f64, sig, 0)
    };
    if !f.exc(fl) {
        f.put(k, e);
        f.push_raw(s);
        f.sw &= !C1;
    }
    next(cpu, ops, i)
}

impl Fpu {
    /// Like `st0_or_underflow` for instructions that replace ST(0) and push
    /// (FXTRACT, FPTAN, FSINCOS): the masked underflow response leaves the
    /// indefinite in both.
    #[inline]
    pub fn st0_or_underflow_push(&mut self) -> Option<usize> {
        let k = self.pk(0);
        if self.is_empty(k) {
            if !self.underflow() {
                // Both results are the indefinite, pushed over ST(7) whatever it holds.
                self.put(k, INDEFINITE);
                self.push_raw(INDEFINITE);
            }
            return None;
        }
        Some(k)
    }

    /// Push without the overflow check (the caller checked `can_push`).
    #[inline(always)]
    pub fn push_raw(&mut self, v: f64) {
        self.top = self.top.wrapping_sub(1) & 7;
        let k = self.top as usize;
        self.put(k, v);
    }
}

/// FPREM (truncating quotient) and FPREM1 (IEEE remainder).
fn fprem<const IEEE: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(1));
    if f.is_empty(k0) || f.is_empty(k1) {
        if !f.underflow() {
            f.put(k0, INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    let (a, b) = (f.st[k0], f.st[k1]);
    if a.is_nan() || b.is_nan() {
        let (r, ie) = nan2(a, b);
        if let Some(r) = f.result(r, if ie { IE } else { 0 }) {
            f.put(k0, r);
            f.sw &= !C2;
        }
        return next(cpu, ops, i);
    }
    if a.is_infinite() || b == 0.0 {
        if let Some(r) = f.result(INDEFINITE, IE) {
            f.put(k0, r);
            f.sw &= !C2;
        }
        return next(cpu, ops, i);
    }
    if a == 0.0 || b.is_infinite() {
        // Remainder is the dividend, quotient 0.
        f.sw &= !CC;
        return next(cpu, ops, i);
    }
    let (r, q, partial) = prem(a, b, IEEE);
    f.put(k0, r);
    if partial {
        // C0 C1 C3 are undefined by the SDM; the host clears them.
        f.sw = (f.sw & !CC) | C2;
    } else {
        let qb = (q & 4) << 6 | (q & 2) << 13 | (q & 1) << 9;
        f.sw = (f.sw & !CC) | qb as u16;
    }
    // Remainders are exact: no PE. (An x87 underflow to an extended denormal cannot
    // happen with f64 operands.)
    next(cpu, ops, i)
}

/// Partial remainder of finite nonzero `a` by finite nonzero `b`: (remainder, low
/// quotient bits, incomplete).
pub fn prem(a: f64, b: f64, ieee: bool) -> (f64, u64, bool) {
    let (ma, ea) = decompose(a);
    let (mb, eb) = decompose(b);
    let d = ea - eb;
    let neg = a.is_sign_negative();
    if d >= 64 {
        // Reduce by a quotient of the top N bits: the remainder after dividing by
        // b * 2^(d - n).
        let n = 32 + ((d - 32) % 32);
        let sh = d - n;
        // a' = ma * 2^(ea); divisor b * 2^sh = mb * 2^(eb + sh); exponent diff n.
        let num = (ma as u128) << n;
        let rem = num % mb as u128;
        let (r, _) = make_f64(neg, rem, eb + sh);
        return (r, 0, true);
    }
    if d < -1 {
        // |a| < |b|/2: quotient 0, for both forms.
        return (a, 0, false);
    }
    let (num, shift) = if d >= 0 {
        ((ma as u128) << d, 0)
    } else {
        (ma as u128, 1)
    };
    // Compare a with b scaled: num / (mb << shift).
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
    let (r, _) = make_f64(rneg, rem, eb - shift);
    // A zero remainder keeps the dividend's sign.
    let r = if rem == 0 {
        f64::from_bits((a.to_bits() & num::SIGN) | r.to_bits())
    } else {
        r
    };
    (r, q as u64, false)
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    let m = ins.mnemonic();
    let op = match m {
        Fadd | Faddp | Fiadd => ADD,
        Fmul | Fmulp | Fimul => MUL,
        Fsub | Fsubp | Fisub => SUB,
        Fsubr | Fsubrp | Fisubr => SUBR,
        Fdiv | Fdivp | Fidiv => DIV,
        Fdivr | Fdivrp | Fidivr => DIVR,
        Fsqrt => return Some(fsqrt),
        Fchs => return Some(fchs_fabs::<false>),
        Fabs => return Some(fchs_fabs::<true>),
        Frndint => return Some(frndint),
        Fscale => return Some(fscale),
        Fxtract => return Some(fxtract),
        Fprem => return Some(fprem::<false>),
        Fprem1 => return Some(fprem::<true>),
        _ => return None,
    };
    if ins.op_count() == 1 && ins.op_kind(0) == iced_x86::OpKind::Memory {
        let k = match ins.memory_size() {
            MemorySize::Float32 => M32,
            MemorySize::Float64 => M64,
            MemorySize::Int16 => I16,
            MemorySize::Int32 => I32,
            _ => return None,
        };
        return Some(by_op_kind(op, k));
    }
    o.rm = super::sti_of(ins);
    let pop = matches!(m, Faddp | Fmulp | Fsubp | Fsubrp | Fdivp | Fdivrp);
    let dst_sti = super::dest_is_sti(ins.code());
    Some(if pop {
        reg_form::<true>(op, true)
    } else if dst_sti {
        reg_form::<false>(op, true)
    } else {
        reg_form::<false>(op, false)
    })
}

fn reg_form<const POP: bool>(op: u8, dst_sti: bool) -> Handler {
    macro_rules! pick {
        ($op:expr) => {
            if dst_sti {
                arith_sti_st0::<{ $op }, POP> as Handler
            } else {
                arith_st0_sti::<{ $op }> as Handler
            }
        };
    }
    match op {
        ADD => pick!(ADD),
        MUL => pick!(MUL),
        SUB => pick!(SUB),
        SUBR => pick!(SUBR),
        DIV => pick!(DIV),
        _ => pick!(DIVR),
    }
}

fn by_op_kind(op: u8, k: u8) -> Handler {
    macro_rules! kinds {
        ($op:expr) => {
            match k {
                M32 => arith_m::<{ $op }, M32> as Handler,
                M64 => arith_m::<{ $op }, M64> as Handler,
                I16 => arith_m::<{ $op }, I16> as Handler,
                _ => arith_m::<{ $op }, I32> as Handler,
            }
        };
    }
    match op {
        ADD => kinds!(ADD),
        MUL => kinds!(MUL),
        SUB => kinds!(SUB),
        SUBR => kinds!(SUBR),
        DIV => kinds!(DIV),
        _ => kinds!(DIVR),
    }
}
