//! The list view (`SysListView32`) of comctl32 5.8: items with text (or
//! LPSTR_TEXTCALLBACK answered by LVN_GETDISPINFO), image, lParam, state and
//! sub-item texts; columns kept in a header child (report view); the four views
//! (LVS_ICON, LVS_SMALLICON, LVS_LIST, LVS_REPORT) laid out on a grid of the font's
//! and the image lists' sizes; selection and focus with LVN_ITEMCHANGING /
//! ITEMCHANGED, insertion and deletion notifications, mouse and keyboard selection,
//! LVM_SORTITEMS calling the program's comparison function, find / hit test / item
//! rectangles, extended styles (full-row select, grid lines, check boxes), colours,
//! NM_CUSTOMDRAW's prepaint and item stages, and a vertical scroll bar in the report
//! and small-icon views. A virtual list (LVS_OWNERDATA) has LVM_SETITEMCOUNT
//! placeholder items whose texts and images all come from LVN_GETDISPINFO; the
//! control keeps only their states. Label editing is not implemented.

use super::header::{
    client_size, fill, inside, le32, measure, notify, paint_with, parent_unicode, point, put_rect,
    redraw, style_of, sys, text_arg, u32_at,
};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{Ctx, Ptr};
use crate::user32::msg::*;
use crate::user32::{Flow, UR, lock_wm};
use std::collections::HashMap;
use std::sync::Mutex;

pub const CLASS: &str = "SysListView32";

const LVM_GETBKCOLOR: u32 = 0x1000;
const LVM_SETBKCOLOR: u32 = 0x1001;
const LVM_GETIMAGELIST: u32 = 0x1002;
const LVM_SETIMAGELIST: u32 = 0x1003;
const LVM_GETITEMCOUNT: u32 = 0x1004;
const LVM_GETITEMA: u32 = 0x1005;
const LVM_SETITEMA: u32 = 0x1006;
const LVM_INSERTITEMA: u32 = 0x1007;
const LVM_DELETEITEM: u32 = 0x1008;
const LVM_DELETEALLITEMS: u32 = 0x1009;
const LVM_GETCALLBACKMASK: u32 = 0x100a;
const LVM_SETCALLBACKMASK: u32 = 0x100b;
const LVM_GETNEXTITEM: u32 = 0x100c;
const LVM_FINDITEMA: u32 = 0x100d;
const LVM_GETITEMRECT: u32 = 0x100e;
const LVM_SETITEMPOSITION: u32 = 0x100f;
const LVM_GETITEMPOSITION: u32 = 0x1010;
const LVM_GETSTRINGWIDTHA: u32 = 0x1011;
const LVM_HITTEST: u32 = 0x1012;
const LVM_ENSUREVISIBLE: u32 = 0x1013;
const LVM_SCROLL: u32 = 0x1014;
const LVM_REDRAWITEMS: u32 = 0x1015;
const LVM_ARRANGE: u32 = 0x1016;
const LVM_GETEDITCONTROL: u32 = 0x1018;
const LVM_GETCOLUMNA: u32 = 0x1019;
const LVM_SETCOLUMNA: u32 = 0x101a;
const LVM_INSERTCOLUMNA: u32 = 0x101b;
const LVM_DELETECOLUMN: u32 = 0x101c;
const LVM_GETCOLUMNWIDTH: u32 = 0x101d;
const LVM_SETCOLUMNWIDTH: u32 = 0x101e;
const LVM_GETHEADER: u32 = 0x101f;
const LVM_GETVIEWRECT: u32 = 0x1022;
const LVM_GETTEXTCOLOR: u32 = 0x1023;
const LVM_SETTEXTCOLOR: u32 = 0x1024;
const LVM_GETTEXTBKCOLOR: u32 = 0x1025;
const LVM_SETTEXTBKCOLOR: u32 = 0x1026;
const LVM_GETTOPINDEX: u32 = 0x1027;
const LVM_GETCOUNTPERPAGE: u32 = 0x1028;
const LVM_GETORIGIN: u32 = 0x1029;
const LVM_UPDATE: u32 = 0x102a;
const LVM_SETITEMSTATE: u32 = 0x102b;
const LVM_GETITEMSTATE: u32 = 0x102c;
const LVM_GETITEMTEXTA: u32 = 0x102d;
const LVM_SETITEMTEXTA: u32 = 0x102e;
const LVM_SETITEMCOUNT: u32 = 0x102f;
const LVM_SORTITEMS: u32 = 0x1030;
const LVM_SETITEMPOSITION32: u32 = 0x1031;
const LVM_GETSELECTEDCOUNT: u32 = 0x1032;
const LVM_GETITEMSPACING: u32 = 0x1033;
const LVM_SETICONSPACING: u32 = 0x1035;
const LVM_SETEXTENDEDLISTVIEWSTYLE: u32 = 0x1036;
const LVM_GETEXTENDEDLISTVIEWSTYLE: u32 = 0x1037;
const LVM_GETSUBITEMRECT: u32 = 0x1038;
const LVM_SUBITEMHITTEST: u32 = 0x1039;
const LVM_SETCOLUMNORDERARRAY: u32 = 0x103a;
const LVM_GETCOLUMNORDERARRAY: u32 = 0x103b;
const LVM_SETHOTITEM: u32 = 0x103c;
const LVM_GETHOTITEM: u32 = 0x103d;
const LVM_GETSELECTIONMARK: u32 = 0x1042;
const LVM_SETSELECTIONMARK: u32 = 0x1043;
const LVM_GETITEMW: u32 = 0x104b;
const LVM_SETITEMW: u32 = 0x104c;
const LVM_INSERTITEMW: u32 = 0x104d;
const LVM_SORTITEMSEX: u32 = 0x1051;
const LVM_FINDITEMW: u32 = 0x1053;
const LVM_GETSTRINGWIDTHW: u32 = 0x1057;
const LVM_GETCOLUMNW: u32 = 0x105f;
const LVM_SETCOLUMNW: u32 = 0x1060;
const LVM_INSERTCOLUMNW: u32 = 0x1061;
const LVM_GETITEMTEXTW: u32 = 0x1073;
const LVM_SETITEMTEXTW: u32 = 0x1074;
const CCM_SETUNICODEFORMAT: u32 = 0x2005;
const CCM_GETUNICODEFORMAT: u32 = 0x2006;
const WM_STYLECHANGED: u32 = 0x7d;

const LVS_ICON: u32 = 0;
const LVS_REPORT: u32 = 1;
const LVS_SMALLICON: u32 = 2;
const LVS_LIST: u32 = 3;
const LVS_TYPEMASK: u32 = 3;
const LVS_SINGLESEL: u32 = 0x4;
const LVS_SHOWSELALWAYS: u32 = 0x8;
const LVS_SORTASCENDING: u32 = 0x10;
const LVS_SORTDESCENDING: u32 = 0x20;
const LVS_OWNERDATA: u32 = 0x1000;
const LVS_NOCOLUMNHEADER: u32 = 0x4000;
const LVS_NOSORTHEADER: u32 = 0x8000;

const LVS_EX_GRIDLINES: u32 = 0x1;
const LVS_EX_CHECKBOXES: u32 = 0x4;
const LVS_EX_FULLROWSELECT: u32 = 0x20;

const LVIF_TEXT: u32 = 0x1;
const LVIF_IMAGE: u32 = 0x2;
const LVIF_PARAM: u32 = 0x4;
const LVIF_STATE: u32 = 0x8;
const LVIF_INDENT: u32 = 0x10;
const LVIF_DI_SETITEM: u32 = 0x1000;

const LVIS_FOCUSED: u32 = 0x1;
const LVIS_SELECTED: u32 = 0x2;
const LVIS_STATEIMAGEMASK: u32 = 0xf000;

const LVCF_FMT: u32 = 0x1;
const LVCF_WIDTH: u32 = 0x2;
const LVCF_TEXT: u32 = 0x4;
const LVCF_SUBITEM: u32 = 0x8;
const LVCF_IMAGE: u32 = 0x10;
const LVCF_ORDER: u32 = 0x20;

const LVNI_FOCUSED: u32 = 0x1;
const LVNI_SELECTED: u32 = 0x2;
const LVNI_ABOVE: u32 = 0x100;
const LVNI_BELOW: u32 = 0x200;
const LVNI_TOLEFT: u32 = 0x400;
const LVNI_TORIGHT: u32 = 0x800;

const LVFI_PARAM: u32 = 0x1;
const LVFI_STRING: u32 = 0x2;
const LVFI_PARTIAL: u32 = 0x8;
const LVFI_WRAP: u32 = 0x20;

const LVIR_BOUNDS: i32 = 0;
const LVIR_ICON: i32 = 1;
const LVIR_LABEL: i32 = 2;
const LVIR_SELECTBOUNDS: i32 = 3;

const LVHT_NOWHERE: u32 = 0x1;
const LVHT_ONITEMICON: u32 = 0x2;
const LVHT_ONITEMLABEL: u32 = 0x4;
const LVHT_ONITEMSTATEICON: u32 = 0x8;
const LVHT_ABOVE: u32 = 0x8;
const LVHT_BELOW: u32 = 0x10;
const LVHT_TORIGHT: u32 = 0x20;
const LVHT_TOLEFT: u32 = 0x40;

const LVSIL_NORMAL: u32 = 0;
const LVSIL_SMALL: u32 = 1;
const LVSIL_STATE: u32 = 2;

const LVSCW_AUTOSIZE: i32 = -1;
const LVSCW_AUTOSIZE_USEHEADER: i32 = -2;

const CLR_NONE: u32 = 0xffff_ffff;
const I_IMAGECALLBACK: i32 = -1;

const LVN_ITEMCHANGING: i32 = -100;
const LVN_ITEMCHANGED: i32 = -101;
const LVN_INSERTITEM: i32 = -102;
const LVN_DELETEITEM: i32 = -103;
const LVN_DELETEALLITEMS: i32 = -104;
const LVN_COLUMNCLICK: i32 = -108;
const LVN_ITEMACTIVATE: i32 = -114;
const LVN_GETDISPINFOA: i32 = -150;
const LVN_KEYDOWN: i32 = -155;
const LVN_GETDISPINFOW: i32 = -177;
const NM_CLICK: i32 = -2;
const NM_DBLCLK: i32 = -3;
const NM_RETURN: i32 = -4;
const NM_RCLICK: i32 = -5;
const NM_SETFOCUS: i32 = -7;
const NM_KILLFOCUS: i32 = -8;
const NM_CUSTOMDRAW: i32 = -12;
const NM_RELEASEDCAPTURE: i32 = -16;

const CDDS_PREPAINT: u32 = 1;
const CDDS_POSTPAINT: u32 = 2;
const CDDS_ITEMPREPAINT: u32 = 0x10001;
const CDRF_SKIPDEFAULT: u32 = 4;
const CDRF_NOTIFYPOSTPAINT: u32 = 0x10;
const CDRF_NOTIFYITEMDRAW: u32 = 0x20;
const CDIS_SELECTED: u32 = 1;
const CDIS_FOCUS: u32 = 0x10;

const DLGC_WANTARROWS: u32 = 1;
const DLGC_WANTCHARS: u32 = 0x80;

/// Column width of the list view (and item width of the small-icon view) when
/// nobody set one.
const LIST_COLUMN_WIDTH: i32 = 128;
/// Space after a label's text in its rectangle.
const LABEL_PAD: i32 = 12;
/// The icon view's grid (SM_CXICONSPACING / SM_CYICONSPACING).
const ICON_SPACING: (i32, i32) = (75, 75);

#[derive(Clone, Default)]
struct LvItem {
    /// None: LPSTR_TEXTCALLBACK.
    text: Option<String>,
    image: i32,
    param: u32,
    state: u32,
    indent: i32,
    /// Texts of sub-items 1.. (None: callback or never set).
    subs: Vec<Option<String>>,
}

#[derive(Clone, Default)]
struct Column {
    fmt: u32,
    sub_item: i32,
    image: i32,
}

struct Lv {
    items: Vec<LvItem>,
    cols: Vec<Column>,
    header: u32,
    font: u32,
    himl: [u32; 3],
    ext: u32,
    bk: u32,
    text_color: u32,
    text_bk: u32,
    /// First visible row (report, small icon, icon) or column (list).
    top: i32,
    anchor: i32,
    mark: i32,
    hot: i32,
    callback_mask: u32,
    list_width: i32,
    icon_spacing: (i32, i32),
    unicode_fmt: bool,
    clicked: bool,
}

impl Default for Lv {
    fn default() -> Lv {
        Lv {
            items: Vec::new(),
            cols: Vec::new(),
            header: 0,
            font: 0,
            himl: [0; 3],
            ext: 0,
            bk: sys(5),
            text_color: sys(8),
            text_bk: sys(5),
            top: 0,
            anchor: -1,
            mark: -1,
            hot: -1,
            callback_mask: 0,
            list_width: LIST_COLUMN_WIDTH,
            icon_spacing: ICON_SPACING,
            unicode_fmt: false,
            clicked: false,
        }
    }
}

#[derive(Default)]
struct Lvs(Mutex<HashMap<u32, Lv>>);

fn with<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut Lv) -> R) -> Option<R> {
    let s = cx.proc.slot::<Lvs>();
    let mut m = s.0.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(&h).map(f)
}

fn view(cx: &Ctx, h: u32) -> u32 {
    style_of(cx, h) & LVS_TYPEMASK
}

fn count(cx: &Ctx, h: u32) -> i32 {
    with(cx, h, |s| s.items.len() as i32).unwrap_or(0)
}

// ---- geometry -----------------------------------------------------------------------------

/// What the layout depends on.
#[derive(Clone, Copy)]
struct Geo {
    view: u32,
    /// Client size.
    w: i32,
    h: i32,
    item_h: i32,
    header_h: i32,
    small: (i32, i32),
    large: (i32, i32),
    state: (i32, i32),
    top: i32,
    list_w: i32,
    spacing: (i32, i32),
    /// List view: rows per column (room for the horizontal scroll bar is kept
    /// whether it shows or not, so columns do not reflow when it appears).
    list_rows: i32,
    /// Client width without the vertical scroll bar: icons keep their places when
    /// it appears.
    full_w: i32,
}

fn il_size(cx: &Ctx, himl: u32) -> (i32, i32) {
    if himl == 0 {
        return (0, 0);
    }
    super::imagelist::size(cx.proc, himl).unwrap_or((0, 0))
}

fn geo(cx: &mut Ctx, h: u32) -> UR<Geo> {
    let (font, himl, top, list_w, spacing, header, ext) = with(cx, h, |s| {
        (
            s.font,
            s.himl,
            s.top,
            s.list_width,
            s.icon_spacing,
            s.header,
            s.ext,
        )
    })
    .unwrap_or_default();
    let (th, _) = measure(cx, h, font, &[])?;
    let small = il_size(cx, himl[LVSIL_SMALL as usize]);
    let mut state = il_size(cx, himl[LVSIL_STATE as usize]);
    if ext & LVS_EX_CHECKBOXES != 0 && state == (0, 0) {
        state = (16, 16);
    }
    let large = il_size(cx, himl[LVSIL_NORMAL as usize]);
    let v = view(cx, h);
    let item_h = th.max(small.1).max(state.1) + 1;
    let header_h = if v == LVS_REPORT && header != 0 && style_of(cx, h) & LVS_NOCOLUMNHEADER == 0 {
        lock_wm(cx.proc).win(header).map_or(0, |w| w.rect.height())
    } else {
        0
    };
    let (w, hh) = client_size(cx, h);
    let bar = crate::user32::window::GetSystemMetrics(cx, 3);
    let full_h = hh
        + if style_of(cx, h) & 0x10_0000 != 0 {
            bar
        } else {
            0
        };
    let list_rows = ((full_h - bar) / item_h.max(1)).max(1);
    let vbar = crate::user32::window::GetSystemMetrics(cx, 2);
    let full_w = w + if style_of(cx, h) & 0x20_0000 != 0 {
        vbar
    } else {
        0
    };
    Ok(Geo {
        view: v,
        w,
        h: hh,
        item_h,
        header_h,
        small,
        large,
        state,
        top,
        list_w,
        spacing,
        list_rows,
        full_w,
    })
}

/// Report columns: (left, width) by column index (header item order).
fn columns(cx: &Ctx, h: u32) -> Vec<(i32, i32)> {
    let hd = with(cx, h, |s| s.header).unwrap_or(0);
    if hd == 0 {
        return Vec::new();
    }
    super::header::spans(cx, hd)
}

/// Rows per page in the report and list views.
fn per_page(g: &Geo) -> i32 {
    if g.view == LVS_LIST {
        return g.list_rows;
    }
    ((g.h - g.header_h) / g.item_h.max(1)).max(1)
}

/// Icon view: items per row.
fn icons_per_row(g: &Geo) -> i32 {
    (g.full_w / g.spacing.0.max(1)).max(1)
}

/// The bounding rectangle of item `i` (client coordinates).
fn bounds(cx: &mut Ctx, h: u32, g: &Geo, i: i32) -> UR<Rect> {
    Ok(match g.view {
        LVS_REPORT => {
            let cols = columns(cx, h);
            let total: i32 = cols.iter().map(|c| c.1).sum();
            let y = g.header_h + (i - g.top) * g.item_h;
            Rect::new(0, y, total, y + g.item_h)
        }
        LVS_LIST => {
            let pp = per_page(g);
            let col = i / pp - g.top;
            let x = col * g.list_w;
            let y = (i % pp) * g.item_h;
            Rect::new(x, y, x + g.list_w, y + g.item_h)
        }
        LVS_SMALLICON => {
            let iw = g.list_w.max(1);
            let per_row = (g.w / iw).max(1);
            let x = (i % per_row) * iw;
            let y = (i / per_row - g.top) * g.item_h;
            Rect::new(x, y, x + iw, y + g.item_h)
        }
        _ => {
            let pr = icons_per_row(g);
            let x = (i % pr) * g.spacing.0;
            let y = (i / pr - g.top) * g.spacing.1;
            Rect::new(x, y, x + g.spacing.0, y + g.spacing.1)
        }
    })
}

/// (state icon, icon, label) rectangles of item `i`.
fn parts(cx: &mut Ctx, h: u32, g: &Geo, i: i32) -> UR<(Rect, Rect, Rect)> {
    let b = bounds(cx, h, g, i)?;
    let font = with(cx, h, |s| s.font).unwrap_or(0);
    if g.view == LVS_ICON {
        let ix = b.left + (b.width() - g.large.0) / 2;
        let icon_h = if g.large.1 > 0 { g.large.1 } else { 32 };
        let icon = Rect::new(ix, b.top + 4, ix + g.large.0, b.top + 4 + g.large.1);
        let text = item_text(cx, h, i, 0)?;
        let (th, ws) = measure(cx, h, font, &[text.as_str()])?;
        let lw = (ws[0] + LABEL_PAD).min(b.width());
        let lx = b.left + (b.width() - lw) / 2;
        let ly = b.top + 4 + icon_h + 2;
        let label = Rect::new(lx, ly, lx + lw, ly + th + 1);
        return Ok((Rect::new(ix, icon.top, ix, icon.top), icon, label));
    }
    let indent = with(cx, h, |s| s.items.get(i as usize).map_or(0, |it| it.indent)).unwrap_or(0);
    let report = g.view == LVS_REPORT;
    // The report view keeps a 2-pixel margin left of the first column's content.
    let x0 = b.left + if report { 2 } else { 0 } + indent * g.small.0.max(16);
    let icon_h = if g.small.1 > 0 { g.small.1 } else { 16 };
    let st = Rect::new(x0, b.top, x0 + g.state.0, b.top + icon_h.max(g.state.1));
    let icon = Rect::new(st.right, b.top, st.right + g.small.0, b.top + icon_h);
    let right = if report {
        columns(cx, h).first().map_or(b.left, |c| c.0 + c.1)
    } else {
        let text = item_text(cx, h, i, 0)?;
        let (_, ws) = measure(cx, h, font, &[text.as_str()])?;
        (icon.right + ws[0] + LABEL_PAD).min(b.right)
    };
    let label = Rect::new(icon.right, b.top, right, b.bottom);
    Ok((st, icon, label))
}

fn item_rect(cx: &mut Ctx, h: u32, i: i32, code: i32) -> UR<Option<Rect>> {
    if i < 0 || i >= count(cx, h) {
        return Ok(None);
    }
    let g = geo(cx, h)?;
    let (st, icon, label) = parts(cx, h, &g, i)?;
    Ok(Some(match code {
        LVIR_BOUNDS => bounds(cx, h, &g, i)?,
        LVIR_ICON => icon,
        LVIR_LABEL => label,
        LVIR_SELECTBOUNDS => Rect::new(
            st.left.min(icon.left).min(label.left),
            icon.top.min(label.top),
            label.right,
            label.bottom,
        ),
        _ => return Ok(None),
    }))
}

/// Hit test: (item, sub-item, flags).
fn hit_test(cx: &mut Ctx, h: u32, p: (i32, i32)) -> UR<(i32, i32, u32)> {
    let g = geo(cx, h)?;
    let mut out = 0;
    if p.1 < 0 {
        out |= LVHT_ABOVE;
    } else if p.1 >= g.h {
        out |= LVHT_BELOW;
    }
    if p.0 < 0 {
        out |= LVHT_TOLEFT;
    } else if p.0 >= g.w {
        out |= LVHT_TORIGHT;
    }
    if out != 0 {
        return Ok((-1, -1, out));
    }
    let n = count(cx, h);
    let full_row = with(cx, h, |s| s.ext & LVS_EX_FULLROWSELECT != 0).unwrap_or(false);
    for i in 0..n {
        let b = bounds(cx, h, &g, i)?;
        if !inside(&b, p) {
            continue;
        }
        if g.view == LVS_REPORT && p.1 < g.header_h {
            break;
        }
        let (st, icon, label) = parts(cx, h, &g, i)?;
        let mut sub = 0;
        if g.view == LVS_REPORT {
            let cols = columns(cx, h);
            sub = cols
                .iter()
                .position(|c| p.0 >= c.0 && p.0 < c.0 + c.1)
                .map_or(0, |k| k as i32);
        }
        let flags = if inside(&st, p) && st.width() > 0 {
            LVHT_ONITEMSTATEICON
        } else if inside(&icon, p) && icon.width() > 0 {
            LVHT_ONITEMICON
        } else if inside(&label, p) || full_row || g.view != LVS_REPORT {
            LVHT_ONITEMLABEL
        } else {
            // Report view beyond the first column hits the row's sub-item only.
            return Ok((-1, sub, LVHT_NOWHERE));
        };
        return Ok((i, sub, flags));
    }
    Ok((-1, -1, LVHT_NOWHERE))
}

// ---- item data ------------------------------------------------------------------------------

/// LVN_GETDISPINFO for `mask` of item `i` / `sub`, in the parent's character set;
/// returns (text, image, state) as the parent filled them.
fn dispinfo(cx: &mut Ctx, h: u32, i: i32, sub: i32, mask: u32, cap: u32) -> UR<(String, i32, u32)> {
    let unicode = parent_unicode(cx, h);
    let (param, image, state, indent) = with(cx, h, |s| {
        s.items
            .get(i as usize)
            .map_or((0, 0, 0, 0), |it| (it.param, it.image, it.state, it.indent))
    })
    .unwrap_or_default();
    let cap = cap.clamp(1, 1024);
    let (buf, esp) = crate::user32::stack_alloc(cx, cap * 2 + 2);
    let r = (|| -> UR<(String, i32, u32)> {
        cx.proc.mem.write_u32(buf, 0)?;
        let body = le32(&[
            mask,
            i as u32,
            sub as u32,
            state,
            0,
            if mask & LVIF_TEXT != 0 { buf } else { 0 },
            cap,
            image as u32,
            param,
            indent as u32,
        ]);
        let code = if unicode {
            LVN_GETDISPINFOW
        } else {
            LVN_GETDISPINFOA
        };
        let (_, out) = notify(cx, h, code, &body)?;
        let p = u32_at(&out, 20);
        let text = if mask & LVIF_TEXT != 0 && p != 0 && p != u32::MAX {
            crate::user32::read_str(cx, p, unicode)?
        } else {
            String::new()
        };
        let got_image = u32_at(&out, 28) as i32;
        let got_state = u32_at(&out, 12);
        if u32_at(&out, 0) & LVIF_DI_SETITEM != 0 {
            with(cx, h, |s| {
                if let Some(it) = s.items.get_mut(i as usize) {
                    if mask & LVIF_TEXT != 0 && sub == 0 {
                        it.text = Some(text.clone());
                    }
                    if mask & LVIF_IMAGE != 0 {
                        it.image = got_image;
                    }
                }
            });
        }
        Ok((text, got_image, got_state))
    })();
    crate::user32::stack_free(cx, esp);
    r
}

fn item_text(cx: &mut Ctx, h: u32, i: i32, sub: i32) -> UR<String> {
    item_text_cap(cx, h, i, sub, 260)
}

/// Item or sub-item text; a callback item's sub-items never set are callbacks too.
/// `cap` is the buffer size LVN_GETDISPINFO announces.
fn item_text_cap(cx: &mut Ctx, h: u32, i: i32, sub: i32, cap: u32) -> UR<String> {
    let t = with(cx, h, |s| {
        s.items.get(i as usize).map(|it| {
            if sub <= 0 {
                it.text.clone()
            } else {
                let unset = if it.text.is_none() {
                    None
                } else {
                    Some(String::new())
                };
                it.subs.get(sub as usize - 1).cloned().unwrap_or(unset)
            }
        })
    })
    .flatten();
    match t {
        None => Ok(String::new()),
        Some(Some(t)) => Ok(t),
        Some(None) => Ok(dispinfo(cx, h, i, sub, LVIF_TEXT, cap)?.0),
    }
}

fn item_image(cx: &mut Ctx, h: u32, i: i32) -> UR<i32> {
    let img = with(cx, h, |s| s.items.get(i as usize).map_or(-1, |it| it.image)).unwrap_or(-1);
    if img == I_IMAGECALLBACK {
        return Ok(dispinfo(cx, h, i, 0, LVIF_IMAGE, 1)?.1);
    }
    Ok(img)
}

fn nmlistview(
    item: i32,
    sub: i32,
    new: u32,
    old: u32,
    changed: u32,
    pt: (i32, i32),
    param: u32,
) -> Vec<u8> {
    le32(&[
        item as u32,
        sub as u32,
        new,
        old,
        changed,
        pt.0 as u32,
        pt.1 as u32,
        param,
    ])
}

/// Changes item `i`'s state bits in `mask` to `state` with LVN_ITEMCHANGING /
/// ITEMCHANGED; focusing an item unfocuses the one that had the focus, and
/// LVS_SINGLESEL keeps one item selected. False if the parent refused.
fn set_state(cx: &mut Ctx, h: u32, i: i32, state: u32, mask: u32) -> UR<bool> {
    let Some(Some((old, param))) = with(cx, h, |s| {
        s.items.get(i as usize).map(|it| (it.state, it.param))
    }) else {
        return Ok(false);
    };
    let new = (old & !mask) | (state & mask);
    if new == old {
        return Ok(true);
    }
    let body = nmlistview(i, 0, new, old, LVIF_STATE, (0, 0), param);
    if notify(cx, h, LVN_ITEMCHANGING, &body)?.0 != 0 {
        return Ok(false);
    }
    if new & LVIS_FOCUSED != 0 && old & LVIS_FOCUSED == 0 {
        let others: Vec<i32> = with(cx, h, |s| {
            s.items
                .iter()
                .enumerate()
                .filter(|(k, it)| *k as i32 != i && it.state & LVIS_FOCUSED != 0)
                .map(|(k, _)| k as i32)
                .collect()
        })
        .unwrap_or_default();
        for o in others {
            set_state(cx, h, o, 0, LVIS_FOCUSED)?;
        }
    }
    if new & LVIS_SELECTED != 0 && old & LVIS_SELECTED == 0 && style_of(cx, h) & LVS_SINGLESEL != 0
    {
        let others: Vec<i32> = with(cx, h, |s| {
            s.items
                .iter()
                .enumerate()
                .filter(|(k, it)| *k as i32 != i && it.state & LVIS_SELECTED != 0)
                .map(|(k, _)| k as i32)
                .collect()
        })
        .unwrap_or_default();
        for o in others {
            set_state(cx, h, o, 0, LVIS_SELECTED)?;
        }
    }
    with(cx, h, |s| {
        if let Some(it) = s.items.get_mut(i as usize) {
            it.state = new;
        }
    });
    redraw(cx, h);
    notify(cx, h, LVN_ITEMCHANGED, &body)?;
    Ok(true)
}

/// LVM_SETITEMSTATE's index -1: every item.
fn set_state_all(cx: &mut Ctx, h: u32, i: i32, state: u32, mask: u32) -> UR<bool> {
    if i >= 0 {
        return set_state(cx, h, i, state, mask);
    }
    for k in 0..count(cx, h) {
        set_state(cx, h, k, state, mask)?;
    }
    Ok(true)
}

/// An LVITEM's fields by its mask.
struct ItemArg {
    mask: u32,
    item: i32,
    sub: i32,
    state: u32,
    state_mask: u32,
    text: Option<Option<String>>,
    image: i32,
    param: u32,
    indent: i32,
}

fn read_lvitem(cx: &Ctx, p: u32, unicode: bool) -> UR<ItemArg> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let t = m.read_u32(p + 20)?;
    Ok(ItemArg {
        mask,
        item: m.read_u32(p + 4)? as i32,
        sub: m.read_u32(p + 8)? as i32,
        state: m.read_u32(p + 12)?,
        state_mask: m.read_u32(p + 16)?,
        text: if mask & LVIF_TEXT != 0 {
            Some(if t == u32::MAX {
                None
            } else {
                Some(text_arg(cx, t, unicode)?.unwrap_or_default())
            })
        } else {
            None
        },
        image: m.read_u32(p + 28)? as i32,
        param: m.read_u32(p + 32)?,
        indent: if mask & LVIF_INDENT != 0 {
            m.read_u32(p + 36)? as i32
        } else {
            0
        },
    })
}

/// The insertion index for LVS_SORTASCENDING / DESCENDING.
fn sorted_index(cx: &Ctx, h: u32, text: &str, desc: bool) -> usize {
    let key = text.to_lowercase();
    with(cx, h, |s| {
        s.items
            .iter()
            .position(|it| {
                let t = it.text.as_deref().unwrap_or("").to_lowercase();
                if desc { t < key } else { t > key }
            })
            .unwrap_or(s.items.len())
    })
    .unwrap_or(0)
}

/// LVM_SETITEMCOUNT of a virtual list: placeholder items answered by the parent.
fn set_virtual_count(cx: &mut Ctx, h: u32, n: u32) -> UR<()> {
    let n = n.min(1 << 20) as usize;
    with(cx, h, |s| {
        s.items.resize(
            n,
            LvItem {
                text: None,
                image: I_IMAGECALLBACK,
                ..LvItem::default()
            },
        );
        let last = n as i32 - 1;
        for m in [&mut s.anchor, &mut s.mark] {
            if *m > last {
                *m = -1;
            }
        }
        if s.top > last {
            s.top = last.max(0);
        }
    });
    update_scroll(cx, h)?;
    redraw(cx, h);
    Ok(())
}

fn insert_item(cx: &mut Ctx, h: u32, p: u32, unicode: bool) -> UR<u32> {
    if p == 0 || style_of(cx, h) & LVS_OWNERDATA != 0 {
        return Ok(u32::MAX);
    }
    let a = read_lvitem(cx, p, unicode)?;
    if a.sub != 0 || a.item < 0 {
        return Ok(u32::MAX);
    }
    let it = LvItem {
        text: a.text.clone().unwrap_or(Some(String::new())),
        image: if a.mask & LVIF_IMAGE != 0 { a.image } else { 0 },
        param: if a.mask & LVIF_PARAM != 0 { a.param } else { 0 },
        state: if a.mask & LVIF_STATE != 0 {
            a.state & a.state_mask & !(LVIS_FOCUSED | LVIS_SELECTED)
        } else {
            0
        },
        indent: a.indent,
        subs: Vec::new(),
    };
    let style = style_of(cx, h);
    let text = it.text.clone().unwrap_or_default();
    let index = if style & (LVS_SORTASCENDING | LVS_SORTDESCENDING) != 0 {
        sorted_index(cx, h, &text, style & LVS_SORTDESCENDING != 0)
    } else {
        (a.item as usize).min(count(cx, h) as usize)
    };
    let param = it.param;
    with(cx, h, |s| {
        s.items.insert(index, it);
        for m in [&mut s.anchor, &mut s.mark] {
            if *m >= index as i32 {
                *m += 1;
            }
        }
    });
    update_scroll(cx, h)?;
    redraw(cx, h);
    notify(
        cx,
        h,
        LVN_INSERTITEM,
        &nmlistview(index as i32, 0, 0, 0, 0, (0, 0), param),
    )?;
    // Selection and focus asked for at insertion go through the notifications.
    if a.mask & LVIF_STATE != 0 && a.state_mask & (LVIS_FOCUSED | LVIS_SELECTED) != 0 {
        let m = a.state_mask & (LVIS_FOCUSED | LVIS_SELECTED);
        set_state(cx, h, index as i32, a.state, m)?;
    }
    Ok(index as u32)
}

fn set_item(cx: &mut Ctx, h: u32, a: &ItemArg) -> UR<bool> {
    let n = count(cx, h);
    if a.item < 0 || a.item >= n {
        return Ok(false);
    }
    if a.sub > 0 {
        if let Some(t) = &a.text {
            let t = t.clone();
            with(cx, h, |s| {
                let it = &mut s.items[a.item as usize];
                let k = a.sub as usize - 1;
                if it.subs.len() <= k {
                    it.subs.resize(k + 1, Some(String::new()));
                }
                it.subs[k] = t;
            });
            redraw(cx, h);
        }
        return Ok(true);
    }
    let other = a.mask & (LVIF_TEXT | LVIF_IMAGE | LVIF_PARAM | LVIF_INDENT);
    if other != 0 {
        let Some((old_state, param)) = with(cx, h, |s| {
            let it = &s.items[a.item as usize];
            (it.state, it.param)
        }) else {
            return Ok(false);
        };
        let body = nmlistview(
            a.item,
            0,
            old_state,
            old_state,
            other & !LVIF_INDENT,
            (0, 0),
            param,
        );
        if notify(cx, h, LVN_ITEMCHANGING, &body)?.0 != 0 {
            return Ok(false);
        }
        with(cx, h, |s| {
            let it = &mut s.items[a.item as usize];
            if let Some(t) = &a.text {
                it.text = t.clone();
            }
            if a.mask & LVIF_IMAGE != 0 {
                it.image = a.image;
            }
            if a.mask & LVIF_PARAM != 0 {
                it.param = a.param;
            }
            if a.mask & LVIF_INDENT != 0 {
                it.indent = a.indent;
            }
        });
        redraw(cx, h);
        let param = with(cx, h, |s| s.items[a.item as usize].param).unwrap_or(0);
        let body = nmlistview(
            a.item,
            0,
            old_state,
            old_state,
            other & !LVIF_INDENT,
            (0, 0),
            param,
        );
        notify(cx, h, LVN_ITEMCHANGED, &body)?;
    }
    if a.mask & LVIF_STATE != 0 {
        return set_state(cx, h, a.item, a.state, a.state_mask);
    }
    Ok(true)
}

fn get_item(cx: &mut Ctx, h: u32, p: u32, unicode: bool) -> UR<bool> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let i = m.read_u32(p + 4)? as i32;
    let sub = m.read_u32(p + 8)? as i32;
    let Some(Some(it)) = with(cx, h, |s| s.items.get(i as usize).cloned()) else {
        return Ok(false);
    };
    if mask & LVIF_TEXT != 0 {
        let buf = m.read_u32(p + 20)?;
        let cap = m.read_u32(p + 24)?;
        let t = item_text_cap(cx, h, i, sub, cap)?;
        if buf != 0 && buf != u32::MAX && cap > 0 {
            crate::user32::put_str(cx, buf, cap, &t, unicode)?;
        }
    }
    let m = &cx.proc.mem;
    if mask & LVIF_IMAGE != 0 {
        let img = if sub == 0 { item_image(cx, h, i)? } else { 0 };
        cx.proc.mem.write_u32(p + 28, img as u32)?;
    }
    if mask & LVIF_PARAM != 0 {
        m.write_u32(p + 32, it.param)?;
    }
    if mask & LVIF_STATE != 0 {
        let sm = m.read_u32(p + 16)?;
        m.write_u32(p + 12, it.state & sm)?;
    }
    if mask & LVIF_INDENT != 0 {
        m.write_u32(p + 36, it.indent as u32)?;
    }
    Ok(true)
}

fn delete_item(cx: &mut Ctx, h: u32, i: i32) -> UR<bool> {
    let Some(Some((state, param))) = with(cx, h, |s| {
        s.items.get(i as usize).map(|it| (it.state, it.param))
    }) else {
        return Ok(false);
    };
    // The item is deselected (LVN_ITEMCHANGING) before it goes, as Windows and Wine do.
    let keep = state & (LVIS_SELECTED | LVIS_FOCUSED);
    let body = nmlistview(i, 0, 0, keep, LVIF_STATE, (0, 0), param);
    notify(cx, h, LVN_ITEMCHANGING, &body)?;
    notify(
        cx,
        h,
        LVN_DELETEITEM,
        &nmlistview(i, 0, 0, 0, 0, (0, 0), param),
    )?;
    with(cx, h, |s| {
        if (i as usize) < s.items.len() {
            s.items.remove(i as usize);
        }
        for m in [&mut s.anchor, &mut s.mark] {
            if *m == i {
                *m = -1;
            } else if *m > i {
                *m -= 1;
            }
        }
        let n = s.items.len() as i32;
        if s.top >= n {
            s.top = (n - 1).max(0);
        }
    });
    update_scroll(cx, h)?;
    redraw(cx, h);
    Ok(true)
}

fn delete_all(cx: &mut Ctx, h: u32) -> UR<bool> {
    let (r, _) = notify(
        cx,
        h,
        LVN_DELETEALLITEMS,
        &nmlistview(-1, 0, 0, 0, 0, (0, 0), 0),
    )?;
    if r == 0 {
        let params: Vec<u32> =
            with(cx, h, |s| s.items.iter().map(|it| it.param).collect()).unwrap_or_default();
        for (i, p) in params.iter().enumerate().rev() {
            notify(
                cx,
                h,
                LVN_DELETEITEM,
                &nmlistview(i as i32, 0, 0, 0, 0, (0, 0), *p),
            )?;
        }
    }
    with(cx, h, |s| {
        s.items.clear();
        s.top = 0;
        s.anchor = -1;
        s.mark = -1;
    });
    update_scroll(cx, h)?;
    redraw(cx, h);
    Ok(true)
}

/// LVM_SORTITEMS(EX): a merge sort whose comparisons call the program's function
/// with the two items' lParams (EX: their indexes) and the program's value.
fn sort(cx: &mut Ctx, h: u32, f: u32, value: u32, by_index: bool) -> UR<bool> {
    if f == 0 || style_of(cx, h) & LVS_OWNERDATA != 0 {
        return Ok(false);
    }
    let items = with(cx, h, |s| s.items.clone()).unwrap_or_default();
    let n = items.len();
    let mut idx: Vec<usize> = (0..n).collect();
    let mut width = 1;
    while width < n {
        let mut out = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut a, mut b) = (start, mid);
            while a < mid && b < end {
                let (x, y) = (idx[a], idx[b]);
                let (px, py) = if by_index {
                    (x as u32, y as u32)
                } else {
                    (items[x].param, items[y].param)
                };
                let c = crate::user32::guest(cx, f, &[px, py, value])? as i32;
                if c <= 0 {
                    out.push(x);
                    a += 1;
                } else {
                    out.push(y);
                    b += 1;
                }
            }
            out.extend_from_slice(&idx[a..mid]);
            out.extend_from_slice(&idx[b..end]);
            start = end;
        }
        idx = out;
        width *= 2;
    }
    with(cx, h, |s| {
        if s.items.len() == n {
            s.items = idx.iter().map(|&k| items[k].clone()).collect();
        }
    });
    redraw(cx, h);
    Ok(true)
}

fn find_item(cx: &mut Ctx, h: u32, start: i32, p: u32, unicode: bool) -> UR<i32> {
    if p == 0 {
        return Ok(-1);
    }
    let flags = rd(cx, p)?;
    let s = if flags & (LVFI_STRING | LVFI_PARTIAL) != 0 {
        crate::user32::read_str(cx, rd(cx, p + 4)?, unicode)?.to_lowercase()
    } else {
        String::new()
    };
    let param = rd(cx, p + 8)?;
    let n = count(cx, h);
    let first = (start + 1).max(0);
    let mut order: Vec<i32> = (first..n).collect();
    if flags & LVFI_WRAP != 0 {
        order.extend(0..first.min(n));
    }
    for i in order {
        if flags & LVFI_PARAM != 0 {
            if with(cx, h, |st| st.items[i as usize].param).unwrap_or(0) == param {
                return Ok(i);
            }
            continue;
        }
        if flags & (LVFI_STRING | LVFI_PARTIAL) != 0 {
            let t = item_text(cx, h, i, 0)?.to_lowercase();
            let hit = if flags & LVFI_PARTIAL != 0 {
                t.starts_with(&s)
            } else {
                t == s
            };
            if hit {
                return Ok(i);
            }
        }
    }
    Ok(-1)
}

fn rd(cx: &Ctx, a: u32) -> UR<u32> {
    Ok(cx.proc.mem.read_u32(a)?)
}

fn next_item(cx: &mut Ctx, h: u32, start: i32, flags: u32) -> UR<i32> {
    let n = count(cx, h);
    let want = flags & (LVNI_FOCUSED | LVNI_SELECTED | 0x4 | 0x8);
    let matches = |cx: &Ctx, i: i32| {
        with(cx, h, |s| s.items[i as usize].state & want == want).unwrap_or(false)
    };
    let g = geo(cx, h)?;
    let step: Option<i32> = if flags & LVNI_ABOVE != 0 {
        Some(match g.view {
            LVS_REPORT | LVS_LIST => -1,
            LVS_ICON => -icons_per_row(&g),
            _ => -1,
        })
    } else if flags & LVNI_BELOW != 0 {
        Some(match g.view {
            LVS_ICON => icons_per_row(&g),
            _ => 1,
        })
    } else if flags & LVNI_TOLEFT != 0 {
        Some(if g.view == LVS_LIST {
            -per_page(&g)
        } else {
            -1
        })
    } else if flags & LVNI_TORIGHT != 0 {
        Some(if g.view == LVS_LIST { per_page(&g) } else { 1 })
    } else {
        None
    };
    if let Some(step) = step {
        if start < 0 || start >= n {
            return Ok(-1);
        }
        let mut i = start + step;
        while i >= 0 && i < n {
            if matches(cx, i) {
                return Ok(i);
            }
            i += step;
        }
        return Ok(-1);
    }
    for i in (start + 1).max(0)..n {
        if matches(cx, i) {
            return Ok(i);
        }
    }
    Ok(-1)
}

// ---- columns -----------------------------------------------------------------------------

fn insert_column(cx: &mut Ctx, h: u32, index: u32, p: u32, unicode: bool) -> UR<u32> {
    if p == 0 {
        return Ok(u32::MAX);
    }
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let fmt = if mask & LVCF_FMT != 0 {
        m.read_u32(p + 4)?
    } else {
        0
    };
    let width = if mask & LVCF_WIDTH != 0 {
        m.read_u32(p + 8)? as i32
    } else {
        0
    };
    let text = if mask & LVCF_TEXT != 0 {
        text_arg(cx, m.read_u32(p + 12)?, unicode)?.unwrap_or_default()
    } else {
        String::new()
    };
    let m = &cx.proc.mem;
    let sub = if mask & LVCF_SUBITEM != 0 {
        Some(m.read_u32(p + 20)? as i32)
    } else {
        None
    };
    let image = if mask & LVCF_IMAGE != 0 {
        m.read_u32(p + 24)? as i32
    } else {
        -1
    };
    let Some((hd, n)) = with(cx, h, |s| (s.header, s.cols.len())) else {
        return Ok(u32::MAX);
    };
    let i = (index as usize).min(n);
    // The first column is always left-aligned.
    let fmt = if i == 0 { fmt & !3 } else { fmt };
    with(cx, h, |s| {
        s.cols.insert(
            i,
            Column {
                fmt,
                sub_item: sub.unwrap_or(i as i32),
                image,
            },
        )
    });
    if hd != 0 {
        super::header::insert_item(
            cx,
            hd,
            i as u32,
            super::header::Item {
                text,
                width,
                fmt: (fmt & 3) | 0x4000,
                image,
                ..Default::default()
            },
        );
    }
    redraw(cx, h);
    Ok(i as u32)
}

fn get_column(cx: &mut Ctx, h: u32, i: u32, p: u32, unicode: bool) -> UR<bool> {
    let Some(Some((col, hd))) = with(cx, h, |s| {
        s.cols.get(i as usize).cloned().map(|c| (c, s.header))
    }) else {
        return Ok(false);
    };
    if p == 0 {
        return Ok(false);
    }
    let hi = super::header::items(cx, hd);
    let (text, width) = hi
        .get(i as usize)
        .map_or((String::new(), 0), |it| (it.text.clone(), it.width));
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & LVCF_FMT != 0 {
        m.write_u32(p + 4, col.fmt)?;
    }
    if mask & LVCF_WIDTH != 0 {
        m.write_u32(p + 8, width as u32)?;
    }
    if mask & LVCF_TEXT != 0 {
        let buf = m.read_u32(p + 12)?;
        let cap = m.read_u32(p + 16)?;
        if buf != 0 && cap > 0 {
            crate::user32::put_str(cx, buf, cap, &text, unicode)?;
        }
    }
    let m = &cx.proc.mem;
    if mask & LVCF_SUBITEM != 0 {
        m.write_u32(p + 20, col.sub_item as u32)?;
    }
    if mask & LVCF_IMAGE != 0 {
        m.write_u32(p + 24, col.image as u32)?;
    }
    if mask & LVCF_ORDER != 0 {
        let order = super::header::order(cx, hd);
        let o = order
            .iter()
            .position(|&k| k == i as usize)
            .unwrap_or(i as usize);
        m.write_u32(p + 28, o as u32)?;
    }
    Ok(true)
}

fn set_column(cx: &mut Ctx, h: u32, i: u32, p: u32, unicode: bool) -> UR<bool> {
    let Some((hd, n)) = with(cx, h, |s| (s.header, s.cols.len())) else {
        return Ok(false);
    };
    if i as usize >= n || p == 0 {
        return Ok(false);
    }
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let fmt = m.read_u32(p + 4)?;
    let width = m.read_u32(p + 8)? as i32;
    let text = if mask & LVCF_TEXT != 0 {
        Some(text_arg(cx, m.read_u32(p + 12)?, unicode)?.unwrap_or_default())
    } else {
        None
    };
    let m = &cx.proc.mem;
    let sub = m.read_u32(p + 20)? as i32;
    let image = m.read_u32(p + 24)? as i32;
    with(cx, h, |s| {
        let c = &mut s.cols[i as usize];
        if mask & LVCF_FMT != 0 {
            c.fmt = if i == 0 { fmt & !3 } else { fmt };
        }
        if mask & LVCF_SUBITEM != 0 {
            c.sub_item = sub;
        }
        if mask & LVCF_IMAGE != 0 {
            c.image = image;
        }
    });
    let cfmt = with(cx, h, |s| s.cols[i as usize].fmt).unwrap_or(0);
    super::header::set_item(cx, hd, i as usize, |it| {
        if let Some(t) = text {
            it.text = t;
        }
        if mask & LVCF_WIDTH != 0 {
            it.width = width;
        }
        if mask & LVCF_FMT != 0 {
            it.fmt = (cfmt & 3) | 0x4000;
        }
    });
    redraw(cx, h);
    Ok(true)
}

fn set_column_width(cx: &mut Ctx, h: u32, i: u32, w: i32) -> UR<bool> {
    let g = geo(cx, h)?;
    if g.view == LVS_LIST {
        if i != 0 {
            return Ok(false);
        }
        with(cx, h, |s| s.list_width = w.max(1));
        redraw(cx, h);
        return Ok(true);
    }
    if g.view != LVS_REPORT {
        return Ok(false);
    }
    let Some((hd, n)) = with(cx, h, |s| (s.header, s.cols.len())) else {
        return Ok(false);
    };
    if i as usize >= n {
        return Ok(false);
    }
    let width = match w {
        LVSCW_AUTOSIZE | LVSCW_AUTOSIZE_USEHEADER => {
            let mut texts = Vec::new();
            for k in 0..count(cx, h) {
                texts.push(item_text(cx, h, k, i as i32)?);
            }
            if w == LVSCW_AUTOSIZE_USEHEADER {
                let hi = super::header::items(cx, hd);
                texts.push(
                    hi.get(i as usize)
                        .map(|it| it.text.clone())
                        .unwrap_or_default(),
                );
            }
            let font = with(cx, h, |s| s.font).unwrap_or(0);
            let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
            let (_, ws) = measure(cx, h, font, &refs)?;
            let extra = if i == 0 {
                g.small.0 + g.state.0 + 4
            } else {
                12
            };
            ws.into_iter().max().unwrap_or(0) + extra
        }
        w => w,
    };
    super::header::set_item(cx, hd, i as usize, |it| it.width = width);
    redraw(cx, h);
    Ok(true)
}

// ---- scrolling ------------------------------------------------------------------------------

/// Rows (list view: columns) of content and the number that fit.
fn extent(cx: &mut Ctx, h: u32) -> UR<(i32, i32)> {
    let g = geo(cx, h)?;
    let n = count(cx, h);
    Ok(match g.view {
        LVS_REPORT => (n, per_page(&g)),
        LVS_LIST => {
            let pp = per_page(&g);
            ((n + pp - 1) / pp, (g.w / g.list_w.max(1)).max(1))
        }
        LVS_SMALLICON => {
            let iw = g.list_w.max(1);
            let per_row = (g.w / iw).max(1);
            ((n + per_row - 1) / per_row, (g.h / g.item_h.max(1)).max(1))
        }
        _ => {
            let pr = icons_per_row(&g);
            ((n + pr - 1) / pr, (g.h / g.spacing.1.max(1)).max(1))
        }
    })
}

/// Shows the scroll bar the content needs (vertical; horizontal in the list view).
fn update_scroll(cx: &mut Ctx, h: u32) -> UR<()> {
    let (total, page) = extent(cx, h)?;
    let top = with(cx, h, |s| s.top).unwrap_or(0);
    let top = top.clamp(0, (total - page).max(0));
    with(cx, h, |s| s.top = top);
    let bar = if view(cx, h) == LVS_LIST { 0 } else { 1 };
    let (p, esp) = crate::user32::stack_alloc(cx, 28);
    let r = (|| -> UR<()> {
        let body = le32(&[
            28,
            0x7,
            0,
            (total - 1).max(0) as u32,
            page as u32,
            top as u32,
            0,
        ]);
        cx.proc.mem.write_bytes(p, &body)?;
        match crate::user32::scroll::SetScrollInfo(cx, h, bar, Ptr(p), true)? {
            crate::hle::Outcome::Return(_) => Ok(()),
            o => Err(Flow::End(o)),
        }
    })();
    crate::user32::stack_free(cx, esp);
    r
}

fn scroll_to(cx: &mut Ctx, h: u32, top: i32) -> UR<()> {
    let (total, page) = extent(cx, h)?;
    let top = top.clamp(0, (total - page).max(0));
    let changed = with(cx, h, |s| std::mem::replace(&mut s.top, top) != top).unwrap_or(false);
    if changed {
        update_scroll(cx, h)?;
        redraw(cx, h);
    }
    Ok(())
}

fn ensure_visible(cx: &mut Ctx, h: u32, i: i32) -> UR<bool> {
    let n = count(cx, h);
    if i < 0 || i >= n {
        return Ok(false);
    }
    let g = geo(cx, h)?;
    let (_, page) = extent(cx, h)?;
    let row = match g.view {
        LVS_LIST => i / per_page(&g),
        LVS_ICON => i / icons_per_row(&g),
        LVS_SMALLICON => {
            let iw = g.list_w.max(1);
            i / (g.w / iw).max(1)
        }
        _ => i,
    };
    let top = with(cx, h, |s| s.top).unwrap_or(0);
    if row < top {
        scroll_to(cx, h, row)?;
    } else if row >= top + page {
        scroll_to(cx, h, row - page + 1)?;
    }
    Ok(true)
}

fn on_scroll(cx: &mut Ctx, h: u32, code: u32) -> UR<()> {
    let (total, page) = extent(cx, h)?;
    let top = with(cx, h, |s| s.top).unwrap_or(0);
    let new = match code & 0xffff {
        0 => top - 1,
        1 => top + 1,
        2 => top - page,
        3 => top + page,
        4 | 5 => (code >> 16) as i32,
        6 => 0,
        7 => total,
        _ => top,
    };
    scroll_to(cx, h, new)
}

// ---- painting ------------------------------------------------------------------------------

/// NM_CUSTOMDRAW (NMLVCUSTOMDRAW): returns the answer and the colours it leaves.
#[allow(clippy::too_many_arguments)]
fn custom_draw(
    cx: &mut Ctx,
    h: u32,
    stage: u32,
    hdc: u32,
    r: Rect,
    item: u32,
    state: u32,
    param: u32,
    colors: (u32, u32),
) -> UR<(u32, u32, u32)> {
    let body = le32(&[
        stage,
        hdc,
        r.left as u32,
        r.top as u32,
        r.right as u32,
        r.bottom as u32,
        item,
        state,
        param,
        colors.0,
        colors.1,
        0,
    ]);
    let (res, out) = notify(cx, h, NM_CUSTOMDRAW, &body)?;
    Ok((res, u32_at(&out, 36), u32_at(&out, 40)))
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let g = geo(cx, h)?;
    let Some((font, bk, tc, tbk, ext, himl)) = with(cx, h, |s| {
        (s.font, s.bk, s.text_color, s.text_bk, s.ext, s.himl)
    }) else {
        return Ok(0);
    };
    let style = style_of(cx, h);
    let focused = lock_wm(cx.proc).focus == h;
    let cols = columns(cx, h);
    let n = count(cx, h);
    paint_with(cx, h, font, |cx, hdc, w, hh| {
        if bk != CLR_NONE {
            fill(cx, hdc, Rect::new(0, 0, w, hh), bk)?;
        }
        let (pre, _, _) = custom_draw(
            cx,
            h,
            CDDS_PREPAINT,
            hdc,
            Rect::new(0, 0, w, hh),
            0,
            0,
            0,
            (tc, tbk),
        )?;
        if pre & CDRF_SKIPDEFAULT != 0 {
            return Ok(());
        }
        for i in 0..n {
            let b = bounds(cx, h, &g, i)?;
            if b.bottom <= g.header_h || b.top >= hh || b.right <= 0 || b.left >= w {
                continue;
            }
            let Some(Some(it)) = with(cx, h, |s| s.items.get(i as usize).cloned()) else {
                continue;
            };
            let sel = it.state & LVIS_SELECTED != 0;
            let show_sel = sel && (focused || style & LVS_SHOWSELALWAYS != 0);
            let (mut fg, mut bg) = (tc, tbk);
            if pre & CDRF_NOTIFYITEMDRAW != 0 {
                let mut cds = 0;
                if sel {
                    cds |= CDIS_SELECTED;
                }
                if it.state & LVIS_FOCUSED != 0 && focused {
                    cds |= CDIS_FOCUS;
                }
                let (r, f2, b2) = custom_draw(
                    cx,
                    h,
                    CDDS_ITEMPREPAINT,
                    hdc,
                    b,
                    i as u32,
                    cds,
                    it.param,
                    (tc, tbk),
                )?;
                if r & CDRF_SKIPDEFAULT != 0 {
                    continue;
                }
                fg = f2;
                bg = b2;
            }
            let (st, icon, label) = parts(cx, h, &g, i)?;
            // State image / check box.
            if st.width() > 0 {
                let idx = (it.state & LVIS_STATEIMAGEMASK) >> 12;
                if himl[2] != 0 {
                    if idx > 0 {
                        super::imagelist::draw(
                            cx.proc,
                            himl[2],
                            idx as i32 - 1,
                            hdc,
                            st.left,
                            st.top,
                            0,
                        )?;
                    }
                } else if ext & LVS_EX_CHECKBOXES != 0 {
                    let bx = Rect::new(
                        st.left + 2,
                        st.top + (st.height() - 13) / 2,
                        st.left + 15,
                        st.top + (st.height() - 13) / 2 + 13,
                    );
                    fill(cx, hdc, bx, sys(5))?;
                    gp::draw_edge_ex(cx.proc, hdc, bx, gp::EDGE_SUNKEN, gp::BF_RECT)?;
                    if idx == 2 {
                        let c = Rect::new(bx.left + 4, bx.top + 4, bx.right - 4, bx.bottom - 4);
                        fill(cx, hdc, c, sys(8))?;
                    }
                }
            }
            let img_list = if g.view == LVS_ICON { himl[0] } else { himl[1] };
            if img_list != 0 && icon.width() > 0 {
                let img = item_image(cx, h, i)?;
                if img >= 0 {
                    super::imagelist::draw(cx.proc, img_list, img, hdc, icon.left, icon.top, 0)?;
                }
            }
            let text = item_text(cx, h, i, 0)?;
            let full = ext & LVS_EX_FULLROWSELECT != 0 && g.view == LVS_REPORT;
            let sel_rect = if full {
                Rect::new(label.left, b.top, b.right, b.bottom)
            } else if g.view == LVS_ICON {
                label
            } else {
                let (_, ws) = measure(cx, h, font, &[text.as_str()])?;
                Rect::new(
                    label.left,
                    label.top,
                    (label.left + ws[0] + 4).min(label.right.max(label.left + 1)),
                    label.bottom,
                )
            };
            let text_fg = if show_sel {
                let hb = if focused { sys(13) } else { sys(15) };
                fill(cx, hdc, sel_rect, hb)?;
                if focused { sys(14) } else { sys(8) }
            } else {
                if bg != CLR_NONE && bg != bk {
                    fill(cx, hdc, sel_rect, bg)?;
                }
                fg
            };
            super::header::set_text_color(cx, hdc, text_fg)?;
            let fmt = gp::DT_SINGLELINE | gp::DT_NOPREFIX | gp::DT_END_ELLIPSIS;
            let tr = Rect::new(label.left + 2, label.top, label.right - 2, label.bottom);
            if g.view == LVS_ICON {
                gp::draw_text(cx.proc, hdc, &text, tr, fmt | gp::DT_CENTER | gp::DT_TOP);
            } else {
                gp::draw_text(cx.proc, hdc, &text, tr, fmt | gp::DT_VCENTER);
            }
            if g.view == LVS_REPORT {
                let col_meta = with(cx, h, |s| s.cols.clone()).unwrap_or_default();
                for (k, c) in cols.iter().enumerate().skip(1) {
                    let meta = col_meta.get(k).cloned().unwrap_or_default();
                    // Sub-item texts are addressed by column, as Wine's list view does.
                    let t = item_text(cx, h, i, k as i32)?;
                    let r = Rect::new(c.0 + 6, b.top, c.0 + c.1 - 6, b.bottom);
                    if r.right <= r.left {
                        continue;
                    }
                    let just = match meta.fmt & 3 {
                        1 => gp::DT_RIGHT,
                        2 => gp::DT_CENTER,
                        _ => gp::DT_LEFT,
                    };
                    let c_fg = if show_sel && full { text_fg } else { fg };
                    super::header::set_text_color(cx, hdc, c_fg)?;
                    gp::draw_text(cx.proc, hdc, &t, r, fmt | gp::DT_VCENTER | just);
                }
            }
            if focused && it.state & LVIS_FOCUSED != 0 {
                gp::frame_rect(cx.proc, hdc, sel_rect, sys(16))?;
            }
        }
        if g.view == LVS_REPORT && ext & LVS_EX_GRIDLINES != 0 {
            let grid = sys(15);
            let total: i32 = cols.iter().map(|c| c.1).sum();
            for c in &cols {
                let x = c.0 + c.1 - 1;
                fill(cx, hdc, Rect::new(x, g.header_h, x + 1, hh), grid)?;
            }
            let mut y = g.header_h + g.item_h - 1;
            while y < hh {
                fill(cx, hdc, Rect::new(0, y, total.min(w), y + 1), grid)?;
                y += g.item_h;
            }
        }
        if pre & CDRF_NOTIFYPOSTPAINT != 0 {
            custom_draw(
                cx,
                h,
                CDDS_POSTPAINT,
                hdc,
                Rect::new(0, 0, w, hh),
                0,
                0,
                0,
                (tc, tbk),
            )?;
        }
        Ok(())
    })
}

// ---- input ----------------------------------------------------------------------------------

fn key_state(cx: &Ctx, vk: usize) -> bool {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let d = q.lock();
    d.keys.get(vk).is_some_and(|k| k & 0x80 != 0)
}

/// Selects item `i` alone (or extends / toggles with Shift / Ctrl) and focuses it.
fn select_click(cx: &mut Ctx, h: u32, i: i32, shift: bool, ctrl: bool) -> UR<()> {
    let single = style_of(cx, h) & LVS_SINGLESEL != 0;
    let n = count(cx, h);
    if ctrl && !single && i >= 0 {
        let sel = with(cx, h, |s| s.items[i as usize].state & LVIS_SELECTED != 0).unwrap_or(false);
        set_state(
            cx,
            h,
            i,
            if sel {
                LVIS_FOCUSED
            } else {
                LVIS_FOCUSED | LVIS_SELECTED
            },
            LVIS_FOCUSED | LVIS_SELECTED,
        )?;
        with(cx, h, |s| s.anchor = i);
        return Ok(());
    }
    let anchor = with(cx, h, |s| s.anchor).unwrap_or(-1);
    let range = if shift && !single && anchor >= 0 && i >= 0 {
        (anchor.min(i), anchor.max(i))
    } else {
        (i, i)
    };
    for k in 0..n {
        if k < range.0 || k > range.1 {
            set_state(cx, h, k, 0, LVIS_SELECTED)?;
        }
    }
    if i >= 0 {
        for k in range.0..=range.1 {
            if k != i {
                set_state(cx, h, k, LVIS_SELECTED, LVIS_SELECTED)?;
            }
        }
        set_state(
            cx,
            h,
            i,
            LVIS_SELECTED | LVIS_FOCUSED,
            LVIS_SELECTED | LVIS_FOCUSED,
        )?;
        if !shift {
            with(cx, h, |s| {
                s.anchor = i;
                s.mark = i;
            });
        }
    }
    Ok(())
}

/// NMITEMACTIVATE for NM_CLICK / NM_DBLCLK / NM_RCLICK / LVN_ITEMACTIVATE.
fn activate_notify(cx: &mut Ctx, h: u32, code: i32, i: i32, sub: i32, p: (i32, i32)) -> UR<()> {
    let (state, param) = with(cx, h, |s| {
        s.items
            .get(i.max(0) as usize)
            .map_or((0, 0), |it| (it.state, it.param))
    })
    .unwrap_or_default();
    let body = le32(&[
        i as u32,
        sub as u32,
        if i >= 0 { state } else { 0 },
        0,
        0,
        p.0 as u32,
        p.1 as u32,
        if i >= 0 { param } else { 0 },
        0,
    ]);
    notify(cx, h, code, &body)?;
    Ok(())
}

fn mouse(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32) -> UR<u32> {
    let p = point(lp);
    let (i, sub, flags) = hit_test(cx, h, p)?;
    match m {
        WM_LBUTTONDOWN | WM_RBUTTONDOWN => {
            // The press captures the mouse to tell a click from a drag; giving the
            // capture back is announced.
            notify(cx, h, NM_RELEASEDCAPTURE, &[])?;
            let shift = wp & 0x4 != 0;
            let ctrl = wp & 0x8 != 0;
            if m == WM_RBUTTONDOWN {
                if i >= 0 {
                    let sel = with(cx, h, |s| s.items[i as usize].state & LVIS_SELECTED != 0)
                        .unwrap_or(false);
                    if !sel {
                        select_click(cx, h, i, false, false)?;
                    }
                }
            } else if i >= 0
                && flags == LVHT_ONITEMSTATEICON
                && with(cx, h, |s| s.ext & LVS_EX_CHECKBOXES != 0).unwrap_or(false)
            {
                toggle_check(cx, h, i)?;
            } else if i >= 0 {
                select_click(cx, h, i, shift, ctrl)?;
            } else if !shift && !ctrl {
                select_click(cx, h, -1, false, false)?;
            }
            if lock_wm(cx.proc).focus != h {
                crate::user32::window::set_focus(cx, h)?;
            }
            with(cx, h, |s| s.clicked = true);
            if m == WM_RBUTTONDOWN {
                activate_notify(cx, h, NM_RCLICK, i, sub, p)?;
            }
            Ok(0)
        }
        WM_LBUTTONUP => {
            if with(cx, h, |s| std::mem::take(&mut s.clicked)).unwrap_or(false) {
                activate_notify(cx, h, NM_CLICK, i, sub, p)?;
            }
            Ok(0)
        }
        WM_LBUTTONDBLCLK => {
            notify(cx, h, NM_RELEASEDCAPTURE, &[])?;
            activate_notify(cx, h, NM_DBLCLK, i, sub, p)?;
            if i >= 0 {
                activate_notify(cx, h, LVN_ITEMACTIVATE, i, sub, p)?;
            }
            Ok(0)
        }
        _ => Ok(0),
    }
}

fn toggle_check(cx: &mut Ctx, h: u32, i: i32) -> UR<()> {
    let st = with(cx, h, |s| s.items.get(i as usize).map_or(0, |it| it.state)).unwrap_or(0);
    let checked = (st & LVIS_STATEIMAGEMASK) >> 12 == 2;
    let new = if checked { 1 << 12 } else { 2 << 12 };
    set_state(cx, h, i, new, LVIS_STATEIMAGEMASK)?;
    Ok(())
}

fn key(cx: &mut Ctx, h: u32, vk: u32, lp: u32) -> UR<u32> {
    notify(cx, h, LVN_KEYDOWN, &le32(&[vk & 0xffff, lp]))?;
    let n = count(cx, h);
    if n == 0 {
        return Ok(0);
    }
    let g = geo(cx, h)?;
    let focus = next_item(cx, h, -1, LVNI_FOCUSED)?;
    let cur = focus.max(0);
    let pp = per_page(&g);
    let row = match g.view {
        LVS_ICON => icons_per_row(&g),
        _ => 1,
    };
    let target = match vk {
        0x26 => cur - row, // up
        0x28 => cur + row, // down
        0x25 => {
            if g.view == LVS_LIST {
                cur - pp
            } else if g.view == LVS_REPORT {
                return Ok(0);
            } else {
                cur - 1
            }
        }
        0x27 => {
            if g.view == LVS_LIST {
                cur + pp
            } else if g.view == LVS_REPORT {
                return Ok(0);
            } else {
                cur + 1
            }
        }
        0x21 => cur - pp, // page up
        0x22 => cur + pp, // page down
        0x24 => 0,        // home
        0x23 => n - 1,    // end
        0x20 => {
            if with(cx, h, |s| s.ext & LVS_EX_CHECKBOXES != 0).unwrap_or(false) && focus >= 0 {
                toggle_check(cx, h, focus)?;
            }
            return Ok(0);
        }
        0x0d => {
            notify(cx, h, NM_RETURN, &[])?;
            if focus >= 0 {
                activate_notify(cx, h, LVN_ITEMACTIVATE, focus, 0, (0, 0))?;
            }
            return Ok(0);
        }
        _ => return Ok(0),
    };
    let target = if focus < 0 { 0 } else { target.clamp(0, n - 1) };
    let shift = key_state(cx, 0x10);
    let ctrl = key_state(cx, 0x11);
    if ctrl {
        set_state(cx, h, target, LVIS_FOCUSED, LVIS_FOCUSED)?;
    } else {
        select_click(cx, h, target, shift, false)?;
    }
    ensure_visible(cx, h, target)?;
    Ok(0)
}

// ---- creation and the window procedure -------------------------------------------------

fn create_header(cx: &mut Ctx, h: u32) -> UR<()> {
    let style = style_of(cx, h);
    let mut hs = 0x2 | WS_CHILD;
    if style & LVS_NOSORTHEADER != 0 {
        hs &= !0x2;
    }
    if style & LVS_TYPEMASK == LVS_REPORT && style & LVS_NOCOLUMNHEADER == 0 {
        hs |= WS_VISIBLE;
    }
    let hd = crate::user32::window::create_window(
        cx,
        crate::user32::window::Create {
            exstyle: 0,
            class: crate::user32::NameOrId::Name(super::header::CLASS.into()),
            class_ptr: 0,
            name_ptr: 0,
            style: hs,
            x: 0,
            y: 0,
            w: 0,
            h: 0,
            parent: h,
            menu: 0,
            instance: 0,
            param: 0,
            unicode: true,
        },
    )?;
    with(cx, h, |s| s.header = hd);
    layout_header(cx, h)
}

const WS_CHILD: u32 = 0x4000_0000;
const WS_VISIBLE: u32 = 0x1000_0000;

/// Puts the header at the top of the report view at its font's height.
fn layout_header(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some((hd, font)) = with(cx, h, |s| (s.header, s.font)) else {
        return Ok(());
    };
    if hd == 0 {
        return Ok(());
    }
    if font != 0 {
        send(cx, hd, WM_SETFONT, font, 0, true)?;
    }
    let report = view(cx, h) == LVS_REPORT && style_of(cx, h) & LVS_NOCOLUMNHEADER == 0;
    let (w, _) = client_size(cx, h);
    let ht = if report {
        super::header::height(cx, hd)?
    } else {
        0
    };
    crate::user32::window::set_window_pos(
        cx,
        hd,
        0,
        0,
        0,
        w.max(0),
        ht,
        crate::user32::window::SWP_NOZORDER
            | crate::user32::window::SWP_NOACTIVATE
            | if report {
                crate::user32::window::SWP_SHOWWINDOW
            } else {
                crate::user32::window::SWP_HIDEWINDOW
            },
    )?;
    Ok(())
}

fn set_image_list(cx: &mut Ctx, h: u32, which: u32, himl: u32) -> UR<u32> {
    if which > 2 {
        return Ok(0);
    }
    let old = with(cx, h, |s| {
        std::mem::replace(&mut s.himl[which as usize], himl)
    })
    .unwrap_or(0);
    update_scroll(cx, h)?;
    redraw(cx, h);
    Ok(old)
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_NCCREATE => {
            cx.proc
                .slot::<Lvs>()
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(h, Lv::default());
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_CREATE => {
            create_header(cx, h)?;
            Ok(0)
        }
        WM_DESTROY => {
            delete_all(cx, h)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            cx.proc
                .slot::<Lvs>()
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
            layout_header(cx, h)?;
            update_scroll(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        WM_GETFONT => Ok(with(cx, h, |s| s.font).unwrap_or(0)),
        WM_SIZE => {
            layout_header(cx, h)?;
            update_scroll(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        WM_STYLECHANGED => {
            layout_header(cx, h)?;
            update_scroll(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        WM_SETFOCUS => {
            notify(cx, h, NM_SETFOCUS, &[])?;
            redraw(cx, h);
            Ok(0)
        }
        WM_KILLFOCUS => {
            notify(cx, h, NM_KILLFOCUS, &[])?;
            redraw(cx, h);
            Ok(0)
        }
        WM_GETDLGCODE => Ok(DLGC_WANTARROWS | DLGC_WANTCHARS),
        WM_KEYDOWN => key(cx, h, wp, lp),
        WM_LBUTTONDOWN | WM_LBUTTONUP | WM_LBUTTONDBLCLK | WM_RBUTTONDOWN => {
            mouse(cx, h, m, wp, lp)
        }
        WM_VSCROLL | WM_HSCROLL => {
            on_scroll(cx, h, wp)?;
            Ok(0)
        }
        WM_MOUSEWHEEL => {
            let delta = (wp >> 16) as i16 as i32;
            let top = with(cx, h, |s| s.top).unwrap_or(0);
            scroll_to(cx, h, top - delta / 40)?;
            Ok(0)
        }
        WM_NOTIFY => {
            // From the header: a click on a column is the list view's LVN_COLUMNCLICK;
            // changed widths redraw the items.
            if lp == 0 {
                return Ok(0);
            }
            let from = rd(cx, lp)?;
            let code = rd(cx, lp + 8)? as i32;
            if from != with(cx, h, |s| s.header).unwrap_or(0) {
                return Ok(0);
            }
            match code {
                super::header::HDN_ITEMCLICKA | super::header::HDN_ITEMCLICKW => {
                    let col = rd(cx, lp + 12)?;
                    notify(
                        cx,
                        h,
                        LVN_COLUMNCLICK,
                        &nmlistview(-1, col as i32, 0, 0, 0, (0, 0), 0),
                    )?;
                }
                _ => redraw(cx, h),
            }
            Ok(0)
        }
        WM_NOTIFYFORMAT => Ok(if parent_unicode(cx, h) { 2 } else { 1 }),
        LVM_GETBKCOLOR => Ok(with(cx, h, |s| s.bk).unwrap_or(0)),
        LVM_SETBKCOLOR => {
            with(cx, h, |s| s.bk = lp);
            redraw(cx, h);
            Ok(1)
        }
        LVM_GETTEXTCOLOR => Ok(with(cx, h, |s| s.text_color).unwrap_or(0)),
        LVM_SETTEXTCOLOR => {
            with(cx, h, |s| s.text_color = lp);
            redraw(cx, h);
            Ok(1)
        }
        LVM_GETTEXTBKCOLOR => Ok(with(cx, h, |s| s.text_bk).unwrap_or(0)),
        LVM_SETTEXTBKCOLOR => {
            with(cx, h, |s| s.text_bk = lp);
            redraw(cx, h);
            Ok(1)
        }
        LVM_GETIMAGELIST => Ok(if wp > 2 {
            0
        } else {
            with(cx, h, |s| s.himl[wp as usize]).unwrap_or(0)
        }),
        LVM_SETIMAGELIST => set_image_list(cx, h, wp, lp),
        LVM_GETITEMCOUNT => Ok(count(cx, h) as u32),
        LVM_SETITEMCOUNT => {
            if style_of(cx, h) & LVS_OWNERDATA != 0 {
                set_virtual_count(cx, h, wp)?;
            }
            Ok(1)
        }
        LVM_INSERTITEMA | LVM_INSERTITEMW => insert_item(cx, h, lp, m == LVM_INSERTITEMW),
        LVM_GETITEMA | LVM_GETITEMW => {
            if lp == 0 {
                return Ok(0);
            }
            Ok(get_item(cx, h, lp, m == LVM_GETITEMW)? as u32)
        }
        LVM_SETITEMA | LVM_SETITEMW => {
            if lp == 0 {
                return Ok(0);
            }
            let a = read_lvitem(cx, lp, m == LVM_SETITEMW)?;
            Ok(set_item(cx, h, &a)? as u32)
        }
        LVM_DELETEITEM => Ok(delete_item(cx, h, wp as i32)? as u32),
        LVM_DELETEALLITEMS => Ok(delete_all(cx, h)? as u32),
        LVM_GETCALLBACKMASK => Ok(with(cx, h, |s| s.callback_mask).unwrap_or(0)),
        LVM_SETCALLBACKMASK => {
            with(cx, h, |s| s.callback_mask = wp);
            Ok(1)
        }
        LVM_GETNEXTITEM => Ok(next_item(cx, h, wp as i32, lp & 0xffff)? as u32),
        LVM_FINDITEMA | LVM_FINDITEMW => {
            Ok(find_item(cx, h, wp as i32, lp, m == LVM_FINDITEMW)? as u32)
        }
        LVM_GETITEMRECT => {
            if lp == 0 {
                return Ok(0);
            }
            let code = rd(cx, lp)? as i32;
            match item_rect(cx, h, wp as i32, code)? {
                Some(r) => {
                    put_rect(cx, lp, r)?;
                    Ok(1)
                }
                None => Ok(0),
            }
        }
        LVM_GETSUBITEMRECT => {
            if lp == 0 {
                return Ok(0);
            }
            let sub = rd(cx, lp + 4)? as i32;
            let code = rd(cx, lp)? as i32;
            if view(cx, h) != LVS_REPORT {
                return Ok(0);
            }
            let Some(b) = item_rect(cx, h, wp as i32, LVIR_BOUNDS)? else {
                return Ok(0);
            };
            if sub == 0 {
                let r = if code == LVIR_BOUNDS {
                    b
                } else {
                    item_rect(cx, h, wp as i32, code)?.unwrap_or(b)
                };
                put_rect(cx, lp, r)?;
                return Ok(1);
            }
            let cols = columns(cx, h);
            let Some(c) = cols.get(sub as usize) else {
                return Ok(0);
            };
            put_rect(cx, lp, Rect::new(c.0, b.top, c.0 + c.1, b.bottom))?;
            Ok(1)
        }
        LVM_GETITEMPOSITION => {
            let Some(b) = item_rect(cx, h, wp as i32, LVIR_BOUNDS)? else {
                return Ok(0);
            };
            if lp != 0 {
                cx.proc.mem.write_u32(lp, b.left as u32)?;
                cx.proc.mem.write_u32(lp + 4, b.top as u32)?;
            }
            Ok(1)
        }
        LVM_SETITEMPOSITION | LVM_SETITEMPOSITION32 => {
            // Items sit on the view's grid; explicit positions are not kept.
            Ok((wp as i32 >= 0 && (wp as i32) < count(cx, h)) as u32)
        }
        LVM_GETSTRINGWIDTHA | LVM_GETSTRINGWIDTHW => {
            if lp == 0 {
                return Ok(0);
            }
            let s = crate::user32::read_str(cx, lp, m == LVM_GETSTRINGWIDTHW)?;
            let font = with(cx, h, |st| st.font).unwrap_or(0);
            let (_, ws) = measure(cx, h, font, &[s.as_str()])?;
            Ok(ws[0] as u32)
        }
        LVM_HITTEST | LVM_SUBITEMHITTEST => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let x = rd(cx, lp)? as i32;
            let y = rd(cx, lp + 4)? as i32;
            let (mut i, sub, flags) = hit_test(cx, h, (x, y))?;
            if m == LVM_SUBITEMHITTEST {
                // A sub-item hit counts anywhere on the row.
                if i < 0 && sub >= 0 && flags == LVHT_NOWHERE {
                    let g = geo(cx, h)?;
                    let row = (y - g.header_h) / g.item_h.max(1) + g.top;
                    if y >= g.header_h && row < count(cx, h) {
                        i = row;
                    }
                }
                let flags = if i >= 0 && flags == LVHT_NOWHERE {
                    LVHT_ONITEMLABEL
                } else {
                    flags
                };
                cx.proc.mem.write_u32(lp + 8, flags)?;
                cx.proc.mem.write_u32(lp + 12, i as u32)?;
                cx.proc
                    .mem
                    .write_u32(lp + 16, if i >= 0 { sub as u32 } else { 0 })?;
                return Ok(i as u32);
            }
            cx.proc.mem.write_u32(lp + 8, flags)?;
            cx.proc.mem.write_u32(lp + 12, i as u32)?;
            Ok(i as u32)
        }
        LVM_ENSUREVISIBLE => Ok(ensure_visible(cx, h, wp as i32)? as u32),
        LVM_SCROLL => {
            let g = geo(cx, h)?;
            let dy = lp as i32;
            let dx = wp as i32;
            let top = with(cx, h, |s| s.top).unwrap_or(0);
            let step = match g.view {
                LVS_LIST => {
                    scroll_to(cx, h, top + dx / g.list_w.max(1))?;
                    return Ok(1);
                }
                LVS_ICON => g.spacing.1,
                _ => g.item_h,
            };
            scroll_to(cx, h, top + dy / step.max(1))?;
            Ok(1)
        }
        LVM_REDRAWITEMS | LVM_UPDATE | LVM_ARRANGE => {
            redraw(cx, h);
            Ok(1)
        }
        LVM_GETEDITCONTROL => Ok(0),
        LVM_GETCOLUMNA | LVM_GETCOLUMNW => {
            Ok(get_column(cx, h, wp, lp, m == LVM_GETCOLUMNW)? as u32)
        }
        LVM_SETCOLUMNA | LVM_SETCOLUMNW => {
            Ok(set_column(cx, h, wp, lp, m == LVM_SETCOLUMNW)? as u32)
        }
        LVM_INSERTCOLUMNA | LVM_INSERTCOLUMNW => {
            insert_column(cx, h, wp, lp, m == LVM_INSERTCOLUMNW)
        }
        LVM_DELETECOLUMN => {
            let Some((hd, n)) = with(cx, h, |s| (s.header, s.cols.len())) else {
                return Ok(0);
            };
            if wp as usize >= n {
                return Ok(0);
            }
            with(cx, h, |s| {
                s.cols.remove(wp as usize);
                // Sub-item texts shift with the columns only when they are
                // addressed by column; they stay by sub-item index.
            });
            super::header::delete_item(cx, hd, wp);
            redraw(cx, h);
            Ok(1)
        }
        LVM_GETCOLUMNWIDTH => {
            let g = geo(cx, h)?;
            match g.view {
                LVS_LIST => Ok(g.list_w as u32),
                LVS_REPORT => Ok(columns(cx, h).get(wp as usize).map_or(0, |c| c.1) as u32),
                _ => Ok(0),
            }
        }
        LVM_SETCOLUMNWIDTH => Ok(set_column_width(cx, h, wp, (lp & 0xffff) as i16 as i32)? as u32),
        LVM_GETHEADER => Ok(with(cx, h, |s| s.header).unwrap_or(0)),
        LVM_GETVIEWRECT => {
            if lp == 0 {
                return Ok(0);
            }
            let n = count(cx, h);
            let mut r = Rect::new(0, 0, 0, 0);
            for i in 0..n {
                if let Some(b) = item_rect(cx, h, i, LVIR_BOUNDS)? {
                    r = if r.is_empty() {
                        b
                    } else {
                        crate::user32::wm::union(r, b)
                    };
                }
            }
            put_rect(cx, lp, r)?;
            Ok(1)
        }
        LVM_GETORIGIN => {
            if lp != 0 {
                cx.proc.mem.write_u32(lp, 0)?;
                cx.proc.mem.write_u32(lp + 4, 0)?;
            }
            Ok(matches!(view(cx, h), LVS_ICON | LVS_SMALLICON) as u32)
        }
        LVM_GETTOPINDEX => {
            let g = geo(cx, h)?;
            let top = with(cx, h, |s| s.top).unwrap_or(0);
            Ok(match g.view {
                LVS_REPORT => top,
                LVS_LIST => top * per_page(&g),
                _ => 0,
            } as u32)
        }
        LVM_GETCOUNTPERPAGE => {
            let g = geo(cx, h)?;
            let (_, page) = extent(cx, h)?;
            Ok(match g.view {
                LVS_REPORT => per_page(&g),
                LVS_LIST => per_page(&g) * page,
                _ => count(cx, h),
            } as u32)
        }
        LVM_SETITEMSTATE => {
            if lp == 0 {
                return Ok(0);
            }
            let state = rd(cx, lp + 12)?;
            let mask = rd(cx, lp + 16)?;
            Ok(set_state_all(cx, h, wp as i32, state, mask)? as u32)
        }
        LVM_GETITEMSTATE => Ok(with(cx, h, |s| {
            s.items.get(wp as usize).map_or(0, |it| it.state & lp)
        })
        .unwrap_or(0)),
        LVM_GETITEMTEXTA | LVM_GETITEMTEXTW => {
            if lp == 0 {
                return Ok(0);
            }
            let unicode = m == LVM_GETITEMTEXTW;
            let sub = rd(cx, lp + 8)? as i32;
            let buf = rd(cx, lp + 20)?;
            let cap = rd(cx, lp + 24)?;
            if (wp as i32) < 0 || wp as i32 >= count(cx, h) {
                return Ok(0);
            }
            let t = item_text_cap(cx, h, wp as i32, sub, cap)?;
            if buf == 0 || cap == 0 {
                return Ok(0);
            }
            Ok(crate::user32::put_str(cx, buf, cap, &t, unicode)?)
        }
        LVM_SETITEMTEXTA | LVM_SETITEMTEXTW => {
            if lp == 0 {
                return Ok(0);
            }
            let mut a = read_lvitem(cx, lp, m == LVM_SETITEMTEXTW)?;
            let t = rd(cx, lp + 20)?;
            a.mask = LVIF_TEXT;
            a.item = wp as i32;
            a.text = Some(if t == u32::MAX {
                None
            } else {
                Some(text_arg(cx, t, m == LVM_SETITEMTEXTW)?.unwrap_or_default())
            });
            Ok(set_item(cx, h, &a)? as u32)
        }
        LVM_SORTITEMS => Ok(sort(cx, h, lp, wp, false)? as u32),
        LVM_SORTITEMSEX => Ok(sort(cx, h, lp, wp, true)? as u32),
        LVM_GETSELECTEDCOUNT => Ok(with(cx, h, |s| {
            s.items
                .iter()
                .filter(|it| it.state & LVIS_SELECTED != 0)
                .count()
        })
        .unwrap_or(0) as u32),
        LVM_GETITEMSPACING => {
            let g = geo(cx, h)?;
            let (w, hh) = if wp != 0 {
                (g.list_w, g.item_h)
            } else {
                g.spacing
            };
            Ok((w as u32 & 0xffff) | ((hh as u32) << 16))
        }
        LVM_SETICONSPACING => {
            let old = with(cx, h, |s| {
                let old = s.icon_spacing;
                let (cx_, cy) = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
                s.icon_spacing = (
                    if cx_ <= 0 { ICON_SPACING.0 } else { cx_ },
                    if cy <= 0 { ICON_SPACING.1 } else { cy },
                );
                old
            })
            .unwrap_or(ICON_SPACING);
            redraw(cx, h);
            Ok((old.0 as u32 & 0xffff) | ((old.1 as u32) << 16))
        }
        LVM_SETEXTENDEDLISTVIEWSTYLE => {
            let old = with(cx, h, |s| {
                let old = s.ext;
                let mask = if wp == 0 { u32::MAX } else { wp };
                s.ext = (old & !mask) | (lp & mask);
                if s.ext & LVS_EX_CHECKBOXES != 0 && old & LVS_EX_CHECKBOXES == 0 {
                    // Check boxes start unchecked: state image 1.
                    for it in s.items.iter_mut() {
                        if it.state & LVIS_STATEIMAGEMASK == 0 {
                            it.state |= 1 << 12;
                        }
                    }
                }
                old
            })
            .unwrap_or(0);
            redraw(cx, h);
            Ok(old)
        }
        LVM_GETEXTENDEDLISTVIEWSTYLE => Ok(with(cx, h, |s| s.ext).unwrap_or(0)),
        LVM_SETCOLUMNORDERARRAY | LVM_GETCOLUMNORDERARRAY => {
            let hd = with(cx, h, |s| s.header).unwrap_or(0);
            let hm = if m == LVM_SETCOLUMNORDERARRAY {
                0x1212
            } else {
                0x1211
            };
            send(cx, hd, hm, wp, lp, true)
        }
        LVM_SETHOTITEM => {
            Ok(with(cx, h, |s| std::mem::replace(&mut s.hot, wp as i32)).unwrap_or(-1) as u32)
        }
        LVM_GETHOTITEM => Ok(with(cx, h, |s| s.hot).unwrap_or(-1) as u32),
        LVM_GETSELECTIONMARK => Ok(with(cx, h, |s| s.mark).unwrap_or(-1) as u32),
        LVM_SETSELECTIONMARK => {
            Ok(with(cx, h, |s| std::mem::replace(&mut s.mark, lp as i32)).unwrap_or(-1) as u32)
        }
        CCM_SETUNICODEFORMAT => Ok(
            with(cx, h, |s| std::mem::replace(&mut s.unicode_fmt, wp != 0)).unwrap_or(false) as u32,
        ),
        CCM_GETUNICODEFORMAT => Ok(with(cx, h, |s| s.unicode_fmt).unwrap_or(false) as u32),
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

const WM_NOTIFYFORMAT: u32 = 0x55;
