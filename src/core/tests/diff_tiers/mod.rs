//! Tier equivalence driven by the differential cases (issue 18): the tiers that
//! change how loops run — `block_exec` (block/region executor), `uop` (micro-op
//! tier) and `jit` (native code, issue 19) — take each case's code as the body of a
//! small loop, run with the tier
//! off and on; everything must come out bit-identical: registers, EIP, all of
//! EFLAGS (materialised from the lazy record), the x87/MMX image, the data window,
//! the counter page, the stop (fault kind, EIP and address), instructions retired
//! and blocks entered, and — run again in slices of [`SLICE`] instructions — the
//! state at every slice boundary.
//!
//! The loop (`CTR` is a page of its own, outside the window):
//!
//! ```text
//! top: <the case's code>          (its branches and far transfers go to its end)
//!      [setc/setz/sets/seto/setp byte [CTR+4..]]   every other case: the body's
//!                                   flags, read before the counter overwrites them
//!      sub dword [CTR], 1
//!      jnz top                     (then winterp's jump to the stop range)
//! ```
//!
//! The loop-idiom folds (`lut` `copy` `fill` `scan` `mmx_fill`, with `lut_span` and
//! `case_chain` also on in their arm) take only single-block self-loops of their
//! vocabulary in their shapes, so the cases of the forms they take get the loops
//! they fold ([`fold_loop`]): a store (`mov [m], r/imm`, `movq [m], mm`) becomes a
//! fill (`add base, ±size; dec ctr; jnz`), a load (`mov r, [m]`, `movzx`) a scan
//! (`add base, ±size; cmp r, v; jnz`, v the value some pass meets, or another) and
//! a copy (the load, `mov [dst], r`, both cursors stepped, `dec ctr; jnz`); a byte
//! load `movzx r32, byte [m]` also a table lookup (`movzx t, byte [tb + r]; mov
//! [dst], t8`) as a LUT loop or, unrolled over consecutive bytes, a straight-line
//! `lut_span`; a `cmp r8, imm8` the first rung of a `case_chain` ladder ([`ladder`]).
//! The case's addressing, registers and memory stay as they are, so the streams run
//! off the window's edges now and then.
//!
//! An x87 or MMX body is put between two `fxch st(1); fxch st(1)` pairs, so that
//! `x87_fusion` fuses it where it is on (the "default tiers" arm: the gates as
//! programs run, folds and `x87_fusion` on; and "every tier").
//!
//! [`ITERATIONS`] passes: `uop` lowers a loop only once its head has been entered
//! 32 times (`uop::engine::HOT`), `jit` compiles a block entered 16 times,
//! `block_exec` at the head's first decode. The
//! off arm has every tier off; the `block_exec`, `uop`, `jit` and folds arms only the
//! tiers under test, then the default gates and every tier at once. A tier that
//! cannot take a body (an instruction outside its vocabulary) leaves it to the
//! interpreter, which the arms then agree on trivially; the summary says how many
//! loops each tier ran.

use super::*;
use winterp_core::tiers::ALL as ALL_TIERS;

/// The loop counter's page: mapped read-write on the loop pass's emulators (not on
/// the main one), far from the window (whose neighbouring pages stay unmapped).
const CTR: u32 = 0x3800_0000;
/// Passes of the loop: past `uop`'s hotness threshold (32 entries of the head).
const ITERATIONS: u32 = 48;
/// The sliced runs' budget per executor run.
const SLICE: u64 = 37;
/// Cases per form run as loops (the first of every form; all with `DIFF_CASES`
/// at or below it).
const PER_FORM: usize = 24;
/// Cases per form run as fold loops (few forms have them; they are short).
const FOLD_PER_FORM: usize = 400;

/// `setb/sete/sets/seto/setp byte [CTR+4+k]`.
fn flag_probes() -> Vec<u8> {
    let mut b = Vec::new();
    for (k, cc) in [0x92u8, 0x94, 0x98, 0x90, 0x9a].into_iter().enumerate() {
        b.extend_from_slice(&[0x0f, cc, 0x05]);
        b.extend_from_slice(&(CTR + 4 + k as u32).to_le_bytes());
    }
    b
}

/// The case's code as the body of the counted loop.
fn loop_code(body: &[u8], probes: bool) -> Vec<u8> {
    let mut code = body.to_vec();
    if probes {
        code.extend(flag_probes());
    }
    // sub dword [CTR], 1
    code.extend_from_slice(&[0x83, 0x2d]);
    code.extend_from_slice(&CTR.to_le_bytes());
    code.push(1);
    // jnz top
    let short = -(code.len() as i64 + 2);
    if short >= -128 {
        code.extend_from_slice(&[0x75, short as i8 as u8]);
    } else {
        let rel = -(code.len() as i64 + 6) as i32;
        code.extend_from_slice(&[0x0f, 0x85]);
        code.extend_from_slice(&rel.to_le_bytes());
    }
    code
}

struct End {
    out: Outcome,
    insns: u64,
    blocks: u64,
    ctr: [u8; 16],
    trace: Vec<([u32; 8], u32, u32, u64)>,
}

fn run(emu: &mut Emu, c: &Case, slice: u64) -> End {
    // A panic rebuilds the emulator (`Emu::run`), without the counter page.
    if emu.mem.write_bytes(CTR, &[0; 16]).is_err() {
        emu.mem
            .commit(CTR, 0x1000, Prot::RW)
            .expect("commit counter page");
    }
    emu.mem
        .write_bytes(CTR, &ITERATIONS.to_le_bytes())
        .expect("counter");
    // Every case is a new program at the same address: start from an empty block
    // cache and head table (`uop` keeps a declined head's verdict by address).
    emu.exec.flush();
    emu.slice = slice;
    let (i0, b0) = (emu.exec.counters.insns, emu.exec.counters.blocks);
    let out = emu.run(c);
    let (insns, blocks) = (emu.exec.counters.insns - i0, emu.exec.counters.blocks - b0);
    let mut ctr = [0u8; 16];
    // The page is gone only after a panic, which `out.stop` reports.
    let _ = emu.mem.read_bytes(CTR, &mut ctr);
    let trace = std::mem::take(&mut emu.trace);
    End {
        out,
        insns,
        blocks,
        ctr,
        trace,
    }
}

fn end_diffs(a: &End, b: &End) -> Vec<String> {
    let mut d = exact_diffs(&a.out, &b.out);
    if (a.insns, a.blocks) != (b.insns, b.blocks) {
        d.push(format!(
            "counters: {} instructions / {} blocks vs {} / {}",
            a.insns, a.blocks, b.insns, b.blocks
        ));
    }
    if a.ctr != b.ctr {
        d.push(format!("counter page: {:02x?} vs {:02x?}", a.ctr, b.ctr));
    }
    if a.trace != b.trace {
        let k = a
            .trace
            .iter()
            .zip(&b.trace)
            .position(|(x, y)| x != y)
            .unwrap_or(a.trace.len().min(b.trace.len()));
        d.push(format!(
            "slice boundaries: {} vs {}, first difference at boundary {k}: {:x?} vs {:x?}",
            a.trace.len(),
            b.trace.len(),
            a.trace.get(k),
            b.trace.get(k)
        ));
    }
    d
}

/// The case's single load, store or byte compare as code the folds take (see the
/// module comment), with the case's registers adjusted (counter, cursors, table);
/// `None` for other forms.
fn fold_loop(c: &Case, pristine: &[u8], k: usize) -> Option<(Vec<u8>, [u32; 8])> {
    use iced_x86::OpKind;
    let mut dec = Decoder::with_ip(32, &c.code, CODE as u64, DecoderOptions::NONE);
    let ins = dec.decode();
    if ins.len() != c.code.len() || ins.has_lock_prefix() || ins.segment_prefix() != Register::None
    {
        return None;
    }
    if matches!(ins.code(), Code::Cmp_rm8_imm8 | Code::Cmp_AL_imm8)
        && ins.op0_kind() == OpKind::Register
    {
        return ladder(c, &ins, k);
    }
    let name = format!("{:?}", ins.code());
    let store = matches!(
        ins.code(),
        Code::Mov_rm8_r8
            | Code::Mov_rm16_r16
            | Code::Mov_rm32_r32
            | Code::Mov_rm8_imm8
            | Code::Mov_rm16_imm16
            | Code::Mov_rm32_imm32
            | Code::Movq_mmm64_mm
    ) && ins.op0_kind() == OpKind::Memory;
    let load = (name.starts_with("Mov_r") || name.starts_with("Movzx_r32"))
        && !store
        && ins.op_count() == 2
        && ins.op0_kind() == OpKind::Register
        && ins.op0_register().is_gpr()
        && ins.op1_kind() == OpKind::Memory;
    if !store && !load {
        return None;
    }
    let container = |r: Register| {
        if r.is_gpr8() {
            (r.number() & 3) as u32
        } else {
            r.number() as u32
        }
    };
    let (base, index) = (ins.memory_base(), ins.memory_index());
    let ind = if base.is_gpr32() && base != Register::ESP {
        base
    } else if index.is_gpr32() {
        index
    } else {
        return None;
    };
    let size = ins.memory_size().size() as i32;
    let mut used = 1u32 << ESP | 1 << container(ind);
    for r in [base, index] {
        if r.is_gpr() {
            used |= 1 << container(r);
        }
    }
    let val = (0..ins.op_count())
        .filter(|&i| ins.op_kind(i) == OpKind::Register && ins.op_register(i).is_gpr())
        .map(|i| ins.op_register(i))
        .next();
    if let Some(v) = val {
        used |= 1 << container(v);
    }
    let free: Vec<usize> = (0..8).filter(|r| used & (1 << r) == 0).collect();
    let mut regs = c.regs;
    let scale = if ind == index {
        ins.memory_index_scale() as i32
    } else {
        1
    };
    // One element per pass, up or down (the index register counts elements).
    let down = k % 4 == 3;
    let step = if ind == index { 1 } else { size };
    let step = if down { -step } else { step };
    let stride = step * scale;
    let mut enc = Encoder::new(32);
    let mut body = c.code.clone();
    let mut emit = |i: Instruction, body: &mut Vec<u8>| {
        enc.encode(&i, CODE as u64).expect("encode");
        body.extend(enc.take_buffer());
    };
    let add_ind = Instruction::with2(Code::Add_rm32_imm8, ind, step).unwrap();
    let passes = 1 + (k * 7919 % 96) as u32;
    let byte_index = ins.code() == Code::Movzx_r32_rm8 && ins.op0_register() != Register::ESP;
    if byte_index && k % 4 >= 2 {
        // LUT: the loaded byte indexes a 256-byte table in the window; the entry is
        // stored through a second cursor. As a loop (LUT) or, unrolled over
        // consecutive source and destination bytes, a straight-line span
        // (`lut_span`).
        let p = ins.op0_register();
        used |= 1 << p.number();
        let low: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&r| r < 4 && used & (1 << r) == 0)
            .collect();
        let t = *low.first()?;
        let rest: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&r| r != t && used & (1 << r) == 0)
            .collect();
        let (tb, dst) = (*rest.first()?, *rest.get(1)?);
        regs[tb] = WIN + 0x100 + (k as u32 * 131 % (WIN_SIZE - 0x300));
        regs[dst] = WIN + 0x100 + (k as u32 * 97 % (WIN_SIZE - 0x200));
        let lookup = Instruction::with2(
            Code::Movzx_r32_rm8,
            R32[t],
            MemoryOperand::with_base_index(R32[tb], p),
        )
        .unwrap();
        let dir: i32 = if down { -1 } else { 1 };
        if k % 4 == 2 {
            let ctr = *rest.get(2)?;
            regs[ctr] = passes;
            emit(lookup, &mut body);
            emit(
                Instruction::with2(Code::Mov_rm8_r8, MemoryOperand::with_base(R32[dst]), R8[t])
                    .unwrap(),
                &mut body,
            );
            emit(add_ind, &mut body);
            emit(
                Instruction::with2(Code::Add_rm32_imm8, R32[dst], dir).unwrap(),
                &mut body,
            );
            emit(
                Instruction::with1(Code::Dec_rm32, R32[ctr]).unwrap(),
                &mut body,
            );
        } else {
            body.clear();
            let units = 4 + k / 4 % 5;
            for u in 0..units as i32 {
                let mut src = ins;
                src.set_memory_displacement32(
                    ins.memory_displacement32().wrapping_add((u * dir) as u32),
                );
                src.set_memory_displ_size(4);
                emit(src, &mut body);
                emit(lookup, &mut body);
                emit(
                    Instruction::with2(
                        Code::Mov_rm8_r8,
                        MemoryOperand::with_base_displ(R32[dst], (u * dir) as i64),
                        R8[t],
                    )
                    .unwrap(),
                    &mut body,
                );
            }
            return Some((body, regs));
        }
    } else if load && k.is_multiple_of(2) {
        // SCAN: the value some pass loads, or (one in eight) any value.
        let v = ins.op0_register();
        let ea = ins
            .memory_displacement32()
            .wrapping_add(if base.is_gpr32() {
                c.regs[container(base) as usize]
            } else {
                0
            });
        let ea = ea.wrapping_add(if index.is_gpr32() {
            c.regs[container(index) as usize].wrapping_mul(scale as u32)
        } else {
            0
        });
        let at = ea.wrapping_add((passes.saturating_sub(1) as i32 * stride) as u32);
        let read = |a: u32| -> Option<u8> {
            let o = a.wrapping_sub(WIN);
            if o >= WIN_SIZE {
                return None;
            }
            let mut b = pristine[o as usize];
            for (off, data) in &c.patches {
                if o >= *off as u32 && o < *off as u32 + data.len() as u32 {
                    b = data[(o - *off as u32) as usize];
                }
            }
            Some(b)
        };
        let bytes: Option<Vec<u8>> = (0..size as u32).map(|j| read(at + j)).collect();
        let mut x = 0u32;
        for (j, b) in bytes.unwrap_or_default().iter().enumerate().take(4) {
            x |= (*b as u32) << (8 * j);
        }
        if k % 8 == 6 {
            x = x.rotate_left(7) ^ 0x5a;
        }
        let (cmp, w) = match v.size() {
            1 => (Code::Cmp_rm8_imm8, x as u8 as i8 as i32),
            2 => (Code::Cmp_rm16_imm16, x as u16 as i16 as i32),
            _ => (Code::Cmp_rm32_imm32, x as i32),
        };
        emit(add_ind, &mut body);
        emit(Instruction::with2(cmp, v, w).unwrap(), &mut body);
    } else {
        let ctr = *free.first()?;
        regs[ctr] = passes;
        if load {
            // COPY: the loaded value stored through a second cursor.
            let dst = *free.get(1)?;
            let v = ins.op0_register();
            let vs = if name.starts_with("Movzx") {
                match ins.memory_size().size() {
                    1 => Register::AL,
                    _ => Register::AX,
                }
            } else {
                v
            };
            let (st, vreg) = match vs.size() {
                1 => (
                    Code::Mov_rm8_r8,
                    if v.size() == 1 { v } else { R8[v.number()] },
                ),
                2 => (
                    Code::Mov_rm16_r16,
                    if v.size() == 2 { v } else { R16[v.number()] },
                ),
                _ => (Code::Mov_rm32_r32, v),
            };
            if vreg.is_gpr8() && vreg.number() >= 4 && v.size() == 4 {
                return None;
            }
            let sz = vreg.size() as i32;
            regs[dst] = WIN + 0x100 + (k as u32 * 97 % (WIN_SIZE - 0x200));
            let m = MemoryOperand::with_base(R32[dst]);
            emit(Instruction::with2(st, m, vreg).unwrap(), &mut body);
            emit(add_ind, &mut body);
            emit(
                Instruction::with2(Code::Add_rm32_imm8, R32[dst], if down { -sz } else { sz })
                    .unwrap(),
                &mut body,
            );
        } else {
            emit(add_ind, &mut body);
        }
        emit(
            Instruction::with1(Code::Dec_rm32, R32[ctr]).unwrap(),
            &mut body,
        );
    }
    // jnz top
    let short = -(body.len() as i64 + 2);
    if short < -128 {
        return None;
    }
    body.extend_from_slice(&[0x75, short as i8 as u8]);
    Some((body, regs))
}

/// `case_chain`'s ladder: the case's `cmp r8, imm8` and `je` are the first rung,
/// then 1 to 5 more rungs on the same register (`80 /7 ib`, `je` or `jne`, some
/// immediates the register's value); each rung's target adds its own constant to
/// another register and jumps to the end, so the rung taken shows in the state.
fn ladder(c: &Case, ins: &Instruction, k: usize) -> Option<(Vec<u8>, [u32; 8])> {
    let r8 = ins.op0_register();
    let rn = r8.number() as u8;
    let reg = (r8.number() & 3) as u32;
    let x = [EBX, ESI, EDI, EBP, EDX, ECX]
        .into_iter()
        .find(|&x| x as u32 != reg)? as u8;
    let val = if rn < 4 {
        c.regs[rn as usize] as u8
    } else {
        (c.regs[rn as usize - 4] >> 8) as u8
    };
    let rungs = 2 + k % 5;
    // Layout: rungs, `jmp end`, then one pad per rung (`lea x, [x+j+1]; jmp end`).
    let first = c.code.len() + 6;
    let ladder_len = first + (rungs - 1) * 9 + 5;
    let pad = |j: usize| ladder_len + 8 * j;
    let end = pad(rungs);
    let mut code = c.code.clone();
    let jcc = |code: &mut Vec<u8>, cc: u8, to: usize| {
        let rel = to as i64 - (code.len() as i64 + 6);
        code.extend_from_slice(&[0x0f, cc]);
        code.extend_from_slice(&(rel as i32).to_le_bytes());
    };
    jcc(&mut code, 0x84, pad(0));
    for j in 1..rungs {
        let imm = match (k / 5 + j) % 4 {
            0 => val,
            1 => val.wrapping_add(1),
            _ => (k * 31 + j * 57) as u8,
        };
        code.extend_from_slice(&[0x80, 0xf8 | rn, imm]);
        let cc = if (k + j) % 5 == 4 { 0x85 } else { 0x84 };
        jcc(&mut code, cc, pad(j));
    }
    let jmp = |code: &mut Vec<u8>, to: usize| {
        let rel = to as i64 - (code.len() as i64 + 5);
        code.push(0xe9);
        code.extend_from_slice(&(rel as i32).to_le_bytes());
    };
    jmp(&mut code, end);
    for j in 0..rungs {
        code.extend_from_slice(&[0x8d, 0x40 | x << 3 | x, j as u8 + 1]);
        jmp(&mut code, end);
    }
    debug_assert_eq!(code.len(), end);
    Some((code, c.regs))
}

struct Arm {
    name: &'static str,
    /// The tiers on in this arm (every other tier off).
    on: Vec<Tier>,
    /// Which loops the arm runs: [`loop_code`]'s, [`fold_loop`]'s.
    shapes: [bool; 2],
    emu: Emu,
    tiers: Arc<Tiers>,
    /// Loops run through the arm.
    cases: usize,
    /// Loops a tier of the arm ran at least once.
    taken: usize,
    bad: usize,
    shown: usize,
}

impl Arm {
    fn runs(&self) -> (u64, u64) {
        self.on.iter().fold((0, 0), |(r, i), &t| {
            let s = self.tiers.stats(t).snapshot();
            (r + s.runs, i + s.iterations)
        })
    }
}

/// The loops run with every tier off and with each tier (or the folds) alone.
pub(super) struct TierLoops {
    off: Emu,
    arms: Vec<Arm>,
    pristine: Arc<Vec<u8>>,
    cases: usize,
    per_form: std::collections::HashMap<String, usize>,
    secs: f64,
}

impl TierLoops {
    pub(super) fn new(pristine: Arc<Vec<u8>>) -> TierLoops {
        let gates = |on: &[Tier]| {
            let g = Arc::new(Tiers::all(false));
            for &t in on {
                g.set(t, true).expect("tier gate");
            }
            g
        };
        let folds = vec![
            Tier::Lut,
            Tier::Copy,
            Tier::Fill,
            Tier::Scan,
            Tier::MmxFill,
            Tier::LutSpan,
            Tier::CaseChain,
        ];
        let arms = [
            ("block_exec", vec![Tier::BlockExec], [true, false]),
            ("uop", vec![Tier::Uop], [true, false]),
            // The native-code tier (issue 19) compiles a block once it has been
            // entered 16 times (`jit::HOT`), well inside the 48 passes.
            ("jit", vec![Tier::Jit], [true, false]),
            ("folds", folds, [false, true]),
            // The default gates (the folds, `x87_fusion` and `jit`), as programs run, and
            // every tier at once (`block_exec` then claims the blocks the others
            // would take).
            (
                "default tiers",
                ALL_TIERS
                    .into_iter()
                    .filter(|&t| Tiers::new().is_on(t))
                    .collect(),
                [true, true],
            ),
            ("every tier", ALL_TIERS.to_vec(), [true, true]),
        ]
        .into_iter()
        .map(|(name, on, shapes)| {
            let tiers = gates(&on);
            Arm {
                name,
                on,
                shapes,
                emu: Emu::with_tiers(pristine.clone(), Some(tiers.clone())),
                tiers,
                cases: 0,
                taken: 0,
                bad: 0,
                shown: 0,
            }
        })
        .collect();
        TierLoops {
            off: Emu::with_tiers(pristine.clone(), Some(gates(&[]))),
            arms,
            pristine,
            cases: 0,
            per_form: std::collections::HashMap::new(),
            secs: 0.0,
        }
    }

    pub(super) fn check(&mut self, form: &str, c: &Case, show: usize) {
        let n = self.per_form.entry(form.to_string()).or_insert(0);
        *n += 1;
        let (generic_ok, fold_ok) = (*n <= PER_FORM, *n <= FOLD_PER_FORM);
        if !fold_ok {
            return;
        }
        let t0 = std::time::Instant::now();
        let k = self.cases;
        self.cases += 1;
        let mut generic = c.clone();
        // An x87/MMX body inside an x87 pair (as the straight-line `x87_fusion` pass
        // does), so the tier fuses it in the arms where it is on.
        let body = if has_x87_or_mmx(&c.code) {
            [&FXCH2[..], &c.code, &FXCH2].concat()
        } else {
            c.code.clone()
        };
        generic.code = loop_code(&body, k % 2 == 1);
        generic.host_code = None;
        let fold = fold_loop(c, &self.pristine, k);
        if fold.is_none() && !generic_ok {
            return;
        }
        let fold = fold.map(|(code, regs)| {
            let mut w = c.clone();
            w.code = code;
            w.regs = regs;
            w.host_code = None;
            w
        });
        // The off arm's ends, whole and sliced, per loop shape.
        let mut off: [Option<(End, End)>; 2] = [None, None];
        let loops = [generic_ok.then_some(&generic), fold.as_ref()];
        for arm in &mut self.arms {
            for (shape, w) in loops.iter().enumerate() {
                let Some(w) = w.filter(|_| arm.shapes[shape]) else {
                    continue;
                };
                let (whole, sliced) = off[shape].get_or_insert_with(|| {
                    (run(&mut self.off, w, BUDGET), run(&mut self.off, w, SLICE))
                });
                let before = arm.runs().0;
                let a = run(&mut arm.emu, w, BUDGET);
                let b = run(&mut arm.emu, w, SLICE);
                arm.cases += 1;
                if arm.runs().0 > before {
                    arm.taken += 1;
                }
                let mut d = end_diffs(whole, &a);
                d.extend(
                    end_diffs(sliced, &b)
                        .into_iter()
                        .map(|x| format!("sliced: {x}")),
                );
                if !d.is_empty() {
                    arm.bad += 1;
                    if arm.shown < show {
                        arm.shown += 1;
                        println!(
                            "{} changes the loop of {form}: {}\n  {}",
                            arm.name,
                            disasm(&w.code),
                            d.join("\n  ")
                        );
                    }
                }
            }
        }
        self.secs += t0.elapsed().as_secs_f64();
    }

    /// Prints one summary line per arm; the count of mismatches.
    pub(super) fn finish(&self) -> usize {
        let mut bad = 0;
        for arm in &self.arms {
            let (runs, iterations) = arm.runs();
            println!(
                "{} equivalence: {} differential cases as loops ({}), whole and in \
                 {SLICE}-instruction slices; the tier ran {} of them ({runs} runs, \
                 {iterations} iterations), {} mismatches",
                arm.name,
                arm.cases,
                match arm.shapes {
                    [true, false] => "counted passes",
                    [false, true] => "the loads, stores and byte compares the folds take",
                    _ => "both kinds",
                },
                arm.taken,
                arm.bad
            );
            if arm.shapes[1] {
                let per: Vec<String> = arm
                    .on
                    .iter()
                    .map(|&t| format!("{} {}", t.name(), arm.tiers.stats(t).snapshot().runs))
                    .collect();
                println!("  runs per tier: {}", per.join(", "));
            }
            assert!(
                arm.cases < 100 || arm.taken > 0,
                "{} ran none of the loops",
                arm.name
            );
            bad += arm.bad;
        }
        println!("(tier loops took {:.1}s)", self.secs);
        bad
    }
}
