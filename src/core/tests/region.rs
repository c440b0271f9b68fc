//! `block_exec` (tiers/region.rs): the same guest program with the region executor off
//! and on must end with identical registers, materialised flags, EIP, memory, x87
//! state, stop reasons and pacing counters (instructions retired, blocks entered),
//! run whole and in budget slices, including when a region faults, stores into its
//! own code or reads the time-stamp counter. Near misses must stay unfolded with the
//! expected decline.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::bench;
use winterp_core::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::tiers::{Decline, StatsSnapshot, Tier, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;

fn finish(a: &mut A) -> R {
    a.mov(ebp, EXIT)?;
    a.jmp(ebp)
}

fn init(m: &Machine) {
    let mut x = 0x2545_f491u32;
    let mut buf = vec![0u8; 0x2_0000];
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    m.mem.write_bytes(SRC, &buf).unwrap();
}

#[derive(Debug, PartialEq)]
struct End {
    stops: Vec<StopReason>,
    /// Registers, EIP, EFLAGS and retired count at every slice boundary.
    trace: Vec<([u32; 8], u32, u32, u64)>,
    fpu: String,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
}

/// Runs `code` in slices of `slice` instructions with `block_exec` on or off (every
/// other gate at its default); returns the end state and the gates (for the stats).
fn run(code: &[u8], init_mem: &[(u32, Vec<u8>)], on: bool, slice: u64) -> (End, Arc<Tiers>) {
    let tiers = Arc::new(Tiers::new());
    tiers.set(Tier::BlockExec, on).unwrap();
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    for (a, b) in init_mem {
        m.mem.write_bytes(*a, b).unwrap();
    }
    m.load(code);
    // CF set on entry so INC/DEC's preserved CF and ADC see a non-trivial carry.
    m.cpu.set_eflags(0x2 | 1);
    let mut stops = Vec::new();
    let mut trace = Vec::new();
    for _ in 0..200_000 {
        let s = m.run(slice);
        stops.push(s);
        let mut r = [0u32; 8];
        r.copy_from_slice(&m.cpu.regs[..8]);
        trace.push((r, m.cpu.eip, m.cpu.eflags(), m.exec.counters.insns));
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let mut code_now = vec![0u8; code.len()];
    m.mem.read_bytes(CODE, &mut code_now).unwrap();
    mem.extend_from_slice(&code_now);
    let fpu = format!("{:?}", m.cpu.fpu);
    (
        End {
            stops,
            trace,
            fpu,
            insns: m.exec.counters.insns,
            blocks: m.exec.counters.blocks,
            mem,
        },
        tiers,
    )
}

/// Off and on agree whole and in slices of 1, 7, 37 and 1000 instructions; returns
/// the on arm's `block_exec` stats of the whole run.
fn equivalent(code: &[u8], init_mem: &[(u32, Vec<u8>)]) -> StatsSnapshot {
    let mut whole = None;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let (off, toff) = run(code, init_mem, false, slice);
        let (on, ton) = run(code, init_mem, true, slice);
        let soff = toff.stats(Tier::BlockExec).snapshot();
        assert_eq!(soff.matches + soff.runs, 0, "off arm ran regions");
        assert_eq!(off.stops, on.stops, "slice {slice}: stops");
        assert_eq!(off.trace.len(), on.trace.len(), "slice {slice}: slices");
        for (k, (a, b)) in off.trace.iter().zip(&on.trace).enumerate() {
            assert_eq!(a, b, "slice {slice}: state after slice {k}");
        }
        assert_eq!(off.fpu, on.fpu, "slice {slice}: x87 state");
        assert_eq!(
            (off.insns, off.blocks),
            (on.insns, on.blocks),
            "slice {slice}: counters"
        );
        assert!(off.mem == on.mem, "slice {slice}: memory differs");
        if slice == u64::MAX {
            whole = Some(ton.stats(Tier::BlockExec).snapshot());
        }
    }
    whole.unwrap()
}

/// `equivalent`, and a region ran most of the program's blocks.
fn equivalent_taken(code: &[u8], init_mem: &[(u32, Vec<u8>)]) -> StatsSnapshot {
    let s = equivalent(code, init_mem);
    assert!(s.matches > 0 && s.runs > 0, "no region ran: {s:?}");
    let (off, _) = run(code, init_mem, false, u64::MAX);
    assert!(
        s.iterations * 10 >= off.blocks * 8,
        "regions entered {} of {} blocks",
        s.iterations,
        off.blocks
    );
    s
}

#[test]
fn bench_region_shapes_are_exact_and_taken() {
    for shape in [
        bench::tree_span(0x8000),
        bench::tree_dot(0x4000),
        bench::tree_chain(0x8000),
        bench::region_if2(0x8000),
        bench::region_diamond4(0x8000),
        bench::region_state6(0x1_0000),
        bench::region_ladder5(0x1_0000),
    ] {
        let s = equivalent_taken(&shape.code, &shape.init);
        assert!(s.declines_total() < 20, "{}: {s:?}", shape.name);
    }
}

/// Byte and word registers (AH..BH alias the low four containers), byte and word
/// memory forms, movzx/movsx, in a diamond.
#[test]
fn partial_registers_and_memory_forms() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut odd = a.create_label();
        let mut join = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 3000u32)?;
        a.mov(ebx, 0x1111_2222u32)?;
        a.mov(edx, 0x8000_0001u32)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.mov(ah, byte_ptr(esi + 1))?;
        a.add(bl, al)?;
        a.sub(bh, ah)?;
        a.test(al, 0x10)?;
        a.jnz(odd)?;
        a.movsx(edx, ax)?;
        a.xor(dx, word_ptr(esi + 2))?;
        a.mov(word_ptr(edi), dx)?;
        a.jmp(join)?;
        a.set_label(&mut odd)?;
        a.movzx(edx, byte_ptr(esi + 3))?;
        a.or(byte_ptr(edi + 1), dl)?;
        a.add(word_ptr(edi + 2), 0x1234)?;
        a.neg(dh)?;
        a.not(bx)?;
        a.set_label(&mut join)?;
        a.add(esi, 3)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_taken(&code, &[]);
}

/// ADC/SBB read the carry the previous micro-op left (a 64-bit add and subtract chain).
#[test]
fn adc_sbb_carry_chains() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut skip = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 4000u32)?;
        a.xor(eax, eax)?;
        a.xor(edx, edx)?;
        a.set_label(&mut top)?;
        a.add(eax, dword_ptr(esi))?;
        a.adc(edx, dword_ptr(esi + 4))?;
        a.sub(ebx, dword_ptr(esi + 8))?;
        a.sbb(edi, 0)?;
        a.cmp(eax, edx)?;
        a.jb(skip)?;
        a.adc(ebx, eax)?;
        a.set_label(&mut skip)?;
        a.sbb(bl, dl)?;
        a.add(esi, 4)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_taken(&code, &[]);
}

/// x87 arithmetic and a shift and multiply (handler micro-ops) inside a region; the
/// flags a region exit publishes come from a writer several blocks back.
#[test]
fn x87_and_handler_ops_in_a_region() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut big = a.create_label();
        let mut join = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 2000u32)?;
        a.fldz()?;
        a.set_label(&mut top)?;
        a.fild(dword_ptr(esi))?;
        a.fmul(qword_ptr(SRC + 0x1_0000))?;
        a.faddp(st1, st0)?;
        a.fst(qword_ptr(edi))?;
        a.mov(eax, dword_ptr(esi))?;
        a.imul_2(eax, ecx)?;
        a.shr(eax, 3)?;
        a.cmp(eax, 0x1000_0000)?;
        a.ja(big)?;
        a.rol(ebx, 5)?;
        a.jmp(join)?;
        a.set_label(&mut big)?;
        a.xor(ebx, eax)?;
        a.set_label(&mut join)?;
        a.add(esi, 4)?;
        a.add(edi, 8)?;
        a.sub(ecx, 1)?;
        a.jnz(top)?;
        a.fstp(qword_ptr(DST - 8))?;
        finish(a)
    });
    let konst = 1.000_001f64.to_le_bytes().to_vec();
    equivalent_taken(&code, &[(SRC + 0x1_0000, konst)]);
}

/// RDTSC inside a region reads the retired count of its own position.
#[test]
fn rdtsc_in_a_region_reads_its_position() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut other = a.create_label();
        a.mov(ecx, 500u32)?;
        a.set_label(&mut top)?;
        a.test(cl, 1)?;
        a.jz(other)?;
        a.rdtsc()?;
        a.add(ebx, eax)?;
        a.set_label(&mut other)?;
        a.rdtsc()?;
        a.xor(esi, eax)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_taken(&code, &[]);
}

/// A region that walks off the end of the data region faults exactly (same
/// exception, EIP, registers and retired count as the interpreter).
#[test]
fn fault_inside_a_region_is_precise() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut skip = a.create_label();
        a.mov(esi, DATA + DATA_SIZE - 0x400)?;
        a.set_label(&mut top)?;
        a.mov(eax, dword_ptr(esi))?;
        a.test(al, 1)?;
        a.jz(skip)?;
        a.add(ebx, eax)?;
        a.set_label(&mut skip)?;
        a.inc(edx)?;
        a.add(dword_ptr(esi + 8), edx)?;
        a.add(esi, 4)?;
        a.jmp(top)?;
        finish(a)
    });
    let s = equivalent(&code, &[]);
    assert!(s.runs > 0, "{s:?}");
    let (end, _) = run(&code, &[], true, u64::MAX);
    match end.stops.last() {
        Some(StopReason::Exception(e)) => assert_eq!(e.addr, DATA + DATA_SIZE),
        other => panic!("expected the access violation, got {other:?}"),
    }
}

/// A region that rewrites an immediate in one of its own interior blocks: the store
/// ends the run after it, the region is retired and the new bytes run, as in the
/// interpreter.
#[test]
fn code_write_into_an_interior_block_is_seen() {
    // Assemble once to find the patched instruction's address, then again with it.
    let build = |patch: u32| {
        assemble(|a| {
            let mut top = a.create_label();
            let mut arm = a.create_label();
            let mut join = a.create_label();
            a.mov(ecx, 300u32)?;
            a.set_label(&mut top)?;
            a.test(cl, 3)?;
            a.jnz(arm)?;
            a.inc(dword_ptr(patch))?;
            a.jmp(join)?;
            a.set_label(&mut arm)?;
            a.add(ebx, 0x0101_0101)?;
            a.set_label(&mut join)?;
            a.add(edx, ebx)?;
            a.dec(ecx)?;
            a.jnz(top)?;
            finish(a)
        })
    };
    let probe = build(DATA);
    let mut dec = iced_x86::Decoder::with_ip(32, &probe, CODE as u64, 0);
    let imm_at = dec
        .iter()
        .find(|i| {
            i.mnemonic() == iced_x86::Mnemonic::Add && i.op0_register() == iced_x86::Register::EBX
        })
        .map(|i| i.next_ip32() - 4)
        .unwrap();
    let code = build(imm_at);
    assert_eq!(code.len(), probe.len());
    let s = equivalent_taken(&code, &[]);
    assert!(
        s.matches > 1,
        "the region was not rebuilt after the write: {s:?}"
    );
}

fn declines_of(code: &[u8]) -> (StatsSnapshot, End) {
    let (on, t) = run(code, &[], true, u64::MAX);
    (t.stats(Tier::BlockExec).snapshot(), on)
}

/// Near misses: a loop through a call, a loop of 17 blocks, and a chain of 9 exits
/// stay unfolded with the expected reason (and the programs still run).
#[test]
fn near_misses_stay_unfolded() {
    let call_loop = assemble(|a| {
        let mut top = a.create_label();
        let mut leaf = a.create_label();
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        a.add(eax, ecx)?;
        a.call(leaf)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)?;
        a.set_label(&mut leaf)?;
        a.ret()
    });
    let (s, _) = declines_of(&call_loop);
    assert_eq!(s.matches, 0, "{s:?}");
    assert!(s.decline(Decline::Terminator) > 0, "{s:?}");
    equivalent(&call_loop, &[]);

    // 17 blocks on the cycle: each jz skips one add.
    let long_loop = assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        for k in 0..16 {
            let mut l = a.create_label();
            a.test(ecx, 1 << (k % 8))?;
            a.jz(l)?;
            a.add(eax, k)?;
            a.set_label(&mut l)?;
        }
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = declines_of(&long_loop);
    assert!(s.decline(Decline::Size) > 0, "{s:?}");
    equivalent(&long_loop, &[]);

    // A loop with nine distinct exits.
    let many_exits = assemble(|a| {
        let mut top = a.create_label();
        let mut outs: Vec<_> = (0..9).map(|_| a.create_label()).collect();
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        for (k, l) in outs.iter().enumerate() {
            a.cmp(eax, 1000 + k as u32)?;
            a.je(*l)?;
        }
        a.inc(eax)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        for l in outs.iter_mut() {
            a.set_label(l)?;
            a.nop()?;
        }
        finish(a)
    });
    let (s, _) = declines_of(&many_exits);
    assert_eq!(s.matches, 0, "{s:?}");
    assert!(s.decline(Decline::Size) > 0, "{s:?}");

    // Straight-line code with no cycle.
    let straight = assemble(|a| {
        let mut l = a.create_label();
        a.test(eax, eax)?;
        a.jz(l)?;
        a.inc(ebx)?;
        a.set_label(&mut l)?;
        finish(a)
    });
    let (s, _) = declines_of(&straight);
    assert_eq!(s.matches, 0, "{s:?}");
    assert!(s.decline(Decline::Shape) > 0, "{s:?}");
}

/// With the gate off the matcher still counts what it would take (census mode).
#[test]
fn census_counts_would_be_regions_with_the_gate_off() {
    let shape = bench::region_diamond4(0x8000);
    let (_, t) = run(&shape.code, &shape.init, false, u64::MAX);
    let s = t.stats(Tier::BlockExec).snapshot();
    assert_eq!((s.matches, s.runs), (0, 0));
    assert!(s.decline(Decline::GateOff) > 0, "{s:?}");
    assert!(!Tier::BlockExec.default_on());
    assert!(Tier::BlockExec.available());
}
