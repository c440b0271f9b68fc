//! KERNEL32 threads: creation, exit, exit codes, suspension, priorities, termination
//! and giving up the processor. Threads run as [`crate::scheduler`] says (host threads,
//! or cooperatively in deterministic mode). GetCurrentThread/GetCurrentThreadId are
//! in process.rs; Sleep/SleepEx in time.rs.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::scheduler::{self, STILL_ACTIVE, ThreadObj};
use crate::teb::set_last_error;
use std::sync::Arc;

use super::misc::err;

const CREATE_SUSPENDED: u32 = 0x4;
/// dwStackSize is the reservation rather than the commit size (XP); either way it is
/// the size of the stack winterp reserves.
const STACK_SIZE_PARAM_IS_A_RESERVATION: u32 = 0x1_0000;
const ERROR_SIGNAL_REFUSED: u32 = 156;

pub const THREAD_PRIORITY_IDLE: i32 = -15;
pub const THREAD_PRIORITY_TIME_CRITICAL: i32 = 15;
pub const THREAD_PRIORITY_ERROR_RETURN: i32 = 0x7fff_ffff;

/// The thread object behind `h`, or ERROR_INVALID_HANDLE.
fn thread(cx: &mut Ctx, h: u32) -> ApiResult<Option<Arc<ThreadObj>>> {
    let t = scheduler::thread_from_handle(cx, h);
    if t.is_none() {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    }
    Ok(t)
}

pub fn CreateThread(
    cx: &mut Ctx,
    _lpThreadAttributes: Ptr,
    dwStackSize: u32,
    lpStartAddress: u32,
    lpParameter: u32,
    dwCreationFlags: u32,
    lpThreadId: Ptr,
) -> ApiResult<u32> {
    let unknown = dwCreationFlags & !(CREATE_SUSPENDED | STACK_SIZE_PARAM_IS_A_RESERVATION);
    if unknown != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "CreateThread creation flags {unknown:#x}"
        )));
    }
    if !lpThreadId.is_null() {
        cx.proc.mem.probe_write(lpThreadId.0, 4)?;
    }
    let Some((h, tid)) = scheduler::create_thread(
        cx,
        lpStartAddress,
        lpParameter,
        dwStackSize,
        dwCreationFlags & CREATE_SUSPENDED != 0,
    )?
    else {
        return Ok(0);
    };
    if !lpThreadId.is_null() {
        cx.proc.mem.write_u32(lpThreadId.0, tid)?;
    }
    Ok(h)
}

pub fn ExitThread(cx: &mut Ctx, dwExitCode: u32) -> Outcome {
    scheduler::exit_thread(cx, dwExitCode)
}

pub fn GetExitCodeThread(cx: &mut Ctx, hThread: u32, lpExitCode: Ptr) -> ApiResult<bool> {
    let Some(t) = thread(cx, hThread)? else {
        return Ok(false);
    };
    cx.proc
        .mem
        .write_u32(lpExitCode.0, t.exit_code().unwrap_or(STILL_ACTIVE))?;
    Ok(true)
}

pub fn SuspendThread(cx: &mut Ctx, hThread: u32) -> ApiResult<u32> {
    let Some(t) = thread(cx, hThread)? else {
        return Ok(u32::MAX);
    };
    match t.suspend() {
        Some(prev) => Ok(prev),
        None => {
            set_last_error(cx, ERROR_SIGNAL_REFUSED)?;
            Ok(u32::MAX)
        }
    }
}

pub fn ResumeThread(cx: &mut Ctx, hThread: u32) -> ApiResult<u32> {
    if let Some(n) = super::createprocess::resume_child_thread(cx.proc, hThread) {
        return Ok(n);
    }
    let Some(t) = thread(cx, hThread)? else {
        return Ok(u32::MAX);
    };
    Ok(t.resume())
}

/// Priorities are stored and reported back; they do not change scheduling (host
/// threads run at the host's priority, the deterministic round robin is fixed).
pub fn SetThreadPriority(cx: &mut Ctx, hThread: u32, nPriority: i32) -> ApiResult<bool> {
    let Some(t) = thread(cx, hThread)? else {
        return Ok(false);
    };
    let valid = matches!(
        nPriority,
        THREAD_PRIORITY_IDLE | -2..=2 | THREAD_PRIORITY_TIME_CRITICAL
    );
    if !valid {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    t.set_priority(nPriority);
    Ok(true)
}

pub fn GetThreadPriority(cx: &mut Ctx, hThread: u32) -> ApiResult<i32> {
    Ok(thread(cx, hThread)?.map_or(THREAD_PRIORITY_ERROR_RETURN, |t| t.priority()))
}

/// With one processor the only valid mask is 1, so every thread's previous mask is
/// 1 too. A mask outside the process's affinity fails with ERROR_INVALID_PARAMETER.
pub fn SetThreadAffinityMask(
    cx: &mut Ctx,
    hThread: u32,
    dwThreadAffinityMask: u32,
) -> ApiResult<u32> {
    if thread(cx, hThread)?.is_none() {
        return Ok(0);
    }
    let process = super::process::process_affinity(cx.proc);
    if dwThreadAffinityMask == 0 || dwThreadAffinityMask & !process != 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    Ok(process)
}

pub fn TerminateThread(cx: &mut Ctx, hThread: u32, dwExitCode: u32) -> ApiResult<Outcome> {
    let Some(t) = thread(cx, hThread)? else {
        return Ok(Outcome::Return(0));
    };
    if t.tid == cx.thread.tid {
        return Ok(scheduler::exit_thread(cx, dwExitCode));
    }
    scheduler::terminate(cx.proc, &t, dwExitCode);
    Ok(Outcome::Return(1))
}

pub fn SwitchToThread(cx: &mut Ctx) -> bool {
    scheduler::yield_now(cx)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateThread", CreateThread),
        stdcall("ExitThread", ExitThread),
        stdcall("GetExitCodeThread", GetExitCodeThread),
        stdcall("SuspendThread", SuspendThread),
        stdcall("ResumeThread", ResumeThread),
        stdcall("SetThreadPriority", SetThreadPriority),
        stdcall("GetThreadPriority", GetThreadPriority),
        stdcall("TerminateThread", TerminateThread),
        stdcall("SetThreadAffinityMask", SetThreadAffinityMask),
        stdcall("SwitchToThread", SwitchToThread),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;
    use crate::objects::CURRENT_THREAD;

    #[test]
    fn priorities_are_validated_and_stored() {
        let mut h = Harness::new();
        assert_eq!(GetThreadPriority(&mut h.cx(), CURRENT_THREAD).unwrap(), 0);
        for p in [-15, -2, -1, 0, 1, 2, 15] {
            assert!(SetThreadPriority(&mut h.cx(), CURRENT_THREAD, p).unwrap());
            assert_eq!(GetThreadPriority(&mut h.cx(), CURRENT_THREAD).unwrap(), p);
        }
        assert!(!SetThreadPriority(&mut h.cx(), CURRENT_THREAD, 3).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(
            GetThreadPriority(&mut h.cx(), 0x4444).unwrap(),
            THREAD_PRIORITY_ERROR_RETURN
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }

    #[test]
    fn exit_code_and_suspend_counts() {
        let mut h = Harness::new();
        let code = h.scratch(4);
        assert!(GetExitCodeThread(&mut h.cx(), CURRENT_THREAD, Ptr(code)).unwrap());
        assert_eq!(h.u32(code), STILL_ACTIVE);
        let me = scheduler::current(&mut h.cx());
        // Counting only: the thread is not running guest code here.
        assert_eq!(me.suspend(), Some(0));
        assert_eq!(me.suspend(), Some(1));
        assert_eq!(ResumeThread(&mut h.cx(), CURRENT_THREAD).unwrap(), 2);
        assert_eq!(ResumeThread(&mut h.cx(), CURRENT_THREAD).unwrap(), 1);
        assert_eq!(ResumeThread(&mut h.cx(), CURRENT_THREAD).unwrap(), 0);
        for _ in 0..scheduler::MAX_SUSPEND {
            me.suspend().unwrap();
        }
        assert_eq!(
            SuspendThread(&mut h.cx(), CURRENT_THREAD).unwrap(),
            u32::MAX
        );
        assert_eq!(h.last_error(), ERROR_SIGNAL_REFUSED);
        assert_eq!(SuspendThread(&mut h.cx(), 0x4444).unwrap(), u32::MAX);
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        assert!(matches!(ExitThread(&mut h.cx(), 5), Outcome::ExitThread(5)));
    }

    #[test]
    fn thread_affinity_within_the_one_processor() {
        let mut h = Harness::new();
        assert_eq!(
            SetThreadAffinityMask(&mut h.cx(), CURRENT_THREAD, 1).unwrap(),
            1
        );
        assert_eq!(
            SetThreadAffinityMask(&mut h.cx(), CURRENT_THREAD, 2).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(SetThreadAffinityMask(&mut h.cx(), 0x4444, 1).unwrap(), 0);
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }
}
