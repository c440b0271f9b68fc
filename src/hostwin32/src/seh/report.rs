//! The report winterp prints where Windows would show its "this program has
//! performed an illegal operation" box: the exception, where it happened (module and
//! offset, the instruction), the registers and the last API calls.

use super::insn;
use super::layout::{Context, ExceptionRecord, access, code, code_name};
use crate::process::Process;

/// "0xC0000005 EXCEPTION_ACCESS_VIOLATION" and the details the parameters give.
pub fn describe(rec: &ExceptionRecord) -> String {
    let mut s = format!("{:#010X}", rec.code).replacen("0X", "0x", 1);
    if let Some(n) = code_name(rec.code) {
        s += &format!(" {n}");
    }
    let p = &rec.params;
    match rec.code {
        code::ACCESS_VIOLATION | code::GUARD_PAGE_VIOLATION | code::IN_PAGE_ERROR
            if p.len() >= 2 =>
        {
            let what = match p[0] {
                access::READ => "reading",
                access::WRITE => "writing",
                access::EXECUTE => "executing",
                _ => "accessing",
            };
            s += &format!(": {what} address {:#010x}", p[1]);
        }
        _ if !p.is_empty() => {
            let list: Vec<String> = p.iter().map(|v| format!("{v:#x}")).collect();
            s += &format!(" (parameters {})", list.join(", "));
        }
        _ => {}
    }
    s
}

/// `0x00401234 (PROG.EXE+0x1234)`.
pub fn location(proc: &Process, addr: u32) -> String {
    match proc.locate(addr) {
        Some((m, off)) => format!("{addr:#010x} ({m}+{off:#x})"),
        None => format!("{addr:#010x}"),
    }
}

/// The full report for an exception nobody handled. `notes` are extra lines (why
/// dispatch stopped, the exceptions being dispatched when this one was raised).
pub fn unhandled(
    proc: &Process,
    tid: u32,
    rec: &ExceptionRecord,
    ctx: &Context,
    notes: &[String],
) -> String {
    let mut s = format!("winterp: unhandled exception {}\n", describe(rec));
    s += &format!(
        "  at {}: {}\n",
        location(proc, rec.address),
        insn::disassemble(&proc.mem, rec.address)
    );
    for n in notes {
        s += &format!("  {n}\n");
    }
    s += &registers(proc, tid, ctx);
    s += &recent_calls(proc);
    s
}

/// Thread, EIP and the registers of a CONTEXT.
pub fn registers(proc: &Process, tid: u32, c: &Context) -> String {
    format!(
        "  thread {tid} eip {}\n  eax={:08x} ecx={:08x} edx={:08x} ebx={:08x}\n  \
         esp={:08x} ebp={:08x} esi={:08x} edi={:08x}\n  eflags={:08x} fpu cw={:04x} sw={:04x}\n",
        location(proc, c.eip),
        c.eax,
        c.ecx,
        c.edx,
        c.ebx,
        c.esp,
        c.ebp,
        c.esi,
        c.edi,
        c.eflags,
        u16::from_le_bytes([c.float_save[0], c.float_save[1]]),
        u16::from_le_bytes([c.float_save[4], c.float_save[5]]),
    )
}

pub fn recent_calls(proc: &Process) -> String {
    let calls = proc.recent_calls.lock().unwrap_or_else(|e| e.into_inner());
    if calls.is_empty() {
        return String::new();
    }
    let mut s = "  last API calls:\n".to_string();
    for c in calls.iter() {
        s += &format!("    {c}\n");
    }
    s
}
