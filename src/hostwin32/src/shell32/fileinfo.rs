//! SHGetFileInfo for a file or folder's display name, type name and shell
//! attributes, and any shell item's index in the system image list
//! (SHGFI_SYSICONINDEX, [`super::sysimagelist`]). Icon handles and locations
//! (SHGFI_ICON, SHGFI_ICONLOCATION) and SHGFI_EXETYPE are not provided and report
//! themselves by name.
//!
//! - The display name is the file's name, without its extension when the type is
//!   registered in HKEY_CLASSES_ROOT (Explorer's default "hide extensions for
//!   known file types" setting).
//! - The type name is the registered class's name; otherwise "File Folder" for
//!   folders, "File" without an extension and "EXT File" with one, as Windows
//!   names types nothing registered.
//! - The attributes are the SFGAO_ flags Wine 8 reports for plain files
//!   (0x40400177: copy, move, link, rename, delete, property sheet, drop target,
//!   stream, file system) and folders (0xF080017F: those without stream, plus
//!   storage, storage ancestor, file-system ancestor, folder, has subfolders),
//!   with SFGAO_READONLY and SFGAO_HIDDEN from the file's attributes.
//!
//! With SHGFI_USEFILEATTRIBUTES the file is not looked at (it need not exist):
//! dwFileAttributes says what it is. Without it a missing file makes the call
//! return 0.

#![allow(non_snake_case)]

use super::execute::extension;
use super::pidl::{self, Item};
use crate::advapi32::registry::{HKEY_CLASSES_ROOT, query_string};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::{encode_ansi, read_ansi, read_wstr, write_wide};
use crate::vfs::{FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_HIDDEN, FILE_ATTRIBUTE_READONLY};

const SHGFI_ICON: u32 = 0x100;
const SHGFI_DISPLAYNAME: u32 = 0x200;
const SHGFI_TYPENAME: u32 = 0x400;
const SHGFI_ATTRIBUTES: u32 = 0x800;
const SHGFI_ICONLOCATION: u32 = 0x1000;
const SHGFI_EXETYPE: u32 = 0x2000;
const SHGFI_SYSICONINDEX: u32 = 0x4000;
const SHGFI_PIDL: u32 = 0x8;
const SHGFI_SMALLICON: u32 = 0x1;
const SHGFI_OPENICON: u32 = 0x2;
const FI_ICON_INDEX: u32 = 4;
const SHGFI_USEFILEATTRIBUTES: u32 = 0x10;

const SFGAO_READONLY: u32 = 0x0004_0000;
const SFGAO_HIDDEN: u32 = 0x0008_0000;
const SFGAO_PLAIN_FILE: u32 = 0x4040_0177;
const SFGAO_PLAIN_FOLDER: u32 = 0xF080_017F;

// SHFILEINFOA / SHFILEINFOW: hIcon, iIcon, dwAttributes, szDisplayName[MAX_PATH],
// szTypeName[80].
const FI_ATTRIBUTES: u32 = 8;
const FI_DISPLAY_NAME: u32 = 12;
const DISPLAY_NAME_CHARS: usize = 260;
const TYPE_NAME_CHARS: usize = 80;

/// The names and attributes of one item.
#[derive(Debug, PartialEq, Eq)]
pub struct Info {
    pub display_name: String,
    pub type_name: String,
    pub attributes: u32,
}

/// The answer for the item called `name` (its last path component) with file
/// attributes `attrs`, whose type is registered as `class` (its class name, or
/// `None`).
pub fn describe(name: &str, attrs: u32, class: Option<(&str, &str)>) -> Info {
    let folder = attrs & FILE_ATTRIBUTE_DIRECTORY != 0;
    let ext = if folder { None } else { extension(name) };
    let display_name = match (&ext, class) {
        (Some(e), Some(_)) => name[..name.len() - e.len() - 1].to_string(),
        _ => name.to_string(),
    };
    let type_name = match (class, folder, &ext) {
        (Some((_, friendly)), false, _) => friendly.to_string(),
        (_, true, _) => "File Folder".to_string(),
        (None, false, None) => "File".to_string(),
        (None, false, Some(e)) => format!("{} File", e.to_uppercase()),
    };
    let mut attributes = if folder {
        SFGAO_PLAIN_FOLDER
    } else {
        SFGAO_PLAIN_FILE
    };
    if attrs & FILE_ATTRIBUTE_READONLY != 0 {
        attributes |= SFGAO_READONLY;
    }
    if attrs & FILE_ATTRIBUTE_HIDDEN != 0 {
        attributes |= SFGAO_HIDDEN;
    }
    Info {
        display_name,
        type_name,
        attributes,
    }
}

/// The registered class of an extension and its name (the class name itself
/// when it has none).
pub(super) fn registered_class(cx: &mut Ctx, name: &str) -> ApiResult<Option<(String, String)>> {
    let Some(ext) = extension(name) else {
        return Ok(None);
    };
    let Some(class) =
        query_string(cx, HKEY_CLASSES_ROOT, &format!(".{ext}"), "")?.filter(|c| !c.is_empty())
    else {
        return Ok(None);
    };
    let friendly = query_string(cx, HKEY_CLASSES_ROOT, &class, "")?
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| class.clone());
    Ok(Some((class, friendly)))
}

/// SHGFI_SYSICONINDEX: the item's index in the system image list goes to iIcon
/// and the list (small with SHGFI_SMALLICON, else large) is the answer; the names
/// and attributes asked for beside it come as without it. 0 when the file does not
/// exist (and SHGFI_USEFILEATTRIBUTES does not say what it is).
fn file_info(
    cx: &mut Ctx,
    path: u32,
    dwFileAttributes: u32,
    psfi: u32,
    uFlags: u32,
    wide: bool,
) -> ApiResult<u32> {
    if uFlags & SHGFI_SYSICONINDEX == 0 || uFlags & (SHGFI_ICON | SHGFI_ICONLOCATION) != 0 {
        return names_info(cx, path, dwFileAttributes, psfi, uFlags, wide);
    }
    let item = if uFlags & SHGFI_PIDL != 0 {
        match pidl::read(cx, path)? {
            Some(i) => i,
            None => {
                return Err(ApiError::UnimplementedCase(format!(
                    "SHGetFileInfo of an item ID list at {path:#x} that winterp's SHELL32 did not make"
                )));
            }
        }
    } else {
        let given = if wide {
            read_wstr(cx.proc, path)?
        } else {
            read_ansi(cx.proc, path)?
        };
        Item::Path(vfs(cx.proc)?.full_path(&given).unwrap_or(given))
    };
    let is_dir = match &item {
        Item::Path(_) if uFlags & SHGFI_USEFILEATTRIBUTES != 0 => {
            dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY != 0
        }
        Item::Path(p) => match vfs(cx.proc)?.get_attributes(p) {
            Ok(a) => a & FILE_ATTRIBUTE_DIRECTORY != 0,
            Err(_) => return Ok(0),
        },
        _ => true,
    };
    let index = super::sysimagelist::icon_of(&item, is_dir, uFlags & SHGFI_OPENICON != 0);
    if psfi != 0 {
        cx.proc.mem.write_u32(psfi + FI_ICON_INDEX, index as u32)?;
    }
    let rest = uFlags
        & !(SHGFI_SYSICONINDEX
            | SHGFI_SMALLICON
            | SHGFI_OPENICON
            | SHGFI_PIDL
            | SHGFI_USEFILEATTRIBUTES);
    if rest != 0
        && names_info(
            cx,
            path,
            dwFileAttributes,
            psfi,
            rest | (uFlags & (SHGFI_PIDL | SHGFI_USEFILEATTRIBUTES)),
            wide,
        )? == 0
    {
        return Ok(0);
    }
    let (small, large) = super::sysimagelist::lists(cx)?;
    Ok(if uFlags & SHGFI_SMALLICON != 0 {
        small
    } else {
        large
    })
}

fn names_info(
    cx: &mut Ctx,
    path: u32,
    dwFileAttributes: u32,
    psfi: u32,
    uFlags: u32,
    wide: bool,
) -> ApiResult<u32> {
    let icons = SHGFI_ICON | SHGFI_ICONLOCATION | SHGFI_SYSICONINDEX;
    if uFlags & icons != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "SHGetFileInfo icons (uFlags {uFlags:#x})"
        )));
    }
    if uFlags & SHGFI_EXETYPE != 0 {
        return Err(ApiError::UnimplementedCase(
            "SHGetFileInfo(SHGFI_EXETYPE)".into(),
        ));
    }
    let given = if uFlags & SHGFI_PIDL != 0 {
        match pidl::read(cx, path)? {
            Some(Item::Path(p)) => p,
            other => {
                return Err(ApiError::UnimplementedCase(format!(
                    "SHGetFileInfo of the shell item {other:?} (not a file or folder)"
                )));
            }
        }
    } else if wide {
        read_wstr(cx.proc, path)?
    } else {
        read_ansi(cx.proc, path)?
    };
    let full = vfs(cx.proc)?.full_path(&given).unwrap_or(given.clone());
    let name = full
        .trim_end_matches('\\')
        .rsplit('\\')
        .next()
        .unwrap_or("");
    if uFlags & (SHGFI_DISPLAYNAME | SHGFI_TYPENAME) != 0
        && (name.is_empty() || name.ends_with(':'))
    {
        return Err(ApiError::UnimplementedCase(format!(
            "SHGetFileInfo names of the drive {given}"
        )));
    }
    let attrs = if uFlags & SHGFI_USEFILEATTRIBUTES != 0 {
        dwFileAttributes
    } else {
        match vfs(cx.proc)?.get_attributes(&full) {
            Ok(a) => a,
            Err(_) => return Ok(0),
        }
    };
    let folder = attrs & FILE_ATTRIBUTE_DIRECTORY != 0;
    let class = if folder {
        None
    } else {
        registered_class(cx, name)?
    };
    let info = describe(
        name,
        attrs,
        class.as_ref().map(|(c, f)| (c.as_str(), f.as_str())),
    );
    if psfi == 0 {
        return Ok(1);
    }
    let unit = if wide { 2 } else { 1 };
    let type_at = FI_DISPLAY_NAME + (DISPLAY_NAME_CHARS * unit) as u32;
    let put = |cx: &Ctx, at: u32, s: &str, chars: usize| -> ApiResult<()> {
        if wide {
            let mut w: Vec<u16> = s.encode_utf16().take(chars - 1).collect();
            w.push(0);
            write_wide(cx.proc, psfi + at, &w)
        } else {
            let mut a = encode_ansi(s);
            a.truncate(chars - 1);
            a.push(0);
            Ok(cx.proc.mem.write_bytes(psfi + at, &a)?)
        }
    };
    if uFlags & SHGFI_DISPLAYNAME != 0 {
        put(cx, FI_DISPLAY_NAME, &info.display_name, DISPLAY_NAME_CHARS)?;
    }
    if uFlags & SHGFI_TYPENAME != 0 {
        put(cx, type_at, &info.type_name, TYPE_NAME_CHARS)?;
    }
    if uFlags & SHGFI_ATTRIBUTES != 0 {
        // With SHGFI_ATTR_SPECIFIED dwAttributes holds the attributes wanted; that
        // is a hint that lets a slow folder skip work (IShellFolder::GetAttributesOf
        // may answer more), and the file system's are all at hand, so all are
        // given, as Wine does.
        cx.proc
            .mem
            .write_u32(psfi + FI_ATTRIBUTES, info.attributes)?;
    }
    Ok(1)
}

pub fn SHGetFileInfoW(
    cx: &mut Ctx,
    pszPath: u32,
    dwFileAttributes: u32,
    psfi: Ptr,
    _cbFileInfo: u32,
    uFlags: u32,
) -> ApiResult<u32> {
    file_info(cx, pszPath, dwFileAttributes, psfi.0, uFlags, true)
}

pub fn SHGetFileInfoA(
    cx: &mut Ctx,
    pszPath: u32,
    dwFileAttributes: u32,
    psfi: Ptr,
    _cbFileInfo: u32,
    uFlags: u32,
) -> ApiResult<u32> {
    file_info(cx, pszPath, dwFileAttributes, psfi.0, uFlags, false)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SHGetFileInfoA", SHGetFileInfoA),
        stdcall("SHGetFileInfoW", SHGetFileInfoW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::FILE_ATTRIBUTE_ARCHIVE;

    #[test]
    fn unregistered_types_are_named_by_extension() {
        let i = describe("readme.txt", FILE_ATTRIBUTE_ARCHIVE, None);
        assert_eq!(i.display_name, "readme.txt");
        assert_eq!(i.type_name, "TXT File");
        assert_eq!(i.attributes, 0x4040_0177);
        assert_eq!(describe("README", 0, None).type_name, "File");
        let d = describe("dir.d", FILE_ATTRIBUTE_DIRECTORY, None);
        assert_eq!(
            (d.display_name.as_str(), d.type_name.as_str()),
            ("dir.d", "File Folder")
        );
        assert_eq!(d.attributes, 0xF080_017F);
    }

    #[test]
    fn registered_types_hide_their_extension() {
        let i = describe("notes.txt", 0, Some(("txtfile", "Text Document")));
        assert_eq!(i.display_name, "notes");
        assert_eq!(i.type_name, "Text Document");
    }

    #[test]
    fn readonly_and_hidden_attributes() {
        let a = describe("x", FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN, None).attributes;
        assert_eq!(a, 0x4040_0177 | SFGAO_READONLY | SFGAO_HIDDEN);
    }
}
