//! What a program is before it runs: the compiler or runtime that built it and the
//! packer that wrapped it (when recognised), and every function it imports with
//! what winterp can do for it. `winterp check` prints this before its trial run.
//!
//! Recognition reads facts a linker or packer leaves in the file: section names
//! (UPX0/UPX1, .aspack, CODE/DATA/BSS), the optional header's linker version, and
//! the copyright strings run-time libraries carry.

use crate::loader::session::is_known_dll;
use crate::process::dll_key;
use crate::sysexports;
use object::LittleEndian as LE;
use object::pe::ImageNtHeaders32;
use object::read::pe::{Import, PeFile32};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What winterp does when the program calls an import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportStatus {
    /// An HLE function serves it.
    Implemented,
    /// A real export of the system DLL that winterp does not implement: the call
    /// stops with a report naming it (or returns 0 with `--stub-unimplemented`).
    Unimplemented,
    /// Neither winterp nor the real DLL has it (Windows would refuse to load).
    Missing,
    /// Provided by a DLL that ships with the program (runs as guest code).
    GuestDll,
}

impl ImportStatus {
    pub fn label(self) -> &'static str {
        match self {
            ImportStatus::Implemented => "implemented",
            ImportStatus::Unimplemented => "unimplemented",
            ImportStatus::Missing => "missing",
            ImportStatus::GuestDll => "guest DLL",
        }
    }
}

#[derive(Clone, Debug)]
pub struct ImportedFunction {
    /// The name, or `#ordinal` (with the name the export table gives it).
    pub name: String,
    pub status: ImportStatus,
}

#[derive(Clone, Debug)]
pub struct ImportedDll {
    pub name: String,
    pub functions: Vec<ImportedFunction>,
}

#[derive(Clone, Debug, Default)]
pub struct Inspection {
    /// `MSVC 6`, `Borland C++`, `Delphi`, `Watcom`, `MinGW (GCC)` ..., if recognised.
    pub runtime: Option<String>,
    /// `UPX`, `ASPack`, ... if recognised.
    pub packer: Option<String>,
    pub linker: (u8, u8),
    pub gui: bool,
    pub imports: Vec<ImportedDll>,
    /// Why the file could not be read as a PE image (the run still reports).
    pub error: Option<String>,
}

impl Inspection {
    /// Imports with a status other than implemented or guest DLL.
    pub fn gaps(&self) -> impl Iterator<Item = (&str, &ImportedFunction)> {
        self.imports.iter().flat_map(|d| {
            d.functions
                .iter()
                .filter(|f| {
                    matches!(
                        f.status,
                        ImportStatus::Unimplemented | ImportStatus::Missing
                    )
                })
                .map(move |f| (d.name.as_str(), f))
        })
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Packer by section names and markers (facts of each packer's output format).
fn packer(sections: &[String], bytes: &[u8]) -> Option<String> {
    let has = |n: &str| sections.iter().any(|s| s.eq_ignore_ascii_case(n));
    let p = if has("UPX0") || has("UPX1") {
        "UPX"
    } else if has(".aspack") || has(".adata") && contains(bytes, b"aPLib") {
        "ASPack"
    } else if has("PEC2") || has("pec1") || has("PEC2TO") || has("PECompact2") {
        "PECompact"
    } else if has(".petite") {
        "Petite"
    } else if has(".nsp0") || has(".nsp1") {
        "NsPack"
    } else if has(".MPRESS1") {
        "MPRESS"
    } else if has("kkrunchy") || contains(bytes, b"kkrunchy") {
        "kkrunchy"
    } else if contains(bytes, b"Crinkler") {
        "Crinkler"
    } else if has(".WWP32") || has("WWPACK") {
        "WWPack32"
    } else if has(".neolit") || has(".neolite") {
        "NeoLite"
    } else if has("pebundle") || has("PEBundle") {
        "PEBundle"
    } else if has(".shrink1") {
        "Shrinker"
    } else {
        return None;
    };
    Some(p.to_string())
}

/// Compiler or runtime by the strings its libraries carry and the linker version.
fn runtime(sections: &[String], linker: (u8, u8), dlls: &[String], bytes: &[u8]) -> Option<String> {
    let has = |n: &str| sections.iter().any(|s| s == n);
    let imports = |n: &str| dlls.iter().any(|d| dll_key(d) == n);
    let r = if contains(bytes, b"SOFTWARE\\Borland\\Delphi")
        || contains(bytes, b"Borland\\Delphi")
        || (has("CODE") && has("DATA") && contains(bytes, b"TObject"))
    {
        "Delphi".to_string()
    } else if contains(bytes, b"Borland C++") || contains(bytes, b"Borland C/C++") {
        "Borland C++".to_string()
    } else if contains(bytes, b"WATCOM C/C++") || contains(bytes, b"Open Watcom") {
        "Watcom C/C++".to_string()
    } else if contains(bytes, b"GCC: (GNU)")
        || contains(bytes, b"libgcc")
        || contains(bytes, b"mingw")
    {
        "MinGW (GCC)".to_string()
    } else if contains(bytes, b"Microsoft Visual C++ Runtime Library")
        || imports("msvcrt")
        || imports("msvcrt20")
        || imports("msvcrt40")
        || imports("msvcr70")
        || imports("msvcr71")
    {
        let crt = if imports("msvcrt") || imports("msvcr70") || imports("msvcr71") {
            "msvcrt.dll"
        } else {
            "static libc"
        };
        match linker.0 {
            2..=7 => format!("MSVC {}.{} ({crt})", linker.0, linker.1),
            _ => format!("MSVC ({crt}, linker {}.{})", linker.0, linker.1),
        }
    } else {
        return None;
    };
    Some(r)
}

/// The implemented function names of each HLE DLL, by normalised DLL name.
fn implemented() -> HashMap<String, HashSet<&'static str>> {
    crate::hle_dlls()
        .into_iter()
        .map(|d| {
            let names = (d.exports)().into_iter().map(|e| e.name).collect();
            (dll_key(d.name), names)
        })
        .collect()
}

/// Inspects the program image `bytes`; `program_dir` is where DLLs that ship with
/// it would be.
pub fn inspect(bytes: &[u8], program_dir: Option<&Path>) -> Inspection {
    let mut out = Inspection::default();
    let file = match PeFile32::parse(bytes) {
        Ok(f) => f,
        Err(e) => {
            out.error = Some(format!("not a readable 32-bit PE image: {e}"));
            return out;
        }
    };
    let opt = &file.nt_headers().optional_header;
    out.linker = (opt.major_linker_version, opt.minor_linker_version);
    out.gui = opt.subsystem.get(LE) == object::pe::IMAGE_SUBSYSTEM_WINDOWS_GUI;
    let sections: Vec<String> = file
        .section_table()
        .iter()
        .map(|s| String::from_utf8_lossy(s.raw_name()).into_owned())
        .collect();
    out.packer = packer(&sections, bytes);
    let hle = implemented();
    let local: HashSet<String> = program_dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default();
    match file.import_table() {
        Ok(Some(table)) => {
            if let Err(e) = read_imports(&table, &hle, &local, &mut out.imports) {
                out.error = Some(format!("import table: {e}"));
            }
        }
        Ok(None) => {}
        Err(e) => out.error = Some(format!("import table: {e}")),
    }
    let dlls: Vec<String> = out.imports.iter().map(|d| d.name.clone()).collect();
    out.runtime = runtime(&sections, out.linker, &dlls, bytes);
    out
}

fn read_imports(
    table: &object::read::pe::ImportTable,
    hle: &HashMap<String, HashSet<&'static str>>,
    local: &HashSet<String>,
    out: &mut Vec<ImportedDll>,
) -> object::read::Result<()> {
    let mut descriptors = table.descriptors()?;
    while let Some(d) = descriptors.next()? {
        let name = String::from_utf8_lossy(table.name(d.name.get(LE))?).into_owned();
        let key = dll_key(&name);
        let file = if key.contains('.') {
            key.clone()
        } else {
            format!("{key}.dll")
        };
        let guest = !is_known_dll(&file) && local.contains(&file);
        let thunks_at = match d.original_first_thunk.get(LE) {
            0 => d.first_thunk.get(LE),
            n => n,
        };
        let mut functions = Vec::new();
        let mut thunks = table.thunks(thunks_at)?;
        while let Some(t) = thunks.next::<ImageNtHeaders32>()? {
            let (label, real_name) = match table.import::<ImageNtHeaders32>(t)? {
                Import::Name(_, n) => {
                    let n = String::from_utf8_lossy(n).into_owned();
                    (n.clone(), Some(n))
                }
                Import::Ordinal(o) => match sysexports::lookup_ordinal(&name, o) {
                    Some(e) => (format!("#{o} ({})", e.name), Some(e.name.to_string())),
                    None => (format!("#{o}"), None),
                },
            };
            let status = if guest {
                ImportStatus::GuestDll
            } else {
                let served = hle_lookup(hle, &key);
                match &real_name {
                    Some(n) if served.is_some_and(|s| s.contains(n.as_str())) => {
                        ImportStatus::Implemented
                    }
                    Some(n) if sysexports::lookup(&name, n).is_some_and(|e| e.kind.is_code()) => {
                        ImportStatus::Unimplemented
                    }
                    _ => ImportStatus::Missing,
                }
            };
            functions.push(ImportedFunction {
                name: label,
                status,
            });
        }
        out.push(ImportedDll { name, functions });
    }
    Ok(())
}

/// The HLE DLL serving `key`, as the loader finds it (the C runtime's API sets
/// are ucrtbase).
fn hle_lookup<'a>(
    hle: &'a HashMap<String, HashSet<&'static str>>,
    key: &str,
) -> Option<&'a HashSet<&'static str>> {
    if crate::ucrtbase::is_crt_api_set(key) {
        return hle.get("ucrtbase");
    }
    hle.get(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guest_bin(name: &str) -> Vec<u8> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/guest/bin")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn a_mingw_program_and_its_imports() {
        let i = inspect(&guest_bin("sysexports.exe"), None);
        assert_eq!(i.error, None);
        assert_eq!(i.runtime.as_deref(), Some("MinGW (GCC)"));
        assert_eq!(i.packer, None);
        let k32 = i
            .imports
            .iter()
            .find(|d| dll_key(&d.name) == "kernel32")
            .expect("imports KERNEL32");
        let status = |n: &str| k32.functions.iter().find(|f| f.name == n).map(|f| f.status);
        assert_eq!(status("GetProcAddress"), Some(ImportStatus::Implemented));
        assert_eq!(status("BackupRead"), Some(ImportStatus::Unimplemented));
        let gaps: Vec<String> = i.gaps().map(|(d, f)| format!("{d}!{}", f.name)).collect();
        assert_eq!(gaps, vec!["KERNEL32.dll!BackupRead".to_string()]);
    }

    #[test]
    fn packers_by_section_names() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            packer(&s(&["UPX0", "UPX1", ".rsrc"]), b"").as_deref(),
            Some("UPX")
        );
        assert_eq!(
            packer(&s(&[".text", ".aspack"]), b"").as_deref(),
            Some("ASPack")
        );
        assert_eq!(packer(&s(&[".text", ".data"]), b""), None);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let i = inspect(b"MZ this is not a program", None);
        assert!(i.error.is_some());
        assert!(i.imports.is_empty());
    }
}
