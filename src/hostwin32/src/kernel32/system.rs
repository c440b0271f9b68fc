//! KERNEL32 system identity: the computer name, and the WOW64 queries (winterp
//! is a 32-bit Windows, so a process is never running under WOW64).

#![allow(non_snake_case)]

use super::misc::err;
use super::process::expand_env;
use super::string::{copy_out_a, copy_out_w, encode_ansi, read_ansi, read_wstr, write_wide};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, WStrPtr, stdcall};
use crate::teb::set_last_error;

const ERROR_BUFFER_OVERFLOW: u32 = 111;

/// The NetBIOS name of the emulated machine (fixed, so runs are reproducible and
/// nothing of the host's identity reaches the program).
pub const COMPUTER_NAME: &str = "WINTERP";

fn computer_name(cx: &mut Ctx, buf: u32, size: u32, wide: bool) -> ApiResult<bool> {
    if size == 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let cap = cx.proc.mem.read_u32(size)?;
    let len = COMPUTER_NAME.len() as u32;
    if cap <= len || buf == 0 {
        cx.proc.mem.write_u32(size, len + 1)?;
        set_last_error(cx, ERROR_BUFFER_OVERFLOW)?;
        return Ok(false);
    }
    if wide {
        let mut v: Vec<u16> = COMPUTER_NAME.encode_utf16().collect();
        v.push(0);
        write_wide(cx.proc, buf, &v)?;
    } else {
        let mut v = COMPUTER_NAME.as_bytes().to_vec();
        v.push(0);
        cx.proc.mem.write_bytes(buf, &v)?;
    }
    cx.proc.mem.write_u32(size, len)?;
    Ok(true)
}

pub fn GetComputerNameW(cx: &mut Ctx, lpBuffer: Ptr, nSize: Ptr) -> ApiResult<bool> {
    computer_name(cx, lpBuffer.0, nSize.0, true)
}

pub fn GetComputerNameA(cx: &mut Ctx, lpBuffer: Ptr, nSize: Ptr) -> ApiResult<bool> {
    computer_name(cx, lpBuffer.0, nSize.0, false)
}

pub fn IsWow64Process(cx: &mut Ctx, _hProcess: u32, Wow64Process: Ptr) -> ApiResult<bool> {
    if Wow64Process.is_null() {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    cx.proc.mem.write_u32(Wow64Process.0, 0)?;
    Ok(true)
}

/// Outside WOW64 there is no redirection to turn off: the call fails as on 32-bit
/// Windows.
pub fn Wow64DisableWow64FsRedirection(cx: &mut Ctx, _OldValue: Ptr) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_INVALID_FUNCTION)?;
    Ok(false)
}

pub fn Wow64RevertWow64FsRedirection(cx: &mut Ctx, _OlValue: u32) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_INVALID_FUNCTION)?;
    Ok(false)
}

/// As ExpandEnvironmentStringsA: the size with the NUL (in characters) is
/// returned; nothing is written unless it all fits.
pub fn ExpandEnvironmentStringsW(
    cx: &mut Ctx,
    lpSrc: WStrPtr,
    lpDst: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let src = read_wstr(cx.proc, lpSrc.0)?;
    let mut out: Vec<u16> = expand_env(cx.proc, &src).encode_utf16().collect();
    let need = out.len() as u32 + 1;
    if nSize >= need && !lpDst.is_null() {
        out.push(0);
        write_wide(cx.proc, lpDst.0, &out)?;
    }
    Ok(need)
}

/// Where SearchPath looks when the caller gives no path: the program's folder,
/// the current folder, the system and Windows folders, then PATH.
fn default_search_dirs(cx: &Ctx) -> ApiResult<Vec<String>> {
    let vfs = super::file::vfs(cx.proc)?;
    let mut dirs = Vec::new();
    if let Some(p) = super::module::module_path(cx, 0)
        && let Some(k) = p.rfind('\\')
    {
        dirs.push(p[..k].to_string());
    }
    dirs.push(vfs.current_dir());
    dirs.push(vfs.system_dir());
    dirs.push(vfs.windows_dir());
    if let Some(path) = super::process::get_env(cx.proc, "PATH") {
        dirs.extend(path.split(';').filter(|d| !d.is_empty()).map(String::from));
    }
    Ok(dirs)
}

/// The candidates SearchPath tries for `name` in `dirs`: `ext` is appended when
/// the name has no extension; a name with a folder part is tried only as given.
pub fn search_candidates(dirs: &[String], name: &str, ext: Option<&str>) -> Vec<String> {
    let file_part = name.rsplit(['\\', '/']).next().unwrap_or(name);
    let name = match ext {
        Some(e) if !file_part.contains('.') => format!("{name}{e}"),
        _ => name.to_string(),
    };
    if name.contains(['\\', '/', ':']) {
        return vec![name];
    }
    dirs.iter()
        .map(|d| {
            if d.ends_with('\\') {
                format!("{d}{name}")
            } else {
                format!("{d}\\{name}")
            }
        })
        .collect()
}

/// SearchPath: the full path of the first existing candidate (a file, not a
/// folder) copied out like GetFullPathName; 0 with ERROR_FILE_NOT_FOUND if none.
fn search_path(
    cx: &mut Ctx,
    path: Option<String>,
    name: String,
    ext: Option<String>,
) -> ApiResult<Option<String>> {
    let dirs = match path {
        Some(p) => p
            .split(';')
            .filter(|d| !d.is_empty())
            .map(String::from)
            .collect(),
        None => default_search_dirs(cx)?,
    };
    let vfs = super::file::vfs(cx.proc)?;
    for c in search_candidates(&dirs, &name, ext.as_deref()) {
        if let Ok(a) = vfs.get_attributes(&c)
            && a & 0x10 == 0
            && let Ok(full) = vfs.full_path(&c)
        {
            return Ok(Some(full));
        }
    }
    set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
    Ok(None)
}

fn opt_w(cx: &Ctx, p: u32) -> ApiResult<Option<String>> {
    Ok(if p == 0 {
        None
    } else {
        Some(read_wstr(cx.proc, p)?)
    })
}

fn opt_a(cx: &Ctx, p: u32) -> ApiResult<Option<String>> {
    Ok(if p == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, p)?)
    })
}

/// The file-part pointer: where the name starts in the copied path.
fn file_part(full: &str, buf: u32, unit: u32) -> u32 {
    let k = full.rfind('\\').map_or(0, |k| k + 1);
    buf + unit * full[..k].chars().map(|c| c.len_utf16() as u32).sum::<u32>()
}

pub fn SearchPathW(
    cx: &mut Ctx,
    lpPath: Ptr,
    lpFileName: Ptr,
    lpExtension: Ptr,
    nBufferLength: u32,
    lpBuffer: Ptr,
    lpFilePart: Ptr,
) -> ApiResult<u32> {
    let Some(name) = opt_w(cx, lpFileName.0)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    let (path, ext) = (opt_w(cx, lpPath.0)?, opt_w(cx, lpExtension.0)?);
    let Some(full) = search_path(cx, path, name, ext)? else {
        return Ok(0);
    };
    let units: Vec<u16> = full.encode_utf16().collect();
    let n = copy_out_w(cx.proc, lpBuffer.0, nBufferLength, &units)?;
    if n < nBufferLength && !lpFilePart.is_null() {
        cx.proc
            .mem
            .write_u32(lpFilePart.0, file_part(&full, lpBuffer.0, 2))?;
    }
    Ok(n)
}

pub fn SearchPathA(
    cx: &mut Ctx,
    lpPath: Ptr,
    lpFileName: Ptr,
    lpExtension: Ptr,
    nBufferLength: u32,
    lpBuffer: Ptr,
    lpFilePart: Ptr,
) -> ApiResult<u32> {
    let Some(name) = opt_a(cx, lpFileName.0)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    let (path, ext) = (opt_a(cx, lpPath.0)?, opt_a(cx, lpExtension.0)?);
    let Some(full) = search_path(cx, path, name, ext)? else {
        return Ok(0);
    };
    let bytes = encode_ansi(&full);
    let n = copy_out_a(cx.proc, lpBuffer.0, nBufferLength, &bytes)?;
    if n < nBufferLength && !lpFilePart.is_null() {
        let k = bytes.iter().rposition(|&b| b == b'\\').map_or(0, |k| k + 1);
        cx.proc.mem.write_u32(lpFilePart.0, lpBuffer.0 + k as u32)?;
    }
    Ok(n)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetComputerNameW", GetComputerNameW),
        stdcall("GetComputerNameA", GetComputerNameA),
        stdcall("IsWow64Process", IsWow64Process),
        stdcall(
            "Wow64DisableWow64FsRedirection",
            Wow64DisableWow64FsRedirection,
        ),
        stdcall(
            "Wow64RevertWow64FsRedirection",
            Wow64RevertWow64FsRedirection,
        ),
        stdcall("ExpandEnvironmentStringsW", ExpandEnvironmentStringsW),
        stdcall("SearchPathW", SearchPathW),
        stdcall("SearchPathA", SearchPathA),
    ]
}

#[cfg(test)]
mod tests {
    use super::search_candidates;

    #[test]
    fn search_candidates_add_the_extension_only_without_one() {
        let dirs = vec![r"C:\A".to_string(), r"C:\B\".to_string()];
        assert_eq!(
            search_candidates(&dirs, "cmd", Some(".exe")),
            [r"C:\A\cmd.exe", r"C:\B\cmd.exe"]
        );
        assert_eq!(
            search_candidates(&dirs, "x.com", Some(".exe")),
            [r"C:\A\x.com", r"C:\B\x.com"]
        );
        // A name with a folder is tried as given.
        assert_eq!(
            search_candidates(&dirs, r"sub\tool", Some(".exe")),
            [r"sub\tool.exe"]
        );
    }
}
