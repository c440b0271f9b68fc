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
/// A program that patches its own hot loop: equivalent whole and sliced, run in the
/// tier for at least `whole_min` / `sliced_min` iterations, and retired by the write.
fn equivalent_while_patched(code: &[u8], whole_min: u64, sliced_min: u64) {
    let (whole, sliced, inval) = equivalent(code);
    assert!(whole.iterations > whole_min, "{whole:?}");
    assert!(sliced.iterations > sliced_min, "{sliced:?}");
    assert!(inval >= 1, "the program was not retired by the code write");
}

/// The instruction the program's patch aims at is where the test expects it.
fn assert_code_at(code: &[u8], offset: u32, want: iced_x86::Code) {
    let mut d = iced_x86::Decoder::with_ip(32, code, CODE as u64, iced_x86::DecoderOptions::NONE);
    let at = d
        .iter()
        .find(|i| i.ip32() == CODE + offset)
        .unwrap_or_else(|| panic!("no instruction at +{offset:#x}"));
    assert_eq!(at.code(), want, "layout changed");
}

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
    assert_code_at(&code, 0x10, iced_x86::Code::Add_rm32_imm8);
    equivalent_while_patched(&code, 5_000, 2_000);
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
        // The control arm of `winterp bench --toggle uop` must not run in the tier.
        if shape.name == "null" {
            assert_eq!((s.matches, s.runs), (0, 0), "null: {s:?}");
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

/// Runs `body` `n` times over SRC/DST (ESI and EDI advance 4 bytes an
/// iteration, EBP counts down) with EDX and EBX as accumulators.
fn looped(n: u32, body: impl Fn(&mut A) -> R) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebp, n)?;
        a.xor(edx, edx)?;
        a.xor(ebx, ebx)?;
        a.set_label(&mut head)?;
        body(a)?;
        a.add(esi, 4)?;
        a.add(edi, 4)?;
        a.dec(ebp)?;
        a.jnz(head)?;
        finish(a)
    })
}

fn runs_in_the_tier(code: &[u8], n: u32) {
    let (whole, sliced, _) = equivalent(code);
    // A block inside the loop that becomes hot is a head of the same loop.
    assert!(whole.matches >= 1, "{whole:?}");
    assert!(whole.iterations as f64 >= 0.9 * n as f64, "{whole:?}");
    assert!(sliced.iterations as f64 >= 0.5 * n as f64, "{sliced:?}");
}

/// SHL/SHR/SAR by 1, by an immediate and by CL, at every width and to memory.
/// CL counts are random in 0..64, so they include 0 (the record before the shift
/// must survive: the CMP's, read by SETC/SETO and ADC) and counts past the width.
#[test]
fn uop_shifts_match_the_interpreter() {
    let n = 3000;
    let code = looped(n, |a| {
        let mut pos = a.create_label();
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ecx, dword_ptr(esi + 4))?;
        a.and(ecx, 0x3f)?;
        a.cmp(eax, ecx)?;
        a.shl(eax, cl)?;
        a.setc(bl)?;
        a.seto(bh)?;
        a.add(edx, ebx)?;
        // 1-bit shifts: OF is defined.
        a.shr(eax, 1)?;
        a.seto(bl)?;
        a.adc(edx, 0)?;
        a.sar(eax, 1)?;
        a.seto(bh)?;
        a.adc(edx, ebx)?;
        a.shl(eax, 1)?;
        a.seto(bl)?;
        a.adc(edx, ebx)?;
        a.sar(eax, 3)?;
        a.jns(pos)?;
        a.xor(edx, 0x55)?;
        a.set_label(&mut pos)?;
        a.shr(eax, 31)?;
        a.adc(edx, eax)?;
        a.mov(eax, dword_ptr(esi + 8))?;
        a.sar(eax, cl)?;
        a.adc(edx, eax)?;
        a.shr(edx, cl)?;
        // Narrow operands: 8 and 16 bits, high bytes, counts past the width.
        a.mov(eax, dword_ptr(esi + 12))?;
        a.shl(ax, 5)?;
        a.adc(edx, eax)?;
        a.sar(ah, 1)?;
        a.adc(edx, eax)?;
        a.shr(al, cl)?;
        a.adc(edx, eax)?;
        a.sar(bx, cl)?;
        a.adc(edx, ebx)?;
        a.shl(bl, 7)?;
        a.adc(edx, ebx)?;
        a.shr(ax, 17)?;
        a.adc(edx, eax)?;
        // Memory destinations.
        a.mov(dword_ptr(edi), eax)?;
        a.shl(dword_ptr(edi), 1)?;
        a.adc(edx, 0)?;
        a.sar(word_ptr(edi + 2), cl)?;
        a.adc(edx, 0)?;
        a.shr(byte_ptr(edi + 1), 3)?;
        a.adc(edx, 0)?;
        a.shl(dword_ptr(edi), cl)?;
        a.adc(edx, 0)
    });
    runs_in_the_tier(&code, n);
}

/// IMUL with two and three operands (immediate 8 and 32, register and memory
/// sources, 16 and 32 bits) and one-operand MUL/IMUL at every width. Random
/// operands overflow; sign-extended bytes do not, so CF/OF take both values
/// (read by SETO/SETC and ADC, and kept SF/ZF/PF by SETS/SETE/SETP).
#[test]
fn uop_multiplies_match_the_interpreter() {
    let n = 3000;
    let code = looped(n, |a| {
        let mut no = a.create_label();
        a.mov(eax, dword_ptr(esi))?;
        a.movsx(ecx, byte_ptr(esi + 4))?;
        a.cmp(eax, ecx)?;
        a.imul_3(ecx, ecx, 0x0001_2345)?;
        a.seto(bl)?;
        a.sets(bh)?;
        a.add(edx, ebx)?;
        a.imul_3(eax, dword_ptr(esi + 8), -3)?;
        a.setc(bl)?;
        a.sete(bh)?;
        a.adc(edx, ebx)?;
        a.imul_2(eax, ecx)?;
        a.jo(no)?;
        a.add(edx, eax)?;
        a.set_label(&mut no)?;
        a.movsx(ecx, byte_ptr(esi + 5))?;
        a.imul_2(ecx, dword_ptr(esi + 6))?;
        a.adc(edx, ecx)?;
        a.imul_2(cx, word_ptr(esi + 1))?;
        a.adc(edx, ecx)?;
        a.imul_3(ax, ax, 7)?;
        a.setp(bl)?;
        a.adc(edx, eax)?;
        // One operand: AL*r/m8 -> AX, AX*r/m16 -> DX:AX, EAX*r/m32 -> EDX:EAX.
        a.mov(ecx, edx)?;
        a.mov(eax, dword_ptr(esi + 12))?;
        a.mul(dword_ptr(esi + 16))?;
        a.adc(ecx, edx)?;
        a.mul(cl)?;
        a.adc(ecx, eax)?;
        a.imul(word_ptr(esi))?;
        a.adc(ecx, edx)?;
        a.imul(ecx)?;
        a.adc(ecx, eax)?;
        a.imul(byte_ptr(esi + 3))?;
        a.adc(ecx, eax)?;
        a.mul(bx)?;
        a.adc(ecx, edx)?;
        a.mov(dword_ptr(edi), eax)?;
        a.mov(edx, ecx)
    });
    runs_in_the_tier(&code, n);
}

/// SETcc to registers (low and high bytes) and memory for all 16 conditions,
/// CMOVcc from registers and memory at 16 and 32 bits, ADC/SBB (register,
/// immediate and memory, 8/16/32 bits, SBB r,r as the borrow-mask idiom), BT
/// with register and immediate offsets, and rotates through and without CF.
#[test]
fn uop_setcc_cmov_adc_bt_rotates_match_the_interpreter() {
    let n = 3000;
    let code = looped(n, |a| {
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ecx, dword_ptr(esi + 4))?;
        a.cmp(eax, ecx)?;
        a.seto(bl)?;
        a.setno(bh)?;
        a.setb(byte_ptr(edi))?;
        a.setae(byte_ptr(edi + 1))?;
        a.sete(byte_ptr(edi + 2))?;
        a.setne(byte_ptr(edi + 3))?;
        a.add(edx, ebx)?;
        a.cmp(al, cl)?;
        a.setbe(bl)?;
        a.seta(bh)?;
        a.add(edx, ebx)?;
        a.sets(bl)?;
        a.setns(bh)?;
        a.add(edx, ebx)?;
        a.setp(bl)?;
        a.setnp(bh)?;
        a.add(edx, ebx)?;
        a.setl(bl)?;
        a.setge(bh)?;
        a.add(edx, ebx)?;
        a.setle(bl)?;
        a.setg(bh)?;
        a.add(edx, ebx)?;
        a.add(edx, dword_ptr(edi))?;
        a.cmp(ecx, eax)?;
        a.cmovbe(eax, ecx)?;
        a.cmovg(edx, dword_ptr(esi + 8))?;
        a.cmovs(cx, ax)?;
        a.cmovnp(bx, word_ptr(esi + 2))?;
        // ADC/SBB.
        a.add(eax, ecx)?;
        a.adc(edx, eax)?;
        a.sbb(ebx, ebx)?;
        a.adc(dx, 0x1234)?;
        a.sbb(bl, ah)?;
        a.adc(dword_ptr(edi + 4), edx)?;
        a.sbb(byte_ptr(edi + 5), cl)?;
        a.sbb(ecx, dword_ptr(esi + 12))?;
        a.adc(edx, ecx)?;
        // BT and rotates.
        a.bt(eax, ecx)?;
        a.adc(edx, 0)?;
        a.bt(dword_ptr(esi + 16), 37)?;
        a.sbb(edx, 0)?;
        a.bt(cx, 3)?;
        a.rcl(edx, 1)?;
        a.rol(eax, 7)?;
        a.adc(edx, eax)?;
        a.ror(bx, cl)?;
        a.adc(edx, ebx)?;
        a.rcr(al, cl)?;
        a.adc(edx, eax)?;
        a.rol(byte_ptr(edi + 6), cl)?;
        a.rcr(dword_ptr(edi + 4), 3)?;
        a.adc(edx, 0)
    });
    runs_in_the_tier(&code, n);
}

/// Inner loops and loops entered in the middle: a CRC-table style nested loop
/// (the inner back edge is not the head's) and a merge-style loop whose two arms
/// jump back to different blocks, one of them before the block first made hot.
/// Both stay in their programs; budget checks at every inner head keep slices
/// exact.
#[test]
fn uop_inner_loops_and_middle_entries_match_the_interpreter() {
    let code = assemble(|a| {
        let mut outer = a.create_label();
        let mut inner = a.create_label();
        let mut skip = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebp, 1500)?;
        a.set_label(&mut outer)?;
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ecx, 8)?;
        a.set_label(&mut inner)?;
        a.mov(ebx, eax)?;
        a.shr(eax, 1)?;
        a.and(ebx, 1)?;
        a.jz(skip)?;
        a.xor(eax, 0xedb8_8320u32 as i32)?;
        a.set_label(&mut skip)?;
        a.dec(ecx)?;
        a.jnz(inner)?;
        a.mov(dword_ptr(edi), eax)?;
        a.add(esi, 4)?;
        a.add(edi, 4)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        // Merge-style: `left` and `shared` are both back-edge targets.
        let mut left = a.create_label();
        let mut shared = a.create_label();
        let mut check = a.create_label();
        let mut done = a.create_label();
        a.mov(esi, SRC)?;
        a.xor(ecx, ecx)?;
        a.xor(edx, edx)?;
        a.mov(ebp, 4000)?;
        a.jmp(check)?;
        a.set_label(&mut left)?;
        a.add(edx, 1)?;
        a.set_label(&mut shared)?;
        a.add(ecx, 1)?;
        a.set_label(&mut check)?;
        a.cmp(ecx, ebp)?;
        a.jae(done)?;
        a.mov(eax, dword_ptr(esi + edx * 4))?;
        a.mov(ebx, dword_ptr(esi + ecx * 4 + 0x8000))?;
        a.cmp(eax, ebx)?;
        a.jge(left)?;
        a.add(edi, ebx)?;
        a.jmp(shared)?;
        a.set_label(&mut done)?;
        finish(a)
    });
    let (whole, sliced, _) = equivalent(&code);
    // 1500 outer iterations of 8 inner ones, and 4000 merge steps.
    assert!(whole.iterations >= 15_000, "{whole:?}");
    // Each loop is entered once and runs to its end in its program.
    assert!(whole.runs <= 2, "{whole:?}");
    assert!(sliced.iterations >= 6_000, "{sliced:?}");
}

/// LZ77-style match search: a chain loop (a link load, MOVZX of the register's
/// own low word, which compiles to one zero-extension) around an inner
/// byte-compare loop whose back edge is not the head's (its own budget check,
/// exact in slices). The buffer repeats every 4 bytes, so a quarter of the
/// candidates match to the limit and the inner loop runs long.
#[test]
fn uop_match_search_loops_match_the_interpreter() {
    let code = assemble(|a| {
        let mut fill = a.create_label();
        let mut chain = a.create_label();
        let mut step = a.create_label();
        let mut cmp = a.create_label();
        let mut next = a.create_label();
        a.mov(edi, DST)?;
        a.mov(ecx, 0x1000)?;
        a.set_label(&mut fill)?;
        a.mov(eax, ecx)?;
        a.and(eax, 3)?;
        a.mov(byte_ptr(edi + ecx), al)?;
        a.dec(ecx)?;
        a.jnz(fill)?;
        a.mov(esi, SRC)?;
        a.mov(ebp, 3000)?;
        a.xor(edx, edx)?;
        a.xor(ebx, ebx)?;
        a.set_label(&mut chain)?;
        a.mov(ecx, edx)?;
        a.and(ecx, 0x3ff)?;
        a.add(ecx, edi)?;
        a.xor(eax, eax)?;
        a.jmp(cmp)?;
        a.set_label(&mut step)?;
        a.add(eax, 1)?;
        a.cmp(eax, 40)?;
        a.je(next)?;
        a.set_label(&mut cmp)?;
        a.movzx(ebx, byte_ptr(edi + eax + 0x400))?;
        a.cmp(byte_ptr(ecx + eax), bl)?;
        a.je(step)?;
        a.set_label(&mut next)?;
        a.add(dword_ptr(esi + 0x8000), eax)?;
        a.mov(edx, dword_ptr(esi + ebp * 4))?;
        a.movzx(edx, dx)?;
        a.dec(ebp)?;
        a.jnz(chain)?;
        finish(a)
    });
    let (whole, sliced, _) = equivalent(&code);
    // 3000 chain steps, about 750 of them running 40 compares.
    assert!(whole.iterations >= 20_000, "{whole:?}");
    assert!(sliced.iterations >= 10_000, "{sliced:?}");
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

/// A DEC whose block last wrote a subtraction's record keeps that record's CF
/// (set for about half the bytes): `known_carry` must not take it as clear.
#[test]
fn uop_dec_keeping_a_subtractions_carry_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 20_000)?;
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.sub(eax, 0x80)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    let ops = op_kinds(&code, nth_insn(&code, 2));
    assert!(ops.iter().any(|o| o == "SubF"), "{ops:?}");
    let (whole, sliced, _) = equivalent(&code);
    assert!(whole.iterations > 19_000, "{whole:?}");
    assert!(sliced.iterations > 5_000, "{sliced:?}");
}

/// Forwarded branches on SF (after TEST, ADD, SUB, DEC at 8, 16 and 32 bits) and
/// on CF|ZF and SF!=OF(|ZF) of a CMP (JA/JBE/JL/JGE/JLE/JG at every width, with
/// operands that are often equal and that cross the sign boundary), each taking
/// or skipping an add to EDX so a wrong direction changes the result. Two loops,
/// each within the tier's block cap.
#[test]
fn uop_sign_above_and_signed_branches_match_the_interpreter() {
    let n = 3000;
    macro_rules! skip {
        ($a:ident, $k:ident, $jcc:ident) => {{
            let mut l = $a.create_label();
            $a.$jcc(l)?;
            $a.add(edx, $k)?;
            $k = $k.wrapping_mul(3);
            $a.set_label(&mut l)?;
        }};
    }
    let sign_unsigned = looped(n, |a| {
        let mut k = 1u32;
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ecx, dword_ptr(esi + 4))?;
        a.test(eax, eax)?;
        skip!(a, k, js);
        a.add(cl, al)?;
        skip!(a, k, jns);
        a.sub(ax, cx)?;
        skip!(a, k, js);
        a.dec(cx)?;
        skip!(a, k, jns);
        a.cmp(eax, ecx)?;
        skip!(a, k, ja);
        a.cmp(al, cl)?;
        skip!(a, k, jbe);
        // Small values: equal a quarter of the time.
        a.movzx(ecx, byte_ptr(esi + 2))?;
        a.and(ecx, 3)?;
        a.cmp(ecx, 2)?;
        skip!(a, k, jbe);
        a.cmp(cl, 1)?;
        skip!(a, k, ja);
        a.add(ebx, k)?;
        a.add(ebx, edx)
    });
    runs_in_the_tier(&sign_unsigned, n);
    let signed = looped(n, |a| {
        let mut k = 1u32;
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ecx, dword_ptr(esi + 4))?;
        a.cmp(ax, cx)?;
        skip!(a, k, jg);
        a.cmp(eax, ecx)?;
        skip!(a, k, jl);
        // Small values either side of zero, often equal.
        a.movsx(ecx, byte_ptr(esi + 3))?;
        a.sar(ecx, 5)?;
        a.cmp(ecx, -2)?;
        skip!(a, k, jle);
        a.cmp(cx, 1)?;
        skip!(a, k, jg);
        a.cmp(cl, 0)?;
        skip!(a, k, jge);
        a.movsx(eax, byte_ptr(esi + 1))?;
        a.sar(eax, 5)?;
        a.cmp(al, cl)?;
        skip!(a, k, jle);
        a.cmp(eax, ecx)?;
        skip!(a, k, jg);
        a.cmp(ax, cx)?;
        skip!(a, k, jl);
        a.add(ebx, k)?;
        a.add(ebx, edx)
    });
    runs_in_the_tier(&signed, n);
}

/// 32-bit SHL/SHR/SAR (by CL counts in 0..64, so 0 and counts past 31 too, and by
/// immediates) and IMUL whose records a later ADD replaces before any exit: the
/// engine runs them as plain host ops; a count of 0 must leave the operand.
#[test]
fn uop_shifts_and_imul_without_records_match_the_interpreter() {
    let n = 3000;
    let code = looped(n, |a| {
        a.mov(eax, dword_ptr(esi))?;
        a.movzx(ecx, byte_ptr(esi + 4))?;
        a.and(ecx, 63)?;
        a.mov(ebx, eax)?;
        a.shl(eax, cl)?;
        a.shr(ebx, cl)?;
        a.add(eax, ebx)?;
        a.sar(eax, cl)?;
        a.sar(ebx, 7)?;
        a.add(eax, ebx)?;
        a.imul_3(ebx, eax, 0x9e37_79b1u32 as i32)?;
        a.shr(ebx, 17)?;
        a.imul_2(eax, ebx)?;
        a.shl(ebx, 3)?;
        a.add(edx, eax)?;
        a.add(edx, ebx)
    });
    runs_in_the_tier(&code, n);
}

/// A stack inside the data region, so the compared memory covers it.
const STACK: u32 = DATA + 0x18_0000;

/// PUSH and POP in every 32-bit form the tier lowers: register (ESP too),
/// imm8, imm32 and memory pushes; register (ESP too) and memory pops, one of
/// them through ESP (addressed after the increment). The stack is in the
/// compared data region.
fn push_pop(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        a.mov(esp, STACK)?;
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.xor(edx, edx)?;
        a.set_label(&mut head)?;
        a.push(dword_ptr(esi))?;
        a.push(ecx)?;
        a.push(0x1234_5678)?;
        a.push(-3)?;
        a.mov(eax, dword_ptr(esi + 4))?;
        a.add(eax, dword_ptr(esp + 8))?;
        a.pop(ebx)?;
        a.pop(ebp)?;
        a.add(edx, ebx)?;
        a.xor(edx, ebp)?;
        a.add(edx, eax)?;
        // Pops ECX's copy and stores it over the pushed [ESI] below it.
        a.pop(dword_ptr(esp))?;
        a.pop(dword_ptr(edi))?;
        a.push(esp)?;
        a.pop(ebx)?;
        a.sub(edx, ebx)?;
        a.push(esp)?;
        a.pop(esp)?;
        a.push(edx)?;
        a.push(dword_ptr(esp))?;
        a.pop(eax)?;
        a.pop(ebx)?;
        a.add(edx, eax)?;
        a.add(esi, 4)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    })
}

#[test]
fn uop_push_pop_match_the_interpreter() {
    let n = 3000;
    runs_in_the_tier(&push_pop(n), n);
}

/// Each iteration pushes two words and pops one, so ESP walks down out of the
/// data region into unmapped memory: the push that faults leaves the engine and
/// the interpreter raises the fault there, with ESP and the rest unchanged.
#[test]
fn uop_push_into_an_unmapped_stack_page_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esp, DATA + 0x1800)?;
        a.xor(eax, eax)?;
        a.set_label(&mut head)?;
        a.inc(eax)?;
        a.push(eax)?;
        a.push(ecx)?;
        a.add(ecx, eax)?;
        a.pop(edx)?;
        a.jmp(head)
    });
    let (whole, _, _) = equivalent(&code);
    assert!(whole.iterations > 1_000, "{whole:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
    // The fault is at the first push below DATA: ESP still at DATA.
    assert_eq!(
        on.states.last().unwrap().0[4],
        DATA,
        "{:?}",
        on.states.last()
    );
}

/// The loop patches the immediate of its own `push imm8` after 3000 iterations
/// while its program is hot: the popped value changes from the next iteration.
#[test]
fn uop_push_pop_loop_writing_its_own_code_while_hot_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut skip = a.create_label();
        a.mov(esp, STACK)?;
        a.mov(ecx, 6000)?;
        a.xor(edx, edx)?;
        // Twelve bytes so far; four NOPs put the patched PUSH at +0x10.
        for _ in 0..4 {
            a.nop()?;
        }
        a.set_label(&mut head)?;
        a.push(5)?;
        a.pop(eax)?;
        a.add(edx, eax)?;
        a.cmp(ecx, 3000)?;
        a.jne(skip)?;
        // `6A ib`: the immediate is the second byte.
        a.mov(eax, CODE + 0x10)?;
        a.mov(byte_ptr(eax + 1), 9)?;
        a.set_label(&mut skip)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    assert_code_at(&code, 0x10, iced_x86::Code::Pushd_imm8);
    equivalent_while_patched(&code, 5_000, 2_000);
    let (on, _, _) = run(&code, true, u64::MAX);
    // ECX runs 6000..=1 and the patch lands after the push of ECX = 3000: 3001
    // iterations push 5, the other 2999 push 9.
    assert_eq!(on.states.last().unwrap().0[2], 3001 * 5 + 2999 * 9);
}

/// A loop calling leaf functions: a stdcall one (`ret 8`) with two RETs, called
/// from two sites, and a cdecl one placed before the loop that reads its own
/// return address. The calls are inlined: return addresses are real stores,
/// and every RET checks what it pops.
fn leaf_calls(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        let mut start = a.create_label();
        let mut f_std = a.create_label();
        let mut f_cdecl = a.create_label();
        let mut even = a.create_label();
        a.mov(esp, STACK)?;
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.xor(edx, edx)?;
        a.jmp(start)?;
        a.set_label(&mut f_cdecl)?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.add(eax, dword_ptr(esp))?;
        a.ret()?;
        a.set_label(&mut start)?;
        a.nop()?;
        a.set_label(&mut head)?;
        a.mov(eax, dword_ptr(esi))?;
        a.push(eax)?;
        a.push(ecx)?;
        a.call(f_std)?;
        a.add(edx, eax)?;
        a.push(dword_ptr(esi + 4))?;
        a.call(f_cdecl)?;
        a.add(esp, 4)?;
        a.xor(edx, eax)?;
        a.push(edx)?;
        a.push(7)?;
        a.call(f_std)?;
        a.add(edx, eax)?;
        a.add(esi, 4)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)?;
        a.set_label(&mut f_std)?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.test(al, 1)?;
        a.jz(even)?;
        a.add(eax, dword_ptr(esp + 8))?;
        a.ret_1(8)?;
        a.set_label(&mut even)?;
        a.sub(eax, dword_ptr(esp + 8))?;
        a.mov(dword_ptr(edi), eax)?;
        a.ret_1(8)
    })
}

#[test]
fn uop_leaf_calls_match_the_interpreter() {
    let n = 3000;
    runs_in_the_tier(&leaf_calls(n), n);
}

/// Every 256th call the callee adds 1 to its return address, so its RET skips
/// the `inc edx` after the call: the engine's check of the popped address
/// leaves at that RET and the interpreter makes the return.
#[test]
fn uop_ret_to_an_overwritten_return_address_matches_the_interpreter() {
    let n = 3000;
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut g = a.create_label();
        let mut keep = a.create_label();
        a.mov(esp, STACK)?;
        a.mov(ecx, n)?;
        a.xor(edx, edx)?;
        a.xor(ebx, ebx)?;
        a.xor(esi, esi)?;
        a.set_label(&mut head)?;
        a.call(g)?;
        a.inc(edx)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)?;
        a.set_label(&mut g)?;
        a.inc(ebx)?;
        a.test(bl, 0xff)?;
        a.jnz(keep)?;
        a.add(dword_ptr(esp), 1)?;
        a.set_label(&mut keep)?;
        a.ret()
    });
    let (whole, sliced, _) = equivalent(&code);
    assert!(whole.iterations as f64 >= 0.9 * n as f64, "{whole:?}");
    assert!(sliced.iterations as f64 >= 0.5 * n as f64, "{sliced:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    let regs = on.states.last().unwrap().0;
    // 3000 calls, 11 of them (every 256th) skipping `inc edx`.
    assert_eq!((regs[2], regs[6]), (n - n / 256, n), "{regs:?}");
}

/// Each iteration leaves a word on the stack before its call, so ESP walks
/// down out of the data region: the call whose return-address store faults
/// leaves the engine, and the interpreter raises the fault at the CALL.
#[test]
fn uop_call_pushing_into_an_unmapped_stack_page_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut f = a.create_label();
        a.mov(esp, DATA + 0x1800)?;
        a.xor(eax, eax)?;
        a.set_label(&mut head)?;
        a.inc(eax)?;
        a.sub(esp, 4)?;
        a.call(f)?;
        a.add(edx, eax)?;
        a.jmp(head)?;
        a.set_label(&mut f)?;
        a.mov(dword_ptr(esp + 4), eax)?;
        a.ret()
    });
    let (whole, _, _) = equivalent(&code);
    assert!(whole.iterations > 1_000, "{whole:?}");
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
    let (regs, eip, ..) = *on.states.last().unwrap();
    // The CALL at DATA faults storing its return address below DATA.
    assert_eq!(regs[4], DATA, "{regs:?}");
    let call = nth_insn(&code, 4);
    assert_eq!(eip, call);
}

/// The loop patches the immediate of an `add edx, imm8` inside its callee
/// after 3000 iterations, while the program inlining it is hot.
#[test]
fn uop_loop_writing_its_callees_code_while_hot_matches_the_interpreter() {
    let body = |patch: u32| {
        assemble(move |a| {
            let mut head = a.create_label();
            let mut skip = a.create_label();
            let mut f = a.create_label();
            a.mov(esp, STACK)?;
            a.mov(ecx, 6000)?;
            a.xor(edx, edx)?;
            a.set_label(&mut head)?;
            a.call(f)?;
            a.cmp(ecx, 3000)?;
            a.jne(skip)?;
            a.mov(eax, patch)?;
            a.mov(byte_ptr(eax + 2), 9)?;
            a.set_label(&mut skip)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)?;
            a.set_label(&mut f)?;
            a.add(edx, 5)?;
            a.ret()
        })
    };
    // The patched ADD's address, from a first assembly (the layout does not
    // depend on the immediate).
    let first = body(0);
    let d = iced_x86::Decoder::with_ip(32, &first, CODE as u64, iced_x86::DecoderOptions::NONE);
    let add = d
        .into_iter()
        .find(|i| i.code() == iced_x86::Code::Add_rm32_imm8)
        .expect("the callee's add")
        .ip32();
    let code = body(add);
    assert_eq!(code.len(), first.len());
    equivalent_while_patched(&code, 5_000, 2_000);
    let (on, _, _) = run(&code, true, u64::MAX);
    // The call of ECX = 3000 still adds 5: 3001 fives, 2999 nines.
    assert_eq!(on.states.last().unwrap().0[2], 3001 * 5 + 2999 * 9);
}

const JTABLE: u32 = DATA + 0x1e_0000;

/// A loop dispatching through `jmp [JTABLE+eax*4]` to three cases inside the
/// region and one placed more than `SPAN` after the head (outside it); the
/// program writes the table itself, rewrites entries mid-run (one to another
/// case inside the region, one to the outside case), patches an immediate of a
/// case while hot, and near the end points an entry at unmapped memory (the
/// interpreter raises the fetch fault after the jump).
fn jump_table(n: u32, at: [u32; 4]) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        let mut join = a.create_label();
        let mut no1 = a.create_label();
        let mut no2 = a.create_label();
        let mut no3 = a.create_label();
        a.mov(esp, STACK)?;
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.xor(edx, edx)?;
        for (k, &t) in at.iter().enumerate() {
            a.mov(dword_ptr(JTABLE + 4 * k as u32), t)?;
        }
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.and(eax, 3)?;
        a.jmp(dword_ptr(eax * 4 + JTABLE))?;
        // Case 0.
        a.add(edx, 0x1111)?;
        a.jmp(join)?;
        // Case 1: its immediate is patched.
        a.xor(edx, 0x2222)?;
        a.jmp(join)?;
        // Case 2.
        a.sub(edx, 0x3333)?;
        a.mov(dword_ptr(edi), edx)?;
        a.add(edi, 4)?;
        a.jmp(join)?;
        a.set_label(&mut join)?;
        a.cmp(ecx, n / 2)?;
        a.jne(no1)?;
        a.mov(dword_ptr(JTABLE + 4), at[2])?;
        a.mov(dword_ptr(JTABLE + 8), at[3])?;
        a.set_label(&mut no1)?;
        a.cmp(ecx, n / 3)?;
        a.jne(no2)?;
        a.mov(byte_ptr(at[1] + 2), 0x77)?;
        a.set_label(&mut no2)?;
        a.cmp(ecx, 40)?;
        a.jne(no3)?;
        a.mov(dword_ptr(JTABLE), 0x10)?;
        a.set_label(&mut no3)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)?;
        for _ in 0..0x500 {
            a.int3()?;
        }
        // Case 3, outside the region.
        a.add(edx, 0x4444)?;
        a.jmp(join)
    })
}

#[test]
fn uop_jump_table_matches_the_interpreter() {
    let n = 6000;
    // The case addresses, from a first assembly: the layout does not depend on
    // them (every table write is a fixed-size `mov dword [abs], imm32`).
    let first = jump_table(n, [0; 4]);
    let d = iced_x86::Decoder::with_ip(32, &first, CODE as u64, iced_x86::DecoderOptions::NONE);
    let mut at = [0u32; 4];
    for i in d {
        let k = match (i.mnemonic(), i.immediate(1) as u32) {
            (iced_x86::Mnemonic::Add, 0x1111) => 0,
            (iced_x86::Mnemonic::Xor, 0x2222) => 1,
            (iced_x86::Mnemonic::Sub, 0x3333) => 2,
            (iced_x86::Mnemonic::Add, 0x4444) => 3,
            _ => continue,
        };
        at[k] = i.ip32();
    }
    assert!(at.iter().all(|&x| x != 0), "{at:x?}");
    assert!(at[3] - at[0] > 0x500, "case 3 must lie outside the region");
    let code = jump_table(n, at);
    assert_eq!(code.len(), first.len());
    equivalent_while_patched(&code, 2_000, 1_000);
    let (on, _, _) = run(&code, true, u64::MAX);
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
    assert_eq!(on.states.last().unwrap().1, 0x10);
}

/// A loop run hot with the gate off (its blocks marked as not offered to the tier)
/// and then with it switched on: the switch flushes decoded code, so the loop is
/// offered again and runs in the tier; the end state is the plain interpreter's.
#[test]
fn gate_switched_on_after_blocks_ran_hot_with_it_off() {
    let code = lut(20_000);
    let plain = {
        let mut m = Machine::new();
        m.exec.set_tiers(Arc::new(Tiers::all(false)));
        init(&m);
        m.load(&code);
        assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
        (m.cpu.regs, m.cpu.eflags(), m.exec.counters.insns)
    };
    let tiers = Arc::new(Tiers::all(false));
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    m.load(&code);
    // Well past the hot threshold with the gate off.
    assert_eq!(m.run(20_000), StopReason::BudgetSpent);
    assert_eq!(tiers.stats(Tier::Uop).snapshot().runs, 0);
    tiers.set(Tier::Uop, true).unwrap();
    assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
    let s = tiers.stats(Tier::Uop).snapshot();
    assert!(
        s.runs > 0 && s.iterations > 1000,
        "the loop never ran in the tier: {s:?}"
    );
    assert_eq!((m.cpu.regs, m.cpu.eflags(), m.exec.counters.insns), plain);
}
