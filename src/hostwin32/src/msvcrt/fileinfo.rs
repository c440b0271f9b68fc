//! File information: `_stat`/`_fstat` and `_findfirst`/`_findnext`/`_findclose`,
//! on KERNEL32's GetFileAttributesExA, GetFileInformationByHandle and
//! FindFirstFileA/FindNextFileA.

#![allow(non_snake_case)]

use super::gmem::{read_cstr, read_vec, write_cstr};
use super::state::{self, crt, errno, k32, set_errno, set_errno_from_win32};
use super::{heap, lowio};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, cdecl};

const S_IFDIR: u16 = 0x4000;
const S_IFREG: u16 = 0x8000;
const S_IFCHR: u16 = 0x2000;
const S_IFIFO: u16 = 0x1000;
const FILE_ATTRIBUTE_READONLY: u32 = 0x1;
const FILE_ATTRIBUTE_DIRECTORY: u32 = 0x10;

/// FILETIME -> time_t (-1 for a zero FILETIME, which FAT reports for unknown times).
fn unix_time(ft: u64) -> u32 {
    if ft == 0 {
        return u32::MAX;
    }
    ((ft as i64 - 116_444_736_000_000_000).div_euclid(10_000_000)) as u32
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    le32(b, at) as u64 | (le32(b, at + 4) as u64) << 32
}

/// st_mode from attributes and name, as msvcrt computes it: read permission
/// always, write unless read-only, execute for directories and program files,
/// copied to the group and other bits.
pub fn mode_of(attrs: u32, name: &[u8]) -> u16 {
    let mut m = if attrs & FILE_ATTRIBUTE_DIRECTORY != 0 {
        S_IFDIR | 0x40
    } else {
        S_IFREG
    };
    m |= 0x100;
    if attrs & FILE_ATTRIBUTE_READONLY == 0 {
        m |= 0x80;
    }
    let lower = name.to_ascii_lowercase();
    if [&b".exe"[..], b".com", b".bat", b".cmd"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        m |= 0x40;
    }
    m | (m & 0x1c0) >> 3 | (m & 0x1c0) >> 6
}

#[allow(clippy::too_many_arguments)]
fn write_stat(
    cx: &mut Ctx,
    buf: u32,
    dev: u32,
    mode: u16,
    size: u32,
    atime: u32,
    mtime: u32,
    ctime: u32,
) -> ApiResult<()> {
    let mut b = [0u8; 36];
    b[0..4].copy_from_slice(&dev.to_le_bytes());
    b[6..8].copy_from_slice(&mode.to_le_bytes());
    b[8..10].copy_from_slice(&1u16.to_le_bytes());
    b[16..20].copy_from_slice(&dev.to_le_bytes());
    b[20..24].copy_from_slice(&size.to_le_bytes());
    b[24..28].copy_from_slice(&atime.to_le_bytes());
    b[28..32].copy_from_slice(&mtime.to_le_bytes());
    b[32..36].copy_from_slice(&ctime.to_le_bytes());
    cx.proc.mem.write_bytes(buf, &b)?;
    Ok(())
}

fn _stat(cx: &mut Ctx, path: CStrPtr, buffer: Ptr) -> ApiResult<i32> {
    let name = read_cstr(&cx.proc.mem, path.0, 260)?;
    if name.is_empty() || name.iter().any(|&c| c == b'*' || c == b'?') {
        set_errno(cx, errno::ENOENT)?;
        return Ok(-1);
    }
    let info = state::scratch(cx)?;
    if k32(cx, "GetFileAttributesExA", &[path.0, 0, info])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    let d = read_vec(&cx.proc.mem, info, 36)?;
    let attrs = le32(&d, 0);
    let drive = if name.len() >= 2 && name[1] == b':' {
        (name[0].to_ascii_uppercase().wrapping_sub(b'A')) as u32
    } else {
        current_drive(cx)?
    };
    let mtime = unix_time(le64(&d, 20));
    let atime = match unix_time(le64(&d, 12)) {
        u32::MAX => mtime,
        t => t,
    };
    let ctime = match unix_time(le64(&d, 4)) {
        u32::MAX => mtime,
        t => t,
    };
    write_stat(
        cx,
        buffer.0,
        drive,
        mode_of(attrs, &name),
        le32(&d, 32),
        atime,
        mtime,
        ctime,
    )?;
    Ok(0)
}

fn current_drive(cx: &mut Ctx) -> ApiResult<u32> {
    let buf = state::scratch(cx)?;
    let n = k32(cx, "GetCurrentDirectoryA", &[state::SCRATCH_SIZE, buf])?;
    if n == 0 || n >= state::SCRATCH_SIZE {
        return Ok(2);
    }
    let c = cx.proc.mem.read_u8(buf)?;
    Ok(c.to_ascii_uppercase().wrapping_sub(b'A') as u32)
}

fn _fstat(cx: &mut Ctx, fd: i32, buffer: Ptr) -> ApiResult<i32> {
    let entry = {
        let c = crt(cx.proc);
        let mut io = c.io();
        lowio::fd_entry(cx, &mut io, fd)?
    };
    let Some(f) = entry else {
        set_errno(cx, errno::EBADF)?;
        return Ok(-1);
    };
    let ty = k32(cx, "GetFileType", &[f.handle])?;
    // FILE_TYPE_DISK 1, FILE_TYPE_CHAR 2, FILE_TYPE_PIPE 3.
    if ty != 1 {
        let mode = if ty == 2 { S_IFCHR } else { S_IFIFO };
        write_stat(cx, buffer.0, fd as u32, mode, 0, 0, 0, 0)?;
        return Ok(0);
    }
    let info = state::scratch(cx)?;
    if k32(cx, "GetFileInformationByHandle", &[f.handle, info])? == 0 {
        let e = k32(cx, "GetLastError", &[])?;
        set_errno_from_win32(cx, e)?;
        return Ok(-1);
    }
    let d = read_vec(&cx.proc.mem, info, 52)?;
    let attrs = le32(&d, 0);
    let mtime = unix_time(le64(&d, 20));
    let atime = match unix_time(le64(&d, 12)) {
        u32::MAX => mtime,
        t => t,
    };
    let ctime = match unix_time(le64(&d, 4)) {
        u32::MAX => mtime,
        t => t,
    };
    let mut mode = mode_of(attrs, b"");
    mode &= !0x49; // no execute bits: the name is not known
    let drive = current_drive(cx)?;
    write_stat(cx, buffer.0, drive, mode, le32(&d, 36), atime, mtime, ctime)?;
    Ok(0)
}

/// Copies a WIN32_FIND_DATAA into a `_finddata_t` (attrib, three times, size,
/// name[260]).
fn fill_finddata(cx: &mut Ctx, find: u32, out: u32) -> ApiResult<()> {
    let d = read_vec(&cx.proc.mem, find, 44)?;
    let name = read_cstr(&cx.proc.mem, find + 44, 259)?;
    let m = &cx.proc.mem;
    m.write_u32(out, le32(&d, 0))?;
    m.write_u32(out + 4, unix_time(le64(&d, 4)))?;
    m.write_u32(out + 8, unix_time(le64(&d, 12)))?;
    m.write_u32(out + 12, unix_time(le64(&d, 20)))?;
    m.write_u32(out + 16, le32(&d, 32))?;
    write_cstr(m, out + 20, &name)?;
    Ok(())
}

const FIND_DATA_SIZE: u32 = 320;

fn _findfirst(cx: &mut Ctx, filespec: CStrPtr, fileinfo: Ptr) -> ApiResult<u32> {
    let tmp = heap::malloc_raw(cx, FIND_DATA_SIZE)?;
    if tmp == 0 {
        return Ok(u32::MAX);
    }
    let h = k32(cx, "FindFirstFileA", &[filespec.0, tmp])?;
    if h == u32::MAX {
        let e = k32(cx, "GetLastError", &[])?;
        // ERROR_FILE_NOT_FOUND / ERROR_PATH_NOT_FOUND / ERROR_NO_MORE_FILES -> ENOENT.
        set_errno_from_win32(cx, if e == 18 { 2 } else { e })?;
        heap::free_raw(cx, tmp)?;
        return Ok(u32::MAX);
    }
    fill_finddata(cx, tmp, fileinfo.0)?;
    heap::free_raw(cx, tmp)?;
    Ok(h)
}

fn _findnext(cx: &mut Ctx, handle: u32, fileinfo: Ptr) -> ApiResult<i32> {
    let tmp = heap::malloc_raw(cx, FIND_DATA_SIZE)?;
    if tmp == 0 {
        return Ok(-1);
    }
    let ok = k32(cx, "FindNextFileA", &[handle, tmp])?;
    let r = if ok == 0 {
        set_errno(cx, errno::ENOENT)?;
        -1
    } else {
        fill_finddata(cx, tmp, fileinfo.0)?;
        0
    };
    heap::free_raw(cx, tmp)?;
    Ok(r)
}

fn _findclose(cx: &mut Ctx, handle: u32) -> ApiResult<i32> {
    if k32(cx, "FindClose", &[handle])? == 0 {
        set_errno(cx, errno::ENOENT)?;
        return Ok(-1);
    }
    Ok(0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_stat", _stat),
        cdecl("_fstat", _fstat),
        cdecl("_findfirst", _findfirst),
        cdecl("_findnext", _findnext),
        cdecl("_findclose", _findclose),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // st_mode bits from Microsoft's sys/stat.h (_S_IFREG 0x8000, _S_IREAD 0400, ...).
    #[test]
    fn modes() {
        assert_eq!(mode_of(0x20, b"a.txt"), 0x8000 | 0o666);
        assert_eq!(mode_of(0x21, b"a.txt"), 0x8000 | 0o444);
        assert_eq!(mode_of(0x20, b"GAME.EXE"), 0x8000 | 0o777);
        assert_eq!(mode_of(0x10, b"dir"), 0x4000 | 0o777);
        assert_eq!(unix_time(116_444_736_000_000_000), 0);
        assert_eq!(unix_time(0), u32::MAX);
    }
}
