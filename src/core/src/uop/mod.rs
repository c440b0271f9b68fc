//! The micro-op tier (`uop`, issue 7): hot loops lowered from their guest
//! instructions to a small register IR ([`ir`]), optimised by [`passes`], to be run
//! by a call-free dispatch loop over the IR.
//!
//! Status: the IR, the lowering ([`lower`]) and the passes exist and are tested
//! on IR in / IR out. No engine executes the IR yet, so the tier's gate stays
//! unavailable (docs/tiers.md, section "uop").

pub mod engine;
pub mod ir;
pub mod lower;
pub mod passes;
