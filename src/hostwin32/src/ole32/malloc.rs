//! The task allocator: CoTaskMemAlloc/Realloc/Free and the IMalloc CoGetMalloc
//! returns. Its blocks live on the process heap (on Windows the task allocator is
//! a heap in the process too), so a block from CoTaskMemAlloc is one IMalloc::Free
//! or CoTaskMemFree frees, and vice versa.

use super::{DLL_NAME, E_INVALIDARG, S_OK, with_state};
use crate::hle::com::{self, E_NOINTERFACE, Guid, IID_IUNKNOWN};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::heap::process_heap;

pub const MEMCTX_TASK: u32 = 1;
pub const IID_IMALLOC: Guid = Guid::new(0x00000002, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);

const METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "Alloc",
    "Realloc",
    "Free",
    "GetSize",
    "DidAlloc",
    "HeapMinimize",
];

pub fn alloc(cx: &mut Ctx, cb: u32) -> ApiResult<u32> {
    process_heap(cx.proc)?.alloc(cb, false)
}

/// Realloc semantics: NULL allocates, size 0 frees (and returns NULL), a pointer
/// that is not a block of the allocator fails (NULL).
pub fn realloc(cx: &mut Ctx, pv: u32, cb: u32) -> ApiResult<u32> {
    let heap = process_heap(cx.proc)?;
    if pv == 0 {
        return heap.alloc(cb, false);
    }
    if cb == 0 {
        heap.free(pv);
        return Ok(0);
    }
    if !heap.owns(pv) {
        return Ok(0);
    }
    heap.realloc(pv, cb, false, false)
}

/// Frees a block; NULL and pointers the allocator did not hand out are ignored.
pub fn free(cx: &mut Ctx, pv: u32) -> ApiResult<()> {
    if pv != 0 {
        process_heap(cx.proc)?.free(pv);
    }
    Ok(())
}

pub fn CoTaskMemAlloc(cx: &mut Ctx, cb: u32) -> ApiResult<u32> {
    alloc(cx, cb)
}

pub fn CoTaskMemRealloc(cx: &mut Ctx, pv: u32, cb: u32) -> ApiResult<u32> {
    realloc(cx, pv, cb)
}

pub fn CoTaskMemFree(cx: &mut Ctx, pv: u32) -> ApiResult<()> {
    free(cx, pv)
}

/// The process's one IMalloc (made on first use; it is never destroyed).
pub fn malloc_object(cx: &mut Ctx) -> ApiResult<u32> {
    let made = with_state(cx.proc, |s| s.malloc);
    if made != 0 {
        return Ok(made);
    }
    let vt = com::vtable(cx.proc, DLL_NAME, "IMalloc", METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    with_state(cx.proc, |s| s.malloc = obj);
    Ok(obj)
}

pub fn CoGetMalloc(cx: &mut Ctx, dwMemContext: u32, ppMalloc: Ptr) -> ApiResult<u32> {
    if dwMemContext != MEMCTX_TASK || ppMalloc.is_null() {
        return Ok(E_INVALIDARG);
    }
    let m = malloc_object(cx)?;
    cx.proc.mem.write_u32(ppMalloc.0, m)?;
    Ok(S_OK)
}

fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_INVALIDARG);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_IMALLOC {
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

/// The allocator is static: it counts no references and is never released.
fn AddRef(_cx: &mut Ctx, _this: u32) -> u32 {
    1
}

fn Release(_cx: &mut Ctx, _this: u32) -> u32 {
    1
}

fn Alloc(cx: &mut Ctx, _this: u32, cb: u32) -> ApiResult<u32> {
    alloc(cx, cb)
}

fn Realloc(cx: &mut Ctx, _this: u32, pv: u32, cb: u32) -> ApiResult<u32> {
    realloc(cx, pv, cb)
}

fn Free(cx: &mut Ctx, _this: u32, pv: u32) -> ApiResult<()> {
    free(cx, pv)
}

/// The size of a block, or (SIZE_T)-1 for NULL or a pointer it did not allocate.
fn GetSize(cx: &mut Ctx, _this: u32, pv: u32) -> ApiResult<u32> {
    if pv == 0 {
        return Ok(u32::MAX);
    }
    Ok(process_heap(cx.proc)?.size(pv).unwrap_or(u32::MAX))
}

/// 1 if the allocator handed out `pv`, 0 if not, -1 for NULL.
fn DidAlloc(cx: &mut Ctx, _this: u32, pv: u32) -> ApiResult<i32> {
    if pv == 0 {
        return Ok(-1);
    }
    Ok(process_heap(cx.proc)?.owns(pv) as i32)
}

/// The heap returns freed blocks to its free list as they go: there is nothing
/// to compact.
fn HeapMinimize(_cx: &mut Ctx, _this: u32) {}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CoTaskMemAlloc", CoTaskMemAlloc),
        stdcall("CoTaskMemRealloc", CoTaskMemRealloc),
        stdcall("CoTaskMemFree", CoTaskMemFree),
        stdcall("CoGetMalloc", CoGetMalloc),
        stdcall("IMalloc::QueryInterface", QueryInterface),
        stdcall("IMalloc::AddRef", AddRef),
        stdcall("IMalloc::Release", Release),
        stdcall("IMalloc::Alloc", Alloc),
        stdcall("IMalloc::Realloc", Realloc),
        stdcall("IMalloc::Free", Free),
        stdcall("IMalloc::GetSize", GetSize),
        stdcall("IMalloc::DidAlloc", DidAlloc),
        stdcall("IMalloc::HeapMinimize", HeapMinimize),
    ]
}
