//! GUIDs as text ("{6C14DB80-A733-11CE-A521-0020AF0BE560}", 38 characters) and
//! CoCreateGuid.
//!
//! The parsers follow what Wine's conformance tests show Windows doing with bad
//! input: fields are stored into the caller's GUID as they are parsed, so a string
//! that goes wrong part-way leaves the fields before it (and the digits read of
//! the failing one) in place.

use super::{CO_E_CLASSSTRING, CO_E_IIDSTRING, E_INVALIDARG, E_OUTOFMEMORY, S_OK, with_state};
use crate::hle::com::Guid;
use crate::hle::{ApiError, ApiResult, Ctx, Ptr, WStrPtr};

/// Characters of a GUID's text with braces, and with its NUL.
pub const GUID_CHARS: usize = 38;
pub const GUID_CHARS_NUL: u32 = 39;

/// Reads a UTF-16 string of at most `max` units (more are not read).
fn read_wide(cx: &Ctx, at: u32, max: usize) -> ApiResult<Vec<u16>> {
    let mut v = Vec::new();
    for k in 0..max as u32 {
        let u = cx.proc.mem.read_u16(at.wrapping_add(2 * k))?;
        if u == 0 {
            break;
        }
        v.push(u);
    }
    Ok(v)
}

fn hex(u: u16) -> Option<u8> {
    char::from_u32(u32::from(u))?.to_digit(16).map(|d| d as u8)
}

/// Parses `{...}` text into `g`, storing each field (and the digits read of a
/// field that breaks off) as it goes. True if the whole text is a GUID and
/// nothing follows it.
pub fn parse_into(s: &[u16], g: &mut [u8; 16]) -> bool {
    let at = |k: usize| s.get(k).copied().unwrap_or(0);
    if at(0) != u16::from(b'{') {
        return false;
    }
    let mut pos = 1;
    // (byte offset in the GUID, hex digits, separator after it)
    const FIELDS: [(usize, usize, u8); 11] = [
        (0, 8, b'-'),
        (4, 4, b'-'),
        (6, 4, b'-'),
        (8, 2, 0),
        (9, 2, b'-'),
        (10, 2, 0),
        (11, 2, 0),
        (12, 2, 0),
        (13, 2, 0),
        (14, 2, 0),
        (15, 2, b'}'),
    ];
    for (off, digits, sep) in FIELDS {
        let mut v: u32 = 0;
        let mut ok = true;
        for _ in 0..digits {
            match hex(at(pos)) {
                Some(d) => {
                    v = v << 4 | u32::from(d);
                    pos += 1;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        match digits {
            8 => g[off..off + 4].copy_from_slice(&v.to_le_bytes()),
            4 => g[off..off + 2].copy_from_slice(&(v as u16).to_le_bytes()),
            _ => g[off] = v as u8,
        }
        if !ok {
            return false;
        }
        if sep != 0 {
            if at(pos) != u16::from(sep) {
                return false;
            }
            pos += 1;
        }
    }
    pos == s.len()
}

/// CLSIDFromString: NULL is CLSID_NULL; braced text is parsed; anything else is
/// a ProgID, which the registry would have to map (not done here).
pub fn CLSIDFromString(cx: &mut Ctx, lpsz: WStrPtr, pclsid: Ptr) -> ApiResult<u32> {
    if pclsid.is_null() {
        return Ok(E_INVALIDARG);
    }
    if lpsz.0 == 0 {
        Guid([0; 16]).write(cx.proc, pclsid.0)?;
        return Ok(S_OK);
    }
    let s = read_wide(cx, lpsz.0, 256)?;
    if s.first() != Some(&u16::from(b'{')) {
        if s.is_empty() {
            Guid([0; 16]).write(cx.proc, pclsid.0)?;
            return Ok(CO_E_CLASSSTRING);
        }
        return Err(ApiError::UnimplementedCase(format!(
            "ole32.dll!CLSIDFromString of the ProgID {:?} (ProgIDs are not looked up)",
            String::from_utf16_lossy(&s)
        )));
    }
    let mut g = Guid::read(cx.proc, pclsid.0)?.0;
    let ok = parse_into(&s, &mut g);
    Guid(g).write(cx.proc, pclsid.0)?;
    Ok(if ok { S_OK } else { CO_E_CLASSSTRING })
}

/// IIDFromString: only exact 38-character braced text (E_INVALIDARG for any
/// other length, CO_E_IIDSTRING for a malformed one).
pub fn IIDFromString(cx: &mut Ctx, lpsz: WStrPtr, lpiid: Ptr) -> ApiResult<u32> {
    if lpiid.is_null() {
        return Ok(E_INVALIDARG);
    }
    if lpsz.0 == 0 {
        Guid([0; 16]).write(cx.proc, lpiid.0)?;
        return Ok(S_OK);
    }
    let s = read_wide(cx, lpsz.0, GUID_CHARS + 1)?;
    if s.len() != GUID_CHARS {
        return Ok(E_INVALIDARG);
    }
    if s[0] != u16::from(b'{') {
        return Ok(CO_E_IIDSTRING);
    }
    let mut g = Guid::read(cx.proc, lpiid.0)?.0;
    let ok = parse_into(&s, &mut g);
    Guid(g).write(cx.proc, lpiid.0)?;
    Ok(if ok { S_OK } else { CO_E_IIDSTRING })
}

fn text_of(g: &Guid) -> Vec<u8> {
    let mut v: Vec<u8> = g
        .to_string()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    v.extend_from_slice(&[0, 0]);
    v
}

/// StringFromGUID2: the text and its NUL if `cchMax` holds them (returns 39),
/// else 0.
pub fn StringFromGUID2(cx: &mut Ctx, rguid: Ptr, lpsz: Ptr, cchMax: i32) -> ApiResult<i32> {
    if rguid.is_null() || lpsz.is_null() || cchMax < GUID_CHARS_NUL as i32 {
        return Ok(0);
    }
    let g = Guid::read(cx.proc, rguid.0)?;
    cx.proc.mem.write_bytes(lpsz.0, &text_of(&g))?;
    Ok(GUID_CHARS_NUL as i32)
}

/// StringFromCLSID / StringFromIID: the text in a block of the task allocator.
pub fn StringFromCLSID(cx: &mut Ctx, rclsid: Ptr, lplpsz: Ptr) -> ApiResult<u32> {
    if rclsid.is_null() || lplpsz.is_null() {
        return Ok(E_INVALIDARG);
    }
    let g = Guid::read(cx.proc, rclsid.0)?;
    let p = super::malloc::alloc(cx, 2 * GUID_CHARS_NUL)?;
    cx.proc.mem.write_u32(lplpsz.0, p)?;
    if p == 0 {
        return Ok(E_OUTOFMEMORY);
    }
    cx.proc.mem.write_bytes(p, &text_of(&g))?;
    Ok(S_OK)
}

pub fn StringFromIID(cx: &mut Ctx, rclsid: Ptr, lplpsz: Ptr) -> ApiResult<u32> {
    StringFromCLSID(cx, rclsid, lplpsz)
}

/// SplitMix64: the generator behind CoCreateGuid.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A version 4 (random) GUID with the RFC 4122 variant, as Windows' CoCreateGuid
/// makes. The generator is seeded from the host once per process, or with a
/// constant in deterministic mode so a run is reproducible.
pub fn new_guid(cx: &Ctx) -> Guid {
    let deterministic = cx.proc.config.deterministic;
    with_state(cx.proc, |s| {
        let st = s.rng.get_or_insert_with(|| {
            if deterministic {
                0x7769_6E74_6572_7030
            } else {
                use std::hash::{BuildHasher, Hasher};
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos())
                        .unwrap_or(0),
                );
                h.finish()
            }
        });
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&next(st).to_le_bytes());
        b[8..].copy_from_slice(&next(st).to_le_bytes());
        // Data3's high nibble is the version (4); Data4[0]'s top bits the variant.
        b[7] = (b[7] & 0x0F) | 0x40;
        b[8] = (b[8] & 0x3F) | 0x80;
        Guid(b)
    })
}

pub fn CoCreateGuid(cx: &mut Ctx, pguid: Ptr) -> ApiResult<u32> {
    if pguid.is_null() {
        return Ok(E_INVALIDARG);
    }
    let g = new_guid(cx);
    g.write(cx.proc, pguid.0)?;
    Ok(S_OK)
}
