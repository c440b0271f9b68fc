//! Fonts and text: LOGFONTs realised with the bundled Liberation fonts (metric-
//! compatible with Arial, Times New Roman and Courier New), rasterised by fontdue.
//!
//! Glyphs are anti-aliased: the Liberation outlines carry no hints fontdue could
//! use, and unhinted outlines thresholded to one bit at 8-pt sizes lose or double
//! their stems. Blending is integer arithmetic on fontdue's coverage, which is itself
//! deterministic, so the same text gives the same pixels on every run and host.
//! Monochrome targets get the coverage thresholded at one half.

use super::dc::{self, OPAQUE};
use super::objects::{LogFont, Obj};
use super::raster::{Raster, with_raster};
use super::surface::Rect;
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr, stdcall};
use crate::kernel32::string::{decode_ansi, encode_ansi, read_ansi, read_wstr};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const FONT_FILES: [&[u8]; 6] = [
    include_bytes!("../../../../assets/fonts/LiberationSans-Regular.ttf"),
    include_bytes!("../../../../assets/fonts/LiberationSans-Bold.ttf"),
    include_bytes!("../../../../assets/fonts/LiberationSerif-Regular.ttf"),
    include_bytes!("../../../../assets/fonts/LiberationSerif-Bold.ttf"),
    include_bytes!("../../../../assets/fonts/LiberationMono-Regular.ttf"),
    include_bytes!("../../../../assets/fonts/LiberationMono-Bold.ttf"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Sans,
    Serif,
    Mono,
}

fn fonts() -> &'static Vec<Option<fontdue::Font>> {
    static F: OnceLock<Vec<Option<fontdue::Font>>> = OnceLock::new();
    F.get_or_init(|| {
        FONT_FILES
            .iter()
            .map(|b| fontdue::Font::from_bytes(*b, fontdue::FontSettings::default()).ok())
            .collect()
    })
}

type GlyphKey = (usize, u32, u32, char);
type Glyph = (fontdue::Metrics, Vec<u8>);

fn glyph_cache() -> &'static Mutex<HashMap<GlyphKey, std::sync::Arc<Glyph>>> {
    static C: OnceLock<Mutex<HashMap<GlyphKey, std::sync::Arc<Glyph>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// A LOGFONT realised: which bundled font at which size, and its TEXTMETRIC numbers.
#[derive(Clone, Debug)]
pub struct FontInfo {
    pub file: usize,
    pub family: Family,
    /// Em size in pixels.
    pub em: f32,
    /// Horizontal scale for a LOGFONT that asks for an average character width.
    pub xscale: f32,
    pub ascent: i32,
    pub descent: i32,
    pub internal_leading: i32,
    pub external_leading: i32,
    pub ave_width: i32,
    pub max_width: i32,
    pub weight: i32,
    pub italic: bool,
    pub underline: bool,
    pub strikeout: bool,
    pub face: String,
    pub charset: u8,
}

impl FontInfo {
    pub fn height(&self) -> i32 {
        self.ascent + self.descent
    }
}

fn family_of(lf: &LogFont) -> Family {
    let f = lf.face.to_ascii_lowercase();
    let has = |w: &[&str]| w.iter().any(|s| f.contains(s));
    if has(&[
        "courier", "fixedsys", "terminal", "console", "mono", "fixed",
    ]) {
        Family::Mono
    } else if has(&["times", "roman", "georgia", "garamond"])
        || (f.contains("serif") && !f.contains("sans"))
    {
        Family::Serif
    } else if !f.is_empty() {
        Family::Sans
    } else if lf.pitch_and_family & 3 == 1 || lf.pitch_and_family & 0xf0 == 0x30 {
        // FIXED_PITCH or FF_MODERN.
        Family::Mono
    } else if lf.pitch_and_family & 0xf0 == 0x10 {
        // FF_ROMAN.
        Family::Serif
    } else {
        Family::Sans
    }
}

/// Realises a LOGFONT.
pub fn font_info(lf: &LogFont) -> FontInfo {
    let family = family_of(lf);
    let bold = lf.weight >= 600;
    let file = match family {
        Family::Sans => 0,
        Family::Serif => 2,
        Family::Mono => 4,
    } + bold as usize;
    let (asc1, desc1, gap1) = fonts()[file]
        .as_ref()
        .and_then(|f| f.horizontal_line_metrics(1.0))
        .map(|m| (m.ascent, -m.descent, m.line_gap))
        .unwrap_or((0.905, 0.212, 0.033));
    // Positive heights are cell heights (ascent + descent), negative ones em heights;
    // 0 asks for the default size (12 pt at 96 dpi).
    let (em, ascent, descent) = if lf.height > 0 {
        let h = lf.height;
        let em = h as f32 / (asc1 + desc1);
        let ascent = (asc1 * em).round() as i32;
        (em, ascent, h - ascent)
    } else {
        let em = if lf.height == 0 {
            16.0
        } else {
            -lf.height as f32
        };
        (em, (asc1 * em).round() as i32, (desc1 * em).round() as i32)
    };
    let em = em.clamp(1.0, 1000.0);
    let mut fi = FontInfo {
        file,
        family,
        em,
        xscale: 1.0,
        ascent,
        descent,
        internal_leading: (ascent + descent - em.round() as i32).max(0),
        external_leading: (gap1 * em).round() as i32,
        ave_width: 0,
        max_width: 0,
        weight: if lf.weight == 0 { 400 } else { lf.weight },
        italic: lf.italic != 0,
        underline: lf.underline != 0,
        strikeout: lf.strikeout != 0,
        face: if lf.face.is_empty() {
            match family {
                Family::Sans => "Arial",
                Family::Serif => "Times New Roman",
                Family::Mono => "Courier New",
            }
            .to_string()
        } else {
            lf.face.clone()
        },
        charset: lf.charset,
    };
    fi.ave_width = advance(&fi, 'x');
    if lf.width > 0 && fi.ave_width > 0 {
        fi.xscale = (lf.width as f32 / fi.ave_width as f32).clamp(0.05, 20.0);
        fi.ave_width = advance(&fi, 'x');
    }
    fi.max_width = (' '..='~').map(|c| advance(&fi, c)).max().unwrap_or(0);
    fi
}

/// A character's advance in whole pixels (each glyph rounds on its own, as GDI's
/// integer widths do, so the extent of a string is the sum of its characters').
pub fn advance(fi: &FontInfo, c: char) -> i32 {
    match fonts()[fi.file].as_ref() {
        Some(f) => (f.metrics(map_char(c), fi.em).advance_width * fi.xscale).round() as i32,
        None => 0,
    }
}

/// Control characters draw as nothing, like the blank glyphs Windows fonts have there.
fn map_char(c: char) -> char {
    if (c as u32) < 0x20 { ' ' } else { c }
}

fn glyph(fi: &FontInfo, c: char) -> Option<std::sync::Arc<Glyph>> {
    let key = (fi.file, fi.em.to_bits(), fi.xscale.to_bits(), c);
    if let Some(g) = glyph_cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
    {
        return Some(g.clone());
    }
    let f = fonts()[fi.file].as_ref()?;
    let (mut m, cov) = f.rasterize(map_char(c), fi.em);
    let cov = if fi.xscale == 1.0 || m.width == 0 {
        cov
    } else {
        // Stretch the glyph horizontally by nearest-neighbour resampling.
        let nw = ((m.width as f32 * fi.xscale).round() as usize).max(1);
        let mut out = vec![0u8; nw * m.height];
        for y in 0..m.height {
            for x in 0..nw {
                let sx = ((x as f32 + 0.5) / fi.xscale) as usize;
                out[y * nw + x] = cov[y * m.width + sx.min(m.width - 1)];
            }
        }
        m.xmin = (m.xmin as f32 * fi.xscale).round() as i32;
        m.width = nw;
        out
    };
    let g = std::sync::Arc::new((m, cov));
    glyph_cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, g.clone());
    Some(g)
}

/// A glyph's outline in em units (the em square is 1 x 1), y up from the
/// baseline, x from the glyph's origin: what wglUseFontOutlines builds its display
/// lists from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outline {
    /// Closed contours with curves flattened to lines (the last point joins the
    /// first; TrueType's orientation: filled areas clockwise, holes anticlockwise).
    pub contours: Vec<Vec<[f32; 2]>>,
    /// The advance to the next glyph's origin.
    pub advance: f32,
    /// xmin, ymin, xmax, ymax of the points, or None for a blank glyph.
    pub bbox: Option<[f32; 4]>,
}

/// Collects a glyph's contours, flattening curves so that no point of a curve is
/// further than `tol` font units from its chords.
struct Flatten {
    tol: f32,
    contours: Vec<Vec<[f32; 2]>>,
    at: [f32; 2],
}

impl Flatten {
    fn point(&mut self, p: [f32; 2]) {
        if let Some(c) = self.contours.last_mut()
            && c.last() != Some(&p)
        {
            c.push(p);
        }
        self.at = p;
    }

    /// Segments for a curve whose second differences are at most `dd` long: the
    /// chord error of n uniform steps is dd / (8 n^2).
    fn steps(&self, dd: f32) -> u32 {
        ((dd / (8.0 * self.tol)).sqrt().ceil() as u32).clamp(1, 64)
    }
}

fn len(a: [f32; 2]) -> f32 {
    (a[0] * a[0] + a[1] * a[1]).sqrt()
}

impl ttf_parser::OutlineBuilder for Flatten {
    fn move_to(&mut self, x: f32, y: f32) {
        self.contours.push(vec![[x, y]]);
        self.at = [x, y];
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.point([x, y]);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let p0 = self.at;
        let n = self.steps(len([p0[0] - 2.0 * x1 + x, p0[1] - 2.0 * y1 + y]));
        for k in 1..=n {
            let t = k as f32 / n as f32;
            let u = 1.0 - t;
            self.point([
                u * u * p0[0] + 2.0 * u * t * x1 + t * t * x,
                u * u * p0[1] + 2.0 * u * t * y1 + t * t * y,
            ]);
        }
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let p0 = self.at;
        let dd = len([p0[0] - 2.0 * x1 + x2, p0[1] - 2.0 * y1 + y2])
            .max(len([x1 - 2.0 * x2 + x, y1 - 2.0 * y2 + y]));
        let n = self.steps(6.0 * dd);
        for k in 1..=n {
            let t = k as f32 / n as f32;
            let u = 1.0 - t;
            let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
            self.point([
                a * p0[0] + b * x1 + c * x2 + d * x,
                a * p0[1] + b * y1 + c * y2 + d * y,
            ]);
        }
    }
    fn close(&mut self) {
        if let Some(c) = self.contours.last_mut() {
            while c.len() > 1 && c.last() == c.first() {
                c.pop();
            }
        }
    }
}

/// The outline of character `c` in bundled font `file` (a [`FontInfo::file`]),
/// curves flattened to within `deviation` em (0: one design unit, as
/// wglUseFontOutlines documents). A character the font lacks has its missing
/// glyph's outline; control characters are blank, as in text output.
pub fn glyph_outline(file: usize, c: char, deviation: f32) -> Option<Outline> {
    let face = ttf_parser::Face::parse(FONT_FILES.get(file)?, 0).ok()?;
    let upem = f32::from(face.units_per_em().max(1));
    let id = face
        .glyph_index(map_char(c))
        .unwrap_or(ttf_parser::GlyphId(0));
    let mut f = Flatten {
        tol: (deviation * upem).max(1.0),
        contours: Vec::new(),
        at: [0.0; 2],
    };
    face.outline_glyph(id, &mut f);
    let contours: Vec<Vec<[f32; 2]>> = f
        .contours
        .into_iter()
        .filter(|c| c.len() >= 3)
        .map(|c| c.into_iter().map(|p| [p[0] / upem, p[1] / upem]).collect())
        .collect();
    let bbox = contours
        .iter()
        .flatten()
        .fold(None, |b: Option<[f32; 4]>, p| {
            Some(match b {
                None => [p[0], p[1], p[0], p[1]],
                Some(b) => [
                    b[0].min(p[0]),
                    b[1].min(p[1]),
                    b[2].max(p[0]),
                    b[3].max(p[1]),
                ],
            })
        });
    Some(Outline {
        contours,
        advance: f32::from(face.glyph_hor_advance(id).unwrap_or(0)) / upem,
        bbox,
    })
}

/// Width of a string: advances plus the DC's inter-character spacing.
pub fn extent(fi: &FontInfo, text: &[char], char_extra: i32) -> i32 {
    text.iter().map(|&c| advance(fi, c) + char_extra).sum()
}

fn blend(bg: u32, fg: u32, a: u32) -> u32 {
    let ch = |s: u32| {
        let (b, f) = ((bg >> s) & 0xff, (fg >> s) & 0xff);
        ((f * a + b * (255 - a) + 127) / 255) << s
    };
    ch(16) | ch(8) | ch(0)
}

/// Draws glyphs with their left edges at `xs` (device coordinates) on `baseline`.
pub fn draw_glyphs(
    r: &mut Raster,
    fi: &FontInfo,
    text: &[char],
    xs: &[i32],
    baseline: i32,
    color: u32,
    mono: bool,
) {
    for (i, &c) in text.iter().enumerate() {
        let Some(g) = glyph(fi, c) else { continue };
        let (m, cov) = (&g.0, &g.1);
        let y0 = baseline - (m.ymin + m.height as i32);
        for gy in 0..m.height {
            let y = y0 + gy as i32;
            // No italic faces are bundled: italics are the upright glyphs slanted by
            // shifting each row (about 12 degrees, like an oblique face).
            let slant = if fi.italic {
                ((baseline - y) as f32 * 0.21).round() as i32
            } else {
                0
            };
            let x0 = xs[i] + m.xmin + slant;
            let row = &cov[gy * m.width..(gy + 1) * m.width];
            r.span(y, x0, x0 + m.width as i32, |x, old| {
                let a = row[(x - x0) as usize] as u32;
                if mono {
                    if a >= 128 { color } else { old }
                } else {
                    blend(old, color, a)
                }
            });
        }
    }
    let total = xs.last().copied().unwrap_or(0) + text.last().map(|&c| advance(fi, c)).unwrap_or(0);
    let left = xs.first().copied().unwrap_or(0);
    let thick = (fi.em / 14.0).round().max(1.0) as i32;
    let mut line = |y: i32| {
        for t in 0..thick {
            r.span(y + t, left, total, |_, _| color);
        }
    };
    if fi.underline {
        line(baseline + (fi.descent / 2).max(1));
    }
    if fi.strikeout {
        line(baseline - fi.ascent / 3);
    }
}

/// Text placement options of ExtTextOut.
#[derive(Default, Clone, Copy)]
pub struct TextOpts<'a> {
    /// ETO_OPAQUE: this rectangle (logical) is filled with the background colour.
    pub opaque: Option<Rect>,
    /// ETO_CLIPPED: text is clipped to this rectangle (logical).
    pub clipped: Option<Rect>,
    /// Per-character advances (lpDx).
    pub dx: Option<&'a [i32]>,
}

const TA_UPDATECP: u32 = 1;
const TA_RIGHT: u32 = 2;
const TA_CENTER: u32 = 6;
const TA_BOTTOM: u32 = 8;
const TA_BASELINE: u32 = 24;

/// TextOut/ExtTextOut on a DC: honours the text alignment, background mode and
/// colours, the current position (TA_UPDATECP) and the clip.
pub fn text_out_dc(
    proc: &Process,
    hdc: u32,
    x: i32,
    y: i32,
    text: &[char],
    o: TextOpts,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let fi = font_info(&d.font);
    let extra = d.a.char_extra;
    // The font, the advances and the alignment are all in device units: the
    // reference point is mapped, and the text is laid out from it on the device.
    let advances: Vec<i32> = match o.dx {
        Some(dx) => (0..text.len())
            .map(|i| d.width_to_dev(dx.get(i).copied().unwrap_or(0)))
            .collect(),
        None => text
            .iter()
            .map(|&c| advance(&fi, c) + d.width_to_dev(extra))
            .collect(),
    };
    let width: i32 = advances.iter().sum();
    let align = d.a.text_align;
    let (x, y) = if align & TA_UPDATECP != 0 {
        d.a.pos
    } else {
        (x, y)
    };
    let (rx, ry) = d.to_dev(x, y);
    let dl = match align & TA_CENTER {
        TA_RIGHT => rx - width,
        TA_CENTER => rx - width / 2,
        _ => rx,
    };
    let dt = match align & TA_BASELINE {
        TA_BASELINE => ry - fi.ascent,
        TA_BOTTOM => ry - fi.height(),
        _ => ry,
    };
    if align & TA_UPDATECP != 0 {
        let nx = match align & TA_CENTER {
            TA_RIGHT => rx - width,
            TA_CENTER => rx,
            _ => rx + width,
        };
        let (lx, _) = d.to_log(nx, ry);
        dc::with_attrs(proc, hdc, |a| a.pos = (lx, y));
    }
    let mut xs = Vec::with_capacity(text.len());
    let mut cx = dl;
    for a in &advances {
        xs.push(cx);
        cx += a;
    }
    let cell = Rect::new(dl, dt, dl + width, dt + fi.height());
    // Glyphs can reach past the advances (lpDx smaller than the glyphs, or zero, as
    // in some metafiles' text records): the drawing area covers every glyph.
    let reach = fi.max_width.max(1);
    let mut bounds = match (xs.iter().min(), xs.iter().max()) {
        (Some(&lo), Some(&hi)) => Rect::new(
            cell.left.min(lo),
            cell.top,
            cell.right.max(hi + reach),
            cell.bottom,
        ),
        _ => cell,
    };
    if let Some(r) = o.opaque {
        let r = d.rect_to_dev(r);
        bounds = Rect::new(
            bounds.left.min(r.left),
            bounds.top.min(r.top),
            bounds.right.max(r.right),
            bounds.bottom.max(r.bottom),
        );
    }
    if let Some(c) = o.clipped {
        bounds = bounds.intersect(&d.rect_to_dev(c));
    }
    let bk = d.color(d.a.bk_color);
    let fg = d.color(d.a.text_color);
    let clip = o.clipped.map(|c| d.rect_to_dev(c));
    let opaque = o.opaque.map(|c| d.rect_to_dev(c));
    with_raster(proc, &d, bounds, |r| {
        if let Some(op) = opaque {
            let op = match clip {
                Some(c) => op.intersect(&c),
                None => op,
            }
            .intersect(&r.area());
            for yy in op.top..op.bottom {
                r.span(yy, op.left, op.right, |_, _| bk);
            }
        }
        if d.a.bk_mode == OPAQUE {
            let c = match clip {
                Some(c) => cell.intersect(&c),
                None => cell,
            }
            .intersect(&r.area());
            for yy in c.top..c.bottom {
                r.span(yy, c.left, c.right, |_, _| bk);
            }
        }
        draw_glyphs(r, &fi, text, &xs, dt + fi.ascent, fg, d.mono);
    })?;
    Ok(true)
}

/// The extent of `text` in the DC's font: (width, height).
pub fn text_extent_dc(proc: &Process, hdc: u32, text: &[char]) -> Option<(i32, i32)> {
    let d = dc::resolve(proc, hdc)?;
    let fi = font_info(&d.font);
    let w = extent(&fi, text, d.width_to_dev(d.a.char_extra));
    Some((d.width_to_log(w), d.height_to_log(fi.height())))
}

/// The font a DC has selected, realised.
pub fn dc_font(proc: &Process, hdc: u32) -> Option<FontInfo> {
    let g = proc.gdi32.lock();
    let d = g.dcs.get(&hdc)?;
    match g.objs.get(&d.a.font) {
        Some(Obj::Font(f)) => Some(font_info(f)),
        _ => None,
    }
}

// ---- API ----------------------------------------------------------------------------

/// Longest string the text calls take (a runaway count stops here, not in an
/// allocation of gigabytes).
const MAX_TEXT: i32 = 1 << 20;

fn chars_a(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<char>> {
    if n <= 0 {
        return Ok(Vec::new());
    }
    if n > MAX_TEXT {
        return Err(ApiError::Other(format!("text of {n} characters")));
    }
    let mut b = vec![0u8; n as usize];
    proc.mem.read_bytes(p, &mut b)?;
    Ok(decode_ansi(&b).chars().collect())
}

fn chars_w(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<char>> {
    if n <= 0 {
        return Ok(Vec::new());
    }
    if n > MAX_TEXT {
        return Err(ApiError::Other(format!("text of {n} characters")));
    }
    let mut b = vec![0u8; n as usize * 2];
    proc.mem.read_bytes(p, &mut b)?;
    let u: Vec<u16> = b
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    // One char per UTF-16 unit keeps lpDx and the fit counts in units, as Windows.
    Ok(u.iter()
        .map(|&u| char::from_u32(u as u32).unwrap_or('\u{fffd}'))
        .collect())
}

pub fn TextOutA(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lpString: Ptr, c: i32) -> ApiResult<bool> {
    let t = chars_a(cx.proc, lpString.0, c)?;
    text_out_dc(cx.proc, hdc, x, y, &t, TextOpts::default())
}

pub fn TextOutW(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lpString: Ptr, c: i32) -> ApiResult<bool> {
    let t = chars_w(cx.proc, lpString.0, c)?;
    text_out_dc(cx.proc, hdc, x, y, &t, TextOpts::default())
}

const ETO_OPAQUE: u32 = 2;
const ETO_CLIPPED: u32 = 4;
const ETO_GLYPH_INDEX: u32 = 0x10;

fn ext_text_out(
    cx: &mut Ctx,
    hdc: u32,
    x: i32,
    y: i32,
    options: u32,
    lprect: Ptr,
    text: Vec<char>,
    lpDx: Ptr,
) -> ApiResult<bool> {
    if options & ETO_GLYPH_INDEX != 0 {
        return Err(ApiError::UnimplementedCase(
            "ExtTextOut with ETO_GLYPH_INDEX".into(),
        ));
    }
    let rect = if lprect.is_null() {
        None
    } else {
        Some(super::paint::read_rect(cx.proc, lprect.0)?)
    };
    let dx = if lpDx.is_null() {
        None
    } else {
        let mut v = Vec::with_capacity(text.len());
        for i in 0..text.len() as u32 {
            v.push(cx.proc.mem.read_u32(lpDx.0 + 4 * i)? as i32);
        }
        Some(v)
    };
    let o = TextOpts {
        opaque: rect.filter(|_| options & ETO_OPAQUE != 0),
        clipped: rect.filter(|_| options & ETO_CLIPPED != 0),
        dx: dx.as_deref(),
    };
    text_out_dc(cx.proc, hdc, x, y, &text, o)
}

pub fn ExtTextOutA(
    cx: &mut Ctx,
    hdc: u32,
    x: i32,
    y: i32,
    options: u32,
    lprect: Ptr,
    lpString: Ptr,
    c: u32,
    lpDx: Ptr,
) -> ApiResult<bool> {
    let t = chars_a(cx.proc, lpString.0, c as i32)?;
    ext_text_out(cx, hdc, x, y, options, lprect, t, lpDx)
}

pub fn ExtTextOutW(
    cx: &mut Ctx,
    hdc: u32,
    x: i32,
    y: i32,
    options: u32,
    lprect: Ptr,
    lpString: Ptr,
    c: u32,
    lpDx: Ptr,
) -> ApiResult<bool> {
    let t = chars_w(cx.proc, lpString.0, c as i32)?;
    ext_text_out(cx, hdc, x, y, options, lprect, t, lpDx)
}

fn put_size(proc: &Process, p: Ptr, w: i32, h: i32) -> ApiResult<()> {
    proc.mem.write_u32(p.0, w as u32)?;
    proc.mem.write_u32(p.0 + 4, h as u32)?;
    Ok(())
}

fn extent_point(cx: &mut Ctx, hdc: u32, t: &[char], psizl: Ptr) -> ApiResult<bool> {
    match text_extent_dc(cx.proc, hdc, t) {
        Some((w, h)) => {
            put_size(cx.proc, psizl, w, h)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

pub fn GetTextExtentPoint32A(
    cx: &mut Ctx,
    hdc: u32,
    lpString: Ptr,
    c: i32,
    psizl: Ptr,
) -> ApiResult<bool> {
    let t = chars_a(cx.proc, lpString.0, c)?;
    extent_point(cx, hdc, &t, psizl)
}

pub fn GetTextExtentPoint32W(
    cx: &mut Ctx,
    hdc: u32,
    lpString: Ptr,
    c: i32,
    psizl: Ptr,
) -> ApiResult<bool> {
    let t = chars_w(cx.proc, lpString.0, c)?;
    extent_point(cx, hdc, &t, psizl)
}

fn extent_ex(
    cx: &mut Ctx,
    hdc: u32,
    t: &[char],
    nMaxExtent: i32,
    lpnFit: Ptr,
    lpnDx: Ptr,
    lpSize: Ptr,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let fi = font_info(&d.font);
    let mut sum = 0;
    let mut fit = 0;
    let mut fitting = true;
    // Measured on the device, answered in logical units.
    let extra = d.width_to_dev(d.a.char_extra);
    let mut dev_sum = 0;
    for (i, &c) in t.iter().enumerate() {
        dev_sum += advance(&fi, c) + extra;
        sum = d.width_to_log(dev_sum);
        if fitting && (nMaxExtent < 0 || sum <= nMaxExtent) {
            fit = i + 1;
        } else {
            fitting = false;
        }
        if !lpnDx.is_null() {
            cx.proc.mem.write_u32(lpnDx.0 + 4 * i as u32, sum as u32)?;
        }
    }
    if !lpnFit.is_null() {
        cx.proc.mem.write_u32(lpnFit.0, fit as u32)?;
    }
    put_size(cx.proc, lpSize, sum, d.height_to_log(fi.height()))?;
    Ok(true)
}

pub fn GetTextExtentExPointA(
    cx: &mut Ctx,
    hdc: u32,
    lpszString: Ptr,
    cchString: i32,
    nMaxExtent: i32,
    lpnFit: Ptr,
    lpnDx: Ptr,
    lpSize: Ptr,
) -> ApiResult<bool> {
    let t = chars_a(cx.proc, lpszString.0, cchString)?;
    extent_ex(cx, hdc, &t, nMaxExtent, lpnFit, lpnDx, lpSize)
}

pub fn GetTextExtentExPointW(
    cx: &mut Ctx,
    hdc: u32,
    lpszString: Ptr,
    cchString: i32,
    nMaxExtent: i32,
    lpnFit: Ptr,
    lpnDx: Ptr,
    lpSize: Ptr,
) -> ApiResult<bool> {
    let t = chars_w(cx.proc, lpszString.0, cchString)?;
    extent_ex(cx, hdc, &t, nMaxExtent, lpnFit, lpnDx, lpSize)
}

/// TEXTMETRIC bytes (A: 56 bytes with byte characters; W: 60 with WCHARs).
fn text_metrics(fi: &FontInfo, wide: bool) -> Vec<u8> {
    let mut b = Vec::with_capacity(60);
    for v in [
        fi.height(),
        fi.ascent,
        fi.descent,
        fi.internal_leading,
        fi.external_leading,
        fi.ave_width,
        fi.max_width,
        fi.weight,
        0, // tmOverhang
        96,
        96,
    ] {
        b.extend_from_slice(&(v as u32).to_le_bytes());
    }
    // First, last, default and break characters.
    if wide {
        for c in [0x20u16, 0xfffc, 0x1f, 0x20] {
            b.extend_from_slice(&c.to_le_bytes());
        }
    } else {
        b.extend_from_slice(&[0x20, 0xff, 0x1f, 0x20]);
    }
    // TMPF_FIXED_PITCH is set for *variable* pitch fonts (the name is historical);
    // all bundled fonts are TrueType vector fonts.
    let pitch = if fi.family == Family::Mono { 0 } else { 1 };
    let family = match fi.family {
        Family::Sans => 0x20,
        Family::Serif => 0x10,
        Family::Mono => 0x30,
    };
    b.extend_from_slice(&[
        fi.italic as u8,
        fi.underline as u8,
        fi.strikeout as u8,
        pitch | 2 | 4 | family,
        fi.charset,
    ]);
    // Structure padding to a 4-byte multiple.
    while b.len() % 4 != 0 {
        b.push(0);
    }
    b
}

fn get_text_metrics(cx: &mut Ctx, hdc: u32, lptm: Ptr, wide: bool) -> ApiResult<bool> {
    let Some(fi) = dc_font(cx.proc, hdc) else {
        return Ok(false);
    };
    cx.proc.mem.write_bytes(lptm.0, &text_metrics(&fi, wide))?;
    Ok(true)
}

pub fn GetTextMetricsA(cx: &mut Ctx, hdc: u32, lptm: Ptr) -> ApiResult<bool> {
    get_text_metrics(cx, hdc, lptm, false)
}

pub fn GetTextMetricsW(cx: &mut Ctx, hdc: u32, lptm: Ptr) -> ApiResult<bool> {
    get_text_metrics(cx, hdc, lptm, true)
}

pub fn GetTextFaceA(cx: &mut Ctx, hdc: u32, c: i32, lpName: Ptr) -> ApiResult<i32> {
    let Some(fi) = dc_font(cx.proc, hdc) else {
        return Ok(0);
    };
    let a = encode_ansi(&fi.face);
    if lpName.is_null() {
        return Ok(a.len() as i32 + 1);
    }
    Ok(crate::kernel32::string::copy_truncated_a(cx.proc, lpName.0, c.max(0) as u32, &a)? as i32)
}

pub fn GetTextFaceW(cx: &mut Ctx, hdc: u32, c: i32, lpName: Ptr) -> ApiResult<i32> {
    let Some(fi) = dc_font(cx.proc, hdc) else {
        return Ok(0);
    };
    let w: Vec<u16> = fi.face.encode_utf16().collect();
    if lpName.is_null() {
        return Ok(w.len() as i32 + 1);
    }
    Ok(crate::kernel32::string::copy_truncated_w(cx.proc, lpName.0, c.max(0) as u32, &w)? as i32)
}

fn char_widths(
    cx: &mut Ctx,
    hdc: u32,
    first: u32,
    last: u32,
    out: Ptr,
    wide: bool,
) -> ApiResult<bool> {
    let Some(fi) = dc_font(cx.proc, hdc) else {
        return Ok(false);
    };
    if last < first || last - first > 0x10000 {
        return Ok(false);
    }
    for (i, code) in (first..=last).enumerate() {
        let c = if wide {
            char::from_u32(code).unwrap_or(' ')
        } else {
            decode_ansi(&[code as u8]).chars().next().unwrap_or(' ')
        };
        cx.proc
            .mem
            .write_u32(out.0 + 4 * i as u32, advance(&fi, c) as u32)?;
    }
    Ok(true)
}

pub fn GetCharWidth32A(
    cx: &mut Ctx,
    hdc: u32,
    iFirst: u32,
    iLast: u32,
    lpBuffer: Ptr,
) -> ApiResult<bool> {
    char_widths(cx, hdc, iFirst, iLast, lpBuffer, false)
}

pub fn GetCharWidth32W(
    cx: &mut Ctx,
    hdc: u32,
    iFirst: u32,
    iLast: u32,
    lpBuffer: Ptr,
) -> ApiResult<bool> {
    char_widths(cx, hdc, iFirst, iLast, lpBuffer, true)
}

fn abc_widths(
    cx: &mut Ctx,
    hdc: u32,
    first: u32,
    last: u32,
    out: Ptr,
    wide: bool,
) -> ApiResult<bool> {
    let Some(fi) = dc_font(cx.proc, hdc) else {
        return Ok(false);
    };
    if last < first || last - first > 0x10000 {
        return Ok(false);
    }
    let Some(font) = fonts()[fi.file].as_ref() else {
        return Ok(false);
    };
    for (i, code) in (first..=last).enumerate() {
        let c = if wide {
            char::from_u32(code).unwrap_or(' ')
        } else {
            decode_ansi(&[code as u8]).chars().next().unwrap_or(' ')
        };
        let m = font.metrics(map_char(c), fi.em);
        // ABC: left bearing, ink width, right bearing; they add up to the advance.
        let adv = advance(&fi, c);
        let (a, b) = (m.xmin, m.width as i32);
        let o = out.0 + 12 * i as u32;
        cx.proc.mem.write_u32(o, a as u32)?;
        cx.proc.mem.write_u32(o + 4, b as u32)?;
        cx.proc.mem.write_u32(o + 8, (adv - a - b) as u32)?;
    }
    Ok(true)
}

pub fn GetCharABCWidthsA(
    cx: &mut Ctx,
    hdc: u32,
    wFirst: u32,
    wLast: u32,
    lpABC: Ptr,
) -> ApiResult<bool> {
    abc_widths(cx, hdc, wFirst, wLast, lpABC, false)
}

pub fn GetCharABCWidthsW(
    cx: &mut Ctx,
    hdc: u32,
    wFirst: u32,
    wLast: u32,
    lpABC: Ptr,
) -> ApiResult<bool> {
    abc_widths(cx, hdc, wFirst, wLast, lpABC, true)
}

/// ANSI_CHARSET for every font: the bundled fonts are used for code page 1252 text.
pub fn GetTextCharset(cx: &mut Ctx, hdc: u32) -> u32 {
    if cx.proc.gdi32.lock().dcs.contains_key(&hdc) {
        0
    } else {
        0xffff_ffff
    }
}

pub fn SetTextJustification(cx: &mut Ctx, hdc: u32, extra: i32, count: i32) -> ApiResult<bool> {
    if extra != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "SetTextJustification with {extra} extra pixels over {count} breaks"
        )));
    }
    Ok(cx.proc.gdi32.lock().dcs.contains_key(&hdc))
}

/// LOGFONTA/W from guest memory (28 bytes of numbers, then a 32-character face).
pub fn read_logfont(proc: &Process, p: u32, wide: bool) -> ApiResult<LogFont> {
    let mut b = [0u8; 28];
    proc.mem.read_bytes(p, &mut b)?;
    let i = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let face = if wide {
        let mut w = [0u8; 64];
        proc.mem.read_bytes(p + 28, &mut w)?;
        let u: Vec<u16> = w
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        String::from_utf16_lossy(&u)
    } else {
        let mut a = [0u8; 32];
        proc.mem.read_bytes(p + 28, &mut a)?;
        let n = a.iter().position(|&c| c == 0).unwrap_or(32);
        decode_ansi(&a[..n])
    };
    Ok(LogFont {
        height: i(0),
        width: i(4),
        escapement: i(8),
        orientation: i(12),
        weight: i(16),
        italic: b[20],
        underline: b[21],
        strikeout: b[22],
        charset: b[23],
        out_precision: b[24],
        clip_precision: b[25],
        quality: b[26],
        pitch_and_family: b[27],
        face,
    })
}

pub fn create_font(proc: &Process, lf: LogFont) -> u32 {
    proc.gdi32.lock().add_obj(Obj::Font(lf))
}

pub fn CreateFontIndirectA(cx: &mut Ctx, lplf: Ptr) -> ApiResult<u32> {
    let lf = read_logfont(cx.proc, lplf.0, false)?;
    Ok(create_font(cx.proc, lf))
}

pub fn CreateFontIndirectW(cx: &mut Ctx, lplf: Ptr) -> ApiResult<u32> {
    let lf = read_logfont(cx.proc, lplf.0, true)?;
    Ok(create_font(cx.proc, lf))
}

fn create_font_args(
    cHeight: i32,
    cWidth: i32,
    cEscapement: i32,
    cOrientation: i32,
    cWeight: i32,
    bItalic: u32,
    bUnderline: u32,
    bStrikeOut: u32,
    iCharSet: u32,
    iOutPrecision: u32,
    iClipPrecision: u32,
    iQuality: u32,
    iPitchAndFamily: u32,
    face: String,
) -> LogFont {
    LogFont {
        height: cHeight,
        width: cWidth,
        escapement: cEscapement,
        orientation: cOrientation,
        weight: cWeight,
        italic: bItalic as u8,
        underline: bUnderline as u8,
        strikeout: bStrikeOut as u8,
        charset: iCharSet as u8,
        out_precision: iOutPrecision as u8,
        clip_precision: iClipPrecision as u8,
        quality: iQuality as u8,
        pitch_and_family: iPitchAndFamily as u8,
        face,
    }
}

// CreateFont takes 14 arguments, more than the HLE glue's typed arities.
pub fn CreateFontA(cx: &mut Ctx, args: crate::hle::Dwords<14>) -> ApiResult<u32> {
    create_font_stack(cx, args.0, false)
}

pub fn CreateFontW(cx: &mut Ctx, args: crate::hle::Dwords<14>) -> ApiResult<u32> {
    create_font_stack(cx, args.0, true)
}

fn create_font_stack(cx: &mut Ctx, a: [u32; 14], wide: bool) -> ApiResult<u32> {
    let face = if a[13] == 0 {
        String::new()
    } else if wide {
        read_wstr(cx.proc, a[13])?
    } else {
        read_ansi(cx.proc, a[13])?
    };
    let lf = create_font_args(
        a[0] as i32,
        a[1] as i32,
        a[2] as i32,
        a[3] as i32,
        a[4] as i32,
        a[5],
        a[6],
        a[7],
        a[8],
        a[9],
        a[10],
        a[11],
        a[12],
        face,
    );
    Ok(create_font(cx.proc, lf))
}

/// The font families EnumFontFamilies reports: the faces winterp maps to its
/// bundled fonts, with their pitch-and-family bytes.
const FAMILIES: [(&str, u8); 6] = [
    ("Arial", 0x22),
    ("Courier New", 0x31),
    ("MS Sans Serif", 0x22),
    ("Tahoma", 0x22),
    ("Times New Roman", 0x12),
    ("System", 0x22),
];

fn enum_fonts(
    cx: &mut Ctx,
    face: Option<String>,
    proc_addr: u32,
    lparam: u32,
    wide: bool,
) -> ApiResult<Outcome> {
    let (lf_len, tm_len) = if wide { (92u32, 60u32) } else { (60, 56) };
    // ENUMLOGFONT (LOGFONT + full name + style) and NEWTEXTMETRIC, generously sized.
    let elf_size = lf_len + 64 * 2 + 32 * 2;
    let block = cx
        .proc
        .vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(
            None,
            0x1000,
            winterp_core::mem::Prot::RW,
            "EnumFontFamilies",
        )
        .map_err(|e| ApiError::Other(format!("EnumFontFamilies: {e}")))?;
    let mut last = 1u32;
    let mut result = Ok(());
    for (name, pf) in FAMILIES {
        if let Some(f) = &face
            && !f.eq_ignore_ascii_case(name)
        {
            continue;
        }
        let lf = LogFont::simple(-13, 400, pf, name);
        let fi = font_info(&lf);
        let mut b = Vec::new();
        for v in [fi.height(), fi.ave_width, 0, 0, 400] {
            b.extend_from_slice(&(v as u32).to_le_bytes());
        }
        b.extend_from_slice(&[0, 0, 0, 0, 0, 2, 1, pf]);
        let mut face_bytes = Vec::new();
        if wide {
            for u in name.encode_utf16() {
                face_bytes.extend_from_slice(&u.to_le_bytes());
            }
            face_bytes.resize(64, 0);
        } else {
            face_bytes.extend_from_slice(name.as_bytes());
            face_bytes.resize(32, 0);
        }
        b.extend_from_slice(&face_bytes);
        // elfFullName: the face again.
        b.extend_from_slice(&face_bytes);
        b.resize(elf_size as usize, 0);
        let mut tm = text_metrics(&fi, wide);
        tm.resize(tm_len as usize, 0);
        // NEWTEXTMETRIC's ntmFlags, ntmSizeEM, ntmCellHeight, ntmAvgWidth.
        for v in [0u32, 2048, 2355, fi.ave_width as u32] {
            tm.extend_from_slice(&v.to_le_bytes());
        }
        if let Err(e) = cx
            .proc
            .mem
            .write_bytes(block, &b)
            .and_then(|_| cx.proc.mem.write_bytes(block + 0x400, &tm))
        {
            result = Err(ApiError::from(e));
            break;
        }
        // TRUETYPE_FONTTYPE.
        match call_guest(cx, proc_addr, &[block, block + 0x400, 4, lparam]) {
            Ok(Ok(v)) => {
                last = v;
                if v == 0 {
                    break;
                }
            }
            Ok(Err(o)) => return Ok(o),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let _ = cx
        .proc
        .vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .release(block);
    result?;
    Ok(Outcome::Return(last as u64))
}

/// Calls a guest callback; `Ok(Err(outcome))` when the callee ended the thread or
/// process.
pub(crate) fn call_guest(cx: &mut Ctx, f: u32, args: &[u32]) -> ApiResult<Result<u32, Outcome>> {
    use crate::thread::ThreadEnd;
    match cx.thread.call_guest(cx.proc, f, args) {
        Ok(v) => Ok(Ok(v)),
        Err(ThreadEnd::Exited(c)) => Ok(Err(Outcome::ExitThread(c))),
        Err(ThreadEnd::ProcessExit(c)) => Ok(Err(Outcome::ExitProcess(c))),
        Err(ThreadEnd::Crashed(report)) => Err(ApiError::Other(report)),
        Err(ThreadEnd::InstructionLimit) => Err(ApiError::Other(format!(
            "instruction limit reached inside a GDI callback at {f:#010x}"
        ))),
    }
}

pub fn EnumFontFamiliesA(
    cx: &mut Ctx,
    hdc: u32,
    lpLogfont: CStrPtr,
    lpProc: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let _ = hdc;
    let face = if lpLogfont.0 == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, lpLogfont.0)?)
    };
    enum_fonts(cx, face, lpProc, lParam, false)
}

pub fn EnumFontFamiliesW(
    cx: &mut Ctx,
    hdc: u32,
    lpLogfont: WStrPtr,
    lpProc: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let _ = hdc;
    let face = if lpLogfont.0 == 0 {
        None
    } else {
        Some(read_wstr(cx.proc, lpLogfont.0)?)
    };
    enum_fonts(cx, face, lpProc, lParam, true)
}

fn enum_ex(cx: &mut Ctx, lplf: Ptr, lpProc: u32, lParam: u32, wide: bool) -> ApiResult<Outcome> {
    let face = if lplf.is_null() {
        None
    } else {
        let lf = read_logfont(cx.proc, lplf.0, wide)?;
        if lf.face.is_empty() {
            None
        } else {
            Some(lf.face)
        }
    };
    enum_fonts(cx, face, lpProc, lParam, wide)
}

pub fn EnumFontFamiliesExA(
    cx: &mut Ctx,
    _hdc: u32,
    lpLogfont: Ptr,
    lpProc: u32,
    lParam: u32,
    _dwFlags: u32,
) -> ApiResult<Outcome> {
    enum_ex(cx, lpLogfont, lpProc, lParam, false)
}

pub fn EnumFontFamiliesExW(
    cx: &mut Ctx,
    _hdc: u32,
    lpLogfont: Ptr,
    lpProc: u32,
    lParam: u32,
    _dwFlags: u32,
) -> ApiResult<Outcome> {
    enum_ex(cx, lpLogfont, lpProc, lParam, true)
}

pub fn EnumFontsA(
    cx: &mut Ctx,
    hdc: u32,
    lpFaceName: CStrPtr,
    lpProc: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    EnumFontFamiliesA(cx, hdc, lpFaceName, lpProc, lParam)
}

pub fn EnumFontsW(
    cx: &mut Ctx,
    hdc: u32,
    lpFaceName: WStrPtr,
    lpProc: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    EnumFontFamiliesW(cx, hdc, lpFaceName, lpProc, lParam)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("TextOutA", TextOutA),
        stdcall("TextOutW", TextOutW),
        stdcall("ExtTextOutA", ExtTextOutA),
        stdcall("ExtTextOutW", ExtTextOutW),
        stdcall("GetTextExtentPoint32A", GetTextExtentPoint32A),
        stdcall("GetTextExtentPoint32W", GetTextExtentPoint32W),
        stdcall("GetTextExtentPointA", GetTextExtentPoint32A),
        stdcall("GetTextExtentPointW", GetTextExtentPoint32W),
        stdcall("GetTextExtentExPointA", GetTextExtentExPointA),
        stdcall("GetTextExtentExPointW", GetTextExtentExPointW),
        stdcall("GetTextMetricsA", GetTextMetricsA),
        stdcall("GetTextMetricsW", GetTextMetricsW),
        stdcall("GetTextFaceA", GetTextFaceA),
        stdcall("GetTextFaceW", GetTextFaceW),
        stdcall("GetCharWidth32A", GetCharWidth32A),
        stdcall("GetCharWidth32W", GetCharWidth32W),
        stdcall("GetCharWidthA", GetCharWidth32A),
        stdcall("GetCharWidthW", GetCharWidth32W),
        stdcall("GetCharABCWidthsA", GetCharABCWidthsA),
        stdcall("GetCharABCWidthsW", GetCharABCWidthsW),
        stdcall("GetTextCharset", GetTextCharset),
        stdcall("SetTextJustification", SetTextJustification),
        stdcall("CreateFontIndirectA", CreateFontIndirectA),
        stdcall("CreateFontIndirectW", CreateFontIndirectW),
        stdcall("CreateFontA", CreateFontA),
        stdcall("CreateFontW", CreateFontW),
        stdcall("EnumFontFamiliesA", EnumFontFamiliesA),
        stdcall("EnumFontFamiliesW", EnumFontFamiliesW),
        stdcall("EnumFontFamiliesExA", EnumFontFamiliesExA),
        stdcall("EnumFontFamiliesExW", EnumFontFamiliesExW),
        stdcall("EnumFontsA", EnumFontsA),
        stdcall("EnumFontsW", EnumFontsW),
    ]
}
