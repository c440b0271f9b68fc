//! Block chaining: a block's final branch enters the next block directly when it is
//! already decoded, instead of returning to the run loop. Each hop does the run
//! loop's per-block checks (budget, code changes by any thread, stop range) and
//! accounts the finished block exactly as the run loop would, so pacing and counters
//! are identical with chaining on or off. A chain is at most [`CHAIN_MAX`] blocks long,
//! which bounds halt latency and (should a hop not compile to a tail call) the native
//! stack depth.

use super::cache::BlockCache;
use super::op::Op;
use crate::cpu::{Cpu, Exit};

pub const CHAIN_MAX: u32 = 256;

/// Per-run chaining state kept in the CPU so branch handlers can reach it.
pub struct ChainState {
    cache: CachePtr,
    /// Hops left in this chain; 0 disables chaining.
    pub left: u32,
    pub budget_end: u64,
    pub seen_epoch: u64,
    pub stop_lo: u32,
    pub stop_len: u32,
    /// Instructions and ops of the block currently running.
    pub cur_ninsn: u32,
    pub cur_len: u32,
    /// `x87_fusion` runs, instructions, of those run inline, and ops counted but not
    /// dispatched (tiers/x87_fuse.rs), folded into the stats when the run ends.
    pub x87_runs: u64,
    pub x87_insns: u64,
    pub x87_inline: u64,
    pub x87_skipped: u64,
    /// Of `x87_insns`, those the entry-checked burst ran (tiers/x87_burst.rs).
    pub x87_burst: u64,
    /// Blocks entered and ops dispatched by hops since the run loop last folded them.
    pub blocks: u64,
    pub dispatches: u64,
    /// `lut_span` runs, units, page-verified runs and ops counted but not dispatched
    /// (tiers/span.rs), folded into the stats when the run ends.
    pub span_runs: u64,
    pub span_units: u64,
    pub span_bulk: u64,
    pub span_skipped: u64,
}

struct CachePtr(*const BlockCache);

// SAFETY: the pointer is only dereferenced by the thread that runs the executor that
// owns the cache, during `Executor::run`, which holds the cache borrowed.
unsafe impl Send for CachePtr {}

impl Default for ChainState {
    fn default() -> Self {
        ChainState {
            cache: CachePtr(std::ptr::null()),
            left: 0,
            budget_end: 0,
            seen_epoch: 0,
            stop_lo: 0,
            stop_len: 0,
            cur_ninsn: 0,
            cur_len: 0,
            x87_runs: 0,
            x87_insns: 0,
            x87_inline: 0,
            x87_skipped: 0,
            x87_burst: 0,
            blocks: 0,
            dispatches: 0,
            span_runs: 0,
            span_units: 0,
            span_bulk: 0,
            span_skipped: 0,
        }
    }
}

impl ChainState {
    /// Arms chaining for one run. `cache` must stay unmodified until [`Self::disarm`].
    pub(crate) fn arm(&mut self, cache: &BlockCache) {
        self.cache = CachePtr(cache as *const BlockCache);
    }

    pub(crate) fn disarm(&mut self) {
        self.left = 0;
        self.cache = CachePtr(std::ptr::null());
    }

    /// The run loop enters `b` (its plain run or the rest of it after compiled
    /// code): one block entered, and the chain state its handlers charge from.
    pub(crate) fn enter(&mut self, b: &super::cache::Block, left: u32, seen_epoch: u64) {
        self.blocks += 1;
        self.cur_ninsn = b.ninsn;
        self.cur_len = b.ops.len() as u32;
        self.left = left;
        self.seen_epoch = seen_epoch;
    }
}

/// Ends the current block with a transfer to `target`, entering the next block
/// directly when allowed.
#[inline(always)]
pub fn jump_chain(cpu: &mut Cpu, target: u32) -> Exit {
    cpu.eip = target;
    let c = &cpu.chain;
    // The per-block loop of the `dispatch-loop` alternative owns the op index, so a
    // chained block cannot run inside it.
    if cfg!(feature = "dispatch-loop")
        || c.left == 0
        || cpu.retired + c.cur_ninsn as u64 >= c.budget_end
        || target.wrapping_sub(c.stop_lo) < c.stop_len
        || cpu.mem.code_epoch() != c.seen_epoch
    {
        return Exit::Block;
    }
    let cache = c.cache.0;
    // SAFETY: `left > 0` only between `arm` and `disarm` inside `Executor::run`, which
    // keeps the cache alive and unmodified while handlers run (decoding, insertion and
    // invalidation happen only in the run loop, between blocks).
    let cache: &BlockCache = unsafe { &*cache };
    let Some(b) = cache.lookup(target) else {
        return Exit::Block;
    };
    let ops: &[Op] = &b.ops;
    let c = &mut cpu.chain;
    c.left -= 1;
    cpu.retired += c.cur_ninsn as u64;
    c.dispatches += c.cur_len as u64;
    c.blocks += 1;
    c.cur_ninsn = b.ninsn;
    c.cur_len = ops.len() as u32;
    (ops[0].h)(cpu, ops, 0)
}
