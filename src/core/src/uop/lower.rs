//! Lowering: the decoded guest instructions of one loop region to the IR.
//!
//! The region is found from guest bytes, block by block under the interpreter's
//! own block rules (a block ends after its first control transfer, at the page
//! edge, before the stop range or at the length cap), starting at the loop head.
//! A successor joins the region when it lies within [`SPAN`] bytes forward of the
//! head or [`SPAN_BACK`] bytes before it; anything else is an exit. Blocks are
//! ordered by address from the head (those before it last); an edge to a block at
//! or before its source is a back edge, which the engine counts as an iteration
//! and the clock pass gives a budget check (inner loops and loops entered in the
//! middle stay in one program).
//!
//! The lowering reads iced's decoded instruction (operands, widths, condition),
//! never the interpreter's handler identity. An instruction it does not model ends
//! its block with an exit at that instruction (the interpreter runs it); a region
//! in which no back edge survives is declined, naming the first such form.

use super::ir::*;
use crate::cpu::{FlagOp, seg};
use crate::mem::{GuestMemory, perm};
use crate::ops::bits::{is_cmovcc, is_setcc};
use iced_x86::{
    Code, Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind, Register,
};

/// ESP's virtual register.
const ESP: VReg = 4;

/// Furthest a region block may start from the loop head.
pub const SPAN: u32 = 1024;
/// Furthest before the loop head a region block may start.
pub const SPAN_BACK: u32 = 256;
/// Most interpreter blocks in one region.
pub const MAX_BLOCKS: usize = 32;

/// Why a head was not lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The first instruction form on the way to the back edge that the IR does not
    /// model (the census key).
    Form(Code),
    /// No path from the head returns to it within the region.
    NoBackEdge,
    /// A block ends at the decoder's length cap: resuming inside it would make the
    /// interpreter cut its blocks elsewhere, so block pacing could not stay exact.
    BlockCap,
    /// Guest bytes of the region are not readable.
    Fetch,
    /// More virtual registers than the engine's register file holds.
    Size,
    /// A memory operand uses a segment with a non-zero base, or 16-bit addressing.
    Segment,
}

impl Reason {
    pub fn name(&self) -> String {
        match self {
            Reason::Form(c) => format!("{c:?}"),
            Reason::NoBackEdge => "no_backedge".into(),
            Reason::BlockCap => "block_cap".into(),
            Reason::Fetch => "fetch".into(),
            Reason::Size => "size".into(),
            Reason::Segment => "segment".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decline {
    /// Where the reason applies (the unmodelled instruction, or the head).
    pub eip: u32,
    pub reason: Reason,
}

/// What the lowering needs from the machine besides guest memory.
#[derive(Clone, Copy, Debug)]
pub struct Env {
    /// The executor's block length cap.
    pub max_insns: usize,
    /// The executor's stop range `(lo, len)` (API thunks).
    pub stop: (u32, u32),
    /// Segment bases, indexed by [`seg`] slot: a program may only use segments
    /// whose base is 0, and records which ones it assumed ([`Lowered::flat_segs`]).
    pub seg_base: [u32; 8],
}

/// A lowered region plus what the census wants to know about it.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub prog: Program,
    /// Guest instructions lowered.
    pub insns: u32,
    /// Instructions that end a block with an exit because the IR does not model
    /// them, with their form.
    pub unmodelled: Vec<(u32, Code)>,
    /// Bit `s` set: the program assumed segment slot `s` has base 0.
    pub flat_segs: u8,
}

struct Raw {
    start: u32,
    /// The return address of the call this block was inlined for (`None`: the
    /// loop's own code).
    ctx: Option<u32>,
    insns: Vec<Instruction>,
    /// Address after the last instruction.
    end: u32,
    /// The block ended without a control transfer (page edge or stop range).
    falls: bool,
    /// A block ending in `jmp [table+r*4]`: the table's entries the region
    /// dispatches to (read at lowering time; the engine checks the loaded one).
    table: Vec<u32>,
}

/// Decodes one interpreter block at `eip` under the decoder's rules.
fn decode(mem: &GuestMemory, eip: u32, env: &Env) -> Result<Raw, Reason> {
    if mem.perm(eip) & perm::READ == 0 {
        return Err(Reason::Fetch);
    }
    // Marked like the decoder marks: a later store into these bytes is then logged,
    // and that log is what retires the program.
    mem.mark_code(eip);
    loop {
        let (buf, in_page) = crate::decode::fetch(mem, eip);
        let raw = decode_bytes(eip, &buf, in_page, env)?;
        let end = raw.insns.last().map_or(eip, |i| i.next_ip32());
        if crate::decode::confirm_spill(mem, eip, end, &buf[in_page as usize..]) {
            return Ok(raw);
        }
    }
}

/// Decodes the block at `eip` from `buf` (`crate::decode::fetch`).
fn decode_bytes(eip: u32, buf: &[u8], in_page: u32, env: &Env) -> Result<Raw, Reason> {
    let mut dec = Decoder::with_ip(32, buf, eip as u64, DecoderOptions::NONE);
    let mut insns = Vec::new();
    let mut end = eip;
    while (dec.position() as u32) < in_page && insns.len() < env.max_insns {
        let at = eip.wrapping_add(dec.position() as u32);
        if !insns.is_empty() && at.wrapping_sub(env.stop.0) < env.stop.1 {
            break;
        }
        let ins = dec.decode();
        if ins.is_invalid() {
            if insns.is_empty() {
                return Err(Reason::Fetch);
            }
            // The interpreter keeps invalid bytes as the last op of this block and
            // raises there; as a terminator the lowering cannot model, they become
            // an exit inside the block, which keeps the block count exact.
            insns.push(ins);
            return Ok(Raw {
                start: eip,
                ctx: None,
                insns,
                end,
                falls: false,
                table: Vec::new(),
            });
        }
        end = ins.next_ip32();
        let flow = ins.flow_control();
        insns.push(ins);
        if flow != FlowControl::Next {
            return Ok(Raw {
                start: eip,
                ctx: None,
                insns,
                end,
                falls: false,
                table: Vec::new(),
            });
        }
    }
    if insns.len() >= env.max_insns {
        return Err(Reason::BlockCap);
    }
    Ok(Raw {
        start: eip,
        ctx: None,
        insns,
        end,
        falls: true,
        table: Vec::new(),
    })
}

/// Entries read from a jump table, at most.
const TABLE_SCAN: u32 = 256;

/// The distinct entries of the table a block-ending `jmp [disp+r*4]` reads
/// (absolute table, flat segment) that `joins` accepts, in table order, at most
/// [`MAX_CASES`]; the scan stops at the first unreadable entry.
fn table_targets(mem: &GuestMemory, raw: &Raw, env: &Env, joins: impl Fn(u32) -> bool) -> Vec<u32> {
    let Some(last) = raw.insns.last() else {
        return Vec::new();
    };
    let slot = crate::decode::seg_slot(last.memory_segment());
    if raw.falls
        || last.code() != Code::Jmp_rm32
        || last.op_kind(0) != OpKind::Memory
        || last.memory_base() != Register::None
        || !last.memory_index().is_gpr32()
        || last.memory_index_scale() != 4
        || slot == seg::NONE
        || env.seg_base[slot as usize] != 0
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for k in 0..TABLE_SCAN {
        let at = last.memory_displacement32().wrapping_add(4 * k);
        let mut b = [0u8; 4];
        if mem.perm(at) & perm::READ == 0 || mem.read_bytes(at, &mut b).is_err() {
            break;
        }
        let t = u32::from_le_bytes(b);
        if joins(t) && t.wrapping_sub(env.stop.0) >= env.stop.1 && !out.contains(&t) {
            out.push(t);
            if out.len() == MAX_CASES {
                break;
            }
        }
    }
    out
}

/// Lowers the loop whose head is `head`.
pub fn lower(mem: &GuestMemory, head: u32, env: &Env) -> Result<Lowered, Decline> {
    let decline = |eip, reason| Decline { eip, reason };
    // Discover blocks: a worklist in address order keeps every in-region edge
    // forward (or back to the head).
    let mut starts: Vec<(u32, Option<u32>)> = vec![(head, None)];
    // Callee entry of each inlined call, by return address.
    let mut entries: Vec<(u32, u32)> = Vec::new();
    let mut raws: Vec<Raw> = Vec::new();
    let mut k = 0;
    while k < starts.len() {
        let (a, ctx) = starts[k];
        k += 1;
        let raw = match decode(mem, a, env) {
            Ok(mut r) => {
                r.ctx = ctx;
                let entry = ctx.and_then(|ret| entries.iter().find(|e| e.0 == ret).map(|e| e.1));
                r.table = table_targets(mem, &r, env, |t| joins(entry.unwrap_or(head), t));
                r
            }
            // A callee block the interpreter must fetch itself: the edge to it
            // becomes an exit.
            Err(_) if ctx.is_some() => continue,
            Err(r) => return Err(decline(a, r)),
        };
        for (s, sctx) in successors(&raw) {
            let ok = match sctx {
                None => joins(head, s),
                Some(ret) => {
                    if raw.ctx.is_none() {
                        entries.push((ret, s));
                    }
                    let entry = entries.iter().find(|e| e.0 == ret).map_or(s, |e| e.1);
                    joins(entry, s) && s.wrapping_sub(env.stop.0) >= env.stop.1
                }
            };
            if ok && !starts.contains(&(s, sctx)) && starts.len() < MAX_BLOCKS {
                starts.push((s, sctx));
            }
        }
        raws.push(raw);
    }
    raws.sort_by_key(|r| order_key(head, r, &entries));
    // A write to any of these bytes retires the program.
    let code: Vec<(u32, u32)> = raws
        .iter()
        .map(|r| (r.start, r.end.wrapping_sub(r.start).max(1)))
        .collect();
    let order: Vec<(u32, Option<u32>)> = raws.iter().map(|r| (r.start, r.ctx)).collect();

    let mut lw = Lower {
        prog: Program {
            head,
            pre: Vec::new(),
            blocks: Vec::new(),
            exits: Vec::new(),
            nvregs: NGUEST,
            nwin: 0,
            code,
        },
        env: *env,
        order,
        unmodelled: Vec::new(),
        unmodelled_block: Vec::new(),
        flat_segs: 0,
        body: Vec::new(),
        ctx: None,
        table: Vec::new(),
    };
    for raw in &raws {
        lw.block(raw).map_err(|(eip, r)| decline(eip, r))?;
    }
    // Only blocks reachable from the head matter; the back edge must survive.
    let reach = reachable(&lw.prog);
    let back = (0..lw.prog.blocks.len()).any(|b| reach[b] && lw.prog.succs(b).contains(&0));
    if !back {
        let reason = match lw.unmodelled.first() {
            Some(&(eip, code)) => decline(eip, Reason::Form(code)),
            None => decline(head, Reason::NoBackEdge),
        };
        return Err(reason);
    }
    let (prog, keep) = loop_only(lw.prog, &reach);
    let unmodelled = lw
        .unmodelled
        .iter()
        .zip(&lw.unmodelled_block)
        .filter(|&(_, &b)| keep[b])
        .map(|(&u, _)| u)
        .collect();
    // Every instruction a kept block retires was lowered (a block cut short by an
    // unmodelled form counts only the instructions before it).
    let insns = prog.blocks.iter().map(|b| b.insns).sum();
    Ok(Lowered {
        prog,
        insns,
        unmodelled,
        flat_segs: lw.flat_segs,
    })
}

/// Keeps the blocks on a cycle through the head (reachable from it and reaching
/// it again); an edge to any other block becomes an exit at that block's start,
/// so the program is the loop and nothing of the code after it.
fn loop_only(mut p: Program, reach: &[bool]) -> (Program, Vec<bool>) {
    let n = p.blocks.len();
    // Blocks from which the head is reachable (a fixpoint: inner loops make
    // backward edges).
    let mut back = vec![false; n];
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            if !back[b] && p.succs(b).iter().any(|&s| s == 0 || back[s]) {
                back[b] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let keep: Vec<bool> = (0..n).map(|b| reach[b] && back[b]).collect();
    let mut index = vec![0u16; n];
    let mut k = 0;
    for b in 0..n {
        index[b] = k;
        k += keep[b] as u16;
    }
    let starts: Vec<u32> = p.blocks.iter().map(|b| b.eip).collect();
    let blocks = std::mem::take(&mut p.blocks);
    for (b, mut blk) in blocks.into_iter().enumerate() {
        if !keep[b] {
            continue;
        }
        let mut fix = |t: &mut Target| {
            if let Target::Block(s) = *t {
                *t = if keep[s as usize] {
                    Target::Block(index[s as usize])
                } else {
                    Target::Exit(p.exit_to(starts[s as usize], 0))
                };
            }
        };
        match &mut blk.term {
            Term::Jump(t) => fix(t),
            Term::Jcc { t, f, .. } | Term::Bcc { t, f, .. } => {
                fix(t);
                fix(f)
            }
            Term::Switch { cases, n, .. } => {
                cases[..*n as usize].iter_mut().for_each(|c| fix(&mut c.1))
            }
        }
        p.blocks.push(blk);
    }
    (p, keep)
}

fn reachable(p: &Program) -> Vec<bool> {
    let mut r = vec![false; p.blocks.len()];
    if r.is_empty() {
        return r;
    }
    r[0] = true;
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        for s in p.succs(b) {
            if !r[s] {
                r[s] = true;
                work.push(s);
            }
        }
    }
    r
}

/// Whether a block at `to` may join the region of `head`: forward of the head
/// within [`SPAN`], or up to [`SPAN_BACK`] bytes before it (a loop entered in
/// its middle: those blocks sort last).
fn joins(head: u32, to: u32) -> bool {
    to.wrapping_sub(head) < SPAN || head.wrapping_sub(to) <= SPAN_BACK
}

/// Region blocks in program order: the head first, then forward of it by
/// address, then the blocks before it. An inlined callee's blocks (by address
/// from its entry) go right before the block its return lands on, i.e. after
/// the call, so call and return edges run forward; a callee returning to the
/// head goes last, and its return is the back edge.
fn order_key(head: u32, r: &Raw, entries: &[(u32, u32)]) -> (u64, u8, u32) {
    match r.ctx {
        None => (r.start.wrapping_sub(head) as u64, 1, 0),
        Some(ret) => {
            let entry = entries.iter().find(|e| e.0 == ret).map_or(ret, |e| e.1);
            let at = if ret == head {
                1 << 32
            } else {
                ret.wrapping_sub(head) as u64
            };
            (at, 0, r.start.wrapping_sub(entry))
        }
    }
}

/// Guest successors of a raw block that the region could follow, with the
/// context they run in: a direct call from the loop's own code enters its
/// callee in the context of its return address, and a RET in that context
/// returns to the loop's code there (one level: a callee's own calls exit).
fn successors(raw: &Raw) -> Vec<(u32, Option<u32>)> {
    if raw.falls {
        return vec![(raw.end, raw.ctx)];
    }
    let last = raw
        .insns
        .last()
        .expect("a decoded block has an instruction");
    match (last.flow_control(), last.mnemonic()) {
        (FlowControl::ConditionalBranch, m) if crate::ops::branch::cond_code(m).is_some() => {
            vec![(last.near_branch32(), raw.ctx), (raw.end, raw.ctx)]
        }
        (FlowControl::UnconditionalBranch, Mnemonic::Jmp)
            if last.op_kind(0) == OpKind::NearBranch32 =>
        {
            vec![(last.near_branch32(), raw.ctx)]
        }
        (FlowControl::Call, _) if raw.ctx.is_none() && last.code() == Code::Call_rel32_32 => {
            vec![(last.near_branch32(), Some(raw.end))]
        }
        (FlowControl::Return, _) => match (raw.ctx, last.code()) {
            (Some(ret), Code::Retnd | Code::Retnd_imm16) => vec![(ret, None)],
            _ => Vec::new(),
        },
        (FlowControl::IndirectBranch, _) => raw.table.iter().map(|&t| (t, raw.ctx)).collect(),
        _ => Vec::new(),
    }
}

struct Lower {
    prog: Program,
    env: Env,
    /// Region block starts and contexts ([`Raw::ctx`]), in block-index order.
    order: Vec<(u32, Option<u32>)>,
    unmodelled: Vec<(u32, Code)>,
    /// Block index of each `unmodelled` entry.
    unmodelled_block: Vec<usize>,
    flat_segs: u8,
    body: Vec<Inst>,
    /// Context of the block being lowered.
    ctx: Option<u32>,
    /// Jump-table cases of the block being lowered ([`Raw::table`]).
    table: Vec<u32>,
}

/// Lowering of one instruction failed: the form is not modelled, or a memory
/// operand cannot be expressed (which declines the whole region).
enum Miss {
    Form,
    Segment,
}

impl Lower {
    /// The block at `to` in the current context.
    fn target(&mut self, to: u32) -> Target {
        self.target_in(to, self.ctx)
    }

    fn target_in(&mut self, to: u32, ctx: Option<u32>) -> Target {
        if let Some(k) = self.order.iter().position(|&a| a == (to, ctx)) {
            return Target::Block(k as u16);
        }
        Target::Exit(self.prog.exit_to(to, 0))
    }

    fn block(&mut self, raw: &Raw) -> Result<(), (u32, Reason)> {
        self.body.clear();
        self.ctx = raw.ctx;
        self.table.clone_from(&raw.table);
        // The interpreter checks its budget before every block; the clock pass
        // turns these into one check per iteration.
        let at_start = self.prog.exit_to(raw.start, 0);
        self.emit(Inst::Clock {
            insns: 0,
            exit: at_start,
        });
        let n = raw.insns.len();
        let mut term = None;
        for (j, ins) in raw.insns.iter().enumerate() {
            let exit = self.prog.exit_to(ins.ip32(), j as u32);
            let last = j + 1 == n && !raw.falls;
            let save = self.body.len();
            let saved_temps = self.prog.nvregs;
            let r = if last {
                self.branch(ins, exit).map(|t| term = Some(t))
            } else {
                self.insn(ins, exit)
            };
            match r {
                Ok(()) => {}
                Err(Miss::Segment) => return Err((ins.ip32(), Reason::Segment)),
                Err(Miss::Form) => {
                    // Nothing of this instruction runs: the interpreter resumes at it.
                    self.body.truncate(save);
                    self.prog.nvregs = saved_temps;
                    self.unmodelled.push((ins.ip32(), ins.code()));
                    self.unmodelled_block.push(self.prog.blocks.len());
                    self.prog.blocks.push(Block {
                        eip: raw.start,
                        insns: j as u32,
                        body: std::mem::take(&mut self.body),
                        term: Term::Jump(Target::Exit(exit)),
                    });
                    // An exit stub counts only the instructions before it; the
                    // block's own `insns` is what a completed block would charge.
                    return Ok(());
                }
            }
        }
        let term = match term {
            Some(t) => t,
            None => Term::Jump(self.target(raw.end)),
        };
        self.prog.blocks.push(Block {
            eip: raw.start,
            insns: n as u32,
            body: std::mem::take(&mut self.body),
            term,
        });
        Ok(())
    }

    fn branch(&mut self, ins: &Instruction, exit: ExitId) -> Result<Term, Miss> {
        match (ins.flow_control(), ins.mnemonic()) {
            // A direct call from the loop's own code: the return address is a real
            // store (the callee may read or overwrite it), then the callee's
            // blocks run in this call's context.
            (FlowControl::Call, _) if self.ctx.is_none() && ins.code() == Code::Call_rel32_32 => {
                let ret = ins.next_ip32();
                let addr = self.stack_addr(4u32.wrapping_neg())?;
                self.emit(Inst::Store {
                    size: 32,
                    addr,
                    s: Val::K(ret),
                    win: NO_WIN,
                    exit,
                });
                self.emit(Inst::Alu {
                    op: Alu::Sub,
                    d: ESP,
                    a: Val::R(ESP),
                    b: Val::K(4),
                });
                Ok(Term::Jump(self.target_in(ins.near_branch32(), Some(ret))))
            }
            // The callee's RET: the popped address must be the call's return
            // address, else the interpreter runs the RET to wherever it goes.
            (FlowControl::Return, _) => {
                let (Some(ret), Code::Retnd | Code::Retnd_imm16) = (self.ctx, ins.code()) else {
                    return Err(Miss::Form);
                };
                let addr = self.stack_addr(0)?;
                let t = self.temp();
                self.emit(Inst::Load {
                    d: t,
                    size: 32,
                    addr,
                    win: NO_WIN,
                    exit,
                });
                self.emit(Inst::Check {
                    a: Val::R(t),
                    k: ret,
                    exit,
                });
                let pop = if ins.code() == Code::Retnd_imm16 {
                    4 + ins.immediate16() as u32
                } else {
                    4
                };
                self.emit(Inst::Alu {
                    op: Alu::Add,
                    d: ESP,
                    a: Val::R(ESP),
                    b: Val::K(pop),
                });
                Ok(Term::Jump(self.target_in(ret, None)))
            }
            (FlowControl::ConditionalBranch, m) => match crate::ops::branch::cond_code(m) {
                Some(cc) if ins.op_kind(0) == OpKind::NearBranch32 => {
                    let t = self.target(ins.near_branch32());
                    let f = self.target(ins.next_ip32());
                    Ok(Term::Jcc { cc, t, f })
                }
                _ => Err(Miss::Form),
            },
            (FlowControl::UnconditionalBranch, Mnemonic::Jmp)
                if ins.op_kind(0) == OpKind::NearBranch32 =>
            {
                Ok(Term::Jump(self.target(ins.near_branch32())))
            }
            // A jump table: the loaded address picks a case, and any address
            // that is not one leaves at the JMP (the interpreter makes the jump).
            (FlowControl::IndirectBranch, _) if !self.table.is_empty() => {
                let addr = self.addr(ins)?;
                let v = self.temp();
                self.emit(Inst::Load {
                    d: v,
                    size: 32,
                    addr,
                    win: NO_WIN,
                    exit,
                });
                let mut cases = [(0, Target::Exit(exit)); MAX_CASES];
                let table = std::mem::take(&mut self.table);
                for (c, &a) in cases.iter_mut().zip(&table) {
                    *c = (a, self.target(a));
                }
                Ok(Term::Switch {
                    v: Val::R(v),
                    cases,
                    n: table.len() as u8,
                    miss: exit,
                })
            }
            _ => Err(Miss::Form),
        }
    }

    fn emit(&mut self, i: Inst) {
        self.body.push(i);
    }

    fn temp(&mut self) -> VReg {
        self.prog.temp()
    }

    /// Reads a general register of `size` bits (x86 numbering: 8-bit 4-7 are AH..BH).
    fn read_reg(&mut self, size: u32, r: u8) -> Val {
        match size {
            32 => Val::R(r as VReg),
            16 => {
                let t = self.temp();
                self.emit(Inst::Ext {
                    d: t,
                    s: Val::R(r as VReg),
                    shift: 0,
                    bits: 16,
                    signed: false,
                });
                Val::R(t)
            }
            _ => {
                let t = self.temp();
                self.emit(Inst::Ext {
                    d: t,
                    s: Val::R((r & 3) as VReg),
                    shift: if r >= 4 { 8 } else { 0 },
                    bits: 8,
                    signed: false,
                });
                Val::R(t)
            }
        }
    }

    fn write_reg(&mut self, size: u32, r: u8, v: Val) {
        match size {
            32 => self.emit(Inst::Mov { d: r as VReg, s: v }),
            16 => self.emit(Inst::Ins {
                d: r as VReg,
                s: v,
                shift: 0,
                bits: 16,
            }),
            _ => self.emit(Inst::Ins {
                d: (r & 3) as VReg,
                s: v,
                shift: if r >= 4 { 8 } else { 0 },
                bits: 8,
            }),
        }
    }

    fn addr(&mut self, ins: &Instruction) -> Result<Addr, Miss> {
        let base = ins.memory_base();
        let index = ins.memory_index();
        if base.is_gpr16() || index.is_gpr16() || ins.memory_displ_size() == 2 {
            return Err(Miss::Segment);
        }
        let slot = crate::decode::seg_slot(ins.memory_segment());
        if slot == seg::NONE || self.env.seg_base[slot as usize] != 0 {
            return Err(Miss::Segment);
        }
        self.flat_segs |= 1 << slot;
        let reg = |r: Register| crate::decode::gpr(r).map(|n| n as VReg);
        Ok(Addr {
            base: reg(base),
            index: reg(index),
            scale: ins.memory_index_scale().trailing_zeros() as u8,
            disp: ins.memory_displacement32(),
        })
    }

    /// Operand `n` as a value: register, immediate, or a load (exit on miss).
    fn read_op(&mut self, ins: &Instruction, n: u32, size: u32, exit: ExitId) -> Result<Val, Miss> {
        match ins.op_kind(n) {
            OpKind::Register => {
                let r = crate::decode::gpr(ins.op_register(n)).ok_or(Miss::Form)?;
                Ok(self.read_reg(size, r))
            }
            OpKind::Memory => {
                let addr = self.addr(ins)?;
                let d = self.temp();
                self.emit(Inst::Load {
                    d,
                    size: size as u8,
                    addr,
                    win: NO_WIN,
                    exit,
                });
                Ok(Val::R(d))
            }
            OpKind::Immediate8
            | OpKind::Immediate16
            | OpKind::Immediate32
            | OpKind::Immediate8to16
            | OpKind::Immediate8to32 => Ok(Val::K(
                ins.immediate(n) as u32 & crate::cpu::flags::mask(size),
            )),
            _ => Err(Miss::Form),
        }
    }

    /// Writes `v` to operand 0 (register or memory).
    fn write_op0(
        &mut self,
        ins: &Instruction,
        size: u32,
        v: Val,
        exit: ExitId,
    ) -> Result<(), Miss> {
        match ins.op_kind(0) {
            OpKind::Register => {
                let r = crate::decode::gpr(ins.op_register(0)).ok_or(Miss::Form)?;
                self.write_reg(size, r, v);
                Ok(())
            }
            OpKind::Memory => {
                let addr = self.addr(ins)?;
                self.emit(Inst::Store {
                    size: size as u8,
                    addr,
                    s: v,
                    win: NO_WIN,
                    exit,
                });
                Ok(())
            }
            _ => Err(Miss::Form),
        }
    }

    fn insn(&mut self, ins: &Instruction, exit: ExitId) -> Result<(), Miss> {
        use Mnemonic as M;
        if ins.has_lock_prefix() || ins.has_rep_prefix() || ins.has_repne_prefix() {
            return Err(Miss::Form);
        }
        if matches!(ins.mnemonic(), M::Push | M::Pop) {
            return self.stack(ins, exit);
        }
        let size = operand_size(ins).ok_or(Miss::Form)?;
        match ins.mnemonic() {
            M::Nop => Ok(()),
            M::Mov => {
                if ins.op_count() != 2 {
                    return Err(Miss::Form);
                }
                let v = self.read_op(ins, 1, size, exit)?;
                self.write_op0(ins, size, v, exit)
            }
            M::Movzx | M::Movsx => {
                let src = if ins.op_kind(1) == OpKind::Memory {
                    ins.memory_size().size() as u32 * 8
                } else {
                    crate::ops::reg_size(ins.op_register(1))
                };
                let v = self.read_op(ins, 1, src, exit)?;
                let t = self.temp();
                self.emit(Inst::Ext {
                    d: t,
                    s: v,
                    shift: 0,
                    bits: src as u8,
                    signed: ins.mnemonic() == M::Movsx,
                });
                self.write_op0(ins, size, Val::R(t), exit)
            }
            M::Lea => {
                if size != 32 || ins.op_kind(1) != OpKind::Memory {
                    return Err(Miss::Form);
                }
                let base = crate::decode::gpr(ins.memory_base()).map(|n| n as VReg);
                let index = crate::decode::gpr(ins.memory_index()).map(|n| n as VReg);
                if ins.memory_base().is_gpr16() || ins.memory_index().is_gpr16() {
                    return Err(Miss::Form);
                }
                let scale = ins.memory_index_scale().trailing_zeros();
                let disp = ins.memory_displacement32();
                let mut acc = Val::K(disp);
                if let Some(i) = index {
                    let t = self.temp();
                    self.emit(Inst::Alu {
                        op: Alu::Shl,
                        d: t,
                        a: Val::R(i),
                        b: Val::K(scale),
                    });
                    acc = self.add(acc, Val::R(t));
                }
                if let Some(b) = base {
                    acc = self.add(acc, Val::R(b));
                }
                self.write_op0(ins, 32, acc, exit)
            }
            m @ (M::Add | M::Or | M::And | M::Sub | M::Xor | M::Cmp | M::Test) => {
                let (alu, fop) = match m {
                    M::Add => (Alu::Add, FlagOp::Add),
                    M::Sub | M::Cmp => (Alu::Sub, FlagOp::Sub),
                    M::And | M::Test => (Alu::And, FlagOp::Logic),
                    M::Or => (Alu::Or, FlagOp::Logic),
                    _ => (Alu::Xor, FlagOp::Logic),
                };
                // The memory operand is read once even for read-modify-write.
                let a = self.read_op(ins, 0, size, exit)?;
                let b = self.read_op(ins, 1, size, exit)?;
                let r = self.temp();
                self.emit(Inst::Alu {
                    op: alu,
                    d: r,
                    a,
                    b,
                });
                // A store goes first: if it leaves, the flags must be untouched.
                if !matches!(m, M::Cmp | M::Test) && ins.op_kind(0) == OpKind::Memory {
                    self.write_op0(ins, size, Val::R(r), exit)?;
                }
                self.emit(Inst::Flags {
                    op: fop,
                    size: size as u8,
                    res: Val::R(r),
                    a,
                    b,
                });
                if !matches!(m, M::Cmp | M::Test) && ins.op_kind(0) != OpKind::Memory {
                    self.write_op0(ins, size, Val::R(r), exit)?;
                }
                Ok(())
            }
            m @ (M::Inc | M::Dec | M::Neg | M::Not) => {
                let a = self.read_op(ins, 0, size, exit)?;
                let r = self.temp();
                let (alu, x, y) = match m {
                    M::Inc => (Alu::Add, a, Val::K(1)),
                    M::Dec => (Alu::Sub, a, Val::K(1)),
                    M::Neg => (Alu::Sub, Val::K(0), a),
                    _ => (Alu::Xor, a, Val::K(u32::MAX)),
                };
                self.emit(Inst::Alu {
                    op: alu,
                    d: r,
                    a: x,
                    b: y,
                });
                let mem = ins.op_kind(0) == OpKind::Memory;
                if mem {
                    self.write_op0(ins, size, Val::R(r), exit)?;
                }
                let flags = match m {
                    M::Inc => Some(FlagOp::Inc),
                    M::Dec => Some(FlagOp::Dec),
                    M::Neg => Some(FlagOp::Sub),
                    _ => None,
                };
                if let Some(op) = flags {
                    self.emit(Inst::Flags {
                        op,
                        size: size as u8,
                        res: Val::R(r),
                        a: x,
                        b: y,
                    });
                }
                if !mem {
                    self.write_op0(ins, size, Val::R(r), exit)?;
                }
                Ok(())
            }
            m @ (M::Shl | M::Sal | M::Shr | M::Sar | M::Rol | M::Ror | M::Rcl | M::Rcr) => {
                if ins.op_count() != 2 {
                    return Err(Miss::Form);
                }
                let op = match m {
                    M::Shl | M::Sal => Fx::Shl,
                    M::Shr => Fx::Shr,
                    M::Sar => Fx::Sar,
                    M::Rol => Fx::Rol,
                    M::Ror => Fx::Ror,
                    M::Rcl => Fx::Rcl,
                    _ => Fx::Rcr,
                };
                let count = match ins.op_kind(1) {
                    // ECX & 31 is CL & 31, the count the helper takes.
                    OpKind::Register if ins.op_register(1) == Register::CL => Val::R(1),
                    OpKind::Immediate8 => match ins.immediate(1) as u32 & 31 {
                        // The interpreter runs a register shift by 0 as a NOP; a
                        // memory one still probes its operand for writing.
                        0 if ins.op_kind(0) == OpKind::Register => return Ok(()),
                        0 => return Err(Miss::Form),
                        c => Val::K(c),
                    },
                    _ => return Err(Miss::Form),
                };
                self.rmw_fx(ins, op, size, count, exit)
            }
            m @ (M::Adc | M::Sbb) => {
                if ins.op_count() != 2 {
                    return Err(Miss::Form);
                }
                let b = self.read_op(ins, 1, size, exit)?;
                let op = if m == M::Adc { Fx::Adc } else { Fx::Sbb };
                self.rmw_fx(ins, op, size, b, exit)
            }
            M::Imul if ins.op_count() >= 2 => {
                if size == 8 || ins.op_kind(0) != OpKind::Register {
                    return Err(Miss::Form);
                }
                let b = self.read_op(ins, 1, size, exit)?;
                let a = match ins.op_count() {
                    2 => self.read_op(ins, 0, size, exit)?,
                    3 => self.read_op(ins, 2, size, exit)?,
                    _ => return Err(Miss::Form),
                };
                let d = self.temp();
                self.emit(Inst::Fx {
                    op: Fx::Imul,
                    size: size as u8,
                    set: true,
                    d,
                    a,
                    b,
                });
                self.write_op0(ins, size, Val::R(d), exit)
            }
            m @ (M::Mul | M::Imul) => {
                if ins.op_count() != 1 {
                    return Err(Miss::Form);
                }
                let src = self.read_op(ins, 0, size, exit)?;
                let acc = self.read_reg(size, 0);
                let lo = self.temp();
                self.emit(Inst::Alu {
                    op: Alu::Mul,
                    d: lo,
                    a: acc,
                    b: src,
                });
                let hi = self.temp();
                self.emit(Inst::Fx {
                    op: if m == M::Imul { Fx::ImulHi } else { Fx::MulHi },
                    size: size as u8,
                    set: true,
                    d: hi,
                    a: acc,
                    b: src,
                });
                // AL*src -> AX; AX*src -> DX:AX; EAX*src -> EDX:EAX.
                let hi_reg = if size == 8 { 4 } else { 2 };
                self.write_reg(size, 0, Val::R(lo));
                self.write_reg(size, hi_reg, Val::R(hi));
                Ok(())
            }
            M::Bt => {
                if size == 8 || ins.op_count() != 2 {
                    return Err(Miss::Form);
                }
                // A memory operand with a register offset addresses another
                // unit; only the immediate form stays inside the operand.
                if ins.op_kind(0) == OpKind::Memory && ins.op_kind(1) != OpKind::Immediate8 {
                    return Err(Miss::Form);
                }
                let a = self.read_op(ins, 0, size, exit)?;
                let b = self.read_op(ins, 1, size, exit)?;
                let d = self.temp();
                self.emit(Inst::Fx {
                    op: Fx::Bt,
                    size: size as u8,
                    set: true,
                    d,
                    a,
                    b,
                });
                Ok(())
            }
            m if is_setcc(m) => {
                let cc = crate::ops::branch::cond_code(m).ok_or(Miss::Form)?;
                let d = self.temp();
                self.emit(Inst::Cond { d, cc });
                self.write_op0(ins, 8, Val::R(d), exit)
            }
            m if is_cmovcc(m) => {
                let cc = crate::ops::branch::cond_code(m).ok_or(Miss::Form)?;
                if size == 8 || ins.op_kind(0) != OpKind::Register {
                    return Err(Miss::Form);
                }
                // The memory source is read whatever the condition.
                let src = self.read_op(ins, 1, size, exit)?;
                let old = self.read_op(ins, 0, size, exit)?;
                let c = self.temp();
                self.emit(Inst::Cond { d: c, cc });
                let d = self.temp();
                self.emit(Inst::Sel {
                    d,
                    c: Val::R(c),
                    t: src,
                    f: old,
                });
                self.write_op0(ins, size, Val::R(d), exit)
            }
            _ => Err(Miss::Form),
        }
    }

    /// Stack addresses are ESP through SS, which the program assumes flat like
    /// any other segment it uses.
    fn stack_addr(&mut self, disp: u32) -> Result<Addr, Miss> {
        if self.env.seg_base[seg::SS as usize] != 0 {
            return Err(Miss::Segment);
        }
        self.flat_segs |= 1 << seg::SS;
        Ok(Addr {
            base: Some(ESP),
            index: None,
            scale: 0,
            disp,
        })
    }

    /// 32-bit PUSH (register, immediate, memory) and POP (register, memory), in
    /// the interpreter's order (`Cpu::push`, `pop_r`, `pop_m`): the stack access
    /// comes before ESP moves, so an access that leaves has changed nothing and
    /// the interpreter runs the instruction (and raises its fault) itself.
    fn stack(&mut self, ins: &Instruction, exit: ExitId) -> Result<(), Miss> {
        let esp = Val::R(ESP);
        match ins.code() {
            Code::Push_r32 | Code::Pushd_imm8 | Code::Pushd_imm32 | Code::Push_rm32 => {
                // The value is read with ESP before the push (PUSH ESP pushes
                // the old value, PUSH [ESP+k] addresses with it).
                let v = match ins.op_kind(0) {
                    OpKind::Immediate8to32 | OpKind::Immediate32 => Val::K(ins.immediate(0) as u32),
                    _ => self.read_op(ins, 0, 32, exit)?,
                };
                let addr = self.stack_addr(4u32.wrapping_neg())?;
                self.emit(Inst::Store {
                    size: 32,
                    addr,
                    s: v,
                    win: NO_WIN,
                    exit,
                });
                self.emit(Inst::Alu {
                    op: Alu::Sub,
                    d: ESP,
                    a: esp,
                    b: Val::K(4),
                });
                Ok(())
            }
            Code::Pop_r32 => {
                let r = crate::decode::gpr(ins.op_register(0)).ok_or(Miss::Form)? as VReg;
                let addr = self.stack_addr(0)?;
                // The load leaves before writing its destination; POP ESP keeps
                // the loaded value, not the incremented pointer.
                self.emit(Inst::Load {
                    d: r,
                    size: 32,
                    addr,
                    win: NO_WIN,
                    exit,
                });
                if r != ESP {
                    self.emit(Inst::Alu {
                        op: Alu::Add,
                        d: ESP,
                        a: esp,
                        b: Val::K(4),
                    });
                }
                Ok(())
            }
            Code::Pop_rm32 if ins.op_kind(0) == OpKind::Memory => {
                let addr = self.stack_addr(0)?;
                let v = self.temp();
                self.emit(Inst::Load {
                    d: v,
                    size: 32,
                    addr,
                    win: NO_WIN,
                    exit,
                });
                // The destination is addressed with ESP already incremented.
                let sp = self.temp();
                self.emit(Inst::Alu {
                    op: Alu::Add,
                    d: sp,
                    a: esp,
                    b: Val::K(4),
                });
                let mut dst = self.addr(ins)?;
                for r in [&mut dst.base, &mut dst.index] {
                    if *r == Some(ESP) {
                        *r = Some(sp);
                    }
                }
                self.emit(Inst::Store {
                    size: 32,
                    addr: dst,
                    s: Val::R(v),
                    win: NO_WIN,
                    exit,
                });
                self.emit(Inst::Mov {
                    d: ESP,
                    s: Val::R(sp),
                });
                Ok(())
            }
            _ => Err(Miss::Form),
        }
    }

    /// `op0 = op(op0, b)` through a flag helper. A memory destination computes
    /// the result first and writes the record only after the store, so a store
    /// that leaves has changed nothing.
    fn rmw_fx(
        &mut self,
        ins: &Instruction,
        op: Fx,
        size: u32,
        b: Val,
        exit: ExitId,
    ) -> Result<(), Miss> {
        let a = self.read_op(ins, 0, size, exit)?;
        let d = self.temp();
        let mem = ins.op_kind(0) == OpKind::Memory;
        self.emit(Inst::Fx {
            op,
            size: size as u8,
            set: !mem,
            d,
            a,
            b,
        });
        self.write_op0(ins, size, Val::R(d), exit)?;
        if mem {
            let t = self.temp();
            self.emit(Inst::Fx {
                op,
                size: size as u8,
                set: true,
                d: t,
                a,
                b,
            });
        }
        Ok(())
    }

    fn add(&mut self, a: Val, b: Val) -> Val {
        if a == Val::K(0) {
            return b;
        }
        let t = self.temp();
        self.emit(Inst::Alu {
            op: Alu::Add,
            d: t,
            a,
            b,
        });
        Val::R(t)
    }
}

/// Operand width in bits of the instruction's first operand (8, 16, 32).
fn operand_size(ins: &Instruction) -> Option<u32> {
    if ins.op_count() == 0 {
        return Some(32);
    }
    let s = match ins.op_kind(0) {
        OpKind::Register => crate::ops::reg_size(ins.op_register(0)),
        OpKind::Memory => ins.memory_size().size() as u32 * 8,
        _ => return None,
    };
    if ins.op_kind(0) == OpKind::Register && crate::decode::gpr(ins.op_register(0)).is_none() {
        return None;
    }
    matches!(s, 8 | 16 | 32).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{CODE, EXIT, Machine, assemble};
    use iced_x86::code_asm::*;

    fn env() -> Env {
        Env {
            max_insns: 64,
            stop: (EXIT, 1),
            seg_base: [0; 8],
        }
    }

    fn lower_code(
        f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>,
    ) -> Result<Lowered, Decline> {
        let m = Machine::new();
        let code = assemble(f);
        m.mem.write_bytes(CODE, &code).unwrap();
        MACHINE_CODE.with(|c| *c.borrow_mut() = code.clone());
        lower(&m.mem, CODE, &env())
    }

    fn lut(a: &mut CodeAssembler) -> Result<(), IcedError> {
        let mut head = a.create_label();
        a.set_label(&mut head)?;
        a.movzx(eax, byte_ptr(esi))?;
        a.mov(al, byte_ptr(ebx + eax))?;
        a.mov(byte_ptr(edi), al)?;
        a.inc(esi)?;
        a.inc(edi)?;
        a.dec(ecx)?;
        a.jnz(head)?;
        a.mov(ebp, EXIT)?;
        a.jmp(ebp)
    }

    /// Address of the `n`th instruction at CODE, by an independent decode.
    fn ip_of(_: &Lowered, n: usize) -> u32 {
        let m = MACHINE_CODE.with(|c| c.borrow().clone());
        let mut d = Decoder::with_ip(32, &m, CODE as u64, DecoderOptions::NONE);
        (0..n).for_each(|_| {
            let _ = d.decode();
        });
        d.decode().ip32()
    }

    thread_local! {
        static MACHINE_CODE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn texts(p: &Program, b: usize) -> Vec<String> {
        p.blocks[b].body.iter().map(|i| i.to_string()).collect()
    }

    #[test]
    fn lut_loop_lowers_to_one_self_looping_block() {
        let l = lower_code(lut).unwrap();
        let p = &l.prog;
        assert_eq!(l.insns, 7);
        assert_eq!(p.blocks.len(), 1);
        assert_eq!(p.blocks[0].insns, 7);
        // movzx 3 bytes, mov al 3, mov [edi] 2, inc 1, inc 1, dec 1, jnz 2.
        let Term::Jcc {
            cc: 5,
            t: Target::Block(0),
            f: Target::Exit(x),
        } = p.blocks[0].term
        else {
            panic!("ends in {}", p.blocks[0].term)
        };
        assert_eq!(
            p.exits[x as usize],
            ExitStub {
                eip: CODE + 13,
                insns: 0
            }
        );
        assert_eq!(
            texts(p, 0),
            vec![
                "clock 0 !x0",
                "t0 = load8 [esi] !x0",
                "t1 = zx8 t0",
                "eax = t1",
                "t2 = load8 [ebx+eax] !x1",
                "eax[0..8] = t2",
                "t3 = zx8 eax",
                "store8 [edi], t3 !x2",
                "t4 = add esi, 0x1",
                "flags inc32 t4, esi, 0x1",
                "esi = t4",
                "t5 = add edi, 0x1",
                "flags inc32 t5, edi, 0x1",
                "edi = t5",
                "t6 = sub ecx, 0x1",
                "flags dec32 t6, ecx, 0x1",
                "ecx = t6",
            ]
        );
        // Exits x0..x2 resume at the access's own instruction, with the block's
        // instructions before it retired.
        assert_eq!(
            p.exits[1],
            ExitStub {
                eip: CODE + 3,
                insns: 1
            }
        );
        assert_eq!(
            p.exits[2],
            ExitStub {
                eip: CODE + 6,
                insns: 2
            }
        );
    }

    #[test]
    fn optimised_lut_loop_forwards_the_branch_and_keeps_one_record() {
        let mut p = lower_code(lut).unwrap().prog;
        super::super::passes::optimize(&mut p);
        assert_eq!(
            p.pre.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
            vec![
                "guardr w0 [esi] len 0x1",
                "guardr w1 [ebx+eax] len 0x1",
                "guardw w2 [edi] len 0x1",
            ]
        );
        assert_eq!(
            texts(&p, 0),
            vec![
                "clock 0 !x0",
                "t0 = load8 [esi] w0 !x0",
                "eax = zx8 t0",
                "t2 = load8 [ebx+eax] w1 !x1",
                "eax[0..8] = t2",
                "t3 = zx8 eax",
                "store8 [edi] w2, t3 !x2",
                "esi = add esi, 0x1",
                "edi = add edi, 0x1",
                "t6 = sub ecx, 0x1",
                "flags dec32 t6, ecx, 0x1",
                "ecx = t6",
            ]
        );
        let t = p.blocks[0].term.to_string();
        assert!(t.starts_with("bne dec32 t6, 0x0, 0x0 ? b0 : x"), "{t}");
    }

    #[test]
    fn forward_branch_makes_a_diamond_with_exact_block_sizes() {
        let l = lower_code(|a| {
            let mut head = a.create_label();
            let mut skip = a.create_label();
            a.set_label(&mut head)?;
            a.mov(al, byte_ptr(esi))?;
            a.cmp(al, 0)?;
            a.je(skip)?;
            a.add(edx, eax)?;
            a.set_label(&mut skip)?;
            a.inc(esi)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            a.mov(ebp, EXIT)?;
            a.jmp(ebp)
        })
        .unwrap();
        let p = &l.prog;
        let shape: Vec<(u32, u32, String)> = p
            .blocks
            .iter()
            .map(|b| (b.eip - CODE, b.insns, b.term.to_string()))
            .collect();
        // mov al,[esi] 2 bytes; cmp al,0 2; je 2; add 2; inc 1; dec 1; jnz 2.
        assert_eq!(
            shape,
            vec![
                (0, 3, "je b2, b1".to_string()),
                (6, 4, "jne b0, x10".to_string()),
                (8, 3, "jne b0, x10".to_string()),
            ]
        );
        assert!(l.unmodelled.is_empty());
        // Both back-edge blocks leave through the same stub, after the JNZ.
        assert_eq!(
            p.exits[10],
            ExitStub {
                eip: CODE + 12,
                insns: 0
            }
        );
    }

    #[test]
    fn unmodelled_form_in_the_head_declines_with_its_name() {
        let d = lower_code(|a| {
            let mut head = a.create_label();
            a.set_label(&mut head)?;
            a.bsf(eax, ebx)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            a.mov(ebp, EXIT)?;
            a.jmp(ebp)
        })
        .unwrap_err();
        assert_eq!(d.eip, CODE);
        assert_eq!(d.reason, Reason::Form(Code::Bsf_r32_rm32));
        assert_eq!(d.reason.name(), "Bsf_r32_rm32");
    }

    #[test]
    fn a_side_path_that_cannot_loop_back_becomes_an_exit_at_its_start() {
        let l = lower_code(|a| {
            let mut head = a.create_label();
            let mut side = a.create_label();
            a.set_label(&mut head)?;
            a.dec(ecx)?;
            a.jz(side)?;
            a.add(eax, 3)?;
            a.jmp(head)?;
            a.set_label(&mut side)?;
            a.add(eax, 1)?;
            a.call(0x0050_0000u64)?;
            a.jmp(head)
        })
        .unwrap();
        let p = &l.prog;
        // The CALL ends the side block with an exit, so it never returns to the
        // head inside the program: the JZ leaves instead.
        assert_eq!(p.blocks.len(), 2);
        let Term::Jcc {
            cc: 4,
            t: Target::Exit(x),
            f: Target::Block(1),
        } = p.blocks[0].term
        else {
            panic!("head ends in {}", p.blocks[0].term)
        };
        // The side block starts at the fifth instruction (dec, jz, add, jmp, add).
        assert_eq!(
            p.exits[x as usize],
            ExitStub {
                eip: ip_of(&l, 4),
                insns: 0
            },
            "{p}"
        );
        assert!(l.unmodelled.is_empty());
        assert_eq!(l.insns, 4);
    }

    #[test]
    fn straight_code_has_no_back_edge_and_fs_is_not_flat() {
        let d = lower_code(|a| {
            a.add(eax, 1)?;
            a.mov(ebp, EXIT)?;
            a.jmp(ebp)
        })
        .unwrap_err();
        assert_eq!(d.reason, Reason::Form(Code::Jmp_rm32));
        let d = lower_code(|a| {
            let mut head = a.create_label();
            a.set_label(&mut head)?;
            a.add(eax, 1)?;
            a.jmp(head)?;
            Ok(())
        });
        assert!(d.is_ok());
        let m = Machine::new();
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.set_label(&mut head)?;
            a.mov(eax, dword_ptr(0x18).fs())?;
            a.jmp(head)
        });
        m.mem.write_bytes(CODE, &code).unwrap();
        let mut e = env();
        e.seg_base[seg::FS as usize] = 0x7ffd_e000;
        assert_eq!(lower(&m.mem, CODE, &e).unwrap_err().reason, Reason::Segment);
        let d = lower_code(|a| {
            a.add(eax, 1)?;
            a.ret()
        })
        .unwrap_err();
        assert_eq!(d.reason, Reason::Form(Code::Retnd));
    }
}

#[cfg(test)]
mod stack_tests {
    use super::*;
    use crate::harness::{CODE, EXIT, Machine, assemble};
    use iced_x86::code_asm::*;

    /// Each stack access goes before the ESP update of its instruction (so an
    /// exit there leaves ESP as it was), POP to memory addresses with ESP already
    /// incremented, and every stack access shares one written window on ESP.
    #[test]
    fn push_and_pop_access_the_stack_before_esp_moves() {
        let m = Machine::new();
        let code = assemble(|a| {
            let mut head = a.create_label();
            a.set_label(&mut head)?;
            a.push(eax)?;
            a.push(dword_ptr(esi))?;
            a.pop(dword_ptr(esp + 4))?;
            a.pop(ebx)?;
            a.dec(ecx)?;
            a.jnz(head)?;
            a.mov(ebp, EXIT)?;
            a.jmp(ebp)
        });
        m.mem.write_bytes(CODE, &code).unwrap();
        let env = Env {
            max_insns: 64,
            stop: (EXIT, 1),
            seg_base: [0; 8],
        };
        let l = lower(&m.mem, CODE, &env).unwrap();
        assert!(l.unmodelled.is_empty());
        assert_eq!(l.flat_segs & (1 << seg::SS), 1 << seg::SS);
        let mut p = l.prog;
        super::super::passes::optimize(&mut p);
        let text = |v: &[Inst]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>();
        assert_eq!(
            text(&p.pre),
            vec![
                "guardw w0 [esp+0xfffffffc] len 0x10",
                "guardr w1 [esi] len 0x4"
            ]
        );
        assert_eq!(
            text(&p.blocks[0].body),
            vec![
                "clock 0 !x0",
                // push eax (1 byte)
                "store32 [esp+0xfffffffc] w0, eax !x0",
                "esp = sub esp, 0x4",
                // push [esi] (2 bytes): load and store leave at the same place.
                "t0 = load32 [esi] w1 !x1",
                "store32 [esp+0xfffffffc] w0, t0 !x1",
                "esp = sub esp, 0x4",
                // pop [esp+4] (4 bytes): the store's address is the new ESP + 4.
                "t1 = load32 [esp] w0 !x2",
                "t2 = add esp, 0x4",
                "store32 [esp+0x8] w0, t1 !x2",
                "esp = t2",
                // pop ebx
                "ebx = load32 [esp] w0 !x3",
                "esp = add esp, 0x4",
                "t3 = sub ecx, 0x1",
                "flags dec32 t3, ecx, 0x1",
                "ecx = t3",
            ]
        );
        let stubs: Vec<(u32, u32)> = p.exits[..4]
            .iter()
            .map(|x| (x.eip - CODE, x.insns))
            .collect();
        assert_eq!(stubs, vec![(0, 0), (1, 1), (3, 2), (7, 3)]);
    }
}

#[cfg(test)]
mod call_tests {
    use super::*;
    use crate::harness::{CODE, EXIT, Machine, assemble};
    use iced_x86::code_asm::*;

    /// Two calls of one leaf function: each call gets its own copy of the
    /// callee's blocks, placed between the call and its return site; each RET
    /// checks for its own call's return address and leaves at the RET (with the
    /// instructions before it in its block) otherwise.
    #[test]
    fn each_call_inlines_its_own_copy_of_the_callee() {
        let m = Machine::new();
        let code = assemble(|a| {
            let mut head = a.create_label();
            let mut f = a.create_label();
            let mut skip = a.create_label();
            a.set_label(&mut head)?;
            a.call(f)?; // +0, 5 bytes
            a.call(f)?; // +5
            a.dec(ecx)?; // +0xa
            a.jnz(head)?; // +0xb
            a.mov(ebp, EXIT)?; // +0xd
            a.jmp(ebp)?; // +0x12
            a.set_label(&mut f)?;
            a.test(eax, eax)?; // +0x14
            a.jz(skip)?; // +0x16
            a.inc(edx)?; // +0x18
            a.set_label(&mut skip)?;
            a.ret_1(4) // +0x19
        });
        m.mem.write_bytes(CODE, &code).unwrap();
        let env = Env {
            max_insns: 64,
            stop: (EXIT, 1),
            seg_base: [0; 8],
        };
        let l = lower(&m.mem, CODE, &env).unwrap();
        assert!(l.unmodelled.is_empty());
        let p = &l.prog;
        let shape: Vec<(u32, u32, String)> = p
            .blocks
            .iter()
            .map(|b| (b.eip - CODE, b.insns, b.term.to_string()))
            .collect();
        let s = |e: u32, n: u32, t: &str| (e, n, t.to_string());
        assert_eq!(
            shape,
            vec![
                s(0, 1, "jmp b1"),
                s(0x14, 2, "je b3, b2"),
                s(0x18, 2, "jmp b4"),
                s(0x19, 1, "jmp b4"),
                s(5, 1, "jmp b5"),
                s(0x14, 2, "je b7, b6"),
                s(0x18, 2, "jmp b8"),
                s(0x19, 1, "jmp b8"),
                s(
                    0xa,
                    2,
                    &format!(
                        "jne b0, x{}",
                        p.exits.iter().position(|x| x.eip == CODE + 0xd).unwrap()
                    )
                ),
            ]
        );
        let body = |b: usize| {
            p.blocks[b]
                .body
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
        };
        let call = body(4);
        assert_eq!(call[1], "store32 [esp+0xfffffffc], 0x40000a !x6");
        assert_eq!(call[2], "esp = sub esp, 0x4");
        let ret = body(6);
        assert_eq!(
            &ret[4..],
            [
                "t6 = load32 [esp] !x4",
                "check t6 == 0x40000a !x4",
                "esp = add esp, 0x8"
            ]
        );
        assert_eq!(
            p.exits[4],
            ExitStub {
                eip: CODE + 0x19,
                insns: 1
            }
        );
        assert_eq!(
            p.exits[6],
            ExitStub {
                eip: CODE + 5,
                insns: 0
            }
        );
    }
}
