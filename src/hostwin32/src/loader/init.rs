//! Running guest initialisation code — TLS callbacks and DllMain — for process and
//! thread attach/detach, and LoadLibrary/FreeLibrary.
//!
//! Order (as the NT loader does it): on attach, images in initialisation order
//! (every DLL after the DLLs it imports, the program's own TLS callbacks last),
//! each image's TLS callbacks before its DllMain; on detach the reverse order of
//! images. The loader lock is never held while guest code runs, so DllMain may
//! call LoadLibrary/GetProcAddress.

use super::session::{Session, is_known_dll};
use super::source::{DllFile, file_name_for, read_file};
use super::{LoadError, TlsModule, hle_module, state, tls};
use crate::process::Process;
use crate::thread::{GuestThread, ThreadEnd};
use std::path::Path;
use std::sync::Arc;

pub const DLL_PROCESS_DETACH: u32 = 0;
pub const DLL_PROCESS_ATTACH: u32 = 1;
pub const DLL_THREAD_ATTACH: u32 = 2;
pub const DLL_THREAD_DETACH: u32 = 3;

/// What to call for one image.
struct Step {
    base: u32,
    name: String,
    /// DllMain (0 for the program or a DLL without an entry point).
    dll_main: u32,
    tls: Option<TlsModule>,
}

fn step_for(st: &super::LoaderState, base: u32, with_dll_main: bool) -> Option<Step> {
    let img = st.image(base)?;
    Some(Step {
        base,
        name: img.name.clone(),
        dll_main: if img.is_dll && with_dll_main {
            img.entry
        } else {
            0
        },
        tls: img
            .tls
            .and_then(|i| st.tls.get(i as usize).cloned().flatten()),
    })
}

/// Calls the TLS callbacks then DllMain of `s` with `reason`. Returns DllMain's
/// result (TRUE if there is none).
fn run_step(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    s: &Step,
    reason: u32,
    reserved: u32,
) -> Result<u32, ThreadEnd> {
    if let Some(m) = &s.tls {
        for cb in tls::callbacks(proc, m) {
            thread.call_guest(proc, cb, &[s.base, reason, reserved])?;
        }
    }
    if s.dll_main != 0 {
        return thread.call_guest(proc, s.dll_main, &[s.base, reason, reserved]);
    }
    Ok(1)
}

/// Delivers DLL_PROCESS_ATTACH to every image not attached yet, in initialisation
/// order. `reserved` is DllMain's lpvReserved: non-NULL for DLLs loaded at process
/// start, NULL for LoadLibrary. Fails on the first DllMain that returns FALSE.
pub(crate) fn attach_pending(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    reserved: u32,
) -> Result<(), LoadError> {
    loop {
        let step = {
            let mut st = state(proc);
            let Some(base) = st
                .init_order
                .iter()
                .copied()
                .find(|b| st.image(*b).is_some_and(|i| !i.attached))
            else {
                return Ok(());
            };
            if let Some(img) = st.image_mut(base) {
                img.attached = true;
            }
            step_for(&st, base, true)
        };
        let Some(s) = step else { continue };
        match run_step(proc, thread, &s, DLL_PROCESS_ATTACH, reserved) {
            Ok(0) if s.dll_main != 0 => return Err(LoadError::InitFailed { name: s.name }),
            Ok(_) => {}
            Err(end) => {
                return Err(LoadError::GuestEnded {
                    name: s.name,
                    what: "DLL_PROCESS_ATTACH",
                    end,
                });
            }
        }
    }
}

/// Steps for the attached images, in initialisation order.
fn attached_steps(proc: &Process, thread_calls_only: bool) -> Vec<Step> {
    let st = state(proc);
    st.init_order
        .iter()
        .filter_map(|&b| {
            let img = st.image(b)?;
            if !img.attached {
                return None;
            }
            step_for(&st, b, !thread_calls_only || img.thread_calls)
        })
        .collect()
}

/// DLL_THREAD_ATTACH for a new thread, on that thread before its start routine:
/// TLS callbacks and DllMain of every attached image (DllMain skipped for DLLs that
/// called DisableThreadLibraryCalls).
pub fn thread_attach(proc: &Arc<Process>, thread: &mut GuestThread) -> Result<(), ThreadEnd> {
    for s in attached_steps(proc, true) {
        run_step(proc, thread, &s, DLL_THREAD_ATTACH, 0)?;
    }
    Ok(())
}

/// DLL_THREAD_DETACH for a thread that is ending (ExitThread or return from its
/// start routine), on that thread, in reverse initialisation order. Does not free
/// the thread's memory (see [`crate::startup::release_thread`]).
pub fn thread_detach(proc: &Arc<Process>, thread: &mut GuestThread) -> Result<(), ThreadEnd> {
    for s in attached_steps(proc, true).iter().rev() {
        run_step(proc, thread, s, DLL_THREAD_DETACH, 0)?;
    }
    Ok(())
}

/// DLL_PROCESS_DETACH at process exit (lpvReserved non-NULL): every attached DLL
/// in reverse initialisation order, then the program's TLS callbacks. Call it on
/// the exiting thread *before* [`Process::set_exit`], since guest calls stop once
/// the exit code is set.
pub fn process_detach(proc: &Arc<Process>, thread: &mut GuestThread) -> Result<(), ThreadEnd> {
    let steps = attached_steps(proc, false);
    let (program, dlls): (Vec<&Step>, Vec<&Step>) = steps
        .iter()
        .partition(|s| state(proc).image(s.base).is_some_and(|i| !i.is_dll));
    for s in dlls.iter().rev().chain(program.iter()) {
        if let Some(img) = state(proc).image_mut(s.base) {
            img.attached = false;
        }
        run_step(proc, thread, s, DLL_PROCESS_DETACH, 1)?;
    }
    Ok(())
}

/// DisableThreadLibraryCalls: DllMain of the image at `module` no longer gets
/// DLL_THREAD_ATTACH/DETACH. False if `module` is not a guest image.
pub fn disable_thread_library_calls(proc: &Process, module: u32) -> bool {
    match state(proc).image_mut(module) {
        Some(img) => {
            img.thread_calls = false;
            true
        }
        None => false,
    }
}

/// LoadLibrary of a bare module name (`"SMACKW32"`, `"mss32.dll"`): an image
/// already loaded under that name (its reference count goes up), a DLL file in
/// the program's folder (loaded with its imports, then DLL_PROCESS_ATTACH runs on
/// `thread`), or an HLE DLL (its pseudo-module). Returns the module handle.
/// A name with a path should be resolved by the caller and passed to
/// [`load_library_file`].
pub fn load_library(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    name: &str,
) -> Result<u32, LoadError> {
    let file = file_name_for(name);
    let found = {
        let mut st = state(proc);
        if let Some(base) = take_reference(&mut st, &file) {
            return Ok(base);
        }
        let hle = proc.hle_dll(&file);
        let found = match (&st.source, is_known_dll(&file)) {
            (Some(src), false) => src.find(&file)?,
            _ => None,
        };
        match (found, hle) {
            (Some(f), _) => f,
            (None, Some(i)) => return hle_module::ensure(proc, &mut st, i),
            (None, None) => return Err(LoadError::NotFound { name: file }),
        }
    };
    let path = format!("{}{}", state(proc).guest_dir, found.file_name);
    load_dynamic(proc, thread, found, &path)
}

/// LoadLibrary of a DLL file the caller has located on the host (`host_path`) and
/// that the guest knows as `guest_path`. An image already loaded under the same
/// file name is reused.
pub fn load_library_file(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    host_path: &Path,
    guest_path: &str,
) -> Result<u32, LoadError> {
    let file_name = guest_path
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(guest_path)
        .to_string();
    if let Some(base) = take_reference(&mut state(proc), &file_name) {
        return Ok(base);
    }
    let bytes = read_file(host_path)?;
    load_dynamic(proc, thread, DllFile { file_name, bytes }, guest_path)
}

/// An image already loaded as `file`: takes a reference and returns its base.
fn take_reference(st: &mut super::LoaderState, file: &str) -> Option<u32> {
    let base = st.image_named(file)?.base;
    if let Some(img) = st.image_mut(base)
        && !img.pinned
    {
        img.refs += 1;
    }
    Some(base)
}

fn load_dynamic(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    f: DllFile,
    path: &str,
) -> Result<u32, LoadError> {
    let (base, new_images) = {
        let mut guard = state(proc);
        let st = &mut *guard;
        let mut s = Session::new(proc, st, false);
        let linked = s
            .load_image(&f.bytes, &f.file_name, path, false)
            .and_then(|b| {
                for &index in &s.tls_added {
                    tls::add_to_threads(proc, s.st, index)?;
                }
                proc.init_new_data_exports(&mut s.st.data_inited)
                    .map_err(|e| LoadError::api(&f.file_name, e))?;
                Ok(b)
            });
        match linked {
            Ok(b) => {
                if let Some(img) = s.st.image_mut(b) {
                    img.refs += 1;
                }
                (b, s.mapped.clone())
            }
            Err(e) => {
                s.rollback();
                return Err(e);
            }
        }
    };
    if let Err(e) = attach_pending(proc, thread, 0) {
        unload(proc, thread, &new_images, true);
        return Err(e);
    }
    Ok(base)
}

/// FreeLibrary: drops a reference on the image at `module`; at zero it gets
/// DLL_PROCESS_DETACH (lpvReserved NULL) and is unmapped, and the DLLs it loaded
/// lose a reference in turn. Images loaded at process start and HLE
/// pseudo-modules stay. Returns false if `module` is not a module handle.
pub fn free_library(
    proc: &Arc<Process>,
    thread: &mut GuestThread,
    module: u32,
) -> Result<bool, LoadError> {
    let doomed = {
        let mut st = state(proc);
        let Some(img) = st.image_mut(module) else {
            return Ok(hle_module::dll_of(proc, module).is_some());
        };
        if img.pinned {
            return Ok(true);
        }
        img.refs = img.refs.saturating_sub(1);
        if img.refs > 0 {
            return Ok(true);
        }
        // Everything whose last reference goes with it.
        let mut doomed = vec![module];
        let mut k = 0;
        while k < doomed.len() {
            let deps = st
                .image(doomed[k])
                .map(|i| i.deps.clone())
                .unwrap_or_default();
            for d in deps {
                if let Some(di) = st.image_mut(d)
                    && !di.pinned
                    && di.refs > 0
                {
                    di.refs -= 1;
                    if di.refs == 0 && !doomed.contains(&d) {
                        doomed.push(d);
                    }
                }
            }
            k += 1;
        }
        doomed
    };
    unload(proc, thread, &doomed, false);
    Ok(true)
}

/// Detaches (if attached) and unmaps `bases`, dependants before dependencies.
fn unload(proc: &Arc<Process>, thread: &mut GuestThread, bases: &[u32], failed_attach: bool) {
    let order: Vec<u32> = {
        let st = state(proc);
        st.init_order
            .iter()
            .rev()
            .copied()
            .filter(|b| bases.contains(b))
            .collect()
    };
    for &b in &order {
        let step = {
            let mut st = state(proc);
            let attached = st.image(b).is_some_and(|i| i.attached);
            if let Some(img) = st.image_mut(b) {
                img.attached = false;
            }
            attached.then(|| step_for(&st, b, true)).flatten()
        };
        if let Some(s) = step
            && let Err(end) = run_step(proc, thread, &s, DLL_PROCESS_DETACH, 0)
        {
            log::warn!(
                "{}: DLL_PROCESS_DETACH{} ended the guest: {end:?}",
                s.name,
                if failed_attach {
                    " after a failed attach"
                } else {
                    ""
                }
            );
        }
    }
    let mut guard = state(proc);
    let st = &mut *guard;
    if failed_attach {
        // A failed LoadLibrary: the references its images took on DLLs that stay
        // loaded go away with them. (FreeLibrary has already counted these.)
        let kept: Vec<u32> = order
            .iter()
            .filter_map(|b| st.image(*b))
            .flat_map(|i| i.deps.iter().copied())
            .filter(|d| !order.contains(d))
            .collect();
        for d in kept {
            if let Some(i) = st.image_mut(d)
                && !i.pinned
            {
                i.refs = i.refs.saturating_sub(1);
            }
        }
    }
    for &b in &order {
        if let Some(index) = st.image(b).and_then(|i| i.tls)
            && let Some(slot) = st.tls.get_mut(index as usize)
        {
            *slot = None;
        }
    }
    st.images.retain(|i| !order.contains(&i.base));
    st.init_order.retain(|b| !order.contains(b));
    proc.modules
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|m| !order.contains(&m.base));
    let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    for &b in &order {
        if let Err(e) = vm.release(b) {
            log::warn!("unmapping the image at {b:#010x}: {e}");
        }
    }
}
