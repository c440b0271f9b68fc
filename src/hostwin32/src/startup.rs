//! Process and thread start-up: reads and maps the program and its DLLs, builds the
//! PEB and process parameters, creates threads (TEB, stack, implicit TLS), runs
//! TLS callbacks and DllMain, and points the main thread at the entry point.
//!
//! Memory layout choices: the PEB and TEBs are placed from [`SYSTEM_HINT`] up (below
//! the HLE thunks; Windows keeps them near the top of user space too), stacks
//! wherever there is room (usually low, as on Windows). A stack is reserved per
//! SizeOfStackReserve and committed in full — simpler than growing it through a
//! guard page, and host memory is only touched where the guest writes. There is no
//! guard page, so a stack overflow is an access violation below the stack.

use crate::hle_dlls;
use crate::host::Host;
use crate::loader::session::Session;
use crate::loader::source::read_file;
use crate::loader::{DllSource, FolderDlls, LoadError, ThreadRec, hle_module, init, state, tls};
use crate::process::{Process, ProcessConfig};
use crate::teb;
use crate::thread::GuestThread;
use std::sync::Arc;
use winterp_core::cpu::ESP;
use winterp_core::mem::Prot;

/// Stack reserve when the image says 0.
pub const DEFAULT_STACK_RESERVE: u32 = 1 << 20;
/// Smallest and largest stack handed out.
pub const MIN_STACK: u32 = 64 << 10;
pub const MAX_STACK: u32 = 256 << 20;
/// PEB and TEBs are placed from here up.
pub const SYSTEM_HINT: u32 = 0x7f00_0000;
/// Bytes left unused at the top of a new stack (Windows starts a thread a little
/// below the top, too).
const STACK_TOP_GAP: u32 = 16;
/// Size of the PEB page (the PEB proper is 0x210 bytes on XP).
const PEB_PAGE: u32 = 0x1000;
/// Size of RTL_USER_PROCESS_PARAMETERS on XP (the strings follow it).
const PARAMS_SIZE: u32 = 0x2a0;

/// Starts the program of `config`: [`prepare`], then [`initialize`]. The returned
/// thread is ready to [`GuestThread::run`] from the entry point; when it returns,
/// its EAX is the exit code.
pub fn start(
    config: ProcessConfig,
    host: Arc<dyn Host>,
) -> Result<(Arc<Process>, GuestThread), LoadError> {
    let (proc, mut thread) = prepare(config, host)?;
    initialize(&proc, &mut thread)?;
    Ok((proc, thread))
}

/// Creates the process with [`hle_dlls`], reads the program (host path) and maps it
/// with its DLLs ([`load_program`]). DLLs are looked up in the program's host
/// folder. Runs no guest code.
pub fn prepare(
    config: ProcessConfig,
    host: Arc<dyn Host>,
) -> Result<(Arc<Process>, GuestThread), LoadError> {
    let bytes = read_file(&config.program)?;
    let dir = config
        .program
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    let dir = if dir.as_os_str().is_empty() {
        std::path::PathBuf::from(".")
    } else {
        dir
    };
    let proc = Process::new(config, host, &hle_dlls())?;
    let thread = load_program(&proc, &bytes, Arc::new(FolderDlls::new(dir)))?;
    Ok((proc, thread))
}

/// Maps the program `bytes` (guest path from the process config) into `proc` with
/// its imports (DLLs from `dlls`, then the HLE DLLs), initialises HLE data
/// exports, creates the PEB and the main thread. Runs no guest code.
pub fn load_program(
    proc: &Arc<Process>,
    bytes: &[u8],
    dlls: Arc<dyn DllSource>,
) -> Result<GuestThread, LoadError> {
    let guest_path = proc.config.guest_path.clone();
    let (guest_dir, file_name) = match guest_path.rfind(['\\', '/']) {
        Some(k) => (
            guest_path[..=k].to_string(),
            guest_path[k + 1..].to_string(),
        ),
        None => (String::new(), guest_path.clone()),
    };
    let file_name = if file_name.is_empty() {
        proc.config
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "PROGRAM.EXE".to_string())
    } else {
        file_name
    };
    let (base, reserve) = {
        let mut guard = state(proc);
        let st = &mut *guard;
        st.source = Some(dlls);
        st.guest_dir = guest_dir;
        // KERNEL32 is loaded in every Win32 process, imported or not.
        if let Some(k) = proc.hle_dll("KERNEL32.dll") {
            hle_module::ensure(proc, st, k)?;
        }
        let mut s = Session::new(proc, st, true);
        let base = s.load_image(bytes, &file_name, &guest_path, true)?;
        let img = st.image(base).cloned().ok_or_else(|| LoadError::NotFound {
            name: file_name.clone(),
        })?;
        if img.entry == 0 {
            return Err(LoadError::BadHeader {
                name: file_name,
                what: "the program has no entry point".into(),
            });
        }
        let reserve = stack_reserve(&file_name, img.stack_reserve)?;
        st.stack_reserve = reserve;
        proc.init_new_data_exports(&mut st.data_inited)
            .map_err(|e| LoadError::api(&file_name, e))?;
        (base, reserve)
    };
    let peb = create_peb(proc, base)?;
    state(proc).peb = peb;
    create_thread(proc, reserve)
}

/// Runs DLL_PROCESS_ATTACH (TLS callbacks and DllMain of the DLLs in dependency
/// order, then the program's TLS callbacks) on the main thread and points it at
/// the program's entry point, which takes no arguments and returns into the
/// thread-exit sentinel.
pub fn initialize(proc: &Arc<Process>, thread: &mut GuestThread) -> Result<(), LoadError> {
    init::attach_pending(proc, thread, 1)?;
    let (name, entry) = {
        let st = state(proc);
        let p = st.program().ok_or_else(|| LoadError::NotFound {
            name: proc.config.guest_path.clone(),
        })?;
        (p.name.clone(), p.entry)
    };
    // Windows runs every thread inside a top-level SEH frame (BaseProcessStart).
    crate::seh::install_top_frame(thread, proc)
        .map_err(|f| f.end_thread(proc))
        .and_then(|()| thread.start_at(entry, &[]))
        .map_err(|end| LoadError::GuestEnded {
            name,
            what: "setting up the entry point",
            end,
        })
}

/// CreateThread's thread: a new thread id, TEB, stack and implicit TLS data,
/// starting at `start` with `param` as its one argument; returning from `start`
/// ends the thread with EAX as its exit code. `stack_size` is CreateThread's
/// dwStackSize (0: the program's SizeOfStackReserve; larger values are rounded up
/// to 1 MiB, as Windows does when the size exceeds the default reserve).
///
/// The caller runs [`init::thread_attach`] on the new thread before its start
/// routine, [`init::thread_detach`] when it ends, then [`release_thread`].
pub fn new_thread(
    proc: &Arc<Process>,
    start: u32,
    param: u32,
    stack_size: u32,
) -> Result<GuestThread, LoadError> {
    let default = match state(proc).stack_reserve {
        0 => DEFAULT_STACK_RESERVE,
        r => r,
    };
    let reserve = if stack_size > default {
        if stack_size > MAX_STACK {
            return Err(LoadError::BadHeader {
                name: "CreateThread".into(),
                what: format!("stack size {stack_size:#x} exceeds {MAX_STACK:#x}"),
            });
        }
        crate::address_space::round_up(stack_size, 1 << 20)
    } else {
        default
    };
    let mut t = create_thread(proc, reserve)?;
    if let Err(end) = crate::seh::install_top_frame(&mut t, proc)
        .map_err(|f| f.end_thread(proc))
        .and_then(|()| t.start_at(start, &[param]))
    {
        release_thread(proc, t.tid);
        return Err(LoadError::GuestEnded {
            name: "CreateThread".into(),
            what: "setting up the start routine",
            end,
        });
    }
    Ok(t)
}

/// Frees the TEB, stack and TLS data of thread `tid` (after it has ended).
pub fn release_thread(proc: &Process, tid: u32) {
    let Some(rec) = state(proc).threads.remove(&tid) else {
        return;
    };
    let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    for b in [rec.teb, rec.stack]
        .into_iter()
        .chain(rec.tls_blocks.iter().copied())
    {
        if b != 0
            && let Err(e) = vm.release(b)
        {
            log::warn!("releasing thread {tid}'s memory at {b:#010x}: {e}");
        }
    }
}

fn stack_reserve(name: &str, from_header: u32) -> Result<u32, LoadError> {
    if from_header > MAX_STACK {
        return Err(LoadError::BadHeader {
            name: name.to_string(),
            what: format!("SizeOfStackReserve {from_header:#x} exceeds {MAX_STACK:#x}"),
        });
    }
    Ok(match from_header {
        0 => DEFAULT_STACK_RESERVE,
        r => crate::address_space::round_up(r.max(MIN_STACK), crate::address_space::GRANULARITY),
    })
}

/// Reserves near [`SYSTEM_HINT`] (or anywhere) and commits `size` bytes.
fn alloc_system(proc: &Process, size: u32, tag: &str) -> Result<u32, LoadError> {
    let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    let base = match vm.reserve_above(SYSTEM_HINT, size, Prot::RW, tag) {
        Ok(b) => b,
        Err(_) => vm
            .reserve(None, size, Prot::RW, tag)
            .map_err(|e| LoadError::vm(tag, e))?,
    };
    vm.commit(base, size, Prot::RW)
        .map_err(|e| LoadError::vm(tag, e))?;
    Ok(base)
}

/// A thread's TEB, stack and TLS data, and a [`GuestThread`] on them with ESP near
/// the top of the stack.
fn create_thread(proc: &Arc<Process>, reserve: u32) -> Result<GuestThread, LoadError> {
    let tid = proc.alloc_thread_id();
    let teb = alloc_system(proc, teb::TEB_SIZE, &format!("TEB tid {tid}"))?;
    let mut rec = ThreadRec {
        teb,
        stack: 0,
        tls_array: 0,
        tls_cap: 0,
        tls_blocks: Vec::new(),
    };
    let built = (|| {
        let tag = format!("stack tid {tid}");
        rec.stack = {
            let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
            let b = vm
                .reserve(None, reserve, Prot::RW, &tag)
                .map_err(|e| LoadError::vm(&tag, e))?;
            vm.commit(b, reserve, Prot::RW)
                .map_err(|e| LoadError::vm(&tag, e))?;
            b
        };
        let top = rec.stack + reserve;
        let peb = state(proc).peb;
        let fields = [
            (teb::EXCEPTION_LIST, 0xffff_ffff),
            (teb::STACK_BASE, top),
            (teb::STACK_LIMIT, rec.stack),
            (teb::SELF, teb),
            (
                teb::PROCESS_ID,
                crate::kernel32::createprocess::own_process_id(proc),
            ),
            (teb::THREAD_ID, tid),
            (teb::PEB, peb),
        ];
        for (off, v) in fields {
            proc.mem
                .write_bytes(teb + off, &u32::to_le_bytes(v))
                .map_err(|f| LoadError::fault("TEB", f))?;
        }
        let st = state(proc);
        tls::setup_thread(proc, &st, tid, &mut rec)?;
        Ok::<u32, LoadError>(top)
    })();
    let top = match built {
        Ok(top) => top,
        Err(e) => {
            state(proc).threads.insert(tid, rec);
            release_thread(proc, tid);
            return Err(e);
        }
    };
    state(proc).threads.insert(tid, rec);
    let mut t = GuestThread::new(proc, tid, teb);
    t.cpu.regs[ESP] = top - STACK_TOP_GAP;
    proc.counters
        .threads
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(t)
}

/// UTF-16LE bytes of `s` followed by a NUL.
fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain(std::iter::once(0))
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// The PEB and RTL_USER_PROCESS_PARAMETERS (Windows NT layout): image base,
/// process parameters with the image path, command line, current directory, DLL
/// path and environment; OS version fields for the configured Windows. The process
/// heap (PEB+0x18), the loader data (PEB+0x0C) and the standard handles in the
/// parameters are left 0 for KERNEL32 to fill.
fn create_peb(proc: &Arc<Process>, image_base: u32) -> Result<u32, LoadError> {
    let cfg = &proc.config;
    let dir = state(proc).guest_dir.clone();
    let sysdir = hle_module::system_dir(cfg.version);
    let dll_path = format!(
        "{};{}",
        dir.trim_end_matches('\\'),
        sysdir.trim_end_matches('\\')
    );
    let mut env: Vec<u8> = Vec::new();
    for (k, v) in &cfg.env {
        env.extend(utf16z(&format!("{k}={v}")));
    }
    env.extend([0, 0]);
    if cfg.env.is_empty() {
        env.extend([0, 0]);
    }
    let strings: [Vec<u8>; 4] = [
        utf16z(&dir),
        utf16z(&dll_path),
        utf16z(&cfg.guest_path),
        utf16z(&crate::kernel32::process::command_line(proc)),
    ];
    let strings_len: usize = strings.iter().map(Vec::len).sum();
    let params_len = PARAMS_SIZE + strings_len as u32;
    let total = PEB_PAGE + params_len + env.len() as u32;
    let peb = alloc_system(proc, total, "PEB")?;
    let params = peb + PEB_PAGE;

    let mut p = vec![0u8; params_len as usize];
    let w32 = |b: &mut Vec<u8>, o: u32, v: u32| {
        b[o as usize..o as usize + 4].copy_from_slice(&v.to_le_bytes())
    };
    w32(&mut p, 0x00, params_len); // MaximumLength
    w32(&mut p, 0x04, params_len); // Length
    w32(&mut p, 0x08, 1); // Flags: RTL_USER_PROCESS_PARAMETERS_NORMALIZED
    w32(&mut p, 0x6c, 1); // ShowWindowFlags: SW_SHOWNORMAL
    // UNICODE_STRINGs: CurrentDirectory.DosPath, DllPath, ImagePathName, CommandLine.
    let mut at = PARAMS_SIZE;
    for (s, off) in strings.iter().zip([0x24u32, 0x30, 0x38, 0x40]) {
        let len = (s.len() - 2).min(0xfffc) as u32;
        w32(&mut p, off, len | ((len + 2) << 16));
        w32(&mut p, off + 4, params + at);
        p[at as usize..at as usize + s.len()].copy_from_slice(s);
        at += s.len() as u32;
    }
    let env_at = params + params_len;
    w32(&mut p, 0x48, env_at); // Environment
    let write = |addr: u32, bytes: &[u8]| {
        proc.mem
            .write_bytes(addr, bytes)
            .map_err(|f| LoadError::fault("PEB", f))
    };
    write(params, &p)?;
    write(env_at, &env)?;

    let v = crate::kernel32::process::packed_version(cfg.version);
    let nt = v & 0x8000_0000 == 0;
    let process_heap = crate::kernel32::heap::process_heap(proc)
        .map_err(|e| LoadError::api("process heap", e))?
        .handle;
    let fields: [(u32, u32); 8] = [
        (teb::peb::IMAGE_BASE, image_base),
        (teb::peb::PROCESS_PARAMETERS, params),
        (0x64, 1),                            // NumberOfProcessors
        (0xa4, v & 0xff),                     // OSMajorVersion
        (0xa8, (v >> 8) & 0xff),              // OSMinorVersion
        (0xac, if nt { v >> 16 } else { 0 }), // OSBuildNumber (+ OSCSDVersion 0)
        (0xb0, if nt { 2 } else { 1 }),       // OSPlatformId
        // Programs built with Wine's headers read GetProcessHeap() from here.
        (teb::peb::PROCESS_HEAP, process_heap),
    ];
    for (off, val) in fields {
        write(peb + off, &val.to_le_bytes())?;
    }
    Ok(peb)
}
