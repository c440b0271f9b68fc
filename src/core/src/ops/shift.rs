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
//! - a 16-bit SHLD/SHRD count of 17..31 shifts `dest:src:src` / `src:src:dest`
//!   with CF = 0 (see [`dshift`]).
//!
//! Memory destinations load, compute, store and only then commit the flags, so a
//! faulting store leaves everything unchanged. As on the host, any fault on the
//! destination is reported as a write, and with a count of 0 the operand must
//! still be writable (the memory forms probe for write access).

use super::reg_op;
use crate::by_size;
use crate::cpu::flags::{AF, CF, OF, ZF, mask};
use crate::cpu::{Cpu, ECX, Exit, LazyFlags};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mem::{Access, Fault};
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

/// Loads the destination of a read-modify-write. The host reads it with write
/// intent, so a fault on that read is reported as a write fault.
#[inline(always)]
fn load_rmw<const S: u32>(cpu: &Cpu, ea: u32) -> Result<u32, Fault> {
    cpu.load(S, ea).map_err(|f| Fault {
        access: Access::Write,
        ..f
    })
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

/// `shl r32, c` (c already masked, nonzero) as the handler runs it: for the loop
/// folds, which execute body steps with the handlers' semantics.
pub(crate) fn shl_r32(cpu: &mut Cpu, r: u8, c: u32) {
    let v = cpu.reg(32, r);
    let (res, fl) = shift::<SHL, 32>(&cpu.flags, v, c);
    cpu.set_reg(32, r, res);
    cpu.flags.set_eager(fl);
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
    let v = mtry!(cpu, ops, i, load_rmw::<S>(cpu, ea));
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
    } else if LEFT {
        // The host shifts dest:src:src (48 bits); counts above 16 move bits of src
        // in twice and give CF = 0.
        let x = ((d as u64) << 32) | ((s as u64) << 16) | s as u64;
        let r = (x >> (32 - c)) as u32 & 0xffff;
        let cf = if c <= 16 { (d >> (16 - c)) & 1 } else { 0 };
        // OF: MSB(res) ^ CF up to 15; the host gives CF at 16 and 0 above.
        let of = match c {
            0..16 => msb::<16>(r) ^ cf,
            16 => cf,
            _ => 0,
        };
        return (r, szp::<16>(r) | cf | AF | of << 11);
    } else {
        // src:src:dest shifted right.
        let x = ((s as u64) << 32) | ((s as u64) << 16) | d as u64;
        let r = (x >> c) as u32 & 0xffff;
        let cf = if c <= 16 {
            ((x >> (c - 1)) & 1) as u32
        } else {
            0
        };
        (r, cf)
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
    let v = mtry!(cpu, ops, i, load_rmw::<S>(cpu, ea));
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

/// Result and eager flag bits of ROL ROR RCL RCR SHL SHR SAR (`op`, one of the
/// constants above) of the `size`-bit value `v` by the masked count `c` (1..=31),
/// exactly as the handlers compute them: the micro-op tier records its shifts
/// through this, so its flag records are the interpreter's.
pub(crate) fn shift_eager(op: u8, size: u32, f: &LazyFlags, v: u32, c: u32) -> (u32, u32) {
    macro_rules! at {
        ($o:ident) => {
            match size {
                8 => shift::<$o, 8>(f, v, c),
                16 => shift::<$o, 16>(f, v, c),
                _ => shift::<$o, 32>(f, v, c),
            }
        };
    }
    match op {
        ROL => at!(ROL),
        ROR => at!(ROR),
        RCL => at!(RCL),
        RCR => at!(RCR),
        SHL => at!(SHL),
        SHR => at!(SHR),
        _ => at!(SAR),
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are from the SDM and from runs on the AMD Zen host (noted
    //! where a flag is undefined).
    use crate::cpu::flags::{AF, ARITH, CF, OF, PF, SF, ZF};
    use crate::cpu::{EAX, ECX, EDX};
    use crate::harness::{CODE, DATA, EXIT, Machine, assemble};
    use crate::mem::{Access, Prot};
    use crate::{ExceptionKind, StopReason};
    use iced_x86::IcedError;
    use iced_x86::code_asm::*;

    /// Runs `f` (then a jump to EXIT) with the given registers and EFLAGS.
    fn run(
        regs: &[(usize, u32)],
        eflags: u32,
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) -> (Machine, StopReason) {
        let code = assemble(|a| {
            f(a)?;
            a.jmp(EXIT as u64)
        });
        let mut m = Machine::new();
        m.load(&code);
        for &(r, v) in regs {
            m.cpu.regs[r] = v;
        }
        m.cpu.set_eflags(eflags);
        let st = m.run(1000);
        (m, st)
    }

    fn ok(
        regs: &[(usize, u32)],
        eflags: u32,
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) -> Machine {
        let (m, st) = run(regs, eflags, f);
        assert_eq!(st, StopReason::Thunk(EXIT));
        m
    }

    fn fl(m: &Machine) -> u32 {
        m.cpu.eflags() & ARITH
    }

    #[test]
    fn shl_by_one_sets_cf_of() {
        // 0x80000001 << 1 = 2: CF = old MSB, OF = MSB(res) ^ CF = 1; AF = 1 (host).
        let m = ok(&[(EAX, 0x8000_0001)], 0, |a| a.shl(eax, 1));
        assert_eq!(m.cpu.regs[EAX], 2);
        assert_eq!(fl(&m), CF | OF | AF);
    }

    #[test]
    fn count_zero_changes_nothing() {
        // Flags from a SUB (lazy) must survive shifts and rotates by 0, by CL = 0
        // and by CL = 32 (masked to 0).
        let m = ok(&[(EAX, 0x8000_0001), (EDX, 5)], 0, |a| {
            a.cmp(edx, 6)?; // 5 - 6: CF SF AF PF set
            a.shl(eax, 0)?;
            a.rcl(eax, cl)?;
            a.mov(cl, 32)?;
            a.shr(eax, cl)?;
            a.rol(ax, cl)?;
            a.shld(eax, edx, cl)?;
            a.shrd(eax, edx, 0)
        });
        assert_eq!(m.cpu.regs[EAX], 0x8000_0001);
        assert_eq!(fl(&m), CF | SF | AF | PF);
    }

    #[test]
    fn count_31_and_masking() {
        // SHR 0xC0000000 by 31: result 1, CF = bit 30 = 1.
        let m = ok(&[(EAX, 0xc000_0000)], 0, |a| a.shr(eax, 31));
        assert_eq!(m.cpu.regs[EAX], 1);
        assert_eq!(fl(&m) & (CF | ZF | SF), CF);
        // SHL 3 by 31 (CL = 63 masks to 31): 0x80000000, CF = bit 1 = 1, SF = 1.
        let m = ok(&[(EAX, 3), (ECX, 63)], 0, |a| a.shl(eax, cl));
        assert_eq!(m.cpu.regs[EAX], 0x8000_0000);
        assert_eq!(fl(&m) & (CF | ZF | SF | PF), CF | SF | PF);
    }

    #[test]
    fn sar_and_byte_widths() {
        // SAR AL by 8 (count >= width): all sign bits, CF = sign (host).
        let m = ok(&[(EAX, 0x1234_5680)], 0, |a| a.sar(al, 8));
        assert_eq!(m.cpu.regs[EAX], 0x1234_56ff);
        assert_eq!(fl(&m), CF | SF | PF | AF);
        // SHR AH by 4: 0xab -> 0x0a, CF = bit 3 = 1; only AH changes.
        let m = ok(&[(EAX, 0x1234_ab00)], 0, |a| a.shr(ah, 4));
        assert_eq!(m.cpu.regs[EAX], 0x1234_0a00);
        assert_eq!(fl(&m), CF | PF | AF);
        // SAR on 16 bits keeps the upper half of the register.
        let m = ok(&[(EAX, 0xdead_8000)], 0, |a| a.sar(ax, 15));
        assert_eq!(m.cpu.regs[EAX], 0xdead_ffff);
    }

    #[test]
    fn rotates_touch_only_cf_of() {
        // ROL AL by 8: value unchanged, CF = LSB; ZF from the earlier XOR kept.
        let m = ok(&[(EAX, 0x81), (EDX, 0)], 0, |a| {
            a.xor(edx, edx)?; // ZF PF
            a.rol(al, 8)
        });
        assert_eq!(m.cpu.regs[EAX], 0x81);
        assert_eq!(fl(&m), ZF | PF | CF);
        // ROR EAX by 4.
        let m = ok(&[(EAX, 0x1234_5678)], 0, |a| a.ror(eax, 4));
        assert_eq!(m.cpu.regs[EAX], 0x8123_4567);
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
    }

    #[test]
    fn rcl_rcr_through_carry() {
        // STC; RCL AL,1 with AL = 0x80: AL = 0x01 (old CF in), CF = 1, OF = 1.
        let m = ok(&[(EAX, 0x80)], CF, |a| a.rcl(al, 1));
        assert_eq!(m.cpu.regs[EAX], 0x01);
        assert_eq!(fl(&m), CF | OF);
        // RCL AL by 9 rotates the 9 bits CF:AL all the way round: no change.
        let m = ok(&[(EAX, 0x80), (ECX, 9)], CF, |a| a.rcl(al, cl));
        assert_eq!(m.cpu.regs[EAX], 0x80);
        assert!(m.cpu.flags.cf());
        // RCL AX by 17 likewise.
        let m = ok(&[(EAX, 0x1234), (ECX, 17)], 0, |a| a.rcl(ax, cl));
        assert_eq!(m.cpu.regs[EAX], 0x1234);
        assert!(!m.cpu.flags.cf());
        // RCR AL,1 with CF = 1: 0x01 -> 0x80, CF = 1, OF = MSB ^ MSB-1 = 1.
        let m = ok(&[(EAX, 0x01)], CF, |a| a.rcr(al, 1));
        assert_eq!(m.cpu.regs[EAX], 0x80);
        assert_eq!(fl(&m), CF | OF);
        // RCL EAX by 31 with CF = 1 and EAX = 0: CF lands in bit 30.
        let m = ok(&[(EAX, 0)], CF, |a| a.rcl(eax, 31));
        assert_eq!(m.cpu.regs[EAX], 1 << 30);
        assert!(!m.cpu.flags.cf());
        // RCR EAX by 2 with CF = 1: 0b1 -> CF from bit 1 (=0), bit 31 = bit 0, bit 30 = CF.
        let m = ok(&[(EAX, 1)], CF, |a| a.rcr(eax, 2));
        assert_eq!(m.cpu.regs[EAX], 0xc000_0000);
        assert!(!m.cpu.flags.cf());
    }

    #[test]
    fn shld_shrd() {
        // SHLD EAX,EDX,4: 0x12345678:9abcdef0 -> 0x23456789, CF = bit 28 = 1; host
        // EFLAGS 0xa13 (OF = MSB ^ CF = 1, AF = 1, PF of 0x89 = 0).
        let m = ok(&[(EAX, 0x1234_5678), (EDX, 0x9abc_def0)], 0, |a| {
            a.shld(eax, edx, 4)
        });
        assert_eq!(m.cpu.regs[EAX], 0x2345_6789);
        assert_eq!(fl(&m), 0xa13 & ARITH);
        // SHRD EAX,EDX,8 -> 0xf0123456, CF = bit 7 = 0; host EFLAGS 0x296.
        let m = ok(
            &[(EAX, 0x1234_5678), (EDX, 0x9abc_def0), (ECX, 8)],
            0,
            |a| a.shrd(eax, edx, cl),
        );
        assert_eq!(m.cpu.regs[EAX], 0xf012_3456);
        assert_eq!(fl(&m), 0x296 & ARITH);
        // SHLD AX,DX,16 gives DX; by 31 on the host: DX shifted in twice (undefined).
        let m = ok(&[(EAX, 0x7fff), (EDX, 0xbcfd), (ECX, 16)], 0, |a| {
            a.shld(ax, dx, cl)
        });
        assert_eq!(m.cpu.regs[EAX], 0xbcfd);
        // SHRD EAX,EDX,31 and SHLD with a count of 1.
        let m = ok(&[(EAX, 0x8000_0000), (EDX, 1)], 0, |a| a.shrd(eax, edx, 31));
        assert_eq!(m.cpu.regs[EAX], 3);
        assert!(!m.cpu.flags.cf());
        let m = ok(&[(EAX, 0x4000_0000), (EDX, 0x8000_0000)], 0, |a| {
            a.shld(eax, edx, 1)
        });
        assert_eq!(m.cpu.regs[EAX], 0x8000_0001);
        assert_eq!(fl(&m) & (CF | OF | SF), OF | SF);
    }

    #[test]
    fn memory_destinations() {
        let m = ok(&[(EAX, 0x1234_5678)], CF, |a| {
            a.mov(byte_ptr(DATA + 8), 0x80u32)?;
            a.rcl(byte_ptr(DATA + 8), 1)?; // CF in
            a.mov(dword_ptr(DATA), 0x8000_0001u32)?;
            a.shl(dword_ptr(DATA), 1)?;
            a.mov(word_ptr(DATA + 12), 0x1234u32)?;
            a.mov(cl, 4)?;
            a.shld(word_ptr(DATA + 12), ax, cl)
        });
        assert_eq!(m.mem.read_u32(DATA).unwrap(), 2);
        assert_eq!(m.mem.read_u8(DATA + 8).unwrap(), 0x01);
        assert_eq!(m.mem.read_u16(DATA + 12).unwrap(), 0x2345);
        assert!(m.cpu.flags.cf()); // bit 12 of 0x1234
    }

    #[test]
    fn memory_fault_changes_nothing() {
        for count in [0u32, 3] {
            let (m, st) = {
                let code = assemble(|a| {
                    a.cmp(edx, 6)?;
                    a.shl(dword_ptr(DATA), cl)?;
                    a.jmp(EXIT as u64)
                });
                let mut m = Machine::new();
                m.load(&code);
                m.mem.write_u32(DATA, 0x1111).unwrap();
                m.mem.protect(DATA, 0x1000, Prot::R).unwrap();
                m.cpu.regs[EDX] = 5;
                m.cpu.regs[ECX] = count;
                let st = m.run(100);
                (m, st)
            };
            // The host faults on a read-only operand even with a count of 0.
            match st {
                StopReason::Exception(e) => {
                    assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
                    assert_eq!(e.eip, CODE + 3);
                }
                s => panic!("{s:?}"),
            }
            assert_eq!(m.mem.read_u32(DATA).unwrap(), 0x1111);
            assert_eq!(fl(&m), CF | SF | AF | PF);
        }
        // An unmapped destination: the host reports the read-for-write as a write.
        let (_, st) = run(&[], 0, |a| a.rcl(word_ptr(0x5000_0000u32), 1));
        match st {
            StopReason::Exception(e) => {
                assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
                assert_eq!(e.addr, 0x5000_0000);
            }
            s => panic!("{s:?}"),
        }
    }
}
