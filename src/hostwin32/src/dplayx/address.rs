//! DirectPlay addresses: a sequence of chunks, each a DPADDRESS header (the data
//! type GUID and the data size, 20 bytes) followed by its data. The first chunk is
//! DPAID_TotalSize, whose DWORD is the size of the whole address.

use crate::hle::com::Guid;
use crate::process::Process;

pub const DPAID_TOTAL_SIZE: Guid = Guid::new(
    0x1318f560,
    0x912c,
    0x11d0,
    [0x9d, 0xaa, 0x00, 0xa0, 0xc9, 0x0a, 0x43, 0xcb],
);
pub const DPAID_SERVICE_PROVIDER: Guid = Guid::new(
    0x07d916c0,
    0xe0af,
    0x11cf,
    [0x9c, 0x4e, 0x00, 0xa0, 0xc9, 0x05, 0x42, 0x5e],
);
pub const DPAID_LOBBY_PROVIDER: Guid = Guid::new(
    0x59b95640,
    0x9667,
    0x11d0,
    [0xa7, 0x7d, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
);

/// sizeof(DPADDRESS).
pub const HEADER: usize = 20;
/// The largest address this reads from guest memory.
const MAX_ADDRESS: u32 = 0x1_0000;

/// An address made of `chunks` after the DPAID_TotalSize chunk.
pub fn build(chunks: &[(Guid, &[u8])]) -> Vec<u8> {
    let total = HEADER + 4 + chunks.iter().map(|(_, d)| HEADER + d.len()).sum::<usize>();
    let mut v = Vec::with_capacity(total);
    let mut put = |g: &Guid, d: &[u8]| {
        v.extend_from_slice(&g.0);
        v.extend_from_slice(&(d.len() as u32).to_le_bytes());
        v.extend_from_slice(d);
    };
    put(&DPAID_TOTAL_SIZE, &(total as u32).to_le_bytes());
    for (g, d) in chunks {
        put(g, d);
    }
    v
}

/// The connection EnumConnections offers for a service provider: its GUID, then
/// an empty GUID_NULL chunk, 80 bytes in all, as Windows hands it out (Wine's
/// conformance tests check DPAID_TotalSize = 80 and three chunks on Windows).
pub fn connection(sp: &Guid) -> Vec<u8> {
    build(&[(DPAID_SERVICE_PROVIDER, &sp.0), (Guid([0; 16]), &[])])
}

/// One chunk of an address: its type, and where its data lies in the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub ty: Guid,
    pub offset: usize,
    pub size: usize,
}

/// The chunks of an address of `bytes` (the whole buffer, which may be larger
/// than the address), or None if a chunk runs past its end.
pub fn parse(bytes: &[u8]) -> Option<Vec<Chunk>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut end = bytes.len();
    while at < end {
        if at + HEADER > end {
            return None;
        }
        let mut g = [0u8; 16];
        g.copy_from_slice(&bytes[at..at + 16]);
        let size = u32::from_le_bytes(bytes[at + 16..at + 20].try_into().ok()?) as usize;
        let offset = at + HEADER;
        if offset.checked_add(size)? > end {
            return None;
        }
        let ty = Guid(g);
        if out.is_empty() && ty == DPAID_TOTAL_SIZE && size == 4 {
            let total = u32::from_le_bytes(bytes[offset..offset + 4].try_into().ok()?) as usize;
            if total < HEADER + 4 || total > end {
                return None;
            }
            end = total;
        }
        out.push(Chunk { ty, offset, size });
        at = offset + size;
    }
    Some(out)
}

/// Reads an address that starts with its DPAID_TotalSize chunk from guest memory.
pub fn read(proc: &Process, at: u32) -> Option<Vec<u8>> {
    let mut head = [0u8; HEADER + 4];
    proc.mem.read_bytes(at, &mut head).ok()?;
    if head[..16] != DPAID_TOTAL_SIZE.0 || head[16..20] != 4u32.to_le_bytes() {
        return None;
    }
    let total = u32::from_le_bytes(head[20..24].try_into().ok()?);
    if !(HEADER as u32 + 4..=MAX_ADDRESS).contains(&total) {
        return None;
    }
    let mut v = vec![0u8; total as usize];
    proc.mem.read_bytes(at, &mut v).ok()?;
    Some(v)
}

/// The service provider (or lobby provider) GUID an address names.
pub fn provider(bytes: &[u8]) -> Option<(Guid, bool)> {
    for c in parse(bytes)? {
        if c.size == 16 && (c.ty == DPAID_SERVICE_PROVIDER || c.ty == DPAID_LOBBY_PROVIDER) {
            let mut g = [0u8; 16];
            g.copy_from_slice(&bytes[c.offset..c.offset + 16]);
            return Some((Guid(g), c.ty == DPAID_LOBBY_PROVIDER));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_eighty_bytes_of_three_chunks() {
        let sp = crate::dplayx::DPSPGUID_TCPIP;
        let c = connection(&sp);
        assert_eq!(c.len(), 80);
        let chunks = parse(&c).unwrap();
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0].ty, DPAID_TOTAL_SIZE);
        assert_eq!(
            &c[chunks[0].offset..chunks[0].offset + 4],
            &80u32.to_le_bytes()
        );
        assert_eq!(chunks[1].ty, DPAID_SERVICE_PROVIDER);
        assert_eq!(chunks[1].size, 16);
        assert_eq!((chunks[2].ty, chunks[2].size), (Guid([0; 16]), 0));
        assert_eq!(provider(&c), Some((sp, false)));
    }

    #[test]
    fn the_total_size_bounds_the_address_in_a_larger_buffer() {
        let mut a = build(&[(DPAID_SERVICE_PROVIDER, &[7u8; 16])]);
        assert_eq!(a.len(), 24 + 36);
        a.extend_from_slice(&[0xcc; 40]);
        assert_eq!(parse(&a).unwrap().len(), 2);
        // A chunk running past the end is rejected.
        let mut b = build(&[(DPAID_SERVICE_PROVIDER, &[7u8; 16])]);
        b[24 + 16] = 200;
        assert_eq!(parse(&b), None);
    }
}
