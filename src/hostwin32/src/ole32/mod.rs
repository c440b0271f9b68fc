//! ole32.dll: the part of COM games use. Apartments (CoInitialize(Ex),
//! OleInitialize and their uninitialisers, counted per thread), CoCreateInstance
//! for the DirectX classes and Internet Explorer (DirectDraw, DirectSound, DirectInput, DirectPlay and
//! its lobby, created by their own DLL modules, uninitialised where Windows
//! documents it) and for class objects the program registered, the task allocator
//! (CoTaskMem*, CoGetMalloc's IMalloc), GUID text (CLSIDFromString,
//! StringFromGUID2, ...) and CoCreateGuid.
//!
//! ole32 sits beside the DirectX modules and ieframe (Internet Explorer's object):
//! it calls into ddraw, dsound, dinput, dplayx and ieframe; none of them calls it.

#![allow(non_snake_case)]

pub mod apartment;
pub mod create;
pub mod guid;
pub mod malloc;
#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, HleDll, stdcall};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub const DLL: HleDll = HleDll {
    name: "ole32.dll",
    exports,
    attach: None,
};

pub const DLL_NAME: &str = "ole32.dll";

pub const S_OK: u32 = 0;
pub const S_FALSE: u32 = 1;
pub const E_INVALIDARG: u32 = crate::hle::com::E_INVALIDARG;
pub const E_OUTOFMEMORY: u32 = crate::hle::com::E_OUTOFMEMORY;
pub const CO_E_NOTINITIALIZED: u32 = 0x8004_01F0;
pub const CO_E_CLASSSTRING: u32 = 0x8004_01F3;
pub const CO_E_IIDSTRING: u32 = 0x8004_01F4;
pub const CO_E_OBJNOTREG: u32 = 0x8004_01FB;
pub const REGDB_E_CLASSNOTREG: u32 = 0x8004_0154;
pub const RPC_E_CHANGED_MODE: u32 = 0x8001_0106;

/// One thread's COM state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Apartment {
    /// CoInitialize(Ex) calls not yet undone; the apartment exists while > 0.
    pub inits: u32,
    /// Whether it is the multithreaded apartment (else single-threaded).
    pub mta: bool,
    /// OleInitialize calls not yet undone.
    pub ole_inits: u32,
}

/// A class object registered with CoRegisterClassObject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registration {
    pub cookie: u32,
    pub clsid: crate::hle::com::Guid,
    /// The class object's IUnknown (one reference held).
    pub unknown: u32,
    pub context: u32,
    /// The thread that registered it (its apartment).
    pub tid: u32,
}

/// Per-process COM state.
#[derive(Default)]
pub struct State {
    /// Thread id -> its apartment membership.
    pub threads: HashMap<u32, Apartment>,
    pub classes: Vec<Registration>,
    pub next_cookie: u32,
    /// The task allocator's IMalloc object, once made.
    pub malloc: u32,
    /// CoCreateGuid's generator state, once seeded.
    pub rng: Option<u64>,
}

fn state_of(proc: &Arc<Process>) -> Arc<Mutex<State>> {
    proc.slot::<Mutex<State>>()
}

/// Runs `f` on the process's COM state (no guest code may run inside).
pub fn with_state<T>(proc: &Arc<Process>, f: impl FnOnce(&mut State) -> T) -> T {
    let s = state_of(proc);
    let mut g: MutexGuard<'_, State> = s.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Compound files (structured storage) are not provided: StgCreateDocfile fails
/// with E_NOTIMPL, which callers see as any failed creation (WordPad keeps going
/// without the storage its rich edit OLE callback would put objects in), and says
/// so in the log. *ppstgOpen is set to NULL as documented for failures.
fn StgCreateDocfile(
    cx: &mut crate::hle::Ctx,
    _pwcsName: u32,
    grfMode: u32,
    _reserved: u32,
    ppstgOpen: crate::hle::Ptr,
) -> crate::hle::ApiResult<u32> {
    log::warn!(
        "ole32: StgCreateDocfile(mode {grfMode:#x}): compound files are not implemented, returning E_NOTIMPL"
    );
    if !ppstgOpen.is_null() {
        cx.proc.mem.write_u32(ppstgOpen.0, 0)?;
    }
    Ok(0x8000_4001)
}

fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("StgCreateDocfile", StgCreateDocfile),
        stdcall("CoInitialize", apartment::CoInitialize),
        stdcall("CoInitializeEx", apartment::CoInitializeEx),
        stdcall("CoUninitialize", apartment::CoUninitialize),
        stdcall("OleInitialize", apartment::OleInitialize),
        stdcall("OleUninitialize", apartment::OleUninitialize),
        stdcall("CoRegisterClassObject", apartment::CoRegisterClassObject),
        stdcall("CoRevokeClassObject", apartment::CoRevokeClassObject),
        stdcall("CoFreeUnusedLibraries", apartment::CoFreeUnusedLibraries),
        stdcall("CoCreateInstance", create::CoCreateInstance),
        stdcall("CLSIDFromString", guid::CLSIDFromString),
        stdcall("IIDFromString", guid::IIDFromString),
        stdcall("StringFromGUID2", guid::StringFromGUID2),
        stdcall("StringFromCLSID", guid::StringFromCLSID),
        stdcall("StringFromIID", guid::StringFromIID),
        stdcall("CoCreateGuid", guid::CoCreateGuid),
    ];
    v.extend(malloc::exports());
    v
}
