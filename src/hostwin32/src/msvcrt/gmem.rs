//! Guest string and buffer helpers. Reads go page by page so a string that ends
//! just before an uncommitted page is read without touching it.

use winterp_core::mem::{Fault, GuestMemory};

/// Bytes from `addr` up to (not including) the first NUL, at most `max` bytes.
pub fn read_cstr(mem: &GuestMemory, addr: u32, max: usize) -> Result<Vec<u8>, Fault> {
    mem.read_cstr(addr, max)
}

/// Length of the string at `addr` (bytes before the first NUL), at most `max`;
/// reads only the pages up to the NUL, like [`read_cstr`], and copies nothing.
pub fn cstr_len(mem: &GuestMemory, addr: u32, max: usize) -> Result<usize, Fault> {
    Ok(mem.find_byte(addr, 0, max)?.unwrap_or(max))
}

/// UTF-16 units from `addr` up to the first NUL unit, at most `max` units.
pub fn read_wstr(mem: &GuestMemory, addr: u32, max: usize) -> Result<Vec<u16>, Fault> {
    let mut out = Vec::new();
    let mut a = addr;
    while out.len() < max {
        let v = mem.read_u16(a)?;
        if v == 0 {
            break;
        }
        out.push(v);
        a = a.wrapping_add(2);
    }
    Ok(out)
}

/// Writes `s` and a terminating NUL.
pub fn write_cstr(mem: &GuestMemory, addr: u32, s: &[u8]) -> Result<(), Fault> {
    mem.write_bytes(addr, s)?;
    mem.write_u8(addr.wrapping_add(s.len() as u32), 0)?;
    Ok(())
}

/// Writes UTF-16 units and a terminating NUL unit.
pub fn write_wstr(mem: &GuestMemory, addr: u32, s: &[u16]) -> Result<(), Fault> {
    write_units(mem, addr, s)?;
    mem.write_u16(addr.wrapping_add(2 * s.len() as u32), 0)?;
    Ok(())
}

/// Writes UTF-16 units without a terminator.
pub fn write_units(mem: &GuestMemory, addr: u32, s: &[u16]) -> Result<(), Fault> {
    let bytes: Vec<u8> = s.iter().flat_map(|u| u.to_le_bytes()).collect();
    mem.write_bytes(addr, &bytes)
}

/// Reads `len` guest bytes.
pub fn read_vec(mem: &GuestMemory, addr: u32, len: usize) -> Result<Vec<u8>, Fault> {
    let mut v = vec![0u8; len];
    mem.read_bytes(addr, &mut v)?;
    Ok(v)
}
