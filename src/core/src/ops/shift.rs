//! Shifts and rotates: ROL ROR RCL RCR SHL/SAL SHR SAR (by 1, CL or imm8) and the
//! double shifts SHLD/SHRD (by imm8 or CL), register and memory destinations.
//!
//! The count is masked to 5 bits; a masked count of 0 changes neither the operand
//! nor the flags (the lazy flag state is left as it is). RCL/RCR rotate through
//! CF over 9 or 17 bits for 8- and 16-bit operands. Flags are computed eagerly.
//!
//! Undefined flags follow the AMD Zen host this was measured on:
//! - SHL/SHR/SAR/SHLD/SHRD set AF to 1;
//! - OF for any nonzero count is `MSB(res) ^ CF` for the left forms (ROL, RCL, SHL,
//!   SHLD) and `MSB(res) ^ MSB-1(res)` for the right forms (ROR, RCR, SHR, SAR, SHRD);
//! - CF for a count past the width is the bit that a wide shift would move out (0
//!   for SHL/SHR, the sign for SAR);
//! - a 16-bit SHLD/SHRD count of 17..31 shifts the 48-bit `dest:src:dest`.
//!
//! Memory destinations load, compute, store and only then commit the flags, so a
//! faulting store leaves everything unchanged. With a count of 0 the host still
//! needs the operand writable, so the memory forms probe for write access.

use super::reg_op;
use crate::by_size;
use crate::cpu::flags::{AF, CF, OF, ZF, mask};
use crate::cpu::{Cpu, ECX, Exit, LazyFlags};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mtry;
use iced_x86::{Instruction, Mnemonic, OpKind};

pub const ROL: u8 = 0;
pub const ROR: u8 = 1;
pub const RCL: u8 = 2;
pub const RCR: u8 = 3;
pub const SHL: u8 = 4;
pub const SHR: u8 = 5;
pub const SAR: u8 = 7;

/// PF bit (0x04) for each low byte of a result.
static PF_TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut k = 0;
    while k < 256 {
        if (k as u32).count_ones() & 1 == 0 {
            t[k] = 0x04;
        }
        k += 1;
    }
    t
};

/// SF, ZF and PF of a result of width S (already truncated), as EFLAGS bits.
#[inline(always)]
pub(crate) fn szp<const S: u32>(res: u32) -> u32 {
    let sf = (res >> (S - 8)) & 0x80;
    let zf = ((res == 0) as u32) * ZF;
    sf | zf | PF_TABLE[(res & 0xff) as usize] as u32
}

/// Bit `S - 1` of `v`.
#[inline(always)]
fn msb<const S: u32>(v: u32) -> u32 {
    (v >> (S - 1)) & 1
}

/// Result and new arithmetic flags of shift/rotate OP at width S. `v` is truncated
/// to S bits; `c` is the masked count, 1..=31.
#[inline(always)]
fn shift<const OP: u8, const S: u32>(f: &LazyFlags, v: u32, c: u32) -> (u32, u32) {
    let m = mask(S);
    match OP {
        SHL => {
            let wide = (v as u64) << c;
            let r = wide as u32 & m;
            let cf = ((wide >> S) & 1) as u32;
            let of = msb::<S>(r) ^ cf;
            (r, szp::<S>(r) | cf | AF | of << 11)
        }
        SHR => {
            let r = v >> c;
            let cf = (v >> (c - 1)) & 1;
            let of = msb::<S>(r) ^ ((r >> (S - 2)) & 1);
            (r, szp::<S>(r) | cf | AF | of << 11)
        }
        SAR => {
            let sv = ((v << (32 - S)) as i32) >> (32 - S);
            let r = (sv >> c) as u32 & m;
            let cf = ((sv >> (c - 1)) & 1) as u32;
            // The top two result bits are both copies of the sign: OF = 0.
            (r, szp::<S>(r) | cf | AF)
        }
        ROL | ROR => {
            let n = c & (S - 1);
            let r = if OP == ROL {
                ((v << n) | (v >> ((S - n) & 31))) & m
            } else {
                ((v >> n) | (v << ((S - n) & 31))) & m
            };
            // For n = 0 both halves above are v itself (the `& 31` makes the
            // 32-bit case shift by 0), so r = v.
            let (cf, of) = if OP == ROL {
                let cf = r & 1;
                (cf, msb::<S>(r) ^ cf)
            } else {
                (msb::<S>(r), msb::<S>(r) ^ ((r >> (S - 2)) & 1))
            };
            (r, (f.bits() & !(CF | OF)) | cf | of << 11)
        }
        _ => {
            // RCL/RCR over the S+1 bits CF:v.
            let n = (c % (S + 1)) as u64;
            let x = ((f.cf() as u64) << S) | v as u64;
            let mx = (1u64 << (S + 1)) - 1;
            let y = if OP == RCL {
                ((x << n) | (x >> (S as u64 + 1 - n))) & mx
            } else {
                ((x >> n) | (x << (S as u64 + 1 - n))) & mx
            };
            let r = y as u32 & m;
            let cf = (y >> S) as u32 & 1;
            let of = if OP == RCL {
                msb::<S>(r) ^ cf
            } else {
                msb::<S>(r) ^ ((r >> (S - 2)) & 1)
            };
            (r, (f.bits() & !(CF | OF)) | cf | of << 11)
        }
    }
}

fn nop(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    next(cpu, ops, i)
}

/// Register destination, count in `imm` (masked at decode time, nonzero).
fn sh_ri<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = cpu.reg(S, o.r);
    let (r, fl) = shift::<OP, S>(&cpu.flags, v, o.imm);
    cpu.set_reg(S, o.r, r);
    cpu.flags.set_eager(fl);
    next(cpu, ops, i)
}

/// Register destination, count in CL.
fn sh_rc<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let c = cpu.regs[ECX] & 31;
    if c == 0 {
        return next(cpu, ops, i);
    }
    let v = cpu.reg(S, o.r);
    let (r, fl) = shift::<OP, S>(&cpu.flags, v, c);
    cpu.set_reg(S, o.r, r);
    cpu.flags.set_eager(fl);
    next(cpu, ops, i)
}

#[inline(always)]
fn sh_m<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, c: u32) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let v = mtry!(cpu, ops, i, cpu.load(S, ea));
    if c == 0 {
        mtry!(cpu, ops, i, cpu.mem.probe_write(ea, S / 8));
        return next(cpu, ops, i);
    }
    let (r, fl) = shift::<OP, S>(&cpu.flags, v, c);
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, r));
    cpu.flags.set_eager(fl);
    after_store(cpu, ops, i, w)
}

fn sh_mi<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    sh_m::<OP, S>(cpu, ops, i, ops[i].imm)
}

fn sh_mc<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let c = cpu.regs[ECX] & 31;
    sh_m::<OP, S>(cpu, ops, i, c)
}

// ---- SHLD / SHRD ----------------------------------------------------------------------

/// SHLD (LEFT) or SHRD of `d` by `c` (1..=31) with bits from `s`, at width S (16/32).
#[inline(always)]
fn dshift<const LEFT: bool, const S: u32>(d: u32, s: u32, c: u32) -> (u32, u32) {
    let (r, cf) = if S == 32 {
        if LEFT {
            let x = ((d as u64) << 32) | s as u64;
            ((x << c >> 32) as u32, (d >> (32 - c)) & 1)
        } else {
            let x = ((s as u64) << 32) | d as u64;
            ((x >> c) as u32, (d >> (c - 1)) & 1)
        }
    } else {
        // 48 bits dest:src:dest; counts above 16 reach the second copy of dest.
        let x = ((d as u64) << 32) | ((s as u64) << 16) | d as u64;
        if LEFT {
            ((x >> (32 - c)) as u32 & 0xffff, ((x >> (48 - c)) & 1) as u32)
        } else {
            ((x >> c) as u32 & 0xffff, ((x >> (c - 1)) & 1) as u32)
        }
    };
    let of = if LEFT {
        msb::<S>(r) ^ cf
    } else {
        msb::<S>(r) ^ ((r >> (S - 2)) & 1)
    };
    (r, szp::<S>(r) | cf | AF | of << 11)
}

/// Register destination `r`, source register `rm`; count in `imm` or CL.
fn shd_r<const LEFT: bool, const CL: bool, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let o = &ops[i];
    let c = if CL { cpu.regs[ECX] & 31 } else { o.imm };
    if c == 0 {
        return next(cpu, ops, i);
    }
    let (r, fl) = dshift::<LEFT, S>(cpu.reg(S, o.r), cpu.reg(S, o.rm), c);
    cpu.set_reg(S, o.r, r);
    cpu.flags.set_eager(fl);
    next(cpu, ops, i)
}

/// Memory destination, source register `rm`; count in `imm` or CL.
fn shd_m<const LEFT: bool, const CL: bool, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let o = &ops[i];
    let c = if CL { cpu.regs[ECX] & 31 } else { o.imm };
    let ea = cpu.ea(o);
    let v = mtry!(cpu, ops, i, cpu.load(S, ea));
    if c == 0 {
        mtry!(cpu, ops, i, cpu.mem.probe_write(ea, S / 8));
        return next(cpu, ops, i);
    }
    let (r, fl) = dshift::<LEFT, S>(v, cpu.reg(S, o.rm), c);
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, r));
    cpu.flags.set_eager(fl);
    after_store(cpu, ops, i, w)
}

// ---- lowering ---------------------------------------------------------------------------

macro_rules! shift_pick {
    ($op:expr, $size:expr, $f:ident) => {
        match $op {
            ROL => by_size!($size, $f::<ROL>),
            ROR => by_size!($size, $f::<ROR>),
            RCL => by_size!($size, $f::<RCL>),
            RCR => by_size!($size, $f::<RCR>),
            SHL => by_size!($size, $f::<SHL>),
            SHR => by_size!($size, $f::<SHR>),
            _ => by_size!($size, $f::<SAR>),
        }
    };
}

/// Picks a 16- or 32-bit SHLD/SHRD handler.
macro_rules! dshift_pick {
    ($left:expr, $cl:expr, $size:expr, $f:ident) => {
        match ($left, $cl, $size) {
            (true, true, 16) => $f::<true, true, 16> as Handler,
            (true, false, 16) => $f::<true, false, 16> as Handler,
            (false, true, 16) => $f::<false, true, 16> as Handler,
            (false, false, 16) => $f::<false, false, 16> as Handler,
            (true, true, _) => $f::<true, true, 32> as Handler,
            (true, false, _) => $f::<true, false, 32> as Handler,
            (false, true, _) => $f::<false, true, 32> as Handler,
            (false, false, _) => $f::<false, false, 32> as Handler,
        }
    };
}

/// Whether operand `n` is the CL register.
fn is_cl(ins: &Instruction, n: u32) -> bool {
    ins.op_kind(n) == OpKind::Register && ins.op_register(n) == iced_x86::Register::CL
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let sh = match ins.mnemonic() {
        Mnemonic::Rol => ROL,
        Mnemonic::Ror => ROR,
        Mnemonic::Rcl => RCL,
        Mnemonic::Rcr => RCR,
        Mnemonic::Shl | Mnemonic::Sal => SHL,
        Mnemonic::Shr => SHR,
        Mnemonic::Sar => SAR,
        Mnemonic::Shld | Mnemonic::Shrd => return lower_double(ins, o),
        _ => return None,
    };
    if ins.op_count() != 2 {
        return None;
    }
    let sz = super::alu::op0_size(ins);
    let cl = is_cl(ins, 1);
    if !cl {
        if !super::is_imm(ins, 1) {
            return None;
        }
        o.imm = ins.immediate(1) as u32 & 31;
    }
    Some(match (ins.op_kind(0), cl) {
        (OpKind::Register, _) => {
            o.r = reg_op(ins, 0)?;
            if cl {
                shift_pick!(sh, sz, sh_rc)
            } else if o.imm == 0 {
                nop
            } else {
                shift_pick!(sh, sz, sh_ri)
            }
        }
        (OpKind::Memory, true) => shift_pick!(sh, sz, sh_mc),
        (OpKind::Memory, false) => shift_pick!(sh, sz, sh_mi),
        _ => return None,
    })
}

fn lower_double(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    if ins.op_count() != 3 {
        return None;
    }
    let left = ins.mnemonic() == Mnemonic::Shld;
    let sz = super::alu::op0_size(ins);
    if sz != 16 && sz != 32 {
        return None;
    }
    o.rm = reg_op(ins, 1)?;
    let cl = is_cl(ins, 2);
    if !cl {
        if !super::is_imm(ins, 2) {
            return None;
        }
        o.imm = ins.immediate(2) as u32 & 31;
    }
    Some(match ins.op_kind(0) {
        OpKind::Register => {
            o.r = reg_op(ins, 0)?;
            dshift_pick!(left, cl, sz, shd_r)
        }
        OpKind::Memory => dshift_pick!(left, cl, sz, shd_m),
        _ => return None,
    })
}
