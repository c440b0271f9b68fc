//! Self-modifying code: a store into decoded code is seen by the next execution of
//! that code, including a store into the block that is running.

use iced_x86::code_asm::*;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, EXIT, Machine, assemble};

fn finish(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(ecx, EXIT)?;
    a.jmp(ecx)
}

#[test]
fn store_into_the_running_block_changes_the_next_instruction() {
    // mov byte [patch+1], 5 ; patch: mov eax, 1 ; jmp EXIT  -> eax must be 5
    let mut m = Machine::new();
    let store_len = 7u32; // C6 05 disp32 imm8
    let patch = CODE + store_len;
    let code = assemble(|a| {
        a.mov(byte_ptr(patch + 1), 5)?;
        a.mov(eax, 1u32)?;
        finish(a)
    });
    m.load(&code);
    assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 5);
    assert_eq!(m.exec.counters.insns, 4);
}

#[test]
fn store_into_an_earlier_block_is_seen_on_reentry() {
    // A loop whose body's immediate is patched from a later block each iteration:
    //   top: add eax, imm32 (imm starts 1) ; ... ; inc dword [top+1] ; dec ecx ; jnz top
    // Sum of 1..=10 = 55.
    let mut m = Machine::new();
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 10u32)?;
        a.xor(eax, eax)?;
        a.set_label(&mut top)?;
        a.add(eax, 1u32)?; // 05 imm32 at CODE+7
        a.inc(dword_ptr(CODE + 7 + 1))?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    m.load(&code);
    assert_eq!(m.run(10_000), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 55);
    assert!(m.exec.counters.invalidations >= 10);
}

#[test]
fn host_write_retires_decoded_code() {
    let mut m = Machine::new();
    let code = assemble(|a| {
        a.mov(eax, 1u32)?;
        finish(a)
    });
    m.load(&code);
    assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 1);
    m.mem.write_bytes(CODE + 1, &[9]).unwrap();
    m.cpu.eip = CODE;
    assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 9);
}

#[test]
fn data_writes_to_a_code_page_keep_unrelated_blocks() {
    // Code and data share a page; writes to the data bytes must not retire the loop.
    let mut m = Machine::new();
    let var = CODE + 0x800;
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        a.inc(dword_ptr(var))?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    m.load(&code);
    assert_eq!(m.run(10_000), StopReason::Thunk(EXIT));
    assert_eq!(m.mem.read_u32(var), Ok(100));
    assert_eq!(m.exec.counters.invalidations, 0);
}

#[test]
fn instruction_spanning_a_page_edge_is_retired_by_a_write_to_its_tail() {
    let mut m = Machine::new();
    // mov eax, imm32 whose last two immediate bytes are on the next page.
    let at = CODE + 0x1000 - 3;
    m.mem
        .write_bytes(at, &[0xb8, 0x01, 0x00, 0x00, 0x00])
        .unwrap();
    let jmp_exit = assemble(finish);
    m.mem.write_bytes(at + 5, &jmp_exit).unwrap();
    m.cpu.eip = at;
    assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 1);
    m.mem.write_bytes(CODE + 0x1001, &[0x77]).unwrap(); // the immediate's top byte
    m.cpu.eip = at;
    assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 0x7700_0001);
}

#[test]
fn another_threads_write_is_seen_at_the_next_block() {
    // Thread A spins in a loop reading a flag from its own code bytes (mov eax, imm);
    // the host thread patches the immediate; A must observe it and exit.
    let mut m = Machine::new();
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.set_label(&mut top)?;
        a.mov(eax, 0u32)?; // B8 imm32 at CODE+1
        a.test(eax, eax)?;
        a.jz(top)?;
        finish(a)
    });
    m.load(&code);
    let mem = m.mem.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        mem.write_bytes(CODE + 1, &[1]).unwrap();
    });
    let mut stop = StopReason::BudgetSpent;
    for _ in 0..10_000 {
        stop = m.run(1_000_000);
        if stop != StopReason::BudgetSpent {
            break;
        }
    }
    t.join().unwrap();
    assert_eq!(stop, StopReason::Thunk(EXIT));
    assert_eq!(m.cpu.regs[0], 1);
    let _ = DATA;
}
