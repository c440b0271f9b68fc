//! Bit and conditional instructions: BT BTS BTR BTC, BSF BSR, SETcc, CMOVcc, BSWAP,
//! CMPXCHG, CMPXCHG8B, XADD.
//!
//! Operand convention: `o.rm` is the ModRM r/m register (when it is a register) and
//! `o.r` the ModRM reg register. Memory forms compute their address with `cpu.ea`.
//! Flags that the SDM leaves undefined are set as the host (AMD Zen) sets them:
//! BT* change only CF; BSF/BSR clear CF OF SF AF and set PF from the index (from 0
//! when the source is 0).

use super::reg_op;
use crate::cpu::flags::{self, CF, PF, ZF};
use crate::cpu::{Cpu, EAX, EBX, ECX, EDX, Exit, FlagOp};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mem::{Access, Fault};
use crate::mtry;
use iced_x86::{Code, Instruction, Mnemonic, OpKind};

/// A read-modify-write instruction reads with write intent: when its load faults the
/// host reports a write access (page-fault error code W=1), so we do too.
#[inline(always)]
fn as_write(f: Fault) -> Fault {
    Fault {
        access: Access::Write,
        ..f
    }
}

// ---- BT BTS BTR BTC ---------------------------------------------------------------

const BT: u8 = 0;
const BTS: u8 = 1;
const BTR: u8 = 2;
const BTC: u8 = 3;

/// Applies the BT* operation to `v` at bit `bit`.
#[inline(always)]
fn bt_apply<const OP: u8>(v: u32, bit: u32) -> u32 {
    let m = 1u32 << bit;
    match OP {
        BTS => v | m,
        BTR => v & !m,
        BTC => v ^ m,
        _ => v,
    }
}

/// Sets CF only, keeping the other arithmetic flags (host behaviour for BT*).
#[inline(always)]
fn set_cf_only(cpu: &mut Cpu, cf: bool) {
    let b = cpu.flags.bits();
    cpu.flags.set_eager((b & !CF) | cf as u32);
}

fn bt_rr<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let bit = cpu.reg(S, o.r) & (S - 1);
    let v = cpu.reg(S, o.rm);
    if OP != BT {
        cpu.set_reg(S, o.rm, bt_apply::<OP>(v, bit));
    }
    set_cf_only(cpu, (v >> bit) & 1 != 0);
    next(cpu, ops, i)
}

fn bt_ri<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let bit = o.imm & (S - 1);
    let v = cpu.reg(S, o.rm);
    if OP != BT {
        cpu.set_reg(S, o.rm, bt_apply::<OP>(v, bit));
    }
    set_cf_only(cpu, (v >> bit) & 1 != 0);
    next(cpu, ops, i)
}

/// Memory operand with a register bit offset: the offset is signed and selects the
/// operand-sized unit at `ea + (offset >> log2 S) * S/8` (SDM: BT, "bit base").
#[inline(always)]
fn bt_mem_reg_addr<const S: u32>(cpu: &Cpu, o: &Op) -> (u32, u32) {
    let off = if S == 16 {
        cpu.reg(16, o.r) as u16 as i16 as i32
    } else {
        cpu.reg(32, o.r) as i32
    };
    let shift = if S == 16 { 4 } else { 5 };
    let delta = ((off >> shift) as u32).wrapping_mul(S / 8);
    (cpu.ea(o).wrapping_add(delta), off as u32 & (S - 1))
}

#[inline(always)]
fn bt_mem<const OP: u8, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
    addr: u32,
    bit: u32,
) -> Exit {
    let v = if OP == BT {
        mtry!(cpu, ops, i, cpu.load(S, addr))
    } else {
        mtry!(cpu, ops, i, cpu.load(S, addr).map_err(as_write))
    };
    let cf = (v >> bit) & 1 != 0;
    if OP == BT {
        set_cf_only(cpu, cf);
        return next(cpu, ops, i);
    }
    let w = mtry!(cpu, ops, i, cpu.store(S, addr, bt_apply::<OP>(v, bit)));
    set_cf_only(cpu, cf);
    after_store(cpu, ops, i, w)
}

#[inline(always)]
fn bt_mem_lock<const OP: u8, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
    addr: u32,
    bit: u32,
) -> Exit {
    let (old, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .atomic_rmw(addr, S / 8, |old| {
                Some(bt_apply::<OP>(old as u32, bit) as u64 & flags::mask(S) as u64)
            })
            .map_err(as_write)
    );
    set_cf_only(cpu, (old >> bit) & 1 != 0);
    after_store(cpu, ops, i, w)
}

fn bt_mr<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let (addr, bit) = bt_mem_reg_addr::<S>(cpu, &ops[i]);
    bt_mem::<OP, S>(cpu, ops, i, addr, bit)
}

fn bt_mi<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    bt_mem::<OP, S>(cpu, ops, i, cpu.ea(o), o.imm & (S - 1))
}

fn bt_mr_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let (addr, bit) = bt_mem_reg_addr::<S>(cpu, &ops[i]);
    bt_mem_lock::<OP, S>(cpu, ops, i, addr, bit)
}

fn bt_mi_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    bt_mem_lock::<OP, S>(cpu, ops, i, cpu.ea(o), o.imm & (S - 1))
}

// ---- BSF BSR ----------------------------------------------------------------------

/// BSF (`REV` false) / BSR (`REV` true) of `src`: a zero source sets ZF and leaves the
/// destination alone, as Intel and AMD hardware do.
#[inline(always)]
fn bsf_common<const REV: bool, const S: u32>(cpu: &mut Cpu, r: u8, src: u32) {
    if src == 0 {
        cpu.flags.set_eager(ZF | PF);
        return;
    }
    let idx = if REV {
        31 - src.leading_zeros()
    } else {
        src.trailing_zeros()
    };
    cpu.set_reg(S, r, idx);
    cpu.flags.set_eager(if flags::parity(idx) { PF } else { 0 });
}

fn bsf_rr<const REV: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let src = cpu.reg(S, o.rm);
    bsf_common::<REV, S>(cpu, o.r, src);
    next(cpu, ops, i)
}

fn bsf_rm<const REV: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let src = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    bsf_common::<REV, S>(cpu, o.r, src);
    next(cpu, ops, i)
}

// ---- SETcc CMOVcc -----------------------------------------------------------------

fn setcc_r<const CC: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = cpu.flags.cond(CC) as u32;
    cpu.set_r8(ops[i].rm, v);
    next(cpu, ops, i)
}

fn setcc_m<const CC: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = cpu.flags.cond(CC) as u8;
    let w = mtry!(cpu, ops, i, cpu.mem.write_u8(cpu.ea(&ops[i]), v));
    after_store(cpu, ops, i, w)
}

fn cmov_rr<const CC: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    if cpu.flags.cond(CC) {
        cpu.set_reg(S, o.r, cpu.reg(S, o.rm));
    }
    next(cpu, ops, i)
}

/// The memory source is always read (and may fault) whatever the condition.
fn cmov_rm<const CC: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    if cpu.flags.cond(CC) {
        cpu.set_reg(S, o.r, v);
    }
    next(cpu, ops, i)
}

// ---- BSWAP ------------------------------------------------------------------------

fn bswap32(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let r = ops[i].rm;
    cpu.set_r32(r, cpu.r32(r).swap_bytes());
    next(cpu, ops, i)
}

/// BSWAP r16 is undefined; hardware (Intel and AMD) clears the low 16 bits.
fn bswap16(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    cpu.set_r16(ops[i].rm, 0);
    next(cpu, ops, i)
}

// ---- CMPXCHG ----------------------------------------------------------------------

fn cmpxchg_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let acc = cpu.reg(S, EAX as u8);
    let dst = cpu.reg(S, o.rm);
    cpu.flags
        .set(FlagOp::Sub, S, acc.wrapping_sub(dst), acc, dst);
    if acc == dst {
        cpu.set_reg(S, o.rm, cpu.reg(S, o.r));
    } else {
        cpu.set_reg(S, EAX as u8, dst);
    }
    next(cpu, ops, i)
}

/// Unlocked memory form: the destination is always written (the old value on a
/// failed compare), so a read-only destination faults either way.
fn cmpxchg_mr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    let dst = mtry!(cpu, ops, i, cpu.load(S, ea).map_err(as_write));
    let acc = cpu.reg(S, EAX as u8);
    let eq = acc == dst;
    let new = if eq { cpu.reg(S, o.r) } else { dst };
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, new));
    cpu.flags
        .set(FlagOp::Sub, S, acc.wrapping_sub(dst), acc, dst);
    if !eq {
        cpu.set_reg(S, EAX as u8, dst);
    }
    after_store(cpu, ops, i, w)
}

fn cmpxchg_mr_lock<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let acc = cpu.reg(S, EAX as u8);
    let src = cpu.reg(S, o.r);
    let (old, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .atomic_rmw(cpu.ea(o), S / 8, |old| {
                if old as u32 == acc {
                    Some(src as u64)
                } else {
                    None
                }
            })
            .map_err(as_write)
    );
    let dst = old as u32;
    cpu.flags
        .set(FlagOp::Sub, S, acc.wrapping_sub(dst), acc, dst);
    if acc != dst {
        cpu.set_reg(S, EAX as u8, dst);
    }
    after_store(cpu, ops, i, w)
}

/// Sets ZF only (CMPXCHG8B leaves the other flags alone).
#[inline(always)]
fn set_zf_only(cpu: &mut Cpu, zf: bool) {
    let b = cpu.flags.bits();
    cpu.flags.set_eager((b & !ZF) | if zf { ZF } else { 0 });
}

#[inline(always)]
fn edx_eax(cpu: &Cpu) -> u64 {
    (cpu.regs[EDX] as u64) << 32 | cpu.regs[EAX] as u64
}

fn cmpxchg8b(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let dst = mtry!(cpu, ops, i, cpu.mem.read_u64(ea).map_err(as_write));
    let eq = dst == edx_eax(cpu);
    let new = if eq {
        (cpu.regs[ECX] as u64) << 32 | cpu.regs[EBX] as u64
    } else {
        dst
    };
    let w = mtry!(cpu, ops, i, cpu.mem.write_u64(ea, new));
    set_zf_only(cpu, eq);
    if !eq {
        cpu.regs[EAX] = dst as u32;
        cpu.regs[EDX] = (dst >> 32) as u32;
    }
    after_store(cpu, ops, i, w)
}

fn cmpxchg8b_lock(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let cmp = edx_eax(cpu);
    let src = (cpu.regs[ECX] as u64) << 32 | cpu.regs[EBX] as u64;
    let (dst, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .atomic_rmw(ea, 8, |old| if old == cmp { Some(src) } else { None })
            .map_err(as_write)
    );
    let eq = dst == cmp;
    set_zf_only(cpu, eq);
    if !eq {
        cpu.regs[EAX] = dst as u32;
        cpu.regs[EDX] = (dst >> 32) as u32;
    }
    after_store(cpu, ops, i, w)
}

// ---- XADD -------------------------------------------------------------------------

fn xadd_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let (d, s) = (cpu.reg(S, o.rm), cpu.reg(S, o.r));
    let sum = d.wrapping_add(s);
    cpu.flags.set(FlagOp::Add, S, sum, d, s);
    // SRC := DEST, then DEST := TEMP (the destination wins when they are the same).
    cpu.set_reg(S, o.r, d);
    cpu.set_reg(S, o.rm, sum);
    next(cpu, ops, i)
}

fn xadd_mr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    let d = mtry!(cpu, ops, i, cpu.load(S, ea).map_err(as_write));
    let s = cpu.reg(S, o.r);
    let sum = d.wrapping_add(s);
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, sum));
    cpu.flags.set(FlagOp::Add, S, sum, d, s);
    cpu.set_reg(S, o.r, d);
    after_store(cpu, ops, i, w)
}

fn xadd_mr_lock<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let s = cpu.reg(S, o.r);
    let m = flags::mask(S);
    let (old, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .atomic_rmw(cpu.ea(o), S / 8, |old| Some(
                ((old as u32).wrapping_add(s) & m) as u64
            ))
            .map_err(as_write)
    );
    let d = old as u32;
    cpu.flags.set(FlagOp::Add, S, d.wrapping_add(s), d, s);
    cpu.set_reg(S, o.r, d);
    after_store(cpu, ops, i, w)
}

// ---- lowering ---------------------------------------------------------------------

/// Sixteen monomorphisations of a handler over its leading condition-code parameter.
macro_rules! cc_table {
    ($f:ident $(, $p:tt)*) => {
        [
            $f::<0 $(, $p)*> as Handler, $f::<1 $(, $p)*> as Handler,
            $f::<2 $(, $p)*> as Handler, $f::<3 $(, $p)*> as Handler,
            $f::<4 $(, $p)*> as Handler, $f::<5 $(, $p)*> as Handler,
            $f::<6 $(, $p)*> as Handler, $f::<7 $(, $p)*> as Handler,
            $f::<8 $(, $p)*> as Handler, $f::<9 $(, $p)*> as Handler,
            $f::<10 $(, $p)*> as Handler, $f::<11 $(, $p)*> as Handler,
            $f::<12 $(, $p)*> as Handler, $f::<13 $(, $p)*> as Handler,
            $f::<14 $(, $p)*> as Handler, $f::<15 $(, $p)*> as Handler,
        ]
    };
}

/// 16- or 32-bit monomorphisation of a handler.
macro_rules! s16_32 {
    ($s:expr, $f:ident $(:: <$($p:tt),+>)?) => {
        if $s == 16 {
            $f::<$($($p,)+)? 16> as Handler
        } else {
            $f::<$($($p,)+)? 32> as Handler
        }
    };
}

macro_rules! bt_pick {
    ($op:expr, $s:expr, $f:ident) => {
        match $op {
            BT => s16_32!($s, $f::<BT>),
            BTS => s16_32!($s, $f::<BTS>),
            BTR => s16_32!($s, $f::<BTR>),
            _ => s16_32!($s, $f::<BTC>),
        }
    };
}

/// SETcc, any condition (the decoder and the micro-op lowering share the list).
pub(crate) fn is_setcc(m: Mnemonic) -> bool {
    use Mnemonic::*;
    matches!(
        m,
        Seto | Setno
            | Setb
            | Setae
            | Sete
            | Setne
            | Setbe
            | Seta
            | Sets
            | Setns
            | Setp
            | Setnp
            | Setl
            | Setge
            | Setle
            | Setg
    )
}

/// CMOVcc, any condition.
pub(crate) fn is_cmovcc(m: Mnemonic) -> bool {
    use Mnemonic::*;
    matches!(
        m,
        Cmovo
            | Cmovno
            | Cmovb
            | Cmovae
            | Cmove
            | Cmovne
            | Cmovbe
            | Cmova
            | Cmovs
            | Cmovns
            | Cmovp
            | Cmovnp
            | Cmovl
            | Cmovge
            | Cmovle
            | Cmovg
    )
}

/// Operand size (16 or 32) of a 16/32-bit-only form, or `None` for 64-bit forms.
fn size16_32(ins: &Instruction) -> Option<u32> {
    match ins.op_code().operand_size() {
        16 => Some(16),
        32 => Some(32),
        _ => None,
    }
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let m = ins.mnemonic();
    let lock = ins.has_lock_prefix();
    match m {
        Mnemonic::Bt | Mnemonic::Bts | Mnemonic::Btr | Mnemonic::Btc => {
            let op = match m {
                Mnemonic::Bt => BT,
                Mnemonic::Bts => BTS,
                Mnemonic::Btr => BTR,
                _ => BTC,
            };
            let s = size16_32(ins)?;
            let imm = ins.op_kind(1) == OpKind::Immediate8;
            if imm {
                o.imm = ins.immediate8() as u32;
            } else {
                o.r = reg_op(ins, 1)?;
            }
            match ins.op_kind(0) {
                OpKind::Register => {
                    if lock {
                        return None;
                    }
                    o.rm = reg_op(ins, 0)?;
                    Some(if imm {
                        bt_pick!(op, s, bt_ri)
                    } else {
                        bt_pick!(op, s, bt_rr)
                    })
                }
                OpKind::Memory => Some(match (imm, lock && op != BT) {
                    (true, false) => bt_pick!(op, s, bt_mi),
                    (false, false) => bt_pick!(op, s, bt_mr),
                    (true, true) => bt_pick!(op, s, bt_mi_lock),
                    (false, true) => bt_pick!(op, s, bt_mr_lock),
                }),
                _ => None,
            }
        }
        // F3 0F BC/BD decode as TZCNT/LZCNT on CPUs with BMI1/ABM; on the Pentium II
        // winterp advertises the F3 prefix is ignored and they run as BSF/BSR
        // (compilers emit `rep bsf` on purpose because of this).
        Mnemonic::Bsf | Mnemonic::Bsr | Mnemonic::Tzcnt | Mnemonic::Lzcnt => {
            let s = size16_32(ins)?;
            o.r = reg_op(ins, 0)?;
            let rev = matches!(m, Mnemonic::Bsr | Mnemonic::Lzcnt);
            match ins.op_kind(1) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 1)?;
                    Some(if rev {
                        s16_32!(s, bsf_rr::<true>)
                    } else {
                        s16_32!(s, bsf_rr::<false>)
                    })
                }
                OpKind::Memory => Some(if rev {
                    s16_32!(s, bsf_rm::<true>)
                } else {
                    s16_32!(s, bsf_rm::<false>)
                }),
                _ => None,
            }
        }
        Mnemonic::Bswap => match ins.code() {
            Code::Bswap_r32 => {
                o.rm = reg_op(ins, 0)?;
                Some(bswap32)
            }
            Code::Bswap_r16 => {
                o.rm = reg_op(ins, 0)?;
                Some(bswap16)
            }
            _ => None,
        },
        Mnemonic::Cmpxchg => {
            let s = super::alu::op0_size(ins);
            o.r = reg_op(ins, 1)?;
            match ins.op_kind(0) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 0)?;
                    Some(crate::by_size!(s, cmpxchg_rr))
                }
                OpKind::Memory if lock => Some(crate::by_size!(s, cmpxchg_mr_lock)),
                OpKind::Memory => Some(crate::by_size!(s, cmpxchg_mr)),
                _ => None,
            }
        }
        Mnemonic::Cmpxchg8b if ins.op_kind(0) == OpKind::Memory => {
            Some(if lock { cmpxchg8b_lock } else { cmpxchg8b })
        }
        Mnemonic::Xadd => {
            let s = super::alu::op0_size(ins);
            o.r = reg_op(ins, 1)?;
            match ins.op_kind(0) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 0)?;
                    Some(crate::by_size!(s, xadd_rr))
                }
                OpKind::Memory if lock => Some(crate::by_size!(s, xadd_mr_lock)),
                OpKind::Memory => Some(crate::by_size!(s, xadd_mr)),
                _ => None,
            }
        }
        _ if is_setcc(m) => {
            let cc = super::branch::cond_code(m)? as usize;
            match ins.op_kind(0) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 0)?;
                    const T: [Handler; 16] = cc_table!(setcc_r);
                    Some(T[cc])
                }
                OpKind::Memory => {
                    const T: [Handler; 16] = cc_table!(setcc_m);
                    Some(T[cc])
                }
                _ => None,
            }
        }
        _ if is_cmovcc(m) => {
            let cc = super::branch::cond_code(m)? as usize;
            let s = size16_32(ins)?;
            o.x = cc as u8;
            o.r = reg_op(ins, 0)?;
            match ins.op_kind(1) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 1)?;
                    const T16: [Handler; 16] = cc_table!(cmov_rr, 16);
                    const T32: [Handler; 16] = cc_table!(cmov_rr, 32);
                    Some(if s == 16 { T16[cc] } else { T32[cc] })
                }
                OpKind::Memory => {
                    const T16: [Handler; 16] = cc_table!(cmov_rm, 16);
                    const T32: [Handler; 16] = cc_table!(cmov_rm, 32);
                    Some(if s == 16 { T16[cc] } else { T32[cc] })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The record BT leaves with bit `bit` of `v`: CF only, the other flags kept.
/// The micro-op tier's BT goes through this, so its records are the interpreter's.
pub(crate) fn bt_eager(f: &mut crate::cpu::LazyFlags, v: u32, bit: u32) {
    let b = f.bits();
    f.set_eager((b & !CF) | ((v >> bit) & 1));
}

#[cfg(test)]
mod tests {
    use crate::StopReason;
    use crate::cpu::flags::{ARITH, CF, OF, PF, SF, ZF};
    use crate::cpu::{EAX, EBX, ECX, EDX, ESI, ExceptionKind};
    use crate::harness::{CODE, DATA, EXIT, Machine, assemble};
    use crate::mem::{Access, Prot};
    use iced_x86::code_asm::*;

    type R = Result<(), IcedError>;

    /// A read-only page inside the data region.
    const RO: u32 = DATA + 0x10000;
    /// An address that is not committed.
    const HOLE: u32 = 0x2000_0000;

    fn machine(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> Machine {
        let mut m = Machine::new();
        m.mem.protect(RO, 0x1000, Prot::R).unwrap();
        setup(&mut m);
        let code = assemble(|a| {
            body(a)?;
            a.jmp(EXIT as u64)
        });
        m.load(&code);
        m
    }

    fn run(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> Machine {
        let mut m = machine(setup, body);
        assert_eq!(m.run(100_000), StopReason::Thunk(EXIT));
        m
    }

    /// Runs a program whose first instruction faults; returns the machine and fault.
    fn run_fault(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> (Machine, crate::Exception) {
        let mut m = machine(setup, body);
        match m.run(100_000) {
            StopReason::Exception(e) => {
                assert_eq!(e.eip, CODE);
                assert_eq!(m.cpu.eip, CODE);
                (m, e)
            }
            r => panic!("expected a fault, got {r:?}"),
        }
    }

    fn flags(m: &Machine) -> u32 {
        m.cpu.flags.bits() & ARITH
    }

    // ---- BT family ----

    #[test]
    fn bt_register_offset_is_taken_mod_width() {
        // SDM BT: register destination, the offset is taken modulo 16/32. Only CF
        // changes (the others are undefined; the host keeps them).
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0x0000_0008;
                m.cpu.regs[ECX] = 35; // bit 3
                m.cpu.flags.set_eager(ZF | SF);
            },
            |a| a.bt(eax, ecx),
        );
        assert_eq!(flags(&m), CF | ZF | SF);
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0xffff_0000;
                m.cpu.regs[ECX] = 0x0001_0011; // cx = 17 -> bit 1 of ax
                m.cpu.flags.set_eager(CF);
            },
            |a| a.bts(ax, cx),
        );
        assert_eq!(m.cpu.regs[EAX], 0xffff_0002);
        assert_eq!(flags(&m), 0);
    }

    #[test]
    fn bt_register_forms_modify_the_bit() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0xf0;
                m.cpu.regs[EBX] = 0xf0;
                m.cpu.regs[EDX] = 0xf0;
                m.cpu.regs[ECX] = 4;
            },
            |a| {
                a.btr(eax, ecx)?;
                a.btc(ebx, 0x43)?; // imm8 mod 32 = 3
                a.bts(edx, 0x20)?; // bit 0
                a.setc(ch)
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0xe0);
        assert_eq!(m.cpu.regs[EBX], 0xf8);
        assert_eq!(m.cpu.regs[EDX], 0xf1);
        assert_eq!(m.cpu.regs[ECX] >> 8 & 0xff, 0, "CF = old bit 0 of edx");
    }

    #[test]
    fn bt_memory_register_offset_reaches_beyond_the_operand() {
        // Offset 100: dword at +12 (100 >> 5 = 3 dwords), bit 4.
        let m = run(
            |m| {
                m.cpu.regs[ECX] = 100;
                m.mem.write_u32(DATA + 0x100 + 12, 0x10).unwrap();
            },
            |a| {
                a.btr(dword_ptr(DATA + 0x100), ecx)?;
                a.setc(al)
            },
        );
        assert_eq!(m.mem.read_u32(DATA + 0x100 + 12), Ok(0));
        assert_eq!(m.cpu.regs[EAX] & 0xff, 1);
        // Offset -1: the dword just below the operand, bit 31.
        let m = run(
            |m| m.cpu.regs[ECX] = u32::MAX,
            |a| a.bts(dword_ptr(DATA + 0x100), ecx),
        );
        assert_eq!(m.mem.read_u32(DATA + 0xfc), Ok(0x8000_0000));
        assert_eq!(m.mem.read_u32(DATA + 0x100), Ok(0));
        assert_eq!(flags(&m) & CF, 0);
        // 16-bit: the offset is the signed 16-bit register. cx = -16: word at -2, bit 0.
        let m = run(
            |m| m.cpu.regs[ECX] = 0x7777_fff0,
            |a| a.btc(word_ptr(DATA + 0x100), cx),
        );
        assert_eq!(m.mem.read_u16(DATA + 0xfe), Ok(1));
        assert_eq!(m.mem.read_u32(DATA + 0x100), Ok(0));
        // 16-bit offset 0x7fff: word at +0xffe, bit 15.
        let m = run(
            |m| {
                m.cpu.regs[ECX] = 0x7fff;
                m.mem.write_u16(DATA + 0x100 + 0xffe, 0x8000).unwrap();
            },
            |a| a.bt(word_ptr(DATA + 0x100), cx),
        );
        assert_eq!(flags(&m) & CF, CF);
    }

    #[test]
    fn bt_memory_immediate_is_mod_width() {
        let m = run(
            |m| {
                m.mem.write_u32(DATA, 0x10).unwrap();
            },
            |a| a.bt(dword_ptr(DATA), 36),
        );
        assert_eq!(flags(&m) & CF, CF);
        let m = run(|_| {}, |a| a.bts(word_ptr(DATA), 17));
        assert_eq!(m.mem.read_u32(DATA), Ok(2));
    }

    #[test]
    fn bt_memory_fault_leaves_state() {
        let (m, e) = run_fault(
            |m| {
                m.cpu.regs[ECX] = 0;
                m.cpu.flags.set_eager(CF);
            },
            |a| a.bts(dword_ptr(RO), ecx),
        );
        assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
        assert_eq!(m.mem.read_u32(RO), Ok(0));
        assert_eq!(flags(&m), CF);
        // The register offset can carry the access to an unmapped page.
        let (_, e) = run_fault(
            |m| m.cpu.regs[ECX] = 0x8000_0000,
            |a| a.bt(dword_ptr(DATA), ecx),
        );
        assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read));
        assert_eq!(e.addr, DATA.wrapping_sub(0x1000_0000));
    }

    #[test]
    fn locked_bt_forms() {
        let m = run(
            |m| {
                m.cpu.regs[ECX] = 33; // dword +4, bit 1
                m.mem.write_u32(DATA + 4, 0xff).unwrap();
            },
            |a| {
                a.lock().btr(dword_ptr(DATA), ecx)?;
                a.setc(bl)?;
                a.lock().bts(dword_ptr(DATA), 31)?;
                a.setc(bh)?;
                a.lock().btc(word_ptr(DATA + 8), 15)
            },
        );
        assert_eq!(m.mem.read_u32(DATA + 4), Ok(0xfd));
        assert_eq!(m.mem.read_u32(DATA), Ok(0x8000_0000));
        assert_eq!(m.mem.read_u32(DATA + 8), Ok(0x8000));
        assert_eq!(m.cpu.regs[EBX] & 0xffff, 0x0001);
    }

    // ---- BSF / BSR ----

    #[test]
    fn bsf_bsr_zero_source_leaves_destination() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0x1234_5678;
                m.cpu.regs[EDX] = 0x9abc_def0;
                m.cpu.regs[ECX] = 0;
            },
            |a| {
                a.bsf(eax, ecx)?;
                a.bsr(dx, cx)
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0x1234_5678);
        assert_eq!(m.cpu.regs[EDX], 0x9abc_def0);
        assert_eq!(flags(&m) & ZF, ZF);
    }

    #[test]
    fn bsf_bsr_find_bits() {
        let m = run(
            |m| {
                m.cpu.regs[ECX] = 0x0041_0100;
                m.cpu.regs[EDX] = 0xffff_ffff;
                m.mem.write_u32(DATA, 0x8000_0001).unwrap();
                m.cpu.flags.set_eager(ZF | CF | OF);
            },
            |a| {
                a.bsf(eax, ecx)?; // 8
                a.bsr(ebx, ecx)?; // 22
                a.bsr(dx, cx)?; // low word 0x0100 -> 8
                a.bsr(esi, dword_ptr(DATA))?; // 31
                a.bsf(edi, dword_ptr(DATA)) // 0
            },
        );
        assert_eq!(m.cpu.regs[EAX], 8);
        assert_eq!(m.cpu.regs[EBX], 22);
        assert_eq!(m.cpu.regs[EDX], 0xffff_0008);
        assert_eq!(m.cpu.regs[ESI], 31);
        assert_eq!(m.cpu.regs[7], 0);
        assert_eq!(flags(&m) & ZF, 0);
    }

    // ---- SETcc / CMOVcc ----

    #[test]
    fn setcc_register_and_memory() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 1;
                m.cpu.regs[EBX] = 2;
                m.cpu.regs[ECX] = 0xffff_ffff;
                m.mem.write_u32(DATA, 0xffff_ffff).unwrap();
            },
            |a| {
                a.cmp(eax, ebx)?; // 1 - 2: CF SF, not ZF; signed less
                a.setb(cl)?;
                a.setl(ch)?;
                a.seta(byte_ptr(DATA))?;
                a.setge(byte_ptr(DATA + 1))?;
                a.setne(byte_ptr(DATA + 2))
            },
        );
        assert_eq!(m.cpu.regs[ECX], 0xffff_0101);
        assert_eq!(m.mem.read_u32(DATA), Ok(0xff01_0000));
    }

    #[test]
    fn cmov_moves_only_when_condition_holds() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 5;
                m.cpu.regs[EBX] = 7;
                m.cpu.regs[ECX] = 0x1111_1111;
                m.cpu.regs[EDX] = 0x2222_2222;
                m.mem.write_u32(DATA, 0x3333_3333).unwrap();
            },
            |a| {
                a.cmp(eax, ebx)?; // 5 < 7
                a.cmovb(ecx, ebx)?; // taken
                a.cmova(edx, ebx)?; // not taken
                a.cmovl(si, word_ptr(DATA))?; // taken, 16-bit
                a.cmovge(edi, dword_ptr(DATA)) // not taken
            },
        );
        assert_eq!(m.cpu.regs[ECX], 7);
        assert_eq!(m.cpu.regs[EDX], 0x2222_2222);
        assert_eq!(m.cpu.regs[ESI] & 0xffff, 0x3333);
        assert_eq!(m.cpu.regs[7], 0);
    }

    #[test]
    fn cmov_memory_faults_even_when_false() {
        let (m, e) = run_fault(
            |m| {
                m.cpu.flags.set_eager(0); // ZF clear: CMOVE false
                m.cpu.regs[EAX] = 9;
            },
            |a| a.cmove(eax, dword_ptr(HOLE)),
        );
        assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read));
        assert_eq!(e.addr, HOLE);
        assert_eq!(m.cpu.regs[EAX], 9);
    }

    // ---- BSWAP ----

    #[test]
    fn bswap() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0x1234_5678;
                m.cpu.regs[EBX] = 0x1234_5678;
            },
            |a| {
                a.bswap(eax)?;
                a.db(&[0x66, 0x0f, 0xcb]) // bswap bx
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0x7856_3412);
        assert_eq!(m.cpu.regs[EBX], 0x1234_0000);
    }

    // ---- CMPXCHG / CMPXCHG8B / XADD ----

    #[test]
    fn cmpxchg_register_success_and_failure() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 10;
                m.cpu.regs[EBX] = 10;
                m.cpu.regs[ECX] = 99;
            },
            |a| a.cmpxchg(ebx, ecx),
        );
        assert_eq!(m.cpu.regs[EBX], 99);
        assert_eq!(m.cpu.regs[EAX], 10);
        assert_eq!(flags(&m), ZF | PF);
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0xffff_0001;
                m.cpu.regs[EBX] = 0x0000_0002;
                m.cpu.regs[ECX] = 99;
            },
            |a| a.cmpxchg(bl, cl),
        );
        // AL=1 vs BL=2: not equal, AL := 2; flags of CMP 1,2 (CF SF AF PF... 0xff).
        assert_eq!(m.cpu.regs[EAX], 0xffff_0002);
        assert_eq!(m.cpu.regs[EBX], 2);
        assert_eq!(flags(&m), CF | SF | PF | crate::cpu::flags::AF);
    }

    #[test]
    fn cmpxchg_memory_and_locked() {
        for lock in [false, true] {
            let m = run(
                |m| {
                    m.cpu.regs[EAX] = 0x1234;
                    m.cpu.regs[ECX] = 0xabcd;
                    m.mem.write_u32(DATA, 0x1234).unwrap();
                    m.mem.write_u32(DATA + 4, 0x5678).unwrap();
                },
                |a| {
                    if lock {
                        a.lock().cmpxchg(word_ptr(DATA), cx)?;
                    } else {
                        a.cmpxchg(word_ptr(DATA), cx)?;
                    }
                    a.setz(bl)?;
                    if lock {
                        a.lock().cmpxchg(dword_ptr(DATA + 4), ecx)
                    } else {
                        a.cmpxchg(dword_ptr(DATA + 4), ecx)
                    }
                },
            );
            assert_eq!(m.mem.read_u32(DATA), Ok(0xabcd));
            assert_eq!(m.cpu.regs[EBX] & 0xff, 1);
            assert_eq!(m.mem.read_u32(DATA + 4), Ok(0x5678));
            assert_eq!(m.cpu.regs[EAX], 0x5678);
            // CMP 0x1234, 0x5678 as 32-bit: borrow, negative.
            assert_eq!(flags(&m) & (CF | ZF | SF | OF), CF | SF);
        }
    }

    #[test]
    fn cmpxchg_failure_still_writes_memory() {
        // A failed unlocked CMPXCHG writes the old value back, so a read-only
        // destination faults even though the compare fails; nothing changes.
        for lock in [false, true] {
            let (m, e) = run_fault(
                |m| {
                    m.cpu.regs[EAX] = 1;
                    m.cpu.flags.set_eager(CF);
                },
                |a| {
                    if lock {
                        a.lock().cmpxchg(dword_ptr(RO), ecx)
                    } else {
                        a.cmpxchg(dword_ptr(RO), ecx)
                    }
                },
            );
            assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
            assert_eq!(m.cpu.regs[EAX], 1);
            assert_eq!(flags(&m), CF);
        }
    }

    #[test]
    fn cmpxchg8b_success_failure_zf_only() {
        for lock in [false, true] {
            let m = run(
                |m| {
                    m.cpu.regs[EAX] = 0x1111_1111;
                    m.cpu.regs[EDX] = 0x2222_2222;
                    m.cpu.regs[EBX] = 0x3333_3333;
                    m.cpu.regs[ECX] = 0x4444_4444;
                    m.mem.write_u64(DATA, 0x2222_2222_1111_1111).unwrap();
                    m.mem.write_u64(DATA + 8, 0x5555_5555_6666_6666).unwrap();
                    m.cpu.flags.set_eager(CF | SF);
                },
                |a| {
                    if lock {
                        a.lock().cmpxchg8b(qword_ptr(DATA))?;
                    } else {
                        a.cmpxchg8b(qword_ptr(DATA))?;
                    }
                    a.setz(byte_ptr(DATA + 16))?;
                    if lock {
                        a.lock().cmpxchg8b(qword_ptr(DATA + 8))
                    } else {
                        a.cmpxchg8b(qword_ptr(DATA + 8))
                    }
                },
            );
            assert_eq!(m.mem.read_u64(DATA), Ok(0x4444_4444_3333_3333));
            assert_eq!(m.mem.read_u8(DATA + 16), Ok(1));
            assert_eq!(m.mem.read_u64(DATA + 8), Ok(0x5555_5555_6666_6666));
            assert_eq!(m.cpu.regs[EAX], 0x6666_6666);
            assert_eq!(m.cpu.regs[EDX], 0x5555_5555);
            assert_eq!(flags(&m), CF | SF, "ZF cleared, CF and SF untouched");
        }
    }

    #[test]
    fn xadd_forms() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0x7fff_ffff;
                m.cpu.regs[EBX] = 1;
            },
            |a| a.xadd(eax, ebx),
        );
        assert_eq!(m.cpu.regs[EAX], 0x8000_0000);
        assert_eq!(m.cpu.regs[EBX], 0x7fff_ffff);
        assert_eq!(flags(&m), OF | SF | crate::cpu::flags::AF | PF);
        // Same register: DEST := sum wins.
        let m = run(|m| m.cpu.regs[ECX] = 3, |a| a.xadd(ecx, ecx));
        assert_eq!(m.cpu.regs[ECX], 6);
        for lock in [false, true] {
            let m = run(
                |m| {
                    m.cpu.regs[EBX] = 0xff01;
                    m.cpu.regs[ECX] = 0x00ff;
                    m.mem.write_u32(DATA, 0x00ff).unwrap();
                    m.mem.write_u32(DATA + 4, 0xffff_0003).unwrap();
                },
                |a| {
                    if lock {
                        a.lock().xadd(byte_ptr(DATA), bl)?;
                        a.setc(dl)?;
                        a.lock().xadd(word_ptr(DATA + 4), cx)
                    } else {
                        a.xadd(byte_ptr(DATA), bl)?;
                        a.setc(dl)?;
                        a.xadd(word_ptr(DATA + 4), cx)
                    }
                },
            );
            assert_eq!(m.mem.read_u32(DATA), Ok(0));
            assert_eq!(m.cpu.regs[EBX], 0xffff);
            assert_eq!(m.cpu.regs[EDX] & 0xff, 1);
            assert_eq!(m.mem.read_u32(DATA + 4), Ok(0xffff_0102));
            assert_eq!(m.cpu.regs[ECX], 0x0003);
        }
    }

    #[test]
    fn read_modify_write_faults_report_write_access() {
        // An unmapped destination of a read-modify-write instruction is reported as a
        // write (the host's page-fault error code has W=1); a plain BT reads.
        type Body = fn(&mut CodeAssembler) -> R;
        let cases: [(Body, Access); 7] = [
            (|a| a.xadd(dword_ptr(HOLE), ecx), Access::Write),
            (|a| a.lock().xadd(byte_ptr(HOLE), cl), Access::Write),
            (|a| a.bts(dword_ptr(HOLE), 3), Access::Write),
            (|a| a.lock().btc(word_ptr(HOLE), cx), Access::Write),
            (|a| a.cmpxchg(dword_ptr(HOLE), ecx), Access::Write),
            (|a| a.lock().cmpxchg8b(qword_ptr(HOLE)), Access::Write),
            (|a| a.bt(dword_ptr(HOLE), ecx), Access::Read),
        ];
        for (body, access) in cases {
            let (_, e) = run_fault(|m| m.cpu.regs[ECX] = 0, body);
            assert_eq!(e.kind, ExceptionKind::AccessViolation(access));
            assert_eq!(e.addr, HOLE);
        }
    }

    #[test]
    fn xadd_fault_changes_nothing() {
        let (m, _) = run_fault(|m| m.cpu.regs[ECX] = 5, |a| a.xadd(dword_ptr(RO), ecx));
        assert_eq!(m.cpu.regs[ECX], 5);
        assert_eq!(m.mem.read_u32(RO), Ok(0));
    }
}
