//! VERSION.dll: version resources (GetFileVersionInfoSize, GetFileVersionInfo,
//! VerQueryValue) and VerLanguageName, which KERNEL32 exports too.
//!
//! Where the block comes from:
//! - a PE file in the sandbox: its RT_VERSION resource (id 1), found with the
//!   loader's own PE layout and resource walk (`loader::resources::find_in_file`),
//!   so a file answers as the module would once loaded;
//! - a system DLL winterp serves, by bare name (`comctl32.dll`) or in the system
//!   directory (`C:\WINDOWS\SYSTEM\COMCTL32.DLL`, the path GetModuleFileName gives
//!   for it): a block made as the emulated Windows' own DLL carries it
//!   (`system.rs`).
//!
//! A bare name is looked for as LoadLibrary would find the module (winterp's
//! loader prefers a DLL shipped beside the program to its own): a loaded module of
//! that name, the program's folder, a system DLL winterp serves, then the file
//! relative to the current directory, the Windows and system directories.
//!
//! What GetFileVersionInfo hands out (Windows 2000/XP's way, which Wine follows,
//! chosen for every emulated version; `dlls/version/tests/info.c` in Wine records
//! the sizes each Windows used): GetFileVersionInfoSize returns the resource's size
//! times two plus four, GetFileVersionInfo copies the resource as it is (Unicode
//! strings) and, when the buffer has room, writes the signature "FE2X" right after
//! the block's `wLength` bytes. The rest of the buffer is where VerQueryValueA
//! puts the ANSI copy of a string it returns: at `wLength + 4` plus the string's
//! own offset in the block. So A and W callers get identical buffers, and a
//! program that allocated what the size function said has the room. (Windows 98
//! itself converted the block to the 16-bit layout for A callers; programs only
//! see the difference by reading the raw bytes.)
//!
//! Errors when there is no version resource, as each Windows family sets them
//! (Wine's conformance tests record them): a missing file is ERROR_FILE_NOT_FOUND
//! (or ERROR_PATH_NOT_FOUND); on NT a file that is not a PE image or has no
//! resources is ERROR_RESOURCE_DATA_NOT_FOUND, and one with resources but no
//! version resource gets FindResource's code (ERROR_RESOURCE_TYPE_NOT_FOUND, or
//! ERROR_RESOURCE_NAME_NOT_FOUND without id 1); Windows 9x says ERROR_BAD_FORMAT
//! for a file that is not an image and ERROR_FILE_NOT_FOUND for an image without
//! version information.

#![allow(non_snake_case)]

pub mod block;
pub mod system;
#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Ptr, stdcall};
use crate::kernel32::misc::err;
use crate::kernel32::string::{
    decode_file_api, encode_ansi, read_ansi, read_cbytes, read_wide, read_wstr, write_wide,
};
use crate::loader::resources::{FileResError, Missing, ResId, find_in_file};
use crate::loader::{self, hle_module, source::file_name_for};
use crate::process::WinVersion;
use crate::teb::set_last_error;
use crate::vfs::{OpenOptions, Opened, Vfs, VfsError};
use std::io::Read;

pub const DLL: HleDll = HleDll {
    name: "VERSION.dll",
    exports,
    attach: None,
};

/// RT_VERSION, and the id every version resource has (VS_VERSION_INFO).
const RT_VERSION: u16 = 16;
const VS_VERSION_INFO: u16 = 1;
const LANG_ENGLISH_US: u16 = 0x0409;

/// GetFileVersionInfo(Size)Ex flags.
const FILE_VER_GET_LOCALISED: u32 = 0x01;
const FILE_VER_GET_NEUTRAL: u32 = 0x02;
const FILE_VER_GET_PREFETCHED: u32 = 0x04;

const ERROR_BAD_FORMAT: u32 = 11;
const ERROR_RESOURCE_TYPE_NOT_FOUND: u32 = 1813;
const ERROR_RESOURCE_NAME_NOT_FOUND: u32 = 1814;
const ERROR_RESOURCE_LANG_NOT_FOUND: u32 = 1815;

/// What GetFileVersionInfo writes after the block (see the module notes).
const SIGNATURE: &[u8; 4] = b"FE2X";

fn is_9x(v: WinVersion) -> bool {
    matches!(v, WinVersion::Win95 | WinVersion::Win98 | WinVersion::WinMe)
}

/// Where a version block comes from.
enum Source {
    /// The bytes of a file in the sandbox.
    File { path: String, data: Vec<u8> },
    /// A system DLL winterp serves (its file name).
    System(String),
}

/// A file's bytes, or the Win32 error opening it gave.
fn read_file(vfs: &Vfs, path: &str) -> ApiResult<Result<Vec<u8>, u32>> {
    let fail = |e: VfsError| match e {
        VfsError::Config(what) => Err(ApiError::Other(format!("file system: {what}"))),
        e => Ok(Err(e.win32_code())),
    };
    match vfs.open(path, &OpenOptions::read()) {
        Ok(Opened::File(f)) => {
            let host = f.host.get();
            let mut r: &std::fs::File = &host;
            let mut data = Vec::new();
            match r.read_to_end(&mut data) {
                Ok(_) => Ok(Ok(data)),
                Err(e) => fail(VfsError::io(path, e)),
            }
        }
        // A device reads as nothing, which is no image.
        Ok(Opened::Device(_)) => Ok(Ok(Vec::new())),
        Ok(Opened::Directory { .. }) => Ok(Err(err::ERROR_ACCESS_DENIED)),
        Err(e) => fail(e),
    }
}

fn not_found(code: u32) -> bool {
    code == err::ERROR_FILE_NOT_FOUND || code == err::ERROR_PATH_NOT_FOUND
}

/// `dir\name`, without doubling a separator at a drive root.
fn join(dir: &str, name: &str) -> String {
    format!("{}\\{name}", dir.trim_end_matches('\\'))
}

/// Whether `dir` is the system directory, as GetSystemDirectory or
/// GetModuleFileName of a system DLL shows it.
fn is_system_dir(cx: &Ctx, vfs: &Vfs, dir: &str) -> bool {
    let same = |a: &str, b: &str| {
        a.trim_end_matches('\\')
            .eq_ignore_ascii_case(b.trim_end_matches('\\'))
    };
    same(dir, &vfs.system_dir()) || same(dir, hle_module::system_dir(cx.proc.config.version))
}

/// Finds the file or system DLL `name` names (see the module notes for the order).
fn locate(cx: &Ctx, name: &str) -> ApiResult<Result<Source, u32>> {
    let vfs = crate::kernel32::file::vfs(cx.proc)?;
    let file = |path: String, r: Result<Vec<u8>, u32>| r.map(|data| Source::File { path, data });
    if name.contains(['\\', '/', ':']) {
        let r = read_file(&vfs, name)?;
        if let Err(code) = r
            && not_found(code)
            && let Ok(full) = vfs.full_path(name)
            && let Some((dir, base)) = full.rsplit_once('\\')
            && is_system_dir(cx, &vfs, dir)
            && let Some(idx) = cx.proc.hle_dll(base)
        {
            return Ok(Ok(Source::System(cx.proc.dlls[idx].0.to_string())));
        }
        return Ok(file(name.to_string(), r));
    }
    let loaded = loader::state(cx.proc)
        .image_named(&file_name_for(name))
        .map(|i| i.path.clone());
    let beside = join(&vfs.guest_dir(), name);
    for path in loaded.into_iter().chain([beside]) {
        let r = read_file(&vfs, &path)?;
        if !matches!(r, Err(code) if not_found(code)) {
            return Ok(file(path, r));
        }
    }
    if let Some(idx) = cx.proc.hle_dll(name) {
        return Ok(Ok(Source::System(cx.proc.dlls[idx].0.to_string())));
    }
    let mut last = Err(err::ERROR_FILE_NOT_FOUND);
    for path in [
        name.to_string(),
        join(&vfs.windows_dir(), name),
        join(&vfs.system_dir(), name),
    ] {
        last = read_file(&vfs, &path)?;
        if !matches!(last, Err(code) if not_found(code)) {
            return Ok(file(path, last));
        }
    }
    // Every place was looked at; the name itself is what was not found.
    Ok(file(
        name.to_string(),
        last.map_err(|_| err::ERROR_FILE_NOT_FOUND),
    ))
}

/// The error for a file that has no version resource (see the module notes).
fn no_version_code(e: &FileResError, v: WinVersion) -> u32 {
    match (e, is_9x(v)) {
        (FileResError::NotImage(_), true) => ERROR_BAD_FORMAT,
        (_, true) => err::ERROR_FILE_NOT_FOUND,
        (FileResError::NotImage(_) | FileResError::NoResources, false) => {
            err::ERROR_RESOURCE_DATA_NOT_FOUND
        }
        (FileResError::Missing(Missing::Type), false) => ERROR_RESOURCE_TYPE_NOT_FOUND,
        (FileResError::Missing(Missing::Name), false) => ERROR_RESOURCE_NAME_NOT_FOUND,
        (FileResError::Missing(Missing::Language), false) => ERROR_RESOURCE_LANG_NOT_FOUND,
    }
}

/// The version resource of `name`, or the Win32 error for its absence.
fn version_resource(cx: &Ctx, name: &str, flags: u32) -> ApiResult<Result<Vec<u8>, u32>> {
    let v = cx.proc.config.version;
    let (path, data) = match locate(cx, name)? {
        Err(code) => return Ok(Err(code)),
        Ok(Source::System(file)) => return Ok(Ok(system::block(&file, v))),
        Ok(Source::File { path, data }) => (path, data),
    };
    let find = |lang| {
        find_in_file(
            &path,
            &data,
            &ResId::Id(RT_VERSION),
            &ResId::Id(VS_VERSION_INFO),
            lang,
        )
    };
    // Without FILE_VER_GET_LOCALISED U.S. English is preferred, then what
    // FindResource picks (Windows' and Wine's order).
    let found = match flags & FILE_VER_GET_LOCALISED {
        0 => find(Some(LANG_ENGLISH_US)).or_else(|_| find(None)),
        _ => find(None),
    };
    Ok(found.map_err(|e| {
        log::debug!("no version resource in {path}: {e:?}");
        no_version_code(&e, v)
    }))
}

/// Flags of the Ex functions; bits Windows does not define are reported.
fn check_flags(dwFlags: u32) -> ApiResult<()> {
    let known = FILE_VER_GET_LOCALISED | FILE_VER_GET_NEUTRAL | FILE_VER_GET_PREFETCHED;
    if dwFlags & !known != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "GetFileVersionInfo(Size)Ex flags {dwFlags:#x}"
        )));
    }
    Ok(())
}

fn name_a(cx: &Ctx, p: Ptr) -> ApiResult<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    Ok(Some(decode_file_api(cx.proc, &read_cbytes(cx.proc, p.0)?)))
}

fn name_w(cx: &Ctx, p: Ptr) -> ApiResult<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    Ok(Some(read_wstr(cx.proc, p.0)?))
}

/// The check both functions make on the name first.
fn bad_name(name: &Option<String>) -> Option<u32> {
    match name.as_deref() {
        None => Some(err::ERROR_INVALID_PARAMETER),
        Some("") => Some(err::ERROR_BAD_PATHNAME),
        Some(_) => None,
    }
}

fn info_size(cx: &mut Ctx, dwFlags: u32, name: Option<String>, lpdwHandle: Ptr) -> ApiResult<u32> {
    // The handle is documented as set to zero, whatever happens.
    if !lpdwHandle.is_null() {
        cx.proc.mem.write_u32(lpdwHandle.0, 0)?;
    }
    check_flags(dwFlags)?;
    if let Some(code) = bad_name(&name) {
        set_last_error(cx, code)?;
        return Ok(0);
    }
    match version_resource(cx, name.as_deref().unwrap_or_default(), dwFlags)? {
        Ok(block) => {
            set_last_error(cx, err::ERROR_SUCCESS)?;
            Ok(block.len() as u32 * 2 + SIGNATURE.len() as u32)
        }
        Err(code) => {
            set_last_error(cx, code)?;
            Ok(0)
        }
    }
}

fn info(
    cx: &mut Ctx,
    dwFlags: u32,
    name: Option<String>,
    dwLen: u32,
    lpData: Ptr,
) -> ApiResult<bool> {
    check_flags(dwFlags)?;
    if lpData.is_null() {
        set_last_error(cx, err::ERROR_INVALID_DATA)?;
        return Ok(false);
    }
    if let Some(code) = bad_name(&name) {
        set_last_error(cx, code)?;
        return Ok(false);
    }
    let block = match version_resource(cx, name.as_deref().unwrap_or_default(), dwFlags)? {
        Ok(b) => b,
        Err(code) => {
            set_last_error(cx, code)?;
            return Ok(false);
        }
    };
    let n = block.len().min(dwLen as usize);
    cx.proc.mem.write_bytes(lpData.0, &block[..n])?;
    let w_length = u32::from(u16::from_le_bytes([
        block.first().copied().unwrap_or(0),
        block.get(1).copied().unwrap_or(0),
    ]));
    if dwLen >= w_length + SIGNATURE.len() as u32 {
        cx.proc.mem.write_bytes(lpData.0 + w_length, SIGNATURE)?;
    }
    set_last_error(cx, err::ERROR_SUCCESS)?;
    Ok(true)
}

pub fn GetFileVersionInfoSizeA(
    cx: &mut Ctx,
    lptstrFilename: Ptr,
    lpdwHandle: Ptr,
) -> ApiResult<u32> {
    let name = name_a(cx, lptstrFilename)?;
    info_size(cx, FILE_VER_GET_LOCALISED, name, lpdwHandle)
}

pub fn GetFileVersionInfoSizeW(
    cx: &mut Ctx,
    lptstrFilename: Ptr,
    lpdwHandle: Ptr,
) -> ApiResult<u32> {
    let name = name_w(cx, lptstrFilename)?;
    info_size(cx, FILE_VER_GET_LOCALISED, name, lpdwHandle)
}

pub fn GetFileVersionInfoSizeExA(
    cx: &mut Ctx,
    dwFlags: u32,
    lpwstrFilename: Ptr,
    lpdwHandle: Ptr,
) -> ApiResult<u32> {
    let name = name_a(cx, lpwstrFilename)?;
    info_size(cx, dwFlags, name, lpdwHandle)
}

pub fn GetFileVersionInfoSizeExW(
    cx: &mut Ctx,
    dwFlags: u32,
    lpwstrFilename: Ptr,
    lpdwHandle: Ptr,
) -> ApiResult<u32> {
    let name = name_w(cx, lpwstrFilename)?;
    info_size(cx, dwFlags, name, lpdwHandle)
}

/// `dwHandle` is ignored, as on every Windows since the 16-bit one.
pub fn GetFileVersionInfoA(
    cx: &mut Ctx,
    lptstrFilename: Ptr,
    _dwHandle: u32,
    dwLen: u32,
    lpData: Ptr,
) -> ApiResult<bool> {
    let name = name_a(cx, lptstrFilename)?;
    info(cx, FILE_VER_GET_LOCALISED, name, dwLen, lpData)
}

pub fn GetFileVersionInfoW(
    cx: &mut Ctx,
    lptstrFilename: Ptr,
    _dwHandle: u32,
    dwLen: u32,
    lpData: Ptr,
) -> ApiResult<bool> {
    let name = name_w(cx, lptstrFilename)?;
    info(cx, FILE_VER_GET_LOCALISED, name, dwLen, lpData)
}

pub fn GetFileVersionInfoExA(
    cx: &mut Ctx,
    dwFlags: u32,
    lpwstrFilename: Ptr,
    _dwHandle: u32,
    dwLen: u32,
    lpData: Ptr,
) -> ApiResult<bool> {
    let name = name_a(cx, lpwstrFilename)?;
    info(cx, dwFlags, name, dwLen, lpData)
}

pub fn GetFileVersionInfoExW(
    cx: &mut Ctx,
    dwFlags: u32,
    lpwstrFilename: Ptr,
    _dwHandle: u32,
    dwLen: u32,
    lpData: Ptr,
) -> ApiResult<bool> {
    let name = name_w(cx, lpwstrFilename)?;
    info(cx, dwFlags, name, dwLen, lpData)
}

/// VerQueryValue on the block at `pBlock` for `path`; `ansi` converts a text
/// value into the buffer's spare room (see the module notes).
fn query_value(
    cx: &mut Ctx,
    pBlock: Ptr,
    path: Vec<u16>,
    lplpBuffer: Ptr,
    puLen: Ptr,
    ansi: bool,
) -> ApiResult<bool> {
    if pBlock.is_null() {
        return Ok(false);
    }
    let w_length = cx.proc.mem.read_u16(pBlock.0)?;
    let mut block = vec![0u8; usize::from(w_length)];
    cx.proc.mem.read_bytes(pBlock.0, &mut block)?;
    if block::is_16bit(&block) {
        return Err(ApiError::UnimplementedCase(
            "VerQueryValue on a 16-bit (Windows 3.x) version block".into(),
        ));
    }
    let Some(found) = block::query(&block, &path) else {
        if !puLen.is_null() {
            cx.proc.mem.write_u32(puLen.0, 0)?;
        }
        set_last_error(cx, ERROR_RESOURCE_TYPE_NOT_FOUND)?;
        return Ok(false);
    };
    let (at, len) = if ansi && found.text {
        // WideCharToMultiByte(CP_ACP) of the value's wValueLength units into the
        // room past the block, limited to wLength - offset bytes: an empty value or
        // one that does not fit converts to nothing (length 0), as on Windows.
        let units: Vec<u16> = block
            .get(found.offset..)
            .unwrap_or_default()
            .chunks_exact(2)
            .take(usize::from(found.len))
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let bytes = ansi_units(&units);
        let at = pBlock.0 + u32::from(w_length) + SIGNATURE.len() as u32 + found.offset as u32;
        let room = usize::from(w_length).saturating_sub(found.offset);
        let len = if bytes.is_empty() || bytes.len() > room {
            0
        } else {
            cx.proc.mem.write_bytes(at, &bytes)?;
            bytes.len() as u32
        };
        (at, len)
    } else {
        (pBlock.0 + found.offset as u32, u32::from(found.len))
    };
    cx.proc.mem.write_u32(lplpBuffer.0, at)?;
    if !puLen.is_null() {
        cx.proc.mem.write_u32(puLen.0, len)?;
    }
    Ok(true)
}

/// UTF-16 units in the ANSI code page, one byte each (unpaired surrogates and
/// characters the code page lacks become '?').
fn ansi_units(units: &[u16]) -> Vec<u8> {
    char::decode_utf16(units.iter().copied())
        .flat_map(|r| match r {
            Ok(c) => encode_ansi(c.encode_utf8(&mut [0; 4])),
            Err(_) => vec![b'?'],
        })
        .collect()
}

/// The sub-block path; NULL and "" mean the root.
fn sub_block(path: Vec<u16>) -> Vec<u16> {
    if path.is_empty() {
        vec![u16::from(b'\\')]
    } else {
        path
    }
}

pub fn VerQueryValueA(
    cx: &mut Ctx,
    pBlock: Ptr,
    lpSubBlock: Ptr,
    lplpBuffer: Ptr,
    puLen: Ptr,
) -> ApiResult<bool> {
    let path = if lpSubBlock.is_null() {
        Vec::new()
    } else {
        read_ansi(cx.proc, lpSubBlock.0)?.encode_utf16().collect()
    };
    query_value(cx, pBlock, sub_block(path), lplpBuffer, puLen, true)
}

pub fn VerQueryValueW(
    cx: &mut Ctx,
    pBlock: Ptr,
    lpSubBlock: Ptr,
    lplpBuffer: Ptr,
    puLen: Ptr,
) -> ApiResult<bool> {
    let path = if lpSubBlock.is_null() {
        Vec::new()
    } else {
        read_wide(cx.proc, lpSubBlock.0)?
    };
    query_value(cx, pBlock, sub_block(path), lplpBuffer, puLen, false)
}

/// English names of languages (the LOCALE_SLANGUAGE text of U.S. Windows, which
/// VerLanguageName returns); 0 is "Language Neutral", the documented answer for
/// an identifier Windows does not know.
const LANGUAGE_NAMES: &[(u16, &str)] = &[
    (0x0000, "Language Neutral"),
    (0x0402, "Bulgarian"),
    (0x0403, "Catalan"),
    (0x0404, "Chinese (Taiwan)"),
    (0x0405, "Czech"),
    (0x0406, "Danish"),
    (0x0407, "German (Germany)"),
    (0x0408, "Greek"),
    (0x0409, "English (United States)"),
    (0x040a, "Spanish (Traditional Sort)"),
    (0x040b, "Finnish"),
    (0x040c, "French (France)"),
    (0x040d, "Hebrew"),
    (0x040e, "Hungarian"),
    (0x040f, "Icelandic"),
    (0x0410, "Italian (Italy)"),
    (0x0411, "Japanese"),
    (0x0412, "Korean"),
    (0x0413, "Dutch (Netherlands)"),
    (0x0415, "Polish"),
    (0x0416, "Portuguese (Brazil)"),
    (0x0418, "Romanian"),
    (0x0419, "Russian"),
    (0x041a, "Croatian"),
    (0x041b, "Slovak"),
    (0x041d, "Swedish"),
    (0x041e, "Thai"),
    (0x041f, "Turkish"),
    (0x0804, "Chinese (PRC)"),
    (0x0809, "English (United Kingdom)"),
    (0x0816, "Portuguese (Portugal)"),
    (0x0c0a, "Spanish (International Sort)"),
];

/// VerLanguageName's text for `wLang`. A language missing from the table is
/// reported rather than called "Language Neutral", which Windows says only of
/// identifiers it does not know.
pub fn language_name(wLang: u32) -> ApiResult<&'static str> {
    LANGUAGE_NAMES
        .iter()
        .find(|(id, _)| u32::from(*id) == wLang)
        .map(|(_, name)| *name)
        .ok_or_else(|| {
            ApiError::UnimplementedCase(format!("VerLanguageName of language {wLang:#06x}"))
        })
}

/// The documented return: the characters placed in the buffer, without the NUL;
/// a longer name is cut to the buffer. Without a buffer, the name's length.
pub fn VerLanguageNameA(cx: &mut Ctx, wLang: u32, szLang: Ptr, cchLang: u32) -> ApiResult<u32> {
    let name = encode_ansi(language_name(wLang)?);
    if szLang.is_null() || cchLang == 0 {
        return Ok(name.len() as u32);
    }
    let n = name.len().min(cchLang as usize - 1);
    let mut out = name[..n].to_vec();
    out.push(0);
    cx.proc.mem.write_bytes(szLang.0, &out)?;
    Ok(n as u32)
}

pub fn VerLanguageNameW(cx: &mut Ctx, wLang: u32, szLang: Ptr, cchLang: u32) -> ApiResult<u32> {
    let name: Vec<u16> = language_name(wLang)?.encode_utf16().collect();
    if szLang.is_null() || cchLang == 0 {
        return Ok(name.len() as u32);
    }
    let n = name.len().min(cchLang as usize - 1);
    let mut out = name[..n].to_vec();
    out.push(0);
    write_wide(cx.proc, szLang.0, &out)?;
    Ok(n as u32)
}

/// The functions KERNEL32 exports as well.
pub fn kernel32_exports() -> Vec<ApiDef> {
    vec![
        stdcall("VerLanguageNameA", VerLanguageNameA),
        stdcall("VerLanguageNameW", VerLanguageNameW),
    ]
}

fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("GetFileVersionInfoSizeA", GetFileVersionInfoSizeA),
        stdcall("GetFileVersionInfoSizeW", GetFileVersionInfoSizeW),
        stdcall("GetFileVersionInfoSizeExA", GetFileVersionInfoSizeExA),
        stdcall("GetFileVersionInfoSizeExW", GetFileVersionInfoSizeExW),
        stdcall("GetFileVersionInfoA", GetFileVersionInfoA),
        stdcall("GetFileVersionInfoW", GetFileVersionInfoW),
        stdcall("GetFileVersionInfoExA", GetFileVersionInfoExA),
        stdcall("GetFileVersionInfoExW", GetFileVersionInfoExW),
        stdcall("VerQueryValueA", VerQueryValueA),
        stdcall("VerQueryValueW", VerQueryValueW),
    ];
    v.extend(kernel32_exports());
    v
}
