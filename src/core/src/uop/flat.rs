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
use std::sync::atomic::{AtomicBool, Ordering};

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
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Flat {
    pub ops: Vec<Op>,
    /// Op index of the loop head's `Head`.
    head: u16,
    /// Register slots holding constants, written at entry.
    consts: Vec<(u16, u32)>,
    exits: Vec<ExitStub>,
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
                    ops.push(Op::Fx {
                        op,
                        size,
                        set,
                        d,
                        a,
                        b,
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
            }
        }
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
        fuse_term(&mut ops, *starts.last().unwrap_or(&0) as usize);
    }
    let (ops, starts) = inline_jumps(ops, &starts);
    let mut ops = ops;
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
        match ops[k] {
            Op::Jmp { n, t } => {
                let t = fix(t, &mut ops);
                ops[k] = Op::Jmp { n, t };
            }
            Op::Jcc { cc, n, t, f } => {
                let (t, f) = (fix(t, &mut ops), fix(f, &mut ops));
                ops[k] = Op::Jcc { cc, n, t, f };
            }
            Op::BccZ {
                neg,
                r,
                mask,
                n,
                t,
                f,
            } => {
                let (t, f) = (fix(t, &mut ops), fix(f, &mut ops));
                ops[k] = Op::BccZ {
                    neg,
                    r,
                    mask,
                    n,
                    t,
                    f,
                };
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
                let (t, f) = (fix(t, &mut ops), fix(f, &mut ops));
                ops[k] = Op::BccB {
                    neg,
                    a,
                    b,
                    mask,
                    n,
                    t,
                    f,
                };
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
                let (t, f) = (fix(t, &mut ops), fix(f, &mut ops));
                ops[k] = Op::Bcc {
                    cc,
                    op,
                    size,
                    res,
                    a,
                    b,
                    n,
                    t,
                    f,
                };
            }
            Op::DecBZ {
                size,
                neg,
                t,
                d,
                a,
                n,
                tt,
                f,
            } => {
                let (tt, f) = (fix(tt, &mut ops), fix(f, &mut ops));
                ops[k] = Op::DecBZ {
                    size,
                    neg,
                    t,
                    d,
                    a,
                    n,
                    tt,
                    f,
                };
            }
            Op::IncBZ {
                size,
                neg,
                t,
                d,
                a,
                n,
                tt,
                f,
            } => {
                let (tt, f) = (fix(tt, &mut ops), fix(f, &mut ops));
                ops[k] = Op::IncBZ {
                    size,
                    neg,
                    t,
                    d,
                    a,
                    n,
                    tt,
                    f,
                };
            }
            Op::AndBZ {
                size,
                neg,
                t,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (tt, f) = (fix(tt, &mut ops), fix(f, &mut ops));
                ops[k] = Op::AndBZ {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                };
            }
            Op::SubBZ {
                size,
                neg,
                t,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (tt, f) = (fix(tt, &mut ops), fix(f, &mut ops));
                ops[k] = Op::SubBZ {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                };
            }
            Op::SubBB {
                size,
                neg,
                t,
                a,
                b,
                n,
                tt,
                f,
            } => {
                let (tt, f) = (fix(tt, &mut ops), fix(f, &mut ops));
                ops[k] = Op::SubBB {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                };
            }
            _ => {}
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
        Op::Jmp { t, .. } => ok(t),
        Op::Jcc { t, f, .. }
        | Op::BccZ { t, f, .. }
        | Op::BccB { t, f, .. }
        | Op::Bcc { t, f, .. } => ok(t) && ok(f),
        Op::DecBZ { tt, f, .. }
        | Op::IncBZ { tt, f, .. }
        | Op::AndBZ { tt, f, .. }
        | Op::SubBZ { tt, f, .. }
        | Op::SubBB { tt, f, .. } => ok(tt) && ok(f),
        Op::Exit { .. } => true,
        _ => k + 1 < len,
    });
    if !valid {
        return Err(NoFlat::Shape);
    }
    Ok(Flat {
        head: starts[0],
        ops,
        consts: cx.consts,
        exits: p.exits.clone(),
    })
}

/// The block-end charge of a terminator.
fn charge(op: &mut Op) -> Option<&mut u16> {
    match op {
        Op::Jmp { n, .. }
        | Op::Jcc { n, .. }
        | Op::BccZ { n, .. }
        | Op::BccB { n, .. }
        | Op::Bcc { n, .. }
        | Op::DecBZ { n, .. }
        | Op::IncBZ { n, .. }
        | Op::AndBZ { n, .. }
        | Op::SubBZ { n, .. }
        | Op::SubBB { n, .. } => Some(n),
        _ => None,
    }
}

/// The branch targets of a block end (either may be absent).
fn targets(op: &Op) -> [Option<u16>; 2] {
    match *op {
        Op::Jmp { t, .. } => [Some(t), None],
        Op::Jcc { t, f, .. }
        | Op::BccZ { t, f, .. }
        | Op::BccB { t, f, .. }
        | Op::Bcc { t, f, .. } => [Some(t), Some(f)],
        Op::DecBZ { tt, f, .. }
        | Op::IncBZ { tt, f, .. }
        | Op::AndBZ { tt, f, .. }
        | Op::SubBZ { tt, f, .. }
        | Op::SubBB { tt, f, .. } => [Some(tt), Some(f)],
        _ => [None, None],
    }
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
                        | Op::St8 { .. }
                        | Op::St16 { .. }
                        | Op::St32 { .. }
                        | Op::Guard { .. }
                        | Op::Head { .. }
                        | Op::Clock { .. }
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
            let sub = |v: u16| if v == e { src } else { v };
            let keep = |size: u8| em & mask(size) == mask(size);
            let f2 = match fused {
                Op::AndBZ {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                } if keep(size) => Some(Op::AndBZ {
                    size,
                    neg,
                    t,
                    a: sub(a),
                    b: sub(b),
                    n,
                    tt,
                    f,
                }),
                Op::SubBZ {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                } if keep(size) => Some(Op::SubBZ {
                    size,
                    neg,
                    t,
                    a: sub(a),
                    b: sub(b),
                    n,
                    tt,
                    f,
                }),
                Op::SubBB {
                    size,
                    neg,
                    t,
                    a,
                    b,
                    n,
                    tt,
                    f,
                } if keep(size) => Some(Op::SubBB {
                    size,
                    neg,
                    t,
                    a: sub(a),
                    b: sub(b),
                    n,
                    tt,
                    f,
                }),
                _ => None,
            };
            match f2 {
                Some(f2) => {
                    ops.pop();
                    f2
                }
                None => fused,
            }
        }
        _ => fused,
    };
    ops.push(fused);
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
    halt: &AtomicBool,
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

    // One access of a `$t`: window test (re-proof on a miss), layout check, then
    // the host access, a load (`$m, $t`) or a store (`$m, $t, $v`).
    macro_rules! access {
        ($m:expr, $t:ty $(, $v:expr)?) => {{
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
            let p = host.wrapping_add(ga as usize) as *mut $t;
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
                    if (acc as u32 as u64) + head_max >= limit
                        || halt.load(Ordering::Relaxed)
                        || mem.code_epoch() != epoch
                    {
                        break head_x;
                    }
                    pc = head + 1;
                } else if let Some(&Op::Clock { max, x }) = ops.get(pc) {
                    if (acc as u32 as u64) + max as u64 >= limit
                        || halt.load(Ordering::Relaxed)
                        || mem.code_epoch() != epoch
                    {
                        break x;
                    }
                    pc += 1;
                }
            }
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
                let (x, y) = (g(r, a), g(r, b));
                let v = x.wrapping_add(y);
                fl.set(FlagOp::Add, size as u32, v, x, y);
                s(r, t, v);
                s(r, d, v);
            }
            Op::SubF { size, t, d, a, b } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x.wrapping_sub(y);
                fl.set(FlagOp::Sub, size as u32, v, x, y);
                s(r, t, v);
                s(r, d, v);
            }
            Op::AndF { size, t, d, a, b } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x & y;
                fl.set(FlagOp::Logic, size as u32, v, x, y);
                s(r, t, v);
                s(r, d, v);
            }
            Op::OrF { size, t, d, a, b } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x | y;
                fl.set(FlagOp::Logic, size as u32, v, x, y);
                s(r, t, v);
                s(r, d, v);
            }
            Op::XorF { size, t, d, a, b } => {
                let (x, y) = (g(r, a), g(r, b));
                let v = x ^ y;
                fl.set(FlagOp::Logic, size as u32, v, x, y);
                s(r, t, v);
                s(r, d, v);
            }
            Op::IncF { size, t, d, a } => {
                let x = g(r, a);
                let v = x.wrapping_add(1);
                fl.set_incdec(true, size as u32, v, x);
                s(r, t, v);
                s(r, d, v);
            }
            Op::DecF { size, t, d, a } => {
                let x = g(r, a);
                let v = x.wrapping_sub(1);
                fl.set_incdec(false, size as u32, v, x);
                s(r, t, v);
                s(r, d, v);
            }
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
                t: _,
                d,
                a,
                n,
                tt,
                f,
            } => {
                let x = g(r, a);
                let v = x.wrapping_sub(1);
                fl.set_incdec(false, size as u32, v, x);
                s(r, d, v);
                goto!(n, if (v & rmask(size) == 0) != neg { tt } else { f })
            }
            Op::IncBZ {
                size,
                neg,
                t: _,
                d,
                a,
                n,
                tt,
                f,
            } => {
                let x = g(r, a);
                let v = x.wrapping_add(1);
                fl.set_incdec(true, size as u32, v, x);
                s(r, d, v);
                goto!(n, if (v & rmask(size) == 0) != neg { tt } else { f })
            }
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
                fl.set(FlagOp::Logic, size as u32, v, x, y);
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
                fl.set(FlagOp::Sub, size as u32, v, x, y);
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
                fl.set(FlagOp::Sub, size as u32, v, x, y);
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
            Op::Cond { cc, d } => s(r, d, fl.cond(cc) as u32),
            Op::Sel { d, c, t, f } => s(r, d, if g(r, c) != 0 { g(r, t) } else { g(r, f) }),
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
        exit: stub.eip,
    })
}

#[cfg(test)]
mod tests {
    use crate::harness::{CODE, Machine};
    use crate::uop::engine::{Verdict, compile};

    /// The op kinds the inner loop of a bench shape compiles to.
    fn inner_loop_ops(s: crate::bench::Shape) -> Vec<String> {
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
        c.flat
            .ops
            .iter()
            .map(|o| {
                let d = format!("{o:?}");
                d.split([' ', '{']).next().unwrap_or_default().to_string()
            })
            .collect()
    }

    #[test]
    fn lut_loop_is_six_ops_per_iteration() {
        // movzx eax,[esi]; mov al,[ebx+eax]; mov [edi],al; add edx,eax; inc esi;
        // inc edi; dec ecx; jnz: loads fused with their extension/insert, the ADD
        // with its flag record and copy, the two INCs (flags dead) as one op, and
        // the DEC with its record and the forwarded JNZ. The region also holds the
        // outer loop (`dec ebp; jnz`, then its block before the head, which runs
        // the movs and one inner body before `jnz top`); that cycle avoids the
        // head, so its budget check sits in its own block, off the inner loop.
        assert_eq!(
            inner_loop_ops(crate::bench::uop_lut(0x10000)),
            [
                "Guard", "Guard", "Guard", "Guard", "Guard", "Head", "Ld8", "Ld8Ins", "St8",
                "AddF", "Add2", "DecBZ", "DecBZ", "Clock", "Mov", "Mov", "Mov", "Ld8", "Ld8Ins",
                "St8", "AddF", "Mov", "Mov", "IncDec", "Mov", "BccZ", "Exit"
            ]
        );
    }

    #[test]
    fn h3shadow_test_folds_the_extension_into_the_branch() {
        // mov al,[esi]; test al,3; jz: the zero-extension of AL the TEST's 8-bit
        // record reads is folded into the fused test-and-branch. The outer loop's
        // block before the head enters the inner body at either arm; its budget
        // check is in that block, not in the arms.
        assert_eq!(
            inner_loop_ops(crate::bench::uop_h3shadow(0x10000)),
            [
                "Guard", "Guard", "Guard", "Guard", "Head", "Ld8Ins", "AndBZ", "Ld8", "Ld8Ins",
                "St8", "Add2", "DecBZ", "Add2", "DecBZ", "DecBZ", "Clock", "Mov", "Mov", "Mov",
                "Ld8Ins", "AndBZ", "Exit"
            ]
        );
    }
}
