//! The native-code tier `jit` (issue 19, docs/tiers.md): a hot interpreter block
//! whose instructions are all in the tier's vocabulary is compiled through Cranelift
//! to one host function, which the run loop calls instead of the block's threaded
//! ops. First slice: single decoded blocks (the interpreter's own boundaries, so
//! instructions retired and blocks entered are charged exactly as for the plain
//! block), 32-bit integer forms, guest memory through helper calls into the
//! interpreter's access functions (same permission table, same code-write
//! detection), and every exit back to the run loop.
//!
//! Vocabulary: MOV r/m32 (all forms, moffs included), ADD OR ADC SBB AND SUB XOR CMP
//! TEST r/m32 with r32/imm, INC DEC NEG NOT r32, LEA r32, MOVZX/MOVSX r32 from r8,
//! r16, m8, m16, PUSH r32/imm, POP r32, NOP; terminators JMP rel, Jcc rel (32-bit
//! operand size), CALL rel32, RET, RET imm16 and falling off the block's end.
//! Anything else declines the whole block (it keeps running on the threaded ops).
//!
//! Exactness: guest registers live in Cranelift variables for the block and are
//! written back at every exit; the lazy flag record of the block's last flag writer
//! is kept in SSA values and stored into `cpu.flags` (op, sign bit, result,
//! operands, and `aux` where the interpreter sets it) before anything that can
//! observe it: a memory access (it can fault or store into code and end the block
//! there) and every exit. Conditions, and the CF that INC/DEC/ADC/SBB read, are
//! computed from the record's values when the writer is in the block, otherwise by
//! a helper reading `cpu.flags`. A fault leaves registers and flags as they were
//! before the faulting instruction, with the exception recorded exactly as the
//! handler records it; a store into a page holding code retires the instruction and
//! leaves with EIP at the next one, as `Exit::CodeWrite` does.
//!
//! Code-write tracking: compiled code hangs off its interpreter block
//! ([`Block::jit`]), so it is retired exactly when the block cache retires the block
//! (a guest or host write into its bytes, replayed on every thread by
//! `Executor::sync_code`; a tier switch or flush). A region's code also hangs off
//! the other blocks it may be entered at (`JitState::set_entries`); the head and
//! each of those are registered in `JitState::regions` with the bytes of every block
//! of the region, so a write into any of them retires them all. Code memory is one reservation
//! per executor (`native::CodeMemory`), freed whole on a flush, and the executor
//! flushes when it exceeds [`CODE_CAP`].

mod access;
mod hist;
pub mod native;
mod worker;

use crate::cpu::Cpu;
use crate::cpu::flags::{AF, CF, FlagOp, LazyFlags, OF, PF, SF, ZF};
use crate::exec::cache::{Block, BlockCache};
use crate::exec::op::{Handler, Op};
use crate::mem::{GuestMemory, perm};
use crate::ops::alu::{ADC, ADD, AND, CMP, DEC, INC, NEG, NOT, OR, SBB, SUB, TEST, XOR};
use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlags, SigRef, Signature, Type, Value, types,
};
use cranelift_codegen::ir::{Block as Cblock, Endianness};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use iced_x86::{Code as IC, Decoder, DecoderOptions, Instruction, Mnemonic, OpKind};
use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries of a block before it is compiled.
pub const HOT: u64 = 16;
/// How many times [`HOT`] a block already compiled inside another region must be
/// entered from the run loop before it heads a region itself.
pub const MEMBER_HOT: u64 = 1024;
/// Bounds of a region: blocks and guest instructions.
pub const REGION_BLOCKS: usize = 16;
pub const REGION_INSNS: u32 = 128;
/// Compiled code runs only while more than this many instructions of the run
/// loop's budget are left: the run loop enters it only then, and every link and
/// backward edge checks it. Forward edges inside a region check no budget: a path
/// of forward edges visits each block of the region once, at most
/// [`REGION_INSNS`] instructions (a head alone at most the decoder's 64), so no
/// block boundary on it is one where the run loop would have stopped. The last
/// instructions of every budget run in the run loop's plain blocks.
pub const BUDGET_MARGIN: u64 = REGION_INSNS as u64 + 64;
/// Compiled code counts instructions retired and blocks entered since the run
/// loop entered it in one word (`Cpu::jit_count`): the instructions shifted up by
/// this, the blocks below, so one add charges a block and one compare with the
/// attention limit (armed in the same form) checks the budget.
pub const COUNT_SHIFT: u32 = 24;
/// At most this many instructions per entry from the run loop, so the blocks
/// (never more than the instructions plus one) stay below `1 << COUNT_SHIFT`.
pub const ENTRY_INSNS: u64 = 1 << 23;

/// The combined count charging `insns` instructions and `blocks` blocks.
const fn charge(insns: u32, blocks: u32) -> i64 {
    ((insns as i64) << COUNT_SHIFT) | blocks as i64
}

/// Before the run loop enters compiled code: the counts become relative to now
/// (`Cpu::jit_count` 0), and the attention limit to arm for `limit` (the
/// absolute instruction count compiled code must not pass, less the margin).
#[inline(always)]
pub fn start_counts(cpu: &mut Cpu, limit: u64) -> u64 {
    cpu.jit_base = [cpu.retired, cpu.chain.blocks];
    cpu.jit_count = 0;
    let room = (limit - cpu.retired).min(ENTRY_INSNS);
    room << COUNT_SHIFT
}

/// `Cpu::retired` and `chain.blocks` from the combined count compiled code left.
#[inline(always)]
pub fn counts(cpu: &mut Cpu) {
    let c = cpu.jit_count;
    cpu.retired = cpu.jit_base[0] + (c >> COUNT_SHIFT);
    cpu.chain.blocks = cpu.jit_base[1] + (c & ((1 << COUNT_SHIFT) - 1));
}

/// Host code bytes per executor before it drops all decoded code (and its code).
pub const CODE_CAP: usize = 32 << 20;

/// Exit word of compiled code: kind in the low byte, instruction index above.
pub const EXIT_BLOCK: u32 = 0;
pub const EXIT_FAULT: u32 = 1;
pub const EXIT_CODE_WRITE: u32 = 2;
/// Compiled code handed the rest of a block to the interpreter at the instruction
/// index above the kind, EIP holding the block's start (see `Gen::side_exit`).
pub const EXIT_RESUME: u32 = 3;
/// An unchecked access through the protected view faulted on the host
/// (`native::host_faults`): the interpreter resumes at the exit word compiled
/// code last spilled into `cpu.jit_resume` (an `EXIT_RESUME` word and the EIP).
pub const EXIT_HOST_FAULT: u32 = 4;

/// What a block's compiled code is (set at most once per block lifetime).
#[derive(Clone, Copy, Default)]
pub enum Slot {
    #[default]
    Untried,
    Declined,
    /// Queued to the background compiler as job `id` (runs plain meanwhile).
    Pending(u64),
    Code(native::Code),
}

pub struct Compiled {
    pub code: native::Code,
    pub bytes: usize,
}

/// The tier's counters (relaxed atomics, readable from any thread).
#[derive(Default)]
pub struct JitStats {
    pub compiled: AtomicU64,
    /// Blocks in the compiled units (a unit is a region: its head and the blocks
    /// its static jumps reach, see `JitState::region`).
    pub region_blocks: AtomicU64,
    /// Blocks other than a head that were given their region's code to be
    /// entered at (`JitState::set_entries`).
    pub entry_blocks: AtomicU64,
    pub code_bytes: AtomicU64,
    pub declined: AtomicU64,
    /// Cranelift refused a function (reported; the block runs plain).
    pub failed: AtomicU64,
    pub entries: AtomicU64,
    /// Blocks entered inside compiled code without the run loop: links to another
    /// block's code and iterations of a self-loop.
    pub linked: AtomicU64,
    pub exit_block: AtomicU64,
    pub exit_fault: AtomicU64,
    pub exit_code_write: AtomicU64,
    /// Slow paths of memory accesses: the rest of the block ran on the interpreter.
    pub exit_resume: AtomicU64,
    /// Unchecked accesses that faulted on the host (`EXIT_HOST_FAULT`), and the
    /// region heads recompiled with tested accesses because theirs kept faulting.
    pub exit_host_fault: AtomicU64,
    pub rechecked: AtomicU64,
    /// Instructions retired inside compiled code.
    pub insns: AtomicU64,
    pub compile_ns: AtomicU64,
    pub compile_ns_max: AtomicU64,
    /// Compile time of each compiled unit (p50/p99 in the snapshot).
    pub compile_hist: hist::Hist,
    /// Host code bytes held now by every executor's code memory, and the most held
    /// at once (function sizes as Cranelift reports them; see `JitState::clear`).
    pub code_bytes_live: AtomicU64,
    pub code_bytes_peak: AtomicU64,
    /// Declined blocks by the first instruction form outside the vocabulary (iced's
    /// `Code` name, or why the block was not planned): the census that says which
    /// forms to add next.
    pub declined_forms: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

impl JitStats {
    fn note_decline(&self, why: String) {
        if let Ok(mut m) = self.declined_forms.lock() {
            *m.entry(why).or_insert(0) += 1;
        }
    }

    /// The `n` most frequent first declined forms, most frequent first.
    pub fn declined_forms(&self, n: usize) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = match self.declined_forms.lock() {
            Ok(m) => m.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            Err(_) => Vec::new(),
        };
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// `{"FORM":count,...}` of [`JitStats::declined_forms`].
    pub fn declined_forms_json(&self, n: usize) -> String {
        let parts: Vec<String> = self
            .declined_forms(n)
            .iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect();
        format!("{{{}}}", parts.join(","))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JitSnapshot {
    pub compiled: u64,
    pub region_blocks: u64,
    pub entry_blocks: u64,
    pub code_bytes: u64,
    pub declined: u64,
    pub failed: u64,
    pub entries: u64,
    pub linked: u64,
    pub exit_block: u64,
    pub exit_fault: u64,
    pub exit_code_write: u64,
    pub exit_resume: u64,
    pub exit_host_fault: u64,
    pub rechecked: u64,
    pub insns: u64,
    pub compile_ns: u64,
    pub compile_ns_max: u64,
    /// Upper bounds (within 12.5 %) of the median and 99th percentile compile time.
    pub compile_ns_p50: u64,
    pub compile_ns_p99: u64,
    pub code_bytes_live: u64,
    pub code_bytes_peak: u64,
}

impl JitStats {
    pub fn snapshot(&self) -> JitSnapshot {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        JitSnapshot {
            compiled: r(&self.compiled),
            region_blocks: r(&self.region_blocks),
            entry_blocks: r(&self.entry_blocks),
            code_bytes: r(&self.code_bytes),
            declined: r(&self.declined),
            failed: r(&self.failed),
            entries: r(&self.entries),
            linked: r(&self.linked),
            exit_block: r(&self.exit_block),
            exit_fault: r(&self.exit_fault),
            exit_code_write: r(&self.exit_code_write),
            exit_resume: r(&self.exit_resume),
            exit_host_fault: r(&self.exit_host_fault),
            rechecked: r(&self.rechecked),
            insns: r(&self.insns),
            compile_ns: r(&self.compile_ns),
            compile_ns_max: r(&self.compile_ns_max),
            compile_ns_p50: self.compile_hist.quantile(0.5),
            compile_ns_p99: self.compile_hist.quantile(0.99),
            code_bytes_live: r(&self.code_bytes_live),
            code_bytes_peak: r(&self.code_bytes_peak),
        }
    }
}

impl JitSnapshot {
    /// Blocks run as compiled code: entered from the run loop or through a link.
    pub fn blocks(&self) -> u64 {
        self.entries + self.linked
    }

    pub fn to_json(&self) -> String {
        format!(
            "{{\"compiled\":{},\"region_blocks\":{},\"entry_blocks\":{},\"code_bytes\":{},\"declined\":{},\"failed\":{},\"entries\":{},\
             \"linked\":{},\"exits\":{{\"block\":{},\"fault\":{},\"code_write\":{},\"resume\":{},\"host_fault\":{}}},\"rechecked\":{},\"insns\":{},\
             \"compile_ns\":{},\"compile_ns_max\":{},\"compile_ns_p50\":{},\
             \"compile_ns_p99\":{},\"code_bytes_live\":{},\"code_bytes_peak\":{}}}",
            self.compiled,
            self.region_blocks,
            self.entry_blocks,
            self.code_bytes,
            self.declined,
            self.failed,
            self.entries,
            self.linked,
            self.exit_block,
            self.exit_fault,
            self.exit_code_write,
            self.exit_resume,
            self.exit_host_fault,
            self.rechecked,
            self.insns,
            self.compile_ns,
            self.compile_ns_max,
            self.compile_ns_p50,
            self.compile_ns_p99,
            self.code_bytes_live,
            self.code_bytes_peak
        )
    }
}

/// Addresses compiled code reads, fixed for the life of the code that embeds them
/// (constants in the code): the guest memory's permission table, host base and
/// protected view, and the segment bases (the attention limit and the view's base
/// it finds through `cpu`: `Cpu::jit_limit`, `Cpu::jit_view`). The executor flushes
/// all code when any of them would change (a new `Tiers`, a new guest memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Env {
    /// `GuestMemory::perm_table` and `host_base`.
    pub perms: usize,
    pub base: usize,
    /// `GuestMemory::protected_view` where the host-fault path is installed
    /// (`native::host_faults`), else 0: compiled code then accesses guest memory
    /// through it without testing the permission table (`Gen::spill`).
    pub view: usize,
    /// `Cpu::seg_base`: compiled code adds the bases as constants (for the flat
    /// segments, nothing). The executor flushes all code when the thread's bases
    /// differ from those it compiled under (`Executor::seen_bases`).
    pub seg: [u32; 8],
}

/// Link state compiled code reads at every link (one per executor, boxed so its
/// address is stable): the link epoch (in the high half, to be or-ed with a target
/// EIP into a table key).
#[repr(C)]
#[derive(Default)]
pub struct Links {
    pub key: u64,
}

/// One link table entry: `key` = link epoch << 32 | block start EIP, `code` the block
/// function's address. An entry whose epoch is not the current one is empty.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Entry {
    pub key: u64,
    pub code: u64,
}

/// Link table size (entries, a power of two) and its index function.
pub const TABLE_BITS: u32 = 13;
const TABLE_MASK: u32 = (1 << TABLE_BITS) - 1;
pub fn table_index(eip: u32) -> u32 {
    (eip ^ (eip >> TABLE_BITS)) & TABLE_MASK
}

/// Counters of one executor, folded into [`JitStats`] when a run ends (an atomic
/// add per block entry cost more than small blocks run for).
#[derive(Default)]
struct Local {
    entries: u64,
    linked: u64,
    exit_block: u64,
    exit_fault: u64,
    exit_code_write: u64,
    exit_resume: u64,
    exit_host_fault: u64,
    insns: u64,
}

/// One executor's (guest thread's) compiler state, code memory and link table.
pub struct JitState {
    mem: native::CodeMemory,
    bytes: usize,
    /// The guest memory the code was compiled against (its host base), 0 if none.
    mem_base: usize,
    links: Box<Links>,
    /// Block start EIP -> compiled code of this executor, filled by the run loop at
    /// every entry into compiled code; compiled code looks its successor up here.
    table: Box<[Entry]>,
    local: Local,
    /// The background compiler (started at the first background compile), the
    /// next job id and the jobs sent and not yet received back.
    worker: Option<worker::Worker>,
    /// The ISA objects synchronous compiles use (made at the first).
    isas: Option<worker::Isas>,
    next_job: u64,
    pending: usize,
    /// The op pairs compiled code runs through `native::interp` (see
    /// `Ins::Interp`): freed with the code memory.
    // Boxed: compiled code holds each pair's address, which must not move when
    // the vector grows.
    #[allow(clippy::vec_box)]
    keep: Vec<Box<[Op; 2]>>,
    /// Compiled regions by head, for code-write invalidation (a write into a
    /// region's other blocks must retire its head, which holds the code).
    pub regions: crate::tiers::region::RegionIndex,
    /// Starts of the blocks compiled into some region other than as its head
    /// (until the next flush).
    members: rustc_hash::FxHashSet<u32>,
    /// Starts of the blocks of regions sent to the background compiler and not
    /// yet back, other than their heads (which hold `Slot::Pending`).
    waiting: rustc_hash::FxHashSet<u32>,
    /// Jobs queued and not yet handed to the background compiler, by id: it holds
    /// at most [`IN_FLIGHT`] at a time (see [`JitState::feed`]).
    backlog: rustc_hash::FxHashMap<u64, worker::Job>,
    /// Host faults of unchecked code by the block compiled code resumed at, and
    /// the region heads compiled with tested accesses since (see
    /// [`JitState::host_fault`]; until the next flush).
    host_faults: rustc_hash::FxHashMap<u32, u32>,
    checked: rustc_hash::FxHashSet<u32>,
}

/// Host faults resuming at one block before the regions holding it are
/// compiled again with tested accesses. One: a loop with no store has no spill
/// point after the function's entry (a spill per turn cost cpuheavy a third of
/// its time), so a fault in it repeats every turn since the entry, once; again
/// and again, a store into a page that also holds code would pay that and a
/// signal (a few microseconds) per turn where a tested access takes a side exit.
pub const HOST_FAULTS_MAX: u32 = 1;

/// Jobs the background compiler holds at a time (one compiling, one next): the
/// rest wait in the executor's backlog, so that the one handed over next is the
/// hottest then, not the oldest.
const IN_FLIGHT: u64 = 2;

/// See [`JitState::take_back`].
pub const TAKE_BACK: u64 = 64;

impl Default for JitState {
    fn default() -> Self {
        JitState {
            mem: Default::default(),
            bytes: 0,
            mem_base: 0,
            links: Box::new(Links { key: 1 << 32 }),
            table: vec![Entry::default(); 1 << TABLE_BITS].into_boxed_slice(),
            local: Local::default(),
            worker: None,
            isas: None,
            next_job: 0,
            pending: 0,
            keep: Vec::new(),
            regions: Default::default(),
            members: Default::default(),
            waiting: Default::default(),
            backlog: Default::default(),
            host_faults: Default::default(),
            checked: Default::default(),
        }
    }
}

impl JitState {
    /// Frees all compiled code; the caller has dropped every block holding some.
    /// `st` is the stats the code was counted in (its live bytes go down).
    pub fn clear(&mut self, st: &JitStats) {
        self.unlink_all();
        self.mem.clear();
        // No code names them any more.
        self.keep.clear();
        self.regions.clear();
        self.members.clear();
        self.waiting.clear();
        self.pending -= self.backlog.len();
        self.backlog.clear();
        self.host_faults.clear();
        self.checked.clear();
        st.code_bytes_live
            .fetch_sub(self.bytes as u64, Ordering::Relaxed);
        self.bytes = 0;
        self.mem_base = 0;
    }

    /// Empties the link table (a new link epoch): called whenever a block holding
    /// compiled code may have been retired, or what a link skips (the stop range)
    /// changed. Entries are filled again as the run loop enters compiled code.
    pub fn unlink_all(&mut self) {
        let e = (self.links.key >> 32) + 1;
        if e >= 1 << 32 {
            self.table.fill(Entry::default());
            self.links.key = 1 << 32;
        } else {
            self.links.key = e << 32;
        }
    }

    /// After compiled code stopped at a host fault and resumed at the block at
    /// `eip`: counts it, and at the [`HOST_FAULTS_MAX`]th returns the heads of
    /// the regions holding that block (`eip` itself and those of `regions`,
    /// which forgets them), now to be compiled with tested accesses. The caller
    /// retires their code once the interpreter is past the block.
    pub fn host_fault(&mut self, eip: u32, st: &JitStats) -> Vec<u32> {
        let n = self.host_faults.entry(eip).or_insert(0);
        *n += 1;
        if *n < HOST_FAULTS_MAX {
            return Vec::new();
        }
        self.host_faults.remove(&eip);
        let mut heads = vec![eip];
        self.regions.take_hits(eip, 1, &mut heads);
        self.checked.extend(heads.iter().copied());
        st.rechecked
            .fetch_add(heads.len() as u64, Ordering::Relaxed);
        heads
    }

    pub fn over_cap(&self) -> bool {
        self.bytes > CODE_CAP
    }

    /// Whether the code was compiled against another guest memory than `mem`.
    pub fn other_memory(&self, mem: &GuestMemory) -> bool {
        self.mem_base != 0 && self.mem_base != mem.host_base() as usize
    }

    /// Before the run loop enters `code` (the block at `eip`): publishes it in the
    /// link table.
    #[inline(always)]
    pub fn enter(&mut self, eip: u32, code: native::Code) {
        self.table[table_index(eip) as usize] = Entry {
            key: self.links.key | eip as u64,
            code: code.addr(),
        };
        self.local.entries += 1;
    }

    /// After compiled code returned `kind` having retired `insns` instructions in
    /// `blocks` blocks entered.
    #[inline(always)]
    pub fn note_exit(&mut self, kind: u32, insns: u64, blocks: u64) {
        let l = &mut self.local;
        l.linked += blocks.saturating_sub(1);
        match kind & 0xff {
            EXIT_BLOCK => l.exit_block += 1,
            EXIT_CODE_WRITE => l.exit_code_write += 1,
            EXIT_RESUME => l.exit_resume += 1,
            EXIT_HOST_FAULT => l.exit_host_fault += 1,
            _ => l.exit_fault += 1,
        }
        l.insns += insns;
    }

    /// Folds this executor's counters into the shared stats.
    pub fn flush_stats(&mut self, st: &JitStats, ts: &crate::tiers::TierStats) {
        let l = std::mem::take(&mut self.local);
        if l.entries == 0 {
            return;
        }
        // A run ends at every API call: each locked add costs, so the counters
        // that stayed 0 (most runs' faults, code writes, side exits) are skipped.
        let add = |a: &AtomicU64, v: u64| {
            if v != 0 {
                a.fetch_add(v, Ordering::Relaxed);
            }
        };
        add(&st.entries, l.entries);
        add(&st.linked, l.linked);
        add(&st.exit_block, l.exit_block);
        add(&st.exit_fault, l.exit_fault);
        add(&st.exit_host_fault, l.exit_host_fault);
        add(&st.exit_code_write, l.exit_code_write);
        add(&st.exit_resume, l.exit_resume);
        add(&st.insns, l.insns);
        add(&ts.runs, l.entries);
        add(&ts.elements, l.insns);
    }

    /// The compiled code of `block`, compiling it at the first ask: on this thread,
    /// or, with `background`, queued to the background compiler (the block runs
    /// plain until [`JitState::poll`] maps its code). The unit is the region
    /// `block` heads ([`JitState::region`]).
    #[allow(clippy::too_many_arguments)]
    pub fn code(
        &mut self,
        block: &Block,
        cache: &BlockCache,
        stop: (u32, u32),
        mem: &GuestMemory,
        env: &Env,
        background: bool,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) -> Option<native::Code> {
        match block.jit.get() {
            Slot::Code(c) => Some(c),
            Slot::Pending(id) if block.entries.get() >= HOT * TAKE_BACK => {
                self.take_back(id, block, cache, st, ts)
            }
            Slot::Declined | Slot::Pending(_) => None,
            // A block of a region still being compiled gets that region's code
            // when it arrives (`set_entries`). Heading a region of its own
            // meanwhile compiled the same loop again under each block the
            // interpreter ran often enough while it waited (lzhuff's `longest()`:
            // four copies, each delaying every job queued behind it).
            Slot::Untried if self.waiting.contains(&block.start) => None,
            // A block some region already compiles inside it heads a region of
            // its own only once it is entered from outside much more: every
            // block of a loop is entered from the run loop now and then (a link
            // not taken, a side exit), and compiling each as a head copied every
            // block into five regions on average (lzhuff: 1468 region blocks
            // for 266 blocks), compile time the program's own threads wait on.
            Slot::Untried
                if block.entries.get() < HOT * MEMBER_HOT
                    && self.members.contains(&block.start) =>
            {
                None
            }
            Slot::Untried => {
                let checked_env;
                let env = if env.view != 0 && self.checked.contains(&block.start) {
                    checked_env = Env { view: 0, ..*env };
                    &checked_env
                } else {
                    env
                };
                let t0 = std::time::Instant::now();
                let mut plan = match plan(mem, block) {
                    Ok(p) => p,
                    Err(why) => {
                        st.note_decline(why);
                        st.declined.fetch_add(1, Ordering::Relaxed);
                        ts.declines[crate::tiers::Decline::Op as usize]
                            .fetch_add(1, Ordering::Relaxed);
                        block.jit.set(Slot::Declined);
                        return None;
                    }
                };
                self.keep.append(&mut plan.keep);
                let mut ms = vec![Member {
                    plan,
                    start: block.start,
                    ninsn: block.ninsn,
                }];
                self.region(&mut ms, block, cache, stop, mem);
                self.members.extend(ms[1..].iter().map(|m| m.start));
                // The region's blocks, head first (`set_entries` hands the code
                // to the others).
                let spans: Vec<(u32, u32)> = ms
                    .iter()
                    .filter_map(|m| cache.lookup(m.start).map(|b| (b.start, b.end)))
                    .collect();
                if ms.len() > 1 {
                    // A write into any of its blocks retires the head (and so the
                    // region) before the code runs again.
                    self.regions.add(block.start, &spans);
                }
                let (ms, spans) = if background {
                    match self.queue(ms, spans, block, env, cache) {
                        Ok(()) => return None,
                        Err(back) => back,
                    }
                } else {
                    (ms, spans)
                };
                let u = self.unit(block, env);
                self.build_here(&ms, &u, &spans, t0, block, cache, st, ts)
            }
        }
    }

    /// Grows the region headed by `ms[0]` (`head`) with the blocks its static
    /// jumps reach, breadth first: blocks the cache holds live, entered at least
    /// an eighth and at most 32 times as often as the head (a hub many paths
    /// share, like a dispatcher, is linked to rather than copied into every
    /// region that reaches it), not owned by a loop-idiom fold (which runs its
    /// loop whole when the run loop enters it), outside the stop range and all in the
    /// vocabulary, up to [`REGION_BLOCKS`] blocks and [`REGION_INSNS`]
    /// instructions. A block left out is reached through a link as before.
    fn region(
        &mut self,
        ms: &mut Vec<Member>,
        head: &Block,
        cache: &BlockCache,
        stop: (u32, u32),
        mem: &GuestMemory,
    ) {
        let min_entries = (head.entries.get() / 8).max(1);
        let max_entries = head.entries.get().saturating_mul(32);
        let mut insns = head.ninsn;
        let mut next = 0;
        while next < ms.len() {
            for t in region_targets(&ms[next].plan.term) {
                if ms.len() >= REGION_BLOCKS || ms.iter().any(|m| m.start == t) {
                    continue;
                }
                if t.wrapping_sub(stop.0) < stop.1 {
                    continue;
                }
                let Some(b) = cache.lookup(t) else { continue };
                if !b.live
                    || !short_fold(b)
                    || b.entries.get() < min_entries
                    || b.entries.get() > max_entries
                    || matches!(b.jit.get(), Slot::Declined)
                    || insns + b.ninsn > REGION_INSNS
                {
                    continue;
                }
                let Ok(mut p) = plan(mem, b) else { continue };
                self.keep.append(&mut p.keep);
                insns += b.ninsn;
                ms.push(Member {
                    plan: p,
                    start: b.start,
                    ninsn: b.ninsn,
                });
            }
            next += 1;
        }
    }

    fn note_compiled(
        &mut self,
        base: usize,
        bytes: usize,
        members: usize,
        ns: u64,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) {
        self.bytes += bytes;
        self.mem_base = base;
        st.compiled.fetch_add(1, Ordering::Relaxed);
        st.region_blocks
            .fetch_add(members as u64, Ordering::Relaxed);
        ts.matches.fetch_add(1, Ordering::Relaxed);
        st.code_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        st.compile_ns.fetch_add(ns, Ordering::Relaxed);
        st.compile_ns_max.fetch_max(ns, Ordering::Relaxed);
        st.compile_hist.record(ns);
        let live = st
            .code_bytes_live
            .fetch_add(bytes as u64, Ordering::Relaxed)
            + bytes as u64;
        st.code_bytes_peak.fetch_max(live, Ordering::Relaxed);
    }

    /// Queues the region `ms` headed by `block` for the background compiler (see
    /// [`JitState::feed`]); gives it back if there is none (it could not be
    /// started), and the caller compiles here.
    fn queue(
        &mut self,
        ms: Vec<Member>,
        spans: Vec<(u32, u32)>,
        block: &Block,
        env: &Env,
        cache: &BlockCache,
    ) -> Result<(), (Vec<Member>, Vec<(u32, u32)>)> {
        if self.worker.is_none() {
            match worker::Worker::spawn() {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    log_failure(&e);
                    return Err((ms, spans));
                }
            }
        }
        let id = self.next_job;
        self.next_job += 1;
        self.pending += 1;
        self.waiting.extend(spans.iter().skip(1).map(|&(m, _)| m));
        block.jit.set(Slot::Pending(id));
        let unit = self.unit(block, env);
        self.backlog.insert(
            id,
            worker::Job {
                id,
                ms,
                spans,
                unit,
            },
        );
        self.feed(cache);
        Ok(())
    }

    /// A block waiting in the backlog for its region's compile that the
    /// interpreter has entered [`TAKE_BACK`] times [`HOT`] since: its region is
    /// compiled here and now, as the worker, busy with others, would have made
    /// the guest thread interpret it for as long again (see docs/tiers.md). A
    /// job the worker holds already is left to it.
    fn take_back(
        &mut self,
        id: u64,
        block: &Block,
        cache: &BlockCache,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) -> Option<native::Code> {
        let job = self.backlog.remove(&id)?;
        self.pending -= 1;
        unwait(&mut self.waiting, &job.spans);
        let t0 = std::time::Instant::now();
        self.build_here(&job.ms, &job.unit, &job.spans, t0, block, cache, st, ts)
    }

    /// Compiles the region `ms` (unit `u`, blocks `spans`) on this thread and hands
    /// its code to `block` and the region's other entries, or declines `block` if
    /// Cranelift refused; `t0` is when the compile (planning included) began.
    #[allow(clippy::too_many_arguments)]
    fn build_here(
        &mut self,
        ms: &[Member],
        u: &Unit,
        spans: &[(u32, u32)],
        t0: std::time::Instant,
        block: &Block,
        cache: &BlockCache,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) -> Option<native::Code> {
        match self.build_unit(ms, u) {
            Ok(c) => {
                let ns = t0.elapsed().as_nanos() as u64;
                self.note_compiled(u.env.base, c.bytes, ms.len(), ns, st, ts);
                block.jit.set(Slot::Code(c.code));
                self.set_entries(cache, spans, c.code, st);
                Some(c.code)
            }
            Err(e) => {
                log_failure(&e);
                st.failed.fetch_add(1, Ordering::Relaxed);
                block.jit.set(Slot::Declined);
                None
            }
        }
    }

    /// Whether background compiles are outstanding (see [`JitState::poll`]).
    #[inline(always)]
    pub fn pending(&self) -> bool {
        self.pending != 0
    }

    /// Whether the background compiler is still working on a job, or has jobs
    /// to come (handing it the next ones as it frees up: the run loop, which
    /// does that at its block boundaries, may not be running).
    pub fn compiling(&mut self, cache: &BlockCache) -> bool {
        self.feed(cache);
        !self.backlog.is_empty() || self.worker.as_ref().is_some_and(|w| !w.idle())
    }

    /// Hands the background compiler the hottest jobs of the backlog while it
    /// holds fewer than [`IN_FLIGHT`]: the one whose head the interpreter entered
    /// most while it waited. A job whose head was retired meanwhile (a code
    /// write, a flush) is dropped.
    fn feed(&mut self, cache: &BlockCache) {
        let Some(w) = &mut self.worker else { return };
        while w.in_flight() < IN_FLIGHT && !self.backlog.is_empty() {
            let heat = |j: &worker::Job| {
                cache
                    .lookup(j.unit.start)
                    .filter(|b| matches!(b.jit.get(), Slot::Pending(id) if id == j.id))
                    .map(|b| b.entries.get())
            };
            let mut best: Option<(u64, u64)> = None;
            let mut gone = Vec::new();
            for (&id, j) in &self.backlog {
                match heat(j) {
                    None => gone.push(id),
                    Some(h) if best.is_none_or(|(_, b)| h > b) => best = Some((id, h)),
                    Some(_) => {}
                }
            }
            for id in gone {
                let j = self.backlog.remove(&id).expect("listed above");
                unwait(&mut self.waiting, &j.spans);
                self.pending -= 1;
            }
            let Some((id, _)) = best else { break };
            let job = self.backlog.remove(&id).expect("listed above");
            if let Err(job) = w.send(Box::new(job)) {
                // The worker ended: what it held never comes back, and what it
                // was to get is compiled on this thread at the next ask.
                for j in std::iter::once(*job).chain(self.backlog.drain().map(|(_, j)| j)) {
                    if let Some(b) = cache.lookup(j.unit.start)
                        && matches!(b.jit.get(), Slot::Pending(id) if id == j.id)
                    {
                        b.jit.set(Slot::Untried);
                    }
                }
                self.waiting.clear();
                self.worker = None;
                self.pending = 0;
                return;
            }
        }
    }

    /// Maps the code the background compiler has finished (one finalize for all)
    /// into the blocks still waiting for it. A block retired meanwhile (a code
    /// write, a flush) is gone or holds another job's id: its code is dropped.
    pub fn poll(
        &mut self,
        cache: &crate::exec::cache::BlockCache,
        base: usize,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) {
        let Some(w) = &mut self.worker else {
            self.pending = 0;
            return;
        };
        if !w.ready() {
            return;
        }
        let mut done = Vec::new();
        while let Ok(d) = w.rx.try_recv() {
            done.push(d);
        }
        if done.is_empty() {
            return;
        }
        self.pending -= done.len();
        for d in &done {
            unwait(&mut self.waiting, &d.spans);
        }
        self.feed(cache);
        let waiting = |d: &worker::Done| {
            cache
                .lookup(d.start)
                .filter(|b| matches!(b.jit.get(), Slot::Pending(id) if id == d.id))
        };
        let mut ok = Vec::new();
        for d in &done {
            let Some(b) = waiting(d) else { continue };
            match &d.code {
                Ok((bytes, align)) => ok.push((d, bytes.as_slice(), *align)),
                Err(e) => {
                    log_failure(e);
                    st.failed.fetch_add(1, Ordering::Relaxed);
                    b.jit.set(Slot::Declined);
                }
            }
        }
        if ok.is_empty() {
            return;
        }
        let funcs: Vec<(&[u8], u64)> = ok.iter().map(|&(_, b, a)| (b, a)).collect();
        match self.mem.install(&funcs) {
            Ok(codes) => {
                for (&(d, bytes, _), code) in ok.iter().zip(codes) {
                    dump_mapped(d.start, code, bytes);
                    self.note_compiled(base, bytes.len(), d.members, d.ns, st, ts);
                    if let Some(b) = waiting(d) {
                        b.jit.set(Slot::Code(code));
                        self.set_entries(cache, &d.spans, code, st);
                    }
                }
            }
            Err(e) => {
                log_failure(&e);
                for &(d, _, _) in &ok {
                    st.failed.fetch_add(1, Ordering::Relaxed);
                    if let Some(b) = waiting(d) {
                        b.jit.set(Slot::Declined);
                    }
                }
            }
        }
    }

    /// Hands `code` (the region just mapped, whose head now holds it) to the
    /// region's other entry blocks that have no code of their own yet: the run
    /// loop enters the region there, and publishes it in the link table for
    /// them as for a head. Each is registered like a head in `regions`, with the
    /// whole region's bytes: a write into any of them retires its block (and so
    /// its hold on the code), as it retires the head. Their bytes are the ones
    /// compiled: a write since the region was planned retired the head, and the
    /// code was dropped before this.
    fn set_entries(
        &mut self,
        cache: &crate::exec::cache::BlockCache,
        spans: &[(u32, u32)],
        code: native::Code,
        st: &JitStats,
    ) {
        for &(m, _) in spans.iter().skip(1) {
            if let Some(b) = cache.lookup(m)
                && matches!(b.jit.get(), Slot::Untried)
            {
                b.jit.set(Slot::Code(code));
                self.regions.add(m, spans);
                st.entry_blocks.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Compiles on this thread, as the background compiler would, and maps it.
    fn build_unit(&mut self, ms: &[Member], u: &Unit) -> Result<Compiled, String> {
        if self.isas.is_none() {
            self.isas = Some(worker::Isas::new()?);
        }
        let isas = self.isas.as_mut().expect("made above");
        let (bytes, align) = worker::compile(isas, ms, u)?;
        let code = self.mem.install(&[(&bytes, align)])?;
        dump_mapped(u.start, code[0], &bytes);
        Ok(Compiled {
            code: code[0],
            bytes: bytes.len(),
        })
    }

    /// What code for `block` embeds besides its plan.
    fn unit(&self, block: &Block, env: &Env) -> Unit {
        Unit {
            start: block.start,
            ninsn: block.ninsn,
            env: *env,
            links: &*self.links as *const Links as usize,
            table: self.table.as_ptr() as usize,
        }
    }
}

/// A region's job is done with (compiled, taken back or dropped): its blocks other
/// than the head (`spans[1..]`) no longer wait for it (`JitState::waiting`).
fn unwait(waiting: &mut rustc_hash::FxHashSet<u32>, spans: &[(u32, u32)]) {
    for (m, _) in spans.iter().skip(1) {
        waiting.remove(m);
    }
}

/// With `WINTERP_JIT_DUMP`: where the unit headed at `start` was mapped, and its
/// machine code, for annotating host profiles (`scripts/jit-annotate.py` matches
/// `perf script` addresses against `objdump -b binary`).
fn dump_mapped(start: u32, code: native::Code, bytes: &[u8]) {
    if let Some(path) = worker::dump_file() {
        let line = format!("unit 0x{:08x} at 0x{:x}\n", start, code.addr());
        worker::append(&path, &line);
        let bin = format!("{path}.{:x}.bin", code.addr());
        if let Err(e) = std::fs::write(&bin, bytes) {
            eprintln!("jit dump: {bin}: {e}");
        }
    }
}

/// A block to compile, besides its plan: its start and instruction count, and the
/// addresses its code embeds (`Env`, this executor's [`Links`] and link table).
#[derive(Clone, Copy)]
struct Unit {
    start: u32,
    ninsn: u32,
    env: Env,
    links: usize,
    table: usize,
}

/// Builds the function of the region `ms` (its head first; `u` the head's unit)
/// into `ctx` (`tail` calling convention, `(cpu) -> exit word`); helpers use `cc`.
fn fill(
    ctx: &mut cranelift_codegen::Context,
    fbc: &mut FunctionBuilderContext,
    ms: &[Member],
    u: &Unit,
    ptr: Type,
    cc: CallConv,
) {
    {
        let (links, table, env) = (u.links, u.table, &u.env);
        ctx.func.signature.call_conv = CallConv::Tail;
        ctx.func.signature.params.push(AbiParam::new(ptr));
        ctx.func.signature.params.push(AbiParam::new(types::I32));
        ctx.func.signature.returns.push(AbiParam::new(types::I32));
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
            let sig = |params: &[Type], ret: Type| {
                let mut s = Signature::new(cc);
                s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
                s.returns.push(AbiParam::new(ret));
                s
            };
            let i32 = types::I32;
            let mut tail = Signature::new(CallConv::Tail);
            tail.params.push(AbiParam::new(ptr));
            tail.params.push(AbiParam::new(i32));
            tail.returns.push(AbiParam::new(i32));
            let sigs = Sigs {
                cond: b.import_signature(sig(&[ptr, i32], i32)),
                bits: b.import_signature(sig(&[ptr], i32)),
                interp: b.import_signature(sig(&[ptr, ptr], i32)),
                tail: b.import_signature(tail),
            };
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let cpu = b.block_params(entry)[0];
            let regs: [Variable; 8] = std::array::from_fn(|_| b.declare_var(i32));
            let mut info = region_info(ms);
            let unchecked = env.view != 0;
            if unchecked {
                spill_in(ms, &mut info);
            }
            count_entries(&mut info);
            // A region of more than one block, or a block that branches to its own
            // start, keeps the guest registers in host registers across its internal
            // edges: every register some block assigns is written back at every
            // exit, so it is loaded at entry too.
            let whole = ms.len() > 1 || info[0].preds > 1;
            let (mut read, mut written) = (0u8, 0u8);
            for m in ms {
                let (r, w) = m.plan.regs();
                read |= r;
                written |= w;
            }
            // Only the registers the region reads (and, where it keeps registers
            // across edges, those it writes back at every exit) are loaded:
            // Cranelift keeps unused loads.
            let load = read | if whole { written } else { 0 };
            // Read only in the body: registers are stored back only on the way out.
            let rf = MemFlags::trusted().with_readonly();
            for (r, &v) in regs.iter().enumerate() {
                if load & (1 << r) != 0 {
                    let x = b.ins().load(i32, rf, cpu, (OFF_REGS + 4 * r) as i32);
                    b.def_var(v, x);
                }
            }
            let view = (unchecked
                && ms
                    .iter()
                    .any(|m| !access::plan_accesses(&m.plan).is_empty()))
            .then(|| b.ins().load(ptr, rf, cpu, OFF_VIEW as i32));
            let limit_at = looped(ms).then(|| b.ins().load(ptr, rf, cpu, OFF_LIMIT as i32));
            let vret = b.declare_var(types::I64);
            let r0 = b
                .ins()
                .load(types::I64, MemFlags::trusted(), cpu, OFF_COUNT as i32);
            b.def_var(vret, r0);
            let blocks: Vec<Cblock> = ms.iter().map(|_| b.create_block()).collect();
            // The function's entry is a spill point: `cpu` holds the state at the
            // start of the block it is entered at (from the run loop, or stored by
            // the link).
            let enter = |b: &mut FunctionBuilder, m: usize| {
                if unchecked {
                    let f = MemFlags::trusted();
                    let w = b.ins().iconst(types::I64, resume_word(ms[m].start, 0));
                    b.ins().store(f, w, cpu, OFF_RESUME as i32);
                }
                b.ins().jump(blocks[m], &[]);
            };
            if ms.len() == 1 {
                enter(&mut b, 0);
            } else {
                // Entered at one of its blocks (`count_entries`); any other address
                // (no link table entry or block slot hands the code out for one)
                // leaves at once, having done nothing.
                let eip = b.block_params(entry)[1];
                for m in 0..ms.len() {
                    let (go, next) = (b.create_block(), b.create_block());
                    let is = b.ins().icmp_imm(IntCC::Equal, eip, ms[m].start as i64);
                    b.ins().brif(is, go, &[], next, &[]);
                    b.switch_to_block(go);
                    enter(&mut b, m);
                    b.switch_to_block(next);
                }
                b.set_cold_block(b.current_block().expect("the last test's else"));
                b.ins().store(MemFlags::trusted(), eip, cpu, OFF_EIP as i32);
                let w = b.ins().iconst(i32, EXIT_BLOCK as i64);
                b.ins().return_(&[w]);
            }
            let mut g = Gen {
                b,
                cpu,
                view,
                limit_at,
                ptr,
                regs,
                dirty: if whole { written } else { 0 },
                rec: None,
                rec_stored: true,
                sigs,
                env: *env,
                links,
                table,
                start: u.start,
                ninsn: u.ninsn,
                vret,
                flags_live: true,
                acc: Default::default(),
                acc_ok: true,
                unchecked,
                need_spill: true,
                need_eip_counts: true,
                spill_regs: 0,
                conts: region_conts(ms),
                info,
                blocks,
                cur: 0,
            };
            for m in 0..ms.len() {
                g.b.switch_to_block(g.blocks[m]);
                // Every block is entered from outside too: it finds the flags in
                // `cpu.flags`.
                (g.rec, g.rec_stored) = (None, true);
                g.cur = m;
                g.start = ms[m].start;
                g.ninsn = ms[m].ninsn;
                let p = &ms[m].plan;
                let live = p.flags_live_after();
                g.acc = access::plan_accesses(p).into();
                g.acc_ok = true;
                g.need_spill = g.info[m].need_spill;
                g.need_eip_counts = true;
                g.spill_regs = g.info[m].spill_regs;
                for (k, s) in p.steps.iter().enumerate() {
                    g.flags_live = live[k];
                    g.step(s, k as u32);
                }
                g.term(p);
            }
            g.b.seal_all_blocks();
            g.b.finalize();
        }
    }
}

/// One block of a compiled region: its plan, start and instruction count.
pub(crate) struct Member {
    plan: Plan,
    start: u32,
    ninsn: u32,
}

/// What code generation needs to know of a region's block besides its plan.
struct MemberInfo {
    start: u32,
    ninsn: u32,
    /// Edges into the block: internal edges of the region, plus one for the
    /// entry from outside (`count_entries`).
    preds: u32,
    /// The block can observe the flags it is entered with (`reads_incoming_flags`).
    reads_in: bool,
    /// On some path into the block a store (or a helper) ran after the last
    /// spill point, and the registers that may differ from `cpu` there (see
    /// `Gen::spill`; `spill_in`).
    need_spill: bool,
    spill_regs: u8,
    /// The block may leave needing a spill (`spill_out` of what it is entered with).
    out_need: bool,
    /// Entered needing a spill, the block would spill for it (it has an access
    /// before any store or helper of its own): an edge needing one spills on the
    /// edge instead (`spill_in`).
    takes_need: bool,
}

/// The blocks a region takes in after a block: its static jump targets, and for a
/// CALL rel32 the callee and the return address (reached through the callee's
/// RET, which [`region_edges`] follows).
/// Whether a region may take block `b`: not a loop-idiom fold's, or one whose runs
/// were short (fewer than `SHORT_FOLD` iterations on average): leaving compiled
/// code for the run loop and the fold and coming back then costs more than the
/// fold saves (lzhuff's match copies: 4 % of its time). A fold with long runs (a
/// frame's pixel LUT, a block copy) and a `case_chain` ladder stay the fold's.
fn short_fold(b: &Block) -> bool {
    match &b.fold {
        None => true,
        // A fold run adds its iterations to the block's entries.
        Some(f) => {
            let runs = f.runs.get();
            f.ladder.is_none() && runs > 0 && b.entries.get() < SHORT_FOLD * runs
        }
    }
}

/// See [`short_fold`].
const SHORT_FOLD: u64 = 16;

fn region_targets(t: &Term) -> Vec<u32> {
    match *t {
        Term::Goto(t) => vec![t],
        Term::Jcc { taken, next, .. } => vec![taken, next],
        Term::Call { target, ret } => vec![target, ret],
        _ => vec![],
    }
}

/// The return addresses of the region's CALL rel32 blocks that are members: a
/// RET in the region compares the address it pops with these and goes on inside
/// at a match.
fn region_conts(ms: &[Member]) -> Vec<u32> {
    let mut c: Vec<u32> = ms
        .iter()
        .filter_map(|m| match m.plan.term {
            Term::Call { ret, .. } => Some(ret),
            _ => None,
        })
        .filter(|r| ms.iter().any(|x| x.start == *r))
        .collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// The internal edges of each member, as code generation makes them: jumps and
/// both sides of a Jcc, a CALL's edge to its callee, and a RET's edges to every
/// member return address ([`region_conts`]).
fn region_edges(ms: &[Member]) -> Vec<Vec<u32>> {
    let conts = region_conts(ms);
    ms.iter()
        .map(|m| {
            let t: Vec<u32> = match m.plan.term {
                Term::Goto(t) => vec![t],
                Term::Jcc { taken, next, .. } => vec![taken, next],
                Term::Call { target, .. } => vec![target],
                Term::Ret { .. } => conts.clone(),
                _ => vec![],
            };
            t.into_iter()
                .filter(|t| ms.iter().any(|x| x.start == *t))
                .collect()
        })
        .collect()
}

/// For unchecked accesses (`Gen::spill`): whether a store or helper may have run
/// since the last spill point on some path into each member, and which
/// registers may have been assigned since. The function's entry is a spill point (the head's start with nothing assigned);
/// a block passes on what it was entered with, what it assigns and whether it
/// still needs a spill at its end (`spill_out`; a superset is safe: it only
/// spills more). An internal edge that leaves needing a spill into a block that
/// would spill for it (`takes_need`) spills on the edge instead (`Gen::internal`),
/// so the block itself is entered needing nothing from that edge: a loop head
/// joined by one path with a store (lzhuff's `longest()`) spills only on that
/// path, not on every turn of the loop.
fn spill_in(ms: &[Member], info: &mut [MemberInfo]) {
    let edges = member_edges(ms);
    for (i, m) in info.iter_mut().zip(ms) {
        i.takes_need = spill_points(&m.plan, true).0 != spill_points(&m.plan, false).0;
    }
    loop {
        let mut changed = false;
        for (p, ts) in edges.iter().enumerate() {
            let (need, regs) = spill_out(&ms[p].plan, info[p].need_spill, info[p].spill_regs);
            info[p].out_need = need;
            for &m in ts {
                let (need, regs) = if need && info[m].takes_need {
                    (false, 0)
                } else {
                    (need, regs)
                };
                let i = &mut info[m];
                if (need && !i.need_spill) || regs & !i.spill_regs != 0 {
                    i.need_spill |= need;
                    i.spill_regs |= regs;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Its flags are observed at an access only through a spill: only where a
    // block may spill before writing flags must they be in `cpu` at its edges.
    for (i, m) in info.iter_mut().zip(ms) {
        i.reads_in = reads_incoming_flags_spilled(&m.plan, i.need_spill);
    }
}

/// What a block entered with (`need`, `regs`) leaves to its successors, as
/// `Gen::spill` makes it (or more): an access spills when needed; a store or a
/// helper needs a spill again; a helper leaves every register in `cpu`.
fn spill_out(p: &Plan, need: bool, mut regs: u8) -> (bool, u8) {
    let (spills, need) = spill_points(p, need);
    let n = p.steps.len();
    for (k, &spill) in spills.iter().enumerate() {
        let (mut rd, mut wr) = (0u8, 0u8);
        if k < n {
            let ins = &p.steps[k].ins;
            if matches!(ins, Ins::Interp { .. }) {
                regs = 0;
                continue;
            }
            ins_regs(ins, &mut rd, &mut wr);
        } else {
            term_regs(&p.term, &mut rd, &mut wr);
        }
        if spill {
            regs = 0;
        }
        regs |= wr;
    }
    (need, regs)
}

/// [`region_edges`] as member indices.
fn member_edges(ms: &[Member]) -> Vec<Vec<usize>> {
    region_edges(ms)
        .iter()
        .map(|ts| {
            ts.iter()
                .filter_map(|&t| ms.iter().position(|x| x.start == t))
                .collect()
        })
        .collect()
}

fn region_info(ms: &[Member]) -> Vec<MemberInfo> {
    let mut info: Vec<MemberInfo> = ms
        .iter()
        .map(|m| MemberInfo {
            start: m.start,
            ninsn: m.ninsn,
            preds: 0,
            reads_in: reads_incoming_flags(&m.plan),
            need_spill: false,
            spill_regs: 0,
            out_need: false,
            takes_need: false,
        })
        .collect();
    info[0].preds = 1;
    for ts in region_edges(ms) {
        for t in ts {
            if let Some(i) = ms.iter().position(|x| x.start == t) {
                info[i].preds += 1;
            }
        }
    }
    info
}

/// Counts the entry from outside that every member of a region has besides its
/// internal edges (its code may be entered at any of its blocks, see
/// `JitState::set_entries`): no member continues with a flag record its only
/// predecessor left in SSA values, so each finds its flags in `cpu` (stored at an
/// internal edge into it where it reads them). Entering a hot loop at the block
/// the run loop is at, rather than waiting for that block to head a region of
/// its own, took lzhuff from 171 compiled regions to 124, and keeping the
/// record for one-predecessor blocks that read it (not entries then) ran
/// slower on all three of the vs-qemu programs (docs/tiers.md, tenth round).
fn count_entries(info: &mut [MemberInfo]) {
    for i in info.iter_mut().skip(1) {
        i.preds += 1;
    }
}

/// Whether the region has a cycle (a block that reaches itself through internal
/// edges): only then does its code run its body more than once per entry, which is
/// what pays for Cranelift's optimizer (see docs/tiers.md).
fn looped(ms: &[Member]) -> bool {
    let n = ms.len();
    let succ = member_edges(ms);
    (0..n).any(|s| {
        let mut seen = vec![false; n];
        let mut stack = succ[s].clone();
        while let Some(v) = stack.pop() {
            if v == s {
                return true;
            }
            if !std::mem::replace(&mut seen[v], true) {
                stack.extend_from_slice(&succ[v]);
            }
        }
        false
    })
}

/// OF of SHR as the interpreter leaves it: bit 30 xor bit 31 of the result (0/1).
fn shr_of(b: &mut FunctionBuilder, res: Value) -> Value {
    let x = b.ins().ushr_imm(res, 30);
    let y = b.ins().ushr_imm(x, 1);
    let o = b.ins().bxor(x, y);
    b.ins().band_imm(o, 1)
}

#[cold]
fn log_failure(e: &str) {
    eprintln!("jit: Cranelift refused a block: {e}");
}

// ---- the plan: a block's instructions in the tier's vocabulary -------------------

#[derive(Clone, Copy, Debug)]
struct Mem {
    disp: u32,
    base: u8,
    index: u8,
    scale: u8,
    seg: u8,
    amask: u32,
}

impl Mem {
    fn of(o: &Op) -> Mem {
        Mem {
            disp: o.disp,
            base: o.base,
            index: o.index,
            scale: o.scale,
            seg: o.seg,
            amask: o.amask,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Opnd {
    R(u8),
    /// An 8-bit register by x86 number (AL..BL, AH..BH).
    R8(u8),
    /// The low 16 bits of a 32-bit register (AX..DI).
    R16(u8),
    I(u32),
    M(Mem),
}

#[derive(Clone, Copy, Debug)]
enum Ins {
    Mov {
        d: Opnd,
        s: Opnd,
    },
    Alu {
        op: u8,
        d: Opnd,
        s: Opnd,
    },
    Unary {
        op: u8,
        r: u8,
    },
    Lea {
        d: u8,
        m: Mem,
    },
    /// MOVZX/MOVSX r32 from an 8- or 16-bit register (x86 number) or memory.
    Movx {
        d: u8,
        s: Opnd,
        bits: u32,
        sx: bool,
    },
    Push(Opnd),
    Pop(u8),
    /// MOV and the ALU forms with 8-bit operands (`Opnd::R8`, byte memory, imm8)
    /// or 16-bit ones (`Opnd::R16`, word memory, imm16): `bits` 8 or 16.
    MovN {
        d: Opnd,
        s: Opnd,
        bits: u32,
    },
    AluN {
        op: u8,
        d: Opnd,
        s: Opnd,
        bits: u32,
    },
    /// MUL r/m32: EDX:EAX = EAX * src, CF = OF = EDX is not 0, SF ZF AF PF kept.
    Mul(Opnd),
    /// DIV r/m32: EAX, EDX = EDX:EAX / src, % src; CF OF kept, AF set, SF ZF PF
    /// clear (`ops::muldiv::div1`). A divide error (src 0 or a quotient over 32
    /// bits) is the interpreter's (`Gen::side_exit`).
    Div(Opnd),
    /// SETcc r/m8 (x86 condition nibble).
    Setcc {
        cc: u8,
        d: Opnd,
    },
    /// CMOVcc r32, r32.
    Cmov {
        cc: u8,
        d: u8,
        s: u8,
    },
    /// SHL/SHR/SAR r32 by a constant count (1..=31, masked; 0 is a NOP).
    Shift {
        op: u8,
        r: u8,
        c: u32,
    },
    /// SHL/SHR/SAR r32 by CL: a count of 0 (nothing changes, flags included) is
    /// left to the interpreter (`Gen::side_exit`), so the code that goes on has
    /// the eager record of a real shift.
    ShiftCl {
        op: u8,
        r: u8,
    },
    /// IMUL r32, r/m32 (`imm` None: the register itself is the other factor) or
    /// IMUL r32, r/m32, imm.
    Imul {
        d: u8,
        s: Opnd,
        imm: Option<u32>,
    },
    /// Any other non-branching form winterp implements, run alone through its
    /// interpreter handler (`native::interp`): `ops` is the address of its op pair
    /// in [`Plan::keep`]. Registers and flags go through `cpu` around the call.
    Interp {
        ops: usize,
    },
    Nop,
}

#[derive(Clone, Copy, Debug)]
struct Step {
    ins: Ins,
    eip: u32,
}

#[derive(Clone, Copy, Debug)]
enum Term {
    Goto(u32),
    Jcc {
        cc: u8,
        taken: u32,
        next: u32,
    },
    Call {
        target: u32,
        ret: u32,
    },
    Ret {
        imm: u32,
    },
    /// JMP r/m32 (memory form; see `terminator`) and CALL r/m32: the target is
    /// read first (a fault changes nothing), then CALL pushes.
    Jind(Opnd),
    CallInd {
        s: Opnd,
        ret: u32,
    },
}

/// Whether the block can observe the flags it was entered with before its first
/// complete flag writer: a CF or condition read, or a memory access (its fault or
/// code-write exit leaves `cpu.flags` as they are), or reaching the terminator, and
/// through the writers that keep some flags (INC/DEC, IMUL/MUL) wherever the flags
/// they leave are observed (`Plan::flags_live`). A self-loop that cannot need not
/// store its flag record at the back edge.
fn reads_incoming_flags(p: &Plan) -> bool {
    p.flags_live(&|_| true).1
}

/// [`reads_incoming_flags`] for unchecked accesses (`Gen::spill`), entered with
/// `need` (`MemberInfo::need_spill`): an access observes the flags only where it
/// spills, i.e. when a store (or the entry's `need`) came since the last spill, as
/// `Gen::test_access` and `Gen::store` track it.
fn reads_incoming_flags_spilled(p: &Plan, need: bool) -> bool {
    let (spills, _) = spill_points(p, need);
    p.flags_live(&|k| spills[k]).1
}

/// Where a block entered with `need` spills (`Gen::spill`; index `k` for step `k`,
/// the last for the terminator's accesses), and whether it leaves needing a spill:
/// the first access after a store, a helper or an entry with `need` spills; a store
/// or a helper needs one again.
fn spill_points(p: &Plan, mut need: bool) -> (Vec<bool>, bool) {
    let acc = access::plan_accesses(p);
    let n = p.steps.len();
    let mut spills = vec![false; n + 1];
    for (k, spill) in spills.iter_mut().enumerate() {
        if k < n && matches!(p.steps[k].ins, Ins::Interp { .. }) {
            need = true;
            continue;
        }
        // The terminator's accesses carry its index, `term_k` = n.
        let mut mine = acc.iter().filter(|a| a.k == k as u32).peekable();
        if mine.peek().is_some() {
            *spill = need;
            need = mine.any(|a| a.store);
        }
    }
    (spills, need)
}

struct Plan {
    steps: Vec<Step>,
    term: Term,
    /// Index of the terminating instruction (for its side exit).
    term_k: u32,
    /// The op pairs the `Interp` steps name (moved into [`JitState`] before the
    /// plan is compiled, and kept as long as the code memory).
    // Boxed: compiled code holds each pair's address, which must not move when
    // the vector grows.
    #[allow(clippy::vec_box)]
    keep: Vec<Box<[Op; 2]>>,
}

/// The second op of an `Interp` pair: ends the handler's run after one
/// instruction.
fn stop(_: &mut Cpu, _: &[Op], _: usize) -> crate::cpu::Exit {
    crate::cpu::Exit::Block
}

/// Bit `r & 7` of a mask of guest registers.
fn bit(r: u8) -> u8 {
    1 << (r & 7)
}

impl Mem {
    fn regs(&self) -> u8 {
        let mut m = 0;
        if self.base < 8 {
            m |= bit(self.base);
        }
        if self.index < 8 {
            m |= bit(self.index);
        }
        m
    }
}

impl Opnd {
    /// Registers read to get the operand's value or address (8-bit registers by
    /// their 32-bit register).
    fn regs(&self) -> u8 {
        match *self {
            Opnd::R(r) if r < 8 => bit(r),
            Opnd::R8(r) => bit(r & 3),
            Opnd::R16(r) => bit(r),
            Opnd::M(m) => m.regs(),
            _ => 0,
        }
    }

    fn is_mem(&self) -> bool {
        matches!(self, Opnd::M(_))
    }
}

impl Plan {
    /// (registers read, registers written) by the block, conservatively (a written
    /// 8-bit register is read too: its other bytes are kept).
    fn regs(&self) -> (u8, u8) {
        let (mut rd, mut wr) = (0u8, 0u8);
        for s in &self.steps {
            ins_regs(&s.ins, &mut rd, &mut wr);
        }
        term_regs(&self.term, &mut rd, &mut wr);
        (rd, wr)
    }

    /// For each step, whether the flags it leaves can be observed: by a later
    /// instruction that reads them (a condition, a carry-in, what IMUL and INC/DEC
    /// keep), by a memory access (its fault or code-write exit leaves `cpu.flags`
    /// as they are) or by the block's end, before an instruction that writes all
    /// six arithmetic flags.
    fn flags_live_after(&self) -> Vec<bool> {
        self.flags_live(&|_| true).0
    }

    /// Backward flag liveness: for each step whether the flags it leaves can be
    /// observed, and whether those the block is entered with can be. A memory
    /// access by step `k` observes them where `access(k)` (every access when
    /// accesses are tested; only those that spill when unchecked).
    fn flags_live(&self, access: &dyn Fn(usize) -> bool) -> (Vec<bool>, bool) {
        let mut live = vec![true; self.steps.len()];
        let mut after = true; // the block's end observes them
        for (k, s) in self.steps.iter().enumerate().rev() {
            live[k] = after;
            // (accesses memory, leaves early observing them, reads them,
            // overwrites them all)
            let (mem, exit, reads, writes_all) = match s.ins {
                Ins::Alu { op, d, s } | Ins::AluN { op, d, s, .. } => (
                    d.is_mem() || s.is_mem(),
                    false,
                    op == ADC || op == SBB,
                    true,
                ),
                // INC/DEC keep CF and IMUL keeps SF ZF AF PF: what they read of
                // the flags before them is observed exactly where the flags they
                // leave are (`!writes_all && after` below), so they read nothing
                // more themselves.
                Ins::Unary { op, .. } => (false, false, false, op == NEG),
                Ins::Shift { .. } => (false, false, false, true),
                // Where its flags are observed, its count-0 side exit observes
                // the flags before it; elsewhere it is one branchless shift.
                Ins::ShiftCl { .. } => (false, after, false, true),
                Ins::Imul { s, .. } | Ins::Mul(s) => (s.is_mem(), false, false, false),
                // Its divide-error exit observes the flags before it.
                Ins::Div(_) => (false, true, false, false),
                Ins::Setcc { d, .. } => (d.is_mem(), false, true, false),
                Ins::Cmov { .. } => (false, false, true, false),
                Ins::Mov { d, s } | Ins::MovN { d, s, .. } => {
                    (d.is_mem() || s.is_mem(), false, false, false)
                }
                Ins::Movx { s, .. } => (s.is_mem(), false, false, false),
                Ins::Push(_) | Ins::Pop(_) => (true, false, false, false),
                Ins::Lea { .. } | Ins::Nop => (false, false, false, false),
                Ins::Interp { .. } => (false, true, true, false),
            };
            // Flags before step k are observed if it accesses memory (where
            // that observes) or leaves or reads them; not if it overwrites all
            // of them; else as after it.
            after = (mem && access(k)) || exit || reads || (!writes_all && after);
        }
        (live, after)
    }
}

/// Adds the registers instruction `ins` reads and writes to `rd` and `wr`
/// (conservatively, as [`Plan::regs`]).
fn ins_regs(ins: &Ins, rd_out: &mut u8, wr_out: &mut u8) {
    let (mut rd, mut wr) = (*rd_out, *wr_out);
    let esp = bit(crate::cpu::ESP as u8);
    // A destination operand: its address registers are read; a register is
    // written (and read when the instruction reads it or keeps bytes of it).
    let dst = |d: &Opnd, reads: bool, rd: &mut u8, wr: &mut u8| match *d {
        Opnd::R(r) => {
            *wr |= bit(r);
            if reads {
                *rd |= bit(r);
            }
        }
        Opnd::R8(r) => {
            *wr |= bit(r & 3);
            *rd |= bit(r & 3);
        }
        Opnd::R16(r) => {
            *wr |= bit(r);
            *rd |= bit(r);
        }
        Opnd::M(m) => *rd |= m.regs(),
        Opnd::I(_) => {}
    };
    match *ins {
        Ins::Mov { d, s } | Ins::MovN { d, s, .. } => {
            rd |= s.regs();
            dst(&d, false, &mut rd, &mut wr);
        }
        Ins::Alu { d, s, .. } | Ins::AluN { d, s, .. } => {
            rd |= s.regs();
            dst(&d, true, &mut rd, &mut wr);
        }
        Ins::Unary { r, .. } | Ins::Shift { r, .. } => {
            rd |= bit(r);
            wr |= bit(r);
        }
        Ins::ShiftCl { r, .. } => {
            rd |= bit(r) | bit(crate::cpu::ECX as u8);
            wr |= bit(r);
        }
        Ins::Lea { d, m } => {
            rd |= m.regs();
            wr |= bit(d);
        }
        Ins::Movx { d, s, bits, .. } => {
            rd |= match s {
                // An 8-bit source register by x86 number (AH..BH are 4..7).
                Opnd::R(r) if bits == 8 => bit(r & 3),
                _ => s.regs(),
            };
            wr |= bit(d);
        }
        Ins::Push(s) => {
            rd |= s.regs() | esp;
            wr |= esp;
        }
        Ins::Pop(r) => {
            rd |= esp;
            wr |= esp | bit(r);
        }
        Ins::Setcc { d, .. } => dst(&d, false, &mut rd, &mut wr),
        Ins::Cmov { d, s, .. } => {
            rd |= bit(d) | bit(s);
            wr |= bit(d);
        }
        Ins::Mul(s) => {
            rd |= s.regs() | bit(crate::cpu::EAX as u8);
            wr |= bit(crate::cpu::EAX as u8) | bit(crate::cpu::EDX as u8);
        }
        Ins::Div(s) => {
            rd |= s.regs() | bit(crate::cpu::EAX as u8) | bit(crate::cpu::EDX as u8);
            wr |= bit(crate::cpu::EAX as u8) | bit(crate::cpu::EDX as u8);
        }
        Ins::Imul { d, s, imm } => {
            rd |= s.regs();
            if imm.is_none() {
                rd |= bit(d);
            }
            wr |= bit(d);
        }
        // The handler may read and write any register.
        Ins::Interp { .. } => {
            rd = 0xff;
            wr = 0xff;
        }
        Ins::Nop => {}
    }
    (*rd_out, *wr_out) = (rd, wr);
}

/// Adds the registers terminator `t` reads and writes to `rd` and `wr`.
fn term_regs(t: &Term, rd_out: &mut u8, wr_out: &mut u8) {
    let (mut rd, mut wr) = (*rd_out, *wr_out);
    let esp = bit(crate::cpu::ESP as u8);
    match *t {
        Term::Goto(_) | Term::Jcc { .. } => {}
        Term::Call { .. } | Term::Ret { .. } => {
            rd |= esp;
            wr |= esp;
        }
        Term::Jind(s) => rd |= s.regs(),
        Term::CallInd { s, .. } => {
            rd |= s.regs() | esp;
            wr |= esp;
        }
    }
    (*rd_out, *wr_out) = (rd, wr);
}

fn gpr32(ins: &Instruction, n: u32) -> Option<u8> {
    (ins.op_kind(n) == OpKind::Register && ins.op_register(n).is_gpr32())
        .then(|| ins.op_register(n).number() as u8)
}

fn operand8(ins: &Instruction, n: u32, o: &Op) -> Option<Opnd> {
    match ins.op_kind(n) {
        OpKind::Register if ins.op_register(n).is_gpr8() => {
            crate::decode::gpr(ins.op_register(n)).map(Opnd::R8)
        }
        OpKind::Memory if ins.memory_size().size() == 1 => Some(Opnd::M(Mem::of(o))),
        _ if crate::ops::is_imm(ins, n) => Some(Opnd::I(ins.immediate(n) as u32 & 0xff)),
        _ => None,
    }
}

fn operand16(ins: &Instruction, n: u32, o: &Op) -> Option<Opnd> {
    match ins.op_kind(n) {
        OpKind::Register if ins.op_register(n).is_gpr16() => {
            Some(Opnd::R16(ins.op_register(n).number() as u8))
        }
        OpKind::Memory if ins.memory_size().size() == 2 => Some(Opnd::M(Mem::of(o))),
        _ if crate::ops::is_imm(ins, n) => Some(Opnd::I(ins.immediate(n) as u32 & 0xffff)),
        _ => None,
    }
}

/// Operands `n` and `n + 1` at 8 or 16 bits (a MOV or ALU form's), or None.
fn narrow_pair(ins: &Instruction, o: &Op) -> Option<(Opnd, Opnd, u32)> {
    if let (Some(d), Some(s)) = (operand8(ins, 0, o), operand8(ins, 1, o)) {
        return Some((d, s, 8));
    }
    match (operand16(ins, 0, o), operand16(ins, 1, o)) {
        (Some(d), Some(s)) => Some((d, s, 16)),
        _ => None,
    }
}

fn operand(ins: &Instruction, n: u32, o: &Op) -> Option<Opnd> {
    match ins.op_kind(n) {
        OpKind::Register => gpr32(ins, n).map(Opnd::R),
        OpKind::Memory if ins.memory_size().size() == 4 => Some(Opnd::M(Mem::of(o))),
        _ if crate::ops::is_imm(ins, n) => Some(Opnd::I(ins.immediate(n) as u32)),
        _ => None,
    }
}

/// The block's instructions in the tier's vocabulary, or the first one outside it.
fn plan(mem: &GuestMemory, b: &Block) -> Result<Plan, String> {
    let len = b.end.wrapping_sub(b.start) as usize;
    let mut bytes = vec![0u8; len];
    mem.read_bytes(b.start, &mut bytes)
        .map_err(|_| "fetch".to_string())?;
    let mut dec = Decoder::with_ip(32, &bytes, b.start as u64, DecoderOptions::NONE);
    let n = b.ninsn as usize;
    let falls = b.ops.len() > n;
    let mut steps = Vec::with_capacity(n);
    let mut keep = Vec::new();
    let mut term = None;
    for k in 0..n {
        let o = &b.ops[k];
        if !dec.can_decode() {
            return Err("fetch".into());
        }
        let ins = dec.decode();
        if ins.ip32() != o.eip || ins.code() as u16 != o.code || ins.is_invalid() {
            return Err("bytes".into());
        }
        if std::ptr::fn_addr_eq(o.h, crate::ops::far::null_segment as Handler) {
            return Err("null_segment".into());
        }
        let why = || format!("{:?}", ins.code());
        let prefixed = ins.has_lock_prefix() || ins.has_rep_prefix() || ins.has_repne_prefix();
        if k + 1 == n && !falls {
            if prefixed {
                return Err(why());
            }
            term = Some(terminator(&ins, o).ok_or_else(why)?);
            break;
        }
        let i = match (prefixed, instruction(&ins, o)) {
            (false, Some(i)) => i,
            _ => {
                // Through the interpreter's handler for this form, lowered afresh
                // (the block's own op may belong to a fused run of another tier).
                let op = crate::decode::lower_one(&ins);
                // An op another tier fused (x87_fusion's runs, a span) runs
                // faster there than one helper call per instruction here
                // (x87_pipeline: 0.60x of the tier off): the block stays theirs.
                if !std::ptr::fn_addr_eq(o.h, op.h) {
                    return Err(format!("{:?} (fused by another tier)", ins.code()));
                }
                let plain = |h: Handler| !std::ptr::fn_addr_eq(op.h, h);
                if ins.flow_control() != iced_x86::FlowControl::Next
                    || !plain(crate::exec::op::unimplemented as Handler)
                    || !plain(crate::exec::op::invalid_opcode as Handler)
                {
                    return Err(why());
                }
                let end = Op::new(stop, o.next, o.next);
                let pair = Box::new([op, end]);
                let ops = pair.as_ptr() as usize;
                keep.push(pair);
                Ins::Interp { ops }
            }
        };
        steps.push(Step { ins: i, eip: o.eip });
    }
    let term = match term {
        Some(t) => t,
        None => {
            // Fell off the end (length cap, page edge, stop range): `block_end`.
            let e = b.ops.get(n).ok_or_else(|| "shape".to_string())?;
            Term::Goto(e.imm)
        }
    };
    Ok(Plan {
        term_k: steps.len() as u32,
        steps,
        term,
        keep,
    })
}

fn terminator(ins: &Instruction, o: &Op) -> Option<Term> {
    match ins.code() {
        IC::Jmp_rel8_32 | IC::Jmp_rel32_32 => {
            (ins.near_branch32() == o.imm).then_some(Term::Goto(o.imm))
        }
        IC::Call_rel32_32 => (ins.near_branch32() == o.imm).then_some(Term::Call {
            target: o.imm,
            ret: o.next,
        }),
        // `jmp r32` stays out: `bench::null` is the shape no tier takes, kept as the
        // tier's overhead probe (docs/tiers.md).
        IC::Jmp_rm32 if ins.op0_kind() == OpKind::Memory => Some(Term::Jind(Opnd::M(Mem::of(o)))),
        IC::Call_rm32 => Some(Term::CallInd {
            s: match ins.op0_kind() {
                OpKind::Memory => Opnd::M(Mem::of(o)),
                _ => Opnd::R(gpr32(ins, 0)?),
            },
            ret: o.next,
        }),
        IC::Retnd => Some(Term::Ret { imm: 0 }),
        IC::Retnd_imm16 => Some(Term::Ret {
            imm: ins.immediate16() as u32,
        }),
        _ if ins.is_jcc_short_or_near() && ins.op0_kind() == OpKind::NearBranch32 => {
            let cc = ins.condition_code() as u8;
            if cc == 0 || ins.near_branch32() != o.imm {
                return None;
            }
            Some(Term::Jcc {
                cc: cc - 1,
                taken: o.imm,
                next: o.next,
            })
        }
        _ => None,
    }
}

fn instruction(ins: &Instruction, o: &Op) -> Option<Ins> {
    let m = ins.mnemonic();
    let alu = match m {
        Mnemonic::Add => Some(ADD),
        Mnemonic::Or => Some(OR),
        Mnemonic::Adc => Some(ADC),
        Mnemonic::Sbb => Some(SBB),
        Mnemonic::And => Some(AND),
        Mnemonic::Sub => Some(SUB),
        Mnemonic::Xor => Some(XOR),
        Mnemonic::Cmp => Some(CMP),
        Mnemonic::Test => Some(TEST),
        _ => None,
    };
    if let Some(op) = alu {
        if ins.op_count() != 2 {
            return None;
        }
        if let Some((d, s, bits)) = narrow_pair(ins, o) {
            return match (d, s) {
                (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
                _ => Some(Ins::AluN { op, d, s, bits }),
            };
        }
        let d = operand(ins, 0, o)?;
        let s = operand(ins, 1, o)?;
        return match (d, s) {
            (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
            _ => Some(Ins::Alu { op, d, s }),
        };
    }
    use Mnemonic as M;
    let setcc = matches!(
        m,
        M::Seto
            | M::Setno
            | M::Setb
            | M::Setae
            | M::Sete
            | M::Setne
            | M::Setbe
            | M::Seta
            | M::Sets
            | M::Setns
            | M::Setp
            | M::Setnp
            | M::Setl
            | M::Setge
            | M::Setle
            | M::Setg
    );
    let cmovcc = matches!(
        m,
        M::Cmovo
            | M::Cmovno
            | M::Cmovb
            | M::Cmovae
            | M::Cmove
            | M::Cmovne
            | M::Cmovbe
            | M::Cmova
            | M::Cmovs
            | M::Cmovns
            | M::Cmovp
            | M::Cmovnp
            | M::Cmovl
            | M::Cmovge
            | M::Cmovle
            | M::Cmovg
    );
    if setcc {
        let cc = ins.condition_code() as u8;
        return match (cc, operand8(ins, 0, o)?) {
            (0, _) | (_, Opnd::I(_)) => None,
            (cc, d) => Some(Ins::Setcc { cc: cc - 1, d }),
        };
    }
    if cmovcc {
        let cc = ins.condition_code() as u8;
        return match (cc, gpr32(ins, 0), gpr32(ins, 1)) {
            (1.., Some(d), Some(s)) => Some(Ins::Cmov { cc: cc - 1, d, s }),
            _ => None,
        };
    }
    match m {
        Mnemonic::Mov => {
            if ins.op_count() != 2 {
                return None;
            }
            if let Some((d, s, bits)) = narrow_pair(ins, o) {
                return match (d, s) {
                    (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
                    _ => Some(Ins::MovN { d, s, bits }),
                };
            }
            let d = operand(ins, 0, o)?;
            let s = operand(ins, 1, o)?;
            match (d, s) {
                (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
                _ => Some(Ins::Mov { d, s }),
            }
        }
        Mnemonic::Inc | Mnemonic::Dec | Mnemonic::Neg | Mnemonic::Not => {
            let r = gpr32(ins, 0)?;
            let op = match m {
                Mnemonic::Inc => INC,
                Mnemonic::Dec => DEC,
                Mnemonic::Neg => NEG,
                _ => NOT,
            };
            Some(Ins::Unary { op, r })
        }
        Mnemonic::Lea => {
            let d = gpr32(ins, 0)?;
            Some(Ins::Lea { d, m: Mem::of(o) })
        }
        Mnemonic::Movzx | Mnemonic::Movsx => {
            let d = gpr32(ins, 0)?;
            let (s, bits) = match ins.op_kind(1) {
                OpKind::Register => {
                    let r = ins.op1_register();
                    let bits = crate::ops::reg_size(r);
                    (Opnd::R(crate::decode::gpr(r)?), bits)
                }
                OpKind::Memory => (Opnd::M(Mem::of(o)), (ins.memory_size().size() * 8) as u32),
                _ => return None,
            };
            if bits != 8 && bits != 16 {
                return None;
            }
            Some(Ins::Movx {
                d,
                s,
                bits,
                sx: m == Mnemonic::Movsx,
            })
        }
        Mnemonic::Push => match ins.code() {
            IC::Push_r32 => Some(Ins::Push(Opnd::R(gpr32(ins, 0)?))),
            IC::Pushd_imm8 | IC::Pushd_imm32 => Some(Ins::Push(Opnd::I(ins.immediate(0) as u32))),
            _ => None,
        },
        Mnemonic::Pop => match ins.code() {
            IC::Pop_r32 => Some(Ins::Pop(gpr32(ins, 0)?)),
            _ => None,
        },
        Mnemonic::Shl | Mnemonic::Sal | Mnemonic::Shr | Mnemonic::Sar => {
            let r = gpr32(ins, 0)?;
            let op = match m {
                Mnemonic::Shr => crate::ops::shift::SHR,
                Mnemonic::Sar => crate::ops::shift::SAR,
                _ => crate::ops::shift::SHL,
            };
            if ins.op_kind(1) == OpKind::Register && ins.op_register(1) == iced_x86::Register::CL {
                return Some(Ins::ShiftCl { op, r });
            }
            if !crate::ops::is_imm(ins, 1) {
                return None;
            }
            let c = ins.immediate(1) as u32 & 31;
            if c == 0 {
                return Some(Ins::Nop);
            }
            Some(Ins::Shift { op, r, c })
        }
        Mnemonic::Imul => match ins.code() {
            IC::Imul_r32_rm32 => Some(Ins::Imul {
                d: gpr32(ins, 0)?,
                s: operand(ins, 1, o)?,
                imm: None,
            }),
            IC::Imul_r32_rm32_imm8 | IC::Imul_r32_rm32_imm32 => Some(Ins::Imul {
                d: gpr32(ins, 0)?,
                s: operand(ins, 1, o)?,
                imm: Some(ins.immediate(2) as u32),
            }),
            _ => None,
        },
        Mnemonic::Mul if ins.code() == IC::Mul_rm32 => Some(Ins::Mul(operand(ins, 0, o)?)),
        Mnemonic::Div if ins.code() == IC::Div_rm32 => Some(Ins::Div(operand(ins, 0, o)?)),
        Mnemonic::Nop => Some(Ins::Nop),
        _ => None,
    }
}

// ---- code generation ---------------------------------------------------------------

const OFF_REGS: usize = offset_of!(Cpu, regs);
const OFF_EIP: usize = offset_of!(Cpu, eip);
const OFF_F: usize = offset_of!(Cpu, flags);
const OFF_F_OP: usize = OFF_F + offset_of!(LazyFlags, op);
const OFF_F_SB: usize = OFF_F + offset_of!(LazyFlags, sb);
const OFF_F_RES: usize = OFF_F + offset_of!(LazyFlags, res);
const OFF_F_A: usize = OFF_F + offset_of!(LazyFlags, a);
const OFF_F_B: usize = OFF_F + offset_of!(LazyFlags, b);
const OFF_F_AUX: usize = OFF_F + offset_of!(LazyFlags, aux);
const OFF_COUNT: usize = offset_of!(Cpu, jit_count);
const OFF_RESUME: usize = offset_of!(Cpu, jit_resume);
const OFF_VIEW: usize = offset_of!(Cpu, jit_view);
const OFF_LIMIT: usize = offset_of!(Cpu, jit_limit);

/// `Cpu::jit_resume` for a spill point before instruction `k` of the block at
/// `start`.
fn resume_word(start: u32, k: u32) -> i64 {
    ((start as u64) << 32 | (EXIT_RESUME | k << 8) as u64) as i64
}
const OFF_LINK_KEY: usize = offset_of!(Links, key);
const OFF_ENTRY_KEY: usize = offset_of!(Entry, key);
const OFF_ENTRY_CODE: usize = offset_of!(Entry, code);
const _: () = assert!(std::mem::size_of::<Entry>() == 16);
// `Gen::incoming_carry` tests Add..=Sbb as one range.
const _: () = assert!(
    FlagOp::Adc as u8 == FlagOp::Add as u8 + 1
        && FlagOp::Sub as u8 == FlagOp::Add as u8 + 2
        && FlagOp::Sbb as u8 == FlagOp::Add as u8 + 3
);

struct Sigs {
    cond: SigRef,
    bits: SigRef,
    interp: SigRef,
    /// A block function (links tail-call it).
    tail: SigRef,
}

/// The block's last flag writer, as the interpreter records it (32-bit forms only).
#[derive(Clone, Copy)]
struct Rec {
    op: FlagOp,
    res: Value,
    a: Value,
    b: Value,
    /// Set for ADC/SBB (carry-in) and INC/DEC (kept CF); others leave `aux` alone.
    /// None on INC/DEC whose CF is the incoming flags': `cpu.flags` holds that
    /// record (or, once stored, this one, whose CF is the same), so the CF is read
    /// from there only where it is used (`Gen::carry`, `Gen::store_rec`).
    aux: Option<Value>,
    /// Sign bit: 31, or 7 for the 8-bit forms (`res`, `a`, `b` truncated to 8 bits).
    sb: u8,
}

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    cpu: Value,
    /// `Cpu::jit_view`, loaded at the function's entry where unchecked code
    /// accesses guest memory; `Cpu::jit_limit`, loaded there in a region with a
    /// cycle (else at each check: a function-wide value is a register held
    /// across the whole function, and Cranelift keeps a load nothing uses).
    view: Option<Value>,
    limit_at: Option<Value>,
    ptr: Type,
    regs: [Variable; 8],
    /// Registers assigned so far (written back at exits).
    dirty: u8,
    rec: Option<Rec>,
    rec_stored: bool,
    sigs: Sigs,
    env: Env,
    /// Addresses of this executor's [`Links`] and link table.
    links: usize,
    table: usize,
    /// The block's start and instruction count.
    start: u32,
    ninsn: u32,
    /// Instructions retired and blocks entered (`cpu.retired`, `cpu.chain.blocks`)
    /// before the current iteration of the block; stored at every exit.
    /// The combined count (`COUNT_SHIFT`): instructions and blocks.
    vret: Variable,
    /// `cpu.chain.budget_end`, read once at entry.
    /// The region's blocks (`info[0]` the head), their Cranelift blocks, the one
    /// being generated and those still to generate.
    info: Vec<MemberInfo>,
    /// The region's member return addresses (`region_conts`).
    conts: Vec<u32>,
    blocks: Vec<Cblock>,
    cur: usize,
    /// Whether the flags the current instruction leaves can be observed (see
    /// [`Plan::flags_live_after`]); a dead IMUL record skips reading the flags it
    /// would keep.
    flags_live: bool,
    /// The current block's accesses still to generate, with how each tests its
    /// page (`access::plan_accesses`); `acc_ok` false once one did not match
    /// (every later access then makes its own test).
    acc: std::collections::VecDeque<access::Access>,
    acc_ok: bool,
    /// Accesses go unchecked through the protected view (`Env::view`): before
    /// an access, the state the interpreter would resume from is spilled to `cpu`
    /// when no spill point of this block iteration covers it (see `Gen::spill`).
    unchecked: bool,
    need_spill: bool,
    need_eip_counts: bool,
    /// Registers assigned since the last spill of this block iteration.
    spill_regs: u8,
}

impl Gen<'_> {
    fn k32(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i32 as i64)
    }

    fn reg(&mut self, r: u8) -> Value {
        if r >= 8 {
            return self.k32(0);
        }
        self.b.use_var(self.regs[r as usize])
    }

    fn set(&mut self, r: u8, v: Value) {
        self.b.def_var(self.regs[(r & 7) as usize], v);
        self.dirty |= 1 << (r & 7);
        self.spill_regs |= 1 << (r & 7);
    }

    /// The base of segment slot `seg`, fixed for the life of the code
    /// (`Env::seg`); None for a base of 0 (every flat segment, and slots 6 and 7,
    /// no segment, which are never written).
    fn seg_base(&mut self, seg: u8) -> Option<Value> {
        match self.env.seg[(seg & 7) as usize] {
            0 => None,
            b => Some(self.k32(b)),
        }
    }

    /// `off` plus the base of segment slot `seg`.
    fn seg_add(&mut self, off: Value, seg: u8) -> Value {
        match self.seg_base(seg) {
            Some(b) => self.b.ins().iadd(off, b),
            None => off,
        }
    }

    /// `Cpu::ea`: `((disp + base + index << scale) & amask) + seg_base[seg]`.
    fn ea(&mut self, m: Mem) -> Value {
        let mut off = self.k32(m.disp);
        if m.base < 8 {
            let b = self.reg(m.base);
            off = self.b.ins().iadd(off, b);
        }
        if m.index < 8 {
            let i = self.reg(m.index);
            let i = self.b.ins().ishl_imm(i, (m.scale & 3) as i64);
            off = self.b.ins().iadd(off, i);
        }
        if m.amask != u32::MAX {
            off = self.b.ins().band_imm(off, m.amask as i32 as i64);
        }
        self.seg_add(off, m.seg)
    }

    fn store_rec(&mut self, r: Rec) {
        // A deferred kept CF is read before the record is overwritten.
        let aux = match (r.op, r.aux) {
            (FlagOp::Inc | FlagOp::Dec, None) => Some(self.incoming_carry()),
            (_, a) => a,
        };
        let r = Rec { aux, ..r };
        let (c, f) = (self.cpu, MemFlags::trusted());
        if r.op == FlagOp::Eager {
            // `LazyFlags::set_eager`: the op and the bits; the rest stays.
            let op = self.b.ins().iconst(types::I8, r.op as u8 as i64);
            self.b.ins().store(f, op, c, OFF_F_OP as i32);
            let x = r.aux.expect("an eager record has its bits");
            self.b.ins().store(f, x, c, OFF_F_AUX as i32);
            return;
        }
        // The sign bit and the op, adjacent bytes, in one store.
        const _: () = assert!(OFF_F_OP == OFF_F_SB + 1);
        let lf = MemFlags::trusted().with_endianness(Endianness::Little);
        let key = self
            .b
            .ins()
            .iconst(types::I16, r.sb as i64 | (r.op as u8 as i64) << 8);
        self.b.ins().store(lf, key, c, OFF_F_SB as i32);
        self.b.ins().store(f, r.res, c, OFF_F_RES as i32);
        // A logic record's flags come from its result alone (`LazyFlags`: CF, OF
        // and AF are 0 for `FlagOp::Logic` whatever `a` and `b` hold), so its
        // operands are not stored: two stores less at every spill of an
        // AND/OR/XOR/TEST record. The interpreter's record holds them; only the
        // materialised flags are compared, and they cannot differ.
        if r.op != FlagOp::Logic {
            self.b.ins().store(f, r.a, c, OFF_F_A as i32);
            self.b.ins().store(f, r.b, c, OFF_F_B as i32);
        }
        if let Some(x) = r.aux {
            self.b.ins().store(f, x, c, OFF_F_AUX as i32);
        }
    }

    /// Makes `cpu.flags` what the interpreter would hold here.
    fn flush_flags(&mut self) {
        if let (Some(r), false) = (self.rec, self.rec_stored) {
            self.store_rec(r);
            self.rec_stored = true;
        }
    }

    fn write_back(&mut self) {
        self.store_regs(self.dirty);
    }

    /// Stores the guest registers in `mask` to `cpu`.
    fn store_regs(&mut self, mask: u8) {
        for r in 0..8u8 {
            if mask & (1 << r) != 0 {
                let v = self.b.use_var(self.regs[r as usize]);
                self.b.ins().store(
                    MemFlags::trusted(),
                    v,
                    self.cpu,
                    (OFF_REGS + 4 * r as usize) as i32,
                );
            }
        }
    }

    /// Returns `kind` to the caller (the run loop) after charging `done` more
    /// instructions and this block entered.
    fn finish(&mut self, kind: u32, done: u32) {
        let r = self.b.use_var(self.vret);
        let r = self.b.ins().iadd_imm(r, charge(done, 1));
        self.store_counts(r);
        let w = self.k32(kind);
        self.b.ins().return_(&[w]);
    }

    fn store_counts(&mut self, count: Value) {
        let f = MemFlags::trusted();
        self.b.ins().store(f, count, self.cpu, OFF_COUNT as i32);
    }

    fn call(&mut self, sig: SigRef, f: usize, args: &[Value]) -> Value {
        let callee = self.b.ins().iconst(self.ptr, f as i64);
        let mut a = vec![self.cpu];
        a.extend_from_slice(args);
        let c = self.b.ins().call_indirect(sig, callee, &a);
        self.b.inst_results(c)[0]
    }

    fn konst(&mut self, a: usize) -> Value {
        self.b.ins().iconst(self.ptr, a as i64)
    }

    /// Branches to `slow` unless the inline path may do a `bits` access at
    /// `addr`: the access stays inside the page and the page's permission bits
    /// under `mask` are `want` (the accessors' own test). Not the derived bit
    /// first: a stack in the top page of its region (the next page inaccessible)
    /// would take both tests at every push and pop (call_ret lost a quarter).
    fn fast_or(&mut self, addr: Value, bits: u32, mask: u8, want: u8, slow: Cblock) {
        if bits > 8 {
            let off = self.b.ins().band_imm(addr, 0xfff);
            let crosses = self.b.ins().icmp_imm(
                IntCC::UnsignedGreaterThan,
                off,
                (crate::mem::PAGE_SIZE - bits / 8) as i64,
            );
            self.fail_if(crosses, slow);
        }
        let p = self.perm_byte(addr);
        let pm = self.b.ins().band_imm(p, mask as i64);
        let bad = self.b.ins().icmp_imm(IntCC::NotEqual, pm, want as i64);
        self.fail_if(bad, slow);
    }

    /// Continues on the fast path when the permission byte `p` has the derived
    /// bit for accesses wanting `want`; otherwise runs `precise` in a cold block
    /// (which branches to the slow path itself) and joins the fast path after it.
    fn fast_bit_or(&mut self, p: Value, want: u8, precise: impl FnOnce(&mut Self)) {
        let bit = if want & perm::WRITE != 0 {
            perm::FAST_WRITE
        } else {
            perm::FAST_READ
        };
        let ok = self.b.ins().band_imm(p, bit as i64);
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], cold, &[]);
        self.b.switch_to_block(cold);
        precise(self);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// The permission byte of the page holding guest `addr` (I32).
    fn perm_byte(&mut self, addr: Value) -> Value {
        let page = self.b.ins().ushr_imm(addr, crate::mem::PAGE_SHIFT as i64);
        let page = self.b.ins().uextend(self.ptr, page);
        let perms = self.konst(self.env.perms);
        let pa = self.b.ins().iadd(perms, page);
        self.b.ins().uload8(types::I32, MemFlags::trusted(), pa, 0)
    }

    /// The host address of guest `addr`.
    fn host(&mut self, addr: Value) -> Value {
        let base = if self.unchecked {
            match self.view {
                Some(v) => v,
                None => self.konst(self.env.view),
            }
        } else {
            self.konst(self.env.base)
        };
        let a = self.b.ins().uextend(self.ptr, addr);
        self.b.ins().iadd(base, a)
    }

    fn guest_flags(&self) -> MemFlags {
        // Guest bytes: little-endian whatever the host, maybe unaligned; never
        // trapping after a permission test, trapping (a host fault) through the
        // protected view, where Cranelift must keep the access in its place.
        let f = MemFlags::new().with_endianness(Endianness::Little);
        if self.unchecked { f } else { f.with_notrap() }
    }

    /// On a slow path: `cpu.flags` as the interpreter would hold them here (the
    /// access may fault or store into code), without changing what the fast path
    /// has stored.
    fn store_rec_for_slow_path(&mut self) {
        if let (Some(r), false) = (self.rec, self.rec_stored) {
            self.store_rec(r);
        }
    }

    /// The slow path of an access by instruction `k` (a fault, a guard page, a
    /// page holding code, a page-crossing access): compiled code hands the rest of
    /// the block to the interpreter at `k`, with the state the interpreter would
    /// hold before `k` (registers, flags; instructions retired and blocks entered
    /// as before the block: the run loop charges the block as its plain run
    /// does). No helper is called, so the fast paths keep the guest registers in
    /// host registers.
    fn side_exit(&mut self, k: u32) {
        self.store_rec_for_slow_path();
        self.write_back();
        let r = self.b.use_var(self.vret);
        self.store_counts(r);
        let s = self.k32(self.start);
        self.b
            .ins()
            .store(MemFlags::trusted(), s, self.cpu, OFF_EIP as i32);
        let w = self.k32(EXIT_RESUME | k << 8);
        self.b.ins().return_(&[w]);
    }

    /// Before an unchecked access by instruction `k`: unless a spill point of
    /// this block iteration with no store committed after it covers the access,
    /// `cpu` gets what `Gen::side_exit` would leave for `k` (flags, the registers
    /// assigned since the last spill, on the first spill of the iteration the
    /// counters) and, in one store, the block's EIP and the exit word resuming
    /// at `k` (`resume_word`). A host fault in the
    /// access then resumes the interpreter there: between the spill point and
    /// the access only loads and register work ran, which it repeats exactly.
    fn spill(&mut self, k: u32) {
        if !self.need_spill {
            return;
        }
        self.flush_flags();
        self.store_regs(self.spill_regs);
        self.spill_regs = 0;
        if self.need_eip_counts {
            let r = self.b.use_var(self.vret);
            self.store_counts(r);
            self.need_eip_counts = false;
        }
        self.store_resume(self.start, k);
        self.need_spill = false;
    }

    /// The spill of an internal edge into the block at `to` (`spill_in`): `cpu`
    /// gets what [`Gen::spill`] would leave for that block's first instruction,
    /// with `count` (this block charged) as the counters. The state of the block
    /// being generated is left as it was, for its other edges.
    fn spill_edge(&mut self, to: u32, count: Value) {
        self.flush_flags();
        self.store_regs(self.spill_regs);
        self.store_counts(count);
        self.store_resume(to, 0);
    }

    /// `cpu.jit_resume` for a spill point before instruction `k` of the block at
    /// `start`.
    fn store_resume(&mut self, start: u32, k: u32) {
        let w = self.b.ins().iconst(types::I64, resume_word(start, k));
        self.b
            .ins()
            .store(MemFlags::trusted(), w, self.cpu, OFF_RESUME as i32);
    }

    /// How the access instruction `k` makes next tests its page: as planned
    /// (`access::plan_accesses`) while the accesses generated match the plan's.
    fn next_check(&mut self, k: u32, bits: u32, store: bool) -> access::Check {
        let want = (k, bits, store);
        match self.acc.pop_front() {
            Some(a) if self.acc_ok && (a.k, a.bits, a.store) == want => a.check,
            other => {
                debug_assert!(false, "access plan out of step: {other:?} for {want:?}");
                self.acc_ok = false;
                access::Check::Alone
            }
        }
    }

    /// The test before an access by instruction `k` of `bits` at `addr`
    /// (`mask`/`want`: its own permission test); its slow path is the side exit.
    fn test_access(&mut self, addr: Value, bits: u32, store: bool, k: u32) {
        let (mask, want) = access::test_of(store);
        let check = self.next_check(k, bits, store);
        if self.unchecked {
            self.spill(k);
            return;
        }
        if check == access::Check::Covered {
            return;
        }
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        match check {
            access::Check::Lead { lo, hi, mask, want } => {
                self.fast_or_span(addr, lo, hi, mask, want, slow)
            }
            _ => self.fast_or(addr, bits, mask, want, slow),
        }
        let fast = self
            .b
            .current_block()
            .expect("fast_or leaves the fast path current");
        self.b.switch_to_block(slow);
        self.side_exit(k);
        self.b.switch_to_block(fast);
    }

    /// Branches to `slow` unless the pages holding `addr + lo` and
    /// `addr + hi - 1` (a span of at most a page, so every byte between) both
    /// have the permission bits under `mask` equal to `want`.
    fn fast_or_span(&mut self, addr: Value, lo: i32, hi: i32, mask: u8, want: u8, slow: Cblock) {
        // The span is at most a page: it lies in the page of `addr + lo` and the
        // next, which that page's derived bit covers.
        let a0 = self.b.ins().iadd_imm(addr, lo as i64);
        let first = self.perm_byte(a0);
        self.fast_bit_or(first, want, |g| {
            let a = g.b.ins().iadd_imm(addr, (hi - 1) as i64);
            let last = g.perm_byte(a);
            let last = g.b.ins().ishl_imm(last, 8);
            let both = g.b.ins().bor(first, last);
            let both = g.b.ins().band_imm(both, (mask as i64) | (mask as i64) << 8);
            let bad =
                g.b.ins()
                    .icmp_imm(IntCC::NotEqual, both, (want as i64) | (want as i64) << 8);
            g.fail_if(bad, slow);
        });
    }

    fn load(&mut self, addr: Value, bits: u32, k: u32) -> Value {
        self.test_access(addr, bits, false, k);
        let h = self.host(addr);
        let gf = self.guest_flags();
        match bits {
            8 => self.b.ins().uload8(types::I32, gf, h, 0),
            16 => self.b.ins().uload16(types::I32, gf, h, 0),
            _ => self.b.ins().load(types::I32, gf, h, 0),
        }
    }

    /// Stores (the slow path, stores into pages holding code included, is the
    /// interpreter's: [`Gen::side_exit`]).
    fn store(&mut self, addr: Value, v: Value, bits: u32, k: u32) {
        self.test_access(addr, bits, true, k);
        let h = self.host(addr);
        let gf = self.guest_flags();
        match bits {
            8 => self.b.ins().istore8(gf, v, h, 0),
            16 => self.b.ins().istore16(gf, v, h, 0),
            _ => self.b.ins().store(gf, v, h, 0),
        };
        self.need_spill = true;
    }

    fn set_rec(&mut self, r: Rec) {
        self.rec = Some(r);
        self.rec_stored = false;
    }

    /// CF (0/1, I32) of the flags as they stand.
    fn carry(&mut self) -> Value {
        let Some(r) = self.rec else {
            return self.incoming_carry();
        };
        let b = &mut self.b;
        let c = match r.op {
            FlagOp::Add => b.ins().icmp(IntCC::UnsignedLessThan, r.res, r.a),
            FlagOp::Sub => b.ins().icmp(IntCC::UnsignedLessThan, r.a, r.b),
            FlagOp::Adc | FlagOp::Sbb => {
                let (x, y) = if r.op == FlagOp::Adc {
                    (r.res, r.a)
                } else {
                    (r.a, r.b)
                };
                let lt = b.ins().icmp(IntCC::UnsignedLessThan, x, y);
                let eq = b.ins().icmp(IntCC::Equal, x, y);
                let aux = r.aux.expect("ADC/SBB record their carry-in");
                let cin = b.ins().icmp_imm(IntCC::NotEqual, aux, 0);
                let e = b.ins().band(eq, cin);
                b.ins().bor(lt, e)
            }
            FlagOp::Inc | FlagOp::Dec => {
                return match r.aux {
                    Some(c) => c,
                    None => self.incoming_carry(),
                };
            }
            FlagOp::Eager => {
                let x = r.aux.expect("an eager record has its bits");
                return self.b.ins().band_imm(x, CF as i64);
            }
            FlagOp::Logic => return self.k32(0),
        };
        self.b.ins().uextend(types::I32, c)
    }

    /// CF of the record in `cpu.flags` (the block's incoming flags), inline and
    /// without branches: `LazyFlags::cf` for every `FlagOp` (CF does not depend on
    /// the operand size: the record's values are truncated).
    fn incoming_carry(&mut self) -> Value {
        let (c, f) = (self.cpu, MemFlags::trusted());
        let b = &mut self.b;
        let op = b.ins().uload8(types::I32, f, c, OFF_F_OP as i32);
        let res = b.ins().load(types::I32, f, c, OFF_F_RES as i32);
        let a = b.ins().load(types::I32, f, c, OFF_F_A as i32);
        let bv = b.ins().load(types::I32, f, c, OFF_F_B as i32);
        let aux = b.ins().load(types::I32, f, c, OFF_F_AUX as i32);
        let is =
            |b: &mut FunctionBuilder, o: FlagOp| b.ins().icmp_imm(IntCC::Equal, op, o as u8 as i64);
        // Add/Adc compare (res, a); Sub/Sbb compare (a, b).
        let add = is(b, FlagOp::Add);
        let adc = is(b, FlagOp::Adc);
        let addish = b.ins().bor(add, adc);
        let x = b.ins().select(addish, res, a);
        let y = b.ins().select(addish, a, bv);
        let lt = b.ins().icmp(IntCC::UnsignedLessThan, x, y);
        let eq = b.ins().icmp(IntCC::Equal, x, y);
        let sbb = is(b, FlagOp::Sbb);
        let with_cin = b.ins().bor(adc, sbb);
        let cin = b.ins().icmp_imm(IntCC::NotEqual, aux, 0);
        let e = b.ins().band(eq, cin);
        let e = b.ins().band(e, with_cin);
        let arith_cf = b.ins().bor(lt, e);
        // Add=1 Adc=2 Sub=3 Sbb=4 (asserted below).
        let o1 = b.ins().iadd_imm(op, -(FlagOp::Add as u8 as i64));
        let arith = b.ins().icmp_imm(IntCC::UnsignedLessThan, o1, 4);
        let arith_cf = b.ins().band(arith, arith_cf);
        let inc = is(b, FlagOp::Inc);
        let dec = is(b, FlagOp::Dec);
        let incdec = b.ins().bor(inc, dec);
        let keep = b.ins().band(incdec, cin);
        let eager = is(b, FlagOp::Eager);
        let ecf = b.ins().band_imm(aux, CF as i64);
        let ecf = b.ins().icmp_imm(IntCC::NotEqual, ecf, 0);
        let ecf = b.ins().band(eager, ecf);
        let v = b.ins().bor(arith_cf, keep);
        let v = b.ins().bor(v, ecf);
        b.ins().uextend(types::I32, v)
    }

    /// SF, ZF and PF of a 32-bit result as EFLAGS bits (`ops::shift::szp`).
    fn szp(&mut self, r: Value) -> Value {
        let t = self.b.ins().ushr_imm(r, 24);
        let sf = self.b.ins().band_imm(t, SF as i64);
        let zp = self.zp(r);
        self.b.ins().bor(sf, zp)
    }

    /// ZF and PF of a (truncated) result as EFLAGS bits.
    fn zp(&mut self, r: Value) -> Value {
        let b = &mut self.b;
        let z = b.ins().icmp_imm(IntCC::Equal, r, 0);
        let z = b.ins().uextend(types::I32, z);
        let zf = b.ins().ishl_imm(z, 6);
        let lo = b.ins().band_imm(r, 0xff);
        let n = b.ins().popcnt(lo);
        let odd = b.ins().band_imm(n, 1);
        let even = b.ins().bxor_imm(odd, 1);
        let pf = b.ins().ishl_imm(even, 2);
        b.ins().bor(zf, pf)
    }

    /// AF of an arithmetic record as its EFLAGS bit: bit 4 of a ^ b ^ res.
    fn af(&mut self, a: Value, b: Value, res: Value) -> Value {
        let x = self.b.ins().bxor(a, b);
        let x = self.b.ins().bxor(x, res);
        self.b.ins().band_imm(x, AF as i64)
    }

    /// The six arithmetic flags as they stand, as EFLAGS bits (`LazyFlags::bits`).
    fn flag_bits(&mut self) -> Value {
        let Some(r) = self.rec else {
            return self.call(self.sigs.bits, native::bits as *const () as usize, &[]);
        };
        if r.op == FlagOp::Eager {
            return r.aux.expect("an eager record has its bits");
        }
        let mut acc = self.carry();
        for (cc, bit) in [(10u8, 2u32), (4, 6), (8, 7), (0, 11)] {
            let c = self.cond(cc);
            let c = self.b.ins().uextend(types::I32, c);
            let c = self.b.ins().ishl_imm(c, bit as i64);
            acc = self.b.ins().bor(acc, c);
        }
        if r.op != FlagOp::Logic {
            let af = self.af(r.a, r.b, r.res);
            acc = self.b.ins().bor(acc, af);
        }
        acc
    }

    /// SF ZF AF PF of the flags as they stand (what MUL and IMUL keep): from the
    /// record in the block, or inline from the one in `cpu.flags` (`LazyFlags::sf`,
    /// `zf`, `af`, `pf`), which called `native::bits` (7 % of intbench's time).
    fn kept(&mut self) -> Value {
        const KEPT: i64 = (SF | ZF | AF | PF) as i64;
        if self.rec.is_some() {
            let x = self.flag_bits();
            return self.b.ins().band_imm(x, KEPT);
        }
        let (c, f) = (self.cpu, MemFlags::trusted());
        let b = &mut self.b;
        let op = b.ins().uload8(types::I32, f, c, OFF_F_OP as i32);
        let sb = b.ins().uload8(types::I32, f, c, OFF_F_SB as i32);
        let res = b.ins().load(types::I32, f, c, OFF_F_RES as i32);
        let a = b.ins().load(types::I32, f, c, OFF_F_A as i32);
        let bv = b.ins().load(types::I32, f, c, OFF_F_B as i32);
        let aux = b.ins().load(types::I32, f, c, OFF_F_AUX as i32);
        let s = b.ins().ushr(res, sb);
        let s = b.ins().band_imm(s, 1);
        let sf = b.ins().ishl_imm(s, 7);
        let zp = self.zp(res);
        let af = self.af(a, bv, res);
        let b = &mut self.b;
        let logic = b
            .ins()
            .icmp_imm(IntCC::Equal, op, FlagOp::Logic as u8 as i64);
        let zero = b.ins().iconst(types::I32, 0);
        let af = b.ins().select(logic, zero, af);
        let v = b.ins().bor(sf, zp);
        let lazy = b.ins().bor(v, af);
        let eager = b
            .ins()
            .icmp_imm(IntCC::Equal, op, FlagOp::Eager as u8 as i64);
        let e = b.ins().band_imm(aux, KEPT);
        b.ins().select(eager, e, lazy)
    }

    fn set_eager(&mut self, bits: Value) {
        self.set_rec(Rec {
            op: FlagOp::Eager,
            res: bits,
            a: bits,
            b: bits,
            aux: Some(bits),
            sb: 31,
        });
    }

    /// Condition `cc` (x86 nibble) as an I8 0/1.
    fn cond(&mut self, cc: u8) -> Value {
        let Some(r) = self.rec else {
            return self.incoming_cond(cc);
        };
        if r.op == FlagOp::Eager {
            let x = r.aux.expect("an eager record has its bits");
            let bit = |g: &mut Gen, m: u32| {
                let t = g.b.ins().band_imm(x, m as i64);
                g.b.ins().icmp_imm(IntCC::NotEqual, t, 0)
            };
            let v = match cc >> 1 {
                0 => bit(self, OF),
                1 => bit(self, CF),
                2 => bit(self, ZF),
                3 => bit(self, CF | ZF),
                4 => bit(self, SF),
                5 => bit(self, PF),
                6 => {
                    let (s, o) = (bit(self, SF), bit(self, OF));
                    self.b.ins().bxor(s, o)
                }
                _ => {
                    let (z, s, o) = (bit(self, ZF), bit(self, SF), bit(self, OF));
                    let l = self.b.ins().bxor(s, o);
                    self.b.ins().bor(z, l)
                }
            };
            return if cc & 1 != 0 { self.not(v) } else { v };
        }
        if let Some(v) = self.fused_cond(r, cc) {
            return v;
        }
        let zf = |g: &mut Gen| g.b.ins().icmp_imm(IntCC::Equal, r.res, 0);
        // The sign of a record value: bit 31, or bit `sb` of a truncated one.
        let neg = |g: &mut Gen, x: Value| -> Value {
            if r.sb == 31 {
                g.b.ins().icmp_imm(IntCC::SignedLessThan, x, 0)
            } else {
                let t = g.b.ins().band_imm(x, 1i64 << r.sb);
                g.b.ins().icmp_imm(IntCC::NotEqual, t, 0)
            }
        };
        let sf = |g: &mut Gen| neg(g, r.res);
        let of = |g: &mut Gen| -> Value {
            let b = &mut g.b;
            let x = match r.op {
                FlagOp::Add | FlagOp::Adc | FlagOp::Inc => {
                    let p = b.ins().bxor(r.a, r.res);
                    let q = b.ins().bxor(r.b, r.res);
                    b.ins().band(p, q)
                }
                FlagOp::Sub | FlagOp::Sbb | FlagOp::Dec => {
                    let p = b.ins().bxor(r.a, r.b);
                    let q = b.ins().bxor(r.a, r.res);
                    b.ins().band(p, q)
                }
                FlagOp::Logic | FlagOp::Eager => return b.ins().iconst(types::I8, 0),
            };
            neg(g, x)
        };
        let cf = |g: &mut Gen| -> Value {
            let c = g.carry();
            g.b.ins().icmp_imm(IntCC::NotEqual, c, 0)
        };
        let v = match cc >> 1 {
            0 => of(self),
            1 => cf(self),
            2 => zf(self),
            3 => {
                let (c, z) = (cf(self), zf(self));
                self.b.ins().bor(c, z)
            }
            4 => sf(self),
            5 => {
                let lo = self.b.ins().band_imm(r.res, 0xff);
                let n = self.b.ins().popcnt(lo);
                let odd = self.b.ins().band_imm(n, 1);
                self.b.ins().icmp_imm(IntCC::Equal, odd, 0)
            }
            6 => {
                let (s, o) = (sf(self), of(self));
                self.b.ins().bxor(s, o)
            }
            _ => {
                let (z, s, o) = (zf(self), sf(self), of(self));
                let l = self.b.ins().bxor(s, o);
                self.b.ins().bor(z, l)
            }
        };
        if cc & 1 != 0 { self.not(v) } else { v }
    }

    /// Condition `cc` of a CMP/SUB or logic record as one comparison of its
    /// operands where the flags it combines say exactly that: after `a - b`,
    /// ZF is `a == b`, CF|ZF is `a <= b` unsigned, SF^OF `a < b` signed and ZF|(SF^OF) `a <= b`
    /// signed; after a logic op (CF = OF = 0) SF^OF is `res < 0` and ZF|(SF^OF)
    /// `res <= 0`. Values truncated to `sb + 1` bits are moved up to bit 31 for a
    /// signed comparison. None where the generic combination of flags is used.
    fn fused_cond(&mut self, r: Rec, cc: u8) -> Option<Value> {
        // L, GE, LE, G (condition codes 12..=15).
        const SIGNED: [IntCC; 4] = [
            IntCC::SignedLessThan,
            IntCC::SignedGreaterThanOrEqual,
            IntCC::SignedLessThanOrEqual,
            IntCC::SignedGreaterThan,
        ];
        let up = |g: &mut Gen, x: Value| {
            if r.sb == 31 {
                x
            } else {
                g.b.ins().ishl_imm(x, 31 - r.sb as i64)
            }
        };
        let (cond, x, y) = match (r.op, cc) {
            // ZF of a CMP/SUB is its (truncated) operands being equal: the
            // difference is then used only where the record is stored, on cold
            // paths, and is computed there in looped code (an egraph places a
            // pure value at its uses); `sub; test; jcc` becomes `cmp; jcc`.
            (FlagOp::Sub, 4) => (IntCC::Equal, r.a, r.b),
            (FlagOp::Sub, 5) => (IntCC::NotEqual, r.a, r.b),
            (FlagOp::Sub, 6) => (IntCC::UnsignedLessThanOrEqual, r.a, r.b),
            (FlagOp::Sub, 7) => (IntCC::UnsignedGreaterThan, r.a, r.b),
            (FlagOp::Sub, 12..=15) => {
                let (x, y) = (up(self, r.a), up(self, r.b));
                (SIGNED[cc as usize - 12], x, y)
            }
            (FlagOp::Logic, 12..=15) => {
                let x = up(self, r.res);
                let c = SIGNED[cc as usize - 12];
                return Some(self.b.ins().icmp_imm(c, x, 0));
            }
            _ => return None,
        };
        Some(self.b.ins().icmp(cond, x, y))
    }

    /// The negation of a 0/1 I8: a comparison with the complementary condition
    /// where `v` is one (the original, left unused, is not lowered), so that a
    /// branch on it fuses with the compare; `v ^ 1` otherwise.
    fn not(&mut self, v: Value) -> Value {
        use cranelift_codegen::ir::{InstructionData, ValueDef};
        if let ValueDef::Result(inst, 0) = self.b.func.dfg.value_def(v) {
            match self.b.func.dfg.insts[inst] {
                InstructionData::IntCompare { cond, args, .. } => {
                    return self.b.ins().icmp(cond.complement(), args[0], args[1]);
                }
                InstructionData::IntCompareImm { cond, arg, imm, .. } => {
                    return self.b.ins().icmp_imm(cond.complement(), arg, imm.bits());
                }
                _ => {}
            }
        }
        self.b.ins().bxor_imm(v, 1)
    }

    /// Condition `cc` of the flags in `cpu.flags` (a join or the region's head):
    /// inline for the records compiled code meets most (CMP/SUB, the logic ops,
    /// ADD, and INC/DEC where the condition does not read CF) at any operand
    /// size, through `native::cond` otherwise. The call on the common path had
    /// made Cranelift keep guest registers in stack slots around it.
    fn incoming_cond(&mut self, cc: u8) -> Value {
        let f = MemFlags::trusted();
        let key = self
            .b
            .ins()
            .uload8(types::I32, f, self.cpu, OFF_F_OP as i32);
        // A record of width sb + 1 (its values truncated to it) moved up to the
        // top of 32 bits has the same CF, ZF, SF and OF as a 32-bit one; PF
        // reads the low byte of the result as it stands.
        let sh = if cc >> 1 == 5 {
            None
        } else {
            let sb = self
                .b
                .ins()
                .uload8(types::I32, f, self.cpu, OFF_F_SB as i32);
            let k31 = self.k32(31);
            Some(self.b.ins().isub(k31, sb))
        };
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I8);
        let reads_cf = matches!(cc >> 1, 1 | 3);
        let ops: &[FlagOp] = if reads_cf {
            &[FlagOp::Sub, FlagOp::Logic, FlagOp::Add]
        } else {
            &[
                FlagOp::Sub,
                FlagOp::Logic,
                FlagOp::Add,
                FlagOp::Dec,
                FlagOp::Inc,
            ]
        };
        for &op in ops {
            let (hit, miss) = (self.b.create_block(), self.b.create_block());
            let is = self.b.ins().icmp_imm(IntCC::Equal, key, op as u8 as i64);
            self.b.ins().brif(is, hit, &[], miss, &[]);
            self.b.switch_to_block(hit);
            let ld = |g: &mut Gen, off: usize| {
                let v = g.b.ins().load(types::I32, f, g.cpu, off as i32);
                match sh {
                    Some(sh) => g.b.ins().ishl(v, sh),
                    None => v,
                }
            };
            let (res, a, b) = (ld(self, OFF_F_RES), ld(self, OFF_F_A), ld(self, OFF_F_B));
            let saved = (self.rec, self.rec_stored);
            self.rec = Some(Rec {
                op,
                res,
                a,
                b,
                aux: None,
                sb: 31,
            });
            let v = self.cond(cc);
            (self.rec, self.rec_stored) = saved;
            self.b.ins().jump(done, &[v.into()]);
            self.b.switch_to_block(miss);
        }
        let c = self.k32(cc as u32);
        let v = self.call(self.sigs.cond, native::cond as *const () as usize, &[c]);
        let v = self.b.ins().icmp_imm(IntCC::NotEqual, v, 0);
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// A shift's result into register `r`, with the eager record the
    /// interpreter's shifts leave: SF ZF PF of the result, CF the last bit out,
    /// AF set, OF where the count's form defines it (`ops::shift`).
    fn shifted(&mut self, r: u8, res: Value, cf: Value, of: Option<Value>) {
        let szp = self.szp(res);
        let mut bits = self.b.ins().bor(szp, cf);
        bits = self.b.ins().bor_imm(bits, AF as i64);
        if let Some(of) = of {
            let of = self.b.ins().ishl_imm(of, 11);
            bits = self.b.ins().bor(bits, of);
        }
        self.set_eager(bits);
        self.set(r, res);
    }

    /// An 8-bit register by x86 number (AH..BH are bits 8-15 of EAX..EBX).
    fn get8(&mut self, r: u8) -> Value {
        let c = self.reg(r & 3);
        if r & 4 == 0 && self.fits_byte(c) {
            return c;
        }
        let c = if r & 4 != 0 {
            self.b.ins().ushr_imm(c, 8)
        } else {
            c
        };
        self.b.ins().band_imm(c, 0xff)
    }

    /// Whether `v` is known to be below 256 where it is made: a zero-extending
    /// byte load (MOVZX from memory) or a mask to a byte. Its low byte then needs
    /// no mask (`movzx edx, byte [esi]; cmp [ecx], dl` masked EDX again).
    fn fits_byte(&self, v: Value) -> bool {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        let ValueDef::Result(inst, 0) = self.b.func.dfg.value_def(v) else {
            return false;
        };
        match self.b.func.dfg.insts[inst] {
            InstructionData::Load { opcode, .. } => opcode == Opcode::Uload8,
            InstructionData::BinaryImm64 { opcode, imm, .. } => {
                opcode == Opcode::BandImm && (imm.bits() as u64) <= 0xff
            }
            _ => false,
        }
    }

    fn set8(&mut self, r: u8, v: Value) {
        let sh = if r & 4 != 0 { 8 } else { 0 };
        let old = self.reg(r & 3);
        let keep = self.b.ins().band_imm(old, !(0xffi64 << sh) & 0xffff_ffff);
        let v = self.b.ins().band_imm(v, 0xff);
        let v = self.b.ins().ishl_imm(v, sh);
        let n = self.b.ins().bor(keep, v);
        self.set(r & 3, n);
    }

    fn set16(&mut self, r: u8, v: Value) {
        let old = self.reg(r);
        let keep = self.b.ins().band_imm(old, 0xffff_0000);
        let v = self.b.ins().band_imm(v, 0xffff);
        let n = self.b.ins().bor(keep, v);
        self.set(r, n);
    }

    /// An 8- or 16-bit register operand into its register, the other bits kept.
    fn set_narrow(&mut self, o: Opnd, v: Value) {
        match o {
            Opnd::R8(r) => self.set8(r, v),
            Opnd::R16(r) => self.set16(r, v),
            _ => unreachable!("plan gives narrow forms narrow register destinations"),
        }
    }

    /// An 8- or 16-bit source operand, zero-extended.
    fn value_narrow(&mut self, o: Opnd, bits: u32, k: u32) -> Value {
        match o {
            Opnd::R8(r) => self.get8(r),
            Opnd::R16(r) => {
                let c = self.reg(r);
                self.b.ins().band_imm(c, 0xffff)
            }
            Opnd::I(i) => self.k32(i & ((1u32 << bits) - 1)),
            Opnd::M(m) => {
                let a = self.ea(m);
                self.load(a, bits, k)
            }
            Opnd::R(_) => unreachable!("plan gives narrow forms narrow operands"),
        }
    }

    fn value(&mut self, o: Opnd, k: u32) -> Value {
        match o {
            Opnd::R8(_) | Opnd::R16(_) => {
                unreachable!("plan gives 32-bit forms 32-bit operands")
            }
            Opnd::R(r) => self.reg(r),
            Opnd::I(i) => self.k32(i),
            Opnd::M(m) => {
                let a = self.ea(m);
                self.load(a, 32, k)
            }
        }
    }

    /// `a OP b` with its flag record (ADC/SBB read the carry first).
    fn alu(&mut self, op: u8, a: Value, b: Value) -> (Value, Rec) {
        let ins = |_: &mut Gen, f: FlagOp, r: Value| Rec {
            op: f,
            res: r,
            a,
            b,
            aux: None,
            sb: 31,
        };
        match op {
            ADD => {
                let r = self.b.ins().iadd(a, b);
                (r, ins(self, FlagOp::Add, r))
            }
            OR => {
                let r = self.b.ins().bor(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
            ADC | SBB => {
                let c = self.carry();
                let r = if op == ADC {
                    let t = self.b.ins().iadd(a, b);
                    self.b.ins().iadd(t, c)
                } else {
                    let t = self.b.ins().isub(a, b);
                    self.b.ins().isub(t, c)
                };
                let f = if op == ADC { FlagOp::Adc } else { FlagOp::Sbb };
                let mut rec = ins(self, f, r);
                rec.aux = Some(c);
                (r, rec)
            }
            AND | TEST => {
                let r = self.b.ins().band(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
            SUB | CMP => {
                let r = self.b.ins().isub(a, b);
                (r, ins(self, FlagOp::Sub, r))
            }
            _ => {
                let r = self.b.ins().bxor(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
        }
    }

    fn step(&mut self, s: &Step, k: u32) {
        let writes_back = |op: u8| op != CMP && op != TEST;
        match s.ins {
            Ins::Nop => {}
            Ins::Interp { ops } => {
                // The handler sees the state in `cpu`: the flag record and the
                // registers assigned so far go there first.
                self.flush_flags();
                self.write_back();
                // As in the interpreter, the handler sees the instructions retired
                // before this block (RDTSC adds its index in the block: `k` here,
                // since it runs as op 0 of its pair) and this block entered.
                let r = self.b.use_var(self.vret);
                let r = self.b.ins().iadd_imm(r, charge(k, 1));
                self.store_counts(r);
                let a = self.konst(ops);
                let r = self.call(self.sigs.interp, native::interp as *const () as usize, &[a]);
                self.rec = None;
                self.rec_stored = true;
                // It may have stored into memory, and left other counts and EIP.
                self.need_spill = true;
                self.need_eip_counts = true;
                self.spill_regs = 0;
                let (ex, cont) = (self.b.create_block(), self.b.create_block());
                self.b.set_cold_block(ex);
                self.b.ins().brif(r, ex, &[], cont, &[]);
                self.b.switch_to_block(ex);
                // Fault: nothing retired (the handler left registers and flags as
                // before and recorded the exception). Code write or block end: the
                // instruction retired and EIP is set. Either way `cpu` holds the
                // state: nothing is written back.
                let fault = self.b.create_block();
                let cw = self.b.create_block();
                let is_fault = self.b.ins().icmp_imm(IntCC::Equal, r, EXIT_FAULT as i64);
                self.b.ins().brif(is_fault, fault, &[], cw, &[]);
                self.b.switch_to_block(fault);
                self.finish(EXIT_FAULT, k);
                self.b.switch_to_block(cw);
                self.finish(EXIT_CODE_WRITE, k + 1);
                self.b.switch_to_block(cont);
                // The handler may have changed any register.
                let f = MemFlags::trusted();
                for r in 0..8u8 {
                    let v = self.b.ins().load(
                        types::I32,
                        f,
                        self.cpu,
                        (OFF_REGS + 4 * r as usize) as i32,
                    );
                    self.b.def_var(self.regs[r as usize], v);
                }
            }
            Ins::Mov { d, s: src } => match d {
                Opnd::R(r) => {
                    let v = self.value(src, k);
                    self.set(r, v);
                }
                Opnd::M(m) => {
                    let a = self.ea(m);
                    let v = self.value(src, k);
                    self.store(a, v, 32, k);
                }
                Opnd::I(_) | Opnd::R8(_) | Opnd::R16(_) => {
                    unreachable!("plan gives 32-bit forms r/m32 destinations")
                }
            },
            Ins::Alu { op, d, s: src } => match d {
                Opnd::R(r) => {
                    let a = self.reg(r);
                    let b = self.value(src, k);
                    let (res, rec) = self.alu(op, a, b);
                    self.set_rec(rec);
                    if writes_back(op) {
                        self.set(r, res);
                    }
                }
                Opnd::M(m) => {
                    let ea = self.ea(m);
                    let b = self.value(src, k);
                    let a = self.load(ea, 32, k);
                    let (res, rec) = self.alu(op, a, b);
                    if writes_back(op) {
                        self.store(ea, res, 32, k);
                        self.set_rec(rec);
                    } else {
                        self.set_rec(rec);
                    }
                }
                Opnd::I(_) | Opnd::R8(_) | Opnd::R16(_) => {
                    unreachable!("plan gives 32-bit forms r/m32 destinations")
                }
            },
            Ins::Unary { op, r } => {
                let a = self.reg(r);
                match op {
                    INC | DEC => {
                        // The kept CF is read only where the record is observed;
                        // the CF of the flags the block was entered with is read
                        // from `cpu.flags` only where it is used (`Rec::aux`).
                        let c = if !self.flags_live {
                            Some(self.k32(0))
                        } else if self.rec.is_none() {
                            None
                        } else {
                            Some(self.carry())
                        };
                        let one = self.k32(1);
                        let res = if op == INC {
                            self.b.ins().iadd(a, one)
                        } else {
                            self.b.ins().isub(a, one)
                        };
                        let f = if op == INC { FlagOp::Inc } else { FlagOp::Dec };
                        self.set_rec(Rec {
                            op: f,
                            res,
                            a,
                            b: one,
                            aux: c,
                            sb: 31,
                        });
                        self.set(r, res);
                    }
                    NEG => {
                        let z = self.k32(0);
                        let res = self.b.ins().isub(z, a);
                        self.set_rec(Rec {
                            op: FlagOp::Sub,
                            res,
                            a: z,
                            b: a,
                            aux: None,
                            sb: 31,
                        });
                        self.set(r, res);
                    }
                    _ => {
                        let res = self.b.ins().bnot(a);
                        self.set(r, res);
                    }
                }
            }
            Ins::Lea { d, m } => {
                let a = self.ea(m);
                self.set(d, a);
            }
            Ins::Movx {
                d,
                s: src,
                bits,
                sx,
            } => {
                let v = match src {
                    Opnd::R(r) if bits == 8 => {
                        let c = self.reg(r & 3);
                        let c = if r & 4 != 0 {
                            self.b.ins().ushr_imm(c, 8)
                        } else {
                            c
                        };
                        self.b.ins().band_imm(c, 0xff)
                    }
                    Opnd::R(r) => {
                        let c = self.reg(r);
                        self.b.ins().band_imm(c, 0xffff)
                    }
                    Opnd::M(m) => {
                        let a = self.ea(m);
                        self.load(a, bits, k)
                    }
                    Opnd::I(_) | Opnd::R8(_) | Opnd::R16(_) => {
                        unreachable!("plan takes registers and memory")
                    }
                };
                let v = if sx {
                    let t = self.b.ins().ishl_imm(v, (32 - bits) as i64);
                    self.b.ins().sshr_imm(t, (32 - bits) as i64)
                } else {
                    v
                };
                self.set(d, v);
            }
            Ins::Push(src) => {
                let v = match src {
                    Opnd::R(r) => self.reg(r),
                    Opnd::I(i) => self.k32(i),
                    Opnd::M(_) | Opnd::R8(_) | Opnd::R16(_) => {
                        unreachable!("plan takes PUSH r32/imm")
                    }
                };
                let esp = self.reg(crate::cpu::ESP as u8);
                let sp = self.b.ins().iadd_imm(esp, -4);
                let a = self.seg_add(sp, crate::cpu::seg::SS);
                self.store(a, v, 32, k);
                self.set(crate::cpu::ESP as u8, sp);
            }
            Ins::MovN { d, s: src, bits } => match d {
                Opnd::R8(_) | Opnd::R16(_) => {
                    let v = self.value_narrow(src, bits, k);
                    self.set_narrow(d, v);
                }
                Opnd::M(m) => {
                    let a = self.ea(m);
                    let v = self.value_narrow(src, bits, k);
                    self.store(a, v, bits, k);
                }
                _ => unreachable!("plan gives MOV r/m8 and r/m16 destinations"),
            },
            Ins::AluN {
                op,
                d,
                s: src,
                bits,
            } => {
                // `ops::alu::alu::<OP, 8 or 16>`: result and operands truncated,
                // sign bit 7 or 15.
                let narrow = |g: &mut Gen, a: Value, b: Value| -> (Value, Rec) {
                    let (r, mut rec) = g.alu(op, a, b);
                    let r = g.b.ins().band_imm(r, ((1u32 << bits) - 1) as i64);
                    rec.res = r;
                    rec.sb = (bits - 1) as u8;
                    (r, rec)
                };
                match d {
                    Opnd::R8(_) | Opnd::R16(_) => {
                        let a = self.value_narrow(d, bits, k);
                        let b = self.value_narrow(src, bits, k);
                        let (res, rec) = narrow(self, a, b);
                        self.set_rec(rec);
                        if writes_back(op) {
                            self.set_narrow(d, res);
                        }
                    }
                    Opnd::M(m) => {
                        let ea = self.ea(m);
                        let b = self.value_narrow(src, bits, k);
                        let a = self.load(ea, bits, k);
                        let (res, rec) = narrow(self, a, b);
                        if writes_back(op) {
                            self.store(ea, res, bits, k);
                        }
                        self.set_rec(rec);
                    }
                    _ => unreachable!("plan gives ALU r/m8 and r/m16 destinations"),
                }
            }
            Ins::Setcc { cc, d } => {
                let c = self.cond(cc);
                let v = self.b.ins().uextend(types::I32, c);
                match d {
                    Opnd::R8(r) => self.set8(r, v),
                    Opnd::M(m) => {
                        let a = self.ea(m);
                        self.store(a, v, 8, k);
                    }
                    _ => unreachable!("plan gives SETcc r/m8 destinations"),
                }
            }
            Ins::Cmov { cc, d, s: src } => {
                let c = self.cond(cc);
                let (x, y) = (self.reg(src), self.reg(d));
                let v = self.b.ins().select(c, x, y);
                self.set(d, v);
            }
            Ins::Shift { op, r, c } => {
                use crate::ops::shift::{SAR, SHL};
                let v = self.reg(r);
                if !self.flags_live {
                    // Nothing observes its flags: the result alone (the flag word
                    // took a dozen IR instructions for Cranelift to drop).
                    let res = match op {
                        SHL => self.b.ins().ishl_imm(v, c as i64),
                        SAR => self.b.ins().sshr_imm(v, c as i64),
                        _ => self.b.ins().ushr_imm(v, c as i64),
                    };
                    let dead = self.k32(0);
                    self.set_eager(dead);
                    self.set(r, res);
                    return;
                }
                let b = &mut self.b;
                let (res, cf, of) = if op == SHL {
                    let res = b.ins().ishl_imm(v, c as i64);
                    let cf = b.ins().ushr_imm(v, (32 - c) as i64);
                    let cf = b.ins().band_imm(cf, 1);
                    let m = b.ins().ushr_imm(res, 31);
                    (res, cf, Some(b.ins().bxor(m, cf)))
                } else if op == SAR {
                    let res = b.ins().sshr_imm(v, c as i64);
                    let cf = b.ins().sshr_imm(v, (c - 1) as i64);
                    (res, b.ins().band_imm(cf, 1), None)
                } else {
                    let res = b.ins().ushr_imm(v, c as i64);
                    let cf = b.ins().ushr_imm(v, (c - 1) as i64);
                    let cf = b.ins().band_imm(cf, 1);
                    (res, cf, Some(shr_of(b, res)))
                };
                self.shifted(r, res, cf, of);
            }
            Ins::ShiftCl { op, r } => {
                // `ops::shift::sh_rc` for a count of 1..=31 (`shift`'s formulas
                // with the count in a register); 0 goes to the interpreter.
                use crate::ops::shift::{SAR, SHL};
                let ecx = self.reg(crate::cpu::ECX as u8);
                let c = self.b.ins().band_imm(ecx, 31);
                let v = self.reg(r);
                if !self.flags_live {
                    // Nothing observes the flags it leaves (nor, then, those
                    // before it): a count of 0 shifts by 0, leaving the register.
                    let res = match op {
                        SHL => self.b.ins().ishl(v, c),
                        SAR => self.b.ins().sshr(v, c),
                        _ => self.b.ins().ushr(v, c),
                    };
                    let dead = self.k32(0);
                    self.set_eager(dead);
                    self.set(r, res);
                    return;
                }
                let (zero, go) = (self.b.create_block(), self.b.create_block());
                self.b.set_cold_block(zero);
                self.b.ins().brif(c, go, &[], zero, &[]);
                self.b.switch_to_block(zero);
                self.side_exit(k);
                self.b.switch_to_block(go);
                let b = &mut self.b;
                let c1 = b.ins().iadd_imm(c, -1);
                let (res, cf, of) = if op == SHL {
                    let res = b.ins().ishl(v, c);
                    // The last bit out: bit 31 of v << (c - 1).
                    let t = b.ins().ishl(v, c1);
                    let cf = b.ins().ushr_imm(t, 31);
                    let m = b.ins().ushr_imm(res, 31);
                    (res, cf, Some(b.ins().bxor(m, cf)))
                } else if op == SAR {
                    let res = b.ins().sshr(v, c);
                    let t = b.ins().sshr(v, c1);
                    (res, b.ins().band_imm(t, 1), None)
                } else {
                    let res = b.ins().ushr(v, c);
                    let t = b.ins().ushr(v, c1);
                    let cf = b.ins().band_imm(t, 1);
                    (res, cf, Some(shr_of(b, res)))
                };
                self.shifted(r, res, cf, of);
            }
            Ins::Imul { d, s: src, imm } => {
                // `ops::muldiv::imul_n`: CF = OF = the product does not fit, SF ZF
                // AF PF kept.
                let b = self.value(src, k);
                let a = match imm {
                    Some(i) => self.k32(i),
                    None => self.reg(d),
                };
                if !self.flags_live {
                    // Nothing observes the record: the low half alone.
                    let res = self.b.ins().imul(a, b);
                    let dead = self.k32(0);
                    self.set_eager(dead);
                    self.set(d, res);
                    return;
                }
                // SF ZF AF PF kept from the flags before, unless nothing can see
                // them (then the record's bits are never stored or read).
                let keep = if self.flags_live {
                    self.kept()
                } else {
                    self.k32(0)
                };
                let bb = &mut self.b;
                let (a64, b64) = (
                    bb.ins().sextend(types::I64, a),
                    bb.ins().sextend(types::I64, b),
                );
                let p = bb.ins().imul(a64, b64);
                let res = bb.ins().ireduce(types::I32, p);
                let back = bb.ins().sextend(types::I64, res);
                let ovf = bb.ins().icmp(IntCC::NotEqual, p, back);
                let ovf = bb.ins().uextend(types::I32, ovf);
                let co = bb.ins().imul_imm(ovf, (CF | OF) as i64);
                let kept = bb.ins().band_imm(keep, (SF | ZF | AF | PF) as i64);
                let bits = bb.ins().bor(kept, co);
                self.set_eager(bits);
                self.set(d, res);
            }
            Ins::Mul(src) => {
                // `ops::muldiv::mul1::<false, 32>`: CF = OF = the high half is
                // not 0, SF ZF AF PF kept.
                let b = self.value(src, k);
                let a = self.reg(crate::cpu::EAX as u8);
                let keep = if self.flags_live {
                    self.kept()
                } else {
                    self.k32(0)
                };
                let bb = &mut self.b;
                let lo = bb.ins().imul(a, b);
                let hi = bb.ins().umulhi(a, b);
                let ovf = bb.ins().icmp_imm(IntCC::NotEqual, hi, 0);
                let ovf = bb.ins().uextend(types::I32, ovf);
                let co = bb.ins().imul_imm(ovf, (CF | OF) as i64);
                let kept = bb.ins().band_imm(keep, (SF | ZF | AF | PF) as i64);
                let bits = bb.ins().bor(kept, co);
                self.set_eager(bits);
                self.set(crate::cpu::EAX as u8, lo);
                self.set(crate::cpu::EDX as u8, hi);
            }
            Ins::Div(src) => {
                use crate::cpu::{EAX, EDX};
                let d = self.value(src, k);
                let (lo, hi) = (self.reg(EAX as u8), self.reg(EDX as u8));
                // A zero divisor or a quotient over 32 bits: EDX >= the divisor.
                let (bad, go) = (self.b.create_block(), self.b.create_block());
                self.b.set_cold_block(bad);
                let de = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, hi, d);
                self.b.ins().brif(de, bad, &[], go, &[]);
                self.b.switch_to_block(bad);
                self.side_exit(k);
                self.b.switch_to_block(go);
                let keep = if self.flags_live {
                    let cf = self.carry();
                    let of = self.cond(0);
                    let of = self.b.ins().uextend(types::I32, of);
                    let of = self.b.ins().ishl_imm(of, 11);
                    self.b.ins().bor(cf, of)
                } else {
                    self.k32(0)
                };
                let bb = &mut self.b;
                let lo64 = bb.ins().uextend(types::I64, lo);
                let hi64 = bb.ins().uextend(types::I64, hi);
                let hi64 = bb.ins().ishl_imm(hi64, 32);
                let n = bb.ins().bor(hi64, lo64);
                let d64 = bb.ins().uextend(types::I64, d);
                let q = bb.ins().udiv(n, d64);
                let r = bb.ins().urem(n, d64);
                let q = bb.ins().ireduce(types::I32, q);
                let r = bb.ins().ireduce(types::I32, r);
                let bits = bb.ins().bor_imm(keep, AF as i64);
                self.set_eager(bits);
                self.set(EAX as u8, q);
                self.set(EDX as u8, r);
            }
            Ins::Pop(r) => {
                let esp = self.reg(crate::cpu::ESP as u8);
                let a = self.seg_add(esp, crate::cpu::seg::SS);
                let v = self.load(a, 32, k);
                let sp = self.b.ins().iadd_imm(esp, 4);
                self.set(crate::cpu::ESP as u8, sp);
                self.set(r, v);
            }
        }
    }

    /// The run loop's per-block checks, for a link taken after this block retired
    /// up to `retired`: the budget is not spent, and so (the limit it is compared
    /// with is zeroed by every raise, `crate::attention`) no halt was asked, the
    /// gates have not switched and no thread wrote into code since the executor
    /// last replayed code writes. Branches to `fail` otherwise; continues in a new
    /// block.
    ///
    /// At least [`BUDGET_MARGIN`] instructions of the budget must be left, so that
    /// the forward edges after it, which check nothing, cannot pass the block
    /// boundary where the run loop would stop: the run loop arms the limit with the
    /// budget end less the margin, so this is one compare with a memory operand.
    fn checks(&mut self, retired: Value, fail: Cblock) {
        let f = MemFlags::trusted();
        let at = match self.limit_at {
            Some(a) => a,
            None => self.b.ins().load(self.ptr, f, self.cpu, OFF_LIMIT as i32),
        };
        let limit = self.b.ins().load(types::I64, f, at, 0);
        let spent = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, retired, limit);
        self.fail_if(spent, fail);
    }

    /// Branches to `fail` if `c` is non-zero; continues in a new block.
    fn fail_if(&mut self, c: Value, fail: Cblock) {
        let next = self.b.create_block();
        self.b.ins().brif(c, fail, &[], next, &[]);
        self.b.switch_to_block(next);
    }

    /// Before a link out of the function: `cpu` gets the flags, the registers
    /// assigned and the counters with this block charged; returns the retired
    /// count the checks compare.
    fn store_leaving(&mut self) -> Value {
        self.flush_flags();
        self.write_back();
        let r = self.b.use_var(self.vret);
        let r = self.b.ins().iadd_imm(r, charge(self.ninsn, 1));
        self.store_counts(r);
        r
    }

    /// Leaves the block for the block at `t`: charges this one, then enters the
    /// successor's compiled code with a tail call when the per-block checks pass and
    /// the link table holds it; otherwise returns to the run loop with EIP at `t`.
    fn leave(&mut self, t: Value, tc: Option<u32>) {
        let r = self.store_leaving();
        let back = self.b.create_block();
        self.b.append_block_param(back, types::I32);
        let fail = self.b.create_block();
        self.checks(r, fail);
        self.link(t, tc, back);
        self.b.switch_to_block(fail);
        self.b.ins().jump(back, &[t.into()]);
        self.b.switch_to_block(back);
        let t = self.b.block_params(back)[0];
        let f = MemFlags::trusted();
        self.b.ins().store(f, t, self.cpu, OFF_EIP as i32);
        let w = self.k32(EXIT_BLOCK);
        self.b.ins().return_(&[w]);
    }

    /// Leaves for `taken` if `c`, else for `next`: as two [`Gen::leave`]s, with the
    /// stores and the per-block checks made once before the branch (half the code
    /// to compile), and a table lookup with a constant slot on each side.
    fn leave2(&mut self, c: Value, taken: u32, next: u32) {
        let r = self.store_leaving();
        let back = self.b.create_block();
        self.b.append_block_param(back, types::I32);
        let fail = self.b.create_block();
        self.checks(r, fail);
        let (tb, nb) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(c, tb, &[], nb, &[]);
        for (blk, t) in [(tb, taken), (nb, next)] {
            self.b.switch_to_block(blk);
            let tv = self.k32(t);
            self.link(tv, Some(t), back);
        }
        self.b.switch_to_block(fail);
        let (x, y) = (self.k32(taken), self.k32(next));
        let t = self.b.ins().select(c, x, y);
        self.b.ins().jump(back, &[t.into()]);
        self.b.switch_to_block(back);
        let t = self.b.block_params(back)[0];
        self.b
            .ins()
            .store(MemFlags::trusted(), t, self.cpu, OFF_EIP as i32);
        let w = self.k32(EXIT_BLOCK);
        self.b.ins().return_(&[w]);
    }

    /// Tail-calls the compiled code of the block at `t` if the link table holds
    /// it; jumps to `back(t)` otherwise.
    fn link(&mut self, t: Value, tc: Option<u32>, back: Cblock) {
        let f = MemFlags::trusted();
        // A static target's entry address is a constant (folded here, so the
        // function needs no optimizer pass for it).
        let e = match tc {
            Some(t) => self.konst(self.table + 16 * table_index(t) as usize),
            None => {
                let x = self.b.ins().ushr_imm(t, TABLE_BITS as i64);
                let x = self.b.ins().bxor(x, t);
                let x = self.b.ins().band_imm(x, TABLE_MASK as i64);
                let x = self.b.ins().uextend(self.ptr, x);
                let x = self.b.ins().ishl_imm(x, 4);
                let table = self.konst(self.table);
                self.b.ins().iadd(table, x)
            }
        };
        let key = self.b.ins().load(types::I64, f, e, OFF_ENTRY_KEY as i32);
        let l = self.konst(self.links);
        let epoch = self.b.ins().load(types::I64, f, l, OFF_LINK_KEY as i32);
        let want = match tc {
            Some(t) => self.b.ins().bor_imm(epoch, t as i64),
            None => {
                let t64 = self.b.ins().uextend(types::I64, t);
                self.b.ins().bor(epoch, t64)
            }
        };
        let hit = self.b.ins().icmp(IntCC::Equal, key, want);
        let go = self.b.create_block();
        self.b.ins().brif(hit, go, &[], back, &[t.into()]);
        self.b.switch_to_block(go);
        let code = self.b.ins().load(self.ptr, f, e, OFF_ENTRY_CODE as i32);
        let cpu = self.cpu;
        self.b
            .ins()
            .return_call_indirect(self.sigs.tail, code, &[cpu, t]);
    }

    /// An internal edge of the region to its block `m`: charges the current block,
    /// makes the per-block checks (all four on a backward edge, which every cycle
    /// has; the budget alone on a forward one, see docs/tiers.md) and jumps to
    /// `m`'s code with the guest registers in host registers. A failed check leaves
    /// for the run loop with EIP at `m`, as a link that is not taken.
    fn internal(&mut self, m: usize) {
        let cur = &self.info[self.cur];
        let (ninsn, from) = (cur.ninsn, cur.start);
        let to = self.info[m].start;
        let r = self.b.use_var(self.vret);
        let r = self.b.ins().iadd_imm(r, charge(ninsn, 1));
        self.b.def_var(self.vret, r);
        let state = (self.rec, self.rec_stored);
        // A forward edge checks nothing: the budget margin checked where the
        // code was entered or last went backward covers every forward path
        // (`BUDGET_MARGIN`), and every cycle has a backward edge.
        let fail = (to <= from).then(|| {
            let fail = self.b.create_block();
            self.b.set_cold_block(fail);
            self.checks(r, fail);
            fail
        });
        if self.info[m].reads_in {
            self.flush_flags();
        }
        if self.unchecked && self.info[self.cur].out_need && self.info[m].takes_need {
            self.spill_edge(to, r);
        }
        let target = self.blocks[m];
        self.b.ins().jump(target, &[]);
        let Some(fail) = fail else {
            (self.rec, self.rec_stored) = state;
            return;
        };
        self.b.switch_to_block(fail);
        (self.rec, self.rec_stored) = state;
        self.flush_flags();
        self.write_back();
        self.store_counts(r);
        let s = self.k32(to);
        self.b
            .ins()
            .store(MemFlags::trusted(), s, self.cpu, OFF_EIP as i32);
        let w = self.k32(EXIT_BLOCK);
        self.b.ins().return_(&[w]);
        (self.rec, self.rec_stored) = state;
    }

    /// The region's block starting at `t`, if any.
    fn member(&self, t: u32) -> Option<usize> {
        self.info.iter().position(|i| i.start == t)
    }

    /// Control goes to the block at the static address `t`: inside the region if
    /// it is a member and `inside` (a jump, not a call), else out through a link.
    fn exit_to(&mut self, t: u32, inside: bool) {
        match self.member(t) {
            Some(m) if inside => self.internal(m),
            _ => {
                let v = self.k32(t);
                self.leave(v, Some(t));
            }
        }
    }

    fn term(&mut self, p: &Plan) {
        let k = p.term_k;
        match p.term {
            Term::Goto(t) => self.exit_to(t, true),
            // Two exits rather than one after a `select`: each has a constant link
            // table slot, and the branch is predicted where the selected EIP would
            // make the table load wait for the condition (call_ret 2.1x vs 1.5x).
            Term::Jcc { cc, taken, next }
                if self.member(taken).is_none() && self.member(next).is_none() =>
            {
                let c = self.cond(cc);
                self.leave2(c, taken, next);
            }
            Term::Jcc { cc, taken, next } => {
                let c = self.cond(cc);
                let (tb, nb) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(c, tb, &[], nb, &[]);
                let (rec, stored) = (self.rec, self.rec_stored);
                self.b.switch_to_block(tb);
                self.exit_to(taken, true);
                (self.rec, self.rec_stored) = (rec, stored);
                self.b.switch_to_block(nb);
                self.exit_to(next, true);
            }
            Term::Call { target, ret } => {
                // As `call_to`: the return address is pushed (a store into code
                // still transfers; the run loop replays the write) or the CALL faults.
                let esp = self.reg(crate::cpu::ESP as u8);
                let sp = self.b.ins().iadd_imm(esp, -4);
                let a = self.seg_add(sp, crate::cpu::seg::SS);
                let r = self.k32(ret);
                self.store(a, r, 32, k);
                self.set(crate::cpu::ESP as u8, sp);
                self.exit_to(target, true);
            }
            Term::Jind(src) => {
                let t = self.value(src, k);
                self.leave(t, None);
            }
            Term::CallInd { s: src, ret } => {
                let t = self.value(src, k);
                let esp = self.reg(crate::cpu::ESP as u8);
                let sp = self.b.ins().iadd_imm(esp, -4);
                let a = self.seg_add(sp, crate::cpu::seg::SS);
                let r = self.k32(ret);
                self.store(a, r, 32, k);
                self.set(crate::cpu::ESP as u8, sp);
                self.leave(t, None);
            }
            Term::Ret { imm } => {
                let esp = self.reg(crate::cpu::ESP as u8);
                let a = self.seg_add(esp, crate::cpu::seg::SS);
                let t = self.load(a, 32, k);
                let sp = self.b.ins().iadd_imm(esp, 4 + imm as i64);
                self.set(crate::cpu::ESP as u8, sp);
                // Back into the region where a CALL of it pushed the address
                // (`region_edges`); anywhere else through the link table.
                for c in self.conts.clone() {
                    let m = self
                        .member(c)
                        .expect("a return address of the region is a member");
                    let (hit, miss) = (self.b.create_block(), self.b.create_block());
                    let is = self.b.ins().icmp_imm(IntCC::Equal, t, c as i64);
                    self.b.ins().brif(is, hit, &[], miss, &[]);
                    let (rec, stored) = (self.rec, self.rec_stored);
                    self.b.switch_to_block(hit);
                    self.internal(m);
                    (self.rec, self.rec_stored) = (rec, stored);
                    self.b.switch_to_block(miss);
                }
                self.leave(t, None);
            }
        }
    }
}
