//! Low-level I/O: C file descriptors over Win32 file handles (`_open`, `_read`,
//! `_write`, `_lseek`, `_close`, `_setmode`, ...). Text mode translates `\n` to
//! `\r\n` on write and `\r\n` to `\n` on read, and a Ctrl-Z ends a text file, as
//! msvcrt's `_read`/`_write` do. Descriptors 0-2 are bound lazily to the standard
//! handles KERNEL32 gives out.

#![allow(non_snake_case)]

use super::state::{self, crt, errno, k32, set_errno, set_errno_from_win32};
use super::stdio::Io;
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, VarArgs, cdecl};

pub const O_RDONLY: u32 = 0;
pub const O_WRONLY: u32 = 1;
pub const O_RDWR: u32 = 2;
pub const O_APPEND: u32 = 0x8;
pub const O_TEMPORARY: u32 = 0x40;
pub const O_CREAT: u32 = 0x100;
pub const O_TRUNC: u32 = 0x200;
pub const O_EXCL: u32 = 0x400;
pub const O_TEXT: u32 = 0x4000;
pub const O_BINARY: u32 = 0x8000;

const GENERIC_READ: u32 = 0x8000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;
const FILE_TYPE_CHAR: u32 = 2;
const INVALID_HANDLE: u32 = 0xffff_ffff;
/// Bytes moved per ReadFile/WriteFile through the bounce buffer.
const CHUNK: u32 = 0x1_0000;

/// One C file descriptor.
#[derive(Clone, Debug)]
pub struct Fd {
    pub handle: u32,
    pub text: bool,
    pub append: bool,
    /// A console or other character device (no Ctrl-Z, no seeking).
    pub device: bool,
    /// Ctrl-Z seen in a text file: reads return end of file.
    pub eof: bool,
    /// A byte read ahead to decide whether a CR starts a CRLF.
    pub pending: Option<u8>,
    /// Delete this file (guest path) when the descriptor closes.
    pub delete_on_close: Option<Vec<u8>>,
}

/// The descriptor `fd`, binding 0-2 to the standard handles on first use.
pub fn fd_entry(cx: &mut Ctx, io: &mut Io, fd: i32) -> ApiResult<Option<Fd>> {
    if fd < 0 {
        return Ok(None);
    }
    let k = fd as usize;
    if let Some(Some(f)) = io.fds.get(k) {
        return Ok(Some(f.clone()));
    }
    if k < 3 && !io.std_bound[k] {
        io.std_bound[k] = true;
        // STD_INPUT_HANDLE -10, STD_OUTPUT_HANDLE -11, STD_ERROR_HANDLE -12.
        let h = k32(cx, "GetStdHandle", &[(-10 - k as i32) as u32])?;
        if h != 0 && h != INVALID_HANDLE {
            let device = k32(cx, "GetFileType", &[h])? == FILE_TYPE_CHAR;
            let text = fmode_text(cx)?;
            put_fd(
                io,
                k,
                Fd {
                    handle: h,
                    text,
                    append: false,
                    device,
                    eof: false,
                    pending: None,
                    delete_on_close: None,
                },
            );
            return Ok(io.fds[k].clone());
        }
    }
    Ok(None)
}

fn put_fd(io: &mut Io, k: usize, f: Fd) {
    if io.fds.len() <= k {
        io.fds.resize(k + 1, None);
    }
    io.fds[k] = Some(f);
}

/// Whether new descriptors default to text mode (`_fmode` is not `_O_BINARY`).
pub fn fmode_text(cx: &mut Ctx) -> ApiResult<bool> {
    let a = cx.proc.resolve_hle("msvcrt.dll", "_fmode")?;
    Ok(cx.proc.mem.read_u32(a)? & O_BINARY == 0)
}

/// Lowest free descriptor.
pub fn alloc_fd(cx: &mut Ctx, io: &mut Io, f: Fd) -> ApiResult<i32> {
    for k in 0..3 {
        fd_entry(cx, io, k)?;
    }
    let k = (3..)
        .find(|&k| io.fds.get(k).is_none_or(|e| e.is_none()))
        .unwrap_or(3);
    put_fd(io, k, f);
    Ok(k as i32)
}

/// The calling thread's guest buffer for ReadFile/WriteFile. Kept under the
/// runtime's small lock, not the I/O lock, which the stream code already holds.
fn bounce(cx: &mut Ctx) -> ApiResult<u32> {
    let c = crt(cx.proc);
    let existing = c.lock().bounce.get(&cx.thread.tid).copied();
    if let Some(b) = existing {
        return Ok(b);
    }
    let b = state::arena_alloc(cx.proc, CHUNK)?;
    c.lock().bounce.insert(cx.thread.tid, b);
    Ok(b)
}

/// WriteFile of host bytes. `Ok(false)` after setting errno on failure.
pub fn write_handle(cx: &mut Ctx, h: u32, data: &[u8]) -> ApiResult<bool> {
    let buf = bounce(cx)?;
    for chunk in data.chunks(CHUNK as usize) {
        cx.proc.mem.write_bytes(buf, chunk)?;
        let written = state::scratch(cx)?;
        let ok = k32(cx, "WriteFile", &[h, buf, chunk.len() as u32, written, 0])?;
        if ok == 0 {
            let e = k32(cx, "GetLastError", &[])?;
            set_errno_from_win32(cx, e)?;
            return Ok(false);
        }
        if cx.proc.mem.read_u32(written)? < chunk.len() as u32 {
            set_errno(cx, errno::ENOSPC)?;
            return Ok(false);
        }
    }
    Ok(true)
}

/// ReadFile of up to `n` bytes; `None` after setting errno on failure.
pub fn read_handle(cx: &mut Ctx, h: u32, n: u32) -> ApiResult<Option<Vec<u8>>> {
    let buf = bounce(cx)?;
    let n = n.min(CHUNK);
    let got = state::scratch(cx)?;
    let ok = k32(cx, "ReadFile", &[h, buf, n, got, 0])?;
    if ok == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        // A closed pipe is end of input, not an error.
        if e == 109 {
            return Ok(Some(Vec::new()));
        }
        set_errno_from_win32(cx, e)?;
        return Ok(None);
    }
    let len = cx.proc.mem.read_u32(got)?.min(n);
    Ok(Some(super::gmem::read_vec(
        &cx.proc.mem,
        buf,
        len as usize,
    )?))
}

/// `_write` on a descriptor: text translation, append positioning. Returns the
/// number of caller bytes written or -1.
pub fn fd_write(cx: &mut Ctx, io: &mut Io, fd: i32, data: &[u8]) -> ApiResult<i32> {
    let Some(f) = fd_entry(cx, io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    if f.append {
        seek_handle(cx, f.handle, 0, 2)?;
    }
    let ok = if f.text {
        let mut out = Vec::with_capacity(data.len() + data.len() / 16);
        for &b in data {
            if b == b'\n' {
                out.push(b'\r');
            }
            out.push(b);
        }
        write_handle(cx, f.handle, &out)?
    } else {
        write_handle(cx, f.handle, data)?
    };
    Ok(if ok { data.len() as i32 } else { -1 })
}

/// `_read` on a descriptor: up to `n` bytes after text translation; empty at end
/// of file; `None` on error (errno set).
pub fn fd_read(cx: &mut Ctx, io: &mut Io, fd: i32, n: u32) -> ApiResult<Option<Vec<u8>>> {
    let Some(mut f) = fd_entry(cx, io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(None);
    };
    if n == 0 || f.eof {
        return Ok(Some(Vec::new()));
    }
    let mut raw = Vec::new();
    if let Some(p) = f.pending.take() {
        raw.push(p);
    }
    if raw.len() < n as usize {
        match read_handle(cx, f.handle, n - raw.len() as u32)? {
            Some(mut more) => raw.append(&mut more),
            None => return Ok(None),
        }
    }
    if !f.text {
        store_fd(io, fd, f);
        return Ok(Some(raw));
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut k = 0;
    while k < raw.len() {
        let b = raw[k];
        if b == 0x1a && !f.device {
            f.eof = true;
            // Leave the file positioned at the Ctrl-Z, as msvcrt does.
            let back = (raw.len() - k) as i64;
            seek_handle(cx, f.handle, -back, 1)?;
            break;
        }
        if b == b'\r' {
            if k + 1 < raw.len() {
                if raw[k + 1] == b'\n' {
                    out.push(b'\n');
                    k += 2;
                    continue;
                }
            } else {
                // A CR ends the chunk: look at the next byte to decide, and keep it
                // for the next read if it does not complete a CR LF.
                match read_handle(cx, f.handle, 1)? {
                    Some(v) if v.first() == Some(&b'\n') => {
                        out.push(b'\n');
                        break;
                    }
                    Some(v) if !v.is_empty() => f.pending = Some(v[0]),
                    _ => {}
                }
            }
        }
        out.push(b);
        k += 1;
    }
    store_fd(io, fd, f);
    Ok(Some(out))
}

fn store_fd(io: &mut Io, fd: i32, f: Fd) {
    if let Some(slot) = io.fds.get_mut(fd as usize) {
        *slot = Some(f);
    }
}

/// SetFilePointer with a 64-bit offset; the new position or -1 (errno set).
pub fn seek_handle(cx: &mut Ctx, h: u32, off: i64, whence: u32) -> ApiResult<i64> {
    let hi = state::scratch(cx)?;
    cx.proc.mem.write_u32(hi, (off >> 32) as u32)?;
    let lo = k32(cx, "SetFilePointer", &[h, off as u32, hi, whence])?;
    if lo == 0xffff_ffff {
        let e = k32(cx, "GetLastError", &[])?;
        if e != 0 {
            set_errno_from_win32(cx, e)?;
            return Ok(-1);
        }
    }
    let hv = cx.proc.mem.read_u32(hi)?;
    Ok(((hv as u64) << 32 | lo as u64) as i64)
}

pub fn fd_seek(cx: &mut Ctx, io: &mut Io, fd: i32, off: i64, whence: u32) -> ApiResult<i64> {
    let Some(mut f) = fd_entry(cx, io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    if whence > 2 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    if f.device {
        set_errno(cx, errno::ESPIPE)?;
        return Ok(-1);
    }
    let mut off = off;
    if whence == 1 && f.pending.is_some() {
        off -= 1;
    }
    let r = seek_handle(cx, f.handle, off, whence)?;
    if r >= 0 {
        f.eof = false;
        f.pending = None;
        store_fd(io, fd, f);
    }
    Ok(r)
}

pub fn fd_close(cx: &mut Ctx, io: &mut Io, fd: i32) -> ApiResult<i32> {
    let Some(f) = fd_entry(cx, io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    io.fds[fd as usize] = None;
    let ok = k32(cx, "CloseHandle", &[f.handle])?;
    if let Some(name) = f.delete_on_close {
        let a = state::scratch(cx)?;
        if name.len() < state::SCRATCH_SIZE as usize {
            super::gmem::write_cstr(&cx.proc.mem, a, &name)?;
            k32(cx, "DeleteFileA", &[a])?;
        }
    }
    Ok(if ok != 0 { 0 } else { -1 })
}

/// `_open` with the path already in guest memory.
pub fn open_path(cx: &mut Ctx, path: u32, oflag: u32) -> ApiResult<i32> {
    let access = match oflag & 3 {
        O_RDONLY => GENERIC_READ,
        O_WRONLY => GENERIC_WRITE,
        _ => GENERIC_READ | GENERIC_WRITE,
    };
    let disposition = if oflag & O_CREAT != 0 {
        if oflag & O_EXCL != 0 {
            1 // CREATE_NEW
        } else if oflag & O_TRUNC != 0 {
            2 // CREATE_ALWAYS
        } else {
            4 // OPEN_ALWAYS
        }
    } else if oflag & O_TRUNC != 0 {
        5 // TRUNCATE_EXISTING
    } else {
        3 // OPEN_EXISTING
    };
    // FILE_SHARE_READ | FILE_SHARE_WRITE, FILE_ATTRIBUTE_NORMAL.
    let h = k32(
        cx,
        "CreateFileA",
        &[path, access, 3, 0, disposition, 0x80, 0],
    )?;
    if h == INVALID_HANDLE {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    let device = k32(cx, "GetFileType", &[h])? == FILE_TYPE_CHAR;
    let text = if oflag & O_BINARY != 0 {
        false
    } else if oflag & O_TEXT != 0 {
        true
    } else {
        fmode_text(cx)?
    };
    let delete_on_close = if oflag & O_TEMPORARY != 0 {
        Some(super::gmem::read_cstr(&cx.proc.mem, path, 260)?)
    } else {
        None
    };
    let f = Fd {
        handle: h,
        text,
        append: oflag & O_APPEND != 0,
        device,
        eof: false,
        pending: None,
        delete_on_close,
    };
    let c = crt(cx.proc);
    let mut io = c.io();
    alloc_fd(cx, &mut io, f)
}

fn _open(cx: &mut Ctx, filename: CStrPtr, oflag: u32, _pmode: VarArgs) -> ApiResult<i32> {
    open_path(cx, filename.0, oflag)
}

fn _creat(cx: &mut Ctx, filename: CStrPtr, _pmode: u32) -> ApiResult<i32> {
    open_path(cx, filename.0, O_WRONLY | O_CREAT | O_TRUNC)
}

fn _close(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    fd_close(cx, &mut io, fd)
}

fn _read(cx: &mut Ctx, fd: i32, buffer: Ptr, count: u32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    match fd_read(cx, &mut io, fd, count)? {
        Some(v) => {
            cx.proc.mem.write_bytes(buffer.0, &v)?;
            Ok(v.len() as i32)
        }
        None => Ok(-1),
    }
}

fn _write(cx: &mut Ctx, fd: i32, buffer: Ptr, count: u32) -> ApiResult<i32> {
    let data = super::gmem::read_vec(&cx.proc.mem, buffer.0, count as usize)?;
    let c = crt(cx.proc);
    let mut io = c.io();
    fd_write(cx, &mut io, fd, &data)
}

fn _lseek(cx: &mut Ctx, fd: i32, offset: i32, origin: u32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    let r = fd_seek(cx, &mut io, fd, offset as i64, origin)?;
    if r > i32::MAX as i64 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    Ok(r as i32)
}

fn _lseeki64(cx: &mut Ctx, fd: i32, offset: u64, origin: u32) -> ApiResult<u64> {
    let c = crt(cx.proc);
    let mut io = c.io();
    Ok(fd_seek(cx, &mut io, fd, offset as i64, origin)? as u64)
}

fn _tell(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    _lseek(cx, fd, 0, 1)
}

fn _filelength(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    let here = fd_seek(cx, &mut io, fd, 0, 1)?;
    if here < 0 {
        return Ok(-1);
    }
    let end = fd_seek(cx, &mut io, fd, 0, 2)?;
    fd_seek(cx, &mut io, fd, here, 0)?;
    Ok(end as i32)
}

fn _eof(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let len = _filelength(cx, fd)?;
    if len < 0 {
        return Ok(-1);
    }
    Ok((_tell(cx, fd)? >= len) as i32)
}

fn _setmode(cx: &mut Ctx, fd: i32, mode: u32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    let Some(mut f) = fd_entry(cx, &mut io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    let old = if f.text { O_TEXT } else { O_BINARY };
    match mode {
        O_TEXT => f.text = true,
        O_BINARY => f.text = false,
        _ => {
            set_errno(cx, errno::EINVAL)?;
            return Ok(-1);
        }
    }
    store_fd(&mut io, fd, f);
    Ok(old as i32)
}

fn _isatty(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    Ok(fd_entry(cx, &mut io, fd)?.is_some_and(|f| f.device) as i32)
}

fn _get_osfhandle(cx: &mut Ctx, fd: i32) -> ApiResult<u32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    match fd_entry(cx, &mut io, fd)? {
        Some(f) => Ok(f.handle),
        None => {
            set_errno(cx, errno::EBADF)?;
            Ok(INVALID_HANDLE)
        }
    }
}

fn _open_osfhandle(cx: &mut Ctx, osfhandle: u32, flags: u32) -> ApiResult<i32> {
    let device = k32(cx, "GetFileType", &[osfhandle])? == FILE_TYPE_CHAR;
    let text = flags & O_TEXT != 0;
    let c = crt(cx.proc);
    let mut io = c.io();
    alloc_fd(
        cx,
        &mut io,
        Fd {
            handle: osfhandle,
            text,
            append: flags & O_APPEND != 0,
            device,
            eof: false,
            pending: None,
            delete_on_close: None,
        },
    )
}

fn _dup(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    let Some(f) = fd_entry(cx, &mut io, fd)? else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    // The same handle shared by two descriptors would be closed twice; ask
    // KERNEL32 for a real duplicate.
    let out = state::scratch(cx)?;
    let me = 0xffff_ffff;
    let ok = k32(cx, "DuplicateHandle", &[me, f.handle, me, out, 0, 0, 2])?;
    if ok == 0 {
        set_errno(cx, errno::EMFILE)?;
        return Ok(-1);
    }
    let h = cx.proc.mem.read_u32(out)?;
    alloc_fd(
        cx,
        &mut io,
        Fd {
            handle: h,
            delete_on_close: None,
            ..f
        },
    )
}

fn _commit(cx: &mut Ctx, fd: i32) -> ApiResult<i32> {
    let h = _get_osfhandle(cx, fd)?;
    if h == INVALID_HANDLE {
        return Ok(-1);
    }
    Ok(if k32(cx, "FlushFileBuffers", &[h])? != 0 {
        0
    } else {
        -1
    })
}

fn _access(cx: &mut Ctx, path: CStrPtr, mode: u32) -> ApiResult<i32> {
    let attrs = k32(cx, "GetFileAttributesA", &[path.0])?;
    if attrs == INVALID_HANDLE {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    // FILE_ATTRIBUTE_READONLY with a request for write access.
    if attrs & 1 != 0 && mode & 2 != 0 {
        set_errno(cx, errno::EACCES)?;
        return Ok(-1);
    }
    Ok(0)
}

fn _unlink(cx: &mut Ctx, path: CStrPtr) -> ApiResult<i32> {
    if k32(cx, "DeleteFileA", &[path.0])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    Ok(0)
}

fn rename(cx: &mut Ctx, oldname: CStrPtr, newname: CStrPtr) -> ApiResult<i32> {
    if k32(cx, "MoveFileA", &[oldname.0, newname.0])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    Ok(0)
}

fn _mkdir(cx: &mut Ctx, dirname: CStrPtr) -> ApiResult<i32> {
    if k32(cx, "CreateDirectoryA", &[dirname.0, 0])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    Ok(0)
}

fn _rmdir(cx: &mut Ctx, dirname: CStrPtr) -> ApiResult<i32> {
    if k32(cx, "RemoveDirectoryA", &[dirname.0])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    Ok(0)
}

fn _chdir(cx: &mut Ctx, dirname: CStrPtr) -> ApiResult<i32> {
    if k32(cx, "SetCurrentDirectoryA", &[dirname.0])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    Ok(0)
}

fn _getcwd(cx: &mut Ctx, buffer: Ptr, maxlen: i32) -> ApiResult<u32> {
    let need = k32(cx, "GetCurrentDirectoryA", &[0, 0])?;
    if need == 0 {
        return Ok(0);
    }
    let buf = if buffer.is_null() {
        let size = (maxlen.max(0) as u32).max(need);
        let p = super::heap::malloc_raw(cx, size)?;
        if p == 0 {
            set_errno(cx, errno::ENOMEM)?;
            return Ok(0);
        }
        p
    } else {
        if (maxlen.max(0) as u32) < need {
            set_errno(cx, errno::ERANGE)?;
            return Ok(0);
        }
        buffer.0
    };
    k32(cx, "GetCurrentDirectoryA", &[need, buf])?;
    Ok(buf)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_open", _open),
        cdecl("_creat", _creat),
        cdecl("_close", _close),
        cdecl("_read", _read),
        cdecl("_write", _write),
        cdecl("_lseek", _lseek),
        cdecl("_lseeki64", _lseeki64),
        cdecl("_tell", _tell),
        cdecl("_filelength", _filelength),
        cdecl("_eof", _eof),
        cdecl("_setmode", _setmode),
        cdecl("_isatty", _isatty),
        cdecl("_get_osfhandle", _get_osfhandle),
        cdecl("_open_osfhandle", _open_osfhandle),
        cdecl("_dup", _dup),
        cdecl("_commit", _commit),
        cdecl("_access", _access),
        cdecl("_unlink", _unlink),
        cdecl("remove", _unlink),
        cdecl("rename", rename),
        cdecl("_mkdir", _mkdir),
        cdecl("_rmdir", _rmdir),
        cdecl("_chdir", _chdir),
        cdecl("_getcwd", _getcwd),
    ]
}
