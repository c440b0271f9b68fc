//! LUT_SPAN (loop-idiom-superinstructions.md §17): a fixed, unrolled run of LUT units
//! inside a block, folded into one threaded op; and the attach point for the tiers
//! that are not self-loop folds.
//!
//! A unit is `xor p,p / mov p8,[src+d] / mov t8,[table+p] / mov [dst+e],t8` or
//! `movzx p,byte [src+d] / movzx|mov t,[table+p] / mov [dst+e],t8`, matched on roles
//! over the decoded instructions (any registers: `p` the zero-extended index, `t` the
//! looked-up byte, `table` an invariant register and/or displacement). A span is four
//! or more consecutive units of one form and one register assignment whose source and
//! destination displacements step by exactly +1 or -1 per unit, with no address
//! register written inside the span. Anything else (a gap, a changed base, a scaled
//! index) is a near miss and stays plain.
//!
//! The first op of the span gets the span handler; the other span ops stay in the
//! array (so an op's index is still its instruction's index in the block, which the
//! run loop's fault and code-write accounting relies on) and carry their role and
//! register in `x`/`r`. Instructions are still charged per block by the run loop, so
//! pacing is unchanged. The handler:
//! - verifies once per run, a page at a time, that the source and table extents are
//!   readable and the destination extent writable and free of decoded code; then
//!   when the destination overlaps neither the source nor the table, reads the
//!   source extent with one `read_bytes`, looks every byte up and writes the
//!   destination extent with one `write_bytes`; otherwise runs the units in order
//!   from precomputed addresses (load, lookup, store, element by element, so a span
//!   over its own source or the table behaves as in the guest); either way it leaves
//!   the registers and flags of the last unit (the flags of its `xor`, which read
//!   what the unit before left);
//! - otherwise runs unit by unit with every access checked: a failing access raises
//!   that instruction's exception with the state before it, a store into decoded code
//!   ends the block after the store (`Exit::CodeWrite`), exactly as the handlers do.

use super::fold::{Mem, Step};
use super::{Decline, Tier, Tiers};
use crate::cpu::flags::FlagOp;
use crate::cpu::{Cpu, Exit};
use crate::exec::cache::Block;
use crate::exec::chain::ChainState;
use crate::exec::op::{self, Op};
use crate::mem::{Fault, GuestMemory, Wrote};
use iced_x86::{Decoder, DecoderOptions, Instruction};
use std::sync::atomic::Ordering;

/// Fewest units a span folds (the seed's four output pixels).
pub const MIN_UNITS: usize = 4;

/// Longest span the buffered form takes (a block holds at most 64 instructions).
const BUF: usize = 64;

// Roles of span ops, in `Op::x`.
const ZERO: u8 = 1;
const LOAD8: u8 = 2;
const LOADZX: u8 = 3;
const LOOK8: u8 = 4;
const LOOKZX: u8 = 5;
const STORE8: u8 = 6;

/// Attaches the tiers that are not self-loop folds to a freshly decoded block:
/// `case_chain` (a ladder rung) and `lut_span` (spans inside the block).
pub fn attach(mem: &GuestMemory, b: &mut Block, tiers: &Tiers, stop: (u32, u32)) {
    super::case_chain::attach(mem, b, tiers, stop);
    if b.fold.is_none() {
        attach_spans(mem, b, tiers);
    }
}

/// Whether `lut_span` or `case_chain` would fold `b` (with their gates on): other
/// tiers that would absorb the block (the block/region executor) leave it to them.
pub fn would_fold(mem: &GuestMemory, b: &Block) -> bool {
    let probe = Tiers::all(true);
    let mut c = Block::new(b.ops.to_vec(), b.start, b.end, b.ninsn);
    attach(mem, &mut c, &probe, (0, 0));
    c.fold.is_some() || probe.stats(Tier::LutSpan).snapshot().matches > 0
}

/// Adds span counters gathered by the handlers during a run to the tier stats;
/// returns the span ops the run loop counted as dispatched that never were.
pub fn flush_stats(ch: &mut ChainState, tiers: &Tiers) -> u64 {
    let runs = std::mem::take(&mut ch.span_runs);
    let units = std::mem::take(&mut ch.span_units);
    let bulk = std::mem::take(&mut ch.span_bulk);
    if runs > 0 {
        let st = tiers.stats(Tier::LutSpan);
        st.runs.fetch_add(runs, Ordering::Relaxed);
        st.iterations.fetch_add(runs, Ordering::Relaxed);
        st.elements.fetch_add(units, Ordering::Relaxed);
        st.bulk.fetch_add(bulk, Ordering::Relaxed);
    }
    std::mem::take(&mut ch.span_skipped)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Unit {
    /// Instructions in the unit (4 with the `xor`, 3 with a `movzx` load).
    len: usize,
    /// The zero-extended index register (32-bit number).
    p: u8,
    load_zx: bool,
    src: Mem,
    /// The lookup: destination register (8-bit number, or 32-bit for `movzx`).
    t: u8,
    look_zx: bool,
    table: Mem,
    dst: Mem,
}

impl Unit {
    /// The same form and registers, addresses apart from the displacements.
    fn like(&self, o: &Unit) -> bool {
        let strip = |m: Mem| Mem { disp: 0, ..m };
        self.len == o.len
            && self.p == o.p
            && self.load_zx == o.load_zx
            && self.t == o.t
            && self.look_zx == o.look_zx
            && self.table == o.table
            && strip(self.src) == strip(o.src)
            && strip(self.dst) == strip(o.dst)
    }
}

fn unit_at(steps: &[Option<Step>], insns: &[Instruction], k: usize) -> Option<Unit> {
    let at = |i: usize| steps.get(i).copied().flatten();
    let (xor, o) = match at(k)? {
        Step::Zero { r } => (Some(r), 1),
        _ => (None, 0),
    };
    let (p, load_zx, src) = match at(k + o)? {
        Step::Load {
            dst,
            bits: 8,
            mbits: 8,
            zx: false,
            m,
        } if xor == Some(dst) && dst < 4 => (dst, false, m),
        Step::Load {
            dst,
            bits: 32,
            mbits: 8,
            zx: true,
            m,
        } if xor.is_none() => (dst, true, m),
        _ => return None,
    };
    let (t, look_zx, table) = match at(k + o + 1)? {
        Step::Load {
            dst,
            bits: 8,
            mbits: 8,
            zx: false,
            m,
        } => (dst, false, m),
        Step::Load {
            dst,
            bits: 32,
            mbits: 8,
            zx: true,
            m,
        } if dst < 4 => (dst, true, m),
        _ => return None,
    };
    let dst = match at(k + o + 2)? {
        Step::Store { src, bits: 8, m } if src == t => m,
        _ => return None,
    };
    // The table is indexed by p alone (unscaled); the other component is invariant.
    let by_base = table.base == p && table.index != p;
    let by_index = table.index == p && table.base != p && table.scale == 0;
    if !(by_base || by_index) {
        return None;
    }
    let t32 = if look_zx { t } else { t & 3 };
    let written = [p, t32];
    let invariant = |m: &Mem| [m.base, m.index].iter().all(|r| !written.contains(r));
    let other = if by_base { table.index } else { table.base };
    if !invariant(&src) || !invariant(&dst) || written.contains(&other) {
        return None;
    }
    // No segment overrides (the seed's "segmented forms").
    if insns[k + o..k + o + 3]
        .iter()
        .any(|i| i.segment_prefix() != iced_x86::Register::None)
    {
        return None;
    }
    Some(Unit {
        len: o + 3,
        p,
        load_zx,
        src,
        t,
        look_zx,
        table,
        dst,
    })
}

fn attach_spans(mem: &GuestMemory, b: &mut Block, tiers: &Tiers) {
    if cfg!(feature = "dispatch-loop") || b.ninsn < (MIN_UNITS * 3) as u32 {
        return; // the per-block dispatch loop would run the skipped ops
    }
    let len = b.end.wrapping_sub(b.start) as usize;
    let mut bytes = vec![0u8; len];
    if mem.read_bytes(b.start, &mut bytes).is_err() {
        return;
    }
    let insns: Vec<Instruction> =
        Decoder::with_ip(32, &bytes, b.start as u64, DecoderOptions::NONE)
            .into_iter()
            .collect();
    let n = b.ninsn as usize;
    if insns.len() < n || (0..n).any(|k| insns[k].ip32() != b.ops[k].eip) {
        return;
    }
    let steps: Vec<Option<Step>> = insns[..n].iter().map(super::fold::step_of).collect();
    let stats = tiers.stats(Tier::LutSpan);
    let mut k = 0;
    while k < n {
        let Some(first) = unit_at(&steps, &insns, k) else {
            k += 1;
            continue;
        };
        // Units of one form and register assignment in a row.
        let mut units = vec![first];
        while let Some(u) = unit_at(&steps, &insns, k + units.len() * first.len) {
            if !u.like(&first) {
                break;
            }
            units.push(u);
        }
        // The longest prefix whose displacements step by one byte per unit.
        let step = |f: fn(&Unit) -> u32| {
            if units.len() < 2 {
                return 0;
            }
            f(&units[1]).wrapping_sub(f(&units[0]))
        };
        let ds = step(|u| u.src.disp);
        let de = step(|u| u.dst.disp);
        let unit_step = |d: u32| d == 1 || d == u32::MAX;
        let mut good = 1;
        if unit_step(ds) && unit_step(de) {
            while good < units.len()
                && units[good].src.disp == first.src.disp.wrapping_add(ds.wrapping_mul(good as u32))
                && units[good].dst.disp == first.dst.disp.wrapping_add(de.wrapping_mul(good as u32))
            {
                good += 1;
            }
        }
        let span = first.len * good;
        if good < MIN_UNITS {
            if units.len() >= MIN_UNITS {
                stats.declines[Decline::Address as usize].fetch_add(1, Ordering::Relaxed);
                k += first.len * units.len();
            } else {
                k += 1;
            }
            continue;
        }
        // The op after the span always exists (a branch or the block-end op).
        if k + span >= b.ops.len() {
            return;
        }
        if !tiers.is_on(Tier::LutSpan) {
            stats.declines[Decline::GateOff as usize].fetch_add(1, Ordering::Relaxed);
            k += span;
            continue;
        }
        stats.matches.fetch_add(1, Ordering::Relaxed);
        for g in 0..good {
            let base = k + g * first.len;
            let o = first.len - 3;
            if o == 1 {
                let z = &mut b.ops[base];
                z.x = ZERO;
                z.r = first.p;
            }
            let l = &mut b.ops[base + o];
            l.x = if first.load_zx { LOADZX } else { LOAD8 };
            l.r = first.p;
            let t = &mut b.ops[base + o + 1];
            t.x = if first.look_zx { LOOKZX } else { LOOK8 };
            t.r = first.t;
            t.imm2 = first.p as u32;
            let s = &mut b.ops[base + o + 2];
            s.x = STORE8;
            s.r = first.t;
        }
        let h = &mut b.ops[k];
        h.imm = span as u32;
        h.imm2 = first.len as u32;
        h.h = span_op;
        k += span;
    }
}

/// How a verified run ended early.
enum Stop {
    /// Continue exactly from this op (an access that the page check passed failed:
    /// another thread changed the mapping).
    Exact(usize),
    /// The store at this op wrote into decoded code: the block ends after it.
    Code(usize),
}

/// Table base: the lookup's address with the index register (kept in the lookup
/// op's `imm2` by [`attach_spans`]) taken as zero.
#[inline(always)]
fn table_base(cpu: &Cpu, o: &Op) -> u32 {
    let p = o.imm2 as u8;
    let reg = |r: u8| {
        if r == p {
            0
        } else {
            cpu.regs[(r & 15) as usize]
        }
    };
    o.disp
        .wrapping_add(reg(o.base))
        .wrapping_add(reg(o.index) << (o.scale & 3))
        .wrapping_add(cpu.seg_base[(o.seg & 7) as usize])
}

/// One span op with its handler's semantics.
#[inline(always)]
fn exact(cpu: &mut Cpu, o: &Op) -> Result<Wrote, Fault> {
    match o.x {
        ZERO => {
            let a = cpu.r32(o.r);
            cpu.flags.set(FlagOp::Logic, 32, 0, a, a);
            cpu.set_r32(o.r, 0);
        }
        LOAD8 | LOOK8 => {
            let v = cpu.mem.read_u8(cpu.ea(o))?;
            cpu.set_reg(8, o.r, v as u32);
        }
        LOADZX | LOOKZX => {
            let v = cpu.mem.read_u8(cpu.ea(o))?;
            cpu.set_r32(o.r, v as u32);
        }
        _ => {
            let v = cpu.reg(8, o.r);
            return cpu.mem.write_u8(cpu.ea(o), v as u8);
        }
    }
    Ok(Wrote::Data)
}

/// Writes one unit's registers (and the `xor`'s flags) for source byte `v` and table
/// byte `tv`, as the unit's instructions would.
#[inline(always)]
fn unit_regs(cpu: &mut Cpu, ops: &[Op], u: usize, v: u8, tv: u8) {
    let o = u - 3;
    if o == 1 {
        let z = &ops[0];
        let a = cpu.r32(z.r);
        cpu.flags.set(FlagOp::Logic, 32, 0, a, a);
        cpu.set_r32(z.r, 0);
    }
    let (l, t) = (&ops[o], &ops[o + 1]);
    if l.x == LOADZX {
        cpu.set_r32(l.r, v as u32);
    } else {
        cpu.set_reg(8, l.r, v as u32);
    }
    if t.x == LOOKZX {
        cpu.set_r32(t.r, tv as u32);
    } else {
        cpu.set_reg(8, t.r, tv as u32);
    }
}

/// The page-verified path: `Ok(true)` when every unit ran, `Ok(false)` when the pages
/// could not be verified (nothing ran).
///
/// The source, destination and table extents are checked once, a page at a time;
/// then the units run in order (load, lookup, store, element by element, so spans
/// that overlap themselves or the table behave as in the guest) and only the last
/// two units' register effects are replayed at the end. An access that fails all the
/// same (another thread changed the mapping) or a store that finds code stops the
/// run at that unit's boundary with its registers published.
fn verified(cpu: &mut Cpu, ops: &[Op], i: usize, n: usize, u: usize) -> Result<bool, Stop> {
    let o = u - 3;
    let (l0, t0, s0) = (&ops[i + o], &ops[i + o + 1], &ops[i + o + 2]);
    let last = i + (n - 1) * u + o;
    let (sa0, san) = (cpu.ea(l0), cpu.ea(&ops[last]));
    let (da0, dan) = (cpu.ea(s0), cpu.ea(&ops[last + 2]));
    let tb = table_base(cpu, t0);
    let extent = |a: u32, b: u32| {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        (hi - lo == n as u32 - 1).then_some((lo, hi))
    };
    let (Some(src), Some(dst)) = (extent(sa0, san), extent(da0, dan)) else {
        return Ok(false);
    };
    let Some(tend) = tb.checked_add(255) else {
        return Ok(false);
    };
    let mem = &cpu.mem;
    if !(mem.fast_page(src.0, false)
        && mem.fast_page(src.1, false)
        && mem.fast_page(tb, false)
        && mem.fast_page(tend, false)
        && mem.fast_page(dst.0, true)
        && mem.fast_page(dst.1, true))
    {
        return Ok(false);
    }
    let disjoint = |a: (u32, u32), b: (u32, u32)| a.1 < b.0 || b.1 < a.0;
    if n <= BUF && disjoint(dst, src) && disjoint(dst, (tb, tend)) {
        // Nothing the span stores is read by it: one read of the source extent, one
        // write of the destination extent.
        let mut sbuf = [0u8; BUF];
        let mut dbuf = [0u8; BUF];
        let down_s = san < sa0;
        let down_d = dan < da0;
        let at = |k: usize, down: bool| if down { n - 1 - k } else { k };
        let mut vals = [(0u8, 0u8); 2];
        let ok = mem.read_bytes(src.0, &mut sbuf[..n]).is_ok()
            && (0..n).all(|k| {
                let v = sbuf[at(k, down_s)];
                let Ok(tv) = mem.read_u8(tb.wrapping_add(v as u32)) else {
                    return false;
                };
                dbuf[at(k, down_d)] = tv;
                vals = [vals[1], (v, tv)];
                true
            })
            && mem.write_bytes(dst.0, &dbuf[..n]).is_ok();
        if !ok {
            // Nothing was stored (write_bytes checks before writing): run it exactly.
            return Err(Stop::Exact(i));
        }
        if n >= 2 {
            let (v, t) = vals[0];
            unit_regs(cpu, &ops[i + (n - 2) * u..], u, v, t);
        }
        let (v, t) = vals[1];
        unit_regs(cpu, &ops[i + (n - 1) * u..], u, v, t);
        return Ok(true);
    }
    let ds = if san < sa0 { u32::MAX } else { 1 };
    let dd = if dan < da0 { u32::MAX } else { 1 };
    let (mut sa, mut da) = (sa0, da0);
    let mut vals = [(0u8, 0u8); 2];
    let mut stop = None;
    let mut done = n;
    for k in 0..n {
        let Ok(v) = mem.read_u8(sa) else {
            (done, stop) = (k, Some(Stop::Exact(i + k * u)));
            break;
        };
        let Ok(tv) = mem.read_u8(tb.wrapping_add(v as u32)) else {
            (done, stop) = (k, Some(Stop::Exact(i + k * u)));
            break;
        };
        match mem.write_u8(da, tv) {
            Ok(Wrote::Data) => {}
            Ok(Wrote::Code) => {
                vals = [vals[1], (v, tv)];
                (done, stop) = (k + 1, Some(Stop::Code(i + k * u + o + 2)));
                break;
            }
            Err(_) => {
                (done, stop) = (k, Some(Stop::Exact(i + k * u)));
                break;
            }
        }
        vals = [vals[1], (v, tv)];
        sa = sa.wrapping_add(ds);
        da = da.wrapping_add(dd);
    }
    // Registers (and the last xor's flags, which read what the unit before left).
    if done >= 2 {
        let (v, t) = vals[0];
        unit_regs(cpu, &ops[i + (done - 2) * u..], u, v, t);
    }
    if done >= 1 {
        let (v, t) = vals[1];
        unit_regs(cpu, &ops[i + (done - 1) * u..], u, v, t);
    }
    match stop {
        None => Ok(true),
        Some(s) => Err(s),
    }
}

/// The span handler (on the span's first op).
pub fn span_op(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let len = ops[i].imm as usize;
    let u = ops[i].imm2 as usize;
    let n = len / u;
    let j = i + len;
    let from = match verified(cpu, ops, i, n, u) {
        Ok(true) => {
            cpu.chain.span_bulk += 1;
            None
        }
        Ok(false) => Some(i),
        Err(Stop::Exact(k)) => Some(k),
        Err(Stop::Code(k)) => {
            skipped(cpu, k - i);
            return op::code_written(cpu, ops, k);
        }
    };
    if let Some(from) = from {
        for k in from..j {
            match exact(cpu, &ops[k]) {
                Ok(Wrote::Data) => {}
                Ok(Wrote::Code) => {
                    skipped(cpu, k - i);
                    return op::code_written(cpu, ops, k);
                }
                Err(f) => {
                    skipped(cpu, k - i);
                    return op::fault(cpu, ops, k, f);
                }
            }
        }
    }
    skipped(cpu, len - 1);
    cpu.chain.span_runs += 1;
    cpu.chain.span_units += n as u64;
    (ops[j].h)(cpu, ops, j)
}

/// The run loop counts one dispatch per op up to where the block ended; the span's
/// other ops were not dispatched.
#[inline(always)]
fn skipped(cpu: &mut Cpu, k: usize) {
    cpu.chain.span_skipped += k as u64;
}
