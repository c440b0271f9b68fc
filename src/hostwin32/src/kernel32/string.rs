//! KERNEL32 strings and code pages: lstr*, MultiByteToWideChar/WideCharToMultiByte,
//! code page queries, CompareString, GetStringType, LCMapString, FormatMessage, and
//! (for USER32, see [`user32_string_exports`]) CharUpper/CharLower.
//!
//! The ANSI code page is Windows-1252 and the OEM code page 437, as on a US/Western
//! European Windows. Also the guest-string helpers the other DLL modules use:
//! [`read_ansi`], [`read_wide`], [`decode_ansi`], [`encode_ansi`], [`copy_out_a`]...

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{
    ApiDef, ApiError, ApiResult, Arg, CStrPtr, Ctx, Ptr, WStrPtr, stdcall, stdcall_aw,
};
use crate::process::Process;
use crate::teb::set_last_error;
use std::cmp::Ordering;

use super::misc::err;

pub const CP_ACP: u32 = 0;
pub const CP_OEMCP: u32 = 1;
pub const CP_MACCP: u32 = 2;
pub const CP_THREAD_ACP: u32 = 3;
pub const CP_UTF7: u32 = 65000;
pub const CP_UTF8: u32 = 65001;
pub const ANSI_CP: u32 = 1252;
pub const OEM_CP: u32 = 437;

/// Longest guest string the helpers read (a runaway pointer stops here).
const MAX_STR: usize = 1 << 24;

/// Windows-1252 0x80..0x9F. The five bytes 1252 leaves undefined map to the C1
/// control of the same value, as Windows' table does.
const CP1252_HIGH: [u16; 32] = [
    0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008d, 0x017d, 0x008f, 0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
    0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
];

/// Code page 437, 0x80..0xFF (0x00..0x7F are ASCII without MB_USEGLYPHCHARS).
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// A single-byte code page winterp knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodePage {
    Ansi1252,
    Oem437,
    Utf8,
}

impl CodePage {
    /// The code page a Win32 code page argument names; `Err` for one winterp does not
    /// implement, `Ok(None)` for one Windows does not know either.
    pub fn from_arg(cp: u32) -> ApiResult<Option<CodePage>> {
        Ok(match cp {
            CP_ACP | CP_THREAD_ACP | ANSI_CP => Some(CodePage::Ansi1252),
            CP_OEMCP | OEM_CP => Some(CodePage::Oem437),
            CP_UTF8 => Some(CodePage::Utf8),
            CP_UTF7
            | CP_MACCP
            | 42
            | 850
            | 852
            | 866
            | 874
            | 932
            | 936
            | 949
            | 950
            | 1250
            | 1251
            | 1253..=1258
            | 28591..=28605 => {
                return Err(ApiError::UnimplementedCase(format!("code page {cp}")));
            }
            _ => None,
        })
    }
}

pub(crate) fn byte_to_unicode(cp: CodePage, b: u8) -> u16 {
    match (cp, b) {
        (_, 0..=0x7f) => b as u16,
        (CodePage::Ansi1252, 0x80..=0x9f) => CP1252_HIGH[(b - 0x80) as usize],
        (CodePage::Ansi1252, _) => b as u16,
        (CodePage::Oem437, _) => CP437_HIGH.chars().nth((b - 0x80) as usize).unwrap_or('?') as u16,
        (CodePage::Utf8, _) => 0xfffd,
    }
}

pub(crate) fn unicode_to_byte(cp: CodePage, u: u16) -> Option<u8> {
    if u < 0x80 {
        return Some(u as u8);
    }
    match cp {
        CodePage::Ansi1252 => {
            if (0xa0..=0xff).contains(&u) {
                return Some(u as u8);
            }
            CP1252_HIGH
                .iter()
                .position(|&c| c == u)
                .map(|k| 0x80 + k as u8)
        }
        CodePage::Oem437 => CP437_HIGH
            .chars()
            .position(|c| c as u32 == u as u32)
            .map(|k| 0x80 + k as u8),
        CodePage::Utf8 => None,
    }
}

/// Decodes Windows-1252 bytes.
pub fn decode_ansi(bytes: &[u8]) -> String {
    let w: Vec<u16> = bytes
        .iter()
        .map(|&b| byte_to_unicode(CodePage::Ansi1252, b))
        .collect();
    String::from_utf16_lossy(&w)
}

/// Encodes to Windows-1252; characters it lacks become `?`.
pub fn encode_ansi(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .map(|u| unicode_to_byte(CodePage::Ansi1252, u).unwrap_or(b'?'))
        .collect()
}

/// The code page of the A file functions (SetFileApisToOEM/SetFileApisToANSI).
pub fn file_api_code_page(proc: &Process) -> CodePage {
    if super::process::file_apis_oem(proc) {
        CodePage::Oem437
    } else {
        CodePage::Ansi1252
    }
}

/// Decodes a string of the A file functions.
pub fn decode_file_api(proc: &Process, bytes: &[u8]) -> String {
    let cp = file_api_code_page(proc);
    let w: Vec<u16> = bytes.iter().map(|&b| byte_to_unicode(cp, b)).collect();
    String::from_utf16_lossy(&w)
}

/// Encodes a string for the A file functions; characters the code page lacks
/// become `?`.
pub fn encode_file_api(proc: &Process, s: &str) -> Vec<u8> {
    let cp = file_api_code_page(proc);
    s.encode_utf16()
        .map(|u| unicode_to_byte(cp, u).unwrap_or(b'?'))
        .collect()
}

/// The bytes of a NUL-terminated guest string (without the NUL).
pub fn read_cbytes(proc: &Process, p: u32) -> ApiResult<Vec<u8>> {
    Ok(proc.mem.read_cstr(p, MAX_STR)?)
}

/// A NUL-terminated ANSI (1252) guest string.
pub fn read_ansi(proc: &Process, p: u32) -> ApiResult<String> {
    Ok(decode_ansi(&read_cbytes(proc, p)?))
}

/// The UTF-16 units of a NUL-terminated wide guest string (without the NUL).
pub fn read_wide(proc: &Process, p: u32) -> ApiResult<Vec<u16>> {
    let mut v = Vec::new();
    let mut a = p;
    loop {
        let u = proc.mem.read_u16(a).map_err(ApiError::from)?;
        if u == 0 || v.len() >= MAX_STR {
            return Ok(v);
        }
        v.push(u);
        a = a.wrapping_add(2);
    }
}

/// A NUL-terminated wide guest string (unpaired surrogates become U+FFFD).
pub fn read_wstr(proc: &Process, p: u32) -> ApiResult<String> {
    Ok(String::from_utf16_lossy(&read_wide(proc, p)?))
}

pub fn write_wide(proc: &Process, p: u32, units: &[u16]) -> ApiResult<()> {
    let mut b = Vec::with_capacity(units.len() * 2);
    for u in units {
        b.extend_from_slice(&u.to_le_bytes());
    }
    proc.mem.write_bytes(p, &b)?;
    Ok(())
}

/// The string kind of an API's A or W export: [`CStrPtr`] (LPCSTR, code page 1252)
/// or [`WStrPtr`] (LPCWSTR, UTF-16). Where the A and W forms of an API differ only in
/// how they read strings, one HLE body generic over `S: GuestStr` serves both, and the
/// DLL registers `NameA` as `NameA` and `NameW` as `NameW`.
pub trait GuestStr: Arg + Copy + Send + Sync + 'static {
    /// True for the W form (UTF-16 strings).
    const WIDE: bool;
    /// The NULL pointer of this kind (for a form that passes NULL on).
    const NULL: Self;
    /// The guest address (0 for NULL).
    fn addr(self) -> u32;
    /// The NUL-terminated string of this kind at `p` (not NULL).
    fn read_at(proc: &Process, p: u32) -> ApiResult<String>;
    /// A file name at `p` (not NULL): the A forms read it in the file functions'
    /// code page (ANSI, or OEM after SetFileApisToOEM).
    fn read_file_api_at(proc: &Process, p: u32) -> ApiResult<String>;
    /// The UTF-16 units of `n` characters of this kind at `p`, or of the
    /// NUL-terminated string there (without the NUL) if `n` is negative.
    fn read_counted(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<u16>>;
    /// UTF-16 units as guest characters of this kind (1252 bytes, `?` for what
    /// 1252 lacks; or UTF-16LE).
    fn encode_units(units: &[u16]) -> Vec<u8>;
    /// [`copy_out_a`] / [`copy_out_w`] of a file name (the A forms write it in the
    /// file functions' code page); `cap` in characters of this kind.
    fn copy_out_file_api(proc: &Process, buf: u32, cap: u32, s: &str) -> ApiResult<u32>;
    /// The string this points to; `None` for NULL.
    fn read_opt(self, proc: &Process) -> ApiResult<Option<String>> {
        match self.addr() {
            0 => Ok(None),
            p => Self::read_at(proc, p).map(Some),
        }
    }
}

impl GuestStr for CStrPtr {
    const WIDE: bool = false;
    const NULL: Self = CStrPtr(0);
    fn addr(self) -> u32 {
        self.0
    }
    fn read_at(proc: &Process, p: u32) -> ApiResult<String> {
        read_ansi(proc, p)
    }
    fn read_file_api_at(proc: &Process, p: u32) -> ApiResult<String> {
        Ok(decode_file_api(proc, &read_cbytes(proc, p)?))
    }
    fn read_counted(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<u16>> {
        counted_a(proc, p, n)
    }
    fn encode_units(units: &[u16]) -> Vec<u8> {
        units
            .iter()
            .map(|&u| unicode_to_byte(CodePage::Ansi1252, u).unwrap_or(b'?'))
            .collect()
    }
    fn copy_out_file_api(proc: &Process, buf: u32, cap: u32, s: &str) -> ApiResult<u32> {
        copy_out_a(proc, buf, cap, &encode_file_api(proc, s))
    }
}

impl GuestStr for WStrPtr {
    const WIDE: bool = true;
    const NULL: Self = WStrPtr(0);
    fn addr(self) -> u32 {
        self.0
    }
    fn read_at(proc: &Process, p: u32) -> ApiResult<String> {
        read_wstr(proc, p)
    }
    fn read_file_api_at(proc: &Process, p: u32) -> ApiResult<String> {
        read_wstr(proc, p)
    }
    fn read_counted(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<u16>> {
        counted_w(proc, p, n)
    }
    fn encode_units(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_le_bytes()).collect()
    }
    fn copy_out_file_api(proc: &Process, buf: u32, cap: u32, s: &str) -> ApiResult<u32> {
        let units: Vec<u16> = s.encode_utf16().collect();
        copy_out_w(proc, buf, cap, &units)
    }
}

/// Copies a string result into a caller buffer of `cap` characters the way
/// GetEnvironmentVariableA, GetCurrentDirectoryA and friends do: if it fits with
/// its NUL, writes it and returns its length; otherwise writes nothing and returns
/// the size needed including the NUL.
pub fn copy_out_a(proc: &Process, buf: u32, cap: u32, s: &[u8]) -> ApiResult<u32> {
    let len = s.len() as u32;
    if cap > len && buf != 0 {
        let mut v = s.to_vec();
        v.push(0);
        proc.mem.write_bytes(buf, &v)?;
        Ok(len)
    } else {
        Ok(len + 1)
    }
}

/// [`copy_out_a`] for wide strings (`cap` in UTF-16 units).
pub fn copy_out_w(proc: &Process, buf: u32, cap: u32, s: &[u16]) -> ApiResult<u32> {
    let len = s.len() as u32;
    if cap > len && buf != 0 {
        let mut v = s.to_vec();
        v.push(0);
        write_wide(proc, buf, &v)?;
        Ok(len)
    } else {
        Ok(len + 1)
    }
}

/// Copies into a buffer of `cap` characters, truncating and always NUL-terminating
/// (cap > 0); returns the characters written without the NUL (GetModuleFileName).
pub fn copy_truncated_a(proc: &Process, buf: u32, cap: u32, s: &[u8]) -> ApiResult<u32> {
    if cap == 0 {
        return Ok(0);
    }
    let n = s.len().min(cap as usize - 1);
    let mut v = s[..n].to_vec();
    v.push(0);
    proc.mem.write_bytes(buf, &v)?;
    Ok(n as u32)
}

pub fn copy_truncated_w(proc: &Process, buf: u32, cap: u32, s: &[u16]) -> ApiResult<u32> {
    if cap == 0 {
        return Ok(0);
    }
    let n = s.len().min(cap as usize - 1);
    let mut v = s[..n].to_vec();
    v.push(0);
    write_wide(proc, buf, &v)?;
    Ok(n as u32)
}

// ---- lstr* --------------------------------------------------------------------------

pub fn lstrlenA(cx: &mut Ctx, lpString: CStrPtr) -> ApiResult<i32> {
    if lpString.0 == 0 {
        return Ok(0);
    }
    Ok(read_cbytes(cx.proc, lpString.0)?.len() as i32)
}

pub fn lstrlenW(cx: &mut Ctx, lpString: WStrPtr) -> ApiResult<i32> {
    if lpString.0 == 0 {
        return Ok(0);
    }
    Ok(read_wide(cx.proc, lpString.0)?.len() as i32)
}

pub fn lstrcpyA(cx: &mut Ctx, lpString1: Ptr, lpString2: CStrPtr) -> ApiResult<u32> {
    let mut s = read_cbytes(cx.proc, lpString2.0)?;
    s.push(0);
    cx.proc.mem.write_bytes(lpString1.0, &s)?;
    Ok(lpString1.0)
}

pub fn lstrcpyW(cx: &mut Ctx, lpString1: Ptr, lpString2: WStrPtr) -> ApiResult<u32> {
    let mut s = read_wide(cx.proc, lpString2.0)?;
    s.push(0);
    write_wide(cx.proc, lpString1.0, &s)?;
    Ok(lpString1.0)
}

pub fn lstrcpynA(
    cx: &mut Ctx,
    lpString1: Ptr,
    lpString2: CStrPtr,
    iMaxLength: i32,
) -> ApiResult<u32> {
    if iMaxLength <= 0 {
        return Ok(lpString1.0);
    }
    let s = read_cbytes(cx.proc, lpString2.0)?;
    copy_truncated_a(cx.proc, lpString1.0, iMaxLength as u32, &s)?;
    Ok(lpString1.0)
}

pub fn lstrcpynW(
    cx: &mut Ctx,
    lpString1: Ptr,
    lpString2: WStrPtr,
    iMaxLength: i32,
) -> ApiResult<u32> {
    if iMaxLength <= 0 {
        return Ok(lpString1.0);
    }
    let s = read_wide(cx.proc, lpString2.0)?;
    copy_truncated_w(cx.proc, lpString1.0, iMaxLength as u32, &s)?;
    Ok(lpString1.0)
}

pub fn lstrcatA(cx: &mut Ctx, lpString1: Ptr, lpString2: CStrPtr) -> ApiResult<u32> {
    let at = lpString1.0 + read_cbytes(cx.proc, lpString1.0)?.len() as u32;
    let mut s = read_cbytes(cx.proc, lpString2.0)?;
    s.push(0);
    cx.proc.mem.write_bytes(at, &s)?;
    Ok(lpString1.0)
}

pub fn lstrcatW(cx: &mut Ctx, lpString1: Ptr, lpString2: WStrPtr) -> ApiResult<u32> {
    let at = lpString1.0 + 2 * read_wide(cx.proc, lpString1.0)?.len() as u32;
    let mut s = read_wide(cx.proc, lpString2.0)?;
    s.push(0);
    write_wide(cx.proc, at, &s)?;
    Ok(lpString1.0)
}

fn ord_to_i32(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// The UTF-16 units of a string for lstrcmp; NULL reads as empty.
fn units_or_empty<S: GuestStr>(proc: &Process, p: u32) -> ApiResult<Vec<u16>> {
    if p == 0 {
        return Ok(Vec::new());
    }
    S::read_counted(proc, p, -1)
}

pub fn lstrcmp<S: GuestStr>(cx: &mut Ctx, lpString1: S, lpString2: S) -> ApiResult<i32> {
    let (a, b) = (
        units_or_empty::<S>(cx.proc, lpString1.addr())?,
        units_or_empty::<S>(cx.proc, lpString2.addr())?,
    );
    Ok(ord_to_i32(collate(&a, &b, 0)))
}

pub fn lstrcmpi<S: GuestStr>(cx: &mut Ctx, lpString1: S, lpString2: S) -> ApiResult<i32> {
    let (a, b) = (
        units_or_empty::<S>(cx.proc, lpString1.addr())?,
        units_or_empty::<S>(cx.proc, lpString2.addr())?,
    );
    Ok(ord_to_i32(collate(&a, &b, NORM_IGNORECASE)))
}

// ---- collation ----------------------------------------------------------------------

pub const NORM_IGNORECASE: u32 = 0x1;
pub const NORM_IGNORENONSPACE: u32 = 0x2;
pub const NORM_IGNORESYMBOLS: u32 = 0x4;
pub const NORM_IGNOREKANATYPE: u32 = 0x1_0000;
pub const NORM_IGNOREWIDTH: u32 = 0x2_0000;
pub const SORT_STRINGSORT: u32 = 0x1000;
const COMPARE_FLAGS: u32 = NORM_IGNORECASE
    | NORM_IGNORENONSPACE
    | NORM_IGNORESYMBOLS
    | NORM_IGNOREKANATYPE
    | NORM_IGNOREWIDTH
    | SORT_STRINGSORT;

/// Base letter and accent rank of a Latin-1/Latin Extended letter with a diacritic.
fn strip_accent(c: char) -> (char, u8) {
    const TABLE: &[(char, &str)] = &[
        ('A', "ÀÁÂÃÄÅ"),
        ('a', "àáâãäå"),
        ('C', "Ç"),
        ('c', "ç"),
        ('E', "ÈÉÊË"),
        ('e', "èéêë"),
        ('I', "ÌÍÎÏ"),
        ('i', "ìíîï"),
        ('N', "Ñ"),
        ('n', "ñ"),
        ('O', "ÒÓÔÕÖØ"),
        ('o', "òóôõöø"),
        ('U', "ÙÚÛÜ"),
        ('u', "ùúûü"),
        ('Y', "ÝŸ"),
        ('y', "ýÿ"),
        ('S', "Š"),
        ('s', "š"),
        ('Z', "Ž"),
        ('z', "ž"),
    ];
    for (base, list) in TABLE {
        if let Some(k) = list.chars().position(|x| x == c) {
            return (*base, k as u8 + 1);
        }
    }
    (c, 0)
}

/// Sort weights of one character: (script class, primary, accent, case).
fn weights(u: u16) -> (u8, u32, u8, u8) {
    let c = char::from_u32(u as u32).unwrap_or('\u{fffd}');
    let (base, accent) = strip_accent(c);
    if base.is_alphabetic() {
        let lower = base.to_lowercase().next().unwrap_or(base);
        let case = if base.is_uppercase() { 1 } else { 0 };
        (3, lower as u32, accent, case)
    } else if base.is_numeric() {
        (2, base.to_digit(10).unwrap_or(base as u32), 0, 0)
    } else {
        (1, base as u32, 0, 0)
    }
}

/// Compares as Windows' default (word) sort does for Western text: symbols before
/// digits before letters; letters compare alphabetically first, then by accent,
/// then lower case before upper case. In word sort the hyphen and apostrophe only
/// break ties. (An approximation of the full NLS sort-key tables; exact for
/// letters, digits and ordinary punctuation of the 1252 repertoire.)
pub fn collate(a: &[u16], b: &[u16], flags: u32) -> Ordering {
    let ignorable = |u: u16| {
        (flags & SORT_STRINGSORT == 0 && (u == b'-' as u16 || u == b'\'' as u16))
            || (flags & NORM_IGNORESYMBOLS != 0 && weights(u).0 == 1)
    };
    let wa: Vec<_> = a
        .iter()
        .copied()
        .filter(|&u| !ignorable(u))
        .map(weights)
        .collect();
    let wb: Vec<_> = b
        .iter()
        .copied()
        .filter(|&u| !ignorable(u))
        .map(weights)
        .collect();
    let primary =
        |w: &[(u8, u32, u8, u8)]| -> Vec<(u8, u32)> { w.iter().map(|x| (x.0, x.1)).collect() };
    let o = primary(&wa).cmp(&primary(&wb));
    if o != Ordering::Equal {
        return o;
    }
    if flags & NORM_IGNORENONSPACE == 0 {
        let o = wa.iter().map(|x| x.2).cmp(wb.iter().map(|x| x.2));
        if o != Ordering::Equal {
            return o;
        }
    }
    if flags & NORM_IGNORECASE == 0 {
        let o = wa.iter().map(|x| x.3).cmp(wb.iter().map(|x| x.3));
        if o != Ordering::Equal {
            return o;
        }
    }
    // Ignored characters decide last (word sort: "coop" < "co-op").
    let fa: Vec<u16> = a.iter().copied().filter(|&u| ignorable(u)).collect();
    let fb: Vec<u16> = b.iter().copied().filter(|&u| ignorable(u)).collect();
    if flags & NORM_IGNORESYMBOLS != 0 {
        return Ordering::Equal;
    }
    fa.len().cmp(&fb.len()).then(fa.cmp(&fb))
}

fn counted_a(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<u16>> {
    let bytes = if n < 0 {
        read_cbytes(proc, p)?
    } else {
        let mut b = vec![0u8; n as usize];
        proc.mem.read_bytes(p, &mut b)?;
        b
    };
    Ok(bytes
        .iter()
        .map(|&b| byte_to_unicode(CodePage::Ansi1252, b))
        .collect())
}

fn counted_w(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<u16>> {
    if n < 0 {
        return read_wide(proc, p);
    }
    let mut b = vec![0u8; 2 * n as usize];
    proc.mem.read_bytes(p, &mut b)?;
    Ok(b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

fn compare_result(cx: &mut Ctx, a: Vec<u16>, b: Vec<u16>, dwCmpFlags: u32) -> ApiResult<i32> {
    if dwCmpFlags & !COMPARE_FLAGS != 0 {
        set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
        return Ok(0);
    }
    // A counted string stops at an embedded NUL, as Windows compares it.
    let cut = |mut v: Vec<u16>| {
        if let Some(k) = v.iter().position(|&u| u == 0) {
            v.truncate(k);
        }
        v
    };
    Ok(ord_to_i32(collate(&cut(a), &cut(b), dwCmpFlags)) + 2)
}

pub fn CompareString<S: GuestStr>(
    cx: &mut Ctx,
    _Locale: u32,
    dwCmpFlags: u32,
    lpString1: Ptr,
    cchCount1: i32,
    lpString2: Ptr,
    cchCount2: i32,
) -> ApiResult<i32> {
    if lpString1.is_null() || lpString2.is_null() {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let a = S::read_counted(cx.proc, lpString1.0, cchCount1)?;
    let b = S::read_counted(cx.proc, lpString2.0, cchCount2)?;
    compare_result(cx, a, b, dwCmpFlags)
}

// ---- code pages -----------------------------------------------------------------------

pub const MB_PRECOMPOSED: u32 = 0x1;
pub const MB_COMPOSITE: u32 = 0x2;
pub const MB_USEGLYPHCHARS: u32 = 0x4;
pub const MB_ERR_INVALID_CHARS: u32 = 0x8;
pub const WC_COMPOSITECHECK: u32 = 0x200;
pub const WC_DISCARDNS: u32 = 0x10;
pub const WC_SEPCHARS: u32 = 0x20;
pub const WC_DEFAULTCHAR: u32 = 0x40;
pub const WC_ERR_INVALID_CHARS: u32 = 0x80;
pub const WC_NO_BEST_FIT_CHARS: u32 = 0x400;

/// Decodes bytes in `cp`; `None` if `strict` and the input is not valid UTF-8.
fn mb_to_wide(cp: CodePage, bytes: &[u8], strict: bool) -> Option<Vec<u16>> {
    match cp {
        CodePage::Utf8 => match std::str::from_utf8(bytes) {
            Ok(s) => Some(s.encode_utf16().collect()),
            Err(_) if strict => None,
            Err(_) => Some(String::from_utf8_lossy(bytes).encode_utf16().collect()),
        },
        _ => Some(bytes.iter().map(|&b| byte_to_unicode(cp, b)).collect()),
    }
}

pub fn MultiByteToWideChar(
    cx: &mut Ctx,
    CodePage: u32,
    dwFlags: u32,
    lpMultiByteStr: Ptr,
    cbMultiByte: i32,
    lpWideCharStr: Ptr,
    cchWideChar: i32,
) -> ApiResult<i32> {
    let Some(cp) = self::CodePage::from_arg(CodePage)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    if lpMultiByteStr.is_null() || cbMultiByte == 0 || cchWideChar < 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    if dwFlags & MB_COMPOSITE != 0 {
        return Err(ApiError::UnimplementedCase(
            "MultiByteToWideChar: MB_COMPOSITE".into(),
        ));
    }
    if dwFlags & !(MB_PRECOMPOSED | MB_USEGLYPHCHARS | MB_ERR_INVALID_CHARS) != 0
        || (cp == self::CodePage::Utf8 && dwFlags & !MB_ERR_INVALID_CHARS != 0)
    {
        set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
        return Ok(0);
    }
    // -1: NUL-terminated, and the NUL is converted too.
    let bytes = if cbMultiByte < 0 {
        let mut b = read_cbytes(cx.proc, lpMultiByteStr.0)?;
        b.push(0);
        b
    } else {
        let mut b = vec![0u8; cbMultiByte as usize];
        cx.proc.mem.read_bytes(lpMultiByteStr.0, &mut b)?;
        b
    };
    let Some(wide) = mb_to_wide(cp, &bytes, dwFlags & MB_ERR_INVALID_CHARS != 0) else {
        set_last_error(cx, err::ERROR_NO_UNICODE_TRANSLATION)?;
        return Ok(0);
    };
    if cchWideChar == 0 {
        return Ok(wide.len() as i32);
    }
    if wide.len() > cchWideChar as usize {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(0);
    }
    write_wide(cx.proc, lpWideCharStr.0, &wide)?;
    Ok(wide.len() as i32)
}

/// The precomposed character of `base` followed by the combining mark `mark`, for
/// the compositions of the Latin code pages (Unicode's canonical compositions).
fn compose(base: u16, mark: u16) -> Option<u16> {
    let b = u8::try_from(base).ok()?;
    let table: &[(u8, u16)] = match mark {
        0x0300 => &[
            (b'A', 0xc0),
            (b'E', 0xc8),
            (b'I', 0xcc),
            (b'O', 0xd2),
            (b'U', 0xd9),
            (b'a', 0xe0),
            (b'e', 0xe8),
            (b'i', 0xec),
            (b'o', 0xf2),
            (b'u', 0xf9),
        ],
        0x0301 => &[
            (b'A', 0xc1),
            (b'E', 0xc9),
            (b'I', 0xcd),
            (b'O', 0xd3),
            (b'U', 0xda),
            (b'Y', 0xdd),
            (b'a', 0xe1),
            (b'e', 0xe9),
            (b'i', 0xed),
            (b'o', 0xf3),
            (b'u', 0xfa),
            (b'y', 0xfd),
        ],
        0x0302 => &[
            (b'A', 0xc2),
            (b'E', 0xca),
            (b'I', 0xce),
            (b'O', 0xd4),
            (b'U', 0xdb),
            (b'a', 0xe2),
            (b'e', 0xea),
            (b'i', 0xee),
            (b'o', 0xf4),
            (b'u', 0xfb),
        ],
        0x0303 => &[
            (b'A', 0xc3),
            (b'N', 0xd1),
            (b'O', 0xd5),
            (b'a', 0xe3),
            (b'n', 0xf1),
            (b'o', 0xf5),
        ],
        0x0308 => &[
            (b'A', 0xc4),
            (b'E', 0xcb),
            (b'I', 0xcf),
            (b'O', 0xd6),
            (b'U', 0xdc),
            (b'Y', 0x178),
            (b'a', 0xe4),
            (b'e', 0xeb),
            (b'i', 0xef),
            (b'o', 0xf6),
            (b'u', 0xfc),
            (b'y', 0xff),
        ],
        0x030a => &[(b'A', 0xc5), (b'a', 0xe5)],
        0x0327 => &[(b'C', 0xc7), (b'c', 0xe7)],
        0x030c => &[(b'S', 0x160), (b's', 0x161), (b'Z', 0x17d), (b'z', 0x17e)],
        _ => return None,
    };
    table.iter().find(|(x, _)| *x == b).map(|(_, p)| *p)
}

fn is_nonspacing(u: u16) -> bool {
    (0x0300..=0x036f).contains(&u)
}

/// WC_COMPOSITECHECK: a base character followed by a nonspacing mark becomes the
/// precomposed character when the code page has it; otherwise the pair is handled
/// as the flags say: WC_DISCARDNS drops the mark, WC_DEFAULTCHAR turns the pair into
/// the default character (`None`), WC_SEPCHARS (the default) keeps both.
fn composite_check(cp: CodePage, wide: &[u16], flags: u32) -> Vec<Option<u16>> {
    let mut out = Vec::with_capacity(wide.len());
    let mut i = 0;
    while i < wide.len() {
        let u = wide[i];
        match wide.get(i + 1).copied().filter(|&m| is_nonspacing(m)) {
            Some(m) => {
                match compose(u, m).filter(|&p| unicode_to_byte(cp, p).is_some()) {
                    Some(p) => out.push(Some(p)),
                    None if flags & WC_DISCARDNS != 0 => out.push(Some(u)),
                    None if flags & WC_DEFAULTCHAR != 0 => out.push(None),
                    None => out.extend([Some(u), Some(m)]),
                }
                i += 2;
            }
            None => {
                out.push(Some(u));
                i += 1;
            }
        }
    }
    out
}

pub fn WideCharToMultiByte(
    cx: &mut Ctx,
    CodePage: u32,
    dwFlags: u32,
    lpWideCharStr: Ptr,
    cchWideChar: i32,
    lpMultiByteStr: Ptr,
    cbMultiByte: i32,
    lpDefaultChar: Ptr,
    lpUsedDefaultChar: Ptr,
) -> ApiResult<i32> {
    let Some(cp) = self::CodePage::from_arg(CodePage)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    if lpWideCharStr.is_null() || cchWideChar == 0 || cbMultiByte < 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    if cp == self::CodePage::Utf8 {
        if !lpDefaultChar.is_null() || !lpUsedDefaultChar.is_null() {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            return Ok(0);
        }
        if dwFlags & !WC_ERR_INVALID_CHARS != 0 {
            set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
            return Ok(0);
        }
    }
    let mut wide = if cchWideChar < 0 {
        read_wide(cx.proc, lpWideCharStr.0)?
    } else {
        counted_w(cx.proc, lpWideCharStr.0, cchWideChar)?
    };
    if cchWideChar < 0 {
        wide.push(0);
    }
    let mut used_default = false;
    let out: Vec<u8> = match cp {
        self::CodePage::Utf8 => {
            let mut s = String::new();
            for r in char::decode_utf16(wide.iter().copied()) {
                match r {
                    Ok(c) => s.push(c),
                    Err(_) if dwFlags & WC_ERR_INVALID_CHARS != 0 => {
                        set_last_error(cx, err::ERROR_NO_UNICODE_TRANSLATION)?;
                        return Ok(0);
                    }
                    Err(_) => s.push('\u{fffd}'),
                }
            }
            s.into_bytes()
        }
        _ => {
            let default = if lpDefaultChar.is_null() {
                b'?'
            } else {
                cx.proc.mem.read_u8(lpDefaultChar.0)?
            };
            let units = if dwFlags & WC_COMPOSITECHECK != 0 {
                composite_check(cp, &wide, dwFlags)
            } else {
                wide.iter().map(|&u| Some(u)).collect()
            };
            units
                .iter()
                .map(|&u| {
                    u.and_then(|u| unicode_to_byte(cp, u)).unwrap_or_else(|| {
                        used_default = true;
                        default
                    })
                })
                .collect()
        }
    };
    if !lpUsedDefaultChar.is_null() {
        cx.proc
            .mem
            .write_u32(lpUsedDefaultChar.0, used_default as u32)?;
    }
    if cbMultiByte == 0 {
        return Ok(out.len() as i32);
    }
    if out.len() > cbMultiByte as usize {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(0);
    }
    cx.proc.mem.write_bytes(lpMultiByteStr.0, &out)?;
    Ok(out.len() as i32)
}

pub fn GetACP(_cx: &mut Ctx) -> u32 {
    ANSI_CP
}

pub fn GetOEMCP(_cx: &mut Ctx) -> u32 {
    OEM_CP
}

pub fn IsValidCodePage(_cx: &mut Ctx, CodePage: u32) -> bool {
    matches!(CodePage, ANSI_CP | OEM_CP | CP_UTF8)
}

pub fn IsDBCSLeadByte(_cx: &mut Ctx, _TestChar: u8) -> bool {
    false
}

pub fn IsDBCSLeadByteEx(cx: &mut Ctx, CodePage: u32, _TestChar: u8) -> ApiResult<bool> {
    if self::CodePage::from_arg(CodePage)?.is_none() {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
    }
    Ok(false)
}

/// CPINFO: MaxCharSize, DefaultChar[2], LeadByte[12].
pub fn GetCPInfo(cx: &mut Ctx, CodePage: u32, lpCPInfo: Ptr) -> ApiResult<bool> {
    let Some(cp) = self::CodePage::from_arg(CodePage)? else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    };
    let mut b = [0u8; 20];
    let max = if cp == self::CodePage::Utf8 { 4u32 } else { 1 };
    b[..4].copy_from_slice(&max.to_le_bytes());
    b[4] = b'?';
    cx.proc.mem.write_bytes(lpCPInfo.0, &b)?;
    Ok(true)
}

// ---- character types and case ---------------------------------------------------------

pub const CT_CTYPE1: u32 = 1;
pub const CT_CTYPE2: u32 = 2;
pub const CT_CTYPE3: u32 = 4;
pub const C1_UPPER: u16 = 0x1;
pub const C1_LOWER: u16 = 0x2;
pub const C1_DIGIT: u16 = 0x4;
pub const C1_SPACE: u16 = 0x8;
pub const C1_PUNCT: u16 = 0x10;
pub const C1_CNTRL: u16 = 0x20;
pub const C1_BLANK: u16 = 0x40;
pub const C1_XDIGIT: u16 = 0x80;
pub const C1_ALPHA: u16 = 0x100;
pub const C1_DEFINED: u16 = 0x200;

/// CT_CTYPE1 bits of a UTF-16 unit.
pub fn ctype1(u: u16) -> u16 {
    let Some(c) = char::from_u32(u as u32) else {
        return 0;
    };
    let mut t = C1_DEFINED;
    if c.is_control() {
        t |= C1_CNTRL;
    }
    if matches!(
        c,
        ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{a0}'
    ) || c.is_whitespace()
    {
        t |= C1_SPACE;
    }
    if matches!(c, ' ' | '\t' | '\u{a0}') {
        t |= C1_BLANK;
    }
    if c.is_ascii_digit() || matches!(c, '²' | '³' | '¹') {
        t |= C1_DIGIT;
    }
    if c.is_ascii_hexdigit() {
        t |= C1_XDIGIT;
    }
    if c.is_alphabetic() {
        t |= C1_ALPHA;
        if c.is_uppercase() {
            t |= C1_UPPER;
        } else if c.is_lowercase() {
            t |= C1_LOWER;
        }
    } else if !c.is_control()
        && !c.is_whitespace()
        && !c.is_ascii_digit()
        && !matches!(c, '²' | '³' | '¹')
    {
        t |= C1_PUNCT;
    }
    t
}

/// CT_CTYPE2 (bidirectional class) for left-to-right scripts: letters are strong
/// left-to-right, digits European numbers, the rest neutral or separators.
fn ctype2(u: u16) -> u16 {
    const C2_LEFTTORIGHT: u16 = 1;
    const C2_EUROPENUMBER: u16 = 3;
    const C2_EUROPESEPARATOR: u16 = 4;
    const C2_EUROPETERMINATOR: u16 = 5;
    const C2_COMMONSEPARATOR: u16 = 7;
    const C2_BLOCKSEPARATOR: u16 = 8;
    const C2_SEGMENTSEPARATOR: u16 = 9;
    const C2_WHITESPACE: u16 = 10;
    const C2_OTHERNEUTRAL: u16 = 11;
    let c = char::from_u32(u as u32).unwrap_or('\u{fffd}');
    match c {
        '0'..='9' | '²' | '³' | '¹' => C2_EUROPENUMBER,
        '+' | '-' => C2_EUROPESEPARATOR,
        '#' | '$' | '%' | '¢' | '£' | '¤' | '¥' | '°' | '±' => C2_EUROPETERMINATOR,
        ',' | '.' | ':' | '/' | '\u{a0}' => C2_COMMONSEPARATOR,
        '\n' | '\r' | '\u{1c}'..='\u{1e}' | '\u{85}' => C2_BLOCKSEPARATOR,
        '\t' | '\u{b}' | '\u{1f}' => C2_SEGMENTSEPARATOR,
        ' ' | '\u{c}' => C2_WHITESPACE,
        _ if c.is_alphabetic() => C2_LEFTTORIGHT,
        _ if c.is_control() => 0,
        _ => C2_OTHERNEUTRAL,
    }
}

fn string_types(cx: &mut Ctx, info: u32, units: &[u16], out: u32) -> ApiResult<bool> {
    let f: fn(u16) -> u16 = match info {
        CT_CTYPE1 => ctype1,
        CT_CTYPE2 => ctype2,
        CT_CTYPE3 => {
            return Err(ApiError::UnimplementedCase(
                "GetStringType: CT_CTYPE3".into(),
            ));
        }
        _ => {
            set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
            return Ok(false);
        }
    };
    let types: Vec<u16> = units.iter().map(|&u| f(u)).collect();
    write_wide(cx.proc, out, &types)?;
    Ok(true)
}

pub fn GetStringTypeW(
    cx: &mut Ctx,
    dwInfoType: u32,
    lpSrcStr: Ptr,
    cchSrc: i32,
    lpCharType: Ptr,
) -> ApiResult<bool> {
    let mut units = counted_w(cx.proc, lpSrcStr.0, cchSrc)?;
    if cchSrc < 0 {
        units.push(0);
    }
    string_types(cx, dwInfoType, &units, lpCharType.0)
}

pub fn GetStringTypeA(
    cx: &mut Ctx,
    _Locale: u32,
    dwInfoType: u32,
    lpSrcStr: Ptr,
    cchSrc: i32,
    lpCharType: Ptr,
) -> ApiResult<bool> {
    let mut units = counted_a(cx.proc, lpSrcStr.0, cchSrc)?;
    if cchSrc < 0 {
        units.push(0);
    }
    string_types(cx, dwInfoType, &units, lpCharType.0)
}

pub fn GetStringTypeExA(
    cx: &mut Ctx,
    Locale: u32,
    dwInfoType: u32,
    lpSrcStr: Ptr,
    cchSrc: i32,
    lpCharType: Ptr,
) -> ApiResult<bool> {
    GetStringTypeA(cx, Locale, dwInfoType, lpSrcStr, cchSrc, lpCharType)
}

pub fn GetStringTypeExW(
    cx: &mut Ctx,
    _Locale: u32,
    dwInfoType: u32,
    lpSrcStr: Ptr,
    cchSrc: i32,
    lpCharType: Ptr,
) -> ApiResult<bool> {
    GetStringTypeW(cx, dwInfoType, lpSrcStr, cchSrc, lpCharType)
}

/// One-to-one case mapping of a UTF-16 unit (characters whose other case is not a
/// single BMP character stay as they are).
pub fn upper_unit(u: u16) -> u16 {
    map_case(u, true)
}

pub fn lower_unit(u: u16) -> u16 {
    map_case(u, false)
}

fn map_case(u: u16, upper: bool) -> u16 {
    // Windows' case table leaves the micro sign and the florin sign alone (Unicode
    // upper-cases them to Greek capital mu and F with hook, outside every ANSI code
    // page); the MSVC C runtime's ctype tables, built through LCMapString, rely on it.
    if upper && matches!(u, 0x00b5 | 0x0192) {
        return u;
    }
    let Some(c) = char::from_u32(u as u32) else {
        return u;
    };
    let mut it: Box<dyn Iterator<Item = char>> = if upper {
        Box::new(c.to_uppercase())
    } else {
        Box::new(c.to_lowercase())
    };
    match (it.next(), it.next()) {
        (Some(m), None) if (m as u32) < 0x1_0000 => m as u16,
        _ => u,
    }
}

/// Case mapping of a 1252 byte; the result must exist in 1252 too.
pub fn map_case_ansi(b: u8, upper: bool) -> u8 {
    let u = map_case(byte_to_unicode(CodePage::Ansi1252, b), upper);
    unicode_to_byte(CodePage::Ansi1252, u).unwrap_or(b)
}

pub const LCMAP_LOWERCASE: u32 = 0x100;
pub const LCMAP_UPPERCASE: u32 = 0x200;
pub const LCMAP_SORTKEY: u32 = 0x400;
pub const LCMAP_BYTEREV: u32 = 0x800;

fn lcmap(cx: &mut Ctx, flags: u32, units: Vec<u16>) -> ApiResult<Option<Vec<u16>>> {
    let case = flags & (LCMAP_LOWERCASE | LCMAP_UPPERCASE);
    if flags & (LCMAP_SORTKEY | LCMAP_BYTEREV) != 0 || flags & !(case | COMPARE_FLAGS) != 0 {
        if flags & (LCMAP_SORTKEY | LCMAP_BYTEREV) != 0 {
            return Err(ApiError::UnimplementedCase(format!(
                "LCMapString: flags {flags:#x} (sort keys / byte reversal)"
            )));
        }
        set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
        return Ok(None);
    }
    if case == LCMAP_LOWERCASE | LCMAP_UPPERCASE {
        set_last_error(cx, err::ERROR_INVALID_FLAGS)?;
        return Ok(None);
    }
    Ok(Some(
        units
            .into_iter()
            .map(|u| match case {
                LCMAP_LOWERCASE => lower_unit(u),
                LCMAP_UPPERCASE => upper_unit(u),
                _ => u,
            })
            .collect(),
    ))
}

pub fn LCMapString<S: GuestStr>(
    cx: &mut Ctx,
    _Locale: u32,
    dwMapFlags: u32,
    lpSrcStr: Ptr,
    cchSrc: i32,
    lpDestStr: Ptr,
    cchDest: i32,
) -> ApiResult<i32> {
    if lpSrcStr.is_null() || cchSrc == 0 || cchDest < 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let mut units = S::read_counted(cx.proc, lpSrcStr.0, cchSrc)?;
    if cchSrc < 0 {
        units.push(0);
    }
    let Some(out) = lcmap(cx, dwMapFlags, units)? else {
        return Ok(0);
    };
    // One 1252 byte or one UTF-16 unit per unit of `out`.
    if cchDest == 0 {
        return Ok(out.len() as i32);
    }
    if out.len() > cchDest as usize {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(0);
    }
    cx.proc
        .mem
        .write_bytes(lpDestStr.0, &S::encode_units(&out))?;
    Ok(out.len() as i32)
}

// ---- USER32 CharUpper/CharLower ---------------------------------------------------------

/// CharUpperA/CharLowerA: a pointer whose high word is 0 is a single character,
/// converted and returned; otherwise the string is converted in place.
fn char_case_a(cx: &mut Ctx, p: u32, upper: bool) -> ApiResult<u32> {
    if p >> 16 == 0 {
        return Ok(map_case_ansi(p as u8, upper) as u32);
    }
    let s: Vec<u8> = read_cbytes(cx.proc, p)?
        .into_iter()
        .map(|b| map_case_ansi(b, upper))
        .collect();
    cx.proc.mem.write_bytes(p, &s)?;
    Ok(p)
}

fn char_case_w(cx: &mut Ctx, p: u32, upper: bool) -> ApiResult<u32> {
    if p >> 16 == 0 {
        return Ok(map_case(p as u16, upper) as u32);
    }
    let s: Vec<u16> = read_wide(cx.proc, p)?
        .into_iter()
        .map(|u| map_case(u, upper))
        .collect();
    write_wide(cx.proc, p, &s)?;
    Ok(p)
}

pub fn CharUpperA(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    char_case_a(cx, lpsz, true)
}
pub fn CharLowerA(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    char_case_a(cx, lpsz, false)
}
pub fn CharUpperW(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    char_case_w(cx, lpsz, true)
}
pub fn CharLowerW(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    char_case_w(cx, lpsz, false)
}

fn buff_case_a(cx: &mut Ctx, p: u32, n: u32, upper: bool) -> ApiResult<u32> {
    let mut b = vec![0u8; n as usize];
    cx.proc.mem.read_bytes(p, &mut b)?;
    for x in b.iter_mut() {
        *x = map_case_ansi(*x, upper);
    }
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(n)
}

pub fn CharUpperBuffA(cx: &mut Ctx, lpsz: u32, cchLength: u32) -> ApiResult<u32> {
    buff_case_a(cx, lpsz, cchLength, true)
}
pub fn CharLowerBuffA(cx: &mut Ctx, lpsz: u32, cchLength: u32) -> ApiResult<u32> {
    buff_case_a(cx, lpsz, cchLength, false)
}

/// USER32's string functions (CharUpper/CharLower and their buffer forms), for the
/// USER32 module to include in its exports.
/// IsCharAlpha/IsCharAlphaNumeric/IsCharUpper/IsCharLower: the CT_CTYPE1 class of
/// a character (an ANSI one is converted from code page 1252 first).
fn char_class(u: u16, mask: u16) -> bool {
    ctype1(u) & mask != 0
}

fn ansi_unit(c: u8) -> u16 {
    byte_to_unicode(CodePage::Ansi1252, c)
}

pub fn IsCharAlphaW(_cx: &mut Ctx, ch: u16) -> bool {
    char_class(ch, C1_ALPHA)
}
pub fn IsCharAlphaNumericW(_cx: &mut Ctx, ch: u16) -> bool {
    char_class(ch, C1_ALPHA | C1_DIGIT)
}
pub fn IsCharUpperW(_cx: &mut Ctx, ch: u16) -> bool {
    char_class(ch, C1_UPPER)
}
pub fn IsCharLowerW(_cx: &mut Ctx, ch: u16) -> bool {
    char_class(ch, C1_LOWER)
}
pub fn IsCharAlphaA(_cx: &mut Ctx, ch: u8) -> bool {
    char_class(ansi_unit(ch), C1_ALPHA)
}
pub fn IsCharAlphaNumericA(_cx: &mut Ctx, ch: u8) -> bool {
    char_class(ansi_unit(ch), C1_ALPHA | C1_DIGIT)
}
pub fn IsCharUpperA(_cx: &mut Ctx, ch: u8) -> bool {
    char_class(ansi_unit(ch), C1_UPPER)
}
pub fn IsCharLowerA(_cx: &mut Ctx, ch: u8) -> bool {
    char_class(ansi_unit(ch), C1_LOWER)
}

/// Converts `n` bytes (up to the NUL when `n` is None) between the OEM (437) and
/// ANSI (1252) code pages in place or into `dst`, through Unicode. A character the
/// target code page lacks becomes '?', as without best-fit tables.
fn convert_cp(
    cx: &mut Ctx,
    src: u32,
    dst: u32,
    n: Option<u32>,
    from: CodePage,
    to: CodePage,
) -> ApiResult<bool> {
    if src == 0 || dst == 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let bytes = match n {
        Some(n) => {
            let mut b = vec![0u8; n as usize];
            cx.proc.mem.read_bytes(src, &mut b)?;
            b
        }
        None => {
            let mut b = read_cbytes(cx.proc, src)?;
            b.push(0);
            b
        }
    };
    let out: Vec<u8> = bytes
        .iter()
        .map(|&b| unicode_to_byte(to, byte_to_unicode(from, b)).unwrap_or(b'?'))
        .collect();
    cx.proc.mem.write_bytes(dst, &out)?;
    Ok(true)
}

pub fn OemToCharA(cx: &mut Ctx, pSrc: Ptr, pDst: Ptr) -> ApiResult<bool> {
    convert_cp(
        cx,
        pSrc.0,
        pDst.0,
        None,
        CodePage::Oem437,
        CodePage::Ansi1252,
    )
}

pub fn CharToOemA(cx: &mut Ctx, pSrc: Ptr, pDst: Ptr) -> ApiResult<bool> {
    convert_cp(
        cx,
        pSrc.0,
        pDst.0,
        None,
        CodePage::Ansi1252,
        CodePage::Oem437,
    )
}

pub fn OemToCharBuffA(
    cx: &mut Ctx,
    lpszSrc: Ptr,
    lpszDst: Ptr,
    cchDstLength: u32,
) -> ApiResult<bool> {
    convert_cp(
        cx,
        lpszSrc.0,
        lpszDst.0,
        Some(cchDstLength),
        CodePage::Oem437,
        CodePage::Ansi1252,
    )
}

pub fn CharToOemBuffA(
    cx: &mut Ctx,
    lpszSrc: Ptr,
    lpszDst: Ptr,
    cchDstLength: u32,
) -> ApiResult<bool> {
    convert_cp(
        cx,
        lpszSrc.0,
        lpszDst.0,
        Some(cchDstLength),
        CodePage::Ansi1252,
        CodePage::Oem437,
    )
}

pub fn user32_string_exports() -> Vec<ApiDef> {
    vec![
        stdcall("OemToCharA", OemToCharA),
        stdcall("CharToOemA", CharToOemA),
        stdcall("OemToCharBuffA", OemToCharBuffA),
        stdcall("CharToOemBuffA", CharToOemBuffA),
        stdcall("IsCharAlphaW", IsCharAlphaW),
        stdcall("IsCharAlphaNumericW", IsCharAlphaNumericW),
        stdcall("IsCharUpperW", IsCharUpperW),
        stdcall("IsCharLowerW", IsCharLowerW),
        stdcall("IsCharAlphaA", IsCharAlphaA),
        stdcall("IsCharAlphaNumericA", IsCharAlphaNumericA),
        stdcall("IsCharUpperA", IsCharUpperA),
        stdcall("IsCharLowerA", IsCharLowerA),
        stdcall("CharUpperA", CharUpperA),
        stdcall("CharLowerA", CharLowerA),
        stdcall("CharUpperW", CharUpperW),
        stdcall("CharLowerW", CharLowerW),
        stdcall("CharUpperBuffA", CharUpperBuffA),
        stdcall("CharLowerBuffA", CharLowerBuffA),
    ]
}

// ---- FormatMessage ------------------------------------------------------------------------

const FORMAT_MESSAGE_ALLOCATE_BUFFER: u32 = 0x100;
const FORMAT_MESSAGE_IGNORE_INSERTS: u32 = 0x200;
const FORMAT_MESSAGE_FROM_STRING: u32 = 0x400;
const FORMAT_MESSAGE_FROM_HMODULE: u32 = 0x800;
const FORMAT_MESSAGE_FROM_SYSTEM: u32 = 0x1000;
const FORMAT_MESSAGE_ARGUMENT_ARRAY: u32 = 0x2000;
const FORMAT_MESSAGE_MAX_WIDTH_MASK: u32 = 0xff;

/// System message texts (English), as Windows words them.
pub fn system_message(code: u32) -> Option<&'static str> {
    Some(match code {
        0 => "The operation completed successfully.\r\n",
        1 => "Incorrect function.\r\n",
        2 => "The system cannot find the file specified.\r\n",
        3 => "The system cannot find the path specified.\r\n",
        4 => "The system cannot open the file.\r\n",
        5 => "Access is denied.\r\n",
        6 => "The handle is invalid.\r\n",
        8 => "Not enough storage is available to process this command.\r\n",
        13 => "The data is invalid.\r\n",
        14 => "Not enough storage is available to complete this operation.\r\n",
        15 => "The system cannot find the drive specified.\r\n",
        16 => "The directory cannot be removed.\r\n",
        17 => "The system cannot move the file to a different disk drive.\r\n",
        18 => "There are no more files.\r\n",
        19 => "The media is write protected.\r\n",
        21 => "The device is not ready.\r\n",
        32 => "The process cannot access the file because it is being used by another process.\r\n",
        33 => {
            "The process cannot access the file because another process has locked a portion of the file.\r\n"
        }
        38 => "Reached the end of the file.\r\n",
        50 => "The request is not supported.\r\n",
        80 => "The file exists.\r\n",
        82 => "The directory or file cannot be created.\r\n",
        87 => "The parameter is incorrect.\r\n",
        109 => "The pipe has been ended.\r\n",
        112 => "There is not enough space on the disk.\r\n",
        120 => "This function is not supported on this system.\r\n",
        122 => "The data area passed to a system call is too small.\r\n",
        123 => "The filename, directory name, or volume label syntax is incorrect.\r\n",
        126 => "The specified module could not be found.\r\n",
        127 => "The specified procedure could not be found.\r\n",
        131 => "An attempt was made to move the file pointer before the beginning of the file.\r\n",
        145 => "The directory is not empty.\r\n",
        158 => "The segment is already unlocked.\r\n",
        183 => "Cannot create a file when that file already exists.\r\n",
        203 => "The system could not find the environment option that was entered.\r\n",
        206 => "The filename or extension is too long.\r\n",
        234 => "More data is available.\r\n",
        267 => "The directory name is invalid.\r\n",
        487 => "Attempt to access invalid address.\r\n",
        998 => "Invalid access to memory location.\r\n",
        _ => return None,
    })
}

/// Expands FormatMessage inserts: `%1`..`%99` (with `!s!`, `!d!`, `!u!`, `!x!`,
/// `!X!`, `!c!` or `!lu!`-style formats), `%0`, `%n`, `%%`, `%.`, `%!`, `% `, `%t`.
/// `arg(k)` gives the k-th (1-based) argument dword; `text(p)` reads a string.
fn expand_inserts(
    msg: &str,
    wide_fn: bool,
    ignore_inserts: bool,
    mut arg: impl FnMut(u32) -> ApiResult<u32>,
    mut text: impl FnMut(u32, Option<bool>) -> ApiResult<String>,
    mut printf_insert: impl FnMut(u32, &str) -> ApiResult<String>,
) -> ApiResult<String> {
    let mut out = String::new();
    let cs: Vec<char> = msg.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        i += 1;
        if c != '%' || i >= cs.len() {
            out.push(c);
            continue;
        }
        let d = cs[i];
        i += 1;
        match d {
            '0' => return Ok(out),
            'n' => out.push_str("\r\n"),
            't' => out.push('\t'),
            ' ' => out.push(' '),
            '%' | '.' | '!' => out.push(d),
            '1'..='9' => {
                let mut n = d.to_digit(10).unwrap_or(0);
                if i < cs.len()
                    && let Some(e) = cs[i].to_digit(10)
                {
                    n = n * 10 + e;
                    i += 1;
                }
                let mut fmt = String::from("s");
                if i < cs.len() && cs[i] == '!' {
                    let end = cs[i + 1..]
                        .iter()
                        .position(|&x| x == '!')
                        .map(|k| i + 1 + k);
                    if let Some(end) = end {
                        fmt = cs[i + 1..end].iter().collect();
                        i = end + 1;
                    }
                }
                if ignore_inserts {
                    out.push('%');
                    out.push_str(&n.to_string());
                    if fmt != "s" {
                        out.push_str(&format!("!{fmt}!"));
                    }
                    continue;
                }
                let v = arg(n)?;
                let f = fmt.trim_start_matches(['l', 'h']);
                match f {
                    // `text(p, Some(wide))`: an explicit width (`hs`, `ls`, and `S`,
                    // the other width than the function's own); None: the own.
                    "s" if fmt.starts_with('h') => out.push_str(&text(v, Some(false))?),
                    "s" if fmt.starts_with('l') => out.push_str(&text(v, Some(true))?),
                    "s" => out.push_str(&text(v, None)?),
                    "S" => out.push_str(&text(v, Some(!wide_fn))?),
                    "d" | "i" => out.push_str(&(v as i32).to_string()),
                    "u" => out.push_str(&v.to_string()),
                    "x" => out.push_str(&format!("{v:x}")),
                    "X" => out.push_str(&format!("{v:X}")),
                    "c" => out.push(char::from_u32(v & 0xff).unwrap_or('?')),
                    // Widths, precisions and other conversions: printf's rules.
                    _ => out.push_str(&printf_insert(n, &fmt)?),
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// FormatMessageA/W: `wide` selects UTF-16 for the template, `!s!` inserts, the
/// output and nSize (in characters).
fn format_message(
    cx: &mut Ctx,
    wide: bool,
    dwFlags: u32,
    lpSource: Ptr,
    dwMessageId: u32,
    lpBuffer: Ptr,
    nSize: u32,
    Arguments: Ptr,
) -> ApiResult<u32> {
    let name = if wide {
        "FormatMessageW"
    } else {
        "FormatMessageA"
    };
    if dwFlags & FORMAT_MESSAGE_FROM_HMODULE != 0 && dwFlags & FORMAT_MESSAGE_FROM_SYSTEM == 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "{name}: FORMAT_MESSAGE_FROM_HMODULE (message tables)"
        )));
    }
    if dwFlags & FORMAT_MESSAGE_MAX_WIDTH_MASK != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "{name}: line width control"
        )));
    }
    let read = |proc: &Process, p: u32| {
        if wide {
            read_wstr(proc, p)
        } else {
            read_ansi(proc, p)
        }
    };
    let template = if dwFlags & FORMAT_MESSAGE_FROM_STRING != 0 {
        read(cx.proc, lpSource.0)?
    } else if dwFlags & FORMAT_MESSAGE_FROM_SYSTEM != 0 {
        match system_message(dwMessageId) {
            Some(m) => m.to_string(),
            None => {
                set_last_error(cx, err::ERROR_MR_MID_NOT_FOUND)?;
                return Ok(0);
            }
        }
    } else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    let ignore = dwFlags & FORMAT_MESSAGE_IGNORE_INSERTS != 0 || Arguments.is_null();
    let proc = cx.proc.clone();
    // Without ARGUMENT_ARRAY, Arguments is a va_list*: a pointer to the dwords.
    let base = if dwFlags & FORMAT_MESSAGE_ARGUMENT_ARRAY != 0 || ignore {
        Arguments.0
    } else {
        proc.mem.read_u32(Arguments.0)?
    };
    let text = expand_inserts(
        &template,
        wide,
        ignore,
        |k| Ok(proc.mem.read_u32(base + 4 * (k - 1))?),
        |p, w| match w {
            None => read(&proc, p),
            Some(true) => read_wstr(&proc, p),
            Some(false) => read_ansi(&proc, p),
        },
        |k, fmt| {
            // The insert's arguments start at its own slot (a `*` width takes the
            // slots after it, as FormatMessage numbers them).
            let spec: Vec<u16> = format!("%{fmt}").encode_utf16().collect();
            let mut args = crate::msvcrt::printf::GuestArgs {
                mem: &proc.mem,
                ptr: base + 4 * (k - 1),
            };
            let units = crate::msvcrt::printf::format(&spec, wide, &mut args)?;
            Ok(String::from_utf16_lossy(&units))
        },
    )?;
    // The output with its NUL, and its length in characters without it.
    let (mut out, len, unit) = if wide {
        let units: Vec<u16> = text.encode_utf16().collect();
        let b: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        (b, units.len() as u32, 2u32)
    } else {
        let b = encode_ansi(&text);
        let n = b.len() as u32;
        (b, n, 1u32)
    };
    out.extend(std::iter::repeat_n(0u8, unit as usize));
    if dwFlags & FORMAT_MESSAGE_ALLOCATE_BUFFER != 0 {
        // LocalFree releases it: local memory is the process heap.
        let heap = super::heap::process_heap(cx.proc)?;
        let p = heap.alloc((out.len() as u32).max(nSize.saturating_mul(unit)), false)?;
        if p == 0 {
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
            return Ok(0);
        }
        cx.proc.mem.write_bytes(p, &out)?;
        cx.proc.mem.write_u32(lpBuffer.0, p)?;
        return Ok(len);
    }
    if len >= nSize {
        set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(0);
    }
    cx.proc.mem.write_bytes(lpBuffer.0, &out)?;
    Ok(len)
}

pub fn FormatMessage<S: GuestStr>(
    cx: &mut Ctx,
    dwFlags: u32,
    lpSource: Ptr,
    dwMessageId: u32,
    _dwLanguageId: u32,
    lpBuffer: Ptr,
    nSize: u32,
    Arguments: Ptr,
) -> ApiResult<u32> {
    format_message(
        cx,
        S::WIDE,
        dwFlags,
        lpSource,
        dwMessageId,
        lpBuffer,
        nSize,
        Arguments,
    )
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("lstrlenA", lstrlenA),
        stdcall("lstrlenW", lstrlenW),
        stdcall("lstrcpyA", lstrcpyA),
        stdcall("lstrcpyW", lstrcpyW),
        stdcall("lstrcpynA", lstrcpynA),
        stdcall("lstrcpynW", lstrcpynW),
        stdcall("lstrcatA", lstrcatA),
        stdcall("lstrcatW", lstrcatW),
        stdcall("lstrcmpA", lstrcmp::<CStrPtr>),
        stdcall("lstrcmpW", lstrcmp::<WStrPtr>),
        stdcall("lstrcmpiA", lstrcmpi::<CStrPtr>),
        stdcall("lstrcmpiW", lstrcmpi::<WStrPtr>),
        stdcall("CompareStringA", CompareString::<CStrPtr>),
        stdcall("CompareStringW", CompareString::<WStrPtr>),
        stdcall("MultiByteToWideChar", MultiByteToWideChar),
        stdcall("WideCharToMultiByte", WideCharToMultiByte),
        stdcall("GetACP", GetACP),
        stdcall("GetOEMCP", GetOEMCP),
        stdcall("IsValidCodePage", IsValidCodePage),
        stdcall("IsDBCSLeadByte", IsDBCSLeadByte),
        stdcall("IsDBCSLeadByteEx", IsDBCSLeadByteEx),
        stdcall("GetCPInfo", GetCPInfo),
        stdcall("GetStringTypeA", GetStringTypeA),
        stdcall("GetStringTypeW", GetStringTypeW),
        stdcall("GetStringTypeExA", GetStringTypeExA),
        stdcall("GetStringTypeExW", GetStringTypeExW),
        stdcall("LCMapStringA", LCMapString::<CStrPtr>),
        stdcall("LCMapStringW", LCMapString::<WStrPtr>),
    ];
    v.extend(stdcall_aw![FormatMessage,]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn composite_check_composes_or_follows_the_flags() {
        let cp = CodePage::Ansi1252;
        // "e" + COMBINING ACUTE is é (0xE9) in 1252; plain text passes unchanged.
        let w = [b'e' as u16, 0x0301, b'x' as u16];
        assert_eq!(
            composite_check(cp, &w, WC_COMPOSITECHECK | WC_SEPCHARS),
            vec![Some(0xe9), Some(b'x' as u16)]
        );
        // "q" + acute has no precomposed form: kept apart, dropped, or the default.
        let q = [b'q' as u16, 0x0301];
        assert_eq!(
            composite_check(cp, &q, WC_COMPOSITECHECK | WC_SEPCHARS),
            vec![Some(b'q' as u16), Some(0x0301)]
        );
        assert_eq!(
            composite_check(cp, &q, WC_COMPOSITECHECK | WC_DISCARDNS),
            vec![Some(b'q' as u16)]
        );
        assert_eq!(
            composite_check(cp, &q, WC_COMPOSITECHECK | WC_DEFAULTCHAR),
            vec![None]
        );
        // S + caron is Š, which 1252 has at 0x8A.
        assert_eq!(
            composite_check(cp, &[b'S' as u16, 0x030c], WC_COMPOSITECHECK),
            vec![Some(0x160)]
        );
        assert_eq!(unicode_to_byte(cp, 0x160), Some(0x8a));
    }

    #[test]
    fn code_page_tables_match_the_published_mappings() {
        // Windows-1252: 0x80 is the euro sign, 0x9F is Ÿ, 0xE9 is é.
        assert_eq!(byte_to_unicode(CodePage::Ansi1252, 0x80), 0x20ac);
        assert_eq!(byte_to_unicode(CodePage::Ansi1252, 0x9f), 0x0178);
        assert_eq!(byte_to_unicode(CodePage::Ansi1252, 0xe9), 0x00e9);
        // Code page 437: 0x82 é, 0x9B ¢, 0xB0 ░, 0xDB █, 0xE1 ß, 0xFF no-break space.
        assert_eq!(CP437_HIGH.chars().count(), 128);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0x82), 0x00e9);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0x9b), 0x00a2);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0xb0), 0x2591);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0xdb), 0x2588);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0xe1), 0x00df);
        assert_eq!(byte_to_unicode(CodePage::Oem437, 0xff), 0x00a0);
        for b in 0..=255u8 {
            for cp in [CodePage::Ansi1252, CodePage::Oem437] {
                assert_eq!(unicode_to_byte(cp, byte_to_unicode(cp, b)), Some(b));
            }
        }
    }

    #[test]
    fn multibyte_to_wide_and_back() {
        let mut h = Harness::new();
        let buf = h.scratch(0x1000);
        h.proc.mem.write_bytes(buf, b"\x80uro\xe9\0").unwrap();
        let out = buf + 0x100;
        // Size query counts the NUL when the length is -1.
        assert_eq!(
            MultiByteToWideChar(&mut h.cx(), CP_ACP, 0, Ptr(buf), -1, Ptr(0), 0).unwrap(),
            6
        );
        assert_eq!(
            MultiByteToWideChar(&mut h.cx(), CP_ACP, 0, Ptr(buf), -1, Ptr(out), 6).unwrap(),
            6
        );
        assert_eq!(h.wstr(out), "€uroé");
        assert_eq!(
            MultiByteToWideChar(&mut h.cx(), CP_ACP, 0, Ptr(buf), -1, Ptr(out), 5).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INSUFFICIENT_BUFFER);
        // UTF-8, counted (no NUL written).
        h.proc.mem.write_bytes(buf, "é€".as_bytes()).unwrap();
        assert_eq!(
            MultiByteToWideChar(&mut h.cx(), CP_UTF8, 0, Ptr(buf), 5, Ptr(out), 10).unwrap(),
            2
        );
        assert_eq!(h.proc.mem.read_u16(out).unwrap(), 0xe9);
        assert_eq!(h.proc.mem.read_u16(out + 2).unwrap(), 0x20ac);
        h.proc.mem.write_bytes(buf, b"\xff\xfe").unwrap();
        assert_eq!(
            MultiByteToWideChar(
                &mut h.cx(),
                CP_UTF8,
                MB_ERR_INVALID_CHARS,
                Ptr(buf),
                2,
                Ptr(out),
                10
            )
            .unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_NO_UNICODE_TRANSLATION);
        assert!(MultiByteToWideChar(&mut h.cx(), CP_UTF7, 0, Ptr(buf), 2, Ptr(out), 10).is_err());

        h.put_wstr(buf, "aĀ€");
        let used = buf + 0x200;
        assert_eq!(
            WideCharToMultiByte(
                &mut h.cx(),
                CP_ACP,
                0,
                Ptr(buf),
                -1,
                Ptr(out),
                16,
                Ptr(0),
                Ptr(used)
            )
            .unwrap(),
            4
        );
        assert_eq!(h.proc.mem.read_cstr(out, 16).unwrap(), b"a?\x80");
        assert_eq!(h.u32(used), 1);
        assert_eq!(
            WideCharToMultiByte(
                &mut h.cx(),
                CP_UTF8,
                0,
                Ptr(buf),
                -1,
                Ptr(out),
                0,
                Ptr(0),
                Ptr(0)
            )
            .unwrap(),
            1 + 2 + 3 + 1
        );
        assert_eq!(
            WideCharToMultiByte(
                &mut h.cx(),
                CP_UTF8,
                0,
                Ptr(buf),
                -1,
                Ptr(out),
                16,
                Ptr(0),
                Ptr(used)
            )
            .unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
    }

    #[test]
    fn lstr_functions() {
        let mut h = Harness::new();
        let a = h.scratch(0x1000);
        let b = a + 0x100;
        h.put_cstr(b, "hello");
        assert_eq!(lstrlenA(&mut h.cx(), CStrPtr(b)).unwrap(), 5);
        assert_eq!(lstrlenA(&mut h.cx(), CStrPtr(0)).unwrap(), 0);
        assert_eq!(lstrcpyA(&mut h.cx(), Ptr(a), CStrPtr(b)).unwrap(), a);
        assert_eq!(h.cstr(a), "hello");
        lstrcatA(&mut h.cx(), Ptr(a), CStrPtr(b)).unwrap();
        assert_eq!(h.cstr(a), "hellohello");
        // lstrcpyn copies at most n-1 characters and always terminates.
        lstrcpynA(&mut h.cx(), Ptr(a), CStrPtr(b), 3).unwrap();
        assert_eq!(h.cstr(a), "he");
        h.put_wstr(b, "wide");
        lstrcpynW(&mut h.cx(), Ptr(a), WStrPtr(b), 10).unwrap();
        assert_eq!(h.wstr(a), "wide");
        assert_eq!(lstrlenW(&mut h.cx(), WStrPtr(a)).unwrap(), 4);
        lstrcatW(&mut h.cx(), Ptr(a), WStrPtr(b)).unwrap();
        assert_eq!(h.wstr(a), "widewide");
    }

    fn cmp(h: &mut Harness, x: &str, y: &str, insensitive: bool) -> i32 {
        let a = h.scratch(0x1000);
        h.put_cstr(a, x);
        h.put_cstr(a + 0x800, y);
        if insensitive {
            lstrcmpi::<CStrPtr>(&mut h.cx(), CStrPtr(a), CStrPtr(a + 0x800)).unwrap()
        } else {
            lstrcmp::<CStrPtr>(&mut h.cx(), CStrPtr(a), CStrPtr(a + 0x800)).unwrap()
        }
    }

    #[test]
    fn comparisons_follow_the_word_sort() {
        let mut h = Harness::new();
        assert_eq!(cmp(&mut h, "abc", "ABC", true), 0);
        assert_eq!(cmp(&mut h, "abc", "ABD", true), -1);
        // Lower case sorts before upper case; letters sort alphabetically first.
        assert_eq!(cmp(&mut h, "a", "A", false), -1);
        assert_eq!(cmp(&mut h, "B", "a", false), 1);
        assert_eq!(cmp(&mut h, "Zebra", "apple", false), 1);
        // Punctuation before digits before letters.
        assert_eq!(cmp(&mut h, "!", "1", false), -1);
        assert_eq!(cmp(&mut h, "9", "a", false), -1);
        // Word sort gives the hyphen no primary weight.
        assert_eq!(cmp(&mut h, "coop", "co-op", false), -1);
        assert_eq!(cmp(&mut h, "co-op", "cop", false), -1);
        // Accents compare after the base letter.
        let a = h.scratch(0x1000);
        h.put_cstr(a, "resume");
        h.proc.mem.write_bytes(a + 0x10, b"r\xe9sum\xe9\0").unwrap();
        assert_eq!(
            lstrcmp::<CStrPtr>(&mut h.cx(), CStrPtr(a), CStrPtr(a + 0x10)).unwrap(),
            -1
        );
        h.put_cstr(a, "rz");
        assert_eq!(
            lstrcmp::<CStrPtr>(&mut h.cx(), CStrPtr(a), CStrPtr(a + 0x10)).unwrap(),
            1
        );
        h.put_cstr(a, "ABC");
        h.put_cstr(a + 0x10, "abc");
        let r = CompareString::<CStrPtr>(
            &mut h.cx(),
            0x409,
            NORM_IGNORECASE,
            Ptr(a),
            -1,
            Ptr(a + 0x10),
            -1,
        )
        .unwrap();
        assert_eq!(r, 2);
        let r =
            CompareString::<CStrPtr>(&mut h.cx(), 0x409, 0, Ptr(a), 2, Ptr(a + 0x10), 3).unwrap();
        assert_eq!(r, 1);
    }

    #[test]
    fn case_mapping_types_and_messages() {
        let mut h = Harness::new();
        let a = h.scratch(0x1000);
        h.proc.mem.write_bytes(a, b"abc\xe9\xff\0").unwrap();
        assert_eq!(CharUpperA(&mut h.cx(), a).unwrap(), a);
        // é -> É (0xC9) and ÿ -> Ÿ (0x9F) in 1252.
        assert_eq!(h.proc.mem.read_cstr(a, 16).unwrap(), b"ABC\xc9\x9f");
        assert_eq!(CharLowerA(&mut h.cx(), b'Q' as u32).unwrap(), b'q' as u32);
        h.put_cstr(a, "aZ 1.");
        assert!(GetStringTypeA(&mut h.cx(), 0, CT_CTYPE1, Ptr(a), 5, Ptr(a + 0x100)).unwrap());
        let t: Vec<u16> = (0..5)
            .map(|k| h.proc.mem.read_u16(a + 0x100 + 2 * k).unwrap())
            .collect();
        assert_eq!(
            t,
            [
                C1_ALPHA | C1_LOWER | C1_XDIGIT | C1_DEFINED,
                C1_ALPHA | C1_UPPER | C1_DEFINED,
                C1_SPACE | C1_BLANK | C1_DEFINED,
                C1_DIGIT | C1_XDIGIT | C1_DEFINED,
                C1_PUNCT | C1_DEFINED,
            ]
        );
        h.put_wstr(a, "MiXed");
        assert_eq!(
            LCMapString::<WStrPtr>(
                &mut h.cx(),
                0x409,
                LCMAP_UPPERCASE,
                Ptr(a),
                -1,
                Ptr(a + 0x200),
                32
            )
            .unwrap(),
            6
        );
        assert_eq!(h.wstr(a + 0x200), "MIXED");
        let out = a + 0x400;
        let n = FormatMessage::<CStrPtr>(
            &mut h.cx(),
            FORMAT_MESSAGE_FROM_SYSTEM,
            Ptr(0),
            2,
            0,
            Ptr(out),
            256,
            Ptr(0),
        )
        .unwrap();
        assert_eq!(
            h.cstr(out),
            "The system cannot find the file specified.\r\n"
        );
        assert_eq!(n as usize, h.cstr(out).len());
        h.put_cstr(a, "%1 has %2!d! items%n");
        let args = a + 0x300;
        h.put_cstr(a + 0x380, "box");
        h.proc.mem.write_u32(args, a + 0x380).unwrap();
        h.proc.mem.write_u32(args + 4, -3i32 as u32).unwrap();
        FormatMessage::<CStrPtr>(
            &mut h.cx(),
            FORMAT_MESSAGE_FROM_STRING | FORMAT_MESSAGE_ARGUMENT_ARRAY,
            Ptr(a),
            0,
            0,
            Ptr(out),
            256,
            Ptr(args),
        )
        .unwrap();
        assert_eq!(h.cstr(out), "box has -3 items\r\n");
        assert_eq!(
            FormatMessage::<CStrPtr>(
                &mut h.cx(),
                FORMAT_MESSAGE_FROM_SYSTEM,
                Ptr(0),
                0xdead,
                0,
                Ptr(out),
                256,
                Ptr(0)
            )
            .unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_MR_MID_NOT_FOUND);
    }

    #[test]
    fn format_message_w_allocates_a_wide_system_message() {
        let mut h = Harness::new();
        let out = h.scratch(16);
        let flags = FORMAT_MESSAGE_ALLOCATE_BUFFER
            | FORMAT_MESSAGE_FROM_SYSTEM
            | FORMAT_MESSAGE_IGNORE_INSERTS;
        let n = FormatMessage::<WStrPtr>(&mut h.cx(), flags, Ptr(0), 2, 0, Ptr(out), 0, Ptr(0))
            .unwrap();
        let text = "The system cannot find the file specified.\r\n";
        assert_eq!(n as usize, text.len());
        assert_eq!(h.wstr(h.u32(out)), text);
        // A caller buffer of n characters is one short (the NUL needs room).
        let buf = h.scratch(256);
        let n2 = FormatMessage::<WStrPtr>(
            &mut h.cx(),
            flags & !FORMAT_MESSAGE_ALLOCATE_BUFFER,
            Ptr(0),
            2,
            0,
            Ptr(buf),
            n,
            Ptr(0),
        )
        .unwrap();
        assert_eq!(n2, 0);
        assert_eq!(h.last_error(), err::ERROR_INSUFFICIENT_BUFFER);
    }
}
