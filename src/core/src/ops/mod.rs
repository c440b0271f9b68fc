//! Instruction handlers, one module per instruction group. Each group exposes
//! `lower(&Instruction, &mut Op) -> Option<Handler>`: it claims the forms it
//! implements, fills the op's operand fields and returns the specialised handler.
//! The decoder tries the groups in [`GROUPS`] order; a valid instruction that no
//! group claims gets the `unimplemented` handler, which names it when executed.

pub mod alu;
pub mod bcd;
pub mod bits;
pub mod branch;
pub mod far;
pub mod mmx;
pub mod muldiv;
pub mod shift;
pub mod stack;
pub mod string;
pub mod system;
pub mod x87;

use crate::exec::op::{self, Handler, Op};
use iced_x86::{Instruction, OpKind, Register};

pub type Lowerer = fn(&Instruction, &mut Op) -> Option<Handler>;

/// Groups in the order the decoder asks them.
pub const GROUPS: &[(&str, Lowerer)] = &[
    ("alu", alu::lower),
    ("branch", branch::lower),
    ("far", far::lower),
    ("stack", stack::lower),
    ("shift", shift::lower),
    ("muldiv", muldiv::lower),
    ("bits", bits::lower),
    ("bcd", bcd::lower),
    ("string", string::lower),
    ("system", system::lower),
    ("x87", x87::lower),
    ("mmx", mmx::lower),
];

pub fn lower(ins: &Instruction, o: &mut Op) -> Handler {
    for (_, g) in GROUPS {
        if let Some(h) = g(ins, o) {
            return h;
        }
    }
    op::unimplemented
}

/// x86 number of operand `n` when it is a general-purpose register.
#[inline]
pub fn reg_op(ins: &Instruction, n: u32) -> Option<u8> {
    if ins.op_kind(n) == OpKind::Register {
        crate::decode::gpr(ins.op_register(n))
    } else {
        None
    }
}

/// Width in bits of a general-purpose register.
pub fn reg_size(r: Register) -> u32 {
    if r.is_gpr8() {
        8
    } else if r.is_gpr16() {
        16
    } else {
        32
    }
}

/// Whether operand `n` is an immediate of any kind.
pub fn is_imm(ins: &Instruction, n: u32) -> bool {
    matches!(
        ins.op_kind(n),
        OpKind::Immediate8
            | OpKind::Immediate16
            | OpKind::Immediate32
            | OpKind::Immediate8to16
            | OpKind::Immediate8to32
            | OpKind::Immediate8_2nd
    )
}

/// Picks the handler for an operand size from three monomorphisations.
#[macro_export]
macro_rules! by_size {
    ($size:expr, $f:ident) => {
        match $size {
            8 => $f::<8> as $crate::exec::op::Handler,
            16 => $f::<16> as $crate::exec::op::Handler,
            _ => $f::<32> as $crate::exec::op::Handler,
        }
    };
    ($size:expr, $f:ident :: <$($p:tt),+>) => {
        match $size {
            8 => $f::<$($p,)* 8> as $crate::exec::op::Handler,
            16 => $f::<$($p,)* 16> as $crate::exec::op::Handler,
            _ => $f::<$($p,)* 32> as $crate::exec::op::Handler,
        }
    };
}
