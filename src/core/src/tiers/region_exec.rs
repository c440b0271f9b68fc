//! The region executor: runs a region's blocks by index until an exit, the budget, the
//! run cap, a code change, a fault or a store into code.

use super::uop::UEnd;
use super::{RTerm, Region, Succ};
use crate::cpu::Cpu;

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
                    if cpu.flags.cond(cc) {
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
