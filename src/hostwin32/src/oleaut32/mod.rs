//! OLEAUT32.dll: BSTRs and VARIANTs, the part of OLE Automation console programs
//! (7-Zip's property variants) use. Exports carry their Windows ordinals because
//! programs import OLEAUT32 by ordinal.
//!
//! A BSTR is a pointer to UTF-16 text preceded by a 4-byte byte count and followed
//! by a 2-byte NUL; the block comes from the process heap (real OLEAUT32 uses the
//! task allocator, itself on the process heap, and keeps a cache this does not).

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Ptr, stdcall};
use crate::kernel32::heap::process_heap;

pub const DLL: HleDll = HleDll {
    name: "OLEAUT32.dll",
    exports,
    attach: None,
};

pub const S_OK: u32 = 0;
pub const E_INVALIDARG: u32 = 0x8007_0057;
pub const E_OUTOFMEMORY: u32 = 0x8007_000e;
pub const DISP_E_BADVARTYPE: u32 = 0x8002_0008;

/// VARTYPE values (wtypes.h).
pub mod vt {
    pub const EMPTY: u16 = 0;
    pub const NULL: u16 = 1;
    pub const I2: u16 = 2;
    pub const I4: u16 = 3;
    pub const R4: u16 = 4;
    pub const R8: u16 = 5;
    pub const CY: u16 = 6;
    pub const DATE: u16 = 7;
    pub const BSTR: u16 = 8;
    pub const DISPATCH: u16 = 9;
    pub const ERROR: u16 = 10;
    pub const BOOL: u16 = 11;
    pub const VARIANT: u16 = 12;
    pub const UNKNOWN: u16 = 13;
    pub const DECIMAL: u16 = 14;
    pub const I1: u16 = 16;
    pub const UI1: u16 = 17;
    pub const UI2: u16 = 18;
    pub const UI4: u16 = 19;
    pub const I8: u16 = 20;
    pub const UI8: u16 = 21;
    pub const INT: u16 = 22;
    pub const UINT: u16 = 23;
    pub const RECORD: u16 = 36;
    pub const ARRAY: u16 = 0x2000;
    pub const BYREF: u16 = 0x4000;
    pub const TYPEMASK: u16 = 0x0fff;
}

/// The largest BSTR byte count whose block (prefix, text, NUL) fits in 32 bits.
const MAX_BSTR_BYTES: u32 = u32::MAX - 6;

// ---- BSTR -----------------------------------------------------------------------------

/// Allocates a BSTR of `bytes` bytes, copying them from `src` when non-zero and
/// zero-filling otherwise. Returns 0 when the heap is exhausted.
fn alloc_bstr(cx: &mut Ctx, src: u32, bytes: u32) -> ApiResult<u32> {
    if bytes > MAX_BSTR_BYTES {
        return Ok(0);
    }
    let heap = process_heap(cx.proc)?;
    // Prefix + text + a WCHAR NUL; an odd byte length still ends in two zero bytes.
    let block = heap.alloc(bytes + 6, true)?;
    if block == 0 {
        return Ok(0);
    }
    let mem = &cx.proc.mem;
    mem.write_u32(block, bytes)?;
    if src != 0 && bytes > 0 {
        let mut b = vec![0u8; bytes as usize];
        mem.read_bytes(src, &mut b)?;
        mem.write_bytes(block + 4, &b)?;
    }
    Ok(block + 4)
}

/// A new BSTR holding `text`, for other DLLs that return strings as BSTRs
/// (0 when the heap is exhausted, as SysAllocString gives).
pub fn new_bstr(cx: &mut Ctx, text: &str) -> ApiResult<u32> {
    let units: Vec<u16> = text.encode_utf16().collect();
    if units.len() as u64 * 2 > u64::from(MAX_BSTR_BYTES) {
        return Ok(0);
    }
    let b = alloc_bstr(cx, 0, 2 * units.len() as u32)?;
    if b != 0 {
        let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        cx.proc.mem.write_bytes(b, &bytes)?;
    }
    Ok(b)
}

/// The longest BSTR [`read_bstr`] reads (a bad pointer's "length" is refused, not
/// allocated).
const READ_BSTR_LIMIT: u32 = 16 << 20;

/// The text of BSTR `bstr` (its length prefix counts the bytes; NULL is empty).
pub fn read_bstr(cx: &Ctx, bstr: u32) -> ApiResult<String> {
    if bstr == 0 {
        return Ok(String::new());
    }
    let bytes = cx.proc.mem.read_u32(bstr.wrapping_sub(4))?;
    if bytes > READ_BSTR_LIMIT {
        return Err(ApiError::Other(format!(
            "BSTR {bstr:#010x} claims {bytes} bytes, more than the {READ_BSTR_LIMIT} read here"
        )));
    }
    let mut b = vec![0u8; bytes as usize & !1];
    cx.proc.mem.read_bytes(bstr, &mut b)?;
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok(String::from_utf16_lossy(&units))
}

fn free_bstr(cx: &mut Ctx, bstr: u32) -> ApiResult<()> {
    if bstr == 0 {
        return Ok(());
    }
    let heap = process_heap(cx.proc)?;
    if !heap.free(bstr.wrapping_sub(4)) {
        return Err(ApiError::Other(format!(
            "SysFreeString({bstr:#010x}): not a BSTR from SysAllocString"
        )));
    }
    Ok(())
}

/// Length in UTF-16 units of the NUL-terminated string at `p`.
fn wcslen(cx: &Ctx, p: u32) -> ApiResult<u32> {
    Ok(crate::kernel32::string::read_wide(cx.proc, p)?.len() as u32)
}

pub fn SysAllocString(cx: &mut Ctx, psz: Ptr) -> ApiResult<u32> {
    if psz.is_null() {
        return Ok(0);
    }
    let n = wcslen(cx, psz.0)?;
    alloc_bstr(cx, psz.0, 2 * n)
}

/// `ui` characters; `strIn` may be NULL (the text is then zeroed here; Windows leaves
/// it uninitialised).
pub fn SysAllocStringLen(cx: &mut Ctx, strIn: Ptr, ui: u32) -> ApiResult<u32> {
    if ui > MAX_BSTR_BYTES / 2 {
        return Ok(0);
    }
    alloc_bstr(cx, strIn.0, 2 * ui)
}

/// `len` bytes from an ANSI or binary source; the BSTR holds the bytes unconverted.
pub fn SysAllocStringByteLen(cx: &mut Ctx, psz: Ptr, len: u32) -> ApiResult<u32> {
    alloc_bstr(cx, psz.0, len)
}

pub fn SysFreeString(cx: &mut Ctx, bstrString: u32) -> ApiResult<()> {
    free_bstr(cx, bstrString)
}

pub fn SysStringLen(cx: &mut Ctx, pbstr: u32) -> ApiResult<u32> {
    if pbstr == 0 {
        return Ok(0);
    }
    Ok(cx.proc.mem.read_u32(pbstr.wrapping_sub(4))? / 2)
}

pub fn SysStringByteLen(cx: &mut Ctx, bstr: u32) -> ApiResult<u32> {
    if bstr == 0 {
        return Ok(0);
    }
    Ok(cx.proc.mem.read_u32(bstr.wrapping_sub(4))?)
}

/// Replaces `*pbstr` with a new BSTR of `len` characters from `psz`. `psz` may point
/// into the old string: the copy is made before the old one is freed.
pub fn SysReAllocStringLen(cx: &mut Ctx, pbstr: Ptr, psz: Ptr, len: u32) -> ApiResult<bool> {
    if pbstr.is_null() || len > MAX_BSTR_BYTES / 2 {
        return Ok(false);
    }
    let new = alloc_bstr(cx, psz.0, 2 * len)?;
    if new == 0 {
        return Ok(false);
    }
    let old = cx.proc.mem.read_u32(pbstr.0)?;
    free_bstr(cx, old)?;
    cx.proc.mem.write_u32(pbstr.0, new)?;
    Ok(true)
}

pub fn SysReAllocString(cx: &mut Ctx, pbstr: Ptr, psz: Ptr) -> ApiResult<bool> {
    let len = if psz.is_null() { 0 } else { wcslen(cx, psz.0)? };
    SysReAllocStringLen(cx, pbstr, psz, len)
}

// ---- VARIANT --------------------------------------------------------------------------

/// Whether `t` (without VT_ARRAY/VT_BYREF) may be stored in a VARIANT.
fn valid_base_type(t: u16) -> bool {
    matches!(
        t,
        vt::EMPTY
            | vt::NULL
            | vt::I2
            | vt::I4
            | vt::R4
            | vt::R8
            | vt::CY
            | vt::DATE
            | vt::BSTR
            | vt::DISPATCH
            | vt::ERROR
            | vt::BOOL
            | vt::VARIANT
            | vt::UNKNOWN
            | vt::DECIMAL
            | vt::I1
            | vt::UI1
            | vt::UI2
            | vt::UI4
            | vt::I8
            | vt::UI8
            | vt::INT
            | vt::UINT
            | vt::RECORD
    )
}

/// The VARTYPE rules of VariantClear/VariantCopy: flags other than ARRAY and BYREF,
/// an unknown base type, and VT_VARIANT or VT_EMPTY/VT_NULL under a flag are refused.
fn valid_type(v: u16) -> bool {
    if v & !(vt::TYPEMASK | vt::ARRAY | vt::BYREF) != 0 {
        return false;
    }
    let base = v & vt::TYPEMASK;
    if !valid_base_type(base) {
        return false;
    }
    if v & (vt::ARRAY | vt::BYREF) != 0 && matches!(base, vt::EMPTY | vt::NULL) {
        return false;
    }
    !(base == vt::VARIANT && v & vt::BYREF == 0)
}

/// Calls IUnknown method `slot` (1 AddRef, 2 Release) of the interface at `punk`.
fn call_iunknown(cx: &mut Ctx, punk: u32, slot: u32) -> ApiResult<()> {
    if punk == 0 {
        return Ok(());
    }
    let vtbl = cx.proc.mem.read_u32(punk)?;
    let method = cx.proc.mem.read_u32(vtbl.wrapping_add(4 * slot))?;
    cx.thread
        .call_guest(cx.proc, method, &[punk])
        .map_err(|e| ApiError::Other(format!("IUnknown method {slot} of {punk:#010x}: {e:?}")))?;
    Ok(())
}

pub fn VariantInit(cx: &mut Ctx, pvarg: Ptr) -> ApiResult<()> {
    cx.proc.mem.write_u16(pvarg.0, vt::EMPTY)?;
    Ok(())
}

/// Frees what the VARIANT owns (a BSTR, an interface reference) and sets it to
/// VT_EMPTY. By-reference values own nothing.
pub fn VariantClear(cx: &mut Ctx, pvarg: Ptr) -> ApiResult<u32> {
    if pvarg.is_null() {
        return Ok(E_INVALIDARG);
    }
    let v = cx.proc.mem.read_u16(pvarg.0)?;
    if !valid_type(v) {
        return Ok(DISP_E_BADVARTYPE);
    }
    let data = cx.proc.mem.read_u32(pvarg.0 + 8)?;
    if v & vt::BYREF == 0 {
        if v & vt::ARRAY != 0 {
            if data != 0 {
                return Err(ApiError::UnimplementedCase(
                    "VariantClear of a VT_ARRAY (SafeArrayDestroy)".into(),
                ));
            }
        } else {
            match v {
                vt::BSTR => free_bstr(cx, data)?,
                vt::DISPATCH | vt::UNKNOWN => call_iunknown(cx, data, 2)?,
                vt::RECORD => {
                    return Err(ApiError::UnimplementedCase(
                        "VariantClear of a VT_RECORD (IRecordInfo)".into(),
                    ));
                }
                _ => {}
            }
        }
    }
    cx.proc.mem.write_u16(pvarg.0, vt::EMPTY)?;
    Ok(S_OK)
}

/// Clears `pvargDest`, then makes it a copy of `pvargSrc`: BSTRs are duplicated
/// (with their byte length), interfaces AddRef'd, by-reference values copied as
/// pointers.
pub fn VariantCopy(cx: &mut Ctx, pvargDest: Ptr, pvargSrc: Ptr) -> ApiResult<u32> {
    if pvargDest.is_null() || pvargSrc.is_null() {
        return Ok(E_INVALIDARG);
    }
    let mut src = [0u8; 16];
    cx.proc.mem.read_bytes(pvargSrc.0, &mut src)?;
    let v = u16::from_le_bytes([src[0], src[1]]);
    if !valid_type(v) {
        return Ok(DISP_E_BADVARTYPE);
    }
    if pvargDest == pvargSrc {
        return Ok(S_OK);
    }
    let r = VariantClear(cx, pvargDest)?;
    if r != S_OK {
        return Ok(r);
    }
    let data = u32::from_le_bytes([src[8], src[9], src[10], src[11]]);
    if v & vt::BYREF == 0 {
        if v & vt::ARRAY != 0 {
            if data != 0 {
                return Err(ApiError::UnimplementedCase(
                    "VariantCopy of a VT_ARRAY (SafeArrayCopy)".into(),
                ));
            }
        } else {
            match v {
                vt::BSTR if data != 0 => {
                    let bytes = cx.proc.mem.read_u32(data.wrapping_sub(4))?;
                    let copy = alloc_bstr(cx, data, bytes)?;
                    if copy == 0 {
                        return Ok(E_OUTOFMEMORY);
                    }
                    src[8..12].copy_from_slice(&copy.to_le_bytes());
                }
                vt::DISPATCH | vt::UNKNOWN => call_iunknown(cx, data, 1)?,
                vt::RECORD => {
                    return Err(ApiError::UnimplementedCase(
                        "VariantCopy of a VT_RECORD (IRecordInfo)".into(),
                    ));
                }
                _ => {}
            }
        }
    }
    cx.proc.mem.write_bytes(pvargDest.0, &src)?;
    Ok(S_OK)
}

fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SysAllocString", SysAllocString).ordinal(2),
        stdcall("SysReAllocString", SysReAllocString).ordinal(3),
        stdcall("SysAllocStringLen", SysAllocStringLen).ordinal(4),
        stdcall("SysReAllocStringLen", SysReAllocStringLen).ordinal(5),
        stdcall("SysFreeString", SysFreeString).ordinal(6),
        stdcall("SysStringLen", SysStringLen).ordinal(7),
        stdcall("VariantInit", VariantInit).ordinal(8),
        stdcall("VariantClear", VariantClear).ordinal(9),
        stdcall("VariantCopy", VariantCopy).ordinal(10),
        stdcall("SysStringByteLen", SysStringByteLen).ordinal(149),
        stdcall("SysAllocStringByteLen", SysAllocStringByteLen).ordinal(150),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn bstr_layout_prefix_text_and_nul() {
        let mut h = Harness::new();
        let s = h.scratch(64);
        h.put_wstr(s, "7-Zip");
        let b = SysAllocString(&mut h.cx(), Ptr(s)).unwrap();
        assert_ne!(b, 0);
        // Documented layout: byte count before the text, WCHAR NUL after it.
        assert_eq!(h.u32(b - 4), 10);
        assert_eq!(h.wstr(b), "7-Zip");
        assert_eq!(SysStringLen(&mut h.cx(), b).unwrap(), 5);
        assert_eq!(SysStringByteLen(&mut h.cx(), b).unwrap(), 10);
        SysFreeString(&mut h.cx(), b).unwrap();
    }

    #[test]
    fn null_inputs() {
        let mut h = Harness::new();
        assert_eq!(SysAllocString(&mut h.cx(), Ptr(0)).unwrap(), 0);
        assert_eq!(SysStringLen(&mut h.cx(), 0).unwrap(), 0);
        SysFreeString(&mut h.cx(), 0).unwrap();
        let b = SysAllocStringLen(&mut h.cx(), Ptr(0), 3).unwrap();
        assert_eq!(SysStringLen(&mut h.cx(), b).unwrap(), 3);
        assert_eq!(h.proc.mem.read_u16(b + 6).unwrap(), 0);
    }

    #[test]
    fn byte_len_keeps_odd_lengths() {
        let mut h = Harness::new();
        let s = h.scratch(16);
        h.put_cstr(s, "abc");
        let b = SysAllocStringByteLen(&mut h.cx(), Ptr(s), 3).unwrap();
        assert_eq!(SysStringByteLen(&mut h.cx(), b).unwrap(), 3);
        assert_eq!(SysStringLen(&mut h.cx(), b).unwrap(), 1);
        assert_eq!(h.cstr(b), "abc");
    }

    #[test]
    fn realloc_from_inside_the_old_string() {
        let mut h = Harness::new();
        let s = h.scratch(64);
        h.put_wstr(s, "abcdef");
        let b = SysAllocString(&mut h.cx(), Ptr(s)).unwrap();
        let pb = s + 32;
        h.proc.mem.write_u32(pb, b).unwrap();
        assert!(SysReAllocStringLen(&mut h.cx(), Ptr(pb), Ptr(b + 4), 3).unwrap());
        let nb = h.u32(pb);
        assert_eq!(h.wstr(nb), "cde");
    }

    #[test]
    fn variant_copy_duplicates_bstr_and_clear_frees() {
        let mut h = Harness::new();
        let s = h.scratch(128);
        h.put_wstr(s, "name");
        let b = SysAllocString(&mut h.cx(), Ptr(s)).unwrap();
        let (src, dst) = (s + 32, s + 64);
        h.proc.mem.write_u16(src, vt::BSTR).unwrap();
        h.proc.mem.write_u32(src + 8, b).unwrap();
        h.proc.mem.write_u16(dst, vt::UI4).unwrap();
        assert_eq!(VariantCopy(&mut h.cx(), Ptr(dst), Ptr(src)).unwrap(), S_OK);
        let copy = h.u32(dst + 8);
        assert_eq!(h.proc.mem.read_u16(dst).unwrap(), vt::BSTR);
        assert_ne!(copy, b);
        assert_eq!(h.wstr(copy), "name");
        assert_eq!(VariantClear(&mut h.cx(), Ptr(dst)).unwrap(), S_OK);
        assert_eq!(h.proc.mem.read_u16(dst).unwrap(), vt::EMPTY);
        assert_eq!(h.wstr(b), "name");
    }

    #[test]
    fn bad_vartypes_are_refused() {
        let mut h = Harness::new();
        let v = h.scratch(16);
        // VT_FILETIME is a PROPVARIANT type, not a VARIANT one.
        h.proc.mem.write_u16(v, 64).unwrap();
        assert_eq!(
            VariantClear(&mut h.cx(), Ptr(v)).unwrap(),
            DISP_E_BADVARTYPE
        );
        h.proc.mem.write_u16(v, vt::VARIANT).unwrap();
        assert_eq!(
            VariantClear(&mut h.cx(), Ptr(v)).unwrap(),
            DISP_E_BADVARTYPE
        );
        h.proc.mem.write_u16(v, vt::VARIANT | vt::BYREF).unwrap();
        assert_eq!(VariantClear(&mut h.cx(), Ptr(v)).unwrap(), S_OK);
    }
}
