//! Region discovery: from a freshly decoded head block, decode forward along direct
//! edges and keep the blocks that lie on a cycle through the head.
//!
//! Every block is produced by the interpreter's own `decode_block` with the
//! executor's block-length cap and stop range, so a region block has exactly the
//! boundaries the interpreter would give a block starting there; a side exit
//! therefore always lands on an address the plain run loop decodes the same way.
//!
//! Decoding marks pages as holding code, and a store into a code page ends the
//! interpreter's block early (`Exit::CodeWrite`), which changes how many blocks are
//! entered. So discovery only decodes where the interpreter already has: a block is
//! followed only if every page `decode_block` would mark is marked already; anything
//! else is an exit. Discovery therefore has no side effect on guest memory, which is
//! what lets the census run in count-only mode with the gate off.

use super::{MAX_BLOCKS, MAX_EXITS};
use crate::exec::cache::Block;
use crate::mem::{GuestMemory, perm};
use crate::tiers::{Decline, Tiers};

/// Blocks decoded while looking for a cycle (the region keeps at most
/// [`MAX_BLOCKS`] of them).
const EXPLORE_MAX: usize = 32;

/// How a region block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Conditional branch: condition code, taken target, fall-through.
    Jcc { cc: u8, taken: u32, fall: u32 },
    /// Unconditional direct transfer (`jmp rel` or the end of a block that did not
    /// end in a branch).
    Goto(u32),
    /// Anything else (call, ret, indirect jump, loop/jecxz, int, ...): the region
    /// cannot follow it.
    Dynamic,
}

impl Term {
    fn targets(self) -> impl Iterator<Item = u32> {
        let (a, b) = match self {
            Term::Jcc { taken, fall, .. } => (Some(taken), Some(fall)),
            Term::Goto(t) => (Some(t), None),
            Term::Dynamic => (None, None),
        };
        a.into_iter().chain(b)
    }
}

/// The terminator of a decoded block, from its threaded ops.
pub fn term_of(b: &Block) -> Term {
    let Some(last) = b.ops.last() else {
        return Term::Dynamic;
    };
    if b.ops.len() == b.ninsn as usize + 1 {
        return Term::Goto(last.imm);
    }
    let code = crate::exec::op::iced_code(last.code);
    let m = code.mnemonic();
    if let Some(cc) = crate::ops::branch::cond_code(m) {
        return Term::Jcc {
            cc,
            taken: last.imm,
            fall: last.next,
        };
    }
    if matches!(
        code,
        iced_x86::Code::Jmp_rel32_32 | iced_x86::Code::Jmp_rel8_32
    ) {
        return Term::Goto(last.imm);
    }
    Term::Dynamic
}

/// A discovered region: `blocks[0]` is the head; every block lies on a cycle through
/// the head and ends in a direct branch.
pub struct Graph {
    pub blocks: Vec<Block>,
    pub terms: Vec<Term>,
    /// Distinct targets leaving the region.
    pub exits: Vec<u32>,
}

/// Whether the page of `eip` is marked as holding code (a block decoded there
/// must then also not spill into an unmarked page: [`decoded`]).
fn pages_marked(mem: &GuestMemory, eip: u32) -> bool {
    let p0 = mem.perm(eip);
    p0 & perm::READ != 0 && p0 & perm::CODE != 0
}

/// The block `decode_block` would decode at `eip`, decoded without marking
/// anything, if every page it lies in is marked already.
fn decoded(
    mem: &GuestMemory,
    eip: u32,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Option<Block> {
    let b = crate::decode::decode_block_unmarked(mem, eip, max_insns, stop, null_segs).ok()?;
    let page_end = (eip & !0xfff).wrapping_add(0x1000);
    if crate::decode::spills(b.start, b.end) && mem.perm(page_end) & perm::CODE == 0 {
        return None;
    }
    Some(b)
}

/// Finds the region headed by `head`, or why there is none.
pub fn discover(
    mem: &GuestMemory,
    head: &Block,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Result<Graph, Decline> {
    let in_stop = |a: u32| a.wrapping_sub(stop.0) < stop.1;
    let mut blocks: Vec<Block> = Vec::with_capacity(8);
    let mut terms: Vec<Term> = Vec::with_capacity(8);
    // Successor block indices (None: not decoded, so an exit).
    let mut succ: Vec<[Option<usize>; 2]> = Vec::with_capacity(8);
    let mut calls = false;
    let mut overflow = false;
    let Some(h) = decoded(mem, head.start, max_insns, stop, null_segs) else {
        return Err(Decline::Op);
    };
    if h.end != head.end || h.ninsn != head.ninsn {
        return Err(Decline::Op);
    }
    terms.push(term_of(&h));
    blocks.push(h);
    let mut k = 0;
    while k < blocks.len() {
        let t = terms[k];
        // A call returns to its fall-through, so a loop may continue through it: the
        // cycle is then broken by the terminator rather than absent.
        calls |= t == Term::Dynamic
            && blocks[k].ops.last().is_some_and(|o| {
                crate::exec::op::iced_code(o.code).mnemonic() == iced_x86::Mnemonic::Call
            });
        let mut s = [None, None];
        for (j, target) in t.targets().enumerate() {
            if let Some(i) = blocks.iter().position(|b| b.start == target) {
                s[j] = Some(i);
                continue;
            }
            if in_stop(target) || !pages_marked(mem, target) {
                continue;
            }
            if blocks.len() >= EXPLORE_MAX {
                overflow = true;
                continue;
            }
            if let Some(b) = decoded(mem, target, max_insns, stop, null_segs) {
                terms.push(term_of(&b));
                blocks.push(b);
                s[j] = Some(blocks.len() - 1);
            }
        }
        succ.push(s);
        k += 1;
    }
    // Blocks from which the head is reachable: the cycles through the head.
    let n = blocks.len();
    let mut on = vec![false; n];
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            if on[v] {
                continue;
            }
            if succ[v].iter().flatten().any(|&w| w == 0 || on[w]) {
                on[v] = true;
                changed = true;
            }
        }
    }
    if !on[0] {
        return Err(if overflow {
            Decline::Size
        } else if calls {
            Decline::Terminator
        } else {
            Decline::Shape
        });
    }
    let keep: Vec<usize> = (0..n).filter(|&v| on[v]).collect();
    if keep.len() > MAX_BLOCKS {
        return Err(Decline::Size);
    }
    let mut exits: Vec<u32> = Vec::new();
    for &v in &keep {
        for (j, target) in terms[v].targets().enumerate() {
            let inside = succ[v][j].is_some_and(|w| on[w]);
            if !inside && !exits.contains(&target) {
                exits.push(target);
            }
        }
    }
    if exits.len() > MAX_EXITS {
        return Err(Decline::Size);
    }
    // A self-loop a loop-idiom fold would take stays the fold's: the fold is faster
    // on it, and each tier's statistics then describe that tier alone. The same for
    // a block holding an unrolled LUT span or a case-chain rung (tiers/span.rs).
    let probe = Tiers::all(true);
    for &v in &keep {
        if crate::tiers::fold::match_block(mem, &blocks[v], &probe).is_some()
            || crate::tiers::span::would_fold(mem, &blocks[v])
        {
            return Err(Decline::Shape);
        }
    }
    let mut kept_blocks = Vec::with_capacity(keep.len());
    let mut kept_terms = Vec::with_capacity(keep.len());
    for (v, (b, t)) in blocks.into_iter().zip(terms).enumerate() {
        if on[v] {
            kept_blocks.push(b);
            kept_terms.push(t);
        }
    }
    Ok(Graph {
        blocks: kept_blocks,
        terms: kept_terms,
        exits,
    })
}
