//! Dead-code elimination: removes pure instructions whose definition nothing reads
//! before it is redefined or the program exits. Guest registers are live at every
//! exit; temporaries never are. Loads stay: their exit is how a faulting access
//! reaches the interpreter.

use super::super::ir::*;
use super::RegSet;

fn live_out(p: &Program, b: usize, live_in: &[RegSet]) -> RegSet {
    let mut s = RegSet::new(p.nvregs);
    for t in p.blocks[b].term.targets() {
        match t {
            Target::Block(k) => {
                s.union(&live_in[k as usize]);
            }
            Target::Exit(_) => {
                s.union(&RegSet::guests(p.nvregs));
            }
        }
    }
    for r in p.blocks[b].term.uses() {
        s.insert(r);
    }
    s
}

/// Walks `body` backwards from `live`; with `prune`, drops dead pure instructions.
fn walk(body: &mut Vec<Inst>, mut live: RegSet, nv: VReg, prune: bool) -> RegSet {
    let mut keep = vec![true; body.len()];
    for (j, i) in body.iter().enumerate().rev() {
        if i.is_pure()
            && let Some(d) = i.def()
            && !live.contains(d)
        {
            keep[j] = false;
            continue;
        }
        // The exit happens before the instruction's own effect.
        if let Some(d) = i.def() {
            live.remove(d);
        }
        if i.exit().is_some() {
            live.union(&RegSet::guests(nv));
        }
        for u in i.uses() {
            live.insert(u);
        }
    }
    if prune {
        let mut j = 0;
        body.retain(|_| {
            j += 1;
            keep[j - 1]
        });
    }
    live
}

pub fn run(p: &mut Program) {
    let n = p.blocks.len();
    let nv = p.nvregs;
    let mut live_in = vec![RegSet::new(nv); n];
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let out = live_out(p, b, &live_in);
            let mut body = p.blocks[b].body.clone();
            let l = walk(&mut body, out, nv, false);
            if l != live_in[b] {
                live_in[b] = l;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for b in 0..n {
        let out = live_out(p, b, &live_in);
        walk(&mut p.blocks[b].body, out, nv, true);
    }
    if n > 0 {
        let out = live_in[0].clone();
        walk(&mut p.pre, out, nv, true);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn removes_dead_temporaries_but_keeps_guest_writes_and_loads() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Alu {
                        op: Alu::Add,
                        d: T0,
                        a: r(6),
                        b: k(4),
                    },
                    Inst::Load {
                        d: T1,
                        size: 32,
                        addr: at(6, 4),
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Alu {
                        op: Alu::Add,
                        d: T2,
                        a: r(T1),
                        b: k(1),
                    },
                    Inst::Mov { d: 0, s: r(T1) },
                    // Overwritten before any exit or reader: dead.
                    Inst::Mov { d: 2, s: k(5) },
                    Inst::Mov { d: 2, s: k(6) },
                ],
                Term::Jump(Target::Block(0)),
            )],
            NGUEST + 3,
        );
        run(&mut p);
        assert_eq!(
            body_text(&p, 0),
            vec!["t1 = load32 [esi+0x4] !x0", "eax = t1", "edx = 0x6"]
        );
    }

    #[test]
    fn a_guest_write_before_an_exit_survives() {
        let mut p = prog(
            vec![block(
                vec![
                    Inst::Mov { d: 2, s: k(5) },
                    Inst::Load {
                        d: T0,
                        size: 32,
                        addr: at(6, 0),
                        win: NO_WIN,
                        exit: 0,
                    },
                    Inst::Mov { d: 2, s: r(T0) },
                ],
                Term::Jump(Target::Exit(1)),
            )],
            NGUEST + 1,
        );
        let mut q = p.clone();
        run(&mut p);
        assert_eq!(p.blocks[0].body.len(), 3, "{p}");
        // Looping back instead, the head's `edx = 5` overwrites the last write
        // before anything can observe it.
        q.blocks[0].term = Term::Jump(Target::Block(0));
        run(&mut q);
        assert_eq!(body_text(&q, 0), vec!["edx = 0x5", "t0 = load32 [esi] !x0"]);
    }
}
