//! The fused x87 op (see tiers/x87_fuse.rs): runs the run's instructions in order,
//! each by its inline kind or by its own handler.

use super::x87_fuse::*;
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, EAX, Exit};
use crate::exec::op::{self, Op};
use crate::mem::{Fault, Wrote};
use crate::ops::x87::{
    self as x, ADD, C0, C1, C2, C3, DE, DIV, DIVR, ES, IE, INDEFINITE, MUL, PE, SUB, arith,
};

/// Ends the two-op slice a handler call runs in.
fn resume(_cpu: &mut Cpu, _ops: &[Op], _i: usize) -> Exit {
    Exit::Block
}

/// Charges the run's counters when it leaves at op `j` (`done`: instructions of the
/// run that retired) and returns `e`.
#[inline(always)]
fn leave(cpu: &mut Cpu, i: usize, j: usize, done: usize, inline: u64, e: Exit) -> Exit {
    let ch = &mut cpu.chain;
    ch.x87_runs += 1;
    ch.x87_insns += done as u64;
    ch.x87_inline += inline;
    // The run loop counts ops `i..=j` as dispatched; only op `i` was.
    ch.x87_skipped += (j - i) as u64;
    e
}

/// `dst OP src` as `ops::x87`'s `apply` computes it.
#[inline(always)]
fn apply(op: u8, f: &mut Fpu, dst: f64, src: f64, de: bool) -> Option<f64> {
    match op {
        ADD => arith::<ADD>(f, dst, src, de),
        MUL => arith::<MUL>(f, dst, src, de),
        SUB => arith::<SUB>(f, dst, src, de),
        x::SUBR => arith::<SUB>(f, src, dst, de),
        DIV => arith::<DIV>(f, dst, src, de),
        DIVR => arith::<DIV>(f, src, dst, de),
        _ => unreachable!("arith kinds carry an op below 6"),
    }
}

/// The handlers' `reg_op`: `ST(d) = ST(d) OP ST(s)`, popping for the P forms.
#[inline(always)]
fn reg_op(op: u8, pop: bool, f: &mut Fpu, d: usize, s: usize) {
    if f.is_empty(d) || f.is_empty(s) {
        if !f.underflow() {
            f.put(d, INDEFINITE);
            if pop {
                f.pop();
            }
        }
        return;
    }
    if let Some(r) = apply(op, f, f.st[d], f.st[s], false) {
        f.put(d, r);
        if pop {
            f.pop();
        }
    }
}

/// What one instruction of the run did.
enum Step {
    Next,
    /// Ran inline.
    Inline,
    /// Left the block (fault, pending exception, store into code).
    Leave(Exit),
}

/// Fraction bits of an f64.
const FRAC: u64 = (1 << 52) - 1;

/// The fused op: instructions `i .. i + ops[i].r`, then the op after the run.
pub fn fused(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let end = i + ops[i].r as usize;
    let mut inline = 0u64;
    // With every exception masked and none pending, no inline kind can set ES (only
    // an unmasked flag does), so the per-instruction ES test is known false until a
    // handler call, which may load a control word or an environment.
    let quiet_now = |f: &Fpu| f.sw & ES == 0 && f.cw & 0x3f == 0x3f;
    let mut quiet = quiet_now(&cpu.fpu);
    for j in i..end {
        match step(cpu, ops, i, j, quiet) {
            Step::Inline => inline += 1,
            Step::Next => quiet = quiet_now(&cpu.fpu),
            Step::Leave(e) => {
                let done = j - i + (e == Exit::CodeWrite) as usize;
                return leave(cpu, i, j, done, inline, e);
            }
        }
    }
    leave(cpu, i, end - 1, end - i, inline, Exit::Block);
    (ops[end].h)(cpu, ops, end)
}

/// Calls instruction `j`'s own handler (the first op's from its slot).
#[inline(never)]
fn call(cpu: &mut Cpu, ops: &[Op], i: usize, j: usize) -> Step {
    let mut o = ops[j];
    if j == i {
        match handler(o.imm) {
            Some(h) => o.h = h,
            // Only a poisoned slot table gets here; the instruction is reported.
            None => return Step::Leave(op::unimplemented(cpu, ops, j)),
        }
    }
    let pair = [o, Op::new(resume, o.next, o.next)];
    match (o.h)(cpu, &pair, 0) {
        Exit::Block => Step::Next,
        Exit::Fault => {
            // `pending` already names this instruction (the copy's eip).
            cpu.exit_at = j;
            Step::Leave(Exit::Fault)
        }
        Exit::CodeWrite => {
            cpu.exit_at = j;
            Step::Leave(Exit::CodeWrite)
        }
        #[cfg(feature = "dispatch-loop")]
        Exit::Next => Step::Next,
    }
}

#[cold]
#[inline(never)]
fn fault(cpu: &mut Cpu, ops: &[Op], j: usize, f: Fault) -> Step {
    Step::Leave(op::fault(cpu, ops, j, f))
}

#[cold]
#[inline(never)]
fn pending(cpu: &mut Cpu, ops: &[Op], j: usize) -> Step {
    Step::Leave(x::pending_fault(cpu, ops, j))
}

/// The handlers' `after_store`.
#[inline(always)]
fn stored(cpu: &mut Cpu, ops: &[Op], j: usize, w: Wrote) -> Step {
    if w == Wrote::Code {
        return Step::Leave(op::code_written(cpu, ops, j));
    }
    Step::Inline
}

/// The handlers' `arith_m`: `ST(0) = ST(0) OP m` (`M64`: an m64 operand, else m32).
#[inline(always)]
fn arith_m<const OP: u8, const M64: bool>(cpu: &mut Cpu, ops: &[Op], j: usize, o: &Op) -> Step {
    let ea = cpu.ea(o);
    // The handlers' `load_src` (value, denormal), read inline.
    let r = if M64 {
        cpu.mem.read_u64(ea).map(|b| {
            let de = (b >> 52) & 0x7ff == 0 && b & FRAC != 0;
            (f64::from_bits(b), de)
        })
    } else {
        cpu.mem.read_u32(ea).map(|b| {
            let de = (b >> 23) & 0xff == 0 && b & 0x7f_ffff != 0;
            (x::f32_bits_to_f64(b), de)
        })
    };
    let (src, de) = match r {
        Ok(v) => v,
        Err(f) => return fault(cpu, ops, j, f),
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let t = f.pk(0);
    if f.is_empty(t) {
        if !f.underflow() {
            f.put(t, INDEFINITE);
        }
        return Step::Inline;
    }
    if let Some(r) = apply(OP, f, f.st[t], src, de) {
        f.put(t, r);
    }
    Step::Inline
}

/// The handlers' `compare`: the C3 C2 C0 pattern of `a` against `b` and whether an
/// unmasked exception stops the pop (`unordered`: FUCOM, IE only for SNaN).
#[inline(always)]
fn compare(f: &mut Fpu, a: f64, b: f64, unordered: bool, de: bool) -> (u16, bool) {
    if a.is_nan() || b.is_nan() {
        let ie = !unordered || x::is_snan(a) || x::is_snan(b);
        return (C3 | C2 | C0, f.exc(if ie { IE } else { 0 }));
    }
    let stop = de && f.exc(DE);
    let c = if a > b {
        0
    } else if a < b {
        C0
    } else {
        C3
    };
    (c, stop)
}

/// The handlers' `fcom_m`: FCOM/FCOMP m32/m64.
#[inline(always)]
fn fcom_m<const POP: bool, const M64: bool>(cpu: &mut Cpu, ops: &[Op], j: usize, o: &Op) -> Step {
    let ea = cpu.ea(o);
    let r = if M64 {
        cpu.mem.read_u64(ea).map(|b| {
            let de = (b >> 52) & 0x7ff == 0 && b & FRAC != 0;
            (f64::from_bits(b), de)
        })
    } else {
        cpu.mem.read_u32(ea).map(|b| {
            let de = (b >> 23) & 0xff == 0 && b & 0x7f_ffff != 0;
            (x::f32_bits_to_f64(b), de)
        })
    };
    let (b, de) = match r {
        Ok(v) => v,
        Err(f) => return fault(cpu, ops, j, f),
    };
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let k = f.pk(0);
    let (c, stop) = if f.is_empty(k) {
        (C3 | C2 | C0, f.underflow())
    } else {
        compare(f, f.st[k], b, false, de)
    };
    f.sw = (f.sw & !x::CC) | c;
    if POP && !stop {
        f.pop();
    }
    Step::Inline
}

/// The handlers' `fcom_sti::<2, U>`: FCOMPP and FUCOMPP.
#[inline(always)]
fn fcompp<const U: bool>(cpu: &mut Cpu) -> Step {
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(1));
    let (c, stop) = if f.is_empty(k0) || f.is_empty(k1) {
        (C3 | C2 | C0, f.underflow())
    } else {
        compare(f, f.st[k0], f.st[k1], U, false)
    };
    f.sw = (f.sw & !x::CC) | c;
    if !stop {
        f.pop();
        f.pop();
    }
    Step::Inline
}

/// The register forms: `MODE` 0 `ST(0) OP= ST(i)`, 1 `ST(i) OP= ST(0)`, 2 the same
/// and pop.
#[inline(always)]
fn reg<const OP: u8, const MODE: u8>(cpu: &mut Cpu, o: &Op) -> Step {
    let f = &mut cpu.fpu;
    let (d, s) = if MODE == 0 {
        (f.pk(0), f.pk(o.rm))
    } else {
        (f.pk(o.rm), f.pk(0))
    };
    reg_op(OP, MODE == 2, f, d, s);
    Step::Inline
}

/// Runs instruction `j` of the run that starts at `i`.
#[inline(always)]
fn step(cpu: &mut Cpu, ops: &[Op], i: usize, j: usize, quiet: bool) -> Step {
    let o = &ops[j];
    let k = o.size;
    if k == CALL {
        return call(cpu, ops, i, j);
    }
    if k == FNSTSW_AX {
        let s = cpu.fpu.status() as u32;
        cpu.set_r16(EAX as u8, s);
        return Step::Inline;
    }
    // `wait!`: deliver a pending unmasked exception, record FIP and FOP.
    if !quiet && cpu.fpu.sw & ES != 0 {
        return pending(cpu, ops, j);
    }
    if k == FSTSW_AX {
        let s = cpu.fpu.status() as u32;
        cpu.set_r16(EAX as u8, s);
        return Step::Inline;
    }
    cpu.fpu.fip = o.eip;
    cpu.fpu.fop = o.imm2 as u16;
    match k {
        FLD_M32 => {
            let ea = cpu.ea(o);
            let b = match cpu.mem.read_u32(ea) {
                Ok(b) => b,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let e = (b >> 23) & 0xff;
            let f = &mut cpu.fpu;
            let t = f.top.wrapping_sub(1) & 7;
            if !((e.wrapping_sub(1) < 0xfe || b << 1 == 0) && f.is_empty(t as usize)) {
                return call(cpu, ops, i, j);
            }
            f.fdp = ea;
            f.top = t;
            f.put(t as usize, f32::from_bits(b) as f64);
            f.sw &= !C1;
            Step::Inline
        }
        FLD_M64 => {
            let ea = cpu.ea(o);
            let b = match cpu.mem.read_u64(ea) {
                Ok(b) => b,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let e = (b >> 52) & 0x7ff;
            let f = &mut cpu.fpu;
            let t = f.top.wrapping_sub(1) & 7;
            if !((e.wrapping_sub(1) < 0x7fe || b << 1 == 0) && f.is_empty(t as usize)) {
                return call(cpu, ops, i, j);
            }
            f.fdp = ea;
            f.top = t;
            f.put(t as usize, f64::from_bits(b));
            f.sw &= !C1;
            Step::Inline
        }
        FST_M64 | FSTP_M64 => {
            let ea = cpu.ea(o);
            let f = &cpu.fpu;
            let t = f.pk(0);
            let v = f.st[t];
            let b = v.to_bits();
            if f.is_empty(t) || x::is_snan(v) || (b >> 52 & 0x7ff == 0 && b << 1 != 0) {
                return call(cpu, ops, i, j);
            }
            let w = match cpu.mem.write_u64(ea, b) {
                Ok(w) => w,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let f = &mut cpu.fpu;
            f.fdp = ea;
            f.sw &= !C1;
            if k == FSTP_M64 {
                f.pop();
            }
            stored(cpu, ops, j, w)
        }
        FST_M32 | FSTP_M32 => {
            let ea = cpu.ea(o);
            let f = &cpu.fpu;
            let t = f.pk(0);
            let v = f.st[t];
            let r = v as f32;
            let exact = r as f64 == v;
            let e = (r.to_bits() >> 23) & 0xff;
            let ok = if exact {
                e != 0 || r == 0.0
            } else {
                f.cw & 0x0c3f == 0x003f && e.wrapping_sub(2) < 0xfd
            };
            if f.is_empty(t) || !ok {
                return call(cpu, ops, i, j);
            }
            let w = match cpu.mem.write_u32(ea, r.to_bits()) {
                Ok(w) => w,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let f = &mut cpu.fpu;
            f.fdp = ea;
            let c1 = !exact && (r as f64).abs() > v.abs();
            f.sw = (f.sw & !C1) | (!exact as u16 * PE) | ((c1 as u16) << 9);
            if k == FSTP_M32 {
                f.pop();
            }
            stored(cpu, ops, j, w)
        }
        FLD_STI => {
            let f = &mut cpu.fpu;
            let s = f.pk(o.rm);
            if f.is_empty(s) || !f.can_push() || f.mmx_raw & (1 << s) != 0 {
                return call(cpu, ops, i, j);
            }
            let v = f.st[s];
            f.push_raw(v);
            f.sw &= !C1;
            Step::Inline
        }
        FXCH => {
            let f = &mut cpu.fpu;
            let (a, b) = (f.pk(0), f.pk(o.rm));
            if f.is_empty(a) || f.is_empty(b) || f.mmx_raw & (1 << a | 1 << b) != 0 {
                return call(cpu, ops, i, j);
            }
            f.st.swap(a, b);
            f.mm.swap(a, b);
            f.sw &= !C1;
            Step::Inline
        }
        FST_STI | FSTP_STI => {
            let f = &mut cpu.fpu;
            let (s, d) = (f.pk(0), f.pk(o.rm));
            if f.is_empty(s) || f.mmx_raw & (1 << s) != 0 {
                return call(cpu, ops, i, j);
            }
            let v = f.st[s];
            f.put(d, v);
            f.sw &= !C1;
            if k == FSTP_STI {
                f.pop();
            }
            Step::Inline
        }
        16 => arith_m::<0, false>(cpu, ops, j, o),
        17 => arith_m::<1, false>(cpu, ops, j, o),
        18 => arith_m::<2, false>(cpu, ops, j, o),
        19 => arith_m::<3, false>(cpu, ops, j, o),
        20 => arith_m::<4, false>(cpu, ops, j, o),
        21 => arith_m::<5, false>(cpu, ops, j, o),
        24 => arith_m::<0, true>(cpu, ops, j, o),
        25 => arith_m::<1, true>(cpu, ops, j, o),
        26 => arith_m::<2, true>(cpu, ops, j, o),
        27 => arith_m::<3, true>(cpu, ops, j, o),
        28 => arith_m::<4, true>(cpu, ops, j, o),
        29 => arith_m::<5, true>(cpu, ops, j, o),
        32 => reg::<0, 0>(cpu, o),
        33 => reg::<1, 0>(cpu, o),
        34 => reg::<2, 0>(cpu, o),
        35 => reg::<3, 0>(cpu, o),
        36 => reg::<4, 0>(cpu, o),
        37 => reg::<5, 0>(cpu, o),
        40 => reg::<0, 1>(cpu, o),
        41 => reg::<1, 1>(cpu, o),
        42 => reg::<2, 1>(cpu, o),
        43 => reg::<3, 1>(cpu, o),
        44 => reg::<4, 1>(cpu, o),
        45 => reg::<5, 1>(cpu, o),
        48 => reg::<0, 2>(cpu, o),
        49 => reg::<1, 2>(cpu, o),
        50 => reg::<2, 2>(cpu, o),
        51 => reg::<3, 2>(cpu, o),
        52 => reg::<4, 2>(cpu, o),
        53 => reg::<5, 2>(cpu, o),
        FCOM_M32 => fcom_m::<false, false>(cpu, ops, j, o),
        FCOMP_M32 => fcom_m::<true, false>(cpu, ops, j, o),
        FCOM_M64 => fcom_m::<false, true>(cpu, ops, j, o),
        FCOMP_M64 => fcom_m::<true, true>(cpu, ops, j, o),
        FCOMPP => fcompp::<false>(cpu),
        FUCOMPP => fcompp::<true>(cpu),
        _ => call(cpu, ops, i, j),
    }
}
