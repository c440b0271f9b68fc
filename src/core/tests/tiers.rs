//! Loop-idiom folds: the same guest program with a tier off and on must end with
//! identical registers, materialised flags, EIP, memory, stop reasons and pacing
//! counters (instructions retired, blocks entered), including when the budget runs out
//! mid-run, when the loop faults mid-run and when it stores into decoded code. Each
//! fold must match in several differently-shaped, differently-registered loops, and
//! the near misses the seed lists must stay unfolded.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::tiers::{ALL, Decline, Tier, TierError, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const TABLE: u32 = DATA + 0x1f_0000;
const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;

/// Every available gate set to `on`, except the micro-op engine and the native-code
/// tier: they take whole loops or blocks rather than idioms (a near-miss loop the
/// folds must leave runs compiled there), and have their own equivalence suites
/// (tests/uop.rs, tests/jit.rs).
fn fold_tiers(on: bool) -> Tiers {
    let t = Tiers::all(on);
    t.set(Tier::Uop, false).expect("uop is a built tier");
    t.set(Tier::Jit, false).expect("jit is a built tier");
    t
}

fn finish(a: &mut A) -> R {
    a.mov(ebp, EXIT)?;
    a.jmp(ebp)
}

/// Source bytes (xorshift, with a zero at `zero_at`) and a 256-entry byte table plus a
/// 256-entry word table right after it.
fn init(m: &Machine, zero_at: u32) {
    let mut x = 0x9e37_79b9u32;
    let mut buf = vec![0u8; 0x2_0000];
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = (x as u8) | 1;
    }
    buf[zero_at as usize] = 0;
    m.mem.write_bytes(SRC, &buf).unwrap();
    let mut t: Vec<u8> = (0..=255u8).map(|b| b.rotate_left(3) ^ 0x5a).collect();
    for k in 0..256u32 {
        t.extend_from_slice(&((k * 0x0101) ^ 0x1234).to_le_bytes()[..2]);
    }
    m.mem.write_bytes(TABLE, &t).unwrap();
}

#[derive(Debug, PartialEq)]
struct End {
    stops: Vec<StopReason>,
    regs: [u32; 8],
    eip: u32,
    eflags: u32,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
}

/// Runs `code` to the end in slices of `slice` instructions with every tier `on` or
/// off; returns the final state and the machine (for the stats).
fn run(code: &[u8], on: bool, slice: u64, zero_at: u32) -> (End, Arc<Tiers>) {
    let tiers = Arc::new(fold_tiers(on));
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m, zero_at);
    m.load(code);
    // Non-trivial incoming flags (CF set) so that INC/DEC's preserved CF is tested.
    m.cpu.set_eflags(0x2 | 1);
    let mut stops = Vec::new();
    let mut states = Vec::new();
    for _ in 0..100_000 {
        let s = m.run(slice);
        stops.push(s);
        states.push((m.cpu.regs, m.cpu.eip, m.cpu.eflags(), m.exec.counters.insns));
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let mut regs = [0u32; 8];
    regs.copy_from_slice(&m.cpu.regs[..8]);
    // Every intermediate slice boundary is compared too, through a digest in `stops`'
    // companion: fold the per-slice states into the registers vector of the result.
    let digest = states.iter().fold(0u64, |h, (r, e, f, i)| {
        let mut h = h ^ (*e as u64) ^ ((*f as u64) << 32) ^ i.rotate_left(17);
        for v in &r[..8] {
            h = h.wrapping_mul(0x100_0000_01b3) ^ *v as u64;
        }
        h
    });
    stops.push(StopReason::Thunk(digest as u32));
    stops.push(StopReason::Thunk((digest >> 32) as u32));
    (
        End {
            stops,
            regs,
            eip: m.cpu.eip,
            eflags: m.cpu.eflags(),
            insns: m.exec.counters.insns,
            blocks: m.exec.counters.blocks,
            mem,
        },
        tiers,
    )
}

/// `equivalent`, and the page-chunk kernel ran most iterations.
fn equivalent_bulk(code: &[u8], tier: Tier, zero_at: u32) -> winterp_core::tiers::StatsSnapshot {
    let s = equivalent(code, tier, zero_at);
    assert!(
        s.bulk * 10 >= s.iterations * 8,
        "kernel ran too little: {s:?}"
    );
    s
}

/// `equivalent`, and the kernel declined the body (the exact step loop ran it all).
fn equivalent_steps(code: &[u8], tier: Tier, zero_at: u32) -> winterp_core::tiers::StatsSnapshot {
    let s = equivalent(code, tier, zero_at);
    assert_eq!(s.bulk, 0, "kernel ran: {s:?}");
    s
}

/// Off and on must agree for every slice size; returns the on-arm stats of `tier`.
fn equivalent(code: &[u8], tier: Tier, zero_at: u32) -> winterp_core::tiers::StatsSnapshot {
    let mut snap = None;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let (off, toff) = run(code, false, slice, zero_at);
        let (on, ton) = run(code, true, slice, zero_at);
        assert_eq!(toff.stats(tier).snapshot().matches, 0, "off arm matched");
        assert!(toff.stats(tier).snapshot().decline(Decline::GateOff) > 0);
        assert_eq!(off.stops, on.stops, "slice {slice}: stops");
        assert_eq!(off.regs, on.regs, "slice {slice}: registers");
        assert_eq!(off.eip, on.eip, "slice {slice}: eip");
        assert_eq!(off.eflags, on.eflags, "slice {slice}: flags");
        assert_eq!(
            (off.insns, off.blocks),
            (on.insns, on.blocks),
            "slice {slice}: counters"
        );
        assert!(off.mem == on.mem, "slice {slice}: memory differs");
        if slice == u64::MAX {
            snap = Some(ton.stats(tier).snapshot());
        }
    }
    let s = snap.unwrap();
    assert!(s.matches > 0, "{tier:?} did not match: {s:?}");
    assert!(s.runs > 0 && s.iterations > 0 && s.elements > 0, "{s:?}");
    s
}

/// Matches of every tier in the on arm (for near misses: must all be zero).
fn matches_all(code: &[u8]) -> (u64, Vec<(Tier, u64)>) {
    let (_, t) = run(code, true, u64::MAX, 0x1_0000);
    // block_exec runs any loop whose blocks end in direct branches (tests/region.rs),
    // so it is not a fold whose near misses these are.
    let m = ALL
        .iter()
        .filter(|x| **x != Tier::BlockExec)
        .map(|x| t.stats(*x).snapshot().matches)
        .sum();
    let d = ALL
        .iter()
        .map(|x| (*x, t.stats(*x).snapshot().declines_total()))
        .collect();
    (m, d)
}

// ---- LUT_RUN ------------------------------------------------------------------------

/// The bench form: movzx index, byte table, separate src/dst, dec/jnz.
fn lut_movzx(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// The Heroes II shape (seed §1.3): xor-zeroing, in-place, a displaced cursor, two
/// mirror stores, table in ECX, counter in EDX.
fn lut_heroes(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, TABLE)?;
        a.mov(edx, n)?;
        a.set_label(&mut top)?;
        a.xor(eax, eax)?;
        a.inc(esi)?;
        a.mov(al, byte_ptr(esi - 1))?;
        a.mov(dword_ptr(DATA + 0x1e_0000), esi)?;
        a.dec(edx)?;
        a.mov(dword_ptr(DATA + 0x1e_0010), ecx)?;
        a.mov(al, byte_ptr(eax + ecx))?;
        a.mov(byte_ptr(esi - 1), al)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// 16-bit entries, destination stride 2, other registers (table EDX, counter EBX).
fn lut16(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(ebp, SRC)?;
        a.mov(esi, DST)?;
        a.mov(edx, TABLE + 256)?;
        a.mov(ebx, n)?;
        a.set_label(&mut top)?;
        a.movzx(ecx, byte_ptr(ebp))?;
        a.mov(ax, word_ptr(edx + ecx * 2))?;
        a.mov(word_ptr(esi), ax)?;
        a.inc(ebp)?;
        a.add(esi, 2)?;
        a.dec(ebx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// Bounded form (seed §16): cursor compared with an invariant bound, JB.
fn lut_bounded(n: u32, jbe: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ebp, SRC + n)?;
        a.mov(edi, DST + 3)?;
        a.mov(edx, TABLE)?;
        a.set_label(&mut top)?;
        a.xor(ecx, ecx)?;
        a.mov(cl, byte_ptr(esi))?;
        a.mov(cl, byte_ptr(edx + ecx))?;
        a.mov(byte_ptr(edi), cl)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.cmp(esi, ebp)?;
        if jbe {
            a.jbe(top)?;
        } else {
            a.jb(top)?;
        }
        finish(a)
    })
}

#[test]
fn lut_counted_movzx_matches_and_is_exact() {
    let s = equivalent_bulk(&lut_movzx(5000), Tier::Lut, 0x1_0000);
    assert!(s.iterations >= 4000, "most iterations run folded: {s:?}");
}

#[test]
fn lut_heroes_shape_with_mirror_stores_and_xor_zeroing() {
    equivalent_steps(&lut_heroes(3000), Tier::Lut, 0x1_0000);
}

/// gcc's in-place form (assets/demo/demo.c `draw_shadow`): movzx from the pixel,
/// movzx from an absolute table indexed by it, store back at the advanced cursor
/// minus one, `sub ecx,1 / jnz`.
#[test]
fn lut_gcc_in_place_absolute_table() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(edx, SRC + 5)?;
        a.mov(ecx, 7000u32)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(edx))?;
        a.add(edx, 1)?;
        a.movzx(eax, byte_ptr(eax + TABLE))?;
        a.mov(byte_ptr(edx - 1), al)?;
        a.sub(ecx, 1)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_bulk(&code, Tier::Lut, 0x1_0000);
}

#[test]
fn lut16_wide_entries_other_registers() {
    equivalent_bulk(&lut16(2500), Tier::Lut, 0x1_0000);
}

#[test]
fn lut_bounded_jb() {
    equivalent_bulk(&lut_bounded(4100, false), Tier::Lut, 0x1_0000);
}

/// LUT's two-source index form (seed §16, version one): two bytes from two moving
/// sources make a 16-bit index `(s1 << 8) + s2` into a 64 KiB table (here the
/// source's own random bytes at SRC + 64 KiB), the entry is stored to a third
/// stream. `shift` and `scale` make the near misses.
fn lut_two_source(n: u32, shift: u32, scale: u32, zero_high: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC + 0x100)?;
        a.mov(edi, SRC + 0x4000)?;
        a.mov(ebp, DST)?;
        a.mov(ecx, SRC + 0x4000 + n)?;
        a.mov(ebx, 0x100u32)?;
        a.set_label(&mut top)?;
        if zero_high {
            a.xor(eax, eax)?;
        } else {
            // Upper bits from a register the body never zero-extended.
            a.mov(eax, ebx)?;
        }
        a.xor(edx, edx)?;
        a.mov(al, byte_ptr(esi))?;
        a.mov(dl, byte_ptr(edi))?;
        a.shl(eax, shift)?;
        a.mov(al, byte_ptr(eax + edx * scale + (SRC + 0x1_0000)))?;
        a.mov(byte_ptr(ebp), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.inc(ebp)?;
        a.cmp(edi, ecx)?;
        a.jb(top)?;
        finish(a)
    })
}

#[test]
fn lut_two_source_index_bounded() {
    let s = equivalent_steps(&lut_two_source(3000, 8, 1, true), Tier::Lut, 0x1_0000);
    assert_eq!(
        s.iterations,
        3000 - 1,
        "every iteration after the first folded: {s:?}"
    );
}

/// The same form with movzx loads, the table register first in the SIB, a counted
/// `dec/jnz` and other registers.
#[test]
fn lut_two_source_index_counted_movzx() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(edx, SRC + 0x800)?;
        a.mov(ebp, SRC + 0x9001)?;
        a.mov(edi, DST + 7)?;
        a.mov(esi, 2500u32)?;
        a.set_label(&mut top)?;
        a.movzx(ebx, byte_ptr(edx))?;
        a.shl(ebx, 8)?;
        a.movzx(eax, byte_ptr(ebp))?;
        a.movzx(eax, byte_ptr(eax + ebx + (SRC + 0x1_0000)))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(edx)?;
        a.add(ebp, 1)?;
        a.add(edi, 1)?;
        a.dec(esi)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_steps(&code, Tier::Lut, 0x1_0000);
}

#[test]
fn lut_two_source_near_misses_stay_unfolded() {
    for (what, code) in [
        ("shift by 7", lut_two_source(300, 7, 1, true)),
        ("scaled low byte", lut_two_source(300, 8, 2, true)),
        (
            "high byte not zero-extended",
            lut_two_source(300, 8, 1, false),
        ),
    ] {
        let (m, d) = matches_all(&code);
        assert_eq!(m, 0, "{what}: a fold matched");
        let lut = d.iter().find(|x| x.0 == Tier::Lut).unwrap().1;
        assert!(lut > 0, "{what}: LUT did not decline it: {d:?}");
        // Still exact with the folds on.
        for slice in [u64::MAX, 7] {
            assert_eq!(
                run(&code, false, slice, 0x1_0000).0,
                run(&code, true, slice, 0x1_0000).0,
                "{what}"
            );
        }
    }
}

// ---- COPY_RUN -----------------------------------------------------------------------

fn copy_bytes(n: u32, overlap: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, if overlap { SRC + 3 } else { DST })?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// Backward dword copy indexed by the counter itself.
fn copy_dwords_indexed(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(ebx, SRC)?;
        a.mov(edx, DST)?;
        a.mov(eax, n)?;
        a.set_label(&mut top)?;
        a.mov(esi, dword_ptr(ebx + eax * 4 - 4))?;
        a.mov(dword_ptr(edx + eax * 4 - 4), esi)?;
        a.sub(eax, 1)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// gcc's merge-sort tail (`while (l < mid) tmp[k++] = a[l++];`): dword copy with
/// two pointer cursors, bounded by `cmp cursor, end / jne`, both directions.
fn copy_dwords_jne(n: u32, down: bool) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        let step = if down { -4i32 } else { 4 };
        a.mov(eax, if down { SRC + 4 * n } else { SRC })?;
        a.mov(ebx, if down { SRC } else { SRC + 4 * n })?;
        a.mov(ecx, if down { DST + 4 * n } else { DST })?;
        a.set_label(&mut top)?;
        a.mov(edx, dword_ptr(eax))?;
        a.add(eax, step)?;
        a.add(ecx, step)?;
        a.mov(dword_ptr(ecx - step), edx)?;
        a.cmp(eax, ebx)?;
        a.jne(top)?;
        finish(a)
    })
}

#[test]
fn copy_dwords_bounded_jne_both_directions() {
    equivalent_bulk(&copy_dwords_jne(3000, false), Tier::Copy, 0x1_0000);
    equivalent_bulk(&copy_dwords_jne(3000, true), Tier::Copy, 0x1_0000);
}

/// A `jne` bound the cursor steps over (odd distance, stride 2) wraps around the
/// address space in the guest; the kernel must not run it in bulk, and both arms
/// must agree until the loop faults.
#[test]
fn copy_jne_bound_never_hit_is_not_bulk() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ebx, SRC + 0x1001)?;
        a.mov(edi, DST)?;
        a.set_label(&mut top)?;
        a.mov(dx, word_ptr(esi))?;
        a.mov(word_ptr(edi), dx)?;
        a.add(esi, 2)?;
        a.add(edi, 2)?;
        a.cmp(esi, ebx)?;
        a.jne(top)?;
        finish(a)
    });
    equivalent_steps(&code, Tier::Copy, 0x1_0000);
}

#[test]
fn copy_forward_bytes() {
    equivalent_bulk(&copy_bytes(6000, false), Tier::Copy, 0x1_0000);
}

#[test]
fn copy_overlapping_replicates_like_the_guest_loop() {
    equivalent_bulk(&copy_bytes(6000, true), Tier::Copy, 0x1_0000);
}

#[test]
fn copy_backward_dwords_counter_as_index() {
    equivalent_bulk(&copy_dwords_indexed(3000), Tier::Copy, 0x1_0000);
}

// ---- FILL_RUN -----------------------------------------------------------------------

fn fill_bytes(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(edi, DST + 1)?;
        a.mov(eax, 0xa5u32)?;
        a.mov(ecx, n)?;
        a.set_label(&mut top)?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

fn fill_dwords_bounded(n: u32) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(ebx, DST)?;
        a.mov(esi, DST + 4 * n)?;
        a.set_label(&mut top)?;
        a.mov(dword_ptr(ebx), 0x1234_5678)?;
        a.add(ebx, 4)?;
        a.cmp(ebx, esi)?;
        a.jb(top)?;
        finish(a)
    })
}

#[test]
fn fill_bytes_counted() {
    equivalent_bulk(&fill_bytes(9000), Tier::Fill, 0x1_0000);
}

#[test]
fn fill_dwords_imm_bounded() {
    equivalent_bulk(&fill_dwords_bounded(3000), Tier::Fill, 0x1_0000);
}

// ---- SCAN_RUN -----------------------------------------------------------------------

fn strlen_loop() -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.inc(esi)?;
        a.test(al, al)?;
        a.jnz(top)?;
        a.sub(esi, SRC + 1)?;
        finish(a)
    })
}

fn scan_for_key() -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.mov(edi, SRC + 5)?;
        a.set_label(&mut top)?;
        a.mov(dl, byte_ptr(edi))?;
        a.add(edi, 1)?;
        a.cmp(dl, 0)?;
        a.jne(top)?;
        finish(a)
    })
}

#[test]
fn scan_strlen() {
    equivalent_bulk(&strlen_loop(), Tier::Scan, 0x3456);
}

#[test]
fn scan_cmp_key_other_registers() {
    equivalent_bulk(&scan_for_key(), Tier::Scan, 0x2345);
}

// ---- faults, SMC, switching ---------------------------------------------------------

/// A fill that runs off the end of the data region faults on the first byte of the
/// uncommitted page, with the state of the faulting iteration, in both arms.
#[test]
fn fill_faults_at_the_page_edge_exactly() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(edi, DATA + DATA_SIZE - 0x1234)?;
        a.mov(eax, 0x77u32)?;
        a.mov(ecx, 0x2000u32)?;
        a.set_label(&mut top)?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let s = equivalent(&code, Tier::Fill, 0x1_0000);
    assert!(s.iterations >= 0x1000, "{s:?}");
    let (end, _) = run(&code, true, u64::MAX, 0x1_0000);
    match end.stops[0] {
        StopReason::Exception(e) => assert_eq!(e.addr, DATA + DATA_SIZE),
        other => panic!("expected a fault, got {other:?}"),
    }
    assert_eq!(end.regs[7], DATA + DATA_SIZE);
}

/// A LUT whose source runs into an unmapped page faults on the load.
#[test]
fn lut_faults_on_the_source_exactly() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, DATA + DATA_SIZE - 100)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, 1000u32)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code, Tier::Lut, 0x1_0000);
}

/// A fill that overwrites the immediate of an instruction already decoded: the new
/// value must be seen on the next execution, in both arms.
#[test]
fn fill_into_decoded_code_is_seen() {
    fill_into_decoded_code_fixed();
}

fn check_smc(code: &[u8]) {
    let (off, _) = run(code, false, u64::MAX, 0x1_0000);
    let (on, t) = run(code, true, u64::MAX, 0x1_0000);
    assert_eq!(off, on);
    assert_eq!(on.regs[6], 0x2222_2222, "the patched immediate runs");
    assert!(t.stats(Tier::Fill).snapshot().matches > 0);
}

/// Layout: CODE+0 `xor edx,edx`; CODE+2 (back) `mov ebx,patch; jmp ebx`; CODE+9 the
/// exit; CODE+0x80 (after) counts passes and on the first pass fills patch's imm32
/// with 0x22 bytes; CODE+0x100 (patch) `mov esi, 0x11111111; jmp after`.
fn fill_into_decoded_code_fixed() {
    let patch = CODE + 0x100;
    let code = assemble(|a| {
        a.xor(edx, edx)?;
        a.mov(ebx, patch)?;
        a.jmp(ebx)?;
        finish(a)
    });
    let mut img = code;
    img.resize(0x200, 0x90);
    let after = assemble_at(CODE + 0x80, |a| {
        let mut fill = a.create_label();
        a.inc(edx)?;
        a.cmp(edx, 2)?;
        a.je(CODE as u64 + 9)?;
        a.mov(edi, patch + 1)?;
        a.mov(eax, 0x22u32)?;
        a.mov(ecx, 4u32)?;
        a.set_label(&mut fill)?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(fill)?;
        a.jmp(CODE as u64 + 2)
    });
    img[0x80..0x80 + after.len()].copy_from_slice(&after);
    let p = assemble_at(patch, |a| {
        a.mov(esi, 0x1111_1111u32)?;
        a.jmp(CODE as u64 + 0x80)
    });
    img[0x100..0x100 + p.len()].copy_from_slice(&p);
    check_smc(&img);
}

fn assemble_at(at: u32, f: impl FnOnce(&mut A) -> R) -> Vec<u8> {
    let mut a = CodeAssembler::new(32).unwrap();
    f(&mut a).unwrap();
    a.assemble(at as u64).unwrap()
}

/// A copy whose destination is its own loop body: the first store into the block
/// ends the run right after it, exactly as the interpreter's CodeWrite exit does.
#[test]
fn copy_over_its_own_loop_stops_like_the_interpreter() {
    // The loop copies NOPs... over bytes ahead of itself (the trailing exit code), then
    // the exit code it wrote runs. Source holds `mov ebp, EXIT; jmp ebp` bytes.
    let exit_code = assemble_at(0, |a| {
        a.mov(eax, 0x5555_5555u32)?;
        a.mov(ebp, EXIT)?;
        a.jmp(ebp)
    });
    let code = assemble_at(CODE, |a| {
        let mut top = a.create_label();
        a.mov(esi, SRC + 0x8000)?;
        a.mov(edi, CODE + 0x40)?;
        a.mov(ecx, exit_code.len() as u32)?;
        a.set_label(&mut top)?;
        a.mov(dl, byte_ptr(esi))?;
        a.mov(byte_ptr(edi), dl)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.mov(ebx, CODE + 0x40)?;
        a.jmp(ebx)
    });
    let mut img = code;
    img.resize(0x40, 0x90);
    // Old code at CODE+0x40 (decoded once before the copy: it is never run, but the
    // page is code). Pre-fill with a different exit so a stale decode would show.
    let stale = assemble_at(CODE + 0x40, |a| {
        a.mov(eax, 0x6666_6666u32)?;
        a.mov(ebp, EXIT)?;
        a.jmp(ebp)
    });
    img.extend_from_slice(&stale);
    for on in [false, true] {
        let tiers = Arc::new(fold_tiers(on));
        let mut m = Machine::new();
        m.exec.set_tiers(tiers.clone());
        init(&m, 0x1_0000);
        m.mem.write_bytes(SRC + 0x8000, &exit_code).unwrap();
        m.load(&img);
        assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
        assert_eq!(m.cpu.regs[0], 0x5555_5555, "arm on={on}");
    }
    let (off, _) = {
        let (e, t) = run_img_with_src(&img, &exit_code, false);
        (e, t)
    };
    let (on, t) = run_img_with_src(&img, &exit_code, true);
    assert_eq!(off, on);
    assert!(t.stats(Tier::Copy).snapshot().matches > 0);
}

fn run_img_with_src(img: &[u8], src: &[u8], on: bool) -> (End, Arc<Tiers>) {
    let tiers = Arc::new(fold_tiers(on));
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m, 0x1_0000);
    m.mem.write_bytes(SRC + 0x8000, src).unwrap();
    m.load(img);
    let s = m.run(u64::MAX);
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    let mut regs = [0u32; 8];
    regs.copy_from_slice(&m.cpu.regs[..8]);
    (
        End {
            stops: vec![s],
            regs,
            eip: m.cpu.eip,
            eflags: m.cpu.eflags(),
            insns: m.exec.counters.insns,
            blocks: m.exec.counters.blocks,
            mem,
        },
        tiers,
    )
}

/// Switching a gate while the program runs reaches the executor at its next block
/// boundary (it flushes, and the folded block is re-decoded unfolded), and the
/// program ends in the same state as with the tier never on.
#[test]
fn switching_lut_mid_run_retires_folded_code() {
    let code = assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(edx, 6u32)?;
        a.set_label(&mut outer)?;
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, 5000u32)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(edx)?;
        a.jnz(outer)?;
        finish(a)
    });
    let (reference, _) = run(&code, false, u64::MAX, 0x1_0000);
    let tiers = Arc::new(fold_tiers(true));
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m, 0x1_0000);
    m.load(&code);
    m.cpu.set_eflags(0x2 | 1);
    let mut last_runs = 0;
    let mut k = 0;
    loop {
        let s = m.run(20_000);
        let runs = tiers.stats(Tier::Lut).snapshot().runs;
        if k % 3 == 1 {
            // The gate was off for this slice: no folded run may have happened.
            assert_eq!(runs, last_runs, "a run happened with the gate off");
        }
        last_runs = runs;
        k += 1;
        tiers.set(Tier::Lut, k % 3 != 1).unwrap();
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    assert!(m.exec.counters.flushes >= 2, "switches flushed the cache");
    assert!(last_runs > 0);
    let mut regs = [0u32; 8];
    regs.copy_from_slice(&m.cpu.regs[..8]);
    assert_eq!(regs, reference.regs);
    assert_eq!(m.cpu.eflags(), reference.eflags);
    assert_eq!(m.exec.counters.insns, reference.insns);
    assert_eq!(m.exec.counters.blocks, reference.blocks);
    let mut mem = vec![0u8; DATA_SIZE as usize];
    m.mem.read_bytes(DATA, &mut mem).unwrap();
    assert!(mem == reference.mem);
}

#[test]
fn unbuilt_tiers_report_not_available() {
    let t = Tiers::new();
    // Every named tier is built now: each gate switches (to its current setting here,
    // which does not flush).
    for tier in ALL {
        assert!(tier.available(), "{tier:?} is not built");
        assert_ne!(
            t.set(tier, t.is_on(tier)),
            Err(TierError::NotAvailable(tier))
        );
    }
    assert!(t.is_on(Tier::X87Fusion), "x87_fusion defaults on");
    for tier in [Tier::Lut, Tier::Copy, Tier::Fill, Tier::Scan] {
        assert!(t.is_on(tier), "{tier:?} defaults on");
        assert_eq!(Tier::from_name(tier.name()), Some(tier));
    }
    let e = t.epoch();
    t.set(Tier::Lut, true).unwrap();
    assert_eq!(t.epoch(), e, "a no-op switch does not flush");
    t.set(Tier::Lut, false).unwrap();
    assert_eq!(t.epoch(), e + 1);
}

#[test]
fn hot_blocks_name_the_tier_that_runs_them() {
    let mut m = Machine::new();
    m.exec.set_tiers(Arc::new(fold_tiers(true)));
    init(&m, 0x1_0000);
    m.load(&lut_movzx(3000));
    assert_eq!(m.run(u64::MAX), StopReason::Thunk(EXIT));
    let hot = m.exec.hot_blocks_tiered(1);
    assert_eq!(hot[0].tier, Some(Tier::Lut));
    // The first iteration runs in the setup block (a block ends at a branch), so the
    // loop block is entered 2999 times, folded or not.
    assert_eq!(hot[0].entries, 2999, "one entry per iteration, as unfolded");
    assert_eq!(hot[0].insns_per_entry, 7);
}

// ---- near misses (seed §16: JBE; §9.5: no zero-extension; MEMCTR; extra work) -------

fn near(f: impl FnOnce(&mut A) -> R) -> Vec<u8> {
    assemble(|a| {
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, 300u32)?;
        a.mov(dword_ptr(DATA + 0x1e_0000), 300)?;
        f(a)?;
        finish(a)
    })
}

#[test]
fn near_misses_stay_unfolded() {
    let cases: Vec<(&str, Vec<u8>, Tier, Decline)> = vec![
        (
            "bounded JBE",
            lut_bounded(300, true),
            Tier::Lut,
            Decline::Terminator,
        ),
        (
            "byte index not zero-extended",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.mov(al, byte_ptr(esi))?;
                a.mov(al, byte_ptr(ebx + eax))?;
                a.mov(byte_ptr(edi), al)?;
                a.inc(esi)?;
                a.inc(edi)?;
                a.dec(ecx)?;
                a.jnz(top)
            }),
            Tier::Lut,
            Decline::Address,
        ),
        (
            "table base moves",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.movzx(eax, byte_ptr(esi))?;
                a.mov(al, byte_ptr(ebx + eax))?;
                a.mov(byte_ptr(edi), al)?;
                a.inc(esi)?;
                a.inc(edi)?;
                a.mov(ebx, esi)?;
                a.dec(ecx)?;
                a.jnz(top)
            }),
            Tier::Lut,
            Decline::Address,
        ),
        (
            "counter in memory",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.mov(al, byte_ptr(esi))?;
                a.mov(byte_ptr(edi), al)?;
                a.inc(esi)?;
                a.inc(edi)?;
                a.dec(dword_ptr(DATA + 0x1e_0000))?;
                a.jnz(top)
            }),
            Tier::Copy,
            Decline::Op,
        ),
        (
            "arithmetic in the body",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.mov(al, byte_ptr(esi))?;
                a.imul_3(eax, eax, 3)?;
                a.mov(byte_ptr(edi), al)?;
                a.inc(esi)?;
                a.inc(edi)?;
                a.dec(ecx)?;
                a.jnz(top)
            }),
            Tier::Copy,
            Decline::Op,
        ),
        (
            "fill of a changing value",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.mov(byte_ptr(edi), al)?;
                a.inc(eax)?;
                a.inc(edi)?;
                a.dec(ecx)?;
                a.jnz(top)
            }),
            Tier::Fill,
            Decline::Shape,
        ),
        (
            "counted scan (no data exit)",
            near(|a| {
                let mut top = a.create_label();
                a.set_label(&mut top)?;
                a.mov(al, byte_ptr(esi))?;
                a.inc(esi)?;
                a.dec(ecx)?;
                a.jnz(top)
            }),
            Tier::Scan,
            Decline::Shape,
        ),
    ];
    for (name, code, tier, why) in cases {
        let (m, _) = matches_all(&code);
        assert_eq!(m, 0, "{name} folded");
        let (_, t) = run(&code, true, u64::MAX, 0x1_0000);
        assert!(
            t.stats(tier).snapshot().decline(why) > 0,
            "{name}: expected a {why:?} decline on {tier:?}: {:?}",
            t.stats(tier).snapshot()
        );
        // And the unfolded program still agrees with itself across the arms.
        let (a, _) = run(&code, false, 13, 0x1_0000);
        let (b, _) = run(&code, true, 13, 0x1_0000);
        assert_eq!(a, b, "{name}");
    }
}

/// The bench shapes end in the same state with every tier on and off, each loop shape
/// is folded by the tier it is named after, and `null` is folded by none.
#[test]
fn bench_shapes_end_identically_and_fold_where_named() {
    use winterp_core::bench;
    // Every shape `winterp bench` runs (its registry), so a new shape is covered
    // without editing this test. A shape named after a built tier, or a variant listed
    // here, must be folded by that tier alone.
    let tier_of = |name: &str| match name {
        "lut16" | "lut_bounded" => Some(Tier::Lut),
        "mem_copy" => Some(Tier::Copy),
        "tree_span" | "tree_dot" | "tree_chain" | "region_if2" | "region_diamond4"
        | "region_state6" | "region_ladder5" => Some(Tier::BlockExec),
        n => Tier::from_name(n).filter(|t| t.available()),
    };
    let shapes = bench::standard(1);
    assert!(shapes.iter().any(|s| s.name == "null"), "no null shape");
    for shape in shapes {
        let tier = tier_of(shape.name);
        let off = bench::end_state(&shape, Arc::new(fold_tiers(false))).unwrap();
        let on_tiers = Arc::new(fold_tiers(true));
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
        let matched: u64 = ALL
            .iter()
            .map(|t| on_tiers.stats(*t).snapshot().matches)
            .sum();
        match tier {
            Some(t) => {
                let s = on_tiers.stats(t).snapshot();
                let by_tier: Vec<(Tier, u64)> = ALL
                    .iter()
                    .map(|u| (*u, on_tiers.stats(*u).snapshot().matches))
                    .filter(|(_, m)| *m > 0)
                    .collect();
                assert_eq!(
                    s.matches, matched,
                    "{}: only {t:?} matches; matches by tier {by_tier:?}",
                    shape.name
                );
                assert!(
                    s.matches > 0 && s.iterations as f64 >= 0.9 * shape.iters as f64,
                    "{}: {s:?}",
                    shape.name
                );
                assert!(
                    on.3.dispatches * 20 < off.3.dispatches,
                    "{}: dispatches",
                    shape.name
                );
            }
            None if shape.name == "null" => {
                assert_eq!(matched, 0, "{}: a tier fired on the null shape", shape.name)
            }
            // Not a loop idiom: only the end state above is asserted.
            None => {}
        }
    }
}

/// Kernel hazards: the table index rewritten between the byte load and the lookup
/// (the index is then not the loaded byte), and a copy whose loaded register is
/// rewritten before the store. Both still fold (the exact step loop runs them) and
/// must agree with the interpreter.
#[test]
fn kernel_declines_rewritten_index_and_value() {
    let lut_rezeroed = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, 3000u32)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.xor(eax, eax)?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_steps(&lut_rezeroed, Tier::Lut, 0x1_0000);
    let copy_pipelined = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 3000u32)?;
        a.set_label(&mut top)?;
        a.mov(byte_ptr(edi), al)?; // stores the previous iteration's byte
        a.mov(al, byte_ptr(esi))?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    // A register loaded and then incremented carries its upper bits between
    // iterations: the step loop runs it.
    let carried = assemble(|a| {
        let mut top = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, DST)?;
        a.mov(ecx, 3000u32)?;
        a.xor(edx, edx)?;
        a.set_label(&mut top)?;
        a.mov(dl, byte_ptr(esi))?;
        a.mov(byte_ptr(edi), dl)?;
        a.inc(edx)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent_steps(&carried, Tier::Copy, 0x1_0000);
    // The store precedes the load: not a COPY (the stored value is not loaded yet).
    let (m, _) = matches_all(&copy_pipelined);
    assert_eq!(m, 0);
}

// ---- MMX qword fill (seed §23) ------------------------------------------------------

/// `movq [dst], mm; add dst, 8; dec cnt; jnz` with the registers given.
fn mmx_fill(
    start: u32,
    n: u32,
    dst: AsmRegister32,
    cnt: AsmRegister32,
    mm: AsmRegisterMm,
) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        a.movq(mm, qword_ptr(SRC))?;
        a.mov(dst, start)?;
        a.mov(cnt, n)?;
        a.set_label(&mut top)?;
        a.movq(qword_ptr(dst), mm)?;
        a.add(dst, 8)?;
        a.dec(cnt)?;
        a.jnz(top)?;
        a.emms()?;
        finish(a)
    })
}

#[test]
fn mmx_fill_from_four_bytes_before_a_page_end() {
    equivalent_bulk(
        &mmx_fill(DST + 0xffc, 1500, edi, ecx, mm0),
        Tier::MmxFill,
        0x1_0000,
    );
}

#[test]
fn mmx_fill_other_registers() {
    equivalent_bulk(
        &mmx_fill(DST + 8, 2000, esi, ebx, mm3),
        Tier::MmxFill,
        0x1_0000,
    );
}

#[test]
fn mmx_fill_faults_at_the_end_of_memory() {
    let code = mmx_fill(DATA + DATA_SIZE - 8 * 700 - 4, 1000, edi, ecx, mm1);
    equivalent(&code, Tier::MmxFill, 0x1_0000);
    let (end, _) = run(&code, true, u64::MAX, 0x1_0000);
    assert!(
        matches!(end.stops[0], StopReason::Exception(_)),
        "{:?}",
        end.stops[0]
    );
}

#[test]
fn mmx_fill_near_misses() {
    // Extra MMX arithmetic in the body: not a fill.
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(edi, DST)?;
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        a.movq(qword_ptr(edi), mm0)?;
        a.paddb(mm0, mm1)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.emms()?;
        finish(a)
    });
    let (m, _) = matches_all(&code);
    assert_eq!(m, 0);
    // A qword store mixed with a byte store is neither FILL nor MMX fill.
    let code = assemble(|a| {
        let mut top = a.create_label();
        a.mov(edi, DST)?;
        a.mov(ecx, 100u32)?;
        a.set_label(&mut top)?;
        a.movq(qword_ptr(edi), mm0)?;
        a.mov(byte_ptr(edi + 8), al)?;
        a.add(edi, 9)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.emms()?;
        finish(a)
    });
    let (m, _) = matches_all(&code);
    assert_eq!(m, 0);
}

/// `WINTERP_TIERS` syntax (forced tiers for test runs): the `--tier` switches,
/// comma-separated; bad items are refused with the reason, not skipped.
#[test]
fn tier_switch_lists_parse_and_refuse_bad_items() {
    use winterp_core::tiers::parse_switches;
    assert_eq!(parse_switches(""), Ok(vec![]));
    assert_eq!(
        parse_switches("jit=on, uop=off ,"),
        Ok(vec![(Tier::Jit, true), (Tier::Uop, false)])
    );
    let e = parse_switches("jit=yes").unwrap_err();
    assert!(e.contains("on or off"), "{e}");
    let e = parse_switches("jit").unwrap_err();
    assert!(e.contains("NAME=on|off"), "{e}");
    let e = parse_switches("turbo=on").unwrap_err();
    assert!(e.contains("unknown tier \"turbo\""), "{e}");
}
