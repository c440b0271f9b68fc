//! Compares and classification: FCOM FCOMP FCOMPP FUCOM FUCOMP FUCOMPP FICOM
//! FICOMP FTST FXAM FCOMI FCOMIP FUCOMI FUCOMIP, and FCMOVcc.

use super::arith::{I16, I32, M32, M64, load_src};
use super::ext;
use super::num::is_snan;
use super::{C0, C2, C3, DE, IE, INDEFINITE, wait};
use crate::cpu::flags::{CF, PF, ZF};
use crate::cpu::fpu::{Fpu, f64_to_ext80};
use crate::cpu::{Cpu, Exit};
use crate::exec::op::{Handler, Op, next};
use crate::mtry;
use iced_x86::{Instruction, MemorySize, Mnemonic, OpKind};

/// Result of a compare as C3 C2 C0 (the FCOMI flags use the same positions as
/// ZF PF CF, mapped in `fcomi`).
use ext::{EQ, GT, LT, UN};

impl Fpu {
    /// Compares `a` with `b`; `unordered` for FUCOM (IE only for SNaN operands).
    /// Returns the C3 C2 C0 pattern and whether an unmasked exception occurred
    /// (the host still sets the condition codes then, but does not pop).
    #[inline(always)]
    fn compare(&mut self, a: f64, b: f64, unordered: bool, de: bool) -> (u16, bool) {
        if a.is_nan() || b.is_nan() {
            let ie = !unordered || is_snan(a) || is_snan(b);
            return (UN, self.exc(if ie { IE } else { 0 }));
        }
        let stop = de && self.exc(DE);
        let c = if a > b {
            GT
        } else if a < b {
            LT
        } else {
            EQ
        };
        (c, stop)
    }

    /// [`Fpu::compare`] of 80-bit values (a register holding an exact image is
    /// involved); `de`: the memory operand is a denormal.
    #[cold]
    #[inline(never)]
    fn compare_ext(
        &mut self,
        a: (u64, u16),
        b: (u64, u16),
        unordered: bool,
        de: bool,
    ) -> (u16, bool) {
        let (c, mut fl) = ext::compare(a, b, unordered);
        if de && c != UN {
            fl |= DE;
        }
        (c, self.exc(fl))
    }

    /// Compares physical registers `k0` and `k1` (both non-empty).
    #[inline(always)]
    fn compare_regs(&mut self, k0: usize, k1: usize, unordered: bool) -> (u16, bool) {
        if (self.raw >> k0 | self.raw >> k1) & 1 != 0 {
            self.compare_ext(self.ext80(k0), self.ext80(k1), unordered, false)
        } else {
            self.compare(self.st[k0], self.st[k1], unordered, false)
        }
    }

    #[inline(always)]
    fn set_compare(&mut self, c: u16) {
        self.sw = (self.sw & !super::CC) | c;
    }
}

/// FCOM/FCOMP/FUCOM... with a memory operand (float or integer).
fn fcom_m<const K: u8, const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let (b, de) = mtry!(cpu, ops, i, load_src::<K>(cpu, ea));
    let f = &mut cpu.fpu;
    f.fdp = ea;
    let k = f.pk(0);
    let (c, stop) = if f.is_empty(k) {
        (UN, f.underflow())
    } else if f.is_raw(k) {
        f.compare_ext(f.ext80(k), f64_to_ext80(b), false, de)
    } else {
        f.compare(f.st[k], b, false, de)
    };
    f.set_compare(c);
    if POP && !stop {
        f.pop();
    }
    next(cpu, ops, i)
}

/// FCOM/FUCOM ST(i) with 0, 1 or 2 pops (FCOMPP/FUCOMPP use ST(1)).
fn fcom_sti<const POPS: u8, const U: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(ops[i].rm));
    let (c, stop) = if f.is_empty(k0) || f.is_empty(k1) {
        (UN, f.underflow())
    } else {
        f.compare_regs(k0, k1, U)
    };
    f.set_compare(c);
    if !stop {
        for _ in 0..POPS {
            f.pop();
        }
    }
    next(cpu, ops, i)
}

fn ftst(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let k = f.pk(0);
    let (c, _) = if f.is_empty(k) {
        (UN, f.underflow())
    } else if f.is_raw(k) {
        f.compare_ext(f.ext80(k), (0, 0), false, false)
    } else {
        f.compare(f.st[k], 0.0, false, false)
    };
    f.set_compare(c);
    next(cpu, ops, i)
}

fn fxam(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let k = f.pk(0);
    let c = fxam_class(f, k);
    f.set_compare(c);
    next(cpu, ops, i)
}

/// FXAM's C3 C2 C1 C0 for physical register `k`.
pub fn fxam_class(f: &Fpu, k: usize) -> u16 {
    let (m, se) = f.ext80(k);
    let sign = if se & 0x8000 != 0 { super::C1 } else { 0 };
    let e = se & 0x7fff;
    let class = if f.is_empty(k) {
        C3 | C0
    } else if e == 0x7fff {
        if m >> 63 == 0 {
            0
        } else if m << 1 == 0 {
            C2 | C0
        } else {
            C0
        }
    } else if e == 0 {
        if m == 0 { C3 } else { C3 | C2 }
    } else if m >> 63 == 0 {
        0
    } else {
        C2
    };
    class | sign
}

/// FCOMI/FCOMIP/FUCOMI/FUCOMIP: ZF PF CF from the compare, OF SF AF cleared.
fn fcomi<const POP: bool, const U: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (k0, k1) = (f.pk(0), f.pk(ops[i].rm));
    let (c, stop) = if f.is_empty(k0) || f.is_empty(k1) {
        (UN, f.underflow())
    } else {
        // C1 is left alone (as the host does; the SDM says "set to 0").
        f.compare_regs(k0, k1, U)
    };
    if POP && !stop {
        f.pop();
    }
    let bits = match c {
        GT => 0,
        LT => CF,
        EQ => ZF,
        _ => ZF | PF | CF,
    };
    cpu.flags.set_eager(bits);
    next(cpu, ops, i)
}

/// FCMOVcc: ST(0) = ST(i) when the EFLAGS condition `x` holds.
fn fcmov(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let o = &ops[i];
    let take = cpu.flags.cond(o.x);
    let f = &mut cpu.fpu;
    let (d, s) = (f.pk(0), f.pk(o.rm));
    if f.is_empty(d) || f.is_empty(s) {
        if !f.underflow() {
            f.put(d, INDEFINITE);
        }
        return next(cpu, ops, i);
    }
    if take {
        let raw = f.is_raw(s);
        f.put(d, f.st[s]);
        f.copy_image(d, s, raw);
    }
    next(cpu, ops, i)
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    let m = ins.mnemonic();
    let mem = ins.op_count() >= 1 && ins.op_kind(0) == OpKind::Memory;
    if mem {
        let pop = matches!(m, Fcomp | Ficomp);
        if !matches!(m, Fcom | Fcomp | Ficom | Ficomp) {
            return None;
        }
        macro_rules! k {
            ($k:expr) => {
                if pop {
                    fcom_m::<{ $k }, true> as Handler
                } else {
                    fcom_m::<{ $k }, false> as Handler
                }
            };
        }
        return Some(match ins.memory_size() {
            MemorySize::Float32 => k!(M32),
            MemorySize::Float64 => k!(M64),
            MemorySize::Int16 => k!(I16),
            MemorySize::Int32 => k!(I32),
            _ => return None,
        });
    }
    let sti = || {
        if ins.op_count() >= 2 {
            super::st_index(ins, 1)
        } else if ins.op_count() == 1 {
            super::st_index(ins, 0)
        } else {
            1
        }
    };
    Some(match m {
        Fcom => {
            o.rm = sti();
            fcom_sti::<0, false>
        }
        Fcomp => {
            o.rm = sti();
            fcom_sti::<1, false>
        }
        Fcompp => {
            o.rm = 1;
            fcom_sti::<2, false>
        }
        Fucom => {
            o.rm = sti();
            fcom_sti::<0, true>
        }
        Fucomp => {
            o.rm = sti();
            fcom_sti::<1, true>
        }
        Fucompp => {
            o.rm = 1;
            fcom_sti::<2, true>
        }
        Ftst => ftst,
        Fxam => fxam,
        Fcomi => {
            o.rm = sti();
            fcomi::<false, false>
        }
        Fcomip => {
            o.rm = sti();
            fcomi::<true, false>
        }
        Fucomi => {
            o.rm = sti();
            fcomi::<false, true>
        }
        Fucomip => {
            o.rm = sti();
            fcomi::<true, true>
        }
        Fcmovb | Fcmove | Fcmovbe | Fcmovu | Fcmovnb | Fcmovne | Fcmovnbe | Fcmovnu => {
            o.rm = sti();
            o.x = match m {
                Fcmovb => 0x2,
                Fcmovnb => 0x3,
                Fcmove => 0x4,
                Fcmovne => 0x5,
                Fcmovbe => 0x6,
                Fcmovnbe => 0x7,
                Fcmovu => 0xa,
                _ => 0xb,
            };
            fcmov
        }
        _ => return None,
    })
}
