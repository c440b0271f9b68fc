//! String instructions: MOVS STOS LODS CMPS SCAS (byte, word, dword) with and
//! without REP/REPE/REPNE, 32- and 16-bit address size, and XLAT.
//!
//! Each handler is monomorphised over the operation `K`, the element size `S`, the
//! address size (`A16`: SI/DI/CX instead of ESI/EDI/ECX) and the repeat prefix `REP`.
//! A repeated instruction is a sequence of architecturally complete iterations: an
//! iteration does its loads and its store before it touches a register, so a fault
//! in iteration k leaves ECX/ESI/EDI (and the flags of CMPS/SCAS) as they were after
//! iteration k-1 and reports the fault at the instruction, as hardware does.
//!
//! REP MOVS and REP STOS with 32-bit addressing move whole page-bounded chunks at a
//! time (8 bytes per access) when both pages allow it. The chunk order reproduces
//! the element-by-element result exactly, including overlapping MOVS that replicate
//! a pattern (see [`copy_chunk`]). Stores into pages holding decoded code are
//! reported: the instruction finishes and then ends its block.

use crate::cpu::{Cpu, EAX, EBX, ECX, EDI, ESI, Exit, FlagOp, seg};
use crate::exec::op::{Handler, Op, code_written, fault, next};
use crate::mem::{Fault, GuestMemory, Wrote, perm};
use iced_x86::{Code, Instruction, Mnemonic, OpKind};

const MOVS: u8 = 0;
const STOS: u8 = 1;
const LODS: u8 = 2;
const CMPS: u8 = 3;
const SCAS: u8 = 4;

/// No repeat prefix.
const NOREP: u8 = 0;
/// REP / REPE (F3).
const REPE: u8 = 1;
/// REPNE (F2); only CMPS and SCAS distinguish it from REP.
const REPNE: u8 = 2;

/// Chunks shorter than this many elements take the element loop.
const MIN_CHUNK: u32 = 8;

#[inline(always)]
fn offset<const A16: bool>(cpu: &Cpu, r: usize) -> u32 {
    if A16 {
        cpu.regs[r] & 0xffff
    } else {
        cpu.regs[r]
    }
}

#[inline(always)]
fn advance<const A16: bool>(cpu: &mut Cpu, r: usize, d: u32) {
    if A16 {
        cpu.set_r16(r as u8, cpu.regs[r].wrapping_add(d));
    } else {
        cpu.regs[r] = cpu.regs[r].wrapping_add(d);
    }
}

#[inline(always)]
fn count<const A16: bool>(cpu: &Cpu) -> u32 {
    offset::<A16>(cpu, ECX)
}

/// Linear address of the source element (DS:ESI or the override).
#[inline(always)]
fn src_addr<const A16: bool>(cpu: &Cpu, sseg: usize) -> u32 {
    offset::<A16>(cpu, ESI).wrapping_add(cpu.seg_base[sseg])
}

/// Linear address of the destination element (always ES:EDI).
#[inline(always)]
fn dst_addr<const A16: bool>(cpu: &Cpu) -> u32 {
    offset::<A16>(cpu, EDI).wrapping_add(cpu.seg_base[seg::ES as usize])
}

/// One complete iteration; on a fault nothing has changed. Returns whether a store
/// hit decoded code. `d` is the signed element step.
#[inline(always)]
fn once<const K: u8, const S: u32, const A16: bool>(
    cpu: &mut Cpu,
    sseg: usize,
    d: u32,
) -> Result<bool, Fault> {
    match K {
        MOVS => {
            let v = cpu.load(S, src_addr::<A16>(cpu, sseg))?;
            let w = cpu.store(S, dst_addr::<A16>(cpu), v)?;
            advance::<A16>(cpu, ESI, d);
            advance::<A16>(cpu, EDI, d);
            Ok(w == Wrote::Code)
        }
        STOS => {
            let w = cpu.store(S, dst_addr::<A16>(cpu), cpu.reg(S, EAX as u8))?;
            advance::<A16>(cpu, EDI, d);
            Ok(w == Wrote::Code)
        }
        LODS => {
            let v = cpu.load(S, src_addr::<A16>(cpu, sseg))?;
            cpu.set_reg(S, EAX as u8, v);
            advance::<A16>(cpu, ESI, d);
            Ok(false)
        }
        CMPS => {
            let a = cpu.load(S, src_addr::<A16>(cpu, sseg))?;
            let b = cpu.load(S, dst_addr::<A16>(cpu))?;
            cpu.flags.set(FlagOp::Sub, S, a.wrapping_sub(b), a, b);
            advance::<A16>(cpu, ESI, d);
            advance::<A16>(cpu, EDI, d);
            Ok(false)
        }
        _ => {
            let b = cpu.load(S, dst_addr::<A16>(cpu))?;
            let a = cpu.reg(S, EAX as u8);
            cpu.flags.set(FlagOp::Sub, S, a.wrapping_sub(b), a, b);
            advance::<A16>(cpu, EDI, d);
            Ok(false)
        }
    }
}

#[inline(always)]
fn finish(cpu: &mut Cpu, ops: &[Op], i: usize, code: bool) -> Exit {
    if code {
        code_written(cpu, ops, i)
    } else {
        next(cpu, ops, i)
    }
}

fn string_op<const K: u8, const A16: bool, const REP: u8, const S: u32>(
    cpu: &mut Cpu,
    ops: &[Op],
    i: usize,
) -> Exit {
    let sseg = (ops[i].seg & 7) as usize;
    let d = if cpu.df() {
        (S / 8).wrapping_neg()
    } else {
        S / 8
    };
    if REP == NOREP {
        return match once::<K, S, A16>(cpu, sseg, d) {
            Ok(code) => finish(cpu, ops, i, code),
            Err(f) => fault(cpu, ops, i, f),
        };
    }
    let mut code = false;
    loop {
        let n = count::<A16>(cpu);
        if n == 0 {
            break;
        }
        if !A16 && (K == MOVS || K == STOS) && n >= MIN_CHUNK {
            match fast_chunk::<K, S>(cpu, sseg, n) {
                Chunk::Done(c) => {
                    code |= c;
                    continue;
                }
                Chunk::Fault(f) => return fault(cpu, ops, i, f),
                Chunk::Slow => {}
            }
        }
        if !A16 && (K == CMPS || K == SCAS) && n >= MIN_CHUNK {
            match fast_cmp_chunk::<K, REP, S>(cpu, sseg, n) {
                Chunk::Done(true) => break,
                Chunk::Done(false) => continue,
                Chunk::Fault(f) => return fault(cpu, ops, i, f),
                Chunk::Slow => {}
            }
        }
        match once::<K, S, A16>(cpu, sseg, d) {
            Ok(c) => code |= c,
            Err(f) => return fault(cpu, ops, i, f),
        }
        if A16 {
            cpu.set_r16(ECX as u8, n - 1);
        } else {
            cpu.regs[ECX] = n - 1;
        }
        if K == CMPS || K == SCAS {
            let zf = cpu.flags.zf();
            if (REP == REPE && !zf) || (REP == REPNE && zf) {
                break;
            }
        }
    }
    finish(cpu, ops, i, code)
}

// ---- REP MOVS / REP STOS chunks ---------------------------------------------------

enum Chunk {
    /// A chunk was done and the registers advanced. MOVS/STOS: whether it wrote
    /// decoded code; CMPS/SCAS: whether the REPE/REPNE condition ended the loop.
    Done(bool),
    /// Not eligible: run one element the slow way.
    Slow,
    /// A race with another thread changed a page under the chunk; the registers
    /// reflect the elements that completed.
    Fault(Fault),
}

/// Elements (of `s8` bytes, stepping forward or backward from `addr`) that fit in
/// `addr`'s page.
#[inline(always)]
fn room(addr: u32, s8: u32, fwd: bool) -> u32 {
    let o = addr & 0xfff;
    if fwd {
        (0x1000 - o) / s8
    } else if o + s8 <= 0x1000 {
        o / s8 + 1
    } else {
        0
    }
}

#[inline(always)]
fn readable(mem: &GuestMemory, a: u32) -> bool {
    mem.perm(a) & (perm::READ | perm::GUARD) == perm::READ
}

/// Does up to one page-bounded chunk of a REP MOVS/STOS with 32-bit addressing.
#[inline(never)]
fn fast_chunk<const K: u8, const S: u32>(cpu: &mut Cpu, sseg: usize, n: u32) -> Chunk {
    let s8 = S / 8;
    let fwd = !cpu.df();
    let dst = dst_addr::<false>(cpu);
    let mut k = n.min(room(dst, s8, fwd));
    let src = if K == MOVS {
        let src = src_addr::<false>(cpu, sseg);
        k = k.min(room(src, s8, fwd));
        src
    } else {
        0
    };
    if k < MIN_CHUNK {
        return Chunk::Slow;
    }
    let pd = cpu.mem.perm(dst);
    if pd & (perm::WRITE | perm::GUARD) != perm::WRITE {
        return Chunk::Slow;
    }
    if K == MOVS && !readable(&cpu.mem, src) {
        return Chunk::Slow;
    }
    let bytes = k * s8;
    // Lowest address of each range the chunk covers.
    let span = (k - 1) * s8;
    let dlo = if fwd { dst } else { dst.wrapping_sub(span) };
    let slo = if fwd { src } else { src.wrapping_sub(span) };
    let code = pd & perm::CODE != 0;
    let res = if code {
        // Decoded code on the destination page: one host write for the chunk, so
        // the code-write log gets one entry. Only disjoint ranges go this way.
        let mut buf = [0u8; 0x1000];
        let b = &mut buf[..bytes as usize];
        if K == MOVS {
            if slo.wrapping_sub(dlo) < bytes || dlo.wrapping_sub(slo) < bytes {
                return Chunk::Slow;
            }
            cpu.mem.read_bytes(slo, b).map_err(|f| (0, f))
        } else {
            let v = cpu.reg(S, EAX as u8);
            for c in b.chunks_exact_mut(s8 as usize) {
                c.copy_from_slice(&v.to_le_bytes()[..s8 as usize]);
            }
            Ok(())
        }
        .and_then(|()| cpu.mem.write_bytes(dlo, b).map_err(|f| (0, f)))
    } else if K == MOVS {
        copy_chunk::<S>(&cpu.mem, slo, dlo, bytes, fwd)
    } else {
        fill_chunk::<S>(&cpu.mem, dlo, bytes, fwd, cpu.reg(S, EAX as u8))
    };
    let (done, r) = match res {
        Ok(()) => (k, Ok(())),
        Err((done_bytes, f)) => (done_bytes / s8, Err(f)),
    };
    let step = if fwd {
        done * s8
    } else {
        (done * s8).wrapping_neg()
    };
    cpu.regs[ECX] -= done;
    cpu.regs[EDI] = cpu.regs[EDI].wrapping_add(step);
    if K == MOVS {
        cpu.regs[ESI] = cpu.regs[ESI].wrapping_add(step);
    }
    match r {
        Ok(()) => Chunk::Done(code),
        Err(f) => Chunk::Fault(f),
    }
}

/// Bytes a REPE/REPNE CMPS/SCAS chunk reads at most.
const SCAN_BUF: usize = 512;

/// Up to one chunk of a REPE/REPNE CMPS/SCAS with 32-bit addressing: reads the
/// elements of the chunk, finds the first one that ends the loop, and sets the
/// registers and flags as the element loop leaves them after that element.
#[inline(never)]
fn fast_cmp_chunk<const K: u8, const REP: u8, const S: u32>(
    cpu: &mut Cpu,
    sseg: usize,
    n: u32,
) -> Chunk {
    let s8 = S / 8;
    let fwd = !cpu.df();
    let dst = dst_addr::<false>(cpu);
    let mut k = n.min(room(dst, s8, fwd)).min(SCAN_BUF as u32 / s8);
    let src = if K == CMPS {
        let src = src_addr::<false>(cpu, sseg);
        k = k.min(room(src, s8, fwd));
        src
    } else {
        0
    };
    if k < MIN_CHUNK || !readable(&cpu.mem, dst) || (K == CMPS && !readable(&cpu.mem, src)) {
        return Chunk::Slow;
    }
    let bytes = (k * s8) as usize;
    let span = (k - 1) * s8;
    let (dlo, slo) = if fwd {
        (dst, src)
    } else {
        (dst.wrapping_sub(span), src.wrapping_sub(span))
    };
    let mut db = [0u8; SCAN_BUF];
    let mut sb = [0u8; SCAN_BUF];
    // The pages were checked readable: these fail only if another thread changed
    // them meanwhile, and then nothing has been done yet.
    if let Err(f) = read_chunk(&cpu.mem, dlo, &mut db[..bytes]) {
        return Chunk::Fault(f);
    }
    if K == CMPS
        && let Err(f) = read_chunk(&cpu.mem, slo, &mut sb[..bytes])
    {
        return Chunk::Fault(f);
    }
    let acc = cpu.reg(S, EAX as u8);
    let val = |c: &[u8]| -> u32 {
        match S {
            8 => c[0] as u32,
            16 => u16::from_le_bytes([c[0], c[1]]) as u32,
            _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        }
    };
    // REPE stops at the first difference, REPNE at the first match.
    let stops = |a: u32, b: u32| (a == b) != (REP == REPE);
    let s8u = s8 as usize;
    let hit = match (K == CMPS, fwd) {
        (false, true) => db[..bytes]
            .chunks_exact(s8u)
            .position(|c| stops(acc, val(c))),
        (false, false) => db[..bytes]
            .rchunks_exact(s8u)
            .position(|c| stops(acc, val(c))),
        (true, true) => sb[..bytes]
            .chunks_exact(s8u)
            .zip(db[..bytes].chunks_exact(s8u))
            .position(|(x, y)| stops(val(x), val(y))),
        (true, false) => sb[..bytes]
            .rchunks_exact(s8u)
            .zip(db[..bytes].rchunks_exact(s8u))
            .position(|(x, y)| stops(val(x), val(y))),
    };
    let (done, stop) = match hit {
        Some(j) => (j as u32 + 1, true),
        None => (k, false),
    };
    // The last element compared, at offset `last` in the buffers.
    let last = if fwd {
        (done - 1) * s8
    } else {
        span - (done - 1) * s8
    } as usize;
    let a = if K == CMPS { val(&sb[last..]) } else { acc };
    let b = val(&db[last..]);
    cpu.flags.set(FlagOp::Sub, S, a.wrapping_sub(b), a, b);
    let step = if fwd {
        done * s8
    } else {
        (done * s8).wrapping_neg()
    };
    cpu.regs[ECX] -= done;
    cpu.regs[EDI] = cpu.regs[EDI].wrapping_add(step);
    if K == CMPS {
        cpu.regs[ESI] = cpu.regs[ESI].wrapping_add(step);
    }
    Chunk::Done(stop)
}

/// Reads guest bytes at `lo` into `buf` with 8-byte loads (the caller checked that
/// the range is readable and within one page).
fn read_chunk(mem: &GuestMemory, lo: u32, buf: &mut [u8]) -> Result<(), Fault> {
    let mut words = buf.chunks_exact_mut(8);
    let mut a = lo;
    for w in &mut words {
        w.copy_from_slice(&mem.read_u64(a)?.to_le_bytes());
        a = a.wrapping_add(8);
    }
    for b in words.into_remainder() {
        *b = mem.read_u8(a)?;
        a = a.wrapping_add(1);
    }
    Ok(())
}

/// Copies `bytes` (a whole number of `S`-bit elements) from `[slo, slo+bytes)` to
/// `[dlo, dlo+bytes)` with the result of the element-by-element loop in direction
/// `fwd`. Blocks of 8 bytes are read before they are written and processed in the
/// loop's direction; that equals the element loop whenever the destination does not
/// start 1..7 bytes ahead of the source in that direction (a block would then read
/// bytes it should see already written), in which case elements are copied singly.
/// Err carries the bytes completed (in the loop's direction) before the fault.
fn copy_chunk<const S: u32>(
    mem: &GuestMemory,
    slo: u32,
    dlo: u32,
    bytes: u32,
    fwd: bool,
) -> Result<(), (u32, Fault)> {
    let s8 = S / 8;
    let ahead = if fwd {
        dlo.wrapping_sub(slo)
    } else {
        slo.wrapping_sub(dlo)
    };
    let unit = if (1..8).contains(&ahead) { s8 } else { 8 };
    let mut done = 0;
    while done < bytes {
        let u = if bytes - done >= unit { unit } else { s8 };
        let off = if fwd { done } else { bytes - done - u };
        let (s, d) = (slo.wrapping_add(off), dlo.wrapping_add(off));
        let r = match u {
            8 => mem.read_u64(s).and_then(|v| mem.write_u64(d, v)),
            4 => mem.read_u32(s).and_then(|v| mem.write_u32(d, v)),
            2 => mem.read_u16(s).and_then(|v| mem.write_u16(d, v)),
            _ => mem.read_u8(s).and_then(|v| mem.write_u8(d, v)),
        };
        if let Err(f) = r {
            return Err((done, f));
        }
        done += u;
    }
    Ok(())
}

/// Fills `[dlo, dlo+bytes)` with the `S`-bit value `v`; Err as for [`copy_chunk`].
fn fill_chunk<const S: u32>(
    mem: &GuestMemory,
    dlo: u32,
    bytes: u32,
    fwd: bool,
    v: u32,
) -> Result<(), (u32, Fault)> {
    let s8 = S / 8;
    let pat = match S {
        8 => (v as u8 as u64) * 0x0101_0101_0101_0101,
        16 => (v as u16 as u64) * 0x0001_0001_0001_0001,
        _ => (v as u64) << 32 | v as u64,
    };
    let mut done = 0;
    while done < bytes {
        let u = if bytes - done >= 8 { 8 } else { s8 };
        let off = if fwd { done } else { bytes - done - u };
        let a = dlo.wrapping_add(off);
        let r = match u {
            8 => mem.write_u64(a, pat),
            4 => mem.write_u32(a, pat as u32),
            2 => mem.write_u16(a, pat as u16),
            _ => mem.write_u8(a, pat as u8),
        };
        if let Err(f) = r {
            return Err((done, f));
        }
        done += u;
    }
    Ok(())
}

// ---- XLAT -------------------------------------------------------------------------

/// AL := [seg:EBX + AL] (BX + AL with 16-bit addressing).
fn xlat<const A16: bool>(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let o = &ops[i];
    let off = cpu.regs[EBX].wrapping_add(cpu.regs[EAX] & 0xff);
    let off = if A16 { off & 0xffff } else { off };
    let a = off.wrapping_add(cpu.seg_base[(o.seg & 7) as usize]);
    let v = crate::mtry!(cpu, ops, i, cpu.mem.read_u8(a));
    cpu.set_r8(EAX as u8, v as u32);
    next(cpu, ops, i)
}

// ---- lowering ---------------------------------------------------------------------

macro_rules! rep_pick {
    ($k:expr, $s:expr, $a16:expr, $rep:expr) => {
        match ($a16, $rep) {
            (false, NOREP) => crate::by_size!($s, string_op::<$k, false, NOREP>),
            (false, REPE) => crate::by_size!($s, string_op::<$k, false, REPE>),
            (false, _) => crate::by_size!($s, string_op::<$k, false, REPNE>),
            (true, NOREP) => crate::by_size!($s, string_op::<$k, true, NOREP>),
            (true, REPE) => crate::by_size!($s, string_op::<$k, true, REPE>),
            (true, _) => crate::by_size!($s, string_op::<$k, true, REPNE>),
        }
    };
}

/// The `string_op` monomorphisation for an operation, size, address size and prefix.
fn string_handler(k: u8, s: u32, a16: bool, rep: u8) -> Handler {
    match k {
        MOVS => rep_pick!(MOVS, s, a16, rep),
        STOS => rep_pick!(STOS, s, a16, rep),
        LODS => rep_pick!(LODS, s, a16, rep),
        CMPS => rep_pick!(CMPS, s, a16, rep),
        _ => rep_pick!(SCAS, s, a16, rep),
    }
}

pub fn lower(ins: &Instruction, o: &mut Op) -> Option<Handler> {
    use Mnemonic::*;
    let m = ins.mnemonic();
    let (k, s) = match m {
        Movsb => (MOVS, 8),
        Movsw => (MOVS, 16),
        // MOVSD/CMPSD are also SSE2 mnemonics.
        Movsd if ins.code() == Code::Movsd_m32_m32 => (MOVS, 32),
        Stosb => (STOS, 8),
        Stosw => (STOS, 16),
        Stosd => (STOS, 32),
        Lodsb => (LODS, 8),
        Lodsw => (LODS, 16),
        Lodsd => (LODS, 32),
        Cmpsb => (CMPS, 8),
        Cmpsw => (CMPS, 16),
        Cmpsd if ins.code() == Code::Cmpsd_m32_m32 => (CMPS, 32),
        Scasb => (SCAS, 8),
        Scasw => (SCAS, 16),
        Scasd => (SCAS, 32),
        Xlatb => {
            let a16 = match ins.memory_base() {
                iced_x86::Register::BX => true,
                iced_x86::Register::EBX => false,
                _ => return None,
            };
            o.seg = crate::decode::seg_slot(ins.memory_segment());
            return Some(if a16 { xlat::<true> } else { xlat::<false> });
        }
        _ => return None,
    };
    // The string memory operands tell the address size.
    let a16 = (0..ins.op_count()).find_map(|n| match ins.op_kind(n) {
        OpKind::MemoryESDI | OpKind::MemorySegSI => Some(true),
        OpKind::MemoryESEDI | OpKind::MemorySegESI => Some(false),
        _ => None,
    })?;
    o.seg = if k == MOVS || k == LODS || k == CMPS {
        crate::decode::seg_slot(ins.memory_segment())
    } else {
        seg::ES
    };
    let rep = if ins.has_repne_prefix() {
        if k == CMPS || k == SCAS { REPNE } else { REPE }
    } else if ins.has_rep_prefix() {
        REPE
    } else {
        NOREP
    };
    Some(string_handler(k, s, a16, rep))
}

#[cfg(test)]
mod tests {
    use crate::StopReason;
    use crate::cpu::flags::{ARITH, CF, DF, PF, SF, ZF};
    use crate::cpu::{EAX, EBX, ECX, EDI, ESI, ExceptionKind, seg};
    use crate::harness::{CODE, DATA, DATA_SIZE, EXIT, Machine, assemble};
    use crate::mem::{Access, Prot};
    use iced_x86::code_asm::*;

    type R = Result<(), IcedError>;

    /// First address past the data region (not committed).
    const END: u32 = DATA + DATA_SIZE;

    fn machine(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> Machine {
        let mut m = Machine::new();
        setup(&mut m);
        let code = assemble(|a| {
            body(a)?;
            a.jmp(EXIT as u64)
        });
        m.load(&code);
        m
    }

    fn run(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> Machine {
        let mut m = machine(setup, body);
        assert_eq!(m.run(100_000), StopReason::Thunk(EXIT));
        m
    }

    fn run_fault(
        setup: impl FnOnce(&mut Machine),
        body: impl FnOnce(&mut CodeAssembler) -> R,
    ) -> (Machine, crate::Exception) {
        let mut m = machine(setup, body);
        match m.run(100_000) {
            StopReason::Exception(e) => {
                assert_eq!(e.eip, CODE);
                assert_eq!(m.cpu.eip, CODE);
                (m, e)
            }
            r => panic!("expected a fault, got {r:?}"),
        }
    }

    fn set_df(m: &mut Machine) {
        m.cpu.eflags_sys |= DF;
    }

    fn bytes(m: &Machine, a: u32, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        m.mem.read_bytes(a, &mut v).unwrap();
        v
    }

    /// Deterministic test pattern.
    fn pattern(n: usize, seed: u32) -> Vec<u8> {
        (0..n as u32)
            .map(|k| (k.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8)
            .collect()
    }

    /// The SDM definition of REP MOVS over a byte image: element by element, each
    /// element read completely before it is written.
    fn model_rep_movs(
        img: &mut [u8],
        mut src: usize,
        mut dst: usize,
        n: usize,
        size: usize,
        df: bool,
    ) {
        for _ in 0..n {
            let e: Vec<u8> = img[src..src + size].to_vec();
            img[dst..dst + size].copy_from_slice(&e);
            if df {
                src = src.wrapping_sub(size);
                dst = dst.wrapping_sub(size);
            } else {
                src += size;
                dst += size;
            }
        }
    }

    #[test]
    fn single_movs_stos_lods_and_direction() {
        let m = run(
            |m| {
                m.mem.write_u32(DATA, 0x4433_2211).unwrap();
                m.cpu.regs[ESI] = DATA;
                m.cpu.regs[EDI] = DATA + 0x10;
                m.cpu.regs[EAX] = 0xaabb_ccdd;
            },
            |a| {
                a.movsd()?; // [DATA+10] = 44332211
                a.movsb()?; // [DATA+14] = 0 (from DATA+4)
                a.stosw()?; // [DATA+15..17] = dd cc
                a.lodsb() // AL = [DATA+5] = 0
            },
        );
        assert_eq!(m.mem.read_u32(DATA + 0x10), Ok(0x4433_2211));
        assert_eq!(bytes(&m, DATA + 0x14, 4), [0, 0xdd, 0xcc, 0]);
        assert_eq!(m.cpu.regs[ESI], DATA + 6);
        assert_eq!(m.cpu.regs[EDI], DATA + 0x17);
        assert_eq!(m.cpu.regs[EAX], 0xaabb_cc00);
        let m = run(
            |m| {
                set_df(m);
                m.mem.write_u32(DATA + 0x20, 0x8877_6655).unwrap();
                m.cpu.regs[ESI] = DATA + 0x20;
                m.cpu.regs[EDI] = DATA + 0x40;
            },
            |a| {
                a.lodsd()?;
                a.stosw()
            },
        );
        assert_eq!(m.cpu.regs[EAX], 0x8877_6655);
        assert_eq!(m.cpu.regs[ESI], DATA + 0x1c);
        assert_eq!(m.cpu.regs[EDI], DATA + 0x3e);
        assert_eq!(m.mem.read_u16(DATA + 0x40), Ok(0x6655));
    }

    #[test]
    fn rep_with_zero_count_does_nothing() {
        let m = run(
            |m| {
                m.cpu.regs[ESI] = 0x2000_0000; // unmapped: never touched
                m.cpu.regs[EDI] = 0x3000_0000;
                m.cpu.flags.set_eager(CF | SF);
            },
            |a| {
                a.rep().movsb()?;
                a.rep().stosd()?;
                a.repe().cmpsb()?;
                a.repne().scasd()
            },
        );
        assert_eq!(m.cpu.regs[ESI], 0x2000_0000);
        assert_eq!(m.cpu.regs[EDI], 0x3000_0000);
        assert_eq!(m.cpu.regs[ECX], 0);
        assert_eq!(m.cpu.flags.bits() & ARITH, CF | SF);
    }

    #[test]
    fn rep_movsb_overlap_replicates_a_byte() {
        // dst = src + 1: the byte loop copies the first byte forward over everything.
        for n in [20u32, 10_000] {
            let m = run(
                |m| {
                    m.mem
                        .write_bytes(DATA + 0x123, &pattern(n as usize + 1, 1))
                        .unwrap();
                    m.mem.write_u8(DATA + 0x123, 0xaa).unwrap();
                    m.cpu.regs[ESI] = DATA + 0x123;
                    m.cpu.regs[EDI] = DATA + 0x124;
                    m.cpu.regs[ECX] = n;
                },
                |a| a.rep().movsb(),
            );
            assert!(
                bytes(&m, DATA + 0x123, n as usize + 1)
                    .iter()
                    .all(|&b| b == 0xaa)
            );
            assert_eq!(m.cpu.regs[ECX], 0);
            assert_eq!(m.cpu.regs[ESI], DATA + 0x123 + n);
            assert_eq!(m.cpu.regs[EDI], DATA + 0x124 + n);
        }
    }

    #[test]
    fn rep_movs_matches_element_loop_for_all_overlaps() {
        // Forward and backward, every size, distances that replicate (dst ahead of
        // src by 1..20 bytes in the copy direction), that behave like memmove, and
        // disjoint ones; counts that cross pages.
        let base = 0x3ff0u32; // offset in DATA: near a page edge
        let n_bytes = 0x2400usize;
        for size in [1usize, 2, 4] {
            for df in [false, true] {
                for delta in [
                    -20i32, -9, -8, -7, -4, -3, -1, 1, 2, 3, 5, 7, 8, 9, 16, 17, 0x3000,
                ] {
                    let n = (n_bytes / size) as u32;
                    let img0 = pattern(0x10000, delta as u32 ^ size as u32);
                    // Forward: src at base, dst at base + delta. Backward: both start
                    // at the top of their ranges.
                    let (src, dst) = if df {
                        let top = base as i64 + n_bytes as i64 - size as i64;
                        (top, top - delta as i64)
                    } else {
                        (base as i64, base as i64 + delta as i64)
                    };
                    let src = (src + 0x4000) as usize;
                    let dst = (dst + 0x4000) as usize;
                    let mut want = img0.clone();
                    model_rep_movs(&mut want, src, dst, n as usize, size, df);
                    let m = run(
                        |m| {
                            m.mem.write_bytes(DATA, &img0).unwrap();
                            if df {
                                set_df(m);
                            }
                            m.cpu.regs[ESI] = DATA + src as u32;
                            m.cpu.regs[EDI] = DATA + dst as u32;
                            m.cpu.regs[ECX] = n;
                        },
                        |a| match size {
                            1 => a.rep().movsb(),
                            2 => a.rep().movsw(),
                            _ => a.rep().movsd(),
                        },
                    );
                    let got = bytes(&m, DATA, 0x10000);
                    assert!(got == want, "size {size} df {df} delta {delta}");
                    let moved = n.wrapping_mul(size as u32);
                    let step = |a: usize| {
                        if df {
                            (DATA + a as u32).wrapping_sub(moved)
                        } else {
                            DATA + a as u32 + moved
                        }
                    };
                    assert_eq!(m.cpu.regs[ESI], step(src));
                    assert_eq!(m.cpu.regs[EDI], step(dst));
                    assert_eq!(m.cpu.regs[ECX], 0);
                }
            }
        }
    }

    #[test]
    fn rep_stos_fills_forward_and_backward() {
        let m = run(
            |m| {
                m.cpu.regs[EDI] = DATA + 0x0ffd;
                m.cpu.regs[ECX] = 0x801;
                m.cpu.regs[EAX] = 0x1122_3344;
            },
            |a| a.rep().stosd(),
        );
        assert_eq!(m.cpu.regs[EDI], DATA + 0x0ffd + 0x2004);
        assert_eq!(m.mem.read_u8(DATA + 0xffc), Ok(0));
        for k in 0..0x801 {
            assert_eq!(m.mem.read_u32(DATA + 0xffd + 4 * k), Ok(0x1122_3344));
        }
        assert_eq!(m.mem.read_u8(DATA + 0xffd + 0x2004), Ok(0));
        let m = run(
            |m| {
                set_df(m);
                m.cpu.regs[EDI] = DATA + 0x3001;
                m.cpu.regs[ECX] = 0x17ff;
                m.cpu.regs[EAX] = 0xbeef;
            },
            |a| a.rep().stosw(),
        );
        // Elements at 0x3001, 0x2fff, ..., 0x0005.
        assert_eq!(m.cpu.regs[EDI], DATA + 3);
        assert_eq!(m.mem.read_u8(DATA + 0x3003), Ok(0));
        for k in 0..0x17ffu32 {
            assert_eq!(m.mem.read_u16(DATA + 0x3001 - 2 * k), Ok(0xbeef));
        }
        assert_eq!(m.mem.read_u8(DATA + 4), Ok(0));
    }

    #[test]
    fn rep_stosd_fault_midway_leaves_progress() {
        // 0x40 dwords fit before the end of the data region; the 0x41st faults. EIP
        // stays at the instruction; ECX/EDI are as after the 0x40th iteration.
        for (start, done) in [(END - 0x100, 0x40u32), (END - 0x102, 0x40)] {
            let (m, e) = run_fault(
                |m| {
                    m.cpu.regs[EDI] = start;
                    m.cpu.regs[ECX] = 0x100;
                    m.cpu.regs[EAX] = 0x5a5a_5a5a;
                },
                |a| a.rep().stosd(),
            );
            assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Write));
            assert_eq!(e.addr, END);
            assert_eq!(m.cpu.regs[ECX], 0x100 - done);
            assert_eq!(m.cpu.regs[EDI], start + 4 * done);
            assert_eq!(
                m.mem.read_u32(END - 0x104),
                Ok(if start == END - 0x100 { 0 } else { 0x5a5a_0000 })
            );
            assert_eq!(m.mem.read_u32(END - 4 - (END - start) % 4), Ok(0x5a5a_5a5a));
            // The straddling dword wrote nothing.
            if start == END - 0x102 {
                assert_eq!(m.mem.read_u16(END - 2), Ok(0));
            }
        }
    }

    #[test]
    fn rep_movsd_source_fault_and_guard_page() {
        let (m, e) = run_fault(
            |m| {
                m.cpu.regs[ESI] = END - 0x20;
                m.cpu.regs[EDI] = DATA;
                m.cpu.regs[ECX] = 100;
            },
            |a| a.rep().movsd(),
        );
        assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read));
        assert_eq!(e.addr, END);
        assert_eq!(m.cpu.regs[ECX], 92);
        assert_eq!(m.cpu.regs[ESI], END);
        assert_eq!(m.cpu.regs[EDI], DATA + 0x20);
        let (m, e) = run_fault(
            |m| {
                m.mem.set_guard(DATA + 0x2000, 0x1000, true);
                m.cpu.regs[EDI] = DATA + 0x1f00;
                m.cpu.regs[ECX] = 0x1000;
                m.cpu.regs[EAX] = 0x77;
            },
            |a| a.rep().stosb(),
        );
        assert_eq!(e.kind, ExceptionKind::GuardPage(Access::Write));
        assert_eq!(e.addr, DATA + 0x2000);
        assert_eq!(m.cpu.regs[ECX], 0xf00);
        assert_eq!(m.cpu.regs[EDI], DATA + 0x2000);
        assert_eq!(m.mem.read_u8(DATA + 0x1fff), Ok(0x77));
    }

    #[test]
    fn repne_scasb_finds_a_byte() {
        // The strlen idiom: ECX = -1, AL = 0. After finding the NUL at index 5 EDI
        // points past it and ECX = -1 - 6 iterations.
        let m = run(
            |m| {
                m.mem.write_bytes(DATA + 0x10, b"hello\0world").unwrap();
                m.cpu.regs[EDI] = DATA + 0x10;
                m.cpu.regs[ECX] = u32::MAX;
                m.cpu.regs[EAX] = 0x1234_5600;
            },
            |a| a.repne().scasb(),
        );
        assert_eq!(m.cpu.regs[EDI], DATA + 0x16);
        assert_eq!(m.cpu.regs[ECX], u32::MAX - 6);
        assert_eq!(m.cpu.flags.bits() & ARITH, ZF | PF);
        // Not found: runs out of count with ZF clear; flags from the last compare.
        let m = run(
            |m| {
                m.mem.write_bytes(DATA + 0x10, b"abc").unwrap();
                m.cpu.regs[EDI] = DATA + 0x10;
                m.cpu.regs[ECX] = 3;
                m.cpu.regs[EAX] = u32::from(b'z');
            },
            |a| a.repne().scasb(),
        );
        assert_eq!(m.cpu.regs[EDI], DATA + 0x13);
        assert_eq!(m.cpu.regs[ECX], 0);
        assert_eq!(m.cpu.flags.bits() & (ZF | CF | SF), 0, "'z' - 'c' = 0x17");
    }

    #[test]
    fn repe_scasd_and_cmps() {
        let m = run(
            |m| {
                for k in 0..4 {
                    m.mem.write_u32(DATA + 4 * k, 7).unwrap();
                }
                m.mem.write_u32(DATA + 16, 8).unwrap();
                m.cpu.regs[EDI] = DATA;
                m.cpu.regs[ECX] = 10;
                m.cpu.regs[EAX] = 7;
            },
            |a| a.repe().scasd(),
        );
        assert_eq!(m.cpu.regs[ECX], 5);
        assert_eq!(m.cpu.regs[EDI], DATA + 20);
        assert_eq!(m.cpu.flags.bits() & (ZF | CF | SF), CF | SF);
        let m = run(
            |m| {
                m.mem.write_bytes(DATA, b"abcdef").unwrap();
                m.mem.write_bytes(DATA + 0x100, b"abcxef").unwrap();
                m.cpu.regs[ESI] = DATA;
                m.cpu.regs[EDI] = DATA + 0x100;
                m.cpu.regs[ECX] = 6;
            },
            |a| a.repe().cmpsb(),
        );
        assert_eq!(m.cpu.regs[ECX], 2);
        assert_eq!(m.cpu.regs[ESI], DATA + 4);
        assert_eq!(m.cpu.regs[EDI], DATA + 0x104);
        // [esi] - [edi] = 'd' - 'x': borrow, negative.
        assert_eq!(m.cpu.flags.bits() & (ZF | CF | SF), CF | SF);
        let m = run(
            |m| {
                m.mem.write_bytes(DATA, b"abcd").unwrap();
                m.mem.write_bytes(DATA + 0x100, b"abcd").unwrap();
                m.cpu.regs[ESI] = DATA;
                m.cpu.regs[EDI] = DATA + 0x100;
                m.cpu.regs[ECX] = 2;
            },
            |a| a.repe().cmpsw(),
        );
        assert_eq!(m.cpu.regs[ECX], 0);
        assert_eq!(m.cpu.flags.bits() & ZF, ZF);
        // REPNE CMPSB stops at the first equal pair.
        let m = run(
            |m| {
                m.mem.write_bytes(DATA, b"abcd").unwrap();
                m.mem.write_bytes(DATA + 0x100, b"xycd").unwrap();
                m.cpu.regs[ESI] = DATA;
                m.cpu.regs[EDI] = DATA + 0x100;
                m.cpu.regs[ECX] = 4;
            },
            |a| a.repne().cmpsb(),
        );
        assert_eq!(m.cpu.regs[ECX], 1);
        assert_eq!(m.cpu.regs[ESI], DATA + 3);
    }

    /// SDM REPE/REPNE CMPS (cmps) or SCAS over a byte image: returns the number of
    /// iterations run and the last compared pair (first operand, second operand).
    fn model_rep_cmp(
        img: &[u8],
        (cmps, repne): (bool, bool),
        (mut src, mut dst): (usize, usize),
        n: u32,
        size: usize,
        df: bool,
        acc: u32,
    ) -> (u32, Option<(u32, u32)>) {
        let rd = |a: usize| -> u32 {
            let mut v = 0u32;
            for k in 0..size {
                v |= (img[a + k] as u32) << (8 * k);
            }
            v
        };
        let mut last = None;
        for it in 0..n {
            let a = if cmps { rd(src) } else { acc };
            let b = rd(dst);
            last = Some((a, b));
            if df {
                src = src.wrapping_sub(size);
                dst = dst.wrapping_sub(size);
            } else {
                src += size;
                dst += size;
            }
            if (a == b) == repne {
                return (it + 1, last);
            }
        }
        (n, last)
    }

    #[test]
    fn long_rep_cmps_scas_match_the_element_loop() {
        let size_mask = |size: usize| {
            if size == 4 {
                u32::MAX
            } else {
                (1u32 << (8 * size)) - 1
            }
        };
        for size in [1usize, 2, 4] {
            for df in [false, true] {
                for cmps in [false, true] {
                    for repne in [false, true] {
                        for stop_at in [3usize, 700, 5000, 9999, usize::MAX] {
                            // Image: region A at 0x1000, region B at 0x5803; equal
                            // contents, except one element (or none) where the
                            // loop stops. SCAS compares against AL/AX/EAX.
                            let n = (10_000 / size) as u32;
                            let acc = 0x5a5a_5a5a & size_mask(size);
                            let mut img = vec![0u8; 0x10000];
                            let (a0, b0) = (0x1000usize, 0x5803usize);
                            let fill = |img: &mut Vec<u8>, at: usize, k: usize, v: u32| {
                                for j in 0..size {
                                    img[at + k * size + j] = (v >> (8 * j)) as u8;
                                }
                            };
                            let nn = n as usize;
                            for k in 0..nn {
                                let v = if repne {
                                    0x1234_5678 & size_mask(size)
                                } else {
                                    acc
                                };
                                let v = if cmps {
                                    (k as u32 * 77) & size_mask(size)
                                } else {
                                    v
                                };
                                fill(&mut img, a0, k, v);
                                fill(&mut img, b0, k, v);
                            }
                            if repne && cmps {
                                // Make every pair differ, except the stop element.
                                for k in 0..nn {
                                    let v = (k as u32 * 77 + 1) & size_mask(size);
                                    fill(&mut img, b0, k, v);
                                }
                            }
                            let stop_k = stop_at.min(nn);
                            if stop_k < nn {
                                let k = if df { nn - 1 - stop_k } else { stop_k };
                                let v = match (cmps, repne) {
                                    (false, false) => acc ^ 1,
                                    (false, true) => acc,
                                    (true, false) => (k as u32 * 77 + 3) & size_mask(size),
                                    (true, true) => (k as u32 * 77) & size_mask(size),
                                };
                                fill(&mut img, b0, k, v);
                            }
                            let top = (nn - 1) * size;
                            let (src, dst) = if df { (a0 + top, b0 + top) } else { (a0, b0) };
                            let (iters, last) =
                                model_rep_cmp(&img, (cmps, repne), (src, dst), n, size, df, acc);
                            assert_eq!(iters, (stop_k + 1).min(nn) as u32);
                            let m = run(
                                |m| {
                                    m.mem.write_bytes(DATA, &img).unwrap();
                                    if df {
                                        set_df(m);
                                    }
                                    m.cpu.regs[ESI] = DATA + src as u32;
                                    m.cpu.regs[EDI] = DATA + dst as u32;
                                    m.cpu.regs[ECX] = n;
                                    m.cpu.regs[EAX] = 0xa5a5_a5a5 & !size_mask(size) | acc;
                                },
                                |a| match (cmps, repne, size) {
                                    (false, false, 1) => a.repe().scasb(),
                                    (false, false, 2) => a.repe().scasw(),
                                    (false, false, _) => a.repe().scasd(),
                                    (false, true, 1) => a.repne().scasb(),
                                    (false, true, 2) => a.repne().scasw(),
                                    (false, true, _) => a.repne().scasd(),
                                    (true, false, 1) => a.repe().cmpsb(),
                                    (true, false, 2) => a.repe().cmpsw(),
                                    (true, false, _) => a.repe().cmpsd(),
                                    (true, true, 1) => a.repne().cmpsb(),
                                    (true, true, 2) => a.repne().cmpsw(),
                                    (true, true, _) => a.repne().cmpsd(),
                                },
                            );
                            let what = format!(
                                "size {size} df {df} cmps {cmps} repne {repne} stop {stop_at}"
                            );
                            assert_eq!(m.cpu.regs[ECX], n - iters, "{what}");
                            let moved = iters * size as u32;
                            let adv = |a: usize| {
                                if df {
                                    (DATA + a as u32).wrapping_sub(moved)
                                } else {
                                    DATA + a as u32 + moved
                                }
                            };
                            assert_eq!(m.cpu.regs[EDI], adv(dst), "{what}");
                            if cmps {
                                assert_eq!(m.cpu.regs[ESI], adv(src), "{what}");
                            }
                            let (x, y) = last.unwrap();
                            let mut f = crate::cpu::LazyFlags::default();
                            f.set(
                                crate::cpu::FlagOp::Sub,
                                8 * size as u32,
                                x.wrapping_sub(y),
                                x,
                                y,
                            );
                            assert_eq!(m.cpu.flags.bits(), f.bits(), "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_repne_scasb_faults_at_the_end_of_memory() {
        let (m, e) = run_fault(
            |m| {
                m.cpu.regs[EDI] = END - 0x1234;
                m.cpu.regs[ECX] = u32::MAX;
                m.cpu.regs[EAX] = 0x99;
            },
            |a| a.repne().scasb(),
        );
        assert_eq!(e.kind, ExceptionKind::AccessViolation(Access::Read));
        assert_eq!(e.addr, END);
        assert_eq!(m.cpu.regs[ECX], u32::MAX - 0x1234);
        assert_eq!(m.cpu.regs[EDI], END);
        // Flags of the last iteration: 0x99 - 0.
        assert_eq!(m.cpu.flags.bits() & (ZF | SF | CF), SF);
    }

    #[test]
    fn repe_cmps_fault_keeps_flags_of_last_iteration() {
        let (m, e) = run_fault(
            |m| {
                m.mem.write_bytes(END - 2, b"ab").unwrap();
                m.mem.write_bytes(DATA, b"abc").unwrap();
                m.cpu.regs[ESI] = END - 2;
                m.cpu.regs[EDI] = DATA;
                m.cpu.regs[ECX] = 3;
                m.cpu.flags.set_eager(CF);
            },
            |a| a.repe().cmpsb(),
        );
        assert_eq!(e.addr, END);
        assert_eq!(m.cpu.regs[ECX], 1);
        assert_eq!(m.cpu.regs[ESI], END);
        assert_eq!(m.cpu.flags.bits() & ARITH, ZF | PF);
    }

    #[test]
    fn segment_override_on_the_source() {
        let m = run(
            |m| {
                m.cpu.set_seg_base(seg::FS, DATA + 0x1000);
                m.mem
                    .write_bytes(DATA + 0x1010, &[1, 2, 3, 4, 5, 6, 7, 8])
                    .unwrap();
                m.mem.write_bytes(DATA + 0x1100, &[9; 8]).unwrap();
                m.cpu.regs[ESI] = 0x10;
                m.cpu.regs[EDI] = DATA + 0x200;
                m.cpu.regs[ECX] = 4;
                m.cpu.regs[EBX] = 0x100;
                m.cpu.regs[EAX] = 3;
            },
            |a| {
                a.db(&[0x64, 0xf3, 0xa4])?; // rep movsb es:[edi], fs:[esi]
                a.db(&[0x64, 0xd7])?; // xlat fs:[ebx+al] -> 9
                a.db(&[0x64, 0xad]) // lodsd fs:[esi] -> 08070605
            },
        );
        assert_eq!(bytes(&m, DATA + 0x200, 5), [1, 2, 3, 4, 0]);
        assert_eq!(m.cpu.regs[EAX], 0x0807_0605);
        assert_eq!(m.cpu.regs[ESI], 0x18);
    }

    #[test]
    fn sse2_movsd_cmpsd_are_not_string_forms() {
        // F2 0F 11 /r (MOVSD m64, xmm) and F2 0F C2 (CMPSD xmm, m64, imm8) share the
        // mnemonics: they must not run as string instructions.
        for code in [
            &[0xf2, 0x0f, 0x11, 0x07][..],
            &[0xf2, 0x0f, 0xc2, 0x07, 0x00],
        ] {
            let mut m = machine(
                |m| {
                    m.cpu.regs[EDI] = DATA;
                    m.cpu.regs[ESI] = DATA + 0x100;
                },
                |a| a.db(code),
            );
            match m.run(100) {
                StopReason::Exception(e) => assert!(
                    matches!(
                        e.kind,
                        ExceptionKind::Unimplemented(_) | ExceptionKind::InvalidOpcode
                    ),
                    "{e}"
                ),
                r => panic!("{r:?}"),
            }
            assert_eq!(m.cpu.regs[EDI], DATA);
        }
    }

    #[test]
    fn xlat_uses_al_only() {
        let m = run(
            |m| {
                m.mem.write_bytes(DATA + 0x80, &[0; 0x100]).unwrap();
                m.mem.write_u8(DATA + 0x80 + 0xfe, 0x5c).unwrap();
                m.cpu.regs[EBX] = DATA + 0x80;
                m.cpu.regs[EAX] = 0x1234_56fe;
            },
            |a| a.xlatb(),
        );
        assert_eq!(m.cpu.regs[EAX], 0x1234_565c);
    }

    #[test]
    fn address_size_16_uses_si_di_cx() {
        let m = run(
            |m| {
                m.mem.commit(0x1000, 0x2000, Prot::RW).unwrap();
                m.mem.write_bytes(0x1ffe, &[1, 2, 3, 4]).unwrap();
                m.cpu.regs[ESI] = 0xabcd_1ffe;
                m.cpu.regs[EDI] = 0x1234_2800;
                m.cpu.regs[ECX] = 0x5555_0004;
            },
            |a| a.db(&[0x67, 0xf3, 0xa4]), // rep movsb with SI/DI/CX
        );
        assert_eq!(bytes(&m, 0x2800, 4), [1, 2, 3, 4]);
        assert_eq!(m.cpu.regs[ESI], 0xabcd_2002);
        assert_eq!(m.cpu.regs[EDI], 0x1234_2804);
        assert_eq!(m.cpu.regs[ECX], 0x5555_0000);
        // SI wraps at 64 KiB.
        let m = run(
            |m| {
                m.mem.commit(0, 0x1000, Prot::RW).unwrap();
                m.mem.commit(0xf000, 0x1000, Prot::RW).unwrap();
                m.mem.write_u8(0xffff, 0x11).unwrap();
                m.mem.write_u8(0, 0x22).unwrap();
                m.cpu.regs[ESI] = 0x0001_ffff;
                m.cpu.regs[ECX] = 2;
            },
            |a| a.db(&[0x67, 0xac, 0x88, 0xc4, 0x67, 0xac]), // lodsb; mov ah,al; lodsb
        );
        assert_eq!(m.cpu.regs[EAX] & 0xffff, 0x1122);
        assert_eq!(m.cpu.regs[ESI], 0x0001_0001);
    }

    #[test]
    fn store_into_code_ends_the_block() {
        // REP STOSB (slow and chunked) and REP MOVSB overwrite the instructions that
        // follow them in the same block with NOPs; the overwritten movs must not run.
        for (n, movs) in [(5u32, false), (16, false), (16, true)] {
            let m = run(
                |m| {
                    m.cpu.regs[EDI] = CODE + 2;
                    m.cpu.regs[ECX] = n;
                    m.cpu.regs[EAX] = 0x90;
                    m.cpu.regs[EBX] = 0xb;
                    m.cpu.regs[ESI] = DATA;
                    m.mem.write_bytes(DATA, &[0x90; 16]).unwrap();
                },
                |a| {
                    if movs {
                        a.rep().movsb()?;
                    } else {
                        a.rep().stosb()?;
                    }
                    a.mov(eax, 0x1234_5678)?;
                    a.mov(ebx, 0x1234_5678)?;
                    a.mov(edx, 0x1234_5678)?;
                    a.nop()
                },
            );
            assert_eq!(m.cpu.regs[EAX], 0x90, "n {n} movs {movs}");
            if n == 16 {
                assert_eq!(m.cpu.regs[EBX], 0xb);
                assert_eq!(m.cpu.regs[2], 0);
            } else {
                assert_eq!(m.cpu.regs[EBX], 0x1234_5678);
            }
        }
    }
}
