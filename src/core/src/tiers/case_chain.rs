//! CASE_CHAIN (page-compilation.md §13-§14): a ladder of `cmp r8,imm / jz|jnz`
//! blocks, every rung testing the same byte register, folded into one dispatch.
//!
//! The fold is attached to a block that is exactly one rung (`cmp r8,imm` then
//! `je`/`jne`) and is followed in memory by at least one more rung on the same
//! register. A head block with other work before its compare runs as a plain block
//! and then enters the folded rung after it, so the walk (the part that costs one
//! block entry per case) is what goes. Each byte value's first taken rung is a
//! 256-entry table built when the block is decoded, so a run is one lookup.
//!
//! Exactness: every rung the interpreter would enter is charged (two instructions and
//! one block each: the run loop charges `iters * ninsn` with `ninsn == 2`), never more
//! rungs than the interpreter would start before its budget check (the walk then
//! stops at the next rung's address), flags are those of the last compare walked, EIP
//! is the taken rung's target, the fall-through after the last rung or the next rung.
//! The block's byte range is extended over the whole ladder so a store into any rung
//! retires the fold; the ladder never leaves the block's first page.

use super::fold::{Fold, FoldEnd, Term};
use super::{Decline, Tier, Tiers};
use crate::cpu::Cpu;
use crate::cpu::flags::FlagOp;
use crate::exec::cache::Block;
use crate::mem::GuestMemory;
use iced_x86::{Code, Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind};
use std::sync::atomic::Ordering;

/// Most rungs one ladder holds (the lookup table stores rung numbers in a byte).
pub const MAX_RUNGS: usize = 64;

/// A matched ladder: rung `k` starts at `starts[k]`, compares the byte register with
/// `imms[k]` and branches to `targets[k]` on equal (`je`) or not equal (`jne`).
#[derive(Clone, Debug)]
pub struct Ladder {
    /// 8-bit register number (AL..BH are 0..7).
    pub reg: u8,
    pub imms: Vec<u8>,
    pub targets: Vec<u32>,
    pub starts: Vec<u32>,
    /// After the last rung's branch.
    pub fall: u32,
    /// For each byte value, the first rung whose branch is taken (`imms.len()` if none).
    first: Box<[u8; 256]>,
}

impl Ladder {
    /// Walks at most `max_rungs` (≥ 1) rungs from the first.
    pub fn run(&self, cpu: &mut Cpu, max_rungs: u64) -> FoldEnd {
        let v = cpu.reg(8, self.reg);
        let m = self.imms.len();
        let hit = self.first[(v & 0xff) as usize] as usize;
        let walk = if hit < m { hit + 1 } else { m };
        let allowed = (max_rungs.max(1)).min(m as u64) as usize;
        if walk > allowed {
            // The interpreter's budget check stops it at the start of rung `allowed`.
            self.compare(cpu, v, allowed - 1);
            cpu.eip = self.starts[allowed];
            return FoldEnd::Continue {
                iters: allowed as u64,
            };
        }
        self.compare(cpu, v, walk - 1);
        cpu.eip = if hit < m {
            self.targets[hit]
        } else {
            self.fall
        };
        FoldEnd::Exited { iters: walk as u64 }
    }

    #[inline(always)]
    fn compare(&self, cpu: &mut Cpu, v: u32, k: usize) {
        let b = self.imms[k] as u32;
        cpu.flags.set(FlagOp::Sub, 8, v.wrapping_sub(b), v, b);
    }
}

/// What a `cmp reg,imm` + conditional branch pair is.
enum Pair {
    /// `cmp r8,imm8` then `je`/`jne`: (register, immediate, branch taken on equal, target).
    Rung(u8, u8, bool, u32),
    /// A compare-and-branch pair outside the fold (other width, other condition).
    Near(Decline),
    /// Anything else.
    Other,
}

fn pair(cmp: &Instruction, jcc: &Instruction) -> Pair {
    let rung_like = cmp.mnemonic() == Mnemonic::Cmp
        && cmp.op0_kind() == OpKind::Register
        && matches!(
            cmp.op1_kind(),
            OpKind::Immediate8 | OpKind::Immediate16 | OpKind::Immediate32 | OpKind::Immediate8to32
        )
        && jcc.flow_control() == FlowControl::ConditionalBranch;
    if !rung_like {
        return Pair::Other;
    }
    if !matches!(cmp.code(), Code::Cmp_AL_imm8 | Code::Cmp_rm8_imm8)
        || cmp.has_lock_prefix()
        || cmp.segment_prefix() != iced_x86::Register::None
    {
        return Pair::Near(Decline::Op);
    }
    let eq = match jcc.code() {
        Code::Je_rel8_32 | Code::Je_rel32_32 => true,
        Code::Jne_rel8_32 | Code::Jne_rel32_32 => false,
        _ => return Pair::Near(Decline::Terminator),
    };
    let Some(reg) = crate::decode::gpr(cmp.op0_register()) else {
        return Pair::Near(Decline::Op);
    };
    Pair::Rung(reg, cmp.immediate(1) as u8, eq, jcc.near_branch32())
}

/// Tries to fold the ladder that starts at `block`. On a match, attaches the fold and
/// extends the block's byte range over the ladder.
pub fn attach(mem: &GuestMemory, b: &mut Block, tiers: &Tiers, stop: (u32, u32)) {
    if b.fold.is_some() || b.ninsn != 2 || b.ops.len() != 2 {
        return;
    }
    let page_end = (b.start & !0xfff).wrapping_add(0x1000);
    // A rung is at most 9 bytes (`80 /7 ib`, `0f 84 rel32`).
    let in_page = (page_end.wrapping_sub(b.start) as usize).min(9 * MAX_RUNGS);
    let mut bytes = vec![0u8; in_page];
    if mem.read_bytes(b.start, &mut bytes).is_err() {
        return;
    }
    let mut dec = Decoder::with_ip(32, &bytes, b.start as u64, DecoderOptions::NONE);
    let mut next_pair = || -> Option<(Instruction, Instruction)> {
        let a = dec.can_decode().then(|| dec.decode())?;
        let j = dec.can_decode().then(|| dec.decode())?;
        (!a.is_invalid() && !j.is_invalid()).then_some((a, j))
    };
    let Some((c0, j0)) = next_pair() else { return };
    if j0.next_ip32() != b.end {
        return;
    }
    let stats = tiers.stats(Tier::CaseChain);
    let decline = |d: Decline| {
        stats.declines[d as usize].fetch_add(1, Ordering::Relaxed);
    };
    let (reg, imm0, eq0, t0) = match pair(&c0, &j0) {
        Pair::Rung(r, i, e, t) => (r, i, e, t),
        Pair::Near(d) => {
            // Only a ladder-shaped near miss is worth recording.
            if let Some((c, j)) = next_pair()
                && !matches!(pair(&c, &j), Pair::Other)
            {
                decline(d);
            }
            return;
        }
        Pair::Other => return,
    };
    let mut imms = vec![imm0];
    let mut eqs = vec![eq0];
    let mut targets = vec![t0];
    let mut starts = vec![b.start];
    let mut fall = j0.next_ip32();
    let mut near = None;
    while imms.len() < MAX_RUNGS {
        let Some((c, j)) = next_pair() else { break };
        if c.ip32().wrapping_sub(stop.0) < stop.1 {
            break; // the interpreter stops there (an API thunk)
        }
        match pair(&c, &j) {
            Pair::Rung(r, i, e, t) if r == reg => {
                imms.push(i);
                eqs.push(e);
                targets.push(t);
                starts.push(c.ip32());
                fall = j.next_ip32();
            }
            Pair::Rung(..) => {
                near = Some(Decline::Shape);
                break;
            }
            Pair::Near(d) => {
                near = Some(d);
                break;
            }
            Pair::Other => break,
        }
    }
    if imms.len() < 2 {
        if let Some(d) = near {
            decline(d);
        }
        return;
    }
    if !tiers.is_on(Tier::CaseChain) {
        decline(Decline::GateOff);
        return;
    }
    let m = imms.len();
    let mut first = Box::new([m as u8; 256]);
    for (v, f) in first.iter_mut().enumerate() {
        if let Some(k) = (0..m).find(|&k| (v as u8 == imms[k]) == eqs[k]) {
            *f = k as u8;
        }
    }
    stats.matches.fetch_add(1, Ordering::Relaxed);
    // A store into any rung must retire this block (the cache retires by byte range);
    // the ladder ends inside the page decode_block already marked as code.
    b.end = fall;
    b.fold = Some(Box::new(Fold {
        tier: Tier::CaseChain,
        term: Term::Data,
        steps: Vec::new(),
        eips: Vec::new(),
        nexts: Vec::new(),
        cc: 0,
        start: b.start,
        fall,
        elems: 1,
        kernel: None,
        bulk_iters: Default::default(),
        runs: Default::default(),
        ladder: Some(Box::new(Ladder {
            reg,
            imms,
            targets,
            starts,
            fall,
            first,
        })),
    }));
}
