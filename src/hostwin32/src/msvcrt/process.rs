//! Process and thread control: exit/atexit/_onexit, abort, signal/raise,
//! _beginthread(ex)/_endthread(ex), _amsg_exit, _XcptFilter, environment.

#![allow(non_snake_case)]

use super::state::{self, call_guest, crt, errno, k32, k32_outcome, set_errno};
use super::{gmem, stdio};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Outcome, Ptr, cdecl};

pub const SIGINT: i32 = 2;
pub const SIGILL: i32 = 4;
pub const SIGFPE: i32 = 8;
pub const SIGSEGV: i32 = 11;
pub const SIGTERM: i32 = 15;
pub const SIGBREAK: i32 = 21;
pub const SIGABRT: i32 = 22;
const SIG_DFL: u32 = 0;
const SIG_IGN: u32 = 1;
const SIG_ERR: u32 = u32::MAX;
/// The `code` argument a SIGFPE handler gets from raise (`_FPE_EXPLICITGEN`).
const FPE_EXPLICITGEN: u32 = 0x8c;

/// Runs the atexit/_onexit handlers, last registered first, once.
pub fn run_exit_handlers(cx: &mut Ctx) -> ApiResult<Option<Outcome>> {
    let c = crt(cx.proc);
    {
        let mut st = c.lock();
        if st.exiting {
            return Ok(None);
        }
        st.exiting = true;
    }
    loop {
        // Handlers may register more handlers; take them one at a time.
        let Some(f) = c.lock().exit_handlers.pop() else {
            break;
        };
        if let Err(o) = call_guest(cx, f, &[])? {
            return Ok(Some(o));
        }
    }
    Ok(None)
}

/// exit(): handlers, flush, then KERNEL32's ExitProcess.
pub fn do_exit(cx: &mut Ctx, code: u32) -> ApiResult<Outcome> {
    if let Some(o) = run_exit_handlers(cx)? {
        return Ok(o);
    }
    stdio::flush_all(cx)?;
    k32_outcome(cx, "ExitProcess", &[code])
}

fn exit(cx: &mut Ctx, status: u32) -> ApiResult<Outcome> {
    do_exit(cx, status)
}

fn _exit(cx: &mut Ctx, status: u32) -> ApiResult<Outcome> {
    k32_outcome(cx, "ExitProcess", &[status])
}

fn _cexit(cx: &mut Ctx) -> ApiResult<Outcome> {
    if let Some(o) = run_exit_handlers(cx)? {
        return Ok(o);
    }
    stdio::flush_all(cx)?;
    Ok(Outcome::Return(0))
}

fn _c_exit(_cx: &mut Ctx) {}

fn atexit(cx: &mut Ctx, func: u32) -> i32 {
    crt(cx.proc).lock().exit_handlers.push(func);
    0
}

fn _onexit(cx: &mut Ctx, func: u32) -> u32 {
    crt(cx.proc).lock().exit_handlers.push(func);
    func
}

/// A DLL's own onexit table: its handlers run with the process's, at exit.
fn __dllonexit(cx: &mut Ctx, func: u32, _pbegin: Ptr, _pend: Ptr) -> u32 {
    _onexit(cx, func)
}

/// Writes a runtime message straight to the standard error handle, as the
/// runtime's `_NMSG_WRITE` does (no stream, no text translation).
fn message(cx: &mut Ctx, text: &[u8]) -> ApiResult<()> {
    stdio::flush_all(cx)?;
    let h = k32(cx, "GetStdHandle", &[(-12i32) as u32])?;
    if h != 0 && h != u32::MAX {
        super::lowio::write_handle(cx, h, text)?;
    }
    Ok(())
}

const ABORT_TEXT: &[u8] = b"\r\nThis application has requested the Runtime to terminate it in an unusual way.\nPlease contact the application's support team for more information.\r\n";

pub(super) fn abort(cx: &mut Ctx) -> ApiResult<Outcome> {
    let h = crt(cx.proc)
        .lock()
        .signals
        .get(&SIGABRT)
        .copied()
        .unwrap_or(SIG_DFL);
    if h != SIG_DFL && h != SIG_IGN {
        crt(cx.proc).lock().signals.insert(SIGABRT, SIG_DFL);
        if let Err(o) = call_guest(cx, h, &[SIGABRT as u32])? {
            return Ok(o);
        }
    }
    message(cx, ABORT_TEXT)?;
    k32_outcome(cx, "ExitProcess", &[3])
}

fn _amsg_exit(cx: &mut Ctx, rterrnum: u32) -> ApiResult<Outcome> {
    let text = format!("\r\nruntime error R60{rterrnum:02}\r\n");
    message(cx, text.as_bytes())?;
    k32_outcome(cx, "ExitProcess", &[255])
}

fn valid_signal(sig: i32) -> bool {
    matches!(
        sig,
        SIGINT | SIGILL | SIGFPE | SIGSEGV | SIGTERM | SIGBREAK | SIGABRT
    )
}

fn signal(cx: &mut Ctx, sig: i32, func: u32) -> ApiResult<u32> {
    // SIG_SGE (3) and SIG_ACK (4) are only for other signal models.
    if !valid_signal(sig) || func == 3 || func == 4 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(SIG_ERR);
    }
    Ok(crt(cx.proc)
        .lock()
        .signals
        .insert(sig, func)
        .unwrap_or(SIG_DFL))
}

fn raise(cx: &mut Ctx, sig: i32) -> ApiResult<Outcome> {
    if !valid_signal(sig) {
        set_errno(cx, errno::EINVAL)?;
        return Ok(Outcome::Return(u32::MAX as u64));
    }
    let h = crt(cx.proc)
        .lock()
        .signals
        .get(&sig)
        .copied()
        .unwrap_or(SIG_DFL);
    match h {
        SIG_IGN => Ok(Outcome::Return(0)),
        SIG_DFL => k32_outcome(cx, "ExitProcess", &[3]),
        f => {
            // The handler is reset to the default before it runs.
            crt(cx.proc).lock().signals.insert(sig, SIG_DFL);
            let args: &[u32] = if sig == SIGFPE {
                &[sig as u32, FPE_EXPLICITGEN]
            } else {
                &[sig as u32]
            };
            match call_guest(cx, f, args)? {
                Ok(_) => Ok(Outcome::Return(0)),
                Err(o) => Ok(o),
            }
        }
    }
}

/// The exception filter of the MSVC start-up code: delivers hardware exceptions
/// to C signal handlers.
fn _XcptFilter(cx: &mut Ctx, xcptnum: u32, _pxcptinfoptrs: Ptr) -> ApiResult<Outcome> {
    let sig = match xcptnum {
        0xc000_0005 => SIGSEGV,
        0xc000_001d | 0xc000_0096 => SIGILL,
        0xc000_008d..=0xc000_0093 => SIGFPE,
        _ => return Ok(Outcome::Return(0)),
    };
    let h = crt(cx.proc)
        .lock()
        .signals
        .get(&sig)
        .copied()
        .unwrap_or(SIG_DFL);
    match h {
        // EXCEPTION_CONTINUE_SEARCH.
        SIG_DFL => Ok(Outcome::Return(0)),
        // EXCEPTION_CONTINUE_EXECUTION.
        SIG_IGN => Ok(Outcome::Return(u32::MAX as u64)),
        f => {
            crt(cx.proc).lock().signals.insert(sig, SIG_DFL);
            let args: &[u32] = if sig == SIGFPE {
                &[sig as u32, xcptnum]
            } else {
                &[sig as u32]
            };
            match call_guest(cx, f, args)? {
                Ok(_) => Ok(Outcome::Return(u32::MAX as u64)),
                Err(o) => Ok(o),
            }
        }
    }
}

fn _beginthreadex(
    cx: &mut Ctx,
    security: u32,
    stack_size: u32,
    start_address: u32,
    arglist: u32,
    initflag: u32,
    thrdaddr: u32,
) -> ApiResult<u32> {
    let h = k32(
        cx,
        "CreateThread",
        &[
            security,
            stack_size,
            start_address,
            arglist,
            initflag,
            thrdaddr,
        ],
    )?;
    if h == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        state::set_errno_from_win32(cx, e)?;
    }
    Ok(h)
}

fn _beginthread(cx: &mut Ctx, start_address: u32, stack_size: u32, arglist: u32) -> ApiResult<u32> {
    // A cdecl `void f(void *)` run as a thread routine: its return leaves the
    // argument on the stack, which the thread-exit sentinel does not mind.
    let h = k32(
        cx,
        "CreateThread",
        &[0, stack_size, start_address, arglist, 0, 0],
    )?;
    if h == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        state::set_errno_from_win32(cx, e)?;
        return Ok(u32::MAX);
    }
    Ok(h)
}

fn _endthreadex(cx: &mut Ctx, retval: u32) -> ApiResult<Outcome> {
    k32_outcome(cx, "ExitThread", &[retval])
}

fn _endthread(cx: &mut Ctx) -> ApiResult<Outcome> {
    k32_outcome(cx, "ExitThread", &[0])
}

fn _getpid(cx: &mut Ctx) -> ApiResult<u32> {
    k32(cx, "GetCurrentProcessId", &[])
}

fn _sleep(cx: &mut Ctx, ms: u32) -> ApiResult<Outcome> {
    k32_outcome(cx, "Sleep", &[ms])
}

fn system(cx: &mut Ctx, command: CStrPtr) -> ApiResult<i32> {
    if command.0 == 0 {
        // No command processor.
        return Ok(0);
    }
    let c = gmem::read_cstr(&cx.proc.mem, command.0, 256)?;
    Err(crate::hle::ApiError::UnimplementedCase(format!(
        "system(\"{}\"): running a command processor",
        String::from_utf8_lossy(&c)
    )))
}

fn _assert(cx: &mut Ctx, expr: CStrPtr, file: CStrPtr, line: u32) -> ApiResult<Outcome> {
    let e = gmem::read_cstr(&cx.proc.mem, expr.0, 1024)?;
    let f = gmem::read_cstr(&cx.proc.mem, file.0, 1024)?;
    let text = format!(
        "Assertion failed: {}, file {}, line {line}\n",
        String::from_utf8_lossy(&e),
        String::from_utf8_lossy(&f)
    );
    message(cx, text.as_bytes())?;
    abort(cx)
}

fn _purecall(cx: &mut Ctx) -> ApiResult<Outcome> {
    _amsg_exit(cx, 25)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("exit", exit),
        cdecl("_exit", _exit),
        cdecl("_cexit", _cexit),
        cdecl("_c_exit", _c_exit),
        cdecl("atexit", atexit),
        cdecl("_onexit", _onexit),
        cdecl("__dllonexit", __dllonexit),
        cdecl("abort", abort),
        cdecl("_amsg_exit", _amsg_exit),
        cdecl("signal", signal),
        cdecl("raise", raise),
        cdecl("_XcptFilter", _XcptFilter),
        cdecl("_beginthreadex", _beginthreadex),
        cdecl("_beginthread", _beginthread),
        cdecl("_endthreadex", _endthreadex),
        cdecl("_endthread", _endthread),
        cdecl("_getpid", _getpid),
        cdecl("_sleep", _sleep),
        cdecl("system", system),
        cdecl("_assert", _assert),
        cdecl("_purecall", _purecall),
    ]
}
