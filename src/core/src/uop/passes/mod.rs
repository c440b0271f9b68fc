//! Optimiser passes over [`Program`], in the order [`optimize`] runs them. Each
//! pass keeps the program exact: at every exit the guest registers, the flag
//! record and memory are what the interpreter would have there.
//!
//! Invariants the lowering establishes and every pass keeps: each temporary is
//! defined exactly once in the whole program, and (outside `pre`) only used later
//! in the block that defines it; block 0 is the entry, and block order is
//! topological apart from back edges (edges to a block at or before their source).

use super::ir::*;

pub mod clock;
pub mod constprop;
pub mod dce;
pub mod flags;
pub mod guards;
pub mod licm;
pub mod promote;

/// Runs every pass.
pub fn optimize(p: &mut Program) {
    promote::run(p);
    constprop::run(p);
    flags::forward(p);
    flags::liveness(p);
    // With dead flag records gone, `t = op ..; reg = t` pairs can coalesce.
    promote::run(p);
    dce::run(p);
    guards::run(p);
    licm::run(p);
    clock::run(p);
    dce::run(p);
}

/// A set of virtual registers.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RegSet(Vec<u64>);

impl RegSet {
    pub fn new(n: VReg) -> RegSet {
        RegSet(vec![0; (n as usize).div_ceil(64).max(1)])
    }

    pub fn guests(n: VReg) -> RegSet {
        let mut s = RegSet::new(n);
        for r in 0..NGUEST {
            s.insert(r);
        }
        s
    }

    pub fn insert(&mut self, r: VReg) {
        let (w, b) = (r as usize / 64, r as usize % 64);
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << b;
    }

    pub fn remove(&mut self, r: VReg) {
        let (w, b) = (r as usize / 64, r as usize % 64);
        if w < self.0.len() {
            self.0[w] &= !(1 << b);
        }
    }

    pub fn contains(&self, r: VReg) -> bool {
        let (w, b) = (r as usize / 64, r as usize % 64);
        w < self.0.len() && self.0[w] & (1 << b) != 0
    }

    /// Adds `o`; answers whether anything was new.
    pub fn union(&mut self, o: &RegSet) -> bool {
        if o.0.len() > self.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
}

/// Every virtual register some instruction of the loop body defines.
pub fn body_defs(p: &Program) -> RegSet {
    let mut s = RegSet::new(p.nvregs);
    for b in &p.blocks {
        for i in &b.body {
            if let Some(d) = i.def() {
                s.insert(d);
            }
        }
    }
    s
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    pub fn prog(blocks: Vec<Block>, nvregs: VReg) -> Program {
        Program {
            head: 0x1000,
            pre: vec![],
            blocks,
            exits: vec![
                ExitStub {
                    eip: 0x1000,
                    insns: 0,
                },
                ExitStub {
                    eip: 0x1010,
                    insns: 0,
                },
            ],
            nvregs,
            nwin: 0,
            code: vec![],
        }
    }

    pub fn block(body: Vec<Inst>, term: Term) -> Block {
        Block {
            eip: 0x1000,
            insns: 4,
            body,
            term,
        }
    }

    pub fn r(v: VReg) -> Val {
        Val::R(v)
    }

    pub fn k(v: u32) -> Val {
        Val::K(v)
    }

    pub const T0: VReg = NGUEST;
    pub const T1: VReg = NGUEST + 1;
    pub const T2: VReg = NGUEST + 2;
    pub const T3: VReg = NGUEST + 3;

    pub fn at(base: VReg, disp: u32) -> Addr {
        Addr {
            base: Some(base),
            index: None,
            scale: 0,
            disp,
        }
    }

    pub fn body_text(p: &Program, b: usize) -> Vec<String> {
        p.blocks[b].body.iter().map(|i| i.to_string()).collect()
    }
}
