//! The x87 burst: a fused run whose stack use is checked once, at entry, instead of
//! at every instruction.
//!
//! At decode, [`plan`] walks the run's kinds over the eight stack slots relative to
//! the entry TOP and finds which slots the run reads before it writes them (they must
//! hold a value: tag VALID) and which it pushes into first (they must be EMPTY).
//! When the run can neither underflow nor overflow given those two masks, and every
//! instruction in it has an inline kind, the run is *burst-eligible*; the masks are
//! packed into the first op's `imm` beside the handler slot.
//!
//! At run time [`fused_burst`] tests, once: no exception pending, the fast control
//! word (every exception masked), no exact 80-bit image (an MMX value, a large FILD
//! m64 integer, an FLD m80 value: see `cpu::fpu`) in a slot it reads, and the tag
//! word against the two masks (rotated by the entry TOP). Its pushes and FST/FSTP
//! ST(i) drop the image of the register they write, as the handlers' `put` does. Then every instruction is its handler's
//! fast path with no emptiness test, no FIP/FOP write and no status
//! read-modify-write: TOP, the tag word, the status word and FDP live in locals.
//! With every exception masked and the fast paths taken, an instruction changes
//! only C0-C3 and PE; while PE is clear an arithmetic instruction derives PE and C1
//! from its exactness as the handlers do, once PE is set its C1 is owed (see
//! `x87_fuse_exec`) until something reads it.
//!
//! An instruction whose operand leaves the fast path (a denormal, a NaN, a result
//! out of the normal range) or whose memory operand faults bails out *before* it
//! changes anything: the state after the previous instruction is written back
//! exactly as the handlers would have left it, and the generic loop of
//! `x87_fuse_exec` runs the rest of the run from that instruction (so a fault is
//! raised by the same code as without the burst). A store into decoded code ends the
//! block after the store, as the handlers' `after_store` does.

use super::x87_fuse::*;
use super::x87_fuse_exec::{
    fast_arith, fast_operand, generic, leave, owed_up, readback_regs, run_ea,
};
use crate::cpu::{Cpu, EAX, Exit};
use crate::exec::op::{self, Op};
use crate::mem::Wrote;
use crate::ops::x87::{self as x, ADD, C0, C1, C3, CC, DIV, DIVR, ES, MUL, PE, SUB, SUBR};

/// Bit of the first op's `imm` that marks a burst-eligible run; the handler slot is
/// below it, the VALID mask in bits 16-23 and the EMPTY mask in bits 24-31.
pub const ELIGIBLE: u32 = 1 << 15;
/// The handler slot's bits in `imm`.
pub const SLOT_MASK: u32 = ELIGIBLE - 1;

/// The stack effect of one kind: slots read (relative to its own TOP: 0 is ST(0),
/// `RM` is ST(rm)), then a write, then pops and pushes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Unknown,
    Full,
    Empty,
}

/// The entry masks of a burst-eligible run (relative slots: bit r is the physical
/// register `(TOP + r) & 7` at entry): those that must be VALID and those that must
/// be EMPTY. None when the run is not eligible: a handler-only instruction, or a
/// stack underflow or overflow that the masks cannot rule out.
pub fn plan(ops: &[Op], kinds: &[u8]) -> Option<(u8, u8)> {
    let mut s = [Slot::Unknown; 8];
    let mut d = 0u8;
    let (mut valid, mut empty) = (0u8, 0u8);
    for (o, &k) in ops.iter().zip(kinds) {
        let rm = o.rm & 7;
        let mut read = |i: u8, s: &mut [Slot; 8]| -> Option<()> {
            let t = ((d + i) & 7) as usize;
            match s[t] {
                Slot::Unknown => {
                    valid |= 1 << t;
                    s[t] = Slot::Full;
                    Some(())
                }
                Slot::Full => Some(()),
                Slot::Empty => None,
            }
        };
        // (reads, write ST(rm), pops, push)
        let (reads, write, pops, push): (&[u8], bool, u8, bool) = match k {
            FLD_M32 | FLD_M64 => (&[], false, 0, true),
            FST_M32 | FST_M64 | FCOM_M32 | FCOM_M64 => (&[0], false, 0, false),
            FSTP_M32 | FSTP_M64 | FCOMP_M32 | FCOMP_M64 => (&[0], false, 1, false),
            FLD_STI => (&[rm], false, 0, true),
            FXCH => (&[0, rm], false, 0, false),
            FST_STI => (&[0], true, 0, false),
            FSTP_STI => (&[0], true, 1, false),
            FCOMPP | FUCOMPP => (&[0, 1], false, 2, false),
            FNSTSW_AX | FSTSW_AX | TEST_R8 | SETCC_R8 | MOVZX_R8 | MOV_M32_R32 | MOV_R32_M32 => {
                (&[], false, 0, false)
            }
            k if is_arith_m(k) => (&[0], false, 0, false),
            k if (ARITH_ST0_STI..ARITH_ST0_STI + 6).contains(&k)
                || (ARITH_STI_ST0..ARITH_STI_ST0 + 6).contains(&k) =>
            {
                (&[0, rm], false, 0, false)
            }
            k if (ARITH_STIP_ST0..ARITH_STIP_ST0 + 6).contains(&k) => (&[0, rm], false, 1, false),
            _ => return None,
        };
        for &i in reads {
            read(i, &mut s)?;
        }
        if write {
            s[((d + rm) & 7) as usize] = Slot::Full;
        }
        for _ in 0..pops {
            s[(d & 7) as usize] = Slot::Empty;
            d = (d + 1) & 7;
        }
        if push {
            let t = d.wrapping_sub(1) & 7;
            match s[t as usize] {
                Slot::Unknown => empty |= 1 << t,
                Slot::Empty => {}
                Slot::Full => return None,
            }
            s[t as usize] = Slot::Full;
            d = t;
        }
    }
    Some((valid, empty))
}

/// Two tag bits per bit of an 8-bit slot mask.
const fn expand(m: u8) -> u16 {
    let mut r = 0u16;
    let mut k = 0;
    while k < 8 {
        if m & (1 << k) != 0 {
            r |= 3 << (2 * k);
        }
        k += 1;
    }
    r
}

static EXPAND: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = expand(m as u8);
        m += 1;
    }
    t
};

/// The burst's locals: TOP, the tag word, the status word (C1 maybe owed: `op`,
/// `a`, `b` as in `x87_fuse_exec`'s `S`), FDP.
#[derive(Clone, Copy)]
struct B {
    top: u8,
    tags: u16,
    sw: u16,
    op: u8,
    a: f64,
    b: f64,
    fdp: u32,
}

/// No C1 owed.
const NO_DEBT: u8 = 0xff;

impl B {
    #[inline(always)]
    fn pk(&self, i: u8) -> usize {
        ((self.top + i) & 7) as usize
    }

    #[inline(always)]
    fn push(&mut self) -> usize {
        self.top = self.top.wrapping_sub(1) & 7;
        self.tags &= !(3 << (2 * self.top));
        self.top as usize
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.tags |= 3 << (2 * self.top);
        self.top = (self.top + 1) & 7;
    }

    /// The status word with C1 paid.
    #[inline(always)]
    fn settled(&self) -> u16 {
        if self.op == NO_DEBT {
            self.sw
        } else {
            (self.sw & !C1) | ((owed_up(self.op, self.a, self.b) as u16) << 9)
        }
    }

    /// C1 cleared (the loads, stores and exchanges); any debt is void.
    #[inline(always)]
    fn c1_zero(&mut self) {
        self.sw &= !C1;
        self.op = NO_DEBT;
    }

    /// Writes the locals back to `cpu.fpu`, with FIP/FOP of the last instruction
    /// before `j` that records them (none: as at entry).
    #[inline(always)]
    fn put_back(&self, cpu: &mut Cpu, ops: &[Op], i: usize, j: usize) {
        let sw = self.settled();
        let f = &mut cpu.fpu;
        f.top = self.top;
        f.tags = self.tags;
        f.sw = sw;
        f.fdp = self.fdp;
        if let Some(o) = ops[i..j].iter().rev().find(|o| records_fip(o.size)) {
            f.fip = o.eip;
            f.fop = o.imm2 as u16;
        }
    }
}

/// Whether an instruction of kind `k` records FIP/FOP (the status stores and the
/// read-back do not).
#[inline(always)]
fn records_fip(k: u8) -> bool {
    !matches!(
        k,
        FNSTSW_AX | FSTSW_AX | TEST_R8 | SETCC_R8 | MOVZX_R8 | MOV_M32_R32 | MOV_R32_M32
    )
}

/// How the burst ended.
enum End {
    /// Every instruction ran.
    Done,
    /// Instruction `j` must run on the generic loop (nothing of it has happened).
    Bail(usize),
    /// Instruction `j` stored into decoded code (the store and everything it does
    /// happened).
    Code(usize),
}

/// The fused op of a burst-eligible run: the burst when its entry test holds, else
/// (or from the instruction where it bails) the generic loop.
pub fn fused_burst(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let end = i + o.r as usize;
    let f = &cpu.fpu;
    let valid = EXPAND[(o.imm >> 16) as u8 as usize];
    let empty = EXPAND[(o.imm >> 24) as usize];
    let rel = f.tags.rotate_right(2 * f.top as u32);
    // Exact images (`cpu::fpu`): none in a slot the run reads before writing it. The
    // slots it writes first lose theirs as the handlers' `put` drops them, so every
    // register the burst reads holds its whole value in `st`.
    let raw_read = f.raw.rotate_right(f.top as u32) & (o.imm >> 16) as u8;
    if f.sw & ES != 0 || !f.fast_cw() || raw_read != 0 || rel & valid != 0 || rel & empty != empty {
        return generic(cpu, ops, i, i, 0);
    }
    let mut b = B {
        top: f.top,
        tags: f.tags,
        sw: f.sw,
        op: NO_DEBT,
        a: 0.0,
        b: 0.0,
        fdp: f.fdp,
    };
    match burst(cpu, ops, i, end, &mut b).err().unwrap_or(End::Done) {
        End::Done => {
            b.put_back(cpu, ops, i, end);
            cpu.chain.x87_burst += (end - i) as u64;
            leave(cpu, i, end - 1, end - i, (end - i) as u64, Exit::Block);
            (ops[end].h)(cpu, ops, end)
        }
        End::Bail(j) => {
            b.put_back(cpu, ops, i, j);
            cpu.chain.x87_burst += (j - i) as u64;
            generic(cpu, ops, i, j, (j - i) as u64)
        }
        End::Code(j) => {
            b.put_back(cpu, ops, i, j + 1);
            cpu.chain.x87_burst += (j - i + 1) as u64;
            let e = op::code_written(cpu, ops, j);
            leave(cpu, i, j, j - i + 1, (j - i) as u64, e)
        }
    }
}

/// `dst OP src` on the handlers' fast path: with PE set, the value with its C1
/// owed; with PE clear, the value with PE and C1 from its exactness, as `arith`.
#[inline(always)]
fn arith<const OP: u8>(b: &mut B, dst: f64, src: f64) -> Option<f64> {
    let (base, x, y) = match OP {
        SUBR => (SUB, src, dst),
        DIVR => (DIV, src, dst),
        o => (o, dst, src),
    };
    if b.sw & PE != 0 {
        let r = fast_arith(base, x, y)?;
        b.op = base;
        b.a = x;
        b.b = y;
        Some(r)
    } else {
        let (r, inexact, up) = match base {
            ADD => x::fast::<ADD>(x, y),
            MUL => x::fast::<MUL>(x, y),
            SUB => x::fast::<SUB>(x, y),
            _ => x::fast::<DIV>(x, y),
        }?;
        b.sw = (b.sw & !C1) | (inexact as u16 * PE) | ((up as u16) << 9);
        b.op = NO_DEBT;
        Some(r)
    }
}

/// `ST(0) OP= m32/m64`.
#[inline(always)]
fn arith_m<const OP: u8, const M64: bool>(
    cpu: &mut Cpu,
    o: &Op,
    b: &mut B,
    j: usize,
) -> Result<(), End> {
    let ea = run_ea(cpu, o);
    let Ok(Some(src)) = fast_operand::<M64>(cpu, ea) else {
        return Err(End::Bail(j));
    };
    let t = b.pk(0);
    let Some(r) = arith::<OP>(b, cpu.fpu.st[t], src) else {
        return Err(End::Bail(j));
    };
    cpu.fpu.st[t] = r;
    b.fdp = ea;
    Ok(())
}

/// The register forms: `MODE` 0 `ST(0) OP= ST(i)`, 1 `ST(i) OP= ST(0)`, 2 the same
/// and pop.
#[inline(always)]
fn reg<const OP: u8, const MODE: u8>(
    cpu: &mut Cpu,
    o: &Op,
    b: &mut B,
    j: usize,
) -> Result<(), End> {
    let (d, s) = if MODE == 0 {
        (b.pk(0), b.pk(o.rm))
    } else {
        (b.pk(o.rm), b.pk(0))
    };
    let Some(r) = arith::<OP>(b, cpu.fpu.st[d], cpu.fpu.st[s]) else {
        return Err(End::Bail(j));
    };
    cpu.fpu.st[d] = r;
    if MODE == 2 {
        b.pop();
    }
    Ok(())
}

/// The C3 C2 C0 pattern of two ordered values.
#[inline(always)]
fn ordered(a: f64, b: f64) -> u16 {
    if a > b {
        0
    } else if a < b {
        C0
    } else {
        C3
    }
}

/// Runs instructions `i .. end` on the locals in `b`.
#[inline(always)]
fn burst(cpu: &mut Cpu, ops: &[Op], i: usize, end: usize, b: &mut B) -> Result<(), End> {
    // The value FNSTSW/FSTSW last stored in AX and the byte SETcc last stored, for
    // the read-back that follows (see `readback_regs`).
    let mut ax = 0u32;
    let mut set = (0xffu8, 0u32);
    let run = &ops[i..end];
    let mut d = 0;
    while d < run.len() {
        let (o, j) = (&run[d], i + d);
        let k = o.size;
        match k {
            FLD_M32 | FLD_M64 => {
                let ea = run_ea(cpu, o);
                let Ok(Some(v)) = (if k == FLD_M32 {
                    fast_operand::<false>(cpu, ea)
                } else {
                    fast_operand::<true>(cpu, ea)
                }) else {
                    return Err(End::Bail(j));
                };
                let t = b.push();
                cpu.fpu.st[t] = v;
                cpu.fpu.raw &= !(1 << t);
                b.fdp = ea;
                b.c1_zero();
            }
            FST_M64 | FSTP_M64 => {
                let v = cpu.fpu.st[b.pk(0)];
                let w = v.to_bits();
                if x::is_snan(v) || (w >> 52 & 0x7ff == 0 && w << 1 != 0) {
                    return Err(End::Bail(j));
                }
                let ea = run_ea(cpu, o);
                let Ok(wrote) = cpu.mem.write_u64(ea, w) else {
                    return Err(End::Bail(j));
                };
                b.fdp = ea;
                b.c1_zero();
                if k == FSTP_M64 {
                    b.pop();
                }
                if wrote == Wrote::Code {
                    return Err(End::Code(j));
                }
            }
            FST_M32 | FSTP_M32 => {
                // The fast control word is in force: nearest, every exception masked.
                let Some((bits, flags)) = x::m32_fast(cpu.fpu.st[b.pk(0)], true) else {
                    return Err(End::Bail(j));
                };
                let ea = run_ea(cpu, o);
                let Ok(wrote) = cpu.mem.write_u32(ea, bits) else {
                    return Err(End::Bail(j));
                };
                b.fdp = ea;
                b.sw = (b.sw & !C1) | flags;
                b.op = NO_DEBT;
                if k == FSTP_M32 {
                    b.pop();
                }
                if wrote == Wrote::Code {
                    return Err(End::Code(j));
                }
            }
            FLD_STI => {
                let v = cpu.fpu.st[b.pk(o.rm)];
                let t = b.push();
                cpu.fpu.st[t] = v;
                cpu.fpu.raw &= !(1 << t);
                b.c1_zero();
            }
            FXCH => {
                // Both were read: neither holds an image.
                let (p, q) = (b.pk(0), b.pk(o.rm));
                cpu.fpu.st.swap(p, q);
                b.c1_zero();
            }
            FST_STI | FSTP_STI => {
                let d = b.pk(o.rm);
                cpu.fpu.st[d] = cpu.fpu.st[b.pk(0)];
                cpu.fpu.raw &= !(1 << d);
                b.tags &= !(3 << (2 * d));
                b.c1_zero();
                if k == FSTP_STI {
                    b.pop();
                }
            }
            FCOM_M32 | FCOMP_M32 | FCOM_M64 | FCOMP_M64 => {
                let ea = run_ea(cpu, o);
                let Ok(Some(y)) = (if k <= FCOMP_M32 {
                    fast_operand::<false>(cpu, ea)
                } else {
                    fast_operand::<true>(cpu, ea)
                }) else {
                    return Err(End::Bail(j));
                };
                let v = cpu.fpu.st[b.pk(0)];
                if v.is_nan() {
                    return Err(End::Bail(j));
                }
                b.sw = (b.sw & !CC) | ordered(v, y);
                b.op = NO_DEBT;
                b.fdp = ea;
                if k == FCOMP_M32 || k == FCOMP_M64 {
                    b.pop();
                }
            }
            FCOMPP | FUCOMPP => {
                let (v, y) = (cpu.fpu.st[b.pk(0)], cpu.fpu.st[b.pk(1)]);
                if v.is_nan() || y.is_nan() {
                    return Err(End::Bail(j));
                }
                b.sw = (b.sw & !CC) | ordered(v, y);
                b.op = NO_DEBT;
                b.pop();
                b.pop();
            }
            FNSTSW_AX | FSTSW_AX => {
                let sw = b.settled();
                b.sw = sw;
                b.op = NO_DEBT;
                ax = ((sw & !0x3800) | ((b.top as u16) << 11)) as u32;
                cpu.set_r16(EAX as u8, ax);
            }
            MOV_M32_R32 => {
                let ea = run_ea(cpu, o);
                match cpu.mem.write_u32(ea, cpu.r32(o.r)) {
                    Ok(Wrote::Data) => {}
                    Ok(Wrote::Code) => return Err(End::Code(j)),
                    Err(_) => return Err(End::Bail(j)),
                }
            }
            MOV_R32_M32 => {
                let ea = run_ea(cpu, o);
                let Ok(v) = cpu.mem.read_u32(ea) else {
                    return Err(End::Bail(j));
                };
                cpu.set_r32(o.r, v);
            }
            TEST_R8 | SETCC_R8 | MOVZX_R8 => {
                let prev = if d > 0 { run[d - 1].size } else { CALL };
                readback_regs(cpu, o, k, prev, ax, &mut set);
            }
            16 => arith_m::<ADD, false>(cpu, o, b, j)?,
            17 => arith_m::<MUL, false>(cpu, o, b, j)?,
            18 => arith_m::<SUB, false>(cpu, o, b, j)?,
            19 => arith_m::<SUBR, false>(cpu, o, b, j)?,
            20 => arith_m::<DIV, false>(cpu, o, b, j)?,
            21 => arith_m::<DIVR, false>(cpu, o, b, j)?,
            24 => arith_m::<ADD, true>(cpu, o, b, j)?,
            25 => arith_m::<MUL, true>(cpu, o, b, j)?,
            26 => arith_m::<SUB, true>(cpu, o, b, j)?,
            27 => arith_m::<SUBR, true>(cpu, o, b, j)?,
            28 => arith_m::<DIV, true>(cpu, o, b, j)?,
            29 => arith_m::<DIVR, true>(cpu, o, b, j)?,
            32 => reg::<ADD, 0>(cpu, o, b, j)?,
            33 => reg::<MUL, 0>(cpu, o, b, j)?,
            34 => reg::<SUB, 0>(cpu, o, b, j)?,
            35 => reg::<SUBR, 0>(cpu, o, b, j)?,
            36 => reg::<DIV, 0>(cpu, o, b, j)?,
            37 => reg::<DIVR, 0>(cpu, o, b, j)?,
            40 => reg::<ADD, 1>(cpu, o, b, j)?,
            41 => reg::<MUL, 1>(cpu, o, b, j)?,
            42 => reg::<SUB, 1>(cpu, o, b, j)?,
            43 => reg::<SUBR, 1>(cpu, o, b, j)?,
            44 => reg::<DIV, 1>(cpu, o, b, j)?,
            45 => reg::<DIVR, 1>(cpu, o, b, j)?,
            48 => reg::<ADD, 2>(cpu, o, b, j)?,
            49 => reg::<MUL, 2>(cpu, o, b, j)?,
            50 => reg::<SUB, 2>(cpu, o, b, j)?,
            51 => reg::<SUBR, 2>(cpu, o, b, j)?,
            52 => reg::<DIV, 2>(cpu, o, b, j)?,
            53 => reg::<DIVR, 2>(cpu, o, b, j)?,
            // `plan` admits no other kind.
            _ => return Err(End::Bail(j)),
        }
        d += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::op::Op;

    fn op(rm: u8) -> Op {
        let mut o = Op::new(|_, _, _| Exit::Block, 0, 0);
        o.rm = rm;
        o
    }

    #[test]
    fn plan_of_the_pipeline() {
        // fld m; fmul m; fadd m; fld m; fmul st0,st1; fsub m; fxch st1; fstp m;
        // fadd m; fdiv m; fstp m: pushes into relative slots 7 and 6, reads nothing
        // it did not push.
        let kinds = [
            FLD_M64,
            ARITH_M64 + MUL,
            ARITH_M64 + ADD,
            FLD_M32,
            ARITH_ST0_STI + MUL,
            ARITH_M64 + SUB,
            FXCH,
            FSTP_M64,
            ARITH_M32 + ADD,
            ARITH_M64 + DIV,
            FSTP_M32,
        ];
        let rms = [0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0];
        let ops: Vec<Op> = rms.iter().map(|&r| op(r)).collect();
        assert_eq!(plan(&ops, &kinds), Some((0, 0b1100_0000)));
    }

    #[test]
    fn plan_reads_and_rejects() {
        let ops: Vec<Op> = (0..4).map(|_| op(1)).collect();
        // fadd st0, st1 reads two entry slots.
        assert_eq!(plan(&ops[..1], &[ARITH_ST0_STI]), Some((0b11, 0)));
        // fstp m; fstp m; fld m: pops 0 and 1, the push lands in emptied slot 1.
        assert_eq!(
            plan(&ops[..3], &[FSTP_M64, FSTP_M64, FLD_M64]),
            Some((0b11, 0))
        );
        // fstp m; fadd m: the new ST(0) is the slot below, read from the entry state.
        assert_eq!(plan(&ops[..2], &[FSTP_M64, ARITH_M64]), Some((0b11, 0)));
        // fstp m; fld st(7): reads the slot just emptied (an underflow).
        assert_eq!(plan(&[op(0), op(7)], &[FSTP_M64, FLD_STI]), None);
        // Eight pushes then a ninth: the ninth lands on a pushed slot (an overflow).
        let nine: Vec<Op> = (0..9).map(|_| op(0)).collect();
        assert_eq!(plan(&nine[..8], &[FLD_M64; 8]), Some((0, 0xff)));
        assert_eq!(plan(&nine, &[FLD_M64; 9]), None);
        // A handler-only instruction.
        assert_eq!(plan(&ops[..2], &[FLD_M64, CALL]), None);
    }

    #[test]
    fn expand_doubles_each_bit() {
        assert_eq!(EXPAND[0], 0);
        assert_eq!(EXPAND[0b1000_0001], 0xc003);
        assert_eq!(EXPAND[0xff], 0xffff);
    }
}
