//! x87 instruction group (to be filled in).

use crate::exec::op::{Handler, Op};
use iced_x86::Instruction;

pub fn lower(_ins: &Instruction, _o: &mut Op) -> Option<Handler> {
    None
}
