//! `lut_span` and `case_chain`: the same guest program with the tier off and on must
//! end with identical registers, materialised flags, EIP, memory, stop reasons and
//! pacing counters (instructions retired, blocks entered), run whole and in budget
//! slices of 1, 7, 37 and 1000 instructions (every slice boundary is compared through
//! a digest), including runs that fault inside a span and stores into decoded code.
//! Each fold must match differently-registered shapes, and the near misses must stay
//! unfolded.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::StopReason;
use winterp_core::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
use winterp_core::tiers::{ALL, Decline, StatsSnapshot, Tier, Tiers};

type A = CodeAssembler;
type R = Result<(), IcedError>;

const TABLE: u32 = DATA + 0x1f_0000;
const SRC: u32 = DATA;
const DST: u32 = DATA + 0x10_0000;

fn finish(a: &mut A) -> R {
    a.mov(ebp, EXIT)?;
    a.jmp(ebp)
}

/// Source bytes (xorshift) and a 256-entry byte table.
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
    regs: [u32; 8],
    eip: u32,
    eflags: u32,
    insns: u64,
    blocks: u64,
    mem: Vec<u8>,
}

/// Runs `code` in slices of `slice` instructions with only `tier` switched (every
/// other tier off in both arms, so the comparison isolates this fold).
fn run(code: &[u8], tier: Tier, on: bool, slice: u64) -> (End, Arc<Tiers>, u64) {
    let tiers = Arc::new(Tiers::all(false));
    tiers.set(tier, on).unwrap();
    let mut m = Machine::new();
    m.exec.set_tiers(tiers.clone());
    init(&m);
    m.load(code);
    m.cpu.set_eflags(0x2 | 1);
    let mut stops = Vec::new();
    let mut digest = 0u64;
    for _ in 0..200_000 {
        let s = m.run(slice);
        stops.push(s);
        let mut h = digest ^ (m.cpu.eip as u64) ^ ((m.cpu.eflags() as u64) << 32);
        h ^= m.exec.counters.insns.rotate_left(17) ^ m.exec.counters.blocks.rotate_left(41);
        for v in &m.cpu.regs[..8] {
            h = h.wrapping_mul(0x100_0000_01b3) ^ *v as u64;
        }
        digest = h;
        if s != StopReason::BudgetSpent {
            break;
        }
    }
    assert!(
        stops.last() != Some(&StopReason::BudgetSpent),
        "program did not end"
    );
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
        insns: m.exec.counters.insns,
        blocks: m.exec.counters.blocks,
        mem,
    };
    (end, tiers, m.exec.counters.dispatches)
}

/// Off and on agree for every slice size; returns the on-arm stats of `tier` (whole
/// run) and the final state.
fn equivalent(code: &[u8], tier: Tier) -> (StatsSnapshot, End) {
    let mut out = None;
    for slice in [u64::MAX, 1, 7, 37, 1000] {
        let (off, toff, doff) = run(code, tier, false, slice);
        let (on, ton, don) = run(code, tier, true, slice);
        let s_off = toff.stats(tier).snapshot();
        assert_eq!(s_off.matches, 0, "off arm matched");
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
            assert!(
                s_off.decline(Decline::GateOff) > 0,
                "off arm saw no candidate"
            );
            assert!(don < doff, "fewer dispatches when folded: {don} vs {doff}");
            let s = ton.stats(tier).snapshot();
            assert!(s.matches > 0, "{tier:?} did not match: {s:?}");
            assert!(s.runs > 0 && s.iterations > 0 && s.elements > 0, "{s:?}");
            for t in ALL {
                if t != tier {
                    assert_eq!(ton.stats(t).snapshot().matches, 0, "{t:?} also matched");
                }
            }
            out = Some((s, on));
        }
    }
    out.unwrap()
}

/// Matches and declines of `tier` with only it switched on.
fn stats_on(code: &[u8], tier: Tier) -> StatsSnapshot {
    let (_, t, _) = run(code, tier, true, u64::MAX);
    t.stats(tier).snapshot()
}

// ---- LUT_SPAN -----------------------------------------------------------------------

/// A row loop whose body is `units` copies of `unit(k)` then `jmp` to the row update
/// (a separate block, so nothing is a self-loop).
fn span_rows(rows: u32, units: i32, stride: i32, unit: impl Fn(&mut A, i32) -> R) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        let mut next = a.create_label();
        a.mov(esi, SRC + 0x100)?;
        a.mov(edi, DST + 0x100)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, rows)?;
        a.set_label(&mut top)?;
        for k in 0..units {
            unit(a, k)?;
        }
        a.jmp(next)?;
        a.set_label(&mut next)?;
        a.add(esi, stride)?;
        a.add(edi, stride)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// The seed's one-source grammar: xor-zeroing, byte load, byte lookup, byte store.
#[test]
fn span_xor_form_ascending() {
    let code = span_rows(300, 12, 12, |a, k| {
        a.xor(eax, eax)?;
        a.mov(al, byte_ptr(esi + k))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi + k), al)
    });
    let (s, _) = equivalent(&code, Tier::LutSpan);
    // The first row runs in the setup block (it falls into the units), the rest in
    // the row block: two spans matched.
    assert_eq!(s.matches, 2);
    assert_eq!(s.elements, 300 * 12);
    assert!(
        s.bulk * 10 >= s.runs * 9,
        "page-verified path ran too little: {s:?}"
    );
}

/// gcc's form, descending like the Duff renderers, other registers: movzx index in
/// EDX from [ESI], the table an absolute address, the value in CL, stored via EBP.
#[test]
fn span_movzx_form_descending_other_registers() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut next = a.create_label();
        a.mov(esi, SRC + 0x1000)?;
        a.mov(ebp, DST + 0x1000)?;
        a.mov(edi, 250u32)?;
        a.set_label(&mut top)?;
        for k in (0..9i32).rev() {
            a.movzx(edx, byte_ptr(esi + k - 4))?;
            a.mov(cl, byte_ptr(edx + TABLE))?;
            a.mov(byte_ptr(ebp + k + 7), cl)?;
        }
        a.jmp(next)?;
        a.set_label(&mut next)?;
        a.sub(esi, 9)?;
        a.sub(ebp, 9)?;
        a.dec(edi)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code, Tier::LutSpan);
    assert_eq!(s.elements, 250 * 9);
}

/// movzx lookup into another register than the index, the index in EBX, table base
/// in EAX: and the spans write over their own source (in place), and each row
/// overlaps the previous one by a byte, so element order matters.
#[test]
fn span_in_place_movzx_lookup_other_register() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut next = a.create_label();
        a.mov(esi, SRC + 0x40)?;
        a.mov(eax, TABLE)?;
        a.mov(ecx, 200u32)?;
        a.set_label(&mut top)?;
        for k in 0..6i32 {
            a.xor(ebx, ebx)?;
            a.mov(bl, byte_ptr(esi + k))?;
            a.movzx(edx, byte_ptr(eax + ebx))?;
            a.mov(byte_ptr(esi + k), dl)?;
        }
        a.jmp(next)?;
        a.set_label(&mut next)?;
        a.add(esi, 5)?; // rows overlap by one byte
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code, Tier::LutSpan);
    assert!(s.bulk * 10 >= s.runs * 9, "{s:?}");
}

/// Spans that walk off the end of the data region fault on the exact unit's load,
/// with the earlier units' stores and registers done.
#[test]
fn span_faults_at_the_end_of_memory() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut next = a.create_label();
        a.mov(esi, DATA + DATA_SIZE - 100)?;
        a.mov(edi, DST)?;
        a.mov(ebx, TABLE)?;
        a.set_label(&mut top)?;
        for k in 0..8i32 {
            a.xor(eax, eax)?;
            a.mov(al, byte_ptr(esi + k))?;
            a.mov(al, byte_ptr(ebx + eax))?;
            a.mov(byte_ptr(edi + k), al)?;
        }
        a.jmp(next)?;
        a.set_label(&mut next)?;
        a.add(esi, 3)?;
        a.add(edi, 8)?;
        a.jmp(top)
    });
    let (s, end) = equivalent(&code, Tier::LutSpan);
    assert!(
        matches!(end.stops[end.stops.len() - 3], StopReason::Exception(_)),
        "{:?}",
        end.stops
    );
    assert!(s.bulk > 0, "{s:?}");
}

/// A span whose destination is its own code page: the first store retires the block
/// (`Exit::CodeWrite`) in both arms; the program then runs the stored bytes' effect.
#[test]
fn span_store_into_decoded_code() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut next = a.create_label();
        let mut pad = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(edi, CODE + 0x800)?;
        a.mov(ebx, TABLE)?;
        a.mov(ecx, 20u32)?;
        a.set_label(&mut top)?;
        for k in 0..5i32 {
            a.xor(eax, eax)?;
            a.mov(al, byte_ptr(esi + k))?;
            a.mov(al, byte_ptr(ebx + eax))?;
            a.mov(byte_ptr(edi + k), al)?;
        }
        a.jmp(next)?;
        a.set_label(&mut next)?;
        a.add(esi, 5)?;
        a.add(edi, 5)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.jmp(pad)?;
        a.set_label(&mut pad)?;
        finish(a)
    });
    let (off, _, _) = run(&code, Tier::LutSpan, false, u64::MAX);
    let (on, t, _) = run(&code, Tier::LutSpan, true, u64::MAX);
    assert_eq!(off, on);
    let s = t.stats(Tier::LutSpan).snapshot();
    assert!(s.matches > 0, "{s:?}");
    assert_eq!(s.bulk, 0, "a store into code is never page-verified: {s:?}");
    for slice in [1, 7, 37] {
        assert_eq!(
            run(&code, Tier::LutSpan, false, slice).0,
            run(&code, Tier::LutSpan, true, slice).0
        );
    }
}

/// Near misses: each stays unmatched, with the decline where the shape got far enough.
#[test]
fn span_near_misses_stay_unfolded() {
    let unit = |a: &mut A, s: i32, d: i32| -> R {
        a.xor(eax, eax)?;
        a.mov(al, byte_ptr(esi + s))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi + d), al)
    };
    // A displacement gap (every other source byte).
    let gap = span_rows(10, 8, 16, |a, k| unit(a, 2 * k, k));
    let s = stats_on(&gap, Tier::LutSpan);
    assert_eq!(s.matches, 0);
    assert!(s.decline(Decline::Address) > 0, "{s:?}");
    // Three units only.
    let short = span_rows(10, 3, 3, |a, k| unit(a, k, k));
    assert_eq!(stats_on(&short, Tier::LutSpan).matches, 0);
    // A cursor bumped between units (changing base).
    let bumped = span_rows(10, 6, 0, |a, k| {
        unit(a, k, k)?;
        a.inc(edi)
    });
    assert_eq!(stats_on(&bumped, Tier::LutSpan).matches, 0);
    // A scaled lookup (a word table indexed by a byte).
    let scaled = span_rows(10, 6, 6, |a, k| {
        a.xor(eax, eax)?;
        a.mov(al, byte_ptr(esi + k))?;
        a.mov(al, byte_ptr(ebx + eax * 2))?;
        a.mov(byte_ptr(edi + k), al)
    });
    assert_eq!(stats_on(&scaled, Tier::LutSpan).matches, 0);
    // No zero-extension: `mov al` without the xor leaves EAX's upper bits unknown.
    let no_zx = span_rows(10, 6, 6, |a, k| {
        a.mov(al, byte_ptr(esi + k))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi + k), al)
    });
    assert_eq!(stats_on(&no_zx, Tier::LutSpan).matches, 0);
    // A segment override.
    let seg = span_rows(10, 6, 6, |a, k| {
        a.xor(eax, eax)?;
        a.mov(al, byte_ptr(esi + k))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi + k).es(), al)
    });
    assert_eq!(stats_on(&seg, Tier::LutSpan).matches, 0);
    // The index register is the table base too.
    let alias = span_rows(10, 6, 6, |a, k| {
        a.xor(ebx, ebx)?;
        a.mov(bl, byte_ptr(esi + k))?;
        a.mov(al, byte_ptr(ebx + ebx))?;
        a.mov(byte_ptr(edi + k), al)
    });
    assert_eq!(stats_on(&alias, Tier::LutSpan).matches, 0);
    // All of them still run identically with the tier on.
    for code in [&gap, &short, &bumped, &scaled, &no_zx, &seg, &alias] {
        assert_eq!(
            run(code, Tier::LutSpan, false, 7).0,
            run(code, Tier::LutSpan, true, 7).0
        );
    }
}

// ---- CASE_CHAIN ---------------------------------------------------------------------

/// Walks `n` input bytes (loaded by `reg_load`) through a ladder. `rung(a, k,
/// target)` emits rung `k`; every target is a case body that adds `k + 1` to EDI (so
/// a wrong target shows) and jumps to the tail.
fn ladder(
    n: u32,
    rungs: u32,
    reg_load: impl Fn(&mut A) -> R,
    rung: impl Fn(&mut A, u32, CodeLabel) -> R,
) -> Vec<u8> {
    assemble(|a| {
        let mut top = a.create_label();
        let mut tail = a.create_label();
        let mut lad = a.create_label();
        let mut cases: Vec<CodeLabel> = (0..rungs).map(|_| a.create_label()).collect();
        a.mov(esi, SRC)?;
        a.mov(ecx, n)?;
        a.xor(edi, edi)?;
        a.set_label(&mut top)?;
        reg_load(a)?;
        a.jmp(lad)?; // the head block ends here; the ladder starts a block of its own
        a.set_label(&mut lad)?;
        for k in 0..rungs {
            rung(a, k, cases[k as usize])?;
        }
        a.add(edi, 1000)?;
        a.jmp(tail)?;
        for k in 0..rungs {
            a.set_label(&mut cases[k as usize])?;
            a.add(edi, k + 1)?;
            a.jmp(tail)?;
        }
        a.set_label(&mut tail)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    })
}

/// `movzx eax,[esi]; and al,31` then sixteen `cmp al,k / je` rungs.
#[test]
fn ladder_je_al() {
    let code = ladder(
        3000,
        16,
        |a| {
            a.movzx(eax, byte_ptr(esi))?;
            a.and(al, 31)
        },
        |a, k, t| {
            a.cmp(al, k)?;
            a.je(t)
        },
    );
    let (s, end) = equivalent(&code, Tier::CaseChain);
    assert_eq!(s.runs, 3000);
    assert!(s.iterations > 3000 * 8, "{s:?}");
    assert!(end.regs[7] > 3000, "cases ran: {:?}", end.regs);
}

/// Another register (DL), mixed `je`/`jne` rungs and near (rel32) branches: a `jne`
/// rung is taken for every value but its own.
#[test]
fn ladder_dl_mixed_jne_near() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut tail = a.create_label();
        let mut lad = a.create_label();
        let mut far = a.create_label();
        let mut c1 = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 2500u32)?;
        a.xor(edi, edi)?;
        a.set_label(&mut top)?;
        a.mov(dl, byte_ptr(esi))?;
        a.and(dl, 7)?;
        a.jmp(lad)?;
        a.set_label(&mut lad)?;
        a.cmp(dl, 0)?;
        a.je(c1)?;
        a.cmp(dl, 1)?;
        a.je(c1)?;
        a.cmp(dl, 2)?;
        a.jne(far)?; // taken for everything but 2
        a.cmp(dl, 3)?;
        a.je(c1)?;
        a.add(edi, 100)?;
        a.jmp(tail)?;
        a.set_label(&mut c1)?;
        a.add(edi, 1)?;
        a.jmp(tail)?;
        // Far enough that the jne is a rel32 branch.
        for _ in 0..40 {
            a.nop()?;
            a.nop()?;
            a.nop()?;
            a.nop()?;
        }
        a.set_label(&mut far)?;
        a.add(edi, 7)?;
        a.set_label(&mut tail)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let (s, _) = equivalent(&code, Tier::CaseChain);
    assert!(s.runs >= 2500, "{s:?}");
}

/// The ladder is entered straight from a head block that compares first (the Caesar
/// shape `mov al,[esi]; cmp al,0xff; jz`): the fold sits on the second rung. The byte
/// register is AH.
#[test]
fn ladder_after_a_comparing_head_ah() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut tail = a.create_label();
        let mut hit = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 2000u32)?;
        a.xor(edi, edi)?;
        a.set_label(&mut top)?;
        a.mov(ah, byte_ptr(esi))?;
        a.and(ah, 0x0f)?;
        a.cmp(ah, 15)?;
        a.je(hit)?;
        for k in 1..9u32 {
            a.cmp(ah, k)?;
            a.je(hit)?;
        }
        a.add(edi, 3)?;
        a.jmp(tail)?;
        a.set_label(&mut hit)?;
        a.movzx(edx, ah)?;
        a.add(edi, edx)?;
        a.set_label(&mut tail)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    equivalent(&code, Tier::CaseChain);
}

/// A store into a later rung's immediate retires the folded ladder: the new compare
/// value must be seen by the next walk in both arms.
#[test]
fn ladder_rung_rewritten_is_seen() {
    let code = assemble(|a| {
        let mut top = a.create_label();
        let mut tail = a.create_label();
        let mut lad = a.create_label();
        let mut hit = a.create_label();
        a.mov(esi, SRC)?;
        a.mov(ecx, 400u32)?;
        a.xor(edi, edi)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.and(al, 7)?;
        a.jmp(lad)?;
        a.set_label(&mut lad)?;
        for k in 0..6u32 {
            a.cmp(al, k)?;
            a.je(hit)?;
        }
        a.jmp(tail)?;
        a.set_label(&mut hit)?;
        a.add(edi, 1)?;
        a.set_label(&mut tail)?;
        // Halfway, make rung 3 compare with 7 (`cmp al,imm8` is 3c ib: imm at +1).
        a.cmp(ecx, 200)?;
        let mut skip = a.create_label();
        a.jne(skip)?;
        a.mov(edx, 0x5eed_5eedu32)?; // patched below to rung 3's address
        a.mov(byte_ptr(edx + 1), 7)?;
        a.set_label(&mut skip)?;
        a.inc(esi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    let mut code = code;
    let find = |c: &[u8], pat: &[u8]| c.windows(pat.len()).position(|w| w == pat).unwrap();
    let r3 = find(&code, &[0x3c, 0x03]) as u32;
    let m = find(&code, &0x5eed_5eedu32.to_le_bytes());
    code[m..m + 4].copy_from_slice(&(CODE + r3).to_le_bytes());
    let (_, end) = equivalent(&code, Tier::CaseChain);
    // Against the same program never rewritten: the rewrite changed the outcome.
    let mut plain = code.clone();
    plain[r3 as usize + 1] = 7;
    let (fixed, _, _) = run(&plain, Tier::CaseChain, true, u64::MAX);
    assert_ne!(fixed.regs[7], end.regs[7], "the rewrite is seen midway");
}

/// Near misses: a 32-bit compare ladder, a `jb` ladder, rungs on two registers, a
/// single rung, all unmatched (with the decline recorded) and all exact with the gate on.
#[test]
fn ladder_near_misses_stay_unfolded() {
    let rungs = |f: &dyn Fn(&mut A, u32, CodeLabel) -> R| {
        ladder(
            300,
            6,
            |a| {
                a.movzx(eax, byte_ptr(esi))?;
                a.and(eax, 7)?;
                a.mov(ebx, eax)
            },
            f,
        )
    };
    let wide = rungs(&|a, k, t| {
        a.cmp(eax, k)?;
        a.je(t)
    });
    let s = stats_on(&wide, Tier::CaseChain);
    assert_eq!(s.matches, 0);
    assert!(s.decline(Decline::Op) > 0, "{s:?}");
    let below = rungs(&|a, k, t| {
        a.cmp(al, k)?;
        a.jb(t)
    });
    let s = stats_on(&below, Tier::CaseChain);
    assert_eq!(s.matches, 0);
    assert!(s.decline(Decline::Terminator) > 0, "{s:?}");
    let two_regs = rungs(&|a, k, t| {
        if k % 2 == 0 {
            a.cmp(al, k)?;
        } else {
            a.cmp(bl, k)?;
        }
        a.je(t)
    });
    let s = stats_on(&two_regs, Tier::CaseChain);
    assert_eq!(s.matches, 0);
    assert!(s.decline(Decline::Shape) > 0, "{s:?}");
    let single = ladder(
        300,
        1,
        |a| {
            a.movzx(eax, byte_ptr(esi))?;
            a.and(eax, 1)
        },
        |a, k, t| {
            a.cmp(al, k)?;
            a.je(t)
        },
    );
    assert_eq!(stats_on(&single, Tier::CaseChain).matches, 0);
    for code in [&wide, &below, &two_regs, &single] {
        assert_eq!(
            run(code, Tier::CaseChain, false, 7).0,
            run(code, Tier::CaseChain, true, 7).0
        );
    }
}

// ---- gates and bench shapes ---------------------------------------------------------

#[test]
fn gates_are_available_and_switchable() {
    let t = Tiers::new();
    for tier in [Tier::LutSpan, Tier::CaseChain] {
        assert!(tier.available());
        t.set(tier, false).unwrap();
        assert!(!t.is_on(tier));
        t.set(tier, true).unwrap();
        assert!(t.is_on(tier));
        assert_eq!(Tier::from_name(tier.name()), Some(tier));
    }
}

/// The two bench shapes end identically with their tier on and off, fold only by
/// their tier, and dispatch far less when folded.
#[test]
fn bench_shapes_fold_and_end_identically() {
    use winterp_core::bench;
    for (shape, tier) in [
        (bench::lut_span(0x1_0000), Tier::LutSpan),
        (bench::case_chain(0x1_0000), Tier::CaseChain),
    ] {
        let off = bench::end_state(&shape, Arc::new(Tiers::all(false))).unwrap();
        let on_tiers = Arc::new(Tiers::all(false));
        on_tiers.set(tier, true).unwrap();
        let on = bench::end_state(&shape, on_tiers.clone()).unwrap();
        assert_eq!(off.0, on.0, "{}: registers", shape.name);
        assert_eq!(off.1, on.1, "{}: flags", shape.name);
        assert_eq!(off.2, on.2, "{}: memory", shape.name);
        assert_eq!(
            (off.3.insns, off.3.blocks),
            (on.3.insns, on.3.blocks),
            "{}: pacing",
            shape.name
        );
        let s = on_tiers.stats(tier).snapshot();
        assert!(s.iterations >= shape.iters, "{}: {s:?}", shape.name);
        for t in ALL {
            if t != tier {
                assert_eq!(
                    on_tiers.stats(t).snapshot().matches,
                    0,
                    "{}: {t:?}",
                    shape.name
                );
            }
        }
        assert!(
            on.3.dispatches * 20 < off.3.dispatches,
            "{}: dispatches {} vs {}",
            shape.name,
            on.3.dispatches,
            off.3.dispatches
        );
    }
}
