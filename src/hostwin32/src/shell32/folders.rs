//! The special folders: SHGetFolderPath(AndSubDir), SHGetSpecialFolderPath,
//! SHGetFolderLocation / SHGetSpecialFolderLocation.
//!
//! # Where the folders are
//!
//! The layout is the one of the Windows version winterp reports, on the VFS's
//! drive and below the same Windows and system directories GetWindowsDirectory
//! and GetSystemDirectory return (`C:\WINDOWS`, `C:\WINDOWS\SYSTEM`):
//!
//! - Windows 95/98/Me (no user profiles): the user's folders are in the Windows
//!   directory (`C:\WINDOWS\Desktop`, `C:\WINDOWS\Start Menu\Programs`,
//!   `C:\WINDOWS\Application Data`), the documents in `C:\My Documents`, the
//!   shared ones in `C:\WINDOWS\All Users`;
//! - Windows NT 4: `C:\WINDOWS\Profiles\<user>` and `...\Profiles\All Users`, the
//!   documents in the profile's `Personal`;
//! - Windows 2000/XP: `C:\Documents and Settings\<user>` and `...\All Users`.
//!
//! `<user>` is what GetUserName returns ([`crate::advapi32::user::USER_NAME`]);
//! Program Files is the registry's `ProgramFilesDir` / `CommonFilesDir`, as on
//! Windows (seeded as `C:\Program Files`).
//!
//! # Which folders exist
//!
//! Windows Setup creates the standard folders, so a program may take them to
//! exist without asking for CSIDL_FLAG_CREATE. winterp's sandbox starts with only
//! `C:\WINDOWS`, `SYSTEM` and `TEMP`, so a standard folder is created in the
//! sandbox (with its parents) the first time the process asks for it; after that
//! it is an ordinary folder (a program that deletes it sees it missing until the
//! next run). The folders Windows makes only on demand (the CD burning area, OEM
//! links) are created only with CSIDL_FLAG_CREATE / fCreate.
//!
//! # Results
//!
//! As Wine's shell32, whose conformance tests run on Windows: an unknown CSIDL,
//! a virtual folder (no file-system path: My Computer, the Control Panel ...) or
//! a dwFlags other than SHGFP_TYPE_CURRENT/DEFAULT gives E_INVALIDARG; a folder
//! that does not exist without CSIDL_FLAG_CREATE gives
//! HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND) (SHGetFolderPathW still fills in the
//! path, the A form leaves it empty); the folders Windows has no path for
//! (CSIDL_ALTSTARTUP ...) give the same with an empty path, and E_FAIL when asked
//! to create them. SHGetFolderLocation gives E_FAIL where SHGetFolderPath says
//! the folder is missing, and an ID list of a virtual folder for the virtual ones.

#![allow(non_snake_case)]

use std::collections::HashSet;
use std::sync::Mutex;

use super::pidl;
use crate::hle::com::{E_FAIL, E_INVALIDARG, S_OK};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::{encode_ansi, read_ansi, read_wstr, write_wide};
use crate::process::WinVersion;
use crate::vfs::{FILE_ATTRIBUTE_DIRECTORY, MAX_PATH, VfsError};

pub const CSIDL_DESKTOP: u32 = 0x00;
pub const CSIDL_DESKTOPDIRECTORY: u32 = 0x10;
const CSIDL_FLAG_DONT_VERIFY: u32 = 0x4000;
const CSIDL_FLAG_CREATE: u32 = 0x8000;
const CSIDL_FOLDER_MASK: u32 = 0xff;
const SHGFP_TYPE_CURRENT: u32 = 0;
const SHGFP_TYPE_DEFAULT: u32 = 1;

/// HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND).
pub const HR_FILE_NOT_FOUND: u32 = 0x8007_0002;
/// HRESULT_FROM_WIN32(ERROR_FILENAME_EXCED_RANGE).
const HR_FILENAME_EXCED_RANGE: u32 = 0x8007_00ce;

/// The folders whose place depends on the installation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub windows: String,
    pub system: String,
    /// The user's profile (the Windows directory on Windows 9x).
    pub profile: String,
    /// The profile shared by all users.
    pub all_users: String,
    /// CSIDL_PERSONAL ("My Documents").
    pub personal: String,
    pub program_files: String,
    pub common_files: String,
    /// Windows 9x keeps a few of the user's folders directly in the Windows
    /// directory where NT has them under `Local Settings`.
    pub nine_x: bool,
}

impl Layout {
    /// The layout of `version` on `drive`, with the Windows and system directories
    /// the file APIs report, Program Files as the registry has it and the user
    /// GetUserName names.
    pub fn new(
        version: WinVersion,
        drive: char,
        windows: &str,
        system: &str,
        program_files: &str,
        common_files: &str,
        user: &str,
    ) -> Layout {
        let (profile, all_users, personal, nine_x) = match version {
            WinVersion::Win95 | WinVersion::Win98 | WinVersion::WinMe => (
                windows.to_string(),
                format!("{windows}\\All Users"),
                format!("{drive}:\\My Documents"),
                true,
            ),
            WinVersion::Nt4 => {
                let profile = format!("{windows}\\Profiles\\{user}");
                (
                    profile.clone(),
                    format!("{windows}\\Profiles\\All Users"),
                    format!("{profile}\\Personal"),
                    false,
                )
            }
            WinVersion::Win2000 | WinVersion::WinXp => {
                let profile = format!("{drive}:\\Documents and Settings\\{user}");
                (
                    profile.clone(),
                    format!("{drive}:\\Documents and Settings\\All Users"),
                    format!("{profile}\\My Documents"),
                    false,
                )
            }
        };
        Layout {
            windows: windows.to_string(),
            system: system.to_string(),
            profile,
            all_users,
            personal,
            program_files: program_files.to_string(),
            common_files: common_files.to_string(),
            nine_x,
        }
    }
}

/// What a CSIDL stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folder {
    /// Not a CSIDL (or one Windows refuses here): E_INVALIDARG.
    Invalid,
    /// A shell namespace folder without a file-system path (My Computer ...):
    /// it has an ID list but no path.
    Virtual,
    /// A CSIDL Windows knows but has no folder for (CSIDL_ALTSTARTUP ...).
    NoPath,
    /// A file-system folder; `standard` ones exist on every installation.
    Path { path: String, standard: bool },
}

/// The folder CSIDL `csidl` (without flags) names in `l`.
pub fn folder(csidl: u32, l: &Layout) -> Folder {
    let standard = |path: String| Folder::Path {
        path,
        standard: true,
    };
    let under = |base: &str, rel: &str| standard(format!("{base}\\{rel}"));
    let p = l.profile.as_str();
    let all = l.all_users.as_str();
    match csidl {
        // CSIDL_DESKTOP is the namespace root, whose folder is the desktop directory.
        0x00 | 0x10 => under(p, "Desktop"),
        // INTERNET, CONTROLS, PRINTERS, BITBUCKET, DRIVES, NETWORK.
        0x01 | 0x03 | 0x04 | 0x0a | 0x11 | 0x12 => Folder::Virtual,
        0x02 => under(p, "Start Menu\\Programs"),
        0x05 => standard(l.personal.clone()),
        0x06 => under(p, "Favorites"),
        0x07 => under(p, "Start Menu\\Programs\\StartUp"),
        0x08 => under(p, "Recent"),
        0x09 => under(p, "SendTo"),
        0x0b => under(p, "Start Menu"),
        0x0d => under(&l.personal, "My Music"),
        0x0e => under(&l.personal, "My Videos"),
        0x13 => under(p, "NetHood"),
        0x14 => under(&l.windows, "Fonts"),
        0x15 if l.nine_x => under(&l.windows, "ShellNew"),
        0x15 => under(p, "Templates"),
        0x16 => under(all, "Start Menu"),
        0x17 => under(all, "Start Menu\\Programs"),
        0x18 => under(all, "Start Menu\\Programs\\StartUp"),
        0x19 => under(all, "Desktop"),
        0x1a => under(p, "Application Data"),
        0x1b => under(p, "PrintHood"),
        0x1c => under(p, "Local Settings\\Application Data"),
        // ALTSTARTUP, COMMON_ALTSTARTUP, RESOURCES_LOCALIZED.
        0x1d | 0x1e | 0x39 => Folder::NoPath,
        0x1f => under(all, "Favorites"),
        0x20 if l.nine_x => under(&l.windows, "Temporary Internet Files"),
        0x20 => under(p, "Local Settings\\Temporary Internet Files"),
        0x21 => under(p, "Cookies"),
        0x22 if l.nine_x => under(&l.windows, "History"),
        0x22 => under(p, "Local Settings\\History"),
        0x23 => under(all, "Application Data"),
        0x24 => standard(l.windows.clone()),
        // SYSTEM and SYSTEMX86 are one folder on a 32-bit Windows.
        0x25 | 0x29 => standard(l.system.clone()),
        0x26 | 0x2a => standard(l.program_files.clone()),
        0x27 => under(&l.personal, "My Pictures"),
        0x28 => standard(p.to_string()),
        0x2b | 0x2c => standard(l.common_files.clone()),
        0x2d => under(all, "Templates"),
        0x2e => under(all, "Documents"),
        0x2f => under(all, "Start Menu\\Programs\\Administrative Tools"),
        0x30 => under(p, "Start Menu\\Programs\\Administrative Tools"),
        0x35 => under(all, "Documents\\My Music"),
        0x36 => under(all, "Documents\\My Pictures"),
        0x37 => under(all, "Documents\\My Videos"),
        0x38 => under(&l.windows, "Resources"),
        // Made by the applications that use them.
        0x3a => Folder::Path {
            path: format!("{all}\\OEM Links"),
            standard: false,
        },
        0x3b => Folder::Path {
            path: format!("{p}\\Local Settings\\Application Data\\Microsoft\\CD Burning"),
            standard: false,
        },
        // 0x0c MYDOCUMENTS (the desktop's virtual item), 0x31 CONNECTIONS and
        // 0x3d COMPUTERSNEARME are refused by SHGetFolderPath and
        // SHGetFolderLocation alike; the other numbers are unused.
        _ => Folder::Invalid,
    }
}

/// The process's layout.
pub fn layout(cx: &mut Ctx) -> ApiResult<Layout> {
    use crate::advapi32::registry::{HKEY_LOCAL_MACHINE, query_string};
    const CURRENT_VERSION: &str = "Software\\Microsoft\\Windows\\CurrentVersion";
    let v = vfs(cx.proc)?;
    let drive = v.drive();
    let program_files = query_string(cx, HKEY_LOCAL_MACHINE, CURRENT_VERSION, "ProgramFilesDir")?
        .unwrap_or_else(|| format!("{drive}:\\Program Files"));
    let common_files = query_string(cx, HKEY_LOCAL_MACHINE, CURRENT_VERSION, "CommonFilesDir")?
        .unwrap_or_else(|| format!("{program_files}\\Common Files"));
    Ok(Layout::new(
        cx.proc.config.version,
        drive,
        &v.windows_dir(),
        &v.system_dir(),
        &program_files,
        &common_files,
        crate::advapi32::user::USER_NAME,
    ))
}

/// The standard folders this process has already made sure of (see the module
/// notes), by upper-cased path.
#[derive(Default)]
struct Provided(Mutex<HashSet<String>>);

fn is_dir(cx: &Ctx, path: &str) -> ApiResult<bool> {
    Ok(vfs(cx.proc)?
        .get_attributes(path)
        .is_ok_and(|a| a & FILE_ATTRIBUTE_DIRECTORY != 0))
}

/// Creates `path` and its missing parents (SHCreateDirectoryEx); false if a part
/// cannot be made (a file is in the way, the sandbox refuses).
pub fn create_dirs(cx: &Ctx, path: &str) -> ApiResult<bool> {
    let v = vfs(cx.proc)?;
    let mut at = String::new();
    for (i, comp) in path.split('\\').enumerate() {
        if i > 0 {
            at.push('\\');
        }
        at.push_str(comp);
        // The drive ("C:") is there already.
        if i == 0 || comp.is_empty() {
            continue;
        }
        match v.create_dir(&at) {
            Ok(()) | Err(VfsError::AlreadyExists(_)) => {}
            Err(e) => {
                log::info!("SHELL32: cannot create {at}: {e}");
                return Ok(false);
            }
        }
    }
    is_dir(cx, path)
}

/// A standard folder is made the first time the process asks for it.
fn provide_standard(cx: &Ctx, path: &str) -> ApiResult<()> {
    let provided = cx.proc.slot::<Provided>();
    let key = path.to_uppercase();
    let first = provided
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key);
    if first && !is_dir(cx, path)? {
        create_dirs(cx, path)?;
    }
    Ok(())
}

/// SHGetFolderPathAndSubDirW's answer: the HRESULT and the path to hand back
/// (possibly with a failure, as Windows does for a missing folder).
pub fn folder_path(
    cx: &mut Ctx,
    nFolder: u32,
    dwFlags: u32,
    sub: Option<&str>,
) -> ApiResult<(u32, Option<String>)> {
    if dwFlags != SHGFP_TYPE_CURRENT && dwFlags != SHGFP_TYPE_DEFAULT {
        return Ok((E_INVALIDARG, None));
    }
    let l = layout(cx)?;
    let (mut path, standard) = match folder(nFolder & CSIDL_FOLDER_MASK, &l) {
        Folder::Invalid | Folder::Virtual => return Ok((E_INVALIDARG, None)),
        Folder::NoPath if nFolder & CSIDL_FLAG_CREATE != 0 => return Ok((E_FAIL, None)),
        Folder::NoPath => return Ok((HR_FILE_NOT_FOUND, None)),
        Folder::Path { path, standard } => (path, standard),
    };
    if standard {
        provide_standard(cx, &path)?;
    }
    if let Some(sub) = sub.filter(|s| !s.is_empty()) {
        if path.len() + sub.len() + 2 > MAX_PATH {
            return Ok((HR_FILENAME_EXCED_RANGE, None));
        }
        path = format!("{path}\\{}", sub.trim_matches('\\'));
    }
    if nFolder & CSIDL_FLAG_DONT_VERIFY != 0 {
        return Ok((S_OK, Some(path)));
    }
    if is_dir(cx, &path)? {
        return Ok((S_OK, Some(path)));
    }
    if nFolder & CSIDL_FLAG_CREATE == 0 {
        return Ok((HR_FILE_NOT_FOUND, Some(path)));
    }
    if create_dirs(cx, &path)? {
        Ok((S_OK, Some(path)))
    } else {
        Ok((E_FAIL, Some(path)))
    }
}

/// Writes the path into a MAX_PATH buffer (cut to it, as Windows' conversion into
/// MAX_PATH characters does).
fn put_w(cx: &Ctx, buf: u32, path: &str) -> ApiResult<()> {
    let mut w: Vec<u16> = path.encode_utf16().take(MAX_PATH - 1).collect();
    w.push(0);
    write_wide(cx.proc, buf, &w)
}

fn put_a(cx: &Ctx, buf: u32, path: &str) -> ApiResult<()> {
    let mut a = encode_ansi(path);
    a.truncate(MAX_PATH - 1);
    a.push(0);
    Ok(cx.proc.mem.write_bytes(buf, &a)?)
}

/// The W form hands back the path even when it reports the folder missing.
fn get_w(cx: &mut Ctx, nFolder: u32, dwFlags: u32, sub: Option<&str>, out: u32) -> ApiResult<u32> {
    if out != 0 {
        put_w(cx, out, "")?;
    }
    let (hr, path) = folder_path(cx, nFolder, dwFlags, sub)?;
    if let (Some(p), true) = (path, out != 0) {
        put_w(cx, out, &p)?;
    }
    Ok(hr)
}

/// The A form hands back the path only with success.
fn get_a(cx: &mut Ctx, nFolder: u32, dwFlags: u32, sub: Option<&str>, out: u32) -> ApiResult<u32> {
    if out != 0 {
        put_a(cx, out, "")?;
    }
    let (hr, path) = folder_path(cx, nFolder, dwFlags, sub)?;
    if let (Some(p), true, true) = (path, out != 0, hr & 0x8000_0000 == 0) {
        put_a(cx, out, &p)?;
    }
    Ok(hr)
}

pub fn SHGetFolderPathW(
    cx: &mut Ctx,
    _hwnd: u32,
    csidl: u32,
    _hToken: u32,
    dwFlags: u32,
    pszPath: Ptr,
) -> ApiResult<u32> {
    get_w(cx, csidl, dwFlags, None, pszPath.0)
}

pub fn SHGetFolderPathA(
    cx: &mut Ctx,
    _hwnd: u32,
    csidl: u32,
    _hToken: u32,
    dwFlags: u32,
    pszPath: Ptr,
) -> ApiResult<u32> {
    get_a(cx, csidl, dwFlags, None, pszPath.0)
}

fn SHGetFolderPathAndSubDirW(
    cx: &mut Ctx,
    _hwnd: u32,
    csidl: u32,
    _hToken: u32,
    dwFlags: u32,
    pszSubDir: WStrPtr,
    pszPath: Ptr,
) -> ApiResult<u32> {
    let sub = if pszSubDir.0 == 0 {
        None
    } else {
        Some(read_wstr(cx.proc, pszSubDir.0)?)
    };
    get_w(cx, csidl, dwFlags, sub.as_deref(), pszPath.0)
}

fn SHGetFolderPathAndSubDirA(
    cx: &mut Ctx,
    _hwnd: u32,
    csidl: u32,
    _hToken: u32,
    dwFlags: u32,
    pszSubDir: CStrPtr,
    pszPath: Ptr,
) -> ApiResult<u32> {
    let sub = if pszSubDir.0 == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, pszSubDir.0)?)
    };
    get_a(cx, csidl, dwFlags, sub.as_deref(), pszPath.0)
}

/// TRUE when SHGetFolderPath (with CSIDL_FLAG_CREATE for fCreate) succeeds.
fn special_path(
    cx: &mut Ctx,
    pszPath: u32,
    csidl: u32,
    fCreate: bool,
    wide: bool,
) -> ApiResult<bool> {
    let flags = if fCreate { CSIDL_FLAG_CREATE } else { 0 };
    let hr = if wide {
        get_w(cx, csidl | flags, SHGFP_TYPE_CURRENT, None, pszPath)?
    } else {
        get_a(cx, csidl | flags, SHGFP_TYPE_CURRENT, None, pszPath)?
    };
    Ok(hr & 0x8000_0000 == 0)
}

pub fn SHGetSpecialFolderPathW(
    cx: &mut Ctx,
    _hwnd: u32,
    pszPath: Ptr,
    csidl: u32,
    fCreate: bool,
) -> ApiResult<bool> {
    special_path(cx, pszPath.0, csidl, fCreate, true)
}

pub fn SHGetSpecialFolderPathA(
    cx: &mut Ctx,
    _hwnd: u32,
    pszPath: Ptr,
    csidl: u32,
    fCreate: bool,
) -> ApiResult<bool> {
    special_path(cx, pszPath.0, csidl, fCreate, false)
}

/// The ID list of a folder: the empty list for the desktop (the namespace root),
/// a virtual item for the virtual folders, else the folder's path.
fn location(cx: &mut Ctx, nFolder: u32, dwFlags: u32, ppidl: u32) -> ApiResult<u32> {
    if ppidl == 0 {
        return Ok(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppidl, 0)?;
    let csidl = nFolder & CSIDL_FOLDER_MASK;
    let l = layout(cx)?;
    let list = match folder(csidl, &l) {
        Folder::Invalid => return Ok(E_INVALIDARG),
        Folder::Virtual => pidl::Item::Virtual(csidl),
        _ if csidl == CSIDL_DESKTOP => pidl::Item::Desktop,
        _ => match folder_path(cx, nFolder, dwFlags, None)? {
            (hr, Some(path)) if hr & 0x8000_0000 == 0 => pidl::Item::Path(path),
            (E_INVALIDARG, _) => return Ok(E_INVALIDARG),
            // Unlike SHGetFolderPath, a folder that is not there is E_FAIL.
            _ => return Ok(E_FAIL),
        },
    };
    let p = pidl::alloc(cx, &list)?;
    if p == 0 {
        return Ok(crate::hle::com::E_OUTOFMEMORY);
    }
    cx.proc.mem.write_u32(ppidl, p)?;
    Ok(S_OK)
}

fn SHGetFolderLocation(
    cx: &mut Ctx,
    _hwndOwner: u32,
    nFolder: u32,
    _hToken: u32,
    dwReserved: u32,
    ppidl: Ptr,
) -> ApiResult<u32> {
    if dwReserved != 0 {
        return Ok(E_INVALIDARG);
    }
    location(cx, nFolder, SHGFP_TYPE_CURRENT, ppidl.0)
}

pub fn SHGetSpecialFolderLocation(
    cx: &mut Ctx,
    _hwndOwner: u32,
    nFolder: u32,
    ppidl: Ptr,
) -> ApiResult<u32> {
    location(cx, nFolder, SHGFP_TYPE_CURRENT, ppidl.0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SHGetFolderPathA", SHGetFolderPathA),
        stdcall("SHGetFolderPathW", SHGetFolderPathW),
        stdcall("SHGetFolderPathAndSubDirA", SHGetFolderPathAndSubDirA),
        stdcall("SHGetFolderPathAndSubDirW", SHGetFolderPathAndSubDirW),
        stdcall("SHGetSpecialFolderPathA", SHGetSpecialFolderPathA),
        stdcall("SHGetSpecialFolderPathW", SHGetSpecialFolderPathW),
        stdcall("SHGetFolderLocation", SHGetFolderLocation),
        stdcall("SHGetSpecialFolderLocation", SHGetSpecialFolderLocation),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(v: WinVersion) -> Layout {
        Layout::new(
            v,
            'C',
            "C:\\WINDOWS",
            "C:\\WINDOWS\\SYSTEM",
            "C:\\Program Files",
            "C:\\Program Files\\Common Files",
            "User",
        )
    }

    fn path(csidl: u32, v: WinVersion) -> String {
        match folder(csidl, &layout(v)) {
            Folder::Path { path, .. } => path,
            other => panic!("{csidl:#x}: {other:?}"),
        }
    }

    #[test]
    fn windows_98_keeps_the_users_folders_in_the_windows_directory() {
        let v = WinVersion::Win98;
        for (csidl, want) in [
            (0x00, "C:\\WINDOWS\\Desktop"),
            (0x10, "C:\\WINDOWS\\Desktop"),
            (0x02, "C:\\WINDOWS\\Start Menu\\Programs"),
            (0x05, "C:\\My Documents"),
            (0x07, "C:\\WINDOWS\\Start Menu\\Programs\\StartUp"),
            (0x14, "C:\\WINDOWS\\Fonts"),
            (0x15, "C:\\WINDOWS\\ShellNew"),
            (0x17, "C:\\WINDOWS\\All Users\\Start Menu\\Programs"),
            (0x1a, "C:\\WINDOWS\\Application Data"),
            (0x1c, "C:\\WINDOWS\\Local Settings\\Application Data"),
            (0x20, "C:\\WINDOWS\\Temporary Internet Files"),
            (0x22, "C:\\WINDOWS\\History"),
            (0x24, "C:\\WINDOWS"),
            (0x25, "C:\\WINDOWS\\SYSTEM"),
            (0x26, "C:\\Program Files"),
            (0x27, "C:\\My Documents\\My Pictures"),
            (0x28, "C:\\WINDOWS"),
            (0x2b, "C:\\Program Files\\Common Files"),
        ] {
            assert_eq!(path(csidl, v), want, "{csidl:#x}");
        }
    }

    #[test]
    fn windows_xp_uses_documents_and_settings() {
        let v = WinVersion::WinXp;
        let me = "C:\\Documents and Settings\\User";
        let all = "C:\\Documents and Settings\\All Users";
        for (csidl, want) in [
            (0x00, format!("{me}\\Desktop")),
            (0x05, format!("{me}\\My Documents")),
            (0x0d, format!("{me}\\My Documents\\My Music")),
            (0x15, format!("{me}\\Templates")),
            (0x19, format!("{all}\\Desktop")),
            (0x1a, format!("{me}\\Application Data")),
            (0x1c, format!("{me}\\Local Settings\\Application Data")),
            (
                0x20,
                format!("{me}\\Local Settings\\Temporary Internet Files"),
            ),
            (0x23, format!("{all}\\Application Data")),
            (0x28, me.to_string()),
            (0x2e, format!("{all}\\Documents")),
            (0x14, "C:\\WINDOWS\\Fonts".to_string()),
            (0x25, "C:\\WINDOWS\\SYSTEM".to_string()),
        ] {
            assert_eq!(path(csidl, v), want, "{csidl:#x}");
        }
        assert_eq!(
            path(0x05, WinVersion::Nt4),
            "C:\\WINDOWS\\Profiles\\User\\Personal"
        );
        assert_eq!(
            folder(0x05, &layout(WinVersion::Win2000)),
            folder(0x05, &layout(v))
        );
    }

    #[test]
    fn virtual_missing_and_unknown_folders() {
        let l = layout(WinVersion::WinXp);
        for csidl in [0x01, 0x03, 0x04, 0x0a, 0x11, 0x12] {
            assert_eq!(folder(csidl, &l), Folder::Virtual, "{csidl:#x}");
        }
        for csidl in [0x1d, 0x1e, 0x39] {
            assert_eq!(folder(csidl, &l), Folder::NoPath, "{csidl:#x}");
        }
        for csidl in [0x0c, 0x0f, 0x31, 0x32, 0x3c, 0x3d, 0x3e, 0xff] {
            assert_eq!(folder(csidl, &l), Folder::Invalid, "{csidl:#x}");
        }
        assert!(matches!(
            folder(0x3b, &l),
            Folder::Path {
                standard: false,
                ..
            }
        ));
    }
}
