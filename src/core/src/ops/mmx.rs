//! MMX (Pentium MMX level): EMMS, MOVD, MOVQ, PACKSS*/PACKUS*, PUNPCK*, PADD*/PSUB*
//! (wrapping and saturating), PCMPEQ*/PCMPGT*, PMULLW PMULHW PMADDWD, PAND PANDN POR
//! PXOR and the PSLL/PSRL/PSRA shifts by mm/m64 or imm8. No SSE-era MMX extensions.
//!
//! Every packed operation is one handler `pop::<OP, SRC>` monomorphised per
//! operation and source kind (MMX register, m32, m64, imm8). Byte/word/dword add,
//! subtract (wrapping and saturating), compares and shifts work on the whole u64 at
//! once (SWAR bit tricks, checked against plain per-lane arithmetic in the tests);
//! multiplies use the per-lane helper [`lanes`]. Architectural side effects follow
//! the SDM (vol. 1 table 9-2): every MMX instruction makes TOP 0; all but EMMS make
//! every tag valid and EMMS makes every tag empty; a pending unmasked x87 exception
//! (ES) raises #MF before the instruction does anything. Loads and stores come first,
//! so a fault leaves the MMX/x87 state untouched.

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

// ---- SWAR: whole-register lane arithmetic for the hot byte/word/dword forms ----------

/// 1 in the lowest bit of every W-bit lane.
#[inline(always)]
const fn ones<const W: u32>() -> u64 {
    u64::MAX / (u64::MAX >> (64 - W))
}

/// The top bit of every W-bit lane.
#[inline(always)]
const fn high<const W: u32>() -> u64 {
    ones::<W>() << (W - 1)
}

/// Turns a value holding only lane top bits into whole-lane masks.
#[inline(always)]
const fn spread<const W: u32>(t: u64) -> u64 {
    (t >> (W - 1)).wrapping_mul(u64::MAX >> (64 - W))
}

/// Lane-wise wrapping add (no carry crosses a lane).
#[inline(always)]
const fn add_w<const W: u32>(a: u64, b: u64) -> u64 {
    let h = high::<W>();
    ((a & !h) + (b & !h)) ^ ((a ^ b) & h)
}

/// Lane-wise wrapping subtract.
#[inline(always)]
const fn sub_w<const W: u32>(a: u64, b: u64) -> u64 {
    let h = high::<W>();
    ((a | h) - (b & !h)) ^ ((a ^ !b) & h)
}

/// Lane-wise unsigned saturating add: lanes that carry out become all ones.
#[inline(always)]
const fn add_us<const W: u32>(a: u64, b: u64) -> u64 {
    let s = add_w::<W>(a, b);
    let carry = ((a & b) | ((a | b) & !s)) & high::<W>();
    s | spread::<W>(carry)
}

/// Lane-wise unsigned saturating subtract: lanes that borrow become 0.
#[inline(always)]
const fn sub_us<const W: u32>(a: u64, b: u64) -> u64 {
    let d = sub_w::<W>(a, b);
    let borrow = ((!a & b) | (!(a ^ b) & d)) & high::<W>();
    d & !spread::<W>(borrow)
}

/// Signed saturation of lanes whose top bit is set in `ov`: MIN if `a` is negative,
/// else MAX (both operands of an overflowing add, and `a` of an overflowing
/// subtract, have the sign of the true result).
#[inline(always)]
const fn saturate_s<const W: u32>(r: u64, a: u64, ov: u64) -> u64 {
    let h = high::<W>();
    let m = spread::<W>(ov & h);
    let limit = !h + ((a & h) >> (W - 1));
    (r & !m) | (limit & m)
}

#[inline(always)]
const fn add_ss<const W: u32>(a: u64, b: u64) -> u64 {
    let s = add_w::<W>(a, b);
    saturate_s::<W>(s, a, !(a ^ b) & (a ^ s))
}

#[inline(always)]
const fn sub_ss<const W: u32>(a: u64, b: u64) -> u64 {
    let d = sub_w::<W>(a, b);
    saturate_s::<W>(d, a, (a ^ b) & (a ^ d))
}

/// All-ones lanes where `a == b`.
#[inline(always)]
const fn cmp_eq<const W: u32>(a: u64, b: u64) -> u64 {
    let x = a ^ b;
    let low = !high::<W>();
    let nonzero = (((x & low) + low) | x) & high::<W>();
    !spread::<W>(nonzero)
}

/// All-ones lanes where `a > b` as signed integers (Hacker's Delight 2-12 on `b < a`).
#[inline(always)]
const fn cmp_gt<const W: u32>(a: u64, b: u64) -> u64 {
    let d = sub_w::<W>(b, a);
    spread::<W>((d ^ ((b ^ a) & (d ^ b))) & high::<W>())
}

/// Lane-wise shifts; counts of the lane width or more give 0 (sign fill for SAR).
#[inline(always)]
const fn shl_w<const W: u32>(a: u64, count: u64) -> u64 {
    if count >= W as u64 {
        return 0;
    }
    let lane = u64::MAX >> (64 - W);
    (a << count) & (((lane << count) & lane) * ones::<W>())
}

#[inline(always)]
const fn shr_w<const W: u32>(a: u64, count: u64) -> u64 {
    if count >= W as u64 {
        return 0;
    }
    let lane = u64::MAX >> (64 - W);
    (a >> count) & ((lane >> count) * ones::<W>())
}

#[inline(always)]
const fn sar_w<const W: u32>(a: u64, count: u64) -> u64 {
    let c = if count >= W as u64 {
        W as u64 - 1
    } else {
        count
    };
    let lane = u64::MAX >> (64 - W);
    let keep = (lane >> c) * ones::<W>();
    ((a >> c) & keep) | (spread::<W>(a & high::<W>()) & !keep)
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

/// Packed operation `OP` of destination `a` and source `b` (for shifts, the count).
#[inline(always)]
fn compute<const OP: u8>(a: u64, b: u64) -> u64 {
    match OP {
        MOVQ => b,
        PADDB => add_w::<8>(a, b),
        PADDW => add_w::<16>(a, b),
        PADDD => add_w::<32>(a, b),
        PADDSB => add_ss::<8>(a, b),
        PADDSW => add_ss::<16>(a, b),
        PADDUSB => add_us::<8>(a, b),
        PADDUSW => add_us::<16>(a, b),
        PSUBB => sub_w::<8>(a, b),
        PSUBW => sub_w::<16>(a, b),
        PSUBD => sub_w::<32>(a, b),
        PSUBSB => sub_ss::<8>(a, b),
        PSUBSW => sub_ss::<16>(a, b),
        PSUBUSB => sub_us::<8>(a, b),
        PSUBUSW => sub_us::<16>(a, b),
        PCMPEQB => cmp_eq::<8>(a, b),
        PCMPEQW => cmp_eq::<16>(a, b),
        PCMPEQD => cmp_eq::<32>(a, b),
        PCMPGTB => cmp_gt::<8>(a, b),
        PCMPGTW => cmp_gt::<16>(a, b),
        PCMPGTD => cmp_gt::<32>(a, b),
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
        PSLLW => shl_w::<16>(a, b),
        PSLLD => shl_w::<32>(a, b),
        PSLLQ => shl_w::<64>(a, b),
        PSRLW => shr_w::<16>(a, b),
        PSRLD => shr_w::<32>(a, b),
        PSRLQ => shr_w::<64>(a, b),
        PSRAW => sar_w::<16>(a, b),
        PSRAD => sar_w::<32>(a, b),
        _ => unreachable!(),
    }
}

// ---- handlers -------------------------------------------------------------------------

/// Source operand kinds.
const SRC_MM: u8 = 0;
const SRC_M64: u8 = 1;
const SRC_M32: u8 = 2;
const SRC_IMM: u8 = 3;

/// Status word ES bit: an unmasked x87 exception is pending (kept by the x87 group).
const ES: u16 = 0x80;

/// Whether an unmasked x87 exception is pending: an MMX instruction then raises #MF
/// before it executes (SDM vol. 1 9.5.4), like a waiting x87 instruction.
#[inline(always)]
pub fn fp_pending(cpu: &Cpu) -> bool {
    cpu.fpu.sw & ES != 0
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
    // SDM vol. 1 table 9-2: EMMS also sets TOP to 0 (as the host does).
    cpu.fpu.top = 0;
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

#[cfg(test)]
mod tests {
    use crate::StopReason;
    use crate::cpu::ExceptionKind;
    use crate::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
    use crate::mem::Access;
    use iced_x86::code_asm::*;
    use iced_x86::{Code, Instruction, MemoryOperand, Register};

    type R = Result<(), IcedError>;
    const MM: [AsmRegisterMm; 8] = [mm0, mm1, mm2, mm3, mm4, mm5, mm6, mm7];
    /// First address past the data region (not committed).
    const HOLE: u32 = DATA + DATA_SIZE;

    /// Loads mm0.. from `init` (stored at DATA + 8k), runs `body`, ends the program.
    fn program(init: &[u64], body: impl FnOnce(&mut CodeAssembler) -> R) -> Machine {
        let mut m = Machine::new();
        for (k, v) in init.iter().enumerate() {
            m.mem.write_u64(DATA + 8 * k as u32, *v).unwrap();
        }
        let code = assemble(|a| {
            for k in 0..init.len() {
                a.movq(MM[k], qword_ptr(DATA + 8 * k as u32))?;
            }
            body(a)?;
            a.mov(eax, EXIT)?;
            a.jmp(eax)
        });
        m.load(&code);
        m
    }

    fn run(init: &[u64], body: impl FnOnce(&mut CodeAssembler) -> R) -> Machine {
        let mut m = program(init, body);
        assert_eq!(m.run(100_000), StopReason::Thunk(EXIT));
        m
    }

    fn mem_at(addr: u32) -> MemoryOperand {
        MemoryOperand::with_displ(addr as u64, 4)
    }

    /// `code mm0, mm1` and `code mm0, [m]` with mm0 = a and mm1 = [m] = b; both forms
    /// must agree. Returns mm0.
    fn binop(code: Code, a: u64, b: u64) -> u64 {
        let reg = run(&[a, b], |x| {
            x.add_instruction(Instruction::with2(code, Register::MM0, Register::MM1)?)
        });
        let mem = run(&[a, b], |x| {
            x.add_instruction(Instruction::with2(code, Register::MM0, mem_at(DATA + 8))?)
        });
        let r = reg.cpu.fpu.mmx(0);
        assert_eq!(r, mem.cpu.fpu.mmx(0), "{code:?} register vs memory form");
        assert_eq!(reg.cpu.fpu.mmx(1), b, "{code:?} changed its source");
        r
    }

    /// Shift of `a` by `count` through the mm/m64 form and, for counts below 256,
    /// the imm8 form; all forms must agree. Returns the result.
    fn shift(code: Code, code_imm: Code, a: u64, count: u64) -> u64 {
        let r = binop(code, a, count);
        if count < 256 {
            let m = run(&[a], |x| {
                x.add_instruction(Instruction::with2(code_imm, Register::MM0, count as u32)?)
            });
            assert_eq!(m.cpu.fpu.mmx(0), r, "{code_imm:?} by {count}");
        }
        r
    }

    #[test]
    fn byte_add_sub() {
        let a = 0xFF80_7F01_0010_20FE;
        let b = 0x0180_01FF_00F0_E003;
        assert_eq!(binop(Code::Paddb_mm_mmm64, a, b), 0x0000_8000_0000_0001);
        assert_eq!(binop(Code::Paddsb_mm_mmm64, a, b), 0x0080_7F00_0000_0001);
        assert_eq!(binop(Code::Paddusb_mm_mmm64, a, b), 0xFFFF_80FF_00FF_FFFF);
        assert_eq!(binop(Code::Psubb_mm_mmm64, a, b), 0xFE00_7E02_0020_40FB);
        assert_eq!(binop(Code::Psubsb_mm_mmm64, a, b), 0xFE00_7E02_0020_40FB);
        assert_eq!(binop(Code::Psubusb_mm_mmm64, a, b), 0xFE00_7E00_0000_00FB);
        // Signed saturation of differences: -128 - 1 and 127 - (-1).
        assert_eq!(binop(Code::Psubsb_mm_mmm64, 0x807F, 0x01FF), 0x807F);
        assert_eq!(binop(Code::Psubb_mm_mmm64, 0x807F, 0x01FF), 0x7F80);
    }

    #[test]
    fn word_add_sub_mul() {
        let a = 0x7FFF_8000_FFFF_0001;
        let b = 0x0001_8000_0001_FFFF;
        assert_eq!(binop(Code::Paddw_mm_mmm64, a, b), 0x8000_0000_0000_0000);
        assert_eq!(binop(Code::Paddsw_mm_mmm64, a, b), 0x7FFF_8000_0000_0000);
        assert_eq!(binop(Code::Paddusw_mm_mmm64, a, b), 0x8000_FFFF_FFFF_FFFF);
        assert_eq!(binop(Code::Psubw_mm_mmm64, a, b), 0x7FFE_0000_FFFE_0002);
        assert_eq!(binop(Code::Psubsw_mm_mmm64, a, b), 0x7FFE_0000_FFFE_0002);
        assert_eq!(binop(Code::Psubusw_mm_mmm64, a, b), 0x7FFE_0000_FFFE_0000);
        assert_eq!(
            binop(
                Code::Psubsw_mm_mmm64,
                0x8000_7FFF_0000_0000,
                0x0001_FFFF_0000_0000
            ),
            0x8000_7FFF_0000_0000
        );
        assert_eq!(binop(Code::Pmullw_mm_mmm64, a, b), 0x7FFF_0000_FFFF_FFFF);
        assert_eq!(binop(Code::Pmulhw_mm_mmm64, a, b), 0x0000_4000_FFFF_FFFF);
        assert_eq!(binop(Code::Pmaddwd_mm_mmm64, a, b), 0x4000_7FFF_FFFF_FFFE);
        // The one PMADDWD overflow: 2 * (0x8000 * 0x8000) wraps to 0x80000000.
        let m = 0x8000_8000_8000_8000;
        assert_eq!(binop(Code::Pmaddwd_mm_mmm64, m, m), 0x8000_0000_8000_0000);
        assert_eq!(binop(Code::Pmulhw_mm_mmm64, m, m), 0x4000_4000_4000_4000);
        assert_eq!(binop(Code::Pmullw_mm_mmm64, m, m), 0);
    }

    #[test]
    fn dword_add_sub() {
        let a = 0xFFFF_FFFF_7FFF_FFFF;
        let b = 0x0000_0001_0000_0001;
        assert_eq!(binop(Code::Paddd_mm_mmm64, a, b), 0x0000_0000_8000_0000);
        assert_eq!(binop(Code::Psubd_mm_mmm64, a, b), 0xFFFF_FFFE_7FFF_FFFE);
    }

    #[test]
    fn compares() {
        assert_eq!(
            binop(
                Code::Pcmpeqb_mm_mmm64,
                0x0011_2233_4455_6677,
                0x0011_FF33_FF55_FF77
            ),
            0xFFFF_00FF_00FF_00FF
        );
        assert_eq!(
            binop(
                Code::Pcmpgtb_mm_mmm64,
                0x7F80_00FF_0102_0304,
                0x807F_FF00_0202_0403
            ),
            0xFF00_FF00_0000_00FF
        );
        assert_eq!(
            binop(
                Code::Pcmpeqw_mm_mmm64,
                0x1234_5678_0000_FFFF,
                0x1234_5679_0000_FFFE
            ),
            0xFFFF_0000_FFFF_0000
        );
        assert_eq!(
            binop(
                Code::Pcmpgtw_mm_mmm64,
                0x0001_8000_FFFF_7FFF,
                0x0000_7FFF_0000_8000
            ),
            0xFFFF_0000_0000_FFFF
        );
        assert_eq!(
            binop(
                Code::Pcmpeqd_mm_mmm64,
                0x1234_5678_0000_0001,
                0x1234_5678_0000_0000
            ),
            0xFFFF_FFFF_0000_0000
        );
        let (a, b) = (0x0000_0000_7FFF_FFFF, 0xFFFF_FFFF_8000_0000);
        assert_eq!(binop(Code::Pcmpgtd_mm_mmm64, a, b), u64::MAX);
        assert_eq!(binop(Code::Pcmpgtd_mm_mmm64, b, a), 0);
        assert_eq!(binop(Code::Pcmpgtd_mm_mmm64, a, a), 0);
    }

    #[test]
    fn logic() {
        let (a, b) = (0xF0F0_F0F0_F0F0_F0F0, 0xFF00_FF00_FF00_FF00);
        assert_eq!(binop(Code::Pand_mm_mmm64, a, b), 0xF000_F000_F000_F000);
        assert_eq!(binop(Code::Pandn_mm_mmm64, a, b), 0x0F00_0F00_0F00_0F00);
        assert_eq!(binop(Code::Por_mm_mmm64, a, b), 0xFFF0_FFF0_FFF0_FFF0);
        assert_eq!(binop(Code::Pxor_mm_mmm64, a, b), 0x0FF0_0FF0_0FF0_0FF0);
    }

    #[test]
    fn packs() {
        // Words (high to low): a = 128, -129, 32767, -32768; b = 1, -1, 127, -128.
        let a = 0x0080_FF7F_7FFF_8000;
        let b = 0x0001_FFFF_007F_FF80;
        assert_eq!(binop(Code::Packsswb_mm_mmm64, a, b), 0x01FF_7F80_7F80_7F80);
        assert_eq!(binop(Code::Packuswb_mm_mmm64, a, b), 0x0100_7F00_8000_FF00);
        // Dwords: a = 32768, -32769; b = i32::MIN, 0x1234.
        assert_eq!(
            binop(
                Code::Packssdw_mm_mmm64,
                0x0000_8000_FFFF_7FFF,
                0x8000_0000_0000_1234
            ),
            0x8000_1234_7FFF_8000
        );
        assert_eq!(
            binop(
                Code::Packssdw_mm_mmm64,
                0x7FFF_FFFF_0000_7FFF,
                0xFFFF_8000_FFFF_FFFF
            ),
            0x8000_FFFF_7FFF_7FFF
        );
    }

    #[test]
    fn unpacks() {
        let a = 0x8786_8584_8382_8180;
        let b = 0x9796_9594_9392_9190;
        assert_eq!(binop(Code::Punpcklbw_mm_mmm32, a, b), 0x9383_9282_9181_9080);
        assert_eq!(binop(Code::Punpckhbw_mm_mmm64, a, b), 0x9787_9686_9585_9484);
        assert_eq!(binop(Code::Punpcklwd_mm_mmm32, a, b), 0x9392_8382_9190_8180);
        assert_eq!(binop(Code::Punpckhwd_mm_mmm64, a, b), 0x9796_8786_9594_8584);
        assert_eq!(binop(Code::Punpckldq_mm_mmm32, a, b), 0x9392_9190_8382_8180);
        assert_eq!(binop(Code::Punpckhdq_mm_mmm64, a, b), 0x9796_9594_8786_8584);
    }

    #[test]
    fn unpack_low_reads_32_bits() {
        // The last four bytes of the data region: the low forms read only those.
        let last = HOLE - 4;
        let mut m = program(&[0x8786_8584_8382_8180], |x| {
            x.add_instruction(Instruction::with2(
                Code::Punpcklbw_mm_mmm32,
                Register::MM0,
                mem_at(last),
            )?)
        });
        m.mem.write_u32(last, 0x9392_9190).unwrap();
        assert_eq!(m.run(1000), StopReason::Thunk(EXIT));
        assert_eq!(m.cpu.fpu.mmx(0), 0x9383_9282_9181_9080);
        // The high form reads 64 bits and faults there.
        let mut m = program(&[1], |x| {
            x.add_instruction(Instruction::with2(
                Code::Punpckhbw_mm_mmm64,
                Register::MM0,
                mem_at(last),
            )?)
        });
        match m.run(1000) {
            StopReason::Exception(e) => {
                assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read))
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(m.cpu.fpu.mmx(0), 1);
    }

    #[test]
    fn word_shifts() {
        let a = 0x8000_7FFF_0001_FFFF;
        use Code as C;
        let sll = |c| shift(C::Psllw_mm_mmm64, C::Psllw_mm_imm8, a, c);
        let srl = |c| shift(C::Psrlw_mm_mmm64, C::Psrlw_mm_imm8, a, c);
        let sra = |c| shift(C::Psraw_mm_mmm64, C::Psraw_mm_imm8, a, c);
        assert_eq!(sll(0), a);
        assert_eq!(sll(1), 0x0000_FFFE_0002_FFFE);
        assert_eq!(sll(15), 0x0000_8000_8000_8000);
        assert_eq!(sll(16), 0);
        assert_eq!(sll(255), 0);
        assert_eq!(sll(1 << 32), 0);
        assert_eq!(srl(1), 0x4000_3FFF_0000_7FFF);
        assert_eq!(srl(15), 0x0001_0000_0000_0001);
        assert_eq!(srl(16), 0);
        assert_eq!(srl(0x0000_0001_0000_0001), 0);
        assert_eq!(sra(1), 0xC000_3FFF_0000_FFFF);
        assert_eq!(sra(15), 0xFFFF_0000_0000_FFFF);
        assert_eq!(sra(16), 0xFFFF_0000_0000_FFFF);
        assert_eq!(sra(200), 0xFFFF_0000_0000_FFFF);
        assert_eq!(sra(u64::MAX), 0xFFFF_0000_0000_FFFF);
    }

    #[test]
    fn dword_and_qword_shifts() {
        let a = 0x8000_0001_7FFF_FFFF;
        use Code as C;
        let d = |c1, c2, c| shift(c1, c2, a, c);
        assert_eq!(
            d(C::Pslld_mm_mmm64, C::Pslld_mm_imm8, 4),
            0x0000_0010_FFFF_FFF0
        );
        assert_eq!(d(C::Pslld_mm_mmm64, C::Pslld_mm_imm8, 32), 0);
        assert_eq!(
            d(C::Psrld_mm_mmm64, C::Psrld_mm_imm8, 4),
            0x0800_0000_07FF_FFFF
        );
        assert_eq!(
            d(C::Psrld_mm_mmm64, C::Psrld_mm_imm8, 31),
            0x0000_0001_0000_0000
        );
        assert_eq!(d(C::Psrld_mm_mmm64, C::Psrld_mm_imm8, 32), 0);
        assert_eq!(
            d(C::Psrad_mm_mmm64, C::Psrad_mm_imm8, 4),
            0xF800_0000_07FF_FFFF
        );
        assert_eq!(
            d(C::Psrad_mm_mmm64, C::Psrad_mm_imm8, 32),
            0xFFFF_FFFF_0000_0000
        );
        assert_eq!(
            d(C::Psrad_mm_mmm64, C::Psrad_mm_imm8, 1 << 40),
            0xFFFF_FFFF_0000_0000
        );
        assert_eq!(
            d(C::Psllq_mm_mmm64, C::Psllq_mm_imm8, 4),
            0x0000_0017_FFFF_FFF0
        );
        assert_eq!(
            d(C::Psllq_mm_mmm64, C::Psllq_mm_imm8, 63),
            0x8000_0000_0000_0000
        );
        assert_eq!(d(C::Psllq_mm_mmm64, C::Psllq_mm_imm8, 64), 0);
        assert_eq!(
            d(C::Psrlq_mm_mmm64, C::Psrlq_mm_imm8, 4),
            0x0800_0000_17FF_FFFF
        );
        assert_eq!(d(C::Psrlq_mm_mmm64, C::Psrlq_mm_imm8, 63), 1);
        assert_eq!(d(C::Psrlq_mm_mmm64, C::Psrlq_mm_imm8, 64), 0);
        assert_eq!(d(C::Psrlq_mm_mmm64, C::Psrlq_mm_imm8, u64::MAX), 0);
    }

    #[test]
    fn movd() {
        let m = run(&[u64::MAX, u64::MAX, 0xAAAA_BBBB_1234_5678], |a| {
            a.mov(eax, 0x8765_4321u32)?;
            a.movd(mm0, eax)?;
            a.mov(dword_ptr(DATA + 0x100), 0x8000_0001u32)?;
            a.mov(dword_ptr(DATA + 0x104), 0xFFFF_FFFFu32)?;
            a.movd(mm1, dword_ptr(DATA + 0x100))?;
            a.movd(ecx, mm2)?;
            a.mov(dword_ptr(DATA + 0x200), 0x1111_1111u32)?;
            a.mov(dword_ptr(DATA + 0x204), 0x2222_2222u32)?;
            a.movd(dword_ptr(DATA + 0x200), mm2)
        });
        // MOVD to an MMX register zero-extends.
        assert_eq!(m.cpu.fpu.mmx(0), 0x8765_4321);
        assert_eq!(m.cpu.fpu.mmx(1), 0x8000_0001);
        assert_eq!(m.cpu.regs[1], 0x1234_5678);
        // MOVD to memory writes four bytes.
        assert_eq!(m.mem.read_u64(DATA + 0x200).unwrap(), 0x2222_2222_1234_5678);
        assert_eq!(m.cpu.fpu.tags, 0);
    }

    #[test]
    fn movq() {
        let v = 0x0123_4567_89AB_CDEF;
        let m = run(&[v, 5, 6], |a| {
            a.movq(mm3, mm0)?;
            a.movq(qword_ptr(DATA + 0x100), mm0)?;
            a.movq(mm4, qword_ptr(DATA + 0x100))?;
            // 0F 7F /r with a register destination: movq mm1, mm0.
            a.db(&[0x0F, 0x7F, 0xC1])?;
            // movq mm2, mm2 (0F 6F D2).
            a.db(&[0x0F, 0x6F, 0xD2])
        });
        assert_eq!(m.cpu.fpu.mmx(3), v);
        assert_eq!(m.mem.read_u64(DATA + 0x100).unwrap(), v);
        assert_eq!(m.cpu.fpu.mmx(4), v);
        assert_eq!(m.cpu.fpu.mmx(1), v);
        assert_eq!(m.cpu.fpu.mmx(2), 6);
        assert_eq!(m.cpu.fpu.mmx(0), v);
    }

    #[test]
    fn x87_state_aliasing() {
        // A write to an MMX register: TOP = 0, all tags valid; EMMS: all empty.
        let mut m = program(&[], |a| {
            a.movq(mm5, qword_ptr(DATA))?;
            a.mov(eax, EXIT)?;
            a.jmp(eax)
        });
        m.cpu.fpu.top = 3;
        m.cpu.fpu.tags = 0xFFFF;
        assert_eq!(m.run(100), StopReason::Thunk(EXIT));
        assert_eq!((m.cpu.fpu.top, m.cpu.fpu.tags), (0, 0));
        assert_eq!(m.cpu.fpu.status() & 0x3800, 0);

        // EMMS: all tags empty and TOP 0 (SDM vol. 1 table 9-2).
        let mut m2 = program(&[], |a| a.emms());
        m2.cpu.fpu.top = 6;
        m2.cpu.fpu.tags = 0;
        assert_eq!(m2.run(100), StopReason::Thunk(EXIT));
        assert_eq!((m2.cpu.fpu.top, m2.cpu.fpu.tags), (0, 0xFFFF));
        let m3 = run(&[7], |a| a.emms());
        assert_eq!(m3.cpu.fpu.tags, 0xFFFF);
        assert_eq!(m3.cpu.fpu.mmx(0), 7);

        // Instructions that write no MMX register enter MMX state too.
        for k in 0..3 {
            let mut m = program(&[], |a| {
                match k {
                    0 => a.movd(eax, mm1)?,
                    1 => a.movd(dword_ptr(DATA), mm1)?,
                    _ => a.movq(qword_ptr(DATA), mm1)?,
                }
                a.mov(eax, EXIT)?;
                a.jmp(eax)
            });
            m.cpu.fpu.top = 5;
            m.cpu.fpu.tags = 0xFFFF;
            assert_eq!(m.run(100), StopReason::Thunk(EXIT));
            assert_eq!((m.cpu.fpu.top, m.cpu.fpu.tags), (0, 0), "form {k}");
        }
    }

    #[test]
    fn faulting_store_changes_nothing() {
        for k in 0..2 {
            let mut m = program(&[], |a| {
                if k == 0 {
                    a.movq(qword_ptr(HOLE - 4), mm0)
                } else {
                    a.movd(dword_ptr(HOLE - 2), mm0)
                }
            });
            m.mem.write_u64(HOLE - 8, 0x1122_3344_5566_7788).unwrap();
            m.cpu.fpu.top = 5;
            m.cpu.fpu.tags = 0xFFFF;
            match m.run(100) {
                StopReason::Exception(e) => {
                    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
                    assert_eq!(e.eip, CODE);
                }
                s => panic!("{s:?}"),
            }
            assert_eq!((m.cpu.fpu.top, m.cpu.fpu.tags), (5, 0xFFFF));
            assert_eq!(m.mem.read_u64(HOLE - 8).unwrap(), 0x1122_3344_5566_7788);
        }
    }

    #[test]
    fn faulting_load_changes_nothing() {
        let mut m = program(&[], |a| a.paddb(mm0, qword_ptr(HOLE - 4)));
        m.cpu.fpu.top = 2;
        m.cpu.fpu.tags = 0xFFFF;
        assert!(matches!(m.run(100), StopReason::Exception(_)));
        assert_eq!((m.cpu.fpu.top, m.cpu.fpu.tags), (2, 0xFFFF));
    }

    #[test]
    fn pending_x87_exception_raises_mf() {
        // ZE set in the status word and unmasked (so ES set): #MF first.
        let mut m = program(&[], |a| a.pxor(mm0, mm0));
        m.cpu.fpu.sw = 0x0084;
        m.cpu.fpu.cw = 0x027b;
        m.cpu.fpu.tags = 0xFFFF;
        match m.run(100) {
            StopReason::Exception(e) => assert_eq!(e.kind, ExceptionKind::FloatingPoint),
            s => panic!("{s:?}"),
        }
        assert_eq!(m.cpu.fpu.tags, 0xFFFF);
        // Masked (ES clear): no exception.
        let mut m = program(&[], |a| a.pxor(mm0, mm0));
        m.cpu.fpu.sw = 0x0004;
        assert_eq!(m.run(100), StopReason::Thunk(EXIT));
    }

    /// The whole-register (SWAR) lane arithmetic against plain per-lane arithmetic,
    /// on values built from lane edge cases and random bits.
    #[test]
    fn swar_matches_per_lane_arithmetic() {
        use super::*;
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0x4d4d58);
        let edge = [0x00u8, 0x01, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff];
        let val = |rng: &mut rand::rngs::SmallRng| -> u64 {
            if rng.random_bool(0.5) {
                rng.random()
            } else {
                let mut b = [0u8; 8];
                for (k, x) in b.iter_mut().enumerate() {
                    // Edge bytes; in the top byte of a word/dword lane they give
                    // edge words and dwords too.
                    *x = if k % 2 == 1 || rng.random_bool(0.5) {
                        edge[rng.random_range(0..edge.len())]
                    } else {
                        rng.random()
                    };
                }
                u64::from_le_bytes(b)
            }
        };
        fn m<T: Lane>(c: bool) -> T {
            T::from_bits(if c { u64::MAX } else { 0 })
        }
        for _ in 0..200_000 {
            let (a, b) = (val(&mut rng), val(&mut rng));
            let chk = |name: &str, got: u64, want: u64| {
                assert_eq!(got, want, "{name} {a:#018x} {b:#018x}");
            };
            chk(
                "paddb",
                add_w::<8>(a, b),
                lanes::<u8>(a, b, u8::wrapping_add),
            );
            chk(
                "paddw",
                add_w::<16>(a, b),
                lanes::<u16>(a, b, u16::wrapping_add),
            );
            chk(
                "paddd",
                add_w::<32>(a, b),
                lanes::<u32>(a, b, u32::wrapping_add),
            );
            chk(
                "psubb",
                sub_w::<8>(a, b),
                lanes::<u8>(a, b, u8::wrapping_sub),
            );
            chk(
                "psubw",
                sub_w::<16>(a, b),
                lanes::<u16>(a, b, u16::wrapping_sub),
            );
            chk(
                "psubd",
                sub_w::<32>(a, b),
                lanes::<u32>(a, b, u32::wrapping_sub),
            );
            chk(
                "paddsb",
                add_ss::<8>(a, b),
                lanes::<i8>(a, b, i8::saturating_add),
            );
            chk(
                "paddsw",
                add_ss::<16>(a, b),
                lanes::<i16>(a, b, i16::saturating_add),
            );
            chk(
                "psubsb",
                sub_ss::<8>(a, b),
                lanes::<i8>(a, b, i8::saturating_sub),
            );
            chk(
                "psubsw",
                sub_ss::<16>(a, b),
                lanes::<i16>(a, b, i16::saturating_sub),
            );
            chk(
                "paddusb",
                add_us::<8>(a, b),
                lanes::<u8>(a, b, u8::saturating_add),
            );
            chk(
                "paddusw",
                add_us::<16>(a, b),
                lanes::<u16>(a, b, u16::saturating_add),
            );
            chk(
                "psubusb",
                sub_us::<8>(a, b),
                lanes::<u8>(a, b, u8::saturating_sub),
            );
            chk(
                "psubusw",
                sub_us::<16>(a, b),
                lanes::<u16>(a, b, u16::saturating_sub),
            );
            chk(
                "pcmpeqb",
                cmp_eq::<8>(a, b),
                lanes::<u8>(a, b, |x, y| m(x == y)),
            );
            chk(
                "pcmpeqw",
                cmp_eq::<16>(a, b),
                lanes::<u16>(a, b, |x, y| m(x == y)),
            );
            chk(
                "pcmpeqd",
                cmp_eq::<32>(a, b),
                lanes::<u32>(a, b, |x, y| m(x == y)),
            );
            chk("pcmpeqb=", cmp_eq::<8>(a, a), u64::MAX);
            chk(
                "pcmpgtb",
                cmp_gt::<8>(a, b),
                lanes::<i8>(a, b, |x, y| m(x > y)),
            );
            chk(
                "pcmpgtw",
                cmp_gt::<16>(a, b),
                lanes::<i16>(a, b, |x, y| m(x > y)),
            );
            chk(
                "pcmpgtd",
                cmp_gt::<32>(a, b),
                lanes::<i32>(a, b, |x, y| m(x > y)),
            );
            let c = b & 0x3f;
            let cw = |w: u64| if c >= w { None } else { Some(c as u32) };
            let want = match cw(16) {
                Some(c) => lanes::<u16>(a, 0, |x, _| x << c),
                None => 0,
            };
            chk("psllw", shl_w::<16>(a, c), want);
            let want = match cw(16) {
                Some(c) => lanes::<u16>(a, 0, |x, _| x >> c),
                None => 0,
            };
            chk("psrlw", shr_w::<16>(a, c), want);
            chk(
                "psraw",
                sar_w::<16>(a, c),
                lanes::<i16>(a, 0, |x, _| x >> c.min(15)),
            );
            let want = match cw(32) {
                Some(c) => lanes::<u32>(a, 0, |x, _| x << c),
                None => 0,
            };
            chk("pslld", shl_w::<32>(a, c), want);
            let want = match cw(32) {
                Some(c) => lanes::<u32>(a, 0, |x, _| x >> c),
                None => 0,
            };
            chk("psrld", shr_w::<32>(a, c), want);
            chk(
                "psrad",
                sar_w::<32>(a, c),
                lanes::<i32>(a, 0, |x, _| x >> c.min(31)),
            );
            chk("psllq", shl_w::<64>(a, c), a << c);
            chk("psrlq", shr_w::<64>(a, c), a >> c);
        }
    }

    #[test]
    fn sse_forms_are_not_claimed() {
        // paddb xmm0, xmm1 (66 0F FC C1) must reach the unimplemented handler.
        let mut m = Machine::new();
        m.load(&[0x66, 0x0F, 0xFC, 0xC1]);
        match m.run(100) {
            StopReason::Exception(e) => assert!(matches!(e.kind, ExceptionKind::Unimplemented(_))),
            s => panic!("{s:?}"),
        }
    }
}
