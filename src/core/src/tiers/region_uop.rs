//! Region micro-ops: one monomorphised function per (form, operation, width, flag
//! use), reading the operand fields the interpreter's own lowering filled into the
//! threaded [`Op`], and computing through the interpreter's op helpers
//! (`ops::alu::alu`, `unary`, `extend`, `as_write`), so the semantics are the
//! handlers' by construction. Forms without a micro-op kind (x87, MMX, shifts,
//! multiplies, string ops, ...) run the instruction's own handler ([`fallback`]).
//!
//! Widths 8 and 16 are partial-register forms: `Cpu::reg`/`set_reg` read and merge
//! the lane of the 32-bit container exactly as the handlers do.

use crate::cpu::{Cpu, Exit};
use crate::exec::cache::Block;
use crate::exec::op::Op;
use crate::mem::{Fault, GuestMemory, Wrote};
use crate::ops::alu::{
    self, ADC, ADD, AND, CMP, DEC, INC, NEG, NOT, OR, SBB, SUB, TEST, XOR, as_write, extend, unary,
    writes_back,
};
use crate::ops::{is_imm, reg_op};
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic, OpKind};

/// How a micro-op ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UEnd {
    Ok,
    /// Stored into a page holding code and retired (the block ends after it).
    Code,
    /// Raised `cpu.pending`; did not retire.
    Raised,
}

pub type UopFn = fn(&mut Cpu, &Uop) -> UEnd;

/// One instruction of a region block.
#[derive(Clone, Copy)]
pub struct Uop {
    pub f: UopFn,
    /// The same form without its flag write, if it has one.
    pub nf: Option<UopFn>,
    /// Reads the arithmetic flags (ADC/SBB, INC/DEC's CF, and every fallback).
    pub reads: bool,
    /// Overwrites the whole lazy-flag state.
    pub writes: bool,
    /// Index of the instruction in its block (RDTSC and retired counts need it).
    pub k: u32,
    /// Inline kind of `f` (see [`exec`]; 0: call `f`), and of `nf`.
    pub kind: u16,
    pub nkind: u16,
    /// The interpreter's op for this instruction.
    pub o: Op,
}

macro_rules! by_s {
    ($s:expr, $f:ident :: <$($p:tt),+>) => {
        match $s {
            8 => $f::<$($p,)+ 8> as UopFn,
            16 => $f::<$($p,)+ 16> as UopFn,
            _ => $f::<$($p,)+ 32> as UopFn,
        }
    };
    ($s:expr, $f:ident) => {
        match $s {
            8 => $f::<8> as UopFn,
            16 => $f::<16> as UopFn,
            _ => $f::<32> as UopFn,
        }
    };
}

#[cold]
#[inline(never)]
fn fault(cpu: &mut Cpu, u: &Uop, f: Fault) -> UEnd {
    crate::exec::op::fault(cpu, std::slice::from_ref(&u.o), 0, f);
    UEnd::Raised
}

#[inline(always)]
fn stored(w: Wrote) -> UEnd {
    if w == Wrote::Code {
        UEnd::Code
    } else {
        UEnd::Ok
    }
}

macro_rules! utry {
    ($cpu:expr, $u:expr, $e:expr) => {
        match $e {
            Ok(v) => v,
            Err(f) => return fault($cpu, $u, f),
        }
    };
}

/// `a OP b` through the interpreter's helper; without `F` the flag write goes to a
/// scratch copy (the dead-flag pass proved nothing reads it).
#[inline(always)]
fn alu_f<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, a: u32, b: u32) -> u32 {
    if F {
        alu::alu::<OP, S>(&mut cpu.flags, a, b)
    } else {
        let mut f = cpu.flags;
        alu::alu::<OP, S>(&mut f, a, b)
    }
}

fn alu_rr<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let (a, b) = (cpu.reg(S, o.r), cpu.reg(S, o.rm));
    let r = alu_f::<OP, F, S>(cpu, a, b);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    UEnd::Ok
}

fn alu_ri<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let a = cpu.reg(S, o.r);
    let r = alu_f::<OP, F, S>(cpu, a, o.imm);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    UEnd::Ok
}

fn alu_rm<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let b = utry!(cpu, u, cpu.load(S, cpu.ea(o)));
    let a = cpu.reg(S, o.r);
    let r = alu_f::<OP, F, S>(cpu, a, b);
    if writes_back(OP) {
        cpu.set_reg(S, o.r, r);
    }
    UEnd::Ok
}

/// Memory destination, as the handler: load (a fault reported as a write for a
/// read-modify-write), compute into a scratch flag state, store, commit the flags.
#[inline(always)]
fn alu_m<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop, src: u32) -> UEnd {
    let ea = cpu.ea(&u.o);
    let a = utry!(cpu, u, cpu.load(S, ea).map_err(as_write::<OP>));
    let mut f = cpu.flags;
    let r = alu::alu::<OP, S>(&mut f, a, src);
    if !writes_back(OP) {
        if F {
            cpu.flags = f;
        }
        return UEnd::Ok;
    }
    let w = utry!(cpu, u, cpu.store(S, ea, r));
    if F {
        cpu.flags = f;
    }
    stored(w)
}

fn alu_mr<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let src = cpu.reg(S, u.o.r);
    alu_m::<OP, F, S>(cpu, u, src)
}

fn alu_mi<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    alu_m::<OP, F, S>(cpu, u, u.o.imm)
}

fn unary_r<const OP: u8, const F: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let a = cpu.reg(S, o.r);
    let r = if F {
        unary::<OP, S>(&mut cpu.flags, a)
    } else {
        let mut f = cpu.flags;
        unary::<OP, S>(&mut f, a)
    };
    cpu.set_reg(S, o.r, r);
    UEnd::Ok
}

fn mov_rr<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    cpu.set_reg(S, o.r, cpu.reg(S, o.rm));
    UEnd::Ok
}

fn mov_ri<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    cpu.set_reg(S, o.r, o.imm);
    UEnd::Ok
}

fn mov_rm<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let v = utry!(cpu, u, cpu.load(S, cpu.ea(o)));
    cpu.set_reg(S, o.r, v);
    UEnd::Ok
}

fn mov_mr<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    stored(utry!(cpu, u, cpu.store(S, cpu.ea(o), cpu.reg(S, o.r))))
}

fn mov_mi<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    stored(utry!(cpu, u, cpu.store(S, cpu.ea(o), o.imm)))
}

fn movx_rr<const SRC: u32, const SX: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let v = extend::<SRC, SX>(cpu.reg(SRC, o.rm));
    cpu.set_reg(S, o.r, v);
    UEnd::Ok
}

fn movx_rm<const SRC: u32, const SX: bool, const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    let v = utry!(cpu, u, cpu.load(SRC, cpu.ea(o)));
    cpu.set_reg(S, o.r, extend::<SRC, SX>(v));
    UEnd::Ok
}

fn lea<const S: u32>(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let o = &u.o;
    cpu.set_reg(S, o.r, cpu.ea(o));
    UEnd::Ok
}

/// Ends the two-op slice a fallback handler runs in.
fn resume(_cpu: &mut Cpu, _ops: &[Op], _i: usize) -> Exit {
    Exit::Block
}

/// Runs the instruction's own handler on a two-op slice whose second op returns.
/// `retired` is advanced to this instruction for the call (a handler at op `i` is
/// preceded by `retired + i` instructions; here `i` is 0), so RDTSC reads the same
/// count as in the block.
fn fallback(cpu: &mut Cpu, u: &Uop) -> UEnd {
    let ops = [u.o, Op::new(resume, u.o.next, u.o.next)];
    let base = cpu.retired;
    cpu.retired = base + u.k as u64;
    cpu.chain.dispatches += 1;
    let e = (u.o.h)(cpu, &ops, 0);
    cpu.retired = base;
    match e {
        Exit::Block => UEnd::Ok,
        Exit::CodeWrite => UEnd::Code,
        Exit::Fault => UEnd::Raised,
        #[cfg(feature = "dispatch-loop")]
        Exit::Next => UEnd::Ok,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    RR,
    RI,
    RM,
    MR,
    MI,
}

fn alu_pair<const OP: u8>(form: Form, s: u32) -> (UopFn, UopFn) {
    match form {
        Form::RR => (by_s!(s, alu_rr::<OP, true>), by_s!(s, alu_rr::<OP, false>)),
        Form::RI => (by_s!(s, alu_ri::<OP, true>), by_s!(s, alu_ri::<OP, false>)),
        Form::RM => (by_s!(s, alu_rm::<OP, true>), by_s!(s, alu_rm::<OP, false>)),
        Form::MR => (by_s!(s, alu_mr::<OP, true>), by_s!(s, alu_mr::<OP, false>)),
        Form::MI => (by_s!(s, alu_mi::<OP, true>), by_s!(s, alu_mi::<OP, false>)),
    }
}

fn unary_pair<const OP: u8>(s: u32) -> (UopFn, UopFn) {
    (
        by_s!(s, unary_r::<OP, true>),
        by_s!(s, unary_r::<OP, false>),
    )
}

/// (function, no-flag variant, reads flags, writes flags) for an instruction with a
/// micro-op kind. The operand conditions mirror `ops::alu::lower`, whose fields the
/// functions read.
type Native = (UopFn, Option<UopFn>, bool, bool, u16);

fn native(ins: &Instruction) -> Option<Native> {
    if ins.has_lock_prefix() || ins.has_rep_prefix() || ins.has_repne_prefix() {
        return None;
    }
    let m = ins.mnemonic();
    let sz = || alu::op0_size(ins);
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
        let form = match (ins.op_kind(0), ins.op_kind(1)) {
            (OpKind::Register, OpKind::Register) => {
                reg_op(ins, 0)?;
                reg_op(ins, 1)?;
                Form::RR
            }
            (OpKind::Register, OpKind::Memory) => {
                reg_op(ins, 0)?;
                Form::RM
            }
            (OpKind::Register, _) if is_imm(ins, 1) => {
                reg_op(ins, 0)?;
                Form::RI
            }
            (OpKind::Memory, OpKind::Register) => {
                reg_op(ins, 1)?;
                Form::MR
            }
            (OpKind::Memory, _) if is_imm(ins, 1) => Form::MI,
            _ => return None,
        };
        let s = sz();
        let (f, nf) = match a {
            ADD => alu_pair::<ADD>(form, s),
            OR => alu_pair::<OR>(form, s),
            ADC => alu_pair::<ADC>(form, s),
            SBB => alu_pair::<SBB>(form, s),
            AND => alu_pair::<AND>(form, s),
            SUB => alu_pair::<SUB>(form, s),
            XOR => alu_pair::<XOR>(form, s),
            CMP => alu_pair::<CMP>(form, s),
            _ => alu_pair::<TEST>(form, s),
        };
        let reads = a == ADC || a == SBB;
        return Some((f, Some(nf), reads, true, alu_kind(form, a, s)));
    }
    match m {
        Mnemonic::Inc | Mnemonic::Dec | Mnemonic::Neg | Mnemonic::Not => {
            if ins.op_kind(0) != OpKind::Register {
                return None;
            }
            reg_op(ins, 0)?;
            let s = sz();
            let (f, nf) = match m {
                Mnemonic::Inc => unary_pair::<INC>(s),
                Mnemonic::Dec => unary_pair::<DEC>(s),
                Mnemonic::Neg => unary_pair::<NEG>(s),
                _ => {
                    let k = if s == 32 { 43 } else { 0 };
                    return Some((by_s!(s, unary_r::<NOT, true>), None, false, false, k));
                }
            };
            // INC/DEC read CF (they keep it).
            let reads = matches!(m, Mnemonic::Inc | Mnemonic::Dec);
            let op = match m {
                Mnemonic::Inc => INC,
                Mnemonic::Dec => DEC,
                _ => NEG,
            };
            Some((f, Some(nf), reads, true, unary_kind(op, s)))
        }
        Mnemonic::Mov => {
            let (k0, k1) = (ins.op_kind(0), ins.op_kind(1));
            if (k0 == OpKind::Register && reg_op(ins, 0).is_none())
                || (k1 == OpKind::Register && reg_op(ins, 1).is_none())
            {
                return None;
            }
            let s = sz();
            let (f, k) = match (k0, k1) {
                (OpKind::Register, OpKind::Register) => (by_s!(s, mov_rr), 44),
                (OpKind::Register, OpKind::Memory) => (by_s!(s, mov_rm), 46),
                (OpKind::Register, _) => (by_s!(s, mov_ri), 45),
                (OpKind::Memory, OpKind::Register) => (by_s!(s, mov_mr), 47),
                (OpKind::Memory, _) => (by_s!(s, mov_mi), 0),
                _ => return None,
            };
            Some((f, None, false, false, if s == 32 { k } else { 0 }))
        }
        Mnemonic::Movzx | Mnemonic::Movsx => {
            reg_op(ins, 0)?;
            let s = sz();
            let mem = ins.op_kind(1) == OpKind::Memory;
            let src = if mem {
                (ins.memory_size().size() * 8) as u32
            } else {
                reg_op(ins, 1)?;
                crate::ops::reg_size(ins.op1_register())
            };
            let sx = m == Mnemonic::Movsx;
            let f = match (src, sx, mem) {
                (8, false, false) => by_s!(s, movx_rr::<8, false>),
                (8, true, false) => by_s!(s, movx_rr::<8, true>),
                (16, false, false) => by_s!(s, movx_rr::<16, false>),
                (16, true, false) => by_s!(s, movx_rr::<16, true>),
                (8, false, true) => by_s!(s, movx_rm::<8, false>),
                (8, true, true) => by_s!(s, movx_rm::<8, true>),
                (16, false, true) => by_s!(s, movx_rm::<16, false>),
                (16, true, true) => by_s!(s, movx_rm::<16, true>),
                _ => return None,
            };
            let k = if (src, sx, mem, s) == (8, false, true, 32) {
                49
            } else {
                0
            };
            Some((f, None, false, false, k))
        }
        Mnemonic::Lea => {
            reg_op(ins, 0)?;
            let s = sz();
            Some((
                by_s!(s, lea),
                None,
                false,
                false,
                if s == 32 { 48 } else { 0 },
            ))
        }
        _ => None,
    }
}

/// Runs a micro-op. The commonest 32-bit forms are matched by kind so their bodies
/// (the same functions `f` points to) are inlined into the executor's loop instead of
/// called through a pointer; everything else is called through `f`.
#[inline(always)]
pub fn exec(cpu: &mut Cpu, u: &Uop) -> UEnd {
    match u.kind {
        1 => alu_rr::<ADD, true, 32>(cpu, u),
        2 => alu_rr::<ADD, false, 32>(cpu, u),
        3 => alu_rr::<OR, true, 32>(cpu, u),
        4 => alu_rr::<OR, false, 32>(cpu, u),
        5 => alu_rr::<ADC, true, 32>(cpu, u),
        6 => alu_rr::<ADC, false, 32>(cpu, u),
        7 => alu_rr::<SBB, true, 32>(cpu, u),
        8 => alu_rr::<SBB, false, 32>(cpu, u),
        9 => alu_rr::<AND, true, 32>(cpu, u),
        10 => alu_rr::<AND, false, 32>(cpu, u),
        11 => alu_rr::<SUB, true, 32>(cpu, u),
        12 => alu_rr::<SUB, false, 32>(cpu, u),
        13 => alu_rr::<XOR, true, 32>(cpu, u),
        14 => alu_rr::<XOR, false, 32>(cpu, u),
        15 => alu_rr::<CMP, true, 32>(cpu, u),
        16 => alu_rr::<CMP, false, 32>(cpu, u),
        17 => alu_rr::<TEST, true, 32>(cpu, u),
        18 => alu_rr::<TEST, false, 32>(cpu, u),
        19 => alu_ri::<ADD, true, 32>(cpu, u),
        20 => alu_ri::<ADD, false, 32>(cpu, u),
        21 => alu_ri::<OR, true, 32>(cpu, u),
        22 => alu_ri::<OR, false, 32>(cpu, u),
        23 => alu_ri::<ADC, true, 32>(cpu, u),
        24 => alu_ri::<ADC, false, 32>(cpu, u),
        25 => alu_ri::<SBB, true, 32>(cpu, u),
        26 => alu_ri::<SBB, false, 32>(cpu, u),
        27 => alu_ri::<AND, true, 32>(cpu, u),
        28 => alu_ri::<AND, false, 32>(cpu, u),
        29 => alu_ri::<SUB, true, 32>(cpu, u),
        30 => alu_ri::<SUB, false, 32>(cpu, u),
        31 => alu_ri::<XOR, true, 32>(cpu, u),
        32 => alu_ri::<XOR, false, 32>(cpu, u),
        33 => alu_ri::<CMP, true, 32>(cpu, u),
        34 => alu_ri::<CMP, false, 32>(cpu, u),
        35 => alu_ri::<TEST, true, 32>(cpu, u),
        36 => alu_ri::<TEST, false, 32>(cpu, u),
        37 => unary_r::<INC, true, 32>(cpu, u),
        38 => unary_r::<INC, false, 32>(cpu, u),
        39 => unary_r::<DEC, true, 32>(cpu, u),
        40 => unary_r::<DEC, false, 32>(cpu, u),
        41 => unary_r::<NEG, true, 32>(cpu, u),
        42 => unary_r::<NEG, false, 32>(cpu, u),
        43 => unary_r::<NOT, true, 32>(cpu, u),
        44 => mov_rr::<32>(cpu, u),
        45 => mov_ri::<32>(cpu, u),
        46 => mov_rm::<32>(cpu, u),
        47 => mov_mr::<32>(cpu, u),
        48 => lea::<32>(cpu, u),
        49 => movx_rm::<8, false, 32>(cpu, u),
        50 => alu_rm::<ADD, true, 32>(cpu, u),
        51 => alu_rm::<OR, true, 32>(cpu, u),
        52 => alu_rm::<ADC, true, 32>(cpu, u),
        53 => alu_rm::<SBB, true, 32>(cpu, u),
        54 => alu_rm::<AND, true, 32>(cpu, u),
        55 => alu_rm::<SUB, true, 32>(cpu, u),
        56 => alu_rm::<XOR, true, 32>(cpu, u),
        57 => alu_rm::<CMP, true, 32>(cpu, u),
        58 => alu_rm::<TEST, true, 32>(cpu, u),
        59 => alu_rr::<ADD, true, 8>(cpu, u),
        60 => alu_rr::<ADD, false, 8>(cpu, u),
        61 => alu_rr::<OR, true, 8>(cpu, u),
        62 => alu_rr::<OR, false, 8>(cpu, u),
        63 => alu_rr::<ADC, true, 8>(cpu, u),
        64 => alu_rr::<ADC, false, 8>(cpu, u),
        65 => alu_rr::<SBB, true, 8>(cpu, u),
        66 => alu_rr::<SBB, false, 8>(cpu, u),
        67 => alu_rr::<AND, true, 8>(cpu, u),
        68 => alu_rr::<AND, false, 8>(cpu, u),
        69 => alu_rr::<SUB, true, 8>(cpu, u),
        70 => alu_rr::<SUB, false, 8>(cpu, u),
        71 => alu_rr::<XOR, true, 8>(cpu, u),
        72 => alu_rr::<XOR, false, 8>(cpu, u),
        73 => alu_rr::<CMP, true, 8>(cpu, u),
        74 => alu_rr::<CMP, false, 8>(cpu, u),
        75 => alu_rr::<TEST, true, 8>(cpu, u),
        76 => alu_rr::<TEST, false, 8>(cpu, u),
        77 => alu_ri::<ADD, true, 8>(cpu, u),
        78 => alu_ri::<ADD, false, 8>(cpu, u),
        79 => alu_ri::<OR, true, 8>(cpu, u),
        80 => alu_ri::<OR, false, 8>(cpu, u),
        81 => alu_ri::<ADC, true, 8>(cpu, u),
        82 => alu_ri::<ADC, false, 8>(cpu, u),
        83 => alu_ri::<SBB, true, 8>(cpu, u),
        84 => alu_ri::<SBB, false, 8>(cpu, u),
        85 => alu_ri::<AND, true, 8>(cpu, u),
        86 => alu_ri::<AND, false, 8>(cpu, u),
        87 => alu_ri::<SUB, true, 8>(cpu, u),
        88 => alu_ri::<SUB, false, 8>(cpu, u),
        89 => alu_ri::<XOR, true, 8>(cpu, u),
        90 => alu_ri::<XOR, false, 8>(cpu, u),
        91 => alu_ri::<CMP, true, 8>(cpu, u),
        92 => alu_ri::<CMP, false, 8>(cpu, u),
        93 => alu_ri::<TEST, true, 8>(cpu, u),
        94 => alu_ri::<TEST, false, 8>(cpu, u),
        _ => (u.f)(cpu, u),
    }
}

/// Inline kinds (see [`exec`]); 0 means "call `f`".
fn alu_kind(form: Form, op: u8, s: u32) -> u16 {
    match (form, s) {
        (Form::RR, 32) => 1 + op as u16 * 2,
        (Form::RI, 32) => 19 + op as u16 * 2,
        (Form::RM, 32) => 50 + op as u16,
        (Form::RR, 8) => 59 + op as u16 * 2,
        (Form::RI, 8) => 77 + op as u16 * 2,
        _ => 0,
    }
}

fn unary_kind(op: u8, s: u32) -> u16 {
    if s == 32 { 37 + op as u16 * 2 } else { 0 }
}

/// Micro-ops for the first `body` instructions of `b` (its instructions before the
/// branch). `None` if the bytes no longer decode to the block's ops.
pub fn lower_block(mem: &GuestMemory, b: &Block, body: usize) -> Option<Box<[Uop]>> {
    let len = b.end.wrapping_sub(b.start) as usize;
    let mut bytes = vec![0u8; len];
    mem.read_bytes(b.start, &mut bytes).ok()?;
    let mut dec = Decoder::with_ip(32, &bytes, b.start as u64, DecoderOptions::NONE);
    let mut out = Vec::with_capacity(body);
    for k in 0..body {
        let o = *b.ops.get(k)?;
        if !dec.can_decode() {
            return None;
        }
        let ins = dec.decode();
        if ins.ip32() != o.eip || ins.code() as u16 != o.code {
            return None;
        }
        // An instruction the interpreter left unimplemented or invalid keeps its
        // handler, which raises exactly as in the block.
        let (f, nf, reads, writes, kind) = if ins.is_invalid() { None } else { native(&ins) }
            .unwrap_or((fallback, None, true, false, 0));
        // The no-flag variant's inline kind is the next one (see `exec`).
        let nkind = if kind != 0 && nf.is_some() {
            kind + 1
        } else {
            0
        };
        // A memory access can fault or store into code and end the block right
        // there, publishing the flags as they are at that instruction: such an op
        // reads the flags, and its own flag write is never dropped.
        let touches = ins.mnemonic() != Mnemonic::Lea
            && (0..ins.op_count()).any(|n| ins.op_kind(n) == OpKind::Memory);
        let (nf, reads) = if touches { (None, true) } else { (nf, reads) };
        let nkind = if nf.is_some() { nkind } else { 0 };
        out.push(Uop {
            f,
            nf,
            reads,
            writes,
            k: k as u32,
            kind,
            nkind,
            o,
        });
    }
    Some(out.into_boxed_slice())
}
