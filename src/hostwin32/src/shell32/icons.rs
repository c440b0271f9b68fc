//! ExtractIcon, ExtractIconEx and ExtractAssociatedIcon, for the icons of the
//! program and the DLLs it has loaded (the common case: a program showing its own
//! icon), made by USER32's icon loader ([`crate::user32::icon::load`]) at the
//! system sizes, 32x32 and, for ExtractIconEx's small icons, 16x16.
//!
//! An index of 0 or more counts the RT_GROUP_ICON resources in directory order
//! (named ones first, then by number); a negative index -N names resource N; -1
//! asks for the number of icons. A file that does not exist has no icons (NULL,
//! or a count of 0).
//!
//! Reading icons from a file that is not loaded (another program, an `.ico`
//! file) is not implemented, and neither are the icons of winterp's own system
//! DLLs (SHELL32's document icons, which ExtractAssociatedIcon falls back to):
//! both report themselves by name.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::{read_ansi, read_wstr};
use crate::loader::resources::{ResId, resource_children};
use crate::user32::NameOrId;

const RT_GROUP_ICON: u16 = 14;
const LARGE: (i32, i32) = (32, 32);
const SMALL: (i32, i32) = (16, 16);

/// Where a file's icons come from.
enum Source {
    /// The file does not exist.
    Missing,
    /// A loaded image, by base.
    Module(u32),
}

/// The loaded image that is the file `path`, if any.
fn source(cx: &Ctx, path: &str) -> ApiResult<Source> {
    let v = vfs(cx.proc)?;
    let full = v.full_path(path).unwrap_or_else(|_| path.to_string());
    let name = full.rsplit('\\').next().unwrap_or(&full).to_string();
    let base = crate::loader::state(cx.proc)
        .images
        .iter()
        .find(|i| i.path.eq_ignore_ascii_case(&full))
        .map(|i| i.base);
    if let Some(b) = base {
        return Ok(Source::Module(b));
    }
    if cx.proc.hle_dll(&name).is_some() {
        return Err(ApiError::UnimplementedCase(format!(
            "the icons of the system DLL {name} (winterp's system DLLs carry none)"
        )));
    }
    if v.get_attributes(&full).is_err() {
        return Ok(Source::Missing);
    }
    Err(ApiError::UnimplementedCase(format!(
        "extracting icons from {full}, which is not loaded"
    )))
}

/// The names of a module's icon groups, in directory order.
fn groups(cx: &Ctx, base: u32) -> Vec<NameOrId> {
    resource_children(cx.proc, base, &[ResId::Id(RT_GROUP_ICON)])
        .into_iter()
        .map(|r| match r {
            ResId::Id(i) => NameOrId::Id(i),
            ResId::Name(s) => NameOrId::Name(s),
        })
        .collect()
}

/// The group an icon index means: the index-th one, or resource -index.
fn group_at(all: &[NameOrId], index: i32) -> Option<NameOrId> {
    if index >= 0 {
        return all.get(index as usize).cloned();
    }
    let id = u16::try_from(-(index as i64)).ok()?;
    all.iter()
        .find(|g| matches!(g, NameOrId::Id(i) if *i == id))
        .cloned()
}

fn make(cx: &mut Ctx, base: u32, group: &NameOrId, size: (i32, i32)) -> ApiResult<u32> {
    crate::user32::icon::load(cx, base, group, false, size, 0)
}

fn extract(cx: &mut Ctx, file: &str, nIconIndex: i32) -> ApiResult<u32> {
    let base = match source(cx, file)? {
        Source::Missing => return Ok(0),
        Source::Module(b) => b,
    };
    let all = groups(cx, base);
    if nIconIndex == -1 {
        return Ok(all.len() as u32);
    }
    match group_at(&all, nIconIndex) {
        Some(g) => make(cx, base, &g, LARGE),
        None => Ok(0),
    }
}

pub fn ExtractIconW(
    cx: &mut Ctx,
    _hInst: u32,
    pszExeFileName: WStrPtr,
    nIconIndex: i32,
) -> ApiResult<u32> {
    let f = read_wstr(cx.proc, pszExeFileName.0)?;
    extract(cx, &f, nIconIndex)
}

pub fn ExtractIconA(
    cx: &mut Ctx,
    _hInst: u32,
    pszExeFileName: CStrPtr,
    nIconIndex: i32,
) -> ApiResult<u32> {
    let f = read_ansi(cx.proc, pszExeFileName.0)?;
    extract(cx, &f, nIconIndex)
}

/// `nIcons` icons from `nIconIndex` on, large and/or small; the number made (of
/// the large ones if asked for, else of the small ones), or the file's count
/// for index -1 without arrays.
fn extract_ex(
    cx: &mut Ctx,
    file: &str,
    nIconIndex: i32,
    large: u32,
    small: u32,
    nIcons: u32,
) -> ApiResult<u32> {
    let base = match source(cx, file)? {
        Source::Missing => return Ok(0),
        Source::Module(b) => b,
    };
    let all = groups(cx, base);
    if nIconIndex == -1 && large == 0 && small == 0 {
        return Ok(all.len() as u32);
    }
    // A resource id names one icon.
    let wanted: Vec<NameOrId> = if nIconIndex < 0 {
        group_at(&all, nIconIndex).into_iter().collect()
    } else {
        all.iter()
            .skip(nIconIndex as usize)
            .take(nIcons as usize)
            .cloned()
            .collect()
    };
    let mut made = (0, 0);
    for (i, g) in wanted.iter().enumerate() {
        let at = 4 * i as u32;
        if large != 0 {
            let h = make(cx, base, g, LARGE)?;
            cx.proc.mem.write_u32(large + at, h)?;
            made.0 += u32::from(h != 0);
        }
        if small != 0 {
            let h = make(cx, base, g, SMALL)?;
            cx.proc.mem.write_u32(small + at, h)?;
            made.1 += u32::from(h != 0);
        }
    }
    Ok(if large != 0 { made.0 } else { made.1 })
}

pub fn ExtractIconExW(
    cx: &mut Ctx,
    lpszFile: WStrPtr,
    nIconIndex: i32,
    phiconLarge: Ptr,
    phiconSmall: Ptr,
    nIcons: u32,
) -> ApiResult<u32> {
    let f = read_wstr(cx.proc, lpszFile.0)?;
    extract_ex(cx, &f, nIconIndex, phiconLarge.0, phiconSmall.0, nIcons)
}

pub fn ExtractIconExA(
    cx: &mut Ctx,
    lpszFile: CStrPtr,
    nIconIndex: i32,
    phiconLarge: Ptr,
    phiconSmall: Ptr,
    nIcons: u32,
) -> ApiResult<u32> {
    let f = read_ansi(cx.proc, lpszFile.0)?;
    extract_ex(cx, &f, nIconIndex, phiconLarge.0, phiconSmall.0, nIcons)
}

/// The file's own icon number *piIcon; a file without one would get its type's
/// icon (from the registry's DefaultIcon, else SHELL32's), which needs icons
/// winterp does not have.
fn associated(cx: &mut Ctx, file: &str, piIcon: u32) -> ApiResult<u32> {
    let index = if piIcon == 0 {
        0
    } else {
        cx.proc.mem.read_u16(piIcon)?
    };
    let h = extract(cx, file, i32::from(index))?;
    if h != 0 {
        return Ok(h);
    }
    Err(ApiError::UnimplementedCase(format!(
        "ExtractAssociatedIcon of {file}: the icon of its type"
    )))
}

pub fn ExtractAssociatedIconW(
    cx: &mut Ctx,
    _hInst: u32,
    pszIconPath: Ptr,
    piIcon: Ptr,
) -> ApiResult<u32> {
    let f = read_wstr(cx.proc, pszIconPath.0)?;
    associated(cx, &f, piIcon.0)
}

pub fn ExtractAssociatedIconA(
    cx: &mut Ctx,
    _hInst: u32,
    pszIconPath: Ptr,
    piIcon: Ptr,
) -> ApiResult<u32> {
    let f = read_ansi(cx.proc, pszIconPath.0)?;
    associated(cx, &f, piIcon.0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ExtractIconA", ExtractIconA),
        stdcall("ExtractIconW", ExtractIconW),
        stdcall("ExtractIconExA", ExtractIconExA),
        stdcall("ExtractIconExW", ExtractIconExW),
        stdcall("ExtractAssociatedIconA", ExtractAssociatedIconA),
        stdcall("ExtractAssociatedIconW", ExtractAssociatedIconW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icon_indexes_count_or_name_groups() {
        let all = vec![
            NameOrId::Name("MAIN".into()),
            NameOrId::Id(1),
            NameOrId::Id(7),
        ];
        assert!(matches!(group_at(&all, 0), Some(NameOrId::Name(n)) if n == "MAIN"));
        assert!(matches!(group_at(&all, 2), Some(NameOrId::Id(7))));
        assert!(group_at(&all, 3).is_none());
        assert!(matches!(group_at(&all, -7), Some(NameOrId::Id(7))));
        assert!(group_at(&all, -2).is_none());
    }
}
