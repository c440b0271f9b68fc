//! promote: guest registers stay in their virtual registers and temporaries melt
//! away. Two rewrites, block-local:
//!
//! - copy propagation: after `t = x` (t a temporary), later reads of `t` read `x`
//!   for as long as `x` holds the same value;
//! - coalescing: `t = <op>; ...; d = t` becomes `d = <op>` when `t` has no other
//!   reader and nothing in between reads or writes `d` or can exit (an exit
//!   observes every guest register, so `d` must not change earlier than it did).

use super::super::ir::*;

pub fn run(p: &mut Program) {
    for b in &mut p.blocks {
        copy_prop(b);
        coalesce(b);
    }
}

fn copy_prop(b: &mut Block) {
    // Temporaries are defined once, so a mapping only dies when its source changes.
    let mut map: Vec<(VReg, Val)> = Vec::new();
    for i in b.body.iter_mut() {
        i.map_uses(&mut |v| subst(&map, v));
        if let Some(d) = i.def() {
            map.retain(|&(_, s)| s != Val::R(d));
            if let Inst::Mov { d, s } = *i
                && d >= NGUEST
            {
                map.push((d, s));
            }
        }
    }
    b.term.map_uses(&mut |v| subst(&map, v));
}

fn subst(map: &[(VReg, Val)], v: Val) -> Val {
    match v {
        Val::R(r) => map.iter().find(|&&(t, _)| t == r).map_or(v, |&(_, s)| s),
        k => k,
    }
}

fn reads(i: &Inst, r: VReg) -> bool {
    i.uses().contains(&r)
}

fn coalesce(b: &mut Block) {
    let mut j = 0;
    while j < b.body.len() {
        let Inst::Mov { d, s: Val::R(t) } = b.body[j] else {
            j += 1;
            continue;
        };
        if t < NGUEST || d == t {
            j += 1;
            continue;
        }
        let Some(k) = b.body[..j].iter().rposition(|i| i.def() == Some(t)) else {
            j += 1;
            continue;
        };
        let other_readers = b
            .body
            .iter()
            .enumerate()
            .any(|(n, i)| n != j && reads(i, t))
            || b.term.uses().contains(&t);
        let between_ok = b.body[k + 1..j]
            .iter()
            .all(|i| i.exit().is_none() && !reads(i, d) && i.def() != Some(d));
        // `Ins` merges into its destination, and a load's definition is not a
        // value that can be retargeted without moving the access's exit.
        let movable = matches!(
            b.body[k],
            Inst::Mov { .. }
                | Inst::Alu { .. }
                | Inst::Ext { .. }
                | Inst::Fx { .. }
                | Inst::Cond { .. }
                | Inst::Sel { .. }
        );
        if other_readers || !between_ok || !movable {
            j += 1;
            continue;
        }
        match &mut b.body[k] {
            Inst::Mov { d: dd, .. }
            | Inst::Alu { d: dd, .. }
            | Inst::Ext { d: dd, .. }
            | Inst::Fx { d: dd, .. }
            | Inst::Cond { d: dd, .. }
            | Inst::Sel { d: dd, .. } => *dd = d,
            _ => unreachable!("checked movable"),
        }
        b.body.remove(j);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn copies_propagate_until_the_source_changes() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Mov { d: T0, s: r(6) },
                    Inst::Alu {
                        op: Alu::Add,
                        d: T1,
                        a: r(T0),
                        b: k(4),
                    },
                    Inst::Mov { d: 6, s: r(T1) },
                    // esi changed: t0 still holds the old esi.
                    Inst::Alu {
                        op: Alu::Add,
                        d: 0,
                        a: r(0),
                        b: r(T0),
                    },
                ],
                Term::Jump(Target::Block(0)),
            )],
            NGUEST + 2,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec!["t0 = esi", "esi = add esi, 0x4", "eax = add eax, t0"]
        );
    }

    #[test]
    fn coalescing_stops_at_exits_and_readers_of_the_destination() {
        let ld = Inst::Load {
            d: T1,
            size: 32,
            addr: at(7, 0),
            win: NO_WIN,
            exit: 0,
        };
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Alu {
                        op: Alu::Add,
                        d: T0,
                        a: r(1),
                        b: k(1),
                    },
                    // An exit between the op and the move: ecx must keep its old value
                    // there.
                    ld,
                    Inst::Mov { d: 1, s: r(T0) },
                    Inst::Alu {
                        op: Alu::Sub,
                        d: T2,
                        a: r(2),
                        b: r(T1),
                    },
                    Inst::Flags {
                        op: crate::cpu::FlagOp::Sub,
                        size: 32,
                        res: r(T2),
                        a: r(2),
                        b: r(T1),
                    },
                    Inst::Mov { d: 2, s: r(T2) },
                    Inst::Alu {
                        op: Alu::Xor,
                        d: T3,
                        a: r(3),
                        b: k(0xff),
                    },
                    Inst::Mov { d: 3, s: r(T3) },
                ],
                Term::Jump(Target::Block(0)),
            )],
            NGUEST + 4,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec![
                "t0 = add ecx, 0x1",
                "t1 = load32 [edi] !x0",
                "ecx = t0",
                "t2 = sub edx, t1",
                "flags sub32 t2, edx, t1",
                "edx = t2",
                "ebx = xor ebx, 0xff",
            ]
        );
    }
}
