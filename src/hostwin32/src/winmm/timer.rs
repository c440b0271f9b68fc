//! winmm multimedia timers: timeGetTime and friends, timeBeginPeriod/timeEndPeriod,
//! and timeSetEvent/timeKillEvent.
//!
//! timeGetTime runs on the same scale as GetTickCount (one guest clock for both).
//!
//! Timer events fire on the guest clock from one winmm timer thread per process, a
//! guest thread as on Windows (callbacks see their own thread id, may take locks the
//! main thread holds, and count as a running thread for the scheduler). Its start
//! routine is the HLE export `TimerThread::Run`: it waits through the scheduler for
//! the next due event (or for a change to the event set), then fires it. A
//! TIME_CALLBACK_FUNCTION callback is entered by pushing its arguments with the
//! thread routine itself as return address, so the callback runs as ordinary guest
//! code without host frames under it and the routine resumes when it returns.

use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::objects::KernelObject;
use crate::scheduler::{INFINITE, Locked, Waitable};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub const TIMERR_NOERROR: u32 = 0;
/// TIMERR_BASE + 1.
pub const TIMERR_NOCANDO: u32 = 97;
pub const MMSYSERR_INVALPARAM: u32 = 11;
/// timeGetDevCaps: the range of periods (and event delays) in milliseconds.
pub const PERIOD_MIN: u32 = 1;
pub const PERIOD_MAX: u32 = 1_000_000;

const TIME_PERIODIC: u32 = 0x0001;
const TIME_CALLBACK_EVENT_SET: u32 = 0x0010;
const TIME_CALLBACK_EVENT_PULSE: u32 = 0x0020;
/// MMTIME.wType for milliseconds.
const TIME_MS: u32 = 0x0001;
/// sizeof(MMTIME): wType and an 8-byte union.
const MMTIME_SIZE: u32 = 12;
/// sizeof(TIMECAPS).
const TIMECAPS_SIZE: u32 = 8;

const THREAD_ROUTINE: &str = "TimerThread::Run";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callback {
    Function(u32),
    EventSet(u32),
    EventPulse(u32),
}

#[derive(Clone, Copy, Debug)]
struct TimerEvent {
    /// Guest-clock microsecond at which it fires next.
    due_us: u64,
    /// Periodic events fire every this many microseconds; one-shot ones are gone
    /// once they fired.
    period_us: Option<u64>,
    callback: Callback,
    user: u32,
}

#[derive(Default)]
struct Inner {
    events: BTreeMap<u32, TimerEvent>,
    last_id: u32,
    /// The timer thread exists (it is created by the first timeSetEvent).
    thread: bool,
    wake: Option<Arc<Wake>>,
    /// While a callback runs: the thread routine's stack pointer to return to (a
    /// callback declared with the wrong calling convention must not move it).
    callback_esp: Option<u32>,
}

/// Per-process timer state, in `proc.winmm.timer`.
#[derive(Default)]
pub struct State {
    inner: Mutex<Inner>,
}

impl State {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Tells the timer thread that the event set changed (a new event may be due
/// earlier than the one it waits for).
#[derive(Default)]
struct Wake {
    pending: Mutex<bool>,
}

impl KernelObject for Wake {
    fn type_name(&self) -> &'static str {
        "winmm timer wake-up"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Wake {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        *self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = false;
        false
    }
    fn describe(&self) -> String {
        "winmm timer events changed".into()
    }
}

fn wake_thread(cx: &Ctx, wake: &Wake) {
    let s = &cx.proc.sched;
    let k = s.lock();
    *wake.pending.lock().unwrap_or_else(|e| e.into_inner()) = true;
    s.wake(&k);
}

/// Milliseconds since Windows started, on GetTickCount's scale.
pub fn timeGetTime(cx: &mut Ctx) -> u32 {
    crate::kernel32::time::tick_count(cx)
}

/// Fills an MMTIME with TIME_MS and timeGetTime's value when it is large enough
/// (a smaller buffer is left alone; the result is TIMERR_NOERROR either way).
pub fn timeGetSystemTime(cx: &mut Ctx, pmmt: Ptr, cbmmt: u32) -> ApiResult<u32> {
    if pmmt.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    if cbmmt >= MMTIME_SIZE {
        let now = crate::kernel32::time::tick_count(cx);
        cx.proc.mem.write_u32(pmmt.0, TIME_MS)?;
        cx.proc.mem.write_u32(pmmt.0 + 4, now)?;
    }
    Ok(TIMERR_NOERROR)
}

pub fn timeGetDevCaps(cx: &mut Ctx, ptc: Ptr, cbtc: u32) -> ApiResult<u32> {
    if ptc.is_null() || cbtc < TIMECAPS_SIZE {
        return Ok(TIMERR_NOCANDO);
    }
    cx.proc.mem.write_u32(ptc.0, PERIOD_MIN)?;
    cx.proc.mem.write_u32(ptc.0 + 4, PERIOD_MAX)?;
    Ok(TIMERR_NOERROR)
}

fn period_ok(p: u32) -> bool {
    (PERIOD_MIN..=PERIOD_MAX).contains(&p)
}

/// The guest clock has no coarser resolution to refine, so a period only needs to
/// be in range (the documented TIMERR_NOCANDO case).
pub fn timeBeginPeriod(_cx: &mut Ctx, uPeriod: u32) -> u32 {
    if period_ok(uPeriod) {
        TIMERR_NOERROR
    } else {
        TIMERR_NOCANDO
    }
}

pub fn timeEndPeriod(_cx: &mut Ctx, uPeriod: u32) -> u32 {
    if period_ok(uPeriod) {
        TIMERR_NOERROR
    } else {
        TIMERR_NOCANDO
    }
}

/// Starts a timer event; returns its id, or 0 when the delay is out of range or the
/// callback kind is unknown.
pub fn timeSetEvent(
    cx: &mut Ctx,
    uDelay: u32,
    _uResolution: u32,
    lpTimeProc: u32,
    dwUser: u32,
    fuEvent: u32,
) -> ApiResult<u32> {
    if !period_ok(uDelay) {
        return Ok(0);
    }
    let callback = match fuEvent & (TIME_CALLBACK_EVENT_SET | TIME_CALLBACK_EVENT_PULSE) {
        0 => Callback::Function(lpTimeProc),
        TIME_CALLBACK_EVENT_SET => Callback::EventSet(lpTimeProc),
        TIME_CALLBACK_EVENT_PULSE => Callback::EventPulse(lpTimeProc),
        _ => return Ok(0),
    };
    if lpTimeProc == 0 {
        return Ok(0);
    }
    let delay_us = u64::from(uDelay) * 1000;
    let now = crate::kernel32::time::micros(cx);
    let ev = TimerEvent {
        due_us: now + delay_us,
        period_us: (fuEvent & TIME_PERIODIC != 0).then_some(delay_us),
        callback,
        user: dwUser,
    };
    let (id, wake, start) = {
        let mut st = cx.proc.winmm.timer.lock();
        let mut id = st.last_id;
        loop {
            id = id.wrapping_add(1).max(1);
            if !st.events.contains_key(&id) {
                break;
            }
        }
        st.last_id = id;
        st.events.insert(id, ev);
        let wake = st.wake.get_or_insert_with(Default::default).clone();
        let start = !st.thread;
        st.thread = true;
        (id, wake, start)
    };
    if start {
        let routine = cx.proc.resolve_hle("winmm.dll", THREAD_ROUTINE)?;
        if crate::scheduler::create_thread(cx, routine, 0, 0, false)?.is_none() {
            let mut st = cx.proc.winmm.timer.lock();
            st.thread = false;
            st.events.remove(&id);
            return Ok(0);
        }
    }
    wake_thread(cx, &wake);
    Ok(id)
}

pub fn timeKillEvent(cx: &mut Ctx, uTimerID: u32) -> u32 {
    let wake = {
        let mut st = cx.proc.winmm.timer.lock();
        if st.events.remove(&uTimerID).is_none() {
            return MMSYSERR_INVALPARAM;
        }
        st.wake.clone()
    };
    if let Some(w) = wake {
        wake_thread(cx, &w);
    }
    TIMERR_NOERROR
}

/// The next event to fire: the earliest due, the lowest id among equals.
fn next_event(st: &Inner) -> Option<(u32, TimerEvent)> {
    st.events
        .iter()
        .min_by_key(|(id, e)| (e.due_us, **id))
        .map(|(id, e)| (*id, *e))
}

/// The timer thread's routine (see the module comment). It never returns to its
/// caller: it waits, fires events, and resumes here after each callback.
fn TimerThread(cx: &mut Ctx, _param: u32) -> ApiResult<Outcome> {
    let proc = cx.proc.clone();
    if let Some(esp) = proc.winmm.timer.lock().callback_esp.take() {
        cx.thread.cpu.regs[winterp_core::cpu::ESP] = esp;
    }
    loop {
        let now = crate::kernel32::time::micros(cx);
        let mut st = proc.winmm.timer.lock();
        let wake = st.wake.get_or_insert_with(Default::default).clone();
        match next_event(&st) {
            Some((id, ev)) if ev.due_us <= now => {
                match ev.period_us {
                    Some(p) => {
                        if let Some(e) = st.events.get_mut(&id) {
                            e.due_us += p;
                        }
                    }
                    None => {
                        st.events.remove(&id);
                    }
                }
                match ev.callback {
                    Callback::Function(f) => {
                        let esp = cx.thread.cpu.regs[winterp_core::cpu::ESP];
                        st.callback_esp = Some(esp);
                        drop(st);
                        let routine = proc.resolve_hle("winmm.dll", THREAD_ROUTINE)?;
                        // TIMECALLBACK(uTimerID, uMsg, dwUser, dw1, dw2), CALLBACK.
                        for a in [0, 0, ev.user, 0, id, routine] {
                            cx.thread.cpu.push(32, a)?;
                        }
                        cx.thread.cpu.eip = f;
                        return Ok(Outcome::Resume);
                    }
                    Callback::EventSet(h) => {
                        drop(st);
                        crate::kernel32::sync::SetEvent(cx, h)?;
                    }
                    Callback::EventPulse(h) => {
                        drop(st);
                        crate::kernel32::sync::PulseEvent(cx, h)?;
                    }
                }
            }
            next => {
                drop(st);
                let ms = match next {
                    Some((_, ev)) => (ev.due_us - now)
                        .div_ceil(1000)
                        .min(u64::from(INFINITE - 1)) as u32,
                    None => INFINITE,
                };
                let objs: Vec<Arc<dyn KernelObject>> = vec![wake];
                match crate::scheduler::wait_for(cx, objs, false, ms) {
                    Outcome::Return(_) => {}
                    other => return Ok(other),
                }
            }
        }
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("timeGetTime", timeGetTime),
        stdcall("timeGetSystemTime", timeGetSystemTime),
        stdcall("timeGetDevCaps", timeGetDevCaps),
        stdcall("timeBeginPeriod", timeBeginPeriod),
        stdcall("timeEndPeriod", timeEndPeriod),
        stdcall("timeSetEvent", timeSetEvent),
        stdcall("timeKillEvent", timeKillEvent),
        stdcall(THREAD_ROUTINE, TimerThread),
    ]
}
