//! Exception dispatch (KiUserExceptionDispatcher / RtlDispatchException): the
//! EXCEPTION_RECORD and CONTEXT go on the guest stack below ESP, then every handler
//! on the FS:[0] chain is called in turn until one continues execution or takes
//! control; at the end of the chain the top-level filter runs, and then the default
//! action ends the process with a report.
//!
//! Handler calls are guest calls set up on the guest stack that return into the
//! return-from-handler thunk, where [`handler_returned`] picks the walk up again from
//! the state in the dispatcher's frame (see [`super::frame`]).

use super::frame::{self, CALL_ROOM, Frame, Kind, Stack, Thunks, exception_list, phase};
use super::layout::{CHAIN_END, Context, ExceptionRecord, code, ctx_flags, disposition, flag, rec};
use super::{Fatal, report, unwind};
use crate::process::Process;
use crate::thread::GuestThread;
use std::sync::Arc;
use winterp_core::cpu::{EAX, EBP, EBX, ECX, EDI, EDX, ESI, ESP, flags};

/// Exceptions raised while others are being dispatched, before dispatch gives up.
/// (Windows recurses until the stack is gone; a handler that faults on every call
/// would otherwise be called again for each nested exception.)
pub const MAX_NESTING: u32 = 32;

/// What a handler's answer leads to.
pub(super) enum Step {
    /// Go on with this registration record.
    Next(u32),
    /// The guest has been set up to run (a handler, a secondary exception, or the
    /// continued context).
    Done,
}

/// Starts dispatching `rec` with the thread state `ctx`, placing the dispatch
/// area below `below`.
pub(super) fn raise_at(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    below: u32,
    rec: &ExceptionRecord,
    ctx: &Context,
    depth: u32,
) -> Result<(), Fatal> {
    let th = Thunks::get(proc)?;
    let undeliverable = |why: &str| Fatal {
        code: rec.code,
        report: Some(report::unhandled(
            proc,
            t.tid,
            rec,
            ctx,
            &[format!("the exception could not be delivered: {why}")],
        )),
    };
    let Some(stack) = Stack::of(t, proc, below) else {
        return Err(undeliverable(&format!(
            "the stack pointer {below:#010x} is not in any stack"
        )));
    };
    let ctx_at = (below & !3).wrapping_sub(Context::SIZE);
    let rec_at = ctx_at.wrapping_sub(ExceptionRecord::SIZE);
    let ptrs_at = rec_at.wrapping_sub(8);
    let st_at = ptrs_at.wrapping_sub(frame::SIZE) & !15;
    let low = st_at.wrapping_sub(CALL_ROOM);
    if low >= below || !stack.holds(low, below - low) {
        return Err(undeliverable(&format!(
            "no room on the stack below {below:#010x} (stack {:#010x}..{:#x})",
            stack.lo, stack.hi
        )));
    }
    let mem = &proc.mem;
    let written = ctx
        .write(mem, ctx_at)
        .and_then(|_| rec.write(mem, rec_at))
        .and_then(|_| mem.write_u32(ptrs_at, rec_at).map(|_| ()))
        .and_then(|_| mem.write_u32(ptrs_at + 4, ctx_at).map(|_| ()));
    if let Err(f) = written {
        return Err(undeliverable(&format!(
            "the stack at {:#010x} is not writable",
            f.addr
        )));
    }
    let mut st = Frame::new(st_at, Kind::Dispatch, rec_at, ctx_at, 0, depth);
    if depth > MAX_NESTING {
        return Err(default_action(
            t,
            proc,
            &st,
            &[format!(
                "dispatch stopped: more than {MAX_NESTING} exceptions were raised while \
                 dispatching others"
            )],
        ));
    }
    let first = proc.mem.read_u32(exception_list(t))?;
    walk(t, proc, &th, &mut st, first)
}

/// Calls the handlers from registration record `f` on.
pub(super) fn walk(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    th: &Thunks,
    st: &mut Frame,
    mut f: u32,
) -> Result<(), Fatal> {
    let mem = &proc.mem;
    let Some(stack) = Stack::of(t, proc, st.at) else {
        return Err(default_action(
            t,
            proc,
            st,
            &["the dispatcher's frame left the stack".into()],
        ));
    };
    loop {
        if f == CHAIN_END {
            return end_of_chain(t, proc, th, st);
        }
        st.count += 1;
        if st.count > stack.max_frames() {
            return Err(default_action(
                t,
                proc,
                st,
                &[format!(
                    "dispatch stopped: the exception chain visits more registration records \
                     than fit on the stack (a cycle through {f:#010x}?)"
                )],
            ));
        }
        if !stack.frame_ok(f) {
            // RtlDispatchException's answer: EXCEPTION_STACK_INVALID, no handler
            // is called, and the exception is fatal.
            let flags = mem.read_u32(st.record + rec::FLAGS)?;
            mem.write_u32(st.record + rec::FLAGS, flags | flag::STACK_INVALID)?;
            let why = if f & 3 != 0 {
                "misaligned"
            } else {
                "outside the stack"
            };
            return Err(default_action(
                t,
                proc,
                st,
                &[format!(
                    "the exception chain is corrupt: registration record {f:#010x} is {why} \
                     (stack {:#010x}..{:#x})",
                    stack.lo, stack.hi
                )],
            ));
        }
        let handler = mem.read_u32(f + 4)?;
        if handler == th.top {
            // kernel32's start-up frame: its handler is the top-level filter and the
            // default action.
            st.top = f;
            st.current = f;
            return end_of_chain(t, proc, th, st);
        }
        if handler == th.nested
            && let Some(other) = Frame::read(mem, f, th.nested)
        {
            if other.kind == Kind::Unwind && other.phase == phase::TERMINATING {
                return Err(default_action(
                    t,
                    proc,
                    st,
                    &["raised while the process was ending after an unhandled exception".into()],
                ));
            }
            // The dispatcher's own record: answer here rather than through a guest call.
            let flags = mem.read_u32(st.record + rec::FLAGS)?;
            let (disp, dc) = other.answer(flags);
            if other.kind == Kind::Dispatch && disp == disposition::NESTED_EXCEPTION {
                st.depth = st.depth.max(other.depth + 1);
                if st.depth > MAX_NESTING {
                    return Err(default_action(
                        t,
                        proc,
                        st,
                        &[format!(
                            "dispatch stopped: more than {MAX_NESTING} nested exceptions \
                             (a handler that faults every time it runs?)"
                        )],
                    ));
                }
            }
            if let Some(v) = dc {
                st.dispatcher = v;
            }
            st.current = f;
            match after_handler(t, proc, st, disp)? {
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

/// What follows a frame-based handler's answer (RtlDispatchException's switch).
pub(super) fn after_handler(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    st: &mut Frame,
    disp: u32,
) -> Result<Step, Fatal> {
    let mem = &proc.mem;
    let f = st.current;
    let mut flags = mem.read_u32(st.record + rec::FLAGS)?;
    if f == st.aux {
        // Past the frame whose handler raised the nested exception.
        flags &= !flag::NESTED_CALL;
        st.aux = 0;
    }
    match disp {
        disposition::CONTINUE_EXECUTION => {
            mem.write_u32(st.record + rec::FLAGS, flags)?;
            if flags & flag::NONCONTINUABLE != 0 {
                raise_secondary(t, proc, st, code::NONCONTINUABLE_EXCEPTION)?;
            } else {
                resume(t, proc, st.context)?;
            }
            Ok(Step::Done)
        }
        disposition::CONTINUE_SEARCH => {
            mem.write_u32(st.record + rec::FLAGS, flags)?;
            Ok(Step::Next(mem.read_u32(f)?))
        }
        disposition::NESTED_EXCEPTION => {
            mem.write_u32(st.record + rec::FLAGS, flags | flag::NESTED_CALL)?;
            if st.dispatcher > st.aux {
                st.aux = st.dispatcher;
            }
            Ok(Step::Next(mem.read_u32(f)?))
        }
        _ => {
            mem.write_u32(st.record + rec::FLAGS, flags)?;
            raise_secondary(t, proc, st, code::INVALID_DISPOSITION)?;
            Ok(Step::Done)
        }
    }
}

/// The chain is exhausted: the top-level filter, then the default action.
fn end_of_chain(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    th: &Thunks,
    st: &mut Frame,
) -> Result<(), Fatal> {
    let filter = crate::kernel32::process::unhandled_filter(proc);
    if st.phase == phase::CHAIN && filter != 0 {
        st.phase = phase::FILTER;
        // EXCEPTION_POINTERS sits just below the record.
        let pointers = st.record - 8;
        return call(t, proc, th, st, filter, &[pointers]);
    }
    let report = default_action(t, proc, st, &[]).report;
    terminate(t, proc, st, report)
}

/// What follows the top-level filter's answer (kernel32's UnhandledExceptionFilter
/// and the `__except` of its start-up frame).
pub(super) fn after_filter(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    st: &mut Frame,
    answer: i32,
) -> Result<(), Fatal> {
    let r = ExceptionRecord::read(&proc.mem, st.record)?;
    if answer > 0 {
        // EXCEPTION_EXECUTE_HANDLER: the process ends quietly with the exception code.
        log::info!(
            "unhandled exception {:#010x}: the top-level filter chose to end the process",
            r.code
        );
        return terminate(t, proc, st, None);
    }
    if answer < 0 {
        if r.flags & flag::NONCONTINUABLE != 0 {
            return raise_secondary(t, proc, st, code::NONCONTINUABLE_EXCEPTION);
        }
        return resume(t, proc, st.context);
    }
    let report = default_action(t, proc, st, &[]).report;
    terminate(t, proc, st, report)
}

/// How the process ends after an unhandled exception, as kernel32's start-up frame
/// does it: `report` (Windows' error box) goes out first; then every frame on the
/// chain is unwound (so `__finally` blocks and destructors run) and the thread calls
/// ExitProcess with the exception code. Anything going wrong on the way ends the
/// process at once with that code.
fn terminate(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    st: &Frame,
    report: Option<String>,
) -> Result<(), Fatal> {
    let mem = &proc.mem;
    let code = mem.read_u32(st.record + rec::CODE)?;
    if let Some(r) = &report {
        proc.host.stderr(r.as_bytes());
    }
    let quiet = Fatal { code, report: None };
    let Some(exit) = export(proc, "ExitProcess") else {
        return Err(quiet);
    };
    let Ok(mut ctx) = Context::read(mem, st.context) else {
        return Err(quiet);
    };
    // ExitProcess(code) called from the dispatcher's frame (unlinked by now), with a
    // return address it never uses.
    let sp = st.at;
    if mem.write_u32(sp, 0).is_err() || mem.write_u32(sp + 4, code).is_err() {
        return Err(quiet);
    }
    ctx.flags |= ctx_flags::CONTROL;
    ctx.esp = sp;
    ctx.eip = exit;
    let target = if st.top != 0 { st.top } else { CHAIN_END };
    let below = t.cpu.regs[ESP].min(st.at);
    unwind::start(
        t,
        proc,
        below,
        target,
        st.record,
        &ctx,
        st.depth + 1,
        phase::TERMINATING,
    )
    .map_err(|_| quiet)
}

/// The guest address of a KERNEL32 export, if KERNEL32 has it.
fn export(proc: &Process, name: &str) -> Option<u32> {
    let d = proc.hle_dll("KERNEL32.dll")?;
    let k = proc.dlls[d].1.iter().position(|e| e.name == name)?;
    proc.export_address(d, k).ok()
}

/// Raises `code` about the exception or unwind `st` is handling (a handler continued
/// a noncontinuable exception, answered nonsense, or an unwind target is bad). The
/// new record points at the old one and carries the old context.
pub(super) fn raise_secondary(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    st: &Frame,
    code: u32,
) -> Result<(), Fatal> {
    let old = ExceptionRecord::read(&proc.mem, st.record)?;
    let ctx = Context::read(&proc.mem, st.context)?;
    let new = ExceptionRecord {
        code,
        flags: flag::NONCONTINUABLE,
        record: st.record,
        address: old.address,
        params: Vec::new(),
    };
    let below = t.cpu.regs[ESP].min(st.at);
    raise_at(t, proc, below, &new, &ctx, st.depth + 1)
}

/// Continues the thread with the (possibly edited) CONTEXT at `ctx_at` (NtContinue).
pub(super) fn resume(t: &mut GuestThread, proc: &Process, ctx_at: u32) -> Result<(), Fatal> {
    Context::read(&proc.mem, ctx_at)?.apply(&mut t.cpu);
    Ok(())
}

/// Sets the guest up to call `target` with `args` (cdecl or stdcall alike) and
/// return to the return-from-handler thunk, with the dispatcher's registration
/// record linked onto FS:[0], as RtlpExecuteHandler2 does.
pub(super) fn call(
    t: &mut GuestThread,
    proc: &Process,
    th: &Thunks,
    st: &mut Frame,
    target: u32,
    args: &[u32],
) -> Result<(), Fatal> {
    let mem = &proc.mem;
    let list = exception_list(t);
    st.next = mem.read_u32(list)?;
    st.write(mem, th.nested)?;
    mem.write_u32(list, st.at)?;
    let mut sp = st.at;
    for &a in args.iter().rev() {
        sp -= 4;
        mem.write_u32(sp, a)?;
    }
    sp -= 4;
    mem.write_u32(sp, th.ret)?;
    let cpu = &mut t.cpu;
    cpu.regs[ESP] = sp;
    cpu.eip = target;
    // RtlpExecuteHandler clears these before the call; the handler may rely on
    // nothing else either.
    for r in [EAX, EBX, ESI, EDI] {
        cpu.regs[r] = 0;
    }
    cpu.regs[ECX] = target;
    cpu.regs[EDX] = th.nested;
    cpu.regs[EBP] = st.at;
    // The calling convention's state at a call: DF clear; no single-stepping into
    // the handler.
    cpu.eflags_sys &= !(flags::DF | flags::TF);
    Ok(())
}

/// The default action for an exception nobody handled: the report; the process
/// ends with the exception code.
pub(super) fn default_action(
    t: &GuestThread,
    proc: &Process,
    st: &Frame,
    notes: &[String],
) -> Fatal {
    let mem = &proc.mem;
    let (r, c) = match (
        ExceptionRecord::read(mem, st.record),
        Context::read(mem, st.context),
    ) {
        (Ok(r), Ok(c)) => (r, c),
        _ => {
            return Fatal {
                code: code::BAD_STACK,
                report: Some(format!(
                    "winterp: unhandled exception; its record at {:#010x} is no longer readable\n",
                    st.record
                )),
            };
        }
    };
    let mut notes = notes.to_vec();
    notes.extend(outer_exceptions(t, proc, &r));
    Fatal {
        code: r.code,
        report: Some(report::unhandled(proc, t.tid, &r, &c, &notes)),
    }
}

/// A line naming the exceptions this one was raised during: those whose dispatch
/// is on the chain, and those its record points back to.
fn outer_exceptions(t: &GuestThread, proc: &Process, r: &ExceptionRecord) -> Vec<String> {
    const MAX: usize = 64;
    let mem = &proc.mem;
    // Guest addresses of the outer records, innermost first.
    let mut outer: Vec<u32> = Vec::new();
    let mut prev = r.record;
    while prev != 0 && outer.len() < MAX && !outer.contains(&prev) {
        outer.push(prev);
        prev = mem.read_u32(prev + rec::RECORD).unwrap_or(0);
    }
    if let Ok(th) = Thunks::get(proc) {
        let mut f = mem.read_u32(exception_list(t)).unwrap_or(CHAIN_END);
        for _ in 0..4096 {
            if f == CHAIN_END || outer.len() >= MAX {
                break;
            }
            if let Some(st) = Frame::read(mem, f, th.nested)
                && st.kind == Kind::Dispatch
                && !outer.contains(&st.record)
            {
                outer.push(st.record);
            }
            match mem.read_u32(f) {
                Ok(n) => f = n,
                Err(_) => break,
            }
        }
    }
    let show = |at: u32| match ExceptionRecord::read(mem, at) {
        Ok(o) => format!(
            "{} at {}",
            report::describe(&o),
            report::location(proc, o.address)
        ),
        Err(_) => format!("(record at {at:#010x} unreadable)"),
    };
    match outer.as_slice() {
        [] => Vec::new(),
        [one] => vec![format!("raised while dispatching {}", show(*one))],
        [inner, .., first] => vec![format!(
            "raised while dispatching {} other exceptions: the latest {}; the first {}",
            outer.len(),
            show(*inner),
            show(*first)
        )],
    }
}
