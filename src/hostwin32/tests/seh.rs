//! Structured exception handling end to end: guest code (assembled with iced-x86)
//! installs handlers on the FS:[0] chain, faults or raises, and the dispatcher must
//! hand the handlers the EXCEPTION_RECORD and CONTEXT Windows NT does, continue with
//! an edited context, unwind, and end the process with a report when nothing handles
//! the exception. Expected values come from the documented Win32 structures and the
//! NT kernel's trap handling (ExceptionAddress, parameters, CONTEXT.Eip).

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::mem::Prot;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::thread::{GuestThread, ThreadEnd};

const CODE: u32 = 0x0040_0000;
const DATA: u32 = 0x0050_0000;
const STACK: u32 = 0x0060_0000;
const STACK_SIZE: u32 = 0x1_0000;
const TEB: u32 = 0x0070_0000;

// Code snippets at fixed addresses, so that handlers can name them.
const HANDLER: u32 = CODE;
const HANDLER2: u32 = CODE + 0x400;
const MAIN: u32 = CODE + 0x800;
const FAULT: u32 = CODE + 0xc00;
const RESUME: u32 = CODE + 0x1000;
const EXTRA: u32 = CODE + 0x1400;

// What the recording handler writes (offsets from DATA).
const CALLS: u32 = 0x00;
const R_CODE: u32 = 0x04;
const R_FLAGS: u32 = 0x08;
const R_ADDRESS: u32 = 0x0c;
const R_NPARAMS: u32 = 0x10;
const R_INFO0: u32 = 0x14;
const R_INFO1: u32 = 0x18;
const R_INFO2: u32 = 0x1c;
const C_EIP: u32 = 0x20;
const C_ESP: u32 = 0x24;
const C_EFLAGS: u32 = 0x28;
const C_FLAGS: u32 = 0x2c;
const H_FRAME: u32 = 0x30;
const R_RECORD: u32 = 0x34;
const C_EAX: u32 = 0x38;
const H_ESP: u32 = 0x3c;
/// ESP right after MAIN installed its registration record.
const SAVED_ESP: u32 = 0x40;
const H_CONTEXT: u32 = 0x44;
const R_INNER_CODE: u32 = 0x48;
const C_FPU_SW: u32 = 0x4c;
/// Free for individual tests.
const SCRATCH: u32 = 0x80;
const BUF: u32 = 0x200;

struct Guest {
    proc: Arc<Process>,
    host: Arc<CaptureHost>,
    t: GuestThread,
}

impl Guest {
    fn new() -> Guest {
        let host = Arc::new(CaptureHost::default());
        let config = ProcessConfig::new("/nonexistent/SEH.EXE".into(), r"C:\SEH.EXE".into());
        let proc = Process::new(config, host.clone(), &winterp_hostwin32::hle_dlls()).unwrap();
        {
            let mut vm = proc.vm.lock().unwrap();
            vm.alloc(Some(CODE), 0x1_0000, Prot::RWX, "code").unwrap();
            vm.alloc(Some(DATA), 0x1000, Prot::RW, "data").unwrap();
            vm.alloc(Some(STACK), STACK_SIZE, Prot::RW, "stack")
                .unwrap();
            vm.alloc(Some(TEB), 0x1000, Prot::RW, "TEB").unwrap();
        }
        let m = &proc.mem;
        m.write_u32(TEB, 0xffff_ffff).unwrap(); // ExceptionList: empty chain
        m.write_u32(TEB + 4, STACK + STACK_SIZE).unwrap(); // StackBase
        m.write_u32(TEB + 8, STACK).unwrap(); // StackLimit
        m.write_u32(TEB + 0x18, TEB).unwrap(); // Self
        let mut t = GuestThread::new(&proc, 4, TEB);
        t.cpu.regs[4] = STACK + STACK_SIZE - 0x40;
        Guest { proc, host, t }
    }

    fn asm(&self, at: u32, build: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>) {
        let mut a = CodeAssembler::new(32).unwrap();
        build(&mut a).unwrap();
        let bytes = a.assemble(at as u64).unwrap();
        self.proc.mem.write_bytes(at, &bytes).unwrap();
    }

    fn api(&self, name: &str) -> u64 {
        self.proc.resolve_hle("KERNEL32.dll", name).unwrap() as u64
    }

    fn run(&mut self) -> ThreadEnd {
        self.t.start_at(MAIN, &[]).unwrap();
        self.t.run(&self.proc)
    }

    fn data(&self, off: u32) -> u32 {
        self.proc.mem.read_u32(DATA + off).unwrap()
    }

    fn set(&self, off: u32, v: u32) {
        self.proc.mem.write_u32(DATA + off, v).unwrap();
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.host.err.lock().unwrap()).to_string()
    }

    /// MAIN: saves the callee-saved registers, installs `handler` as the only
    /// registration record, runs `body`, which must end by jumping somewhere.
    fn main(&self, handler: u32, body: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>) {
        self.asm(MAIN, |a| {
            push_regs(a)?;
            install(a, handler)?;
            a.mov(dword_ptr(DATA + SAVED_ESP), esp)?;
            body(a)
        });
    }

    /// RESUME: back at the ESP MAIN saved, removes the registration record and
    /// returns EAX from the thread.
    fn resume(&self) {
        self.asm(RESUME, |a| {
            a.mov(esp, dword_ptr(DATA + SAVED_ESP))?;
            a.pop(dword_ptr(0).fs())?;
            a.add(esp, 4)?;
            pop_regs(a)?;
            a.ret()
        });
    }
}

fn push_regs(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.push(ebx)?;
    a.push(esi)?;
    a.push(edi)?;
    a.push(ebp)
}

fn pop_regs(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.pop(ebp)?;
    a.pop(edi)?;
    a.pop(esi)?;
    a.pop(ebx)
}

/// Pushes an EXCEPTION_REGISTRATION_RECORD for `handler` and links it in.
fn install(a: &mut CodeAssembler, handler: u32) -> Result<(), IcedError> {
    a.push(handler)?;
    a.push(dword_ptr(0).fs())?;
    a.mov(dword_ptr(0).fs(), esp)
}

/// Handler prologue: counts the call and copies the record and context fields into
/// DATA. Leaves EAX = the CONTEXT pointer.
fn record(a: &mut CodeAssembler) -> Result<(), IcedError> {
    let mut no_inner = a.create_label();
    a.inc(dword_ptr(DATA + CALLS))?;
    a.mov(dword_ptr(DATA + H_ESP), esp)?;
    a.mov(eax, dword_ptr(esp + 4))?;
    for (src, dst) in [
        (0x00, R_CODE),
        (0x04, R_FLAGS),
        (0x08, R_RECORD),
        (0x0c, R_ADDRESS),
        (0x10, R_NPARAMS),
        (0x14, R_INFO0),
        (0x18, R_INFO1),
        (0x1c, R_INFO2),
    ] {
        a.mov(ecx, dword_ptr(eax + src))?;
        a.mov(dword_ptr(DATA + dst), ecx)?;
    }
    a.mov(ecx, dword_ptr(eax + 8))?;
    a.test(ecx, ecx)?;
    a.jz(no_inner)?;
    a.mov(ecx, dword_ptr(ecx))?;
    a.mov(dword_ptr(DATA + R_INNER_CODE), ecx)?;
    a.set_label(&mut no_inner)?;
    a.mov(ecx, dword_ptr(esp + 8))?;
    a.mov(dword_ptr(DATA + H_FRAME), ecx)?;
    a.mov(eax, dword_ptr(esp + 12))?;
    a.mov(dword_ptr(DATA + H_CONTEXT), eax)?;
    for (src, dst) in [
        (0xb8, C_EIP),
        (0xc4, C_ESP),
        (0xc0, C_EFLAGS),
        (0x00, C_FLAGS),
        (0xb0, C_EAX),
        (0x20, C_FPU_SW),
    ] {
        a.mov(ecx, dword_ptr(eax + src))?;
        a.mov(dword_ptr(DATA + dst), ecx)?;
    }
    Ok(())
}

/// A handler that records, sets CONTEXT.Eip = RESUME and Eax = `eax`, and returns
/// ExceptionContinueExecution.
fn resuming_handler(g: &Guest, at: u32, eax_value: u32) {
    g.asm(at, |a| {
        record(a)?;
        a.mov(dword_ptr(eax + 0xb8), RESUME)?;
        a.mov(dword_ptr(eax + 0xb0), eax_value)?;
        a.xor(eax, eax)?;
        a.ret()
    });
}

fn exited(end: ThreadEnd) -> u32 {
    match end {
        ThreadEnd::Exited(v) => v,
        other => panic!("thread did not exit normally: {other:?}"),
    }
}

#[test]
fn access_violation_reaches_the_handler_with_record_and_context() {
    let mut g = Guest::new();
    resuming_handler(&g, HANDLER, 0x600d);
    g.main(HANDLER, |a| {
        a.mov(eax, 0x1234)?;
        a.stc()?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.mov(dword_ptr(eax), 7)?;
        a.mov(eax, 0xbad)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0x600d);
    assert_eq!(g.data(CALLS), 1);
    assert_eq!(g.data(R_CODE), 0xc000_0005);
    assert_eq!(g.data(R_FLAGS), 0);
    assert_eq!(g.data(R_RECORD), 0);
    assert_eq!(g.data(R_ADDRESS), FAULT);
    assert_eq!(g.data(R_NPARAMS), 2);
    assert_eq!(g.data(R_INFO0), 1, "write access");
    assert_eq!(g.data(R_INFO1), 0x1234);
    assert_eq!(g.data(C_EIP), FAULT);
    assert_eq!(g.data(C_EAX), 0x1234);
    let frame = g.data(SAVED_ESP);
    assert_eq!(g.data(C_ESP), frame, "ESP at the fault");
    assert_eq!(g.data(H_FRAME), frame, "EstablisherFrame");
    assert_eq!(
        g.data(C_FLAGS),
        0x1000f,
        "CONTEXT_FULL | CONTEXT_FLOATING_POINT"
    );
    assert_eq!(g.data(C_EFLAGS) & 1, 1, "CF set before the fault");
    assert_eq!(g.data(C_EFLAGS) & 0x200, 0x200, "IF");
    // The record and context are on the stack below the faulting ESP, and the
    // handler runs below them.
    let ctx = g.data(H_CONTEXT);
    assert!(ctx < frame && ctx >= STACK);
    assert!(g.data(H_ESP) < ctx);
    // The chain is back as it was when the handler continued.
    assert_eq!(g.proc.mem.read_u32(TEB).unwrap(), 0xffff_ffff);
}

#[test]
fn handler_edits_registers_and_flags_and_the_instruction_is_retried() {
    let mut g = Guest::new();
    g.set(BUF, 0x77);
    g.asm(HANDLER, |a| {
        record(a)?;
        a.mov(dword_ptr(eax + 0xb0), DATA + BUF)?; // Eax: a readable address
        a.or(dword_ptr(eax + 0xc0), 1)?; // EFlags: set CF
        a.xor(eax, eax)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.xor(eax, eax)?;
        a.clc()?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.mov(ecx, dword_ptr(eax))?;
        a.adc(ecx, 0)?;
        a.mov(eax, ecx)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(
        exited(g.run()),
        0x78,
        "0x77 read after the retry, plus the CF the handler set"
    );
    assert_eq!(g.data(CALLS), 1);
    assert_eq!(g.data(R_INFO0), 0, "read access");
    assert_eq!(g.data(R_INFO1), 0);
    assert_eq!(g.data(C_EFLAGS) & 1, 0, "CF was clear at the fault");
}

/// Runs FAULT's single faulting instruction (after `setup` in MAIN) under a
/// recording handler that resumes; returns the recorded code.
fn fault_code(
    setup: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    fault: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
) -> Guest {
    let mut g = Guest::new();
    resuming_handler(&g, HANDLER, 1);
    g.main(HANDLER, |a| {
        setup(a)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, fault);
    g.resume();
    assert_eq!(exited(g.run()), 1);
    assert_eq!(g.data(CALLS), 1);
    g
}

#[test]
fn divide_errors_are_told_apart_by_the_divisor() {
    let g = fault_code(
        |a| {
            a.mov(eax, 5)?;
            a.xor(edx, edx)?;
            a.xor(ecx, ecx)
        },
        |a| a.div(ecx),
    );
    assert_eq!(g.data(R_CODE), 0xc000_0094, "EXCEPTION_INT_DIVIDE_BY_ZERO");
    assert_eq!(g.data(R_ADDRESS), FAULT);
    assert_eq!(g.data(R_NPARAMS), 0);
    assert_eq!(g.data(C_EIP), FAULT);

    let g = fault_code(
        |a| {
            a.mov(eax, 0x8000_0000u32)?;
            a.mov(edx, -1)?;
            a.mov(ecx, -1)
        },
        |a| a.idiv(ecx),
    );
    assert_eq!(
        g.data(R_CODE),
        0xc000_0095,
        "quotient overflow: EXCEPTION_INT_OVERFLOW"
    );

    let g = fault_code(
        |a| {
            a.mov(dword_ptr(DATA + BUF), 0)?;
            a.mov(eax, 9)?;
            a.xor(edx, edx)
        },
        |a| a.div(dword_ptr(DATA + BUF)),
    );
    assert_eq!(g.data(R_CODE), 0xc000_0094, "memory divisor of zero");
}

#[test]
fn breakpoint_reports_the_int3_and_continuing_needs_eip_moved() {
    let mut g = Guest::new();
    g.asm(HANDLER, |a| {
        record(a)?;
        a.inc(dword_ptr(eax + 0xb8))?; // step over the INT3
        a.xor(eax, eax)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.mov(ecx, 0x1c)?;
        a.mov(edx, 0x1d)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.int3()?;
        a.mov(eax, 0xb00)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0xb00);
    assert_eq!(g.data(R_CODE), 0x8000_0003);
    assert_eq!(g.data(R_ADDRESS), FAULT);
    assert_eq!(
        g.data(C_EIP),
        FAULT,
        "NT moves CONTEXT.Eip back to the INT3"
    );
    // BREAKPOINT_BREAK, then ECX and EDX (the kernel's debug-service arguments).
    assert_eq!(g.data(R_NPARAMS), 3);
    assert_eq!(g.data(R_INFO0), 0);
    assert_eq!(g.data(R_INFO1), 0x1c);
    assert_eq!(g.data(R_INFO2), 0x1d);
}

#[test]
fn into_is_a_trap_reported_at_the_into() {
    let mut g = Guest::new();
    g.asm(HANDLER, |a| {
        record(a)?;
        a.xor(eax, eax)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.mov(al, 0x7f)?;
        a.add(al, 1)?; // OF
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.into()?;
        a.mov(eax, 0x1d0)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0x1d0, "continuing resumes after the INTO");
    assert_eq!(g.data(R_CODE), 0xc000_0095);
    assert_eq!(g.data(R_ADDRESS), FAULT);
    assert_eq!(g.data(C_EIP), FAULT + 1);
}

#[test]
fn illegal_privileged_bound_and_int_n() {
    let g = fault_code(|a| a.nop(), |a| a.ud2());
    assert_eq!(g.data(R_CODE), 0xc000_001d, "EXCEPTION_ILLEGAL_INSTRUCTION");
    assert_eq!(g.data(R_ADDRESS), FAULT);

    let g = fault_code(|a| a.nop(), |a| a.hlt());
    assert_eq!(g.data(R_CODE), 0xc000_0096, "EXCEPTION_PRIV_INSTRUCTION");
    assert_eq!(g.data(R_NPARAMS), 0);

    let g = fault_code(|a| a.nop(), |a| a.cli());
    assert_eq!(g.data(R_CODE), 0xc000_0096);

    let g = fault_code(|a| a.nop(), |a| a.int(0x2e));
    assert_eq!(
        g.data(R_CODE),
        0xc000_0005,
        "INT n is a #GP: an access violation"
    );
    assert_eq!(g.data(R_ADDRESS), FAULT);
    assert_eq!(g.data(R_NPARAMS), 2);
    assert_eq!(g.data(R_INFO0), 0);
    assert_eq!(g.data(R_INFO1), 0xffff_ffff);

    // INT 4 uses INTO's gate: reported one byte before its end, continuing after it.
    let g = fault_code(|a| a.nop(), |a| a.int(4));
    assert_eq!(g.data(R_CODE), 0xc000_0095);
    assert_eq!(g.data(R_ADDRESS), FAULT + 1);
    assert_eq!(g.data(C_EIP), FAULT + 2);

    let g = fault_code(
        |a| {
            a.mov(dword_ptr(DATA + BUF), 0)?;
            a.mov(dword_ptr(DATA + BUF + 4), 3)?;
            a.mov(eax, 5)
        },
        |a| a.bound(eax, qword_ptr(DATA + BUF)),
    );
    assert_eq!(
        g.data(R_CODE),
        0xc000_008c,
        "EXCEPTION_ARRAY_BOUNDS_EXCEEDED"
    );
    assert_eq!(g.data(R_ADDRESS), FAULT);
}

#[test]
fn continue_search_passes_the_exception_to_the_outer_frame() {
    let mut g = Guest::new();
    resuming_handler(&g, HANDLER, 0x0ea7);
    g.asm(HANDLER2, |a| {
        a.inc(dword_ptr(DATA + SCRATCH))?;
        a.mov(ecx, dword_ptr(esp + 8))?;
        a.mov(dword_ptr(DATA + SCRATCH + 4), ecx)?;
        a.mov(eax, 1)?; // ExceptionContinueSearch
        a.ret()
    });
    g.main(HANDLER, |a| {
        install(a, HANDLER2)?;
        a.mov(dword_ptr(DATA + SCRATCH + 8), esp)?;
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(dword_ptr(eax), eax));
    g.resume();
    assert_eq!(exited(g.run()), 0x0ea7);
    assert_eq!(g.data(SCRATCH), 1, "inner handler called once");
    assert_eq!(
        g.data(SCRATCH + 4),
        g.data(SCRATCH + 8),
        "inner establisher frame"
    );
    assert_eq!(g.data(CALLS), 1);
    assert_eq!(
        g.data(H_FRAME),
        g.data(SAVED_ESP),
        "outer establisher frame"
    );
    assert_eq!(g.data(R_FLAGS), 0);
}

#[test]
fn unhandled_exception_prints_a_report_and_ends_the_process_with_the_code() {
    let mut g = Guest::new();
    g.asm(MAIN, |a| {
        a.xor(eax, eax)?;
        a.mov(esi, 0x5151)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(dword_ptr(eax), 1));
    let end = g.run();
    assert_eq!(end, ThreadEnd::ProcessExit(0xc000_0005));
    assert_eq!(g.proc.exited(), Some(0xc000_0005));
    let err = g.stderr();
    for want in [
        "unhandled exception 0xC0000005 EXCEPTION_ACCESS_VIOLATION",
        "writing address 0x00000000",
        "at 0x00400c00",
        "mov dword ptr [eax],1",
        "esi=00005151",
        "eip 0x00400c00",
    ] {
        assert!(err.contains(want), "report lacks {want:?}:\n{err}");
    }
}

/// The report also shows the code bytes around the fault, the stack and the
/// frame-pointer chain, so a fault whose cause lies before the faulting instruction
/// (a clobbered EBP, a bad return) can be read from the report alone.
#[test]
fn unhandled_exception_report_shows_code_bytes_stack_and_backtrace() {
    let mut g = Guest::new();
    // MAIN calls EXTRA, which builds a frame, pushes a marker and faults.
    g.asm(MAIN, |a| {
        a.call(EXTRA as u64)?;
        a.ret()
    });
    g.asm(EXTRA, |a| {
        a.push(ebp)?;
        a.mov(ebp, esp)?;
        a.push(0x5eed_5eedu32)?;
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(dword_ptr(eax), 1));
    assert_eq!(g.run(), ThreadEnd::ProcessExit(0xc000_0005));
    let err = g.stderr();
    // 16 bytes before FAULT (zero fill, never written), then C7 00 01 00 00 00.
    let code = format!(
        "code at {:#010x}: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 [c7] 00 01 00 00 00",
        FAULT - 16
    );
    // The call in MAIN is 5 bytes: EXTRA's frame returns to MAIN + 5.
    let ret = format!("returns to {:#010x}", MAIN + 5);
    for want in [
        "stack:",
        ": 5eed5eed",
        code.as_str(),
        "backtrace (ebp chain):",
        ret.as_str(),
    ] {
        assert!(err.contains(want), "report lacks {want:?}:\n{err}");
    }
}

#[test]
fn top_level_filter_can_continue_end_quietly_or_defer() {
    for (answer, expect) in [
        (-1i32, ThreadEnd::Exited(0xf17)),
        (1, ThreadEnd::ProcessExit(0xc000_0094)),
        (0, ThreadEnd::ProcessExit(0xc000_0094)),
    ] {
        let mut g = Guest::new();
        let set_filter = g.api("SetUnhandledExceptionFilter");
        // LONG WINAPI filter(EXCEPTION_POINTERS *)
        g.asm(HANDLER, |a| {
            a.inc(dword_ptr(DATA + CALLS))?;
            a.mov(eax, dword_ptr(esp + 4))?;
            a.mov(ecx, dword_ptr(eax))?;
            a.mov(ecx, dword_ptr(ecx))?;
            a.mov(dword_ptr(DATA + R_CODE), ecx)?;
            a.mov(ecx, dword_ptr(eax + 4))?;
            a.mov(dword_ptr(ecx + 0xb8), RESUME)?;
            a.mov(dword_ptr(ecx + 0xb0), 0xf17)?;
            a.mov(eax, answer)?;
            a.ret_1(4)
        });
        g.asm(MAIN, |a| {
            a.push(HANDLER)?;
            a.call(set_filter)?;
            a.xor(ecx, ecx)?;
            a.jmp(FAULT as u64)
        });
        g.asm(FAULT, |a| a.div(ecx));
        g.asm(RESUME, |a| a.ret());
        assert_eq!(g.run(), expect, "filter answer {answer}");
        assert_eq!(g.data(CALLS), 1);
        assert_eq!(g.data(R_CODE), 0xc000_0094);
        let err = g.stderr();
        if answer == 0 {
            assert!(err.contains("EXCEPTION_INT_DIVIDE_BY_ZERO"), "{err}");
        } else {
            assert!(err.is_empty(), "no report expected: {err}");
        }
    }
}

#[test]
fn corrupt_chains_end_with_a_report_not_a_hang() {
    // A misaligned record, one outside the stack, and a cycle whose handler keeps
    // passing the exception on.
    for (chain, want) in [
        (0x0060_8002u32, "misaligned"),
        (DATA + BUF, "outside the stack"),
        (0, "cycle"),
    ] {
        let mut g = Guest::new();
        g.asm(HANDLER, |a| {
            a.inc(dword_ptr(DATA + CALLS))?;
            a.mov(eax, 1)?;
            a.ret()
        });
        g.asm(MAIN, |a| {
            if chain == 0 {
                // A record whose Next is itself.
                a.push(HANDLER)?;
                a.push(0)?;
                a.mov(dword_ptr(esp), esp)?;
                a.mov(dword_ptr(0).fs(), esp)?;
            } else {
                a.mov(dword_ptr(0).fs(), chain)?;
            }
            a.xor(eax, eax)?;
            a.jmp(FAULT as u64)
        });
        g.asm(FAULT, |a| a.mov(dword_ptr(eax), 1));
        assert_eq!(g.run(), ThreadEnd::ProcessExit(0xc000_0005), "{want}");
        let err = g.stderr();
        assert!(err.contains(want), "report for {want}:\n{err}");
        assert!(err.contains("EXCEPTION_ACCESS_VIOLATION"), "{err}");
        if chain != 0 {
            assert_eq!(
                g.data(CALLS),
                0,
                "no handler called through a corrupt chain"
            );
        }
    }
}

#[test]
fn a_handler_that_always_faults_ends_with_a_report() {
    let mut g = Guest::new();
    g.asm(HANDLER, |a| {
        a.inc(dword_ptr(DATA + CALLS))?;
        a.xor(eax, eax)?;
        a.mov(dword_ptr(eax), eax)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(eax, dword_ptr(eax)));
    g.resume();
    assert_eq!(g.run(), ThreadEnd::ProcessExit(0xc000_0005));
    let err = g.stderr();
    assert!(err.contains("nested exceptions"), "{err}");
    assert!(err.contains("raised while dispatching"), "{err}");
    assert!(
        g.data(CALLS) > 1 && g.data(CALLS) < 100,
        "{}",
        g.data(CALLS)
    );
}

#[test]
fn an_exception_in_a_handler_is_nested_and_caught_outside() {
    let mut g = Guest::new();
    // Inner handler: faults the first time; called again for that nested exception
    // (with EXCEPTION_NESTED_CALL), it passes it on.
    g.asm(HANDLER2, |a| {
        let mut nested = a.create_label();
        a.inc(dword_ptr(DATA + SCRATCH))?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(ecx, dword_ptr(eax + 4))?;
        a.mov(dword_ptr(DATA + SCRATCH + 4), ecx)?; // flags of the latest call
        a.test(ecx, 0x10)?;
        a.jnz(nested)?;
        a.mov(dword_ptr(0), ecx)?; // the nested fault
        a.set_label(&mut nested)?;
        a.mov(eax, 1)?;
        a.ret()
    });
    resuming_handler(&g, HANDLER, 0x2e5);
    g.main(HANDLER, |a| {
        install(a, HANDLER2)?;
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(eax, dword_ptr(eax)));
    g.resume();
    assert_eq!(exited(g.run()), 0x2e5);
    assert_eq!(
        g.data(SCRATCH),
        2,
        "inner handler: the fault, then the nested one"
    );
    assert_eq!(g.data(SCRATCH + 4) & 0x10, 0x10, "EXCEPTION_NESTED_CALL");
    assert_eq!(g.data(CALLS), 1);
    assert_eq!(g.data(R_CODE), 0xc000_0005);
    assert_eq!(g.data(R_INFO0), 1, "the handler's write fault");
    assert_eq!(
        g.data(R_FLAGS) & 0x10,
        0,
        "flag cleared past the faulting frame"
    );
    assert!(
        (HANDLER2..HANDLER2 + 0x40).contains(&g.data(R_ADDRESS)),
        "{:#x}",
        g.data(R_ADDRESS)
    );
}

#[test]
fn raise_exception_delivers_arguments_and_returns_when_continued() {
    let mut g = Guest::new();
    let raise = g.api("RaiseException");
    g.asm(HANDLER, |a| {
        record(a)?;
        a.xor(eax, eax)?;
        a.ret()
    });
    for k in 0..3 {
        g.set(BUF + 4 * k, 0xa0 + k);
    }
    g.main(HANDLER, |a| {
        a.mov(ebx, 0x1111)?;
        a.mov(esi, 0x2222)?;
        a.mov(edi, 0x3333)?;
        a.mov(ebp, 0x4444)?;
        a.push(DATA + BUF)?;
        a.push(3)?;
        a.push(0)?;
        a.push(0xe000_0001u32)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.call(raise)?;
        for (r, off) in [(ebx, 0), (esi, 4), (edi, 8), (ebp, 12), (esp, 16)] {
            a.mov(dword_ptr(DATA + SCRATCH + off), r)?;
        }
        a.mov(eax, 0x4a15)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0x4a15);
    let ret = FAULT + 5;
    assert_eq!(g.data(R_CODE), 0xe000_0001);
    assert_eq!(g.data(R_FLAGS), 0);
    assert_eq!(g.data(R_ADDRESS), ret);
    assert_eq!(g.data(R_NPARAMS), 3);
    assert_eq!(
        [g.data(R_INFO0), g.data(R_INFO1), g.data(R_INFO2)],
        [0xa0, 0xa1, 0xa2]
    );
    assert_eq!(g.data(C_EIP), ret);
    assert_eq!(g.data(C_ESP), g.data(SAVED_ESP), "stdcall arguments popped");
    assert_eq!(
        [0, 4, 8, 12, 16].map(|o| g.data(SCRATCH + o)),
        [0x1111, 0x2222, 0x3333, 0x4444, g.data(SAVED_ESP)]
    );
}

#[test]
fn continuing_a_noncontinuable_exception_raises_another() {
    let mut g = Guest::new();
    let raise = g.api("RaiseException");
    g.asm(HANDLER, |a| {
        let mut second = a.create_label();
        record(a)?;
        a.cmp(dword_ptr(DATA + CALLS), 1)?;
        a.jne(second)?;
        a.xor(eax, eax)?; // continue: not allowed
        a.ret()?;
        // A noncontinuable exception cannot be continued: leave the handler for
        // good, as an except block does.
        a.set_label(&mut second)?;
        a.mov(eax, 0x25)?;
        a.jmp(RESUME as u64)
    });
    g.main(HANDLER, |a| {
        a.push(0)?;
        a.push(0)?;
        a.push(1)?; // EXCEPTION_NONCONTINUABLE
        a.push(0xe000_0002u32)?;
        a.call(raise)?;
        a.mov(eax, 0xbad)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0x25);
    assert_eq!(g.data(CALLS), 2);
    assert_eq!(
        g.data(R_CODE),
        0xc000_0025,
        "EXCEPTION_NONCONTINUABLE_EXCEPTION"
    );
    assert_eq!(g.data(R_FLAGS) & 1, 1);
    assert_eq!(
        g.data(R_INNER_CODE),
        0xe000_0002,
        "ExceptionRecord points at the first"
    );
}

#[test]
fn an_invalid_disposition_raises_invalid_disposition() {
    let mut g = Guest::new();
    g.asm(HANDLER, |a| {
        let mut second = a.create_label();
        record(a)?;
        a.cmp(dword_ptr(DATA + CALLS), 1)?;
        a.jne(second)?;
        a.mov(eax, 7)?;
        a.ret()?;
        a.set_label(&mut second)?;
        a.mov(eax, 0x26)?;
        a.jmp(RESUME as u64)
    });
    g.main(HANDLER, |a| {
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(eax, dword_ptr(eax)));
    g.resume();
    assert_eq!(exited(g.run()), 0x26);
    assert_eq!(g.data(R_CODE), 0xc000_0026, "EXCEPTION_INVALID_DISPOSITION");
    assert_eq!(g.data(R_INNER_CODE), 0xc000_0005);
}

#[test]
fn rtl_unwind_runs_inner_handlers_then_returns_to_its_caller() {
    let mut g = Guest::new();
    let unwind = g.api("RtlUnwind");
    // Inner handler: counts calls, keeps the flags of each, passes everything on.
    g.asm(HANDLER2, |a| {
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(ecx, dword_ptr(eax + 4))?;
        a.mov(edx, dword_ptr(DATA + SCRATCH))?;
        a.mov(dword_ptr(edx * 4 + (DATA + SCRATCH + 4)), ecx)?;
        a.inc(dword_ptr(DATA + SCRATCH))?;
        a.mov(eax, 1)?;
        a.ret()
    });
    // Outer handler, like an __except that takes the exception: global unwind to
    // its own frame, then on to the except block at EXTRA.
    g.asm(HANDLER, |a| {
        record(a)?;
        a.mov(ebx, 0x1357)?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(ecx, dword_ptr(esp + 8))?;
        a.push(0x5a5a)?; // ReturnValue
        a.push(eax)?; // ExceptionRecord
        a.push(0)?; // TargetIp
        a.push(ecx)?; // TargetFrame
        a.call(unwind)?;
        a.mov(dword_ptr(DATA + SCRATCH + 0x20), eax)?;
        a.mov(dword_ptr(DATA + SCRATCH + 0x24), ebx)?;
        a.mov(ecx, dword_ptr(0).fs())?;
        a.mov(dword_ptr(DATA + SCRATCH + 0x28), ecx)?;
        a.mov(esp, dword_ptr(DATA + SAVED_ESP))?;
        a.jmp(EXTRA as u64)
    });
    g.main(HANDLER, |a| {
        install(a, HANDLER2)?;
        a.mov(dword_ptr(DATA + SCRATCH + 0x2c), esp)?;
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(eax, dword_ptr(eax)));
    g.asm(EXTRA, |a| {
        a.mov(eax, 0xe8)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0xe8);
    assert_eq!(g.data(SCRATCH), 2, "inner handler: search, then unwind");
    assert_eq!(g.data(SCRATCH + 4) & 2, 0, "first call is not an unwind");
    assert_eq!(g.data(SCRATCH + 8) & 2, 2, "EXCEPTION_UNWINDING");
    assert_eq!(
        g.data(SCRATCH + 0x20),
        0x5a5a,
        "RtlUnwind returns ReturnValue"
    );
    assert_eq!(
        g.data(SCRATCH + 0x24),
        0x1357,
        "callee-saved registers kept"
    );
    assert_eq!(
        g.data(SCRATCH + 0x28),
        g.data(SAVED_ESP),
        "FS:[0] is the target frame"
    );
    assert_eq!(g.data(CALLS), 1);
}

#[test]
fn rtl_unwind_to_a_frame_not_on_the_chain_ends_the_process() {
    let mut g = Guest::new();
    let unwind = g.api("RtlUnwind");
    g.main(HANDLER, |a| {
        a.push(0)?;
        a.push(0)?;
        a.push(0)?;
        a.push(STACK + STACK_SIZE - 4)?; // above every frame: never reached
        a.call(unwind)?;
        a.jmp(RESUME as u64)
    });
    g.asm(HANDLER, |a| {
        a.mov(eax, 1)?;
        a.ret()
    });
    g.resume();
    assert_eq!(g.run(), ThreadEnd::ProcessExit(0xc000_0027));
    let err = g.stderr();
    assert!(err.contains("not on the exception chain"), "{err}");
    assert!(err.contains("STATUS_UNWIND"), "{err}");
}

#[test]
fn x87_exceptions_are_reported_at_the_faulting_instruction() {
    let mut g = Guest::new();
    g.set(BUF, 0x037b); // all masked but zero-divide
    g.asm(HANDLER, |a| {
        record(a)?;
        a.and(dword_ptr(eax + 0x20), !0x80ffu32)?; // FloatSave.StatusWord: clear
        a.xor(eax, eax)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.fninit()?;
        a.fldcw(word_ptr(DATA + BUF))?;
        a.fld1()?;
        a.fldz()?;
        a.jmp(EXTRA as u64)
    });
    g.asm(EXTRA, |a| {
        a.fdivp(st1, st0)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| {
        a.wait()?;
        a.mov(eax, 0xf00)?;
        a.jmp(RESUME as u64)
    });
    g.resume();
    assert_eq!(exited(g.run()), 0xf00);
    assert_eq!(
        g.data(CALLS),
        1,
        "the edited status word does not fault again"
    );
    assert_eq!(g.data(R_CODE), 0xc000_008e, "EXCEPTION_FLT_DIVIDE_BY_ZERO");
    assert_eq!(g.data(R_ADDRESS), EXTRA, "the FDIVP, not the FWAIT");
    assert_eq!(g.data(R_NPARAMS), 1);
    assert_eq!(g.data(C_EIP), FAULT);
    let sw = g.data(C_FPU_SW);
    assert_eq!(
        sw & 0x84,
        0x84,
        "ZE and ES in FloatSave.StatusWord: {sw:#x}"
    );
}

#[test]
fn no_room_on_the_stack_for_the_dispatch_ends_with_a_report() {
    let mut g = Guest::new();
    resuming_handler(&g, HANDLER, 1);
    g.asm(MAIN, |a| {
        install(a, HANDLER)?;
        a.mov(esp, STACK + 0x100)?;
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(eax, dword_ptr(eax)));
    assert_eq!(g.run(), ThreadEnd::ProcessExit(0xc000_0005));
    let err = g.stderr();
    assert!(
        err.contains("could not be delivered: no room on the stack"),
        "{err}"
    );
    assert_eq!(g.data(CALLS), 0);
}

#[test]
fn unhandled_exceptions_unwind_the_chain_then_exit_through_the_start_up_frame() {
    // With the start-up frame Windows puts around every thread, and a frame whose
    // handler passes everything on: the report, then that handler once more with
    // EXCEPTION_UNWINDING, then ExitProcess(code).
    let mut g = Guest::new();
    winterp_hostwin32::seh::install_top_frame(&mut g.t, &g.proc).unwrap();
    let top = g.proc.mem.read_u32(TEB).unwrap();
    assert_ne!(top, 0xffff_ffff);
    g.asm(HANDLER, |a| {
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(ecx, dword_ptr(eax + 4))?;
        a.mov(edx, dword_ptr(DATA + CALLS))?;
        a.mov(dword_ptr(edx * 4 + (DATA + SCRATCH)), ecx)?;
        a.inc(dword_ptr(DATA + CALLS))?;
        a.mov(eax, 1)?;
        a.ret()
    });
    g.main(HANDLER, |a| {
        a.mov(ecx, dword_ptr(0).fs())?;
        a.mov(ecx, dword_ptr(ecx))?;
        a.mov(dword_ptr(DATA + BUF), ecx)?; // the Next of MAIN's record
        a.xor(eax, eax)?;
        a.jmp(FAULT as u64)
    });
    g.asm(FAULT, |a| a.mov(dword_ptr(eax), eax));
    g.resume();
    g.t.start_at(MAIN, &[]).unwrap();
    let end = g.t.run(&g.proc);
    assert_eq!(end, ThreadEnd::ProcessExit(0xc000_0005));
    assert_eq!(g.data(BUF), top, "MAIN's record sits on the start-up one");
    assert_eq!(g.data(CALLS), 2, "search, then unwind");
    assert_eq!(g.data(SCRATCH) & 2, 0);
    assert_eq!(
        g.data(SCRATCH + 4) & 2,
        2,
        "EXCEPTION_UNWINDING before ExitProcess"
    );
    let err = g.stderr();
    assert_eq!(err.matches("unhandled exception").count(), 1, "{err}");
}

/// tests/guest/bin/seh.exe (mingw, see tests/guest/src/seh.c) end to end, with
/// threads on OS threads and in deterministic mode.
#[test]
fn guest_program_seh_exe() {
    run_seh_exe(false);
}

#[test]
fn guest_program_seh_exe_deterministic() {
    run_seh_exe(true);
}

fn run_seh_exe(deterministic: bool) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest");
    let exe = root.join("bin/seh.exe");
    let host = Arc::new(CaptureHost::default());
    let mut config = ProcessConfig::new(exe.clone(), r"C:\GUEST\SEH.EXE".into());
    config.deterministic = deterministic;
    let (proc, mut main) = winterp_hostwin32::startup::start(config, host.clone()).unwrap();
    if proc.mem.read_u32(main.teb).unwrap() == 0xffff_ffff {
        // Start-up has not linked the thread's start-up record (seh::install_top_frame)
        // yet: do it here, under the entry point's return address.
        let top = main.cpu.regs[4];
        let ret = proc.mem.read_u32(top).unwrap();
        main.cpu.regs[4] = top + 4;
        winterp_hostwin32::seh::install_top_frame(&mut main, &proc).unwrap();
        main.cpu.regs[4] -= 4;
        proc.mem.write_u32(main.cpu.regs[4], ret).unwrap();
    }
    let end = winterp_hostwin32::scheduler::run_process(&proc, main);
    // stdout is a text-mode stream: "\n" went out as CR LF.
    let out = String::from_utf8_lossy(&host.out.lock().unwrap()).replace("\r\n", "\n");
    let err = String::from_utf8_lossy(&host.err.lock().unwrap()).to_string();
    let want = std::fs::read_to_string(root.join("expected/seh.stdout")).unwrap();
    let code: u32 = std::fs::read_to_string(root.join("expected/seh.exitcode"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(out, want, "stderr:\n{err}");
    assert_eq!(end, ThreadEnd::ProcessExit(code), "stderr:\n{err}");
}
