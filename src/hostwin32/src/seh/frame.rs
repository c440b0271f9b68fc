//! The dispatcher's own registration record on the guest stack, and the stack limits
//! frames are checked against.
//!
//! Windows' ntdll calls every handler through a helper that links a registration
//! record of its own onto FS:[0] for the duration of the call (RtlpExecuteHandler2
//! with RtlpExceptionHandler or RtlpUnwindHandler). winterp does the same: the
//! record is followed by the state of the dispatch or unwind in progress, so the
//! dispatcher keeps no host-side state between handler calls and a handler that never
//! returns (an `__except` block, a C++ catch, longjmp) leaves nothing behind on the
//! host. When another exception or unwind meets this record on the chain, its
//! "handler" (the nested-handler export) answers as Windows' do: NestedException or
//! CollidedUnwind with the frame that was being processed.

use super::Fatal;
use super::layout::{disposition, flag};
use crate::process::Process;
use crate::thread::GuestThread;
use winterp_core::cpu::seg;
use winterp_core::mem::{Fault, GuestMemory};

/// Bytes of the record plus state.
pub const SIZE: u32 = 0x40;
/// Stack the dispatcher needs below its record for a handler call (4 arguments and
/// the return address, rounded up).
pub const CALL_ROOM: u32 = 0x20;

const MAGIC_DISPATCH: u32 = u32::from_le_bytes(*b"wSEH");
const MAGIC_UNWIND: u32 = u32::from_le_bytes(*b"wUNW");
/// Mixed with the record's address so that a stale copy elsewhere is not taken for it.
const COOKIE_SALT: u32 = 0x5eb1_7a3d;

mod off {
    pub const NEXT: u32 = 0x00;
    pub const HANDLER: u32 = 0x04;
    pub const MAGIC: u32 = 0x08;
    pub const RECORD: u32 = 0x0c;
    pub const CONTEXT: u32 = 0x10;
    pub const CURRENT: u32 = 0x14;
    pub const AUX: u32 = 0x18;
    pub const DISPATCHER: u32 = 0x1c;
    pub const PHASE: u32 = 0x20;
    pub const COUNT: u32 = 0x24;
    pub const DEPTH: u32 = 0x28;
    pub const TOP: u32 = 0x2c;
    pub const COOKIE: u32 = 0x30;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// RtlDispatchException: looking for a handler.
    Dispatch,
    /// RtlUnwind: calling handlers with EXCEPTION_UNWINDING on the way to a target.
    Unwind,
}

/// Phase of a dispatch.
pub mod phase {
    /// Calling frame-based handlers.
    pub const CHAIN: u32 = 0;
    /// Calling the top-level filter (SetUnhandledExceptionFilter).
    pub const FILTER: u32 = 1;
    /// An unwind on the way to ExitProcess after an unhandled exception: anything
    /// going wrong now ends the process at once.
    pub const TERMINATING: u32 = 2;
}

/// The dispatcher's registration record and state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Guest address (the registration record).
    pub at: u32,
    /// The record's Next: FS:[0] when the current handler was called.
    pub next: u32,
    pub kind: Kind,
    /// Guest addresses of the EXCEPTION_RECORD and CONTEXT handed to handlers.
    pub record: u32,
    pub context: u32,
    /// The registration record whose handler is being called.
    pub current: u32,
    /// Dispatch: the frame up to which EXCEPTION_NESTED_CALL is set (0: none).
    /// Unwind: the target frame.
    pub aux: u32,
    /// The DispatcherContext handlers receive a pointer to.
    pub dispatcher: u32,
    pub phase: u32,
    /// Registration records visited (bounds the walk of a cyclic chain).
    pub count: u32,
    /// Exceptions being dispatched around this one (0 for a first exception).
    pub depth: u32,
    /// The thread's start-up registration record, once the walk reached it (0: not).
    pub top: u32,
}

impl Frame {
    pub fn new(at: u32, kind: Kind, record: u32, context: u32, aux: u32, depth: u32) -> Frame {
        Frame {
            at,
            next: 0,
            kind,
            record,
            context,
            current: 0,
            aux,
            dispatcher: 0,
            phase: phase::CHAIN,
            count: 0,
            depth,
            top: 0,
        }
    }

    /// Guest address of the DispatcherContext slot.
    pub fn dispatcher_slot(&self) -> u32 {
        self.at + off::DISPATCHER
    }

    /// The dispatcher's record at `at`, if that is one (`nested` is the address of
    /// its handler, the nested-handler thunk).
    pub fn read(mem: &GuestMemory, at: u32, nested: u32) -> Option<Frame> {
        let mut b = [0u8; SIZE as usize];
        mem.read_bytes(at, &mut b).ok()?;
        let w = |o: u32| u32::from_le_bytes(b[o as usize..o as usize + 4].try_into().expect("4"));
        let kind = match w(off::MAGIC) {
            MAGIC_DISPATCH => Kind::Dispatch,
            MAGIC_UNWIND => Kind::Unwind,
            _ => return None,
        };
        if w(off::HANDLER) != nested || w(off::COOKIE) != at ^ COOKIE_SALT {
            return None;
        }
        Some(Frame {
            at,
            next: w(off::NEXT),
            kind,
            record: w(off::RECORD),
            context: w(off::CONTEXT),
            current: w(off::CURRENT),
            aux: w(off::AUX),
            dispatcher: w(off::DISPATCHER),
            phase: w(off::PHASE),
            count: w(off::COUNT),
            depth: w(off::DEPTH),
            top: w(off::TOP),
        })
    }

    pub fn write(&self, mem: &GuestMemory, nested: u32) -> Result<(), Fault> {
        let magic = match self.kind {
            Kind::Dispatch => MAGIC_DISPATCH,
            Kind::Unwind => MAGIC_UNWIND,
        };
        let mut b = [0u8; SIZE as usize];
        for (o, v) in [
            (off::NEXT, self.next),
            (off::HANDLER, nested),
            (off::MAGIC, magic),
            (off::RECORD, self.record),
            (off::CONTEXT, self.context),
            (off::CURRENT, self.current),
            (off::AUX, self.aux),
            (off::DISPATCHER, self.dispatcher),
            (off::PHASE, self.phase),
            (off::COUNT, self.count),
            (off::DEPTH, self.depth),
            (off::TOP, self.top),
            (off::COOKIE, self.at ^ COOKIE_SALT),
        ] {
            b[o as usize..o as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        mem.write_bytes(self.at, &b)
    }

    /// What this record's handler (RtlpExceptionHandler / RtlpUnwindHandler) answers
    /// an exception or unwind whose record has `flags`, and the DispatcherContext it
    /// sets: a new exception raised inside a handler is nested in the frame whose
    /// handler was running; an unwind that meets an unwind in progress collides with
    /// it and skips the frames it already unwound.
    pub fn answer(&self, flags: u32) -> (u32, Option<u32>) {
        let unwinding = flags & flag::UNWIND != 0;
        match (self.kind, unwinding) {
            (Kind::Dispatch, false) => (disposition::NESTED_EXCEPTION, Some(self.current)),
            (Kind::Unwind, true) => (disposition::COLLIDED_UNWIND, Some(self.current)),
            _ => (disposition::CONTINUE_SEARCH, None),
        }
    }
}

/// Where the thread's FS:[0] (TEB ExceptionList) lives.
pub fn exception_list(t: &GuestThread) -> u32 {
    t.cpu.seg_base[seg::FS as usize]
}

/// The limits of the stack holding `sp`.
#[derive(Clone, Copy, Debug)]
pub struct Stack {
    pub lo: u32,
    /// One past the highest byte (may be 2^32).
    pub hi: u64,
}

impl Stack {
    /// The stack holding `sp`: the TEB's StackLimit..StackBase if they contain it
    /// (what RtlDispatchException checks frames against), else the reservation it
    /// lies in.
    pub fn of(t: &GuestThread, proc: &Process, sp: u32) -> Option<Stack> {
        let teb = t.cpu.seg_base[seg::FS as usize];
        let base = proc.mem.read_u32(teb.wrapping_add(crate::teb::STACK_BASE));
        let limit = proc.mem.read_u32(teb.wrapping_add(crate::teb::STACK_LIMIT));
        if let (Ok(base), Ok(limit)) = (base, limit)
            && limit < base
            && (limit..=base).contains(&sp)
        {
            return Some(Stack {
                lo: limit,
                hi: base as u64,
            });
        }
        let vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        let r = vm.reservation(sp.wrapping_sub(1))?;
        Some(Stack {
            lo: r.base,
            hi: r.base as u64 + r.size as u64,
        })
    }

    /// Whether `len` bytes at `addr` lie on this stack.
    pub fn holds(&self, addr: u32, len: u32) -> bool {
        addr >= self.lo && addr as u64 + len as u64 <= self.hi
    }

    /// Whether a registration record may be at `f`: on the stack and aligned.
    pub fn frame_ok(&self, f: u32) -> bool {
        f & 3 == 0 && self.holds(f, 8)
    }

    /// More visits than distinct records fit on the stack means a cycle.
    pub fn max_frames(&self) -> u32 {
        ((self.hi - self.lo as u64) / 8).min(u32::MAX as u64 - 16) as u32 + 16
    }
}

/// The HLE thunks the dispatcher hands to guest code.
#[derive(Clone, Copy, Debug)]
pub struct Thunks {
    /// Where handlers return to (the return-from-handler export).
    pub ret: u32,
    /// The handler of the dispatcher's registration records.
    pub nested: u32,
    /// The handler of the thread's start-up registration record.
    pub top: u32,
}

impl Thunks {
    pub fn get(proc: &Process) -> Result<Thunks, Fatal> {
        let missing = || {
            Fatal {
            code: super::layout::code::BAD_STACK,
            report: Some(
                "winterp: exception dispatch needs the KERNEL32 HLE DLL, which this process lacks\n"
                    .into(),
            ),
        }
        };
        if proc.hle_dll("KERNEL32.dll").is_none() {
            return Err(missing());
        }
        let get = |name| {
            proc.resolve_hle("KERNEL32.dll", name)
                .map_err(|_| missing())
        };
        Ok(Thunks {
            ret: get(super::RETURN_EXPORT)?,
            nested: get(super::NESTED_EXPORT)?,
            top: get(super::TOP_EXPORT)?,
        })
    }
}
