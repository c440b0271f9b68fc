//! The micro-op tier (`uop`, issue 7): hot loops lowered from their guest
//! instructions ([`lower`]) to a small register IR ([`ir`]), optimised by
//! [`passes`], and run by a call-free dispatch loop over the IR ([`engine`]).
//!
//! Status: exact (tests/uop.rs), off by default, and slower than the threaded
//! interpreter on the shapes measured (docs/tiers.md, section "uop").

pub mod engine;
pub mod flat;
pub mod ir;
pub mod lower;
pub mod passes;
