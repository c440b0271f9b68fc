//! The run API: budgets stop at block boundaries and resume exactly, stop ranges,
//! halts, deterministic counters, profiling histograms, and chaining on/off
//! equivalence.

use iced_x86::code_asm::*;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, EXIT, Machine, assemble};
use winterp_core::tiers::{Tier, Tiers};

/// A machine on gates of its own with `jit` off, whatever `WINTERP_TIERS` says:
/// these tests count the threaded interpreter's dispatches (one per instruction),
/// which compiled code does not make (state, instructions and blocks are the same).
fn plain_machine() -> Machine {
    let mut m = Machine::new();
    let tiers = Tiers::new();
    tiers.set(Tier::Jit, false).expect("jit is a built tier");
    m.exec.set_tiers(std::sync::Arc::new(tiers));
    m
}

/// A loop of 5 instructions per iteration over 1000 iterations, plus setup and exit.
fn loop_program() -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 1000u32)?; // 1
        a.xor(eax, eax)?; // 2
        a.set_label(&mut top)?;
        a.add(eax, ecx)?;
        a.mov(dword_ptr(DATA), eax)?;
        a.xor(ebx, eax)?;
        a.dec(ecx)?;
        a.jnz(top)?; // 5 per iteration
        a.mov(edx, EXIT)?;
        a.jmp(edx) // 2
    })
}

const TOTAL: u64 = 2 + 5 * 1000 + 2;

fn state(m: &Machine) -> ([u32; 8], u32, u32) {
    let mut r = [0; 8];
    r.copy_from_slice(&m.cpu.regs[..8]);
    (r, m.cpu.eflags(), m.cpu.eip)
}

#[test]
fn counters_count_retired_instructions_and_blocks() {
    let mut m = plain_machine();
    m.load(&loop_program());
    assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
    let c = m.exec.counters;
    assert_eq!(c.insns, TOTAL);
    // The loop head lies inside the first block, so the blocks run are
    // [setup+body], 999 x [body] (decoded once at the head), then [exit].
    assert_eq!(c.blocks, 1 + 999 + 1);
    assert_eq!(c.decodes, 3);
    assert_eq!(c.dispatches, TOTAL);
    assert_eq!(m.cpu.regs[0], 500_500);
}

#[test]
fn budget_stops_at_block_boundaries_and_resumes_exactly() {
    let mut whole = Machine::new();
    whole.load(&loop_program());
    assert_eq!(whole.run(u64::MAX), StopReason::Thunk(EXIT));

    let mut sliced = Machine::new();
    sliced.load(&loop_program());
    let mut slices = 0;
    loop {
        let before = sliced.exec.counters.insns;
        match sliced.run(7) {
            StopReason::BudgetSpent => {
                let ran = sliced.exec.counters.insns - before;
                // A slice ends at the first block boundary at or after the budget.
                assert!((7..7 + 7).contains(&ran), "slice ran {ran}");
                slices += 1;
            }
            StopReason::Thunk(EXIT) => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(slices > 500);
    assert_eq!(state(&sliced), state(&whole));
    assert_eq!(sliced.exec.counters.insns, whole.exec.counters.insns);
    assert_eq!(sliced.exec.counters.blocks, whole.exec.counters.blocks);
}

#[test]
fn chaining_on_and_off_do_identical_work() {
    let run = |chain: bool| {
        let mut m = plain_machine();
        m.exec.chaining = chain;
        m.load(&loop_program());
        let mut stops = Vec::new();
        loop {
            let s = m.run(1001);
            stops.push((s, m.exec.counters.insns, m.cpu.eip));
            if s != StopReason::BudgetSpent {
                break;
            }
        }
        (state(&m), m.exec.counters, stops, m.mem.read_u32(DATA))
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn profiling_counts_per_form_and_per_block() {
    let mut m = Machine::new();
    m.exec.set_profiling(true);
    m.load(&loop_program());
    assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
    let p = m.exec.profile().expect("profiling on");
    let dec = p.per_code[iced_x86::Code::Dec_r32 as usize]
        + p.per_code[iced_x86::Code::Dec_rm32 as usize];
    assert_eq!(dec, 1000);
    assert_eq!(p.per_code[iced_x86::Code::Jne_rel8_32 as usize], 1000);
    let hot = m.exec.hot_blocks(1);
    assert_eq!(hot[0].1, 5, "the loop body block has 5 instructions");
    assert_eq!(hot[0].2, 999);
    assert!(hot[0].0 > CODE);
    // Profiling does not change the work done.
    assert_eq!(m.exec.counters.insns, TOTAL);
}

#[test]
fn halt_flag_stops_a_spinning_thread() {
    let mut m = Machine::new();
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.set_label(&mut top)?;
        a.inc(eax)?;
        a.jmp(top)
    });
    m.load(&code);
    let h = m.exec.halt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(30));
        h.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(m.run(u64::MAX), StopReason::Halt);
    t.join().unwrap();
    assert!(m.cpu.regs[0] > 0);
}

#[test]
fn falling_into_the_stop_range_stops_there() {
    let mut m = Machine::new();
    // Code placed just below a stop range; execution falls through into it.
    m.exec.set_stop_range(CODE + 3, CODE + 4);
    m.load(&[0x40, 0x40, 0x40, 0x40, 0x40]); // inc eax x5
    assert_eq!(m.run(100), StopReason::Thunk(CODE + 3));
    assert_eq!(m.cpu.regs[0], 3);
}
