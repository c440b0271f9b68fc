//! clock: one budget check per iteration (per loop head, with inner loops).
//!
//! The interpreter checks its budget before entering each block and stops at the
//! first block start where the budget is spent. The lowering gives every block a
//! `Clock { insns: 0 }` to say exactly that. This pass removes them all and puts a
//! `Clock` at the top of the loop head, and of as few other blocks as it takes for
//! every cycle to pass one, whose threshold is the most instructions any path
//! retires from that check to the start of a block before the next check: when
//! more budget than that remains, none of those block starts could have stopped
//! the interpreter, and the next check comes (or an exit, after which the
//! interpreter checks for itself).

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
    // Check blocks: block 0 and enough others that every cycle of the region
    // passes one. Blocks entered from before the head are ordered last, so a
    // cycle through them (an outer loop entered in the middle of the inner one's
    // body) would otherwise put a check on an inner-loop block; of each cycle
    // left unchecked, the last block a backward jump enters gets the check, or
    // failing one, the block ordered last.
    let n = p.blocks.len();
    let succs: Vec<Vec<usize>> = (0..n).map(|b| p.succs(b)).collect();
    let mut check = vec![false; n];
    check[0] = true;
    // A block a backward jump (in guest addresses and in block order) enters is
    // preferred: the engine runs such a check on the back edge itself.
    while let Some(c) = unchecked_cycle(&succs, &check) {
        let eip = |b: usize| p.blocks[b].eip;
        let back = (0..c.len())
            .map(|k| (c[(k + c.len() - 1) % c.len()], c[k]))
            .filter(|&(from, to)| to <= from && eip(to) <= eip(from))
            .map(|(_, to)| to)
            .max();
        let pick = back.or_else(|| c.iter().copied().max()).unwrap_or(0);
        check[pick] = true;
    }
    // Edges into unchecked blocks form a DAG (a cycle of them would be unchecked).
    let order = topo(&succs, &check);
    for h in (0..n).filter(|&h| check[h]) {
        // Longest path prefix from the check to each block start; another check's
        // start (or its own, again) is covered by that check, so paths stop there.
        let mut pre: Vec<Option<u32>> = vec![None; n];
        pre[h] = Some(0);
        let mut max = 0;
        for &b in std::iter::once(&h).chain(order.iter().filter(|&&b| !check[b])) {
            let Some(at) = pre[b] else { continue };
            max = max.max(at);
            let end = at + p.blocks[b].insns;
            for &s in &succs[b] {
                if !check[s] {
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

/// The blocks of one cycle that avoids every `check` block, if there is one.
fn unchecked_cycle(succs: &[Vec<usize>], check: &[bool]) -> Option<Vec<usize>> {
    // Iterative DFS: 0 unseen, 1 on the stack, 2 done.
    let n = succs.len();
    let mut state = vec![0u8; n];
    for root in (0..n).filter(|&r| !check[r]) {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            let Some(&s) = succs[b].get(*k) else {
                state[b] = 2;
                stack.pop();
                continue;
            };
            *k += 1;
            if check[s] {
                continue;
            }
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 => {
                    let from = stack.iter().position(|&(x, _)| x == s).unwrap_or(0);
                    return Some(stack[from..].iter().map(|&(x, _)| x).collect());
                }
                _ => {}
            }
        }
    }
    None
}

/// Blocks in an order where every edge into an unchecked block goes forward.
fn topo(succs: &[Vec<usize>], check: &[bool]) -> Vec<usize> {
    let n = succs.len();
    let mut indeg = vec![0usize; n];
    for ss in succs {
        for &s in ss {
            if !check[s] {
                indeg[s] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&b| indeg[b] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(b) = ready.pop() {
        out.push(b);
        for &s in &succs[b] {
            if !check[s] {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    ready.push(s);
                }
            }
        }
    }
    out
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
    fn an_inner_loop_gets_its_own_check() {
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
        b2.eip = 0x1008;
        let mut b3 = block(vec![clock(0)], Term::Jump(Target::Block(0)));
        b3.insns = 1;
        b3.eip = 0x100c;
        let mut p = prog(vec![b0, b1, b2, b3], NGUEST);
        run(&mut p);
        // The inner cycle is checked where its backward jump enters it, b1; b0's
        // run reaches no other block start before b1's check; from b1: b2 at 3,
        // b3 at 7.
        assert_eq!(body_text(&p, 0), vec!["clock 0 !x0"]);
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

    #[test]
    fn an_outer_loop_entered_mid_body_is_checked_off_the_inner_loop() {
        let clock = |x: ExitId| Inst::Clock { insns: 0, exit: x };
        let jcc = |t: Target, f: Target| Term::Jcc { cc: 4, t, f };
        let bl = |k: u16| Target::Block(k);
        // The inner loop b0 -> (b1 ->) b2 -> b0; its exit b3 goes to b4, the outer
        // loop's block before the head (ordered last), which enters the inner
        // body at b1 or b2 again. Every cycle passes b0 or b4.
        let mut b0 = block(vec![clock(0)], jcc(bl(1), bl(2)));
        b0.insns = 3;
        let mut b1 = block(vec![clock(0)], Term::Jump(bl(2)));
        b1.insns = 3;
        let mut b2 = block(vec![clock(0)], jcc(bl(0), bl(3)));
        b2.insns = 3;
        let mut b3 = block(vec![clock(0)], jcc(bl(4), Target::Exit(0)));
        b3.insns = 2;
        let mut b4 = block(vec![clock(0)], jcc(bl(1), bl(2)));
        b4.insns = 5;
        b4.eip = 0x0ff0;
        let mut p = prog(vec![b0, b1, b2, b3, b4], NGUEST);
        run(&mut p);
        // From b0: b1 at 3, b2 at 6, b3 at 9; from b4: b1 at 5, b2 at 8, b3 at 11.
        assert_eq!(body_text(&p, 0), vec!["clock 9 !x0"]);
        let Inst::Clock { insns: 11, exit } = p.blocks[4].body[0] else {
            panic!("{:?}", p.blocks[4].body)
        };
        assert_eq!(p.exits[exit as usize].eip, 0x0ff0);
        for b in 1..4 {
            assert!(p.blocks[b].body.is_empty(), "b{b}: {:?}", p.blocks[b].body);
        }
    }
}
