//! KERNEL32 modules: GetModuleHandle, GetModuleFileName, LoadLibrary(Ex),
//! FreeLibrary, GetProcAddress, DisableThreadLibraryCalls, on top of the loader.
//!
//! LoadLibrary of a path loads the file name from the program's folder (or the HLE
//! DLL of that name): DLLs are only ever loaded from there. GetProcAddress of a
//! function an HLE DLL does not implement answers NULL (ERROR_PROC_NOT_FOUND), as
//! for a function that does not exist, so programs probing for optional APIs take
//! their fallback path; it is logged.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::loader::{self, ExportName, LoadError, hle_module, source::file_name_for};
use crate::teb::set_last_error;

use super::misc::err;
use super::string::{copy_truncated_a, copy_truncated_w, encode_ansi, read_ansi, read_wstr};

const ERROR_BAD_EXE_FORMAT: u32 = 193;
const ERROR_DLL_INIT_FAILED: u32 = 1114;

/// The base of the program image.
pub fn program_base(cx: &Ctx) -> Option<u32> {
    loader::state(cx.proc).program().map(|i| i.base)
}

/// The last component of a module name or path.
fn base_name(name: &str) -> &str {
    name.rsplit(['\\', '/']).next().unwrap_or(name)
}

/// The handle of a loaded module called `name` (case-insensitive; `.dll` assumed
/// without an extension). KERNEL32 is always loaded, as on Windows.
pub fn module_handle(cx: &Ctx, name: &str) -> ApiResult<Option<u32>> {
    let file = file_name_for(base_name(name));
    if let Some(img) = loader::state(cx.proc).image_named(&file) {
        return Ok(Some(img.base));
    }
    let Some(idx) = cx.proc.hle_dll(&file) else {
        return Ok(None);
    };
    if let Some(b) = hle_module::base_of(cx.proc, idx) {
        return Ok(Some(b));
    }
    if crate::process::dll_key(&file) == "kernel32" {
        let mut st = loader::state(cx.proc);
        return hle_module::ensure(cx.proc, &mut st, idx)
            .map(Some)
            .map_err(|e| ApiError::Other(e.to_string()));
    }
    Ok(None)
}

fn get_module_handle(cx: &mut Ctx, name: Option<String>) -> ApiResult<u32> {
    let h = match name {
        None => program_base(cx),
        Some(n) => module_handle(cx, &n)?,
    };
    match h {
        Some(h) => Ok(h),
        None => {
            set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
            Ok(0)
        }
    }
}

pub fn GetModuleHandleA(cx: &mut Ctx, lpModuleName: Ptr) -> ApiResult<u32> {
    let n = if lpModuleName.is_null() {
        None
    } else {
        Some(read_ansi(cx.proc, lpModuleName.0)?)
    };
    get_module_handle(cx, n)
}

pub fn GetModuleHandleW(cx: &mut Ctx, lpModuleName: Ptr) -> ApiResult<u32> {
    let n = if lpModuleName.is_null() {
        None
    } else {
        Some(read_wstr(cx.proc, lpModuleName.0)?)
    };
    get_module_handle(cx, n)
}

/// The guest path of the module at `h` (NULL: the program).
pub fn module_path(cx: &Ctx, h: u32) -> Option<String> {
    let st = loader::state(cx.proc);
    let img = if h == 0 { st.program() } else { st.image(h) };
    if let Some(img) = img {
        return Some(img.path.clone());
    }
    drop(st);
    if h == 0 {
        return Some(cx.proc.config.guest_path.clone());
    }
    let idx = hle_module::dll_of(cx.proc, h)?;
    Some(format!(
        "{}{}",
        hle_module::system_dir(cx.proc.config.version),
        cx.proc.dlls[idx].0
    ))
}

/// Truncated copies return nSize and set ERROR_INSUFFICIENT_BUFFER.
fn finish_copy(cx: &mut Ctx, written: u32, len: usize, nSize: u32) -> ApiResult<u32> {
    if len >= nSize as usize {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(nSize);
    }
    Ok(written)
}

pub fn GetModuleFileNameA(
    cx: &mut Ctx,
    hModule: u32,
    lpFilename: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let Some(p) = module_path(cx, hModule) else {
        set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
        return Ok(0);
    };
    let b = encode_ansi(&p);
    let n = copy_truncated_a(cx.proc, lpFilename.0, nSize, &b)?;
    finish_copy(cx, n, b.len(), nSize)
}

pub fn GetModuleFileNameW(
    cx: &mut Ctx,
    hModule: u32,
    lpFilename: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let Some(p) = module_path(cx, hModule) else {
        set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
        return Ok(0);
    };
    let w: Vec<u16> = p.encode_utf16().collect();
    let n = copy_truncated_w(cx.proc, lpFilename.0, nSize, &w)?;
    finish_copy(cx, n, w.len(), nSize)
}

fn load(cx: &mut Ctx, name: String, flags: u32) -> ApiResult<Outcome> {
    const DONT_RESOLVE_DLL_REFERENCES: u32 = 0x1;
    const LOAD_LIBRARY_AS_DATAFILE: u32 = 0x2;
    let file = base_name(name.trim_end()).to_string();
    // A data file (resource-only use, as Delphi's VCL looks for its language
    // resource DLLs): a system DLL loads as usual; a file that is not there fails as
    // on Windows; mapping an existing file as data is not implemented yet.
    if flags & LOAD_LIBRARY_AS_DATAFILE != 0 && cx.proc.hle_dll(&file).is_none() {
        let path = name.trim_end().to_string();
        let with_ext = if base_name(&path).contains('.') {
            path.clone()
        } else {
            format!("{path}.dll")
        };
        if super::file::vfs(cx.proc)?
            .get_attributes(&with_ext)
            .is_err()
        {
            // Opened as a file, so a missing one is ERROR_FILE_NOT_FOUND (what
            // Windows and Wine report), not the module loader's ERROR_MOD_NOT_FOUND.
            set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
            return Ok(Outcome::Return(0));
        }
        return Err(ApiError::UnimplementedCase(format!(
            "LoadLibraryEx({with_ext}) as a data file"
        )));
    }
    if flags & DONT_RESOLVE_DLL_REFERENCES != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "LoadLibraryEx: flags {flags:#x} (unresolved references)"
        )));
    }
    if file.is_empty() {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(Outcome::Return(0));
    }
    let r = match loader::load_library(cx.proc, cx.thread, &file) {
        Err(LoadError::NotFound { name: not_found }) => {
            match search_folders(cx, name.trim_end(), &file)? {
                Some((guest, host)) => loader::load_library_file(cx.proc, cx.thread, &host, &guest),
                None => Err(LoadError::NotFound { name: not_found }),
            }
        }
        r => r,
    };
    match r {
        Ok(h) => Ok(Outcome::Return(h as u64)),
        Err(LoadError::GuestEnded { end, .. }) => super::process::guest_call_end(end),
        Err(e) => {
            log::info!("LoadLibrary({name}): {e}");
            let code = match e {
                LoadError::NotFound { .. } => err::ERROR_MOD_NOT_FOUND,
                LoadError::InitFailed { .. } => ERROR_DLL_INIT_FAILED,
                LoadError::Io { .. } => err::ERROR_FILE_NOT_FOUND,
                _ => ERROR_BAD_EXE_FORMAT,
            };
            set_last_error(cx, code)?;
            Ok(Outcome::Return(0))
        }
    }
}

/// Where Windows looks for a DLL that is neither beside the program nor one of the
/// system DLLs winterp provides: a name with a path is that file; a bare name is
/// looked for in the system folder, the Windows folder and the current folder, in
/// that order (the loader has already tried the program's folder). Answers the
/// file's guest path and its host file.
fn search_folders(
    cx: &Ctx,
    name: &str,
    file: &str,
) -> ApiResult<Option<(String, std::path::PathBuf)>> {
    let vfs = super::file::vfs(cx.proc)?;
    let candidates: Vec<String> = if name.contains(['\\', '/']) {
        let with_ext = if base_name(name).contains('.') {
            name.to_string()
        } else {
            format!("{name}.dll")
        };
        vec![with_ext]
    } else {
        [vfs.system_dir(), vfs.windows_dir(), vfs.current_dir()]
            .iter()
            .map(|d| format!("{}\\{}", d.trim_end_matches('\\'), file_name_for(file)))
            .collect()
    };
    Ok(candidates.iter().find_map(|c| vfs.host_file(c).ok()))
}

pub fn LoadLibraryA(cx: &mut Ctx, lpLibFileName: Ptr) -> ApiResult<Outcome> {
    let n = read_ansi(cx.proc, lpLibFileName.0)?;
    load(cx, n, 0)
}

pub fn LoadLibraryW(cx: &mut Ctx, lpLibFileName: Ptr) -> ApiResult<Outcome> {
    let n = read_wstr(cx.proc, lpLibFileName.0)?;
    load(cx, n, 0)
}

pub fn LoadLibraryExA(
    cx: &mut Ctx,
    lpLibFileName: Ptr,
    _hFile: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    let n = read_ansi(cx.proc, lpLibFileName.0)?;
    load(cx, n, dwFlags)
}

pub fn LoadLibraryExW(
    cx: &mut Ctx,
    lpLibFileName: Ptr,
    _hFile: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    let n = read_wstr(cx.proc, lpLibFileName.0)?;
    load(cx, n, dwFlags)
}

pub fn FreeLibrary(cx: &mut Ctx, hLibModule: u32) -> ApiResult<Outcome> {
    match loader::free_library(cx.proc, cx.thread, hLibModule) {
        Ok(true) => Ok(Outcome::Return(1)),
        Ok(false) => {
            set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
            Ok(Outcome::Return(0))
        }
        Err(LoadError::GuestEnded { end, .. }) => super::process::guest_call_end(end),
        Err(e) => Err(ApiError::Other(format!("FreeLibrary: {e}"))),
    }
}

pub fn GetProcAddress(cx: &mut Ctx, hModule: u32, lpProcName: Ptr) -> ApiResult<u32> {
    let name = if lpProcName.0 >> 16 == 0 {
        ExportName::Ordinal(lpProcName.0 as u16)
    } else {
        ExportName::Name(
            String::from_utf8_lossy(&super::string::read_cbytes(cx.proc, lpProcName.0)?)
                .into_owned(),
        )
    };
    let module = if hModule == 0 {
        match program_base(cx) {
            Some(b) => b,
            None => {
                set_last_error(cx, err::ERROR_MOD_NOT_FOUND)?;
                return Ok(0);
            }
        }
    } else {
        hModule
    };
    match loader::resolve_export(cx.proc, module, &name) {
        Some(a) => Ok(a),
        None => {
            if let Some(idx) = hle_module::dll_of(cx.proc, module) {
                log::info!(
                    "GetProcAddress: {}!{name} is not an export of the real DLL; answering NULL",
                    cx.proc.dlls[idx].0
                );
            }
            set_last_error(cx, err::ERROR_PROC_NOT_FOUND)?;
            Ok(0)
        }
    }
}

pub fn DisableThreadLibraryCalls(cx: &mut Ctx, hLibModule: u32) -> ApiResult<bool> {
    if loader::disable_thread_library_calls(cx.proc, hLibModule)
        || hle_module::dll_of(cx.proc, hLibModule).is_some()
    {
        return Ok(true);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(false)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetModuleHandleA", GetModuleHandleA),
        stdcall("GetModuleHandleW", GetModuleHandleW),
        stdcall("GetModuleFileNameA", GetModuleFileNameA),
        stdcall("GetModuleFileNameW", GetModuleFileNameW),
        stdcall("LoadLibraryA", LoadLibraryA),
        stdcall("LoadLibraryW", LoadLibraryW),
        stdcall("LoadLibraryExA", LoadLibraryExA),
        stdcall("LoadLibraryExW", LoadLibraryExW),
        stdcall("FreeLibrary", FreeLibrary),
        stdcall("GetProcAddress", GetProcAddress),
        stdcall("DisableThreadLibraryCalls", DisableThreadLibraryCalls),
    ]
}
