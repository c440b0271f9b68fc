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
