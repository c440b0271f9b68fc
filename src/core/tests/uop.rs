//! The micro-op tier: the same guest program with only `uop` on and with every
//! tier off must end with identical registers, materialised flags, EIP, memory,
//! stop reasons, per-slice states and pacing counters (instructions retired,
//! blocks entered), whole and in budget slices, including a loop that faults
//! mid-run and one that writes into its own code while its program is hot.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::tiers::{StatsSnapshot, Tier, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;
const TABLE: u32 = DATA + 0x1f_0000;

fn finish(a: &mut A) -> R {
    a.mov(ebp, EXIT)?;
    a.jmp(ebp)
}

fn init(m: &Machine) {
    let mut x = 0x9e37_79b9u32;
    let mut buf = vec![0u8; 0x2_0000];
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    m.mem.write_bytes(SRC, &buf).unwrap();
    let t: Vec<u8> = (0..=255u8).map(|b| b.rotate_left(3) ^ 0x5a).collect();
    m.mem.write_bytes(TABLE, &t).unwrap();
}

#[derive(Debug, PartialEq)]
struct End {
    stops: Vec<StopReason>,
    /// Registers, EIP, EFLAGS and instructions retired at every slice boundary.
    states: Vec<([u32; 8], u32, u32, u64)>,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
}

fn run(code: &[u8], on: bool, slice: u64) -> (End, Arc<Tiers>, u64) {
    let tiers = Arc::new(Tiers::all(false));
    tiers.set(Tier::Uop, on).unwrap();
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    m.load(code);
    // CF set on entry, so INC/DEC's kept CF is visible in the final flags.
    m.cpu.set_eflags(0x2 | 1);
    let mut stops = Vec::new();
    let mut states = Vec::new();
    for _ in 0..2_000_000 {
        let s = m.run(slice);
        stops.push(s);
        let mut regs = [0u32; 8];
        regs.copy_from_slice(&m.cpu.regs[..8]);
        states.push((regs, m.cpu.eip, m.cpu.eflags(), m.exec.counters.insns));
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let invalidated = m.exec.uop.invalidated;
    (
        End {
            stops,
            states,
            insns: m.exec.counters.insns,
            blocks: m.exec.counters.blocks,
            mem,
        },
        tiers,
        invalidated,
    )
}

/// Off and on agree for every slice size; returns the on arm's stats for the
/// whole run and for the 1000-instruction slices.
fn equivalent(code: &[u8]) -> (StatsSnapshot, StatsSnapshot, u64) {
    let mut whole = None;
    let mut sliced = None;
    let mut inval = 0;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let (off, toff, _) = run(code, false, slice);
        let (on, ton, inv) = run(code, true, slice);
        assert_eq!(toff.stats(Tier::Uop).snapshot().runs, 0, "off arm ran");
        assert_eq!(off.stops, on.stops, "slice {slice}: stops");
        assert_eq!(off.states.len(), on.states.len(), "slice {slice}: slices");
        for (k, (a, b)) in off.states.iter().zip(&on.states).enumerate() {
            assert_eq!(a, b, "slice {slice}: state after slice {k}");
        }
        assert_eq!(
            (off.insns, off.blocks),
            (on.insns, on.blocks),
            "slice {slice}: counters"
        );
        assert!(off.mem == on.mem, "slice {slice}: memory differs");
        let s = ton.stats(Tier::Uop).snapshot();
        if slice == u64::MAX {
            whole = Some(s);
            inval = inv;
        }
        if slice == 1000 {
            sliced = Some(s);
        }
    }
    (whole.unwrap(), sliced.unwrap(), inval)
}

fn lut(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, n)?;
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    })
}

#[test]
fn uop_lut_loop_matches_the_interpreter() {
    let (whole, sliced, _) = equivalent(&lut(20_000));
    assert_eq!(whole.matches, 1, "{whole:?}");
    assert!(whole.iterations > 19_000, "{whole:?}");
    assert!(sliced.iterations > 10_000, "{sliced:?}");
}

/// A branchy body: a forward diamond, partial-register arithmetic, 16-bit
/// operations, a read-modify-write store and a CMP/JB back edge.
fn mix() -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        let mut odd = a.create_label();
        let mut join = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.lea(ebp, ptr(esi + 6000))?;
        a.xor(edx, edx)?;
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.test(al, 1)?;
        a.jnz(odd)?;
        a.add(dx, ax)?;
        a.mov(ah, byte_ptr(esi + 1))?;
        a.sub(bl, ah)?;
        a.jmp(join)?;
        a.set_label(&mut odd)?;
        a.movsx(ecx, byte_ptr(esi + 2))?;
        a.xor(edx, ecx)?;
        a.add(dword_ptr(edi), ecx)?;
        a.neg(ebx)?;
        a.set_label(&mut join)?;
        a.lea(edi, ptr(edi + eax * 4 + 4))?;
        a.and(edi, DST + 0xfffc)?;
        a.add(esi, 1)?;
        a.cmp(esi, ebp)?;
        a.jb(head)?;
        finish(a)
    })
}

#[test]
fn uop_branchy_partial_register_loop_matches_the_interpreter() {
    let (whole, sliced, _) = equivalent(&mix());
    assert_eq!(whole.matches, 1, "{whole:?}");
    assert!(whole.iterations > 5_000, "{whole:?}");
    assert!(sliced.iterations > 2_000, "{sliced:?}");
}

/// Reads run off the end of the data region: the access violation is raised by
/// the interpreter at the exact instruction, with the same state, flags and
/// counters.
#[test]
fn uop_loop_faulting_mid_run_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, DATA + DATA_SIZE - 0x3000)?;
        a.xor(eax, eax)?;
        a.set_label(&mut head)?;
        // The faulting load is second in its block: the program leaves inside
        // the block, with the INC's flags in the record.
        a.inc(edx)?;
        a.add(eax, dword_ptr(esi))?;
        a.add(esi, 4)?;
        a.jmp(head)
    });
    let (whole, _, _) = equivalent(&code);
    assert!(whole.iterations > 2_000, "{whole:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
}

/// The loop patches the immediate of its own `add edx, imm8` after 3000
/// iterations, while its program is hot: the patched bytes must take effect from
/// the next iteration, exactly as in the interpreter.
#[test]
fn uop_loop_writing_its_own_code_while_hot_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut skip = a.create_label();
        let mut imm = a.create_label();
        a.mov(ecx, 6000)?;
        a.xor(edx, edx)?;
        // Seven bytes so far; seven NOPs put the patched ADD at +0x10.
        for _ in 0..7 {
            a.nop()?;
        }
        a.set_label(&mut head)?;
        a.add(edx, ecx)?;
        a.set_label(&mut imm)?;
        a.add(edx, 1)?;
        a.cmp(ecx, 3000)?;
        a.jne(skip)?;
        // Both encodings are `83 C2 ib`: the immediate is the third byte.
        a.mov(eax, CODE + 0x10)?;
        a.mov(byte_ptr(eax + 2), 7)?;
        a.set_label(&mut skip)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    // The patched instruction must be where the store aims.
    let mut d = iced_x86::Decoder::with_ip(32, &code, CODE as u64, iced_x86::DecoderOptions::NONE);
    let add = d
        .iter()
        .find(|i| i.ip32() == CODE + 0x10)
        .expect("an instruction at +0x10");
    assert_eq!(add.code(), iced_x86::Code::Add_rm32_imm8, "layout changed");
    let (whole, sliced, inval) = equivalent(&code);
    assert!(whole.iterations > 5_000, "{whole:?}");
    assert!(inval >= 1, "the program was not retired by the code write");
    assert!(sliced.iterations > 2_000, "{sliced:?}");
}

/// A store stream through a raw window that walks down from a data page into the
/// page holding the loop's own bytes: the window proved for the first page must
/// not carry the stores into the code page; the store that reaches it leaves the
/// engine, the interpreter makes it (the bytes rewritten with their own values, a
/// code write all the same), and the program lowered from those bytes is retired.
#[test]
fn uop_store_window_walking_into_its_own_code_page_matches_the_interpreter() {
    // The decoder marks the page after any block it decodes as code, so the data
    // page is one no code precedes: the setup sits on page 0 (marking pages 0 and
    // 1), the loop at the start of page 3, and the stream walks up from page 2
    // straight into the loop's first bytes.
    const HEAD: u32 = CODE + 0x3000;
    let setup = assemble(|a| {
        a.mov(edi, CODE + 0x2f00)?;
        a.mov(ecx, 0x50)?;
        a.xor(edx, edx)?;
        a.mov(ebp, HEAD)?;
        a.jmp(ebp)
    });
    // Assembled at CODE: the short JNZ is relative and the tail absolute, so the
    // bytes run unchanged at HEAD.
    let body = assemble(|a| {
        let mut head = a.create_label();
        a.set_label(&mut head)?;
        a.mov(eax, dword_ptr(edi))?;
        a.mov(dword_ptr(edi), eax)?;
        a.add(edx, eax)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    let mut code = setup.clone();
    code.resize((HEAD - CODE) as usize, 0x90);
    code.extend_from_slice(&body);
    let (whole, sliced, inval) = equivalent(&code);
    // 0x40 iterations run on the data page before the stream reaches code.
    assert!(whole.iterations >= 0x10, "{whole:?}");
    assert!(whole.iterations < 0x40, "{whole:?}");
    assert!(
        inval >= 1,
        "the program was not retired by the store into its bytes"
    );
    assert!(sliced.runs > 0, "{sliced:?}");
}

/// Every shape `winterp bench` runs ends identically with only `uop` on; the
/// shapes named for the tier run (nearly) all their iterations in it.
#[test]
fn uop_bench_shapes_end_identically_and_run_in_the_tier() {
    use winterp_core::bench;
    for shape in bench::standard(1) {
        let off = bench::end_state(&shape, Arc::new(Tiers::all(false))).unwrap();
        let on_tiers = Arc::new(Tiers::all(false));
        on_tiers.set(Tier::Uop, true).unwrap();
        let on = bench::end_state(&shape, on_tiers.clone()).unwrap();
        assert_eq!(off.0, on.0, "{}: registers", shape.name);
        assert_eq!(off.1, on.1, "{}: flags", shape.name);
        assert_eq!(off.2, on.2, "{}: memory", shape.name);
        assert_eq!(
            (off.3.insns, off.3.blocks),
            (on.3.insns, on.3.blocks),
            "{}: pacing counters",
            shape.name
        );
        let s = on_tiers.stats(Tier::Uop).snapshot();
        if shape.name.starts_with("uop_") {
            assert!(
                s.iterations as f64 >= 0.9 * shape.iters as f64,
                "{}: {s:?}",
                shape.name
            );
        }
    }
}

/// With every tier on, the folds keep the idioms and `uop` the rest, and the end
/// state still matches the plain interpreter.
#[test]
fn uop_composes_with_the_other_tiers() {
    for code in [lut(20_000), mix()] {
        let off = {
            let mut m = Machine::new();
            m.exec.set_tiers(Arc::new(Tiers::all(false)));
            init(&m);
            m.load(&code);
            assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
            (
                m.cpu.regs,
                m.cpu.eflags(),
                m.exec.counters.insns,
                m.exec.counters.blocks,
            )
        };
        let tiers = Arc::new(Tiers::all(true));
        let mut m = Machine::new();
        m.exec.set_tiers(tiers.clone());
        init(&m);
        m.load(&code);
        assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
        let on = (
            m.cpu.regs,
            m.cpu.eflags(),
            m.exec.counters.insns,
            m.exec.counters.blocks,
        );
        assert_eq!(off, on);
    }
}

/// The op kinds `uop::flat` compiles the loop at `head` of `code` to (the loop's
/// bytes only matter, so the data is not initialised).
fn op_kinds(code: &[u8], head: u32) -> Vec<String> {
    use winterp_core::uop::engine::{Verdict, compile};
    let m = Machine::new();
    m.mem.write_bytes(CODE, code).unwrap();
    let env = winterp_core::uop::lower::Env {
        max_insns: 64,
        stop: (EXIT, 1),
        seg_base: [0; 8],
    };
    let Verdict::Run(c) = compile(&m.mem, head, &env) else {
        panic!("the loop at {head:#x} lowers")
    };
    c.flat
        .ops
        .iter()
        .map(|o| {
            let d = format!("{o:?}");
            d.split([' ', '{']).next().unwrap_or_default().to_string()
        })
        .collect()
}

/// The address of the `k`th instruction of `code` (by an independent decode).
fn nth_insn(code: &[u8], k: usize) -> u32 {
    iced_x86::Decoder::with_ip(32, code, CODE as u64, iced_x86::DecoderOptions::NONE)
        .iter()
        .nth(k)
        .expect("enough instructions")
        .ip32()
}

/// A keyed in-place translate (`mov al,[esi]; test al,3; jz; movzx eax,[edi];
/// mov al,[ebx+eax]; mov [edi],al`) with the table at `table`: the load and test
/// fuse into `Ld8AndBZ`, the three accesses of the translate into `XlatRmw`.
fn keyed_xlat(n: u32, table: u32, dst: u32) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        let mut skip = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, dst)?;
        a.mov(ebx, table)?;
        a.mov(ecx, n)?;
        a.set_label(&mut head)?;
        a.mov(al, byte_ptr(esi))?;
        a.test(al, 3)?;
        a.jz(skip)?;
        a.movzx(eax, byte_ptr(edi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.set_label(&mut skip)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    })
}

#[test]
fn uop_fused_keyed_translate_matches_the_interpreter() {
    // The destination is initialised data too, so the translate reads varied bytes.
    let code = keyed_xlat(30_000, TABLE, SRC + 0x8000);
    let ops = op_kinds(&code, nth_insn(&code, 4));
    for k in ["Ld8AndBZ", "XlatRmw", "Add2DecBZ"] {
        assert!(ops.iter().any(|o| o == k), "{k} missing: {ops:?}");
    }
    let (whole, sliced, _) = equivalent(&code);
    assert!(whole.iterations > 29_000, "{whole:?}");
    assert!(sliced.iterations > 10_000, "{sliced:?}");
}

/// The table of the fused translate straddles the end of the data region: a
/// translated byte of 0x80 or more faults at the translate's second access, after
/// its first one loaded EAX; the program leaves there and the interpreter raises
/// the fault with the same registers, flags and counters.
#[test]
fn uop_fused_translate_faulting_at_its_second_access_matches_the_interpreter() {
    // The destination: 4000 bytes of 0x11, then 0x90s.
    let mut code = assemble(|a| {
        let mut fill = a.create_label();
        let mut high = a.create_label();
        a.mov(edi, DST)?;
        a.mov(ecx, 4000)?;
        a.set_label(&mut fill)?;
        a.mov(byte_ptr(edi), 0x11)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(fill)?;
        a.mov(ecx, 200)?;
        a.set_label(&mut high)?;
        a.mov(byte_ptr(edi), 0x90)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(high)
    });
    // Relative branches inside and an absolute exit: the loop runs unchanged here.
    let setup = code.len();
    code.extend_from_slice(&keyed_xlat(30_000, DATA + DATA_SIZE - 0x80, DST));
    let ops = op_kinds(&code, nth_insn(&code, 11 + 4));
    assert!(nth_insn(&code, 11) == CODE + setup as u32, "layout changed");
    assert!(ops.iter().any(|o| o == "XlatRmw"), "{ops:?}");
    let (whole, _, _) = equivalent(&code);
    assert!(whole.iterations > 1_000, "{whole:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
}

/// The plain translate (`Xlat`) whose destination stream runs off the end of the
/// data region: its store, the third access, faults after both loads.
#[test]
fn uop_fused_translate_faulting_at_its_store_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DATA + DATA_SIZE - 0x2000)?;
        a.mov(ebx, TABLE)?;
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.jmp(head)
    });
    let ops = op_kinds(&code, nth_insn(&code, 3));
    assert!(ops.iter().any(|o| o == "Xlat"), "{ops:?}");
    let (whole, _, _) = equivalent(&code);
    assert!(whole.iterations > 4_000, "{whole:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
}

/// `uop_blk_mix512`'s body with `n` iterations: an ADD and an XOR whose records
/// the next TEST/AND overwrites (dropped by `uop::flat`), and DECs whose blocks
/// last wrote an AND's record (the CF they keep known clear).
fn diamonds(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        let (mut l1, mut j1, mut l2) = (a.create_label(), a.create_label(), a.create_label());
        let (mut j2, mut l3, mut j3) = (a.create_label(), a.create_label(), a.create_label());
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.test(al, 1)?;
        a.jz(l1)?;
        a.add(edx, eax)?;
        a.jmp(j1)?;
        a.set_label(&mut l1)?;
        a.xor(edx, 0x5a5a)?;
        a.set_label(&mut j1)?;
        a.test(al, 4)?;
        a.jnz(l2)?;
        a.sub(edx, 7)?;
        a.mov(byte_ptr(edi), dl)?;
        a.jmp(j2)?;
        a.set_label(&mut l2)?;
        a.lea(edx, ptr(edx + eax * 2 + 1))?;
        a.set_label(&mut j2)?;
        a.cmp(al, 0x90)?;
        a.jb(l3)?;
        a.movzx(eax, byte_ptr(ebx + eax))?;
        a.xor(edx, eax)?;
        a.jmp(j3)?;
        a.set_label(&mut l3)?;
        a.inc(edi)?;
        a.set_label(&mut j3)?;
        a.and(edi, DST + 0xffff)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

#[test]
fn uop_dropped_records_and_known_carry_match_the_interpreter() {
    let code = diamonds(20_000);
    let ops = op_kinds(&code, nth_insn(&code, 4));
    // The ADD and the XOR with a register run without their records.
    assert!(!ops.iter().any(|o| o == "AddF" || o == "XorF"), "{ops:?}");
    for k in ["Add1DecBZ", "AluAndBZ"] {
        assert!(ops.iter().any(|o| o == k), "{k} missing: {ops:?}");
    }
    let (whole, sliced, _) = equivalent(&code);
    assert!(whole.iterations > 19_000, "{whole:?}");
    assert!(sliced.iterations > 5_000, "{sliced:?}");
}
