//! Base relocations: when an image is not at its preferred base, every absolute
//! address the linker listed in `.reloc` is adjusted by the difference. The table
//! is read from the unrelocated view with `object`'s block iterator; the fix-ups
//! are applied to guest memory. As in Windows, the table is not even looked at when
//! the image sits at its preferred base; an image marked IMAGE_FILE_RELOCS_STRIPPED
//! is never moved (`map::place` refuses it), and one without a relocation directory
//! is moved with nothing fixed up.

use super::LoadError;
use super::map::View;
use super::pe::Headers;
use crate::process::Process;
use object::pe;
use object::read::pe::RelocationBlockIterator;

/// Applies the relocations of an image mapped at `base`. Returns how many
/// fix-ups were applied.
pub fn apply(
    proc: &Process,
    name: &str,
    base: u32,
    h: &Headers,
    view: &View,
) -> Result<usize, LoadError> {
    let delta = base.wrapping_sub(h.image_base);
    if delta == 0 {
        return Ok(0);
    }
    // `map::place` moves only images that can be relocated; anything else here is
    // a bug, which must not leave an image running at the wrong base unfixed.
    if let Some(reason) = h.cannot_relocate() {
        return Err(LoadError::Malformed {
            name: name.to_string(),
            what: "relocation table",
            detail: format!("the image was moved to {base:#010x} but {reason}"),
        });
    }
    let Some((rva, size)) = h
        .dir(pe::IMAGE_DIRECTORY_ENTRY_BASERELOC)
        .filter(|_| h.has_relocations())
    else {
        log::warn!(
            "{name}: moved to {base:#010x} without base relocations: nothing is fixed up \
             (as on Windows)"
        );
        return Ok(0);
    };
    let data = view.get(rva, size).ok_or(LoadError::BadRva {
        name: name.to_string(),
        what: "relocation directory",
        rva,
        size,
    })?;
    let limit = h.mapped_size();
    let mut blocks = RelocationBlockIterator::new(data);
    let mut count = 0usize;
    loop {
        let block = match blocks.next() {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => {
                return Err(LoadError::Malformed {
                    name: name.to_string(),
                    what: "relocation table",
                    detail: e.to_string(),
                });
            }
        };
        for r in block {
            let at = r.virtual_address;
            let width = match r.typ {
                pe::IMAGE_REL_BASED_ABSOLUTE => continue,
                pe::IMAGE_REL_BASED_HIGHLOW => 4,
                pe::IMAGE_REL_BASED_HIGH | pe::IMAGE_REL_BASED_LOW => 2,
                kind => {
                    return Err(LoadError::UnsupportedRelocation {
                        name: name.to_string(),
                        kind,
                        rva: at,
                    });
                }
            };
            if at as u64 + width as u64 > limit as u64 {
                return Err(LoadError::BadRva {
                    name: name.to_string(),
                    what: "relocation target",
                    rva: at,
                    size: width,
                });
            }
            let addr = base + at;
            let mut b = [0u8; 4];
            let buf = &mut b[..width as usize];
            proc.mem
                .read_bytes(addr, buf)
                .map_err(|f| LoadError::fault(name, f))?;
            match r.typ {
                pe::IMAGE_REL_BASED_HIGHLOW => {
                    let v = u32::from_le_bytes(b).wrapping_add(delta);
                    b = v.to_le_bytes();
                }
                pe::IMAGE_REL_BASED_HIGH => {
                    let v = u16::from_le_bytes([b[0], b[1]]).wrapping_add((delta >> 16) as u16);
                    b[..2].copy_from_slice(&v.to_le_bytes());
                }
                _ => {
                    let v = u16::from_le_bytes([b[0], b[1]]).wrapping_add(delta as u16);
                    b[..2].copy_from_slice(&v.to_le_bytes());
                }
            }
            proc.mem
                .write_bytes(addr, &b[..width as usize])
                .map_err(|f| LoadError::fault(name, f))?;
            count += 1;
        }
    }
    Ok(count)
}
