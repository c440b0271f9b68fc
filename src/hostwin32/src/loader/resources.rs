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

struct Tree<'a> {
    proc: &'a Process,
    /// Guest address of the root directory.
    root: u32,
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

impl Tree<'_> {
    fn u32_at(&self, off: u32) -> Option<u32> {
        if off.checked_add(4)? > self.size {
            return None;
        }
        let mut b = [0u8; 4];
        self.proc.mem.read_bytes(self.root + off, &mut b).ok()?;
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
        self.proc
            .mem
            .read_bytes(self.root + off + 2, &mut raw)
            .ok()?;
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
}

fn tree(proc: &Process, module: u32) -> Option<Tree<'_>> {
    let st = state(proc);
    let img = st.image(module)?;
    let (rva, size) = img.resources?;
    Some(Tree {
        proc,
        root: module.wrapping_add(rva),
        size,
        image_size: img.size,
    })
}

/// The language-neutral fallbacks FindResource tries when no language is given:
/// neutral, the user's and the system's default, US English; then any language.
const LANG_FALLBACK: [u16; 4] = [0x0000, 0x0400, 0x0800, 0x0409];

/// Finds resource `name` of type `ty` in the guest image at `module` and returns
/// its data's (RVA, size); the data is at `module + RVA`.
///
/// With `lang = Some(l)` only language `l` matches (FindResourceEx). With `None`
/// (FindResource) the languages in [`LANG_FALLBACK`] are tried in order, then the
/// first language present. HLE pseudo-modules have no resources.
/// Whether module `module` has any resource of type `ty`.
pub fn has_type(proc: &Process, module: u32, ty: &ResId) -> bool {
    tree(proc, module).is_some_and(|t| t.subdir(0, ty).is_some())
}

pub fn find_resource(
    proc: &Process,
    module: u32,
    ty: &ResId,
    name: &ResId,
    lang: Option<u16>,
) -> Option<(u32, u32)> {
    let t = tree(proc, module)?;
    let types = t.subdir(0, ty)?;
    let langs = t.subdir(types, name)?;
    let entries = t.entries(langs)?;
    let leaf = |e: &Entry| (e.target & 0x8000_0000 == 0).then_some(e.target);
    let pick = match lang {
        Some(l) => entries.iter().find(|e| e.name == l as u32).and_then(leaf),
        None => LANG_FALLBACK
            .iter()
            .find_map(|&l| entries.iter().find(|e| e.name == l as u32).and_then(leaf))
            .or_else(|| entries.iter().find_map(leaf)),
    }?;
    t.data(pick)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_numbers_are_ids() {
        assert_eq!(ResId::from_name("#101"), ResId::Id(101));
        assert_eq!(ResId::from_name("MYDATA"), ResId::Name("MYDATA".into()));
        assert_eq!(ResId::from_name("#x"), ResId::Name("#x".into()));
        assert_eq!(ResId::from_name("#70000"), ResId::Name("#70000".into()));
    }
}
