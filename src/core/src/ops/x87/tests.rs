//! x87 unit tests. Expectations come from the Intel SDM (condition-code tables,
//! FSAVE layout, rounding rules) and IEEE 754 facts about the operands.

use super::{C0, C1, C2, C3, DE, ES, IE, PE, SF, ZE};
use crate::StopReason;
use crate::cpu::ExceptionKind;
use crate::cpu::flags::{CF, PF, ZF};
use crate::harness::{CODE, DATA, EXIT, Machine, assemble};
use iced_x86::code_asm::*;

type R = Result<(), IcedError>;

/// Runs `body` with `data` (f64 values) at DATA; the program ends at EXIT.
fn run_with(data: &[u8], body: impl FnOnce(&mut CodeAssembler) -> R) -> (Machine, StopReason) {
    let code = assemble(|a| {
        body(a)?;
        a.mov(eax, EXIT)?;
        a.jmp(eax)
    });
    let mut m = Machine::new();
    m.mem.write_bytes(DATA, data).unwrap();
    m.load(&code);
    let stop = m.run(100_000);
    (m, stop)
}

fn run(vals: &[f64], body: impl FnOnce(&mut CodeAssembler) -> R) -> Machine {
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (m, stop) = run_with(&bytes, body);
    assert_eq!(stop, StopReason::Thunk(EXIT));
    m
}

fn q(k: u32) -> AsmMemoryOperand {
    qword_ptr(DATA + 8 * k)
}

fn st(m: &Machine, i: u8) -> f64 {
    m.cpu.fpu.sti(i)
}

/// FXAM's C3 C2 C0 per SDM table "FXAM results", C1 = sign.
#[test]
fn fxam_classes() {
    let cases: [(f64, u16); 6] = [
        (1.5, C2),
        (-1.5, C2 | C1),
        (0.0, C3),
        (-0.0, C3 | C1),
        (f64::NEG_INFINITY, C2 | C0 | C1),
        (f64::NAN, C0),
    ];
    for (v, want) in cases {
        let m = run(&[v], |a| {
            a.fld(q(0))?;
            a.fxam()
        });
        assert_eq!(m.cpu.fpu.sw & (C0 | C1 | C2 | C3), want, "{v}");
    }
    // A double denormal is a normal number in the extended register.
    let m = run(&[f64::from_bits(1)], |a| {
        a.fld(q(0))?;
        a.fxam()
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), C2);
    assert_ne!(m.cpu.fpu.sw & DE, 0, "FLD m64 of a denormal raises DE");
    // Empty register: C3 C0.
    let m = run(&[], |a| {
        a.fninit()?;
        a.fxam()
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), C3 | C0);
}

/// FPREM/FPREM1: C0 C3 C1 = Q2 Q1 Q0 of the quotient, C2 = 0 when complete.
#[test]
fn fprem_quotient_bits() {
    // 17 / 5: truncated quotient 3 (011), remainder 2; nearest quotient 3.
    // 23 / 5: truncated 4 (100), remainder 3; nearest 5 (101), remainder -2.
    for (a, b, ieee, rem, qb) in [
        (17.0, 5.0, false, 2.0, 3u16),
        (17.0, 5.0, true, 2.0, 3),
        (23.0, 5.0, false, 3.0, 4),
        (23.0, 5.0, true, -2.0, 5),
        (-23.0, 5.0, false, -3.0, 4),
    ] {
        let m = run(&[b, a], |x| {
            x.fld(q(0))?;
            x.fld(q(1))?;
            if ieee { x.fprem1() } else { x.fprem() }
        });
        assert_eq!(st(&m, 0), rem, "{a} rem {b} ieee={ieee}");
        assert_eq!(st(&m, 1), b);
        let sw = m.cpu.fpu.sw;
        let got =
            ((sw & C0 != 0) as u16) << 2 | ((sw & C3 != 0) as u16) << 1 | (sw & C1 != 0) as u16;
        assert_eq!(got, qb, "{a} rem {b} ieee={ieee}");
        assert_eq!(sw & C2, 0);
    }
    // An exponent difference of 64 or more only reduces partially: C2 = 1.
    let m = run(&[3.0, 1e30], |x| {
        x.fld(q(0))?;
        x.fld(q(1))?;
        x.fprem()
    });
    assert_ne!(m.cpu.fpu.sw & C2, 0);
    assert!(st(&m, 0).abs() < 1e30);
}

/// Pushing onto a full stack: IE|SF with C1 = 1 (overflow), masked response is
/// the indefinite; reading an empty register: IE|SF with C1 = 0.
#[test]
fn stack_overflow_and_underflow() {
    let m = run(&[], |a| {
        a.fninit()?;
        for _ in 0..9 {
            a.fld1()?;
        }
        Ok(())
    });
    let sw = m.cpu.fpu.sw;
    assert_eq!(sw & (IE | SF | C1), IE | SF | C1);
    assert_eq!(st(&m, 0).to_bits(), 0xfff8_0000_0000_0000);
    assert_eq!(m.cpu.fpu.status() >> 11 & 7, 7, "TOP wrapped to 7");

    let m = run(&[], |a| {
        a.fninit()?;
        a.fadd_2(st0, st1)
    });
    let sw = m.cpu.fpu.sw;
    assert_eq!(sw & (IE | SF | C1), IE | SF);
    assert!(st(&m, 0).is_nan());
}

/// FIST under each rounding control (SDM table 4-8): 2.5 and -2.5.
#[test]
fn fist_rounding_modes() {
    // (rc, 2.5 ->, -2.5 ->)
    for (rc, pos, neg) in [(0u16, 2, -2), (1, 2, -3), (2, 3, -2), (3, 2, -2)] {
        let cw = 0x027f | rc << 10;
        let mut data = Vec::new();
        data.extend_from_slice(&2.5f64.to_le_bytes());
        data.extend_from_slice(&(-2.5f64).to_le_bytes());
        data.extend_from_slice(&cw.to_le_bytes());
        let (m, stop) = run_with(&data, |a| {
            a.fldcw(word_ptr(DATA + 16))?;
            a.fld(q(0))?;
            a.fistp(dword_ptr(DATA + 32))?;
            a.fld(q(1))?;
            a.fistp(dword_ptr(DATA + 36))
        });
        assert_eq!(stop, StopReason::Thunk(EXIT));
        let p = m.mem.read_u32(DATA + 32).unwrap() as i32;
        let n = m.mem.read_u32(DATA + 36).unwrap() as i32;
        assert_eq!((p, n), (pos, neg), "rc {rc}");
        assert_ne!(m.cpu.fpu.sw & PE, 0);
    }
    // Out of range: the integer indefinite and IE.
    let m = run(&[1e10], |a| {
        a.fld(q(0))?;
        a.fistp(dword_ptr(DATA + 32))
    });
    assert_eq!(m.mem.read_u32(DATA + 32).unwrap(), 0x8000_0000);
    assert_ne!(m.cpu.fpu.sw & IE, 0);
    // C1 = 1 when rounded up in magnitude (2.5 -> 3 under RC = up).
    let mut data = 2.5f64.to_le_bytes().to_vec();
    data.extend_from_slice(&0x0a7fu16.to_le_bytes());
    let (m, _) = run_with(&data, |a| {
        a.fldcw(word_ptr(DATA + 8))?;
        a.fld(q(0))?;
        a.fist(word_ptr(DATA + 32))
    });
    assert_eq!(m.mem.read_u16(DATA + 32).unwrap(), 3);
    assert_ne!(m.cpu.fpu.sw & C1, 0);
}

#[test]
fn fbstp_packed_bcd() {
    let m = run(&[1234.0, -1234.0], |a| {
        a.fld(q(0))?;
        a.fbstp(tword_ptr(DATA + 32))?;
        a.fld(q(1))?;
        a.fbstp(tword_ptr(DATA + 48))?;
        a.fbld(tword_ptr(DATA + 48))
    });
    let mut b = [0u8; 10];
    m.mem.read_bytes(DATA + 32, &mut b).unwrap();
    assert_eq!(b, [0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0]);
    m.mem.read_bytes(DATA + 48, &mut b).unwrap();
    assert_eq!(b, [0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0x80]);
    assert_eq!(st(&m, 0), -1234.0);
}

/// FCOMI/FUCOMI set ZF PF CF (SDM table 3-..): > 000, < 001, = 100,
/// unordered 111; FCOMI raises IE for a QNaN, FUCOMI does not.
#[test]
fn fcomi_flags() {
    for (a, b, want) in [
        (2.0, 1.0, 0),
        (1.0, 2.0, CF),
        (1.0, 1.0, ZF),
        (f64::NAN, 1.0, ZF | PF | CF),
    ] {
        for unordered in [false, true] {
            let m = run(&[b, a], |x| {
                x.fninit()?;
                x.fld(q(0))?;
                x.fld(q(1))?;
                // Leave OF SF AF set so that their clearing shows.
                x.mov(eax, 0x7fff_ffff)?;
                x.add(eax, 1)?;
                if unordered {
                    x.fucomi(st0, st1)
                } else {
                    x.fcomi(st0, st1)
                }
            });
            assert_eq!(m.cpu.eflags() & 0x8d5, want, "{a} vs {b}");
            let ie = m.cpu.fpu.sw & IE != 0;
            assert_eq!(ie, a.is_nan() && !unordered, "{a} vs {b} IE");
        }
    }
}

/// FSAVE stores the 108-byte image (control, status with TOP, full tag word,
/// pointers, ST(0)..ST(7) as 80-bit) and reinitialises; FRSTOR brings it back.
#[test]
fn fsave_frstor_round_trip() {
    let m = run(&[1.0, -2.5, 0.0], |a| {
        a.fld(q(0))?;
        a.fld(q(1))?;
        a.fld(q(2))?;
        a.fsave(ptr(DATA + 0x100))?;
        a.fld(q(0))?; // after FSAVE's reinit: a fresh stack
        a.frstor(ptr(DATA + 0x100))?;
        a.fnsave(ptr(DATA + 0x200))?;
        a.frstor(ptr(DATA + 0x200))
    });
    let mut img = [0u8; 108];
    m.mem.read_bytes(DATA + 0x100, &mut img).unwrap();
    let w = |o: usize| u16::from_le_bytes([img[o], img[o + 1]]);
    assert_eq!(w(0), 0x027f);
    assert_eq!((w(4) >> 11) & 7, 5, "TOP after three pushes");
    // R5 = 0.0 (zero, 01), R6 = -2.5 (valid, 00), R7 = 1.0 (valid), others empty.
    assert_eq!(w(8), 0x07ff | 0b01 << 10);
    // ST(1) = -2.5 as an 80-bit value: sign, exponent 0x4000, significand 0xA0...
    assert_eq!(&img[38..48], &[0, 0, 0, 0, 0, 0, 0, 0xa0, 0x00, 0xc0]);
    let mut img2 = [0u8; 108];
    m.mem.read_bytes(DATA + 0x200, &mut img2).unwrap();
    assert_eq!(&img[..12], &img2[..12]);
    assert_eq!(&img[28..], &img2[28..]);
    assert_eq!(st(&m, 1), -2.5);
    assert_eq!(m.cpu.fpu.fsave_image()[28..], img[28..]);
}

/// PE and C1 ("rounded up") for an inexact product, and directed rounding.
#[test]
fn inexact_and_rounding_control() {
    // 0.1 * 3 = 0.30000000000000004 (exact 0.300000000000000016653...): rounded up.
    let m = run(&[0.1, 3.0], |a| {
        a.fld(q(0))?;
        a.fmul(q(1))
    });
    assert_eq!(st(&m, 0), 0.1 * 3.0);
    assert_eq!(m.cpu.fpu.sw & (PE | C1), PE | C1);
    // 1/3 rounded down (RC = down, chop) and up (RC = up); PC = 24 gives the float.
    for (cw, want) in [
        (0x067fu16, 0x3fd5_5555_5555_5555u64),
        (0x0e7f, 0x3fd5_5555_5555_5555),
        (0x0a7f, 0x3fd5_5555_5555_5556),
        (0x007f, (1.0f32 / 3.0) as f64 as u64),
    ] {
        let mut data = Vec::new();
        data.extend_from_slice(&1.0f64.to_le_bytes());
        data.extend_from_slice(&3.0f64.to_le_bytes());
        data.extend_from_slice(&cw.to_le_bytes());
        let (m, _) = run_with(&data, |a| {
            a.fldcw(word_ptr(DATA + 16))?;
            a.fld(q(0))?;
            a.fdiv(q(1))
        });
        let want = if cw == 0x007f {
            ((1.0f32 / 3.0) as f64).to_bits()
        } else {
            want
        };
        assert_eq!(st(&m, 0).to_bits(), want, "cw {cw:#x}");
    }
    // Exact results leave PE clear.
    let m = run(&[1.5, 2.0], |a| {
        a.fld(q(0))?;
        a.fmul(q(1))?;
        a.fsqrt()
    });
    assert_eq!(st(&m, 0), 3f64.sqrt());
    let m2 = run(&[1.5, 2.0], |a| {
        a.fld(q(0))?;
        a.fmul(q(1))
    });
    assert_eq!(m2.cpu.fpu.sw & PE, 0);
    let _ = m;
}

/// Divide by zero: ZE and a signed infinity; 0/0: IE and the indefinite.
#[test]
fn divide_by_zero_and_invalid() {
    let m = run(&[-1.0, 0.0], |a| {
        a.fld(q(0))?;
        a.fdiv(q(1))
    });
    assert_eq!(st(&m, 0), f64::NEG_INFINITY);
    assert_eq!(m.cpu.fpu.sw & (ZE | IE), ZE);
    let m = run(&[0.0, 0.0], |a| {
        a.fld(q(0))?;
        a.fdiv(q(1))
    });
    assert_eq!(st(&m, 0).to_bits(), 0xfff8_0000_0000_0000);
    assert_eq!(m.cpu.fpu.sw & (ZE | IE), IE);
}

/// An unmasked exception sets ES and is delivered at the next waiting x87
/// instruction, whose EIP is reported; the faulting division left ST(0) alone.
#[test]
fn unmasked_exception_is_deferred() {
    let mut data = Vec::new();
    data.extend_from_slice(&1.0f64.to_le_bytes());
    data.extend_from_slice(&0.0f64.to_le_bytes());
    data.extend_from_slice(&0x027bu16.to_le_bytes()); // ZE unmasked
    let (m, stop) = run_with(&data, |a| {
        a.fldcw(word_ptr(DATA + 16))?;
        a.fld(q(0))?;
        a.fdiv(q(1))?;
        a.nop()?;
        a.fld(q(0))
    });
    let StopReason::Exception(e) = stop else {
        panic!("expected #MF, got {stop:?}");
    };
    assert_eq!(e.kind, ExceptionKind::FloatingPoint);
    // fldcw (6 bytes) + fld (6) + fdiv (6) + nop (1): the second FLD.
    assert_eq!(e.eip, CODE + 6 + 6 + 6 + 1);
    assert_eq!(m.cpu.fpu.sw & (ZE | ES), ZE | ES);
    assert_eq!(st(&m, 0), 1.0, "destination unchanged");
    assert_eq!(m.cpu.fpu.fip, CODE + 6 + 6, "FIP names the faulting FDIV");
}

/// Constants and the transcendental argument limit (C2 = 1, operand unchanged).
#[test]
fn constants_and_trig_range() {
    let m = run(&[1e19], |a| {
        a.fldpi()?;
        a.fldl2e()?;
        a.fldln2()?;
        a.fld(q(0))?;
        a.fsin()
    });
    assert_eq!(st(&m, 0), 1e19);
    assert_ne!(m.cpu.fpu.sw & C2, 0);
    assert_eq!(st(&m, 1), std::f64::consts::LN_2);
    assert_eq!(st(&m, 2), std::f64::consts::LOG2_E);
    assert_eq!(st(&m, 3), std::f64::consts::PI);
    let m = run(&[0.5], |a| {
        a.fld(q(0))?;
        a.fsincos()
    });
    assert_eq!(m.cpu.fpu.sw & C2, 0);
    assert!((st(&m, 0) - 0.5f64.cos()).abs() < 1e-16);
    assert!((st(&m, 1) - 0.5f64.sin()).abs() < 1e-16);
}

/// FST m32 rounds per RC and reports PE; FLD/FSTP m80 round-trip a double.
#[test]
fn stores() {
    let m = run(&[0.1, -2.5], |a| {
        a.fld(q(0))?;
        a.fst(dword_ptr(DATA + 32))?;
        a.fld(q(1))?;
        a.fstp(tword_ptr(DATA + 48))?;
        a.fld(tword_ptr(DATA + 48))
    });
    assert_eq!(m.mem.read_u32(DATA + 32).unwrap(), 0.1f32.to_bits());
    assert_ne!(m.cpu.fpu.sw & PE, 0);
    assert_eq!(st(&m, 0), -2.5);
    assert_eq!(st(&m, 1), 0.1);
}

/// Every D8-DF encoding decodes to a form this group claims, except the few
/// 287XL/387SL-only ones and SSE3's FISTTP (not reported by CPUID:
/// docs/architecture.md), which reach the `unimplemented` handler by name.
#[test]
fn every_escape_opcode_is_claimed() {
    use crate::exec::op::Op;
    use iced_x86::{Decoder, DecoderOptions, Mnemonic};
    let mut missing = Vec::new();
    for first in 0xd8u8..=0xdf {
        for modrm in 0..=0xffu8 {
            // Memory forms through [eax]; register forms as they are.
            if modrm < 0xc0 && modrm & 0xc7 != 0 {
                continue;
            }
            let bytes = [first, modrm, 0, 0, 0, 0];
            let mut d = Decoder::with_ip(32, &bytes, 0, DecoderOptions::NONE);
            let ins = d.decode();
            if ins.is_invalid() {
                continue;
            }
            let mut o = Op::new(crate::exec::op::unimplemented, 0, 0);
            if super::lower(&ins, &mut o).is_none() {
                missing.push(ins.mnemonic());
            }
        }
    }
    missing.sort_by_key(|m| *m as u32);
    missing.dedup();
    assert!(
        missing.iter().all(|m| matches!(
            m,
            Mnemonic::Frstpm | Mnemonic::Fnstdw | Mnemonic::Fnstsg | Mnemonic::Fisttp
        )),
        "unclaimed: {missing:?}"
    );
}

/// FXTRACT splits 12 = 1.5 * 2^3; FSCALE puts it back (SDM examples).
#[test]
fn fxtract_and_fscale() {
    let m = run(&[12.0], |a| {
        a.fld(q(0))?;
        a.fxtract()
    });
    assert_eq!((st(&m, 0), st(&m, 1)), (1.5, 3.0));
    let m = run(&[12.0], |a| {
        a.fld(q(0))?;
        a.fxtract()?;
        a.fscale()
    });
    assert_eq!(st(&m, 0), 12.0);
    // FXTRACT of zero: ZE, exponent -inf.
    let m = run(&[-0.0], |a| {
        a.fld(q(0))?;
        a.fxtract()
    });
    assert_eq!(st(&m, 1), f64::NEG_INFINITY);
    assert!(st(&m, 0) == 0.0 && st(&m, 0).is_sign_negative());
    assert_ne!(m.cpu.fpu.sw & ZE, 0);
}

/// FXCH, FCMOVcc, FFREEP and FTST.
#[test]
fn stack_moves() {
    let m = run(&[1.0, 2.0], |a| {
        a.fld(q(0))?;
        a.fld(q(1))?;
        a.fxch(st0, st1)
    });
    assert_eq!((st(&m, 0), st(&m, 1)), (1.0, 2.0));
    // FCMOVB takes ST(1) when CF = 1 (1 < 2 via CMP), FCMOVNB does not.
    let m = run(&[1.0, 2.0], |a| {
        a.fld(q(0))?;
        a.fld(q(1))?;
        a.mov(eax, 1)?;
        a.cmp(eax, 2)?;
        a.fcmovnb(st0, st1)?;
        a.fcmovb(st0, st1)
    });
    assert_eq!(st(&m, 0), 1.0);
    // FFREEP ST(1) frees ST(1) and pops: both registers empty.
    let m = run(&[1.0, 2.0], |a| {
        a.fninit()?;
        a.fld(q(0))?;
        a.fld(q(1))?;
        a.ffreep(st1)
    });
    assert_eq!(m.cpu.fpu.tags, 0xffff);
    // FTST: negative -> C0; zero -> C3.
    for (v, want) in [(-3.0, C0), (0.0, C3), (5.0, 0)] {
        let m = run(&[v], |a| {
            a.fld(q(0))?;
            a.ftst()
        });
        assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), want, "{v}");
    }
}

/// FNSTENV stores the 28-byte environment (full tag word) and then masks all
/// exceptions; FLDENV reloads it.
#[test]
fn fnstenv_fldenv() {
    let mut data = 1.0f64.to_le_bytes().to_vec();
    data.extend_from_slice(&0x0a60u16.to_le_bytes()); // RC up, all unmasked
    let (m, stop) = run_with(&data, |a| {
        a.fld(q(0))?;
        a.fldcw(word_ptr(DATA + 8))?;
        a.fnstenv(ptr(DATA + 0x40))?;
        a.fnstcw(word_ptr(DATA + 0x80))?;
        a.fldenv(ptr(DATA + 0x40))
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    let w = |o: u32| m.mem.read_u16(DATA + o).unwrap();
    assert_eq!(w(0x40), 0x0a60);
    assert_eq!(w(0x48), 0x3fff, "R7 valid, the rest empty");
    assert_eq!(w(0x80), 0x0a7f, "masked after FNSTENV");
    assert_eq!(m.cpu.fpu.cw, 0x0a60, "FLDENV restored the control word");
}

// ---- exact 80-bit images (cpu::fpu) --------------------------------------------------

fn t(k: u32) -> AsmMemoryOperand {
    tword_ptr(DATA + 16 * k)
}

fn m80_bytes(vals: &[(u64, u16)]) -> Vec<u8> {
    let mut b = Vec::new();
    for &(m, se) in vals {
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&se.to_le_bytes());
        b.extend_from_slice(&[0; 6]);
    }
    b
}

fn read_m80(m: &Machine, k: u32) -> (u64, u16) {
    let a = DATA + 16 * k;
    (m.mem.read_u64(a).unwrap(), m.mem.read_u16(a + 8).unwrap())
}

/// FILD m64 / FISTP m64 copy every integer exactly (Delphi's Move copies strings
/// through them): "TComponent"'s first eight bytes, the extremes, odd values just
/// past 2^53, under every rounding control.
#[test]
fn fild_fistp_m64_round_trip() {
    let vals: [i64; 8] = [
        0x6d6f_4354_0000_abcd,
        i64::from_le_bytes(*b"TCompone"),
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        (1 << 53) + 1,
        -(1 << 53) - 3,
        0x7fff_ffff_ffff_fc01,
    ];
    for (n, &v) in vals.iter().enumerate() {
        for rc in 0..4u16 {
            let cw = 0x027f | rc << 10;
            let mut data = v.to_le_bytes().to_vec();
            data.extend_from_slice(&cw.to_le_bytes());
            let (m, stop) = run_with(&data, |a| {
                a.fldcw(word_ptr(DATA + 8))?;
                a.fild(qword_ptr(DATA))?;
                a.fistp(qword_ptr(DATA + 16))
            });
            assert_eq!(stop, StopReason::Thunk(EXIT));
            let got = m.mem.read_u64(DATA + 16).unwrap() as i64;
            assert_eq!(got, v, "value {n} rc {rc}");
            assert_eq!(m.cpu.fpu.sw & (PE | IE), 0, "exact: no flags");
            // The register keeps the image; FSTP m64 rounds it to nearest even.
            assert_eq!(
                m.cpu.fpu.raw != 0,
                v.unsigned_abs() > 1 << 53 && v != i64::MIN
            );
        }
    }
    // The 10-byte Move of "TComponent": fild [eax]; fild [eax+ecx-8]; fistp
    // [edx+ecx-8]; fistp [edx].
    let mut data = b"TComponent".to_vec();
    data.resize(32, 0);
    let (m, stop) = run_with(&data, |a| {
        a.mov(eax, DATA)?;
        a.mov(edx, DATA + 16)?;
        a.mov(ecx, 10)?;
        a.fild(qword_ptr(eax))?;
        a.fild(qword_ptr(eax + ecx - 8))?;
        a.fistp(qword_ptr(edx + ecx - 8))?;
        a.fistp(qword_ptr(edx))
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    let mut out = [0u8; 10];
    m.mem.read_bytes(DATA + 16, &mut out).unwrap();
    assert_eq!(&out, b"TComponent");
}

/// FIST/FISTP m32/m16 of a large FILD m64 integer: out of range (IE, indefinite);
/// an FLD m80 value with a fraction below the double's precision rounds by RC from
/// the exact value.
#[test]
fn integer_stores_from_images() {
    let big = (1i64 << 62) + 1;
    let (m, _) = run_with(&big.to_le_bytes(), |a| {
        a.fild(qword_ptr(DATA))?;
        a.fist(dword_ptr(DATA + 8))
    });
    assert_eq!(m.mem.read_u32(DATA + 8).unwrap(), 0x8000_0000);
    assert_ne!(m.cpu.fpu.sw & IE, 0);
    // 2^40 + 0.5 + 2^-20: above the tie, so nearest rounds up; a double holds
    // neither the tie nor the excess together with 2^40.
    let sig = (1u64 << 63) | (1 << 22) | 1;
    let v = (sig, 16383 + 40);
    for (rc, want, up) in [
        (0u16, (1i64 << 40) + 1, true),
        (1, 1 << 40, false),
        (2, (1 << 40) + 1, true),
        (3, 1 << 40, false),
    ] {
        let mut data = m80_bytes(&[v]);
        data.extend_from_slice(&(0x027f | rc << 10).to_le_bytes());
        let (m, _) = run_with(&data, |a| {
            a.fldcw(word_ptr(DATA + 16))?;
            a.fld(t(0))?;
            a.fistp(qword_ptr(DATA + 32))
        });
        assert_eq!(m.mem.read_u64(DATA + 32).unwrap() as i64, want, "rc {rc}");
        assert_ne!(m.cpu.fpu.sw & PE, 0);
        assert_eq!(m.cpu.fpu.sw & C1 != 0, up, "rc {rc}: C1");
    }
}

/// FLD m80 / FSTP m80 keep every encoding: more than 53 significant bits, beyond
/// the double's exponent range, 80-bit denormals, pseudo-denormals, unnormals,
/// pseudo-infinities, pseudo-NaNs, SNaN and QNaN payloads, MMX-style exponents. No
/// exception is raised (SDM FLD/FSTP: m80 operands are not checked).
#[test]
fn fld_fstp_m80_round_trip() {
    let vals = [
        (0xd6f4_3540_0000_abcd, 0x403e), // 64 significant bits
        (0x8000_0000_0000_0001, 0x3fff), // 1 + 2^-63
        (0xffff_ffff_ffff_ffff, 0x7ffe), // largest finite
        (0x8000_0000_0000_0000, 0x0001), // smallest normal
        (0x0000_0000_0000_0001, 0x8000), // smallest denormal, negative
        (0x8000_0000_0000_0001, 0x0000), // pseudo-denormal
        (0x4000_0000_0000_0000, 0x3fff), // unnormal
        (0x0000_0000_0000_0000, 0x1234), // pseudo-zero (unnormal)
        (0x0000_0000_0000_0000, 0x7fff), // pseudo-infinity
        (0x1234_0000_0000_0001, 0xffff), // pseudo-NaN
        (0x8000_0000_0000_0001, 0x7fff), // SNaN, payload only in the low bits
        (0xc000_0000_0000_0fff, 0xffff), // QNaN with a long payload
        (0x8000_0000_0000_0000, 0xffff), // -infinity
        (0x1122_3344_5566_7788, 0xffff), // an MMX value's encoding
    ];
    let data = m80_bytes(&vals);
    let n = vals.len() as u32;
    let (m, stop) = run_with(&data, |a| {
        for k in 0..n {
            a.fninit()?;
            a.fld(t(k))?;
            a.fstp(tword_ptr(DATA + 0x400 + 16 * k))?;
        }
        Ok(())
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    for (k, &v) in vals.iter().enumerate() {
        assert_eq!(read_m80(&m, 0x40 + k as u32), v, "value {k}");
    }
    assert_eq!(m.cpu.fpu.sw & 0x3f, 0, "no exception");
}

/// The image follows the value through FLD ST(i), FXCH, FST/FSTP ST(i), FCMOVcc,
/// FINCSTP/FDECSTP and FFREE; FCHS and FABS change only its sign bit.
#[test]
fn images_move_with_their_registers() {
    let a80 = (0xd6f4_3540_0000_abcdu64, 0x403eu16);
    let b80 = (0x8000_0000_0000_0001u64, 0x0000u16);
    let data = m80_bytes(&[a80, b80]);
    let (m, stop) = run_with(&data, |a| {
        a.fld(t(0))?; // ST0 = A
        a.fld(t(1))?; // ST0 = B, ST1 = A
        a.fxch(st0, st1)?; // ST0 = A, ST1 = B
        a.fld(st0)?; // A A B
        a.fchs()?; // -A A B
        a.fstp(t(2))?; // A B
        a.fst(st2)?; // A B A
        a.fabs()?; // |A| B A
        a.fxch(st0, st2)?; // A B |A|
        a.fstp(st1)?; // A |A|
        a.fincstp()?;
        a.fdecstp()?;
        a.stc()?;
        a.fcmovb(st0, st1)?; // |A| |A|
        a.fstp(t(3))?;
        a.fstp(t(4))
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    assert_eq!(read_m80(&m, 2), (a80.0, a80.1 | 0x8000));
    assert_eq!(read_m80(&m, 3), a80);
    assert_eq!(read_m80(&m, 4), a80);
    // FCHS of a NaN image flips the sign only; FABS of an unnormal keeps it.
    let nan = (0x8000_0000_0000_0001u64, 0x7fffu16);
    let un = (0x4000_0000_0000_0000u64, 0xbfffu16);
    let (m, _) = run_with(&m80_bytes(&[nan, un]), |a| {
        a.fld(t(0))?;
        a.fchs()?;
        a.fstp(t(2))?;
        a.fld(t(1))?;
        a.fabs()?;
        a.fstp(t(3))
    });
    assert_eq!(read_m80(&m, 2), (nan.0, 0xffff));
    assert_eq!(read_m80(&m, 3), (un.0, 0x3fff));
    assert_eq!(m.cpu.fpu.sw & IE, 0);
}

/// FSAVE/FRSTOR keep the images, including those of empty (popped) registers, and
/// arithmetic on an image register drops it.
#[test]
fn fsave_frstor_keep_images() {
    let a80 = (0xd6f4_3540_0000_abcdu64, 0x403eu16);
    let b80 = (0x0000_0000_0000_0001u64, 0x8000u16);
    let (m, stop) = run_with(&m80_bytes(&[a80, b80]), |a| {
        a.fld(t(0))?;
        a.fld(t(1))?;
        a.fstp(st0)?; // B popped: R6 empty but still holds B
        a.fnsave(ptr(DATA + 0x100))?;
        a.frstor(ptr(DATA + 0x100))?;
        a.fld1()?; // onto the empty R6: the image goes
        a.fld(st1)?;
        a.fstp(t(2))?;
        a.fadd_2(st0, st1)?;
        a.fstp(t(3))
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    // The saved image: ST0 = A (R7), ST7 = B (R6, empty).
    let img = |k: u32| {
        let o = DATA + 0x100 + 28 + 10 * k;
        (m.mem.read_u64(o).unwrap(), m.mem.read_u16(o + 8).unwrap())
    };
    assert_eq!(img(0), a80);
    assert_eq!(img(7), b80);
    assert_eq!(read_m80(&m, 2), a80);
    // A + 1 rounded in the f64 register: 53 significant bits.
    let (sig, se) = read_m80(&m, 3);
    assert_eq!((sig & 0x7ff, se), (0, a80.1));
    // R7 (A) keeps its image, R5 too (the FLD ST(1) copy, popped by FSTP m80: a
    // popped register keeps its contents); R6 lost B's to FLD1 and FADD.
    assert_eq!(m.cpu.fpu.raw, 1 << 7 | 1 << 5);
}

/// Compares and FXAM look at the exact value: two integers a double cannot tell
/// apart compare unequal, an unnormal is unsupported (IE, unordered; FXAM class 0),
/// an 80-bit denormal raises DE.
#[test]
fn compares_use_images() {
    let a = ((1i64 << 62) + 1).to_le_bytes();
    let b = (1i64 << 62).to_le_bytes();
    let data: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
    let (m, _) = run_with(&data, |x| {
        x.fild(qword_ptr(DATA + 8))?;
        x.fild(qword_ptr(DATA))?;
        x.fcomi(st0, st1)
    });
    assert_eq!(m.cpu.eflags() & (CF | ZF | PF), 0, "A > B");
    let (m, _) = run_with(&data, |x| {
        x.fild(qword_ptr(DATA))?;
        x.fcom(qword_ptr(DATA + 16)) // 0.0 (zeroed data): greater
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), 0);
    let un = (0x4000_0000_0000_0000u64, 0x3fffu16);
    let (m, _) = run_with(&m80_bytes(&[un]), |x| {
        x.fld(t(0))?;
        x.fxam()
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), 0, "FXAM: unsupported");
    let (m, _) = run_with(&m80_bytes(&[un]), |x| {
        x.fld(t(0))?;
        x.ftst()
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), C0 | C2 | C3);
    assert_ne!(m.cpu.fpu.sw & IE, 0);
    let den = (0x0000_0000_0000_0001u64, 0x0000u16);
    let (m, _) = run_with(&m80_bytes(&[den]), |x| {
        x.fld(t(0))?;
        x.ftst()
    });
    assert_eq!(m.cpu.fpu.sw & (C0 | C2 | C3), 0, "tiny positive > 0");
    assert_ne!(m.cpu.fpu.sw & DE, 0);
}

/// Runs one transcendental on ST(0) = `x` (and ST(1) = `y` for the two-operand
/// forms) under rounding control `rc`, all exceptions masked; returns the result
/// register's 80 bits (FPTAN's tangent: the 1.0 it pushes is dropped after the
/// status word is read) and the status word.
fn trans1(
    tan: bool,
    rc: u16,
    x: (u64, u16),
    y: Option<(u64, u16)>,
    op: impl FnOnce(&mut CodeAssembler) -> R,
) -> ((u64, u16), u16) {
    let mut data = m80_bytes(&[x, y.unwrap_or((0, 0))]);
    data.extend_from_slice(&(0x037f | rc << 10).to_le_bytes());
    let (m, stop) = run_with(&data, |a| {
        a.fninit()?;
        a.fldcw(word_ptr(DATA + 32))?;
        if y.is_some() {
            a.fld(t(1))?;
        }
        a.fld(t(0))?;
        op(a)?;
        a.fnstsw(word_ptr(DATA + 48))?;
        if tan {
            a.fstp(st0)?;
        }
        a.fstp(t(4))
    });
    assert_eq!(stop, StopReason::Thunk(EXIT));
    (read_m80(&m, 4), m.mem.read_u16(DATA + 48).unwrap())
}

/// Results next to an exact value, where the direction of the tiny remainder
/// decides the rounding (facts of the functions, not of an algorithm): tan x > x
/// and atan t < t for small positive x and t; and the cases the host CPU reports
/// inexact although the value is exact (F2XM1(±1), FYL2X of a power of two,
/// FYL2XP1 with 1 + x a power of two), with its out-of-domain FYL2XP1 answers.
#[test]
fn transcendental_edges() {
    let one = (1u64 << 63, 0x3fffu16);
    // tan(2^-50) = 2^-50 (1 + 2^-100/3 + ...): up gives the next value above,
    // nearest and down give 2^-50 (down without C1, nearest without C1 either:
    // the value was rounded down).
    let x = (1u64 << 63, 0x3fff - 50);
    for (rc, want, up) in [(0u16, x, false), (1, x, false), (2, (x.0 + 1, x.1), true)] {
        let (r, sw) = trans1(true, rc, x, None, |a| a.fptan());
        assert_eq!(r, want, "fptan rc {rc}");
        assert_eq!(sw & C1 != 0, up, "fptan rc {rc}: C1");
        assert_ne!(sw & PE, 0);
    }
    // atan2(-t, 1/32) with t a denormal: -32t (1 - ...) exactly representable as
    // 32t; rounding down (toward -inf) gives -32t itself.
    let y = (0x2b23_f58c_5f4a_ab88u64, 0x8000u16);
    let (r, _) = trans1(false, 1, (1 << 63, 0x3fff - 5), Some(y), |a| a.fpatan());
    assert_eq!(r, (0xac8f_d631_7d2a_ae20, 0x8004));
    // F2XM1(1): 1.0 rounding to nearest (C1), the value below 1 toward zero.
    let (r, sw) = trans1(false, 0, one, None, |a| a.f2xm1());
    assert_eq!((r, sw & (PE | C1)), (one, PE | C1));
    let (r, sw) = trans1(false, 3, one, None, |a| a.f2xm1());
    assert_eq!((r, sw & (PE | C1)), ((u64::MAX, 0x3ffe), PE));
    // F2XM1(-1) = -1/2, reported inexact.
    let (r, sw) = trans1(false, 0, (1 << 63, 0xbfff), None, |a| a.f2xm1());
    assert_eq!((r, sw & (PE | C1)), ((1 << 63, 0xbffe), PE));
    // FYL2X(4, 1.5) = 3: exact, reported inexact; FYL2X(1, y) = 0 is not.
    let (r, sw) = trans1(false, 0, (1 << 63, 0x4001), Some((3 << 62, 0x3fff)), |a| {
        a.fyl2x()
    });
    assert_eq!((r, sw & (PE | C1)), ((3 << 62, 0x4000), PE));
    let (r, sw) = trans1(false, 0, one, Some((3 << 62, 0x3fff)), |a| a.fyl2x());
    assert_eq!((r, sw & PE), ((0, 0), 0));
    // FYL2XP1(-3/4, 1) = log2(1/4) = -2, reported inexact.
    let (r, sw) = trans1(false, 0, (3 << 62, 0xbffe), Some(one), |a| a.fyl2xp1());
    assert_eq!((r, sw & (PE | C1)), ((1 << 63, 0xc000), PE));
    // Outside the domain (x <= -1): -inf is invalid; a finite x comes back with
    // PE, or for y = +inf, -inf.
    let ninf = (1u64 << 63, 0xffffu16);
    let (r, sw) = trans1(false, 0, ninf, Some(one), |a| a.fyl2xp1());
    assert_eq!((r, sw & IE), ((0xc000_0000_0000_0000, 0xffff), IE));
    let x = (1u64 << 63, 0xc001);
    let (r, sw) = trans1(false, 0, x, Some(one), |a| a.fyl2xp1());
    assert_eq!((r, sw & (PE | IE)), (x, PE));
    let (r, sw) = trans1(false, 0, x, Some((1 << 63, 0x7fff)), |a| a.fyl2xp1());
    assert_eq!((r, sw & (PE | IE)), (ninf, 0));
}
