//! Mapping an image: a host-side view of the image as laid out in memory (for
//! parsing tables by RVA), reserving its guest range, copying headers and
//! sections into it and setting page protections.

use super::LoadError;
use super::pe::{Headers, section_prot};
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
/// the image: the headers, then each section's raw data.
fn pieces(data: &[u8], h: &Headers) -> Vec<(usize, u32, usize)> {
    let mut v = Vec::with_capacity(h.sections.len() + 1);
    let head = if h.low_alignment() {
        // Mapped as one block of the file.
        data.len()
    } else {
        h.size_of_headers as usize
    };
    v.push((0, 0, head.min(data.len()).min(h.mapped_size() as usize)));
    for s in &h.sections {
        if s.copy_len > 0 {
            v.push((s.raw_ptr as usize, s.va, s.copy_len as usize));
        }
    }
    v
}

/// Builds the host view. `parse` has checked every piece lies inside the file and
/// the image.
pub fn build_view(data: &[u8], h: &Headers) -> View {
    let mut bytes = vec![0u8; h.mapped_size() as usize];
    for (off, rva, len) in pieces(data, h) {
        bytes[rva as usize..rva as usize + len].copy_from_slice(&data[off..off + len]);
    }
    View { bytes }
}

/// Reserves the image's guest range: at its preferred base if free, else anywhere
/// (then it must be relocatable). Returns the base.
pub fn place(proc: &Process, name: &str, h: &Headers) -> Result<u32, LoadError> {
    let size = h.mapped_size();
    let tag = format!("image {name}");
    let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(b) = vm.reserve(Some(h.image_base), size, Prot::R, &tag) {
        return Ok(b);
    }
    if h.relocs_stripped() {
        return Err(LoadError::BaseTaken {
            name: name.to_string(),
            base: h.image_base,
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
