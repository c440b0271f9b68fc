//! KERNEL32 thread-local storage slots: TlsAlloc/TlsFree/TlsGetValue/TlsSetValue.
//! The 64 slots live in each TEB at [`teb::TLS_SLOTS`]; which indexes are in use is a
//! bitmap per process ([`crate::scheduler::Sched::tls`]).

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, stdcall};
use crate::scheduler;
use crate::teb::{self, set_last_error};

use super::misc::err;

pub const TLS_OUT_OF_INDEXES: u32 = u32::MAX;
const ERROR_NO_MORE_ITEMS: u32 = 259;

/// Sets slot `index` to 0 in every live thread (a new or freed index reads as 0
/// everywhere, as Windows documents).
fn clear_slot(cx: &mut Ctx, index: u32) -> ApiResult<()> {
    scheduler::current(cx);
    for t in cx.proc.sched.threads() {
        cx.proc
            .mem
            .write_u32(t.teb + teb::TLS_SLOTS + 4 * index, 0)?;
    }
    Ok(())
}

pub fn TlsAlloc(cx: &mut Ctx) -> ApiResult<u32> {
    let index = {
        let mut used = cx.proc.sched.tls.lock().unwrap_or_else(|e| e.into_inner());
        let free = (!*used).trailing_zeros();
        if free >= teb::TLS_SLOT_COUNT {
            None
        } else {
            *used |= 1 << free;
            Some(free)
        }
    };
    match index {
        Some(i) => {
            clear_slot(cx, i)?;
            Ok(i)
        }
        None => {
            set_last_error(cx, ERROR_NO_MORE_ITEMS)?;
            Ok(TLS_OUT_OF_INDEXES)
        }
    }
}

pub fn TlsFree(cx: &mut Ctx, dwTlsIndex: u32) -> ApiResult<bool> {
    let freed = dwTlsIndex < teb::TLS_SLOT_COUNT && {
        let mut used = cx.proc.sched.tls.lock().unwrap_or_else(|e| e.into_inner());
        let was = *used & (1 << dwTlsIndex) != 0;
        *used &= !(1 << dwTlsIndex);
        was
    };
    if !freed {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    clear_slot(cx, dwTlsIndex)?;
    Ok(true)
}

/// Clears the last error on success, so a stored 0 can be told from a failure.
pub fn TlsGetValue(cx: &mut Ctx, dwTlsIndex: u32) -> ApiResult<u32> {
    if dwTlsIndex >= teb::TLS_SLOT_COUNT {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    set_last_error(cx, err::ERROR_SUCCESS)?;
    Ok(cx
        .proc
        .mem
        .read_u32(cx.thread.teb + teb::TLS_SLOTS + 4 * dwTlsIndex)?)
}

pub fn TlsSetValue(cx: &mut Ctx, dwTlsIndex: u32, lpTlsValue: u32) -> ApiResult<bool> {
    if dwTlsIndex >= teb::TLS_SLOT_COUNT {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    cx.proc
        .mem
        .write_u32(cx.thread.teb + teb::TLS_SLOTS + 4 * dwTlsIndex, lpTlsValue)?;
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("TlsAlloc", TlsAlloc),
        stdcall("TlsFree", TlsFree),
        stdcall("TlsGetValue", TlsGetValue),
        stdcall("TlsSetValue", TlsSetValue),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;
    use crate::thread::GuestThread;

    #[test]
    fn slots_allocate_lowest_first_and_are_per_thread() {
        let mut h = Harness::new();
        let teb2 = h.scratch(teb::TEB_SIZE);
        let mut t2 = GuestThread::new(&h.proc, 0x20, teb2);
        scheduler::register(&h.proc, &mut t2);
        // A stale value in the other thread's slot 1 is cleared by TlsAlloc.
        h.proc
            .mem
            .write_u32(teb2 + teb::TLS_SLOTS + 4, 0x77)
            .unwrap();
        assert_eq!(TlsAlloc(&mut h.cx()).unwrap(), 0);
        assert_eq!(TlsAlloc(&mut h.cx()).unwrap(), 1);
        assert_eq!(h.u32(teb2 + teb::TLS_SLOTS + 4), 0);
        assert!(TlsSetValue(&mut h.cx(), 1, 0x1234).unwrap());
        let mut c2 = Ctx {
            proc: &h.proc,
            thread: &mut t2,
        };
        assert!(TlsSetValue(&mut c2, 1, 0x5678).unwrap());
        set_last_error(&mut c2, 99).unwrap();
        assert_eq!(TlsGetValue(&mut c2, 1).unwrap(), 0x5678);
        assert_eq!(teb::last_error(&c2).unwrap(), 0);
        set_last_error(&mut h.cx(), 99).unwrap();
        assert_eq!(TlsGetValue(&mut h.cx(), 1).unwrap(), 0x1234);
        assert_eq!(h.last_error(), 0);
        // Freeing clears the slot everywhere; a second free fails.
        assert!(TlsFree(&mut h.cx(), 0).unwrap());
        assert!(TlsFree(&mut h.cx(), 1).unwrap());
        assert_eq!(h.u32(teb2 + teb::TLS_SLOTS + 4), 0);
        assert_eq!(h.u32(h.thread.teb + teb::TLS_SLOTS + 4), 0);
        assert!(!TlsFree(&mut h.cx(), 1).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(TlsAlloc(&mut h.cx()).unwrap(), 0);
    }

    #[test]
    fn out_of_range_and_exhaustion() {
        let mut h = Harness::new();
        assert!(!TlsSetValue(&mut h.cx(), 64, 1).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        set_last_error(&mut h.cx(), 0).unwrap();
        assert_eq!(TlsGetValue(&mut h.cx(), 64).unwrap(), 0);
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert!(!TlsFree(&mut h.cx(), 1000).unwrap());
        for k in 0..64 {
            assert_eq!(TlsAlloc(&mut h.cx()).unwrap(), k);
        }
        assert_eq!(TlsAlloc(&mut h.cx()).unwrap(), TLS_OUT_OF_INDEXES);
        assert_eq!(h.last_error(), ERROR_NO_MORE_ITEMS);
    }
}
