//! KERNEL32 synchronisation: critical sections, events, mutexes, semaphores, named
//! objects and the wait functions. How waits block (really, or cooperatively in
//! deterministic mode) is [`crate::scheduler`]'s business; the objects here only say
//! when they are signalled and what a satisfied wait takes from them.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall, stdcall_aw};
use crate::objects::{CURRENT_PROCESS, CURRENT_THREAD, KernelObject};
use crate::scheduler::{self, INFINITE, Locked, WAIT_FAILED, Waitable};
use crate::teb::set_last_error;
use std::any::Any;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::misc::err;
use super::string::GuestStr;

const ERROR_NOT_OWNER: u32 = 288;
const ERROR_TOO_MANY_POSTS: u32 = 298;
/// MAXIMUM_WAIT_OBJECTS.
const MAX_WAIT_OBJECTS: u32 = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The object behind handle `h` if it has type `T`.
fn object<T: KernelObject>(cx: &Ctx, h: u32) -> Option<Arc<T>> {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<T>(h)
}

fn insert_handle(cx: &Ctx, obj: Arc<dyn KernelObject>) -> u32 {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(obj)
}

// ---- Critical sections ----------------------------------------------------------------

/// RTL_CRITICAL_SECTION field offsets.
const CS_DEBUG_INFO: u32 = 0x00;
const CS_LOCK_COUNT: u32 = 0x04;
const CS_RECURSION_COUNT: u32 = 0x08;
const CS_OWNING_THREAD: u32 = 0x0c;
const CS_LOCK_SEMAPHORE: u32 = 0x10;
const CS_SPIN_COUNT: u32 = 0x14;
const CS_SIZE: u32 = 0x18;
/// Times a contended EnterCriticalSection re-checks (yielding the host CPU in between)
/// before it sleeps: the owner usually leaves within a few hundred instructions, and
/// a sleep/wake pair costs far more than that.
const CS_SPIN_TRIES: u32 = 16;

/// The host side of a guest CRITICAL_SECTION, keyed by its guest address. The guest
/// structure's LockCount, RecursionCount and OwningThread are kept as Windows NT keeps
/// them (LockCount is -1 when free, else holders' recursion plus waiters minus one).
pub struct CritSec {
    addr: u32,
    st: Mutex<CsState>,
    cond: Condvar,
}

#[derive(Default)]
struct CsState {
    owner: u32,
    recursion: u32,
    /// Threads blocked in EnterCriticalSection.
    waiters: Vec<u32>,
}

impl CsState {
    fn take(&mut self, tid: u32) {
        if self.owner == tid {
            self.recursion += 1;
        } else {
            self.owner = tid;
            self.recursion = 1;
        }
    }
}

impl CritSec {
    fn new(addr: u32) -> CritSec {
        CritSec {
            addr,
            st: Mutex::new(CsState::default()),
            cond: Condvar::new(),
        }
    }

    /// Writes the state into the guest structure.
    fn mirror(&self, cx: &Ctx, s: &CsState) -> ApiResult<()> {
        let m = &cx.proc.mem;
        let lock_count = s.recursion as i64 + s.waiters.len() as i64 - 1;
        m.write_u32(self.addr + CS_LOCK_COUNT, lock_count as i32 as u32)?;
        m.write_u32(self.addr + CS_RECURSION_COUNT, s.recursion)?;
        m.write_u32(self.addr + CS_OWNING_THREAD, s.owner)?;
        Ok(())
    }
}

impl KernelObject for CritSec {
    fn type_name(&self) -> &'static str {
        "CriticalSection"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

/// Only deterministic mode waits for critical sections through the scheduler; OS
/// threads use the section's own lock and condition variable.
impl Waitable for CritSec {
    fn ready(&self, _k: &Locked, tid: u32) -> bool {
        let s = lock(&self.st);
        s.owner == 0 || s.owner == tid
    }
    fn acquire(&self, _k: &Locked, tid: u32) -> bool {
        lock(&self.st).take(tid);
        false
    }
    fn wait_begin(&self, _k: &Locked, tid: u32) {
        let mut s = lock(&self.st);
        if !s.waiters.contains(&tid) {
            s.waiters.push(tid);
        }
    }
    fn wait_end(&self, _k: &Locked, tid: u32) {
        lock(&self.st).waiters.retain(|&w| w != tid);
    }
    fn wake_all(&self) {
        let _s = lock(&self.st);
        self.cond.notify_all();
    }
    fn describe(&self) -> String {
        let s = lock(&self.st);
        format!(
            "critical section at {:#010x} (owned by thread {:#x}, recursion {})",
            self.addr, s.owner, s.recursion
        )
    }
}

/// The host object for the CRITICAL_SECTION at `p`. One that was never initialised
/// (copied, or zero-filled static storage) gets a fresh object, with a warning.
fn critical_section(cx: &Ctx, p: Ptr) -> ApiResult<Arc<CritSec>> {
    cx.proc.mem.probe_write(p.0, CS_SIZE)?;
    let o = cx.proc.sched.critical_section_or(p.0, || {
        log::warn!(
            "critical section at {:#010x} used without InitializeCriticalSection",
            p.0
        );
        Arc::new(CritSec::new(p.0))
    });
    let any: Arc<dyn Any + Send + Sync> = o;
    any.downcast::<CritSec>()
        .map_err(|_| ApiError::Other(format!("{:#010x} is not a critical section", p.0)))
}

fn init_critical_section(cx: &mut Ctx, p: Ptr, spin: u32) -> ApiResult<()> {
    let m = &cx.proc.mem;
    m.probe_write(p.0, CS_SIZE)?;
    m.write_u32(p.0 + CS_DEBUG_INFO, 0)?;
    m.write_u32(p.0 + CS_LOCK_COUNT, u32::MAX)?;
    m.write_u32(p.0 + CS_RECURSION_COUNT, 0)?;
    m.write_u32(p.0 + CS_OWNING_THREAD, 0)?;
    m.write_u32(p.0 + CS_LOCK_SEMAPHORE, 0)?;
    m.write_u32(p.0 + CS_SPIN_COUNT, spin)?;
    cx.proc
        .sched
        .set_critical_section(p.0, Some(Arc::new(CritSec::new(p.0))));
    Ok(())
}

pub fn InitializeCriticalSection(cx: &mut Ctx, lpCriticalSection: Ptr) -> ApiResult<()> {
    init_critical_section(cx, lpCriticalSection, 0)
}

pub fn InitializeCriticalSectionAndSpinCount(
    cx: &mut Ctx,
    lpCriticalSection: Ptr,
    dwSpinCount: u32,
) -> ApiResult<bool> {
    // The top bit asks NT4/2000 to preallocate the wait event; it is not a count.
    init_critical_section(cx, lpCriticalSection, dwSpinCount & 0x00ff_ffff)?;
    Ok(true)
}

pub fn SetCriticalSectionSpinCount(
    cx: &mut Ctx,
    lpCriticalSection: Ptr,
    dwSpinCount: u32,
) -> ApiResult<u32> {
    let a = lpCriticalSection.0 + CS_SPIN_COUNT;
    let old = cx.proc.mem.read_u32(a)?;
    cx.proc.mem.write_u32(a, dwSpinCount & 0x00ff_ffff)?;
    Ok(old)
}

pub fn EnterCriticalSection(cx: &mut Ctx, lpCriticalSection: Ptr) -> ApiResult<Outcome> {
    let cs = critical_section(cx, lpCriticalSection)?;
    if cx.proc.config.deterministic {
        let r = scheduler::wait_for(cx, vec![cs.clone()], false, INFINITE);
        cs.mirror(cx, &lock(&cs.st))?;
        return Ok(match r {
            Outcome::Return(_) => Outcome::Return(0),
            other => other,
        });
    }
    let tid = cx.thread.tid;
    {
        let mut s = lock(&cs.st);
        if s.owner == 0 || s.owner == tid {
            s.take(tid);
            cs.mirror(cx, &s)?;
            return Ok(Outcome::Return(0));
        }
    }
    for _ in 0..CS_SPIN_TRIES {
        std::thread::yield_now();
        let mut s = lock(&cs.st);
        if s.owner == 0 {
            s.take(tid);
            cs.mirror(cx, &s)?;
            return Ok(Outcome::Return(0));
        }
    }
    let me = scheduler::current(cx);
    let mut s = lock(&cs.st);
    s.waiters.push(tid);
    cs.mirror(cx, &s)?;
    let r = loop {
        if s.owner == 0 {
            s.waiters.retain(|&w| w != tid);
            s.take(tid);
            break Outcome::Return(0);
        }
        if let Some(c) = cx.proc.exited() {
            s.waiters.retain(|&w| w != tid);
            break Outcome::ExitProcess(c);
        }
        if let Some(c) = me.terminate_requested() {
            s.waiters.retain(|&w| w != tid);
            break Outcome::ExitThread(c);
        }
        s = cs.cond.wait(s).unwrap_or_else(|e| e.into_inner());
    };
    cs.mirror(cx, &s)?;
    Ok(r)
}

pub fn TryEnterCriticalSection(cx: &mut Ctx, lpCriticalSection: Ptr) -> ApiResult<bool> {
    let cs = critical_section(cx, lpCriticalSection)?;
    let tid = cx.thread.tid;
    let mut s = lock(&cs.st);
    if s.owner == 0 || s.owner == tid {
        s.take(tid);
        cs.mirror(cx, &s)?;
        return Ok(true);
    }
    Ok(false)
}

pub fn LeaveCriticalSection(cx: &mut Ctx, lpCriticalSection: Ptr) -> ApiResult<()> {
    let cs = critical_section(cx, lpCriticalSection)?;
    let tid = cx.thread.tid;
    let mut s = lock(&cs.st);
    if s.owner != tid {
        // Windows corrupts the section's counts here and hangs a later Enter.
        return Err(ApiError::Other(format!(
            "LeaveCriticalSection({:#010x}) by thread {tid:#x}, which does not own it \
             (owner {:#x})",
            lpCriticalSection.0, s.owner
        )));
    }
    s.recursion -= 1;
    if s.recursion == 0 {
        s.owner = 0;
        if !s.waiters.is_empty() {
            cs.cond.notify_one();
        }
    }
    cs.mirror(cx, &s)
}

pub fn DeleteCriticalSection(cx: &mut Ctx, lpCriticalSection: Ptr) -> ApiResult<()> {
    cx.proc
        .sched
        .set_critical_section(lpCriticalSection.0, None);
    Ok(())
}

// ---- Named objects ------------------------------------------------------------------------

/// An object name argument: `None` for NULL or "" (an unnamed object).
/// The name of a named kernel object (Create/Open Event, Mutex, Semaphore): `None`
/// for NULL or an empty name, which both mean an unnamed object.
fn object_name<S: GuestStr>(cx: &Ctx, p: S) -> ApiResult<Option<String>> {
    Ok(p.read_opt(cx.proc)?.filter(|s| !s.is_empty()))
}

/// Create* for a possibly named object: a new handle to the existing object of that
/// name (with ERROR_ALREADY_EXISTS; the creation parameters are then ignored, as
/// Windows does), NULL with ERROR_INVALID_HANDLE if the name belongs to an object of
/// another type, else a new object (last error 0).
fn create(
    cx: &mut Ctx,
    name: Option<String>,
    type_name: &str,
    make: impl FnOnce() -> Arc<dyn KernelObject>,
) -> ApiResult<u32> {
    let (obj, existed) = match name {
        None => (make(), false),
        Some(n) => cx.proc.sched.named_or(&n, make),
    };
    if existed && obj.type_name() != type_name {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(0);
    }
    let h = insert_handle(cx, obj);
    set_last_error(
        cx,
        if existed {
            err::ERROR_ALREADY_EXISTS
        } else {
            err::ERROR_SUCCESS
        },
    )?;
    Ok(h)
}

/// Open*: a new handle to the named object of that type.
fn open(cx: &mut Ctx, name: Option<String>, type_name: &str) -> ApiResult<u32> {
    let Some(n) = name else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    match cx.proc.sched.named(&n) {
        None => {
            set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
            Ok(0)
        }
        Some(o) if o.type_name() != type_name => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            Ok(0)
        }
        Some(o) => Ok(insert_handle(cx, o)),
    }
}

fn label(name: &Option<String>) -> String {
    name.as_ref().map(|n| format!(" '{n}'")).unwrap_or_default()
}

// ---- Events -------------------------------------------------------------------------------

pub struct Event {
    name: Option<String>,
    st: Mutex<EventState>,
}

struct EventState {
    manual: bool,
    signalled: bool,
    /// Threads blocked on the event, in arrival order (for PulseEvent).
    waiters: Vec<u32>,
    /// Waiters a PulseEvent released that have not yet woken.
    pulsed: Vec<u32>,
}

impl KernelObject for Event {
    fn type_name(&self) -> &'static str {
        "Event"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Event {
    fn ready(&self, _k: &Locked, tid: u32) -> bool {
        let s = lock(&self.st);
        s.signalled || s.pulsed.contains(&tid)
    }
    fn acquire(&self, _k: &Locked, tid: u32) -> bool {
        let mut s = lock(&self.st);
        if let Some(i) = s.pulsed.iter().position(|&w| w == tid) {
            s.pulsed.remove(i);
        } else if !s.manual {
            s.signalled = false;
        }
        false
    }
    fn wait_begin(&self, _k: &Locked, tid: u32) {
        let mut s = lock(&self.st);
        if !s.waiters.contains(&tid) {
            s.waiters.push(tid);
        }
    }
    fn wait_end(&self, _k: &Locked, tid: u32) {
        let mut s = lock(&self.st);
        s.waiters.retain(|&w| w != tid);
        s.pulsed.retain(|&w| w != tid);
    }
    fn describe(&self) -> String {
        let s = lock(&self.st);
        format!(
            "Event{} ({}, {})",
            label(&self.name),
            if s.manual {
                "manual-reset"
            } else {
                "auto-reset"
            },
            if s.signalled {
                "signalled"
            } else {
                "not signalled"
            }
        )
    }
}

fn create_event(
    cx: &mut Ctx,
    bManualReset: bool,
    bInitialState: bool,
    name: Option<String>,
) -> ApiResult<u32> {
    let n = name.clone();
    create(cx, name, "Event", || {
        Arc::new(Event {
            name: n,
            st: Mutex::new(EventState {
                manual: bManualReset,
                signalled: bInitialState,
                waiters: Vec::new(),
                pulsed: Vec::new(),
            }),
        })
    })
}

pub fn CreateEvent<S: GuestStr>(
    cx: &mut Ctx,
    _lpEventAttributes: Ptr,
    bManualReset: bool,
    bInitialState: bool,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    create_event(cx, bManualReset, bInitialState, name)
}

pub fn OpenEvent<S: GuestStr>(
    cx: &mut Ctx,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    open(cx, name, "Event")
}

/// Changes an event's state under the dispatcher lock and wakes waiters.
fn with_event(cx: &mut Ctx, h: u32, f: impl FnOnce(&mut EventState)) -> ApiResult<bool> {
    let Some(ev) = object::<Event>(cx, h) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let s = &cx.proc.sched;
    let k = s.lock();
    f(&mut lock(&ev.st));
    s.wake(&k);
    Ok(true)
}

/// The event object behind a handle, for host code that signals it later without
/// a guest call in progress (DirectInput's SetEventNotification).
pub fn event_object(cx: &Ctx, h: u32) -> Option<Arc<Event>> {
    object::<Event>(cx, h)
}

/// SetEvent on an event object held by host code.
pub fn set_event_object(proc: &crate::process::Process, ev: &Event) {
    let k = proc.sched.lock();
    lock(&ev.st).signalled = true;
    proc.sched.wake(&k);
}

pub fn SetEvent(cx: &mut Ctx, hEvent: u32) -> ApiResult<bool> {
    with_event(cx, hEvent, |e| e.signalled = true)
}

pub fn ResetEvent(cx: &mut Ctx, hEvent: u32) -> ApiResult<bool> {
    with_event(cx, hEvent, |e| e.signalled = false)
}

/// Releases the threads waiting right now (all of them for a manual-reset event, the
/// longest-waiting one for auto-reset) and leaves the event reset.
pub fn PulseEvent(cx: &mut Ctx, hEvent: u32) -> ApiResult<bool> {
    with_event(cx, hEvent, |e| {
        if e.manual {
            e.pulsed = e.waiters.clone();
        } else if let Some(&w) = e.waiters.iter().find(|w| !e.pulsed.contains(w)) {
            e.pulsed.push(w);
        }
        e.signalled = false;
    })
}

// ---- Mutexes ------------------------------------------------------------------------------

pub struct MutexObj {
    name: Option<String>,
    st: Mutex<MutexState>,
}

struct MutexState {
    /// Owning thread id, 0 when free.
    owner: u32,
    count: u32,
    /// The owner ended without releasing it; the next wait reports WAIT_ABANDONED.
    abandoned: bool,
}

impl KernelObject for MutexObj {
    fn type_name(&self) -> &'static str {
        "Mutex"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for MutexObj {
    fn ready(&self, _k: &Locked, tid: u32) -> bool {
        let s = lock(&self.st);
        s.owner == 0 || s.owner == tid
    }
    fn acquire(&self, _k: &Locked, tid: u32) -> bool {
        let mut s = lock(&self.st);
        if s.owner == tid {
            s.count += 1;
            return false;
        }
        s.owner = tid;
        s.count = 1;
        std::mem::take(&mut s.abandoned)
    }
    fn thread_exited(&self, _k: &Locked, tid: u32) {
        let mut s = lock(&self.st);
        if s.owner == tid {
            s.owner = 0;
            s.count = 0;
            s.abandoned = true;
        }
    }
    fn describe(&self) -> String {
        let s = lock(&self.st);
        format!(
            "Mutex{} (owned by thread {:#x})",
            label(&self.name),
            s.owner
        )
    }
}

fn create_mutex(cx: &mut Ctx, bInitialOwner: bool, name: Option<String>) -> ApiResult<u32> {
    let tid = cx.thread.tid;
    let n = name.clone();
    let proc = cx.proc;
    let sched = &proc.sched;
    let make = || {
        let o: Arc<dyn KernelObject> = Arc::new(MutexObj {
            name: n,
            st: Mutex::new(MutexState {
                owner: if bInitialOwner { tid } else { 0 },
                count: bInitialOwner as u32,
                abandoned: false,
            }),
        });
        sched.watch_thread_exit(&o);
        o
    };
    create(cx, name, "Mutex", make)
}

pub fn CreateMutex<S: GuestStr>(
    cx: &mut Ctx,
    _lpMutexAttributes: Ptr,
    bInitialOwner: bool,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    create_mutex(cx, bInitialOwner, name)
}

pub fn OpenMutex<S: GuestStr>(
    cx: &mut Ctx,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    open(cx, name, "Mutex")
}

pub fn ReleaseMutex(cx: &mut Ctx, hMutex: u32) -> ApiResult<bool> {
    let Some(m) = object::<MutexObj>(cx, hMutex) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let tid = cx.thread.tid;
    let s = &cx.proc.sched;
    let k = s.lock();
    {
        let mut st = lock(&m.st);
        if st.owner != tid {
            drop(st);
            drop(k);
            set_last_error(cx, ERROR_NOT_OWNER)?;
            return Ok(false);
        }
        st.count -= 1;
        if st.count == 0 {
            st.owner = 0;
        }
    }
    s.wake(&k);
    Ok(true)
}

// ---- Semaphores ---------------------------------------------------------------------------

pub struct Semaphore {
    name: Option<String>,
    st: Mutex<SemState>,
}

struct SemState {
    count: i32,
    max: i32,
}

impl KernelObject for Semaphore {
    fn type_name(&self) -> &'static str {
        "Semaphore"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Semaphore {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        lock(&self.st).count > 0
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        lock(&self.st).count -= 1;
        false
    }
    fn describe(&self) -> String {
        let s = lock(&self.st);
        format!(
            "Semaphore{} (count {} of {})",
            label(&self.name),
            s.count,
            s.max
        )
    }
}

fn create_semaphore(
    cx: &mut Ctx,
    lInitialCount: i32,
    lMaximumCount: i32,
    name: Option<String>,
) -> ApiResult<u32> {
    if lMaximumCount <= 0 || lInitialCount < 0 || lInitialCount > lMaximumCount {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let n = name.clone();
    create(cx, name, "Semaphore", || {
        Arc::new(Semaphore {
            name: n,
            st: Mutex::new(SemState {
                count: lInitialCount,
                max: lMaximumCount,
            }),
        })
    })
}

pub fn CreateSemaphore<S: GuestStr>(
    cx: &mut Ctx,
    _lpSemaphoreAttributes: Ptr,
    lInitialCount: i32,
    lMaximumCount: i32,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    create_semaphore(cx, lInitialCount, lMaximumCount, name)
}

pub fn OpenSemaphore<S: GuestStr>(
    cx: &mut Ctx,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    lpName: S,
) -> ApiResult<u32> {
    let name = object_name(cx, lpName)?;
    open(cx, name, "Semaphore")
}

pub fn ReleaseSemaphore(
    cx: &mut Ctx,
    hSemaphore: u32,
    lReleaseCount: i32,
    lpPreviousCount: Ptr,
) -> ApiResult<bool> {
    let Some(sem) = object::<Semaphore>(cx, hSemaphore) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if lReleaseCount <= 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    if !lpPreviousCount.is_null() {
        cx.proc.mem.probe_write(lpPreviousCount.0, 4)?;
    }
    let s = &cx.proc.sched;
    let k = s.lock();
    let prev = {
        let mut st = lock(&sem.st);
        if st.count as i64 + lReleaseCount as i64 > st.max as i64 {
            None
        } else {
            let prev = st.count;
            st.count += lReleaseCount;
            Some(prev)
        }
    };
    s.wake(&k);
    drop(k);
    match prev {
        None => {
            set_last_error(cx, ERROR_TOO_MANY_POSTS)?;
            Ok(false)
        }
        Some(p) => {
            if !lpPreviousCount.is_null() {
                cx.proc.mem.write_u32(lpPreviousCount.0, p as u32)?;
            }
            Ok(true)
        }
    }
}

// ---- Waits --------------------------------------------------------------------------------

/// The waitable object behind a handle (the GetCurrentThread pseudo-handle included).
fn waitable(cx: &mut Ctx, h: u32) -> ApiResult<Option<Arc<dyn KernelObject>>> {
    if h == CURRENT_THREAD {
        return Ok(Some(scheduler::current(cx)));
    }
    if h == CURRENT_PROCESS {
        return Err(ApiError::UnimplementedCase(
            "waiting for the current process (GetCurrentProcess pseudo-handle)".into(),
        ));
    }
    Ok(cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(h)
        .filter(|o| o.as_waitable().is_some()))
}

fn wait_failed(cx: &mut Ctx, error: u32) -> ApiResult<Outcome> {
    set_last_error(cx, error)?;
    Ok(Outcome::Return(WAIT_FAILED as u64))
}

pub fn WaitForSingleObject(cx: &mut Ctx, hHandle: u32, dwMilliseconds: u32) -> ApiResult<Outcome> {
    match waitable(cx, hHandle)? {
        None => wait_failed(cx, err::ERROR_INVALID_HANDLE),
        Some(o) => Ok(scheduler::wait_for(cx, vec![o], false, dwMilliseconds)),
    }
}

/// Alertable waits behave as plain ones: nothing in winterp queues APCs, so
/// WAIT_IO_COMPLETION cannot happen.
pub fn WaitForSingleObjectEx(
    cx: &mut Ctx,
    hHandle: u32,
    dwMilliseconds: u32,
    _bAlertable: bool,
) -> ApiResult<Outcome> {
    WaitForSingleObject(cx, hHandle, dwMilliseconds)
}

pub fn WaitForMultipleObjects(
    cx: &mut Ctx,
    nCount: u32,
    lpHandles: Ptr,
    bWaitAll: bool,
    dwMilliseconds: u32,
) -> ApiResult<Outcome> {
    if nCount == 0 || nCount > MAX_WAIT_OBJECTS {
        return wait_failed(cx, err::ERROR_INVALID_PARAMETER);
    }
    let mut objs = Vec::with_capacity(nCount as usize);
    for i in 0..nCount {
        let Ok(h) = cx.proc.mem.read_u32(lpHandles.0.wrapping_add(4 * i)) else {
            return wait_failed(cx, err::ERROR_NOACCESS);
        };
        match waitable(cx, h)? {
            Some(o) => objs.push(o),
            None => return wait_failed(cx, err::ERROR_INVALID_HANDLE),
        }
    }
    if bWaitAll {
        // Windows refuses to wait for all of a list that names one object twice.
        let ptrs: Vec<*const ()> = objs.iter().map(|o| Arc::as_ptr(o) as *const ()).collect();
        if (1..ptrs.len()).any(|i| ptrs[..i].contains(&ptrs[i])) {
            return wait_failed(cx, err::ERROR_INVALID_PARAMETER);
        }
    }
    Ok(scheduler::wait_for(cx, objs, bWaitAll, dwMilliseconds))
}

pub fn WaitForMultipleObjectsEx(
    cx: &mut Ctx,
    nCount: u32,
    lpHandles: Ptr,
    bWaitAll: bool,
    dwMilliseconds: u32,
    _bAlertable: bool,
) -> ApiResult<Outcome> {
    WaitForMultipleObjects(cx, nCount, lpHandles, bWaitAll, dwMilliseconds)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("InitializeCriticalSection", InitializeCriticalSection),
        stdcall(
            "InitializeCriticalSectionAndSpinCount",
            InitializeCriticalSectionAndSpinCount,
        ),
        stdcall("SetCriticalSectionSpinCount", SetCriticalSectionSpinCount),
        stdcall("EnterCriticalSection", EnterCriticalSection),
        stdcall("TryEnterCriticalSection", TryEnterCriticalSection),
        stdcall("LeaveCriticalSection", LeaveCriticalSection),
        stdcall("DeleteCriticalSection", DeleteCriticalSection),
        stdcall("SetEvent", SetEvent),
        stdcall("ResetEvent", ResetEvent),
        stdcall("PulseEvent", PulseEvent),
        stdcall("ReleaseMutex", ReleaseMutex),
        stdcall("ReleaseSemaphore", ReleaseSemaphore),
        stdcall("WaitForSingleObject", WaitForSingleObject),
        stdcall("WaitForSingleObjectEx", WaitForSingleObjectEx),
        stdcall("WaitForMultipleObjects", WaitForMultipleObjects),
        stdcall("WaitForMultipleObjectsEx", WaitForMultipleObjectsEx),
    ];
    v.extend(stdcall_aw![
        CreateEvent,
        OpenEvent,
        CreateMutex,
        OpenMutex,
        CreateSemaphore,
        OpenSemaphore,
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hle::{CStrPtr, WStrPtr};
    use crate::kernel32::misc::test_support::Harness;
    use crate::process::Process;
    use crate::scheduler::{WAIT_ABANDONED_0, WAIT_OBJECT_0, WAIT_TIMEOUT};
    use crate::thread::GuestThread;
    use std::time::{Duration, Instant};

    const WAIT_FAILED_U64: u64 = WAIT_FAILED as u64;

    fn ret(o: ApiResult<Outcome>) -> u64 {
        match o.unwrap() {
            Outcome::Return(v) => v,
            other => panic!("expected a return value, got {other:?}"),
        }
    }

    /// Another guest thread of the process (own TEB).
    fn other_thread(proc: &Arc<Process>, tid: u32) -> GuestThread {
        let teb = proc
            .vm
            .lock()
            .unwrap()
            .alloc(None, crate::teb::TEB_SIZE, winterp_core::Prot::RW, "TEB")
            .unwrap();
        GuestThread::new(proc, tid, teb)
    }

    fn cx<'a>(proc: &'a Arc<Process>, t: &'a mut GuestThread) -> Ctx<'a> {
        Ctx { proc, thread: t }
    }

    fn handles(h: &Harness, list: &[u32]) -> Ptr {
        let p = h.scratch(4 * list.len() as u32);
        for (i, &x) in list.iter().enumerate() {
            h.proc.mem.write_u32(p + 4 * i as u32, x).unwrap();
        }
        Ptr(p)
    }

    #[test]
    fn auto_reset_event_is_consumed_manual_reset_stays() {
        let mut h = Harness::new();
        let auto = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), false, false, CStrPtr(0)).unwrap();
        let manual = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), true, true, CStrPtr(0)).unwrap();
        assert!(auto != 0 && manual != 0);
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), auto, 0)),
            WAIT_TIMEOUT as u64
        );
        assert!(SetEvent(&mut h.cx(), auto).unwrap());
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), auto, 0)), 0);
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), auto, 0)),
            WAIT_TIMEOUT as u64
        );
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), manual, 0)), 0);
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), manual, 0)), 0);
        assert!(ResetEvent(&mut h.cx(), manual).unwrap());
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), manual, 0)),
            WAIT_TIMEOUT as u64
        );
        // A handle that is not an event.
        assert!(!SetEvent(&mut h.cx(), 0x1234).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), 0x1234, 0)),
            WAIT_FAILED_U64
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }

    #[test]
    fn named_objects_are_shared_by_name_and_typed() {
        let mut h = Harness::new();
        let name = h.scratch(64);
        h.put_cstr(name, "winterp-test");
        let wname = h.scratch(64);
        h.put_wstr(wname, "winterp-test");
        crate::teb::set_last_error(&mut h.cx(), 0xdead).unwrap();
        let a = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), true, false, CStrPtr(name)).unwrap();
        assert_eq!(h.last_error(), 0);
        let b = CreateEvent::<WStrPtr>(&mut h.cx(), Ptr(0), false, true, WStrPtr(wname)).unwrap();
        assert_eq!(h.last_error(), err::ERROR_ALREADY_EXISTS);
        assert!(a != 0 && b != 0 && a != b);
        // The second create's parameters were ignored: still manual, not signalled.
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), b, 0)),
            WAIT_TIMEOUT as u64
        );
        SetEvent(&mut h.cx(), a).unwrap();
        let c = OpenEvent::<CStrPtr>(&mut h.cx(), 0x1f0003, false, CStrPtr(name)).unwrap();
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), c, 0)), 0);
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), b, 0)), 0);
        // Another type under the same name.
        assert_eq!(
            CreateMutex::<CStrPtr>(&mut h.cx(), Ptr(0), false, CStrPtr(name)).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        assert_eq!(
            OpenMutex::<WStrPtr>(&mut h.cx(), 0, false, WStrPtr(wname)).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        let missing = h.scratch(16);
        h.put_cstr(missing, "nope");
        assert_eq!(
            OpenSemaphore::<CStrPtr>(&mut h.cx(), 0, false, CStrPtr(missing)).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_FILE_NOT_FOUND);
        // Unnamed objects (NULL or "") never collide.
        let empty = h.scratch(4);
        let u1 = CreateMutex::<CStrPtr>(&mut h.cx(), Ptr(0), false, CStrPtr(empty)).unwrap();
        let u2 = CreateMutex::<CStrPtr>(&mut h.cx(), Ptr(0), false, CStrPtr(empty)).unwrap();
        assert_eq!(h.last_error(), 0);
        assert!(u1 != 0 && u2 != 0);
    }

    #[test]
    fn mutex_ownership_recursion_and_not_owner() {
        let mut h = Harness::new();
        let m = CreateMutex::<CStrPtr>(&mut h.cx(), Ptr(0), true, CStrPtr(0)).unwrap();
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), m, 0)), 0);
        let mut t2 = other_thread(&h.proc, 0x20);
        assert_eq!(
            ret(WaitForSingleObject(&mut cx(&h.proc, &mut t2), m, 0)),
            WAIT_TIMEOUT as u64
        );
        assert!(!ReleaseMutex(&mut cx(&h.proc, &mut t2), m).unwrap());
        assert_eq!(
            crate::teb::last_error(&cx(&h.proc, &mut t2)).unwrap(),
            ERROR_NOT_OWNER
        );
        assert!(ReleaseMutex(&mut h.cx(), m).unwrap());
        assert!(ReleaseMutex(&mut h.cx(), m).unwrap());
        assert!(!ReleaseMutex(&mut h.cx(), m).unwrap());
        assert_eq!(h.last_error(), ERROR_NOT_OWNER);
        assert_eq!(ret(WaitForSingleObject(&mut cx(&h.proc, &mut t2), m, 0)), 0);
    }

    #[test]
    fn semaphore_counts_and_limits() {
        let mut h = Harness::new();
        assert_eq!(
            CreateSemaphore::<CStrPtr>(&mut h.cx(), Ptr(0), 3, 2, CStrPtr(0)).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(
            CreateSemaphore::<CStrPtr>(&mut h.cx(), Ptr(0), 0, 0, CStrPtr(0)).unwrap(),
            0
        );
        let s = CreateSemaphore::<CStrPtr>(&mut h.cx(), Ptr(0), 2, 3, CStrPtr(0)).unwrap();
        let prev = h.scratch(4);
        assert!(ReleaseSemaphore(&mut h.cx(), s, 1, Ptr(prev)).unwrap());
        assert_eq!(h.u32(prev), 2);
        h.proc.mem.write_u32(prev, 0x5555).unwrap();
        assert!(!ReleaseSemaphore(&mut h.cx(), s, 1, Ptr(prev)).unwrap());
        assert_eq!(h.last_error(), ERROR_TOO_MANY_POSTS);
        assert_eq!(h.u32(prev), 0x5555);
        assert!(!ReleaseSemaphore(&mut h.cx(), s, 0, Ptr(0)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        let waits: Vec<u64> = (0..4)
            .map(|_| ret(WaitForSingleObject(&mut h.cx(), s, 0)))
            .collect();
        assert_eq!(waits, [0, 0, 0, WAIT_TIMEOUT as u64]);
    }

    #[test]
    fn wait_for_multiple_any_all_and_errors() {
        let mut h = Harness::new();
        let e: Vec<u32> = (0..3)
            .map(|_| CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), false, false, CStrPtr(0)).unwrap())
            .collect();
        let list = handles(&h, &e);
        let w =
            |h: &mut Harness, all, ms| ret(WaitForMultipleObjects(&mut h.cx(), 3, list, all, ms));
        assert_eq!(w(&mut h, false, 0), WAIT_TIMEOUT as u64);
        SetEvent(&mut h.cx(), e[2]).unwrap();
        SetEvent(&mut h.cx(), e[1]).unwrap();
        // The lowest signalled index wins and only it is consumed.
        assert_eq!(w(&mut h, false, 0), WAIT_OBJECT_0 as u64 + 1);
        assert_eq!(w(&mut h, false, 0), WAIT_OBJECT_0 as u64 + 2);
        SetEvent(&mut h.cx(), e[0]).unwrap();
        SetEvent(&mut h.cx(), e[1]).unwrap();
        // Wait-all takes nothing unless it can take everything.
        assert_eq!(w(&mut h, true, 0), WAIT_TIMEOUT as u64);
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), e[0], 0)), 0);
        SetEvent(&mut h.cx(), e[0]).unwrap();
        SetEvent(&mut h.cx(), e[2]).unwrap();
        assert_eq!(w(&mut h, true, 0), 0);
        assert_eq!(w(&mut h, false, 0), WAIT_TIMEOUT as u64);
        // Errors.
        assert_eq!(
            ret(WaitForMultipleObjects(&mut h.cx(), 0, list, false, 0)),
            WAIT_FAILED_U64
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(
            ret(WaitForMultipleObjects(&mut h.cx(), 65, list, false, 0)),
            WAIT_FAILED_U64
        );
        let dup = handles(&h, &[e[0], e[1], e[0]]);
        assert_eq!(
            ret(WaitForMultipleObjects(&mut h.cx(), 3, dup, true, 0)),
            WAIT_FAILED_U64
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        let bad = handles(&h, &[e[0], 0x999]);
        assert_eq!(
            ret(WaitForMultipleObjects(&mut h.cx(), 2, bad, false, 0)),
            WAIT_FAILED_U64
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }

    #[test]
    fn blocked_waits_wake_on_signal_and_time_out() {
        let mut h = Harness::new();
        let ev = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), false, false, CStrPtr(0)).unwrap();
        let t0 = Instant::now();
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), ev, 40)),
            WAIT_TIMEOUT as u64
        );
        assert!(t0.elapsed() >= Duration::from_millis(40));
        let mut t2 = other_thread(&h.proc, 0x20);
        std::thread::scope(|s| {
            let hr = &h.proc;
            let waiter =
                s.spawn(move || ret(WaitForSingleObject(&mut cx(hr, &mut t2), ev, INFINITE)));
            std::thread::sleep(Duration::from_millis(30));
            let mut t3 = other_thread(hr, 0x24);
            SetEvent(&mut cx(hr, &mut t3), ev).unwrap();
            assert_eq!(waiter.join().unwrap(), 0);
        });
        // The waiter consumed the auto-reset signal.
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), ev, 0)),
            WAIT_TIMEOUT as u64
        );
    }

    #[test]
    fn pulse_event_releases_only_current_waiters() {
        let mut h = Harness::new();
        let ev = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), true, false, CStrPtr(0)).unwrap();
        let obj = object::<Event>(&h.cx(), ev).unwrap();
        // No waiters: the pulse is lost.
        assert!(PulseEvent(&mut h.cx(), ev).unwrap());
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), ev, 0)),
            WAIT_TIMEOUT as u64
        );
        let (mut a, mut b) = (other_thread(&h.proc, 0x20), other_thread(&h.proc, 0x24));
        std::thread::scope(|s| {
            let hr = &h.proc;
            let wa = s.spawn(move || ret(WaitForSingleObject(&mut cx(hr, &mut a), ev, INFINITE)));
            let wb = s.spawn(move || ret(WaitForSingleObject(&mut cx(hr, &mut b), ev, INFINITE)));
            while lock(&obj.st).waiters.len() < 2 {
                std::thread::sleep(Duration::from_millis(1));
            }
            let mut t = other_thread(hr, 0x28);
            PulseEvent(&mut cx(hr, &mut t), ev).unwrap();
            assert_eq!(wa.join().unwrap(), 0);
            assert_eq!(wb.join().unwrap(), 0);
        });
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), ev, 0)),
            WAIT_TIMEOUT as u64
        );
    }

    #[test]
    fn critical_section_fields_follow_windows_nt() {
        let mut h = Harness::new();
        let cs = Ptr(h.scratch(CS_SIZE));
        InitializeCriticalSectionAndSpinCount(&mut h.cx(), cs, 0x8000_0fa0).unwrap();
        let field = |h: &Harness, off| h.u32(cs.0 + off);
        assert_eq!(field(&h, CS_LOCK_COUNT), u32::MAX);
        assert_eq!(field(&h, CS_SPIN_COUNT), 0xfa0);
        assert_eq!(
            SetCriticalSectionSpinCount(&mut h.cx(), cs, 10).unwrap(),
            0xfa0
        );
        ret(EnterCriticalSection(&mut h.cx(), cs));
        ret(EnterCriticalSection(&mut h.cx(), cs));
        assert_eq!(field(&h, CS_OWNING_THREAD), 0x10);
        assert_eq!(field(&h, CS_RECURSION_COUNT), 2);
        assert_eq!(field(&h, CS_LOCK_COUNT), 1);
        let mut t2 = other_thread(&h.proc, 0x20);
        assert!(!TryEnterCriticalSection(&mut cx(&h.proc, &mut t2), cs).unwrap());
        assert!(LeaveCriticalSection(&mut cx(&h.proc, &mut t2), cs).is_err());
        LeaveCriticalSection(&mut h.cx(), cs).unwrap();
        LeaveCriticalSection(&mut h.cx(), cs).unwrap();
        assert_eq!(field(&h, CS_OWNING_THREAD), 0);
        assert_eq!(field(&h, CS_RECURSION_COUNT), 0);
        assert_eq!(field(&h, CS_LOCK_COUNT), u32::MAX);
        assert!(TryEnterCriticalSection(&mut cx(&h.proc, &mut t2), cs).unwrap());
        assert_eq!(field(&h, CS_OWNING_THREAD), 0x20);
        LeaveCriticalSection(&mut cx(&h.proc, &mut t2), cs).unwrap();
        DeleteCriticalSection(&mut h.cx(), cs).unwrap();
        assert!(h.proc.sched.critical_section(cs.0).is_none());
    }

    #[test]
    fn critical_section_excludes_host_threads() {
        const THREADS: u32 = 4;
        const ITER: u32 = 20_000;
        let mut h = Harness::new();
        let cs = Ptr(h.scratch(CS_SIZE));
        let counter = h.scratch(4);
        InitializeCriticalSection(&mut h.cx(), cs).unwrap();
        std::thread::scope(|s| {
            for k in 0..THREADS {
                let mut t = other_thread(&h.proc, 0x100 + 4 * k);
                let hr = &h.proc;
                s.spawn(move || {
                    let mut c = cx(hr, &mut t);
                    for _ in 0..ITER {
                        ret(EnterCriticalSection(&mut c, cs));
                        // A non-atomic read-modify-write: only the lock makes it exact.
                        let v = hr.mem.read_u32(counter).unwrap();
                        hr.mem.write_u32(counter, v + 1).unwrap();
                        LeaveCriticalSection(&mut c, cs).unwrap();
                    }
                });
            }
        });
        assert_eq!(h.u32(counter), THREADS * ITER);
        assert_eq!(h.u32(cs.0 + CS_LOCK_COUNT), u32::MAX);
    }

    #[test]
    fn deterministic_wait_blocks_by_returning_resume() {
        let mut h = Harness::with_config(|c| c.deterministic = true);
        let ev = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), false, false, CStrPtr(0)).unwrap();
        match WaitForSingleObject(&mut h.cx(), ev, 100).unwrap() {
            Outcome::Resume => {}
            other => panic!("expected Resume, got {other:?}"),
        }
        let w = h.thread.sched.wait.as_ref().expect("a recorded wait");
        assert_eq!(w.deadline, Some(100 * scheduler::INSNS_PER_MS));
        assert_eq!(w.objs.len(), 1);
        SetEvent(&mut h.cx(), ev).unwrap();
        // The retry (same call again) completes and clears the wait.
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), ev, 100)), 0);
        assert!(h.thread.sched.wait.is_none());
        // A zero timeout never blocks.
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), ev, 0)),
            WAIT_TIMEOUT as u64
        );
        // Critical sections too.
        let cs = Ptr(h.scratch(CS_SIZE));
        InitializeCriticalSection(&mut h.cx(), cs).unwrap();
        let mut t2 = other_thread(&h.proc, 0x20);
        ret(EnterCriticalSection(&mut cx(&h.proc, &mut t2), cs));
        assert!(matches!(
            EnterCriticalSection(&mut h.cx(), cs).unwrap(),
            Outcome::Resume
        ));
        assert_eq!(h.u32(cs.0 + CS_LOCK_COUNT), 1);
        LeaveCriticalSection(&mut cx(&h.proc, &mut t2), cs).unwrap();
        ret(EnterCriticalSection(&mut h.cx(), cs));
        assert_eq!(h.u32(cs.0 + CS_OWNING_THREAD), 0x10);
        assert_eq!(h.u32(cs.0 + CS_LOCK_COUNT), 0);
    }

    #[test]
    fn mutex_of_an_ended_thread_is_abandoned() {
        let mut h = Harness::new();
        // Registered, so that the other thread's end is not the process's last.
        scheduler::current(&mut h.cx());
        let m = CreateMutex::<CStrPtr>(&mut h.cx(), Ptr(0), false, CStrPtr(0)).unwrap();
        let mut t2 = other_thread(&h.proc, 0x20);
        assert_eq!(ret(WaitForSingleObject(&mut cx(&h.proc, &mut t2), m, 0)), 0);
        scheduler::thread_exit_for_tests(&h.proc, &mut t2, 0);
        assert_eq!(
            ret(WaitForSingleObject(&mut h.cx(), m, 0)),
            WAIT_ABANDONED_0 as u64
        );
        assert!(ReleaseMutex(&mut h.cx(), m).unwrap());
        assert_eq!(ret(WaitForSingleObject(&mut h.cx(), m, 0)), 0);
    }
}
