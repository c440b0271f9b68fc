//! The micro-op IR: a small register language over one loop.
//!
//! - Virtual registers 0-7 *are* the guest registers (EAX..EDI by x86 number), so
//!   entering and leaving a program needs no register copies; 8 and up are
//!   temporaries, dead at every exit.
//! - All arithmetic is 32-bit. Partial-register reads and writes are explicit
//!   ([`Inst::Ext`], [`Inst::Ins`]), so the passes never need to know about lanes.
//! - Memory operands are address expressions ([`Addr`]) with a window slot: an
//!   access is fast when its address lies in the window its slot was guarded for
//!   ([`Inst::Guard`]); otherwise it leaves through its exit, before any effect.
//! - Flags are the interpreter's lazy record ([`Inst::Flags`] writes it, as the
//!   handler would); a conditional branch either reads the record ([`Term::Jcc`])
//!   or, once forwarded, compares values directly ([`Term::Bcc`]).
//! - Every exit names the exact guest EIP to resume at and the pacing at that point
//!   (instructions and interpreter blocks the program has retired in the current
//!   iteration), so the interpreter continues exactly where the program left off.

use crate::cpu::FlagOp;
use crate::cpu::LazyFlags;
use std::fmt;

pub type VReg = u16;

/// Virtual registers below this are the guest registers.
pub const NGUEST: VReg = 8;

/// An operand: a virtual register or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    R(VReg),
    K(u32),
}

impl Val {
    pub fn reg(self) -> Option<VReg> {
        match self {
            Val::R(r) => Some(r),
            Val::K(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alu {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Sar,
    Mul,
}

impl Alu {
    /// The 32-bit result; shift counts are taken mod 32 like the host does.
    pub fn eval(self, a: u32, b: u32) -> u32 {
        match self {
            Alu::Add => a.wrapping_add(b),
            Alu::Sub => a.wrapping_sub(b),
            Alu::And => a & b,
            Alu::Or => a | b,
            Alu::Xor => a ^ b,
            Alu::Shl => a.wrapping_shl(b),
            Alu::Shr => a.wrapping_shr(b),
            Alu::Sar => (a as i32).wrapping_shr(b) as u32,
            Alu::Mul => a.wrapping_mul(b),
        }
    }
}

/// An instruction the interpreter computes with a helper that reads or writes
/// the flag record in its own way (eager bits, kept flags, a carry-in): the IR
/// runs that same helper ([`Fx::run`]), so the record it leaves is the
/// interpreter's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fx {
    /// Shifts and rotates of `a` by `b` (masked to 5 bits). A masked count of 0
    /// leaves the value and the record as they are.
    Shl,
    Shr,
    Sar,
    Rol,
    Ror,
    Rcl,
    Rcr,
    /// Two- and three-operand IMUL: the low half of the signed product.
    Imul,
    /// One-operand MUL / IMUL: the upper half of the product (the lower half is
    /// an [`Alu::Mul`]); CF = OF = upper half significant.
    MulHi,
    ImulHi,
    /// `a + b + CF` / `a - b - CF`, with the ADC/SBB record.
    Adc,
    Sbb,
    /// BT: CF = bit `b` (masked to the width) of `a`, the rest kept; the result is `a`.
    Bt,
}

impl Fx {
    /// Whether the result (not only the record) depends on the record before it.
    pub fn reads_cf(self) -> bool {
        matches!(self, Fx::Rcl | Fx::Rcr | Fx::Adc | Fx::Sbb)
    }

    /// Whether the record written may keep flags of the one it replaces (so that
    /// record is still read): multiplies and BT keep some flags, rotates keep
    /// SF ZF AF PF, and a shift whose count may mask to 0 keeps everything.
    pub fn keeps_flags(self, count: Val) -> bool {
        match self {
            Fx::Shl | Fx::Shr | Fx::Sar => !matches!(count, Val::K(c) if c & 31 != 0),
            Fx::Adc | Fx::Sbb => false,
            _ => true,
        }
    }

    /// The result for `size`-bit operands; with `set`, also writes the record as
    /// the interpreter's handler does.
    #[inline(always)]
    pub fn run(self, fl: &mut LazyFlags, size: u32, set: bool, a: u32, b: u32) -> u32 {
        use crate::ops::shift as sh;
        let m = crate::cpu::flags::mask(size);
        let mut f = *fl;
        let r = match self {
            Fx::Shl | Fx::Shr | Fx::Sar | Fx::Rol | Fx::Ror | Fx::Rcl | Fx::Rcr => {
                let c = b & 31;
                if c == 0 {
                    return a & m;
                }
                let op = match self {
                    Fx::Shl => sh::SHL,
                    Fx::Shr => sh::SHR,
                    Fx::Sar => sh::SAR,
                    Fx::Rol => sh::ROL,
                    Fx::Ror => sh::ROR,
                    Fx::Rcl => sh::RCL,
                    _ => sh::RCR,
                };
                let (r, bits) = sh::shift_eager(op, size, &f, a & m, c);
                f.set_eager(bits);
                r
            }
            Fx::Imul => crate::ops::muldiv::mul_eager(&mut f, true, size, a, b) as u32 & m,
            Fx::MulHi | Fx::ImulHi => {
                let p = crate::ops::muldiv::mul_eager(&mut f, self == Fx::ImulHi, size, a, b);
                (p >> size) as u32 & m
            }
            Fx::Adc | Fx::Sbb => {
                use crate::ops::alu::{ADC, SBB, alu};
                let r = match (self == Fx::Adc, size) {
                    (true, 8) => alu::<ADC, 8>(&mut f, a, b),
                    (true, 16) => alu::<ADC, 16>(&mut f, a, b),
                    (true, _) => alu::<ADC, 32>(&mut f, a, b),
                    (false, 8) => alu::<SBB, 8>(&mut f, a, b),
                    (false, 16) => alu::<SBB, 16>(&mut f, a, b),
                    (false, _) => alu::<SBB, 32>(&mut f, a, b),
                };
                r & m
            }
            Fx::Bt => {
                crate::ops::bits::bt_eager(&mut f, a, b & (size - 1));
                a & m
            }
        };
        if set {
            *fl = f;
        }
        r
    }
}

/// `base + (index << scale) + disp`, 32-bit wrapping, flat segment (the lowering
/// declines segment overrides with a non-zero base).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub base: Option<VReg>,
    pub index: Option<VReg>,
    pub scale: u8,
    pub disp: u32,
}

impl Addr {
    pub fn regs(&self) -> impl Iterator<Item = VReg> {
        self.base.into_iter().chain(self.index)
    }

    pub fn eval(&self, r: impl Fn(VReg) -> u32) -> u32 {
        let b = self.base.map_or(0, &r);
        let i = self.index.map_or(0, &r);
        b.wrapping_add(i << (self.scale & 3))
            .wrapping_add(self.disp)
    }
}

/// Window slot of an access that has not been given a hoisted guard: the engine
/// proves the access by itself (the guard-hoisting pass replaces it).
pub const NO_WIN: u8 = u8::MAX;

/// Index into [`Program::exits`].
pub type ExitId = u16;

/// Most guest addresses one multiway jump dispatches to inside a program.
pub const MAX_CASES: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inst {
    Mov {
        d: VReg,
        s: Val,
    },
    Alu {
        op: Alu,
        d: VReg,
        a: Val,
        b: Val,
    },
    /// `d = low `bits` of s`, zero- or sign-extended; `shift` first moves the lane
    /// down (AH is `shift: 8, bits: 8`).
    Ext {
        d: VReg,
        s: Val,
        shift: u8,
        bits: u8,
        signed: bool,
    },
    /// Partial write: bits `[shift, shift + bits)` of `d` become the low bits of `s`.
    Ins {
        d: VReg,
        s: Val,
        shift: u8,
        bits: u8,
    },
    /// `d = zero-extended load of `size` bits`; leaves through `exit` (which resumes
    /// at this instruction) when the address is outside window `win` and cannot be
    /// re-proved, or faults.
    Load {
        d: VReg,
        size: u8,
        addr: Addr,
        win: u8,
        exit: ExitId,
    },
    /// Stores the low `size` bits of `s`. A written window never covers a page that
    /// holds decoded code, so a fast store cannot be self-modifying code.
    Store {
        size: u8,
        addr: Addr,
        s: Val,
        win: u8,
        exit: ExitId,
    },
    /// Writes the lazy flag record as the interpreter's handler would: `res`, `a`,
    /// `b` truncated to `size`. `Inc`/`Dec` keep CF from the record they replace.
    Flags {
        op: FlagOp,
        size: u8,
        res: Val,
        a: Val,
        b: Val,
    },
    /// Proves window `win` for `[addr, addr + len)` (the page of `addr` when the
    /// lowering cannot bound the stream); `write` also requires that no page in it
    /// holds decoded code. When it cannot, the window starts empty and the first
    /// access through it proves its own page: a stream the loop may never touch
    /// (a side path's) must not keep the whole loop out.
    Guard {
        win: u8,
        addr: Addr,
        len: u32,
        write: bool,
    },
    /// Budget check: leaves through `exit` unless more than `insns` instructions of
    /// budget remain, so no interpreter block boundary before the next check could
    /// have stopped the interpreter. Also the point where a pending halt or a code
    /// write by another thread is noticed.
    Clock {
        insns: u32,
        exit: ExitId,
    },
    /// `d = op(a, b)` at `size` bits through the interpreter's helper ([`Fx`]);
    /// with `set`, the flag record becomes what that helper leaves (the flag
    /// liveness pass clears `set` when nothing reads it).
    Fx {
        op: Fx,
        size: u8,
        set: bool,
        d: VReg,
        a: Val,
        b: Val,
    },
    /// `d` = 1 when x86 condition `cc` holds for the flag record, else 0.
    Cond {
        d: VReg,
        cc: u8,
    },
    /// `d = c != 0 ? t : f`.
    Sel {
        d: VReg,
        c: Val,
        t: Val,
        f: Val,
    },
    /// Leaves through `exit` unless `a == k`: a guest-chosen control transfer
    /// (the address a RET pops) that the program followed at lowering time must
    /// still go where the program goes.
    Check {
        a: Val,
        k: u32,
        exit: ExitId,
    },
}

impl Inst {
    /// The virtual register this instruction writes, if any.
    pub fn def(&self) -> Option<VReg> {
        match *self {
            Inst::Mov { d, .. }
            | Inst::Alu { d, .. }
            | Inst::Ext { d, .. }
            | Inst::Ins { d, .. }
            | Inst::Load { d, .. }
            | Inst::Fx { d, .. }
            | Inst::Cond { d, .. }
            | Inst::Sel { d, .. } => Some(d),
            _ => None,
        }
    }

    /// Virtual registers read (an `Ins` reads its destination's other bits).
    pub fn uses(&self) -> Vec<VReg> {
        let mut u = Vec::new();
        let mut v = |x: Val| {
            if let Val::R(r) = x {
                u.push(r)
            }
        };
        match *self {
            Inst::Mov { s, .. } | Inst::Ext { s, .. } | Inst::Check { a: s, .. } => v(s),
            Inst::Alu { a, b, .. } | Inst::Fx { a, b, .. } => {
                v(a);
                v(b)
            }
            Inst::Sel { c, t, f, .. } => {
                v(c);
                v(t);
                v(f)
            }
            Inst::Ins { d, s, .. } => {
                v(s);
                v(Val::R(d))
            }
            Inst::Flags { res, a, b, .. } => {
                v(res);
                v(a);
                v(b)
            }
            Inst::Load { addr, .. } | Inst::Guard { addr, .. } => {
                addr.regs().for_each(|r| v(Val::R(r)));
            }
            Inst::Store { addr, s, .. } => {
                addr.regs().for_each(|r| v(Val::R(r)));
                v(s)
            }
            Inst::Clock { .. } | Inst::Cond { .. } => {}
        }
        u
    }

    /// Rewrites every read operand through `f` (addresses' registers too, as long
    /// as `f` maps a register to a register).
    pub fn map_uses(&mut self, f: &mut impl FnMut(Val) -> Val) {
        let reg = |f: &mut dyn FnMut(Val) -> Val, r: VReg| match f(Val::R(r)) {
            Val::R(n) => n,
            Val::K(_) => r,
        };
        let addr = |f: &mut dyn FnMut(Val) -> Val, a: &mut Addr| {
            a.base = a.base.map(|r| reg(f, r));
            a.index = a.index.map(|r| reg(f, r));
        };
        match self {
            Inst::Mov { s, .. }
            | Inst::Ext { s, .. }
            | Inst::Ins { s, .. }
            | Inst::Check { a: s, .. } => *s = f(*s),
            Inst::Alu { a, b, .. } | Inst::Fx { a, b, .. } => {
                *a = f(*a);
                *b = f(*b)
            }
            Inst::Sel { c, t, f: e, .. } => {
                *c = f(*c);
                *t = f(*t);
                *e = f(*e)
            }
            Inst::Flags { res, a, b, .. } => {
                *res = f(*res);
                *a = f(*a);
                *b = f(*b)
            }
            Inst::Load { addr: x, .. } | Inst::Guard { addr: x, .. } => addr(f, x),
            Inst::Store { addr: x, s, .. } => {
                addr(f, x);
                *s = f(*s)
            }
            Inst::Clock { .. } | Inst::Cond { .. } => {}
        }
    }

    /// Whether this instruction reads the flag record (besides an exit, which
    /// reads all of it).
    pub fn reads_flags(&self) -> bool {
        match *self {
            Inst::Cond { .. } => true,
            Inst::Flags { op, .. } => matches!(op, FlagOp::Inc | FlagOp::Dec),
            Inst::Fx { op, set, b, .. } => op.reads_cf() || (set && op.keeps_flags(b)),
            _ => false,
        }
    }

    /// Whether this instruction writes the flag record.
    pub fn writes_flags(&self) -> bool {
        matches!(self, Inst::Flags { .. } | Inst::Fx { set: true, .. })
    }

    /// No effect besides its definition: removable when that is dead.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            Inst::Mov { .. }
                | Inst::Alu { .. }
                | Inst::Ext { .. }
                | Inst::Ins { .. }
                | Inst::Sel { .. }
        ) || matches!(self, Inst::Fx { op, set: false, .. } if !op.reads_cf())
    }

    /// Exits this instruction can leave through.
    pub fn exit(&self) -> Option<ExitId> {
        match *self {
            Inst::Load { exit, .. }
            | Inst::Store { exit, .. }
            | Inst::Clock { exit, .. }
            | Inst::Check { exit, .. } => Some(exit),
            _ => None,
        }
    }
}

/// Where a branch goes: an IR block of the loop (a branch to a block at or
/// before its source, such as block 0, the loop head, is a back edge) or an exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Block(u16),
    Exit(ExitId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Jump(Target),
    /// Branches on x86 condition `cc` (0 = O .. 15 = G) of the current flag record.
    Jcc {
        cc: u8,
        t: Target,
        f: Target,
    },
    /// A forwarded compare-and-branch: the condition of the record
    /// `{op, size, res, a, b}` evaluated directly, without reading or writing the
    /// flag record. `op` is `Sub` (CMP/SUB), `Logic` (TEST/AND/...) or `Add`.
    Bcc {
        cc: u8,
        op: FlagOp,
        size: u8,
        res: Val,
        a: Val,
        b: Val,
        t: Target,
        f: Target,
    },
    /// A multiway jump (`jmp [table+r*4]`): goes to the first `n` cases' target
    /// whose guest address equals `v`; any other address leaves through `miss`,
    /// which resumes at the JMP itself with the instructions of its block before
    /// it retired (the block is not charged, as at an access's exit).
    Switch {
        v: Val,
        cases: [(u32, Target); MAX_CASES],
        n: u8,
        miss: ExitId,
    },
}

impl Term {
    pub fn targets(&self) -> Vec<Target> {
        match *self {
            Term::Jump(t) => vec![t],
            Term::Jcc { t, f, .. } | Term::Bcc { t, f, .. } => vec![t, f],
            // The miss is an exit too (it observes every guest register and the
            // record), so liveness sees it among the targets.
            Term::Switch { cases, n, miss, .. } => cases[..n as usize]
                .iter()
                .map(|c| c.1)
                .chain([Target::Exit(miss)])
                .collect(),
        }
    }

    pub fn uses(&self) -> Vec<VReg> {
        match *self {
            Term::Bcc { res, a, b, .. } => [res, a, b].iter().filter_map(|v| v.reg()).collect(),
            Term::Switch { v, .. } => v.reg().into_iter().collect(),
            _ => Vec::new(),
        }
    }

    pub fn map_uses(&mut self, f: &mut impl FnMut(Val) -> Val) {
        match self {
            Term::Bcc { res, a, b, .. } => {
                *res = f(*res);
                *a = f(*a);
                *b = f(*b);
            }
            Term::Switch { v, .. } => *v = f(*v),
            _ => {}
        }
    }
}

/// One interpreter block's worth of guest code: the interpreter would enter a
/// block at `eip` and retire `insns` instructions in it before its terminator
/// transfers control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub eip: u32,
    pub insns: u32,
    pub body: Vec<Inst>,
    pub term: Term,
}

/// How the interpreter continues after an exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitStub {
    /// Guest EIP to resume at.
    pub eip: u32,
    /// Instructions of the current interpreter block retired before `eip` (0 on a
    /// branch edge). The interpreter counts that block when it re-enters at `eip`,
    /// so the program charges instructions but not the partial block.
    pub insns: u32,
}

/// A lowered loop. `pre` runs once per entry (guards, hoisted invariants); then
/// `blocks[0]` (the loop head at guest `head`) and its successors run until an
/// exit. Blocks are in guest address order from the head (blocks before it last)
/// and every edge except back edges (to a block at or before their source) goes
/// forward, so the body is acyclic apart from the back edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub head: u32,
    pub pre: Vec<Inst>,
    pub blocks: Vec<Block>,
    pub exits: Vec<ExitStub>,
    /// Virtual registers in use (guest registers included).
    pub nvregs: VReg,
    /// Window slots in use.
    pub nwin: u8,
    /// Guest bytes the program was lowered from, as `(start, len)` runs: a write to
    /// any of them retires the program.
    pub code: Vec<(u32, u32)>,
}

impl Program {
    pub fn exit_to(&mut self, eip: u32, insns: u32) -> ExitId {
        let s = ExitStub { eip, insns };
        if let Some(k) = self.exits.iter().position(|e| *e == s) {
            return k as ExitId;
        }
        self.exits.push(s);
        (self.exits.len() - 1) as ExitId
    }

    pub fn temp(&mut self) -> VReg {
        self.nvregs += 1;
        self.nvregs - 1
    }

    /// IR instruction count (preheader and body, terminators included).
    pub fn len(&self) -> usize {
        self.pre.len() + self.blocks.iter().map(|b| b.body.len() + 1).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Successor block indices of block `b` (exits omitted).
    pub fn succs(&self, b: usize) -> Vec<usize> {
        self.blocks[b]
            .term
            .targets()
            .into_iter()
            .filter_map(|t| match t {
                Target::Block(k) => Some(k as usize),
                Target::Exit(_) => None,
            })
            .collect()
    }
}

const REG_NAMES: [&str; 8] = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"];
const CC_NAMES: [&str; 16] = [
    "o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
];

pub fn cc_name(cc: u8) -> &'static str {
    CC_NAMES[(cc & 15) as usize]
}

struct R(VReg);
impl fmt::Display for R {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.0 < NGUEST {
            f.write_str(REG_NAMES[self.0 as usize])
        } else {
            write!(f, "t{}", self.0 - NGUEST)
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Val::R(r) => write!(f, "{}", R(r)),
            Val::K(k) => write!(f, "{k:#x}"),
        }
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(b) = self.base {
            parts.push(R(b).to_string());
        }
        if let Some(i) = self.index {
            parts.push(if self.scale == 0 {
                R(i).to_string()
            } else {
                format!("{}*{}", R(i), 1 << self.scale)
            });
        }
        if self.disp != 0 || parts.is_empty() {
            parts.push(format!("{:#x}", self.disp));
        }
        write!(f, "[{}]", parts.join("+"))
    }
}

fn win(w: u8) -> String {
    if w == NO_WIN {
        String::new()
    } else {
        format!(" w{w}")
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Inst::Mov { d, s } => write!(f, "{} = {s}", R(d)),
            Inst::Alu { op, d, a, b } => {
                write!(
                    f,
                    "{} = {} {a}, {b}",
                    R(d),
                    format!("{op:?}").to_lowercase()
                )
            }
            Inst::Ext {
                d,
                s,
                shift,
                bits,
                signed,
            } => write!(
                f,
                "{} = {}{bits} {s}{}",
                R(d),
                if signed { "sx" } else { "zx" },
                if shift != 0 {
                    format!(">>{shift}")
                } else {
                    String::new()
                }
            ),
            Inst::Ins { d, s, shift, bits } => {
                write!(f, "{}[{shift}..{}] = {s}", R(d), shift + bits)
            }
            Inst::Load {
                d,
                size,
                addr,
                win: w,
                exit,
            } => write!(f, "{} = load{size} {addr}{} !x{exit}", R(d), win(w)),
            Inst::Store {
                size,
                addr,
                s,
                win: w,
                exit,
            } => write!(f, "store{size} {addr}{}, {s} !x{exit}", win(w)),
            Inst::Flags {
                op,
                size,
                res,
                a,
                b,
            } => write!(
                f,
                "flags {}{size} {res}, {a}, {b}",
                format!("{op:?}").to_lowercase()
            ),
            Inst::Guard {
                win: w,
                addr,
                len,
                write,
            } => write!(
                f,
                "guard{} w{w} {addr} len {len:#x}",
                if write { "w" } else { "r" }
            ),
            Inst::Clock { insns, exit } => write!(f, "clock {insns} !x{exit}"),
            Inst::Fx {
                op,
                size,
                set,
                d,
                a,
                b,
            } => write!(
                f,
                "{} = {}{size}{} {a}, {b}",
                R(d),
                format!("{op:?}").to_lowercase(),
                if set { " +flags" } else { "" }
            ),
            Inst::Cond { d, cc } => write!(f, "{} = cond {}", R(d), cc_name(cc)),
            Inst::Sel { d, c, t, f: e } => write!(f, "{} = {c} ? {t} : {e}", R(d)),
            Inst::Check { a, k, exit } => write!(f, "check {a} == {k:#x} !x{exit}"),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Target::Block(b) => write!(f, "b{b}"),
            Target::Exit(x) => write!(f, "x{x}"),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Term::Jump(t) => write!(f, "jmp {t}"),
            Term::Jcc { cc, t, f: e } => write!(f, "j{} {t}, {e}", cc_name(cc)),
            Term::Switch { v, cases, n, miss } => {
                write!(f, "switch {v}")?;
                for (a, t) in &cases[..n as usize] {
                    write!(f, " {a:#x}:{t}")?;
                }
                write!(f, " else !x{miss}")
            }
            Term::Bcc {
                cc,
                op,
                size,
                res,
                a,
                b,
                t,
                f: e,
            } => write!(
                f,
                "b{} {}{size} {res}, {a}, {b} ? {t} : {e}",
                cc_name(cc),
                format!("{op:?}").to_lowercase()
            ),
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(f, "pre:")?;
        for i in &self.pre {
            writeln!(f, "  {i}")?;
        }
        for (k, b) in self.blocks.iter().enumerate() {
            writeln!(f, "b{k} @{:#x} ({} insns):", b.eip, b.insns)?;
            for i in &b.body {
                writeln!(f, "  {i}")?;
            }
            writeln!(f, "  {}", b.term)?;
        }
        for (k, x) in self.exits.iter().enumerate() {
            writeln!(f, "x{k}: eip {:#x} +{}", x.eip, x.insns)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addr_eval_wraps_and_scales() {
        let a = Addr {
            base: Some(6),
            index: Some(0),
            scale: 2,
            disp: 0xffff_fffc,
        };
        let regs = |r: VReg| match r {
            6 => 0x100,
            0 => 3,
            _ => 0,
        };
        assert_eq!(a.eval(regs), 0x100 + 12 - 4);
        assert_eq!(a.to_string(), "[esi+eax*4+0xfffffffc]");
    }

    #[test]
    fn uses_and_defs_include_partial_writes() {
        let i = Inst::Ins {
            d: 0,
            s: Val::R(9),
            shift: 8,
            bits: 8,
        };
        assert_eq!(i.def(), Some(0));
        assert_eq!(i.uses(), vec![9, 0]);
        assert!(i.is_pure());
        let s = Inst::Store {
            size: 8,
            addr: Addr {
                base: Some(7),
                index: None,
                scale: 0,
                disp: 0,
            },
            s: Val::R(8),
            win: NO_WIN,
            exit: 0,
        };
        assert_eq!(s.def(), None);
        assert_eq!(s.uses(), vec![7, 8]);
        assert!(!s.is_pure());
    }

    #[test]
    fn alu_eval_matches_x86_32bit_semantics() {
        assert_eq!(Alu::Sar.eval(0x8000_0000, 4), 0xf800_0000);
        assert_eq!(Alu::Shr.eval(0x8000_0000, 4), 0x0800_0000);
        assert_eq!(Alu::Sub.eval(1, 2), u32::MAX);
        assert_eq!(Alu::Mul.eval(0x1_0001, 0x1_0001), 0x0002_0001);
    }

    #[test]
    fn exit_stubs_are_shared() {
        let mut p = Program {
            head: 0x1000,
            pre: vec![],
            blocks: vec![],
            exits: vec![],
            nvregs: NGUEST,
            nwin: 0,
            code: vec![],
        };
        let a = p.exit_to(0x1004, 2);
        let b = p.exit_to(0x1004, 2);
        let c = p.exit_to(0x1004, 0);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(p.temp(), NGUEST);
        assert_eq!(p.temp(), NGUEST + 1);
    }
}
