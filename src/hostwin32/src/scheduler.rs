//! Guest threads, the process's dispatcher lock, and the two ways threads run.
//!
//! # OS-thread mode (the default)
//!
//! Every guest thread is a host thread with its own [`GuestThread`] (CPU, executor and
//! block cache, stack, TEB). [`run_process`] runs the main thread on the calling host
//! thread, [`spawn`] starts the others, and the process ends when the main thread's
//! entry returns, any thread calls ExitProcess or crashes, or (after the main thread
//! called ExitThread) the last thread ends. Ending sets the exit code and then
//! [`stop_all`]: every thread's halt flag (the executor stops at its next block
//! boundary) and every condition variable a thread may sleep on is notified.
//!
//! Waits block for real. All waitable objects share one dispatcher lock per process
//! ([`Sched::lock`], proof of holding it is a [`Locked`]) and one condition variable:
//! a wait checks and acquires its objects atomically under the lock (so
//! WaitForMultipleObjects with wait-all takes all or nothing), and anything that
//! signals an object does so under the lock and notifies the condition variable.
//! Critical sections are not dispatcher objects: each has its own lock and condition
//! variable (kernel32/sync.rs) because they are hot.
//!
//! # Deterministic mode (`ProcessConfig::deterministic`)
//!
//! All guest threads take turns on the one host thread that called [`run_process`],
//! [`DET_QUANTUM`] instructions at a time (checked at block boundaries, so a slice
//! always ends at the same instruction), round robin in creation order. Nothing in
//! this mode depends on host timing, so two runs retire the same instructions.
//!
//! A blocking API must not block the host thread, yet API functions stay mode-agnostic:
//! they call [`wait_for`] / [`sleep`], which in this mode either completes the wait at
//! once or records a [`WaitSpec`] in `GuestThread::sched.wait` and returns
//! [`Outcome::Resume`] without touching EIP or ESP. EIP still points at the API's
//! thunk, so when the scheduler next runs the thread the executor stops on the thunk
//! immediately and the API is called again with the same arguments; it finds its own
//! `WaitSpec` (and so the original deadline) and tries again. The scheduler only picks
//! a waiting thread when its wait could be satisfied or its deadline has passed, so a
//! blocked thread costs nothing. Each retry appears once more in the API call count.
//!
//! Clocks are virtual: the process clock counts instructions retired by all threads
//! (plus the time skipped while every thread slept), [`INSNS_PER_MS`] of them per
//! millisecond. When no thread can run but some wait has a deadline, the clock jumps
//! to the earliest deadline. When no thread can run and no wait can time out, the
//! process ends with a deadlock report listing every thread and what it waits for.
//!
//! A thread that blocks or ends its slice inside a host-initiated guest call (a
//! callback run by [`GuestThread::call_guest`]) cannot return to the scheduler loop
//! without unwinding host frames, so [`reschedule`] runs the other threads' slices from
//! there until it may continue. Threads whose host frames lie further down the stack
//! cannot run until the frames above them return; if one of them is needed, the
//! deadlock report says so.

use crate::hle::{ApiError, ApiResult, Ctx, Outcome};
use crate::objects::{CURRENT_THREAD, KernelObject};
use crate::process::Process;
use crate::thread::{GuestThread, ThreadEnd};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, Weak};
use std::time::{Duration, Instant};

/// Instructions in one deterministic time slice.
pub const DET_QUANTUM: u64 = 10_000;
/// Virtual clock rate in deterministic mode: a guest running at 100 MIPS.
pub const INSNS_PER_MS: u64 = 100_000;

pub const INFINITE: u32 = u32::MAX;
pub const WAIT_OBJECT_0: u32 = 0;
pub const WAIT_ABANDONED_0: u32 = 0x80;
pub const WAIT_TIMEOUT: u32 = 0x102;
pub const WAIT_FAILED: u32 = u32::MAX;
pub const STILL_ACTIVE: u32 = 259;
const ERROR_NOT_ENOUGH_MEMORY: u32 = 8;
/// MAXIMUM_SUSPEND_COUNT.
pub const MAX_SUSPEND: u32 = 127;
/// Exit code recorded when a thread crashes or reaches the instruction limit. It only
/// serves to stop the other threads: [`run_process`] returns the crash report or the
/// limit, and the runner reports that.
pub const ABNORMAL_EXIT: u32 = 1;
/// Deterministic mode: how long the scheduler sleeps at most, while every thread
/// waits for another process, before it looks again.
const EXTERNAL_POLL: Duration = Duration::from_millis(20);
/// Host stack for guest threads' host threads (nested guest calls recurse on it).
const HOST_STACK: usize = 16 << 20;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Proof that the caller holds the process's dispatcher lock.
pub struct Locked<'a> {
    guard: MutexGuard<'a, ()>,
}

impl<'a> Locked<'a> {
    /// Sleeps on the dispatcher condition variable (releasing the lock meanwhile).
    fn wait(self, cond: &Condvar, timeout: Option<Duration>) -> Locked<'a> {
        let guard = match timeout {
            None => cond.wait(self.guard).unwrap_or_else(|e| e.into_inner()),
            Some(d) => match cond.wait_timeout(self.guard, d) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            },
        };
        Locked { guard }
    }
}

/// A kernel object a thread can wait for. Every method is called with the dispatcher
/// lock held; whoever changes an object's signal state does so under that lock and
/// then calls [`Sched::wake`].
pub trait Waitable {
    /// Whether a wait by thread `tid` would be satisfied now.
    fn ready(&self, k: &Locked, tid: u32) -> bool;
    /// Satisfies a wait by `tid` that found it ready: consumes an auto-reset signal or
    /// a semaphore unit, takes a mutex. True when the wait reports WAIT_ABANDONED.
    fn acquire(&self, k: &Locked, tid: u32) -> bool;
    /// `tid` starts blocking on this object (PulseEvent releases current waiters).
    fn wait_begin(&self, _k: &Locked, _tid: u32) {}
    /// `tid` stopped blocking on this object (satisfied, timed out or gone).
    fn wait_end(&self, _k: &Locked, _tid: u32) {}
    /// Thread `tid` ended (a mutex it owns becomes abandoned). Only objects given to
    /// [`Sched::watch_thread_exit`] are told.
    fn thread_exited(&self, _k: &Locked, _tid: u32) {}
    /// Wakes host threads sleeping on a private condition variable of this object
    /// (the process is ending or a thread was terminated).
    fn wake_all(&self) {}
    /// Signalled from outside the process (another OS process ending): in
    /// deterministic mode a wait for it blocks the host thread for real instead of
    /// counting as a deadlock.
    fn external(&self) -> bool {
        false
    }
    /// For deadlock reports ("Event (auto-reset, not signalled)").
    fn describe(&self) -> String;
}

/// What a thread waits for in deterministic mode (see the module comment).
pub struct WaitSpec {
    /// The objects; empty for Sleep.
    pub objs: Vec<Arc<dyn KernelObject>>,
    /// Wait for all of them rather than any one.
    pub all: bool,
    /// Virtual clock value (instructions) when the wait times out; `None` for INFINITE.
    pub deadline: Option<u64>,
}

/// A thread's scheduling state, kept in [`GuestThread::sched`].
pub struct ThreadSched {
    /// Deterministic mode: the wait the thread is blocked in, if any.
    pub wait: Option<WaitSpec>,
    /// Executor instruction count when the current slice began.
    pub slice_start: u64,
    /// Executor instruction count at which the current slice ends (`u64::MAX` when not
    /// time-sliced, as in OS-thread mode).
    pub slice_end: u64,
    /// End the slice at the next opportunity (Sleep(0), SwitchToThread, self-suspend).
    pub yield_requested: bool,
    /// The thread's kernel object, once registered.
    pub obj: Option<Arc<ThreadObj>>,
}

impl Default for ThreadSched {
    fn default() -> Self {
        ThreadSched {
            wait: None,
            slice_start: 0,
            slice_end: u64::MAX,
            yield_requested: false,
            obj: None,
        }
    }
}

#[derive(Default)]
struct ThreadState {
    exit: Option<u32>,
    suspend: u32,
    priority: i32,
    terminate: Option<u32>,
    /// The thread called ExitThread (for the main thread: the process lives on).
    explicit_exit: bool,
}

/// A thread's kernel object: what a thread HANDLE refers to. Signalled when the
/// thread ends.
pub struct ThreadObj {
    pub tid: u32,
    /// Guest address of its TEB.
    pub teb: u32,
    halt: Arc<winterp_core::attention::Attention>,
    st: Mutex<ThreadState>,
    /// OS-thread mode: a suspended thread sleeps here.
    park: Condvar,
}

impl KernelObject for ThreadObj {
    fn type_name(&self) -> &'static str {
        "Thread"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for ThreadObj {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        lock(&self.st).exit.is_some()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        format!("Thread {:#x} (running)", self.tid)
    }
}

impl ThreadObj {
    fn new(tid: u32, teb: u32, halt: Arc<winterp_core::attention::Attention>) -> ThreadObj {
        ThreadObj {
            tid,
            teb,
            halt,
            st: Mutex::new(ThreadState::default()),
            park: Condvar::new(),
        }
    }

    /// The exit code once the thread has ended.
    pub fn exit_code(&self) -> Option<u32> {
        lock(&self.st).exit
    }

    /// SuspendThread: the previous suspend count, or `None` at MAXIMUM_SUSPEND_COUNT.
    /// The thread stops at its next block boundary.
    pub fn suspend(&self) -> Option<u32> {
        let mut st = lock(&self.st);
        if st.suspend >= MAX_SUSPEND {
            return None;
        }
        let prev = st.suspend;
        st.suspend += 1;
        if st.exit.is_none() {
            self.halt.store(true, Ordering::SeqCst);
        }
        Some(prev)
    }

    /// ResumeThread: the previous suspend count.
    pub fn resume(&self) -> u32 {
        let mut st = lock(&self.st);
        let prev = st.suspend;
        if prev > 0 {
            st.suspend -= 1;
            if st.suspend == 0 {
                self.park.notify_all();
            }
        }
        prev
    }

    pub fn suspend_count(&self) -> u32 {
        lock(&self.st).suspend
    }

    pub fn priority(&self) -> i32 {
        lock(&self.st).priority
    }

    pub fn set_priority(&self, p: i32) {
        lock(&self.st).priority = p;
    }

    /// Asks the thread to end with `code` at its next block boundary or wait.
    fn request_terminate(&self, code: u32) {
        let mut st = lock(&self.st);
        if st.exit.is_none() && st.terminate.is_none() {
            st.terminate = Some(code);
            // Like ExitThread: a terminated main thread does not end the process.
            st.explicit_exit = true;
            self.halt.store(true, Ordering::SeqCst);
            self.park.notify_all();
        }
    }

    /// The exit code TerminateThread asked for, while the thread has not ended yet.
    pub fn terminate_requested(&self) -> Option<u32> {
        lock(&self.st).terminate
    }

    fn explicit_exit(&self) -> bool {
        lock(&self.st).explicit_exit
    }
}

/// One live thread of the process.
struct Entry {
    /// Creation order (round robin order in deterministic mode).
    seq: u64,
    obj: Arc<ThreadObj>,
    /// Deterministic mode: the thread while it is not running (and not on the host
    /// stack below a nested call).
    parked: Option<Box<GuestThread>>,
    /// Deterministic mode: DLL thread-attach notifications have run.
    started: bool,
}

/// Process-wide thread and synchronisation state, kept in [`Process::sched`].
pub struct Sched {
    kernel: Mutex<()>,
    cond: Condvar,
    threads: Mutex<Vec<Entry>>,
    next_seq: AtomicU64,
    main_tid: AtomicU32,
    /// Deterministic mode: sequence number of the thread picked last.
    last_seq: AtomicU64,
    /// Deterministic mode: the virtual clock (instructions) at the start of the running
    /// slice, and how much of it was skipped while every thread slept.
    clock: AtomicU64,
    idle: AtomicU64,
    /// Critical sections by guest address (kernel32/sync.rs owns the object type).
    critical: RwLock<HashMap<u32, Arc<dyn KernelObject>>>,
    /// Named objects (events, mutexes, semaphores share one namespace).
    names: Mutex<HashMap<String, Weak<dyn KernelObject>>>,
    /// Objects that care when a thread ends (mutexes).
    exit_watch: Mutex<Vec<Weak<dyn KernelObject>>>,
    /// TlsAlloc bitmap.
    pub tls: Mutex<u64>,
    /// OS-thread mode: host threads to join at process end.
    joins: Mutex<Vec<std::thread::JoinHandle<()>>>,
    /// How the process ended, when not by an exit code alone (first one wins).
    outcome: Mutex<Option<ThreadEnd>>,
    /// Deterministic mode: called at each tick of the virtual refresh (see
    /// [`set_frame_hook`]), and the number of the next tick.
    frame_hook: Mutex<Option<FrameHook>>,
    next_frame: AtomicU64,
}

/// Called with the frame number at each virtual refresh tick in deterministic mode,
/// on the scheduler's host thread between time slices. It may inject input
/// ([`crate::display::inject`]), read the frame, or end the run ([`end_process`]).
pub type FrameHook = Box<dyn FnMut(&Arc<Process>, u64) + Send>;

impl Default for Sched {
    fn default() -> Self {
        Sched {
            kernel: Mutex::new(()),
            cond: Condvar::new(),
            threads: Mutex::new(Vec::new()),
            next_seq: AtomicU64::new(0),
            main_tid: AtomicU32::new(0),
            last_seq: AtomicU64::new(u64::MAX),
            clock: AtomicU64::new(0),
            idle: AtomicU64::new(0),
            critical: RwLock::new(HashMap::new()),
            names: Mutex::new(HashMap::new()),
            exit_watch: Mutex::new(Vec::new()),
            tls: Mutex::new(0),
            joins: Mutex::new(Vec::new()),
            outcome: Mutex::new(None),
            frame_hook: Mutex::new(None),
            next_frame: AtomicU64::new(0),
        }
    }
}

impl Sched {
    /// Takes the dispatcher lock.
    pub fn lock(&self) -> Locked<'_> {
        Locked {
            guard: lock(&self.kernel),
        }
    }

    /// Wakes every waiter to re-check its objects (call after signalling, lock held).
    pub fn wake(&self, _k: &Locked) {
        self.cond.notify_all();
    }

    /// The critical section object registered for guest address `addr`.
    pub fn critical_section(&self, addr: u32) -> Option<Arc<dyn KernelObject>> {
        self.critical
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&addr)
            .cloned()
    }

    /// Registers (or replaces) the critical section object for `addr`.
    pub fn set_critical_section(&self, addr: u32, obj: Option<Arc<dyn KernelObject>>) {
        let mut m = self.critical.write().unwrap_or_else(|e| e.into_inner());
        match obj {
            Some(o) => m.insert(addr, o),
            None => m.remove(&addr),
        };
    }

    /// The critical section for `addr`, created by `make` if there is none yet (both
    /// under the map's write lock, so two threads agree on one object).
    pub fn critical_section_or(
        &self,
        addr: u32,
        make: impl FnOnce() -> Arc<dyn KernelObject>,
    ) -> Arc<dyn KernelObject> {
        if let Some(o) = self.critical_section(addr) {
            return o;
        }
        let mut m = self.critical.write().unwrap_or_else(|e| e.into_inner());
        m.entry(addr).or_insert_with(make).clone()
    }

    /// The live object called `name`.
    pub fn named(&self, name: &str) -> Option<Arc<dyn KernelObject>> {
        lock(&self.names).get(name).and_then(Weak::upgrade)
    }

    /// The object called `name`, or a new one from `make` registered under it; the
    /// flag says whether it existed.
    pub fn named_or(
        &self,
        name: &str,
        make: impl FnOnce() -> Arc<dyn KernelObject>,
    ) -> (Arc<dyn KernelObject>, bool) {
        let mut names = lock(&self.names);
        if let Some(o) = names.get(name).and_then(Weak::upgrade) {
            return (o, true);
        }
        names.retain(|_, w| w.strong_count() > 0);
        let o = make();
        names.insert(name.to_string(), Arc::downgrade(&o));
        (o, false)
    }

    /// `obj` is told when a thread ends ([`Waitable::thread_exited`]).
    pub fn watch_thread_exit(&self, obj: &Arc<dyn KernelObject>) {
        let mut w = lock(&self.exit_watch);
        w.retain(|o| o.strong_count() > 0);
        w.push(Arc::downgrade(obj));
    }

    /// The kernel objects of all live threads.
    pub fn threads(&self) -> Vec<Arc<ThreadObj>> {
        lock(&self.threads).iter().map(|e| e.obj.clone()).collect()
    }

    /// Instructions retired by all threads (deterministic mode, completed slices).
    fn retired(&self) -> u64 {
        self.clock.load(Ordering::Relaxed) - self.idle.load(Ordering::Relaxed)
    }

    fn set_outcome(&self, end: ThreadEnd) {
        lock(&self.outcome).get_or_insert(end);
    }
}

/// The thread's kernel object, registering the thread with the process first if
/// needed (the main thread is registered lazily; [`spawn`] registers the others).
pub fn register(proc: &Process, t: &mut GuestThread) -> Arc<ThreadObj> {
    if let Some(o) = &t.sched.obj {
        return o.clone();
    }
    let obj = Arc::new(ThreadObj::new(t.tid, t.teb, t.exec.halt_handle()));
    let s = &proc.sched;
    lock(&s.threads).push(Entry {
        seq: s.next_seq.fetch_add(1, Ordering::Relaxed),
        obj: obj.clone(),
        parked: None,
        started: true,
    });
    t.sched.obj = Some(obj.clone());
    obj
}

/// The calling thread's kernel object.
pub fn current(cx: &mut Ctx) -> Arc<ThreadObj> {
    register(cx.proc, cx.thread)
}

/// The thread object a handle names (including the GetCurrentThread pseudo-handle).
pub fn thread_from_handle(cx: &mut Ctx, h: u32) -> Option<Arc<ThreadObj>> {
    if h == CURRENT_THREAD {
        return Some(current(cx));
    }
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<ThreadObj>(h)
}

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("thread id {0:#x} is already in use")]
    DuplicateTid(u32),
    #[error("cannot start a host thread: {0}")]
    Host(String),
}

/// Starts a thread built by the loader (stack, TEB, EIP at its start routine). In
/// OS-thread mode it gets its own host thread at once; in deterministic mode it joins
/// the round robin. `suspended` is CREATE_SUSPENDED.
pub fn spawn(
    proc: &Arc<Process>,
    mut t: GuestThread,
    suspended: bool,
) -> Result<Arc<ThreadObj>, SpawnError> {
    let s = &proc.sched;
    let obj = Arc::new(ThreadObj::new(t.tid, t.teb, t.exec.halt_handle()));
    if suspended {
        lock(&obj.st).suspend = 1;
    }
    t.sched.obj = Some(obj.clone());
    let mut ts = lock(&s.threads);
    if ts.iter().any(|e| e.obj.tid == t.tid) {
        return Err(SpawnError::DuplicateTid(t.tid));
    }
    let seq = s.next_seq.fetch_add(1, Ordering::Relaxed);
    if proc.config.deterministic {
        ts.push(Entry {
            seq,
            obj: obj.clone(),
            parked: Some(Box::new(t)),
            started: false,
        });
    } else {
        let (p, o) = (proc.clone(), obj.clone());
        let h = std::thread::Builder::new()
            .name(format!("guest thread {:#x}", t.tid))
            .stack_size(HOST_STACK)
            .spawn(move || os_thread_main(p, o, t))
            .map_err(|e| SpawnError::Host(e.to_string()))?;
        ts.push(Entry {
            seq,
            obj: obj.clone(),
            parked: None,
            started: true,
        });
        lock(&s.joins).push(h);
    }
    Ok(obj)
}

/// Runs the process's threads until the process ends, in either mode, and says how
/// it ended: `Exited(c)` when the main thread's entry returned `c`, `ProcessExit(c)`
/// for ExitProcess (or the last thread's exit after the main thread's ExitThread),
/// `Crashed` with the report of the first thread that crashed (or of a deadlock), or
/// `InstructionLimit`. `main` must have its start set up (see
/// [`GuestThread::start_at`]).
pub fn run_process(proc: &Arc<Process>, main: GuestThread) -> ThreadEnd {
    let end = if proc.config.deterministic {
        det_run(proc, main)
    } else {
        os_run(proc, main)
    };
    // Mapped views reach their files however the process ended, as the system's
    // cache manager would write them back.
    crate::kernel32::file::flush_all_views(proc);
    end
}

fn final_end(proc: &Process) -> ThreadEnd {
    if let Some(e) = lock(&proc.sched.outcome).take() {
        return e;
    }
    ThreadEnd::ProcessExit(proc.exited().unwrap_or(0))
}

/// Bookkeeping when a thread ends, in either mode: its object is signalled, mutexes it
/// owns are abandoned, and the process ends if this was the main thread returning, a
/// crash, or the last thread.
fn thread_ended(proc: &Process, obj: &Arc<ThreadObj>, end: &ThreadEnd) {
    let s = &proc.sched;
    let code = match end {
        ThreadEnd::Exited(c) | ThreadEnd::ProcessExit(c) => *c,
        ThreadEnd::Crashed(_) | ThreadEnd::InstructionLimit => ABNORMAL_EXIT,
    };
    {
        let k = s.lock();
        {
            let mut st = lock(&obj.st);
            st.exit = Some(code);
            st.terminate = None;
        }
        let watched: Vec<Arc<dyn KernelObject>> = lock(&s.exit_watch)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for o in watched {
            if let Some(w) = o.as_waitable() {
                w.thread_exited(&k, obj.tid);
            }
        }
        s.wake(&k);
    }
    let live = {
        let mut ts = lock(&s.threads);
        ts.retain(|e| !Arc::ptr_eq(&e.obj, obj));
        ts.len()
    };
    let main = obj.tid == s.main_tid.load(Ordering::Relaxed);
    let ending = match end {
        ThreadEnd::Exited(c) => {
            if main && !obj.explicit_exit() {
                s.set_outcome(ThreadEnd::Exited(*c));
                proc.set_exit(*c);
                true
            } else if live == 0 {
                proc.set_exit(*c);
                true
            } else {
                false
            }
        }
        ThreadEnd::ProcessExit(_) => true,
        ThreadEnd::Crashed(_) | ThreadEnd::InstructionLimit => {
            s.set_outcome(end.clone());
            proc.set_exit(ABNORMAL_EXIT);
            true
        }
    };
    if ending && !proc.config.deterministic {
        stop_all(proc);
    }
}

/// Installs the deterministic-mode refresh hook: it runs for frame 0 at once and for
/// frame `k` when the virtual clock reaches [`crate::display::frame_start`]`(k)`. While
/// a hook is installed, idle time advances to the next tick instead of ending the
/// process with a deadlock, so a program waiting for input keeps receiving frames.
pub fn set_frame_hook(proc: &Process, hook: FrameHook) {
    *lock(&proc.sched.frame_hook) = Some(hook);
}

/// Ends the process from the host (the headless runner after its last frame, the
/// player when the user closes a program that ignores WM_CLOSE): every thread stops
/// at its next block boundary or wait, and [`run_process`] returns
/// `ProcessExit(code)`.
pub fn end_process(proc: &Process, code: u32) {
    proc.sched.set_outcome(ThreadEnd::ProcessExit(code));
    proc.set_exit(code);
    stop_all(proc);
}

/// Runs the refresh hook for every tick the virtual clock has reached.
fn run_frame_hook(proc: &Arc<Process>, now: u64) {
    let s = &proc.sched;
    let mut hook = lock(&s.frame_hook);
    let Some(h) = hook.as_mut() else { return };
    loop {
        let k = s.next_frame.load(Ordering::Relaxed);
        if crate::display::frame_start(k) > now || proc.exited().is_some() {
            break;
        }
        s.next_frame.store(k + 1, Ordering::Relaxed);
        h(proc, k);
    }
}

/// The virtual clock value of the next refresh tick, if a hook is installed.
fn next_tick(proc: &Process) -> Option<u64> {
    let s = &proc.sched;
    lock(&s.frame_hook)
        .is_some()
        .then(|| crate::display::frame_start(s.next_frame.load(Ordering::Relaxed)))
}

/// Stops every thread of an exiting process: halt flags, and every condition
/// variable a thread may sleep on. Call after `proc.set_exit`.
pub fn stop_all(proc: &Process) {
    let s = &proc.sched;
    for t in s.threads() {
        t.halt.store(true, Ordering::SeqCst);
        let _g = lock(&t.st);
        t.park.notify_all();
    }
    wake_blocked(proc);
}

/// Wakes every host thread blocked in a wait so it re-checks process exit and
/// termination requests.
fn wake_blocked(proc: &Process) {
    let s = &proc.sched;
    {
        let k = s.lock();
        s.wake(&k);
    }
    let cs: Vec<Arc<dyn KernelObject>> = s
        .critical
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .cloned()
        .collect();
    for o in cs {
        if let Some(w) = o.as_waitable() {
            w.wake_all();
        }
    }
}

/// TerminateThread of another thread: it ends with `code` at its next block
/// boundary, or at once if it is waiting.
pub fn terminate(proc: &Process, obj: &ThreadObj, code: u32) {
    obj.request_terminate(code);
    if !proc.config.deterministic {
        wake_blocked(proc);
    }
}

/// ExitThread for the calling thread (also `_endthreadex`).
pub fn exit_thread(cx: &mut Ctx, code: u32) -> Outcome {
    let obj = current(cx);
    lock(&obj.st).explicit_exit = true;
    Outcome::ExitThread(code)
}

/// Called by the thread loop when its executor stopped for the halt flag: parks while
/// the thread is suspended (OS-thread mode), or ends it for TerminateThread.
pub fn on_halt(t: &mut GuestThread, proc: &Arc<Process>) -> Result<(), ThreadEnd> {
    let Some(obj) = t.sched.obj.clone() else {
        t.exec.halt_handle().store(false, Ordering::SeqCst);
        return Ok(());
    };
    if park(proc, &obj)? {
        t.sched.yield_requested = true;
    }
    Ok(())
}

/// Waits while `obj` is suspended. `Ok(true)` in deterministic mode when the thread
/// must give up its slice instead (the scheduler does not pick suspended threads).
fn park(proc: &Process, obj: &ThreadObj) -> Result<bool, ThreadEnd> {
    let mut st = lock(&obj.st);
    loop {
        if proc.exited().is_some() {
            // The thread loop sees the exit before running anything.
            return Ok(false);
        }
        if let Some(c) = st.terminate {
            return Err(ThreadEnd::Exited(c));
        }
        if st.suspend == 0 {
            obj.halt.store(false, Ordering::SeqCst);
            return Ok(false);
        }
        if proc.config.deterministic {
            obj.halt.store(false, Ordering::SeqCst);
            return Ok(true);
        }
        st = obj.park.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

/// DLL_THREAD_ATTACH notifications for a new thread, on that thread.
fn attach(t: &mut GuestThread, proc: &Arc<Process>) -> Result<(), ThreadEnd> {
    crate::loader::thread_attach(proc, t)
}

/// The end of a thread other than the main one, on that thread: DLL_THREAD_DETACH
/// when it returned or called ExitThread (not for TerminateThread or process exit,
/// as on Windows), then its counters are recorded and its object signalled, and its
/// TEB, stack and TLS data are freed.
fn finish_thread(proc: &Arc<Process>, obj: &Arc<ThreadObj>, t: &mut GuestThread, end: ThreadEnd) {
    let mut end = end;
    if matches!(end, ThreadEnd::Exited(_))
        && obj.terminate_requested().is_none()
        && let Err(e) = crate::loader::thread_detach(proc, t)
    {
        end = e;
    }
    end_wait(proc, t);
    t.finish(proc);
    thread_ended(proc, obj, &end);
    crate::startup::release_thread(proc, t.tid);
}

// ---- OS-thread mode -------------------------------------------------------------------

fn os_run(proc: &Arc<Process>, mut main: GuestThread) -> ThreadEnd {
    let s = &proc.sched;
    let obj = register(proc, &mut main);
    s.main_tid.store(obj.tid, Ordering::Relaxed);
    let end = main.run(proc);
    thread_ended(proc, &obj, &end);
    // Threads may start threads while we join; keep going until none are left.
    loop {
        let hs: Vec<_> = lock(&s.joins).drain(..).collect();
        if hs.is_empty() {
            break;
        }
        for h in hs {
            if h.join().is_err() {
                s.set_outcome(ThreadEnd::Crashed(
                    "winterp: a guest thread's host thread panicked".into(),
                ));
                proc.set_exit(ABNORMAL_EXIT);
                stop_all(proc);
            }
        }
    }
    final_end(proc)
}

fn os_thread_main(proc: Arc<Process>, obj: Arc<ThreadObj>, mut t: GuestThread) {
    // CREATE_SUSPENDED: nothing runs, not even DLL notifications, until resumed.
    let end = match park(&proc, &obj).and_then(|_| attach(&mut t, &proc)) {
        Err(e) => e,
        Ok(()) => loop {
            if let Some(e) = t.run_slice(&proc) {
                break e;
            }
        },
    };
    finish_thread(&proc, &obj, &mut t, end);
}

// ---- Deterministic mode -----------------------------------------------------------------

fn det_run(proc: &Arc<Process>, main: GuestThread) -> ThreadEnd {
    let s = &proc.sched;
    let mut main = Box::new(main);
    let obj = register(proc, &mut main);
    s.main_tid.store(obj.tid, Ordering::Relaxed);
    if let Some(e) = lock(&s.threads)
        .iter_mut()
        .find(|e| Arc::ptr_eq(&e.obj, &obj))
    {
        e.parked = Some(main);
        e.started = true;
    }
    let _ = det_loop(proc, None);
    // Threads still alive when the process ended.
    let rest: Vec<Entry> = lock(&s.threads).drain(..).collect();
    for e in rest {
        if let Some(mut t) = e.parked {
            t.finish(proc);
        }
    }
    final_end(proc)
}

/// Deterministic mode: the thread `t` (running on this host stack, inside a nested
/// guest call or its own loop) ended its slice or blocked. Runs other threads until
/// `t` may continue, then starts its next slice.
pub fn reschedule(t: &mut GuestThread, proc: &Arc<Process>) -> Result<(), ThreadEnd> {
    if !proc.config.deterministic {
        t.sched.yield_requested = false;
        return Ok(());
    }
    let obj = register(proc, t);
    account(proc, t);
    det_loop(proc, Some(&*t))?;
    if let Some(c) = obj.terminate_requested() {
        return Err(ThreadEnd::Exited(c));
    }
    begin_slice(t);
    Ok(())
}

/// Adds the instructions `t` retired since its slice began to the process clock.
fn account(proc: &Process, t: &mut GuestThread) {
    if !proc.config.deterministic {
        return;
    }
    let now = t.exec.counters.insns;
    proc.sched
        .clock
        .fetch_add(now - t.sched.slice_start, Ordering::Relaxed);
    t.sched.slice_start = now;
}

fn begin_slice(t: &mut GuestThread) {
    let now = t.exec.counters.insns;
    t.sched.slice_start = now;
    t.sched.slice_end = now + DET_QUANTUM;
    t.sched.yield_requested = false;
}

enum Pick {
    /// The thread on the host stack that asked may continue.
    Me,
    Run {
        seq: u64,
        obj: Arc<ThreadObj>,
        thread: Box<GuestThread>,
        started: bool,
    },
    /// Nothing can run before the virtual clock reaches this.
    Idle(u64),
    /// Nothing can run until an external object is signalled (another OS process)
    /// or the virtual clock reaches the value given.
    Block(Option<u64>),
    Deadlock(String),
}

enum Ready {
    Now,
    At(u64),
    Never,
}

/// The scheduler loop. With `me` (a thread whose host frames are on this stack) it
/// returns `Ok` once `me` may continue; without, it runs until the process ends.
/// `Err` is how `me` (or the top level) must end.
fn det_loop(proc: &Arc<Process>, me: Option<&GuestThread>) -> Result<(), ThreadEnd> {
    let s = &proc.sched;
    loop {
        if let Some(code) = proc.exited() {
            return Err(ThreadEnd::ProcessExit(code));
        }
        if let Some(max) = proc.config.max_instructions
            && s.retired() >= max
        {
            s.set_outcome(ThreadEnd::InstructionLimit);
            proc.set_exit(ABNORMAL_EXIT);
            return Err(ThreadEnd::InstructionLimit);
        }
        let now = s.clock.load(Ordering::Relaxed);
        run_frame_hook(proc, now);
        if let Some(code) = proc.exited() {
            return Err(ThreadEnd::ProcessExit(code));
        }
        match pick(proc, me, now) {
            Pick::Me => return Ok(()),
            Pick::Run {
                seq,
                obj,
                mut thread,
                started,
            } => match run_det_slice(proc, &obj, &mut thread, started) {
                None => {
                    if let Some(e) = lock(&s.threads).iter_mut().find(|e| e.seq == seq) {
                        e.parked = Some(thread);
                        e.started = true;
                    }
                }
                Some(end) => {
                    if obj.tid == s.main_tid.load(Ordering::Relaxed) {
                        end_wait(proc, &mut thread);
                        thread.finish(proc);
                        thread_ended(proc, &obj, &end);
                    } else {
                        finish_thread(proc, &obj, &mut thread, end);
                    }
                }
            },
            Pick::Idle(at) => {
                s.idle.fetch_add(at - now, Ordering::Relaxed);
                s.clock.store(at, Ordering::Relaxed);
            }
            Pick::Block(until) => {
                // Real time passes on the virtual clock while every thread waits
                // for another process, so timeouts and refresh ticks keep their
                // meaning; a signal wakes the dispatcher condition variable.
                let start = Instant::now();
                let k = s.lock();
                drop(k.wait(&s.cond, Some(EXTERNAL_POLL)));
                let passed = start.elapsed().as_micros() as u64 * INSNS_PER_MS / 1000;
                let to = until.map_or(now + passed, |d| d.min(now + passed)).max(now);
                s.idle.fetch_add(to - now, Ordering::Relaxed);
                s.clock.store(to, Ordering::Relaxed);
            }
            Pick::Deadlock(report) => {
                let end = ThreadEnd::Crashed(report);
                s.set_outcome(end.clone());
                proc.set_exit(ABNORMAL_EXIT);
                return Err(end);
            }
        }
    }
}

fn pick(proc: &Process, me: Option<&GuestThread>, now: u64) -> Pick {
    let s = &proc.sched;
    let mut ts = lock(&s.threads);
    let last = s.last_seq.load(Ordering::Relaxed);
    let n = ts.len();
    // Round robin: the first thread created after the last one picked, wrapping.
    let first = ts
        .iter()
        .position(|e| last == u64::MAX || e.seq > last)
        .unwrap_or(0);
    let is_me = |e: &Entry| {
        me.and_then(|m| m.sched.obj.as_ref())
            .is_some_and(|o| Arc::ptr_eq(o, &e.obj))
    };
    let mut earliest: Option<u64> = None;
    let mut external = false;
    for j in 0..n {
        let i = (first + j) % n;
        let e = &ts[i];
        let mine = is_me(e);
        let t = if mine { me } else { e.parked.as_deref() };
        let Some(t) = t else { continue };
        match readiness(proc, &e.obj, t, now) {
            Ready::Now => {
                s.last_seq.store(e.seq, Ordering::Relaxed);
                if mine {
                    return Pick::Me;
                }
                let e = &mut ts[i];
                let thread = e.parked.take().expect("checked above");
                return Pick::Run {
                    seq: e.seq,
                    obj: e.obj.clone(),
                    thread,
                    started: e.started,
                };
            }
            Ready::At(d) => {
                external |= waits_external(t);
                earliest = Some(earliest.map_or(d, |x| x.min(d)));
            }
            Ready::Never => external |= waits_external(t),
        }
    }
    let earliest = match (earliest, next_tick(proc)) {
        (Some(d), Some(t)) => Some(d.min(t)),
        (d, t) => d.or(t),
    };
    if external {
        return Pick::Block(earliest.map(|d| d.max(now)));
    }
    match earliest {
        Some(d) => Pick::Idle(d.max(now)),
        None => Pick::Deadlock(deadlock_report(proc, &ts, me)),
    }
}

fn readiness(proc: &Process, obj: &ThreadObj, t: &GuestThread, now: u64) -> Ready {
    {
        let st = lock(&obj.st);
        if st.terminate.is_some() {
            return Ready::Now;
        }
        if st.suspend > 0 {
            return Ready::Never;
        }
    }
    let Some(w) = &t.sched.wait else {
        return Ready::Now;
    };
    if w.deadline.is_some_and(|d| d <= now) {
        return Ready::Now;
    }
    let k = proc.sched.lock();
    if satisfiable(&k, w, t.tid) {
        return Ready::Now;
    }
    match w.deadline {
        Some(d) => Ready::At(d),
        None => Ready::Never,
    }
}

/// Whether `t` waits for an object another OS process signals.
fn waits_external(t: &GuestThread) -> bool {
    t.sched.wait.as_ref().is_some_and(|w| {
        w.objs
            .iter()
            .any(|o| o.as_waitable().is_some_and(|x| x.external()))
    })
}

fn satisfiable(k: &Locked, w: &WaitSpec, tid: u32) -> bool {
    let mut ws = w.objs.iter().filter_map(|o| o.as_waitable());
    if w.objs.is_empty() {
        false
    } else if w.all {
        ws.all(|o| o.ready(k, tid))
    } else {
        ws.any(|o| o.ready(k, tid))
    }
}

fn run_det_slice(
    proc: &Arc<Process>,
    obj: &ThreadObj,
    t: &mut GuestThread,
    started: bool,
) -> Option<ThreadEnd> {
    if let Some(c) = obj.terminate_requested() {
        return Some(ThreadEnd::Exited(c));
    }
    begin_slice(t);
    if !started && let Err(e) = attach(t, proc) {
        account(proc, t);
        return Some(e);
    }
    let r = t.run_slice(proc);
    account(proc, t);
    r
}

/// Drops a deterministic-mode wait of a thread that ended while blocked.
fn end_wait(proc: &Process, t: &mut GuestThread) {
    if let Some(w) = t.sched.wait.take() {
        let k = proc.sched.lock();
        for o in &w.objs {
            if let Some(x) = o.as_waitable() {
                x.wait_end(&k, t.tid);
            }
        }
    }
}

fn deadlock_report(proc: &Process, ts: &[Entry], me: Option<&GuestThread>) -> String {
    let k = proc.sched.lock();
    let mut s = String::from(
        "winterp: deadlock: no thread can run and no wait can time out (deterministic mode)\n",
    );
    for e in ts {
        let t = match (e.parked.as_deref(), me) {
            (Some(t), _) => Some(t),
            (None, Some(m)) if m.tid == e.obj.tid => Some(m),
            _ => None,
        };
        let Some(t) = t else {
            s += &format!(
                "  thread {:#x}: inside a host-initiated guest call below the running one; \
                 it can only continue after that call returns\n",
                e.obj.tid
            );
            continue;
        };
        let loc = where_is(proc, t);
        let what = if e.obj.suspend_count() > 0 {
            format!("suspended (count {})", e.obj.suspend_count())
        } else {
            match &t.sched.wait {
                None => "runnable".to_string(),
                Some(w) if w.objs.is_empty() => "sleeping forever".to_string(),
                Some(w) => {
                    let list: Vec<String> = w
                        .objs
                        .iter()
                        .map(|o| {
                            o.as_waitable()
                                .map_or_else(|| o.type_name().to_string(), |x| x.describe())
                        })
                        .collect();
                    format!(
                        "waits for {} of [{}]",
                        if w.all { "all" } else { "one" },
                        list.join(", ")
                    )
                }
            }
        };
        s += &format!("  thread {:#x} {loc}: {what}\n", e.obj.tid);
    }
    drop(k);
    s
}

/// "in KERNEL32.dll!WaitForSingleObject called from 0x00401234 (T.EXE+0x1234)", or
/// "at 0x00401234 (T.EXE+0x1234)" for a thread that is not in an API.
fn where_is(proc: &Process, t: &GuestThread) -> String {
    let place = |a: u32| {
        let m = proc
            .locate(a)
            .map(|(m, off)| format!(" ({m}+{off:#x})"))
            .unwrap_or_default();
        format!("{a:#010x}{m}")
    };
    let eip = t.cpu.eip;
    let api = proc
        .thunks
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .target(eip)
        .cloned();
    match api {
        Some(crate::hle::thunks::ThunkTarget::Api { dll, index }) => {
            let ret = proc
                .mem
                .read_u32(t.cpu.regs[winterp_core::cpu::ESP])
                .unwrap_or(0);
            format!(
                "in {}!{} called from {}",
                proc.dlls[dll].0,
                proc.dlls[dll].1[index].name,
                place(ret)
            )
        }
        _ => format!("at {}", place(eip)),
    }
}

// ---- Waiting, in either mode ------------------------------------------------------------

/// Acquires the objects if the wait is satisfied: WAIT_OBJECT_0 + n or
/// WAIT_ABANDONED_0 + n.
fn try_acquire(k: &Locked, objs: &[Arc<dyn KernelObject>], all: bool, tid: u32) -> Option<u32> {
    let ws: Vec<&dyn Waitable> = objs.iter().filter_map(|o| o.as_waitable()).collect();
    if ws.is_empty() {
        return None;
    }
    if all {
        if !ws.iter().all(|w| w.ready(k, tid)) {
            return None;
        }
        let mut abandoned = None;
        for (i, w) in ws.iter().enumerate() {
            if w.acquire(k, tid) && abandoned.is_none() {
                abandoned = Some(i as u32);
            }
        }
        Some(abandoned.map_or(WAIT_OBJECT_0, |i| WAIT_ABANDONED_0 + i))
    } else {
        let (i, w) = ws.iter().enumerate().find(|(_, w)| w.ready(k, tid))?;
        Some(if w.acquire(k, tid) {
            WAIT_ABANDONED_0 + i as u32
        } else {
            WAIT_OBJECT_0 + i as u32
        })
    }
}

fn wait_end_all(k: &Locked, objs: &[Arc<dyn KernelObject>], tid: u32) {
    for o in objs {
        if let Some(w) = o.as_waitable() {
            w.wait_end(k, tid);
        }
    }
}

/// Waits for one (`all == false`) or all of `objs` (which must be waitable; an empty
/// list only times out) for `ms` milliseconds (INFINITE allowed). Returns the
/// WAIT_* code, or [`Outcome::Resume`] in deterministic mode when the thread blocks
/// (return it from the API unchanged), or ExitProcess/ExitThread when the process is
/// ending or the thread was terminated while waiting.
pub fn wait_for(cx: &mut Ctx, objs: Vec<Arc<dyn KernelObject>>, all: bool, ms: u32) -> Outcome {
    // A thread waiting on its message queue is idle for the parent's
    // WaitForInputIdle (USER32 waits only when no message is pending).
    if cx.proc.config.child.is_some() && objs.iter().any(|o| o.type_name() == "MessageQueue") {
        crate::kernel32::createprocess::note_input_idle(cx.proc);
    }
    if cx.proc.config.deterministic {
        det_wait(cx, objs, all, ms)
    } else {
        os_wait(cx, &objs, all, ms)
    }
}

fn det_wait(cx: &mut Ctx, objs: Vec<Arc<dyn KernelObject>>, all: bool, ms: u32) -> Outcome {
    let retry = cx.thread.sched.wait.take();
    let now = virtual_instructions(cx);
    let deadline = match retry {
        Some(w) => w.deadline,
        None => (ms != INFINITE).then(|| now + ms as u64 * INSNS_PER_MS),
    };
    let tid = cx.thread.tid;
    let k = cx.proc.sched.lock();
    if let Some(r) = try_acquire(&k, &objs, all, tid) {
        wait_end_all(&k, &objs, tid);
        return Outcome::Return(r as u64);
    }
    if deadline.is_some_and(|d| d <= now) {
        wait_end_all(&k, &objs, tid);
        return Outcome::Return(WAIT_TIMEOUT as u64);
    }
    for o in &objs {
        if let Some(w) = o.as_waitable() {
            w.wait_begin(&k, tid);
        }
    }
    drop(k);
    cx.thread.sched.wait = Some(WaitSpec {
        objs,
        all,
        deadline,
    });
    Outcome::Resume
}

fn os_wait(cx: &mut Ctx, objs: &[Arc<dyn KernelObject>], all: bool, ms: u32) -> Outcome {
    let me = current(cx);
    let tid = cx.thread.tid;
    let proc = cx.proc;
    let s = &proc.sched;
    let deadline = (ms != INFINITE).then(|| Instant::now() + Duration::from_millis(ms as u64));
    let mut k = s.lock();
    let mut registered = false;
    let r = loop {
        if let Some(r) = try_acquire(&k, objs, all, tid) {
            break Outcome::Return(r as u64);
        }
        if let Some(c) = proc.exited() {
            break Outcome::ExitProcess(c);
        }
        if let Some(c) = me.terminate_requested() {
            break Outcome::ExitThread(c);
        }
        let left = match deadline {
            None => None,
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => break Outcome::Return(WAIT_TIMEOUT as u64),
            },
        };
        if !registered {
            for o in objs {
                if let Some(w) = o.as_waitable() {
                    w.wait_begin(&k, tid);
                }
            }
            registered = true;
        }
        k = k.wait(&s.cond, left);
    };
    if registered {
        wait_end_all(&k, objs, tid);
    }
    r
}

/// Sleep/SleepEx: `Return(0)` once `ms` milliseconds have passed (virtual ones in
/// deterministic mode), `Resume` while a deterministic thread sleeps. Sleep(0) gives
/// up the rest of the time slice.
pub fn sleep(cx: &mut Ctx, ms: u32) -> Outcome {
    if ms == 0 {
        yield_now(cx);
        return Outcome::Return(0);
    }
    match wait_for(cx, Vec::new(), false, ms) {
        Outcome::Return(_) => Outcome::Return(0),
        other => other,
    }
}

/// Gives up the rest of the time slice. True if another thread could run instead
/// (deterministic mode: one that is ready now; OS-thread mode: any other live,
/// unsuspended thread, since the host scheduler decides).
pub fn yield_now(cx: &mut Ctx) -> bool {
    let me = current(cx);
    if cx.proc.config.deterministic {
        cx.thread.sched.yield_requested = true;
        let now = virtual_instructions(cx);
        let ts = lock(&cx.proc.sched.threads);
        ts.iter().any(|e| {
            !Arc::ptr_eq(&e.obj, &me)
                && e.parked
                    .as_deref()
                    .is_some_and(|t| matches!(readiness(cx.proc, &e.obj, t, now), Ready::Now))
        })
    } else {
        std::thread::yield_now();
        cx.proc
            .sched
            .threads()
            .iter()
            .any(|t| !Arc::ptr_eq(t, &me) && t.suspend_count() == 0)
    }
}

// ---- Virtual time ------------------------------------------------------------------------

/// The virtual clock in instructions: everything all threads retired before the
/// calling thread's current slice, plus what it retired since (plus time skipped while
/// all threads slept). Deterministic mode only; in OS-thread mode it is the calling
/// thread's own instruction count.
pub fn virtual_instructions(cx: &Ctx) -> u64 {
    let t = &cx.thread;
    cx.proc.sched.clock.load(Ordering::Relaxed) + t.exec.counters.insns - t.sched.slice_start
}

/// Deterministic mode: the process's virtual clock in instructions as of the start
/// of the running slice (after [`run_process`]: the final value).
pub fn virtual_clock(proc: &Process) -> u64 {
    proc.sched.clock.load(Ordering::Relaxed)
}

/// Milliseconds of virtual time since the process started ([`INSNS_PER_MS`] per ms),
/// for GetTickCount and friends in deterministic mode.
pub fn virtual_time_ms(cx: &Ctx) -> u64 {
    virtual_instructions(cx) / INSNS_PER_MS
}

/// Microseconds of virtual time (QueryPerformanceCounter, timeGetTime).
pub fn virtual_time_us(cx: &Ctx) -> u64 {
    virtual_instructions(cx) * 1000 / INSNS_PER_MS
}

/// Virtual time in 100 ns units (FILETIME / QueryPerformanceCounter resolution).
pub fn virtual_time_100ns(cx: &Ctx) -> u64 {
    virtual_instructions(cx) * 10_000 / INSNS_PER_MS
}

// ---- Thread creation ---------------------------------------------------------------------

/// CreateThread's work (also `_beginthreadex`): builds a thread whose start routine
/// `start(param)` runs on a fresh stack of `stack_size` bytes (0: the program's
/// default), starts it (held before its first instruction if `suspended`), and
/// returns its handle and thread id, or `None` with the last error set when there is
/// no memory for its stack or TEB.
pub fn create_thread(
    cx: &mut Ctx,
    start: u32,
    param: u32,
    stack_size: u32,
    suspended: bool,
) -> ApiResult<Option<(u32, u32)>> {
    let t = match crate::startup::new_thread(cx.proc, start, param, stack_size) {
        Ok(t) => t,
        Err(e) => {
            // No room for a stack or TEB: CreateThread fails as on Windows.
            log::warn!("CreateThread({start:#010x}): {e}");
            crate::teb::set_last_error(cx, ERROR_NOT_ENOUGH_MEMORY)?;
            return Ok(None);
        }
    };
    let tid = t.tid;
    let obj = match spawn(cx.proc, t, suspended) {
        Ok(o) => o,
        Err(e) => {
            crate::startup::release_thread(cx.proc, tid);
            return Err(ApiError::Other(format!("CreateThread: {e}")));
        }
    };
    let h = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(obj);
    Ok(Some((h, tid)))
}

/// Ends `t` as if it had returned `code` (unit tests of objects that care).
#[cfg(test)]
pub(crate) fn thread_exit_for_tests(proc: &Process, t: &mut GuestThread, code: u32) {
    let obj = register(proc, t);
    thread_ended(proc, &obj, &ThreadEnd::Exited(code));
}
