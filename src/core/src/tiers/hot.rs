//! Process-wide hot blocks. Each guest thread's executor counts block entries in its
//! own block cache (plain cells on the run loop's path, readable only by that
//! thread). A [`HotTracker`] per thread turns them into deltas every [`PERIOD`] or so,
//! between executor runs, and publishes them into a [`HotRegistry`] shared by the
//! process; the app reads totals (`--stats`) and a sliding window (the overlay) from
//! there. Nothing here touches the per-block fast path.

use super::HotBlock;
use crate::exec::Executor;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often a running thread publishes while someone reads the recent window (wall
/// clock; publishing never changes guest state, so deterministic runs stay
/// deterministic).
pub const PERIOD: Duration = Duration::from_millis(100);
/// How often otherwise: only the totals are wanted then, and a publish matters for
/// them only when code is retired later (a retired block's entries since the last
/// publish are lost), so rarely is cheaper.
pub const IDLE_PERIOD: Duration = Duration::from_secs(2);
/// A read of the recent window keeps the fast cadence this long.
const WATCH: Duration = Duration::from_secs(2);
/// Instructions between looks at the clock.
const CHECK_INSNS: u64 = 100_000;
/// Batches older than this are dropped (the overlay's window is one second).
const KEEP: Duration = Duration::from_secs(3);

/// One guest thread's view of what it has published.
pub struct HotTracker {
    /// Entries of each live block at the last publish.
    last: HashMap<u32, u64>,
    /// The executor's flush count then: a flush restarts every block's count.
    flushes: u64,
    insns: u64,
    next_check: u64,
    published_at: Option<Instant>,
    /// The `uop` verdict of each head at the last publish (sent again only on change).
    uop: HashMap<u32, UopVerdict>,
}

impl Default for HotTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl HotTracker {
    pub fn new() -> HotTracker {
        HotTracker {
            last: HashMap::new(),
            flushes: 0,
            insns: 0,
            next_check: 0,
            published_at: None,
            uop: HashMap::new(),
        }
    }

    /// Whether a publish to `to` is due, given the thread's retired instructions: one
    /// compare on most calls, a clock read every [`CHECK_INSNS`].
    pub fn due(&mut self, insns: u64, to: &HotRegistry) -> bool {
        if insns < self.next_check {
            return false;
        }
        self.next_check = insns.saturating_add(CHECK_INSNS);
        let now = Instant::now();
        let period = if to.watched(now) { PERIOD } else { IDLE_PERIOD };
        self.published_at
            .is_none_or(|t| now.saturating_duration_since(t) >= period)
    }

    /// Publishes what `exec` ran since the last publish.
    pub fn publish(&mut self, exec: &Executor, to: &HotRegistry) {
        self.publish_at(exec, to, Instant::now());
    }

    pub fn publish_at(&mut self, exec: &Executor, to: &HotRegistry, now: Instant) {
        let flushed = exec.counters.flushes != self.flushes;
        self.flushes = exec.counters.flushes;
        let mut next = HashMap::with_capacity(self.last.len());
        let mut blocks = Vec::new();
        for b in exec.block_entries() {
            let before = if flushed {
                0
            } else {
                self.last.get(&b.start).copied().unwrap_or(0)
            };
            // A count below the last one belongs to a block decoded again (its bytes
            // changed) since: all of it is new.
            let d = if b.entries >= before {
                b.entries - before
            } else {
                b.entries
            };
            if d > 0 {
                blocks.push(HotBlock { entries: d, ..b });
            }
            next.insert(b.start, b.entries);
        }
        self.last = next;
        let mut verdicts = Vec::new();
        for &start in self.last.keys() {
            if let Some(v) = exec.uop.verdict(start).map(UopVerdict::of)
                && self.uop.get(&start) != Some(&v)
            {
                self.uop.insert(start, v.clone());
                verdicts.push((start, v));
            }
        }
        if !verdicts.is_empty() {
            to.lock().uop.extend(verdicts);
        }
        let insns = exec.counters.insns.saturating_sub(self.insns);
        self.insns = exec.counters.insns;
        self.published_at = Some(now);
        if insns > 0 || !blocks.is_empty() {
            to.add(now, insns, blocks);
        }
    }
}

/// Hot blocks of all guest threads, merged by guest address.
pub struct HotRegistry {
    inner: Mutex<Inner>,
    /// When the registry (the process) began: a window reaching before it is shorter.
    created: Instant,
    /// Milliseconds after `created` until which threads publish every [`PERIOD`].
    watched_until: AtomicU64,
}

impl Default for HotRegistry {
    fn default() -> Self {
        HotRegistry::created_at(Instant::now())
    }
}

#[derive(Default)]
struct Inner {
    totals: HashMap<u32, HotBlock>,
    insns: u64,
    recent: VecDeque<Batch>,
    /// The latest `uop` verdict per loop head (any thread).
    uop: HashMap<u32, UopVerdict>,
}

/// What the micro-op tier decided for a hot head, as the census groups it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UopVerdict {
    /// A program was compiled and installed.
    Installed,
    /// Lowering declined the head; the reason names the instruction form that stopped
    /// the scan (an iced `Code` name) or the structural reason (`no_backedge`, ...).
    Declined(String),
    /// Installed, then retired: its entries kept leaving without an iteration.
    Retired,
    /// Another tier's ops run the head (a fold, a region, a rewritten block).
    Claimed,
}

impl UopVerdict {
    fn of(v: &crate::uop::engine::Verdict) -> UopVerdict {
        use crate::uop::engine::Verdict;
        match v {
            Verdict::Run(_) => UopVerdict::Installed,
            Verdict::Declined(d) => UopVerdict::Declined(d.reason.name()),
            Verdict::Retired => UopVerdict::Retired,
            Verdict::Claimed => UopVerdict::Claimed,
        }
    }

    /// The census key: `installed`, `retired`, `claimed` or `declined:<reason>`.
    pub fn key(&self) -> String {
        match self {
            UopVerdict::Installed => "installed".into(),
            UopVerdict::Declined(r) => format!("declined:{r}"),
            UopVerdict::Retired => "retired".into(),
            UopVerdict::Claimed => "claimed".into(),
        }
    }
}

/// One row of the `uop` census: the heads that got a verdict and the block entries
/// they had in all (the weight: a declined head entered a million times matters more
/// than ten entered 40 times).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusRow {
    pub verdict: UopVerdict,
    pub heads: u64,
    pub entries: u64,
}

struct Batch {
    at: Instant,
    insns: u64,
    blocks: Vec<HotBlock>,
}

/// What ran in a recent window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recent {
    /// Most entered first; `entries` are those published in the window.
    pub blocks: Vec<HotBlock>,
    /// Instructions retired in the window (all threads).
    pub insns: u64,
    /// How long the window really is: shorter than asked when the process is younger.
    pub span: Duration,
}

impl HotRegistry {
    pub fn new() -> HotRegistry {
        HotRegistry::default()
    }

    /// A registry whose process began at `created` (tests set the clock).
    pub fn created_at(created: Instant) -> HotRegistry {
        HotRegistry {
            inner: Mutex::default(),
            created,
            watched_until: AtomicU64::new(0),
        }
    }

    fn ms(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.created).as_millis() as u64
    }

    /// Whether someone read the recent window lately (threads then publish often).
    pub fn watched(&self, now: Instant) -> bool {
        self.ms(now) < self.watched_until.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, at: Instant, insns: u64, blocks: Vec<HotBlock>) {
        let mut g = self.lock();
        g.insns += insns;
        for b in &blocks {
            merge(&mut g.totals, b);
        }
        while g
            .recent
            .front()
            .is_some_and(|f| at.saturating_duration_since(f.at) > KEEP)
        {
            g.recent.pop_front();
        }
        g.recent.push_back(Batch { at, insns, blocks });
    }

    /// The `n` most entered blocks since the process started.
    pub fn top(&self, n: usize) -> Vec<HotBlock> {
        let g = self.lock();
        ranked(g.totals.values().copied().collect(), n)
    }

    /// The `uop` census: per verdict, the heads and their entries since the process
    /// started, heaviest first.
    pub fn uop_census(&self) -> Vec<CensusRow> {
        let g = self.lock();
        let mut rows: HashMap<&UopVerdict, (u64, u64)> = HashMap::new();
        for (start, v) in &g.uop {
            let r = rows.entry(v).or_default();
            r.0 += 1;
            r.1 += g.totals.get(start).map_or(0, |b| b.entries);
        }
        let mut v: Vec<CensusRow> = rows
            .into_iter()
            .map(|(v, (heads, entries))| CensusRow {
                verdict: v.clone(),
                heads,
                entries,
            })
            .collect();
        v.sort_by(|a, b| (b.entries, &a.verdict).cmp(&(a.entries, &b.verdict)));
        v
    }

    /// Instructions published so far (all threads).
    pub fn insns(&self) -> u64 {
        self.lock().insns
    }

    /// The `n` most entered blocks among what was published in `(now - window, now]`.
    pub fn recent(&self, n: usize, now: Instant, window: Duration) -> Recent {
        self.watched_until
            .fetch_max(self.ms(now + WATCH), Ordering::Relaxed);
        let g = self.lock();
        let mut merged = HashMap::new();
        let mut insns = 0;
        for b in g
            .recent
            .iter()
            .filter(|b| b.at <= now && now.saturating_duration_since(b.at) < window)
        {
            insns += b.insns;
            for h in &b.blocks {
                merge(&mut merged, h);
            }
        }
        Recent {
            blocks: ranked(merged.into_values().collect(), n),
            insns,
            span: window.min(now.saturating_duration_since(self.created)),
        }
    }
}

/// Adds `b`'s entries to its address's row; the newest decode's shape and tier win.
fn merge(m: &mut HashMap<u32, HotBlock>, b: &HotBlock) {
    m.entry(b.start)
        .and_modify(|e| {
            e.entries += b.entries;
            e.insns_per_entry = b.insns_per_entry;
            e.tier = b.tier;
        })
        .or_insert(*b);
}

/// Most entered first, then by address (a stable order for equal counts).
fn ranked(mut v: Vec<HotBlock>, n: usize) -> Vec<HotBlock> {
    v.sort_by_key(|b| (std::cmp::Reverse(b.entries), b.start));
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::StopReason;
    use crate::harness::{CODE, EXIT, Machine, assemble};
    use iced_x86::code_asm::*;

    /// `mov ecx, n; L: dec ecx; jnz L; jmp EXIT`: the loop block `dec; jnz` is entered
    /// n - 1 times (the first iteration runs in the block that sets ECX).
    fn countdown(n: u32) -> Vec<u8> {
        assemble(|a| {
            let mut l = a.create_label();
            a.mov(ecx, n)?;
            a.set_label(&mut l)?;
            a.dec(ecx)?;
            a.jnz(l)?;
            a.jmp(EXIT as u64)
        })
    }

    /// A machine on gates of its own with `jit` off, whatever `WINTERP_TIERS` says:
    /// these tests count every entry of the loop block, which the run loop counts
    /// and compiled code (`jit`), entering blocks by links, does not.
    fn plain_machine() -> Machine {
        let mut m = Machine::new();
        let tiers = crate::tiers::Tiers::new();
        tiers
            .set(crate::tiers::Tier::Jit, false)
            .expect("jit is a built tier");
        m.exec.set_tiers(std::sync::Arc::new(tiers));
        m
    }

    fn entries_of(r: &[HotBlock], start: u32) -> u64 {
        r.iter().find(|b| b.start == start).map_or(0, |b| b.entries)
    }

    #[test]
    fn slices_published_add_up_to_the_blocks_entries() {
        let mut m = plain_machine();
        m.load(&countdown(50_000));
        let t0 = Instant::now();
        let reg = HotRegistry::created_at(t0);
        let mut t = HotTracker::new();
        let mut k = 0u32;
        loop {
            let r = m.run(7_000);
            k += 1;
            t.publish_at(&m.exec, &reg, t0 + Duration::from_millis(10 * k as u64));
            if r == StopReason::Thunk(EXIT) {
                break;
            }
            assert_eq!(r, StopReason::BudgetSpent);
        }
        assert!(k > 5, "the run was published in several slices ({k})");
        let top = reg.top(1);
        // The loop block starts after `mov ecx, imm32` (5 bytes).
        assert_eq!(top[0].start, CODE + 5);
        assert_eq!(top[0].entries, 49_999);
        assert_eq!(top[0].insns_per_entry, 2);
        assert_eq!(reg.insns(), m.exec.counters.insns);
        // Only the last 3 slices (30 ms) in a 25 ms window ending at the last one.
        let now = t0 + Duration::from_millis(10 * k as u64);
        let r = reg.recent(4, now, Duration::from_millis(25));
        let whole = reg.recent(4, now, Duration::from_secs(1));
        assert_eq!(entries_of(&whole.blocks, CODE + 5), 49_999);
        assert!(entries_of(&r.blocks, CODE + 5) < 49_999);
        assert!(entries_of(&r.blocks, CODE + 5) > 0);
        assert!(r.insns < whole.insns);
        assert_eq!(r.span, Duration::from_millis(25));
        // The process is younger than a second: the window is its age.
        assert_eq!(whole.span, Duration::from_millis(10 * k as u64));
    }

    #[test]
    fn a_flush_between_publishes_counts_the_new_entries() {
        let mut m = plain_machine();
        m.load(&countdown(30_000));
        let reg = HotRegistry::new();
        let mut t = HotTracker::new();
        let t0 = Instant::now();
        assert_eq!(m.run(20_000), StopReason::BudgetSpent);
        t.publish_at(&m.exec, &reg, t0);
        let first = reg.top(1)[0].entries;
        m.exec.flush();
        assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
        t.publish_at(&m.exec, &reg, t0 + Duration::from_millis(1));
        // Everything after the first publish was counted by the re-decoded block.
        assert_eq!(reg.top(1)[0].entries, 29_999);
        assert!(first > 0 && first < 29_999);
    }

    #[test]
    fn threads_publish_often_only_while_the_window_is_read() {
        let t0 = Instant::now();
        let reg = HotRegistry::created_at(t0);
        assert!(!reg.watched(t0));
        let mut t = HotTracker::new();
        assert!(t.due(0, &reg), "the first check publishes");
        t.published_at = Some(Instant::now() - Duration::from_millis(500));
        t.next_check = 0;
        assert!(!t.due(0, &reg), "half a second is not due unwatched");
        let _ = reg.recent(1, Instant::now(), Duration::from_secs(1));
        assert!(reg.watched(Instant::now()));
        t.next_check = 0;
        assert!(t.due(0, &reg), "watched: due after PERIOD");
        assert!(!t.due(1, &reg), "the clock is read every CHECK_INSNS only");
        assert!(!reg.watched(Instant::now() + WATCH + Duration::from_millis(10)));
    }

    #[test]
    fn threads_running_the_same_code_are_merged() {
        let reg = HotRegistry::new();
        let t0 = Instant::now();
        for _ in 0..2 {
            let mut m = Machine::new();
            m.load(&countdown(1_000));
            assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
            HotTracker::new().publish_at(&m.exec, &reg, t0);
        }
        assert_eq!(reg.top(1)[0].entries, 2 * 999);
    }
}
