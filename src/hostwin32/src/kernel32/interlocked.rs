//! KERNEL32 Interlocked*: host atomic read-modify-writes on guest memory, atomic with
//! respect to the guest's own LOCK-prefixed instructions on other threads.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};

/// Atomically replaces the LONG at `p` by `f(old)` (or leaves it when `None`);
/// returns the old value.
fn rmw(cx: &Ctx, p: Ptr, mut f: impl FnMut(u32) -> Option<u32>) -> ApiResult<u32> {
    let (old, _) = cx
        .proc
        .mem
        .atomic_rmw(p.0, 4, |v| f(v as u32).map(u64::from))?;
    Ok(old as u32)
}

/// Returns the incremented value (NT; Windows 95 only promised its sign).
pub fn InterlockedIncrement(cx: &mut Ctx, Addend: Ptr) -> ApiResult<u32> {
    Ok(rmw(cx, Addend, |v| Some(v.wrapping_add(1)))?.wrapping_add(1))
}

pub fn InterlockedDecrement(cx: &mut Ctx, Addend: Ptr) -> ApiResult<u32> {
    Ok(rmw(cx, Addend, |v| Some(v.wrapping_sub(1)))?.wrapping_sub(1))
}

pub fn InterlockedExchange(cx: &mut Ctx, Target: Ptr, Value: u32) -> ApiResult<u32> {
    rmw(cx, Target, |_| Some(Value))
}

pub fn InterlockedCompareExchange(
    cx: &mut Ctx,
    Destination: Ptr,
    ExChange: u32,
    Comperand: u32,
) -> ApiResult<u32> {
    rmw(cx, Destination, |v| (v == Comperand).then_some(ExChange))
}

pub fn InterlockedExchangeAdd(cx: &mut Ctx, Addend: Ptr, Value: u32) -> ApiResult<u32> {
    rmw(cx, Addend, |v| Some(v.wrapping_add(Value)))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("InterlockedIncrement", InterlockedIncrement),
        stdcall("InterlockedDecrement", InterlockedDecrement),
        stdcall("InterlockedExchange", InterlockedExchange),
        stdcall("InterlockedCompareExchange", InterlockedCompareExchange),
        stdcall("InterlockedExchangeAdd", InterlockedExchangeAdd),
    ]
}
