//! The x87 in 80 bits against the host CPU, in every precision and rounding mode.
//!
//! Each case is one x87 instruction with a random 80-bit state (ST(0) and ST(1)
//! drawn from every encoding class: values with 64-bit significands across the whole
//! 15-bit exponent range and at its edges, doubles, 80-bit denormals and
//! pseudo-denormals, zeros, infinities, NaNs with payloads, unnormals,
//! pseudo-infinities and pseudo-NaNs) and a memory operand in the data window. The
//! same case runs on the host (the `oracle32` helper, see `oracle/`) and on winterp's
//! interpreter, under each of the twelve control words PC {24, 53, 64} x RC
//! {nearest, down, up, chop} (a quarter of the cases with random exception masks,
//! so that unmasked overflow and underflow and the suppressed results are covered
//! too). Compared: the control word, the status word (TOP, the sticky exception
//! bits, ES, B and the condition codes the SDM defines for the instruction), the
//! tag word, all 80 bits of every non-empty register, the window's bytes and any
//! fault.
//!
//! FISTTP is SSE3, which winterp neither reports nor lowers: not in the sweep.
//!
//! Transcendentals (F2XM1 FYL2X FYL2XP1 FPTAN FPATAN FSIN FCOS FSINCOS) run the
//! same sweep. winterp gives the correctly rounded value of each function (after
//! the x87's documented 66-bit-pi reduction for the trigonometric ones); the CPU's
//! microcode is not correctly rounded: the SDM (vol. 1, 8.3.10 "Transcendental
//! Instruction Accuracy") bounds its error by 1 ulp rounding to nearest and 1.5
//! ulps in the other modes, and C1 tells how the CPU rounded its own internal
//! result. So a transcendental case may differ from the host only as that bound
//! allows: the two results are adjacent 80-bit values (the host's being the other
//! neighbour of the true value), or the results are equal and C1 alone differs
//! (the host's internal value lay on the other side of the returned one). Any
//! other difference (flags, tags, a result two or more ulps away, a fault) fails.
//! The test prints the residue per form and kind. An offline classification of
//! the residue against an independent reference (`scripts/x87-residue.py`, with
//! `X87_DUMP`) found every such case to be the host's: winterp's result correctly
//! rounded, the host's error at most 0.61 ulp to nearest and 1.12 ulps directed.
//! Every other form must give 0 mismatches.
//!
//! Environment: `X87_CASES=n` cases per form and control word (default 150),
//! `X87_SEED=n`, `X87_FILTER=a,b` (forms whose name contains one of them),
//! `X87_SHOW=n` detailed mismatches to print (default 12), `X87_SHOW_TRANS=1` the
//! transcendentals' too, `X87_DUMP=path` every transcendental case to a file (one
//! line each: form, control word, then status word, tag word, ST(0) and ST(1)
//! before, on the host and on winterp, and whether they matched).

mod oracle;

use std::collections::BTreeMap;

use oracle::{Case, FSAVE_SIZE, HostResult, Oracle};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use winterp_core::cpu::segs::Gdt;
use winterp_core::tiers::{ALL as ALL_TIERS, Tier, Tiers};
use winterp_core::{Cpu, ExceptionKind, Executor, GuestMemory, Prot, StopReason};

const CODE: u32 = 0x2000_0000;
const WIN: u32 = 0x3000_0000;
const STOP: u32 = CODE + 0xf00;
const WIN_SIZE: u32 = 0x1000;
/// Offset of the memory operand in the window (EBX points there).
const OPND: u32 = 0x800;
const BATCH: usize = 2048;

const HOST_CS: u16 = 0x23;
const HOST_DS: u16 = 0x2b;
const HOST_GS: u16 = 0x63;

const C0: u16 = 1 << 8;
const C1: u16 = 1 << 9;
const C2: u16 = 1 << 10;
const C3: u16 = 1 << 14;

/// The transcendental forms: may differ from the host within the SDM's accuracy
/// bound (see the module documentation).
const TRANSCENDENTAL: &[&str] = &[
    "f2xm1", "fyl2x", "fyl2xp1", "fptan", "fpatan", "fsin", "fcos", "fsincos",
];

/// What the memory operand holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mem {
    None,
    F32,
    F64,
    F80,
    I16,
    I32,
    I64,
    Bcd,
    /// The instruction stores: the window holds random bytes.
    Out,
}

struct Form {
    name: &'static str,
    code: &'static [u8],
    mem: Mem,
    /// Registers the instruction reads (ST(0), ST(1)): how many to fill.
    regs: u8,
    /// Condition codes the SDM leaves undefined.
    undefined: u16,
}

const ARITH_CC: u16 = C0 | C2 | C3;

fn forms() -> Vec<Form> {
    let f = |name, code, mem, regs, undefined| Form {
        name,
        code,
        mem,
        regs,
        undefined,
    };
    use Mem::*;
    vec![
        // Two-operand arithmetic, register forms.
        f("fadd st0,st1", &[0xd8, 0xc1], None, 2, ARITH_CC),
        f("fsub st0,st1", &[0xd8, 0xe1], None, 2, ARITH_CC),
        f("fsubr st0,st1", &[0xd8, 0xe9], None, 2, ARITH_CC),
        f("fmul st0,st1", &[0xd8, 0xc9], None, 2, ARITH_CC),
        f("fdiv st0,st1", &[0xd8, 0xf1], None, 2, ARITH_CC),
        f("fdivr st0,st1", &[0xd8, 0xf9], None, 2, ARITH_CC),
        f("faddp st1,st0", &[0xde, 0xc1], None, 2, ARITH_CC),
        f("fsubp st1,st0", &[0xde, 0xe9], None, 2, ARITH_CC),
        f("fmulp st1,st0", &[0xde, 0xc9], None, 2, ARITH_CC),
        f("fdivp st1,st0", &[0xde, 0xf9], None, 2, ARITH_CC),
        f("fdivrp st1,st0", &[0xde, 0xf1], None, 2, ARITH_CC),
        // Memory forms.
        f("fadd m32", &[0xd8, 0x03], F32, 1, ARITH_CC),
        f("fmul m32", &[0xd8, 0x0b], F32, 1, ARITH_CC),
        f("fsub m32", &[0xd8, 0x23], F32, 1, ARITH_CC),
        f("fdivr m32", &[0xd8, 0x3b], F32, 1, ARITH_CC),
        f("fadd m64", &[0xdc, 0x03], F64, 1, ARITH_CC),
        f("fmul m64", &[0xdc, 0x0b], F64, 1, ARITH_CC),
        f("fsubr m64", &[0xdc, 0x2b], F64, 1, ARITH_CC),
        f("fdiv m64", &[0xdc, 0x33], F64, 1, ARITH_CC),
        f("fiadd m16", &[0xde, 0x03], I16, 1, ARITH_CC),
        f("fimul m16", &[0xde, 0x0b], I16, 1, ARITH_CC),
        f("fisub m32", &[0xda, 0x23], I32, 1, ARITH_CC),
        f("fidiv m32", &[0xda, 0x33], I32, 1, ARITH_CC),
        f("fidivr m16", &[0xde, 0x3b], I16, 1, ARITH_CC),
        // One-operand arithmetic.
        f("fsqrt", &[0xd9, 0xfa], None, 1, ARITH_CC),
        f("frndint", &[0xd9, 0xfc], None, 1, ARITH_CC),
        f("fscale", &[0xd9, 0xfd], None, 2, ARITH_CC),
        f("fxtract", &[0xd9, 0xf4], None, 1, ARITH_CC),
        f("fprem", &[0xd9, 0xf8], None, 2, 0),
        f("fprem1", &[0xd9, 0xf5], None, 2, 0),
        f("fchs", &[0xd9, 0xe0], None, 1, ARITH_CC),
        f("fabs", &[0xd9, 0xe1], None, 1, ARITH_CC),
        // Loads and stores.
        f("fld m32", &[0xd9, 0x03], F32, 0, ARITH_CC),
        f("fld m64", &[0xdd, 0x03], F64, 0, ARITH_CC),
        f("fld m80", &[0xdb, 0x2b], F80, 0, ARITH_CC),
        f("fild m16", &[0xdf, 0x03], I16, 0, ARITH_CC),
        f("fild m32", &[0xdb, 0x03], I32, 0, ARITH_CC),
        f("fild m64", &[0xdf, 0x2b], I64, 0, ARITH_CC),
        f("fbld", &[0xdf, 0x23], Bcd, 0, ARITH_CC),
        f("fst m32", &[0xd9, 0x13], Out, 1, ARITH_CC),
        f("fstp m32", &[0xd9, 0x1b], Out, 1, ARITH_CC),
        f("fst m64", &[0xdd, 0x13], Out, 1, ARITH_CC),
        f("fstp m64", &[0xdd, 0x1b], Out, 1, ARITH_CC),
        f("fstp m80", &[0xdb, 0x3b], Out, 1, ARITH_CC),
        f("fist m16", &[0xdf, 0x13], Out, 1, ARITH_CC),
        f("fist m32", &[0xdb, 0x13], Out, 1, ARITH_CC),
        f("fistp m64", &[0xdf, 0x3b], Out, 1, ARITH_CC),
        f("fbstp", &[0xdf, 0x33], Out, 1, ARITH_CC),
        f("fld st1", &[0xd9, 0xc1], None, 2, ARITH_CC),
        f("fstp st1", &[0xdd, 0xd9], None, 2, ARITH_CC),
        f("fld1", &[0xd9, 0xe8], None, 0, ARITH_CC),
        f("fldl2t", &[0xd9, 0xe9], None, 0, ARITH_CC),
        f("fldl2e", &[0xd9, 0xea], None, 0, ARITH_CC),
        f("fldpi", &[0xd9, 0xeb], None, 0, ARITH_CC),
        f("fldlg2", &[0xd9, 0xec], None, 0, ARITH_CC),
        f("fldln2", &[0xd9, 0xed], None, 0, ARITH_CC),
        f("fldz", &[0xd9, 0xee], None, 0, ARITH_CC),
        // Compares and classification.
        f("fcom st1", &[0xd8, 0xd1], None, 2, 0),
        f("fucomp st1", &[0xdd, 0xe9], None, 2, 0),
        f("fcom m64", &[0xdc, 0x13], F64, 1, 0),
        f("ficom m32", &[0xda, 0x13], I32, 1, 0),
        f("ftst", &[0xd9, 0xe4], None, 1, 0),
        f("fxam", &[0xd9, 0xe5], None, 1, 0),
        f("fcomi st1", &[0xdb, 0xf1], None, 2, ARITH_CC),
        f("fucomip st1", &[0xdf, 0xe9], None, 2, ARITH_CC),
        // Transcendentals.
        f("f2xm1", &[0xd9, 0xf0], None, 1, ARITH_CC),
        f("fyl2x", &[0xd9, 0xf1], None, 2, ARITH_CC),
        f("fyl2xp1", &[0xd9, 0xf9], None, 2, ARITH_CC),
        f("fptan", &[0xd9, 0xf2], None, 1, C0 | C3),
        f("fpatan", &[0xd9, 0xf3], None, 2, ARITH_CC),
        f("fsin", &[0xd9, 0xfe], None, 1, C0 | C3),
        f("fcos", &[0xd9, 0xff], None, 1, C0 | C3),
        f("fsincos", &[0xd9, 0xfb], None, 1, C0 | C3),
    ]
}

// ---- values -------------------------------------------------------------------------

/// A random 80-bit value from every encoding class, weighted toward finite values
/// that need all 64 significand bits.
fn value(rng: &mut SmallRng, trans: bool) -> (u64, u16) {
    let sign = (rng.random::<bool>() as u16) << 15;
    let m = rng.random::<u64>() | 1 << 63;
    let near = |rng: &mut SmallRng, c: i32, w: i32| (c + rng.random_range(-w..=w)) as u16;
    let (m, e) = match rng.random_range(0..100) {
        // Significands of every width near 1 (|e| small): the usual operands.
        0..=29 => (m, near(rng, 16383, 40)),
        // Doubles and floats.
        30..=39 => (m & !0x7ff, near(rng, 16383, 60)),
        40..=43 => (m & !0xff_ffff_ffff, near(rng, 16383, 30)),
        // Small integers.
        44..=48 => {
            let n = rng.random_range(1u64..100_000);
            let lz = n.leading_zeros();
            (n << lz, (16383 + 63 - lz) as u16)
        }
        // The whole exponent range.
        49..=58 => (m, rng.random_range(1..0x7fff)),
        // Near the overflow and underflow edges.
        59..=65 => (m, near(rng, 0x7ffe - 40, 40)),
        66..=72 => (m, near(rng, 41, 40)),
        // Near the double's and the float's limits.
        73..=76 => (m, near(rng, 16383 + 1023, 3)),
        77..=80 => (m, near(rng, 16383 - 1022, 60)),
        81..=82 => (m, near(rng, 16383 - 126, 30)),
        // Denormals and pseudo-denormals.
        83..=85 => (m >> rng.random_range(1..64), 0),
        86 => (m, 0),
        87 => (0, 0),
        88 => (1 << 63, 0x7fff),
        // QNaN, SNaN (with payloads) and the indefinite.
        89 => (m | 1 << 62, 0x7fff),
        90 => ((m & !(1 << 62)) | 1, 0x7fff),
        91 => (0xc000_0000_0000_0000, 0x7fff),
        // Unnormals, pseudo-infinity, pseudo-NaN.
        92 => (m >> rng.random_range(1..64), rng.random_range(1..0x7fff)),
        93 => (0, 0x7fff),
        94 => (m >> 1, 0x7fff),
        // Exactly 1 and powers of two.
        95..=96 => (1 << 63, near(rng, 16383, 70)),
        _ => (m, near(rng, 16383, 3)),
    };
    if trans && rng.random_range(0..4) != 0 {
        // Transcendentals: mostly operands in the documented domains.
        return (m | 1 << 63, sign | near(rng, 16383 - 3, 3));
    }
    (m, sign | e)
}

fn f32_bits(rng: &mut SmallRng) -> u32 {
    let s = (rng.random::<bool>() as u32) << 31;
    let f = rng.random::<u32>() & 0x7f_ffff;
    s | match rng.random_range(0..12) {
        0 => f,
        1 => 0,
        2 => 0x7f80_0000,
        3 => 0x7f80_0000 | f | 1,
        4 => 0x7f80_0000 | (f & 0x3f_ffff) | 1,
        5 => (rng.random_range(1..6) << 23) | f,
        6 => (rng.random_range(0xf8..0xff) << 23) | f,
        _ => (rng.random_range(100..155) << 23) | f,
    }
}

fn f64_bits(rng: &mut SmallRng) -> u64 {
    let s = (rng.random::<bool>() as u64) << 63;
    let f = rng.random::<u64>() & ((1 << 52) - 1);
    s | match rng.random_range(0..12) {
        0 => f,
        1 => 0,
        2 => 0x7ff0_0000_0000_0000,
        3 => 0x7ff0_0000_0000_0000 | f | 1,
        4 => 0x7ff0_0000_0000_0000 | (f & ((1 << 51) - 1)) | 1,
        5 => (rng.random_range(1..6) << 52) | f,
        6 => (rng.random_range(0x7f8..0x7ff) << 52) | f,
        _ => (rng.random_range(1000..1050) << 52) | f,
    }
}

fn bcd(rng: &mut SmallRng) -> [u8; 10] {
    let mut b = [0u8; 10];
    let digits = rng.random_range(1..=18);
    for (k, byte) in b.iter_mut().enumerate().take(9) {
        if 2 * k < digits {
            *byte = rng.random_range(0..10) | rng.random_range(0..10) << 4;
        }
    }
    b[9] = if rng.random::<bool>() { 0x80 } else { 0 };
    b
}

/// Control words of the sweep: PC 24/53/64 by RC nearest/down/up/chop.
fn control_words() -> Vec<(String, u16)> {
    let mut v = Vec::new();
    for (pn, pc) in [("pc24", 0u16), ("pc53", 2), ("pc64", 3)] {
        for (rn, rc) in [("near", 0u16), ("down", 1), ("up", 2), ("chop", 3)] {
            v.push((format!("{pn}/{rn}"), 0x1040 | pc << 8 | rc << 10 | 0x3f));
        }
    }
    v
}

// ---- state --------------------------------------------------------------------------

fn tag_of(m: u64, se: u16) -> u16 {
    let e = se & 0x7fff;
    if e == 0 && m == 0 {
        1
    } else if e == 0x7fff || e == 0 || m >> 63 == 0 {
        2
    } else {
        0
    }
}

/// The FSAVE image of control word `cw`, TOP 0 and ST(i) = `regs[i]` (None: empty).
fn fsave(cw: u16, sw: u16, regs: &[Option<(u64, u16)>; 8]) -> [u8; FSAVE_SIZE] {
    let mut b = [0u8; FSAVE_SIZE];
    let mut tw = 0u16;
    for (p, r) in regs.iter().enumerate() {
        let t = match r {
            Some((m, se)) => tag_of(*m, *se),
            None => 3,
        };
        tw |= t << (2 * p);
        let (m, se) = r.unwrap_or((0, 0));
        let o = 28 + 10 * p;
        b[o..o + 8].copy_from_slice(&m.to_le_bytes());
        b[o + 8..o + 10].copy_from_slice(&se.to_le_bytes());
    }
    b[0..4].copy_from_slice(&(0xffff_0000 | cw as u32).to_le_bytes());
    b[4..8].copy_from_slice(&(0xffff_0000 | sw as u32).to_le_bytes());
    b[8..12].copy_from_slice(&(0xffff_0000 | tw as u32).to_le_bytes());
    b
}

fn gen_case(rng: &mut SmallRng, form: &Form, cw: u16) -> Case {
    let trans = TRANSCENDENTAL.contains(&form.name);
    let mut regs = [None; 8];
    for r in regs.iter_mut().take(form.regs as usize) {
        *r = Some(value(rng, trans));
    }
    // Now and then a register the instruction reads is empty (stack underflow) or
    // ST(7) is full (overflow for the pushing forms).
    match rng.random_range(0..40) {
        0 if form.regs > 0 => regs[rng.random_range(0..form.regs as usize)] = None,
        1 => regs[7] = Some(value(rng, false)),
        _ => {}
    }
    // A quarter of the cases with random exception masks (and the sticky bits of
    // the unmasked ones clear, so nothing is pending).
    let cw = if rng.random_range(0..4) == 0 {
        (cw & !0x3f) | rng.random::<u16>() & 0x3f
    } else {
        cw
    };
    let sw = rng.random::<u16>() & (C0 | C1 | C2 | C3) | (rng.random::<u16>() & 0x3f & cw);
    let mut patch = vec![0u8; 16];
    rng.fill(&mut patch[..]);
    match form.mem {
        Mem::F32 => patch[..4].copy_from_slice(&f32_bits(rng).to_le_bytes()),
        Mem::F64 => patch[..8].copy_from_slice(&f64_bits(rng).to_le_bytes()),
        Mem::F80 => {
            let (m, se) = value(rng, false);
            patch[..8].copy_from_slice(&m.to_le_bytes());
            patch[8..10].copy_from_slice(&se.to_le_bytes());
        }
        Mem::I16 => {
            let v: i16 = if rng.random::<bool>() {
                rng.random_range(-100..100)
            } else {
                rng.random()
            };
            patch[..2].copy_from_slice(&v.to_le_bytes());
        }
        Mem::I32 => {
            let v: i32 = match rng.random_range(0..3) {
                0 => rng.random_range(-1000..1000),
                _ => rng.random(),
            };
            patch[..4].copy_from_slice(&v.to_le_bytes());
        }
        Mem::I64 => {
            let v: i64 = rng.random::<i64>() >> rng.random_range(0..63);
            patch[..8].copy_from_slice(&v.to_le_bytes());
        }
        Mem::Bcd => patch[..10].copy_from_slice(&bcd(rng)),
        Mem::None | Mem::Out => {}
    }
    let mut r = [0u32; 8];
    r[3] = WIN + OPND; // EBX
    r[4] = WIN + 0x400; // ESP
    Case {
        code: form.code.to_vec(),
        host_code: None,
        regs: r,
        eflags: 0x202,
        fsave: fsave(cw, sw, &regs),
        patches: vec![(OPND as u16, patch)],
    }
}

// ---- winterp ------------------------------------------------------------------------

struct Emu {
    mem: GuestMemory,
    cpu: Cpu,
    exec: Executor,
    pristine: Vec<u8>,
}

/// What a run left: the FSAVE image, the window bytes at the operand, EFLAGS and
/// whether (and how) it faulted.
#[derive(Debug, PartialEq, Eq)]
struct Out {
    fsave: [u8; FSAVE_SIZE],
    mem: Vec<u8>,
    eflags: u32,
    fault: Option<String>,
}

impl Emu {
    fn new(pristine: Vec<u8>) -> Emu {
        Emu::with_tiers(pristine, None)
    }

    /// An emulator whose executor runs with the tier gates `tiers` (None: the
    /// defaults).
    fn with_tiers(pristine: Vec<u8>, tiers: Option<Arc<Tiers>>) -> Emu {
        let mem = GuestMemory::new().expect("reserve guest memory");
        mem.commit(CODE, 0x1000, Prot::RWX).expect("code page");
        mem.commit(WIN, WIN_SIZE, Prot::RW).expect("window");
        let mut cpu = Cpu::new(mem.clone());
        cpu.set_gdt(Gdt {
            code: HOST_CS,
            data: HOST_DS,
            teb: 0,
            teb_base: 0,
        });
        cpu.seg_sel[4] = 0;
        cpu.seg_sel[5] = HOST_GS;
        cpu.null_segs = winterp_core::cpu::segs::null_mask(&cpu.seg_sel);
        let mut exec = Executor::new();
        if let Some(t) = tiers {
            exec.set_tiers(t);
        }
        Emu {
            mem,
            cpu,
            exec,
            pristine,
        }
    }

    fn run(&mut self, c: &Case) -> Out {
        let end = CODE + c.code.len() as u32;
        let mut code = c.code.clone();
        code.push(0xe9);
        code.extend_from_slice(&STOP.wrapping_sub(end + 5).to_le_bytes());
        code.resize(32, 0xcc);
        self.mem.write_bytes(CODE, &code).expect("code");
        self.mem.write_bytes(WIN, &self.pristine).expect("window");
        for (off, data) in &c.patches {
            self.mem
                .write_bytes(WIN + *off as u32, data)
                .expect("patch");
        }
        self.exec.set_stop_range(STOP, STOP + 1);
        let cpu = &mut self.cpu;
        cpu.regs[..8].copy_from_slice(&c.regs);
        cpu.set_eflags(c.eflags);
        cpu.eip = CODE;
        cpu.fpu.frstor_image(&c.fsave);
        let fault = match self.exec.run(cpu, 10_000) {
            StopReason::Thunk(a) if a == STOP => None,
            StopReason::Exception(e) => Some(match e.kind {
                ExceptionKind::FloatingPoint => "#MF".to_string(),
                k => format!("{k:?}"),
            }),
            r => Some(format!("{r:?}")),
        };
        let mut mem = vec![0u8; 16];
        self.mem
            .read_bytes(WIN + OPND, &mut mem)
            .expect("window readable");
        Out {
            fsave: self.cpu.fpu.fsave_image(),
            mem,
            eflags: self.cpu.eflags() & 0x8d5,
            fault,
        }
    }
}

// ---- tiers --------------------------------------------------------------------------

/// FXCH ST(1) twice: a no-op pair that puts the case's instruction inside a run of
/// x87 instructions, which `x87_fusion` fuses.
const FXCH2: [u8; 4] = [0xd9, 0xc9, 0xd9, 0xc9];
/// The loop counter: a dword in the window, away from the operand and the stack.
const CTR: u32 = 0x200;
/// Passes of a loop: past `uop`'s (32 entries) and `jit`'s (16) hotness.
const PASSES: u32 = 48;
/// Cases per form and control word also run as loops (each loop is decoded, and
/// by `jit` compiled, afresh).
const LOOPS_PER_CELL: usize = 2;

/// One arm of the tier pass: an emulator with some tiers on, compared with the
/// same code run with every tier off.
struct Arm {
    name: &'static str,
    on: Vec<Tier>,
    /// The shapes it runs: straight-line, loop.
    shapes: [bool; 2],
    emu: Emu,
    tiers: Arc<Tiers>,
    cases: [usize; 2],
    /// Cases in which one of the arm's tiers ran (fused, or ran a block or loop).
    taken: [usize; 2],
    bad: usize,
}

impl Arm {
    fn activity(&self) -> u64 {
        self.on
            .iter()
            .map(|&t| {
                let s = self.tiers.stats(t).snapshot();
                s.runs + s.matches
            })
            .sum()
    }
}

/// Every sweep case run again, as a straight-line x87 run (FXCH2 around it, so
/// `x87_fusion` fuses it) and, for the first [`LOOPS_PER_CELL`] of each form and
/// control word, as the body of a [`PASSES`]-pass loop (`block_exec`, `uop` and
/// `jit` take hot loops), with every tier off and with each tier alone and all of
/// them; every arm must leave what the tiers-off run leaves, bit for bit: the
/// FSAVE image, the operand's bytes, EFLAGS, the fault and EIP.
struct TierSweep {
    off: Emu,
    arms: Vec<Arm>,
    shown: usize,
}

impl TierSweep {
    fn new(pristine: &[u8]) -> TierSweep {
        let gates = |on: &[Tier]| {
            let g = Arc::new(Tiers::all(false));
            for &t in on {
                g.set(t, true).expect("tier gate");
            }
            g
        };
        let arms = [
            ("x87_fusion", vec![Tier::X87Fusion], [true, true]),
            ("block_exec", vec![Tier::BlockExec], [false, true]),
            ("uop", vec![Tier::Uop], [false, true]),
            ("jit", vec![Tier::Jit], [false, true]),
            (
                "every tier",
                ALL_TIERS.into_iter().filter(|t| t.available()).collect(),
                [true, true],
            ),
        ]
        .into_iter()
        .map(|(name, on, shapes)| {
            let tiers = gates(&on);
            Arm {
                name,
                emu: Emu::with_tiers(pristine.to_vec(), Some(tiers.clone())),
                on,
                shapes,
                tiers,
                cases: [0; 2],
                taken: [0; 2],
                bad: 0,
            }
        })
        .collect();
        TierSweep {
            off: Emu::with_tiers(pristine.to_vec(), Some(gates(&[]))),
            arms,
            shown: 0,
        }
    }

    /// The case's instruction between FXCH2 pairs (the first one on odd cases
    /// only), straight or as a loop's body.
    fn shape(c: &Case, k: usize, looped: bool) -> Case {
        let mut w = c.clone();
        w.code.clear();
        if looped || k % 2 == 1 {
            w.code.extend_from_slice(&FXCH2);
        }
        w.code.extend_from_slice(&c.code);
        w.code.extend_from_slice(&FXCH2);
        if looped {
            // sub dword [WIN + CTR], 1; jnz top
            w.code.extend_from_slice(&[0x83, 0x2d]);
            w.code.extend_from_slice(&(WIN + CTR).to_le_bytes());
            w.code.push(1);
            let after = CODE + w.code.len() as u32 + 6;
            w.code.extend_from_slice(&[0x0f, 0x85]);
            w.code
                .extend_from_slice(&CODE.wrapping_sub(after).to_le_bytes());
            w.patches.push((CTR as u16, PASSES.to_le_bytes().to_vec()));
        }
        w
    }

    fn check(&mut self, name: &str, c: &Case, k: usize, looped: bool, show: usize) {
        let shape = looped as usize;
        let w = TierSweep::shape(c, k, looped);
        // Every case is a new program at the same address: start from an empty
        // block cache and head table (`uop` keeps a declined head's verdict by
        // address); compare EIP and the instructions retired too.
        let run = |emu: &mut Emu| {
            emu.exec.flush();
            let i0 = emu.exec.counters.insns;
            let out = emu.run(&w);
            (out, emu.cpu.eip, emu.exec.counters.insns - i0)
        };
        let (off, off_eip, off_n) = run(&mut self.off);
        for arm in self.arms.iter_mut().filter(|a| a.shapes[shape]) {
            let before = arm.activity();
            let (on, eip, n) = run(&mut arm.emu);
            arm.cases[shape] += 1;
            if arm.activity() > before {
                arm.taken[shape] += 1;
            }
            if on != off || eip != off_eip || n != off_n {
                arm.bad += 1;
                if self.shown < show {
                    self.shown += 1;
                    println!(
                        "TIER {} changes {name} ({}): {}\n    off {off:?} eip {off_eip:#x} \
                         retired {off_n}\n    on  {on:?} eip {eip:#x} retired {n}",
                        arm.name,
                        if looped { "loop" } else { "straight" },
                        describe(c),
                    );
                }
            }
        }
    }

    /// Prints the per-tier counts; the number of mismatches.
    fn finish(&self) -> usize {
        for a in &self.arms {
            println!(
                "x87 tiers: {:<10} {:>6} straight-line cases ({} taken), {:>5} loops ({} taken), \
                 {} mismatches",
                a.name, a.cases[0], a.taken[0], a.cases[1], a.taken[1], a.bad
            );
        }
        let fusion = &self.arms[0];
        assert!(
            fusion.taken[0] > 0,
            "x87_fusion fused none of the straight-line x87 runs"
        );
        self.arms.iter().map(|a| a.bad).sum()
    }
}

/// The host's outcome; `pristine`: the window before the case's patches (the host
/// reports the bytes that differ from it).
fn host_out(h: &HostResult, pristine: &[u8]) -> Out {
    let mut mem = pristine[OPND as usize..OPND as usize + 16].to_vec();
    for &(off, v) in &h.mem {
        let o = off as usize;
        if (OPND as usize..OPND as usize + 16).contains(&o) {
            mem[o - OPND as usize] = v;
        }
    }
    Out {
        fsave: h.fsave,
        mem,
        eflags: h.eflags & 0x8d5,
        fault: h.fault.map(|f| match f.trapno {
            16 => "#MF".to_string(),
            t => format!("trap {t}"),
        }),
    }
}

fn w16(b: &[u8; FSAVE_SIZE], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn reg(b: &[u8; FSAVE_SIZE], i: usize) -> (u64, u16) {
    let o = 28 + 10 * i;
    (
        u64::from_le_bytes(b[o..o + 8].try_into().unwrap()),
        w16(b, o + 8),
    )
}

/// The differences between the host's and winterp's outcome.
fn diffs(h: &Out, e: &Out, undefined: u16) -> Vec<String> {
    let mut d = Vec::new();
    if h.fault != e.fault {
        d.push(format!("fault host {:?} winterp {:?}", h.fault, e.fault));
        return d;
    }
    let (hb, eb) = (&h.fsave, &e.fsave);
    if w16(hb, 0) != w16(eb, 0) {
        d.push(format!(
            "cw host {:04x} winterp {:04x}",
            w16(hb, 0),
            w16(eb, 0)
        ));
    }
    let (hs, es) = (w16(hb, 4) & !undefined, w16(eb, 4) & !undefined);
    if hs != es {
        d.push(format!(
            "sw host {hs:04x} winterp {es:04x} (differ {:04x})",
            hs ^ es
        ));
    }
    let (ht, et) = (w16(hb, 8), w16(eb, 8));
    if ht != et {
        d.push(format!("tags host {ht:04x} winterp {et:04x}"));
    }
    let top = (w16(hb, 4) >> 11) & 7;
    for i in 0..8 {
        let p = (top as usize + i) & 7;
        if (ht >> (2 * p)) & 3 == 3 {
            continue;
        }
        let (hr, er) = (reg(hb, i), reg(eb, i));
        if hr != er {
            d.push(format!(
                "st{i} host {:04x}:{:016x} winterp {:04x}:{:016x}",
                hr.1, hr.0, er.1, er.0
            ));
        }
    }
    if h.mem != e.mem {
        d.push(format!("mem host {:02x?} winterp {:02x?}", h.mem, e.mem));
    }
    if h.eflags != e.eflags {
        d.push(format!(
            "eflags host {:03x} winterp {:03x}",
            h.eflags, e.eflags
        ));
    }
    d
}

/// Whether two finite 80-bit values of one sign are neighbours (one unit in the
/// last place apart, across a binade's edge too).
fn adjacent(a: (u64, u16), b: (u64, u16)) -> bool {
    // The position of a finite value among those of its sign: a normal value's
    // significand has its integer bit set, a denormal's (exponent 0) does not.
    let index = |(m, se): (u64, u16)| {
        let e = u128::from(se & 0x7fff);
        if e == 0 || e == 0x7fff || (m >> 63) == 0 {
            return None;
        }
        Some((e << 63) + u128::from(m & !(1 << 63)))
    };
    let index = |v: (u64, u16)| {
        if v.1 & 0x7fff == 0 {
            Some(u128::from(v.0))
        } else {
            index(v)
        }
    };
    a.1 >> 15 == b.1 >> 15
        && matches!((index(a), index(b)), (Some(x), Some(y)) if x.abs_diff(y) == 1)
}

/// A transcendental mismatch's kind: 0 the status words differ in C1 alone, 1 the
/// registers differ by one unit in the last place (C1 may differ too), 2 other.
fn residue_kind(h: &Out, e: &Out, undefined: u16) -> usize {
    if h.fault != e.fault || h.mem != e.mem {
        return 2;
    }
    let sw = (w16(&h.fsave, 4) ^ w16(&e.fsave, 4)) & !undefined;
    if sw & !C1 != 0 {
        return 2;
    }
    let mut ulp = false;
    // A tag may differ only where the value did by one unit across a class edge
    // (zero and the least denormal: some CPUs round a tiny sine to the operand).
    let (th, te) = (w16(&h.fsave, 8), w16(&e.fsave, 8));
    let top = (w16(&h.fsave, 4) >> 11) & 7;
    for p in 0..8u16 {
        if (th ^ te) >> (2 * p) & 3 != 0 {
            let i = usize::from((p + 8 - top) & 7);
            if !adjacent(reg(&h.fsave, i), reg(&e.fsave, i)) {
                return 2;
            }
            ulp = true;
        }
    }
    for i in 0..8 {
        let (hr, er) = (reg(&h.fsave, i), reg(&e.fsave, i));
        if hr == er {
            continue;
        }
        if adjacent(hr, er) {
            ulp = true;
        } else {
            return 2;
        }
    }
    if ulp { 1 } else { 0 }
}

fn describe(c: &Case) -> String {
    let cw = w16(&c.fsave, 0);
    let sw = w16(&c.fsave, 4);
    let mut s = format!("cw {cw:04x} sw {sw:04x}");
    let tw = w16(&c.fsave, 8);
    for i in 0..8 {
        if (tw >> (2 * i)) & 3 != 3 {
            let (m, se) = reg(&c.fsave, i);
            s += &format!(" st{i}={se:04x}:{m:016x}");
        }
    }
    s += &format!(" mem={:02x?}", &c.patches[0].1[..10]);
    s
}

/// Cases of the cell (form, control word) seen so far.
fn ent_count(table: &BTreeMap<(usize, usize), (usize, usize)>, fi: usize, mi: usize) -> usize {
    table.get(&(fi, mi)).map_or(0, |e| e.0)
}

#[test]
fn x87_80_bit_against_the_host() {
    let env = |k: &str| std::env::var(k).ok();
    let per = env("X87_CASES")
        .and_then(|v| v.parse().ok())
        .unwrap_or(150usize);
    let seed = env("X87_SEED")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x8087u64);
    let show = env("X87_SHOW")
        .and_then(|v| v.parse().ok())
        .unwrap_or(12usize);
    let show_trans = env("X87_SHOW_TRANS").is_some();
    // X87_DUMP=path: every transcendental case, one line each (for offline analysis
    // against an independent reference): form, control word, status word and ST(0),
    // ST(1) before, then the host's and winterp's status word, ST(0), ST(1) after.
    let mut dump = env("X87_DUMP").map(|p| {
        std::io::BufWriter::new(std::fs::File::create(&p).unwrap_or_else(|e| panic!("{p}: {e}")))
    });
    let filter: Vec<String> = env("X87_FILTER")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let pristine: Vec<u8> = (0..WIN_SIZE).map(|k| (k * 7 + 3) as u8).collect();
    let mut oracle = match Oracle::spawn(CODE, WIN, &pristine) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let mut tier_sweep = TierSweep::new(&pristine);
    let mut emu = Emu::new(pristine);
    let forms: Vec<Form> = forms()
        .into_iter()
        .filter(|f| filter.is_empty() || filter.iter().any(|s| f.name.contains(s.as_str())))
        .collect();
    let cws = control_words();
    // (form, mode) -> (cases, mismatches)
    let mut table: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    let mut cases = Vec::new();
    let mut keys = Vec::new();
    for (fi, form) in forms.iter().enumerate() {
        for (mi, (_, cw)) in cws.iter().enumerate() {
            for _ in 0..per {
                cases.push(gen_case(&mut rng, form, *cw));
                keys.push((fi, mi));
            }
        }
    }
    let mut shown = 0;
    let mut total = 0usize;
    let mut bad = 0usize;
    let mut trans_bad = 0usize;
    let mut trans_total = 0usize;
    // Transcendental residue by kind: C1 alone, results 1 ulp apart (with or
    // without C1), anything else; in total and per form.
    let mut trans_kinds = [0usize; 3];
    let mut form_kinds: BTreeMap<usize, [usize; 3]> = BTreeMap::new();
    for (chunk, kchunk) in cases.chunks(BATCH).zip(keys.chunks(BATCH)) {
        let hs = oracle.run(chunk).unwrap_or_else(|e| panic!("oracle: {e}"));
        for ((c, h), &(fi, mi)) in chunk.iter().zip(&hs).zip(kchunk) {
            let form = &forms[fi];
            let e = emu.run(c);
            let k = ent_count(&table, fi, mi);
            tier_sweep.check(form.name, c, k, false, show);
            if k < LOOPS_PER_CELL {
                tier_sweep.check(form.name, c, k, true, show);
            }
            let h = host_out(h, &emu.pristine);
            let d = diffs(&h, &e, form.undefined);
            let ent = table.entry((fi, mi)).or_default();
            ent.0 += 1;
            let trans = TRANSCENDENTAL.contains(&form.name);
            if let (Some(w), true) = (dump.as_mut(), trans) {
                use std::io::Write;
                let line = |b: &[u8; FSAVE_SIZE]| {
                    let (m0, e0) = reg(b, 0);
                    let (m1, e1) = reg(b, 1);
                    format!(
                        "{:04x} {:04x} {e0:04x}:{m0:016x} {e1:04x}:{m1:016x}",
                        w16(b, 4),
                        w16(b, 8)
                    )
                };
                writeln!(
                    w,
                    "{}\t{:04x}\t{}\t{}\t{}\t{}",
                    form.name,
                    w16(&c.fsave, 0),
                    line(&c.fsave),
                    line(&h.fsave),
                    line(&e.fsave),
                    d.is_empty() as u8
                )
                .expect("dump");
            }
            if trans {
                trans_total += 1;
            } else {
                total += 1;
            }
            if d.is_empty() {
                continue;
            }
            ent.1 += 1;
            if trans {
                trans_bad += 1;
                let kind = residue_kind(&h, &e, form.undefined);
                trans_kinds[kind] += 1;
                form_kinds.entry(fi).or_default()[kind] += 1;
                if kind == 2 && shown < show {
                    shown += 1;
                    println!(
                        "UNEXPLAINED {} [{}]: {}\n    {}",
                        form.name,
                        cws[mi].0,
                        describe(c),
                        d.join("\n    ")
                    );
                }
            } else {
                bad += 1;
            }
            if shown < show && (!trans || show_trans) {
                shown += 1;
                println!(
                    "MISMATCH {} [{}]: {}\n    {}",
                    form.name,
                    cws[mi].0,
                    describe(c),
                    d.join("\n    ")
                );
            }
        }
    }
    println!("\nx87 sweep: mismatches per form and control word (cases per cell: {per})");
    print!("{:<16}", "form");
    for (n, _) in &cws {
        print!("{n:>10}");
    }
    println!();
    for (fi, form) in forms.iter().enumerate() {
        print!("{:<16}", form.name);
        for mi in 0..cws.len() {
            let (_, m) = table.get(&(fi, mi)).copied().unwrap_or_default();
            print!("{m:>10}");
        }
        println!();
    }
    println!(
        "x87 sweep: {bad} mismatches in {total} cases (all 80 bits, status word); \
         transcendentals: {trans_bad} in {trans_total} differ within the SDM's accuracy \
         bound or not (below)"
    );
    for (fi, k) in &form_kinds {
        println!(
            "x87 sweep: residue {:<8} {:>4} C1 only, {:>4} 1 ulp apart, {:>4} unexplained",
            forms[*fi].name, k[0], k[1], k[2]
        );
    }
    println!(
        "x87 sweep: transcendental residue: {} C1 only (the host's rounding indication \
         from its internal result), {} results 1 ulp apart (the host's result is the \
         true value's other neighbour: SDM 8.3.10 bounds its error by 1 ulp, 1.5 \
         directed), {} unexplained",
        trans_kinds[0], trans_kinds[1], trans_kinds[2]
    );
    let tier_bad = tier_sweep.finish();
    assert_eq!(bad, 0, "x87 forms differ from the host");
    assert_eq!(tier_bad, 0, "a tier changes what an x87 form leaves");
    assert_eq!(
        trans_kinds[2], 0,
        "transcendental results differ from the host beyond the documented accuracy"
    );
}
