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
    s += &code_bytes(proc, ctx.eip);
    s += &stack(proc, ctx.esp);
    s += &backtrace(proc, ctx.ebp);
    s += &recent_calls(proc);
    s
}

/// What Dr. Watson's logs call "code bytes": 16 bytes either side of `eip`, the
/// faulting one bracketed, `??` where unreadable, so the code before the fault can
/// be disassembled by hand (the report's single decoded instruction cannot say how
/// the program got there).
pub fn code_bytes(proc: &Process, eip: u32) -> String {
    const AROUND: u32 = 16;
    let mut s = format!("  code at {:#010x}:", eip.wrapping_sub(AROUND));
    for k in 0..2 * AROUND {
        let a = eip.wrapping_sub(AROUND).wrapping_add(k);
        let b = proc
            .mem
            .read_u8(a)
            .map_or("??".to_string(), |b| format!("{b:02x}"));
        if a == eip {
            s += &format!(" [{b}]");
        } else {
            s += &format!(" {b}");
        }
    }
    s + "\n"
}

/// The 16 dwords at `esp`, each a module offset too where it points into one (a
/// return address, most likely).
pub fn stack(proc: &Process, esp: u32) -> String {
    let mut s = "  stack:\n".to_string();
    for k in 0..16u32 {
        let a = esp.wrapping_add(4 * k);
        match proc.mem.read_u32(a) {
            Ok(v) => {
                let in_module = proc
                    .locate(v)
                    .map(|(m, off)| format!("  ({m}+{off:#x})"))
                    .unwrap_or_default();
                s += &format!("    {a:08x}: {v:08x}{in_module}\n");
            }
            Err(_) => {
                s += &format!("    {a:08x}: (unreadable)\n");
                break;
            }
        }
    }
    s
}

/// Return addresses found by following the frame-pointer chain from `ebp` (the
/// `push ebp; mov ebp, esp` frames compilers of the era emit), up to 16 frames;
/// stops at a frame that does not lie above the last or cannot be read.
pub fn backtrace(proc: &Process, ebp: u32) -> String {
    let mut s = String::new();
    let mut frame = ebp;
    for _ in 0..16 {
        let (Ok(next), Ok(ret)) = (
            proc.mem.read_u32(frame),
            proc.mem.read_u32(frame.wrapping_add(4)),
        ) else {
            break;
        };
        if frame == 0 || ret == 0 {
            break;
        }
        s += &format!(
            "    frame {frame:08x}: returns to {}\n",
            location(proc, ret)
        );
        if next <= frame {
            break;
        }
        frame = next;
    }
    if s.is_empty() {
        format!("  backtrace: none (ebp {ebp:#010x} is not a readable frame)\n")
    } else {
        format!("  backtrace (ebp chain):\n{s}")
    }
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
