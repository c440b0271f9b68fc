//! Loads and stores: FLD FST FSTP (m32 m64 m80 ST(i)), FILD FIST FISTP (m16 m32
//! m64), FBLD FBSTP (packed BCD) and the constants FLD1 FLDZ FLDPI FLDL2E FLDL2T
//! FLDLG2 FLDLN2. FISTTP is SSE3, which winterp does not report: not lowered
//! (docs/architecture.md).

use super::arith::f32_bits_to_f64;
use super::ext;
use super::num::{self, FRAC, is_snan, quiet, round_int};
use super::{C1, DE, IE, INDEFINITE, OE, PE, RC_CHOP, RC_DOWN, RC_NEAREST, RC_UP, UE, wait};
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mem::Wrote;
use crate::mtry;
use iced_x86::{Instruction, MemorySize, Mnemonic, OpKind};

impl Fpu {
    /// Whether recording `flags` would suppress a store to memory (an unmasked
    /// IE, DE, ZE, OE or UE).
    #[inline(always)]
    pub fn store_blocked(&self, flags: u16) -> bool {
        flags & !self.cw & 0x1f != 0
    }

    /// Commits the flags of a store that was done (or suppressed) and pops.
    #[inline]
    fn store_done(&mut self, flags: u16, c1: bool, pop: bool) {
        let blocked = self.store_blocked(flags);
        self.exc(flags);
        if blocked {
            return;
        }
        self.set_c1(c1);
        if pop {
            self.pop();
        }
    }
}

// ---- FLD ----------------------------------------------------------------------------

fn fld_m64(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let b = mtry!(cpu, ops, i, super::load64(cpu, ea));
    let e = (b >> 52) & 0x7ff;
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let k = f.top.wrapping_sub(1) & 7;
    if (e.wrapping_sub(1) < 0x7fe || b << 1 == 0) && f.is_empty(k as usize) {
        f.top = k;
        f.put(k as usize, f64::from_bits(b));
        f.sw &= !C1;
        return next(cpu, ops, i);
    }
    fld_slow(f, f64::from_bits(b), e == 0 && b << 1 != 0);
    next(cpu, ops, i)
}

fn fld_m32(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let b = mtry!(cpu, ops, i, super::load32(cpu, ea));
    let v = f32_bits_to_f64(b);
    let e = (b >> 23) & 0xff;
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let k = f.top.wrapping_sub(1) & 7;
    if (e.wrapping_sub(1) < 0xfe || b << 1 == 0) && f.is_empty(k as usize) {
        f.top = k;
        f.put(k as usize, v);
        f.sw &= !C1;
        return next(cpu, ops, i);
    }
    // An m32 denormal is a normal double: detect it on the raw bits.
    fld_slow(f, v, e == 0 && b << 1 != 0);
    next(cpu, ops, i)
}

/// FLD of a denormal (`de`), NaN or infinite m32/m64 value, or onto a full stack.
#[inline(never)]
fn fld_slow(f: &mut Fpu, v: f64, de: bool) {
    if !f.can_push() {
        f.push(INDEFINITE);
        return;
    }
    if is_snan(v) {
        if !f.exc_c1(IE) {
            f.push(quiet(v));
        }
        return;
    }
    // A denormal is loaded even with DE unmasked (the host does).
    if de {
        f.exc(DE);
    }
    f.push(v);
}

fn fld_m80(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let m = mtry!(cpu, ops, i, super::load64(cpu, ea));
    let se = mtry!(cpu, ops, i, super::load16(cpu, ea.wrapping_add(8)));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    if !f.can_push() {
        f.push(INDEFINITE);
        return next(cpu, ops, i);
    }
    f.push(0.0);
    let k = f.pk(0);
    f.set_ext80(k, m, se);
    next(cpu, ops, i)
}

fn fld_sti(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let k = f.pk(ops[i].rm);
    if f.is_empty(k) {
        // Underflow: the masked response pushes the indefinite (over a full
        // ST(7) too: the host reports only the underflow).
        if !f.underflow() {
            f.push_raw(INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    if !f.can_push() {
        f.push(INDEFINITE);
        return next(cpu, ops, i);
    }
    let raw = f.is_raw(k);
    f.push_raw(f.st[k]);
    f.sw &= !C1;
    let d = f.pk(0);
    f.copy_image(d, k, raw);
    next(cpu, ops, i)
}

/// FLD1, FLDZ, FLDPI, FLDL2E, FLDL2T, FLDLG2, FLDLN2: the 64-bit significand
/// rounded down (chop is the same: all are positive) and the exponent. The exact
/// value lies above it by the given fraction of an ulp (in 1/256ths: pi 0.769,
/// log2 e 0.744, log2 10 0.286, log10 2 0.561, ln 2 0.789), so nearest rounds up
/// exactly when that is at least 128, and up rounds up when it is nonzero.
const CONSTS: [(u64, u16, u8); 7] = [
    (1 << 63, 0x3fff, 0),
    (0, 0, 0),
    (0xc90f_daa2_2168_c234, 0x4000, 196),
    (0xb8aa_3b29_5c17_f0bb, 0x3fff, 190),
    (0xd49a_784b_cd1b_8afe, 0x4000, 73),
    (0x9a20_9a84_fbcf_f798, 0x3ffd, 143),
    (0xb172_17f7_d1cf_79ab, 0x3ffe, 201),
];

fn fld_const<const C: usize>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (m, se, frac) = CONSTS[C];
    let up = match f.rc() {
        RC_NEAREST => frac >= 128,
        RC_UP => frac != 0,
        _ => false,
    };
    if !f.can_push() {
        f.push(INDEFINITE);
        return next(cpu, ops, i);
    }
    f.push(0.0);
    let k = f.pk(0);
    f.set_ext80(k, m + up as u64, se);
    next(cpu, ops, i)
}

// ---- FST ----------------------------------------------------------------------------

fn fst_m64<const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let f = &cpu.fpu;
    let k = f.pk(0);
    let v = f.st[k];
    // Slow: empty, SNaN, or a denormal (UE when unmasked: tiny even if exact), or an
    // exact image to round.
    let b = v.to_bits();
    if f.is_empty(k) || is_snan(v) || (b >> 52 & 0x7ff == 0 && b << 1 != 0) || f.is_raw(k) {
        return fst_slow::<POP, 64>(cpu, ops, i, ea);
    }
    let w = mtry!(cpu, ops, i, cpu.mem.write_u64(ea, v.to_bits()));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    f.sw &= !C1;
    if POP {
        f.pop();
    }
    after_store(cpu, ops, i, w)
}

fn fst_m32<const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let f = &cpu.fpu;
    let k = f.pk(0);
    let fast = m32_fast(f.st[k], f.cw & 0x0c3f == 0x003f);
    let Some((bits, flags)) = fast.filter(|_| !f.is_empty(k) && !f.is_raw(k)) else {
        return fst_slow::<POP, 32>(cpu, ops, i, ea);
    };
    let w = mtry!(cpu, ops, i, cpu.mem.write_u32(ea, bits));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    f.sw = (f.sw & !C1) | flags;
    if POP {
        f.pop();
    }
    after_store(cpu, ops, i, w)
}

/// FST m32's fast path: `v` as f32 bits and the status bits the store sets (PE when
/// inexact, C1 when rounded up in magnitude) when `v` converts exactly, or — under
/// round to nearest with every exception masked (`nearest_masked`) — to an inexact
/// normal float; None where the slow path ([`to_f32`]) is needed.
#[inline(always)]
pub fn m32_fast(v: f64, nearest_masked: bool) -> Option<(u32, u16)> {
    let r = v as f32;
    let exact = r as f64 == v;
    let e = (r.to_bits() >> 23) & 0xff;
    let ok = if exact {
        e != 0 || r == 0.0
    } else {
        nearest_masked && e.wrapping_sub(2) < 0xfd
    };
    if !ok {
        return None;
    }
    let c1 = !exact && (r as f64).abs() > v.abs();
    Some((r.to_bits(), (!exact as u16 * PE) | ((c1 as u16) << 9)))
}

/// f64 to f32 bits under the control word's rounding: (bits, flags, rounded up).
pub fn to_f32(cw: u16, v: f64) -> (u32, u16, bool) {
    if v.is_nan() {
        let b = v.to_bits();
        let bits = ((b >> 63) as u32) << 31 | 0x7fc0_0000 | ((b & FRAC) >> 29) as u32;
        return (bits, if is_snan(v) { IE } else { 0 }, false);
    }
    let r = v as f32;
    if r as f64 == v {
        // Exact; with UE unmasked a tiny value still underflows.
        let tiny = v != 0.0 && v.abs() < f32::MIN_POSITIVE as f64 && cw & UE == 0;
        return (r.to_bits(), if tiny { UE } else { 0 }, false);
    }
    let rc = (cw >> 10) & 3;
    let neg = v < 0.0;
    let rb = r.to_bits();
    // Exact magnitude above |r|?
    let mag_above = v.abs() > (r as f64).abs();
    let away = (rc == RC_UP && !neg) || (rc == RC_DOWN && neg);
    let toward = rc == RC_CHOP || (rc == RC_UP && neg) || (rc == RC_DOWN && !neg);
    let bits = if rc == RC_NEAREST {
        rb
    } else if mag_above && away {
        rb + 1
    } else if !mag_above && toward {
        rb - 1
    } else {
        rb
    };
    let out = f32::from_bits(bits);
    let mut fl = PE;
    let up = (out as f64).abs() > v.abs();
    if v.abs() > f32::MAX as f64
        && (out.is_infinite() || (rc != RC_NEAREST && !toward) || r.is_infinite())
    {
        fl |= OE;
    }
    // Tininess after rounding (to 24 bits with an unbounded exponent).
    let (t, _) = num::round_cw(cw & !0x0300, v, 0, true);
    if t.abs() < f32::MIN_POSITIVE as f64 {
        fl |= UE;
    }
    // Unmasked, overflow and underflow stop the store and are reported alone.
    if fl & (OE | UE) & !cw != 0 {
        fl &= OE | UE;
    }
    (bits, fl, up)
}

#[inline(never)]
fn fst_slow<const POP: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, ea: u32) -> Exit {
    let f = &mut cpu.fpu;
    let k = f.pk(0);
    if !f.is_empty(k) && f.is_raw(k) {
        return fst_image::<POP, S>(cpu, ops, i, ea);
    }
    let (v, mut fl) = if f.is_empty(k) {
        (INDEFINITE, IE | super::SF)
    } else {
        (f.st[k], 0)
    };
    let mut c1 = false;
    let w = if S == 64 {
        if is_snan(v) {
            fl |= IE;
        }
        if v != 0.0 && v.abs() < f64::MIN_POSITIVE && f.cw & UE == 0 {
            fl |= UE;
        }
        if f.store_blocked(fl) {
            return store_suppressed(cpu, ops, i, ea, S / 8, fl);
        }
        let bits = if v.is_nan() {
            quiet(v).to_bits()
        } else {
            v.to_bits()
        };
        mtry!(cpu, ops, i, cpu.mem.write_u64(ea, bits))
    } else {
        let (bits, f2, up) = to_f32(f.cw, v);
        fl |= f2;
        c1 = up;
        if f.store_blocked(fl) {
            return store_suppressed(cpu, ops, i, ea, S / 8, fl);
        }
        mtry!(cpu, ops, i, cpu.mem.write_u32(ea, bits))
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    f.store_done(fl, c1, POP);
    after_store(cpu, ops, i, w)
}

/// FST/FSTP m64/m32 of a register holding an exact image: rounded once from the
/// 80-bit value under the control word.
fn fst_image<const POP: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, ea: u32) -> Exit {
    let f = &mut cpu.fpu;
    let (m, se) = f.ext80(f.pk(0));
    let (bits, fl, c1) = ext::to_float(m, se, f.cw, S == 64);
    if f.store_blocked(fl) {
        return store_suppressed(cpu, ops, i, ea, S / 8, fl);
    }
    let w = if S == 64 {
        mtry!(cpu, ops, i, cpu.mem.write_u64(ea, bits))
    } else {
        mtry!(cpu, ops, i, cpu.mem.write_u32(ea, bits as u32))
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    f.store_done(fl, c1, POP);
    after_store(cpu, ops, i, w)
}

/// A store that an unmasked exception in `fl` suppresses: the destination of `len`
/// bytes is still checked first (a fault on it is raised and the exception not
/// recorded, as the hardware does), then the flags are recorded (C1 cleared for a
/// stack underflow) and nothing is stored or popped.
#[cold]
#[inline(never)]
fn store_suppressed(cpu: &mut Cpu, ops: &[Op], i: usize, ea: u32, len: u32, fl: u16) -> Exit {
    mtry!(cpu, ops, i, cpu.mem.probe_write(ea, len));
    let f = &mut cpu.fpu;
    // C1 is cleared (a stack underflow's, and that of a store an unmasked
    // exception stops, as the host does).
    f.set_c1(false);
    f.exc(fl);
    next(cpu, ops, i)
}

/// Writes 10 bytes (an 80-bit value or packed BCD), probing first.
fn write80(cpu: &Cpu, ea: u32, m: u64, se: u16) -> Result<Wrote, crate::mem::Fault> {
    cpu.mem.probe_write(ea, 10)?;
    let a = cpu.mem.write_u64(ea, m)?;
    let b = cpu.mem.write_u16(ea.wrapping_add(8), se)?;
    Ok(if a == Wrote::Code || b == Wrote::Code {
        Wrote::Code
    } else {
        Wrote::Data
    })
}

fn fstp_m80(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let f = &cpu.fpu;
    let k = f.pk(0);
    let empty = f.is_empty(k);
    if empty && f.store_blocked(IE) {
        return store_suppressed(cpu, ops, i, ea, 10, IE | super::SF);
    }
    let (m, se) = if empty {
        (0xc000_0000_0000_0000, 0xffff)
    } else {
        f.ext80(k)
    };
    let w = mtry!(cpu, ops, i, write80(cpu, ea, m, se));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    if empty {
        f.underflow();
    }
    f.set_c1(false);
    f.pop();
    after_store(cpu, ops, i, w)
}

/// FST/FSTP ST(i).
fn fst_sti<const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (s, d) = (f.pk(0), f.pk(ops[i].rm));
    if f.is_empty(s) {
        if !f.underflow() {
            f.put(d, INDEFINITE);
            if POP {
                f.pop();
            }
        }
        return next(cpu, ops, i);
    }
    let raw = f.is_raw(s);
    f.put(d, f.st[s]);
    f.copy_image(d, s, raw);
    f.sw &= !C1;
    if POP {
        f.pop();
    }
    next(cpu, ops, i)
}

// ---- integers -----------------------------------------------------------------------

fn fild<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let n = match S {
        16 => mtry!(cpu, ops, i, super::load16(cpu, ea)) as i16 as i64,
        32 => mtry!(cpu, ops, i, super::load32(cpu, ea)) as i32 as i64,
        _ => mtry!(cpu, ops, i, super::load64(cpu, ea)) as i64,
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    if S < 64 || ext::int_fits_f64(n.unsigned_abs()) || !f.can_push() {
        f.push(n as f64);
    } else {
        push_int(f, n < 0, n.unsigned_abs());
    }
    next(cpu, ops, i)
}

/// Pushes the integer `-mag` (`neg`) or `mag` (FILD m64, FBLD) that a double cannot
/// hold, onto a free ST(7): its nearest double (`as f64` rounds to nearest even)
/// with the exact image.
#[inline(never)]
fn push_int(f: &mut Fpu, neg: bool, mag: u64) {
    let v = mag as f64;
    f.push(if neg { -v } else { v });
    let (m, se) = ext::int_image(neg, mag);
    let k = f.pk(0);
    f.set_image(k, m, se);
}

/// Converts to an S-bit integer: (value, flags, rounded up). Out of range, NaN
/// and infinity give the integer indefinite with IE.
pub fn to_int(rc: u16, v: f64, bits: u32) -> (i64, u16, bool) {
    let indefinite = i64::MIN >> (64 - bits);
    if !v.is_finite() {
        return (indefinite, IE, false);
    }
    let r = round_int(rc, v);
    let lim = (1u64 << (bits - 1)) as f64;
    if r >= lim || r < -lim {
        return (indefinite, IE, false);
    }
    if r == v {
        (r as i64, 0, false)
    } else {
        (r as i64, PE, r.abs() > v.abs())
    }
}

fn fist<const S: u32, const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let f = &cpu.fpu;
    let k = f.pk(0);
    let rc = f.rc();
    let (val, fl, c1) = if f.is_empty(k) {
        (i64::MIN >> (64 - S), IE | super::SF, false)
    } else if f.is_raw(k) {
        let (m, se) = f.ext80(k);
        ext::to_int(rc, m, se, S)
    } else {
        to_int(rc, f.st[k], S)
    };
    if f.store_blocked(fl) {
        return store_suppressed(cpu, ops, i, ea, S / 8, fl);
    }
    let w = match S {
        16 => mtry!(cpu, ops, i, cpu.mem.write_u16(ea, val as u16)),
        32 => mtry!(cpu, ops, i, cpu.mem.write_u32(ea, val as u32)),
        _ => mtry!(cpu, ops, i, cpu.mem.write_u64(ea, val as u64)),
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    f.store_done(fl, c1, POP);
    after_store(cpu, ops, i, w)
}

// ---- packed BCD ---------------------------------------------------------------------

fn fbld(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let lo = mtry!(cpu, ops, i, super::load64(cpu, ea));
    let hi = mtry!(cpu, ops, i, super::load16(cpu, ea.wrapping_add(8)));
    let mut n: u64 = 0;
    let bytes = lo.to_le_bytes();
    for k in (0..9).rev() {
        let b = if k == 8 { hi as u8 } else { bytes[k] };
        n = n * 100 + ((b >> 4) as u64 & 15) * 10 + (b as u64 & 15);
    }
    let neg = hi & 0x8000 != 0;
    let f = &mut cpu.fpu;
    f.fdp = ea;
    if ext::int_fits_f64(n) || !f.can_push() {
        let v = n as f64;
        f.push(if neg { -v } else { v });
    } else {
        push_int(f, neg, n);
    }
    next(cpu, ops, i)
}

fn fbstp(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let f = &cpu.fpu;
    let k = f.pk(0);
    // The result as (negative, magnitude).
    const MAX_BCD: u64 = 999_999_999_999_999_999;
    let (res, fl, c1) = if f.is_empty(k) {
        (None, IE | super::SF, false)
    } else if f.is_raw(k) {
        let (m, se) = f.ext80(k);
        let r = match ext::class(m, se) {
            ext::Class::Zero | ext::Class::Finite => ext::round_int(m, se, f.rc()),
            _ => None,
        };
        match r {
            Some(r) if r.mag <= MAX_BCD => {
                (Some((r.neg, r.mag)), if r.inexact { PE } else { 0 }, r.up)
            }
            _ => (None, IE, false),
        }
    } else {
        let v = f.st[k];
        if !v.is_finite() {
            (None, IE, false)
        } else {
            let r = round_int(f.rc(), v);
            let res = Some((r.is_sign_negative(), r.abs() as u64));
            if r.abs() > MAX_BCD as f64 {
                (None, IE, false)
            } else if r == v {
                (res, 0, false)
            } else {
                (res, PE, r.abs() > v.abs())
            }
        }
    };
    if f.store_blocked(fl) {
        return store_suppressed(cpu, ops, i, ea, 10, fl);
    }
    let (m, se) = match res {
        None => (0xc000_0000_0000_0000u64, 0xffffu16),
        Some((neg, mag)) => {
            let mut n = mag;
            let mut bytes = [0u8; 10];
            for b in bytes.iter_mut().take(9) {
                let lo = n % 10;
                n /= 10;
                let hi = n % 10;
                n /= 10;
                *b = (hi as u8) << 4 | lo as u8;
            }
            if neg {
                bytes[9] = 0x80;
            }
            let m = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
            (m, u16::from_le_bytes([bytes[8], bytes[9]]))
        }
    };
    let w = mtry!(cpu, ops, i, write80(cpu, ea, m, se));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    if fl & super::SF != 0 {
        f.underflow();
        f.pop();
    } else {
        f.store_done(fl, c1, true);
    }
    after_store(cpu, ops, i, w)
}

// ---- lowering -----------------------------------------------------------------------

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    let m = ins.mnemonic();
    let mem = ins.op_count() >= 1 && ins.op_kind(0) == OpKind::Memory;
    let ms = ins.memory_size();
    Some(match m {
        Fld if mem => match ms {
            MemorySize::Float32 => fld_m32 as Handler,
            MemorySize::Float64 => fld_m64,
            _ => fld_m80,
        },
        Fld => {
            o.rm = super::st_index(ins, 0);
            fld_sti
        }
        Fst | Fstp if mem => {
            let pop = m == Fstp;
            match (ms, pop) {
                (MemorySize::Float32, false) => fst_m32::<false> as Handler,
                (MemorySize::Float32, true) => fst_m32::<true>,
                (MemorySize::Float64, false) => fst_m64::<false>,
                (MemorySize::Float64, true) => fst_m64::<true>,
                (_, true) => fstp_m80,
                _ => return None,
            }
        }
        Fst | Fstp | Fstpnce => {
            o.rm = super::st_index(ins, 0);
            if m == Fst {
                fst_sti::<false>
            } else {
                fst_sti::<true>
            }
        }
        Fild => match ms {
            MemorySize::Int16 => fild::<16>,
            MemorySize::Int32 => fild::<32>,
            _ => fild::<64>,
        },
        Fist => match ms {
            MemorySize::Int16 => fist::<16, false>,
            _ => fist::<32, false>,
        },
        Fistp => match ms {
            MemorySize::Int16 => fist::<16, true>,
            MemorySize::Int32 => fist::<32, true>,
            _ => fist::<64, true>,
        },
        Fbld => fbld,
        Fbstp => fbstp,
        Fld1 => fld_const::<0>,
        Fldz => fld_const::<1>,
        Fldpi => fld_const::<2>,
        Fldl2e => fld_const::<3>,
        Fldl2t => fld_const::<4>,
        Fldlg2 => fld_const::<5>,
        Fldln2 => fld_const::<6>,
        _ => return None,
    })
}
