//! X87_FUSION: a run of consecutive x87 instructions inside a block (a load /
//! multiply / add / store pipeline, an island of x87 between integer ops, a
//! `fcom / fnstsw ax` pair) runs as one threaded op without per-instruction dispatch.
//!
//! The first op of the run gets [`super::x87_fuse_exec::fused`]; the other ops stay
//! in the array (so an op's index is still its instruction's index in the block,
//! which the run loop's fault and code-write accounting relies on) and carry their
//! kind in `Op::size`, which no x87 handler reads. The first op keeps its own
//! handler reachable through [`handler`] (its `Op::imm`, unused by x87 forms, is the
//! slot); its `Op::r` is the run length.
//!
//! A run may take in the status read-back after FNSTSW AX (TEST/SETcc/MOVZX kinds)
//! and up to [`MAX_BRIDGE`] integer moves between two x87 stretches of a block (an
//! island between integer ops), which the fused op runs as `ops::alu`'s handlers do.
//! A run that is chains joined by such moves gets `fused_chain`; one whose stack use
//! [`super::x87_burst::plan`] can prove at entry gets `fused_burst`; any other,
//! `fused`.
//!
//! Exactness: each inline kind is the handler's own code path, operation for
//! operation, built on the same semantic helpers (`ops::x87::arith`, `load_src`,
//! the `Fpu` stack methods); whenever a handler would take a path the kind does not
//! copy (an empty or full register, a raw MMX payload, a store that needs the slow
//! rounding), and for every form without an inline kind, the fused op calls the
//! instruction's own handler on a two-op slice whose second op returns. A fault or
//! a pending unmasked exception ends the block at that instruction exactly as the
//! handler would (same `exit_at`, same `pending`), a store into decoded code ends it
//! after the store. Instructions are charged by the run loop per block, so pacing
//! is unchanged; a run never crosses a block boundary, the only place a budget slice
//! can end.

use super::{Decline, Tier, Tiers};
use crate::exec::cache::Block;
use crate::exec::chain::ChainState;
use crate::exec::op::{Handler, Op, iced_code};
use iced_x86::Code;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};

// Kinds (in `Op::size` of every op of a run).
pub const CALL: u8 = 0;
pub const FLD_M32: u8 = 1;
pub const FLD_M64: u8 = 2;
pub const FST_M32: u8 = 3;
pub const FSTP_M32: u8 = 4;
pub const FST_M64: u8 = 5;
pub const FSTP_M64: u8 = 6;
pub const FLD_STI: u8 = 7;
pub const FXCH: u8 = 8;
pub const FST_STI: u8 = 9;
pub const FSTP_STI: u8 = 10;
pub const FNSTSW_AX: u8 = 11;
pub const FSTSW_AX: u8 = 12;
/// `ST(0) op= m32` for op in ADD..DIVR (`ops::x87::arith` numbering).
pub const ARITH_M32: u8 = 16;
pub const ARITH_M64: u8 = 24;
/// `ST(0) op= ST(i)`.
pub const ARITH_ST0_STI: u8 = 32;
/// `ST(i) op= ST(0)`.
pub const ARITH_STI_ST0: u8 = 40;
/// `ST(i) op= ST(0)` and pop.
pub const ARITH_STIP_ST0: u8 = 48;

/// FCOM/FCOMP m32/m64, FCOMPP, FUCOMPP.
pub const FCOM_M32: u8 = 56;
pub const FCOMP_M32: u8 = 57;
pub const FCOM_M64: u8 = 58;
pub const FCOMP_M64: u8 = 59;
pub const FCOMPP: u8 = 60;
pub const FUCOMPP: u8 = 61;

/// The integer instructions of the status read-back idiom (`fnstsw ax; test ah,
/// imm8; setcc r8`), which a run takes in after its FNSTSW AX: `test r8, imm8`
/// (`Op::r`, `Op::imm` as `ops::alu` lowered it) and SETcc r8 (`Op::rm`; the
/// condition number is put in `Op::x`, which SETcc's handler does not read).
pub const TEST_R8: u8 = 64;
pub const SETCC_R8: u8 = 65;
/// `movzx r32, r8` after the SETcc (`Op::r` destination, `Op::rm` source).
pub const MOVZX_R8: u8 = 66;

/// Integer moves that join two x87 stretches of a block into one run (an island
/// between integer ops): `mov m32, r32` and `mov r32, m32` (`Op::r` the register),
/// as `ops::alu`'s `mov_mr::<32>` / `mov_rm::<32>`.
pub const MOV_M32_R32: u8 = 67;
pub const MOV_R32_M32: u8 = 68;
/// Most integer moves between two x87 stretches that a run takes in.
const MAX_BRIDGE: usize = 3;

/// Fewest instructions a fused run has (one instruction gains nothing).
pub const MIN_RUN: usize = 2;
/// Fewest inline kinds in a run: a run of handler calls only is slower than the
/// threaded ops it replaces.
pub const MIN_INLINE: usize = 2;

/// Whether `k` is an `ST(0) op= m32/m64` kind.
pub(super) fn is_arith_m(k: u8) -> bool {
    (ARITH_M32..ARITH_M32 + 6).contains(&k) || (ARITH_M64..ARITH_M64 + 6).contains(&k)
}

/// Length of the *chain* a run starts with (0: none), which the fused op runs on
/// one value held in a local (`x87_fuse_exec::chain`): FLD m32/m64, then any
/// number of `ST(0) op= m32/m64`, then optionally FSTP m32/m64 or FCOMP m32/m64
/// (the latter optionally followed by FNSTSW AX, `test r8, imm8`, SETcc r8,
/// `movzx r32, r8`).
/// Shorter than two: no chain.
pub fn chain_len(kinds: &[u8]) -> u8 {
    if !matches!(kinds.first(), Some(&FLD_M32) | Some(&FLD_M64)) {
        return 0;
    }
    let mut n = 1;
    while n < kinds.len() && is_arith_m(kinds[n]) {
        n += 1;
    }
    match kinds.get(n) {
        Some(&(FSTP_M32 | FSTP_M64)) => n += 1,
        Some(&(FCOMP_M32 | FCOMP_M64)) => {
            n += 1;
            if kinds.get(n) == Some(&FNSTSW_AX) {
                n += 1;
                if kinds.get(n) == Some(&TEST_R8) {
                    n += 1;
                    if kinds.get(n) == Some(&SETCC_R8) {
                        n += 1;
                        if kinds.get(n) == Some(&MOVZX_R8) {
                            n += 1;
                        }
                    }
                }
            }
        }
        _ => {}
    }
    if n < 2 {
        0
    } else {
        n.min(u8::MAX as usize) as u8
    }
}

/// Bits in `Op::rm` of an inline kind with a memory operand (no x87 memory form and
/// neither integer move reads `Op::rm`): a chain's `fmul m32` whose factors both
/// have at most 24 significant bits (the chain's value came straight from FLD m32;
/// see [`narrow_products`]) ...
pub const NARROW_PRODUCT: u8 = 1;
/// ... and an operand with no index register under 32-bit addressing, whose
/// effective address is `disp + base + segment base`
/// ([`super::x87_fuse_exec::run_ea`]).
pub const BASE_DISP: u8 = 2;

/// The positions in a chain (its kinds, FLD first) of the `fmul m32` steps whose
/// product is exact in double precision, known from the operand widths alone: the
/// chain's value has at most `w` significant bits (24 after FLD m32, 53 after
/// FLD m64 or anything inexact), an m32 factor at most 24, and a product of
/// significands of `w + 24 <= 53` bits needs no rounding. Two values loaded from
/// m32 (normal or zero: the chain's FLD and a fast-path operand exclude the rest)
/// multiply to a magnitude in 2^-252 .. 2^256, inside the normal double range.
pub fn narrow_products(chain: &[u8]) -> Vec<usize> {
    let mut w = match chain.first() {
        Some(&FLD_M32) => 24,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (d, &k) in chain.iter().enumerate().skip(1) {
        if k == ARITH_M32 + crate::ops::x87::MUL && w + 24 <= 53 {
            out.push(d);
            w += 24;
        } else if is_arith_m(k) {
            w = 53;
        } else {
            break;
        }
    }
    out
}

/// The lengths of the chains a run is made of, when it is chains joined by integer
/// moves (each chain is its own [`chain_len`]); None otherwise.
pub fn chain_segments(kinds: &[u8]) -> Option<Vec<(usize, u8)>> {
    let mut out = Vec::new();
    let mut j = 0;
    while j < kinds.len() {
        if matches!(kinds[j], MOV_M32_R32 | MOV_R32_M32) {
            j += 1;
            continue;
        }
        let n = chain_len(&kinds[j..]) as usize;
        let next = kinds.get(j + n);
        if n == 0 || !(next.is_none() || matches!(next, Some(&(MOV_M32_R32 | MOV_R32_M32)))) {
            return None;
        }
        out.push((j, n as u8));
        j += n;
    }
    Some(out)
}

/// The integer-move kind of a non-x87 op with a memory operand.
fn int_kind(o: &Op) -> Option<u8> {
    if o.seg == crate::cpu::seg::NONE {
        return None;
    }
    match iced_code(o.code) {
        Code::Mov_rm32_r32 => Some(MOV_M32_R32),
        Code::Mov_r32_rm32 => Some(MOV_R32_M32),
        _ => None,
    }
}

/// Whether the iced `Code` is an x87 instruction (a legacy D8-DF opcode).
fn is_x87(c: Code) -> bool {
    let oc = c.op_code();
    if oc.encoding() != iced_x86::EncodingKind::Legacy
        || oc.table() != iced_x86::OpCodeTableKind::Normal
    {
        return false;
    }
    let first = if oc.op_code_len() == 2 {
        oc.op_code() >> 8
    } else {
        oc.op_code()
    };
    (0xd8..=0xdf).contains(&first)
}

/// The inline kind of an x87 form, mirroring the lowering in ops/x87 (which handler
/// each iced `Code` gets); anything else is [`CALL`].
pub fn kind(c: Code) -> u8 {
    use crate::ops::x87::{ADD, DIV, DIVR, MUL, SUB, SUBR};
    use Code::*;
    let op = |m: iced_x86::Mnemonic| -> u8 {
        use iced_x86::Mnemonic::*;
        match m {
            Fadd | Faddp => ADD,
            Fmul | Fmulp => MUL,
            Fsub | Fsubp => SUB,
            Fsubr | Fsubrp => SUBR,
            Fdiv | Fdivp => DIV,
            _ => DIVR,
        }
    };
    match c {
        Fld_m32fp => FLD_M32,
        Fld_m64fp => FLD_M64,
        Fst_m32fp => FST_M32,
        Fstp_m32fp => FSTP_M32,
        Fst_m64fp => FST_M64,
        Fstp_m64fp => FSTP_M64,
        Fld_sti => FLD_STI,
        Fxch_st0_sti | Fxch_st0_sti_DDC8 | Fxch_st0_sti_DFC8 => FXCH,
        Fst_sti => FST_STI,
        Fstp_sti => FSTP_STI,
        Fnstsw_AX => FNSTSW_AX,
        Fcom_m32fp => FCOM_M32,
        Fcomp_m32fp => FCOMP_M32,
        Fcom_m64fp => FCOM_M64,
        Fcomp_m64fp => FCOMP_M64,
        Fcompp => FCOMPP,
        Fucompp => FUCOMPP,
        Fstsw_AX => FSTSW_AX,
        Fadd_m32fp | Fmul_m32fp | Fsub_m32fp | Fsubr_m32fp | Fdiv_m32fp | Fdivr_m32fp => {
            ARITH_M32 + op(c.mnemonic())
        }
        Fadd_m64fp | Fmul_m64fp | Fsub_m64fp | Fsubr_m64fp | Fdiv_m64fp | Fdivr_m64fp => {
            ARITH_M64 + op(c.mnemonic())
        }
        Fadd_st0_sti | Fmul_st0_sti | Fsub_st0_sti | Fsubr_st0_sti | Fdiv_st0_sti
        | Fdivr_st0_sti => ARITH_ST0_STI + op(c.mnemonic()),
        Fadd_sti_st0 | Fmul_sti_st0 | Fsub_sti_st0 | Fsubr_sti_st0 | Fdiv_sti_st0
        | Fdivr_sti_st0 => ARITH_STI_ST0 + op(c.mnemonic()),
        Faddp_sti_st0 | Fmulp_sti_st0 | Fsubp_sti_st0 | Fsubrp_sti_st0 | Fdivp_sti_st0
        | Fdivrp_sti_st0 => ARITH_STIP_ST0 + op(c.mnemonic()),
        _ => CALL,
    }
}

/// The read-back kind of a non-x87 op (TEST_R8, MOVZX_R8, or SETCC_R8 with its
/// condition number), from its iced `Code` and the fields `ops::alu` / `ops::bits` lowered
/// (the alu group is asked first, so `test` always got its handler). A register
/// operand is told from a memory one by the segment slot, which the decoder fills
/// in for memory operands only.
fn readback_kind(o: &Op) -> Option<(u8, u8)> {
    use iced_x86::OpCodeOperandKind as K;
    if o.seg != crate::cpu::seg::NONE {
        return None;
    }
    let c = iced_code(o.code);
    let oc = c.op_code();
    if c == Code::Movzx_r32_rm8 {
        return Some((MOVZX_R8, 0));
    }
    if oc.encoding() != iced_x86::EncodingKind::Legacy {
        return None;
    }
    let m = c.mnemonic();
    let k0 = oc.op_kind(0);
    if m == iced_x86::Mnemonic::Test
        && matches!(k0, K::r8_or_mem | K::al)
        && oc.op_kind(1) == K::imm8
    {
        return Some((TEST_R8, 0));
    }
    if k0 == K::r8_or_mem && crate::ops::bits::is_setcc(m) {
        return Some((SETCC_R8, crate::ops::branch::cond_code(m)?));
    }
    None
}

/// The fields of a run's first op as the lowering left them. `attach` rewrites
/// the first op's `h`, `imm`, `r`, `size`, `x` (and `rm` of a memory operand) for the
/// fused op; whenever that instruction runs through its own handler
/// ([`super::x87_fuse_exec`]'s `call`), every one of them is put back first, so no
/// handler sees a field the fusion reused (FCMOVcc's condition in `x` was read as
/// the run's chain length, 0, and the move never happened: issue 18).
#[derive(Clone, Copy)]
pub struct Lowered {
    pub h: Handler,
    pub imm: u32,
    pub r: u8,
    pub rm: u8,
    pub size: u8,
    pub x: u8,
}

impl Lowered {
    fn of(o: &Op) -> Lowered {
        Lowered {
            h: o.h,
            imm: o.imm,
            r: o.r,
            rm: o.rm,
            size: o.size,
            x: o.x,
        }
    }

    fn same(&self, o: &Lowered) -> bool {
        std::ptr::fn_addr_eq(self.h, o.h)
            && (self.imm, self.r, self.rm, self.size, self.x) == (o.imm, o.r, o.rm, o.size, o.x)
    }

    /// `o` with these fields.
    #[inline(always)]
    pub fn restore(&self, o: &mut Op) {
        o.h = self.h;
        o.imm = self.imm;
        o.r = self.r;
        o.rm = self.rm;
        o.size = self.size;
        o.x = self.x;
    }
}

/// First ops as lowered, by slot (interned: x87 forms and their register operands
/// make a small set). The mutex serialises interning at decode; the slots are read
/// lock-free by the fused op whenever its first instruction takes its handler's
/// path.
static INTERN: Mutex<Vec<Lowered>> = Mutex::new(Vec::new());
const SLOTS: usize = 4096;
static LOWERED: [OnceLock<Lowered>; SLOTS] = [const { OnceLock::new() }; SLOTS];

fn intern(o: &Op) -> Option<u32> {
    let l = Lowered::of(o);
    let mut v = INTERN.lock().ok()?;
    if let Some(k) = v.iter().position(|g| g.same(&l)) {
        return Some(k as u32);
    }
    if v.len() >= SLOTS {
        return None;
    }
    LOWERED[v.len()].set(l).ok()?;
    v.push(l);
    Some(v.len() as u32 - 1)
}

/// The first op as lowered, interned in `slot`.
#[inline(always)]
pub fn lowered(slot: u32) -> Option<Lowered> {
    LOWERED.get(slot as usize)?.get().copied()
}

/// Fuses every run of x87 instructions in a freshly decoded block.
pub fn attach(b: &mut Block, tiers: &Tiers) {
    // The `dispatch-loop` executor steps op by op and would re-enter the run.
    if cfg!(feature = "dispatch-loop") {
        return;
    }
    let st = tiers.stats(Tier::X87Fusion);
    let decline = |d: Decline| {
        st.declines[d as usize].fetch_add(1, Ordering::Relaxed);
    };
    let n = b.ninsn as usize;
    let mut k = 0;
    while k < n {
        if !is_x87(iced_code(b.ops[k].code)) {
            k += 1;
            continue;
        }
        let start = k;
        let room = |k: usize| k - start < u8::MAX as usize;
        loop {
            while k < n && is_x87(iced_code(b.ops[k].code)) && room(k) {
                k += 1;
            }
            // The status read-back after a trailing FNSTSW AX joins the run.
            if b.ops[k - 1].code == Code::Fnstsw_AX as u16 {
                for want in [TEST_R8, SETCC_R8, MOVZX_R8] {
                    if k < n
                        && room(k)
                        && readback_kind(&b.ops[k]).is_some_and(|(kd, _)| kd == want)
                    {
                        k += 1;
                    } else {
                        break;
                    }
                }
            }
            // A few integer moves followed by more x87 join the run too.
            let mut m = k;
            while m < n && m - k < MAX_BRIDGE && room(m) && int_kind(&b.ops[m]).is_some() {
                m += 1;
            }
            if m > k && m < n && room(m) && is_x87(iced_code(b.ops[m].code)) {
                k = m;
                continue;
            }
            break;
        }
        let len = k - start;
        if len < MIN_RUN {
            decline(Decline::Size);
            continue;
        }
        let kinds: Vec<u8> = (start..k)
            .map(|j| {
                let o = &b.ops[j];
                if is_x87(iced_code(o.code)) {
                    kind(iced_code(o.code))
                } else {
                    readback_kind(o)
                        .map(|(kd, _)| kd)
                        .or_else(|| int_kind(o))
                        .unwrap_or(CALL)
                }
            })
            .collect();
        if kinds.iter().filter(|&&x| x != CALL).count() < MIN_INLINE {
            decline(Decline::Op);
            continue;
        }
        if !tiers.is_on(Tier::X87Fusion) {
            decline(Decline::GateOff);
            continue;
        }
        let Some(slot) = intern(&b.ops[start]) else {
            decline(Decline::Shape);
            continue;
        };
        for (j, &kd) in (start..k).zip(&kinds) {
            b.ops[j].size = kd;
            // An inline kind's memory operand: its `Op::rm` holds only the flags
            // below (set afresh, whatever the lowering left there).
            let o = &mut b.ops[j];
            if kd != CALL && o.seg != crate::cpu::seg::NONE {
                let base_disp = o.index == crate::cpu::NOREG && o.amask == u32::MAX;
                o.rm = if base_disp { BASE_DISP } else { 0 };
            }
            if kd == SETCC_R8 {
                b.ops[j].x = readback_kind(&b.ops[j]).map_or(0, |(_, cc)| cc);
            }
        }
        // Only a chain that is the whole run: handing a chain's state over to the
        // generic loop costs more than the chain saves (measured on the x87_pipeline
        // shape). A chain's first op is an FLD, whose handler reads no `Op::x`.
        let segments = chain_segments(&kinds);
        for &(at, n) in segments.iter().flatten() {
            b.ops[start + at].x = n;
            for d in narrow_products(&kinds[at..at + n as usize]) {
                b.ops[start + at + d].rm |= NARROW_PRODUCT;
            }
        }
        let plan = super::x87_burst::plan(&b.ops[start..k], &kinds);
        let first = &mut b.ops[start];
        first.x = if segments.is_some() { first.x } else { 0 };
        first.imm = slot
            | plan.map_or(0, |(valid, empty)| {
                super::x87_burst::ELIGIBLE | (valid as u32) << 16 | (empty as u32) << 24
            });
        first.r = len as u8;
        first.h = if first.x != 0 {
            super::x87_fuse_exec::fused_chain
        } else if plan.is_some() {
            super::x87_burst::fused_burst
        } else {
            super::x87_fuse_exec::fused
        };
        st.matches.fetch_add(1, Ordering::Relaxed);
    }
}

/// Adds the counters gathered by fused ops during a run to the tier stats; returns
/// the ops the run loop counted as dispatched that never were.
pub fn flush_stats(ch: &mut ChainState, tiers: &Tiers) -> u64 {
    let runs = std::mem::take(&mut ch.x87_runs);
    let insns = std::mem::take(&mut ch.x87_insns);
    let inline = std::mem::take(&mut ch.x87_inline);
    let burst = std::mem::take(&mut ch.x87_burst);
    if runs > 0 {
        let st = tiers.stats(Tier::X87Fusion);
        st.runs.fetch_add(runs, Ordering::Relaxed);
        st.iterations.fetch_add(insns, Ordering::Relaxed);
        st.elements.fetch_add(inline, Ordering::Relaxed);
        st.bulk.fetch_add(burst, Ordering::Relaxed);
    }
    std::mem::take(&mut ch.x87_skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::x87::{ADD, DIV, MUL};

    #[test]
    fn narrow_products_follow_operand_widths() {
        let (mul32, mul64) = (ARITH_M32 + MUL, ARITH_M64 + MUL);
        // 24 + 24 bits: narrow; the next m32 factor would make 72.
        assert_eq!(narrow_products(&[FLD_M32, mul32, FSTP_M32]), vec![1]);
        assert_eq!(narrow_products(&[FLD_M32, mul32, mul32, FSTP_M64]), vec![1]);
        // An m64 value or factor, or a sum or quotient first: no width known.
        assert!(narrow_products(&[FLD_M64, mul32, FSTP_M32]).is_empty());
        assert!(narrow_products(&[FLD_M32, mul64, FSTP_M32]).is_empty());
        assert!(narrow_products(&[FLD_M32, ARITH_M32 + ADD, mul32]).is_empty());
        assert!(narrow_products(&[FLD_M32, ARITH_M32 + DIV, mul32]).is_empty());
        // Only the chain's arithmetic steps: the compare and read-back end it.
        assert_eq!(
            narrow_products(&[FLD_M32, mul32, FCOMP_M32, FNSTSW_AX, TEST_R8]),
            vec![1]
        );
        assert!(narrow_products(&[FXCH, mul32]).is_empty());
    }
}
