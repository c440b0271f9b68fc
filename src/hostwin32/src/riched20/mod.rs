//! RICHED20.DLL and RICHED32.DLL: the rich edit control (`RichEdit20W`,
//! `RichEdit20A`; `RICHEDIT` for RichEdit 1.0), registered when the DLL is loaded.
//!
//! The document is [`rtf::Doc`]: text with a character format per character and a
//! paragraph format per paragraph. The control lays it out in lines (word-wrapped
//! to the window or the target device width, paragraphs aligned and indented),
//! draws each run in its own font and colour, keeps a caret and a selection, edits
//! from the keyboard and the mouse, scrolls vertically, keeps an undo/redo history
//! and streams the document in and out as plain text or RTF. EN_CHANGE, EN_UPDATE
//! and EN_SELCHANGE go to the parent as the event mask asks. The OLE side
//! (EM_GETOLEINTERFACE's IRichEditOle, embedded objects) is not provided.

#![allow(non_snake_case)]

pub mod rtf;

use crate::gdi32::objects::{LogFont, Obj};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiDef, ApiError, Ctx, HleDll};
use crate::user32::hostclass::HostClass;
use crate::user32::msg::*;
use crate::user32::{UR, lock_wm, read_str};
use rtf::{CharFmt, Doc, ParaFmt};
use std::collections::HashMap;

pub const DLL: HleDll = HleDll {
    name: "RICHED20.dll",
    exports,
    attach: Some(attach),
};

pub const DLL32: HleDll = HleDll {
    name: "RICHED32.dll",
    exports: exports32,
    attach: Some(attach32),
};

fn attach(proc: &crate::process::Process) {
    crate::user32::hostclass::register(
        proc,
        DLL.name,
        &[
            class("RichEdit20W", "__winterp_RichEditWndProcW"),
            class("RichEdit20A", "RichEditANSIWndProc"),
        ],
    );
}

fn attach32(proc: &crate::process::Process) {
    crate::user32::hostclass::register(
        proc,
        DLL32.name,
        &[class("RICHEDIT", "__winterp_RichEdit10WndProc")],
    );
}

fn class(name: &'static str, export: &'static str) -> HostClass {
    HostClass {
        name,
        export,
        wndproc,
        style: 0x8 | 0x1 | 0x2,
        wnd_extra: 4,
        background: 0,
    }
}

fn exports() -> Vec<ApiDef> {
    vec![
        crate::user32::hostclass::export("__winterp_RichEditWndProcW", wndproc),
        crate::user32::hostclass::export("RichEditANSIWndProc", wndproc).ordinal(10),
    ]
}

fn exports32() -> Vec<ApiDef> {
    vec![crate::user32::hostclass::export(
        "__winterp_RichEdit10WndProc",
        wndproc,
    )]
}

const WM_USER: u32 = 0x400;
const EM_GETSEL: u32 = 0xb0;
const EM_SETSEL: u32 = 0xb1;
const EM_GETRECT: u32 = 0xb2;
const EM_SETRECT: u32 = 0xb3;
const EM_SCROLL: u32 = 0xb5;
const EM_LINESCROLL: u32 = 0xb6;
const EM_SCROLLCARET: u32 = 0xb7;
const EM_GETMODIFY: u32 = 0xb8;
const EM_SETMODIFY: u32 = 0xb9;
const EM_GETLINECOUNT: u32 = 0xba;
const EM_LINEINDEX: u32 = 0xbb;
const EM_LINELENGTH: u32 = 0xc1;
const EM_REPLACESEL: u32 = 0xc2;
const EM_GETLINE: u32 = 0xc4;
const EM_LIMITTEXT: u32 = 0xc5;
const EM_CANUNDO: u32 = 0xc6;
const EM_UNDO: u32 = 0xc7;
const EM_LINEFROMCHAR: u32 = 0xc9;
const EM_EMPTYUNDOBUFFER: u32 = 0xcd;
const EM_GETFIRSTVISIBLELINE: u32 = 0xce;
const EM_SETREADONLY: u32 = 0xcf;
const EM_GETLIMITTEXT: u32 = 0xd5;
const EM_POSFROMCHAR: u32 = 0xd6;
const EM_CHARFROMPOS: u32 = 0xd7;
const EM_CANPASTE: u32 = WM_USER + 50;
const EM_EXGETSEL: u32 = WM_USER + 52;
const EM_EXLIMITTEXT: u32 = WM_USER + 53;
const EM_EXLINEFROMCHAR: u32 = WM_USER + 54;
const EM_EXSETSEL: u32 = WM_USER + 55;
const EM_GETCHARFORMAT: u32 = WM_USER + 58;
const EM_GETEVENTMASK: u32 = WM_USER + 59;
const EM_GETOLEINTERFACE: u32 = WM_USER + 60;
const EM_GETPARAFORMAT: u32 = WM_USER + 61;
const EM_GETSELTEXT: u32 = WM_USER + 62;
const EM_HIDESELECTION: u32 = WM_USER + 63;
const EM_SELECTIONTYPE: u32 = WM_USER + 66;
const EM_SETBKGNDCOLOR: u32 = WM_USER + 67;
const EM_SETCHARFORMAT: u32 = WM_USER + 68;
const EM_SETEVENTMASK: u32 = WM_USER + 69;
const EM_SETOLECALLBACK: u32 = WM_USER + 70;
const EM_SETPARAFORMAT: u32 = WM_USER + 71;
const EM_SETTARGETDEVICE: u32 = WM_USER + 72;
const EM_STREAMIN: u32 = WM_USER + 73;
const EM_STREAMOUT: u32 = WM_USER + 74;
const EM_GETTEXTRANGE: u32 = WM_USER + 75;
const EM_SETOPTIONS: u32 = WM_USER + 77;
const EM_GETOPTIONS: u32 = WM_USER + 78;
const EM_SETUNDOLIMIT: u32 = WM_USER + 82;
const EM_REDO: u32 = WM_USER + 84;
const EM_CANREDO: u32 = WM_USER + 85;
const EM_STOPGROUPTYPING: u32 = WM_USER + 88;
const EM_SETTEXTMODE: u32 = WM_USER + 89;
const EM_GETTEXTMODE: u32 = WM_USER + 90;
const EM_AUTOURLDETECT: u32 = WM_USER + 91;
const EM_GETAUTOURLDETECT: u32 = WM_USER + 92;
const EM_GETTEXTEX: u32 = WM_USER + 94;
const EM_GETTEXTLENGTHEX: u32 = WM_USER + 95;
const EM_SETTEXTEX: u32 = WM_USER + 97;
const EM_SETLANGOPTIONS: u32 = WM_USER + 120;
const EM_GETLANGOPTIONS: u32 = WM_USER + 121;
const EM_GETZOOM: u32 = WM_USER + 224;
const EM_SETZOOM: u32 = WM_USER + 225;
const EM_GETSCROLLPOS: u32 = WM_USER + 221;
const EM_SETSCROLLPOS: u32 = WM_USER + 222;

const ENM_CHANGE: u32 = 0x1;
const ENM_UPDATE: u32 = 0x2;
const ENM_SELCHANGE: u32 = 0x8_0000;
const EN_CHANGE: u32 = 0x300;
const EN_UPDATE: u32 = 0x400;
const EN_SETFOCUS: u32 = 0x100;
const EN_KILLFOCUS: u32 = 0x200;
const EN_SELCHANGE: u32 = 0x702;
const SF_TEXT: u32 = 0x1;
const SF_RTF: u32 = 0x2;
const SF_UNICODE: u32 = 0x10;
const SFF_SELECTION: u32 = 0x8000;
const SCF_SELECTION: u32 = 0x1;
const SCF_WORD: u32 = 0x2;
const SCF_ALL: u32 = 0x4;
const CFM_BOLD: u32 = 0x1;
const CFM_ITALIC: u32 = 0x2;
const CFM_UNDERLINE: u32 = 0x4;
const CFM_STRIKEOUT: u32 = 0x8;
const CFM_OFFSET: u32 = 0x1000_0000;
const CFM_CHARSET: u32 = 0x0800_0000;
const CFM_FACE: u32 = 0x2000_0000;
const CFM_COLOR: u32 = 0x4000_0000;
const CFM_SIZE: u32 = 0x8000_0000;
const CFM_WEIGHT: u32 = 0x40_0000;
const CFE_AUTOCOLOR: u32 = 0x4000_0000;
const PFM_STARTINDENT: u32 = 0x1;
const PFM_RIGHTINDENT: u32 = 0x2;
const PFM_OFFSET: u32 = 0x4;
const PFM_ALIGNMENT: u32 = 0x8;
const PFM_TABSTOPS: u32 = 0x10;
const PFM_NUMBERING: u32 = 0x20;
const PFM_OFFSETINDENT: u32 = 0x8000_0000;
const GT_USECRLF: u32 = 0x1;
const GT_SELECTION: u32 = 0x2;
const GTL_USECRLF: u32 = 0x1;
const GTL_NUMBYTES: u32 = 0x10;
const ST_SELECTION: u32 = 0x2;
const ECOOP_SET: u32 = 1;
const ECOOP_OR: u32 = 2;
const ECOOP_AND: u32 = 3;
const ECOOP_XOR: u32 = 4;
const ES_READONLY: u32 = 0x800;
const ES_NOHIDESEL: u32 = 0x100;
const ES_MULTILINE: u32 = 0x4;
const WS_VSCROLL: u32 = 0x20_0000;
const ECO_READONLY: u32 = 0x800;
const SEL_EMPTY: u32 = 0;
const SEL_TEXT: u32 = 1;
const SEL_MULTICHAR: u32 = 4;
/// Space between the window's edge and the text.
const MARGIN: i32 = 1;
const SB_VERT: u32 = 1;

/// One laid-out line: characters `start..end` of the document (a paragraph end, if
/// any, is at `end`), its top, height and ascent, and where each character starts.
#[derive(Clone, Debug)]
struct Line {
    start: usize,
    end: usize,
    y: i32,
    height: i32,
    ascent: i32,
    xs: Vec<i32>,
    /// The x after the last character.
    x_end: i32,
}

#[derive(Clone)]
struct Snapshot {
    doc: Doc,
    sel: (usize, usize),
}

struct State {
    doc: Doc,
    /// anchor, caret
    sel: (usize, usize),
    /// The format typed text takes when it differs from the text's before the
    /// caret (set with SCF_SELECTION on an empty selection).
    insert_fmt: Option<usize>,
    event_mask: u32,
    bk: Option<u32>,
    limit: usize,
    modified: bool,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    undo_limit: usize,
    /// None: wrap at the window; Some(0): no wrapping; Some(w): wrap at w twips.
    wrap: Option<i32>,
    options: u32,
    scroll_y: i32,
    lines: Vec<Line>,
    dirty: bool,
    fonts: HashMap<usize, u32>,
    widths: HashMap<(usize, char), (i32, i32, i32)>,
    focused: bool,
    dragging: bool,
    hide_sel: bool,
    zoom: (u32, u32),
    rect: Option<Rect>,
    ole_callback: u32,
}

impl Default for State {
    fn default() -> Self {
        State {
            doc: Doc::default(),
            sel: (0, 0),
            insert_fmt: None,
            event_mask: 0,
            bk: None,
            limit: 32767,
            modified: false,
            undo: Vec::new(),
            redo: Vec::new(),
            undo_limit: 100,
            wrap: None,
            options: 0,
            scroll_y: 0,
            lines: Vec::new(),
            dirty: true,
            fonts: HashMap::new(),
            widths: HashMap::new(),
            focused: false,
            dragging: false,
            hide_sel: false,
            zoom: (0, 0),
            rect: None,
            ole_callback: 0,
        }
    }
}

#[derive(Default)]
struct States(std::sync::Mutex<HashMap<u32, State>>);

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    let s = cx.proc.slot::<States>();
    let mut g = s.0.lock().unwrap_or_else(|e| e.into_inner());
    f(g.entry(h).or_default())
}

fn sel_range(s: &State) -> (usize, usize) {
    (s.sel.0.min(s.sel.1), s.sel.0.max(s.sel.1))
}

fn style_of(cx: &Ctx, h: u32) -> u32 {
    lock_wm(cx.proc).win(h).map_or(0, |w| w.style)
}

fn redraw(cx: &Ctx, h: u32) {
    lock_wm(cx.proc).invalidate(h, None, true);
    crate::user32::wm::wake_all(cx.proc);
}

// ---- fonts and layout ----------------------------------------------------------------

/// The GDI font of format `f`: twips to pixels at 96 dots per inch.
fn font_for(cx: &Ctx, s: &mut State, f: usize) -> u32 {
    if let Some(&h) = s.fonts.get(&f) {
        return h;
    }
    let cf = &s.doc.fmts[f];
    let mut lf = LogFont::simple(
        -(cf.size * 96 / 1440).max(1),
        if cf.bold { 700 } else { 400 },
        0,
        &cf.face,
    );
    lf.italic = cf.italic as u8;
    lf.underline = cf.underline as u8;
    lf.strikeout = cf.strike as u8;
    lf.charset = cf.charset;
    let h = cx.proc.gdi32.lock().add_obj(Obj::Font(lf));
    s.fonts.insert(f, h);
    h
}

/// (width, height, ascent) of character `c` in format `f`.
fn measure(cx: &mut Ctx, s: &mut State, hdc: u32, f: usize, c: char) -> UR<(i32, i32, i32)> {
    if let Some(&m) = s.widths.get(&(f, c)) {
        return Ok(m);
    }
    let font = font_for(cx, s, f);
    crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
    let lf = match cx.proc.gdi32.lock().objs.get(&font) {
        Some(Obj::Font(lf)) => lf.clone(),
        _ => LogFont::simple(-13, 400, 0, "Arial"),
    };
    let fi = crate::gdi32::text::font_info(&lf);
    let w = match c {
        '\r' | '\u{b}' => 0,
        '\t' => 0,
        c => gp::text_extent(cx.proc, hdc, &c.to_string()).0,
    };
    let m = (w, fi.height(), fi.ascent);
    s.widths.insert((f, c), m);
    Ok(m)
}

/// Twips to pixels.
fn px(twips: i32) -> i32 {
    twips * 96 / 1440
}

fn layout(cx: &mut Ctx, h: u32, hdc: u32) -> UR<()> {
    let (cw, _) = client_size(cx, h);
    let mut s = {
        let sl = cx.proc.slot::<States>();
        let mut g = sl.0.lock().unwrap_or_else(|e| e.into_inner());
        match g.get_mut(&h) {
            Some(s) if s.dirty => std::mem::take(s),
            _ => return Ok(()),
        }
    };
    let r = layout_doc(cx, &mut s, hdc, cw);
    s.dirty = false;
    let sl = cx.proc.slot::<States>();
    sl.0.lock().unwrap_or_else(|e| e.into_inner()).insert(h, s);
    r
}

fn layout_doc(cx: &mut Ctx, s: &mut State, hdc: u32, client_w: i32) -> UR<()> {
    let area_w = match s.rect {
        Some(r) => r.width(),
        None => client_w - 2 * MARGIN,
    };
    let wrap_w = match s.wrap {
        None => Some(area_w.max(1)),
        Some(0) => None,
        Some(tw) => Some(px(tw).max(1)),
    };
    let mut lines = Vec::new();
    let mut y = 0;
    let n = s.doc.text.len();
    let mut start = 0;
    let mut para = 0;
    loop {
        // One paragraph: start..pend (pend at its '\r' or the end).
        let pend = s.doc.text[start..]
            .iter()
            .position(|&c| c == '\r')
            .map_or(n, |k| start + k);
        let pf: ParaFmt = s.doc.paras.get(para).cloned().unwrap_or_default();
        let left0 = px(pf.start);
        let right = px(pf.right);
        let mut i = start;
        let mut first = true;
        loop {
            let indent = if first { left0 } else { left0 + px(pf.offset) };
            let avail = wrap_w.map(|w| (w - indent - right).max(8));
            let mut xs = Vec::new();
            let mut x = indent;
            let (mut lh, mut asc) = (0, 0);
            let mut j = i;
            let mut last_space: Option<usize> = None;
            while j < pend {
                let c = s.doc.text[j];
                let f = s.doc.fmt[j];
                let (mut w, ch, ca) = measure(cx, s, hdc, f, c)?;
                if c == '\t' {
                    let stop = pf
                        .tabs
                        .iter()
                        .map(|&t| px(t))
                        .find(|&t| t > x)
                        .unwrap_or((x / 48 + 1) * 48);
                    w = stop - x;
                }
                if let Some(a) = avail
                    && x + w > indent + a
                    && j > i
                    && c != ' '
                {
                    break;
                }
                xs.push(x);
                x += w;
                lh = lh.max(ch);
                asc = asc.max(ca);
                if c == ' ' || c == '\t' {
                    last_space = Some(j);
                }
                j += 1;
                if c == '\u{b}' {
                    break;
                }
            }
            // Break after the last space when the line is full.
            if j < pend
                && s.doc.text[j - 1] != '\u{b}'
                && let Some(sp) = last_space
            {
                xs.truncate(sp + 1 - i);
                j = sp + 1;
                let lastw = measure(cx, s, hdc, s.doc.fmt[j - 1], s.doc.text[j - 1])?.0;
                x = xs.last().copied().unwrap_or(indent) + lastw;
            }
            if lh == 0 {
                let f = s
                    .doc
                    .fmt
                    .get(pend)
                    .or_else(|| s.doc.fmt.get(pend.wrapping_sub(1)))
                    .copied()
                    .unwrap_or(0);
                let f = if j == start && pend == n {
                    s.insert_fmt.unwrap_or(f)
                } else {
                    f
                };
                let (_, ch, ca) = measure(cx, s, hdc, f, 'x')?;
                lh = ch;
                asc = ca;
            }
            // Alignment moves the whole line.
            let width = wrap_w.unwrap_or(area_w);
            let free = (width - right - x).max(0);
            let shift = match pf.align {
                rtf::PFA_RIGHT => free,
                rtf::PFA_CENTER => free / 2,
                _ => 0,
            };
            for v in &mut xs {
                *v += shift;
            }
            lines.push(Line {
                start: i,
                end: j,
                y,
                height: lh,
                ascent: asc,
                xs,
                x_end: x + shift,
            });
            y += lh;
            first = false;
            i = j;
            if i >= pend {
                break;
            }
        }
        if pend >= n {
            break;
        }
        start = pend + 1;
        para += 1;
    }
    s.lines = lines;
    Ok(())
}

fn client_size(cx: &Ctx, h: u32) -> (i32, i32) {
    lock_wm(cx.proc)
        .win(h)
        .map_or((0, 0), |w| (w.client.width(), w.client.height()))
}

/// Lays out with a DC of the window when the document changed.
fn ensure_layout(cx: &mut Ctx, h: u32) -> UR<()> {
    if !st(cx, h, |s| s.dirty) {
        return Ok(());
    }
    let hdc = crate::user32::call_export(cx, "USER32.dll", "GetDC", &[h])?.unwrap_or(0);
    if hdc == 0 {
        return Ok(());
    }
    let r = layout(cx, h, hdc);
    crate::user32::call_export(cx, "USER32.dll", "ReleaseDC", &[h, hdc])?;
    r
}

fn origin(s: &State) -> (i32, i32) {
    match s.rect {
        Some(r) => (r.left, r.top - s.scroll_y),
        None => (MARGIN, MARGIN - s.scroll_y),
    }
}

fn line_of(lines: &[Line], pos: usize) -> usize {
    lines
        .iter()
        .rposition(|l| l.start <= pos)
        .unwrap_or_default()
}

/// The client position of character `pos` (its left edge, the line's top).
fn pos_xy(s: &State, pos: usize) -> (i32, i32, i32) {
    let (ox, oy) = origin(s);
    if s.lines.is_empty() {
        return (ox, oy, 0);
    }
    let li = line_of(&s.lines, pos);
    let l = &s.lines[li];
    let k = pos - l.start;
    let x = l.xs.get(k).copied().unwrap_or(l.x_end);
    (ox + x, oy + l.y, l.height)
}

/// The character nearest client point (x, y).
fn hit(s: &State, x: i32, y: i32) -> usize {
    let (ox, oy) = origin(s);
    if s.lines.is_empty() {
        return 0;
    }
    let ly = y - oy;
    let li = s
        .lines
        .iter()
        .position(|l| ly < l.y + l.height)
        .unwrap_or(s.lines.len() - 1);
    let l = &s.lines[li];
    let lx = x - ox;
    for (k, &cx0) in l.xs.iter().enumerate() {
        let next = l.xs.get(k + 1).copied().unwrap_or(l.x_end);
        if lx < (cx0 + next) / 2 {
            return l.start + k;
        }
    }
    // After the last character, but before a wrapped line's trailing space.
    let end = l.end;
    if end > l.start && li + 1 < s.lines.len() && s.lines[li + 1].start == end {
        end - if s.doc.text.get(end - 1) == Some(&' ') {
            1
        } else {
            0
        }
    } else {
        end
    }
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let (ps, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        let hdc = crate::user32::paint::begin_paint(cx, h, ps)?;
        if hdc == 0 {
            return crate::user32::paint::end_paint(cx, h, ps);
        }
        layout(cx, h, hdc)?;
        let (cw, chh) = client_size(cx, h);
        let style = style_of(cx, h);
        let enabled = style & crate::user32::wm::WS_DISABLED == 0;
        let s = {
            let sl = cx.proc.slot::<States>();
            let mut g = sl.0.lock().unwrap_or_else(|e| e.into_inner());
            g.get_mut(&h).map(std::mem::take)
        };
        let Some(mut s) = s else {
            return crate::user32::paint::end_paint(cx, h, ps);
        };
        let bg = s.bk.unwrap_or(if enabled {
            gp::sys_color(gp::COLOR_WINDOW)
        } else {
            gp::sys_color(gp::COLOR_BTNFACE)
        });
        let res = (|| -> UR<()> {
            gp::fill_rect(cx.proc, hdc, Rect::new(0, 0, cw, chh), bg)?;
            crate::user32::call_export(cx, "GDI32.dll", "SetBkMode", &[hdc, 1])?;
            let (ox, oy) = origin(&s);
            let (a, b) = sel_range(&s);
            let show_sel = (s.focused || style & ES_NOHIDESEL != 0) && !s.hide_sel;
            let lines = s.lines.clone();
            for l in &lines {
                let top = oy + l.y;
                if top + l.height < 0 {
                    continue;
                }
                if top > chh {
                    break;
                }
                let mut k = l.start;
                while k < l.end {
                    let c = s.doc.text[k];
                    let f = s.doc.fmt[k];
                    let x = ox + l.xs[k - l.start];
                    let selected = show_sel && k >= a && k < b;
                    // A run: the same format and selection state.
                    let mut e = k + 1;
                    while e < l.end
                        && s.doc.fmt[e] == f
                        && (show_sel && e >= a && e < b) == selected
                        && !matches!(s.doc.text[e], '\t' | '\u{b}' | '\r')
                        && !matches!(c, '\t' | '\u{b}' | '\r')
                    {
                        e += 1;
                    }
                    let x_next = l.xs.get(e - l.start).map_or(ox + l.x_end, |v| ox + v);
                    if selected {
                        gp::fill_rect(
                            cx.proc,
                            hdc,
                            Rect::new(x, top, x_next, top + l.height),
                            gp::sys_color(gp::COLOR_HIGHLIGHT),
                        )?;
                    }
                    if !matches!(c, '\t' | '\u{b}' | '\r') {
                        let text: String = s.doc.text[k..e].iter().collect();
                        let font = font_for(cx, &mut s, f);
                        crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
                        let cf = &s.doc.fmts[f];
                        let color = if selected {
                            gp::sys_color(gp::COLOR_HIGHLIGHTTEXT)
                        } else if !enabled {
                            gp::sys_color(gp::COLOR_GRAYTEXT)
                        } else {
                            cf.color.unwrap_or(gp::sys_color(gp::COLOR_WINDOWTEXT))
                        };
                        crate::user32::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, color])?;
                        let asc = s.widths.get(&(f, s.doc.text[k])).map_or(l.ascent, |m| m.2);
                        let yoff = px(-cf.offset);
                        gp::text_out(cx.proc, hdc, x, top + l.ascent - asc + yoff, &text)?;
                    }
                    k = e;
                }
            }
            if s.focused && a == b {
                let (x, y, hh) = pos_xy(&s, s.sel.1);
                gp::fill_rect(
                    cx.proc,
                    hdc,
                    Rect::new(x, y, x + 1, y + hh.max(1)),
                    gp::sys_color(gp::COLOR_WINDOWTEXT),
                )?;
            }
            Ok(())
        })();
        let sl = cx.proc.slot::<States>();
        sl.0.lock().unwrap_or_else(|e| e.into_inner()).insert(h, s);
        res?;
        crate::user32::paint::end_paint(cx, h, ps)
    })();
    crate::user32::stack_free(cx, esp);
    r?;
    Ok(0)
}

/// Keeps the caret in view and updates the vertical scroll bar.
fn scroll_to_caret(cx: &mut Ctx, h: u32) -> UR<()> {
    ensure_layout(cx, h)?;
    let (_, ch) = client_size(cx, h);
    let total = st(cx, h, |s| {
        let (_, y, hh) = pos_xy(s, s.sel.1);
        let top = y + s.scroll_y - MARGIN;
        if top < s.scroll_y {
            s.scroll_y = top.max(0);
        } else if top + hh > s.scroll_y + ch - 2 * MARGIN {
            s.scroll_y = top + hh - (ch - 2 * MARGIN);
        }
        s.lines.last().map_or(0, |l| l.y + l.height)
    });
    update_scrollbar(cx, h, total)
}

fn update_scrollbar(cx: &mut Ctx, h: u32, total: i32) -> UR<()> {
    if style_of(cx, h) & WS_VSCROLL == 0 {
        return Ok(());
    }
    let (_, ch) = client_size(cx, h);
    let pos = st(cx, h, |s| s.scroll_y);
    let (si, esp) = crate::user32::stack_alloc(cx, 28);
    let vals = [
        28u32,
        0x17,
        0,
        total.max(0) as u32,
        ch.max(0) as u32,
        pos as u32,
        0,
    ];
    for (k, v) in vals.iter().enumerate() {
        cx.proc.mem.write_u32(si + 4 * k as u32, *v)?;
    }
    let r = crate::user32::call_export(cx, "USER32.dll", "SetScrollInfo", &[h, SB_VERT, si, 1]);
    crate::user32::stack_free(cx, esp);
    r?;
    Ok(())
}

// ---- editing ---------------------------------------------------------------------------

fn notify_command(cx: &mut Ctx, h: u32, code: u32) -> UR<()> {
    let (parent, id) = lock_wm(cx.proc).win(h).map_or((0, 0), |w| (w.parent, w.id));
    if parent != 0 {
        send(
            cx,
            parent,
            WM_COMMAND,
            (id & 0xffff) | (code << 16),
            h,
            true,
        )?;
    }
    Ok(())
}

fn sel_changed(cx: &mut Ctx, h: u32) -> UR<()> {
    let (mask, (a, b), empty) = st(cx, h, |s| (s.event_mask, sel_range(s), s.sel.0 == s.sel.1));
    redraw(cx, h);
    if mask & ENM_SELCHANGE != 0 {
        // SELCHANGE: NMHDR, CHARRANGE, WORD seltyp.
        let ty = if empty {
            SEL_EMPTY
        } else if b - a > 1 {
            SEL_TEXT | SEL_MULTICHAR
        } else {
            SEL_TEXT
        };
        let (parent, id) = lock_wm(cx.proc).win(h).map_or((0, 0), |w| (w.parent, w.id));
        if parent != 0 {
            let (p, esp) = crate::user32::stack_alloc(cx, 24);
            let r = (|| -> UR<()> {
                let m = &cx.proc.mem;
                m.write_u32(p, h)?;
                m.write_u32(p + 4, id)?;
                m.write_u32(p + 8, EN_SELCHANGE)?;
                m.write_u32(p + 12, a as u32)?;
                m.write_u32(p + 16, b as u32)?;
                m.write_u32(p + 20, ty)?;
                send(cx, parent, WM_NOTIFY, id, p, true)?;
                Ok(())
            })();
            crate::user32::stack_free(cx, esp);
            r?;
        }
    }
    Ok(())
}

fn changed(cx: &mut Ctx, h: u32) -> UR<()> {
    let mask = st(cx, h, |s| {
        s.dirty = true;
        s.modified = true;
        s.event_mask
    });
    scroll_to_caret(cx, h)?;
    redraw(cx, h);
    if mask & ENM_UPDATE != 0 {
        notify_command(cx, h, EN_UPDATE)?;
    }
    if mask & ENM_CHANGE != 0 {
        notify_command(cx, h, EN_CHANGE)?;
    }
    Ok(())
}

fn push_undo(s: &mut State) {
    s.undo.push(Snapshot {
        doc: s.doc.clone(),
        sel: s.sel,
    });
    if s.undo.len() > s.undo_limit.max(1) {
        s.undo.remove(0);
    }
    s.redo.clear();
}

/// The format text typed at the caret takes.
fn typing_fmt(s: &State) -> usize {
    if let Some(f) = s.insert_fmt {
        return f;
    }
    let (a, _) = sel_range(s);
    if a > 0 {
        s.doc.fmt[a - 1]
    } else {
        s.doc.fmt.first().copied().unwrap_or(0)
    }
}

/// Replaces the selection with `text` (paragraph ends normalised); returns whether
/// the limit allowed it.
fn replace_sel(cx: &mut Ctx, h: u32, text: &str, undoable: bool) -> UR<()> {
    let t = rtf::normalize(text);
    st(cx, h, |s| {
        let (a, b) = sel_range(s);
        let room = s.limit.saturating_sub(s.doc.text.len() - (b - a));
        let t = &t[..t.len().min(room)];
        if undoable {
            push_undo(s);
        }
        let f = typing_fmt(s);
        s.doc.replace(a, b, t, f);
        s.sel = (a + t.len(), a + t.len());
        s.insert_fmt = None;
    });
    changed(cx, h)?;
    sel_changed(cx, h)
}

fn set_sel(cx: &mut Ctx, h: u32, a: i32, b: i32) -> UR<()> {
    st(cx, h, |s| {
        let n = s.doc.text.len() as i32;
        let (a, b) = if a == 0 && b == -1 {
            (0, n)
        } else if a == -1 {
            let c = s.sel.1 as i32;
            (c, c)
        } else {
            let fix = |v: i32| if v < 0 || v > n { n } else { v };
            (fix(a), fix(b))
        };
        s.sel = (a as usize, b as usize);
        s.insert_fmt = None;
    });
    scroll_to_caret(cx, h)?;
    sel_changed(cx, h)
}

// ---- formats ---------------------------------------------------------------------------

/// Reads a CHARFORMAT(2) A or W into (mask, effects, format fields).
fn read_charfmt(cx: &Ctx, p: u32, u: bool) -> UR<(u32, CharFmt, u32)> {
    let m = &cx.proc.mem;
    let mask = m.read_u32(p + 4)?;
    let effects = m.read_u32(p + 8)?;
    let mut f = CharFmt {
        bold: effects & CFM_BOLD != 0,
        italic: effects & CFM_ITALIC != 0,
        underline: effects & CFM_UNDERLINE != 0,
        strike: effects & CFM_STRIKEOUT != 0,
        size: m.read_u32(p + 12)? as i32,
        offset: m.read_u32(p + 16)? as i32,
        color: if effects & CFE_AUTOCOLOR != 0 {
            None
        } else {
            Some(m.read_u32(p + 20)? & 0xff_ffff)
        },
        charset: m.read_u8(p + 24)?,
        face: String::new(),
    };
    if mask & CFM_FACE != 0 {
        f.face = read_str(cx, p + 26, u)?;
    }
    let size = m.read_u32(p)?;
    let weight_ok = if u { size >= 116 } else { size >= 84 };
    if mask & CFM_WEIGHT != 0 && weight_ok {
        let wo = if u { 92 } else { 60 };
        let w = m.read_u16(p + wo)?;
        f.bold = w >= 600;
    }
    Ok((mask, f, effects))
}

fn apply_charfmt(dst: &CharFmt, mask: u32, src: &CharFmt) -> CharFmt {
    let mut d = dst.clone();
    if mask & (CFM_BOLD | CFM_WEIGHT) != 0 {
        d.bold = src.bold;
    }
    if mask & CFM_ITALIC != 0 {
        d.italic = src.italic;
    }
    if mask & CFM_UNDERLINE != 0 {
        d.underline = src.underline;
    }
    if mask & CFM_STRIKEOUT != 0 {
        d.strike = src.strike;
    }
    if mask & CFM_SIZE != 0 && src.size > 0 {
        d.size = src.size;
    }
    if mask & CFM_OFFSET != 0 {
        d.offset = src.offset;
    }
    if mask & CFM_COLOR != 0 {
        d.color = src.color;
    }
    if mask & CFM_FACE != 0 && !src.face.is_empty() {
        d.face = src.face.clone();
    }
    if mask & CFM_CHARSET != 0 {
        d.charset = src.charset;
    }
    d
}

fn write_charfmt(cx: &mut Ctx, p: u32, f: &CharFmt, mask: u32, u: bool) -> UR<()> {
    let m = &cx.proc.mem;
    let effects = (f.bold as u32 * CFM_BOLD)
        | (f.italic as u32 * CFM_ITALIC)
        | (f.underline as u32 * CFM_UNDERLINE)
        | (f.strike as u32 * CFM_STRIKEOUT)
        | if f.color.is_none() { CFE_AUTOCOLOR } else { 0 };
    m.write_u32(p + 4, mask)?;
    m.write_u32(p + 8, effects)?;
    m.write_u32(p + 12, f.size as u32)?;
    m.write_u32(p + 16, f.offset as u32)?;
    m.write_u32(p + 20, f.color.unwrap_or(0))?;
    m.write_bytes(p + 24, &[f.charset, 0])?;
    let cap = 32;
    crate::user32::put_str(cx, p + 26, cap, &f.face, u)?;
    let size = cx.proc.mem.read_u32(p)?;
    let wo = if u { 92 } else { 60 };
    if size >= if u { 116 } else { 84 } {
        cx.proc
            .mem
            .write_u16(p + wo, if f.bold { 700 } else { 400 })?;
    }
    Ok(())
}

/// The mask of attributes the same over all of `fmts`.
fn common_mask(fmts: &[&CharFmt]) -> u32 {
    let Some(first) = fmts.first() else {
        return 0xf800_003f;
    };
    let mut mask = CFM_BOLD
        | CFM_ITALIC
        | CFM_UNDERLINE
        | CFM_STRIKEOUT
        | CFM_SIZE
        | CFM_COLOR
        | CFM_FACE
        | CFM_OFFSET
        | CFM_CHARSET
        | 0x30;
    for f in &fmts[1..] {
        if f.bold != first.bold {
            mask &= !CFM_BOLD;
        }
        if f.italic != first.italic {
            mask &= !CFM_ITALIC;
        }
        if f.underline != first.underline {
            mask &= !CFM_UNDERLINE;
        }
        if f.strike != first.strike {
            mask &= !CFM_STRIKEOUT;
        }
        if f.size != first.size {
            mask &= !CFM_SIZE;
        }
        if f.color != first.color {
            mask &= !CFM_COLOR;
        }
        if f.face != first.face {
            mask &= !CFM_FACE;
        }
        if f.offset != first.offset {
            mask &= !CFM_OFFSET;
        }
    }
    mask
}

fn set_charformat(cx: &mut Ctx, h: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let (mask, f, _) = read_charfmt(cx, lp, u)?;
    st(cx, h, |s| {
        let n = s.doc.text.len();
        let (a, b) = if wp & SCF_ALL != 0 {
            (0, n)
        } else if wp & (SCF_SELECTION | SCF_WORD) != 0 {
            sel_range(s)
        } else {
            // SCF_DEFAULT: the default format, which empty text and new text take.
            let d = apply_charfmt(&s.doc.fmts[0], mask, &f);
            s.doc.fmts[0] = d;
            s.fonts.clear();
            s.widths.clear();
            s.dirty = true;
            return;
        };
        if wp & SCF_ALL == 0 && a == b {
            let cur = s.doc.fmts[typing_fmt(s)].clone();
            let nf = apply_charfmt(&cur, mask, &f);
            s.insert_fmt = Some(s.doc.intern(&nf));
            return;
        }
        push_undo(s);
        let mut cache: HashMap<usize, usize> = HashMap::new();
        for i in a..b {
            let old = s.doc.fmt[i];
            let new = match cache.get(&old) {
                Some(&v) => v,
                None => {
                    let nf = apply_charfmt(&s.doc.fmts[old], mask, &f);
                    let v = s.doc.intern(&nf);
                    cache.insert(old, v);
                    v
                }
            };
            s.doc.fmt[i] = new;
        }
        if wp & SCF_ALL != 0 {
            let d = apply_charfmt(&s.doc.fmts[0].clone(), mask, &f);
            let di = s.doc.intern(&d);
            s.insert_fmt = Some(di);
        }
        s.dirty = true;
        s.modified = true;
    });
    redraw(cx, h);
    Ok(1)
}

fn get_charformat(cx: &mut Ctx, h: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let (f, mask) = st(cx, h, |s| {
        if wp & SCF_SELECTION == 0 {
            return (s.doc.fmts[0].clone(), common_mask(&[]));
        }
        let (a, b) = sel_range(s);
        if a == b {
            let f = s.doc.fmts[typing_fmt(s)].clone();
            return (f, common_mask(&[]));
        }
        let fmts: Vec<&CharFmt> = s.doc.fmt[a..b].iter().map(|&i| &s.doc.fmts[i]).collect();
        (fmts[0].clone(), common_mask(&fmts))
    });
    write_charfmt(cx, lp, &f, mask, u)?;
    Ok(mask)
}

fn set_paraformat(cx: &mut Ctx, h: u32, lp: u32) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let m = &cx.proc.mem;
    let mask = m.read_u32(lp + 4)?;
    let numbering = m.read_u16(lp + 8)?;
    let start = m.read_u32(lp + 12)? as i32;
    let right = m.read_u32(lp + 16)? as i32;
    let offset = m.read_u32(lp + 20)? as i32;
    let align = m.read_u16(lp + 24)?;
    let ntabs = (m.read_u16(lp + 26)? as usize).min(32);
    let mut tabs = Vec::with_capacity(ntabs);
    for k in 0..ntabs as u32 {
        tabs.push((m.read_u32(lp + 28 + 4 * k)? & 0xff_ffff) as i32);
    }
    st(cx, h, |s| {
        let (a, b) = sel_range(s);
        let (pa, pb) = (s.doc.para_of(a), s.doc.para_of(b));
        push_undo(s);
        for p in pa..=pb.min(s.doc.paras.len() - 1) {
            let d = &mut s.doc.paras[p];
            if mask & PFM_STARTINDENT != 0 {
                d.start = start;
            }
            if mask & PFM_OFFSETINDENT != 0 {
                d.start += start;
            }
            if mask & PFM_RIGHTINDENT != 0 {
                d.right = right;
            }
            if mask & PFM_OFFSET != 0 {
                d.offset = offset;
            }
            if mask & PFM_ALIGNMENT != 0 && (1..=4).contains(&align) {
                d.align = align;
            }
            if mask & PFM_TABSTOPS != 0 {
                d.tabs = tabs.clone();
            }
            if mask & PFM_NUMBERING != 0 {
                d.numbering = numbering;
            }
        }
        s.dirty = true;
        s.modified = true;
    });
    redraw(cx, h);
    Ok(1)
}

fn get_paraformat(cx: &mut Ctx, h: u32, lp: u32) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let (pf, mask) = st(cx, h, |s| {
        let (a, b) = sel_range(s);
        let (pa, pb) = (s.doc.para_of(a), s.doc.para_of(b));
        let first = s.doc.paras[pa.min(s.doc.paras.len() - 1)].clone();
        let mut mask = PFM_STARTINDENT
            | PFM_RIGHTINDENT
            | PFM_OFFSET
            | PFM_ALIGNMENT
            | PFM_TABSTOPS
            | PFM_NUMBERING;
        for p in &s.doc.paras[pa..=pb.min(s.doc.paras.len() - 1)] {
            if p.start != first.start {
                mask &= !PFM_STARTINDENT;
            }
            if p.right != first.right {
                mask &= !PFM_RIGHTINDENT;
            }
            if p.offset != first.offset {
                mask &= !PFM_OFFSET;
            }
            if p.align != first.align {
                mask &= !PFM_ALIGNMENT;
            }
            if p.tabs != first.tabs {
                mask &= !PFM_TABSTOPS;
            }
        }
        (first, mask)
    });
    let m = &cx.proc.mem;
    m.write_u32(lp + 4, mask)?;
    m.write_u16(lp + 8, pf.numbering)?;
    m.write_u16(lp + 10, 0)?;
    m.write_u32(lp + 12, pf.start as u32)?;
    m.write_u32(lp + 16, pf.right as u32)?;
    m.write_u32(lp + 20, pf.offset as u32)?;
    m.write_u16(lp + 24, pf.align)?;
    m.write_u16(lp + 26, pf.tabs.len().min(32) as u16)?;
    for (k, t) in pf.tabs.iter().take(32).enumerate() {
        m.write_u32(lp + 28 + 4 * k as u32, *t as u32)?;
    }
    Ok(mask)
}

// ---- streams ---------------------------------------------------------------------------

/// EM_STREAMIN: reads the EDITSTREAM's callback to its end, then replaces the
/// document (or the selection, SFF_SELECTION) with the text or RTF read.
fn stream_in(cx: &mut Ctx, h: u32, wp: u32, lp: u32) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let cookie = cx.proc.mem.read_u32(lp)?;
    let callback = cx.proc.mem.read_u32(lp + 8)?;
    const CHUNK: u32 = 4096;
    let (buf, esp) = crate::user32::stack_alloc(cx, CHUNK + 4);
    let r = (|| -> UR<(Vec<u8>, u32)> {
        let mut data = Vec::new();
        loop {
            cx.proc.mem.write_u32(buf + CHUNK, 0)?;
            let e = crate::user32::guest(cx, callback, &[cookie, buf, CHUNK, buf + CHUNK])?;
            let got = cx.proc.mem.read_u32(buf + CHUNK)?.min(CHUNK);
            if e != 0 {
                return Ok((data, e));
            }
            if got == 0 {
                return Ok((data, 0));
            }
            let mut b = vec![0u8; got as usize];
            cx.proc.mem.read_bytes(buf, &mut b)?;
            data.extend(b);
            if data.len() > 64 << 20 {
                return Ok((data, 0));
            }
        }
    })();
    crate::user32::stack_free(cx, esp);
    let (data, err) = r?;
    cx.proc.mem.write_u32(lp + 4, err)?;
    let default = st(cx, h, |s| s.doc.fmts[0].clone());
    let decode = |b: &[u8]| crate::kernel32::string::decode_ansi(b);
    let new_doc = if wp & SF_RTF != 0 {
        rtf::read(&data, &default, &decode)
    } else {
        None
    };
    let new_doc = match new_doc {
        Some(d) => d,
        None => {
            let text = if wp & SF_UNICODE != 0 {
                let u: Vec<u16> = data
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                String::from_utf16_lossy(&u)
            } else {
                decode(&data)
            };
            let mut d = Doc {
                fmts: vec![default.clone()],
                ..Doc::default()
            };
            let t = rtf::normalize(&text);
            d.replace(0, 0, &t, 0);
            d
        }
    };
    let n = new_doc.text.len() as u32;
    st(cx, h, |s| {
        if wp & SFF_SELECTION != 0 {
            push_undo(s);
            let (a, b) = sel_range(s);
            // Merge: the inserted text keeps its own formats.
            let map: Vec<usize> = new_doc.fmts.iter().map(|f| s.doc.intern(f)).collect();
            let base = typing_fmt(s);
            s.doc.replace(a, b, &new_doc.text, base);
            for (k, &f) in new_doc.fmt.iter().enumerate() {
                s.doc.fmt[a + k] = map[f];
            }
            let end = a + new_doc.text.len();
            s.sel = (end, end);
        } else {
            let default_fmt = s.doc.fmts[0].clone();
            s.doc = new_doc;
            if s.doc.fmts.is_empty() {
                s.doc.fmts.push(default_fmt);
            }
            s.sel = (0, 0);
            s.undo.clear();
            s.redo.clear();
            s.scroll_y = 0;
        }
        s.fonts.clear();
        s.widths.clear();
        s.insert_fmt = None;
        s.dirty = true;
    });
    changed(cx, h)?;
    if wp & SFF_SELECTION == 0 {
        st(cx, h, |s| s.modified = false);
    }
    sel_changed(cx, h)?;
    Ok(n)
}

fn stream_out(cx: &mut Ctx, h: u32, wp: u32, lp: u32) -> UR<u32> {
    if lp == 0 {
        return Ok(0);
    }
    let (bytes, n) = st(cx, h, |s| {
        let (a, b) = if wp & SFF_SELECTION != 0 {
            sel_range(s)
        } else {
            (0, s.doc.text.len())
        };
        if wp & SF_RTF != 0 {
            let enc = |c: char| {
                let b = crate::kernel32::string::encode_ansi(&c.to_string());
                (b.len() == 1 && b[0] != b'?').then(|| b[0])
            };
            (rtf::write(&s.doc, a, b, &enc), b - a)
        } else {
            let t = s.doc.crlf_text(a, b);
            if wp & SF_UNICODE != 0 {
                (
                    t.encode_utf16().flat_map(|u| u.to_le_bytes()).collect(),
                    b - a,
                )
            } else {
                (crate::kernel32::string::encode_ansi(&t), b - a)
            }
        }
    });
    let _ = SF_TEXT;
    let cookie = cx.proc.mem.read_u32(lp)?;
    let callback = cx.proc.mem.read_u32(lp + 8)?;
    const CHUNK: usize = 4096;
    let (buf, esp) = crate::user32::stack_alloc(cx, CHUNK as u32 + 4);
    let r = (|| -> UR<u32> {
        for part in bytes.chunks(CHUNK) {
            cx.proc.mem.write_bytes(buf, part)?;
            cx.proc.mem.write_u32(buf + CHUNK as u32, 0)?;
            let e = crate::user32::guest(
                cx,
                callback,
                &[cookie, buf, part.len() as u32, buf + CHUNK as u32],
            )?;
            if e != 0 {
                return Ok(e);
            }
        }
        Ok(0)
    })();
    crate::user32::stack_free(cx, esp);
    let err = r?;
    cx.proc.mem.write_u32(lp + 4, err)?;
    Ok(n as u32)
}

// ---- the window procedure ----------------------------------------------------------------

fn text_of(cx: &Ctx, h: u32) -> String {
    st(cx, h, |s| s.doc.crlf_text(0, s.doc.text.len()))
}

fn lines_info(cx: &mut Ctx, h: u32) -> UR<Vec<(usize, usize)>> {
    ensure_layout(cx, h)?;
    Ok(st(cx, h, |s| {
        s.lines.iter().map(|l| (l.start, l.end)).collect()
    }))
}

fn key_down(cx: &Ctx, vk: usize) -> bool {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().keys.get(vk).is_some_and(|k| k & 0x80 != 0)
}

fn move_caret(cx: &mut Ctx, h: u32, to: usize, extend: bool) -> UR<()> {
    st(cx, h, |s| {
        let to = to.min(s.doc.text.len());
        s.sel = if extend { (s.sel.0, to) } else { (to, to) };
        s.insert_fmt = None;
    });
    scroll_to_caret(cx, h)?;
    sel_changed(cx, h)
}

fn keydown(cx: &mut Ctx, h: u32, vk: u32) -> UR<u32> {
    ensure_layout(cx, h)?;
    let shift = key_down(cx, 0x10);
    let ctrl = key_down(cx, 0x11);
    let readonly = style_of(cx, h) & ES_READONLY != 0;
    let (caret, n, lines, text) = st(cx, h, |s| {
        (
            s.sel.1,
            s.doc.text.len(),
            s.lines.clone(),
            s.doc.text.clone(),
        )
    });
    let li = line_of(&lines, caret);
    let target = match vk {
        0x25 => Some(if ctrl {
            let mut p = caret;
            while p > 0 && text[p - 1] == ' ' {
                p -= 1;
            }
            while p > 0 && !matches!(text[p - 1], ' ' | '\r') {
                p -= 1;
            }
            p
        } else {
            caret.saturating_sub(1)
        }),
        0x27 => Some(if ctrl {
            let mut p = caret;
            while p < n && !matches!(text[p], ' ' | '\r') {
                p += 1;
            }
            while p < n && text[p] == ' ' {
                p += 1;
            }
            p
        } else {
            (caret + 1).min(n)
        }),
        0x24 => Some(if ctrl {
            0
        } else {
            lines.get(li).map_or(0, |l| l.start)
        }),
        0x23 => Some(if ctrl {
            n
        } else {
            lines.get(li).map_or(n, |l| {
                if li + 1 < lines.len() && lines[li + 1].start == l.end && l.end > l.start {
                    l.end - 1
                } else {
                    l.end
                }
            })
        }),
        0x26 | 0x28 | 0x21 | 0x22 => {
            let (x, y, hh) = st(cx, h, |s| pos_xy(s, caret));
            let (_, ch) = client_size(cx, h);
            let dy = match vk {
                0x26 => -1,
                0x28 => hh + 1,
                0x21 => -ch,
                _ => ch,
            };
            Some(st(cx, h, |s| hit(s, x, y + dy)))
        }
        0x2e => {
            if !readonly {
                let (a, b) = st(cx, h, |s| sel_range(s));
                if a == b && a < n {
                    st(cx, h, |s| s.sel = (a, a + 1));
                }
                replace_sel(cx, h, "", true)?;
            }
            None
        }
        0x41 if ctrl => {
            set_sel(cx, h, 0, -1)?;
            None
        }
        0x5a if ctrl => {
            undo(cx, h)?;
            None
        }
        0x59 if ctrl => {
            redo(cx, h)?;
            None
        }
        _ => None,
    };
    if let Some(t) = target {
        move_caret(cx, h, t, shift)?;
    }
    Ok(0)
}

fn undo(cx: &mut Ctx, h: u32) -> UR<bool> {
    let ok = st(cx, h, |s| match s.undo.pop() {
        Some(snap) => {
            s.redo.push(Snapshot {
                doc: s.doc.clone(),
                sel: s.sel,
            });
            s.doc = snap.doc;
            s.sel = snap.sel;
            s.fonts.clear();
            s.widths.clear();
            true
        }
        None => false,
    });
    if ok {
        changed(cx, h)?;
        sel_changed(cx, h)?;
    }
    Ok(ok)
}

fn redo(cx: &mut Ctx, h: u32) -> UR<bool> {
    let ok = st(cx, h, |s| match s.redo.pop() {
        Some(snap) => {
            s.undo.push(Snapshot {
                doc: s.doc.clone(),
                sel: s.sel,
            });
            s.doc = snap.doc;
            s.sel = snap.sel;
            s.fonts.clear();
            s.widths.clear();
            true
        }
        None => false,
    });
    if ok {
        changed(cx, h)?;
        sel_changed(cx, h)?;
    }
    Ok(ok)
}

/// Calls IUnknown method `slot` (1 AddRef, 2 Release) of guest object `obj`.
fn com_call(cx: &mut Ctx, obj: u32, slot: u32) -> UR<u32> {
    let vt = cx.proc.mem.read_u32(obj)?;
    let f = cx.proc.mem.read_u32(vt + 4 * slot)?;
    crate::user32::guest(cx, f, &[obj])
}

fn mouse_xy(lp: u32) -> (i32, i32) {
    ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32)
}

fn char_range(cx: &Ctx, p: u32) -> UR<(i32, i32)> {
    Ok((
        cx.proc.mem.read_u32(p)? as i32,
        cx.proc.mem.read_u32(p + 4)? as i32,
    ))
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            st(cx, h, |s| {
                if style_of(cx, h) & ES_MULTILINE == 0 {
                    s.wrap = Some(0);
                }
            });
            let t = lock_wm(cx.proc)
                .win(h)
                .map(|w| w.text.clone())
                .unwrap_or_default();
            if !t.is_empty() {
                st(cx, h, |s| {
                    let v = rtf::normalize(&t);
                    s.doc.replace(0, 0, &v, 0);
                });
            }
            Ok(0)
        }
        WM_NCDESTROY => {
            let cb = st(cx, h, |s| std::mem::replace(&mut s.ole_callback, 0));
            if cb != 0 {
                com_call(cx, cb, 2)?;
            }
            let fonts: Vec<u32> = st(cx, h, |s| s.fonts.values().copied().collect());
            for f in fonts {
                crate::user32::call_export(cx, "GDI32.dll", "DeleteObject", &[f])?;
            }
            cx.proc
                .slot::<States>()
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SIZE => {
            st(cx, h, |s| s.dirty = true);
            scroll_to_caret(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        WM_GETDLGCODE => Ok(0x1 | 0x4 | 0x8 | 0x80),
        WM_SETFOCUS => {
            st(cx, h, |s| s.focused = true);
            redraw(cx, h);
            notify_command(cx, h, EN_SETFOCUS)?;
            Ok(0)
        }
        WM_KILLFOCUS => {
            st(cx, h, |s| s.focused = false);
            redraw(cx, h);
            notify_command(cx, h, EN_KILLFOCUS)?;
            Ok(0)
        }
        WM_SETFONT => {
            // The font becomes the default character format.
            let lf = match cx.proc.gdi32.lock().objs.get(&wp) {
                Some(Obj::Font(lf)) => Some(lf.clone()),
                _ => None,
            };
            if let Some(lf) = lf {
                st(cx, h, |s| {
                    let f = &mut s.doc.fmts[0];
                    f.face = lf.face.clone();
                    f.size = lf.height.abs() * 1440 / 96;
                    f.bold = lf.weight >= 600;
                    f.italic = lf.italic != 0;
                    s.fonts.clear();
                    s.widths.clear();
                    s.dirty = true;
                });
                if lp != 0 {
                    redraw(cx, h);
                }
            }
            Ok(0)
        }
        WM_SETTEXT => {
            let t = if lp == 0 {
                String::new()
            } else {
                read_str(cx, lp, u)?
            };
            let is_rtf = t.starts_with("{\\rtf");
            st(cx, h, |s| {
                let default = s.doc.fmts[0].clone();
                let decode = |b: &[u8]| crate::kernel32::string::decode_ansi(b);
                let d = if is_rtf {
                    rtf::read(&crate::kernel32::string::encode_ansi(&t), &default, &decode)
                } else {
                    None
                };
                s.doc = d.unwrap_or_else(|| {
                    let mut d = Doc {
                        fmts: vec![default.clone()],
                        ..Doc::default()
                    };
                    d.replace(0, 0, &rtf::normalize(&t), 0);
                    d
                });
                s.sel = (0, 0);
                s.undo.clear();
                s.redo.clear();
                s.scroll_y = 0;
                s.fonts.clear();
                s.widths.clear();
            });
            changed(cx, h)?;
            st(cx, h, |s| s.modified = false);
            Ok(1)
        }
        WM_GETTEXT => {
            let t = text_of(cx, h);
            crate::user32::put_str(cx, lp, wp, &t, u).map_err(Into::into)
        }
        WM_GETTEXTLENGTH => Ok(crate::user32::str_len(&text_of(cx, h), u)),
        WM_CHAR => {
            if style_of(cx, h) & ES_READONLY != 0 {
                return Ok(0);
            }
            let c = if u {
                char::from_u32(wp & 0xffff)
            } else {
                crate::kernel32::string::decode_ansi(&[wp as u8])
                    .chars()
                    .next()
            };
            match c {
                Some('\u{8}') => {
                    let (a, b) = st(cx, h, |s| sel_range(s));
                    if a == b && a > 0 {
                        st(cx, h, |s| s.sel = (a - 1, a));
                    }
                    if a != b || a > 0 {
                        replace_sel(cx, h, "", true)?;
                    }
                }
                Some('\r') => replace_sel(cx, h, "\r", true)?,
                Some('\t') => replace_sel(cx, h, "\t", true)?,
                Some(c) if (c as u32) >= 0x20 => replace_sel(cx, h, &c.to_string(), true)?,
                _ => {}
            }
            Ok(0)
        }
        WM_KEYDOWN => keydown(cx, h, wp),
        WM_LBUTTONDOWN => {
            crate::user32::window::set_focus(cx, h)?;
            ensure_layout(cx, h)?;
            let (x, y) = mouse_xy(lp);
            let p = st(cx, h, |s| hit(s, x, y));
            let shift = wp & 0x4 != 0;
            st(cx, h, |s| s.dragging = true);
            crate::user32::call_export(cx, "USER32.dll", "SetCapture", &[h])?;
            move_caret(cx, h, p, shift)?;
            Ok(0)
        }
        WM_MOUSEMOVE => {
            if st(cx, h, |s| s.dragging) {
                ensure_layout(cx, h)?;
                let (x, y) = mouse_xy(lp);
                let p = st(cx, h, |s| hit(s, x, y));
                if st(cx, h, |s| s.sel.1 != p) {
                    move_caret(cx, h, p, true)?;
                }
            }
            Ok(0)
        }
        WM_LBUTTONUP => {
            if st(cx, h, |s| std::mem::replace(&mut s.dragging, false)) {
                crate::user32::call_export(cx, "USER32.dll", "ReleaseCapture", &[])?;
            }
            Ok(0)
        }
        WM_VSCROLL | 0x20a => {
            let (_, ch) = client_size(cx, h);
            ensure_layout(cx, h)?;
            let total = st(cx, h, |s| s.lines.last().map_or(0, |l| l.y + l.height));
            let line = st(cx, h, |s| s.lines.first().map_or(16, |l| l.height.max(1)));
            let delta = if m == 0x20a {
                -((wp >> 16) as i16 as i32) / 120 * 3 * line
            } else {
                match wp & 0xffff {
                    0 => -line,
                    1 => line,
                    2 => -ch,
                    3 => ch,
                    4 | 5 => ((wp >> 16) as i32) - st(cx, h, |s| s.scroll_y),
                    6 => -total,
                    7 => total,
                    _ => 0,
                }
            };
            st(cx, h, |s| {
                s.scroll_y = (s.scroll_y + delta).clamp(0, (total - ch + 2 * MARGIN).max(0));
            });
            update_scrollbar(cx, h, total)?;
            redraw(cx, h);
            Ok(0)
        }
        EM_GETSEL => {
            let (a, b) = st(cx, h, |s| sel_range(s));
            if wp != 0 {
                cx.proc.mem.write_u32(wp, a as u32)?;
            }
            if lp != 0 {
                cx.proc.mem.write_u32(lp, b as u32)?;
            }
            Ok(if a > 0xffff || b > 0xffff {
                u32::MAX
            } else {
                (a as u32) | (b as u32) << 16
            })
        }
        EM_SETSEL => {
            set_sel(cx, h, wp as i32, lp as i32)?;
            Ok(0)
        }
        EM_EXGETSEL => {
            let (a, b) = st(cx, h, |s| sel_range(s));
            if lp != 0 {
                cx.proc.mem.write_u32(lp, a as u32)?;
                cx.proc.mem.write_u32(lp + 4, b as u32)?;
            }
            Ok(0)
        }
        EM_EXSETSEL => {
            if lp == 0 {
                return Ok(0);
            }
            let (a, b) = char_range(cx, lp)?;
            set_sel(cx, h, a, b)?;
            Ok(st(cx, h, |s| s.sel.1 as u32))
        }
        EM_REPLACESEL => {
            let t = if lp == 0 {
                String::new()
            } else {
                read_str(cx, lp, u)?
            };
            replace_sel(cx, h, &t, wp != 0)?;
            Ok(0)
        }
        EM_GETSELTEXT => {
            let t = st(cx, h, |s| {
                let (a, b) = sel_range(s);
                s.doc.text[a..b].iter().collect::<String>()
            });
            if lp != 0 {
                crate::user32::write_str(cx, lp, &t, u)?;
            }
            Ok(crate::user32::str_len(&t, u))
        }
        EM_GETTEXTRANGE => {
            if lp == 0 {
                return Ok(0);
            }
            let (a, b) = char_range(cx, lp)?;
            let p = cx.proc.mem.read_u32(lp + 8)?;
            let t = st(cx, h, |s| {
                let n = s.doc.text.len() as i32;
                let b = if b < 0 || b > n { n } else { b };
                let a = a.clamp(0, b);
                s.doc.text[a as usize..b as usize]
                    .iter()
                    .collect::<String>()
            });
            if p != 0 {
                crate::user32::write_str(cx, p, &t, u)?;
            }
            Ok(crate::user32::str_len(&t, u))
        }
        EM_GETTEXTEX => {
            if wp == 0 || lp == 0 {
                return Ok(0);
            }
            let m8 = &cx.proc.mem;
            let cb = m8.read_u32(wp)?;
            let flags = m8.read_u32(wp + 4)?;
            let cp = m8.read_u32(wp + 8)?;
            let t = st(cx, h, |s| {
                let (a, b) = if flags & GT_SELECTION != 0 {
                    sel_range(s)
                } else {
                    (0, s.doc.text.len())
                };
                if flags & GT_USECRLF != 0 {
                    s.doc.crlf_text(a, b)
                } else {
                    s.doc.text[a..b].iter().collect()
                }
            });
            let unicode = cp == 1200;
            let cap = if unicode { cb / 2 } else { cb };
            crate::user32::put_str(cx, lp, cap, &t, unicode).map_err(Into::into)
        }
        EM_GETTEXTLENGTHEX => {
            let flags = if wp != 0 {
                cx.proc.mem.read_u32(wp)?
            } else {
                0
            };
            let cp = if wp != 0 {
                cx.proc.mem.read_u32(wp + 4)?
            } else {
                1200
            };
            let t = st(cx, h, |s| {
                if flags & GTL_USECRLF != 0 {
                    s.doc.crlf_text(0, s.doc.text.len())
                } else {
                    s.doc.text.iter().collect::<String>()
                }
            });
            Ok(if flags & GTL_NUMBYTES != 0 && cp != 1200 {
                crate::kernel32::string::encode_ansi(&t).len() as u32
            } else {
                t.encode_utf16().count() as u32
            })
        }
        EM_SETTEXTEX => {
            if wp == 0 {
                return Ok(0);
            }
            let flags = cx.proc.mem.read_u32(wp)?;
            let cp = cx.proc.mem.read_u32(wp + 4)?;
            let t = if lp == 0 {
                String::new()
            } else {
                read_str(cx, lp, cp == 1200)?
            };
            if flags & ST_SELECTION != 0 {
                replace_sel(cx, h, &t, true)?;
            } else {
                let (pw, esp) = crate::user32::stack_alloc(cx, (t.len() as u32 + 1) * 2);
                crate::user32::write_str(cx, pw, &t, true)?;
                let r = wndproc(cx, h, WM_SETTEXT, 0, pw, true);
                crate::user32::stack_free(cx, esp);
                r?;
            }
            Ok(1)
        }
        EM_SETCHARFORMAT => set_charformat(cx, h, wp, lp, u),
        EM_GETCHARFORMAT => get_charformat(cx, h, wp, lp, u),
        EM_SETPARAFORMAT => set_paraformat(cx, h, lp),
        EM_GETPARAFORMAT => get_paraformat(cx, h, lp),
        EM_STREAMIN => stream_in(cx, h, wp, lp),
        EM_STREAMOUT => stream_out(cx, h, wp, lp),
        EM_SETEVENTMASK => Ok(st(cx, h, |s| std::mem::replace(&mut s.event_mask, lp))),
        EM_GETEVENTMASK => Ok(st(cx, h, |s| s.event_mask)),
        EM_SETBKGNDCOLOR => {
            let old = st(cx, h, |s| {
                let old = s.bk.unwrap_or(gp::sys_color(gp::COLOR_WINDOW));
                s.bk = if wp != 0 { None } else { Some(lp & 0xff_ffff) };
                old
            });
            redraw(cx, h);
            Ok(old)
        }
        EM_CANUNDO => Ok(st(cx, h, |s| !s.undo.is_empty()) as u32),
        EM_CANREDO => Ok(st(cx, h, |s| !s.redo.is_empty()) as u32),
        EM_UNDO => Ok(undo(cx, h)? as u32),
        EM_REDO => Ok(redo(cx, h)? as u32),
        EM_EMPTYUNDOBUFFER => {
            st(cx, h, |s| {
                s.undo.clear();
                s.redo.clear();
            });
            Ok(0)
        }
        EM_SETUNDOLIMIT => Ok(st(cx, h, |s| {
            s.undo_limit = wp as usize;
            wp
        })),
        EM_STOPGROUPTYPING => Ok(0),
        EM_SETTARGETDEVICE => {
            // lParam: the line width in twips; 0 wraps at the window, 1 never wraps.
            st(cx, h, |s| {
                s.wrap = match lp as i32 {
                    0 => None,
                    1 => Some(0),
                    w => Some(w.max(2)),
                };
                s.dirty = true;
            });
            redraw(cx, h);
            Ok(1)
        }
        EM_EXLIMITTEXT | EM_LIMITTEXT => {
            let v = if m == EM_LIMITTEXT { wp } else { lp };
            st(cx, h, |s| s.limit = if v == 0 { 65536 } else { v as usize });
            Ok(0)
        }
        EM_GETLIMITTEXT => Ok(st(cx, h, |s| s.limit as u32)),
        EM_SETOPTIONS => {
            let old = st(cx, h, |s| {
                s.options = match wp {
                    ECOOP_SET => lp,
                    ECOOP_OR => s.options | lp,
                    ECOOP_AND => s.options & lp,
                    ECOOP_XOR => s.options ^ lp,
                    _ => s.options,
                };
                s.options
            });
            if let Some(w) = lock_wm(cx.proc).win_mut(h) {
                if old & ECO_READONLY != 0 {
                    w.style |= ES_READONLY;
                } else {
                    w.style &= !ES_READONLY;
                }
            }
            Ok(old)
        }
        EM_GETOPTIONS => {
            let ro = style_of(cx, h) & ES_READONLY;
            Ok(st(cx, h, |s| (s.options & !ECO_READONLY) | ro))
        }
        EM_SETREADONLY => {
            if let Some(w) = lock_wm(cx.proc).win_mut(h) {
                if wp != 0 {
                    w.style |= ES_READONLY;
                } else {
                    w.style &= !ES_READONLY;
                }
            }
            redraw(cx, h);
            Ok(1)
        }
        EM_GETMODIFY => Ok(st(cx, h, |s| s.modified) as u32),
        EM_SETMODIFY => {
            st(cx, h, |s| s.modified = wp != 0);
            Ok(0)
        }
        EM_GETOLEINTERFACE => Err(ApiError::UnimplementedCase(
            "RichEdit EM_GETOLEINTERFACE (the IRichEditOle object)".into(),
        )
        .into()),
        EM_SETOLECALLBACK => {
            // The callback is only consulted when OLE objects are inserted, which
            // this control does not support; it is kept (with a reference) as
            // Windows keeps it.
            let old = st(cx, h, |s| std::mem::replace(&mut s.ole_callback, lp));
            if lp != 0 {
                com_call(cx, lp, 1)?;
            }
            if old != 0 {
                com_call(cx, old, 2)?;
            }
            Ok(1)
        }
        EM_HIDESELECTION => {
            st(cx, h, |s| s.hide_sel = wp != 0);
            redraw(cx, h);
            Ok(0)
        }
        EM_SELECTIONTYPE => Ok(st(cx, h, |s| {
            let (a, b) = sel_range(s);
            match b - a {
                0 => SEL_EMPTY,
                1 => SEL_TEXT,
                _ => SEL_TEXT | SEL_MULTICHAR,
            }
        })),
        EM_CANPASTE => Ok(0),
        EM_SETTEXTMODE => Ok(0),
        EM_GETTEXTMODE => Ok(0x1 | 0x4 | 0x20),
        EM_AUTOURLDETECT => Ok(0),
        EM_GETAUTOURLDETECT => Ok(0),
        EM_SETLANGOPTIONS => Ok(1),
        EM_GETLANGOPTIONS => Ok(0),
        EM_SETZOOM => {
            st(cx, h, |s| s.zoom = (wp, lp));
            Ok(1)
        }
        EM_GETZOOM => {
            let (n, d) = st(cx, h, |s| s.zoom);
            if wp != 0 {
                cx.proc.mem.write_u32(wp, n)?;
            }
            if lp != 0 {
                cx.proc.mem.write_u32(lp, d)?;
            }
            Ok(1)
        }
        EM_GETSCROLLPOS => {
            if lp != 0 {
                cx.proc.mem.write_u32(lp, 0)?;
                cx.proc
                    .mem
                    .write_u32(lp + 4, st(cx, h, |s| s.scroll_y) as u32)?;
            }
            Ok(1)
        }
        EM_SETSCROLLPOS => {
            if lp != 0 {
                let y = cx.proc.mem.read_u32(lp + 4)? as i32;
                st(cx, h, |s| s.scroll_y = y.max(0));
                redraw(cx, h);
            }
            Ok(1)
        }
        EM_SCROLLCARET => {
            scroll_to_caret(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        EM_GETLINECOUNT => Ok(lines_info(cx, h)?.len().max(1) as u32),
        EM_LINEFROMCHAR | EM_EXLINEFROMCHAR => {
            let lines = lines_info(cx, h)?;
            let pos = if m == EM_LINEFROMCHAR && wp == u32::MAX {
                st(cx, h, |s| sel_range(s).0)
            } else if m == EM_EXLINEFROMCHAR {
                lp as usize
            } else {
                wp as usize
            };
            Ok(lines.iter().rposition(|l| l.0 <= pos).unwrap_or(0) as u32)
        }
        EM_LINEINDEX => {
            let lines = lines_info(cx, h)?;
            let li = if wp == u32::MAX {
                let c = st(cx, h, |s| s.sel.1);
                lines.iter().rposition(|l| l.0 <= c).unwrap_or(0)
            } else {
                wp as usize
            };
            Ok(lines.get(li).map_or(u32::MAX, |l| l.0 as u32))
        }
        EM_LINELENGTH => {
            let lines = lines_info(cx, h)?;
            let li = lines.iter().rposition(|l| l.0 <= wp as usize).unwrap_or(0);
            Ok(lines.get(li).map_or(0, |l| (l.1 - l.0) as u32))
        }
        EM_GETLINE => {
            let lines = lines_info(cx, h)?;
            let Some(&(a, b)) = lines.get(wp as usize) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            let cap = cx.proc.mem.read_u16(lp)? as usize;
            let t: String = st(cx, h, |s| s.doc.text[a..b].iter().take(cap).collect());
            let bytes = if u {
                t.encode_utf16()
                    .flat_map(|c| c.to_le_bytes())
                    .collect::<Vec<u8>>()
            } else {
                crate::kernel32::string::encode_ansi(&t)
            };
            cx.proc.mem.write_bytes(lp, &bytes)?;
            Ok(t.chars().count() as u32)
        }
        EM_GETFIRSTVISIBLELINE => {
            ensure_layout(cx, h)?;
            Ok(st(cx, h, |s| {
                s.lines
                    .iter()
                    .position(|l| l.y + l.height > s.scroll_y)
                    .unwrap_or(0)
            }) as u32)
        }
        EM_POSFROMCHAR => {
            ensure_layout(cx, h)?;
            // RichEdit 2.0: wParam points to a POINTL, lParam is the character.
            let (x, y, _) = st(cx, h, |s| pos_xy(s, lp as usize));
            if wp != 0 && wp >= 0x10000 {
                cx.proc.mem.write_u32(wp, x as u32)?;
                cx.proc.mem.write_u32(wp + 4, y as u32)?;
                Ok(0)
            } else {
                Ok((x as u32 & 0xffff) | (y as u32) << 16)
            }
        }
        EM_CHARFROMPOS => {
            ensure_layout(cx, h)?;
            if lp == 0 {
                return Ok(0);
            }
            let x = cx.proc.mem.read_u32(lp)? as i32;
            let y = cx.proc.mem.read_u32(lp + 4)? as i32;
            Ok(st(cx, h, |s| hit(s, x, y)) as u32)
        }
        EM_GETRECT => {
            let (w, hh) = client_size(cx, h);
            let r =
                st(cx, h, |s| s.rect).unwrap_or(Rect::new(MARGIN, MARGIN, w - MARGIN, hh - MARGIN));
            if lp != 0 {
                gp::write_rect(cx.proc, lp, r)?;
            }
            Ok(0)
        }
        EM_SETRECT => {
            let r = if lp == 0 {
                None
            } else {
                Some(gp::read_rect(cx.proc, lp)?)
            };
            st(cx, h, |s| {
                s.rect = r;
                s.dirty = true;
            });
            redraw(cx, h);
            Ok(0)
        }
        EM_SCROLL | EM_LINESCROLL => {
            let dy = if m == EM_SCROLL {
                match wp {
                    0 => -16,
                    1 => 16,
                    2 => -client_size(cx, h).1,
                    _ => client_size(cx, h).1,
                }
            } else {
                lp as i32 * 16
            };
            st(cx, h, |s| s.scroll_y = (s.scroll_y + dy).max(0));
            redraw(cx, h);
            Ok(1)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}
