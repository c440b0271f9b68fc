//! String and memory functions, narrow and wide (C locale).

#![allow(non_snake_case)]

use super::gmem::{cstr_len, read_cstr, read_vec, read_wstr, write_cstr, write_wstr};
use super::state::{self, intern};
use super::{ctype, heap};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, cdecl};
use std::cmp::Ordering;

const MAX: usize = usize::MAX;

fn ord(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn cstr(cx: &Ctx, p: u32) -> ApiResult<Vec<u8>> {
    Ok(read_cstr(&cx.proc.mem, p, MAX)?)
}

fn wstr(cx: &Ctx, p: u32) -> ApiResult<Vec<u16>> {
    Ok(read_wstr(&cx.proc.mem, p, MAX)?)
}

// ---- memory ---------------------------------------------------------------------------

fn _memicmp(cx: &mut Ctx, buf1: Ptr, buf2: Ptr, count: u32) -> ApiResult<i32> {
    let a = read_vec(&cx.proc.mem, buf1.0, count as usize)?;
    let b = read_vec(&cx.proc.mem, buf2.0, count as usize)?;
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
        if x != y {
            return Ok(x as i32 - y as i32);
        }
    }
    Ok(0)
}

fn memchr(cx: &mut Ctx, buf: Ptr, c: i32, count: u32) -> ApiResult<u32> {
    // Page by page so a match before an unreadable page is found.
    Ok(cx
        .proc
        .mem
        .find_byte(buf.0, c as u8, count as usize)?
        .map_or(0, |k| buf.0.wrapping_add(k as u32)))
}

fn _memccpy(cx: &mut Ctx, dest: Ptr, src: Ptr, c: i32, count: u32) -> ApiResult<u32> {
    let v = read_vec(&cx.proc.mem, src.0, count as usize)?;
    match v.iter().position(|&b| b == c as u8) {
        Some(k) => {
            cx.proc.mem.write_bytes(dest.0, &v[..=k])?;
            Ok(dest.0 + k as u32 + 1)
        }
        None => {
            cx.proc.mem.write_bytes(dest.0, &v)?;
            Ok(0)
        }
    }
}

// ---- narrow strings ----------------------------------------------------------------------

fn strnlen(cx: &mut Ctx, s: CStrPtr, max: u32) -> ApiResult<u32> {
    Ok(cstr_len(&cx.proc.mem, s.0, max as usize)? as u32)
}

/// Copies the `len` bytes of the string at `src` to `dest` and terminates it,
/// faulting as reading the string and then writing it with [`write_cstr`] would
/// (the NUL is a guest store, so it honours the page's protection).
fn copy_cstr(cx: &Ctx, dest: u32, src: u32, len: usize) -> ApiResult<()> {
    cx.proc.mem.copy_within(dest, src, len as u32)?;
    cx.proc.mem.write_u8(dest.wrapping_add(len as u32), 0)?;
    Ok(())
}

/// Compares the strings of lengths `la` and `lb` at `a` and `b` as C does:
/// unsigned bytes, a proper prefix sorts first.
fn compare_cstr(cx: &Ctx, a: u32, la: usize, b: u32, lb: usize) -> ApiResult<Ordering> {
    let common = cx.proc.mem.compare(a, b, la.min(lb) as u32)?;
    Ok(common.then(la.cmp(&lb)))
}

fn strncpy(cx: &mut Ctx, dest: Ptr, src: CStrPtr, count: u32) -> ApiResult<u32> {
    let mut s = read_cstr(&cx.proc.mem, src.0, count as usize)?;
    s.resize(count as usize, 0);
    cx.proc.mem.write_bytes(dest.0, &s)?;
    Ok(dest.0)
}

fn strcat(cx: &mut Ctx, dest: Ptr, src: CStrPtr) -> ApiResult<u32> {
    let d = cstr_len(&cx.proc.mem, dest.0, MAX)? as u32;
    let len = cstr_len(&cx.proc.mem, src.0, MAX)?;
    copy_cstr(cx, dest.0.wrapping_add(d), src.0, len)?;
    Ok(dest.0)
}

fn strncat(cx: &mut Ctx, dest: Ptr, src: CStrPtr, count: u32) -> ApiResult<u32> {
    let d = cstr(cx, dest.0)?.len() as u32;
    let s = read_cstr(&cx.proc.mem, src.0, count as usize)?;
    write_cstr(&cx.proc.mem, dest.0 + d, &s)?;
    Ok(dest.0)
}

fn strcmp(cx: &mut Ctx, a: CStrPtr, b: CStrPtr) -> ApiResult<i32> {
    let la = cstr_len(&cx.proc.mem, a.0, MAX)?;
    let lb = cstr_len(&cx.proc.mem, b.0, MAX)?;
    Ok(ord(compare_cstr(cx, a.0, la, b.0, lb)?))
}

fn strncmp(cx: &mut Ctx, a: CStrPtr, b: CStrPtr, count: u32) -> ApiResult<i32> {
    let la = cstr_len(&cx.proc.mem, a.0, count as usize)?;
    let lb = cstr_len(&cx.proc.mem, b.0, count as usize)?;
    Ok(ord(compare_cstr(cx, a.0, la, b.0, lb)?))
}

fn icmp(x: &[u8], y: &[u8]) -> i32 {
    for k in 0..=x.len().max(y.len()) {
        let a = x.get(k).copied().unwrap_or(0).to_ascii_lowercase();
        let b = y.get(k).copied().unwrap_or(0).to_ascii_lowercase();
        if a != b || a == 0 {
            return a as i32 - b as i32;
        }
    }
    0
}

fn _stricmp(cx: &mut Ctx, a: CStrPtr, b: CStrPtr) -> ApiResult<i32> {
    Ok(icmp(&cstr(cx, a.0)?, &cstr(cx, b.0)?))
}

fn _strnicmp(cx: &mut Ctx, a: CStrPtr, b: CStrPtr, count: u32) -> ApiResult<i32> {
    let x = read_cstr(&cx.proc.mem, a.0, count as usize)?;
    let y = read_cstr(&cx.proc.mem, b.0, count as usize)?;
    Ok(icmp(&x, &y))
}

fn strchr(cx: &mut Ctx, s: CStrPtr, c: i32) -> ApiResult<u32> {
    let len = cstr_len(&cx.proc.mem, s.0, MAX)?;
    let c = c as u8;
    if c == 0 {
        return Ok(s.0.wrapping_add(len as u32));
    }
    Ok(cx
        .proc
        .mem
        .find_byte(s.0, c, len)?
        .map_or(0, |k| s.0.wrapping_add(k as u32)))
}

fn strrchr(cx: &mut Ctx, s: CStrPtr, c: i32) -> ApiResult<u32> {
    let v = cstr(cx, s.0)?;
    let c = c as u8;
    if c == 0 {
        return Ok(s.0 + v.len() as u32);
    }
    Ok(v.iter()
        .rposition(|&b| b == c)
        .map_or(0, |k| s.0 + k as u32))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn strstr(cx: &mut Ctx, s: CStrPtr, sub: CStrPtr) -> ApiResult<u32> {
    let h = cstr(cx, s.0)?;
    let n = cstr(cx, sub.0)?;
    Ok(find(&h, &n).map_or(0, |k| s.0 + k as u32))
}

fn strspn(cx: &mut Ctx, s: CStrPtr, set: CStrPtr) -> ApiResult<u32> {
    let v = cstr(cx, s.0)?;
    let set = cstr(cx, set.0)?;
    Ok(v.iter().take_while(|b| set.contains(b)).count() as u32)
}

fn strcspn(cx: &mut Ctx, s: CStrPtr, set: CStrPtr) -> ApiResult<u32> {
    let v = cstr(cx, s.0)?;
    let set = cstr(cx, set.0)?;
    Ok(v.iter().take_while(|b| !set.contains(b)).count() as u32)
}

fn strpbrk(cx: &mut Ctx, s: CStrPtr, set: CStrPtr) -> ApiResult<u32> {
    let v = cstr(cx, s.0)?;
    let set = cstr(cx, set.0)?;
    Ok(v.iter()
        .position(|b| set.contains(b))
        .map_or(0, |k| s.0 + k as u32))
}

fn strtok(cx: &mut Ctx, s: Ptr, delim: CStrPtr) -> ApiResult<u32> {
    let delim = cstr(cx, delim.0)?;
    let start = if s.is_null() {
        state::thread_data(cx)?.strtok_next
    } else {
        s.0
    };
    if start == 0 {
        return Ok(0);
    }
    let v = cstr(cx, start)?;
    let skip = v.iter().take_while(|b| delim.contains(b)).count();
    if skip == v.len() {
        state::update_thread(cx, |t| t.strtok_next = 0)?;
        return Ok(0);
    }
    let tok = start + skip as u32;
    let len = v[skip..].iter().take_while(|b| !delim.contains(b)).count();
    let end = tok + len as u32;
    let next = if skip + len < v.len() {
        cx.proc.mem.write_u8(end, 0)?;
        end + 1
    } else {
        end
    };
    state::update_thread(cx, |t| t.strtok_next = next)?;
    Ok(tok)
}

fn _strdup(cx: &mut Ctx, s: CStrPtr) -> ApiResult<u32> {
    if s.0 == 0 {
        return Ok(0);
    }
    let v = cstr(cx, s.0)?;
    let p = heap::malloc_raw(cx, v.len() as u32 + 1)?;
    if p != 0 {
        write_cstr(&cx.proc.mem, p, &v)?;
    }
    Ok(p)
}

fn map_in_place(cx: &mut Ctx, s: u32, f: impl Fn(u8) -> u8) -> ApiResult<u32> {
    let v: Vec<u8> = cstr(cx, s)?.into_iter().map(f).collect();
    cx.proc.mem.write_bytes(s, &v)?;
    Ok(s)
}

fn _strlwr(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    map_in_place(cx, s.0, |b| b.to_ascii_lowercase())
}

fn _strupr(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    map_in_place(cx, s.0, |b| b.to_ascii_uppercase())
}

fn _strset(cx: &mut Ctx, s: Ptr, c: i32) -> ApiResult<u32> {
    map_in_place(cx, s.0, |_| c as u8)
}

fn _strnset(cx: &mut Ctx, s: Ptr, c: i32, count: u32) -> ApiResult<u32> {
    let n = read_cstr(&cx.proc.mem, s.0, count as usize)?.len();
    cx.proc.mem.write_bytes(s.0, &vec![c as u8; n])?;
    Ok(s.0)
}

fn _strrev(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    let mut v = cstr(cx, s.0)?;
    v.reverse();
    cx.proc.mem.write_bytes(s.0, &v)?;
    Ok(s.0)
}

fn strxfrm(cx: &mut Ctx, dest: Ptr, src: CStrPtr, count: u32) -> ApiResult<u32> {
    // The C locale's collation is byte order: the transform is a copy.
    let v = cstr(cx, src.0)?;
    if (v.len() as u32) < count {
        write_cstr(&cx.proc.mem, dest.0, &v)?;
    }
    Ok(v.len() as u32)
}

/// msvcrt's `_sys_errlist` texts.
pub const ERRLIST: [&str; 43] = [
    "No error",
    "Operation not permitted",
    "No such file or directory",
    "No such process",
    "Interrupted function call",
    "Input/output error",
    "No such device or address",
    "Arg list too long",
    "Exec format error",
    "Bad file descriptor",
    "No child processes",
    "Resource temporarily unavailable",
    "Not enough space",
    "Permission denied",
    "Bad address",
    "Unknown error",
    "Resource device",
    "File exists",
    "Improper link",
    "No such device",
    "Not a directory",
    "Is a directory",
    "Invalid argument",
    "Too many open files in system",
    "Too many open files",
    "Inappropriate I/O control operation",
    "Unknown error",
    "File too large",
    "No space left on device",
    "Invalid seek",
    "Read-only file system",
    "Too many links",
    "Broken pipe",
    "Domain error",
    "Result too large",
    "Unknown error",
    "Resource deadlock avoided",
    "Unknown error",
    "Filename too long",
    "No locks available",
    "Function not implemented",
    "Directory not empty",
    "Illegal byte sequence",
];

pub fn error_text(e: u32) -> &'static str {
    ERRLIST.get(e as usize).copied().unwrap_or("Unknown error")
}

fn strerror(cx: &mut Ctx, errnum: u32) -> ApiResult<u32> {
    intern(cx.proc, error_text(errnum).as_bytes())
}

/// `_strerror(prefix)`: "prefix: message\n" for the current errno.
fn _strerror(cx: &mut Ctx, prefix: CStrPtr) -> ApiResult<u32> {
    let e = cx.proc.mem.read_u32(state::thread_data(cx)?.block)?;
    let mut s = Vec::new();
    if prefix.0 != 0 {
        s = cstr(cx, prefix.0)?;
        s.extend_from_slice(b": ");
    }
    s.extend_from_slice(error_text(e).as_bytes());
    s.push(b'\n');
    intern(cx.proc, &s)
}

// ---- wide strings --------------------------------------------------------------------------

fn wcslen(cx: &mut Ctx, s: WStrPtr) -> ApiResult<u32> {
    Ok(wstr(cx, s.0)?.len() as u32)
}

fn wcscpy(cx: &mut Ctx, dest: Ptr, src: WStrPtr) -> ApiResult<u32> {
    let s = wstr(cx, src.0)?;
    write_wstr(&cx.proc.mem, dest.0, &s)?;
    Ok(dest.0)
}

fn wcsncpy(cx: &mut Ctx, dest: Ptr, src: WStrPtr, count: u32) -> ApiResult<u32> {
    let mut s = read_wstr(&cx.proc.mem, src.0, count as usize)?;
    s.resize(count as usize, 0);
    super::gmem::write_units(&cx.proc.mem, dest.0, &s)?;
    Ok(dest.0)
}

fn wcscat(cx: &mut Ctx, dest: Ptr, src: WStrPtr) -> ApiResult<u32> {
    let d = wstr(cx, dest.0)?.len() as u32;
    let s = wstr(cx, src.0)?;
    write_wstr(&cx.proc.mem, dest.0 + 2 * d, &s)?;
    Ok(dest.0)
}

fn wcsncat(cx: &mut Ctx, dest: Ptr, src: WStrPtr, count: u32) -> ApiResult<u32> {
    let d = wstr(cx, dest.0)?.len() as u32;
    let s = read_wstr(&cx.proc.mem, src.0, count as usize)?;
    write_wstr(&cx.proc.mem, dest.0 + 2 * d, &s)?;
    Ok(dest.0)
}

fn wcscmp(cx: &mut Ctx, a: WStrPtr, b: WStrPtr) -> ApiResult<i32> {
    Ok(ord(wstr(cx, a.0)?.cmp(&wstr(cx, b.0)?)))
}

fn wcsncmp(cx: &mut Ctx, a: WStrPtr, b: WStrPtr, count: u32) -> ApiResult<i32> {
    let x = read_wstr(&cx.proc.mem, a.0, count as usize)?;
    let y = read_wstr(&cx.proc.mem, b.0, count as usize)?;
    Ok(ord(x.cmp(&y)))
}

fn wlower(u: u16) -> u16 {
    ctype::towlower_c(u)
}

fn wicmp(x: &[u16], y: &[u16]) -> i32 {
    for k in 0..=x.len().max(y.len()) {
        let a = wlower(x.get(k).copied().unwrap_or(0));
        let b = wlower(y.get(k).copied().unwrap_or(0));
        if a != b || a == 0 {
            return a as i32 - b as i32;
        }
    }
    0
}

fn _wcsicmp(cx: &mut Ctx, a: WStrPtr, b: WStrPtr) -> ApiResult<i32> {
    Ok(wicmp(&wstr(cx, a.0)?, &wstr(cx, b.0)?))
}

fn _wcsnicmp(cx: &mut Ctx, a: WStrPtr, b: WStrPtr, count: u32) -> ApiResult<i32> {
    let x = read_wstr(&cx.proc.mem, a.0, count as usize)?;
    let y = read_wstr(&cx.proc.mem, b.0, count as usize)?;
    Ok(wicmp(&x, &y))
}

fn wcschr(cx: &mut Ctx, s: WStrPtr, c: u16) -> ApiResult<u32> {
    let v = wstr(cx, s.0)?;
    if c == 0 {
        return Ok(s.0 + 2 * v.len() as u32);
    }
    Ok(v.iter()
        .position(|&u| u == c)
        .map_or(0, |k| s.0 + 2 * k as u32))
}

fn wcsrchr(cx: &mut Ctx, s: WStrPtr, c: u16) -> ApiResult<u32> {
    let v = wstr(cx, s.0)?;
    if c == 0 {
        return Ok(s.0 + 2 * v.len() as u32);
    }
    Ok(v.iter()
        .rposition(|&u| u == c)
        .map_or(0, |k| s.0 + 2 * k as u32))
}

fn wcsstr(cx: &mut Ctx, s: WStrPtr, sub: WStrPtr) -> ApiResult<u32> {
    let h = wstr(cx, s.0)?;
    let n = wstr(cx, sub.0)?;
    if n.is_empty() {
        return Ok(s.0);
    }
    Ok(h.windows(n.len())
        .position(|w| w == n.as_slice())
        .map_or(0, |k| s.0 + 2 * k as u32))
}

fn wcsspn(cx: &mut Ctx, s: WStrPtr, set: WStrPtr) -> ApiResult<u32> {
    let v = wstr(cx, s.0)?;
    let set = wstr(cx, set.0)?;
    Ok(v.iter().take_while(|u| set.contains(u)).count() as u32)
}

fn wcscspn(cx: &mut Ctx, s: WStrPtr, set: WStrPtr) -> ApiResult<u32> {
    let v = wstr(cx, s.0)?;
    let set = wstr(cx, set.0)?;
    Ok(v.iter().take_while(|u| !set.contains(u)).count() as u32)
}

fn wcspbrk(cx: &mut Ctx, s: WStrPtr, set: WStrPtr) -> ApiResult<u32> {
    let v = wstr(cx, s.0)?;
    let set = wstr(cx, set.0)?;
    Ok(v.iter()
        .position(|u| set.contains(u))
        .map_or(0, |k| s.0 + 2 * k as u32))
}

fn wcstok(cx: &mut Ctx, s: Ptr, delim: WStrPtr) -> ApiResult<u32> {
    let delim = wstr(cx, delim.0)?;
    let start = if s.is_null() {
        state::thread_data(cx)?.wcstok_next
    } else {
        s.0
    };
    if start == 0 {
        return Ok(0);
    }
    let v = wstr(cx, start)?;
    let skip = v.iter().take_while(|u| delim.contains(u)).count();
    if skip == v.len() {
        state::update_thread(cx, |t| t.wcstok_next = 0)?;
        return Ok(0);
    }
    let tok = start + 2 * skip as u32;
    let len = v[skip..].iter().take_while(|u| !delim.contains(u)).count();
    let end = tok + 2 * len as u32;
    let next = if skip + len < v.len() {
        cx.proc.mem.write_u16(end, 0)?;
        end + 2
    } else {
        end
    };
    state::update_thread(cx, |t| t.wcstok_next = next)?;
    Ok(tok)
}

fn _wcsdup(cx: &mut Ctx, s: WStrPtr) -> ApiResult<u32> {
    if s.0 == 0 {
        return Ok(0);
    }
    let v = wstr(cx, s.0)?;
    let p = heap::malloc_raw(cx, 2 * (v.len() as u32 + 1))?;
    if p != 0 {
        write_wstr(&cx.proc.mem, p, &v)?;
    }
    Ok(p)
}

fn wmap_in_place(cx: &mut Ctx, s: u32, f: impl Fn(u16) -> u16) -> ApiResult<u32> {
    let v: Vec<u16> = wstr(cx, s)?.into_iter().map(f).collect();
    super::gmem::write_units(&cx.proc.mem, s, &v)?;
    Ok(s)
}

fn _wcslwr(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    wmap_in_place(cx, s.0, ctype::towlower_c)
}

fn _wcsupr(cx: &mut Ctx, s: Ptr) -> ApiResult<u32> {
    wmap_in_place(cx, s.0, ctype::towupper_c)
}

// ---- multibyte <-> wide (C locale: bytes are code points 0-255) -------------------------------

fn mbstowcs(cx: &mut Ctx, wcstr: Ptr, mbstr: CStrPtr, count: u32) -> ApiResult<u32> {
    let s = cstr(cx, mbstr.0)?;
    if wcstr.is_null() {
        return Ok(s.len() as u32);
    }
    let n = s.len().min(count as usize);
    let units: Vec<u16> = s[..n].iter().map(|&b| u16::from(b)).collect();
    super::gmem::write_units(&cx.proc.mem, wcstr.0, &units)?;
    if n < count as usize {
        cx.proc.mem.write_u16(wcstr.0 + 2 * n as u32, 0)?;
    }
    Ok(n as u32)
}

fn wcstombs(cx: &mut Ctx, mbstr: Ptr, wcstr: WStrPtr, count: u32) -> ApiResult<u32> {
    let s = wstr(cx, wcstr.0)?;
    if s.iter().any(|&u| u > 0xff) {
        state::set_errno(cx, 42)?; // EILSEQ
        return Ok(u32::MAX);
    }
    if mbstr.is_null() {
        return Ok(s.len() as u32);
    }
    let n = s.len().min(count as usize);
    let bytes: Vec<u8> = s[..n].iter().map(|&u| u as u8).collect();
    cx.proc.mem.write_bytes(mbstr.0, &bytes)?;
    if n < count as usize {
        cx.proc.mem.write_u8(mbstr.0 + n as u32, 0)?;
    }
    Ok(n as u32)
}

fn mbtowc(cx: &mut Ctx, wchar: Ptr, mbchar: Ptr, count: u32) -> ApiResult<i32> {
    if mbchar.is_null() {
        return Ok(0);
    }
    if count == 0 {
        return Ok(-1);
    }
    let b = cx.proc.mem.read_u8(mbchar.0)?;
    if !wchar.is_null() {
        cx.proc.mem.write_u16(wchar.0, u16::from(b))?;
    }
    Ok(if b == 0 { 0 } else { 1 })
}

fn wctomb(cx: &mut Ctx, mbchar: Ptr, wchar: u16) -> ApiResult<i32> {
    if mbchar.is_null() {
        return Ok(0);
    }
    if wchar > 0xff {
        state::set_errno(cx, 42)?;
        return Ok(-1);
    }
    cx.proc.mem.write_u8(mbchar.0, wchar as u8)?;
    Ok(1)
}

fn mblen(cx: &mut Ctx, mbstr: Ptr, count: u32) -> ApiResult<i32> {
    if mbstr.is_null() {
        return Ok(0);
    }
    if count == 0 {
        return Ok(-1);
    }
    Ok((cx.proc.mem.read_u8(mbstr.0)? != 0) as i32)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_memicmp", _memicmp),
        cdecl("memchr", memchr),
        cdecl("_memccpy", _memccpy),
        cdecl("strnlen", strnlen),
        cdecl("strncpy", strncpy),
        cdecl("strcat", strcat),
        cdecl("strncat", strncat),
        cdecl("strncmp", strncmp),
        cdecl("strcoll", strcmp),
        cdecl("_stricmp", _stricmp),
        cdecl("_strcmpi", _stricmp),
        cdecl("_stricoll", _stricmp),
        cdecl("_strnicmp", _strnicmp),
        cdecl("strchr", strchr),
        cdecl("strrchr", strrchr),
        cdecl("strstr", strstr),
        cdecl("strspn", strspn),
        cdecl("strcspn", strcspn),
        cdecl("strpbrk", strpbrk),
        cdecl("strtok", strtok),
        cdecl("_strdup", _strdup),
        cdecl("_strlwr", _strlwr),
        cdecl("_strupr", _strupr),
        cdecl("_strset", _strset),
        cdecl("_strnset", _strnset),
        cdecl("_strrev", _strrev),
        cdecl("strxfrm", strxfrm),
        cdecl("strerror", strerror),
        cdecl("_strerror", _strerror),
        cdecl("wcslen", wcslen),
        cdecl("wcscpy", wcscpy),
        cdecl("wcsncpy", wcsncpy),
        cdecl("wcscat", wcscat),
        cdecl("wcsncat", wcsncat),
        cdecl("wcscmp", wcscmp),
        cdecl("wcsncmp", wcsncmp),
        cdecl("wcscoll", wcscmp),
        cdecl("_wcsicmp", _wcsicmp),
        cdecl("_wcsnicmp", _wcsnicmp),
        cdecl("wcschr", wcschr),
        cdecl("wcsrchr", wcsrchr),
        cdecl("wcsstr", wcsstr),
        cdecl("wcsspn", wcsspn),
        cdecl("wcscspn", wcscspn),
        cdecl("wcspbrk", wcspbrk),
        cdecl("wcstok", wcstok),
        cdecl("_wcsdup", _wcsdup),
        cdecl("_wcslwr", _wcslwr),
        cdecl("_wcsupr", _wcsupr),
        cdecl("mbstowcs", mbstowcs),
        cdecl("wcstombs", wcstombs),
        cdecl("mbtowc", mbtowc),
        cdecl("wctomb", wctomb),
        cdecl("mblen", mblen),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_insensitive_compare() {
        assert_eq!(icmp(b"Hello", b"hELLO"), 0);
        assert!(icmp(b"abc", b"ABD") < 0);
        assert!(icmp(b"abcd", b"ABC") > 0);
        // '_' (0x5f) sorts before letters once they are lower-cased.
        assert!(icmp(b"_", b"A") < 0);
    }

    #[test]
    fn substring() {
        assert_eq!(find(b"hello world", b"o w"), Some(4));
        assert_eq!(find(b"abc", b""), Some(0));
        assert_eq!(find(b"abc", b"abcd"), None);
    }

    #[test]
    fn errno_texts() {
        assert_eq!(error_text(2), "No such file or directory");
        assert_eq!(error_text(34), "Result too large");
        assert_eq!(error_text(99), "Unknown error");
    }
}
