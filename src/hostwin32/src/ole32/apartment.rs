//! Apartments and class object registrations.
//!
//! Each thread's CoInitialize(Ex) calls are counted: the first makes the thread a
//! member of a single-threaded (COINIT_APARTMENTTHREADED) or the multithreaded
//! apartment and returns S_OK, later ones of the same kind S_FALSE, one of the
//! other kind RPC_E_CHANGED_MODE without counting; CoUninitialize undoes one.
//! OleInitialize is CoInitializeEx(STA) plus its own count (S_OK the first time on
//! the thread even after CoInitialize, as Wine's conformance tests show Windows
//! doing); OleUninitialize undoes one of each, and does nothing when no
//! OleInitialize is outstanding. A thread that never initialised COM still uses
//! it while any thread of the process is in the multithreaded apartment (the
//! implicit MTA).

use super::{Apartment, CO_E_NOTINITIALIZED, CO_E_OBJNOTREG, E_INVALIDARG, RPC_E_CHANGED_MODE};
use super::{Registration, S_FALSE, S_OK, with_state};
use crate::hle::com::Guid;
use crate::hle::{ApiResult, Ctx, Outcome, Ptr};

pub const COINIT_APARTMENTTHREADED: u32 = 0x2;

/// Whether the calling thread may use COM.
pub fn initialized(cx: &Ctx) -> bool {
    let tid = cx.thread.tid;
    with_state(cx.proc, |s| {
        s.threads.get(&tid).is_some_and(|a| a.inits > 0)
            || s.threads.values().any(|a| a.mta && a.inits > 0)
    })
}

/// The calling thread's apartment state.
pub fn apartment(cx: &Ctx) -> Apartment {
    let tid = cx.thread.tid;
    with_state(cx.proc, |s| {
        s.threads.get(&tid).copied().unwrap_or_default()
    })
}

fn init(cx: &Ctx, mta: bool) -> u32 {
    let tid = cx.thread.tid;
    with_state(cx.proc, |s| {
        let a = s.threads.entry(tid).or_default();
        if a.inits == 0 {
            *a = Apartment {
                inits: 1,
                mta,
                ole_inits: a.ole_inits,
            };
            S_OK
        } else if a.mta != mta {
            RPC_E_CHANGED_MODE
        } else {
            a.inits += 1;
            S_FALSE
        }
    })
}

pub fn CoInitialize(cx: &mut Ctx, _pvReserved: Ptr) -> u32 {
    init(cx, false)
}

pub fn CoInitializeEx(cx: &mut Ctx, _pvReserved: Ptr, dwCoInit: u32) -> u32 {
    init(cx, dwCoInit & COINIT_APARTMENTTHREADED == 0)
}

/// Undoes one CoInitialize; when the thread leaves its apartment, the class
/// objects it registered are revoked (released) as on Windows.
pub fn CoUninitialize(cx: &mut Ctx) -> ApiResult<Outcome> {
    let tid = cx.thread.tid;
    let revoked = with_state(cx.proc, |s| {
        let Some(a) = s.threads.get_mut(&tid) else {
            return Vec::new();
        };
        if a.inits == 0 {
            return Vec::new();
        }
        a.inits -= 1;
        if a.inits > 0 {
            return Vec::new();
        }
        let (gone, kept): (Vec<Registration>, Vec<Registration>) =
            s.classes.iter().partition(|r| r.tid == tid);
        s.classes = kept;
        gone
    });
    for r in revoked {
        if let Err(end) = release(cx, r.unknown)? {
            return Ok(end);
        }
    }
    Ok(Outcome::Return(0))
}

pub fn OleInitialize(cx: &mut Ctx, _pvReserved: Ptr) -> u32 {
    let hr = init(cx, false);
    if hr & 0x8000_0000 != 0 {
        return hr;
    }
    let tid = cx.thread.tid;
    with_state(cx.proc, |s| {
        let a = s.threads.entry(tid).or_default();
        a.ole_inits += 1;
        if a.ole_inits == 1 { S_OK } else { S_FALSE }
    })
}

pub fn OleUninitialize(cx: &mut Ctx) -> ApiResult<Outcome> {
    let tid = cx.thread.tid;
    let had = with_state(cx.proc, |s| match s.threads.get_mut(&tid) {
        Some(a) if a.ole_inits > 0 => {
            a.ole_inits -= 1;
            true
        }
        _ => false,
    });
    if !had {
        return Ok(Outcome::Return(0));
    }
    CoUninitialize(cx)
}

/// Calls method `slot` of the COM object `obj` (guest code) with `args` after
/// `this`: Ok(Ok(result)), or Ok(Err(outcome)) if the thread or process ended.
pub fn call_method(
    cx: &mut Ctx,
    obj: u32,
    slot: u32,
    args: &[u32],
) -> ApiResult<Result<u32, Outcome>> {
    let vtbl = cx.proc.mem.read_u32(obj)?;
    let f = cx.proc.mem.read_u32(vtbl.wrapping_add(4 * slot))?;
    let mut all = vec![obj];
    all.extend_from_slice(args);
    crate::msvcrt::state::call_guest(cx, f, &all)
}

/// IUnknown::AddRef and Release of a guest object.
pub fn add_ref(cx: &mut Ctx, obj: u32) -> ApiResult<Result<u32, Outcome>> {
    call_method(cx, obj, 1, &[])
}

pub fn release(cx: &mut Ctx, obj: u32) -> ApiResult<Result<u32, Outcome>> {
    call_method(cx, obj, 2, &[])
}

/// CoRegisterClassObject: makes the program's class object the one
/// CoCreateInstance uses for `rclsid` in the contexts given, until revoked.
pub fn CoRegisterClassObject(
    cx: &mut Ctx,
    rclsid: Ptr,
    pUnk: u32,
    dwClsContext: u32,
    _flags: u32,
    lpdwRegister: Ptr,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    if rclsid.is_null() || pUnk == 0 || lpdwRegister.is_null() {
        return ret(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(lpdwRegister.0, 0)?;
    if !initialized(cx) {
        return ret(CO_E_NOTINITIALIZED);
    }
    let clsid = Guid::read(cx.proc, rclsid.0)?;
    if let Err(end) = add_ref(cx, pUnk)? {
        return Ok(end);
    }
    let tid = cx.thread.tid;
    let cookie = with_state(cx.proc, |s| {
        s.next_cookie += 1;
        let cookie = s.next_cookie;
        s.classes.push(Registration {
            cookie,
            clsid,
            unknown: pUnk,
            context: dwClsContext,
            tid,
        });
        cookie
    });
    cx.proc.mem.write_u32(lpdwRegister.0, cookie)?;
    ret(S_OK)
}

pub fn CoRevokeClassObject(cx: &mut Ctx, dwRegister: u32) -> ApiResult<Outcome> {
    let found = with_state(cx.proc, |s| {
        let k = s.classes.iter().position(|r| r.cookie == dwRegister)?;
        Some(s.classes.remove(k))
    });
    let Some(r) = found else {
        return Ok(Outcome::Return(u64::from(CO_E_OBJNOTREG)));
    };
    if let Err(end) = release(cx, r.unknown)? {
        return Ok(end);
    }
    Ok(Outcome::Return(u64::from(S_OK)))
}

/// CoFreeUnusedLibraries unloads in-process servers whose DllCanUnloadNow says
/// so. The classes CoCreateInstance serves here live in the built-in DLLs, which
/// stay loaded, and no server DLL is ever loaded for a class: there is nothing to
/// unload.
pub fn CoFreeUnusedLibraries(_cx: &mut Ctx) {}

/// The class object registered for `clsid` in one of the contexts `context`.
pub fn registered(cx: &Ctx, clsid: &Guid, context: u32) -> Option<Registration> {
    with_state(cx.proc, |s| {
        s.classes
            .iter()
            .find(|r| r.clsid == *clsid && r.context & context != 0)
            .copied()
    })
}
