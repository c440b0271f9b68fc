//! clock: one budget check per iteration (per loop head, with inner loops).
//!
//! The interpreter checks its budget before entering each block and stops at the
//! first block start where the budget is spent. The lowering gives every block a
//! `Clock { insns: 0 }` to say exactly that. This pass removes them all and puts one
//! `Clock` at the top of the loop head whose threshold is the most instructions any
//! path retires from the head to the start of a block of the same iteration: when
//! more budget than that remains, none of those block starts could have stopped
//! the interpreter, and the next check is the next head (or an exit, after which
//! the interpreter checks for itself).

use super::super::ir::*;

/// The head exit (resume at the loop head, nothing retired in its block).
fn head_exit(p: &mut Program) -> ExitId {
    p.exit_to(p.head, 0)
}

pub fn run(p: &mut Program) {
    if p.blocks.is_empty() {
        return;
    }
    for b in &mut p.blocks {
        b.body.retain(|i| !matches!(i, Inst::Clock { .. }));
    }
    // Loop heads: block 0 and every target of a back edge (an edge to a block at
    // or before its source). Every path splits at its back edges into runs of
    // forward edges that each start at a head, so a check at each head whose
    // threshold covers its forward run covers every block start.
    let n = p.blocks.len();
    let mut heads = vec![false; n];
    heads[0] = true;
    for b in 0..n {
        for s in p.succs(b) {
            if s <= b {
                heads[s] = true;
            }
        }
    }
    for h in (0..n).filter(|&h| heads[h]) {
        // Longest forward path prefix from the head to each block start; another
        // head's start is covered by its own check, so paths stop there.
        let mut pre: Vec<Option<u32>> = vec![None; n];
        pre[h] = Some(0);
        let mut max = 0;
        for b in h..n {
            let Some(at) = pre[b] else { continue };
            max = max.max(at);
            if b != h && heads[b] {
                continue;
            }
            let end = at + p.blocks[b].insns;
            for s in p.succs(b) {
                if s > b {
                    pre[s] = Some(pre[s].map_or(end, |x| x.max(end)));
                }
            }
        }
        let exit = if h == 0 {
            head_exit(p)
        } else {
            p.exit_to(p.blocks[h].eip, 0)
        };
        p.blocks[h].body.insert(0, Inst::Clock { insns: max, exit });
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn one_check_at_the_head_covers_the_longest_path() {
        let clock = |x: ExitId| Inst::Clock { insns: 0, exit: x };
        let mut b0 = block(
            vec![clock(0)],
            Term::Jcc {
                cc: 4,
                t: Target::Block(1),
                f: Target::Block(2),
            },
        );
        b0.insns = 3;
        let mut b1 = block(vec![clock(0)], Term::Jump(Target::Block(2)));
        b1.insns = 5;
        let mut b2 = block(
            vec![clock(0)],
            Term::Jcc {
                cc: 5,
                t: Target::Block(0),
                f: Target::Exit(1),
            },
        );
        b2.insns = 2;
        let mut p = prog(vec![b0, b1, b2], NGUEST);
        run(&mut p);
        // b2 starts after 3 (b0 -> b2) or 8 (b0 -> b1 -> b2) instructions.
        assert_eq!(body_text(&p, 0), vec!["clock 8 !x0"]);
        assert!(p.blocks[1].body.is_empty() && p.blocks[2].body.is_empty());
        assert_eq!(
            p.exits[0],
            ExitStub {
                eip: 0x1000,
                insns: 0
            }
        );
    }

    #[test]
    fn an_inner_loop_head_gets_its_own_check() {
        let clock = |x: ExitId| Inst::Clock { insns: 0, exit: x };
        // b0 -> b1; b1 -> b2; b2 -> b1 (inner back edge) or b3; b3 -> b0.
        let mut b0 = block(vec![clock(0)], Term::Jump(Target::Block(1)));
        b0.insns = 2;
        let mut b1 = block(vec![clock(0)], Term::Jump(Target::Block(2)));
        b1.insns = 3;
        b1.eip = 0x1004;
        let mut b2 = block(
            vec![clock(0)],
            Term::Jcc {
                cc: 5,
                t: Target::Block(1),
                f: Target::Block(3),
            },
        );
        b2.insns = 4;
        let mut b3 = block(vec![clock(0)], Term::Jump(Target::Block(0)));
        b3.insns = 1;
        let mut p = prog(vec![b0, b1, b2, b3], NGUEST);
        run(&mut p);
        // From b0 the run stops at b1's start (2); from b1: b2 at 3, b3 at 7.
        assert_eq!(body_text(&p, 0), vec!["clock 2 !x0"]);
        let Inst::Clock { insns: 7, exit } = p.blocks[1].body[0] else {
            panic!("{:?}", p.blocks[1].body)
        };
        assert_eq!(
            p.exits[exit as usize],
            ExitStub {
                eip: 0x1004,
                insns: 0
            }
        );
        assert!(p.blocks[2].body.is_empty() && p.blocks[3].body.is_empty());
    }
}
