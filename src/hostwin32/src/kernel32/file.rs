//! KERNEL32 files, directories, drives and file mappings, all through the
//! process's sandboxed [`Vfs`].
//!
//! - File handles keep their own position over a host `File` (positioned reads and
//!   writes), so duplicated handles share one position, as on Windows.
//! - dwShareMode is enforced by the VFS between all opens of a file in the process
//!   (ERROR_SHARING_VIOLATION); an open ends when the last handle to its file
//!   object is closed. Two differences remain: a file mapping keeps its file's
//!   open (and share mode) until the mapping is gone, where Windows ends it with
//!   the last file handle; and FILE_FLAG_DELETE_ON_CLOSE deletes the file when
//!   this open's last handle closes, even if other opens (which must share
//!   delete) are still there, where Windows waits for all of them.
//! - `CON`/`CONIN$`/`CONOUT$` open console objects; `NUL` a null device; other
//!   DOS devices do not exist (ERROR_FILE_NOT_FOUND).
//! - File mappings copy file contents into each view when it is mapped and write
//!   writable (not copy-on-write) views back on FlushViewOfFile and UnmapViewOfFile.
//!   Two views of one mapping are therefore separate copies: a write through one is
//!   seen by the other only after it is flushed and the other is mapped again.
//!   Views still mapped when the process ends are written back by
//!   [`flush_all_views`], which the runner calls at exit.
//! - Short (8.3) names are not modelled: cAlternateFileName is always empty.
//! - SetFileTime cannot set a creation time on the host; it is ignored.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall, stdcall_aw};
use crate::objects::{INVALID_HANDLE_VALUE, KernelObject};
use crate::process::Process;
use crate::teb::set_last_error;
use crate::vfs::{
    CreationDisposition, Device, DirEntry, HostFile, OpenGuard, OpenOptions, Opened, Vfs, VfsError,
};
use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::console::{Console, Stream};
use super::memory::MAPPING_TAG;
use super::misc::err;
use super::string::{GuestStr, copy_out_a, copy_out_w, encode_file_api, write_wide};
use super::time::{filetime_from_system, system_from_filetime};

const GENERIC_READ: u32 = 0x8000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;
const GENERIC_EXECUTE: u32 = 0x2000_0000;
const GENERIC_ALL: u32 = 0x1000_0000;
const DELETE: u32 = 0x0001_0000;
const FILE_READ_DATA: u32 = 0x1;
const FILE_WRITE_DATA: u32 = 0x2;
const FILE_APPEND_DATA: u32 = 0x4;
const FILE_EXECUTE: u32 = 0x20;
const FILE_FLAG_OVERLAPPED: u32 = 0x4000_0000;
const FILE_FLAG_DELETE_ON_CLOSE: u32 = 0x0400_0000;
const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
const INVALID_FILE_ATTRIBUTES: u32 = 0xffff_ffff;
const INVALID_SET_FILE_POINTER: u32 = 0xffff_ffff;
const FILE_TYPE_UNKNOWN: u32 = 0;
const FILE_TYPE_DISK: u32 = 1;
const FILE_TYPE_CHAR: u32 = 2;
const ERROR_FILE_INVALID: u32 = 1006;
const ERROR_MAPPED_ALIGNMENT: u32 = 1132;
const ERROR_BAD_LENGTH: u32 = 24;
/// Largest single host read or write.
const CHUNK: usize = 1 << 20;

/// The volume serial number and label the guest's drive reports.
pub const VOLUME_SERIAL: u32 = 0x5749_4e54;
pub const VOLUME_LABEL: &str = "WINTERP";

/// An open file.
pub struct FileObject {
    pub path: String,
    pub read: bool,
    pub write: bool,
    host: Arc<HostFile>,
    /// The open in the VFS sharing table; it ends when the last handle goes.
    open: Option<OpenGuard>,
    pos: Mutex<u64>,
    /// FILE_FLAG_DELETE_ON_CLOSE: deleted through this VFS when the last handle goes.
    delete_on_close: Option<Arc<Vfs>>,
}

impl KernelObject for FileObject {
    fn type_name(&self) -> &'static str {
        "File"
    }
}

impl Drop for FileObject {
    fn drop(&mut self) {
        // This open must be gone from the sharing table before the delete, which
        // would otherwise see it.
        drop(self.open.take());
        if let Some(vfs) = &self.delete_on_close
            && let Err(e) = vfs.delete_file(&self.path)
        {
            log::warn!("FILE_FLAG_DELETE_ON_CLOSE: {}: {e}", self.path);
        }
    }
}

impl FileObject {
    pub fn size(&self) -> std::io::Result<u64> {
        Ok(self.host.get().metadata()?.len())
    }

    /// Reads up to `n` bytes at the file position and advances it.
    pub fn read(&self, n: usize) -> std::io::Result<Vec<u8>> {
        let mut pos = self.pos.lock().unwrap_or_else(|e| e.into_inner());
        let v = self.read_at(*pos, n)?;
        *pos += v.len() as u64;
        Ok(v)
    }

    pub fn read_at(&self, at: u64, n: usize) -> std::io::Result<Vec<u8>> {
        let size = self.size()?;
        let n = (n as u64).min(size.saturating_sub(at)) as usize;
        let mut v = vec![0u8; n];
        let mut got = 0;
        let file = self.host.get();
        while got < n {
            let k = file.read_at(&mut v[got..], at + got as u64)?;
            if k == 0 {
                break;
            }
            got += k;
        }
        v.truncate(got);
        Ok(v)
    }

    /// Writes at the file position and advances it.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut pos = self.pos.lock().unwrap_or_else(|e| e.into_inner());
        self.host.get().write_all_at(bytes, *pos)?;
        *pos += bytes.len() as u64;
        Ok(())
    }

    pub fn position(&self) -> u64 {
        *self.pos.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_position(&self, p: u64) {
        *self.pos.lock().unwrap_or_else(|e| e.into_inner()) = p;
    }
}

/// A directory opened with FILE_FLAG_BACKUP_SEMANTICS.
pub struct DirObject {
    pub path: String,
    /// The open in the VFS sharing table; it ends when the last handle goes.
    _open: OpenGuard,
}

impl KernelObject for DirObject {
    fn type_name(&self) -> &'static str {
        "Directory"
    }
}

/// The NUL device: reads end at once, writes vanish.
pub struct NullDevice;

impl KernelObject for NullDevice {
    fn type_name(&self) -> &'static str {
        "NUL"
    }
}

/// A FindFirstFile search.
pub struct FindObject {
    entries: Vec<DirEntry>,
    next: Mutex<usize>,
}

impl KernelObject for FindObject {
    fn type_name(&self) -> &'static str {
        "Find"
    }
}

/// A file-mapping object.
pub struct Mapping {
    /// The file, or `None` for memory backed by the paging file.
    file: Option<Arc<FileObject>>,
    size: u64,
    writable: bool,
    /// Contents of a paging-file mapping.
    backing: Mutex<Vec<u8>>,
}

impl KernelObject for Mapping {
    fn type_name(&self) -> &'static str {
        "FileMapping"
    }
}

struct View {
    mapping: Arc<Mapping>,
    offset: u64,
    len: u32,
    /// Written back on flush and unmap (FILE_MAP_WRITE, not FILE_MAP_COPY).
    write_back: bool,
}

/// Process-wide file state: named mappings, mapped views and temp-file numbering.
#[derive(Default)]
pub struct FileState {
    views: Mutex<HashMap<u32, View>>,
    named: Mutex<HashMap<String, std::sync::Weak<Mapping>>>,
    temp_counter: Mutex<u32>,
}

// ---- helpers ------------------------------------------------------------------------

/// The process's VFS.
pub fn vfs(proc: &Process) -> ApiResult<Arc<Vfs>> {
    proc.vfs.get().cloned().ok_or_else(|| {
        ApiError::Other("no virtual file system is configured for this process".into())
    })
}

fn fail<T>(cx: &mut Ctx, code: u32, value: T) -> ApiResult<T> {
    set_last_error(cx, code)?;
    Ok(value)
}

fn vfs_fail<T>(cx: &mut Ctx, e: &VfsError, value: T) -> ApiResult<T> {
    if let VfsError::Config(what) = e {
        return Err(ApiError::Other(format!("file system: {what}")));
    }
    set_last_error(cx, e.win32_code())?;
    Ok(value)
}

fn io_code(e: &std::io::Error) -> u32 {
    match e.kind() {
        std::io::ErrorKind::StorageFull => err::ERROR_DISK_FULL,
        std::io::ErrorKind::PermissionDenied => err::ERROR_ACCESS_DENIED,
        _ => 31, // ERROR_GEN_FAILURE
    }
}

/// A file name argument of an A (`S` = CStrPtr) or W (WStrPtr) file function.
fn path<S: GuestStr>(cx: &Ctx, p: Ptr) -> ApiResult<String> {
    S::read_file_api_at(cx.proc, p.0)
}

fn object(cx: &Ctx, h: u32) -> Option<Arc<dyn KernelObject>> {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(h)
}

fn get_as<T: KernelObject>(cx: &Ctx, h: u32) -> Option<Arc<T>> {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<T>(h)
}

fn insert(cx: &Ctx, o: Arc<dyn KernelObject>) -> u32 {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(o)
}

// ---- CreateFile -----------------------------------------------------------------------

fn create_file(
    cx: &mut Ctx,
    name: String,
    access: u32,
    share: u32,
    disposition: u32,
    flags: u32,
) -> ApiResult<u32> {
    if flags & FILE_FLAG_OVERLAPPED != 0 {
        return Err(ApiError::UnimplementedCase(
            "CreateFile: FILE_FLAG_OVERLAPPED".into(),
        ));
    }
    let Some(disp) = CreationDisposition::from_win32(disposition) else {
        return fail(cx, err::ERROR_INVALID_PARAMETER, INVALID_HANDLE_VALUE);
    };
    let read = access
        & (GENERIC_READ | GENERIC_ALL | GENERIC_EXECUTE | FILE_READ_DATA | FILE_EXECUTE)
        != 0;
    let write = access & (GENERIC_WRITE | GENERIC_ALL | FILE_WRITE_DATA | FILE_APPEND_DATA) != 0;
    let delete_on_close = flags & FILE_FLAG_DELETE_ON_CLOSE != 0;
    let opts = OpenOptions {
        read,
        write,
        // CreateFile asks for DELETE itself when FILE_FLAG_DELETE_ON_CLOSE is set,
        // so later opens must share delete.
        delete: access & (DELETE | GENERIC_ALL) != 0 || delete_on_close,
        share,
        disposition: disp,
        attributes: flags & 0xffff,
        backup_semantics: flags & FILE_FLAG_BACKUP_SEMANTICS != 0,
    };
    let vfs = vfs(cx.proc)?;
    let opened = match vfs.open(&name, &opts) {
        Ok(o) => o,
        Err(e) => return vfs_fail(cx, &e, INVALID_HANDLE_VALUE),
    };
    let (obj, existed): (Arc<dyn KernelObject>, bool) = match opened {
        Opened::File(f) => (
            Arc::new(FileObject {
                path: f.path,
                read,
                write,
                host: f.host,
                open: Some(f.open),
                pos: Mutex::new(0),
                delete_on_close: delete_on_close.then(|| vfs.clone()),
            }),
            f.existed,
        ),
        Opened::Directory { path, open } => (Arc::new(DirObject { path, _open: open }), true),
        Opened::Device(d) => match d {
            Device::Nul => (Arc::new(NullDevice), true),
            Device::ConIn => (Arc::new(Console::new(Stream::Input)), true),
            Device::ConOut => (Arc::new(Console::new(Stream::Output)), true),
            Device::Con => {
                let s = if write { Stream::Output } else { Stream::Input };
                (Arc::new(Console::new(s)), true)
            }
            _ => return fail(cx, err::ERROR_FILE_NOT_FOUND, INVALID_HANDLE_VALUE),
        },
    };
    let h = insert(cx, obj);
    let code = if existed
        && matches!(
            disp,
            CreationDisposition::OpenAlways | CreationDisposition::CreateAlways
        ) {
        err::ERROR_ALREADY_EXISTS
    } else {
        err::NO_ERROR
    };
    set_last_error(cx, code)?;
    Ok(h)
}

pub fn CreateFile<S: GuestStr>(
    cx: &mut Ctx,
    lpFileName: Ptr,
    dwDesiredAccess: u32,
    dwShareMode: u32,
    _lpSecurityAttributes: u32,
    dwCreationDisposition: u32,
    dwFlagsAndAttributes: u32,
    _hTemplateFile: u32,
) -> ApiResult<u32> {
    let name = path::<S>(cx, lpFileName)?;
    create_file(
        cx,
        name,
        dwDesiredAccess,
        dwShareMode,
        dwCreationDisposition,
        dwFlagsAndAttributes,
    )
}

// ---- ReadFile / WriteFile --------------------------------------------------------------

/// The I/O this process asked of files and devices, as GetProcessIoCounters
/// reports it (IO_COUNTERS): ReadFile and WriteFile of files and the null device
/// that succeeded, with their bytes, and DeviceIoControl requests as "other"
/// operations (none moves data: there are no devices that answer them). Console
/// reads and writes are not counted: on Windows they are requests to the console
/// server, not I/O of the process.
#[derive(Default)]
pub struct IoCounters {
    pub read_ops: AtomicU64,
    pub write_ops: AtomicU64,
    pub other_ops: AtomicU64,
    pub read_bytes: AtomicU64,
    pub write_bytes: AtomicU64,
    pub other_bytes: AtomicU64,
}

impl IoCounters {
    fn count(ops: &AtomicU64, bytes: &AtomicU64, n: usize) {
        ops.fetch_add(1, Ordering::Relaxed);
        bytes.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// The six counters in IO_COUNTERS order.
    pub fn snapshot(&self) -> [u64; 6] {
        [
            &self.read_ops,
            &self.write_ops,
            &self.other_ops,
            &self.read_bytes,
            &self.write_bytes,
            &self.other_bytes,
        ]
        .map(|c| c.load(Ordering::Relaxed))
    }
}

/// The offset an OVERLAPPED structure gives a synchronous handle.
fn overlapped_offset(cx: &Ctx, p: Ptr) -> ApiResult<Option<u64>> {
    if p.is_null() {
        return Ok(None);
    }
    let lo = cx.proc.mem.read_u32(p.0 + 8)? as u64;
    let hi = cx.proc.mem.read_u32(p.0 + 12)? as u64;
    Ok(Some(hi << 32 | lo))
}

pub fn ReadFile(
    cx: &mut Ctx,
    hFile: u32,
    lpBuffer: Ptr,
    nNumberOfBytesToRead: u32,
    lpNumberOfBytesRead: Ptr,
    lpOverlapped: Ptr,
) -> ApiResult<bool> {
    if !lpNumberOfBytesRead.is_null() {
        cx.proc.mem.write_u32(lpNumberOfBytesRead.0, 0)?;
    }
    let Some(o) = object(cx, hFile) else {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    };
    let o: Arc<dyn std::any::Any + Send + Sync> = o;
    if cx
        .proc
        .mem
        .probe_write(lpBuffer.0, nNumberOfBytesToRead)
        .is_err()
        && nNumberOfBytesToRead != 0
    {
        return fail(cx, err::ERROR_NOACCESS, false);
    }
    let counters = cx.proc.slot::<IoCounters>();
    let data: Vec<u8> = if let Some(f) = o.downcast_ref::<FileObject>() {
        if !f.read {
            return fail(cx, err::ERROR_ACCESS_DENIED, false);
        }
        let r = match overlapped_offset(cx, lpOverlapped)? {
            Some(at) => f.read_at(at, nNumberOfBytesToRead as usize).inspect(|v| {
                f.set_position(at + v.len() as u64);
            }),
            None => f.read(nNumberOfBytesToRead as usize),
        };
        match r {
            Ok(v) => {
                IoCounters::count(&counters.read_ops, &counters.read_bytes, v.len());
                v
            }
            Err(e) => return fail(cx, io_code(&e), false),
        }
    } else if let Some(c) = o.downcast_ref::<Console>() {
        if c.stream == Stream::Input && super::conscreen::own_console(cx.proc).is_some() {
            return Err(ApiError::UnimplementedCase(
                "ReadFile of the input of a console of the process's own (ReadConsole reads it)"
                    .into(),
            ));
        }
        let mut b = vec![0u8; nNumberOfBytesToRead as usize];
        match c.read(cx.proc, &mut b) {
            Some(n) => {
                b.truncate(n);
                b
            }
            None => return fail(cx, err::ERROR_ACCESS_DENIED, false),
        }
    } else if o.downcast_ref::<NullDevice>().is_some() {
        IoCounters::count(&counters.read_ops, &counters.read_bytes, 0);
        Vec::new()
    } else {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    };
    cx.proc.mem.write_bytes(lpBuffer.0, &data)?;
    if !lpNumberOfBytesRead.is_null() {
        cx.proc
            .mem
            .write_u32(lpNumberOfBytesRead.0, data.len() as u32)?;
    }
    Ok(true)
}

pub fn WriteFile(
    cx: &mut Ctx,
    hFile: u32,
    lpBuffer: Ptr,
    nNumberOfBytesToWrite: u32,
    lpNumberOfBytesWritten: Ptr,
    lpOverlapped: Ptr,
) -> ApiResult<bool> {
    if !lpNumberOfBytesWritten.is_null() {
        cx.proc.mem.write_u32(lpNumberOfBytesWritten.0, 0)?;
    }
    let Some(o) = object(cx, hFile) else {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    };
    let o: Arc<dyn std::any::Any + Send + Sync> = o;
    let mut data = vec![0u8; nNumberOfBytesToWrite as usize];
    if cx.proc.mem.read_bytes(lpBuffer.0, &mut data).is_err() {
        return fail(cx, err::ERROR_NOACCESS, false);
    }
    if let Some(f) = o.downcast_ref::<FileObject>() {
        if !f.write {
            return fail(cx, err::ERROR_ACCESS_DENIED, false);
        }
        if !data.is_empty() {
            let r = match overlapped_offset(cx, lpOverlapped)? {
                Some(at) => f
                    .host
                    .get()
                    .write_all_at(&data, at)
                    .map(|_| f.set_position(at + data.len() as u64)),
                None => data.chunks(CHUNK).try_for_each(|c| f.write(c)),
            };
            if let Err(e) = r {
                return fail(cx, io_code(&e), false);
            }
        }
        let c = cx.proc.slot::<IoCounters>();
        IoCounters::count(&c.write_ops, &c.write_bytes, data.len());
    } else if let Some(c) = o.downcast_ref::<Console>() {
        if !c.write(cx.proc, &data) {
            return fail(cx, err::ERROR_ACCESS_DENIED, false);
        }
    } else if o.downcast_ref::<NullDevice>().is_some() {
        let c = cx.proc.slot::<IoCounters>();
        IoCounters::count(&c.write_ops, &c.write_bytes, data.len());
    } else {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    }
    if !lpNumberOfBytesWritten.is_null() {
        cx.proc
            .mem
            .write_u32(lpNumberOfBytesWritten.0, nNumberOfBytesToWrite)?;
    }
    Ok(true)
}

// ---- position, size, type ---------------------------------------------------------------

/// Moves a file pointer; `Err(code)` for an invalid move.
fn seek(f: &FileObject, distance: i64, method: u32) -> Result<u64, u32> {
    let base = match method {
        0 => 0i128,
        1 => f.position() as i128,
        2 => f.size().map_err(|e| io_code(&e))? as i128,
        _ => return Err(err::ERROR_INVALID_PARAMETER),
    };
    let new = base + distance as i128;
    if new < 0 {
        return Err(err::ERROR_NEGATIVE_SEEK);
    }
    f.set_position(new as u64);
    Ok(new as u64)
}

fn file_arg(cx: &mut Ctx, h: u32) -> ApiResult<Option<Arc<FileObject>>> {
    let f = get_as::<FileObject>(cx, h);
    if f.is_none() {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    }
    Ok(f)
}

pub fn SetFilePointer(
    cx: &mut Ctx,
    hFile: u32,
    lDistanceToMove: i32,
    lpDistanceToMoveHigh: Ptr,
    dwMoveMethod: u32,
) -> ApiResult<u32> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(INVALID_SET_FILE_POINTER);
    };
    let distance = if lpDistanceToMoveHigh.is_null() {
        lDistanceToMove as i64
    } else {
        let hi = cx.proc.mem.read_u32(lpDistanceToMoveHigh.0)? as u64;
        (hi << 32 | lDistanceToMove as u32 as u64) as i64
    };
    let old = f.position();
    match seek(&f, distance, dwMoveMethod) {
        Ok(p) => {
            if lpDistanceToMoveHigh.is_null() && p > 0xffff_fffe {
                f.set_position(old);
                return fail(cx, err::ERROR_INVALID_PARAMETER, INVALID_SET_FILE_POINTER);
            }
            if !lpDistanceToMoveHigh.is_null() {
                cx.proc
                    .mem
                    .write_u32(lpDistanceToMoveHigh.0, (p >> 32) as u32)?;
            }
            // A low dword of 0xFFFFFFFF is ambiguous; callers check GetLastError.
            if p as u32 == INVALID_SET_FILE_POINTER {
                set_last_error(cx, err::NO_ERROR)?;
            }
            Ok(p as u32)
        }
        Err(code) => fail(cx, code, INVALID_SET_FILE_POINTER),
    }
}

pub fn SetFilePointerEx(
    cx: &mut Ctx,
    hFile: u32,
    liDistanceToMove: u64,
    lpNewFilePointer: Ptr,
    dwMoveMethod: u32,
) -> ApiResult<bool> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(false);
    };
    match seek(&f, liDistanceToMove as i64, dwMoveMethod) {
        Ok(p) => {
            if !lpNewFilePointer.is_null() {
                cx.proc.mem.write_u64(lpNewFilePointer.0, p)?;
            }
            Ok(true)
        }
        Err(code) => fail(cx, code, false),
    }
}

pub fn GetFileSize(cx: &mut Ctx, hFile: u32, lpFileSizeHigh: Ptr) -> ApiResult<u32> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(0xffff_ffff);
    };
    let size = match f.size() {
        Ok(s) => s,
        Err(e) => return fail(cx, io_code(&e), 0xffff_ffff),
    };
    if !lpFileSizeHigh.is_null() {
        cx.proc
            .mem
            .write_u32(lpFileSizeHigh.0, (size >> 32) as u32)?;
    }
    if size as u32 == 0xffff_ffff {
        set_last_error(cx, err::NO_ERROR)?;
    }
    Ok(size as u32)
}

pub fn GetFileSizeEx(cx: &mut Ctx, hFile: u32, lpFileSize: Ptr) -> ApiResult<bool> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(false);
    };
    match f.size() {
        Ok(s) => {
            cx.proc.mem.write_u64(lpFileSize.0, s)?;
            Ok(true)
        }
        Err(e) => fail(cx, io_code(&e), false),
    }
}

pub fn GetFileType(cx: &mut Ctx, hFile: u32) -> ApiResult<u32> {
    let Some(o) = object(cx, hFile) else {
        return fail(cx, err::ERROR_INVALID_HANDLE, FILE_TYPE_UNKNOWN);
    };
    let o: Arc<dyn std::any::Any + Send + Sync> = o;
    if o.downcast_ref::<FileObject>().is_some() || o.downcast_ref::<DirObject>().is_some() {
        Ok(FILE_TYPE_DISK)
    } else if o.downcast_ref::<Console>().is_some() || o.downcast_ref::<NullDevice>().is_some() {
        Ok(FILE_TYPE_CHAR)
    } else {
        fail(cx, err::ERROR_INVALID_HANDLE, FILE_TYPE_UNKNOWN)
    }
}

/// Writes reach the host file at once, so there is nothing to flush.
pub fn FlushFileBuffers(cx: &mut Ctx, hFile: u32) -> ApiResult<bool> {
    match object(cx, hFile) {
        Some(_) => Ok(true),
        None => fail(cx, err::ERROR_INVALID_HANDLE, false),
    }
}

pub fn SetEndOfFile(cx: &mut Ctx, hFile: u32) -> ApiResult<bool> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(false);
    };
    if !f.write {
        return fail(cx, err::ERROR_ACCESS_DENIED, false);
    }
    match f.host.get().set_len(f.position()) {
        Ok(()) => Ok(true),
        Err(e) => fail(cx, io_code(&e), false),
    }
}

fn host_times(m: &fs::Metadata) -> (u64, u64, u64) {
    let w = m.modified().map(filetime_from_system).unwrap_or(0);
    let a = m.accessed().map(filetime_from_system).unwrap_or(w);
    let c = m.created().map(filetime_from_system).unwrap_or(w);
    (c, a, w)
}

fn handle_times(cx: &mut Ctx, h: u32) -> ApiResult<Option<(u64, u64, u64)>> {
    if let Some(f) = get_as::<FileObject>(cx, h) {
        return match f.host.get().metadata() {
            Ok(m) => Ok(Some(host_times(&m))),
            Err(e) => fail(cx, io_code(&e), None),
        };
    }
    if let Some(d) = get_as::<DirObject>(cx, h) {
        return match vfs(cx.proc)?.metadata(&d.path) {
            Ok(m) => Ok(Some((
                filetime_from_system(m.times.creation),
                filetime_from_system(m.times.last_access),
                filetime_from_system(m.times.last_write),
            ))),
            Err(e) => vfs_fail(cx, &e, None),
        };
    }
    fail(cx, err::ERROR_INVALID_HANDLE, None)
}

pub fn GetFileTime(
    cx: &mut Ctx,
    hFile: u32,
    lpCreationTime: Ptr,
    lpLastAccessTime: Ptr,
    lpLastWriteTime: Ptr,
) -> ApiResult<bool> {
    let Some((c, a, w)) = handle_times(cx, hFile)? else {
        return Ok(false);
    };
    for (p, v) in [
        (lpCreationTime, c),
        (lpLastAccessTime, a),
        (lpLastWriteTime, w),
    ] {
        if !p.is_null() {
            cx.proc.mem.write_u64(p.0, v)?;
        }
    }
    Ok(true)
}

pub fn SetFileTime(
    cx: &mut Ctx,
    hFile: u32,
    _lpCreationTime: Ptr,
    lpLastAccessTime: Ptr,
    lpLastWriteTime: Ptr,
) -> ApiResult<bool> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(false);
    };
    if !f.write {
        return fail(cx, err::ERROR_ACCESS_DENIED, false);
    }
    let mut t = fs::FileTimes::new();
    // A FILETIME of 0 (or 0xFFFFFFFF'FFFFFFFF) leaves that time unchanged.
    let keep = |v: u64| v == 0 || v == u64::MAX;
    if !lpLastAccessTime.is_null() {
        let v = cx.proc.mem.read_u64(lpLastAccessTime.0)?;
        if !keep(v) {
            t = t.set_accessed(system_from_filetime(v));
        }
    }
    if !lpLastWriteTime.is_null() {
        let v = cx.proc.mem.read_u64(lpLastWriteTime.0)?;
        if !keep(v) {
            t = t.set_modified(system_from_filetime(v));
        }
    }
    match f.host.get().set_times(t) {
        Ok(()) => Ok(true),
        Err(e) => fail(cx, io_code(&e), false),
    }
}

/// BY_HANDLE_FILE_INFORMATION (52 bytes).
pub fn GetFileInformationByHandle(
    cx: &mut Ctx,
    hFile: u32,
    lpFileInformation: Ptr,
) -> ApiResult<bool> {
    let Some(f) = file_arg(cx, hFile)? else {
        return Ok(false);
    };
    let m = match f.host.get().metadata() {
        Ok(m) => m,
        Err(e) => return fail(cx, io_code(&e), false),
    };
    let attrs = vfs(cx.proc)?.get_attributes(&f.path).unwrap_or(0x20);
    let (c, a, w) = host_times(&m);
    let mut b = Vec::with_capacity(52);
    b.extend_from_slice(&attrs.to_le_bytes());
    for t in [c, a, w] {
        b.extend_from_slice(&t.to_le_bytes());
    }
    for v in [
        VOLUME_SERIAL,
        (m.len() >> 32) as u32,
        m.len() as u32,
        m.nlink() as u32,
        (m.ino() >> 32) as u32,
        m.ino() as u32,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    cx.proc.mem.write_bytes(lpFileInformation.0, &b)?;
    Ok(true)
}

// ---- attributes and directory listing ---------------------------------------------------

fn get_attributes(cx: &mut Ctx, path: String) -> ApiResult<u32> {
    match vfs(cx.proc)?.get_attributes(&path) {
        Ok(a) => Ok(a),
        Err(e) => vfs_fail(cx, &e, INVALID_FILE_ATTRIBUTES),
    }
}

pub fn GetFileAttributes<S: GuestStr>(cx: &mut Ctx, lpFileName: Ptr) -> ApiResult<u32> {
    let p = path::<S>(cx, lpFileName)?;
    get_attributes(cx, p)
}

/// WIN32_FILE_ATTRIBUTE_DATA (36 bytes).
fn attributes_ex(cx: &mut Ctx, path: String, level: u32, out: Ptr) -> ApiResult<bool> {
    if level != 0 {
        return fail(cx, err::ERROR_INVALID_PARAMETER, false);
    }
    let m = match vfs(cx.proc)?.metadata(&path) {
        Ok(m) => m,
        Err(e) => return vfs_fail(cx, &e, false),
    };
    let mut b = Vec::with_capacity(36);
    b.extend_from_slice(&m.attributes.to_le_bytes());
    for t in [m.times.creation, m.times.last_access, m.times.last_write] {
        b.extend_from_slice(&filetime_from_system(t).to_le_bytes());
    }
    b.extend_from_slice(&((m.size >> 32) as u32).to_le_bytes());
    b.extend_from_slice(&(m.size as u32).to_le_bytes());
    cx.proc.mem.write_bytes(out.0, &b)?;
    Ok(true)
}

pub fn GetFileAttributesEx<S: GuestStr>(
    cx: &mut Ctx,
    lpFileName: Ptr,
    fInfoLevelId: u32,
    lpFileInformation: Ptr,
) -> ApiResult<bool> {
    let p = path::<S>(cx, lpFileName)?;
    attributes_ex(cx, p, fInfoLevelId, lpFileInformation)
}

fn set_attributes(cx: &mut Ctx, path: String, attrs: u32) -> ApiResult<bool> {
    match vfs(cx.proc)?.set_attributes(&path, attrs) {
        Ok(()) => Ok(true),
        Err(e) => vfs_fail(cx, &e, false),
    }
}

pub fn SetFileAttributes<S: GuestStr>(
    cx: &mut Ctx,
    lpFileName: Ptr,
    dwFileAttributes: u32,
) -> ApiResult<bool> {
    let p = path::<S>(cx, lpFileName)?;
    set_attributes(cx, p, dwFileAttributes)
}

/// Writes WIN32_FIND_DATAA (320 bytes) or WIN32_FIND_DATAW (592 bytes).
fn write_find_data(cx: &Ctx, p: u32, e: &DirEntry, wide: bool) -> ApiResult<()> {
    let mut b = vec![0u8; if wide { 592 } else { 320 }];
    b[0..4].copy_from_slice(&e.attributes.to_le_bytes());
    for (k, t) in [e.times.creation, e.times.last_access, e.times.last_write]
        .iter()
        .enumerate()
    {
        b[4 + 8 * k..12 + 8 * k].copy_from_slice(&filetime_from_system(*t).to_le_bytes());
    }
    let size = if e.is_dir { 0 } else { e.size };
    b[28..32].copy_from_slice(&((size >> 32) as u32).to_le_bytes());
    b[32..36].copy_from_slice(&(size as u32).to_le_bytes());
    if wide {
        for (k, u) in e.name.encode_utf16().take(259).enumerate() {
            b[44 + 2 * k..46 + 2 * k].copy_from_slice(&u.to_le_bytes());
        }
    } else {
        let n = encode_file_api(cx.proc, &e.name);
        let n = &n[..n.len().min(259)];
        b[44..44 + n.len()].copy_from_slice(n);
    }
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(())
}

fn find_first(cx: &mut Ctx, pattern: String, out: Ptr, wide: bool) -> ApiResult<u32> {
    let entries = match vfs(cx.proc)?.read_dir(&pattern) {
        Ok(v) => v,
        Err(e) => return vfs_fail(cx, &e, INVALID_HANDLE_VALUE),
    };
    write_find_data(cx, out.0, &entries[0], wide)?;
    Ok(insert(
        cx,
        Arc::new(FindObject {
            entries,
            next: Mutex::new(1),
        }),
    ))
}

fn find_next(cx: &mut Ctx, h: u32, out: Ptr, wide: bool) -> ApiResult<bool> {
    let Some(f) = get_as::<FindObject>(cx, h) else {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    };
    let k = {
        let mut n = f.next.lock().unwrap_or_else(|e| e.into_inner());
        let k = *n;
        if k < f.entries.len() {
            *n += 1;
        }
        k
    };
    match f.entries.get(k) {
        Some(e) => {
            write_find_data(cx, out.0, e, wide)?;
            Ok(true)
        }
        None => fail(cx, err::ERROR_NO_MORE_FILES, false),
    }
}

pub fn FindFirstFile<S: GuestStr>(
    cx: &mut Ctx,
    lpFileName: Ptr,
    lpFindFileData: Ptr,
) -> ApiResult<u32> {
    let p = path::<S>(cx, lpFileName)?;
    find_first(cx, p, lpFindFileData, S::WIDE)
}

pub fn FindNextFile<S: GuestStr>(
    cx: &mut Ctx,
    hFindFile: u32,
    lpFindFileData: Ptr,
) -> ApiResult<bool> {
    find_next(cx, hFindFile, lpFindFileData, S::WIDE)
}

pub fn FindClose(cx: &mut Ctx, hFindFile: u32) -> ApiResult<bool> {
    if get_as::<FindObject>(cx, hFindFile).is_none() {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    }
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .close(hFindFile);
    Ok(true)
}

// ---- directories and names ----------------------------------------------------------------

fn vfs_bool(cx: &mut Ctx, r: Result<(), VfsError>) -> ApiResult<bool> {
    match r {
        Ok(()) => Ok(true),
        Err(e) => vfs_fail(cx, &e, false),
    }
}

pub fn CreateDirectory<S: GuestStr>(
    cx: &mut Ctx,
    lpPathName: Ptr,
    _lpSecurityAttributes: u32,
) -> ApiResult<bool> {
    let p = path::<S>(cx, lpPathName)?;
    let r = vfs(cx.proc)?.create_dir(&p);
    vfs_bool(cx, r)
}

pub fn RemoveDirectory<S: GuestStr>(cx: &mut Ctx, lpPathName: Ptr) -> ApiResult<bool> {
    let p = path::<S>(cx, lpPathName)?;
    let r = vfs(cx.proc)?.remove_dir(&p);
    vfs_bool(cx, r)
}

pub fn DeleteFile<S: GuestStr>(cx: &mut Ctx, lpFileName: Ptr) -> ApiResult<bool> {
    let p = path::<S>(cx, lpFileName)?;
    let r = vfs(cx.proc)?.delete_file(&p);
    vfs_bool(cx, r)
}

const MOVEFILE_REPLACE_EXISTING: u32 = 0x1;
const MOVEFILE_COPY_ALLOWED: u32 = 0x2;
const MOVEFILE_DELAY_UNTIL_REBOOT: u32 = 0x4;
const MOVEFILE_WRITE_THROUGH: u32 = 0x8;

fn move_file(cx: &mut Ctx, from: String, to: Option<String>, flags: u32) -> ApiResult<bool> {
    if flags & MOVEFILE_DELAY_UNTIL_REBOOT != 0 {
        return Err(ApiError::UnimplementedCase(
            "MoveFileEx: MOVEFILE_DELAY_UNTIL_REBOOT".into(),
        ));
    }
    if flags & !(MOVEFILE_REPLACE_EXISTING | MOVEFILE_COPY_ALLOWED | MOVEFILE_WRITE_THROUGH) != 0 {
        return fail(cx, err::ERROR_INVALID_PARAMETER, false);
    }
    let Some(to) = to else {
        return fail(cx, err::ERROR_INVALID_PARAMETER, false);
    };
    let r = vfs(cx.proc)?.rename(&from, &to, flags & MOVEFILE_REPLACE_EXISTING != 0);
    vfs_bool(cx, r)
}

pub fn MoveFile<S: GuestStr>(
    cx: &mut Ctx,
    lpExistingFileName: Ptr,
    lpNewFileName: Ptr,
) -> ApiResult<bool> {
    let (a, b) = (
        path::<S>(cx, lpExistingFileName)?,
        path::<S>(cx, lpNewFileName)?,
    );
    move_file(cx, a, Some(b), 0)
}

pub fn MoveFileEx<S: GuestStr>(
    cx: &mut Ctx,
    lpExistingFileName: Ptr,
    lpNewFileName: Ptr,
    dwFlags: u32,
) -> ApiResult<bool> {
    let a = path::<S>(cx, lpExistingFileName)?;
    let b = if lpNewFileName.is_null() {
        None
    } else {
        Some(path::<S>(cx, lpNewFileName)?)
    };
    move_file(cx, a, b, dwFlags)
}

pub fn CopyFile<S: GuestStr>(
    cx: &mut Ctx,
    lpExistingFileName: Ptr,
    lpNewFileName: Ptr,
    bFailIfExists: bool,
) -> ApiResult<bool> {
    let (a, b) = (
        path::<S>(cx, lpExistingFileName)?,
        path::<S>(cx, lpNewFileName)?,
    );
    let r = vfs(cx.proc)?.copy_file(&a, &b, bFailIfExists);
    vfs_bool(cx, r)
}

/// Offset (in characters) of the last path component, if the path has one.
fn file_part(full: &str) -> Option<usize> {
    let k = full.rfind('\\')? + 1;
    (k < full.len()).then(|| full[..k].chars().count())
}

pub fn GetFullPathNameA(
    cx: &mut Ctx,
    lpFileName: Ptr,
    nBufferLength: u32,
    lpBuffer: Ptr,
    lpFilePart: Ptr,
) -> ApiResult<u32> {
    let p = path::<CStrPtr>(cx, lpFileName)?;
    let full = match vfs(cx.proc)?.full_path(&p) {
        Ok(f) => f,
        Err(e) => return vfs_fail(cx, &e, 0),
    };
    let bytes = encode_file_api(cx.proc, &full);
    let n = copy_out_a(cx.proc, lpBuffer.0, nBufferLength, &bytes)?;
    if n < nBufferLength && !lpFilePart.is_null() {
        let fp = file_part(&full).map_or(0, |k| lpBuffer.0 + k as u32);
        cx.proc.mem.write_u32(lpFilePart.0, fp)?;
    }
    Ok(n)
}

pub fn GetFullPathNameW(
    cx: &mut Ctx,
    lpFileName: Ptr,
    nBufferLength: u32,
    lpBuffer: Ptr,
    lpFilePart: Ptr,
) -> ApiResult<u32> {
    let p = path::<WStrPtr>(cx, lpFileName)?;
    let full = match vfs(cx.proc)?.full_path(&p) {
        Ok(f) => f,
        Err(e) => return vfs_fail(cx, &e, 0),
    };
    let units: Vec<u16> = full.encode_utf16().collect();
    let n = copy_out_w(cx.proc, lpBuffer.0, nBufferLength, &units)?;
    if n < nBufferLength && !lpFilePart.is_null() {
        let fp = full
            .rfind('\\')
            .map(|k| full[..k + 1].encode_utf16().count())
            .filter(|&k| k < units.len())
            .map_or(0, |k| lpBuffer.0 + 2 * k as u32);
        cx.proc.mem.write_u32(lpFilePart.0, fp)?;
    }
    Ok(n)
}

/// GetTempPath's answer: TMP, then TEMP, else the VFS's temp folder; always with a
/// trailing backslash.
pub fn temp_path(proc: &Process) -> ApiResult<String> {
    let env =
        super::process::get_env(proc, "TMP").or_else(|| super::process::get_env(proc, "TEMP"));
    let mut p = match env {
        Some(e) if !e.is_empty() => e,
        _ => vfs(proc)?.temp_dir(),
    };
    if !p.ends_with('\\') {
        p.push('\\');
    }
    Ok(p)
}

pub fn GetTempPath<S: GuestStr>(cx: &mut Ctx, nBufferLength: u32, lpBuffer: Ptr) -> ApiResult<u32> {
    let p = temp_path(cx.proc)?;
    S::copy_out_file_api(cx.proc, lpBuffer.0, nBufferLength, &p)
}

/// `PATH\PREuuuu.TMP`. With uUnique 0 a number is chosen and the file created
/// (CREATE_NEW, trying the next number while one exists).
fn temp_file_name(
    cx: &mut Ctx,
    dir: String,
    prefix: String,
    unique: u32,
) -> ApiResult<Option<(String, u32)>> {
    let vfs = vfs(cx.proc)?;
    let mut dir = dir;
    if !dir.ends_with('\\') && !dir.ends_with('/') {
        dir.push('\\');
    }
    let prefix: String = prefix.chars().take(3).collect();
    let name = |u: u32| format!("{dir}{prefix}{:04X}.TMP", u & 0xffff);
    if unique != 0 {
        return Ok(Some((name(unique), unique & 0xffff)));
    }
    match vfs.resolve(&dir) {
        Ok(crate::vfs::Resolved::Path {
            kind: Some(crate::vfs::EntryKind::Directory),
            ..
        }) => {}
        Ok(_) => return fail(cx, err::ERROR_DIRECTORY, None),
        Err(e) => return vfs_fail(cx, &e, None),
    }
    let start = {
        let mut c = cx
            .proc
            .k32
            .files
            .temp_counter
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *c = (*c % 0xffff) + 1;
        *c
    };
    let mut u = start;
    loop {
        let n = name(u);
        match vfs.open(&n, &OpenOptions::read_write(CreationDisposition::CreateNew)) {
            Ok(_) => return Ok(Some((n, u))),
            Err(VfsError::FileExists(_)) | Err(VfsError::AlreadyExists(_)) => {}
            Err(e) => return vfs_fail(cx, &e, None),
        }
        u = (u % 0xffff) + 1;
        if u == start {
            return fail(cx, err::ERROR_FILE_EXISTS, None);
        }
    }
}

pub fn GetTempFileNameA(
    cx: &mut Ctx,
    lpPathName: Ptr,
    lpPrefixString: Ptr,
    uUnique: u32,
    lpTempFileName: Ptr,
) -> ApiResult<u32> {
    let (d, p) = (
        path::<CStrPtr>(cx, lpPathName)?,
        path::<CStrPtr>(cx, lpPrefixString)?,
    );
    let Some((name, u)) = temp_file_name(cx, d, p, uUnique)? else {
        return Ok(0);
    };
    let mut b = encode_file_api(cx.proc, &name);
    b.push(0);
    cx.proc.mem.write_bytes(lpTempFileName.0, &b)?;
    Ok(u)
}

pub fn GetTempFileNameW(
    cx: &mut Ctx,
    lpPathName: Ptr,
    lpPrefixString: Ptr,
    uUnique: u32,
    lpTempFileName: Ptr,
) -> ApiResult<u32> {
    let (d, p) = (
        path::<WStrPtr>(cx, lpPathName)?,
        path::<WStrPtr>(cx, lpPrefixString)?,
    );
    let Some((name, u)) = temp_file_name(cx, d, p, uUnique)? else {
        return Ok(0);
    };
    let w: Vec<u16> = name.encode_utf16().chain([0]).collect();
    write_wide(cx.proc, lpTempFileName.0, &w)?;
    Ok(u)
}

pub fn GetCurrentDirectory<S: GuestStr>(
    cx: &mut Ctx,
    nBufferLength: u32,
    lpBuffer: Ptr,
) -> ApiResult<u32> {
    let d = vfs(cx.proc)?.current_dir();
    S::copy_out_file_api(cx.proc, lpBuffer.0, nBufferLength, &d)
}

pub fn SetCurrentDirectory<S: GuestStr>(cx: &mut Ctx, lpPathName: Ptr) -> ApiResult<bool> {
    let p = path::<S>(cx, lpPathName)?;
    let r = vfs(cx.proc)?.set_current_dir(&p);
    vfs_bool(cx, r)
}

pub fn GetWindowsDirectory<S: GuestStr>(cx: &mut Ctx, lpBuffer: Ptr, uSize: u32) -> ApiResult<u32> {
    let d = vfs(cx.proc)?.windows_dir();
    S::copy_out_file_api(cx.proc, lpBuffer.0, uSize, &d)
}

pub fn GetSystemDirectory<S: GuestStr>(cx: &mut Ctx, lpBuffer: Ptr, uSize: u32) -> ApiResult<u32> {
    let d = vfs(cx.proc)?.system_dir();
    S::copy_out_file_api(cx.proc, lpBuffer.0, uSize, &d)
}

// ---- drives -------------------------------------------------------------------------------

/// The drive letter a root path names (`C:\`, `C:`, `c:/`), or the current drive
/// for NULL; `None` if it is not a root path.
fn root_drive(cx: &Ctx, p: Ptr, wide: bool) -> ApiResult<Option<char>> {
    let vfs = vfs(cx.proc)?;
    if p.is_null() {
        return Ok(Some(vfs.drive()));
    }
    let s = if wide {
        path::<WStrPtr>(cx, p)?
    } else {
        path::<CStrPtr>(cx, p)?
    };
    let mut cs = s.chars();
    let (Some(d), Some(':')) = (cs.next(), cs.next()) else {
        return Ok(None);
    };
    let rest: String = cs.collect();
    if !(rest.is_empty() || rest == "\\" || rest == "/") {
        return Ok(None);
    }
    Ok(Some(d.to_ascii_uppercase()))
}

/// Sizes the guest's drive reports: 4 KiB clusters, about 2 GiB free of 4 GiB (the
/// most Windows 9x's GetDiskFreeSpace reports).
const SECTORS_PER_CLUSTER: u32 = 8;
const BYTES_PER_SECTOR: u32 = 512;
const FREE_CLUSTERS: u32 = 0x7fff_8000 / 4096;
const TOTAL_CLUSTERS: u32 = 2 * FREE_CLUSTERS;

fn our_drive(cx: &mut Ctx, root: Ptr, wide: bool) -> ApiResult<bool> {
    let d = root_drive(cx, root, wide)?;
    if d != Some(vfs(cx.proc)?.drive()) {
        set_last_error(cx, err::ERROR_PATH_NOT_FOUND)?;
        return Ok(false);
    }
    Ok(true)
}

fn disk_free_space(
    cx: &mut Ctx,
    wide: bool,
    lpRootPathName: Ptr,
    lpSectorsPerCluster: Ptr,
    lpBytesPerSector: Ptr,
    lpNumberOfFreeClusters: Ptr,
    lpTotalNumberOfClusters: Ptr,
) -> ApiResult<bool> {
    if !our_drive(cx, lpRootPathName, wide)? {
        return Ok(false);
    }
    for (p, v) in [
        (lpSectorsPerCluster, SECTORS_PER_CLUSTER),
        (lpBytesPerSector, BYTES_PER_SECTOR),
        (lpNumberOfFreeClusters, FREE_CLUSTERS),
        (lpTotalNumberOfClusters, TOTAL_CLUSTERS),
    ] {
        if !p.is_null() {
            cx.proc.mem.write_u32(p.0, v)?;
        }
    }
    Ok(true)
}

fn disk_free_space_ex(
    cx: &mut Ctx,
    wide: bool,
    lpDirectoryName: Ptr,
    lpFreeBytesAvailableToCaller: Ptr,
    lpTotalNumberOfBytes: Ptr,
    lpTotalNumberOfFreeBytes: Ptr,
) -> ApiResult<bool> {
    let cluster = (SECTORS_PER_CLUSTER * BYTES_PER_SECTOR) as u64;
    if !lpDirectoryName.is_null() {
        let p = if wide {
            path::<WStrPtr>(cx, lpDirectoryName)?
        } else {
            path::<CStrPtr>(cx, lpDirectoryName)?
        };
        match vfs(cx.proc)?.resolve(&p) {
            Ok(crate::vfs::Resolved::Path {
                kind: Some(crate::vfs::EntryKind::Directory),
                ..
            }) => {}
            Ok(_) => return fail(cx, err::ERROR_PATH_NOT_FOUND, false),
            Err(e) => return vfs_fail(cx, &e, false),
        }
    }
    for (p, v) in [
        (lpFreeBytesAvailableToCaller, FREE_CLUSTERS as u64 * cluster),
        (lpTotalNumberOfBytes, TOTAL_CLUSTERS as u64 * cluster),
        (lpTotalNumberOfFreeBytes, FREE_CLUSTERS as u64 * cluster),
    ] {
        if !p.is_null() {
            cx.proc.mem.write_u64(p.0, v)?;
        }
    }
    Ok(true)
}

const DRIVE_NO_ROOT_DIR: u32 = 1;
const DRIVE_FIXED: u32 = 3;

fn drive_type(cx: &mut Ctx, lpRootPathName: Ptr, wide: bool) -> ApiResult<u32> {
    let d = root_drive(cx, lpRootPathName, wide)?;
    Ok(if d == Some(vfs(cx.proc)?.drive()) {
        DRIVE_FIXED
    } else {
        DRIVE_NO_ROOT_DIR
    })
}

pub fn GetLogicalDrives(cx: &mut Ctx) -> ApiResult<u32> {
    let d = vfs(cx.proc)?.drive();
    Ok(1 << (d as u32 - 'A' as u32))
}

pub fn GetLogicalDriveStringsA(cx: &mut Ctx, nBufferLength: u32, lpBuffer: Ptr) -> ApiResult<u32> {
    let s = format!("{}:\\\0\0", vfs(cx.proc)?.drive());
    let n = s.len() as u32 - 1;
    if nBufferLength < n + 1 {
        return Ok(n + 1);
    }
    cx.proc.mem.write_bytes(lpBuffer.0, s.as_bytes())?;
    Ok(n)
}

fn volume_information(
    cx: &mut Ctx,
    wide: bool,
    lpRootPathName: Ptr,
    lpVolumeNameBuffer: Ptr,
    nVolumeNameSize: u32,
    lpVolumeSerialNumber: Ptr,
    lpMaximumComponentLength: Ptr,
    lpFileSystemFlags: Ptr,
    lpFileSystemNameBuffer: Ptr,
    nFileSystemNameSize: u32,
) -> ApiResult<bool> {
    if !our_drive(cx, lpRootPathName, wide)? {
        return Ok(false);
    }
    for (buf, size, text) in [
        (lpVolumeNameBuffer, nVolumeNameSize, VOLUME_LABEL),
        (lpFileSystemNameBuffer, nFileSystemNameSize, "FAT32"),
    ] {
        if buf.is_null() {
            continue;
        }
        // Sizes are in characters; both texts are ASCII.
        if (size as usize) <= text.len() {
            return fail(cx, ERROR_BAD_LENGTH, false);
        }
        let b: Vec<u8> = if wide {
            text.encode_utf16()
                .chain([0])
                .flat_map(|u| u.to_le_bytes())
                .collect()
        } else {
            text.bytes().chain([0]).collect()
        };
        cx.proc.mem.write_bytes(buf.0, &b)?;
    }
    // FS_CASE_IS_PRESERVED | FS_UNICODE_STORED_ON_DISK: long names on FAT32.
    for (p, v) in [
        (lpVolumeSerialNumber, VOLUME_SERIAL),
        (lpMaximumComponentLength, 255),
        (lpFileSystemFlags, 0x6),
    ] {
        if !p.is_null() {
            cx.proc.mem.write_u32(p.0, v)?;
        }
    }
    Ok(true)
}

pub fn GetDiskFreeSpace<S: GuestStr>(
    cx: &mut Ctx,
    lpRootPathName: Ptr,
    lpSectorsPerCluster: Ptr,
    lpBytesPerSector: Ptr,
    lpNumberOfFreeClusters: Ptr,
    lpTotalNumberOfClusters: Ptr,
) -> ApiResult<bool> {
    disk_free_space(
        cx,
        S::WIDE,
        lpRootPathName,
        lpSectorsPerCluster,
        lpBytesPerSector,
        lpNumberOfFreeClusters,
        lpTotalNumberOfClusters,
    )
}

pub fn GetDiskFreeSpaceEx<S: GuestStr>(
    cx: &mut Ctx,
    lpDirectoryName: Ptr,
    lpFreeBytesAvailableToCaller: Ptr,
    lpTotalNumberOfBytes: Ptr,
    lpTotalNumberOfFreeBytes: Ptr,
) -> ApiResult<bool> {
    disk_free_space_ex(
        cx,
        S::WIDE,
        lpDirectoryName,
        lpFreeBytesAvailableToCaller,
        lpTotalNumberOfBytes,
        lpTotalNumberOfFreeBytes,
    )
}

pub fn GetDriveType<S: GuestStr>(cx: &mut Ctx, lpRootPathName: Ptr) -> ApiResult<u32> {
    drive_type(cx, lpRootPathName, S::WIDE)
}

/// Lengths are in characters: the result excludes the final NUL.
pub fn GetLogicalDriveStringsW(cx: &mut Ctx, nBufferLength: u32, lpBuffer: Ptr) -> ApiResult<u32> {
    let s: Vec<u16> = format!("{}:\\\0\0", vfs(cx.proc)?.drive())
        .encode_utf16()
        .collect();
    let n = s.len() as u32 - 1;
    if nBufferLength < n + 1 {
        return Ok(n + 1);
    }
    let b: Vec<u8> = s.iter().flat_map(|u| u.to_le_bytes()).collect();
    cx.proc.mem.write_bytes(lpBuffer.0, &b)?;
    Ok(n)
}

pub fn GetVolumeInformation<S: GuestStr>(
    cx: &mut Ctx,
    lpRootPathName: Ptr,
    lpVolumeNameBuffer: Ptr,
    nVolumeNameSize: u32,
    lpVolumeSerialNumber: Ptr,
    lpMaximumComponentLength: Ptr,
    lpFileSystemFlags: Ptr,
    lpFileSystemNameBuffer: Ptr,
    nFileSystemNameSize: u32,
) -> ApiResult<bool> {
    volume_information(
        cx,
        S::WIDE,
        lpRootPathName,
        lpVolumeNameBuffer,
        nVolumeNameSize,
        lpVolumeSerialNumber,
        lpMaximumComponentLength,
        lpFileSystemFlags,
        lpFileSystemNameBuffer,
        nFileSystemNameSize,
    )
}

// ---- DeviceIoControl ----------------------------------------------------------------------

const FSCTL_GET_REPARSE_POINT: u32 = 0x0009_00a8;
const ERROR_NOT_A_REPARSE_POINT: u32 = 4390;

/// There are no devices, only files and directories of the sandbox, which has no
/// reparse points: FSCTL_GET_REPARSE_POINT says so, and every other control code
/// fails with ERROR_INVALID_FUNCTION, as a file system does for codes it lacks.
pub fn DeviceIoControl(
    cx: &mut Ctx,
    hDevice: u32,
    dwIoControlCode: u32,
    _lpInBuffer: Ptr,
    _nInBufferSize: u32,
    _lpOutBuffer: Ptr,
    _nOutBufferSize: u32,
    lpBytesReturned: Ptr,
    lpOverlapped: Ptr,
) -> ApiResult<bool> {
    if object(cx, hDevice).is_none() {
        return fail(cx, err::ERROR_INVALID_HANDLE, false);
    }
    let c = cx.proc.slot::<IoCounters>();
    IoCounters::count(&c.other_ops, &c.other_bytes, 0);
    if lpOverlapped.is_null() && !lpBytesReturned.is_null() {
        cx.proc.mem.write_u32(lpBytesReturned.0, 0)?;
    }
    let e = if dwIoControlCode == FSCTL_GET_REPARSE_POINT {
        ERROR_NOT_A_REPARSE_POINT
    } else {
        err::ERROR_INVALID_FUNCTION
    };
    fail(cx, e, false)
}

// ---- file mappings ---------------------------------------------------------------------------

const PAGE_READONLY: u32 = 0x02;
const PAGE_READWRITE: u32 = 0x04;
const PAGE_WRITECOPY: u32 = 0x08;
const FILE_MAP_COPY: u32 = 0x1;
const FILE_MAP_WRITE: u32 = 0x2;

fn create_mapping(
    cx: &mut Ctx,
    hFile: u32,
    protect: u32,
    size: u64,
    name: Option<String>,
) -> ApiResult<u32> {
    let writable = match protect & 0xff {
        PAGE_READONLY | PAGE_WRITECOPY => false,
        PAGE_READWRITE => true,
        p => {
            if p & 0xf0 != 0 {
                return Err(ApiError::UnimplementedCase(format!(
                    "CreateFileMapping: executable protection {protect:#x}"
                )));
            }
            return fail(cx, err::ERROR_INVALID_PARAMETER, 0);
        }
    };
    if protect & 0xffff_ff00 != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "CreateFileMapping: section attributes {protect:#x}"
        )));
    }
    if let Some(n) = &name {
        let existing = cx
            .proc
            .k32
            .files
            .named
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(n)
            .and_then(|w| w.upgrade());
        if let Some(m) = existing {
            let h = insert(cx, m);
            set_last_error(cx, err::ERROR_ALREADY_EXISTS)?;
            return Ok(h);
        }
    }
    let mapping = if hFile == INVALID_HANDLE_VALUE {
        if size == 0 || size > 0x4000_0000 {
            return fail(cx, err::ERROR_INVALID_PARAMETER, 0);
        }
        Mapping {
            file: None,
            size,
            writable,
            backing: Mutex::new(vec![0u8; size as usize]),
        }
    } else {
        let Some(f) = get_as::<FileObject>(cx, hFile) else {
            return fail(cx, err::ERROR_INVALID_HANDLE, 0);
        };
        if (writable && !f.write) || !f.read {
            return fail(cx, err::ERROR_ACCESS_DENIED, 0);
        }
        let fsize = match f.size() {
            Ok(s) => s,
            Err(e) => return fail(cx, io_code(&e), 0),
        };
        let size = if size == 0 { fsize } else { size };
        if size == 0 {
            return fail(cx, ERROR_FILE_INVALID, 0);
        }
        if size > fsize {
            // A larger mapping extends the file, which needs write access.
            if !writable {
                return fail(cx, err::ERROR_NOT_ENOUGH_MEMORY, 0);
            }
            if let Err(e) = f.host.get().set_len(size) {
                return fail(cx, io_code(&e), 0);
            }
        }
        Mapping {
            file: Some(f),
            size,
            writable,
            backing: Mutex::new(Vec::new()),
        }
    };
    let m = Arc::new(mapping);
    if let Some(n) = name {
        cx.proc
            .k32
            .files
            .named
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(n, Arc::downgrade(&m));
    }
    let h = insert(cx, m);
    set_last_error(cx, err::NO_ERROR)?;
    Ok(h)
}

pub fn CreateFileMapping<S: GuestStr>(
    cx: &mut Ctx,
    hFile: u32,
    _lpFileMappingAttributes: u32,
    flProtect: u32,
    dwMaximumSizeHigh: u32,
    dwMaximumSizeLow: u32,
    lpName: Ptr,
) -> ApiResult<u32> {
    let name = if lpName.is_null() {
        None
    } else {
        Some(path::<S>(cx, lpName)?)
    };
    create_mapping(
        cx,
        hFile,
        flProtect,
        (dwMaximumSizeHigh as u64) << 32 | dwMaximumSizeLow as u64,
        name,
    )
}

fn open_mapping(cx: &mut Ctx, name: String) -> ApiResult<u32> {
    let m = cx
        .proc
        .k32
        .files
        .named
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&name)
        .and_then(|w| w.upgrade());
    match m {
        Some(m) => Ok(insert(cx, m)),
        None => fail(cx, err::ERROR_FILE_NOT_FOUND, 0),
    }
}

pub fn OpenFileMapping<S: GuestStr>(
    cx: &mut Ctx,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    lpName: Ptr,
) -> ApiResult<u32> {
    let n = path::<S>(cx, lpName)?;
    open_mapping(cx, n)
}

fn map_view(cx: &mut Ctx, h: u32, access: u32, offset: u64, len: u32, at: u32) -> ApiResult<u32> {
    let Some(m) = get_as::<Mapping>(cx, h) else {
        return fail(cx, err::ERROR_INVALID_HANDLE, 0);
    };
    if !offset.is_multiple_of(crate::address_space::GRANULARITY as u64) {
        return fail(cx, ERROR_MAPPED_ALIGNMENT, 0);
    }
    let write = access & FILE_MAP_WRITE != 0 && access & FILE_MAP_COPY == 0;
    let copy = access & FILE_MAP_COPY != 0;
    if write && !m.writable {
        return fail(cx, err::ERROR_ACCESS_DENIED, 0);
    }
    if offset >= m.size {
        return fail(cx, err::ERROR_ACCESS_DENIED, 0);
    }
    let len = if len == 0 {
        (m.size - offset).min(u32::MAX as u64) as u32
    } else {
        len
    };
    if offset + len as u64 > m.size {
        return fail(cx, err::ERROR_ACCESS_DENIED, 0);
    }
    let data = match &m.file {
        Some(f) => match f.read_at(offset, len as usize) {
            Ok(v) => v,
            Err(e) => return fail(cx, io_code(&e), 0),
        },
        None => {
            let b = m.backing.lock().unwrap_or_else(|e| e.into_inner());
            b[offset as usize..offset as usize + len as usize].to_vec()
        }
    };
    let prot = if write || copy {
        winterp_core::mem::Prot::RW
    } else {
        winterp_core::mem::Prot::R
    };
    let base = {
        let mut vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        let want = (at != 0).then_some(at);
        match vm.alloc(want, len, prot, MAPPING_TAG) {
            Ok(b) => b,
            Err(_) => {
                drop(vm);
                let code = if at != 0 {
                    err::ERROR_INVALID_ADDRESS
                } else {
                    err::ERROR_NOT_ENOUGH_MEMORY
                };
                return fail(cx, code, 0);
            }
        }
    };
    if at != 0 && base != at {
        let _ = cx
            .proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(base);
        return fail(cx, ERROR_MAPPED_ALIGNMENT, 0);
    }
    cx.proc.mem.write_bytes(base, &data)?;
    cx.proc
        .k32
        .files
        .views
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            base,
            View {
                mapping: m,
                offset,
                len,
                write_back: write,
            },
        );
    Ok(base)
}

pub fn MapViewOfFile(
    cx: &mut Ctx,
    hFileMappingObject: u32,
    dwDesiredAccess: u32,
    dwFileOffsetHigh: u32,
    dwFileOffsetLow: u32,
    dwNumberOfBytesToMap: u32,
) -> ApiResult<u32> {
    let off = (dwFileOffsetHigh as u64) << 32 | dwFileOffsetLow as u64;
    map_view(
        cx,
        hFileMappingObject,
        dwDesiredAccess,
        off,
        dwNumberOfBytesToMap,
        0,
    )
}

pub fn MapViewOfFileEx(
    cx: &mut Ctx,
    hFileMappingObject: u32,
    dwDesiredAccess: u32,
    dwFileOffsetHigh: u32,
    dwFileOffsetLow: u32,
    dwNumberOfBytesToMap: u32,
    lpBaseAddress: u32,
) -> ApiResult<u32> {
    let off = (dwFileOffsetHigh as u64) << 32 | dwFileOffsetLow as u64;
    map_view(
        cx,
        hFileMappingObject,
        dwDesiredAccess,
        off,
        dwNumberOfBytesToMap,
        lpBaseAddress,
    )
}

/// Copies `[start, start+len)` of a view back to its file or backing store.
fn write_back(proc: &Process, base: u32, v: &View, start: u32, len: u32) -> Result<(), u32> {
    let mut buf = vec![0u8; len as usize];
    proc.mem
        .read_bytes(base + start, &mut buf)
        .map_err(|_| err::ERROR_NOACCESS)?;
    let at = v.offset + start as u64;
    match &v.mapping.file {
        Some(f) => f.host.get().write_all_at(&buf, at).map_err(|e| io_code(&e)),
        None => {
            let mut b = v.mapping.backing.lock().unwrap_or_else(|e| e.into_inner());
            b[at as usize..at as usize + buf.len()].copy_from_slice(&buf);
            Ok(())
        }
    }
}

pub fn UnmapViewOfFile(cx: &mut Ctx, lpBaseAddress: u32) -> ApiResult<bool> {
    let Some(v) = cx
        .proc
        .k32
        .files
        .views
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&lpBaseAddress)
    else {
        return fail(cx, err::ERROR_INVALID_ADDRESS, false);
    };
    let r = if v.write_back {
        write_back(cx.proc, lpBaseAddress, &v, 0, v.len)
    } else {
        Ok(())
    };
    let _ = cx
        .proc
        .vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .release(lpBaseAddress);
    match r {
        Ok(()) => Ok(true),
        Err(code) => fail(cx, code, false),
    }
}

pub fn FlushViewOfFile(
    cx: &mut Ctx,
    lpBaseAddress: u32,
    dwNumberOfBytesToFlush: u32,
) -> ApiResult<bool> {
    let views = cx
        .proc
        .k32
        .files
        .views
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let Some((&base, v)) = views
        .iter()
        .find(|(b, v)| lpBaseAddress >= **b && lpBaseAddress - **b < v.len)
    else {
        drop(views);
        return fail(cx, err::ERROR_INVALID_ADDRESS, false);
    };
    let start = lpBaseAddress - base;
    let len = if dwNumberOfBytesToFlush == 0 {
        v.len - start
    } else {
        dwNumberOfBytesToFlush.min(v.len - start)
    };
    let r = if v.write_back {
        write_back(cx.proc, base, v, start, len)
    } else {
        Ok(())
    };
    drop(views);
    match r {
        Ok(()) => Ok(true),
        Err(code) => fail(cx, code, false),
    }
}

/// Writes every writable view back (at process exit).
pub fn flush_all_views(proc: &Process) {
    let views = proc
        .k32
        .files
        .views
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    for (&base, v) in views.iter() {
        if v.write_back
            && let Err(code) = write_back(proc, base, v, 0, v.len)
        {
            log::warn!("writing back the file view at {base:#010x} failed (error {code})");
        }
    }
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("ReadFile", ReadFile),
        stdcall("WriteFile", WriteFile),
        stdcall("SetFilePointer", SetFilePointer),
        stdcall("SetFilePointerEx", SetFilePointerEx),
        stdcall("GetFileSize", GetFileSize),
        stdcall("GetFileSizeEx", GetFileSizeEx),
        stdcall("GetFileType", GetFileType),
        stdcall("FlushFileBuffers", FlushFileBuffers),
        stdcall("SetEndOfFile", SetEndOfFile),
        stdcall("GetFileTime", GetFileTime),
        stdcall("SetFileTime", SetFileTime),
        stdcall("GetFileInformationByHandle", GetFileInformationByHandle),
        stdcall("FindClose", FindClose),
        stdcall("GetFullPathNameA", GetFullPathNameA),
        stdcall("GetFullPathNameW", GetFullPathNameW),
        stdcall("GetTempFileNameA", GetTempFileNameA),
        stdcall("GetTempFileNameW", GetTempFileNameW),
        stdcall("DeviceIoControl", DeviceIoControl),
        stdcall("GetLogicalDriveStringsW", GetLogicalDriveStringsW),
        stdcall("GetLogicalDrives", GetLogicalDrives),
        stdcall("GetLogicalDriveStringsA", GetLogicalDriveStringsA),
        stdcall("MapViewOfFile", MapViewOfFile),
        stdcall("MapViewOfFileEx", MapViewOfFileEx),
        stdcall("UnmapViewOfFile", UnmapViewOfFile),
        stdcall("FlushViewOfFile", FlushViewOfFile),
    ];
    v.extend(stdcall_aw![
        GetTempPath,
        GetCurrentDirectory,
        GetWindowsDirectory,
        GetSystemDirectory,
        CreateFile,
        GetFileAttributes,
        GetFileAttributesEx,
        SetFileAttributes,
        FindFirstFile,
        FindNextFile,
        CreateDirectory,
        RemoveDirectory,
        DeleteFile,
        MoveFile,
        MoveFileEx,
        CopyFile,
        SetCurrentDirectory,
        GetDiskFreeSpace,
        GetDiskFreeSpaceEx,
        GetDriveType,
        GetVolumeInformation,
        CreateFileMapping,
        OpenFileMapping,
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::CloseHandle;
    use crate::kernel32::misc::test_support::Harness;
    use crate::vfs::VfsConfig;

    struct Files {
        h: Harness,
        _tmp: tempfile::TempDir,
        program: std::path::PathBuf,
        overlay: std::path::PathBuf,
        buf: u32,
    }

    fn files() -> Files {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let program = root.join("game");
        fs::create_dir_all(program.join("DATA")).unwrap();
        fs::write(program.join("GAME.EXE"), b"MZ").unwrap();
        fs::write(program.join("DATA/LEVEL1.DAT"), b"0123456789").unwrap();
        let overlay = root.join("overlay");
        let h = Harness::new();
        let v = Vfs::new(VfsConfig {
            program_dir: program.clone(),
            guest_dir: r"C:\GAMES".into(),
            overlay_dir: overlay.clone(),
            allow_writes_to_original: false,
        })
        .unwrap();
        h.proc.vfs.set(Arc::new(v)).unwrap();
        let buf = h.scratch(0x10000);
        Files {
            h,
            _tmp: tmp,
            program,
            overlay,
            buf,
        }
    }

    fn open(f: &mut Files, name: &str, access: u32, disp: u32) -> u32 {
        f.h.put_cstr(f.buf, name);
        CreateFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), access, 0, 0, disp, 0x80, 0).unwrap()
    }

    #[test]
    fn read_write_seek_and_size() {
        let mut f = files();
        let h = open(&mut f, r"DATA\LEVEL1.DAT", GENERIC_READ, 3);
        assert_ne!(h, INVALID_HANDLE_VALUE);
        assert_eq!(f.h.last_error(), 0);
        let (data, n) = (f.buf + 0x1000, f.buf + 0x2000);
        assert!(ReadFile(&mut f.h.cx(), h, Ptr(data), 4, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 4);
        assert_eq!(f.h.cstr(data).as_bytes()[..4], *b"0123");
        assert_eq!(SetFilePointer(&mut f.h.cx(), h, -2, Ptr(0), 2).unwrap(), 8);
        assert!(ReadFile(&mut f.h.cx(), h, Ptr(data), 100, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 2);
        // At the end a read succeeds with 0 bytes.
        assert!(ReadFile(&mut f.h.cx(), h, Ptr(data), 100, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 0);
        assert_eq!(
            SetFilePointer(&mut f.h.cx(), h, -20, Ptr(0), 1).unwrap(),
            INVALID_SET_FILE_POINTER
        );
        assert_eq!(f.h.last_error(), err::ERROR_NEGATIVE_SEEK);
        assert_eq!(GetFileSize(&mut f.h.cx(), h, Ptr(n)).unwrap(), 10);
        assert_eq!(f.h.u32(n), 0);
        assert_eq!(GetFileType(&mut f.h.cx(), h).unwrap(), FILE_TYPE_DISK);
        // Read-only handle: writing is refused.
        assert!(!WriteFile(&mut f.h.cx(), h, Ptr(data), 1, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.last_error(), err::ERROR_ACCESS_DENIED);
        assert!(CloseHandle(&mut f.h.cx(), h).unwrap());
        assert!(!CloseHandle(&mut f.h.cx(), h).unwrap());
        assert_eq!(f.h.last_error(), err::ERROR_INVALID_HANDLE);

        // Create, write, truncate; the write lands in the overlay only.
        let w = open(
            &mut f,
            r"C:\GAMES\SAVE.DAT",
            GENERIC_READ | GENERIC_WRITE,
            2,
        );
        assert_ne!(w, INVALID_HANDLE_VALUE);
        f.h.put_cstr(data, "hello world");
        assert!(WriteFile(&mut f.h.cx(), w, Ptr(data), 11, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 11);
        assert_eq!(SetFilePointer(&mut f.h.cx(), w, 5, Ptr(0), 0).unwrap(), 5);
        assert!(SetEndOfFile(&mut f.h.cx(), w).unwrap());
        let p = f.buf + 0x3000;
        assert!(GetFileSizeEx(&mut f.h.cx(), w, Ptr(p)).unwrap());
        assert_eq!(f.h.proc.mem.read_u64(p).unwrap(), 5);
        CloseHandle(&mut f.h.cx(), w).unwrap();
        assert!(!f.program.join("SAVE.DAT").exists());
        assert_eq!(
            fs::read(f.overlay.join("drive_c/GAMES/SAVE.DAT")).unwrap(),
            b"hello"
        );
        // CREATE_ALWAYS on an existing file succeeds with ERROR_ALREADY_EXISTS.
        let w = open(&mut f, r"SAVE.DAT", GENERIC_WRITE, 2);
        assert_ne!(w, INVALID_HANDLE_VALUE);
        assert_eq!(f.h.last_error(), err::ERROR_ALREADY_EXISTS);
        CloseHandle(&mut f.h.cx(), w).unwrap();
        // Missing files and directories.
        assert_eq!(
            open(&mut f, r"NOPE.TXT", GENERIC_READ, 3),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_FILE_NOT_FOUND);
        assert_eq!(
            open(&mut f, r"NODIR\X.TXT", GENERIC_READ, 3),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_PATH_NOT_FOUND);
        assert_eq!(
            open(&mut f, r"SAVE.DAT", GENERIC_READ, 9),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_INVALID_PARAMETER);
    }

    #[test]
    fn console_and_null_devices() {
        let mut f = files();
        let (data, n) = (f.buf + 0x1000, f.buf + 0x2000);
        let out = super::super::process::std_handles(&f.h.proc)[1];
        f.h.put_cstr(data, "to stdout");
        assert!(WriteFile(&mut f.h.cx(), out, Ptr(data), 9, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(GetFileType(&mut f.h.cx(), out).unwrap(), FILE_TYPE_CHAR);
        let con = open(&mut f, "CONOUT$", GENERIC_WRITE, 3);
        f.h.put_cstr(data, "!");
        assert!(WriteFile(&mut f.h.cx(), con, Ptr(data), 1, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(*f.h.host.out.lock().unwrap(), b"to stdout!");
        let nul = open(&mut f, "NUL", GENERIC_READ | GENERIC_WRITE, 3);
        assert!(WriteFile(&mut f.h.cx(), nul, Ptr(data), 1, Ptr(n), Ptr(0)).unwrap());
        assert!(ReadFile(&mut f.h.cx(), nul, Ptr(data), 10, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 0);
        f.h.host.input.lock().unwrap().extend_from_slice(b"typed");
        let inp = super::super::process::std_handles(&f.h.proc)[0];
        assert!(ReadFile(&mut f.h.cx(), inp, Ptr(data), 10, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 5);
    }

    #[test]
    fn find_data_layout_and_directory_ops() {
        let mut f = files();
        let fd = f.buf + 0x1000;
        f.h.put_cstr(f.buf, r"DATA\*");
        let h = FindFirstFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), Ptr(fd)).unwrap();
        assert_ne!(h, INVALID_HANDLE_VALUE);
        let mut names = vec![];
        loop {
            names.push((f.h.cstr(fd + 44), f.h.u32(fd), f.h.u32(fd + 32)));
            if !FindNextFile::<CStrPtr>(&mut f.h.cx(), h, Ptr(fd)).unwrap() {
                break;
            }
        }
        assert_eq!(f.h.last_error(), err::ERROR_NO_MORE_FILES);
        assert!(FindClose(&mut f.h.cx(), h).unwrap());
        assert_eq!(
            names,
            [
                (".".to_string(), 0x10, 0),
                ("..".to_string(), 0x10, 0),
                ("LEVEL1.DAT".to_string(), 0x20, 10)
            ]
        );
        // The wide form puts the name at the same offset in UTF-16.
        f.h.put_wstr(f.buf, r"DATA\L*.DAT");
        let h = FindFirstFile::<WStrPtr>(&mut f.h.cx(), Ptr(f.buf), Ptr(fd)).unwrap();
        assert_eq!(f.h.wstr(fd + 44), "LEVEL1.DAT");
        FindClose(&mut f.h.cx(), h).unwrap();
        f.h.put_cstr(f.buf, r"*.XYZ");
        assert_eq!(
            FindFirstFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), Ptr(fd)).unwrap(),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_FILE_NOT_FOUND);

        f.h.put_cstr(f.buf, "NEWDIR");
        assert!(CreateDirectory::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), 0).unwrap());
        assert!(!CreateDirectory::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), 0).unwrap());
        assert_eq!(f.h.last_error(), err::ERROR_ALREADY_EXISTS);
        assert_eq!(
            GetFileAttributes::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap(),
            FILE_ATTRIBUTE_DIRECTORY_VALUE
        );
        assert!(SetCurrentDirectory::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap());
        let out = f.buf + 0x2000;
        assert_eq!(
            GetCurrentDirectory::<CStrPtr>(&mut f.h.cx(), 260, Ptr(out)).unwrap(),
            15
        );
        assert_eq!(f.h.cstr(out), r"C:\GAMES\NEWDIR");
        // Too small: the size needed, with the NUL.
        assert_eq!(
            GetCurrentDirectory::<CStrPtr>(&mut f.h.cx(), 5, Ptr(out)).unwrap(),
            16
        );
        f.h.put_cstr(f.buf, r"..\DATA\LEVEL1.DAT");
        let fp = f.buf + 0x3000;
        assert_eq!(
            GetFullPathNameA(&mut f.h.cx(), Ptr(f.buf), 260, Ptr(out), Ptr(fp)).unwrap(),
            24
        );
        assert_eq!(f.h.cstr(out), r"C:\GAMES\DATA\LEVEL1.DAT");
        assert_eq!(f.h.u32(fp), out + 14);
        f.h.put_cstr(f.buf, r"C:\GAMES\DATA\LEVEL1.DAT");
        f.h.put_cstr(f.buf + 0x100, r"C:\GAMES\COPY.DAT");
        assert!(CopyFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), Ptr(f.buf + 0x100), true).unwrap());
        assert!(!CopyFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), Ptr(f.buf + 0x100), true).unwrap());
        assert_eq!(f.h.last_error(), err::ERROR_FILE_EXISTS);
        f.h.put_cstr(f.buf + 0x200, r"C:\GAMES\MOVED.DAT");
        assert!(
            MoveFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf + 0x100), Ptr(f.buf + 0x200)).unwrap()
        );
        assert!(DeleteFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf + 0x200)).unwrap());
        assert!(!DeleteFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf + 0x200)).unwrap());
        assert_eq!(f.h.last_error(), err::ERROR_FILE_NOT_FOUND);
        let ad = f.buf + 0x400;
        assert!(GetFileAttributesEx::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), 0, Ptr(ad)).unwrap());
        assert_eq!(f.h.u32(ad), 0x20);
        assert_eq!(f.h.u32(ad + 32), 10);
    }

    const FILE_ATTRIBUTE_DIRECTORY_VALUE: u32 = 0x10;
    const FILE_SHARE_READ: u32 = 1;
    const FILE_SHARE_WRITE: u32 = 2;
    const FILE_SHARE_DELETE: u32 = 4;
    const ERROR_SHARING_VIOLATION: u32 = 32;

    fn open_shared(f: &mut Files, name: &str, access: u32, share: u32, disp: u32) -> u32 {
        f.h.put_cstr(f.buf, name);
        CreateFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf), access, share, 0, disp, 0x80, 0).unwrap()
    }

    fn delete(f: &mut Files, name: &str) -> bool {
        f.h.put_cstr(f.buf, name);
        DeleteFile::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap()
    }

    // CreateFile's documented sharing rules, seen through the API: the error is
    // ERROR_SHARING_VIOLATION, and the open ends with the last handle.
    #[test]
    fn share_modes_through_create_file_and_close_handle() {
        let mut f = files();
        let h = open_shared(&mut f, r"DATA\LEVEL1.DAT", GENERIC_READ, FILE_SHARE_READ, 3);
        assert_ne!(h, INVALID_HANDLE_VALUE);
        let w = open_shared(
            &mut f,
            r"DATA\LEVEL1.DAT",
            GENERIC_WRITE,
            FILE_SHARE_READ | FILE_SHARE_WRITE,
            3,
        );
        assert_eq!(w, INVALID_HANDLE_VALUE);
        assert_eq!(f.h.last_error(), ERROR_SHARING_VIOLATION);
        assert!(!delete(&mut f, r"DATA\LEVEL1.DAT"));
        assert_eq!(f.h.last_error(), ERROR_SHARING_VIOLATION);
        // A duplicate is the same open: closing the original handle keeps it.
        let dup = f.buf + 0x3000;
        assert!(
            crate::kernel32::misc::DuplicateHandle(
                &mut f.h.cx(),
                crate::objects::CURRENT_PROCESS,
                h,
                crate::objects::CURRENT_PROCESS,
                Ptr(dup),
                0,
                false,
                0
            )
            .unwrap()
        );
        let dup = f.h.u32(dup);
        assert!(CloseHandle(&mut f.h.cx(), h).unwrap());
        assert!(!delete(&mut f, r"DATA\LEVEL1.DAT"));
        assert_eq!(f.h.last_error(), ERROR_SHARING_VIOLATION);
        assert!(CloseHandle(&mut f.h.cx(), dup).unwrap());
        let w = open_shared(&mut f, r"DATA\LEVEL1.DAT", GENERIC_WRITE, 0, 3);
        assert_ne!(w, INVALID_HANDLE_VALUE);
        CloseHandle(&mut f.h.cx(), w).unwrap();
        assert!(delete(&mut f, r"DATA\LEVEL1.DAT"));
        // dwShareMode bits beyond FILE_SHARE_DELETE are invalid.
        assert_eq!(
            open_shared(&mut f, "GAME.EXE", GENERIC_READ, 0x10, 3),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_INVALID_PARAMETER);
        // DELETE access alone takes part: a reader that does not share delete
        // conflicts with it.
        let r = open_shared(&mut f, "GAME.EXE", GENERIC_READ, FILE_SHARE_READ, 3);
        assert_eq!(
            open_shared(&mut f, "GAME.EXE", DELETE, 7, 3),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), ERROR_SHARING_VIOLATION);
        CloseHandle(&mut f.h.cx(), r).unwrap();
    }

    #[test]
    fn delete_on_close_needs_share_delete_and_deletes_at_close() {
        let mut f = files();
        let flags = 0x80 | FILE_FLAG_DELETE_ON_CLOSE;
        f.h.put_cstr(f.buf, "TEMP.DAT");
        let h = CreateFile::<CStrPtr>(
            &mut f.h.cx(),
            Ptr(f.buf),
            GENERIC_READ | GENERIC_WRITE,
            FILE_SHARE_READ | FILE_SHARE_DELETE,
            0,
            1,
            flags,
            0,
        )
        .unwrap();
        assert_ne!(h, INVALID_HANDLE_VALUE);
        // The documented rule: later opens fail unless they share delete.
        assert_eq!(
            open_shared(
                &mut f,
                "TEMP.DAT",
                GENERIC_READ,
                FILE_SHARE_READ | FILE_SHARE_WRITE,
                3
            ),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), ERROR_SHARING_VIOLATION);
        CloseHandle(&mut f.h.cx(), h).unwrap();
        f.h.put_cstr(f.buf, "TEMP.DAT");
        assert_eq!(
            GetFileAttributes::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap(),
            INVALID_FILE_ATTRIBUTES
        );
        assert!(!f.overlay.join("drive_c/GAMES/TEMP.DAT").exists());
    }

    /// Two handles are one file: a reader opened before a writer copied the
    /// original into the overlay reads and sizes what the writer wrote.
    #[test]
    fn handles_see_each_others_writes_across_a_copy_up() {
        let mut f = files();
        let share = FILE_SHARE_READ | FILE_SHARE_WRITE;
        let r = open_shared(&mut f, r"DATA\LEVEL1.DAT", GENERIC_READ, share, 3);
        let w = open_shared(&mut f, r"DATA\LEVEL1.DAT", GENERIC_WRITE, share, 3);
        assert_ne!(w, INVALID_HANDLE_VALUE);
        let (data, n) = (f.buf + 0x1000, f.buf + 0x2000);
        assert_eq!(SetFilePointer(&mut f.h.cx(), w, 0, Ptr(0), 2).unwrap(), 10);
        f.h.put_cstr(data, "ABCDE");
        assert!(WriteFile(&mut f.h.cx(), w, Ptr(data), 5, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(GetFileSize(&mut f.h.cx(), r, Ptr(0)).unwrap(), 15);
        assert!(ReadFile(&mut f.h.cx(), r, Ptr(data), 100, Ptr(n), Ptr(0)).unwrap());
        assert_eq!(f.h.u32(n), 15);
        assert_eq!(f.h.cstr(data).as_bytes()[..15], *b"0123456789ABCDE");
        CloseHandle(&mut f.h.cx(), w).unwrap();
        CloseHandle(&mut f.h.cx(), r).unwrap();
        assert_eq!(
            fs::read(f.program.join("DATA/LEVEL1.DAT")).unwrap(),
            b"0123456789"
        );
    }

    #[test]
    fn raw_disks_are_refused() {
        let mut f = files();
        assert_eq!(
            open_shared(&mut f, r"\\.\PhysicalDrive0", GENERIC_READ, 3, 3),
            INVALID_HANDLE_VALUE
        );
        assert_eq!(f.h.last_error(), err::ERROR_ACCESS_DENIED);
        // The verbatim prefix reaches the same sandboxed file.
        let h = open_shared(&mut f, r"\\?\C:\GAMES\GAME.EXE", GENERIC_READ, 3, 3);
        assert_ne!(h, INVALID_HANDLE_VALUE);
        CloseHandle(&mut f.h.cx(), h).unwrap();
    }

    #[test]
    fn temp_names_drives_and_mappings() {
        let mut f = files();
        let out = f.buf + 0x1000;
        assert_eq!(
            GetTempPath::<CStrPtr>(&mut f.h.cx(), 260, Ptr(out)).unwrap(),
            16
        );
        assert_eq!(f.h.cstr(out), r"C:\WINDOWS\TEMP\");
        f.h.put_cstr(f.buf + 0x100, "abcdef");
        let u = GetTempFileNameA(
            &mut f.h.cx(),
            Ptr(out),
            Ptr(f.buf + 0x100),
            0,
            Ptr(out + 0x200),
        )
        .unwrap();
        assert_ne!(u, 0);
        assert_eq!(
            f.h.cstr(out + 0x200),
            format!(r"C:\WINDOWS\TEMP\abc{u:04X}.TMP")
        );
        assert_ne!(
            GetFileAttributes::<CStrPtr>(&mut f.h.cx(), Ptr(out + 0x200)).unwrap(),
            INVALID_FILE_ATTRIBUTES
        );
        assert_eq!(
            GetTempFileNameA(
                &mut f.h.cx(),
                Ptr(out),
                Ptr(f.buf + 0x100),
                0x1234,
                Ptr(out + 0x200)
            )
            .unwrap(),
            0x1234
        );
        assert_eq!(f.h.cstr(out + 0x200), r"C:\WINDOWS\TEMP\abc1234.TMP");
        assert_eq!(GetLogicalDrives(&mut f.h.cx()).unwrap(), 1 << 2);
        f.h.put_cstr(f.buf, r"C:\");
        assert_eq!(
            GetDriveType::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap(),
            DRIVE_FIXED
        );
        f.h.put_cstr(f.buf, r"D:\");
        assert_eq!(
            GetDriveType::<CStrPtr>(&mut f.h.cx(), Ptr(f.buf)).unwrap(),
            DRIVE_NO_ROOT_DIR
        );

        // A writable mapping: the view sees the file, writes reach it on unmap.
        let h = open(&mut f, r"DATA\LEVEL1.DAT", GENERIC_READ | GENERIC_WRITE, 3);
        let m = CreateFileMapping::<CStrPtr>(&mut f.h.cx(), h, 0, PAGE_READWRITE, 0, 0, Ptr(0))
            .unwrap();
        assert_ne!(m, 0);
        CloseHandle(&mut f.h.cx(), h).unwrap();
        let v = MapViewOfFile(&mut f.h.cx(), m, FILE_MAP_WRITE, 0, 0, 0).unwrap();
        assert_ne!(v, 0);
        let mut b = [0u8; 10];
        f.h.proc.mem.read_bytes(v, &mut b).unwrap();
        assert_eq!(&b, b"0123456789");
        let mbi = super::super::memory::query(&f.h.cx(), v).unwrap();
        assert_eq!(
            (mbi[4], mbi[6]),
            (
                super::super::memory::MEM_COMMIT,
                super::super::memory::MEM_MAPPED
            )
        );
        f.h.proc.mem.write_bytes(v + 2, b"ab").unwrap();
        assert_eq!(
            MapViewOfFile(&mut f.h.cx(), m, FILE_MAP_WRITE, 0, 1, 0).unwrap(),
            0
        );
        assert_eq!(f.h.last_error(), ERROR_MAPPED_ALIGNMENT);
        assert!(UnmapViewOfFile(&mut f.h.cx(), v).unwrap());
        assert!(!UnmapViewOfFile(&mut f.h.cx(), v).unwrap());
        CloseHandle(&mut f.h.cx(), m).unwrap();
        assert_eq!(
            fs::read(f.overlay.join("drive_c/GAMES/DATA/LEVEL1.DAT")).unwrap(),
            b"01ab456789"
        );
        assert_eq!(
            fs::read(f.program.join("DATA/LEVEL1.DAT")).unwrap(),
            b"0123456789"
        );
        // A named paging-file mapping is found again by name.
        f.h.put_cstr(f.buf, "SharedBlock");
        let a = CreateFileMapping::<CStrPtr>(
            &mut f.h.cx(),
            INVALID_HANDLE_VALUE,
            0,
            PAGE_READWRITE,
            0,
            0x2000,
            Ptr(f.buf),
        )
        .unwrap();
        assert_eq!(f.h.last_error(), 0);
        let b2 = CreateFileMapping::<CStrPtr>(
            &mut f.h.cx(),
            INVALID_HANDLE_VALUE,
            0,
            PAGE_READWRITE,
            0,
            0x2000,
            Ptr(f.buf),
        )
        .unwrap();
        assert_eq!(f.h.last_error(), err::ERROR_ALREADY_EXISTS);
        let v1 = MapViewOfFile(&mut f.h.cx(), a, FILE_MAP_WRITE, 0, 0, 0).unwrap();
        f.h.proc.mem.write_bytes(v1 + 0x1000, b"shared").unwrap();
        assert!(UnmapViewOfFile(&mut f.h.cx(), v1).unwrap());
        let v2 = MapViewOfFile(&mut f.h.cx(), b2, 4, 0, 0, 0).unwrap();
        assert_eq!(f.h.cstr(v2 + 0x1000), "shared");
    }

    #[test]
    fn wide_drive_functions_and_device_io_control() {
        let mut f = files();
        let b = f.buf;
        assert_eq!(
            GetLogicalDriveStringsW(&mut f.h.cx(), 2, Ptr(b)).unwrap(),
            5
        );
        assert_eq!(
            GetLogicalDriveStringsW(&mut f.h.cx(), 5, Ptr(b)).unwrap(),
            4
        );
        assert_eq!(f.h.wstr(b), r"C:\");
        assert_eq!(f.h.proc.mem.read_u32(b + 6).unwrap(), 0, "double NUL");
        f.h.put_wstr(b + 0x100, r"C:\");
        assert_eq!(
            GetDriveType::<WStrPtr>(&mut f.h.cx(), Ptr(b + 0x100)).unwrap(),
            DRIVE_FIXED
        );
        assert!(
            GetDiskFreeSpace::<WStrPtr>(
                &mut f.h.cx(),
                Ptr(b + 0x100),
                Ptr(b),
                Ptr(b + 4),
                Ptr(b + 8),
                Ptr(b + 12)
            )
            .unwrap()
        );
        assert_eq!(f.h.u32(b + 4), BYTES_PER_SECTOR);
        assert!(
            GetVolumeInformation::<WStrPtr>(
                &mut f.h.cx(),
                Ptr(b + 0x100),
                Ptr(0),
                0,
                Ptr(0),
                Ptr(0),
                Ptr(0),
                Ptr(b + 0x200),
                16
            )
            .unwrap()
        );
        assert_eq!(f.h.wstr(b + 0x200), "FAT32");
        f.h.put_wstr(b + 0x100, r"D:\");
        assert!(
            !GetDiskFreeSpace::<WStrPtr>(
                &mut f.h.cx(),
                Ptr(b + 0x100),
                Ptr(b),
                Ptr(b + 4),
                Ptr(b + 8),
                Ptr(b + 12)
            )
            .unwrap()
        );
        assert_eq!(f.h.last_error(), err::ERROR_PATH_NOT_FOUND);

        assert!(
            !DeviceIoControl(
                &mut f.h.cx(),
                0x4444,
                0,
                Ptr(0),
                0,
                Ptr(0),
                0,
                Ptr(b),
                Ptr(0)
            )
            .unwrap()
        );
        assert_eq!(f.h.last_error(), err::ERROR_INVALID_HANDLE);
        f.h.put_cstr(b + 0x100, r"C:\GAMES\GAME.EXE");
        let h = CreateFile::<CStrPtr>(&mut f.h.cx(), Ptr(b + 0x100), GENERIC_READ, 1, 0, 3, 0, 0)
            .unwrap();
        assert_ne!(h, INVALID_HANDLE_VALUE);
        assert!(
            !DeviceIoControl(
                &mut f.h.cx(),
                h,
                FSCTL_GET_REPARSE_POINT,
                Ptr(0),
                0,
                Ptr(b),
                64,
                Ptr(b + 64),
                Ptr(0)
            )
            .unwrap()
        );
        assert_eq!(f.h.last_error(), ERROR_NOT_A_REPARSE_POINT);
        // IOCTL_DISK_GET_DRIVE_GEOMETRY: a file is not a disk.
        assert!(
            !DeviceIoControl(
                &mut f.h.cx(),
                h,
                0x0007_0000,
                Ptr(0),
                0,
                Ptr(b),
                64,
                Ptr(b + 64),
                Ptr(0)
            )
            .unwrap()
        );
        assert_eq!(f.h.last_error(), err::ERROR_INVALID_FUNCTION);
        CloseHandle(&mut f.h.cx(), h).unwrap();
    }
}
