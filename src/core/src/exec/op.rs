//! The pre-decoded threaded op: a handler pointer plus resolved operands, and the
//! helpers handlers use to continue, fault or stop their block.

use crate::cpu::{Cpu, Exception, ExceptionKind, Exit};
use crate::mem::{Fault, Wrote};

/// Every handler has this signature so that the call to the next op's handler, the
/// last thing a handler does, compiles to a plain `jmp` (an LLVM sibling call).
pub type Handler = fn(&mut Cpu, &[Op], usize) -> Exit;

/// One guest instruction, decoded once.
#[derive(Clone, Copy)]
pub struct Op {
    pub h: Handler,
    /// Immediate, branch target or other per-form constant.
    pub imm: u32,
    /// Second immediate (ENTER level, 3-operand IMUL, SHLD count, ...).
    pub imm2: u32,
    /// Memory operand: `((disp + base + index << scale) & amask) + seg_base[seg]`.
    pub disp: u32,
    pub amask: u32,
    /// Address of this instruction and of the next one.
    pub eip: u32,
    pub next: u32,
    /// iced-x86 `Code` of the instruction, for histograms and disassembly.
    pub code: u16,
    /// Register operands by x86 number (meaning depends on the form).
    pub r: u8,
    pub rm: u8,
    pub base: u8,
    pub index: u8,
    pub scale: u8,
    pub seg: u8,
    /// Operand size in bits (8, 16, 32, 64, 80) where the handler is size-generic.
    pub size: u8,
    /// Form-specific extra (condition code, sub-op, ...).
    pub x: u8,
}

impl Op {
    /// An op with no operands that runs `h`.
    pub fn new(h: Handler, eip: u32, next: u32) -> Op {
        Op {
            h,
            imm: 0,
            imm2: 0,
            disp: 0,
            amask: u32::MAX,
            eip,
            next,
            code: 0,
            r: 0,
            rm: 0,
            base: crate::cpu::NOREG,
            index: crate::cpu::NOREG,
            scale: 0,
            seg: crate::cpu::seg::NONE,
            size: 32,
            x: 0,
        }
    }
}

impl Cpu {
    /// Effective (linear) address of the op's memory operand.
    #[inline(always)]
    pub fn ea(&self, op: &Op) -> u32 {
        let off = op
            .disp
            .wrapping_add(self.regs[(op.base & 15) as usize])
            .wrapping_add(self.regs[(op.index & 15) as usize] << (op.scale & 3));
        (off & op.amask).wrapping_add(self.seg_base[(op.seg & 7) as usize])
    }
}

/// Runs the next op of the block (a tail call).
#[cfg(not(feature = "dispatch-loop"))]
#[inline(always)]
pub fn next(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let j = i + 1;
    (ops[j].h)(cpu, ops, j)
}

/// The measured alternative (feature `dispatch-loop`): return to a per-block loop
/// in the executor, which calls the next handler.
#[cfg(feature = "dispatch-loop")]
#[inline(always)]
pub fn next(_cpu: &mut Cpu, _ops: &[Op], _i: usize) -> Exit {
    Exit::Next
}

/// Continues after a store: a store into decoded code ends the block right after
/// this instruction so the next instruction is decoded from the new bytes.
#[inline(always)]
pub fn after_store(cpu: &mut Cpu, ops: &[Op], i: usize, w: Wrote) -> Exit {
    if w == Wrote::Code {
        return code_written(cpu, ops, i);
    }
    next(cpu, ops, i)
}

#[cold]
#[inline(never)]
pub fn code_written(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    cpu.eip = ops[i].next;
    cpu.exit_at = i;
    Exit::CodeWrite
}

/// Ends the block right after op `i`, which retired (as [`code_written`] does):
/// the run loop goes back to its checks before the next instruction (a segment
/// load that changed which data segments are null makes decoded code stale).
#[cold]
#[inline(never)]
pub fn end_after(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    code_written(cpu, ops, i)
}

/// Ends the block with a memory fault at op `i`; the op has changed nothing.
#[cold]
#[inline(never)]
pub fn fault(cpu: &mut Cpu, ops: &[Op], i: usize, f: Fault) -> Exit {
    let kind = if f.guard {
        ExceptionKind::GuardPage(f.access)
    } else {
        ExceptionKind::AccessViolation(f.access)
    };
    raise_at(cpu, ops, i, kind, f.addr)
}

/// Ends the block with exception `kind` at op `i`.
#[cold]
#[inline(never)]
pub fn raise(cpu: &mut Cpu, ops: &[Op], i: usize, kind: ExceptionKind) -> Exit {
    raise_at(cpu, ops, i, kind, 0)
}

#[cold]
#[inline(never)]
fn raise_at(cpu: &mut Cpu, ops: &[Op], i: usize, kind: ExceptionKind, addr: u32) -> Exit {
    cpu.pending = Some(Exception {
        kind,
        eip: ops[i].eip,
        addr,
    });
    cpu.exit_at = i;
    Exit::Fault
}

/// Ends the block: control continues at `target`.
#[inline(always)]
pub fn jump(cpu: &mut Cpu, target: u32) -> Exit {
    cpu.eip = target;
    Exit::Block
}

/// Unwraps a guest memory result inside a handler, ending the block on a fault.
#[macro_export]
macro_rules! mtry {
    ($cpu:expr, $ops:expr, $i:expr, $e:expr) => {
        match $e {
            Ok(v) => v,
            Err(f) => return $crate::exec::op::fault($cpu, $ops, $i, f),
        }
    };
}

/// Handler for bytes that are not a valid instruction.
pub fn invalid_opcode(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    raise(cpu, ops, i, ExceptionKind::InvalidOpcode)
}

/// Handler for a valid instruction winterp does not implement; the mnemonic is
/// recovered from the op's `code` so the report names it.
pub fn unimplemented(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    let code: iced_x86::Code = iced_code(ops[i].code);
    raise(cpu, ops, i, ExceptionKind::Unimplemented(code.mnemonic()))
}

/// Falls off the end of a block that did not end in a branch.
pub fn block_end(cpu: &mut Cpu, ops: &[Op], i: usize) -> Exit {
    super::chain::jump_chain(cpu, ops[i].imm)
}

pub fn iced_code(v: u16) -> iced_x86::Code {
    // Every `code` field is written from an iced `Code`; unknown values map to INVALID.
    iced_x86::Code::values()
        .nth(v as usize)
        .unwrap_or(iced_x86::Code::INVALID)
}
