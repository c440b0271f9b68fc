//! Which memory accesses of a block share one permission test.
//!
//! Every access of compiled code tests its page before touching it (readable or
//! writable, no guard, no decoded code for a store; `Gen::fast_or`), about eight
//! host instructions each. Compiled C spends most of its accesses on a few
//! addresses per block: a stack frame (`[esp+0x28]`, `[esp+0x2c]`, pushes and
//! pops), a structure through one pointer, neighbouring globals. Here the accesses
//! of one block whose addresses differ from each other by a constant known at
//! compile time form a *group*: the first access of the group (its leader) tests
//! every byte the whole group touches, for every kind of access in it, and the
//! others test nothing.
//!
//! Exactness: the test covers the same permission bits as each access's own test
//! would, over a span of at most a page, so looking up the two pages at its ends
//! covers it. When it fails, the leader takes its slow path, the same side exit
//! its own test would take (`Gen::side_exit`): the interpreter runs the block from
//! the leader on, access by access, and faults (or stores into code) exactly where
//! it would have. Between the leader and the others nothing can change a page's
//! permissions: no helper runs (an `Interp` step ends every group), and guest
//! stores do not change the table.
//!
//! Addresses are followed symbolically: each register holds a version (a value
//! the block cannot relate to another) plus a constant, and MOV r,r, ADD/SUB r,imm,
//! INC, DEC, LEA r,[r+disp], PUSH and POP move the constant without making a new
//! version. Two accesses group when their base and index registers have the same
//! versions, with the same scale and segment.

use super::{ADD, CMP, DEC, INC, Ins, Mem, Opnd, Plan, SUB, TEST, Term};
use crate::cpu::{ESP, seg};
use crate::mem::perm;

/// How one access tests its page permissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// Its own test.
    Alone,
    /// The leader of a group: tests `[addr + lo, addr + hi)` (its own address plus
    /// offsets) for the permission bits under `mask` being `want`.
    Lead {
        lo: i32,
        hi: i32,
        mask: u8,
        want: u8,
    },
    /// Covered by its group's leader: no test.
    Covered,
}

/// One access of a block, in the order code generation makes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Access {
    /// The instruction's index in the block.
    pub k: u32,
    pub bits: u32,
    pub store: bool,
    pub check: Check,
}

/// A register's symbolic value: `version + off`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Sym {
    ver: u32,
    off: u32,
}

/// What an address is relative to: base and index versions (`NONE` for none),
/// scale, segment slot.
type Key = (u32, u32, u8, u8);
const NONE: u32 = u32::MAX;

struct Syms {
    r: [Sym; 8],
    next: u32,
}

impl Syms {
    fn fresh(&mut self, r: u8) {
        self.r[(r & 7) as usize] = Sym {
            ver: self.next,
            off: 0,
        };
        self.next += 1;
    }

    fn add(&mut self, r: u8, d: u32) {
        let s = &mut self.r[(r & 7) as usize];
        s.off = s.off.wrapping_add(d);
    }

    /// The key and offset of a memory operand's address; None for 16-bit
    /// addressing (its wrap makes offsets not add).
    fn mem(&self, m: &Mem) -> Option<(Key, u32)> {
        if m.amask != u32::MAX {
            return None;
        }
        let (bv, bo) = if m.base < 8 {
            let s = self.r[m.base as usize];
            (s.ver, s.off)
        } else {
            (NONE, 0)
        };
        let (iv, io, sc) = if m.index < 8 {
            let s = self.r[m.index as usize];
            (s.ver, s.off << (m.scale & 3), m.scale & 3)
        } else {
            (NONE, 0, 0)
        };
        Some((
            (bv, iv, sc, m.seg & 7),
            m.disp.wrapping_add(bo).wrapping_add(io),
        ))
    }

    /// `[esp + d]` in the stack segment.
    fn stack(&self, d: u32) -> (Key, u32) {
        let s = self.r[ESP];
        ((s.ver, NONE, 0, seg::SS), s.off.wrapping_add(d))
    }
}

/// An access before grouping.
struct Raw {
    k: u32,
    at: Option<(Key, u32)>,
    bits: u32,
    store: bool,
    /// No group reaches across this access (a helper ran just before it).
    barrier: bool,
}

/// The accesses of plan `p`, each with how it tests its page.
pub(super) fn plan_accesses(p: &Plan) -> Vec<Access> {
    let mut st = Syms {
        r: std::array::from_fn(|i| Sym {
            ver: i as u32,
            off: 0,
        }),
        next: 8,
    };
    let mut raw: Vec<Raw> = Vec::new();
    let mut barrier = false;
    let acc = |raw: &mut Vec<Raw>, barrier: &mut bool, k, at, bits, store| {
        raw.push(Raw {
            k,
            at,
            bits,
            store,
            barrier: std::mem::take(barrier),
        })
    };
    let writes_back = |op: u8| op != CMP && op != TEST;
    for (k, s) in p.steps.iter().enumerate() {
        let k = k as u32;
        let b = &mut barrier;
        match s.ins {
            Ins::Mov { d, s } => {
                match (d, s) {
                    (Opnd::R(_), Opnd::M(m)) => acc(&mut raw, b, k, st.mem(&m), 32, false),
                    (Opnd::M(m), _) => acc(&mut raw, b, k, st.mem(&m), 32, true),
                    _ => {}
                }
                match (d, s) {
                    (Opnd::R(r), Opnd::R(q)) => st.r[(r & 7) as usize] = st.r[(q & 7) as usize],
                    (Opnd::R(r), _) => st.fresh(r),
                    _ => {}
                }
            }
            Ins::Alu { op, d, s } => {
                match (d, s) {
                    (Opnd::R(_), Opnd::M(m)) => acc(&mut raw, b, k, st.mem(&m), 32, false),
                    (Opnd::M(m), _) => {
                        let at = st.mem(&m);
                        acc(&mut raw, b, k, at, 32, false);
                        if writes_back(op) {
                            acc(&mut raw, b, k, at, 32, true);
                        }
                    }
                    _ => {}
                }
                if let Opnd::R(r) = d {
                    match (op, s) {
                        (ADD, Opnd::I(i)) => st.add(r, i),
                        (SUB, Opnd::I(i)) => st.add(r, i.wrapping_neg()),
                        _ if writes_back(op) => st.fresh(r),
                        _ => {}
                    }
                }
            }
            Ins::Unary { op, r } => match op {
                INC => st.add(r, 1),
                DEC => st.add(r, u32::MAX),
                _ => st.fresh(r),
            },
            Ins::Lea { d, m } => {
                if m.amask == u32::MAX && m.index >= 8 && m.base < 8 {
                    let mut s = st.r[m.base as usize];
                    s.off = s.off.wrapping_add(m.disp);
                    st.r[(d & 7) as usize] = s;
                } else {
                    st.fresh(d);
                }
            }
            Ins::Movx { d, s, bits, .. } => {
                if let Opnd::M(m) = s {
                    acc(&mut raw, b, k, st.mem(&m), bits, false);
                }
                st.fresh(d);
            }
            Ins::Push(_) => {
                acc(
                    &mut raw,
                    b,
                    k,
                    Some(st.stack(4u32.wrapping_neg())),
                    32,
                    true,
                );
                st.add(ESP as u8, 4u32.wrapping_neg());
            }
            Ins::Pop(r) => {
                acc(&mut raw, b, k, Some(st.stack(0)), 32, false);
                st.add(ESP as u8, 4);
                st.fresh(r);
            }
            Ins::MovN { d, s, bits } => match (d, s) {
                (Opnd::R8(r) | Opnd::R16(r), Opnd::M(m)) => {
                    acc(&mut raw, b, k, st.mem(&m), bits, false);
                    st.fresh(r & narrow_mask(bits));
                }
                (Opnd::R8(r) | Opnd::R16(r), _) => st.fresh(r & narrow_mask(bits)),
                (Opnd::M(m), _) => acc(&mut raw, b, k, st.mem(&m), bits, true),
                _ => {}
            },
            Ins::AluN { op, d, s, bits } => match d {
                Opnd::R8(r) | Opnd::R16(r) => {
                    if let Opnd::M(m) = s {
                        acc(&mut raw, b, k, st.mem(&m), bits, false);
                    }
                    if writes_back(op) {
                        st.fresh(r & narrow_mask(bits));
                    }
                }
                Opnd::M(m) => {
                    let at = st.mem(&m);
                    acc(&mut raw, b, k, at, bits, false);
                    if writes_back(op) {
                        acc(&mut raw, b, k, at, bits, true);
                    }
                }
                _ => {}
            },
            Ins::Setcc { d, .. } => match d {
                Opnd::M(m) => acc(&mut raw, b, k, st.mem(&m), 8, true),
                Opnd::R8(r) => st.fresh(r & 3),
                _ => {}
            },
            Ins::Cmov { d, .. } => st.fresh(d),
            Ins::Shift { r, .. } | Ins::ShiftCl { r, .. } => st.fresh(r),
            Ins::Imul { d, s, .. } => {
                if let Opnd::M(m) = s {
                    acc(&mut raw, b, k, st.mem(&m), 32, false);
                }
                st.fresh(d);
            }
            Ins::Mul(s) | Ins::Div(s) => {
                if let Opnd::M(m) = s {
                    acc(&mut raw, b, k, st.mem(&m), 32, false);
                }
                st.fresh(crate::cpu::EAX as u8);
                st.fresh(crate::cpu::EDX as u8);
            }
            Ins::Interp { .. } => {
                for r in 0..8 {
                    st.fresh(r);
                }
                barrier = true;
            }
            Ins::Nop => {}
        }
    }
    let k = p.term_k;
    let b = &mut barrier;
    let push = Some(st.stack(4u32.wrapping_neg()));
    match p.term {
        Term::Goto(_) | Term::Jcc { .. } => {}
        Term::Call { .. } => acc(&mut raw, b, k, push, 32, true),
        Term::Jind(s) => {
            if let Opnd::M(m) = s {
                acc(&mut raw, b, k, st.mem(&m), 32, false);
            }
        }
        Term::CallInd { s, .. } => {
            if let Opnd::M(m) = s {
                acc(&mut raw, b, k, st.mem(&m), 32, false);
            }
            acc(&mut raw, b, k, push, 32, true);
        }
        Term::Ret { .. } => acc(&mut raw, b, k, Some(st.stack(0)), 32, false),
    }
    group(&raw)
}

/// A group being formed: its leader (index in the raw list), the leader's
/// address offset, the span relative to it and the permission test.
struct Group {
    lead: usize,
    at: u32,
    lo: i64,
    hi: i64,
    mask: u8,
    want: u8,
    n: usize,
}

/// An access's own permission test: the bits under the mask must be the wanted ones
/// (the accessors' fast-path test, `GuestMemory::fast_page`).
pub(super) fn test_of(store: bool) -> (u8, u8) {
    if store {
        (perm::WRITE | perm::CODE | perm::GUARD, perm::WRITE)
    } else {
        (perm::READ | perm::GUARD, perm::READ)
    }
}

fn group(raw: &[Raw]) -> Vec<Access> {
    let page = crate::mem::PAGE_SIZE as i64;
    let mut groups: Vec<Group> = Vec::new();
    let mut of: Vec<Option<usize>> = vec![None; raw.len()];
    // The open group of each key.
    let mut open: Vec<(Key, usize)> = Vec::new();
    for (i, a) in raw.iter().enumerate() {
        if a.barrier {
            open.clear();
        }
        let Some((key, at)) = a.at else { continue };
        let size = (a.bits / 8) as i64;
        let (mask, want) = test_of(a.store);
        let slot = open.iter().position(|(k, _)| *k == key);
        if let Some(s) = slot {
            let g = &mut groups[open[s].1];
            let d = at.wrapping_sub(g.at) as i32 as i64;
            let (lo, hi) = (g.lo.min(d), g.hi.max(d + size));
            if hi - lo <= page {
                (g.lo, g.hi, g.mask, g.want) = (lo, hi, g.mask | mask, g.want | want);
                g.n += 1;
                of[i] = Some(open[s].1);
                continue;
            }
        }
        let id = groups.len();
        groups.push(Group {
            lead: i,
            at,
            lo: 0,
            hi: size,
            mask,
            want,
            n: 1,
        });
        of[i] = Some(id);
        match slot {
            Some(s) => open[s].1 = id,
            None => open.push((key, id)),
        }
    }
    raw.iter()
        .enumerate()
        .map(|(i, a)| {
            let check = match of[i].map(|g| &groups[g]) {
                Some(g) if g.n > 1 && g.lead == i => Check::Lead {
                    lo: g.lo as i32,
                    hi: g.hi as i32,
                    mask: g.mask,
                    want: g.want,
                },
                Some(g) if g.n > 1 => Check::Covered,
                _ => Check::Alone,
            };
            Access {
                k: a.k,
                bits: a.bits,
                store: a.store,
                check,
            }
        })
        .collect()
}

/// The register an 8-bit (x86 number: AH..BH are 4..7) or 16-bit register operand
/// lives in, as a mask on its number.
fn narrow_mask(bits: u32) -> u8 {
    if bits == 8 { 3 } else { 7 }
}
