//! The menu bar and pop-up menus: their layout in Windows' classic metrics, drawing
//! (the bar into the window's backing store, open pop-ups over the frame),
//! GetMenuItemRect / GetMenuBarInfo / MenuItemFromPoint, and the modal tracking loop
//! behind a click on the bar (WM_SYSCOMMAND SC_MOUSEMENU), TrackPopupMenu(Ex) and
//! EndMenu.
//!
//! The layout follows what Windows 2000 does and Wine 8 (`win32u/menu.c`) copies:
//!
//! - The menu font is SPI_GETNONCLIENTMETRICS' lfMenuFont (8-point MS Shell Dlg);
//!   its "average character width" is GdiGetCharDimensions' (the width of the 52
//!   letters a-z A-Z / 26, plus 1, halved).
//! - A bar item is its text's width ('&' prefixes removed) plus twice the average
//!   character width; a separator on the bar is 0 wide. Items go left to right and an
//!   item that would pass the bar's right edge starts a new row (an item alone on its
//!   row is cut at the edge); MF_MENUBREAK/MF_MENUBARBREAK start a row too, and items
//!   from the first MF_RIGHTJUSTIFY one to the end of the last row sit flush right.
//! - A row is SM_CYMENU - 1 (18) high and the bar is one pixel more than its rows:
//!   one row is exactly SM_CYMENU, as AdjustWindowRect assumes. Windows puts the
//!   items at the top of each row and leaves the pixel line at the bottom (the
//!   window's client area starts right under it); Wine puts the pixel above the
//!   first row instead (its test_GetMenuItemRect allows either).
//! - A pop-up item is SM_CXMENUCHECK + 4 + the average character width + the width
//!   of the submenu arrow (7) + 2 + its text (text before a tab, the average character
//!   width, the text after it) wide and the font height + 4 high; a separator is half
//!   of SM_CYMENUSIZE. All items of a column share the column's width and tab
//!   position, and a 3-pixel margin holds the raised border.
//!
//! Pop-up menus are not windows here (Windows shows them in windows of class
//! #32768): the tracking loop keeps them in [`Track`] and the frame draws them on top
//! of everything else. Since the frame is the owner window, a pop-up is kept inside
//! what the frame shows of it where it fits (Windows lets it hang out onto the
//! desktop).

use super::msg::*;
use super::window::sys_color_rgb;
use super::wm::{self, MenuItem, Wm};
use super::{Flow, UR, fin, lock_wm};
use crate::gdi32::objects::LogFont;
use crate::gdi32::raster::{Raster, with_surface};
use crate::gdi32::text::{self, FontInfo};
use crate::gdi32::{Rect, Surface};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use std::sync::OnceLock;

pub const MF_GRAYED: u32 = 0x1;
pub const MF_DISABLED: u32 = 0x2;
pub const MF_BITMAP: u32 = 0x4;
pub const MF_CHECKED: u32 = 0x8;
pub const MF_POPUP: u32 = 0x10;
pub const MF_MENUBARBREAK: u32 = 0x20;
pub const MF_MENUBREAK: u32 = 0x40;
pub const MF_HILITE: u32 = 0x80;
pub const MF_OWNERDRAW: u32 = 0x100;
pub const MF_SEPARATOR: u32 = 0x800;
pub const MF_RIGHTJUSTIFY: u32 = 0x4000;

/// Height of a bar row and of a bar item (SM_CYMENUSIZE).
pub const ROW_H: i32 = wm::CY_MENU - 1;
/// Border of a pop-up menu (Wine's MENU_MARGIN).
const MENU_MARGIN: i32 = 3;
/// Gap between the columns of a pop-up menu.
const MENU_COL_SPACE: i32 = 4;
/// SM_CXMENUCHECK: the check-mark column of a pop-up.
const CHECK_W: i32 = 13;
/// The submenu arrow bitmap's width (OBM_MNARROW).
const ARROW_W: i32 = 7;

const COLOR_MENU: u32 = 4;
const COLOR_MENUTEXT: u32 = 7;
const COLOR_HIGHLIGHT: u32 = 13;
const COLOR_HIGHLIGHTTEXT: u32 = 14;
const COLOR_BTNSHADOW: u32 = 16;
const COLOR_GRAYTEXT: u32 = 17;
const COLOR_BTNHIGHLIGHT: u32 = 20;
const COLOR_3DDKSHADOW: u32 = 21;
const COLOR_3DLIGHT: u32 = 22;

const TPM_RIGHTBUTTON: u32 = 0x2;
const TPM_CENTERALIGN: u32 = 0x4;
const TPM_RIGHTALIGN: u32 = 0x8;
const TPM_VCENTERALIGN: u32 = 0x10;
const TPM_BOTTOMALIGN: u32 = 0x20;
const TPM_NONOTIFY: u32 = 0x80;
const TPM_RETURNCMD: u32 = 0x100;

const HTCAPTION: u32 = 2;
const VK_RETURN: u32 = 0x0d;
const VK_MENU: u32 = 0x12;
const VK_ESCAPE: u32 = 0x1b;
const VK_END: u32 = 0x23;
const VK_HOME: u32 = 0x24;
const VK_LEFT: u32 = 0x25;
const VK_UP: u32 = 0x26;
const VK_RIGHT: u32 = 0x27;
const VK_DOWN: u32 = 0x28;
const VK_F10: u32 = 0x79;

const ERROR_INVALID_PARAMETER: u32 = 87;
const ERROR_INVALID_WINDOW_HANDLE: u32 = 1400;
const ERROR_INVALID_MENU_HANDLE: u32 = 1401;
const ERROR_POPUP_ALREADY_ACTIVE: u32 = 1446;

// ---- Font and labels -------------------------------------------------------------------

/// The menu font, realised, with the average character size the layout uses.
pub struct MenuFont {
    pub fi: FontInfo,
    pub char_cx: i32,
    pub char_cy: i32,
}

impl MenuFont {
    pub fn width(&self, cs: &[char]) -> i32 {
        text::extent(&self.fi, cs, 0)
    }
}

pub fn menu_font() -> &'static MenuFont {
    static F: OnceLock<MenuFont> = OnceLock::new();
    F.get_or_init(|| {
        // lfMenuFont as SystemParametersInfo(SPI_GETNONCLIENTMETRICS) reports it.
        let fi = text::font_info(&LogFont::simple(-11, 400, 0, "MS Shell Dlg"));
        let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
        let w = text::extent(&fi, &letters, 0);
        MenuFont {
            char_cx: (w / 26 + 1) / 2,
            char_cy: fi.height(),
            fi,
        }
    })
}

/// An item's text as shown: the characters before a tab with '&' prefixes resolved
/// (which one is underlined), and the accelerator text after the tab.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Label {
    pub chars: Vec<char>,
    pub underline: Option<usize>,
    pub accel: Vec<char>,
}

pub fn label(text: &str) -> Label {
    let mut l = Label::default();
    let (main, accel) = match text.split_once(['\t', '\u{8}']) {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let mut it = main.chars();
    while let Some(c) = it.next() {
        if c == '&' {
            match it.next() {
                Some('&') => l.chars.push('&'),
                Some(n) => {
                    l.underline = Some(l.chars.len());
                    l.chars.push(n);
                }
                None => {}
            }
        } else {
            l.chars.push(c);
        }
    }
    if let Some(a) = accel {
        l.accel = a.chars().filter(|&c| c != '&').collect();
    }
    l
}

/// Why an item cannot be laid out here (its size comes from the program).
fn unsupported(it: &MenuItem) -> Option<&'static str> {
    if super::mdi::bar_button(it).is_some() {
        return None;
    }
    if it.flags & MF_OWNERDRAW != 0 {
        Some("owner-drawn menu item (WM_MEASUREITEM)")
    } else if it.flags & MF_BITMAP != 0 {
        Some("bitmap menu item")
    } else {
        None
    }
}

// ---- Layout ------------------------------------------------------------------------------

/// A menu bar laid out: item rectangles relative to the bar's top-left corner, and
/// the bar's height.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarLayout {
    pub items: Vec<Rect>,
    pub height: i32,
}

/// The width of a bar item.
pub fn bar_item_width(f: &MenuFont, it: &MenuItem) -> i32 {
    if let Some(b) = super::mdi::bar_button(it) {
        return super::mdi::bar_button_width(b);
    }
    if it.flags & MF_SEPARATOR != 0 || unsupported(it).is_some() || it.text.is_empty() {
        return 0;
    }
    f.width(&label(&it.text).chars) + 2 * f.char_cx
}

/// Lays out bar items of the given widths and flags in a bar `bar_w` pixels wide.
pub fn layout_bar(widths: &[i32], flags: &[u32], bar_w: i32) -> BarLayout {
    let mut items: Vec<Rect> = Vec::with_capacity(widths.len());
    let (mut row, mut x, mut row_start) = (0, 0, 0);
    let mut help = None;
    for (i, (&w, &f)) in widths.iter().zip(flags).enumerate() {
        if help.is_none() && f & MF_RIGHTJUSTIFY != 0 {
            help = Some(i);
        }
        let brk = f & (MF_MENUBREAK | MF_MENUBARBREAK) != 0;
        if i != row_start && (brk || x + w > bar_w) {
            row += 1;
            x = 0;
            row_start = i;
        }
        let mut r = Rect::new(x, row * ROW_H, x + w, (row + 1) * ROW_H);
        if r.right > bar_w {
            // Alone on its row and still too wide: cut at the bar's edge.
            r.right = bar_w.max(r.left);
        }
        x = r.right;
        items.push(r);
    }
    if let Some(h) = help {
        let last_top = items.last().map_or(0, |r| r.top);
        let mut edge = bar_w;
        for r in items[h..].iter_mut().rev() {
            if r.top != last_top || r.right >= edge {
                break;
            }
            let w = r.width();
            r.right = edge;
            r.left = edge - w;
            edge = r.left;
        }
    }
    BarLayout {
        height: (row + 1) * ROW_H + 1,
        items,
    }
}

/// A pop-up menu laid out: item rectangles relative to the menu's top-left corner
/// (border included), where each item's accelerator text starts, and the menu's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PopupLayout {
    pub items: Vec<Rect>,
    pub tabs: Vec<i32>,
    pub width: i32,
    pub height: i32,
}

/// (width, height, tab offset from the item's left) of a pop-up item.
fn popup_item_size(f: &MenuFont, it: &MenuItem) -> (i32, i32, i32) {
    if it.flags & MF_SEPARATOR != 0 {
        return (ARROW_W + f.char_cx, ROW_H / 2, 0);
    }
    let l = label(&it.text);
    let mut w = CHECK_W + 4 + f.char_cx;
    let mut tab = w;
    w += ARROW_W;
    let before = f.width(&l.chars);
    let txt = if l.accel.is_empty() {
        before
    } else {
        before + f.char_cx + f.width(&l.accel)
    };
    tab += before;
    w += 2 + txt;
    (w, f.char_cy + 4, tab)
}

pub fn layout_popup(f: &MenuFont, items: &[MenuItem]) -> PopupLayout {
    let n = items.len();
    let mut rects = Vec::with_capacity(n);
    let mut tabs = Vec::with_capacity(n);
    let (mut right, mut bottom, mut start) = (0, 0, 0);
    while start < n {
        let x0 = if start == 0 {
            0
        } else {
            right + MENU_COL_SPACE
        };
        let (mut y, mut max_tab, mut max_tab_w) = (0, 0, 0);
        let mut i = start;
        while i < n {
            if i != start && items[i].flags & (MF_MENUBREAK | MF_MENUBARBREAK) != 0 {
                break;
            }
            let (w, h, tab) = popup_item_size(f, &items[i]);
            let r = Rect::new(x0, y, x0 + w, y + h);
            right = right.max(r.right);
            if items[i].flags & MF_SEPARATOR == 0 {
                max_tab = max_tab.max(x0 + tab);
                max_tab_w = max_tab_w.max(r.right - (x0 + tab));
            }
            y = r.bottom;
            rects.push(r);
            tabs.push(x0 + tab);
            i += 1;
        }
        right = right.max(max_tab + max_tab_w);
        for k in start..i {
            rects[k].right = right;
            tabs[k] = max_tab;
        }
        bottom = bottom.max(y);
        start = i;
    }
    PopupLayout {
        items: rects
            .iter()
            .map(|r| r.offset(MENU_MARGIN, MENU_MARGIN))
            .collect(),
        tabs: tabs.iter().map(|t| t + MENU_MARGIN).collect(),
        width: right + 2 * MENU_MARGIN,
        height: bottom + 2 * MENU_MARGIN,
    }
}

// ---- The bar of a window --------------------------------------------------------------------

/// A window's menu bar: its menu, where it is and where its items are (window
/// coordinates), and the first item it cannot lay out, if any.
#[derive(Clone, Debug)]
pub struct Bar {
    pub menu: u32,
    pub rect: Rect,
    pub items: Vec<Rect>,
    pub unsupported: Option<&'static str>,
}

/// Whether a window shows a menu bar (a top-level window with a menu).
pub fn has_bar(w: &wm::Window) -> bool {
    w.parent == 0 && w.style & wm::WS_CHILD == 0 && w.id != 0
}

/// The frame around the bar: the window border without the client edge, and the
/// caption (the bar sits under the caption, outside the client edge).
fn bar_origin(style: u32, exstyle: u32) -> (i32, i32) {
    let i = Wm::nc_insets(
        style,
        exstyle & !(wm::WS_EX_CLIENTEDGE | wm::WS_EX_STATICEDGE),
        false,
    );
    (i.left, i.top)
}

/// The bar of a window of `width` pixels with style `style`/`exstyle` showing menu `menu`.
pub fn bar_for(wm: &Wm, menu: u32, style: u32, exstyle: u32, width: i32) -> Bar {
    let (x, y) = bar_origin(style, exstyle);
    let bar_w = (width - 2 * x).max(0);
    let f = menu_font();
    let (layout, unsupported) = match wm.menus.get(&menu) {
        Some(m) => {
            let widths: Vec<i32> = m.items.iter().map(|it| bar_item_width(f, it)).collect();
            let flags: Vec<u32> = m.items.iter().map(|it| it.flags).collect();
            (
                layout_bar(&widths, &flags, bar_w),
                m.items.iter().find_map(unsupported),
            )
        }
        // A handle that is not a menu still takes one row, as the client area
        // computed at creation assumed.
        None => (
            BarLayout {
                items: Vec::new(),
                height: wm::CY_MENU,
            },
            None,
        ),
    };
    Bar {
        menu,
        rect: Rect::new(x, y, x + bar_w, y + layout.height),
        items: layout.items.iter().map(|r| r.offset(x, y)).collect(),
        unsupported,
    }
}

/// Window `h`'s menu bar, if it has one.
pub fn bar_of(wm: &Wm, h: u32) -> Option<Bar> {
    let w = wm.win(h)?;
    if !has_bar(w) {
        return None;
    }
    Some(bar_for(wm, w.id, w.style, w.exstyle, w.rect.width()))
}

/// The top-level window a bar menu is attached to.
fn window_of_menu(wm: &Wm, menu: u32) -> Option<u32> {
    let mut v: Vec<u32> = wm
        .top
        .iter()
        .copied()
        .filter(|&h| wm.win(h).is_some_and(|w| has_bar(w) && w.id == menu))
        .collect();
    v.sort_unstable();
    v.first().copied()
}

// ---- Drawing ------------------------------------------------------------------------------

fn fill(r: &mut Raster, rc: Rect, c: u32) {
    let a = rc.intersect(&r.area());
    for y in a.top..a.bottom {
        r.span(y, a.left, a.right, |_, _| c);
    }
}

/// Draws a label's characters with their left edge at `x` and the cell's top at `top`.
fn draw_label(
    r: &mut Raster,
    f: &MenuFont,
    l: &[char],
    underline: Option<usize>,
    x: i32,
    top: i32,
    color: u32,
) {
    let mut xs = Vec::with_capacity(l.len());
    let mut cx = x;
    for &c in l {
        xs.push(cx);
        cx += text::advance(&f.fi, c);
    }
    text::draw_glyphs(r, &f.fi, l, &xs, top + f.fi.ascent, color, false);
    if let Some(u) = underline.filter(|&u| u < l.len()) {
        let uy = top + f.fi.ascent + 1;
        r.span(uy, xs[u], xs[u] + text::advance(&f.fi, l[u]), |_, _| color);
    }
}

/// Draws text the way a grayed item shows it when not highlighted: embossed, white
/// one pixel down and right under the gray.
fn draw_text_state(
    r: &mut Raster,
    f: &MenuFont,
    (l, underline): (&[char], Option<usize>),
    (x, top): (i32, i32),
    (grayed, hilite): (bool, bool),
    normal: u32,
) {
    if grayed {
        if !hilite {
            draw_label(
                r,
                f,
                l,
                underline,
                x + 1,
                top + 1,
                sys_color_rgb(COLOR_BTNHIGHLIGHT),
            );
        }
        draw_label(r, f, l, underline, x, top, sys_color_rgb(COLOR_GRAYTEXT));
    } else {
        draw_label(r, f, l, underline, x, top, normal);
    }
}

/// Paints the bars of the windows marked since the last frame.
pub fn paint_dirty_bars(wm: &mut Wm) {
    let dirty = std::mem::take(&mut wm.menubar_dirty);
    for h in dirty {
        paint_bar(wm, h);
    }
}

fn paint_bar(wm: &Wm, h: u32) {
    let Some(w) = wm.win(h) else { return };
    let Some(bar) = bar_of(wm, h) else { return };
    let Some(surface) = &w.surface else { return };
    let sel = wm
        .menu_track
        .as_ref()
        .filter(|t| t.owner == h && t.bar == bar.menu)
        .and_then(|t| t.bar_sel);
    let items: Vec<MenuItem> = wm
        .menus
        .get(&bar.menu)
        .map(|m| m.items.clone())
        .unwrap_or_default();
    let f = menu_font();
    let client = w.client;
    let exstyle = w.exstyle;
    let mut s = surface.lock().unwrap_or_else(|e| e.into_inner());
    // The client edge under the bar (the frame shows it between bar and client).
    let edge = Rect::new(bar.rect.left, bar.rect.bottom, bar.rect.right, client.top);
    with_surface(&mut s, wm::union(bar.rect, edge), |r| {
        fill(r, bar.rect, sys_color_rgb(COLOR_MENU));
        if !edge.is_empty() {
            let dark = if exstyle & wm::WS_EX_CLIENTEDGE != 0 {
                sys_color_rgb(COLOR_3DDKSHADOW)
            } else {
                sys_color_rgb(COLOR_BTNSHADOW)
            };
            fill(r, edge, dark);
            fill(
                r,
                Rect::new(edge.left, edge.top, edge.right, edge.top + 1),
                sys_color_rgb(COLOR_BTNSHADOW),
            );
        }
        for (i, (it, rc)) in items.iter().zip(&bar.items).enumerate() {
            if it.flags & MF_SEPARATOR != 0 || unsupported(it).is_some() {
                continue;
            }
            let hilite = sel == Some(i);
            if let Some(b) = super::mdi::bar_button(it) {
                super::mdi::draw_bar_button(r, b, *rc, hilite);
                continue;
            }
            if hilite {
                // BDR_SUNKENOUTER around the open item.
                let (sh, hi) = (
                    sys_color_rgb(COLOR_BTNSHADOW),
                    sys_color_rgb(COLOR_BTNHIGHLIGHT),
                );
                fill(r, Rect::new(rc.left, rc.top, rc.right, rc.top + 1), sh);
                fill(r, Rect::new(rc.left, rc.top, rc.left + 1, rc.bottom), sh);
                fill(
                    r,
                    Rect::new(rc.left, rc.bottom - 1, rc.right, rc.bottom),
                    hi,
                );
                fill(r, Rect::new(rc.right - 1, rc.top, rc.right, rc.bottom), hi);
            }
            let l = label(&it.text);
            let inner = Rect::new(rc.left + f.char_cx, rc.top, rc.right - f.char_cx, rc.bottom);
            let x = inner.left + (inner.width() - f.width(&l.chars)) / 2;
            let y = inner.top + (inner.height() - f.char_cy) / 2;
            let grayed = it.flags & MF_GRAYED != 0;
            draw_text_state(
                r,
                f,
                (&l.chars, l.underline),
                (x, y),
                (grayed, hilite),
                sys_color_rgb(COLOR_MENUTEXT),
            );
        }
    });
}

/// A pop-up menu's picture.
fn paint_popup(items: &[MenuItem], lay: &PopupLayout, sel: Option<usize>) -> Surface {
    let mut s = Surface::new(lay.width.max(0) as u32, lay.height.max(0) as u32);
    let f = menu_font();
    let (w, h) = (lay.width, lay.height);
    with_surface(&mut s, Rect::new(0, 0, w, h), |r| {
        fill(r, Rect::new(0, 0, w, h), sys_color_rgb(COLOR_MENU));
        // EDGE_RAISED.
        let c = sys_color_rgb;
        fill(r, Rect::new(0, 0, w, 1), c(COLOR_3DLIGHT));
        fill(r, Rect::new(0, 0, 1, h), c(COLOR_3DLIGHT));
        fill(r, Rect::new(1, 1, w - 1, 2), c(COLOR_BTNHIGHLIGHT));
        fill(r, Rect::new(1, 1, 2, h - 1), c(COLOR_BTNHIGHLIGHT));
        fill(r, Rect::new(1, h - 2, w - 1, h - 1), c(COLOR_BTNSHADOW));
        fill(r, Rect::new(w - 2, 1, w - 1, h - 1), c(COLOR_BTNSHADOW));
        fill(r, Rect::new(0, h - 1, w, h), c(COLOR_3DDKSHADOW));
        fill(r, Rect::new(w - 1, 0, w, h), c(COLOR_3DDKSHADOW));
        for (i, (it, rc)) in items.iter().zip(&lay.items).enumerate() {
            if it.flags & MF_SEPARATOR != 0 {
                // EDGE_ETCHED across the middle.
                let y = (rc.top + rc.bottom) / 2;
                fill(
                    r,
                    Rect::new(rc.left + 1, y, rc.right - 1, y + 1),
                    c(COLOR_BTNSHADOW),
                );
                fill(
                    r,
                    Rect::new(rc.left + 1, y + 1, rc.right - 1, y + 2),
                    c(COLOR_BTNHIGHLIGHT),
                );
                continue;
            }
            let hilite = sel == Some(i);
            let fg = if hilite {
                fill(r, *rc, c(COLOR_HIGHLIGHT));
                c(COLOR_HIGHLIGHTTEXT)
            } else {
                c(COLOR_MENUTEXT)
            };
            let grayed = it.flags & MF_GRAYED != 0;
            let mark = if grayed { c(COLOR_GRAYTEXT) } else { fg };
            if it.flags & MF_CHECKED != 0 {
                draw_check(
                    r,
                    Rect::new(rc.left, rc.top, rc.left + CHECK_W, rc.bottom),
                    mark,
                );
            }
            if it.flags & MF_POPUP != 0 {
                draw_arrow(
                    r,
                    Rect::new(rc.right - ARROW_W - 1, rc.top, rc.right - 1, rc.bottom),
                    mark,
                );
            }
            let l = label(&it.text);
            let x = rc.left + 4 + CHECK_W;
            let y = rc.top + (rc.height() - f.char_cy) / 2;
            draw_text_state(r, f, (&l.chars, l.underline), (x, y), (grayed, hilite), fg);
            if !l.accel.is_empty() {
                let at = (lay.tabs[i], y);
                draw_text_state(r, f, (&l.accel, None), at, (grayed, hilite), fg);
            }
        }
    });
    s
}

/// The classic 7x7 check mark, centred in `rc`.
fn draw_check(r: &mut Raster, rc: Rect, c: u32) {
    let (x0, y0) = (
        rc.left + (rc.width() - 7) / 2,
        rc.top + (rc.height() - 7) / 2,
    );
    // Rows of the mark from the top: the columns lit, three pixels thick.
    for (dx, top) in [(0, 2), (1, 3), (2, 4), (3, 3), (4, 2), (5, 1), (6, 0)] {
        for dy in 0..3 {
            r.put(x0 + dx, y0 + top + dy, c);
        }
    }
}

/// The submenu arrow: a right-pointing triangle 4 wide and 7 high, centred in `rc`.
fn draw_arrow(r: &mut Raster, rc: Rect, c: u32) {
    let (x0, ym) = (rc.left + (rc.width() - 4) / 2, (rc.top + rc.bottom) / 2);
    for dx in 0..4 {
        let half = 3 - dx;
        for y in ym - half..=ym + half {
            r.put(x0 + dx, y, c);
        }
    }
}

/// Draws the open pop-up menus into a frame whose top-left pixel is screen point
/// `origin`.
pub fn draw_open_popups(wm: &Wm, frame: &mut crate::display::Frame, origin: (i32, i32)) {
    let Some(t) = &wm.menu_track else { return };
    for p in &t.popups {
        let items = wm
            .menus
            .get(&p.menu)
            .map(|m| m.items.clone())
            .unwrap_or_default();
        let s = paint_popup(&items, &p.layout, p.sel);
        let (dx, dy) = (p.rect.left - origin.0, p.rect.top - origin.1);
        let (fw, fh) = (frame.width as i32, frame.height as i32);
        for y in 0..s.height as i32 {
            let ty = y + dy;
            if ty < 0 || ty >= fh {
                continue;
            }
            for x in 0..s.width as i32 {
                let tx = x + dx;
                if tx >= 0 && tx < fw {
                    frame.pixels[(ty * fw + tx) as usize] =
                        s.pixels[(y * s.width as i32 + x) as usize];
                }
            }
        }
    }
}

// ---- Tracking state ---------------------------------------------------------------------------

/// The menu being tracked (one per process: Windows tracks one per desktop).
#[derive(Clone, Debug)]
pub struct Track {
    pub owner: u32,
    /// The bar menu (0 for TrackPopupMenu).
    pub bar: u32,
    pub bar_sel: Option<usize>,
    /// Open pop-ups, outermost first: each is the submenu of the previous one's
    /// selected item (the first one: of the bar's, or TrackPopupMenu's menu).
    pub popups: Vec<OpenPopup>,
    pub flags: u32,
    /// The button went up on the bar once (a second click on the open item closes).
    btn_up: bool,
    /// EndMenu asked the loop to stop.
    pub cancel: bool,
}

#[derive(Clone, Debug)]
pub struct OpenPopup {
    pub menu: u32,
    /// Screen rectangle.
    pub rect: Rect,
    pub layout: PopupLayout,
    pub sel: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Bar,
    Popup(usize),
}

fn with_track<R>(cx: &Ctx, f: impl FnOnce(&mut Track) -> R) -> Option<R> {
    lock_wm(cx.proc).menu_track.as_mut().map(f)
}

fn track_copy(cx: &Ctx) -> Option<Track> {
    lock_wm(cx.proc).menu_track.clone()
}

fn menu_at(t: &Track, l: Level) -> u32 {
    match l {
        Level::Bar => t.bar,
        Level::Popup(k) => t.popups.get(k).map_or(0, |p| p.menu),
    }
}

fn sel_at(t: &Track, l: Level) -> Option<usize> {
    match l {
        Level::Bar => t.bar_sel,
        Level::Popup(k) => t.popups.get(k).and_then(|p| p.sel),
    }
}

/// The innermost open menu (where the keyboard acts).
fn current(t: &Track) -> Level {
    if t.popups.is_empty() {
        Level::Bar
    } else {
        Level::Popup(t.popups.len() - 1)
    }
}

fn item(cx: &Ctx, menu: u32, i: usize) -> Option<MenuItem> {
    lock_wm(cx.proc)
        .menus
        .get(&menu)
        .and_then(|m| m.items.get(i).cloned())
}

fn is_sysmenu(cx: &Ctx, menu: u32) -> bool {
    lock_wm(cx.proc)
        .menus
        .get(&menu)
        .and_then(|m| m.items.first())
        .is_some_and(|i| i.text.starts_with("sysmenu:"))
}

/// What screen point `p` is over: a menu level and the item there, if any.
fn hit(wm: &Wm, t: &Track, p: (i32, i32)) -> Option<(Level, Option<usize>)> {
    for (k, pp) in t.popups.iter().enumerate().rev() {
        if pp.rect.contains(p.0, p.1) {
            let (x, y) = (p.0 - pp.rect.left, p.1 - pp.rect.top);
            return Some((
                Level::Popup(k),
                pp.layout.items.iter().position(|r| r.contains(x, y)),
            ));
        }
    }
    if t.bar != 0 {
        let bar = bar_of(wm, t.owner)?;
        let (ox, oy) = wm.window_origin(t.owner);
        let (x, y) = (p.0 - ox, p.1 - oy);
        if bar.rect.contains(x, y) {
            return Some((Level::Bar, bar.items.iter().position(|r| r.contains(x, y))));
        }
    }
    None
}

/// Closes the pop-ups opened from level `l`'s selection, innermost first.
fn close_from(cx: &mut Ctx, l: Level) -> UR<()> {
    let keep = match l {
        Level::Bar => 0,
        Level::Popup(k) => k + 1,
    };
    loop {
        let Some((menu, owner, flags)) = with_track(cx, |t| {
            if t.popups.len() > keep {
                t.popups.pop().map(|p| (p.menu, t.owner, t.flags))
            } else {
                None
            }
        })
        .flatten() else {
            return Ok(());
        };
        if flags & TPM_NONOTIFY == 0 {
            send(cx, owner, WM_UNINITMENUPOPUP, menu, 0, true)?;
        }
    }
}

/// Selects item `idx` of level `l` (none: clears it) and tells the owner
/// (WM_MENUSELECT with the item's id, or its position for a submenu).
fn select(cx: &mut Ctx, l: Level, idx: Option<usize>) -> UR<()> {
    let Some((owner, menu)) = with_track(cx, |t| {
        match l {
            Level::Bar => t.bar_sel = idx,
            Level::Popup(k) => {
                if let Some(p) = t.popups.get_mut(k) {
                    p.sel = idx;
                }
            }
        }
        (t.owner, menu_at(t, l))
    }) else {
        return Ok(());
    };
    if l == Level::Bar {
        lock_wm(cx.proc).menubar_dirty.insert(owner);
    }
    if let Some(i) = idx
        && let Some(it) = item(cx, menu, i)
    {
        let id = if it.flags & MF_POPUP != 0 {
            i as u32
        } else {
            it.id
        };
        let flags = (it.flags | MF_HILITE) & 0xffff;
        send(
            cx,
            owner,
            WM_MENUSELECT,
            (id & 0xffff) | (flags << 16),
            menu,
            true,
        )?;
    }
    Ok(())
}

/// Where a pop-up may go: the screen, as on Windows, narrowed to what the frame
/// shows of the owner (its menu bar and client area). Windows lets a menu hang out
/// of its window onto the desktop, but winterp's picture is the window, so a menu
/// placed there would be cut off; it is moved inside instead, where it fits.
fn popup_area(cx: &Ctx, owner: u32) -> Rect {
    let m = cx.proc.display.mode();
    let screen = Rect::new(0, 0, m.width as i32, m.height as i32);
    let wm = lock_wm(cx.proc);
    let fr = super::present::frame_rect(&wm, owner);
    let (ox, oy) = wm.window_origin(owner);
    let shown = fr.offset(ox, oy).intersect(&screen);
    if shown.is_empty() { screen } else { shown }
}

/// Where a pop-up of `w` x `h` goes when asked for (x, y): moved back into `area`, to
/// the other side of the anchor (the item it drops from) if that fits; a pop-up
/// larger than the area keeps its top-left corner inside.
fn fit_in(
    area: Rect,
    (mut x, mut y): (i32, i32),
    (w, h): (i32, i32),
    (xa, ya): (i32, i32),
) -> (i32, i32) {
    if x + w > area.right {
        if xa != 0 && x - (w - xa) >= area.left {
            x -= w - xa;
        }
        if x + w > area.right {
            x = area.right - w;
        }
    }
    x = x.max(area.left);
    if y + h > area.bottom {
        if ya != 0 && y - (h + ya) >= area.top {
            y -= h + ya;
        }
        if y + h > area.bottom {
            y = area.bottom - h;
        }
    }
    (x, y.max(area.top))
}

/// Opens the submenu of level `l`'s selected item (WM_INITMENUPOPUP first), and
/// selects its first item if `select_first`.
fn open_sub(cx: &mut Ctx, l: Level, select_first: bool) -> UR<()> {
    let Some(t) = track_copy(cx) else {
        return Ok(());
    };
    let Some(i) = sel_at(&t, l) else {
        return Ok(());
    };
    let menu = menu_at(&t, l);
    let Some(it) = item(cx, menu, i) else {
        return Ok(());
    };
    if it.flags & MF_POPUP == 0 || it.flags & (MF_GRAYED | MF_DISABLED) != 0 {
        return Ok(());
    }
    let already = match l {
        Level::Bar => !t.popups.is_empty(),
        Level::Popup(k) => t.popups.len() > k + 1,
    };
    if already {
        return Ok(());
    }
    if t.flags & TPM_NONOTIFY == 0 {
        let sys = is_sysmenu(cx, menu) as u32;
        send(
            cx,
            t.owner,
            WM_INITMENUPOPUP,
            it.submenu,
            (i as u32 & 0xffff) | (sys << 16),
            true,
        )?;
    }
    // The program may have changed the submenu (or the item) in WM_INITMENUPOPUP.
    let Some(it) = item(cx, menu, i) else {
        return Ok(());
    };
    let Some(items) = lock_wm(cx.proc)
        .menus
        .get(&it.submenu)
        .map(|m| m.items.clone())
    else {
        return Ok(());
    };
    if let Some(what) = items.iter().find_map(unsupported) {
        return Err(Flow::Err(ApiError::UnimplementedCase(format!(
            "opening a pop-up menu with a {what}"
        ))));
    }
    let lay = layout_popup(menu_font(), &items);
    let size = (lay.width, lay.height);
    let (pos, anchor) = {
        let wm = lock_wm(cx.proc);
        match l {
            Level::Bar => {
                let Some(bar) = bar_of(&wm, t.owner) else {
                    return Ok(());
                };
                let Some(r) = bar.items.get(i) else {
                    return Ok(());
                };
                let (ox, oy) = wm.window_origin(t.owner);
                ((ox + r.left, oy + r.bottom), (r.width(), r.height()))
            }
            Level::Popup(k) => {
                let p = &t.popups[k];
                let r = p.layout.items[i];
                // Beside the item, its first row level with it.
                (
                    (p.rect.left + r.right - 1, p.rect.top + r.top - MENU_MARGIN),
                    (r.left - r.right + 1, r.top - r.bottom - 2 * MENU_MARGIN),
                )
            }
        }
    };
    let (x, y) = fit_in(popup_area(cx, t.owner), pos, size, anchor);
    let open = OpenPopup {
        menu: it.submenu,
        rect: Rect::new(x, y, x + size.0, y + size.1),
        layout: lay,
        sel: None,
    };
    with_track(cx, |t| t.popups.push(open));
    if select_first {
        let k = track_copy(cx).map_or(0, |t| t.popups.len() - 1);
        move_selection(cx, Level::Popup(k), 1)?;
    }
    Ok(())
}

/// Moves level `l`'s selection by one item forwards or backwards (wrapping, over
/// separators).
fn move_selection(cx: &mut Ctx, l: Level, dir: i32) -> UR<()> {
    let Some(t) = track_copy(cx) else {
        return Ok(());
    };
    let menu = menu_at(&t, l);
    let Some(items) = lock_wm(cx.proc).menus.get(&menu).map(|m| m.items.clone()) else {
        return Ok(());
    };
    let n = items.len() as i32;
    if n == 0 {
        return Ok(());
    }
    let start = match sel_at(&t, l) {
        Some(s) => s as i32 + dir,
        None if dir > 0 => 0,
        None => n - 1,
    };
    for k in 0..n {
        let i = (start + dir * k).rem_euclid(n) as usize;
        if items[i].flags & MF_SEPARATOR == 0 {
            if Some(i) != sel_at(&t, l) {
                close_from(cx, l)?;
                select(cx, l, Some(i))?;
            }
            return Ok(());
        }
    }
    Ok(())
}

/// Carries out level `l`'s selected item: opens a submenu (-2), does nothing for a
/// grayed item or none (-1), or sends the command (WM_COMMAND, WM_SYSCOMMAND for the
/// system menu; nothing with TPM_RETURNCMD) and returns its id.
fn exec(cx: &mut Ctx, l: Level, pt: (i32, i32)) -> UR<i64> {
    let Some(t) = track_copy(cx) else {
        return Ok(-1);
    };
    let Some(i) = sel_at(&t, l) else {
        return Ok(-1);
    };
    let menu = menu_at(&t, l);
    let Some(it) = item(cx, menu, i) else {
        return Ok(-1);
    };
    if it.flags & MF_POPUP != 0 {
        open_sub(cx, l, true)?;
        return Ok(-2);
    }
    if it.flags & (MF_GRAYED | MF_DISABLED | MF_SEPARATOR) != 0 {
        return Ok(-1);
    }
    if t.flags & TPM_RETURNCMD == 0 {
        if is_sysmenu(cx, menu) {
            let lp = (pt.0 as u16 as u32) | ((pt.1 as u16 as u32) << 16);
            post(cx, t.owner, WM_SYSCOMMAND, it.id, lp);
        } else {
            post(cx, t.owner, WM_COMMAND, it.id, 0);
        }
    }
    Ok(it.id as i64)
}

/// A button press at `h`; false ends tracking (a press outside the menus).
fn button_down(cx: &mut Ctx, h: Option<(Level, Option<usize>)>) -> UR<bool> {
    let Some((l, idx)) = h else { return Ok(false) };
    if let Some(i) = idx {
        let t = track_copy(cx).expect("tracking");
        if sel_at(&t, l) != Some(i) {
            close_from(cx, l)?;
            select(cx, l, Some(i))?;
        }
        open_sub(cx, l, false)?;
        return Ok(true);
    }
    // A press on a pop-up's border keeps it open; on the bar beside the items, not.
    Ok(matches!(l, Level::Popup(_)))
}

/// A button release at (l, idx): the command chosen (>= 0), 0 to close the menu,
/// or -1 to go on.
fn button_up(cx: &mut Ctx, l: Level, idx: Option<usize>, pt: (i32, i32)) -> UR<i64> {
    let t = track_copy(cx).expect("tracking");
    if let Some(i) = idx
        && sel_at(&t, l) == Some(i)
    {
        let menu = menu_at(&t, l);
        let popup = item(cx, menu, i).is_some_and(|it| it.flags & MF_POPUP != 0);
        if !popup {
            let r = exec(cx, l, pt)?;
            return Ok(if r < 0 { -1 } else { r });
        }
        if l == Level::Bar && t.btn_up {
            return Ok(0);
        }
    }
    if l == Level::Bar {
        if idx.is_none() {
            return Ok(0);
        }
        with_track(cx, |t| t.btn_up = true);
    }
    Ok(-1)
}

fn mouse_move(cx: &mut Ctx, h: Option<(Level, Option<usize>)>) -> UR<()> {
    match h {
        Some((l, Some(i))) => {
            let t = track_copy(cx).expect("tracking");
            if sel_at(&t, l) != Some(i) {
                close_from(cx, l)?;
                select(cx, l, Some(i))?;
                open_sub(cx, l, false)?;
            }
        }
        _ => {
            // Off the items: the innermost menu loses its selection (it stays open).
            let t = track_copy(cx).expect("tracking");
            let cur = current(&t);
            if sel_at(&t, cur).is_some() {
                select(cx, cur, None)?;
            }
        }
    }
    Ok(())
}

/// The item of menu level `l` whose mnemonic is key `vk` (a letter or digit).
fn mnemonic(cx: &Ctx, menu: u32, vk: u32) -> Option<usize> {
    let c = char::from_u32(vk)?.to_ascii_uppercase();
    let wm = lock_wm(cx.proc);
    wm.menus.get(&menu)?.items.iter().position(|it| {
        let l = label(&it.text);
        l.underline
            .and_then(|u| l.chars.get(u))
            .is_some_and(|ch| ch.to_ascii_uppercase() == c)
    })
}

/// A key press in menu mode; `Some(r)` ends tracking with result `r`.
fn key(cx: &mut Ctx, vk: u32, pt: (i32, i32)) -> UR<Option<i64>> {
    let t = track_copy(cx).expect("tracking");
    let cur = current(&t);
    match vk {
        VK_MENU | VK_F10 => return Ok(Some(-1)),
        VK_ESCAPE => {
            // Closes the innermost pop-up, or ends tracking at the top menu.
            let top_popup = t.bar == 0;
            match cur {
                Level::Popup(k) if !(top_popup && k == 0) => {
                    let parent = if k == 0 {
                        Level::Bar
                    } else {
                        Level::Popup(k - 1)
                    };
                    close_from(cx, parent)?;
                }
                _ => return Ok(Some(-1)),
            }
        }
        VK_UP | VK_DOWN => {
            if cur == Level::Bar {
                open_sub(cx, Level::Bar, true)?;
            } else {
                move_selection(cx, cur, if vk == VK_UP { -1 } else { 1 })?;
            }
        }
        VK_HOME | VK_END => {
            select(cx, cur, None)?;
            move_selection(cx, cur, if vk == VK_HOME { 1 } else { -1 })?;
        }
        VK_LEFT => match cur {
            Level::Popup(k) if k >= 1 => {
                close_from(cx, Level::Popup(k - 1))?;
            }
            _ if t.bar != 0 => {
                let reopen = !t.popups.is_empty();
                close_from(cx, Level::Bar)?;
                move_selection(cx, Level::Bar, -1)?;
                if reopen {
                    open_sub(cx, Level::Bar, true)?;
                }
            }
            _ => {}
        },
        VK_RIGHT => {
            let sub = sel_at(&t, cur)
                .and_then(|i| item(cx, menu_at(&t, cur), i))
                .is_some_and(|it| it.flags & MF_POPUP != 0);
            if cur != Level::Bar && sub {
                open_sub(cx, cur, true)?;
            } else if t.bar != 0 {
                let reopen = !t.popups.is_empty();
                close_from(cx, Level::Bar)?;
                move_selection(cx, Level::Bar, 1)?;
                if reopen {
                    open_sub(cx, Level::Bar, true)?;
                }
            }
        }
        VK_RETURN => {
            let r = exec(cx, cur, pt)?;
            if r != -2 {
                return Ok(Some(r));
            }
        }
        _ => {
            if let Some(i) = mnemonic(cx, menu_at(&t, cur), vk) {
                if sel_at(&t, cur) != Some(i) {
                    close_from(cx, cur)?;
                    select(cx, cur, Some(i))?;
                }
                let r = exec(cx, cur, pt)?;
                if r != -2 {
                    return Ok(Some(r));
                }
            }
        }
    }
    Ok(None)
}

/// The modal loop: reads the thread's messages until a command is chosen or the
/// menu is dismissed; messages other than mouse and keyboard input are dispatched
/// as usual. Returns the command chosen, or -1.
fn run(cx: &mut Ctx) -> UR<i64> {
    let popup_mode = track_copy(cx).is_some_and(|t| t.bar == 0);
    loop {
        let Some(t) = track_copy(cx) else {
            return Ok(-1);
        };
        if t.cancel || lock_wm(cx.proc).win(t.owner).is_none() {
            return Ok(-1);
        }
        let Some(m) = get_msg(cx, 0, 0, 0, true, Wait::Host)? else {
            continue;
        };
        let mouse = (WM_MOUSEMOVE..=WM_MBUTTONDBLCLK).contains(&m.message);
        // Non-client mouse messages queued before tracking took the capture count as
        // their client twins (their lParam is the screen point).
        let nc = (WM_NCMOUSEMOVE..=0x00a9).contains(&m.message);
        if mouse || nc {
            let (msg, p) = if nc {
                (
                    m.message - WM_NCMOUSEMOVE + WM_MOUSEMOVE,
                    (
                        (m.lparam & 0xffff) as i16 as i32,
                        (m.lparam >> 16) as i16 as i32,
                    ),
                )
            } else {
                (m.message, m.pt)
            };
            let h = {
                let wm = lock_wm(cx.proc);
                hit(&wm, &t, p)
            };
            // The right button acts only with TPM_RIGHTBUTTON.
            let right = t.flags & TPM_RIGHTBUTTON != 0;
            let press = matches!(msg, WM_LBUTTONDOWN | WM_LBUTTONDBLCLK)
                || (right && matches!(msg, WM_RBUTTONDOWN | WM_RBUTTONDBLCLK));
            let release = msg == WM_LBUTTONUP || (right && msg == WM_RBUTTONUP);
            if press {
                if !button_down(cx, h)? {
                    return Ok(-1);
                }
            } else if release {
                if let Some(r) = up(cx, h, p, popup_mode)? {
                    return Ok(r);
                }
            } else if msg == WM_MOUSEMOVE {
                mouse_move(cx, h)?;
            }
            continue;
        }
        match m.message {
            WM_QUIT => {
                // Ends the menu and leaves WM_QUIT for the program's own loop.
                PostQuitMessage(cx, m.wparam);
                return Ok(-1);
            }
            WM_KEYDOWN | WM_SYSKEYDOWN => {
                if let Some(r) = key(cx, m.wparam, m.pt)? {
                    return Ok(r);
                }
            }
            // Other keyboard messages belong to menu mode too.
            WM_KEYDOWN..=0x0109 => {}
            _ => {
                dispatch(cx, &m, true)?;
            }
        }
    }
}

fn up(
    cx: &mut Ctx,
    h: Option<(Level, Option<usize>)>,
    p: (i32, i32),
    popup_mode: bool,
) -> UR<Option<i64>> {
    match h {
        Some((l, idx)) => {
            let r = button_up(cx, l, idx, p)?;
            Ok((r != -1).then_some(r))
        }
        // Released outside: a bar's menu closes, TrackPopupMenu's stays.
        None => Ok((!popup_mode).then_some(-1)),
    }
}

/// Starts tracking: WM_ENTERMENULOOP, WM_SETCURSOR and WM_INITMENU as Windows sends
/// them, then the capture (mouse input goes to the owner until the menu closes).
fn begin(cx: &mut Ctx, owner: u32, menu: u32, bar: bool, flags: u32) -> UR<()> {
    if flags & TPM_NONOTIFY == 0 {
        send(cx, owner, WM_ENTERMENULOOP, (!bar) as u32, 0, true)?;
    }
    send(cx, owner, WM_SETCURSOR, owner, HTCAPTION, true)?;
    if flags & TPM_NONOTIFY == 0 {
        send(cx, owner, WM_INITMENU, menu, 0, true)?;
    }
    let mut wm = lock_wm(cx.proc);
    wm.menu_track = Some(Track {
        owner,
        bar: if bar { menu } else { 0 },
        bar_sel: None,
        popups: Vec::new(),
        flags,
        btn_up: false,
        cancel: false,
    });
    Ok(())
}

fn take_capture(cx: &mut Ctx, owner: u32) -> UR<()> {
    let prev = std::mem::replace(&mut lock_wm(cx.proc).capture, owner);
    if prev != 0 {
        send(cx, prev, WM_CAPTURECHANGED, 0, owner, true)?;
    }
    Ok(())
}

/// Ends tracking: releases the capture, closes what is open (WM_UNINITMENUPOPUP),
/// then WM_MENUSELECT with no menu and WM_EXITMENULOOP.
fn end(cx: &mut Ctx, bar: bool) -> UR<()> {
    let Some(t) = track_copy(cx) else {
        return Ok(());
    };
    let had = {
        let mut wm = lock_wm(cx.proc);
        let had = wm.capture == t.owner;
        if had {
            wm.capture = 0;
        }
        had
    };
    // Tracking a pop-up, Windows captures the mouse for the pop-up's window, which
    // is what hears of losing it.
    if had && bar {
        send(cx, t.owner, WM_CAPTURECHANGED, 0, 0, true)?;
    }
    if lock_wm(cx.proc).win(t.owner).is_some() {
        close_from(cx, Level::Bar)?;
        with_track(cx, |t| t.bar_sel = None);
        lock_wm(cx.proc).menubar_dirty.insert(t.owner);
        send(cx, t.owner, WM_MENUSELECT, 0xffff_0000, 0, true)?;
        lock_wm(cx.proc).menu_track = None;
        send(cx, t.owner, WM_EXITMENULOOP, (!bar) as u32, 0, true)?;
    }
    lock_wm(cx.proc).menu_track = None;
    Ok(())
}

/// DefWindowProc's WM_SYSCOMMAND SC_MOUSEMENU: a press on the menu bar at screen
/// point `pt` opens the item there and tracks the menu until it closes.
pub fn track_bar(cx: &mut Ctx, hwnd: u32, pt: (i32, i32)) -> UR<()> {
    let (menu, bar) = {
        let wm = lock_wm(cx.proc);
        if wm.menu_track.is_some() {
            return Ok(());
        }
        let Some(w) = wm.win(hwnd) else { return Ok(()) };
        if !has_bar(w) || !wm.menus.contains_key(&w.id) {
            return Ok(());
        }
        (w.id, bar_of(&wm, hwnd))
    };
    if let Some(what) = bar.and_then(|b| b.unsupported) {
        return Err(Flow::Err(ApiError::UnimplementedCase(format!(
            "tracking a menu bar with a {what}"
        ))));
    }
    begin(cx, hwnd, menu, true, 0)?;
    let r = (|| -> UR<()> {
        // The press that started it (TPM_BUTTONDOWN).
        let h = {
            let wm = lock_wm(cx.proc);
            wm.menu_track.as_ref().and_then(|t| hit(&wm, t, pt))
        };
        let go_on = button_down(cx, h)?;
        take_capture(cx, hwnd)?;
        if go_on {
            run(cx)?;
        }
        Ok(())
    })();
    let e = end(cx, true);
    r?;
    e
}

// ---- API -----------------------------------------------------------------------------------------

fn set_error(cx: &mut Ctx, e: u32) -> ApiResult<()> {
    crate::teb::set_last_error(cx, e)
}

fn put_rect(cx: &Ctx, p: u32, r: Rect) -> ApiResult<()> {
    let m = &cx.proc.mem;
    m.write_u32(p, r.left as u32)?;
    m.write_u32(p + 4, r.top as u32)?;
    m.write_u32(p + 8, r.right as u32)?;
    m.write_u32(p + 12, r.bottom as u32)?;
    Ok(())
}

/// Where item `pos` of menu `menu` is on the screen: `Ok(None)` where
/// GetMenuItemRect fails.
fn item_rect(wm: &Wm, hwnd: u32, menu: u32, pos: u32) -> Result<Option<Rect>, String> {
    let Some(m) = wm.menus.get(&menu) else {
        return Ok(None);
    };
    if pos as usize >= m.items.len() {
        return Ok(None);
    }
    let pos = pos as usize;
    // An open pop-up: where its item is shown.
    if let Some(t) = &wm.menu_track
        && let Some(p) = t.popups.iter().find(|p| p.menu == menu)
    {
        return Ok(Some(p.layout.items[pos].offset(p.rect.left, p.rect.top)));
    }
    if m.popup {
        // Not shown, so not laid out: an empty rectangle at the client area's
        // top-left corner of the window named (Windows' test_GetMenuItemRect).
        if hwnd == 0 || wm.win(hwnd).is_none() {
            return Ok(None);
        }
        let (x, y) = wm.client_origin(hwnd);
        return Ok(Some(Rect::new(x, y, x, y)));
    }
    let owner = window_of_menu(wm, menu);
    let hwnd = if hwnd == 0 { owner.unwrap_or(0) } else { hwnd };
    if wm.win(hwnd).is_none() {
        return Ok(None);
    }
    let (ox, oy) = wm.window_origin(hwnd);
    let Some(owner) = owner else {
        // A bar menu no window shows has never been laid out.
        return Ok(Some(Rect::new(ox, oy, ox, oy)));
    };
    let bar = bar_of(wm, owner).expect("the window shows the menu");
    if let Some(what) = bar.unsupported {
        return Err(what.to_string());
    }
    Ok(Some(bar.items[pos].offset(ox, oy)))
}

pub fn GetMenuItemRect(
    cx: &mut Ctx,
    hWnd: u32,
    hMenu: u32,
    uItem: u32,
    lprcItem: Ptr,
) -> ApiResult<bool> {
    if lprcItem.is_null() {
        return Ok(false);
    }
    let r = item_rect(&lock_wm(cx.proc), hWnd, hMenu, uItem).map_err(|what| {
        ApiError::UnimplementedCase(format!("GetMenuItemRect of a bar with a {what}"))
    })?;
    match r {
        Some(r) => {
            put_rect(cx, lprcItem.0, r)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

const OBJID_SYSMENU: i32 = -1;
const OBJID_MENU: i32 = -3;
const OBJID_CLIENT: i32 = -4;

pub fn GetMenuBarInfo(
    cx: &mut Ctx,
    hwnd: u32,
    idObject: i32,
    idItem: i32,
    pmbi: Ptr,
) -> ApiResult<bool> {
    let menu = match idObject {
        OBJID_MENU => super::res::GetMenu(cx, hwnd),
        OBJID_SYSMENU => {
            return Err(ApiError::UnimplementedCase(
                "GetMenuBarInfo of the system menu (OBJID_SYSMENU)".into(),
            ));
        }
        OBJID_CLIENT => {
            // Pop-up menus are not windows here, so no window is a menu window.
            set_error(cx, ERROR_INVALID_MENU_HANDLE)?;
            return Ok(false);
        }
        _ => return Ok(false),
    };
    if menu == 0 {
        return Ok(false);
    }
    if cx.proc.mem.read_u32(pmbi.0)? != 32 {
        set_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let wm = lock_wm(cx.proc);
    let Some(m) = wm.menus.get(&menu) else {
        return Ok(false);
    };
    let n = m.items.len() as i32;
    if idItem < 0 || idItem > n {
        return Ok(false);
    }
    let bar = bar_of(&wm, hwnd).expect("GetMenu found the window's menu");
    if let Some(what) = bar.unsupported {
        return Err(ApiError::UnimplementedCase(format!(
            "GetMenuBarInfo of a bar with a {what}"
        )));
    }
    let (ox, oy) = wm.window_origin(hwnd);
    let rc = if n == 0 {
        // A bar without items is never laid out.
        Rect::default()
    } else if idItem == 0 {
        let first = bar.items[0];
        Rect::new(
            ox + first.left,
            oy + first.top,
            ox + first.left + bar.rect.width(),
            oy + first.top + bar.rect.height(),
        )
    } else {
        bar.items[(idItem - 1) as usize].offset(ox, oy)
    };
    let t = wm
        .menu_track
        .as_ref()
        .filter(|t| t.owner == hwnd && t.bar == menu);
    let bar_focused = t.is_some();
    let focused = if idItem == 0 {
        bar_focused
    } else {
        t.is_some_and(|t| t.bar_sel == Some((idItem - 1) as usize))
    };
    drop(wm);
    put_rect(cx, pmbi.0 + 4, rc)?;
    cx.proc.mem.write_u32(pmbi.0 + 20, menu)?;
    cx.proc.mem.write_u32(pmbi.0 + 24, 0)?;
    cx.proc
        .mem
        .write_u32(pmbi.0 + 28, bar_focused as u32 | (focused as u32) << 1)?;
    Ok(true)
}

pub fn MenuItemFromPoint(cx: &mut Ctx, hWnd: u32, hMenu: u32, x: i32, y: i32) -> ApiResult<i32> {
    let wm = lock_wm(cx.proc);
    if let Some(t) = &wm.menu_track
        && let Some(p) = t.popups.iter().find(|p| p.menu == hMenu)
    {
        let (px, py) = (x - p.rect.left, y - p.rect.top);
        return Ok(p
            .layout
            .items
            .iter()
            .position(|r| r.contains(px, py))
            .map_or(-1, |i| i as i32));
    }
    let Some(owner) = window_of_menu(&wm, hMenu) else {
        let _ = hWnd;
        return Ok(-1);
    };
    let bar = bar_of(&wm, owner).expect("the window shows the menu");
    if let Some(what) = bar.unsupported {
        return Err(ApiError::UnimplementedCase(format!(
            "MenuItemFromPoint on a bar with a {what}"
        )));
    }
    let (ox, oy) = wm.window_origin(owner);
    Ok(bar
        .items
        .iter()
        .position(|r| r.contains(x - ox, y - oy))
        .map_or(-1, |i| i as i32))
}

/// DrawMenuBar's work: the bar is laid out again (its height may change, and the
/// client area with it) and repainted.
pub fn refresh_bar(cx: &mut Ctx, hwnd: u32) -> UR<bool> {
    let (old, new) = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            return Ok(false);
        };
        if !has_bar(w) {
            return Ok(true);
        }
        let old = (w.client.width(), w.client.height());
        wm.recalc_client(hwnd);
        wm.menubar_dirty.insert(hwnd);
        let new = wm.client_size(hwnd);
        if old != new {
            wm.invalidate(hwnd, None, true);
        }
        (old, new)
    };
    if old != new {
        let lp = (new.0 as u16 as u32) | ((new.1 as u16 as u32) << 16);
        send(cx, hwnd, super::msg::WM_SIZE, 0, lp, true)?;
    }
    Ok(true)
}

pub fn DrawMenuBar(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    fin(refresh_bar(cx, hWnd))
}

fn track_popup(cx: &mut Ctx, menu: u32, flags: u32, x: i32, y: i32, hwnd: u32) -> UR<u32> {
    let items = {
        let wm = lock_wm(cx.proc);
        let Some(m) = wm.menus.get(&menu) else {
            drop(wm);
            set_error(cx, ERROR_INVALID_MENU_HANDLE)?;
            return Ok(0);
        };
        if wm.menu_track.is_some() {
            drop(wm);
            set_error(cx, ERROR_POPUP_ALREADY_ACTIVE)?;
            return Ok(0);
        }
        if wm.win(hwnd).is_none() {
            drop(wm);
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            return Ok(0);
        }
        m.items.clone()
    };
    if let Some(what) = items.iter().find_map(unsupported) {
        return Err(Flow::Err(ApiError::UnimplementedCase(format!(
            "TrackPopupMenu of a menu with a {what}"
        ))));
    }
    begin(cx, hwnd, menu, false, flags)?;
    let r = (|| -> UR<i64> {
        if flags & TPM_NONOTIFY == 0 {
            send(cx, hwnd, WM_INITMENUPOPUP, menu, 0, true)?;
        }
        let items = lock_wm(cx.proc)
            .menus
            .get(&menu)
            .map(|m| m.items.clone())
            .unwrap_or_default();
        let lay = layout_popup(menu_font(), &items);
        let (w, h) = (lay.width, lay.height);
        let mut x = x;
        let mut y = y;
        if flags & TPM_RIGHTALIGN != 0 {
            x -= w;
        } else if flags & TPM_CENTERALIGN != 0 {
            x -= w / 2;
        }
        if flags & TPM_BOTTOMALIGN != 0 {
            y -= h;
        } else if flags & TPM_VCENTERALIGN != 0 {
            y -= h / 2;
        }
        let (x, y) = fit_in(popup_area(cx, hwnd), (x, y), (w, h), (0, 0));
        with_track(cx, |t| {
            t.popups.push(OpenPopup {
                menu,
                rect: Rect::new(x, y, x + w, y + h),
                layout: lay,
                sel: None,
            })
        });
        take_capture(cx, hwnd)?;
        if items.is_empty() {
            return Ok(-3);
        }
        run(cx)
    })();
    let e = end(cx, false);
    let r = r?;
    e?;
    Ok(match r {
        -3 => 0,
        _ if flags & TPM_RETURNCMD != 0 => r.max(0) as u32,
        _ => 1,
    })
}

#[allow(clippy::too_many_arguments)]
pub fn TrackPopupMenu(
    cx: &mut Ctx,
    hMenu: u32,
    uFlags: u32,
    x: i32,
    y: i32,
    _nReserved: i32,
    hWnd: u32,
    _prcRect: Ptr,
) -> ApiResult<Outcome> {
    fin(track_popup(cx, hMenu, uFlags, x, y, hWnd))
}

pub fn TrackPopupMenuEx(
    cx: &mut Ctx,
    hMenu: u32,
    uFlags: u32,
    x: i32,
    y: i32,
    hwnd: u32,
    _lptpm: Ptr,
) -> ApiResult<Outcome> {
    fin(track_popup(cx, hMenu, uFlags, x, y, hwnd))
}

/// Ends the menu being tracked (the loop sees it at its next message).
pub fn EndMenu(cx: &mut Ctx) -> bool {
    let mut wm = lock_wm(cx.proc);
    let Some(t) = wm.menu_track.as_mut() else {
        return true;
    };
    t.cancel = true;
    let owner = t.owner;
    if let Some(tid) = wm.win(owner).map(|w| w.tid) {
        let q = wm.queue(tid);
        drop(wm);
        wm::wake_queue(cx.proc, &q);
    }
    true
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetMenuItemRect", GetMenuItemRect),
        stdcall("GetMenuBarInfo", GetMenuBarInfo),
        stdcall("MenuItemFromPoint", MenuItemFromPoint),
        stdcall("DrawMenuBar", DrawMenuBar),
        stdcall("TrackPopupMenu", TrackPopupMenu),
        stdcall("TrackPopupMenuEx", TrackPopupMenuEx),
        stdcall("EndMenu", EndMenu),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str, flags: u32) -> MenuItem {
        MenuItem {
            id: 1,
            flags,
            text: text.into(),
            submenu: 0,
            data: 0,
        }
    }

    #[test]
    fn labels_resolve_prefixes_and_tabs() {
        let l = label("&Game");
        assert_eq!(l.chars, "Game".chars().collect::<Vec<_>>());
        assert_eq!(l.underline, Some(0));
        let l = label("Save && E&xit\tCtrl+X");
        assert_eq!(l.chars.iter().collect::<String>(), "Save & Exit");
        assert_eq!(l.underline, Some(8));
        assert_eq!(l.accel.iter().collect::<String>(), "Ctrl+X");
        assert_eq!(label("a&").chars, vec!['a']);
    }

    #[test]
    fn bar_items_are_text_plus_two_average_characters() {
        let f = menu_font();
        // The average character of 8-point Liberation Sans (MS Shell Dlg's stand-in):
        // (the 52 letters' width / 26 + 1) / 2.
        let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
        assert_eq!(f.char_cx, (f.width(&letters) / 26 + 1) / 2);
        assert!((4..=7).contains(&f.char_cx), "{}", f.char_cx);
        let game = f.width(&"Game".chars().collect::<Vec<_>>());
        assert_eq!(bar_item_width(f, &item("&Game", 0)), game + 2 * f.char_cx);
        // The prefix takes no room; "&&" is one ampersand.
        assert_eq!(
            bar_item_width(f, &item("Game", 0)),
            bar_item_width(f, &item("&Game", 0))
        );
        assert_eq!(
            bar_item_width(f, &item("A&&B", 0)),
            f.width(&['A', '&', 'B']) + 2 * f.char_cx
        );
        assert_eq!(bar_item_width(f, &item("", MF_SEPARATOR)), 0);
        // Measured widths of the menu font (font-dependent, so held here and not in
        // the guest test): its average character, and "Game" and "Help" of winmine's bar.
        assert_eq!(
            (
                f.char_cx,
                bar_item_width(f, &item("&Game", 0)),
                bar_item_width(f, &item("&Help", 0))
            ),
            (6, 42, 34)
        );
    }

    #[test]
    fn one_row_when_the_items_fit() {
        let l = layout_bar(&[40, 30, 50], &[0, 0, 0], 200);
        assert_eq!(
            l.items,
            vec![
                Rect::new(0, 0, 40, 18),
                Rect::new(40, 0, 70, 18),
                Rect::new(70, 0, 120, 18)
            ]
        );
        assert_eq!(l.height, wm::CY_MENU);
        // Exactly filling the bar still fits.
        let l = layout_bar(&[40, 60], &[0, 0], 100);
        assert_eq!(l.height, wm::CY_MENU);
    }

    #[test]
    fn items_past_the_edge_wrap_and_the_bar_grows() {
        let l = layout_bar(&[40, 30, 50, 20], &[0; 4], 100);
        assert_eq!(
            l.items,
            vec![
                Rect::new(0, 0, 40, 18),
                Rect::new(40, 0, 70, 18),
                Rect::new(0, 18, 50, 36),
                Rect::new(50, 18, 70, 36)
            ]
        );
        assert_eq!(l.height, 2 * 18 + 1);
        // An item wider than the bar is alone on its row, cut at the edge.
        let l = layout_bar(&[30, 150, 20], &[0; 3], 100);
        assert_eq!(
            l.items,
            vec![
                Rect::new(0, 0, 30, 18),
                Rect::new(0, 18, 100, 36),
                Rect::new(0, 36, 20, 54)
            ]
        );
        assert_eq!(l.height, 3 * 18 + 1);
    }

    #[test]
    fn breaks_and_right_justified_items() {
        let l = layout_bar(&[40, 30], &[0, MF_MENUBREAK], 200);
        assert_eq!(l.items[1], Rect::new(0, 18, 30, 36));
        let l = layout_bar(&[40, 30, 20], &[0, MF_RIGHTJUSTIFY, 0], 200);
        assert_eq!(
            l.items,
            vec![
                Rect::new(0, 0, 40, 18),
                Rect::new(150, 0, 180, 18),
                Rect::new(180, 0, 200, 18)
            ]
        );
        assert_eq!(layout_bar(&[], &[], 100).height, wm::CY_MENU);
    }

    #[test]
    fn popups_move_into_the_area() {
        let area = Rect::new(0, 0, 200, 150);
        // Fits: stays.
        assert_eq!(fit_in(area, (10, 20), (50, 60), (30, 18)), (10, 20));
        // Too far right: flush with the right edge.
        assert_eq!(fit_in(area, (180, 20), (50, 60), (30, 18)), (150, 20));
        // Too low under a bar item: above the item instead (its top is y - 18).
        assert_eq!(fit_in(area, (10, 120), (50, 60), (30, 18)), (10, 42));
        // A submenu with no room on the right opens on the parent's left.
        assert_eq!(fit_in(area, (150, 20), (60, 40), (-80, -30)), (10, 20));
        // Larger than the area: its top-left corner stays inside.
        assert_eq!(fit_in(area, (30, 30), (300, 300), (0, 0)), (0, 0));
    }

    #[test]
    fn popup_items_share_the_column_width_and_tab() {
        let f = menu_font();
        let items = [
            item("&New\tF2", 0),
            item("", MF_SEPARATOR),
            item("E&xit", 0),
            item("&Options", MF_POPUP),
        ];
        let l = layout_popup(f, &items);
        let h = f.char_cy + 4;
        assert_eq!(l.items[0], Rect::new(3, 3, l.width - 3, 3 + h));
        assert_eq!(l.items[1], Rect::new(3, 3 + h, l.width - 3, 3 + h + 9));
        assert_eq!(l.items[3].bottom, l.height - 3);
        let tab = 3 + CHECK_W + 4 + f.char_cx + f.width(&"Options".chars().collect::<Vec<_>>());
        assert!(
            l.tabs.iter().enumerate().all(|(i, &t)| i == 1 || t == tab),
            "{l:?}"
        );
        // Wide enough for "New", the gap and "F2" after the tab.
        let new = f.width(&['N', 'e', 'w']) + f.char_cx + f.width(&['F', '2']);
        assert!(l.width - 6 >= CHECK_W + 4 + f.char_cx + ARROW_W + 2 + new);
    }
}
