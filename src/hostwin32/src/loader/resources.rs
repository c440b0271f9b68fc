//! Resource lookup (FindResource, LoadString, dialogs, ...). The resource tree is
//! walked in guest memory at call time, as Windows does, rather than copied at load
//! time: resource sections can be large and lookups are rare. (The `object` crate's
//! resource reader works on a host slice, which would mean copying the section.)
//!
//! Layout (IMAGE_RESOURCE_DIRECTORY): three levels — type, name, language — each a
//! 16-byte header followed by named entries, then id entries (8 bytes each). An
//! entry's name is an id, or (high bit) the offset of a counted UTF-16 string; its
//! data is a subdirectory (high bit) or an IMAGE_RESOURCE_DATA_ENTRY. All offsets
//! are relative to the start of the resource directory.

use super::state;
use crate::process::Process;

/// A resource type, name or language key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResId {
    /// An integer id (MAKEINTRESOURCE).
    Id(u16),
    /// A string name; compared case-insensitively.
    Name(String),
}

impl ResId {
    /// The key a Win32 string argument stands for: `"#123"` means id 123 (as
    /// FindResource documents); anything else is a name.
    pub fn from_name(s: &str) -> ResId {
        if let Some(d) = s.strip_prefix('#')
            && let Ok(n) = d.parse::<u16>()
        {
            return ResId::Id(n);
        }
        ResId::Name(s.to_string())
    }
}

/// Most entries looked at in one directory (the count fields allow 131070).
const MAX_ENTRIES: u32 = 0x2_0000;
/// Longest name compared (the length field is 16-bit).
const MAX_NAME_UNITS: u32 = 0xffff;

/// Where a resource directory's bytes are read from: a loaded image in guest
/// memory (walked at call time, see above), or the bytes of a file on disk
/// (GetFileVersionInfo reads files that are not loaded).
trait DirBytes {
    /// `buf.len()` bytes at offset `off` from the start of the resource directory.
    fn read(&self, off: u32, buf: &mut [u8]) -> Option<()>;
}

/// The resource directory of a loaded image.
struct InGuest<'a> {
    proc: &'a Process,
    /// Guest address of the root directory.
    root: u32,
}

impl DirBytes for InGuest<'_> {
    fn read(&self, off: u32, buf: &mut [u8]) -> Option<()> {
        self.proc
            .mem
            .read_bytes(self.root.wrapping_add(off), buf)
            .ok()
    }
}

/// The resource directory copied out of a file, as it lies in the mapped image.
impl DirBytes for Vec<u8> {
    fn read(&self, off: u32, buf: &mut [u8]) -> Option<()> {
        let at = off as usize;
        buf.copy_from_slice(self.get(at..at.checked_add(buf.len())?)?);
        Some(())
    }
}

struct Tree<S> {
    src: S,
    /// Size of the resource directory (offsets must stay inside it).
    size: u32,
    /// Mapped size of the image (data RVAs must stay inside it).
    image_size: u32,
}

/// One directory entry: its key and what it points to.
struct Entry {
    name: u32,
    target: u32,
}

/// Which level of a lookup found nothing; FindResource has an error code for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    Type,
    Name,
    Language,
}

impl<S: DirBytes> Tree<S> {
    fn u32_at(&self, off: u32) -> Option<u32> {
        if off.checked_add(4)? > self.size {
            return None;
        }
        let mut b = [0u8; 4];
        self.src.read(off, &mut b)?;
        Some(u32::from_le_bytes(b))
    }

    fn entries(&self, dir: u32) -> Option<Vec<Entry>> {
        let counts = self.u32_at(dir.checked_add(12)?)?;
        let n = (counts & 0xffff) + (counts >> 16);
        let n = n.min(MAX_ENTRIES);
        let mut v = Vec::with_capacity(n.min(1024) as usize);
        for k in 0..n {
            let at = dir.checked_add(16 + 8 * k)?;
            v.push(Entry {
                name: self.u32_at(at)?,
                target: self.u32_at(at + 4)?,
            });
        }
        Some(v)
    }

    fn name_of(&self, e: &Entry) -> Option<ResId> {
        if e.name & 0x8000_0000 == 0 {
            return u16::try_from(e.name).ok().map(ResId::Id);
        }
        let off = e.name & 0x7fff_ffff;
        let len = self.u32_at(off)? & 0xffff;
        let len = len.min(MAX_NAME_UNITS);
        if (off as u64) + 2 + 2 * len as u64 > self.size as u64 {
            return None;
        }
        let mut raw = vec![0u8; 2 * len as usize];
        self.src.read(off + 2, &mut raw)?;
        let units: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Some(ResId::Name(String::from_utf16_lossy(&units)))
    }

    fn matches(&self, e: &Entry, want: &ResId) -> bool {
        match (want, self.name_of(e)) {
            (ResId::Id(a), Some(ResId::Id(b))) => *a == b,
            (ResId::Name(a), Some(ResId::Name(b))) => a.to_uppercase() == b.to_uppercase(),
            _ => false,
        }
    }

    /// The subdirectory entry `want` in directory `dir`.
    fn subdir(&self, dir: u32, want: &ResId) -> Option<u32> {
        self.entries(dir)?
            .into_iter()
            .find(|e| e.target & 0x8000_0000 != 0 && self.matches(e, want))
            .map(|e| e.target & 0x7fff_ffff)
    }

    /// (RVA, size) of the IMAGE_RESOURCE_DATA_ENTRY at `off`.
    fn data(&self, off: u32) -> Option<(u32, u32)> {
        let rva = self.u32_at(off)?;
        let size = self.u32_at(off.checked_add(4)?)?;
        if rva as u64 + size as u64 > self.image_size as u64 {
            return None;
        }
        Some((rva, size))
    }

    /// The data entry of resource `name` of type `ty` in language `lang` (see
    /// [`find_resource`] for `None`), or the level where the lookup failed.
    fn lookup(&self, ty: &ResId, name: &ResId, lang: Option<u16>) -> Result<(u32, u32), Missing> {
        let types = self.subdir(0, ty).ok_or(Missing::Type)?;
        let langs = self.subdir(types, name).ok_or(Missing::Name)?;
        let entries = self.entries(langs).ok_or(Missing::Language)?;
        let leaf = |e: &Entry| (e.target & 0x8000_0000 == 0).then_some(e.target);
        let pick = match lang {
            Some(l) => entries.iter().find(|e| e.name == l as u32).and_then(leaf),
            None => LANG_FALLBACK
                .iter()
                .find_map(|&l| entries.iter().find(|e| e.name == l as u32).and_then(leaf))
                .or_else(|| entries.iter().find_map(leaf)),
        }
        .ok_or(Missing::Language)?;
        // A data entry outside the image is as good as none.
        self.data(pick).ok_or(Missing::Language)
    }
}

fn tree(proc: &Process, module: u32) -> Option<Tree<InGuest<'_>>> {
    let st = state(proc);
    let img = st.image(module)?;
    let (rva, size) = img.resources?;
    Some(Tree {
        src: InGuest {
            proc,
            root: module.wrapping_add(rva),
        },
        size,
        image_size: img.size,
    })
}

/// The language-neutral fallbacks FindResource tries when no language is given:
/// neutral, the user's and the system's default, US English; then any language.
const LANG_FALLBACK: [u16; 4] = [0x0000, 0x0400, 0x0800, 0x0409];

/// Whether module `module` has any resource of type `ty`.
pub fn has_type(proc: &Process, module: u32, ty: &ResId) -> bool {
    tree(proc, module).is_some_and(|t| t.subdir(0, ty).is_some())
}

/// Finds resource `name` of type `ty` in the guest image at `module` and returns
/// its data's (RVA, size); the data is at `module + RVA`.
///
/// With `lang = Some(l)` only language `l` matches (FindResourceEx). With `None`
/// (FindResource) the languages in [`LANG_FALLBACK`] are tried in order, then the
/// first language present. HLE pseudo-modules have no resources.
pub fn find_resource(
    proc: &Process,
    module: u32,
    ty: &ResId,
    name: &ResId,
    lang: Option<u16>,
) -> Option<(u32, u32)> {
    tree(proc, module)?.lookup(ty, name, lang).ok()
}

/// The keys in the resource directory under `path` (empty: the types; `[type]`:
/// the names of that type; `[type, name]`: the languages) — for
/// EnumResourceTypes/Names/Languages.
pub fn resource_children(proc: &Process, module: u32, path: &[ResId]) -> Vec<ResId> {
    let Some(t) = tree(proc, module) else {
        return Vec::new();
    };
    let mut dir = 0;
    for p in path.iter().take(2) {
        match t.subdir(dir, p) {
            Some(d) => dir = d,
            None => return Vec::new(),
        }
    }
    t.entries(dir)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| t.name_of(e))
        .collect()
}

/// Why a file gave no resource data ([`find_in_file`]).
#[derive(Debug)]
pub enum FileResError {
    /// The file is not a PE image the loader accepts.
    NotImage(super::LoadError),
    /// The image has no resource directory.
    NoResources,
    /// The lookup failed at this level.
    Missing(Missing),
}

/// Resource `name` of type `ty` (language as for [`find_resource`]) of the PE file
/// whose bytes are `data`: the file is laid out as the loader would map it
/// (`pe::parse`, `map::image_bytes`) and the same directory walk is made, so a
/// file answers exactly as the module would once loaded. For files that are not
/// loaded (GetFileVersionInfo). `name_for_errors` names the file in a parse error.
pub fn find_in_file(
    name_for_errors: &str,
    data: &[u8],
    ty: &ResId,
    name: &ResId,
    lang: Option<u16>,
) -> Result<Vec<u8>, FileResError> {
    let h = super::pe::parse(name_for_errors, data).map_err(FileResError::NotImage)?;
    let (rva, size) = h
        .dir(object::pe::IMAGE_DIRECTORY_ENTRY_RESOURCE)
        .filter(|d| d.1 != 0)
        .ok_or(FileResError::NoResources)?;
    let t = Tree {
        src: super::map::image_bytes(data, &h, rva as u64, size as usize),
        size,
        image_size: h.mapped_size(),
    };
    let (at, len) = t.lookup(ty, name, lang).map_err(FileResError::Missing)?;
    Ok(super::map::image_bytes(data, &h, at as u64, len as usize))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::loader::pe::tests::Img;

    #[test]
    fn hash_numbers_are_ids() {
        assert_eq!(ResId::from_name("#101"), ResId::Id(101));
        assert_eq!(ResId::from_name("MYDATA"), ResId::Name("MYDATA".into()));
        assert_eq!(ResId::from_name("#x"), ResId::Name("#x".into()));
        assert_eq!(ResId::from_name("#70000"), ResId::Name("#70000".into()));
    }

    /// A minimal PE file whose .rsrc section (RVA 0x2000) holds one resource:
    /// type `ty`, id `name`, language `lang`, bytes `data`.
    pub(crate) fn image_with_resource(ty: u16, name: u16, lang: u16, data: &[u8]) -> Vec<u8> {
        let mut m = Img::minimal();
        let dir = |m: &mut Img, at: usize, id: u16, target: u32| {
            m.w16(at + 14, 1); // NumberOfIdEntries
            m.w32(at + 16, id as u32);
            m.w32(at + 20, target);
        };
        const RAW: usize = 0x400;
        const RVA: u32 = 0x2000;
        dir(&mut m, RAW, ty, 0x8000_0018);
        dir(&mut m, RAW + 0x18, name, 0x8000_0030);
        dir(&mut m, RAW + 0x30, lang, 0x48);
        m.w32(RAW + 0x48, RVA + 0x58);
        m.w32(RAW + 0x4c, data.len() as u32);
        m.put(RAW + 0x58, data);
        let raw_size = (0x58 + data.len()).next_multiple_of(0x200) as u32;
        m.put(RAW + raw_size as usize - 1, &[0]);
        m.sections(2);
        m.section(1, ".rsrc", RVA, raw_size, RAW as u32, raw_size, 0x4000_0040);
        m.dir(2, RVA, raw_size);
        m.opt32(
            crate::loader::pe::tests::SIZE_OF_IMAGE,
            RVA + raw_size.next_multiple_of(0x1000),
        );
        m.f
    }

    #[test]
    fn a_file_resource_is_found_as_in_the_loaded_image() {
        let f = image_with_resource(16, 1, 0x0409, b"version bytes");
        let got = |ty: u16, name: u16, lang: Option<u16>| {
            find_in_file("t.exe", &f, &ResId::Id(ty), &ResId::Id(name), lang)
        };
        assert_eq!(got(16, 1, None).unwrap(), b"version bytes");
        assert_eq!(got(16, 1, Some(0x0409)).unwrap(), b"version bytes");
        assert!(matches!(
            got(16, 1, Some(0x0407)),
            Err(FileResError::Missing(Missing::Language))
        ));
        assert!(matches!(
            got(16, 2, None),
            Err(FileResError::Missing(Missing::Name))
        ));
        assert!(matches!(
            got(3, 1, None),
            Err(FileResError::Missing(Missing::Type))
        ));
    }

    #[test]
    fn files_without_resources_or_headers_say_which() {
        let none = Img::minimal().f;
        let want = (ResId::Id(16), ResId::Id(1));
        assert!(matches!(
            find_in_file("t.exe", &none, &want.0, &want.1, None),
            Err(FileResError::NoResources)
        ));
        assert!(matches!(
            find_in_file("t.txt", b"plain text\r\n", &want.0, &want.1, None),
            Err(FileResError::NotImage(_))
        ));
    }
}
