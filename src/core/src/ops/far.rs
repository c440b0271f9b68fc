//! Far transfers and far-pointer loads at CPL 3: JMP/CALL far (ptr16:16/32 and
//! m16:16/32), RETF (with and without an immediate), IRET, and LDS LES LFS LGS LSS.
//!
//! In a Win32 process the only code segment user mode may enter is the flat one
//! (`cpu::segs`), so a far transfer that passes the checks is a near transfer that
//! also pushes or pops CS; any other selector raises #GP before anything changes
//! (`ExceptionKind::GeneralProtection`). A 16-bit operand size pushes and pops
//! 16-bit values and truncates the new EIP to 16 bits, as the CPU does.

use super::reg_op;
use crate::cpu::segs::Load;
use crate::cpu::{Cpu, ESP, ExceptionKind, Exit, seg};
use crate::exec::chain::jump_chain as jump;
use crate::exec::op::{Handler, Op, fault, next, raise};
use crate::mem::Fault;
use crate::mtry;
use iced_x86::{Code, Instruction, Register};

#[cold]
#[inline(never)]
fn gp(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::GeneralProtection)
}

/// Offset masked to the operand size.
#[inline(always)]
fn off<const S: u32>(v: u32) -> u32 {
    if S == 16 { v & 0xffff } else { v }
}

/// `selector:offset` from memory: the offset (S bits) then the selector.
#[inline(always)]
fn far_ptr<const S: u32>(cpu: &Cpu, o: &Op) -> Result<(u16, u32), Fault> {
    let ea = cpu.ea(o);
    let v = cpu.load(S, ea)?;
    let s = cpu.mem.read_u16(ea.wrapping_add(S / 8))?;
    Ok((s, v))
}

/// Enters the flat code segment through `sel` at `target`, or #GP.
#[inline(always)]
fn far_jump(cpu: &mut Cpu, ops: &[Op], i: usize, sel: u16, target: u32) -> Exit {
    let Some((cs, _)) = cpu.gdt.check(sel, Load::Transfer) else {
        return gp(cpu, ops, i);
    };
    cpu.seg_sel[seg::CS as usize] = cs;
    jump(cpu, target)
}

/// Pushes CS and the return address (S bits each; CS zero-extended) and enters
/// `sel:target`; a fault in either push leaves ESP and CS as they were.
#[inline(always)]
fn far_call<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize, sel: u16, target: u32) -> Exit {
    let Some((cs, _)) = cpu.gdt.check(sel, Load::Transfer) else {
        return gp(cpu, ops, i);
    };
    let sp = cpu.regs[ESP];
    let old = cpu.seg_sel[seg::CS as usize] as u32;
    // A return address in decoded code is replayed by the run loop (as near CALL).
    let r = cpu
        .push(S, old)
        .and_then(|_| cpu.push(S, off::<S>(ops[i].next)));
    if let Err(f) = r {
        cpu.regs[ESP] = sp;
        return fault(cpu, ops, i, f);
    }
    cpu.seg_sel[seg::CS as usize] = cs;
    jump(cpu, target)
}

fn jmp_far_ptr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    far_jump(cpu, ops, i, o.imm2 as u16, o.imm)
}

fn jmp_far_m<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let (s, t) = mtry!(cpu, ops, i, far_ptr::<S>(cpu, &ops[i]));
    far_jump(cpu, ops, i, s, t)
}

fn call_far_ptr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    far_call::<S>(cpu, ops, i, o.imm2 as u16, o.imm)
}

fn call_far_m<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let (s, t) = mtry!(cpu, ops, i, far_ptr::<S>(cpu, &ops[i]));
    far_call::<S>(cpu, ops, i, s, t)
}

/// RETF [imm16]: pops EIP and CS (a return to the same level: CS's RPL must be
/// 3), then releases `o.imm` more bytes.
fn retf<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let n = S / 8;
    let t = mtry!(cpu, ops, i, cpu.peek(S, 0));
    let s = mtry!(cpu, ops, i, cpu.peek(S, n)) as u16;
    let Some((cs, _)) = cpu.gdt.check(s, Load::Return) else {
        return gp(cpu, ops, i);
    };
    cpu.regs[ESP] = cpu.regs[ESP].wrapping_add(2 * n + ops[i].imm);
    cpu.seg_sel[seg::CS as usize] = cs;
    jump(cpu, t)
}

/// IRET at CPL 3 to the same level: pops EIP, CS and EFLAGS, which load as POPF
/// loads them at CPL 3 (IF and IOPL stay; a 16-bit IRET keeps the upper half).
/// With NT set IRET would return to another task, which a protected-mode OS
/// refuses: #GP.
fn iret<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    const NT: u32 = 1 << 14;
    if cpu.eflags() & NT != 0 {
        return gp(cpu, ops, i);
    }
    let n = S / 8;
    let t = mtry!(cpu, ops, i, cpu.peek(S, 0));
    let s = mtry!(cpu, ops, i, cpu.peek(S, n)) as u16;
    let f = mtry!(cpu, ops, i, cpu.peek(S, 2 * n));
    let Some((cs, _)) = cpu.gdt.check(s, Load::Return) else {
        return gp(cpu, ops, i);
    };
    cpu.regs[ESP] = cpu.regs[ESP].wrapping_add(3 * n);
    let f = if S == 16 {
        (cpu.eflags() & 0xffff_0000) | f
    } else {
        f
    };
    cpu.set_eflags(f);
    cpu.seg_sel[seg::CS as usize] = cs;
    jump(cpu, t)
}

/// LDS/LES/LFS/LGS/LSS r, m16:16/32: register `o.r` and segment register `o.x`
/// from a far pointer; a selector the segment register may not take faults with
/// neither loaded.
fn lxs<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let (s, v) = mtry!(cpu, ops, i, far_ptr::<S>(cpu, o));
    let Some(changed) = load_sreg(cpu, o.x, s) else {
        return gp(cpu, ops, i);
    };
    cpu.set_reg(S, o.r, v);
    after_load(cpu, ops, i, changed)
}

/// Loads segment register `s` (not CS) with `sel` and the base its descriptor
/// gives: None (nothing changed) when `sel` may not go there (#GP), else whether
/// the set of null data segment registers changed, after which the instruction
/// must end its block ([`after_load`]).
#[inline]
pub(crate) fn load_sreg(cpu: &mut Cpu, s: u8, sel: u16) -> Option<bool> {
    cpu.load_segment(s, sel)
}

/// After a segment load at op `i`: the next op, or, when the null data segment
/// registers changed, the end of the block after this instruction, so the
/// executor re-decodes what follows under the new set.
#[inline(always)]
pub(crate) fn after_load(cpu: &mut Cpu, ops: &[Op], i: usize, changed: bool) -> Exit {
    if changed {
        return crate::exec::op::end_after(cpu, ops, i);
    }
    next(cpu, ops, i)
}

/// An instruction whose memory access goes through a data segment register
/// holding a null selector (`decode::decode_block` puts this handler in its
/// place): #GP.
pub(crate) fn null_segment(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    gp(cpu, ops, i)
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Code::*;
    let c = ins.code();
    let sreg = |r: Register| crate::decode::seg_slot(r);
    Some(match c {
        Jmp_ptr1632 | Call_ptr1632 => {
            o.imm = ins.far_branch32();
            o.imm2 = ins.far_branch_selector() as u32;
            if c == Jmp_ptr1632 {
                jmp_far_ptr::<32>
            } else {
                call_far_ptr::<32>
            }
        }
        Jmp_ptr1616 | Call_ptr1616 => {
            o.imm = ins.far_branch16() as u32;
            o.imm2 = ins.far_branch_selector() as u32;
            if c == Jmp_ptr1616 {
                jmp_far_ptr::<16>
            } else {
                call_far_ptr::<16>
            }
        }
        Jmp_m1632 => jmp_far_m::<32>,
        Jmp_m1616 => jmp_far_m::<16>,
        Call_m1632 => call_far_m::<32>,
        Call_m1616 => call_far_m::<16>,
        Retfd | Retfw | Retfd_imm16 | Retfw_imm16 => {
            o.imm = if matches!(c, Retfd_imm16 | Retfw_imm16) {
                ins.immediate16() as u32
            } else {
                0
            };
            if matches!(c, Retfd | Retfd_imm16) {
                retf::<32>
            } else {
                retf::<16>
            }
        }
        Iretd => iret::<32>,
        Iretw => iret::<16>,
        Lds_r32_m1632 | Les_r32_m1632 | Lfs_r32_m1632 | Lgs_r32_m1632 | Lss_r32_m1632
        | Lds_r16_m1616 | Les_r16_m1616 | Lfs_r16_m1616 | Lgs_r16_m1616 | Lss_r16_m1616 => {
            o.r = reg_op(ins, 0)?;
            o.x = sreg(match ins.mnemonic() {
                iced_x86::Mnemonic::Lds => Register::DS,
                iced_x86::Mnemonic::Les => Register::ES,
                iced_x86::Mnemonic::Lfs => Register::FS,
                iced_x86::Mnemonic::Lgs => Register::GS,
                _ => Register::SS,
            });
            if ins.op0_register().is_gpr16() {
                lxs::<16>
            } else {
                lxs::<32>
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::StopReason;
    use crate::cpu::{EAX, EBX, ECX, ESP, ExceptionKind, seg};
    use crate::harness::{CODE, DATA, EXIT, Machine, STACK_TOP};

    fn le(v: u32) -> [u8; 4] {
        v.to_le_bytes()
    }

    /// Code at CODE: `parts` placed at their offsets (0xcc between them).
    fn program(parts: &[(u32, Vec<u8>)]) -> Vec<u8> {
        let mut code = vec![0xcc; 0x100];
        for (at, b) in parts {
            code[*at as usize..*at as usize + b.len()].copy_from_slice(b);
        }
        code
    }

    fn exit() -> Vec<u8> {
        let mut v = vec![0xb9];
        v.extend(le(EXIT));
        v.extend([0xff, 0xe1]); // mov ecx, EXIT; jmp ecx
        v
    }

    #[test]
    fn far_transfers_through_the_flat_code_selector() {
        let mut m = Machine::new();
        m.mem.write_u32(DATA, CODE + 0x60).unwrap();
        m.mem.write_u16(DATA + 4, 0x1b).unwrap();
        let cat = |v: &[&[u8]]| v.concat();
        let code = program(&[
            // call far 0x1b:CODE+0x40; jmp far [DATA]
            (
                0x00,
                cat(&[
                    &[0x9a],
                    &le(CODE + 0x40),
                    &[0x1b, 0],
                    &[0xff, 0x2d],
                    &le(DATA),
                ]),
            ),
            // mov eax, [esp]; mov ebx, [esp+4]; retf
            (0x40, vec![0x8b, 0x04, 0x24, 0x8b, 0x5c, 0x24, 0x04, 0xcb]),
            // pushfd; push cs; push CODE+0x80; iretd
            (0x60, cat(&[&[0x9c, 0x0e, 0x68], &le(CODE + 0x80), &[0xcf]])),
            // push 0x5555; push cs; push CODE+0xa0; retf 4
            (
                0x80,
                cat(&[
                    &[0x68],
                    &le(0x5555),
                    &[0x0e, 0x68],
                    &le(CODE + 0xa0),
                    &[0xca, 4, 0],
                ]),
            ),
            (0xa0, exit()),
        ]);
        m.load(&code);
        assert_eq!(m.run(1000), StopReason::Thunk(EXIT));
        assert_eq!(m.cpu.regs[EAX], CODE + 7);
        assert_eq!(m.cpu.regs[EBX], 0x1b);
        assert_eq!(m.cpu.regs[ESP], STACK_TOP - 16);
        assert_eq!(m.cpu.seg_sel[seg::CS as usize], 0x1b);
    }

    /// Runs `code` (at CODE) to its first exception; the machine and the kind.
    fn fault(setup: impl FnOnce(&mut Machine), code: &[u8]) -> (Machine, ExceptionKind) {
        let mut m = Machine::new();
        setup(&mut m);
        let mut c = code.to_vec();
        c.extend(exit());
        m.load(&c);
        match m.run(1000) {
            StopReason::Exception(e) => {
                assert_eq!(e.eip, CODE, "fault at the first instruction");
                (m, e.kind)
            }
            r => panic!("expected a fault, got {r:?}"),
        }
    }

    #[test]
    fn other_selectors_raise_general_protection() {
        let gp = ExceptionKind::GeneralProtection;
        let top = STACK_TOP - 16;
        let stack = |v: &[u32]| {
            let v = v.to_vec();
            move |m: &mut Machine| {
                for (k, x) in v.iter().enumerate() {
                    m.mem.write_u32(top + 4 * k as u32, *x).unwrap();
                }
            }
        };
        let cases: Vec<(&str, Box<dyn FnOnce(&mut Machine)>, Vec<u8>)> = vec![
            // Data, kernel code and null selectors as far targets.
            (
                "call far 0x23",
                Box::new(|_| {}),
                [&[0x9a][..], &le(CODE), &[0x23, 0]].concat(),
            ),
            (
                "jmp far 0x08",
                Box::new(|_| {}),
                [&[0xea][..], &le(CODE), &[0x08, 0]].concat(),
            ),
            (
                "jmp far 0",
                Box::new(|_| {}),
                [&[0xea][..], &le(CODE), &[0, 0]].concat(),
            ),
            // Returns to RPL 0, to a data segment, to an LDT selector.
            ("retf 0x18", Box::new(stack(&[CODE, 0x18])), vec![0xcb]),
            (
                "retf 0x23",
                Box::new(stack(&[CODE, 0x23])),
                vec![0xca, 8, 0],
            ),
            (
                "iretd 0x1f",
                Box::new(stack(&[CODE, 0x1f, 0x202])),
                vec![0xcf],
            ),
            // LSS with a null selector, LDS with a kernel one.
            (
                "lss null",
                Box::new(|m: &mut Machine| {
                    m.mem.write_u32(DATA + 4, 0).unwrap();
                }),
                [&[0x0f, 0xb2, 0x05][..], &le(DATA)].concat(),
            ),
            (
                "lds 0x10",
                Box::new(|m: &mut Machine| {
                    m.mem.write_u32(DATA + 4, 0x10).unwrap();
                }),
                [&[0xc5, 0x05][..], &le(DATA)].concat(),
            ),
        ];
        for (name, setup, code) in cases {
            let (m, k) = fault(setup, &code);
            assert_eq!(k, gp, "{name}");
            assert_eq!(m.cpu.regs[ESP], top, "{name}: ESP");
            assert_eq!(
                m.cpu.seg_sel,
                crate::cpu::Cpu::selectors(&m.cpu.gdt),
                "{name}: selectors"
            );
            assert_eq!(m.cpu.regs[EAX], 0, "{name}: EAX");
        }
        // IRET with NT set would switch tasks.
        let (_, k) = fault(
            |m| {
                stack(&[CODE, 0x1b, 0x202])(m);
                m.cpu.set_eflags(0x4202);
            },
            &[0xcf],
        );
        assert_eq!(k, gp);
        // A far call whose pushes fault leaves ESP alone.
        let (m, k) = fault(
            |m| m.cpu.regs[ESP] = 0x1000,
            &[&[0x9a][..], &le(CODE), &[0x1b, 0]].concat(),
        );
        assert!(matches!(k, ExceptionKind::AccessViolation(_)), "{k:?}");
        assert_eq!(m.cpu.regs[ESP], 0x1000);
    }

    #[test]
    fn null_data_segments_fault_on_use() {
        let gp = ExceptionKind::GeneralProtection;
        // GS holds the null selector on Windows: a GS access faults, LEA does not.
        let (_, k) = fault(|_| {}, &[0x65, 0xa1, 0, 0, 0, 0]); // mov eax, gs:[0]
        assert_eq!(k, gp);
        // A null ES: loading it is allowed, the next access through it (explicit or
        // STOS's ES:EDI) faults; DS still works; a flat selector back makes ES work.
        for (tail, faults) in [
            (&[0x26, 0x8b, 0x03][..], true), // mov eax, es:[ebx]
            (&[0xaa], true),                 // stosb
            (&[0x8b, 0x03], false),          // mov eax, [ebx]
            (&[0x65, 0x8d, 0x03], false),    // lea eax, gs:[ebx]
            // fld dword gs:[ebx]; fld st0; fstp st0: an x87 run the fusion tier
            // would take, whose load must fault all the same.
            (&[0x65, 0xd9, 0x03, 0xd9, 0xc0, 0xdd, 0xd8], true),
        ] {
            let mut m = Machine::new();
            m.cpu.regs[EBX] = DATA;
            m.cpu.regs[7] = DATA; // EDI
            let mut code = vec![0x31, 0xc9, 0x8e, 0xc1]; // xor ecx, ecx; mov es, cx
            code.extend_from_slice(tail);
            let at = CODE + 4;
            code.extend([0xb9, 0x23, 0, 0, 0, 0x8e, 0xc1]); // mov ecx, 0x23; mov es, cx
            code.extend([0x26, 0x8b, 0x13]); // mov edx, es:[ebx]
            code.extend(exit());
            m.load(&code);
            m.mem.write_u32(DATA, 0x1234).unwrap();
            match m.run(1000) {
                StopReason::Exception(e) => {
                    assert!(faults, "{tail:02x?}: {e:?}");
                    assert_eq!((e.kind, e.eip), (gp, at), "{tail:02x?}");
                }
                StopReason::Thunk(EXIT) => {
                    assert!(!faults, "{tail:02x?} ran");
                    assert_eq!(m.cpu.regs[2], 0x1234, "es works again");
                }
                r => panic!("{r:?}"),
            }
        }
    }

    #[test]
    fn far_pointer_loads() {
        let mut m = Machine::new();
        m.cpu.set_seg_base(seg::FS, 0x7ffd_e000);
        m.mem.write_u32(DATA, 0x1234_5678).unwrap();
        m.mem.write_u16(DATA + 4, 0x3b).unwrap();
        m.mem.write_u32(DATA + 8, 0x9abc_def0).unwrap();
        m.mem.write_u16(DATA + 12, 0x23).unwrap();
        m.mem.write_u16(DATA + 16, 0x4321).unwrap();
        m.mem.write_u16(DATA + 18, 0).unwrap();
        let code = [
            &[0x0f, 0xb5, 0x05][..], // lgs eax, [DATA]: the TEB segment
            &le(DATA),
            &[0x0f, 0xb2, 0x1d], // lss ebx, [DATA+8]
            &le(DATA + 8),
            &[0x66, 0xc4, 0x0d], // les cx, [DATA+16]: a null selector
            &le(DATA + 16),
            &exit(),
        ]
        .concat();
        m.load(&code);
        m.cpu.regs[ECX] = 0xffff_ffff;
        assert_eq!(m.run(1000), StopReason::Thunk(EXIT));
        assert_eq!(m.cpu.regs[EAX], 0x1234_5678);
        assert_eq!(m.cpu.seg_sel[seg::GS as usize], 0x3b);
        assert_eq!(m.cpu.seg_base[seg::GS as usize], 0x7ffd_e000);
        assert_eq!(m.cpu.regs[EBX], 0x9abc_def0);
        assert_eq!(m.cpu.seg_sel[seg::SS as usize], 0x23);
        assert_eq!(m.cpu.seg_sel[seg::ES as usize], 0);
    }
}
