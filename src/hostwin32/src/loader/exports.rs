//! Export tables of guest images, and export lookup for GetProcAddress.

use super::map::View;
use super::pe::Headers;
use super::{LoadError, MAX_DEPTH, MAX_EXPORTS, state};
use crate::process::Process;
use object::pe;
use object::read::pe::ExportTable;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What GetProcAddress and an import ask for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExportName {
    /// By name (case-sensitive, as on Windows).
    Name(String),
    /// By ordinal (the low word of GetProcAddress's lpProcName).
    Ordinal(u16),
}

impl std::fmt::Display for ExportName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportName::Name(n) => f.write_str(n),
            ExportName::Ordinal(o) => write!(f, "#{o}"),
        }
    }
}

/// Where an export leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportTarget {
    /// A guest address (already relocated).
    Address(u32),
    /// A forwarder: `dll` (as written, e.g. `NTDLL`) and the export there.
    Forward { dll: String, target: ExportName },
}

/// A guest image's exports.
#[derive(Clone, Debug, Default)]
pub struct ExportDir {
    /// Name -> ordinal.
    pub names: HashMap<String, u32>,
    /// Ordinal -> target (only entries with a non-zero address).
    pub ordinals: BTreeMap<u32, ExportTarget>,
}

impl ExportDir {
    pub fn get(&self, name: &ExportName) -> Option<&ExportTarget> {
        let ord = match name {
            ExportName::Name(n) => *self.names.get(n)?,
            ExportName::Ordinal(o) => *o as u32,
        };
        self.ordinals.get(&ord)
    }

    /// Directly exported (not forwarded) names with their addresses.
    pub fn addresses_by_name(&self) -> impl Iterator<Item = (&String, u32)> {
        self.names
            .iter()
            .filter_map(|(n, o)| match self.ordinals.get(o) {
                Some(ExportTarget::Address(a)) => Some((n, *a)),
                _ => None,
            })
    }
}

/// Parses a forwarder string `DLL.Name` or `DLL.#ordinal`.
pub fn parse_forwarder(s: &[u8]) -> Option<(String, ExportName)> {
    let dot = s.iter().position(|&b| b == b'.')?;
    let (dll, rest) = (&s[..dot], &s[dot + 1..]);
    if dll.is_empty() || rest.is_empty() {
        return None;
    }
    let dll = String::from_utf8_lossy(dll).into_owned();
    let target = match rest.strip_prefix(b"#") {
        Some(digits) => ExportName::Ordinal(std::str::from_utf8(digits).ok()?.parse().ok()?),
        None => ExportName::Name(String::from_utf8_lossy(rest).into_owned()),
    };
    Some((dll, target))
}

fn malformed(name: &str, e: impl std::fmt::Display) -> LoadError {
    LoadError::Malformed {
        name: name.to_string(),
        what: "export table",
        detail: e.to_string(),
    }
}

/// Reads the export directory of an image mapped at `base`. The directory and its
/// tables are read from the unrelocated view; an entry whose address falls inside
/// the export directory is a forwarder (as Windows decides).
pub fn parse(name: &str, view: &View, h: &Headers, base: u32) -> Result<ExportDir, LoadError> {
    let mut dir = ExportDir::default();
    let Some((rva, size)) = h.dir(pe::IMAGE_DIRECTORY_ENTRY_EXPORT) else {
        return Ok(dir);
    };
    let data = view
        .bytes
        .get(rva as usize..)
        .ok_or_else(|| malformed(name, "directory outside the image"))?;
    let table = ExportTable::parse(data, rva).map_err(|e| malformed(name, e))?;
    let d = table.directory();
    let nfuncs = d.number_of_functions.get(object::LittleEndian) as usize;
    let nnames = d.number_of_names.get(object::LittleEndian) as usize;
    if nfuncs > MAX_EXPORTS || nnames > MAX_EXPORTS {
        return Err(LoadError::TooMany {
            name: name.to_string(),
            what: "exports",
            limit: MAX_EXPORTS,
        });
    }
    let ord_base = table.ordinal_base();
    let fwd_range = rva as u64..rva as u64 + size as u64;
    for (i, a) in table.addresses().iter().enumerate() {
        let a = a.get(object::LittleEndian);
        if a == 0 {
            continue;
        }
        let ordinal = ord_base.wrapping_add(i as u32);
        let target = if fwd_range.contains(&(a as u64)) {
            // Forwarder strings are short; a missing terminator must not make one
            // the size of the image.
            let end = (a as usize + 512).min(view.bytes.len());
            let s = view
                .bytes
                .get(a as usize..end)
                .and_then(|t| t.split(|&b| b == 0).next())
                .unwrap_or(&[]);
            match parse_forwarder(s) {
                Some((dll, target)) => ExportTarget::Forward { dll, target },
                None => {
                    log::warn!(
                        "{name}: export #{ordinal} has a malformed forwarder {:?}; ignored",
                        String::from_utf8_lossy(s)
                    );
                    continue;
                }
            }
        } else {
            ExportTarget::Address(base.wrapping_add(a))
        };
        dir.ordinals.insert(ordinal, target);
    }
    for (ptr, index) in table.name_iter() {
        let n = table
            .name_from_pointer(ptr)
            .map_err(|e| malformed(name, e))?;
        let Some(n) = super::name_string(n) else {
            log::warn!("{name}: export name at {ptr:#x} is too long; ignored");
            continue;
        };
        dir.names
            .entry(n)
            .or_insert(ord_base.wrapping_add(index as u32));
    }
    Ok(dir)
}

/// The address `module` exports as `name`, following forwarders through loaded
/// guest DLLs and the HLE DLLs — what GetProcAddress returns, or `None` for
/// ERROR_PROC_NOT_FOUND.
///
/// `module` is a module handle (base address): a guest image or an HLE DLL's
/// pseudo-module. For HLE DLLs, a name the DLL does not export gives `None` (the
/// caller may still choose to hand out [`Process::missing_thunk`]). Forwarders to a
/// guest DLL that is not loaded give `None`: this lookup never loads DLLs (import
/// resolution at load time does). Data exports of HLE DLLs are allocated and
/// initialised on first lookup.
pub fn resolve_export(proc: &Arc<Process>, module: u32, name: &ExportName) -> Option<u32> {
    resolve_in(proc, Module::Base(module), name, 0)
}

enum Module<'a> {
    Base(u32),
    Named(&'a str),
}

fn resolve_in(proc: &Arc<Process>, m: Module, name: &ExportName, depth: u32) -> Option<u32> {
    if depth > MAX_DEPTH {
        log::warn!("forwarded export {name} nested more than {MAX_DEPTH} deep");
        return None;
    }
    let forward = {
        let st = state(proc);
        let img = match &m {
            Module::Base(b) => st.image(*b),
            Module::Named(n) => st.image_named(n),
        };
        match img {
            Some(img) => match img.exports.get(name)? {
                ExportTarget::Address(a) => return Some(*a),
                ExportTarget::Forward { dll, target } => (dll.clone(), target.clone()),
            },
            None => {
                drop(st);
                let idx = match m {
                    Module::Base(b) => super::hle_module::dll_of(proc, b)?,
                    Module::Named(n) => proc.hle_dll(n)?,
                };
                return hle_export(proc, idx, name);
            }
        }
    };
    resolve_in(proc, Module::Named(&forward.0), &forward.1, depth + 1)
}

/// An HLE DLL's export by name or by its declared ordinal.
pub fn hle_export(proc: &Arc<Process>, dll: usize, name: &ExportName) -> Option<u32> {
    let (dll_name, exports) = (proc.dlls[dll].0, &proc.dlls[dll].1);
    // What the real DLL exports under this name or ordinal (the system export table).
    let real = match name {
        ExportName::Name(n) => crate::sysexports::lookup(dll_name, n),
        ExportName::Ordinal(o) => crate::sysexports::lookup_ordinal(dll_name, *o),
    };
    let index = match name {
        ExportName::Name(n) => exports.iter().position(|e| e.name == n.as_str()),
        // Only explicit ordinals count: the ones a pseudo-module's export directory
        // invents for the rest are not real ordinals of the DLL.
        ExportName::Ordinal(o) => {
            exports
                .iter()
                .position(|e| e.ordinal == Some(*o))
                .or_else(|| {
                    exports
                        .iter()
                        .position(|e| Some(e.name) == real.map(|r| r.name))
                })
        }
    };
    let Some(k) = index else {
        // A real export winterp does not implement: a thunk that behaves like its
        // import (a report naming it, or the stub with the right stack cleanup).
        // Variables cannot be faked with code: those stay unresolved. Neither do
        // names XP does not export: programs probe for those and take another path
        // on NULL, as they do on the Windows winterp emulates. (An ordinal is asked
        // for on purpose, by a program built against that DLL: it gets the thunk.)
        let by_name = matches!(name, ExportName::Name(_));
        let e = real.filter(|e| e.kind.is_code() && !(by_name && e.not_in_xp))?;
        return Some(proc.missing_thunk(dll_name, e.name));
    };
    let addr = match proc.export_address(dll, k) {
        Ok(a) => a,
        Err(e) => {
            log::warn!("{}!{name}: {e}", proc.dlls[dll].0);
            return None;
        }
    };
    let mut st = state(proc);
    if let Err(e) = proc.init_new_data_exports(&mut st.data_inited) {
        log::warn!(
            "{}!{name}: initialising data exports: {e}",
            proc.dlls[dll].0
        );
        return None;
    }
    Some(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarders_parse_by_name_and_ordinal() {
        assert_eq!(
            parse_forwarder(b"NTDLL.RtlAllocateHeap"),
            Some((
                "NTDLL".to_string(),
                ExportName::Name("RtlAllocateHeap".into())
            ))
        );
        assert_eq!(
            parse_forwarder(b"tlib2.#12"),
            Some(("tlib2".to_string(), ExportName::Ordinal(12)))
        );
        assert_eq!(parse_forwarder(b"nodot"), None);
        assert_eq!(parse_forwarder(b"X.#notanumber"), None);
        assert_eq!(parse_forwarder(b".Name"), None);
        assert_eq!(parse_forwarder(b"X."), None);
    }
}
