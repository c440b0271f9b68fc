//! Structured exception handling for guest threads, as Win32 on i386 does it.
//!
//! A guest exception from the executor (state as before the faulting instruction)
//! becomes an EXCEPTION_RECORD with the code and parameters Windows NT's trap
//! handlers give it, and a CONTEXT; both go on the guest stack and the handlers on
//! the FS:[0] registration chain are called with them (`__cdecl`
//! EXCEPTION_DISPOSITION handlers). A handler may continue execution with the
//! (possibly edited) context, pass the exception on, or take control itself, usually
//! after RtlUnwind. When the chain ends (or reaches the thread's start-up record,
//! [`install_top_frame`]), the top-level filter (SetUnhandledExceptionFilter) is
//! asked; unless it continues execution, the default action prints a report to the
//! host's standard error (where Windows shows its error box; not when the filter chose
//! EXCEPTION_EXECUTE_HANDLER), unwinds the chain and calls ExitProcess with the
//! exception code. A chain that is corrupt, an exception with no room on the stack, or
//! runaway nesting ends the process at once with the report.
//!
//! Dispatch runs in guest time: every handler call is a guest call that returns to
//! an HLE thunk (the `__winterp_seh_return` export of KERNEL32), and all state
//! between calls lives in a registration record the dispatcher keeps on the guest
//! stack (see `frame.rs`), as ntdll's dispatcher does. So handlers that never return
//! (an `__except` block, a C++ catch, a longjmp out of a handler) leave nothing
//! behind on the host, and a thread in the middle of a dispatch is scheduled like any
//! other.
//!
//! Entry points: [`dispatch`] (executor exceptions), [`raise`] (RaiseException and
//! any HLE code that raises), [`unwind_then`] (RtlUnwind; longjmp), [`install_top_frame`]
//! (thread start-up), and the thunks' functions [`handler_returned`] and
//! [`nested_handler`].

mod dispatch;
mod frame;
pub mod insn;
pub mod layout;
pub mod report;
mod unwind;

pub use layout::{CHAIN_END, Context, ExceptionRecord, code, disposition, filter, flag};
pub use unwind::unwind_then;

use crate::hle::Outcome;
use crate::process::Process;
use crate::thread::{GuestThread, ThreadEnd};
use frame::{Frame, Kind, Thunks, exception_list, phase};
use std::sync::Arc;
use winterp_core::cpu::{EAX, EBP, ECX, EDX, ESP, flags};
use winterp_core::mem::{Access, Fault};
use winterp_core::{Exception, ExceptionKind};

/// KERNEL32 export handlers return to: continues the dispatch or unwind.
pub const RETURN_EXPORT: &str = "__winterp_seh_return";
/// KERNEL32 export that is the handler of the dispatcher's registration records.
pub const NESTED_EXPORT: &str = "__winterp_seh_nested";
/// KERNEL32 export that is the handler of every thread's start-up registration record
/// (see [`install_top_frame`]).
pub const TOP_EXPORT: &str = "__winterp_seh_top";

/// Exception dispatch ends the process: `code` is the exit code; `report` (if any)
/// goes to standard error first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fatal {
    pub code: u32,
    pub report: Option<String>,
}

impl From<Fault> for Fatal {
    fn from(f: Fault) -> Fatal {
        Fatal {
            code: code::ACCESS_VIOLATION,
            report: Some(format!(
                "winterp: exception dispatch failed: guest memory at {:#010x} is not accessible\n",
                f.addr
            )),
        }
    }
}

impl Fatal {
    fn emit(&self, proc: &Process) {
        if let Some(r) = &self.report {
            proc.host.stderr(r.as_bytes());
        }
    }

    /// Ends the process from the thread's run loop.
    pub fn end_thread(self, proc: &Process) -> ThreadEnd {
        self.emit(proc);
        proc.set_exit(self.code);
        ThreadEnd::ProcessExit(self.code)
    }

    /// Ends the process from inside an API.
    pub fn into_outcome(self, proc: &Process) -> Outcome {
        self.emit(proc);
        Outcome::ExitProcess(self.code)
    }
}

/// The result of an API that started or continued a dispatch or unwind: the guest
/// resumes where that put it, or the process ends.
pub fn outcome(proc: &Process, r: Result<(), Fatal>) -> Outcome {
    match r {
        Ok(()) => Outcome::Resume,
        Err(f) => f.into_outcome(proc),
    }
}

/// Delivers an exception from the executor to the guest's handlers. `Err` ends the
/// thread: an instruction winterp does not implement (a report, never SEH) or the
/// end of the process.
pub fn dispatch(t: &mut GuestThread, proc: &Arc<Process>, e: Exception) -> Result<(), ThreadEnd> {
    if let ExceptionKind::Unimplemented(m) = e.kind {
        let at = report::location(proc, e.eip);
        let text = insn::disassemble(&proc.mem, e.eip);
        return Err(ThreadEnd::Crashed(t.report(
            proc,
            &format!("instruction {m:?} is not implemented by winterp; at {at}: {text}"),
        )));
    }
    let (rec, ctx) = translate(t, &e);
    // The handlers run with the kernel's user data segments, whatever the faulting
    // code had loaded (a null ES, say); the CONTEXT records those. NtContinue does
    // not load them back (`Context::apply`): the flat selectors stay.
    t.cpu.reset_data_segments();
    if e.kind == ExceptionKind::FloatingPoint {
        // The CONTEXT keeps the pending exception; the handlers themselves get an
        // FPU they can use (Windows saves and reloads the state around them).
        t.cpu.fpu.sw &= !0x80ff;
    }
    raise(t, proc, &rec, &ctx).map_err(|f| f.end_thread(proc))
}

/// The EXCEPTION_RECORD and CONTEXT Windows NT builds for a processor exception
/// (the kernel's trap handlers and KiDispatchException).
fn translate(t: &GuestThread, e: &Exception) -> (ExceptionRecord, Context) {
    let cpu = &t.cpu;
    let mut ctx = Context::capture(cpu);
    ctx.eip = e.eip;
    let access = |a: Access| match a {
        Access::Read => layout::access::READ,
        Access::Write => layout::access::WRITE,
        Access::Execute => layout::access::EXECUTE,
    };
    let new = ExceptionRecord::new;
    let rec = match e.kind {
        ExceptionKind::AccessViolation(a) => {
            new(code::ACCESS_VIOLATION, e.eip, &[access(a), e.addr])
        }
        ExceptionKind::GuardPage(a) => new(code::GUARD_PAGE_VIOLATION, e.eip, &[access(a), e.addr]),
        ExceptionKind::DivideError => {
            // #DE is also a quotient that does not fit; the kernel tells the two apart
            // by looking at the divisor.
            let c = match insn::divisor_is_zero(cpu, e.eip) {
                Some(false) => code::INTEGER_OVERFLOW,
                _ => code::INTEGER_DIVIDE_BY_ZERO,
            };
            new(c, e.eip, &[])
        }
        ExceptionKind::Breakpoint => {
            // The trap leaves EIP after the INT3; the kernel reports the byte before
            // it and moves the context's EIP back there too, so a handler that
            // continues without changing EIP runs the INT3 again.
            let at = e.eip + insn::length(&cpu.mem, e.eip) - 1;
            ctx.eip = at;
            // BREAKPOINT_BREAK and the ECX/EDX a debug service would pass.
            new(code::BREAKPOINT, at, &[0, cpu.regs[ECX], cpu.regs[EDX]])
        }
        // `INT 4` goes through the same user-accessible gate as INTO.
        ExceptionKind::Overflow | ExceptionKind::SoftwareInterrupt(4) => {
            // INTO traps: the context continues after it, the address is the INTO.
            let next = e.eip + insn::length(&cpu.mem, e.eip);
            ctx.eip = next;
            new(code::INTEGER_OVERFLOW, next - 1, &[])
        }
        ExceptionKind::Int1 => {
            // ICEBP raises #DB as a trap: the kernel's debug trap handler reports
            // the trap frame's EIP, after the instruction, in the record and the
            // context alike (no parameters).
            let next = e.eip + insn::length(&cpu.mem, e.eip);
            ctx.eip = next;
            new(code::SINGLE_STEP, next, &[])
        }
        ExceptionKind::BoundRange => new(code::ARRAY_BOUNDS_EXCEEDED, e.eip, &[]),
        ExceptionKind::InvalidOpcode => {
            let c = if insn::has_lock_prefix(&cpu.mem, e.eip) {
                code::INVALID_LOCK_SEQUENCE
            } else {
                code::ILLEGAL_INSTRUCTION
            };
            new(c, e.eip, &[])
        }
        ExceptionKind::Privileged => new(code::PRIVILEGED_INSTRUCTION, e.eip, &[]),
        // INT n through a kernel-only gate and a segment load or far transfer
        // naming a selector user mode may not use are general-protection faults,
        // which user mode sees as an access violation reading 0xFFFFFFFF.
        ExceptionKind::SoftwareInterrupt(_) | ExceptionKind::GeneralProtection => new(
            code::ACCESS_VIOLATION,
            e.eip,
            &[layout::access::READ, 0xffff_ffff],
        ),
        ExceptionKind::FloatingPoint => fpu_record(t, e.eip),
        ExceptionKind::SingleStep => {
            ctx.eflags &= !flags::TF;
            new(code::SINGLE_STEP, e.eip, &[])
        }
        ExceptionKind::Unimplemented(_) => unreachable!("handled by the caller"),
    };
    (rec, ctx)
}

/// The record for an unmasked x87 exception: the first unmasked one in the
/// kernel's order of priority, at the address of the x87 instruction that caused it.
fn fpu_record(t: &GuestThread, eip: u32) -> ExceptionRecord {
    const IE: u16 = 0x01;
    const DE: u16 = 0x02;
    const ZE: u16 = 0x04;
    const OE: u16 = 0x08;
    const UE: u16 = 0x10;
    const PE: u16 = 0x20;
    const SF: u16 = 0x40;
    let f = &t.cpu.fpu;
    let err = f.sw & !(f.cw & 0x3f);
    let at = if f.fip != 0 { f.fip } else { eip };
    let one = |c| ExceptionRecord::new(c, at, &[0]);
    if err & IE != 0 {
        if err & SF != 0 {
            return ExceptionRecord::new(code::FLOAT_STACK_CHECK, at, &[0, f.fdp]);
        }
        return one(code::FLOAT_INVALID_OPERATION);
    }
    if err & ZE != 0 {
        return one(code::FLOAT_DIVIDE_BY_ZERO);
    }
    if err & DE != 0 {
        // Windows reports a denormal operand as an invalid operation.
        return one(code::FLOAT_INVALID_OPERATION);
    }
    if err & OE != 0 {
        return one(code::FLOAT_OVERFLOW);
    }
    if err & UE != 0 {
        return one(code::FLOAT_UNDERFLOW);
    }
    if err & PE != 0 {
        return one(code::FLOAT_INEXACT_RESULT);
    }
    one(code::FLOAT_INVALID_OPERATION)
}

/// Dispatches `rec` with the thread state `ctx` (ctx.Eip is where execution
/// continues if a handler says so). The dispatch area goes below the current ESP.
/// On `Ok` the guest is set up to run the first handler (or to continue).
pub fn raise(
    t: &mut GuestThread,
    proc: &Arc<Process>,
    rec: &ExceptionRecord,
    ctx: &Context,
) -> Result<(), Fatal> {
    let below = t.cpu.regs[ESP];
    dispatch::raise_at(t, proc, below, rec, ctx, 0)
}

/// A handler (or the top-level filter) called by the dispatcher or the unwinder
/// returned with its answer in EAX: take the next step.
pub fn handler_returned(t: &mut GuestThread, proc: &Arc<Process>) -> Result<(), Fatal> {
    let th = Thunks::get(proc)?;
    let mem = &proc.mem;
    let list = exception_list(t);
    let top = mem.read_u32(list)?;
    // The dispatcher's record is normally still the head of the chain. A handler
    // may have unlinked it (RtlUnwind to its own frame, then returning instead of
    // jumping to its except block); Windows' RtlpExecuteHandler2 finds its way back
    // through EBP, which it set to its frame before the call and the handler had
    // to preserve, and so does winterp.
    let found =
        Frame::read(mem, top, th.nested).or_else(|| Frame::read(mem, t.cpu.regs[EBP], th.nested));
    let Some(mut st) = found else {
        return Err(Fatal {
            code: code::BAD_STACK,
            report: Some(format!(
                "winterp: an exception handler returned, but neither FS:[0] ({top:#010x}) \
                 nor EBP ({:#010x}) is the dispatcher's registration record: the handler \
                 changed the exception chain and did not preserve EBP\n{}",
                t.cpu.regs[EBP],
                t.report(proc, "where the handler returned to the dispatcher")
            )),
        });
    };
    // Unlink the head, as RtlpExecuteHandler2 does after the call (`mov esp,
    // fs:[0]; pop fs:[0]`): when the handler left the chain alone that is the
    // dispatcher's record; otherwise whatever record the handler left on top goes.
    let next = if top == st.at {
        st.next
    } else {
        mem.read_u32(top)?
    };
    mem.write_u32(list, next)?;
    let answer = t.cpu.regs[EAX];
    match st.kind {
        Kind::Dispatch if st.phase == phase::FILTER => {
            dispatch::after_filter(t, proc, &mut st, answer as i32)
        }
        Kind::Dispatch => match dispatch::after_handler(t, proc, &mut st, answer)? {
            dispatch::Step::Next(n) => dispatch::walk(t, proc, &th, &mut st, n),
            dispatch::Step::Done => Ok(()),
        },
        Kind::Unwind => unwind::after_handler(t, proc, &th, &mut st, answer),
    }
}

/// Links the registration record Windows' thread start-up code (BaseProcessStart,
/// BaseThreadStart) has around every thread onto the FS:[0] chain, on the thread's
/// stack: call it before the thread's entry point is set up. Its handler stands for
/// that frame's `__except (UnhandledExceptionFilter(...))`: reaching it in a
/// dispatch runs the top-level filter and the default action, and it is where the
/// unwind before ExitProcess stops.
pub fn install_top_frame(t: &mut GuestThread, proc: &Arc<Process>) -> Result<(), Fatal> {
    let th = Thunks::get(proc)?;
    let mem = &proc.mem;
    let list = exception_list(t);
    let next = mem.read_u32(list)?;
    let sp = t.cpu.regs[ESP].wrapping_sub(8);
    mem.write_u32(sp, next)?;
    mem.write_u32(sp + 4, th.top)?;
    mem.write_u32(list, sp)?;
    t.cpu.regs[ESP] = sp;
    Ok(())
}

/// The handler of the dispatcher's registration records, for guest code that calls
/// it (the dispatcher answers for its own records without a call).
pub fn nested_handler(proc: &Process, record: u32, frame: u32, dispatcher: u32) -> u32 {
    let Ok(th) = Thunks::get(proc) else {
        return disposition::CONTINUE_SEARCH;
    };
    let Some(st) = Frame::read(&proc.mem, frame, th.nested) else {
        return disposition::CONTINUE_SEARCH;
    };
    let flags = proc.mem.read_u32(record + layout::rec::FLAGS).unwrap_or(0);
    let (answer, dc) = st.answer(flags);
    if let Some(v) = dc
        && proc.mem.write_u32(dispatcher, v).is_err()
    {
        return disposition::CONTINUE_SEARCH;
    }
    answer
}

/// The report for the EXCEPTION_POINTERS at `pointers` (for UnhandledExceptionFilter's
/// default action), or `None` if they are unreadable.
pub fn pointers_report(proc: &Process, tid: u32, pointers: u32) -> Option<String> {
    let mem = &proc.mem;
    let rec = ExceptionRecord::read(mem, mem.read_u32(pointers).ok()?).ok()?;
    let ctx = Context::read(mem, mem.read_u32(pointers.wrapping_add(4)).ok()?).ok()?;
    Some(report::unhandled(proc, tid, &rec, &ctx, &[]))
}
