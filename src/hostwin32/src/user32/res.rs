//! Resources: strings, bitmaps, menus (their handles and items; the bar and pop-ups
//! are drawn and tracked in [`super::menubar`]),
//! accelerators; the MessageBox entry points (the box itself is
//! [`super::msgbox`]) and wsprintf.

use super::msg::*;
use super::wm::{Accel, Menu, MenuItem, Msg, UserObj};
use super::{NameOrId, UR, fin, lock_wm, str_or_atom};
use crate::hle::{
    ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, VarArgs, WStrPtr, cdecl, stdcall,
    stdcall_aw,
};
use crate::kernel32::string::GuestStr;
use crate::loader::resources::{ResId, find_resource};

const RT_BITMAP: u16 = 2;
const RT_MENU: u16 = 4;
const RT_STRING: u16 = 6;
const RT_ACCELERATOR: u16 = 9;
const ERROR_RESOURCE_NAME_NOT_FOUND: u32 = 1814;
const ERROR_INVALID_MENU_HANDLE: u32 = 1401;

/// The module a resource call means: `h`, or the program for 0.
pub fn module(cx: &Ctx, h: u32) -> u32 {
    if h == 0 {
        super::program_base(cx.proc)
    } else {
        h
    }
}

fn res_id(n: &NameOrId) -> ResId {
    match n {
        NameOrId::Id(i) => ResId::Id(*i),
        NameOrId::Name(s) => ResId::from_name(s),
    }
}

/// The bytes of resource `name` of type `ty` in module `h`.
pub fn resource(cx: &Ctx, h: u32, ty: u16, name: &NameOrId) -> ApiResult<Option<Vec<u8>>> {
    let base = module(cx, h);
    let Some((rva, size)) = find_resource(cx.proc, base, &ResId::Id(ty), &res_id(name), None)
    else {
        return Ok(None);
    };
    let mut b = vec![0u8; size.min(16 << 20) as usize];
    cx.proc.mem.read_bytes(base.wrapping_add(rva), &mut b)?;
    Ok(Some(b))
}

/// Guest address and size of a resource (LoadString's read-only pointer).
fn resource_addr(cx: &Ctx, h: u32, ty: u16, name: &NameOrId) -> Option<(u32, u32)> {
    let base = module(cx, h);
    find_resource(cx.proc, base, &ResId::Id(ty), &res_id(name), None)
        .map(|(rva, size)| (base.wrapping_add(rva), size))
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(o)?, *b.get(o + 1)?]))
}

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(o)?,
        *b.get(o + 1)?,
        *b.get(o + 2)?,
        *b.get(o + 3)?,
    ]))
}

/// A NUL-terminated UTF-16 string at `o`; returns it and the offset after the NUL.
pub fn wstr_at(b: &[u8], o: usize) -> Option<(String, usize)> {
    let mut u = Vec::new();
    let mut at = o;
    loop {
        let c = u16_at(b, at)?;
        at += 2;
        if c == 0 {
            break;
        }
        u.push(c);
    }
    Some((String::from_utf16_lossy(&u), at))
}

// ---- Strings ------------------------------------------------------------------------

/// String `id` from the string table of module `h` (address of its characters and
/// length in UTF-16 units).
fn string_res(cx: &Ctx, h: u32, id: u32) -> ApiResult<Option<(u32, u32)>> {
    if let Some(s) = hle_string(cx, h, id)? {
        return Ok(Some(s));
    }
    let block = NameOrId::Id(((id >> 4) + 1) as u16);
    let Some((addr, size)) = resource_addr(cx, h, RT_STRING, &block) else {
        return Ok(None);
    };
    let mut at = addr;
    let end = addr + size;
    for _ in 0..(id & 15) {
        if at + 2 > end {
            return Ok(None);
        }
        let n = cx.proc.mem.read_u16(at)? as u32;
        at += 2 + 2 * n;
    }
    if at + 2 > end {
        return Ok(None);
    }
    let n = cx.proc.mem.read_u16(at)? as u32;
    if n == 0 || at + 2 + 2 * n > end {
        return Ok(None);
    }
    Ok(Some((at + 2, n)))
}

/// A string of an HLE DLL that carries a string table of its own (msi.dll: the
/// usage text msiexec loads from it), in guest memory like a module's resource.
fn hle_string(cx: &Ctx, h: u32, id: u32) -> ApiResult<Option<(u32, u32)>> {
    let Some(dll) = crate::loader::hle_module::dll_of(cx.proc, h) else {
        return Ok(None);
    };
    let text = match cx.proc.dlls[dll].0 {
        n if n.eq_ignore_ascii_case("msi.dll") => crate::msi::string_resource(id),
        _ => None,
    };
    let Some(text) = text else {
        return Ok(None);
    };
    let mut b: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    // intern appends one NUL byte; one more makes the UTF-16 terminator.
    b.push(0);
    let addr = crate::msvcrt::state::intern(cx.proc, &b)?;
    Ok(Some((addr, text.encode_utf16().count() as u32)))
}

fn load_string(cx: &mut Ctx, h: u32, id: u32, buf: u32, cap: i32, unicode: bool) -> ApiResult<i32> {
    let s = string_res(cx, h, id)?;
    if unicode && cap == 0 {
        // A read-only pointer to the resource itself.
        let (addr, n) = s.unwrap_or((0, 0));
        cx.proc.mem.write_u32(buf, addr)?;
        return Ok(n as i32);
    }
    let text = match s {
        Some((addr, n)) => super::read_str_n(cx, addr, n as i32, true)?,
        None => {
            crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
            if cap > 0 && buf != 0 {
                super::put_str(cx, buf, cap as u32, "", unicode)?;
            }
            return Ok(0);
        }
    };
    if cap <= 0 {
        return Ok(0);
    }
    Ok(super::put_str(cx, buf, cap as u32, &text, unicode)? as i32)
}

pub fn LoadString<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    uID: u32,
    lpBuffer: u32,
    cchBufferMax: i32,
) -> ApiResult<i32> {
    load_string(cx, hInstance, uID, lpBuffer, cchBufferMax, S::WIDE)
}
// ---- Bitmaps, and LoadImage for every kind (icons and cursors: [`super::icon`]) ---

fn load_bitmap(cx: &mut Ctx, h: u32, name: u32, unicode: bool) -> ApiResult<u32> {
    let n = str_or_atom(cx, name, unicode)?;
    if h == 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "LoadBitmap of system bitmap {n:?}"
        )));
    }
    let Some(b) = resource(cx, h, RT_BITMAP, &n)? else {
        crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
        return Ok(0);
    };
    crate::gdi32::bitmap::create_bitmap_from_dib(cx.proc, &b)
}

pub fn LoadBitmap<S: GuestStr>(cx: &mut Ctx, hInstance: u32, lpBitmapName: u32) -> ApiResult<u32> {
    load_bitmap(cx, hInstance, lpBitmapName, S::WIDE)
}
#[allow(clippy::too_many_arguments)]
fn load_image(
    cx: &mut Ctx,
    h: u32,
    name: u32,
    ty: u32,
    width: i32,
    height: i32,
    flags: u32,
    unicode: bool,
) -> ApiResult<u32> {
    if flags & 0x10 != 0 {
        return Err(ApiError::UnimplementedCase(
            "LoadImage with LR_LOADFROMFILE".into(),
        ));
    }
    match ty {
        0 => load_bitmap(cx, h, name, unicode),
        1 | 2 => {
            let n = str_or_atom(cx, name, unicode)?;
            super::icon::load(cx, h, &n, ty == 2, (width, height), flags)
        }
        _ => Err(ApiError::UnimplementedCase(format!(
            "LoadImage of type {ty}"
        ))),
    }
}

#[allow(clippy::too_many_arguments)]
pub fn LoadImage<S: GuestStr>(
    cx: &mut Ctx,
    hInst: u32,
    name: u32,
    ty: u32,
    cx_: i32,
    cy: i32,
    fuLoad: u32,
) -> ApiResult<u32> {
    load_image(cx, hInst, name, ty, cx_, cy, fuLoad, S::WIDE)
}
// ---- Menus -------------------------------------------------------------------------------

const MF_GRAYED: u32 = 0x1;
const MF_DISABLED: u32 = 0x2;
const MF_CHECKED: u32 = 0x8;
const MF_POPUP: u32 = 0x10;
const MF_END: u32 = 0x80;
const MF_BYPOSITION: u32 = 0x400;
const MF_SEPARATOR: u32 = 0x800;
/// What an item keeps of AppendMenu's flags: its state, and its type as the layout
/// needs it (MF_BITMAP, MF_OWNERDRAW, MF_MENUBREAK, MF_MENUBARBREAK, MF_RIGHTJUSTIFY).
const ITEM_FLAGS: u32 = {
    use super::menubar::{MF_BITMAP, MF_MENUBARBREAK, MF_MENUBREAK, MF_OWNERDRAW, MF_RIGHTJUSTIFY};
    MF_GRAYED
        | MF_DISABLED
        | MF_CHECKED
        | MF_POPUP
        | MF_SEPARATOR
        | MF_BITMAP
        | MF_MENUBARBREAK
        | MF_MENUBREAK
        | MF_OWNERDRAW
        | MF_RIGHTJUSTIFY
};

/// A new menu handle for `m` (also for DLLs above USER32 that build their menus in
/// code, as a real DLL would with CreateMenu and AppendMenu).
pub fn new_menu(cx: &Ctx, m: Menu) -> u32 {
    let mut wm = lock_wm(cx.proc);
    let h = wm.alloc_obj(UserObj::Accel(Vec::new()));
    wm.objs.remove(&h);
    wm.menus.insert(h, m);
    h
}

/// Parses a MENU or MENUEX template into menus; returns the top menu's handle.
pub fn parse_menu(cx: &Ctx, b: &[u8]) -> Option<u32> {
    let version = u16_at(b, 0)?;
    if version == 1 {
        let off = u16_at(b, 2)? as usize;
        let (m, _) = parse_menuex_items(cx, b, 4 + off, 0)?;
        return Some(new_menu(cx, m));
    }
    let hdr = u16_at(b, 2)? as usize;
    let (m, _) = parse_menu_items(cx, b, 4 + hdr, 0)?;
    Some(new_menu(cx, m))
}

fn parse_menu_items(cx: &Ctx, b: &[u8], mut at: usize, depth: u32) -> Option<(Menu, usize)> {
    if depth > 16 {
        return None;
    }
    let mut m = Menu::default();
    loop {
        let flags = u16_at(b, at)? as u32;
        at += 2;
        let id = if flags & MF_POPUP == 0 {
            let id = u16_at(b, at)? as u32;
            at += 2;
            id
        } else {
            0
        };
        let (text, next) = wstr_at(b, at)?;
        at = next;
        let mut item = MenuItem {
            id,
            flags: flags & !MF_END,
            text,
            submenu: 0,
            data: 0,
        };
        if flags & MF_POPUP != 0 {
            let (sub, next) = parse_menu_items(cx, b, at, depth + 1)?;
            at = next;
            let mut sub = sub;
            sub.popup = true;
            item.submenu = new_menu(cx, sub);
        }
        if flags & MF_POPUP == 0 && id == 0 && item.text.is_empty() {
            item.flags |= MF_SEPARATOR;
        }
        m.items.push(item);
        if flags & MF_END != 0 || m.items.len() > 4096 {
            return Some((m, at));
        }
    }
}

fn parse_menuex_items(cx: &Ctx, b: &[u8], mut at: usize, depth: u32) -> Option<(Menu, usize)> {
    if depth > 16 {
        return None;
    }
    let mut m = Menu::default();
    loop {
        let ty = u32_at(b, at)?;
        let state = u32_at(b, at + 4)?;
        let id = u32_at(b, at + 8)?;
        let flags = u16_at(b, at + 12)? as u32;
        let (text, next) = wstr_at(b, at + 14)?;
        at = (next + 3) & !3;
        let mut item = MenuItem {
            id,
            flags: (ty & MF_SEPARATOR) | (state & (MF_CHECKED | MF_GRAYED | MF_DISABLED)),
            text,
            submenu: 0,
            data: 0,
        };
        if flags & 1 != 0 {
            at += 4;
            let (mut sub, next) = parse_menuex_items(cx, b, at, depth + 1)?;
            at = next;
            sub.popup = true;
            item.flags |= MF_POPUP;
            item.submenu = new_menu(cx, sub);
        }
        m.items.push(item);
        if flags & MF_END != 0 || m.items.len() > 4096 {
            return Some((m, at));
        }
    }
}

/// LoadMenu's work.
pub fn load_menu(cx: &mut Ctx, h: u32, name: &NameOrId) -> ApiResult<u32> {
    let Some(b) = resource(cx, h, RT_MENU, name)? else {
        crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
        return Ok(0);
    };
    match parse_menu(cx, &b) {
        Some(m) => Ok(m),
        None => Err(ApiError::Other(format!(
            "menu resource {name:?} is malformed"
        ))),
    }
}

pub fn LoadMenu<S: GuestStr>(cx: &mut Ctx, hInstance: u32, lpMenuName: u32) -> ApiResult<u32> {
    let n = str_or_atom(cx, lpMenuName, S::WIDE)?;
    load_menu(cx, hInstance, &n)
}
pub fn LoadMenuIndirectA(cx: &mut Ctx, lpMenuTemplate: Ptr) -> ApiResult<u32> {
    let mut b = vec![0u8; 0x4000];
    // Templates are small; read what is mapped of the first 16 KiB.
    let mut n = b.len();
    while n > 0
        && cx
            .proc
            .mem
            .read_bytes(lpMenuTemplate.0, &mut b[..n])
            .is_err()
    {
        n /= 2;
    }
    b.truncate(n);
    parse_menu(cx, &b).ok_or_else(|| ApiError::Other("menu template is malformed".into()))
}
pub fn LoadMenuIndirectW(cx: &mut Ctx, lpMenuTemplate: Ptr) -> ApiResult<u32> {
    LoadMenuIndirectA(cx, lpMenuTemplate)
}

pub fn CreateMenu(cx: &mut Ctx) -> u32 {
    new_menu(cx, Menu::default())
}
pub fn CreatePopupMenu(cx: &mut Ctx) -> u32 {
    new_menu(
        cx,
        Menu {
            popup: true,
            ..Default::default()
        },
    )
}

pub fn DestroyMenu(cx: &mut Ctx, hMenu: u32) -> bool {
    let mut wm = lock_wm(cx.proc);
    let Some(m) = wm.menus.remove(&hMenu) else {
        return false;
    };
    let mut stack: Vec<u32> = m
        .items
        .iter()
        .map(|i| i.submenu)
        .filter(|&s| s != 0)
        .collect();
    while let Some(s) = stack.pop() {
        if let Some(m) = wm.menus.remove(&s) {
            stack.extend(m.items.iter().map(|i| i.submenu).filter(|&s| s != 0));
        }
    }
    true
}

fn append_menu(
    cx: &mut Ctx,
    h: u32,
    flags: u32,
    id: u32,
    item: u32,
    unicode: bool,
    at: Option<(u32, u32)>,
) -> ApiResult<bool> {
    let text = if flags & (MF_SEPARATOR | 0x4 | 0x100) == 0 && item >> 16 != 0 {
        super::read_str(cx, item, unicode)?
    } else {
        String::new()
    };
    let mut wm = lock_wm(cx.proc);
    let Some(m) = wm.menus.get_mut(&h) else {
        drop(wm);
        crate::teb::set_last_error(cx, ERROR_INVALID_MENU_HANDLE)?;
        return Ok(false);
    };
    let it = MenuItem {
        id: if flags & MF_POPUP != 0 { 0 } else { id },
        flags: flags & ITEM_FLAGS,
        text,
        submenu: if flags & MF_POPUP != 0 { id } else { 0 },
        data: 0,
    };
    match at {
        None => m.items.push(it),
        Some((pos, f)) => {
            let i = if f & MF_BYPOSITION != 0 {
                (pos as usize).min(m.items.len())
            } else {
                m.items
                    .iter()
                    .position(|x| x.id == pos)
                    .unwrap_or(m.items.len())
            };
            m.items.insert(i, it);
        }
    }
    Ok(true)
}

pub fn AppendMenu<S: GuestStr>(
    cx: &mut Ctx,
    hMenu: u32,
    uFlags: u32,
    uIDNewItem: u32,
    lpNewItem: u32,
) -> ApiResult<bool> {
    append_menu(cx, hMenu, uFlags, uIDNewItem, lpNewItem, S::WIDE, None)
}
pub fn InsertMenu<S: GuestStr>(
    cx: &mut Ctx,
    hMenu: u32,
    uPosition: u32,
    uFlags: u32,
    uIDNewItem: u32,
    lpNewItem: u32,
) -> ApiResult<bool> {
    append_menu(
        cx,
        hMenu,
        uFlags,
        uIDNewItem,
        lpNewItem,
        S::WIDE,
        Some((uPosition, uFlags)),
    )
}
/// Finds an item by command (searching submenus) or position: (menu, index).
pub(crate) fn find_item(
    wm: &super::wm::Wm,
    h: u32,
    item: u32,
    flags: u32,
    depth: u32,
) -> Option<(u32, usize)> {
    let m = wm.menus.get(&h)?;
    if flags & MF_BYPOSITION != 0 {
        return ((item as usize) < m.items.len()).then_some((h, item as usize));
    }
    if depth > 16 {
        return None;
    }
    for (i, it) in m.items.iter().enumerate() {
        if it.submenu == 0 && it.id == item {
            return Some((h, i));
        }
        if it.submenu != 0
            && let Some(r) = find_item(wm, it.submenu, item, flags, depth + 1)
        {
            return Some(r);
        }
    }
    None
}

fn change_item(cx: &mut Ctx, h: u32, item: u32, flags: u32, mask: u32, set: u32) -> u32 {
    let mut wm = lock_wm(cx.proc);
    let Some((m, i)) = find_item(&wm, h, item, flags, 0) else {
        return u32::MAX;
    };
    let it = &mut wm.menus.get_mut(&m).expect("found").items[i];
    let old = it.flags & mask;
    it.flags = (it.flags & !mask) | (set & mask);
    old
}

pub fn CheckMenuItem(cx: &mut Ctx, hMenu: u32, uIDCheckItem: u32, uCheck: u32) -> u32 {
    change_item(cx, hMenu, uIDCheckItem, uCheck, MF_CHECKED, uCheck)
}

pub fn EnableMenuItem(cx: &mut Ctx, hMenu: u32, uIDEnableItem: u32, uEnable: u32) -> u32 {
    change_item(
        cx,
        hMenu,
        uIDEnableItem,
        uEnable,
        MF_GRAYED | MF_DISABLED,
        uEnable,
    )
}

pub fn CheckMenuRadioItem(
    cx: &mut Ctx,
    hmenu: u32,
    first: u32,
    last: u32,
    check: u32,
    flags: u32,
) -> bool {
    let mut wm = lock_wm(cx.proc);
    let Some((m, a)) = find_item(&wm, hmenu, first, flags, 0) else {
        return false;
    };
    let Some((_, b)) = find_item(&wm, hmenu, last, flags, 0) else {
        return false;
    };
    let Some((_, c)) = find_item(&wm, hmenu, check, flags, 0) else {
        return false;
    };
    let menu = wm.menus.get_mut(&m).expect("found");
    for i in a.min(b)..=a.max(b) {
        if let Some(it) = menu.items.get_mut(i) {
            if i == c {
                it.flags |= MF_CHECKED;
            } else {
                it.flags &= !MF_CHECKED;
            }
        }
    }
    true
}

pub fn GetMenuState(cx: &mut Ctx, hMenu: u32, uId: u32, uFlags: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    match find_item(&wm, hMenu, uId, uFlags, 0) {
        Some((m, i)) => {
            let it = &wm.menus[&m].items[i];
            let sub = wm
                .menus
                .get(&it.submenu)
                .map_or(0, |s| s.items.len() as u32);
            if it.submenu != 0 {
                (sub << 8) | (it.flags & 0xff)
            } else {
                it.flags
            }
        }
        None => u32::MAX,
    }
}

pub fn GetSubMenu(cx: &mut Ctx, hMenu: u32, nPos: i32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.menus
        .get(&hMenu)
        .and_then(|m| m.items.get(nPos.max(0) as usize))
        .map_or(0, |i| i.submenu)
}

pub fn GetMenuItemCount(cx: &mut Ctx, hMenu: u32) -> i32 {
    lock_wm(cx.proc)
        .menus
        .get(&hMenu)
        .map_or(-1, |m| m.items.len() as i32)
}

pub fn GetMenuItemID(cx: &mut Ctx, hMenu: u32, nPos: i32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.menus
        .get(&hMenu)
        .and_then(|m| m.items.get(nPos.max(0) as usize))
        .map_or(u32::MAX, |i| if i.submenu != 0 { u32::MAX } else { i.id })
}

fn remove_item(cx: &mut Ctx, h: u32, item: u32, flags: u32, destroy: bool) -> bool {
    let sub = {
        let mut wm = lock_wm(cx.proc);
        let Some((m, i)) = find_item(&wm, h, item, flags, 0) else {
            return false;
        };
        wm.menus.get_mut(&m).expect("found").items.remove(i).submenu
    };
    if destroy && sub != 0 {
        DestroyMenu(cx, sub);
    }
    true
}

pub fn DeleteMenu(cx: &mut Ctx, hMenu: u32, uPosition: u32, uFlags: u32) -> bool {
    remove_item(cx, hMenu, uPosition, uFlags, true)
}
pub fn RemoveMenu(cx: &mut Ctx, hMenu: u32, uPosition: u32, uFlags: u32) -> bool {
    remove_item(cx, hMenu, uPosition, uFlags, false)
}

fn modify_menu(
    cx: &mut Ctx,
    h: u32,
    pos: u32,
    flags: u32,
    id: u32,
    item: u32,
    unicode: bool,
) -> ApiResult<bool> {
    let at = {
        let wm = lock_wm(cx.proc);
        find_item(&wm, h, pos, flags, 0)
    };
    let Some((m, i)) = at else { return Ok(false) };
    if !remove_item(cx, m, i as u32, MF_BYPOSITION, false) {
        return Ok(false);
    }
    append_menu(
        cx,
        m,
        flags & !MF_BYPOSITION,
        id,
        item,
        unicode,
        Some((i as u32, MF_BYPOSITION)),
    )
}

pub fn ModifyMenu<S: GuestStr>(
    cx: &mut Ctx,
    hMnu: u32,
    uPosition: u32,
    uFlags: u32,
    uIDNewItem: u32,
    lpNewItem: u32,
) -> ApiResult<bool> {
    modify_menu(cx, hMnu, uPosition, uFlags, uIDNewItem, lpNewItem, S::WIDE)
}
fn menu_string(
    cx: &mut Ctx,
    h: u32,
    item: u32,
    buf: u32,
    cap: i32,
    flags: u32,
    unicode: bool,
) -> ApiResult<i32> {
    let s = {
        let wm = lock_wm(cx.proc);
        find_item(&wm, h, item, flags, 0).map(|(m, i)| wm.menus[&m].items[i].text.clone())
    };
    let Some(s) = s else { return Ok(0) };
    if buf == 0 || cap <= 0 {
        return Ok(super::str_len(&s, unicode) as i32);
    }
    Ok(super::put_str(cx, buf, cap as u32, &s, unicode)? as i32)
}

pub fn GetMenuString<S: GuestStr>(
    cx: &mut Ctx,
    hMenu: u32,
    uIDItem: u32,
    lpString: u32,
    cchMax: i32,
    flags: u32,
) -> ApiResult<i32> {
    menu_string(cx, hMenu, uIDItem, lpString, cchMax, flags, S::WIDE)
}
/// A child window's menu slot holds its control ID, and GetMenu answers it (the
/// result MSDN calls undefined; Wine's programs, e.g. oleview, keep a pointer there
/// and read it back with GetMenu).
pub fn GetMenu(cx: &mut Ctx, hWnd: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(hWnd).map_or(0, |w| w.id)
}

/// SetMenu's work: the menu bar changes the client area.
pub fn set_menu(cx: &mut Ctx, hwnd: u32, menu: u32) -> UR<bool> {
    let (old, new) = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win_mut(hwnd) else {
            return Ok(false);
        };
        if w.parent != 0 {
            return Ok(false);
        }
        let old = (w.client.width(), w.client.height());
        w.id = menu;
        wm.recalc_client(hwnd);
        let new = wm.client_size(hwnd);
        wm.invalidate(hwnd, None, true);
        (old, new)
    };
    if old != new {
        let lp = (new.0 as u16 as u32) | ((new.1 as u16 as u32) << 16);
        send(cx, hwnd, WM_SIZE, 0, lp, true)?;
    }
    Ok(true)
}

pub fn SetMenu(cx: &mut Ctx, hWnd: u32, hMenu: u32) -> ApiResult<Outcome> {
    fin(set_menu(cx, hWnd, hMenu))
}

pub fn GetSystemMenu(cx: &mut Ctx, hWnd: u32, _bRevert: bool) -> u32 {
    let key = format!("sysmenu:{hWnd}");
    let existing = lock_wm(cx.proc)
        .menus
        .iter()
        .find(|(_, m)| m.items.first().is_some_and(|i| i.text == key))
        .map(|(h, _)| *h);
    if let Some(h) = existing {
        return h;
    }
    let items = [
        (0xf120, "&Restore"),
        (0xf010, "&Move"),
        (0xf000, "&Size"),
        (0xf020, "Mi&nimize"),
        (0xf030, "Ma&ximize"),
        (0xf060, "&Close\tAlt+F4"),
    ];
    let mut m = Menu {
        popup: true,
        items: vec![MenuItem {
            id: 0,
            flags: MF_SEPARATOR,
            text: key,
            submenu: 0,
            data: 0,
        }],
    };
    m.items.extend(items.iter().map(|(id, t)| MenuItem {
        id: *id,
        flags: 0,
        text: t.to_string(),
        submenu: 0,
        data: 0,
    }));
    new_menu(cx, m)
}

pub fn IsMenu(cx: &mut Ctx, hMenu: u32) -> bool {
    lock_wm(cx.proc).menus.contains_key(&hMenu)
}

// ---- Accelerators -----------------------------------------------------------------------

fn load_accel(cx: &mut Ctx, h: u32, name: u32, unicode: bool) -> ApiResult<u32> {
    let n = str_or_atom(cx, name, unicode)?;
    let Some(b) = resource(cx, h, RT_ACCELERATOR, &n)? else {
        crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
        return Ok(0);
    };
    let mut v = Vec::new();
    for e in b.chunks_exact(8) {
        let virt = e[0];
        v.push(Accel {
            virt: virt & 0x7f,
            key: u16::from_le_bytes([e[2], e[3]]),
            cmd: u16::from_le_bytes([e[4], e[5]]),
        });
        if virt & 0x80 != 0 {
            break;
        }
    }
    Ok(lock_wm(cx.proc).alloc_obj(UserObj::Accel(v)))
}

pub fn LoadAccelerators<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpTableName: u32,
) -> ApiResult<u32> {
    load_accel(cx, hInstance, lpTableName, S::WIDE)
}
pub fn CreateAcceleratorTableA(cx: &mut Ctx, paccel: Ptr, cAccel: i32) -> ApiResult<u32> {
    let mut v = Vec::new();
    for k in 0..cAccel.clamp(0, 4096) as u32 {
        let mut e = [0u8; 6];
        cx.proc.mem.read_bytes(paccel.0 + 6 * k, &mut e)?;
        v.push(Accel {
            virt: e[0] & 0x7f,
            key: u16::from_le_bytes([e[2], e[3]]),
            cmd: u16::from_le_bytes([e[4], e[5]]),
        });
    }
    Ok(lock_wm(cx.proc).alloc_obj(UserObj::Accel(v)))
}
pub fn CreateAcceleratorTableW(cx: &mut Ctx, paccel: Ptr, cAccel: i32) -> ApiResult<u32> {
    CreateAcceleratorTableA(cx, paccel, cAccel)
}

pub fn DestroyAcceleratorTable(cx: &mut Ctx, hAccel: u32) -> bool {
    lock_wm(cx.proc).objs.remove(&hAccel).is_some()
}

/// TranslateAccelerator's work: a matching key sends WM_COMMAND (1 in the high word).
pub fn translate_accel(cx: &mut Ctx, hwnd: u32, haccel: u32, m: &Msg) -> UR<bool> {
    let table = match lock_wm(cx.proc).objs.get(&haccel) {
        Some(UserObj::Accel(v)) => v.clone(),
        _ => return Ok(false),
    };
    let (virt_msg, char_msg) = (
        matches!(m.message, WM_KEYDOWN | WM_SYSKEYDOWN),
        matches!(m.message, WM_CHAR | WM_SYSCHAR),
    );
    if !virt_msg && !char_msg {
        return Ok(false);
    }
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let keys = q.lock().keys.clone();
    let down = |k: usize| keys.get(k).is_some_and(|v| v & 0x80 != 0);
    let mods = (if down(0x10) { 4 } else { 0 })
        | (if down(0x11) { 8 } else { 0 })
        | (if down(0x12) { 0x10 } else { 0 });
    for a in table {
        let hit = if a.virt & 1 != 0 {
            virt_msg && a.key as u32 == m.wparam && (a.virt & 0x1c) == mods
        } else {
            char_msg
                && a.key as u32 == m.wparam
                && ((a.virt & 0x10 != 0) == (m.message == WM_SYSCHAR))
        };
        if hit {
            send(cx, hwnd, WM_COMMAND, (a.cmd as u32) | (1 << 16), 0, true)?;
            return Ok(true);
        }
    }
    Ok(false)
}

pub fn TranslateAcceleratorA(
    cx: &mut Ctx,
    hWnd: u32,
    hAccTable: u32,
    lpMsg: Ptr,
) -> ApiResult<Outcome> {
    let r = read_msg(cx, lpMsg.0)
        .map_err(super::Flow::from)
        .and_then(|m| translate_accel(cx, hWnd, hAccTable, &m));
    fin(r)
}
pub fn TranslateAcceleratorW(
    cx: &mut Ctx,
    hWnd: u32,
    hAccTable: u32,
    lpMsg: Ptr,
) -> ApiResult<Outcome> {
    TranslateAcceleratorA(cx, hWnd, hAccTable, lpMsg)
}

// ---- Message boxes ----------------------------------------------------------------------

/// A MessageBox text or caption: a string, or (high word zero) the ID of a string
/// resource of `inst` (MSGBOXPARAMS documents it; MessageBox gets the program's).
fn box_string(cx: &mut Ctx, v: u32, inst: u32, unicode: bool) -> ApiResult<String> {
    if v >> 16 != 0 {
        return super::read_str(cx, v, unicode);
    }
    if v == 0 {
        return Ok(String::new());
    }
    let (buf, esp) = super::stack_alloc(cx, 2 * 1024);
    let r = load_string(cx, inst, v, buf, 1024, true).and_then(|_| super::read_str(cx, buf, true));
    super::stack_free(cx, esp);
    r
}

#[allow(clippy::too_many_arguments)]
fn message_box(
    cx: &mut Ctx,
    owner: u32,
    text: u32,
    caption: u32,
    utype: u32,
    inst: u32,
    unicode: bool,
) -> ApiResult<Outcome> {
    let text = box_string(cx, text, inst, unicode)?;
    let caption = if caption == 0 {
        "Error".to_string()
    } else {
        box_string(cx, caption, inst, unicode)?
    };
    let spec = super::msgbox::Spec {
        owner,
        text,
        caption,
        style: utype,
        ..Default::default()
    };
    fin(super::msgbox::show(cx, spec))
}

pub fn MessageBox<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    lpText: u32,
    lpCaption: u32,
    uType: u32,
) -> ApiResult<Outcome> {
    message_box(cx, hWnd, lpText, lpCaption, uType, 0, S::WIDE)
}
pub fn MessageBoxEx<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    lpText: u32,
    lpCaption: u32,
    uType: u32,
    _wLanguageId: u32,
) -> ApiResult<Outcome> {
    message_box(cx, hWnd, lpText, lpCaption, uType, 0, S::WIDE)
}
/// MessageBoxIndirect: MSGBOXPARAMS (cbSize, hwndOwner, hInstance, lpszText,
/// lpszCaption, dwStyle, lpszIcon, dwContextHelpId, lpfnMsgBoxCallback,
/// dwLanguageId); text, caption and a MB_USERICON icon may be resource IDs of
/// hInstance.
fn message_box_indirect(cx: &mut Ctx, p: Ptr, unicode: bool) -> ApiResult<Outcome> {
    let m = &cx.proc.mem;
    let f = |k: u32| m.read_u32(p.0 + 4 * k);
    let (owner, inst, text, caption, style) = (f(1)?, f(2)?, f(3)?, f(4)?, f(5)?);
    let (icon_name, help_context, help_callback) = (f(6)?, f(7)?, f(8)?);
    let text = box_string(cx, text, inst, unicode)?;
    let caption = if caption == 0 {
        "Error".to_string()
    } else {
        box_string(cx, caption, inst, unicode)?
    };
    let icon = if style & super::msgbox::MB_USERICON != 0 {
        let name = if unicode { "LoadIconW" } else { "LoadIconA" };
        match super::call_export(cx, "USER32.dll", name, &[inst, icon_name]) {
            Ok(h) => h.unwrap_or(0),
            Err(e) => return fin::<u32>(Err(e)),
        }
    } else {
        0
    };
    let spec = super::msgbox::Spec {
        owner,
        text,
        caption,
        style,
        icon,
        help_context,
        help_callback,
    };
    fin(super::msgbox::show(cx, spec))
}

pub fn MessageBoxIndirect<S: GuestStr>(cx: &mut Ctx, lpmbp: Ptr) -> ApiResult<Outcome> {
    message_box_indirect(cx, lpmbp, S::WIDE)
}
/// There is no sound device behind USER32; MessageBeep succeeds silently as it does
/// on a machine without a sound card.
pub fn MessageBeep(_cx: &mut Ctx, _uType: u32) -> bool {
    true
}

// ---- wsprintf -------------------------------------------------------------------------

/// wsprintf's 1024-character limit.
const WSPRINTF_MAX: usize = 1024;

fn format_wsprintf(cx: &mut Ctx, buf: u32, fmt: u32, args: u32, unicode: bool) -> ApiResult<i32> {
    use crate::msvcrt::printf;
    let f = if unicode {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    let mut src = printf::GuestArgs {
        mem: &cx.proc.mem,
        ptr: args,
    };
    let mut out = printf::format(&f, unicode, &mut src)?;
    out.truncate(WSPRINTF_MAX - 1);
    let n = out.len();
    if unicode {
        out.push(0);
        crate::kernel32::string::write_wide(cx.proc, buf, &out)?;
    } else {
        let mut b = printf::narrow(&out);
        b.push(0);
        cx.proc.mem.write_bytes(buf, &b)?;
    }
    Ok(n as i32)
}

pub fn wsprintf<S: GuestStr>(
    cx: &mut Ctx,
    lpOut: u32,
    lpFmt: u32,
    args: VarArgs,
) -> ApiResult<i32> {
    format_wsprintf(cx, lpOut, lpFmt, args.0, S::WIDE)
}
pub fn wvsprintf<S: GuestStr>(
    cx: &mut Ctx,
    lpOut: u32,
    lpFmt: u32,
    arglist: u32,
) -> ApiResult<i32> {
    format_wsprintf(cx, lpOut, lpFmt, arglist, S::WIDE)
}
pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("LoadMenuIndirectA", LoadMenuIndirectA),
        stdcall("LoadMenuIndirectW", LoadMenuIndirectW),
        stdcall("CreateMenu", CreateMenu),
        stdcall("CreatePopupMenu", CreatePopupMenu),
        stdcall("DestroyMenu", DestroyMenu),
        stdcall("DeleteMenu", DeleteMenu),
        stdcall("RemoveMenu", RemoveMenu),
        stdcall("CheckMenuItem", CheckMenuItem),
        stdcall("CheckMenuRadioItem", CheckMenuRadioItem),
        stdcall("EnableMenuItem", EnableMenuItem),
        stdcall("GetMenuState", GetMenuState),
        stdcall("GetSubMenu", GetSubMenu),
        stdcall("GetMenuItemCount", GetMenuItemCount),
        stdcall("GetMenuItemID", GetMenuItemID),
        stdcall("GetMenu", GetMenu),
        stdcall("SetMenu", SetMenu),
        stdcall("GetSystemMenu", GetSystemMenu),
        stdcall("IsMenu", IsMenu),
        stdcall("CreateAcceleratorTableA", CreateAcceleratorTableA),
        stdcall("CreateAcceleratorTableW", CreateAcceleratorTableW),
        stdcall("DestroyAcceleratorTable", DestroyAcceleratorTable),
        stdcall("TranslateAcceleratorA", TranslateAcceleratorA),
        stdcall("TranslateAcceleratorW", TranslateAcceleratorW),
        stdcall("MessageBeep", MessageBeep),
        cdecl("wsprintfA", wsprintf::<CStrPtr>),
        cdecl("wsprintfW", wsprintf::<WStrPtr>),
    ];
    v.extend(stdcall_aw![
        LoadString,
        LoadBitmap,
        LoadImage,
        LoadMenu,
        AppendMenu,
        InsertMenu,
        ModifyMenu,
        GetMenuString,
        LoadAccelerators,
        MessageBox,
        MessageBoxEx,
        MessageBoxIndirect,
        wvsprintf,
    ]);
    v
}
