//! Drawing helpers for USER32 (window frames, controls, dialogs) and the USER32
//! exports that draw (FillRect, FrameRect, InvertRect, DrawEdge, DrawText): plain Rust
//! functions over a DC handle. Rectangles are in the DC's logical coordinates (client
//! coordinates for a window DC). Do not hold a surface lock while calling these.

use super::dc::{self, DrawCtx};
use super::objects::{self, Brush};
use super::raster::{self, with_raster};
use super::surface::Rect;
use super::text::{self, TextOpts};
use crate::hle::ApiResult;
use crate::process::Process;

pub const COLOR_SCROLLBAR: i32 = 0;
pub const COLOR_BACKGROUND: i32 = 1;
pub const COLOR_ACTIVECAPTION: i32 = 2;
pub const COLOR_INACTIVECAPTION: i32 = 3;
pub const COLOR_MENU: i32 = 4;
pub const COLOR_WINDOW: i32 = 5;
pub const COLOR_WINDOWFRAME: i32 = 6;
pub const COLOR_MENUTEXT: i32 = 7;
pub const COLOR_WINDOWTEXT: i32 = 8;
pub const COLOR_CAPTIONTEXT: i32 = 9;
pub const COLOR_ACTIVEBORDER: i32 = 10;
pub const COLOR_INACTIVEBORDER: i32 = 11;
pub const COLOR_APPWORKSPACE: i32 = 12;
pub const COLOR_HIGHLIGHT: i32 = 13;
pub const COLOR_HIGHLIGHTTEXT: i32 = 14;
pub const COLOR_BTNFACE: i32 = 15;
pub const COLOR_BTNSHADOW: i32 = 16;
pub const COLOR_GRAYTEXT: i32 = 17;
pub const COLOR_BTNTEXT: i32 = 18;
pub const COLOR_INACTIVECAPTIONTEXT: i32 = 19;
pub const COLOR_BTNHIGHLIGHT: i32 = 20;
pub const COLOR_3DDKSHADOW: i32 = 21;
pub const COLOR_3DLIGHT: i32 = 22;
pub const COLOR_INFOTEXT: i32 = 23;
pub const COLOR_INFOBK: i32 = 24;
pub const COLOR_HOTLIGHT: i32 = 26;
pub const COLOR_GRADIENTACTIVECAPTION: i32 = 27;
pub const COLOR_GRADIENTINACTIVECAPTION: i32 = 28;

/// GetSysColor: the Windows 98 "Windows Standard" scheme, as COLORREF (0x00BBGGRR).
pub fn sys_color(index: i32) -> u32 {
    let (r, g, b) = match index {
        COLOR_SCROLLBAR => (192, 192, 192),
        COLOR_BACKGROUND => (0, 128, 128),
        COLOR_ACTIVECAPTION => (0, 0, 128),
        COLOR_INACTIVECAPTION => (128, 128, 128),
        COLOR_MENU => (192, 192, 192),
        COLOR_WINDOW => (255, 255, 255),
        COLOR_WINDOWFRAME => (0, 0, 0),
        COLOR_MENUTEXT => (0, 0, 0),
        COLOR_WINDOWTEXT => (0, 0, 0),
        COLOR_CAPTIONTEXT => (255, 255, 255),
        COLOR_ACTIVEBORDER => (192, 192, 192),
        COLOR_INACTIVEBORDER => (192, 192, 192),
        COLOR_APPWORKSPACE => (128, 128, 128),
        COLOR_HIGHLIGHT => (0, 0, 128),
        COLOR_HIGHLIGHTTEXT => (255, 255, 255),
        COLOR_BTNFACE => (192, 192, 192),
        COLOR_BTNSHADOW => (128, 128, 128),
        COLOR_GRAYTEXT => (128, 128, 128),
        COLOR_BTNTEXT => (0, 0, 0),
        COLOR_INACTIVECAPTIONTEXT => (192, 192, 192),
        COLOR_BTNHIGHLIGHT => (255, 255, 255),
        COLOR_3DDKSHADOW => (0, 0, 0),
        COLOR_3DLIGHT => (192, 192, 192),
        COLOR_INFOTEXT => (0, 0, 0),
        COLOR_INFOBK => (255, 255, 225),
        COLOR_HOTLIGHT => (0, 0, 255),
        COLOR_GRADIENTACTIVECAPTION => (16, 132, 208),
        COLOR_GRADIENTINACTIVECAPTION => (192, 192, 192),
        _ => (0, 0, 0),
    };
    objects::rgb(r, g, b)
}

/// GetSysColorBrush: a stock brush of system colour `index`, or 0 for an index
/// Windows does not define.
pub fn sys_color_brush(index: i32) -> u32 {
    if (0..=30).contains(&index) {
        objects::sys_color_brush_handle(index as u32)
    } else {
        0
    }
}

/// The solid colour (COLORREF) a brush paints with: brush objects, stock brushes
/// and COLOR_xxx + 1 values. None for null, hatched and pattern brushes and for
/// handles that are not brushes.
pub fn brush_color(proc: &Process, hbrush: u32) -> Option<u32> {
    let g = proc.gdi32.lock();
    match objects::brush_of(&g, hbrush)? {
        Brush::Solid(c) => Some(c),
        _ => None,
    }
}

/// Reads a RECT from guest memory.
pub fn read_rect(proc: &Process, p: u32) -> ApiResult<Rect> {
    let mut b = [0u8; 16];
    proc.mem.read_bytes(p, &mut b)?;
    let i = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    Ok(Rect::new(i(0), i(4), i(8), i(12)))
}

pub fn write_rect(proc: &Process, p: u32, r: Rect) -> ApiResult<()> {
    let mut b = Vec::with_capacity(16);
    for v in [r.left, r.top, r.right, r.bottom] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    proc.mem.write_bytes(p, &b)?;
    Ok(())
}

fn fill_dev(proc: &Process, d: &DrawCtx, r: Rect, brush: &Brush) -> ApiResult<()> {
    with_raster(proc, d, r, |ras| {
        let r = r.intersect(&ras.area());
        if let Brush::Solid(c) = brush {
            // One colour everywhere: resolved once (FillRect is most of what GDI
            // games draw a frame with).
            let c = d.color(*c);
            for y in r.top..r.bottom {
                ras.fill_span(y, r.left, r.right, c);
            }
            return;
        }
        for y in r.top..r.bottom {
            ras.span(y, r.left, r.right, |x, old| {
                raster::brush_pixel(d, brush, x, y).unwrap_or(old)
            });
        }
    })
}

/// Fills `r` (logical) with a solid COLORREF. False if `hdc` is not a DC.
pub fn fill_rect(proc: &Process, hdc: u32, r: Rect, color: u32) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let r = d.fill_rect_to_dev(r);
    fill_dev(proc, &d, r, &Brush::Solid(color))?;
    Ok(true)
}

/// FillRect: fills `r` with a brush (an object, a stock brush or COLOR_xxx + 1). The
/// right and bottom edges are excluded, as everywhere in GDI.
pub fn fill_rect_brush(proc: &Process, hdc: u32, r: Rect, hbrush: u32) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let Some(b) = objects::brush_of(&proc.gdi32.lock(), hbrush) else {
        return Ok(false);
    };
    let r = d.fill_rect_to_dev(r);
    fill_dev(proc, &d, r, &b)?;
    Ok(true)
}

/// Draws a one-pixel frame just inside `r` in a solid COLORREF.
pub fn frame_rect(proc: &Process, hdc: u32, r: Rect, color: u32) -> ApiResult<bool> {
    frame_rect_with(proc, hdc, r, &Brush::Solid(color))
}

/// FrameRect with a brush handle.
pub fn frame_rect_brush(proc: &Process, hdc: u32, r: Rect, hbrush: u32) -> ApiResult<bool> {
    let Some(b) = objects::brush_of(&proc.gdi32.lock(), hbrush) else {
        return Ok(false);
    };
    frame_rect_with(proc, hdc, r, &b)
}

fn frame_rect_with(proc: &Process, hdc: u32, r: Rect, b: &Brush) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let r = d.fill_rect_to_dev(r);
    if r.is_empty() {
        return Ok(true);
    }
    for side in [
        Rect::new(r.left, r.top, r.right, r.top + 1),
        Rect::new(r.left, r.bottom - 1, r.right, r.bottom),
        Rect::new(r.left, r.top + 1, r.left + 1, r.bottom - 1),
        Rect::new(r.right - 1, r.top + 1, r.right, r.bottom - 1),
    ] {
        fill_dev(proc, &d, side, b)?;
    }
    Ok(true)
}

/// InvertRect: every pixel of `r` becomes its bitwise complement.
pub fn invert_rect(proc: &Process, hdc: u32, r: Rect) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let r = d.fill_rect_to_dev(r);
    with_raster(proc, &d, r, |ras| {
        let r = r.intersect(&ras.area());
        for y in r.top..r.bottom {
            ras.span(y, r.left, r.right, |_, old| !old & 0xff_ffff);
        }
    })?;
    Ok(true)
}

pub const BDR_RAISEDOUTER: u32 = 1;
pub const BDR_SUNKENOUTER: u32 = 2;
pub const BDR_RAISEDINNER: u32 = 4;
pub const BDR_SUNKENINNER: u32 = 8;
pub const EDGE_RAISED: u32 = BDR_RAISEDOUTER | BDR_RAISEDINNER;
pub const EDGE_SUNKEN: u32 = BDR_SUNKENOUTER | BDR_SUNKENINNER;
pub const EDGE_ETCHED: u32 = BDR_SUNKENOUTER | BDR_RAISEDINNER;
pub const EDGE_BUMP: u32 = BDR_RAISEDOUTER | BDR_SUNKENINNER;
pub const BF_LEFT: u32 = 1;
pub const BF_TOP: u32 = 2;
pub const BF_RIGHT: u32 = 4;
pub const BF_BOTTOM: u32 = 8;
pub const BF_RECT: u32 = 15;
pub const BF_DIAGONAL: u32 = 0x10;
pub const BF_MIDDLE: u32 = 0x800;
pub const BF_SOFT: u32 = 0x1000;
pub const BF_ADJUST: u32 = 0x2000;
pub const BF_FLAT: u32 = 0x4000;
pub const BF_MONO: u32 = 0x8000;

/// A Win9x 3-D border two pixels wide (EDGE_RAISED or EDGE_SUNKEN on all four sides).
pub fn draw_edge(proc: &Process, hdc: u32, r: Rect, raised: bool) -> ApiResult<bool> {
    let edge = if raised { EDGE_RAISED } else { EDGE_SUNKEN };
    Ok(draw_edge_ex(proc, hdc, r, edge, BF_RECT)?.is_some())
}

/// DrawEdge: `edge` is BDR_* bits, `flags` BF_*. Returns the rectangle left inside the
/// border (what BF_ADJUST writes back), or None if `hdc` is not a DC.
pub fn draw_edge_ex(
    proc: &Process,
    hdc: u32,
    r: Rect,
    edge: u32,
    flags: u32,
) -> ApiResult<Option<Rect>> {
    if flags & BF_DIAGONAL != 0 {
        return Err(crate::hle::ApiError::UnimplementedCase(
            "DrawEdge with BF_DIAGONAL".into(),
        ));
    }
    if dc::resolve(proc, hdc).is_none() {
        return Ok(None);
    }
    let c = sys_color;
    // (top-left colour, bottom-right colour) of the outer and inner borders.
    let outer = if flags & BF_MONO != 0 {
        Some((c(COLOR_WINDOWFRAME), c(COLOR_WINDOWFRAME)))
    } else if flags & BF_FLAT != 0 {
        Some((c(COLOR_BTNSHADOW), c(COLOR_BTNSHADOW)))
    } else if edge & BDR_RAISEDOUTER != 0 {
        Some(if flags & BF_SOFT != 0 {
            (c(COLOR_BTNHIGHLIGHT), c(COLOR_3DDKSHADOW))
        } else {
            (c(COLOR_3DLIGHT), c(COLOR_3DDKSHADOW))
        })
    } else if edge & BDR_SUNKENOUTER != 0 {
        Some(if flags & BF_SOFT != 0 {
            (c(COLOR_3DDKSHADOW), c(COLOR_BTNHIGHLIGHT))
        } else {
            (c(COLOR_BTNSHADOW), c(COLOR_BTNHIGHLIGHT))
        })
    } else {
        None
    };
    let inner = if flags & (BF_MONO | BF_FLAT) != 0 {
        if edge & (BDR_RAISEDINNER | BDR_SUNKENINNER) != 0 {
            Some((c(COLOR_BTNFACE), c(COLOR_BTNFACE)))
        } else {
            None
        }
    } else if edge & BDR_RAISEDINNER != 0 {
        Some(if flags & BF_SOFT != 0 {
            (c(COLOR_3DLIGHT), c(COLOR_BTNSHADOW))
        } else {
            (c(COLOR_BTNHIGHLIGHT), c(COLOR_BTNSHADOW))
        })
    } else if edge & BDR_SUNKENINNER != 0 {
        Some(if flags & BF_SOFT != 0 {
            (c(COLOR_BTNSHADOW), c(COLOR_3DLIGHT))
        } else {
            (c(COLOR_3DDKSHADOW), c(COLOR_3DLIGHT))
        })
    } else {
        None
    };
    let mut rr = r;
    for (tl, br) in [outer, inner].into_iter().flatten() {
        if rr.is_empty() {
            break;
        }
        // Top and left lines stop one pixel short so the bottom/right colour owns the
        // bottom-left and top-right corners, as on Windows 9x buttons.
        if flags & BF_TOP != 0 {
            fill_rect(
                proc,
                hdc,
                Rect::new(rr.left, rr.top, rr.right - 1, rr.top + 1),
                tl,
            )?;
        }
        if flags & BF_LEFT != 0 {
            fill_rect(
                proc,
                hdc,
                Rect::new(rr.left, rr.top, rr.left + 1, rr.bottom - 1),
                tl,
            )?;
        }
        if flags & BF_BOTTOM != 0 {
            fill_rect(
                proc,
                hdc,
                Rect::new(rr.left, rr.bottom - 1, rr.right, rr.bottom),
                br,
            )?;
        }
        if flags & BF_RIGHT != 0 {
            fill_rect(
                proc,
                hdc,
                Rect::new(rr.right - 1, rr.top, rr.right, rr.bottom),
                br,
            )?;
        }
        rr = Rect::new(
            rr.left + (flags & BF_LEFT != 0) as i32,
            rr.top + (flags & BF_TOP != 0) as i32,
            rr.right - (flags & BF_RIGHT != 0) as i32,
            rr.bottom - (flags & BF_BOTTOM != 0) as i32,
        );
    }
    if flags & BF_MIDDLE != 0 && !rr.is_empty() {
        let face = if flags & BF_MONO != 0 {
            c(COLOR_WINDOW)
        } else {
            c(COLOR_BTNFACE)
        };
        fill_rect(proc, hdc, rr, face)?;
    }
    Ok(Some(if flags & BF_ADJUST != 0 { rr } else { r }))
}

/// TextOut with the DC's font, colours, background mode and alignment.
pub fn text_out(proc: &Process, hdc: u32, x: i32, y: i32, text: &str) -> ApiResult<bool> {
    let t: Vec<char> = text.chars().collect();
    text::text_out_dc(proc, hdc, x, y, &t, TextOpts::default())
}

/// The size of `text` in the DC's font (GetTextExtentPoint32); (0, 0) for a bad DC.
pub fn text_extent(proc: &Process, hdc: u32, text: &str) -> (i32, i32) {
    let t: Vec<char> = text.chars().collect();
    text::text_extent_dc(proc, hdc, &t).unwrap_or((0, 0))
}

pub const DT_TOP: u32 = 0;
pub const DT_LEFT: u32 = 0;
pub const DT_CENTER: u32 = 1;
pub const DT_RIGHT: u32 = 2;
pub const DT_VCENTER: u32 = 4;
pub const DT_BOTTOM: u32 = 8;
pub const DT_WORDBREAK: u32 = 0x10;
pub const DT_SINGLELINE: u32 = 0x20;
pub const DT_EXPANDTABS: u32 = 0x40;
pub const DT_NOCLIP: u32 = 0x100;
pub const DT_EXTERNALLEADING: u32 = 0x200;
pub const DT_CALCRECT: u32 = 0x400;
pub const DT_NOPREFIX: u32 = 0x800;
pub const DT_PATH_ELLIPSIS: u32 = 0x4000;
pub const DT_END_ELLIPSIS: u32 = 0x8000;
pub const DT_WORD_ELLIPSIS: u32 = 0x4_0000;
pub const DT_HIDEPREFIX: u32 = 0x10_0000;
pub const DT_PREFIXONLY: u32 = 0x20_0000;

/// DrawText: returns the height of the text drawn (0 for a bad DC).
pub fn draw_text(proc: &Process, hdc: u32, text: &str, r: Rect, format: u32) -> i32 {
    let mut r = r;
    draw_text_calc(proc, hdc, text, &mut r, format).unwrap_or(0)
}

/// One laid-out line: its characters and the index of the underlined one (& prefix).
struct Line {
    chars: Vec<char>,
    underline: Option<usize>,
}

/// Splits `text` into lines (CR/LF, CRLF, LF) and handles & prefixes.
fn prefix_and_lines(text: &str, format: u32) -> Vec<Line> {
    let mut lines = vec![Line {
        chars: Vec::new(),
        underline: None,
    }];
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        let cur = lines.last_mut().expect("lines is never empty");
        match c {
            '\r' | '\n' if format & DT_SINGLELINE == 0 => {
                if c == '\r' && it.peek() == Some(&'\n') {
                    it.next();
                }
                lines.push(Line {
                    chars: Vec::new(),
                    underline: None,
                });
            }
            '&' if format & DT_NOPREFIX == 0 => match it.next() {
                Some('&') => cur.chars.push('&'),
                Some(n) => {
                    cur.underline = Some(cur.chars.len());
                    cur.chars.push(n);
                }
                None => {}
            },
            c => cur.chars.push(c),
        }
    }
    lines
}

/// DrawText with DT_CALCRECT support: with DT_CALCRECT `r` gets the size the text
/// needs (right and bottom move) and nothing is drawn.
pub fn draw_text_calc(
    proc: &Process,
    hdc: u32,
    text: &str,
    r: &mut Rect,
    format: u32,
) -> ApiResult<i32> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(0);
    };
    let fi = text::font_info(&d.font);
    let extra = d.a.char_extra;
    let line_h = fi.height()
        + if format & DT_EXTERNALLEADING != 0 {
            fi.external_leading
        } else {
            0
        };
    let tab_w = 8 * fi.ave_width.max(1);
    let width_of = |cs: &[char]| -> i32 {
        let mut w = 0;
        for &c in cs {
            if c == '\t' && format & DT_EXPANDTABS != 0 {
                w = (w / tab_w + 1) * tab_w;
            } else {
                w += text::advance(&fi, c) + extra;
            }
        }
        w
    };
    // Word wrapping: break at spaces so that lines fit the rectangle's width.
    let mut lines = Vec::new();
    for l in prefix_and_lines(text, format) {
        if format & DT_WORDBREAK == 0 || format & DT_SINGLELINE != 0 {
            lines.push(l);
            continue;
        }
        let maxw = r.width();
        let mut start = 0;
        let n = l.chars.len();
        while start < n {
            let mut end = n;
            if width_of(&l.chars[start..]) > maxw {
                // The last space that keeps the line inside; a word longer than the
                // line stays whole on its own line.
                let mut best = None;
                for i in start + 1..=n {
                    if (i == n || l.chars[i] == ' ') && width_of(&l.chars[start..i]) <= maxw {
                        best = Some(i);
                    }
                }
                end = best
                    .unwrap_or_else(|| (start + 1..n).find(|&i| l.chars[i] == ' ').unwrap_or(n));
            }
            let u = l
                .underline
                .filter(|&u| u >= start && u < end)
                .map(|u| u - start);
            lines.push(Line {
                chars: l.chars[start..end].to_vec(),
                underline: u,
            });
            start = end;
            while start < n && l.chars[start] == ' ' {
                start += 1;
            }
        }
        if n == 0 {
            lines.push(l);
        }
    }
    if format & (DT_END_ELLIPSIS | DT_PATH_ELLIPSIS | DT_WORD_ELLIPSIS) != 0 {
        // Lines too wide for the rectangle end in "..." after as many characters as
        // fit (path ellipses are shortened at the end too).
        let maxw = r.width();
        for l in &mut lines {
            if width_of(&l.chars) <= maxw {
                continue;
            }
            let dots = width_of(&['.', '.', '.']);
            while !l.chars.is_empty() && width_of(&l.chars) + dots > maxw {
                l.chars.pop();
            }
            if l.underline.is_some_and(|u| u >= l.chars.len()) {
                l.underline = None;
            }
            l.chars.extend(['.', '.', '.']);
        }
    }
    let total_h = line_h * lines.len() as i32;
    if format & DT_CALCRECT != 0 {
        let maxw = lines.iter().map(|l| width_of(&l.chars)).max().unwrap_or(0);
        r.right = r.left + maxw;
        r.bottom = r.top + total_h;
        return Ok(total_h);
    }
    let mut y = r.top;
    if format & DT_SINGLELINE != 0 {
        if format & DT_VCENTER != 0 {
            y = r.top + (r.height() - line_h) / 2;
        } else if format & DT_BOTTOM != 0 {
            y = r.bottom - line_h;
        }
    }
    let first_y = y;
    // DrawText positions lines itself: it draws with left/top alignment whatever the
    // DC's text alignment says.
    let saved_align = dc::with_attrs(proc, hdc, |a| std::mem::replace(&mut a.text_align, 0));
    let clip = if format & DT_NOCLIP != 0 {
        None
    } else {
        Some(*r)
    };
    let fg = d.color(d.a.text_color);
    let mut result = Ok(());
    for l in &lines {
        // Expand tabs into positions.
        let mut dx = Vec::with_capacity(l.chars.len());
        let mut shown = Vec::with_capacity(l.chars.len());
        let mut w = 0;
        for &c in &l.chars {
            let before = w;
            if c == '\t' && format & DT_EXPANDTABS != 0 {
                w = (w / tab_w + 1) * tab_w;
                shown.push(' ');
            } else {
                w += text::advance(&fi, c) + extra;
                shown.push(c);
            }
            dx.push(w - before);
        }
        let x = match format & 3 {
            DT_CENTER => r.left + (r.width() - w) / 2,
            DT_RIGHT => r.right - w,
            _ => r.left,
        };
        if format & DT_PREFIXONLY == 0 {
            let o = TextOpts {
                opaque: None,
                clipped: clip,
                dx: Some(&dx),
            };
            if let Err(e) = text::text_out_dc(proc, hdc, x, y, &shown, o) {
                result = Err(e);
                break;
            }
        }
        if let Some(u) = l.underline
            && format & DT_HIDEPREFIX == 0
        {
            let ux: i32 = x + dx[..u].iter().sum::<i32>();
            let uw = dx[u];
            let uy = y + fi.ascent + 1;
            let ur = Rect::new(ux, uy, ux + uw, uy + 1);
            let ur = match clip {
                Some(c) => ur.intersect(&c),
                None => ur,
            };
            if let Err(e) = fill_rect(proc, hdc, ur, objects::rgb_to_cr(fg)) {
                result = Err(e);
                break;
            }
        }
        y += line_h;
    }
    if let Some(a) = saved_align {
        dc::with_attrs(proc, hdc, |at| at.text_align = a);
    }
    result?;
    Ok(
        if format & (DT_VCENTER | DT_BOTTOM) != 0 && format & DT_SINGLELINE != 0 {
            // Windows returns the offset of the bottom of the text from the top.
            first_y - r.top + total_h
        } else {
            total_h
        },
    )
}
