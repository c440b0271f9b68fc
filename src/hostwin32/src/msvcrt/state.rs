//! The runtime's process-wide state (exit handlers, signals, streams, file
//! descriptors, per-thread data) and the plumbing every part uses: guest memory for
//! the runtime's own objects, and calls into KERNEL32's Win32 API by name (the real
//! msvcrt.dll sits on kernel32 the same way, so files, console, environment and time
//! behave exactly as the program's own kernel32 calls see them).

use super::stdio::Io;
use crate::hle::{ApiError, ApiResult, Ctx, Outcome};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use winterp_core::mem::Prot;

/// Per-thread runtime data (msvcrt's `_tiddata`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadData {
    /// Guest block of [`BLOCK_SIZE`] bytes: errno at +0, _doserrno at +4, the
    /// `struct tm` of localtime/gmtime at [`TM`], the asctime/ctime text at
    /// [`ASCTIME`], KERNEL32 out-parameters at [`SCRATCH`].
    pub block: u32,
    pub strtok_next: u32,
    pub wcstok_next: u32,
    pub rand: u32,
}

pub const BLOCK_SIZE: u32 = 0x200;
pub const TM: u32 = 0x40;
pub const ASCTIME: u32 = 0x80;
pub const SCRATCH: u32 = 0x100;
pub const SCRATCH_SIZE: u32 = 0x100;

#[derive(Default)]
pub struct Inner {
    arena_next: u32,
    arena_end: u32,
    pub exit_handlers: Vec<u32>,
    /// Signal number -> handler (0 = SIG_DFL, 1 = SIG_IGN).
    pub signals: HashMap<i32, u32>,
    pub threads: HashMap<u32, ThreadData>,
    /// Interned constant strings in guest memory (strerror, setlocale, ...).
    pub strings: HashMap<Vec<u8>, u32>,
    k32_index: HashMap<&'static str, (usize, usize)>,
    /// `atexit` handlers already ran (exit from inside a handler does not rerun them).
    pub exiting: bool,
    pub lconv: u32,
    /// Per-thread bounce buffers for ReadFile/WriteFile (thread id -> guest address).
    pub bounce: HashMap<u32, u32>,
    /// Data exports already checked by [`data_var`].
    pub checked_vars: std::collections::HashSet<String>,
    /// GetTickCount when the runtime started (clock()).
    pub clock_start: Option<u32>,
    /// Per thread, the C++ exceptions its running catch blocks handle, innermost last.
    pub cxx_caught: HashMap<u32, Vec<super::cxx::Caught>>,
}

/// One process's C runtime.
#[derive(Default)]
pub struct Crt {
    pub inner: Mutex<Inner>,
    /// Streams and file descriptors (separately locked: stdio calls can be long).
    pub io: Mutex<Io>,
}

impl Crt {
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub fn io(&self) -> MutexGuard<'_, Io> {
        self.io.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The runtime state of `proc`, created on first use.
pub fn crt(proc: &Arc<Process>) -> Arc<Crt> {
    proc.slot::<Crt>()
}

/// Guest memory for the runtime's own objects (never freed; small and few).
pub fn arena_alloc(proc: &Arc<Process>, size: u32) -> ApiResult<u32> {
    let c = crt(proc);
    let mut st = c.lock();
    let size = size.max(1).next_multiple_of(16);
    if st.arena_end - st.arena_next < size {
        let chunk = size.next_multiple_of(0x1_0000);
        let base = proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(None, chunk, Prot::RW, "msvcrt data")
            .map_err(|e| ApiError::Other(format!("msvcrt: no memory for runtime data: {e}")))?;
        st.arena_next = base;
        st.arena_end = base + chunk;
    }
    let a = st.arena_next;
    st.arena_next += size;
    Ok(a)
}

/// Address of data export `name`, running its initialiser if the variable still
/// reads as zero. The loader initialises the data exports a program imports; one
/// reached only through an accessor (`__p___mb_cur_max`, `__iob_func`) is
/// allocated later, zero-filled, and needs this. Only for variables whose
/// initialised value is never all-zero in its first dword.
pub fn data_var(
    proc: &Arc<Process>,
    name: &str,
    init: fn(&Arc<Process>, u32) -> ApiResult<()>,
) -> ApiResult<u32> {
    let a = proc.resolve_hle("msvcrt.dll", name)?;
    let c = crt(proc);
    let mut st = c.lock();
    if !st.checked_vars.contains(name) {
        st.checked_vars.insert(name.to_string());
        drop(st);
        if proc.mem.read_u32(a)? == 0 {
            init(proc, a)?;
        }
    }
    Ok(a)
}

/// A NUL-terminated constant string in guest memory, allocated once per text.
pub fn intern(proc: &Arc<Process>, s: &[u8]) -> ApiResult<u32> {
    if let Some(&a) = crt(proc).lock().strings.get(s) {
        return Ok(a);
    }
    let a = arena_alloc(proc, s.len() as u32 + 1)?;
    super::gmem::write_cstr(&proc.mem, a, s)?;
    crt(proc).lock().strings.insert(s.to_vec(), a);
    Ok(a)
}

/// The calling thread's runtime data (allocating its guest block on first use).
pub fn thread_data(cx: &mut Ctx) -> ApiResult<ThreadData> {
    let tid = cx.thread.tid;
    if let Some(t) = crt(cx.proc).lock().threads.get(&tid) {
        return Ok(*t);
    }
    let block = arena_alloc(cx.proc, BLOCK_SIZE)?;
    let t = ThreadData {
        block,
        rand: 1,
        ..Default::default()
    };
    crt(cx.proc).lock().threads.insert(tid, t);
    Ok(t)
}

pub fn update_thread(cx: &mut Ctx, f: impl FnOnce(&mut ThreadData)) -> ApiResult<()> {
    thread_data(cx)?;
    let tid = cx.thread.tid;
    if let Some(t) = crt(cx.proc).lock().threads.get_mut(&tid) {
        f(t);
    }
    Ok(())
}

/// errno values msvcrt uses.
pub mod errno {
    pub const ENOENT: u32 = 2;
    pub const EBADF: u32 = 9;
    pub const ENOMEM: u32 = 12;
    pub const EACCES: u32 = 13;
    pub const EEXIST: u32 = 17;
    pub const EINVAL: u32 = 22;
    pub const EMFILE: u32 = 24;
    pub const ENOSPC: u32 = 28;
    pub const ESPIPE: u32 = 29;
    pub const EDOM: u32 = 33;
    pub const ERANGE: u32 = 34;
}

pub fn set_errno(cx: &mut Ctx, e: u32) -> ApiResult<()> {
    let t = thread_data(cx)?;
    cx.proc.mem.write_u32(t.block, e)?;
    Ok(())
}

/// Sets errno (and _doserrno) from a Win32 error code, as `_dosmaperr` does.
pub fn set_errno_from_win32(cx: &mut Ctx, code: u32) -> ApiResult<()> {
    use errno::*;
    let e = match code {
        2 | 3 | 15 | 18 | 53 | 67 | 123 | 161 | 206 => ENOENT,
        4 => EMFILE,
        5 | 19 | 32 | 33 | 36 | 65 | 82 | 108 | 158 => EACCES,
        6 => EBADF,
        8 | 14 => ENOMEM,
        17 | 183 | 80 => EEXIST,
        112 => ENOSPC,
        _ => EINVAL,
    };
    let t = thread_data(cx)?;
    cx.proc.mem.write_u32(t.block, e)?;
    cx.proc.mem.write_u32(t.block + 4, code)?;
    Ok(())
}

/// Calls a KERNEL32 export with raw stack arguments and returns EAX.
pub fn k32(cx: &mut Ctx, name: &'static str, args: &[u32]) -> ApiResult<u32> {
    match k32_outcome(cx, name, args)? {
        Outcome::Return(v) => Ok(v as u32),
        o => Err(ApiError::Other(format!(
            "KERNEL32.dll!{name} (called by msvcrt) ended with {o:?}"
        ))),
    }
}

/// Calls a KERNEL32 export and returns its outcome (ExitProcess, ExitThread).
pub fn k32_outcome(cx: &mut Ctx, name: &'static str, args: &[u32]) -> ApiResult<Outcome> {
    let proc: &Arc<Process> = cx.proc;
    let cached = crt(proc).lock().k32_index.get(name).copied();
    let (d, k) = match cached {
        Some(x) => x,
        None => {
            let missing = || ApiError::Unimplemented {
                dll: "KERNEL32.dll".into(),
                name: format!("{name} (needed by msvcrt)"),
            };
            let d = proc.hle_dll("kernel32").ok_or_else(missing)?;
            let k = proc.dlls[d]
                .1
                .iter()
                .position(|e| e.name == name)
                .ok_or_else(missing)?;
            crt(proc).lock().k32_index.insert(name, (d, k));
            (d, k)
        }
    };
    let def = &proc.dlls[d].1[k];
    if let Some((_, n)) = def.conv_nargs()
        && n as usize != args.len()
    {
        return Err(ApiError::Other(format!(
            "msvcrt passed {} arguments to KERNEL32.dll!{name}, which takes {n}",
            args.len()
        )));
    }
    def.call(cx, args)
}

/// [`SCRATCH_SIZE`] bytes of per-thread guest memory for KERNEL32 out-parameters
/// (valid until the next call that uses it; never across a guest callback).
pub fn scratch(cx: &mut Ctx) -> ApiResult<u32> {
    let t = thread_data(cx)?;
    Ok(t.block + SCRATCH)
}

/// Calls guest code (an atexit handler, a qsort comparator, a signal handler).
/// `Ok(Err(outcome))`: the callee ended the thread or process, and the calling API
/// must return that outcome.
pub fn call_guest(cx: &mut Ctx, f: u32, args: &[u32]) -> ApiResult<Result<u32, Outcome>> {
    use crate::thread::ThreadEnd;
    match cx.thread.call_guest(cx.proc, f, args) {
        Ok(v) => Ok(Ok(v)),
        Err(ThreadEnd::Exited(c)) => Ok(Err(Outcome::ExitThread(c))),
        Err(ThreadEnd::ProcessExit(c)) => Ok(Err(Outcome::ExitProcess(c))),
        Err(ThreadEnd::Crashed(report)) => Err(ApiError::Other(report)),
        Err(ThreadEnd::InstructionLimit) => Err(ApiError::Other(format!(
            "instruction limit reached inside a guest callback at {f:#010x}"
        ))),
    }
}
