//! KERNEL32 process functions: command line, environment, startup information,
//! standard handles, exit, process/thread identity, version, system information,
//! last error, the unhandled-exception filter and debugging output.
//!
//! Process-wide kernel32 state lives in [`ProcessEnv`] (the `k32` field of
//! [`Process`]). The environment starts as `ProcessConfig::env` (nothing else is
//! added), and is kept in the order SetEnvironmentVariable maintains on Windows:
//! sorted case-insensitively by name.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr, stdcall};
use crate::objects::{CURRENT_PROCESS, CURRENT_THREAD, INVALID_HANDLE_VALUE};
use crate::process::{Process, WinVersion};
use crate::teb::{self, last_error, set_last_error};
use crate::thread::ThreadEnd;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::console::{Console, ConsoleState, Stream};
use super::misc::err;
use super::string::{copy_out_a, copy_out_w, decode_ansi, encode_ansi, read_ansi, read_wide};

/// kernel32's process-wide state, kept in [`Process::k32`].
#[derive(Default)]
pub struct ProcessEnv {
    pub heaps: super::heap::Heaps,
    pub console: ConsoleState,
    pub files: super::file::FileState,
    pub clock: super::time::VirtualClock,
    env: OnceLock<Mutex<Vec<(String, String)>>>,
    std_handles: Mutex<Option<[u32; 3]>>,
    /// Guest copies of the command line (ANSI, wide) and the STARTUPINFO strings.
    strings: OnceLock<ProcessStrings>,
    unhandled_filter: AtomicU32,
    error_mode: AtomicU32,
    /// SetFileApisToOEM was called: the A file functions use the OEM code page.
    file_apis_oem: AtomicBool,
    /// SetProcessAffinityMask's mask; 0 until set (then the system mask applies).
    affinity: AtomicU32,
    /// SetPriorityClass's class; 0 until set (NORMAL_PRIORITY_CLASS).
    pub priority_class: AtomicU32,
    /// The local (AddAtom) and global (GlobalAddAtom) atom tables.
    pub local_atoms: Mutex<super::atom::AtomTable>,
    pub global_atoms: Mutex<super::atom::AtomTable>,
    /// FindResource's handles (the resource's address) and their sizes.
    pub resource_sizes: Mutex<std::collections::HashMap<u32, u32>>,
}

#[derive(Clone, Copy, Debug)]
struct ProcessStrings {
    cmdline_a: u32,
    cmdline_w: u32,
    desktop_a: u32,
    title_a: u32,
    desktop_w: u32,
    title_w: u32,
}

/// Standard handle values: the console handles of Windows NT.
pub const STD_INPUT: u32 = 0x3;
pub const STD_OUTPUT: u32 = 0x7;
pub const STD_ERROR: u32 = 0xb;
/// The process id the guest sees when the loader put none in the TEB.
pub const DEFAULT_PROCESS_ID: u32 = 0x0000_04d0;

const STD_INPUT_HANDLE: u32 = -10i32 as u32;
const STD_OUTPUT_HANDLE: u32 = -11i32 as u32;
const STD_ERROR_HANDLE: u32 = -12i32 as u32;
const STILL_ACTIVE: u32 = 259;

// ---- command line -------------------------------------------------------------------

/// Quotes one argument so that CommandLineToArgvW / the C runtime parse it back
/// unchanged: backslashes are literal unless they precede a quote, so those runs
/// are doubled, quotes are escaped, and the whole is quoted when it has blanks.
pub fn quote_arg(a: &str) -> String {
    if !a.is_empty() && !a.contains([' ', '\t', '"', '\n', '\u{b}']) {
        return a.to_string();
    }
    let mut s = String::from("\"");
    let mut backslashes = 0usize;
    for c in a.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                s.push_str(&"\\".repeat(2 * backslashes + 1));
                s.push('"');
                backslashes = 0;
            }
            _ => {
                s.push_str(&"\\".repeat(backslashes));
                s.push(c);
                backslashes = 0;
            }
        }
    }
    s.push_str(&"\\".repeat(2 * backslashes));
    s.push('"');
    s
}

/// The command line the guest sees: its program path (quoted when it has spaces,
/// as Explorer and cmd.exe start programs) and the arguments.
pub fn command_line(proc: &Process) -> String {
    // A process CreateProcess started sees exactly the line its parent gave.
    if let Some(c) = &proc.config.child {
        return c.command_line.clone();
    }
    let prog = &proc.config.guest_path;
    let mut s = if prog.contains([' ', '\t']) {
        format!("\"{prog}\"")
    } else {
        prog.clone()
    };
    for a in &proc.config.args {
        s.push(' ');
        s.push_str(&quote_arg(a));
    }
    s
}

fn guest_alloc_bytes(proc: &Arc<Process>, bytes: &[u8]) -> ApiResult<u32> {
    let heap = super::heap::process_heap(proc)?;
    let p = heap.alloc(bytes.len() as u32, false)?;
    if p == 0 {
        return Err(ApiError::Other("process heap exhausted".into()));
    }
    proc.mem.write_bytes(p, bytes)?;
    Ok(p)
}

fn ansi_z(s: &str) -> Vec<u8> {
    let mut v = encode_ansi(s);
    v.push(0);
    v
}

fn wide_z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(|u| u.to_le_bytes())
        .collect()
}

fn strings(proc: &Arc<Process>) -> ApiResult<ProcessStrings> {
    if let Some(s) = proc.k32.strings.get() {
        return Ok(*s);
    }
    let cl = command_line(proc);
    let desktop = "WinSta0\\Default";
    let title = proc.config.guest_path.clone();
    let s = ProcessStrings {
        cmdline_a: guest_alloc_bytes(proc, &ansi_z(&cl))?,
        cmdline_w: guest_alloc_bytes(proc, &wide_z(&cl))?,
        desktop_a: guest_alloc_bytes(proc, &ansi_z(desktop))?,
        title_a: guest_alloc_bytes(proc, &ansi_z(&title))?,
        desktop_w: guest_alloc_bytes(proc, &wide_z(desktop))?,
        title_w: guest_alloc_bytes(proc, &wide_z(&title))?,
    };
    // Another thread may have won the race; its copies are the ones kept.
    let _ = proc.k32.strings.set(s);
    Ok(*proc.k32.strings.get().unwrap_or(&s))
}

pub fn GetCommandLineA(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(strings(cx.proc)?.cmdline_a)
}

pub fn GetCommandLineW(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(strings(cx.proc)?.cmdline_w)
}

// ---- environment --------------------------------------------------------------------

fn env(proc: &Process) -> MutexGuard<'_, Vec<(String, String)>> {
    proc.k32
        .env
        .get_or_init(|| Mutex::new(proc.config.env.clone()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The value of an environment variable (names compare case-insensitively).
pub fn get_env(proc: &Process, name: &str) -> Option<String> {
    env(proc)
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
}

/// Sets (`Some`) or removes (`None`) an environment variable.
pub fn set_env(proc: &Process, name: &str, value: Option<&str>) {
    let mut e = env(proc);
    let pos = e.iter().position(|(k, _)| k.eq_ignore_ascii_case(name));
    match (pos, value) {
        (Some(k), Some(v)) => e[k].1 = v.to_string(),
        (Some(k), None) => {
            e.remove(k);
        }
        (None, Some(v)) => {
            let key = name.to_ascii_uppercase();
            let at = e
                .iter()
                .position(|(k, _)| k.to_ascii_uppercase() > key)
                .unwrap_or(e.len());
            e.insert(at, (name.to_string(), v.to_string()));
        }
        (None, None) => {}
    }
}

/// The whole environment, in block order.
pub fn env_vars(proc: &Process) -> Vec<(String, String)> {
    env(proc).clone()
}

fn valid_env_name(name: &str) -> bool {
    !name.is_empty() && !name[1..].contains('=')
}

pub fn GetEnvironmentVariableA(
    cx: &mut Ctx,
    lpName: CStrPtr,
    lpBuffer: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let name = read_ansi(cx.proc, lpName.0)?;
    match get_env(cx.proc, &name) {
        Some(v) => copy_out_a(cx.proc, lpBuffer.0, nSize, &encode_ansi(&v)),
        None => {
            set_last_error(cx, err::ERROR_ENVVAR_NOT_FOUND)?;
            Ok(0)
        }
    }
}

pub fn GetEnvironmentVariableW(
    cx: &mut Ctx,
    lpName: WStrPtr,
    lpBuffer: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let name = String::from_utf16_lossy(&read_wide(cx.proc, lpName.0)?);
    match get_env(cx.proc, &name) {
        Some(v) => {
            let w: Vec<u16> = v.encode_utf16().collect();
            copy_out_w(cx.proc, lpBuffer.0, nSize, &w)
        }
        None => {
            set_last_error(cx, err::ERROR_ENVVAR_NOT_FOUND)?;
            Ok(0)
        }
    }
}

fn set_env_api(cx: &mut Ctx, name: String, value: Option<String>) -> ApiResult<bool> {
    if !valid_env_name(&name) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    if value.is_none() && get_env(cx.proc, &name).is_none() {
        set_last_error(cx, err::ERROR_ENVVAR_NOT_FOUND)?;
        return Ok(false);
    }
    set_env(cx.proc, &name, value.as_deref());
    Ok(true)
}

pub fn SetEnvironmentVariableA(cx: &mut Ctx, lpName: CStrPtr, lpValue: CStrPtr) -> ApiResult<bool> {
    let name = read_ansi(cx.proc, lpName.0)?;
    let value = if lpValue.0 == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, lpValue.0)?)
    };
    set_env_api(cx, name, value)
}

pub fn SetEnvironmentVariableW(cx: &mut Ctx, lpName: WStrPtr, lpValue: WStrPtr) -> ApiResult<bool> {
    let name = String::from_utf16_lossy(&read_wide(cx.proc, lpName.0)?);
    let value = if lpValue.0 == 0 {
        None
    } else {
        Some(String::from_utf16_lossy(&read_wide(cx.proc, lpValue.0)?))
    };
    set_env_api(cx, name, value)
}

/// The environment block text: `NAME=value` entries, each NUL-terminated, and a
/// final NUL.
fn env_block(proc: &Process) -> String {
    let mut s = String::new();
    for (k, v) in env(proc).iter() {
        s.push_str(k);
        s.push('=');
        s.push_str(v);
        s.push('\0');
    }
    if s.is_empty() {
        s.push('\0');
    }
    s.push('\0');
    s
}

/// A fresh copy of the block on the process heap (FreeEnvironmentStrings frees it).
pub fn GetEnvironmentStringsA(cx: &mut Ctx) -> ApiResult<u32> {
    guest_alloc_bytes(cx.proc, &encode_ansi(&env_block(cx.proc)))
}

pub fn GetEnvironmentStringsW(cx: &mut Ctx) -> ApiResult<u32> {
    let w: Vec<u8> = env_block(cx.proc)
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    guest_alloc_bytes(cx.proc, &w)
}

fn free_env(cx: &mut Ctx, p: u32) -> ApiResult<bool> {
    if super::heap::process_heap(cx.proc)?.free(p) {
        Ok(true)
    } else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        Ok(false)
    }
}

pub fn FreeEnvironmentStringsA(cx: &mut Ctx, penv: Ptr) -> ApiResult<bool> {
    free_env(cx, penv.0)
}

pub fn FreeEnvironmentStringsW(cx: &mut Ctx, penv: Ptr) -> ApiResult<bool> {
    free_env(cx, penv.0)
}

pub fn ExpandEnvironmentStringsA(
    cx: &mut Ctx,
    lpSrc: CStrPtr,
    lpDst: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let src = read_ansi(cx.proc, lpSrc.0)?;
    let out = encode_ansi(&expand_env(cx.proc, &src));
    // The result counts the NUL; nothing is written unless it all fits.
    let need = out.len() as u32 + 1;
    if nSize >= need && !lpDst.is_null() {
        let mut v = out;
        v.push(0);
        cx.proc.mem.write_bytes(lpDst.0, &v)?;
    }
    Ok(need)
}

/// Replaces `%NAME%` with the variable's value; unknown names stay as written.
pub fn expand_env(proc: &Process, src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(a) = rest.find('%') {
        out.push_str(&rest[..a]);
        let after = &rest[a + 1..];
        match after.find('%') {
            Some(b) => {
                let name = &after[..b];
                match get_env(proc, name) {
                    Some(v) if !name.is_empty() => {
                        out.push_str(&v);
                        rest = &after[b + 1..];
                    }
                    _ => {
                        out.push('%');
                        out.push_str(name);
                        rest = &after[b..];
                    }
                }
            }
            None => {
                out.push_str(&rest[a..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

// ---- startup info and standard handles ----------------------------------------------

/// The three standard handles (input, output, error), created on first use as
/// console objects over the host's streams.
pub fn std_handles(proc: &Process) -> [u32; 3] {
    let mut g = proc
        .k32
        .std_handles
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = *g {
        return h;
    }
    let mut t = proc.handles.lock().unwrap_or_else(|e| e.into_inner());
    t.insert_at(STD_INPUT, Arc::new(Console::new(Stream::Input)));
    t.insert_at(STD_OUTPUT, Arc::new(Console::new(Stream::Output)));
    t.insert_at(STD_ERROR, Arc::new(Console::new(Stream::Error)));
    let h = [STD_INPUT, STD_OUTPUT, STD_ERROR];
    *g = Some(h);
    h
}

fn std_index(n: u32) -> Option<usize> {
    match n {
        STD_INPUT_HANDLE => Some(0),
        STD_OUTPUT_HANDLE => Some(1),
        STD_ERROR_HANDLE => Some(2),
        _ => None,
    }
}

pub fn GetStdHandle(cx: &mut Ctx, nStdHandle: u32) -> ApiResult<u32> {
    let Some(k) = std_index(nStdHandle) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(INVALID_HANDLE_VALUE);
    };
    Ok(std_handles(cx.proc)[k])
}

pub fn SetStdHandle(cx: &mut Ctx, nStdHandle: u32, hHandle: u32) -> ApiResult<bool> {
    let Some(k) = std_index(nStdHandle) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    std_handles(cx.proc);
    let mut g = cx
        .proc
        .k32
        .std_handles
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = g.as_mut() {
        h[k] = hHandle;
    }
    Ok(true)
}

/// STARTUPINFOA and STARTUPINFOW have the same layout (68 bytes); only the string
/// pointers differ.
fn startup_info(cx: &mut Ctx, p: u32, desktop: u32, title: u32) -> ApiResult<()> {
    let [i, o, e] = std_handles(cx.proc);
    let mut b = [0u8; 68];
    let mut put = |off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put(0, 68);
    put(8, desktop);
    put(12, title);
    // STARTF_USESTDHANDLES: the handles below are the standard ones; a process
    // started with STARTF_USESHOWWINDOW keeps its parent's wShowWindow.
    let show = cx.proc.config.child.as_ref().and_then(|c| c.show_window);
    put(44, 0x100 | show.map_or(0, |_| 1));
    put(48, show.map_or(0, u32::from));
    put(56, i);
    put(60, o);
    put(64, e);
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(())
}

pub fn GetStartupInfoA(cx: &mut Ctx, lpStartupInfo: Ptr) -> ApiResult<()> {
    let s = strings(cx.proc)?;
    startup_info(cx, lpStartupInfo.0, s.desktop_a, s.title_a)
}

pub fn GetStartupInfoW(cx: &mut Ctx, lpStartupInfo: Ptr) -> ApiResult<()> {
    let s = strings(cx.proc)?;
    startup_info(cx, lpStartupInfo.0, s.desktop_w, s.title_w)
}

// ---- exit and identity -----------------------------------------------------------------

pub fn ExitProcess(_cx: &mut Ctx, uExitCode: u32) -> Outcome {
    Outcome::ExitProcess(uExitCode)
}

/// This process ends at once; a child is killed and ends with `uExitCode` (one
/// that has ended already gives ERROR_ACCESS_DENIED, as on Windows).
pub fn TerminateProcess(cx: &mut Ctx, hProcess: u32, uExitCode: u32) -> ApiResult<Outcome> {
    if super::createprocess::is_own_process(cx.proc, hProcess) {
        return Ok(Outcome::ExitProcess(uExitCode));
    }
    let e = match super::createprocess::terminate_child(cx.proc, hProcess, uExitCode) {
        Some(true) => return Ok(Outcome::Return(1)),
        Some(false) => err::ERROR_ACCESS_DENIED,
        None => err::ERROR_INVALID_HANDLE,
    };
    set_last_error(cx, e)?;
    Ok(Outcome::Return(0))
}

pub fn GetExitCodeProcess(cx: &mut Ctx, hProcess: u32, lpExitCode: Ptr) -> ApiResult<bool> {
    let code = if super::createprocess::is_own_process(cx.proc, hProcess) {
        cx.proc.exited().unwrap_or(STILL_ACTIVE)
    } else if let Some(c) = super::createprocess::child_exit_code(cx.proc, hProcess) {
        c
    } else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    cx.proc.mem.write_u32(lpExitCode.0, code)?;
    Ok(true)
}

pub fn GetCurrentProcess(_cx: &mut Ctx) -> u32 {
    CURRENT_PROCESS
}

pub fn GetCurrentThread(_cx: &mut Ctx) -> u32 {
    CURRENT_THREAD
}

pub fn process_id(cx: &Ctx) -> u32 {
    match cx.proc.mem.read_u32(cx.thread.teb + teb::PROCESS_ID) {
        Ok(pid) if pid != 0 => pid,
        _ => super::createprocess::own_process_id(cx.proc),
    }
}

pub fn GetCurrentProcessId(cx: &mut Ctx) -> u32 {
    process_id(cx)
}

pub fn GetCurrentThreadId(cx: &mut Ctx) -> u32 {
    cx.thread.tid
}

// ---- version and system information -------------------------------------------------------

/// (major, minor, build, platform id, CSD version) of a Windows release.
pub(crate) fn version_of(v: WinVersion) -> (u32, u32, u32, u32, &'static str) {
    match v {
        WinVersion::Win95 => (4, 0, 950, 1, ""),
        // Windows 98 Second Edition.
        WinVersion::Win98 => (4, 10, 2222, 1, " A "),
        WinVersion::WinMe => (4, 90, 3000, 1, " "),
        WinVersion::Nt4 => (4, 0, 1381, 2, "Service Pack 6"),
        WinVersion::Win2000 => (5, 0, 2195, 2, "Service Pack 4"),
        WinVersion::WinXp => (5, 1, 2600, 2, "Service Pack 3"),
    }
}

/// GetVersion's packed answer: minor<<8 | major in the low word; the build in the
/// high word on NT, or 0xC000 (high bit set) on Windows 9x.
pub fn packed_version(v: WinVersion) -> u32 {
    let (major, minor, build, platform, _) = version_of(v);
    let high = if platform == 1 { 0xc000 } else { build };
    (high << 16) | (minor << 8) | major
}

pub fn GetVersion(cx: &mut Ctx) -> u32 {
    packed_version(cx.proc.config.version)
}

fn version_ex(cx: &mut Ctx, p: u32, wide: bool) -> ApiResult<bool> {
    let size = cx.proc.mem.read_u32(p)?;
    let (base, ex) = if wide { (276, 284) } else { (148, 156) };
    if size != base && size != ex {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(false);
    }
    let (major, minor, build, platform, csd) = version_of(cx.proc.config.version);
    // Windows 9x puts major.minor in the high word of the build number.
    let build = if platform == 1 {
        (major << 24) | (minor << 16) | build
    } else {
        build
    };
    let mut b = vec![0u8; size as usize];
    for (k, v) in [size, major, minor, build, platform].iter().enumerate() {
        b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let csd_end = if wide {
        for (k, u) in csd.encode_utf16().enumerate() {
            b[20 + 2 * k..22 + 2 * k].copy_from_slice(&u.to_le_bytes());
        }
        20 + 256
    } else {
        b[20..20 + csd.len()].copy_from_slice(csd.as_bytes());
        20 + 128
    };
    if size == ex {
        let sp: u16 = csd
            .strip_prefix("Service Pack ")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        b[csd_end..csd_end + 2].copy_from_slice(&sp.to_le_bytes());
        // wProductType: VER_NT_WORKSTATION.
        b[csd_end + 6] = 1;
    }
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(true)
}

pub fn GetVersionExA(cx: &mut Ctx, lpVersionInformation: Ptr) -> ApiResult<bool> {
    version_ex(cx, lpVersionInformation.0, false)
}

pub fn GetVersionExW(cx: &mut Ctx, lpVersionInformation: Ptr) -> ApiResult<bool> {
    version_ex(cx, lpVersionInformation.0, true)
}

/// What the emulated CPU (a Pentium II: FPU, TSC, CX8, CMOV, MMX) has.
pub fn IsProcessorFeaturePresent(_cx: &mut Ctx, ProcessorFeature: u32) -> bool {
    const PF_COMPARE_EXCHANGE_DOUBLE: u32 = 2;
    const PF_MMX_INSTRUCTIONS_AVAILABLE: u32 = 3;
    const PF_RDTSC_INSTRUCTION_AVAILABLE: u32 = 8;
    matches!(
        ProcessorFeature,
        PF_COMPARE_EXCHANGE_DOUBLE | PF_MMX_INSTRUCTIONS_AVAILABLE | PF_RDTSC_INSTRUCTION_AVAILABLE
    )
}

/// SYSTEM_INFO (36 bytes).
pub fn GetSystemInfo(cx: &mut Ctx, lpSystemInfo: Ptr) -> ApiResult<()> {
    let mut b = [0u8; 36];
    let vals: [(usize, u32); 8] = [
        (4, winterp_core::mem::PAGE_SIZE),
        (8, crate::address_space::USER_MIN),
        (12, crate::address_space::USER_MAX),
        (16, 1),
        (20, 1),
        // PROCESSOR_INTEL_PENTIUM
        (24, 586),
        (28, crate::address_space::GRANULARITY),
        // wProcessorLevel 6, wProcessorRevision model 3 stepping 3 (Pentium II).
        (32, 6 | 0x0303 << 16),
    ];
    for (off, v) in vals {
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    cx.proc.mem.write_bytes(lpSystemInfo.0, &b)?;
    Ok(())
}

/// What a 32-bit program would see of a 64-bit host under WOW64; winterp's machine
/// is a 32-bit one, where this is exactly GetSystemInfo (PROCESSOR_ARCHITECTURE_INTEL).
pub fn GetNativeSystemInfo(cx: &mut Ctx, lpSystemInfo: Ptr) -> ApiResult<()> {
    GetSystemInfo(cx, lpSystemInfo)
}

// ---- last error -----------------------------------------------------------------------------

pub fn GetLastError(cx: &mut Ctx) -> ApiResult<u32> {
    last_error(cx)
}

pub fn SetLastError(cx: &mut Ctx, dwErrCode: u32) -> ApiResult<()> {
    set_last_error(cx, dwErrCode)
}

pub fn SetLastErrorEx(cx: &mut Ctx, dwErrCode: u32, _dwType: u32) -> ApiResult<()> {
    set_last_error(cx, dwErrCode)
}

// ---- exceptions and debugging ------------------------------------------------------------

/// The guest's top-level exception filter (SetUnhandledExceptionFilter), 0 if none.
pub fn unhandled_filter(proc: &Process) -> u32 {
    proc.k32.unhandled_filter.load(Ordering::SeqCst)
}

pub fn SetUnhandledExceptionFilter(cx: &mut Ctx, lpTopLevelExceptionFilter: u32) -> u32 {
    cx.proc
        .k32
        .unhandled_filter
        .swap(lpTopLevelExceptionFilter, Ordering::SeqCst)
}

/// Turns the end of a nested guest call into the calling API's result.
pub fn guest_call_end(end: ThreadEnd) -> ApiResult<Outcome> {
    match end {
        ThreadEnd::ProcessExit(c) => Ok(Outcome::ExitProcess(c)),
        ThreadEnd::Exited(c) => Ok(Outcome::ExitThread(c)),
        ThreadEnd::Crashed(report) => Err(ApiError::Other(report)),
        ThreadEnd::InstructionLimit => Err(ApiError::Other("instruction limit reached".into())),
    }
}

const EXCEPTION_EXECUTE_HANDLER: u32 = 1;
const EXCEPTION_CONTINUE_SEARCH: u32 = 0;

/// Runs the top-level filter if there is one. With none, or when it says
/// EXCEPTION_CONTINUE_SEARCH, the answer is EXCEPTION_EXECUTE_HANDLER: no debugger
/// is attached, so the default action (ending the process) applies.
pub fn UnhandledExceptionFilter(cx: &mut Ctx, ExceptionInfo: u32) -> ApiResult<Outcome> {
    let filter = unhandled_filter(cx.proc);
    let r = if filter == 0 {
        EXCEPTION_CONTINUE_SEARCH
    } else {
        match cx.thread.call_guest(cx.proc, filter, &[ExceptionInfo]) {
            Ok(r) => r,
            Err(end) => return guest_call_end(end),
        }
    };
    if r == EXCEPTION_CONTINUE_SEARCH {
        // Windows' default action shows the crash; winterp writes the report (code,
        // faulting instruction, module, registers, last API calls) to stderr and the
        // caller (usually the C runtime's _XcptFilter) then ends the process.
        let report = crate::seh::pointers_report(cx.proc, cx.thread.tid, ExceptionInfo)
            .unwrap_or_else(|| format!("winterp: unhandled exception (EXCEPTION_POINTERS at {ExceptionInfo:#010x} unreadable)\n"));
        cx.proc.host.stderr(report.as_bytes());
        return Ok(Outcome::Return(EXCEPTION_EXECUTE_HANDLER as u64));
    }
    Ok(Outcome::Return(r as u64))
}

pub fn IsDebuggerPresent(_cx: &mut Ctx) -> bool {
    false
}

pub fn OutputDebugStringA(cx: &mut Ctx, lpOutputString: CStrPtr) -> ApiResult<()> {
    let s = decode_ansi(&super::string::read_cbytes(cx.proc, lpOutputString.0)?);
    log::info!("OutputDebugString: {}", s.trim_end());
    Ok(())
}

pub fn OutputDebugStringW(cx: &mut Ctx, lpOutputString: WStrPtr) -> ApiResult<()> {
    let s = String::from_utf16_lossy(&read_wide(cx.proc, lpOutputString.0)?);
    log::info!("OutputDebugString: {}", s.trim_end());
    Ok(())
}

/// There is no PC speaker: the call succeeds after logging.
pub fn Beep(_cx: &mut Ctx, dwFreq: u32, dwDuration: u32) -> bool {
    log::info!("Beep({dwFreq} Hz, {dwDuration} ms)");
    true
}

pub fn GetProcessVersion(cx: &mut Ctx, ProcessId: u32) -> ApiResult<u32> {
    if ProcessId != 0 && ProcessId != process_id(cx) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    // The subsystem version of a typical program (4.0).
    Ok(0x0004_0000)
}

/// Only remembered: there are no critical-error dialog boxes to suppress.
pub fn SetErrorMode(cx: &mut Ctx, uMode: u32) -> u32 {
    cx.proc.k32.error_mode.swap(uMode, Ordering::SeqCst)
}

// ---- file API code page ---------------------------------------------------------------

/// Whether the A file functions take and give OEM (true) or ANSI (false) strings.
pub fn file_apis_oem(proc: &Process) -> bool {
    proc.k32.file_apis_oem.load(Ordering::Relaxed)
}

pub fn SetFileApisToOEM(cx: &mut Ctx) {
    cx.proc.k32.file_apis_oem.store(true, Ordering::Relaxed);
}

pub fn SetFileApisToANSI(cx: &mut Ctx) {
    cx.proc.k32.file_apis_oem.store(false, Ordering::Relaxed);
}

pub fn AreFileApisANSI(cx: &mut Ctx) -> bool {
    !file_apis_oem(cx.proc)
}

// ---- affinity and process times ---------------------------------------------------------

/// The processors GetSystemInfo reports (one), as an affinity mask.
pub const SYSTEM_AFFINITY: u32 = 1;

pub fn process_affinity(proc: &Process) -> u32 {
    match proc.k32.affinity.load(Ordering::Relaxed) {
        0 => SYSTEM_AFFINITY,
        m => m,
    }
}

pub fn GetProcessAffinityMask(
    cx: &mut Ctx,
    hProcess: u32,
    lpProcessAffinityMask: Ptr,
    lpSystemAffinityMask: Ptr,
) -> ApiResult<bool> {
    if !super::createprocess::is_own_process(cx.proc, hProcess) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    cx.proc
        .mem
        .write_u32(lpProcessAffinityMask.0, process_affinity(cx.proc))?;
    cx.proc
        .mem
        .write_u32(lpSystemAffinityMask.0, SYSTEM_AFFINITY)?;
    Ok(true)
}

/// The mask must be non-empty and within the system's processors.
pub fn SetProcessAffinityMask(
    cx: &mut Ctx,
    hProcess: u32,
    dwProcessAffinityMask: u32,
) -> ApiResult<bool> {
    if !super::createprocess::is_own_process(cx.proc, hProcess) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    if dwProcessAffinityMask == 0 || dwProcessAffinityMask & !SYSTEM_AFFINITY != 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    cx.proc
        .k32
        .affinity
        .store(dwProcessAffinityMask, Ordering::Relaxed);
    Ok(true)
}

/// CPU time the host has spent on this process, in 100 ns units (user, kernel),
/// from `/proc/self/stat` (clock ticks of USER_HZ = 100 on Linux).
fn host_cpu_times() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields after it
    // are counted from the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    const TICKS_TO_100NS: u64 = 10_000_000 / 100;
    Some((utime * TICKS_TO_100NS, stime * TICKS_TO_100NS))
}

/// (creation time, user time, kernel time) of this process in 100 ns units, as
/// GetProcessTimes reports them.
pub fn process_times(cx: &Ctx) -> (u64, u64, u64) {
    let elapsed = super::time::micros(cx) * 10;
    let created = super::time::now_filetime(cx).saturating_sub(elapsed);
    let (user, kernel) = if cx.proc.config.deterministic {
        (elapsed, 0)
    } else {
        host_cpu_times().unwrap_or((elapsed, 0))
    };
    (created, user, kernel)
}

/// Creation time is when the process started; it has not exited. User time is the
/// host CPU time of the emulator (the guest's work is all user mode, so kernel time
/// is the host's system time); in deterministic mode both come from the virtual
/// clock (all of it user time), so runs see the same values.
pub fn GetProcessTimes(
    cx: &mut Ctx,
    hProcess: u32,
    lpCreationTime: Ptr,
    lpExitTime: Ptr,
    lpKernelTime: Ptr,
    lpUserTime: Ptr,
) -> ApiResult<bool> {
    if !super::createprocess::is_own_process(cx.proc, hProcess) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    let (created, user, kernel) = process_times(cx);
    let mem = &cx.proc.mem;
    mem.write_u64(lpCreationTime.0, created)?;
    mem.write_u64(lpExitTime.0, 0)?;
    mem.write_u64(lpKernelTime.0, kernel)?;
    mem.write_u64(lpUserTime.0, user)?;
    Ok(true)
}

/// IO_COUNTERS of this process: six ULONGLONGs, the read, write and other
/// operations and then their bytes ([`super::file::IoCounters`]). Another
/// process's counters live in that process: asking for a child's is reported.
pub fn GetProcessIoCounters(cx: &mut Ctx, hProcess: u32, lpIoCounters: Ptr) -> ApiResult<bool> {
    match super::createprocess::process_target(cx.proc, hProcess) {
        super::createprocess::Target::Own => {}
        super::createprocess::Target::Child(_) => {
            return Err(ApiError::UnimplementedCase(
                "GetProcessIoCounters of a child process".into(),
            ));
        }
        super::createprocess::Target::Invalid => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            return Ok(false);
        }
    }
    let v = cx.proc.slot::<super::file::IoCounters>().snapshot();
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u64(lpIoCounters.0 + 8 * k as u32, *x)?;
    }
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetProcessIoCounters", GetProcessIoCounters),
        stdcall("SetFileApisToOEM", SetFileApisToOEM),
        stdcall("SetFileApisToANSI", SetFileApisToANSI),
        stdcall("AreFileApisANSI", AreFileApisANSI),
        stdcall("GetProcessAffinityMask", GetProcessAffinityMask),
        stdcall("SetProcessAffinityMask", SetProcessAffinityMask),
        stdcall("GetProcessTimes", GetProcessTimes),
        stdcall("GetCommandLineA", GetCommandLineA),
        stdcall("GetCommandLineW", GetCommandLineW),
        stdcall("GetEnvironmentVariableA", GetEnvironmentVariableA),
        stdcall("GetEnvironmentVariableW", GetEnvironmentVariableW),
        stdcall("SetEnvironmentVariableA", SetEnvironmentVariableA),
        stdcall("SetEnvironmentVariableW", SetEnvironmentVariableW),
        stdcall("GetEnvironmentStrings", GetEnvironmentStringsA),
        stdcall("GetEnvironmentStringsA", GetEnvironmentStringsA),
        stdcall("GetEnvironmentStringsW", GetEnvironmentStringsW),
        stdcall("FreeEnvironmentStringsA", FreeEnvironmentStringsA),
        stdcall("FreeEnvironmentStringsW", FreeEnvironmentStringsW),
        stdcall("ExpandEnvironmentStringsA", ExpandEnvironmentStringsA),
        stdcall("GetStartupInfoA", GetStartupInfoA),
        stdcall("GetStartupInfoW", GetStartupInfoW),
        stdcall("GetStdHandle", GetStdHandle),
        stdcall("SetStdHandle", SetStdHandle),
        stdcall("ExitProcess", ExitProcess),
        stdcall("TerminateProcess", TerminateProcess),
        stdcall("GetExitCodeProcess", GetExitCodeProcess),
        stdcall("GetCurrentProcess", GetCurrentProcess),
        stdcall("GetCurrentProcessId", GetCurrentProcessId),
        stdcall("GetCurrentThread", GetCurrentThread),
        stdcall("GetCurrentThreadId", GetCurrentThreadId),
        stdcall("GetVersion", GetVersion),
        stdcall("GetVersionExA", GetVersionExA),
        stdcall("GetVersionExW", GetVersionExW),
        stdcall("IsProcessorFeaturePresent", IsProcessorFeaturePresent),
        stdcall("GetSystemInfo", GetSystemInfo),
        stdcall("GetNativeSystemInfo", GetNativeSystemInfo),
        stdcall("GetLastError", GetLastError),
        stdcall("SetLastError", SetLastError),
        stdcall("SetUnhandledExceptionFilter", SetUnhandledExceptionFilter),
        stdcall("UnhandledExceptionFilter", UnhandledExceptionFilter),
        stdcall("IsDebuggerPresent", IsDebuggerPresent),
        stdcall("OutputDebugStringA", OutputDebugStringA),
        stdcall("OutputDebugStringW", OutputDebugStringW),
        stdcall("Beep", Beep),
        stdcall("GetProcessVersion", GetProcessVersion),
        stdcall("SetErrorMode", SetErrorMode),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn command_line_quoting_round_trips_through_the_crt_rules() {
        assert_eq!(quote_arg("plain"), "plain");
        assert_eq!(quote_arg(""), "\"\"");
        assert_eq!(quote_arg("a b"), "\"a b\"");
        assert_eq!(quote_arg("c\"d"), "\"c\\\"d\"");
        assert_eq!(quote_arg(r"e\"), r"e\");
        assert_eq!(quote_arg(r"x\ y\"), r#""x\ y\\""#);
        assert_eq!(quote_arg(r#"a\"b"#), r#""a\\\"b""#);
        let mut h = Harness::with_config(|c| {
            c.guest_path = r"C:\MY GAMES\RUN.EXE".into();
            c.args = vec!["-x".into(), "two words".into()];
        });
        let p = GetCommandLineA(&mut h.cx()).unwrap();
        assert_eq!(h.cstr(p), r#""C:\MY GAMES\RUN.EXE" -x "two words""#);
        assert_eq!(p, GetCommandLineA(&mut h.cx()).unwrap());
        let w = GetCommandLineW(&mut h.cx()).unwrap();
        assert_eq!(h.wstr(w), h.cstr(p));
    }

    #[test]
    fn environment_variables_and_block() {
        let mut h = Harness::with_config(|c| {
            c.env = vec![
                ("PATH".into(), r"C:\WINDOWS".into()),
                ("TEMP".into(), r"C:\TMP".into()),
            ];
        });
        let b = h.scratch(0x1000);
        h.put_cstr(b, "path");
        assert_eq!(
            GetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), Ptr(b + 0x100), 100).unwrap(),
            10
        );
        assert_eq!(h.cstr(b + 0x100), r"C:\WINDOWS");
        // Too small: the size needed including the NUL.
        assert_eq!(
            GetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), Ptr(b + 0x100), 5).unwrap(),
            11
        );
        h.put_cstr(b, "NEWVAR");
        h.put_cstr(b + 0x20, "value");
        assert_eq!(
            GetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), Ptr(b + 0x100), 100).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_ENVVAR_NOT_FOUND);
        assert!(SetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), CStrPtr(b + 0x20)).unwrap());
        let blk = GetEnvironmentStringsA(&mut h.cx()).unwrap();
        let mut raw = vec![0u8; 42];
        h.proc.mem.read_bytes(blk, &mut raw).unwrap();
        // Sorted by name: NEWVAR, PATH, TEMP, then the final NUL.
        assert_eq!(raw, b"NEWVAR=value\0PATH=C:\\WINDOWS\0TEMP=C:\\TMP\0\0");
        assert!(FreeEnvironmentStringsA(&mut h.cx(), Ptr(blk)).unwrap());
        assert!(SetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), CStrPtr(0)).unwrap());
        assert_eq!(get_env(&h.proc, "NEWVAR"), None);
        h.put_cstr(b, "A=B");
        assert!(!SetEnvironmentVariableA(&mut h.cx(), CStrPtr(b), CStrPtr(b + 0x20)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        h.put_cstr(b, "%TEMP%\\x %NOPE%");
        assert_eq!(
            ExpandEnvironmentStringsA(&mut h.cx(), CStrPtr(b), Ptr(b + 0x100), 100).unwrap(),
            16
        );
        assert_eq!(h.cstr(b + 0x100), r"C:\TMP\x %NOPE%");
    }

    #[test]
    fn version_system_info_and_identity() {
        let mut h = Harness::new();
        assert_eq!(GetVersion(&mut h.cx()), 0xc000_0a04);
        let b = h.scratch(0x1000);
        h.proc.mem.write_u32(b, 148).unwrap();
        assert!(GetVersionExA(&mut h.cx(), Ptr(b)).unwrap());
        let v: Vec<u32> = (0..5).map(|k| h.u32(b + 4 * k)).collect();
        assert_eq!(v, [148, 4, 10, 0x040a_08ae, 1]);
        assert_eq!(h.cstr(b + 20), " A ");
        h.proc.mem.write_u32(b, 100).unwrap();
        assert!(!GetVersionExA(&mut h.cx(), Ptr(b)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INSUFFICIENT_BUFFER);
        assert_eq!(packed_version(WinVersion::WinXp), 0x0a28_0105);
        assert_eq!(packed_version(WinVersion::Nt4), 0x0565_0004);
        GetSystemInfo(&mut h.cx(), Ptr(b)).unwrap();
        let s: Vec<u32> = (0..9).map(|k| h.u32(b + 4 * k)).collect();
        assert_eq!(
            s,
            [
                0,
                4096,
                0x10000,
                0x7ffe_ffff,
                1,
                1,
                586,
                0x10000,
                0x0303_0006
            ]
        );
        assert!(IsProcessorFeaturePresent(&mut h.cx(), 3));
        assert!(!IsProcessorFeaturePresent(&mut h.cx(), 6));
        assert_eq!(GetCurrentThreadId(&mut h.cx()), 0x10);
        assert_eq!(GetCurrentProcess(&mut h.cx()), 0xffff_ffff);
        assert_eq!(
            GetExitCodeProcess(&mut h.cx(), CURRENT_PROCESS, Ptr(b)).ok(),
            Some(true)
        );
        assert_eq!(h.u32(b), STILL_ACTIVE);
        SetLastError(&mut h.cx(), 1234).unwrap();
        assert_eq!(GetLastError(&mut h.cx()).unwrap(), 1234);
        assert_eq!(SetUnhandledExceptionFilter(&mut h.cx(), 0x40_1000), 0);
        assert_eq!(
            SetUnhandledExceptionFilter(&mut h.cx(), 0x40_2000),
            0x40_1000
        );
        assert_eq!(unhandled_filter(&h.proc), 0x40_2000);
        assert_eq!(ExitProcess(&mut h.cx(), 3), Outcome::ExitProcess(3));
    }

    #[test]
    fn standard_handles_and_startup_info() {
        let mut h = Harness::new();
        let out = GetStdHandle(&mut h.cx(), STD_OUTPUT_HANDLE).unwrap();
        assert_eq!(out, STD_OUTPUT);
        assert_eq!(GetStdHandle(&mut h.cx(), 5).unwrap(), INVALID_HANDLE_VALUE);
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        let b = h.scratch(0x1000);
        h.put_cstr(b, "hi");
        assert!(
            super::super::console::WriteConsoleA(&mut h.cx(), out, Ptr(b), 2, Ptr(b + 0x10), 0)
                .unwrap()
        );
        let err_h = GetStdHandle(&mut h.cx(), STD_ERROR_HANDLE).unwrap();
        assert!(
            super::super::console::WriteConsoleA(&mut h.cx(), err_h, Ptr(b), 1, Ptr(0), 0).unwrap()
        );
        assert_eq!(*h.host.out.lock().unwrap(), b"hi");
        assert_eq!(*h.host.err.lock().unwrap(), b"h");
        assert!(SetStdHandle(&mut h.cx(), STD_OUTPUT_HANDLE, err_h).unwrap());
        assert_eq!(GetStdHandle(&mut h.cx(), STD_OUTPUT_HANDLE).unwrap(), err_h);
        GetStartupInfoA(&mut h.cx(), Ptr(b)).unwrap();
        assert_eq!(h.u32(b), 68);
        assert_eq!(h.cstr(h.u32(b + 12)), r"C:\GAMES\GAME.EXE");
        assert_eq!(h.u32(b + 44), 0x100);
        assert_eq!(
            [h.u32(b + 56), h.u32(b + 60), h.u32(b + 64)],
            [STD_INPUT, err_h, STD_ERROR]
        );
    }

    #[test]
    fn affinity_masks_of_a_one_processor_system() {
        let mut h = Harness::new();
        let p = h.scratch(8);
        assert!(GetProcessAffinityMask(&mut h.cx(), CURRENT_PROCESS, Ptr(p), Ptr(p + 4)).unwrap());
        assert_eq!((h.u32(p), h.u32(p + 4)), (1, 1));
        for bad in [0, 2, 3] {
            assert!(!SetProcessAffinityMask(&mut h.cx(), CURRENT_PROCESS, bad).unwrap());
            assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        }
        assert!(SetProcessAffinityMask(&mut h.cx(), CURRENT_PROCESS, 1).unwrap());
        assert!(!GetProcessAffinityMask(&mut h.cx(), 0x4444, Ptr(p), Ptr(p + 4)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }

    #[test]
    fn file_apis_switch_between_ansi_and_oem() {
        use crate::kernel32::string::{decode_file_api, encode_file_api};
        let mut h = Harness::new();
        assert!(AreFileApisANSI(&mut h.cx()));
        // U+00FC is 0xFC in code page 1252 and 0x81 in code page 437.
        assert_eq!(decode_file_api(&h.proc, &[0xfc]), "\u{fc}");
        SetFileApisToOEM(&mut h.cx());
        assert!(!AreFileApisANSI(&mut h.cx()));
        assert_eq!(decode_file_api(&h.proc, &[0x81]), "\u{fc}");
        assert_eq!(encode_file_api(&h.proc, "\u{fc}"), [0x81]);
        SetFileApisToANSI(&mut h.cx());
        assert_eq!(encode_file_api(&h.proc, "\u{fc}"), [0xfc]);
    }

    #[test]
    fn deterministic_process_times_are_all_user_time() {
        let mut h = Harness::with_config(|c| c.deterministic = true);
        let p = h.scratch(32);
        assert!(
            GetProcessTimes(
                &mut h.cx(),
                CURRENT_PROCESS,
                Ptr(p),
                Ptr(p + 8),
                Ptr(p + 16),
                Ptr(p + 24)
            )
            .unwrap()
        );
        let now = crate::kernel32::time::now_filetime(&h.cx());
        let q = |o: u32| h.proc.mem.read_u64(p + o).unwrap();
        assert_eq!(q(8), 0, "not exited");
        assert_eq!(q(16), 0, "no kernel time");
        assert_eq!(q(0) + q(24), now, "created when the virtual clock started");
    }
}
