//! COM objects served by HLE DLLs (DirectDraw, DirectSound, DirectInput).
//!
//! A COM interface pointer is a guest address whose first dword points at a table
//! of method addresses. Here every method is an ordinary HLE export of the DLL that
//! owns the interface, named `Interface::Method` (for example
//! `IDirectDraw7::CreateSurface`); the table is built once per interface from those
//! exports' thunk addresses, so a method call goes through the same dispatcher, glue,
//! `--trace-api` and unimplemented-API report as any import. The `::` keeps the names
//! out of reach of a program's import table, which never uses it.
//!
//! An object is a small block on the process heap: `[vtable, id, ...]`. The owning
//! DLL keeps the object's real state host-side, keyed by the interface pointer.

use super::{ApiError, ApiResult};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Per-process COM bookkeeping, in [`Process::com`].
#[derive(Default)]
pub struct ComState {
    vtables: Mutex<HashMap<(&'static str, &'static str), u32>>,
}

/// Guest address of the method table of `iface`, whose methods (in vtable order)
/// are exports of HLE DLL `dll` named `iface::method`.
pub fn vtable(
    proc: &Arc<Process>,
    dll: &'static str,
    iface: &'static str,
    methods: &[&'static str],
) -> ApiResult<u32> {
    let mut map = proc.com.vtables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&a) = map.get(&(dll, iface)) {
        return Ok(a);
    }
    let heap = crate::kernel32::heap::process_heap(proc)?;
    let table = heap.alloc(4 * methods.len() as u32, true)?;
    for (k, m) in methods.iter().enumerate() {
        let addr = proc.resolve_hle(dll, &format!("{iface}::{m}"))?;
        proc.mem.write_u32(table + 4 * k as u32, addr)?;
    }
    map.insert((dll, iface), table);
    Ok(table)
}

/// A new object of `size` bytes (at least 8) whose first dword is `vtable` and
/// second is `id`; the rest is zero. Returns the interface pointer.
pub fn new_object(proc: &Arc<Process>, vtable: u32, id: u32, size: u32) -> ApiResult<u32> {
    let heap = crate::kernel32::heap::process_heap(proc)?;
    let obj = heap.alloc(size.max(8), true)?;
    proc.mem.write_u32(obj, vtable)?;
    proc.mem.write_u32(obj + 4, id)?;
    Ok(obj)
}

/// Returns an object's block to the process heap once its last reference is gone.
pub fn free_object(proc: &Arc<Process>, obj: u32) -> ApiResult<()> {
    let heap = crate::kernel32::heap::process_heap(proc)?;
    if heap.free(obj) {
        Ok(())
    } else {
        Err(ApiError::Other(format!(
            "COM object {obj:#010x} was not on the process heap"
        )))
    }
}

/// The `id` dword of an interface pointer (what [`new_object`] stored).
pub fn object_id(proc: &Process, this: u32) -> ApiResult<u32> {
    Ok(proc.mem.read_u32(this.wrapping_add(4))?)
}

/// A GUID as it lies in memory (Data1, Data2, Data3 little-endian, then 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// From the registry form's fields, e.g. IID_IDirectDraw2 =
    /// `Guid::new(0xB3A6F3E0, 0x2B43, 0x11CF, [0xA2, 0xDE, 0x00, 0xAA, 0x00, 0xB9, 0x33, 0x56])`.
    pub const fn new(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Guid {
        let a = d1.to_le_bytes();
        let b = d2.to_le_bytes();
        let c = d3.to_le_bytes();
        Guid([
            a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d4[0], d4[1], d4[2], d4[3], d4[4],
            d4[5], d4[6], d4[7],
        ])
    }

    pub fn read(proc: &Process, addr: u32) -> ApiResult<Guid> {
        let mut g = [0u8; 16];
        proc.mem.read_bytes(addr, &mut g)?;
        Ok(Guid(g))
    }

    pub fn write(&self, proc: &Process, addr: u32) -> ApiResult<()> {
        proc.mem.write_bytes(addr, &self.0)?;
        Ok(())
    }
}

impl std::fmt::Display for Guid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let g = &self.0;
        write!(
            f,
            "{{{:08X}-{:04X}-{:04X}-{:02X}{:02X}-",
            u32::from_le_bytes([g[0], g[1], g[2], g[3]]),
            u16::from_le_bytes([g[4], g[5]]),
            u16::from_le_bytes([g[6], g[7]]),
            g[8],
            g[9]
        )?;
        for b in &g[10..] {
            write!(f, "{b:02X}")?;
        }
        write!(f, "}}")
    }
}

pub const S_OK: u32 = 0;
pub const S_FALSE: u32 = 1;
pub const E_NOINTERFACE: u32 = 0x8000_4002;
pub const E_POINTER: u32 = 0x8000_4003;
pub const E_FAIL: u32 = 0x8000_4005;
pub const E_OUTOFMEMORY: u32 = 0x8007_000e;
pub const E_INVALIDARG: u32 = 0x8007_0057;
pub const CLASS_E_NOAGGREGATION: u32 = 0x8004_0110;

pub const IID_IUNKNOWN: Guid =
    Guid::new(0x0000_0000, 0x0000, 0x0000, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_bytes_and_text_follow_the_registry_form() {
        // IID_IUnknown is {00000000-0000-0000-C000-000000000046} in every SDK header.
        assert_eq!(
            IID_IUNKNOWN.to_string(),
            "{00000000-0000-0000-C000-000000000046}"
        );
        let g = Guid::new(
            0x6C14DB80,
            0xA733,
            0x11CE,
            [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
        );
        assert_eq!(&g.0[..4], &[0x80, 0xDB, 0x14, 0x6C]);
        assert_eq!(g.to_string(), "{6C14DB80-A733-11CE-A521-0020AF0BE560}");
    }
}
