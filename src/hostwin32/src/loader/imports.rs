//! Import resolution: for each imported DLL, every IAT slot gets the address of
//! the function it names (by name or ordinal) — a guest DLL's export, an HLE
//! thunk, or a "missing" thunk that reports the call. A slot is never left 0.
//!
//! The descriptors are walked as Windows walks them: the directory's size is not
//! looked at; the table ends at the first descriptor without a name or without an
//! IAT (the rest of a terminator need not be zero, and a table may be nothing but
//! a terminator); a descriptor whose IAT starts with 0 imports nothing and is
//! skipped without loading its DLL. Bound imports are never trusted: whatever the
//! descriptor's TimeDateStamp and the bound import directory say, and whatever
//! addresses a binder left in the IAT, every slot is resolved again from the names
//! (OriginalFirstThunk, or the IAT itself when that is 0, as Borland links).

use super::exports::ExportName;
use super::map::View;
use super::pe::Headers;
use super::session::Session;
use super::{LoadError, MAX_IMPORT_DLLS, MAX_IMPORTS, name_string};
use object::pe::{self, ImageNtHeaders32};
use object::read::ReadRef;
use object::read::pe::{Import, ImportTable};

fn malformed(name: &str, e: impl std::fmt::Display) -> LoadError {
    LoadError::Malformed {
        name: name.to_string(),
        what: "import table",
        detail: e.to_string(),
    }
}

/// Resolves the imports of the image `name` mapped at `base` and writes its IATs.
pub fn resolve(
    s: &mut Session,
    name: &str,
    base: u32,
    h: &Headers,
    view: &View,
) -> Result<usize, LoadError> {
    let Some((rva, _)) = h.dir(pe::IMAGE_DIRECTORY_ENTRY_IMPORT) else {
        return Ok(0);
    };
    // The whole image is the "section": names and thunk lists may lie anywhere in it.
    let table = ImportTable::new(&view.bytes, 0, rva);
    let limit = h.mapped_size() as u64;
    let le = object::LittleEndian;
    let (mut ndlls, mut nimports) = (0usize, 0usize);
    let mut at = rva as u64;
    loop {
        let d: &pe::ImageImportDescriptor =
            view.bytes
                .as_slice()
                .read_at(at)
                .map_err(|()| LoadError::BadRva {
                    name: name.to_string(),
                    what: "import descriptor",
                    rva: at.min(u32::MAX as u64) as u32,
                    size: 20,
                })?;
        at += 20;
        let iat = d.first_thunk.get(le);
        if d.name.get(le) == 0 || iat == 0 {
            break;
        }
        ndlls += 1;
        if ndlls > MAX_IMPORT_DLLS {
            return Err(LoadError::TooMany {
                name: name.to_string(),
                what: "imported DLLs",
                limit: MAX_IMPORT_DLLS,
            });
        }
        if view.u32_at(iat) == Some(0) {
            continue;
        }
        let dll = table.name(d.name.get(le)).map_err(|e| malformed(name, e))?;
        let dll = name_string(dll).ok_or_else(|| malformed(name, "DLL name too long"))?;
        // Borland linkers leave OriginalFirstThunk 0; the names are then in the IAT.
        let names_at = match d.original_first_thunk.get(le) {
            0 => iat,
            n => n,
        };
        let provider = s.provider(&dll, base)?;
        let mut thunks = table.thunks(names_at).map_err(|e| malformed(name, e))?;
        let mut slot = iat as u64;
        while let Some(t) = thunks
            .next::<ImageNtHeaders32>()
            .map_err(|e| malformed(name, e))?
        {
            nimports += 1;
            if nimports > MAX_IMPORTS {
                return Err(LoadError::TooMany {
                    name: name.to_string(),
                    what: "imports",
                    limit: MAX_IMPORTS,
                });
            }
            let what = match table
                .import::<ImageNtHeaders32>(t)
                .map_err(|e| malformed(name, e))?
            {
                Import::Ordinal(o) => ExportName::Ordinal(o),
                Import::Name(_, n) => ExportName::Name(
                    name_string(n).ok_or_else(|| malformed(name, "import name too long"))?,
                ),
            };
            if slot + 4 > limit {
                return Err(LoadError::BadRva {
                    name: name.to_string(),
                    what: "import address table",
                    rva: iat,
                    size: (slot - iat as u64 + 4) as u32,
                });
            }
            let addr = s.resolve(&provider, &dll, &what, base, 0)?;
            s.proc
                .mem
                .write_bytes(base + slot as u32, &addr.to_le_bytes())
                .map_err(|f| LoadError::fault(name, f))?;
            slot += 4;
        }
    }
    Ok(nimports)
}

#[cfg(test)]
mod tests {
    use crate::loader::map::tests::{load_with, new_proc, u32_at};
    use crate::loader::pe::tests::{Img, NUM_DIRS};
    use crate::loader::{ExportName, LoadError, resolve_export};
    use crate::process::Process;
    use object::pe as pec;

    /// Minimal image with a 0x1000-byte data section at RVA 0x1000 (file 0x200) for
    /// import tables: descriptors at 0x1100, name lists at 0x1200, IATs at 0x1280,
    /// hint/name entries at 0x1300, DLL names at 0x1380.
    struct Imp(Img);

    impl Imp {
        fn new() -> Imp {
            let mut m = Img::minimal();
            m.section(0, ".idata", 0x1000, 0x1000, 0x200, 0x400, 0xc000_0040);
            m.put(0x5ff, &[0]);
            let mut i = Imp(m);
            i.at(0x1300, b"\0\0GetTickCount\0");
            i.at(0x1320, b"\0\0Sleep\0");
            i.at(0x1380, b"KERNEL32.dll\0");
            i.at(0x1390, b"USER32.dll\0");
            i.at(0x13a0, b"broken.dll\0");
            i
        }

        fn at(&mut self, rva: u32, b: &[u8]) {
            self.0.put((rva - 0x1000 + 0x200) as usize, b);
        }

        fn words(&mut self, rva: u32, w: &[u32]) {
            let b: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.at(rva, &b);
        }

        /// Descriptor `k`: OriginalFirstThunk, TimeDateStamp, ForwarderChain, Name,
        /// FirstThunk.
        fn desc(&mut self, k: u32, d: [u32; 5]) {
            self.words(0x1100 + 20 * k, &d);
        }

        /// KERNEL32!GetTickCount as descriptor `k`, names at 0x1200, IAT at 0x1280.
        fn kernel32(&mut self, k: u32) {
            self.words(0x1200, &[0x1300, 0]);
            self.words(0x1280, &[0x1300, 0]);
            self.desc(k, [0x1200, 0, 0, 0x1380, 0x1280]);
        }

        fn load(&mut self, dir_size: u32) -> Result<(std::sync::Arc<Process>, u32), LoadError> {
            self.load_with(dir_size, Vec::new())
        }

        fn load_with(
            &mut self,
            dir_size: u32,
            dlls: Vec<(String, Vec<u8>)>,
        ) -> Result<(std::sync::Arc<Process>, u32), LoadError> {
            self.0
                .dir(pec::IMAGE_DIRECTORY_ENTRY_IMPORT, 0x1100, dir_size);
            let proc = new_proc();
            let base = load_with(&proc, &self.0.f, dlls)?;
            Ok((proc, base))
        }
    }

    fn tick(proc: &Process) -> u32 {
        proc.resolve_hle("KERNEL32.dll", "GetTickCount").unwrap()
    }

    /// Windows ends the descriptors at the first one with no name or no IAT; the
    /// rest of such a terminator need not be zero.
    #[test]
    fn a_terminator_needs_only_a_zero_name_or_iat() {
        let mut i = Imp::new();
        i.kernel32(0);
        i.words(0x1210, &[0x1320, 0]);
        i.words(0x1290, &[0x1320, 0]);
        i.desc(1, [0x1210, 0, 0, 0, 0x1290]);
        let (proc, base) = i.load(40).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
        assert_eq!(
            u32_at(&proc, base + 0x1290),
            0x1320,
            "the terminator was resolved"
        );
        // A name but no IAT is a terminator too.
        i.desc(1, [0x1210, 0, 0, 0x1390, 0]);
        let (proc, base) = i.load(40).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
        assert!(
            proc.modules
                .read()
                .unwrap()
                .iter()
                .all(|m| !m.name.eq_ignore_ascii_case("USER32.dll"))
        );
    }

    /// An import directory that is only a terminator, or whose size is 0: the size
    /// is not looked at (as in Windows), the descriptors are.
    #[test]
    fn an_empty_import_directory_and_one_of_size_zero() {
        let mut i = Imp::new();
        i.desc(0, [0x1200, 0, 0, 0, 0]);
        let (_, base) = i.load(20).unwrap();
        assert_eq!(base, 0x40_0000);
        let mut i = Imp::new();
        i.kernel32(0);
        let (proc, base) = i.load(0).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
    }

    /// A descriptor whose IAT starts with 0 imports nothing: Windows skips it
    /// without loading its DLL (here a broken file that would fail to load).
    #[test]
    fn a_descriptor_with_an_empty_iat_is_skipped() {
        let mut i = Imp::new();
        i.words(0x1220, &[0x1300, 0]);
        i.words(0x12a0, &[0, 0]);
        i.desc(0, [0x1220, 0, 0, 0x13a0, 0x12a0]);
        i.kernel32(1);
        let dlls = vec![("broken.dll".to_string(), b"MZ, but not a PE".to_vec())];
        let (proc, base) = i.load_with(60, dlls).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
        assert_eq!(u32_at(&proc, base + 0x12a0), 0);
    }

    /// Bound imports are never trusted: stale (or any) bound addresses in the IAT
    /// are replaced by what the names resolve to.
    #[test]
    fn bound_imports_are_resolved_again() {
        for (stamp, chain) in [(0xffff_ffff, 0xffff_ffff), (0x1234_5678, 0)] {
            let mut i = Imp::new();
            i.kernel32(0);
            i.words(0x1280, &[0x7c80_1234, 0]);
            i.desc(0, [0x1200, stamp, chain, 0x1380, 0x1280]);
            // IMAGE_BOUND_IMPORT_DESCRIPTOR: a stale timestamp for KERNEL32.
            i.words(0x13c0, &[0x1234_5678, 0x10, 0, 0]);
            i.at(0x13d0, b"KERNEL32.dll\0");
            i.0.dir(pec::IMAGE_DIRECTORY_ENTRY_BOUND_IMPORT, 0x13c0, 0x20);
            let (proc, base) = i.load(40).unwrap();
            assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
        }
    }

    /// OriginalFirstThunk 0 (Borland): the names are read from the IAT.
    #[test]
    fn without_original_first_thunk_the_names_are_in_the_iat() {
        let mut i = Imp::new();
        i.kernel32(0);
        i.desc(0, [0, 0, 0, 0x1380, 0x1280]);
        let (proc, base) = i.load(40).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1280), tick(&proc));
    }

    /// A packed program with no import directory at all (not even a data directory)
    /// finds its APIs through KERNEL32's LoadLibrary and GetProcAddress, which every
    /// process has.
    #[test]
    fn a_program_without_imports_has_kernel32_for_getprocaddress() {
        let mut m = Img::minimal();
        m.opt32(NUM_DIRS, 0);
        let proc = new_proc();
        load_with(&proc, &m.f, Vec::new()).unwrap();
        let k32 = proc
            .modules
            .read()
            .unwrap()
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case("KERNEL32.dll"))
            .map(|m| m.base)
            .expect("KERNEL32 loaded");
        for api in ["LoadLibraryA", "GetProcAddress"] {
            assert_eq!(
                resolve_export(&proc, k32, &ExportName::Name(api.into())),
                Some(proc.resolve_hle("KERNEL32.dll", api).unwrap()),
                "{api}"
            );
        }
    }
}
