//! X87_FUSION: the same guest program with the tier off and on must end with
//! identical registers, materialised flags, EIP, x87 state (all eight registers
//! bit-exact, status, control and tag words, TOP, FIP/FOP/FDP), memory, stop reasons
//! and pacing counters (instructions retired, blocks entered), run whole and in
//! budget slices of 1, 7, 37 and 1000 instructions; including runs that fault on an
//! unmapped operand in the middle of a fused run, unmasked x87 exceptions delivered
//! at a waiting instruction inside a run, stack overflow and underflow, special
//! values that take the handlers' slow paths, and stores into decoded code.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::harness::{DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::tiers::{Decline, StatsSnapshot, Tier, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;
/// Constants: f64 at K, K+8, K+24, K+32; f32 at K+16, K+20; more below.
const K: u32 = DATA + 0x1f_0000;
/// One past the last data byte: the first unmapped address.
const END: u32 = DATA + DATA_SIZE;

fn finish(a: &mut A) -> R {
    a.mov(ebp, EXIT)?;
    a.jmp(ebp)
}

fn init(m: &Machine) {
    let mut src = Vec::new();
    for n in 0..0x1_0000u32 {
        src.extend_from_slice(&((n as f64) * 0.37 - 900.0).to_le_bytes());
    }
    m.mem.write_bytes(SRC, &src).unwrap();
    let mut k = Vec::new();
    k.extend_from_slice(&1.0001f64.to_le_bytes()); // K
    k.extend_from_slice(&0.1f64.to_le_bytes()); // K+8
    k.extend_from_slice(&1.5f32.to_le_bytes()); // K+16
    k.extend_from_slice(&(-3.7f32).to_le_bytes()); // K+20
    k.extend_from_slice(&3.0f64.to_le_bytes()); // K+24
    k.extend_from_slice(&0.0f64.to_le_bytes()); // K+32
    k.extend_from_slice(&f64::NAN.to_le_bytes()); // K+40
    k.extend_from_slice(&f64::from_bits(0x7ff4_0000_0000_0000).to_le_bytes()); // K+48 SNaN
    k.extend_from_slice(&f64::from_bits(1).to_le_bytes()); // K+56 denormal
    k.extend_from_slice(&f64::INFINITY.to_le_bytes()); // K+64
    k.extend_from_slice(&1e300f64.to_le_bytes()); // K+72
    k.extend_from_slice(&f32::from_bits(1).to_le_bytes()); // K+80 f32 denormal
    k.extend_from_slice(&f32::from_bits(0x7fa0_0000).to_le_bytes()); // K+84 f32 SNaN
    m.mem.write_bytes(K, &k).unwrap();
}

#[derive(Debug, PartialEq)]
struct Fpu {
    st: [u64; 8],
    /// Every register in 80-bit form (its exact image where it has one).
    ext: [(u64, u16); 8],
    raw: u8,
    top: u8,
    tags: u16,
    cw: u16,
    sw: u16,
    fip: u32,
    fop: u16,
    fdp: u32,
}

#[derive(Debug, PartialEq)]
struct End {
    stops: Vec<StopReason>,
    regs: [u32; 8],
    eip: u32,
    eflags: u32,
    fpu: Fpu,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
}

fn fpu_of(m: &Machine) -> Fpu {
    let f = &m.cpu.fpu;
    Fpu {
        st: f.st.map(f64::to_bits),
        ext: std::array::from_fn(|k| f.ext80(k)),
        raw: f.raw,
        top: f.top,
        tags: f.tags,
        cw: f.cw,
        sw: f.sw,
        fip: f.fip,
        fop: f.fop,
        fdp: f.fdp,
    }
}

/// Gates for these tests: x87_fusion `on` or off, `jit` off (compiled regions take
/// the x87 loops these tests fuse; tests/jit.rs checks them there), every other gate
/// at its default.
fn gates(on: bool) -> Arc<Tiers> {
    let tiers = Arc::new(Tiers::new());
    tiers.set(Tier::X87Fusion, on).unwrap();
    tiers.set(Tier::Jit, false).unwrap();
    tiers
}

/// Runs `code` to the end (or its first exception) in slices of `slice` instructions
/// with x87_fusion `on` or off ([`gates`]); every slice boundary's registers and x87
/// state are folded into the result.
fn run(code: &[u8], on: bool, slice: u64) -> (End, Arc<Tiers>, u64) {
    let tiers = gates(on);
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    m.load(code);
    let mut stops = Vec::new();
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..200_000 {
        let s = m.run(slice);
        stops.push(s);
        let f = fpu_of(&m);
        let mut h = |v: u64| digest = (digest ^ v).wrapping_mul(0x100_0000_01b3);
        for r in &m.cpu.regs[..8] {
            h(*r as u64);
        }
        h(m.cpu.eip as u64);
        h(m.cpu.eflags() as u64);
        h(m.exec.counters.insns);
        for v in f.st {
            h(v);
        }
        for (m, se) in f.ext {
            h(m ^ (se as u64) << 48);
        }
        h(f.raw as u64);
        h(((f.sw as u64) << 32) | ((f.cw as u64) << 16) | f.tags as u64);
        h(((f.top as u64) << 48) | ((f.fop as u64) << 32) | f.fip as u64);
        h(f.fdp as u64);
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    stops.push(StopReason::Thunk(digest as u32));
    stops.push(StopReason::Thunk((digest >> 32) as u32));
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let mut regs = [0u32; 8];
    regs.copy_from_slice(&m.cpu.regs[..8]);
    let end = End {
        stops,
        regs,
        eip: m.cpu.eip,
        eflags: m.cpu.eflags(),
        fpu: fpu_of(&m),
        insns: m.exec.counters.insns,
        blocks: m.exec.counters.blocks,
        mem,
    };
    (end, tiers, m.exec.counters.dispatches)
}

/// Off and on agree for every slice size and something was fused; returns the on-arm
/// stats (whole run) and the dispatch counts (off, on) of the whole run.
fn equivalent(code: &[u8]) -> (StatsSnapshot, (u64, u64)) {
    let (s, d) = same_end(code);
    assert!(s.matches > 0, "no run fused: {s:?}");
    assert!(s.runs > 0 && s.iterations > 0, "{s:?}");
    (s, d)
}

/// Off and on agree for every slice size (whether or not a fused instruction
/// retired); returns what [`equivalent`] returns.
fn same_end(code: &[u8]) -> (StatsSnapshot, (u64, u64)) {
    let mut out = None;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let (off, toff, doff) = run(code, false, slice);
        let (on, ton, don) = run(code, true, slice);
        let so = toff.stats(Tier::X87Fusion).snapshot();
        assert_eq!(so.matches, 0, "off arm matched");
        assert_eq!(so.runs, 0, "off arm ran fused ops");
        assert_eq!(off.stops, on.stops, "slice {slice}: stops");
        assert_eq!(off.regs, on.regs, "slice {slice}: registers");
        assert_eq!(off.eip, on.eip, "slice {slice}: eip");
        assert_eq!(off.eflags, on.eflags, "slice {slice}: flags");
        assert_eq!(off.fpu, on.fpu, "slice {slice}: x87 state");
        assert_eq!(
            (off.insns, off.blocks),
            (on.insns, on.blocks),
            "slice {slice}: counters"
        );
        assert!(off.mem == on.mem, "slice {slice}: memory differs");
        if slice == u64::MAX {
            out = Some((ton.stats(Tier::X87Fusion).snapshot(), (doff, don)));
        }
    }
    out.unwrap()
}

fn last_stop(code: &[u8]) -> StopReason {
    run(code, true, u64::MAX).0.stops[0]
}

// ---- programs -----------------------------------------------------------------------

/// A load/multiply/add/store pipeline over `n` doubles (the bench shape's body).
fn pipeline(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(K))?;
        a.fadd(qword_ptr(K + 8))?;
        a.fld(dword_ptr(K + 16))?;
        a.fmul_2(st0, st1)?;
        a.fsub(qword_ptr(esi + 8))?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(edi))?;
        a.fadd(dword_ptr(K + 20))?;
        a.fdiv(qword_ptr(K + 24))?;
        a.fst(dword_ptr(edi + 0x8_0000))?;
        a.fstp(qword_ptr(edi + 0x4_0000))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

#[test]
fn pipeline_is_identical_and_fused() {
    let (s, (doff, don)) = equivalent(&pipeline(3000));
    assert!(s.iterations >= 3000 * 12, "{s:?}");
    // 12 x87 instructions per iteration run as one op: 11 dispatches fewer each.
    assert_eq!(doff - don, 3000 * 11, "dispatches off {doff} on {don}");
}

/// Every register-form kind, with ST(i) operands in both directions and pops.
#[test]
fn register_forms() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 500u32)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fld(qword_ptr(esi + 8))?;
        a.fld(dword_ptr(K + 16))?;
        a.fld(st2)?;
        a.fadd_2(st0, st1)?;
        a.fsub_2(st2, st0)?;
        a.fsubr_2(st0, st3)?;
        a.fmul_2(st1, st0)?;
        a.fdiv_2(st0, st2)?;
        a.fdivr_2(st3, st0)?;
        a.fxch(st0, st3)?;
        a.fst(st2)?;
        a.faddp(st1, st0)?;
        a.fsubp(st1, st0)?;
        a.fsubrp(st1, st0)?;
        a.fdivrp(st1, st0)?;
        a.fmulp(st1, st0)?;
        a.fdivp(st1, st0)?;
        a.fst(dword_ptr(DST))?;
        a.fstp(st0)?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// Islands between integer ops and the compare read-back `fcom / fnstsw ax / test ah`
/// (and the waiting `fstsw ax`).
#[test]
fn islands_and_compare_readback() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.xor(ebx, ebx)?;
        a.mov(ecx, 2000u32)?;
        a.set_label(&mut top)?;
        a.mov(edx, dword_ptr(esi))?;
        a.fld(qword_ptr(esi))?;
        a.fmul(dword_ptr(K + 16))?;
        a.fstp(dword_ptr(edi))?;
        a.add(edx, ecx)?;
        a.fld(qword_ptr(esi))?;
        a.fcomp(qword_ptr(K + 24))?;
        a.fnstsw(ax)?;
        a.test(ah, 0x41)?;
        a.setz(dl)?;
        a.add(ebx, edx)?;
        a.fld(qword_ptr(esi + 8))?;
        a.fld(qword_ptr(esi))?;
        a.fucompp()?;
        a.fstsw(ax)?;
        a.sahf()?;
        a.adc(ebx, 0)?;
        a.add(esi, 8)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// The stack fills past eight registers inside a run (masked overflow: the
/// indefinite, C1 = 1), then pops past empty (masked underflow) — the handlers' slow
/// paths called from the fused op.
#[test]
fn stack_overflow_and_underflow_masked() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 40u32)?;
        a.set_label(&mut top)?;
        for k in 0..10 {
            a.fld(qword_ptr(SRC + 8 * k))?;
        }
        a.fadd_2(st0, st5)?;
        a.fxch(st0, st7)?;
        for _ in 0..12 {
            a.fstp(qword_ptr(DST))?;
        }
        a.fld(st3)?;
        a.fmul(qword_ptr(K))?;
        a.fstp(dword_ptr(DST + 8))?;
        a.fstp(st1)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// NaN, SNaN, denormal, infinity and overflowing operands, and stores that need the
/// slow rounding, under each rounding mode (FLDCW inside the run).
#[test]
fn special_values_and_rounding_modes() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 4u32)?;
        a.set_label(&mut top)?;
        // Control word in memory: masked, PC 53, RC = (4 - ecx) & 3.
        a.mov(eax, 4u32)?;
        a.sub(eax, ecx)?;
        a.shl(eax, 10)?;
        a.or(eax, 0x027fu32)?;
        a.mov(dword_ptr(DST + 0x100), eax)?;
        a.fldcw(word_ptr(DST + 0x100))?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(K + 8))?;
        a.fld(qword_ptr(K + 40))?;
        a.fadd(qword_ptr(K + 56))?;
        a.fld(qword_ptr(K + 48))?;
        a.fld(qword_ptr(K + 56))?;
        a.fmul(qword_ptr(K + 72))?;
        a.fld(qword_ptr(K + 72))?;
        a.fmul(qword_ptr(K + 72))?;
        a.fst(dword_ptr(DST + 0x10))?;
        a.fdiv(qword_ptr(K + 32))?;
        a.fld(dword_ptr(K + 80))?;
        a.fld(dword_ptr(K + 84))?;
        a.fsub(qword_ptr(K + 64))?;
        a.fstp(qword_ptr(DST + 0x18))?;
        a.fstp(dword_ptr(DST + 0x20))?;
        a.fld(qword_ptr(K + 56))?;
        a.fstp(dword_ptr(DST + 0x24))?;
        a.fld(qword_ptr(esi + 8))?;
        a.fstp(dword_ptr(DST + 0x28))?;
        a.fstp(qword_ptr(DST + 0x30))?;
        a.fstp(qword_ptr(DST + 0x38))?;
        a.fstp(qword_ptr(DST + 0x40))?;
        a.fstp(qword_ptr(DST + 0x48))?;
        a.fstp(qword_ptr(DST + 0x50))?;
        a.fstp(qword_ptr(DST + 0x58))?;
        a.fnstsw(ax)?;
        a.mov(dword_ptr(DST + 0x60), eax)?;
        a.fnclex()?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// A pipeline walking off the end of the data: the `fmul` operand of some iteration
/// is unmapped and the run stops exactly there.
#[test]
fn fault_on_unmapped_operand_mid_run() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, END - 8 * 40)?;
        a.mov(edi, DST)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi - 8))?;
        a.fmul(qword_ptr(esi))?;
        a.fadd(qword_ptr(K + 8))?;
        a.fstp(qword_ptr(edi))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.jmp(top)?;
        finish(a)
    });
    let stop = last_stop(&code);
    match stop {
        StopReason::Exception(e) => assert_eq!(e.addr, END, "{stop:?}"),
        other => panic!("expected an access violation, got {other:?}"),
    }
    equivalent(&code);
}

/// A store operand that becomes unmapped: the fault is at the `fstp` with ST(0)
/// still pushed.
#[test]
fn fault_on_unmapped_store_mid_run() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, END - 4 * 30)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(K))?;
        a.fstp(dword_ptr(edi))?;
        a.fld(qword_ptr(esi + 8))?;
        a.fstp(qword_ptr(edi + 4))?;
        a.add(esi, 8)?;
        a.add(edi, 4)?;
        a.jmp(top)?;
        finish(a)
    });
    assert!(matches!(last_stop(&code), StopReason::Exception(_)));
    equivalent(&code);
}

/// Zero-divide unmasked: the `fdiv` sets ES and leaves ST(0); the next waiting x87
/// instruction of the same run raises the floating-point exception there.
#[test]
fn unmasked_zero_divide_raises_at_next_waiting_instruction() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 50u32)?;
        a.mov(dword_ptr(DST + 0x100), 0x027bu32)?;
        a.fldcw(word_ptr(DST + 0x100))?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(K))?;
        a.fstp(qword_ptr(DST))?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.fld(qword_ptr(esi))?;
        a.fdiv(qword_ptr(K + 32))?;
        a.fnstsw(ax)?;
        a.fld(qword_ptr(K))?;
        a.fstp(qword_ptr(DST + 8))?;
        finish(a)
    });
    match last_stop(&code) {
        StopReason::Exception(e) => {
            assert_eq!(e.kind, winterp_core::ExceptionKind::FloatingPoint, "{e:?}")
        }
        other => panic!("expected #MF, got {other:?}"),
    }
    equivalent(&code);
}

/// Unmasked invalid operation: stack overflow inside a run (nothing pushed, ES set),
/// then the next waiting instruction raises.
#[test]
fn unmasked_stack_overflow_raises() {
    let code = assemble(|a| {
        a.mov(dword_ptr(DST + 0x100), 0x027eu32)?;
        a.fldcw(word_ptr(DST + 0x100))?;
        for k in 0..9 {
            a.fld(qword_ptr(SRC + 8 * k))?;
        }
        a.fmul(qword_ptr(K))?;
        a.fstp(qword_ptr(DST))?;
        finish(a)
    });
    match last_stop(&code) {
        StopReason::Exception(e) => {
            assert_eq!(e.kind, winterp_core::ExceptionKind::FloatingPoint, "{e:?}")
        }
        other => panic!("expected #MF, got {other:?}"),
    }
    equivalent(&code);
}

/// Unmasked precision: every inexact result sets ES; the fault lands on the next
/// waiting instruction, inside the fused run.
#[test]
fn unmasked_precision_raises_inside_run() {
    let code = assemble(|a| {
        a.mov(dword_ptr(DST + 0x100), 0x025fu32)?;
        a.fldcw(word_ptr(DST + 0x100))?;
        a.fld(qword_ptr(K))?;
        a.fmul(qword_ptr(K))?;
        a.fmul(qword_ptr(K + 8))?;
        a.fadd(qword_ptr(K + 24))?;
        a.fstp(qword_ptr(DST))?;
        finish(a)
    });
    assert!(matches!(last_stop(&code), StopReason::Exception(_)));
    equivalent(&code);
}

/// A fused `fstp` into the code page being run: the block ends after the store and
/// the rewritten bytes run next (the store turns a `nop`-filled immediate into new
/// code), identically with the tier on and off.
#[test]
fn store_into_decoded_code() {
    // `mov eax, 0x1234567; nop; nop; nop` as the eight bytes the fstp writes; the
    // program puts them at K + 200 first.
    let patch = [0xb8u8, 0x67, 0x45, 0x23, 0x01, 0x90, 0x90, 0x90];
    // `mov edi, imm32` has one length whatever the value: assemble once to find the
    // patched bytes (the eight nops), then with their address.
    let prog = |at: u32| {
        assemble(|a| {
            let mut top = a.create_label();
            a.mov(
                dword_ptr(K + 200),
                u32::from_le_bytes(patch[..4].try_into().unwrap()),
            )?;
            a.mov(
                dword_ptr(K + 204),
                u32::from_le_bytes(patch[4..].try_into().unwrap()),
            )?;
            a.mov(ecx, 3u32)?;
            a.xor(ebx, ebx)?;
            a.set_label(&mut top)?;
            a.mov(eax, 0u32)?;
            a.mov(edi, at)?;
            a.fld(qword_ptr(SRC + 8))?;
            a.fadd(qword_ptr(K + 8))?;
            a.fstp(qword_ptr(DST))?;
            a.fld(qword_ptr(K + 200))?;
            a.fstp(qword_ptr(edi))?;
            a.fld1()?;
            a.fstp(qword_ptr(DST + 8))?;
            for _ in 0..8 {
                a.nop()?;
            }
            a.add(ebx, eax)?;
            a.dec(ecx)?;
            a.jnz(top)?;
            finish(a)
        })
    };
    let first = prog(0x1234_5678);
    let off = first.windows(8).position(|w| w == [0x90; 8]).unwrap() as u32;
    let code = prog(winterp_core::harness::CODE + off);
    let (end, _, _) = run(&code, true, u64::MAX);
    assert_eq!(end.regs[3], 3 * 0x0123_4567, "the patched code ran");
    equivalent(&code);
}

/// MMX payloads in the stack registers (raw significands): FLD ST(i), FXCH and
/// FST ST(i) of a raw register take the handlers' path.
#[test]
fn raw_mmx_registers() {
    let code = assemble(|a| {
        a.movq(mm0, qword_ptr(SRC))?;
        a.movq(mm1, qword_ptr(SRC + 8))?;
        a.fld(st0)?;
        a.fxch(st0, st2)?;
        a.fst(st3)?;
        a.fld(qword_ptr(K))?;
        a.fmul(qword_ptr(K + 8))?;
        a.fstp(qword_ptr(DST))?;
        a.emms()?;
        a.fld(qword_ptr(K))?;
        a.fld(qword_ptr(K + 8))?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(DST + 8))?;
        finish(a)
    });
    equivalent(&code);
}

/// Exact 80-bit images (issue 18's data movement): Delphi's System.Move copies 9 to
/// 32 bytes through FILD/FISTP m64, leaving the registers it popped holding images.
/// A burst-eligible run that pushes into those registers still runs as a burst
/// (the pushes drop the images as `Fpu::put` does); one that reads an image falls
/// back to the generic loop; FLD ST(i), FXCH, FCOM m64 and FSTP m64 of an image
/// take the handlers' path; FISTP m64 stores it exactly. The copies are checked
/// byte for byte.
#[test]
fn delphi_move_images() {
    const TO: u32 = DST + 0x4_0000;
    const ITERS: u32 = 200;
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut long = a.create_label();
        let mut moved = a.create_label();
        a.mov(ebx, ITERS)?;
        a.mov(esi, SRC)?;
        a.mov(edi, TO)?;
        a.set_label(&mut top)?;
        // Move(esi -> edi, 9 + (ebx & 23) bytes) as FastCode's Move does it.
        a.mov(eax, esi)?;
        a.mov(edx, edi)?;
        a.mov(ecx, ebx)?;
        a.and(ecx, 23)?;
        a.add(ecx, 9)?;
        a.cmp(ecx, 16)?;
        a.ja(long)?;
        a.fild(qword_ptr(eax))?;
        a.fild(qword_ptr(eax + ecx - 8))?;
        a.fistp(qword_ptr(edx + ecx - 8))?;
        a.fistp(qword_ptr(edx))?;
        a.jmp(moved)?;
        a.set_label(&mut long)?;
        a.fild(qword_ptr(eax))?;
        a.fild(qword_ptr(eax + 8))?;
        a.fild(qword_ptr(eax + ecx - 16))?;
        a.fild(qword_ptr(eax + ecx - 8))?;
        a.fistp(qword_ptr(edx + ecx - 8))?;
        a.fistp(qword_ptr(edx + ecx - 16))?;
        a.fistp(qword_ptr(edx + 8))?;
        a.fistp(qword_ptr(edx))?;
        a.set_label(&mut moved)?;
        // A burst pushing into the popped image registers.
        a.fld(qword_ptr(K))?;
        a.fmul(qword_ptr(K + 8))?;
        a.fld(qword_ptr(esi))?;
        a.fadd_2(st0, st1)?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(DST))?;
        a.fstp(qword_ptr(DST + 8))?;
        a.add(eax, 0)?;
        // Images read by inline kinds: FLD ST(i), FCOM m64, FXCH, FSTP m64, then
        // FISTP m64 exactly.
        a.fild(qword_ptr(esi + 8))?;
        a.fld(st0)?;
        a.fcom(qword_ptr(K))?;
        a.fnstsw(ax)?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(DST + 16))?;
        a.fistp(qword_ptr(edi + 32))?;
        a.add(eax, 0)?;
        // An image left in ST(0), read by a burst-eligible run: its entry test fails.
        a.fild(qword_ptr(esi + 16))?;
        a.add(eax, 0)?;
        a.fld(qword_ptr(K))?;
        a.fadd_2(st0, st1)?;
        a.fstp(qword_ptr(DST + 24))?;
        a.fstp(qword_ptr(DST + 40))?;
        a.add(esi, 8)?;
        a.add(edi, 48)?;
        a.dec(ebx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code);
    assert!(s.bulk > 0, "the burst never ran: {s:?}");
    assert!(s.bulk < s.iterations, "{s:?}");
    let (end, _, _) = run(&code, true, u64::MAX);
    let at = |a: u32| (a - DATA) as usize;
    for k in 0..ITERS {
        let n = (9 + ((ITERS - k) & 23)) as usize;
        let (src, dst) = (at(SRC + 8 * k), at(TO + 48 * k));
        assert_eq!(
            end.mem[dst..dst + n],
            end.mem[src..src + n],
            "copy {k} of {n} bytes"
        );
        let (src, dst) = (at(SRC + 8 * k + 8), at(TO + 48 * k + 32));
        assert_eq!(end.mem[dst..dst + 8], end.mem[src..src + 8], "fistp {k}");
    }
}

/// A run of forms without inline kinds (FILD, FCHS, FSQRT) between inline ones: the
/// handlers run them from the fused op.
#[test]
fn handler_forms_inside_runs() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 300u32)?;
        a.set_label(&mut top)?;
        a.fild(dword_ptr(esi))?;
        a.fld(qword_ptr(esi))?;
        a.fabs()?;
        a.fsqrt()?;
        a.fmul(qword_ptr(K))?;
        a.fchs()?;
        a.faddp(st1, st0)?;
        a.fistp(dword_ptr(DST))?;
        a.fld(qword_ptr(esi + 8))?;
        a.fcom(qword_ptr(K + 24))?;
        a.fstp(qword_ptr(DST + 8))?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// Switching the gate retires fused code at the next block boundary (the epoch
/// flush): a program run half on, half off ends as the plain run does.
#[test]
fn gate_switch_mid_program() {
    let code = pipeline(2000);
    let (plain, _, _) = run(&code, false, u64::MAX);
    let tiers = gates(true);
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    m.load(&code);
    assert_eq!(m.run(10_000), StopReason::BudgetSpent);
    let before = tiers.stats(Tier::X87Fusion).snapshot();
    assert!(before.runs > 0);
    tiers.set(Tier::X87Fusion, false).unwrap();
    let stop = m.run(u64::MAX);
    assert_eq!(stop, StopReason::Thunk(EXIT));
    let after = tiers.stats(Tier::X87Fusion).snapshot();
    assert_eq!(after.runs, before.runs, "fused code ran after the switch");
    assert!(after.decline(Decline::GateOff) > 0);
    assert_eq!(fpu_of(&m), plain.fpu);
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    assert!(mem == plain.mem);
    assert_eq!(m.exec.counters.insns, plain.insns);
}

/// A single x87 instruction between integer ops is not a run.
#[test]
fn single_x87_instruction_is_not_fused() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(SRC))?;
        a.add(eax, 1)?;
        a.fstp(qword_ptr(DST))?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (_, t, _) = run(&code, true, u64::MAX);
    let s = t.stats(Tier::X87Fusion).snapshot();
    assert_eq!(s.matches, 0, "{s:?}");
    assert!(s.decline(Decline::Size) > 0, "{s:?}");
}

/// The status word (C1 "rounded up", PE and the stack bits) read back after every
/// inline kind, over a range of values that round both ways: each `fnstsw ax` is
/// fused with the instruction before it and the word is stored right after.
#[test]
fn status_after_every_kind() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 700u32)?;
        a.set_label(&mut top)?;
        let mut slot = 0u32;
        let mut rd = |a: &mut A| -> R {
            a.fnstsw(ax)?;
            a.mov(word_ptr(edi + slot), ax)?;
            slot += 2;
            Ok(())
        };
        a.fld(qword_ptr(esi))?;
        rd(a)?;
        a.fld(dword_ptr(K + 16))?;
        rd(a)?;
        a.fmul(qword_ptr(esi + 8))?;
        rd(a)?;
        a.fdiv(dword_ptr(K + 20))?;
        rd(a)?;
        a.fadd(qword_ptr(K + 8))?;
        rd(a)?;
        a.fsubr(qword_ptr(esi + 16))?;
        rd(a)?;
        a.fdivr(qword_ptr(K + 24))?;
        rd(a)?;
        a.fsub(dword_ptr(K + 16))?;
        rd(a)?;
        a.fmul(dword_ptr(K + 20))?;
        rd(a)?;
        a.fld(st1)?;
        rd(a)?;
        a.fdiv_2(st0, st1)?;
        rd(a)?;
        a.fmul_2(st1, st0)?;
        rd(a)?;
        a.fxch(st0, st2)?;
        rd(a)?;
        a.fst(dword_ptr(edi + 0x1000))?;
        rd(a)?;
        a.fst(qword_ptr(edi + 0x2000))?;
        rd(a)?;
        a.fst(st1)?;
        rd(a)?;
        a.faddp(st1, st0)?;
        rd(a)?;
        a.fdivp(st1, st0)?;
        rd(a)?;
        a.fstp(dword_ptr(edi + 0x3000))?;
        rd(a)?;
        a.fclex()?;
        a.add(esi, 24)?;
        a.add(edi, 64)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// FCOM/FCOMP m32/m64, FCOMPP and FUCOMPP against NaN, SNaN, denormal, infinite and
/// equal operands, on an empty stack, and with IE/DE unmasked (the pop is stopped
/// and the next waiting instruction raises), each read back through `fnstsw ax`.
#[test]
fn compares_with_special_operands() {
    let body = |unmask: bool| {
        assemble(move |a| {
            let mut slot = 0u32;
            let mut rd = |a: &mut A| -> R {
                a.fnstsw(ax)?;
                a.mov(word_ptr(DST + slot), ax)?;
                slot += 2;
                Ok(())
            };
            for (x, y) in [
                (0, 8),
                (24, 24),
                (40, 0),
                (48, 8),
                (56, 0),
                (64, 72),
                (0, 64),
            ] {
                a.fld(qword_ptr(K + x))?;
                a.fcom(qword_ptr(K + y))?;
                rd(a)?;
                a.fcom(dword_ptr(K + 16))?;
                rd(a)?;
                a.fld(qword_ptr(K + y))?;
                a.fucompp()?;
                rd(a)?;
                a.fld(qword_ptr(K + y))?;
                a.fld(qword_ptr(K + x))?;
                a.fcompp()?;
                rd(a)?;
                a.fcomp(dword_ptr(K + 80))?;
                rd(a)?;
                a.fcomp(qword_ptr(K + 48))?;
                rd(a)?;
                a.fnclex()?;
            }
            if unmask {
                a.mov(dword_ptr(DST + 0x100), 0x027cu32)?;
                a.fldcw(word_ptr(DST + 0x100))?;
                a.fld(qword_ptr(K + 40))?;
                a.fcomp(qword_ptr(K))?;
                rd(a)?;
                a.fld(qword_ptr(K))?;
                a.fcomp(qword_ptr(K + 56))?;
                rd(a)?;
                a.fld(qword_ptr(K))?;
            }
            finish(a)
        })
    };
    equivalent(&body(false));
    let code = body(true);
    assert!(matches!(last_stop(&code), StopReason::Exception(_)));
    equivalent(&code);
}

// ---- owed C1 (the fused op derives an arithmetic result's C1 only when read) ----------

/// The arithmetic kinds, each as the last instruction of a run (then integer code
/// and a block end), so the C1 of that instruction — rounded up or not, both occur
/// over the data — is what the block leaves in the status word. With PE set (after
/// the first inexact result) the fused op defers it; the slices of 1, 7 and 37
/// instructions compare the status word at every block boundary.
fn ends_on_arith(fnclex: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 300u32)?;
        a.set_label(&mut top)?;
        type Arith = fn(&mut A) -> R;
        let tails: [Arith; 16] = [
            |a| a.fadd(qword_ptr(K + 8)),
            |a| a.fsub(qword_ptr(esi + 16)),
            |a| a.fsubr(qword_ptr(esi + 16)),
            |a| a.fmul(qword_ptr(K)),
            |a| a.fdiv(qword_ptr(K + 24)),
            |a| a.fdivr(qword_ptr(esi + 8)),
            |a| a.fadd(dword_ptr(K + 20)),
            |a| a.fmul(dword_ptr(K + 16)),
            |a| a.fdiv(dword_ptr(K + 20)),
            |a| a.fsubr(dword_ptr(K + 16)),
            |a| a.fadd_2(st0, st1),
            |a| a.fdiv_2(st0, st1),
            |a| a.fmul_2(st1, st0),
            |a| a.fsubr_2(st1, st0),
            |a| a.fsubp(st1, st0),
            |a| a.fdivrp(st1, st0),
        ];
        for (n, tail) in tails.iter().enumerate() {
            if fnclex {
                // PE clear at run entry: the run's first inexact result must set it.
                a.fnclex()?;
                a.nop()?;
            }
            a.fld(qword_ptr(esi + 8 * (n as u32 % 3)))?;
            a.fld(qword_ptr(esi + 24))?;
            a.fmul(qword_ptr(K))?;
            tail(a)?;
            a.add(edi, 4)?;
            block_end(a)?;
            a.fstp(qword_ptr(edi))?;
            a.fstp(qword_ptr(edi + 0x1000))?;
            block_end(a)?;
        }
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// A `jmp` to the next instruction: ends the block there.
fn block_end(a: &mut A) -> R {
    let mut l = a.create_label();
    a.jmp(l)?;
    a.set_label(&mut l)
}

#[test]
fn owed_c1_paid_when_run_ends_on_arithmetic() {
    let (s, _) = equivalent(&ends_on_arith(false));
    assert!(s.matches >= 16, "{s:?}");
    equivalent(&ends_on_arith(true));
}

/// A fault right after an arithmetic instruction whose C1 is owed: the fault leaves
/// the status word as the interpreter does after that instruction.
#[test]
fn owed_c1_paid_at_a_fault() {
    let mut rounded_up = 0;
    for (tail, addend) in (0..3).flat_map(|t| [0u32, 8, 24].map(|d| (t, d))) {
        let code = assemble(|a| {
            let mut top = a.create_label();
            a.mov(esi, END - 8 * 40)?;
            a.mov(edi, DST)?;
            a.set_label(&mut top)?;
            a.fld(qword_ptr(esi - 16))?;
            a.fmul(qword_ptr(K))?;
            if addend == 0 {
                a.fadd(qword_ptr(esi - 8))?;
            } else {
                a.fadd(qword_ptr(K + addend))?;
            }
            match tail {
                // Faulting load, store and arithmetic operand.
                0 => a.fld(qword_ptr(esi))?,
                1 => a.fst(qword_ptr(esi))?,
                _ => a.fmul(qword_ptr(esi))?,
            }
            a.fstp(qword_ptr(edi))?;
            a.fstp(qword_ptr(edi + 8))?;
            a.add(esi, 8)?;
            a.jmp(top)?;
            finish(a)
        });
        match last_stop(&code) {
            StopReason::Exception(e) => assert_eq!(e.addr, END, "tail {tail}: {e:?}"),
            other => panic!("tail {tail}: expected an access violation, got {other:?}"),
        }
        equivalent(&code);
        // The interpreter's C1 at the fault: the `fadd` rounded up.
        rounded_up += (run(&code, false, u64::MAX).0.fpu.sw & 0x200 != 0) as u32;
    }
    // Some of the faults come right after a rounded-up result (C1 = 1), which the
    // fused op owed and must pay at the fault.
    assert!(rounded_up > 0);
}

/// Owed C1 read by FNSTSW, FSTSW, FNSTENV and a handler that leaves C1 alone (FNOP),
/// and PE cleared by FNCLEX inside the run (the next inexact result must set it
/// again, so its C1 cannot be deferred).
#[test]
fn owed_c1_read_by_status_and_handlers() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 400u32)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(K))?;
        a.fnstsw(ax)?;
        a.mov(word_ptr(edi), ax)?;
        a.fdiv(qword_ptr(K + 24))?;
        a.fnop()?;
        a.fstsw(ax)?;
        a.mov(word_ptr(edi + 2), ax)?;
        a.fadd(qword_ptr(esi + 8))?;
        a.fnstenv(ptr(edi + 4))?;
        a.fmul(qword_ptr(esi + 16))?;
        a.fnclex()?;
        a.fsub(qword_ptr(K + 8))?;
        a.fnstsw(ax)?;
        a.mov(word_ptr(edi + 0x40), ax)?;
        a.fdivr(qword_ptr(K + 24))?;
        a.fnclex()?;
        a.fld(st0)?;
        a.fadd(qword_ptr(K + 8))?;
        a.fmul_2(st1, st0)?;
        a.fnstsw(ax)?;
        a.mov(word_ptr(edi + 0x42), ax)?;
        a.fstp(qword_ptr(edi + 0x48))?;
        a.fstp(qword_ptr(edi + 0x50))?;
        a.add(esi, 8)?;
        a.add(edi, 0x60)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code);
}

/// The same arithmetic under control words where C1 may not be deferred: each
/// rounding mode, precision 24 bits, and PE unmasked (the run raises #MF at its next
/// waiting instruction); C1 read back after every instruction and at each run end.
#[test]
fn owed_c1_not_taken_under_other_control_words() {
    for cw in [0x067fu32, 0x0a7f, 0x0e7f, 0x007f, 0x025f] {
        let code = assemble(|a| {
            let mut top = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.mov(ecx, 200u32)?;
            // An inexact result first, so PE is set when the loop starts.
            a.fld(qword_ptr(K + 8))?;
            a.fmul(qword_ptr(K))?;
            a.fstp(qword_ptr(DST + 0x8_0000))?;
            a.mov(dword_ptr(DST + 0x8_0010), cw)?;
            a.fldcw(word_ptr(DST + 0x8_0010))?;
            a.set_label(&mut top)?;
            a.fld(qword_ptr(esi))?;
            a.fmul(qword_ptr(K))?;
            a.fnstsw(ax)?;
            a.mov(word_ptr(edi), ax)?;
            a.fadd(qword_ptr(esi + 8))?;
            a.fnstsw(ax)?;
            a.mov(word_ptr(edi + 2), ax)?;
            a.fdiv(qword_ptr(K + 24))?;
            a.fsub(dword_ptr(K + 20))?;
            a.add(edi, 4)?;
            block_end(a)?;
            a.fstp(qword_ptr(edi))?;
            a.fnstsw(ax)?;
            a.mov(word_ptr(edi + 8), ax)?;
            a.add(esi, 8)?;
            a.add(edi, 16)?;
            a.dec(ecx)?;
            a.jnz(top)?;
            finish(a)
        });
        if cw & 0x20 == 0 {
            assert!(
                matches!(last_stop(&code), StopReason::Exception(_)),
                "{cw:#x}"
            );
        }
        equivalent(&code);
    }
}

// ---- chains (FLD m, arithmetic m ..., FSTP m / FCOMP m [FNSTSW AX]) -------------------

/// Every form of a whole-run chain, each run between integer ops (so it is the whole
/// fused run): FLD m32/m64; the six arithmetic ops with m32 and m64 operands;
/// terminals FSTP m32/m64, FCOMP m32/m64 with and without FNSTSW AX, and none (the
/// run ends on arithmetic, with PE set and, after FNCLEX, clear at entry); inexact
/// and exact data (the f32 source values are exact, the f64 ones mostly not).
fn chains(fnclex: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 200u32)?;
        a.xor(ebx, ebx)?;
        a.set_label(&mut top)?;
        type Step = fn(&mut A) -> R;
        let arith: [Step; 12] = [
            |a| a.fadd(qword_ptr(K + 8)),
            |a| a.fmul(qword_ptr(K)),
            |a| a.fsub(qword_ptr(esi + 16)),
            |a| a.fsubr(qword_ptr(esi + 8)),
            |a| a.fdiv(qword_ptr(K + 24)),
            |a| a.fdivr(qword_ptr(esi + 24)),
            |a| a.fadd(dword_ptr(K + 20)),
            |a| a.fmul(dword_ptr(K + 16)),
            |a| a.fsub(dword_ptr(K + 16)),
            |a| a.fsubr(dword_ptr(K + 20)),
            |a| a.fdiv(dword_ptr(K + 20)),
            |a| a.fdivr(dword_ptr(K + 16)),
        ];
        for (n, op) in arith.iter().enumerate() {
            if fnclex {
                a.fnclex()?;
                a.nop()?;
            }
            // FLD m64 or m32 (the f32 view of a double's high half is some normal
            // f32 for these data), one or two arithmetic steps, a terminal.
            if n % 2 == 0 {
                a.fld(qword_ptr(esi))?;
            } else {
                a.fld(dword_ptr(esi + 4))?;
            }
            op(a)?;
            if n % 3 == 0 {
                arith[(n + 5) % 12](a)?;
            }
            match n % 6 {
                0 => a.fstp(qword_ptr(edi))?,
                1 => a.fstp(dword_ptr(edi + 8))?,
                2 => {
                    a.fcomp(qword_ptr(K + 24))?;
                    a.fnstsw(ax)?;
                }
                3 => {
                    a.fcomp(dword_ptr(K + 16))?;
                    a.fnstsw(ax)?;
                }
                4 => a.fcomp(dword_ptr(K + 20))?,
                // No terminal: the value stays pushed (popped by the next block);
                // the block ends right after the chain, so every slice of one
                // instruction sees the chain's last C1 (owed while PE is set).
                _ => {
                    block_end(a)?;
                    a.mov(edx, eax)?;
                    a.fstp(qword_ptr(edi + 16))?;
                    a.nop()?;
                }
            }
            a.add(ebx, eax)?;
        }
        a.add(esi, 8)?;
        a.add(edi, 24)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

#[test]
fn chains_of_every_form() {
    for fnclex in [false, true] {
        let (s, (doff, don)) = equivalent(&chains(fnclex));
        assert!(s.matches >= 12, "{s:?}");
        assert!(don < doff, "dispatches {doff} -> {don}");
    }
}

/// Chains whose instructions leave the chain's fast path part way: a full stack at
/// entry (FLD overflows), a pending unmasked exception or a non-fast control word at
/// entry, NaN / infinity / denormal values loaded, denormal and NaN operands of the
/// arithmetic and the compare, results out of the fast path's range, and stores that
/// need the slow rounding (f32 overflow, an f64 denormal result).
#[test]
fn chains_leaving_the_fast_path() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 40u32)?;
        a.set_label(&mut top)?;
        type Chain = fn(&mut A) -> R;
        let chains: [Chain; 16] = [
            // NaN, SNaN, infinity and denormal loads (FLD itself off the path).
            |a| {
                a.fld(qword_ptr(K + 56))?;
                a.fadd(qword_ptr(K + 8))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(dword_ptr(K + 84))?;
                a.fadd(dword_ptr(K + 16))?;
                a.fstp(dword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(K + 40))?;
                a.fadd(qword_ptr(K + 8))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(K + 48))?;
                a.fmul(qword_ptr(K))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(K + 64))?;
                a.fsub(qword_ptr(K + 8))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(dword_ptr(K + 80))?;
                a.fadd(dword_ptr(K + 16))?;
                a.fstp(dword_ptr(edi))
            },
            // Denormal and NaN operands of the arithmetic.
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fmul(qword_ptr(K))?;
                a.fadd(qword_ptr(K + 56))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fmul(dword_ptr(K + 80))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fadd(qword_ptr(K + 40))?;
                a.fstp(qword_ptr(edi))
            },
            // Division by zero, overflow to infinity.
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fdiv(qword_ptr(K + 32))?;
                a.fstp(qword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(K + 72))?;
                a.fmul(qword_ptr(K + 72))?;
                a.fstp(qword_ptr(edi))
            },
            // Stores off the fast path: f32 overflow, a denormal f64 result.
            |a| {
                a.fld(qword_ptr(K + 72))?;
                a.fmul(qword_ptr(K))?;
                a.fstp(dword_ptr(edi))
            },
            |a| {
                a.fld(qword_ptr(K + 56))?;
                a.fadd(qword_ptr(K + 32))?;
                a.fstp(qword_ptr(edi))
            },
            // Compare against NaN and a denormal.
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fcomp(qword_ptr(K + 40))?;
                a.fnstsw(ax)
            },
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fmul(qword_ptr(K))?;
                a.fcomp(dword_ptr(K + 80))?;
                a.fnstsw(ax)
            },
            // An inexact f32 store whose C1 and PE the chain derives.
            |a| {
                a.fld(qword_ptr(esi))?;
                a.fmul(qword_ptr(K + 8))?;
                a.fstp(dword_ptr(edi + 4))
            },
        ];
        for (n, body) in chains.iter().enumerate() {
            body(a)?;
            a.add(edi, 8)?;
            // Each chain's end state is seen by slices of one instruction.
            block_end(a)?;
            if n == 8 {
                // A full stack: the chain's FLD overflows (masked: it pushes the
                // indefinite, sets IE, SF and C1); the block ends before FNINIT so
                // slices see that status.
                for _ in 0..8 {
                    a.fld1()?;
                    a.nop()?;
                }
                a.fld(qword_ptr(esi))?;
                a.fmul(qword_ptr(K))?;
                a.fstp(qword_ptr(edi))?;
                a.add(edi, 8)?;
                block_end(a)?;
                a.fninit()?;
                a.nop()?;
            }
            if n == 11 {
                // A non-fast control word (RC up), then PC 24, then back.
                a.mov(dword_ptr(K + 300), 0x0a7fu32)?;
                a.fldcw(word_ptr(K + 300))?;
                a.nop()?;
                body(a)?;
                a.add(edi, 8)?;
                block_end(a)?;
                a.mov(dword_ptr(K + 300), 0x007fu32)?;
                a.fldcw(word_ptr(K + 300))?;
                a.nop()?;
                body(a)?;
                a.add(edi, 8)?;
                block_end(a)?;
                a.mov(dword_ptr(K + 300), 0x027fu32)?;
                a.fldcw(word_ptr(K + 300))?;
                a.nop()?;
            }
        }
        a.sub(edi, 8 * 19 - 24)?;
        block_end(a)?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code);
    assert!(s.matches >= 16, "{s:?}");
}

/// A pending unmasked exception at a chain's entry: PE unmasked, an inexact result
/// sets ES, and the next chain's FLD raises #MF there (the chain must not start).
#[test]
fn chain_entry_with_exception_pending() {
    let code = assemble(|a| {
        a.mov(dword_ptr(K + 300), 0x025fu32)?; // PE unmasked
        a.fldcw(word_ptr(K + 300))?;
        a.nop()?;
        a.fld(qword_ptr(SRC + 8))?;
        a.fmul(qword_ptr(K))?;
        a.fstp(qword_ptr(DST))?;
        a.nop()?;
        a.fld(qword_ptr(SRC + 16))?;
        a.fadd(qword_ptr(K + 24))?;
        a.fstp(qword_ptr(DST + 8))?;
        finish(a)
    });
    assert!(matches!(last_stop(&code), StopReason::Exception(_)));
    equivalent(&code);
}

/// A fault at every position of a chain: its FLD, each arithmetic operand, the FSTP
/// and the FCOMP operand, each as the walking pointer crosses into unmapped memory;
/// the state at the fault is the one after the previous instruction (its register,
/// tag, TOP, C1/PE, FIP/FOP/FDP), with an owed C1 (PE set) paid.
#[test]
fn chain_faults_at_every_position() {
    for pos in 0..5u32 {
        for m32 in [false, true] {
            let code = assemble(|a| {
                let mut top = a.create_label();
                a.mov(esi, END - 8 * 24)?;
                a.mov(edi, DST)?;
                a.set_label(&mut top)?;
                let at = |p: u32| if p == pos { esi + 8 } else { esi - 32 };
                if m32 {
                    a.fld(dword_ptr(at(0)))?;
                    a.fmul(dword_ptr(at(1)))?;
                    a.fadd(dword_ptr(at(2)))?;
                } else {
                    a.fld(qword_ptr(at(0)))?;
                    a.fmul(qword_ptr(at(1)))?;
                    a.fadd(qword_ptr(at(2)))?;
                }
                if pos == 4 {
                    a.fcomp(qword_ptr(esi))?;
                    a.fnstsw(ax)?;
                } else if pos == 3 {
                    if m32 {
                        a.fstp(dword_ptr(esi + 4))?;
                    } else {
                        a.fstp(qword_ptr(esi))?;
                    }
                } else {
                    a.fstp(qword_ptr(edi))?;
                }
                a.add(esi, 8)?;
                a.add(edi, 8)?;
                a.jmp(top)?;
                finish(a)
            });
            match last_stop(&code) {
                StopReason::Exception(e) => {
                    assert!(e.addr >= END && e.addr < END + 8, "pos {pos}: {e:?}")
                }
                other => panic!("pos {pos}: expected an access violation, got {other:?}"),
            }
            equivalent(&code);
        }
    }
}

/// The bytes [`patched_loop`] stores over its NOPs: `mov eax, 0x01234567` and NOPs.
const PATCH: [u8; 8] = [0xb8, 0x67, 0x45, 0x23, 0x01, 0x90, 0x90, 0x90];

/// Three iterations of: EAX = 0, EDI = the address of eight NOPs below, `body`
/// (which stores over them from PATCH at K+200), the NOPs, EBX += EAX.
fn patched_loop(body: impl Fn(&mut A) -> R) -> Vec<u8> {
    let prog = |at: u32| {
        assemble(|a| {
            let mut top = a.create_label();
            a.mov(
                dword_ptr(K + 200),
                u32::from_le_bytes(PATCH[..4].try_into().unwrap()),
            )?;
            a.mov(
                dword_ptr(K + 204),
                u32::from_le_bytes(PATCH[4..].try_into().unwrap()),
            )?;
            a.mov(ecx, 3u32)?;
            a.xor(ebx, ebx)?;
            a.set_label(&mut top)?;
            a.mov(eax, 0u32)?;
            a.mov(edi, at)?;
            body(a)?;
            for _ in 0..8 {
                a.nop()?;
            }
            a.add(ebx, eax)?;
            a.dec(ecx)?;
            a.jnz(top)?;
            finish(a)
        })
    };
    let first = prog(0x1234_5678);
    let off = first.windows(8).position(|w| w == [0x90; 8]).unwrap() as u32;
    prog(winterp_core::harness::CODE + off)
}

/// A chain's FSTP into the code being run: the block ends after the store, with the
/// chain's state written back, and the patched bytes run.
#[test]
fn chain_store_into_decoded_code() {
    let code = patched_loop(|a| {
        a.fld(qword_ptr(K + 200))?;
        a.fmul(dword_ptr(K + 16))?;
        a.fdiv(dword_ptr(K + 16))?;
        a.fstp(qword_ptr(edi))
    });
    let (end, _, _) = run(&code, true, u64::MAX);
    assert_eq!(end.regs[3], 3 * 0x0123_4567, "the patched code ran");
    equivalent(&code);
}

/// The status read-back idiom after a chain's FCOMP / FNSTSW AX (`test r8, imm8`,
/// SETcc r8, `movzx r32, r8`) runs inside the fused op: every register choice that
/// reads AX or the byte just set (AL, AH, a SETcc into AH or AL that overlaps AX, a
/// MOVZX of another register), operands below, equal to and above the constant, and
/// an unordered compare (NaN: the chain leaves its fast path and the generic loop
/// runs the read-back).
fn readback(n: u32, nan: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.xor(ebx, ebx)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        // SRC[k] = 0.37 k - 900: below, then above 3.0; K+24 holds 3.0 itself.
        a.fld(qword_ptr(esi))?;
        a.fcomp(qword_ptr(if nan { K + 40 } else { K + 24 }))?;
        a.fnstsw(ax)?;
        a.test(ah, 0x41)?;
        a.setz(dl)?;
        a.movzx(edx, dl)?;
        a.add(ebx, edx)?;
        a.fld(qword_ptr(K + 24))?;
        a.fcomp(qword_ptr(K + 24))?;
        a.fnstsw(ax)?;
        a.test(al, 0x45)?;
        a.setnz(dh)?;
        a.movzx(edi, dh)?;
        a.add(ebx, edi)?;
        a.fld(dword_ptr(K + 16))?;
        a.fcomp(qword_ptr(esi + 8))?;
        a.fnstsw(ax)?;
        a.test(ah, 0x01)?;
        a.setnz(ah)?;
        a.movzx(eax, ah)?;
        a.add(ebx, eax)?;
        a.fld(qword_ptr(esi))?;
        a.fcomp(dword_ptr(K + 20))?;
        a.fnstsw(ax)?;
        a.test(ah, 0x04)?;
        a.setz(al)?;
        a.movzx(ebp, cl)?;
        a.add(ebx, ebp)?;
        a.add(esi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

#[test]
fn compare_readback_runs_inside_the_run() {
    let n = 3000;
    let (s, _) = equivalent(&readback(n, false));
    // Four runs of six instructions (FLD FCOMP FNSTSW TEST SETcc MOVZX) per
    // iteration, each one fused op. (Not the dispatch count: on this shape it was
    // seen to vary between runs of the same binary, by 12 per iteration.)
    assert_eq!(
        (s.runs, s.iterations),
        (n as u64 * 4, n as u64 * 24),
        "{s:?}"
    );
    // EBX sums, per element x = SRC[k] (as `init` writes it): `test ah, 0x41` ZF
    // (C3 and C0 clear: x > 3.0); nothing from `test al, 0x45` (no exception flag);
    // `test ah, 1` C0 (1.5 < SRC[k+1]); and CL.
    let (end, _, _) = run(&readback(n, false), true, u64::MAX);
    let x = |k: u32| (k as f64) * 0.37 - 900.0;
    let want: u32 = (0..n)
        .map(|k| (x(k) > 3.0) as u32 + (1.5 < x(k + 1)) as u32 + ((n - k) & 0xff))
        .sum();
    assert_eq!(end.regs[3], want);
}

#[test]
fn compare_readback_after_an_unordered_compare() {
    equivalent(&readback(500, true));
}

/// A read-back run whose FLD or FCOMP operand is unmapped: the fault is at that
/// instruction with the state before it, the read-back not run.
#[test]
fn compare_readback_faults() {
    for pos in 0..2u32 {
        let code = assemble(|a| {
            let mut top = a.create_label();
            a.mov(esi, END - 8 * 16)?;
            a.xor(ebx, ebx)?;
            a.set_label(&mut top)?;
            let at = |p: u32| if p == pos { esi + 8 } else { esi - 32 };
            a.fld(qword_ptr(at(0)))?;
            a.fcomp(qword_ptr(at(1)))?;
            a.fnstsw(ax)?;
            a.test(ah, 0x41)?;
            a.setz(dl)?;
            a.movzx(edx, dl)?;
            a.add(ebx, edx)?;
            a.add(esi, 8)?;
            a.jmp(top)?;
            finish(a)
        });
        match last_stop(&code) {
            StopReason::Exception(e) => {
                assert!(e.addr >= END && e.addr < END + 8, "pos {pos}: {e:?}")
            }
            other => panic!("pos {pos}: expected an access violation, got {other:?}"),
        }
        equivalent(&code);
    }
}

// ---- the burst (tiers/x87_burst.rs) ---------------------------------------------------

fn op_rr(a: &mut A, op: usize, d: AsmRegisterSt, s: AsmRegisterSt) -> R {
    match op {
        0 => a.fadd_2(d, s),
        1 => a.fmul_2(d, s),
        2 => a.fsub_2(d, s),
        3 => a.fsubr_2(d, s),
        4 => a.fdiv_2(d, s),
        _ => a.fdivr_2(d, s),
    }
}

fn op_p(a: &mut A, op: usize) -> R {
    match op {
        0 => a.faddp(st1, st0),
        1 => a.fmulp(st1, st0),
        2 => a.fsubp(st1, st0),
        3 => a.fsubrp(st1, st0),
        4 => a.fdivp(st1, st0),
        _ => a.fdivrp(st1, st0),
    }
}

fn op_m(a: &mut A, op: usize, m: AsmMemoryOperand) -> R {
    match op {
        0 => a.fadd(m),
        1 => a.fmul(m),
        2 => a.fsub(m),
        3 => a.fsubr(m),
        4 => a.fdiv(m),
        _ => a.fdivr(m),
    }
}

/// One burst-eligible run (not a chain) with every kind the burst has: loads and
/// stores of both widths, every arithmetic form in every direction, FLD ST(i), FXCH,
/// FST/FSTP ST(i), every compare, both status stores, and integer moves between its
/// x87 stretches; entered with PE clear (after FNCLEX) and set on alternate
/// iterations.
fn burst_every_kind(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        let mut set = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.test(ecx, 1)?;
        a.jz(set)?;
        a.fnclex()?;
        a.set_label(&mut set)?;
        a.add(ebx, 1)?;
        a.fld(qword_ptr(esi))?;
        a.fld(dword_ptr(K + 16))?;
        for op in 0..6 {
            op_rr(a, op, st0, st1)?;
            op_rr(a, op, st1, st0)?;
            a.fld(st1)?;
            op_p(a, op)?;
            op_m(a, op, qword_ptr(esi + 8))?;
            op_m(a, op, dword_ptr(K + 20))?;
        }
        a.mov(dword_ptr(edi + 40), edx)?;
        a.mov(edx, dword_ptr(esi + 4))?;
        a.fxch(st0, st1)?;
        a.fld(st0)?;
        a.fst(st2)?;
        a.fstp(st1)?;
        a.fcom(qword_ptr(K))?;
        a.fcomp(dword_ptr(K + 16))?;
        a.fnstsw(ax)?;
        a.fstsw(ax)?;
        a.fld(st0)?;
        a.fcompp()?;
        a.fld(qword_ptr(esi))?;
        a.fld(st0)?;
        a.fucompp()?;
        a.fld(qword_ptr(esi + 8))?;
        a.fst(qword_ptr(edi))?;
        a.fst(dword_ptr(edi + 8))?;
        a.fld(st0)?;
        a.fstp(qword_ptr(edi + 16))?;
        a.fstp(dword_ptr(edi + 24))?;
        a.mov(dword_ptr(edi + 32), eax)?;
        a.add(esi, 8)?;
        a.add(edi, 48)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

#[test]
fn burst_runs_every_kind() {
    let (s, (doff, don)) = equivalent(&burst_every_kind(1500));
    // Every instruction of the runs ran in the burst, entered with PE clear or set.
    assert_eq!(s.bulk, s.iterations, "{s:?}");
    // The integer moves joined the x87 stretches around them: two runs per
    // iteration (the waiting FSTSW's FWAIT, an instruction of its own, ends the
    // first), 59 instructions, 57 dispatches fewer.
    assert_eq!((s.runs, s.iterations), (3000, 1500 * 59), "{s:?}");
    assert_eq!(doff - don, 1500 * 57, "dispatches off {doff} on {don}");
}

/// A pipeline run (not a chain) whose operand at `pos` is `at(pos)`: the burst meets
/// it there and leaves the run to the generic loop (or to the fault) at exactly that
/// instruction.
fn burst_with_operand(pos: usize, special: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 300u32)?;
        a.set_label(&mut top)?;
        let m = |p: usize, normal: AsmMemoryOperand| {
            if p == pos { ptr(special) } else { normal }
        };
        a.fld(qword_ptr(m(0, ptr(esi))))?;
        a.fmul(qword_ptr(m(1, ptr(K))))?;
        a.fadd(qword_ptr(m(2, ptr(K + 8))))?;
        a.fld(dword_ptr(m(3, ptr(K + 16))))?;
        a.fmul_2(st0, st1)?;
        a.fsub(qword_ptr(m(5, ptr(esi + 8))))?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(m(7, ptr(edi))))?;
        a.mov(eax, dword_ptr(m(8, ptr(esi))))?;
        a.fcom(dword_ptr(m(9, ptr(K + 20))))?;
        a.fdiv(qword_ptr(m(10, ptr(K + 24))))?;
        a.fstp(dword_ptr(m(11, ptr(edi + 0x8_0000))))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// Operands the burst does not take (NaN, SNaN, a denormal, infinity, a value whose
/// product overflows) at every position, and an unmapped operand at every memory
/// position (the fault names the instruction and the state before it).
#[test]
fn burst_leaves_at_every_position() {
    let mem_positions = [0usize, 1, 2, 3, 5, 7, 8, 9, 10, 11];
    for pos in mem_positions {
        for special in [K + 40, K + 48, K + 56, K + 64, K + 72, K + 80, K + 84] {
            let (s, _) = equivalent(&burst_with_operand(pos, special));
            // The instructions before the operand ran in the burst.
            assert!(pos == 0 || s.bulk > 0, "pos {pos}: {s:?}");
        }
        let code = burst_with_operand(pos, END + 4);
        match last_stop(&code) {
            StopReason::Exception(e) => assert_eq!(e.addr, END + 4, "pos {pos}"),
            other => panic!("pos {pos}: expected an access violation, got {other:?}"),
        }
        // At position 0 no fused instruction retires before the fault.
        let (s, _) = same_end(&code);
        assert!(s.matches > 0 && s.runs > 0, "pos {pos}: {s:?}");
    }
}

/// The burst's entry test fails and the generic loop runs the run: full registers
/// where the run pushes (extra values pile up on the stack, past overflow, and are
/// popped again, past underflow) and a control word off the fast path (rounding up)
/// on some iterations. (Raw MMX registers: `raw_mmx_registers`.)
#[test]
fn burst_entry_conditions() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut no_push = a.create_label();
        let mut no_pop = a.create_label();
        let mut nearest = a.create_label();
        let mut run = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 64u32)?;
        a.mov(dword_ptr(K + 100), 0x0a7fu32)?;
        a.mov(dword_ptr(K + 104), 0x027fu32)?;
        a.set_label(&mut top)?;
        a.test(ecx, 16)?;
        a.jz(no_push)?;
        a.fld1()?;
        a.set_label(&mut no_push)?;
        a.test(ecx, 32)?;
        a.jnz(no_pop)?;
        a.fstp(st0)?;
        a.set_label(&mut no_pop)?;
        a.test(ecx, 4)?;
        a.jz(nearest)?;
        a.fldcw(word_ptr(K + 100))?;
        a.jmp(run)?;
        a.set_label(&mut nearest)?;
        a.fldcw(word_ptr(K + 104))?;
        a.set_label(&mut run)?;
        a.add(ebx, 1)?;
        a.fld(qword_ptr(esi))?;
        a.fld(dword_ptr(K + 16))?;
        a.fmulp(st1, st0)?;
        a.fadd(qword_ptr(K + 8))?;
        a.fstp(qword_ptr(edi))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code);
    assert!(s.bulk > 0, "{s:?}");
    assert!(s.bulk < s.iterations, "the entry test never failed: {s:?}");
}

/// A burst's store (x87 or an integer move inside the run) into the code being run:
/// the block ends after the store with the burst's state written back, and the
/// patched bytes run.
#[test]
fn burst_store_into_decoded_code() {
    for by_mov in [false, true] {
        let code = patched_loop(|a| {
            a.mov(edx, dword_ptr(K + 200))?;
            a.fld(dword_ptr(K + 16))?;
            a.fld(qword_ptr(K + 200))?;
            a.fmul_2(st0, st1)?;
            a.fdiv_2(st0, st1)?;
            if by_mov {
                a.mov(dword_ptr(edi), edx)?;
                a.fstp(st0)?;
                a.fstp(qword_ptr(K + 300))
            } else {
                a.fstp(qword_ptr(edi))?;
                a.fstp(st0)
            }
        });
        let (end, _, _) = run(&code, true, u64::MAX);
        if by_mov {
            // Four patched bytes: `mov eax, 0x90234567` (its last byte a NOP).
            assert_eq!(
                end.regs[3],
                3u32.wrapping_mul(0x9023_4567),
                "the patched code ran"
            );
        } else {
            assert_eq!(end.regs[3], 3 * 0x0123_4567, "the patched code ran");
        }
        equivalent(&code);
    }
}

/// Integer moves join two chains into one run (the island shape): faults on either
/// move and on the chains around them, and the joined run's dispatch count.
#[test]
fn integer_moves_join_chains() {
    for bad in [None, Some(0), Some(1), Some(2)] {
        let code = assemble(|a| {
            let mut top = a.create_label();
            a.mov(esi, SRC)?;
            a.mov(edi, DST)?;
            a.xor(ebx, ebx)?;
            a.mov(ecx, 1000u32)?;
            a.set_label(&mut top)?;
            let at = |p: u32, normal: AsmMemoryOperand| {
                if Some(p) == bad { ptr(END + 8) } else { normal }
            };
            a.mov(edx, dword_ptr(esi))?;
            a.fld(dword_ptr(esi))?;
            a.fmul(dword_ptr(K + 16))?;
            a.fstp(dword_ptr(edi))?;
            a.mov(dword_ptr(at(0, ptr(edi + 0x8_0000))), edx)?;
            a.mov(eax, dword_ptr(at(1, ptr(esi + 4))))?;
            a.fld(dword_ptr(at(2, ptr(edi))))?;
            a.fcomp(dword_ptr(K + 20))?;
            a.fnstsw(ax)?;
            a.test(ah, 0x41)?;
            a.setz(dl)?;
            a.movzx(edx, dl)?;
            a.add(ebx, edx)?;
            a.add(esi, 4)?;
            a.add(edi, 4)?;
            a.dec(ecx)?;
            a.jnz(top)?;
            finish(a)
        });
        let (s, (doff, don)) = equivalent(&code);
        if bad.is_none() {
            // mov; fld fmul fstp mov mov fld fcomp fnstsw test setz movzx; ...:
            // eleven instructions run as one op.
            assert_eq!(doff - don, 1000 * 10, "dispatches off {doff} on {don}");
            assert!(s.runs >= 1000, "{s:?}");
        } else {
            match last_stop(&code) {
                StopReason::Exception(e) => assert_eq!(e.addr, END + 8, "{bad:?}"),
                other => panic!("{bad:?}: expected an access violation, got {other:?}"),
            }
        }
    }
}

/// f32 values for the narrow-product test: normal, signed zeros, the largest and
/// smallest normal, a denormal, infinities, a quiet and a signalling NaN.
const NARROW: [u32; 12] = [
    0x3fc0_0000, // 1.5
    0xc06c_cccd, // -3.7
    0x0000_0000,
    0x8000_0000,
    0x7f7f_ffff, // f32::MAX
    0x0080_0000, // f32::MIN_POSITIVE
    0x8000_0001, // -denormal
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0x7fa0_0000, // sNaN
    0x4b7f_ffff, // 16777215: all 24 significand bits set
];

/// `fld m32; fmul m32; fstp m64` over every pair of [`NARROW`] values, the product
/// exact by operand widths (`x87_fuse::narrow_products`), then the same times the
/// first value again (not narrow), with PE clear or set first; each result's status
/// word is stored next to it.
fn narrow_pairs(pe: bool) -> Vec<u8> {
    assemble(|a| {
        let (mut outer, mut inner) = (a.create_label(), a.create_label());
        let table = K + 0x100;
        for (n, v) in NARROW.iter().enumerate() {
            a.mov(dword_ptr(table + 4 * n as u32), *v)?;
        }
        if pe {
            a.fld1()?;
            a.fdiv(qword_ptr(K + 24))?;
            a.fstp(st0)?;
        } else {
            a.fnclex()?;
        }
        a.mov(edi, DST)?;
        a.mov(esi, table)?;
        a.mov(ecx, NARROW.len() as u32)?;
        a.set_label(&mut outer)?;
        a.mov(edx, NARROW.len() as u32 - 1)?;
        a.set_label(&mut inner)?;
        // One narrow product, then a chain whose second product is not narrow
        // (up to 72 significant bits).
        for twice in [false, true] {
            a.fld(dword_ptr(esi))?;
            a.fmul(dword_ptr(edx * 4 + table))?;
            if twice {
                a.fmul(dword_ptr(esi))?;
            }
            a.fstp(qword_ptr(edi))?;
            a.add(edi, 16)?;
            // (The NOP keeps FNSTSW and the store out of the next chain's run.)
            a.fnstsw(ax)?;
            a.nop()?;
            a.mov(dword_ptr(edi - 8), eax)?;
        }
        a.dec(edx)?;
        a.jns(inner)?;
        a.add(esi, 4)?;
        a.dec(ecx)?;
        a.jnz(outer)?;
        finish(a)
    })
}

#[test]
fn narrow_products_of_every_operand_class() {
    for pe in [false, true] {
        let prog = narrow_pairs(pe);
        let (s, _) = equivalent(&prog);
        assert!(s.runs >= (NARROW.len() * NARROW.len()) as u64, "{s:?}");
        let (end, _, _) = run(&prog, true, u64::MAX);
        let at = |n: usize| {
            let o = (DST - DATA) as usize + 16 * n;
            let v = u64::from_le_bytes(end.mem[o..o + 8].try_into().unwrap());
            let sw = u16::from_le_bytes([end.mem[o + 8], end.mem[o + 9]]);
            (f64::from_bits(v), sw)
        };
        // The first product stored is 1.5 * 16777215 (NARROW[0] * NARROW[11]),
        // exact: PE only if it was set before. (C1 in the stored status is the
        // FSTP's.)
        assert_eq!(at(0).0, 1.5 * 16_777_215.0);
        assert_eq!(at(0).1 & 0x20 != 0, pe, "PE after an exact product");
        // NARROW[11] times itself (the first pair of the last row): 16777215^2
        // (exact), then 16777215^3 (72 bits: inexact).
        let row = 2 * 11 * NARROW.len();
        assert_eq!(at(row).0, 16_777_215.0f64 * 16_777_215.0);
        let (cube, sw) = at(row + 1);
        assert_eq!(cube, 16_777_215u128.pow(3) as f64);
        assert_ne!(sw & 0x20, 0, "PE after an inexact product");
    }
}

/// Two chains joined by a move (the island shape) whose second chain meets the
/// [`NARROW`] values, special ones included, at its FLD (the state of the first
/// chain is still in the fused op's locals then) and at its arithmetic operand.
#[test]
fn joined_chains_leave_at_the_second_chain() {
    let table = K + 0x100;
    let code = assemble(|a| {
        let mut top = a.create_label();
        for (n, v) in NARROW.iter().enumerate() {
            a.mov(dword_ptr(table + 4 * n as u32), *v)?;
        }
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, NARROW.len() as u32 - 1)?;
        a.set_label(&mut top)?;
        a.mov(edx, dword_ptr(esi))?;
        a.fld(dword_ptr(esi + 4))?;
        a.fmul(dword_ptr(K + 16))?;
        a.fstp(dword_ptr(edi))?;
        a.mov(dword_ptr(edi + 0x8_0000), edx)?;
        a.fld(dword_ptr(ecx * 4 + table))?;
        a.fadd(dword_ptr(ecx * 4 + table + 4))?;
        a.fstp(dword_ptr(edi + 4))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jns(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code);
    assert!(s.runs >= NARROW.len() as u64, "{s:?}");
}

/// A chain's operand under 16-bit addressing (`[bx]`): its address wraps at 64 KiB
/// (the fast effective-address form is for 32-bit addressing only), so the
/// operand faults at the wrapped address.
#[test]
fn sixteen_bit_address_inside_a_chain() {
    let code = assemble(|a| {
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, SRC + 0x100)?;
        a.fld(dword_ptr(esi))?;
        a.fmul(dword_ptr(K + 16))?;
        a.fadd(dword_ptr(bx))?;
        a.fstp(dword_ptr(edi))?;
        finish(a)
    });
    same_end(&code);
    match last_stop(&code) {
        StopReason::Exception(e) => assert_eq!(e.addr, 0x100),
        other => panic!("expected an access violation at 0x100, got {other:?}"),
    }
}

/// FCMOVcc as the first instruction of a fused run and inside one, for all eight
/// conditions, after every kind of last flag writer (arithmetic, logic, POPF, SAHF,
/// FCOMI): off and on agree, and ST(0) takes ST(1) exactly when the condition
/// holds. The fused op once handed FCMOVcc its own `Op::x` (the run's chain length,
/// 0 = "overflow") as the condition, so after POPF it never moved (issue 18).
#[test]
fn fcmov_after_every_flag_writer() {
    type Fc = fn(&mut A, AsmRegisterSt, AsmRegisterSt) -> R;
    let conds: [(Fc, fn(u32) -> bool); 8] = [
        (A::fcmovb, |f| f & 1 != 0),
        (A::fcmovnb, |f| f & 1 == 0),
        (A::fcmove, |f| f & 0x40 != 0),
        (A::fcmovne, |f| f & 0x40 == 0),
        (A::fcmovbe, |f| f & 0x41 != 0),
        (A::fcmovnbe, |f| f & 0x41 == 0),
        (A::fcmovu, |f| f & 4 != 0),
        (A::fcmovnu, |f| f & 4 == 0),
    ];
    // EFLAGS images (CF PF ZF combinations, bit 1 and IF set) for POPF, the AH
    // values for SAHF, and which CF/ZF (PF: a NaN operand) the other writers leave.
    let images: [u32; 5] = [0x202, 0x203, 0x246, 0x243, 0xa97];
    for (ci, (fcmov, holds)) in conds.iter().enumerate() {
        for &img in &images {
            for writer in ["popf", "sahf", "add", "and", "fcomi"] {
                for inside in [false, true] {
                    let code = assemble(|a| {
                        a.fld(qword_ptr(K + 24))?; // ST(1) = 3.0 after the next load
                        a.fld(qword_ptr(K))?; // ST(0) = 1.0001
                        match writer {
                            "popf" => {
                                a.push(img)?;
                                a.popfd()?;
                            }
                            "sahf" => {
                                a.mov(eax, img << 8)?;
                                a.sahf()?;
                            }
                            // Flags from an ADD whose result is `img`'s low byte
                            // pattern: CF from a carry, ZF from a zero.
                            "add" => {
                                a.mov(eax, if img & 1 != 0 { 0xffff_ffffu32 } else { 0 })?;
                                a.add(
                                    eax,
                                    if img & 0x40 != 0 && img & 1 != 0 {
                                        1
                                    } else {
                                        2
                                    },
                                )?;
                            }
                            "and" => {
                                a.mov(eax, if img & 0x40 != 0 { 0 } else { 3 })?;
                                a.and(eax, 0xffu32)?;
                            }
                            _ => {
                                // FCOMI of ST(0) with ST(1), then with a NaN.
                                if img & 4 != 0 {
                                    a.fld(qword_ptr(K + 40))?;
                                    a.fcomi(st0, st1)?;
                                    a.fstp(st0)?;
                                } else {
                                    a.fcomi(st0, st1)?;
                                }
                            }
                        }
                        if inside {
                            a.fxch(st0, st1)?;
                            a.fxch(st0, st1)?;
                        }
                        fcmov(a, st0, st1)?;
                        a.fxch(st0, st1)?;
                        a.fxch(st0, st1)?;
                        a.fstp(qword_ptr(DST))?;
                        a.fstp(st0)?;
                        a.pushfd()?;
                        a.pop(ebx)?;
                        finish(a)
                    });
                    let (s, _) = equivalent(&code);
                    assert!(s.runs > 0, "{s:?}");
                    let (on, _, _) = run(&code, true, u64::MAX);
                    let flags = on.regs[3];
                    let moved = on.mem[0x10_0000..0x10_0008] == 3.0f64.to_le_bytes();
                    let kept = on.mem[0x10_0000..0x10_0008] == 1.0001f64.to_le_bytes();
                    assert!(moved || kept, "cond {ci} {writer}: neither value stored");
                    assert_eq!(
                        moved,
                        holds(flags),
                        "cond {ci} after {writer} (eflags {flags:#x}, inside {inside})"
                    );
                }
            }
        }
    }
}
