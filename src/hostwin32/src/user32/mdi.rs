//! The Multiple Document Interface: the system class MDIClient, DefFrameProc,
//! DefMDIChildProc, CreateMDIWindow, TranslateMDISysAccel and the WM_MDI* messages,
//! as Microsoft documents them.
//!
//! - The MDI client is a child of the frame created from CLIENTCREATESTRUCT (the
//!   window menu and the first child id). Its children are created by WM_MDICREATE
//!   (an MDICREATESTRUCT; the child's CREATESTRUCT.lpCreateParams points at it) and
//!   carry WS_EX_MDICHILD; their ids are idFirstChild + their place in creation
//!   order, renumbered when one goes, and they are listed in the window menu
//!   ("&1 Title" ..., the active one checked, "&More Windows..." past nine).
//! - One child is active: activation sends the old one WM_NCACTIVATE(FALSE) and
//!   WM_MDIACTIVATE, brings the new one to the top (WM_CHILDACTIVATE), then sends it
//!   WM_NCACTIVATE(TRUE) and WM_MDIACTIVATE and gives it the focus.
//! - A maximized child fills the client area with its frame outside it; the frame's
//!   title becomes "Frame - [Child]" and its menu bar gets the child's system menu
//!   (a bitmap item in front) and the minimize, restore and close buttons (bitmap
//!   items flush right), which [`super::menubar`] lays out and draws through
//!   [`bar_button`]. Activating another child while one is maximized maximizes it.
//! - Cascade staggers the children by a caption plus a frame less one pixel and
//!   gives them the client area less the staggering; tile splits the client area
//!   into columns (MDITILE_VERTICAL) or rows (MDITILE_HORIZONTAL) of near-equal
//!   windows, the last column or row taking the remainder.
//!
//! The client's state lives in a process slot keyed by the client's handle; the
//! window-manager lock is never held while a window procedure runs.

use super::menubar::{MF_BITMAP, MF_CHECKED, MF_POPUP, MF_RIGHTJUSTIFY, MF_SEPARATOR};
use super::msg::*;
use super::window::{self, Create, SWP_NOACTIVATE, SWP_NOMOVE, SWP_NOSIZE, SWP_NOZORDER};
use super::wm::{self, MenuItem, Wm};
use super::{Flow, UR, fin, lock_wm};
use crate::gdi32::Rect;
use crate::gdi32::objects::LogFont;
use crate::gdi32::raster::{Raster, with_surface};
use crate::gdi32::text::{self, FontInfo};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

pub const WM_CHILDACTIVATE: u32 = 0x0022;
pub const WM_MDICREATE: u32 = 0x0220;
pub const WM_MDIDESTROY: u32 = 0x0221;
pub const WM_MDIACTIVATE: u32 = 0x0222;
pub const WM_MDIRESTORE: u32 = 0x0223;
pub const WM_MDINEXT: u32 = 0x0224;
pub const WM_MDIMAXIMIZE: u32 = 0x0225;
pub const WM_MDITILE: u32 = 0x0226;
pub const WM_MDICASCADE: u32 = 0x0227;
pub const WM_MDIICONARRANGE: u32 = 0x0228;
pub const WM_MDIGETACTIVE: u32 = 0x0229;
pub const WM_MDISETMENU: u32 = 0x0230;
pub const WM_MDIREFRESHMENU: u32 = 0x0234;
const WM_MENUCHAR: u32 = 0x0120;

pub const WS_EX_MDICHILD: u32 = 0x40;
pub const MDIS_ALLCHILDSTYLES: u32 = 0x1;
const MDITILE_HORIZONTAL: u32 = 0x1;
const MDITILE_SKIPDISABLED: u32 = 0x2;
const WS_MINIMIZEBOX: u32 = 0x0002_0000;
const WS_MAXIMIZEBOX: u32 = 0x0001_0000;
const CW_USEDEFAULT: i32 = 0x8000_0000u32 as i32;

const SC_SIZE: u32 = 0xf000;
const SC_MINIMIZE: u32 = 0xf020;
const SC_MAXIMIZE: u32 = 0xf030;
const SC_NEXTWINDOW: u32 = 0xf040;
const SC_PREVWINDOW: u32 = 0xf050;
const SC_CLOSE: u32 = 0xf060;
const SC_KEYMENU: u32 = 0xf100;
const SC_RESTORE: u32 = 0xf120;

const VK_TAB: u32 = 0x09;
const VK_SHIFT: usize = 0x10;
const VK_CONTROL: usize = 0x11;
const VK_F4: u32 = 0x73;
const VK_F6: u32 = 0x75;

/// Items of the window menu: nine children, then "More Windows...".
const MAX_LISTED: usize = 9;

/// One MDI client's bookkeeping.
#[derive(Clone, Debug, Default)]
struct Client {
    frame: u32,
    window_menu: u32,
    id_first: u32,
    /// Children in creation order (their ids are `id_first` + index).
    children: Vec<u32>,
    /// Children ever created: a default-placed child takes the next staggered place.
    created: usize,
    active: u32,
    maximized: u32,
    /// The frame's own title (what it shows without a maximized child).
    frame_text: Option<String>,
    /// The frame menu augmented for the maximized child, and that child.
    augmented: Option<(u32, u32)>,
    /// Where a maximized child goes back to on restore.
    restore: HashMap<u32, Rect>,
}

#[derive(Default)]
struct MdiState {
    clients: Mutex<HashMap<u32, Client>>,
}

fn with<R>(cx: &Ctx, client: u32, f: impl FnOnce(&mut Client) -> R) -> Option<R> {
    let s = cx.proc.slot::<MdiState>();
    let mut m = s.clients.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(&client).map(f)
}

fn get(cx: &Ctx, client: u32) -> Option<Client> {
    with(cx, client, |c| c.clone())
}

/// The MDI client of a child (its parent, if that is an MDI client).
fn client_of(cx: &Ctx, child: u32) -> Option<u32> {
    let parent = lock_wm(cx.proc).win(child).map(|w| w.parent)?;
    get(cx, parent).map(|_| parent)
}

fn style_of(cx: &Ctx, h: u32) -> u32 {
    lock_wm(cx.proc).win(h).map_or(0, |w| w.style)
}

fn text_of(cx: &Ctx, h: u32) -> String {
    lock_wm(cx.proc)
        .win(h)
        .map(|w| w.text.clone())
        .unwrap_or_default()
}

// ---- The client window -------------------------------------------------------------------

/// The MDIClient class's window procedure.
pub fn client_proc(cx: &mut Ctx, hwnd: u32, msg: u32, wp: u32, lp: u32, unicode: bool) -> UR<u32> {
    match msg {
        WM_CREATE => {
            // CREATESTRUCT.lpCreateParams -> CLIENTCREATESTRUCT {hWindowMenu, idFirstChild}.
            let ccs = if lp != 0 {
                cx.proc.mem.read_u32(lp)?
            } else {
                0
            };
            let (menu, first) = if ccs != 0 {
                (cx.proc.mem.read_u32(ccs)?, cx.proc.mem.read_u32(ccs + 4)?)
            } else {
                (0, 0)
            };
            let frame = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.parent);
            let s = cx.proc.slot::<MdiState>();
            s.clients.lock().unwrap_or_else(|e| e.into_inner()).insert(
                hwnd,
                Client {
                    frame,
                    window_menu: menu,
                    id_first: first,
                    ..Default::default()
                },
            );
            Ok(0)
        }
        WM_NCDESTROY => {
            let s = cx.proc.slot::<MdiState>();
            s.clients
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&hwnd);
            window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)
        }
        WM_MDICREATE => {
            if lp == 0 {
                return Ok(0);
            }
            let f: Vec<u32> = (0..9)
                .map(|k| cx.proc.mem.read_u32(lp + 4 * k))
                .collect::<Result<_, _>>()?;
            create_child(
                cx,
                hwnd,
                ChildArgs {
                    class_ptr: f[0],
                    title_ptr: f[1],
                    instance: f[2],
                    x: f[3] as i32,
                    y: f[4] as i32,
                    w: f[5] as i32,
                    h: f[6] as i32,
                    style: f[7],
                    mcs: lp,
                    unicode,
                },
            )
        }
        WM_MDIDESTROY => {
            destroy_child(cx, hwnd, wp)?;
            Ok(0)
        }
        WM_MDIACTIVATE => {
            if get(cx, hwnd).is_some_and(|c| c.children.contains(&wp)) {
                activate(cx, hwnd, wp)?;
            }
            Ok(0)
        }
        WM_MDIGETACTIVE => {
            let (active, max) = get(cx, hwnd).map_or((0, 0), |c| (c.active, c.maximized));
            if lp != 0 {
                cx.proc
                    .mem
                    .write_u32(lp, (active != 0 && max == active) as u32)?;
            }
            Ok(active)
        }
        WM_MDINEXT => {
            next(cx, hwnd, wp, lp != 0)?;
            Ok(0)
        }
        WM_MDIMAXIMIZE => {
            if get(cx, hwnd).is_some_and(|c| c.children.contains(&wp)) {
                maximize(cx, hwnd, wp)?;
            }
            Ok(0)
        }
        WM_MDIRESTORE => {
            if get(cx, hwnd).is_some_and(|c| c.children.contains(&wp)) {
                restore(cx, hwnd, wp, true)?;
            }
            Ok(0)
        }
        WM_MDICASCADE => Ok(cascade(cx, hwnd, wp)? as u32),
        WM_MDITILE => Ok(tile(cx, hwnd, wp)? as u32),
        WM_MDIICONARRANGE => {
            arrange_icons(cx, hwnd)?;
            Ok(0)
        }
        WM_MDISETMENU => set_menu(cx, hwnd, wp, lp),
        WM_MDIREFRESHMENU => {
            let frame = get(cx, hwnd).map_or(0, |c| c.frame);
            refresh_window_menu(cx, hwnd);
            Ok(super::res::GetMenu(cx, frame))
        }
        WM_SETFOCUS => {
            let active = get(cx, hwnd).map_or(0, |c| c.active);
            if active != 0 && style_of(cx, active) & wm::WS_MINIMIZE == 0 {
                window::set_focus(cx, active)?;
            }
            Ok(0)
        }
        WM_SIZE => {
            // A maximized child keeps filling the client area.
            let max = get(cx, hwnd).map_or(0, |c| c.maximized);
            if max != 0 {
                let r = maximized_rect(cx, hwnd, max);
                window::set_window_pos(
                    cx,
                    max,
                    0,
                    r.left,
                    r.top,
                    r.width(),
                    r.height(),
                    SWP_NOACTIVATE | SWP_NOZORDER,
                )?;
            }
            window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)
        }
        _ => window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
    }
}

struct ChildArgs {
    class_ptr: u32,
    title_ptr: u32,
    instance: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    style: u32,
    mcs: u32,
    unicode: bool,
}

/// Where the n-th default-placed child goes, and its size: staggered by a caption
/// plus a frame less one pixel, as many steps as a third of the client height
/// holds, and as large as the client area less the staggering.
fn default_pos(client: (i32, i32), n: usize) -> ((i32, i32), (i32, i32)) {
    let spacing = wm::CY_CAPTION + wm::CX_FRAME - 1;
    let (cw, ch) = client;
    let stagger = (ch / (3 * spacing)).max(0);
    let at = spacing * (n as i32 % (stagger + 1));
    ((at, at), (cw - stagger * spacing, ch - stagger * spacing))
}

fn create_child(cx: &mut Ctx, client: u32, a: ChildArgs) -> UR<u32> {
    let Some(c) = get(cx, client) else {
        return Ok(0);
    };
    let client_style = style_of(cx, client);
    let mut style = a.style | wm::WS_CHILD | wm::WS_CLIPSIBLINGS;
    if client_style & MDIS_ALLCHILDSTYLES == 0 {
        style |= wm::WS_CAPTION
            | wm::WS_SYSMENU
            | wm::WS_THICKFRAME
            | WS_MINIMIZEBOX
            | WS_MAXIMIZEBOX
            | wm::WS_VISIBLE;
    }
    // A new child is maximized if the active one is (and it can be).
    let want_max = (style & wm::WS_MAXIMIZE != 0 || (c.maximized != 0 && c.maximized == c.active))
        && style & WS_MAXIMIZEBOX != 0;
    let visible = style & wm::WS_VISIBLE != 0;
    let style = style & !(wm::WS_MAXIMIZE | wm::WS_VISIBLE);
    let (x, y, w, h) = {
        let size = lock_wm(cx.proc).client_size(client);
        let (pos, dim) = default_pos(size, c.created);
        let (x, y) = if a.x == CW_USEDEFAULT {
            pos
        } else {
            (a.x, a.y)
        };
        let (w, h) = if a.w == CW_USEDEFAULT || (a.w == 0 && a.h == 0) && a.x == CW_USEDEFAULT {
            dim
        } else {
            (a.w, a.h)
        };
        (x, y, w, h)
    };
    let id = c.id_first + c.children.len() as u32;
    let class = super::str_or_atom(cx, a.class_ptr, a.unicode)?;
    let hwnd = window::create_window(
        cx,
        Create {
            exstyle: WS_EX_MDICHILD,
            class,
            class_ptr: a.class_ptr,
            name_ptr: a.title_ptr,
            style,
            x,
            y,
            w,
            h,
            parent: client,
            menu: id,
            instance: a.instance,
            param: a.mcs,
            unicode: a.unicode,
        },
    )?;
    if hwnd == 0 {
        return Ok(0);
    }
    with(cx, client, |c| {
        c.children.push(hwnd);
        c.created += 1;
    });
    if visible {
        window::show_window(cx, hwnd, 8)?;
    }
    if want_max {
        maximize(cx, client, hwnd)?;
    }
    if visible {
        activate(cx, client, hwnd)?;
    }
    refresh_window_menu(cx, client);
    Ok(hwnd)
}

fn destroy_child(cx: &mut Ctx, client: u32, child: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    if !c.children.contains(&child) {
        return Ok(());
    }
    let was_max = c.maximized == child;
    if c.active == child {
        let other = next_candidate(cx, client, child, true);
        if was_max {
            unaugment(cx, client)?;
            with(cx, client, |c| c.maximized = 0);
        }
        match other {
            Some(o) => {
                if was_max {
                    maximize(cx, client, o)?;
                }
                activate(cx, client, o)?;
            }
            None => deactivate(cx, client)?,
        }
    } else if was_max {
        unaugment(cx, client)?;
        with(cx, client, |c| c.maximized = 0);
    }
    with(cx, client, |c| {
        c.children.retain(|&h| h != child);
        c.restore.remove(&child);
        if c.active == child {
            c.active = 0;
        }
    });
    // The remaining children keep consecutive ids.
    if let Some(c) = get(cx, client) {
        let mut wm = lock_wm(cx.proc);
        for (k, &h) in c.children.iter().enumerate() {
            if let Some(w) = wm.win_mut(h) {
                w.id = c.id_first + k as u32;
            }
        }
    }
    window::destroy_window(cx, child)?;
    refresh_window_menu(cx, client);
    Ok(())
}

/// The child after (or before) `from` in the z-order that can be activated.
fn next_candidate(cx: &Ctx, client: u32, from: u32, forward: bool) -> Option<u32> {
    let wm = lock_wm(cx.proc);
    let kids: Vec<u32> = wm.win(client)?.children.clone();
    let mdi: Vec<u32> = get(cx, client)?.children;
    let ok = |h: u32| {
        h != from
            && mdi.contains(&h)
            && wm
                .win(h)
                .is_some_and(|w| w.style & wm::WS_VISIBLE != 0 && w.style & wm::WS_DISABLED == 0)
    };
    let pos = kids.iter().position(|&h| h == from).unwrap_or(0);
    let n = kids.len();
    (1..=n)
        .map(|k| {
            if forward {
                kids[(pos + k) % n]
            } else {
                kids[(pos + n - k % n) % n]
            }
        })
        .find(|&h| ok(h))
}

fn deactivate(cx: &mut Ctx, client: u32) -> UR<()> {
    let prev = get(cx, client).map_or(0, |c| c.active);
    if prev == 0 {
        return Ok(());
    }
    with(cx, client, |c| c.active = 0);
    send(cx, prev, WM_NCACTIVATE, 0, 0, true)?;
    send(cx, prev, WM_MDIACTIVATE, prev, 0, true)?;
    refresh_window_menu(cx, client);
    Ok(())
}

/// Makes `child` the active MDI child.
fn activate(cx: &mut Ctx, client: u32, child: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    let prev = c.active;
    if prev == child {
        return Ok(());
    }
    with(cx, client, |c| c.active = child);
    // The maximized state goes with the activation.
    if c.maximized != 0 && c.maximized == prev && prev != 0 && prev != child {
        if style_of(cx, child) & WS_MAXIMIZEBOX != 0 {
            maximize(cx, client, child)?;
        } else {
            restore(cx, client, prev, false)?;
        }
    }
    if child != 0 {
        // Brought to the top as a child window is: WM_CHILDACTIVATE first.
        bring_to_top(cx, child)?;
    }
    if prev != 0 && window::IsWindow(cx, prev) {
        send(cx, prev, WM_NCACTIVATE, 0, 0, true)?;
        send(cx, prev, WM_MDIACTIVATE, prev, child, true)?;
    }
    if child == 0 {
        refresh_window_menu(cx, client);
        return Ok(());
    }
    send(cx, child, WM_NCACTIVATE, 1, 0, true)?;
    send(cx, child, WM_MDIACTIVATE, prev, child, true)?;
    let (active_top, frame_of) = {
        let wm = lock_wm(cx.proc);
        (wm.active, wm.top_of(client))
    };
    if active_top == frame_of && with(cx, client, |c| c.active) == Some(child) {
        window::set_focus(cx, child)?;
    }
    refresh_window_menu(cx, client);
    invalidate_caption(cx, child);
    if prev != 0 {
        invalidate_caption(cx, prev);
    }
    Ok(())
}

/// A child window moved to the top of its siblings (SetWindowPos without
/// SWP_NOACTIVATE) hears WM_CHILDACTIVATE.
fn bring_to_top(cx: &mut Ctx, child: u32) -> UR<()> {
    window::set_window_pos(
        cx,
        child,
        0,
        0,
        0,
        0,
        0,
        SWP_NOSIZE | SWP_NOMOVE | SWP_NOACTIVATE,
    )?;
    send(cx, child, WM_CHILDACTIVATE, 0, 0, true)?;
    Ok(())
}

fn next(cx: &mut Ctx, client: u32, from: u32, previous: bool) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    let from = if from == 0 { c.active } else { from };
    if from == 0 {
        return Ok(());
    }
    let Some(to) = next_candidate(cx, client, from, !previous) else {
        return Ok(());
    };
    activate(cx, client, to)?;
    if !previous {
        // The window left goes to the bottom, so repeating cycles through them all.
        window::set_window_pos(
            cx,
            from,
            1,
            0,
            0,
            0,
            0,
            SWP_NOSIZE | SWP_NOMOVE | SWP_NOACTIVATE,
        )?;
    }
    Ok(())
}

/// The rectangle that puts a child's client area over the whole MDI client area.
fn maximized_rect(cx: &Ctx, client: u32, child: u32) -> Rect {
    let wm = lock_wm(cx.proc);
    let (cw, ch) = wm.client_size(client);
    let i = wm.win(child).map_or(Rect::default(), |w| {
        Wm::nc_insets(w.style, w.exstyle, false)
    });
    Rect::new(-i.left, -i.top, cw + i.right, ch + i.bottom)
}

fn maximize(cx: &mut Ctx, client: u32, child: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    if c.maximized == child {
        return Ok(());
    }
    if c.maximized != 0 && window::IsWindow(cx, c.maximized) {
        restore(cx, client, c.maximized, false)?;
    }
    let Some((old, style)) = lock_wm(cx.proc).win(child).map(|w| (w.rect, w.style)) else {
        return Ok(());
    };
    if style & wm::WS_MINIMIZE == 0 {
        with(cx, client, |c| {
            c.restore.insert(child, old);
        });
    }
    if let Some(w) = lock_wm(cx.proc).win_mut(child) {
        w.style = (w.style | wm::WS_MAXIMIZE) & !wm::WS_MINIMIZE;
    }
    with(cx, client, |c| c.maximized = child);
    let r = maximized_rect(cx, client, child);
    window::set_window_pos(
        cx,
        child,
        0,
        r.left,
        r.top,
        r.width(),
        r.height(),
        SWP_NOACTIVATE,
    )?;
    augment(cx, client, child)?;
    update_frame_text(cx, client)?;
    send(cx, child, WM_CHILDACTIVATE, 0, 0, true)?;
    Ok(())
}

/// Restores a maximized or minimized child; `notify`: as the program asked for it
/// (the child hears WM_CHILDACTIVATE), not as a side effect of another child's.
fn restore(cx: &mut Ctx, client: u32, child: u32, notify: bool) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    let style = style_of(cx, child);
    if style & (wm::WS_MAXIMIZE | wm::WS_MINIMIZE) == 0 {
        return Ok(());
    }
    let was_max = c.maximized == child;
    if let Some(w) = lock_wm(cx.proc).win_mut(child) {
        w.style &= !(wm::WS_MAXIMIZE | wm::WS_MINIMIZE);
    }
    if was_max {
        with(cx, client, |c| c.maximized = 0);
        unaugment(cx, client)?;
        update_frame_text(cx, client)?;
    }
    let r = c.restore.get(&child).copied();
    with(cx, client, |c| {
        c.restore.remove(&child);
    });
    if let Some(r) = r {
        window::set_window_pos(
            cx,
            child,
            0,
            r.left,
            r.top,
            r.width(),
            r.height(),
            SWP_NOACTIVATE | SWP_NOZORDER,
        )?;
    }
    if notify {
        send(cx, child, WM_CHILDACTIVATE, 0, 0, true)?;
    }
    Ok(())
}

/// A child minimized inside the client: a caption-sized bar along the bottom.
fn minimize(cx: &mut Ctx, client: u32, child: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    if style_of(cx, child) & wm::WS_MINIMIZE != 0 {
        return Ok(());
    }
    if c.maximized == child {
        restore(cx, client, child, false)?;
    }
    let old = lock_wm(cx.proc).win(child).map(|w| w.rect);
    if let Some(r) = old {
        with(cx, client, |c| {
            c.restore.insert(child, r);
        });
    }
    if let Some(w) = lock_wm(cx.proc).win_mut(child) {
        w.style |= wm::WS_MINIMIZE;
    }
    arrange_icons(cx, client)?;
    if get(cx, client).is_some_and(|c| c.active == child)
        && let Some(o) = next_candidate(cx, client, child, true)
        && style_of(cx, o) & wm::WS_MINIMIZE == 0
    {
        activate(cx, client, o)?;
    }
    Ok(())
}

/// Minimized children in a row along the bottom of the client area, SM_CXMINIMIZED
/// by SM_CYMINIMIZED each.
fn arrange_icons(cx: &mut Ctx, client: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    let (cw, ch) = lock_wm(cx.proc).client_size(client);
    let (iw, ih) = (160, 24);
    let per_row = (cw / iw).max(1);
    let mut k = 0;
    for &h in &c.children {
        if style_of(cx, h) & wm::WS_MINIMIZE == 0 {
            continue;
        }
        let (col, row) = (k % per_row, k / per_row);
        window::set_window_pos(
            cx,
            h,
            0,
            col * iw,
            ch - (row + 1) * ih,
            iw,
            ih,
            SWP_NOACTIVATE | SWP_NOZORDER,
        )?;
        k += 1;
    }
    Ok(())
}

/// The children cascade and tile arrange: visible, not minimized, in z-order from
/// the bottom up (the active window ends on top), less disabled ones if asked.
fn arranged(cx: &Ctx, client: u32, skip_disabled: bool) -> Vec<u32> {
    let Some(c) = get(cx, client) else {
        return Vec::new();
    };
    let wm = lock_wm(cx.proc);
    let Some(kids) = wm.win(client).map(|w| w.children.clone()) else {
        return Vec::new();
    };
    kids.into_iter()
        .rev()
        .filter(|h| c.children.contains(h))
        .filter(|&h| {
            wm.win(h).is_some_and(|w| {
                w.style & wm::WS_VISIBLE != 0
                    && w.style & wm::WS_MINIMIZE == 0
                    && !(skip_disabled && w.style & wm::WS_DISABLED != 0)
            })
        })
        .collect()
}

/// The client area less the row of minimized children, if there are any.
fn arrange_area(cx: &Ctx, client: u32) -> (i32, i32) {
    let (cw, ch) = lock_wm(cx.proc).client_size(client);
    let iconic = get(cx, client).is_some_and(|c| {
        c.children
            .iter()
            .any(|&h| style_of(cx, h) & wm::WS_MINIMIZE != 0)
    });
    (cw, if iconic { ch - 24 } else { ch })
}

fn cascade(cx: &mut Ctx, client: u32, how: u32) -> UR<bool> {
    let max = get(cx, client).map_or(0, |c| c.maximized);
    if max != 0 {
        restore(cx, client, max, false)?;
    }
    let list = arranged(cx, client, how & MDITILE_SKIPDISABLED != 0);
    if list.is_empty() {
        return Ok(false);
    }
    let area = arrange_area(cx, client);
    for (n, &h) in list.iter().enumerate() {
        let ((x, y), (w, hh)) = default_pos(area, n);
        let mut f = SWP_NOACTIVATE | SWP_NOZORDER;
        if style_of(cx, h) & wm::WS_THICKFRAME == 0 {
            f |= SWP_NOSIZE;
        }
        window::set_window_pos(cx, h, 0, x, y, w, hh, f)?;
    }
    Ok(true)
}

fn tile(cx: &mut Ctx, client: u32, how: u32) -> UR<bool> {
    let max = get(cx, client).map_or(0, |c| c.maximized);
    if max != 0 {
        restore(cx, client, max, false)?;
    }
    let mut list = arranged(cx, client, how & MDITILE_SKIPDISABLED != 0);
    if list.is_empty() {
        return Ok(false);
    }
    // Top of the z-order first: the active child takes the first place.
    list.reverse();
    let (cw, ch) = arrange_area(cx, client);
    let n = list.len() as i32;
    let mut cols = 1;
    while cols * cols < n {
        cols += 1;
    }
    let horizontal = how & MDITILE_HORIZONTAL != 0;
    // Columns side by side (vertical tiling), or rows stacked (horizontal).
    let (span, depth) = if horizontal { (ch, cw) } else { (cw, ch) };
    let mut per = n / cols;
    let size = span / cols;
    let mut at = 0;
    let mut i = 0usize;
    for c in 1..=cols {
        if c == cols {
            per = n - i as i32;
        }
        let step = depth / per.max(1);
        let mut pos = 0;
        for _ in 0..per {
            let h = list[i];
            let (x, y, w, hh) = if horizontal {
                (pos, at, step, size)
            } else {
                (at, pos, size, step)
            };
            let mut f = SWP_NOACTIVATE | SWP_NOZORDER;
            if style_of(cx, h) & wm::WS_THICKFRAME == 0 {
                f |= SWP_NOSIZE;
            }
            window::set_window_pos(cx, h, 0, x, y, w, hh, f)?;
            pos += step;
            i += 1;
        }
        at += size;
    }
    Ok(true)
}

fn set_menu(cx: &mut Ctx, client: u32, frame_menu: u32, window_menu: u32) -> UR<u32> {
    let Some(c) = get(cx, client) else {
        return Ok(0);
    };
    let old = super::res::GetMenu(cx, c.frame);
    if window_menu != 0 && window_menu != c.window_menu {
        remove_window_list(cx, c.window_menu, c.id_first);
        with(cx, client, |c| c.window_menu = window_menu);
    }
    if frame_menu != 0 && frame_menu != old {
        let max = c.maximized;
        if max != 0 {
            unaugment(cx, client)?;
        }
        super::res::set_menu(cx, c.frame, frame_menu)?;
        if max != 0 {
            augment(cx, client, max)?;
        }
    }
    refresh_window_menu(cx, client);
    Ok(old)
}

// ---- The window menu -----------------------------------------------------------------------

fn is_listed(it: &MenuItem, first: u32) -> bool {
    it.flags & (MF_POPUP | MF_SEPARATOR) == 0
        && it.id >= first
        && it.id <= first + MAX_LISTED as u32
}

/// Takes the child list (and the separator in front of it) out of a window menu.
fn remove_window_list(cx: &Ctx, menu: u32, first: u32) {
    let mut wm = lock_wm(cx.proc);
    let Some(m) = wm.menus.get_mut(&menu) else {
        return;
    };
    if let Some(at) = m.items.iter().position(|it| is_listed(it, first)) {
        m.items.retain(|it| !is_listed(it, first));
        if at > 0
            && m.items
                .get(at - 1)
                .is_some_and(|it| it.flags & MF_SEPARATOR != 0)
        {
            m.items.remove(at - 1);
        }
    }
}

/// Lists the children in the window menu: a separator, "&1 Title" ... with the
/// active child checked, and "&More Windows..." past nine.
fn refresh_window_menu(cx: &Ctx, client: u32) {
    let Some(c) = get(cx, client) else { return };
    if c.window_menu == 0 {
        return;
    }
    remove_window_list(cx, c.window_menu, c.id_first);
    let shown: Vec<(u32, String)> = {
        let wm = lock_wm(cx.proc);
        c.children
            .iter()
            .filter_map(|&h| wm.win(h).map(|w| (h, w)))
            .filter(|(_, w)| w.style & wm::WS_VISIBLE != 0)
            .map(|(h, w)| (h, w.text.clone()))
            .collect()
    };
    let mut wm = lock_wm(cx.proc);
    let Some(m) = wm.menus.get_mut(&c.window_menu) else {
        return;
    };
    if shown.is_empty() {
        return;
    }
    if !m.items.is_empty() {
        m.items.push(MenuItem {
            flags: MF_SEPARATOR,
            ..Default::default()
        });
    }
    for (k, (h, t)) in shown.iter().enumerate() {
        if k == MAX_LISTED {
            m.items.push(MenuItem {
                id: c.id_first + MAX_LISTED as u32,
                text: "&More Windows...".into(),
                ..Default::default()
            });
            break;
        }
        m.items.push(MenuItem {
            id: c.id_first + k as u32,
            flags: if *h == c.active { MF_CHECKED } else { 0 },
            text: format!("&{} {}", k + 1, t),
            ..Default::default()
        });
    }
}

// ---- The frame with a maximized child -----------------------------------------------------

/// The frame's title with the maximized child's in brackets.
fn update_frame_text(cx: &mut Ctx, client: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    let base = match &c.frame_text {
        Some(t) => t.clone(),
        None => {
            let t = text_of(cx, c.frame);
            with(cx, client, |c| c.frame_text = Some(t.clone()));
            t
        }
    };
    let shown = if c.maximized != 0 {
        let child = text_of(cx, c.maximized);
        if base.is_empty() {
            format!("[{child}]")
        } else {
            format!("{base} - [{child}]")
        }
    } else {
        base
    };
    if let Some(w) = lock_wm(cx.proc).win_mut(c.frame) {
        w.text = shown;
    }
    Ok(())
}

/// Puts the maximized child's system menu and buttons into the frame's menu bar.
fn augment(cx: &mut Ctx, client: u32, child: u32) -> UR<()> {
    let Some(c) = get(cx, client) else {
        return Ok(());
    };
    if c.augmented.is_some() {
        unaugment(cx, client)?;
    }
    let menu = super::res::GetMenu(cx, c.frame);
    if menu == 0 || !super::res::IsMenu(cx, menu) {
        return Ok(());
    }
    let sys = super::res::GetSystemMenu(cx, child, false);
    let style = style_of(cx, child);
    {
        let mut wm = lock_wm(cx.proc);
        let Some(m) = wm.menus.get_mut(&menu) else {
            return Ok(());
        };
        m.items.insert(
            0,
            MenuItem {
                flags: MF_BITMAP | MF_POPUP,
                submenu: sys,
                ..Default::default()
            },
        );
        let mut add = |id: u32| {
            m.items.push(MenuItem {
                id,
                flags: MF_BITMAP | MF_RIGHTJUSTIFY,
                ..Default::default()
            })
        };
        if style & WS_MINIMIZEBOX != 0 {
            add(SC_MINIMIZE);
        }
        add(SC_RESTORE);
        add(SC_CLOSE);
    }
    with(cx, client, |c| c.augmented = Some((menu, child)));
    super::menubar::refresh_bar(cx, c.frame)?;
    Ok(())
}

fn unaugment(cx: &mut Ctx, client: u32) -> UR<()> {
    let Some((menu, _)) = with(cx, client, |c| c.augmented.take()).flatten() else {
        return Ok(());
    };
    {
        let mut wm = lock_wm(cx.proc);
        if let Some(m) = wm.menus.get_mut(&menu) {
            m.items.retain(|it| bar_button(it).is_none());
        }
    }
    let frame = get(cx, client).map_or(0, |c| c.frame);
    super::menubar::refresh_bar(cx, frame)?;
    Ok(())
}

/// The buttons a maximized child puts into the frame's menu bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarButton {
    SysMenu,
    Minimize,
    Restore,
    Close,
}

/// Whether a menu bar item is one of a maximized MDI child's buttons.
pub fn bar_button(it: &MenuItem) -> Option<BarButton> {
    if it.flags & MF_BITMAP == 0 || !it.text.is_empty() {
        return None;
    }
    if it.flags & MF_POPUP != 0 {
        return Some(BarButton::SysMenu);
    }
    match it.id {
        SC_MINIMIZE => Some(BarButton::Minimize),
        SC_RESTORE => Some(BarButton::Restore),
        SC_CLOSE => Some(BarButton::Close),
        _ => None,
    }
}

/// Width of a button on the bar: the system menu icon's cell is SM_CXSMICON plus
/// a margin, a caption button SM_CXMENUSIZE less two.
pub fn bar_button_width(b: BarButton) -> i32 {
    match b {
        BarButton::SysMenu => 20,
        _ => 16,
    }
}

fn fill(r: &mut Raster, rc: Rect, c: u32) {
    let a = rc.intersect(&r.area());
    for y in a.top..a.bottom {
        r.span(y, a.left, a.right, |_, _| c);
    }
}

/// A classic caption button (DFCS_CAPTION*) in `rc`.
fn draw_caption_button(r: &mut Raster, rc: Rect, b: BarButton, pushed: bool) {
    let c = super::window::sys_color_rgb;
    fill(r, rc, c(15));
    let (tl, br) = if pushed {
        (c(21), c(20))
    } else {
        (c(20), c(21))
    };
    fill(r, Rect::new(rc.left, rc.top, rc.right, rc.top + 1), tl);
    fill(r, Rect::new(rc.left, rc.top, rc.left + 1, rc.bottom), tl);
    fill(
        r,
        Rect::new(rc.left, rc.bottom - 1, rc.right, rc.bottom),
        br,
    );
    fill(r, Rect::new(rc.right - 1, rc.top, rc.right, rc.bottom), br);
    fill(
        r,
        Rect::new(rc.left + 1, rc.bottom - 2, rc.right - 1, rc.bottom - 1),
        c(16),
    );
    fill(
        r,
        Rect::new(rc.right - 2, rc.top + 1, rc.right - 1, rc.bottom - 1),
        c(16),
    );
    let ink = c(18);
    let (cx0, cy0) = (
        (rc.left + rc.right) / 2 + pushed as i32,
        (rc.top + rc.bottom) / 2 + pushed as i32,
    );
    match b {
        BarButton::Close => {
            for d in -3..=3 {
                fill(
                    r,
                    Rect::new(cx0 + d - 1, cy0 + d, cx0 + d + 1, cy0 + d + 1),
                    ink,
                );
                fill(
                    r,
                    Rect::new(cx0 + d - 1, cy0 - d, cx0 + d + 1, cy0 - d + 1),
                    ink,
                );
            }
        }
        BarButton::Minimize => {
            fill(r, Rect::new(cx0 - 4, cy0 + 2, cx0 + 2, cy0 + 4), ink);
        }
        BarButton::Restore => {
            let back = Rect::new(cx0 - 2, cy0 - 4, cx0 + 4, cy0 + 1);
            let front = Rect::new(cx0 - 4, cy0 - 1, cx0 + 2, cy0 + 4);
            for b in [back, front] {
                fill(r, Rect::new(b.left, b.top, b.right, b.top + 2), ink);
                fill(r, Rect::new(b.left, b.top, b.left + 1, b.bottom), ink);
                fill(r, Rect::new(b.right - 1, b.top, b.right, b.bottom), ink);
                fill(r, Rect::new(b.left, b.bottom - 1, b.right, b.bottom), ink);
            }
        }
        BarButton::SysMenu => {}
    }
}

/// Draws a maximized child's button into its cell of the frame's menu bar.
pub fn draw_bar_button(r: &mut Raster, b: BarButton, rc: Rect, hilite: bool) {
    match b {
        BarButton::SysMenu => {
            // A small document window as the child's icon.
            let c = super::window::sys_color_rgb;
            let icon = Rect::new(rc.left + 2, rc.top + 1, rc.left + 18, rc.top + 17).intersect(&rc);
            let page = Rect::new(icon.left + 2, icon.top + 1, icon.right - 2, icon.bottom - 1);
            fill(r, page, 0xffffff);
            fill(
                r,
                Rect::new(page.left, page.top, page.right, page.top + 3),
                c(2),
            );
            for e in [
                Rect::new(page.left, page.top, page.right, page.top + 1),
                Rect::new(page.left, page.bottom - 1, page.right, page.bottom),
                Rect::new(page.left, page.top, page.left + 1, page.bottom),
                Rect::new(page.right - 1, page.top, page.right, page.bottom),
            ] {
                fill(r, e, 0);
            }
        }
        _ => {
            let h = 14;
            let top = rc.top + (rc.height() - h) / 2;
            let cell = Rect::new(rc.left, top, rc.right, top + h);
            draw_caption_button(r, cell, b, hilite);
        }
    }
}

// ---- The caption of a child ----------------------------------------------------------------

fn caption_font() -> &'static FontInfo {
    static F: OnceLock<FontInfo> = OnceLock::new();
    F.get_or_init(|| text::font_info(&LogFont::simple(-11, 700, 0, "MS Shell Dlg")))
}

/// Marks a child's caption for drawing again: its frame is drawn when it paints.
fn invalidate_caption(cx: &Ctx, child: u32) {
    let mut wm = lock_wm(cx.proc);
    if wm.win(child).is_some() {
        wm.invalidate(child, None, false);
    }
}

/// Draws an MDI child's caption bar (active or not), its title and buttons; called
/// when the child's frame is drawn (BeginPaint).
pub fn draw_child_caption(cx: &Ctx, hwnd: u32) {
    let wm = lock_wm(cx.proc);
    let Some(w) = wm.win(hwnd) else { return };
    if w.exstyle & WS_EX_MDICHILD == 0 || w.style & wm::WS_CAPTION != wm::WS_CAPTION {
        return;
    }
    let active = get(cx, w.parent).is_some_and(|c| c.active == hwnd);
    let Some(t) = wm.dc_target(hwnd, true) else {
        return;
    };
    let (ww, wh) = (w.rect.width(), w.rect.height());
    let style = w.style;
    let title: Vec<char> = w.text.chars().collect();
    let ins = Wm::nc_insets(style, w.exstyle, false);
    let b = ins.left;
    let mut s = t.surface.lock().unwrap_or_else(|e| e.into_inner());
    let (ox, oy) = t.origin;
    with_surface(&mut s, t.clip, |r| {
        let c = super::window::sys_color_rgb;
        let whole = Rect::new(0, 0, ww, wh).offset(ox, oy);
        // The frame (EDGE_RAISED outside, the border colour inside).
        let frame_rects = [
            Rect::new(0, 0, ww, b),
            Rect::new(0, wh - b, ww, wh),
            Rect::new(0, 0, b, wh),
            Rect::new(ww - b, 0, ww, wh),
        ];
        for fr in frame_rects {
            fill(r, fr.offset(ox, oy), c(10));
        }
        fill(
            r,
            Rect::new(whole.left, whole.top, whole.right, whole.top + 1),
            c(22),
        );
        fill(
            r,
            Rect::new(whole.left, whole.top, whole.left + 1, whole.bottom),
            c(22),
        );
        fill(
            r,
            Rect::new(whole.left, whole.bottom - 1, whole.right, whole.bottom),
            c(21),
        );
        fill(
            r,
            Rect::new(whole.right - 1, whole.top, whole.right, whole.bottom),
            c(21),
        );
        let cap = Rect::new(b, b, ww - b, b + wm::CY_CAPTION - 1).offset(ox, oy);
        fill(r, cap, if active { c(2) } else { c(3) });
        let fi = caption_font();
        let mut x = cap.left + 2;
        let mut xs = Vec::with_capacity(title.len());
        for &ch in &title {
            xs.push(x);
            x += text::advance(fi, ch);
        }
        let base = cap.top + (cap.height() - fi.height()) / 2 + fi.ascent;
        let fg = if active { c(9) } else { c(19) };
        text::draw_glyphs(r, fi, &title, &xs, base, fg, false);
        // Close, maximize/restore and minimize from the right.
        let bh = wm::CY_CAPTION - 5;
        let bw = bh + 2;
        let top = cap.top + 2;
        let mut right = cap.right - 2;
        let maxed = style & wm::WS_MAXIMIZE != 0;
        let mut buttons = vec![BarButton::Close];
        if style & (WS_MAXIMIZEBOX | WS_MINIMIZEBOX) != 0 {
            buttons.push(if maxed || style & wm::WS_MINIMIZE != 0 {
                BarButton::Restore
            } else {
                BarButton::SysMenu
            });
            buttons.push(BarButton::Minimize);
        }
        for (k, bt) in buttons.iter().enumerate() {
            let rc = Rect::new(right - bw, top, right, top + bh);
            if *bt == BarButton::SysMenu {
                // The maximize button: a window outline with a thick top.
                draw_caption_button(r, rc, BarButton::Minimize, false);
                let ink = c(18);
                let inner = Rect::new(rc.left + 3, rc.top + 2, rc.right - 4, rc.bottom - 3);
                fill(
                    r,
                    Rect::new(inner.left, inner.top, inner.right, inner.bottom),
                    c(15),
                );
                fill(
                    r,
                    Rect::new(inner.left, inner.top, inner.right, inner.top + 2),
                    ink,
                );
                fill(
                    r,
                    Rect::new(inner.left, inner.top, inner.left + 1, inner.bottom),
                    ink,
                );
                fill(
                    r,
                    Rect::new(inner.right - 1, inner.top, inner.right, inner.bottom),
                    ink,
                );
                fill(
                    r,
                    Rect::new(inner.left, inner.bottom - 1, inner.right, inner.bottom),
                    ink,
                );
            } else {
                draw_caption_button(r, rc, *bt, false);
            }
            right -= bw + if k == 0 { 2 } else { 0 };
        }
    });
}

// ---- DefFrameProc -----------------------------------------------------------------------

fn def_frame_proc(
    cx: &mut Ctx,
    hwnd: u32,
    client: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    let c = if client != 0 { get(cx, client) } else { None };
    let Some(c) = c else {
        return window::def_window_proc(cx, hwnd, msg, wp, lp, unicode);
    };
    match msg {
        WM_COMMAND => {
            let id = wp & 0xffff;
            if id >= c.id_first && id < c.id_first + MAX_LISTED as u32 {
                let k = (id - c.id_first) as usize;
                let listed: Vec<u32> = {
                    let wm = lock_wm(cx.proc);
                    c.children
                        .iter()
                        .copied()
                        .filter(|&h| wm.win(h).is_some_and(|w| w.style & wm::WS_VISIBLE != 0))
                        .collect()
                };
                if let Some(&h) = listed.get(k) {
                    if style_of(cx, h) & wm::WS_MINIMIZE != 0 {
                        restore(cx, client, h, true)?;
                    }
                    activate(cx, client, h)?;
                }
                return Ok(0);
            }
            if id == c.id_first + MAX_LISTED as u32 {
                return Err(Flow::Err(crate::hle::ApiError::UnimplementedCase(
                    "the MDI \"More Windows...\" dialog (choosing among more than nine children)"
                        .into(),
                )));
            }
            // The maximized child's system menu and buttons in the frame's bar.
            if id >= SC_SIZE && c.maximized != 0 {
                send(cx, c.maximized, WM_SYSCOMMAND, id, lp, unicode)?;
                return Ok(0);
            }
            Ok(0)
        }
        WM_SETTEXT => {
            let s = if lp == 0 {
                String::new()
            } else {
                super::read_str(cx, lp, unicode)?
            };
            with(cx, client, |c| c.frame_text = Some(s.clone()));
            window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)?;
            update_frame_text(cx, client)?;
            Ok(1)
        }
        WM_SETFOCUS => {
            window::set_focus(cx, client)?;
            Ok(0)
        }
        WM_SIZE => {
            let (w, h) = ((lp & 0xffff) as i32, (lp >> 16) as i32);
            window::set_window_pos(cx, client, 0, 0, 0, w, h, SWP_NOZORDER | SWP_NOACTIVATE)?;
            Ok(0)
        }
        WM_MENUCHAR => {
            // Alt+'-' opens the active child's system menu.
            if wp & 0xffff == u32::from(b'-') && c.active != 0 {
                send(
                    cx,
                    c.active,
                    WM_SYSCOMMAND,
                    SC_KEYMENU,
                    u32::from(b'-'),
                    unicode,
                )?;
            }
            Ok(0)
        }
        WM_NCACTIVATE => {
            if c.active != 0 {
                send(cx, c.active, WM_NCACTIVATE, wp, lp, unicode)?;
            }
            window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)
        }
        _ => window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
    }
}

pub fn DefFrameProcA(
    cx: &mut Ctx,
    hWnd: u32,
    hWndMDIClient: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_frame_proc(
        cx,
        hWnd,
        hWndMDIClient,
        uMsg,
        wParam,
        lParam,
        false,
    ))
}

pub fn DefFrameProcW(
    cx: &mut Ctx,
    hWnd: u32,
    hWndMDIClient: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_frame_proc(
        cx,
        hWnd,
        hWndMDIClient,
        uMsg,
        wParam,
        lParam,
        true,
    ))
}

// ---- DefMDIChildProc ----------------------------------------------------------------------

fn def_child_proc(cx: &mut Ctx, hwnd: u32, msg: u32, wp: u32, lp: u32, unicode: bool) -> UR<u32> {
    let Some(client) = client_of(cx, hwnd) else {
        return window::def_window_proc(cx, hwnd, msg, wp, lp, unicode);
    };
    match msg {
        WM_SETTEXT => {
            let r = window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)?;
            refresh_window_menu(cx, client);
            if get(cx, client).is_some_and(|c| c.maximized == hwnd) {
                update_frame_text(cx, client)?;
            }
            invalidate_caption(cx, hwnd);
            Ok(r)
        }
        WM_CLOSE => {
            send(cx, client, WM_MDIDESTROY, hwnd, 0, unicode)?;
            Ok(0)
        }
        WM_SETFOCUS => {
            if get(cx, client).is_some_and(|c| c.active != hwnd) {
                activate(cx, client, hwnd)?;
            }
            Ok(0)
        }
        WM_CHILDACTIVATE => {
            activate(cx, client, hwnd)?;
            Ok(0)
        }
        WM_NCACTIVATE => {
            invalidate_caption(cx, hwnd);
            Ok(1)
        }
        WM_GETMINMAXINFO => {
            if lp != 0 {
                // Maximized: the client area of the MDI client, the frame outside it.
                let r = maximized_rect(cx, client, hwnd);
                let m = &cx.proc.mem;
                m.write_u32(lp + 8, r.width() as u32)?;
                m.write_u32(lp + 12, r.height() as u32)?;
                m.write_u32(lp + 16, r.left as u32)?;
                m.write_u32(lp + 20, r.top as u32)?;
            }
            Ok(0)
        }
        WM_SYSCOMMAND => match wp & 0xfff0 {
            SC_MAXIMIZE => {
                maximize(cx, client, hwnd)?;
                activate(cx, client, hwnd)?;
                Ok(0)
            }
            SC_RESTORE => {
                restore(cx, client, hwnd, true)?;
                Ok(0)
            }
            SC_MINIMIZE => {
                minimize(cx, client, hwnd)?;
                Ok(0)
            }
            SC_NEXTWINDOW => {
                next(cx, client, hwnd, false)?;
                Ok(0)
            }
            SC_PREVWINDOW => {
                next(cx, client, hwnd, true)?;
                Ok(0)
            }
            _ => window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
        },
        WM_SIZE => {
            // A child maximized by ShowWindow rather than through the client.
            let c = get(cx, client);
            if wp == 2 && c.as_ref().is_some_and(|c| c.maximized != hwnd) {
                with(cx, client, |c| c.maximized = hwnd);
                augment(cx, client, hwnd)?;
                update_frame_text(cx, client)?;
            } else if wp != 2 && c.as_ref().is_some_and(|c| c.maximized == hwnd) {
                with(cx, client, |c| c.maximized = 0);
                unaugment(cx, client)?;
                update_frame_text(cx, client)?;
            }
            window::def_window_proc(cx, hwnd, msg, wp, lp, unicode)
        }
        WM_MENUCHAR => Ok(0x0001_0000),
        _ => window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
    }
}

pub fn DefMDIChildProcA(
    cx: &mut Ctx,
    hWnd: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_child_proc(cx, hWnd, uMsg, wParam, lParam, false))
}

pub fn DefMDIChildProcW(
    cx: &mut Ctx,
    hWnd: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_child_proc(cx, hWnd, uMsg, wParam, lParam, true))
}

// ---- CreateMDIWindow, TranslateMDISysAccel ------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn create_mdi_window(
    cx: &mut Ctx,
    class: u32,
    title: u32,
    style: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    parent: u32,
    instance: u32,
    param: u32,
    unicode: bool,
) -> UR<u32> {
    if get(cx, parent).is_none() {
        crate::teb::set_last_error(cx, 1400)?;
        return Ok(0);
    }
    let (mcs, esp) = super::stack_alloc(cx, 36);
    let fields = [
        class, title, instance, x as u32, y as u32, w as u32, h as u32, style, param,
    ];
    let r = (|| -> UR<u32> {
        for (k, v) in fields.iter().enumerate() {
            cx.proc.mem.write_u32(mcs + 4 * k as u32, *v)?;
        }
        send(cx, parent, WM_MDICREATE, 0, mcs, unicode)
    })();
    super::stack_free(cx, esp);
    r
}

#[allow(clippy::too_many_arguments)]
pub fn CreateMDIWindowA(
    cx: &mut Ctx,
    lpClassName: u32,
    lpWindowName: u32,
    dwStyle: u32,
    X: i32,
    Y: i32,
    nWidth: i32,
    nHeight: i32,
    hWndParent: u32,
    hInstance: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(create_mdi_window(
        cx,
        lpClassName,
        lpWindowName,
        dwStyle,
        X,
        Y,
        nWidth,
        nHeight,
        hWndParent,
        hInstance,
        lParam,
        false,
    ))
}

#[allow(clippy::too_many_arguments)]
pub fn CreateMDIWindowW(
    cx: &mut Ctx,
    lpClassName: u32,
    lpWindowName: u32,
    dwStyle: u32,
    X: i32,
    Y: i32,
    nWidth: i32,
    nHeight: i32,
    hWndParent: u32,
    hInstance: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(create_mdi_window(
        cx,
        lpClassName,
        lpWindowName,
        dwStyle,
        X,
        Y,
        nWidth,
        nHeight,
        hWndParent,
        hInstance,
        lParam,
        true,
    ))
}

/// The MDI keyboard interface: Ctrl+F4 closes the active child, Ctrl+F6 and
/// Ctrl+Tab go to the next one (with Shift: the previous one); each is sent to the
/// child as the WM_SYSCOMMAND its system menu would send.
pub fn TranslateMDISysAccel(cx: &mut Ctx, hWndClient: u32, lpMsg: Ptr) -> ApiResult<Outcome> {
    let m = read_msg(cx, lpMsg.0)?;
    if !matches!(m.message, WM_KEYDOWN | WM_SYSKEYDOWN) {
        return Ok(Outcome::Return(0));
    }
    let Some(c) = get(cx, hWndClient) else {
        return Ok(Outcome::Return(0));
    };
    if c.active == 0 || style_of(cx, c.active) & wm::WS_DISABLED != 0 {
        return Ok(Outcome::Return(0));
    }
    let (ctrl, shift) = {
        let q = lock_wm(cx.proc).queue(cx.thread.tid);
        let d = q.lock();
        (
            d.keys.get(VK_CONTROL).is_some_and(|k| k & 0x80 != 0),
            d.keys.get(VK_SHIFT).is_some_and(|k| k & 0x80 != 0),
        )
    };
    if !ctrl {
        return Ok(Outcome::Return(0));
    }
    let cmd = match m.wparam {
        VK_F4 => SC_CLOSE,
        VK_F6 | VK_TAB if shift => SC_PREVWINDOW,
        VK_F6 | VK_TAB => SC_NEXTWINDOW,
        _ => return Ok(Outcome::Return(0)),
    };
    fin(send(cx, c.active, WM_SYSCOMMAND, cmd, m.lparam, true).map(|_| 1u32))
}

/// The system class's name.
pub const CLASS_NAME: &str = "MDIClient";

fn client_wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32) -> ApiResult<Outcome> {
    fin(client_proc(cx, h, m, wp, lp, true))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("__winterp_MDIClientWndProc", client_wndproc),
        stdcall("DefFrameProcA", DefFrameProcA),
        stdcall("DefFrameProcW", DefFrameProcW),
        stdcall("DefMDIChildProcA", DefMDIChildProcA),
        stdcall("DefMDIChildProcW", DefMDIChildProcW),
        stdcall("CreateMDIWindowA", CreateMDIWindowA),
        stdcall("CreateMDIWindowW", CreateMDIWindowW),
        stdcall("TranslateMDISysAccel", TranslateMDISysAccel),
    ]
}

// ---- Placement ----------------------------------------------------------------------------

/// Where an MDI child goes back to when restored, if it is maximized or minimized
/// (GetWindowPlacement's rcNormalPosition); `None` for other windows.
pub fn restore_rect(cx: &Ctx, hwnd: u32) -> Option<Rect> {
    let client = client_of(cx, hwnd)?;
    get(cx, client)?.restore.get(&hwnd).copied()
}

/// SetWindowPlacement of an MDI child: the restored rectangle, then the show state
/// through the client (maximized, minimized or restored); `false` when `hwnd` is
/// not an MDI child.
pub fn set_placement(cx: &mut Ctx, hwnd: u32, normal: Rect, cmd: u32) -> UR<bool> {
    let Some(client) = client_of(cx, hwnd) else {
        return Ok(false);
    };
    let style = style_of(cx, hwnd);
    if style & (wm::WS_MAXIMIZE | wm::WS_MINIMIZE) != 0 {
        with(cx, client, |c| {
            c.restore.insert(hwnd, normal);
        });
    } else {
        window::set_window_pos(
            cx,
            hwnd,
            0,
            normal.left,
            normal.top,
            normal.width(),
            normal.height(),
            SWP_NOZORDER | SWP_NOACTIVATE,
        )?;
    }
    match cmd {
        // SW_HIDE.
        0 => {
            window::show_window(cx, hwnd, 0)?;
        }
        // SW_SHOWMAXIMIZED.
        3 => {
            window::show_window(cx, hwnd, 8)?;
            maximize(cx, client, hwnd)?;
            activate(cx, client, hwnd)?;
        }
        // SW_SHOWMINIMIZED, SW_MINIMIZE, SW_SHOWMINNOACTIVE.
        2 | 6 | 7 => {
            window::show_window(cx, hwnd, 8)?;
            minimize(cx, client, hwnd)?;
        }
        _ => {
            if style & (wm::WS_MAXIMIZE | wm::WS_MINIMIZE) != 0 {
                restore(cx, client, hwnd, true)?;
            }
            window::show_window(cx, hwnd, 8)?;
            if !matches!(cmd, 4 | 8) {
                activate(cx, client, hwnd)?;
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_positions_stagger_by_caption_and_frame() {
        // 22 = SM_CYCAPTION 19 + SM_CYFRAME 4 - 1; 400/66 = 6 steps.
        let ((x, y), (w, h)) = default_pos((600, 400), 0);
        assert_eq!((x, y, w, h), (0, 0, 600 - 6 * 22, 400 - 6 * 22));
        assert_eq!(default_pos((600, 400), 1).0, (22, 22));
        assert_eq!(default_pos((600, 400), 7).0, (0, 0));
    }

    #[test]
    fn bar_buttons_are_bitmap_items() {
        let b = |id, flags| MenuItem {
            id,
            flags,
            ..Default::default()
        };
        assert_eq!(bar_button(&b(SC_CLOSE, MF_BITMAP)), Some(BarButton::Close));
        assert_eq!(
            bar_button(&b(0, MF_BITMAP | MF_POPUP)),
            Some(BarButton::SysMenu)
        );
        assert_eq!(bar_button(&b(SC_CLOSE, 0)), None);
        assert_eq!(bar_button(&b(5, MF_BITMAP)), None);
    }
}
