//! Decimal adjust: DAA DAS AAA AAS AAM AAD, following the SDM pseudo-code for the
//! defined flags. The undefined flags are as the AMD Zen host sets them:
//! - DAA/DAS: OF is the signed overflow of the whole adjustment of AL (old AL to
//!   new AL, as an addition for DAA and a subtraction for DAS);
//! - AAA/AAS: SF ZF PF OF are those of the 16-bit `ADD/SUB AX, 0x106` (or of
//!   `AX, 0` when no adjustment is made), taken before AL is masked;
//! - AAM: CF OF AF are 0;
//! - AAD: CF OF AF (like SF ZF PF) are those of `ADD AL, AH*imm8`.

use super::shift::szp;
use crate::cpu::flags::{AF, CF, OF};
use crate::cpu::{Cpu, EAX, ExceptionKind, Exit, FlagOp};
use crate::exec::op::{Handler, Op, next, raise};
use iced_x86::{Instruction, Mnemonic};

fn daa(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let old_al = cpu.regs[EAX] & 0xff;
    let old_cf = cpu.flags.cf();
    let mut al = old_al;
    let mut fl = 0;
    if (al & 0x0f) > 9 || cpu.flags.af() {
        al = (al + 6) & 0xff;
        fl |= AF;
    }
    if old_al > 0x99 || old_cf {
        al = (al + 0x60) & 0xff;
        fl |= CF;
    }
    if !old_al & al & 0x80 != 0 {
        fl |= OF;
    }
    cpu.set_r8(0, al);
    cpu.flags.set_eager(fl | szp::<8>(al));
    next(cpu, ops, i)
}

fn das(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let old_al = cpu.regs[EAX] & 0xff;
    let old_cf = cpu.flags.cf();
    let mut al = old_al;
    let mut fl = 0;
    if (al & 0x0f) > 9 || cpu.flags.af() {
        // CF <- old_CF or borrow from AL - 6.
        if old_cf || al < 6 {
            fl |= CF;
        }
        al = al.wrapping_sub(6) & 0xff;
        fl |= AF;
    }
    if old_al > 0x99 || old_cf {
        al = al.wrapping_sub(0x60) & 0xff;
        fl |= CF;
    }
    if old_al & !al & 0x80 != 0 {
        fl |= OF;
    }
    cpu.set_r8(0, al);
    cpu.flags.set_eager(fl | szp::<8>(al));
    next(cpu, ops, i)
}

/// AAA (`SUB` false) and AAS.
fn aaa_aas<const SUB: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ax = cpu.regs[EAX] & 0xffff;
    let adjust = (ax & 0x0f) > 9 || cpu.flags.af();
    let d = if adjust { 0x106 } else { 0 };
    let (r, ovf) = if SUB {
        let r = ax.wrapping_sub(d) & 0xffff;
        (r, (ax ^ d) & (ax ^ r) & 0x8000 != 0)
    } else {
        let r = (ax + d) & 0xffff;
        (r, (ax ^ r) & (d ^ r) & 0x8000 != 0)
    };
    let mut fl = szp::<16>(r) | ((ovf as u32) * OF);
    if adjust {
        fl |= AF | CF;
    }
    cpu.set_r16(0, r & 0xff0f);
    cpu.flags.set_eager(fl);
    next(cpu, ops, i)
}

/// AAM imm8: AH = AL / imm8, AL = AL mod imm8; #DE for 0.
fn aam(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let base = ops[i].imm;
    if base == 0 {
        return raise(cpu, ops, i, ExceptionKind::DivideError);
    }
    let al = cpu.regs[EAX] & 0xff;
    let (q, r) = (al / base, al % base);
    cpu.set_r16(0, (q << 8) | r);
    cpu.flags.set_eager(szp::<8>(r));
    next(cpu, ops, i)
}

/// AAD imm8: AL = AL + AH * imm8, AH = 0.
fn aad(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ax = cpu.regs[EAX];
    let (al, ah) = (ax & 0xff, (ax >> 8) & 0xff);
    let t = (ah * ops[i].imm) & 0xff;
    let r = (al + t) & 0xff;
    cpu.set_r16(0, r);
    cpu.flags.set(FlagOp::Add, 8, r, al, t);
    next(cpu, ops, i)
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    Some(match ins.mnemonic() {
        Mnemonic::Daa => daa,
        Mnemonic::Das => das,
        Mnemonic::Aaa => aaa_aas::<false>,
        Mnemonic::Aas => aaa_aas::<true>,
        Mnemonic::Aam => {
            o.imm = ins.immediate(0) as u32 & 0xff;
            aam
        }
        Mnemonic::Aad => {
            o.imm = ins.immediate(0) as u32 & 0xff;
            aad
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    //! Expected values are from the SDM's examples and from runs on the AMD Zen
    //! host (for the undefined flags).
    use crate::cpu::flags::{AF, ARITH, CF, OF, PF, SF, ZF};
    use crate::cpu::{EAX, EBX};
    use crate::harness::{CODE, EXIT, Machine, assemble};
    use crate::{ExceptionKind, StopReason};
    use iced_x86::IcedError;
    use iced_x86::code_asm::*;

    fn run(
        ax0: u32,
        eflags: u32,
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) -> (Machine, StopReason) {
        let code = assemble(|a| {
            f(a)?;
            a.jmp(EXIT as u64)
        });
        let mut m = Machine::new();
        m.load(&code);
        m.cpu.regs[EAX] = ax0;
        m.cpu.regs[EBX] = 0x35;
        m.cpu.set_eflags(eflags);
        let st = m.run(1000);
        (m, st)
    }

    fn ok(
        ax0: u32,
        eflags: u32,
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) -> (u32, u32) {
        let (m, st) = run(ax0, eflags, f);
        assert_eq!(st, StopReason::Thunk(EXIT));
        (m.cpu.regs[EAX], m.cpu.eflags() & ARITH)
    }

    #[test]
    fn daa_after_bcd_add() {
        // SDM example: ADD AL,BL with AL=79H BL=35H gives AEH; DAA gives 14H with
        // CF AF PF set (79 + 35 = 114).
        let (v, f) = ok(0x79, 0, |a| {
            a.add(al, bl)?;
            a.daa()
        });
        assert_eq!(v, 0x14);
        assert_eq!(f & !OF, CF | AF | PF);
        // 19 + 28 = 47: ADD gives 41H with AF; DAA adds 6.
        let (v, f) = ok(0x1219, 0, |a| {
            a.add(al, 0x28)?;
            a.daa()
        });
        assert_eq!(v, 0x1247);
        assert_eq!(f & (CF | AF), AF);
        // 99 + 01 = 100: AL = 00, CF and ZF.
        let (v, f) = ok(0x99, 0, |a| {
            a.add(al, 1)?;
            a.daa()
        });
        assert_eq!(v, 0x00);
        assert_eq!(f & (CF | ZF | AF), CF | ZF | AF);
        // Host: OF is the signed overflow from the old AL to the new one.
        let (v, f) = ok(0x7a, 0, |a| a.daa());
        assert_eq!(v, 0x80);
        assert_eq!(f, OF | SF | AF);
    }

    #[test]
    fn das_after_bcd_sub() {
        // SDM example: SUB AL,BL with AL=35H BL=47H gives EEH; DAS gives 88H with
        // SF AF PF CF set (35 - 47 = -12 -> 88 with borrow).
        let (v, f) = ok(0x35, 0, |a| {
            a.mov(bl, 0x47)?;
            a.sub(al, bl)?;
            a.das()
        });
        assert_eq!(v, 0x88);
        assert_eq!(f & !OF, SF | AF | PF | CF);
        // AL=05H with AF: 05 - 6 borrows, so CF = 1 although AL <= 99H.
        let (v, f) = ok(0x05, AF, |a| a.das());
        assert_eq!(v, 0xff);
        assert_eq!(f & (CF | AF), CF | AF);
    }

    #[test]
    fn aaa_aas() {
        // 8 + 6 = 0EH; AAA: AX = 0104H, CF = AF = 1 (host EFLAGS 0x217).
        let (v, f) = ok(0x0008, 0, |a| {
            a.add(al, 6)?;
            a.aaa()
        });
        assert_eq!(v, 0x0104);
        assert_eq!(f, CF | AF | PF);
        // No adjustment: AL masked to its low nibble, CF = AF = 0.
        let (v, f) = ok(0x1234_0525, 0, |a| a.aaa());
        assert_eq!(v, 0x1234_0505);
        assert_eq!(f & (CF | AF), 0);
        // 2 - 5 with AH = 1 gives 01FDH (AF CF); AAS: AX = 0007H (host EFLAGS 0x213).
        let (v, f) = ok(0x0102, 0, |a| {
            a.sub(al, 5)?;
            a.aas()
        });
        assert_eq!(v, 0x0007);
        assert_eq!(f, CF | AF);
    }

    #[test]
    fn aam_aad() {
        // AAM: 63 -> AH 6, AL 3; flags from AL (host EFLAGS 0x206: PF).
        let (v, f) = ok(0xffff_003f, 0, |a| a.aam(10));
        assert_eq!(v, 0xffff_0603);
        assert_eq!(f, PF);
        let (v, f) = ok(0x3f, 0, |a| a.aam(16));
        assert_eq!(v, 0x030f);
        assert_eq!(f, PF);
        // AAD: 6*10 + 5 = 65; host EFLAGS 0x216: PF, and AF from 05H + 3CH.
        let (v, f) = ok(0xabcd_0605, CF | ZF, |a| a.aad(10));
        assert_eq!(v, 0xabcd_0041);
        assert_eq!(f, PF | AF);
        let (v, f) = ok(0x0f0f, 0, |a| a.aad(16));
        assert_eq!(v, 0x00ff);
        assert_eq!(f, SF | PF);
    }

    #[test]
    fn aam_zero_is_divide_error() {
        let (m, st) = run(0x1234, CF | ZF, |a| a.aam(0));
        match st {
            StopReason::Exception(e) => {
                assert_eq!(e.kind, ExceptionKind::DivideError);
                assert_eq!(e.eip, CODE);
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(m.cpu.regs[EAX], 0x1234);
        assert_eq!(m.cpu.eflags() & ARITH, CF | ZF);
    }
}
