//! Device contexts: window, memory and display DCs, their attributes (colours, modes,
//! origins, clipping), SaveDC/RestoreDC and GetDeviceCaps.

use super::objects::{
    self, BLACK_PEN, Bitmap, Brush, DC_BRUSH, DC_PEN, LogFont, Obj, Pen, STOCK_BITMAP, SYSTEM_FONT,
    Store, WHITE_BRUSH, stock,
};
use super::raster::Target;
use super::surface::Rect;
use super::{Inner, Surface, WindowTarget};
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::process::Process;

pub const TRANSPARENT: u32 = 1;
pub const OPAQUE: u32 = 2;
pub const R2_COPYPEN: u32 = 13;
pub const ALTERNATE: u32 = 1;
pub const WINDING: u32 = 2;
pub const MM_TEXT: u32 = 1;
pub const BLACKONWHITE: u32 = 1;

pub enum DcKind {
    Window(WindowTarget),
    Memory,
    /// CreateDC("DISPLAY"): the whole screen.
    Screen,
    /// A metafile DC: it records (see [`super::metafile`]) and has nothing to draw on.
    Meta,
}

/// The attributes SaveDC saves and RestoreDC restores.
#[derive(Clone, Debug)]
pub struct Attrs {
    pub bitmap: u32,
    pub pen: u32,
    pub brush: u32,
    pub font: u32,
    pub palette: u32,
    pub text_color: u32,
    pub bk_color: u32,
    pub bk_mode: u32,
    pub rop2: u32,
    pub text_align: u32,
    pub stretch_mode: u32,
    pub fill_mode: u32,
    pub map_mode: u32,
    pub pos: (i32, i32),
    pub vp_org: (i32, i32),
    pub win_org: (i32, i32),
    pub vp_ext: (i32, i32),
    pub win_ext: (i32, i32),
    pub graphics_mode: u32,
    /// The world transform (GM_ADVANCED), applied before the page transform.
    pub world: super::mapping::Xform,
    pub brush_org: (i32, i32),
    /// The clip region in device coordinates (None: the whole target).
    pub clip: Option<Vec<Rect>>,
    pub char_extra: i32,
    pub dc_brush: u32,
    pub dc_pen: u32,
    /// SetLayout's flags; only left-to-right layouts (no LAYOUT_RTL) are drawn.
    pub layout: u32,
}

impl Attrs {
    /// True if this DC has object `h` selected.
    pub fn selects(&self, h: u32) -> bool {
        [self.bitmap, self.pen, self.brush, self.font, self.palette].contains(&h)
    }
}

impl Default for Attrs {
    fn default() -> Attrs {
        Attrs {
            bitmap: STOCK_BITMAP,
            pen: stock(BLACK_PEN),
            brush: stock(WHITE_BRUSH),
            font: stock(SYSTEM_FONT),
            palette: stock(objects::DEFAULT_PALETTE),
            text_color: 0,
            bk_color: 0xff_ffff,
            bk_mode: OPAQUE,
            rop2: R2_COPYPEN,
            text_align: 0,
            stretch_mode: BLACKONWHITE,
            fill_mode: ALTERNATE,
            map_mode: MM_TEXT,
            pos: (0, 0),
            vp_org: (0, 0),
            win_org: (0, 0),
            vp_ext: (1, 1),
            win_ext: (1, 1),
            graphics_mode: super::mapping::GM_COMPATIBLE,
            world: super::mapping::Xform::IDENTITY,
            brush_org: (0, 0),
            clip: None,
            char_extra: 0,
            dc_brush: 0xff_ffff,
            dc_pen: 0,
            layout: 0,
        }
    }
}

pub struct Dc {
    pub kind: DcKind,
    pub a: Attrs,
    pub saved: Vec<Attrs>,
}

impl Dc {
    pub fn new(kind: DcKind) -> Dc {
        Dc {
            kind,
            a: Attrs::default(),
            saved: Vec::new(),
        }
    }

    pub fn is_memory(&self) -> bool {
        matches!(self.kind, DcKind::Memory)
    }
}

/// Everything a drawing call needs from a DC, copied out of the handle table.
pub struct DrawCtx {
    pub target: Target,
    pub a: Attrs,
    pub pen: Pen,
    pub brush: Brush,
    pub font: LogFont,
    /// The selected palette's entries (PALETTEENTRY dwords).
    pub palette: Vec<u32>,
    /// Where drawing may land, in device coordinates: the target's extent, cut by the
    /// clip region.
    pub clip: Vec<Rect>,
    /// The target is a monochrome bitmap.
    pub mono: bool,
}

impl DrawCtx {
    /// Logical to device coordinates through the DC's mapping (see [`super::mapping`]).
    pub fn to_dev(&self, x: i32, y: i32) -> (i32, i32) {
        super::mapping::lp_to_dp(&self.a, x, y)
    }

    /// Device to logical coordinates (a non-invertible transform leaves them).
    pub fn to_log(&self, x: i32, y: i32) -> (i32, i32) {
        super::mapping::dp_to_lp(&self.a, x, y).unwrap_or((x, y))
    }

    /// A logical rectangle in device coordinates. An axis the mapping flips (y up in
    /// the metric modes) is put back in order, so a rectangle that is well ordered in
    /// logical units is well ordered on the device; one that is empty stays empty.
    pub fn rect_to_dev(&self, r: Rect) -> Rect {
        let (mut l, mut t) = self.to_dev(r.left, r.top);
        let (mut rr, mut b) = self.to_dev(r.right, r.bottom);
        let m = super::mapping::matrix(&self.a);
        if m.m11 < 0.0 {
            std::mem::swap(&mut l, &mut rr);
        }
        if m.m22 < 0.0 {
            std::mem::swap(&mut t, &mut b);
        }
        Rect::new(l, t, rr, b)
    }

    /// A device rectangle's corners in logical coordinates, not reordered (GetClipBox
    /// answers top > bottom where y points up, as Windows does).
    pub fn rect_to_log(&self, r: Rect) -> Rect {
        let (l, t) = self.to_log(r.left, r.top);
        let (rr, b) = self.to_log(r.right, r.bottom);
        Rect::new(l, t, rr, b)
    }

    /// A logical rectangle filled the way PatBlt fills it (FillRect, InvertRect and
    /// FrameRect are PatBlts): from the left/top corner towards the right/bottom one,
    /// the corner's pixel included and the far edge excluded, so where the device
    /// coordinates run backwards it covers `far+1 ..= near`. Under a plain
    /// translation the rectangle is taken as it is (winterp's own controls rely on an
    /// inverted rectangle filling nothing there).
    pub fn fill_rect_to_dev(&self, r: Rect) -> Rect {
        if super::mapping::is_translation(&self.a) {
            return self.rect_to_dev(r);
        }
        let (mut l, mut t) = self.to_dev(r.left, r.top);
        let (mut rr, mut b) = self.to_dev(r.right, r.bottom);
        if rr < l {
            (l, rr) = (rr + 1, l + 1);
        }
        if b < t {
            (t, b) = (b + 1, t + 1);
        }
        Rect::new(l, t, rr, b)
    }

    /// A logical rectangle given as origin and signed size, as a device origin and
    /// signed size (blit destinations: a flipped axis gives a negative size).
    pub fn extent_to_dev(&self, x: i32, y: i32, w: i32, h: i32) -> (i32, i32, i32, i32) {
        if super::mapping::is_translation(&self.a) {
            let (dx, dy) = self.to_dev(x, y);
            return (dx, dy, w, h);
        }
        let (l, t) = self.to_dev(x, y);
        let (r, b) = self.to_dev(x.wrapping_add(w), y.wrapping_add(h));
        (l, t, r - l, b - t)
    }

    /// A logical width (along x) in device units.
    pub fn width_to_dev(&self, w: i32) -> i32 {
        super::mapping::width_to_dev(&self.a, w)
    }

    /// A device width in logical units.
    pub fn width_to_log(&self, w: i32) -> i32 {
        super::mapping::width_to_log(&self.a, w)
    }

    /// A device height in logical units.
    pub fn height_to_log(&self, h: i32) -> i32 {
        super::mapping::height_to_log(&self.a, h)
    }

    /// A COLORREF in this DC as a pixel (0x00RRGGBB): PALETTEINDEX values look the
    /// index up in the selected palette.
    pub fn color(&self, cr: u32) -> u32 {
        super::palette::resolve_colorref(cr, &self.palette)
    }
}

/// The device-coordinate extent of a target.
pub fn target_bounds(t: &Target) -> Rect {
    match t {
        Target::Surface { bounds, .. } => *bounds,
        Target::Dib { fmt, .. } => Rect::new(0, 0, fmt.width, fmt.height),
    }
}

fn bitmap_target(bm: &Bitmap) -> Target {
    match &bm.store {
        Store::Ddb(s) => Target::Surface {
            surf: s.clone(),
            origin: (0, 0),
            bounds: Rect::new(0, 0, bm.width, bm.height),
        },
        Store::Dib { bits, fmt, .. } => Target::Dib {
            bits: *bits,
            fmt: fmt.clone(),
        },
    }
}

fn screen_surface(proc: &Process, g: &mut Inner) -> super::SurfaceRef {
    let m = proc.display.mode();
    g.screen
        .get_or_insert_with(|| Surface::new_ref(m.width, m.height))
        .clone()
}

/// The draw context of `hdc`, or None if it is not a DC.
pub fn resolve(proc: &Process, hdc: u32) -> Option<DrawCtx> {
    let mut g = proc.gdi32.lock();
    let d = g.dcs.get(&hdc)?;
    let a = d.a.clone();
    let (target, mono) = match &d.kind {
        DcKind::Window(w) => (
            Target::Surface {
                surf: w.surface.clone(),
                origin: w.origin,
                bounds: w.clip.offset(-w.origin.0, -w.origin.1),
            },
            false,
        ),
        DcKind::Memory => match g.objs.get(&a.bitmap) {
            Some(Obj::Bitmap(bm)) => (bitmap_target(bm), bm.mono()),
            _ => return None,
        },
        DcKind::Meta => {
            log::warn!("drawing on metafile DC {hdc:#x} by a call that is not recorded");
            return None;
        }
        DcKind::Screen => {
            let s = screen_surface(proc, &mut g);
            let m = proc.display.mode();
            (
                Target::Surface {
                    surf: s,
                    origin: (0, 0),
                    bounds: Rect::new(0, 0, m.width as i32, m.height as i32),
                },
                false,
            )
        }
    };
    let mut pen = match g.objs.get(&a.pen) {
        Some(Obj::Pen(p)) => p.clone(),
        _ => Pen {
            style: objects::PS_SOLID,
            width: 1,
            color: 0,
        },
    };
    if a.pen == stock(DC_PEN) {
        pen.color = a.dc_pen;
    }
    // Pen widths are logical (width 0 is always one pixel); fonts the program created
    // have logical heights, the stock fonts are device fonts and keep their size.
    if pen.width > 0 {
        pen.width = super::mapping::width_to_dev(&a, pen.width);
    }
    let brush = if a.brush == stock(DC_BRUSH) {
        Brush::Solid(a.dc_brush)
    } else {
        objects::brush_of(&g, a.brush).unwrap_or(Brush::Solid(0xff_ffff))
    };
    let font = match g.objs.get(&a.font) {
        Some(Obj::Font(f)) => {
            let mut f = f.clone();
            if a.font >= super::FIRST_HANDLE && !super::mapping::is_translation(&a) {
                f.height = super::mapping::height_to_dev(&a, f.height);
                f.width = super::mapping::width_to_dev(&a, f.width);
            }
            f
        }
        _ => LogFont::simple(16, 700, 0x22, "System"),
    };
    let palette = match g.objs.get(&a.palette) {
        Some(Obj::Palette(p)) => p.clone(),
        _ => super::palette::default_palette(),
    };
    let bounds = target_bounds(&target);
    let clip = match &a.clip {
        None => vec![bounds],
        Some(rs) => rs
            .iter()
            .map(|r| r.intersect(&bounds))
            .filter(|r| !r.is_empty())
            .collect(),
    };
    Some(DrawCtx {
        target,
        a,
        pen,
        brush,
        font,
        palette,
        clip,
        mono,
    })
}

/// Runs `f` on the attributes of `hdc`; None if it is not a DC.
pub fn with_attrs<R>(proc: &Process, hdc: u32, f: impl FnOnce(&mut Attrs) -> R) -> Option<R> {
    let mut g = proc.gdi32.lock();
    g.dcs.get_mut(&hdc).map(|d| f(&mut d.a))
}

// ---- creation ------------------------------------------------------------------------

pub fn CreateCompatibleDC(cx: &mut Ctx, hdc: u32) -> u32 {
    let mut g = cx.proc.gdi32.lock();
    if hdc != 0 && !g.dcs.contains_key(&hdc) {
        return 0;
    }
    let h = g.alloc_handle();
    g.dcs.insert(h, Dc::new(DcKind::Memory));
    h
}

fn create_dc(cx: &mut Ctx, driver: Option<String>, device: Option<String>) -> ApiResult<u32> {
    let is_display = |s: &Option<String>| {
        s.as_deref().is_some_and(|s| {
            s.eq_ignore_ascii_case("DISPLAY") || s.eq_ignore_ascii_case(r"\\.\DISPLAY1")
        })
    };
    if is_display(&driver) || (driver.is_none() && is_display(&device)) {
        let mut g = cx.proc.gdi32.lock();
        let h = g.alloc_handle();
        g.dcs.insert(h, Dc::new(DcKind::Screen));
        return Ok(h);
    }
    Err(ApiError::UnimplementedCase(format!(
        "CreateDC for driver {driver:?} device {device:?} (only DISPLAY)"
    )))
}

fn opt_a(proc: &Process, p: u32) -> ApiResult<Option<String>> {
    if p == 0 {
        Ok(None)
    } else {
        crate::kernel32::string::read_ansi(proc, p).map(Some)
    }
}

fn opt_w(proc: &Process, p: u32) -> ApiResult<Option<String>> {
    if p == 0 {
        Ok(None)
    } else {
        crate::kernel32::string::read_wstr(proc, p).map(Some)
    }
}

pub fn CreateDCA(
    cx: &mut Ctx,
    pszDriver: CStrPtr,
    pszDevice: CStrPtr,
    _pszPort: CStrPtr,
    _pdm: Ptr,
) -> ApiResult<u32> {
    let d = opt_a(cx.proc, pszDriver.0)?;
    let v = opt_a(cx.proc, pszDevice.0)?;
    create_dc(cx, d, v)
}

pub fn CreateDCW(
    cx: &mut Ctx,
    pszDriver: WStrPtr,
    pszDevice: WStrPtr,
    _pszPort: WStrPtr,
    _pdm: Ptr,
) -> ApiResult<u32> {
    let d = opt_w(cx.proc, pszDriver.0)?;
    let v = opt_w(cx.proc, pszDevice.0)?;
    create_dc(cx, d, v)
}

pub fn CreateICA(
    cx: &mut Ctx,
    pszDriver: CStrPtr,
    pszDevice: CStrPtr,
    pszPort: CStrPtr,
    pdm: Ptr,
) -> ApiResult<u32> {
    CreateDCA(cx, pszDriver, pszDevice, pszPort, pdm)
}

pub fn CreateICW(
    cx: &mut Ctx,
    pszDriver: WStrPtr,
    pszDevice: WStrPtr,
    pszPort: WStrPtr,
    pdm: Ptr,
) -> ApiResult<u32> {
    CreateDCW(cx, pszDriver, pszDevice, pszPort, pdm)
}

pub fn DeleteDC(cx: &mut Ctx, hdc: u32) -> bool {
    let mut g = cx.proc.gdi32.lock();
    match g.dcs.get(&hdc) {
        // Window DCs end with ReleaseDC/EndPaint.
        Some(d) if !matches!(d.kind, DcKind::Window(_)) => {
            let bm = d.a.bitmap;
            let saved: Vec<u32> = d.saved.iter().map(|s| s.bitmap).collect();
            g.dcs.remove(&hdc);
            objects::unselect_bitmap(&mut g, bm);
            for b in saved {
                objects::unselect_bitmap(&mut g, b);
            }
            true
        }
        _ => false,
    }
}

pub fn SaveDC(cx: &mut Ctx, hdc: u32) -> i32 {
    let mut g = cx.proc.gdi32.lock();
    match g.dcs.get_mut(&hdc) {
        Some(d) => {
            d.saved.push(d.a.clone());
            d.saved.len() as i32
        }
        None => 0,
    }
}

pub fn RestoreDC(cx: &mut Ctx, hdc: u32, nSavedDC: i32) -> bool {
    let mut g = cx.proc.gdi32.lock();
    let Some(d) = g.dcs.get_mut(&hdc) else {
        return false;
    };
    let n = d.saved.len() as i32;
    // Negative: relative to the current level; positive: an absolute level.
    let level = if nSavedDC < 0 {
        n + 1 + nSavedDC
    } else {
        nSavedDC
    };
    if level < 1 || level > n {
        return false;
    }
    d.saved.truncate(level as usize);
    let Some(a) = d.saved.pop() else {
        return false;
    };
    let old_bm = d.a.bitmap;
    let new_bm = a.bitmap;
    d.a = a;
    if old_bm != new_bm {
        objects::unselect_bitmap(&mut g, old_bm);
        if let Some(Obj::Bitmap(b)) = g.objs.get_mut(&new_bm)
            && new_bm != STOCK_BITMAP
        {
            b.selected_in = Some(hdc);
        }
    }
    true
}

// GetDeviceCaps indices.
const DRIVERVERSION: i32 = 0;
const TECHNOLOGY: i32 = 2;
const HORZSIZE: i32 = 4;
const VERTSIZE: i32 = 6;
const HORZRES: i32 = 8;
const VERTRES: i32 = 10;
const BITSPIXEL: i32 = 12;
const PLANES: i32 = 14;
const NUMBRUSHES: i32 = 16;
const NUMPENS: i32 = 18;
const NUMFONTS: i32 = 22;
const NUMCOLORS: i32 = 24;
const CURVECAPS: i32 = 28;
const LINECAPS: i32 = 30;
const POLYGONALCAPS: i32 = 32;
const TEXTCAPS: i32 = 34;
const CLIPCAPS: i32 = 36;
const RASTERCAPS: i32 = 38;
const ASPECTX: i32 = 40;
const ASPECTY: i32 = 42;
const ASPECTXY: i32 = 44;
const LOGPIXELSX: i32 = 88;
const LOGPIXELSY: i32 = 90;
const SIZEPALETTE: i32 = 104;
const NUMRESERVED: i32 = 106;
const COLORRES: i32 = 108;
const PHYSICALWIDTH: i32 = 110;
const PHYSICALHEIGHT: i32 = 111;
const PHYSICALOFFSETX: i32 = 112;
const PHYSICALOFFSETY: i32 = 113;
const VREFRESH: i32 = 116;
const DESKTOPVERTRES: i32 = 117;
const DESKTOPHORZRES: i32 = 118;
const BLTALIGNMENT: i32 = 119;
const SHADEBLENDCAPS: i32 = 120;

const RC_BITBLT: i32 = 1;
const RC_BANDING: i32 = 2;
const RC_BITMAP64: i32 = 8;
const RC_GDI20_OUTPUT: i32 = 0x10;
const RC_DI_BITMAP: i32 = 0x80;
const RC_PALETTE: i32 = 0x100;
const RC_DIBTODEV: i32 = 0x200;
const RC_STRETCHBLT: i32 = 0x800;
const RC_FLOODFILL: i32 = 0x1000;
const RC_STRETCHDIB: i32 = 0x2000;

pub fn device_caps(proc: &Process, index: i32) -> i32 {
    let m = proc.display.mode();
    let pal = m.bpp <= 8;
    match index {
        DRIVERVERSION => 0x400,
        TECHNOLOGY => 1, // DT_RASDISPLAY
        // A 15" 4:3 monitor's visible area in mm (320x240), as Windows assumes.
        HORZSIZE => 320,
        VERTSIZE => 240,
        HORZRES | DESKTOPHORZRES => m.width as i32,
        VERTRES | DESKTOPVERTRES => m.height as i32,
        BITSPIXEL => m.bpp as i32,
        PLANES => 1,
        NUMBRUSHES | NUMPENS => -1,
        NUMFONTS => 0,
        // The static colours on a palette device; -1 (more than 256) otherwise.
        NUMCOLORS if pal => 20,
        NUMCOLORS => -1,
        CURVECAPS | LINECAPS | POLYGONALCAPS => 0xff,
        TEXTCAPS => 0x7807,
        CLIPCAPS => 1,
        RASTERCAPS => {
            RC_BITBLT
                | RC_BANDING
                | RC_BITMAP64
                | RC_GDI20_OUTPUT
                | RC_DI_BITMAP
                | RC_DIBTODEV
                | RC_STRETCHBLT
                | RC_FLOODFILL
                | RC_STRETCHDIB
                | if pal { RC_PALETTE } else { 0 }
        }
        ASPECTX | ASPECTY => 36,
        ASPECTXY => 51,
        LOGPIXELSX | LOGPIXELSY => 96,
        SIZEPALETTE if pal => 256,
        SIZEPALETTE => 0,
        NUMRESERVED if pal => 20,
        NUMRESERVED => 0,
        COLORRES if pal => 18,
        COLORRES => 24,
        PHYSICALWIDTH | PHYSICALHEIGHT | PHYSICALOFFSETX | PHYSICALOFFSETY => 0,
        VREFRESH => m.refresh_hz as i32,
        BLTALIGNMENT => 0,
        SHADEBLENDCAPS => 0,
        _ => 0,
    }
}

pub fn GetDeviceCaps(cx: &mut Ctx, hdc: u32, index: i32) -> ApiResult<i32> {
    if !cx.proc.gdi32.lock().dcs.contains_key(&hdc) {
        return Ok(0);
    }
    if !known_cap(index) {
        return Err(ApiError::UnimplementedCase(format!(
            "GetDeviceCaps index {index}"
        )));
    }
    // A memory DC answers for the device it is compatible with (the display), not for
    // the bitmap selected into it.
    Ok(device_caps(cx.proc, index))
}

fn known_cap(i: i32) -> bool {
    matches!(
        i,
        DRIVERVERSION
            | TECHNOLOGY
            | HORZSIZE
            | VERTSIZE
            | HORZRES
            | VERTRES
            | BITSPIXEL
            | PLANES
            | NUMBRUSHES
            | NUMPENS
            | NUMFONTS
            | NUMCOLORS
            | CURVECAPS
            | LINECAPS
            | POLYGONALCAPS
            | TEXTCAPS
            | CLIPCAPS
            | RASTERCAPS
            | ASPECTX
            | ASPECTY
            | ASPECTXY
            | LOGPIXELSX
            | LOGPIXELSY
            | SIZEPALETTE
            | NUMRESERVED
            | COLORRES
            | PHYSICALWIDTH
            | PHYSICALHEIGHT
            | PHYSICALOFFSETX
            | PHYSICALOFFSETY
            | VREFRESH
            | DESKTOPVERTRES
            | DESKTOPHORZRES
            | BLTALIGNMENT
            | SHADEBLENDCAPS
    ) || (20..=26).contains(&i)
        // CAPS1 (no C1_* capabilities), SCALINGFACTORX/Y (a display does not scale).
        || matches!(i, 94 | 114 | 115)
        || (44..=46).contains(&i)
        || (60..=80).contains(&i)
}

// ---- attributes ------------------------------------------------------------------------

/// The CLR_INVALID / 0 answers of the Set* calls for a bad DC.
const CLR_INVALID: u32 = 0xffff_ffff;

pub fn SetBkColor(cx: &mut Ctx, hdc: u32, color: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.bk_color, color)).unwrap_or(CLR_INVALID)
}

pub fn GetBkColor(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.bk_color).unwrap_or(CLR_INVALID)
}

pub fn SetTextColor(cx: &mut Ctx, hdc: u32, color: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| {
        std::mem::replace(&mut a.text_color, color)
    })
    .unwrap_or(CLR_INVALID)
}

pub fn GetTextColor(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.text_color).unwrap_or(CLR_INVALID)
}

pub fn SetBkMode(cx: &mut Ctx, hdc: u32, mode: u32) -> u32 {
    if mode != TRANSPARENT && mode != OPAQUE {
        return 0;
    }
    with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.bk_mode, mode)).unwrap_or(0)
}

pub fn GetBkMode(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.bk_mode).unwrap_or(0)
}

const LAYOUT_RTL: u32 = 1;
const GDI_ERROR: u32 = 0xffff_ffff;

/// A DC's layout: 0 (left to right) unless SetLayout changed it; GDI_ERROR for a
/// bad DC.
pub fn GetLayout(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.layout).unwrap_or(GDI_ERROR)
}

/// Sets a DC's layout and returns the old one. A left-to-right layout changes
/// nothing drawn (LAYOUT_BITMAPORIENTATIONPRESERVED only matters in a mirrored
/// one); the mirrored right-to-left layout is not implemented.
pub fn SetLayout(cx: &mut Ctx, hdc: u32, l: u32) -> ApiResult<u32> {
    if l & LAYOUT_RTL != 0 && resolve(cx.proc, hdc).is_some() {
        return Err(ApiError::UnimplementedCase(format!(
            "SetLayout({l:#x}): right-to-left (mirrored) DC layout"
        )));
    }
    Ok(with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.layout, l)).unwrap_or(GDI_ERROR))
}

pub fn SetROP2(cx: &mut Ctx, hdc: u32, rop2: u32) -> u32 {
    if !(1..=16).contains(&rop2) {
        return 0;
    }
    with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.rop2, rop2)).unwrap_or(0)
}

pub fn GetROP2(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.rop2).unwrap_or(0)
}

pub fn SetTextAlign(cx: &mut Ctx, hdc: u32, align: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| {
        std::mem::replace(&mut a.text_align, align)
    })
    .unwrap_or(super::objects::HGDI_ERROR)
}

pub fn GetTextAlign(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.text_align).unwrap_or(super::objects::HGDI_ERROR)
}

pub fn SetStretchBltMode(cx: &mut Ctx, hdc: u32, mode: u32) -> u32 {
    if !(1..=4).contains(&mode) {
        return 0;
    }
    with_attrs(cx.proc, hdc, |a| {
        std::mem::replace(&mut a.stretch_mode, mode)
    })
    .unwrap_or(0)
}

pub fn GetStretchBltMode(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.stretch_mode).unwrap_or(0)
}

pub fn SetPolyFillMode(cx: &mut Ctx, hdc: u32, mode: u32) -> u32 {
    if mode != ALTERNATE && mode != WINDING {
        return 0;
    }
    with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.fill_mode, mode)).unwrap_or(0)
}

pub fn GetPolyFillMode(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.fill_mode).unwrap_or(0)
}

pub fn SetTextCharacterExtra(cx: &mut Ctx, hdc: u32, extra: i32) -> u32 {
    with_attrs(cx.proc, hdc, |a| {
        std::mem::replace(&mut a.char_extra, extra) as u32
    })
    .unwrap_or(0x8000_0000)
}

pub fn GetTextCharacterExtra(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.char_extra as u32).unwrap_or(0x8000_0000)
}

fn put_point(proc: &Process, p: Ptr, v: (i32, i32)) -> ApiResult<()> {
    if !p.is_null() {
        proc.mem.write_u32(p.0, v.0 as u32)?;
        proc.mem.write_u32(p.0 + 4, v.1 as u32)?;
    }
    Ok(())
}

fn set_org(
    cx: &mut Ctx,
    hdc: u32,
    v: (i32, i32),
    old: Ptr,
    which: fn(&mut Attrs) -> &mut (i32, i32),
) -> ApiResult<bool> {
    match with_attrs(cx.proc, hdc, |a| std::mem::replace(which(a), v)) {
        Some(prev) => {
            put_point(cx.proc, old, prev)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

fn get_org(
    cx: &mut Ctx,
    hdc: u32,
    out: Ptr,
    which: fn(&mut Attrs) -> &mut (i32, i32),
) -> ApiResult<bool> {
    match with_attrs(cx.proc, hdc, |a| *which(a)) {
        Some(v) => {
            put_point(cx.proc, out, v)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

fn brush_org(a: &mut Attrs) -> &mut (i32, i32) {
    &mut a.brush_org
}

pub fn SetBrushOrgEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lppt: Ptr) -> ApiResult<bool> {
    set_org(cx, hdc, (x, y), lppt, brush_org)
}

pub fn GetBrushOrgEx(cx: &mut Ctx, hdc: u32, lppt: Ptr) -> ApiResult<bool> {
    get_org(cx, hdc, lppt, brush_org)
}

pub fn GetCurrentPositionEx(cx: &mut Ctx, hdc: u32, lppt: Ptr) -> ApiResult<bool> {
    match with_attrs(cx.proc, hdc, |a| a.pos) {
        Some(p) => {
            put_point(cx.proc, lppt, p)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

pub fn GetDCOrgEx(cx: &mut Ctx, hdc: u32, lppt: Ptr) -> ApiResult<bool> {
    let org = {
        let g = cx.proc.gdi32.lock();
        match g.dcs.get(&hdc) {
            Some(d) => match &d.kind {
                DcKind::Window(w) => w.origin,
                _ => (0, 0),
            },
            None => return Ok(false),
        }
    };
    put_point(cx.proc, lppt, org)?;
    Ok(true)
}

/// Drawing is never batched, so there is nothing to flush.
pub fn GdiFlush(_cx: &mut Ctx) -> bool {
    true
}

pub fn GdiSetBatchLimit(_cx: &mut Ctx, _dw: u32) -> u32 {
    1
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateCompatibleDC", CreateCompatibleDC),
        stdcall("CreateDCA", CreateDCA),
        stdcall("CreateDCW", CreateDCW),
        stdcall("CreateICA", CreateICA),
        stdcall("CreateICW", CreateICW),
        stdcall("DeleteDC", DeleteDC),
        stdcall("SaveDC", SaveDC),
        stdcall("RestoreDC", RestoreDC),
        stdcall("GetDeviceCaps", GetDeviceCaps),
        stdcall("SetBkColor", SetBkColor),
        stdcall("GetBkColor", GetBkColor),
        stdcall("SetTextColor", SetTextColor),
        stdcall("GetTextColor", GetTextColor),
        stdcall("SetBkMode", SetBkMode),
        stdcall("GetBkMode", GetBkMode),
        stdcall("GetLayout", GetLayout),
        stdcall("SetLayout", SetLayout),
        stdcall("SetROP2", SetROP2),
        stdcall("GetROP2", GetROP2),
        stdcall("SetTextAlign", SetTextAlign),
        stdcall("GetTextAlign", GetTextAlign),
        stdcall("SetStretchBltMode", SetStretchBltMode),
        stdcall("GetStretchBltMode", GetStretchBltMode),
        stdcall("SetPolyFillMode", SetPolyFillMode),
        stdcall("GetPolyFillMode", GetPolyFillMode),
        stdcall("SetTextCharacterExtra", SetTextCharacterExtra),
        stdcall("GetTextCharacterExtra", GetTextCharacterExtra),
        stdcall("SetBrushOrgEx", SetBrushOrgEx),
        stdcall("GetBrushOrgEx", GetBrushOrgEx),
        stdcall("GetCurrentPositionEx", GetCurrentPositionEx),
        stdcall("GetDCOrgEx", GetDCOrgEx),
        stdcall("GdiFlush", GdiFlush),
        stdcall("GdiSetBatchLimit", GdiSetBatchLimit),
    ]
}
