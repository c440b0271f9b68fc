//! Loop-idiom folds (LUT_RUN, COPY_RUN, FILL_RUN, SCAN_RUN) on self-loop blocks.
//!
//! Matching (loop-idiom-superinstructions.md §3, §9.5, §16): a block whose last
//! instruction is a Jcc back to its own start is decoded into a small vocabulary of
//! body steps (loads, stores, register moves, xor-zeroing, inc/dec/add/sub by an
//! immediate, compares). Registers get roles from how the body writes them:
//! induction (only inc/dec/add/sub imm), invariant (never written), value (loaded or
//! moved). Every memory address must be a stream (built from induction and invariant
//! registers, so affine in the iteration number) or a table lookup indexed by a
//! register the body provably zero-extended from one byte (the xor-zeroing rule: a
//! byte load into a register the body did not zero first leaves the upper bits
//! unknown and declines). The table load is exempt from the stream rule by
//! construction. Stores of an induction or invariant register to a fixed address
//! are mirror stores (spilled cursors) and allowed in every idiom. The memory roles
//! then name the idiom; nothing is keyed on bytes or addresses.
//!
//! Execution: the fold runs whole iterations of the body steps in one native loop,
//! with exactly the semantics of the handlers (same loads, stores, register writes and
//! lazy-flag writes, in the same order), so aliasing between the streams, the
//! counter and the value registers needs no proof. What it removes is the per-op
//! dispatch and the per-iteration run-loop round trip. Exactness obligations:
//! - pacing: the run loop charges `ninsn` instructions and one block per iteration,
//!   and never lets a run exceed the blocks the interpreter would start before its
//!   budget check stops it; a run is also capped so halt requests and other threads'
//!   code writes are seen within [`RUN_CAP`] iterations;
//! - faults: every access goes through the guest memory checks; a failing one ends
//!   the run with the exception of that instruction, the state as before it (earlier
//!   steps of the iteration done, later not), exactly as the interpreter raises it;
//! - self-modifying code: a store that hits a page holding decoded code ends the run
//!   right after that store with EIP at the next instruction, which is what the
//!   interpreter's `Exit::CodeWrite` does; the run loop then retires the stale code;
//! - exit state: EIP is the loop head (budget/cap) or the fall-through (loop ended).

use super::{Decline, Tier, Tiers};
use crate::cpu::flags::FlagOp;
use crate::cpu::{Cpu, Exception, ExceptionKind, NOREG};
use crate::decode::{gpr, seg_slot};
use crate::exec::cache::Block;
use crate::mem::{Fault, GuestMemory, Wrote};
use iced_x86::{Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind};
use std::sync::atomic::Ordering;

/// Most iterations one fast-path invocation runs before returning to the run loop.
pub const RUN_CAP: u64 = 1 << 16;

/// A flat memory operand: `((disp + base + index << scale) & amask) + seg_base[seg]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    pub base: u8,
    pub index: u8,
    pub scale: u8,
    pub disp: u32,
    pub seg: u8,
}

impl Mem {
    #[inline(always)]
    fn ea(&self, cpu: &Cpu) -> u32 {
        self.disp
            .wrapping_add(cpu.regs[(self.base & 15) as usize])
            .wrapping_add(cpu.regs[(self.index & 15) as usize] << (self.scale & 3))
            .wrapping_add(cpu.seg_base[(self.seg & 7) as usize])
    }

    fn regs(&self) -> impl Iterator<Item = u8> {
        [self.base, self.index].into_iter().filter(|r| *r != NOREG)
    }

    fn absolute(&self) -> bool {
        self.base == NOREG && self.index == NOREG
    }
}

/// One body instruction in the fold vocabulary. Register numbers are x86 numbers of
/// the operand's width (AL..BH are 0..7 for 8-bit operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `mov r, [m]` (bits = register width) or `movzx r32, [m]` (zx).
    Load {
        dst: u8,
        bits: u8,
        mbits: u8,
        zx: bool,
        m: Mem,
    },
    /// `mov [m], r`.
    Store { src: u8, bits: u8, m: Mem },
    /// `mov [m], imm`.
    StoreImm { imm: u32, bits: u8, m: Mem },
    /// `movq [m], mm` (MMX qword store; enters MMX state like every MMX op).
    MovqStore { mm: u8, m: Mem },
    /// `mov r32, r32`.
    Mov { dst: u8, src: u8 },
    /// `xor r32, r32` with the same register: a zeroing move that writes Logic flags.
    Zero { r: u8 },
    /// `inc r32` / `dec r32`.
    IncDec { r: u8, inc: bool },
    /// `add r32, imm` / `sub r32, imm`.
    AddImm { r: u8, imm: u32, sub: bool },
    /// `cmp r, r`.
    CmpRR { a: u8, b: u8, bits: u8 },
    /// `cmp r, imm`.
    CmpRI { a: u8, imm: u32, bits: u8 },
    /// `test r, r`.
    TestRR { a: u8, b: u8, bits: u8 },
    /// `shl r32, imm` (count masked, 1..=31): builds the high byte of a two-source
    /// LUT index (seed §16, version one).
    ShlImm { r: u8, c: u8 },
}

impl Step {
    fn writes_flags(&self) -> bool {
        matches!(
            self,
            Step::Zero { .. }
                | Step::IncDec { .. }
                | Step::AddImm { .. }
                | Step::CmpRR { .. }
                | Step::CmpRI { .. }
                | Step::TestRR { .. }
                | Step::ShlImm { .. }
        )
    }

    fn mem(&self) -> Option<&Mem> {
        match self {
            Step::Load { m, .. }
            | Step::Store { m, .. }
            | Step::StoreImm { m, .. }
            | Step::MovqStore { m, .. } => Some(m),
            _ => None,
        }
    }

    /// The 32-bit register this step writes, if any.
    fn written(&self) -> Option<u8> {
        match *self {
            Step::Load { dst, bits, .. } => Some(if bits == 8 { dst & 3 } else { dst }),
            Step::Mov { dst, .. } => Some(dst),
            Step::Zero { r }
            | Step::IncDec { r, .. }
            | Step::AddImm { r, .. }
            | Step::ShlImm { r, .. } => Some(r),
            _ => None,
        }
    }
}

/// How the loop ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// `dec c / jnz` (or `sub c,1 / jnz`): a trip counter.
    Counted { counter: u8 },
    /// `cmp cursor, bound / jb` (or `jne`): a cursor run up to an invariant bound.
    Bounded { cursor: u8, bound: u8 },
    /// `cmp value, k / jne|je` or `test value, value / jnz|jz` on a loaded value.
    Data,
}

/// A matched self-loop: the body steps, the loop's condition and its exits.
#[derive(Clone, Debug)]
pub struct Fold {
    pub tier: Tier,
    pub term: Term,
    pub steps: Vec<Step>,
    /// Guest address of each body instruction (for precise faults).
    pub eips: Vec<u32>,
    /// Address after each body instruction (where a code-writing store resumes).
    pub nexts: Vec<u32>,
    /// x86 condition code of the back edge.
    pub cc: u8,
    pub start: u32,
    /// Where control goes when the loop ends.
    pub fall: u32,
    /// Elements per iteration, for the stats (stream stores, or loads for SCAN).
    pub elems: u32,
    /// The bulk kernel, when the body has the canonical single-stream form.
    pub kernel: Option<Kernel>,
    /// Iterations the kernel ran (read by the executor into the tier stats).
    pub bulk_iters: std::cell::Cell<u64>,
    /// Runs that did at least one iteration (read by `jit`: a fold whose runs are
    /// short goes into compiled regions).
    pub runs: std::cell::Cell<u64>,
    /// A `case_chain` ladder (tiers/case_chain.rs): the block is its first rung and
    /// [`Fold::run`] walks the rungs instead of iterating a body.
    pub ladder: Option<Box<super::case_chain::Ladder>>,
}

/// A stream access as a function of the iteration: the address at the start of the
/// body is `ea(regs) + pre`, and it moves by `stride` bytes per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    pub m: Mem,
    pub pre: i64,
    pub stride: i64,
    pub bytes: u32,
}

impl Stream {
    #[inline(always)]
    fn addr(&self, cpu: &Cpu) -> u32 {
        self.m.ea(cpu).wrapping_add(self.pre as u32)
    }

    /// Iterations (from now) whose access stays inside the page it starts in, and
    /// whether that page takes the fast path.
    fn room(&self, cpu: &Cpu, write: bool) -> u64 {
        let a = self.addr(cpu);
        if !cpu.mem.fast_page(a, write) {
            return 0;
        }
        let off = (a & 0xfff) as i64;
        let z = self.bytes as i64;
        if off + z > 0x1000 {
            return 0;
        }
        match self.stride {
            0 => u64::MAX,
            s if s > 0 => ((0x1000 - z - off) / s + 1) as u64,
            s => (off / -s + 1) as u64,
        }
    }
}

/// The bulk form of a fold: the memory effect of an iteration without the register
/// and flag bookkeeping, run over a page-verified chunk. Value registers and flags
/// are left to the exact iteration that always follows a chunk (see [`Fold::run`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub kind: KernelKind,
    /// The back edge's condition code (`jb` or `jne` for a bounded loop).
    pub cc: u8,
    pub load: Option<Stream>,
    pub store: Option<Stream>,
    /// Induction registers and their stride per iteration.
    pub inductions: Vec<(u8, i64)>,
    /// For a bounded loop: the cursor's advance before the compare.
    pub cmp_pre: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// `store = table[load]`: table at `disp + other register (<< oshift)`, indexed by
    /// the loaded byte `<< ishift`, entries of `bytes`.
    Lut {
        disp: u32,
        other: u8,
        oshift: u8,
        ishift: u8,
        seg: u8,
        bytes: u32,
    },
    Copy,
    /// Stores an immediate or an invariant register (`src` of `bits`).
    Fill {
        imm: Option<u32>,
        src: u8,
        bits: u8,
    },
    /// Continues while the loaded byte `== k` (eq) or `!= k`.
    Scan {
        k: u8,
        eq: bool,
    },
    /// Stores MMX register `mm` (a qword).
    MmxFill {
        mm: u8,
    },
}

/// Result of one fast-path invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldEnd {
    /// `iters` iterations ran; the loop continues (EIP is the loop head).
    Continue { iters: u64 },
    /// The loop ended after `iters` iterations (EIP is the fall-through).
    Exited { iters: u64 },
    /// After `iters` whole iterations, body step `step` faulted; `cpu.pending` holds
    /// the exception and EIP is unchanged.
    Fault { iters: u64, step: usize },
    /// After `iters` whole iterations, body step `step` stored into decoded code and
    /// retired; EIP is the next instruction.
    CodeWrite { iters: u64, step: usize },
    /// Nothing ran: the plain ops must run this entry (an MMX store with an x87
    /// exception pending raises #MF, which the fold leaves to the handler).
    Declined,
}

/// Tries to match a freshly decoded block. Records the match or the decline in the
/// tier stats; returns the fold to attach when the matched tier's gate is on.
pub fn match_block(mem: &GuestMemory, block: &Block, tiers: &Tiers) -> Option<Box<Fold>> {
    // Cheap test on the threaded ops first: a self-loop ends in a branch to its start.
    let last = block.ops.last()?;
    if block.ninsn < 2 || block.ops.len() != block.ninsn as usize || last.imm != block.start {
        return None;
    }
    let len = block.end.wrapping_sub(block.start) as usize;
    let mut bytes = vec![0u8; len];
    mem.read_bytes(block.start, &mut bytes).ok()?;
    let mut dec = Decoder::with_ip(32, &bytes, block.start as u64, DecoderOptions::NONE);
    let mut insns: Vec<Instruction> = Vec::with_capacity(block.ninsn as usize);
    while dec.can_decode() {
        insns.push(dec.decode());
    }
    let jcc = insns.last()?;
    if insns.len() != block.ninsn as usize
        || jcc.flow_control() != FlowControl::ConditionalBranch
        || jcc.near_branch32() != block.start
    {
        return None;
    }
    let cc = crate::ops::branch::cond_code(jcc.mnemonic())?;
    let body = &insns[..insns.len() - 1];
    let (tier, fold) = match analyse(body, cc) {
        Ok(f) => (f.tier, f),
        Err((Some(t), why)) => {
            tiers.stats(t).declines[why as usize].fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Err((None, _)) => return None,
    };
    if !tiers.is_on(tier) {
        tiers.stats(tier).declines[Decline::GateOff as usize].fetch_add(1, Ordering::Relaxed);
        return None;
    }
    tiers.stats(tier).matches.fetch_add(1, Ordering::Relaxed);
    Some(Box::new(Fold {
        start: block.start,
        fall: jcc.next_ip32(),
        ..fold
    }))
}

type Declined = (Option<Tier>, Decline);

pub(crate) fn mem_of(ins: &Instruction) -> Option<Mem> {
    let (b, x) = (ins.memory_base(), ins.memory_index());
    if b.is_gpr16() || x.is_gpr16() || ins.memory_displ_size() == 2 {
        return None; // 16-bit addressing wraps at 64K: not in the vocabulary
    }
    if (b != iced_x86::Register::None && !b.is_gpr32())
        || (x != iced_x86::Register::None && !x.is_gpr32())
    {
        return None;
    }
    Some(Mem {
        base: gpr(b).unwrap_or(NOREG),
        index: gpr(x).unwrap_or(NOREG),
        scale: ins.memory_index_scale().trailing_zeros() as u8,
        disp: ins.memory_displacement32(),
        seg: seg_slot(ins.memory_segment()),
    })
}

fn reg_bits(r: iced_x86::Register) -> Option<u8> {
    if r.is_gpr8() {
        Some(8)
    } else if r.is_gpr16() {
        Some(16)
    } else if r.is_gpr32() {
        Some(32)
    } else {
        None
    }
}

/// One instruction into the vocabulary, or `None` if it is outside it.
pub(crate) fn step_of(ins: &Instruction) -> Option<Step> {
    if ins.has_lock_prefix() || ins.has_rep_prefix() || ins.has_repne_prefix() {
        return None;
    }
    let k0 = ins.op0_kind();
    let k1 = if ins.op_count() > 1 {
        ins.op1_kind()
    } else {
        OpKind::Register
    };
    let imm = matches!(
        k1,
        OpKind::Immediate8 | OpKind::Immediate16 | OpKind::Immediate32 | OpKind::Immediate8to32
    );
    let r0 = ins.op0_register();
    let r1 = ins.op1_register();
    let msize = ins.memory_size().size() as u8 * 8;
    Some(match ins.mnemonic() {
        Mnemonic::Mov => match (k0, k1) {
            (OpKind::Register, OpKind::Memory) => Step::Load {
                dst: gpr(r0)?,
                bits: reg_bits(r0)?,
                mbits: reg_bits(r0)?,
                zx: false,
                m: mem_of(ins)?,
            },
            (OpKind::Memory, OpKind::Register) => Step::Store {
                src: gpr(r1)?,
                bits: reg_bits(r1)?,
                m: mem_of(ins)?,
            },
            (OpKind::Memory, _) if imm && matches!(msize, 8 | 16 | 32) => Step::StoreImm {
                imm: ins.immediate(1) as u32,
                bits: msize,
                m: mem_of(ins)?,
            },
            (OpKind::Register, OpKind::Register) if reg_bits(r0)? == 32 && r1.is_gpr32() => {
                Step::Mov {
                    dst: gpr(r0)?,
                    src: gpr(r1)?,
                }
            }
            _ => return None,
        },
        Mnemonic::Movq
            if k0 == OpKind::Memory
                && k1 == OpKind::Register
                && (iced_x86::Register::MM0..=iced_x86::Register::MM7).contains(&r1) =>
        {
            Step::MovqStore {
                mm: (r1 as u32 - iced_x86::Register::MM0 as u32) as u8,
                m: mem_of(ins)?,
            }
        }
        Mnemonic::Movzx if k1 == OpKind::Memory && reg_bits(r0)? == 32 => Step::Load {
            dst: gpr(r0)?,
            bits: 32,
            mbits: msize,
            zx: true,
            m: mem_of(ins)?,
        },
        Mnemonic::Xor if k0 == OpKind::Register && k1 == OpKind::Register && r0 == r1 => {
            if reg_bits(r0)? != 32 {
                return None;
            }
            Step::Zero { r: gpr(r0)? }
        }
        Mnemonic::Inc | Mnemonic::Dec if k0 == OpKind::Register && r0.is_gpr32() => Step::IncDec {
            r: gpr(r0)?,
            inc: ins.mnemonic() == Mnemonic::Inc,
        },
        Mnemonic::Add | Mnemonic::Sub if k0 == OpKind::Register && r0.is_gpr32() && imm => {
            Step::AddImm {
                r: gpr(r0)?,
                imm: ins.immediate(1) as u32,
                sub: ins.mnemonic() == Mnemonic::Sub,
            }
        }
        Mnemonic::Shl | Mnemonic::Sal
            if k0 == OpKind::Register && r0.is_gpr32() && k1 == OpKind::Immediate8 =>
        {
            let c = ins.immediate(1) as u8 & 31;
            if c == 0 {
                return None; // changes nothing, not even the flags: not a body step
            }
            Step::ShlImm { r: gpr(r0)?, c }
        }
        Mnemonic::Cmp if k0 == OpKind::Register && k1 == OpKind::Register => Step::CmpRR {
            a: gpr(r0)?,
            b: gpr(r1)?,
            bits: reg_bits(r0)?,
        },
        Mnemonic::Cmp if k0 == OpKind::Register && imm => Step::CmpRI {
            a: gpr(r0)?,
            imm: ins.immediate(1) as u32,
            bits: reg_bits(r0)?,
        },
        Mnemonic::Test if k0 == OpKind::Register && k1 == OpKind::Register => Step::TestRR {
            a: gpr(r0)?,
            b: gpr(r1)?,
            bits: reg_bits(r0)?,
        },
        _ => return None,
    })
}

/// The 32-bit register an operand of `bits` width named `r` lives in.
fn parent(r: u8, bits: u8) -> u8 {
    if bits == 8 { r & 3 } else { r & 7 }
}

/// Register roles and the idiom (see the module comment).
fn analyse(body: &[Instruction], cc: u8) -> Result<Fold, Declined> {
    // A rough guess of the idiom from the raw instruction kinds, so that a decline can
    // be charged to the tier the loop looked like.
    let guess = guess_tier(body);
    let mut steps = Vec::with_capacity(body.len());
    for ins in body {
        steps.push(step_of(ins).ok_or((guess, Decline::Op))?);
    }
    // Roles: which 32-bit registers the body writes, and how.
    let mut written = [false; 8];
    let mut induct_only = [true; 8];
    let mut stride = [0i64; 8];
    for s in &steps {
        if let Some(r) = s.written() {
            written[r as usize] = true;
            match *s {
                Step::IncDec { inc, .. } => stride[r as usize] += if inc { 1 } else { -1 },
                Step::AddImm { imm, sub, .. } => {
                    let v = imm as i32 as i64;
                    stride[r as usize] += if sub { -v } else { v };
                }
                _ => induct_only[r as usize] = false,
            }
        }
    }
    let induction = |r: u8| written[r as usize] && induct_only[r as usize];
    let invariant = |r: u8| !written[r as usize];
    // Walk the body in order tracking which registers provably hold a zero-extended
    // byte (the xor-zeroing rule), and classify each memory access.
    let mut small = [false; 8];
    // Holds a zero-extended byte shifted left by 8 (the high part of a two-source
    // index, seed §16 version one).
    let mut high = [false; 8];
    let mut loaded = [false; 8]; // holds a value loaded (or moved from one) this iteration
    let mut table_vals = [false; 8]; // holds a table lookup result
    let (mut stream_loads, mut table_loads, mut stream_stores) = (0u32, 0u32, 0u32);
    let mut stores_ok_lut = true;
    let mut stores_ok_copy = true;
    let mut stores_ok_fill = true;
    let mut moving_store = false;
    let mut mmx_stores = 0u32;
    for s in &steps {
        if let Some(m) = s.mem() {
            let stream = m.regs().all(|r| induction(r) || invariant(r));
            let is_load = matches!(s, Step::Load { .. });
            if stream {
                if is_load {
                    stream_loads += 1;
                } else if m.absolute() {
                    // Mirror store: only a cursor or an invariant may be spilled.
                    match *s {
                        Step::Store { src, bits: 32, .. } if induction(src) || invariant(src) => {}
                        _ => return Err((guess, Decline::Shape)),
                    }
                } else {
                    stream_stores += 1;
                    let moves: i64 = m
                        .regs()
                        .map(|r| stride[r as usize] << (if r == m.index { m.scale } else { 0 }))
                        .sum();
                    moving_store |= moves != 0;
                    match *s {
                        Step::Store { src, bits, .. } => {
                            let p = parent(src, bits) as usize;
                            stores_ok_lut &= table_vals[p];
                            stores_ok_copy &= loaded[p] && !table_vals[p];
                            stores_ok_fill &= invariant(p as u8);
                        }
                        Step::MovqStore { .. } => {
                            // The vocabulary has no MMX writes: the register is invariant.
                            mmx_stores += 1;
                            stores_ok_lut = false;
                            stores_ok_copy = false;
                        }
                        _ => {
                            stores_ok_lut = false;
                            stores_ok_copy = false;
                        }
                    }
                }
            } else {
                // A table lookup: a load whose index (or base) is a zero-extended byte
                // computed this iteration, and whose other component is invariant; or
                // the two-source form `[hi + lo + table]`, unscaled, with `hi` a byte
                // shifted left by 8 and `lo` a byte, both from this iteration's loads.
                let one = is_load
                    && m.regs().any(|r| small[r as usize])
                    && m.regs().all(|r| small[r as usize] || invariant(r))
                    && m.regs().filter(|r| small[*r as usize]).count() == 1;
                let two = is_load
                    && m.scale == 0
                    && m.base != NOREG
                    && m.index != NOREG
                    && m.base != m.index
                    && ((high[m.base as usize] && small[m.index as usize])
                        || (small[m.base as usize] && high[m.index as usize]));
                if !(one || two) {
                    return Err((guess, Decline::Address));
                }
                table_loads += 1;
            }
        }
        // Register state after the step.
        match *s {
            Step::Zero { r } => {
                small[r as usize] = true;
                high[r as usize] = false;
                loaded[r as usize] = false;
                table_vals[r as usize] = false;
            }
            Step::ShlImm { r, c } => {
                high[r as usize] = small[r as usize] && c == 8;
                small[r as usize] = false;
                table_vals[r as usize] = false;
            }
            Step::Load {
                dst,
                bits,
                mbits,
                zx,
                m,
            } => {
                let p = parent(dst, bits) as usize;
                let table = !m.regs().all(|r| induction(r) || invariant(r));
                small[p] = if zx {
                    mbits == 8
                } else {
                    bits == 8 && dst < 4 && small[p]
                };
                high[p] = false;
                loaded[p] = true;
                table_vals[p] = table;
            }
            Step::Mov { dst, src } => {
                small[dst as usize] = small[src as usize];
                high[dst as usize] = high[src as usize];
                loaded[dst as usize] = loaded[src as usize];
                table_vals[dst as usize] = table_vals[src as usize];
            }
            Step::IncDec { r, .. } | Step::AddImm { r, .. } => {
                small[r as usize] = false;
                high[r as usize] = false;
            }
            _ => {}
        }
    }
    // The exit test: the last flag writer and the condition.
    let lastw = steps
        .iter()
        .rev()
        .find(|s| s.writes_flags())
        .ok_or((guess, Decline::Terminator))?;
    const CC_B: u8 = 2;
    const CC_E: u8 = 4;
    const CC_NE: u8 = 5;
    let term = match *lastw {
        Step::IncDec { r, inc: false }
        | Step::AddImm {
            r,
            imm: 1,
            sub: true,
        } if cc == CC_NE && steps.iter().filter(|s| s.written() == Some(r)).count() == 1 => {
            Term::Counted { counter: r }
        }
        Step::CmpRR { a, b, bits: 32 } if cc == CC_B || cc == CC_NE => {
            if induction(a) && invariant(b) {
                Term::Bounded {
                    cursor: a,
                    bound: b,
                }
            } else if invariant(a) && induction(b) && cc == CC_NE {
                Term::Bounded {
                    cursor: b,
                    bound: a,
                }
            } else {
                return Err((guess, Decline::Terminator));
            }
        }
        Step::CmpRI { a, bits, .. }
            if (cc == CC_E || cc == CC_NE) && loaded[parent(a, bits) as usize] =>
        {
            Term::Data
        }
        Step::TestRR { a, b, bits }
            if (cc == CC_E || cc == CC_NE) && a == b && loaded[parent(a, bits) as usize] =>
        {
            Term::Data
        }
        _ => return Err((guess, Decline::Terminator)),
    };
    let counted = !matches!(term, Term::Data);
    let tier = if table_loads > 0 {
        if counted && stream_loads > 0 && stream_stores > 0 && stores_ok_lut {
            Tier::Lut
        } else {
            return Err((Some(Tier::Lut), Decline::Shape));
        }
    } else if stream_loads > 0 && stream_stores > 0 {
        if counted && stores_ok_copy && moving_store {
            Tier::Copy
        } else {
            return Err((Some(Tier::Copy), Decline::Shape));
        }
    } else if stream_stores > 0 {
        if counted && stores_ok_fill && moving_store {
            // The MMX qword fill (seed §23) has its own gate.
            if mmx_stores == stream_stores {
                Tier::MmxFill
            } else if mmx_stores == 0 {
                Tier::Fill
            } else {
                return Err((Some(Tier::Fill), Decline::Shape));
            }
        } else {
            return Err((Some(Tier::Fill), Decline::Shape));
        }
    } else if stream_loads > 0 {
        if !counted {
            Tier::Scan
        } else {
            return Err((Some(Tier::Scan), Decline::Shape));
        }
    } else {
        return Err((None, Decline::Shape));
    };
    let kernel = kernel_of(&steps, tier, term, cc, &stride);
    Ok(Fold {
        bulk_iters: Default::default(),
        runs: Default::default(),
        ladder: None,
        kernel,
        tier,
        term,
        elems: if tier == Tier::Scan {
            stream_loads
        } else {
            stream_stores
        },
        eips: body.iter().map(|i| i.ip32()).collect(),
        nexts: body.iter().map(|i| i.next_ip32()).collect(),
        steps,
        cc,
        start: 0,
        fall: 0,
    })
}

/// The bulk kernel for the canonical forms: one stream load (none for FILL), at most
/// one table load, one stream store (none for SCAN), no mirror stores, the store's
/// value produced earlier in the body than the store. Anything else runs on the
/// exact step loop only.
fn kernel_of(steps: &[Step], tier: Tier, term: Term, cc: u8, stride: &[i64; 8]) -> Option<Kernel> {
    // A shifted register may carry a value from one iteration to the next, which a
    // kernel that skips the register work of whole iterations would lose; the
    // two-source LUT form that shifts runs on the exact step loop.
    if steps.iter().any(|s| matches!(s, Step::ShlImm { .. })) {
        return None;
    }
    let mut delta = [0i64; 8];
    let mut load: Option<(usize, Stream, u8, u8)> = None; // (step, stream, dst, bits written)
    let mut table: Option<(usize, Mem, u8, u8, u32)> = None; // (step, mem, dst, bits, bytes)
    let mut store: Option<(usize, Stream, Step)> = None;
    let mut cmp_pre = 0i64;
    let stream_of = |m: &Mem, bytes: u32, delta: &[i64; 8]| {
        let mut pre = 0i64;
        let mut st = 0i64;
        if m.base != NOREG {
            pre += delta[m.base as usize];
            st += stride[m.base as usize];
        }
        if m.index != NOREG {
            pre += delta[m.index as usize] << m.scale;
            st += stride[m.index as usize] << m.scale;
        }
        Stream {
            m: *m,
            pre,
            stride: st,
            bytes,
        }
    };
    for (k, s) in steps.iter().enumerate() {
        match *s {
            Step::Load {
                dst,
                bits,
                mbits,
                zx,
                m,
            } => {
                let is_table = load.is_some()
                    && [m.base, m.index].contains(&load.unwrap().2)
                    && tier == Tier::Lut;
                if is_table {
                    // `mov r8/r16, [table]` into the register's low part, or
                    // `movzx r32, [table]` (gcc's form); the entry is `mbits` wide.
                    if table.is_some()
                        || !matches!(mbits, 8 | 16)
                        || (!zx && (mbits != bits || (bits == 8 && dst >= 4)))
                    {
                        return None;
                    }
                    let tbits = if zx { 32 } else { bits };
                    table = Some((k, m, dst, tbits, mbits as u32 / 8));
                } else {
                    if load.is_some() || (mbits != 8 && tier == Tier::Lut) {
                        return None;
                    }
                    let (p, written) = if zx {
                        (dst, 32)
                    } else {
                        (parent(dst, bits), bits)
                    };
                    load = Some((k, stream_of(&m, mbits as u32 / 8, &delta), p, written));
                }
            }
            Step::MovqStore { m, .. } => {
                if store.is_some() || m.absolute() {
                    return None;
                }
                store = Some((k, stream_of(&m, 8, &delta), *s));
            }
            Step::Store { m, .. } | Step::StoreImm { m, .. } => {
                if store.is_some() || m.absolute() {
                    return None;
                }
                let bytes = match *s {
                    Step::Store { bits, .. } | Step::StoreImm { bits, .. } => bits as u32 / 8,
                    _ => unreachable!(),
                };
                store = Some((k, stream_of(&m, bytes, &delta), *s));
            }
            Step::IncDec { r, inc } => delta[r as usize] += if inc { 1 } else { -1 },
            Step::AddImm { r, imm, sub } => {
                let v = imm as i32 as i64;
                delta[r as usize] += if sub { -v } else { v };
            }
            Step::CmpRR { .. } => {
                if let Term::Bounded { cursor, .. } = term {
                    cmp_pre = delta[cursor as usize];
                }
            }
            _ => {}
        }
    }
    // The kernel advances induction registers arithmetically and leaves value
    // registers to the exact iteration; a register that is both (loaded, then
    // incremented) carries data between iterations and needs the step loop.
    let arith = |r: u8| {
        steps.iter().any(|s| {
            s.written() == Some(r) && matches!(s, Step::IncDec { .. } | Step::AddImm { .. })
        })
    };
    let value = |r: u8| {
        steps.iter().any(|s| {
            s.written() == Some(r) && !matches!(s, Step::IncDec { .. } | Step::AddImm { .. })
        })
    };
    if (0..8u8).any(|r| arith(r) && value(r)) {
        return None;
    }
    let inductions: Vec<(u8, i64)> = (0..8u8)
        .filter(|r| {
            stride[*r as usize] != 0
                || steps.iter().any(|s| {
                    s.written() == Some(*r)
                        && matches!(s, Step::IncDec { .. } | Step::AddImm { .. })
                })
        })
        .map(|r| (r, stride[r as usize]))
        .collect();
    if let Term::Bounded { cursor, .. } = term
        && (stride[cursor as usize] == 0 || (cc == 2 && stride[cursor as usize] < 0))
    {
        return None; // `jb` needs a rising cursor, `jne` a moving one
    }
    let kind = match tier {
        Tier::Lut => {
            let (li, _, ldst, _) = load?;
            let (ti, tm, tdst, tbits, tbytes) = table?;
            let (si, ss, st) = store?;
            // The index register is the one the stream load zero-extended into.
            let ldst32 = ldst & 7;
            let (other, oshift, ishift) = if tm.index == ldst32 {
                (tm.base, 0, tm.scale)
            } else if tm.base == ldst32 && tm.index != ldst32 {
                (tm.index, tm.scale, 0)
            } else {
                return None;
            };
            // The index is the loaded byte and the stored value the looked-up entry
            // only if nothing rewrites them in between.
            if !untouched(steps, li, ti, ldst32) || !untouched(steps, ti, si, parent(tdst, tbits)) {
                return None;
            }
            match st {
                // The store writes the entry from the low part of the register the
                // lookup loaded it into.
                Step::Store { src, bits, .. }
                    if parent(src, bits) == parent(tdst, tbits)
                        && bits as u32 == tbytes * 8
                        && li < ti
                        && ti < si
                        && (bits != 8 || src < 4) => {}
                _ => return None,
            }
            KernelKind::Lut {
                disp: tm.disp,
                other,
                oshift,
                ishift,
                seg: tm.seg,
                bytes: tbytes,
            }
            .with_store_bytes(ss.bytes)?
        }
        Tier::Copy => {
            let (li, ls, ldst, lbits) = load?;
            let (si, ss, st) = store?;
            if !untouched(steps, li, si, ldst) {
                return None;
            }
            match st {
                Step::Store { src, bits, .. }
                    if li < si
                        && ls.bytes == ss.bytes
                        && bits == lbits
                        && parent(src, bits) == ldst
                        && (bits != 8 || src < 4) => {}
                _ => return None,
            }
            if table.is_some() {
                return None;
            }
            KernelKind::Copy
        }
        Tier::MmxFill => {
            let (_, _, st) = store?;
            match st {
                Step::MovqStore { mm, .. } if load.is_none() => KernelKind::MmxFill { mm },
                _ => return None,
            }
        }
        Tier::Fill => {
            let (_, _, st) = store?;
            if load.is_some() {
                return None;
            }
            match st {
                Step::StoreImm { imm, bits, .. } => KernelKind::Fill {
                    imm: Some(imm),
                    src: 0,
                    bits,
                },
                Step::Store { src, bits, .. } => KernelKind::Fill {
                    imm: None,
                    src,
                    bits,
                },
                _ => return None,
            }
        }
        Tier::Scan => {
            let (li, ls, _, lbits) = load?;
            if store.is_some() || ls.bytes != 1 || lbits != 8 {
                return None;
            }
            let lastw = steps.iter().rposition(|s| s.writes_flags())?;
            let (a, k) = match steps[lastw] {
                Step::CmpRI { a, imm, bits: 8 } => (a, imm as u8),
                Step::TestRR { a, b, bits: 8 } if a == b => (a, 0),
                _ => return None,
            };
            // The compared register must be the loaded byte itself.
            let loaded_byte = match steps[li] {
                Step::Load {
                    dst,
                    bits: 8,
                    zx: false,
                    ..
                } => dst,
                _ => return None,
            };
            if a != loaded_byte || steps[li + 1..].iter().any(|s| s.written() == Some(a & 3)) {
                return None;
            }
            KernelKind::Scan { k, eq: cc == 4 }
        }
        _ => return None,
    };
    Some(Kernel {
        kind,
        cc,
        load: load.map(|l| l.1),
        store: store.map(|s| s.1),
        inductions,
        cmp_pre,
    })
}

/// Whether no step strictly between `from` and `to` writes the 32-bit register `r`.
fn untouched(steps: &[Step], from: usize, to: usize, r: u8) -> bool {
    from < to && steps[from + 1..to].iter().all(|s| s.written() != Some(r))
}

impl KernelKind {
    /// The LUT kernel stores the table entry at its own width.
    fn with_store_bytes(self, store_bytes: u32) -> Option<KernelKind> {
        match self {
            KernelKind::Lut { bytes, .. } if bytes == store_bytes => Some(self),
            KernelKind::Lut { .. } => None,
            k => Some(k),
        }
    }
}

fn guess_tier(body: &[Instruction]) -> Option<Tier> {
    let mut loads = 0;
    let mut stores = 0;
    for ins in body {
        let n = ins.op_count();
        if n > 0 && ins.op0_kind() == OpKind::Memory {
            stores += 1;
        } else if (1..n).any(|k| ins.op_kind(k) == OpKind::Memory) {
            loads += 1;
        }
    }
    match (loads, stores) {
        (0, 0) => None,
        (0, _) => Some(Tier::Fill),
        (1, 0) | (_, 0) => Some(Tier::Scan),
        (1, _) => Some(Tier::Copy),
        _ => Some(Tier::Lut),
    }
}

/// Runs one body step with the handlers' semantics.
#[inline(always)]
fn exec_step(cpu: &mut Cpu, s: &Step) -> Result<Wrote, Fault> {
    match *s {
        Step::Load {
            dst,
            bits,
            mbits,
            zx,
            m,
        } => {
            let v = cpu.load(mbits as u32, m.ea(cpu))?;
            if zx {
                cpu.set_r32(dst, v);
            } else {
                cpu.set_reg(bits as u32, dst, v);
            }
        }
        Step::Store { src, bits, m } => {
            let v = cpu.reg(bits as u32, src);
            return cpu.store(bits as u32, m.ea(cpu), v);
        }
        Step::StoreImm { imm, bits, m } => return cpu.store(bits as u32, m.ea(cpu), imm),
        Step::MovqStore { mm, m } => {
            let v = cpu.fpu.mmx(mm);
            let w = cpu.mem.write_u64(m.ea(cpu), v)?;
            cpu.fpu.mmx_enter();
            return Ok(w);
        }
        Step::Mov { dst, src } => {
            let v = cpu.r32(src);
            cpu.set_r32(dst, v);
        }
        Step::Zero { r } => {
            let a = cpu.r32(r);
            cpu.flags.set(FlagOp::Logic, 32, 0, a, a);
            cpu.set_r32(r, 0);
        }
        Step::IncDec { r, inc } => {
            let a = cpu.r32(r);
            let res = if inc {
                a.wrapping_add(1)
            } else {
                a.wrapping_sub(1)
            };
            cpu.flags.set_incdec(inc, 32, res, a);
            cpu.set_r32(r, res);
        }
        Step::AddImm { r, imm, sub } => {
            let a = cpu.r32(r);
            let res = if sub {
                cpu.flags.set(FlagOp::Sub, 32, a.wrapping_sub(imm), a, imm);
                a.wrapping_sub(imm)
            } else {
                cpu.flags.set(FlagOp::Add, 32, a.wrapping_add(imm), a, imm);
                a.wrapping_add(imm)
            };
            cpu.set_r32(r, res);
        }
        Step::CmpRR { a, b, bits } => {
            let (x, y) = (cpu.reg(bits as u32, a), cpu.reg(bits as u32, b));
            cpu.flags
                .set(FlagOp::Sub, bits as u32, x.wrapping_sub(y), x, y);
        }
        Step::CmpRI { a, imm, bits } => {
            let x = cpu.reg(bits as u32, a);
            cpu.flags
                .set(FlagOp::Sub, bits as u32, x.wrapping_sub(imm), x, imm);
        }
        Step::TestRR { a, b, bits } => {
            let (x, y) = (cpu.reg(bits as u32, a), cpu.reg(bits as u32, b));
            cpu.flags.set(FlagOp::Logic, bits as u32, x & y, x, y);
        }
        Step::ShlImm { r, c } => crate::ops::shift::shl_r32(cpu, r, c as u32),
    }
    Ok(Wrote::Data)
}

impl Kernel {
    /// Runs up to `room` iterations in bulk, never the loop's last one and never the
    /// last one whose pages were verified (that one runs exact, so the state is exact
    /// whatever stops the run next). Returns the iterations run.
    fn bulk(&self, cpu: &mut Cpu, term: Term, room: u64) -> u64 {
        let mut n = room;
        match term {
            Term::Counted { counter } => {
                let c = cpu.r32(counter) as u64;
                n = n.min(if c == 0 { u32::MAX as u64 } else { c - 1 });
            }
            Term::Bounded { cursor, bound } => {
                let st = self
                    .inductions
                    .iter()
                    .find(|(r, _)| *r == cursor)
                    .map_or(0, |x| x.1);
                let v0 = cpu.r32(cursor) as i64 + self.cmp_pre;
                let b = cpu.r32(bound) as i64;
                // The cursor's value at the compare in iteration j is v0 + j*st; only
                // spans that reach the bound without wrapping are run in bulk.
                let cont = if self.cc == 2 {
                    // jb: iteration j continues while v0 + j*st < b.
                    if st <= 0 || v0 < 0 || v0 >= b {
                        return 0;
                    }
                    (b - v0 + st - 1) / st
                } else {
                    // jne: continues until v0 + j*st == b exactly.
                    let dist = (b - v0) * st.signum();
                    if !(0..=u32::MAX as i64).contains(&v0) || dist <= 0 || dist % st.abs() != 0 {
                        return 0;
                    }
                    dist / st.abs()
                };
                n = n.min(cont as u64);
            }
            Term::Data => {}
        }
        let mut c = u64::MAX;
        if let Some(l) = &self.load {
            c = c.min(l.room(cpu, false));
        }
        if let Some(s) = &self.store {
            c = c.min(s.room(cpu, true));
        }
        let mut tb = 0;
        if let KernelKind::Lut {
            disp,
            other,
            oshift,
            ishift,
            seg,
            bytes,
        } = self.kind
        {
            tb = disp
                .wrapping_add(cpu.regs[(other & 15) as usize] << oshift)
                .wrapping_add(cpu.seg_base[(seg & 7) as usize]);
            let last = tb.wrapping_add((255 << ishift) + bytes - 1);
            if last < tb || !cpu.mem.fast_page(tb, false) || !cpu.mem.fast_page(last, false) {
                c = 0;
            }
        }
        n = n.min(c.saturating_sub(1));
        if n == 0 {
            return 0;
        }
        let mem = &cpu.mem;
        let (ls, ss) = (
            self.load.map_or(0, |l| l.stride as u32),
            self.store.map_or(0, |s| s.stride as u32),
        );
        let mut la = self.load.map_or(0, |l| l.addr(cpu));
        let mut sa = self.store.map_or(0, |s| s.addr(cpu));
        let mut done = 0u64;
        // Each iteration's guest accesses happen in the body's order (load, lookup,
        // store), one element at a time, so overlapping streams behave as in the loop.
        macro_rules! each {
            ($body:block) => {
                while done < n {
                    $body
                    done += 1;
                }
            };
        }
        match self.kind {
            KernelKind::Lut { ishift, bytes, .. } => {
                if bytes == 1 {
                    each!({
                        let Ok(i) = mem.read_u8(la) else { break };
                        let Ok(v) = mem.read_u8(tb.wrapping_add((i as u32) << ishift)) else {
                            break;
                        };
                        if mem.write_u8(sa, v).is_err() {
                            break;
                        }
                        la = la.wrapping_add(ls);
                        sa = sa.wrapping_add(ss);
                    })
                } else {
                    each!({
                        let Ok(i) = mem.read_u8(la) else { break };
                        let Ok(v) = mem.read_u16(tb.wrapping_add((i as u32) << ishift)) else {
                            break;
                        };
                        if mem.write_u16(sa, v).is_err() {
                            break;
                        }
                        la = la.wrapping_add(ls);
                        sa = sa.wrapping_add(ss);
                    })
                }
            }
            KernelKind::Copy => match self.load.map_or(0, |l| l.bytes) {
                1 => each!({
                    let Ok(v) = mem.read_u8(la) else { break };
                    if mem.write_u8(sa, v).is_err() {
                        break;
                    }
                    la = la.wrapping_add(ls);
                    sa = sa.wrapping_add(ss);
                }),
                2 => each!({
                    let Ok(v) = mem.read_u16(la) else { break };
                    if mem.write_u16(sa, v).is_err() {
                        break;
                    }
                    la = la.wrapping_add(ls);
                    sa = sa.wrapping_add(ss);
                }),
                _ => each!({
                    let Ok(v) = mem.read_u32(la) else { break };
                    if mem.write_u32(sa, v).is_err() {
                        break;
                    }
                    la = la.wrapping_add(ls);
                    sa = sa.wrapping_add(ss);
                }),
            },
            KernelKind::Fill { imm, src, bits } => {
                let v = imm.unwrap_or_else(|| cpu.reg(bits as u32, src));
                match bits {
                    8 => each!({
                        if mem.write_u8(sa, v as u8).is_err() {
                            break;
                        }
                        sa = sa.wrapping_add(ss);
                    }),
                    16 => each!({
                        if mem.write_u16(sa, v as u16).is_err() {
                            break;
                        }
                        sa = sa.wrapping_add(ss);
                    }),
                    _ => each!({
                        if mem.write_u32(sa, v).is_err() {
                            break;
                        }
                        sa = sa.wrapping_add(ss);
                    }),
                }
            }
            KernelKind::MmxFill { mm } => {
                let v = cpu.fpu.mmx(mm);
                each!({
                    if mem.write_u64(sa, v).is_err() {
                        break;
                    }
                    sa = sa.wrapping_add(ss);
                })
            }
            KernelKind::Scan { k, eq } => each!({
                let Ok(v) = mem.read_u8(la) else { break };
                if (v == k) != eq {
                    break; // the exiting iteration runs exact
                }
                la = la.wrapping_add(ls);
            }),
        }
        for &(r, st) in &self.inductions {
            let v = cpu.regs[r as usize].wrapping_add((st as u32).wrapping_mul(done as u32));
            cpu.regs[r as usize] = v;
        }
        done
    }
}

impl Fold {
    /// Runs up to `max_iters` (≥ 1) iterations from the loop head: bulk chunks a page
    /// at a time where the kernel applies, each followed by one exact iteration.
    pub fn run(&self, cpu: &mut Cpu, max_iters: u64) -> FoldEnd {
        if let Some(l) = &self.ladder {
            return l.run(cpu, max_iters);
        }
        if self.tier == Tier::MmxFill && crate::ops::mmx::fp_pending(cpu) {
            return FoldEnd::Declined;
        }
        let mut iters = 0u64;
        loop {
            if let Some(k) = &self.kernel {
                let room = max_iters - iters - 1;
                if room > 0 {
                    let b = k.bulk(cpu, self.term, room);
                    self.bulk_iters.set(self.bulk_iters.get() + b);
                    iters += b;
                }
            }
            for (k, s) in self.steps.iter().enumerate() {
                match exec_step(cpu, s) {
                    Ok(Wrote::Data) => {}
                    Ok(Wrote::Code) => {
                        cpu.eip = self.nexts[k];
                        return FoldEnd::CodeWrite { iters, step: k };
                    }
                    Err(f) => {
                        let kind = if f.guard {
                            ExceptionKind::GuardPage(f.access)
                        } else {
                            ExceptionKind::AccessViolation(f.access)
                        };
                        cpu.pending = Some(Exception {
                            kind,
                            eip: self.eips[k],
                            addr: f.addr,
                        });
                        return FoldEnd::Fault { iters, step: k };
                    }
                }
            }
            iters += 1;
            if !cpu.flags.cond(self.cc) {
                cpu.eip = self.fall;
                return FoldEnd::Exited { iters };
            }
            if iters >= max_iters {
                cpu.eip = self.start;
                return FoldEnd::Continue { iters };
            }
        }
    }
}
