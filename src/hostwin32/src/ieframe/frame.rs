//! The browser's frame window (class "IEFrame") and its parts, as Internet Explorer
//! lays them out: the menu bar; a rebar along the top holding the navigation
//! toolbar (Back and Forward with COMCTL32's history pictures, Stop, Refresh, Home)
//! and, on a band of its own, the address bar labelled "Address" (an edit field:
//! Internet Explorer's is a ComboBoxEx whose drop-down lists typed addresses, and
//! USER32's combo box here has no edit field of its own); the status bar along the bottom; and between them the document area
//! (class "Shell DocObject View", sunken, in the window colour), where MSHTML would
//! put the page. The caption is the page's title and " - Microsoft Internet
//! Explorer". The parts are the real controls, driven by their messages as
//! ieframe's own code drives them.

use super::DLL;
use super::browser::{self, APP_NAME};
use crate::comctl32::ccommon as cc;
use crate::gdi32::Rect;
use crate::hle::{ApiDef, Ctx, WStrPtr};
use crate::user32::hostclass::{self, HostClass};
use crate::user32::msg::*;
use crate::user32::window::{self, Create};
use crate::user32::wm::{self, Menu, MenuItem};
use crate::user32::{NameOrId, UR, lock_wm};

pub const FRAME_CLASS: &str = "IEFrame";
pub const VIEW_CLASS: &str = "Shell DocObject View";

const WM_USER: u32 = 0x400;
const SB_SETTEXTW: u32 = WM_USER + 11;
const SB_SIMPLE: u32 = WM_USER + 9;
const SB_SIMPLEID: u32 = 0xff;
const SBARS_SIZEGRIP: u32 = 0x100;
const RB_INSERTBANDW: u32 = WM_USER + 10;
const RB_GETBARHEIGHT: u32 = WM_USER + 27;
const RB_SHOWBAND: u32 = WM_USER + 35;
const RBS_VARHEIGHT: u32 = 0x200;
const RBS_BANDBORDERS: u32 = 0x400;
const RBBS_BREAK: u32 = 0x1;
const RBBS_CHILDEDGE: u32 = 0x4;
const RBBIM_STYLE: u32 = 0x1;
const RBBIM_TEXT: u32 = 0x4;
const RBBIM_CHILD: u32 = 0x10;
const RBBIM_CHILDSIZE: u32 = 0x20;
const RBBIM_SIZE: u32 = 0x40;
const RBN_HEIGHTCHANGE: u32 = (-831i32) as u32;
const CCS_NORESIZE: u32 = 0x4;
const CCS_NOPARENTALIGN: u32 = 0x8;
const CCS_NODIVIDER: u32 = 0x40;
const TB_ENABLEBUTTON: u32 = WM_USER + 1;
const TB_BUTTONSTRUCTSIZE: u32 = WM_USER + 30;
const TB_SETPARENT: u32 = WM_USER + 37;
const TB_LOADIMAGES: u32 = WM_USER + 50;
const TB_ADDBUTTONSW: u32 = WM_USER + 68;
const TB_ADDSTRINGW: u32 = WM_USER + 77;
const TB_GETMAXSIZE: u32 = WM_USER + 83;
const TBSTYLE_FLAT: u32 = 0x800;
const TBSTYLE_LIST: u32 = 0x1000;
const TBSTATE_ENABLED: u32 = 0x4;
const BTNS_AUTOSIZE: u32 = 0x10;
const I_IMAGENONE: i32 = -2;
/// COMCTL32's history pictures (IDB_HIST_SMALL_COLOR): HIST_BACK 0, HIST_FORWARD 1.
const IDB_HIST_SMALL_COLOR: u32 = 8;
const HINST_COMMCTRL: u32 = 0xffff_ffff;
const ES_AUTOHSCROLL: u32 = 0x80;
/// The address field: a line of the GUI font with the sunken edge around it.
const ADDRESS_HEIGHT: i32 = 20;
const WS_EX_TOOLWINDOW: u32 = 0x80;
const WS_OVERLAPPEDWINDOW: u32 = 0x00cf_0000;
const CW_USEDEFAULT: i32 = 0x8000_0000u32 as i32;
const COLOR_WINDOW: u32 = 5;
const COLOR_BTNFACE: u32 = 15;
const MF_CHECKED: u32 = 0x8;
const MF_POPUP: u32 = 0x10;
const MF_SEPARATOR: u32 = 0x800;
const SWP_NOSIZE: u32 = 0x1;
const SWP_NOMOVE: u32 = 0x2;
const SWP_NOZORDER: u32 = 0x4;
const SWP_NOACTIVATE: u32 = 0x10;
const SWP_FRAMECHANGED: u32 = 0x20;
const SW_HIDE: u32 = 0;
const SW_SHOW: u32 = 5;

/// Child ids (GetDlgItem finds the parts by them).
const ID_REBAR: u32 = 0xa001;
const ID_TOOLBAR: u32 = 0xa002;
const ID_ADDRESS: u32 = 0xa003;
const ID_STATUS: u32 = 0xa004;
const ID_VIEW: u32 = 0xa005;

/// Commands of the menu and the toolbar.
const CMD_CLOSE: u32 = 0x101;
const CMD_STATUS_BAR: u32 = 0x111;
const CMD_STOP: u32 = 0x112;
const CMD_REFRESH: u32 = 0x113;
const CMD_BACK: u32 = 0x121;
const CMD_FORWARD: u32 = 0x122;
const CMD_HOME: u32 = 0x123;
const CMD_ABOUT: u32 = 0x131;

/// The frame's child windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    pub rebar: u32,
    pub toolbar: u32,
    pub address: u32,
    pub status: u32,
    pub view: u32,
    /// The menu bar, kept while MenuBar is off.
    pub menu: u32,
}

impl Parts {
    pub fn contains(&self, h: u32) -> bool {
        [
            self.rebar,
            self.toolbar,
            self.address,
            self.status,
            self.view,
        ]
        .contains(&h)
    }
}

/// The bars a program can show and hide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bar {
    Status,
    Tool,
    Address,
    Menu,
}

pub fn classes() -> Vec<HostClass> {
    vec![
        HostClass {
            name: FRAME_CLASS,
            export: "__winterp_IEFrameWndProc",
            wndproc: frame_proc,
            style: 0,
            // GetWindowLong(frame, 0): the InternetExplorer object.
            wnd_extra: 4,
            background: COLOR_BTNFACE + 1,
        },
        HostClass {
            name: VIEW_CLASS,
            export: "__winterp_DocObjectViewWndProc",
            wndproc: view_proc,
            style: 0,
            wnd_extra: 0,
            background: COLOR_WINDOW + 1,
        },
    ]
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        hostclass::export("__winterp_IEFrameWndProc", frame_proc),
        hostclass::export("__winterp_DocObjectViewWndProc", view_proc),
    ]
}

/// Runs `f` with `s` as a NUL-terminated UTF-16 string in guest memory.
fn with_wstr<R>(cx: &mut Ctx, s: &str, f: impl FnOnce(&mut Ctx, u32) -> UR<R>) -> UR<R> {
    let (p, esp) = crate::user32::stack_alloc(cx, crate::user32::str_bytes(s, true));
    let r = crate::user32::write_str(cx, p, s, true)
        .map_err(Into::into)
        .and_then(|_| f(cx, p));
    crate::user32::stack_free(cx, esp);
    r
}

fn ieframe_instance(cx: &Ctx) -> u32 {
    cx.proc
        .modules
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(DLL.name))
        .map_or(0, |m| m.base)
}

/// The menu bar: File, View (with Go To) and Help, each item one the frame carries
/// out.
fn build_menu(cx: &Ctx) -> u32 {
    let item = |id: u32, text: &str| MenuItem {
        id,
        flags: 0,
        text: text.into(),
        submenu: 0,
        data: 0,
    };
    let sep = || MenuItem {
        id: 0,
        flags: MF_SEPARATOR,
        text: String::new(),
        submenu: 0,
        data: 0,
    };
    let popup =
        |items: Vec<MenuItem>| crate::user32::res::new_menu(cx, Menu { items, popup: true });
    let sub = |text: &str, submenu: u32| MenuItem {
        id: 0,
        flags: MF_POPUP,
        text: text.into(),
        submenu,
        data: 0,
    };
    let file = popup(vec![item(CMD_CLOSE, "&Close")]);
    let go = popup(vec![
        item(CMD_BACK, "&Back"),
        item(CMD_FORWARD, "&Forward"),
        sep(),
        item(CMD_HOME, "&Home Page"),
    ]);
    let mut status = item(CMD_STATUS_BAR, "Status Bar");
    status.text = "Stat&us Bar".into();
    status.flags = MF_CHECKED;
    let view = popup(vec![
        status,
        sep(),
        sub("&Go To", go),
        item(CMD_STOP, "Sto&p"),
        item(CMD_REFRESH, "&Refresh"),
    ]);
    let help = popup(vec![item(CMD_ABOUT, "&About Internet Explorer")]);
    crate::user32::res::new_menu(
        cx,
        Menu {
            items: vec![sub("&File", file), sub("&View", view), sub("&Help", help)],
            popup: false,
        },
    )
}

/// Creates the frame of browser `this` (hidden); its parts come with WM_CREATE.
pub fn create(cx: &mut Ctx, this: u32) -> UR<u32> {
    let menu = build_menu(cx);
    let instance = ieframe_instance(cx);
    let class = FRAME_CLASS;
    with_wstr(cx, APP_NAME, |cx, title| {
        with_wstr(cx, class, |cx, class_ptr| {
            window::create_window(
                cx,
                Create {
                    exstyle: wm::WS_EX_WINDOWEDGE,
                    class: NameOrId::Name(class.into()),
                    class_ptr,
                    name_ptr: title,
                    style: WS_OVERLAPPEDWINDOW | wm::WS_CLIPCHILDREN,
                    x: CW_USEDEFAULT,
                    y: CW_USEDEFAULT,
                    w: CW_USEDEFAULT,
                    h: CW_USEDEFAULT,
                    parent: 0,
                    menu,
                    instance,
                    param: this,
                    unicode: true,
                },
            )
        })
    })
}

/// A child window of class `class`.
#[allow(clippy::too_many_arguments)]
fn child(
    cx: &mut Ctx,
    parent: u32,
    class: &str,
    style: u32,
    exstyle: u32,
    id: u32,
    height: i32,
) -> UR<u32> {
    with_wstr(cx, "", |cx, name| {
        window::create_window(
            cx,
            Create {
                exstyle,
                class: NameOrId::Name(class.into()),
                class_ptr: 0,
                name_ptr: name,
                style: style | wm::WS_CHILD | wm::WS_VISIBLE,
                x: 0,
                y: 0,
                w: 100,
                h: height,
                parent,
                menu: id,
                instance: 0,
                param: 0,
                unicode: true,
            },
        )
    })
}

/// WM_CREATE: the parts.
fn create_parts(cx: &mut Ctx, frame: u32) -> UR<Parts> {
    let font = cc::gui_font(cx)?;
    let status = child(
        cx,
        frame,
        "msctls_statusbar32",
        SBARS_SIZEGRIP,
        0,
        ID_STATUS,
        20,
    )?;
    send(cx, status, SB_SIMPLE, 1, 0, true)?;
    let rebar = child(
        cx,
        frame,
        "ReBarWindow32",
        wm::WS_CLIPSIBLINGS
            | wm::WS_CLIPCHILDREN
            | RBS_VARHEIGHT
            | RBS_BANDBORDERS
            | CCS_NODIVIDER
            | CCS_NOPARENTALIGN
            | CCS_NORESIZE,
        WS_EX_TOOLWINDOW,
        ID_REBAR,
        30,
    )?;
    let toolbar = child(
        cx,
        rebar,
        "ToolbarWindow32",
        TBSTYLE_FLAT | TBSTYLE_LIST | CCS_NORESIZE | CCS_NODIVIDER | CCS_NOPARENTALIGN,
        0,
        ID_TOOLBAR,
        22,
    )?;
    send(cx, toolbar, TB_SETPARENT, frame, 0, true)?;
    send(cx, toolbar, TB_BUTTONSTRUCTSIZE, 20, 0, true)?;
    send(
        cx,
        toolbar,
        TB_LOADIMAGES,
        IDB_HIST_SMALL_COLOR,
        HINST_COMMCTRL,
        true,
    )?;
    let first = with_wstr(cx, "Back\0Forward\0Stop\0Refresh\0Home\0", |cx, p| {
        send(cx, toolbar, TB_ADDSTRINGW, 0, p, true)
    })?;
    // TBBUTTON: iBitmap, idCommand, fsState, fsStyle, 2 reserved bytes, dwData, iString.
    let buttons: [(i32, u32, u32); 5] = [
        (0, CMD_BACK, 0),
        (1, CMD_FORWARD, 0),
        (I_IMAGENONE, CMD_STOP, TBSTATE_ENABLED),
        (I_IMAGENONE, CMD_REFRESH, TBSTATE_ENABLED),
        (I_IMAGENONE, CMD_HOME, TBSTATE_ENABLED),
    ];
    let (p, esp) = crate::user32::stack_alloc(cx, 20 * buttons.len() as u32);
    let added = (|| -> UR<u32> {
        for (k, (image, cmd, state)) in buttons.iter().enumerate() {
            let b = p + 20 * k as u32;
            let m = &cx.proc.mem;
            m.write_u32(b, *image as u32)?;
            m.write_u32(b + 4, *cmd)?;
            m.write_u32(b + 8, state | BTNS_AUTOSIZE << 8)?;
            m.write_u32(b + 12, 0)?;
            m.write_u32(b + 16, first + k as u32)?;
        }
        send(cx, toolbar, TB_ADDBUTTONSW, buttons.len() as u32, p, true)
    })();
    crate::user32::stack_free(cx, esp);
    added?;
    let (tw, th) = {
        let (p, esp) = crate::user32::stack_alloc(cx, 8);
        let r = send(cx, toolbar, TB_GETMAXSIZE, 0, p, true).and_then(|_| {
            let m = &cx.proc.mem;
            Ok((m.read_u32(p)? as i32, m.read_u32(p + 4)? as i32))
        });
        crate::user32::stack_free(cx, esp);
        r?
    };
    insert_band(cx, rebar, toolbar, None, RBBS_CHILDEDGE, (tw, th), tw)?;
    let address = child(
        cx,
        rebar,
        "Edit",
        ES_AUTOHSCROLL,
        wm::WS_EX_CLIENTEDGE,
        ID_ADDRESS,
        ADDRESS_HEIGHT,
    )?;
    if font != 0 {
        send(cx, address, WM_SETFONT, font, 0, true)?;
    }
    let ah = cc::win(cx, address).map_or(ADDRESS_HEIGHT, |w| w.rect.height());
    insert_band(
        cx,
        rebar,
        address,
        Some("Address"),
        RBBS_CHILDEDGE | RBBS_BREAK,
        (100, ah),
        100,
    )?;
    let view = child(
        cx,
        frame,
        VIEW_CLASS,
        wm::WS_CLIPSIBLINGS | wm::WS_CLIPCHILDREN,
        wm::WS_EX_CLIENTEDGE,
        ID_VIEW,
        100,
    )?;
    Ok(Parts {
        rebar,
        toolbar,
        address,
        status,
        view,
        menu: 0,
    })
}

/// RB_INSERTBANDW of a band holding `child` (REBARBANDINFOW, the 80-byte IE 4 form).
fn insert_band(
    cx: &mut Ctx,
    rebar: u32,
    child: u32,
    text: Option<&str>,
    style: u32,
    min: (i32, i32),
    width: i32,
) -> UR<()> {
    let label = text.unwrap_or("");
    with_wstr(cx, label, |cx, text_ptr| {
        let (p, esp) = crate::user32::stack_alloc(cx, 80);
        let r = (|| -> UR<u32> {
            let m = &cx.proc.mem;
            m.write_bytes(p, &[0u8; 80])?;
            let mut mask = RBBIM_STYLE | RBBIM_CHILD | RBBIM_CHILDSIZE | RBBIM_SIZE;
            if text.is_some() {
                mask |= RBBIM_TEXT;
            }
            m.write_u32(p, 80)?;
            m.write_u32(p + 4, mask)?;
            m.write_u32(p + 8, style)?;
            m.write_u32(p + 20, text_ptr)?;
            m.write_u32(p + 32, child)?;
            m.write_u32(p + 36, min.0 as u32)?;
            m.write_u32(p + 40, min.1 as u32)?;
            m.write_u32(p + 44, width as u32)?;
            send(cx, rebar, RB_INSERTBANDW, u32::MAX, p, true)
        })();
        crate::user32::stack_free(cx, esp);
        r.map(|_| ())
    })
}

/// WM_SIZE and bar changes: the rebar along the top, the status bar along the
/// bottom, the document area between them.
fn layout(cx: &mut Ctx, frame: u32) -> UR<()> {
    let Some(this) = browser::by_window(cx, frame) else {
        return Ok(());
    };
    let Some((parts, tool, status_on)) = browser::with(cx, this, |b| {
        (b.parts, b.tool_bar || b.address_bar, b.status_bar)
    }) else {
        return Ok(());
    };
    let (w, h) = cc::client_size(cx, frame);
    let mut status_h = 0;
    if status_on && parts.status != 0 {
        // The status bar puts itself along the bottom on WM_SIZE.
        send(
            cx,
            parts.status,
            WM_SIZE,
            0,
            (w as u32 & 0xffff) | ((h as u32) << 16),
            true,
        )?;
        status_h = cc::win(cx, parts.status).map_or(0, |s| s.rect.height());
    }
    let mut bar_h = 0;
    if tool && parts.rebar != 0 {
        bar_h = send(cx, parts.rebar, RB_GETBARHEIGHT, 0, 0, true)? as i32;
        cc::place(cx, parts.rebar, Rect::new(0, 0, w, bar_h))?;
        // A new width can wrap the bands into another height.
        let again = send(cx, parts.rebar, RB_GETBARHEIGHT, 0, 0, true)? as i32;
        if again != bar_h {
            bar_h = again;
            cc::place(cx, parts.rebar, Rect::new(0, 0, w, bar_h))?;
        }
    }
    if parts.view != 0 {
        let bottom = (h - status_h).max(bar_h);
        cc::place(cx, parts.view, Rect::new(0, bar_h, w, bottom))?;
    }
    Ok(())
}

/// Shows or hides the bars as the browser's properties say, and lays out again.
pub fn apply_bars(cx: &mut Ctx, this: u32) -> UR<()> {
    let Some((frame, mut parts, status_on, tool_on, address_on, menu_on)) =
        browser::with(cx, this, |b| {
            (
                b.frame,
                b.parts,
                b.status_bar,
                b.tool_bar,
                b.address_bar,
                b.menu_bar,
            )
        })
    else {
        return Ok(());
    };
    if frame == 0 {
        return Ok(());
    }
    let show = |on: bool| if on { SW_SHOW } else { SW_HIDE };
    window::show_window(cx, parts.status, show(status_on))?;
    send(cx, parts.rebar, RB_SHOWBAND, 0, u32::from(tool_on), true)?;
    send(cx, parts.rebar, RB_SHOWBAND, 1, u32::from(address_on), true)?;
    window::show_window(cx, parts.rebar, show(tool_on || address_on))?;
    let current = lock_wm(cx.proc).win(frame).map_or(0, |w| w.id);
    if menu_on && current == 0 && parts.menu != 0 {
        set_menu(cx, frame, parts.menu)?;
        parts.menu = 0;
    } else if !menu_on && current != 0 {
        set_menu(cx, frame, 0)?;
        parts.menu = current;
    }
    browser::with(cx, this, |b| b.parts.menu = parts.menu);
    // The View menu's Status Bar item is checked while the bar shows.
    let menu = if current != 0 { current } else { parts.menu };
    check_item(cx, menu, CMD_STATUS_BAR, status_on);
    layout(cx, frame)
}

fn set_menu(cx: &mut Ctx, frame: u32, menu: u32) -> UR<()> {
    match crate::user32::res::SetMenu(cx, frame, menu)? {
        crate::hle::Outcome::Return(_) => Ok(()),
        o => Err(crate::user32::Flow::End(o)),
    }
}

/// Sets or clears the check mark of command `id` anywhere in `menu`.
fn check_item(cx: &Ctx, menu: u32, id: u32, on: bool) {
    let mut wm = lock_wm(cx.proc);
    let mut stack = vec![menu];
    while let Some(m) = stack.pop() {
        let Some(menu) = wm.menus.get_mut(&m) else {
            continue;
        };
        for it in &mut menu.items {
            if it.submenu != 0 {
                stack.push(it.submenu);
            } else if it.id == id {
                if on {
                    it.flags |= MF_CHECKED;
                } else {
                    it.flags &= !MF_CHECKED;
                }
            }
        }
    }
}

/// Resizable: the sizing border and the maximize box come and go together.
pub fn set_resizable(cx: &mut Ctx, frame: u32, on: bool) -> UR<()> {
    const SIZING: u32 = wm::WS_THICKFRAME | 0x0001_0000;
    if let Some(w) = lock_wm(cx.proc).win_mut(frame) {
        if on {
            w.style |= SIZING;
        } else {
            w.style &= !SIZING;
        }
    }
    window::set_window_pos(
        cx,
        frame,
        0,
        0,
        0,
        0,
        0,
        SWP_NOMOVE | SWP_NOSIZE | SWP_NOZORDER | SWP_NOACTIVATE | SWP_FRAMECHANGED,
    )?;
    Ok(())
}

/// The page shown changed: the address bar, the caption, the status text, the
/// Back and Forward buttons, and the document area (about:blank: left empty).
pub fn show_page(cx: &mut Ctx, this: u32) -> UR<()> {
    let Some((frame, parts, url, title, back, forward)) = browser::with(cx, this, |b| {
        (
            b.frame,
            b.parts,
            b.url.clone(),
            b.title.clone(),
            b.pos > 0,
            b.pos + 1 < b.history.len(),
        )
    }) else {
        return Ok(());
    };
    if frame == 0 {
        return Ok(());
    }
    with_wstr(cx, &url, |cx, p| {
        send(cx, parts.address, WM_SETTEXT, 0, p, true)
    })?;
    let caption = format!("{title} - {APP_NAME}");
    with_wstr(cx, &caption, |cx, p| {
        send(cx, frame, WM_SETTEXT, 0, p, true)
    })?;
    send(
        cx,
        parts.toolbar,
        TB_ENABLEBUTTON,
        CMD_BACK,
        u32::from(back),
        true,
    )?;
    send(
        cx,
        parts.toolbar,
        TB_ENABLEBUTTON,
        CMD_FORWARD,
        u32::from(forward),
        true,
    )?;
    cc::redraw(cx, parts.view);
    show_status(cx, this)
}

/// The status bar shows the browser's status text.
pub fn show_status(cx: &mut Ctx, this: u32) -> UR<()> {
    let Some((status, text)) = browser::with(cx, this, |b| (b.parts.status, b.status_text.clone()))
    else {
        return Ok(());
    };
    if status != 0 {
        with_wstr(cx, &text, |cx, p| {
            send(cx, status, SB_SETTEXTW, SB_SIMPLEID, p, true)
        })?;
    }
    Ok(())
}

/// Enter pressed in window `hwnd`: if it is an address bar, its browser opens what
/// it holds. True when it was one.
pub fn address_enter(cx: &mut Ctx, hwnd: u32) -> UR<bool> {
    let Some(this) = browser::by_window(cx, hwnd) else {
        return Ok(false);
    };
    if !browser::with(cx, this, |b| b.parts.address == hwnd).unwrap_or(false) {
        return Ok(false);
    }
    let (p, esp) = crate::user32::stack_alloc(cx, 2 * 2084);
    let text = send(cx, hwnd, WM_GETTEXT, 2084, p, true)
        .and_then(|_| Ok(crate::user32::read_str(cx, p, true)?));
    crate::user32::stack_free(cx, esp);
    let text = text?;
    if !text.trim().is_empty() {
        browser::navigate(cx, this, &text)?;
    }
    Ok(true)
}

fn command(cx: &mut Ctx, frame: u32, this: u32, id: u32) -> UR<u32> {
    match id {
        CMD_CLOSE => {
            send(cx, frame, WM_CLOSE, 0, 0, true)?;
        }
        CMD_STATUS_BAR => {
            let on = browser::with(cx, this, |b| b.status_bar).unwrap_or(true);
            browser::set_bar(cx, this, Bar::Status, !on)?;
        }
        // Navigation completes before the message loop runs again: nothing to stop.
        CMD_STOP => {}
        CMD_REFRESH => {
            let url = browser::with(cx, this, |b| b.url.clone()).unwrap_or_default();
            if !url.is_empty() {
                browser::navigate(cx, this, &url)?;
            }
        }
        CMD_BACK => {
            browser::go(cx, this, -1)?;
        }
        CMD_FORWARD => {
            browser::go(cx, this, 1)?;
        }
        CMD_HOME => {
            browser::go_home(cx, this)?;
        }
        CMD_ABOUT => {
            with_wstr(cx, APP_NAME, |cx, app| {
                crate::user32::call_export(cx, "shell32.dll", "ShellAboutW", &[frame, app, 0, 0])
            })?;
        }
        _ => {}
    }
    Ok(0)
}

/// The frame's window procedure.
pub fn frame_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            // CREATESTRUCT.lpCreateParams: the InternetExplorer object.
            let this = cx.proc.mem.read_u32(lp)?;
            window::SetWindowLong::<WStrPtr>(cx, h, 0, this)?;
            browser::with(cx, this, |b| b.frame = h);
            let parts = create_parts(cx, h)?;
            browser::with(cx, this, |b| b.parts = parts);
            Ok(0)
        }
        WM_SIZE => {
            layout(cx, h)?;
            Ok(0)
        }
        WM_NOTIFY => {
            if lp != 0 && cx.proc.mem.read_u32(lp + 8)? == RBN_HEIGHTCHANGE {
                layout(cx, h)?;
            }
            Ok(0)
        }
        WM_COMMAND => match browser::by_window(cx, h) {
            Some(this) => command(cx, h, this, wp & 0xffff),
            None => Ok(0),
        },
        WM_NCDESTROY => {
            if let Some(this) = browser::by_window(cx, h) {
                browser::frame_destroyed(cx, this)?;
            }
            window::def_window_proc(cx, h, m, wp, lp, u)
        }
        _ => window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

/// The document area: the empty page in the window colour (the class background);
/// MSHTML's own window would sit inside it.
pub fn view_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    window::def_window_proc(cx, h, m, wp, lp, u)
}
