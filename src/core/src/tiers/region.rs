//! `block_exec`: one descriptor-driven executor for a region of up to
//! [`MAX_BLOCKS`] blocks and [`MAX_EXITS`] exits (block-executor design, seeds
//! tree-fold-block-executor.md and region-descriptor-measurement.md).
//!
//! A region is the set of blocks on a cycle through a head block, found at the head's
//! decode time ([`shape`]). A self-loop is a one-block region; a loop nest, a
//! diamond or a compare ladder inside a loop is a multi-block one. The executor
//! ([`exec`]) runs the region's micro-ops ([`uop`]) block after block without
//! returning to the run loop, following interior edges by block index.
//!
//! Exactness (what the run loop sees is what the interpreter would have left):
//! - side exits happen only at block edges, with the full state published (registers,
//!   lazy flags, EIP); instructions retired and blocks entered are charged per block
//!   exactly as the run loop charges them;
//! - the budget is checked on every block edge, so a deterministic slice ends on the
//!   same block boundary as the interpreter's;
//! - a fault or a store into a code page ends the run inside the block precisely
//!   (same exception and state as the handler, same retired count);
//! - the dead-flag pass ([`flags`]) drops only flag writes that every path overwrites
//!   before anything reads them, and no exit ever sees a dropped write.
//!
//! Census (count-only mode): with the gate off the matcher still runs and records
//! a would-be region as a `gate_off` decline, so `--stats` shows what the tier would
//! take and why it declines the rest.

#[path = "region_exec.rs"]
mod exec;
#[path = "region_flags.rs"]
mod flags;
#[path = "region_shape.rs"]
pub mod shape;
#[path = "region_uop.rs"]
mod uop;

use super::{Decline, Tier, Tiers};
use crate::exec::cache::Block;
use crate::mem::GuestMemory;
use std::sync::atomic::Ordering;

pub use exec::{RegionEnd, RunInfo};

/// Most blocks in one region.
pub const MAX_BLOCKS: usize = 16;
/// Most distinct exit targets of one region.
pub const MAX_EXITS: usize = 8;

/// A region successor: a block of the region or an exit to an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Succ {
    Block(u16),
    Exit(u32),
}

/// How a region block hands over to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RTerm {
    Jcc { cc: u8, taken: Succ, fall: Succ },
    Goto(Succ),
}

/// One block of a region descriptor.
pub struct RBlock {
    pub start: u32,
    pub ninsn: u32,
    /// The block's instructions before its branch (all of them when it ends by
    /// falling through).
    pub uops: Box<[uop::Uop]>,
    pub term: RTerm,
}

/// A region descriptor, attached to its head block.
pub struct Region {
    pub blocks: Box<[RBlock]>,
    /// Guest byte ranges `[start, end)` of the region's blocks: a code write into any
    /// of them retires the region (the executor drops the head block).
    pub spans: Box<[(u32, u32)]>,
    /// The stop range the blocks were decoded under.
    pub stop: (u32, u32),
    /// Flag writes the dead-flag pass removed (for the docs' census).
    pub dead_flags: u32,
}

/// Tries to build a region headed by a freshly decoded block (that no fold took).
/// Records the match or the decline in the `block_exec` stats; returns the region
/// only when the gate is on.
pub fn match_region(
    mem: &GuestMemory,
    head: &Block,
    tiers: &Tiers,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Option<Box<Region>> {
    let st = tiers.stats(Tier::BlockExec);
    let decline = |d: Decline| {
        st.declines[d as usize].fetch_add(1, Ordering::Relaxed);
        None
    };
    let g = match shape::discover(mem, head, max_insns, stop, null_segs) {
        Ok(g) => g,
        Err(d) => return decline(d),
    };
    if !tiers.is_on(Tier::BlockExec) {
        return decline(Decline::GateOff);
    }
    let Some(r) = build(mem, g, stop) else {
        return decline(Decline::Op);
    };
    st.matches.fetch_add(1, Ordering::Relaxed);
    Some(Box::new(r))
}

/// Lowers a discovered region into its descriptor.
fn build(mem: &GuestMemory, g: shape::Graph, stop: (u32, u32)) -> Option<Region> {
    let index = |a: u32| -> Succ {
        match g.blocks.iter().position(|b| b.start == a) {
            Some(i) => Succ::Block(i as u16),
            None => Succ::Exit(a),
        }
    };
    let mut blocks = Vec::with_capacity(g.blocks.len());
    for (b, t) in g.blocks.iter().zip(&g.terms) {
        let term = match *t {
            shape::Term::Jcc { cc, taken, fall } => RTerm::Jcc {
                cc,
                taken: index(taken),
                fall: index(fall),
            },
            shape::Term::Goto(a) => RTerm::Goto(index(a)),
            shape::Term::Dynamic => return None,
        };
        let body = match term {
            RTerm::Jcc { .. } => b.ninsn as usize - 1,
            RTerm::Goto(_) if b.ops.len() == b.ninsn as usize + 1 => b.ninsn as usize,
            RTerm::Goto(_) => b.ninsn as usize - 1,
        };
        let uops = uop::lower_block(mem, b, body)?;
        blocks.push(RBlock {
            start: b.start,
            ninsn: b.ninsn,
            uops,
            term,
        });
    }
    let dead_flags = flags::elide_dead(&mut blocks);
    Some(Region {
        spans: g.blocks.iter().map(|b| (b.start, b.end)).collect(),
        blocks: blocks.into_boxed_slice(),
        stop,
        dead_flags,
    })
}

/// Regions alive in one executor, by head, for code-write invalidation: a write
/// into a region's interior block does not touch the head block's own bytes, so the
/// block cache alone would not retire the region.
#[derive(Default)]
pub struct RegionIndex {
    heads: Vec<(u32, Box<[(u32, u32)]>)>,
    /// Guest pages some region's blocks lie in (kept until `clear`): a write
    /// outside them is no region's, and most code writes are into pages that hold
    /// code but not a region (the `jit` tier has a region for every hot head, and
    /// a program can store into its code pages millions of times).
    pages: std::collections::HashSet<u32>,
}

impl RegionIndex {
    pub fn add(&mut self, head: u32, spans: &[(u32, u32)]) {
        self.heads.retain(|(h, _)| *h != head);
        self.heads.push((head, spans.into()));
        for &(s, e) in spans {
            let last = e.wrapping_sub(1).max(s) >> 12;
            for pn in s >> 12..=last {
                self.pages.insert(pn);
            }
        }
    }

    pub fn clear(&mut self) {
        self.heads.clear();
        self.pages.clear();
    }

    /// Heads of regions with a block intersecting `[addr, addr+len)`; they are
    /// forgotten (the caller retires their head blocks).
    pub fn take_hits(&mut self, addr: u32, len: u32, out: &mut Vec<u32>) {
        if self.heads.is_empty() || len == 0 {
            return;
        }
        let lo = addr as u64;
        let hi = lo + len as u64;
        let (first, last) = ((lo >> 12) as u32, ((hi - 1) >> 12) as u32);
        if !(first..=last.max(first)).any(|pn| self.pages.contains(&pn)) {
            return;
        }
        self.heads.retain(|(h, spans)| {
            let hit = spans.iter().any(|&(s, e)| {
                let e = if e < s {
                    e as u64 + (1 << 32)
                } else {
                    e as u64
                };
                (s as u64) < hi && lo < e
            });
            if hit {
                out.push(*h);
            }
            !hit
        });
    }
}
