//! The tab control (`SysTabControl32`) of comctl32 5.8: items with text, image
//! index, state and application bytes (TCM_SETITEMEXTRA), one selected item, the
//! display-area arithmetic of TCM_ADJUSTRECT, hit testing, fixed-width and padded
//! items, TCS_BUTTONS and TCS_MULTILINE rows, and the TCN_SELCHANGING / TCN_SELCHANGE
//! pair around a selection the user makes (mouse or arrow keys), and item icons
//! from the image list (every item makes room for one once a list is set).

use super::header::{
    fill, inside, le32, measure, notify, paint_with, point, put_rect, read_rect, redraw, style_of,
    sys,
};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::msg::*;
use crate::user32::{UR, lock_wm};
use std::collections::HashMap;
use std::sync::Mutex;

pub const CLASS: &str = "SysTabControl32";

const TCM_GETIMAGELIST: u32 = 0x1302;
const TCM_SETIMAGELIST: u32 = 0x1303;
const TCM_GETITEMCOUNT: u32 = 0x1304;
const TCM_GETITEMA: u32 = 0x1305;
const TCM_SETITEMA: u32 = 0x1306;
const TCM_INSERTITEMA: u32 = 0x1307;
const TCM_DELETEITEM: u32 = 0x1308;
const TCM_DELETEALLITEMS: u32 = 0x1309;
const TCM_GETITEMRECT: u32 = 0x130a;
pub const TCM_GETCURSEL: u32 = 0x130b;
pub const TCM_SETCURSEL: u32 = 0x130c;
const TCM_HITTEST: u32 = 0x130d;
const TCM_SETITEMEXTRA: u32 = 0x130e;
pub const TCM_ADJUSTRECT: u32 = 0x1328;
const TCM_SETITEMSIZE: u32 = 0x1329;
const TCM_REMOVEIMAGE: u32 = 0x132a;
const TCM_SETPADDING: u32 = 0x132b;
const TCM_GETROWCOUNT: u32 = 0x132c;
const TCM_GETTOOLTIPS: u32 = 0x132d;
const TCM_SETTOOLTIPS: u32 = 0x132e;
const TCM_GETCURFOCUS: u32 = 0x132f;
const TCM_SETCURFOCUS: u32 = 0x1330;
const TCM_SETMINTABWIDTH: u32 = 0x1331;
const TCM_DESELECTALL: u32 = 0x1332;
const TCM_HIGHLIGHTITEM: u32 = 0x1333;
const TCM_SETEXTENDEDSTYLE: u32 = 0x1334;
const TCM_GETEXTENDEDSTYLE: u32 = 0x1335;
const TCM_GETITEMW: u32 = 0x133c;
const TCM_SETITEMW: u32 = 0x133d;
pub const TCM_INSERTITEMW: u32 = 0x133e;
const CCM_SETUNICODEFORMAT: u32 = 0x2005;
const CCM_GETUNICODEFORMAT: u32 = 0x2006;

const TCIF_TEXT: u32 = 1;
const TCIF_IMAGE: u32 = 2;
const TCIF_PARAM: u32 = 8;
const TCIF_STATE: u32 = 0x10;
const TCIS_BUTTONPRESSED: u32 = 1;

const TCS_BUTTONS: u32 = 0x100;
pub const TCS_MULTILINE: u32 = 0x200;
const TCS_FIXEDWIDTH: u32 = 0x400;
const TCS_FOCUSNEVER: u32 = 0x8000;

const TCHT_NOWHERE: u32 = 1;
const TCHT_ONITEM: u32 = 6;

pub const TCN_KEYDOWN: i32 = -550;
pub const TCN_SELCHANGE: i32 = -551;
pub const TCN_SELCHANGING: i32 = -552;
const NM_CLICK: i32 = -2;

const DLGC_WANTARROWS: u32 = 1;
const DLGC_WANTCHARS: u32 = 0x80;

/// The narrowest an automatically sized item gets.
const MIN_WIDTH: i32 = 54;
const FIXED_WIDTH: i32 = 96;

#[derive(Clone, Default)]
struct Item {
    text: String,
    image: i32,
    state: u32,
    /// The application's bytes (an LPARAM unless TCM_SETITEMEXTRA said otherwise).
    extra: Vec<u8>,
}

struct Tab {
    items: Vec<Item>,
    cur: i32,
    focus: i32,
    font: u32,
    himl: u32,
    /// TCM_SETITEMSIZE's size, if set.
    size: Option<(i32, i32)>,
    padding: (i32, i32),
    min_width: i32,
    extra: u32,
    ext_style: u32,
    tooltips: u32,
    unicode_fmt: bool,
    pressed: Option<usize>,
}

impl Default for Tab {
    fn default() -> Tab {
        Tab {
            items: Vec::new(),
            cur: -1,
            focus: -1,
            font: 0,
            himl: 0,
            size: None,
            padding: (6, 3),
            min_width: MIN_WIDTH,
            extra: 4,
            ext_style: 0,
            tooltips: 0,
            unicode_fmt: false,
            pressed: None,
        }
    }
}

#[derive(Default)]
struct Tabs(Mutex<HashMap<u32, Tab>>);

fn with<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut Tab) -> R) -> Option<R> {
    let s = cx.proc.slot::<Tabs>();
    let mut m = s.0.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(&h).map(f)
}

/// Item rectangles (as TCM_GETITEMRECT gives them) and the number of rows.
fn layout(cx: &mut Ctx, h: u32) -> UR<(Vec<Rect>, i32, i32)> {
    let Some((texts, font, size, padding, min_w, cur, himl)) = with(cx, h, |s| {
        (
            s.items.iter().map(|i| i.text.clone()).collect::<Vec<_>>(),
            s.font,
            s.size,
            s.padding,
            s.min_width,
            s.cur,
            s.himl,
        )
    }) else {
        return Ok((Vec::new(), 0, 0));
    };
    let style = style_of(cx, h);
    let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    let (th, widths) = measure(cx, h, font, &refs)?;
    // With an image list every item makes room for an icon (and the padding after it).
    let icon = icon_size(cx, himl);
    let icon_w = if icon.0 > 0 { icon.0 + padding.0 } else { 0 };
    let item_h = size.map_or((th + 2).max(icon.1) + padding.1, |s| s.1);
    let (cw, _) = super::header::client_size(cx, h);
    let buttons = style & TCS_BUTTONS != 0;
    let multi = style & TCS_MULTILINE != 0;
    let gap = if buttons { 3 } else { 0 };
    // (row, left, width) of each item, rows in the order they fill.
    let mut cells: Vec<(i32, i32, i32)> = Vec::with_capacity(widths.len());
    let (mut x, mut row) = (2, 0);
    for w in widths {
        let w = if style & TCS_FIXEDWIDTH != 0 {
            size.map_or(FIXED_WIDTH, |s| s.0)
        } else {
            (w + 2 * padding.0 + icon_w).max(min_w)
        };
        if multi && x > 2 && x + w > cw - 2 {
            row += 1;
            x = 2;
        }
        cells.push((row, x, w));
        x += w + gap;
    }
    let rows = row + 1;
    // Full rows of a multi-row control stretch to its width (no TCS_RAGGEDRIGHT).
    if multi && rows > 1 && !buttons {
        for r in 0..rows {
            let idx: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].0 == r).collect();
            let used: i32 = idx.iter().map(|&i| cells[i].2).sum();
            let spare = (cw - 4 - used).max(0);
            let n = idx.len() as i32;
            let mut left = 2;
            for (k, &i) in idx.iter().enumerate() {
                let extra = spare / n + i32::from((k as i32) < spare % n);
                cells[i].1 = left;
                cells[i].2 += extra;
                left += cells[i].2;
            }
        }
    }
    // The row holding the selected item touches the display area; the others keep
    // their order behind it.
    let front = cells.get(cur.max(0) as usize).map_or(0, |c| c.0);
    let row_h = if buttons { item_h + 3 } else { item_h };
    let out = cells
        .iter()
        .map(|&(r, left, w)| {
            let pos = (r - front + rows) % rows;
            let top = 2 + (rows - 1 - pos) * row_h;
            Rect::new(left, top, left + w, top + item_h)
        })
        .collect();
    Ok((out, rows, row_h))
}

fn icon_size(cx: &Ctx, himl: u32) -> (i32, i32) {
    if himl == 0 {
        return (0, 0);
    }
    super::imagelist::size(cx.proc, himl).unwrap_or((0, 0))
}

/// The display area of a control of `w` x `hh` whose tabs take `rows` rows.
fn display(w: i32, hh: i32, rows: i32, row_h: i32) -> Rect {
    Rect::new(4, rows * row_h + 4, w - 4, hh - 4)
}

fn read_item(cx: &Ctx, p: u32, unicode: bool, it: &mut Item, extra: u32) -> UR<()> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & TCIF_TEXT != 0 {
        it.text = super::header::text_arg(cx, m.read_u32(p + 12)?, unicode)?.unwrap_or_default();
    }
    if mask & TCIF_IMAGE != 0 {
        it.image = m.read_u32(p + 20)? as i32;
    }
    if mask & TCIF_PARAM != 0 {
        let mut b = vec![0u8; extra as usize];
        m.read_bytes(p + 24, &mut b)?;
        it.extra = b;
    }
    if mask & TCIF_STATE != 0 {
        let st = m.read_u32(p + 4)?;
        let sm = m.read_u32(p + 8)?;
        it.state = (it.state & !sm) | (st & sm);
    }
    Ok(())
}

fn write_item(cx: &Ctx, p: u32, unicode: bool, it: &Item) -> UR<()> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p)?;
    if mask & TCIF_TEXT != 0 {
        let buf = m.read_u32(p + 12)?;
        let cap = m.read_u32(p + 16)?;
        if buf != 0 && cap > 0 {
            crate::user32::put_str(cx, buf, cap, &it.text, unicode)?;
        }
    }
    if mask & TCIF_IMAGE != 0 {
        m.write_u32(p + 20, it.image as u32)?;
    }
    if mask & TCIF_PARAM != 0 {
        m.write_bytes(p + 24, &it.extra)?;
    }
    if mask & TCIF_STATE != 0 {
        let sm = m.read_u32(p + 8)?;
        m.write_u32(p + 4, it.state & sm)?;
    }
    Ok(())
}

/// A selection the user makes: TCN_SELCHANGING (which may refuse), then TCN_SELCHANGE.
fn user_select(cx: &mut Ctx, h: u32, i: i32) -> UR<()> {
    let cur = with(cx, h, |s| s.cur).unwrap_or(-1);
    if i == cur {
        return Ok(());
    }
    if notify(cx, h, TCN_SELCHANGING, &[])?.0 != 0 {
        return Ok(());
    }
    with(cx, h, |s| {
        s.cur = i;
        s.focus = i;
    });
    redraw(cx, h);
    notify(cx, h, TCN_SELCHANGE, &[])?;
    Ok(())
}

fn hit(cx: &mut Ctx, h: u32, p: (i32, i32)) -> UR<(i32, u32)> {
    let (rs, _, _) = layout(cx, h)?;
    Ok(rs
        .iter()
        .position(|r| inside(r, p))
        .map_or((-1, TCHT_NOWHERE), |i| (i as i32, TCHT_ONITEM)))
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let (rs, rows, row_h) = layout(cx, h)?;
    let Some((items, cur, font, focus, himl, padding)) = with(cx, h, |s| {
        (s.items.clone(), s.cur, s.font, s.focus, s.himl, s.padding)
    }) else {
        return Ok(0);
    };
    let style = style_of(cx, h);
    let has_focus = lock_wm(cx.proc).focus == h;
    paint_with(cx, h, font, |cx, hdc, w, hh| {
        fill(cx, hdc, Rect::new(0, 0, w, hh), sys(15))?;
        let buttons = style & TCS_BUTTONS != 0;
        if !buttons {
            let d = display(w, hh, rows, row_h);
            gp::draw_edge_ex(
                cx.proc,
                hdc,
                Rect::new(0, d.top - 2, w, hh),
                gp::EDGE_RAISED,
                gp::BF_RECT | gp::BF_SOFT,
            )?;
        }
        for (i, it) in items.iter().enumerate() {
            let mut r = rs[i];
            let sel = i as i32 == cur;
            if buttons {
                let pressed = sel || it.state & TCIS_BUTTONPRESSED != 0;
                let edge = if pressed {
                    gp::EDGE_SUNKEN
                } else {
                    gp::EDGE_RAISED
                };
                gp::draw_edge_ex(cx.proc, hdc, r, edge, gp::BF_RECT | gp::BF_SOFT)?;
            } else {
                if sel {
                    // The selected tab stands out and joins the display area.
                    r = Rect::new(r.left - 2, r.top - 2, r.right + 2, r.bottom + 1);
                    fill(cx, hdc, r, sys(15))?;
                }
                gp::draw_edge_ex(
                    cx.proc,
                    hdc,
                    r,
                    gp::EDGE_RAISED,
                    gp::BF_LEFT | gp::BF_TOP | gp::BF_RIGHT | gp::BF_SOFT,
                )?;
            }
            let icon = icon_size(cx, himl);
            let mut tr = r;
            if icon.0 > 0 {
                let x = r.left + padding.0;
                if it.image >= 0 {
                    let y = r.top + (r.height() - icon.1) / 2;
                    super::imagelist::draw(cx.proc, himl, it.image, hdc, x, y, 0)?;
                }
                tr = Rect::new(x + icon.0, r.top, r.right, r.bottom);
            }
            gp::draw_text(
                cx.proc,
                hdc,
                &it.text,
                tr,
                gp::DT_CENTER | gp::DT_VCENTER | gp::DT_SINGLELINE,
            );
            if has_focus && i as i32 == focus && style & TCS_FOCUSNEVER == 0 {
                let f = Rect::new(r.left + 3, r.top + 3, r.right - 3, r.bottom - 2);
                crate::gdi32::paint::frame_rect(cx.proc, hdc, f, sys(16))?;
            }
        }
        Ok(())
    })
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_NCCREATE => {
            cx.proc
                .slot::<Tabs>()
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(h, Tab::default());
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_NCDESTROY => {
            cx.proc
                .slot::<Tabs>()
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
        WM_SIZE | WM_SETFOCUS | WM_KILLFOCUS => {
            redraw(cx, h);
            Ok(0)
        }
        WM_GETDLGCODE => Ok(DLGC_WANTARROWS | DLGC_WANTCHARS),
        WM_LBUTTONDOWN => {
            let (i, _) = hit(cx, h, point(lp))?;
            if style_of(cx, h) & TCS_FOCUSNEVER == 0 {
                crate::user32::window::set_focus(cx, h)?;
            }
            if i >= 0 {
                with(cx, h, |s| s.pressed = Some(i as usize));
                user_select(cx, h, i)?;
            }
            Ok(0)
        }
        WM_LBUTTONUP => {
            if with(cx, h, |s| s.pressed.take()).flatten().is_some() {
                notify(cx, h, NM_CLICK, &[])?;
            }
            Ok(0)
        }
        WM_KEYDOWN => {
            // NMTCKEYDOWN: wVKey (WORD, padded), flags.
            notify(cx, h, TCN_KEYDOWN, &le32(&[wp & 0xffff, lp]))?;
            let (cur, n) = with(cx, h, |s| (s.cur, s.items.len() as i32)).unwrap_or((-1, 0));
            let next = match wp {
                0x25 | 0x26 => cur - 1,
                0x27 | 0x28 => cur + 1,
                0x24 => 0,
                0x23 => n - 1,
                _ => return Ok(0),
            };
            if next >= 0 && next < n {
                user_select(cx, h, next)?;
            }
            Ok(0)
        }
        TCM_GETITEMCOUNT => Ok(with(cx, h, |s| s.items.len() as u32).unwrap_or(0)),
        TCM_INSERTITEMA | TCM_INSERTITEMW => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let extra = with(cx, h, |s| s.extra).unwrap_or(4);
            let mut it = Item {
                extra: vec![0; extra as usize],
                ..Item::default()
            };
            read_item(cx, lp, m == TCM_INSERTITEMW, &mut it, extra)?;
            let r = with(cx, h, |s| {
                let i = (wp as usize).min(s.items.len());
                s.items.insert(i, it);
                if s.items.len() == 1 {
                    s.cur = 0;
                    s.focus = 0;
                } else {
                    if s.cur >= i as i32 {
                        s.cur += 1;
                    }
                    if s.focus >= i as i32 {
                        s.focus += 1;
                    }
                }
                i as u32
            })
            .unwrap_or(u32::MAX);
            redraw(cx, h);
            Ok(r)
        }
        TCM_GETITEMA | TCM_GETITEMW => {
            let Some(Some(it)) = with(cx, h, |s| s.items.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            write_item(cx, lp, m == TCM_GETITEMW, &it)?;
            Ok(1)
        }
        TCM_SETITEMA | TCM_SETITEMW => {
            let Some((Some(mut it), extra)) =
                with(cx, h, |s| (s.items.get(wp as usize).cloned(), s.extra))
            else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            read_item(cx, lp, m == TCM_SETITEMW, &mut it, extra)?;
            with(cx, h, |s| s.items[wp as usize] = it);
            redraw(cx, h);
            Ok(1)
        }
        TCM_DELETEITEM => {
            let r = with(cx, h, |s| {
                let i = wp as usize;
                if i >= s.items.len() {
                    return false;
                }
                s.items.remove(i);
                let fix = |v: &mut i32| {
                    if *v == i as i32 {
                        *v = -1;
                    } else if *v > i as i32 {
                        *v -= 1;
                    }
                };
                fix(&mut s.cur);
                fix(&mut s.focus);
                true
            })
            .unwrap_or(false);
            redraw(cx, h);
            Ok(r as u32)
        }
        TCM_DELETEALLITEMS => {
            with(cx, h, |s| {
                s.items.clear();
                s.cur = -1;
                s.focus = -1;
            });
            redraw(cx, h);
            Ok(1)
        }
        TCM_GETITEMRECT => {
            let (rs, _, _) = layout(cx, h)?;
            match rs.get(wp as usize) {
                Some(r) => {
                    if lp != 0 {
                        put_rect(cx, lp, *r)?;
                    }
                    Ok(1)
                }
                None => Ok(0),
            }
        }
        TCM_GETCURSEL => Ok(with(cx, h, |s| s.cur).unwrap_or(-1) as u32),
        TCM_SETCURSEL => {
            let r = with(cx, h, |s| {
                if (wp as usize) < s.items.len() {
                    let old = s.cur;
                    s.cur = wp as i32;
                    s.focus = wp as i32;
                    old
                } else {
                    -1
                }
            })
            .unwrap_or(-1);
            redraw(cx, h);
            Ok(r as u32)
        }
        TCM_GETCURFOCUS => Ok(with(cx, h, |s| s.focus).unwrap_or(-1) as u32),
        TCM_SETCURFOCUS => {
            let n = with(cx, h, |s| s.items.len()).unwrap_or(0);
            if (wp as usize) < n {
                if style_of(cx, h) & TCS_BUTTONS != 0 {
                    with(cx, h, |s| s.focus = wp as i32);
                    redraw(cx, h);
                } else {
                    user_select(cx, h, wp as i32)?;
                }
            }
            Ok(0)
        }
        TCM_HITTEST => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let x = cx.proc.mem.read_u32(lp)? as i32;
            let y = cx.proc.mem.read_u32(lp + 4)? as i32;
            let (i, flags) = hit(cx, h, (x, y))?;
            cx.proc.mem.write_u32(lp + 8, flags)?;
            Ok(i as u32)
        }
        TCM_SETITEMEXTRA => {
            let ok = with(cx, h, |s| {
                if s.items.is_empty() && wp as i32 >= 0 {
                    s.extra = wp;
                    true
                } else {
                    false
                }
            })
            .unwrap_or(false);
            Ok(ok as u32)
        }
        TCM_ADJUSTRECT => {
            if lp == 0 {
                return Ok(0);
            }
            let r = read_rect(cx, lp)?;
            let out = adjust(cx, h, r, wp != 0)?;
            put_rect(cx, lp, out)?;
            Ok(0)
        }
        TCM_SETITEMSIZE => {
            let font = with(cx, h, |s| s.font).unwrap_or(0);
            let (th, _) = measure(cx, h, font, &[])?;
            let old = with(cx, h, |s| {
                let old = s.size.unwrap_or((FIXED_WIDTH, th + 2 + s.padding.1));
                let cy = (lp >> 16) as i32;
                let cy = if cy == 0 { old.1 } else { cy };
                s.size = Some(((lp & 0xffff) as i32, cy));
                old
            })
            .unwrap_or((0, 0));
            redraw(cx, h);
            Ok((old.0 as u32 & 0xffff) | ((old.1 as u32) << 16))
        }
        TCM_SETPADDING => {
            with(cx, h, |s| {
                s.padding = ((lp & 0xffff) as i32, (lp >> 16) as i32)
            });
            redraw(cx, h);
            Ok(0)
        }
        TCM_SETMINTABWIDTH => {
            let v = if (lp as i32) < 0 {
                MIN_WIDTH
            } else {
                lp as i32
            };
            let old = with(cx, h, |s| std::mem::replace(&mut s.min_width, v)).unwrap_or(0);
            redraw(cx, h);
            Ok(old as u32)
        }
        TCM_GETROWCOUNT => Ok(layout(cx, h)?.1 as u32),
        TCM_GETIMAGELIST => Ok(with(cx, h, |s| s.himl).unwrap_or(0)),
        TCM_SETIMAGELIST => Ok(with(cx, h, |s| std::mem::replace(&mut s.himl, lp)).unwrap_or(0)),
        TCM_REMOVEIMAGE => {
            with(cx, h, |s| {
                for it in s.items.iter_mut() {
                    if it.image == wp as i32 {
                        it.image = -1;
                    } else if it.image > wp as i32 {
                        it.image -= 1;
                    }
                }
            });
            redraw(cx, h);
            Ok(0)
        }
        TCM_DESELECTALL => {
            with(cx, h, |s| {
                for (i, it) in s.items.iter_mut().enumerate() {
                    if wp == 0 || i as i32 != s.cur {
                        it.state &= !TCIS_BUTTONPRESSED;
                    }
                }
            });
            redraw(cx, h);
            Ok(0)
        }
        TCM_HIGHLIGHTITEM => {
            let ok = with(cx, h, |s| match s.items.get_mut(wp as usize) {
                Some(it) => {
                    if lp & 0xffff != 0 {
                        it.state |= 2;
                    } else {
                        it.state &= !2;
                    }
                    true
                }
                None => false,
            })
            .unwrap_or(false);
            redraw(cx, h);
            Ok(ok as u32)
        }
        TCM_SETEXTENDEDSTYLE => Ok(with(cx, h, |s| {
            let old = s.ext_style;
            let mask = if wp == 0 { u32::MAX } else { wp };
            s.ext_style = (old & !mask) | (lp & mask);
            old
        })
        .unwrap_or(0)),
        TCM_GETEXTENDEDSTYLE => Ok(with(cx, h, |s| s.ext_style).unwrap_or(0)),
        TCM_GETTOOLTIPS => Ok(with(cx, h, |s| s.tooltips).unwrap_or(0)),
        TCM_SETTOOLTIPS => {
            with(cx, h, |s| s.tooltips = wp);
            Ok(0)
        }
        CCM_SETUNICODEFORMAT => Ok(
            with(cx, h, |s| std::mem::replace(&mut s.unicode_fmt, wp != 0)).unwrap_or(false) as u32,
        ),
        CCM_GETUNICODEFORMAT => Ok(with(cx, h, |s| s.unicode_fmt).unwrap_or(false) as u32),
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

// ---- for the property sheet ------------------------------------------------------------

/// Inserts an item with `text` at `index`.
pub(super) fn insert_text(cx: &mut Ctx, h: u32, index: usize, text: &str) -> UR<()> {
    with(cx, h, |s| {
        let i = index.min(s.items.len());
        s.items.insert(
            i,
            Item {
                text: text.to_string(),
                image: -1,
                extra: vec![0; s.extra as usize],
                ..Item::default()
            },
        );
        if s.items.len() == 1 {
            s.cur = 0;
            s.focus = 0;
        } else if s.cur >= i as i32 {
            s.cur += 1;
        }
    });
    redraw(cx, h);
    Ok(())
}

/// TCM_ADJUSTRECT: the window rectangle for display area `r` (`larger`), or the
/// display area of window rectangle `r`.
pub(super) fn adjust(cx: &mut Ctx, h: u32, r: Rect, larger: bool) -> UR<Rect> {
    let (_, rows, row_h) = layout(cx, h)?;
    let top = rows.max(1) * row_h + 4;
    Ok(if larger {
        Rect::new(r.left - 4, r.top - top, r.right + 4, r.bottom + 4)
    } else {
        Rect::new(r.left + 4, r.top + top, r.right - 4, r.bottom - 4)
    })
}
