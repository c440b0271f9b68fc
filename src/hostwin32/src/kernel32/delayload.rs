//! Delay-load helpers: ResolveDelayLoadedAPI, which the linker's delay-load stub
//! calls the first time a delay-imported function is used, loads the DLL, looks
//! the function up and patches the import slot; DelayLoadFailureHook is what
//! Windows calls when that fails.

#![allow(non_snake_case)]

use super::module::{GetProcAddress, LoadLibraryA};
use super::string::read_ansi;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};

/// IMAGE_DELAYLOAD_DESCRIPTOR fields (RVAs when Attributes bit 0 is set).
const DLL_NAME: u32 = 4;
const MODULE_HANDLE: u32 = 8;
const IAT: u32 = 12;
const INT: u32 = 16;

/// What one delay-import slot names: `(dll name address, import name or
/// ordinal as GetProcAddress takes it, module handle slot)`.
fn slot_target(cx: &Ctx, base: u32, desc: u32, thunk: u32) -> ApiResult<(u32, u32, u32)> {
    let m = &cx.proc.mem;
    let attributes = m.read_u32(desc)?;
    if attributes & 1 == 0 {
        return Err(ApiError::UnimplementedCase(
            "ResolveDelayLoadedAPI: a delay-load descriptor with absolute addresses".into(),
        ));
    }
    let rva = |off: u32| -> ApiResult<u32> { Ok(base.wrapping_add(m.read_u32(desc + off)?)) };
    let iat = rva(IAT)?;
    if thunk < iat || !(thunk - iat).is_multiple_of(4) {
        return Err(ApiError::Other(format!(
            "ResolveDelayLoadedAPI: {thunk:#x} is not a slot of the table at {iat:#x}"
        )));
    }
    let entry = m.read_u32(rva(INT)? + (thunk - iat))?;
    // High bit: an ordinal; otherwise the RVA of a hint and a name.
    let what = if entry & 0x8000_0000 != 0 {
        entry & 0xffff
    } else {
        base.wrapping_add(entry).wrapping_add(2)
    };
    Ok((rva(DLL_NAME)?, what, rva(MODULE_HANDLE)?))
}

pub fn ResolveDelayLoadedAPI(
    cx: &mut Ctx,
    ParentModuleBase: u32,
    DelayloadedImportDescriptor: Ptr,
    _FailureDllHook: u32,
    _FailureSystemHook: u32,
    ThunkAddress: Ptr,
    _Flags: u32,
) -> ApiResult<Outcome> {
    let (dll, what, handle_slot) = slot_target(
        cx,
        ParentModuleBase,
        DelayloadedImportDescriptor.0,
        ThunkAddress.0,
    )?;
    let mut h = cx.proc.mem.read_u32(handle_slot)?;
    if h == 0 {
        h = match LoadLibraryA(cx, Ptr(dll))? {
            Outcome::Return(v) => v as u32,
            o => return Ok(o),
        };
    }
    let dll_name = read_ansi(cx.proc, dll)?;
    if h == 0 {
        return Err(ApiError::Other(format!(
            "delay-loaded {dll_name} could not be loaded"
        )));
    }
    cx.proc.mem.write_u32(handle_slot, h)?;
    let f = GetProcAddress(cx, h, Ptr(what))?;
    if f == 0 {
        let name = if what >> 16 == 0 {
            format!("#{what}")
        } else {
            read_ansi(cx.proc, what)?
        };
        return Err(ApiError::Other(format!(
            "delay-loaded {dll_name} has no export {name}"
        )));
    }
    cx.proc.mem.write_u32(ThunkAddress.0, f)?;
    Ok(Outcome::Return(f as u64))
}

/// Reached only when a delay load failed and the program asked Windows for the
/// fallback: the program cannot continue, so it stops with the names.
pub fn DelayLoadFailureHook(cx: &mut Ctx, pszDllName: Ptr, pszProcName: Ptr) -> ApiResult<u32> {
    let dll = read_ansi(cx.proc, pszDllName.0)?;
    let name = if pszProcName.0 >> 16 == 0 {
        format!("#{}", pszProcName.0)
    } else {
        read_ansi(cx.proc, pszProcName.0)?
    };
    Err(ApiError::Other(format!(
        "delay load of {dll}!{name} failed (DelayLoadFailureHook)"
    )))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ResolveDelayLoadedAPI", ResolveDelayLoadedAPI),
        stdcall("DelayLoadFailureHook", DelayLoadFailureHook),
    ]
}

#[cfg(test)]
mod tests {
    use super::slot_target;
    use crate::hle::Ctx;
    use crate::host::CaptureHost;
    use crate::process::{Process, ProcessConfig};
    use std::sync::Arc;
    use winterp_core::mem::Prot;

    #[test]
    fn slot_names_the_import_of_the_same_index() {
        let cfg = ProcessConfig::new("t.exe".into(), "C:\\T\\t.exe".into());
        let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &crate::hle_dlls()).unwrap();
        let mut thread = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
        let base = proc
            .vm
            .lock()
            .unwrap()
            .alloc(None, 0x1_0000, Prot::RW, "image")
            .unwrap();
        let m = &proc.mem;
        // Descriptor at +0x100: RVA-based, name at +0x200, handle +0x300, IAT
        // +0x400, INT +0x500 (an ordinal, then a hint/name at +0x600).
        for (off, v) in [(0, 1u32), (4, 0x200), (8, 0x300), (12, 0x400), (16, 0x500)] {
            m.write_u32(base + 0x100 + off, v).unwrap();
        }
        m.write_u32(base + 0x500, 0x8000_0007).unwrap();
        m.write_u32(base + 0x504, 0x600).unwrap();
        let cx = Ctx {
            proc: &proc,
            thread: &mut thread,
        };
        assert_eq!(
            slot_target(&cx, base, base + 0x100, base + 0x400).unwrap(),
            (base + 0x200, 7, base + 0x300)
        );
        assert_eq!(
            slot_target(&cx, base, base + 0x100, base + 0x404).unwrap(),
            (base + 0x200, base + 0x602, base + 0x300)
        );
        // Not a slot of this descriptor's table.
        assert!(slot_target(&cx, base, base + 0x100, base + 0x402).is_err());
    }
}
