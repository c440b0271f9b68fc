//! The micro-op tier (`uop`, issue 7): hot loops lowered from their guest
//! instructions ([`lower`]) to a small register IR ([`ir`]), optimised by
//! [`passes`], compiled to flat pre-resolved ops with superops ([`flat`]) and run by
//! a call-free dispatch loop with raw accesses inside proved windows; [`engine`]
//! decides which heads get a program.
//!
//! Status: exact (tests/uop.rs), off by default; 1.6-2.1x the threaded interpreter
//! on its bench shapes (docs/tiers.md, section "Micro-op tier").

pub mod engine;
pub mod flat;
pub mod ir;
pub mod lower;
pub mod passes;
