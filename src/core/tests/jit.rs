//! The native-code tier `jit` (issue 19): the same guest program with only `jit` on
//! and with every tier off must end with identical registers, materialised flags,
//! EIP, memory, stop reasons, per-slice states and pacing counters (instructions
//! retired, blocks entered), whole and in budget slices of 1, 7, 37 and 1000
//! instructions; and the compiled code must really have run (the tier's counters).

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::jit::JitSnapshot;
use winterp_core::tiers::{Tier, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;

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
}

#[derive(Debug, PartialEq)]
struct End {
    stops: Vec<StopReason>,
    /// Registers, EIP, EFLAGS and instructions retired at every slice boundary.
    states: Vec<([u32; 8], u32, u32, u64)>,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
    code: Vec<u8>,
}

/// Runs `code` in slices; `between(m, k)` runs after slice `k` (host actions).
fn run_with(
    code: &[u8],
    tiers: Arc<Tiers>,
    slice: u64,
    between: &mut dyn FnMut(&mut Machine, usize),
) -> End {
    run_on(Machine::new(), code, tiers, slice, between)
}

fn run_on(
    mut m: Machine,
    code: &[u8],
    tiers: Arc<Tiers>,
    slice: u64,
    between: &mut dyn FnMut(&mut Machine, usize),
) -> End {
    m.exec.set_tiers(tiers);
    init(&m);
    m.load(code);
    // CF set on entry, so INC/DEC's kept CF is visible in the final flags.
    m.cpu.set_eflags(0x2 | 1);
    let mut stops = Vec::new();
    let mut states = Vec::new();
    for k in 0..2_000_000 {
        let s = m.run(slice);
        stops.push(s);
        let mut regs = [0u32; 8];
        regs.copy_from_slice(&m.cpu.regs[..8]);
        states.push((regs, m.cpu.eip, m.cpu.eflags(), m.exec.counters.insns));
        if s != StopReason::BudgetSpent {
            break;
        }
        between(&mut m, k);
    }
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let mut code_now = vec![0u8; code.len()];
    m.mem.read_bytes(CODE, &mut code_now).unwrap();
    End {
        stops,
        states,
        insns: m.exec.counters.insns,
        blocks: m.exec.counters.blocks,
        mem,
        code: code_now,
    }
}

fn gates(on: bool) -> Arc<Tiers> {
    let t = Arc::new(Tiers::all(false));
    t.set(Tier::Jit, on).unwrap();
    t
}

fn same(off: &End, on: &End, what: &str) {
    assert_eq!(off.stops, on.stops, "{what}: stops");
    assert_eq!(off.states.len(), on.states.len(), "{what}: slices");
    for (k, (a, b)) in off.states.iter().zip(&on.states).enumerate() {
        assert_eq!(a, b, "{what}: state after slice {k}");
    }
    assert_eq!(
        (off.insns, off.blocks),
        (on.insns, on.blocks),
        "{what}: counters"
    );
    assert!(off.mem == on.mem, "{what}: memory differs");
    assert!(off.code == on.code, "{what}: code bytes differ");
}

/// Off and on agree for every slice size; the on arm's counters for the whole run
/// and for the 1000-instruction slices.
fn equivalent_with(
    code: &[u8],
    between: &dyn Fn(&mut Machine, usize),
) -> (JitSnapshot, JitSnapshot) {
    let mut whole = None;
    let mut sliced = None;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let toff = gates(false);
        let off = run_with(code, toff.clone(), slice, &mut |m, k| between(m, k));
        assert_eq!(toff.jit.snapshot().entries, 0, "off arm ran compiled code");
        let ton = gates(true);
        let on = run_with(code, ton.clone(), slice, &mut |m, k| between(m, k));
        same(&off, &on, &format!("slice {slice}"));
        // Where the host gives the protected view, the compiled accesses were
        // unchecked: the tested path (hosts without one) must agree too.
        if matches!(slice, u64::MAX | 37) {
            let tt = gates(true);
            let tested = run_on(
                Machine::new_tested(),
                code,
                tt.clone(),
                slice,
                &mut |m, k| between(m, k),
            );
            same(&off, &tested, &format!("slice {slice}, tested accesses"));
            assert_eq!(
                tt.jit.snapshot().exit_host_fault,
                0,
                "tested accesses faulted"
            );
        }
        let s = ton.jit.snapshot();
        if slice == u64::MAX {
            whole = Some(s);
        }
        if slice == 1000 {
            sliced = Some(s);
        }
    }
    (whole.unwrap(), sliced.unwrap())
}

/// One memory slow path was taken: the side exit of a tested access, or the
/// host fault of an unchecked one, after which the regions holding it were
/// compiled with tested accesses, whose side exit may then take it again (the
/// interpreter repeated the code since the last spill point).
fn one_slow_path(s: &JitSnapshot) -> bool {
    if s.exit_host_fault == 0 {
        s.exit_resume == 1
    } else {
        s.exit_host_fault == 1 && s.exit_resume <= 1 && s.rechecked >= 1
    }
}

/// Run whole with the tier on, `code` stops at a guest exception.
fn ends_in_an_exception(code: &[u8]) {
    let on = run_with(code, gates(true), u64::MAX, &mut |_, _| {});
    assert!(
        matches!(on.stops.last(), Some(StopReason::Exception(_))),
        "{:?}",
        on.stops.last()
    );
}

fn equivalent(code: &[u8]) -> (JitSnapshot, JitSnapshot) {
    equivalent_with(code, &|_, _| {})
}

/// With background compiles (the app's and the bench's setting) a hot block runs
/// on the interpreter until its code arrives, which is mapped at a block boundary:
/// the end state, every slice's state and the pacing counters stay the
/// interpreter's whatever the timing. The run is repeated (bounded) until compiled
/// code has run, so a starved worker thread makes the test slower, never wrong.
#[test]
fn jit_background_compile_matches_the_interpreter() {
    let code = mix(20_000);
    let off = run_with(&code, gates(false), 1000, &mut |_, _| {});
    let mut ran = 0;
    for _ in 0..50 {
        let t = gates(true);
        t.set_jit_background(true);
        // A pause now and then between slices lets the worker finish.
        let on = run_with(&code, t.clone(), 1000, &mut |_, k| {
            if k % 50 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        same(&off, &on, "background compile");
        let s = t.jit.snapshot();
        ran += s.blocks();
        if s.compiled > 0 && ran > 1000 {
            return;
        }
    }
    panic!("no compiled code ran in 50 runs with background compiles");
}

/// Register and memory ALU forms, flags read by Jcc across blocks, ADC/SBB carry
/// chains, INC/DEC keeping CF, MOVZX/MOVSX from registers and memory, PUSH/POP,
/// LEA with scaled indices, NEG/NOT and a call to a leaf function.
fn mix(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut head = a.create_label();
        let mut odd = a.create_label();
        let mut join = a.create_label();
        let mut leaf = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.xor(edx, edx)?;
        a.mov(esp, DATA + 0x1f_0000)?;
        a.jmp(head)?;
        a.set_label(&mut leaf)?;
        a.add(eax, dword_ptr(esp + 4))?;
        a.ret_1(4)?;
        a.set_label(&mut head)?;
        a.mov(eax, dword_ptr(esi))?;
        a.movzx(ebx, byte_ptr(esi + 1))?;
        a.movsx(ebp, word_ptr(esi + 2))?;
        a.test(eax, 1)?;
        a.jnz(odd)?;
        a.add(edx, eax)?;
        a.adc(edx, ebx)?;
        a.sbb(ebp, 7)?;
        a.movzx(ebx, ah)?;
        a.movsx(eax, bx)?;
        a.jmp(join)?;
        a.set_label(&mut odd)?;
        a.xor(edx, ebp)?;
        a.add(dword_ptr(edi), ebx)?;
        a.sub(dword_ptr(edi + 4), 3)?;
        a.neg(ebx)?;
        a.not(ebp)?;
        a.push(ebx)?;
        a.push(0x1234_5678)?;
        a.pop(ebx)?;
        a.pop(eax)?;
        a.push(edx)?;
        a.call(leaf)?;
        a.set_label(&mut join)?;
        a.lea(edi, ptr(edi + eax * 4 + 4))?;
        a.and(edi, 0xfffc)?;
        a.add(edi, DST)?;
        a.or(edx, 0x10)?;
        a.cmp(edx, ebp)?;
        a.adc(esi, 1)?;
        a.inc(edx)?;
        a.dec(ecx)?;
        a.jg(head)?;
        finish(a)
    })
}

#[test]
fn jit_mixed_integer_loop_matches_the_interpreter() {
    let code = mix(5000);
    let (whole, sliced) = equivalent(&code);
    let on = run_with(&code, gates(true), u64::MAX, &mut |_, _| {});
    assert_eq!(on.stops, [StopReason::Thunk(EXIT)], "ran to its end");
    // One region can take the whole loop, the CALL and the leaf's RET included.
    assert!(whole.compiled >= 1 && whole.region_blocks >= 3, "{whole:?}");
    assert!(whole.blocks() > 10_000, "{whole:?}");
    assert!(whole.insns > 50_000, "{whole:?}");
    assert!(sliced.blocks() > 5_000, "{sliced:?}");
    assert_eq!(whole.exit_fault, 0, "{whole:?}");
    // Compile time per unit: the percentiles are bucket upper bounds; with fewer
    // than 100 units the 99th percentile is the slowest unit's bucket.
    assert!(whole.compiled < 100, "{whole:?}");
    assert!(whole.compile_ns_p50 > 0, "{whole:?}");
    assert!(whole.compile_ns_p50 <= whole.compile_ns_p99, "{whole:?}");
    assert!(whole.compile_ns_max <= whole.compile_ns_p99, "{whole:?}");
    assert!(
        whole.compile_ns_max * 9 / 8 >= whole.compile_ns_p99,
        "{whole:?}"
    );
    // Code memory: held while the executor lived, all freed with it.
    assert!(whole.code_bytes_peak > 0, "{whole:?}");
    assert!(whole.code_bytes_peak <= whole.code_bytes, "{whole:?}");
    assert_eq!(
        whole.code_bytes_live, 0,
        "freed with the executor: {whole:?}"
    );
}

/// Every condition code after every kind of flag writer the tier records, with
/// the branch in its own block so the condition is also read from the record
/// left in `cpu.flags` (first instruction of the next block).
#[test]
fn jit_conditions_after_every_writer_match_the_interpreter() {
    type W = fn(&mut A) -> R;
    let writers: [W; 8] = [
        |a| a.add(eax, ebx),
        |a| a.sub(eax, ebx),
        |a| a.cmp(eax, ebx),
        |a| a.and(eax, ebx),
        |a| a.adc(eax, ebx),
        |a| a.sbb(eax, ebx),
        |a| a.inc(eax),
        |a| a.neg(eax),
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(ecx, 3000)?;
            a.xor(edx, edx)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.add(esi, 3)?;
            // Small and boundary values now and then.
            a.and(ebx, dword_ptr(esi + 8))?;
            write(a)?;
            for cc in 0..16u8 {
                // jcc rel8 (0x70 + cc) over the one-byte `inc edx`.
                a.db(&[0x70 + cc, 1])?;
                a.inc(edx)?;
                a.add(edx, edx)?;
                // The record must also survive into the next block's branch.
                if cc == 7 {
                    let mut on = a.create_label();
                    a.jmp(on)?;
                    a.set_label(&mut on)?;
                }
            }
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "writer {w}: {whole:?}");
    }
}

/// A block's first carry reader (ADC, SBB, INC, DEC) takes CF from the record the
/// previous block left in `cpu.flags`, computed inline for every kind of record
/// (32- and 8-bit arithmetic with and without carry-in and with equal operands,
/// logic, INC/DEC's kept CF, the eager shift and IMUL records); and an IMUL whose
/// kept flags are overwritten before anything can see them.
#[test]
fn jit_incoming_carry_after_every_record_matches_the_interpreter() {
    type W = fn(&mut A) -> R;
    let writers: [W; 14] = [
        |a| a.add(eax, ebx),
        |a| a.adc(eax, ebx),
        |a| a.sub(eax, ebx),
        |a| a.sbb(eax, ebx),
        |a| a.cmp(eax, eax),
        |a| a.sbb(eax, eax),
        |a| a.xor(eax, ebx),
        |a| a.inc(eax),
        |a| a.dec(eax),
        |a| a.shl(eax, 3),
        |a| a.imul_3(eax, ebx, 0x10001),
        |a| a.add(al, bl),
        |a| a.sbb(al, bl),
        |a| a.neg(eax),
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(ecx, 3000)?;
            a.xor(edx, edx)?;
            a.xor(edi, edi)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.add(esi, 3)?;
            // Equal and boundary values now and then.
            a.and(ebx, dword_ptr(esi + 8))?;
            a.test(ebx, 0x30)?;
            a.cmove(ebx, eax)?;
            a.bt(ebx, 9)?;
            write(a)?;
            for k in 0..4 {
                let mut next = a.create_label();
                a.jmp(next)?;
                a.set_label(&mut next)?;
                match k {
                    0 => a.adc(edx, 0)?,
                    1 => a.sbb(edi, edx)?,
                    2 => a.inc(edx)?,
                    _ => a.dec(edi)?,
                }
                a.adc(edx, edx)?;
                // The record again for the next reader.
                write(a)?;
            }
            // IMUL's kept flags are dead: the SUB overwrites them.
            a.imul_3(ebp, eax, 7)?;
            a.sub(ebp, ebx)?;
            a.adc(edx, ebp)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 10_000, "writer {w}: {whole:?}");
    }
}

/// Reads run off the end of the data region: compiled code hands the faulting
/// load to the interpreter (its slow path, one `resume` exit) with the state of the
/// interpreter before it, and the fault is raised at the exact instruction.
#[test]
fn jit_fault_in_the_middle_of_a_block_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, DATA + DATA_SIZE - 0x3000)?;
        a.xor(eax, eax)?;
        a.set_label(&mut head)?;
        // The faulting load is third in its block, after a flag writer and a
        // register write that must be visible at the fault.
        a.inc(edx)?;
        a.lea(ebx, ptr(esi + 1))?;
        a.add(eax, dword_ptr(esi))?;
        a.add(esi, 4)?;
        a.jmp(head)
    });
    let (whole, _) = equivalent(&code);
    assert!(whole.blocks() > 2_000, "{whole:?}");
    assert!(one_slow_path(&whole), "{whole:?}");
    ends_in_an_exception(&code);
}

/// Forms the tier does not generate code for run inside compiled blocks through
/// their interpreter handlers (`Ins::Interp`): shifts and rotates by CL, RCL, SHLD,
/// MUL/DIV/IDIV with CDQ, 16-bit ALU and moves, INC/NEG/NOT on memory and bytes,
/// XCHG, BSWAP, BT, REP MOVSD/STOSB, LODSB, x87 and MMX arithmetic, RDTSC, LEAVE;
/// all in self-loops and in blocks that link, with flags read across the calls.
#[test]
fn jit_helper_forms_match_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut other = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebp, 2000)?;
        a.mov(esp, DATA + 0x1f_0000)?;
        a.fninit()?;
        a.set_label(&mut head)?;
        a.mov(eax, dword_ptr(esi))?;
        a.mov(ebx, dword_ptr(esi + 4))?;
        a.mov(ecx, dword_ptr(esi + 8))?;
        a.shl(eax, cl)?;
        a.ror(ebx, cl)?;
        a.rcl(eax, 3)?;
        a.adc(edx, eax)?;
        a.shld(edx, ebx, cl)?;
        a.push(edx)?;
        a.mul(ebx)?;
        a.or(ebx, 1)?;
        a.cdq()?;
        a.idiv(ebx)?;
        a.pop(ecx)?;
        a.add(cx, ax)?;
        a.mov(word_ptr(edi + 8), cx)?;
        a.inc(dword_ptr(edi))?;
        a.neg(byte_ptr(edi + 1))?;
        a.not(dh)?;
        a.xchg(eax, edx)?;
        a.bswap(ecx)?;
        a.bt(ecx, 5)?;
        a.sbb(eax, 0)?;
        a.test(ebp, 1)?;
        a.jz(other)?;
        // Odd passes: strings, x87, MMX and RDTSC, then a plain loop back.
        a.push(esi)?;
        a.push(edi)?;
        a.lea(edi, ptr(edi + 16))?;
        a.mov(ecx, 3)?;
        a.rep().movsd()?;
        a.mov(ecx, 5)?;
        a.rep().stosb()?;
        a.lodsb()?;
        a.pop(edi)?;
        a.pop(esi)?;
        a.fild(dword_ptr(esi))?;
        a.fiadd(dword_ptr(esi + 4))?;
        a.fistp(dword_ptr(edi + 32))?;
        a.movd(mm0, eax)?;
        a.movd(mm1, edx)?;
        a.paddd(mm0, mm1)?;
        a.movd(dword_ptr(edi + 40), mm0)?;
        a.emms()?;
        a.rdtsc()?;
        a.and(eax, 0xff)?;
        a.add(dword_ptr(edi + 44), eax)?;
        a.set_label(&mut other)?;
        // A frame built and left with LEAVE.
        a.push(ebp)?;
        a.mov(ebp, esp)?;
        a.sub(esp, 16)?;
        a.mov(dword_ptr(ebp - 4), eax)?;
        a.leave()?;
        a.add(esi, 5)?;
        a.and(esi, SRC + 0xfff0)?;
        a.dec(ebp)?;
        a.jnz(head)?;
        finish(a)
    });
    let (whole, sliced) = equivalent(&code);
    assert!(whole.blocks() > 2_000 && whole.insns > 50_000, "{whole:?}");
    assert!(sliced.blocks() > 1_000, "{sliced:?}");
}

/// DIV by zero in the middle of a compiled block: #DE at the DIV, raised by its
/// handler, with the registers and flags the instructions before it left.
#[test]
fn jit_divide_error_in_a_compiled_block_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 3000)?;
        a.set_label(&mut head)?;
        a.movzx(ebx, byte_ptr(esi))?;
        a.add(edx, ebx)?;
        a.mov(eax, ecx)?;
        a.xor(edx, edx)?;
        // EBX is zero the first time a data byte is.
        a.div(ebx)?;
        a.add(edi, eax)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    let m = Machine::new();
    init(&m);
    let mut zero = 0;
    while m.mem.read_u8(SRC + zero).unwrap() != 0 {
        zero += 1;
    }
    assert!(
        zero > 100,
        "a zero byte after the loop has compiled ({zero})"
    );
    // DIV r32 is compiled: its divide error leaves for the interpreter (a side
    // exit, `exit_resume`), which raises it at the exact instruction.
    let (whole, _) = equivalent(&code);
    assert!(
        whole.exit_fault + whole.exit_resume + whole.exit_host_fault == 1 || one_slow_path(&whole),
        "{whole:?}"
    );
    ends_in_an_exception(&code);
    // A quotient over 32 bits: EDX:EAX = 2^32 + ECX over 1 when the byte is 1.
    let overflow = assemble(|a| {
        let mut head = a.create_label();
        let mut one = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 3000)?;
        a.set_label(&mut head)?;
        a.movzx(ebx, byte_ptr(esi))?;
        a.xor(edx, edx)?;
        a.cmp(ebx, 1)?;
        a.sete(dl)?;
        a.jne(one)?;
        a.set_label(&mut one)?;
        a.or(ebx, 1)?;
        a.mov(eax, ecx)?;
        a.div(ebx)?;
        a.add(edi, eax)?;
        a.add(ebp, edx)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    let (whole, _) = equivalent(&overflow);
    assert!(whole.insns > 0 && one_slow_path(&whole), "{whole:?}");
}

/// A push walks ESP into unmapped memory: the fault is raised at the push with
/// ESP unchanged.
#[test]
fn jit_push_into_an_unmapped_stack_page_matches_the_interpreter() {
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
    let (whole, _) = equivalent(&code);
    assert!(whole.blocks() > 1_000, "{whole:?}");
    assert!(one_slow_path(&whole), "{whole:?}");
}

/// A join block stores and then loads before it writes flags: with unchecked
/// accesses the load is a spill point (a store ran since the last one), so the
/// flags its predecessors left must be in `cpu` when it faults. The load walks
/// off the end of the data into an unmapped page at iteration 512 of a hot
/// loop; the exception's state carries the flags of ADD or SUB, whichever
/// branch ran last.
#[test]
fn jit_fault_after_a_store_in_a_join_block_keeps_the_incoming_flags() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut even = a.create_label();
        let mut join = a.create_label();
        a.mov(ecx, 1000)?;
        a.xor(edi, edi)?;
        a.mov(eax, 0x7fff_fff0)?;
        a.set_label(&mut top)?;
        a.test(ecx, 1)?;
        a.jz(even)?;
        a.add(eax, 0x0123_4567)?;
        a.jmp(join)?;
        a.set_label(&mut even)?;
        a.sub(eax, 0x7654_3210)?;
        a.jmp(join)?;
        a.set_label(&mut join)?;
        a.mov(dword_ptr(DST), eax)?;
        a.mov(ebx, dword_ptr(edi * 4 + (DATA + DATA_SIZE - 0x800)))?;
        a.add(edi, 1)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (whole, _) = equivalent(&code);
    assert!(whole.blocks() > 1_000, "{whole:?}");
    assert!(one_slow_path(&whole), "{whole:?}");
}

/// A loop head joined by the loop's own edge and by a path that stores, then
/// changes a register and the flags: the store path spills on its edge into the
/// head (the head, whose first instruction loads, would otherwise spill on every
/// turn). The load walks into an unmapped page right after the 512th store
/// path, so the fault finds the state that edge left: EDI and EBP assigned after
/// the store, SUB's flags, the counters (and resumes after the store: the ADD
/// into memory repeated would show).
#[test]
fn jit_fault_at_a_loop_head_after_a_storing_edge_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.xor(edi, edi)?;
        a.xor(edx, edx)?;
        a.mov(ebp, 0x7fff_fff0)?;
        a.set_label(&mut head)?;
        a.mov(eax, dword_ptr(edi * 4 + (DATA + DATA_SIZE - 0x800)))?;
        a.inc(edx)?;
        a.test(edx, 7)?;
        a.jnz(head)?;
        a.add(dword_ptr(DST), edx)?;
        a.add(edi, 1)?;
        a.sub(ebp, 0x7654_3210)?;
        a.jmp(head)
    });
    let (whole, _) = equivalent(&code);
    assert!(whole.blocks() > 4_000, "{whole:?}");
    assert!(one_slow_path(&whole), "{whole:?}");
    ends_in_an_exception(&code);
}

/// A hot compiled block stores into its own bytes (the immediate of an ADD after
/// the store, in the same block) at one iteration: the compiled code hands the
/// store to the interpreter (a page holding code is a slow path), which leaves
/// right after it; the block is retired, and the new immediate takes effect at
/// once, as in the interpreter.
#[test]
fn jit_store_into_a_running_compiled_block_matches_the_interpreter() {
    let build = |target: u32| {
        assemble(|a| {
            let mut head = a.create_label();
            a.mov(ecx, 6000)?;
            a.xor(edx, edx)?;
            a.mov(ebx, target)?;
            a.mov(ebp, (DST.wrapping_sub(target)) as i32)?;
            a.mov(edi, 0x0200_0000)?;
            a.set_label(&mut head)?;
            // eax = target when ecx == 3000, else DST (all in the vocabulary).
            a.mov(eax, ecx)?;
            a.sub(eax, 3000)?;
            a.neg(eax)?;
            a.sbb(eax, eax)?;
            a.and(eax, ebp)?;
            a.add(eax, ebx)?;
            a.mov(dword_ptr(eax), edi)?;
            a.add(edx, 0x0100_0000)?;
            a.add(edx, ecx)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        })
    };
    // Find the ADD's immediate, then assemble again aiming the store at it (the
    // layout does not depend on the target).
    let probe = build(0);
    let mut d = iced_x86::Decoder::with_ip(32, &probe, CODE as u64, iced_x86::DecoderOptions::NONE);
    let add = d
        .iter()
        .find(|i| i.code() == iced_x86::Code::Add_rm32_imm32)
        .expect("the patched ADD");
    let target = add.next_ip32() - 4;
    let code = build(target);
    assert_eq!(code.len(), probe.len());
    let (whole, sliced) = equivalent(&code);
    assert!(whole.blocks() > 5_000, "{whole:?}");
    assert!(one_slow_path(&whole), "{whole:?}");
    assert!(sliced.blocks() > 2_000, "{sliced:?}");
}

/// Runs `code` in slices of 1000 with every tier off and with `jit` on, the host
/// writing `value` at `at` after slice `k` in both; the two must end alike. Returns
/// the on arm's counters.
fn host_write_off_and_on(code: &[u8], k: usize, at: u32, value: u32, what: &str) -> JitSnapshot {
    let patch = move |m: &mut Machine, slice: usize| {
        if slice == k {
            m.mem.write_bytes(at, &value.to_le_bytes()).unwrap();
        }
    };
    let off = run_with(code, gates(false), 1000, &mut |m, s| patch(m, s));
    let ton = gates(true);
    let on = run_with(code, ton.clone(), 1000, &mut |m, s| patch(m, s));
    same(&off, &on, what);
    ton.jit.snapshot()
}

/// The host writes into a hot compiled loop between two runs (as another thread's
/// store or the loader would): the compiled code is retired and the new bytes run.
#[test]
fn jit_host_write_into_compiled_code_matches_the_interpreter() {
    let code = assemble(|a| {
        let mut head = a.create_label();
        a.mov(ecx, 50_000)?;
        a.xor(edx, edx)?;
        a.set_label(&mut head)?;
        a.add(edx, 0x0100_0000)?;
        a.add(edx, ecx)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        finish(a)
    });
    let mut d = iced_x86::Decoder::with_ip(32, &code, CODE as u64, iced_x86::DecoderOptions::NONE);
    let add = d
        .iter()
        .find(|i| i.code() == iced_x86::Code::Add_rm32_imm32)
        .expect("the patched ADD");
    let at = add.next_ip32() - 4;
    // Slices of 1000: the write lands after 41,000 instructions, in the hot loop.
    let s = host_write_off_and_on(&code, 40, at, 0x0300_0000, "host write");
    assert!(s.compiled >= 2, "compiled again after the write: {s:?}");
    assert!(s.blocks() > 40_000, "{s:?}");
}

/// A region entered at a block other than its head: H is hot first and its
/// region takes M, C and IND (M and C may be entered from outside); in the
/// second phase the loop runs M, C, IND and back to M through an indirect jump,
/// never through H, so M is entered from the run loop and through links at the
/// region's entry for it. `patch` (slice, address, bytes) writes into the
/// region between slices.
fn member_entry_loop(m_at: u32) -> Vec<u8> {
    assemble(|a| {
        let mut h = a.create_label();
        let mut m = a.create_label();
        let mut done = a.create_label();
        a.mov(ecx, 20_000)?;
        a.xor(edx, edx)?;
        a.mov(esi, m_at)?;
        a.set_label(&mut h)?;
        a.add(edx, 0x0100_0000)?;
        a.jmp(m)?;
        a.set_label(&mut m)?;
        a.add(edx, ecx)?;
        a.dec(ecx)?;
        a.jz(done)?;
        a.cmp(ecx, 15_000)?;
        a.ja(h)?;
        a.jmp(esi)?;
        a.set_label(&mut done)?;
        finish(a)
    })
}

/// The program of [`member_entry_loop`] with its indirect jump aimed at M, and
/// the address of C's CMP immediate.
fn member_entry_program() -> (Vec<u8>, u32) {
    let probe = member_entry_loop(0);
    let find = |code: &[u8], c: iced_x86::Code| {
        iced_x86::Decoder::with_ip(32, code, CODE as u64, iced_x86::DecoderOptions::NONE)
            .iter()
            .find(|i| i.code() == c)
            .expect("instruction in the program")
    };
    let m_at = find(&probe, iced_x86::Code::Add_rm32_r32).ip32();
    let code = member_entry_loop(m_at);
    assert_eq!(code.len(), probe.len());
    let cmp = find(&code, iced_x86::Code::Cmp_rm32_imm32);
    (code, cmp.next_ip32() - 4)
}

#[test]
fn jit_region_entered_at_another_block_matches_the_interpreter() {
    let (code, _) = member_entry_program();
    let (whole, sliced) = equivalent(&code);
    // The second phase never runs H: its 15,000 iterations enter the region's
    // code at M (IND, an indirect jump alone, stays the interpreter's).
    assert!(whole.entry_blocks >= 1, "{whole:?}");
    assert!(
        whole.entries > 10_000 && whole.blocks() > 40_000,
        "{whole:?}"
    );
    assert!(
        sliced.entry_blocks >= 1 && sliced.blocks() > 20_000,
        "{sliced:?}"
    );
}

/// The host rewrites C's CMP immediate while the loop runs entered at M (a
/// block of the region other than the one written): M's hold on the region's
/// code is retired with it, and the new bound sends the loop back through H at
/// once, as in the interpreter.
#[test]
fn jit_write_into_a_region_entered_at_another_block_retires_that_entry() {
    let (code, at) = member_entry_program();
    // Slices of 1000: the write lands after 60,000 instructions, in the second
    // phase (ECX about 11,500), lowering the bound to 5,000.
    let s = host_write_off_and_on(&code, 59, at, 5_000, "write into the region");
    assert!(s.entry_blocks >= 1, "{s:?}");
    assert!(s.compiled >= 2, "compiled again after the write: {s:?}");
    assert!(s.blocks() > 30_000, "{s:?}");
}

/// The gate switched off and on every 5000 instructions while the loop runs in
/// compiled code: the switch retires the code at the next block boundary and
/// the end state is the interpreter's.
#[test]
fn jit_switched_off_and_on_while_running_matches_the_interpreter() {
    let code = mix(20_000);
    let toggle = |m: &mut Machine, k: usize| {
        let t = m.exec.tiers().clone();
        t.set(Tier::Jit, k % 2 == 1).unwrap();
    };
    let off = run_with(&code, gates(false), 5000, &mut |m, _| {
        let t = m.exec.tiers().clone();
        t.set(Tier::Jit, false).unwrap();
    });
    let ton = gates(true);
    let on = run_with(&code, ton.clone(), 5000, &mut |m, k| toggle(m, k));
    same(&off, &on, "toggled");
    let s = ton.jit.snapshot();
    assert!(s.compiled > 6, "compiled again after each switch on: {s:?}");
}

/// Every shape `winterp bench` runs ends identically with only `jit` on; the
/// null control shape still runs in the tier (a leaf call loop), so only the end
/// state is compared there.
#[test]
fn jit_bench_shapes_end_identically() {
    use winterp_core::bench;
    let mut ran = 0;
    for shape in bench::standard(1) {
        let off = bench::end_state(&shape, Arc::new(Tiers::all(false))).unwrap();
        let on_tiers = gates(true);
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
        if on_tiers.jit.snapshot().entries > 0 {
            ran += 1;
        }
    }
    assert!(ran >= 5, "the tier ran in only {ran} shapes");
}

/// `winterp bench` (no toggle) with the tier on, as it now runs by default: repeat
/// runs of a shape do the same guest work (instructions and blocks) though the
/// dispatches they make depend on when the background compiles land (the check
/// compared every counter and refused the second run).
#[test]
fn jit_bench_repeats_with_background_compiles() {
    use winterp_core::bench;
    let mut shapes = bench::standard(1);
    shapes.retain(|s| ["reg_alu", "block_mix"].contains(&s.name));
    let cfg = bench::RunConfig::default().with("jit", true).unwrap();
    let res = bench::run_all_with(&shapes, 3, cfg).unwrap();
    for r in &res {
        assert_eq!(r.samples.len(), 3, "{}", r.name);
        let work = |k: usize| (r.samples[k].counters.insns, r.samples[k].counters.blocks);
        assert!((1..3).all(|k| work(k) == work(0)), "{}: guest work", r.name);
        // Compiled code ran: far fewer dispatches than instructions.
        assert!(
            r.dispatches_per_insn() < 0.5,
            "{}: {} dispatches per instruction",
            r.name,
            r.dispatches_per_insn()
        );
    }
}

/// `winterp bench --toggle jit` without the app: the same `bench::run_toggle` on
/// the shapes, paired ratios printed (a measurement, not a check; run with
/// `cargo test --release -p winterp-core --test jit -- --ignored --nocapture`).
#[test]
#[ignore]
fn jit_bench_toggle_paired_ratios() {
    use winterp_core::bench;
    let reps: usize = std::env::var("JIT_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    // `JIT_BENCH_SHAPES=a,b` measures other shapes of `bench::standard`.
    let names = std::env::var("JIT_BENCH_SHAPES")
        .unwrap_or_else(|_| "reg_alu,block_mix,call_ret,null".into());
    let names: Vec<&str> = names.split(',').collect();
    let mut shapes = bench::standard(1);
    shapes.retain(|s| names.contains(&s.name));
    let res = bench::run_toggle(&shapes, reps, "jit").unwrap();
    for (off, on) in &res {
        println!(
            "{:10} off {:7.2} ns/iter (min {:7.2}) on {:7.2} ns/iter (min {:7.2}) paired off/on {:.2}x  insns {} blocks/iter {:.2} dispatches/iter {:.2} -> {:.2}",
            off.name,
            off.ns_per_iter_median(),
            off.ns_per_iter_min(),
            on.ns_per_iter_median(),
            on.ns_per_iter_min(),
            bench::paired_ratio_median(off, on),
            off.insns(),
            off.blocks_per_iter(),
            off.dispatches_per_iter(),
            on.dispatches_per_iter()
        );
    }
}

/// CPU time of every thread of this process so far (Linux: `/proc/self/task/*/
/// schedstat`, nanoseconds on CPU; threads that ended are not counted, 0 elsewhere).
fn cpu_ns() -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// One shape (`JIT_SHAPE`, default block_mix) with only `jit` on: wall time and the
/// tier's counters (compile time per unit, code bytes), for tuning the compiler.
#[test]
#[ignore]
fn jit_shape_once_with_stats() {
    use winterp_core::bench;
    let name = std::env::var("JIT_SHAPE").unwrap_or_else(|_| "block_mix".into());
    let shape = bench::standard(1)
        .into_iter()
        .find(|s| s.name == name)
        .expect("a standard shape");
    // `JIT_BG=1`: compile in the background, as the bench and the app do.
    let bg = std::env::var("JIT_BG").is_ok_and(|v| v == "1");
    // `JIT_ONLY_ON=1`: the on arm alone (for a profile of compiled runs).
    let arms: &[bool] = if std::env::var("JIT_ONLY_ON").is_ok_and(|v| v == "1") {
        &[true]
    } else {
        &[false, true]
    };
    for &on in arms {
        let t = gates(on);
        t.set_jit_background(bg);
        let (_, _, _, c) = bench::end_state(&shape, t.clone()).unwrap();
        let t0 = std::time::Instant::now();
        let cpu0 = cpu_ns();
        let t2 = gates(on);
        t2.set_jit_background(bg);
        let (_, _, _, c2) = bench::end_state(&shape, t2).unwrap();
        let secs = t0.elapsed().as_secs_f64();
        let cpu = cpu_ns().saturating_sub(cpu0) as f64 / 1e9;
        assert_eq!(c.insns, c2.insns);
        println!(
            "{name} jit={on}: {secs:.3} s wall, {cpu:.3} s CPU (all threads); {}",
            t.jit.snapshot().to_json()
        );
    }
}

/// SHL/SHR/SAR by CL with counts from the data (every count 0..=31 comes up; 0
/// changes nothing, flags included, and is handed to the interpreter), after a
/// SUB whose record a count of 0 leaves, read by every condition code and by ADC.
#[test]
fn jit_shifts_by_cl_match_the_interpreter() {
    type W = fn(&mut A) -> R;
    // With the conditions reading the shift's flags, and with an ADD between
    // (nothing observes the shift's flags: compiled without the count-0 exit).
    let shifts: [(W, bool); 6] = [
        (|a| a.shl(eax, cl), true),
        (|a| a.shr(eax, cl), true),
        (|a| a.sar(eax, cl), true),
        (
            |a| {
                a.shl(eax, cl)?;
                a.add(eax, edx)
            },
            false,
        ),
        (
            |a| {
                a.shr(eax, cl)?;
                a.add(eax, edx)
            },
            false,
        ),
        (
            |a| {
                a.sar(eax, cl)?;
                a.add(eax, edx)
            },
            false,
        ),
    ];
    let mut resumes: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    for (w, &(shift, observed)) in shifts.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(ebp, 3000)?;
            a.xor(edx, edx)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ecx, dword_ptr(esi + 4))?;
            a.add(esi, 3)?;
            a.sub(eax, dword_ptr(esi + 8))?;
            shift(a)?;
            for cc in 0..16u8 {
                a.db(&[0x70 + cc, 1])?;
                a.inc(edx)?;
                if cc == 3 {
                    a.adc(edx, edx)?;
                }
                a.add(edx, eax)?;
            }
            a.dec(ebp)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "shift {w}: {whole:?}");
        resumes[observed as usize].push(whole.exit_resume);
    }
    // Counts of 0 (about one in 32 iterations) went to the interpreter where the
    // flags they keep are observed, and stayed in compiled code where not; both
    // arms also resume at the few dword loads that cross a page.
    for (dead, live) in resumes[0].iter().zip(&resumes[1]) {
        assert!(
            dead * 4 < *live,
            "resumes: unobserved {dead}, observed {live}"
        );
    }
}

/// The flag writers the tier computes eagerly (SHL/SHR/SAR by constants, IMUL with
/// two and three operands keeping SF ZF AF PF from the record before it, in the
/// block or entered with it), read by every condition code and by INC's kept CF,
/// in the block and in the next one.
#[test]
fn jit_eager_flag_writers_match_the_interpreter() {
    type W = fn(&mut A) -> R;
    let writers: [W; 9] = [
        |a| a.shl(eax, 1),
        |a| a.shl(eax, 13),
        |a| a.shr(eax, 7),
        |a| a.shr(eax, 1),
        |a| a.sar(eax, 31),
        |a| {
            a.add(eax, ebx)?;
            a.imul_2(eax, ebx)
        },
        |a| a.imul_3(eax, ebx, 0x10001),
        |a| {
            a.sub(eax, ebx)?;
            a.imul_3(eax, dword_ptr(esi), 3)
        },
        |a| {
            // IMUL first in its block: SF ZF AF PF kept from the incoming flags.
            a.sub(eax, ebx)?;
            let mut l = a.create_label();
            a.jmp(l)?;
            a.set_label(&mut l)?;
            a.imul_2(eax, dword_ptr(esi + 12))
        },
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(ecx, 3000)?;
            a.xor(edx, edx)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.add(esi, 3)?;
            a.and(ebx, dword_ptr(esi + 8))?;
            write(a)?;
            for cc in 0..16u8 {
                a.db(&[0x70 + cc, 1])?;
                a.inc(edx)?;
                if cc == 3 {
                    // CF read by ADC right after the writer's record.
                    a.adc(edx, edx)?;
                }
                a.add(edx, edx)?;
                if cc == 7 {
                    let mut on = a.create_label();
                    a.jmp(on)?;
                    a.set_label(&mut on)?;
                }
            }
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "writer {w}: {whole:?}");
    }
}

/// Blocks linked to each other through the link table: a dispatcher reaching four
/// routines by `jmp [table + eax*4]`, `call [table + eax*4]` and `call ebx`, the
/// routines returning by RET; then a `jmp [mem]` reading an unmapped address faults
/// at the JMP (in the interpreter: that block runs once).
#[test]
fn jit_indirect_branches_and_links_match_the_interpreter() {
    let table = DATA + 0x1_0000;
    let code = assemble(|a| {
        let mut head = a.create_label();
        let mut back = a.create_label();
        let mut odd = a.create_label();
        let mut via = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 6000)?;
        a.xor(edx, edx)?;
        a.mov(esp, DATA + 0x1f_0000)?;
        // EBP = the address of the POP; four 16-byte routines follow a 5-byte JMP.
        let mut anchor = a.create_label();
        a.call(anchor)?;
        a.set_label(&mut anchor)?;
        a.pop(ebp)?;
        a.db(&[0xe9, 64, 0, 0, 0])?;
        for k in 0..4u8 {
            // add edx, k+1; imul edx, edx, 3; shr edx, 1; ret; 7 NOPs.
            a.db(&[0x83, 0xc2, k + 1, 0x6b, 0xd2, 0x03, 0xd1, 0xea, 0xc3])?;
            a.db(&[0x90; 7])?;
        }
        for k in 0..4u32 {
            a.lea(eax, ptr(ebp + (6 + 16 * k)))?;
            a.mov(dword_ptr(table + 4 * k), eax)?;
        }
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.inc(esi)?;
        a.and(eax, 3)?;
        a.mov(ebx, dword_ptr(eax * 4 + table))?;
        a.test(ecx, 1)?;
        a.jnz(odd)?;
        a.call(dword_ptr(eax * 4 + table))?;
        a.call(ebx)?;
        a.jmp(back)?;
        a.set_label(&mut odd)?;
        a.call(via)?;
        a.set_label(&mut back)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        // Off the end of the data region: faults at the JMP's read.
        a.jmp(dword_ptr(DATA + DATA_SIZE))?;
        a.set_label(&mut via)?;
        a.jmp(dword_ptr(eax * 4 + table))
    });
    let (whole, _) = equivalent(&code);
    let on = run_with(&code, gates(true), u64::MAX, &mut |_, _| {});
    assert!(
        matches!(on.stops[..], [StopReason::Exception(_)]),
        "{:?}",
        on.stops
    );
    assert!(whole.linked > 10_000, "{whole:?}");
}

/// The 8-bit forms (MOV and the ALU ops on AL..BH and byte memory, records with sign
/// bit 7), SETcc into a register and into memory, and CMOVcc, after every condition.
#[test]
fn jit_byte_forms_setcc_and_cmov_match_the_interpreter() {
    type W = fn(&mut A) -> R;
    let writers: [W; 8] = [
        |a| a.add(al, bl),
        |a| a.sub(ah, bl),
        |a| a.cmp(al, byte_ptr(esi + 1)),
        |a| a.and(bh, al),
        |a| a.adc(al, bh),
        |a| a.sbb(bl, 0x80),
        |a| a.xor(byte_ptr(esi + 16), al),
        |a| a.test(al, 0x81),
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.mov(ecx, 3000)?;
            a.xor(edx, edx)?;
            a.xor(ebp, ebp)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.mov(al, byte_ptr(esi + 2))?;
            a.mov(byte_ptr(edi + 1), ah)?;
            a.add(esi, 3)?;
            write(a)?;
            for cc in 0..16u8 {
                // setcc dl; setcc [edi]; cmovcc ebp, eax
                a.db(&[0x0f, 0x90 + cc, 0xc2])?;
                a.db(&[0x0f, 0x90 + cc, 0x07])?;
                a.db(&[0x0f, 0x40 + cc, 0xe8])?;
                a.add(edx, ebp)?;
                a.add(edx, dword_ptr(edi))?;
                a.inc(edi)?;
                a.and(edi, DST + 0xfff)?;
                if cc == 7 {
                    let mut on = a.create_label();
                    a.jmp(on)?;
                    a.set_label(&mut on)?;
                }
                // The writer's record again for the next condition.
                write(a)?;
            }
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "writer {w}: {whole:?}");
    }
}

/// The 16-bit forms (MOV and the ALU ops on AX..DI and word memory, records with
/// sign bit 15) and MUL r/m32, with every condition read in the same block and at a
/// join (where the record comes from `cpu.flags`: `Gen::incoming_cond` at sign bits
/// 15 and 7 as well as 31).
#[test]
fn jit_word_forms_and_mul_match_the_interpreter() {
    type W = fn(&mut A) -> R;
    let writers: [W; 12] = [
        |a| a.add(ax, bx),
        |a| a.sub(ax, word_ptr(esi + 1)),
        |a| a.cmp(bx, 3),
        |a| a.and(word_ptr(esi + 16), ax),
        |a| a.adc(ax, bx),
        |a| a.sbb(bx, 0x8000u32 as i32),
        |a| a.xor(word_ptr(esi + 16), ax),
        |a| a.test(ax, 0x8001),
        |a| a.mul(ebx),
        |a| a.mul(dword_ptr(esi + 5)),
        |a| a.cmp(al, bl),
        |a| a.sub(eax, ebx),
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.mov(ecx, 3000)?;
            a.xor(edx, edx)?;
            a.xor(ebp, ebp)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.mov(ax, word_ptr(esi + 2))?;
            a.mov(word_ptr(edi + 1), bx)?;
            a.add(esi, 3)?;
            // Equal and boundary values now and then.
            a.and(bx, word_ptr(esi + 8))?;
            write(a)?;
            for cc in 0..16u8 {
                if cc % 8 == 0 {
                    // A join: both edges carry the writer's record in `cpu.flags`.
                    let mut join = a.create_label();
                    a.jb(join)?;
                    a.jmp(join)?;
                    a.set_label(&mut join)?;
                }
                // jcc rel8 over `inc edx`; setcc [edi]
                a.db(&[0x70 + cc, 1])?;
                a.inc(edx)?;
                a.db(&[0x0f, 0x90 + cc, 0x07])?;
                a.add(edx, edx)?;
                a.add(dx, word_ptr(edi))?;
                a.adc(bp, dx)?;
                a.inc(edi)?;
                a.and(edi, DST + 0xfff)?;
                // The writer's record again for the next condition.
                write(a)?;
            }
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "writer {w}: {whole:?}");
        assert!(whole.insns > 100_000, "writer {w}: {whole:?}");
    }
}

/// Another host thread's halt stops a guest thread spinning in compiled code (the
/// executor's attention byte, which compiled code tests at every cycle-closing
/// check), with the state of a block boundary; once the halt is withdrawn the run
/// goes on from there, in compiled code again.
#[test]
fn jit_halt_from_another_thread_stops_compiled_code() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.xor(eax, eax)?;
        a.set_label(&mut top)?;
        a.mov(dword_ptr(DST), eax)?;
        a.inc(eax)?;
        a.jmp(top)
    });
    let mut m = Machine::new();
    let t = gates(true);
    m.exec.set_tiers(t.clone());
    m.load(&code);
    let h = m.exec.halt_handle();
    let mem = m.mem.clone();
    let halter = std::thread::spawn(move || {
        let read = || {
            let mut b = [0u8; 4];
            mem.read_bytes(DST, &mut b).unwrap();
            u32::from_le_bytes(b)
        };
        let t0 = std::time::Instant::now();
        while read() < 2_000_000 && t0.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let seen = read();
        h.store(true, std::sync::atomic::Ordering::SeqCst);
        seen
    });
    assert_eq!(m.run(u64::MAX), StopReason::Halt);
    let seen = halter.join().unwrap();
    let n = m.cpu.regs[0];
    assert!(
        n >= seen && seen >= 2_000_000,
        "halted at {n}, store seen {seen}"
    );
    let mut b = [0u8; 4];
    m.mem.read_bytes(DST, &mut b).unwrap();
    // A block boundary: the loop's store and INC go together.
    assert_eq!(u32::from_le_bytes(b).wrapping_add(1), n);
    let linked = t.jit.snapshot().linked;
    assert!(
        linked > 1_000_000,
        "the loop ran compiled: {linked} iterations"
    );
    m.exec
        .halt_handle()
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(m.run(1_000_000), StopReason::BudgetSpent);
    assert!(m.cpu.regs[0] > n + 100_000);
    assert!(
        t.jit.snapshot().linked > linked,
        "compiled again after the halt"
    );
}

/// A loop-idiom fold whose runs are short (lzhuff's match copies: a byte-copy
/// loop of a few iterations inside a hot loop) goes into the compiled region
/// around it, where leaving for the fold at every run cost more than the fold
/// saved; a fold with long runs stays the fold's. Both end as the interpreter does
/// with every tier off, and the copy fold runs only where its runs were long.
#[test]
fn jit_takes_short_fold_runs_into_regions() {
    // The outer loop copies `len` bytes at a time with a byte loop (the `copy`
    // fold's form), then moves on.
    let prog = |len: u32, outer: u32| {
        assemble(|a| {
            let mut head = a.create_label();
            let mut copy = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.mov(ebp, outer)?;
            a.set_label(&mut head)?;
            a.mov(ecx, len)?;
            a.set_label(&mut copy)?;
            a.movzx(eax, byte_ptr(esi))?;
            a.inc(esi)?;
            a.mov(byte_ptr(edi), al)?;
            a.inc(edi)?;
            a.dec(ecx)?;
            a.jnz(copy)?;
            a.and(esi, SRC + 0xffff)?;
            a.and(edi, DST + 0xffff)?;
            a.add(edx, eax)?;
            a.dec(ebp)?;
            a.jnz(head)?;
            finish(a)
        })
    };
    for (len, outer, short) in [(5u32, 20_000u32, true), (400, 300, false)] {
        let code = prog(len, outer);
        let off = run_with(&code, gates(false), u64::MAX, &mut |_, _| {});
        let t = gates(true);
        t.set(Tier::Copy, true).unwrap();
        let on = run_with(&code, t.clone(), u64::MAX, &mut |_, _| {});
        same(&off, &on, &format!("copy runs of {len}"));
        let folded = t.stats(Tier::Copy).snapshot().iterations;
        let total = (len * outer) as u64;
        let j = t.jit.snapshot();
        if short {
            assert!(
                folded < total / 10,
                "runs of {len}: {folded} of {total} folded"
            );
            assert!(
                j.insns > total,
                "runs of {len}: the copies ran compiled: {j:?}"
            );
        } else {
            assert!(
                folded > total / 2,
                "runs of {len}: {folded} of {total} folded"
            );
            assert!(
                j.entries > 0,
                "runs of {len}: the outer loop ran compiled: {j:?}"
            );
        }
    }
}

/// MUL and IMUL first in a block keep SF ZF AF PF of the record the block was
/// entered with (`Gen::kept`, inline from `cpu.flags`) after every kind of writer
/// and width, read back by SETcc and LAHF.
#[test]
fn jit_mul_keeps_incoming_flags_of_every_record() {
    type W = fn(&mut A) -> R;
    let writers: [W; 10] = [
        |a| a.add(eax, ebx),
        |a| a.sub(al, bl),
        |a| a.cmp(ax, bx),
        |a| a.xor(ebx, eax),
        |a| a.and(bl, 0x0f),
        |a| a.inc(eax),
        |a| a.dec(bx),
        |a| a.adc(ax, bx),
        |a| a.shl(eax, 3),
        |a| a.neg(ebx),
    ];
    for (w, write) in writers.iter().enumerate() {
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.mov(ecx, 3000)?;
            a.xor(ebp, ebp)?;
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.mov(ebx, dword_ptr(esi + 4))?;
            a.add(esi, 3)?;
            a.and(ebx, dword_ptr(esi + 8))?;
            for k in 0..2 {
                write(a)?;
                // A join: the next block finds the record in `cpu.flags`.
                let mut join = a.create_label();
                a.jb(join)?;
                a.jmp(join)?;
                a.set_label(&mut join)?;
                if k == 0 {
                    a.imul_3(edx, ebx, 0x10001)?;
                } else {
                    a.mul(ebx)?;
                }
                a.sets(byte_ptr(edi))?;
                a.sete(byte_ptr(edi + 1))?;
                a.setp(byte_ptr(edi + 2))?;
                a.lahf()?;
                a.add(ebp, dword_ptr(edi))?;
                a.add(ebp, eax)?;
                a.mov(eax, dword_ptr(esi + 1))?;
            }
            a.dec(ecx)?;
            a.jnz(head)?;
            finish(a)
        });
        let (whole, _) = equivalent(&code);
        assert!(whole.blocks() > 1000, "writer {w}: {whole:?}");
    }
}

/// Another guest thread, itself running compiled code, stores into the hot compiled
/// loop this thread runs. Thread A counts iterations into `FLAG` and leaves its loop
/// when the immediate of its `mov eax, 0` becomes 1; thread B spins (compiled) until
/// A has counted 100 000 iterations, then its compiled store aims at A's immediate,
/// and B reads A's count right after. The write must retire A's compiled code before
/// A enters it again: A ends at most two iterations past the count B read (the
/// iteration in flight when the store landed, and the one decoded from the new
/// bytes, which leaves).
#[test]
fn jit_cross_thread_code_write_retires_compiled_code() {
    use winterp_core::harness::{CODE_SIZE, STACK_TOP};
    use winterp_core::{Cpu, Executor};
    const FLAG: u32 = DATA + 0x100;
    const SEEN: u32 = DATA + 0x104;
    const DUMMY: u32 = DATA + 0x200;
    const B_CODE: u32 = CODE + CODE_SIZE / 2;
    // B's loop counts its iterations into B_COUNT; A starts counting only once B has
    // gone round 1 000 times, so B's loop (hot after 16 entries) runs compiled by the
    // time its store aims at A's code, however the host schedules the two threads.
    const B_COUNT: u32 = DATA + 0x108;
    let a_code = assemble(|a| {
        let mut wait = a.create_label();
        let mut top = a.create_label();
        a.set_label(&mut wait)?;
        a.mov(ecx, dword_ptr(B_COUNT))?;
        a.cmp(ecx, 1_000)?;
        a.jb(wait)?;
        a.xor(edx, edx)?;
        a.set_label(&mut top)?;
        a.mov(eax, 0u32)?; // B8 imm32: the immediate B overwrites
        a.add(edx, 1)?;
        a.mov(dword_ptr(FLAG), edx)?;
        a.test(eax, eax)?;
        a.jz(top)?;
        finish(a)
    });
    let at = a_code
        .windows(7)
        .position(|w| w == [0x31, 0xd2, 0xb8, 0, 0, 0, 0])
        .expect("xor edx, edx; then mov eax, imm32");
    let imm = CODE + at as u32 + 3;
    let b_code = {
        let mut a = CodeAssembler::new(32).unwrap();
        let mut top = a.create_label();
        a.mov(ebx, imm).unwrap();
        a.mov(ebp, DUMMY.wrapping_sub(imm)).unwrap();
        a.mov(edi, 1u32).unwrap();
        a.xor(esi, esi).unwrap();
        a.set_label(&mut top).unwrap();
        a.add(esi, 1).unwrap();
        a.mov(dword_ptr(B_COUNT), esi).unwrap();
        // eax = imm once A counted 100 000, DUMMY before (all in the vocabulary).
        a.mov(ecx, dword_ptr(FLAG)).unwrap();
        a.cmp(ecx, 100_000).unwrap();
        a.sbb(eax, eax).unwrap();
        a.and(eax, ebp).unwrap();
        a.add(eax, ebx).unwrap();
        a.mov(dword_ptr(eax), edi).unwrap();
        a.cmp(eax, ebx).unwrap();
        a.jne(top).unwrap();
        a.mov(ecx, dword_ptr(FLAG)).unwrap();
        a.mov(dword_ptr(SEEN), ecx).unwrap();
        a.mov(ebp, EXIT).unwrap();
        a.jmp(ebp).unwrap();
        a.assemble(B_CODE as u64).unwrap()
    };
    let mut m = Machine::new();
    m.load(&a_code);
    m.mem.write_bytes(B_CODE, &b_code).unwrap();
    let ta = gates(true);
    m.exec.set_tiers(ta.clone());
    let tb = gates(true);
    let (mem, tb2) = (m.mem.clone(), tb.clone());
    let b = std::thread::spawn(move || {
        let mut cpu = Cpu::new(mem);
        cpu.regs[4] = STACK_TOP - 0x8_0000;
        cpu.eip = B_CODE;
        let mut exec = Executor::new();
        exec.set_stop_range(EXIT, EXIT + 1);
        exec.set_tiers(tb2);
        // One run with room for minutes of B's loop: the run loop hands the last
        // instructions of a budget (under the margin compiled code keeps) to the
        // interpreter, and with runs of a million B's store into A's code landed
        // there once in a full suite run under load, taking no compiled path.
        // Within one run compiled code only returns where an entry's instruction
        // room ends, and is entered again at once.
        exec.run(&mut cpu, 200_000_000_000)
    });
    let mut stop = StopReason::BudgetSpent;
    for _ in 0..100_000 {
        stop = m.run(1_000_000);
        if stop != StopReason::BudgetSpent || b.is_finished() && m.cpu.regs[2] > 1 << 30 {
            break;
        }
    }
    assert_eq!(b.join().unwrap(), StopReason::Thunk(EXIT), "thread B");
    assert_eq!(
        stop,
        StopReason::Thunk(EXIT),
        "thread A saw the new immediate"
    );
    assert_eq!(m.cpu.regs[0], 1);
    let mut w = [0u8; 4];
    m.mem.read_bytes(SEEN, &mut w).unwrap();
    let seen = u32::from_le_bytes(w);
    let end = m.cpu.regs[2];
    assert!(
        seen >= 100_000,
        "B stored only after A's 100 000th iteration: {seen}"
    );
    assert!(
        end >= seen && end <= seen + 2,
        "A ran its old code after the write: count {end}, B read {seen} after its store"
    );
    let (sa, sb) = (ta.jit.snapshot(), tb.jit.snapshot());
    assert!(
        sa.compiled >= 1 && sa.blocks() > 50_000,
        "A ran compiled: {sa:?}"
    );
    // B's compiled store reached code: its slow path handed the store to the
    // interpreter (the one resume of B's run).
    assert!(one_slow_path(&sb), "B's compiled store hit code: {sb:?}");
    // How many times B's loop ran compiled before A reached its 100 000th
    // iteration depends on the threads' relative speed; the store itself being
    // compiled is what matters, and exit_resume above shows it was.
    assert!(
        sb.compiled >= 1 && sb.blocks() >= 1,
        "B ran compiled: {sb:?}"
    );
}

/// Another host thread flips the gate off and on every few microseconds while the
/// guest thread runs inside compiled code (the overlay's switch): every switch takes
/// effect at a block boundary, so the end state and the pacing counters are the
/// interpreter's whatever the timing.
#[test]
fn jit_switched_from_another_thread_while_inside_compiled_code() {
    let code = mix(400_000);
    let off = run_with(&code, gates(false), u64::MAX, &mut |_, _| {});
    for round in 0..3 {
        let ton = gates(true);
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let count = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (t2, stop2, count2) = (ton.clone(), stop.clone(), count.clone());
        let flipper = std::thread::spawn(move || {
            let mut flips = 0u64;
            while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
                // Every switch retires the compiled code, so an "on" spell must be
                // long enough to recompile (about 0.5 ms a block) and run; the "off"
                // spells stay short.
                let on = flips % 2 == 1;
                t2.set(Tier::Jit, on).unwrap();
                flips += 1;
                count2.store(flips, std::sync::atomic::Ordering::Relaxed);
                let us = if on { 3_000 } else { 20 + 30 * round };
                std::thread::sleep(std::time::Duration::from_micros(us));
            }
            flips
        });
        // The program runs again until the gate has moved more than ten times
        // (how many switches one run sees depends on the threads' speed on a
        // loaded machine); every run must end as the interpreter's.
        for again in 0..200 {
            let on = run_with(&code, ton.clone(), u64::MAX, &mut |_, _| {});
            same(
                &off,
                &on,
                &format!("flipped from another thread, round {round}, run {again}"),
            );
            if count.load(std::sync::atomic::Ordering::Relaxed) > 10 {
                break;
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let flips = flipper.join().unwrap();
        let s = ton.jit.snapshot();
        assert!(flips > 10, "the gate moved during the run: {flips} flips");
        assert!(
            s.blocks() > 1_000,
            "compiled code ran between switches: {s:?}"
        );
    }
}
