//! Unwinding (RtlUnwind): every handler on the FS:[0] chain above a target frame is
//! called once more with EXCEPTION_UNWINDING so that it can run its `__finally`
//! blocks and destructors, and is unlinked; then the thread continues with a given
//! context (for RtlUnwind itself, its return to the caller with EAX = ReturnValue).
//! Handler calls are guest calls, like dispatch's.

use super::dispatch::{Step, call, raise_secondary, resume};
use super::frame::{self, CALL_ROOM, Frame, Kind, Stack, Thunks, exception_list, phase};
use super::layout::{CHAIN_END, Context, ExceptionRecord, code, disposition, flag, rec};
use super::{Fatal, report};
use crate::process::Process;
use crate::thread::GuestThread;
use std::sync::Arc;

/// Starts unwinding to `target` (0: an exit unwind of the whole chain) with the
/// EXCEPTION_RECORD at `record` (0: a STATUS_UNWIND record of its own), ending with
/// `resume` loaded into the thread.
pub fn unwind_then(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    target: u32,
    record: u32,
    resume: &Context,
) -> Result<(), Fatal> {
    let below = t.cpu.regs[winterp_core::cpu::ESP];
    start(t, proc, below, target, record, resume, 0, phase::CHAIN)
}

/// [`unwind_then`] with the unwinder's area below `below`, for an unwind started
/// by the dispatcher (`depth` exceptions in progress, `phase` TERMINATING for the
/// unwind before ExitProcess).
#[allow(clippy::too_many_arguments)]
pub(super) fn start(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    below: u32,
    target: u32,
    record: u32,
    resume: &Context,
    depth: u32,
    phase: u32,
) -> Result<(), Fatal> {
    let th = Thunks::get(proc)?;
    let mem = &proc.mem;
    let fail = |why: String| Fatal {
        code: code::BAD_STACK,
        report: Some(format!(
            "winterp: RtlUnwind cannot run: {why}\n{}{}",
            report::registers(proc, t.tid, resume),
            report::recent_calls(proc)
        )),
    };
    let Some(stack) = Stack::of(t, proc, below) else {
        return Err(fail(format!(
            "the stack pointer {below:#010x} is not in any stack"
        )));
    };
    let ctx_at = (below & !3).wrapping_sub(Context::SIZE);
    let rec_at = ctx_at.wrapping_sub(ExceptionRecord::SIZE);
    let st_at = rec_at.wrapping_sub(frame::SIZE) & !15;
    let low = st_at.wrapping_sub(CALL_ROOM);
    if low >= below || !stack.holds(low, below - low) {
        return Err(fail(format!("no room on the stack below {below:#010x}")));
    }
    resume.write(mem, ctx_at)?;
    let record = if record == 0 {
        ExceptionRecord::new(code::UNWIND, resume.eip, &[]).write(mem, rec_at)?;
        rec_at
    } else {
        record
    };
    // The caller's record is marked in place, as Windows does.
    let mut flags = mem.read_u32(record + rec::FLAGS)? | flag::UNWINDING;
    if target == 0 {
        flags |= flag::EXIT_UNWIND;
    }
    mem.write_u32(record + rec::FLAGS, flags)?;
    let mut st = Frame::new(st_at, Kind::Unwind, record, ctx_at, target, depth);
    st.phase = phase;
    let first = mem.read_u32(exception_list(t))?;
    walk(t, proc, &th, &mut st, first)
}

/// Unwinds from registration record `f` on.
pub(super) fn walk(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    th: &Thunks,
    st: &mut Frame,
    mut f: u32,
) -> Result<(), Fatal> {
    let mem = &proc.mem;
    let target = st.aux;
    let Some(stack) = Stack::of(t, proc, st.at) else {
        return Err(not_found(
            t,
            proc,
            st,
            "the unwinder's frame left the stack",
        ));
    };
    loop {
        if f == target || (f == CHAIN_END && target == CHAIN_END) {
            return resume(t, proc, st.context);
        }
        if f == CHAIN_END {
            // The target was not on the chain (or this was an exit unwind): Windows
            // raises the exception again with no handler left, which ends the process.
            let why = if target == 0 {
                "an exit unwind (RtlUnwind with no target frame) reached the end of the chain"
                    .to_string()
            } else {
                format!("RtlUnwind's target frame {target:#010x} is not on the exception chain")
            };
            return Err(not_found(t, proc, st, &why));
        }
        st.count += 1;
        if st.count > stack.max_frames() {
            return Err(not_found(
                t,
                proc,
                st,
                &format!("the exception chain does not end (a cycle through {f:#010x}?)"),
            ));
        }
        if target != 0 && target < f {
            return raise(t, proc, st, code::INVALID_UNWIND_TARGET);
        }
        if !stack.frame_ok(f) {
            return raise(t, proc, st, code::BAD_STACK);
        }
        let handler = mem.read_u32(f + 4)?;
        if handler == th.top {
            // kernel32's start-up frame has nothing to unwind.
            st.current = f;
            match unlink(t, proc, st, disposition::CONTINUE_SEARCH)? {
                Step::Next(n) => {
                    f = n;
                    continue;
                }
                Step::Done => return Ok(()),
            }
        }
        if handler == th.nested
            && let Some(other) = Frame::read(mem, f, th.nested)
        {
            let flags = mem.read_u32(st.record + rec::FLAGS)?;
            let (disp, dc) = other.answer(flags);
            if let Some(v) = dc {
                st.dispatcher = v;
            }
            st.current = f;
            match unlink(t, proc, st, disp)? {
                Step::Next(n) => {
                    f = n;
                    continue;
                }
                Step::Done => return Ok(()),
            }
        }
        st.current = f;
        let args = [st.record, f, st.context, st.dispatcher_slot()];
        return call(t, proc, th, st, handler, &args);
    }
}

/// After a handler's answer during an unwind: the frame it was called for (or, after
/// a collided unwind, the frame the other unwind had reached) leaves the chain.
pub(super) fn unlink(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    st: &mut Frame,
    disp: u32,
) -> Result<Step, Fatal> {
    let f = match disp {
        disposition::CONTINUE_SEARCH => st.current,
        disposition::COLLIDED_UNWIND => st.dispatcher,
        _ => {
            raise(t, proc, st, code::INVALID_DISPOSITION)?;
            return Ok(Step::Done);
        }
    };
    let next = proc.mem.read_u32(f)?;
    proc.mem.write_u32(exception_list(t), next)?;
    Ok(Step::Next(next))
}

/// A handler returned during an unwind.
pub(super) fn after_handler(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    th: &Thunks,
    st: &mut Frame,
    disp: u32,
) -> Result<(), Fatal> {
    match unlink(t, proc, st, disp)? {
        Step::Next(n) => walk(t, proc, th, st, n),
        Step::Done => Ok(()),
    }
}

/// Raises `code` about the unwind (a bad target, frame or disposition), as
/// RtlUnwind does; during the unwind before ExitProcess the process just ends.
fn raise(t: &mut GuestThread, proc: &Arc<Process>, st: &Frame, code: u32) -> Result<(), Fatal> {
    if st.phase == phase::TERMINATING {
        return Err(quiet(proc, st));
    }
    raise_secondary(t, proc, st, code)
}

/// Ends the process with the code of the exception being unwound, without a report
/// (one was printed before the unwind began).
fn quiet(proc: &Process, st: &Frame) -> Fatal {
    Fatal {
        code: proc
            .mem
            .read_u32(st.record + rec::CODE)
            .unwrap_or(code::BAD_STACK),
        report: None,
    }
}

/// The unwind cannot complete: the exception it is for ends the process.
fn not_found(t: &GuestThread, proc: &Process, st: &Frame, why: &str) -> Fatal {
    if st.phase == phase::TERMINATING {
        return quiet(proc, st);
    }
    let mem = &proc.mem;
    match (
        ExceptionRecord::read(mem, st.record),
        Context::read(mem, st.context),
    ) {
        (Ok(r), Ok(c)) => Fatal {
            code: r.code,
            report: Some(report::unhandled(proc, t.tid, &r, &c, &[why.to_string()])),
        },
        _ => Fatal {
            code: code::BAD_STACK,
            report: Some(format!("winterp: {why}\n")),
        },
    }
}
