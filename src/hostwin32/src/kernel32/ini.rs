//! KERNEL32 INI file functions (Get/WritePrivateProfile*, Get/WriteProfile*).
//!
//! Files are read and written through the process's VFS (so writes land in the
//! overlay) on every call: nothing is cached, so a program that also edits the file
//! with CreateFile/WriteFile sees its changes at once. A bare file name (no `\`,
//! `/` or drive) means the Windows directory; a NULL file name and the Profile
//! forms mean `WIN.INI` there.
//!
//! Parsing follows Windows: `[section]` headers (name trimmed; text before the
//! first header belongs to no section), `key=value` lines (both sides trimmed), lines
//! without `=` (keys without a value: listed by GetPrivateProfileSection, not by the
//! key enumeration, and read as missing), `;` comments and blank lines; lines may
//! end in CR LF, LF or CR. Section and key names are case-insensitive; the first of
//! duplicate sections or keys wins. Values read by GetPrivateProfileString lose one
//! pair of enclosing single or double quotes.
//!
//! Writing changes only the lines concerned and keeps every other byte of the file
//! (comments, spacing, line ends, even NULs): a changed key keeps its line and its
//! spelling, a new key goes after the last line of its section, a new section is
//! appended at the end, new lines end in CR LF. Files keep their encoding: ANSI
//! (code page 1252), or UTF-16LE / UTF-8 with a byte-order mark; new files are
//! ANSI, as Windows creates them. Deleting something that is not there leaves the
//! file untouched (and does not create it).
//!
//! Results follow the documented truncation rules: a single string is cut to
//! nSize - 1 characters (the return value then is nSize - 1); a double-NUL list
//! (section names, key names, section contents) that does not fit has its last
//! string cut and two NULs written, and returns nSize - 2 — a list fits only if
//! its strings with their NULs take at most nSize - 2 characters, as on Windows.
//! GetPrivateProfileInt reads the value as GetPrivateProfileString would into a
//! 30-character buffer and converts it like RtlUnicodeStringToInteger with base 0
//! (optional sign, `0x`/`0o`/`0b` prefixes, digits up to the first other
//! character, modulo 2^32); an empty or missing value gives the default.
//!
//! Windows NT's IniFileMapping (redirection of some files to the registry) is not
//! modelled: Windows 9x has none, and a program's own INI files are never mapped.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall_aw};
use crate::process::Process;
use crate::teb::set_last_error;
use crate::vfs::{CreationDisposition, OpenOptions, Opened, Vfs, VfsError};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

use super::file::vfs;
use super::misc::err;
use super::string::{
    GuestStr, copy_truncated_a, copy_truncated_w, decode_ansi, encode_ansi, read_cbytes, read_wide,
    write_wide,
};

const ERROR_BAD_LENGTH: u32 = 24;
/// The file the Profile functions (and a NULL file name) use.
const WIN_INI: &str = "WIN.INI";
/// GetPrivateProfileInt reads the value through a buffer of this many characters.
const INT_BUFFER: usize = 30;

/// Serialises read-modify-write cycles: two threads writing one file must not lose
/// each other's change.
static INI_LOCK: Mutex<()> = Mutex::new(());

// ---- the file model ----------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Encoding {
    #[default]
    Ansi,
    Utf8Bom,
    Utf16Le,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Line {
    text: String,
    /// The line's terminator as found ("\r\n", "\n", "\r", or "" at the end).
    end: String,
}

/// What a line is.
#[derive(Debug, PartialEq, Eq)]
enum Kind<'a> {
    Section(&'a str),
    Entry {
        key: &'a str,
        value: Option<&'a str>,
    },
    /// Blank lines and comments.
    Other,
}

fn blank(c: char) -> bool {
    // NUL counts as blank: files written with a trailing NUL must not gain a key.
    matches!(c, ' ' | '\t' | '\x0b' | '\x0c' | '\0')
}

fn classify(text: &str) -> Kind<'_> {
    let t = text.trim_matches(blank);
    if t.is_empty() || t.starts_with(';') {
        return Kind::Other;
    }
    if let Some(inner) = t.strip_prefix('[')
        && let Some(end) = inner.rfind(']')
    {
        return Kind::Section(inner[..end].trim_matches(blank));
    }
    match t.split_once('=') {
        Some((k, v)) => Kind::Entry {
            key: k.trim_matches(blank),
            value: Some(v.trim_matches(blank)),
        },
        None => Kind::Entry {
            key: t,
            value: None,
        },
    }
}

/// Case-insensitive name comparison (per-character upper case).
fn same(a: &str, b: &str) -> bool {
    fn up(c: char) -> char {
        let mut u = c.to_uppercase();
        match (u.next(), u.next()) {
            (Some(x), None) => x,
            _ => c,
        }
    }
    a.chars().map(up).eq(b.chars().map(up))
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Ini {
    lines: Vec<Line>,
    enc: Encoding,
}

impl Ini {
    fn parse(bytes: &[u8]) -> Ini {
        let (text, enc) = if let Some(rest) = bytes.strip_prefix(&[0xff, 0xfe]) {
            let units: Vec<u16> = rest
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            (String::from_utf16_lossy(&units), Encoding::Utf16Le)
        } else if let Some(rest) = bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
            (
                String::from_utf8_lossy(rest).into_owned(),
                Encoding::Utf8Bom,
            )
        } else {
            (decode_ansi(bytes), Encoding::Ansi)
        };
        let mut lines = Vec::new();
        let b = text.as_bytes();
        let (mut start, mut i) = (0, 0);
        while i < b.len() {
            let end = match b[i] {
                b'\n' => "\n",
                b'\r' if b.get(i + 1) == Some(&b'\n') => "\r\n",
                b'\r' => "\r",
                _ => {
                    i += 1;
                    continue;
                }
            };
            lines.push(Line {
                text: text[start..i].to_string(),
                end: end.to_string(),
            });
            i += end.len();
            start = i;
        }
        if start < b.len() {
            lines.push(Line {
                text: text[start..].to_string(),
                end: String::new(),
            });
        }
        Ini { lines, enc }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let text: String = self
            .lines
            .iter()
            .flat_map(|l| [l.text.as_str(), l.end.as_str()])
            .collect();
        match self.enc {
            Encoding::Ansi => encode_ansi(&text),
            Encoding::Utf8Bom => [&[0xef, 0xbb, 0xbf][..], text.as_bytes()].concat(),
            Encoding::Utf16Le => [0xfeff]
                .into_iter()
                .chain(text.encode_utf16())
                .flat_map(u16::to_le_bytes)
                .collect(),
        }
    }

    /// Distinct non-empty section names, in file order.
    fn section_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for l in &self.lines {
            if let Kind::Section(n) = classify(&l.text)
                && !n.is_empty()
                && !names.iter().any(|m| same(m, n))
            {
                names.push(n.to_string());
            }
        }
        names
    }

    /// The header line of section `name` and the end (exclusive) of its body.
    fn section(&self, name: &str) -> Option<(usize, usize)> {
        let head = self
            .lines
            .iter()
            .position(|l| matches!(classify(&l.text), Kind::Section(n) if same(n, name)))?;
        let end = (head + 1..self.lines.len())
            .find(|&k| matches!(classify(&self.lines[k].text), Kind::Section(_)))
            .unwrap_or(self.lines.len());
        Some((head, end))
    }

    /// The keys (and values, if any) of a section, in file order.
    fn entries(&self, section: &str) -> Vec<(String, Option<String>)> {
        let Some((head, end)) = self.section(section) else {
            return Vec::new();
        };
        self.lines[head + 1..end]
            .iter()
            .filter_map(|l| match classify(&l.text) {
                Kind::Entry { key, value } => Some((key.to_string(), value.map(str::to_string))),
                _ => None,
            })
            .collect()
    }

    /// Index of the first line of `section` holding `key`.
    fn find_key(&self, section: &str, key: &str) -> Option<usize> {
        let (head, end) = self.section(section)?;
        (head + 1..end).find(
            |&k| matches!(classify(&self.lines[k].text), Kind::Entry { key: k2, .. } if same(k2, key)),
        )
    }

    /// The value of a key: `None` if there is no such key, `Some(None)` for a key
    /// line without `=`.
    fn get(&self, section: &str, key: &str) -> Option<Option<String>> {
        let k = self.find_key(section, key)?;
        match classify(&self.lines[k].text) {
            Kind::Entry { value, .. } => Some(value.map(str::to_string)),
            _ => None,
        }
    }

    /// Inserts `text` as a new CR LF line at `at`, ending the line before it first
    /// if it has no terminator.
    fn insert_line(&mut self, at: usize, text: String) {
        if at > 0 && self.lines[at - 1].end.is_empty() {
            self.lines[at - 1].end = "\r\n".to_string();
        }
        self.lines.insert(
            at,
            Line {
                text,
                end: "\r\n".to_string(),
            },
        );
    }

    fn set(&mut self, section: &str, key: &str, value: &str) {
        if let Some(k) = self.find_key(section, key) {
            // The line keeps the key's spelling in the file.
            let spelled = match classify(&self.lines[k].text) {
                Kind::Entry { key: found, .. } => found.to_string(),
                _ => key.to_string(),
            };
            self.lines[k].text = format!("{spelled}={value}");
            return;
        }
        if let Some((head, end)) = self.section(section) {
            // After the section's last non-blank line, so blank lines that separate
            // it from the next section stay between them.
            let last = (head..end)
                .rev()
                .find(|&k| !matches!(classify(&self.lines[k].text), Kind::Other))
                .unwrap_or(head);
            self.insert_line(last + 1, format!("{key}={value}"));
            return;
        }
        let n = self.lines.len();
        self.insert_line(n, format!("[{section}]"));
        self.insert_line(n + 1, format!("{key}={value}"));
    }

    fn delete_key(&mut self, section: &str, key: &str) -> bool {
        match self.find_key(section, key) {
            Some(k) => {
                self.lines.remove(k);
                true
            }
            None => false,
        }
    }

    fn delete_section(&mut self, section: &str) -> bool {
        match self.section(section) {
            Some((head, end)) => {
                self.lines.drain(head..end);
                true
            }
            None => false,
        }
    }

    /// WritePrivateProfileSection: the section's body becomes `body`.
    fn replace_section(&mut self, section: &str, body: &[String]) {
        let (at, end) = match self.section(section) {
            Some((head, end)) => (head + 1, end),
            None => {
                let n = self.lines.len();
                self.insert_line(n, format!("[{section}]"));
                (n + 1, n + 1)
            }
        };
        self.lines.drain(at..end);
        for (k, text) in body.iter().enumerate() {
            self.insert_line(at + k, text.clone());
        }
    }
}

/// A value as GetPrivateProfileString returns it: one pair of enclosing quotes
/// removed.
fn strip_quotes(v: &str) -> &str {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

// ---- files --------------------------------------------------------------------------------

/// The guest path of a profile file: a bare name is in the Windows directory.
fn ini_path(vfs: &Vfs, name: &str) -> String {
    let bare = !name.contains(['\\', '/']) && name.chars().nth(1) != Some(':');
    if bare {
        format!("{}\\{}", vfs.windows_dir(), name)
    } else {
        name.to_string()
    }
}

/// The file's contents; `None` if it does not exist (or is a device).
fn read_ini(vfs: &Vfs, path: &str) -> Result<Option<Ini>, VfsError> {
    match vfs.open(path, &OpenOptions::read()) {
        Ok(Opened::File(f)) => {
            let host = f.host.get();
            let mut r: &std::fs::File = &host;
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes)
                .map_err(|e| VfsError::io(path, e))?;
            Ok(Some(Ini::parse(&bytes)))
        }
        Ok(_) => Ok(None),
        Err(VfsError::FileNotFound(_) | VfsError::PathNotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

fn write_ini(vfs: &Vfs, path: &str, ini: &Ini) -> Result<(), VfsError> {
    let opened = vfs.open(
        path,
        &OpenOptions::read_write(CreationDisposition::OpenAlways),
    )?;
    let Opened::File(f) = opened else {
        return Err(VfsError::AccessDenied(path.to_string()));
    };
    let host = f.host.get();
    let bytes = ini.to_bytes();
    host.set_len(0)
        .and_then(|()| host.write_all_at(&bytes, 0))
        .map_err(|e| VfsError::io(path, e))
}

/// The Win32 code for a VFS failure; a broken configuration stops the program.
fn code_of(e: VfsError) -> ApiResult<u32> {
    match e {
        VfsError::Config(what) => Err(ApiError::Other(format!("file system: {what}"))),
        e => Ok(e.win32_code()),
    }
}

/// Reads a profile file for a Get function: `None` (with the last error set) if it
/// cannot be read.
fn load(cx: &mut Ctx, name: &str) -> ApiResult<Option<Ini>> {
    let vfs = vfs(cx.proc)?;
    let path = ini_path(&vfs, name);
    let r = {
        let _g = INI_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        read_ini(&vfs, &path)
    };
    match r {
        Ok(Some(ini)) => Ok(Some(ini)),
        Ok(None) => {
            set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
            Ok(None)
        }
        Err(e) => {
            let code = code_of(e)?;
            set_last_error(cx, code)?;
            Ok(None)
        }
    }
}

/// Applies `change` to a profile file and writes it back if `change` says it
/// changed anything. `create`: a missing file starts empty (otherwise nothing is
/// done for it). Returns the Win32 result (FALSE with the last error set).
fn modify(
    cx: &mut Ctx,
    name: &str,
    create: bool,
    change: impl FnOnce(&mut Ini) -> bool,
) -> ApiResult<bool> {
    let vfs = vfs(cx.proc)?;
    let path = ini_path(&vfs, name);
    let r = {
        let _g = INI_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        match read_ini(&vfs, &path) {
            Ok(Some(mut ini)) => {
                if change(&mut ini) {
                    write_ini(&vfs, &path, &ini)
                } else {
                    Ok(())
                }
            }
            Ok(None) if create => {
                let mut ini = Ini::default();
                change(&mut ini);
                write_ini(&vfs, &path, &ini)
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        }
    };
    match r {
        Ok(()) => Ok(true),
        Err(e) => {
            let code = code_of(e)?;
            set_last_error(cx, code)?;
            Ok(false)
        }
    }
}

// ---- guest strings --------------------------------------------------------------------------

/// The character set of a call: code page 1252 for the A functions, UTF-16 for W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cs {
    A,
    W,
}

impl Cs {
    /// The set of an export whose string parameters are `S`.
    fn of<S: GuestStr>() -> Cs {
        if S::WIDE { Cs::W } else { Cs::A }
    }

    /// `s` as characters of this set (bytes for A, held in u16s).
    fn units(self, s: &str) -> Vec<u16> {
        match self {
            Cs::A => encode_ansi(s).into_iter().map(u16::from).collect(),
            Cs::W => s.encode_utf16().collect(),
        }
    }

    fn write(self, proc: &Process, p: u32, units: &[u16]) -> ApiResult<()> {
        match self {
            Cs::A => {
                let b: Vec<u8> = units.iter().map(|&u| u as u8).collect();
                proc.mem.write_bytes(p, &b)?;
                Ok(())
            }
            Cs::W => write_wide(proc, p, units),
        }
    }

    /// Copies one string, cut to `size - 1` characters; returns the characters
    /// written without the NUL.
    fn put_string(self, proc: &Process, buf: u32, size: u32, s: &str) -> ApiResult<u32> {
        match self {
            Cs::A => copy_truncated_a(proc, buf, size, &encode_ansi(s)),
            Cs::W => {
                let u: Vec<u16> = s.encode_utf16().collect();
                copy_truncated_w(proc, buf, size, &u)
            }
        }
    }

    /// Writes a double-NUL list with Windows' truncation rule (see the module
    /// comment); returns the characters written without the final NUL, or
    /// `size - 2` if the list was cut.
    fn put_list(self, proc: &Process, buf: u32, size: u32, items: &[String]) -> ApiResult<u32> {
        if size == 0 {
            return Ok(0);
        }
        let mut out: Vec<u16> = Vec::new();
        let mut room = size as usize - 1;
        for item in items {
            let u = self.units(item);
            if u.len() + 1 >= room {
                out.extend_from_slice(&u[..(room - 1).min(u.len())]);
                out.extend_from_slice(&[0, 0]);
                self.write(proc, buf, &out)?;
                return Ok(size.saturating_sub(2));
            }
            out.extend_from_slice(&u);
            out.push(0);
            room -= u.len() + 1;
        }
        out.push(0);
        self.write(proc, buf, &out)?;
        Ok(out.len() as u32 - 1)
    }

    /// A double-NUL list of strings from guest memory (WritePrivateProfileSection).
    fn read_list(self, proc: &Process, mut p: u32) -> ApiResult<Vec<String>> {
        let mut v = Vec::new();
        loop {
            let (s, len) = match self {
                Cs::A => {
                    let b = read_cbytes(proc, p)?;
                    (decode_ansi(&b), b.len() as u32)
                }
                Cs::W => {
                    let u = read_wide(proc, p)?;
                    (String::from_utf16_lossy(&u), 2 * u.len() as u32)
                }
            };
            if len == 0 {
                return Ok(v);
            }
            v.push(s);
            p = p.wrapping_add(len + if self == Cs::A { 1 } else { 2 });
        }
    }
}

// ---- reading ----------------------------------------------------------------------------------

/// What GetPrivateProfileString answers.
enum Answer {
    Text(String),
    List(Vec<String>),
}

fn answer(ini: Option<&Ini>, app: Option<&str>, key: Option<&str>, default: &str) -> Answer {
    let empty = Ini::default();
    let ini = ini.unwrap_or(&empty);
    let Some(app) = app else {
        return Answer::List(ini.section_names());
    };
    match key {
        None => {
            let keys: Vec<String> = ini
                .entries(app)
                .into_iter()
                .filter(|(_, v)| v.is_some())
                .map(|(k, _)| k)
                .collect();
            if keys.is_empty() {
                Answer::Text(default.to_string())
            } else {
                Answer::List(keys)
            }
        }
        Some(key) => Answer::Text(match ini.get(app, key) {
            Some(Some(v)) => strip_quotes(&v).to_string(),
            _ => default.to_string(),
        }),
    }
}

fn get_string(
    cx: &mut Ctx,
    app: Option<String>,
    key: Option<String>,
    default: Option<String>,
    buf: u32,
    size: u32,
    file: Option<String>,
    cs: Cs,
) -> ApiResult<u32> {
    if size == 0 || buf == 0 {
        return Ok(0);
    }
    // Windows drops trailing spaces from the default.
    let default = default.unwrap_or_default();
    let default = default.trim_end_matches(' ');
    let ini = load(cx, file.as_deref().unwrap_or(WIN_INI))?;
    match answer(ini.as_ref(), app.as_deref(), key.as_deref(), default) {
        Answer::Text(s) => cs.put_string(cx.proc, buf, size, &s),
        Answer::List(items) => cs.put_list(cx.proc, buf, size, &items),
    }
}

/// RtlUnicodeStringToInteger with base 0, modulo 2^32.
fn parse_int(s: &str) -> u32 {
    let t = s.trim_start_matches(|c: char| c <= ' ');
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (base, digits) = match t.get(..2) {
        Some("0x" | "0X") => (16, &t[2..]),
        Some("0o" | "0O") => (8, &t[2..]),
        Some("0b" | "0B") => (2, &t[2..]),
        _ => (10, t),
    };
    let v = digits
        .chars()
        .map_while(|c| c.to_digit(base))
        .fold(0u32, |acc, d| acc.wrapping_mul(base).wrapping_add(d));
    if neg { v.wrapping_neg() } else { v }
}

fn get_int(
    cx: &mut Ctx,
    app: Option<String>,
    key: Option<String>,
    default: i32,
    file: Option<String>,
) -> ApiResult<u32> {
    let ini = load(cx, file.as_deref().unwrap_or(WIN_INI))?;
    // What a 30-character buffer would hold: a cut value, or a list's first string.
    let text = match answer(ini.as_ref(), app.as_deref(), key.as_deref(), "") {
        Answer::Text(s) => s.chars().take(INT_BUFFER - 1).collect::<String>(),
        Answer::List(items) => items
            .first()
            .map(|s| s.chars().take(INT_BUFFER - 2).collect())
            .unwrap_or_default(),
    };
    if text.is_empty() {
        return Ok(default as u32);
    }
    Ok(parse_int(&text))
}

fn get_section(
    cx: &mut Ctx,
    app: Option<String>,
    buf: u32,
    size: u32,
    file: Option<String>,
    cs: Cs,
) -> ApiResult<u32> {
    let Some(app) = app.filter(|_| buf != 0 && size != 0) else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    let Some(file) = file else {
        set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
        return Ok(0);
    };
    let Some(ini) = load(cx, &file)? else {
        return cs.put_list(cx.proc, buf, size, &[]);
    };
    let items: Vec<String> = ini
        .entries(&app)
        .into_iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => k,
        })
        .collect();
    let n = cs.put_list(cx.proc, buf, size, &items)?;
    set_last_error(cx, err::ERROR_SUCCESS)?;
    Ok(n)
}

fn get_section_names(
    cx: &mut Ctx,
    buf: u32,
    size: u32,
    file: Option<String>,
    cs: Cs,
) -> ApiResult<u32> {
    if buf == 0 || size == 0 {
        return Ok(0);
    }
    let ini = load(cx, file.as_deref().unwrap_or(WIN_INI))?;
    let names = ini.map(|i| i.section_names()).unwrap_or_default();
    cs.put_list(cx.proc, buf, size, &names)
}

// ---- writing ---------------------------------------------------------------------------------

fn write_string(
    cx: &mut Ctx,
    app: Option<String>,
    key: Option<String>,
    value: Option<String>,
    file: Option<String>,
) -> ApiResult<bool> {
    let file = file.unwrap_or_else(|| WIN_INI.to_string());
    let Some(app) = app else {
        // (NULL, NULL, NULL) asks to flush the cache winterp does not keep.
        if key.is_none() && value.is_none() {
            return Ok(true);
        }
        set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
        return Ok(false);
    };
    match (key, value) {
        (None, _) => modify(cx, &file, false, |ini| ini.delete_section(&app)),
        (Some(k), None) => modify(cx, &file, false, |ini| ini.delete_key(&app, &k)),
        (Some(k), Some(v)) => modify(cx, &file, true, |ini| {
            ini.set(&app, &k, &v);
            true
        }),
    }
}

fn write_section(
    cx: &mut Ctx,
    app: Option<String>,
    lines: Option<Vec<String>>,
    file: Option<String>,
) -> ApiResult<bool> {
    let file = file.unwrap_or_else(|| WIN_INI.to_string());
    let Some(app) = app else {
        if lines.is_none() {
            return Ok(true);
        }
        set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
        return Ok(false);
    };
    match lines {
        None => modify(cx, &file, false, |ini| ini.delete_section(&app)),
        Some(body) => modify(cx, &file, true, |ini| {
            ini.replace_section(&app, &body);
            true
        }),
    }
}

/// GetPrivateProfileStruct: the value must be exactly the struct's bytes in hex and
/// a checksum byte (their sum modulo 256).
fn get_struct(
    cx: &mut Ctx,
    app: Option<String>,
    key: Option<String>,
    lpStruct: u32,
    uSizeStruct: u32,
    file: Option<String>,
) -> ApiResult<bool> {
    let (Some(app), Some(key)) = (app, key) else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    };
    let ini = load(cx, file.as_deref().unwrap_or(WIN_INI))?;
    let text = match answer(ini.as_ref(), Some(&app), Some(&key), "") {
        Answer::Text(s) => s,
        Answer::List(_) => String::new(),
    };
    if text.len() as u64 != 2 * (uSizeStruct as u64 + 1) {
        set_last_error(cx, ERROR_BAD_LENGTH)?;
        return Ok(false);
    }
    let bytes: Option<Vec<u8>> = text
        .as_bytes()
        .chunks_exact(2)
        .map(|p| {
            std::str::from_utf8(p)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    let Some((sum, data)) = bytes.as_deref().and_then(|b| b.split_last()) else {
        set_last_error(cx, err::ERROR_INVALID_DATA)?;
        return Ok(false);
    };
    let check = data.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    if check != *sum {
        set_last_error(cx, err::ERROR_INVALID_DATA)?;
        return Ok(false);
    }
    cx.proc.mem.write_bytes(lpStruct, data)?;
    Ok(true)
}

fn write_struct(
    cx: &mut Ctx,
    app: Option<String>,
    key: Option<String>,
    lpStruct: u32,
    uSizeStruct: u32,
    file: Option<String>,
) -> ApiResult<bool> {
    if lpStruct == 0 {
        return write_string(cx, app, key, None, file);
    }
    let mut data = vec![0u8; uSizeStruct as usize];
    cx.proc.mem.read_bytes(lpStruct, &mut data)?;
    let sum = data.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    let mut hex: String = data.iter().map(|b| format!("{b:02X}")).collect();
    hex.push_str(&format!("{sum:02X}"));
    write_string(cx, app, key, Some(hex), file)
}

// ---- the exported functions ----------------------------------------------------------------
//
// Each body serves the A and the W export (`S` is CStrPtr or WStrPtr): they differ
// only in the character set of their strings.

pub fn GetPrivateProfileString<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    lpDefault: S,
    lpReturnedString: Ptr,
    nSize: u32,
    lpFileName: S,
) -> ApiResult<u32> {
    let p = cx.proc;
    let (app, key, def, file) = (
        lpAppName.read_opt(p)?,
        lpKeyName.read_opt(p)?,
        lpDefault.read_opt(p)?,
        lpFileName.read_opt(p)?,
    );
    get_string(
        cx,
        app,
        key,
        def,
        lpReturnedString.0,
        nSize,
        file,
        Cs::of::<S>(),
    )
}

/// GetPrivateProfileString of WIN.INI (a NULL file name means WIN.INI).
pub fn GetProfileString<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    lpDefault: S,
    lpReturnedString: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    GetPrivateProfileString(
        cx,
        lpAppName,
        lpKeyName,
        lpDefault,
        lpReturnedString,
        nSize,
        S::NULL,
    )
}

pub fn GetPrivateProfileInt<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    nDefault: i32,
    lpFileName: S,
) -> ApiResult<u32> {
    let p = cx.proc;
    let (app, key, file) = (
        lpAppName.read_opt(p)?,
        lpKeyName.read_opt(p)?,
        lpFileName.read_opt(p)?,
    );
    get_int(cx, app, key, nDefault, file)
}

/// GetPrivateProfileInt of WIN.INI.
pub fn GetProfileInt<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    nDefault: i32,
) -> ApiResult<u32> {
    GetPrivateProfileInt(cx, lpAppName, lpKeyName, nDefault, S::NULL)
}

pub fn WritePrivateProfileString<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    lpString: S,
    lpFileName: S,
) -> ApiResult<bool> {
    let p = cx.proc;
    let (app, key, value, file) = (
        lpAppName.read_opt(p)?,
        lpKeyName.read_opt(p)?,
        lpString.read_opt(p)?,
        lpFileName.read_opt(p)?,
    );
    write_string(cx, app, key, value, file)
}

/// WritePrivateProfileString of WIN.INI.
pub fn WriteProfileString<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpKeyName: S,
    lpString: S,
) -> ApiResult<bool> {
    WritePrivateProfileString(cx, lpAppName, lpKeyName, lpString, S::NULL)
}

pub fn GetPrivateProfileSection<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpReturnedString: Ptr,
    nSize: u32,
    lpFileName: S,
) -> ApiResult<u32> {
    let (app, file) = (lpAppName.read_opt(cx.proc)?, lpFileName.read_opt(cx.proc)?);
    get_section(cx, app, lpReturnedString.0, nSize, file, Cs::of::<S>())
}

pub fn GetProfileSection<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpReturnedString: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let app = lpAppName.read_opt(cx.proc)?;
    let file = Some(WIN_INI.into());
    get_section(cx, app, lpReturnedString.0, nSize, file, Cs::of::<S>())
}

pub fn WritePrivateProfileSection<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpString: Ptr,
    lpFileName: S,
) -> ApiResult<bool> {
    let p = cx.proc;
    let app = lpAppName.read_opt(p)?;
    // NULL deletes the section.
    let lines = match lpString.is_null() {
        true => None,
        false => Some(Cs::of::<S>().read_list(p, lpString.0)?),
    };
    let file = lpFileName.read_opt(p)?;
    write_section(cx, app, lines, file)
}

/// WritePrivateProfileSection of WIN.INI.
pub fn WriteProfileSection<S: GuestStr>(
    cx: &mut Ctx,
    lpAppName: S,
    lpString: Ptr,
) -> ApiResult<bool> {
    WritePrivateProfileSection(cx, lpAppName, lpString, S::NULL)
}

pub fn GetPrivateProfileSectionNames<S: GuestStr>(
    cx: &mut Ctx,
    lpszReturnBuffer: Ptr,
    nSize: u32,
    lpFileName: S,
) -> ApiResult<u32> {
    let file = lpFileName.read_opt(cx.proc)?;
    get_section_names(cx, lpszReturnBuffer.0, nSize, file, Cs::of::<S>())
}

pub fn GetPrivateProfileStruct<S: GuestStr>(
    cx: &mut Ctx,
    lpszSection: S,
    lpszKey: S,
    lpStruct: Ptr,
    uSizeStruct: u32,
    szFile: S,
) -> ApiResult<bool> {
    let p = cx.proc;
    let (app, key, file) = (
        lpszSection.read_opt(p)?,
        lpszKey.read_opt(p)?,
        szFile.read_opt(p)?,
    );
    get_struct(cx, app, key, lpStruct.0, uSizeStruct, file)
}

pub fn WritePrivateProfileStruct<S: GuestStr>(
    cx: &mut Ctx,
    lpszSection: S,
    lpszKey: S,
    lpStruct: Ptr,
    uSizeStruct: u32,
    szFile: S,
) -> ApiResult<bool> {
    let p = cx.proc;
    let (app, key, file) = (
        lpszSection.read_opt(p)?,
        lpszKey.read_opt(p)?,
        szFile.read_opt(p)?,
    );
    write_struct(cx, app, key, lpStruct.0, uSizeStruct, file)
}

pub fn exports() -> Vec<ApiDef> {
    stdcall_aw![
        GetPrivateProfileString,
        GetProfileString,
        GetPrivateProfileInt,
        GetProfileInt,
        WritePrivateProfileString,
        WriteProfileString,
        GetPrivateProfileSection,
        GetProfileSection,
        WritePrivateProfileSection,
        WriteProfileSection,
        GetPrivateProfileSectionNames,
        GetPrivateProfileStruct,
        WritePrivateProfileStruct,
    ]
}

#[cfg(test)]
mod tests {
    //! Expected values are Windows' documented behaviour and the results Wine's
    //! conformance tests (dlls/kernel32/tests/profile.c) record on real Windows.
    use super::*;
    use crate::hle::{CStrPtr, WStrPtr};
    use crate::kernel32::misc::test_support::Harness;
    use crate::vfs::VfsConfig;
    use std::sync::Arc;

    struct T {
        h: Harness,
        _tmp: tempfile::TempDir,
        program: std::path::PathBuf,
        next: u32,
        out: u32,
    }

    fn t() -> T {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let program = root.join("games");
        std::fs::create_dir_all(&program).unwrap();
        let h = Harness::new();
        let v = Vfs::new(VfsConfig {
            program_dir: program.clone(),
            guest_dir: r"C:\GAMES".into(),
            overlay_dir: root.join("overlay"),
            allow_writes_to_original: false,
        })
        .unwrap();
        h.proc.vfs.set(Arc::new(v)).unwrap();
        let next = h.scratch(0x10_0000);
        let out = h.scratch(0x1000);
        T {
            h,
            _tmp: tmp,
            program,
            next,
            out,
        }
    }

    impl T {
        fn a(&mut self, s: &str) -> CStrPtr {
            let p = self.next;
            let mut b = encode_ansi(s);
            b.push(0);
            self.h.proc.mem.write_bytes(p, &b).unwrap();
            self.next += b.len() as u32;
            CStrPtr(p)
        }
        fn oa(&mut self, s: Option<&str>) -> CStrPtr {
            s.map_or(CStrPtr(0), |s| self.a(s))
        }
        fn w(&mut self, s: &str) -> WStrPtr {
            let p = self.next;
            self.h.put_wstr(p, s);
            self.next += 2 * (s.encode_utf16().count() as u32 + 1);
            WStrPtr(p)
        }
        /// Fills the output buffer with a marker byte.
        fn clear(&self, b: u8) {
            self.h.proc.mem.write_bytes(self.out, &[b; 0x1000]).unwrap();
        }
        fn out_bytes(&self, n: usize) -> Vec<u8> {
            let mut v = vec![0; n];
            self.h.proc.mem.read_bytes(self.out, &mut v).unwrap();
            v
        }
        fn vfs(&self) -> Arc<Vfs> {
            self.h.proc.vfs.get().unwrap().clone()
        }
        fn put_file(&self, path: &str, bytes: &[u8]) {
            let vfs = self.vfs();
            let Opened::File(f) = vfs
                .open(
                    path,
                    &OpenOptions::read_write(CreationDisposition::CreateAlways),
                )
                .unwrap()
            else {
                panic!("not a file")
            };
            f.host.get().write_all_at(bytes, 0).unwrap();
        }
        fn file(&self, path: &str) -> Option<Vec<u8>> {
            read_ini(&self.vfs(), path).unwrap().map(|i| i.to_bytes())
        }
        fn get_string(
            &mut self,
            app: Option<&str>,
            key: Option<&str>,
            def: Option<&str>,
            size: u32,
            file: &str,
        ) -> u32 {
            let (a, k, d, f) = (self.oa(app), self.oa(key), self.oa(def), self.a(file));
            let out = Ptr(self.out);
            GetPrivateProfileString::<CStrPtr>(&mut self.h.cx(), a, k, d, out, size, f).unwrap()
        }
        fn write_string(
            &mut self,
            app: Option<&str>,
            key: Option<&str>,
            value: Option<&str>,
            file: &str,
        ) -> bool {
            let (a, k, v, f) = (self.oa(app), self.oa(key), self.oa(value), self.a(file));
            WritePrivateProfileString::<CStrPtr>(&mut self.h.cx(), a, k, v, f).unwrap()
        }
        fn get_int(&mut self, app: Option<&str>, key: Option<&str>, def: i32, file: &str) -> u32 {
            let (a, k, f) = (self.oa(app), self.oa(key), self.a(file));
            GetPrivateProfileInt::<CStrPtr>(&mut self.h.cx(), a, k, def, f).unwrap()
        }
        fn out_str(&self) -> String {
            self.h.cstr(self.out)
        }
    }

    #[test]
    fn profile_int_conversions() {
        let mut t = t();
        let f = r".\testwine.ini";
        // (section, key, value written first, default, result)
        let cases: &[(Option<&str>, Option<&str>, Option<&str>, i32, u32)] = &[
            (None, None, None, -1, u32::MAX),
            (None, None, None, 1, 1),
            (Some("Test"), None, None, -1, u32::MAX),
            (Some("Test"), None, None, 1, 1),
            (None, Some("ProfileInt"), None, -1, u32::MAX),
            (Some("Test"), Some("ProfileInt"), None, -1, u32::MAX),
            (Some("Test"), Some("ProfileInt"), None, 1, 1),
            (Some("Test"), Some("ProfileInt"), Some("-1"), 1, u32::MAX),
            (Some("Test"), Some("ProfileInt"), Some("1"), -1, 1),
            (Some("Test"), Some("ProfileInt"), Some("+1"), -1, 1),
            (Some("Test"), Some("ProfileInt"), Some("4294967296"), 1, 0),
            (Some("Test"), Some("ProfileInt"), Some("4294967297"), -1, 1),
            (
                Some("Test"),
                Some("ProfileInt"),
                Some("-4294967297"),
                1,
                u32::MAX,
            ),
            (
                Some("Test"),
                Some("ProfileInt"),
                Some("42A94967297"),
                -1,
                42,
            ),
            (Some("Test"), Some("ProfileInt"), Some("B4294967297"), 1, 0),
            (Some("Test"), Some("ProfileInt"), Some("102abc"), 1, 102),
        ];
        for (k, &(sec, key, value, def, want)) in cases.iter().enumerate() {
            if let Some(v) = value {
                assert!(t.write_string(Some("Test"), Some("ProfileInt"), Some(v), f));
            }
            assert_eq!(t.get_int(sec, key, def, f), want, "case {k}");
        }
        // An empty value gives the default.
        t.write_string(Some("Test"), Some("ProfileInt"), Some(""), f);
        assert_eq!(t.get_int(Some("Test"), Some("ProfileInt"), 7, f), 7);
    }

    #[test]
    fn key_enumeration_skips_lines_without_equals() {
        let mut t = t();
        t.put_file(
            r"C:\GAMES\testwine2.ini",
            b"[s]\r\nname1=val1\r\nname2=\r\nname3\r\nname4=val4\r\n\0",
        );
        let f = r".\testwine2.ini";
        assert_eq!(t.get_string(Some("s"), None, Some(""), 100, f), 18);
        assert_eq!(t.out_bytes(19), b"name1\0name2\0name4\0\0");
        assert!(t.write_string(Some("s"), Some("name5"), Some("val5"), f));
        assert_eq!(t.get_string(Some("s"), None, Some(""), 100, f), 24);
        assert_eq!(t.out_bytes(25), b"name1\0name2\0name4\0name5\0\0");
        // A key line without '=' reads as missing.
        assert_eq!(
            t.get_string(Some("s"), Some("name3"), Some("def"), 100, f),
            3
        );
        assert_eq!(t.out_str(), "def");
        // Entries before any section and "[]" sections (W only on Windows).
        t.put_file(
            r"C:\GAMES\testwine2.ini",
            b"\r\nkey=val_no_section\r\n[]\r\nkey=val_e_section\r\n[s]\r\n=val_no_key\r\n[t]\r\n",
        );
        let (e, k, file) = (t.w(""), t.w("key"), t.w(f));
        let n = GetPrivateProfileString::<WStrPtr>(&mut t.h.cx(), e, k, e, Ptr(t.out), 100, file)
            .unwrap();
        assert_eq!((n, t.h.wstr(t.out)), (13, "val_e_section".to_string()));
        let s = t.w("s");
        let n = GetPrivateProfileString::<WStrPtr>(&mut t.h.cx(), s, e, e, Ptr(t.out), 100, file)
            .unwrap();
        assert_eq!((n, t.h.wstr(t.out)), (10, "val_no_key".to_string()));
    }

    #[test]
    fn sections_and_their_truncation() {
        let mut t = t();
        t.put_file(
            r"C:\GAMES\testwine4.ini",
            b"[section1]\r\nname1=val1\r\nname2=\r\nname3\r\nname4=val4\r\n[section2]\r\n[section3]\r\n=val5\r\n\0",
        );
        let f = t.a(r".\testwine4.ini");
        let s1 = t.a("section1");
        let out = Ptr(t.out);
        let call = |t: &mut T, app: CStrPtr, buf: Ptr, size: u32, file: CStrPtr| {
            t.h.proc
                .mem
                .write_u32(t.h.thread.teb + crate::teb::LAST_ERROR, 0xdead_beef)
                .unwrap();
            let n =
                GetPrivateProfileSection::<CStrPtr>(&mut t.h.cx(), app, buf, size, file).unwrap();
            (n, t.h.last_error())
        };
        assert_eq!(
            call(&mut t, CStrPtr(0), Ptr(0), 0, CStrPtr(0)),
            (0, err::ERROR_INVALID_PARAMETER)
        );
        assert_eq!(
            call(&mut t, s1, Ptr(0), 0, f),
            (0, err::ERROR_INVALID_PARAMETER)
        );
        assert_eq!(
            call(&mut t, CStrPtr(0), out, 100, f),
            (0, err::ERROR_INVALID_PARAMETER)
        );
        assert_eq!(
            call(&mut t, s1, out, 100, CStrPtr(0)),
            (0, err::ERROR_FILE_NOT_FOUND)
        );
        let s2 = t.a("section2");
        assert_eq!(call(&mut t, s2, out, 100, f), (0, 0));
        assert_eq!(call(&mut t, s1, out, 100, f), (35, 0));
        assert_eq!(
            t.out_bytes(36),
            b"name1=val1\0name2=\0name3\0name4=val4\0\0"
        );
        let s3 = t.a("section3");
        assert_eq!(call(&mut t, s3, out, 100, f), (6, 0));
        assert_eq!(t.out_bytes(7), b"=val5\0\0");
        // Too small: the last string is cut and two NULs follow; nSize - 2.
        assert_eq!(call(&mut t, s1, out, 24, f).0, 22);
        assert_eq!(t.out_bytes(24), b"name1=val1\0name2=\0name\0\0");
        assert_eq!(call(&mut t, s1, out, 5, f).0, 3);
        assert_eq!(t.out_bytes(5), b"nam\0\0");
    }

    #[test]
    fn section_names_fit_only_with_room_to_spare() {
        let mut t = t();
        t.put_file(
            r"C:\GAMES\testwine3.ini",
            b"[ section1 ]\r\n[section2]\r\n[section3]\r\n",
        );
        let f = t.a(r".\testwine3.ini");
        let out = Ptr(t.out);
        let names = |t: &mut T, size| {
            t.clear(0x0c);
            GetPrivateProfileSectionNames::<CStrPtr>(&mut t.h.cx(), out, size, f).unwrap()
        };
        assert_eq!(names(&mut t, 29), 27);
        assert_eq!(t.out_bytes(29), b"section1\0section2\0section3\0\0\x0c");
        assert_eq!(names(&mut t, 28), 26);
        assert_eq!(t.out_bytes(28), b"section1\0section2\0section3\0\0");
        assert_eq!(names(&mut t, 27), 25);
        assert_eq!(t.out_bytes(27), b"section1\0section2\0section\0\0");
        // A missing file gives one NUL.
        let missing = t.a(r".\not_here.ini");
        t.clear(0x0c);
        assert_eq!(
            GetPrivateProfileSectionNames::<CStrPtr>(&mut t.h.cx(), out, 10, missing).unwrap(),
            0
        );
        assert_eq!(t.out_bytes(2), [0, 0x0c]);
        // The W form counts UTF-16 units.
        let fw = t.w(r".\testwine3.ini");
        for (size, want) in [(29, 27), (28, 26), (27, 25)] {
            assert_eq!(
                GetPrivateProfileSectionNames::<WStrPtr>(&mut t.h.cx(), out, size, fw).unwrap(),
                want
            );
        }
        assert_eq!(t.h.wstr(t.out), "section1");
    }

    fn get_string_cases(content: &[u8]) {
        let mut t = t();
        t.put_file(r"C:\GAMES\winetest.ini", content);
        let f = r".\winetest.ini";
        let check = |t: &mut T,
                     app: Option<&str>,
                     key: Option<&str>,
                     def: Option<&str>,
                     size: u32,
                     file: &str,
                     n: u32,
                     bytes: &[u8]| {
            t.clear(0x0c);
            t.h.put_cstr(t.out, "kumquat");
            assert_eq!(
                t.get_string(app, key, def, size, file),
                n,
                "{app:?} {key:?} {def:?} {size} {file}"
            );
            assert_eq!(
                t.out_bytes(bytes.len()),
                bytes,
                "{app:?} {key:?} {def:?} {size} {file}"
            );
        };
        check(
            &mut t,
            None,
            Some("name1"),
            Some("default"),
            260,
            f,
            18,
            b"section1\0section2\0\0",
        );
        check(
            &mut t,
            Some(""),
            Some("name1"),
            Some("default"),
            260,
            f,
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some("notasection"),
            Some("name1"),
            Some("default"),
            260,
            f,
            7,
            b"default\0",
        );
        check(&mut t, Some(""), Some("name1"), None, 260, f, 0, b"\0");
        check(
            &mut t,
            Some(""),
            Some("name1"),
            Some("default  "),
            260,
            f,
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some(""),
            Some("name1"),
            Some("one two  "),
            260,
            f,
            7,
            b"one two\0",
        );
        check(
            &mut t,
            Some("section1"),
            None,
            Some("default"),
            260,
            f,
            18,
            b"name1\0name2\0name4\0\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some(""),
            Some("default"),
            260,
            f,
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("notakey"),
            Some("default"),
            260,
            f,
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name1"),
            Some("default"),
            260,
            "",
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name1"),
            Some("default"),
            260,
            "nonexistent",
            7,
            b"default\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name1"),
            Some("default"),
            0,
            f,
            0,
            b"kumquat\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name1"),
            Some("default"),
            4,
            f,
            3,
            b"val\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name1"),
            Some("default"),
            5,
            f,
            4,
            b"val1\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name4"),
            Some("default"),
            260,
            f,
            1,
            b"a\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name4"),
            Some("default"),
            1,
            f,
            0,
            b"\0",
        );
        check(
            &mut t,
            None,
            Some("name1"),
            Some("default"),
            16,
            f,
            14,
            b"section1\0secti\0\0",
        );
        check(
            &mut t,
            Some("section1"),
            None,
            Some("default"),
            16,
            f,
            14,
            b"name1\0name2\0na\0\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("name2"),
            Some("default"),
            260,
            f,
            4,
            b"val2\0",
        );
        check(
            &mut t,
            Some("section1"),
            Some("NaMe1"),
            Some("default"),
            260,
            f,
            4,
            b"val1\0",
        );
        // A bare name is looked up in the Windows directory.
        check(
            &mut t,
            Some("section1"),
            Some("NaMe1"),
            Some("default"),
            260,
            "winetest.ini",
            7,
            b"default\0",
        );
        t.put_file(r"C:\WINDOWS\pre1234.tmp", content);
        check(
            &mut t,
            Some("section1"),
            Some("NaMe1"),
            Some("default"),
            260,
            "pre1234.tmp",
            4,
            b"val1\0",
        );
        check(
            &mut t,
            Some("section2"),
            Some("DoesntExist"),
            Some(""),
            260,
            f,
            0,
            b"\0",
        );
    }

    #[test]
    fn get_string_crlf() {
        get_string_cases(
            b"[section1]\r\nname1=val1\r\nname2=\"val2\"\r\nname3\r\nname4=a\r\n[section2]\r\n",
        );
    }

    #[test]
    fn get_string_cr_only() {
        get_string_cases(b"[section1]\rname1=val1\rname2=\"val2\"\rname3\rname4=a\r[section2]\r");
    }

    #[test]
    fn write_string_edits_in_place() {
        let mut t = t();
        let path = r"C:\WINDOWS\TEMP\wine1.tmp";
        // NULL section: nothing happens, ERROR_FILE_NOT_FOUND.
        assert!(!t.write_string(None, Some("key"), Some("string"), path));
        assert_eq!(t.h.last_error(), err::ERROR_FILE_NOT_FOUND);
        assert_eq!(t.file(path), None);
        // (NULL, NULL, NULL) flushes.
        assert!(t.write_string(None, None, None, path));
        // Deleting from a missing file creates nothing.
        assert!(t.write_string(Some("App"), None, Some("string"), path));
        assert!(t.write_string(Some("App"), Some("key"), None, path));
        assert_eq!(t.file(path), None);
        // ... and leaves an existing (empty) file as it was.
        t.put_file(path, b"");
        assert!(t.write_string(Some("App"), Some("key"), None, path));
        assert_eq!(t.file(path).unwrap(), b"");
        assert!(t.write_string(Some("App"), Some("key"), Some(""), path));
        assert_eq!(t.file(path).unwrap(), b"[App]\r\nkey=\r\n");
        // An empty file name is the Windows directory itself.
        assert!(!t.write_string(Some("App"), Some("key"), Some("string"), ""));
        assert_eq!(t.h.last_error(), err::ERROR_ACCESS_DENIED);
        // Relative names are in the Windows directory.
        assert!(t.write_string(Some("App"), Some("key"), Some("string"), "win1.tmp"));
        assert_eq!(
            t.file(r"C:\WINDOWS\win1.tmp").unwrap(),
            b"[App]\r\nkey=string\r\n"
        );

        let path = r"C:\WINDOWS\TEMP\wine2.tmp";
        for (app, key, value) in [
            ("App1", "key1", "string1"),
            ("App1", "key2", "string2"),
            ("App1", "key3", "string3"),
            ("App2", "key4", "string4"),
            ("App3", "key5", "string5"),
        ] {
            assert!(t.write_string(Some(app), Some(key), Some(value), path));
        }
        assert_eq!(
            t.file(path).unwrap(),
            b"[App1]\r\nkey1=string1\r\nkey2=string2\r\nkey3=string3\r\n[App2]\r\nkey4=string4\r\n[App3]\r\nkey5=string5\r\n"
        );
        for _ in 0..2 {
            assert!(t.write_string(Some("App1"), Some("key2"), None, path));
            assert_eq!(
                t.file(path).unwrap(),
                b"[App1]\r\nkey1=string1\r\nkey3=string3\r\n[App2]\r\nkey4=string4\r\n[App3]\r\nkey5=string5\r\n"
            );
        }
        assert!(t.write_string(Some("App1"), None, Some("string1"), path));
        assert_eq!(
            t.file(path).unwrap(),
            b"[App2]\r\nkey4=string4\r\n[App3]\r\nkey5=string5\r\n"
        );
        assert!(t.write_string(Some("App2"), None, None, path));
        assert_eq!(t.file(path).unwrap(), b"[App3]\r\nkey5=string5\r\n");
        assert!(t.write_string(Some("App3"), Some("key5"), None, path));
        assert_eq!(t.file(path).unwrap(), b"[App3]\r\n");

        // Everything else in the file is kept byte for byte, NULs included.
        let path = r"C:\WINDOWS\TEMP\wine3.tmp";
        t.put_file(path, b"Data \0 before \0 first \0 section");
        assert!(t.write_string(Some("section1"), Some("key1"), Some("string1"), path));
        assert_eq!(
            t.file(path).unwrap(),
            b"Data \0 before \0 first \0 section\r\n[section1]\r\nkey1=string1\r\n"
        );
        let path = r"C:\GAMES\keep.ini";
        t.put_file(
            path,
            b"; settings\n[Video]\nWidth = 640 \n\n[Sound]\nOn=1\n",
        );
        assert!(t.write_string(Some("video"), Some("WIDTH"), Some("800"), path));
        assert!(t.write_string(Some("Video"), Some("Depth"), Some("16"), path));
        assert_eq!(
            t.file(path).unwrap(),
            b"; settings\n[Video]\nWidth=800\nDepth=16\r\n\n[Sound]\nOn=1\n"
        );
        // Files the guest creates live in the overlay, not the program folder.
        assert!(!t.program.join("keep.ini").exists());
    }

    #[test]
    fn writes_reach_the_overlay_not_the_original() {
        let mut t = t();
        std::fs::write(t.program.join("GAME.INI"), b"[Options]\r\nLevel=1\r\n").unwrap();
        assert_eq!(
            t.get_int(Some("options"), Some("level"), 0, r"C:\GAMES\game.ini"),
            1
        );
        assert!(t.write_string(
            Some("Options"),
            Some("Level"),
            Some("2"),
            r"C:\GAMES\game.ini"
        ));
        assert_eq!(
            t.get_int(Some("options"), Some("level"), 0, r"C:\GAMES\game.ini"),
            2
        );
        assert_eq!(
            std::fs::read(t.program.join("GAME.INI")).unwrap(),
            b"[Options]\r\nLevel=1\r\n"
        );
    }

    #[test]
    fn sections_are_replaced_whole() {
        let mut t = t();
        let path = r"C:\GAMES\sect.ini";
        t.put_file(path, b"[a]\r\nx=1\r\n; note\r\ny=2\r\n[b]\r\nz=3\r\n");
        let (app, file) = (t.a("a"), t.a(path));
        let list = t.next;
        t.h.proc.mem.write_bytes(list, b"p=7\0q\0\0").unwrap();
        t.next += 8;
        assert!(
            WritePrivateProfileSection::<CStrPtr>(&mut t.h.cx(), app, Ptr(list), file).unwrap()
        );
        assert_eq!(t.file(path).unwrap(), b"[a]\r\np=7\r\nq\r\n[b]\r\nz=3\r\n");
        let c = t.a("c");
        assert!(WritePrivateProfileSection::<CStrPtr>(&mut t.h.cx(), c, Ptr(list), file).unwrap());
        assert_eq!(
            t.file(path).unwrap(),
            b"[a]\r\np=7\r\nq\r\n[b]\r\nz=3\r\n[c]\r\np=7\r\nq\r\n"
        );
        assert!(WritePrivateProfileSection::<CStrPtr>(&mut t.h.cx(), app, Ptr(0), file).unwrap());
        assert_eq!(t.file(path).unwrap(), b"[b]\r\nz=3\r\n[c]\r\np=7\r\nq\r\n");
    }

    #[test]
    fn structs_are_hex_with_a_checksum() {
        let mut t = t();
        let file = "./winetest.ini";
        let (s, k, f) = (t.a("s"), t.a("key"), t.a(file));
        let out = Ptr(t.out);
        assert!(!GetPrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, out, 20, f).unwrap());
        assert_eq!(t.h.last_error(), ERROR_BAD_LENGTH);
        let data = t.a("abacus");
        assert!(
            WritePrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, Ptr(data.0), 7, f).unwrap()
        );
        assert_eq!(
            t.file(r"C:\GAMES\winetest.ini").unwrap(),
            b"[s]\r\nkey=616261637573006F\r\n"
        );
        for size in [6, 8] {
            assert!(
                !GetPrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, out, size, f).unwrap()
            );
            assert_eq!(t.h.last_error(), ERROR_BAD_LENGTH);
        }
        t.clear(0xcc);
        assert!(GetPrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, out, 7, f).unwrap());
        assert_eq!(t.out_bytes(8), b"abacus\0\xcc");
        assert_eq!(
            t.get_string(Some("s"), Some("key"), Some("default"), 20, file),
            16
        );
        assert_eq!(t.out_str(), "616261637573006F");
        for (text, ok) in [
            ("636163747573006F", false),
            ("6361637475730083", true),
            ("636163747573008Q", false),
            ("16361637475730083", false),
        ] {
            t.write_string(Some("s"), Some("key"), Some(text), file);
            assert_eq!(
                GetPrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, out, 7, f).unwrap(),
                ok,
                "{text}"
            );
        }
        assert_eq!(t.out_str(), "cactus");
        assert!(WritePrivateProfileStruct::<CStrPtr>(&mut t.h.cx(), s, k, Ptr(0), 7, f).unwrap());
        assert_eq!(t.file(r"C:\GAMES\winetest.ini").unwrap(), b"[s]\r\n");
    }

    #[test]
    fn win_ini_and_wide_files() {
        let mut t = t();
        let (app, key, value) = (t.a("Desktop"), t.a("Wallpaper"), t.a("(None)"));
        assert!(WriteProfileString::<CStrPtr>(&mut t.h.cx(), app, key, value).unwrap());
        assert_eq!(
            t.file(r"C:\WINDOWS\WIN.INI").unwrap(),
            b"[Desktop]\r\nWallpaper=(None)\r\n"
        );
        let def = t.a("x");
        assert_eq!(
            GetProfileString::<CStrPtr>(&mut t.h.cx(), app, key, def, Ptr(t.out), 100).unwrap(),
            6
        );
        assert_eq!(t.out_str(), "(None)");
        let num = t.a("TileWallpaper");
        assert_eq!(
            GetProfileInt::<CStrPtr>(&mut t.h.cx(), app, num, 5).unwrap(),
            5
        );
        // A NULL file name is WIN.INI too.
        assert_eq!(
            t.get_int(Some("Desktop"), Some("Wallpaper"), 9, "win.ini"),
            0
        );

        // A UTF-16 file stays UTF-16; W calls see its characters.
        let mut bytes = vec![0xff, 0xfe];
        bytes.extend(
            "[Größe]\r\nName=Ärger\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        t.put_file(r"C:\GAMES\uni.ini", &bytes);
        let (s, k, d, f) = (t.w("GRÖßE"), t.w("name"), t.w(""), t.w(r"C:\GAMES\uni.ini"));
        assert_eq!(
            GetPrivateProfileString::<WStrPtr>(&mut t.h.cx(), s, k, d, Ptr(t.out), 50, f).unwrap(),
            5
        );
        assert_eq!(t.h.wstr(t.out), "Ärger");
        let v = t.w("Ölig");
        assert!(WritePrivateProfileString::<WStrPtr>(&mut t.h.cx(), s, k, v, f).unwrap());
        let mut want = vec![0xff, 0xfe];
        want.extend(
            "[Größe]\r\nName=Ölig\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        assert_eq!(t.file(r"C:\GAMES\uni.ini").unwrap(), want);
        // An ANSI file read by the A functions in code page 1252.
        t.put_file(r"C:\GAMES\ansi.ini", b"[S]\r\nK=caf\xe9\r\n");
        assert_eq!(
            t.get_string(Some("s"), Some("k"), None, 50, r"C:\GAMES\ansi.ini"),
            4
        );
        assert_eq!(t.out_bytes(5), b"caf\xe9\0");
    }

    #[test]
    fn parse_int_matches_rtl_rules() {
        assert_eq!(parse_int("  12"), 12);
        assert_eq!(parse_int("0b101"), 5);
        assert_eq!(parse_int("0o17"), 15);
        assert_eq!(parse_int("-0x10"), 0u32.wrapping_sub(16));
        assert_eq!(parse_int("0x"), 0);
        assert_eq!(parse_int("x1"), 0);
    }
}
