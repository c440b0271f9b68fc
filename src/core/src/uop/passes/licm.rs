//! Loop-invariant code motion: computations at the top of the loop head whose
//! inputs do not change in the loop move to the preheader.
//!
//! Candidates are the head block's pure instructions defining temporaries from
//! constants, preheader temporaries and guest registers the loop never writes, and
//! its loads from such addresses when the loop stores nowhere (so the loaded value
//! cannot change under it; another thread writing it without synchronisation is
//! the cross-modifying case x86 leaves undefined). The head block runs first in
//! every iteration, so a hoisted value is the one every iteration would compute.
//! A hoisted load that faults leaves through the head exit with nothing done.

use super::super::ir::*;
use super::{RegSet, body_defs};

pub fn run(p: &mut Program) {
    if p.blocks.is_empty() {
        return;
    }
    let defs = body_defs(p);
    let stores = p
        .blocks
        .iter()
        .flat_map(|b| &b.body)
        .any(|i| matches!(i, Inst::Store { .. }));
    let mut inv = RegSet::new(p.nvregs);
    for i in &p.pre {
        if let Some(d) = i.def() {
            inv.insert(d);
        }
    }
    let invariant = |inv: &RegSet, r: VReg| inv.contains(r) || (r < NGUEST && !defs.contains(r));
    let head_exit = p.exit_to(p.head, 0);
    let mut hoisted = Vec::new();
    let body = std::mem::take(&mut p.blocks[0].body);
    let mut kept = Vec::with_capacity(body.len());
    for i in body {
        let ok = match i.def() {
            Some(d) if d >= NGUEST => {
                let ins_ok = i.uses().iter().all(|&r| invariant(&inv, r));
                match i {
                    Inst::Load { .. } => ins_ok && !stores,
                    _ => ins_ok && i.is_pure(),
                }
            }
            _ => false,
        };
        if ok {
            let mut h = i;
            if let Inst::Load { exit, win, .. } = &mut h {
                *exit = head_exit;
                *win = NO_WIN;
            }
            if let Some(d) = h.def() {
                inv.insert(d);
            }
            hoisted.push(h);
        } else {
            kept.push(i);
        }
    }
    p.blocks[0].body = kept;
    p.pre.extend(hoisted);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn loop_with(store: bool) -> Program {
        let mut body = vec![
            Inst::Clock { insns: 0, exit: 0 },
            // [esp+0x40] with esp never written: invariant.
            Inst::Load {
                d: T0,
                size: 32,
                addr: at(4, 0x40),
                win: NO_WIN,
                exit: 1,
            },
            Inst::Alu {
                op: Alu::Add,
                d: T1,
                a: r(T0),
                b: k(0x100),
            },
            // esi is written below: varies.
            Inst::Load {
                d: T2,
                size: 8,
                addr: at(6, 0),
                win: NO_WIN,
                exit: 1,
            },
            Inst::Alu {
                op: Alu::Add,
                d: 6,
                a: r(6),
                b: k(1),
            },
            Inst::Load {
                d: T3,
                size: 8,
                addr: Addr {
                    base: Some(T1),
                    index: Some(T2),
                    scale: 0,
                    disp: 0,
                },
                win: NO_WIN,
                exit: 1,
            },
        ];
        if store {
            body.push(Inst::Store {
                size: 8,
                addr: at(7, 0),
                s: r(T3),
                win: NO_WIN,
                exit: 1,
            });
        }
        prog(vec![block(body, Term::Jump(Target::Block(0)))], NGUEST + 4)
    }

    #[test]
    fn hoists_invariant_loads_and_arithmetic() {
        let mut p = loop_with(false);
        run(&mut p);
        let pre: Vec<String> = p.pre.iter().map(|i| i.to_string()).collect();
        assert_eq!(
            pre,
            vec!["t0 = load32 [esp+0x40] !x0", "t1 = add t0, 0x100"]
        );
        assert_eq!(
            body_text(&p, 0),
            vec![
                "clock 0 !x0",
                "t2 = load8 [esi] !x1",
                "esi = add esi, 0x1",
                "t3 = load8 [t1+t2] !x1",
            ]
        );
    }

    #[test]
    fn a_store_in_the_loop_keeps_loads_in_place() {
        let mut p = loop_with(true);
        run(&mut p);
        assert!(p.pre.is_empty(), "{:?}", p.pre);
    }
}
