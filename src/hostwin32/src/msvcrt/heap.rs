//! malloc and friends on KERNEL32's process heap, as msvcrt.dll does on Windows
//! 2000 and later (`_crtheap` is the process heap there).

use super::state::{errno, set_errno};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, cdecl};
use crate::kernel32::heap::process_heap;

/// malloc for the runtime's own use: 0 (errno ENOMEM) when out of memory.
pub fn malloc_raw(cx: &mut Ctx, size: u32) -> ApiResult<u32> {
    // malloc(0) returns a unique pointer in msvcrt.
    let p = process_heap(cx.proc)?.alloc(size.max(1), false)?;
    if p == 0 {
        set_errno(cx, errno::ENOMEM)?;
    }
    Ok(p)
}

pub fn free_raw(cx: &mut Ctx, p: u32) -> ApiResult<()> {
    if p != 0 && !process_heap(cx.proc)?.free(p) {
        return Err(ApiError::Other(format!(
            "free({p:#010x}): not a block of the C runtime heap (double free or bad pointer)"
        )));
    }
    Ok(())
}

fn malloc(cx: &mut Ctx, size: u32) -> ApiResult<u32> {
    malloc_raw(cx, size)
}

fn calloc(cx: &mut Ctx, num: u32, size: u32) -> ApiResult<u32> {
    let Some(total) = num.checked_mul(size) else {
        set_errno(cx, errno::ENOMEM)?;
        return Ok(0);
    };
    let p = process_heap(cx.proc)?.alloc(total.max(1), true)?;
    if p == 0 {
        set_errno(cx, errno::ENOMEM)?;
    }
    Ok(p)
}

fn free(cx: &mut Ctx, memblock: Ptr) -> ApiResult<()> {
    free_raw(cx, memblock.0)
}

fn realloc(cx: &mut Ctx, memblock: Ptr, size: u32) -> ApiResult<u32> {
    if memblock.is_null() {
        return malloc_raw(cx, size);
    }
    if size == 0 {
        free_raw(cx, memblock.0)?;
        return Ok(0);
    }
    let heap = process_heap(cx.proc)?;
    if !heap.owns(memblock.0) {
        return Err(ApiError::Other(format!(
            "realloc({:#010x}): not a block of the C runtime heap",
            memblock.0
        )));
    }
    let p = heap.realloc(memblock.0, size, false, false)?;
    if p == 0 {
        set_errno(cx, errno::ENOMEM)?;
    }
    Ok(p)
}

fn _expand(cx: &mut Ctx, memblock: Ptr, size: u32) -> ApiResult<u32> {
    let heap = process_heap(cx.proc)?;
    if !heap.owns(memblock.0) {
        set_errno(cx, errno::EINVAL)?;
        return Ok(0);
    }
    heap.realloc(memblock.0, size.max(1), false, true)
}

fn _msize(cx: &mut Ctx, memblock: Ptr) -> ApiResult<u32> {
    match process_heap(cx.proc)?.size(memblock.0) {
        Some(s) => Ok(s),
        None => Err(ApiError::Other(format!(
            "_msize({:#010x}): not a block of the C runtime heap",
            memblock.0
        ))),
    }
}

fn _heapchk(cx: &mut Ctx) -> ApiResult<i32> {
    // _HEAPOK (-2) or _HEAPBADNODE (-4).
    Ok(if process_heap(cx.proc)?.validate() {
        -2
    } else {
        -4
    })
}

fn _heapmin(_cx: &mut Ctx) -> i32 {
    0
}

fn _get_heap_handle(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(process_heap(cx.proc)?.handle)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("malloc", malloc),
        cdecl("calloc", calloc),
        cdecl("free", free),
        cdecl("realloc", realloc),
        cdecl("_expand", _expand),
        cdecl("_msize", _msize),
        cdecl("_heapchk", _heapchk),
        cdecl("_heapmin", _heapmin),
        cdecl("_get_heap_handle", _get_heap_handle),
    ]
}
