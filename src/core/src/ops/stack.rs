//! Stack: PUSH/POP (register, memory, immediate), PUSHA/POPA, PUSHF/POPF, ENTER,
//! LEAVE. Multi-store forms probe the whole range first so a fault changes nothing.

use super::reg_op;
use crate::cpu::{Cpu, EBP, ESP, Exit, seg};
use crate::exec::op::{Handler, Op, after_store, fault, next};
use crate::mem::Wrote;
use crate::mtry;
use iced_x86::{Code, Instruction, Mnemonic, OpKind};

fn push_r<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = cpu.reg(S, ops[i].r);
    let w = mtry!(cpu, ops, i, cpu.push(S, v));
    after_store(cpu, ops, i, w)
}

fn push_i<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let w = mtry!(cpu, ops, i, cpu.push(S, ops[i].imm));
    after_store(cpu, ops, i, w)
}

fn push_m<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(&ops[i])));
    let w = mtry!(cpu, ops, i, cpu.push(S, v));
    after_store(cpu, ops, i, w)
}

fn pop_r<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = mtry!(cpu, ops, i, cpu.pop(S));
    cpu.set_reg(S, ops[i].r, v);
    next(cpu, ops, i)
}

/// POP to memory: the address is computed with ESP already incremented (SDM: POP).
fn pop_m<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = mtry!(cpu, ops, i, cpu.peek(S, 0));
    let old = cpu.regs[ESP];
    cpu.regs[ESP] = old.wrapping_add(S / 8);
    let ea = cpu.ea(&ops[i]);
    match cpu.store(S, ea, v) {
        Ok(w) => after_store(cpu, ops, i, w),
        Err(f) => {
            cpu.regs[ESP] = old;
            fault(cpu, ops, i, f)
        }
    }
}

fn stack_addr(cpu: &Cpu, sp: u32) -> u32 {
    sp.wrapping_add(cpu.seg_base[seg::SS as usize])
}

fn pusha<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let n = S / 8;
    let sp = cpu.regs[ESP];
    mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .probe_write(stack_addr(cpu, sp.wrapping_sub(8 * n)), 8 * n)
    );
    let mut code = false;
    for r in 0..8u8 {
        let v = if r as usize == ESP { sp } else { cpu.reg(S, r) };
        let a = stack_addr(cpu, sp.wrapping_sub((r as u32 + 1) * n));
        code |= mtry!(cpu, ops, i, cpu.store(S, a, v)) == Wrote::Code;
    }
    cpu.regs[ESP] = sp.wrapping_sub(8 * n);
    after_store(cpu, ops, i, if code { Wrote::Code } else { Wrote::Data })
}

fn popa<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let n = S / 8;
    let sp = cpu.regs[ESP];
    let mut vals = [0u32; 8];
    for (k, v) in vals.iter_mut().enumerate() {
        *v = mtry!(
            cpu,
            ops,
            i,
            cpu.load(S, stack_addr(cpu, sp.wrapping_add(k as u32 * n)))
        );
    }
    for k in 0..8usize {
        let r = 7 - k;
        if r != ESP {
            cpu.set_reg(S, r as u8, vals[k]);
        }
    }
    cpu.regs[ESP] = sp.wrapping_add(8 * n);
    next(cpu, ops, i)
}

fn pushf<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    // VM and RF always read as 0 in the pushed image.
    let v = cpu.eflags() & !0x0003_0000;
    let w = mtry!(cpu, ops, i, cpu.push(S, v));
    after_store(cpu, ops, i, w)
}

fn popf<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = mtry!(cpu, ops, i, cpu.pop(S));
    let v = if S == 16 {
        (cpu.eflags() & 0xffff_0000) | v
    } else {
        v
    };
    cpu.set_eflags(v);
    next(cpu, ops, i)
}

/// LEAVE: the stack's address size (32 bits, SS is flat) decides what is copied,
/// so `ESP = EBP` for both operand sizes; the operand size only sets the width of
/// the pop into (E)BP.
fn leave<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let bp = cpu.regs[EBP];
    let v = mtry!(cpu, ops, i, cpu.load(S, stack_addr(cpu, bp)));
    cpu.regs[ESP] = bp.wrapping_add(S / 8);
    cpu.set_reg(S, EBP as u8, v);
    next(cpu, ops, i)
}

/// ENTER size, level. The operand size `S` sets the width of every push (the old
/// frame pointer, the copied ones, the new one) and of the frame pointer written
/// (with 16 bits only BP changes); the stack's address size (32 bits, SS is flat)
/// makes ESP, and EBP as the copy source, move in 32 bits (SDM ENTER).
fn enter<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let size = o.imm;
    let level = o.imm2 & 31;
    let w = S / 8;
    let sp = cpu.regs[ESP];
    let bp = cpu.regs[EBP];
    // Everything ENTER writes: (E)BP, level-1 copied frame pointers, the new frame pointer.
    let writes = w + if level > 0 { w * level } else { 0 };
    mtry!(
        cpu,
        ops,
        i,
        cpu.mem
            .probe_write(stack_addr(cpu, sp.wrapping_sub(writes)), writes)
    );
    let mut reads = Vec::new();
    for k in 1..level {
        reads.push(mtry!(
            cpu,
            ops,
            i,
            cpu.load(S, stack_addr(cpu, bp.wrapping_sub(w * k)))
        ));
    }
    let mut code = false;
    let mut p = sp.wrapping_sub(w);
    code |= mtry!(cpu, ops, i, cpu.store(S, stack_addr(cpu, p), bp)) == Wrote::Code;
    let frame = p;
    for v in reads {
        p = p.wrapping_sub(w);
        code |= mtry!(cpu, ops, i, cpu.store(S, stack_addr(cpu, p), v)) == Wrote::Code;
    }
    if level > 0 {
        p = p.wrapping_sub(w);
        code |= mtry!(cpu, ops, i, cpu.store(S, stack_addr(cpu, p), frame)) == Wrote::Code;
    }
    cpu.set_reg(S, EBP as u8, frame);
    cpu.regs[ESP] = p.wrapping_sub(size);
    after_store(cpu, ops, i, if code { Wrote::Code } else { Wrote::Data })
}

fn size16(ins: &Instruction) -> bool {
    ins.op_code().operand_size() == 16
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let s16 = size16(ins);
    macro_rules! sz {
        ($f:ident) => {
            if s16 {
                $f::<16> as Handler
            } else {
                $f::<32> as Handler
            }
        };
    }
    match ins.mnemonic() {
        Mnemonic::Push => match ins.op_kind(0) {
            OpKind::Register => {
                let r = reg_op(ins, 0)?;
                o.r = r;
                Some(if super::reg_size(ins.op0_register()) == 16 {
                    push_r::<16>
                } else {
                    push_r::<32>
                })
            }
            OpKind::Memory => Some(sz!(push_m)),
            OpKind::Immediate8to16 | OpKind::Immediate16 => {
                o.imm = ins.immediate(0) as u32;
                Some(push_i::<16>)
            }
            OpKind::Immediate8to32 | OpKind::Immediate32 => {
                o.imm = ins.immediate(0) as u32;
                Some(push_i::<32>)
            }
            _ => None,
        },
        Mnemonic::Pop => match ins.op_kind(0) {
            OpKind::Register => {
                o.r = reg_op(ins, 0)?;
                Some(if super::reg_size(ins.op0_register()) == 16 {
                    pop_r::<16>
                } else {
                    pop_r::<32>
                })
            }
            OpKind::Memory => Some(sz!(pop_m)),
            _ => None,
        },
        Mnemonic::Pushad => Some(pusha::<32>),
        Mnemonic::Pusha => Some(pusha::<16>),
        Mnemonic::Popad => Some(popa::<32>),
        Mnemonic::Popa => Some(popa::<16>),
        Mnemonic::Pushfd => Some(pushf::<32>),
        Mnemonic::Pushf => Some(pushf::<16>),
        Mnemonic::Popfd => Some(popf::<32>),
        Mnemonic::Popf => Some(popf::<16>),
        Mnemonic::Leave => Some(if ins.code() == Code::Leavew {
            leave::<16>
        } else {
            leave::<32>
        }),
        Mnemonic::Enter => {
            o.imm = ins.immediate16() as u32;
            o.imm2 = ins.immediate8_2nd() as u32;
            Some(if ins.code() == Code::Enterw_imm16_imm8 {
                enter::<16>
            } else {
                enter::<32>
            })
        }
        _ => None,
    }
}
