//! The executor: runs a guest thread's blocks out of its block cache until a budget
//! is spent, an API thunk is reached, an exception is raised or a halt is requested.
//!
//! Dispatch design (measurements in docs/performance.md): inside a block every
//! handler ends by calling the next op's handler with the same signature, which LLVM
//! compiles to a `jmp`; the last op of a block returns to the run loop here, which
//! accounts the block, checks for code changes by other threads and finds the next
//! block through the page directory.

pub mod cache;
pub mod chain;
pub mod op;

use crate::attention::{self, Attention};
use crate::cpu::{Cpu, Exception, Exit};
use crate::stats::ExecCounters;
use crate::tiers::fold::{FoldEnd, RUN_CAP};
use crate::tiers::region::{RegionEnd, RegionIndex};
use crate::tiers::{HotBlock, Tier, Tiers};
use cache::{Block, BlockCache};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub use crate::cpu::ExceptionKind;
pub use op::{Handler, Op};

/// Why [`Executor::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The instruction budget was spent (checked at block boundaries).
    BudgetSpent,
    /// Control reached an address in the stop range (an API thunk); EIP is there.
    Thunk(u32),
    /// A precise guest exception; the CPU state is as before the faulting instruction.
    Exception(Exception),
    /// Another thread asked this one to stop.
    Halt,
}

/// Optional profiling data; when off, the run loop is a different monomorphisation
/// and pays nothing for it.
#[derive(Default)]
pub struct Profile {
    /// Executions per iced `Code` (per handler form).
    pub per_code: Vec<u64>,
}

/// Whether new executors chain blocks (see [`Executor::chaining`]).
pub const CHAINING_DEFAULT: bool = false;

pub struct Executor {
    cache: BlockCache,
    seen_epoch: u64,
    pub counters: ExecCounters,
    stop_lo: u32,
    stop_len: u32,
    profile: Option<Box<Profile>>,
    /// The halt flag and what other threads raise for compiled code (a gate
    /// switch, a code write): `crate::attention`.
    halt: Arc<Attention>,
    /// The guest memory (its host base) `halt` watches code writes in.
    watched_mem: usize,
    scratch: Vec<(u32, u32)>,
    /// Longest block the decoder builds.
    pub max_block_insns: usize,
    /// Whether branches enter cached successor blocks directly (see [`chain`]).
    /// Off by default: measured no faster than returning to the run loop on the
    /// benchmark shapes (docs/performance.md); kept as a switchable alternative.
    pub chaining: bool,
    /// Tier gates and stats (shared with every executor of the process by default).
    tiers: Arc<Tiers>,
    /// The gate epoch this executor's decoded code was matched under.
    seen_tiers: u64,
    /// `Cpu::null_segs` the cached blocks were decoded under.
    seen_null: u8,
    /// The segment bases compiled code embeds (`jit::Env::seg`).
    seen_bases: [u32; 8],
    /// Live `block_exec` regions, for code-write invalidation (tiers/region.rs).
    regions: RegionIndex,
    hits: Vec<u32>,
    /// Micro-op tier state of this thread (src/core/src/uop/engine.rs).
    pub uop: crate::uop::engine::UopState,
    /// Native-code tier state and code memory of this thread (src/core/src/jit).
    jit: crate::jit::JitState,
    /// Compiled code may access guest memory unchecked through the protected
    /// view (`jit::native::host_faults`).
    host_faults: bool,
}

impl Drop for Executor {
    fn drop(&mut self) {
        // The thread's code memory goes with it (`code_bytes_live` in the tier stats).
        self.jit.clear(&self.tiers.jit);
    }
}

impl Default for Executor {
    fn default() -> Self {
        Self::new()
    }
}

impl Executor {
    pub fn new() -> Executor {
        let halt = Arc::new(Attention::new());
        crate::tiers::global().watch(&halt);
        Executor {
            cache: BlockCache::new(),
            seen_epoch: u64::MAX,
            counters: ExecCounters::default(),
            stop_lo: 0,
            stop_len: 0,
            profile: None,
            halt,
            watched_mem: 0,
            scratch: Vec::new(),
            max_block_insns: 64,
            chaining: CHAINING_DEFAULT,
            seen_tiers: crate::tiers::global().epoch(),
            seen_null: 1 << crate::cpu::seg::GS,
            seen_bases: [0; 8],
            tiers: crate::tiers::global(),
            regions: RegionIndex::default(),
            hits: Vec::new(),
            uop: Default::default(),
            jit: Default::default(),
            host_faults: crate::jit::native::host_faults(),
        }
    }

    /// Uses `tiers` (gates and stats) instead of the process-wide ones; drops code
    /// matched under the previous gates.
    pub fn set_tiers(&mut self, tiers: Arc<Tiers>) {
        // Compiled code was counted in the old stats: free it there.
        self.flush();
        tiers.watch(&self.halt);
        self.seen_tiers = tiers.epoch();
        self.tiers = tiers;
        self.flush();
    }

    pub fn tiers(&self) -> &Arc<Tiers> {
        &self.tiers
    }

    /// Hot blocks with the tier that runs each, most entered first. Entries are
    /// counted on every block entry (a fast-path iteration counts as one).
    pub fn hot_blocks_tiered(&self, n: usize) -> Vec<HotBlock> {
        let mut v: Vec<HotBlock> = self
            .cache
            .blocks()
            .filter(|b| b.entries.get() > 0)
            .map(|b| HotBlock {
                start: b.start,
                entries: b.entries.get(),
                insns_per_entry: b.ninsn,
                tier: b
                    .fold
                    .as_ref()
                    .map(|f| f.tier)
                    .or(b.region.as_ref().map(|_| Tier::BlockExec)),
            })
            .collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.entries));
        v.truncate(n);
        v
    }

    /// Every live block entered at least once, in no particular order (entries since
    /// the block was decoded); what [`crate::tiers::hot::HotTracker`] samples.
    pub fn block_entries(&self) -> impl Iterator<Item = HotBlock> + '_ {
        self.cache
            .blocks()
            .filter(|b| b.entries.get() > 0)
            .map(|b| HotBlock {
                start: b.start,
                entries: b.entries.get(),
                insns_per_entry: b.ninsn,
                tier: b
                    .fold
                    .as_ref()
                    .map(|f| f.tier)
                    .or(b.region.as_ref().map(|_| Tier::BlockExec)),
            })
    }

    /// Addresses in `[lo, hi)` stop the run with [`StopReason::Thunk`] when reached.
    pub fn set_stop_range(&mut self, lo: u32, hi: u32) {
        self.stop_lo = lo;
        self.stop_len = hi.wrapping_sub(lo);
        // Links skip the stop-range check: they are made again under the new range.
        self.jit.unlink_all();
    }

    /// Whether this executor's background compiler is working (`jit`): the bench
    /// counts the wait for it in the arm that asked ([`crate::bench::run_pair`]).
    pub fn jit_compiling(&mut self) -> bool {
        self.jit.compiling(&self.cache)
    }

    /// A flag another thread can set to stop this executor at its next block boundary.
    pub fn halt_handle(&self) -> Arc<Attention> {
        self.halt.clone()
    }

    /// Turns the per-handler and per-block histograms on or off.
    pub fn set_profiling(&mut self, on: bool) {
        if on && self.profile.is_none() {
            self.profile = Some(Box::new(Profile {
                per_code: vec![0; iced_x86::Code::values().len()],
            }));
        } else if !on {
            self.profile = None;
        }
    }

    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_deref()
    }

    /// Hot blocks: (start address, instructions, entries), most entered first.
    pub fn hot_blocks(&self, n: usize) -> Vec<(u32, u32, u64)> {
        let mut v: Vec<_> = self
            .cache
            .blocks()
            .map(|b| (b.start, b.ninsn, b.entries.get()))
            .filter(|b| b.2 > 0)
            .collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.2));
        v.truncate(n);
        v
    }

    /// Drops all decoded code (e.g. after a tier switch).
    pub fn flush(&mut self) {
        self.cache.flush();
        self.regions.clear();
        self.uop.clear();
        // Every block holding compiled code is gone: its code memory can go too.
        self.jit.clear(&self.tiers.jit);
        self.counters.flushes += 1;
    }

    /// Runs until at least `budget` more instructions have retired (checked at block
    /// boundaries) or something stops the thread.
    pub fn run(&mut self, cpu: &mut Cpu, budget: u64) -> StopReason {
        let start = cpu.retired;
        let r = if self.profile.is_some() {
            self.run_loop::<true>(cpu, budget)
        } else {
            self.run_loop::<false>(cpu, budget)
        };
        cpu.chain.disarm();
        self.counters.insns += cpu.retired - start;
        self.counters.blocks += std::mem::take(&mut cpu.chain.blocks);
        let skipped = crate::tiers::span::flush_stats(&mut cpu.chain, &self.tiers);
        self.counters.dispatches += std::mem::take(&mut cpu.chain.dispatches) - skipped;
        let x87_skipped = crate::tiers::x87_fuse::flush_stats(&mut cpu.chain, &self.tiers);
        self.counters.dispatches -= x87_skipped;
        self.jit
            .flush_stats(&self.tiers.jit, self.tiers.stats(Tier::Jit));
        r
    }

    fn run_loop<const PROF: bool>(&mut self, cpu: &mut Cpu, budget: u64) -> StopReason {
        let target = cpu.retired.saturating_add(budget);
        cpu.chain.budget_end = target;
        cpu.chain.stop_lo = self.stop_lo;
        cpu.chain.stop_len = self.stop_len;
        let chain_max = if PROF || !self.chaining {
            0
        } else {
            chain::CHAIN_MAX
        };
        // The cache stays at this address for the whole run; it is only modified
        // between blocks, never while a handler (and so a chain hop) runs.
        cpu.chain.arm(&self.cache);
        // Compiled code embeds the guest memory's addresses.
        if self.jit.other_memory(&cpu.mem) {
            self.flush();
        }
        if self.watched_mem != cpu.mem.host_base() as usize {
            self.watched_mem = cpu.mem.host_base() as usize;
            cpu.mem.watch(&self.halt);
        }
        loop {
            // After a uop exit inside a block, the rest of that block runs before the
            // next budget or halt check, as it would have without the program.
            let mid = std::mem::take(&mut self.uop.resume_mid_block);
            if cpu.retired >= target && !mid {
                return StopReason::BudgetSpent;
            }
            // One load of the attention byte per block boundary: raised bits are
            // cleared before the state they announce is read (a raise after this
            // stays), and its halt bit is the halt check below.
            let att = self.halt.bits();
            if att & (attention::CODE | attention::TIERS) != 0 {
                self.halt.clear(attention::CODE | attention::TIERS);
            }
            if cpu.mem.code_epoch() != self.seen_epoch {
                self.sync_code(cpu);
            }
            // A tier switch retires everything matched under the old gates.
            let te = self.tiers.epoch();
            if te != self.seen_tiers {
                self.seen_tiers = te;
                self.flush();
            }
            if att & attention::HALT != 0 && !mid {
                return StopReason::Halt;
            }
            let eip = cpu.eip;
            if eip.wrapping_sub(self.stop_lo) < self.stop_len {
                return StopReason::Thunk(eip);
            }
            // Bounded code memory: past the cap, all decoded and compiled code goes.
            if self.jit.over_cap() {
                self.flush();
            }
            // Code the background compiler finished goes into its blocks.
            if self.jit.pending() {
                self.jit.poll(
                    &self.cache,
                    cpu.mem.host_base() as usize,
                    &self.tiers.jit,
                    self.tiers.stats(Tier::Jit),
                );
            }
            // Decoded code depends on which data segment registers are null.
            if cpu.null_segs != self.seen_null {
                self.seen_null = cpu.null_segs;
                self.flush();
            }
            // Compiled code embeds the segment bases (a thread sets FS once; a
            // program that loads a segment register with another base is rare).
            if cpu.seg_base != self.seen_bases {
                self.seen_bases = cpu.seg_base;
                self.flush();
            }
            let (mem, max, stop, null) = (
                &cpu.mem,
                self.max_block_insns,
                (self.stop_lo, self.stop_len),
                cpu.null_segs,
            );
            let decodes = &mut self.counters.decodes;
            let tiers = &*self.tiers;
            let regions = &mut self.regions;
            // A shared borrow of the cache for the block (the `jit` tier reads other
            // blocks while it runs this one); decoding inserts under a mutable one.
            let block: &Block = match self.cache.lookup(eip) {
                Some(b) => b,
                None => {
                    let decoded = (|| {
                        *decodes += 1;
                        let mut b = crate::decode::decode_block(mem, eip, max, stop, null)?;
                        // The tiers compute addresses themselves: a block with an access
                        // through a null segment (which must fault) runs plain.
                        let null_access = b.ops.iter().any(|o| {
                            std::ptr::fn_addr_eq(o.h, crate::ops::far::null_segment as Handler)
                        });
                        if null_access {
                            return Ok(b);
                        }
                        b.fold = crate::tiers::fold::match_block(mem, &b, tiers);
                        crate::tiers::span::attach(mem, &mut b, tiers, stop);
                        if b.fold.is_none() && !PROF {
                            b.region =
                                crate::tiers::region::match_region(mem, &b, tiers, max, stop, null);
                            if let Some(r) = &b.region {
                                regions.add(b.start, &r.spans);
                            }
                        }
                        if !PROF {
                            crate::tiers::x87_fuse::attach(&mut b, tiers);
                        }
                        Ok(b)
                    })();
                    match decoded {
                        Ok(b) => {
                            let start = b.start;
                            self.cache.insert(b);
                            self.cache.lookup(start).expect("inserted above")
                        }
                        Err(e) => return StopReason::Exception(e),
                    }
                }
            };
            block.entries.set(block.entries.get() + 1);
            // A folded self-loop runs whole iterations natively (tiers/fold.rs). It
            // never starts more iterations than the interpreter would start blocks
            // before its budget check stops it; profiling runs the plain ops so the
            // per-form histogram stays meaningful.
            if let (false, Some(f)) = (PROF || mid, block.fold.as_deref()) {
                let n = block.ninsn as u64;
                let allowed = (target - cpu.retired).div_ceil(n).min(RUN_CAP);
                let bulk0 = f.bulk_iters.get();
                let end = f.run(cpu, allowed);
                if end == FoldEnd::Declined {
                    // Fall through to the plain ops for this entry.
                } else {
                    let (iters, partial_insns, partial) = match end {
                        FoldEnd::Continue { iters } | FoldEnd::Exited { iters } => (iters, 0, 0),
                        FoldEnd::Fault { iters, step } => (iters, step as u64, 1),
                        FoldEnd::CodeWrite { iters, step } => (iters, step as u64 + 1, 1),
                        FoldEnd::Declined => unreachable!("handled above"),
                    };
                    cpu.retired += iters * n + partial_insns;
                    cpu.chain.blocks += iters + partial;
                    cpu.chain.dispatches += 1;
                    block.entries.set(block.entries.get() + iters + partial - 1);
                    let st = self.tiers.stats(f.tier);
                    if iters > 0 {
                        f.runs.set(f.runs.get() + 1);
                        st.runs.fetch_add(1, Ordering::Relaxed);
                        st.iterations.fetch_add(iters, Ordering::Relaxed);
                        st.elements
                            .fetch_add(iters * f.elems as u64, Ordering::Relaxed);
                        st.bulk
                            .fetch_add(f.bulk_iters.get() - bulk0, Ordering::Relaxed);
                    }
                    if let FoldEnd::Fault { .. } = end {
                        return fault_stop(cpu);
                    }
                    continue;
                }
            }
            // A hot loop head with a uop program runs it (src/core/src/uop/engine.rs);
            // the program exits at an exact instruction with pacing charged. A block
            // the tier cannot take (the gate off, a fold's block, a head with a
            // negative verdict) is marked the first time it is asked, so the verdict
            // table is probed once per block, not at every entry (before, the null
            // shape's blocks paid a probe per entry in both arms, and 4 host
            // instructions more with the tier on). The mark lasts as long as the
            // block: a gate switch flushes decoded code, and a negative verdict lasts
            // until a flush.
            if !PROF
                && !mid
                && !block.uop_skip.get()
                && block.entries.get() >= crate::uop::engine::HOT
            {
                if !self.tiers.is_on(Tier::Uop)
                    || block.fold.is_some()
                    || self.uop.settled(block.start)
                {
                    block.uop_skip.set(true);
                } else {
                    let env = crate::uop::lower::Env {
                        max_insns: self.max_block_insns,
                        stop: (self.stop_lo, self.stop_len),
                        // A null data segment is no flat one: the IR declines its
                        // accesses, which fault.
                        seg_base: std::array::from_fn(|s| {
                            if cpu.null_segs & (1 << s) != 0 {
                                1
                            } else {
                                cpu.seg_base[s]
                            }
                        }),
                    };
                    let st = self.tiers.stats(Tier::Uop);
                    if let Some(e) = self.uop.enter(cpu, block, target, &self.halt, &env, st) {
                        cpu.chain.dispatches += 1;
                        block.entries.set(block.entries.get() + e.iters);
                        continue;
                    }
                }
            }
            // A region runs its blocks by index until it leaves (tiers/region.rs); it
            // charges instructions and blocks per block exactly as below.
            if let (false, Some(r)) = (PROF || mid, block.region.as_deref())
                && r.stop == (self.stop_lo, self.stop_len)
            {
                let before = cpu.retired;
                let run = r.run(cpu, target, self.seen_epoch, RUN_CAP);
                cpu.chain.dispatches += 1;
                block.entries.set(block.entries.get() + run.heads - 1);
                let st = self.tiers.stats(Tier::BlockExec);
                st.runs.fetch_add(1, Ordering::Relaxed);
                st.iterations.fetch_add(run.blocks, Ordering::Relaxed);
                st.elements
                    .fetch_add(cpu.retired - before, Ordering::Relaxed);
                if run.end == RegionEnd::Fault {
                    return fault_stop(cpu);
                }
                continue;
            }
            // A hot block whose instructions are all in the `jit` tier's vocabulary
            // runs as host code (src/core/src/jit), charged as the plain block: one
            // block entered, its instructions retired up to where it left. Compiled
            // code charges itself, and enters the compiled successors it finds in
            // the link table after the per-block checks this loop makes.
            if !PROF
                && !mid
                && block.entries.get() >= crate::jit::HOT
                && cpu.retired.saturating_add(crate::jit::BUDGET_MARGIN) < target
                && matches!(
                    block.jit.get(),
                    crate::jit::Slot::Untried
                        | crate::jit::Slot::Code(_)
                        | crate::jit::Slot::Pending(_)
                )
            {
                // Code is only ever compiled under the gates in force (a switch
                // flushes it), so a block holding some runs it without more checks.
                let code = if let crate::jit::Slot::Code(c) = block.jit.get() {
                    Some(c)
                } else if self.tiers.is_on(Tier::Jit) {
                    let env = crate::jit::Env {
                        perms: cpu.mem.perm_table() as usize,
                        base: cpu.mem.host_base() as usize,
                        view: match cpu.mem.protected_view() {
                            Some(v) if self.host_faults => v as usize,
                            _ => 0,
                        },
                        seg: self.seen_bases,
                    };
                    self.jit.code(
                        block,
                        &self.cache,
                        (self.stop_lo, self.stop_len),
                        &cpu.mem,
                        &env,
                        self.tiers.jit_background(),
                        &self.tiers.jit,
                        self.tiers.stats(Tier::Jit),
                    )
                } else {
                    block.jit.set(crate::jit::Slot::Declined);
                    None
                };
                // Compiled code stops where fewer than the margin are left (the
                // entry condition above keeps this positive); a raise since the
                // loop read the byte: round again first.
                let halt = &self.halt;
                let code = code.filter(|_| {
                    halt.arm(crate::jit::start_counts(
                        cpu,
                        target - crate::jit::BUDGET_MARGIN,
                    ))
                });
                if let Some(code) = code {
                    cpu.jit_limit = self.halt.limit_ptr() as usize as u64;
                    self.jit.enter(eip, code);
                    let (before, blocks) = (cpu.retired, cpu.chain.blocks);
                    let mut kind = code.run(cpu);
                    crate::jit::counts(cpu);
                    cpu.chain.dispatches += 1;
                    self.jit
                        .note_exit(kind, cpu.retired - before, cpu.chain.blocks - blocks);
                    // An unchecked access faulted on the host: compiled code had
                    // spilled the state of a point before it with no store after
                    // (`jit::Gen::spill`), EIP the block of that point; the
                    // interpreter repeats what the code did from there, up to the
                    // access, which it makes (or faults on) exactly.
                    let mut recheck = Vec::new();
                    if kind == crate::jit::EXIT_HOST_FAULT {
                        kind = cpu.jit_resume as u32;
                        cpu.eip = (cpu.jit_resume >> 32) as u32;
                        recheck = self.jit.host_fault(cpu.eip, &self.tiers.jit);
                    }
                    if kind == crate::jit::EXIT_FAULT {
                        return fault_stop(cpu);
                    }
                    if kind & 0xff != crate::jit::EXIT_RESUME {
                        continue;
                    }
                    // A memory access's slow path: compiled code ran the block at
                    // EIP up to instruction `k` (charging nothing for it) and the
                    // interpreter runs the rest of the same decoded block, charged
                    // below as its plain run is. The block is live: nothing retires
                    // blocks while compiled code runs, and a retired member retires
                    // its region's head (`JitState::regions`).
                    let k = (kind >> 8) as usize;
                    let Some(b) = self.cache.lookup(cpu.eip).filter(|b| k < b.ops.len()) else {
                        unreachable!("compiled code resumes in a live block");
                    };
                    cpu.chain.enter(b, chain_max, self.seen_epoch);
                    let exit = run_block_from(cpu, &b.ops, k);
                    // The first k ops of the block were compiled code's.
                    let disp = charge(cpu, exit);
                    cpu.chain.dispatches += disp.saturating_sub(k as u64);
                    if !recheck.is_empty() {
                        // Links may name the code: a new link epoch first.
                        self.jit.unlink_all();
                        for h in recheck {
                            if let Some(b) = self.cache.lookup(h) {
                                b.jit.set(crate::jit::Slot::Untried);
                            }
                        }
                    }
                    if exit == Exit::Fault {
                        return fault_stop(cpu);
                    }
                    continue;
                }
            }
            cpu.chain.enter(block, chain_max, self.seen_epoch);
            let exit = run_block(cpu, &block.ops);
            // Account the block that ended the chain (the first one if none chained).
            let disp = charge(cpu, exit);
            cpu.chain.dispatches += disp;
            if PROF {
                // Profiling disables chaining, so the block entered is the one that ran.
                let ops = &block.ops[..(disp as usize).min(block.ops.len())];
                if let Some(p) = self.profile.as_deref_mut() {
                    for op in ops {
                        p.per_code[op.code as usize] += 1;
                    }
                }
            }
            if exit == Exit::Fault {
                return fault_stop(cpu);
            }
        }
    }

    /// Replays code writes (by any thread) into this thread's cache.
    #[cold]
    fn sync_code(&mut self, cpu: &Cpu) {
        if self.seen_epoch == u64::MAX {
            self.seen_epoch = cpu.mem.code_epoch();
            return;
        }
        self.scratch.clear();
        match cpu
            .mem
            .code_writes_since(self.seen_epoch, &mut self.scratch)
        {
            Some(now) => {
                self.seen_epoch = now;
                // A retired block may hold compiled code that links name.
                if !self.scratch.is_empty() {
                    self.jit.unlink_all();
                }
                for &(a, l) in &self.scratch {
                    self.counters.invalidations += self.cache.invalidate(a, l) as u64;
                    self.uop.invalidate(a, l);
                    // A write into a region's interior retires the region's head.
                    self.regions.take_hits(a, l, &mut self.hits);
                    // Likewise a write into a compiled region's other blocks.
                    self.jit.regions.take_hits(a, l, &mut self.hits);
                    for h in self.hits.drain(..) {
                        self.counters.invalidations += self.cache.invalidate(h, 1) as u64;
                    }
                }
            }
            None => {
                self.seen_epoch = cpu.mem.code_epoch();
                self.flush();
            }
        }
    }
}

/// The stop of a run whose block faulted (its handler, fold, region or compiled
/// code recorded the exception): EIP goes to the faulting instruction.
fn fault_stop(cpu: &mut Cpu) -> StopReason {
    let e = cpu
        .pending
        .take()
        .expect("whatever faults records its exception");
    cpu.eip = e.eip;
    StopReason::Exception(e)
}

/// Charges the instructions the block that ended a run of ops retired (up to a
/// fault, through a store into code); returns the ops it dispatched.
#[inline(always)]
fn charge(cpu: &mut Cpu, exit: Exit) -> u64 {
    let ch = &cpu.chain;
    let (done, disp) = match exit {
        Exit::Block => (ch.cur_ninsn as u64, ch.cur_len as u64),
        Exit::Fault => (cpu.exit_at as u64, cpu.exit_at as u64 + 1),
        Exit::CodeWrite => (cpu.exit_at as u64 + 1, cpu.exit_at as u64 + 1),
        #[cfg(feature = "dispatch-loop")]
        Exit::Next => unreachable!("run_block_from consumes Next"),
    };
    cpu.retired += done;
    disp
}

/// Enters a block: its first handler tail-calls the rest.
#[inline(always)]
fn run_block(cpu: &mut Cpu, ops: &[Op]) -> Exit {
    run_block_from(cpu, ops, 0)
}

/// Runs a block's ops from op `k` to its end.
#[cfg(not(feature = "dispatch-loop"))]
#[inline(always)]
fn run_block_from(cpu: &mut Cpu, ops: &[Op], k: usize) -> Exit {
    (ops[k].h)(cpu, ops, k)
}

/// The per-block loop of the `dispatch-loop` alternative.
#[cfg(feature = "dispatch-loop")]
#[inline(always)]
fn run_block_from(cpu: &mut Cpu, ops: &[Op], k: usize) -> Exit {
    let mut i = k;
    loop {
        match (ops[i].h)(cpu, ops, i) {
            Exit::Next => i += 1,
            e => return e,
        }
    }
}

impl Block {
    pub fn new(ops: Vec<Op>, start: u32, end: u32, ninsn: u32) -> Block {
        Block {
            ops: ops.into_boxed_slice(),
            start,
            end,
            ninsn,
            live: true,
            entries: Cell::new(0),
            uop_skip: Cell::new(false),
            fold: None,
            region: None,
            jit: Cell::new(crate::jit::Slot::Untried),
        }
    }
}
