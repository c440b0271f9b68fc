//! Integer ALU, data movement and sign extension: ADD OR ADC SBB AND SUB XOR CMP
//! TEST INC DEC NEG NOT MOV MOVZX MOVSX LEA XCHG CBW CWDE CWD CDQ NOP.
//!
//! Handlers are monomorphised per operation and operand size, so the operation
//! and width are constants inside each handler. Memory destinations store before
//! they touch flags or registers, so a faulting store leaves the state unchanged.

use super::{is_imm, reg_op, reg_size};
use crate::by_size;
use crate::cpu::{Cpu, Exit, FlagOp, LazyFlags};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mtry;
use iced_x86::{Instruction, Mnemonic, OpKind};

pub const ADD: u8 = 0;
pub const OR: u8 = 1;
pub const ADC: u8 = 2;
pub const SBB: u8 = 3;
pub const AND: u8 = 4;
pub const SUB: u8 = 5;
pub const XOR: u8 = 6;
pub const CMP: u8 = 7;
pub const TEST: u8 = 8;

/// Computes `a OP b` at width S, records flags, returns the (untruncated) result.
#[inline(always)]
pub fn alu<const OP: u8, const S: u32>(f: &mut LazyFlags, a: u32, b: u32) -> u32 {
    match OP {
        ADD => {
            let r = a.wrapping_add(b);
            f.set(FlagOp::Add, S, r, a, b);
            r
        }
        OR => {
            let r = a | b;
            f.set(FlagOp::Logic, S, r, a, b);
            r
        }
        ADC => {
            let c = f.cf();
            let r = a.wrapping_add(b).wrapping_add(c as u32);
            f.set_carry(FlagOp::Adc, S, r, a, b, c);
            r
        }
        SBB => {
            let c = f.cf();
            let r = a.wrapping_sub(b).wrapping_sub(c as u32);
            f.set_carry(FlagOp::Sbb, S, r, a, b, c);
            r
        }
        AND | TEST => {
            let r = a & b;
            f.set(FlagOp::Logic, S, r, a, b);
            r
        }
        SUB | CMP => {
            let r = a.wrapping_sub(b);
            f.set(FlagOp::Sub, S, r, a, b);
            r
        }
        _ => {
            let r = a ^ b;
            f.set(FlagOp::Logic, S, r, a, b);
            r
        }
    }
}

pub const fn writes_back(op: u8) -> bool {
    op != CMP && op != TEST
}

/// The load of a read-modify-write instruction faults as a write access.
#[inline(always)]
pub fn as_write<const OP: u8>(f: crate::mem::Fault) -> crate::mem::Fault {
    if writes_back(OP) {
        crate::mem::Fault {
            access: crate::mem::Access::Write,
            ..f
        }
    } else {
        f
    }
}

fn alu_rr<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let (a, b) = (cpu.reg(S, o.r), cpu.reg(S, o.rm));
    let r = alu::<OP, S>(&mut cpu.flags, a, b);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    next(cpu, ops, i)
}

fn alu_ri<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let a = cpu.reg(S, o.r);
    let r = alu::<OP, S>(&mut cpu.flags, a, o.imm);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    next(cpu, ops, i)
}

fn alu_rm<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let b = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    let a = cpu.reg(S, o.r);
    let r = alu::<OP, S>(&mut cpu.flags, a, b);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    next(cpu, ops, i)
}

/// Memory destination with source `src`: load, compute into a scratch flag state,
/// store, then commit the flags.
#[inline(always)]
fn alu_m<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, src: u32) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    // A read-modify-write reports a fault on its load as a write, as x86 does.
    let a = mtry!(cpu, ops, i, cpu.load(S, ea).map_err(as_write::<OP>));
    let mut f = cpu.flags;
    let r = alu::<OP, S>(&mut f, a, src);
    if !writes_back(OP) {
        cpu.flags = f;
        return next(cpu, ops, i);
    }
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, r));
    cpu.flags = f;
    after_store(cpu, ops, i, w)
}

fn alu_mr<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = cpu.reg(S, ops[i].r);
    alu_m::<OP, S>(cpu, ops, i, src)
}

fn alu_mi<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    alu_m::<OP, S>(cpu, ops, i, ops[i].imm)
}

/// LOCK-prefixed memory destination: one host atomic read-modify-write.
#[inline(always)]
fn alu_m_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, src: u32) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let mut f = cpu.flags;
    let carry = f.cf();
    let m = crate::cpu::flags::mask(S);
    let res = cpu.mem.atomic_rmw(ea, S / 8, |old| {
        let a = old as u32;
        let r = match OP {
            ADD => a.wrapping_add(src),
            OR => a | src,
            ADC => a.wrapping_add(src).wrapping_add(carry as u32),
            SBB => a.wrapping_sub(src).wrapping_sub(carry as u32),
            AND => a & src,
            SUB => a.wrapping_sub(src),
            _ => a ^ src,
        };
        Some((r & m) as u64)
    });
    let (old, w) = mtry!(cpu, ops, i, res);
    alu::<OP, S>(&mut f, old as u32, src);
    cpu.flags = f;
    after_store(cpu, ops, i, w)
}

fn alu_mr_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = cpu.reg(S, ops[i].r);
    alu_m_lock::<OP, S>(cpu, ops, i, src)
}

fn alu_mi_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    alu_m_lock::<OP, S>(cpu, ops, i, ops[i].imm)
}

// ---- unary --------------------------------------------------------------------------

pub const INC: u8 = 0;
pub const DEC: u8 = 1;
pub const NEG: u8 = 2;
pub const NOT: u8 = 3;

#[inline(always)]
pub fn unary<const OP: u8, const S: u32>(f: &mut LazyFlags, a: u32) -> u32 {
    match OP {
        INC => {
            let r = a.wrapping_add(1);
            f.set_incdec(true, S, r, a);
            r
        }
        DEC => {
            let r = a.wrapping_sub(1);
            f.set_incdec(false, S, r, a);
            r
        }
        NEG => {
            let r = 0u32.wrapping_sub(a);
            f.set(FlagOp::Sub, S, r, 0, a);
            r
        }
        _ => !a,
    }
}

fn unary_r<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let a = cpu.reg(S, o.r);
    let r = unary::<OP, S>(&mut cpu.flags, a);
    cpu.set_reg(S, o.r, r);
    next(cpu, ops, i)
}

fn unary_m<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let a = mtry!(cpu, ops, i, cpu.load(S, ea).map_err(as_write::<ADD>));
    let mut f = cpu.flags;
    let r = unary::<OP, S>(&mut f, a);
    let w = mtry!(cpu, ops, i, cpu.store(S, ea, r));
    cpu.flags = f;
    after_store(cpu, ops, i, w)
}

fn unary_m_lock<const OP: u8, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ea = cpu.ea(&ops[i]);
    let m = crate::cpu::flags::mask(S);
    let mut f = cpu.flags;
    let (old, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem.atomic_rmw(ea, S / 8, |old| {
            let mut scratch = f;
            Some((unary::<OP, S>(&mut scratch, old as u32) & m) as u64)
        })
    );
    unary::<OP, S>(&mut f, old as u32);
    cpu.flags = f;
    after_store(cpu, ops, i, w)
}

// ---- moves --------------------------------------------------------------------------

fn mov_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    cpu.set_reg(S, o.r, cpu.reg(S, o.rm));
    next(cpu, ops, i)
}

fn mov_ri<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    cpu.set_reg(S, o.r, o.imm);
    next(cpu, ops, i)
}

fn mov_rm<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    cpu.set_reg(S, o.r, v);
    next(cpu, ops, i)
}

fn mov_mr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let w = mtry!(cpu, ops, i, cpu.store(S, cpu.ea(o), cpu.reg(S, o.r)));
    after_store(cpu, ops, i, w)
}

fn mov_mi<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let w = mtry!(cpu, ops, i, cpu.store(S, cpu.ea(o), o.imm));
    after_store(cpu, ops, i, w)
}

/// MOVZX/MOVSX: source width `SRC`, destination width `S`, sign-extend if `SX`.
#[inline(always)]
pub fn extend<const SRC: u32, const SX: bool>(v: u32) -> u32 {
    match (SRC, SX) {
        (8, true) => v as u8 as i8 as i32 as u32,
        (16, true) => v as u16 as i16 as i32 as u32,
        (8, false) => v & 0xff,
        _ => v & 0xffff,
    }
}

fn movx_rr<const SRC: u32, const SX: bool, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let o = &ops[i];
    let v = extend::<SRC, SX>(cpu.reg(SRC, o.rm));
    cpu.set_reg(S, o.r, v);
    next(cpu, ops, i)
}

fn movx_rm<const SRC: u32, const SX: bool, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let o = &ops[i];
    let v = mtry!(cpu, ops, i, cpu.load(SRC, cpu.ea(o)));
    cpu.set_reg(S, o.r, extend::<SRC, SX>(v));
    next(cpu, ops, i)
}

fn lea<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    cpu.set_reg(S, o.r, cpu.ea(o));
    next(cpu, ops, i)
}

fn xchg_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let (a, b) = (cpu.reg(S, o.r), cpu.reg(S, o.rm));
    cpu.set_reg(S, o.r, b);
    cpu.set_reg(S, o.rm, a);
    next(cpu, ops, i)
}

/// XCHG with memory is always locked.
fn xchg_rm<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = cpu.reg(S, o.r) as u64;
    let (old, w) = mtry!(
        cpu,
        ops,
        i,
        cpu.mem.atomic_rmw(cpu.ea(o), S / 8, |_| Some(v))
    );
    cpu.set_reg(S, o.r, old as u32);
    after_store(cpu, ops, i, w)
}

fn cbw(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = cpu.r8(0) as u8 as i8 as i16 as u16 as u32;
    cpu.set_r16(0, v);
    next(cpu, ops, i)
}

fn cwde(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    cpu.regs[0] = cpu.regs[0] as u16 as i16 as i32 as u32;
    next(cpu, ops, i)
}

fn cwd(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let hi = if cpu.regs[0] & 0x8000 != 0 { 0xffff } else { 0 };
    cpu.set_r16(2, hi);
    next(cpu, ops, i)
}

fn cdq(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    cpu.regs[2] = ((cpu.regs[0] as i32) >> 31) as u32;
    next(cpu, ops, i)
}

fn nop(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    next(cpu, ops, i)
}

// ---- lowering -----------------------------------------------------------------------

macro_rules! alu_pick {
    ($op:expr, $size:expr, $f:ident) => {
        match $op {
            ADD => by_size!($size, $f::<ADD>),
            OR => by_size!($size, $f::<OR>),
            ADC => by_size!($size, $f::<ADC>),
            SBB => by_size!($size, $f::<SBB>),
            AND => by_size!($size, $f::<AND>),
            SUB => by_size!($size, $f::<SUB>),
            XOR => by_size!($size, $f::<XOR>),
            CMP => by_size!($size, $f::<CMP>),
            _ => by_size!($size, $f::<TEST>),
        }
    };
}

macro_rules! unary_pick {
    ($op:expr, $size:expr, $f:ident) => {
        match $op {
            INC => by_size!($size, $f::<INC>),
            DEC => by_size!($size, $f::<DEC>),
            NEG => by_size!($size, $f::<NEG>),
            _ => by_size!($size, $f::<NOT>),
        }
    };
}

/// Operand width in bits of operand 0 (register or memory).
pub fn op0_size(ins: &Instruction) -> u32 {
    match ins.op_kind(0) {
        OpKind::Register => reg_size(ins.op0_register()),
        _ => (ins.memory_size().size() * 8) as u32,
    }
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let m = ins.mnemonic();
    let alu_op = match m {
        Mnemonic::Add => Some(ADD),
        Mnemonic::Or => Some(OR),
        Mnemonic::Adc => Some(ADC),
        Mnemonic::Sbb => Some(SBB),
        Mnemonic::And => Some(AND),
        Mnemonic::Sub => Some(SUB),
        Mnemonic::Xor => Some(XOR),
        Mnemonic::Cmp => Some(CMP),
        Mnemonic::Test => Some(TEST),
        _ => None,
    };
    if let Some(a) = alu_op {
        let sz = op0_size(ins);
        let lock = ins.has_lock_prefix();
        return Some(match (ins.op_kind(0), ins.op_kind(1)) {
            (OpKind::Register, OpKind::Register) => {
                o.r = reg_op(ins, 0)?;
                o.rm = reg_op(ins, 1)?;
                alu_pick!(a, sz, alu_rr)
            }
            (OpKind::Register, OpKind::Memory) => {
                o.r = reg_op(ins, 0)?;
                alu_pick!(a, sz, alu_rm)
            }
            (OpKind::Register, _) if is_imm(ins, 1) => {
                o.r = reg_op(ins, 0)?;
                o.imm = ins.immediate(1) as u32;
                alu_pick!(a, sz, alu_ri)
            }
            (OpKind::Memory, OpKind::Register) => {
                o.r = reg_op(ins, 1)?;
                if lock {
                    alu_pick!(a, sz, alu_mr_lock)
                } else {
                    alu_pick!(a, sz, alu_mr)
                }
            }
            (OpKind::Memory, _) if is_imm(ins, 1) => {
                o.imm = ins.immediate(1) as u32;
                if lock {
                    alu_pick!(a, sz, alu_mi_lock)
                } else {
                    alu_pick!(a, sz, alu_mi)
                }
            }
            _ => return None,
        });
    }
    let un = match m {
        Mnemonic::Inc => Some(INC),
        Mnemonic::Dec => Some(DEC),
        Mnemonic::Neg => Some(NEG),
        Mnemonic::Not => Some(NOT),
        _ => None,
    };
    if let Some(u) = un {
        let sz = op0_size(ins);
        return Some(match ins.op_kind(0) {
            OpKind::Register => {
                o.r = reg_op(ins, 0)?;
                unary_pick!(u, sz, unary_r)
            }
            OpKind::Memory if ins.has_lock_prefix() => unary_pick!(u, sz, unary_m_lock),
            OpKind::Memory => unary_pick!(u, sz, unary_m),
            _ => return None,
        });
    }
    match m {
        Mnemonic::Mov => {
            let k0 = ins.op_kind(0);
            let k1 = ins.op_kind(1);
            // Segment and control register moves belong to the system group.
            if (k0 == OpKind::Register && reg_op(ins, 0).is_none())
                || (k1 == OpKind::Register && reg_op(ins, 1).is_none())
            {
                return None;
            }
            let sz = op0_size(ins);
            Some(match (k0, k1) {
                (OpKind::Register, OpKind::Register) => {
                    o.r = reg_op(ins, 0)?;
                    o.rm = reg_op(ins, 1)?;
                    by_size!(sz, mov_rr)
                }
                (OpKind::Register, OpKind::Memory) => {
                    o.r = reg_op(ins, 0)?;
                    by_size!(sz, mov_rm)
                }
                (OpKind::Register, _) => {
                    o.r = reg_op(ins, 0)?;
                    o.imm = ins.immediate(1) as u32;
                    by_size!(sz, mov_ri)
                }
                (OpKind::Memory, OpKind::Register) => {
                    o.r = reg_op(ins, 1)?;
                    by_size!(sz, mov_mr)
                }
                (OpKind::Memory, _) => {
                    o.imm = ins.immediate(1) as u32;
                    by_size!(sz, mov_mi)
                }
                _ => return None,
            })
        }
        Mnemonic::Movzx | Mnemonic::Movsx => {
            let sz = op0_size(ins);
            o.r = reg_op(ins, 0)?;
            let src = match ins.op_kind(1) {
                OpKind::Register => reg_size(ins.op1_register()),
                _ => (ins.memory_size().size() * 8) as u32,
            };
            let sx = m == Mnemonic::Movsx;
            let mem = ins.op_kind(1) == OpKind::Memory;
            if !mem {
                o.rm = reg_op(ins, 1)?;
            }
            Some(match (src, sx, mem) {
                (8, false, false) => by_size!(sz, movx_rr::<8, false>),
                (8, true, false) => by_size!(sz, movx_rr::<8, true>),
                (16, false, false) => by_size!(sz, movx_rr::<16, false>),
                (16, true, false) => by_size!(sz, movx_rr::<16, true>),
                (8, false, true) => by_size!(sz, movx_rm::<8, false>),
                (8, true, true) => by_size!(sz, movx_rm::<8, true>),
                (16, false, true) => by_size!(sz, movx_rm::<16, false>),
                (16, true, true) => by_size!(sz, movx_rm::<16, true>),
                _ => return None,
            })
        }
        Mnemonic::Lea => {
            o.r = reg_op(ins, 0)?;
            // LEA yields the offset: no segment base.
            o.seg = crate::cpu::seg::NONE;
            Some(by_size!(op0_size(ins), lea))
        }
        Mnemonic::Xchg => {
            let sz = op0_size(ins);
            match (ins.op_kind(0), ins.op_kind(1)) {
                (OpKind::Register, OpKind::Register) => {
                    o.r = reg_op(ins, 0)?;
                    o.rm = reg_op(ins, 1)?;
                    Some(by_size!(sz, xchg_rr))
                }
                (OpKind::Memory, OpKind::Register) => {
                    o.r = reg_op(ins, 1)?;
                    Some(by_size!(sz, xchg_rm))
                }
                (OpKind::Register, OpKind::Memory) => {
                    o.r = reg_op(ins, 0)?;
                    Some(by_size!(sz, xchg_rm))
                }
                _ => None,
            }
        }
        Mnemonic::Cbw => Some(cbw),
        Mnemonic::Cwde => Some(cwde),
        Mnemonic::Cwd => Some(cwd),
        Mnemonic::Cdq => Some(cdq),
        Mnemonic::Nop | Mnemonic::Pause => Some(nop),
        _ => None,
    }
}
