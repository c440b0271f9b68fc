//! The engine: runs an optimised [`Program`] on a guest CPU, and the per-thread
//! bookkeeping that decides which loop heads get one ([`UopState`]).
//!
//! The dispatch loop matches on the IR instructions of one block at a time over a
//! local register file (guest registers copied in at entry and out at every exit)
//! and a local flag record. Nothing on its path calls out of line: memory goes
//! through `GuestMemory`'s inline fast path after a window or page check, so any
//! access that would need the slow path (a fault, a guard page, a page-crossing
//! access, a store into a page holding decoded code) leaves through the access's
//! exit before it has any effect, and the interpreter runs that instruction.
//!
//! Exactness: registers, flag record and EIP at an exit are the interpreter's at
//! that instruction; instructions retired and blocks entered are charged as the
//! interpreter charges them, with a partial block left for the interpreter to
//! count when it resumes inside it ([`Entered::mid_block`]).

use super::flat::{self, Flat};
use super::ir::*;
use super::lower::{Decline, Env, Reason, lower};
use crate::cpu::Cpu;
use crate::mem::GuestMemory;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Block entries after which a block is tried as a loop head.
pub const HOT: u64 = 32;
/// Consecutive entries without a completed iteration after which a head is
/// retired. Short-trip loops (merging runs of 1 or 2 elements) leave before their
/// back edge most of the time; 8 retired those for good before their runs grew.
pub const BARREN: u32 = 64;

/// A program ready to run, with what it assumed when it was lowered.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub prog: Program,
    /// What the engine runs.
    pub flat: Flat,
    pub flat_segs: u8,
    /// Guest instructions lowered.
    pub insns: u32,
    barren: u32,
}

/// What this thread decided about a loop head.
#[derive(Clone, Debug)]
pub enum Verdict {
    Run(Box<Compiled>),
    Declined(Decline),
    /// Compiled, but its entries kept leaving before completing an iteration.
    Retired,
    /// The head block carries another tier's ops.
    Claimed,
}

/// Whether every op of `b` runs the handler the interpreter's own lowering gives
/// its instruction (no tier has rewritten it).
fn plain(mem: &GuestMemory, b: &crate::exec::cache::Block) -> bool {
    let n = b.ninsn as usize;
    let len = b.end.wrapping_sub(b.start) as usize;
    let mut bytes = vec![0u8; len];
    if mem.read_bytes(b.start, &mut bytes).is_err() {
        return false;
    }
    let mut dec =
        iced_x86::Decoder::with_ip(32, &bytes, b.start as u64, iced_x86::DecoderOptions::NONE);
    for o in b.ops.iter().take(n) {
        let ins = dec.decode();
        if ins.ip32() != o.eip || ins.is_invalid() {
            return false;
        }
        let mut fresh = crate::exec::op::Op::new(crate::exec::op::invalid_opcode, o.eip, o.next);
        let h = crate::ops::lower(&ins, &mut fresh);
        if !std::ptr::fn_addr_eq(h, o.h) || fresh.x != o.x || fresh.imm != o.imm {
            return false;
        }
    }
    true
}

/// How one entry ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entered {
    /// Whole iterations completed (back edges taken).
    pub iters: u64,
    /// Instructions charged to `cpu.retired`.
    pub insns: u64,
    /// Interpreter blocks charged to `cpu.chain.blocks`.
    pub blocks: u64,
    /// The exit resumes inside an interpreter block: the executor must run the
    /// rest of that block before its next budget or halt check, as it would have
    /// without the program.
    pub mid_block: bool,
}

/// Verdicts by loop head in a direct-mapped table: the lookup is on the path of
/// every hot block entry, so it is one multiply and one compare. A head whose
/// slot another head holds goes to a hash map instead (evicting would make two
/// hot colliding heads recompile on every entry).
#[derive(Default)]
struct HeadTable {
    slots: Vec<Option<(u32, Verdict)>>,
    overflow: HashMap<u32, Verdict>,
    len: usize,
    /// `[lo, hi)` covering the code of every program inserted since the last
    /// clear: a code write outside it (to a page that is only marked because a
    /// decode read its first bytes) cannot retire anything and skips the scan.
    code_span: Option<(u64, u64)>,
}

const HEAD_SLOTS_LOG2: u32 = 12;

impl HeadTable {
    #[inline(always)]
    fn slot(head: u32) -> usize {
        (head.wrapping_mul(0x9e37_79b1) >> (32 - HEAD_SLOTS_LOG2)) as usize
    }

    #[inline(always)]
    fn get(&self, head: &u32) -> Option<&Verdict> {
        match self.slots.get(Self::slot(*head))? {
            Some((h, v)) if h == head => Some(v),
            Some(_) => self.overflow.get(head),
            None => None,
        }
    }

    #[inline(always)]
    fn get_mut(&mut self, head: &u32) -> Option<&mut Verdict> {
        match self.slots.get_mut(Self::slot(*head))? {
            Some((h, v)) if h == head => Some(v),
            Some(_) => self.overflow.get_mut(head),
            None => None,
        }
    }

    #[inline(always)]
    fn contains_key(&self, head: &u32) -> bool {
        self.get(head).is_some()
    }

    fn insert(&mut self, head: u32, v: Verdict) {
        if let Verdict::Run(c) = &v {
            for &(a, l) in &c.prog.code {
                let (a, e) = (a as u64, a as u64 + l as u64);
                let (lo, hi) = self.code_span.unwrap_or((a, e));
                self.code_span = Some((lo.min(a), hi.max(e)));
            }
        }
        if self.slots.is_empty() {
            self.slots = (0..1 << HEAD_SLOTS_LOG2).map(|_| None).collect();
        }
        let s = &mut self.slots[Self::slot(head)];
        match s {
            Some((h, old)) if *h == head => *old = v,
            Some(_) => {
                if self.overflow.insert(head, v).is_none() {
                    self.len += 1;
                }
            }
            None => {
                *s = Some((head, v));
                self.len += 1;
            }
        }
    }

    fn clear(&mut self) {
        self.code_span = None;
        if self.len > 0 {
            self.slots.iter_mut().for_each(|s| *s = None);
            self.overflow.clear();
            self.len = 0;
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&Verdict) -> bool) {
        if self.len == 0 {
            return;
        }
        for s in self.slots.iter_mut() {
            if let Some((_, v)) = s
                && !keep(v)
            {
                *s = None;
                self.len -= 1;
            }
        }
        let before = self.overflow.len();
        self.overflow.retain(|_, v| keep(v));
        self.len -= before - self.overflow.len();
    }
}

/// Per-thread state of the tier: verdicts by loop head, and the engine's scratch.
#[derive(Default)]
pub struct UopState {
    heads: HeadTable,
    regs: Option<Box<flat::Regs>>,
    /// Decline census: reason name -> heads declined for it.
    pub census: HashMap<String, u64>,
    /// Programs retired because guest code they were lowered from changed.
    pub invalidated: u64,
    /// Set after an exit inside a block; the executor takes it (see [`Entered`]).
    pub resume_mid_block: bool,
}

impl UopState {
    pub fn clear(&mut self) {
        self.heads.clear();
    }

    /// Whether the head has a negative verdict (declined, claimed, retired): such a
    /// verdict stays until [`UopState::clear`], and [`UopState::enter`] does nothing
    /// for the head until then.
    pub fn settled(&self, head: u32) -> bool {
        matches!(
            self.heads.get(&head),
            Some(Verdict::Declined(_) | Verdict::Claimed | Verdict::Retired)
        )
    }

    pub fn verdict(&self, head: u32) -> Option<&Verdict> {
        self.heads.get(&head)
    }

    /// Retires every program lowered from bytes in `[addr, addr + len)`.
    pub fn invalidate(&mut self, addr: u32, len: u32) {
        let (a, e) = (addr as u64, addr as u64 + len.max(1) as u64);
        if !self
            .heads
            .code_span
            .is_some_and(|(lo, hi)| a < hi && lo < e)
        {
            return;
        }
        let before = self.heads.len;
        self.heads.retain(|v| match v {
            Verdict::Run(c) => !c
                .prog
                .code
                .iter()
                .any(|&(a, l)| addr.wrapping_sub(a) < l || a.wrapping_sub(addr) < len.max(1)),
            _ => true,
        });
        self.invalidated += (before - self.heads.len) as u64;
    }

    /// Called at a block entry. Compiles a head that just became hot, and runs the
    /// head's program if it has one. `None`: the interpreter runs the block.
    #[allow(clippy::too_many_arguments)]
    pub fn enter(
        &mut self,
        cpu: &mut Cpu,
        block: &crate::exec::cache::Block,
        target: u64,
        halt: &crate::attention::Attention,
        env: &Env,
        stats: &crate::tiers::TierStats,
    ) -> Option<Entered> {
        // Most block entries end here: a block entered fewer than HOT times since it
        // was decoded is not run by a program.
        if block.entries.get() < HOT {
            return None;
        }
        let head = block.start;
        if !self.heads.contains_key(&head) {
            // Another tier rewrote this block's ops (lut_span, case_chain, x87
            // fusion): the loop stays with that tier.
            if block.fold.is_some() || block.region.is_some() || !plain(&cpu.mem, block) {
                self.heads.insert(head, Verdict::Claimed);
                return None;
            }
            let v = compile(&cpu.mem, head, env);
            match &v {
                Verdict::Run(_) => {
                    stats.matches.fetch_add(1, Ordering::Relaxed);
                }
                Verdict::Declined(d) => {
                    *self.census.entry(d.reason.name()).or_default() += 1;
                    let k = match d.reason {
                        Reason::Form(_) | Reason::Fetch => crate::tiers::Decline::Op,
                        Reason::NoBackEdge => crate::tiers::Decline::Shape,
                        Reason::BlockCap | Reason::Size => crate::tiers::Decline::Size,
                        Reason::Segment => crate::tiers::Decline::Address,
                    };
                    stats.declines[k as usize].fetch_add(1, Ordering::Relaxed);
                }
                Verdict::Retired | Verdict::Claimed => {}
            }
            self.heads.insert(head, v);
        }
        let Some(Verdict::Run(c)) = self.heads.get_mut(&head) else {
            return None;
        };
        let flat_ok = (0..8).all(|s| {
            c.flat_segs & (1 << s) == 0 || (cpu.seg_base[s] == 0 && cpu.null_segs & (1 << s) == 0)
        });
        if !flat_ok {
            return None;
        }
        let regs = self
            .regs
            .get_or_insert_with(|| Box::new([0; flat::MAX_REGS]));
        let Some(e) = flat::run(&c.flat, cpu, regs, target, halt) else {
            // Leaving at the first budget check near the end of a slice says
            // nothing about the loop: the interpreter runs the slice's last
            // iterations and enters the head again each time.
            let at_end = halt.load(Ordering::Relaxed)
                || matches!(
                    c.prog.blocks.first().and_then(|b| b.body.first()),
                    Some(Inst::Clock { insns, .. }) if cpu.retired + *insns as u64 >= target
                );
            if at_end {
                return None;
            }
            c.barren += 1;
            if c.barren >= BARREN {
                self.heads.insert(head, Verdict::Retired);
            }
            return None;
        };
        stats.runs.fetch_add(1, Ordering::Relaxed);
        stats.iterations.fetch_add(e.iters, Ordering::Relaxed);
        stats.elements.fetch_add(e.insns, Ordering::Relaxed);
        if e.iters == 0 {
            c.barren += 1;
            if c.barren >= BARREN {
                self.heads.insert(head, Verdict::Retired);
            }
        } else {
            c.barren = 0;
        }
        self.resume_mid_block = e.mid_block;
        Some(e)
    }
}

/// Lowers and optimises the loop at `head`.
pub fn compile(mem: &GuestMemory, head: u32, env: &Env) -> Verdict {
    match lower(mem, head, env) {
        Ok(l) => {
            let mut prog = l.prog;
            super::passes::optimize(&mut prog);
            match flat::build(&prog) {
                Ok(flat) => Verdict::Run(Box::new(Compiled {
                    prog,
                    flat,
                    flat_segs: l.flat_segs,
                    insns: l.insns,
                    barren: 0,
                })),
                Err(_) => Verdict::Declined(Decline {
                    eip: head,
                    reason: Reason::Size,
                }),
            }
        }
        Err(d) => Verdict::Declined(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declined(eip: u32) -> Verdict {
        Verdict::Declined(Decline {
            eip,
            reason: Reason::NoBackEdge,
        })
    }

    fn eip_of(v: Option<&Verdict>) -> Option<u32> {
        match v {
            Some(Verdict::Declined(d)) => Some(d.eip),
            _ => None,
        }
    }

    #[test]
    fn colliding_heads_both_keep_their_verdicts() {
        let mut t = HeadTable::default();
        let a = 0x0040_1000u32;
        // Find another head in the same slot.
        let b = (a + 1..a + 0x100_0000)
            .find(|&h| HeadTable::slot(h) == HeadTable::slot(a))
            .expect("a colliding head");
        t.insert(a, declined(a));
        t.insert(b, declined(b));
        assert_eq!(t.len, 2);
        assert_eq!(eip_of(t.get(&a)), Some(a));
        assert_eq!(eip_of(t.get(&b)), Some(b));
        // Replacing a verdict does not count a new head.
        t.insert(b, Verdict::Retired);
        assert_eq!(t.len, 2);
        assert!(matches!(t.get(&b), Some(Verdict::Retired)));
        t.retain(|v| !matches!(v, Verdict::Retired));
        assert_eq!(t.len, 1);
        assert!(t.get(&b).is_none() && t.get(&a).is_some());
        t.clear();
        assert_eq!(t.len, 0);
        assert!(t.get(&a).is_none());
    }

    #[test]
    fn compile_runs_a_lowerable_loop_and_declines_the_rest() {
        use crate::harness::{CODE, EXIT, Machine, assemble};
        use iced_x86::code_asm::*;
        let m = Machine::new();
        let code = assemble(|a| {
            let mut head = a.create_label();
            let mut h2 = a.create_label();
            a.set_label(&mut head)?;
            a.add(eax, dword_ptr(esi))?;
            a.add(esi, 4)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            a.set_label(&mut h2)?;
            a.bsf(eax, ebx)?;
            a.dec(ecx)?;
            a.jnz(h2)?;
            a.mov(ebp, EXIT)?;
            a.jmp(ebp)
        });
        m.mem.write_bytes(CODE, &code).unwrap();
        let env = Env {
            max_insns: 64,
            stop: (EXIT, 1),
            seg_base: [0; 8],
        };
        let Verdict::Run(c) = compile(&m.mem, CODE, &env) else {
            panic!("the first loop lowers")
        };
        assert_eq!(c.insns, 4);
        // The program covers exactly the loop's bytes, so writes there retire it.
        let mut st = UopState::default();
        st.heads.insert(CODE, Verdict::Run(c));
        st.invalidate(CODE + 0x40, 4);
        assert_eq!(st.invalidated, 0);
        st.invalidate(CODE + 2, 1);
        assert_eq!(st.invalidated, 1);
        assert!(st.verdict(CODE).is_none());
        // The second loop's head is a BSF, which the IR does not model.
        // The second loop starts at the fifth instruction (by an independent decode).
        let h2 = iced_x86::Decoder::with_ip(32, &code, CODE as u64, iced_x86::DecoderOptions::NONE)
            .iter()
            .nth(4)
            .expect("five instructions")
            .ip32();
        match compile(&m.mem, h2, &env) {
            Verdict::Declined(d) => {
                assert_eq!(d.eip, h2);
                assert_eq!(d.reason, Reason::Form(iced_x86::Code::Bsf_r32_rm32));
            }
            v => panic!("{v:?}"),
        }
    }
}
