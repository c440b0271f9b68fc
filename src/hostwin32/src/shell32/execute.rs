//! ShellExecute(Ex) and FindExecutable: what winterp can honestly do.
//!
//! The target is resolved as Windows does: a URL (`scheme:` with a scheme of two
//! or more characters) names its protocol's class; a path is taken relative to
//! lpDirectory (else the current directory), and a bare name that is not there is
//! searched for as a program (`.exe` added when it has no extension) in the
//! Windows and system directories and the PATH. Then:
//!
//! - a missing file gives SE_ERR_FNF (ShellExecuteEx: FALSE with
//!   ERROR_FILE_NOT_FOUND, or ERROR_PATH_NOT_FOUND when its folder is missing too);
//! - a program (`.exe .com .bat .cmd .pif`) opened with the default verb would be
//!   started with CreateProcess, which winterp does not have: reported by name;
//! - anything else is looked up in HKEY_CLASSES_ROOT (`.ext` → class →
//!   `shell\<verb>\command`; folders under `Directory` and `Folder`, URLs under
//!   their scheme). winterp's registry has only what programs registered, so
//!   usually nothing is found and the answer is SE_ERR_NOASSOC
//!   (ERROR_NO_ASSOCIATION), as on a Windows without a handler for the type; a
//!   command that is found would again need a new process, and is reported.
//!
//! FindExecutable answers from the same lookup without starting anything: the
//! program itself for a program, the command's program for an associated type
//! (33, Wine's and Windows' value above 32), SE_ERR_FNF or SE_ERR_NOASSOC.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use super::pidl;
use crate::advapi32::registry::{HKEY_CLASSES_ROOT, query_string};
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::process::{expand_env, get_env};
use crate::kernel32::string::{encode_ansi, read_ansi, read_wstr, write_wide};
use crate::teb::set_last_error;
use crate::vfs::{FILE_ATTRIBUTE_DIRECTORY, MAX_PATH};

pub const SE_ERR_FNF: u32 = 2;
pub const SE_ERR_NOASSOC: u32 = 31;
/// FindExecutable's success value.
const FOUND: u32 = 33;
const ERROR_FILE_NOT_FOUND: u32 = 2;
const ERROR_NO_ASSOCIATION: u32 = 1155;

/// The types Windows starts as programs rather than through an association.
const PROGRAM_TYPES: [&str; 5] = ["exe", "com", "bat", "cmd", "pif"];

/// What a ShellExecute target turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A URL and its scheme.
    Url {
        url: String,
        scheme: String,
    },
    /// Not there: the Win32 error (file or path not found).
    Missing(u32),
    Folder(String),
    File(String),
}

/// The scheme of a URL (`http` of `http://x`); a drive letter is not one.
pub fn url_scheme(s: &str) -> Option<&str> {
    let (scheme, _) = s.split_once(':')?;
    let mut cs = scheme.chars();
    let ok = scheme.len() >= 2
        && cs.next().is_some_and(|c| c.is_ascii_alphabetic())
        && cs.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then_some(scheme)
}

/// The extension of a path's last component, lower-cased, without the dot.
pub fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['\\', '/']).next().unwrap_or(path);
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .filter(|e| !e.is_empty())
}

fn is_program(path: &str) -> bool {
    extension(path).is_some_and(|e| PROGRAM_TYPES.contains(&e.as_str()))
}

/// An existing file or folder at `path` (relative to the current directory).
fn existing(cx: &Ctx, path: &str) -> ApiResult<Result<Target, u32>> {
    let v = vfs(cx.proc)?;
    let full = match v.full_path(path) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e.win32_code())),
    };
    Ok(match v.get_attributes(&full) {
        Ok(a) if a & FILE_ATTRIBUTE_DIRECTORY != 0 => Ok(Target::Folder(full)),
        Ok(_) => Ok(Target::File(full)),
        Err(e) => Err(e.win32_code()),
    })
}

/// Resolves a target as the module notes describe.
pub fn resolve(cx: &Ctx, file: &str, directory: Option<&str>) -> ApiResult<Target> {
    let file = file.trim();
    if let Some(scheme) = url_scheme(file) {
        return Ok(Target::Url {
            url: file.to_string(),
            scheme: scheme.to_string(),
        });
    }
    let absolute = file.starts_with('\\') || file.get(1..2) == Some(":");
    let joined = match directory.filter(|d| !d.is_empty()) {
        Some(d) if !absolute => format!("{}\\{file}", d.trim_end_matches('\\')),
        _ => file.to_string(),
    };
    let first_error = match existing(cx, &joined)? {
        Ok(t) => return Ok(t),
        Err(code) => code,
    };
    // A bare name is also looked for as a program.
    if !file.contains(['\\', '/', ':']) {
        let name = if extension(file).is_some() {
            file.to_string()
        } else {
            format!("{file}.exe")
        };
        let v = vfs(cx.proc)?;
        let mut dirs = vec![v.system_dir(), v.windows_dir()];
        if let Some(path) = get_env(cx.proc, "PATH") {
            dirs.extend(
                path.split(';')
                    .filter(|d| !d.is_empty())
                    .map(str::to_string),
            );
        }
        for d in directory.into_iter().map(str::to_string).chain(dirs) {
            let candidate = format!("{}\\{name}", d.trim_end_matches('\\'));
            if let Ok(Target::File(f)) = existing(cx, &candidate)? {
                return Ok(Target::File(f));
            }
        }
    }
    Ok(Target::Missing(first_error))
}

/// The registry classes that may hold a target's verbs.
fn classes(cx: &mut Ctx, target: &Target, class: Option<&str>) -> ApiResult<Vec<String>> {
    if let Some(c) = class {
        return Ok(vec![c.to_string()]);
    }
    Ok(match target {
        Target::Url { scheme, .. } => vec![scheme.clone()],
        Target::Folder(_) => vec!["Directory".into(), "Folder".into()],
        Target::File(path) => {
            let Some(ext) = extension(path) else {
                return Ok(Vec::new());
            };
            match query_string(cx, HKEY_CLASSES_ROOT, &format!(".{ext}"), "")? {
                Some(c) if !c.is_empty() => vec![c],
                _ => Vec::new(),
            }
        }
        Target::Missing(_) => Vec::new(),
    })
}

/// The command registered for `verb` (None: the class's default verb, else
/// "open") of the first of `classes` that has one.
fn command(cx: &mut Ctx, classes: &[String], verb: Option<&str>) -> ApiResult<Option<String>> {
    for c in classes {
        let verb = match verb {
            Some(v) => v.to_string(),
            None => query_string(cx, HKEY_CLASSES_ROOT, &format!("{c}\\shell"), "")?
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "open".into()),
        };
        let key = format!("{c}\\shell\\{verb}\\command");
        if let Some(cmd) = query_string(cx, HKEY_CLASSES_ROOT, &key, "")?.filter(|c| !c.is_empty())
        {
            return Ok(Some(expand_env(cx.proc, &cmd)));
        }
    }
    Ok(None)
}

/// The program of a command line: its first, possibly quoted, word.
pub fn command_program(cmd: &str) -> &str {
    let cmd = cmd.trim_start();
    match cmd.strip_prefix('"') {
        Some(rest) => rest.split('"').next().unwrap_or(rest),
        None => cmd.split([' ', '\t']).next().unwrap_or(cmd),
    }
}

/// A ShellExecute request.
struct Request {
    verb: Option<String>,
    file: String,
    parameters: Option<String>,
    directory: Option<String>,
    class: Option<String>,
}

/// Carries out a request: the SE_ERR_ code and the Win32 error of a failure (the
/// function never succeeds without a new process, which is reported instead).
fn execute(cx: &mut Ctx, r: &Request) -> ApiResult<(u32, u32)> {
    let target = resolve(cx, &r.file, r.directory.as_deref())?;
    if let Target::Missing(code) = target {
        return Ok((SE_ERR_FNF, code));
    }
    let verb = r
        .verb
        .as_deref()
        .filter(|v| !v.is_empty())
        .map(str::to_ascii_lowercase);
    let args = r.parameters.as_deref().unwrap_or("");
    if let Target::File(path) = &target
        && r.class.is_none()
        && is_program(path)
        && verb.as_deref().is_none_or(|v| v == "open")
    {
        return Err(ApiError::UnimplementedCase(format!(
            "ShellExecute starting the program {path} {args} (winterp cannot start processes)"
        )));
    }
    let classes = classes(cx, &target, r.class.as_deref())?;
    match command(cx, &classes, verb.as_deref())? {
        Some(cmd) => Err(ApiError::UnimplementedCase(format!(
            "ShellExecute running {cmd} for {} (winterp cannot start processes)",
            r.file
        ))),
        None => {
            log::info!(
                "ShellExecute({:?}, {}): no application is associated with it",
                verb.as_deref().unwrap_or("open"),
                r.file
            );
            Ok((SE_ERR_NOASSOC, ERROR_NO_ASSOCIATION))
        }
    }
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

fn shell_execute(cx: &mut Ctx, r: Request) -> ApiResult<u32> {
    let (code, error) = execute(cx, &r)?;
    set_last_error(cx, error)?;
    Ok(code)
}

pub fn ShellExecuteW(
    cx: &mut Ctx,
    _hwnd: u32,
    lpOperation: WStrPtr,
    lpFile: WStrPtr,
    lpParameters: WStrPtr,
    lpDirectory: WStrPtr,
    _nShowCmd: i32,
) -> ApiResult<u32> {
    let r = Request {
        verb: opt_w(cx, lpOperation.0)?,
        file: opt_w(cx, lpFile.0)?.unwrap_or_default(),
        parameters: opt_w(cx, lpParameters.0)?,
        directory: opt_w(cx, lpDirectory.0)?,
        class: None,
    };
    shell_execute(cx, r)
}

pub fn ShellExecuteA(
    cx: &mut Ctx,
    _hwnd: u32,
    lpOperation: CStrPtr,
    lpFile: CStrPtr,
    lpParameters: CStrPtr,
    lpDirectory: CStrPtr,
    _nShowCmd: i32,
) -> ApiResult<u32> {
    let r = Request {
        verb: opt_a(cx, lpOperation.0)?,
        file: opt_a(cx, lpFile.0)?.unwrap_or_default(),
        parameters: opt_a(cx, lpParameters.0)?,
        directory: opt_a(cx, lpDirectory.0)?,
        class: None,
    };
    shell_execute(cx, r)
}

// SHELLEXECUTEINFO (60 bytes on 32-bit Windows).
const SEI_MASK: u32 = 4;
const SEI_VERB: u32 = 12;
const SEI_FILE: u32 = 16;
const SEI_PARAMETERS: u32 = 20;
const SEI_DIRECTORY: u32 = 24;
const SEI_INST_APP: u32 = 32;
const SEI_ID_LIST: u32 = 36;
const SEI_CLASS: u32 = 40;
const SEI_PROCESS: u32 = 56;
const SEE_MASK_CLASSNAME: u32 = 0x1;
const SEE_MASK_CLASSKEY: u32 = 0x3;
const SEE_MASK_IDLIST: u32 = 0x4;
const SEE_MASK_NOCLOSEPROCESS: u32 = 0x40;

fn shell_execute_ex(cx: &mut Ctx, sei: u32, wide: bool) -> ApiResult<bool> {
    let proc = cx.proc;
    let mask = proc.mem.read_u32(sei + SEI_MASK)?;
    let field = |cx: &Ctx, off: u32| -> ApiResult<Option<String>> {
        let p = cx.proc.mem.read_u32(sei + off)?;
        if wide { opt_w(cx, p) } else { opt_a(cx, p) }
    };
    if mask & SEE_MASK_CLASSKEY == SEE_MASK_CLASSKEY {
        return Err(ApiError::UnimplementedCase(
            "ShellExecuteEx with SEE_MASK_CLASSKEY (a class given by registry key)".into(),
        ));
    }
    let mut file = field(cx, SEI_FILE)?.unwrap_or_default();
    let id_list = proc.mem.read_u32(sei + SEI_ID_LIST)?;
    if mask & SEE_MASK_IDLIST != 0 && id_list != 0 && file.is_empty() {
        match pidl::path_of(cx, id_list)? {
            Some(p) => file = p,
            // A virtual folder opens in Explorer, which winterp does not have.
            None => {
                return finish_ex(cx, sei, mask, SE_ERR_NOASSOC, ERROR_NO_ASSOCIATION);
            }
        }
    }
    let class = if mask & SEE_MASK_CLASSNAME != 0 {
        field(cx, SEI_CLASS)?
    } else {
        None
    };
    let r = Request {
        verb: field(cx, SEI_VERB)?,
        file,
        parameters: field(cx, SEI_PARAMETERS)?,
        directory: field(cx, SEI_DIRECTORY)?,
        class,
    };
    let (code, error) = execute(cx, &r)?;
    finish_ex(cx, sei, mask, code, error)
}

/// A failed ShellExecuteEx: hInstApp holds the SE_ERR_ code, no process handle.
fn finish_ex(cx: &mut Ctx, sei: u32, mask: u32, code: u32, error: u32) -> ApiResult<bool> {
    cx.proc.mem.write_u32(sei + SEI_INST_APP, code)?;
    if mask & SEE_MASK_NOCLOSEPROCESS != 0 {
        cx.proc.mem.write_u32(sei + SEI_PROCESS, 0)?;
    }
    set_last_error(cx, error)?;
    Ok(false)
}

pub fn ShellExecuteExW(cx: &mut Ctx, pExecInfo: Ptr) -> ApiResult<bool> {
    shell_execute_ex(cx, pExecInfo.0, true)
}

pub fn ShellExecuteExA(cx: &mut Ctx, pExecInfo: Ptr) -> ApiResult<bool> {
    shell_execute_ex(cx, pExecInfo.0, false)
}

/// The program that would open `file`, and FindExecutable's return value.
fn find_executable(cx: &mut Ctx, file: &str, directory: Option<&str>) -> ApiResult<(u32, String)> {
    let target = resolve(cx, file, directory)?;
    let found = match &target {
        Target::Missing(code) => {
            set_last_error(cx, *code)?;
            return Ok((SE_ERR_FNF, String::new()));
        }
        // Not a file: FindExecutable takes no URLs.
        Target::Url { .. } => {
            set_last_error(cx, ERROR_FILE_NOT_FOUND)?;
            return Ok((SE_ERR_FNF, String::new()));
        }
        Target::File(path) if is_program(path) => Some(path.clone()),
        _ => {
            let classes = classes(cx, &target, None)?;
            command(cx, &classes, None)?.map(|c| command_program(&c).to_string())
        }
    };
    Ok(match found {
        Some(p) => (FOUND, p),
        None => {
            set_last_error(cx, ERROR_NO_ASSOCIATION)?;
            (SE_ERR_NOASSOC, String::new())
        }
    })
}

pub fn FindExecutableW(
    cx: &mut Ctx,
    lpFile: WStrPtr,
    lpDirectory: WStrPtr,
    lpResult: Ptr,
) -> ApiResult<u32> {
    let file = opt_w(cx, lpFile.0)?.unwrap_or_default();
    let dir = opt_w(cx, lpDirectory.0)?;
    let (code, result) = find_executable(cx, &file, dir.as_deref())?;
    if !lpResult.is_null() {
        let mut w: Vec<u16> = result.encode_utf16().take(MAX_PATH - 1).collect();
        w.push(0);
        write_wide(cx.proc, lpResult.0, &w)?;
    }
    Ok(code)
}

pub fn FindExecutableA(
    cx: &mut Ctx,
    lpFile: CStrPtr,
    lpDirectory: CStrPtr,
    lpResult: Ptr,
) -> ApiResult<u32> {
    let file = opt_a(cx, lpFile.0)?.unwrap_or_default();
    let dir = opt_a(cx, lpDirectory.0)?;
    let (code, result) = find_executable(cx, &file, dir.as_deref())?;
    if !lpResult.is_null() {
        let mut a = encode_ansi(&result);
        a.truncate(MAX_PATH - 1);
        a.push(0);
        cx.proc.mem.write_bytes(lpResult.0, &a)?;
    }
    Ok(code)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ShellExecuteA", ShellExecuteA),
        stdcall("ShellExecuteW", ShellExecuteW),
        stdcall("ShellExecuteExA", ShellExecuteExA),
        stdcall("ShellExecuteExW", ShellExecuteExW),
        stdcall("FindExecutableA", FindExecutableA),
        stdcall("FindExecutableW", FindExecutableW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_have_schemes_of_two_letters_or_more() {
        assert_eq!(url_scheme("http://example.com/"), Some("http"));
        assert_eq!(url_scheme("mailto:someone@example.com"), Some("mailto"));
        assert_eq!(url_scheme("ms-help+x.y:z"), Some("ms-help+x.y"));
        assert_eq!(url_scheme("C:\\readme.txt"), None);
        assert_eq!(url_scheme("readme.txt"), None);
        assert_eq!(url_scheme("1x:y"), None);
    }

    #[test]
    fn extensions_of_the_last_component() {
        assert_eq!(extension("C:\\dir.d\\README").as_deref(), None);
        assert_eq!(extension("C:\\GAME\\SETUP.EXE").as_deref(), Some("exe"));
        assert_eq!(extension("x.").as_deref(), None);
        assert!(is_program("a.Bat") && !is_program("a.txt"));
    }

    #[test]
    fn the_program_of_a_command() {
        assert_eq!(
            command_program(r#""C:\Program Files\A\a.exe" "%1""#),
            r"C:\Program Files\A\a.exe"
        );
        assert_eq!(command_program(r"notepad.exe %1"), "notepad.exe");
    }
}
