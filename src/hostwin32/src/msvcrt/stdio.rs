//! Buffered streams. A `FILE*` is a 32-byte guest structure (`_ptr, _cnt, _base,
//! _flag, _file, _charbuf, _bufsiz, _tmpfname`); `_iob` holds stdin, stdout and
//! stderr. The buffers themselves live host-side, keyed by the FILE address; the
//! guest structure keeps `_file` and the `_flag` bits (read/write, EOF, error) right,
//! and `_flag` is where EOF and error are recorded (so code that tests the bits
//! directly agrees with `feof`/`ferror`).
//!
//! Buffering follows msvcrt: streams on files are fully buffered (4 KiB; msvcrt has
//! no line buffering, `_IOLBF` means full); stdout on a console and stderr are
//! flushed at the end of every call; `_IONBF` streams write through.

#![allow(non_snake_case)]

use super::lowio::{self, Fd, O_APPEND, O_BINARY, O_CREAT, O_RDONLY, O_RDWR, O_TEMPORARY};
use super::lowio::{O_TEXT, O_TRUNC, O_WRONLY};
use super::state::{arena_alloc, crt, errno, set_errno};
use super::{gmem, printf, scanf};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, VarArgs, WStrPtr, cdecl, data};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::Arc;

pub const FILE_SIZE: u32 = 32;
/// Entries of `_iob` (msvcrt's `_NSTREAM_` static FILE table size).
pub const IOB_ENTRIES: u32 = 20;
const F_FLAG: u32 = 12;
const F_FILE: u32 = 16;
const F_BUFSIZ: u32 = 24;

const IOREAD: u32 = 0x1;
const IOWRT: u32 = 0x2;
const IONBF: u32 = 0x4;
const IOEOF: u32 = 0x10;
const IOERR: u32 = 0x20;
const IORW: u32 = 0x80;

const BUFSIZ: usize = 4096;
const EOF: i32 = -1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buffering {
    Full(usize),
    /// Flushed at the end of each call (console stdout, stderr).
    PerCall,
    None,
}

pub struct Stream {
    fd: i32,
    readable: bool,
    writable: bool,
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    ungot: Vec<u8>,
    mode: Buffering,
    /// The FILE came from the heap rather than `_iob` (freed on fclose).
    heap: bool,
}

/// Streams and descriptors of one process.
#[derive(Default)]
pub struct Io {
    pub fds: Vec<Option<Fd>>,
    pub std_bound: [bool; 3],
    pub streams: HashMap<u32, Stream>,
    iob: u32,
    tmp_counter: u32,
}

pub(crate) fn iob_addr(proc: &Arc<Process>) -> ApiResult<u32> {
    // _iob[0]._flag is _IOREAD once initialised.
    super::state::data_var(proc, "_iob", init_iob_check)
}

fn init_iob_check(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    if proc.mem.read_u32(a + F_FLAG)? == 0 {
        init_iob(proc, a)?;
    }
    Ok(())
}

fn init_iob(proc: &Arc<Process>, addr: u32) -> ApiResult<()> {
    for k in 0..3u32 {
        let fp = addr + k * FILE_SIZE;
        proc.mem
            .write_u32(fp + F_FLAG, if k == 0 { IOREAD } else { IOWRT })?;
        proc.mem.write_u32(fp + F_FILE, k)?;
    }
    // Unused entries have _file -1 as in a fresh msvcrt.
    for k in 3..IOB_ENTRIES {
        proc.mem
            .write_u32(addr + k * FILE_SIZE + F_FILE, u32::MAX)?;
    }
    Ok(())
}

/// The stream behind `fp`, creating the standard ones on first use; `None` (errno
/// EINVAL) for something that is not an open FILE.
fn with_stream<R>(
    cx: &mut Ctx,
    fp: u32,
    f: impl FnOnce(&mut Ctx, &mut Io, u32) -> ApiResult<R>,
) -> ApiResult<Option<R>> {
    let c = crt(cx.proc);
    let mut io = c.io();
    if io.iob == 0 {
        io.iob = iob_addr(cx.proc)?;
    }
    if !io.streams.contains_key(&fp) {
        let k = fp.wrapping_sub(io.iob);
        if k.is_multiple_of(FILE_SIZE) && k / FILE_SIZE < 3 {
            let fd = (k / FILE_SIZE) as i32;
            let entry = lowio::fd_entry(cx, &mut io, fd)?;
            let mode = match (&entry, fd) {
                (_, 2) => Buffering::PerCall,
                (Some(e), _) if e.device => Buffering::PerCall,
                _ => Buffering::Full(BUFSIZ),
            };
            io.streams.insert(
                fp,
                Stream {
                    fd,
                    readable: fd == 0,
                    writable: fd != 0,
                    rbuf: Vec::new(),
                    rpos: 0,
                    wbuf: Vec::new(),
                    ungot: Vec::new(),
                    mode,
                    heap: false,
                },
            );
        } else {
            set_errno(cx, errno::EINVAL)?;
            return Ok(None);
        }
    }
    let r = f(cx, &mut io, fp)?;
    // The per-call flush of console streams.
    if let Some(s) = io.streams.get(&fp)
        && s.mode == Buffering::PerCall
        && !s.wbuf.is_empty()
    {
        flush_locked(cx, &mut io, fp)?;
    }
    Ok(Some(r))
}

fn set_flag(cx: &mut Ctx, fp: u32, bits: u32) -> ApiResult<()> {
    let v = cx.proc.mem.read_u32(fp + F_FLAG)?;
    cx.proc.mem.write_u32(fp + F_FLAG, v | bits)?;
    Ok(())
}

fn clear_flag(cx: &mut Ctx, fp: u32, bits: u32) -> ApiResult<()> {
    let v = cx.proc.mem.read_u32(fp + F_FLAG)?;
    cx.proc.mem.write_u32(fp + F_FLAG, v & !bits)?;
    Ok(())
}

fn flag(cx: &mut Ctx, fp: u32) -> ApiResult<u32> {
    Ok(cx.proc.mem.read_u32(fp + F_FLAG)?)
}

/// Writes out pending data. Returns false (error flag set) on failure.
fn flush_locked(cx: &mut Ctx, io: &mut Io, fp: u32) -> ApiResult<bool> {
    let Some(s) = io.streams.get_mut(&fp) else {
        return Ok(true);
    };
    if s.wbuf.is_empty() {
        return Ok(true);
    }
    let data = std::mem::take(&mut s.wbuf);
    let fd = s.fd;
    let ok = lowio::fd_write(cx, io, fd, &data)? >= 0;
    if !ok {
        set_flag(cx, fp, IOERR)?;
    }
    Ok(ok)
}

/// Drops read-ahead so the descriptor position matches the stream position.
fn sync_read(cx: &mut Ctx, io: &mut Io, fp: u32) -> ApiResult<()> {
    let Some(s) = io.streams.get_mut(&fp) else {
        return Ok(());
    };
    let unread = (s.rbuf.len() - s.rpos) as i64 + s.ungot.len() as i64;
    let fd = s.fd;
    s.rbuf.clear();
    s.rpos = 0;
    s.ungot.clear();
    if unread > 0 {
        lowio::fd_seek(cx, io, fd, -unread, 1)?;
    }
    Ok(())
}

/// Appends `data` to the stream. Returns false on error.
fn write_locked(cx: &mut Ctx, io: &mut Io, fp: u32, data: &[u8]) -> ApiResult<bool> {
    let Some(s) = io.streams.get(&fp) else {
        return Ok(false);
    };
    if !s.writable {
        set_flag(cx, fp, IOERR)?;
        set_errno(cx, errno::EBADF)?;
        return Ok(false);
    }
    if !s.rbuf.is_empty() || !s.ungot.is_empty() {
        sync_read(cx, io, fp)?;
    }
    let Some(s) = io.streams.get_mut(&fp) else {
        return Ok(false);
    };
    s.wbuf.extend_from_slice(data);
    let must_flush = match s.mode {
        Buffering::None => true,
        Buffering::Full(n) => s.wbuf.len() >= n,
        Buffering::PerCall => false,
    };
    if must_flush {
        return flush_locked(cx, io, fp);
    }
    Ok(true)
}

/// Writes to a stream (the printf family and fwrite/fputs use this).
pub fn write_stream(cx: &mut Ctx, fp: u32, data: &[u8]) -> ApiResult<bool> {
    Ok(with_stream(cx, fp, |cx, io, fp| write_locked(cx, io, fp, data))?.unwrap_or(false))
}

/// Next byte, or None at end of file / error (flags set).
fn getc_locked(cx: &mut Ctx, io: &mut Io, fp: u32) -> ApiResult<Option<u8>> {
    let Some(s) = io.streams.get_mut(&fp) else {
        return Ok(None);
    };
    if let Some(b) = s.ungot.pop() {
        return Ok(Some(b));
    }
    if s.rpos < s.rbuf.len() {
        s.rpos += 1;
        return Ok(Some(s.rbuf[s.rpos - 1]));
    }
    if !s.readable {
        set_flag(cx, fp, IOERR)?;
        return Ok(None);
    }
    if !s.wbuf.is_empty() && !flush_locked(cx, io, fp)? {
        return Ok(None);
    }
    // Reading stdin flushes stdout first, so prompts appear.
    if fp == io.iob {
        let out = io.iob + FILE_SIZE;
        if io.streams.contains_key(&out) {
            flush_locked(cx, io, out)?;
        }
    }
    let Some(s) = io.streams.get(&fp) else {
        return Ok(None);
    };
    let (fd, want) = (
        s.fd,
        match s.mode {
            Buffering::Full(n) => n.max(1),
            _ => BUFSIZ,
        },
    );
    match lowio::fd_read(cx, io, fd, want as u32)? {
        None => {
            set_flag(cx, fp, IOERR)?;
            Ok(None)
        }
        Some(v) if v.is_empty() => {
            set_flag(cx, fp, IOEOF)?;
            Ok(None)
        }
        Some(v) => {
            let s = io.streams.get_mut(&fp).expect("stream present");
            s.rbuf = v;
            s.rpos = 1;
            Ok(Some(s.rbuf[0]))
        }
    }
}

fn read_locked(cx: &mut Ctx, io: &mut Io, fp: u32, n: usize) -> ApiResult<Vec<u8>> {
    let mut out = Vec::with_capacity(n.min(1 << 20));
    while out.len() < n {
        if let Some(s) = io.streams.get_mut(&fp)
            && s.ungot.is_empty()
            && s.rpos < s.rbuf.len()
        {
            let take = (s.rbuf.len() - s.rpos).min(n - out.len());
            out.extend_from_slice(&s.rbuf[s.rpos..s.rpos + take]);
            s.rpos += take;
            continue;
        }
        match getc_locked(cx, io, fp)? {
            Some(b) => out.push(b),
            None => break,
        }
    }
    Ok(out)
}

/// Stream position as ftell reports it.
fn tell_locked(cx: &mut Ctx, io: &mut Io, fp: u32) -> ApiResult<i64> {
    let Some(s) = io.streams.get(&fp) else {
        return Ok(-1);
    };
    let (fd, pending_w, unread, unread_nl) = (
        s.fd,
        s.wbuf.len() as i64 + s.wbuf.iter().filter(|&&b| b == b'\n').count() as i64,
        (s.rbuf.len() - s.rpos + s.ungot.len()) as i64,
        s.rbuf[s.rpos..].iter().filter(|&&b| b == b'\n').count() as i64,
    );
    let text = lowio::fd_entry(cx, io, fd)?.is_some_and(|f| f.text);
    let pos = lowio::fd_seek(cx, io, fd, 0, 1)?;
    if pos < 0 {
        return Ok(-1);
    }
    // In text mode each '\n' in the buffers stands for a CR LF pair in the file.
    let (pending_w, unread) = if text {
        (pending_w, unread + unread_nl)
    } else {
        (
            io.streams.get(&fp).map_or(0, |s| s.wbuf.len() as i64),
            unread,
        )
    };
    Ok(pos + pending_w - unread)
}

fn seek_locked(cx: &mut Ctx, io: &mut Io, fp: u32, off: i64, whence: u32) -> ApiResult<i32> {
    if whence > 2 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    let mut off = off;
    if whence == 1 {
        let here = tell_locked(cx, io, fp)?;
        if here < 0 {
            return Ok(-1);
        }
        off += here;
    }
    if !flush_locked(cx, io, fp)? {
        return Ok(-1);
    }
    let Some(s) = io.streams.get_mut(&fp) else {
        return Ok(-1);
    };
    s.rbuf.clear();
    s.rpos = 0;
    s.ungot.clear();
    let fd = s.fd;
    let r = lowio::fd_seek(cx, io, fd, off, if whence == 1 { 0 } else { whence })?;
    if r < 0 {
        return Ok(-1);
    }
    clear_flag(cx, fp, IOEOF)?;
    Ok(0)
}

/// Flushes every stream (exit, `_flushall`, `fflush(NULL)`). Returns how many
/// streams were open.
pub fn flush_all(cx: &mut Ctx) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    let fps: Vec<u32> = io.streams.keys().copied().collect();
    for &fp in &fps {
        flush_locked(cx, &mut io, fp)?;
    }
    Ok(fps.len() as i32)
}

/// Parses an fopen mode into `_open` flags and stream directions.
fn parse_mode(mode: &[u8], text_default: bool) -> Option<(u32, bool, bool)> {
    let (mut oflag, mut r, mut w) = match mode.first()? {
        b'r' => (O_RDONLY, true, false),
        b'w' => (O_WRONLY | O_CREAT | O_TRUNC, false, true),
        b'a' => (O_WRONLY | O_CREAT | O_APPEND, false, true),
        _ => return None,
    };
    let mut textmode = None;
    for &c in &mode[1..] {
        match c {
            b'+' => {
                oflag = (oflag & !3) | O_RDWR;
                r = true;
                w = true;
            }
            b'b' => textmode = Some(false),
            b't' => textmode = Some(true),
            b'D' => oflag |= O_TEMPORARY,
            b'c' | b'n' | b'S' | b'R' | b'T' | b'N' | b' ' => {}
            _ => return None,
        }
    }
    oflag |= if textmode.unwrap_or(text_default) {
        O_TEXT
    } else {
        O_BINARY
    };
    Some((oflag, r, w))
}

/// A free FILE structure: an unused `_iob` entry, else heap memory.
fn new_file(cx: &mut Ctx, io: &Io) -> ApiResult<(u32, bool)> {
    for k in 3..IOB_ENTRIES {
        let fp = io.iob + k * FILE_SIZE;
        if !io.streams.contains_key(&fp) {
            return Ok((fp, false));
        }
    }
    let p = super::heap::malloc_raw(cx, FILE_SIZE)?;
    Ok((p, true))
}

fn open_stream(cx: &mut Ctx, fd: i32, readable: bool, writable: bool) -> ApiResult<u32> {
    let c = crt(cx.proc);
    let mut io = c.io();
    if io.iob == 0 {
        io.iob = iob_addr(cx.proc)?;
    }
    let (fp, heap) = new_file(cx, &io)?;
    if fp == 0 {
        lowio::fd_close(cx, &mut io, fd)?;
        set_errno(cx, errno::ENOMEM)?;
        return Ok(0);
    }
    let flag = match (readable, writable) {
        (true, true) => IORW,
        (true, false) => IOREAD,
        _ => IOWRT,
    };
    cx.proc.mem.write_bytes(fp, &[0; FILE_SIZE as usize])?;
    cx.proc.mem.write_u32(fp + F_FLAG, flag)?;
    cx.proc.mem.write_u32(fp + F_FILE, fd as u32)?;
    cx.proc.mem.write_u32(fp + F_BUFSIZ, BUFSIZ as u32)?;
    let device = lowio::fd_entry(cx, &mut io, fd)?.is_some_and(|f| f.device);
    io.streams.insert(
        fp,
        Stream {
            fd,
            readable,
            writable,
            rbuf: Vec::new(),
            rpos: 0,
            wbuf: Vec::new(),
            ungot: Vec::new(),
            mode: if device {
                Buffering::PerCall
            } else {
                Buffering::Full(BUFSIZ)
            },
            heap,
        },
    );
    Ok(fp)
}

fn fopen_path(cx: &mut Ctx, path: u32, mode: &[u8]) -> ApiResult<u32> {
    let text_default = lowio::fmode_text(cx)?;
    let Some((oflag, r, w)) = parse_mode(mode, text_default) else {
        set_errno(cx, errno::EINVAL)?;
        return Ok(0);
    };
    let fd = lowio::open_path(cx, path, oflag)?;
    if fd < 0 {
        return Ok(0);
    }
    open_stream(cx, fd, r, w)
}

fn fopen(cx: &mut Ctx, filename: CStrPtr, mode: CStrPtr) -> ApiResult<u32> {
    let m = gmem::read_cstr(&cx.proc.mem, mode.0, 16)?;
    fopen_path(cx, filename.0, &m)
}

fn _fsopen(cx: &mut Ctx, filename: CStrPtr, mode: CStrPtr, _shflag: u32) -> ApiResult<u32> {
    fopen(cx, filename, mode)
}

/// Wide path -> narrow guest copy (C-locale conversion) for the A file APIs.
fn narrow_path(cx: &mut Ctx, w: u32) -> ApiResult<Option<u32>> {
    let units = gmem::read_wstr(&cx.proc.mem, w, 1024)?;
    if units.iter().any(|&u| u > 0xff) {
        set_errno(cx, errno::EINVAL)?;
        return Ok(None);
    }
    let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
    let a = super::heap::malloc_raw(cx, bytes.len() as u32 + 1)?;
    gmem::write_cstr(&cx.proc.mem, a, &bytes)?;
    Ok(Some(a))
}

fn _wfopen(cx: &mut Ctx, filename: WStrPtr, mode: WStrPtr) -> ApiResult<u32> {
    let m: Vec<u8> = gmem::read_wstr(&cx.proc.mem, mode.0, 16)?
        .iter()
        .map(|&u| u as u8)
        .collect();
    let Some(p) = narrow_path(cx, filename.0)? else {
        return Ok(0);
    };
    let r = fopen_path(cx, p, &m)?;
    super::heap::free_raw(cx, p)?;
    Ok(r)
}

fn _fdopen(cx: &mut Ctx, fd: i32, mode: CStrPtr) -> ApiResult<u32> {
    let m = gmem::read_cstr(&cx.proc.mem, mode.0, 16)?;
    let Some((_, r, w)) = parse_mode(&m, true) else {
        set_errno(cx, errno::EINVAL)?;
        return Ok(0);
    };
    open_stream(cx, fd, r, w)
}

fn fclose(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        let ok = flush_locked(cx, io, fp)?;
        let Some(s) = io.streams.remove(&fp) else {
            return Ok((EOF, false));
        };
        let closed = lowio::fd_close(cx, io, s.fd)? == 0;
        cx.proc.mem.write_u32(fp + F_FLAG, 0)?;
        cx.proc.mem.write_u32(fp + F_FILE, u32::MAX)?;
        Ok((if ok && closed { 0 } else { EOF }, s.heap))
    })?;
    match r {
        Some((v, heap)) => {
            if heap {
                super::heap::free_raw(cx, stream.0)?;
            }
            Ok(v)
        }
        None => Ok(EOF),
    }
}

fn _fcloseall(cx: &mut Ctx) -> ApiResult<i32> {
    let c = crt(cx.proc);
    let (iob, fps): (u32, Vec<u32>) = {
        let io = c.io();
        (io.iob, io.streams.keys().copied().collect())
    };
    let mut n = 0;
    for fp in fps {
        if fp.wrapping_sub(iob) / FILE_SIZE >= 3 {
            fclose(cx, Ptr(fp))?;
            n += 1;
        }
    }
    Ok(n)
}

fn fflush(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    if stream.is_null() {
        flush_all(cx)?;
        return Ok(0);
    }
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        let ok = flush_locked(cx, io, fp)?;
        // msvcrt also empties the read buffer (without moving the file position),
        // which is why `fflush(stdin)` discards typed-ahead input on Windows.
        if let Some(s) = io.streams.get_mut(&fp) {
            s.rbuf.clear();
            s.rpos = 0;
            s.ungot.clear();
        }
        Ok(if ok { 0 } else { EOF })
    })?;
    Ok(r.unwrap_or(EOF))
}

fn _flushall(cx: &mut Ctx) -> ApiResult<i32> {
    flush_all(cx)
}

fn fwrite(cx: &mut Ctx, buffer: Ptr, size: u32, count: u32, stream: Ptr) -> ApiResult<u32> {
    let total = size as u64 * count as u64;
    if total == 0 {
        return Ok(0);
    }
    let data = gmem::read_vec(&cx.proc.mem, buffer.0, total as usize)?;
    let ok = write_stream(cx, stream.0, &data)?;
    Ok(if ok { count } else { 0 })
}

fn fread(cx: &mut Ctx, buffer: Ptr, size: u32, count: u32, stream: Ptr) -> ApiResult<u32> {
    let total = size as u64 * count as u64;
    if total == 0 {
        return Ok(0);
    }
    let got = with_stream(cx, stream.0, |cx, io, fp| {
        read_locked(cx, io, fp, total as usize)
    })?
    .unwrap_or_default();
    cx.proc.mem.write_bytes(buffer.0, &got)?;
    Ok(got.len() as u32 / size)
}

fn fgetc(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    let r = with_stream(cx, stream.0, getc_locked)?;
    Ok(r.flatten().map_or(EOF, i32::from))
}

fn getchar(cx: &mut Ctx) -> ApiResult<i32> {
    let fp = iob_addr(cx.proc)?;
    fgetc(cx, Ptr(fp))
}

fn fputc(cx: &mut Ctx, c: i32, stream: Ptr) -> ApiResult<i32> {
    let ok = write_stream(cx, stream.0, &[c as u8])?;
    Ok(if ok { c & 0xff } else { EOF })
}

fn putchar(cx: &mut Ctx, c: i32) -> ApiResult<i32> {
    let fp = iob_addr(cx.proc)? + FILE_SIZE;
    fputc(cx, c, Ptr(fp))
}

fn ungetc(cx: &mut Ctx, c: i32, stream: Ptr) -> ApiResult<i32> {
    if c == EOF {
        return Ok(EOF);
    }
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        if let Some(s) = io.streams.get_mut(&fp) {
            s.ungot.push(c as u8);
        }
        clear_flag(cx, fp, IOEOF)?;
        Ok(c & 0xff)
    })?;
    Ok(r.unwrap_or(EOF))
}

fn fputs(cx: &mut Ctx, s: CStrPtr, stream: Ptr) -> ApiResult<i32> {
    let data = gmem::read_cstr(&cx.proc.mem, s.0, usize::MAX)?;
    Ok(if write_stream(cx, stream.0, &data)? {
        0
    } else {
        EOF
    })
}

fn puts(cx: &mut Ctx, s: CStrPtr) -> ApiResult<i32> {
    let mut data = gmem::read_cstr(&cx.proc.mem, s.0, usize::MAX)?;
    data.push(b'\n');
    let fp = iob_addr(cx.proc)? + FILE_SIZE;
    Ok(if write_stream(cx, fp, &data)? { 0 } else { EOF })
}

fn fgets(cx: &mut Ctx, buf: Ptr, n: i32, stream: Ptr) -> ApiResult<u32> {
    if n <= 0 {
        return Ok(0);
    }
    let line = with_stream(cx, stream.0, |cx, io, fp| {
        let mut v = Vec::new();
        while v.len() + 1 < n as usize {
            match getc_locked(cx, io, fp)? {
                Some(b) => {
                    v.push(b);
                    if b == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        Ok(v)
    })?
    .unwrap_or_default();
    if line.is_empty() && n > 1 {
        return Ok(0);
    }
    gmem::write_cstr(&cx.proc.mem, buf.0, &line)?;
    Ok(buf.0)
}

fn gets(cx: &mut Ctx, buf: Ptr) -> ApiResult<u32> {
    let fp = iob_addr(cx.proc)?;
    let line = with_stream(cx, fp, |cx, io, fp| {
        let mut v = Vec::new();
        let mut any = false;
        while let Some(b) = getc_locked(cx, io, fp)? {
            any = true;
            if b == b'\n' {
                break;
            }
            v.push(b);
        }
        Ok(any.then_some(v))
    })?
    .flatten();
    match line {
        Some(l) => {
            gmem::write_cstr(&cx.proc.mem, buf.0, &l)?;
            Ok(buf.0)
        }
        None => Ok(0),
    }
}

fn fseek(cx: &mut Ctx, stream: Ptr, offset: i32, origin: u32) -> ApiResult<i32> {
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        seek_locked(cx, io, fp, offset as i64, origin)
    })?;
    Ok(r.unwrap_or(-1))
}

fn _fseeki64(cx: &mut Ctx, stream: Ptr, offset: u64, origin: u32) -> ApiResult<i32> {
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        seek_locked(cx, io, fp, offset as i64, origin)
    })?;
    Ok(r.unwrap_or(-1))
}

fn ftell(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    let r = with_stream(cx, stream.0, tell_locked)?;
    Ok(r.map_or(-1, |v| if v > i32::MAX as i64 { -1 } else { v as i32 }))
}

fn _ftelli64(cx: &mut Ctx, stream: Ptr) -> ApiResult<u64> {
    let r = with_stream(cx, stream.0, tell_locked)?;
    Ok(r.unwrap_or(-1) as u64)
}

fn fgetpos(cx: &mut Ctx, stream: Ptr, pos: Ptr) -> ApiResult<i32> {
    let v = _ftelli64(cx, stream)? as i64;
    if v < 0 {
        return Ok(-1);
    }
    cx.proc.mem.write_u64(pos.0, v as u64)?;
    Ok(0)
}

fn fsetpos(cx: &mut Ctx, stream: Ptr, pos: Ptr) -> ApiResult<i32> {
    let v = cx.proc.mem.read_u64(pos.0)?;
    _fseeki64(cx, stream, v, 0)
}

fn rewind(cx: &mut Ctx, stream: Ptr) -> ApiResult<()> {
    with_stream(cx, stream.0, |cx, io, fp| {
        seek_locked(cx, io, fp, 0, 0)?;
        clear_flag(cx, fp, IOERR | IOEOF)
    })?;
    Ok(())
}

fn feof(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    Ok((flag(cx, stream.0)? & IOEOF) as i32)
}

fn ferror(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    Ok((flag(cx, stream.0)? & IOERR) as i32)
}

fn clearerr(cx: &mut Ctx, stream: Ptr) -> ApiResult<()> {
    clear_flag(cx, stream.0, IOERR | IOEOF)
}

fn _fileno(cx: &mut Ctx, stream: Ptr) -> ApiResult<i32> {
    Ok(cx.proc.mem.read_u32(stream.0 + F_FILE)? as i32)
}

fn setvbuf(cx: &mut Ctx, stream: Ptr, _buffer: Ptr, mode: u32, size: u32) -> ApiResult<i32> {
    let new = match mode {
        // _IOFBF, and _IOLBF which msvcrt treats as full buffering.
        0 | 0x40 => {
            if !(2..=i32::MAX as u32).contains(&size) {
                return Ok(-1);
            }
            Buffering::Full(size as usize & !1)
        }
        4 => Buffering::None,
        _ => return Ok(-1),
    };
    let r = with_stream(cx, stream.0, |cx, io, fp| {
        flush_locked(cx, io, fp)?;
        if let Some(s) = io.streams.get_mut(&fp) {
            s.mode = new;
        }
        if new == Buffering::None {
            set_flag(cx, fp, IONBF)?;
        } else {
            clear_flag(cx, fp, IONBF)?;
        }
        Ok(0)
    })?;
    Ok(r.unwrap_or(-1))
}

fn setbuf(cx: &mut Ctx, stream: Ptr, buffer: Ptr) -> ApiResult<()> {
    if buffer.is_null() {
        setvbuf(cx, stream, buffer, 4, 0)?;
    } else {
        setvbuf(cx, stream, buffer, 0, BUFSIZ as u32)?;
    }
    Ok(())
}

fn tmpfile(cx: &mut Ctx) -> ApiResult<u32> {
    let n = {
        let c = crt(cx.proc);
        let mut io = c.io();
        io.tmp_counter += 1;
        io.tmp_counter
    };
    let name = format!("\\t{n:x}.tmp");
    let a = arena_alloc(cx.proc, name.len() as u32 + 1)?;
    gmem::write_cstr(&cx.proc.mem, a, name.as_bytes())?;
    let fd = lowio::open_path(cx, a, O_RDWR | O_CREAT | O_TRUNC | O_BINARY | O_TEMPORARY)?;
    if fd < 0 {
        return Ok(0);
    }
    open_stream(cx, fd, true, true)
}

fn tmpnam(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    let n = {
        let c = crt(cx.proc);
        let mut io = c.io();
        io.tmp_counter += 1;
        io.tmp_counter
    };
    let name = format!("\\s{n:x}.");
    let dst = if s.is_null() {
        let t = super::state::thread_data(cx)?;
        t.block + super::state::ASCTIME + 32
    } else {
        s.0
    };
    gmem::write_cstr(&cx.proc.mem, dst, name.as_bytes())?;
    Ok(dst)
}

// ---- formatted I/O ---------------------------------------------------------------

fn out_count(ok: bool, n: usize) -> i32 {
    if ok { n as i32 } else { -1 }
}

fn vfprintf_impl(cx: &mut Ctx, fp: u32, fmt: u32, va: u32) -> ApiResult<i32> {
    let f = printf::read_fmt(&cx.proc.mem, fmt)?;
    let mem = cx.proc.mem.clone();
    let out = printf::format(&f, false, &mut printf::GuestArgs { mem: &mem, ptr: va })?;
    let bytes = printf::narrow(&out);
    let ok = write_stream(cx, fp, &bytes)?;
    Ok(out_count(ok, bytes.len()))
}

fn vfwprintf_impl(cx: &mut Ctx, fp: u32, fmt: u32, va: u32) -> ApiResult<i32> {
    let f = printf::read_wfmt(&cx.proc.mem, fmt)?;
    let mem = cx.proc.mem.clone();
    let out = printf::format(&f, true, &mut printf::GuestArgs { mem: &mem, ptr: va })?;
    // Wide output to a narrow stream goes through wctomb (C locale).
    let bytes: Vec<u8> = out
        .iter()
        .map(|&u| if u > 0xff { b'?' } else { u as u8 })
        .collect();
    let ok = write_stream(cx, fp, &bytes)?;
    Ok(out_count(ok, out.len()))
}

fn stdout_fp(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(iob_addr(cx.proc)? + FILE_SIZE)
}

fn printf(cx: &mut Ctx, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    let fp = stdout_fp(cx)?;
    vfprintf_impl(cx, fp, format.0, args.0)
}

fn vprintf(cx: &mut Ctx, format: CStrPtr, argptr: u32) -> ApiResult<i32> {
    let fp = stdout_fp(cx)?;
    vfprintf_impl(cx, fp, format.0, argptr)
}

fn fprintf(cx: &mut Ctx, stream: Ptr, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    vfprintf_impl(cx, stream.0, format.0, args.0)
}

fn vfprintf(cx: &mut Ctx, stream: Ptr, format: CStrPtr, argptr: u32) -> ApiResult<i32> {
    vfprintf_impl(cx, stream.0, format.0, argptr)
}

fn wprintf(cx: &mut Ctx, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    let fp = stdout_fp(cx)?;
    vfwprintf_impl(cx, fp, format.0, args.0)
}

fn vwprintf(cx: &mut Ctx, format: WStrPtr, argptr: u32) -> ApiResult<i32> {
    let fp = stdout_fp(cx)?;
    vfwprintf_impl(cx, fp, format.0, argptr)
}

fn fwprintf(cx: &mut Ctx, stream: Ptr, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    vfwprintf_impl(cx, stream.0, format.0, args.0)
}

fn vfwprintf(cx: &mut Ctx, stream: Ptr, format: WStrPtr, argptr: u32) -> ApiResult<i32> {
    vfwprintf_impl(cx, stream.0, format.0, argptr)
}

/// Reads characters from a stream for fscanf, with one character of push-back.
struct StreamInput<'a, 'b> {
    cx: &'a mut Ctx<'b>,
    fp: u32,
}

impl scanf::Input for StreamInput<'_, '_> {
    fn get(&mut self) -> ApiResult<Option<u16>> {
        let fp = self.fp;
        let r = with_stream(self.cx, fp, getc_locked)?;
        Ok(r.flatten().map(u16::from))
    }
    fn unget(&mut self, ch: u16) {
        let c = crt(self.cx.proc);
        let mut io = c.io();
        if let Some(s) = io.streams.get_mut(&self.fp) {
            s.ungot.push(ch as u8);
        }
    }
}

/// Pointer arguments and the guest memory they point into.
pub struct ScanArgs<'a> {
    pub args: printf::GuestArgs<'a>,
}

impl printf::Source for ScanArgs<'_> {
    fn u32(&mut self) -> ApiResult<u32> {
        self.args.u32()
    }
    fn u64(&mut self) -> ApiResult<u64> {
        self.args.u64()
    }
    fn cstr(&mut self, addr: u32, max: usize) -> ApiResult<Vec<u8>> {
        self.args.cstr(addr, max)
    }
    fn wstr(&mut self, addr: u32, max: usize) -> ApiResult<Vec<u16>> {
        self.args.wstr(addr, max)
    }
    fn bytes(&mut self, addr: u32, len: usize) -> ApiResult<Vec<u8>> {
        self.args.bytes(addr, len)
    }
    fn store(&mut self, addr: u32, v: u64, size: u32) -> ApiResult<()> {
        self.args.store(addr, v, size)
    }
}

impl scanf::Dest for ScanArgs<'_> {
    fn write(&mut self, addr: u32, bytes: &[u8]) -> ApiResult<()> {
        self.args.mem.write_bytes(addr, bytes)?;
        Ok(())
    }
}

fn fscanf_impl(cx: &mut Ctx, fp: u32, fmt: u32, va: u32, wide: bool) -> ApiResult<i32> {
    let f = if wide {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    let mem = cx.proc.mem.clone();
    let mut dst = ScanArgs {
        args: printf::GuestArgs { mem: &mem, ptr: va },
    };
    let mut inp = StreamInput { cx, fp };
    scanf::scan(&f, wide, &mut inp, &mut dst)
}

fn fscanf(cx: &mut Ctx, stream: Ptr, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    fscanf_impl(cx, stream.0, format.0, args.0, false)
}

fn scanf(cx: &mut Ctx, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    let fp = iob_addr(cx.proc)?;
    fscanf_impl(cx, fp, format.0, args.0, false)
}

fn fwscanf(cx: &mut Ctx, stream: Ptr, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    fscanf_impl(cx, stream.0, format.0, args.0, true)
}

fn wscanf(cx: &mut Ctx, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    let fp = iob_addr(cx.proc)?;
    fscanf_impl(cx, fp, format.0, args.0, true)
}

// ---- wide characters on (byte) streams: C-locale wctomb/mbtowc ---------------------

const WEOF: u32 = 0xffff;

fn fputwc(cx: &mut Ctx, c: u16, stream: Ptr) -> ApiResult<u32> {
    if c > 0xff {
        set_errno(cx, 42)?; // EILSEQ
        return Ok(WEOF);
    }
    let ok = write_stream(cx, stream.0, &[c as u8])?;
    Ok(if ok { c as u32 } else { WEOF })
}

fn putwchar(cx: &mut Ctx, c: u16) -> ApiResult<u32> {
    let fp = stdout_fp(cx)?;
    fputwc(cx, c, Ptr(fp))
}

fn fputws(cx: &mut Ctx, s: WStrPtr, stream: Ptr) -> ApiResult<i32> {
    let w = gmem::read_wstr(&cx.proc.mem, s.0, usize::MAX)?;
    if w.iter().any(|&u| u > 0xff) {
        set_errno(cx, 42)?;
        return Ok(EOF);
    }
    let b: Vec<u8> = w.iter().map(|&u| u as u8).collect();
    Ok(if write_stream(cx, stream.0, &b)? {
        0
    } else {
        EOF
    })
}

fn _putws(cx: &mut Ctx, s: WStrPtr) -> ApiResult<i32> {
    let fp = stdout_fp(cx)?;
    if fputws(cx, s, Ptr(fp))? != 0 {
        return Ok(EOF);
    }
    Ok(if write_stream(cx, fp, b"\n")? { 0 } else { EOF })
}

fn fgetwc(cx: &mut Ctx, stream: Ptr) -> ApiResult<u32> {
    let c = fgetc(cx, stream)?;
    Ok(if c == EOF { WEOF } else { c as u32 })
}

fn getwchar(cx: &mut Ctx) -> ApiResult<u32> {
    let fp = iob_addr(cx.proc)?;
    fgetwc(cx, Ptr(fp))
}

fn ungetwc(cx: &mut Ctx, c: u32, stream: Ptr) -> ApiResult<u32> {
    if c == WEOF || c > 0xff {
        return Ok(WEOF);
    }
    let r = ungetc(cx, c as i32, stream)?;
    Ok(if r == EOF { WEOF } else { r as u32 })
}

fn fgetws(cx: &mut Ctx, buf: Ptr, n: i32, stream: Ptr) -> ApiResult<u32> {
    if n <= 0 {
        return Ok(0);
    }
    let line = with_stream(cx, stream.0, |cx, io, fp| {
        let mut v = Vec::new();
        while v.len() + 1 < n as usize {
            match getc_locked(cx, io, fp)? {
                Some(b) => {
                    v.push(u16::from(b));
                    if b == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        Ok(v)
    })?
    .unwrap_or_default();
    if line.is_empty() && n > 1 {
        return Ok(0);
    }
    gmem::write_wstr(&cx.proc.mem, buf.0, &line)?;
    Ok(buf.0)
}

fn __iob_func(cx: &mut Ctx) -> ApiResult<u32> {
    iob_addr(cx.proc)
}

fn _getmaxstdio(_cx: &mut Ctx) -> i32 {
    512
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        data("_iob", FILE_SIZE * IOB_ENTRIES, init_iob),
        cdecl("__iob_func", __iob_func),
        cdecl("__p__iob", __iob_func),
        cdecl("fopen", fopen),
        cdecl("_fsopen", _fsopen),
        cdecl("_wfopen", _wfopen),
        cdecl("_fdopen", _fdopen),
        cdecl("fclose", fclose),
        cdecl("_fcloseall", _fcloseall),
        cdecl("fflush", fflush),
        cdecl("_flushall", _flushall),
        cdecl("fwrite", fwrite),
        cdecl("fread", fread),
        cdecl("fgetc", fgetc),
        cdecl("getc", fgetc),
        cdecl("getchar", getchar),
        cdecl("_fgetchar", getchar),
        cdecl("fputc", fputc),
        cdecl("putc", fputc),
        cdecl("putchar", putchar),
        cdecl("_fputchar", putchar),
        cdecl("ungetc", ungetc),
        cdecl("fputs", fputs),
        cdecl("puts", puts),
        cdecl("fgets", fgets),
        cdecl("gets", gets),
        cdecl("fseek", fseek),
        cdecl("_fseeki64", _fseeki64),
        cdecl("ftell", ftell),
        cdecl("_ftelli64", _ftelli64),
        cdecl("fgetpos", fgetpos),
        cdecl("fsetpos", fsetpos),
        cdecl("rewind", rewind),
        cdecl("feof", feof),
        cdecl("ferror", ferror),
        cdecl("clearerr", clearerr),
        cdecl("_fileno", _fileno),
        cdecl("setvbuf", setvbuf),
        cdecl("setbuf", setbuf),
        cdecl("tmpfile", tmpfile),
        cdecl("tmpnam", tmpnam),
        cdecl("printf", printf),
        cdecl("vprintf", vprintf),
        cdecl("fprintf", fprintf),
        cdecl("vfprintf", vfprintf),
        cdecl("wprintf", wprintf),
        cdecl("vwprintf", vwprintf),
        cdecl("fwprintf", fwprintf),
        cdecl("vfwprintf", vfwprintf),
        cdecl("fscanf", fscanf),
        cdecl("scanf", scanf),
        cdecl("fwscanf", fwscanf),
        cdecl("wscanf", wscanf),
        cdecl("_getmaxstdio", _getmaxstdio),
        cdecl("fputwc", fputwc),
        cdecl("putwc", fputwc),
        cdecl("putwchar", putwchar),
        cdecl("_fputwchar", putwchar),
        cdecl("fputws", fputws),
        cdecl("_putws", _putws),
        cdecl("fgetwc", fgetwc),
        cdecl("getwc", fgetwc),
        cdecl("getwchar", getwchar),
        cdecl("_fgetwchar", getwchar),
        cdecl("ungetwc", ungetwc),
        cdecl("fgetws", fgetws),
    ]
}
