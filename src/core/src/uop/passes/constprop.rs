//! Constant propagation and address folding, block-local (a block is entered with
//! nothing known; `pre` is folded the same way).
//!
//! Facts: a register holds a constant, or a temporary holds `reg + k` (or
//! `reg << s`) for a register not redefined since. Reads of known constants become
//! immediates, operations on constants fold, and an address whose base or index is
//! such a temporary absorbs it, so `t = add esi, 4; load [t]` becomes
//! `load [esi+0x4]` (the add then dies in DCE when nothing else reads it).

use super::super::ir::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fact {
    K(u32),
    /// reg + k
    Off(VReg, u32),
    /// reg << s
    Shl(VReg, u8),
}

pub fn run(p: &mut Program) {
    fold(&mut p.pre, None);
    for b in &mut p.blocks {
        fold(&mut b.body, Some(&mut b.term));
    }
}

fn fold(body: &mut [Inst], term: Option<&mut Term>) {
    let mut facts: Vec<(VReg, Fact)> = Vec::new();
    let get = |facts: &[(VReg, Fact)], r: VReg| facts.iter().find(|f| f.0 == r).map(|f| f.1);
    let konst = |facts: &[(VReg, Fact)], v: Val| match v {
        Val::K(k) => Some(k),
        Val::R(r) => match get(facts, r) {
            Some(Fact::K(k)) => Some(k),
            _ => None,
        },
    };
    for i in body.iter_mut() {
        // Immediates for known constants.
        i.map_uses(&mut |v| match konst(&facts, v) {
            Some(k) => Val::K(k),
            None => v,
        });
        // Addresses absorb constants and affine temporaries.
        match i {
            Inst::Load { addr, .. } | Inst::Store { addr, .. } | Inst::Guard { addr, .. } => {
                fold_addr(addr, &facts)
            }
            _ => {}
        }
        // Evaluate.
        let new = match *i {
            Inst::Alu {
                op,
                d,
                a: Val::K(x),
                b: Val::K(y),
            } => Some(Inst::Mov {
                d,
                s: Val::K(op.eval(x, y)),
            }),
            Inst::Alu {
                op: Alu::Xor | Alu::Sub,
                d,
                a: Val::R(x),
                b: Val::R(y),
            } if x == y => Some(Inst::Mov { d, s: Val::K(0) }),
            Inst::Ext {
                d,
                s: Val::K(x),
                shift,
                bits,
                signed,
            } => {
                let v = x >> shift;
                let v = if bits >= 32 {
                    v
                } else if signed {
                    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
                } else {
                    v & ((1u32 << bits) - 1)
                };
                Some(Inst::Mov { d, s: Val::K(v) })
            }
            _ => None,
        };
        if let Some(n) = new {
            *i = n;
        }
        // Record what the definition establishes, after killing facts it breaks.
        if let Some(d) = i.def() {
            let old_k = get(&facts, d);
            facts.retain(|&(r, f)| {
                r != d && !matches!(f, Fact::Off(b, _) | Fact::Shl(b, _) if b == d)
            });
            let fact = match *i {
                Inst::Mov { s: Val::K(k), .. } => Some(Fact::K(k)),
                Inst::Ins {
                    s: Val::K(k),
                    shift,
                    bits,
                    ..
                } => match old_k {
                    Some(Fact::K(o)) => {
                        let m = if bits >= 32 {
                            u32::MAX
                        } else {
                            ((1u32 << bits) - 1) << shift
                        };
                        Some(Fact::K((o & !m) | ((k << shift) & m)))
                    }
                    _ => None,
                },
                Inst::Alu {
                    op: Alu::Add,
                    a: Val::R(x),
                    b: Val::K(k),
                    ..
                }
                | Inst::Alu {
                    op: Alu::Add,
                    a: Val::K(k),
                    b: Val::R(x),
                    ..
                } if x != d => Some(match get(&facts, x) {
                    Some(Fact::Off(y, j)) => Fact::Off(y, j.wrapping_add(k)),
                    _ => Fact::Off(x, k),
                }),
                Inst::Alu {
                    op: Alu::Sub,
                    a: Val::R(x),
                    b: Val::K(k),
                    ..
                } if x != d => Some(Fact::Off(x, 0u32.wrapping_sub(k))),
                Inst::Alu {
                    op: Alu::Shl,
                    a: Val::R(x),
                    b: Val::K(s),
                    ..
                } if x != d && s < 4 => Some(Fact::Shl(x, s as u8)),
                _ => None,
            };
            // Only temporaries carry affine facts: a guest register must stay a
            // register an exit can read.
            if let Some(f) = fact
                && (d >= NGUEST || matches!(f, Fact::K(_)))
            {
                facts.push((d, f));
            }
        }
    }
    if let Some(t) = term {
        t.map_uses(&mut |v| match konst(&facts, v) {
            Some(k) => Val::K(k),
            None => v,
        });
    }
}

fn fold_addr(a: &mut Addr, facts: &[(VReg, Fact)]) {
    let get = |r: VReg| facts.iter().find(|f| f.0 == r).map(|f| f.1);
    if let Some(b) = a.base {
        match get(b) {
            Some(Fact::K(k)) => {
                a.base = None;
                a.disp = a.disp.wrapping_add(k);
            }
            Some(Fact::Off(r, k)) => {
                a.base = Some(r);
                a.disp = a.disp.wrapping_add(k);
            }
            Some(Fact::Shl(r, s)) if a.index.is_none() => {
                a.base = None;
                a.index = Some(r);
                a.scale = s;
            }
            _ => {}
        }
    }
    if let Some(x) = a.index {
        match get(x) {
            Some(Fact::K(k)) => {
                a.index = None;
                a.disp = a.disp.wrapping_add(k << (a.scale & 3));
            }
            Some(Fact::Off(r, k)) => {
                a.index = Some(r);
                a.disp = a.disp.wrapping_add(k << (a.scale & 3));
            }
            Some(Fact::Shl(r, s)) if a.scale == 0 => {
                a.index = Some(r);
                a.scale = s;
            }
            _ => {}
        }
    }
    // An index with no base and scale 0 is just a base.
    if a.base.is_none() && a.scale == 0 {
        a.base = a.index.take();
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn folds_constants_and_offsets_into_addresses() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Mov {
                        d: 3,
                        s: k(0x40_0000),
                    },
                    Inst::Alu {
                        op: Alu::Add,
                        d: T0,
                        a: r(6),
                        b: k(4),
                    },
                    Inst::Load {
                        d: T1,
                        size: 8,
                        addr: at(T0, 1),
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Alu {
                        op: Alu::Shl,
                        d: T2,
                        a: r(T1),
                        b: k(2),
                    },
                    Inst::Load {
                        d: T3,
                        size: 32,
                        addr: Addr {
                            base: Some(3),
                            index: Some(T2),
                            scale: 0,
                            disp: 0,
                        },
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Alu {
                        op: Alu::Add,
                        d: 0,
                        a: r(3),
                        b: k(0x10),
                    },
                ],
                Term::Jump(Target::Block(0)),
            )],
            NGUEST + 4,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec![
                "ebx = 0x400000",
                "t0 = add esi, 0x4",
                "t1 = load8 [esi+0x5] !x0",
                "t2 = shl t1, 0x2",
                "t3 = load32 [t1*4+0x400000] !x0",
                "eax = 0x400010",
            ]
        );
    }

    #[test]
    fn facts_die_with_their_register() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Alu {
                        op: Alu::Add,
                        d: T0,
                        a: r(6),
                        b: k(4),
                    },
                    Inst::Alu {
                        op: Alu::Add,
                        d: 6,
                        a: r(6),
                        b: k(1),
                    },
                    // t0 is the old esi + 4: it must not fold to [esi+4] any more.
                    Inst::Load {
                        d: T1,
                        size: 32,
                        addr: at(T0, 0),
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Alu {
                        op: Alu::Xor,
                        d: 1,
                        a: r(1),
                        b: r(1),
                    },
                    Inst::Ext {
                        d: T2,
                        s: r(1),
                        shift: 0,
                        bits: 8,
                        signed: true,
                    },
                    Inst::Ins {
                        d: 1,
                        s: k(0xff),
                        shift: 8,
                        bits: 8,
                    },
                ],
                Term::Bcc {
                    cc: 5,
                    op: crate::cpu::FlagOp::Sub,
                    size: 32,
                    res: r(1),
                    a: r(1),
                    b: k(0),
                    t: Target::Block(0),
                    f: Target::Exit(1),
                },
            )],
            NGUEST + 3,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec![
                "t0 = add esi, 0x4",
                "esi = add esi, 0x1",
                "t1 = load32 [t0] !x0",
                "ecx = 0x0",
                "t2 = 0x0",
                "ecx[8..16] = 0xff",
            ]
        );
        assert_eq!(
            p.blocks[0].term.to_string(),
            "bne sub32 0xff00, 0xff00, 0x0 ? b0 : x1"
        );
    }
}
