//! shlwapi.dll: the shell's light-weight string and path helpers. The string and
//! path logic is plain Rust over UTF-16 units (unit-tested below); the exports
//! read and write guest strings around it. File-system questions go through
//! KERNEL32 so they see the same sandbox as the program.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Ptr, VarArgs, WStrPtr, stdcall};
use crate::kernel32::string::{NORM_IGNORECASE, collate, lower_unit, read_wide, write_wide};
use crate::msvcrt::printf::{self, GuestArgs};
use std::cmp::Ordering;

pub const DLL: HleDll = HleDll {
    name: "shlwapi.dll",
    exports,
    attach: None,
};

const MAX_PATH: usize = 260;
const INVALID_FILE_ATTRIBUTES: u32 = u32::MAX;
const FILE_ATTRIBUTE_DIRECTORY: u32 = 0x10;

fn is_sep(u: u16) -> bool {
    u == u16::from(b'\\') || u == u16::from(b'/')
}

fn ord(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn w(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// Index in `path` where the file name starts (after the last `\`, `/` or `:`
/// that is followed by more than a separator).
pub fn find_file_name(path: &[u16]) -> usize {
    let mut start = 0;
    for (i, &c) in path.iter().enumerate() {
        let next = path.get(i + 1).copied().unwrap_or(0);
        if (is_sep(c) || c == u16::from(b':')) && next != 0 && !is_sep(next) {
            start = i + 1;
        }
    }
    start
}

/// The first occurrence of `needle` in `hay` (an empty needle finds nothing, as
/// shlwapi's StrStr functions say).
pub fn find(hay: &[u16], needle: &[u16], ignore_case: bool) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len())
        .find(|&i| eq_units(&hay[i..i + needle.len()], needle, ignore_case))
}

/// The last occurrence of `needle` that starts before `end`.
pub fn rfind(hay: &[u16], end: usize, needle: &[u16], ignore_case: bool) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let last = (hay.len() - needle.len()).min(end.checked_sub(1)?);
    (0..=last)
        .rev()
        .find(|&i| eq_units(&hay[i..i + needle.len()], needle, ignore_case))
}

fn eq_units(a: &[u16], b: &[u16], ignore_case: bool) -> bool {
    if ignore_case {
        a.iter()
            .zip(b)
            .all(|(&x, &y)| lower_unit(x) == lower_unit(y))
    } else {
        a == b
    }
}

/// StrCmpN(I)W: the first `n` characters compared as CompareString does.
pub fn cmp_n(a: &[u16], b: &[u16], n: usize, ignore_case: bool) -> i32 {
    let a = &a[..a.len().min(n)];
    let b = &b[..b.len().min(n)];
    ord(collate(a, b, if ignore_case { NORM_IGNORECASE } else { 0 }))
}

/// `1,234,567`: digits grouped by three with the user locale's separator.
fn group_thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// StrFormatByteSize: bytes below 1 KB, then three significant digits of the
/// largest unit, cut (not rounded) as Windows does (1340 -> "1.30 KB").
pub fn format_byte_size(bytes: i64) -> String {
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let units = ["KB", "MB", "GB", "TB", "PB", "EB"];
    let mut scale = 1024f64;
    for (k, unit) in units.iter().enumerate() {
        let v = bytes as f64 / scale;
        if v < 1000.0 || k == units.len() - 1 {
            let (decimals, mult) = if v < 10.0 {
                (2, 100.0)
            } else if v < 100.0 {
                (1, 10.0)
            } else {
                (0, 1.0)
            };
            let cut = (v * mult).floor() / mult;
            return format!("{cut:.decimals$} {unit}");
        }
        scale *= 1024.0;
    }
    unreachable!("the last unit always returns")
}

/// StrFormatKBSize: whole kilobytes rounded up, digits grouped ("2,344 KB").
pub fn format_kb_size(bytes: i64) -> String {
    let kb = (bytes.max(0) as u64).div_ceil(1024);
    format!("{} KB", group_thousands(kb))
}

/// PathCombine's result: `file` alone if it is absolute, else `dir\file`, with
/// `.` and `..` components resolved (never above the root). `None` if the
/// result does not fit MAX_PATH.
pub fn combine(dir: Option<&[u16]>, file: Option<&[u16]>) -> Option<Vec<u16>> {
    let dir = dir.unwrap_or(&[]);
    let file = file.unwrap_or(&[]);
    let has_drive = |p: &[u16]| p.len() >= 2 && p[1] == u16::from(b':');
    let joined: Vec<u16> = if file.is_empty() {
        dir.to_vec()
    } else if has_drive(file) {
        file.to_vec()
    } else if file.first().is_some_and(|&c| is_sep(c)) {
        // Rooted: on the drive of `dir`.
        let mut v = if has_drive(dir) {
            dir[..2].to_vec()
        } else {
            Vec::new()
        };
        v.extend_from_slice(file);
        v
    } else {
        let mut v = dir.to_vec();
        if !v.is_empty() && !v.last().is_some_and(|&c| is_sep(c)) {
            v.push(u16::from(b'\\'));
        }
        v.extend_from_slice(file);
        v
    };
    let out = canonicalize(&joined);
    (out.len() < MAX_PATH).then_some(out)
}

/// PathCanonicalize: `.` components dropped, `..` removes the one before it
/// (stopping at the root), a lone root keeps its backslash.
pub fn canonicalize(path: &[u16]) -> Vec<u16> {
    let bs = u16::from(b'\\');
    let (prefix, rest): (Vec<u16>, &[u16]) = if path.len() >= 2 && path[1] == u16::from(b':') {
        let mut p = path[..2].to_vec();
        let mut r = &path[2..];
        if r.first().is_some_and(|&c| is_sep(c)) {
            p.push(bs);
            r = &r[1..];
        }
        (p, r)
    } else if path.first().is_some_and(|&c| is_sep(c)) {
        (vec![bs], &path[1..])
    } else {
        (Vec::new(), path)
    };
    let trailing = rest.last().is_some_and(|&c| is_sep(c));
    let mut parts: Vec<&[u16]> = Vec::new();
    for comp in rest.split(|&c| is_sep(c)) {
        if comp.is_empty() || comp == [u16::from(b'.')] {
            continue;
        }
        if comp == [u16::from(b'.'), u16::from(b'.')] {
            parts.pop();
            continue;
        }
        parts.push(comp);
    }
    let mut out = prefix;
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            out.push(bs);
        }
        out.extend_from_slice(p);
    }
    if trailing && !parts.is_empty() {
        out.push(bs);
    }
    if out.is_empty() {
        out.push(bs);
    }
    out
}

// ---- exports -------------------------------------------------------------------------

fn opt_wide(cx: &Ctx, p: u32) -> ApiResult<Option<Vec<u16>>> {
    Ok(if p == 0 {
        None
    } else {
        Some(read_wide(cx.proc, p)?)
    })
}

fn write_z(cx: &Ctx, at: u32, s: &[u16]) -> ApiResult<()> {
    let mut v = s.to_vec();
    v.push(0);
    write_wide(cx.proc, at, &v)
}

/// Appends a backslash unless the path already ends in one; returns the address of
/// the terminating NUL, or NULL if the result would not fit MAX_PATH.
fn PathAddBackslashW(cx: &mut Ctx, lpszPath: Ptr) -> ApiResult<u32> {
    if lpszPath.is_null() {
        return Ok(0);
    }
    let mut p = read_wide(cx.proc, lpszPath.0)?;
    if p.last().is_some_and(|&c| c == u16::from(b'\\')) {
        return Ok(lpszPath.0 + 2 * p.len() as u32);
    }
    if p.len() + 1 >= MAX_PATH {
        return Ok(0);
    }
    if !p.is_empty() {
        p.push(u16::from(b'\\'));
        write_z(cx, lpszPath.0, &p)?;
    }
    Ok(lpszPath.0 + 2 * p.len() as u32)
}

fn PathCombineW(cx: &mut Ctx, pszDest: Ptr, pszDir: WStrPtr, pszFile: WStrPtr) -> ApiResult<u32> {
    if pszDest.is_null() {
        return Ok(0);
    }
    if pszDir.0 == 0 && pszFile.0 == 0 {
        cx.proc.mem.write_u16(pszDest.0, 0)?;
        return Ok(0);
    }
    let dir = opt_wide(cx, pszDir.0)?;
    let file = opt_wide(cx, pszFile.0)?;
    match combine(dir.as_deref(), file.as_deref()) {
        Some(v) => {
            write_z(cx, pszDest.0, &v)?;
            Ok(pszDest.0)
        }
        None => {
            cx.proc.mem.write_u16(pszDest.0, 0)?;
            Ok(0)
        }
    }
}

fn attributes(cx: &mut Ctx, path: u32) -> ApiResult<u32> {
    crate::kernel32::file::GetFileAttributes::<WStrPtr>(cx, Ptr(path))
}

fn PathFileExistsW(cx: &mut Ctx, lpszPath: Ptr) -> ApiResult<bool> {
    if lpszPath.is_null() {
        return Ok(false);
    }
    Ok(attributes(cx, lpszPath.0)? != INVALID_FILE_ATTRIBUTES)
}

fn PathIsDirectoryW(cx: &mut Ctx, lpszPath: Ptr) -> ApiResult<u32> {
    if lpszPath.is_null() {
        return Ok(0);
    }
    let a = attributes(cx, lpszPath.0)?;
    Ok(if a == INVALID_FILE_ATTRIBUTES {
        0
    } else {
        a & FILE_ATTRIBUTE_DIRECTORY
    })
}

fn PathFindFileNameW(cx: &mut Ctx, pPath: Ptr) -> ApiResult<u32> {
    if pPath.is_null() {
        return Ok(0);
    }
    let p = read_wide(cx.proc, pPath.0)?;
    Ok(pPath.0 + 2 * find_file_name(&p) as u32)
}

fn str_cmp_n(cx: &mut Ctx, a: u32, b: u32, n: i32, ignore_case: bool) -> ApiResult<i32> {
    let a = opt_wide(cx, a)?.unwrap_or_default();
    let b = opt_wide(cx, b)?.unwrap_or_default();
    Ok(cmp_n(&a, &b, n.max(0) as usize, ignore_case))
}

fn StrCmpNW(cx: &mut Ctx, psz1: WStrPtr, psz2: WStrPtr, nChar: i32) -> ApiResult<i32> {
    str_cmp_n(cx, psz1.0, psz2.0, nChar, false)
}

fn StrCmpNIW(cx: &mut Ctx, psz1: WStrPtr, psz2: WStrPtr, nChar: i32) -> ApiResult<i32> {
    str_cmp_n(cx, psz1.0, psz2.0, nChar, true)
}

fn str_str(cx: &mut Ctx, hay: u32, needle: u32, ignore_case: bool) -> ApiResult<u32> {
    if hay == 0 || needle == 0 {
        return Ok(0);
    }
    let h = read_wide(cx.proc, hay)?;
    let n = read_wide(cx.proc, needle)?;
    Ok(find(&h, &n, ignore_case).map_or(0, |i| hay + 2 * i as u32))
}

fn StrStrW(cx: &mut Ctx, pszFirst: WStrPtr, pszSrch: WStrPtr) -> ApiResult<u32> {
    str_str(cx, pszFirst.0, pszSrch.0, false)
}

fn StrStrIW(cx: &mut Ctx, pszFirst: WStrPtr, pszSrch: WStrPtr) -> ApiResult<u32> {
    str_str(cx, pszFirst.0, pszSrch.0, true)
}

/// The last case-insensitive match starting before `pszLast` (the end of the
/// string when NULL).
fn StrRStrIW(cx: &mut Ctx, pszSource: WStrPtr, pszLast: Ptr, pszSrch: WStrPtr) -> ApiResult<u32> {
    if pszSource.0 == 0 || pszSrch.0 == 0 {
        return Ok(0);
    }
    let h = read_wide(cx.proc, pszSource.0)?;
    let n = read_wide(cx.proc, pszSrch.0)?;
    let end = if pszLast.is_null() || pszLast.0 < pszSource.0 {
        h.len()
    } else {
        (((pszLast.0 - pszSource.0) / 2) as usize).min(h.len())
    };
    Ok(rfind(&h, end, &n, true).map_or(0, |i| pszSource.0 + 2 * i as u32))
}

fn copy_limited(cx: &mut Ctx, buf: u32, cch: u32, s: &str) -> ApiResult<u32> {
    if buf == 0 || cch == 0 {
        return Ok(0);
    }
    let units = w(s);
    let n = units.len().min(cch as usize - 1);
    write_z(cx, buf, &units[..n])?;
    Ok(buf)
}

fn StrFormatByteSizeW(cx: &mut Ctx, qdw: u64, pszBuf: Ptr, cchBuf: u32) -> ApiResult<u32> {
    copy_limited(cx, pszBuf.0, cchBuf, &format_byte_size(qdw as i64))
}

fn StrFormatByteSize64A(cx: &mut Ctx, qdw: u64, pszBuf: Ptr, cchBuf: u32) -> ApiResult<u32> {
    if pszBuf.is_null() || cchBuf == 0 {
        return Ok(0);
    }
    let s = format_byte_size(qdw as i64);
    let n = s.len().min(cchBuf as usize - 1);
    let mut b = s.as_bytes()[..n].to_vec();
    b.push(0);
    cx.proc.mem.write_bytes(pszBuf.0, &b)?;
    Ok(pszBuf.0)
}

fn StrFormatKBSizeW(cx: &mut Ctx, qdw: u64, pszBuf: Ptr, cchBuf: u32) -> ApiResult<u32> {
    copy_limited(cx, pszBuf.0, cchBuf, &format_kb_size(qdw as i64))
}

/// wvnsprintf: the printf engine's wide family; at most `cchLimitIn` units
/// including the terminator; -1 if the text had to be cut.
fn vnsprintf(cx: &mut Ctx, buf: u32, cch: i32, fmt: u32, va: u32, wide: bool) -> ApiResult<i32> {
    if buf == 0 || cch <= 0 {
        return Ok(-1);
    }
    let f = if wide {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    let mem = cx.proc.mem.clone();
    let out = printf::format(&f, wide, &mut GuestArgs { mem: &mem, ptr: va })?;
    let room = cch as usize - 1;
    let n = out.len().min(room);
    if wide {
        write_z(cx, buf, &out[..n])?;
    } else {
        let mut b = printf::narrow(&out[..n]);
        b.push(0);
        cx.proc.mem.write_bytes(buf, &b)?;
    }
    Ok(if out.len() > room { -1 } else { n as i32 })
}

fn wvnsprintfW(
    cx: &mut Ctx,
    pszDest: Ptr,
    cchDest: i32,
    pszFmt: WStrPtr,
    arglist: u32,
) -> ApiResult<i32> {
    vnsprintf(cx, pszDest.0, cchDest, pszFmt.0, arglist, true)
}

fn wnsprintfW(
    cx: &mut Ctx,
    pszDest: Ptr,
    cchDest: i32,
    pszFmt: WStrPtr,
    args: VarArgs,
) -> ApiResult<i32> {
    vnsprintf(cx, pszDest.0, cchDest, pszFmt.0, args.0, true)
}

fn wvnsprintfA(
    cx: &mut Ctx,
    pszDest: Ptr,
    cchDest: i32,
    pszFmt: Ptr,
    arglist: u32,
) -> ApiResult<i32> {
    vnsprintf(cx, pszDest.0, cchDest, pszFmt.0, arglist, false)
}

fn wnsprintfA(
    cx: &mut Ctx,
    pszDest: Ptr,
    cchDest: i32,
    pszFmt: Ptr,
    args: VarArgs,
) -> ApiResult<i32> {
    vnsprintf(cx, pszDest.0, cchDest, pszFmt.0, args.0, false)
}

/// StrRetToStrW: the text of a STRRET (uType, then the union: pOleStr,
/// uOffset into the item `pidl`, or cStr[260]) in a new task-allocator string. A
/// STRRET_WSTR's own string is freed, as the call takes it over.
fn StrRetToStrW(cx: &mut Ctx, pstr: Ptr, pidl: u32, ppsz: Ptr) -> ApiResult<u32> {
    use crate::hle::com::{E_FAIL, E_INVALIDARG, E_OUTOFMEMORY, S_OK};
    use crate::ole32::malloc;
    const STRRET_WSTR: u32 = 0;
    const STRRET_OFFSET: u32 = 1;
    const STRRET_CSTR: u32 = 2;
    if pstr.is_null() || ppsz.is_null() {
        return Ok(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppsz.0, 0)?;
    let kind = cx.proc.mem.read_u32(pstr.0)?;
    let text: Vec<u16> = match kind {
        STRRET_WSTR => {
            let p = cx.proc.mem.read_u32(pstr.0 + 4)?;
            if p == 0 {
                return Ok(E_FAIL);
            }
            let t = read_wide(cx.proc, p)?;
            malloc::free(cx, p)?;
            t
        }
        STRRET_OFFSET | STRRET_CSTR => {
            let at = if kind == STRRET_OFFSET {
                if pidl == 0 {
                    return Ok(E_INVALIDARG);
                }
                pidl.wrapping_add(cx.proc.mem.read_u32(pstr.0 + 4)?)
            } else {
                pstr.0 + 4
            };
            crate::kernel32::string::read_ansi(cx.proc, at)?
                .encode_utf16()
                .collect()
        }
        _ => return Ok(E_FAIL),
    };
    let buf = malloc::alloc(cx, 2 * (text.len() as u32 + 1))?;
    if buf == 0 {
        return Ok(E_OUTOFMEMORY);
    }
    let mut z = text;
    z.push(0);
    write_wide(cx.proc, buf, &z)?;
    cx.proc.mem.write_u32(ppsz.0, buf)?;
    Ok(S_OK)
}

fn exports() -> Vec<ApiDef> {
    use crate::hle::cdecl;
    vec![
        stdcall("StrRetToStrW", StrRetToStrW),
        stdcall("PathAddBackslashW", PathAddBackslashW),
        stdcall("PathCombineW", PathCombineW),
        stdcall("PathFileExistsW", PathFileExistsW),
        stdcall("PathIsDirectoryW", PathIsDirectoryW),
        stdcall("PathFindFileNameW", PathFindFileNameW),
        stdcall("StrCmpNW", StrCmpNW),
        stdcall("StrCmpNIW", StrCmpNIW),
        stdcall("StrStrW", StrStrW),
        stdcall("StrStrIW", StrStrIW),
        stdcall("StrRStrIW", StrRStrIW),
        stdcall("StrFormatByteSizeW", StrFormatByteSizeW),
        stdcall("StrFormatByteSize64A", StrFormatByteSize64A),
        stdcall("StrFormatKBSizeW", StrFormatKBSizeW),
        stdcall("wvnsprintfW", wvnsprintfW),
        stdcall("wvnsprintfA", wvnsprintfA),
        // The variadic forms are cdecl (the caller pops what it pushed).
        cdecl("wnsprintfW", wnsprintfW),
        cdecl("wnsprintfA", wnsprintfA),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[u16]) -> String {
        String::from_utf16_lossy(v)
    }

    // Examples from the StrFormatByteSize and StrFormatKBSize documentation.
    #[test]
    fn byte_and_kb_sizes_match_the_documented_examples() {
        assert_eq!(format_byte_size(532), "532 bytes");
        assert_eq!(format_byte_size(1340), "1.30 KB");
        assert_eq!(format_byte_size(23506), "22.9 KB");
        assert_eq!(format_byte_size(2_400_016), "2.28 MB");
        assert_eq!(format_byte_size(2_400_000_000), "2.23 GB");
        assert_eq!(format_kb_size(532), "1 KB");
        assert_eq!(format_kb_size(1340), "2 KB");
        assert_eq!(format_kb_size(23506), "23 KB");
        assert_eq!(format_kb_size(2_400_016), "2,344 KB");
        assert_eq!(format_kb_size(2_400_000_000), "2,343,750 KB");
    }

    #[test]
    fn file_name_is_after_the_last_separator() {
        assert_eq!(find_file_name(&w(r"c:\dir\file.txt")), 7);
        assert_eq!(find_file_name(&w("file.txt")), 0);
        assert_eq!(find_file_name(&w("c:file")), 2);
        // A trailing separator does not start an (empty) name.
        assert_eq!(find_file_name(&w(r"c:\dir\")), 3);
    }

    #[test]
    fn str_str_variants() {
        let hay = w("Hello World, hello world");
        assert_eq!(find(&hay, &w("world"), false), Some(19));
        assert_eq!(find(&hay, &w("WORLD"), true), Some(6));
        assert_eq!(find(&hay, &w("xyz"), true), None);
        assert_eq!(find(&hay, &w(""), false), None);
        assert_eq!(rfind(&hay, hay.len(), &w("HELLO"), true), Some(13));
        // Only matches that start before `end` count.
        assert_eq!(rfind(&hay, 13, &w("hello"), true), Some(0));
        assert_eq!(rfind(&hay, 0, &w("hello"), true), None);
    }

    #[test]
    fn compare_first_n_characters() {
        assert_eq!(cmp_n(&w("abcdef"), &w("abcxyz"), 3, false), 0);
        assert_eq!(cmp_n(&w("abcdef"), &w("abcxyz"), 4, false), -1);
        assert_eq!(cmp_n(&w("ABC"), &w("abc"), 3, true), 0);
        assert_ne!(cmp_n(&w("ABC"), &w("abc"), 3, false), 0);
        assert_eq!(cmp_n(&w("b"), &w("a"), 1, true), 1);
    }

    // PathCombine examples from its documentation and PathCanonicalize's.
    #[test]
    fn combine_and_canonicalize() {
        let c = |d: &str, f: &str| s(&combine(Some(&w(d)), Some(&w(f))).unwrap());
        assert_eq!(c(r"C:\dir", "file.txt"), r"C:\dir\file.txt");
        assert_eq!(c(r"C:\dir\", "file.txt"), r"C:\dir\file.txt");
        assert_eq!(c(r"C:\dir", r"D:\other\f"), r"D:\other\f");
        assert_eq!(c(r"C:\dir", r"\root.txt"), r"C:\root.txt");
        assert_eq!(c(r"C:\a\b", r"..\c"), r"C:\a\c");
        assert_eq!(
            s(&canonicalize(&w(r"A:\name_1\.\name_2\..\name_3"))),
            r"A:\name_1\name_3"
        );
        assert_eq!(s(&canonicalize(&w(r"C:\..\.."))), r"C:\");
        assert!(combine(Some(&w(r"C:\")), Some(&w(&"x".repeat(300)))).is_none());
    }
}
