//! The registry file: the text format of regedit's `.reg` exports, so a user can read
//! and edit a program's registry with a text editor (and import keys exported from a
//! real Windows).
//!
//! Written as "Windows Registry Editor Version 5.00" in UTF-8 (regedit itself writes
//! that header in UTF-16; UTF-8 is kinder to host editors):
//!
//! ```text
//! Windows Registry Editor Version 5.00
//!
//! [HKEY_LOCAL_MACHINE\Software\Vendor\Game]
//! @="default value"
//! "Path"="C:\\GAMES\\GAME"
//! "Level"=dword:00000003
//! "Blob"=hex:01,02,03
//! "Search"=hex(2):25,00,50,00,41,00,54,00,48,00,25,00,00,00
//! ```
//!
//! Every key is written below its real root (HKEY_LOCAL_MACHINE or HKEY_USERS);
//! volatile keys are left out. A REG_SZ is written as a quoted string only when that
//! round-trips exactly (one terminating NUL, no other NUL, no line breaks, valid
//! UTF-16); otherwise as `hex(1):`, and any other type as `hex(N):` with the stored
//! bytes, so nothing is lost. Key classes and last-write times are not kept.
//!
//! Reading accepts both headers (under `REGEDIT4` the text bytes of `hex(1)`,
//! `hex(2)` and `hex(7)` are ANSI, under version 5 UTF-16), files in UTF-8,
//! Windows-1252 or UTF-16LE with a byte-order mark, the alias roots
//! (HKEY_CURRENT_USER, HKEY_CLASSES_ROOT, HKEY_CURRENT_CONFIG and the HKLM-style
//! abbreviations), `[-key]` to delete a key, `"name"=-` to delete a value, `;`
//! comments and `\` line continuations.

use super::hive::{self, Hive, NodeId, REG_BINARY, REG_DWORD, REG_SZ, Root, Value};
use crate::kernel32::string::decode_ansi;

pub const HEADER_V5: &str = "Windows Registry Editor Version 5.00";
pub const HEADER_V4: &str = "REGEDIT4";

/// Hex bytes after which a line is continued.
const BYTES_PER_LINE: usize = 25;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegFileError {
    #[error("the file does not start with \"{HEADER_V4}\" or \"{HEADER_V5}\"")]
    Header,
    #[error("line {line}: {what}")]
    Syntax { line: usize, what: String },
}

fn syntax(line: usize, what: impl Into<String>) -> RegFileError {
    RegFileError::Syntax {
        line,
        what: what.into(),
    }
}

// ---- writing ----------------------------------------------------------------------------

/// The file's text for every stable key of `hive`. Keys or values whose names hold
/// line breaks cannot be written in this format; they are left out with a warning.
pub fn write(hive: &Hive) -> String {
    let mut out = format!("{HEADER_V5}\n\n");
    for root in [Root::LocalMachine, Root::Users, Root::DynData] {
        write_key(hive, hive.root(root), &mut out);
    }
    out
}

fn has_line_break(s: &str) -> bool {
    s.contains(['\r', '\n'])
}

fn write_key(hive: &Hive, id: NodeId, out: &mut String) {
    let Some(node) = hive.node(id) else { return };
    if node.volatile {
        return;
    }
    if has_line_break(&node.name) {
        log::warn!(
            "registry: key {:?} has a line break in its name and is not saved",
            hive.path(id)
        );
        return;
    }
    if !hive.is_root(id) || !node.values.is_empty() {
        out.push('[');
        out.push_str(&hive.path(id));
        out.push_str("]\n");
        for v in &node.values {
            if has_line_break(&v.name) {
                log::warn!(
                    "registry: value {:?} of {} has a line break in its name and is not saved",
                    v.name,
                    hive.path(id)
                );
                continue;
            }
            out.push_str(&value_line(v));
            out.push('\n');
        }
        out.push('\n');
    }
    for c in hive.children(id) {
        write_key(hive, c, out);
    }
}

fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '\\' || c == '"' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

/// The text of REG_SZ data that a quoted string reproduces exactly.
fn plain_string(data: &[u8]) -> Option<String> {
    if data.len() < 2 || !data.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let (last, body) = units.split_last()?;
    if *last != 0 || body.contains(&0) {
        return None;
    }
    String::from_utf16(body).ok().filter(|s| !has_line_break(s))
}

fn value_line(v: &Value) -> String {
    let mut s = if v.name.is_empty() {
        "@".to_string()
    } else {
        quote(&v.name)
    };
    s.push('=');
    let text = (v.kind == REG_SZ).then(|| plain_string(&v.data)).flatten();
    match (v.kind, text) {
        (_, Some(t)) => s.push_str(&quote(&t)),
        (REG_DWORD, None) if v.data.len() == 4 => {
            let d = u32::from_le_bytes([v.data[0], v.data[1], v.data[2], v.data[3]]);
            s.push_str(&format!("dword:{d:08x}"));
        }
        (REG_BINARY, None) => push_hex(&mut s, "hex:", &v.data),
        (k, None) => push_hex(&mut s, &format!("hex({k:x}):"), &v.data),
    }
    s
}

fn push_hex(s: &mut String, prefix: &str, data: &[u8]) {
    s.push_str(prefix);
    for (k, b) in data.iter().enumerate() {
        if k > 0 {
            s.push(',');
            if k % BYTES_PER_LINE == 0 {
                s.push_str("\\\n  ");
            }
        }
        s.push_str(&format!("{b:02x}"));
    }
}

// ---- reading ----------------------------------------------------------------------------

/// The text of a file's bytes (see the module comment for the encodings).
pub fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xff, 0xfe]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => decode_ansi(bytes),
    }
}

fn utf16_bytes(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// Adds the keys and values of a `.reg` file to `hive` (applying its deletions).
/// `nt` picks where HKEY_CURRENT_CONFIG lives; `now` stamps the keys.
pub fn read(bytes: &[u8], hive: &mut Hive, nt: bool, now: u64) -> Result<(), RegFileError> {
    let text = decode(bytes);
    let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l));
    let v4 = loop {
        match lines.next() {
            None => return Err(RegFileError::Header),
            Some((_, l)) if l.trim().is_empty() => continue,
            Some((_, l)) if l.trim() == HEADER_V4 => break true,
            Some((_, l)) if l.trim() == HEADER_V5 => break false,
            Some(_) => return Err(RegFileError::Header),
        }
    };
    let mut current: Option<NodeId> = None;
    while let Some((no, line)) = lines.next() {
        let t = line.trim();
        if t.is_empty() || t.starts_with(';') {
            continue;
        }
        if let Some(inner) = t.strip_prefix('[') {
            let end = inner
                .rfind(']')
                .ok_or_else(|| syntax(no, "a key line without its closing ']'"))?;
            let inner = &inner[..end];
            if let Some(path) = inner.strip_prefix('-') {
                if let Some(id) = resolve(hive, path, nt, no, false, now)?
                    && !hive.is_root(id)
                {
                    hive.delete(id, now);
                }
                current = None;
            } else {
                current = resolve(hive, inner, nt, no, true, now)?;
            }
            continue;
        }
        if t.starts_with('"') || t.starts_with('@') {
            let (name, rest) = parse_name(t, no)?;
            let mut data = rest.trim().to_string();
            if data.starts_with("hex") {
                while data.ends_with('\\') {
                    data.pop();
                    match lines.next() {
                        Some((_, more)) => data.push_str(more.trim()),
                        None => return Err(syntax(no, "the file ends inside a continued value")),
                    }
                }
            }
            let Some(key) = current else {
                return Err(syntax(no, "a value before any key"));
            };
            match parse_data(&data, v4, no)? {
                None => {
                    hive.delete_value(key, &name, now);
                }
                Some((kind, bytes)) => hive.set_value(key, &name, kind, bytes, now),
            }
            continue;
        }
        return Err(syntax(no, format!("unrecognised line {t:?}")));
    }
    Ok(())
}

/// The key a file path names (`ROOT\sub\key`), created if `create`.
fn resolve(
    hive: &mut Hive,
    path: &str,
    nt: bool,
    no: usize,
    create: bool,
    now: u64,
) -> Result<Option<NodeId>, RegFileError> {
    let (root_name, rest) = path.split_once('\\').unwrap_or((path, ""));
    let (root, prefix) = hive::alias(root_name, nt)
        .ok_or_else(|| syntax(no, format!("unknown root key {root_name:?}")))?;
    let sub = hive::split_path(rest).map_err(|_| syntax(no, format!("bad key path {path:?}")))?;
    let comps: Vec<&str> = prefix.iter().copied().chain(sub).collect();
    let top = hive.root(root);
    Ok(if create {
        let volatile = hive.is_volatile(top);
        Some(hive.ensure(top, &comps, volatile, now))
    } else {
        hive.lookup(top, &comps)
    })
}

/// A quoted string at the start of `s` (regedit escapes only `\` and `"`); returns
/// it and the text after the closing quote.
fn parse_quoted(s: &str, no: usize) -> Result<(String, &str), RegFileError> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &s[i + 1..])),
            '\\' => match chars.next() {
                Some((_, e)) => out.push(e),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err(syntax(no, "a string without its closing quote"))
}

fn parse_name(t: &str, no: usize) -> Result<(String, &str), RegFileError> {
    let (name, rest) = match t.strip_prefix('@') {
        Some(rest) => (String::new(), rest),
        None => parse_quoted(t, no)?,
    };
    let rest = rest
        .trim_start()
        .strip_prefix('=')
        .ok_or_else(|| syntax(no, "a value name not followed by '='"))?;
    Ok((name, rest))
}

/// The type and bytes a value's data text stands for; `None` for `-` (delete).
fn parse_data(d: &str, v4: bool, no: usize) -> Result<Option<(u32, Vec<u8>)>, RegFileError> {
    if d == "-" {
        return Ok(None);
    }
    if d.starts_with('"') {
        let (s, rest) = parse_quoted(d, no)?;
        if !rest.trim().is_empty() {
            return Err(syntax(no, "text after a string value"));
        }
        let mut data = utf16_bytes(&s);
        data.extend_from_slice(&[0, 0]);
        return Ok(Some((REG_SZ, data)));
    }
    if let Some(h) = d.strip_prefix("dword:") {
        let v = (!h.is_empty() && h.len() <= 8)
            .then(|| u32::from_str_radix(h, 16).ok())
            .flatten()
            .ok_or_else(|| syntax(no, format!("bad dword {h:?}")))?;
        return Ok(Some((REG_DWORD, v.to_le_bytes().to_vec())));
    }
    let (kind, list) = if let Some(list) = d.strip_prefix("hex:") {
        (REG_BINARY, list)
    } else if let Some(rest) = d.strip_prefix("hex(") {
        let (k, list) = rest
            .split_once("):")
            .ok_or_else(|| syntax(no, "a hex(type) without its ':'"))?;
        let kind =
            u32::from_str_radix(k, 16).map_err(|_| syntax(no, format!("bad value type {k:?}")))?;
        (kind, list)
    } else {
        return Err(syntax(no, format!("unrecognised value data {d:?}")));
    };
    let mut bytes = Vec::new();
    for item in list.split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let b = (item.len() <= 2)
            .then(|| u8::from_str_radix(item, 16).ok())
            .flatten()
            .ok_or_else(|| syntax(no, format!("bad hex byte {item:?}")))?;
        bytes.push(b);
    }
    if v4 && hive::is_string(kind) {
        bytes = utf16_bytes(&decode_ansi(&bytes));
    }
    Ok(Some((kind, bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advapi32::hive::{REG_EXPAND_SZ, REG_MULTI_SZ};

    fn w(s: &str) -> Vec<u8> {
        utf16_bytes(s)
    }

    #[test]
    fn round_trip_keeps_every_value_exactly() {
        let mut h = Hive::new(1);
        let lm = h.root(Root::LocalMachine);
        let k = h.ensure(lm, &["Software", "Vendor", "Quote\"d]"], false, 1);
        h.set_value(k, "", REG_SZ, w("default\0"), 1);
        h.set_value(k, "Path", REG_SZ, w("C:\\GAMES\\\"X\"\0"), 1);
        h.set_value(k, "NoNul", REG_SZ, w("abc"), 1);
        h.set_value(k, "Empty", REG_SZ, vec![], 1);
        h.set_value(k, "Lines", REG_SZ, w("a\r\nb\0"), 1);
        h.set_value(k, "Level", REG_DWORD, vec![3, 0, 0, 0], 1);
        h.set_value(k, "Short", REG_DWORD, vec![3, 0], 1);
        h.set_value(k, "Blob", REG_BINARY, (0..60).collect(), 1);
        h.set_value(k, "Exp", REG_EXPAND_SZ, w("%PATH%\0"), 1);
        h.set_value(k, "Multi", REG_MULTI_SZ, w("a\0bc\0\0"), 1);
        h.set_value(k, "Odd", 0x1234, vec![9], 1);
        h.ensure(lm, &["Empty", "Key"], false, 1);
        let volatile = h.ensure(lm, &["Hardware"], true, 1);
        h.set_value(volatile, "x", REG_DWORD, vec![1, 0, 0, 0], 1);
        let text = write(&h);
        assert!(text.starts_with("Windows Registry Editor Version 5.00\n\n"));
        assert!(
            text.contains("[HKEY_LOCAL_MACHINE\\Software\\Vendor\\Quote\"d]]\n@=\"default\"\n")
        );
        assert!(text.contains("\"Path\"=\"C:\\\\GAMES\\\\\\\"X\\\"\"\n"));
        assert!(text.contains("\"Level\"=dword:00000003\n"));
        assert!(text.contains("\"NoNul\"=hex(1):61,00,62,00,63,00\n"));
        assert!(text.contains("\"Odd\"=hex(1234):09\n"));
        assert!(!text.contains("Hardware"));
        let mut back = Hive::new(2);
        read(text.as_bytes(), &mut back, false, 2).unwrap();
        let k2 = back
            .lookup(
                back.root(Root::LocalMachine),
                &["software", "VENDOR", "quote\"d]"],
            )
            .unwrap();
        assert_eq!(back.node(k2).unwrap().values, h.node(k).unwrap().values);
        assert!(
            back.lookup(back.root(Root::LocalMachine), &["Empty", "Key"])
                .is_some()
        );
        assert!(
            back.lookup(back.root(Root::LocalMachine), &["Hardware"])
                .is_none()
        );
        assert_eq!(write(&back), text);
    }

    #[test]
    fn reads_regedit4_aliases_deletions_and_continuations() {
        let text = "REGEDIT4\r\n\r\n; a comment\r\n[HKEY_CURRENT_USER\\Software\\A]\r\n\
                    \"S\"=\"x\"\r\n\"E\"=hex(2):25,41,25,00\r\n\"B\"=hex:01,02,\\\r\n  03\r\n\
                    \"Gone\"=\"y\"\r\n\"Gone\"=-\r\n[HKCR\\.txt]\r\n@=\"txtfile\"\r\n\
                    [HKEY_CURRENT_CONFIG\\Display]\r\n[HKLM\\Software\\Old]\r\n[-HKLM\\Software\\Old]\r\n";
        let mut h = Hive::new(1);
        read(text.as_bytes(), &mut h, false, 1).unwrap();
        let users = h.root(Root::Users);
        let a = h.lookup(users, &[".DEFAULT", "Software", "A"]).unwrap();
        assert_eq!(h.value(a, "s").unwrap().data, w("x\0"));
        // REGEDIT4's hex(2) bytes are ANSI; the hive keeps UTF-16.
        assert_eq!(h.value(a, "E").unwrap().data, w("%A%\0"));
        assert_eq!(h.value(a, "B").unwrap().data, vec![1, 2, 3]);
        assert!(h.value(a, "Gone").is_none());
        let lm = h.root(Root::LocalMachine);
        let txt = h.lookup(lm, &["Software", "Classes", ".txt"]).unwrap();
        assert_eq!(h.value(txt, "").unwrap().data, w("txtfile\0"));
        assert!(h.lookup(lm, &["Config", "0001", "Display"]).is_some());
        assert!(h.lookup(lm, &["Software", "Old"]).is_none());
        // The NT location of HKEY_CURRENT_CONFIG.
        let mut nt = Hive::new(1);
        read(b"REGEDIT4\n[HKCC\\X]\n", &mut nt, true, 1).unwrap();
        let lm = nt.root(Root::LocalMachine);
        assert!(
            nt.lookup(
                lm,
                &[
                    "System",
                    "CurrentControlSet",
                    "Hardware Profiles",
                    "Current",
                    "X"
                ]
            )
            .is_some()
        );
    }

    #[test]
    fn utf16_files_and_errors() {
        let mut bytes = vec![0xff, 0xfe];
        bytes.extend(w(
            "Windows Registry Editor Version 5.00\r\n[HKEY_USERS\\K]\r\n\"V\"=dword:1\r\n",
        ));
        let mut h = Hive::new(1);
        read(&bytes, &mut h, false, 1).unwrap();
        let k = h.lookup(h.root(Root::Users), &["K"]).unwrap();
        assert_eq!(h.value(k, "V").unwrap().data, vec![1, 0, 0, 0]);
        let err = |t: &str| read(t.as_bytes(), &mut Hive::new(1), false, 1).unwrap_err();
        assert_eq!(err("[HKLM\\X]\n"), RegFileError::Header);
        assert_eq!(
            err("REGEDIT4\n\"V\"=\"x\"\n"),
            syntax(2, "a value before any key")
        );
        assert_eq!(
            err("REGEDIT4\n[HKEY_NOWHERE\\X]\n"),
            syntax(2, "unknown root key \"HKEY_NOWHERE\"")
        );
        assert_eq!(
            err("REGEDIT4\n[HKLM\\X]\n\"V\"=dword:123456789\n"),
            syntax(3, "bad dword \"123456789\"")
        );
        assert_eq!(
            err("REGEDIT4\n[HKLM\\X]\n\"V\"=hex:1,zz\n"),
            syntax(3, "bad hex byte \"zz\"")
        );
        assert_eq!(
            err("REGEDIT4\n[HKLM\\X\n"),
            syntax(2, "a key line without its closing ']'")
        );
    }
}
