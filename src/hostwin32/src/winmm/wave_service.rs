//! The sound service thread: one guest thread per process that does, on the guest
//! clock, what sound hardware and its driver do asynchronously on Windows —
//! returning finished waveOut headers (WHDR_DONE and the WOM_DONE callback) and
//! signalling DirectSound position notifications.
//!
//! Its start routine is the HLE export `SoundService::Run` of winmm.dll: the thread
//! stops on that thunk, and the function does the work that is due, then waits
//! through [`scheduler::wait_for`] for the next deadline or a doorbell rung by an
//! API that changed a schedule. It always returns [`Outcome::Resume`] with EIP still
//! on the thunk, so the executor calls it again: a loop that works alike in
//! OS-thread mode (the wait blocks for real) and deterministic mode (the wait is
//! recorded, and the scheduler runs the thread again at the deadline). Guest
//! callbacks (CALLBACK_FUNCTION) run on this thread, as winmm's own thread runs
//! them on Windows.

use crate::hle::{ApiResult, Ctx, Outcome, stdcall};
use crate::objects::KernelObject;
use crate::process::Process;
use crate::scheduler::{self, Locked, Waitable};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

/// Something the service thread does for a voice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// SetEvent on a guest event handle.
    SetEvent(u32),
    /// Calls a guest stdcall function with these arguments.
    Call { addr: u32, args: Vec<u32> },
    /// PostMessage to a window.
    Post {
        hwnd: u32,
        msg: u32,
        wp: u32,
        lp: u32,
    },
    /// PostThreadMessage.
    PostThread {
        tid: u32,
        msg: u32,
        wp: u32,
        lp: u32,
    },
}

/// A voice with work due at guest times.
pub trait Timed: Send + Sync {
    /// Does what is due at `now_us` (state changes such as WHDR_DONE happen here) and
    /// returns the actions to perform, in order, and the next guest time (µs) at which
    /// something will be due, if any.
    fn poll(&self, proc: &Arc<Process>, now_us: u64) -> ApiResult<(Vec<Action>, Option<u64>)>;
}

/// Per-process service state (in winmm's `wave::State`).
#[derive(Default)]
pub struct Service {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    started: bool,
    bell: Option<Arc<Bell>>,
    items: Vec<Weak<dyn Timed>>,
    /// Actions queued by APIs (WOM_OPEN, WOM_CLOSE, headers returned by a reset),
    /// performed by the thread in order.
    pending: VecDeque<Action>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The doorbell the service thread waits on besides its deadline.
struct Bell {
    rung: Mutex<bool>,
}

impl KernelObject for Bell {
    fn type_name(&self) -> &'static str {
        "SoundServiceBell"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for Bell {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        *lock(&self.rung)
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        *lock(&self.rung) = false;
        false
    }
    fn describe(&self) -> String {
        "the sound service's doorbell".to_string()
    }
}

fn service(proc: &Process) -> &Service {
    &proc.winmm.wave.service
}

/// Makes sure the service thread runs and wakes it to re-plan.
fn ensure_started(cx: &mut Ctx) -> ApiResult<()> {
    let bell = {
        let mut s = lock(&service(cx.proc).inner);
        if !s.started {
            s.started = true;
            s.bell = Some(Arc::new(Bell {
                rung: Mutex::new(true),
            }));
            drop(s);
            let start = cx.proc.resolve_hle("winmm.dll", ROUTINE)?;
            let t = crate::startup::new_thread(cx.proc, start, 0, 0).map_err(|e| {
                crate::hle::ApiError::Other(format!("starting the sound service thread: {e}"))
            })?;
            let tid = t.tid;
            if let Err(e) = scheduler::spawn(cx.proc, t, false) {
                crate::startup::release_thread(cx.proc, tid);
                return Err(crate::hle::ApiError::Other(format!(
                    "starting the sound service thread: {e}"
                )));
            }
            return Ok(());
        }
        s.bell.clone()
    };
    if let Some(b) = bell {
        let k = cx.proc.sched.lock();
        *lock(&b.rung) = true;
        cx.proc.sched.wake(&k);
    }
    Ok(())
}

/// Adds a voice whose `poll` the service thread calls (once; it is forgotten when
/// dropped) and wakes the thread to re-plan.
pub fn watch(cx: &mut Ctx, item: &Arc<dyn Timed>) -> ApiResult<()> {
    {
        let mut s = lock(&service(cx.proc).inner);
        s.items.retain(|w| w.strong_count() > 0);
        if !s
            .items
            .iter()
            .any(|w| std::ptr::addr_eq(w.as_ptr(), Arc::as_ptr(item)))
        {
            s.items.push(Arc::downgrade(item));
        }
    }
    ensure_started(cx)
}

/// Wakes the service thread because a watched voice's schedule changed.
pub fn kick(cx: &mut Ctx) -> ApiResult<()> {
    if lock(&service(cx.proc).inner).started {
        ensure_started(cx)
    } else {
        Ok(())
    }
}

/// Where a wave or MIDI output handle reports its MM_*OM_* messages: the
/// CALLBACK_* kind in the `fdwOpen` of waveOutOpen and midiOutOpen, with its
/// `dwCallback`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callback {
    Null,
    Window(u32),
    Thread(u32),
    Function(u32),
    Event(u32),
}

const CALLBACK_TYPEMASK: u32 = 0x7_0000;
const CALLBACK_NULL: u32 = 0;
const CALLBACK_WINDOW: u32 = 0x1_0000;
const CALLBACK_THREAD: u32 = 0x2_0000;
const CALLBACK_FUNCTION: u32 = 0x3_0000;
const CALLBACK_EVENT: u32 = 0x5_0000;

impl Callback {
    /// The callback an open call asks for, or `None` for a kind winmm rejects
    /// (MMSYSERR_INVALFLAG). A CALLBACK_FUNCTION of NULL reports nowhere, as on
    /// Windows.
    pub fn from_open(fdwOpen: u32, dwCallback: u32) -> Option<Callback> {
        Some(match fdwOpen & CALLBACK_TYPEMASK {
            CALLBACK_NULL => Callback::Null,
            CALLBACK_WINDOW => Callback::Window(dwCallback),
            CALLBACK_THREAD => Callback::Thread(dwCallback),
            CALLBACK_FUNCTION if dwCallback == 0 => Callback::Null,
            CALLBACK_FUNCTION => Callback::Function(dwCallback),
            CALLBACK_EVENT => Callback::Event(dwCallback),
            _ => return None,
        })
    }

    /// What delivering `msg` with `p1` for `handle` means: a message posted with
    /// the handle in wParam, an event set, or the function called as
    /// `(handle, msg, dwInstance, p1, 0)`.
    pub fn action(self, handle: u32, instance: u32, msg: u32, p1: u32) -> Option<Action> {
        match self {
            Callback::Null => None,
            Callback::Window(hwnd) => Some(Action::Post {
                hwnd,
                msg,
                wp: handle,
                lp: p1,
            }),
            Callback::Thread(tid) => Some(Action::PostThread {
                tid,
                msg,
                wp: handle,
                lp: p1,
            }),
            Callback::Event(h) => Some(Action::SetEvent(h)),
            Callback::Function(addr) => Some(Action::Call {
                addr,
                args: vec![handle, msg, instance, p1, 0],
            }),
        }
    }
}

/// Delivers a callback message now (posts, events) or through the service thread
/// (functions, which winmm runs on its own thread).
pub fn deliver(cx: &mut Ctx, action: Option<Action>) -> ApiResult<()> {
    match action {
        None => Ok(()),
        Some(a @ Action::Call { .. }) => queue(cx, a),
        Some(a) => perform(cx, &a),
    }
}

/// Queues an action for the service thread (performed as soon as it runs).
pub fn queue(cx: &mut Ctx, a: Action) -> ApiResult<()> {
    lock(&service(cx.proc).inner).pending.push_back(a);
    ensure_started(cx)
}

/// Performs an action that needs no guest code on the calling thread (a Call is
/// only ever performed by the service thread).
pub fn perform(cx: &mut Ctx, a: &Action) -> ApiResult<()> {
    match a {
        Action::SetEvent(h) => {
            crate::kernel32::sync::SetEvent(cx, *h)?;
        }
        Action::Call { addr, .. } => {
            return Err(crate::hle::ApiError::Other(format!(
                "sound callback {addr:#010x} must run on the sound service thread"
            )));
        }
        Action::Post { hwnd, msg, wp, lp } => {
            crate::user32::msg::post(cx, *hwnd, *msg, *wp, *lp);
        }
        Action::PostThread { tid, msg, wp, lp } => {
            crate::user32::msg::PostThreadMessageA(cx, *tid, *msg, *wp, *lp)?;
        }
    }
    Ok(())
}

/// The service thread's body (see the module comment).
fn Run(cx: &mut Ctx, _param: u32) -> ApiResult<Outcome> {
    // A deterministic-mode retry: the old deadline may be stale, plan afresh.
    cx.thread.sched.wait = None;
    let next = loop {
        let now = crate::kernel32::time::micros(cx);
        let items: Vec<Arc<dyn Timed>> = {
            let mut s = lock(&service(cx.proc).inner);
            s.items.retain(|w| w.strong_count() > 0);
            s.items.iter().filter_map(Weak::upgrade).collect()
        };
        let mut next: Option<u64> = None;
        let mut due = Vec::new();
        for it in &items {
            let (a, n) = it.poll(cx.proc, now)?;
            due.extend(a);
            if let Some(n) = n {
                next = Some(next.map_or(n, |x: u64| x.min(n)));
            }
        }
        drop(items);
        let a = {
            let mut s = lock(&service(cx.proc).inner);
            s.pending.extend(due);
            s.pending.pop_front()
        };
        match a {
            None => break next,
            Some(Action::Call { addr, args }) => {
                // Enter the callback with this routine's thunk as its return address:
                // it runs as plain guest code with no host frames under it, and when it
                // returns (popping its stdcall arguments) the thunk calls us again.
                let me = cx.proc.resolve_hle("winmm.dll", ROUTINE)?;
                for &v in args.iter().rev().chain(std::iter::once(&me)) {
                    cx.thread.cpu.push(32, v)?;
                }
                cx.thread.cpu.eip = addr;
                return Ok(Outcome::Resume);
            }
            Some(other) => perform(cx, &other)?,
        }
    };
    let bell: Arc<dyn KernelObject> = match lock(&service(cx.proc).inner).bell.clone() {
        Some(b) => b,
        None => return Ok(Outcome::Resume),
    };
    let now = crate::kernel32::time::micros(cx);
    // Never plan for the present: nothing was due now, and in deterministic mode a
    // deadline that does not move the clock would spin.
    let next = next.map(|d| d.max(now + 1));
    let ms = match next {
        None => scheduler::INFINITE,
        Some(d) => (d.saturating_sub(now).div_ceil(1000)).min(u64::from(u32::MAX - 1)) as u32,
    };
    match scheduler::wait_for(cx, vec![bell], false, ms) {
        Outcome::Return(_) => Ok(Outcome::Resume),
        Outcome::Resume => {
            // Deterministic mode: wake at the exact microsecond, not the next whole
            // millisecond, so notifications and WOM_DONE land where they are due.
            if let (Some(d), Some(w)) = (next, cx.thread.sched.wait.as_mut()) {
                w.deadline = Some(d * scheduler::INSNS_PER_MS / 1000);
            }
            Ok(Outcome::Resume)
        }
        other => Ok(other),
    }
}

const ROUTINE: &str = "SoundService::Run";

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![stdcall(ROUTINE, Run)]
}
