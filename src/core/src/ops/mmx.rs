//! MMX (Pentium MMX level): EMMS, MOVD, MOVQ, PACKSS*/PACKUS*, PUNPCK*, PADD*/PSUB*
//! (wrapping and saturating), PCMPEQ*/PCMPGT*, PMULLW PMULHW PMADDWD, PAND PANDN POR
//! PXOR and the PSLL/PSRL/PSRA shifts by mm/m64 or imm8. No SSE-era MMX extensions.
//!
//! Every packed operation is one handler `pop::<OP, SRC>` monomorphised per
//! operation and source kind (MMX register, m32, m64, imm8); the element-wise work is
//! plain integer arithmetic on the lanes of a u64 through [`lanes`]. Architectural
//! side effects follow the SDM: every MMX instruction (other than EMMS) makes TOP 0
//! and all tags valid, EMMS empties the tag word, and an unmasked x87 exception that
//! is pending raises #MF before the instruction does anything. Loads and stores come
//! first, so a fault leaves the MMX/x87 state untouched.

use crate::cpu::{Cpu, ExceptionKind, Exit};
use crate::exec::op::{self, Handler, Op, after_store, next, raise};
use crate::mtry;
use iced_x86::{Code, Instruction, OpKind, Register};

// ---- lanes ----------------------------------------------------------------------------

/// An element type of a packed 64-bit MMX value.
trait Lane: Copy {
    const BITS: u32;
    /// The low `BITS` bits of `v`.
    fn from_bits(v: u64) -> Self;
    /// Zero-extended bit pattern.
    fn bits(self) -> u64;
}

macro_rules! lane {
    ($t:ty, $u:ty, $bits:expr) => {
        impl Lane for $t {
            const BITS: u32 = $bits;
            #[inline(always)]
            fn from_bits(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self as $u as u64
            }
        }
    };
}
lane!(u8, u8, 8);
lane!(i8, u8, 8);
lane!(u16, u16, 16);
lane!(i16, u16, 16);
lane!(u32, u32, 32);
lane!(i32, u32, 32);

/// Applies `f` to each pair of corresponding lanes of `a` and `b`.
#[inline(always)]
fn lanes<T: Lane>(a: u64, b: u64, f: impl Fn(T, T) -> T) -> u64 {
    let mut r = 0u64;
    let mut s = 0;
    while s < 64 {
        r |= f(T::from_bits(a >> s), T::from_bits(b >> s)).bits() << s;
        s += T::BITS;
    }
    r
}

/// All-ones lane if `c`.
#[inline(always)]
fn mask<T: Lane>(c: bool) -> T {
    T::from_bits(if c { u64::MAX } else { 0 })
}

// ---- operations -----------------------------------------------------------------------

const MOVQ: u8 = 0;
const PADDB: u8 = 1;
const PADDW: u8 = 2;
const PADDD: u8 = 3;
const PADDSB: u8 = 4;
const PADDSW: u8 = 5;
const PADDUSB: u8 = 6;
const PADDUSW: u8 = 7;
const PSUBB: u8 = 8;
const PSUBW: u8 = 9;
const PSUBD: u8 = 10;
const PSUBSB: u8 = 11;
const PSUBSW: u8 = 12;
const PSUBUSB: u8 = 13;
const PSUBUSW: u8 = 14;
const PCMPEQB: u8 = 15;
const PCMPEQW: u8 = 16;
const PCMPEQD: u8 = 17;
const PCMPGTB: u8 = 18;
const PCMPGTW: u8 = 19;
const PCMPGTD: u8 = 20;
const PMULLW: u8 = 21;
const PMULHW: u8 = 22;
const PMADDWD: u8 = 23;
const PAND: u8 = 24;
const PANDN: u8 = 25;
const POR: u8 = 26;
const PXOR: u8 = 27;
const PACKSSWB: u8 = 28;
const PACKSSDW: u8 = 29;
const PACKUSWB: u8 = 30;
const PUNPCKLBW: u8 = 31;
const PUNPCKLWD: u8 = 32;
const PUNPCKLDQ: u8 = 33;
const PUNPCKHBW: u8 = 34;
const PUNPCKHWD: u8 = 35;
const PUNPCKHDQ: u8 = 36;
const PSLLW: u8 = 37;
const PSLLD: u8 = 38;
const PSLLQ: u8 = 39;
const PSRLW: u8 = 40;
const PSRLD: u8 = 41;
const PSRLQ: u8 = 42;
const PSRAW: u8 = 43;
const PSRAD: u8 = 44;

/// Saturates a signed value to i8 / i16, and a signed word to u8.
#[inline(always)]
fn sat_i8(v: i16) -> u64 {
    v.clamp(i8::MIN as i16, i8::MAX as i16) as u8 as u64
}
#[inline(always)]
fn sat_i16(v: i32) -> u64 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u64
}
#[inline(always)]
fn sat_u8(v: i16) -> u64 {
    v.clamp(0, u8::MAX as i16) as u64
}

/// Signed word / dword `k` of `v`.
#[inline(always)]
fn word(v: u64, k: u32) -> i16 {
    (v >> (16 * k)) as i16
}
#[inline(always)]
fn dword(v: u64, k: u32) -> i32 {
    (v >> (32 * k)) as i32
}

/// Interleaves the lanes of width `W` of the low halves of `a` and `b`: a0 b0 a1 b1 ...
#[inline(always)]
fn interleave_low<const W: u32>(a: u64, b: u64) -> u64 {
    let m = (1u64 << W) - 1;
    let mut r = 0u64;
    let mut k = 0;
    while k < 32 / W {
        r |= ((a >> (k * W)) & m) << (2 * k * W);
        r |= ((b >> (k * W)) & m) << ((2 * k + 1) * W);
        k += 1;
    }
    r
}

/// Logical shift of each `T` lane; counts of the lane width or more give 0.
#[inline(always)]
fn shift_logical<T: Lane, const LEFT: bool>(a: u64, count: u64) -> u64 {
    if count >= T::BITS as u64 {
        return 0;
    }
    let c = count as u32;
    lanes::<T>(a, 0, |x, _| {
        let v = x.bits();
        T::from_bits(if LEFT { v << c } else { v >> c })
    })
}

/// Packed operation `OP` of destination `a` and source `b` (for shifts, the count).
#[inline(always)]
fn compute<const OP: u8>(a: u64, b: u64) -> u64 {
    match OP {
        MOVQ => b,
        PADDB => lanes::<u8>(a, b, u8::wrapping_add),
        PADDW => lanes::<u16>(a, b, u16::wrapping_add),
        PADDD => lanes::<u32>(a, b, u32::wrapping_add),
        PADDSB => lanes::<i8>(a, b, i8::saturating_add),
        PADDSW => lanes::<i16>(a, b, i16::saturating_add),
        PADDUSB => lanes::<u8>(a, b, u8::saturating_add),
        PADDUSW => lanes::<u16>(a, b, u16::saturating_add),
        PSUBB => lanes::<u8>(a, b, u8::wrapping_sub),
        PSUBW => lanes::<u16>(a, b, u16::wrapping_sub),
        PSUBD => lanes::<u32>(a, b, u32::wrapping_sub),
        PSUBSB => lanes::<i8>(a, b, i8::saturating_sub),
        PSUBSW => lanes::<i16>(a, b, i16::saturating_sub),
        PSUBUSB => lanes::<u8>(a, b, u8::saturating_sub),
        PSUBUSW => lanes::<u16>(a, b, u16::saturating_sub),
        PCMPEQB => lanes::<u8>(a, b, |x, y| mask(x == y)),
        PCMPEQW => lanes::<u16>(a, b, |x, y| mask(x == y)),
        PCMPEQD => lanes::<u32>(a, b, |x, y| mask(x == y)),
        PCMPGTB => lanes::<i8>(a, b, |x, y| mask(x > y)),
        PCMPGTW => lanes::<i16>(a, b, |x, y| mask(x > y)),
        PCMPGTD => lanes::<i32>(a, b, |x, y| mask(x > y)),
        PMULLW => lanes::<u16>(a, b, u16::wrapping_mul),
        PMULHW => lanes::<i16>(a, b, |x, y| ((x as i32 * y as i32) >> 16) as i16),
        PMADDWD => lanes::<u32>(a, b, |x, y| {
            let p0 = (x as i16 as i32) * (y as i16 as i32);
            let p1 = ((x >> 16) as i16 as i32) * ((y >> 16) as i16 as i32);
            // Only 0x8000*0x8000 + 0x8000*0x8000 overflows; it wraps to 0x80000000.
            p0.wrapping_add(p1) as u32
        }),
        PAND => a & b,
        PANDN => !a & b,
        POR => a | b,
        PXOR => a ^ b,
        PACKSSWB => {
            let mut r = 0;
            for k in 0..4 {
                r |= sat_i8(word(a, k)) << (8 * k);
                r |= sat_i8(word(b, k)) << (8 * k + 32);
            }
            r
        }
        PACKSSDW => {
            sat_i16(dword(a, 0))
                | sat_i16(dword(a, 1)) << 16
                | sat_i16(dword(b, 0)) << 32
                | sat_i16(dword(b, 1)) << 48
        }
        PACKUSWB => {
            let mut r = 0;
            for k in 0..4 {
                r |= sat_u8(word(a, k)) << (8 * k);
                r |= sat_u8(word(b, k)) << (8 * k + 32);
            }
            r
        }
        PUNPCKLBW => interleave_low::<8>(a, b),
        PUNPCKLWD => interleave_low::<16>(a, b),
        PUNPCKLDQ => interleave_low::<32>(a, b),
        PUNPCKHBW => interleave_low::<8>(a >> 32, b >> 32),
        PUNPCKHWD => interleave_low::<16>(a >> 32, b >> 32),
        PUNPCKHDQ => interleave_low::<32>(a >> 32, b >> 32),
        PSLLW => shift_logical::<u16, true>(a, b),
        PSLLD => shift_logical::<u32, true>(a, b),
        PSLLQ => shift_logical::<u64l, true>(a, b),
        PSRLW => shift_logical::<u16, false>(a, b),
        PSRLD => shift_logical::<u32, false>(a, b),
        PSRLQ => shift_logical::<u64l, false>(a, b),
        PSRAW => {
            let c = b.min(15) as u32;
            lanes::<i16>(a, 0, |x, _| x >> c)
        }
        PSRAD => {
            let c = b.min(31) as u32;
            lanes::<i32>(a, 0, |x, _| x >> c)
        }
        _ => unreachable!(),
    }
}

/// The whole 64-bit register as one lane (for PSLLQ/PSRLQ).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy)]
struct u64l(u64);
impl Lane for u64l {
    const BITS: u32 = 64;
    #[inline(always)]
    fn from_bits(v: u64) -> Self {
        u64l(v)
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self.0
    }
}

// ---- handlers -------------------------------------------------------------------------

/// Source operand kinds.
const SRC_MM: u8 = 0;
const SRC_M64: u8 = 1;
const SRC_M32: u8 = 2;
const SRC_IMM: u8 = 3;

/// Whether an unmasked x87 exception is pending (an MMX instruction then raises #MF
/// before it executes, SDM vol. 1 9.5.4).
#[inline(always)]
fn fp_pending(cpu: &Cpu) -> bool {
    cpu.fpu.sw & !cpu.fpu.cw & 0x3f != 0
}

#[cold]
#[inline(never)]
fn mf(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::FloatingPoint)
}

/// `mm(r) = OP(mm(r), src)`.
fn pop<const OP: u8, const SRC: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    let o = &ops[i];
    let b = match SRC {
        SRC_MM => cpu.fpu.mmx(o.rm),
        SRC_M64 => mtry!(cpu, ops, i, cpu.mem.read_u64(cpu.ea(o))),
        SRC_M32 => mtry!(cpu, ops, i, cpu.mem.read_u32(cpu.ea(o))) as u64,
        _ => o.imm as u64,
    };
    let a = cpu.fpu.mmx(o.r);
    cpu.fpu.set_mmx(o.r, compute::<OP>(a, b));
    next(cpu, ops, i)
}

/// MOVD mm, r32.
fn movd_mm_r32(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    let o = &ops[i];
    let v = cpu.r32(o.rm) as u64;
    cpu.fpu.set_mmx(o.r, v);
    next(cpu, ops, i)
}

/// MOVD r32, mm.
fn movd_r32_mm(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    let o = &ops[i];
    let v = cpu.fpu.mmx(o.r) as u32;
    cpu.set_r32(o.rm, v);
    cpu.fpu.mmx_enter();
    next(cpu, ops, i)
}

/// MOVD m32, mm.
fn movd_m32_mm(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    let o = &ops[i];
    let v = cpu.fpu.mmx(o.r) as u32;
    let w = mtry!(cpu, ops, i, cpu.mem.write_u32(cpu.ea(o), v));
    cpu.fpu.mmx_enter();
    after_store(cpu, ops, i, w)
}

/// MOVQ m64, mm.
fn movq_m64_mm(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    let o = &ops[i];
    let v = cpu.fpu.mmx(o.r);
    let w = mtry!(cpu, ops, i, cpu.mem.write_u64(cpu.ea(o), v));
    cpu.fpu.mmx_enter();
    after_store(cpu, ops, i, w)
}

fn emms(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if fp_pending(cpu) {
        return mf(cpu, ops, i);
    }
    cpu.fpu.emms();
    next(cpu, ops, i)
}

// ---- lowering -------------------------------------------------------------------------

/// The packed operation of an iced form, if it is one of ours.
fn packed_op(code: Code) -> Option<u8> {
    use Code as C;
    Some(match code {
        C::Movq_mm_mmm64 => MOVQ,
        C::Paddb_mm_mmm64 => PADDB,
        C::Paddw_mm_mmm64 => PADDW,
        C::Paddd_mm_mmm64 => PADDD,
        C::Paddsb_mm_mmm64 => PADDSB,
        C::Paddsw_mm_mmm64 => PADDSW,
        C::Paddusb_mm_mmm64 => PADDUSB,
        C::Paddusw_mm_mmm64 => PADDUSW,
        C::Psubb_mm_mmm64 => PSUBB,
        C::Psubw_mm_mmm64 => PSUBW,
        C::Psubd_mm_mmm64 => PSUBD,
        C::Psubsb_mm_mmm64 => PSUBSB,
        C::Psubsw_mm_mmm64 => PSUBSW,
        C::Psubusb_mm_mmm64 => PSUBUSB,
        C::Psubusw_mm_mmm64 => PSUBUSW,
        C::Pcmpeqb_mm_mmm64 => PCMPEQB,
        C::Pcmpeqw_mm_mmm64 => PCMPEQW,
        C::Pcmpeqd_mm_mmm64 => PCMPEQD,
        C::Pcmpgtb_mm_mmm64 => PCMPGTB,
        C::Pcmpgtw_mm_mmm64 => PCMPGTW,
        C::Pcmpgtd_mm_mmm64 => PCMPGTD,
        C::Pmullw_mm_mmm64 => PMULLW,
        C::Pmulhw_mm_mmm64 => PMULHW,
        C::Pmaddwd_mm_mmm64 => PMADDWD,
        C::Pand_mm_mmm64 => PAND,
        C::Pandn_mm_mmm64 => PANDN,
        C::Por_mm_mmm64 => POR,
        C::Pxor_mm_mmm64 => PXOR,
        C::Packsswb_mm_mmm64 => PACKSSWB,
        C::Packssdw_mm_mmm64 => PACKSSDW,
        C::Packuswb_mm_mmm64 => PACKUSWB,
        C::Punpcklbw_mm_mmm32 => PUNPCKLBW,
        C::Punpcklwd_mm_mmm32 => PUNPCKLWD,
        C::Punpckldq_mm_mmm32 => PUNPCKLDQ,
        C::Punpckhbw_mm_mmm64 => PUNPCKHBW,
        C::Punpckhwd_mm_mmm64 => PUNPCKHWD,
        C::Punpckhdq_mm_mmm64 => PUNPCKHDQ,
        C::Psllw_mm_mmm64 | C::Psllw_mm_imm8 => PSLLW,
        C::Pslld_mm_mmm64 | C::Pslld_mm_imm8 => PSLLD,
        C::Psllq_mm_mmm64 | C::Psllq_mm_imm8 => PSLLQ,
        C::Psrlw_mm_mmm64 | C::Psrlw_mm_imm8 => PSRLW,
        C::Psrld_mm_mmm64 | C::Psrld_mm_imm8 => PSRLD,
        C::Psrlq_mm_mmm64 | C::Psrlq_mm_imm8 => PSRLQ,
        C::Psraw_mm_mmm64 | C::Psraw_mm_imm8 => PSRAW,
        C::Psrad_mm_mmm64 | C::Psrad_mm_imm8 => PSRAD,
        _ => return None,
    })
}

/// `pop::<OP, SRC>` for a runtime `op`.
fn pop_handler<const SRC: u8>(op: u8) -> Handler {
    macro_rules! table {
        ($($name:ident)*) => {
            match op {
                $($name => pop::<$name, SRC>,)*
                _ => op::unimplemented,
            }
        };
    }
    table!(
        MOVQ PADDB PADDW PADDD PADDSB PADDSW PADDUSB PADDUSW
        PSUBB PSUBW PSUBD PSUBSB PSUBSW PSUBUSB PSUBUSW
        PCMPEQB PCMPEQW PCMPEQD PCMPGTB PCMPGTW PCMPGTD
        PMULLW PMULHW PMADDWD PAND PANDN POR PXOR
        PACKSSWB PACKSSDW PACKUSWB
        PUNPCKLBW PUNPCKLWD PUNPCKLDQ PUNPCKHBW PUNPCKHWD PUNPCKHDQ
        PSLLW PSLLD PSLLQ PSRLW PSRLD PSRLQ PSRAW PSRAD
    )
}

/// MMX register number of operand `n`.
fn mm_op(ins: &Instruction, n: u32) -> Option<u8> {
    if ins.op_kind(n) != OpKind::Register {
        return None;
    }
    let r = ins.op_register(n);
    if r.is_mm() {
        Some((r as u32 - Register::MM0 as u32) as u8)
    } else {
        None
    }
}

fn gpr32_op(ins: &Instruction, n: u32) -> Option<u8> {
    if ins.op_kind(n) != OpKind::Register {
        return None;
    }
    let r = ins.op_register(n);
    if r.is_gpr32() {
        Some(r.number() as u8)
    } else {
        None
    }
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let code = ins.code();
    match code {
        Code::Emms => return Some(emms),
        Code::Movd_mm_rm32 => {
            o.r = mm_op(ins, 0)?;
            return Some(if ins.op_kind(1) == OpKind::Memory {
                pop_handler::<SRC_M32>(MOVQ)
            } else {
                o.rm = gpr32_op(ins, 1)?;
                movd_mm_r32
            });
        }
        Code::Movd_rm32_mm => {
            o.r = mm_op(ins, 1)?;
            return Some(if ins.op_kind(0) == OpKind::Memory {
                movd_m32_mm
            } else {
                o.rm = gpr32_op(ins, 0)?;
                movd_r32_mm
            });
        }
        Code::Movq_mmm64_mm => {
            o.r = mm_op(ins, 1)?;
            return Some(if ins.op_kind(0) == OpKind::Memory {
                movq_m64_mm
            } else {
                // Register destination (0F 7F /r, mod 11): a plain register copy.
                o.rm = o.r;
                o.r = mm_op(ins, 0)?;
                pop_handler::<SRC_MM>(MOVQ)
            });
        }
        _ => {}
    }
    let op = packed_op(code)?;
    o.r = mm_op(ins, 0)?;
    Some(match ins.op_kind(1) {
        OpKind::Register => {
            o.rm = mm_op(ins, 1)?;
            pop_handler::<SRC_MM>(op)
        }
        OpKind::Memory if ins.memory_size().size() == 4 => pop_handler::<SRC_M32>(op),
        OpKind::Memory => pop_handler::<SRC_M64>(op),
        OpKind::Immediate8 => {
            o.imm = ins.immediate(1) as u8 as u32;
            pop_handler::<SRC_IMM>(op)
        }
        _ => return None,
    })
}
