//! KERNEL32 exception functions: RaiseException and RtlUnwind (exported by the
//! Windows 9x KERNEL32 itself; NT forwards it to NTDLL), and the two thunks the
//! exception dispatcher gives guest code (see [`crate::seh`]). The unhandled-exception
//! filter functions are in [`super::process`].

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, cdecl, stdcall};
use crate::seh::{self, Context, ExceptionRecord, flag};
use winterp_core::cpu::ESP;

/// The thread's state as its caller will see it once a stdcall API with `nargs`
/// argument dwords returns: EIP at the return address, ESP past the arguments.
fn caller_context(cx: &Ctx, nargs: u32) -> ApiResult<Context> {
    let esp = cx.thread.cpu.regs[ESP];
    let ret = cx.proc.mem.read_u32(esp)?;
    let mut ctx = Context::capture(&cx.thread.cpu);
    ctx.eip = ret;
    ctx.esp = esp.wrapping_add(4 + 4 * nargs);
    Ok(ctx)
}

/// Raises a software exception. The record's ExceptionAddress and the context's Eip
/// are RaiseException's return address, so a handler that continues execution
/// returns from the call. Only EXCEPTION_NONCONTINUABLE is kept of the flags, and
/// at most EXCEPTION_MAXIMUM_PARAMETERS arguments, as on Windows.
pub fn RaiseException(
    cx: &mut Ctx,
    dwExceptionCode: u32,
    dwExceptionFlags: u32,
    nNumberOfArguments: u32,
    lpArguments: Ptr,
) -> ApiResult<Outcome> {
    let mut params = Vec::new();
    if !lpArguments.is_null() {
        let n = nNumberOfArguments.min(seh::layout::MAX_PARAMS as u32);
        for k in 0..n {
            params.push(cx.proc.mem.read_u32(lpArguments.0.wrapping_add(4 * k))?);
        }
    }
    let ctx = caller_context(cx, 4)?;
    let mut rec = ExceptionRecord::new(dwExceptionCode, ctx.eip, &params);
    rec.flags = dwExceptionFlags & flag::NONCONTINUABLE;
    let r = seh::raise(cx.thread, cx.proc, &rec, &ctx);
    Ok(seh::outcome(cx.proc, r))
}

/// Calls the handlers above TargetFrame with EXCEPTION_UNWINDING, unlinks them, and
/// returns to the caller with EAX = ReturnValue. On i386 the unwind always continues
/// at the return address; TargetIp is not used.
pub fn RtlUnwind(
    cx: &mut Ctx,
    TargetFrame: u32,
    _TargetIp: u32,
    ExceptionRecord: Ptr,
    ReturnValue: u32,
) -> ApiResult<Outcome> {
    let mut ctx = caller_context(cx, 4)?;
    ctx.eax = ReturnValue;
    let r = seh::unwind_then(cx.thread, cx.proc, TargetFrame, ExceptionRecord.0, &ctx);
    Ok(seh::outcome(cx.proc, r))
}

/// Where a handler called by the dispatcher returns.
fn seh_return(cx: &mut Ctx) -> Outcome {
    let r = seh::handler_returned(cx.thread, cx.proc);
    seh::outcome(cx.proc, r)
}

/// The handler of every thread's start-up registration record. The dispatcher
/// treats reaching that record as the end of the chain and the unwinder passes it,
/// so a guest that calls it directly is told to keep searching.
fn seh_top(_cx: &mut Ctx, _record: u32, _frame: u32, _context: u32, _dispatcher: u32) -> u32 {
    seh::disposition::CONTINUE_SEARCH
}

/// The handler of the dispatcher's registration records.
fn seh_nested(cx: &mut Ctx, record: u32, frame: u32, _context: u32, dispatcher: u32) -> u32 {
    seh::nested_handler(cx.proc, record, frame, dispatcher)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("RaiseException", RaiseException),
        stdcall("RtlUnwind", RtlUnwind),
        cdecl(seh::RETURN_EXPORT, seh_return),
        cdecl(seh::NESTED_EXPORT, seh_nested),
        cdecl(seh::TOP_EXPORT, seh_top),
    ]
}
