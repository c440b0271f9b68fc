//! Dialog boxes from DLGTEMPLATE/DLGTEMPLATEEX resources, the dialog manager
//! (DefDlgProc, IsDialogMessage keyboard handling, the modal loop) and the dialog
//! item helpers.

use super::msg::*;
use super::window::{self, Create, set_focus, show_window};
use super::wm::{self, DlgState, Msg};
use super::{Flow, NameOrId, UR, fin, lock_wm};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall, stdcall_aw};
use crate::kernel32::string::GuestStr;

const RT_DIALOG: u16 = 5;
const DWL_MSGRESULT: usize = 0;
const DWL_DLGPROC: usize = 4;
const DS_SETFONT: u32 = 0x40;
const DS_CENTER: u32 = 0x800;
const DM_GETDEFID: u32 = WM_USER;
const DM_SETDEFID: u32 = WM_USER + 1;
const IDOK: u32 = 1;
const IDCANCEL: u32 = 2;
/// Dialog base units of the dialog font (8-point MS Sans Serif).
const BASE_X: i32 = 6;
const BASE_Y: i32 = 13;

fn u16_at(cx: &Ctx, a: u32) -> ApiResult<u16> {
    Ok(cx.proc.mem.read_u16(a)?)
}

/// A sz_Or_Ord field at `a`: (value for CreateWindow: a guest string pointer or an
/// ordinal, next address).
fn sz_or_ord(cx: &Ctx, a: u32) -> ApiResult<(u32, u32)> {
    match u16_at(cx, a)? {
        0 => Ok((0, a + 2)),
        0xffff => Ok((u16_at(cx, a + 2)? as u32, a + 4)),
        _ => {
            let mut e = a;
            for _ in 0..4096 {
                if u16_at(cx, e)? == 0 {
                    return Ok((a, e + 2));
                }
                e += 2;
            }
            Err(ApiError::Other(format!(
                "dialog template string at {a:#x} is unterminated"
            )))
        }
    }
}

struct Item {
    style: u32,
    exstyle: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    id: u32,
    class: u32,
    title: u32,
    data: u32,
}

struct Template {
    style: u32,
    exstyle: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    menu: u32,
    class: u32,
    title: u32,
    items: Vec<Item>,
}

fn parse(cx: &Ctx, t: u32) -> ApiResult<Template> {
    let m = &cx.proc.mem;
    let ex = m.read_u16(t)? == 1 && m.read_u16(t + 2)? == 0xffff;
    let (style, exstyle, n, mut a) = if ex {
        (
            m.read_u32(t + 12)?,
            m.read_u32(t + 8)?,
            m.read_u16(t + 16)?,
            t + 18,
        )
    } else {
        (
            m.read_u32(t)?,
            m.read_u32(t + 4)?,
            m.read_u16(t + 8)?,
            t + 10,
        )
    };
    let r16 = |a: u32| -> ApiResult<i32> { Ok(m.read_u16(a)? as i16 as i32) };
    let (x, y, w, h) = (r16(a)?, r16(a + 2)?, r16(a + 4)?, r16(a + 6)?);
    a += 8;
    let (menu, n1) = sz_or_ord(cx, a)?;
    let (class, n2) = sz_or_ord(cx, n1)?;
    let (title, n3) = sz_or_ord(cx, n2)?;
    a = n3;
    if style & DS_SETFONT != 0 {
        a += if ex { 6 } else { 2 };
        let (_, n4) = sz_or_ord(cx, a)?;
        a = n4;
    }
    let mut items = Vec::new();
    for _ in 0..n.min(1024) {
        a = (a + 3) & !3;
        let (style, exstyle, id, b) = if ex {
            (m.read_u32(a + 8)?, m.read_u32(a + 4)?, None, a + 12)
        } else {
            (m.read_u32(a)?, m.read_u32(a + 4)?, None, a + 8)
        };
        let _: Option<u32> = id;
        let (x, y, w, h) = (r16(b)?, r16(b + 2)?, r16(b + 4)?, r16(b + 6)?);
        let (id, c) = if ex {
            (m.read_u32(b + 8)?, b + 12)
        } else {
            (m.read_u16(b + 8)? as u32, b + 10)
        };
        let (class, c1) = sz_or_ord(cx, c)?;
        let (title, c2) = sz_or_ord(cx, c1)?;
        let extra = m.read_u16(c2)? as u32;
        let data = if extra > 0 { c2 + 2 } else { 0 };
        a = c2 + 2 + extra;
        items.push(Item {
            style,
            exstyle,
            x,
            y,
            w,
            h,
            id,
            class,
            title,
            data,
        });
    }
    Ok(Template {
        style,
        exstyle,
        x,
        y,
        w,
        h,
        menu,
        class,
        title,
        items,
    })
}

fn dlu(x: i32, y: i32) -> (i32, i32) {
    (x * BASE_X / 4, y * BASE_Y / 8)
}

fn set_extra(cx: &Ctx, h: u32, off: usize, v: u32) {
    if let Some(w) = lock_wm(cx.proc).win_mut(h)
        && w.extra.len() >= off + 4
    {
        w.extra[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
}

fn get_extra(cx: &Ctx, h: u32, off: usize) -> u32 {
    lock_wm(cx.proc)
        .win(h)
        .filter(|w| w.extra.len() >= off + 4)
        .map_or(0, |w| {
            u32::from_le_bytes([
                w.extra[off],
                w.extra[off + 1],
                w.extra[off + 2],
                w.extra[off + 3],
            ])
        })
}

/// Creates a dialog from the template at guest address `t`.
#[allow(clippy::too_many_arguments)]
fn create_dialog(
    cx: &mut Ctx,
    inst: u32,
    t: u32,
    owner: u32,
    dlgproc: u32,
    param: u32,
    unicode: bool,
    modal: bool,
) -> UR<u32> {
    let tpl = parse(cx, t)?;
    let (cw, ch) = dlu(tpl.w, tpl.h);
    let mut style = tpl.style & !wm::WS_VISIBLE;
    if style & wm::WS_CHILD == 0 {
        style |= wm::WS_POPUP;
    }
    let has_menu = tpl.menu != 0;
    let r = window::adjust_rect(
        crate::gdi32::Rect::new(0, 0, cw, ch),
        style,
        has_menu,
        tpl.exstyle,
    );
    let (mut x, mut y) = dlu(tpl.x, tpl.y);
    let (ox, oy) = lock_wm(cx.proc).client_origin(owner);
    x += ox + r.left;
    y += oy + r.top;
    if tpl.style & DS_CENTER != 0 || (tpl.x == 0 && tpl.y == 0) {
        // Centred over the owner (or the screen).
        let (px, py, pw, ph) = {
            let wm = lock_wm(cx.proc);
            match wm.win(owner) {
                Some(w) if owner != 0 => {
                    let (wx, wy) = wm.window_origin(owner);
                    (wx, wy, w.rect.width(), w.rect.height())
                }
                _ => {
                    let m = cx.proc.display.mode();
                    (0, 0, m.width as i32, m.height as i32)
                }
            }
        };
        x = px + (pw - r.width()) / 2;
        y = py + (ph - r.height()) / 2;
    }
    if style & wm::WS_CHILD != 0 {
        let (ox, oy) = lock_wm(cx.proc).client_origin(owner);
        x -= ox;
        y -= oy;
    }
    let menu = if has_menu {
        let n = if tpl.menu < 0x10000 {
            NameOrId::Id(tpl.menu as u16)
        } else {
            NameOrId::Name(super::read_str(cx, tpl.menu, true)?)
        };
        super::res::load_menu(cx, inst, &n)?
    } else {
        0
    };
    let class = if tpl.class == 0 {
        NameOrId::Name("#32770".into())
    } else if tpl.class < 0x10000 {
        NameOrId::Id(tpl.class as u16)
    } else {
        NameOrId::Name(super::read_str(cx, tpl.class, true)?)
    };
    let font = super::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0);
    // Created hidden with the dialog procedure in place before any message.
    let hdlg = window::create_window(
        cx,
        Create {
            exstyle: tpl.exstyle,
            class,
            class_ptr: if tpl.class >= 0x10000 { tpl.class } else { 0 },
            name_ptr: if tpl.title >= 0x10000 { tpl.title } else { 0 },
            style,
            x,
            y,
            w: r.width(),
            h: r.height(),
            parent: owner,
            menu,
            instance: inst,
            param,
            unicode: true,
        },
    )?;
    if hdlg == 0 {
        return Ok(0);
    }
    set_extra(cx, hdlg, DWL_DLGPROC, dlgproc);
    if let Some(w) = lock_wm(cx.proc).win_mut(hdlg) {
        w.dlg = Some(DlgState {
            result: None,
            def_id: IDOK,
            modal,
            unicode,
            font,
        });
        if w.extra.len() < 12 {
            w.extra.resize(12, 0);
        }
    }
    for it in &tpl.items {
        let (ix, iy) = dlu(it.x, it.y);
        let (iw, ih) = dlu(it.w, it.h);
        let class = if it.class < 0x10000 {
            NameOrId::Id(it.class as u16)
        } else {
            NameOrId::Name(super::read_str(cx, it.class, true)?)
        };
        let c = window::create_window(
            cx,
            Create {
                exstyle: it.exstyle | wm::WS_EX_NOPARENTNOTIFY,
                class,
                class_ptr: if it.class >= 0x10000 { it.class } else { 0 },
                name_ptr: if it.title >= 0x10000 { it.title } else { 0 },
                style: it.style | wm::WS_CHILD,
                x: ix,
                y: iy,
                w: iw,
                h: ih,
                parent: hdlg,
                menu: it.id,
                instance: inst,
                param: it.data,
                unicode: true,
            },
        )?;
        if c == 0 {
            log::warn!("dialog control {} could not be created", it.id);
            continue;
        }
        if font != 0 {
            send(cx, c, WM_SETFONT, font, 0, true)?;
        }
    }
    let first = first_tabstop(cx, hdlg);
    let r = send(cx, hdlg, WM_INITDIALOG, first, param, unicode)?;
    if !lock_wm(cx.proc).windows.contains_key(&hdlg) {
        return Ok(0);
    }
    if r != 0 && first != 0 {
        set_focus(cx, first)?;
    }
    if tpl.style & wm::WS_VISIBLE != 0 {
        show_window(cx, hdlg, 1)?;
    }
    Ok(hdlg)
}

fn first_tabstop(cx: &Ctx, hdlg: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(hdlg)
        .and_then(|w| {
            w.children.iter().copied().find(|&c| {
                wm.win(c).is_some_and(|cw| {
                    cw.style & wm::WS_TABSTOP != 0
                        && cw.style & wm::WS_VISIBLE != 0
                        && cw.style & wm::WS_DISABLED == 0
                })
            })
        })
        .unwrap_or(0)
}

fn template(cx: &Ctx, inst: u32, name: u32, unicode: bool) -> ApiResult<u32> {
    let n = super::str_or_atom(cx, name, unicode)?;
    let base = if inst == 0 {
        super::program_base(cx.proc)
    } else {
        inst
    };
    let id = match &n {
        NameOrId::Id(i) => crate::loader::resources::ResId::Id(*i),
        NameOrId::Name(s) => crate::loader::resources::ResId::from_name(s),
    };
    crate::loader::resources::find_resource(
        cx.proc,
        base,
        &crate::loader::resources::ResId::Id(RT_DIALOG),
        &id,
        None,
    )
    .map(|(rva, _)| base + rva)
    .ok_or_else(|| ApiError::Other(format!("dialog resource {n:?} not found")))
}

/// The modal loop of DialogBox: runs until EndDialog; returns its result.
fn modal_loop(cx: &mut Ctx, hdlg: u32, owner: u32) -> UR<u32> {
    let owner_enabled = owner != 0
        && lock_wm(cx.proc)
            .win(owner)
            .is_some_and(|w| w.style & wm::WS_DISABLED == 0);
    if owner_enabled && let Some(w) = lock_wm(cx.proc).win_mut(owner) {
        w.style |= wm::WS_DISABLED;
    }
    if !lock_wm(cx.proc).is_visible(hdlg) {
        show_window(cx, hdlg, 1)?;
    }
    let result = loop {
        let done = lock_wm(cx.proc)
            .win(hdlg)
            .map(|w| w.dlg.as_ref().and_then(|d| d.result));
        match done {
            None => break u32::MAX,
            Some(Some(r)) => break r,
            Some(None) => {}
        }
        let Some(m) = get_msg(cx, 0, 0, 0, true, Wait::Host)? else {
            continue;
        };
        if m.message == WM_QUIT {
            // Leaves the loop and lets the caller's loop see WM_QUIT too.
            super::msg::PostQuitMessage(cx, m.wparam);
            break 0;
        }
        if !is_dialog_message(cx, hdlg, &m)? {
            super::input::translate(cx, &m);
            dispatch(cx, &m, true)?;
        }
    };
    if owner_enabled && let Some(w) = lock_wm(cx.proc).win_mut(owner) {
        w.style &= !wm::WS_DISABLED;
    }
    if lock_wm(cx.proc).win(hdlg).is_some() {
        window::destroy_window(cx, hdlg)?;
    }
    if owner != 0 && lock_wm(cx.proc).win(owner).is_some() {
        let top = lock_wm(cx.proc).top_of(owner);
        window::set_active(cx, top)?;
    }
    Ok(result)
}

#[allow(clippy::too_many_arguments)]
fn dialog_box(
    cx: &mut Ctx,
    inst: u32,
    t: u32,
    owner: u32,
    f: u32,
    p: u32,
    unicode: bool,
) -> UR<u32> {
    let owner = if owner == 0 {
        0
    } else {
        lock_wm(cx.proc).top_of(owner)
    };
    let h = create_dialog(cx, inst, t, owner, f, p, unicode, true)?;
    if h == 0 {
        return Ok(u32::MAX);
    }
    modal_loop(cx, h, owner)
}

pub fn DialogBoxParam<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpTemplateName: u32,
    hWndParent: u32,
    lpDialogFunc: u32,
    dwInitParam: u32,
) -> ApiResult<Outcome> {
    let t = template(cx, hInstance, lpTemplateName, S::WIDE)?;
    fin(dialog_box(
        cx,
        hInstance,
        t,
        hWndParent,
        lpDialogFunc,
        dwInitParam,
        S::WIDE,
    ))
}
pub fn DialogBoxIndirectParam<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    hDialogTemplate: u32,
    hWndParent: u32,
    lpDialogFunc: u32,
    dwInitParam: u32,
) -> ApiResult<Outcome> {
    fin(dialog_box(
        cx,
        hInstance,
        hDialogTemplate,
        hWndParent,
        lpDialogFunc,
        dwInitParam,
        S::WIDE,
    ))
}
pub fn CreateDialogParam<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpTemplateName: u32,
    hWndParent: u32,
    lpDialogFunc: u32,
    dwInitParam: u32,
) -> ApiResult<Outcome> {
    let t = template(cx, hInstance, lpTemplateName, S::WIDE)?;
    fin(create_dialog(
        cx,
        hInstance,
        t,
        hWndParent,
        lpDialogFunc,
        dwInitParam,
        S::WIDE,
        false,
    ))
}
pub fn CreateDialogIndirectParam<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpTemplate: u32,
    hWndParent: u32,
    lpDialogFunc: u32,
    dwInitParam: u32,
) -> ApiResult<Outcome> {
    fin(create_dialog(
        cx,
        hInstance,
        lpTemplate,
        hWndParent,
        lpDialogFunc,
        dwInitParam,
        S::WIDE,
        false,
    ))
}
pub fn EndDialog(cx: &mut Ctx, hDlg: u32, nResult: u32) -> ApiResult<bool> {
    let modal = {
        let mut wm = lock_wm(cx.proc);
        let Some(d) = wm.win_mut(hDlg).and_then(|w| w.dlg.as_mut()) else {
            return Ok(false);
        };
        d.result = Some(nResult);
        d.modal
    };
    if modal {
        // The modal loop sees the result after the current message; hide it now.
        if let Some(w) = lock_wm(cx.proc).win_mut(hDlg) {
            w.style &= !wm::WS_VISIBLE;
        }
        let q = lock_wm(cx.proc).queue(cx.thread.tid);
        wm::wake_queue(cx.proc, &q);
    }
    Ok(true)
}

/// DefDlgProc: the dialog procedure first; its FALSE means default handling.
pub fn def_dlg_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, unicode: bool) -> UR<u32> {
    let f = get_extra(cx, h, DWL_DLGPROC);
    let du = lock_wm(cx.proc)
        .win(h)
        .and_then(|w| w.dlg.as_ref().map(|d| d.unicode))
        .unwrap_or(unicode);
    if f != 0 {
        set_extra(cx, h, DWL_MSGRESULT, 0);
        let r = call_proc(cx, f, du, h, m, wp, lp, unicode)?;
        if r != 0 {
            return Ok(match m {
                WM_CTLCOLORMSGBOX..=WM_CTLCOLORSTATIC
                | WM_INITDIALOG
                | 0x39
                | 0x2e
                | 0x2f
                | 0x37 => r,
                _ => get_extra(cx, h, DWL_MSGRESULT),
            });
        }
    }
    match m {
        WM_CLOSE => {
            let c = get_item(cx, h, IDCANCEL);
            send(cx, h, WM_COMMAND, IDCANCEL, c, unicode)?;
            Ok(0)
        }
        WM_INITDIALOG => Ok(0),
        WM_ERASEBKGND => {
            let size = lock_wm(cx.proc).client_size(h);
            crate::gdi32::paint::fill_rect_brush(
                cx.proc,
                wp,
                crate::gdi32::Rect::new(0, 0, size.0, size.1),
                16,
            )?;
            Ok(1)
        }
        DM_GETDEFID => Ok(lock_wm(cx.proc)
            .win(h)
            .and_then(|w| w.dlg.as_ref().map(|d| d.def_id | 0x534b_0000))
            .unwrap_or(0)),
        DM_SETDEFID => {
            if let Some(d) = lock_wm(cx.proc).win_mut(h).and_then(|w| w.dlg.as_mut()) {
                d.def_id = wp;
            }
            Ok(1)
        }
        WM_NEXTDLGCTL => {
            let target = if lp & 0xffff != 0 {
                wp
            } else {
                {
                    let f = lock_wm(cx.proc).focus;
                    next_tab(cx, h, f, wp != 0)
                }
            };
            if target != 0 {
                set_focus(cx, target)?;
            }
            Ok(0)
        }
        WM_SETFOCUS => {
            let first = first_tabstop(cx, h);
            if first != 0 {
                set_focus(cx, first)?;
            }
            Ok(0)
        }
        _ => super::window::def_window_proc(cx, h, m, wp, lp, unicode),
    }
}

pub fn DefDlgProc<S: GuestStr>(
    cx: &mut Ctx,
    hDlg: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_dlg_proc(cx, hDlg, Msg, wParam, lParam, S::WIDE))
}
/// The next (or previous) enabled, visible WS_TABSTOP control after `from`.
fn next_tab(cx: &Ctx, hdlg: u32, from: u32, prev: bool) -> u32 {
    let wm = lock_wm(cx.proc);
    let Some(w) = wm.win(hdlg) else { return 0 };
    let kids: Vec<u32> = w
        .children
        .iter()
        .copied()
        .filter(|&c| {
            wm.win(c).is_some_and(|cw| {
                cw.style & wm::WS_TABSTOP != 0
                    && cw.style & wm::WS_VISIBLE != 0
                    && cw.style & wm::WS_DISABLED == 0
            })
        })
        .collect();
    if kids.is_empty() {
        return 0;
    }
    let pos = kids.iter().position(|&k| k == from);
    let n = kids.len();
    match (pos, prev) {
        (Some(p), false) => kids[(p + 1) % n],
        (Some(p), true) => kids[(p + n - 1) % n],
        (None, _) => kids[0],
    }
}

/// IsDialogMessage's work: Tab moves the focus, Enter presses the default button,
/// Escape cancels; other messages for the dialog are translated and dispatched.
pub fn is_dialog_message(cx: &mut Ctx, hdlg: u32, m: &Msg) -> UR<bool> {
    let ours = {
        let wm = lock_wm(cx.proc);
        m.hwnd == hdlg || wm.is_child_of(m.hwnd, hdlg)
    };
    if !ours {
        return Ok(false);
    }
    if m.message == WM_KEYDOWN {
        let code = send(cx, m.hwnd, WM_GETDLGCODE, m.wparam, 0, true)?;
        match m.wparam {
            0x09 if code & 0x6 == 0 => {
                let q = lock_wm(cx.proc).queue(cx.thread.tid);
                let shift = q.lock().keys.get(0x10).is_some_and(|k| k & 0x80 != 0);
                let f = lock_wm(cx.proc).focus;
                let t = next_tab(cx, hdlg, f, shift);
                if t != 0 {
                    set_focus(cx, t)?;
                }
                return Ok(true);
            }
            0x0d if code & 0x4 == 0 => {
                let focus = lock_wm(cx.proc).focus;
                let fcode = if focus != 0 {
                    send(cx, focus, WM_GETDLGCODE, 0, 0, true)?
                } else {
                    0
                };
                let id = if fcode & 0x20 != 0 || fcode & 0x10 != 0 {
                    lock_wm(cx.proc).win(focus).map_or(IDOK, |w| w.id)
                } else {
                    lock_wm(cx.proc)
                        .win(hdlg)
                        .and_then(|w| w.dlg.as_ref().map(|d| d.def_id))
                        .unwrap_or(IDOK)
                };
                let c = get_item(cx, hdlg, id);
                send(cx, hdlg, WM_COMMAND, id & 0xffff, c, true)?;
                return Ok(true);
            }
            0x1b => {
                let c = get_item(cx, hdlg, IDCANCEL);
                send(cx, hdlg, WM_COMMAND, IDCANCEL, c, true)?;
                return Ok(true);
            }
            _ => {}
        }
    }
    super::input::translate(cx, m);
    dispatch(cx, m, true)?;
    Ok(true)
}

pub fn IsDialogMessageA(cx: &mut Ctx, hDlg: u32, lpMsg: Ptr) -> ApiResult<Outcome> {
    let r = read_msg(cx, lpMsg.0)
        .map_err(Flow::from)
        .and_then(|m| is_dialog_message(cx, hDlg, &m));
    fin(r)
}
pub fn IsDialogMessageW(cx: &mut Ctx, hDlg: u32, lpMsg: Ptr) -> ApiResult<Outcome> {
    IsDialogMessageA(cx, hDlg, lpMsg)
}

fn get_item(cx: &Ctx, hdlg: u32, id: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(hdlg)
        .and_then(|w| {
            w.children
                .iter()
                .copied()
                .find(|&c| wm.win(c).is_some_and(|cw| cw.id == id))
        })
        .unwrap_or(0)
}

pub fn GetDlgItem(cx: &mut Ctx, hDlg: u32, nIDDlgItem: u32) -> u32 {
    get_item(cx, hDlg, nIDDlgItem)
}

pub fn GetDlgCtrlID(cx: &mut Ctx, hWnd: u32) -> u32 {
    lock_wm(cx.proc).win(hWnd).map_or(0, |w| w.id)
}

fn send_item(cx: &mut Ctx, hdlg: u32, id: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let c = get_item(cx, hdlg, id);
    if c == 0 {
        crate::teb::set_last_error(cx, 1421)?;
        return Ok(0);
    }
    send(cx, c, m, wp, lp, u)
}

/// SendDlgItemMessage: the guest's own send, so it waits as SendMessage does
/// ([`send_api`]).
fn send_item_api(cx: &mut Ctx, hdlg: u32, id: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let c = get_item(cx, hdlg, id);
    if c == 0 {
        crate::teb::set_last_error(cx, 1421)?;
        return Ok(0);
    }
    send_api(cx, c, m, wp, lp, u, crate::scheduler::INFINITE).map(|v| v.unwrap_or(0))
}

pub fn SendDlgItemMessage<S: GuestStr>(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(send_item_api(
        cx,
        hDlg,
        nIDDlgItem,
        Msg,
        wParam,
        lParam,
        S::WIDE,
    ))
}
pub fn SetDlgItemText<S: GuestStr>(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    lpString: u32,
) -> ApiResult<Outcome> {
    fin(send_item(
        cx,
        hDlg,
        nIDDlgItem,
        WM_SETTEXT,
        0,
        lpString,
        S::WIDE,
    ))
}
pub fn GetDlgItemTextA(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    lpString: u32,
    cchMax: u32,
) -> ApiResult<Outcome> {
    if cchMax > 0 && lpString != 0 {
        cx.proc.mem.write_u8(lpString, 0)?;
    }
    fin(send_item(
        cx, hDlg, nIDDlgItem, WM_GETTEXT, cchMax, lpString, false,
    ))
}
pub fn GetDlgItemTextW(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    lpString: u32,
    cchMax: u32,
) -> ApiResult<Outcome> {
    if cchMax > 0 && lpString != 0 {
        cx.proc.mem.write_u16(lpString, 0)?;
    }
    fin(send_item(
        cx, hDlg, nIDDlgItem, WM_GETTEXT, cchMax, lpString, true,
    ))
}

pub fn SetDlgItemInt(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    uValue: u32,
    bSigned: bool,
) -> ApiResult<Outcome> {
    let s = if bSigned {
        (uValue as i32).to_string()
    } else {
        uValue.to_string()
    };
    let (buf, esp) = super::stack_alloc(cx, 32);
    let r = super::write_str(cx, buf, &s, false)
        .map_err(Flow::from)
        .and_then(|_| send_item(cx, hDlg, nIDDlgItem, WM_SETTEXT, 0, buf, false));
    super::stack_free(cx, esp);
    fin(r)
}

pub fn GetDlgItemInt(
    cx: &mut Ctx,
    hDlg: u32,
    nIDDlgItem: u32,
    lpTranslated: Ptr,
    bSigned: bool,
) -> ApiResult<Outcome> {
    let (buf, esp) = super::stack_alloc(cx, 64);
    let r = cx
        .proc
        .mem
        .write_u8(buf, 0)
        .map_err(Flow::from)
        .and_then(|_| send_item(cx, hDlg, nIDDlgItem, WM_GETTEXT, 32, buf, false))
        .and_then(|_| Ok(super::read_str(cx, buf, false)?));
    super::stack_free(cx, esp);
    let s = match r {
        Ok(s) => s,
        Err(e) => return fin::<u32>(Err(e)),
    };
    let t = s.trim();
    let v: Option<u32> = if bSigned {
        t.parse::<i32>().ok().map(|v| v as u32)
    } else {
        t.parse::<u32>().ok()
    };
    if !lpTranslated.is_null() {
        cx.proc.mem.write_u32(lpTranslated.0, v.is_some() as u32)?;
    }
    Ok(Outcome::Return(v.unwrap_or(0) as u64))
}

pub fn CheckDlgButton(cx: &mut Ctx, hDlg: u32, nIDButton: u32, uCheck: u32) -> ApiResult<Outcome> {
    fin(send_item(cx, hDlg, nIDButton, 0xf1, uCheck, 0, true).map(|_| true))
}

pub fn IsDlgButtonChecked(cx: &mut Ctx, hDlg: u32, nIDButton: u32) -> ApiResult<Outcome> {
    fin(send_item(cx, hDlg, nIDButton, 0xf0, 0, 0, true))
}

pub fn CheckRadioButton(
    cx: &mut Ctx,
    hDlg: u32,
    first: u32,
    last: u32,
    check: u32,
) -> ApiResult<Outcome> {
    let r = (|| -> UR<bool> {
        for id in first.min(last)..=first.max(last) {
            if get_item(cx, hDlg, id) != 0 {
                send_item(cx, hDlg, id, 0xf1, (id == check) as u32, 0, true)?;
            }
        }
        Ok(true)
    })();
    fin(r)
}

pub fn GetNextDlgTabItem(cx: &mut Ctx, hDlg: u32, hCtl: u32, bPrevious: bool) -> u32 {
    next_tab(cx, hDlg, hCtl, bPrevious)
}

pub fn GetNextDlgGroupItem(cx: &mut Ctx, hDlg: u32, hCtl: u32, bPrevious: bool) -> u32 {
    let sibs = lock_wm(cx.proc)
        .win(hDlg)
        .map(|w| w.children.clone())
        .unwrap_or_default();
    let g = super::controls::group_of(cx, &sibs, hCtl);
    let Some(p) = g.iter().position(|&c| c == hCtl) else {
        return hCtl;
    };
    let n = g.len();
    if bPrevious {
        g[(p + n - 1) % n]
    } else {
        g[(p + 1) % n]
    }
}

pub fn MapDialogRect(cx: &mut Ctx, _hDlg: u32, lpRect: Ptr) -> ApiResult<bool> {
    let r = window::read_rect(cx, lpRect.0)?;
    let (l, t) = dlu(r.left, r.top);
    let (rr, b) = dlu(r.right, r.bottom);
    window::put_rect(cx, lpRect.0, crate::gdi32::Rect::new(l, t, rr, b))?;
    Ok(true)
}

/// The system font's base units (8 x 16).
pub fn GetDialogBaseUnits(_cx: &mut Ctx) -> u32 {
    8 | (16 << 16)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("EndDialog", EndDialog),
        stdcall("IsDialogMessageA", IsDialogMessageA),
        stdcall("IsDialogMessageW", IsDialogMessageW),
        stdcall("IsDialogMessage", IsDialogMessageA),
        stdcall("GetDlgItem", GetDlgItem),
        stdcall("GetDlgCtrlID", GetDlgCtrlID),
        stdcall("GetDlgItemTextA", GetDlgItemTextA),
        stdcall("GetDlgItemTextW", GetDlgItemTextW),
        stdcall("SetDlgItemInt", SetDlgItemInt),
        stdcall("GetDlgItemInt", GetDlgItemInt),
        stdcall("CheckDlgButton", CheckDlgButton),
        stdcall("IsDlgButtonChecked", IsDlgButtonChecked),
        stdcall("CheckRadioButton", CheckRadioButton),
        stdcall("GetNextDlgTabItem", GetNextDlgTabItem),
        stdcall("GetNextDlgGroupItem", GetNextDlgGroupItem),
        stdcall("MapDialogRect", MapDialogRect),
        stdcall("GetDialogBaseUnits", GetDialogBaseUnits),
    ];
    v.extend(stdcall_aw![
        DialogBoxParam,
        DialogBoxIndirectParam,
        CreateDialogParam,
        CreateDialogIndirectParam,
        DefDlgProc,
        SendDlgItemMessage,
        SetDlgItemText,
    ]);
    v
}
