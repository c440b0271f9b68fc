//! winterp-core: the guest x86-32 machine.
//!
//! Guest memory ([`mem`]), architectural state ([`cpu`]), the decoder that turns
//! guest bytes into pre-decoded threaded ops ([`decode`]), the handlers grouped by
//! instruction family ([`ops`]) and the executor that runs blocks of ops out of a
//! per-thread, per-page block cache ([`exec`]). Nothing here knows about Win32.

pub mod attention;
pub mod cpu;
pub mod decode;
pub mod exec;
pub mod jit;
pub mod mem;
pub mod ops;
pub mod stats;
pub mod tiers;
pub mod uop;

pub use cpu::Cpu;
pub use cpu::{Exception, ExceptionKind};
pub use exec::{Executor, StopReason};
pub use mem::{GuestMemory, Prot};
pub mod bench;
pub mod harness;
