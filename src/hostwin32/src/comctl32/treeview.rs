//! The tree view (SysTreeView32) as comctl32 5.8 documents it: a hierarchy of items
//! with text (or LPSTR_TEXTCALLBACK), images, state bits and child counts
//! (I_CHILDRENCALLBACK); insertion (first, last, sorted, after an item), deletion,
//! expansion with TVN_ITEMEXPANDING/ITEMEXPANDED and the TVIS_EXPANDEDONCE rule,
//! selection with TVN_SELCHANGING/SELCHANGED, navigation (every TVGN_ code), item
//! rectangles and hit testing, sorting (by text or a guest callback), scrolling,
//! the keyboard and the mouse; drawn as the classic control with dotted lines and
//! +/- buttons. Label editing is not implemented (TVM_EDITLABEL reports itself).
//!
//! Items are kept on the host; an HTREEITEM is an opaque value only this control
//! hands out. Item geometry: rows of one height; a row's parts are laid out from
//! the left at `indent` per level (one more with TVS_LINESATROOT and lines or
//! buttons): the lines/button column, the state image, the image, the text.

#![allow(non_snake_case)]

use super::ccommon::{self, States};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiError, Ctx};
use crate::user32::msg::*;
use crate::user32::{Flow, UR, lock_wm};

pub const CLASS: &str = "SysTreeView32";

const TVS_HASBUTTONS: u32 = 0x1;
const TVS_HASLINES: u32 = 0x2;
const TVS_LINESATROOT: u32 = 0x4;
const TVS_SHOWSELALWAYS: u32 = 0x20;
const TVS_CHECKBOXES: u32 = 0x100;
const TVS_SINGLEEXPAND: u32 = 0x400;
const TVS_FULLROWSELECT: u32 = 0x1000;
const TVS_NONEVENHEIGHT: u32 = 0x4000;

const TVI_ROOT: u32 = 0xffff_0000;
const TVI_FIRST: u32 = 0xffff_0001;
const TVI_LAST: u32 = 0xffff_0002;
const TVI_SORT: u32 = 0xffff_0003;

const TVIF_TEXT: u32 = 0x1;
const TVIF_IMAGE: u32 = 0x2;
const TVIF_PARAM: u32 = 0x4;
const TVIF_STATE: u32 = 0x8;
const TVIF_HANDLE: u32 = 0x10;
const TVIF_SELECTEDIMAGE: u32 = 0x20;
const TVIF_CHILDREN: u32 = 0x40;
const TVIF_INTEGRAL: u32 = 0x80;
const TVIF_DI_SETITEM: u32 = 0x1000;

const TVIS_SELECTED: u32 = 0x2;
const TVIS_DROPHILITED: u32 = 0x8;
const TVIS_EXPANDED: u32 = 0x20;
const TVIS_EXPANDEDONCE: u32 = 0x40;
const TVIS_STATEIMAGEMASK: u32 = 0xf000;

const TVE_COLLAPSE: u32 = 0x1;
const TVE_EXPAND: u32 = 0x2;
const TVE_TOGGLE: u32 = 0x3;
const TVE_COLLAPSERESET: u32 = 0x8000;

const TVGN_ROOT: u32 = 0;
const TVGN_NEXT: u32 = 1;
const TVGN_PREVIOUS: u32 = 2;
const TVGN_PARENT: u32 = 3;
const TVGN_CHILD: u32 = 4;
const TVGN_FIRSTVISIBLE: u32 = 5;
const TVGN_NEXTVISIBLE: u32 = 6;
const TVGN_PREVIOUSVISIBLE: u32 = 7;
const TVGN_DROPHILITE: u32 = 8;
const TVGN_CARET: u32 = 9;
const TVGN_LASTVISIBLE: u32 = 10;

const TVC_UNKNOWN: u32 = 0;
const TVC_BYMOUSE: u32 = 1;
const TVC_BYKEYBOARD: u32 = 2;

const TVSIL_NORMAL: u32 = 0;
const TVSIL_STATE: u32 = 2;

const TVHT_NOWHERE: u32 = 0x1;
const TVHT_ONITEMICON: u32 = 0x2;
const TVHT_ONITEMLABEL: u32 = 0x4;
const TVHT_ONITEMINDENT: u32 = 0x8;
const TVHT_ONITEMBUTTON: u32 = 0x10;
const TVHT_ONITEMRIGHT: u32 = 0x20;
const TVHT_ONITEMSTATEICON: u32 = 0x40;
const TVHT_ABOVE: u32 = 0x100;
const TVHT_BELOW: u32 = 0x200;
const TVHT_TORIGHT: u32 = 0x400;
const TVHT_TOLEFT: u32 = 0x800;

const I_CHILDRENCALLBACK: i32 = -1;
const I_IMAGECALLBACK: i32 = -1;
const LPSTR_TEXTCALLBACK: u32 = 0xffff_ffff;

const TVM_INSERTITEMA: u32 = 0x1100;
const TVM_DELETEITEM: u32 = 0x1101;
const TVM_EXPAND: u32 = 0x1102;
const TVM_GETITEMRECT: u32 = 0x1104;
const TVM_GETCOUNT: u32 = 0x1105;
const TVM_GETINDENT: u32 = 0x1106;
const TVM_SETINDENT: u32 = 0x1107;
const TVM_GETIMAGELIST: u32 = 0x1108;
const TVM_SETIMAGELIST: u32 = 0x1109;
const TVM_GETNEXTITEM: u32 = 0x110a;
const TVM_SELECTITEM: u32 = 0x110b;
const TVM_GETITEMA: u32 = 0x110c;
const TVM_SETITEMA: u32 = 0x110d;
const TVM_EDITLABELA: u32 = 0x110e;
const TVM_GETEDITCONTROL: u32 = 0x110f;
const TVM_GETVISIBLECOUNT: u32 = 0x1110;
const TVM_HITTEST: u32 = 0x1111;
const TVM_SORTCHILDREN: u32 = 0x1113;
const TVM_ENSUREVISIBLE: u32 = 0x1114;
const TVM_SORTCHILDRENCB: u32 = 0x1115;
const TVM_ENDEDITLABELNOW: u32 = 0x1116;
const TVM_SETTOOLTIPS: u32 = 0x1118;
const TVM_GETTOOLTIPS: u32 = 0x1119;
const TVM_SETITEMHEIGHT: u32 = 0x111b;
const TVM_GETITEMHEIGHT: u32 = 0x111c;
const TVM_SETBKCOLOR: u32 = 0x111d;
const TVM_SETTEXTCOLOR: u32 = 0x111e;
const TVM_GETBKCOLOR: u32 = 0x111f;
const TVM_GETTEXTCOLOR: u32 = 0x1120;
const TVM_GETITEMSTATE: u32 = 0x1127;
const TVM_SETLINECOLOR: u32 = 0x1128;
const TVM_GETLINECOLOR: u32 = 0x1129;
const TVM_INSERTITEMW: u32 = 0x1132;
const TVM_GETITEMW: u32 = 0x113e;
const TVM_SETITEMW: u32 = 0x113f;
const TVM_EDITLABELW: u32 = 0x1141;
const CCM_SETUNICODEFORMAT: u32 = 0x2005;
const CCM_GETUNICODEFORMAT: u32 = 0x2006;

const NM_CLICK: u32 = (-2i32) as u32;
const NM_DBLCLK: u32 = (-3i32) as u32;
const NM_RETURN: u32 = (-4i32) as u32;
const NM_RCLICK: u32 = (-5i32) as u32;
const NM_SETFOCUS: u32 = (-7i32) as u32;
const NM_KILLFOCUS: u32 = (-8i32) as u32;
/// TVN_xxxA codes; the W code is this minus 49.
const TVN_SELCHANGING: i32 = -401;
const TVN_SELCHANGED: i32 = -402;
const TVN_GETDISPINFO: i32 = -403;
const TVN_ITEMEXPANDING: i32 = -405;
const TVN_ITEMEXPANDED: i32 = -406;
const TVN_DELETEITEM: i32 = -409;
const TVN_KEYDOWN: u32 = (-412i32) as u32;

const WM_NOTIFYFORMAT: u32 = 0x55;
const NF_QUERY: u32 = 3;
const NFR_UNICODE: u32 = 2;
const WM_MOUSEWHEEL: u32 = 0x20a;
const CLR_NONE: u32 = 0xffff_ffff;
const CLR_DEFAULT: u32 = 0xff00_0000;
/// The smallest indent Windows accepts (TVM_SETINDENT raises smaller values).
const MIN_INDENT: i32 = 19;
/// HTREEITEM values are handed out from here up.
const FIRST_HANDLE: u32 = 0x00c3_0010;

#[derive(Clone, Default)]
struct Item {
    parent: u32,
    children: Vec<u32>,
    /// None: LPSTR_TEXTCALLBACK (asked of the parent with TVN_GETDISPINFO).
    text: Option<String>,
    image: i32,
    selimage: i32,
    state: u32,
    /// cChildren: 0, 1 or I_CHILDRENCALLBACK.
    cchildren: i32,
    lparam: u32,
    integral: i32,
}

struct Tree {
    items: std::collections::HashMap<u32, Item>,
    roots: Vec<u32>,
    next: u32,
    selected: u32,
    drophilite: u32,
    /// Index of the first row shown (in the list of visible rows).
    top: usize,
    /// Horizontal scroll offset in pixels.
    scroll_x: i32,
    indent: i32,
    /// Set by TVM_SETITEMHEIGHT; None: from the font and the image list.
    item_height: Option<i32>,
    normal_il: u32,
    state_il: u32,
    bk: u32,
    fg: u32,
    line: u32,
    /// Notifications go to the parent as Unicode (TVN_xxxW) rather than ANSI.
    unicode: bool,
    tooltips: u32,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            items: Default::default(),
            roots: Vec::new(),
            next: 0,
            selected: 0,
            drophilite: 0,
            top: 0,
            scroll_x: 0,
            indent: MIN_INDENT,
            item_height: None,
            normal_il: 0,
            state_il: 0,
            bk: CLR_NONE,
            fg: CLR_NONE,
            line: CLR_DEFAULT,
            unicode: true,
            tooltips: 0,
        }
    }
}

impl Tree {
    fn children_of(&self, parent: u32) -> &[u32] {
        if parent == 0 {
            &self.roots
        } else {
            self.items.get(&parent).map_or(&[], |i| &i.children)
        }
    }

    fn children_mut(&mut self, parent: u32) -> Option<&mut Vec<u32>> {
        if parent == 0 {
            Some(&mut self.roots)
        } else {
            self.items.get_mut(&parent).map(|i| &mut i.children)
        }
    }

    fn level(&self, h: u32) -> i32 {
        let mut n = 0;
        let mut p = self.items.get(&h).map_or(0, |i| i.parent);
        while p != 0 {
            n += 1;
            p = self.items.get(&p).map_or(0, |i| i.parent);
        }
        n
    }

    /// The rows shown when the tree is scrolled to the top: every root and the
    /// children of expanded items, depth first.
    fn visible(&self) -> Vec<u32> {
        fn walk(t: &Tree, list: &[u32], out: &mut Vec<u32>) {
            for &h in list {
                out.push(h);
                if let Some(i) = t.items.get(&h)
                    && i.state & TVIS_EXPANDED != 0
                {
                    walk(t, &i.children, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &self.roots, &mut out);
        out
    }

    fn sibling(&self, h: u32, delta: isize) -> u32 {
        let Some(i) = self.items.get(&h) else {
            return 0;
        };
        let sibs = self.children_of(i.parent);
        sibs.iter()
            .position(|&s| s == h)
            .and_then(|k| sibs.get((k as isize + delta) as usize))
            .copied()
            .unwrap_or(0)
    }

    /// Removes `h` and its descendants; returns them, `h` first then its
    /// descendants depth first (the order TVN_DELETEITEM goes out in).
    fn remove(&mut self, h: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        fn take(t: &mut Tree, h: u32, out: &mut Vec<(u32, u32)>) {
            if let Some(i) = t.items.remove(&h) {
                out.push((h, i.lparam));
                for c in i.children {
                    take(t, c, out);
                }
            }
        }
        let parent = self.items.get(&h).map_or(0, |i| i.parent);
        if let Some(v) = self.children_mut(parent) {
            v.retain(|&x| x != h);
        }
        take(self, h, &mut out);
        out
    }
}

fn trees(cx: &Ctx) -> std::sync::Arc<States<Tree>> {
    cx.proc.slot::<States<Tree>>()
}

fn with<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut Tree) -> R) -> Option<R> {
    let s = trees(cx);
    let mut g = s.0.lock().unwrap_or_else(|e| e.into_inner());
    g.get_mut(&h).map(f)
}

/// The text of a TVITEM's pszText in the message's encoding.
fn read_text(cx: &Ctx, p: u32, unicode: bool) -> UR<Option<String>> {
    if p == LPSTR_TEXTCALLBACK {
        return Ok(None);
    }
    Ok(Some(crate::user32::read_str(cx, p, unicode)?))
}

/// Writes `s` into a caller's buffer of `cap` characters, truncated and
/// terminated, in the encoding asked for.
fn write_text(cx: &Ctx, p: u32, cap: u32, s: &str, unicode: bool) -> UR<()> {
    if p == 0 || cap == 0 {
        return Ok(());
    }
    if unicode {
        let u: Vec<u16> = s.encode_utf16().collect();
        crate::kernel32::string::copy_truncated_w(cx.proc, p, cap, &u)?;
    } else {
        let a = crate::kernel32::string::encode_ansi(s);
        crate::kernel32::string::copy_truncated_a(cx.proc, p, cap, &a)?;
    }
    Ok(())
}

// ---- notifications ---------------------------------------------------------------

fn code(t_unicode: bool, a: i32) -> u32 {
    (if t_unicode { a - 49 } else { a }) as u32
}

/// A TVITEM of 10 dwords for a notification: handle, state, lParam (and images,
/// children) of item `h`.
fn tvitem_of(cx: &Ctx, tv: u32, h: u32, mask: u32) -> [u32; 10] {
    let i = with(cx, tv, |t| t.items.get(&h).cloned())
        .flatten()
        .unwrap_or_default();
    if h == 0 {
        return [0; 10];
    }
    [
        mask,
        h,
        i.state,
        0,
        0,
        0,
        i.image as u32,
        i.selimage as u32,
        i.cchildren as u32,
        i.lparam,
    ]
}

/// An NMTREEVIEW notification (action, itemOld, itemNew, ptDrag); returns the
/// parent's answer.
fn notify_tv(
    cx: &mut Ctx,
    tv: u32,
    a_code: i32,
    action: u32,
    old: [u32; 10],
    new: [u32; 10],
) -> UR<u32> {
    let unicode = with(cx, tv, |t| t.unicode).unwrap_or(true);
    let mut extra = Vec::with_capacity(23);
    extra.push(action);
    extra.extend_from_slice(&old);
    extra.extend_from_slice(&new);
    extra.extend_from_slice(&[0, 0]);
    Ok(ccommon::notify(cx, tv, code(unicode, a_code), &extra)?.0)
}

/// TVN_GETDISPINFO for the parts of item `h` in `mask`: the text (when a callback),
/// the images and the child count as the parent supplies them. With
/// TVIF_DI_SETITEM in the answer the control keeps them.
fn dispinfo(cx: &mut Ctx, tv: u32, h: u32, mask: u32) -> UR<Item> {
    let Some(item) = with(cx, tv, |t| t.items.get(&h).cloned()).flatten() else {
        return Ok(Item::default());
    };
    if mask == 0 {
        return Ok(item);
    }
    let unicode = with(cx, tv, |t| t.unicode).unwrap_or(true);
    const CAP: u32 = 260;
    let (buf, esp) = crate::user32::stack_alloc(cx, CAP * 2);
    let r = (|| -> UR<Item> {
        cx.proc.mem.write_u16(buf, 0)?;
        let tvi = [
            mask,
            h,
            item.state,
            0,
            buf,
            CAP,
            item.image as u32,
            item.selimage as u32,
            item.cchildren as u32,
            item.lparam,
        ];
        let (_, out) = ccommon::notify(cx, tv, code(unicode, TVN_GETDISPINFO), &tvi)?;
        let mut got = item.clone();
        let omask = out[0];
        if mask & TVIF_TEXT != 0 {
            let p = out[4];
            got.text = Some(if p == 0 || p == LPSTR_TEXTCALLBACK {
                String::new()
            } else {
                crate::user32::read_str(cx, p, unicode)?
            });
        }
        if mask & TVIF_IMAGE != 0 {
            got.image = out[6] as i32;
        }
        if mask & TVIF_SELECTEDIMAGE != 0 {
            got.selimage = out[7] as i32;
        }
        if mask & TVIF_CHILDREN != 0 {
            got.cchildren = out[8] as i32;
        }
        if omask & TVIF_DI_SETITEM != 0 {
            let keep = got.clone();
            with(cx, tv, |t| {
                if let Some(i) = t.items.get_mut(&h) {
                    if mask & TVIF_TEXT != 0 {
                        i.text = keep.text.clone();
                    }
                    if mask & TVIF_IMAGE != 0 {
                        i.image = keep.image;
                    }
                    if mask & TVIF_SELECTEDIMAGE != 0 {
                        i.selimage = keep.selimage;
                    }
                    if mask & TVIF_CHILDREN != 0 {
                        i.cchildren = keep.cchildren;
                    }
                }
            });
        }
        Ok(got)
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// The item as it is drawn: callbacks resolved through TVN_GETDISPINFO.
fn resolved(cx: &mut Ctx, tv: u32, h: u32, selected: bool) -> UR<Item> {
    let Some(i) = with(cx, tv, |t| t.items.get(&h).cloned()).flatten() else {
        return Ok(Item::default());
    };
    let mut mask = 0;
    if i.text.is_none() {
        mask |= TVIF_TEXT;
    }
    if i.cchildren == I_CHILDRENCALLBACK {
        mask |= TVIF_CHILDREN;
    }
    if (!selected && i.image == I_IMAGECALLBACK) || (selected && i.selimage == I_IMAGECALLBACK) {
        mask |= if selected {
            TVIF_SELECTEDIMAGE
        } else {
            TVIF_IMAGE
        };
    }
    dispinfo(cx, tv, h, mask)
}

fn has_children(cx: &mut Ctx, tv: u32, h: u32) -> UR<bool> {
    let i = resolved(cx, tv, h, false)?;
    Ok(!i.children.is_empty() || i.cchildren != 0)
}

// ---- geometry --------------------------------------------------------------------

fn image_size(cx: &Ctx, il: u32) -> (i32, i32) {
    if il == 0 {
        return (0, 0);
    }
    super::imagelist::size(cx.proc, il).unwrap_or((0, 0))
}

fn item_height(cx: &mut Ctx, tv: u32) -> UR<i32> {
    if let Some(Some(h)) = with(cx, tv, |t| t.item_height) {
        return Ok(h);
    }
    let (il, style) = (
        with(cx, tv, |t| t.normal_il).unwrap_or(0),
        ccommon::win(cx, tv).map_or(0, |w| w.style),
    );
    // The font's line plus a pixel above and below for the focus rectangle, at
    // least 16 and the images' height; even unless TVS_NONEVENHEIGHT.
    let mut h = (ccommon::font_height(cx, tv)? + 2).max(16);
    h = h.max(image_size(cx, il).1);
    if style & TVS_NONEVENHEIGHT == 0 {
        h &= !1;
    }
    Ok(h)
}

/// The horizontal positions of a row's parts.
struct Cols {
    /// Left of the lines/button column.
    lines: i32,
    state: i32,
    image: i32,
    text: i32,
}

fn cols(cx: &Ctx, tv: u32, h: u32, style: u32) -> Cols {
    let (level, indent, sx, state_il, normal_il, state) = with(cx, tv, |t| {
        (
            t.level(h),
            t.indent,
            t.scroll_x,
            t.state_il,
            t.normal_il,
            t.items.get(&h).map_or(0, |i| i.state),
        )
    })
    .unwrap_or((0, MIN_INDENT, 0, 0, 0, 0));
    let at_root = style & TVS_LINESATROOT != 0 && style & (TVS_HASLINES | TVS_HASBUTTONS) != 0;
    let lines = indent * (level + at_root as i32 - 1) - sx;
    let state_x = lines + indent;
    let image = state_x
        + if state & TVIS_STATEIMAGEMASK != 0 || (style & TVS_CHECKBOXES != 0 && state_il != 0) {
            image_size(cx, state_il).0
        } else {
            0
        };
    let text = image + image_size(cx, normal_il).0;
    Cols {
        lines,
        state: state_x,
        image,
        text,
    }
}

/// Width of an item's label rectangle: the text and two pixels each side.
fn label_width(cx: &mut Ctx, tv: u32, text: &str) -> UR<i32> {
    Ok(ccommon::text_width(cx, tv, text)? + 4)
}

/// The row of `h` relative to the top row, or None when a collapsed ancestor
/// hides it.
fn row_of(cx: &Ctx, tv: u32, h: u32) -> Option<i32> {
    with(cx, tv, |t| {
        let vis = t.visible();
        vis.iter()
            .position(|&x| x == h)
            .map(|k| k as i32 - t.top as i32)
    })
    .flatten()
}

/// TVM_GETITEMRECT: the whole row, or (text only) the label.
fn item_rect(cx: &mut Ctx, tv: u32, h: u32, text_only: bool) -> UR<Option<Rect>> {
    let Some(row) = row_of(cx, tv, h) else {
        return Ok(None);
    };
    let ih = item_height(cx, tv)?;
    let w = ccommon::win(cx, tv).map_or((0, 0), |w| (w.style, w.w));
    let y = row * ih;
    // Rows are `ih` apart, but the rectangle Wine 8 reports ends a pixel above the
    // next row (bottom = top + height - 1); the guest test checks it against Wine.
    if !text_only {
        return Ok(Some(Rect::new(0, y, w.1, y + ih - 1)));
    }
    let c = cols(cx, tv, h, w.0);
    let text = resolved(cx, tv, h, false)?.text.unwrap_or_default();
    let lw = label_width(cx, tv, &text)?;
    Ok(Some(Rect::new(c.text, y, c.text + lw, y + ih - 1)))
}

/// TVM_HITTEST's answer for a client point: the item and TVHT_* flags.
fn hit_test(cx: &mut Ctx, tv: u32, x: i32, y: i32) -> UR<(u32, u32)> {
    let (style, cw, ch) = ccommon::win(cx, tv).map_or((0, 0, 0), |w| (w.style, w.w, w.h));
    let mut flags = 0;
    if y < 0 {
        flags |= TVHT_ABOVE;
    } else if y >= ch {
        flags |= TVHT_BELOW;
    }
    if x < 0 {
        flags |= TVHT_TOLEFT;
    } else if x >= cw {
        flags |= TVHT_TORIGHT;
    }
    if flags != 0 {
        return Ok((0, flags));
    }
    let ih = item_height(cx, tv)?;
    let row = y / ih.max(1);
    let h = with(cx, tv, |t| t.visible().get(t.top + row as usize).copied())
        .flatten()
        .unwrap_or(0);
    if h == 0 {
        return Ok((0, TVHT_NOWHERE));
    }
    let c = cols(cx, tv, h, style);
    let text = resolved(cx, tv, h, false)?.text.unwrap_or_default();
    let lw = label_width(cx, tv, &text)?;
    let f = if x < c.lines + with(cx, tv, |t| t.indent).unwrap_or(MIN_INDENT) {
        if style & TVS_HASBUTTONS != 0 && x >= c.lines && has_children(cx, tv, h)? {
            TVHT_ONITEMBUTTON
        } else {
            TVHT_ONITEMINDENT
        }
    } else if x < c.image {
        TVHT_ONITEMSTATEICON
    } else if x < c.text {
        TVHT_ONITEMICON
    } else if x < c.text + lw {
        TVHT_ONITEMLABEL
    } else {
        TVHT_ONITEMRIGHT
    };
    Ok((h, f))
}

// ---- scrolling -------------------------------------------------------------------

fn visible_count(cx: &mut Ctx, tv: u32) -> UR<i32> {
    let ih = item_height(cx, tv)?.max(1);
    Ok(ccommon::client_size(cx, tv).1 / ih)
}

/// Keeps the top row in range and sets the vertical scroll bar to the rows.
fn update_scroll(cx: &mut Ctx, tv: u32) -> UR<()> {
    let page = visible_count(cx, tv)?.max(1) as usize;
    let Some(total) = with(cx, tv, |t| {
        let n = t.visible().len();
        t.top = t.top.min(n.saturating_sub(page));
        n
    }) else {
        return Ok(());
    };
    let top = with(cx, tv, |t| t.top).unwrap_or(0);
    const SB_VERT: u32 = 1;
    const SIF_ALL: u32 = 0x17;
    let (p, esp) = crate::user32::stack_alloc(cx, 28);
    let r = (|| -> UR<()> {
        let m = &cx.proc.mem;
        for (k, v) in [
            28u32,
            SIF_ALL,
            0,
            total.saturating_sub(1) as u32,
            page as u32,
            top as u32,
            0,
        ]
        .iter()
        .enumerate()
        {
            m.write_u32(p + 4 * k as u32, *v)?;
        }
        crate::user32::call_export(cx, "USER32.dll", "SetScrollInfo", &[tv, SB_VERT, p, 1])?;
        Ok(())
    })();
    crate::user32::stack_free(cx, esp);
    r
}

fn changed(cx: &mut Ctx, tv: u32) -> UR<()> {
    update_scroll(cx, tv)?;
    ccommon::redraw(cx, tv);
    Ok(())
}

/// Scrolls so that row `h` is shown; whether the tree scrolled.
fn scroll_to(cx: &mut Ctx, tv: u32, h: u32) -> UR<bool> {
    let page = visible_count(cx, tv)?.max(1) as usize;
    let moved = with(cx, tv, |t| {
        let vis = t.visible();
        let Some(k) = vis.iter().position(|&x| x == h) else {
            return false;
        };
        let old = t.top;
        if k < t.top {
            t.top = k;
        } else if k >= t.top + page {
            t.top = k + 1 - page;
        }
        old != t.top
    })
    .unwrap_or(false);
    if moved {
        changed(cx, tv)?;
    }
    Ok(moved)
}

// ---- operations ------------------------------------------------------------------

/// Reads a TVITEM(EX) at `p` into an item (for the fields its mask names).
fn read_tvitem(cx: &Ctx, p: u32, unicode: bool, into: &mut Item) -> UR<u32> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & TVIF_TEXT != 0 {
        into.text = read_text(cx, m.read_u32(p + 16)?, unicode)?;
    }
    if mask & TVIF_IMAGE != 0 {
        into.image = m.read_u32(p + 24)? as i32;
    }
    if mask & TVIF_SELECTEDIMAGE != 0 {
        into.selimage = m.read_u32(p + 28)? as i32;
    }
    if mask & TVIF_CHILDREN != 0 {
        into.cchildren = m.read_u32(p + 32)? as i32;
    }
    if mask & TVIF_PARAM != 0 {
        into.lparam = m.read_u32(p + 36)?;
    }
    if mask & TVIF_STATE != 0 {
        let (state, smask) = (m.read_u32(p + 8)?, m.read_u32(p + 12)?);
        into.state = (into.state & !smask) | (state & smask);
    }
    if mask & TVIF_INTEGRAL != 0 {
        into.integral = m.read_u32(p + 40)? as i32;
    }
    Ok(mask)
}

fn text_key(s: &Option<String>) -> String {
    s.clone().unwrap_or_default().to_lowercase()
}

fn insert(cx: &mut Ctx, tv: u32, p: u32, unicode: bool) -> UR<u32> {
    if p == 0 {
        return Ok(0);
    }
    let m = &cx.proc.mem;
    let (parent, after) = (m.read_u32(p)?, m.read_u32(p + 4)?);
    let mut item = Item {
        integral: 1,
        ..Default::default()
    };
    let mut tmp = Item {
        text: Some(String::new()),
        integral: 1,
        ..Default::default()
    };
    let mask = read_tvitem(cx, p + 8, unicode, &mut tmp)?;
    item.text = if mask & TVIF_TEXT != 0 {
        tmp.text
    } else {
        Some(String::new())
    };
    item.image = tmp.image;
    item.selimage = tmp.selimage;
    item.cchildren = tmp.cchildren;
    item.lparam = tmp.lparam;
    // The caller sets only the state bits it means; selection and expansion
    // follow the control's own operations.
    item.state = tmp.state & !(TVIS_SELECTED | TVIS_EXPANDEDONCE);
    item.integral = tmp.integral;
    let parent = if parent == TVI_ROOT { 0 } else { parent };
    let r = with(cx, tv, |t| {
        if parent != 0 && !t.items.contains_key(&parent) {
            return Ok(0);
        }
        let key = text_key(&item.text);
        let sibs = t.children_of(parent).to_vec();
        let pos = match after {
            TVI_FIRST => 0,
            TVI_LAST | 0 => sibs.len(),
            TVI_SORT => sibs
                .iter()
                .position(|s| {
                    t.items
                        .get(s)
                        .is_some_and(|i| i.text.is_some() && text_key(&i.text) > key)
                })
                .unwrap_or(sibs.len()),
            a => match sibs.iter().position(|&s| s == a) {
                Some(k) => k + 1,
                // An item that is not a sibling: Windows appends.
                None => sibs.len(),
            },
        };
        t.next += 1;
        let h = FIRST_HANDLE + 0x20 * t.next;
        item.parent = parent;
        t.items.insert(h, item);
        if let Some(v) = t.children_mut(parent) {
            v.insert(pos, h);
        }
        Ok::<u32, Flow>(h)
    })
    .unwrap_or(Ok(0))?;
    if r != 0 {
        changed(cx, tv)?;
    }
    Ok(r)
}

fn delete(cx: &mut Ctx, tv: u32, h: u32) -> UR<bool> {
    let targets: Vec<u32> = if h == 0 || h == TVI_ROOT {
        with(cx, tv, |t| t.roots.clone()).unwrap_or_default()
    } else if with(cx, tv, |t| t.items.contains_key(&h)).unwrap_or(false) {
        vec![h]
    } else {
        return Ok(false);
    };
    for target in targets {
        let sel = with(cx, tv, |t| t.selected).unwrap_or(0);
        // The selection moves off a deleted item (or one of its descendants): to
        // the next sibling, else the previous one, else the parent.
        let sel_gone = sel != 0
            && with(cx, tv, |t| {
                let mut p = sel;
                while p != 0 {
                    if p == target {
                        return true;
                    }
                    p = t.items.get(&p).map_or(0, |i| i.parent);
                }
                false
            })
            .unwrap_or(false);
        // TVN_DELETEITEM goes out for the descendants (depth first, each after its
        // own descendants) and then for the item.
        let gone = with(cx, tv, |t| {
            let mut v = Vec::new();
            fn all(t: &Tree, h: u32, v: &mut Vec<(u32, u32)>) {
                if let Some(i) = t.items.get(&h) {
                    for &c in &i.children {
                        all(t, c, v);
                    }
                    v.push((h, i.lparam));
                }
            }
            all(t, target, &mut v);
            v
        })
        .unwrap_or_default();
        let next = if sel_gone {
            with(cx, tv, |t| {
                let n = t.sibling(target, 1);
                if n != 0 {
                    return n;
                }
                let p = t.sibling(target, -1);
                if p != 0 {
                    return p;
                }
                t.items.get(&target).map_or(0, |i| i.parent)
            })
            .unwrap_or(0)
        } else {
            0
        };
        for (item, lparam) in gone {
            let mut old = [0u32; 10];
            old[0] = TVIF_HANDLE | TVIF_PARAM;
            old[1] = item;
            old[9] = lparam;
            notify_tv(cx, tv, TVN_DELETEITEM, 0, old, [0; 10])?;
        }
        with(cx, tv, |t| {
            t.remove(target);
            if t.drophilite != 0 && !t.items.contains_key(&t.drophilite) {
                t.drophilite = 0;
            }
            if t.selected != 0 && !t.items.contains_key(&t.selected) {
                t.selected = 0;
            }
        });
        // Then the selection moves off the deleted item (or its descendant) to the
        // next sibling, else the previous one, else the parent; the notifications
        // name no old item, as it is gone.
        if next != 0 {
            select(cx, tv, next, TVC_UNKNOWN)?;
        }
    }
    changed(cx, tv)?;
    Ok(true)
}

/// TVM_EXPAND's work; `by_user` sends the notifications even after the first
/// expansion (TVIS_EXPANDEDONCE only silences TVM_EXPAND).
fn expand(cx: &mut Ctx, tv: u32, h: u32, how: u32, by_user: bool) -> UR<bool> {
    let Some(item) = with(cx, tv, |t| t.items.get(&h).cloned()).flatten() else {
        return Ok(false);
    };
    let expanded = item.state & TVIS_EXPANDED != 0;
    let action = match how & 3 {
        TVE_TOGGLE => {
            if expanded {
                TVE_COLLAPSE
            } else {
                TVE_EXPAND
            }
        }
        TVE_EXPAND => TVE_EXPAND,
        TVE_COLLAPSE => TVE_COLLAPSE,
        _ => return Ok(false),
    };
    // Expanding an expanded item succeeds without a word; collapsing a collapsed
    // one fails (unless it is a reset).
    if action == TVE_EXPAND && expanded {
        return Ok(true);
    }
    if action == TVE_COLLAPSE && !expanded && how & TVE_COLLAPSERESET == 0 {
        return Ok(false);
    }
    if action == TVE_EXPAND && !has_children(cx, tv, h)? {
        return Ok(false);
    }
    let silent = !by_user && item.state & TVIS_EXPANDEDONCE != 0;
    let mask = TVIF_HANDLE | TVIF_STATE | TVIF_PARAM | TVIF_IMAGE | TVIF_SELECTEDIMAGE;
    if !silent {
        let new = tvitem_of(cx, tv, h, mask);
        if notify_tv(cx, tv, TVN_ITEMEXPANDING, action, [0; 10], new)? != 0 {
            return Ok(false);
        }
    }
    // An item that promised children (cChildren 1) and still has none after
    // TVN_ITEMEXPANDING does not open.
    if action == TVE_EXPAND
        && with(cx, tv, |t| {
            t.items.get(&h).is_none_or(|i| i.children.is_empty())
        })
        .unwrap_or(true)
    {
        return Ok(false);
    }
    let reset = action == TVE_COLLAPSE && how & TVE_COLLAPSERESET != 0;
    let kids = with(cx, tv, |t| {
        if let Some(i) = t.items.get_mut(&h) {
            if action == TVE_EXPAND {
                i.state |= TVIS_EXPANDED;
            } else {
                i.state &= !TVIS_EXPANDED;
                if reset {
                    i.state &= !TVIS_EXPANDEDONCE;
                }
            }
        }
        t.items
            .get(&h)
            .map(|i| i.children.clone())
            .unwrap_or_default()
    })
    .unwrap_or_default();
    if reset {
        for k in kids {
            delete(cx, tv, k)?;
        }
    }
    // A collapse that hides the selection moves it to the collapsed item, without
    // selection notifications.
    if action == TVE_COLLAPSE {
        let sel = with(cx, tv, |t| t.selected).unwrap_or(0);
        if sel != 0 && sel != h && row_of(cx, tv, sel).is_none() {
            with(cx, tv, |t| {
                if let Some(i) = t.items.get_mut(&sel) {
                    i.state &= !TVIS_SELECTED;
                }
                if let Some(i) = t.items.get_mut(&h) {
                    i.state |= TVIS_SELECTED;
                }
                t.selected = h;
            });
        }
    }
    if !silent {
        let new = tvitem_of(cx, tv, h, mask);
        notify_tv(cx, tv, TVN_ITEMEXPANDED, action, [0; 10], new)?;
    }
    // TVIS_EXPANDEDONCE is set after TVN_ITEMEXPANDED (the notification still
    // shows the first expansion as such).
    if action == TVE_EXPAND {
        with(cx, tv, |t| {
            if let Some(i) = t.items.get_mut(&h) {
                i.state |= TVIS_EXPANDEDONCE;
            }
        });
    }
    changed(cx, tv)?;
    Ok(true)
}

/// Expands every collapsed ancestor of `h`.
fn expand_ancestors(cx: &mut Ctx, tv: u32, h: u32) -> UR<bool> {
    let chain = with(cx, tv, |t| {
        let mut v = Vec::new();
        let mut p = t.items.get(&h).map_or(0, |i| i.parent);
        while p != 0 {
            v.push(p);
            p = t.items.get(&p).map_or(0, |i| i.parent);
        }
        v
    })
    .unwrap_or_default();
    let mut any = false;
    for p in chain.into_iter().rev() {
        let collapsed = with(cx, tv, |t| {
            t.items
                .get(&p)
                .is_some_and(|i| i.state & TVIS_EXPANDED == 0)
        })
        .unwrap_or(false);
        if collapsed {
            expand(cx, tv, p, TVE_EXPAND, false)?;
            any = true;
        }
    }
    Ok(any)
}

/// Makes `h` the selected item (0: none) with TVN_SELCHANGING/SELCHANGED.
fn select(cx: &mut Ctx, tv: u32, h: u32, cause: u32) -> UR<bool> {
    let Some(prev) = with(cx, tv, |t| t.selected) else {
        return Ok(false);
    };
    if h != 0 && !with(cx, tv, |t| t.items.contains_key(&h)).unwrap_or(false) {
        return Ok(false);
    }
    if h == prev {
        if h != 0 {
            scroll_to(cx, tv, h)?;
        }
        return Ok(true);
    }
    let mask = TVIF_HANDLE | TVIF_STATE | TVIF_PARAM;
    let old = tvitem_of(cx, tv, prev, mask);
    let new = tvitem_of(cx, tv, h, mask);
    if notify_tv(cx, tv, TVN_SELCHANGING, cause, old, new)? != 0 {
        return Ok(false);
    }
    with(cx, tv, |t| {
        if let Some(i) = t.items.get_mut(&prev) {
            i.state &= !TVIS_SELECTED;
        }
        if let Some(i) = t.items.get_mut(&h) {
            i.state |= TVIS_SELECTED;
        }
        t.selected = h;
    });
    if h != 0 {
        expand_ancestors(cx, tv, h)?;
        scroll_to(cx, tv, h)?;
    }
    let old = tvitem_of(cx, tv, prev, mask);
    let new = tvitem_of(cx, tv, h, mask);
    notify_tv(cx, tv, TVN_SELCHANGED, cause, old, new)?;
    // TVS_SINGLEEXPAND: the new selection opens and the old one closes.
    let single = ccommon::win(cx, tv).is_some_and(|w| w.style & TVS_SINGLEEXPAND != 0);
    if single && cause != TVC_UNKNOWN && h != 0 {
        expand(cx, tv, h, TVE_EXPAND, true)?;
    }
    ccommon::redraw(cx, tv);
    Ok(true)
}

fn get_next(cx: &mut Ctx, tv: u32, code: u32, h: u32) -> UR<u32> {
    Ok(with(cx, tv, |t| {
        let exists = t.items.contains_key(&h);
        match code {
            TVGN_ROOT => t.roots.first().copied().unwrap_or(0),
            TVGN_CARET => t.selected,
            TVGN_DROPHILITE => t.drophilite,
            TVGN_FIRSTVISIBLE => t.visible().get(t.top).copied().unwrap_or(0),
            TVGN_LASTVISIBLE => t.visible().last().copied().unwrap_or(0),
            TVGN_NEXT if exists => t.sibling(h, 1),
            TVGN_PREVIOUS if exists => t.sibling(h, -1),
            TVGN_PARENT if exists => t.items[&h].parent,
            TVGN_CHILD => {
                // NULL or TVI_ROOT ask for the first root.
                if h == 0 || h == TVI_ROOT {
                    t.roots.first().copied().unwrap_or(0)
                } else if exists {
                    t.items[&h].children.first().copied().unwrap_or(0)
                } else {
                    0
                }
            }
            TVGN_NEXTVISIBLE | TVGN_PREVIOUSVISIBLE if exists => {
                let vis = t.visible();
                match vis.iter().position(|&x| x == h) {
                    Some(k) if code == TVGN_NEXTVISIBLE => vis.get(k + 1).copied().unwrap_or(0),
                    Some(k) if k > 0 => vis[k - 1],
                    _ => 0,
                }
            }
            _ => 0,
        }
    })
    .unwrap_or(0))
}

fn get_item(cx: &mut Ctx, tv: u32, p: u32, unicode: bool) -> UR<bool> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    let h = m.read_u32(p + 4)?;
    let Some(item) = with(cx, tv, |t| t.items.get(&h).cloned()).flatten() else {
        return Ok(false);
    };
    let mut ask = 0;
    if mask & TVIF_TEXT != 0 && item.text.is_none() {
        ask |= TVIF_TEXT;
    }
    if mask & TVIF_CHILDREN != 0 && item.cchildren == I_CHILDRENCALLBACK {
        ask |= TVIF_CHILDREN;
    }
    if mask & TVIF_IMAGE != 0 && item.image == I_IMAGECALLBACK {
        ask |= TVIF_IMAGE;
    }
    if mask & TVIF_SELECTEDIMAGE != 0 && item.selimage == I_IMAGECALLBACK {
        ask |= TVIF_SELECTEDIMAGE;
    }
    let item = if ask != 0 {
        dispinfo(cx, tv, h, ask)?
    } else {
        item
    };
    let m = &cx.proc.mem;
    if mask & TVIF_TEXT != 0 {
        let (buf, cap) = (m.read_u32(p + 16)?, m.read_u32(p + 20)?);
        write_text(cx, buf, cap, item.text.as_deref().unwrap_or(""), unicode)?;
    }
    let m = &cx.proc.mem;
    if mask & TVIF_IMAGE != 0 {
        m.write_u32(p + 24, item.image as u32)?;
    }
    if mask & TVIF_SELECTEDIMAGE != 0 {
        m.write_u32(p + 28, item.selimage as u32)?;
    }
    if mask & TVIF_CHILDREN != 0 {
        let n = if item.cchildren == I_CHILDRENCALLBACK || item.children.is_empty() {
            item.cchildren
        } else {
            1
        };
        m.write_u32(p + 32, n as u32)?;
    }
    if mask & TVIF_PARAM != 0 {
        m.write_u32(p + 36, item.lparam)?;
    }
    if mask & TVIF_STATE != 0 {
        let smask = m.read_u32(p + 12)?;
        m.write_u32(p + 8, item.state & smask)?;
    }
    if mask & TVIF_INTEGRAL != 0 {
        m.write_u32(p + 40, item.integral as u32)?;
    }
    Ok(true)
}

fn set_item(cx: &mut Ctx, tv: u32, p: u32, unicode: bool) -> UR<bool> {
    let h = cx.proc.mem.read_u32(p + 4)?;
    let Some(mut item) = with(cx, tv, |t| t.items.get(&h).cloned()).flatten() else {
        return Ok(false);
    };
    let before = item.state;
    read_tvitem(cx, p, unicode, &mut item)?;
    // Selection and expansion bits set through TVM_SETITEM change the look only;
    // the control's own selection is what TVM_SELECTITEM sets.
    let _ = before;
    with(cx, tv, |t| {
        if let Some(i) = t.items.get_mut(&h) {
            *i = item;
        }
    });
    changed(cx, tv)?;
    Ok(true)
}

fn sort_children(
    cx: &mut Ctx,
    tv: u32,
    parent: u32,
    recurse: bool,
    cb: Option<(u32, u32)>,
) -> UR<bool> {
    let parent = if parent == TVI_ROOT { 0 } else { parent };
    let Some(kids) = with(cx, tv, |t| {
        (parent == 0 || t.items.contains_key(&parent)).then(|| t.children_of(parent).to_vec())
    })
    .flatten() else {
        return Ok(false);
    };
    // An insertion sort, stable: each item goes before the first one already placed
    // that compares greater (compare(placed, new) > 0); comparisons may call guest
    // code, in the order Wine's and Windows' control makes them for sorted input.
    let mut sorted: Vec<u32> = Vec::with_capacity(kids.len());
    for k in kids.iter().copied() {
        let mut pos = sorted.len();
        for (n, &placed) in sorted.iter().enumerate() {
            let c = match cb {
                Some((f, lsort)) => {
                    let (a, b) = with(cx, tv, |t| {
                        (
                            t.items.get(&placed).map_or(0, |i| i.lparam),
                            t.items.get(&k).map_or(0, |i| i.lparam),
                        )
                    })
                    .unwrap_or((0, 0));
                    crate::user32::guest(cx, f, &[a, b, lsort])? as i32
                }
                None => {
                    let (a, b) = (
                        resolved(cx, tv, placed, false)?.text.unwrap_or_default(),
                        resolved(cx, tv, k, false)?.text.unwrap_or_default(),
                    );
                    a.to_lowercase().cmp(&b.to_lowercase()) as i32
                }
            };
            if c > 0 {
                pos = n;
                break;
            }
        }
        sorted.insert(pos, k);
    }
    with(cx, tv, |t| {
        if let Some(v) = t.children_mut(parent) {
            *v = sorted.clone();
        }
    });
    if recurse {
        for k in sorted {
            sort_children(cx, tv, k, true, cb)?;
        }
    }
    changed(cx, tv)?;
    Ok(true)
}

// ---- painting --------------------------------------------------------------------

fn colorref(rgb_index: i32) -> u32 {
    gp::sys_color(rgb_index)
}

/// A dotted line, every other pixel, as the classic tree view draws its lines.
fn dotted(cx: &Ctx, hdc: u32, x0: i32, y0: i32, x1: i32, y1: i32, color: u32) -> UR<()> {
    if x0 == x1 {
        let mut y = y0 | 1;
        while y < y1 {
            ccommon::fill(cx, hdc, Rect::new(x0, y, x0 + 1, y + 1), color)?;
            y += 2;
        }
    } else {
        let mut x = x0 | 1;
        while x < x1 {
            ccommon::fill(cx, hdc, Rect::new(x, y0, x + 1, y0 + 1), color)?;
            x += 2;
        }
    }
    Ok(())
}

fn paint(cx: &mut Ctx, tv: u32) -> UR<u32> {
    let ih = item_height(cx, tv)?;
    ccommon::paint(cx, tv, |cx, hdc, w| {
        let t = with(cx, tv, |t| {
            (
                t.visible(),
                t.top,
                t.bk,
                t.fg,
                t.line,
                t.indent,
                t.normal_il,
                t.state_il,
            )
        });
        let Some((vis, top, bk, fg, line, indent, normal_il, state_il)) = t else {
            return Ok(());
        };
        let bk = if bk == CLR_NONE {
            colorref(gp::COLOR_WINDOW)
        } else {
            bk
        };
        let fg = if fg == CLR_NONE {
            colorref(gp::COLOR_WINDOWTEXT)
        } else {
            fg
        };
        let line = if line == CLR_DEFAULT {
            colorref(gp::COLOR_GRAYTEXT)
        } else {
            line
        };
        ccommon::fill(cx, hdc, Rect::new(0, 0, w.w, w.h), bk)?;
        let focused = lock_wm(cx.proc).focus == tv;
        let enabled = w.style & crate::user32::wm::WS_DISABLED == 0;
        let rows = (w.h + ih - 1) / ih.max(1);
        let at_root = w.style & TVS_LINESATROOT != 0;
        for (r, &h) in vis
            .iter()
            .skip(top)
            .take(rows.max(0) as usize + 1)
            .enumerate()
        {
            let y = r as i32 * ih;
            let c = cols(cx, tv, h, w.style);
            let Some((parent, state, is_last, first_root)) = with(cx, tv, |t| {
                let i = &t.items[&h];
                (
                    i.parent,
                    i.state,
                    t.sibling(h, 1) == 0,
                    i.parent == 0 && t.roots.first() == Some(&h),
                )
            }) else {
                continue;
            };
            let selected = state & TVIS_SELECTED != 0;
            let item = resolved(cx, tv, h, selected)?;
            let kids = !item.children.is_empty() || item.cchildren != 0;
            let mid = y + ih / 2;
            let cx_line = c.lines + indent / 2;
            let draws_lines = w.style & TVS_HASLINES != 0 && (parent != 0 || at_root);
            if draws_lines {
                // Down from the row above (unless the first root), across to the item,
                // on down to the next sibling; ancestors' lines pass through.
                let ytop = if first_root { mid } else { y };
                let ybot = if is_last { mid } else { y + ih };
                dotted(cx, hdc, cx_line, ytop, cx_line, ybot + 1, line)?;
                dotted(cx, hdc, cx_line, mid, c.lines + indent, mid, line)?;
                let mut a = parent;
                let mut x = cx_line - indent;
                while a != 0 {
                    let (next, up) = with(cx, tv, |t| {
                        (t.sibling(a, 1), t.items.get(&a).map_or(0, |i| i.parent))
                    })
                    .unwrap_or((0, 0));
                    if next != 0 && (up != 0 || at_root) {
                        dotted(cx, hdc, x, y, x, y + ih + 1, line)?;
                    }
                    a = up;
                    x -= indent;
                }
            }
            if w.style & TVS_HASBUTTONS != 0 && kids && (parent != 0 || at_root) {
                let b = Rect::new(cx_line - 4, mid - 4, cx_line + 5, mid + 5);
                ccommon::fill(cx, hdc, b, bk)?;
                gp::frame_rect(cx.proc, hdc, b, colorref(gp::COLOR_BTNSHADOW))?;
                let tc = colorref(gp::COLOR_WINDOWTEXT);
                ccommon::fill(
                    cx,
                    hdc,
                    Rect::new(cx_line - 2, mid, cx_line + 3, mid + 1),
                    tc,
                )?;
                if state & TVIS_EXPANDED == 0 {
                    ccommon::fill(
                        cx,
                        hdc,
                        Rect::new(cx_line, mid - 2, cx_line + 1, mid + 3),
                        tc,
                    )?;
                }
            }
            if state_il != 0 && state & TVIS_STATEIMAGEMASK != 0 {
                let si = ((state & TVIS_STATEIMAGEMASK) >> 12) as i32;
                let sh = image_size(cx, state_il).1;
                super::imagelist::draw(cx.proc, state_il, si, hdc, c.state, y + (ih - sh) / 2, 0)?;
            }
            if normal_il != 0 {
                let img = if selected { item.selimage } else { item.image };
                let nh = image_size(cx, normal_il).1;
                super::imagelist::draw(
                    cx.proc,
                    normal_il,
                    img,
                    hdc,
                    c.image,
                    y + (ih - nh) / 2,
                    1,
                )?;
            }
            let text = item.text.unwrap_or_default();
            let (tw, th) = gp::text_extent(cx.proc, hdc, &text);
            let lr = Rect::new(c.text, y, c.text + tw + 4, y + ih);
            let hilite = state & TVIS_DROPHILITED != 0
                || (selected && (focused || w.style & TVS_SHOWSELALWAYS != 0));
            let color = if !enabled {
                colorref(gp::COLOR_GRAYTEXT)
            } else if hilite && (focused || state & TVIS_DROPHILITED != 0) {
                ccommon::fill(cx, hdc, lr, colorref(gp::COLOR_HIGHLIGHT))?;
                colorref(gp::COLOR_HIGHLIGHTTEXT)
            } else if hilite {
                ccommon::fill(cx, hdc, lr, colorref(gp::COLOR_BTNFACE))?;
                fg
            } else {
                fg
            };
            crate::user32::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, color])?;
            gp::text_out(cx.proc, hdc, c.text + 2, y + (ih - th) / 2, &text)?;
            if selected && focused {
                gp::frame_rect(cx.proc, hdc, lr, colorref(gp::COLOR_WINDOWTEXT))?;
            }
        }
        Ok(())
    })
}

// ---- input -----------------------------------------------------------------------

fn key(cx: &mut Ctx, tv: u32, vk: u32) -> UR<()> {
    const VK_RETURN: u32 = 0x0d;
    const VK_PRIOR: u32 = 0x21;
    const VK_NEXT: u32 = 0x22;
    const VK_END: u32 = 0x23;
    const VK_HOME: u32 = 0x24;
    const VK_LEFT: u32 = 0x25;
    const VK_UP: u32 = 0x26;
    const VK_RIGHT: u32 = 0x27;
    const VK_DOWN: u32 = 0x28;
    const VK_ADD: u32 = 0x6b;
    const VK_SUBTRACT: u32 = 0x6d;
    const VK_MULTIPLY: u32 = 0x6a;
    // NMTVKEYDOWN: the key (a WORD, padded) and flags.
    ccommon::notify(cx, tv, TVN_KEYDOWN, &[vk & 0xffff, 0])?;
    if vk == VK_RETURN {
        ccommon::notify(cx, tv, NM_RETURN, &[])?;
        return Ok(());
    }
    let page = visible_count(cx, tv)?.max(1) as usize;
    let Some((vis, sel)) = with(cx, tv, |t| (t.visible(), t.selected)) else {
        return Ok(());
    };
    if vis.is_empty() {
        return Ok(());
    }
    let k = vis.iter().position(|&x| x == sel);
    let target = match vk {
        VK_UP => k.map_or(vis[0], |k| vis[k.saturating_sub(1)]),
        VK_DOWN => k.map_or(vis[0], |k| vis[(k + 1).min(vis.len() - 1)]),
        VK_HOME => vis[0],
        VK_END => vis[vis.len() - 1],
        VK_PRIOR => k.map_or(vis[0], |k| {
            vis[k.saturating_sub(page.saturating_sub(1).max(1))]
        }),
        VK_NEXT => k.map_or(vis[0], |k| {
            vis[(k + page.saturating_sub(1).max(1)).min(vis.len() - 1)]
        }),
        VK_LEFT => {
            let expanded = with(cx, tv, |t| {
                t.items
                    .get(&sel)
                    .is_some_and(|i| i.state & TVIS_EXPANDED != 0)
            })
            .unwrap_or(false);
            if expanded {
                expand(cx, tv, sel, TVE_COLLAPSE, true)?;
                return Ok(());
            }
            let p = with(cx, tv, |t| t.items.get(&sel).map_or(0, |i| i.parent)).unwrap_or(0);
            if p == 0 {
                return Ok(());
            }
            p
        }
        VK_RIGHT => {
            let (expanded, first) = with(cx, tv, |t| {
                t.items.get(&sel).map_or((false, 0), |i| {
                    (
                        i.state & TVIS_EXPANDED != 0,
                        i.children.first().copied().unwrap_or(0),
                    )
                })
            })
            .unwrap_or((false, 0));
            if !expanded {
                if sel != 0 {
                    expand(cx, tv, sel, TVE_EXPAND, true)?;
                }
                return Ok(());
            }
            if first == 0 {
                return Ok(());
            }
            first
        }
        VK_ADD => {
            if sel != 0 {
                expand(cx, tv, sel, TVE_EXPAND, true)?;
            }
            return Ok(());
        }
        VK_SUBTRACT => {
            if sel != 0 {
                expand(cx, tv, sel, TVE_COLLAPSE, true)?;
            }
            return Ok(());
        }
        VK_MULTIPLY => {
            if sel != 0 {
                expand(cx, tv, sel, TVE_EXPAND, true)?;
            }
            return Ok(());
        }
        _ => return Ok(()),
    };
    select(cx, tv, target, TVC_BYKEYBOARD)?;
    Ok(())
}

fn lparam_point(lp: u32) -> (i32, i32) {
    ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32)
}

fn mouse(cx: &mut Ctx, tv: u32, m: u32, lp: u32) -> UR<()> {
    let (x, y) = lparam_point(lp);
    crate::user32::window::set_focus(cx, tv)?;
    let (h, f) = hit_test(cx, tv, x, y)?;
    match m {
        WM_LBUTTONDOWN => {
            if ccommon::notify(cx, tv, NM_CLICK, &[])?.0 != 0 {
                return Ok(());
            }
            if f & TVHT_ONITEMBUTTON != 0 {
                expand(cx, tv, h, TVE_TOGGLE, true)?;
            } else if h != 0
                && (f & (TVHT_ONITEMICON | TVHT_ONITEMLABEL | TVHT_ONITEMSTATEICON) != 0
                    || ccommon::win(cx, tv).is_some_and(|w| w.style & TVS_FULLROWSELECT != 0))
            {
                select(cx, tv, h, TVC_BYMOUSE)?;
            }
        }
        WM_LBUTTONDBLCLK => {
            if ccommon::notify(cx, tv, NM_DBLCLK, &[])?.0 != 0 {
                return Ok(());
            }
            if h != 0 && f & (TVHT_ONITEMICON | TVHT_ONITEMLABEL | TVHT_ONITEMBUTTON) != 0 {
                expand(cx, tv, h, TVE_TOGGLE, true)?;
            }
        }
        _ => {
            ccommon::notify(cx, tv, NM_RCLICK, &[])?;
        }
    }
    Ok(())
}

fn vscroll(cx: &mut Ctx, tv: u32, wp: u32) -> UR<()> {
    let page = visible_count(cx, tv)?.max(1) as i64;
    let code = wp & 0xffff;
    let pos = (wp >> 16) as i64;
    with(cx, tv, |t| {
        let n = t.visible().len() as i64;
        let top = t.top as i64;
        let new = match code {
            0 => top - 1,
            1 => top + 1,
            2 => top - page,
            3 => top + page,
            4 | 5 => pos,
            6 => 0,
            7 => n,
            _ => top,
        };
        t.top = new.clamp(0, (n - page).max(0)) as usize;
    });
    changed(cx, tv)
}

// ---- the window procedure --------------------------------------------------------

fn create(cx: &mut Ctx, tv: u32) -> UR<()> {
    let parent = ccommon::win(cx, tv).map_or(0, |w| w.parent);
    let unicode = if parent != 0 {
        match send(cx, parent, WM_NOTIFYFORMAT, tv, NF_QUERY, true)? {
            NFR_UNICODE => true,
            1 => false,
            _ => lock_wm(cx.proc).win(parent).is_some_and(|w| w.unicode),
        }
    } else {
        true
    };
    trees(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            tv,
            Tree {
                unicode,
                ..Default::default()
            },
        );
    Ok(())
}

pub fn wndproc(cx: &mut Ctx, tv: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    if m == WM_NCCREATE {
        create(cx, tv)?;
        return crate::user32::window::def_window_proc(cx, tv, m, wp, lp, u);
    }
    if with(cx, tv, |_| ()).is_none() {
        return crate::user32::window::def_window_proc(cx, tv, m, wp, lp, u);
    }
    match m {
        TVM_INSERTITEMA | TVM_INSERTITEMW => insert(cx, tv, lp, m == TVM_INSERTITEMW),
        TVM_DELETEITEM => Ok(delete(cx, tv, lp)? as u32),
        TVM_EXPAND => Ok(expand(cx, tv, lp, wp, false)? as u32),
        TVM_GETITEMRECT => {
            if lp == 0 {
                return Ok(0);
            }
            let h = cx.proc.mem.read_u32(lp)?;
            match item_rect(cx, tv, h, wp != 0)? {
                Some(r) => {
                    ccommon::write_rect(cx, lp, r)?;
                    Ok(1)
                }
                None => Ok(0),
            }
        }
        TVM_GETCOUNT => Ok(with(cx, tv, |t| t.items.len() as u32).unwrap_or(0)),
        TVM_GETINDENT => Ok(with(cx, tv, |t| t.indent as u32).unwrap_or(0)),
        TVM_SETINDENT => {
            with(cx, tv, |t| t.indent = (wp as i32).max(MIN_INDENT));
            changed(cx, tv)?;
            Ok(0)
        }
        TVM_GETIMAGELIST => Ok(with(cx, tv, |t| match wp {
            TVSIL_NORMAL => t.normal_il,
            TVSIL_STATE => t.state_il,
            _ => 0,
        })
        .unwrap_or(0)),
        TVM_SETIMAGELIST => {
            let old = with(cx, tv, |t| match wp {
                TVSIL_NORMAL => std::mem::replace(&mut t.normal_il, lp),
                TVSIL_STATE => std::mem::replace(&mut t.state_il, lp),
                _ => 0,
            })
            .unwrap_or(0);
            changed(cx, tv)?;
            Ok(old)
        }
        TVM_GETNEXTITEM => get_next(cx, tv, wp & 0xff, lp),
        TVM_SELECTITEM => match wp & 0xff {
            TVGN_CARET => Ok(select(cx, tv, lp, TVC_UNKNOWN)? as u32),
            TVGN_DROPHILITE => {
                let ok = lp == 0 || with(cx, tv, |t| t.items.contains_key(&lp)).unwrap_or(false);
                if ok {
                    with(cx, tv, |t| {
                        if let Some(i) = t.items.get_mut(&t.drophilite) {
                            i.state &= !TVIS_DROPHILITED;
                        }
                        t.drophilite = lp;
                        if let Some(i) = t.items.get_mut(&lp) {
                            i.state |= TVIS_DROPHILITED;
                        }
                    });
                    ccommon::redraw(cx, tv);
                }
                Ok(ok as u32)
            }
            TVGN_FIRSTVISIBLE => {
                expand_ancestors(cx, tv, lp)?;
                let ok = with(cx, tv, |t| {
                    let vis = t.visible();
                    vis.iter()
                        .position(|&x| x == lp)
                        .map(|k| t.top = k)
                        .is_some()
                })
                .unwrap_or(false);
                changed(cx, tv)?;
                Ok(ok as u32)
            }
            _ => Ok(0),
        },
        TVM_GETITEMA | TVM_GETITEMW => {
            if lp == 0 {
                return Ok(0);
            }
            Ok(get_item(cx, tv, lp, m == TVM_GETITEMW)? as u32)
        }
        TVM_SETITEMA | TVM_SETITEMW => {
            if lp == 0 {
                return Ok(0);
            }
            Ok(set_item(cx, tv, lp, m == TVM_SETITEMW)? as u32)
        }
        TVM_GETITEMSTATE => {
            Ok(with(cx, tv, |t| t.items.get(&wp).map_or(0, |i| i.state & lp)).unwrap_or(0))
        }
        TVM_EDITLABELA | TVM_EDITLABELW | TVM_ENDEDITLABELNOW => Err(Flow::Err(
            ApiError::UnimplementedCase("tree view label editing (TVM_EDITLABEL)".into()),
        )),
        TVM_GETEDITCONTROL => Ok(0),
        TVM_GETVISIBLECOUNT => Ok(visible_count(cx, tv)? as u32),
        TVM_HITTEST => {
            if lp == 0 {
                return Ok(0);
            }
            let (x, y) = (
                cx.proc.mem.read_u32(lp)? as i32,
                cx.proc.mem.read_u32(lp + 4)? as i32,
            );
            let (h, f) = hit_test(cx, tv, x, y)?;
            cx.proc.mem.write_u32(lp + 8, f)?;
            cx.proc.mem.write_u32(lp + 12, h)?;
            Ok(h)
        }
        TVM_SORTCHILDREN => Ok(sort_children(cx, tv, lp, wp != 0, None)? as u32),
        TVM_SORTCHILDRENCB => {
            if lp == 0 {
                return Ok(0);
            }
            let mem = &cx.proc.mem;
            let (parent, f, lsort) = (
                mem.read_u32(lp)?,
                mem.read_u32(lp + 4)?,
                mem.read_u32(lp + 8)?,
            );
            if f == 0 {
                return Ok(0);
            }
            Ok(sort_children(cx, tv, parent, wp != 0, Some((f, lsort)))? as u32)
        }
        TVM_ENSUREVISIBLE => {
            if !with(cx, tv, |t| t.items.contains_key(&lp)).unwrap_or(false) {
                return Ok(0);
            }
            let expanded = expand_ancestors(cx, tv, lp)?;
            let scrolled = scroll_to(cx, tv, lp)?;
            Ok((scrolled && !expanded) as u32)
        }
        TVM_SETTOOLTIPS => {
            Ok(with(cx, tv, |t| std::mem::replace(&mut t.tooltips, wp)).unwrap_or(0))
        }
        TVM_GETTOOLTIPS => Ok(with(cx, tv, |t| t.tooltips).unwrap_or(0)),
        TVM_SETITEMHEIGHT => {
            let old = item_height(cx, tv)?;
            let style = ccommon::win(cx, tv).map_or(0, |w| w.style);
            let v = wp as i16 as i32;
            with(cx, tv, |t| {
                t.item_height = if v == -1 {
                    None
                } else {
                    let v = v.max(1);
                    Some(if style & TVS_NONEVENHEIGHT == 0 && v > 1 {
                        v & !1
                    } else {
                        v
                    })
                }
            });
            changed(cx, tv)?;
            Ok(old as u32)
        }
        TVM_GETITEMHEIGHT => Ok(item_height(cx, tv)? as u32),
        TVM_SETBKCOLOR => {
            let old = with(cx, tv, |t| std::mem::replace(&mut t.bk, lp)).unwrap_or(CLR_NONE);
            ccommon::redraw(cx, tv);
            Ok(old)
        }
        TVM_SETTEXTCOLOR => {
            let old = with(cx, tv, |t| std::mem::replace(&mut t.fg, lp)).unwrap_or(CLR_NONE);
            ccommon::redraw(cx, tv);
            Ok(old)
        }
        TVM_GETBKCOLOR => Ok(with(cx, tv, |t| t.bk).unwrap_or(CLR_NONE)),
        TVM_GETTEXTCOLOR => Ok(with(cx, tv, |t| t.fg).unwrap_or(CLR_NONE)),
        TVM_SETLINECOLOR => {
            let old = with(cx, tv, |t| std::mem::replace(&mut t.line, lp)).unwrap_or(CLR_DEFAULT);
            ccommon::redraw(cx, tv);
            Ok(old)
        }
        TVM_GETLINECOLOR => Ok(with(cx, tv, |t| t.line).unwrap_or(CLR_DEFAULT)),
        CCM_SETUNICODEFORMAT => Ok(with(cx, tv, |t| {
            std::mem::replace(&mut t.unicode, wp != 0) as u32
        })
        .unwrap_or(0)),
        CCM_GETUNICODEFORMAT => Ok(with(cx, tv, |t| t.unicode as u32).unwrap_or(0)),
        WM_PAINT => paint(cx, tv),
        WM_ERASEBKGND => Ok(1),
        WM_SIZE => {
            changed(cx, tv)?;
            Ok(0)
        }
        WM_SETFONT => {
            ccommon::set_font(cx, tv, wp);
            changed(cx, tv)?;
            Ok(0)
        }
        WM_GETFONT => Ok(ccommon::win(cx, tv).map_or(0, |w| w.font)),
        WM_SETFOCUS | WM_KILLFOCUS => {
            ccommon::redraw(cx, tv);
            let code = if m == WM_SETFOCUS {
                NM_SETFOCUS
            } else {
                NM_KILLFOCUS
            };
            ccommon::notify(cx, tv, code, &[])?;
            Ok(0)
        }
        WM_GETDLGCODE => Ok(0x1 | 0x80),
        WM_KEYDOWN => {
            key(cx, tv, wp)?;
            Ok(0)
        }
        WM_LBUTTONDOWN | WM_LBUTTONDBLCLK | WM_RBUTTONDOWN => {
            mouse(cx, tv, m, lp)?;
            Ok(0)
        }
        WM_VSCROLL => {
            vscroll(cx, tv, wp)?;
            Ok(0)
        }
        WM_MOUSEWHEEL => {
            let delta = (wp >> 16) as i16 as i32;
            let lines = -delta / 40;
            with(cx, tv, |t| {
                let n = t.visible().len() as i32;
                t.top = (t.top as i32 + lines).clamp(0, n.max(1) - 1) as usize;
            });
            changed(cx, tv)?;
            Ok(0)
        }
        WM_DESTROY => {
            // Every item goes with TVN_DELETEITEM, as a program frees its lParams there.
            delete(cx, tv, TVI_ROOT)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            trees(cx)
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&tv);
            crate::user32::window::def_window_proc(cx, tv, m, wp, lp, u)
        }
        _ => crate::user32::window::def_window_proc(cx, tv, m, wp, lp, u),
    }
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: CLASS,
        export: "__winterp_TreeViewWndProc",
        wndproc,
        style: 0x8 | 0x1 | 0x2,
        wnd_extra: 4,
        background: 0,
    }
}

pub fn export() -> crate::hle::ApiDef {
    crate::user32::hostclass::export("__winterp_TreeViewWndProc", wndproc)
}
