//! KERNEL32's resource functions: FindResource(Ex), LoadResource, LockResource,
//! SizeofResource, FreeResource. Games load their palettes, bitmaps, sounds and
//! level data through them. In Win32 a loaded resource is the mapped image's own
//! bytes: LoadResource and LockResource return their address, and nothing is freed.

#![allow(non_snake_case)]

use super::misc::err;
use super::string::{read_ansi, read_wstr};
use crate::hle::{ApiDef, ApiResult, Ctx, stdcall};
use crate::loader::resources::{ResId, find_resource};
use crate::teb::set_last_error;

const ERROR_RESOURCE_DATA_NOT_FOUND: u32 = 1812;
const ERROR_RESOURCE_TYPE_NOT_FOUND: u32 = 1813;
const ERROR_RESOURCE_NAME_NOT_FOUND: u32 = 1814;

/// A type or name argument: MAKEINTRESOURCE (high word 0) or a string.
fn res_arg(cx: &Ctx, p: u32, wide: bool) -> ApiResult<ResId> {
    if p >> 16 == 0 {
        return Ok(ResId::Id(p as u16));
    }
    let s = if wide {
        read_wstr(cx.proc, p)?
    } else {
        read_ansi(cx.proc, p)?
    };
    Ok(ResId::from_name(&s))
}

fn module(cx: &Ctx, h: u32) -> Option<u32> {
    if h == 0 {
        super::module::program_base(cx)
    } else {
        Some(h)
    }
}

/// The HRSRC of a resource is the guest address of its bytes; their sizes are
/// remembered per process for SizeofResource.
fn find(
    cx: &mut Ctx,
    hModule: u32,
    ty: u32,
    name: u32,
    lang: Option<u16>,
    wide: bool,
) -> ApiResult<u32> {
    let Some(base) = module(cx, hModule) else {
        set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
        return Ok(0);
    };
    let (ty, name) = (res_arg(cx, ty, wide)?, res_arg(cx, name, wide)?);
    let found = find_resource(cx.proc, base, &ty, &name, lang)
        // A language the module lacks falls back to whatever it has, as the
        // loader's default-language search does.
        .or_else(|| lang.and_then(|_| find_resource(cx.proc, base, &ty, &name, None)));
    let Some((rva, size)) = found else {
        let code = if !crate::loader::resources::has_type(cx.proc, base, &ty) {
            ERROR_RESOURCE_TYPE_NOT_FOUND
        } else {
            ERROR_RESOURCE_NAME_NOT_FOUND
        };
        set_last_error(cx, code)?;
        return Ok(0);
    };
    let addr = base.wrapping_add(rva);
    cx.proc
        .k32
        .resource_sizes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(addr, size);
    Ok(addr)
}

pub fn FindResourceA(cx: &mut Ctx, hModule: u32, lpName: u32, lpType: u32) -> ApiResult<u32> {
    find(cx, hModule, lpType, lpName, None, false)
}

pub fn FindResourceW(cx: &mut Ctx, hModule: u32, lpName: u32, lpType: u32) -> ApiResult<u32> {
    find(cx, hModule, lpType, lpName, None, true)
}

/// FindResourceEx takes the type before the name.
pub fn FindResourceExA(
    cx: &mut Ctx,
    hModule: u32,
    lpType: u32,
    lpName: u32,
    wLanguage: u32,
) -> ApiResult<u32> {
    let lang = (wLanguage != 0).then_some(wLanguage as u16);
    find(cx, hModule, lpType, lpName, lang, false)
}

pub fn FindResourceExW(
    cx: &mut Ctx,
    hModule: u32,
    lpType: u32,
    lpName: u32,
    wLanguage: u32,
) -> ApiResult<u32> {
    let lang = (wLanguage != 0).then_some(wLanguage as u16);
    find(cx, hModule, lpType, lpName, lang, true)
}

fn known(cx: &Ctx, hResInfo: u32) -> Option<u32> {
    cx.proc
        .k32
        .resource_sizes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&hResInfo)
        .copied()
}

pub fn LoadResource(cx: &mut Ctx, _hModule: u32, hResInfo: u32) -> ApiResult<u32> {
    if hResInfo == 0 || known(cx, hResInfo).is_none() {
        set_last_error(cx, ERROR_RESOURCE_DATA_NOT_FOUND)?;
        return Ok(0);
    }
    Ok(hResInfo)
}

pub fn LockResource(_cx: &mut Ctx, hResData: u32) -> u32 {
    hResData
}

pub fn SizeofResource(cx: &mut Ctx, _hModule: u32, hResInfo: u32) -> ApiResult<u32> {
    match known(cx, hResInfo) {
        Some(n) => Ok(n),
        None => {
            set_last_error(cx, ERROR_RESOURCE_DATA_NOT_FOUND)?;
            Ok(0)
        }
    }
}

/// Obsolete in Win32: resources live as long as their module. Returns FALSE, as
/// Windows does.
pub fn FreeResource(_cx: &mut Ctx, _hResData: u32) -> bool {
    false
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("FindResourceA", FindResourceA),
        stdcall("FindResourceW", FindResourceW),
        stdcall("FindResourceExA", FindResourceExA),
        stdcall("FindResourceExW", FindResourceExW),
        stdcall("LoadResource", LoadResource),
        stdcall("LockResource", LockResource),
        stdcall("SizeofResource", SizeofResource),
        stdcall("FreeResource", FreeResource),
    ]
}
