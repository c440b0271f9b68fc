//! Benchmark shapes written as guest machine code, and a runner that measures them
//! with the executor's own counters. `winterp bench` prints the results.

use crate::harness::{self, DATA, EXIT, Machine};
use crate::stats::ExecCounters;
use crate::tiers::{Tier, Tiers};
use iced_x86::BlockEncoderOptions;
use iced_x86::code_asm::*;
use std::sync::Arc;
use std::time::Instant;

/// One benchmark program: guest code whose main loop runs `iters` times.
pub struct Shape {
    pub name: &'static str,
    pub what: &'static str,
    pub code: Vec<u8>,
    pub iters: u64,
    /// Guest memory contents written before each run.
    pub init: Vec<(u32, Vec<u8>)>,
}

#[derive(Clone, Debug)]
pub struct Sample {
    pub secs: f64,
    pub counters: ExecCounters,
}

#[derive(Clone, Debug)]
pub struct ShapeResult {
    pub name: &'static str,
    pub iters: u64,
    pub samples: Vec<Sample>,
}

impl ShapeResult {
    fn median_secs(&self) -> f64 {
        let mut v: Vec<f64> = self.samples.iter().map(|s| s.secs).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
    pub fn min_secs(&self) -> f64 {
        self.samples
            .iter()
            .map(|s| s.secs)
            .fold(f64::INFINITY, f64::min)
    }
    pub fn insns(&self) -> u64 {
        self.samples[0].counters.insns
    }
    pub fn mips_median(&self) -> f64 {
        self.insns() as f64 / self.median_secs() / 1e6
    }
    pub fn ns_per_iter_median(&self) -> f64 {
        self.median_secs() * 1e9 / self.iters as f64
    }
    pub fn ns_per_iter_min(&self) -> f64 {
        self.min_secs() * 1e9 / self.iters as f64
    }
    pub fn dispatches_per_insn(&self) -> f64 {
        let c = &self.samples[0].counters;
        c.dispatches as f64 / c.insns.max(1) as f64
    }
    pub fn blocks_per_iter(&self) -> f64 {
        self.samples[0].counters.blocks as f64 / self.iters as f64
    }
    pub fn dispatches_per_iter(&self) -> f64 {
        self.samples[0].counters.dispatches as f64 / self.iters as f64
    }
}

/// Executor settings a benchmark arm runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// Block chaining (branches enter decoded successors directly).
    pub chaining: bool,
    /// One tier gate forced on or off (the others as the process-wide gates have them).
    pub tier: Option<(Tier, bool)>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            chaining: crate::exec::CHAINING_DEFAULT,
            tier: None,
        }
    }
}

/// Settings that `winterp bench --toggle` can switch besides the tier names.
pub const TOGGLES: &[&str] = &["chain"];

impl RunConfig {
    /// This config with toggle `name` (a setting in [`TOGGLES`] or a tier name) set
    /// to `on`.
    pub fn with(self, name: &str, on: bool) -> Result<RunConfig, String> {
        if let Some(t) = Tier::from_name(name) {
            if !t.available() {
                return Err(format!("tier {name} is not available in this build"));
            }
            return Ok(RunConfig {
                tier: Some((t, on)),
                ..self
            });
        }
        match name {
            "chain" => Ok(RunConfig {
                chaining: on,
                ..self
            }),
            _ => Err(format!(
                "unknown toggle {name:?}; known: {TOGGLES:?} and the tiers {:?}",
                crate::tiers::ALL.map(|t| t.name())
            )),
        }
    }
}

/// Runs a shape once on a fresh machine; returns wall time and counters.
pub fn run_once(shape: &Shape) -> Result<Sample, String> {
    run_once_with(shape, RunConfig::default())
}

pub fn run_once_with(shape: &Shape, cfg: RunConfig) -> Result<Sample, String> {
    let mut m = machine(shape, cfg)?;
    let t = Instant::now();
    let stop = m.run(u64::MAX);
    let secs = t.elapsed().as_secs_f64();
    ended(shape, &m, stop)?;
    Ok(Sample {
        secs,
        counters: m.exec.counters,
    })
}

/// A fresh machine with `shape` loaded under `cfg`.
fn machine(shape: &Shape, cfg: RunConfig) -> Result<Machine, String> {
    let mut m = Machine::new();
    m.exec.chaining = cfg.chaining;
    // Private gates per run: the arms must not see each other's switches or stats.
    // They start as the process-wide gates stand (defaults, `WINTERP_TIERS`,
    // `winterp bench --tier`), so `winterp bench --tier jit=off` measures without
    // the native-code tier.
    let tiers = Tiers::new();
    let global = crate::tiers::global();
    for t in crate::tiers::ALL.into_iter().filter(|t| t.available()) {
        tiers.set(t, global.is_on(t)).map_err(|e| e.to_string())?;
    }
    // As the process-wide gates (`tiers::global`): `jit` compiles in the background.
    tiers.set_jit_background(true);
    if let Some((t, on)) = cfg.tier {
        tiers.set(t, on).map_err(|e| e.to_string())?;
    }
    m.exec.set_tiers(Arc::new(tiers));
    for (addr, bytes) in &shape.init {
        m.mem
            .write_bytes(*addr, bytes)
            .map_err(|f| format!("shape {}: init {f:?}", shape.name))?;
    }
    m.load(&shape.code);
    Ok(m)
}

fn ended(shape: &Shape, m: &Machine, stop: crate::StopReason) -> Result<(), String> {
    match stop {
        crate::StopReason::Thunk(EXIT) => Ok(()),
        other => Err(format!(
            "shape {} stopped with {other:?} at eip {:#x}",
            shape.name, m.cpu.eip
        )),
    }
}

/// Instructions per slice of [`run_pair`].
pub const PAIR_SLICE: u64 = 4_000_000;

/// The two arms of an A/B side by side: two machines run `shape` in turns of
/// [`PAIR_SLICE`] instructions (the arm that goes first alternating), each timed
/// on its own, until both end. A change of the host's speed (this 2-core VM runs
/// the same work at 41 or at 60 ns an iteration for a second or so at a time)
/// then falls on both arms' neighbouring slices, where back-to-back whole runs
/// each caught a different one. An arm's slice ends when its background compiles
/// (`jit`) have too, so their latency stays in that arm's time, as in a whole run,
/// where the guest thread runs on the interpreter until the code arrives (a
/// conservative charge: there the compile thread overlaps the guest thread). Budget
/// slices change nothing a program does: every tier is exact across them
/// (src/core/tests).
pub fn run_pair(shape: &Shape, a: RunConfig, b: RunConfig) -> Result<(Sample, Sample), String> {
    let mut ms = [machine(shape, a)?, machine(shape, b)?];
    let mut secs = [0f64; 2];
    let mut done = [false; 2];
    let mut turn = 0usize;
    while !(done[0] && done[1]) {
        for k in [turn, turn ^ 1] {
            if done[k] {
                continue;
            }
            let t = Instant::now();
            let stop = ms[k].run(PAIR_SLICE);
            // The arm's background compiles finish in its own time: the other
            // arm's slice must not hide them.
            while ms[k].exec.jit_compiling() {
                std::thread::sleep(std::time::Duration::from_micros(20));
            }
            secs[k] += t.elapsed().as_secs_f64();
            if stop != crate::StopReason::BudgetSpent {
                ended(shape, &ms[k], stop)?;
                done[k] = true;
            }
        }
        turn ^= 1;
    }
    let [ma, mb] = ms;
    Ok((
        Sample {
            secs: secs[0],
            counters: ma.exec.counters,
        },
        Sample {
            secs: secs[1],
            counters: mb.exec.counters,
        },
    ))
}

/// The end state of a shape run under `tiers`: registers, EFLAGS, an FNV-1a digest of
/// the data region, the counters. Equal end states with every tier on and off are the
/// bench shapes' part of the tier acceptance (tests/tiers.rs).
pub fn end_state(
    shape: &Shape,
    tiers: Arc<Tiers>,
) -> Result<([u32; 8], u32, u64, ExecCounters), String> {
    let mut m = Machine::new();
    m.exec.set_tiers(tiers);
    for (addr, bytes) in &shape.init {
        m.mem
            .write_bytes(*addr, bytes)
            .map_err(|f| format!("shape {}: init {f:?}", shape.name))?;
    }
    m.load(&shape.code);
    match m.run(u64::MAX) {
        crate::StopReason::Thunk(EXIT) => {}
        other => return Err(format!("shape {} stopped with {other:?}", shape.name)),
    }
    let mut mem = vec![0u8; harness::DATA_SIZE as usize];
    m.mem
        .read_bytes(DATA, &mut mem)
        .map_err(|f| format!("{f:?}"))?;
    let digest = mem.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let mut regs = [0u32; 8];
    regs.copy_from_slice(&m.cpu.regs[..8]);
    Ok((regs, m.cpu.eflags(), digest, m.exec.counters))
}

/// A/B: every shape with `toggle` off and on, `reps` rounds, the arms side by side
/// in slices ([`run_pair`]) with the order rotated each round. Both arms must do identical guest work (same
/// instructions and blocks); the result is (off, on) per shape.
pub fn run_toggle(
    shapes: &[Shape],
    reps: usize,
    toggle: &str,
) -> Result<Vec<(ShapeResult, ShapeResult)>, String> {
    let off = RunConfig::default().with(toggle, false)?;
    let on = RunConfig::default().with(toggle, true)?;
    let mut res: Vec<(ShapeResult, ShapeResult)> = shapes
        .iter()
        .map(|s| {
            let r = ShapeResult {
                name: s.name,
                iters: s.iters,
                samples: vec![],
            };
            (r.clone(), r)
        })
        .collect();
    for round in 0..reps {
        for (k, s) in shapes.iter().enumerate() {
            let (a, b) = if (round + k) % 2 == 0 {
                let (x, y) = run_pair(s, off, on)?;
                (x, y)
            } else {
                let (y, x) = run_pair(s, on, off)?;
                (x, y)
            };
            res[k].0.samples.push(a);
            res[k].1.samples.push(b);
            let (a, b) = (&res[k].0.samples[0].counters, &res[k].1.samples[0].counters);
            if a.insns != b.insns || a.blocks != b.blocks {
                return Err(format!(
                    "shape {}: toggle {toggle} changed the guest work",
                    s.name
                ));
            }
        }
    }
    Ok(res)
}

/// The median over rounds of `off`'s time over `on`'s time in the same round: the two
/// samples of a round of [`run_toggle`] run back to back, so a change of the host's
/// speed that lasts longer than a pair cancels in each ratio, where it does not
/// cancel in the ratio of the two arms' medians. Rounds are paired by index.
pub fn paired_ratio_median(off: &ShapeResult, on: &ShapeResult) -> f64 {
    let mut v: Vec<f64> = off
        .samples
        .iter()
        .zip(&on.samples)
        .map(|(a, b)| a.secs / b.secs)
        .collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs every shape `reps` times, interleaving shapes so drift hits all alike.
pub fn run_all(shapes: &[Shape], reps: usize) -> Result<Vec<ShapeResult>, String> {
    run_all_with(shapes, reps, RunConfig::default())
}

/// [`run_all`] under `cfg`.
pub fn run_all_with(
    shapes: &[Shape],
    reps: usize,
    cfg: RunConfig,
) -> Result<Vec<ShapeResult>, String> {
    let mut res: Vec<ShapeResult> = shapes
        .iter()
        .map(|s| ShapeResult {
            name: s.name,
            iters: s.iters,
            samples: vec![],
        })
        .collect();
    for _ in 0..reps {
        for (k, s) in shapes.iter().enumerate() {
            let sample = run_once_with(s, cfg)?;
            // Equal work is the guest's: instructions and blocks. Dispatches and
            // decodes depend on when background compiles land (`jit`), run to run.
            if let Some(first) = res[k].samples.first()
                && (first.counters.insns, first.counters.blocks)
                    != (sample.counters.insns, sample.counters.blocks)
            {
                return Err(format!(
                    "shape {} did different work on a repeat run",
                    s.name
                ));
            }
            res[k].samples.push(sample);
        }
    }
    Ok(res)
}

type Asm = CodeAssembler;
type R = Result<(), iced_x86::IcedError>;

fn finish(a: &mut Asm) -> R {
    a.mov(eax, EXIT)?;
    a.jmp(eax)
}

/// Register ALU loop: add/xor/sub/shift-free ALU work and a counted back edge.
pub fn reg_alu(iters: u32) -> Shape {
    let code = harness::assemble(|a| {
        let mut top = a.create_label();
        a.mov(ecx, iters)?;
        a.xor(eax, eax)?;
        a.mov(ebx, 0x1234_5678u32)?;
        a.mov(edx, 7u32)?;
        a.set_label(&mut top)?;
        a.add(eax, ebx)?;
        a.xor(edx, eax)?;
        a.sub(ebx, edx)?;
        a.and(edx, 0xffffu32)?;
        a.or(esi, edx)?;
        a.inc(edi)?;
        a.cmp(eax, ebx)?;
        a.adc(esi, 0)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        finish(a)
    });
    Shape {
        name: "reg_alu",
        what: "register ALU loop",
        code,
        iters: iters as u64,
        init: vec![],
    }
}

/// Byte copy loop: mov al,[esi]; mov [edi],al; inc; inc; dec; jnz.
pub fn mem_copy(iters: u32) -> Shape {
    let len = 0x10000u32;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    Shape {
        name: "mem_copy",
        what: "byte copy loop",
        code,
        iters: (iters / len * len) as u64,
        init: test_data(),
    }
}

/// Byte table translate: al = table[[esi]]; store; a counted loop.
pub fn lut(iters: u32) -> Shape {
    let len = 0x10000u32;
    let table = DATA + 0x1f_0000;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.mov(ebx, table)?;
        a.xor(eax, eax)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    Shape {
        name: "lut",
        what: "byte table translate loop",
        code,
        iters: (iters / len * len) as u64,
        init: test_data(),
    }
}

/// Recursive fib(n) with call/ret and stack traffic; iterations = calls made.
pub fn call_ret(n: u32) -> Shape {
    let code = harness::assemble(|a| {
        let mut fib = a.create_label();
        let mut base = a.create_label();
        a.mov(eax, n)?;
        a.call(fib)?;
        finish(a)?;
        // fib(eax) -> eax
        a.set_label(&mut fib)?;
        a.cmp(eax, 2)?;
        a.jb(base)?;
        a.push(ebx)?;
        a.push(eax)?;
        a.dec(eax)?;
        a.call(fib)?;
        a.mov(ebx, eax)?;
        a.pop(eax)?;
        a.sub(eax, 2)?;
        a.call(fib)?;
        a.add(eax, ebx)?;
        a.pop(ebx)?;
        a.set_label(&mut base)?;
        a.ret()
    });
    // fib calls: C(n) = C(n-1) + C(n-2) + 1, C(0)=C(1)=1
    let (mut c0, mut c1) = (1u64, 1u64);
    for _ in 2..=n {
        let c2 = c0 + c1 + 1;
        c0 = c1;
        c1 = c2;
    }
    Shape {
        name: "call_ret",
        what: "recursive fib",
        code,
        iters: if n < 2 { 1 } else { c1 },
        init: vec![],
    }
}

/// fld/fmul/fadd/fstp over an array of doubles.
pub fn x87(iters: u32) -> Shape {
    let len = 4096u32;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(DATA + 0x1f_0000))?;
        a.fadd(qword_ptr(DATA + 0x1f_0008))?;
        a.fstp(qword_ptr(edi))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    let mut arr = Vec::new();
    for k in 0..len {
        arr.extend_from_slice(&(k as f64 * 0.5).to_le_bytes());
    }
    let mut consts = 1.0001f64.to_le_bytes().to_vec();
    consts.extend_from_slice(&0.25f64.to_le_bytes());
    let init = vec![(DATA, arr), (DATA + 0x1f_0000, consts)];
    Shape {
        name: "x87",
        what: "fld/fmul/fadd/fstp loop",
        code,
        iters: (iters / len * len) as u64,
        init,
    }
}

/// An x87 pipeline over arrays of doubles and floats: two load / multiply / add /
/// store chains per element, with register arithmetic and an exchange between them,
/// so the x87 run is long and the integer part (pointer bumps, counter) short.
pub fn x87_pipeline(iters: u32) -> Shape {
    let len = 4096u32;
    let k = DATA + 0x1f_0000;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.fld(qword_ptr(esi))?;
        a.fmul(qword_ptr(k))?;
        a.fadd(qword_ptr(k + 8))?;
        a.fld(dword_ptr(k + 16))?;
        a.fmul_2(st0, st1)?;
        a.fsub(qword_ptr(esi))?;
        a.fxch(st0, st1)?;
        a.fstp(qword_ptr(edi))?;
        a.fadd(dword_ptr(k + 20))?;
        a.fdiv(qword_ptr(k + 24))?;
        a.fstp(dword_ptr(edi + 0x8_0000))?;
        a.add(esi, 8)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    let mut arr = Vec::new();
    for n in 0..len {
        arr.extend_from_slice(&(n as f64 * 0.5 - 1000.0).to_le_bytes());
    }
    let mut consts = 1.0001f64.to_le_bytes().to_vec();
    consts.extend_from_slice(&0.25f64.to_le_bytes());
    consts.extend_from_slice(&1.5f32.to_le_bytes());
    consts.extend_from_slice(&(-3.75f32).to_le_bytes());
    consts.extend_from_slice(&3.0f64.to_le_bytes());
    let init = vec![(DATA, arr), (k, consts)];
    Shape {
        name: "x87_pipeline",
        what: "11-instruction x87 pipeline (loads, mul/add/sub/div, fxch, stores) per element",
        code,
        iters: (iters / len * len) as u64,
        init,
    }
}

/// Islands of x87 between integer ops: a scale-and-store island, then the classic
/// compare read-back (`fld / fcomp / fnstsw ax / test ah`) feeding an integer count.
pub fn x87_island(iters: u32) -> Shape {
    let len = 4096u32;
    let k = DATA + 0x1f_0000;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.xor(ebx, ebx)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.mov(edx, dword_ptr(esi))?;
        a.add(edx, ecx)?;
        a.fld(dword_ptr(esi))?;
        a.fmul(dword_ptr(k))?;
        a.fadd(dword_ptr(k + 4))?;
        a.fstp(dword_ptr(edi))?;
        a.mov(dword_ptr(edi + 0x8_0000), edx)?;
        a.fld(dword_ptr(edi))?;
        a.fcomp(dword_ptr(k + 8))?;
        a.fnstsw(ax)?;
        a.test(ah, 0x41)?;
        a.setz(dl)?;
        a.movzx(edx, dl)?;
        a.add(ebx, edx)?;
        a.add(esi, 4)?;
        a.add(edi, 4)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    let mut arr = Vec::new();
    for n in 0..len {
        arr.extend_from_slice(&((n as f32 - 2048.0) * 0.75).to_le_bytes());
    }
    let mut consts = 1.25f32.to_le_bytes().to_vec();
    consts.extend_from_slice(&0.5f32.to_le_bytes());
    consts.extend_from_slice(&10.0f32.to_le_bytes());
    let init = vec![(DATA, arr), (k, consts)];
    Shape {
        name: "x87_island",
        what: "x87 islands between integer ops, fcomp/fnstsw ax/test ah read-back",
        code,
        iters: (iters / len * len) as u64,
        init,
    }
}

/// 512 distinct blocks entered in a pseudo-random order (an LCG picks each next
/// block through a jump table), so branches are not periodic.
pub fn block_mix(iters: u32) -> Shape {
    let table = DATA + 0x1e_0000;
    let mut blocks = Vec::new();
    let code = harness::assemble(|a| {
        let mut disp = a.create_label();
        let mut done = a.create_label();
        a.mov(ebp, iters)?;
        a.mov(eax, 12345u32)?;
        a.set_label(&mut disp)?;
        a.dec(ebp)?;
        a.js(done)?;
        a.imul_3(eax, eax, 1_103_515_245)?;
        a.add(eax, 12345)?;
        a.mov(edx, eax)?;
        a.shr(edx, 16)?;
        a.and(edx, 511)?;
        a.jmp(dword_ptr(edx * 4 + table))?;
        for k in 0..512u32 {
            let mut l = a.create_label();
            a.set_label(&mut l)?;
            blocks.push(l);
            a.add(esi, k)?;
            a.xor(edi, esi)?;
            if k % 3 == 0 {
                a.sub(ebx, edi)?;
            } else {
                a.lea(ebx, ebx + edi * 2 + k)?;
            }
            a.inc(ecx)?;
            a.jmp(disp)?;
        }
        a.set_label(&mut done)?;
        finish(a)
    });
    let _ = blocks;
    let table_bytes: Vec<u8> = block_starts(&code)
        .iter()
        .flat_map(|a| a.to_le_bytes())
        .collect();
    Shape {
        name: "block_mix",
        what: "512 blocks in pseudo-random order",
        code,
        iters: iters as u64,
        init: vec![(table, table_bytes)],
    }
}

/// A counted inner loop of `len` iterations run `iters / len` times, with the outer
/// loop resetting ESI (source), EDI (destination), EBX (table) and ECX (count);
/// `body` is the inner loop's body before its `dec ecx; jnz`.
fn inner_loop(
    name: &'static str,
    what: &'static str,
    iters: u32,
    len: u32,
    bounded: bool,
    body: impl Fn(&mut Asm) -> R,
) -> Shape {
    let table = DATA + 0x1f_0000;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.xor(eax, eax)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ebx, table)?;
        a.mov(ecx, len)?;
        a.mov(edx, DATA + len)?;
        a.set_label(&mut top)?;
        body(a)?;
        if bounded {
            a.cmp(esi, edx)?;
            a.jb(top)?;
        } else {
            a.dec(ecx)?;
            a.jnz(top)?;
        }
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    Shape {
        name,
        what,
        code,
        iters: (iters / len * len) as u64,
        init: test_data(),
    }
}

/// LUT with 16-bit entries: dst16 = table16[src8].
pub fn lut16(iters: u32) -> Shape {
    inner_loop(
        "lut16",
        "16-bit table translate loop",
        iters,
        0x8000,
        false,
        |a| {
            a.movzx(eax, byte_ptr(esi))?;
            a.mov(ax, word_ptr(ebx + eax * 2))?;
            a.mov(word_ptr(edi), ax)?;
            a.inc(esi)?;
            a.add(edi, 2)
        },
    )
}

/// LUT run to a bound: xor-zeroing, byte load, lookup, store, cmp esi,edx / jb.
pub fn lut_bounded(iters: u32) -> Shape {
    inner_loop(
        "lut_bounded",
        "bounded table translate loop",
        iters,
        0x10000,
        true,
        |a| {
            a.xor(eax, eax)?;
            a.mov(al, byte_ptr(esi))?;
            a.mov(al, byte_ptr(ebx + eax))?;
            a.mov(byte_ptr(edi), al)?;
            a.inc(esi)?;
            a.inc(edi)
        },
    )
}

/// Byte copy (the COPY_RUN shape).
pub fn copy(iters: u32) -> Shape {
    inner_loop("copy", "byte copy loop", iters, 0x10000, false, |a| {
        a.mov(al, byte_ptr(esi))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)
    })
}

/// Byte fill (the FILL_RUN shape).
pub fn fill(iters: u32) -> Shape {
    inner_loop("fill", "byte fill loop", iters, 0x10000, false, |a| {
        a.mov(byte_ptr(edi), al)?;
        a.inc(edi)
    })
}

/// strlen over a 64 KiB string (the SCAN_RUN shape).
pub fn scan(iters: u32) -> Shape {
    let len = 0x10000u32;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, iters / len)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA + 0x10_0000)?;
        a.set_label(&mut top)?;
        a.mov(al, byte_ptr(esi))?;
        a.inc(esi)?;
        a.test(al, al)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    let mut s = vec![0x41u8; len as usize];
    s[len as usize - 1] = 0;
    let mut init = test_data();
    init.push((DATA + 0x10_0000, s));
    Shape {
        name: "scan",
        what: "strlen loop",
        code,
        iters: (iters / len * len) as u64,
        init,
    }
}

/// MMX qword fill (seed §23, the UE1 SoftDrv clear): movq [edi],mm0 / add edi,8.
pub fn mmx_fill(iters: u32) -> Shape {
    let len = 0x2000u32;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.movq(mm0, qword_ptr(DATA))?;
        a.mov(ebp, iters / len)?;
        a.set_label(&mut outer)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        a.movq(qword_ptr(edi), mm0)?;
        a.add(edi, 8)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        a.emms()?;
        finish(a)
    });
    Shape {
        name: "mmx_fill",
        what: "MMX qword fill loop",
        code,
        iters: (iters / len * len) as u64,
        init: test_data(),
    }
}

/// A register-only counted loop no tier can take: the control arm of every
/// `--toggle` A/B. The `reg_alu` body plus a call to a one-instruction leaf, because
/// `block_exec` takes any loop whose blocks end in direct branches (a region cannot
/// follow call/ret), while no loop-idiom fold takes a register-only body.
pub fn null(iters: u32) -> Shape {
    // Built until the labels' addresses settle: the code loads them as immediates.
    type Ips = (u32, u32, u32);
    let build = |(join_ip, top_ip, done_ip): Ips| -> Result<(Vec<u8>, Ips), iced_x86::IcedError> {
        let mut a = CodeAssembler::new(32)?;
        let mut top = a.create_label();
        let mut join = a.create_label();
        let mut done = a.create_label();
        a.mov(ecx, iters)?;
        a.xor(eax, eax)?;
        a.mov(ebx, 0x1234_5678u32)?;
        a.mov(edx, 7u32)?;
        a.mov(ebp, join_ip)?;
        a.set_label(&mut top)?;
        a.add(eax, ebx)?;
        a.xor(edx, eax)?;
        a.sub(ebx, edx)?;
        a.and(edx, 0xffffu32)?;
        a.or(esi, edx)?;
        a.cmp(eax, ebx)?;
        a.adc(esi, 0)?;
        // Both blocks end in a register-indirect jump, which no tier lowers (uop
        // inlines leaf calls, so the call this control used to make no longer
        // kept it out; `jit` compiled a join that ended in `jnz`).
        a.jmp(ebp)?;
        a.set_label(&mut join)?;
        a.dec(ecx)?;
        // EDI = ECX != 0 ? top : done, without a branch.
        a.mov(edi, ecx)?;
        a.neg(edi)?;
        a.sbb(edi, edi)?;
        a.and(edi, top_ip.wrapping_sub(done_ip) as i32)?;
        a.add(edi, done_ip as i32)?;
        a.jmp(edi)?;
        a.set_label(&mut done)?;
        finish(&mut a)?;
        let r = a.assemble_options(
            harness::CODE as u64,
            BlockEncoderOptions::RETURN_NEW_INSTRUCTION_OFFSETS,
        )?;
        let ip = |l: &CodeLabel| r.label_ip(l).map(|x| x as u32);
        Ok((
            r.inner.code_buffer.clone(),
            (ip(&join)?, ip(&top)?, ip(&done)?),
        ))
    };
    // Again until the addresses the code loads are those it has (the AND's
    // immediate may shrink to 8 bits once it is known).
    let mut ips = (0, 0, 0);
    let code = (0..4)
        .find_map(|_| {
            let (code, now) = build(ips).expect("assemble null");
            std::mem::replace(&mut ips, now).eq(&now).then_some(code)
        })
        .expect("null: the layout settles");
    Shape {
        name: "null",
        what: "register loop of two blocks ending in `jmp r32`, which no tier takes (A/B control)",
        code,
        iters: iters as u64,
        init: vec![],
    }
}

/// An outer loop of `iters / len` rounds around `body`, which must run `len` inner
/// iterations (ECX = len, ESI = DATA, EDI = DATA + 1 MiB on entry) and fall out at
/// its end; EBX/EDX carry results across rounds.
fn region_shape(
    name: &'static str,
    what: &'static str,
    iters: u32,
    len: u32,
    body: impl Fn(&mut Asm) -> R,
) -> Shape {
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        a.mov(ebp, iters / len)?;
        a.mov(ebx, 0x9e37_79b9u32)?;
        a.mov(edx, 0x55aa_55aau32)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        body(a)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    Shape {
        name,
        what,
        code,
        iters: (iters / len * len) as u64,
        init: test_data(),
    }
}

/// Seed shape A: one self-loop block of full-width register dataflow.
pub fn tree_span(iters: u32) -> Shape {
    region_shape(
        "tree_span",
        "self-loop of register dataflow",
        iters,
        0x4000,
        |a| {
            let mut top = a.create_label();
            a.mov(eax, 1u32)?;
            a.set_label(&mut top)?;
            a.mov(esi, eax)?;
            a.add(esi, ebx)?;
            a.xor(edx, esi)?;
            a.sub(eax, edx)?;
            a.lea(edi, eax + ebx * 2 + 5)?;
            a.and(edi, 0xffffu32)?;
            a.or(ebx, edi)?;
            a.add(eax, edi)?;
            a.dec(ecx)?;
            a.jnz(top)
        },
    )
}

/// Seed shape B: a reduction over two streams (loads folded into the ALU ops).
pub fn tree_dot(iters: u32) -> Shape {
    region_shape(
        "tree_dot",
        "two-stream reduction loop",
        iters,
        0x2000,
        |a| {
            let mut top = a.create_label();
            a.mov(edi, DATA + 0x8000)?;
            a.set_label(&mut top)?;
            a.mov(eax, dword_ptr(esi))?;
            a.add(eax, dword_ptr(edi))?;
            a.add(ebx, eax)?;
            a.xor(edx, eax)?;
            a.add(esi, 4)?;
            a.add(edi, 4)?;
            a.dec(ecx)?;
            a.jnz(top)
        },
    )
}

/// Seed shape C: an in-place transform chain (load, two ALU ops, store back).
pub fn tree_chain(iters: u32) -> Shape {
    region_shape(
        "tree_chain",
        "in-place transform loop",
        iters,
        0x4000,
        |a| {
            let mut top = a.create_label();
            a.set_label(&mut top)?;
            a.mov(eax, dword_ptr(edi))?;
            a.xor(eax, edx)?;
            a.add(eax, ebx)?;
            a.mov(dword_ptr(edi), eax)?;
            a.add(edi, 4)?;
            a.dec(ecx)?;
            a.jnz(top)
        },
    )
}

/// Region (a): `while (esi < edx) { ebx += *esi; esi += 4; }` (guard block, body
/// block).
pub fn region_if2(iters: u32) -> Shape {
    region_shape(
        "region_if2",
        "guarded scan (2 blocks)",
        iters,
        0x4000,
        |a| {
            let mut head = a.create_label();
            let mut done = a.create_label();
            a.lea(edx, esi + 0x4000 * 4)?;
            a.set_label(&mut head)?;
            a.cmp(esi, edx)?;
            a.jae(done)?;
            a.add(ebx, dword_ptr(esi))?;
            a.add(esi, 4)?;
            a.jmp(head)?;
            a.set_label(&mut done)?;
            a.mov(edx, ebx)
        },
    )
}

/// Region (b): head, two data-dependent arms, tail.
pub fn region_diamond4(iters: u32) -> Shape {
    region_shape(
        "region_diamond4",
        "data-dependent diamond",
        iters,
        0x4000,
        |a| {
            let mut head = a.create_label();
            let mut other = a.create_label();
            let mut tail = a.create_label();
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(esi))?;
            a.test(al, 1)?;
            a.jz(other)?;
            a.add(ebx, eax)?;
            a.jmp(tail)?;
            a.set_label(&mut other)?;
            a.sub(ebx, eax)?;
            a.xor(edx, eax)?;
            a.set_label(&mut tail)?;
            a.add(esi, 4)?;
            a.dec(ecx)?;
            a.jnz(head)
        },
    )
}

/// Region (c): a two-rung compare chain selecting one of three arms per byte.
pub fn region_state6(iters: u32) -> Shape {
    region_shape(
        "region_state6",
        "two-rung compare chain",
        iters,
        0x8000,
        |a| {
            let mut head = a.create_label();
            let mut arm_a = a.create_label();
            let mut arm_b = a.create_label();
            let mut tail = a.create_label();
            a.set_label(&mut head)?;
            a.movzx(eax, byte_ptr(esi))?;
            a.cmp(al, 0x55)?;
            a.jb(arm_a)?;
            a.cmp(al, 0xaa)?;
            a.jb(arm_b)?;
            a.xor(ebx, eax)?;
            a.jmp(tail)?;
            a.set_label(&mut arm_a)?;
            a.add(ebx, eax)?;
            a.jmp(tail)?;
            a.set_label(&mut arm_b)?;
            a.sub(edx, eax)?;
            a.set_label(&mut tail)?;
            a.inc(esi)?;
            a.dec(ecx)?;
            a.jnz(head)
        },
    )
}

/// Region (d): the RLE token ladder in miniature: four cmp/je rungs, five case
/// bodies, one shared tail (ten blocks).
pub fn region_ladder5(iters: u32) -> Shape {
    region_shape(
        "region_ladder5",
        "4-rung token ladder",
        iters,
        0x8000,
        |a| {
            let mut head = a.create_label();
            let mut tail = a.create_label();
            let mut cases: Vec<_> = (0..4).map(|_| a.create_label()).collect();
            a.set_label(&mut head)?;
            a.movzx(eax, byte_ptr(esi))?;
            a.and(eax, 7)?;
            for (k, c) in cases.iter().enumerate() {
                a.cmp(eax, k as u32)?;
                a.je(*c)?;
            }
            a.add(edx, eax)?;
            a.jmp(tail)?;
            a.set_label(&mut cases[0])?;
            a.add(ebx, 1)?;
            a.jmp(tail)?;
            a.set_label(&mut cases[1])?;
            a.sub(ebx, eax)?;
            a.jmp(tail)?;
            a.set_label(&mut cases[2])?;
            a.xor(ebx, edx)?;
            a.jmp(tail)?;
            a.set_label(&mut cases[3])?;
            a.lea(ebx, ebx + eax * 2)?;
            a.set_label(&mut tail)?;
            a.inc(esi)?;
            a.dec(ecx)?;
            a.jnz(head)
        },
    )
}

/// Addresses of the 512 mix blocks: each starts right after a `jmp` back to the
/// dispatcher (the first right after the dispatcher's `jmp [table]`).
fn block_starts(code: &[u8]) -> Vec<u32> {
    let mut d = iced_x86::Decoder::with_ip(32, code, harness::CODE as u64, 0);
    let mut v = Vec::new();
    let mut after_jmp = false;
    for ins in &mut d {
        if after_jmp && v.len() < 512 {
            v.push(ins.ip32());
        }
        after_jmp = ins.mnemonic() == iced_x86::Mnemonic::Jmp;
    }
    v
}

fn test_data() -> Vec<(u32, Vec<u8>)> {
    let mut x = 0x2545_f491u32;
    let mut buf = vec![0u8; 0x10000];
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    let table: Vec<u8> = (0..=255u8).map(|b| b.rotate_left(3) ^ 0x5a).collect();
    vec![(DATA, buf), (DATA + 0x1f_0000, table)]
}

/// The standard shapes at a size that runs ~0.1-0.5 s each.
pub fn standard(scale: u32) -> Vec<Shape> {
    vec![
        reg_alu(20_000_000 * scale),
        mem_copy(0x100_0000 * scale),
        lut(0x100_0000 * scale),
        call_ret(28 + scale.ilog2()),
        x87(4096 * 1024 * scale),
        x87_pipeline(4096 * 512 * scale),
        x87_island(4096 * 512 * scale),
        block_mix(4_000_000 * scale),
        lut16(0x80_0000 * scale),
        lut_bounded(0x100_0000 * scale),
        copy(0x100_0000 * scale),
        fill(0x100_0000 * scale),
        scan(0x100_0000 * scale),
        mmx_fill(0x80_0000 * scale),
        lut_span(0x40_0000 * scale),
        case_chain(0x20_0000 * scale),
        null(10_000_000 * scale),
        tree_span(0x100_0000 * scale),
        tree_dot(0x100_0000 * scale),
        tree_chain(0x100_0000 * scale),
        region_if2(0x100_0000 * scale),
        region_diamond4(0x100_0000 * scale),
        region_state6(0x100_0000 * scale),
        region_ladder5(0x100_0000 * scale),
        uop_lut(0x100_0000 * scale),
        uop_blk_mix512(0x80_0000 * scale),
        uop_h3shadow(0x100_0000 * scale),
    ]
}

/// An outer loop running a 64 KiB inner loop `iters / 64 Ki` times; `body` is the
/// inner body before its `dec ecx; jnz`, with ESI over the random bytes at DATA,
/// EDI over DATA + 1 MiB and EBX at the byte table.
fn uop_counted(iters: u32, body: impl Fn(&mut Asm) -> R) -> (Vec<u8>, u64) {
    let len = 0x10000u32;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, (iters / len).max(1))?;
        a.mov(ebx, DATA + 0x1f_0000)?;
        a.xor(eax, eax)?;
        a.xor(edx, edx)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.set_label(&mut top)?;
        body(a)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    (code, ((iters / len).max(1) * len) as u64)
}

/// The `lut` loop plus a running checksum of the translated bytes: no fold idiom
/// matches it, so it measures the micro-op tier (`--toggle uop`) on the same
/// memory traffic as `lut`.
pub fn uop_lut(iters: u32) -> Shape {
    let (code, iters) = uop_counted(iters, |a| {
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.add(edx, eax)?;
        a.inc(esi)?;
        a.inc(edi)
    });
    Shape {
        name: "uop_lut",
        what: "byte translate with a checksum (uop tier, not a fold idiom)",
        code,
        iters,
        init: test_data(),
    }
}

/// A branchy loop whose path is chosen per iteration by random source bits:
/// three forward diamonds give eight paths in a non-periodic order, so branch
/// prediction cannot learn a period (the role blk_mix512 plays in the seed; the
/// tier's regions hold at most 16 blocks, so this is not 512 blocks).
pub fn uop_blk_mix512(iters: u32) -> Shape {
    let (code, iters) = uop_counted(iters, |a| {
        let mut l1 = a.create_label();
        let mut j1 = a.create_label();
        let mut l2 = a.create_label();
        let mut j2 = a.create_label();
        let mut l3 = a.create_label();
        let mut j3 = a.create_label();
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
        a.and(edi, DATA + 0x10_ffff)?;
        a.inc(esi)
    });
    Shape {
        name: "uop_blk_mix512",
        what: "data-driven branch mix: 8 paths per iteration, non-periodic (uop tier)",
        code,
        iters,
        init: test_data(),
    }
}

/// A Heroes III-style shadow blit: where the sprite byte is not the key (0), the
/// destination pixel is darkened through a 256-byte shade table.
pub fn uop_h3shadow(iters: u32) -> Shape {
    let (code, iters) = uop_counted(iters, |a| {
        let mut skip = a.create_label();
        a.mov(al, byte_ptr(esi))?;
        a.test(al, 3)?;
        a.jz(skip)?;
        a.movzx(eax, byte_ptr(edi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.set_label(&mut skip)?;
        a.inc(esi)?;
        a.inc(edi)
    });
    Shape {
        name: "uop_h3shadow",
        what: "keyed shadow blit through a shade table (uop tier)",
        code,
        iters,
        init: test_data(),
    }
}

/// Fixed unrolled LUT spans (seed §17): four straight-line blocks of sixteen
/// `xor eax,eax / mov al,[esi+k] / mov al,[ebx+eax] / mov [edi+k],al` units each (a
/// block ends at 64 instructions), then the row update in a block of its own, so no
/// block is a self-loop. Iterations = spans run (four per row).
pub fn lut_span(iters: u32) -> Shape {
    let rows = 0x10000u32 / 64;
    let passes = (iters / 4 / rows).max(1);
    let table = DATA + 0x1f_0000;
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        a.mov(ebp, passes)?;
        a.mov(ebx, table)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA)?;
        a.mov(edi, DATA + 0x10_0000)?;
        a.mov(ecx, rows)?;
        a.set_label(&mut top)?;
        for k in 0..64i32 {
            a.xor(eax, eax)?;
            a.mov(al, byte_ptr(esi + k))?;
            a.mov(al, byte_ptr(ebx + eax))?;
            a.mov(byte_ptr(edi + k), al)?;
        }
        a.add(esi, 64)?;
        a.add(edi, 64)?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    Shape {
        name: "lut_span",
        what: "unrolled LUT spans (64 units per row)",
        code,
        iters: (passes * rows * 4) as u64,
        init: test_data(),
    }
}

/// A 64-rung `cmp al,k / je` ladder (page-compilation.md §13) walked once per input
/// byte; the bytes are 16..79, so most walks are long and a quarter fall through to
/// the default. Every case lands on the loop tail, which loads the next byte.
/// Iterations = ladder walks.
pub fn case_chain(iters: u32) -> Shape {
    let len = 0x10000u32;
    let passes = (iters / len).max(1);
    let code = harness::assemble(|a| {
        let mut outer = a.create_label();
        let mut top = a.create_label();
        let mut tail = a.create_label();
        a.mov(ebp, passes)?;
        a.set_label(&mut outer)?;
        a.mov(esi, DATA + 0x10_0000)?;
        a.mov(ecx, len)?;
        a.movzx(eax, byte_ptr(esi + ecx - 1))?;
        a.set_label(&mut top)?;
        for k in 0..64u32 {
            a.cmp(al, k)?;
            a.je(tail)?;
        }
        a.set_label(&mut tail)?;
        a.movzx(eax, byte_ptr(esi + ecx - 2))?;
        a.dec(ecx)?;
        a.jnz(top)?;
        a.dec(ebp)?;
        a.jnz(outer)?;
        finish(a)
    });
    let mut init = test_data();
    let mut x = 0x1234_5678u32;
    let bytes: Vec<u8> = (0..len + 1)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            16 + (x % 64) as u8
        })
        .collect();
    init.push((DATA + 0x10_0000 - 1, bytes));
    Shape {
        name: "case_chain",
        what: "64-rung cmp al,imm / je ladder",
        code,
        iters: (passes * len) as u64,
        init,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(secs: &[f64]) -> ShapeResult {
        ShapeResult {
            name: "t",
            iters: 1,
            samples: secs
                .iter()
                .map(|&secs| Sample {
                    secs,
                    counters: ExecCounters::default(),
                })
                .collect(),
        }
    }

    /// Per-round ratios by hand: 2/1, 9/3, 4/4 = 2, 3, 1, median 2 (the arms'
    /// medians give 4/3); and a host three times slower from the third round on
    /// (every round's ratio 2, median 2).
    #[test]
    fn paired_ratio_is_the_median_of_per_round_ratios() {
        let (off, on) = (result(&[2.0, 9.0, 4.0]), result(&[1.0, 3.0, 4.0]));
        assert_eq!(paired_ratio_median(&off, &on), 2.0);
        assert_eq!(
            off.ns_per_iter_median() / on.ns_per_iter_median(),
            4.0 / 3.0
        );
        let off = result(&[2.0, 2.0, 6.0, 6.0, 6.0]);
        let on = result(&[1.0, 1.0, 3.0, 3.0, 3.0]);
        assert_eq!(paired_ratio_median(&off, &on), 2.0);
        assert!(paired_ratio_median(&result(&[]), &result(&[])).is_nan());
    }
}
