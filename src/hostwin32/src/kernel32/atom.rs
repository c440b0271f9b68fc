//! KERNEL32 atom tables: the process's local table (AddAtom ...) and the global one
//! (GlobalAddAtom ...; one emulated process, so global to it). Delphi's VCL
//! registers its window properties with GlobalAddAtom at start-up.
//!
//! Documented rules: a string atom is case-insensitive, reference-counted and
//! numbered from 0xC000 up; "#1234" and MAKEINTATOM values below 0xC000 are
//! integer atoms that need no table; DeleteAtom returns 0 when it succeeds.

#![allow(non_snake_case)]

use super::misc::err;
use super::string::{encode_ansi, read_ansi, read_wstr, write_wide};
use crate::hle::{ApiDef, ApiResult, Ctx, stdcall};
use crate::teb::set_last_error;
use std::collections::HashMap;

const MAXINTATOM: u32 = 0xc000;
const MAX_NAME: usize = 255;

#[derive(Default)]
pub struct AtomTable {
    /// Upper-cased name -> (atom, name as first added, reference count).
    by_name: HashMap<String, (u16, String, u32)>,
    next: u16,
}

impl AtomTable {
    fn add(&mut self, name: &str) -> Option<u16> {
        let key = name.to_uppercase();
        if let Some(e) = self.by_name.get_mut(&key) {
            e.2 += 1;
            return Some(e.0);
        }
        let atom = MAXINTATOM as u16 + self.next;
        self.next = self.next.checked_add(1).filter(|&n| n < 0x3fff)?;
        self.by_name.insert(key, (atom, name.to_string(), 1));
        Some(atom)
    }

    fn find(&self, name: &str) -> Option<u16> {
        self.by_name.get(&name.to_uppercase()).map(|e| e.0)
    }

    fn name(&self, atom: u16) -> Option<String> {
        self.by_name
            .values()
            .find(|e| e.0 == atom)
            .map(|e| e.1.clone())
    }

    /// Drops one reference; false when there is no such atom.
    fn delete(&mut self, atom: u16) -> bool {
        let Some(key) = self
            .by_name
            .iter()
            .find(|(_, e)| e.0 == atom)
            .map(|(k, _)| k.clone())
        else {
            return false;
        };
        if let Some(e) = self.by_name.get_mut(&key) {
            e.2 -= 1;
            if e.2 == 0 {
                self.by_name.remove(&key);
            }
        }
        true
    }
}

/// What an atom argument names: an integer atom, or a string.
enum AtomArg {
    Int(u16),
    Name(String),
}

fn atom_arg(cx: &Ctx, p: u32, wide: bool) -> ApiResult<Option<AtomArg>> {
    if p < MAXINTATOM {
        return Ok((p != 0).then_some(AtomArg::Int(p as u16)));
    }
    let s = if wide {
        read_wstr(cx.proc, p)?
    } else {
        read_ansi(cx.proc, p)?
    };
    if let Some(d) = s.strip_prefix('#') {
        return Ok(match d.parse::<u32>() {
            Ok(n) if n > 0 && n < MAXINTATOM => Some(AtomArg::Int(n as u16)),
            _ => None,
        });
    }
    if s.chars().count() > MAX_NAME || s.is_empty() {
        return Ok(None);
    }
    Ok(Some(AtomArg::Name(s)))
}

fn table<'a>(cx: &'a Ctx, global: bool) -> std::sync::MutexGuard<'a, AtomTable> {
    let t = if global {
        &cx.proc.k32.global_atoms
    } else {
        &cx.proc.k32.local_atoms
    };
    t.lock().unwrap_or_else(|e| e.into_inner())
}

fn add(cx: &mut Ctx, p: u32, wide: bool, global: bool) -> ApiResult<u32> {
    let added = match atom_arg(cx, p, wide)? {
        Some(AtomArg::Int(n)) => return Ok(n as u32),
        Some(AtomArg::Name(s)) => table(cx, global).add(&s),
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            return Ok(0);
        }
    };
    match added {
        Some(a) => Ok(a as u32),
        None => {
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
            Ok(0)
        }
    }
}

fn find(cx: &mut Ctx, p: u32, wide: bool, global: bool) -> ApiResult<u32> {
    let found = match atom_arg(cx, p, wide)? {
        Some(AtomArg::Int(n)) => Some(n),
        Some(AtomArg::Name(s)) => table(cx, global).find(&s),
        None => None,
    };
    match found {
        Some(a) => Ok(a as u32),
        None => {
            set_last_error(cx, err::ERROR_FILE_NOT_FOUND)?;
            Ok(0)
        }
    }
}

fn delete(cx: &mut Ctx, atom: u32, global: bool) -> ApiResult<u32> {
    if atom > 0 && atom < MAXINTATOM {
        return Ok(0);
    }
    if atom <= 0xffff && table(cx, global).delete(atom as u16) {
        return Ok(0);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(atom)
}

/// Copies the atom's name (with its NUL) into `cch` characters; returns its length.
fn get_name(
    cx: &mut Ctx,
    atom: u32,
    buf: u32,
    cch: i32,
    wide: bool,
    global: bool,
) -> ApiResult<u32> {
    let name = if atom > 0 && atom < MAXINTATOM {
        Some(format!("#{atom}"))
    } else if atom <= 0xffff {
        table(cx, global).name(atom as u16)
    } else {
        None
    };
    let Some(name) = name else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(0);
    };
    if cch <= 0 {
        set_last_error(cx, err::ERROR_MORE_DATA)?;
        return Ok(0);
    }
    let cch = cch as usize;
    if wide {
        let mut u: Vec<u16> = name.encode_utf16().take(cch - 1).collect();
        let n = u.len();
        u.push(0);
        write_wide(cx.proc, buf, &u)?;
        Ok(n as u32)
    } else {
        let mut b = encode_ansi(&name);
        b.truncate(cch - 1);
        let n = b.len();
        b.push(0);
        cx.proc.mem.write_bytes(buf, &b)?;
        Ok(n as u32)
    }
}

pub fn AddAtomA(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    add(cx, lpString, false, false)
}
pub fn AddAtomW(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    add(cx, lpString, true, false)
}
pub fn GlobalAddAtomA(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    add(cx, lpString, false, true)
}
pub fn GlobalAddAtomW(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    add(cx, lpString, true, true)
}
pub fn FindAtomA(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    find(cx, lpString, false, false)
}
pub fn FindAtomW(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    find(cx, lpString, true, false)
}
pub fn GlobalFindAtomA(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    find(cx, lpString, false, true)
}
pub fn GlobalFindAtomW(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    find(cx, lpString, true, true)
}
pub fn DeleteAtom(cx: &mut Ctx, nAtom: u32) -> ApiResult<u32> {
    delete(cx, nAtom, false)
}
pub fn GlobalDeleteAtom(cx: &mut Ctx, nAtom: u32) -> ApiResult<u32> {
    delete(cx, nAtom, true)
}
pub fn GetAtomNameA(cx: &mut Ctx, nAtom: u32, lpBuffer: u32, nSize: i32) -> ApiResult<u32> {
    get_name(cx, nAtom, lpBuffer, nSize, false, false)
}
pub fn GetAtomNameW(cx: &mut Ctx, nAtom: u32, lpBuffer: u32, nSize: i32) -> ApiResult<u32> {
    get_name(cx, nAtom, lpBuffer, nSize, true, false)
}
pub fn GlobalGetAtomNameA(cx: &mut Ctx, nAtom: u32, lpBuffer: u32, nSize: i32) -> ApiResult<u32> {
    get_name(cx, nAtom, lpBuffer, nSize, false, true)
}
pub fn GlobalGetAtomNameW(cx: &mut Ctx, nAtom: u32, lpBuffer: u32, nSize: i32) -> ApiResult<u32> {
    get_name(cx, nAtom, lpBuffer, nSize, true, true)
}
/// The table grows as needed; the size is only a hint.
pub fn InitAtomTable(_cx: &mut Ctx, _nSize: u32) -> bool {
    true
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("AddAtomA", AddAtomA),
        stdcall("AddAtomW", AddAtomW),
        stdcall("GlobalAddAtomA", GlobalAddAtomA),
        stdcall("GlobalAddAtomW", GlobalAddAtomW),
        stdcall("FindAtomA", FindAtomA),
        stdcall("FindAtomW", FindAtomW),
        stdcall("GlobalFindAtomA", GlobalFindAtomA),
        stdcall("GlobalFindAtomW", GlobalFindAtomW),
        stdcall("DeleteAtom", DeleteAtom),
        stdcall("GlobalDeleteAtom", GlobalDeleteAtom),
        stdcall("GetAtomNameA", GetAtomNameA),
        stdcall("GetAtomNameW", GetAtomNameW),
        stdcall("GlobalGetAtomNameA", GlobalGetAtomNameA),
        stdcall("GlobalGetAtomNameW", GlobalGetAtomNameW),
        stdcall("InitAtomTable", InitAtomTable),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_atoms_are_case_insensitive_and_counted() {
        let mut t = AtomTable::default();
        let a = t.add("Delphi").unwrap();
        assert!(a >= 0xc000);
        assert_eq!(t.add("DELPHI"), Some(a));
        assert_eq!(t.find("delphi"), Some(a));
        assert_eq!(t.name(a).as_deref(), Some("Delphi"));
        assert!(t.delete(a));
        assert_eq!(t.find("Delphi"), Some(a), "one reference left");
        assert!(t.delete(a));
        assert_eq!(t.find("Delphi"), None);
        assert!(!t.delete(a));
    }
}
