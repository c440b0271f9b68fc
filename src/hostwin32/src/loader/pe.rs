//! PE32 header parsing and validation. Uses the `object` crate's header structs;
//! the checks are ours so that each malformation gets its own [`LoadError`].

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
    pub raw_ptr: u32,
    /// Bytes copied from the file: min(SizeOfRawData, vsize); the rest is zero.
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
    pub size_of_headers: u32,
    pub subsystem: u16,
    pub dll_characteristics: u16,
    pub stack_reserve: u32,
    pub stack_commit: u32,
    /// Data directories (RVA, size); missing ones are (0, 0).
    pub dirs: [(u32, u32); 16],
    pub sections: Vec<Section>,
    /// File offset of the PE signature (e_lfanew).
    pub nt_offset: u32,
}

/// Offset of ImageBase inside the optional header.
pub const OPT_IMAGE_BASE: u32 = 28;
/// Size of the fixed part of IMAGE_OPTIONAL_HEADER32 (before the data directories).
const OPT_FIXED: u32 = 96;

impl Headers {
    pub fn is_dll(&self) -> bool {
        self.characteristics & pe::IMAGE_FILE_DLL != 0
    }

    pub fn relocs_stripped(&self) -> bool {
        self.characteristics & pe::IMAGE_FILE_RELOCS_STRIPPED != 0
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
    let magic: &object::U16Bytes<LE> = data
        .read_at(opt_offset)
        .map_err(|()| truncated(name, "optional header"))?;
    let magic = magic.get(LE);
    if magic != pe::IMAGE_NT_OPTIONAL_HDR32_MAGIC {
        return Err(LoadError::NotPe32 {
            name: name.to_string(),
            magic,
        });
    }
    if opt_size < OPT_FIXED {
        return Err(bad(
            name,
            format!("SizeOfOptionalHeader {opt_size:#x} is smaller than the PE32 optional header"),
        ));
    }
    let opt: &pe::ImageOptionalHeader32 = data
        .read_at(opt_offset)
        .map_err(|()| truncated(name, "optional header"))?;
    data.read_bytes_at(opt_offset, opt_size as u64)
        .map_err(|()| truncated(name, "optional header"))?;

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
    let image_base = opt.image_base.get(LE);
    if !image_base.is_multiple_of(GRANULARITY) {
        return Err(bad(
            name,
            format!("ImageBase {image_base:#010x} is not a multiple of 64 KiB"),
        ));
    }
    if image_base as u64 + mapped as u64 > 1 << 32 {
        return Err(bad(
            name,
            format!("ImageBase {image_base:#010x} + SizeOfImage wraps past 4 GiB"),
        ));
    }
    let entry = opt.address_of_entry_point.get(LE);

    // Data directories: as many as the header claims, the optional header holds and
    // Windows looks at.
    let ndirs = (opt.number_of_rva_and_sizes.get(LE) as u64)
        .min(((opt_size - OPT_FIXED) / 8) as u64)
        .min(16) as usize;
    let mut dirs = [(0u32, 0u32); 16];
    for (k, d) in dirs.iter_mut().enumerate().take(ndirs) {
        let e: &pe::ImageDataDirectory = data
            .read_at(opt_offset + OPT_FIXED as u64 + 8 * k as u64)
            .map_err(|()| truncated(name, "data directories"))?;
        *d = (e.virtual_address.get(LE), e.size.get(LE));
    }

    let nsec = fh.number_of_sections.get(LE) as usize;
    if nsec > MAX_SECTIONS {
        return Err(LoadError::TooMany {
            name: name.to_string(),
            what: "sections",
            limit: MAX_SECTIONS,
        });
    }
    let table: &[pe::ImageSectionHeader] = data
        .read_slice_at(opt_offset + opt_size as u64, nsec)
        .map_err(|()| truncated(name, "section table"))?;
    // The headers are mapped with the image (and patched when it is relocated), so
    // they must lie inside it.
    let headers_end = opt_offset + opt_size as u64 + 40 * nsec as u64;
    if headers_end > mapped as u64 {
        return Err(bad(
            name,
            format!("headers end at {headers_end:#x}, past the image's {mapped:#x} bytes"),
        ));
    }

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
        dirs,
        sections: Vec::with_capacity(nsec),
        nt_offset,
    };
    parse_sections(name, data, table, &mut h)?;
    check_directories(name, &h)?;
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

fn parse_sections(
    name: &str,
    data: &[u8],
    table: &[pe::ImageSectionHeader],
    h: &mut Headers,
) -> Result<(), LoadError> {
    let image_end = h.mapped_size() as u64;
    // End of the previous section's address range (rounded to SectionAlignment).
    let mut prev_end = 0u64;
    let mut prev_name = String::from("the headers");
    if !h.low_alignment() {
        prev_end = crate::address_space::round_up(h.size_of_headers, h.section_alignment) as u64;
    }
    for s in table {
        let raw_name = &s.name[..s.name.iter().position(|&b| b == 0).unwrap_or(8)];
        let sname = String::from_utf8_lossy(raw_name).into_owned();
        let va = s.virtual_address.get(LE);
        let raw_size = s.size_of_raw_data.get(LE);
        let vsize = match s.virtual_size.get(LE) {
            0 => raw_size,
            v => v,
        };
        let raw_ptr = s.pointer_to_raw_data.get(LE);
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
        let end = va as u64 + vsize as u64;
        if end > image_end {
            return Err(bad_section(
                name,
                &sname,
                format!(
                    "{va:#x}+{vsize:#x} extends past SizeOfImage {:#x}",
                    h.size_of_image
                ),
            ));
        }
        if (va as u64) < prev_end {
            return Err(bad_section(
                name,
                &sname,
                format!("address {va:#x} overlaps {prev_name}"),
            ));
        }
        let copy_len = raw_size.min(vsize);
        if h.low_alignment() && copy_len > 0 && raw_ptr != va {
            return Err(bad_section(
                name,
                &sname,
                format!(
                    "file offset {raw_ptr:#x} differs from its address {va:#x}, which a \
                     SectionAlignment below the page size requires"
                ),
            ));
        }
        if copy_len > 0 && raw_ptr as u64 + copy_len as u64 > data.len() as u64 {
            return Err(bad_section(
                name,
                &sname,
                format!(
                    "raw data {raw_ptr:#x}+{copy_len:#x} lies past the end of the file \
                     ({:#x} bytes): truncated",
                    data.len()
                ),
            ));
        }
        prev_end =
            crate::address_space::round_up(end.min(u32::MAX as u64) as u32, h.section_alignment)
                as u64;
        prev_end = prev_end.max(end);
        prev_name = format!("section {sname:?}");
        h.sections.push(Section {
            name: sname,
            va,
            vsize,
            raw_ptr,
            copy_len,
            characteristics: s.characteristics.get(LE),
        });
    }
    Ok(())
}

/// The directories the loader reads must lie inside the image.
fn check_directories(name: &str, h: &Headers) -> Result<(), LoadError> {
    let checks: [(usize, &'static str); 5] = [
        (pe::IMAGE_DIRECTORY_ENTRY_EXPORT, "export directory"),
        (pe::IMAGE_DIRECTORY_ENTRY_IMPORT, "import directory"),
        (pe::IMAGE_DIRECTORY_ENTRY_RESOURCE, "resource directory"),
        (pe::IMAGE_DIRECTORY_ENTRY_BASERELOC, "relocation directory"),
        (pe::IMAGE_DIRECTORY_ENTRY_TLS, "TLS directory"),
    ];
    for (index, what) in checks {
        if let Some((rva, size)) = h.dir(index)
            && rva as u64 + size as u64 > h.mapped_size() as u64
        {
            return Err(LoadError::BadRva {
                name: name.to_string(),
                what,
                rva,
                size,
            });
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
mod tests {
    use super::*;

    /// A minimal valid PE32 header: DOS header, PE signature at 0x40, file header,
    /// 0xE0-byte optional header and one section.
    fn minimal() -> Vec<u8> {
        let mut f = vec![0u8; 0x400];
        f[0..2].copy_from_slice(b"MZ");
        f[0x3c..0x40].copy_from_slice(&0x40u32.to_le_bytes());
        f[0x40..0x44].copy_from_slice(b"PE\0\0");
        let w16 = |f: &mut Vec<u8>, o: usize, v: u16| f[o..o + 2].copy_from_slice(&v.to_le_bytes());
        let w32 = |f: &mut Vec<u8>, o: usize, v: u32| f[o..o + 4].copy_from_slice(&v.to_le_bytes());
        w16(&mut f, 0x44, 0x14c); // Machine
        w16(&mut f, 0x46, 1); // NumberOfSections
        w16(&mut f, 0x54, 0xe0); // SizeOfOptionalHeader
        w16(&mut f, 0x56, 0x0102); // EXECUTABLE_IMAGE | 32BIT_MACHINE
        let o = 0x58;
        w16(&mut f, o, 0x10b);
        w32(&mut f, o + 16, 0x1000); // AddressOfEntryPoint
        w32(&mut f, o + 28, 0x40_0000); // ImageBase
        w32(&mut f, o + 32, 0x1000); // SectionAlignment
        w32(&mut f, o + 36, 0x200); // FileAlignment
        w32(&mut f, o + 56, 0x2000); // SizeOfImage
        w32(&mut f, o + 60, 0x200); // SizeOfHeaders
        w32(&mut f, o + 92, 16); // NumberOfRvaAndSizes
        let s = 0x58 + 0xe0;
        f[s..s + 5].copy_from_slice(b".text");
        w32(&mut f, s + 8, 0x10); // VirtualSize
        w32(&mut f, s + 12, 0x1000); // VirtualAddress
        w32(&mut f, s + 16, 0x200); // SizeOfRawData
        w32(&mut f, s + 20, 0x200); // PointerToRawData
        w32(&mut f, s + 36, 0x6000_0020); // CODE | EXECUTE | READ
        f
    }

    #[test]
    fn minimal_header_parses() {
        let h = parse("t.exe", &minimal()).unwrap();
        assert_eq!(h.image_base, 0x40_0000);
        assert_eq!(h.sections.len(), 1);
        assert_eq!(h.sections[0].name, ".text");
        assert_eq!(h.sections[0].copy_len, 0x10);
        assert!(!h.is_dll());
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
        // Raw data past the end of the file.
        assert!(matches!(
            parse("t", &f[..0x208]),
            Err(LoadError::BadSection { .. })
        ));
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
}
