//! The region executor: runs a region's blocks by index until an exit, the budget, the
//! run cap, a code change, a fault or a store into code.

use super::uop::UEnd;
use super::{RTerm, Region, Succ};
use crate::cpu::{Cpu, LazyFlags};

/// How a region run ended. In every case `cpu.retired` and `cpu.chain.blocks` have
/// been charged exactly as the interpreter charges the blocks it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionEnd {
    /// Left the region, or stopped on a block edge (budget, cap, code change); EIP is
    /// the next block's start.
    Edge,
    /// An instruction stored into a code page and retired; EIP is the next one.
    CodeWrite,
    /// An instruction raised `cpu.pending` (not retired; EIP untouched).
    Fault,
}

/// What one run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunInfo {
    pub end: RegionEnd,
    /// Blocks entered (including a faulting one).
    pub blocks: u64,
    /// Of those, entries of the head block.
    pub heads: u64,
}

/// `LazyFlags::cond` with the condition code made a constant per arm, so each arm
/// evaluates only the flags its condition needs (as the monomorphised Jcc handlers do).
#[inline(always)]
fn cond(f: &LazyFlags, cc: u8) -> bool {
    match cc & 15 {
        0 => f.cond(0),
        1 => f.cond(1),
        2 => f.cond(2),
        3 => f.cond(3),
        4 => f.cond(4),
        5 => f.cond(5),
        6 => f.cond(6),
        7 => f.cond(7),
        8 => f.cond(8),
        9 => f.cond(9),
        10 => f.cond(10),
        11 => f.cond(11),
        12 => f.cond(12),
        13 => f.cond(13),
        14 => f.cond(14),
        _ => f.cond(15),
    }
}

impl Region {
    /// Runs from the head. `target` is the run loop's instruction budget end: the
    /// interpreter checks it before entering each block, so the run stops on the
    /// first edge where it is reached. `code_epoch` is the code-write epoch the
    /// executor is synchronised to; another thread's code write stops the run at the
    /// next edge. At most `cap` blocks are entered.
    pub fn run(&self, cpu: &mut Cpu, target: u64, code_epoch: u64, cap: u64) -> RunInfo {
        let mut bi = 0usize;
        let mut n = 0u64;
        let mut heads = 0u64;
        loop {
            let blk = &self.blocks[bi];
            cpu.chain.blocks += 1;
            n += 1;
            heads += (bi == 0) as u64;
            for u in blk.uops.iter() {
                match super::uop::exec(cpu, u) {
                    UEnd::Ok => {}
                    UEnd::Code => {
                        cpu.retired += u.k as u64 + 1;
                        cpu.eip = u.o.next;
                        return RunInfo {
                            end: RegionEnd::CodeWrite,
                            blocks: n,
                            heads,
                        };
                    }
                    UEnd::Raised => {
                        cpu.retired += u.k as u64;
                        return RunInfo {
                            end: RegionEnd::Fault,
                            blocks: n,
                            heads,
                        };
                    }
                }
            }
            cpu.retired += blk.ninsn as u64;
            let s = match blk.term {
                RTerm::Jcc { cc, taken, fall } => {
                    if cond(&cpu.flags, cc) {
                        taken
                    } else {
                        fall
                    }
                }
                RTerm::Goto(s) => s,
            };
            let next = match s {
                Succ::Exit(a) => {
                    cpu.eip = a;
                    return RunInfo {
                        end: RegionEnd::Edge,
                        blocks: n,
                        heads,
                    };
                }
                Succ::Block(i) => i as usize,
            };
            if cpu.retired >= target || n >= cap || cpu.mem.code_epoch() != code_epoch {
                cpu.eip = self.blocks[next].start;
                return RunInfo {
                    end: RegionEnd::Edge,
                    blocks: n,
                    heads,
                };
            }
            bi = next;
        }
    }
}
