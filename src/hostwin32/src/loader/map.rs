//! Mapping an image: a host-side view of the image as laid out in memory (for
//! parsing tables by RVA), reserving its guest range, copying headers and
//! sections into it and setting page protections.

use super::LoadError;
use super::pe::{Headers, section_prot};
use crate::address_space::{AddressSpace, USER_MAX, USER_MIN};
use crate::process::Process;
use winterp_core::mem::{PAGE_SIZE, Prot};

/// The image as it lies in memory before relocation, addressed by RVA. Only the
/// headers and section data are ever written, so for a large SizeOfImage the host
/// touches (and the allocator commits) little more than the file's size.
pub struct View {
    pub bytes: Vec<u8>,
}

impl View {
    /// Bytes at `rva..rva+len`, if inside the image.
    pub fn get(&self, rva: u32, len: u32) -> Option<&[u8]> {
        let end = rva as usize + len as usize;
        self.bytes.get(rva as usize..end)
    }

    pub fn u32_at(&self, rva: u32) -> Option<u32> {
        self.get(rva, 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// The file ranges (file offset, RVA, length) that make up the initialised part of
/// the image, in the order they are copied (a later one overlays an earlier one):
/// the headers (for a low-alignment image, the whole mapped file), then each
/// section's raw data. `pe::parse` has made every range lie inside the file and the
/// image; they are clamped here all the same, so that a mistake cannot panic.
fn pieces(data: &[u8], h: &Headers) -> Vec<(usize, u32, usize)> {
    let mapped = h.mapped_size() as usize;
    let fit = |off: usize, rva: u32, len: usize| {
        let len = len
            .min(data.len().saturating_sub(off))
            .min(mapped.saturating_sub(rva as usize));
        (off, rva, len)
    };
    let mut v = Vec::with_capacity(h.sections.len() + 1);
    v.push(fit(0, 0, h.size_of_headers as usize));
    for s in &h.sections {
        if s.copy_len > 0 {
            v.push(fit(s.raw_ptr as usize, s.va, s.copy_len as usize));
        }
    }
    v.retain(|p| p.2 > 0);
    v
}

/// `len` bytes at `rva` of the image as it is mapped (zero where nothing is).
pub fn image_bytes(data: &[u8], h: &Headers, rva: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let want = rva..rva + len as u64;
    for (off, prva, plen) in pieces(data, h) {
        let have = prva as u64..prva as u64 + plen as u64;
        let (from, to) = (want.start.max(have.start), want.end.min(have.end));
        if from < to {
            let src = off + (from - have.start) as usize;
            let dst = (from - want.start) as usize;
            let n = (to - from) as usize;
            out[dst..dst + n].copy_from_slice(&data[src..src + n]);
        }
    }
    out
}

/// Builds the host view.
pub fn build_view(data: &[u8], h: &Headers) -> View {
    let mut bytes = vec![0u8; h.mapped_size() as usize];
    for (off, rva, len) in pieces(data, h) {
        bytes[rva as usize..rva as usize + len].copy_from_slice(&data[off..off + len]);
    }
    View { bytes }
}

/// What keeps `size` bytes at `base` from being reserved, for an error message.
fn occupant(vm: &AddressSpace, base: u32, size: u32) -> String {
    let end = base as u64 + size as u64;
    let holders: Vec<String> = vm
        .reservations()
        .filter(|r| (r.base as u64) < end && (base as u64) < r.base as u64 + r.size as u64)
        .take(3)
        .map(|r| {
            format!(
                "{} at {:#010x}-{:#010x}",
                r.tag,
                r.base,
                r.base as u64 + r.size as u64 - 1
            )
        })
        .collect();
    if !holders.is_empty() {
        format!("taken by {}", holders.join(", "))
    } else if base < USER_MIN || end > USER_MAX as u64 + 1 {
        format!("outside the user address space ({USER_MIN:#010x}-{USER_MAX:#010x})")
    } else {
        "not available".to_string()
    }
}

/// Reserves the image's guest range: at its preferred base if free, else anywhere
/// if it can be relocated ([`Headers::cannot_relocate`]); an image that cannot be is
/// refused with an error naming what holds its base. Returns the base.
pub fn place(proc: &Process, name: &str, h: &Headers) -> Result<u32, LoadError> {
    let size = h.mapped_size();
    let tag = format!("image {name}");
    let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(b) = vm.reserve(Some(h.image_base), size, Prot::R, &tag) {
        return Ok(b);
    }
    if let Some(reason) = h.cannot_relocate() {
        return Err(LoadError::BaseTaken {
            name: name.to_string(),
            base: h.image_base,
            by: occupant(&vm, h.image_base, size),
            reason,
        });
    }
    vm.reserve(None, size, Prot::R, &tag)
        .map_err(|e| LoadError::vm(name, e))
}

/// Commits the image read/write and copies headers and section data into it.
pub fn write(
    proc: &Process,
    name: &str,
    base: u32,
    data: &[u8],
    h: &Headers,
) -> Result<(), LoadError> {
    proc.vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .commit(base, h.mapped_size(), Prot::RW)
        .map_err(|e| LoadError::vm(name, e))?;
    for (off, rva, len) in pieces(data, h) {
        proc.mem
            .write_bytes(base + rva, &data[off..off + len])
            .map_err(|f| LoadError::fault(name, f))?;
    }
    Ok(())
}

/// Sets the final page protections: headers read-only, each section as its
/// characteristics say, and everything RWX for a low-alignment image.
pub fn protect(proc: &Process, name: &str, base: u32, h: &Headers) -> Result<(), LoadError> {
    let mem = &proc.mem;
    let err = |e: winterp_core::mem::MemError| LoadError::Api {
        name: name.to_string(),
        detail: e.to_string(),
    };
    if h.low_alignment() {
        mem.protect(base, h.mapped_size(), Prot::RWX).map_err(err)?;
        return Ok(());
    }
    mem.protect(base, h.mapped_size(), Prot::R).map_err(err)?;
    for s in &h.sections {
        let len = crate::address_space::round_up(s.vsize, PAGE_SIZE);
        if len == 0 {
            continue;
        }
        mem.protect(base + s.va, len, section_prot(s.characteristics))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::loader::pe::tests::{IMAGE_BASE, Img, tiny_e_lfanew_4};
    use crate::loader::{MemoryDlls, state};
    use object::pe as pec;
    use std::sync::Arc;

    pub(crate) fn new_proc() -> Arc<Process> {
        let cfg = crate::process::ProcessConfig::new("t.exe".into(), "C:\\T\\t.exe".into());
        Process::new(
            cfg,
            Arc::new(crate::host::CaptureHost::default()),
            &crate::hle_dlls(),
        )
        .unwrap()
    }

    /// Loads `bytes` as the program of `proc` (with `dlls` beside it); its base.
    pub(crate) fn load_with(
        proc: &Arc<Process>,
        bytes: &[u8],
        dlls: Vec<(String, Vec<u8>)>,
    ) -> Result<u32, LoadError> {
        crate::startup::load_program(proc, bytes, Arc::new(MemoryDlls { files: dlls }))?;
        Ok(state(proc).program().unwrap().base)
    }

    fn load(proc: &Arc<Process>, bytes: &[u8]) -> Result<u32, LoadError> {
        load_with(proc, bytes, Vec::new())
    }

    pub(crate) fn u32_at(proc: &Process, a: u32) -> u32 {
        let mut b = [0u8; 4];
        proc.mem.read_bytes(a, &mut b).unwrap();
        u32::from_le_bytes(b)
    }

    fn block(proc: &Process, base: u32) {
        proc.vm
            .lock()
            .unwrap()
            .reserve(Some(base), 0x1000, Prot::RW, "test blocker")
            .unwrap();
    }

    /// Minimal image whose .text holds a pointer to its own RVA 0x1010 at RVA 0x1000
    /// and a base relocation block for it at RVA 0x1080.
    fn with_relocation() -> Img {
        let mut m = Img::minimal();
        m.section(0, ".text", 0x1000, 0x100, 0x200, 0x200, 0xe000_0020);
        m.w32(0x200, 0x40_1010);
        m.w32(0x280, 0x1000); // block: page RVA
        m.w32(0x284, 12); // SizeOfBlock
        m.w16(0x288, 0x3000); // HIGHLOW at +0, then an ABSOLUTE (padding) entry
        m.dir(pec::IMAGE_DIRECTORY_ENTRY_BASERELOC, 0x1080, 12);
        m
    }

    #[test]
    fn an_image_without_relocations_loads_at_its_preferred_base() {
        let proc = new_proc();
        assert_eq!(load(&proc, &Img::minimal().f).unwrap(), 0x40_0000);
    }

    /// Without a relocation directory (and not marked stripped) an image whose base
    /// is taken is moved with nothing fixed up, as Windows does; marked
    /// IMAGE_FILE_RELOCS_STRIPPED it is refused, naming what holds its base.
    #[test]
    fn a_taken_base_is_an_error_naming_what_holds_it_when_relocations_are_stripped() {
        let proc = new_proc();
        block(&proc, 0x40_0000);
        let base = load(&proc, &Img::minimal().f).unwrap();
        assert_ne!(base, 0x40_0000);
        let mut stripped = Img::minimal();
        stripped.characteristics(0x0103);
        let proc = new_proc();
        block(&proc, 0x40_0000);
        let e = load(&proc, &stripped.f).unwrap_err();
        let LoadError::BaseTaken {
            base, by, reason, ..
        } = &e
        else {
            panic!("{e}");
        };
        assert_eq!(*base, 0x40_0000);
        assert!(by.contains("test blocker at 0x00400000"), "{by}");
        assert!(reason.contains("stripped"), "{reason}");
        assert!(e.to_string().contains("test blocker"), "{e}");
        // A base outside the user address space is named as such.
        let proc = new_proc();
        stripped.opt32(IMAGE_BASE, 0xffff_0000);
        let e = load(&proc, &stripped.f).unwrap_err();
        assert!(
            matches!(&e, LoadError::BaseTaken { by, .. } if by.contains("outside the user address space")),
            "{e}"
        );
        // Relocatable, such an image is moved instead (Corkami's ibkernel).
        let proc = new_proc();
        let mut m = with_relocation();
        m.opt32(IMAGE_BASE, 0xffff_0000);
        m.w32(0x200, 0xffff_1010);
        let base = load(&proc, &m.f).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1000), base + 0x1010);
    }

    #[test]
    fn relocatable_images_move_and_stripped_ones_never_do() {
        let proc = new_proc();
        block(&proc, 0x40_0000);
        let base = load(&proc, &with_relocation().f).unwrap();
        assert_ne!(base, 0x40_0000);
        assert_eq!(u32_at(&proc, base + 0x1000), base + 0x1010);
        // The same image marked IMAGE_FILE_RELOCS_STRIPPED keeps its table unused.
        let proc = new_proc();
        block(&proc, 0x40_0000);
        let mut m = with_relocation();
        m.characteristics(0x0103);
        let e = load(&proc, &m.f).unwrap_err();
        assert!(
            matches!(&e, LoadError::BaseTaken { reason, .. } if reason.contains("stripped")),
            "{e}"
        );
        // At its preferred base it loads, untouched.
        let proc = new_proc();
        assert_eq!(load(&proc, &m.f).unwrap(), 0x40_0000);
        assert_eq!(u32_at(&proc, 0x40_1000), 0x40_1010);
    }

    /// Windows never reads the relocation table of an image at its preferred base.
    #[test]
    fn a_broken_relocation_table_is_not_read_at_the_preferred_base() {
        let mut m = Img::minimal();
        m.dir(pec::IMAGE_DIRECTORY_ENTRY_BASERELOC, 0x7fff_0000, 8);
        let proc = new_proc();
        assert_eq!(load(&proc, &m.f).unwrap(), 0x40_0000);
        // When the image must move, it is an error.
        let proc = new_proc();
        block(&proc, 0x40_0000);
        assert!(matches!(
            load(&proc, &m.f),
            Err(LoadError::BadRva {
                what: "relocation directory",
                ..
            })
        ));
    }

    #[test]
    fn a_tiny_image_is_mapped_flat_and_writable() {
        let proc = new_proc();
        let f = tiny_e_lfanew_4();
        let base = load(&proc, &f).unwrap();
        assert_eq!(base, 0x40_0000);
        let mut got = vec![0u8; f.len()];
        proc.mem.read_bytes(base, &mut got).unwrap();
        assert_eq!(got, f);
        assert_eq!(proc.mem.prot(base + 0x60), Prot::RWX);
        assert_eq!(proc.mem.prot(base + 0x12000), Prot::RWX);
        assert_eq!(u32_at(&proc, base + 0x12000), 0);
    }

    /// Headers reaching past the first section: the section's data wins, and the
    /// loader patches no ImageBase into it when the image moves.
    #[test]
    fn a_section_overlays_headers_that_reach_into_it() {
        let mut m = with_relocation();
        m.opt32(crate::loader::pe::tests::SIZE_OF_HEADERS, 0x1200);
        let text = m.f[0x200..0x400].to_vec();
        m.put(0x1200, &text);
        m.put(0x1000, &[0x99; 0x200]);
        m.section(0, ".text", 0x1000, 0x100, 0x1200, 0x200, 0xe000_0020);
        let proc = new_proc();
        block(&proc, 0x40_0000);
        let base = load(&proc, &m.f).unwrap();
        assert_eq!(u32_at(&proc, base + 0x1000), base + 0x1010);
        assert_eq!(u32_at(&proc, base + 0x1004), 0);
        // The header itself records the new base.
        assert_eq!(u32_at(&proc, base + 0x58 + 28), base);
    }
}
