//! The fused x87 op (see tiers/x87_fuse.rs): runs the run's instructions in order,
//! each by its inline kind or by its own handler.
//!
//! Inside a run TOP and the status word live in locals ([`S`]) instead of being
//! read and written back in `cpu.fpu` by every instruction (each such
//! read-modify-write is a store-to-load dependency the next instruction waits on;
//! TOP feeds every register index). They are written back ([`S::flush`]) before
//! anything else looks at `cpu.fpu`: a handler call, a cold path that runs the
//! handlers' helpers on `cpu.fpu` (and is read back afterwards), and every way out
//! of the run (its end, a fault, a pending exception, a store into code). The tag
//! word, the exact-image mask, FIP/FOP/FDP and the registers are written in
//! `cpu.fpu` directly, as the handlers write them (plain stores, or
//! read-modify-writes off the values' dependency chain); few locals keep the fused
//! op's registers unspilled.
//!
//! Exact images (`cpu::fpu`): the inline kinds that would read one — a register
//! move (FLD ST(i), FXCH, FST/FSTP ST(i)), a store to m32/m64, a compare — call the
//! instruction's handler instead; arithmetic reads `st` as the handlers do, and every
//! inline register write drops the image as `Fpu::put` does.
//!
//! Owed C1. With PE already set, PC 53 / RC nearest / every exception masked
//! (`Fpu::fast_cw`) and no denormal memory operand, an `+ - * /` whose operands take
//! the handlers' fast path (`fast_value` is Some exactly when `fast` is) changes
//! nothing in the status word but C1: PE is sticky and already set, and the fast
//! path raises nothing else. Its C1 ("rounded up", from TwoSum or a 128-bit
//! significand product) is then owed: the operation and operands are kept and C1
//! is derived by the handlers' `fast` only if the status word is read first —
//! FNSTSW/FSTSW, a flush. An instruction that overwrites C1 on its inline path
//! (every load, store, exchange, compare and the next such arithmetic) drops the
//! debt. PE can only be cleared by a handler (FNCLEX, FLDENV, ...), and every
//! handler call is preceded by a flush, so PE is still set when a debt is paid.

use super::x87_fuse::*;
use crate::cpu::flags::logic_cond;
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, EAX, Exit};
use crate::exec::op::{self, Op};
use crate::mem::{Fault, Wrote};
use crate::ops::alu::{TEST, alu};
use crate::ops::x87::{
    self as x, ADD, C0, C1, C2, C3, DE, DIV, DIVR, ES, F80, IE, INDEFINITE, MUL, PE, SUB, SUBR,
    apply80, fast, fast_value,
};

/// Ends the two-op slice a handler call runs in.
fn resume(_cpu: &mut Cpu, _ops: &[Op], _i: usize) -> Exit {
    Exit::Block
}

/// Charges the run's counters when it leaves at op `j` (`done`: instructions of the
/// run that retired) and returns `e`.
#[inline(always)]
pub(super) fn leave(cpu: &mut Cpu, i: usize, j: usize, done: usize, inline: u64, e: Exit) -> Exit {
    let ch = &mut cpu.chain;
    ch.x87_runs += 1;
    ch.x87_insns += done as u64;
    ch.x87_inline += inline;
    // The run loop counts ops `i..=j` as dispatched; only op `i` was.
    ch.x87_skipped += (j - i) as u64;
    e
}

/// No C1 owed.
const NO_DEBT: u8 = 0xff;

/// The run's x87 scalars (see the module doc).
#[derive(Clone, Copy)]
struct S {
    top: u8,
    sw: u16,
    /// Owed C1: the base operation (ADD MUL SUB DIV) and its operands, or
    /// [`NO_DEBT`].
    op: u8,
    a: f64,
    b: f64,
}

impl S {
    #[inline(always)]
    fn load(f: &Fpu) -> S {
        S {
            top: f.top,
            sw: f.sw,
            op: NO_DEBT,
            a: 0.0,
            b: 0.0,
        }
    }

    /// `Fpu::pk`.
    #[inline(always)]
    fn pk(&self, i: u8) -> usize {
        ((self.top + i) & 7) as usize
    }

    /// `Fpu::pop`.
    #[inline(always)]
    fn pop(&mut self, f: &mut Fpu) {
        f.tags |= 3 << (2 * (self.top & 7));
        self.top = (self.top + 1) & 7;
    }

    /// C1 written by the instruction at hand: any debt is void.
    #[inline(always)]
    fn set_c1(&mut self, sw: u16) {
        self.sw = sw;
        self.op = NO_DEBT;
    }

    /// Pays an owed C1.
    #[inline(always)]
    fn settle(&mut self) {
        if self.op != NO_DEBT {
            let up = owed_up(self.op, self.a, self.b);
            self.sw = (self.sw & !C1) | ((up as u16) << 9);
            self.op = NO_DEBT;
        }
    }

    /// The status word with TOP, as FNSTSW stores it.
    #[inline(always)]
    fn status(&mut self) -> u16 {
        self.settle();
        (self.sw & !0x3800) | ((self.top as u16 & 7) << 11)
    }

    /// Writes the scalars back to `cpu.fpu`.
    #[inline(always)]
    fn flush(&mut self, cpu: &mut Cpu) {
        self.settle();
        cpu.fpu.top = self.top;
        cpu.fpu.sw = self.sw;
    }
}

/// C1 of an owed operation: what the handlers' `fast` derives.
#[inline(never)]
pub(super) fn owed_up(op: u8, a: f64, b: f64) -> bool {
    let r = match op {
        ADD => fast::<ADD>(a, b),
        MUL => fast::<MUL>(a, b),
        SUB => fast::<SUB>(a, b),
        _ => fast::<DIV>(a, b),
    };
    // `fast_value` was Some for these operands, so `fast` is too.
    r.is_some_and(|(_, _, up)| up)
}

/// The handlers' fast-path value of `a OP b` (OP in ADD MUL SUB DIV), None off it.
#[inline(always)]
pub(super) fn fast_arith(op: u8, a: f64, b: f64) -> Option<f64> {
    match op {
        ADD => fast_value::<ADD>(a, b),
        MUL => fast_value::<MUL>(a, b),
        SUB => fast_value::<SUB>(a, b),
        _ => fast_value::<DIV>(a, b),
    }
}

/// `ST(t) = dst OP src` (OP in ADD..DIVR, `ops::x87` numbering) on every path of the
/// handlers' `apply` + `put`; returns whether the result was stored (an unmasked
/// exception suppresses it). Only the fast paths are inline; everything else runs
/// out of line so the fused op's hot code stays small.
#[inline(always)]
fn arith_into<const OP: u8>(
    cpu: &mut Cpu,
    s: &mut S,
    t: usize,
    dst: f64,
    src: f64,
    de: bool,
    sr: usize,
) -> bool {
    // An operand register holding an exact image takes the handlers' 80-bit path.
    let regs = 1u16 << t | 1u16 << sr;
    if cpu.fpu.raw as u16 & regs != 0 {
        let (n, stored) = arith_cold(cpu, *s, OP, t, dst, src, de, sr);
        *s = n;
        return stored;
    }
    let (base, a, b) = match OP {
        SUBR => (SUB, src, dst),
        DIVR => (DIV, src, dst),
        o => (o, dst, src),
    };
    if !de && cpu.fpu.fast_cw() {
        if s.sw & PE != 0 {
            let v = match base {
                ADD => fast_value::<ADD>(a, b),
                MUL => fast_value::<MUL>(a, b),
                SUB => fast_value::<SUB>(a, b),
                _ => fast_value::<DIV>(a, b),
            };
            if let Some(r) = v {
                cpu.fpu.put(t, r);
                s.op = base;
                s.a = a;
                s.b = b;
                return true;
            }
        } else {
            // PE clear (exact results so far): the handlers' fast path, whose
            // exactness information sets PE and C1 now.
            let v = match base {
                ADD => fast::<ADD>(a, b),
                MUL => fast::<MUL>(a, b),
                SUB => fast::<SUB>(a, b),
                _ => fast::<DIV>(a, b),
            };
            if let Some((r, inexact, up)) = v {
                s.set_c1((s.sw & !C1) | (inexact as u16 * PE) | ((up as u16) << 9));
                cpu.fpu.put(t, r);
                return true;
            }
        }
    }
    let (n, stored) = arith_cold(cpu, *s, OP, t, dst, src, de, sr);
    *s = n;
    stored
}

/// [`arith_into`] off its fast paths: the handlers' own arithmetic (`apply80`, the
/// 80-bit soft-float, whose results are the fast path's where that applies) on
/// `cpu.fpu`, after a flush; `dst` is register `t`'s value and `src` register
/// `sr`'s (`sr` 8: a memory operand), each read as its exact image if it has one.
/// Returns the reloaded scalars.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn arith_cold(
    cpu: &mut Cpu,
    mut s: S,
    op: u8,
    t: usize,
    dst: f64,
    src: f64,
    de: bool,
    sr: usize,
) -> (S, bool) {
    s.flush(cpu);
    let f = &mut cpu.fpu;
    let a = if f.is_raw(t) {
        f.f80(t)
    } else {
        F80::from_f64(dst)
    };
    let b = if sr < 8 && f.is_raw(sr) {
        f.f80(sr)
    } else {
        F80::from_f64(src)
    };
    let stored = apply80(f, op, t, a, b, de);
    (S::load(f), stored)
}

/// What one instruction of the run did.
enum Step {
    /// Ran inline.
    Inline,
    /// Ran inline through a cold path on `cpu.fpu` (the scalars were flushed and
    /// reloaded).
    Cold,
    /// Must run through its own handler.
    Call,
    /// Left the block (fault, pending exception, store into code).
    Leave(Exit),
}

/// Fraction bits of an f64.
const FRAC: u64 = (1 << 52) - 1;

/// The fused op: instructions `i .. i + ops[i].r`, then the op after the run.
pub fn fused(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    generic_body(cpu, ops, i, i, 0)
}

/// The fused op of a run made of chains ([`chain_len`]; each chain's length in its
/// first op's `Op::x`), maybe joined by integer moves ([`MOV_M32_R32`],
/// [`MOV_R32_M32`]): each chain, then (only when an instruction left a chain's
/// fast path) the generic loop for the rest. A separate handler so runs without a
/// chain keep [`fused`]'s smaller frame.
///
/// A chain that popped its value leaves the stack as it found it, so the next
/// chain pushes into the same empty register under the same control word with no
/// exception pending: its entry test is known to pass, and the state stays in
/// locals ([`Ch`]) across the moves between them, written back once.
pub fn fused_chain(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let end = i + ops[i].r as usize;
    let mut j = i;
    // A run starts with a chain. `c` holds the state in locals while `carried`.
    let mut c = match Ch::enter(&cpu.fpu) {
        Some(c) => c,
        None => return generic(cpu, ops, i, i, 0),
    };
    let mut carried = false;
    let mut fresh = true;
    while j < end {
        let o = &ops[j];
        if o.size >= MOV_M32_R32 {
            if let Err(m) = int_move(cpu, o) {
                if carried {
                    c.put_back(cpu, &ops[c.last]);
                }
                let e = match m {
                    Moved::Code => op::code_written(cpu, ops, j),
                    Moved::Fault(f) => op::fault(cpu, ops, j, f),
                };
                let done = j - i + (e == Exit::CodeWrite) as usize;
                return leave(cpu, i, j, done, (j - i) as u64, e);
            }
            j += 1;
            continue;
        }
        let n = o.x as usize;
        if !carried && !fresh {
            match Ch::enter(&cpu.fpu) {
                Some(e) => c = e,
                None => return generic(cpu, ops, i, j, (j - i) as u64),
            }
        }
        fresh = false;
        match chain(cpu, ops, j, n, &mut c) {
            Chain::Popped => {
                carried = true;
                j += n;
            }
            Chain::At(m) if m == j + n => {
                carried = false;
                j = m
            }
            Chain::At(m) => return generic(cpu, ops, i, m, (m - i) as u64),
            Chain::Leave(m, done, e) => return leave(cpu, i, m, done + (j - i), (m - i) as u64, e),
        }
    }
    if carried {
        c.put_back(cpu, &ops[c.last]);
    }
    leave(cpu, i, end - 1, end - i, (end - i) as u64, Exit::Block);
    (ops[end].h)(cpu, ops, end)
}

/// The effective address of an inline kind's memory operand: `cpu.ea`, without
/// the index term and the address-size mask when the decoder found no index
/// register and 32-bit addressing ([`BASE_DISP`] in `Op::rm`).
#[inline(always)]
pub(super) fn run_ea(cpu: &Cpu, o: &Op) -> u32 {
    if o.rm & BASE_DISP != 0 {
        o.disp
            .wrapping_add(cpu.regs[(o.base & 15) as usize])
            .wrapping_add(cpu.seg_base[(o.seg & 7) as usize])
    } else {
        cpu.ea(o)
    }
}

/// Why an integer move inside a run ended the block.
pub(super) enum Moved {
    /// It stored into decoded code (the store happened).
    Code,
    /// Its operand faulted (nothing happened).
    Fault(Fault),
}

/// An integer move inside a run, as `ops::alu`'s `mov_rm::<32>` / `mov_mr::<32>`
/// (the caller raises the fault or ends the block after a store into code).
#[inline(always)]
pub(super) fn int_move(cpu: &mut Cpu, o: &Op) -> Result<(), Moved> {
    let ea = run_ea(cpu, o);
    if o.size == MOV_R32_M32 {
        match cpu.mem.read_u32(ea) {
            Ok(v) => cpu.set_r32(o.r, v),
            Err(f) => return Err(Moved::Fault(f)),
        }
    } else {
        match cpu.mem.write_u32(ea, cpu.r32(o.r)) {
            Ok(Wrote::Data) => {}
            Ok(Wrote::Code) => return Err(Moved::Code),
            Err(f) => return Err(Moved::Fault(f)),
        }
    }
    Ok(())
}

/// How a chain ended.
enum Chain {
    /// Instructions before `j` retired, `cpu.fpu` holds their state exactly; the
    /// run goes on at `j` (the end of the chain, or an instruction the chain's fast
    /// path does not cover, which the generic loop runs).
    At(usize),
    /// Instruction `j` left the block (fault or store into code; `done` of the
    /// run's instructions retired).
    Leave(usize, usize, Exit),
    /// Every instruction retired and the value was popped: the state is still in
    /// the locals (not written back).
    Popped,
}

/// No instruction done yet ([`Ch::last`]).
const NONE_DONE: usize = usize::MAX;

/// A chain in progress: the value pushed by its FLD (physical register `t`),
/// whether it is still on the stack, the status word and an owed C1 (as in [`S`]),
/// and the FDP of the last instruction done.
#[derive(Clone, Copy)]
struct Ch {
    t: usize,
    v: f64,
    live: bool,
    s: S,
    fdp: u32,
    /// The op whose FIP/FOP a write-back records when the current chain has done
    /// nothing yet: the last instruction of the chain before it, whose state this
    /// is ([`NONE_DONE`]: none, the state is `cpu.fpu`'s).
    last: usize,
}

impl Ch {
    /// The state at a chain's entry, when the chain's fast path may run; None with
    /// an exception pending, another control word, or the register its FLD pushes
    /// into not empty.
    #[inline(always)]
    fn enter(f: &Fpu) -> Option<Ch> {
        let t = (f.top.wrapping_sub(1) & 7) as usize;
        if f.sw & ES != 0 || !f.fast_cw() || !f.is_empty(t) {
            return None;
        }
        Some(Ch {
            t,
            v: 0.0,
            live: true,
            s: S::load(f),
            fdp: f.fdp,
            last: NONE_DONE,
        })
    }

    /// Writes back the state before instruction `j` of the chain starting at `i`.
    #[inline(always)]
    fn put_back_before(&self, cpu: &mut Cpu, ops: &[Op], i: usize, j: usize) {
        let last = if j > i { j - 1 } else { self.last };
        if last != NONE_DONE {
            self.put_back(cpu, &ops[last]);
        }
    }

    /// Writes the state after instruction `last` of the chain into `cpu.fpu`:
    /// register `t` holds the value (tagged valid while pushed; a pop only empties
    /// the tag, which was empty at entry), TOP, status (paying an owed C1), and
    /// FIP/FOP/FDP of `last`.
    #[inline(always)]
    fn put_back(&self, cpu: &mut Cpu, last: &Op) {
        let f = &mut cpu.fpu;
        f.st[self.t] = self.v;
        f.raw &= !(1 << self.t);
        if self.live {
            f.tags &= !(3 << (2 * self.t));
        }
        f.fip = last.eip;
        f.fop = last.imm2 as u16;
        f.fdp = self.fdp;
        // TOP: `t` while the value is pushed, back at the entry's after the pop.
        let mut s = self.s;
        s.top = if self.live {
            self.t as u8
        } else {
            (self.t as u8 + 1) & 7
        };
        s.flush(cpu);
    }

    /// Instruction `j`'s memory operand faulted: the state after `j - 1`, then what
    /// the generic loop does (FIP/FOP of `j` recorded by `wait!`, the fault raised).
    #[cold]
    #[inline(never)]
    fn fault(&self, cpu: &mut Cpu, ops: &[Op], i: usize, j: usize, f: Fault) -> Chain {
        self.put_back_before(cpu, ops, i, j);
        cpu.fpu.fip = ops[j].eip;
        cpu.fpu.fop = ops[j].imm2 as u16;
        Chain::Leave(j, j - i, op::fault(cpu, ops, j, f))
    }

    /// Instruction `j` needs a path the chain does not copy: the state after `j - 1`
    /// and the generic loop goes on at `j`.
    #[cold]
    #[inline(never)]
    fn bail(&self, cpu: &mut Cpu, ops: &[Op], i: usize, j: usize) -> Chain {
        self.put_back_before(cpu, ops, i, j);
        Chain::At(j)
    }
}

/// Runs the chain of `n` instructions the run at `i` starts with
/// ([`chain_len`]): FLD m32/m64, `ST(0) op= m` ..., FSTP m / FCOMP m [FNSTSW AX].
/// Under the fast control word with no exception pending and the register FLD
/// pushes into empty, each instruction is its handler's fast path with the value
/// kept in a local instead of `cpu.fpu.st`, its tag, TOP and FIP/FOP/FDP written
/// once at the end. Anything else (an operand off the fast path, a fault) writes
/// back the state after the previous instruction first, so the generic loop and
/// the fault see exactly what the handlers would have left.
#[inline(always)]
fn chain(cpu: &mut Cpu, ops: &[Op], i: usize, n: usize, c: &mut Ch) -> Chain {
    let t = c.t;
    // FLD m32/m64 (`wait!` found nothing pending: ES is clear), with
    // `fast_operand`'s test written out: through the helper this first load cost
    // the island 12 host instructions more per iteration (callgrind).
    let o = &ops[i];
    let ea = run_ea(cpu, o);
    if o.size == FLD_M32 {
        let b = match cpu.mem.read_u32(ea) {
            Ok(b) => b,
            Err(f) => return c.fault(cpu, ops, i, i, f),
        };
        if !(((b >> 23) & 0xff).wrapping_sub(1) < 0xfe || b << 1 == 0) {
            return c.bail(cpu, ops, i, i);
        }
        c.v = f32::from_bits(b) as f64;
    } else {
        let b = match cpu.mem.read_u64(ea) {
            Ok(b) => b,
            Err(f) => return c.fault(cpu, ops, i, i, f),
        };
        if !(((b >> 52) & 0x7ff).wrapping_sub(1) < 0x7fe || b << 1 == 0) {
            return c.bail(cpu, ops, i, i);
        }
        c.v = f64::from_bits(b);
    }
    c.live = true;
    c.fdp = ea;
    c.s.set_c1(c.s.sw & !C1);
    let run = &ops[i..i + n];
    // The arithmetic steps (a chain's kinds in order: FLD, arithmetic, terminal).
    let mut d = 1;
    while d < n && run[d].size >= ARITH_M32 && run[d].size < ARITH_M64 + 6 {
        let o = &run[d];
        let (j, k) = (i + d, o.size);
        let ea = run_ea(cpu, o);
        let src = match if k < ARITH_M64 {
            fast_operand::<false>(cpu, ea)
        } else {
            fast_operand::<true>(cpu, ea)
        } {
            Ok(Some(v)) => v,
            Ok(None) => return c.bail(cpu, ops, i, j),
            Err(f) => return c.fault(cpu, ops, i, j, f),
        };
        let r = match k & 7 {
            ADD => chain_arith::<ADD>(&mut c.s, c.v, src),
            // Both factors have at most 24 significant bits (`narrow_products`) and
            // are normal or zero: the product is exact and in the normal range (or
            // zero), which is what the handlers' `fast` finds for it: no PE, C1
            // clear.
            MUL if o.rm & NARROW_PRODUCT != 0 => {
                c.s.set_c1(c.s.sw & !C1);
                Some(c.v * src)
            }
            MUL => chain_arith::<MUL>(&mut c.s, c.v, src),
            SUB => chain_arith::<SUB>(&mut c.s, c.v, src),
            SUBR => chain_arith::<SUBR>(&mut c.s, c.v, src),
            DIV => chain_arith::<DIV>(&mut c.s, c.v, src),
            _ => chain_arith::<DIVR>(&mut c.s, c.v, src),
        };
        match r {
            Some(r) => c.v = r,
            None => return c.bail(cpu, ops, i, j),
        }
        c.fdp = ea;
        d += 1;
    }
    // The terminal: FSTP m32/m64 or FCOMP m32/m64 (then maybe FNSTSW AX).
    if d < n {
        let o = &run[d];
        let (j, k) = (i + d, o.size);
        let ea = run_ea(cpu, o);
        match k {
            FSTP_M32 => {
                let Some((bits, flags)) = x::m32_fast(c.v, true) else {
                    return c.bail(cpu, ops, i, j);
                };
                let w = match cpu.mem.write_u32(ea, bits) {
                    Ok(w) => w,
                    Err(f) => return c.fault(cpu, ops, i, j, f),
                };
                c.s.set_c1((c.s.sw & !C1) | flags);
                c.fdp = ea;
                c.live = false;
                if w == Wrote::Code {
                    return chain_code(cpu, ops, i, j, *c);
                }
            }
            FSTP_M64 => {
                let b = c.v.to_bits();
                if x::is_snan(c.v) || (b >> 52 & 0x7ff == 0 && b << 1 != 0) {
                    return c.bail(cpu, ops, i, j);
                }
                let w = match cpu.mem.write_u64(ea, b) {
                    Ok(w) => w,
                    Err(f) => return c.fault(cpu, ops, i, j, f),
                };
                c.s.set_c1(c.s.sw & !C1);
                c.fdp = ea;
                c.live = false;
                if w == Wrote::Code {
                    return chain_code(cpu, ops, i, j, *c);
                }
            }
            FCOMP_M32 | FCOMP_M64 => {
                let b = match if k == FCOMP_M32 {
                    fast_operand::<false>(cpu, ea)
                } else {
                    fast_operand::<true>(cpu, ea)
                } {
                    Ok(Some(v)) => v,
                    Ok(None) => return c.bail(cpu, ops, i, j),
                    Err(f) => return c.fault(cpu, ops, i, j, f),
                };
                c.s.set_c1((c.s.sw & !x::CC) | ordered(c.v, b));
                c.fdp = ea;
                c.live = false;
            }
            // `chain_len` admits no other terminal.
            _ => return c.bail(cpu, ops, i, j),
        }
        if d + 1 < n {
            // FNSTSW AX after FCOMP: the pop is done, TOP is the entry's.
            let top = (t as u8 + 1) & 7;
            let v = (c.s.sw & !0x3800) | ((top as u16) << 11);
            cpu.set_r16(EAX as u8, v as u32);
            // Then the read-back: `test r8, imm8` and SETcc r8, as their handlers
            // (the SETcc's condition taken from the TEST's result directly).
            if d + 2 < n {
                let res = test_r8(cpu, &run[d + 2], v as u32);
                if d + 3 < n {
                    let o = &run[d + 3];
                    let v = logic_cond(o.x, res, 8) as u32;
                    cpu.set_r8(o.rm, v);
                    if d + 4 < n {
                        movzx_r8(cpu, &run[d + 4], o.rm, v);
                    }
                }
            }
        }
    }
    // FNSTSW and the read-back record no FIP/FOP: the last instruction that did is
    // the terminal, or the last arithmetic step of a chain without one.
    let last = i + d.min(n - 1);
    if !c.live {
        c.last = last;
        return Chain::Popped;
    }
    c.put_back(cpu, &ops[last]);
    Chain::At(i + n)
}

/// An m32/m64 operand for the chain's and the burst's fast paths: Some when it is a
/// normal number or zero (the value exact as a double); None for a denormal, an
/// infinity or a NaN, which they leave to the generic loop (the handlers take their
/// slow path for all of those but an infinity met by a compare or a divide; the
/// generic loop runs those exactly as the handlers do).
#[inline(always)]
pub(super) fn fast_operand<const M64: bool>(cpu: &Cpu, ea: u32) -> Result<Option<f64>, Fault> {
    if M64 {
        let b = cpu.mem.read_u64(ea)?;
        let normal_or_zero = ((b >> 52) & 0x7ff).wrapping_sub(1) < 0x7fe || b << 1 == 0;
        Ok(normal_or_zero.then(|| f64::from_bits(b)))
    } else {
        let b = cpu.mem.read_u32(ea)?;
        let normal_or_zero = ((b >> 23) & 0xff).wrapping_sub(1) < 0xfe || b << 1 == 0;
        Ok(normal_or_zero.then(|| f32::from_bits(b) as f64))
    }
}

/// `test r8, imm8` as `ops::alu`'s `alu_ri::<TEST, 8>` (flags only), with `ax` the
/// value of AX. AL and AH come from it rather than from `cpu.regs`: FNSTSW has just
/// stored AX there with a 16-bit store, and reading the 32-bit register back before
/// that store retires stalls store-to-load forwarding (measured: the stall cost
/// more than the dispatch the fusion saves).
/// Returns the result (`a & imm`).
#[inline(always)]
fn test_r8(cpu: &mut Cpu, o: &Op, ax: u32) -> u32 {
    let a = match o.r {
        0 => ax & 0xff,
        4 => (ax >> 8) & 0xff,
        r => cpu.reg(8, r),
    };
    alu::<TEST, 8>(&mut cpu.flags, a, o.imm)
}

/// SETcc r8 as `ops::bits`'s `setcc_r` (condition number in `Op::x`); returns the
/// byte stored.
#[inline(always)]
fn setcc_r8(cpu: &mut Cpu, o: &Op) -> u32 {
    let v = cpu.flags.cond(o.x) as u32;
    cpu.set_r8(o.rm, v);
    v
}

/// `movzx r32, r8` as `ops::alu`'s `movx_rr::<8, false, 32>`, where register `set`
/// was just stored with the byte `v` (by a byte store, which a 32-bit read of the
/// register would wait for, as in [`test_r8`]).
#[inline(always)]
fn movzx_r8(cpu: &mut Cpu, o: &Op, set: u8, v: u32) {
    let b = if o.rm == set { v } else { cpu.reg(8, o.rm) };
    cpu.set_r32(o.r, b);
}

/// The read-back kind `k` (TEST_R8, SETCC_R8, MOVZX_R8) after an instruction of
/// kind `prev`: AL/AH from `ax` when `prev` stored the status word there, the
/// MOVZX source from `set` (register, byte) when `prev` was the SETcc, as in
/// [`test_r8`] and [`movzx_r8`]; a SETcc records its byte in `set`.
#[inline(always)]
pub(super) fn readback_regs(cpu: &mut Cpu, o: &Op, k: u8, prev: u8, ax: u32, set: &mut (u8, u32)) {
    match k {
        TEST_R8 => {
            let ax = if matches!(prev, FNSTSW_AX | FSTSW_AX) {
                ax
            } else {
                cpu.regs[EAX] & 0xffff
            };
            test_r8(cpu, o, ax);
        }
        SETCC_R8 => *set = (o.rm, setcc_r8(cpu, o)),
        _ => {
            let (r, v) = if prev == SETCC_R8 {
                *set
            } else {
                (o.rm, cpu.reg(8, o.rm))
            };
            movzx_r8(cpu, o, r, v);
        }
    }
}

/// A chain's store at `j` hit decoded code: the state after it, and the block
/// ends after the store.
#[cold]
#[inline(never)]
fn chain_code(cpu: &mut Cpu, ops: &[Op], i: usize, j: usize, c: Ch) -> Chain {
    c.put_back(cpu, &ops[j]);
    Chain::Leave(j, j - i + 1, op::code_written(cpu, ops, j))
}

/// `dst OP src` on the handlers' fast path under the fast control word (the
/// caller checked it and that the memory operand is not a denormal): the status
/// word as `arith` leaves it, or an owed C1 when PE is already set (see [`S`]).
/// None: the handlers would take their slow path.
#[inline(always)]
fn chain_arith<const OP: u8>(s: &mut S, dst: f64, src: f64) -> Option<f64> {
    let (base, a, b) = match OP {
        SUBR => (SUB, src, dst),
        DIVR => (DIV, src, dst),
        o => (o, dst, src),
    };
    if s.sw & PE != 0 {
        let r = match base {
            ADD => fast_value::<ADD>(a, b),
            MUL => fast_value::<MUL>(a, b),
            SUB => fast_value::<SUB>(a, b),
            _ => fast_value::<DIV>(a, b),
        }?;
        s.op = base;
        s.a = a;
        s.b = b;
        Some(r)
    } else {
        let (r, inexact, up) = match base {
            ADD => fast::<ADD>(a, b),
            MUL => fast::<MUL>(a, b),
            SUB => fast::<SUB>(a, b),
            _ => fast::<DIV>(a, b),
        }?;
        s.set_c1((s.sw & !C1) | (inexact as u16 * PE) | ((up as u16) << 9));
        Some(r)
    }
}

/// [`generic_body`] out of line, for a chain that left its fast path.
#[cold]
#[inline(never)]
pub(super) fn generic(cpu: &mut Cpu, ops: &[Op], i: usize, j0: usize, inline: u64) -> Exit {
    generic_body(cpu, ops, i, j0, inline)
}

/// The generic loop: instructions `j0 .. end` of the run at `i` (those before
/// `j0` retired, `inline` of them inline), then the op after the run.
#[inline(always)]
fn generic_body(cpu: &mut Cpu, ops: &[Op], i: usize, j0: usize, mut inline: u64) -> Exit {
    let end = i + ops[i].r as usize;
    // With every exception masked and none pending, no inline kind can set ES (only
    // an unmasked flag does), so the per-instruction ES test is known false until a
    // handler call, which may load a control word or an environment.
    let quiet_now = |f: &Fpu| f.sw & ES == 0 && f.cw & 0x3f == 0x3f;
    let mut quiet = quiet_now(&cpu.fpu);
    let mut s = S::load(&cpu.fpu);
    for j in j0..end {
        match step(cpu, ops, j, &mut s, quiet) {
            Step::Inline => inline += 1,
            Step::Cold => {
                inline += 1;
                quiet = quiet_now(&cpu.fpu);
            }
            Step::Call => {
                s.flush(cpu);
                let r = call(cpu, ops, i, j);
                s = S::load(&cpu.fpu);
                quiet = quiet_now(&cpu.fpu);
                if let Some(e) = r {
                    let done = j - i + (e == Exit::CodeWrite) as usize;
                    return leave(cpu, i, j, done, inline, e);
                }
            }
            Step::Leave(e) => {
                s.flush(cpu);
                let done = j - i + (e == Exit::CodeWrite) as usize;
                return leave(cpu, i, j, done, inline, e);
            }
        }
    }
    s.flush(cpu);
    leave(cpu, i, end - 1, end - i, inline, Exit::Block);
    (ops[end].h)(cpu, ops, end)
}

/// Calls instruction `j`'s own handler (the first op as lowered, from its slot); Some(exit)
/// when it left the block.
#[inline(never)]
fn call(cpu: &mut Cpu, ops: &[Op], i: usize, j: usize) -> Option<Exit> {
    let mut o = ops[j];
    if j == i {
        match lowered(o.imm & super::x87_burst::SLOT_MASK) {
            Some(l) => l.restore(&mut o),
            // Only a poisoned slot table gets here; the instruction is reported.
            None => return Some(op::unimplemented(cpu, ops, j)),
        }
    }
    let pair = [o, Op::new(resume, o.next, o.next)];
    match (o.h)(cpu, &pair, 0) {
        Exit::Block => None,
        Exit::Fault => {
            // `pending` already names this instruction (the copy's eip).
            cpu.exit_at = j;
            Some(Exit::Fault)
        }
        Exit::CodeWrite => {
            cpu.exit_at = j;
            Some(Exit::CodeWrite)
        }
        #[cfg(feature = "dispatch-loop")]
        Exit::Next => None,
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

/// Reads an m32/m64 operand as the handlers' `load_src` does: (value, denormal).
#[inline(always)]
fn load_src<const M64: bool>(cpu: &Cpu, ea: u32) -> Result<(f64, bool), Fault> {
    if M64 {
        cpu.mem.read_u64(ea).map(|b| {
            let de = (b >> 52) & 0x7ff == 0 && b & FRAC != 0;
            (f64::from_bits(b), de)
        })
    } else {
        cpu.mem.read_u32(ea).map(|b| {
            let de = (b >> 23) & 0xff == 0 && b & 0x7f_ffff != 0;
            (x::f32_bits_to_f64(b), de)
        })
    }
}

/// The handlers' `arith_m`: `ST(0) = ST(0) OP m` (`M64`: an m64 operand, else m32).
#[inline(always)]
fn arith_m<const OP: u8, const M64: bool>(cpu: &mut Cpu, ops: &[Op], j: usize, s: &mut S) -> Step {
    let ea = run_ea(cpu, &ops[j]);
    let (src, de) = match load_src::<M64>(cpu, ea) {
        Ok(v) => v,
        Err(f) => return fault(cpu, ops, j, f),
    };
    cpu.fpu.fdp = ea;
    let t = s.pk(0);
    if cpu.fpu.is_empty(t) {
        s.flush(cpu);
        underflow_put(&mut cpu.fpu, t);
        *s = S::load(&cpu.fpu);
        return Step::Cold;
    }
    let dst = cpu.fpu.st[t];
    if arith_into::<OP>(cpu, s, t, dst, src, de, 8) {
        Step::Inline
    } else {
        Step::Cold
    }
}

/// The stack-underflow response of an instruction whose destination is register
/// `t`: masked, it becomes the indefinite.
#[cold]
#[inline(never)]
fn underflow_put(f: &mut Fpu, t: usize) {
    if !f.underflow() {
        f.put(t, INDEFINITE);
    }
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

/// The C3 C2 C0 pattern of two ordered values (no exception possible).
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

/// The handlers' compare of ST(`n0`) with `b` on `cpu.fpu`, then `pops` pops unless
/// an unmasked exception stopped them (empty operands, NaNs, a denormal operand).
#[cold]
#[inline(never)]
fn compare_cold(f: &mut Fpu, b: Option<f64>, unordered: bool, de: bool, pops: u8) {
    let k0 = f.pk(0);
    let (c, stop) = match b {
        Some(b) if !f.is_empty(k0) => compare(f, f.st[k0], b, unordered, de),
        Some(_) => (C3 | C2 | C0, f.underflow()),
        None => {
            let k1 = f.pk(1);
            if f.is_empty(k0) || f.is_empty(k1) {
                (C3 | C2 | C0, f.underflow())
            } else {
                compare(f, f.st[k0], f.st[k1], unordered, false)
            }
        }
    };
    f.sw = (f.sw & !x::CC) | c;
    if !stop {
        for _ in 0..pops {
            f.pop();
        }
    }
}

/// The handlers' `fcom_m`: FCOM/FCOMP m32/m64.
#[inline(always)]
fn fcom_m<const POP: bool, const M64: bool>(
    cpu: &mut Cpu,
    ops: &[Op],
    j: usize,
    s: &mut S,
) -> Step {
    // An exact image compares exactly: the handler's path.
    if cpu.fpu.is_raw(s.pk(0)) {
        return Step::Call;
    }
    let ea = run_ea(cpu, &ops[j]);
    let (b, de) = match load_src::<M64>(cpu, ea) {
        Ok(v) => v,
        Err(f) => return fault(cpu, ops, j, f),
    };
    cpu.fpu.fdp = ea;
    let k = s.pk(0);
    let a = cpu.fpu.st[k];
    if cpu.fpu.is_empty(k) || de || a.is_nan() || b.is_nan() {
        s.flush(cpu);
        compare_cold(&mut cpu.fpu, Some(b), false, de, POP as u8);
        *s = S::load(&cpu.fpu);
        return Step::Cold;
    }
    s.set_c1((s.sw & !x::CC) | ordered(a, b));
    if POP {
        s.pop(&mut cpu.fpu);
    }
    Step::Inline
}

/// The handlers' `fcom_sti::<2, U>`: FCOMPP and FUCOMPP.
#[inline(always)]
fn fcompp<const U: bool>(cpu: &mut Cpu, s: &mut S) -> Step {
    let (k0, k1) = (s.pk(0), s.pk(1));
    if cpu.fpu.raw & (1 << k0 | 1 << k1) != 0 {
        return Step::Call;
    }
    let (a, b) = (cpu.fpu.st[k0], cpu.fpu.st[k1]);
    if cpu.fpu.is_empty(k0) || cpu.fpu.is_empty(k1) || a.is_nan() || b.is_nan() {
        s.flush(cpu);
        compare_cold(&mut cpu.fpu, None, U, false, 2);
        *s = S::load(&cpu.fpu);
        return Step::Cold;
    }
    s.set_c1((s.sw & !x::CC) | ordered(a, b));
    s.pop(&mut cpu.fpu);
    s.pop(&mut cpu.fpu);
    Step::Inline
}

/// The handlers' `reg_op` with empty operands: the underflow response.
#[cold]
#[inline(never)]
fn reg_underflow(f: &mut Fpu, d: usize, pop: bool) {
    if !f.underflow() {
        f.put(d, INDEFINITE);
        if pop {
            f.pop();
        }
    }
}

/// The register forms: `MODE` 0 `ST(0) OP= ST(i)`, 1 `ST(i) OP= ST(0)`, 2 the same
/// and pop.
#[inline(always)]
fn reg<const OP: u8, const MODE: u8>(cpu: &mut Cpu, ops: &[Op], j: usize, s: &mut S) -> Step {
    let o = &ops[j];
    let (d, r) = if MODE == 0 {
        (s.pk(0), s.pk(o.rm))
    } else {
        (s.pk(o.rm), s.pk(0))
    };
    if cpu.fpu.is_empty(d) || cpu.fpu.is_empty(r) {
        s.flush(cpu);
        reg_underflow(&mut cpu.fpu, d, MODE == 2);
        *s = S::load(&cpu.fpu);
        return Step::Cold;
    }
    let (dst, src) = (cpu.fpu.st[d], cpu.fpu.st[r]);
    if arith_into::<OP>(cpu, s, d, dst, src, false, r) {
        if MODE == 2 {
            s.pop(&mut cpu.fpu);
        }
        Step::Inline
    } else {
        Step::Cold
    }
}

/// The read-back kinds in the generic loop (only after a chain left its fast
/// path), out of line: they touch no x87 state.
#[cold]
#[inline(never)]
fn readback(cpu: &mut Cpu, ops: &[Op], j: usize, k: u8) -> Step {
    let o = &ops[j];
    match k {
        MOV_M32_R32 | MOV_R32_M32 => match int_move(cpu, o) {
            Ok(()) => {}
            Err(Moved::Code) => return Step::Leave(op::code_written(cpu, ops, j)),
            Err(Moved::Fault(f)) => return fault(cpu, ops, j, f),
        },
        TEST_R8 => {
            let ax = cpu.regs[EAX] & 0xffff;
            test_r8(cpu, o, ax);
        }
        SETCC_R8 => {
            setcc_r8(cpu, o);
        }
        _ => {
            let v = cpu.reg(8, o.rm);
            movzx_r8(cpu, o, o.rm, v);
        }
    }
    Step::Inline
}

/// Runs instruction `j` of the run.
#[inline(always)]
fn step(cpu: &mut Cpu, ops: &[Op], j: usize, s: &mut S, quiet: bool) -> Step {
    let o = &ops[j];
    let k = o.size;
    if k == CALL {
        return Step::Call;
    }
    if k >= TEST_R8 {
        return readback(cpu, ops, j, k);
    }
    if k == FNSTSW_AX {
        let v = s.status() as u32;
        cpu.set_r16(EAX as u8, v);
        return Step::Inline;
    }
    // `wait!`: deliver a pending unmasked exception, record FIP and FOP.
    if !quiet && s.sw & ES != 0 {
        return pending(cpu, ops, j);
    }
    if k == FSTSW_AX {
        let v = s.status() as u32;
        cpu.set_r16(EAX as u8, v);
        return Step::Inline;
    }
    cpu.fpu.fip = o.eip;
    cpu.fpu.fop = o.imm2 as u16;
    match k {
        FLD_M32 => {
            let ea = run_ea(cpu, o);
            let b = match cpu.mem.read_u32(ea) {
                Ok(b) => b,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let e = (b >> 23) & 0xff;
            let t = s.top.wrapping_sub(1) & 7;
            if !((e.wrapping_sub(1) < 0xfe || b << 1 == 0) && cpu.fpu.is_empty(t as usize)) {
                return Step::Call;
            }
            cpu.fpu.fdp = ea;
            s.top = t;
            cpu.fpu.put(t as usize, f32::from_bits(b) as f64);
            s.set_c1(s.sw & !C1);
            Step::Inline
        }
        FLD_M64 => {
            let ea = run_ea(cpu, o);
            let b = match cpu.mem.read_u64(ea) {
                Ok(b) => b,
                Err(f) => return fault(cpu, ops, j, f),
            };
            let e = (b >> 52) & 0x7ff;
            let t = s.top.wrapping_sub(1) & 7;
            if !((e.wrapping_sub(1) < 0x7fe || b << 1 == 0) && cpu.fpu.is_empty(t as usize)) {
                return Step::Call;
            }
            cpu.fpu.fdp = ea;
            s.top = t;
            cpu.fpu.put(t as usize, f64::from_bits(b));
            s.set_c1(s.sw & !C1);
            Step::Inline
        }
        FST_M64 | FSTP_M64 => {
            let ea = run_ea(cpu, o);
            let t = s.pk(0);
            let v = cpu.fpu.st[t];
            let b = v.to_bits();
            if cpu.fpu.is_empty(t)
                || x::is_snan(v)
                || (b >> 52 & 0x7ff == 0 && b << 1 != 0)
                || cpu.fpu.is_raw(t)
            {
                return Step::Call;
            }
            let w = match cpu.mem.write_u64(ea, b) {
                Ok(w) => w,
                Err(f) => return fault(cpu, ops, j, f),
            };
            cpu.fpu.fdp = ea;
            s.set_c1(s.sw & !C1);
            if k == FSTP_M64 {
                s.pop(&mut cpu.fpu);
            }
            stored(cpu, ops, j, w)
        }
        FST_M32 | FSTP_M32 => {
            let ea = run_ea(cpu, o);
            let t = s.pk(0);
            let fast = x::m32_fast(cpu.fpu.st[t], cpu.fpu.cw & 0x0c3f == 0x003f);
            let Some((bits, flags)) = fast.filter(|_| !cpu.fpu.is_empty(t) && !cpu.fpu.is_raw(t))
            else {
                return Step::Call;
            };
            let w = match cpu.mem.write_u32(ea, bits) {
                Ok(w) => w,
                Err(f) => return fault(cpu, ops, j, f),
            };
            cpu.fpu.fdp = ea;
            s.set_c1((s.sw & !C1) | flags);
            if k == FSTP_M32 {
                s.pop(&mut cpu.fpu);
            }
            stored(cpu, ops, j, w)
        }
        FLD_STI => {
            let r = s.pk(o.rm);
            if cpu.fpu.is_empty(r) || !cpu.fpu.is_empty(s.pk(7)) || cpu.fpu.is_raw(r) {
                return Step::Call;
            }
            let v = cpu.fpu.st[r];
            // `Fpu::push_raw`.
            s.top = s.top.wrapping_sub(1) & 7;
            cpu.fpu.put(s.top as usize, v);
            s.set_c1(s.sw & !C1);
            Step::Inline
        }
        FXCH => {
            let (a, b) = (s.pk(0), s.pk(o.rm));
            if cpu.fpu.is_empty(a) || cpu.fpu.is_empty(b) || cpu.fpu.raw & (1 << a | 1 << b) != 0 {
                return Step::Call;
            }
            cpu.fpu.st.swap(a, b);
            s.set_c1(s.sw & !C1);
            Step::Inline
        }
        FST_STI | FSTP_STI => {
            let (r, d) = (s.pk(0), s.pk(o.rm));
            if cpu.fpu.is_empty(r) || cpu.fpu.is_raw(r) {
                return Step::Call;
            }
            let v = cpu.fpu.st[r];
            cpu.fpu.put(d, v);
            s.set_c1(s.sw & !C1);
            if k == FSTP_STI {
                s.pop(&mut cpu.fpu);
            }
            Step::Inline
        }
        16 => arith_m::<0, false>(cpu, ops, j, s),
        17 => arith_m::<1, false>(cpu, ops, j, s),
        18 => arith_m::<2, false>(cpu, ops, j, s),
        19 => arith_m::<3, false>(cpu, ops, j, s),
        20 => arith_m::<4, false>(cpu, ops, j, s),
        21 => arith_m::<5, false>(cpu, ops, j, s),
        24 => arith_m::<0, true>(cpu, ops, j, s),
        25 => arith_m::<1, true>(cpu, ops, j, s),
        26 => arith_m::<2, true>(cpu, ops, j, s),
        27 => arith_m::<3, true>(cpu, ops, j, s),
        28 => arith_m::<4, true>(cpu, ops, j, s),
        29 => arith_m::<5, true>(cpu, ops, j, s),
        32 => reg::<0, 0>(cpu, ops, j, s),
        33 => reg::<1, 0>(cpu, ops, j, s),
        34 => reg::<2, 0>(cpu, ops, j, s),
        35 => reg::<3, 0>(cpu, ops, j, s),
        36 => reg::<4, 0>(cpu, ops, j, s),
        37 => reg::<5, 0>(cpu, ops, j, s),
        40 => reg::<0, 1>(cpu, ops, j, s),
        41 => reg::<1, 1>(cpu, ops, j, s),
        42 => reg::<2, 1>(cpu, ops, j, s),
        43 => reg::<3, 1>(cpu, ops, j, s),
        44 => reg::<4, 1>(cpu, ops, j, s),
        45 => reg::<5, 1>(cpu, ops, j, s),
        48 => reg::<0, 2>(cpu, ops, j, s),
        49 => reg::<1, 2>(cpu, ops, j, s),
        50 => reg::<2, 2>(cpu, ops, j, s),
        51 => reg::<3, 2>(cpu, ops, j, s),
        52 => reg::<4, 2>(cpu, ops, j, s),
        53 => reg::<5, 2>(cpu, ops, j, s),
        FCOM_M32 => fcom_m::<false, false>(cpu, ops, j, s),
        FCOMP_M32 => fcom_m::<true, false>(cpu, ops, j, s),
        FCOM_M64 => fcom_m::<false, true>(cpu, ops, j, s),
        FCOMP_M64 => fcom_m::<true, true>(cpu, ops, j, s),
        FCOMPP => fcompp::<false>(cpu, s),
        FUCOMPP => fcompp::<true>(cpu, s),
        _ => Step::Call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fast_value` is Some exactly when `fast` is, with the same value bits, over
    /// operands at every boundary the two share (zeros, denormals, the normal range's
    /// ends, infinities, NaNs, results that overflow or leave the normal range) and
    /// pseudo-random ones.
    #[test]
    fn fast_value_matches_fast() {
        let mut vals = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            3.0,
            1.0001,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE * 2.0,
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::MAX,
            f64::MAX / 2.0,
            1e300,
            1e-300,
            1e-160,
            1e160,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::from_bits(0x7ff4_0000_0000_0000),
        ];
        let mut z = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..400 {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            vals.push(f64::from_bits(z));
            vals.push((z >> 11) as f64 * 1e-9 - 4e6);
        }
        let mut checked = 0;
        for &a in &vals {
            for &b in &vals {
                let pairs = [
                    (fast::<ADD>(a, b).map(|r| r.0), fast_value::<ADD>(a, b)),
                    (fast::<SUB>(a, b).map(|r| r.0), fast_value::<SUB>(a, b)),
                    (fast::<MUL>(a, b).map(|r| r.0), fast_value::<MUL>(a, b)),
                    (fast::<DIV>(a, b).map(|r| r.0), fast_value::<DIV>(a, b)),
                ];
                for (n, (x, y)) in pairs.iter().enumerate() {
                    assert_eq!(
                        x.map(f64::to_bits),
                        y.map(f64::to_bits),
                        "op {n} a {a:e} b {b:e}"
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 600_000);
    }
}
