//! winmm's multimedia file I/O (mmio): RIFF files read and written chunk by chunk.
//!
//! A file is a sandbox file opened through the VFS as CreateFile opens one (so
//! writes land in the program's overlay), or a memory file (`MMIOINFO.fccIOProc =
//! FOURCC_MEM`) whose bytes are the caller's `pchBuffer`. Custom I/O procedures
//! (mmioInstallIOProc, a `pIOProc`, another `fccIOProc`) are reported as not
//! implemented: they would need guest callbacks for every read.
//!
//! Buffering: a buffered file (MMIO_ALLOCBUF, or a caller's buffer) has a guest
//! buffer that mmioGetInfo hands out for direct access, filled from the file at the
//! current position; mmioAdvance and mmioSetInfo write back what the program marked
//! MMIO_DIRTY and refill. mmioRead and mmioWrite go straight to the file (nothing
//! is held back host-side), so every view of the file agrees at all times and
//! mmioFlush has nothing left to write.
//!
//! The chunk functions follow the RIFF rules the SDK documents: a chunk is `ckid`,
//! `cksize` and data padded to an even length; RIFF and LIST chunks start their data
//! with a form/list type. mmioDescend leaves the position at the data (after the
//! type for RIFF/LIST); when nothing is found the SDK calls the position undefined,
//! and winterp puts it back where the search started; mmioAscend moves past
//! the chunk's padded end and, for a chunk mmioCreateChunk made (MMIO_DIRTY in its
//! MMCKINFO), writes the size the data actually reached.

use super::wave::{MMSYSERR_INVALHANDLE, MMSYSERR_INVALPARAM, MMSYSERR_NOERROR};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::string::{decode_file_api, read_cbytes, read_wstr};
use crate::process::Process;
use crate::vfs::{
    CreationDisposition, FILE_SHARE_READ, FILE_SHARE_WRITE, OpenGuard, OpenOptions, Opened,
    VfsError,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub const MMIOERR_FILENOTFOUND: u32 = 257;
pub const MMIOERR_OUTOFMEMORY: u32 = 258;
pub const MMIOERR_CANNOTOPEN: u32 = 259;
pub const MMIOERR_CANNOTREAD: u32 = 261;
pub const MMIOERR_CANNOTWRITE: u32 = 262;
pub const MMIOERR_CANNOTSEEK: u32 = 263;
pub const MMIOERR_CANNOTEXPAND: u32 = 264;
pub const MMIOERR_CHUNKNOTFOUND: u32 = 265;
pub const MMIOERR_UNBUFFERED: u32 = 266;
pub const MMIOERR_PATHNOTFOUND: u32 = 267;
pub const MMIOERR_ACCESSDENIED: u32 = 268;
pub const MMIOERR_SHARINGVIOLATION: u32 = 269;

pub const MMIO_READ: u32 = 0x0;
pub const MMIO_WRITE: u32 = 0x1;
pub const MMIO_READWRITE: u32 = 0x2;
const MMIO_RWMODE: u32 = 0x3;
const MMIO_SHAREMODE: u32 = 0x70;
const MMIO_EXCLUSIVE: u32 = 0x10;
const MMIO_DENYWRITE: u32 = 0x20;
const MMIO_DENYREAD: u32 = 0x30;
pub const MMIO_CREATE: u32 = 0x1000;
const MMIO_PARSE: u32 = 0x100;
const MMIO_DELETE: u32 = 0x200;
const MMIO_EXIST: u32 = 0x4000;
pub const MMIO_ALLOCBUF: u32 = 0x1_0000;
const MMIO_GETTEMP: u32 = 0x2_0000;
pub const MMIO_DIRTY: u32 = 0x1000_0000;
const MMIO_TOUPPER: u32 = 0x10;
const MMIO_INSTALLPROC: u32 = 0x1_0000;
const MMIO_REMOVEPROC: u32 = 0x2_0000;
const MMIO_FINDPROC: u32 = 0x4_0000;
pub const MMIO_FINDCHUNK: u32 = 0x10;
pub const MMIO_FINDRIFF: u32 = 0x20;
pub const MMIO_FINDLIST: u32 = 0x40;
pub const MMIO_CREATERIFF: u32 = 0x20;
pub const MMIO_CREATELIST: u32 = 0x40;
const MMIO_DEFAULTBUFFER: u32 = 8192;

const SEEK_SET: i32 = 0;
const SEEK_CUR: i32 = 1;
const SEEK_END: i32 = 2;

/// mmioFOURCC(a, b, c, d).
pub const fn fourcc(s: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*s)
}
pub const FOURCC_RIFF: u32 = fourcc(b"RIFF");
pub const FOURCC_LIST: u32 = fourcc(b"LIST");
pub const FOURCC_DOS: u32 = fourcc(b"DOS ");
pub const FOURCC_MEM: u32 = fourcc(b"MEM ");

/// MMIOINFO field offsets (sizeof 72).
mod info {
    pub const DW_FLAGS: u32 = 0;
    pub const FCC_IOPROC: u32 = 4;
    pub const P_IOPROC: u32 = 8;
    pub const W_ERROR_RET: u32 = 12;
    pub const CCH_BUFFER: u32 = 20;
    pub const PCH_BUFFER: u32 = 24;
    pub const PCH_NEXT: u32 = 28;
    pub const PCH_END_READ: u32 = 32;
    pub const PCH_END_WRITE: u32 = 36;
    pub const L_BUF_OFFSET: u32 = 40;
    pub const L_DISK_OFFSET: u32 = 44;
    pub const HMMIO: u32 = 68;
    pub const SIZE: u32 = 72;
}

/// An MMCKINFO (sizeof 20).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CkInfo {
    pub ckid: u32,
    pub cksize: u32,
    pub fcc_type: u32,
    pub data_offset: u32,
    pub flags: u32,
}

impl CkInfo {
    pub fn read(proc: &Process, p: u32) -> ApiResult<CkInfo> {
        let m = &proc.mem;
        Ok(CkInfo {
            ckid: m.read_u32(p)?,
            cksize: m.read_u32(p + 4)?,
            fcc_type: m.read_u32(p + 8)?,
            data_offset: m.read_u32(p + 12)?,
            flags: m.read_u32(p + 16)?,
        })
    }

    pub fn write(&self, proc: &Process, p: u32) -> ApiResult<()> {
        let m = &proc.mem;
        m.write_u32(p, self.ckid)?;
        m.write_u32(p + 4, self.cksize)?;
        m.write_u32(p + 8, self.fcc_type)?;
        m.write_u32(p + 12, self.data_offset)?;
        m.write_u32(p + 16, self.flags)?;
        Ok(())
    }

    fn is_container(&self) -> bool {
        self.ckid == FOURCC_RIFF || self.ckid == FOURCC_LIST
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where a file's bytes live.
enum Storage {
    File {
        host: Arc<crate::vfs::HostFile>,
        /// The open in the VFS sharing table; it ends with the mmio handle.
        _open: OpenGuard,
    },
    /// A memory file: `size` bytes at guest `base`, not expandable.
    Memory { base: u32, size: u32 },
}

/// The guest buffer of a buffered file.
#[derive(Clone, Copy)]
struct Buffer {
    addr: u32,
    size: u32,
    /// Allocated by mmio (MMIO_ALLOCBUF, mmioSetBuffer with no buffer): freed by it.
    owned: bool,
}

/// An open multimedia file.
pub struct Mmio {
    storage: Storage,
    /// The open mode (MMIO_READ/WRITE/READWRITE, share and MMIO_CREATE bits).
    flags: u32,
    pos: u64,
    buf: Option<Buffer>,
}

impl Mmio {
    fn readable(&self) -> bool {
        self.flags & MMIO_RWMODE != MMIO_WRITE
    }

    fn writable(&self) -> bool {
        self.flags & MMIO_RWMODE != MMIO_READ
    }

    fn size(&self) -> u64 {
        match &self.storage {
            Storage::File { host, .. } => host.get().metadata().map(|m| m.len()).unwrap_or(0),
            Storage::Memory { size, .. } => u64::from(*size),
        }
    }

    /// Up to `n` bytes at `at` (fewer at the end of the file); `None` on an I/O error.
    fn read_at(&self, proc: &Process, at: u64, n: u32) -> Option<Vec<u8>> {
        let n = (u64::from(n)).min(self.size().saturating_sub(at)) as usize;
        let mut v = vec![0u8; n];
        match &self.storage {
            Storage::File { host, .. } => {
                use std::os::unix::fs::FileExt;
                let f = host.get();
                let mut got = 0;
                while got < n {
                    match f.read_at(&mut v[got..], at + got as u64) {
                        Ok(0) => break,
                        Ok(k) => got += k,
                        Err(_) => return None,
                    }
                }
                v.truncate(got);
            }
            Storage::Memory { base, .. } => {
                proc.mem
                    .read_bytes(base.wrapping_add(at as u32), &mut v)
                    .ok()?;
            }
        }
        Some(v)
    }

    /// Writes `bytes` at `at`; the count written (a memory file stops at its end),
    /// `None` on an I/O error.
    fn write_at(&self, proc: &Process, at: u64, bytes: &[u8]) -> Option<usize> {
        match &self.storage {
            Storage::File { host, .. } => {
                use std::os::unix::fs::FileExt;
                host.get().write_all_at(bytes, at).ok()?;
                Some(bytes.len())
            }
            Storage::Memory { base, size } => {
                let n = (bytes.len() as u64).min(u64::from(*size).saturating_sub(at)) as usize;
                proc.mem
                    .write_bytes(base.wrapping_add(at as u32), &bytes[..n])
                    .ok()?;
                Some(n)
            }
        }
    }

    /// mmioRead at the position: bytes read, or -1.
    fn read(&mut self, proc: &Process, n: u32) -> Option<Vec<u8>> {
        if !self.readable() {
            return None;
        }
        let v = self.read_at(proc, self.pos, n)?;
        self.pos += v.len() as u64;
        Some(v)
    }

    /// mmioWrite at the position: bytes written, or `None`.
    fn write(&mut self, proc: &Process, bytes: &[u8]) -> Option<usize> {
        if !self.writable() {
            return None;
        }
        let n = self.write_at(proc, self.pos, bytes)?;
        if n == 0 && !bytes.is_empty() {
            // A full memory file cannot grow (MMIOERR_CANNOTEXPAND).
            return None;
        }
        self.pos += n as u64;
        Some(n)
    }

    fn read_u32s<const N: usize>(&mut self, proc: &Process) -> Option<([u32; N], usize)> {
        let v = self.read(proc, 4 * N as u32)?;
        let mut out = [0u32; N];
        for (k, c) in v.chunks_exact(4).enumerate() {
            out[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Some((out, v.len()))
    }
}

/// mmioDescend on an open file (see the module comment).
pub fn descend(
    proc: &Process,
    f: &mut Mmio,
    ck: &mut CkInfo,
    parent: Option<&CkInfo>,
    flags: u32,
) -> u32 {
    let start = f.pos;
    let end = parent.map(|p| u64::from(p.data_offset) + u64::from(p.cksize));
    if let Some(p) = parent
        && (start < u64::from(p.data_offset) || end.is_some_and(|e| start >= e))
    {
        return MMIOERR_CHUNKNOTFOUND;
    }
    let (want_id, want_type) = if flags & MMIO_FINDRIFF != 0 {
        (Some(FOURCC_RIFF), Some(ck.fcc_type))
    } else if flags & MMIO_FINDLIST != 0 {
        (Some(FOURCC_LIST), Some(ck.fcc_type))
    } else if flags & MMIO_FINDCHUNK != 0 {
        (Some(ck.ckid), None)
    } else {
        (None, None)
    };
    let mut at = start;
    loop {
        // A header that does not fit in the parent is not a chunk of it.
        if end.is_some_and(|e| at + 8 > e) {
            f.pos = start;
            return MMIOERR_CHUNKNOTFOUND;
        }
        f.pos = at;
        let Some(([id, size], got)) = f.read_u32s::<2>(proc) else {
            f.pos = start;
            return MMIOERR_CHUNKNOTFOUND;
        };
        if got < 8 {
            f.pos = start;
            return MMIOERR_CHUNKNOTFOUND;
        }
        let data = at + 8;
        let container = id == FOURCC_RIFF || id == FOURCC_LIST;
        let fcc_type = if container {
            match f.read_u32s::<1>(proc) {
                Some(([t], 4)) => t,
                _ => {
                    f.pos = start;
                    return MMIOERR_CHUNKNOTFOUND;
                }
            }
        } else {
            0
        };
        let hit = want_id.is_none_or(|w| w == id) && want_type.is_none_or(|t| t == fcc_type);
        if hit {
            ck.ckid = id;
            ck.cksize = size;
            if container {
                ck.fcc_type = fcc_type;
            }
            ck.data_offset = data as u32;
            ck.flags = 0;
            f.pos = data + if container { 4 } else { 0 };
            return MMSYSERR_NOERROR;
        }
        at = data + u64::from(size) + u64::from(size & 1);
    }
}

/// mmioAscend on an open file.
pub fn ascend(proc: &Process, f: &mut Mmio, ck: &mut CkInfo) -> u32 {
    if ck.flags & MMIO_DIRTY != 0 {
        let size = f.pos.saturating_sub(u64::from(ck.data_offset)) as u32;
        if size != ck.cksize {
            ck.cksize = size;
            if size & 1 != 0 && f.write(proc, &[0]).is_none() {
                return MMIOERR_CANNOTWRITE;
            }
            if f.write_at(proc, u64::from(ck.data_offset) - 4, &size.to_le_bytes()) != Some(4) {
                return MMIOERR_CANNOTWRITE;
            }
        }
        ck.flags &= !MMIO_DIRTY;
    }
    f.pos = u64::from(ck.data_offset) + u64::from(ck.cksize) + u64::from(ck.cksize & 1);
    MMSYSERR_NOERROR
}

/// mmioCreateChunk on an open file.
pub fn create_chunk(proc: &Process, f: &mut Mmio, ck: &mut CkInfo, flags: u32) -> u32 {
    let start = f.pos;
    if flags & MMIO_CREATERIFF != 0 {
        ck.ckid = FOURCC_RIFF;
    } else if flags & MMIO_CREATELIST != 0 {
        ck.ckid = FOURCC_LIST;
    }
    let mut hdr = Vec::with_capacity(12);
    hdr.extend_from_slice(&ck.ckid.to_le_bytes());
    hdr.extend_from_slice(&ck.cksize.to_le_bytes());
    if ck.is_container() {
        hdr.extend_from_slice(&ck.fcc_type.to_le_bytes());
    }
    ck.data_offset = (start + 8) as u32;
    ck.flags = MMIO_DIRTY;
    if f.write(proc, &hdr) != Some(hdr.len()) {
        f.pos = start;
        return MMIOERR_CANNOTWRITE;
    }
    MMSYSERR_NOERROR
}

/// Per-process table of open multimedia files.
pub struct MmioState {
    files: Mutex<HashMap<u32, Arc<Mutex<Mmio>>>>,
    next: Mutex<u32>,
}

impl Default for MmioState {
    fn default() -> Self {
        MmioState {
            files: Mutex::new(HashMap::new()),
            next: Mutex::new(0x6d01),
        }
    }
}

fn file(cx: &Ctx, h: u32) -> Option<Arc<Mutex<Mmio>>> {
    lock(&cx.proc.slot::<MmioState>().files).get(&h).cloned()
}

fn vfs_error(e: &VfsError) -> u32 {
    match e.win32_code() {
        2 => MMIOERR_FILENOTFOUND,
        3 => MMIOERR_PATHNOTFOUND,
        5 => MMIOERR_ACCESSDENIED,
        32 | 33 => MMIOERR_SHARINGVIOLATION,
        _ => MMIOERR_CANNOTOPEN,
    }
}

/// The share mode the MMIO_DENY* bits ask for (compatibility mode shares both, as
/// OpenFile's OF_SHARE_COMPAT does on NT).
fn share_mode(flags: u32) -> u32 {
    match flags & MMIO_SHAREMODE {
        MMIO_EXCLUSIVE => 0,
        MMIO_DENYWRITE => FILE_SHARE_READ,
        MMIO_DENYREAD => FILE_SHARE_WRITE,
        _ => FILE_SHARE_READ | FILE_SHARE_WRITE,
    }
}

/// The MMIOINFO fields mmioOpen takes.
struct OpenInfo {
    fcc: u32,
    ioproc: u32,
    cch: u32,
    pch: u32,
}

/// Opens a file; `Ok(Err(code))` is an MMIOERR.
pub fn open(
    cx: &mut Ctx,
    name: Option<String>,
    info: Option<u32>,
    flags: u32,
) -> ApiResult<Result<u32, u32>> {
    let oi = match info {
        Some(p) => {
            let m = &cx.proc.mem;
            OpenInfo {
                fcc: m.read_u32(p + info::FCC_IOPROC)?,
                ioproc: m.read_u32(p + info::P_IOPROC)?,
                cch: m.read_u32(p + info::CCH_BUFFER)?,
                pch: m.read_u32(p + info::PCH_BUFFER)?,
            }
        }
        None => OpenInfo {
            fcc: 0,
            ioproc: 0,
            cch: 0,
            pch: 0,
        },
    };
    if oi.ioproc != 0 || !matches!(oi.fcc, 0 | FOURCC_DOS | FOURCC_MEM) {
        return Err(ApiError::UnimplementedCase(format!(
            "mmioOpen with a custom I/O procedure (fccIOProc {:?}, pIOProc {:#x})",
            String::from_utf8_lossy(&oi.fcc.to_le_bytes()),
            oi.ioproc
        )));
    }
    if flags & MMIO_GETTEMP != 0 {
        return Err(ApiError::UnimplementedCase("mmioOpen(MMIO_GETTEMP)".into()));
    }
    let (storage, buf) = if oi.fcc == FOURCC_MEM {
        // The buffer is the file. cchBuffer -1 (Wine's PlaySound passes it) means
        // "as far as memory goes".
        let size = if oi.cch as i32 == -1 {
            u32::MAX - oi.pch
        } else {
            oi.cch
        };
        if oi.pch == 0 {
            return Err(ApiError::UnimplementedCase(
                "mmioOpen of a memory file without a buffer (mmio allocating an expandable one)"
                    .into(),
            ));
        }
        (Storage::Memory { base: oi.pch, size }, None)
    } else {
        let Some(name) = name else {
            return Err(ApiError::UnimplementedCase(
                "mmioOpen of an already open file handle (szFilename NULL, adwInfo[0] a file)"
                    .into(),
            ));
        };
        let vfs = crate::kernel32::file::vfs(cx.proc)?;
        if flags & MMIO_PARSE != 0 {
            // mmioOpenA/W answer MMIO_PARSE themselves (they own the name buffer).
            return Err(ApiError::UnimplementedCase(
                "mmioOpen(MMIO_PARSE) through an internal caller".into(),
            ));
        }
        if flags & MMIO_DELETE != 0 {
            return Ok(match vfs.delete_file(&name) {
                Ok(()) => Ok(1),
                Err(e) => Err(vfs_error(&e)),
            });
        }
        let mode = flags & MMIO_RWMODE;
        let opts = OpenOptions {
            read: mode != MMIO_WRITE || flags & MMIO_EXIST != 0,
            write: mode != MMIO_READ && flags & MMIO_EXIST == 0,
            delete: false,
            share: share_mode(flags),
            disposition: if flags & MMIO_CREATE != 0 && flags & MMIO_EXIST == 0 {
                CreationDisposition::CreateAlways
            } else {
                CreationDisposition::OpenExisting
            },
            attributes: 0,
            backup_semantics: false,
        };
        let f = match vfs.open(&name, &opts) {
            Ok(Opened::File(f)) => f,
            Ok(_) => return Ok(Err(MMIOERR_CANNOTOPEN)),
            Err(VfsError::Config(what)) => {
                return Err(ApiError::Other(format!("file system: {what}")));
            }
            Err(e) => return Ok(Err(vfs_error(&e))),
        };
        if flags & MMIO_EXIST != 0 {
            // The file exists; nothing stays open.
            return Ok(Ok(1));
        }
        let buf = if flags & MMIO_ALLOCBUF != 0 || (oi.pch != 0 && oi.cch != 0) {
            let size = if oi.cch == 0 {
                MMIO_DEFAULTBUFFER
            } else {
                oi.cch
            };
            if oi.pch != 0 {
                Some(Buffer {
                    addr: oi.pch,
                    size,
                    owned: false,
                })
            } else {
                let heap = crate::kernel32::heap::process_heap(cx.proc)?;
                let a = heap.alloc(size, true)?;
                if a == 0 {
                    return Ok(Err(MMIOERR_OUTOFMEMORY));
                }
                Some(Buffer {
                    addr: a,
                    size,
                    owned: true,
                })
            }
        } else {
            None
        };
        (
            Storage::File {
                host: f.host,
                _open: f.open,
            },
            buf,
        )
    };
    let st = cx.proc.slot::<MmioState>();
    let h = {
        let mut n = lock(&st.next);
        let h = *n;
        *n += 1;
        h
    };
    lock(&st.files).insert(
        h,
        Arc::new(Mutex::new(Mmio {
            storage,
            flags,
            pos: 0,
            buf,
        })),
    );
    Ok(Ok(h))
}

fn open_common(
    cx: &mut Ctx,
    name: Option<String>,
    lpmmioinfo: Ptr,
    dwOpenFlags: u32,
) -> ApiResult<u32> {
    let info = (!lpmmioinfo.is_null()).then_some(lpmmioinfo.0);
    let r = open(cx, name, info, dwOpenFlags)?;
    if let Some(p) = info {
        let (err, h) = match r {
            Ok(h) => (0, h),
            Err(e) => (e, 0),
        };
        cx.proc.mem.write_u32(p + info::W_ERROR_RET, err)?;
        if err == 0 && dwOpenFlags & (MMIO_PARSE | MMIO_DELETE | MMIO_EXIST) == 0 {
            cx.proc.mem.write_u32(p + info::HMMIO, h)?;
        }
    }
    Ok(r.unwrap_or(0))
}

/// MMIO_PARSE writes the full path into the caller's 128-character buffer.
fn parse_path(cx: &mut Ctx, name: &str, out: u32, wide: bool) -> ApiResult<u32> {
    let vfs = crate::kernel32::file::vfs(cx.proc)?;
    let full = match vfs.full_path(name) {
        Ok(p) => p,
        Err(_) => return Ok(0),
    };
    if wide {
        let w: Vec<u16> = full.encode_utf16().collect();
        crate::kernel32::string::copy_truncated_w(cx.proc, out, 128, &w)?;
    } else {
        crate::kernel32::string::copy_truncated_a(cx.proc, out, 128, full.as_bytes())?;
    }
    Ok(1)
}

pub fn mmioOpenA(
    cx: &mut Ctx,
    szFilename: Ptr,
    lpmmioinfo: Ptr,
    dwOpenFlags: u32,
) -> ApiResult<u32> {
    let name = if szFilename.is_null() {
        None
    } else {
        Some(decode_file_api(
            cx.proc,
            &read_cbytes(cx.proc, szFilename.0)?,
        ))
    };
    if dwOpenFlags & MMIO_PARSE != 0
        && let Some(n) = &name
    {
        return parse_path(cx, &n.clone(), szFilename.0, false);
    }
    open_common(cx, name, lpmmioinfo, dwOpenFlags)
}

pub fn mmioOpenW(
    cx: &mut Ctx,
    szFilename: Ptr,
    lpmmioinfo: Ptr,
    dwOpenFlags: u32,
) -> ApiResult<u32> {
    let name = if szFilename.is_null() {
        None
    } else {
        Some(read_wstr(cx.proc, szFilename.0)?)
    };
    if dwOpenFlags & MMIO_PARSE != 0
        && let Some(n) = &name
    {
        return parse_path(cx, &n.clone(), szFilename.0, true);
    }
    open_common(cx, name, lpmmioinfo, dwOpenFlags)
}

pub fn mmioClose(cx: &mut Ctx, hmmio: u32, _wFlags: u32) -> ApiResult<u32> {
    // MMIO_FHOPEN only matters for files opened from a DOS handle, which mmioOpen
    // does not accept; the host file closes with the last reference.
    let Some(f) = lock(&cx.proc.slot::<MmioState>().files).remove(&hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if let Some(b) = lock(&f).buf.take()
        && b.owned
    {
        crate::kernel32::heap::process_heap(cx.proc)?.free(b.addr);
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn mmioRead(cx: &mut Ctx, hmmio: u32, pch: Ptr, cch: i32) -> ApiResult<i32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(-1);
    };
    if cch < 0 {
        return Ok(-1);
    }
    let mut f = lock(&f);
    let Some(v) = f.read(cx.proc, cch as u32) else {
        return Ok(-1);
    };
    if cx.proc.mem.write_bytes(pch.0, &v).is_err() {
        f.pos -= v.len() as u64;
        return Ok(-1);
    }
    Ok(v.len() as i32)
}

pub fn mmioWrite(cx: &mut Ctx, hmmio: u32, pch: Ptr, cch: i32) -> ApiResult<i32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(-1);
    };
    if cch < 0 {
        return Ok(-1);
    }
    let mut v = vec![0u8; cch as usize];
    if cx.proc.mem.read_bytes(pch.0, &mut v).is_err() {
        return Ok(-1);
    }
    let mut f = lock(&f);
    Ok(f.write(cx.proc, &v).map_or(-1, |n| n as i32))
}

pub fn mmioSeek(cx: &mut Ctx, hmmio: u32, lOffset: i32, iOrigin: i32) -> ApiResult<i32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(-1);
    };
    let mut f = lock(&f);
    let base = match iOrigin {
        SEEK_SET => 0,
        SEEK_CUR => f.pos as i64,
        SEEK_END => f.size() as i64,
        _ => return Ok(-1),
    };
    let p = base + i64::from(lOffset);
    if !(0..=i64::from(i32::MAX)).contains(&p) {
        return Ok(-1);
    }
    f.pos = p as u64;
    Ok(p as i32)
}

pub fn mmioDescend(
    cx: &mut Ctx,
    hmmio: u32,
    lpck: Ptr,
    lpckParent: Ptr,
    wFlags: u32,
) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if lpck.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let mut ck = CkInfo::read(cx.proc, lpck.0)?;
    let parent = if lpckParent.is_null() {
        None
    } else {
        Some(CkInfo::read(cx.proc, lpckParent.0)?)
    };
    let r = descend(cx.proc, &mut lock(&f), &mut ck, parent.as_ref(), wFlags);
    if r == MMSYSERR_NOERROR {
        ck.write(cx.proc, lpck.0)?;
    }
    Ok(r)
}

pub fn mmioAscend(cx: &mut Ctx, hmmio: u32, lpck: Ptr, _wFlags: u32) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if lpck.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let mut ck = CkInfo::read(cx.proc, lpck.0)?;
    let r = ascend(cx.proc, &mut lock(&f), &mut ck);
    ck.write(cx.proc, lpck.0)?;
    Ok(r)
}

pub fn mmioCreateChunk(cx: &mut Ctx, hmmio: u32, lpck: Ptr, wFlags: u32) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if lpck.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let mut ck = CkInfo::read(cx.proc, lpck.0)?;
    let r = create_chunk(cx.proc, &mut lock(&f), &mut ck, wFlags);
    ck.write(cx.proc, lpck.0)?;
    Ok(r)
}

/// Fills a buffered file's buffer from the position and describes it in the
/// caller's MMIOINFO (a memory file's "buffer" is the file itself).
fn write_info(cx: &Ctx, h: u32, f: &Mmio, p: u32) -> ApiResult<()> {
    let m = &cx.proc.mem;
    let mut fields = [0u32; (info::SIZE / 4) as usize];
    let mut set = |off: u32, v: u32| fields[(off / 4) as usize] = v;
    match (&f.storage, f.buf) {
        (Storage::Memory { base, size }, _) => {
            set(info::DW_FLAGS, f.flags);
            set(info::FCC_IOPROC, FOURCC_MEM);
            set(info::CCH_BUFFER, *size);
            set(info::PCH_BUFFER, *base);
            set(info::PCH_NEXT, base.wrapping_add(f.pos as u32));
            set(info::PCH_END_READ, base.wrapping_add(*size));
            set(info::PCH_END_WRITE, base.wrapping_add(*size));
            set(info::L_DISK_OFFSET, *size);
        }
        (Storage::File { .. }, None) => {
            set(info::DW_FLAGS, f.flags);
            set(info::FCC_IOPROC, FOURCC_DOS);
            set(info::L_BUF_OFFSET, f.pos as u32);
            set(info::L_DISK_OFFSET, f.pos as u32);
        }
        (Storage::File { .. }, Some(b)) => {
            let data = if f.readable() {
                f.read_at(cx.proc, f.pos, b.size).unwrap_or_default()
            } else {
                Vec::new()
            };
            m.write_bytes(b.addr, &data)?;
            set(
                info::DW_FLAGS,
                f.flags | if b.owned { MMIO_ALLOCBUF } else { 0 },
            );
            set(info::FCC_IOPROC, FOURCC_DOS);
            set(info::CCH_BUFFER, b.size);
            set(info::PCH_BUFFER, b.addr);
            set(info::PCH_NEXT, b.addr);
            set(info::PCH_END_READ, b.addr + data.len() as u32);
            set(info::PCH_END_WRITE, b.addr + b.size);
            set(info::L_BUF_OFFSET, f.pos as u32);
            set(info::L_DISK_OFFSET, (f.pos + data.len() as u64) as u32);
        }
    }
    set(info::HMMIO, h);
    let bytes: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    m.write_bytes(p, &bytes)?;
    Ok(())
}

/// Takes back a caller's MMIOINFO: writes a dirty buffer to the file and moves the
/// position to `pchNext`.
fn take_info(cx: &Ctx, f: &mut Mmio, p: u32) -> ApiResult<u32> {
    let m = &cx.proc.mem;
    let flags = m.read_u32(p + info::DW_FLAGS)?;
    let next = m.read_u32(p + info::PCH_NEXT)?;
    let pch = m.read_u32(p + info::PCH_BUFFER)?;
    let buf_off = m.read_u32(p + info::L_BUF_OFFSET)?;
    match (&f.storage, f.buf) {
        (Storage::Memory { base, .. }, _) => {
            f.pos = u64::from(next.wrapping_sub(*base));
        }
        (Storage::File { .. }, None) => {}
        (Storage::File { .. }, Some(b)) => {
            let used = next.wrapping_sub(pch).min(b.size);
            if flags & MMIO_DIRTY != 0 {
                let end_read = m.read_u32(p + info::PCH_END_READ)?.wrapping_sub(pch);
                let n = used.max(end_read.min(b.size));
                let mut data = vec![0u8; n as usize];
                m.read_bytes(b.addr, &mut data)?;
                if !f.writable() || f.write_at(cx.proc, u64::from(buf_off), &data).is_none() {
                    return Ok(MMIOERR_CANNOTWRITE);
                }
                m.write_u32(p + info::DW_FLAGS, flags & !MMIO_DIRTY)?;
            }
            f.pos = u64::from(buf_off) + u64::from(used);
        }
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn mmioGetInfo(cx: &mut Ctx, hmmio: u32, lpmmioinfo: Ptr, _wFlags: u32) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if lpmmioinfo.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    write_info(cx, hmmio, &lock(&f), lpmmioinfo.0)?;
    Ok(MMSYSERR_NOERROR)
}

pub fn mmioSetInfo(cx: &mut Ctx, hmmio: u32, lpmmioinfo: Ptr, _wFlags: u32) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    if lpmmioinfo.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    take_info(cx, &mut lock(&f), lpmmioinfo.0)
}

pub fn mmioAdvance(cx: &mut Ctx, hmmio: u32, lpmmioinfo: Ptr, wFlags: u32) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let mut f = lock(&f);
    if matches!(f.storage, Storage::File { .. }) && f.buf.is_none() {
        return Ok(MMIOERR_UNBUFFERED);
    }
    if !lpmmioinfo.is_null() {
        let r = take_info(cx, &mut f, lpmmioinfo.0)?;
        if r != MMSYSERR_NOERROR {
            return Ok(r);
        }
    }
    if let Storage::Memory { size, .. } = f.storage
        && wFlags & MMIO_WRITE != 0
        && f.pos >= u64::from(size)
    {
        // Memory files here never grow.
        return Ok(MMIOERR_CANNOTEXPAND);
    }
    // MMIO_READ is 0: an advance without MMIO_WRITE is a read.
    if wFlags & MMIO_WRITE == 0 && !f.readable() {
        return Ok(MMIOERR_CANNOTREAD);
    }
    if !lpmmioinfo.is_null() {
        write_info(cx, hmmio, &f, lpmmioinfo.0)?;
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn mmioFlush(cx: &mut Ctx, hmmio: u32, _fuFlush: u32) -> ApiResult<u32> {
    // Writes reach the host file as they are made (see the module comment).
    Ok(if file(cx, hmmio).is_some() {
        MMSYSERR_NOERROR
    } else {
        MMSYSERR_INVALHANDLE
    })
}

pub fn mmioSetBuffer(
    cx: &mut Ctx,
    hmmio: u32,
    pchBuffer: Ptr,
    cchBuffer: i32,
    _wFlags: u32,
) -> ApiResult<u32> {
    let Some(f) = file(cx, hmmio) else {
        return Ok(MMSYSERR_INVALHANDLE);
    };
    let mut f = lock(&f);
    if matches!(f.storage, Storage::Memory { .. }) {
        return Err(ApiError::UnimplementedCase(
            "mmioSetBuffer on a memory file".into(),
        ));
    }
    if cchBuffer < 0 {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let new = match (pchBuffer.is_null(), cchBuffer) {
        (_, 0) => None,
        (false, n) => Some(Buffer {
            addr: pchBuffer.0,
            size: n as u32,
            owned: false,
        }),
        (true, n) => {
            let a = heap.alloc(n as u32, true)?;
            if a == 0 {
                return Ok(MMIOERR_OUTOFMEMORY);
            }
            Some(Buffer {
                addr: a,
                size: n as u32,
                owned: true,
            })
        }
    };
    if let Some(old) = std::mem::replace(&mut f.buf, new)
        && old.owned
    {
        heap.free(old.addr);
    }
    Ok(MMSYSERR_NOERROR)
}

/// mmioStringToFOURCC: the first four characters, padded with spaces.
pub fn string_to_fourcc(s: &[u8], upper: bool) -> u32 {
    let mut b = [b' '; 4];
    for (k, &c) in s.iter().take_while(|&&c| c != 0).take(4).enumerate() {
        b[k] = if upper { c.to_ascii_uppercase() } else { c };
    }
    u32::from_le_bytes(b)
}

pub fn mmioStringToFOURCCA(cx: &mut Ctx, sz: Ptr, uFlags: u32) -> ApiResult<u32> {
    let s = cx.proc.mem.read_cstr(sz.0, 4)?;
    Ok(string_to_fourcc(&s, uFlags & MMIO_TOUPPER != 0))
}

pub fn mmioStringToFOURCCW(cx: &mut Ctx, sz: Ptr, uFlags: u32) -> ApiResult<u32> {
    // Each character narrowed to a byte, as the ANSI code page does for ASCII.
    let mut s = Vec::new();
    for k in 0..4 {
        let u = cx.proc.mem.read_u16(sz.0 + 2 * k)?;
        if u == 0 {
            break;
        }
        s.push(if u < 0x80 { u as u8 } else { b'?' });
    }
    Ok(string_to_fourcc(&s, uFlags & MMIO_TOUPPER != 0))
}

fn install_io_proc(fccIOProc: u32, dwFlags: u32) -> ApiResult<u32> {
    let name = String::from_utf8_lossy(&fccIOProc.to_le_bytes()).into_owned();
    if dwFlags & MMIO_INSTALLPROC != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "mmioInstallIOProc: installing a custom I/O procedure ({name:?})"
        )));
    }
    if dwFlags & (MMIO_FINDPROC | MMIO_REMOVEPROC) != 0 {
        if matches!(fccIOProc, FOURCC_DOS | FOURCC_MEM) {
            return Err(ApiError::UnimplementedCase(format!(
                "mmioInstallIOProc: the address of the built-in {name:?} I/O procedure"
            )));
        }
        // Nothing was ever installed, so there is nothing to find or remove.
        return Ok(0);
    }
    Ok(0)
}

pub fn mmioInstallIOProcA(
    _cx: &mut Ctx,
    fccIOProc: u32,
    _pIOProc: u32,
    dwFlags: u32,
) -> ApiResult<u32> {
    install_io_proc(fccIOProc, dwFlags)
}

pub fn mmioInstallIOProcW(
    _cx: &mut Ctx,
    fccIOProc: u32,
    _pIOProc: u32,
    dwFlags: u32,
) -> ApiResult<u32> {
    install_io_proc(fccIOProc, dwFlags)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("mmioOpenA", mmioOpenA),
        stdcall("mmioOpenW", mmioOpenW),
        stdcall("mmioClose", mmioClose),
        stdcall("mmioRead", mmioRead),
        stdcall("mmioWrite", mmioWrite),
        stdcall("mmioSeek", mmioSeek),
        stdcall("mmioDescend", mmioDescend),
        stdcall("mmioAscend", mmioAscend),
        stdcall("mmioCreateChunk", mmioCreateChunk),
        stdcall("mmioGetInfo", mmioGetInfo),
        stdcall("mmioSetInfo", mmioSetInfo),
        stdcall("mmioAdvance", mmioAdvance),
        stdcall("mmioFlush", mmioFlush),
        stdcall("mmioSetBuffer", mmioSetBuffer),
        stdcall("mmioStringToFOURCCA", mmioStringToFOURCCA),
        stdcall("mmioStringToFOURCCW", mmioStringToFOURCCW),
        stdcall("mmioInstallIOProcA", mmioInstallIOProcA),
        stdcall("mmioInstallIOProcW", mmioInstallIOProcW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    fn chunk(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut v = [id.as_slice(), &(body.len() as u32).to_le_bytes(), body].concat();
        if body.len() % 2 == 1 {
            v.push(0);
        }
        v
    }

    /// RIFF WAVE { fmt (16), LIST INFO (odd size 5), data (4) }.
    fn riff() -> Vec<u8> {
        let fmt = [
            1u16.to_le_bytes().as_slice(),
            &1u16.to_le_bytes(),
            &11025u32.to_le_bytes(),
            &11025u32.to_le_bytes(),
            &1u16.to_le_bytes(),
            &8u16.to_le_bytes(),
        ]
        .concat();
        let body = [
            b"WAVE".as_slice(),
            &chunk(b"fmt ", &fmt),
            &chunk(b"LIST", b"INFOx"),
            &chunk(b"data", &[0x80, 0x90, 0xa0, 0xb0]),
        ]
        .concat();
        chunk(b"RIFF", &body)
    }

    /// Opens a memory file over `bytes` copied to guest memory; returns (hmmio,
    /// buffer address, MMCKINFO scratch for two chunks).
    fn open_mem(h: &mut Harness, bytes: &[u8], flags: u32) -> (u32, u32, u32) {
        let buf = h.scratch(0x1000);
        h.proc.mem.write_bytes(buf, bytes).unwrap();
        let info = h.scratch(0x1000);
        h.proc
            .mem
            .write_u32(info + info::FCC_IOPROC, FOURCC_MEM)
            .unwrap();
        h.proc.mem.write_u32(info + info::PCH_BUFFER, buf).unwrap();
        h.proc
            .mem
            .write_u32(info + info::CCH_BUFFER, bytes.len() as u32)
            .unwrap();
        let hm = mmioOpenA(&mut h.cx(), Ptr(0), Ptr(info), flags).unwrap();
        assert_ne!(hm, 0);
        assert_eq!(h.proc.mem.read_u32(info + info::HMMIO).unwrap(), hm);
        (hm, buf, h.scratch(0x1000))
    }

    fn ck(h: &Harness, p: u32) -> CkInfo {
        CkInfo::read(&h.proc, p).unwrap()
    }

    fn tell(h: &mut Harness, hm: u32) -> i32 {
        mmioSeek(&mut h.cx(), hm, 0, SEEK_CUR).unwrap()
    }

    #[test]
    fn descends_and_ascends_a_riff_in_a_memory_file() {
        let mut h = Harness::new();
        let img = riff();
        let (hm, _, cks) = open_mem(&mut h, &img, MMIO_READ);
        let (parent, child) = (cks, cks + 20);
        CkInfo {
            fcc_type: fourcc(b"WAVE"),
            ..Default::default()
        }
        .write(&h.proc, parent)
        .unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(parent), Ptr(0), MMIO_FINDRIFF).unwrap();
        assert_eq!(r, MMSYSERR_NOERROR);
        let p = ck(&h, parent);
        assert_eq!(
            (p.ckid, p.cksize, p.fcc_type),
            (FOURCC_RIFF, img.len() as u32 - 8, fourcc(b"WAVE"))
        );
        // dwDataOffset is the form type's offset; the position is after it.
        assert_eq!(p.data_offset, 8);
        assert_eq!(tell(&mut h, hm), 12);

        // The data chunk is found past fmt and the padded odd-sized LIST.
        CkInfo {
            ckid: fourcc(b"data"),
            ..Default::default()
        }
        .write(&h.proc, child)
        .unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(parent), MMIO_FINDCHUNK).unwrap();
        assert_eq!(r, MMSYSERR_NOERROR);
        let c = ck(&h, child);
        assert_eq!((c.ckid, c.cksize), (fourcc(b"data"), 4));
        assert_eq!(c.data_offset, 12 + 24 + 14 + 8);
        let out = h.scratch(16);
        assert_eq!(mmioRead(&mut h.cx(), hm, Ptr(out), 100).unwrap(), 4);
        let mut got = [0u8; 4];
        h.proc.mem.read_bytes(out, &mut got).unwrap();
        assert_eq!(got, [0x80, 0x90, 0xa0, 0xb0]);
        assert_eq!(mmioRead(&mut h.cx(), hm, Ptr(out), 100).unwrap(), 0);

        // Back to the start of the form: no flags reads the next header (fmt),
        // and ascending from it lands on the LIST header.
        mmioSeek(&mut h.cx(), hm, 12, SEEK_SET).unwrap();
        assert_eq!(
            mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(parent), 0).unwrap(),
            0
        );
        let c = ck(&h, child);
        assert_eq!((c.ckid, c.cksize, c.data_offset), (fourcc(b"fmt "), 16, 20));
        assert_eq!(mmioAscend(&mut h.cx(), hm, Ptr(child), 0).unwrap(), 0);
        assert_eq!(tell(&mut h, hm), 36);
        // A LIST is found by its list type with MMIO_FINDLIST.
        CkInfo {
            fcc_type: fourcc(b"INFO"),
            ..Default::default()
        }
        .write(&h.proc, child)
        .unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(parent), MMIO_FINDLIST).unwrap();
        assert_eq!(r, MMSYSERR_NOERROR);
        assert_eq!(ck(&h, child).cksize, 5);
        assert_eq!(tell(&mut h, hm), 48);
        assert_eq!(mmioAscend(&mut h.cx(), hm, Ptr(child), 0).unwrap(), 0);
        // 5 bytes of data padded to 6.
        assert_eq!(tell(&mut h, hm), 50);
        assert_eq!(mmioClose(&mut h.cx(), hm, 0).unwrap(), MMSYSERR_NOERROR);
        assert_eq!(mmioClose(&mut h.cx(), hm, 0).unwrap(), MMSYSERR_INVALHANDLE);
    }

    #[test]
    fn findchunk_misses_leave_the_position_alone() {
        let mut h = Harness::new();
        let img = riff();
        let (hm, _, cks) = open_mem(&mut h, &img, MMIO_READ);
        let (parent, child) = (cks, cks + 20);
        assert_eq!(
            mmioDescend(&mut h.cx(), hm, Ptr(parent), Ptr(0), 0).unwrap(),
            0
        );
        CkInfo {
            ckid: fourcc(b"smpl"),
            ..Default::default()
        }
        .write(&h.proc, child)
        .unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(parent), MMIO_FINDCHUNK).unwrap();
        assert_eq!(r, MMIOERR_CHUNKNOTFOUND);
        assert_eq!(tell(&mut h, hm), 12);
        // MMCKINFO is left as it was.
        assert_eq!(ck(&h, child).ckid, fourcc(b"smpl"));
        // A RIFF of another form type is not found either.
        mmioSeek(&mut h.cx(), hm, 0, SEEK_SET).unwrap();
        CkInfo {
            fcc_type: fourcc(b"AVI "),
            ..Default::default()
        }
        .write(&h.proc, child)
        .unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(0), MMIO_FINDRIFF).unwrap();
        assert_eq!(r, MMIOERR_CHUNKNOTFOUND);
        assert_eq!(tell(&mut h, hm), 0);
        // Outside the parent's data nothing is looked at.
        mmioSeek(&mut h.cx(), hm, 4, SEEK_SET).unwrap();
        let r = mmioDescend(&mut h.cx(), hm, Ptr(child), Ptr(parent), 0).unwrap();
        assert_eq!(r, MMIOERR_CHUNKNOTFOUND);
    }

    #[test]
    fn write_and_ascend_fix_the_chunk_sizes() {
        let mut h = Harness::new();
        let (hm, buf, cks) = open_mem(&mut h, &[0xee; 40], MMIO_READWRITE);
        let (riff, data) = (cks, cks + 20);
        CkInfo {
            fcc_type: fourcc(b"WAVE"),
            ..Default::default()
        }
        .write(&h.proc, riff)
        .unwrap();
        assert_eq!(
            mmioCreateChunk(&mut h.cx(), hm, Ptr(riff), MMIO_CREATERIFF).unwrap(),
            0
        );
        let r = ck(&h, riff);
        assert_eq!(
            (r.ckid, r.data_offset, r.flags),
            (FOURCC_RIFF, 8, MMIO_DIRTY)
        );
        CkInfo {
            ckid: fourcc(b"data"),
            ..Default::default()
        }
        .write(&h.proc, data)
        .unwrap();
        assert_eq!(mmioCreateChunk(&mut h.cx(), hm, Ptr(data), 0).unwrap(), 0);
        let src = h.scratch(16);
        h.proc.mem.write_bytes(src, &[1, 2, 3]).unwrap();
        assert_eq!(mmioWrite(&mut h.cx(), hm, Ptr(src), 3).unwrap(), 3);
        // Ascending writes the size the data reached and a pad byte.
        assert_eq!(mmioAscend(&mut h.cx(), hm, Ptr(data), 0).unwrap(), 0);
        assert_eq!((ck(&h, data).cksize, ck(&h, data).flags), (3, 0));
        assert_eq!(tell(&mut h, hm), 24);
        assert_eq!(mmioAscend(&mut h.cx(), hm, Ptr(riff), 0).unwrap(), 0);
        assert_eq!(ck(&h, riff).cksize, 16);
        let mut got = [0u8; 26];
        h.proc.mem.read_bytes(buf, &mut got).unwrap();
        let want = [
            b"RIFF".as_slice(),
            &16u32.to_le_bytes(),
            b"WAVE",
            b"data",
            &3u32.to_le_bytes(),
            &[1, 2, 3, 0],
            &[0xee, 0xee],
        ]
        .concat();
        assert_eq!(got.as_slice(), want.as_slice());
        // A memory file does not grow: writing past its end fails.
        mmioSeek(&mut h.cx(), hm, 0, SEEK_END).unwrap();
        assert_eq!(mmioWrite(&mut h.cx(), hm, Ptr(src), 3).unwrap(), -1);
        // A read-only file refuses writes.
        let (ro, _, _) = open_mem(&mut h, &[0; 8], MMIO_READ);
        assert_eq!(mmioWrite(&mut h.cx(), ro, Ptr(src), 3).unwrap(), -1);
    }

    #[test]
    fn get_info_describes_a_memory_file() {
        let mut h = Harness::new();
        let (hm, buf, _) = open_mem(&mut h, &riff(), MMIO_READ);
        mmioSeek(&mut h.cx(), hm, 12, SEEK_SET).unwrap();
        let info = h.scratch(info::SIZE);
        assert_eq!(mmioGetInfo(&mut h.cx(), hm, Ptr(info), 0).unwrap(), 0);
        let f = |o| h.proc.mem.read_u32(info + o).unwrap();
        assert_eq!(f(info::FCC_IOPROC), FOURCC_MEM);
        assert_eq!(f(info::PCH_BUFFER), buf);
        assert_eq!(f(info::PCH_NEXT), buf + 12);
        assert_eq!(f(info::HMMIO), hm);
        // Direct access moves the position through mmioSetInfo.
        h.proc
            .mem
            .write_u32(info + info::PCH_NEXT, buf + 20)
            .unwrap();
        assert_eq!(mmioSetInfo(&mut h.cx(), hm, Ptr(info), 0).unwrap(), 0);
        assert_eq!(tell(&mut h, hm), 20);
        // An unbuffered memory file is still "buffered" (the buffer is the file).
        assert_eq!(
            mmioAdvance(&mut h.cx(), hm, Ptr(info), MMIO_READ).unwrap(),
            0
        );
    }

    #[test]
    fn strings_become_fourccs() {
        assert_eq!(string_to_fourcc(b"wav", false), fourcc(b"wav "));
        assert_eq!(string_to_fourcc(b"riffy", false), fourcc(b"riff"));
        assert_eq!(string_to_fourcc(b"wav", true), fourcc(b"WAV "));
        assert_eq!(string_to_fourcc(b"", false), fourcc(b"    "));
    }
}
