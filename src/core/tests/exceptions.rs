//! Every exception kind stops the run precisely: EIP at the faulting instruction,
//! registers, flags and memory as they were before it, and the fault address for
//! access violations.

use iced_x86::code_asm::*;
use winterp_core::harness::{CODE, DATA, EXIT, Machine, assemble};
use winterp_core::mem::{Access, Prot};
use winterp_core::{ExceptionKind, StopReason};

/// Runs `body` (preceded by register setup) and returns the machine and stop reason.
fn run(body: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>) -> (Machine, StopReason) {
    let code = assemble(|a| {
        a.mov(eax, 0x1111_1111u32)?;
        a.mov(ebx, 0x2222_2222u32)?;
        a.mov(ecx, 0x3333_3333u32)?;
        a.add(eax, ebx)?; // leaves a known flag state (PF set, others clear)
        body(a)?;
        a.mov(eax, EXIT)?;
        a.jmp(eax)
    });
    let mut m = Machine::new();
    m.load(&code);
    let stop = m.run(1_000_000);
    (m, stop)
}

/// Address of the instruction after the fixed 4-instruction prologue.
const BODY: u32 = CODE + 5 + 5 + 5 + 2;

fn exception(stop: StopReason) -> winterp_core::Exception {
    match stop {
        StopReason::Exception(e) => e,
        other => panic!("expected an exception, got {other:?}"),
    }
}

fn assert_prologue_state(m: &Machine) {
    assert_eq!(m.cpu.regs[0], 0x3333_3333);
    assert_eq!(m.cpu.regs[3], 0x2222_2222);
    assert_eq!(m.cpu.regs[1], 0x3333_3333);
    // 0x33333333: PF (0x33 has 4 bits set), no carry, not zero, not negative.
    assert_eq!(m.cpu.eflags() & 0x8d5, 0x004);
}

#[test]
fn load_from_unmapped_address() {
    let (m, stop) = run(|a| {
        a.inc(ecx)?; // retires
        a.mov(edx, dword_ptr(0x0bad_0000))
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read));
    assert_eq!(e.addr, 0x0bad_0000);
    assert_eq!(e.eip, BODY + 1);
    assert_eq!(m.cpu.eip, BODY + 1);
    assert_eq!(m.cpu.regs[1], 0x3333_3334);
    assert_eq!(m.cpu.regs[2], 0);
}

#[test]
fn store_to_read_only_page() {
    let code = assemble(|a| {
        a.mov(eax, 0x1111_1111u32)?;
        a.mov(ebx, 0x2222_2222u32)?;
        a.mov(ecx, 0x3333_3333u32)?;
        a.add(eax, ebx)?;
        a.add(dword_ptr(DATA + 8), eax)?; // read-modify-write: load succeeds, store faults
        a.mov(eax, EXIT)?;
        a.jmp(eax)
    });
    let mut m = Machine::new();
    m.mem.write_bytes(DATA + 8, &7u32.to_le_bytes()).unwrap();
    m.mem.protect(DATA, 0x1000, Prot::R).unwrap();
    m.load(&code);
    let e = exception(m.run(1000));
    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
    assert_eq!(e.addr, DATA + 8);
    assert_eq!(e.eip, BODY);
    assert_prologue_state(&m);
    assert_eq!(m.mem.read_u32(DATA + 8), Ok(7));
}

#[test]
fn divide_by_zero() {
    let (m, stop) = run(|a| {
        a.xor(edx, edx)?;
        a.mov(esi, 0u32)?;
        a.div(esi)
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::DivideError);
    assert_eq!(e.eip, BODY + 2 + 5);
    assert_eq!(m.cpu.regs[0], 0x3333_3333);
    assert_eq!(m.cpu.regs[2], 0);
}

#[test]
fn divide_overflow() {
    let (m, stop) = run(|a| {
        a.mov(edx, 5u32)?;
        a.mov(esi, 2u32)?;
        a.div(esi) // quotient does not fit in 32 bits
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::DivideError);
    assert_eq!(m.cpu.regs[2], 5);
    assert_eq!(m.cpu.regs[0], 0x3333_3333);
}

#[test]
fn int3_breakpoint() {
    let (m, stop) = run(|a| {
        a.nop()?;
        a.int3()
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::Breakpoint);
    assert_eq!(e.eip, BODY + 1);
    assert_eq!(m.cpu.eip, BODY + 1);
    assert_prologue_state(&m);
}

#[test]
fn invalid_opcode() {
    let (m, stop) = run(|a| {
        a.nop()?;
        a.db(&[0x0f, 0x0b]) // UD2
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::InvalidOpcode);
    assert_eq!(e.eip, BODY + 1);
    assert_prologue_state(&m);

    // Bytes that decode to nothing at all (0x0f 0xff is not an instruction).
    let (_, stop) = run(|a| a.db(&[0x0f, 0xff, 0xc0]));
    assert_eq!(exception(stop).kind, ExceptionKind::InvalidOpcode);
}

#[test]
fn execute_from_unmapped_page() {
    let (m, stop) = run(|a| {
        a.mov(edx, 0x0bad_1000u32)?;
        a.jmp(edx)
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Execute));
    assert_eq!(e.eip, 0x0bad_1000);
    assert_eq!(e.addr, 0x0bad_1000);
    assert_eq!(m.cpu.regs[2], 0x0bad_1000);
}

#[test]
fn privileged_instruction() {
    let (m, stop) = run(|a| a.hlt());
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::Privileged);
    assert_eq!(e.eip, BODY);
    assert_prologue_state(&m);
}

#[test]
fn push_onto_unmapped_stack_changes_nothing() {
    let (m, stop) = run(|a| {
        a.mov(esp, 0x0bad_2004u32)?;
        a.push(eax)
    });
    let e = exception(stop);
    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
    assert_eq!(e.addr, 0x0bad_2000);
    assert_eq!(m.cpu.regs[4], 0x0bad_2004);
}

#[test]
fn fetch_fault_mid_instruction_at_page_end() {
    // A 5-byte MOV whose last bytes lie on an unmapped page: the fetch faults at
    // the instruction, after the instructions before it retired.
    let mut m = Machine::new();
    let end = DATA + 0x20_0000; // first byte past the data region
    let code = [0x41u8, 0xb8, 1, 2]; // inc ecx; mov eax, imm32 (truncated)
    m.mem.protect(DATA, 0x20_0000, Prot::RWX).unwrap();
    m.mem.write_bytes(end - 4, &code).unwrap();
    m.cpu.eip = end - 4;
    let e = exception(m.run(100));
    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Execute));
    assert_eq!(e.eip, end - 3);
    assert_eq!(e.addr, end);
    assert_eq!(m.cpu.regs[1], 1);
}

#[test]
fn unimplemented_instruction_is_named() {
    // RSM is valid x86 but never user mode; winterp names what it cannot run.
    let (_, stop) = run(|a| a.db(&[0x0f, 0xaa]));
    match exception(stop).kind {
        ExceptionKind::Unimplemented(m) => assert_eq!(m, iced_x86::Mnemonic::Rsm),
        ExceptionKind::Privileged | ExceptionKind::InvalidOpcode => {}
        k => panic!("unexpected {k:?}"),
    }
}
