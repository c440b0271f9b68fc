//! Multiply and divide: MUL and IMUL with one operand (AX, DX:AX, EDX:EAX results),
//! IMUL with two and three operands, DIV and IDIV.
//!
//! CF = OF = "the upper half is significant", as the SDM defines them. SF, ZF, AF
//! and PF are undefined after a multiply; the AMD Zen host leaves them unchanged,
//! and so does winterp. DIV/IDIV leave all six undefined; on the host they come out
//! as SF = ZF = PF = 0, AF = 1 with CF and OF unchanged, which winterp copies.
//! A divide by zero or a quotient that does not fit raises #DE before anything
//! changes.

use super::{is_imm, reg_op};
use crate::by_size;
use crate::cpu::flags::{AF, CF, OF, PF, SF, ZF, mask};
use crate::cpu::{Cpu, EAX, EDX, ExceptionKind, Exit, LazyFlags};
use crate::exec::op::{Handler, Op, next, raise};
use crate::mtry;
use iced_x86::{Instruction, Mnemonic, OpKind};

/// Sign-extends the low S bits of `v` to 64 bits.
#[inline(always)]
fn sx<const S: u32>(v: u32) -> i64 {
    (((v << (32 - S)) as i32) >> (32 - S)) as i64
}

/// Records a multiply's flags: CF = OF = `ovf`, SF ZF AF PF unchanged.
#[inline(always)]
fn mul_flags(f: &mut LazyFlags, ovf: bool) {
    let keep = f.bits() & (SF | ZF | AF | PF);
    f.set_eager(keep | ((ovf as u32) * (CF | OF)));
}

/// Full product of `a` and `b` (S bits each) as 2S bits, and whether the upper
/// half is significant.
#[inline(always)]
fn widen_mul<const SIGNED: bool, const S: u32>(a: u32, b: u32) -> (u64, bool) {
    let m = mask(S);
    if SIGNED {
        let p = sx::<S>(a) * sx::<S>(b);
        // Significant unless the product equals its low half sign-extended.
        (p as u64, p != sx::<S>(p as u32 & m))
    } else {
        let p = (a & m) as u64 * (b & m) as u64;
        (p, p >> S != 0)
    }
}

/// MUL/IMUL r/m: AL*src -> AX, AX*src -> DX:AX, EAX*src -> EDX:EAX.
#[inline(always)]
fn mul1<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, src: u32) {
    let (p, ovf) = widen_mul::<SIGNED, S>(cpu.regs[EAX], src);
    match S {
        8 => cpu.set_r16(EAX as u8, p as u32),
        16 => {
            cpu.set_r16(EAX as u8, p as u32);
            cpu.set_r16(EDX as u8, (p >> 16) as u32);
        }
        _ => {
            cpu.regs[EAX] = p as u32;
            cpu.regs[EDX] = (p >> 32) as u32;
        }
    }
    mul_flags(&mut cpu.flags, ovf);
}

fn mul1_r<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = cpu.reg(S, ops[i].rm);
    mul1::<SIGNED, S>(cpu, src);
    next(cpu, ops, i)
}

fn mul1_m<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(&ops[i])));
    mul1::<SIGNED, S>(cpu, src);
    next(cpu, ops, i)
}

/// IMUL r, r/m (A = register `r` itself) or IMUL r, r/m, imm (A = `imm`).
#[inline(always)]
fn imul_n<const S: u32>(cpu: &mut Cpu, r: u8, a: u32, b: u32) {
    let (p, ovf) = widen_mul::<true, S>(a, b);
    cpu.set_reg(S, r, p as u32);
    mul_flags(&mut cpu.flags, ovf);
}

/// IMUL r, r2.
fn imul2_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let (a, b) = (cpu.reg(S, o.r), cpu.reg(S, o.rm));
    imul_n::<S>(cpu, o.r, a, b);
    next(cpu, ops, i)
}

/// IMUL r, m.
fn imul2_rm<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let b = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    let a = cpu.reg(S, o.r);
    imul_n::<S>(cpu, o.r, a, b);
    next(cpu, ops, i)
}

/// IMUL r, r2, imm.
fn imul3_rr<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let b = cpu.reg(S, o.rm);
    imul_n::<S>(cpu, o.r, o.imm, b);
    next(cpu, ops, i)
}

/// IMUL r, m, imm.
fn imul3_rm<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let b = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(o)));
    imul_n::<S>(cpu, o.r, o.imm, b);
    next(cpu, ops, i)
}

/// DIV/IDIV: AX / src8 -> AL rem AH, DX:AX / src16 -> AX rem DX,
/// EDX:EAX / src32 -> EAX rem EDX. `false` means #DE (nothing changed).
#[inline(always)]
fn div1<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, src: u32) -> bool {
    let m = mask(S);
    let dividend: u64 = match S {
        8 => (cpu.regs[EAX] & 0xffff) as u64,
        16 => (((cpu.regs[EDX] & 0xffff) << 16) | (cpu.regs[EAX] & 0xffff)) as u64,
        _ => ((cpu.regs[EDX] as u64) << 32) | cpu.regs[EAX] as u64,
    };
    let divisor = src & m;
    if divisor == 0 {
        return false;
    }
    let (q, r) = if SIGNED {
        // The dividend is 2S bits wide: sign-extend it from there.
        let sh = 64 - 2 * S;
        let n = ((dividend << sh) as i64) >> sh;
        let d = sx::<S>(divisor);
        // 32-bit INT64_MIN / -1 wraps to INT64_MIN, which the range check rejects.
        let q = n.wrapping_div(d);
        let r = n.wrapping_rem(d);
        if q != sx::<S>(q as u32 & m) {
            return false;
        }
        (q as u32 & m, r as u32 & m)
    } else {
        let q = dividend / divisor as u64;
        if q > m as u64 {
            return false;
        }
        (q as u32, (dividend % divisor as u64) as u32)
    };
    match S {
        8 => cpu.set_r16(EAX as u8, (r << 8) | q),
        16 => {
            cpu.set_r16(EAX as u8, q);
            cpu.set_r16(EDX as u8, r);
        }
        _ => {
            cpu.regs[EAX] = q;
            cpu.regs[EDX] = r;
        }
    }
    let keep = cpu.flags.bits() & (CF | OF);
    cpu.flags.set_eager(keep | AF);
    true
}

fn div_r<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = cpu.reg(S, ops[i].rm);
    if !div1::<SIGNED, S>(cpu, src) {
        return raise(cpu, ops, i, ExceptionKind::DivideError);
    }
    next(cpu, ops, i)
}

fn div_m<const SIGNED: bool, const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let src = mtry!(cpu, ops, i, cpu.load(S, cpu.ea(&ops[i])));
    if !div1::<SIGNED, S>(cpu, src) {
        return raise(cpu, ops, i, ExceptionKind::DivideError);
    }
    next(cpu, ops, i)
}

// ---- lowering ---------------------------------------------------------------------------

/// Picks a 16- or 32-bit handler.
macro_rules! by_size_16_32 {
    ($size:expr, $f:ident) => {
        match $size {
            16 => $f::<16> as Handler,
            _ => $f::<32> as Handler,
        }
    };
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let m = ins.mnemonic();
    if !matches!(
        m,
        Mnemonic::Mul | Mnemonic::Imul | Mnemonic::Div | Mnemonic::Idiv
    ) {
        return None;
    }
    let sz = super::alu::op0_size(ins);
    if ins.op_count() == 1 {
        let mem = match ins.op_kind(0) {
            OpKind::Register => {
                o.rm = reg_op(ins, 0)?;
                false
            }
            OpKind::Memory => true,
            _ => return None,
        };
        return Some(match (m, mem) {
            (Mnemonic::Mul, false) => by_size!(sz, mul1_r::<false>),
            (Mnemonic::Mul, true) => by_size!(sz, mul1_m::<false>),
            (Mnemonic::Imul, false) => by_size!(sz, mul1_r::<true>),
            (Mnemonic::Imul, true) => by_size!(sz, mul1_m::<true>),
            (Mnemonic::Div, false) => by_size!(sz, div_r::<false>),
            (Mnemonic::Div, true) => by_size!(sz, div_m::<false>),
            (Mnemonic::Idiv, false) => by_size!(sz, div_r::<true>),
            _ => by_size!(sz, div_m::<true>),
        });
    }
    if m != Mnemonic::Imul || (sz != 16 && sz != 32) {
        return None;
    }
    o.r = reg_op(ins, 0)?;
    let mem = match ins.op_kind(1) {
        OpKind::Register => {
            o.rm = reg_op(ins, 1)?;
            false
        }
        OpKind::Memory => true,
        _ => return None,
    };
    match ins.op_count() {
        2 => Some(if mem {
            by_size_16_32!(sz, imul2_rm)
        } else {
            by_size_16_32!(sz, imul2_rr)
        }),
        3 if is_imm(ins, 2) => {
            o.imm = ins.immediate(2) as u32 & mask(sz);
            Some(if mem {
                by_size_16_32!(sz, imul3_rm)
            } else {
                by_size_16_32!(sz, imul3_rr)
            })
        }
        _ => None,
    }
}

/// The full product of a `size`-bit multiply and the record its handler leaves
/// (CF = OF = upper half significant, the rest kept): the micro-op tier's
/// multiplies go through this, so their flags are the interpreter's.
pub(crate) fn mul_eager(f: &mut LazyFlags, signed: bool, size: u32, a: u32, b: u32) -> u64 {
    let (p, ovf) = match (signed, size) {
        (true, 8) => widen_mul::<true, 8>(a, b),
        (true, 16) => widen_mul::<true, 16>(a, b),
        (true, _) => widen_mul::<true, 32>(a, b),
        (false, 8) => widen_mul::<false, 8>(a, b),
        (false, 16) => widen_mul::<false, 16>(a, b),
        (false, _) => widen_mul::<false, 32>(a, b),
    };
    mul_flags(f, ovf);
    p
}

#[cfg(test)]
mod tests {
    //! Expected values are from the SDM and from runs on the AMD Zen host (for the
    //! undefined flags).
    use crate::cpu::flags::{AF, ARITH, CF, OF, PF, SF, ZF};
    use crate::cpu::{EAX, EBX, ECX, EDX};
    use crate::harness::{CODE, DATA, EXIT, Machine, assemble};
    use crate::{ExceptionKind, StopReason};
    use iced_x86::IcedError;
    use iced_x86::code_asm::*;

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

    /// Runs one instruction that must raise #DE and checks that nothing changed.
    fn expect_de(
        regs: &[(usize, u32)],
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) {
        let flags_in = SF | PF | CF;
        let (m, st) = run(regs, flags_in, f);
        match st {
            StopReason::Exception(e) => {
                assert_eq!(e.kind, ExceptionKind::DivideError);
                assert_eq!(e.eip, CODE);
            }
            s => panic!("expected #DE, got {s:?}"),
        }
        let mut want = [0u32; 8];
        want[4] = m.cpu.regs[4];
        for &(r, v) in regs {
            want[r] = v;
        }
        assert_eq!(&m.cpu.regs[..8], &want);
        assert_eq!(fl(&m), flags_in);
        assert_eq!(m.cpu.eip, CODE);
    }

    #[test]
    fn mul_one_operand() {
        let m = ok(&[(EAX, 0xffff_ffff), (ECX, 0xffff_ffff)], 0, |a| a.mul(ecx));
        assert_eq!((m.cpu.regs[EDX], m.cpu.regs[EAX]), (0xffff_fffe, 1));
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        // 8-bit: AL * CL -> AX; the rest of EAX is kept.
        let m = ok(&[(EAX, 0xaaaa_0010), (ECX, 0x10)], 0, |a| a.mul(cl));
        assert_eq!(m.cpu.regs[EAX], 0xaaaa_0100);
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        let m = ok(&[(EAX, 2), (ECX, 3)], 0, |a| a.mul(cl));
        assert_eq!(m.cpu.regs[EAX], 6);
        assert_eq!(fl(&m) & (CF | OF), 0);
        // 16-bit: DX:AX; upper halves of EAX/EDX kept.
        let m = ok(
            &[(EAX, 0x1111_ffff), (EDX, 0x2222_0000), (EBX, 0x1_0002)],
            0,
            |a| a.mul(bx),
        );
        assert_eq!(
            (m.cpu.regs[EDX], m.cpu.regs[EAX]),
            (0x2222_0001, 0x1111_fffe)
        );
    }

    #[test]
    fn mul_keeps_szap_on_host() {
        // SF ZF AF PF are undefined; the host leaves them as they were.
        let m = ok(&[(EAX, 0), (ECX, 0)], ZF | AF | CF | OF, |a| a.mul(ecx));
        assert_eq!(fl(&m), ZF | AF);
        let m = ok(&[(EAX, 3), (ECX, 0x4000_0000)], SF | PF, |a| {
            a.imul_2(eax, ecx)
        });
        assert_eq!(fl(&m), SF | PF | CF | OF);
    }

    #[test]
    fn imul_one_operand() {
        // -1 * -128 = 128 does not fit in AL: CF = OF = 1.
        let m = ok(&[(EAX, 0xff), (ECX, 0x80)], 0, |a| a.imul(cl));
        assert_eq!(m.cpu.regs[EAX], 0x0080);
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        // -2 * 3 = -6 fits: AX = 0xfffa, no overflow.
        let m = ok(&[(EAX, 0xfe), (ECX, 3)], 0, |a| a.imul(cl));
        assert_eq!(m.cpu.regs[EAX], 0xfffa);
        assert_eq!(fl(&m) & (CF | OF), 0);
        // 32-bit: -1 * 5 = -5 in EDX:EAX.
        let m = ok(&[(EAX, 5), (EBX, 0xffff_ffff)], 0, |a| a.imul(ebx));
        assert_eq!(
            (m.cpu.regs[EDX], m.cpu.regs[EAX]),
            (0xffff_ffff, 0xffff_fffb)
        );
        assert_eq!(fl(&m) & (CF | OF), 0);
        // Memory source.
        let m = ok(&[(EAX, 0x10000)], 0, |a| {
            a.mov(dword_ptr(DATA), 0x10000u32)?;
            a.imul(dword_ptr(DATA))
        });
        assert_eq!((m.cpu.regs[EDX], m.cpu.regs[EAX]), (1, 0));
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
    }

    #[test]
    fn imul_two_and_three_operands() {
        // 0x40000000 * 2 overflows to 0x80000000; * -1 does not.
        let m = ok(&[(EAX, 0x4000_0000), (ECX, 2)], 0, |a| a.imul_2(eax, ecx));
        assert_eq!(m.cpu.regs[EAX], 0x8000_0000);
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        let m = ok(&[(EAX, 0x4000_0000), (ECX, 0xffff_ffff)], 0, |a| {
            a.imul_2(eax, ecx)
        });
        assert_eq!(m.cpu.regs[EAX], 0xc000_0000);
        assert_eq!(fl(&m) & (CF | OF), 0);
        // The block_mix LCG step: imul eax,eax,1103515245.
        let m = ok(&[(EAX, 12345)], 0, |a| a.imul_3(eax, eax, 1_103_515_245));
        assert_eq!(m.cpu.regs[EAX], 12345u32.wrapping_mul(1_103_515_245));
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        // 16-bit with a sign-extended imm8; upper half of EDX kept.
        let m = ok(&[(EDX, 0xabcd_0000), (ECX, 7)], 0, |a| a.imul_3(dx, cx, -2));
        assert_eq!(m.cpu.regs[EDX], 0xabcd_fff2);
        assert_eq!(fl(&m) & (CF | OF), 0);
        // 16-bit overflow: 0x4000 * 2.
        let m = ok(&[(EDX, 0x4000)], 0, |a| a.imul_2(dx, dx));
        assert_eq!(m.cpu.regs[EDX], 0);
        assert_eq!(fl(&m) & (CF | OF), CF | OF);
        // Memory forms.
        let m = ok(&[(EBX, 3)], 0, |a| {
            a.mov(dword_ptr(DATA), 0xffff_fff0u32)?;
            a.imul_2(ebx, dword_ptr(DATA))?;
            a.imul_3(ecx, dword_ptr(DATA), 1000)
        });
        assert_eq!(m.cpu.regs[EBX], (-48i32) as u32);
        assert_eq!(m.cpu.regs[ECX], (-16000i32) as u32);
    }

    #[test]
    fn div_and_idiv() {
        // DIV ECX: 0x1_00000005 / 0x10 = 0x10000000 rem 5.
        let m = ok(&[(EDX, 1), (EAX, 5), (ECX, 0x10)], CF | OF | ZF, |a| {
            a.div(ecx)
        });
        assert_eq!((m.cpu.regs[EAX], m.cpu.regs[EDX]), (0x1000_0000, 5));
        // Host: SF ZF PF cleared, AF set, CF OF kept (all undefined).
        assert_eq!(fl(&m), CF | OF | AF);
        // 16-bit: DX:AX = 0x10000 / 0x10.
        let m = ok(
            &[(EDX, 0xffff_0001), (EAX, 0xeeee_0000), (ECX, 0x10)],
            0,
            |a| a.div(cx),
        );
        assert_eq!(
            (m.cpu.regs[EAX], m.cpu.regs[EDX]),
            (0xeeee_1000, 0xffff_0000)
        );
        // 8-bit: AX / CL -> AL, AH.
        let m = ok(&[(EAX, 0x1234_0107), (ECX, 0x10)], 0, |a| a.div(cl));
        assert_eq!(m.cpu.regs[EAX], 0x1234_0710);
        // IDIV 8: -7 / 2 = -3 rem -1.
        let m = ok(&[(EAX, 0xfff9), (ECX, 2)], 0, |a| a.idiv(cl));
        assert_eq!(m.cpu.regs[EAX], 0xfffd);
        // IDIV 8: -256 / 2 = -128 fits (host).
        let m = ok(&[(EAX, 0xff00), (ECX, 2)], 0, |a| a.idiv(cl));
        assert_eq!(m.cpu.regs[EAX], 0x0080);
        // IDIV 32: -100 / 7 = -14 rem -2.
        let m = ok(
            &[(EDX, 0xffff_ffff), (EAX, -100i32 as u32), (EBX, 7)],
            0,
            |a| a.idiv(ebx),
        );
        assert_eq!(m.cpu.regs[EAX], -14i32 as u32);
        assert_eq!(m.cpu.regs[EDX], -2i32 as u32);
        // Memory divisor.
        let m = ok(&[(EAX, 100)], 0, |a| {
            a.mov(dword_ptr(DATA), 7u32)?;
            a.xor(edx, edx)?;
            a.div(dword_ptr(DATA))
        });
        assert_eq!((m.cpu.regs[EAX], m.cpu.regs[EDX]), (14, 2));
    }

    #[test]
    fn divide_errors_change_nothing() {
        // Divide by zero.
        expect_de(&[(EAX, 1), (EDX, 2), (ECX, 0)], |a| a.div(ecx));
        expect_de(&[(EAX, 0x1234), (ECX, 0x100)], |a| a.div(cl));
        // Quotient overflow: 2^32 / 1, 0x1000 / 0x10 in 8 bits.
        expect_de(&[(EAX, 0), (EDX, 1), (ECX, 1)], |a| a.div(ecx));
        expect_de(&[(EAX, 0x1000), (ECX, 0x10)], |a| a.div(cl));
        // INT_MIN / -1 for every width.
        expect_de(
            &[(EAX, 0x8000_0000), (EDX, 0xffff_ffff), (ECX, 0xffff_ffff)],
            |a| a.idiv(ecx),
        );
        expect_de(&[(EAX, 0x8000), (EDX, 0xffff), (ECX, 0xffff)], |a| {
            a.idiv(cx)
        });
        expect_de(&[(EAX, 0xff80), (ECX, 0xff)], |a| a.idiv(cl));
        // Signed quotient 128 does not fit in AL.
        expect_de(&[(EAX, 0x0100), (ECX, 2)], |a| a.idiv(cl));
        // 64-bit INT64_MIN / -1.
        expect_de(&[(EAX, 0), (EDX, 0x8000_0000), (ECX, 0xffff_ffff)], |a| {
            a.idiv(ecx)
        });
    }
}
