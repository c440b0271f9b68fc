//! The engine's program form and its dispatch loop.
//!
//! An optimised [`Program`] is compiled once ([`build`]) into a flat array of
//! small fixed-size ops ([`Op`], 16 bytes) whose operands are resolved ahead of
//! time: every operand is an index into one register file (guest registers in
//! 0-7, a zero, the program's constants, then its temporaries renumbered densely),
//! so no op tests whether an operand is a register or a constant; branch targets
//! are op indices; each memory access names its window slot. Common IR sequences
//! become one op ("superops"): an ALU op with its flag record and the copy into
//! its guest register, a load zero-extended or inserted into a register, a store
//! of an extended value.
//!
//! Memory: a window is a range of guest pages proved fast (`GuestMemory::
//! fast_page`; for a written window also free of decoded code) during this entry,
//! and an access inside it reads or writes host memory directly at
//! `host_base + ga` after one range compare, without consulting the permission
//! table. A miss re-proves the page of the access, or leaves through the access's
//! exit before any effect (the interpreter then runs that instruction: faults,
//! guard pages, page-crossing accesses, stores into code). Proofs are only good
//! while `GuestMemory::layout_epoch` stands still, and every access checks it, so
//! a protection change or a page newly holding code (another thread decoding from
//! it) is seen by the next access, exactly as the permission test would see it.
//! Nothing inside a run changes the epoch itself: programs make no calls.

use super::engine::Entered;
use super::ir::*;
use crate::cpu::{Cpu, FlagOp, LazyFlags};
use crate::mem::GuestMemory;
use std::sync::atomic::Ordering;

const _: () = assert!(std::mem::size_of::<Op>() == 16);

/// Register file size (masked indices, so no bounds checks); programs needing
/// more registers are not compiled.
pub const MAX_REGS: usize = 1024;
pub type Regs = [u32; MAX_REGS];
/// Window slots; slot indices are masked.
const NWIN: usize = 32;
/// A window slot's bit in [`Mem::w`] saying its proofs must be for stores.
const WRITE: u8 = 0x80;
/// Register slot that always holds 0 (an absent base or index).
const ZERO: u16 = NGUEST;
/// Exit id of an op in the preheader: leaving there means nothing happened.
const PRE: u16 = u16::MAX;
/// A block end's charge `n` holds instructions in its low `N_SHIFT` bits and
/// interpreter blocks above (more than one after tail duplication).
const N_SHIFT: u32 = 10;
const N_BLOCK: u16 = 1 << N_SHIFT;
const N_INSNS: u16 = N_BLOCK - 1;
/// Back edges between two looks at the halt flag and the code epoch.
const POLL: u64 = 64;

#[inline(always)]
fn g(r: &Regs, i: u16) -> u32 {
    r[i as usize & (MAX_REGS - 1)]
}

#[inline(always)]
fn s(r: &mut Regs, i: u16, v: u32) {
    r[i as usize & (MAX_REGS - 1)] = v;
}

/// An address `r[b] + (r[i] << sc) + disp`, its window slot and its exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    b: u16,
    i: u16,
    sc: u8,
    /// Window slot, with [`WRITE`] for a slot any store goes through.
    w: u8,
    x: u16,
    disp: u32,
}

impl Mem {
    #[inline(always)]
    fn ea(&self, r: &Regs) -> u32 {
        // Most streams have no index: skip its load and variable shift.
        let b = g(r, self.b).wrapping_add(self.disp);
        if self.i == ZERO {
            b
        } else {
            b.wrapping_add(g(r, self.i) << (self.sc & 3))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Mov {
        d: u16,
        s: u16,
    },
    Add {
        d: u16,
        a: u16,
        b: u16,
    },
    Sub {
        d: u16,
        a: u16,
        b: u16,
    },
    And {
        d: u16,
        a: u16,
        b: u16,
    },
    Or {
        d: u16,
        a: u16,
        b: u16,
    },
    Xor {
        d: u16,
        a: u16,
        b: u16,
    },
    Shl {
        d: u16,
        a: u16,
        b: u16,
    },
    Shr {
        d: u16,
        a: u16,
        b: u16,
    },
    Sar {
        d: u16,
        a: u16,
        b: u16,
    },
    Mul {
        d: u16,
        a: u16,
        b: u16,
    },
    /// Two adds in a row (pointer bumps), run in order.
    Add2 {
        d: u16,
        a: u16,
        b: u16,
        d2: u16,
        a2: u16,
        b2: u16,
    },
    /// `d = (s >> sh) & mask`.
    ExtU {
        d: u16,
        s: u16,
        sh: u8,
        mask: u32,
    },
    /// `d = sign-extended low (32 - l) bits of (s >> sh)`.
    ExtS {
        d: u16,
        s: u16,
        sh: u8,
        l: u8,
    },
    /// `d = d & !mask | (s << sh) & mask`.
    Ins {
        d: u16,
        s: u16,
        sh: u8,
        mask: u32,
    },
    Ld8 {
        d: u16,
        m: Mem,
    },
    Ld16 {
        d: u16,
        m: Mem,
    },
    Ld32 {
        d: u16,
        m: Mem,
    },
    /// A load into the low 8 or 16 bits of `d` (AL, AX).
    Ld8Ins {
        d: u16,
        m: Mem,
    },
    Ld16Ins {
        d: u16,
        m: Mem,
    },
    /// A byte translate, three accesses as one op: `d = zx [m0]`, then
    /// `d.low8 = [m1]`, then `[m2] = d.low8`, the `Mem`s being `mems[k..k + 3]`
    /// (`movzx eax,[esi]; mov al,[ebx+eax]; mov [edi],al`).
    Xlat {
        d: u16,
        k: u16,
    },
    /// `Xlat` whose store goes to the byte its first load read (same address
    /// registers, untouched by `d`, same window slot, which is a written one):
    /// the store reuses the first access's proved host byte.
    XlatRmw {
        d: u16,
        k: u16,
    },
    St8 {
        s: u16,
        m: Mem,
    },
    St16 {
        s: u16,
        m: Mem,
    },
    St32 {
        s: u16,
        m: Mem,
    },
    /// The flag record of `op` (not Inc/Dec).
    Flags {
        op: FlagOp,
        size: u8,
        res: u16,
        a: u16,
        b: u16,
    },
    IncDec {
        inc: bool,
        size: u8,
        res: u16,
        a: u16,
    },
    /// ALU op + its flag record + the copy of the result: `t = d = a op b`.
    AddF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
        b: u16,
    },
    SubF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
        b: u16,
    },
    AndF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
        b: u16,
    },
    OrF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
        b: u16,
    },
    XorF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
        b: u16,
    },
    /// `t = d = a ± 1` with the INC/DEC record.
    IncF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
    },
    DecF {
        size: u8,
        t: u16,
        d: u16,
        a: u16,
    },
    /// Proves window `m.w` for the stream at `m` spanning `len` bytes.
    Guard {
        m: Mem,
        len: u16,
    },
    /// The loop head: counts the visit and checks the budget (see `Inst::Clock`).
    Head {
        max: u32,
        x: u16,
    },
    /// A budget check elsewhere.
    Clock {
        max: u32,
        x: u16,
    },
    /// Block ends: charge the block's `n` instructions, then go to op `t` or `f`.
    Jmp {
        n: u16,
        t: u16,
    },
    Jcc {
        cc: u8,
        n: u16,
        t: u16,
        f: u16,
    },
    /// A forwarded branch on ZF: `(r & mask == 0) != neg`.
    BccZ {
        neg: bool,
        r: u16,
        mask: u32,
        n: u16,
        t: u16,
        f: u16,
    },
    /// A forwarded branch on CF of a subtraction: `(a & mask < b & mask) != neg`.
    BccB {
        neg: bool,
        a: u16,
        b: u16,
        mask: u32,
        n: u16,
        t: u16,
        f: u16,
    },
    /// An ALU op with its flag record (`t = d = ...`) ending a block whose forwarded
    /// branch tests its result for zero (`dec ecx; jnz`, `test al, 1; jz`), or for a
    /// subtraction the borrow (`cmp al, 0x90; jb`).
    DecBZ {
        size: u8,
        neg: bool,
        /// The record this op replaces is known to be a logic op's (CF clear):
        /// the kept CF needs no look at it (`known_carry`).
        cf0: bool,
        t: u16,
        d: u16,
        a: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    IncBZ {
        size: u8,
        neg: bool,
        /// The record this op replaces is known to be a logic op's (CF clear):
        /// the kept CF needs no look at it (`known_carry`).
        cf0: bool,
        t: u16,
        d: u16,
        a: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    AndBZ {
        size: u8,
        neg: bool,
        t: u16,
        a: u16,
        b: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    SubBZ {
        size: u8,
        neg: bool,
        t: u16,
        a: u16,
        b: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    SubBB {
        size: u8,
        neg: bool,
        t: u16,
        a: u16,
        b: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    /// `x += y` then a `DecBZ` of `d` into itself (`inc esi; dec ecx; jnz`);
    /// `bits` holds the DEC's size and, in bits 6 and 7, its `neg` and `cf0`.
    Add1DecBZ {
        bits: u8,
        x: u16,
        y: u16,
        d: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    /// `x += y; x2 += y` then the `DecBZ` (`inc esi; inc edi; dec ecx; jnz`).
    Add2DecBZ {
        bits: u8,
        x: u16,
        x2: u16,
        y: u16,
        d: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    /// `x = x + y` (or `x ^ y` when bit 7 of `bits` is set) then an `AndBZ` of
    /// `a & b` whose size and `neg` are `bits`' low six bits and bit 6
    /// (`add edx,eax; test al,4; jnz`).
    AluAndBZ {
        bits: u8,
        x: u16,
        y: u16,
        a: u16,
        b: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    /// A byte load into `d` (zero-extended, or into its low lane when `ins`) at
    /// `mems[k]`, then `AndBZ` testing `d` against `b` (`mov al,[esi]; test al,3;
    /// jz`). The record and branch are those of the `AndBZ`.
    Ld8AndBZ {
        ins: bool,
        size: u8,
        neg: bool,
        d: u16,
        k: u16,
        b: u16,
        n: u16,
        tt: u16,
        f: u16,
    },
    /// A forwarded branch on SF of any record but an eager one: `(r & sign != 0) != neg`.
    BccS {
        neg: bool,
        r: u16,
        sign: u32,
        n: u16,
        t: u16,
        f: u16,
    },
    /// A forwarded branch on CF|ZF of a subtraction (`jbe`/`ja`) of `size` bits
    /// (a size, not its mask, keeps the op within 16 bytes).
    BccBE {
        neg: bool,
        size: u8,
        res: u16,
        a: u16,
        b: u16,
        n: u16,
        t: u16,
        f: u16,
    },
    /// A forwarded branch on SF!=OF of a subtraction (`jl`/`jge`), with `le`
    /// also on ZF (`jle`/`jg`); `sb`: the sign bit's index.
    BccL {
        neg: bool,
        le: bool,
        sb: u8,
        res: u16,
        a: u16,
        b: u16,
        n: u16,
        t: u16,
        f: u16,
    },
    /// Any other forwarded branch.
    Bcc {
        cc: u8,
        op: FlagOp,
        size: u8,
        res: u16,
        a: u16,
        b: u16,
        n: u16,
        t: u16,
        f: u16,
    },
    Exit {
        x: u16,
    },
    /// `d = op(a, b)` through the interpreter's own helper ([`Fx::run`]): shifts,
    /// rotates, multiplies, ADC/SBB, BT; with `set`, the record it leaves.
    Fx {
        op: Fx,
        size: u8,
        set: bool,
        d: u16,
        a: u16,
        b: u16,
    },
    /// A 32-bit SHL/SHR/SAR (`op`, the handler's constant) with its record,
    /// through the interpreter's own flag computation without `Fx`'s dispatch.
    ShF {
        op: u8,
        d: u16,
        a: u16,
        b: u16,
    },
    /// `d` = 1 when condition `cc` holds for the flag record, else 0 (SETcc).
    Cond {
        cc: u8,
        d: u16,
    },
    /// `d = c != 0 ? t : f` (CMOVcc).
    Sel {
        d: u16,
        c: u16,
        t: u16,
        f: u16,
    },
    /// Leaves through `x` unless `r[a] == k` (see `Inst::Check`).
    Check {
        a: u16,
        x: u16,
        k: u32,
    },
    /// Block end of a multiway jump: the case of `Flat::switches[k]` whose guest
    /// address is `r[v]` (charging `n`), else leave through `x` uncharged.
    Switch {
        v: u16,
        k: u16,
        n: u16,
        x: u16,
    },
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Flat {
    pub ops: Vec<Op>,
    /// Op index of the loop head's `Head`.
    head: u16,
    /// Register slots holding constants, written at entry.
    consts: Vec<(u16, u32)>,
    /// Operands of the ops with more accesses than an `Op` holds.
    mems: Vec<Mem>,
    exits: Vec<ExitStub>,
    /// `(guest address, op index)` cases of each `Op::Switch`.
    switches: Vec<Vec<(u32, u16)>>,
}

impl Flat {
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// Why a program could not be compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoFlat {
    /// More registers (guest, constants, temporaries) than the register file holds.
    Size,
    /// The head block does not start with its budget check.
    NoClock,
    /// An op would fall off the end of the program (a compiler bug, refused).
    Shape,
}

struct Ctx {
    map: Vec<Option<u16>>,
    consts: Vec<(u16, u32)>,
    next: usize,
    slot_write: [bool; NWIN],
    free_win: usize,
    nwin: usize,
}

impl Ctx {
    fn reg(&mut self, v: VReg) -> Result<u16, NoFlat> {
        if v < NGUEST {
            return Ok(v);
        }
        if let Some(Some(k)) = self.map.get(v as usize) {
            return Ok(*k);
        }
        let k = self.alloc()?;
        if self.map.len() <= v as usize {
            self.map.resize(v as usize + 1, None);
        }
        self.map[v as usize] = Some(k);
        Ok(k)
    }

    fn alloc(&mut self) -> Result<u16, NoFlat> {
        if self.next >= MAX_REGS {
            return Err(NoFlat::Size);
        }
        self.next += 1;
        Ok((self.next - 1) as u16)
    }

    fn val(&mut self, v: Val) -> Result<u16, NoFlat> {
        match v {
            Val::R(r) => self.reg(r),
            Val::K(0) => Ok(ZERO),
            Val::K(k) => {
                if let Some(&(slot, _)) = self.consts.iter().find(|c| c.1 == k) {
                    return Ok(slot);
                }
                let slot = self.alloc()?;
                self.consts.push((slot, k));
                Ok(slot)
            }
        }
    }

    /// The window slot of an access: the program's own, or (unguarded accesses)
    /// a private one while slots last, then one shared slot per kind.
    fn win(&mut self, w: u8, write: bool) -> u8 {
        let slot = if w != NO_WIN && (w as usize) < self.nwin {
            w as usize
        } else if self.free_win < NWIN - 2 {
            self.free_win += 1;
            self.free_win - 1
        } else {
            NWIN - 2 + write as usize
        };
        slot as u8 | if self.slot_write[slot] { WRITE } else { 0 }
    }

    fn mem(&mut self, a: &Addr, w: u8, write: bool, x: u16) -> Result<Mem, NoFlat> {
        Ok(Mem {
            b: a.base.map_or(Ok(ZERO), |r| self.reg(r))?,
            i: a.index.map_or(Ok(ZERO), |r| self.reg(r))?,
            sc: a.scale & 3,
            w: self.win(w, write),
            x,
            disp: a.disp,
        })
    }
}

fn uses(p: &Program) -> Vec<u32> {
    let mut n = vec![0u32; p.nvregs as usize + 1];
    let mut add = |v: VReg| {
        if let Some(c) = n.get_mut(v as usize) {
            *c += 1;
        }
    };
    for i in p
        .pre
        .iter()
        .chain(p.blocks.iter().flat_map(|b| b.body.iter()))
    {
        i.uses().into_iter().for_each(&mut add);
    }
    for b in &p.blocks {
        b.term.uses().into_iter().for_each(&mut add);
    }
    n
}

fn mask(size: u8) -> u32 {
    crate::cpu::flags::mask(size as u32)
}

/// `mask` for the sizes flag records have (8, 16, 32), without a branch.
#[inline(always)]
fn rmask(size: u8) -> u32 {
    u32::MAX >> ((32 - size as u32) & 31)
}

/// Compiles an optimised program.
pub fn build(p: &Program) -> Result<Flat, NoFlat> {
    let Some(Inst::Clock { insns: max, exit }) = p.blocks.first().and_then(|b| b.body.first())
    else {
        return Err(NoFlat::NoClock);
    };
    let (max, head_exit) = (*max, *exit);
    let nwin = (p.nwin as usize).min(NWIN - 2);
    let mut slot_write = [false; NWIN];
    // Slots a store goes through are proved for stores, by every access through
    // them (a load's re-proof must not leave a read-only proof a store would hit).
    for i in p
        .pre
        .iter()
        .chain(p.blocks.iter().flat_map(|b| b.body.iter()))
    {
        match *i {
            Inst::Store { win, .. }
            | Inst::Guard {
                win, write: true, ..
            } if (win as usize) < nwin => slot_write[win as usize] = true,
            _ => {}
        }
    }
    slot_write[NWIN - 1] = true;
    let mut cx = Ctx {
        map: Vec::new(),
        consts: Vec::new(),
        next: NGUEST as usize + 1,
        slot_write,
        free_win: nwin,
        nwin,
    };
    let used = uses(p);
    let once = |v: VReg| v >= NGUEST && used.get(v as usize) == Some(&1);
    let mut ops: Vec<Op> = Vec::new();
    let mut mems: Vec<Mem> = Vec::new();
    let mut switches: Vec<Vec<(u32, u16)>> = Vec::new();
    // Branch targets are patched once every block has its op index: until then
    // they hold `Target`s encoded as block (< 0x8000) or exit (0x8000 | id).
    const EXIT_TAG: u16 = 0x8000;
    let enc = |t: Target| match t {
        Target::Block(k) => k,
        Target::Exit(x) => EXIT_TAG | x,
    };
    let mut starts = Vec::with_capacity(p.blocks.len());
    for (part, body) in
        std::iter::once((true, &p.pre[..])).chain(p.blocks.iter().map(|b| (false, &b.body[..])))
    {
        if !part {
            starts.push(ops.len() as u16);
        }
        // Ops fuse only within one block (or the preheader): a block start is a
        // branch target.
        let part_start = ops.len();
        let xid = |x: ExitId| if part { PRE } else { x };
        let mut k = 0;
        while k < body.len() {
            let i = body[k];
            let next = body.get(k + 1).copied();
            let next2 = body.get(k + 2).copied();
            k += 1;
            match i {
                Inst::Clock { .. } if !part && ops.len() as u16 == starts[0] && k == 1 => {
                    ops.push(Op::Head { max, x: head_exit });
                }
                Inst::Clock { insns, exit } => {
                    // Only the head's check survives the clock pass; another one
                    // is still honoured.
                    ops.push(Op::Clock {
                        max: insns,
                        x: xid(exit),
                    });
                }
                Inst::Mov { d, s } => {
                    let (d, s) = (cx.reg(d)?, cx.val(s)?);
                    ops.push(Op::Mov { d, s });
                }
                Inst::Alu { op, d: t, a, b } => {
                    // ALU + flag record (+ copy into its register) as one op.
                    if let Some(Inst::Flags {
                        op: fop,
                        size,
                        res,
                        a: fa,
                        b: fb,
                    }) = next
                        && res == Val::R(t)
                        && fa == a
                        && fb == b
                        && t >= NGUEST
                    {
                        let kind = match (op, fop) {
                            (Alu::Add, FlagOp::Add) => Some(0),
                            (Alu::Sub, FlagOp::Sub) => Some(1),
                            (Alu::And, FlagOp::Logic) => Some(2),
                            (Alu::Or, FlagOp::Logic) => Some(3),
                            (Alu::Xor, FlagOp::Logic) => Some(4),
                            (Alu::Add, FlagOp::Inc) if b == Val::K(1) => Some(5),
                            (Alu::Sub, FlagOp::Dec) if b == Val::K(1) => Some(6),
                            _ => None,
                        };
                        if let Some(kind) = kind {
                            k += 1;
                            let mut d = t;
                            if let Some(Inst::Mov {
                                d: d2,
                                s: Val::R(s2),
                            }) = next2
                                && s2 == t
                            {
                                d = d2;
                                k += 1;
                            }
                            // The temporary read only by the record and the copy
                            // is written as the register itself (`dead_records`
                            // can then drop the record alone).
                            let t = if d != t && used.get(t as usize) == Some(&2) {
                                d
                            } else {
                                t
                            };
                            let (t, d) = (cx.reg(t)?, cx.reg(d)?);
                            let (a, b) = (cx.val(a)?, cx.val(b)?);
                            ops.push(match kind {
                                0 => Op::AddF { size, t, d, a, b },
                                1 => Op::SubF { size, t, d, a, b },
                                2 => Op::AndF { size, t, d, a, b },
                                3 => Op::OrF { size, t, d, a, b },
                                4 => Op::XorF { size, t, d, a, b },
                                5 => Op::IncF { size, t, d, a },
                                _ => Op::DecF { size, t, d, a },
                            });
                            continue;
                        }
                    }
                    let (d, a, b) = (cx.reg(t)?, cx.val(a)?, cx.val(b)?);
                    if op == Alu::Add
                        && ops.len() > part_start
                        && let Some(&Op::Add {
                            d: d0,
                            a: a0,
                            b: b0,
                        }) = ops.last()
                    {
                        *ops.last_mut().expect("checked") = Op::Add2 {
                            d: d0,
                            a: a0,
                            b: b0,
                            d2: d,
                            a2: a,
                            b2: b,
                        };
                        continue;
                    }
                    ops.push(match op {
                        Alu::Add => Op::Add { d, a, b },
                        Alu::Sub => Op::Sub { d, a, b },
                        Alu::And => Op::And { d, a, b },
                        Alu::Or => Op::Or { d, a, b },
                        Alu::Xor => Op::Xor { d, a, b },
                        Alu::Shl => Op::Shl { d, a, b },
                        Alu::Shr => Op::Shr { d, a, b },
                        Alu::Sar => Op::Sar { d, a, b },
                        Alu::Mul => Op::Mul { d, a, b },
                    });
                }
                Inst::Ext {
                    d,
                    s: src,
                    shift,
                    bits,
                    signed,
                } => {
                    // `t = ext s; store t` where the store keeps no more bits than
                    // the extension left alone: store `s` itself.
                    if let (
                        Some(Inst::Store {
                            size,
                            s: Val::R(st),
                            ..
                        }),
                        Val::R(_),
                    ) = (next, src)
                        && st == d
                        && once(d)
                        && shift == 0
                        && bits >= size
                    {
                        let Some(Inst::Store {
                            size,
                            addr,
                            win,
                            exit,
                            ..
                        }) = next
                        else {
                            unreachable!()
                        };
                        k += 1;
                        let s = cx.val(src)?;
                        let m = cx.mem(&addr, win, true, xid(exit))?;
                        ops.push(store(size, s, m));
                        continue;
                    }
                    // `t = zx s; d = zx t` (MOVZX r32, r16 of its own register)
                    // as one zero-extension of `s` to the narrower width.
                    if let Some(Inst::Ext {
                        d: d2,
                        s: Val::R(s2),
                        shift: 0,
                        bits: b2,
                        signed: false,
                    }) = next
                        && s2 == d
                        && once(d)
                        && shift == 0
                        && !signed
                        && bits < 32
                        && b2 < 32
                    {
                        k += 1;
                        let (d2, s) = (cx.reg(d2)?, cx.val(src)?);
                        ops.push(Op::ExtU {
                            d: d2,
                            s,
                            sh: 0,
                            mask: (1u32 << bits.min(b2)) - 1,
                        });
                        continue;
                    }
                    let (d, s) = (cx.reg(d)?, cx.val(src)?);
                    ops.push(if bits >= 32 {
                        Op::ExtU {
                            d,
                            s,
                            sh: shift,
                            mask: u32::MAX,
                        }
                    } else if signed {
                        Op::ExtS {
                            d,
                            s,
                            sh: shift,
                            l: 32 - bits,
                        }
                    } else {
                        Op::ExtU {
                            d,
                            s,
                            sh: shift,
                            mask: (1u32 << bits) - 1,
                        }
                    });
                }
                Inst::Ins { d, s, shift, bits } => {
                    let (d, s) = (cx.reg(d)?, cx.val(s)?);
                    let mask = if bits >= 32 {
                        u32::MAX
                    } else {
                        ((1u32 << bits) - 1) << shift
                    };
                    ops.push(Op::Ins {
                        d,
                        s,
                        sh: shift,
                        mask,
                    });
                }
                Inst::Load {
                    d: t,
                    size,
                    addr,
                    win,
                    exit,
                } => {
                    let m = cx.mem(&addr, win, false, xid(exit))?;
                    // A load whose only use is a zero-extension that keeps all its
                    // bits, a copy, or an insert into the low lane of a register.
                    if once(t) {
                        match next {
                            Some(Inst::Ext {
                                d,
                                s: Val::R(s),
                                shift: 0,
                                bits,
                                signed: false,
                            }) if s == t && bits >= size => {
                                k += 1;
                                ops.push(load(size, cx.reg(d)?, m));
                                continue;
                            }
                            Some(Inst::Mov { d, s: Val::R(s) }) if s == t => {
                                k += 1;
                                ops.push(load(size, cx.reg(d)?, m));
                                continue;
                            }
                            Some(Inst::Ins {
                                d,
                                s: Val::R(s),
                                shift: 0,
                                bits,
                            }) if s == t && bits == size && (size == 8 || size == 16) => {
                                k += 1;
                                let d = cx.reg(d)?;
                                ops.push(if size == 8 {
                                    Op::Ld8Ins { d, m }
                                } else {
                                    Op::Ld16Ins { d, m }
                                });
                                continue;
                            }
                            _ => {}
                        }
                    }
                    ops.push(load(size, cx.reg(t)?, m));
                }
                Inst::Store {
                    size,
                    addr,
                    s,
                    win,
                    exit,
                } => {
                    let s = cx.val(s)?;
                    let m = cx.mem(&addr, win, true, xid(exit))?;
                    ops.push(store(size, s, m));
                }
                Inst::Flags {
                    op,
                    size,
                    res,
                    a,
                    b,
                } => {
                    let (res, a, b) = (cx.val(res)?, cx.val(a)?, cx.val(b)?);
                    ops.push(match op {
                        FlagOp::Inc | FlagOp::Dec => Op::IncDec {
                            inc: op == FlagOp::Inc,
                            size,
                            res,
                            a,
                        },
                        _ => Op::Flags {
                            op,
                            size,
                            res,
                            a,
                            b,
                        },
                    });
                }
                Inst::Guard {
                    win,
                    addr,
                    len,
                    write,
                } => {
                    let m = cx.mem(&addr, win, write, PRE)?;
                    ops.push(Op::Guard {
                        m,
                        len: len.min(0x2000) as u16,
                    });
                }
                Inst::Fx {
                    op,
                    size,
                    set,
                    d,
                    a,
                    b,
                } => {
                    let (d, a, b) = (cx.reg(d)?, cx.val(a)?, cx.val(b)?);
                    // Without its record, a 32-bit shift is the host's (both mask
                    // the count to 5 bits, and a count of 0 leaves the operand) and
                    // a 32-bit IMUL's result is the low half of the product.
                    ops.push(match (op, size, set) {
                        (Fx::Shl, 32, false) => Op::Shl { d, a, b },
                        (Fx::Shr, 32, false) => Op::Shr { d, a, b },
                        (Fx::Sar, 32, false) => Op::Sar { d, a, b },
                        (Fx::Imul, 32, false) => Op::Mul { d, a, b },
                        (Fx::Shl, 32, true) => Op::ShF {
                            op: crate::ops::shift::SHL,
                            d,
                            a,
                            b,
                        },
                        (Fx::Shr, 32, true) => Op::ShF {
                            op: crate::ops::shift::SHR,
                            d,
                            a,
                            b,
                        },
                        (Fx::Sar, 32, true) => Op::ShF {
                            op: crate::ops::shift::SAR,
                            d,
                            a,
                            b,
                        },
                        _ => Op::Fx {
                            op,
                            size,
                            set,
                            d,
                            a,
                            b,
                        },
                    });
                }
                Inst::Cond { d, cc } => {
                    let d = cx.reg(d)?;
                    ops.push(Op::Cond { cc, d });
                }
                Inst::Sel { d, c, t, f } => {
                    let (d, c, t, f) = (cx.reg(d)?, cx.val(c)?, cx.val(t)?, cx.val(f)?);
                    ops.push(Op::Sel { d, c, t, f });
                }
                Inst::Check { a, k, exit } => {
                    let a = cx.val(a)?;
                    ops.push(Op::Check { a, x: xid(exit), k });
                }
            }
        }
        fuse_accesses(&mut ops, part_start, &mut mems);
        if part {
            continue;
        }
        let b = &p.blocks[starts.len() - 1];
        if b.insns > N_INSNS as u32 / 2 {
            return Err(NoFlat::Size);
        }
        // One block of `insns` instructions (see `N_BLOCK`).
        let n = b.insns as u16 | N_BLOCK;
        ops.push(match b.term {
            Term::Jump(t) => Op::Jmp { n, t: enc(t) },
            Term::Switch {
                v,
                cases,
                n: nc,
                miss,
            } => {
                switches.push(
                    cases[..nc as usize]
                        .iter()
                        .map(|&(a, t)| (a, enc(t)))
                        .collect(),
                );
                Op::Switch {
                    v: cx.val(v)?,
                    k: (switches.len() - 1) as u16,
                    n,
                    x: miss,
                }
            }
            Term::Jcc { cc, t, f } => Op::Jcc {
                cc,
                n,
                t: enc(t),
                f: enc(f),
            },
            Term::Bcc {
                cc,
                op,
                size,
                res,
                a,
                b,
                t,
                f,
            } => {
                let (t, f) = (enc(t), enc(f));
                let m = mask(size);
                match cc >> 1 {
                    2 if op != FlagOp::Eager => Op::BccZ {
                        neg: cc & 1 != 0,
                        r: cx.val(res)?,
                        mask: m,
                        n,
                        t,
                        f,
                    },
                    1 if op == FlagOp::Sub => Op::BccB {
                        neg: cc & 1 != 0,
                        a: cx.val(a)?,
                        b: cx.val(b)?,
                        mask: m,
                        n,
                        t,
                        f,
                    },
                    // The record's own formulas (`LazyFlags::sf`, `cf`, `zf`, `of`)
                    // for the sizes a record has, without building it.
                    4 if op != FlagOp::Eager && matches!(size, 8 | 16 | 32) => Op::BccS {
                        neg: cc & 1 != 0,
                        r: cx.val(res)?,
                        sign: 1 << (size - 1),
                        n,
                        t,
                        f,
                    },
                    3 if op == FlagOp::Sub && matches!(size, 8 | 16 | 32) => Op::BccBE {
                        neg: cc & 1 != 0,
                        size,
                        res: cx.val(res)?,
                        a: cx.val(a)?,
                        b: cx.val(b)?,
                        n,
                        t,
                        f,
                    },
                    6 | 7 if op == FlagOp::Sub && matches!(size, 8 | 16 | 32) => Op::BccL {
                        neg: cc & 1 != 0,
                        le: cc >> 1 == 7,
                        sb: size - 1,
                        res: cx.val(res)?,
                        a: cx.val(a)?,
                        b: cx.val(b)?,
                        n,
                        t,
                        f,
                    },
                    _ => Op::Bcc {
                        cc,
                        op,
                        size,
                        res: cx.val(res)?,
                        a: cx.val(a)?,
                        b: cx.val(b)?,
                        n,
                        t,
                        f,
                    },
                }
            }
        });
        let start = *starts.last().unwrap_or(&0) as usize;
        fuse_term(&mut ops, start);
        fuse_load_branch(&mut ops, start, &mut mems);
    }
    let (mut ops, starts) = inline_jumps(ops, &starts);
    dead_records(&mut ops);
    known_carry(&mut ops, &starts);
    fuse_loop_tail(&mut ops);
    // Exit ops, one per exit id a branch takes.
    let mut exit_op = vec![None; p.exits.len()];
    let mut fix = |t: u16, ops: &mut Vec<Op>| -> u16 {
        if t & EXIT_TAG == 0 {
            return starts[t as usize];
        }
        let x = t & !EXIT_TAG;
        *exit_op[x as usize].get_or_insert_with(|| {
            ops.push(Op::Exit { x });
            (ops.len() - 1) as u16
        })
    };
    for k in 0..ops.len() {
        let mut op = ops[k];
        let (a, b) = targets_mut(&mut op);
        for t in [a, b].into_iter().flatten() {
            *t = fix(*t, &mut ops);
        }
        ops[k] = op;
    }
    for sw in &mut switches {
        for c in sw.iter_mut() {
            c.1 = fix(c.1, &mut ops);
        }
    }
    if ops.len() >= EXIT_TAG as usize {
        return Err(NoFlat::Size);
    }
    // The engine fetches ops unchecked: every op but a block end falls through to
    // the next op of its block (the preheader falls into the head), and every
    // branch target is an op.
    let len = ops.len();
    let ok = |t: u16| (t as usize) < len;
    let valid = ops.iter().enumerate().all(|(k, op)| match *op {
        Op::Jmp { .. }
        | Op::Jcc { .. }
        | Op::BccZ { .. }
        | Op::BccB { .. }
        | Op::BccS { .. }
        | Op::BccBE { .. }
        | Op::BccL { .. }
        | Op::Bcc { .. }
        | Op::DecBZ { .. }
        | Op::IncBZ { .. }
        | Op::AndBZ { .. }
        | Op::SubBZ { .. }
        | Op::SubBB { .. }
        | Op::Ld8AndBZ { .. }
        | Op::Add1DecBZ { .. }
        | Op::Add2DecBZ { .. }
        | Op::AluAndBZ { .. } => {
            let mut op = *op;
            let loads = match op {
                Op::Ld8AndBZ { k, .. } => (k as usize) < mems.len(),
                _ => true,
            };
            let (a, b) = targets_mut(&mut op);
            loads && [a, b].into_iter().flatten().all(|t| ok(*t))
        }
        Op::Exit { .. } => true,
        Op::Switch { k, .. } => switches
            .get(k as usize)
            .is_some_and(|sw| sw.iter().all(|c| ok(c.1))),
        Op::Xlat { k: m, .. } | Op::XlatRmw { k: m, .. } => {
            m as usize + 3 <= mems.len() && k + 1 < len
        }
        _ => k + 1 < len,
    });
    if !valid {
        return Err(NoFlat::Shape);
    }
    Ok(Flat {
        head: starts[0],
        ops,
        consts: cx.consts,
        mems,
        exits: p.exits.clone(),
        switches,
    })
}

/// Drops the flag record of an ALU op when the ops after it in its block
/// overwrite the whole record before anything could read it: no exit (access,
/// budget check, block end) and no INC/DEC (which keeps CF) in between, and the
/// overwriting op writes op, size and operands the way the dropped one did
/// (`aux` is left alone by both). Runs after tail duplication, so a block and
/// the copy of its jump target are one run of ops.
fn dead_records(ops: &mut [Op]) {
    for k in 0..ops.len() {
        let plain = match ops[k] {
            Op::AddF { t, d, a, b, .. } if t == d => Op::Add { d, a, b },
            Op::SubF { t, d, a, b, .. } if t == d => Op::Sub { d, a, b },
            Op::AndF { t, d, a, b, .. } if t == d => Op::And { d, a, b },
            Op::OrF { t, d, a, b, .. } if t == d => Op::Or { d, a, b },
            Op::XorF { t, d, a, b, .. } if t == d => Op::Xor { d, a, b },
            _ => continue,
        };
        for op in &ops[k + 1..] {
            match op {
                // These write the whole record before they could leave.
                Op::AddF { .. }
                | Op::SubF { .. }
                | Op::AndF { .. }
                | Op::OrF { .. }
                | Op::XorF { .. }
                | Op::AndBZ { .. }
                | Op::SubBZ { .. }
                | Op::SubBB { .. } => {
                    ops[k] = plain;
                    break;
                }
                // Neither read nor write the record, nor leave.
                Op::Mov { .. }
                | Op::Add { .. }
                | Op::Sub { .. }
                | Op::And { .. }
                | Op::Or { .. }
                | Op::Xor { .. }
                | Op::Shl { .. }
                | Op::Shr { .. }
                | Op::Sar { .. }
                | Op::Mul { .. }
                | Op::Add2 { .. }
                | Op::ExtU { .. }
                | Op::ExtS { .. }
                | Op::Ins { .. } => {}
                _ => break,
            }
        }
    }
}

/// The branch targets of a block end (none for any other op), to patch.
fn targets_mut(op: &mut Op) -> (Option<&mut u16>, Option<&mut u16>) {
    match op {
        Op::Jmp { t, .. } => (Some(t), None),
        Op::Jcc { t, f, .. }
        | Op::BccZ { t, f, .. }
        | Op::BccB { t, f, .. }
        | Op::BccS { t, f, .. }
        | Op::BccBE { t, f, .. }
        | Op::BccL { t, f, .. }
        | Op::Bcc { t, f, .. }
        | Op::DecBZ { tt: t, f, .. }
        | Op::IncBZ { tt: t, f, .. }
        | Op::AndBZ { tt: t, f, .. }
        | Op::SubBZ { tt: t, f, .. }
        | Op::SubBB { tt: t, f, .. }
        | Op::Ld8AndBZ { tt: t, f, .. }
        | Op::Add1DecBZ { tt: t, f, .. }
        | Op::Add2DecBZ { tt: t, f, .. }
        | Op::AluAndBZ { tt: t, f, .. } => (Some(t), Some(f)),
        _ => (None, None),
    }
}

/// The block-end charge of a terminator.
fn charge(op: &mut Op) -> Option<&mut u16> {
    match op {
        Op::Jmp { n, .. }
        | Op::Jcc { n, .. }
        | Op::BccZ { n, .. }
        | Op::BccB { n, .. }
        | Op::BccS { n, .. }
        | Op::BccBE { n, .. }
        | Op::BccL { n, .. }
        | Op::Bcc { n, .. }
        | Op::DecBZ { n, .. }
        | Op::IncBZ { n, .. }
        | Op::AndBZ { n, .. }
        | Op::SubBZ { n, .. }
        | Op::SubBB { n, .. }
        | Op::Ld8AndBZ { n, .. }
        | Op::Add1DecBZ { n, .. }
        | Op::Add2DecBZ { n, .. }
        | Op::AluAndBZ { n, .. } => Some(n),
        _ => None,
    }
}

/// The branch targets of a block end (either may be absent).
fn targets(op: &Op) -> [Option<u16>; 2] {
    let mut op = *op;
    let (t, f) = targets_mut(&mut op);
    [t.copied(), f.copied()]
}

/// Tail duplication: a block ending in a forward `Jmp` to a short block that
/// cannot leave in its middle (no memory access, no budget check) gets a copy of
/// that block instead of the jump, its charge added to the copy's block end, so
/// the jump costs no dispatch. `starts` are block starts in `ops`, whose targets
/// are still encoded blocks/exits; answers the new ops and starts. A copy placed
/// at block `b` whose end branches to a block `k` with `b < k <= t` is not made:
/// that edge is a back edge (an iteration), and the engine tells back edges by
/// the op index of the target, which would then lie after the copy's branch.
fn inline_jumps(ops: Vec<Op>, starts: &[u16]) -> (Vec<Op>, Vec<u16>) {
    let end = |b: usize| starts.get(b + 1).map_or(ops.len(), |&e| e as usize);
    let body = |b: usize| &ops[starts[b] as usize..end(b)];
    let short = |b: usize| {
        let o = body(b);
        b != 0
            && o.len() <= 4
            && o.iter().all(|op| {
                !matches!(
                    op,
                    Op::Ld8 { .. }
                        | Op::Ld16 { .. }
                        | Op::Ld32 { .. }
                        | Op::Ld8Ins { .. }
                        | Op::Ld16Ins { .. }
                        | Op::Xlat { .. }
                        | Op::XlatRmw { .. }
                        | Op::Ld8AndBZ { .. }
                        | Op::St8 { .. }
                        | Op::St16 { .. }
                        | Op::St32 { .. }
                        | Op::Guard { .. }
                        | Op::Head { .. }
                        | Op::Clock { .. }
                        | Op::Check { .. }
                        | Op::Switch { .. }
                        | Op::Exit { .. }
                )
            })
    };
    let mut out: Vec<Op> = ops[..starts.first().map_or(0, |&s| s as usize)].to_vec();
    let mut new_starts = Vec::with_capacity(starts.len());
    for b in 0..starts.len() {
        new_starts.push(out.len() as u16);
        let o = body(b);
        if let Some(&Op::Jmp { n, t }) = o.last()
            && (t as usize) < starts.len()
            && t as usize > b
            && short(t as usize)
            && body(t as usize).last().is_none_or(|e| {
                targets(e)
                    .into_iter()
                    .flatten()
                    .all(|k| k <= b as u16 || k > t)
            })
        {
            let mut copy = body(t as usize).to_vec();
            if let Some(c) = copy.last_mut().and_then(charge)
                && (*c & (N_BLOCK - 1)) + (n & (N_BLOCK - 1)) < N_BLOCK
                && (*c >> N_SHIFT) + (n >> N_SHIFT) < (u16::MAX >> N_SHIFT)
            {
                *c += n;
                out.extend_from_slice(&o[..o.len() - 1]);
                out.extend_from_slice(&copy);
                continue;
            }
        }
        out.extend_from_slice(o);
    }
    (out, new_starts)
}

/// Folds a block's last ALU-with-flags op into its forwarded branch when the
/// branch tests exactly that op's result (`start`: the block's first op).
fn fuse_term(ops: &mut Vec<Op>, start: usize) {
    let k = ops.len();
    if k < start + 2 {
        return;
    }
    let fused = match (ops[k - 2], ops[k - 1]) {
        (
            Op::DecF { size, t, d, a },
            Op::BccZ {
                neg,
                r,
                mask: m,
                n,
                t: tt,
                f,
            },
        ) if r == t && m == mask(size) => Op::DecBZ {
            size,
            neg,
            cf0: false,
            t,
            d,
            a,
            n,
            tt,
            f,
        },
        (
            Op::IncF { size, t, d, a },
            Op::BccZ {
                neg,
                r,
                mask: m,
                n,
                t: tt,
                f,
            },
        ) if r == t && m == mask(size) => Op::IncBZ {
            size,
            neg,
            cf0: false,
            t,
            d,
            a,
            n,
            tt,
            f,
        },
        (
            Op::AndF { size, t, d, a, b },
            Op::BccZ {
                neg,
                r,
                mask: m,
                n,
                t: tt,
                f,
            },
        ) if r == t && d == t && m == mask(size) => Op::AndBZ {
            size,
            neg,
            t,
            a,
            b,
            n,
            tt,
            f,
        },
        (
            Op::SubF { size, t, d, a, b },
            Op::BccZ {
                neg,
                r,
                mask: m,
                n,
                t: tt,
                f,
            },
        ) if r == t && d == t && m == mask(size) => Op::SubBZ {
            size,
            neg,
            t,
            a,
            b,
            n,
            tt,
            f,
        },
        (
            Op::SubF { size, t, d, a, b },
            Op::BccB {
                neg,
                a: a2,
                b: b2,
                mask: m,
                n,
                t: tt,
                f,
            },
        ) if a == a2 && b == b2 && d == t && m == mask(size) => Op::SubBB {
            size,
            neg,
            t,
            a,
            b,
            n,
            tt,
            f,
        },
        _ => return,
    };
    ops.truncate(k - 2);
    // `e = zx s` right before a fused flag op of no more than the extension's
    // bits reading `e`: the op's flags and branch see only the low `size` bits of
    // its operands and result, which are the same computed from `s`, and `e`, a
    // temporary, has no other reader (temporaries are read only later in their
    // own block, and the fused op ends it).
    let fused = match (ops.len() > start).then(|| ops[ops.len() - 1]) {
        Some(Op::ExtU {
            d: e,
            s: src,
            sh: 0,
            mask: em,
        }) if e > ZERO => {
            let keep = |size: u8| em & mask(size) == mask(size);
            let mut f2 = fused;
            match &mut f2 {
                Op::AndBZ { size, a, b, .. }
                | Op::SubBZ { size, a, b, .. }
                | Op::SubBB { size, a, b, .. }
                    if keep(*size) =>
                {
                    for v in [a, b] {
                        if *v == e {
                            *v = src;
                        }
                    }
                    ops.pop();
                    f2
                }
                _ => fused,
            }
        }
        _ => fused,
    };
    ops.push(fused);
}

/// Fuses access sequences of one block (from `start`) into ops whose extra
/// operands go to `mems`. The fused op runs the same accesses in the same order and
/// leaves through the failing access's own exit after the effects of the ones
/// before it, as the separate ops would.
fn fuse_accesses(ops: &mut Vec<Op>, start: usize, mems: &mut Vec<Mem>) {
    let mut out = Vec::with_capacity(ops.len() - start);
    let mut k = start;
    while k < ops.len() {
        if let (
            Op::Ld8 { d, m: m0 },
            Some(&Op::Ld8Ins { d: d1, m: m1 }),
            Some(&Op::St8 { s, m: m2 }),
        ) = (ops[k], ops.get(k + 1), ops.get(k + 2))
            && d1 == d
            && s == d
            && mems.len() + 3 <= u16::MAX as usize
        {
            let kk = mems.len() as u16;
            mems.extend_from_slice(&[m0, m1, m2]);
            let same = (m0.b, m0.i, m0.sc, m0.w, m0.disp) == (m2.b, m2.i, m2.sc, m2.w, m2.disp)
                && m0.w & WRITE != 0
                && m0.b != d
                && m0.i != d;
            out.push(if same {
                Op::XlatRmw { d, k: kk }
            } else {
                Op::Xlat { d, k: kk }
            });
            k += 3;
            continue;
        }
        out.push(ops[k]);
        k += 1;
    }
    ops.truncate(start);
    ops.extend(out);
}

/// Fuses a block's last byte load into the `AndBZ` ending it that tests the
/// loaded register (`start`: the block's first op).
fn fuse_load_branch(ops: &mut Vec<Op>, start: usize, mems: &mut Vec<Mem>) {
    let k = ops.len();
    if k < start + 2 || mems.len() >= u16::MAX as usize {
        return;
    }
    let (
        (ins, d, m),
        Op::AndBZ {
            size,
            neg,
            t: _,
            a,
            b,
            n,
            tt,
            f,
        },
    ) = (
        match ops[k - 2] {
            Op::Ld8 { d, m } => (false, d, m),
            Op::Ld8Ins { d, m } => (true, d, m),
            _ => return,
        },
        ops[k - 1],
    )
    else {
        return;
    };
    if a != d {
        return;
    }
    mems.push(m);
    ops.truncate(k - 2);
    ops.push(Op::Ld8AndBZ {
        ins,
        size,
        neg,
        d,
        k: (mems.len() - 1) as u16,
        b,
        n,
        tt,
        f,
    });
}

fn load(size: u8, d: u16, m: Mem) -> Op {
    match size {
        8 => Op::Ld8 { d, m },
        16 => Op::Ld16 { d, m },
        _ => Op::Ld32 { d, m },
    }
}

fn store(size: u8, s: u16, m: Mem) -> Op {
    match size {
        8 => Op::St8 { s, m },
        16 => Op::St16 { s, m },
        _ => Op::St32 { s, m },
    }
}

/// `LazyFlags::set` for the sizes records have (8, 16, 32), its mask without a
/// branch.
#[inline(always)]
fn rec(fl: &mut LazyFlags, op: FlagOp, size: u8, res: u32, a: u32, b: u32) {
    let m = rmask(size);
    fl.op = op;
    fl.sb = size.wrapping_sub(1);
    fl.res = res & m;
    fl.a = a & m;
    fl.b = b & m;
}

/// Marks the INC/DEC-and-branch ops whose block, before them, last writes a
/// logic op's record (CF clear) as not needing to compute the CF they keep.
/// Only ops of the same block are looked at (its start is where paths join).
fn known_carry(ops: &mut [Op], starts: &[u16]) {
    for k in 0..ops.len() {
        if !matches!(ops[k], Op::DecBZ { .. } | Op::IncBZ { .. }) {
            continue;
        }
        let start = starts
            .iter()
            .map(|&s| s as usize)
            .filter(|&s| s <= k)
            .max()
            .unwrap_or(0);
        let mut logic = false;
        for op in ops[start..k].iter().rev() {
            match op {
                Op::AndF { .. } | Op::OrF { .. } | Op::XorF { .. } => {
                    logic = true;
                    break;
                }
                Op::Flags { op, .. } => {
                    logic = *op == FlagOp::Logic;
                    break;
                }
                Op::Mov { .. }
                | Op::Add { .. }
                | Op::Sub { .. }
                | Op::And { .. }
                | Op::Or { .. }
                | Op::Xor { .. }
                | Op::Shl { .. }
                | Op::Shr { .. }
                | Op::Sar { .. }
                | Op::Mul { .. }
                | Op::Add2 { .. }
                | Op::ExtU { .. }
                | Op::ExtS { .. }
                | Op::Ins { .. }
                | Op::Ld8 { .. }
                | Op::Ld16 { .. }
                | Op::Ld32 { .. }
                | Op::Ld8Ins { .. }
                | Op::Ld16Ins { .. }
                | Op::Xlat { .. }
                | Op::XlatRmw { .. }
                | Op::St8 { .. }
                | Op::St16 { .. }
                | Op::St32 { .. } => {}
                _ => break,
            }
        }
        if let Op::DecBZ { cf0, .. } | Op::IncBZ { cf0, .. } = &mut ops[k] {
            *cf0 = logic;
        }
    }
}

/// `Add`/`Add2` bumping registers right before a `DecBZ` counting a register
/// down (the usual loop tail) become one op in the `Add`'s place, and so does
/// an ADD or XOR into a register right before an `AndBZ`. The `DecBZ`
/// stays where it was, for branches that target it as a block start; the fused
/// op ends its block, so nothing falls into it. Runs last, on final op indices.
fn fuse_loop_tail(ops: &mut [Op]) {
    for k in 1..ops.len() {
        // An ADD or XOR into a register right before a test-and-branch.
        if let Op::AndBZ {
            size,
            neg,
            a,
            b,
            n,
            tt,
            f,
            ..
        } = ops[k]
            && size < 0x40
        {
            let bits = size | (neg as u8) << 6;
            ops[k - 1] = match ops[k - 1] {
                Op::Add { d: x, a: x1, b: y } if x1 == x => Op::AluAndBZ {
                    bits,
                    x,
                    y,
                    a,
                    b,
                    n,
                    tt,
                    f,
                },
                Op::Xor { d: x, a: x1, b: y } if x1 == x => Op::AluAndBZ {
                    bits: bits | 0x80,
                    x,
                    y,
                    a,
                    b,
                    n,
                    tt,
                    f,
                },
                op => op,
            };
            continue;
        }
        let Op::DecBZ {
            size,
            neg,
            cf0,
            d,
            a,
            n,
            tt,
            f,
            ..
        } = ops[k]
        else {
            continue;
        };
        if d != a || size >= 0x40 {
            continue;
        }
        let bits = size | (neg as u8) << 6 | (cf0 as u8) << 7;
        ops[k - 1] = match ops[k - 1] {
            Op::Add { d: x, a, b: y } if a == x => Op::Add1DecBZ {
                bits,
                x,
                y,
                d,
                n,
                tt,
                f,
            },
            Op::Add2 {
                d: x,
                a,
                b: y,
                d2: x2,
                a2,
                b2,
            } if a == x && a2 == x2 && b2 == y && y != x => Op::Add2DecBZ {
                bits,
                x,
                x2,
                y,
                d,
                n,
                tt,
                f,
            },
            _ => continue,
        };
    }
}

/// Guest pages `[lo, lo + len)` proved fast for this entry.
#[derive(Clone, Copy, Default)]
struct Win {
    lo: u32,
    len: u32,
}

impl Win {
    /// Whether an `n`-byte access at `ga` lies inside (an empty window holds none).
    #[inline(always)]
    fn hit(&self, ga: u32, n: u32) -> bool {
        ga.wrapping_sub(self.lo) as u64 + n as u64 <= self.len as u64
    }
}

/// A window miss: proves the page of an `n`-byte access at `ga` and makes it the
/// slot's window, or answers `false` (the access must leave through its exit).
#[cold]
#[inline(never)]
fn reprove(mem: &GuestMemory, w: &mut Win, ga: u32, n: u32, write: bool) -> bool {
    if (ga & 0xfff) <= 0x1000 - n && mem.fast_page(ga, write) {
        *w = Win {
            lo: ga & !0xfff,
            len: 0x1000,
        };
        true
    } else {
        false
    }
}

/// The op index of switch `k`'s case for guest address `a`. Out of line: the
/// dispatch loop's code stays as it was for programs without jump tables.
#[inline(never)]
fn case(switches: &[Vec<(u32, u16)>], k: u16, a: u32) -> Option<u16> {
    switches[k as usize].iter().find(|c| c.0 == a).map(|c| c.1)
}

/// A helper op, out of line: its helpers are large, and inlined into the dispatch
/// loop they would crowd the common ops' registers.
#[inline(never)]
fn fx(op: Fx, fl: &mut LazyFlags, size: u8, set: bool, a: u32, b: u32) -> u32 {
    op.run(fl, size as u32, set, a, b)
}

/// Runs `f` from its head. `None`: it left before anything happened (a preheader
/// access failed, or the first budget check), so nothing changed and the
/// interpreter runs the head block itself.
pub fn run(
    f: &Flat,
    cpu: &mut Cpu,
    r: &mut Regs,
    target: u64,
    halt: &crate::attention::Attention,
) -> Option<Entered> {
    r[..8].copy_from_slice(&cpu.regs[..8]);
    r[ZERO as usize] = 0;
    for &(k, v) in &f.consts {
        s(r, k, v);
    }
    let mut fl = cpu.flags;
    let mut wins = [Win::default(); NWIN];
    let mem = &cpu.mem;
    let host = mem.host_base();
    let lay = mem.layout_epoch();
    let lay0 = lay.load(Ordering::Acquire);
    let epoch = mem.code_epoch();
    let limit = target.saturating_sub(cpu.retired);
    let ops = &f.ops[..];
    let mems = &f.mems[..];
    // Instructions charged (low half) and blocks (high half): one add per block
    // end. The head leaves before the low half could reach 2^31.
    let mut acc: u64 = 0;
    let limit = limit.min(1 << 31);
    // Back edges taken (edges to an op at or before the branch: every block start
    // of a region is in block order, exits come last).
    let mut iters: u64 = 0;
    let head = f.head as usize;
    let (head_max, head_x) = match f.ops[head] {
        Op::Head { max, x } => (max as u64, x),
        _ => return None,
    };
    let mut pc = 0usize;

    // The host address of an access of a `$t` at `$m`: window test (re-proof on
    // a miss) and layout check, or leave through the access's exit.
    macro_rules! window {
        ($m:expr, $t:ty) => {{
            let m: Mem = $m;
            let n = std::mem::size_of::<$t>() as u32;
            let ga = m.ea(r);
            let w = &mut wins[(m.w as usize) & (NWIN - 1)];
            if !w.hit(ga, n) && !reprove(mem, w, ga, n, m.w & WRITE != 0) {
                break m.x;
            }
            if lay.load(Ordering::Acquire) != lay0 {
                break m.x;
            }
            host.wrapping_add(ga as usize) as *mut $t
        }};
    }

    // One access: a load (`$m, $t`) or a store (`$m, $t, $v`).
    macro_rules! access {
        ($m:expr, $t:ty $(, $v:expr)?) => {{
            let p = window!($m, $t);
            // SAFETY: `ga..ga+n` lies inside a window, i.e. inside one guest page
            // that `fast_page` accepted during this entry (for a slot any store goes
            // through: as writable and free of decoded code), and the layout epoch
            // has not moved since the entry, so no protection, commitment, guard or
            // code mark has changed: the host page is mapped read/write, and the
            // access is the one `GuestMemory`'s checked fast path would make.
            unsafe { access!(@op p $(, $v)?) }
        }};
        (@op $p:ident) => { $p.read_unaligned() };
        (@op $p:ident, $v:expr) => { $p.write_unaligned($v) };
    }

    // The three operands of a fused access op.
    macro_rules! mems3 {
        ($k:expr) => {{
            // SAFETY: `build` checked `k + 3 <= mems.len()` for every op that
            // names operands there.
            unsafe {
                let k = $k as usize;
                (
                    *mems.get_unchecked(k),
                    *mems.get_unchecked(k + 1),
                    *mems.get_unchecked(k + 2),
                )
            }
        }};
    }

    // Halt and another thread's code write are asked at every `POLL`th budget
    // check on a back edge (and by the `Head` of the entry): both come from other
    // threads at no fixed point of this one's run, and nothing this thread does in
    // the engine changes either.
    let mut polls: u64 = 0;
    macro_rules! poll {
        () => {{
            polls += 1;
            polls % POLL == 0 && (halt.load(Ordering::Relaxed) || mem.code_epoch() != epoch)
        }};
    }

    // A block end: charge the block, go to `$to`; a back edge counts an
    // iteration, and to the head (or to an inner loop's check) runs its budget
    // check here instead of dispatching its `Head` (`Clock`).
    macro_rules! goto {
        ($n:expr, $to:expr) => {{
            let n: u16 = $n;
            acc += (n & N_INSNS) as u64 | ((n >> N_SHIFT) as u64) << 32;
            let from = pc;
            pc = $to as usize;
            if pc < from {
                iters += 1;
                if pc == head {
                    if (acc as u32 as u64) + head_max >= limit || poll!() {
                        break head_x;
                    }
                    pc = head + 1;
                } else if let Some(&Op::Clock { max, x }) = ops.get(pc) {
                    if (acc as u32 as u64) + max as u64 >= limit || poll!() {
                        break x;
                    }
                    pc += 1;
                }
            }
        }};
    }

    // ALU op + its flag record + both copies of the result (`t = d = a op b`).
    macro_rules! alu_f {
        ($fop:ident, $size:expr, $t:expr, $d:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $v:expr) => {{
            let ($x, $y) = (g(r, $a), g(r, $b));
            let v = $v;
            rec(&mut fl, FlagOp::$fop, $size, v, $x, $y);
            s(r, $t, v);
            s(r, $d, v);
        }};
    }
    macro_rules! incdec_f {
        ($inc:expr, $size:expr, $t:expr, $d:expr, $a:expr) => {{
            let x = g(r, $a);
            let v = if $inc {
                x.wrapping_add(1)
            } else {
                x.wrapping_sub(1)
            };
            fl.set_incdec($inc, $size as u32, v, x);
            s(r, $t, v);
            s(r, $d, v);
        }};
    }

    // INC/DEC + its record + the forwarded branch on its result being zero. The
    // fused branches do not write their temporary: it ends its block, so nothing
    // reads it.
    macro_rules! incdec_bz {
        ($inc:expr, $size:expr, $neg:expr, $cf0:expr, $d:expr, $a:expr, $n:expr, $tt:expr, $f:expr) => {{
            let x = g(r, $a);
            let v = if $inc {
                x.wrapping_add(1)
            } else {
                x.wrapping_sub(1)
            };
            let cf = !$cf0 && fl.cf();
            rec(
                &mut fl,
                if $inc { FlagOp::Inc } else { FlagOp::Dec },
                $size,
                v,
                x,
                1,
            );
            fl.aux = cf as u32;
            s(r, $d, v);
            goto!(
                $n,
                if (v & rmask($size) == 0) != $neg {
                    $tt
                } else {
                    $f
                }
            )
        }};
    }

    let x: u16 = loop {
        // SAFETY: `build` checked that every op but a block end is followed by
        // another op and that every branch target is an op, and `pc` starts at 0
        // of a non-empty program: `pc` is always in bounds.
        // Matched in place, so each arm loads only its own fields.
        let op: &Op = unsafe { ops.get_unchecked(pc) };
        pc += 1;
        match *op {
            Op::Mov { d, s: v } => s(r, d, g(r, v)),
            Op::Add { d, a, b } => s(r, d, g(r, a).wrapping_add(g(r, b))),
            Op::Sub { d, a, b } => s(r, d, g(r, a).wrapping_sub(g(r, b))),
            Op::And { d, a, b } => s(r, d, g(r, a) & g(r, b)),
            Op::Or { d, a, b } => s(r, d, g(r, a) | g(r, b)),
            Op::Xor { d, a, b } => s(r, d, g(r, a) ^ g(r, b)),
            Op::Shl { d, a, b } => s(r, d, g(r, a).wrapping_shl(g(r, b))),
            Op::Shr { d, a, b } => s(r, d, g(r, a).wrapping_shr(g(r, b))),
            Op::Sar { d, a, b } => s(r, d, (g(r, a) as i32).wrapping_shr(g(r, b)) as u32),
            Op::Mul { d, a, b } => s(r, d, g(r, a).wrapping_mul(g(r, b))),
            Op::Add2 {
                d,
                a,
                b,
                d2,
                a2,
                b2,
            } => {
                s(r, d, g(r, a).wrapping_add(g(r, b)));
                s(r, d2, g(r, a2).wrapping_add(g(r, b2)));
            }
            Op::ExtU { d, s: v, sh, mask } => s(r, d, (g(r, v) >> sh) & mask),
            Op::ExtS { d, s: v, sh, l } => s(r, d, (((g(r, v) >> sh) << l) as i32 >> l) as u32),
            Op::Ins { d, s: v, sh, mask } => {
                let old = g(r, d);
                s(r, d, (old & !mask) | ((g(r, v) << sh) & mask));
            }
            Op::Ld8 { d, m } => {
                let v = access!(m, u8);
                s(r, d, v as u32);
            }
            Op::Ld16 { d, m } => {
                let v = access!(m, u16);
                s(r, d, v as u32);
            }
            Op::Ld32 { d, m } => {
                let v = access!(m, u32);
                s(r, d, v);
            }
            Op::Ld8Ins { d, m } => {
                let v = access!(m, u8);
                s(r, d, (g(r, d) & !0xff) | v as u32);
            }
            Op::Ld16Ins { d, m } => {
                let v = access!(m, u16);
                s(r, d, (g(r, d) & !0xffff) | v as u32);
            }
            Op::Xlat { d, k } => {
                let (m0, m1, m2) = mems3!(k);
                let v = access!(m0, u8) as u32;
                s(r, d, v);
                let v = (v & !0xff) | access!(m1, u8) as u32;
                s(r, d, v);
                access!(m2, u8, v as u8);
            }
            Op::XlatRmw { d, k } => {
                let (m0, m1, _) = mems3!(k);
                let p = window!(m0, u8);
                // SAFETY: as in `access!`; the store goes to the same byte, which
                // the window proved writable (the slot is a written one) and whose
                // layout the second access re-checked.
                let v = unsafe { p.read_unaligned() } as u32;
                s(r, d, v);
                let v = (v & !0xff) | access!(m1, u8) as u32;
                s(r, d, v);
                // SAFETY: see above.
                unsafe { p.write_unaligned(v as u8) };
            }
            Op::St8 { s: v, m } => {
                let v = g(r, v) as u8;
                access!(m, u8, v);
            }
            Op::St16 { s: v, m } => {
                let v = g(r, v) as u16;
                access!(m, u16, v);
            }
            Op::St32 { s: v, m } => {
                let v = g(r, v);
                access!(m, u32, v);
            }
            Op::Flags {
                op,
                size,
                res,
                a,
                b,
            } => {
                fl.set(op, size as u32, g(r, res), g(r, a), g(r, b));
            }
            Op::IncDec { inc, size, res, a } => {
                fl.set_incdec(inc, size as u32, g(r, res), g(r, a));
            }
            Op::AddF { size, t, d, a, b } => {
                alu_f!(Add, size, t, d, a, b, |x, y| x.wrapping_add(y))
            }
            Op::SubF { size, t, d, a, b } => {
                alu_f!(Sub, size, t, d, a, b, |x, y| x.wrapping_sub(y))
            }
            Op::AndF { size, t, d, a, b } => alu_f!(Logic, size, t, d, a, b, |x, y| x & y),
            Op::OrF { size, t, d, a, b } => alu_f!(Logic, size, t, d, a, b, |x, y| x | y),
            Op::XorF { size, t, d, a, b } => alu_f!(Logic, size, t, d, a, b, |x, y| x ^ y),
            Op::IncF { size, t, d, a } => incdec_f!(true, size, t, d, a),
            Op::DecF { size, t, d, a } => incdec_f!(false, size, t, d, a),
            Op::Guard { m, len } => {
                let ga = m.ea(r);
                // The guard proves the page the stream starts in (and the next one
                // when the displacement span reaches it); a miss later re-proves.
                // A page it cannot prove leaves the window empty: the first access
                // through it proves its own page (a side path's stream must not
                // keep the loop out).
                let write = m.w & WRITE != 0;
                let first = ga & !0xfff;
                let last = ga.wrapping_add((len as u32).max(1) - 1) & !0xfff;
                let mut w = Win::default();
                if mem.fast_page(first, write) {
                    w = Win {
                        lo: first,
                        len: 0x1000,
                    };
                    if last == first.wrapping_add(0x1000) && mem.fast_page(last, write) {
                        w.len = 0x2000;
                    }
                }
                wins[(m.w as usize) & (NWIN - 1)] = w;
            }
            Op::Head { max, x } => {
                if (acc as u32 as u64) + max as u64 >= limit
                    || halt.load(Ordering::Relaxed)
                    || mem.code_epoch() != epoch
                {
                    break x;
                }
            }
            Op::Clock { max, x } => {
                if (acc as u32 as u64) + max as u64 >= limit
                    || halt.load(Ordering::Relaxed)
                    || mem.code_epoch() != epoch
                {
                    break x;
                }
            }
            Op::Jmp { n, t } => goto!(n, t),
            Op::Jcc { cc, n, t, f } => goto!(n, if fl.cond(cc) { t } else { f }),
            Op::BccZ {
                neg,
                r: v,
                mask,
                n,
                t,
                f,
            } => {
                goto!(n, if (g(r, v) & mask == 0) != neg { t } else { f })
            }
            Op::BccB {
                neg,
                a,
                b,
                mask,
                n,
                t,
                f,
            } => {
                goto!(
                    n,
                    if ((g(r, a) & mask) < (g(r, b) & mask)) != neg {
                        t
                    } else {
                        f
                    }
                )
            }
            Op::BccS {
                neg,
                r: v,
                sign,
                n,
                t,
                f,
            } => {
                goto!(n, if (g(r, v) & sign != 0) != neg { t } else { f })
            }
            Op::BccBE {
                neg,
                size,
                res,
                a,
                b,
                n,
                t,
                f,
            } => {
                let mask = rmask(size);
                let below = (g(r, a) & mask) < (g(r, b) & mask);
                let zero = g(r, res) & mask == 0;
                goto!(n, if (below | zero) != neg { t } else { f })
            }
            Op::BccL {
                neg,
                le,
                sb,
                res,
                a,
                b,
                n,
                t,
                f,
            } => {
                let (x, y, v) = (g(r, a), g(r, b), g(r, res));
                // SF != OF at bit `sb`; ZF from the bits at and below it.
                let less = ((v ^ ((x ^ y) & (x ^ v))) >> sb) & 1 != 0;
                let zero = v << (31 - sb) == 0;
                goto!(n, if (less | (le & zero)) != neg { t } else { f })
            }
            Op::Bcc {
                cc,
                op,
                size,
                res,
                a,
                b,
                n,
                t,
                f,
            } => {
                let mut rec = LazyFlags::default();
                rec.set(op, size as u32, g(r, res), g(r, a), g(r, b));
                goto!(n, if rec.cond(cc) { t } else { f })
            }
            // The fused branches do not write their temporary: it ends its block,
            // so nothing reads it.
            Op::DecBZ {
                size,
                neg,
                cf0,
                d,
                a,
                n,
                tt,
                f,
                ..
            } => incdec_bz!(false, size, neg, cf0, d, a, n, tt, f),
            Op::IncBZ {
                size,
                neg,
                cf0,
                d,
                a,
                n,
                tt,
                f,
                ..
            } => incdec_bz!(true, size, neg, cf0, d, a, n, tt, f),
            Op::AndBZ {
                size,
                neg,
                t: _,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x & y;
                rec(&mut fl, FlagOp::Logic, size, v, x, y);
                goto!(n, if (v & rmask(size) == 0) != neg { tt } else { f })
            }
            Op::SubBZ {
                size,
                neg,
                t: _,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x.wrapping_sub(y);
                rec(&mut fl, FlagOp::Sub, size, v, x, y);
                goto!(n, if (v & rmask(size) == 0) != neg { tt } else { f })
            }
            Op::Add1DecBZ {
                bits,
                x,
                y,
                d,
                n,
                tt,
                f,
            } => {
                s(r, x, g(r, x).wrapping_add(g(r, y)));
                incdec_bz!(
                    false,
                    bits & 0x3f,
                    bits & 0x40 != 0,
                    bits & 0x80 != 0,
                    d,
                    d,
                    n,
                    tt,
                    f
                )
            }
            Op::Add2DecBZ {
                bits,
                x,
                x2,
                y,
                d,
                n,
                tt,
                f,
            } => {
                let k = g(r, y);
                s(r, x, g(r, x).wrapping_add(k));
                s(r, x2, g(r, x2).wrapping_add(k));
                incdec_bz!(
                    false,
                    bits & 0x3f,
                    bits & 0x40 != 0,
                    bits & 0x80 != 0,
                    d,
                    d,
                    n,
                    tt,
                    f
                )
            }
            Op::AluAndBZ {
                bits,
                x,
                y,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (u, w) = (g(r, x), g(r, y));
                s(
                    r,
                    x,
                    if bits & 0x80 != 0 {
                        u ^ w
                    } else {
                        u.wrapping_add(w)
                    },
                );
                let (p, q) = (g(r, a), g(r, b));
                let v = p & q;
                let size = bits & 0x3f;
                rec(&mut fl, FlagOp::Logic, size, v, p, q);
                goto!(
                    n,
                    if (v & rmask(size) == 0) != (bits & 0x40 != 0) {
                        tt
                    } else {
                        f
                    }
                )
            }
            Op::Ld8AndBZ {
                ins,
                size,
                neg,
                d,
                k,
                b,
                n,
                tt,
                f,
            } => {
                // SAFETY: `build` checked `k < mems.len()`.
                let m = unsafe { *mems.get_unchecked(k as usize) };
                let v = access!(m, u8) as u32;
                let x = if ins { (g(r, d) & !0xff) | v } else { v };
                s(r, d, x);
                let y = g(r, b);
                let v = x & y;
                rec(&mut fl, FlagOp::Logic, size, v, x, y);
                goto!(n, if (v & rmask(size) == 0) != neg { tt } else { f })
            }
            Op::SubBB {
                size,
                neg,
                t: _,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x.wrapping_sub(y);
                rec(&mut fl, FlagOp::Sub, size, v, x, y);
                let m = rmask(size);
                goto!(n, if ((x & m) < (y & m)) != neg { tt } else { f })
            }
            Op::Exit { x } => break x,
            Op::Fx {
                op,
                size,
                set,
                d,
                a,
                b,
            } => {
                let v = fx(op, &mut fl, size, set, g(r, a), g(r, b));
                s(r, d, v);
            }
            Op::ShF { op, d, a, b } => {
                // As `Fx::run`: a count masking to 0 leaves the operand and the
                // record.
                let (x, c) = (g(r, a), g(r, b) & 31);
                let v = if c == 0 {
                    x
                } else {
                    let (v, bits) = crate::ops::shift::shift_eager(op, 32, &fl, x, c);
                    fl.set_eager(bits);
                    v
                };
                s(r, d, v);
            }
            Op::Cond { cc, d } => s(r, d, fl.cond(cc) as u32),
            Op::Sel { d, c, t, f } => s(r, d, if g(r, c) != 0 { g(r, t) } else { g(r, f) }),
            Op::Check { a, x, k } => {
                if g(r, a) != k {
                    break x;
                }
            }
            Op::Switch { v, k, n, x } => match case(&f.switches, k, g(r, v)) {
                Some(t) => goto!(n, t),
                None => break x,
            },
        }
    };
    if x == PRE {
        return None;
    }
    let stub = f.exits[x as usize];
    let insns = (acc as u32 as u64) + stub.insns as u64;
    let blocks = acc >> 32;
    if insns == 0 && blocks == 0 {
        // Left before the first block did anything (the budget or a halt): the
        // registers and flags were not touched, and the interpreter runs the head.
        return None;
    }
    cpu.regs[..8].copy_from_slice(&r[..8]);
    cpu.flags = fl;
    cpu.eip = stub.eip;
    cpu.retired += insns;
    cpu.chain.blocks += blocks;
    Some(Entered {
        iters,
        insns,
        blocks,
        mid_block: stub.insns != 0,
    })
}

#[cfg(test)]
mod tests {
    use crate::harness::{CODE, Machine};
    use crate::uop::engine::{Verdict, compile};

    /// The op kinds the inner loop of a bench shape compiles to.
    fn inner_loop_ops(s: crate::bench::Shape) -> Vec<String> {
        inner_loop_debug(s)
            .iter()
            .map(|d| d.split([' ', '{']).next().unwrap_or_default().to_string())
            .collect()
    }

    /// The ops the inner loop of a bench shape compiles to, as `Debug` text.
    fn inner_loop_debug(s: crate::bench::Shape) -> Vec<String> {
        let m = Machine::new();
        m.mem.write_bytes(CODE, &s.code).unwrap();
        let env = crate::uop::lower::Env {
            max_insns: 64,
            stop: (crate::harness::EXIT, 1),
            seg_base: [0; 8],
        };
        // The inner loop's head is the instruction after `mov ecx, 0x10000`.
        let dec =
            iced_x86::Decoder::with_ip(32, &s.code, CODE as u64, iced_x86::DecoderOptions::NONE);
        let head = dec
            .into_iter()
            .skip_while(|i| {
                !(i.code() == iced_x86::Code::Mov_r32_imm32 && i.immediate32() == 0x10000)
            })
            .nth(1)
            .expect("the inner loop")
            .ip32();
        let Verdict::Run(c) = compile(&m.mem, head, &env) else {
            panic!("{} lowers", s.name)
        };
        c.flat.ops.iter().map(|o| format!("{o:?}")).collect()
    }

    #[test]
    fn lut_loop_is_three_ops_per_iteration() {
        // movzx eax,[esi]; mov al,[ebx+eax]; mov [edi],al; add edx,eax; inc esi;
        // inc edi; dec ecx; jnz: the three accesses of the translate as one op,
        // the ADD with its flag record and copy, and the two INCs (flags dead)
        // with the DEC, its record and the forwarded JNZ. The `DecBZ` after the
        // fused tail is left in place and not run (no branch targets it here).
        // The region also holds the outer loop (`dec ebp; jnz`, then its block
        // before the head); that cycle avoids the head, so its budget check sits
        // in its own block, off the inner loop.
        assert_eq!(
            inner_loop_ops(crate::bench::uop_lut(0x10000)),
            [
                "Guard",
                "Guard",
                "Guard",
                "Guard",
                "Guard",
                "Head",
                "Xlat",
                "AddF",
                "Add2DecBZ",
                "DecBZ",
                "DecBZ",
                "Clock",
                "Mov",
                "Mov",
                "Mov",
                "Xlat",
                "AddF",
                "Mov",
                "Mov",
                "IncDec",
                "Mov",
                "BccZ",
                "Exit",
            ]
        );
    }

    #[test]
    fn h3shadow_fuses_the_keyed_load_test_and_the_in_place_translate() {
        // mov al,[esi]; test al,3; jz: the load, and the zero-extension of AL the
        // TEST's 8-bit record reads, folded into the fused test-and-branch; the
        // translate's store goes to the byte its first load read.
        assert_eq!(
            inner_loop_ops(crate::bench::uop_h3shadow(0x10000)),
            [
                "Guard",
                "Guard",
                "Guard",
                "Guard",
                "Head",
                "Ld8AndBZ",
                "XlatRmw",
                "Add2DecBZ",
                "DecBZ",
                "Add2DecBZ",
                "DecBZ",
                "DecBZ",
                "Clock",
                "Mov",
                "Mov",
                "Mov",
                "Ld8AndBZ",
                "Exit",
            ]
        );
    }

    #[test]
    fn blk_mix512_head_fuses_its_load_and_test() {
        // movzx eax,[esi]; test al,1; jz: one op at the head; the JMPs to the
        // diamonds' joins are replaced by copies of the join blocks, and the ADD
        // or XOR before each copied `test al,4; jnz` is fused with it.
        assert_eq!(
            inner_loop_ops(crate::bench::uop_blk_mix512(0x10000)),
            [
                "Guard",
                "Guard",
                "Guard",
                "Guard",
                "Head",
                "Ld8AndBZ",
                "AluAndBZ",
                "AndBZ",
                "AluAndBZ",
                "AndBZ",
                "AndBZ",
                "SubF",
                "St8",
                "SubBB",
                "Shl",
                "Add2",
                "SubBB",
                "SubBB",
                "Ld8",
                "Xor",
                "AndF",
                "Add1DecBZ",
                "DecBZ",
                "Add",
                "AndF",
                "Add1DecBZ",
                "DecBZ",
                "AndF",
                "Add1DecBZ",
                "DecBZ",
                "DecBZ",
                "Clock",
                "Mov",
                "Mov",
                "Mov",
                "Ld8AndBZ",
                "Exit",
            ]
        );
    }

    #[test]
    fn blk_mix512_drops_overwritten_records_and_knows_the_kept_carry() {
        // `add edx,eax` and `xor edx,eax` above have lost their records (the
        // next TEST or AND overwrites them before any exit); every DEC's block
        // last wrote the AND's logic record, so the CF it keeps is known clear.
        let ops = inner_loop_debug(crate::bench::uop_blk_mix512(0x10000));
        // (The fourth DecBZ is the outer loop's `dec ebp`, alone in its block.)
        let decs: Vec<_> = ops.iter().filter(|o| o.starts_with("DecBZ")).collect();
        assert_eq!(decs.len(), 4, "{ops:?}");
        assert_eq!(
            decs.iter().filter(|o| o.contains("cf0: true")).count(),
            3,
            "{decs:?}"
        );
        // The fused tails carry it in `bits`: 32 | cf0 (0x80), `jnz` (neg, 0x40).
        let tails: Vec<_> = ops.iter().filter(|o| o.starts_with("Add1DecBZ")).collect();
        assert_eq!(tails.len(), 3, "{ops:?}");
        assert!(tails.iter().all(|o| o.contains("bits: 224,")), "{tails:?}");
        // In h3shadow the record comes from the previous block: not known.
        let ops = inner_loop_debug(crate::bench::uop_h3shadow(0x10000));
        assert!(
            ops.iter()
                .filter(|o| o.starts_with("DecBZ"))
                .all(|o| o.contains("cf0: false")),
            "{ops:?}"
        );
    }
}
