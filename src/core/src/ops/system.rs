//! System and flag instructions: CPUID, RDTSC, LAHF SAHF, CLC STC CMC CLD STD, SALC,
//! BOUND, MOV to/from segment registers, PUSH/POP of segment registers (loads check
//! the selector: `ops::far::load_sreg`), WAIT/FWAIT,
//! ARPL, the segment queries LAR LSL VERR VERW, the user-mode descriptor-table
//! queries SGDT SIDT SLDT STR SMSW, and MOV
//! to/from control/debug registers (privileged at CPL 3).
//!
//! CPUID describes exactly what winterp implements: a "GenuineIntel" family 6
//! model 3 (Pentium II) with FPU, TSC, CX8, CMOV and MMX.

use super::far::{after_load, load_sreg};
use super::reg_op;
use crate::cpu::flags::{AF, ARITH, CF, DF, OF, PF, SF, ZF};
use crate::cpu::{Cpu, EAX, EBX, ECX, EDX, ESP, ExceptionKind, Exit, seg};
use crate::exec::op::{Handler, Op, after_store, next, raise};
use crate::mem::Wrote;
use crate::mtry;
use iced_x86::{Code, Instruction, Mnemonic, OpKind, Register};

// ---- CPUID / RDTSC ----------------------------------------------------------------

/// Highest basic CPUID leaf.
pub const CPUID_MAX_LEAF: u32 = 1;
/// Leaf 1 EAX: family 6, model 3, stepping 3 (Pentium II "Klamath").
pub const CPUID_SIGNATURE: u32 = 0x0000_0633;
/// Leaf 1 EDX: FPU (0), TSC (4), CX8 (8), CMOV (15), MMX (23).
pub const CPUID_FEATURES: u32 = 1 << 0 | 1 << 4 | 1 << 8 | 1 << 15 | 1 << 23;

/// (EAX, EBX, ECX, EDX) for a CPUID leaf. A leaf above the maximum (including every
/// extended leaf: none exist) returns the highest basic leaf's data, as Intel does.
pub fn cpuid(leaf: u32) -> (u32, u32, u32, u32) {
    match leaf {
        // "Genu" "ineI" "ntel" in EBX, EDX, ECX.
        0 => (CPUID_MAX_LEAF, 0x756e_6547, 0x6c65_746e, 0x4965_6e69),
        _ => (CPUID_SIGNATURE, 0, 0, CPUID_FEATURES),
    }
}

fn cpuid_op(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let (a, b, c, d) = cpuid(cpu.regs[EAX]);
    cpu.regs[EAX] = a;
    cpu.regs[EBX] = b;
    cpu.regs[ECX] = c;
    cpu.regs[EDX] = d;
    next(cpu, ops, i)
}

/// EDX:EAX := tsc_base + instructions retired before this one. `retired` is
/// updated at block boundaries; `i` counts the instructions of this block before
/// this op, so the value is exact and deterministic.
fn rdtsc(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let t = cpu
        .tsc_base
        .wrapping_add(cpu.retired)
        .wrapping_add(i as u64);
    cpu.regs[EAX] = t as u32;
    cpu.regs[EDX] = (t >> 32) as u32;
    next(cpu, ops, i)
}

// ---- flag instructions ------------------------------------------------------------

/// The five flags LAHF/SAHF move (not OF).
const LAHF_MASK: u32 = SF | ZF | AF | PF | CF;

fn lahf(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = (cpu.flags.bits() & LAHF_MASK) | 2;
    cpu.set_r8(4, v); // AH
    next(cpu, ops, i)
}

fn sahf(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let ah = cpu.r8(4);
    let b = cpu.flags.bits();
    cpu.flags.set_eager((b & OF) | (ah & LAHF_MASK));
    next(cpu, ops, i)
}

const CLC: u8 = 0;
const STC: u8 = 1;
const CMC: u8 = 2;

fn carry<const OP: u8>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let b = cpu.flags.bits() & ARITH;
    let v = match OP {
        CLC => b & !CF,
        STC => b | CF,
        _ => b ^ CF,
    };
    cpu.flags.set_eager(v);
    next(cpu, ops, i)
}

fn dirflag<const SET: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if SET {
        cpu.eflags_sys |= DF;
    } else {
        cpu.eflags_sys &= !DF;
    }
    next(cpu, ops, i)
}

/// Undocumented SALC (D6): AL := CF ? FF : 00; flags unchanged.
fn salc(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = if cpu.flags.cf() { 0xff } else { 0 };
    cpu.set_r8(EAX as u8, v);
    next(cpu, ops, i)
}

// ---- BOUND ------------------------------------------------------------------------

fn bound<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    let lo = mtry!(cpu, ops, i, cpu.load(S, ea));
    let hi = mtry!(cpu, ops, i, cpu.load(S, ea.wrapping_add(S / 8)));
    let sx = |v: u32| {
        if S == 16 {
            v as u16 as i16 as i32
        } else {
            v as i32
        }
    };
    let idx = sx(cpu.reg(S, o.r));
    if idx < sx(lo) || idx > sx(hi) {
        return raise(cpu, ops, i, ExceptionKind::BoundRange);
    }
    next(cpu, ops, i)
}

// ---- segment registers ------------------------------------------------------------

/// MOV r16/r32, Sreg: a 32-bit register destination is zero-extended (P6 and later,
/// and AMD).
fn mov_r_sreg<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = cpu.seg_sel[o.x as usize] as u32;
    cpu.set_reg(S, o.rm, v);
    next(cpu, ops, i)
}

/// MOV m16, Sreg: always a 16-bit store.
fn mov_m_sreg(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = cpu.seg_sel[o.x as usize];
    let w = mtry!(cpu, ops, i, cpu.mem.write_u16(cpu.ea(o), v));
    after_store(cpu, ops, i, w)
}

/// MOV Sreg, r/m16 (not CS): the selector's checks as `ops::far::load_sreg`; a
/// selector user mode may not load raises #GP.
fn mov_sreg_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = cpu.r16(o.rm);
    let Some(changed) = load_sreg(cpu, o.x, v as u16) else {
        return raise(cpu, ops, i, ExceptionKind::GeneralProtection);
    };
    after_load(cpu, ops, i, changed)
}

fn mov_sreg_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let v = mtry!(cpu, ops, i, cpu.mem.read_u16(cpu.ea(o)));
    let Some(changed) = load_sreg(cpu, o.x, v) else {
        return raise(cpu, ops, i, ExceptionKind::GeneralProtection);
    };
    after_load(cpu, ops, i, changed)
}

/// PUSH Sreg: with a 32-bit operand size the selector is zero-extended to a full
/// dword (as the host AMD CPU does; recent Intel CPUs write only the low word).
fn push_sreg<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = cpu.seg_sel[ops[i].x as usize] as u32;
    let w = mtry!(cpu, ops, i, cpu.push(S, v));
    after_store(cpu, ops, i, w)
}

/// POP Sreg: ESP moves only when the selector loads.
fn pop_sreg<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let v = mtry!(cpu, ops, i, cpu.peek(S, 0));
    let Some(changed) = load_sreg(cpu, ops[i].x, v as u16) else {
        return raise(cpu, ops, i, ExceptionKind::GeneralProtection);
    };
    cpu.regs[ESP] = cpu.regs[ESP].wrapping_add(S / 8);
    after_load(cpu, ops, i, changed)
}

// ---- WAIT, ARPL, descriptor-table queries -----------------------------------------

/// x87 status word ES (error summary): an unmasked exception is pending.
const FPU_ES: u16 = 1 << 7;

/// WAIT/FWAIT: raises a pending unmasked x87 exception, else does nothing.
fn fwait(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if cpu.fpu.sw & FPU_ES != 0 {
        return raise(cpu, ops, i, ExceptionKind::FloatingPoint);
    }
    next(cpu, ops, i)
}

/// ZF only (ARPL leaves the other flags alone).
#[inline(always)]
fn set_zf_only(cpu: &mut Cpu, zf: bool) {
    let b = cpu.flags.bits();
    cpu.flags.set_eager((b & !ZF) | if zf { ZF } else { 0 });
}

/// ARPL: raises the destination selector's RPL to the source's.
#[inline(always)]
fn arpl_new(dst: u32, src: u32) -> Option<u32> {
    if dst & 3 < src & 3 {
        Some((dst & !3) | (src & 3))
    } else {
        None
    }
}

fn arpl_r(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let n = arpl_new(cpu.r16(o.rm), cpu.r16(o.r));
    if let Some(v) = n {
        cpu.set_r16(o.rm, v);
    }
    set_zf_only(cpu, n.is_some());
    next(cpu, ops, i)
}

fn arpl_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    let d = mtry!(cpu, ops, i, cpu.mem.read_u16(ea)) as u32;
    let n = arpl_new(d, cpu.r16(o.r));
    let w = match n {
        Some(v) => mtry!(cpu, ops, i, cpu.mem.write_u16(ea, v as u16)),
        None => Wrote::Data,
    };
    set_zf_only(cpu, n.is_some());
    after_store(cpu, ops, i, w)
}

/// LAR/LSL (`Q` 0 / 1) r, r/m16: the access rights or the limit of the selector's
/// descriptor into `o.r` with ZF set, or ZF clear and `o.r` unchanged when user
/// mode may not inspect it (`cpu::segs::Gdt::rights`). A 16-bit destination gets
/// the low word. Only ZF changes.
fn lar_lsl<const Q: u8, const S: u32, const MEM: bool>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let o = &ops[i];
    let sel = if MEM {
        mtry!(cpu, ops, i, cpu.mem.read_u16(cpu.ea(o)))
    } else {
        cpu.r16(o.rm) as u16
    };
    let r = cpu.gdt.rights(sel);
    if let Some(r) = r {
        let v = if Q == 0 { r.access } else { r.limit };
        cpu.set_reg(S, o.r, v);
    }
    set_zf_only(cpu, r.is_some());
    next(cpu, ops, i)
}

/// VERR/VERW (`W`) r/m16: ZF when the selector names a segment user mode may read
/// (write).
fn verx<const W: bool, const MEM: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let sel = if MEM {
        mtry!(cpu, ops, i, cpu.mem.read_u16(cpu.ea(o)))
    } else {
        cpu.r16(o.rm) as u16
    };
    let ok = cpu
        .gdt
        .rights(sel)
        .is_some_and(|r| if W { r.writable } else { r.readable });
    set_zf_only(cpu, ok);
    next(cpu, ops, i)
}

/// Values the descriptor-table queries report (those of 32-bit Windows XP).
pub const GDTR: (u16, u32) = (0x03ff, 0x8003_f000);
pub const IDTR: (u16, u32) = (0x07ff, 0x8003_f400);
pub const LDTR: u16 = 0;
pub const TR: u16 = 0x28;
pub const CR0: u32 = 0x8001_003b;

/// SGDT/SIDT m: 16-bit limit then 32-bit base (24-bit with a 16-bit operand size,
/// the top byte written as 0). `o.x` 0 = GDT, 1 = IDT; `o.imm` the base mask.
fn sxdt(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let ea = cpu.ea(o);
    let (limit, base) = if o.x == 0 { GDTR } else { IDTR };
    mtry!(cpu, ops, i, cpu.mem.probe_write(ea, 6));
    let w1 = mtry!(cpu, ops, i, cpu.mem.write_u16(ea, limit));
    let w2 = mtry!(
        cpu,
        ops,
        i,
        cpu.mem.write_u32(ea.wrapping_add(2), base & o.imm)
    );
    let w = if w1 == Wrote::Code || w2 == Wrote::Code {
        Wrote::Code
    } else {
        Wrote::Data
    };
    after_store(cpu, ops, i, w)
}

/// SLDT/STR/SMSW to a register: `o.imm` is the value; 32-bit destinations get it
/// whole (selectors zero-extended, CR0 in full), 16-bit ones the low word.
fn store_sys_r<const S: u32>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    cpu.set_reg(S, o.rm, o.imm);
    next(cpu, ops, i)
}

/// SLDT/STR/SMSW to memory: always a 16-bit store.
fn store_sys_m(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let w = mtry!(cpu, ops, i, cpu.mem.write_u16(cpu.ea(o), o.imm as u16));
    after_store(cpu, ops, i, w)
}

fn privileged(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::Privileged)
}

fn invalid(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::InvalidOpcode)
}

// ---- lowering ---------------------------------------------------------------------

fn sreg_slot(r: Register) -> Option<u8> {
    let s = crate::decode::seg_slot(r);
    (s != seg::NONE).then_some(s)
}

fn size16(ins: &Instruction) -> bool {
    ins.op_code().operand_size() == 16
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    let m = ins.mnemonic();
    match m {
        Mnemonic::Cpuid => Some(cpuid_op),
        Mnemonic::Rdtsc => Some(rdtsc),
        Mnemonic::Lahf => Some(lahf),
        Mnemonic::Sahf => Some(sahf),
        Mnemonic::Clc => Some(carry::<CLC>),
        Mnemonic::Stc => Some(carry::<STC>),
        Mnemonic::Cmc => Some(carry::<CMC>),
        Mnemonic::Cld => Some(dirflag::<false>),
        Mnemonic::Std => Some(dirflag::<true>),
        Mnemonic::Salc => Some(salc),
        Mnemonic::Wait => Some(fwait),
        Mnemonic::Bound if ins.op_kind(1) == OpKind::Memory => {
            o.r = reg_op(ins, 0)?;
            Some(match ins.code() {
                Code::Bound_r16_m1616 => bound::<16>,
                _ => bound::<32>,
            })
        }
        Mnemonic::Mov => {
            let (k0, k1) = (ins.op_kind(0), ins.op_kind(1));
            let r0 = (k0 == OpKind::Register).then(|| ins.op0_register());
            let r1 = (k1 == OpKind::Register).then(|| ins.op1_register());
            let is_ctl =
                |r: Option<Register>| r.is_some_and(|r| r.is_cr() || r.is_dr() || r.is_tr());
            if is_ctl(r0) || is_ctl(r1) {
                return Some(privileged);
            }
            if let Some(s) = r1.and_then(sreg_slot) {
                // MOV r/m, Sreg
                o.x = s;
                return match k0 {
                    OpKind::Register => {
                        o.rm = reg_op(ins, 0)?;
                        Some(if ins.op0_register().is_gpr16() {
                            mov_r_sreg::<16>
                        } else {
                            mov_r_sreg::<32>
                        })
                    }
                    OpKind::Memory => Some(mov_m_sreg),
                    _ => None,
                };
            }
            let s = r0.and_then(sreg_slot)?;
            // MOV Sreg, r/m
            if s == seg::CS {
                return Some(invalid);
            }
            o.x = s;
            match k1 {
                OpKind::Register => {
                    o.rm = reg_op(ins, 1)?;
                    Some(mov_sreg_r)
                }
                OpKind::Memory => Some(mov_sreg_m),
                _ => None,
            }
        }
        Mnemonic::Push | Mnemonic::Pop if ins.op_kind(0) == OpKind::Register => {
            let s = sreg_slot(ins.op0_register())?;
            o.x = s;
            let s16 = size16(ins);
            Some(match (m, s16) {
                (Mnemonic::Push, true) => push_sreg::<16>,
                (Mnemonic::Push, false) => push_sreg::<32>,
                _ if s == seg::CS => invalid,
                (_, true) => pop_sreg::<16>,
                (_, false) => pop_sreg::<32>,
            })
        }
        Mnemonic::Arpl => {
            o.r = reg_op(ins, 1)?;
            match ins.op_kind(0) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 0)?;
                    Some(arpl_r)
                }
                OpKind::Memory => Some(arpl_m),
                _ => None,
            }
        }
        Mnemonic::Lar | Mnemonic::Lsl => {
            o.r = reg_op(ins, 0)?;
            let mem = ins.op_kind(1) == OpKind::Memory;
            if !mem {
                o.rm = reg_op(ins, 1)?;
            }
            let s16 = ins.op0_register().is_gpr16();
            macro_rules! pick {
                ($q:literal) => {
                    Some(match (s16, mem) {
                        (true, false) => lar_lsl::<$q, 16, false>,
                        (true, true) => lar_lsl::<$q, 16, true>,
                        (false, false) => lar_lsl::<$q, 32, false>,
                        (false, true) => lar_lsl::<$q, 32, true>,
                    })
                };
            }
            if m == Mnemonic::Lar {
                pick!(0)
            } else {
                pick!(1)
            }
        }
        Mnemonic::Verr | Mnemonic::Verw => {
            let mem = ins.op_kind(0) == OpKind::Memory;
            if !mem {
                o.rm = reg_op(ins, 0)?;
            }
            Some(match (m == Mnemonic::Verw, mem) {
                (false, false) => verx::<false, false>,
                (false, true) => verx::<false, true>,
                (true, false) => verx::<true, false>,
                (true, true) => verx::<true, true>,
            })
        }
        Mnemonic::Sgdt | Mnemonic::Sidt => {
            o.x = (m == Mnemonic::Sidt) as u8;
            o.imm = match ins.code() {
                Code::Sgdt_m1632_16 | Code::Sidt_m1632_16 => 0x00ff_ffff,
                Code::Sgdt_m1632 | Code::Sidt_m1632 => u32::MAX,
                _ => return None,
            };
            Some(sxdt)
        }
        Mnemonic::Sldt | Mnemonic::Str | Mnemonic::Smsw => {
            o.imm = match m {
                Mnemonic::Sldt => LDTR as u32,
                Mnemonic::Str => TR as u32,
                _ => CR0,
            };
            match ins.op_kind(0) {
                OpKind::Register => {
                    o.rm = reg_op(ins, 0)?;
                    Some(if ins.op0_register().is_gpr16() {
                        store_sys_r::<16>
                    } else {
                        store_sys_r::<32>
                    })
                }
                OpKind::Memory => Some(store_sys_m),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{CPUID_FEATURES, CR0, GDTR, IDTR, TR};
    use crate::StopReason;
    use crate::cpu::flags::{AF, ARITH, CF, DF, OF, PF, SF, ZF};
    use crate::cpu::{EAX, EBX, ECX, EDX, ESP, ExceptionKind, seg};
    use crate::harness::{CODE, DATA, EXIT, Machine, assemble};
    use iced_x86::code_asm::*;

    type R = Result<(), IcedError>;

    fn machine(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> Machine {
        let mut m = Machine::new();
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

    fn run_fault(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> (Machine, crate::Exception) {
        let mut m = machine(setup, body);
        match m.run(100_000) {
            StopReason::Exception(e) => {
                assert_eq!(e.eip, CODE);
                (m, e)
            }
            r => panic!("expected a fault, got {r:?}"),
        }
    }

    fn cpuid(leaf: u32) -> [u32; 4] {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = leaf;
                m.cpu.regs[ECX] = 0x1234;
            },
            |a| a.cpuid(),
        );
        [
            m.cpu.regs[EAX],
            m.cpu.regs[EBX],
            m.cpu.regs[ECX],
            m.cpu.regs[EDX],
        ]
    }

    #[test]
    fn cpuid_vendor_and_features() {
        let l0 = cpuid(0);
        assert_eq!(l0[0], 1, "max basic leaf");
        let mut vendor = Vec::new();
        for r in [l0[1], l0[3], l0[2]] {
            vendor.extend_from_slice(&r.to_le_bytes());
        }
        assert_eq!(&vendor, b"GenuineIntel");
        let l1 = cpuid(1);
        assert_eq!(l1[0], 0x633);
        assert_eq!((l1[0] >> 8) & 0xf, 6, "family");
        assert_eq!((l1[0] >> 4) & 0xf, 3, "model");
        assert_eq!(l1[1], 0);
        assert_eq!(l1[2], 0, "no SSE3 or later");
        // FPU TSC CX8 CMOV MMX; no SSE (25), SSE2 (26), PAE (6), APIC (9), SEP (11),
        // FXSR (24).
        assert_eq!(l1[3], 0x0080_8111);
        assert_eq!(l1[3], CPUID_FEATURES);
        for bit in [6, 9, 11, 24, 25, 26] {
            assert_eq!(l1[3] & (1 << bit), 0);
        }
        // Leaves above the maximum, including the extended range, return leaf 1.
        assert_eq!(cpuid(2), l1);
        assert_eq!(cpuid(0x8000_0000), l1);
        assert!(cpuid(0x8000_0000)[0] < 0x8000_0001, "no extended leaves");
    }

    #[test]
    fn rdtsc_counts_retired_instructions() {
        let m = run(
            |m| m.cpu.tsc_base = 0x1_0000_0000 - 2,
            |a| {
                let mut l = a.create_label();
                a.nop()?;
                a.rdtsc()?; // 1 instruction retired before it
                a.mov(ebx, eax)?;
                a.mov(ecx, edx)?;
                a.jmp(l)?;
                a.set_label(&mut l)?;
                a.rdtsc() // 5 retired before it
            },
        );
        assert_eq!((m.cpu.regs[EBX], m.cpu.regs[ECX]), (0xffff_ffff, 0));
        assert_eq!((m.cpu.regs[EAX], m.cpu.regs[EDX]), (3, 1));
    }

    #[test]
    fn lahf_sahf_round_trip() {
        let all = CF | PF | AF | ZF | SF | OF;
        let m = run(
            |m| m.cpu.flags.set_eager(all),
            |a| {
                a.lahf()?;
                a.mov(bl, ah)?;
                a.mov(ah, 0)?;
                a.sahf()?; // clears all but OF
                a.lahf()?;
                a.mov(bh, ah)?;
                a.mov(ah, bl)?;
                a.sahf()
            },
        );
        assert_eq!(m.cpu.regs[EBX] & 0xffff, 0x02d7);
        assert_eq!(m.cpu.flags.bits() & ARITH, all);
        // SAHF ignores AH bits 1, 3, 5 and leaves OF.
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0x2a00;
                m.cpu.flags.set_eager(0);
            },
            |a| a.sahf(),
        );
        assert_eq!(m.cpu.flags.bits() & ARITH, 0);
    }

    #[test]
    fn carry_and_direction_flags() {
        let m = run(
            |m| m.cpu.flags.set_eager(ZF | OF),
            |a| {
                a.stc()?;
                a.setc(bl)?;
                a.cmc()?;
                a.setc(bh)?;
                a.cmc()?;
                a.clc()?;
                a.salc()?; // AL = 0
                a.mov(cl, al)?;
                a.stc()?;
                a.salc()?; // AL = ff
                a.std()?;
                a.pushfd()?;
                a.cld()?;
                a.pop(edx)
            },
        );
        assert_eq!(m.cpu.regs[EBX] & 0xffff, 0x0001);
        assert_eq!(m.cpu.regs[ECX] & 0xff, 0);
        assert_eq!(m.cpu.regs[EAX] & 0xff, 0xff);
        assert_eq!(m.cpu.flags.bits() & ARITH, ZF | OF | CF);
        assert_eq!(m.cpu.regs[EDX] & DF, DF);
        assert!(!m.cpu.df());
    }

    #[test]
    fn bound_in_and_out_of_range() {
        let m = run(
            |m| {
                m.mem.write_u32(DATA, (-5i32) as u32).unwrap();
                m.mem.write_u32(DATA + 4, 10).unwrap();
                m.mem.write_u16(DATA + 8, 0xfff0).unwrap(); // -16
                m.mem.write_u16(DATA + 10, 0x0010).unwrap();
                m.cpu.regs[EAX] = (-5i32) as u32;
                m.cpu.regs[EBX] = 10;
                m.cpu.regs[ECX] = 0x7777_fff0; // cx = -16
            },
            |a| {
                a.bound(eax, qword_ptr(DATA))?;
                a.bound(ebx, qword_ptr(DATA))?;
                a.bound(cx, dword_ptr(DATA + 8))
            },
        );
        assert_eq!(m.cpu.regs[EAX], (-5i32) as u32);
        for (v, wide) in [(11u32, true), ((-6i32) as u32, true), (0x11, false)] {
            let (m, e) = run_fault(
                |m| {
                    m.mem.write_u32(DATA, (-5i32) as u32).unwrap();
                    m.mem.write_u32(DATA + 4, 10).unwrap();
                    m.mem.write_u16(DATA + 8, 0xfff0).unwrap();
                    m.mem.write_u16(DATA + 10, 0x0010).unwrap();
                    m.cpu.regs[EAX] = v;
                },
                |a| {
                    if wide {
                        a.bound(eax, qword_ptr(DATA))
                    } else {
                        a.bound(ax, dword_ptr(DATA + 8))
                    }
                },
            );
            assert_eq!(e.kind, ExceptionKind::BoundRange);
            assert_eq!(m.cpu.eip, CODE);
            assert_eq!(m.cpu.regs[EAX], v);
        }
    }

    #[test]
    fn segment_register_moves() {
        let m = run(
            |m| {
                m.cpu.set_seg_base(seg::FS, 0x7ffd_e000);
                m.cpu.regs[EAX] = 0xffff_ffff;
                m.cpu.regs[EBX] = 0xffff_ffff;
                m.cpu.regs[ECX] = 0x1234_0020;
                m.cpu.regs[EDX] = 0x0000_003b;
                m.mem.write_u32(DATA, 0xffff_ffff).unwrap();
                m.mem.write_u32(DATA + 4, 0x23).unwrap();
            },
            |a| {
                a.mov(eax, ds)?; // zero-extended
                a.db(&[0x66, 0x8c, 0xe3])?; // mov bx, fs
                a.mov(word_ptr(DATA), gs)?;
                a.mov(es, cx)?; // RPL 0 of the user data segment
                a.mov(gs, dx)?; // the TEB selector: the TEB's base
                a.mov(fs, cx)?; // a flat selector: base 0
                a.mov(ss, word_ptr(DATA + 4))
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0x23);
        assert_eq!(m.cpu.regs[EBX], 0xffff_003b);
        assert_eq!(m.mem.read_u32(DATA), Ok(0xffff_0000));
        assert_eq!(m.cpu.seg_sel[seg::ES as usize], 0x20);
        assert_eq!(m.cpu.seg_sel[seg::FS as usize], 0x20);
        assert_eq!(m.cpu.seg_base[seg::FS as usize], 0);
        assert_eq!(m.cpu.seg_sel[seg::GS as usize], 0x3b);
        assert_eq!(m.cpu.seg_base[seg::GS as usize], 0x7ffd_e000);
        assert_eq!(m.cpu.seg_sel[seg::SS as usize], 0x23);
        // MOV CS, r/m is #UD.
        let (_, e) = run_fault(|_| {}, |a| a.db(&[0x8e, 0xc8]));
        assert_eq!(e.kind, ExceptionKind::InvalidOpcode);
        // Kernel and LDT selectors, null or RPL 0 into SS: #GP, nothing loaded.
        for (sreg, sel) in [
            (0u8, 0x10u32),
            (3, 0x08),
            (4, 0x30),
            (5, 0x0f),
            (2, 0),
            (2, 0x20),
            (2, 0x1b),
        ] {
            let (m, e) = run_fault(
                |m| m.cpu.regs[ECX] = sel,
                |a| a.db(&[0x8e, 0xc1 | (sreg << 3)]), // mov sreg, cx
            );
            assert_eq!(e.kind, ExceptionKind::GeneralProtection, "{sreg} {sel:#x}");
            assert_eq!(m.cpu.seg_sel, crate::cpu::Cpu::selectors(&m.cpu.gdt));
        }
        // A null selector into DS is allowed.
        let m = run(|m| m.cpu.regs[ECX] = 0, |a| a.mov(ds, cx));
        assert_eq!(m.cpu.seg_sel[seg::DS as usize], 0);
    }

    #[test]
    fn push_pop_segment_registers() {
        let m = run(
            |m| {
                let top = m.cpu.regs[ESP];
                m.mem.write_u32(top - 4, 0xdead_beef).unwrap();
                m.mem.write_u32(top - 8, 0xdead_beef).unwrap();
            },
            |a| {
                a.push(fs)?; // dword, zero-extended (as the host AMD CPU)
                a.mov(eax, dword_ptr(esp))?;
                a.db(&[0x66, 0x0f, 0xa8])?; // push gs (16-bit)
                a.mov(ebx, dword_ptr(esp))?;
                a.db(&[0x66, 0x0f, 0xa1])?; // pop fs (16-bit)
                a.mov(dword_ptr(esp), 0x0007_0023)?;
                a.pop(es)?;
                a.push(cs)
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0x3b);
        assert_eq!(m.cpu.regs[EBX] & 0xffff, 0);
        assert_eq!(m.cpu.seg_sel[seg::FS as usize], 0);
        assert_eq!(m.cpu.seg_sel[seg::ES as usize], 0x23);
        let top = m.cpu.regs[ESP];
        assert_eq!(top, crate::harness::STACK_TOP - 16 - 4);
        assert_eq!(m.mem.read_u32(top), Ok(0x1b));
        // POP of a selector user mode may not load: #GP, ESP unchanged.
        let (m, e) = run_fault(
            |m| {
                let top = m.cpu.regs[ESP];
                m.mem.write_u32(top, 0x10).unwrap();
            },
            |a| a.pop(ds),
        );
        assert_eq!(e.kind, ExceptionKind::GeneralProtection);
        assert_eq!(m.cpu.regs[ESP], crate::harness::STACK_TOP - 16);
    }

    #[test]
    fn fwait_raises_only_a_pending_exception() {
        run(|_| {}, |a| a.wait());
        let (_, e) = run_fault(|m| m.cpu.fpu.sw = 0x0084, |a| a.wait());
        assert_eq!(e.kind, ExceptionKind::FloatingPoint);
    }

    #[test]
    fn descriptor_table_queries_and_arpl() {
        let m = run(
            |m| {
                m.cpu.regs[EAX] = 0xffff_ffff;
                m.cpu.regs[EBX] = 0xffff_ffff;
                m.cpu.regs[ECX] = 0x1111_0008;
                m.cpu.regs[EDX] = 0x0000_0003;
                m.mem.write_u16(DATA + 0x20, 0x0013).unwrap();
            },
            |a| {
                a.sgdt(ptr(DATA))?;
                a.sidt(ptr(DATA + 8))?;
                a.str(eax)?;
                a.smsw(bx)?;
                a.sldt(word_ptr(DATA + 0x10))?;
                a.smsw(word_ptr(DATA + 0x12))?;
                a.arpl(cx, dx)?; // RPL 0 -> 3, ZF
                a.setz(byte_ptr(DATA + 0x18))?;
                a.arpl(word_ptr(DATA + 0x20), dx)?; // RPL 3 already: ZF=0
                a.setz(byte_ptr(DATA + 0x19))
            },
        );
        assert_eq!(m.mem.read_u16(DATA), Ok(GDTR.0));
        assert_eq!(m.mem.read_u32(DATA + 2), Ok(GDTR.1));
        assert_eq!(m.mem.read_u16(DATA + 8), Ok(IDTR.0));
        assert_eq!(m.mem.read_u32(DATA + 10), Ok(IDTR.1));
        assert_eq!(m.cpu.regs[EAX], TR as u32);
        assert_eq!(m.cpu.regs[EBX], 0xffff_0000 | (CR0 & 0xffff));
        assert_eq!(m.mem.read_u16(DATA + 0x10), Ok(0));
        assert_eq!(m.mem.read_u16(DATA + 0x12), Ok(CR0 as u16));
        assert_eq!(m.cpu.regs[ECX], 0x1111_000b);
        assert_eq!(m.mem.read_u16(DATA + 0x18), Ok(0x0001));
        assert_eq!(m.mem.read_u16(DATA + 0x20), Ok(0x0013));
    }

    #[test]
    fn control_register_moves_are_privileged() {
        let (_, e) = run_fault(|_| {}, |a| a.db(&[0x0f, 0x20, 0xc0])); // mov eax, cr0
        assert_eq!(e.kind, ExceptionKind::Privileged);
        let (_, e) = run_fault(|_| {}, |a| a.db(&[0x0f, 0x23, 0xc0])); // mov dr0, eax
        assert_eq!(e.kind, ExceptionKind::Privileged);
    }
}
