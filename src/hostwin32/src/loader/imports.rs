//! Import resolution: for each imported DLL, every IAT slot gets the address of
//! the function it names (by name or ordinal) — a guest DLL's export, an HLE
//! thunk, or a "missing" thunk that reports the call. A slot is never left 0.

use super::exports::ExportName;
use super::map::View;
use super::pe::Headers;
use super::session::Session;
use super::{LoadError, MAX_IMPORT_DLLS, MAX_IMPORTS, name_string};
use object::pe::{self, ImageNtHeaders32};
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
    let mut descriptors = table.descriptors().map_err(|e| malformed(name, e))?;
    let limit = h.mapped_size() as u64;
    let (mut ndlls, mut nimports) = (0usize, 0usize);
    while let Some(d) = descriptors.next().map_err(|e| malformed(name, e))? {
        ndlls += 1;
        if ndlls > MAX_IMPORT_DLLS {
            return Err(LoadError::TooMany {
                name: name.to_string(),
                what: "imported DLLs",
                limit: MAX_IMPORT_DLLS,
            });
        }
        let le = object::LittleEndian;
        let dll = table.name(d.name.get(le)).map_err(|e| malformed(name, e))?;
        let dll = name_string(dll).ok_or_else(|| malformed(name, "DLL name too long"))?;
        let iat = d.first_thunk.get(le);
        if iat == 0 {
            return Err(malformed(name, format!("{dll}: no import address table")));
        }
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
