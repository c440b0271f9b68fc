//! The VS_VERSIONINFO block: building one (for the system DLLs winterp serves) and
//! walking one (VerQueryValue), as plain Rust over bytes.
//!
//! Layout (the 32-bit form every PE file carries; documented under VS_VERSIONINFO,
//! StringFileInfo, StringTable, String, VarFileInfo and Var): each node is
//!
//! ```text
//! WORD  wLength       bytes of the node with its children, without the padding
//!                     that aligns whatever follows it
//! WORD  wValueLength  bytes of a binary value, UTF-16 units (with the NUL) of a
//!                     text value
//! WORD  wType         1 text, 0 binary
//! WCHAR szKey[]       NUL-terminated
//! WORD  Padding[]     to a 32-bit boundary
//! Value
//! WORD  Padding[]     to a 32-bit boundary
//! Children[]          nodes, each starting on a 32-bit boundary
//! ```
//!
//! Boundaries count from the start of the block (a resource is 32-bit aligned).
//! The walk follows what VerQueryValue does (as Wine's version.c also reads it):
//! the value starts at the aligned end of the key, the children at the aligned end
//! of the value (`wValueLength` doubled for text), a child's key is compared
//! without regard to case, a child of length 0 ends the search, and children end at
//! the parent's `wLength`. Reads past the block's bytes find nothing.

use crate::kernel32::string::lower_unit;

/// A node's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// No value: StringFileInfo, StringTable and VarFileInfo, which are text
    /// nodes (wType 1) as the resource compiler writes them.
    None,
    Binary(Vec<u8>),
    Text(String),
}

/// One node of a version block to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub key: String,
    pub value: Value,
    pub children: Vec<Node>,
}

impl Node {
    pub fn binary(key: &str, value: Vec<u8>, children: Vec<Node>) -> Node {
        Node {
            key: key.into(),
            value: Value::Binary(value),
            children,
        }
    }

    pub fn text(key: &str, value: &str) -> Node {
        Node {
            key: key.into(),
            value: Value::Text(value.into()),
            children: Vec::new(),
        }
    }

    pub fn group(key: &str, children: Vec<Node>) -> Node {
        Node {
            key: key.into(),
            value: Value::None,
            children,
        }
    }

    /// The node's bytes; `wLength` is their count.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; 6];
        for u in self.key.encode_utf16().chain([0]) {
            b.extend_from_slice(&u.to_le_bytes());
        }
        let (value_len, text) = match &self.value {
            Value::None => (0, true),
            Value::Binary(v) => (v.len(), false),
            Value::Text(s) => (s.encode_utf16().count() + 1, true),
        };
        if value_len > 0 || !self.children.is_empty() {
            pad4(&mut b);
        }
        match &self.value {
            Value::None => {}
            Value::Binary(v) => b.extend_from_slice(v),
            Value::Text(s) => {
                for u in s.encode_utf16().chain([0]) {
                    b.extend_from_slice(&u.to_le_bytes());
                }
            }
        }
        for c in &self.children {
            // The padding before a child belongs to the parent, never to the
            // node it follows, so the last child's tail is not counted.
            pad4(&mut b);
            b.extend_from_slice(&c.to_bytes());
        }
        let len = u16::try_from(b.len()).expect("a version block node fits wLength");
        b[0..2].copy_from_slice(&len.to_le_bytes());
        b[2..4].copy_from_slice(&(value_len as u16).to_le_bytes());
        b[4..6].copy_from_slice(&u16::from(text).to_le_bytes());
        b
    }
}

fn pad4(b: &mut Vec<u8>) {
    b.resize(b.len().next_multiple_of(4), 0);
}

/// The fixed part of a version block ("\"), 52 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedFileInfo {
    pub file_version: [u16; 4],
    pub product_version: [u16; 4],
    pub file_flags_mask: u32,
    pub file_flags: u32,
    pub file_os: u32,
    pub file_type: u32,
    pub file_subtype: u32,
}

/// VS_FIXEDFILEINFO.dwSignature.
pub const FIXED_SIGNATURE: u32 = 0xfeef_04bd;
/// VS_FIXEDFILEINFO.dwStrucVersion: 1.0.
const STRUC_VERSION: u32 = 0x0001_0000;

impl FixedFileInfo {
    pub fn to_bytes(&self) -> Vec<u8> {
        let ms = |v: [u16; 4]| (u32::from(v[0]) << 16) | u32::from(v[1]);
        let ls = |v: [u16; 4]| (u32::from(v[2]) << 16) | u32::from(v[3]);
        let dwords = [
            FIXED_SIGNATURE,
            STRUC_VERSION,
            ms(self.file_version),
            ls(self.file_version),
            ms(self.product_version),
            ls(self.product_version),
            self.file_flags_mask,
            self.file_flags,
            self.file_os,
            self.file_type,
            self.file_subtype,
            0, // dwFileDateMS: system files carry no date here
            0, // dwFileDateLS
        ];
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }
}

/// A value VerQueryValue found: where it starts in the block, its `wValueLength`
/// and whether it is text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub offset: usize,
    pub len: u16,
    pub text: bool,
}

fn word(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// Offset of a node's value: past the key's NUL, aligned.
fn value_at(b: &[u8], node: usize) -> Option<usize> {
    let mut at = node + 6;
    while word(b, at)? != 0 {
        at += 2;
    }
    Some((at + 2).next_multiple_of(4))
}

/// Offset of a node's first child.
fn children_at(b: &[u8], node: usize) -> Option<usize> {
    let value_len = usize::from(word(b, node + 2)?);
    let text = word(b, node + 4)? != 0;
    let bytes = if text { value_len * 2 } else { value_len };
    Some((value_at(b, node)? + bytes).next_multiple_of(4))
}

fn key_is(b: &[u8], node: usize, key: &[u16]) -> bool {
    let mut at = node + 6;
    for &k in key {
        match word(b, at) {
            Some(u) if u != 0 && lower_unit(u) == lower_unit(k) => at += 2,
            _ => return false,
        }
    }
    word(b, at) == Some(0)
}

/// The child of `node` called `key`.
fn child(b: &[u8], node: usize, key: &[u16]) -> Option<usize> {
    let end = node + usize::from(word(b, node)?);
    let mut c = children_at(b, node)?;
    while c < end {
        if key_is(b, c, key) {
            return Some(c);
        }
        let len = usize::from(word(b, c)?);
        if len == 0 {
            return None;
        }
        c += len.next_multiple_of(4);
    }
    None
}

/// VerQueryValue's walk: `path` is a backslash-separated list of keys from the
/// root (empty components are skipped, so "\" and "" name the root itself).
pub fn query(block: &[u8], path: &[u16]) -> Option<Found> {
    let mut node = 0;
    for comp in path.split(|&u| u == u16::from(b'\\')) {
        if !comp.is_empty() {
            node = child(block, node, comp)?;
        }
    }
    Some(Found {
        offset: value_at(block, node)?,
        len: word(block, node + 2)?,
        text: word(block, node + 4)? != 0,
    })
}

/// A 16-bit (Windows 3.x, NE file) block has no wType word, so its key starts
/// at offset 4; VerQueryValue tells the two apart by that character (the test
/// Windows' and Wine's version.c make, on a signed CHAR).
pub fn is_16bit(block: &[u8]) -> bool {
    block.get(4).is_some_and(|&c| (c as i8) >= b' ' as i8)
}
