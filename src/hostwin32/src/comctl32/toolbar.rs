//! The toolbar (`ToolbarWindow32`): a row of buttons with images from an image list
//! (TB_ADDBITMAP fills the toolbar's own list; the HINST_COMMCTRL standard bitmaps are
//! [`super::glyphs`]), optional strings, separators, check and check-group buttons.
//! A click sends WM_COMMAND to the notification window and the TBN_/NM_ messages of
//! Windows around it. Geometry as comctl32 5.8 gives it: buttons 7 pixels wider and
//! 6 taller than their bitmaps, 8-pixel separators, laid out from the client's
//! top-left corner.

#![allow(non_snake_case)]

use super::ccommon::{self as cc, WM_USER};
use super::imagelist;
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiResult, Ctx, Outcome};
use crate::user32::msg::*;
use crate::user32::{UR, read_str};

const TB_ENABLEBUTTON: u32 = WM_USER + 1;
const TB_CHECKBUTTON: u32 = WM_USER + 2;
const TB_PRESSBUTTON: u32 = WM_USER + 3;
const TB_HIDEBUTTON: u32 = WM_USER + 4;
const TB_INDETERMINATE: u32 = WM_USER + 5;
const TB_MARKBUTTON: u32 = WM_USER + 6;
const TB_ISBUTTONENABLED: u32 = WM_USER + 9;
const TB_ISBUTTONCHECKED: u32 = WM_USER + 10;
const TB_ISBUTTONPRESSED: u32 = WM_USER + 11;
const TB_ISBUTTONHIDDEN: u32 = WM_USER + 12;
const TB_ISBUTTONINDETERMINATE: u32 = WM_USER + 13;
const TB_ISBUTTONHIGHLIGHTED: u32 = WM_USER + 14;
const TB_SETSTATE: u32 = WM_USER + 17;
const TB_GETSTATE: u32 = WM_USER + 18;
const TB_ADDBITMAP: u32 = WM_USER + 19;
const TB_ADDBUTTONSA: u32 = WM_USER + 20;
const TB_INSERTBUTTONA: u32 = WM_USER + 21;
const TB_DELETEBUTTON: u32 = WM_USER + 22;
const TB_GETBUTTON: u32 = WM_USER + 23;
const TB_BUTTONCOUNT: u32 = WM_USER + 24;
const TB_COMMANDTOINDEX: u32 = WM_USER + 25;
const TB_ADDSTRINGA: u32 = WM_USER + 28;
const TB_GETITEMRECT: u32 = WM_USER + 29;
const TB_BUTTONSTRUCTSIZE: u32 = WM_USER + 30;
const TB_SETBUTTONSIZE: u32 = WM_USER + 31;
const TB_SETBITMAPSIZE: u32 = WM_USER + 32;
const TB_AUTOSIZE: u32 = WM_USER + 33;
const TB_GETTOOLTIPS: u32 = WM_USER + 35;
const TB_SETTOOLTIPS: u32 = WM_USER + 36;
const TB_SETPARENT: u32 = WM_USER + 37;
const TB_SETROWS: u32 = WM_USER + 39;
const TB_GETROWS: u32 = WM_USER + 40;
const TB_SETCMDID: u32 = WM_USER + 42;
const TB_CHANGEBITMAP: u32 = WM_USER + 43;
const TB_GETBITMAP: u32 = WM_USER + 44;
const TB_GETBUTTONTEXTA: u32 = WM_USER + 45;
const TB_SETINDENT: u32 = WM_USER + 47;
const TB_SETIMAGELIST: u32 = WM_USER + 48;
const TB_GETIMAGELIST: u32 = WM_USER + 49;
const TB_LOADIMAGES: u32 = WM_USER + 50;
const TB_GETRECT: u32 = WM_USER + 51;
const TB_SETHOTIMAGELIST: u32 = WM_USER + 52;
const TB_GETHOTIMAGELIST: u32 = WM_USER + 53;
const TB_SETDISABLEDIMAGELIST: u32 = WM_USER + 54;
const TB_GETDISABLEDIMAGELIST: u32 = WM_USER + 55;
const TB_SETSTYLE: u32 = WM_USER + 56;
const TB_GETSTYLE: u32 = WM_USER + 57;
const TB_GETBUTTONSIZE: u32 = WM_USER + 58;
const TB_SETBUTTONWIDTH: u32 = WM_USER + 59;
const TB_SETMAXTEXTROWS: u32 = WM_USER + 60;
const TB_GETTEXTROWS: u32 = WM_USER + 61;
const TB_GETBUTTONINFOW: u32 = WM_USER + 63;
const TB_SETBUTTONINFOW: u32 = WM_USER + 64;
const TB_GETBUTTONINFOA: u32 = WM_USER + 65;
const TB_SETBUTTONINFOA: u32 = WM_USER + 66;
const TB_INSERTBUTTONW: u32 = WM_USER + 67;
const TB_ADDBUTTONSW: u32 = WM_USER + 68;
const TB_HITTEST: u32 = WM_USER + 69;
const TB_SETDRAWTEXTFLAGS: u32 = WM_USER + 70;
const TB_GETHOTITEM: u32 = WM_USER + 71;
const TB_SETHOTITEM: u32 = WM_USER + 72;
const TB_GETBUTTONTEXTW: u32 = WM_USER + 75;
const TB_ADDSTRINGW: u32 = WM_USER + 77;
const TB_GETMAXSIZE: u32 = WM_USER + 83;
const TB_SETEXTENDEDSTYLE: u32 = WM_USER + 84;
const TB_GETEXTENDEDSTYLE: u32 = WM_USER + 85;
const TB_GETPADDING: u32 = WM_USER + 86;
const TB_SETPADDING: u32 = WM_USER + 87;

const TBSTATE_CHECKED: u8 = 0x1;
const TBSTATE_PRESSED: u8 = 0x2;
const TBSTATE_ENABLED: u8 = 0x4;
const TBSTATE_HIDDEN: u8 = 0x8;
const TBSTATE_INDETERMINATE: u8 = 0x10;
const TBSTATE_WRAP: u8 = 0x20;
const TBSTATE_MARKED: u8 = 0x80;
const BTNS_SEP: u8 = 0x1;
const BTNS_CHECK: u8 = 0x2;
const BTNS_GROUP: u8 = 0x4;
const TBSTYLE_TOOLTIPS: u32 = 0x100;
const TBSTYLE_WRAPABLE: u32 = 0x200;
const TBSTYLE_FLAT: u32 = 0x800;
const TBSTYLE_LIST: u32 = 0x1000;
const TBN_BEGINDRAG: u32 = (-701i32) as u32;
const TBN_ENDDRAG: u32 = (-702i32) as u32;
const TBN_HOTITEMCHANGE: u32 = (-713i32) as u32;
const TBN_DELETINGBUTTON: u32 = (-715i32) as u32;
const HICF_MOUSE: u32 = 0x1;
const HICF_LEAVING: u32 = 0x20;
const HINST_COMMCTRL: u32 = u32::MAX;
const IDB_STD_SMALL_COLOR: u32 = 0;
const SEPARATOR_WIDTH: i32 = 8;
const TTM_ADDTOOLW: u32 = WM_USER + 50;

#[derive(Clone, Default, Debug)]
struct Button {
    bitmap: i32,
    cmd: i32,
    state: u8,
    style: u8,
    data: u32,
    /// Index into the string list, or -1.
    string: i32,
    /// A string given by pointer (comctl32 5.80).
    text: Option<String>,
}

struct State {
    buttons: Vec<Button>,
    strings: Vec<String>,
    himl: u32,
    /// Whether `himl` is the toolbar's own (TB_ADDBITMAP), destroyed with it.
    own_himl: bool,
    himl_disabled: u32,
    himl_hot: u32,
    /// Standard bitmaps already added: (instance, id) -> first image index.
    added: Vec<(u32, u32, i32)>,
    bitmap: (i32, i32),
    button: (i32, i32),
    struct_size: u32,
    notify: u32,
    tooltips: u32,
    ext_style: u32,
    hot: i32,
    pressed: i32,
    indent: i32,
    rows: i32,
    padding: (i32, i32),
    created: bool,
}

impl Default for State {
    fn default() -> Self {
        State {
            buttons: Vec::new(),
            strings: Vec::new(),
            himl: 0,
            own_himl: false,
            himl_disabled: 0,
            himl_hot: 0,
            added: Vec::new(),
            bitmap: (16, 15),
            button: (0, 0),
            struct_size: 20,
            notify: 0,
            tooltips: 0,
            ext_style: 0,
            hot: -1,
            pressed: -1,
            indent: 0,
            rows: 1,
            padding: (7, 6),
            created: false,
        }
    }
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

impl State {
    fn index_of(&self, cmd: u32) -> Option<usize> {
        self.buttons.iter().position(|b| b.cmd == cmd as i32)
    }

    fn label(&self, b: &Button) -> Option<String> {
        if let Some(t) = &b.text {
            return Some(t.clone());
        }
        usize::try_from(b.string)
            .ok()
            .and_then(|i| self.strings.get(i).cloned())
    }

    fn has_labels(&self) -> bool {
        self.buttons
            .iter()
            .any(|b| b.style & BTNS_SEP == 0 && self.label(b).is_some())
    }
}

/// The size every button has: the bitmap plus padding, at least what
/// TB_SETBUTTONSIZE asked for, with room for the labels.
fn button_size(cx: &mut Ctx, h: u32, style: u32) -> UR<(i32, i32)> {
    let (bm, btn, pad, labels) = st(cx, h, |s| {
        let labels: Vec<String> = if s.has_labels() {
            s.buttons.iter().filter_map(|b| s.label(b)).collect()
        } else {
            Vec::new()
        };
        (s.bitmap, s.button, s.padding, labels)
    });
    let mut w = (bm.0 + pad.0).max(btn.0);
    let mut hgt = (bm.1 + pad.1).max(btn.1);
    // A size set with TB_SETBUTTONSIZE is kept even when labels would want more.
    if !labels.is_empty() && btn == (0, 0) {
        let fh = cc::font_height(cx, h)?;
        let mut tw = 0;
        for l in &labels {
            tw = tw.max(cc::text_width(cx, h, l)?);
        }
        if style & TBSTYLE_LIST != 0 {
            w = w.max(bm.0 + tw + pad.0 + 4);
        } else {
            w = w.max(tw + 6);
            hgt = hgt.max(bm.1 + pad.1 + fh + 2);
        }
    }
    Ok((w, hgt))
}

/// Every button's rectangle (hidden ones empty), in client coordinates.
fn layout_rects(cx: &mut Ctx, h: u32) -> UR<Vec<Rect>> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(Vec::new());
    };
    let (bw, bh) = button_size(cx, h, w.style)?;
    let (buttons, indent) = st(cx, h, |s| (s.buttons.clone(), s.indent));
    let wrap = w.style & TBSTYLE_WRAPABLE != 0;
    let (mut x, mut y) = (indent, 0);
    let mut out = Vec::with_capacity(buttons.len());
    for b in &buttons {
        if b.state & TBSTATE_HIDDEN != 0 {
            out.push(Rect::new(x, y, x, y));
            continue;
        }
        let width = if b.style & BTNS_SEP != 0 {
            if b.bitmap > 0 {
                b.bitmap
            } else {
                SEPARATOR_WIDTH
            }
        } else {
            bw
        };
        if wrap && x > indent && x + width > w.w {
            x = indent;
            y += bh;
        }
        out.push(Rect::new(x, y, x + width, y + bh));
        x += width;
        if b.state & TBSTATE_WRAP != 0 {
            x = indent;
            y += bh;
        }
    }
    Ok(out)
}

/// The height the toolbar wants: its rows of buttons and the margin below them.
fn wanted_height(cx: &mut Ctx, h: u32) -> UR<i32> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(0);
    };
    let (_, bh) = button_size(cx, h, w.style)?;
    let rects = layout_rects(cx, h)?;
    let bottom = rects.iter().map(|r| r.bottom).max().unwrap_or(bh).max(bh);
    let divider = if w.style & cc::CCS_NODIVIDER == 0 {
        2
    } else {
        0
    };
    Ok(bottom + 4 + divider)
}

fn autosize(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    let hgt = wanted_height(cx, h)?;
    if let Some(r) = cc::align_in_parent(cx, &w, hgt) {
        cc::place(cx, h, r)?;
    }
    cc::redraw(cx, h);
    Ok(())
}

/// TBBUTTON (20 bytes; 16 for programs that set the 4.0 size): iBitmap, idCommand,
/// fsState, fsStyle, 2 reserved bytes, dwData, iString.
fn read_button(cx: &Ctx, p: u32, size: u32, u: bool) -> UR<Button> {
    let m = &cx.proc.mem;
    let state_style = m.read_u32(p + 8)?;
    let string = if size >= 20 {
        m.read_u32(p + 16)?
    } else {
        u32::MAX
    };
    let (string, text) = if string != u32::MAX && string >= 0x10000 {
        (-1, Some(read_str(cx, string, u)?))
    } else {
        (string as i32, None)
    };
    Ok(Button {
        bitmap: m.read_u32(p)? as i32,
        cmd: m.read_u32(p + 4)? as i32,
        state: state_style as u8,
        style: (state_style >> 8) as u8,
        data: if size >= 16 { m.read_u32(p + 12)? } else { 0 },
        string,
        text,
    })
}

fn insert_buttons(cx: &mut Ctx, h: u32, at: Option<usize>, n: u32, p: u32, u: bool) -> UR<u32> {
    if p == 0 {
        return Ok(0);
    }
    let size = st(cx, h, |s| s.struct_size).max(16);
    let mut new = Vec::with_capacity(n as usize);
    for k in 0..n {
        new.push(read_button(cx, p + k * size, size, u)?);
    }
    st(cx, h, |s| {
        let at = at.unwrap_or(s.buttons.len()).min(s.buttons.len());
        for (k, b) in new.into_iter().enumerate() {
            s.buttons.insert(at + k, b);
        }
    });
    autosize_if_created(cx, h)?;
    Ok(1)
}

fn autosize_if_created(cx: &mut Ctx, h: u32) -> UR<()> {
    if st(cx, h, |s| s.created) {
        autosize(cx, h)?;
    }
    Ok(())
}

/// TB_ADDBITMAP: `n` images from TBADDBITMAP {hInst, nID}.
fn add_bitmap(cx: &mut Ctx, h: u32, n: u32, p: u32) -> UR<u32> {
    if p == 0 {
        return Ok(u32::MAX);
    }
    let inst = cx.proc.mem.read_u32(p)?;
    let id = cx.proc.mem.read_u32(p + 4)?;
    if let Some(&(_, _, first)) = st(cx, h, |s| {
        s.added
            .iter()
            .find(|(i, d, _)| *i == inst && *d == id && inst != 0)
            .copied()
    })
    .as_ref()
    {
        return Ok(first as u32);
    }
    let (bw, bh) = st(cx, h, |s| s.bitmap);
    let (pw, ph, px, t) = if inst == HINST_COMMCTRL {
        let Some((w, hh, px, t)) = super::glyphs::standard_bitmap(id) else {
            return Ok(u32::MAX);
        };
        // A large set makes the buttons large.
        if hh != bh {
            st(cx, h, |s| s.bitmap = (hh, hh));
        }
        (w, hh, px, Some(t))
    } else {
        let hbm = if inst == 0 {
            id
        } else {
            crate::user32::call_export(cx, "USER32.dll", "LoadBitmapW", &[inst, id])?.unwrap_or(0)
        };
        let Some(bm) = crate::gdi32::bitmap::bitmap(cx.proc, hbm) else {
            return Ok(u32::MAX);
        };
        let px = crate::gdi32::bitmap::read_bitmap_pixels(cx.proc, &bm)?;
        if inst != 0 {
            crate::user32::call_export(cx, "GDI32.dll", "DeleteObject", &[hbm])?;
        }
        // The light grey of button faces is the transparent colour of toolbar
        // bitmaps.
        let face = crate::gdi32::objects::cr_to_rgb(gp::sys_color(gp::COLOR_BTNFACE));
        let t: Vec<bool> = px.iter().map(|&c| c & 0xff_ffff == face).collect();
        (bm.width, bm.height, px, Some(t))
    };
    let (bw, bh) = if inst == HINST_COMMCTRL {
        (ph, ph)
    } else {
        (bw, bh)
    };
    let himl = st(cx, h, |s| s.himl);
    let himl = if himl == 0 {
        let l = imagelist::create(cx.proc, bw, bh, imagelist::ILC_MASK, 4);
        st(cx, h, |s| {
            s.himl = l;
            s.own_himl = true;
        });
        l
    } else {
        himl
    };
    let before = imagelist::count(cx.proc, himl).unwrap_or(0) as i32;
    let first = imagelist::add_pixels(cx.proc, himl, pw, ph, &px, t.as_deref());
    if first < 0 {
        return Ok(u32::MAX);
    }
    let _ = n;
    st(cx, h, |s| s.added.push((inst, id, before)));
    cc::redraw(cx, h);
    Ok(before as u32)
}

/// TB_ADDSTRING: a resource string (hInst, id) or a list of strings ending in an
/// empty one; returns the index of the first.
fn add_string(cx: &mut Ctx, h: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let mut new = Vec::new();
    if wp != 0 {
        let (buf, esp) = crate::user32::stack_alloc(cx, 1024);
        let r = crate::user32::call_export(
            cx,
            "USER32.dll",
            if u { "LoadStringW" } else { "LoadStringA" },
            &[wp, lp, buf, 511],
        );
        let s = match r {
            Ok(Some(n)) if n > 0 => read_str(cx, buf, u).map_err(Into::into),
            Ok(_) => Ok(String::new()),
            Err(e) => Err(e),
        };
        crate::user32::stack_free(cx, esp);
        let s = s?;
        // A resource string lists its strings separated by its own last character.
        if let Some(sep) = s.chars().last() {
            new.extend(s[..s.len() - sep.len_utf8()].split(sep).map(String::from));
        }
    } else {
        let mut p = lp;
        let step = if u { 2 } else { 1 };
        loop {
            let s = read_str(cx, p, u)?;
            if s.is_empty() {
                break;
            }
            p += (crate::user32::str_len(&s, u) + 1) * step;
            new.push(s);
            if new.len() > 4096 {
                break;
            }
        }
    }
    Ok(st(cx, h, |s| {
        let first = s.strings.len() as u32;
        s.strings.extend(new);
        first
    }))
}

fn write_button(cx: &Ctx, p: u32, b: &Button, size: u32) -> UR<()> {
    let m = &cx.proc.mem;
    m.write_u32(p, b.bitmap as u32)?;
    m.write_u32(p + 4, b.cmd as u32)?;
    m.write_u32(p + 8, b.state as u32 | (b.style as u32) << 8)?;
    if size >= 16 {
        m.write_u32(p + 12, b.data)?;
    }
    if size >= 20 {
        m.write_u32(p + 16, b.string as u32)?;
    }
    Ok(())
}

/// NMTOOLBAR after NMHDR: iItem, TBBUTTON, cchText, pszText, rcButton.
fn nmtoolbar(b: &Button, r: Rect) -> Vec<u32> {
    vec![
        b.cmd as u32,
        b.bitmap as u32,
        b.cmd as u32,
        b.state as u32 | (b.style as u32) << 8,
        b.data,
        b.string as u32,
        0,
        0,
        r.left as u32,
        r.top as u32,
        r.right as u32,
        r.bottom as u32,
    ]
}

fn notify_parent(cx: &mut Ctx, h: u32, code: u32, extra: &[u32]) -> UR<(u32, Vec<u32>)> {
    let to = st(cx, h, |s| s.notify);
    let to = if to != 0 {
        to
    } else {
        cc::win(cx, h).map_or(0, |w| w.parent)
    };
    cc::notify_to(cx, to, h, code, extra)
}

fn hit(cx: &mut Ctx, h: u32, x: i32, y: i32) -> UR<Option<usize>> {
    let rects = layout_rects(cx, h)?;
    Ok(rects.iter().position(|r| r.contains(x, y)))
}

fn set_hot(cx: &mut Ctx, h: u32, new: i32, flags: u32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    if w.style & TBSTYLE_FLAT == 0 {
        return Ok(());
    }
    let (old, old_cmd, new_cmd) = st(cx, h, |s| {
        let cmd = |i: i32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| s.buttons.get(i))
                .map_or(0, |b| b.cmd as u32)
        };
        (s.hot, cmd(s.hot), cmd(new))
    });
    if old == new {
        return Ok(());
    }
    let f = flags | if new < 0 { HICF_LEAVING } else { 0 };
    let (r, _) = notify_parent(cx, h, TBN_HOTITEMCHANGE, &[old_cmd, new_cmd, f])?;
    if r == 0 {
        st(cx, h, |s| s.hot = new);
        cc::redraw(cx, h);
    }
    Ok(())
}

fn mouse_point(lp: u32) -> (i32, i32) {
    ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32)
}

fn lbutton_down(cx: &mut Ctx, h: u32, wp: u32, lp: u32) -> UR<u32> {
    let (x, y) = mouse_point(lp);
    let Some(i) = hit(cx, h, x, y)? else {
        return Ok(0);
    };
    let b = st(cx, h, |s| s.buttons[i].clone());
    if b.style & BTNS_SEP != 0 {
        return Ok(0);
    }
    set_hot(cx, h, i as i32, HICF_MOUSE)?;
    if b.state & TBSTATE_ENABLED == 0 {
        return Ok(0);
    }
    let rects = layout_rects(cx, h)?;
    notify_parent(cx, h, TBN_BEGINDRAG, &nmtoolbar(&b, rects[i]))?;
    let (r, _) = notify_parent(
        cx,
        h,
        cc::NM_LDOWN,
        &[b.cmd as u32, b.data, x as u32, y as u32, wp],
    )?;
    if r != 0 {
        return Ok(0);
    }
    st(cx, h, |s| {
        s.pressed = i as i32;
        s.buttons[i].state |= TBSTATE_PRESSED;
    });
    crate::user32::call_export(cx, "USER32.dll", "SetCapture", &[h])?;
    cc::redraw(cx, h);
    Ok(0)
}

fn lbutton_up(cx: &mut Ctx, h: u32, lp: u32) -> UR<u32> {
    let (x, y) = mouse_point(lp);
    let pressed = st(cx, h, |s| std::mem::replace(&mut s.pressed, -1));
    let Ok(i) = usize::try_from(pressed) else {
        return Ok(0);
    };
    let Some(b) = st(cx, h, |s| {
        s.buttons.get_mut(i).map(|b| {
            b.state &= !TBSTATE_PRESSED;
            b.clone()
        })
    }) else {
        return Ok(0);
    };
    crate::user32::call_export(cx, "USER32.dll", "ReleaseCapture", &[])?;
    notify_parent(cx, h, cc::NM_RELEASEDCAPTURE, &[])?;
    let rects = layout_rects(cx, h)?;
    let inside = rects.get(i).is_some_and(|r| r.contains(x, y));
    if inside && b.style & BTNS_CHECK != 0 {
        st(cx, h, |s| {
            check(s, i, s.buttons[i].state & TBSTATE_CHECKED == 0)
        });
    }
    cc::redraw(cx, h);
    let b = st(cx, h, |s| s.buttons[i].clone());
    notify_parent(cx, h, TBN_ENDDRAG, &nmtoolbar(&b, rects[i]))?;
    let to = st(cx, h, |s| s.notify);
    let to = if to != 0 {
        to
    } else {
        cc::win(cx, h).map_or(0, |w| w.parent)
    };
    if inside {
        cc::command(cx, to, b.cmd as u32, 0, h)?;
    }
    notify_parent(
        cx,
        h,
        cc::NM_CLICK,
        &[
            if inside { b.cmd as u32 } else { u32::MAX },
            b.data,
            x as u32,
            y as u32,
            0,
        ],
    )?;
    Ok(0)
}

/// Checks or unchecks button `i`; checking one of a check group unchecks the others
/// of its group (the adjacent BTNS_GROUP buttons).
fn check(s: &mut State, i: usize, on: bool) {
    let group = s.buttons[i].style & BTNS_GROUP != 0 && s.buttons[i].style & BTNS_CHECK != 0;
    if on && group {
        let is_g = |b: &Button| b.style & BTNS_GROUP != 0 && b.style & BTNS_SEP == 0;
        let mut a = i;
        while a > 0 && is_g(&s.buttons[a - 1]) {
            a -= 1;
        }
        let mut z = i;
        while z + 1 < s.buttons.len() && is_g(&s.buttons[z + 1]) {
            z += 1;
        }
        for b in &mut s.buttons[a..=z] {
            b.state &= !TBSTATE_CHECKED;
        }
    }
    if on {
        s.buttons[i].state |= TBSTATE_CHECKED;
    } else if !group {
        s.buttons[i].state &= !TBSTATE_CHECKED;
    }
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let rects = layout_rects(cx, h)?;
    let (bm_w, bm_h) = st(cx, h, |s| s.bitmap);
    cc::paint(cx, h, |cx, hdc, w| {
        let (buttons, himl, dis, hotl, hot, labels) = st(cx, h, |s| {
            let labels: Vec<Option<String>> = s.buttons.iter().map(|b| s.label(b)).collect();
            (
                s.buttons.clone(),
                s.himl,
                s.himl_disabled,
                s.himl_hot,
                s.hot,
                labels,
            )
        });
        let flat = w.style & TBSTYLE_FLAT != 0;
        let list = w.style & TBSTYLE_LIST != 0;
        cc::fill(
            cx,
            hdc,
            Rect::new(0, 0, w.w, w.h),
            gp::sys_color(gp::COLOR_BTNFACE),
        )?;
        for (i, (b, r)) in buttons.iter().zip(&rects).enumerate() {
            if r.is_empty() {
                continue;
            }
            if b.style & BTNS_SEP != 0 {
                if flat {
                    let x = r.left + r.width() / 2 - 1;
                    let line = Rect::new(x, r.top + 1, x + 2, r.bottom - 1);
                    gp::draw_edge_ex(
                        cx.proc,
                        hdc,
                        line,
                        gp::BDR_SUNKENOUTER,
                        gp::BF_LEFT | gp::BF_RIGHT,
                    )?;
                }
                continue;
            }
            let down = b.state & (TBSTATE_PRESSED | TBSTATE_CHECKED) != 0;
            let enabled = b.state & TBSTATE_ENABLED != 0;
            if down {
                if b.state & TBSTATE_CHECKED != 0 && b.state & TBSTATE_PRESSED == 0 {
                    // A checked button's face is dithered light.
                    for y in r.top + 1..r.bottom - 1 {
                        for x in r.left + 1..r.right - 1 {
                            if (x + y) % 2 == 0 {
                                cc::fill(
                                    cx,
                                    hdc,
                                    Rect::new(x, y, x + 1, y + 1),
                                    gp::sys_color(gp::COLOR_BTNHIGHLIGHT),
                                )?;
                            }
                        }
                    }
                }
                let edge = if flat {
                    gp::BDR_SUNKENOUTER
                } else {
                    gp::EDGE_SUNKEN
                };
                gp::draw_edge_ex(cx.proc, hdc, *r, edge, gp::BF_RECT)?;
            } else if !flat {
                gp::draw_edge_ex(cx.proc, hdc, *r, gp::EDGE_RAISED, gp::BF_RECT)?;
            } else if hot == i as i32 && enabled {
                gp::draw_edge_ex(cx.proc, hdc, *r, gp::BDR_RAISEDINNER, gp::BF_RECT)?;
            }
            let off = if down { 1 } else { 0 };
            let label = labels[i].clone().filter(|_| true);
            let (ix, iy) = if list {
                (r.left + 4 + off, r.top + (r.height() - bm_h) / 2 + off)
            } else if label.is_some() {
                (r.left + (r.width() - bm_w) / 2 + off, r.top + 3 + off)
            } else {
                (
                    r.left + (r.width() - bm_w) / 2 + off,
                    r.top + (r.height() - bm_h) / 2 + off,
                )
            };
            if himl != 0 && b.bitmap >= 0 {
                if !enabled {
                    if dis != 0 {
                        imagelist::draw(
                            cx.proc,
                            dis,
                            b.bitmap,
                            hdc,
                            ix,
                            iy,
                            imagelist::ILD_TRANSPARENT,
                        )?;
                    } else {
                        let hl =
                            crate::gdi32::objects::cr_to_rgb(gp::sys_color(gp::COLOR_BTNHIGHLIGHT));
                        let sh =
                            crate::gdi32::objects::cr_to_rgb(gp::sys_color(gp::COLOR_BTNSHADOW));
                        imagelist::draw_solid(cx.proc, himl, b.bitmap, hdc, ix + 1, iy + 1, hl)?;
                        imagelist::draw_solid(cx.proc, himl, b.bitmap, hdc, ix, iy, sh)?;
                    }
                } else {
                    let l = if hot == i as i32 && hotl != 0 {
                        hotl
                    } else {
                        himl
                    };
                    imagelist::draw(
                        cx.proc,
                        l,
                        b.bitmap,
                        hdc,
                        ix,
                        iy,
                        imagelist::ILD_TRANSPARENT,
                    )?;
                }
            }
            if let Some(t) = label {
                let tr = if list {
                    Rect::new(ix + bm_w + 2, r.top, r.right - 2, r.bottom)
                } else {
                    Rect::new(
                        r.left + 2 + off,
                        iy + bm_h + 1,
                        r.right - 2 + off,
                        r.bottom - 1 + off,
                    )
                };
                let fmt = gp::DT_SINGLELINE
                    | gp::DT_END_ELLIPSIS
                    | if list { gp::DT_VCENTER } else { gp::DT_CENTER };
                if !enabled {
                    crate::user32::call_export(
                        cx,
                        "GDI32.dll",
                        "SetTextColor",
                        &[hdc, gp::sys_color(gp::COLOR_GRAYTEXT)],
                    )?;
                }
                gp::draw_text(cx.proc, hdc, &t, tr, fmt);
                if !enabled {
                    crate::user32::call_export(
                        cx,
                        "GDI32.dll",
                        "SetTextColor",
                        &[hdc, gp::sys_color(gp::COLOR_BTNTEXT)],
                    )?;
                }
            }
        }
        Ok(())
    })
}

fn set_state_bits(cx: &mut Ctx, h: u32, cmd: u32, bits: u8, on: bool) -> UR<u32> {
    // Programs refresh button states from their idle loop: only a change redraws.
    let (ok, changed) = st(cx, h, |s| {
        let Some(i) = s.index_of(cmd) else {
            return (false, false);
        };
        let before: Vec<u8> = s.buttons.iter().map(|b| b.state).collect();
        if bits == TBSTATE_CHECKED {
            check(s, i, on);
        } else if on {
            s.buttons[i].state |= bits;
        } else {
            s.buttons[i].state &= !bits;
        }
        (true, s.buttons.iter().map(|b| b.state).ne(before))
    });
    if changed {
        if bits == TBSTATE_HIDDEN {
            autosize_if_created(cx, h)?;
        }
        cc::redraw(cx, h);
    }
    Ok(ok as u32)
}

fn state_of(cx: &Ctx, h: u32, cmd: u32) -> Option<u8> {
    st(cx, h, |s| s.index_of(cmd).map(|i| s.buttons[i].state))
}

/// TBBUTTONINFO: cbSize, dwMask, idCommand, iImage, fsState, fsStyle, cx, lParam,
/// pszText, cchText.
fn button_info(cx: &mut Ctx, h: u32, cmd: u32, p: u32, set: bool, u: bool) -> UR<u32> {
    const TBIF_IMAGE: u32 = 1;
    const TBIF_TEXT: u32 = 2;
    const TBIF_STATE: u32 = 4;
    const TBIF_STYLE: u32 = 8;
    const TBIF_LPARAM: u32 = 0x10;
    const TBIF_COMMAND: u32 = 0x20;
    const TBIF_BYINDEX: u32 = 0x8000_0000;
    if p == 0 {
        return Ok(u32::MAX);
    }
    let m = &cx.proc.mem;
    let mask = m.read_u32(p + 4)?;
    let idx = if mask & TBIF_BYINDEX != 0 {
        let n = st(cx, h, |s| s.buttons.len());
        (cmd as usize) < n
    } else {
        false
    };
    let i = if mask & TBIF_BYINDEX != 0 {
        idx.then_some(cmd as usize)
    } else {
        st(cx, h, |s| s.index_of(cmd))
    };
    let Some(i) = i else {
        return Ok(u32::MAX);
    };
    if set {
        let b = Button {
            cmd: m.read_u32(p + 8)? as i32,
            bitmap: m.read_u32(p + 12)? as i32,
            state: m.read_u32(p + 16)? as u8,
            style: (m.read_u32(p + 16)? >> 8) as u8,
            data: m.read_u32(p + 24)?,
            ..Button::default()
        };
        let text = if mask & TBIF_TEXT != 0 {
            let tp = m.read_u32(p + 28)?;
            Some(if tp == 0 {
                String::new()
            } else {
                read_str(cx, tp, u)?
            })
        } else {
            None
        };
        st(cx, h, |s| {
            let d = &mut s.buttons[i];
            if mask & TBIF_COMMAND != 0 {
                d.cmd = b.cmd;
            }
            if mask & TBIF_IMAGE != 0 {
                d.bitmap = b.bitmap;
            }
            if mask & TBIF_STATE != 0 {
                d.state = b.state;
            }
            if mask & TBIF_STYLE != 0 {
                d.style = b.style;
            }
            if mask & TBIF_LPARAM != 0 {
                d.data = b.data;
            }
            if let Some(t) = text {
                d.text = Some(t);
            }
        });
        autosize_if_created(cx, h)?;
        return Ok(1);
    }
    let (b, label) = st(cx, h, |s| (s.buttons[i].clone(), s.label(&s.buttons[i])));
    let m = &cx.proc.mem;
    if mask & TBIF_COMMAND != 0 {
        m.write_u32(p + 8, b.cmd as u32)?;
    }
    if mask & TBIF_IMAGE != 0 {
        m.write_u32(p + 12, b.bitmap as u32)?;
    }
    if mask & TBIF_STATE != 0 {
        cx.proc.mem.write_bytes(p + 16, &[b.state])?;
    }
    if mask & TBIF_STYLE != 0 {
        cx.proc.mem.write_bytes(p + 17, &[b.style])?;
    }
    if mask & TBIF_LPARAM != 0 {
        m.write_u32(p + 24, b.data)?;
    }
    if mask & TBIF_TEXT != 0 {
        let tp = m.read_u32(p + 28)?;
        let cap = m.read_u32(p + 32)?;
        if tp != 0 {
            crate::user32::put_str(cx, tp, cap, &label.unwrap_or_default(), u)?;
        }
    }
    Ok(i as u32)
}

fn button_text(cx: &mut Ctx, h: u32, cmd: u32, p: u32, u: bool) -> UR<u32> {
    let l = st(cx, h, |s| {
        s.index_of(cmd).and_then(|i| s.label(&s.buttons[i]))
    });
    let Some(l) = l else { return Ok(u32::MAX) };
    if p != 0 {
        crate::user32::write_str(cx, p, &l, u)?;
    }
    Ok(crate::user32::str_len(&l, u))
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            let parent = cc::win(cx, h).map_or(0, |w| w.parent);
            st(cx, h, |s| {
                s.notify = parent;
                s.created = true;
            });
            if cc::win(cx, h).is_some_and(|w| w.style & TBSTYLE_TOOLTIPS != 0) {
                create_tooltips(cx, h)?;
            }
            autosize(cx, h)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            let (himl, own, tips) = st(cx, h, |s| (s.himl, s.own_himl, s.tooltips));
            if own {
                imagelist::ImageList_Destroy(cx, himl)?;
            }
            if tips != 0 {
                crate::user32::window::destroy_window(cx, tips)?;
            }
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_SIZE => {
            autosize(cx, h)?;
            Ok(0)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SETFONT => {
            cc::set_font(cx, h, wp);
            if lp != 0 {
                cc::redraw(cx, h);
            }
            Ok(0)
        }
        WM_GETFONT => Ok(cc::win(cx, h).map_or(0, |w| w.font)),
        WM_LBUTTONDOWN | WM_LBUTTONDBLCLK => lbutton_down(cx, h, wp, lp),
        WM_LBUTTONUP => lbutton_up(cx, h, lp),
        WM_MOUSEMOVE => {
            let (x, y) = mouse_point(lp);
            let i = hit(cx, h, x, y)?.map_or(-1, |i| i as i32);
            let sep = usize::try_from(i)
                .ok()
                .is_some_and(|i| st(cx, h, |s| s.buttons[i].style & BTNS_SEP != 0));
            set_hot(cx, h, if sep { -1 } else { i }, HICF_MOUSE)?;
            Ok(0)
        }
        TB_BUTTONSTRUCTSIZE => {
            st(cx, h, |s| s.struct_size = wp);
            Ok(0)
        }
        TB_ADDBUTTONSA => insert_buttons(cx, h, None, wp, lp, false),
        TB_ADDBUTTONSW => insert_buttons(cx, h, None, wp, lp, true),
        TB_INSERTBUTTONA => insert_buttons(cx, h, Some(wp as usize), 1, lp, false),
        TB_INSERTBUTTONW => insert_buttons(cx, h, Some(wp as usize), 1, lp, true),
        TB_DELETEBUTTON => {
            let Some(b) = st(cx, h, |s| s.buttons.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            let rects = layout_rects(cx, h)?;
            notify_parent(
                cx,
                h,
                TBN_DELETINGBUTTON,
                &nmtoolbar(&b, rects[wp as usize]),
            )?;
            st(cx, h, |s| {
                if (wp as usize) < s.buttons.len() {
                    s.buttons.remove(wp as usize);
                }
            });
            autosize_if_created(cx, h)?;
            Ok(1)
        }
        TB_ADDBITMAP => add_bitmap(cx, h, wp, lp),
        TB_LOADIMAGES => {
            let (p, esp) = crate::user32::stack_alloc(cx, 8);
            cx.proc.mem.write_u32(p, lp)?;
            cx.proc.mem.write_u32(p + 4, wp)?;
            let r = add_bitmap(cx, h, 0, p);
            crate::user32::stack_free(cx, esp);
            r?;
            Ok(0)
        }
        TB_ADDSTRINGA => add_string(cx, h, wp, lp, false),
        TB_ADDSTRINGW => add_string(cx, h, wp, lp, true),
        TB_BUTTONCOUNT => Ok(st(cx, h, |s| s.buttons.len() as u32)),
        TB_COMMANDTOINDEX => Ok(st(cx, h, |s| s.index_of(wp).map_or(u32::MAX, |i| i as u32))),
        TB_GETBUTTON => {
            let size = st(cx, h, |s| s.struct_size);
            match st(cx, h, |s| s.buttons.get(wp as usize).cloned()) {
                Some(b) if lp != 0 => {
                    write_button(cx, lp, &b, size)?;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
        TB_GETITEMRECT | TB_GETRECT => {
            let i = if m == TB_GETRECT {
                st(cx, h, |s| s.index_of(wp))
            } else {
                Some(wp as usize)
            };
            let rects = layout_rects(cx, h)?;
            match i.and_then(|i| rects.get(i)) {
                Some(r) if lp != 0 => {
                    cc::write_rect(cx, lp, *r)?;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
        TB_SETBUTTONSIZE => {
            let (w, hh) = ((lp & 0xffff) as i32, (lp >> 16) as i32);
            st(cx, h, |s| s.button = (w.max(1), hh.max(1)));
            autosize_if_created(cx, h)?;
            Ok(1)
        }
        TB_SETBUTTONWIDTH => Ok(1),
        TB_SETBITMAPSIZE => {
            let (w, hh) = ((lp & 0xffff) as i32, (lp >> 16) as i32);
            st(cx, h, |s| s.bitmap = (w, hh));
            autosize_if_created(cx, h)?;
            Ok(1)
        }
        TB_GETBUTTONSIZE => {
            let style = cc::win(cx, h).map_or(0, |w| w.style);
            let (w, hh) = button_size(cx, h, style)?;
            Ok((w as u32 & 0xffff) | (hh as u32) << 16)
        }
        TB_AUTOSIZE => {
            autosize(cx, h)?;
            Ok(0)
        }
        TB_ENABLEBUTTON => set_state_bits(cx, h, wp, TBSTATE_ENABLED, lp & 0xffff != 0),
        TB_CHECKBUTTON => set_state_bits(cx, h, wp, TBSTATE_CHECKED, lp & 0xffff != 0),
        TB_PRESSBUTTON => set_state_bits(cx, h, wp, TBSTATE_PRESSED, lp & 0xffff != 0),
        TB_HIDEBUTTON => set_state_bits(cx, h, wp, TBSTATE_HIDDEN, lp & 0xffff != 0),
        TB_INDETERMINATE => set_state_bits(cx, h, wp, TBSTATE_INDETERMINATE, lp & 0xffff != 0),
        TB_MARKBUTTON => set_state_bits(cx, h, wp, TBSTATE_MARKED, lp & 0xffff != 0),
        TB_ISBUTTONENABLED => Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_ENABLED) as u32)),
        TB_ISBUTTONCHECKED => Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_CHECKED) as u32)),
        TB_ISBUTTONPRESSED => Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_PRESSED) as u32)),
        TB_ISBUTTONHIDDEN => Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_HIDDEN) as u32)),
        TB_ISBUTTONINDETERMINATE => {
            Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_INDETERMINATE) as u32))
        }
        TB_ISBUTTONHIGHLIGHTED => {
            Ok(state_of(cx, h, wp).map_or(0, |s| (s & TBSTATE_MARKED) as u32))
        }
        TB_GETSTATE => Ok(state_of(cx, h, wp).map_or(u32::MAX, |s| s as u32)),
        TB_SETSTATE => {
            let ok = st(cx, h, |s| match s.index_of(wp) {
                Some(i) => {
                    s.buttons[i].state = lp as u8;
                    true
                }
                None => false,
            });
            autosize_if_created(cx, h)?;
            Ok(ok as u32)
        }
        TB_SETCMDID => Ok(st(cx, h, |s| match s.buttons.get_mut(wp as usize) {
            Some(b) => {
                b.cmd = lp as i32;
                1
            }
            None => 0,
        })),
        TB_CHANGEBITMAP => {
            let ok = st(cx, h, |s| match s.index_of(wp) {
                Some(i) => {
                    s.buttons[i].bitmap = lp as i32;
                    true
                }
                None => false,
            });
            cc::redraw(cx, h);
            Ok(ok as u32)
        }
        TB_GETBITMAP => Ok(st(cx, h, |s| {
            s.index_of(wp)
                .map_or(u32::MAX, |i| s.buttons[i].bitmap as u32)
        })),
        TB_GETBUTTONTEXTA => button_text(cx, h, wp, lp, false),
        TB_GETBUTTONTEXTW => button_text(cx, h, wp, lp, true),
        TB_GETBUTTONINFOA => button_info(cx, h, wp, lp, false, false),
        TB_GETBUTTONINFOW => button_info(cx, h, wp, lp, false, true),
        TB_SETBUTTONINFOA => button_info(cx, h, wp, lp, true, false),
        TB_SETBUTTONINFOW => button_info(cx, h, wp, lp, true, true),
        TB_SETIMAGELIST | TB_SETHOTIMAGELIST | TB_SETDISABLEDIMAGELIST => {
            let old = st(cx, h, |s| {
                let slot = match m {
                    TB_SETIMAGELIST => &mut s.himl,
                    TB_SETHOTIMAGELIST => &mut s.himl_hot,
                    _ => &mut s.himl_disabled,
                };
                let old = std::mem::replace(slot, lp);
                if m == TB_SETIMAGELIST {
                    s.own_himl = false;
                    s.added.clear();
                }
                old
            });
            if m == TB_SETIMAGELIST
                && let Some((w, hh)) = imagelist::size(cx.proc, lp)
            {
                st(cx, h, |s| s.bitmap = (w, hh));
            }
            autosize_if_created(cx, h)?;
            Ok(old)
        }
        TB_GETIMAGELIST => Ok(st(cx, h, |s| s.himl)),
        TB_GETHOTIMAGELIST => Ok(st(cx, h, |s| s.himl_hot)),
        TB_GETDISABLEDIMAGELIST => Ok(st(cx, h, |s| s.himl_disabled)),
        TB_SETSTYLE => {
            if let Some(w) = crate::user32::lock_wm(cx.proc).win_mut(h) {
                w.style = (w.style & 0xffff_0000) | (lp & 0xffff);
            }
            cc::redraw(cx, h);
            Ok(0)
        }
        TB_GETSTYLE => Ok(cc::win(cx, h).map_or(0, |w| w.style & 0xffff)),
        TB_SETEXTENDEDSTYLE => Ok(st(cx, h, |s| std::mem::replace(&mut s.ext_style, lp))),
        TB_GETEXTENDEDSTYLE => Ok(st(cx, h, |s| s.ext_style)),
        TB_GETTOOLTIPS => Ok(st(cx, h, |s| s.tooltips)),
        TB_SETTOOLTIPS => {
            st(cx, h, |s| s.tooltips = wp);
            Ok(0)
        }
        TB_SETPARENT => Ok(st(cx, h, |s| std::mem::replace(&mut s.notify, wp))),
        TB_SETROWS => {
            st(cx, h, |s| s.rows = (wp & 0xffff).max(1) as i32);
            Ok(0)
        }
        TB_GETROWS => {
            let rects = layout_rects(cx, h)?;
            let mut tops: Vec<i32> = rects
                .iter()
                .filter(|r| !r.is_empty())
                .map(|r| r.top)
                .collect();
            tops.dedup();
            Ok(tops.len().max(1) as u32)
        }
        TB_SETINDENT => {
            st(cx, h, |s| s.indent = wp as i32);
            autosize_if_created(cx, h)?;
            Ok(1)
        }
        TB_SETMAXTEXTROWS | TB_SETDRAWTEXTFLAGS => Ok(1),
        TB_GETTEXTROWS => Ok(1),
        TB_GETHOTITEM => Ok(st(cx, h, |s| s.hot) as u32),
        TB_SETHOTITEM => {
            let old = st(cx, h, |s| s.hot);
            set_hot(cx, h, wp as i32, 0)?;
            Ok(old as u32)
        }
        TB_HITTEST => {
            if lp == 0 {
                return Ok(u32::MAX);
            }
            let x = cx.proc.mem.read_u32(lp)? as i32;
            let y = cx.proc.mem.read_u32(lp + 4)? as i32;
            Ok(hit(cx, h, x, y)?.map_or(u32::MAX, |i| i as u32))
        }
        TB_GETMAXSIZE => {
            let rects = layout_rects(cx, h)?;
            if lp == 0 {
                return Ok(0);
            }
            let w = rects.iter().map(|r| r.right).max().unwrap_or(0);
            let hh = rects.iter().map(|r| r.bottom).max().unwrap_or(0);
            cx.proc.mem.write_u32(lp, w as u32)?;
            cx.proc.mem.write_u32(lp + 4, hh as u32)?;
            Ok(1)
        }
        TB_GETPADDING => Ok(st(cx, h, |s| {
            (s.padding.0 as u32) | (s.padding.1 as u32) << 16
        })),
        TB_SETPADDING => {
            let old = st(cx, h, |s| {
                let o = (s.padding.0 as u32) | (s.padding.1 as u32) << 16;
                s.padding = ((lp & 0xffff) as i32, (lp >> 16) as i32);
                o
            });
            Ok(old)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

/// TBSTYLE_TOOLTIPS: the toolbar's own tooltip control, one tool per button, whose
/// text comes from TTN_GETDISPINFO.
fn create_tooltips(cx: &mut Ctx, h: u32) -> UR<()> {
    let name = "tooltips_class32";
    let (p, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, name, true)?;
        crate::user32::window::create_window(
            cx,
            crate::user32::window::Create {
                exstyle: 0,
                class: crate::user32::NameOrId::Name(name.into()),
                class_ptr: p,
                name_ptr: 0,
                style: 0x8000_0000,
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
        )
    })();
    crate::user32::stack_free(cx, esp);
    let tips = r?;
    if tips != 0 {
        st(cx, h, |s| s.tooltips = tips);
        super::tooltip::set_toolbar(cx, tips, h);
        let _ = TTM_ADDTOOLW;
    }
    Ok(())
}

/// The button under a point of the toolbar, as (command, rectangle): the tool a
/// toolbar's tooltip control shows.
pub fn tool_at(cx: &mut Ctx, h: u32, x: i32, y: i32) -> UR<Option<(u32, Rect)>> {
    let rects = layout_rects(cx, h)?;
    let Some(i) = rects.iter().position(|r| r.contains(x, y)) else {
        return Ok(None);
    };
    Ok(st(cx, h, |s| {
        let b = &s.buttons[i];
        (b.style & BTNS_SEP == 0).then_some((b.cmd as u32, rects[i]))
    }))
}

/// The window the toolbar sends its notifications to.
pub fn notify_window(cx: &Ctx, h: u32) -> u32 {
    st(cx, h, |s| s.notify)
}

/// CreateToolbarEx(hwnd, ws, wID, nBitmaps, hBMInst, wBMID, lpButtons, iNumButtons,
/// dxButton, dyButton, dxBitmap, dyBitmap, uStructSize).
pub fn CreateToolbarEx(cx: &mut Ctx, a: crate::hle::Dwords<13>) -> ApiResult<Outcome> {
    let a = a.0;
    crate::user32::fin(create_toolbar(
        cx,
        a[0],
        a[1],
        a[2],
        a[3] as i32,
        a[4],
        a[5],
        a[6],
        a[7] as i32,
        (a[8] as i32, a[9] as i32, a[10] as i32, a[11] as i32),
        a[12],
    ))
}

#[allow(clippy::too_many_arguments)]
fn create_toolbar(
    cx: &mut Ctx,
    parent: u32,
    ws: u32,
    id: u32,
    n_bitmaps: i32,
    bm_inst: u32,
    bm_id: u32,
    buttons: u32,
    n_buttons: i32,
    sizes: (i32, i32, i32, i32),
    struct_size: u32,
) -> UR<u32> {
    let name = "ToolbarWindow32";
    let (p, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, name, true)?;
        crate::user32::window::create_window(
            cx,
            crate::user32::window::Create {
                exstyle: 0,
                class: crate::user32::NameOrId::Name(name.into()),
                class_ptr: p,
                name_ptr: 0,
                style: ws,
                x: 0,
                y: 0,
                w: 100,
                h: 30,
                parent,
                menu: id,
                instance: 0,
                param: 0,
                unicode: true,
            },
        )
    })();
    crate::user32::stack_free(cx, esp);
    let h = r?;
    if h == 0 {
        return Ok(0);
    }
    let (dxb, dyb, dxm, dym) = sizes;
    wndproc(cx, h, TB_BUTTONSTRUCTSIZE, struct_size, 0, true)?;
    if dxm > 0 && dym > 0 {
        wndproc(
            cx,
            h,
            TB_SETBITMAPSIZE,
            0,
            (dxm as u32 & 0xffff) | (dym as u32) << 16,
            true,
        )?;
    }
    if dxb > 0 && dyb > 0 {
        wndproc(
            cx,
            h,
            TB_SETBUTTONSIZE,
            0,
            (dxb as u32 & 0xffff) | (dyb as u32) << 16,
            true,
        )?;
    }
    if n_bitmaps > 0 || bm_inst != 0 || bm_id != 0 {
        let (tp, esp) = crate::user32::stack_alloc(cx, 8);
        cx.proc.mem.write_u32(tp, bm_inst)?;
        cx.proc.mem.write_u32(tp + 4, bm_id)?;
        let r = wndproc(cx, h, TB_ADDBITMAP, n_bitmaps as u32, tp, true);
        crate::user32::stack_free(cx, esp);
        r?;
    }
    if n_buttons > 0 && buttons != 0 {
        wndproc(cx, h, TB_ADDBUTTONSA, n_buttons as u32, buttons, true)?;
    }
    autosize(cx, h)?;
    Ok(h)
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    use crate::hle::stdcall;
    let _ = IDB_STD_SMALL_COLOR;
    vec![
        crate::user32::hostclass::export("__winterp_ToolbarWindowProc", wndproc),
        stdcall("CreateToolbarEx", CreateToolbarEx),
    ]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "ToolbarWindow32",
        export: "__winterp_ToolbarWindowProc",
        wndproc,
        style: 0x8 | 0x1 | 0x2,
        wnd_extra: 0,
        background: 0,
    }
}
