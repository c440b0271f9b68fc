//! The x87 FPU: loads and stores of every format, arithmetic, compares,
//! transcendentals and the control instructions.
//!
//! Registers hold 80-bit values: an f64 where that is the whole value, else the
//! f64 with an exact 80-bit image (`cpu::fpu`). TOP, the tag word, the status word
//! and the control word are exact. Internally the tag of a register is kept as
//! either valid (0) or empty (3); FSTENV/FSAVE compute the full 2-bit tag from the
//! contents, as the hardware does.
//!
//! Arithmetic is the x87's in 80 bits (`soft.rs`): `+ - * /`, FSQRT, FSCALE,
//! FXTRACT, FPREM and FPREM1 compute the exact result (or one with a sticky bit
//! below enough guard bits) of the operands' full values and round it once to the
//! precision control's 24, 53 or 64 bits under the rounding control, with the
//! 15-bit exponent range, the x87's denormal results (the precision's leading bits
//! of the 64-bit significand field), its masked and unmasked overflow and
//! underflow responses (infinity or the largest value by RC; the exponent wrapped
//! by 24576), PE, UE, OE and C1 ("rounded up"). Unsupported encodings (unnormals,
//! pseudo-NaNs, pseudo-infinities) are invalid operands; 80-bit denormals and
//! pseudo-denormals raise DE. The fast path (`arith::fast`) is taken only where it
//! is that arithmetic exactly: PC 53, RC nearest, every exception masked, operands
//! without an image, normal double operands and a normal double result; PE and C1
//! come from the exact rounding error (TwoSum, or a 128-bit significand product).
//! Loads, stores, integer and BCD conversions, compares, FXAM, FRNDINT and the
//! constants (FLDPI ... rounded from their exact values under RC) are exact
//! (`ext.rs`, `ldst.rs`). `tests/diff_x87.rs` checks all of it against the host
//! CPU in every precision and rounding mode.
//!
//! An unmasked exception sets ES and B and is delivered as
//! `ExceptionKind::FloatingPoint` at the next waiting x87 instruction (SDM 8.6);
//! for unmasked IE, DE and ZE the destination and the stack are left unchanged and
//! C1 is cleared (the compares leave C1).
//!
//! Known difference: the transcendentals (F2XM1 FYL2X FYL2XP1 FPTAN FPATAN FSIN
//! FCOS FSINCOS) reduce their argument with the x87's 66-bit pi like the hardware
//! and evaluate in double-double from the operand's nearest double, so results are
//! within an ulp of the hardware's rounded to a double, not its 64-bit result, and
//! C1 is 0 rather than the x87's indication from its internal result.

mod arith;
mod cmp;
mod env;
mod ext;
mod ldst;
mod num;
pub mod soft;
#[cfg(test)]
mod tests;
mod trans;
mod wide;

// The x87 fusion tier (tiers/x87_fuse*.rs) runs the hot forms through the same
// semantic helpers as these handlers.
pub(crate) use arith::{
    ADD, DIV, DIVR, MUL, SUB, SUBR, apply80, f32_bits_to_f64, fast, fast_value,
};
pub(crate) use ldst::m32_fast;
pub(crate) use num::is_snan;
pub(crate) use soft::F80;

use crate::cpu::ExceptionKind;
use crate::cpu::fpu::{Fpu, phys};
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, raise};
use iced_x86::{Code, EncodingKind, Instruction, OpCodeTableKind, OpKind, Register};

// ---- status word bits ---------------------------------------------------------------

pub const IE: u16 = 0x0001;
pub const DE: u16 = 0x0002;
pub const ZE: u16 = 0x0004;
pub const OE: u16 = 0x0008;
pub const UE: u16 = 0x0010;
pub const PE: u16 = 0x0020;
pub const SF: u16 = 0x0040;
pub const ES: u16 = 0x0080;
pub const C0: u16 = 0x0100;
pub const C1: u16 = 0x0200;
pub const C2: u16 = 0x0400;
pub const C3: u16 = 0x4000;
pub const B: u16 = 0x8000;
/// The four condition code bits.
pub const CC: u16 = C0 | C1 | C2 | C3;

/// The x87 "real indefinite" QNaN as an f64.
pub const INDEFINITE: f64 = f64::from_bits(0xfff8_0000_0000_0000);

/// Rounding control values (control word bits 10-11).
pub const RC_NEAREST: u16 = 0;
pub const RC_DOWN: u16 = 1;
pub const RC_UP: u16 = 2;
pub const RC_CHOP: u16 = 3;

/// Control word bits that must have these values for the arithmetic fast paths:
/// PC = 53 bits, RC = nearest, all six exceptions masked.
const FAST_MASK: u16 = 0x0f3f;
const FAST_CW: u16 = 0x023f;

impl Fpu {
    /// Physical index of ST(i).
    #[inline(always)]
    pub fn pk(&self, i: u8) -> usize {
        phys(self.top, i)
    }

    #[inline(always)]
    pub fn is_empty(&self, k: usize) -> bool {
        (self.tags >> (2 * (k & 7))) & 3 == 3
    }

    /// Value of ST(i) (whatever the tag).
    #[inline(always)]
    pub fn sti(&self, i: u8) -> f64 {
        self.st[self.pk(i)]
    }

    /// Writes physical register `k` and tags it non-empty. Every register write but
    /// the exact data movement goes through here, which drops the register's image
    /// (see `cpu::fpu`): `v` is then the whole value.
    #[inline(always)]
    pub fn put(&mut self, k: usize, v: f64) {
        let k = k & 7;
        self.st[k] = v;
        self.tags &= !(3 << (2 * k));
        self.raw &= !(1 << k);
    }

    /// Marks ST(0) empty and increments TOP.
    #[inline(always)]
    pub fn pop(&mut self) {
        self.tags |= 3 << (2 * (self.top & 7));
        self.top = (self.top + 1) & 7;
    }

    /// Whether the arithmetic fast paths apply (PC 53, RC nearest, all masked).
    #[inline(always)]
    pub fn fast_cw(&self) -> bool {
        self.cw & FAST_MASK == FAST_CW
    }

    #[inline(always)]
    pub fn rc(&self) -> u16 {
        (self.cw >> 10) & 3
    }

    #[inline(always)]
    pub fn set_c1(&mut self, c1: bool) {
        self.sw = (self.sw & !C1) | if c1 { C1 } else { 0 };
    }

    /// Sets C3 C2 C1 C0 from a 4-bit pattern (bit 0 = C0, 1 = C1, 2 = C2, 3 = C3).
    #[inline(always)]
    pub fn set_cc(&mut self, c: u16) {
        let bits = (c & 1) << 8 | (c & 2) << 8 | (c & 4) << 8 | (c & 8) << 11;
        self.sw = (self.sw & !CC) | bits;
    }

    /// Records exception flags. Returns true when one of them is unmasked and
    /// suppresses the result (IE/SF, DE, ZE); OE, UE and PE never suppress.
    #[inline(always)]
    pub fn exc(&mut self, flags: u16) -> bool {
        if flags == 0 {
            return false;
        }
        self.exc_slow(flags)
    }

    #[inline(never)]
    fn exc_slow(&mut self, flags: u16) -> bool {
        self.sw |= flags;
        let unmasked = flags & !self.cw & 0x3f;
        if unmasked != 0 {
            self.sw |= ES | B;
        }
        unmasked & (IE | DE | ZE) != 0
    }

    /// [`Fpu::exc`] for an operation that, stopped by an unmasked exception,
    /// clears C1 (arithmetic, loads, FRNDINT, FXTRACT: the host does; the compares
    /// leave it).
    #[inline(always)]
    pub fn exc_c1(&mut self, flags: u16) -> bool {
        let stop = self.exc(flags);
        if stop {
            self.sw &= !C1;
        }
        stop
    }

    /// Stack underflow: IE|SF with C1 = 0. Returns true when unmasked (suppress).
    #[cold]
    pub fn underflow(&mut self) -> bool {
        self.set_c1(false);
        self.exc(IE | SF)
    }

    /// Stack overflow: IE|SF with C1 = 1. Returns true when unmasked (suppress).
    #[cold]
    pub fn overflow(&mut self) -> bool {
        self.set_c1(true);
        self.exc(IE | SF)
    }

    /// Pushes a value: on overflow (ST(7) not empty) the masked response pushes the
    /// indefinite; unmasked nothing changes. Sets C1 as FLD does.
    #[inline(always)]
    pub fn push(&mut self, v: f64) {
        let k = (self.top.wrapping_sub(1)) & 7;
        if !self.is_empty(k as usize) {
            if self.overflow() {
                return;
            }
            self.top = k;
            self.put(k as usize, INDEFINITE);
            return;
        }
        self.sw &= !C1;
        self.top = k;
        self.put(k as usize, v);
    }

    /// Whether ST(7) is free for a push (no stack overflow).
    #[inline(always)]
    pub fn can_push(&self) -> bool {
        self.is_empty(self.pk(7))
    }

    /// Whether an unmasked exception is pending (ES): the next waiting x87
    /// instruction (and WAIT/FWAIT) must raise `ExceptionKind::FloatingPoint`.
    #[inline(always)]
    pub fn exception_pending(&self) -> bool {
        self.sw & ES != 0
    }

    /// FNINIT.
    pub fn init(&mut self) {
        self.cw = 0x037f;
        self.sw = 0;
        self.top = 0;
        self.tags = 0xffff;
        self.fip = 0;
        self.fcs = 0;
        self.fop = 0;
        self.fdp = 0;
        self.fds = 0;
    }
}

/// Guest load of N bytes, kept out of line: `GuestMemory`'s slow path returns its
/// result through a stack slot, and a handler holding such a slot cannot
/// tail-call the next op. Returns (value, 0) or (0, encoded fault).
#[inline(never)]
fn load_raw<const N: u32>(mem: &crate::mem::GuestMemory, ea: u32) -> (u64, u64) {
    let r = match N {
        2 => mem.read_u16(ea).map(u64::from),
        4 => mem.read_u32(ea).map(u64::from),
        _ => mem.read_u64(ea),
    };
    match r {
        Ok(v) => (v, 0),
        Err(f) => (0, 1 << 63 | (f.guard as u64) << 32 | f.addr as u64),
    }
}

/// Guest load of N (2, 4 or 8) bytes for the x87 handlers.
#[inline(always)]
pub fn load<const N: u32>(cpu: &Cpu, ea: u32) -> Result<u64, crate::mem::Fault> {
    let (v, f) = load_raw::<N>(&cpu.mem, ea);
    if f == 0 {
        Ok(v)
    } else {
        Err(crate::mem::Fault {
            addr: f as u32,
            access: crate::mem::Access::Read,
            guard: (f >> 32) & 1 != 0,
        })
    }
}

#[inline(always)]
pub fn load64(cpu: &Cpu, ea: u32) -> Result<u64, crate::mem::Fault> {
    load::<8>(cpu, ea)
}

#[inline(always)]
pub fn load32(cpu: &Cpu, ea: u32) -> Result<u32, crate::mem::Fault> {
    load::<4>(cpu, ea).map(|v| v as u32)
}

#[inline(always)]
pub fn load16(cpu: &Cpu, ea: u32) -> Result<u16, crate::mem::Fault> {
    load::<2>(cpu, ea).map(|v| v as u16)
}

/// Raises the pending x87 exception at a waiting instruction.
#[cold]
#[inline(never)]
pub fn pending_fault(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::FloatingPoint)
}

/// Start of every waiting non-control instruction: deliver a pending unmasked
/// exception, record the instruction pointer and opcode.
macro_rules! wait {
    ($cpu:expr, $ops:expr, $i:expr) => {
        if $cpu.fpu.sw & $crate::ops::x87::ES != 0 {
            return $crate::ops::x87::pending_fault($cpu, $ops, $i);
        }
        $cpu.fpu.fip = $ops[$i].eip;
        $cpu.fpu.fop = $ops[$i].imm2 as u16;
    };
}
pub(crate) use wait;

/// Waiting control instruction (FINIT, FCLEX, FSTCW, ...; the WAIT prefix): only the
/// pending-exception check.
macro_rules! wait_only {
    ($cpu:expr, $ops:expr, $i:expr) => {
        if $cpu.fpu.sw & $crate::ops::x87::ES != 0 {
            return $crate::ops::x87::pending_fault($cpu, $ops, $i);
        }
    };
}
pub(crate) use wait_only;

// ---- lowering -----------------------------------------------------------------------

/// Index of ST(i) in register operand `n`.
fn st_index(ins: &Instruction, n: u32) -> u8 {
    let r = ins.op_register(n);
    (r as u32).wrapping_sub(Register::ST0 as u32) as u8 & 7
}

/// The FOP field (low 11 bits of the opcode) of an x87 instruction, assuming the
/// canonical encoding of its memory operand.
fn fop(ins: &Instruction) -> u32 {
    let oc = ins.op_code();
    let first = (oc.op_code() >> if oc.op_code_len() == 2 { 8 } else { 0 }) & 7;
    let has_mem = (0..ins.op_count()).any(|k| ins.op_kind(k) == OpKind::Memory);
    let modrm = if has_mem {
        let reg = (oc.group_index().max(0) as u32) & 7;
        let base = ins.memory_base();
        let index = ins.memory_index();
        let disp = ins.memory_displacement32() as i32;
        let (md, rm) = if base == Register::None && index == Register::None {
            (0, 5)
        } else {
            let rm = if index != Register::None || base == Register::ESP || base == Register::None {
                4
            } else {
                base.number() as u32 & 7
            };
            let md = if base == Register::None || (disp == 0 && base != Register::EBP) {
                0
            } else if (-128..128).contains(&disp) {
                1
            } else {
                2
            };
            (md, rm)
        };
        md << 6 | reg << 3 | rm
    } else if oc.op_code_len() == 2 {
        (oc.op_code() & 0xff)
            | if ins.op_count() > 0 && ins.op_kind(0) == OpKind::Register {
                // ST(i) forms: C0+i etc.; the iced opcode carries the i=0 byte.
                let n = if ins.op_count() == 2 && ins.op_register(0) == Register::ST0 {
                    1
                } else {
                    0
                };
                st_index(ins, n) as u32
            } else {
                0
            }
    } else {
        0
    };
    (first << 8) | modrm
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    if !is_x87(ins) {
        return None;
    }
    o.imm2 = fop(ins);
    o.code = ins.code() as u16;
    ldst::lower(ins, o)
        .or_else(|| arith::lower(ins, o))
        .or_else(|| cmp::lower(ins, o))
        .or_else(|| trans::lower(ins, o))
        .or_else(|| env::lower(ins, o))
}

/// Whether the instruction is an x87 one: a legacy D8-DF opcode (with or without
/// the WAIT prefix folded in by the decoder).
fn is_x87(ins: &Instruction) -> bool {
    let oc = ins.op_code();
    if oc.encoding() != EncodingKind::Legacy || oc.table() != OpCodeTableKind::Normal {
        return false;
    }
    let first = if oc.op_code_len() == 2 {
        oc.op_code() >> 8
    } else {
        oc.op_code()
    };
    (0xd8..=0xdf).contains(&first)
}

/// Register index operand for a two-register form: ST(i) is op 1 for `st0, sti` and
/// op 0 for `sti, st0`/`sti`.
fn sti_of(ins: &Instruction) -> u8 {
    match ins.op_count() {
        0 => 1,
        1 => st_index(ins, 0),
        _ => {
            if dest_is_sti(ins.code()) {
                st_index(ins, 0)
            } else {
                st_index(ins, 1)
            }
        }
    }
}

fn dest_is_sti(c: Code) -> bool {
    use Code::*;
    matches!(
        c,
        Fadd_sti_st0
            | Fmul_sti_st0
            | Fsub_sti_st0
            | Fsubr_sti_st0
            | Fdiv_sti_st0
            | Fdivr_sti_st0
            | Faddp_sti_st0
            | Fmulp_sti_st0
            | Fsubp_sti_st0
            | Fsubrp_sti_st0
            | Fdivp_sti_st0
            | Fdivrp_sti_st0
    )
}
