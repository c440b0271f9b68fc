//! Arithmetic: FADD FSUB FSUBR FMUL FDIV FDIVR in every form, FIADD FISUB FISUBR
//! FIMUL FIDIV FIDIVR, FSQRT, FRNDINT, FSCALE, FXTRACT, FPREM, FPREM1, FCHS, FABS.

use super::ext;
use super::num::{self, FRAC, decompose, exp_field, is_snan, quiet};
use super::soft::{self, F80, Res};
use super::{C1, C2, CC, DE, IE, INDEFINITE, PE, ZE, wait};
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

/// `ST(k) = a OP b` (OP in ADD SUB MUL DIV) for operands whose f64 is their whole
/// value (memory operands, registers without an exact image). `de`: the memory
/// operand was a denormal in its format. Returns whether the result was stored (an
/// unmasked exception suppresses it).
///
/// The fast path: the control word is PC 53 / RC nearest / all masked, operands
/// and the double result are such that the double operation is exactly the x87's
/// (see `fast`), and PE and C1 come from the exact rounding error. Everything else
/// is the 80-bit soft-float (`soft`), with the same results by construction: the
/// x87 at PC 53 rounds the exact result to 53 bits once, as IEEE double arithmetic
/// does while the result is a normal double.
#[inline(always)]
pub fn arith<const OP: u8>(f: &mut Fpu, k: usize, a: f64, b: f64, de: bool) -> bool {
    if f.fast_cw()
        && !de
        && let Some((r, inexact, up)) = fast::<OP>(a, b)
    {
        f.sw = (f.sw & !C1) | (inexact as u16 * PE) | ((up as u16) << 9);
        f.put(k, r);
        return true;
    }
    arith80(f, OP, k, F80::from_f64(a), F80::from_f64(b), de)
}

/// `ST(k) = a OP b` (OP in ADD SUB MUL DIV) on 80-bit operands by the soft-float.
#[inline(never)]
pub fn arith80(f: &mut Fpu, op: u8, k: usize, a: F80, b: F80, de: bool) -> bool {
    let r = soft::arith(op, a, b, de, f.cw);
    f.commit(k, r)
}

/// `ST(k) = dst OP src` for OP in ADD..DIVR on 80-bit operands.
#[inline(never)]
pub fn apply80(f: &mut Fpu, op: u8, k: usize, dst: F80, src: F80, de: bool) -> bool {
    match op {
        SUBR => arith80(f, SUB, k, src, dst, de),
        DIVR => arith80(f, DIV, k, src, dst, de),
        _ => arith80(f, op, k, dst, src, de),
    }
}

impl Fpu {
    /// Records a soft-float result's flags and, unless an unmasked exception
    /// suppresses it, writes it to physical register `k` (tagged valid) with C1.
    /// An unmasked denormal operand stops the operation before it computes
    /// anything: DE alone is recorded. Returns whether the result was stored.
    #[inline]
    pub fn commit(&mut self, k: usize, r: Res) -> bool {
        let fl = if r.fl & DE != 0 && self.cw & DE == 0 {
            DE
        } else {
            r.fl
        };
        if self.exc_c1(fl) {
            return false;
        }
        self.set_c1(r.up);
        self.put80(k, r.v);
        true
    }

    /// Physical register `k`'s whole value.
    #[inline]
    pub fn f80(&self, k: usize) -> F80 {
        let (m, se) = self.ext80(k);
        F80::new(m, se)
    }

    /// Writes an 80-bit value to physical register `k` and tags it non-empty (an
    /// exact image where its f64 cannot hold it).
    #[inline]
    pub fn put80(&mut self, k: usize, v: F80) {
        let k = k & 7;
        self.tags &= !(3 << (2 * k));
        self.set_ext80(k, v.m, v.se);
    }

    /// Commits a result with exception flags and no rounding information: C1 = 0.
    #[inline]
    pub fn result(&mut self, r: f64, flags: u16) -> Option<f64> {
        if self.exc_c1(flags) {
            return None;
        }
        self.sw &= !C1;
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

/// `ST(k) = dst OP src` for operands whose f64 is their whole value.
#[inline(always)]
fn apply<const OP: u8>(f: &mut Fpu, k: usize, dst: f64, src: f64, de: bool) -> bool {
    match OP {
        ADD => arith::<ADD>(f, k, dst, src, de),
        MUL => arith::<MUL>(f, k, dst, src, de),
        SUB => arith::<SUB>(f, k, dst, src, de),
        SUBR => arith::<SUB>(f, k, src, dst, de),
        DIV => arith::<DIV>(f, k, dst, src, de),
        _ => arith::<DIV>(f, k, src, dst, de),
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
    if f.is_raw(k) {
        apply80(f, OP, k, f.f80(k), F80::from_f64(src), de);
    } else {
        apply::<OP>(f, k, f.st[k], src, de);
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
    let stored = if (f.raw >> d | f.raw >> s) & 1 != 0 {
        apply80(f, OP, d, f.f80(d), f.f80(s), false)
    } else {
        apply::<OP>(f, d, f.st[d], f.st[s], false)
    };
    if stored && POP {
        f.pop();
    }
}

fn fsqrt(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let Some(k) = f.st0_or_underflow() else {
        return next(cpu, ops, i);
    };
    let a = f.st[k];
    // The fast path: PC 53 / nearest / all masked, a positive normal double (its
    // root is a normal double, rounded once as the x87 rounds it).
    if f.fast_cw() && !f.is_raw(k) && a > 0.0 && exp_field(a).wrapping_sub(1) < 0x7fe {
        let r = a.sqrt();
        let (ma, ea) = decompose(a);
        let (mr, er) = decompose(r);
        let lhs = (ma as u128) << (ea - 2 * er);
        let rhs = mr as u128 * mr as u128;
        f.sw = (f.sw & !C1) | ((lhs != rhs) as u16 * PE) | (((rhs > lhs) as u16) << 9);
        f.put(k, r);
        return next(cpu, ops, i);
    }
    let r = soft::sqrt(f.f80(k), f.cw);
    f.commit(k, r);
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
                    if f.exc_c1(de) || f.exc(PE) {
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
                    if !f.exc_c1(de) {
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
    let r = soft::scale(f.f80(k0), f.f80(k1), f.cw);
    f.commit(k0, r);
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
    let a = f.f80(k);
    let (e, s, fl) = match a.class() {
        ext::Class::Unsupported => (soft::INDEF, soft::INDEF, IE),
        ext::Class::Nan { snan } => (a.quiet(), a.quiet(), if snan { IE } else { 0 }),
        ext::Class::Inf => (F80::inf(false), a, 0),
        ext::Class::Zero => (F80::inf(true), a, ZE),
        ext::Class::Finite => soft::extract(a),
    };
    if !f.exc_c1(fl) {
        f.put80(k, e);
        f.push_raw(0.0);
        let t = f.pk(0);
        f.put80(t, s);
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
    // C2 ("incomplete") is cleared on every path that does not set it.
    f.sw &= !C2;
    let (k0, k1) = (f.pk(0), f.pk(1));
    if f.is_empty(k0) || f.is_empty(k1) {
        if !f.underflow() {
            f.put(k0, INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    let (a, b) = (f.f80(k0), f.f80(k1));
    let (ca, cb) = (a.class(), b.class());
    let invalid = ca == ext::Class::Unsupported
        || cb == ext::Class::Unsupported
        || (!a.is_nan() && !b.is_nan() && (ca == ext::Class::Inf || cb == ext::Class::Zero));
    if invalid || a.is_nan() || b.is_nan() {
        let r = if invalid {
            Res::invalid()
        } else {
            soft::nan2(a, b)
        };
        if f.commit(k0, r) {
            f.sw &= !C2;
        }
        return next(cpu, ops, i);
    }
    if ca == ext::Class::Zero || cb == ext::Class::Inf {
        // The remainder is the dividend (a denormal one underflows as any tiny
        // result), the quotient 0.
        let mut r = soft::round_value(a, 64, f.cw);
        if b.is_denormal() {
            r.fl |= DE;
        }
        if a.is_denormal() {
            r.fl |= DE;
        }
        if f.commit(k0, r) {
            f.sw &= !CC;
        }
        return next(cpu, ops, i);
    }
    let (r, q, partial) = soft::prem(a, b, IEEE, f.cw);
    if f.commit(k0, r) {
        if partial {
            // C0 C1 C3 are undefined by the SDM; the host clears them.
            f.sw = (f.sw & !CC) | C2;
        } else {
            let qb = (q & 4) << 6 | (q & 2) << 13 | (q & 1) << 9;
            f.sw = (f.sw & !CC) | qb as u16;
        }
    }
    next(cpu, ops, i)
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
