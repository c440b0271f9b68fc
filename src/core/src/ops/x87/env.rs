//! Control and stack instructions: FXCH FINCSTP FDECSTP FFREE FFREEP FNOP
//! FNINIT/FINIT FNCLEX/FCLEX FLDCW FNSTCW/FSTCW FNSTSW/FSTSW (m16, AX)
//! FNSTENV/FSTENV FLDENV FNSAVE/FSAVE FRSTOR (32- and 16-bit layouts), and the
//! 8087/287 leftovers FNENI FNDISI FNSETPM (no-ops on a 387 and later).

use super::{B, C1, ES, INDEFINITE, wait, wait_only};
use crate::cpu::fpu::Fpu;
use crate::cpu::{Cpu, EAX, Exit, seg};
use crate::exec::op::{Handler, Op, after_store, next};
use crate::mem::{Fault, Wrote};
use crate::mtry;
use iced_x86::{Instruction, MemorySize, Mnemonic};

impl Fpu {
    /// Recomputes ES and B from the exception flags and masks (after the control
    /// word or the status word was loaded).
    pub fn update_es(&mut self) {
        if self.sw & !self.cw & 0x3f != 0 {
            self.sw |= ES | B;
        } else {
            self.sw &= !(ES | B);
        }
    }

    /// Loads the control word (reserved bits read back as the hardware keeps them).
    pub fn load_cw(&mut self, v: u16) {
        self.cw = (v & 0x1f3f) | 0x0040;
        self.update_es();
    }
}

fn fxch(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let (a, b) = (f.pk(0), f.pk(ops[i].rm));
    if f.is_empty(a) || f.is_empty(b) {
        if f.underflow() {
            return next(cpu, ops, i);
        }
        for k in [a, b] {
            if f.is_empty(k) {
                f.put(k, INDEFINITE);
            }
        }
    }
    f.swap_regs(a, b);
    f.sw &= !C1;
    next(cpu, ops, i)
}

fn fincstp<const DEC: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    f.top = if DEC {
        f.top.wrapping_sub(1)
    } else {
        f.top.wrapping_add(1)
    } & 7;
    f.sw &= !C1;
    next(cpu, ops, i)
}

fn ffree<const POP: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    let f = &mut cpu.fpu;
    let k = f.pk(ops[i].rm);
    f.tags |= 3 << (2 * k);
    if POP {
        // FFREEP: the pop empties ST(0) too.
        f.pop();
    }
    next(cpu, ops, i)
}

fn fnop(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait!(cpu, ops, i);
    next(cpu, ops, i)
}

/// FNENI/FNDISI/FNSETPM: no-ops that do not even wait.
fn nop(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    next(cpu, ops, i)
}

/// FENI/FDISI/FSETPM with the WAIT prefix: only the wait.
fn wnop(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait_only!(cpu, ops, i);
    next(cpu, ops, i)
}

fn finit<const WAIT: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    cpu.fpu.init();
    next(cpu, ops, i)
}

fn fclex<const WAIT: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    cpu.fpu.sw &= !0x80ff;
    next(cpu, ops, i)
}

fn fldcw(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait_only!(cpu, ops, i);
    let v = mtry!(cpu, ops, i, super::load16(cpu, cpu.ea(&ops[i])));
    cpu.fpu.load_cw(v);
    next(cpu, ops, i)
}

fn fstcw<const WAIT: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    let w = mtry!(cpu, ops, i, cpu.mem.write_u16(cpu.ea(&ops[i]), cpu.fpu.cw));
    after_store(cpu, ops, i, w)
}

fn fstsw_m<const WAIT: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    let w = mtry!(
        cpu,
        ops,
        i,
        cpu.mem.write_u16(cpu.ea(&ops[i]), cpu.fpu.status())
    );
    after_store(cpu, ops, i, w)
}

fn fstsw_ax<const WAIT: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    let s = cpu.fpu.status() as u32;
    cpu.set_r16(EAX as u8, s);
    next(cpu, ops, i)
}

/// Writes bytes to guest memory after probing the whole range.
fn write_all(cpu: &Cpu, ea: u32, b: &[u8]) -> Result<Wrote, Fault> {
    cpu.mem.probe_write(ea, b.len() as u32)?;
    let mut code = false;
    for (k, c) in b.chunks(2).enumerate() {
        let a = ea.wrapping_add(2 * k as u32);
        let w = if c.len() == 2 {
            cpu.mem.write_u16(a, u16::from_le_bytes([c[0], c[1]]))?
        } else {
            cpu.mem.write_u8(a, c[0])?
        };
        code |= w == Wrote::Code;
    }
    Ok(if code { Wrote::Code } else { Wrote::Data })
}

fn read_all<const N: usize>(cpu: &Cpu, ea: u32) -> Result<[u8; N], Fault> {
    let mut out = [0u8; N];
    for (k, c) in out.chunks_mut(2).enumerate() {
        let v = super::load16(cpu, ea.wrapping_add(2 * k as u32))?;
        c.copy_from_slice(&v.to_le_bytes()[..c.len()]);
    }
    Ok(out)
}

/// Fills the selector fields the image reports (the code and data segments).
fn note_selectors(cpu: &mut Cpu) {
    cpu.fpu.fcs = if cpu.fpu.fip != 0 {
        cpu.seg_sel[seg::CS as usize]
    } else {
        0
    };
    cpu.fpu.fds = if cpu.fpu.fdp != 0 {
        cpu.seg_sel[seg::DS as usize]
    } else {
        0
    };
}

/// The 14-byte 16-bit protected-mode environment from the 28-byte one.
fn env16(e: &[u8; 28]) -> [u8; 14] {
    let mut b = [0u8; 14];
    for (k, o) in [0usize, 4, 8, 12, 16, 20, 24].iter().enumerate() {
        b[2 * k..2 * k + 2].copy_from_slice(&e[*o..*o + 2]);
    }
    b
}

fn env32(b: &[u8]) -> [u8; 28] {
    let mut e = [0u8; 28];
    for (k, o) in [0usize, 4, 8, 12, 16, 20, 24].iter().enumerate() {
        e[*o..*o + 2].copy_from_slice(&b[2 * k..2 * k + 2]);
    }
    e
}

fn fstenv<const WAIT: bool, const W32: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    note_selectors(cpu);
    let ea = cpu.ea(&ops[i]);
    let e = cpu.fpu.env_image();
    let w = if W32 {
        mtry!(cpu, ops, i, write_all(cpu, ea, &e))
    } else {
        mtry!(cpu, ops, i, write_all(cpu, ea, &env16(&e)))
    };
    // FSTENV masks all exceptions after storing.
    cpu.fpu.cw |= 0x3f;
    after_store(cpu, ops, i, w)
}

fn fldenv<const W32: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait_only!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let e = if W32 {
        mtry!(cpu, ops, i, read_all::<28>(cpu, ea))
    } else {
        env32(&mtry!(cpu, ops, i, read_all::<14>(cpu, ea)))
    };
    let f = &mut cpu.fpu;
    f.load_env_image(&e);
    f.load_cw(f.cw);
    next(cpu, ops, i)
}

fn fsave<const WAIT: bool, const W32: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    if WAIT {
        wait_only!(cpu, ops, i);
    }
    note_selectors(cpu);
    let ea = cpu.ea(&ops[i]);
    let img = cpu.fpu.fsave_image();
    let w = if W32 {
        mtry!(cpu, ops, i, write_all(cpu, ea, &img))
    } else {
        let mut b = [0u8; 94];
        b[..14].copy_from_slice(&env16(img[..28].try_into().expect("28 bytes")));
        b[14..].copy_from_slice(&img[28..]);
        mtry!(cpu, ops, i, write_all(cpu, ea, &b))
    };
    cpu.fpu.init();
    after_store(cpu, ops, i, w)
}

fn frstor<const W32: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    wait_only!(cpu, ops, i);
    let ea = cpu.ea(&ops[i]);
    let img: [u8; 108] = if W32 {
        mtry!(cpu, ops, i, read_all::<108>(cpu, ea))
    } else {
        let b = mtry!(cpu, ops, i, read_all::<94>(cpu, ea));
        let mut img = [0u8; 108];
        img[..28].copy_from_slice(&env32(&b[..14]));
        img[28..].copy_from_slice(&b[14..]);
        img
    };
    let f = &mut cpu.fpu;
    f.frstor_image(&img);
    f.load_cw(f.cw);
    next(cpu, ops, i)
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    let ms = ins.memory_size();
    let w32 = !matches!(ms, MemorySize::FpuEnv14 | MemorySize::FpuState94);
    let reg = || super::st_index(ins, if ins.op_count() >= 2 { 1 } else { 0 });
    Some(match ins.mnemonic() {
        Fxch => {
            o.rm = if ins.op_count() == 0 { 1 } else { reg() };
            fxch
        }
        Fincstp => fincstp::<false>,
        Fdecstp => fincstp::<true>,
        Ffree => {
            o.rm = reg();
            ffree::<false>
        }
        Ffreep => {
            o.rm = reg();
            ffree::<true>
        }
        Fnop => fnop,
        Fneni | Fndisi | Fnsetpm => nop,
        Feni | Fdisi | Fsetpm => wnop,
        Fninit => finit::<false>,
        Finit => finit::<true>,
        Fnclex => fclex::<false>,
        Fclex => fclex::<true>,
        Fldcw => fldcw,
        Fnstcw => fstcw::<false>,
        Fstcw => fstcw::<true>,
        Fnstsw if ins.op_count() == 1 && ins.op_kind(0) == iced_x86::OpKind::Register => {
            fstsw_ax::<false>
        }
        Fstsw if ins.op_count() == 1 && ins.op_kind(0) == iced_x86::OpKind::Register => {
            fstsw_ax::<true>
        }
        Fnstsw => fstsw_m::<false>,
        Fstsw => fstsw_m::<true>,
        Fnstenv if w32 => fstenv::<false, true>,
        Fnstenv => fstenv::<false, false>,
        Fstenv if w32 => fstenv::<true, true>,
        Fstenv => fstenv::<true, false>,
        Fldenv if w32 => fldenv::<true>,
        Fldenv => fldenv::<false>,
        Fnsave if w32 => fsave::<false, true>,
        Fnsave => fsave::<false, false>,
        Fsave if w32 => fsave::<true, true>,
        Fsave => fsave::<true, false>,
        Frstor if w32 => frstor::<true>,
        Frstor => frstor::<false>,
        _ => return None,
    })
}
