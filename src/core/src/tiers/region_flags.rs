//! The dead-flag pass: a micro-op's lazy-flag write is dropped when, on every path
//! from it, another full flag write comes before any reader. Readers are ADC/SBB,
//! INC/DEC (they keep CF), every fallback handler (unknown, so assumed to read),
//! every conditional branch, and every region exit (the interpreter's state must be
//! there in full). Liveness is the least fixed point over the region's edges.

use super::{RBlock, RTerm, Succ};

/// Flags live after the block's last micro-op.
fn live_after(b: &RBlock, live_in: &[bool]) -> bool {
    let at = |s: Succ| match s {
        Succ::Block(i) => live_in[i as usize],
        Succ::Exit(_) => true,
    };
    match b.term {
        // The branch reads the flags.
        RTerm::Jcc { .. } => true,
        RTerm::Goto(s) => at(s),
    }
}

fn live_before(b: &RBlock, mut live: bool) -> bool {
    for u in b.uops.iter().rev() {
        if u.writes {
            live = false;
        }
        if u.reads {
            live = true;
        }
    }
    live
}

/// Switches dead flag writers to their no-flag variants; returns how many.
pub fn elide_dead(blocks: &mut [RBlock]) -> u32 {
    let n = blocks.len();
    let mut live_in = vec![false; n];
    loop {
        let mut changed = false;
        for v in (0..n).rev() {
            let l = live_before(&blocks[v], live_after(&blocks[v], &live_in));
            if l != live_in[v] {
                live_in[v] = l;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut dead = 0;
    for v in 0..n {
        let mut live = live_after(&blocks[v], &live_in);
        for u in blocks[v].uops.iter_mut().rev() {
            if u.writes {
                if !live && let Some(nf) = u.nf {
                    u.f = nf;
                    dead += 1;
                }
                live = false;
            }
            if u.reads {
                live = true;
            }
        }
    }
    dead
}
