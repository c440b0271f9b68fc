//! KERNEL32 odds and ends: CloseHandle, DuplicateHandle, handle information, and the
//! Win32 error codes the other kernel32 modules set.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::objects::{CURRENT_PROCESS, CURRENT_THREAD};
use crate::teb::set_last_error;

/// Win32 error codes (winerror.h).
pub mod err {
    pub const NO_ERROR: u32 = 0;
    pub const ERROR_SUCCESS: u32 = 0;
    pub const ERROR_INVALID_FUNCTION: u32 = 1;
    pub const ERROR_FILE_NOT_FOUND: u32 = 2;
    pub const ERROR_PATH_NOT_FOUND: u32 = 3;
    pub const ERROR_TOO_MANY_OPEN_FILES: u32 = 4;
    pub const ERROR_ACCESS_DENIED: u32 = 5;
    pub const ERROR_INVALID_HANDLE: u32 = 6;
    pub const ERROR_NOT_ENOUGH_MEMORY: u32 = 8;
    pub const ERROR_INVALID_BLOCK: u32 = 9;
    pub const ERROR_BAD_ENVIRONMENT: u32 = 10;
    pub const ERROR_INVALID_ACCESS: u32 = 12;
    pub const ERROR_INVALID_DATA: u32 = 13;
    pub const ERROR_OUTOFMEMORY: u32 = 14;
    pub const ERROR_INVALID_DRIVE: u32 = 15;
    pub const ERROR_CURRENT_DIRECTORY: u32 = 16;
    pub const ERROR_NOT_SAME_DEVICE: u32 = 17;
    pub const ERROR_NO_MORE_FILES: u32 = 18;
    pub const ERROR_WRITE_PROTECT: u32 = 19;
    pub const ERROR_NOT_READY: u32 = 21;
    pub const ERROR_SHARING_VIOLATION: u32 = 32;
    pub const ERROR_LOCK_VIOLATION: u32 = 33;
    pub const ERROR_HANDLE_EOF: u32 = 38;
    pub const ERROR_NOT_SUPPORTED: u32 = 50;
    pub const ERROR_FILE_EXISTS: u32 = 80;
    pub const ERROR_CANNOT_MAKE: u32 = 82;
    pub const ERROR_INVALID_PARAMETER: u32 = 87;
    pub const ERROR_BROKEN_PIPE: u32 = 109;
    pub const ERROR_DISK_FULL: u32 = 112;
    pub const ERROR_CALL_NOT_IMPLEMENTED: u32 = 120;
    pub const ERROR_INSUFFICIENT_BUFFER: u32 = 122;
    pub const ERROR_INVALID_NAME: u32 = 123;
    pub const ERROR_MOD_NOT_FOUND: u32 = 126;
    pub const ERROR_PROC_NOT_FOUND: u32 = 127;
    pub const ERROR_NEGATIVE_SEEK: u32 = 131;
    pub const ERROR_SEEK_ON_DEVICE: u32 = 132;
    pub const ERROR_DIR_NOT_EMPTY: u32 = 145;
    pub const ERROR_NOT_LOCKED: u32 = 158;
    pub const ERROR_BAD_PATHNAME: u32 = 161;
    pub const ERROR_ALREADY_EXISTS: u32 = 183;
    pub const ERROR_ENVVAR_NOT_FOUND: u32 = 203;
    pub const ERROR_FILENAME_EXCED_RANGE: u32 = 206;
    pub const ERROR_MORE_DATA: u32 = 234;
    pub const ERROR_DIRECTORY: u32 = 267;
    pub const ERROR_INVALID_ADDRESS: u32 = 487;
    pub const ERROR_ARITHMETIC_OVERFLOW: u32 = 534;
    pub const ERROR_NOACCESS: u32 = 998;
    pub const ERROR_DISCARDED: u32 = 157;
    pub const ERROR_INVALID_FLAGS: u32 = 1004;
    pub const ERROR_MR_MID_NOT_FOUND: u32 = 317;
    pub const ERROR_NO_UNICODE_TRANSLATION: u32 = 1113;
    pub const ERROR_RESOURCE_DATA_NOT_FOUND: u32 = 1812;
    pub const ERROR_NO_DATA: u32 = 232;
}

/// Closes any handle. Pseudo-handles close successfully without effect, as on
/// Windows; the object goes away with its last handle (and last internal user).
pub fn CloseHandle(cx: &mut Ctx, hObject: u32) -> ApiResult<bool> {
    if hObject == CURRENT_PROCESS || hObject == CURRENT_THREAD {
        return Ok(true);
    }
    let closed = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .close(hObject);
    if !closed {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    }
    Ok(closed)
}

const DUPLICATE_CLOSE_SOURCE: u32 = 0x1;

/// Within this process only: a new handle to the same object. Duplicating
/// GetCurrentThread's pseudo-handle is the thread engineer's (a real thread handle);
/// it is refused here with ERROR_INVALID_HANDLE unless the scheduler provides one.
pub fn DuplicateHandle(
    cx: &mut Ctx,
    hSourceProcessHandle: u32,
    hSourceHandle: u32,
    hTargetProcessHandle: u32,
    lpTargetHandle: Ptr,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    dwOptions: u32,
) -> ApiResult<bool> {
    if hSourceProcessHandle != CURRENT_PROCESS || hTargetProcessHandle != CURRENT_PROCESS {
        return Err(crate::hle::ApiError::UnimplementedCase(
            "DuplicateHandle: another process".into(),
        ));
    }
    let mut t = cx.proc.handles.lock().unwrap_or_else(|e| e.into_inner());
    let Some(obj) = t.get(hSourceHandle) else {
        drop(t);
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let h = t.insert(obj);
    if dwOptions & DUPLICATE_CLOSE_SOURCE != 0 {
        t.close(hSourceHandle);
    }
    drop(t);
    if !lpTargetHandle.is_null() {
        cx.proc.mem.write_u32(lpTargetHandle.0, h)?;
    }
    Ok(true)
}

pub fn GetHandleInformation(cx: &mut Ctx, hObject: u32, lpdwFlags: Ptr) -> ApiResult<bool> {
    let ok = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(hObject)
        .is_some();
    if !ok {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    // No handle is inheritable or protected: there are no child processes.
    cx.proc.mem.write_u32(lpdwFlags.0, 0)?;
    Ok(true)
}

pub fn SetHandleInformation(
    cx: &mut Ctx,
    hObject: u32,
    _dwMask: u32,
    _dwFlags: u32,
) -> ApiResult<bool> {
    let ok = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(hObject)
        .is_some();
    if !ok {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    }
    Ok(ok)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CloseHandle", CloseHandle),
        stdcall("DuplicateHandle", DuplicateHandle),
        stdcall("GetHandleInformation", GetHandleInformation),
        stdcall("SetHandleInformation", SetHandleInformation),
    ]
}

/// A process with one guest thread for driving APIs from unit tests.
#[cfg(test)]
pub mod test_support {
    use crate::hle::Ctx;
    use crate::host::CaptureHost;
    use crate::process::{Process, ProcessConfig};
    use crate::thread::GuestThread;
    use std::sync::Arc;
    use winterp_core::mem::Prot;

    pub struct Harness {
        pub proc: Arc<Process>,
        pub thread: GuestThread,
        pub host: Arc<CaptureHost>,
    }

    impl Default for Harness {
        fn default() -> Harness {
            Harness::with_config(|_| {})
        }
    }

    impl Harness {
        pub fn new() -> Harness {
            Harness::with_config(|_| {})
        }

        pub fn with_config(f: impl FnOnce(&mut ProcessConfig)) -> Harness {
            let mut config = ProcessConfig::new(
                "/nonexistent/GAME.EXE".into(),
                r"C:\GAMES\GAME.EXE".to_string(),
            );
            f(&mut config);
            let host = Arc::new(CaptureHost::default());
            let proc = Process::new(config, host.clone(), &crate::hle_dlls()).unwrap();
            let teb = proc
                .vm
                .lock()
                .unwrap()
                .alloc(None, crate::teb::TEB_SIZE, Prot::RW, "TEB")
                .unwrap();
            proc.mem.write_u32(teb + crate::teb::SELF, teb).unwrap();
            let thread = GuestThread::new(&proc, 0x10, teb);
            Harness { proc, thread, host }
        }

        pub fn cx(&mut self) -> Ctx<'_> {
            Ctx {
                proc: &self.proc,
                thread: &mut self.thread,
            }
        }

        /// Guest scratch memory of `size` bytes (read/write).
        pub fn scratch(&self, size: u32) -> u32 {
            self.proc
                .vm
                .lock()
                .unwrap()
                .alloc(None, size, Prot::RW, "test")
                .unwrap()
        }

        pub fn last_error(&mut self) -> u32 {
            crate::teb::last_error(&self.cx()).unwrap()
        }

        pub fn put_cstr(&self, addr: u32, s: &str) {
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            self.proc.mem.write_bytes(addr, &b).unwrap();
        }

        pub fn put_wstr(&self, addr: u32, s: &str) {
            let mut b = Vec::new();
            for u in s.encode_utf16().chain([0]) {
                b.extend_from_slice(&u.to_le_bytes());
            }
            self.proc.mem.write_bytes(addr, &b).unwrap();
        }

        pub fn cstr(&self, addr: u32) -> String {
            String::from_utf8(self.proc.mem.read_cstr(addr, 4096).unwrap()).unwrap()
        }

        pub fn wstr(&self, addr: u32) -> String {
            let mut v = Vec::new();
            let mut a = addr;
            loop {
                let u = self.proc.mem.read_u16(a).unwrap();
                if u == 0 {
                    break;
                }
                v.push(u);
                a += 2;
            }
            String::from_utf16(&v).unwrap()
        }

        pub fn u32(&self, addr: u32) -> u32 {
            self.proc.mem.read_u32(addr).unwrap()
        }
    }
}
