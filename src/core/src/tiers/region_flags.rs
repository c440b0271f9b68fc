//! The dead-flag pass: a micro-op's lazy-flag write is dropped when a later
//! micro-op of the same block overwrites the whole flag state before anything reads
//! it. Readers are ADC/SBB, INC/DEC (they keep CF), every fallback handler (unknown,
//! so assumed to read), every memory access (it can fault or store into code, and the
//! block then ends there with the flags published), and the block's end: every
//! block edge is a possible side exit (budget, run cap, code change), so liveness
//! never crosses an edge.

use super::RBlock;

/// Switches dead flag writers to their no-flag variants; returns how many.
pub fn elide_dead(blocks: &mut [RBlock]) -> u32 {
    let mut dead = 0;
    for b in blocks.iter_mut() {
        // Live at the block's end: its branch reads them, and every block edge is a
        // possible side exit (budget, run cap, code change) that publishes them.
        let mut live = true;
        for u in b.uops.iter_mut().rev() {
            if u.writes {
                if !live && let Some(nf) = u.nf {
                    u.f = nf;
                    u.kind = u.nkind;
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
