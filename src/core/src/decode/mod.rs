//! Block decoder: guest bytes -> iced-x86 instructions -> threaded ops.
//!
//! A block is a run of instructions that ends after the first control transfer
//! (iced's flow control is not `Next`), at the guest page edge, or at the length
//! cap. The instruction that crosses a page edge is the last in its block. Fetch
//! faults are precise: the block ends before an instruction whose bytes cannot be
//! read, and a block that would start on such bytes raises the fault instead.

use crate::cpu::{Exception, ExceptionKind, NOREG, seg};
use crate::exec::cache::Block;
use crate::exec::op::{self, Op};
use crate::mem::{Access, GuestMemory, perm};
use iced_x86::{Decoder, DecoderError, DecoderOptions, FlowControl, Instruction, OpKind, Register};

/// Longest x86 instruction.
pub const MAX_INSN: u32 = 15;

/// `stop` is the executor's stop range `(lo, len)`: a block ends before an
/// instruction that starts there, so falling into a thunk stops like jumping to it.
pub fn decode_block(
    mem: &GuestMemory,
    eip: u32,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Result<Block, Exception> {
    fetchable(mem, eip)?;
    // Mark before reading: a store by another thread after this point is logged and
    // retires what we are about to decode.
    mem.mark_code(eip);
    loop {
        let (buf, in_page) = fetch(mem, eip);
        let b = decode_bytes(eip, &buf, in_page, max_insns, stop, null_segs)?;
        if confirm_spill(mem, eip, b.end, &buf[in_page as usize..]) {
            return Ok(b);
        }
    }
}

/// A block may start at `eip`: its byte is readable, else the fetch faults there.
fn fetchable(mem: &GuestMemory, eip: u32) -> Result<(), Exception> {
    if mem.perm(eip) & perm::READ == 0 {
        return Err(Exception {
            kind: ExceptionKind::AccessViolation(Access::Execute),
            eip,
            addr: eip,
        });
    }
    Ok(())
}

/// `decode_block` without marking any page as holding code, for discovery that
/// must leave guest memory as it is: the block is what `decode_block` would give
/// while the bytes stay as they are, and the caller checks that the pages it lies
/// in ([`spills`]) are marked already.
pub fn decode_block_unmarked(
    mem: &GuestMemory,
    eip: u32,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Result<Block, Exception> {
    fetchable(mem, eip)?;
    let (buf, in_page) = fetch(mem, eip);
    decode_bytes(eip, &buf, in_page, max_insns, stop, null_segs)
}

/// Whether a block `[start, end)` takes bytes of the page after `start`'s.
pub fn spills(start: u32, end: u32) -> bool {
    let in_page = (start & !0xfff).wrapping_add(0x1000).wrapping_sub(start);
    end.wrapping_sub(start) > in_page
}

/// The bytes a block at `eip` may be decoded from: the rest of its page and, if
/// the next page is readable, the first bytes of that page an instruction crossing
/// the edge may take (not yet marked as code: see [`confirm_spill`]). Returns the
/// bytes and how many lie in `eip`'s page.
pub(crate) fn fetch(mem: &GuestMemory, eip: u32) -> (Vec<u8>, u32) {
    let page_end = (eip & !0xfff).wrapping_add(0x1000);
    let in_page = page_end.wrapping_sub(eip);
    let mut buf = vec![0u8; in_page as usize];
    mem.read_bytes(eip, &mut buf).expect("readable page");
    if mem.perm(page_end) & perm::READ != 0 {
        let mut tail = [0u8; MAX_INSN as usize - 1];
        mem.read_bytes(page_end, &mut tail).expect("readable page");
        buf.extend_from_slice(&tail);
    }
    (buf, in_page)
}

/// After decoding a block `[eip, end)` from bytes whose part in the next page was
/// `tail`: if the block takes bytes of the next page, that page is marked as code
/// (a later store into it is then logged and retires the block) and its bytes are
/// read again; false if they changed meanwhile (the caller decodes again). A page
/// is marked only when a block really spills into it: marking the page after every
/// page holding code made every store into a program's first data page (its
/// globals, right after `.text`) take the code-write path.
pub(crate) fn confirm_spill(mem: &GuestMemory, eip: u32, end: u32, tail: &[u8]) -> bool {
    if !spills(eip, end) || tail.is_empty() {
        return true;
    }
    let page_end = (eip & !0xfff).wrapping_add(0x1000);
    mem.mark_code(page_end);
    let mut again = vec![0u8; tail.len()];
    mem.read_bytes(page_end, &mut again).is_ok() && again == tail
}

/// Decodes the block at `eip` from `buf` (see [`fetch`]).
fn decode_bytes(
    eip: u32,
    buf: &[u8],
    in_page: u32,
    max_insns: usize,
    stop: (u32, u32),
    null_segs: u8,
) -> Result<Block, Exception> {
    let mut dec = Decoder::with_ip(32, buf, eip as u64, DecoderOptions::NONE);
    let mut ops: Vec<Op> = Vec::with_capacity(16);
    let mut ins = Instruction::default();
    let mut end = eip;
    let mut terminated = false;
    while (dec.position() as u32) < in_page && ops.len() < max_insns {
        let at = eip.wrapping_add(dec.position() as u32);
        if !ops.is_empty() && at.wrapping_sub(stop.0) < stop.1 {
            break;
        }
        dec.decode_out(&mut ins);
        if ins.is_invalid() && dec.last_error() == DecoderError::NoMoreBytes {
            if ops.is_empty() {
                let addr = eip.wrapping_add(buf.len() as u32);
                return Err(Exception {
                    kind: ExceptionKind::AccessViolation(Access::Execute),
                    eip,
                    addr,
                });
            }
            break;
        }
        let next = ins.next_ip32();
        let mut o = Op::new(op::invalid_opcode, ins.ip32(), next);
        o.code = ins.code() as u16;
        end = eip.wrapping_add(dec.position() as u32);
        if ins.is_invalid() {
            ops.push(o);
            terminated = true;
            break;
        }
        prefill_memory(&ins, &mut o);
        o.h = crate::ops::lower(&ins, &mut o);
        // An access through a null data segment register faults (`cpu::segs`); an
        // unimplemented form still reports its name.
        if null_segs != 0
            && !std::ptr::fn_addr_eq(o.h, op::unimplemented as op::Handler)
            && null_access(&ins, null_segs)
        {
            o.h = crate::ops::far::null_segment;
        }
        ops.push(o);
        if ins.flow_control() != FlowControl::Next {
            terminated = true;
            break;
        }
    }
    let ninsn = ops.len() as u32;
    if !terminated {
        let mut o = Op::new(op::block_end, end, end);
        o.imm = end;
        ops.push(o);
    }
    Ok(Block::new(ops, eip, end, ninsn))
}

/// Resolves the instruction's memory operand (if any) into the op's address fields.
/// Whether `ins` reads or writes memory through a data segment register in
/// `null_segs` (a null selector: the access raises #GP). LEA and NOP r/m name a
/// memory operand without accessing it.
fn null_access(ins: &Instruction, null_segs: u8) -> bool {
    use iced_x86::Mnemonic;
    if matches!(ins.mnemonic(), Mnemonic::Lea | Mnemonic::Nop) {
        return false;
    }
    (0..ins.op_count()).any(|k| {
        let r = match ins.op_kind(k) {
            OpKind::Memory
            | OpKind::MemorySegSI
            | OpKind::MemorySegESI
            | OpKind::MemorySegDI
            | OpKind::MemorySegEDI => ins.memory_segment(),
            OpKind::MemoryESDI | OpKind::MemoryESEDI => Register::ES,
            _ => return false,
        };
        null_segs & (1 << seg_slot(r)) != 0
    })
}

/// `ins` lowered to an op as `decode_block` lowers it (the null-segment check
/// aside): the `jit` tier runs such an op alone through its handler for the forms
/// it does not generate code for.
pub fn lower_one(ins: &Instruction) -> Op {
    let mut o = Op::new(op::invalid_opcode, ins.ip32(), ins.next_ip32());
    o.code = ins.code() as u16;
    prefill_memory(ins, &mut o);
    o.h = crate::ops::lower(ins, &mut o);
    o
}

/// Whether winterp implements the form of `ins`: some handler group claims it
/// (its behaviour may be a fault, e.g. #UD for MOV CS), rather than the
/// `unimplemented` handler, which stops the program naming the instruction.
pub fn lowers(ins: &Instruction) -> bool {
    let mut o = Op::new(op::invalid_opcode, ins.ip32(), ins.next_ip32());
    prefill_memory(ins, &mut o);
    let h = crate::ops::lower(ins, &mut o);
    !std::ptr::fn_addr_eq(h, op::unimplemented as op::Handler)
}

fn prefill_memory(ins: &Instruction, o: &mut Op) {
    if !(0..ins.op_count()).any(|k| ins.op_kind(k) == OpKind::Memory) {
        return;
    }
    let base = ins.memory_base();
    let index = ins.memory_index();
    o.base = gpr(base).unwrap_or(NOREG);
    o.index = gpr(index).unwrap_or(NOREG);
    o.scale = ins.memory_index_scale().trailing_zeros() as u8;
    o.disp = ins.memory_displacement32();
    let a16 = base.is_gpr16() || index.is_gpr16() || ins.memory_displ_size() == 2;
    o.amask = if a16 { 0xffff } else { u32::MAX };
    o.seg = seg_slot(ins.memory_segment());
}

/// x86 register number of a general-purpose register of any width.
pub fn gpr(r: Register) -> Option<u8> {
    if r.is_gpr8() || r.is_gpr16() || r.is_gpr32() {
        Some(r.number() as u8)
    } else {
        None
    }
}

pub fn seg_slot(r: Register) -> u8 {
    match r {
        Register::ES => seg::ES,
        Register::CS => seg::CS,
        Register::SS => seg::SS,
        Register::DS => seg::DS,
        Register::FS => seg::FS,
        Register::GS => seg::GS,
        _ => seg::NONE,
    }
}
