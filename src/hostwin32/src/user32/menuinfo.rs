//! The MENUITEMINFO interface to menu items: InsertMenuItem, SetMenuItemInfo and
//! GetMenuItemInfo (Windows 95 and NT 4 on). It works on the same items as the
//! AppendMenu family in `res`; the state and type bits of MENUITEMINFO are the MF_*
//! bits those keep, so both views agree.

#![allow(non_snake_case)]

use super::lock_wm;
use super::wm::MenuItem;
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::string::{copy_truncated_a, copy_truncated_w, encode_ansi};

const ERROR_INVALID_PARAMETER: u32 = 87;
const ERROR_INVALID_MENU_HANDLE: u32 = 1401;
const ERROR_MENU_ITEM_NOT_FOUND: u32 = 1456;

/// MENUITEMINFO sizes: Windows 98/2000 added hbmpItem at offset 44.
const SIZE_OLD: u32 = 44;
const SIZE_NEW: u32 = 48;

mod miim {
    pub const STATE: u32 = 0x1;
    pub const ID: u32 = 0x2;
    pub const SUBMENU: u32 = 0x4;
    pub const CHECKMARKS: u32 = 0x8;
    pub const TYPE: u32 = 0x10;
    pub const DATA: u32 = 0x20;
    pub const STRING: u32 = 0x40;
    pub const BITMAP: u32 = 0x80;
    pub const FTYPE: u32 = 0x100;
}

/// fType bits (the MF_* type bits by other names).
const MFT_BITMAP: u32 = 0x4;
const MFT_TYPE_BITS: u32 = 0x4 | 0x20 | 0x40 | 0x100 | 0x200 | 0x800 | 0x2000 | 0x4000;
/// fState bits: MFS_GRAYED (MF_GRAYED | MF_DISABLED), MFS_CHECKED, MFS_HILITE,
/// MFS_DEFAULT.
const MFS_STATE_BITS: u32 = 0x3 | 0x8 | 0x80 | 0x1000;
const MF_POPUP: u32 = 0x10;

/// The fields of a MENUITEMINFO a call reads or fills.
struct Info {
    at: u32,
    size: u32,
    mask: u32,
}

fn read_info(cx: &mut Ctx, p: u32) -> ApiResult<Option<Info>> {
    if p == 0 {
        return Ok(None);
    }
    let size = cx.proc.mem.read_u32(p)?;
    if size != SIZE_OLD && size != SIZE_NEW {
        return Ok(None);
    }
    let mask = cx.proc.mem.read_u32(p + 4)?;
    Ok(Some(Info { at: p, size, mask }))
}

fn fail(cx: &mut Ctx, e: u32) -> ApiResult<bool> {
    crate::teb::set_last_error(cx, e)?;
    Ok(false)
}

/// Applies the MENUITEMINFO fields its mask names to `it`.
fn apply(cx: &mut Ctx, i: &Info, it: &mut MenuItem, unicode: bool) -> ApiResult<()> {
    let rd = |k: u32| cx.proc.mem.read_u32(i.at + k);
    let mut text_ptr = None;
    if i.mask & miim::TYPE != 0 {
        // The old all-in-one form: fType, and dwTypeData as a string unless the
        // type says bitmap or separator.
        let ty = rd(8)? & MFT_TYPE_BITS;
        it.flags = (it.flags & !MFT_TYPE_BITS) | ty;
        if ty & (MFT_BITMAP | 0x800 | 0x100) == 0 {
            text_ptr = Some(rd(36)?);
        } else {
            it.text.clear();
        }
    }
    if i.mask & miim::FTYPE != 0 {
        it.flags = (it.flags & !MFT_TYPE_BITS) | (rd(8)? & MFT_TYPE_BITS);
    }
    if i.mask & miim::STRING != 0 {
        text_ptr = Some(rd(36)?);
    }
    if let Some(p) = text_ptr {
        it.text = super::read_str(cx, p, unicode)?;
    }
    if i.mask & miim::STATE != 0 {
        it.flags = (it.flags & !MFS_STATE_BITS) | (rd(12)? & MFS_STATE_BITS);
    }
    if i.mask & miim::ID != 0 {
        it.id = rd(16)?;
    }
    if i.mask & miim::SUBMENU != 0 {
        it.submenu = rd(20)?;
        if it.submenu != 0 {
            it.flags |= MF_POPUP;
        } else {
            it.flags &= !MF_POPUP;
        }
    }
    if i.mask & miim::DATA != 0 {
        it.data = rd(32)?;
    }
    // Check-mark bitmaps and item bitmaps are not drawn by winterp's menus: keep
    // nothing rather than pretend; an item that is only a bitmap reports below.
    if i.mask & miim::BITMAP != 0 && i.size >= SIZE_NEW && rd(44)? != 0 && it.text.is_empty() {
        return Err(crate::hle::ApiError::UnimplementedCase(
            "MENUITEMINFO with an item bitmap (MIIM_BITMAP) and no text".into(),
        ));
    }
    Ok(())
}

fn insert_item(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    by_position: bool,
    lpmii: u32,
    unicode: bool,
) -> ApiResult<bool> {
    let Some(info) = read_info(cx, lpmii)? else {
        return fail(cx, ERROR_INVALID_PARAMETER);
    };
    if !lock_wm(cx.proc).menus.contains_key(&hmenu) {
        return fail(cx, ERROR_INVALID_MENU_HANDLE);
    }
    let mut it = MenuItem::default();
    apply(cx, &info, &mut it, unicode)?;
    let mut wm = lock_wm(cx.proc);
    let at = if by_position {
        None
    } else {
        super::res::find_item(&wm, hmenu, item, 0, 0)
    };
    let Some(m) = wm.menus.get_mut(&hmenu) else {
        drop(wm);
        return fail(cx, ERROR_INVALID_MENU_HANDLE);
    };
    // By position: past the end (e.g. -1) appends. By command: before that item,
    // in whichever (sub)menu holds it; an id not found appends to this menu.
    match at {
        Some((sub, i)) if sub != hmenu => {
            if let Some(s) = wm.menus.get_mut(&sub) {
                s.items.insert(i, it);
            }
        }
        Some((_, i)) => m.items.insert(i, it),
        None => {
            let i = if by_position {
                (item as usize).min(m.items.len())
            } else {
                m.items.len()
            };
            m.items.insert(i, it);
        }
    }
    Ok(true)
}

pub fn InsertMenuItemA(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPosition: bool,
    lpmi: Ptr,
) -> ApiResult<bool> {
    insert_item(cx, hmenu, item, fByPosition, lpmi.0, false)
}

pub fn InsertMenuItemW(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPosition: bool,
    lpmi: Ptr,
) -> ApiResult<bool> {
    insert_item(cx, hmenu, item, fByPosition, lpmi.0, true)
}

/// The MENUITEMINFO at `lpmii` and the item it is about (the menu holding it, its
/// index, a copy), or the error code Set/GetMenuItemInfo fail with.
type Target = (Info, u32, usize, MenuItem);

fn target(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    by_position: bool,
    lpmii: u32,
) -> ApiResult<Result<Target, u32>> {
    let Some(info) = read_info(cx, lpmii)? else {
        return Ok(Err(ERROR_INVALID_PARAMETER));
    };
    let wm = lock_wm(cx.proc);
    if !wm.menus.contains_key(&hmenu) {
        return Ok(Err(ERROR_INVALID_MENU_HANDLE));
    }
    let flags = if by_position { 0x400 } else { 0 };
    let Some((m, i)) = super::res::find_item(&wm, hmenu, item, flags, 0) else {
        return Ok(Err(ERROR_MENU_ITEM_NOT_FOUND));
    };
    let it = wm.menus[&m].items[i].clone();
    Ok(Ok((info, m, i, it)))
}

fn set_info(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    by_position: bool,
    lpmii: u32,
    unicode: bool,
) -> ApiResult<bool> {
    let (info, m, i, mut it) = match target(cx, hmenu, item, by_position, lpmii)? {
        Ok(t) => t,
        Err(e) => return fail(cx, e),
    };
    apply(cx, &info, &mut it, unicode)?;
    if let Some(mm) = lock_wm(cx.proc).menus.get_mut(&m)
        && i < mm.items.len()
    {
        mm.items[i] = it;
    }
    Ok(true)
}

pub fn SetMenuItemInfoA(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPositon: bool,
    lpmii: Ptr,
) -> ApiResult<bool> {
    set_info(cx, hmenu, item, fByPositon, lpmii.0, false)
}

pub fn SetMenuItemInfoW(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPositon: bool,
    lpmii: Ptr,
) -> ApiResult<bool> {
    set_info(cx, hmenu, item, fByPositon, lpmii.0, true)
}

fn get_info(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    by_position: bool,
    lpmii: u32,
    unicode: bool,
) -> ApiResult<bool> {
    let (info, _, _, it) = match target(cx, hmenu, item, by_position, lpmii)? {
        Ok(t) => t,
        Err(e) => return fail(cx, e),
    };
    let mem = &cx.proc.mem;
    let p = info.at;
    if info.mask & (miim::TYPE | miim::FTYPE) != 0 {
        mem.write_u32(p + 8, it.flags & MFT_TYPE_BITS)?;
    }
    if info.mask & miim::STATE != 0 {
        mem.write_u32(p + 12, it.flags & MFS_STATE_BITS)?;
    }
    if info.mask & miim::ID != 0 {
        mem.write_u32(p + 16, it.id)?;
    }
    if info.mask & miim::SUBMENU != 0 {
        mem.write_u32(p + 20, it.submenu)?;
    }
    if info.mask & miim::CHECKMARKS != 0 {
        mem.write_u32(p + 24, 0)?;
        mem.write_u32(p + 28, 0)?;
    }
    if info.mask & miim::DATA != 0 {
        mem.write_u32(p + 32, it.data)?;
    }
    if info.mask & miim::BITMAP != 0 && info.size >= SIZE_NEW {
        mem.write_u32(p + 44, 0)?;
    }
    let wants_text = info.mask & miim::STRING != 0
        || (info.mask & miim::TYPE != 0 && it.flags & (MFT_BITMAP | 0x800 | 0x100) == 0);
    if wants_text {
        // cch in: the buffer's size in characters; out: the text's length.
        let buf = mem.read_u32(p + 36)?;
        let cap = mem.read_u32(p + 40)?;
        let len = if unicode {
            let w: Vec<u16> = it.text.encode_utf16().collect();
            if buf != 0 {
                copy_truncated_w(cx.proc, buf, cap, &w)?;
            }
            w.len() as u32
        } else {
            let a = encode_ansi(&it.text);
            if buf != 0 {
                copy_truncated_a(cx.proc, buf, cap, &a)?;
            }
            a.len() as u32
        };
        let out = if buf != 0 && cap > 0 {
            len.min(cap - 1)
        } else {
            len
        };
        cx.proc.mem.write_u32(p + 40, out)?;
    }
    Ok(true)
}

pub fn GetMenuItemInfoA(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPosition: bool,
    lpmii: Ptr,
) -> ApiResult<bool> {
    get_info(cx, hmenu, item, fByPosition, lpmii.0, false)
}

pub fn GetMenuItemInfoW(
    cx: &mut Ctx,
    hmenu: u32,
    item: u32,
    fByPosition: bool,
    lpmii: Ptr,
) -> ApiResult<bool> {
    get_info(cx, hmenu, item, fByPosition, lpmii.0, true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("InsertMenuItemA", InsertMenuItemA),
        stdcall("InsertMenuItemW", InsertMenuItemW),
        stdcall("SetMenuItemInfoA", SetMenuItemInfoA),
        stdcall("SetMenuItemInfoW", SetMenuItemInfoW),
        stdcall("GetMenuItemInfoA", GetMenuItemInfoA),
        stdcall("GetMenuItemInfoW", GetMenuItemInfoW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    fn mii(h: &mut Harness, at: u32, mask: u32, ty: u32, state: u32, id: u32, text: u32) {
        let f = [SIZE_NEW, mask, ty, state, id, 0, 0, 0, 0x1234, text, 0, 0];
        for (k, v) in f.iter().enumerate() {
            h.proc.mem.write_u32(at + 4 * k as u32, *v).unwrap();
        }
    }

    #[test]
    fn insert_set_and_get_agree_with_the_menu_functions() {
        let mut h = Harness::new();
        let m = super::super::res::CreatePopupMenu(&mut h.cx());
        let b = h.scratch(0x200);
        let s = b + 0x100;
        h.put_cstr(s, "&Open");
        mii(
            &mut h,
            b,
            miim::STRING | miim::ID | miim::STATE | miim::DATA,
            0,
            0x8,
            101,
            s,
        );
        assert!(InsertMenuItemA(&mut h.cx(), m, u32::MAX, true, Ptr(b)).unwrap());
        h.put_cstr(s, "&Save");
        mii(&mut h, b, miim::TYPE | miim::ID, 0, 0, 102, s);
        // Before item 101, by command.
        assert!(InsertMenuItemA(&mut h.cx(), m, 101, false, Ptr(b)).unwrap());
        assert_eq!(super::super::res::GetMenuItemCount(&mut h.cx(), m), 2);
        assert_eq!(super::super::res::GetMenuItemID(&mut h.cx(), m, 0), 102);
        // MIIM_STATE's MFS_CHECKED is MF_CHECKED.
        assert_eq!(
            super::super::res::GetMenuState(&mut h.cx(), m, 101, 0) & 0x8,
            0x8
        );
        let out = b + 0x180;
        mii(
            &mut h,
            b,
            miim::STRING | miim::ID | miim::DATA | miim::STATE,
            0,
            0,
            0,
            out,
        );
        h.proc.mem.write_u32(b + 40, 32).unwrap();
        assert!(GetMenuItemInfoA(&mut h.cx(), m, 1, true, Ptr(b)).unwrap());
        assert_eq!(h.u32(b + 16), 101);
        assert_eq!(h.u32(b + 32), 0x1234);
        assert_eq!(h.u32(b + 12), 0x8);
        assert_eq!(h.u32(b + 40), 5);
        assert_eq!(h.cstr(out), "&Open");
        // SetMenuItemInfo changes only what the mask names.
        mii(&mut h, b, miim::STATE, 0, 0x3, 0, 0);
        assert!(SetMenuItemInfoA(&mut h.cx(), m, 101, false, Ptr(b)).unwrap());
        assert_eq!(
            super::super::res::GetMenuState(&mut h.cx(), m, 101, 0) & 0xb,
            0x3
        );
        // A missing item and a bad size fail as documented.
        mii(&mut h, b, miim::ID, 0, 0, 0, 0);
        assert!(!GetMenuItemInfoA(&mut h.cx(), m, 999, false, Ptr(b)).unwrap());
        assert_eq!(h.last_error(), ERROR_MENU_ITEM_NOT_FOUND);
        h.proc.mem.write_u32(b, 12).unwrap();
        assert!(!InsertMenuItemA(&mut h.cx(), m, 0, true, Ptr(b)).unwrap());
        assert_eq!(h.last_error(), ERROR_INVALID_PARAMETER);
    }
}
