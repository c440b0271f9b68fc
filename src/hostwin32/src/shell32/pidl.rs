//! Item ID lists (PIDLs) and the shell's allocator: SHGetPathFromIDList, ILFree,
//! ILClone, ILGetSize, ILCreateFromPath, SHAlloc/SHFree and SHGetMalloc.
//!
//! # The ID lists winterp makes
//!
//! An ID list is a run of items, each a little-endian `u16` byte count (counting
//! itself) and that many bytes less two, ended by a count of 0. The items'
//! contents belong to the shell folder that made them, so winterp uses its own,
//! which only these functions read:
//!
//! - the empty list (just the `u16` 0) is the desktop, the namespace root, as on
//!   Windows;
//! - otherwise one item: the count, the tag `wtrp`, a kind byte, then
//!   - kind `P`: an absolute file-system path, UTF-16LE, NUL-terminated;
//!   - kind `V`: a virtual folder (My Computer, the Control Panel ...), its CSIDL
//!     as a `u32`;
//!
//!   followed by the ending `u16` 0.
//!
//! Since every item carries the whole path, a list of several of these items (a
//! program appends an item IShellFolder::EnumObjects gave to its folder's list,
//! as ILCombine does) names what its last item names. IShellFolder's
//! ParseDisplayName makes such lists as Windows does, one item per level from the
//! folder down (from the desktop: My Computer, the drive, each folder), each item
//! the bytes the parent folder's EnumObjects gives for it, so a program that walks
//! a list level by level finds every item among its parent's children.
//!
//! Every list lives in one block of the task allocator (CoTaskMemAlloc), which
//! is the shell's allocator too: ILFree, SHFree, CoTaskMemFree and the IMalloc of
//! SHGetMalloc all free it.

#![allow(non_snake_case)]

use super::folders::{self, CSIDL_DESKTOPDIRECTORY};
use crate::hle::com::{E_INVALIDARG, S_OK};
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::{encode_ansi, read_ansi, read_wstr, write_wide};
use crate::ole32::malloc;
use crate::vfs::MAX_PATH;

const TAG: &[u8; 4] = b"wtrp";
const KIND_PATH: u8 = b'P';
const KIND_VIRTUAL: u8 = b'V';

/// What one of winterp's ID lists names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Desktop,
    Virtual(u32),
    Path(String),
}

/// The bytes of the ID list for `item` (the whole list, with its ending 0).
pub fn encode(item: &Item) -> Vec<u8> {
    let mut body = Vec::new();
    match item {
        Item::Desktop => return vec![0, 0],
        Item::Virtual(csidl) => {
            body.push(KIND_VIRTUAL);
            body.extend_from_slice(&csidl.to_le_bytes());
        }
        Item::Path(p) => {
            body.push(KIND_PATH);
            for u in p.encode_utf16().chain([0]) {
                body.extend_from_slice(&u.to_le_bytes());
            }
        }
    }
    let cb = (2 + TAG.len() + body.len()) as u16;
    let mut out = cb.to_le_bytes().to_vec();
    out.extend_from_slice(TAG);
    out.extend_from_slice(&body);
    out.extend_from_slice(&[0, 0]);
    out
}

/// Reads back a list [`encode`] made, or several of its items in a row (the
/// last one counts): `None` for anything else.
pub fn decode(list: &[u8]) -> Option<Item> {
    let cb = u16::from_le_bytes([*list.first()?, *list.get(1)?]) as usize;
    if cb == 0 {
        return Some(Item::Desktop);
    }
    if cb < 2 {
        return None;
    }
    let item = list.get(2..cb)?;
    if item.get(..4)? != TAG {
        return None;
    }
    if list.get(cb..cb + 2)? != [0, 0] {
        return decode(&list[cb..]);
    }
    let body = &item[4..];
    match *body.first()? {
        KIND_VIRTUAL => Some(Item::Virtual(u32::from_le_bytes(
            body.get(1..5)?.try_into().ok()?,
        ))),
        KIND_PATH => {
            let units: Vec<u16> = body[1..]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            let end = units.iter().position(|&u| u == 0)?;
            Some(Item::Path(String::from_utf16_lossy(&units[..end])))
        }
        _ => None,
    }
}

/// The bytes of a list of several items in a row, each as [`encode`] makes it,
/// with one ending 0 (a Windows ID list that walks from a folder down to an item,
/// one level per item).
pub fn encode_list(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    for it in items {
        let b = encode(it);
        out.extend_from_slice(&b[..b.len() - 2]);
    }
    out.extend_from_slice(&[0, 0]);
    out
}

/// A new list for `item` in the task allocator; 0 when it is out of memory.
pub fn alloc(cx: &mut Ctx, item: &Item) -> ApiResult<u32> {
    alloc_list(cx, std::slice::from_ref(item))
}

/// A new list of `items` (one level each) in the task allocator; 0 when it is out
/// of memory.
pub fn alloc_list(cx: &mut Ctx, items: &[Item]) -> ApiResult<u32> {
    let bytes = encode_list(items);
    let p = malloc::alloc(cx, bytes.len() as u32)?;
    if p != 0 {
        cx.proc.mem.write_bytes(p, &bytes)?;
    }
    Ok(p)
}

/// The size of the ID list at `p` in bytes, with its ending 0 (any list, not only
/// winterp's: the item counts are the format's).
fn list_size(cx: &Ctx, p: u32) -> ApiResult<u32> {
    let mut at = p;
    loop {
        let cb = cx.proc.mem.read_u16(at)? as u32;
        if cb == 0 {
            return Ok(at - p + 2);
        }
        at = at.wrapping_add(cb);
    }
}

/// What the list at `p` names; `None` when it is not one of winterp's.
pub fn read(cx: &Ctx, p: u32) -> ApiResult<Option<Item>> {
    // Past some levels of items of MAX_PATH characters each it cannot be one of
    // winterp's lists.
    let limit = (64 * (2 + 4 + 1 + 2 * MAX_PATH) + 2) as u32;
    let size = list_size(cx, p)?;
    if size > limit {
        return Ok(None);
    }
    let mut b = vec![0u8; size as usize];
    cx.proc.mem.read_bytes(p, &mut b)?;
    Ok(decode(&b))
}

/// The file-system path of an ID list; `None` for a virtual folder.
pub fn path_of(cx: &mut Ctx, pidl: u32) -> ApiResult<Option<String>> {
    match read(cx, pidl)? {
        Some(Item::Path(p)) => Ok(Some(p)),
        Some(Item::Virtual(_)) => Ok(None),
        Some(Item::Desktop) => {
            let (hr, path) = folders::folder_path(cx, CSIDL_DESKTOPDIRECTORY, 0, None)?;
            Ok(path.filter(|_| hr & 0x8000_0000 == 0))
        }
        None => Err(ApiError::UnimplementedCase(format!(
            "an item ID list at {pidl:#x} that winterp's SHELL32 did not make"
        ))),
    }
}

/// FALSE with an empty string for a virtual folder (it has no path).
fn path_from_list(cx: &mut Ctx, pidl: u32, out: u32, wide: bool) -> ApiResult<bool> {
    if out == 0 {
        return Ok(false);
    }
    let path = if pidl == 0 { None } else { path_of(cx, pidl)? };
    let text = path.clone().unwrap_or_default();
    if wide {
        let mut w: Vec<u16> = text.encode_utf16().take(MAX_PATH - 1).collect();
        w.push(0);
        write_wide(cx.proc, out, &w)?;
    } else {
        let mut a = encode_ansi(&text);
        a.truncate(MAX_PATH - 1);
        a.push(0);
        cx.proc.mem.write_bytes(out, &a)?;
    }
    Ok(path.is_some())
}

pub fn SHGetPathFromIDListW(cx: &mut Ctx, pidl: u32, pszPath: Ptr) -> ApiResult<bool> {
    path_from_list(cx, pidl, pszPath.0, true)
}

pub fn SHGetPathFromIDListA(cx: &mut Ctx, pidl: u32, pszPath: Ptr) -> ApiResult<bool> {
    path_from_list(cx, pidl, pszPath.0, false)
}

pub fn ILFree(cx: &mut Ctx, pidl: u32) -> ApiResult<()> {
    malloc::free(cx, pidl)
}

pub fn SHFree(cx: &mut Ctx, pv: u32) -> ApiResult<()> {
    malloc::free(cx, pv)
}

pub fn SHAlloc(cx: &mut Ctx, cb: u32) -> ApiResult<u32> {
    malloc::alloc(cx, cb)
}

/// 0 for NULL.
fn ILGetSize(cx: &mut Ctx, pidl: u32) -> ApiResult<u32> {
    if pidl == 0 {
        return Ok(0);
    }
    list_size(cx, pidl)
}

/// A copy of any ID list in a new block; NULL for NULL.
fn ILClone(cx: &mut Ctx, pidl: u32) -> ApiResult<u32> {
    if pidl == 0 {
        return Ok(0);
    }
    let size = list_size(cx, pidl)?;
    let mut b = vec![0u8; size as usize];
    cx.proc.mem.read_bytes(pidl, &mut b)?;
    let p = malloc::alloc(cx, size)?;
    if p != 0 {
        cx.proc.mem.write_bytes(p, &b)?;
    }
    Ok(p)
}

/// The list of an existing file or folder (NULL if there is none), by its full
/// path as GetFullPathName gives it.
fn create_from_path(cx: &mut Ctx, path: &str) -> ApiResult<u32> {
    let v = vfs(cx.proc)?;
    let Ok(full) = v.full_path(path) else {
        return Ok(0);
    };
    if v.get_attributes(&full).is_err() {
        return Ok(0);
    }
    alloc(cx, &Item::Path(full))
}

fn ILCreateFromPathW(cx: &mut Ctx, pszPath: WStrPtr) -> ApiResult<u32> {
    if pszPath.0 == 0 {
        return Ok(0);
    }
    let p = read_wstr(cx.proc, pszPath.0)?;
    create_from_path(cx, &p)
}

fn ILCreateFromPathA(cx: &mut Ctx, pszPath: CStrPtr) -> ApiResult<u32> {
    if pszPath.0 == 0 {
        return Ok(0);
    }
    let p = read_ansi(cx.proc, pszPath.0)?;
    create_from_path(cx, &p)
}

/// The bytes of the list at `p` without its ending 0 (empty for NULL).
fn items_of(cx: &Ctx, p: u32) -> ApiResult<Vec<u8>> {
    if p == 0 {
        return Ok(Vec::new());
    }
    let size = list_size(cx, p)?;
    let mut b = vec![0u8; size as usize - 2];
    cx.proc.mem.read_bytes(p, &mut b)?;
    Ok(b)
}

/// A new list holding `items` and the ending 0; 0 when out of memory.
fn alloc_items(cx: &mut Ctx, items: &[u8]) -> ApiResult<u32> {
    let p = malloc::alloc(cx, items.len() as u32 + 2)?;
    if p != 0 {
        cx.proc.mem.write_bytes(p, items)?;
        cx.proc.mem.write_u16(p + items.len() as u32, 0)?;
    }
    Ok(p)
}

/// The items of `pidl1` followed by those of `pidl2`, in a new list (NULL when
/// both are NULL).
fn ILCombine(cx: &mut Ctx, pidl1: u32, pidl2: u32) -> ApiResult<u32> {
    if pidl1 == 0 && pidl2 == 0 {
        return Ok(0);
    }
    let mut items = items_of(cx, pidl1)?;
    items.extend(items_of(cx, pidl2)?);
    alloc_items(cx, &items)
}

/// A list of the first item of `pidl` alone (an empty list stays empty).
fn ILCloneFirst(cx: &mut Ctx, pidl: u32) -> ApiResult<u32> {
    if pidl == 0 {
        return Ok(0);
    }
    let cb = cx.proc.mem.read_u16(pidl)? as usize;
    let items = items_of(cx, pidl)?;
    alloc_items(cx, &items[..cb.min(items.len())])
}

/// The item after the first one (possibly the ending 0); NULL at the end.
fn ILGetNext(cx: &mut Ctx, pidl: u32) -> ApiResult<u32> {
    if pidl == 0 {
        return Ok(0);
    }
    let cb = cx.proc.mem.read_u16(pidl)?;
    Ok(if cb == 0 {
        0
    } else {
        pidl.wrapping_add(u32::from(cb))
    })
}

/// The last item of `pidl` (the list itself when it is empty).
pub fn ILFindLastID(cx: &mut Ctx, pidl: u32) -> ApiResult<u32> {
    if pidl == 0 {
        return Ok(0);
    }
    let mut at = pidl;
    loop {
        let cb = cx.proc.mem.read_u16(at)?;
        if cb == 0 {
            return Ok(at);
        }
        let next = at.wrapping_add(u32::from(cb));
        if cx.proc.mem.read_u16(next)? == 0 {
            return Ok(at);
        }
        at = next;
    }
}

/// Whether two lists name the same item: winterp's by what they name (the
/// several-item form of a list names what its last item names), others byte for
/// byte.
fn ILIsEqual(cx: &mut Ctx, pidl1: u32, pidl2: u32) -> ApiResult<bool> {
    if pidl1 == 0 || pidl2 == 0 {
        return Ok(false);
    }
    match (read(cx, pidl1)?, read(cx, pidl2)?) {
        (Some(a), Some(b)) => Ok(a == b),
        _ => Ok(items_of(cx, pidl1)? == items_of(cx, pidl2)?),
    }
}

/// Whether `pidlParent` names a folder above `pidlChild` in the namespace (its
/// folder when `fImmediate`); winterp's lists are compared by what they name.
fn ILIsParent(cx: &mut Ctx, pidlParent: u32, pidlChild: u32, fImmediate: bool) -> ApiResult<bool> {
    if pidlParent == 0 || pidlChild == 0 {
        return Ok(false);
    }
    let (Some(parent), Some(child)) = (read(cx, pidlParent)?, read(cx, pidlChild)?) else {
        let (p, c) = (items_of(cx, pidlParent)?, items_of(cx, pidlChild)?);
        return Ok(c.len() > p.len() && c.starts_with(&p) && !fImmediate);
    };
    let mut at = super::shellfolder::parent_of(cx, &child)?;
    while let Some(a) = at {
        if a == parent {
            return Ok(true);
        }
        if fImmediate {
            return Ok(false);
        }
        at = super::shellfolder::parent_of(cx, &a)?;
    }
    Ok(false)
}

/// The part of `pidlChild` below `pidlParent` (the child itself below the
/// desktop); NULL when the parent is not above it. When the child's list does not
/// start with the parent's items (winterp's one-item lists carry the whole path),
/// the part is the child's last item, which names the child.
fn ILFindChild(cx: &mut Ctx, pidlParent: u32, pidlChild: u32) -> ApiResult<u32> {
    if pidlParent == 0 || pidlChild == 0 {
        return Ok(0);
    }
    let p = items_of(cx, pidlParent)?;
    if p.is_empty() {
        return Ok(pidlChild);
    }
    let c = items_of(cx, pidlChild)?;
    if c.starts_with(&p) && (ILIsParent(cx, pidlParent, pidlChild, false)? || c.len() == p.len()) {
        return Ok(pidlChild + p.len() as u32);
    }
    if ILIsParent(cx, pidlParent, pidlChild, false)? {
        return ILFindLastID(cx, pidlChild);
    }
    Ok(0)
}

/// The process's IMalloc, the one OLE32's CoGetMalloc gives.
fn SHGetMalloc(cx: &mut Ctx, ppMalloc: Ptr) -> ApiResult<u32> {
    if ppMalloc.is_null() {
        return Ok(E_INVALIDARG);
    }
    let m = malloc::malloc_object(cx)?;
    cx.proc.mem.write_u32(ppMalloc.0, m)?;
    Ok(S_OK)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SHGetPathFromIDListA", SHGetPathFromIDListA),
        stdcall("SHGetPathFromIDListW", SHGetPathFromIDListW),
        stdcall("ILFree", ILFree),
        stdcall("ILGetSize", ILGetSize),
        stdcall("ILClone", ILClone),
        stdcall("ILCreateFromPathA", ILCreateFromPathA),
        stdcall("ILCreateFromPathW", ILCreateFromPathW),
        stdcall("SHAlloc", SHAlloc),
        stdcall("SHFree", SHFree),
        stdcall("SHGetMalloc", SHGetMalloc),
        stdcall("ILCombine", ILCombine),
        stdcall("ILCloneFirst", ILCloneFirst),
        stdcall("ILGetNext", ILGetNext),
        stdcall("ILFindLastID", ILFindLastID),
        stdcall("ILIsEqual", ILIsEqual),
        stdcall("ILIsParent", ILIsParent),
        stdcall("ILFindChild", ILFindChild),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_round_trip() {
        for item in [
            Item::Desktop,
            Item::Virtual(0x11),
            Item::Path("C:\\WINDOWS\\Fonts".into()),
            Item::Path(String::new()),
        ] {
            let b = encode(&item);
            assert_eq!(&b[b.len() - 2..], [0, 0]);
            assert_eq!(decode(&b), Some(item));
        }
        assert_eq!(encode(&Item::Desktop), [0, 0]);
    }

    #[test]
    fn the_item_count_covers_the_item() {
        let b = encode(&Item::Path("C:\\A".into()));
        // count + tag + kind + 5 UTF-16 units, then the ending 0.
        assert_eq!(u16::from_le_bytes([b[0], b[1]]), 2 + 4 + 1 + 10);
        assert_eq!(b.len(), 17 + 2);
    }

    #[test]
    fn a_combined_list_names_its_last_item() {
        let mut two = encode(&Item::Virtual(0x11));
        two.truncate(two.len() - 2);
        two.extend_from_slice(&encode(&Item::Path("C:\\A".into())));
        assert_eq!(decode(&two), Some(Item::Path("C:\\A".into())));
    }

    #[test]
    fn a_list_of_levels_is_its_items_in_a_row() {
        let items = [
            Item::Virtual(0x11),
            Item::Path("C:\\".into()),
            Item::Path("C:\\A".into()),
        ];
        let b = encode_list(&items);
        let mut want = Vec::new();
        for it in &items {
            let e = encode(it);
            want.extend_from_slice(&e[..e.len() - 2]);
        }
        want.extend_from_slice(&[0, 0]);
        assert_eq!(b, want);
        assert_eq!(decode(&b), Some(Item::Path("C:\\A".into())));
        assert_eq!(encode_list(&[]), [0, 0]);
    }

    #[test]
    fn foreign_lists_are_not_read() {
        // A list without the tag, one whose second item is foreign, and truncated
        // bytes.
        let mut two = encode(&Item::Virtual(0x11));
        two.truncate(two.len() - 2);
        two.extend_from_slice(&[6, 0, b'x', b'y', b'z', b'w', 0, 0]);
        assert_eq!(decode(&two), None);
        assert_eq!(decode(&[6, 0, b'x', b'y', b'z', b'w', 0, 0]), None);
        assert_eq!(decode(&[20, 0, b'w']), None);
    }
}
