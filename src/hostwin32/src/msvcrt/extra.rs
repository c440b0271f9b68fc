//! Smaller runtime functions Wine's programs use: `_wcsrev`, the 64-bit wide
//! integer conversions, `_splitpath`/`_wsplitpath` and `perror`/`_wperror`.

#![allow(non_snake_case)]

use super::conv::to_radix;
use super::gmem::{read_cstr, read_wstr, write_cstr, write_wstr};
use super::state::{errno, k32, set_errno, thread_data};
use super::string::error_text;
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, cdecl};

fn _wcsrev(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    let mut v = read_wstr(&cx.proc.mem, s.0, usize::MAX)?;
    v.reverse();
    if !v.is_empty() {
        super::gmem::write_units(&cx.proc.mem, s.0, &v)?;
    }
    Ok(s.0)
}

fn wide_number(cx: &mut Ctx, text: Vec<u8>, buf: Ptr, radix: u32) -> ApiResult<u32> {
    if !(2..=36).contains(&radix) {
        set_errno(cx, errno::EINVAL)?;
        return Ok(buf.0);
    }
    let u: Vec<u16> = text.into_iter().map(u16::from).collect();
    write_wstr(&cx.proc.mem, buf.0, &u)?;
    Ok(buf.0)
}

fn _ui64tow(cx: &mut Ctx, value: u64, buf: Ptr, radix: u32) -> ApiResult<u32> {
    wide_number(cx, to_radix(value, radix.clamp(2, 36), false), buf, radix)
}

/// Negative values get a sign only in base 10, as `_i64toa` does.
fn _i64tow(cx: &mut Ctx, value: u64, buf: Ptr, radix: u32) -> ApiResult<u32> {
    let v = value as i64;
    let text = if radix == 10 && v < 0 {
        to_radix(v.unsigned_abs(), 10, true)
    } else {
        to_radix(value, radix.clamp(2, 36), false)
    };
    wide_number(cx, text, buf, radix)
}

/// `_splitpath`'s parts of `path`: drive (`X:`), folder (through the last
/// separator), file name, extension (from the last `.` of the name).
pub fn split_path<T: Copy + PartialEq + From<u8>>(path: &[T]) -> [&[T]; 4] {
    let is = |c: T, b: u8| c == T::from(b);
    let (drive, rest) = if path.len() >= 2 && is(path[1], b':') {
        path.split_at(2)
    } else {
        path.split_at(0)
    };
    let cut = rest
        .iter()
        .rposition(|&c| is(c, b'\\') || is(c, b'/'))
        .map_or(0, |k| k + 1);
    let (dir, name) = rest.split_at(cut);
    let dot = name
        .iter()
        .rposition(|&c| is(c, b'.'))
        .unwrap_or(name.len());
    let (fname, ext) = name.split_at(dot);
    [drive, dir, fname, ext]
}

fn _wsplitpath(
    cx: &mut Ctx,
    path: WStrPtr,
    drive: Ptr,
    dir: Ptr,
    fname: Ptr,
    ext: Ptr,
) -> ApiResult<()> {
    let p = read_wstr(&cx.proc.mem, path.0, usize::MAX)?;
    for (part, out) in split_path(&p).iter().zip([drive, dir, fname, ext]) {
        if !out.is_null() {
            write_wstr(&cx.proc.mem, out.0, part)?;
        }
    }
    Ok(())
}

fn _splitpath(
    cx: &mut Ctx,
    path: CStrPtr,
    drive: Ptr,
    dir: Ptr,
    fname: Ptr,
    ext: Ptr,
) -> ApiResult<()> {
    let p = read_cstr(&cx.proc.mem, path.0, usize::MAX)?;
    for (part, out) in split_path(&p).iter().zip([drive, dir, fname, ext]) {
        if !out.is_null() {
            write_cstr(&cx.proc.mem, out.0, part)?;
        }
    }
    Ok(())
}

/// `perror`: "message: error text" for the current errno, straight to the
/// standard error handle (after the streams are flushed).
fn report(cx: &mut Ctx, prefix: String) -> ApiResult<()> {
    let e = cx.proc.mem.read_u32(thread_data(cx)?.block)?;
    let mut text = String::new();
    if !prefix.is_empty() {
        text.push_str(&prefix);
        text.push_str(": ");
    }
    text.push_str(error_text(e));
    text.push('\n');
    super::stdio::flush_all(cx)?;
    let h = k32(cx, "GetStdHandle", &[(-12i32) as u32])?;
    if h != 0 && h != u32::MAX {
        super::lowio::write_handle(cx, h, text.as_bytes())?;
    }
    Ok(())
}

fn perror(cx: &mut Ctx, message: CStrPtr) -> ApiResult<()> {
    let m = if message.0 == 0 {
        Vec::new()
    } else {
        read_cstr(&cx.proc.mem, message.0, 4096)?
    };
    report(cx, String::from_utf8_lossy(&m).into_owned())
}

fn _wperror(cx: &mut Ctx, message: WStrPtr) -> ApiResult<()> {
    let m = if message.0 == 0 {
        Vec::new()
    } else {
        read_wstr(&cx.proc.mem, message.0, 4096)?
    };
    report(cx, String::from_utf16_lossy(&m))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_wcsrev", _wcsrev),
        cdecl("_ui64tow", _ui64tow),
        cdecl("_i64tow", _i64tow),
        cdecl("_wsplitpath", _wsplitpath),
        cdecl("_splitpath", _splitpath),
        cdecl("perror", perror),
        cdecl("_wperror", _wperror),
    ]
}

#[cfg(test)]
mod tests {
    use super::split_path;

    #[test]
    fn splitpath_parts() {
        let p = br"c:\dir\sub\name.tar.gz";
        let [d, dir, f, e] = split_path(&p[..]);
        assert_eq!(
            (d, dir, f, e),
            (
                &b"c:"[..],
                &br"\dir\sub\"[..],
                &b"name.tar"[..],
                &b".gz"[..]
            )
        );
        let [d, dir, f, e] = split_path(&b"file"[..]);
        assert_eq!((d, dir, f, e), (&b""[..], &b""[..], &b"file"[..], &b""[..]));
        let [_, dir, f, e] = split_path(&b"a/b/.hidden"[..]);
        assert_eq!((dir, f, e), (&b"a/b/"[..], &b""[..], &b".hidden"[..]));
    }
}
