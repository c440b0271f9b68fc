//! PE32 header parsing and validation. Uses the `object` crate's header structs;
//! the checks are ours so that each malformation gets its own [`LoadError`].
//!
//! The rules are the Windows loader's, not the PE specification's, so that packed
//! executables and demoscene packers' tiny images load as they do on Windows
//! (sources: Microsoft's PE/COFF specification, Corkami's PE notes and proofs of
//! concept, pelib's model of the NT section mapper, ReactOS's loader):
//! - Section raw data: SizeOfRawData 0 or PointerToRawData 0 means the section has no
//!   file data (it is zero-filled). Otherwise the data starts at PointerToRawData
//!   rounded down to a 512-byte sector (so a pointer below 0x200 maps from the start
//!   of the file, the header) and ends at PointerToRawData + SizeOfRawData rounded
//!   up to FileAlignment, but SizeOfRawData counts for no more than the page-rounded
//!   virtual size and the data stops at the end of the file (the rest is zero). Only
//!   a file whose *last* section's data is cut short is refused as truncated (NT's
//!   check). VirtualSize 0 means SizeOfRawData.
//! - The headers are mapped at RVA 0: SizeOfHeaders bytes (not rounded up to
//!   FileAlignment; extended to the end of the section table when smaller), cut at
//!   the end of the file and where the first section begins: a section may overlay
//!   headers that reach past its address, and the data directories are then read
//!   from the image as mapped (the "folded header"), as NTDLL does.
//! - SectionAlignment below the page size: the file is mapped as one block,
//!   RVA = file offset, readable, writable and executable; sections only need their
//!   address equal to their file offset. The optional header is read as its fixed
//!   224-byte structure whatever SizeOfOptionalHeader says (that field only places
//!   the section table), zero past the end of the file, so tiny images whose PE
//!   header overlaps the DOS header (e_lfanew 4, as Crinkler writes it) load.
//! - Relocations: an image marked IMAGE_FILE_RELOCS_STRIPPED is never moved from
//!   its preferred base (`map::place` refuses it, naming what holds the base); one
//!   without a relocation directory is moved with nothing to fix up, as Windows does
//!   ([`Headers::cannot_relocate`]). An image at its preferred base never reads its
//!   relocation table, so a broken one does no harm.
//! - Data directories: at most 16 and none past NumberOfRvaAndSizes. Directories the
//!   loader reads at load time (imports, TLS) must start inside the image (Windows
//!   would fault); their sizes are not used. Export and resource directories,
//!   read only on demand, are treated as absent when they lie outside the image;
//!   the relocation directory is checked only when it is used.

use super::{LoadError, MAX_IMAGE_SIZE, MAX_SECTIONS};
use crate::address_space::GRANULARITY;
use object::LittleEndian as LE;
use object::pe;
use object::read::ReadRef;
use winterp_core::mem::PAGE_SIZE;

/// One section header, with the sizes Windows actually uses.
#[derive(Clone, Debug)]
pub struct Section {
    pub name: String,
    pub va: u32,
    /// VirtualSize, or SizeOfRawData when VirtualSize is 0 (as Windows does).
    pub vsize: u32,
    /// File offset the section's data is copied from (PointerToRawData rounded down
    /// to a sector); 0 when there is none.
    pub raw_ptr: u32,
    /// Bytes copied from the file to `va` (see the module notes); the rest of the
    /// section is zero. Always 0 in a low-alignment image, which is mapped whole.
    pub copy_len: u32,
    pub characteristics: u32,
}

/// The headers of a validated PE32 image.
#[derive(Clone, Debug)]
pub struct Headers {
    pub characteristics: u16,
    pub image_base: u32,
    /// AddressOfEntryPoint (an RVA; 0 = none).
    pub entry: u32,
    pub section_alignment: u32,
    pub file_alignment: u32,
    pub size_of_image: u32,
    /// Bytes of the file mapped at RVA 0 as the headers: SizeOfHeaders extended to
    /// the end of the section table, cut at the end of the file and at the first
    /// section's address (sections overlay the headers); for a low-alignment image,
    /// the whole mapped file.
    pub size_of_headers: u32,
    pub subsystem: u16,
    pub dll_characteristics: u16,
    pub stack_reserve: u32,
    pub stack_commit: u32,
    /// Data directories (RVA, size), as read from the mapped headers; missing ones
    /// are (0, 0), and so are export and resource directories outside the image.
    pub dirs: [(u32, u32); 16],
    pub sections: Vec<Section>,
    /// File offset of the PE signature (e_lfanew).
    pub nt_offset: u32,
}

/// Offset of ImageBase inside the optional header.
pub const OPT_IMAGE_BASE: u32 = 28;
/// Offset of NumberOfRvaAndSizes (the data directories follow it).
const OPT_NUM_DIRS: u32 = 92;
/// Size of IMAGE_OPTIONAL_HEADER32 with its 16 data directories.
const OPT_FULL: usize = 224;
/// Windows rounds section file offsets down to this (a disk sector).
const SECTOR: u32 = 0x200;

impl Headers {
    pub fn is_dll(&self) -> bool {
        self.characteristics & pe::IMAGE_FILE_DLL != 0
    }

    pub fn relocs_stripped(&self) -> bool {
        self.characteristics & pe::IMAGE_FILE_RELOCS_STRIPPED != 0
    }

    /// Why the image cannot be moved from its preferred base, if it cannot. Windows
    /// refuses to move only an image marked IMAGE_FILE_RELOCS_STRIPPED; one that
    /// merely has no relocation directory is moved with nothing to fix up (linkers
    /// leave the directory out of position-independent DLLs).
    pub fn cannot_relocate(&self) -> Option<&'static str> {
        self.relocs_stripped()
            .then_some("its relocations are stripped (IMAGE_FILE_RELOCS_STRIPPED)")
    }

    /// Has a base relocation directory (with a non-zero size).
    pub fn has_relocations(&self) -> bool {
        matches!(self.dir(pe::IMAGE_DIRECTORY_ENTRY_BASERELOC), Some((_, size)) if size != 0)
    }

    /// A data directory that is present (non-zero RVA).
    pub fn dir(&self, index: usize) -> Option<(u32, u32)> {
        self.dirs.get(index).copied().filter(|d| d.0 != 0)
    }

    /// SectionAlignment below the page size: Windows maps such an image as one
    /// block of the file, readable, writable and executable.
    pub fn low_alignment(&self) -> bool {
        self.section_alignment < PAGE_SIZE
    }

    /// Bytes the image occupies in guest memory: SizeOfImage rounded up to the
    /// section alignment (at least a page).
    pub fn mapped_size(&self) -> u32 {
        crate::address_space::round_up(self.size_of_image, self.section_alignment.max(PAGE_SIZE))
    }

    /// Guest offset of the ImageBase field (patched when the image is relocated).
    pub fn image_base_field(&self) -> u32 {
        self.nt_offset + 4 + 20 + OPT_IMAGE_BASE
    }
}

fn bad(name: &str, what: impl Into<String>) -> LoadError {
    LoadError::BadHeader {
        name: name.to_string(),
        what: what.into(),
    }
}

fn truncated(name: &str, what: &'static str) -> LoadError {
    LoadError::Truncated {
        name: name.to_string(),
        what,
    }
}

fn bad_section(name: &str, s: &str, what: String) -> LoadError {
    LoadError::BadSection {
        name: name.to_string(),
        section: s.to_string(),
        what,
    }
}

fn round_up64(v: u64, to: u64) -> u64 {
    v.div_ceil(to.max(1)) * to.max(1)
}

/// Parses and validates the headers of `data` (a whole file named `name`).
pub fn parse(name: &str, data: &[u8]) -> Result<Headers, LoadError> {
    if data.len() < 2 || data[..2] != *b"MZ" {
        return Err(LoadError::NoMz {
            name: name.to_string(),
        });
    }
    let dos: &pe::ImageDosHeader = data
        .read_at(0)
        .map_err(|()| truncated(name, "DOS header"))?;
    let nt_offset = dos.e_lfanew.get(LE);
    let sig: &[u8] = data
        .read_bytes_at(nt_offset as u64, 4)
        .map_err(|()| LoadError::NoPe {
            name: name.to_string(),
            offset: nt_offset,
        })?;
    if sig != b"PE\0\0" {
        return Err(LoadError::NoPe {
            name: name.to_string(),
            offset: nt_offset,
        });
    }
    let fh: &pe::ImageFileHeader = data
        .read_at(nt_offset as u64 + 4)
        .map_err(|()| truncated(name, "file header"))?;
    let machine = fh.machine.get(LE);
    if machine != pe::IMAGE_FILE_MACHINE_I386 {
        return Err(LoadError::NotI386 {
            name: name.to_string(),
            machine,
        });
    }
    let opt_offset = nt_offset as u64 + 4 + 20;
    let opt_size = fh.size_of_optional_header.get(LE) as u32;
    // Windows reads the optional header as its fixed-size structure from the header
    // page, zero past the end of the file; SizeOfOptionalHeader only tells where the
    // section table starts (it may even be smaller than the structure).
    let avail = data.get(opt_offset as usize..).unwrap_or(&[]);
    if avail.len() < 2 {
        return Err(truncated(name, "optional header"));
    }
    let mut opt_bytes = [0u8; OPT_FULL];
    let n = avail.len().min(OPT_FULL);
    opt_bytes[..n].copy_from_slice(&avail[..n]);
    let opt: &pe::ImageOptionalHeader32 = (&opt_bytes[..])
        .read_at(0)
        .map_err(|()| truncated(name, "optional header"))?;
    let magic = opt.magic.get(LE);
    if magic != pe::IMAGE_NT_OPTIONAL_HDR32_MAGIC {
        return Err(LoadError::NotPe32 {
            name: name.to_string(),
            magic,
        });
    }

    let characteristics = fh.characteristics.get(LE);
    if characteristics & pe::IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
        return Err(bad(
            name,
            "not marked as an executable image (an object file?)",
        ));
    }
    let section_alignment = opt.section_alignment.get(LE);
    let file_alignment = opt.file_alignment.get(LE);
    if !section_alignment.is_power_of_two() || !file_alignment.is_power_of_two() {
        return Err(bad(
            name,
            format!(
                "SectionAlignment {section_alignment:#x} / FileAlignment {file_alignment:#x} \
                 must be powers of two"
            ),
        ));
    }
    if file_alignment > section_alignment {
        return Err(bad(
            name,
            format!(
                "FileAlignment {file_alignment:#x} is larger than SectionAlignment \
                 {section_alignment:#x}"
            ),
        ));
    }
    let size_of_image = opt.size_of_image.get(LE);
    if size_of_image == 0 {
        return Err(bad(name, "SizeOfImage is 0"));
    }
    if size_of_image > MAX_IMAGE_SIZE {
        return Err(LoadError::ImageTooLarge {
            name: name.to_string(),
            size: size_of_image,
        });
    }
    let size_of_headers = opt.size_of_headers.get(LE);
    if size_of_headers > size_of_image {
        return Err(bad(
            name,
            format!("SizeOfHeaders {size_of_headers:#x} exceeds SizeOfImage {size_of_image:#x}"),
        ));
    }
    let mapped = crate::address_space::round_up(size_of_image, section_alignment.max(PAGE_SIZE));
    if mapped > MAX_IMAGE_SIZE {
        return Err(LoadError::ImageTooLarge {
            name: name.to_string(),
            size: mapped,
        });
    }
    // An ImageBase whose image would not fit the address space is no error: the
    // image is relocated, or refused by `map::place` if it cannot be.
    let image_base = opt.image_base.get(LE);
    if !image_base.is_multiple_of(GRANULARITY) {
        return Err(bad(
            name,
            format!("ImageBase {image_base:#010x} is not a multiple of 64 KiB"),
        ));
    }
    let entry = opt.address_of_entry_point.get(LE);

    let nsec = fh.number_of_sections.get(LE) as usize;
    if nsec > MAX_SECTIONS {
        return Err(LoadError::TooMany {
            name: name.to_string(),
            what: "sections",
            limit: MAX_SECTIONS,
        });
    }
    // The headers are mapped with the image (and patched when it is relocated), so
    // they must lie inside it.
    let table_offset = opt_offset + opt_size as u64;
    let headers_end = table_offset + 40 * nsec as u64;
    if headers_end > mapped as u64 {
        return Err(bad(
            name,
            format!("headers end at {headers_end:#x}, past the image's {mapped:#x} bytes"),
        ));
    }
    let low = section_alignment < PAGE_SIZE;
    let table_bytes: std::borrow::Cow<[u8]> =
        match data.get(table_offset as usize..headers_end as usize) {
            Some(b) => b.into(),
            // A low-alignment image's section table may run past the end of the file
            // (it is read from the mapped file, zero there); a normal image whose
            // table is cut is a truncated file.
            None if low => {
                let mut v = vec![0u8; 40 * nsec];
                let have = data.get(table_offset as usize..).unwrap_or(&[]);
                let n = have.len().min(v.len());
                v[..n].copy_from_slice(&have[..n]);
                v.into()
            }
            None => return Err(truncated(name, "section table")),
        };
    let table: &[pe::ImageSectionHeader] = if nsec == 0 {
        &[]
    } else {
        (&*table_bytes)
            .read_slice_at(0, nsec)
            .map_err(|()| truncated(name, "section table"))?
    };

    let mut h = Headers {
        characteristics,
        image_base,
        entry,
        section_alignment,
        file_alignment,
        size_of_image,
        size_of_headers,
        subsystem: opt.subsystem.get(LE),
        dll_characteristics: opt.dll_characteristics.get(LE),
        stack_reserve: opt.size_of_stack_reserve.get(LE),
        stack_commit: opt.size_of_stack_commit.get(LE),
        dirs: [(0, 0); 16],
        sections: Vec::with_capacity(nsec),
        nt_offset,
    };
    parse_sections(name, data, table, &mut h)?;
    h.size_of_headers = header_len(&h, data.len() as u64, size_of_headers, {
        let opt_end = opt_offset + OPT_FULL as u64;
        opt_end.max(headers_end)
    });

    // NumberOfRvaAndSizes and the directories, read from the image as mapped (a
    // section may overlay the end of the headers), as NTDLL reads them. Windows
    // looks at no more than 16 and none past NumberOfRvaAndSizes.
    let raw = super::map::image_bytes(data, &h, opt_offset + OPT_NUM_DIRS as u64, 4 + 8 * 16);
    let word = |o: usize| u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]);
    let ndirs = word(0).min(16) as usize;
    for k in 0..ndirs {
        h.dirs[k] = (word(4 + 8 * k), word(8 + 8 * k));
    }
    check_directories(name, &mut h)?;
    if entry != 0 && entry >= h.mapped_size() {
        return Err(LoadError::BadRva {
            name: name.to_string(),
            what: "entry point",
            rva: entry,
            size: 0,
        });
    }
    Ok(h)
}

/// The file range Windows maps for a section of a normal image, as (file offset,
/// length); see the module notes.
fn raw_range(
    ptr: u32,
    raw_size: u32,
    vsize: u32,
    file_alignment: u32,
    file_len: u64,
) -> (u32, u32) {
    if ptr == 0 || raw_size == 0 {
        return (0, 0);
    }
    let page = PAGE_SIZE as u64;
    let size = (raw_size as u64).min(round_up64(vsize as u64, page));
    // A FileAlignment below a sector makes Windows refuse a normal image; such files
    // are taken at their word.
    let start = if file_alignment >= SECTOR {
        ptr & !(SECTOR - 1)
    } else {
        ptr
    } as u64;
    let end = round_up64(ptr as u64 + size, file_alignment as u64)
        .min(start + round_up64(size, page))
        .min(file_len);
    if end <= start {
        return (0, 0);
    }
    (start as u32, (end - start) as u32)
}

/// Bytes of the file mapped at RVA 0 as the headers (see [`Headers::size_of_headers`]).
fn header_len(h: &Headers, file_len: u64, size_of_headers: u32, structs_end: u64) -> u32 {
    let mapped = h.mapped_size() as u64;
    if h.low_alignment() {
        // The file is mapped as one block: as far as SizeOfImage rounded up to a
        // sector (Windows XP), at least a page.
        let want = round_up64(h.size_of_image as u64, SECTOR as u64).max(PAGE_SIZE as u64);
        return want.min(file_len).min(mapped) as u32;
    }
    let first_section = h
        .sections
        .iter()
        .filter(|s| s.vsize != 0)
        .map(|s| s.va as u64)
        .min()
        .unwrap_or(u64::MAX);
    (size_of_headers as u64)
        .max(structs_end)
        .min(file_len)
        .min(first_section)
        .min(mapped) as u32
}

fn parse_sections(
    name: &str,
    data: &[u8],
    table: &[pe::ImageSectionHeader],
    h: &mut Headers,
) -> Result<(), LoadError> {
    let image_end = h.mapped_size() as u64;
    let file_len = data.len() as u64;
    // End of the previous section's address range (rounded to SectionAlignment).
    let mut prev_end = 0u64;
    let mut prev_name = String::new();
    for (i, s) in table.iter().enumerate() {
        let raw_name = &s.name[..s.name.iter().position(|&b| b == 0).unwrap_or(8)];
        let sname = String::from_utf8_lossy(raw_name).into_owned();
        let va = s.virtual_address.get(LE);
        let raw_size = s.size_of_raw_data.get(LE);
        let vsize = match s.virtual_size.get(LE) {
            0 => raw_size,
            v => v,
        };
        // No raw size means no raw data, whatever the pointer says (Windows clears
        // the pointer of such a section, a Borland linker quirk).
        let raw_ptr = if raw_size == 0 {
            0
        } else {
            s.pointer_to_raw_data.get(LE)
        };
        if va % h.section_alignment != 0 {
            return Err(bad_section(
                name,
                &sname,
                format!(
                    "address {va:#x} is not a multiple of SectionAlignment {:#x}",
                    h.section_alignment
                ),
            ));
        }
        let mut sec = Section {
            name: sname,
            va,
            vsize,
            raw_ptr: 0,
            copy_len: 0,
            characteristics: s.characteristics.get(LE),
        };
        if h.low_alignment() {
            // The file is mapped whole; a section only has to be where its data is.
            if raw_ptr != 0 && raw_ptr != va {
                return Err(bad_section(
                    name,
                    &sec.name,
                    format!(
                        "file offset {raw_ptr:#x} differs from its address {va:#x}, which a \
                         SectionAlignment below the page size requires"
                    ),
                ));
            }
            h.sections.push(sec);
            continue;
        }
        let end = va as u64 + vsize as u64;
        if end > image_end {
            return Err(bad_section(
                name,
                &sec.name,
                format!(
                    "{va:#x}+{vsize:#x} extends past SizeOfImage {:#x}",
                    h.size_of_image
                ),
            ));
        }
        if (va as u64) < prev_end {
            return Err(bad_section(
                name,
                &sec.name,
                format!("address {va:#x} overlaps {prev_name}"),
            ));
        }
        // Data cut by the end of the file is zero-filled, except in the last
        // section: Windows refuses such a file as truncated.
        let wanted = raw_size.min(vsize);
        if i + 1 == table.len() && raw_ptr != 0 && raw_ptr as u64 + wanted as u64 > file_len {
            return Err(bad_section(
                name,
                &sec.name,
                format!(
                    "raw data {raw_ptr:#x}+{wanted:#x} of the last section lies past the end \
                     of the file ({file_len:#x} bytes): truncated"
                ),
            ));
        }
        (sec.raw_ptr, sec.copy_len) =
            raw_range(raw_ptr, raw_size, vsize, h.file_alignment, file_len);
        prev_end = round_up64(end, h.section_alignment as u64);
        prev_name = format!("section {:?}", sec.name);
        h.sections.push(sec);
    }
    Ok(())
}

/// Checks the directories the loader reads at load time and drops those it reads
/// on demand when they lie outside the image (see the module notes).
fn check_directories(name: &str, h: &mut Headers) -> Result<(), LoadError> {
    let image = h.mapped_size() as u64;
    let needed: [(usize, &'static str, u64); 2] = [
        (pe::IMAGE_DIRECTORY_ENTRY_IMPORT, "import directory", 20),
        (pe::IMAGE_DIRECTORY_ENTRY_TLS, "TLS directory", 24),
    ];
    for (index, what, len) in needed {
        if let Some((rva, size)) = h.dir(index)
            && rva as u64 + len > image
        {
            return Err(LoadError::BadRva {
                name: name.to_string(),
                what,
                rva,
                size,
            });
        }
    }
    let on_demand: [(usize, &'static str, u64); 2] = [
        (pe::IMAGE_DIRECTORY_ENTRY_EXPORT, "export directory", 40),
        (pe::IMAGE_DIRECTORY_ENTRY_RESOURCE, "resource directory", 16),
    ];
    for (index, what, len) in on_demand {
        let Some((rva, size)) = h.dir(index) else {
            continue;
        };
        if rva as u64 + len > image {
            log::warn!("{name}: {what} at RVA {rva:#x} lies outside the image; treated as absent");
            h.dirs[index] = (0, 0);
        } else if rva as u64 + size as u64 > image {
            h.dirs[index].1 = (image - rva as u64) as u32;
        }
    }
    Ok(())
}

/// Guest protection for a section's characteristics. x86 pages cannot be
/// executable or writable without being readable, so either implies read.
pub fn section_prot(characteristics: u32) -> winterp_core::mem::Prot {
    let exec = characteristics & pe::IMAGE_SCN_MEM_EXECUTE != 0;
    let write = characteristics & pe::IMAGE_SCN_MEM_WRITE != 0;
    let read = characteristics & pe::IMAGE_SCN_MEM_READ != 0 || exec || write;
    winterp_core::mem::Prot { read, write, exec }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::loader::map;

    /// A hand-built PE32 image for tests: the file, and the offsets of the NT
    /// headers, the optional header and the section table.
    pub(crate) struct Img {
        pub f: Vec<u8>,
        pub nt: usize,
        pub opt: usize,
        pub sec: usize,
    }

    /// Optional-header field offsets.
    pub(crate) const ENTRY: usize = 16;
    pub(crate) const IMAGE_BASE: usize = 28;
    pub(crate) const SECTION_ALIGNMENT: usize = 32;
    pub(crate) const FILE_ALIGNMENT: usize = 36;
    pub(crate) const SIZE_OF_IMAGE: usize = 56;
    pub(crate) const SIZE_OF_HEADERS: usize = 60;
    pub(crate) const NUM_DIRS: usize = 92;

    impl Img {
        /// A minimal valid PE32 image: DOS header, PE signature at 0x40, file header,
        /// 0xE0-byte optional header and one section (.text: RVA 0x1000, 0x10 bytes,
        /// raw data 0x200 bytes at 0x200); 0x400 bytes, SizeOfImage 0x2000, base
        /// 0x400000, entry 0x1000.
        pub fn minimal() -> Img {
            let mut m = Img {
                f: vec![0u8; 0x400],
                nt: 0x40,
                opt: 0x58,
                sec: 0x138,
            };
            m.put(0, b"MZ");
            m.w32(0x3c, 0x40);
            m.put(0x40, b"PE\0\0");
            m.w16(0x44, 0x14c); // Machine
            m.sections(1);
            m.w16(0x54, 0xe0); // SizeOfOptionalHeader
            m.w16(0x56, 0x0102); // EXECUTABLE_IMAGE | 32BIT_MACHINE
            m.w16(m.opt, 0x10b);
            m.opt32(ENTRY, 0x1000);
            m.opt32(IMAGE_BASE, 0x40_0000);
            m.opt32(SECTION_ALIGNMENT, 0x1000);
            m.opt32(FILE_ALIGNMENT, 0x200);
            m.opt32(SIZE_OF_IMAGE, 0x2000);
            m.opt32(SIZE_OF_HEADERS, 0x200);
            m.opt32(72, 0x10_0000); // SizeOfStackReserve
            m.opt32(76, 0x1000); // SizeOfStackCommit
            m.opt32(NUM_DIRS, 16);
            m.section(0, ".text", 0x1000, 0x10, 0x200, 0x200, 0x6000_0020);
            m
        }

        pub fn w16(&mut self, o: usize, v: u16) {
            self.put(o, &v.to_le_bytes());
        }

        pub fn w32(&mut self, o: usize, v: u32) {
            self.put(o, &v.to_le_bytes());
        }

        /// Writes `b` at file offset `o`, growing the file if needed.
        pub fn put(&mut self, o: usize, b: &[u8]) {
            if self.f.len() < o + b.len() {
                self.f.resize(o + b.len(), 0);
            }
            self.f[o..o + b.len()].copy_from_slice(b);
        }

        pub fn opt32(&mut self, field: usize, v: u32) {
            self.w32(self.opt + field, v);
        }

        pub fn dir(&mut self, k: usize, rva: u32, size: u32) {
            self.opt32(96 + 8 * k, rva);
            self.opt32(100 + 8 * k, size);
        }

        pub fn sections(&mut self, n: u16) {
            self.w16(self.nt + 6, n);
        }

        pub fn characteristics(&mut self, c: u16) {
            self.w16(self.nt + 22, c);
        }

        /// Writes section header `i` (name, RVA, VirtualSize, PointerToRawData,
        /// SizeOfRawData, characteristics).
        #[allow(clippy::too_many_arguments)]
        pub fn section(
            &mut self,
            i: usize,
            name: &str,
            va: u32,
            vsize: u32,
            raw_ptr: u32,
            raw_size: u32,
            chars: u32,
        ) {
            let s = self.sec + 40 * i;
            let mut n = [0u8; 8];
            n[..name.len()].copy_from_slice(name.as_bytes());
            self.put(s, &n);
            self.w32(s + 8, vsize);
            self.w32(s + 12, va);
            self.w32(s + 16, raw_size);
            self.w32(s + 20, raw_ptr);
            self.w32(s + 36, chars);
        }

        pub fn parse(&self) -> Result<Headers, LoadError> {
            parse("t.exe", &self.f)
        }

        /// The parsed image as it lies in memory.
        pub fn view(&self) -> Vec<u8> {
            map::build_view(&self.f, &self.parse().unwrap()).bytes
        }
    }

    fn minimal() -> Vec<u8> {
        Img::minimal().f
    }

    #[test]
    fn minimal_header_parses() {
        let h = parse("t.exe", &minimal()).unwrap();
        assert_eq!(h.image_base, 0x40_0000);
        assert_eq!(h.sections.len(), 1);
        assert_eq!(h.sections[0].name, ".text");
        // VirtualSize 0x10, but Windows maps the raw data up to FileAlignment.
        assert_eq!(
            (h.sections[0].raw_ptr, h.sections[0].copy_len),
            (0x200, 0x200)
        );
        assert_eq!(h.size_of_headers, 0x200);
        assert!(!h.is_dll());
        assert!(h.cannot_relocate().is_none() && !h.has_relocations());
    }

    #[test]
    fn each_malformation_has_its_error() {
        let f = minimal();
        let mut g = f.clone();
        g[0] = b'X';
        assert!(matches!(parse("t", &g), Err(LoadError::NoMz { .. })));
        let mut g = f.clone();
        g[0x42] = b'X';
        assert!(matches!(parse("t", &g), Err(LoadError::NoPe { .. })));
        let mut g = f.clone();
        g[0x3c..0x40].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        assert!(matches!(parse("t", &g), Err(LoadError::NoPe { .. })));
        let mut g = f.clone();
        g[0x44..0x46].copy_from_slice(&0x8664u16.to_le_bytes());
        assert!(matches!(
            parse("t", &g),
            Err(LoadError::NotI386 {
                machine: 0x8664,
                ..
            })
        ));
        let mut g = f.clone();
        g[0x58..0x5a].copy_from_slice(&0x20bu16.to_le_bytes());
        assert!(matches!(
            parse("t", &g),
            Err(LoadError::NotPe32 { magic: 0x20b, .. })
        ));
        let mut g = f.clone();
        g[0x58 + 56..0x58 + 60].copy_from_slice(&0x2000_0000u32.to_le_bytes());
        assert!(matches!(
            parse("t", &g),
            Err(LoadError::ImageTooLarge { .. })
        ));
        // Section past SizeOfImage.
        let mut g = f.clone();
        g[0x138 + 8..0x138 + 12].copy_from_slice(&0x5000u32.to_le_bytes());
        assert!(matches!(parse("t", &g), Err(LoadError::BadSection { .. })));
        // The last section's raw data past the end of the file: the file is cut.
        let e = parse("t", &f[..0x208]).unwrap_err();
        assert!(
            matches!(&e, LoadError::BadSection { what, .. } if what.contains("truncated")),
            "{e}"
        );
        // Truncated inside the section table.
        assert!(matches!(
            parse("t", &f[..0x140]),
            Err(LoadError::Truncated { .. })
        ));
        // Import directory outside the image.
        let mut g = f.clone();
        g[0x58 + 104..0x58 + 108].copy_from_slice(&0x1ff0u32.to_le_bytes());
        g[0x58 + 108..0x58 + 112].copy_from_slice(&0x100u32.to_le_bytes());
        assert!(matches!(
            parse("t", &g),
            Err(LoadError::BadRva {
                what: "import directory",
                ..
            })
        ));
        // Misaligned base.
        let mut g = f.clone();
        g[0x58 + 28..0x58 + 32].copy_from_slice(&0x40_1000u32.to_le_bytes());
        assert!(matches!(parse("t", &g), Err(LoadError::BadHeader { .. })));
    }

    #[test]
    fn overlapping_sections_are_rejected() {
        let mut f = minimal();
        f[0x46] = 2;
        let s2 = 0x138 + 40;
        let (a, b) = (0x138, s2);
        let sec = f[a..a + 40].to_vec();
        f[b..b + 40].copy_from_slice(&sec);
        f[0x58 + 56..0x58 + 60].copy_from_slice(&0x3000u32.to_le_bytes());
        let e = parse("t", &f).unwrap_err();
        assert!(
            matches!(&e, LoadError::BadSection { what, .. } if what.contains("overlaps")),
            "{e}"
        );
    }

    #[test]
    fn section_protections_follow_characteristics() {
        use winterp_core::mem::Prot;
        assert_eq!(section_prot(0x6000_0020), Prot::RX);
        assert_eq!(section_prot(0xc000_0040), Prot::RW);
        assert_eq!(section_prot(0x4000_0040), Prot::R);
        assert_eq!(section_prot(0), Prot::NONE);
    }

    /// PointerToRawData 0 (or SizeOfRawData 0) means no file data, however large
    /// SizeOfRawData is: the section is zero-filled and the file is not "cut".
    #[test]
    fn a_zero_raw_pointer_or_size_means_no_file_data() {
        let mut m = Img::minimal();
        m.f[0x200..0x400].fill(0xcc);
        // The reported case: pointer 0 and a SizeOfRawData past the end of the file.
        m.section(0, ".text", 0x1000, 0x1000, 0, 0x10000, 0x6000_0020);
        let h = m.parse().unwrap();
        assert_eq!(h.sections[0].copy_len, 0);
        assert!(m.view()[0x1000..0x2000].iter().all(|&b| b == 0));
        // A pointer but no raw size.
        m.section(0, ".text", 0x1000, 0x1000, 0x200, 0, 0x6000_0020);
        assert_eq!(m.parse().unwrap().sections[0].copy_len, 0);
        assert!(m.view()[0x1000..0x2000].iter().all(|&b| b == 0));
    }

    /// Raw data running past the end of the file is cut there (the rest of the
    /// section is zero), except in the last section, where it means a cut file.
    #[test]
    fn raw_data_past_the_end_of_the_file_is_cut_there() {
        let mut m = Img::minimal();
        m.f[0x200..0x400].fill(0xab);
        m.opt32(SIZE_OF_IMAGE, 0x3000);
        m.sections(2);
        m.section(0, ".text", 0x1000, 0x1000, 0x200, 0x1000, 0x6000_0020);
        m.section(1, ".bss", 0x2000, 0x1000, 0, 0, 0xc000_0080);
        let h = m.parse().unwrap();
        assert_eq!(
            (h.sections[0].raw_ptr, h.sections[0].copy_len),
            (0x200, 0x200)
        );
        let v = m.view();
        assert!(v[0x1000..0x1200].iter().all(|&b| b == 0xab));
        assert!(v[0x1200..0x3000].iter().all(|&b| b == 0));
        // The same section last: the file is cut, as Windows decides.
        m.sections(1);
        let e = m.parse().unwrap_err();
        assert!(
            matches!(&e, LoadError::BadSection { what, .. } if what.contains("truncated")),
            "{e}"
        );
    }

    /// SizeOfRawData counts up to FileAlignment, and for no more than VirtualSize
    /// rounded up to a page; VirtualSize 0 means SizeOfRawData.
    #[test]
    fn raw_size_is_rounded_to_file_alignment_and_capped_by_the_virtual_size() {
        // SizeOfRawData 0x10 maps the whole 0x200-byte file block.
        let mut m = Img::minimal();
        m.section(0, ".text", 0x1000, 0x10, 0x200, 0x10, 0x6000_0020);
        m.f[0x300] = 0x5a;
        assert_eq!(m.parse().unwrap().sections[0].copy_len, 0x200);
        assert_eq!(m.view()[0x1100], 0x5a);

        // SizeOfRawData 0x3000 with VirtualSize 0x10: one page is mapped.
        let mut m = Img::minimal();
        m.opt32(SIZE_OF_IMAGE, 0x3000);
        m.sections(2);
        m.section(0, ".text", 0x1000, 0x10, 0x200, 0x3000, 0x6000_0020);
        m.section(1, ".data", 0x2000, 0x200, 0x3200, 0x200, 0xc000_0040);
        m.put(0x3200, &[0u8; 0x200]);
        m.f[0x200 + 0xfff] = 0x11;
        m.f[0x200 + 0x1000] = 0x22;
        m.f[0x3200] = 0x33;
        let h = m.parse().unwrap();
        assert_eq!(h.sections[0].copy_len, 0x1000);
        let v = m.view();
        assert_eq!((v[0x1fff], v[0x2000]), (0x11, 0x33));

        // VirtualSize 0: the section is SizeOfRawData long.
        let mut m = Img::minimal();
        m.section(0, ".text", 0x1000, 0, 0x200, 0x200, 0x6000_0020);
        m.f[0x3ff] = 0x44;
        let h = m.parse().unwrap();
        assert_eq!(h.sections[0].vsize, 0x200);
        assert_eq!(m.view()[0x11ff], 0x44);
    }

    /// Raw pointers are rounded down to a 512-byte sector: one below 0x200 maps the
    /// start of the file (the headers) into the section.
    #[test]
    fn raw_pointers_are_rounded_down_to_a_sector() {
        let mut m = Img::minimal();
        m.section(0, ".text", 0x1000, 0x200, 0x1ff, 0x200, 0x6000_0020);
        let h = m.parse().unwrap();
        assert_eq!(h.sections[0].raw_ptr, 0);
        assert_eq!(&m.view()[0x1000..0x1002], b"MZ");
        m.section(0, ".text", 0x1000, 0x200, 0x210, 0x1f0, 0x6000_0020);
        m.f[0x200] = 0x77;
        assert_eq!(m.parse().unwrap().sections[0].raw_ptr, 0x200);
        assert_eq!(m.view()[0x1000], 0x77);
    }

    /// The headers are SizeOfHeaders bytes of the file (not rounded up to
    /// FileAlignment), and at least the whole section table.
    #[test]
    fn size_of_headers_is_taken_as_is_but_covers_the_header_structures() {
        let mut m = Img::minimal();
        m.opt32(SIZE_OF_HEADERS, 0x180);
        m.f[0x1f0] = 0xee;
        let h = m.parse().unwrap();
        assert_eq!(h.size_of_headers, 0x180);
        assert_eq!(m.view()[0x1f0], 0);
        // SizeOfHeaders smaller than the headers themselves.
        m.opt32(SIZE_OF_HEADERS, 0x100);
        assert_eq!(m.parse().unwrap().size_of_headers, 0x160);
        assert_eq!(&m.view()[0x138..0x13d], b".text");
    }

    /// Headers reaching past the first section's address are overlaid by it.
    #[test]
    fn headers_may_reach_past_the_first_section() {
        let mut m = Img::minimal();
        m.opt32(SIZE_OF_HEADERS, 0x1200);
        m.put(0x1000, &[0x99; 0x200]);
        m.section(0, ".text", 0x1000, 0x200, 0x1200, 0x200, 0x6000_0020);
        m.put(0x1200, &[0x55; 0x200]);
        let h = m.parse().unwrap();
        assert_eq!(h.size_of_headers, 0x1000);
        let v = m.view();
        assert_eq!(&v[0..2], b"MZ");
        assert!(v[0x1000..0x1200].iter().all(|&b| b == 0x55));
    }

    /// The "folded header": the optional header straddles the first section's
    /// address, so the data directories past it are the section's bytes, as NTDLL
    /// reads them from the mapped image.
    #[test]
    fn folded_header_directories_come_from_the_section_over_them() {
        let mut m = Img {
            f: vec![0u8; 0x1400],
            nt: 0xf40,
            opt: 0xf58,
            sec: 0xf58 + 0xe0,
        };
        m.put(0, b"MZ");
        m.w32(0x3c, 0xf40);
        m.put(0xf40, b"PE\0\0");
        m.w16(0xf44, 0x14c);
        m.sections(1);
        m.w16(0xf54, 0xe0);
        m.characteristics(0x0102);
        m.w16(m.opt, 0x10b);
        m.opt32(ENTRY, 0x1000);
        m.opt32(IMAGE_BASE, 0x40_0000);
        m.opt32(SECTION_ALIGNMENT, 0x1000);
        m.opt32(FILE_ALIGNMENT, 0x200);
        m.opt32(SIZE_OF_IMAGE, 0x3000);
        m.opt32(SIZE_OF_HEADERS, 0x1200);
        m.opt32(NUM_DIRS, 16);
        m.section(0, ".text", 0x1000, 0x200, 0x1200, 0x200, 0xe000_0020);
        // On disk the TLS entry (at file offset 0x1000) points far outside the
        // image; in memory the section puts a valid one there.
        assert_eq!(m.opt + 96 + 8 * pe::IMAGE_DIRECTORY_ENTRY_TLS, 0x1000);
        m.dir(pe::IMAGE_DIRECTORY_ENTRY_TLS, 0x7fff_0000, 0x18);
        m.w32(0x1200, 0x1080);
        m.w32(0x1204, 0x18);
        let h = m.parse().unwrap();
        assert_eq!(h.size_of_headers, 0x1000);
        assert_eq!(h.dir(pe::IMAGE_DIRECTORY_ENTRY_TLS), Some((0x1080, 0x18)));
    }

    /// A Crinkler-style tiny image: the PE header at offset 4 inside the DOS header
    /// (SectionAlignment is e_lfanew), SizeOfOptionalHeader 8, no sections, no data
    /// directories, the file shorter than the optional header: mapped flat.
    pub(crate) fn tiny_e_lfanew_4() -> Vec<u8> {
        let mut f = vec![0u8; 0x70];
        f[0..2].copy_from_slice(b"MZ");
        f[4..8].copy_from_slice(b"PE\0\0");
        let w16 = |f: &mut Vec<u8>, o: usize, v: u16| f[o..o + 2].copy_from_slice(&v.to_le_bytes());
        let w32 = |f: &mut Vec<u8>, o: usize, v: u32| f[o..o + 4].copy_from_slice(&v.to_le_bytes());
        w16(&mut f, 8, 0x14c);
        w16(&mut f, 0x18, 8); // SizeOfOptionalHeader
        w16(&mut f, 0x1a, 2); // EXECUTABLE_IMAGE
        let o = 0x1c;
        w16(&mut f, o, 0x10b);
        w32(&mut f, o + 16, 0x60); // AddressOfEntryPoint
        w32(&mut f, o + 28, 0x40_0000);
        w32(&mut f, o + 32, 4); // SectionAlignment, and e_lfanew
        w32(&mut f, o + 36, 4); // FileAlignment
        w32(&mut f, o + 56, 0x12345); // SizeOfImage
        w32(&mut f, o + 60, 64); // SizeOfHeaders
        w16(&mut f, o + 68, 2); // Subsystem
        // Stack and heap sizes and NumberOfRvaAndSizes lie past the end of the
        // file: 0.
        assert_eq!(u32::from_le_bytes(f[0x3c..0x40].try_into().unwrap()), 4);
        f[0x60] = 0xc3;
        f
    }

    #[test]
    fn tiny_image_with_its_pe_header_inside_the_dos_header() {
        let f = tiny_e_lfanew_4();
        let h = parse("tiny.exe", &f).unwrap();
        assert!(h.low_alignment());
        assert!(h.sections.is_empty());
        assert_eq!(h.dirs, [(0, 0); 16]);
        assert_eq!(h.size_of_headers, 0x70);
        assert_eq!(h.mapped_size(), 0x13000);
        let v = map::build_view(&f, &h).bytes;
        assert_eq!(&v[..0x70], &f[..]);
        assert!(v[0x70..].iter().all(|&b| b == 0));
    }

    /// e_lfanew 0x0c (e_lfanew is then BaseOfData) with a section, which a flat
    /// image only needs at its file offset.
    #[test]
    fn tiny_image_at_e_lfanew_0c_maps_flat() {
        let mut m = Img {
            f: vec![0u8; 0x200],
            nt: 0xc,
            opt: 0x24,
            sec: 0x24 + 0xe0,
        };
        m.put(0, b"MZ");
        m.put(0xc, b"PE\0\0");
        m.w16(0x10, 0x14c);
        m.sections(1);
        m.w16(0x20, 0xe0);
        m.characteristics(0x0102);
        m.w16(m.opt, 0x10b);
        m.opt32(24, 0xc); // BaseOfData, read by DOS as e_lfanew
        m.opt32(ENTRY, 0x104);
        m.opt32(IMAGE_BASE, 0x40_0000);
        m.opt32(SECTION_ALIGNMENT, 4);
        m.opt32(FILE_ALIGNMENT, 4);
        m.opt32(SIZE_OF_IMAGE, 0x200);
        m.opt32(SIZE_OF_HEADERS, 0x104);
        m.opt32(NUM_DIRS, 16);
        m.section(0, ".text", 0x12c, 0xd4, 0x12c, 0xd4, 0xe000_0020);
        m.f[0x1ff] = 0x42;
        assert_eq!(u32::from_le_bytes(m.f[0x3c..0x40].try_into().unwrap()), 0xc);
        let h = m.parse().unwrap();
        assert!(h.low_alignment());
        assert_eq!(h.sections[0].copy_len, 0);
        assert_eq!(h.size_of_headers, 0x200);
        let v = m.view();
        assert_eq!(&v[..0x200], &m.f[..]);
        // A flat image's section must sit at its own file offset.
        m.section(0, ".text", 0x12c, 0xd4, 0x130, 0xd0, 0xe000_0020);
        assert!(matches!(m.parse(), Err(LoadError::BadSection { .. })));
    }

    /// At most 16 directories, none past NumberOfRvaAndSizes, and they are read
    /// where the fixed optional header has them whatever SizeOfOptionalHeader says.
    #[test]
    fn number_of_rva_and_sizes_decides_which_directories_exist() {
        let mut m = Img::minimal();
        m.opt32(NUM_DIRS, 0xffff);
        m.dir(15, 0x1000, 8);
        assert_eq!(m.parse().unwrap().dir(15), Some((0x1000, 8)));
        // Two directories: the TLS entry (garbage) is not looked at.
        m.opt32(NUM_DIRS, 2);
        m.dir(pe::IMAGE_DIRECTORY_ENTRY_TLS, 0x7fff_0000, 0x18);
        let h = m.parse().unwrap();
        assert_eq!(h.dir(pe::IMAGE_DIRECTORY_ENTRY_TLS), None);
        assert_eq!(h.dir(15), None);
        // SizeOfOptionalHeader 0x70 places the section table over directory 2 on;
        // Windows still reads all 16 from the fixed structure, so directory 3 is the
        // section's VirtualSize and VirtualAddress.
        let mut m = Img::minimal();
        m.w16(m.nt + 20, 0x70);
        m.sec = m.opt + 0x70;
        m.section(0, ".text", 0x1000, 0x10, 0x200, 0x200, 0x6000_0020);
        let h = m.parse().unwrap();
        assert_eq!(h.sections[0].va, 0x1000);
        assert_eq!(h.dirs[3], (0x10, 0x1000));
    }

    /// Directories outside the image: those read at load time (imports, TLS) are
    /// errors, and only their RVA counts; those read on demand (exports, resources)
    /// are absent or cut at the image's end; relocations are checked only when used.
    #[test]
    fn directories_outside_the_image_are_treated_as_windows_does() {
        use pe::{
            IMAGE_DIRECTORY_ENTRY_BASERELOC, IMAGE_DIRECTORY_ENTRY_EXPORT,
            IMAGE_DIRECTORY_ENTRY_IMPORT, IMAGE_DIRECTORY_ENTRY_RESOURCE,
            IMAGE_DIRECTORY_ENTRY_TLS,
        };
        let mut m = Img::minimal();
        m.dir(IMAGE_DIRECTORY_ENTRY_EXPORT, 0x7fff_0000, 0x40);
        m.dir(IMAGE_DIRECTORY_ENTRY_RESOURCE, 0x1f00, 0x1000);
        m.dir(IMAGE_DIRECTORY_ENTRY_BASERELOC, 0x7fff_0000, 8);
        m.dir(IMAGE_DIRECTORY_ENTRY_IMPORT, 0x1000, 0xffff_ffff);
        let h = m.parse().unwrap();
        assert_eq!(h.dir(IMAGE_DIRECTORY_ENTRY_EXPORT), None);
        assert_eq!(h.dir(IMAGE_DIRECTORY_ENTRY_RESOURCE), Some((0x1f00, 0x100)));
        assert_eq!(
            h.dir(IMAGE_DIRECTORY_ENTRY_BASERELOC),
            Some((0x7fff_0000, 8))
        );
        assert_eq!(
            h.dir(IMAGE_DIRECTORY_ENTRY_IMPORT),
            Some((0x1000, 0xffff_ffff))
        );
        m.dir(IMAGE_DIRECTORY_ENTRY_TLS, 0x1ff0, 0x18);
        assert!(matches!(
            m.parse(),
            Err(LoadError::BadRva {
                what: "TLS directory",
                ..
            })
        ));
    }
}
