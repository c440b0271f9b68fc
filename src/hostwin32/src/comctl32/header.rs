//! The header control (`SysHeader32`): a row of column titles, as comctl32 5.8
//! documents it: items with text, width, format, lParam and display order
//! (HDM_INSERTITEM / DELETEITEM / GETITEM / SETITEM / GETITEMCOUNT / LAYOUT /
//! GETITEMRECT / HITTEST / ORDERTOINDEX / GET-SETORDERARRAY), HDS_BUTTONS items that
//! press and send HDN_ITEMCLICK, and dividers dragged to resize with the
//! HDN_BEGINTRACK / TRACK / ENDTRACK and HDN_ITEMCHANGING / ITEMCHANGED
//! notifications. Also the helpers the other controls of this module share
//! (notifications, text measuring, painting).

use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::msg::*;
use crate::user32::{UR, lock_wm};
use std::collections::HashMap;
use std::sync::Mutex;

// ---- registration of the header, tab and list view controls and property sheets ------

/// The classes of the header, list view and tab control.
pub(super) fn views_classes() -> Vec<crate::user32::hostclass::HostClass> {
    use crate::user32::hostclass::HostClass;
    // CS_DBLCLKS, and CS_HREDRAW | CS_VREDRAW for the controls that lay out by size.
    vec![
        HostClass {
            name: CLASS,
            export: "__winterp_HeaderWndProc",
            wndproc,
            style: 0x8,
            wnd_extra: 4,
            background: 0,
        },
        HostClass {
            name: super::listview::CLASS,
            export: "__winterp_ListViewWndProc",
            wndproc: super::listview::wndproc,
            style: 0xb,
            wnd_extra: 4,
            background: 0,
        },
        HostClass {
            name: super::tab::CLASS,
            export: "__winterp_TabWndProc",
            wndproc: super::tab::wndproc,
            style: 0xb,
            wnd_extra: 4,
            background: 0,
        },
    ]
}

/// Their window procedures' exports and the property sheet functions.
pub(super) fn views_exports() -> Vec<crate::hle::ApiDef> {
    use super::propsheet as ps;
    use crate::hle::stdcall;
    use crate::user32::hostclass::export;
    vec![
        export("__winterp_HeaderWndProc", wndproc),
        export("__winterp_TabWndProc", super::tab::wndproc),
        export("__winterp_ListViewWndProc", super::listview::wndproc),
        export("__winterp_PropertySheetDlgProc", ps::sheet_proc),
        stdcall("PropertySheetA", ps::PropertySheetA),
        stdcall("PropertySheetW", ps::PropertySheetW),
        stdcall("CreatePropertySheetPageA", ps::CreatePropertySheetPageA),
        stdcall("CreatePropertySheetPageW", ps::CreatePropertySheetPageW),
        stdcall("DestroyPropertySheetPage", ps::DestroyPropertySheetPage),
    ]
}

// ---- helpers shared by the controls of this module -----------------------------------

/// The control's parent and its own ID.
pub(super) fn parent_and_id(cx: &Ctx, h: u32) -> (u32, u32) {
    lock_wm(cx.proc).win(h).map_or((0, 0), |w| (w.parent, w.id))
}

/// Whether `h`'s parent takes Unicode notifications (what WM_NOTIFYFORMAT's default
/// answer tells a control: the parent window's character set).
pub(super) fn parent_unicode(cx: &Ctx, h: u32) -> bool {
    let wm = lock_wm(cx.proc);
    let p = wm.win(h).map_or(0, |w| w.parent);
    wm.win(p).is_none_or(|w| w.unicode)
}

pub(super) fn style_of(cx: &Ctx, h: u32) -> u32 {
    lock_wm(cx.proc).win(h).map_or(0, |w| w.style)
}

pub(super) fn client_size(cx: &Ctx, h: u32) -> (i32, i32) {
    lock_wm(cx.proc).client_size(h)
}

/// Sends WM_NOTIFY to the parent of `h`: an NMHDR followed by `body`, which the
/// parent may change (returned with the result).
pub(super) fn notify(cx: &mut Ctx, h: u32, code: i32, body: &[u8]) -> UR<(u32, Vec<u8>)> {
    let (parent, id) = parent_and_id(cx, h);
    notify_to(cx, parent, h, id, code, body)
}

/// WM_NOTIFY with an NMHDR from (`from`, `id`) to `to`.
pub(super) fn notify_to(
    cx: &mut Ctx,
    to: u32,
    from: u32,
    id: u32,
    code: i32,
    body: &[u8],
) -> UR<(u32, Vec<u8>)> {
    if to == 0 {
        return Ok((0, body.to_vec()));
    }
    let (p, esp) = crate::user32::stack_alloc(cx, 12 + body.len() as u32);
    let r = (|| -> UR<(u32, Vec<u8>)> {
        let m = &cx.proc.mem;
        m.write_u32(p, from)?;
        m.write_u32(p + 4, id)?;
        m.write_u32(p + 8, code as u32)?;
        m.write_bytes(p + 12, body)?;
        let r = send(cx, to, WM_NOTIFY, id, p, true)?;
        let mut out = vec![0u8; body.len()];
        cx.proc.mem.read_bytes(p + 12, &mut out)?;
        Ok((r, out))
    })();
    crate::user32::stack_free(cx, esp);
    r
}

pub(super) fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(super) fn u32_at(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The font a control draws with: its WM_SETFONT font or DEFAULT_GUI_FONT.
pub(super) fn font_or_default(cx: &mut Ctx, font: u32) -> UR<u32> {
    if font != 0 {
        return Ok(font);
    }
    Ok(crate::user32::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0))
}

/// The text height of `font` and the widths of `texts` in it.
pub(super) fn measure(cx: &mut Ctx, h: u32, font: u32, texts: &[&str]) -> UR<(i32, Vec<i32>)> {
    let font = font_or_default(cx, font)?;
    let dc = crate::user32::paint::GetDC(cx, h);
    if dc == 0 {
        return Ok((
            13,
            texts.iter().map(|t| 6 * t.chars().count() as i32).collect(),
        ));
    }
    let old = crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[dc, font])?;
    let th = crate::gdi32::text::dc_font(cx.proc, dc).map_or(13, |f| f.height());
    let ws = texts
        .iter()
        .map(|t| gp::text_extent(cx.proc, dc, t).0)
        .collect();
    if let Some(o) = old {
        crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[dc, o])?;
    }
    crate::user32::paint::ReleaseDC(cx, h, dc);
    Ok((th, ws))
}

/// Paints through BeginPaint/EndPaint with `font` selected and transparent text;
/// `f` gets the DC and the client size.
pub(super) fn paint_with(
    cx: &mut Ctx,
    h: u32,
    font: u32,
    f: impl FnOnce(&mut Ctx, u32, i32, i32) -> UR<()>,
) -> UR<u32> {
    let (ps, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        let hdc = crate::user32::paint::begin_paint(cx, h, ps)?;
        let font = font_or_default(cx, font)?;
        if font != 0 {
            crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
        }
        crate::user32::call_export(cx, "GDI32.dll", "SetBkMode", &[hdc, 1])?;
        crate::user32::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, sys(18)])?;
        let (w, hh) = client_size(cx, h);
        f(cx, hdc, w, hh)?;
        crate::user32::paint::end_paint(cx, h, ps)
    })();
    crate::user32::stack_free(cx, esp);
    r?;
    Ok(0)
}

/// System colour `i` as a COLORREF.
pub(super) fn sys(i: u32) -> u32 {
    crate::user32::window::rgb_to_colorref(crate::user32::window::sys_color_rgb(i))
}

pub(super) fn fill(cx: &Ctx, hdc: u32, r: Rect, colorref: u32) -> UR<()> {
    gp::fill_rect(cx.proc, hdc, r, colorref)?;
    Ok(())
}

pub(super) fn set_text_color(cx: &mut Ctx, hdc: u32, colorref: u32) -> UR<()> {
    crate::user32::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, colorref])?;
    Ok(())
}

pub(super) fn redraw(cx: &Ctx, h: u32) {
    lock_wm(cx.proc).invalidate(h, None, true);
    crate::user32::wm::wake_all(cx.proc);
}

pub(super) fn read_rect(cx: &Ctx, p: u32) -> UR<Rect> {
    Ok(crate::user32::window::read_rect(cx, p)?)
}

pub(super) fn put_rect(cx: &Ctx, p: u32, r: Rect) -> UR<()> {
    Ok(crate::user32::window::put_rect(cx, p, r)?)
}

/// A point from a mouse message's lParam.
pub(super) fn point(lp: u32) -> (i32, i32) {
    ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32)
}

pub(super) fn inside(r: &Rect, p: (i32, i32)) -> bool {
    p.0 >= r.left && p.0 < r.right && p.1 >= r.top && p.1 < r.bottom
}

/// Reads a text argument that may be LPSTR_TEXTCALLBACK (-1) or NULL.
pub(super) fn text_arg(cx: &Ctx, p: u32, unicode: bool) -> UR<Option<String>> {
    if p == 0 || p == u32::MAX {
        return Ok(None);
    }
    Ok(Some(crate::user32::read_str(cx, p, unicode)?))
}

pub(super) fn set_capture(cx: &mut Ctx, h: u32) {
    lock_wm(cx.proc).capture = h;
}

pub(super) fn release_capture(cx: &mut Ctx, h: u32) {
    let mut wm = lock_wm(cx.proc);
    if wm.capture == h {
        wm.capture = 0;
    }
}

// ---- the header control -------------------------------------------------------------

pub const CLASS: &str = "SysHeader32";

const HDM_GETITEMCOUNT: u32 = 0x1200;
const HDM_INSERTITEMA: u32 = 0x1201;
const HDM_DELETEITEM: u32 = 0x1202;
const HDM_GETITEMA: u32 = 0x1203;
const HDM_SETITEMA: u32 = 0x1204;
const HDM_LAYOUT: u32 = 0x1205;
const HDM_HITTEST: u32 = 0x1206;
const HDM_GETITEMRECT: u32 = 0x1207;
const HDM_SETIMAGELIST: u32 = 0x1208;
const HDM_GETIMAGELIST: u32 = 0x1209;
const HDM_INSERTITEMW: u32 = 0x120a;
const HDM_GETITEMW: u32 = 0x120b;
const HDM_SETITEMW: u32 = 0x120c;
const HDM_ORDERTOINDEX: u32 = 0x120f;
const HDM_GETORDERARRAY: u32 = 0x1211;
const HDM_SETORDERARRAY: u32 = 0x1212;
const HDM_SETBITMAPMARGIN: u32 = 0x1214;
const HDM_GETBITMAPMARGIN: u32 = 0x1215;
const CCM_SETUNICODEFORMAT: u32 = 0x2005;
const CCM_GETUNICODEFORMAT: u32 = 0x2006;

pub const HDI_WIDTH: u32 = 0x1;
pub const HDI_TEXT: u32 = 0x2;
pub const HDI_FORMAT: u32 = 0x4;
pub const HDI_LPARAM: u32 = 0x8;
pub const HDI_BITMAP: u32 = 0x10;
pub const HDI_IMAGE: u32 = 0x20;
pub const HDI_ORDER: u32 = 0x80;

const HDS_BUTTONS: u32 = 0x2;
const HDS_HIDDEN: u32 = 0x8;

const HDF_JUSTIFYMASK: u32 = 0x3;
const HDF_RIGHT: u32 = 1;
const HDF_CENTER: u32 = 2;
const HDF_OWNERDRAW: u32 = 0x8000;

const HHT_NOWHERE: u32 = 0x1;
const HHT_ONHEADER: u32 = 0x2;
const HHT_ONDIVIDER: u32 = 0x4;
const HHT_ABOVE: u32 = 0x100;
const HHT_BELOW: u32 = 0x200;
const HHT_TORIGHT: u32 = 0x400;
const HHT_TOLEFT: u32 = 0x800;

// Notification codes; the W codes are the A codes less 20.
const HDN_ITEMCHANGINGA: i32 = -300;
const HDN_ITEMCHANGEDA: i32 = -301;
pub const HDN_ITEMCLICKA: i32 = -302;
const HDN_DIVIDERDBLCLICKA: i32 = -305;
const HDN_BEGINTRACKA: i32 = -306;
const HDN_ENDTRACKA: i32 = -307;
const HDN_TRACKA: i32 = -308;
pub const HDN_ITEMCLICKW: i32 = -322;

/// Width of the area either side of a divider where a drag resizes.
const DIVIDER: i32 = 4;
/// Text margin inside an item (3 * SM_CXEDGE).
const MARGIN: i32 = 6;

#[derive(Clone, Default)]
pub struct Item {
    pub text: String,
    pub callback: bool,
    pub width: i32,
    pub fmt: u32,
    pub param: u32,
    pub image: i32,
    pub bitmap: u32,
}

#[derive(Default)]
struct Header {
    items: Vec<Item>,
    /// Display position -> item index.
    order: Vec<usize>,
    font: u32,
    himl: u32,
    pressed: Option<usize>,
    /// Divider drag: (item, mouse x at the start, width at the start).
    track: Option<(usize, i32, i32)>,
    unicode_fmt: bool,
    bitmap_margin: i32,
}

#[derive(Default)]
struct Headers(Mutex<HashMap<u32, Header>>);

fn with<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut Header) -> R) -> Option<R> {
    let s = cx.proc.slot::<Headers>();
    let mut m = s.0.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(&h).map(f)
}

/// Item rectangles in item-index order (client coordinates).
fn rects(cx: &Ctx, h: u32) -> Vec<Rect> {
    let (_, ch) = client_size(cx, h);
    with(cx, h, |s| {
        let mut out = vec![Rect::default(); s.items.len()];
        let mut x = 0;
        for &i in &s.order {
            let w = s.items[i].width.max(0);
            out[i] = Rect::new(x, 0, x + w, ch);
            x += w;
        }
        out
    })
    .unwrap_or_default()
}

/// Reads an HDITEM's fields named by its mask into `it`.
fn read_item(cx: &Ctx, p: u32, unicode: bool, it: &mut Item, order: &mut Option<i32>) -> UR<u32> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & HDI_WIDTH != 0 {
        it.width = m.read_u32(p + 4)? as i32;
    }
    if mask & HDI_TEXT != 0 {
        let t = m.read_u32(p + 8)?;
        it.callback = t == u32::MAX;
        it.text = text_arg(cx, t, unicode)?.unwrap_or_default();
    }
    if mask & HDI_BITMAP != 0 {
        it.bitmap = m.read_u32(p + 12)?;
    }
    if mask & HDI_FORMAT != 0 {
        it.fmt = m.read_u32(p + 20)?;
    }
    if mask & HDI_LPARAM != 0 {
        it.param = m.read_u32(p + 24)?;
    }
    if mask & HDI_IMAGE != 0 {
        it.image = m.read_u32(p + 28)? as i32;
    }
    if mask & HDI_ORDER != 0 {
        *order = Some(m.read_u32(p + 32)? as i32);
    }
    Ok(mask)
}

fn write_item(cx: &Ctx, p: u32, unicode: bool, it: &Item, order: i32) -> UR<()> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & HDI_WIDTH != 0 {
        m.write_u32(p + 4, it.width as u32)?;
    }
    if mask & HDI_TEXT != 0 {
        let buf = m.read_u32(p + 8)?;
        let cap = m.read_u32(p + 16)?;
        if buf != 0 && buf != u32::MAX && cap > 0 {
            crate::user32::put_str(cx, buf, cap, &it.text, unicode)?;
        }
    }
    if mask & HDI_BITMAP != 0 {
        m.write_u32(p + 12, it.bitmap)?;
    }
    if mask & HDI_FORMAT != 0 {
        m.write_u32(p + 20, it.fmt)?;
    }
    if mask & HDI_LPARAM != 0 {
        m.write_u32(p + 24, it.param)?;
    }
    if mask & HDI_IMAGE != 0 {
        m.write_u32(p + 28, it.image as u32)?;
    }
    if mask & HDI_ORDER != 0 {
        m.write_u32(p + 32, order as u32)?;
    }
    Ok(())
}

/// An HDN_ notification about `item`, in the parent's character set; `pitem`
/// is an HDITEM pointer or 0. Returns the parent's answer.
fn hd_notify(cx: &mut Ctx, h: u32, code_a: i32, item: i32, button: u32, pitem: u32) -> UR<u32> {
    let code = if parent_unicode(cx, h) {
        code_a - 20
    } else {
        code_a
    };
    Ok(notify(cx, h, code, &le32(&[item as u32, button, pitem]))?.0)
}

/// Sends HDN_ITEMCHANGING/ITEMCHANGED around a change of item `i` described by an
/// HDITEM in the parent's character set; applies it unless refused.
fn change_item(
    cx: &mut Ctx,
    h: u32,
    i: usize,
    mut new: Item,
    mask: u32,
    order: Option<i32>,
) -> UR<bool> {
    let unicode = parent_unicode(cx, h);
    let text_bytes = crate::user32::str_bytes(&new.text, unicode);
    let (p, esp) = crate::user32::stack_alloc(cx, 44 + text_bytes);
    let r = (|| -> UR<bool> {
        let m = &cx.proc.mem;
        m.write_bytes(p, &[0u8; 44])?;
        m.write_u32(p, mask)?;
        m.write_u32(p + 4, new.width as u32)?;
        if mask & HDI_TEXT != 0 {
            if new.callback {
                m.write_u32(p + 8, u32::MAX)?;
            } else {
                crate::user32::write_str(cx, p + 44, &new.text, unicode)?;
                m.write_u32(p + 8, p + 44)?;
                m.write_u32(p + 16, crate::user32::str_len(&new.text, unicode) + 1)?;
            }
        }
        m.write_u32(p + 12, new.bitmap)?;
        m.write_u32(p + 20, new.fmt)?;
        m.write_u32(p + 24, new.param)?;
        m.write_u32(p + 28, new.image as u32)?;
        m.write_u32(p + 32, order.unwrap_or(0) as u32)?;
        if hd_notify(cx, h, HDN_ITEMCHANGINGA, i as i32, 0, p)? != 0 {
            return Ok(false);
        }
        // The parent may have changed the HDITEM it was shown.
        let mut o = order;
        let mut probe = new.clone();
        read_item(cx, p, unicode, &mut probe, &mut o)?;
        if mask & HDI_WIDTH != 0 {
            new.width = probe.width;
        }
        let applied = with(cx, h, |s| {
            let Some(it) = s.items.get_mut(i) else {
                return false;
            };
            *it = new;
            if let Some(o) = order
                && let Some(pos) = s.order.iter().position(|&x| x == i)
            {
                let o = (o.max(0) as usize).min(s.order.len() - 1);
                s.order.remove(pos);
                s.order.insert(o, i);
            }
            true
        })
        .unwrap_or(false);
        if applied {
            redraw(cx, h);
            hd_notify(cx, h, HDN_ITEMCHANGEDA, i as i32, 0, p)?;
        }
        Ok(applied)
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// Inserts an item (used by the list view for its columns too).
fn insert(cx: &Ctx, h: u32, index: u32, it: Item, order: Option<i32>) -> i32 {
    let r = with(cx, h, |s| {
        let i = (index as usize).min(s.items.len());
        s.items.insert(i, it);
        for o in s.order.iter_mut() {
            if *o >= i {
                *o += 1;
            }
        }
        let pos = match order {
            Some(o) if o >= 0 => (o as usize).min(s.order.len()),
            _ => s.order.len().min(i),
        };
        s.order.insert(pos, i);
        i as i32
    })
    .unwrap_or(-1);
    redraw(cx, h);
    r
}

fn delete(cx: &Ctx, h: u32, index: u32) -> bool {
    let r = with(cx, h, |s| {
        let i = index as usize;
        if i >= s.items.len() {
            return false;
        }
        s.items.remove(i);
        s.order.retain(|&o| o != i);
        for o in s.order.iter_mut() {
            if *o > i {
                *o -= 1;
            }
        }
        true
    })
    .unwrap_or(false);
    redraw(cx, h);
    r
}

/// The header's height for its font (what HDM_LAYOUT gives it).
pub(super) fn height(cx: &mut Ctx, h: u32) -> UR<i32> {
    if style_of(cx, h) & HDS_HIDDEN != 0 {
        return Ok(0);
    }
    let font = with(cx, h, |s| s.font).unwrap_or(0);
    let (th, _) = measure(cx, h, font, &[])?;
    Ok(th + 4)
}

fn hit_test(cx: &Ctx, h: u32, p: (i32, i32)) -> (i32, u32) {
    let (cw, ch) = client_size(cx, h);
    let mut flags = 0;
    if p.1 < 0 {
        flags |= HHT_ABOVE;
    } else if p.1 >= ch {
        flags |= HHT_BELOW;
    }
    if p.0 < 0 {
        flags |= HHT_TOLEFT;
    } else if p.0 >= cw {
        flags |= HHT_TORIGHT;
    }
    if flags != 0 {
        return (-1, flags);
    }
    let rs = rects(cx, h);
    let order = with(cx, h, |s| s.order.clone()).unwrap_or_default();
    // A divider belongs to the item on its left.
    for &i in &order {
        let r = rs[i];
        if (p.0 - r.right).abs() < DIVIDER && p.0 >= r.right - DIVIDER {
            return (i as i32, HHT_ONDIVIDER);
        }
    }
    for &i in &order {
        if inside(&rs[i], p) {
            return (i as i32, HHT_ONHEADER);
        }
    }
    (-1, HHT_NOWHERE)
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let rs = rects(cx, h);
    let Some((items, font, pressed)) = with(cx, h, |s| (s.items.clone(), s.font, s.pressed)) else {
        return Ok(0);
    };
    let buttons = style_of(cx, h) & HDS_BUTTONS != 0;
    paint_with(cx, h, font, |cx, hdc, w, hh| {
        fill(cx, hdc, Rect::new(0, 0, w, hh), sys(15))?;
        let mut right = 0;
        for (i, it) in items.iter().enumerate() {
            let r = rs[i];
            right = right.max(r.right);
            if it.fmt & HDF_OWNERDRAW != 0 {
                owner_draw(cx, h, hdc, i, r, it)?;
                continue;
            }
            let edge = if buttons && pressed == Some(i) {
                gp::EDGE_SUNKEN
            } else {
                gp::EDGE_RAISED
            };
            gp::draw_edge_ex(cx.proc, hdc, r, edge, gp::BF_RECT | gp::BF_SOFT)?;
            let tr = Rect::new(r.left + MARGIN, r.top + 1, r.right - MARGIN, r.bottom - 1);
            if tr.right > tr.left {
                let just = match it.fmt & HDF_JUSTIFYMASK {
                    HDF_RIGHT => gp::DT_RIGHT,
                    HDF_CENTER => gp::DT_CENTER,
                    _ => gp::DT_LEFT,
                };
                gp::draw_text(
                    cx.proc,
                    hdc,
                    &it.text,
                    tr,
                    just | gp::DT_SINGLELINE
                        | gp::DT_VCENTER
                        | gp::DT_END_ELLIPSIS
                        | gp::DT_NOPREFIX,
                );
            }
        }
        if right < w {
            gp::draw_edge_ex(
                cx.proc,
                hdc,
                Rect::new(right, 0, w + 2, hh),
                gp::EDGE_RAISED,
                gp::BF_RECT | gp::BF_SOFT,
            )?;
        }
        Ok(())
    })
}

/// HDF_OWNERDRAW: WM_DRAWITEM to the parent (ODT_HEADER).
fn owner_draw(cx: &mut Ctx, h: u32, hdc: u32, i: usize, r: Rect, it: &Item) -> UR<()> {
    let (parent, id) = parent_and_id(cx, h);
    let (p, esp) = crate::user32::stack_alloc(cx, 48);
    let res = (|| -> UR<()> {
        let m = &cx.proc.mem;
        // DRAWITEMSTRUCT: CtlType ODT_HEADER (100), CtlID, itemID, itemAction ODA_DRAWENTIRE,
        // itemState, hwndItem, hDC, rcItem, itemData.
        for (k, v) in [100u32, id, i as u32, 1, 0, h, hdc].iter().enumerate() {
            m.write_u32(p + 4 * k as u32, *v)?;
        }
        put_rect(cx, p + 28, r)?;
        m.write_u32(p + 44, it.param)?;
        send(cx, parent, WM_DRAWITEM, id, p, true)?;
        Ok(())
    })();
    crate::user32::stack_free(cx, esp);
    res
}

fn mouse(cx: &mut Ctx, h: u32, m: u32, lp: u32) -> UR<u32> {
    let p = point(lp);
    match m {
        WM_LBUTTONDOWN => {
            let (i, flags) = hit_test(cx, h, p);
            if flags == HHT_ONDIVIDER && i >= 0 {
                if hd_notify(cx, h, HDN_BEGINTRACKA, i, 0, 0)? != 0 {
                    return Ok(0);
                }
                let w = with(cx, h, |s| s.items[i as usize].width).unwrap_or(0);
                with(cx, h, |s| s.track = Some((i as usize, p.0, w)));
                set_capture(cx, h);
            } else if flags == HHT_ONHEADER && i >= 0 && style_of(cx, h) & HDS_BUTTONS != 0 {
                with(cx, h, |s| s.pressed = Some(i as usize));
                set_capture(cx, h);
                redraw(cx, h);
            }
            Ok(0)
        }
        WM_MOUSEMOVE => {
            if let Some(Some((i, x0, w0))) = with(cx, h, |s| s.track) {
                let w = (w0 + p.0 - x0).max(0);
                with(cx, h, |s| s.items[i].width = w);
                hd_notify(cx, h, HDN_TRACKA, i as i32, 0, 0)?;
                redraw(cx, h);
            }
            Ok(0)
        }
        WM_LBUTTONUP => {
            release_capture(cx, h);
            if let Some(Some((i, x0, w0))) = with(cx, h, |s| s.track.take()) {
                let w = (w0 + p.0 - x0).max(0);
                // The drag showed the width live; the change itself is notified now.
                with(cx, h, |s| s.items[i].width = w0);
                hd_notify(cx, h, HDN_ENDTRACKA, i as i32, 0, 0)?;
                if let Some(mut it) = with(cx, h, |s| s.items.get(i).cloned()).flatten() {
                    it.width = w;
                    change_item(cx, h, i, it, HDI_WIDTH, None)?;
                }
                return Ok(0);
            }
            if let Some(Some(i)) = with(cx, h, |s| s.pressed.take()) {
                redraw(cx, h);
                let (hit, flags) = hit_test(cx, h, p);
                if hit == i as i32 && flags == HHT_ONHEADER {
                    hd_notify(cx, h, HDN_ITEMCLICKA, i as i32, 0, 0)?;
                }
            }
            Ok(0)
        }
        WM_LBUTTONDBLCLK => {
            let (i, flags) = hit_test(cx, h, p);
            if flags == HHT_ONDIVIDER && i >= 0 {
                hd_notify(cx, h, HDN_DIVIDERDBLCLICKA, i, 0, 0)?;
            } else {
                return mouse(cx, h, WM_LBUTTONDOWN, lp);
            }
            Ok(0)
        }
        _ => Ok(0),
    }
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_NCCREATE => {
            cx.proc
                .slot::<Headers>()
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(h, Header::default());
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_NCDESTROY => {
            cx.proc
                .slot::<Headers>()
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SETFONT => {
            with(cx, h, |s| s.font = wp);
            if lp != 0 {
                redraw(cx, h);
            }
            Ok(0)
        }
        WM_GETFONT => Ok(with(cx, h, |s| s.font).unwrap_or(0)),
        WM_LBUTTONDOWN | WM_LBUTTONUP | WM_MOUSEMOVE | WM_LBUTTONDBLCLK => mouse(cx, h, m, lp),
        HDM_GETITEMCOUNT => Ok(with(cx, h, |s| s.items.len() as u32).unwrap_or(u32::MAX)),
        HDM_INSERTITEMA | HDM_INSERTITEMW => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let mut it = Item::default();
            let mut order = None;
            read_item(cx, lp, m == HDM_INSERTITEMW, &mut it, &mut order)?;
            Ok(insert(cx, h, wp, it, order) as u32)
        }
        HDM_DELETEITEM => Ok(delete(cx, h, wp) as u32),
        HDM_GETITEMA | HDM_GETITEMW => {
            let Some(Some((it, order))) = with(cx, h, |s| {
                s.items.get(wp as usize).map(|it| {
                    let o = s.order.iter().position(|&x| x == wp as usize).unwrap_or(0);
                    (it.clone(), o as i32)
                })
            }) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            write_item(cx, lp, m == HDM_GETITEMW, &it, order)?;
            Ok(1)
        }
        HDM_SETITEMA | HDM_SETITEMW => {
            let Some(Some(mut it)) = with(cx, h, |s| s.items.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            let mut order = None;
            let mask = read_item(cx, lp, m == HDM_SETITEMW, &mut it, &mut order)?;
            Ok(change_item(cx, h, wp as usize, it, mask, order)? as u32)
        }
        HDM_LAYOUT => {
            if lp == 0 {
                return Ok(0);
            }
            let prc = cx.proc.mem.read_u32(lp)?;
            let pwp = cx.proc.mem.read_u32(lp + 4)?;
            let r = read_rect(cx, prc)?;
            let ht = height(cx, h)?;
            let mw = &cx.proc.mem;
            mw.write_u32(pwp, h)?;
            mw.write_u32(pwp + 4, 0)?;
            mw.write_u32(pwp + 8, r.left as u32)?;
            mw.write_u32(pwp + 12, r.top as u32)?;
            mw.write_u32(pwp + 16, r.width() as u32)?;
            mw.write_u32(pwp + 20, ht as u32)?;
            mw.write_u32(pwp + 24, crate::user32::window::SWP_NOZORDER)?;
            put_rect(cx, prc, Rect::new(r.left, r.top + ht, r.right, r.bottom))?;
            Ok(1)
        }
        HDM_HITTEST => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let x = cx.proc.mem.read_u32(lp)? as i32;
            let y = cx.proc.mem.read_u32(lp + 4)? as i32;
            let (i, flags) = hit_test(cx, h, (x, y));
            cx.proc.mem.write_u32(lp + 8, flags)?;
            cx.proc.mem.write_u32(lp + 12, i as u32)?;
            Ok(i as u32)
        }
        HDM_GETITEMRECT => {
            let rs = rects(cx, h);
            match rs.get(wp as usize) {
                Some(r) if lp != 0 => {
                    put_rect(cx, lp, *r)?;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
        HDM_SETIMAGELIST => Ok(with(cx, h, |s| std::mem::replace(&mut s.himl, lp)).unwrap_or(0)),
        HDM_GETIMAGELIST => Ok(with(cx, h, |s| s.himl).unwrap_or(0)),
        HDM_ORDERTOINDEX => Ok(with(cx, h, |s| {
            s.order.get(wp as usize).map_or(wp, |&i| i as u32)
        })
        .unwrap_or(wp)),
        HDM_GETORDERARRAY => {
            let order = with(cx, h, |s| s.order.clone()).unwrap_or_default();
            if lp == 0 || wp as usize != order.len() {
                return Ok(0);
            }
            for (k, &i) in order.iter().enumerate() {
                cx.proc.mem.write_u32(lp + 4 * k as u32, i as u32)?;
            }
            Ok(1)
        }
        HDM_SETORDERARRAY => {
            let n = with(cx, h, |s| s.items.len()).unwrap_or(0);
            if lp == 0 || wp as usize != n {
                return Ok(0);
            }
            let mut order = Vec::with_capacity(n);
            for k in 0..n {
                order.push(cx.proc.mem.read_u32(lp + 4 * k as u32)? as usize);
            }
            let mut sorted = order.clone();
            sorted.sort_unstable();
            if sorted != (0..n).collect::<Vec<_>>() {
                return Ok(0);
            }
            with(cx, h, |s| s.order = order);
            redraw(cx, h);
            Ok(1)
        }
        HDM_SETBITMAPMARGIN => Ok(with(cx, h, |s| {
            std::mem::replace(&mut s.bitmap_margin, wp as i32)
        })
        .unwrap_or(0) as u32),
        HDM_GETBITMAPMARGIN => Ok(with(cx, h, |s| s.bitmap_margin).unwrap_or(0) as u32),
        CCM_SETUNICODEFORMAT => Ok(
            with(cx, h, |s| std::mem::replace(&mut s.unicode_fmt, wp != 0)).unwrap_or(false) as u32,
        ),
        CCM_GETUNICODEFORMAT => Ok(with(cx, h, |s| s.unicode_fmt).unwrap_or(false) as u32),
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

// ---- for the list view, which keeps its columns in its header ------------------------

pub(super) fn items(cx: &Ctx, h: u32) -> Vec<Item> {
    with(cx, h, |s| s.items.clone()).unwrap_or_default()
}

/// Column rectangles' left edges and widths, in item order.
pub(super) fn spans(cx: &Ctx, h: u32) -> Vec<(i32, i32)> {
    rects(cx, h).iter().map(|r| (r.left, r.width())).collect()
}

pub(super) fn insert_item(cx: &Ctx, h: u32, index: u32, it: Item) -> i32 {
    insert(cx, h, index, it, None)
}

pub(super) fn delete_item(cx: &Ctx, h: u32, index: u32) -> bool {
    delete(cx, h, index)
}

pub(super) fn set_item(cx: &Ctx, h: u32, index: usize, f: impl FnOnce(&mut Item)) -> bool {
    let r = with(cx, h, |s| s.items.get_mut(index).map(f).is_some()).unwrap_or(false);
    redraw(cx, h);
    r
}

pub(super) fn order(cx: &Ctx, h: u32) -> Vec<usize> {
    with(cx, h, |s| s.order.clone()).unwrap_or_default()
}
