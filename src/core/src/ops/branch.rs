//! Control transfers: JMP, Jcc, CALL, RET, LOOP/LOOPE/LOOPNE/JECXZ, INT3, INT n,
//! INTO, UD2, and the privileged HLT. Every handler here ends its block.

use crate::cpu::{Cpu, ECX, ESP, ExceptionKind, Exit};
use crate::exec::chain::jump_chain as jump;
use crate::exec::op::{Handler, Op, fault, raise};
use crate::mtry;
use iced_x86::{Code, Instruction, Mnemonic, OpKind};

fn jmp_rel(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    jump(cpu, ops[i].imm)
}

fn jmp_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = cpu.r32(ops[i].r);
    jump(cpu, t)
}

fn jmp_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.mem.read_u32(cpu.ea(&ops[i])));
    jump(cpu, t)
}

fn jcc<const CC: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let t = if cpu.flags.cond(CC) { o.imm } else { o.next };
    jump(cpu, t)
}

#[inline(always)]
fn call_to(cpu: &mut Cpu, ops: &[Op], i: usize, target: u32) -> Exit {
    // A return address that lands in decoded code still transfers: the run loop
    // replays the code write before the next block, so `Wrote` needs no handling.
    match cpu.push(32, ops[i].next) {
        Ok(_) => jump(cpu, target),
        Err(f) => fault(cpu, ops, i, f),
    }
}

fn call_rel(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    call_to(cpu, ops, i, ops[i].imm)
}

fn call_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = cpu.r32(ops[i].r);
    call_to(cpu, ops, i, t)
}

fn call_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.mem.read_u32(cpu.ea(&ops[i])));
    call_to(cpu, ops, i, t)
}

/// CALL with a 16-bit operand size: pushes the low 16 bits of the return address;
/// the target is already 16 bits (IP).
fn call16_to(cpu: &mut Cpu, ops: &[Op], i: usize, target: u32) -> Exit {
    match cpu.push(16, ops[i].next & 0xffff) {
        Ok(_) => jump(cpu, target),
        Err(f) => fault(cpu, ops, i, f),
    }
}

fn call16_rel(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    call16_to(cpu, ops, i, ops[i].imm)
}

fn call16_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = cpu.r16(ops[i].r);
    call16_to(cpu, ops, i, t)
}

fn call16_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.mem.read_u16(cpu.ea(&ops[i])));
    call16_to(cpu, ops, i, t as u32)
}

fn jmp16_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = cpu.r16(ops[i].r);
    jump(cpu, t)
}

fn jmp16_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.mem.read_u16(cpu.ea(&ops[i])));
    jump(cpu, t as u32)
}

/// RET with a 16-bit operand size: pops IP (EIP's upper half becomes 0), then
/// releases `o.imm` bytes.
fn ret16(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.pop(16));
    cpu.regs[ESP] = cpu.regs[ESP].wrapping_add(ops[i].imm);
    jump(cpu, t)
}

fn ret(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.pop(32));
    jump(cpu, t)
}

fn ret_imm(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = mtry!(cpu, ops, i, cpu.pop(32));
    cpu.regs[ESP] = cpu.regs[ESP].wrapping_add(ops[i].imm);
    jump(cpu, t)
}

/// LOOP family; `X` = 0 LOOP, 1 LOOPE, 2 LOOPNE, 3 JECXZ. `A16` uses CX.
fn loop_<const X: u8, const A16: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let taken = if X == 3 {
        if A16 {
            cpu.regs[ECX] & 0xffff == 0
        } else {
            cpu.regs[ECX] == 0
        }
    } else {
        let c = if A16 {
            let c = cpu.regs[ECX].wrapping_sub(1) & 0xffff;
            cpu.set_r16(ECX as u8, c);
            c
        } else {
            cpu.regs[ECX] = cpu.regs[ECX].wrapping_sub(1);
            cpu.regs[ECX]
        };
        c != 0
            && match X {
                1 => cpu.flags.zf(),
                2 => !cpu.flags.zf(),
                _ => true,
            }
    };
    jump(cpu, if taken { o.imm } else { o.next })
}

fn int3(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::Breakpoint)
}

fn int_n(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(
        cpu,
        ops,
        i,
        ExceptionKind::SoftwareInterrupt(ops[i].imm as u8),
    )
}

fn int1(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::Int1)
}

fn into(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if cpu.flags.of() {
        return raise(cpu, ops, i, ExceptionKind::Overflow);
    }
    jump(cpu, ops[i].next)
}

fn ud(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::InvalidOpcode)
}

fn privileged(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::Privileged)
}

fn jcc_handler(cc: u8) -> Handler {
    const T: [Handler; 16] = [
        jcc::<0>, jcc::<1>, jcc::<2>, jcc::<3>, jcc::<4>, jcc::<5>, jcc::<6>, jcc::<7>, jcc::<8>,
        jcc::<9>, jcc::<10>, jcc::<11>, jcc::<12>, jcc::<13>, jcc::<14>, jcc::<15>,
    ];
    T[(cc & 15) as usize]
}

/// x86 condition-code number (0 = O ... 15 = G) of a Jcc/SETcc/CMOVcc mnemonic.
pub fn cond_code(m: Mnemonic) -> Option<u8> {
    use Mnemonic::*;
    Some(match m {
        Jo | Seto | Cmovo => 0,
        Jno | Setno | Cmovno => 1,
        Jb | Setb | Cmovb => 2,
        Jae | Setae | Cmovae => 3,
        Je | Sete | Cmove => 4,
        Jne | Setne | Cmovne => 5,
        Jbe | Setbe | Cmovbe => 6,
        Ja | Seta | Cmova => 7,
        Js | Sets | Cmovs => 8,
        Jns | Setns | Cmovns => 9,
        Jp | Setp | Cmovp => 10,
        Jnp | Setnp | Cmovnp => 11,
        Jl | Setl | Cmovl => 12,
        Jge | Setge | Cmovge => 13,
        Jle | Setle | Cmovle => 14,
        Jg | Setg | Cmovg => 15,
        _ => return None,
    })
}

fn branch_target(ins: &Instruction) -> Option<u32> {
    match ins.op_kind(0) {
        OpKind::NearBranch32 | OpKind::NearBranch16 => Some(ins.near_branch_target() as u32),
        _ => None,
    }
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let m = ins.mnemonic();
    // A 16-bit operand size truncates a relative target to IP: iced's target
    // already is.
    if let Some(cc) = cond_code(m) {
        if ins.flow_control() != iced_x86::FlowControl::ConditionalBranch {
            return None;
        }
        o.imm = branch_target(ins)?;
        o.x = cc;
        return Some(jcc_handler(cc));
    }
    match m {
        // With a 16-bit operand size the target is IP, zero-extended (iced has
        // truncated a relative one); nothing is mapped there in a Win32 process, so
        // these fault at the target, as on the CPU.
        Mnemonic::Jmp => match ins.op_kind(0) {
            OpKind::NearBranch32 | OpKind::NearBranch16 => {
                o.imm = branch_target(ins)?;
                Some(jmp_rel)
            }
            OpKind::Register if ins.code() == Code::Jmp_rm16 => {
                o.r = super::reg_op(ins, 0)?;
                Some(jmp16_r)
            }
            OpKind::Memory if ins.code() == Code::Jmp_rm16 => Some(jmp16_m),
            OpKind::Register if ins.code() == Code::Jmp_rm32 => {
                o.r = super::reg_op(ins, 0)?;
                Some(jmp_r)
            }
            OpKind::Memory if ins.code() == Code::Jmp_rm32 => Some(jmp_m),
            _ => None,
        },
        Mnemonic::Call => match ins.op_kind(0) {
            OpKind::NearBranch32 => {
                o.imm = branch_target(ins)?;
                Some(call_rel)
            }
            OpKind::NearBranch16 => {
                o.imm = branch_target(ins)?;
                Some(call16_rel)
            }
            OpKind::Register if ins.code() == Code::Call_rm16 => {
                o.r = super::reg_op(ins, 0)?;
                Some(call16_r)
            }
            OpKind::Memory if ins.code() == Code::Call_rm16 => Some(call16_m),
            OpKind::Register if ins.code() == Code::Call_rm32 => {
                o.r = super::reg_op(ins, 0)?;
                Some(call_r)
            }
            OpKind::Memory if ins.code() == Code::Call_rm32 => Some(call_m),
            _ => None,
        },
        Mnemonic::Ret => match ins.code() {
            Code::Retnd => Some(ret),
            Code::Retnd_imm16 => {
                o.imm = ins.immediate16() as u32;
                Some(ret_imm)
            }
            Code::Retnw => Some(ret16),
            Code::Retnw_imm16 => {
                o.imm = ins.immediate16() as u32;
                Some(ret16)
            }
            _ => None,
        },
        Mnemonic::Loop | Mnemonic::Loope | Mnemonic::Loopne | Mnemonic::Jecxz | Mnemonic::Jcxz => {
            o.imm = branch_target(ins)?;
            // The address size picks the counter (CX with a 67 prefix), whatever the
            // operand size.
            let a16 = m == Mnemonic::Jcxz
                || matches!(
                    ins.code(),
                    Code::Loop_rel8_32_CX
                        | Code::Loope_rel8_32_CX
                        | Code::Loopne_rel8_32_CX
                        | Code::Loop_rel8_16_CX
                        | Code::Loope_rel8_16_CX
                        | Code::Loopne_rel8_16_CX
                );
            Some(match (m, a16) {
                (Mnemonic::Loop, false) => loop_::<0, false>,
                (Mnemonic::Loope, false) => loop_::<1, false>,
                (Mnemonic::Loopne, false) => loop_::<2, false>,
                (Mnemonic::Jecxz, _) => loop_::<3, false>,
                (Mnemonic::Loop, true) => loop_::<0, true>,
                (Mnemonic::Loope, true) => loop_::<1, true>,
                (Mnemonic::Loopne, true) => loop_::<2, true>,
                _ => loop_::<3, true>,
            })
        }
        Mnemonic::Int3 => Some(int3),
        Mnemonic::Int => {
            o.imm = ins.immediate8() as u32;
            Some(if o.imm == 3 { int3 } else { int_n })
        }
        Mnemonic::Into => Some(into),
        Mnemonic::Int1 => Some(int1),
        Mnemonic::Ud2 | Mnemonic::Ud0 | Mnemonic::Ud1 => Some(ud),
        Mnemonic::Hlt
        | Mnemonic::Cli
        | Mnemonic::Sti
        | Mnemonic::In
        | Mnemonic::Out
        | Mnemonic::Insb
        | Mnemonic::Insw
        | Mnemonic::Insd
        | Mnemonic::Outsb
        | Mnemonic::Outsw
        | Mnemonic::Outsd
        | Mnemonic::Lgdt
        | Mnemonic::Lidt
        | Mnemonic::Lldt
        | Mnemonic::Ltr
        | Mnemonic::Lmsw
        | Mnemonic::Clts
        | Mnemonic::Invd
        | Mnemonic::Wbinvd
        | Mnemonic::Invlpg
        | Mnemonic::Rdmsr
        | Mnemonic::Wrmsr => Some(privileged),
        _ => None,
    }
}
