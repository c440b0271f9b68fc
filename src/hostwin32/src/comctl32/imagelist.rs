//! Image lists (HIMAGELIST): sets of same-sized images with an optional mask, drawn
//! by toolbars, list views, tree views, tab controls and by programs themselves.
//!
//! Images are kept on the host as pixels (0x00RRGGBB, rows top first) with one
//! transparency bit per pixel (the mask's 1 bits); an HIMAGELIST is an opaque handle
//! into this module's table. Other controls use [`size`], [`count`] and [`draw`].
//! ImageList_Read/ImageList_Write use the documented stream format: an ILHEAD
//! ('IL' magic, counts, image size, background colour, flags, overlays) followed by
//! the image bitmap and, for lists with a mask, the mask bitmap, each as a BMP file.

#![allow(non_snake_case)]

use crate::gdi32::bitmap::{self, Mask, Source};
use crate::gdi32::objects::cr_to_rgb;
use crate::gdi32::{Rect, dc};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::process::Process;
use crate::user32::{Flow, UR};
use std::collections::HashMap;
use std::sync::Mutex;

pub const CLR_NONE: u32 = 0xffff_ffff;
pub const CLR_DEFAULT: u32 = 0xff00_0000;
pub const ILC_MASK: u32 = 0x1;
pub const ILD_NORMAL: u32 = 0x0;
pub const ILD_TRANSPARENT: u32 = 0x1;
pub const ILD_BLEND25: u32 = 0x2;
pub const ILD_BLEND50: u32 = 0x4;
pub const ILD_MASK: u32 = 0x10;
pub const ILD_IMAGE: u32 = 0x20;
const ILD_OVERLAYMASK: u32 = 0xf00;
const IMAGE_BITMAP: u32 = 0;
const IL_MAGIC: u16 = 0x4c49;
const IL_VERSION: u16 = 0x101;
/// Images per row of the bitmap ImageList_Write stores.
const WRITE_COLUMNS: usize = 4;

/// One image: `cx * cy` pixels and whether each is transparent (mask bit 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub px: Vec<u32>,
    pub transparent: Vec<bool>,
}

#[derive(Clone, Debug)]
pub struct ImageList {
    pub cx: i32,
    pub cy: i32,
    /// ILC_* flags given at creation.
    pub flags: u32,
    /// Background colour (COLORREF) or CLR_NONE.
    pub bk: u32,
    pub grow: u32,
    pub images: Vec<Image>,
    /// Overlay images 1..=15 (ImageList_SetOverlayImage), as image indexes.
    overlays: [i32; 15],
    /// Bitmaps handed out by ImageList_GetImageInfo (image strip and mask).
    info_bitmaps: Option<(u32, u32)>,
}

impl ImageList {
    fn masked(&self) -> bool {
        self.flags & ILC_MASK != 0
    }

    fn blank(&self) -> Image {
        let n = (self.cx * self.cy) as usize;
        Image {
            px: vec![0; n],
            transparent: vec![false; n],
        }
    }

    /// Cuts a `w` x `h` picture into images of the list's size, left to right then
    /// top to bottom.
    fn cut(&self, w: i32, h: i32, px: &[u32], transparent: Option<&[bool]>) -> Vec<Image> {
        let (cx, cy) = (self.cx.max(1), self.cy.max(1));
        let (cols, rows) = (w / cx, h / cy);
        let mut out = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let mut im = self.blank();
                for y in 0..cy {
                    for x in 0..cx {
                        let s = ((r * cy + y) * w + c * cx + x) as usize;
                        let d = (y * cx + x) as usize;
                        im.px[d] = px[s];
                        im.transparent[d] = transparent.is_some_and(|t| t[s]);
                    }
                }
                out.push(im);
            }
        }
        out
    }
}

#[derive(Default)]
struct Lists(Mutex<(u32, HashMap<u32, ImageList>)>);

/// Handles are opaque values outside the guest heap's usual range; programs only
/// pass them back.
const HANDLE_BASE: u32 = 0x00c1_0000;

fn lists(proc: &Process) -> std::sync::Arc<Lists> {
    proc.slot::<Lists>()
}

fn with<R>(proc: &Process, h: u32, f: impl FnOnce(&mut ImageList) -> R) -> Option<R> {
    let l = lists(proc);
    let mut g = l.0.lock().unwrap_or_else(|e| e.into_inner());
    g.1.get_mut(&h).map(f)
}

/// A copy of the list behind `h`.
pub fn get(proc: &Process, h: u32) -> Option<ImageList> {
    with(proc, h, |l| l.clone())
}

/// Creates an empty list of `cx` x `cy` images.
pub fn create(proc: &Process, cx: i32, cy: i32, flags: u32, grow: u32) -> u32 {
    let l = lists(proc);
    let mut g = l.0.lock().unwrap_or_else(|e| e.into_inner());
    g.0 += 1;
    let h = HANDLE_BASE + g.0 * 0x10;
    g.1.insert(
        h,
        ImageList {
            cx,
            cy,
            flags,
            bk: CLR_NONE,
            grow,
            images: Vec::new(),
            overlays: [-1; 15],
            info_bitmaps: None,
        },
    );
    h
}

/// IImageList's methods in vtable order. An image list made by [`create_object`]
/// is also this interface (COMCTL32 6's HIMAGELIST is an IImageList pointer);
/// the methods not served here report themselves by name.
const IIMAGELIST_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "Add",
    "ReplaceIcon",
    "SetOverlayImage",
    "Replace",
    "AddMasked",
    "Draw",
    "Remove",
    "GetIcon",
    "GetImageInfo",
    "Copy",
    "Merge",
    "Clone",
    "GetImageRect",
    "GetIconSize",
    "SetIconSize",
    "GetImageCount",
    "SetImageCount",
    "SetBkColor",
    "GetBkColor",
    "BeginDrag",
    "EndDrag",
    "DragEnter",
    "DragLeave",
    "DragMove",
    "SetDragCursorImage",
    "DragShowNolock",
    "GetDragImage",
    "GetItemFlags",
    "GetOverlayImage",
];

/// IID_IImageList {46EB5926-582E-4017-9FDF-E8998DAA0950}.
pub const IID_IIMAGELIST: crate::hle::com::Guid = crate::hle::com::Guid::new(
    0x46EB5926,
    0x582E,
    0x4017,
    [0x9F, 0xDF, 0xE8, 0x99, 0x8D, 0xAA, 0x09, 0x50],
);

/// References held on image lists that are COM objects, by handle, and whether
/// the list is shared for good (never freed by a Release).
#[derive(Default)]
struct ObjectRefs(Mutex<HashMap<u32, (u32, bool)>>);

/// Creates an empty list of `cx` x `cy` images whose handle is an IImageList
/// object in guest memory (one reference), for the lists SHELL32 hands out as
/// IImageList pointers. The list lives until its last reference is released,
/// unless it is `shared`: the shell's system image lists are the process's for
/// good (programs release them more often than they add references, since
/// SHGetFileInfo hands them out without one).
pub fn create_object(
    ctx: &mut Ctx,
    cx: i32,
    cy: i32,
    flags: u32,
    grow: u32,
    shared: bool,
) -> ApiResult<u32> {
    let vt = crate::hle::com::vtable(ctx.proc, super::DLL.name, "IImageList", IIMAGELIST_METHODS)?;
    let obj = crate::hle::com::new_object(ctx.proc, vt, 0, 8)?;
    let l = lists(ctx.proc);
    let mut g = l.0.lock().unwrap_or_else(|e| e.into_inner());
    g.1.insert(
        obj,
        ImageList {
            cx,
            cy,
            flags,
            bk: CLR_NONE,
            grow,
            images: Vec::new(),
            overlays: [-1; 15],
            info_bitmaps: None,
        },
    );
    drop(g);
    ctx.proc
        .slot::<ObjectRefs>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(obj, (1, shared));
    Ok(obj)
}

fn IImageList_QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    use crate::hle::com::{E_NOINTERFACE, E_POINTER, Guid, IID_IUNKNOWN, S_OK};
    if riid.is_null() || ppv.is_null() {
        return Ok(E_POINTER);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_IIMAGELIST {
        IImageList_AddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

pub fn IImageList_AddRef(cx: &mut Ctx, this: u32) -> u32 {
    let refs = cx.proc.slot::<ObjectRefs>();
    let mut g = refs.0.lock().unwrap_or_else(|e| e.into_inner());
    g.get_mut(&this).map_or(0, |r| {
        r.0 += 1;
        r.0
    })
}

fn IImageList_Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let left = {
        let refs = cx.proc.slot::<ObjectRefs>();
        let mut g = refs.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(r) = g.get_mut(&this) else {
            return Ok(0);
        };
        r.0 = r.0.saturating_sub(1);
        if r.1 {
            r.0 = r.0.max(1);
        }
        let left = r.0;
        if left == 0 {
            g.remove(&this);
        }
        left
    };
    if left == 0 {
        ImageList_Destroy(cx, this)?;
        crate::hle::com::free_object(cx.proc, this)?;
    }
    Ok(left)
}

fn IImageList_GetImageCount(cx: &mut Ctx, this: u32, pi: Ptr) -> ApiResult<u32> {
    if pi.is_null() {
        return Ok(crate::hle::com::E_INVALIDARG);
    }
    let n = ImageList_GetImageCount(cx, this);
    cx.proc.mem.write_u32(pi.0, n as u32)?;
    Ok(crate::hle::com::S_OK)
}

fn IImageList_GetIconSize(cx: &mut Ctx, this: u32, cx_: Ptr, cy: Ptr) -> ApiResult<u32> {
    Ok(if ImageList_GetIconSize(cx, this, cx_, cy)? {
        crate::hle::com::S_OK
    } else {
        crate::hle::com::E_INVALIDARG
    })
}

/// The size of the list's images.
pub fn size(proc: &Process, h: u32) -> Option<(i32, i32)> {
    with(proc, h, |l| (l.cx, l.cy))
}

/// The number of images.
pub fn count(proc: &Process, h: u32) -> Option<usize> {
    with(proc, h, |l| l.images.len())
}

/// Appends images cut from a `w` x `h` picture; returns the first new index or -1.
pub fn add_pixels(
    proc: &Process,
    himl: u32,
    w: i32,
    h: i32,
    px: &[u32],
    transparent: Option<&[bool]>,
) -> i32 {
    with(proc, himl, |l| {
        let new = l.cut(w, h, px, transparent);
        if new.is_empty() {
            return -1;
        }
        let first = l.images.len() as i32;
        l.images.extend(new);
        first
    })
    .unwrap_or(-1)
}

fn blend(a: u32, b: u32, pct_b: u32) -> u32 {
    let ch = |s: u32| {
        let (x, y) = ((a >> s) & 0xff, (b >> s) & 0xff);
        ((x * (100 - pct_b) + y * pct_b) / 100) << s
    };
    ch(16) | ch(8) | ch(0)
}

/// ImageList_DrawEx's work: image `i` at (x, y) (logical units of `hdc`), `dx` x `dy`
/// of it (0 = the whole image), with background `bk` and blend colour `fg`
/// (COLORREF, CLR_NONE or CLR_DEFAULT), ILD_* `style`.
#[allow(clippy::too_many_arguments)]
pub fn draw_ex(
    proc: &Process,
    himl: u32,
    i: i32,
    hdc: u32,
    x: i32,
    y: i32,
    dx: i32,
    dy: i32,
    bk: u32,
    fg: u32,
    style: u32,
) -> ApiResult<bool> {
    let Some(l) = get(proc, himl) else {
        return Ok(false);
    };
    let Some(im) = usize::try_from(i).ok().and_then(|i| l.images.get(i)) else {
        return Ok(false);
    };
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let w = if dx > 0 { dx.min(l.cx) } else { l.cx };
    let h = if dy > 0 { dy.min(l.cy) } else { l.cy };
    let bk = if bk == CLR_DEFAULT { l.bk } else { bk };
    let (dl, dt) = d.to_dev(x, y);
    let mono_src = |f: &dyn Fn(usize) -> bool| Source {
        w: l.cx,
        h: l.cy,
        px: (0..im.px.len())
            .map(|k| if f(k) { 0xff_ffff } else { 0 })
            .collect(),
        mono: true,
        bk: 0xff_ffff,
    };
    if style & ILD_MASK != 0 {
        let s = mono_src(&|k| im.transparent[k]);
        bitmap::blit(proc, &d, (dl, dt, w, h), Some((&s, (0, 0, w, h))), 0xcc)?;
        return Ok(true);
    }
    let mut px = im.px.clone();
    let pct = if style & ILD_BLEND50 != 0 {
        50
    } else if style & ILD_BLEND25 != 0 {
        25
    } else {
        0
    };
    if pct > 0 && fg != CLR_NONE {
        let c = if fg == CLR_DEFAULT {
            cr_to_rgb(crate::gdi32::paint::sys_color(
                crate::gdi32::paint::COLOR_HIGHLIGHT,
            ))
        } else {
            cr_to_rgb(fg)
        };
        for p in &mut px {
            *p = blend(*p, c, pct);
        }
    }
    let transparent_draw =
        l.masked() && style & ILD_IMAGE == 0 && (style & ILD_TRANSPARENT != 0 || bk == CLR_NONE);
    if l.masked() && !transparent_draw && style & ILD_IMAGE == 0 && bk != CLR_NONE {
        let b = cr_to_rgb(bk);
        for (p, &t) in px.iter_mut().zip(&im.transparent) {
            if t {
                *p = b;
            }
        }
    }
    let src = Source {
        w: l.cx,
        h: l.cy,
        px,
        mono: false,
        bk: 0,
    };
    if transparent_draw {
        let m = mono_src(&|k| im.transparent[k]);
        let mask = Mask {
            bits: &m,
            x: 0,
            y: 0,
            background: 0xcc,
        };
        bitmap::blit_masked(
            proc,
            &d,
            (dl, dt, w, h),
            Some((&src, (0, 0, w, h))),
            0xaa,
            Some(mask),
        )?;
    } else {
        bitmap::blit(proc, &d, (dl, dt, w, h), Some((&src, (0, 0, w, h))), 0xcc)?;
    }
    let ov = (style & ILD_OVERLAYMASK) >> 8;
    if ov != 0 {
        let oi = l.overlays[(ov - 1) as usize];
        if oi >= 0 && oi != i {
            draw_ex(
                proc,
                himl,
                oi,
                hdc,
                x,
                y,
                dx,
                dy,
                CLR_NONE,
                CLR_NONE,
                ILD_TRANSPARENT,
            )?;
        }
    }
    Ok(true)
}

/// ImageList_Draw: image `i` at (x, y) with the list's background colour.
pub fn draw(
    proc: &Process,
    himl: u32,
    i: i32,
    hdc: u32,
    x: i32,
    y: i32,
    style: u32,
) -> ApiResult<bool> {
    draw_ex(
        proc,
        himl,
        i,
        hdc,
        x,
        y,
        0,
        0,
        CLR_DEFAULT,
        CLR_DEFAULT,
        style,
    )
}

/// The pixels of bitmap `h` (width, height, pixels).
fn bitmap_pixels(proc: &Process, h: u32) -> ApiResult<Option<(i32, i32, Vec<u32>)>> {
    let Some(bm) = bitmap::bitmap(proc, h) else {
        return Ok(None);
    };
    let px = bitmap::read_bitmap_pixels(proc, &bm)?;
    Ok(Some((bm.width, bm.height, px)))
}

/// A mask bitmap's bits: white (1) is transparent.
fn mask_bits(proc: &Process, hbm: u32, w: i32, h: i32) -> ApiResult<Option<Vec<bool>>> {
    let Some((mw, mh, mpx)) = bitmap_pixels(proc, hbm)? else {
        return Ok(None);
    };
    let mut t = vec![false; (w * h).max(0) as usize];
    for y in 0..h.min(mh) {
        for x in 0..w.min(mw) {
            t[(y * w + x) as usize] = mpx[(y * mw + x) as usize] & 0xff_ffff == 0xff_ffff;
        }
    }
    Ok(Some(t))
}

// ---- API ------------------------------------------------------------------------------

pub fn ImageList_Create(
    cx: &mut Ctx,
    cx_: i32,
    cy: i32,
    flags: u32,
    _cInitial: i32,
    cGrow: i32,
) -> u32 {
    if cx_ < 0 || cy < 0 {
        return 0;
    }
    create(cx.proc, cx_, cy, flags, cGrow.max(0) as u32)
}

pub fn ImageList_Destroy(cx: &mut Ctx, himl: u32) -> ApiResult<bool> {
    let l = lists(cx.proc);
    let removed =
        l.0.lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .remove(&himl);
    let Some(removed) = removed else {
        return Ok(false);
    };
    if let Some((a, b)) = removed.info_bitmaps {
        delete_object(cx, a)?;
        delete_object(cx, b)?;
    }
    Ok(true)
}

fn delete_object(cx: &mut Ctx, h: u32) -> ApiResult<()> {
    if h != 0 {
        ur(crate::user32::call_export(
            cx,
            "GDI32.dll",
            "DeleteObject",
            &[h],
        ))?;
    }
    Ok(())
}

/// A host-only call's result as an ApiResult (these calls never run guest code).
fn ur<T>(r: UR<T>) -> ApiResult<T> {
    match r {
        Ok(v) => Ok(v),
        Err(Flow::Err(e)) => Err(e),
        Err(Flow::End(_)) => Err(ApiError::Other(
            "COMCTL32: a GDI32 call ended the thread".into(),
        )),
    }
}

pub fn ImageList_Add(cx: &mut Ctx, himl: u32, hbmImage: u32, hbmMask: u32) -> ApiResult<i32> {
    let Some((w, h, px)) = bitmap_pixels(cx.proc, hbmImage)? else {
        return Ok(-1);
    };
    let t = if hbmMask != 0 {
        mask_bits(cx.proc, hbmMask, w, h)?
    } else {
        None
    };
    Ok(add_pixels(cx.proc, himl, w, h, &px, t.as_deref()))
}

/// Pixels of `crMask` become transparent; as documented, they are also made black
/// in the caller's bitmap.
pub fn ImageList_AddMasked(cx: &mut Ctx, himl: u32, hbmImage: u32, crMask: u32) -> ApiResult<i32> {
    let Some(bm) = bitmap::bitmap(cx.proc, hbmImage) else {
        return Ok(-1);
    };
    let mut px = bitmap::read_bitmap_pixels(cx.proc, &bm)?;
    let masked = with(cx.proc, himl, |l| l.masked()).unwrap_or(false);
    let key = cr_to_rgb(crMask & 0xff_ffff);
    let t: Vec<bool> = px.iter().map(|&p| p & 0xff_ffff == key).collect();
    if masked && crMask != CLR_NONE {
        for (p, &tr) in px.iter_mut().zip(&t) {
            if tr {
                *p = 0;
            }
        }
        bitmap::write_bitmap_pixels(cx.proc, &bm, &px)?;
    }
    Ok(add_pixels(
        cx.proc,
        himl,
        bm.width,
        bm.height,
        &px,
        (crMask != CLR_NONE).then_some(&t[..]),
    ))
}

pub fn ImageList_Replace(
    cx: &mut Ctx,
    himl: u32,
    i: i32,
    hbmImage: u32,
    hbmMask: u32,
) -> ApiResult<bool> {
    let Some((w, h, px)) = bitmap_pixels(cx.proc, hbmImage)? else {
        return Ok(false);
    };
    let t = if hbmMask != 0 {
        mask_bits(cx.proc, hbmMask, w, h)?
    } else {
        None
    };
    Ok(with(cx.proc, himl, |l| {
        let Some(slot) = usize::try_from(i).ok().filter(|&i| i < l.images.len()) else {
            return false;
        };
        // The bitmap's top-left image-sized corner replaces the image.
        let mut im = l.blank();
        for y in 0..l.cy.min(h) {
            for x in 0..l.cx.min(w) {
                let (s, d) = ((y * w + x) as usize, (y * l.cx + x) as usize);
                im.px[d] = px[s];
                im.transparent[d] = t.as_ref().is_some_and(|t| t[s]);
            }
        }
        l.images[slot] = im;
        true
    })
    .unwrap_or(false))
}

/// Adds (i = -1) or replaces an image with an icon, stretched to the list's size.
pub fn ImageList_ReplaceIcon(cx: &mut Ctx, himl: u32, i: i32, hicon: u32) -> i32 {
    let Some(icon) = crate::user32::icon::icon_image(cx.proc, hicon) else {
        return -1;
    };
    with(cx.proc, himl, |l| {
        let mut im = l.blank();
        for y in 0..l.cy {
            for x in 0..l.cx {
                let sx = ((2 * x + 1) * icon.width / (2 * l.cx.max(1))) as usize;
                let sy = ((2 * y + 1) * icon.height / (2 * l.cy.max(1))) as usize;
                let s = sy * icon.width as usize + sx;
                let d = (y * l.cx + x) as usize;
                im.px[d] = icon.color.get(s).copied().unwrap_or(0);
                im.transparent[d] = icon.mask.get(s).copied().unwrap_or(false);
            }
        }
        if i == -1 {
            l.images.push(im);
            l.images.len() as i32 - 1
        } else if let Some(slot) = usize::try_from(i).ok().filter(|&i| i < l.images.len()) {
            l.images[slot] = im;
            i
        } else {
            -1
        }
    })
    .unwrap_or(-1)
}

pub fn ImageList_Remove(cx: &mut Ctx, himl: u32, i: i32) -> bool {
    with(cx.proc, himl, |l| {
        if i == -1 {
            l.images.clear();
            true
        } else if let Some(s) = usize::try_from(i).ok().filter(|&s| s < l.images.len()) {
            l.images.remove(s);
            true
        } else {
            false
        }
    })
    .unwrap_or(false)
}

pub fn ImageList_GetImageCount(cx: &mut Ctx, himl: u32) -> i32 {
    count(cx.proc, himl).map_or(0, |n| n as i32)
}

/// New images are black; extra ones are dropped.
pub fn ImageList_SetImageCount(cx: &mut Ctx, himl: u32, uNewCount: u32) -> bool {
    with(cx.proc, himl, |l| {
        let b = l.blank();
        l.images.resize(uNewCount as usize, b);
        true
    })
    .unwrap_or(false)
}

pub fn ImageList_GetIconSize(cx: &mut Ctx, himl: u32, pcx: Ptr, pcy: Ptr) -> ApiResult<bool> {
    let Some((w, h)) = size(cx.proc, himl) else {
        return Ok(false);
    };
    if pcx.is_null() || pcy.is_null() {
        return Ok(false);
    }
    cx.proc.mem.write_u32(pcx.0, w as u32)?;
    cx.proc.mem.write_u32(pcy.0, h as u32)?;
    Ok(true)
}

/// A new size removes every image, as documented.
pub fn ImageList_SetIconSize(cx: &mut Ctx, himl: u32, cx_: i32, cy: i32) -> bool {
    if cx_ < 0 || cy < 0 {
        return false;
    }
    with(cx.proc, himl, |l| {
        l.cx = cx_;
        l.cy = cy;
        l.images.clear();
        true
    })
    .unwrap_or(false)
}

pub fn ImageList_SetBkColor(cx: &mut Ctx, himl: u32, clrBk: u32) -> u32 {
    with(cx.proc, himl, |l| std::mem::replace(&mut l.bk, clrBk)).unwrap_or(CLR_NONE)
}

pub fn ImageList_GetBkColor(cx: &mut Ctx, himl: u32) -> u32 {
    with(cx.proc, himl, |l| l.bk).unwrap_or(CLR_NONE)
}

pub fn ImageList_SetOverlayImage(cx: &mut Ctx, himl: u32, iImage: i32, iOverlay: i32) -> bool {
    if !(1..=15).contains(&iOverlay) {
        return false;
    }
    with(cx.proc, himl, |l| {
        l.overlays[(iOverlay - 1) as usize] = iImage;
        true
    })
    .unwrap_or(false)
}

pub fn ImageList_Draw(
    cx: &mut Ctx,
    himl: u32,
    i: i32,
    hdcDst: u32,
    x: i32,
    y: i32,
    fStyle: u32,
) -> ApiResult<bool> {
    draw(cx.proc, himl, i, hdcDst, x, y, fStyle)
}

#[allow(clippy::too_many_arguments)]
pub fn ImageList_DrawEx(
    cx: &mut Ctx,
    himl: u32,
    i: i32,
    hdcDst: u32,
    x: i32,
    y: i32,
    dx: i32,
    dy: i32,
    rgbBk: u32,
    rgbFg: u32,
    fStyle: u32,
) -> ApiResult<bool> {
    draw_ex(cx.proc, himl, i, hdcDst, x, y, dx, dy, rgbBk, rgbFg, fStyle)
}

/// IMAGELISTDRAWPARAMS: cbSize, himl, i, hdcDst, x, y, cx, cy, xBitmap, yBitmap,
/// rgbBk, rgbFg, fStyle, dwRop (the later fields of comctl32 6 are not read).
pub fn ImageList_DrawIndirect(cx: &mut Ctx, pimldp: Ptr) -> ApiResult<bool> {
    if pimldp.is_null() {
        return Ok(false);
    }
    let m = &cx.proc.mem;
    let f = |k: u32| m.read_u32(pimldp.0 + 4 * k);
    let (xb, yb) = (f(8)?, f(9)?);
    if xb != 0 || yb != 0 {
        return Err(ApiError::UnimplementedCase(
            "ImageList_DrawIndirect from an offset inside the image".into(),
        ));
    }
    draw_ex(
        cx.proc,
        f(1)?,
        f(2)? as i32,
        f(3)?,
        f(4)? as i32,
        f(5)? as i32,
        f(6)? as i32,
        f(7)? as i32,
        f(10)?,
        f(11)?,
        f(12)?,
    )
}

/// A new icon of image `i` (the caller destroys it).
pub fn ImageList_GetIcon(cx: &mut Ctx, himl: u32, i: i32, _flags: u32) -> ApiResult<Outcome> {
    let Some(l) = get(cx.proc, himl) else {
        return Ok(Outcome::Return(0));
    };
    let Some(im) = usize::try_from(i).ok().and_then(|i| l.images.get(i)) else {
        return Ok(Outcome::Return(0));
    };
    let bpp = cx.proc.display.mode().bpp as u16;
    let color = bitmap::new_ddb(cx.proc, l.cx, l.cy, bpp, Some(im.px.clone()));
    let mask_px: Vec<u32> = im
        .transparent
        .iter()
        .map(|&t| if t && l.masked() { 0xff_ffff } else { 0 })
        .collect();
    let mask = bitmap::new_ddb(cx.proc, l.cx, l.cy, 1, Some(mask_px));
    let (ii, esp) = crate::user32::stack_alloc(cx, 20);
    let r = (|| -> UR<u32> {
        let m = &cx.proc.mem;
        m.write_u32(ii, 1)?;
        m.write_u32(ii + 4, 0)?;
        m.write_u32(ii + 8, 0)?;
        m.write_u32(ii + 12, mask)?;
        m.write_u32(ii + 16, color)?;
        Ok(crate::user32::call_export(cx, "USER32.dll", "CreateIconIndirect", &[ii])?.unwrap_or(0))
    })();
    crate::user32::stack_free(cx, esp);
    let r = r.and_then(|h| {
        crate::user32::call_export(cx, "GDI32.dll", "DeleteObject", &[color])?;
        crate::user32::call_export(cx, "GDI32.dll", "DeleteObject", &[mask])?;
        Ok(h)
    });
    crate::user32::fin(r)
}

/// IMAGEINFO: hbmImage, hbmMask, two unused dwords, rcImage. The bitmaps are the
/// list's own (one row of images, refreshed by each call); the caller must not
/// delete them.
pub fn ImageList_GetImageInfo(cx: &mut Ctx, himl: u32, i: i32, pImageInfo: Ptr) -> ApiResult<bool> {
    let Some(l) = get(cx.proc, himl) else {
        return Ok(false);
    };
    let Some(slot) = usize::try_from(i).ok().filter(|&s| s < l.images.len()) else {
        return Ok(false);
    };
    if pImageInfo.is_null() {
        return Ok(false);
    }
    let n = l.images.len() as i32;
    let w = l.cx * n;
    let mut px = vec![0u32; (w * l.cy) as usize];
    let mut mp = vec![0u32; (w * l.cy) as usize];
    for (k, im) in l.images.iter().enumerate() {
        for y in 0..l.cy {
            for x in 0..l.cx {
                let s = (y * l.cx + x) as usize;
                let d = (y * w + k as i32 * l.cx + x) as usize;
                px[d] = im.px[s];
                mp[d] = if im.transparent[s] { 0xff_ffff } else { 0 };
            }
        }
    }
    let bpp = cx.proc.display.mode().bpp as u16;
    let (img, mask) = match l.info_bitmaps {
        Some((a, b)) => {
            delete_object(cx, a)?;
            delete_object(cx, b)?;
            (
                bitmap::new_ddb(cx.proc, w, l.cy, bpp, Some(px)),
                if l.masked() {
                    bitmap::new_ddb(cx.proc, w, l.cy, 1, Some(mp))
                } else {
                    0
                },
            )
        }
        None => (
            bitmap::new_ddb(cx.proc, w, l.cy, bpp, Some(px)),
            if l.masked() {
                bitmap::new_ddb(cx.proc, w, l.cy, 1, Some(mp))
            } else {
                0
            },
        ),
    };
    with(cx.proc, himl, |l| l.info_bitmaps = Some((img, mask)));
    let m = &cx.proc.mem;
    m.write_u32(pImageInfo.0, img)?;
    m.write_u32(pImageInfo.0 + 4, mask)?;
    m.write_u32(pImageInfo.0 + 8, 0)?;
    m.write_u32(pImageInfo.0 + 12, 0)?;
    let left = slot as i32 * l.cx;
    crate::gdi32::paint::write_rect(
        cx.proc,
        pImageInfo.0 + 16,
        Rect::new(left, 0, left + l.cx, l.cy),
    )?;
    Ok(true)
}

pub fn ImageList_Duplicate(cx: &mut Ctx, himl: u32) -> u32 {
    let Some(mut l) = get(cx.proc, himl) else {
        return 0;
    };
    l.info_bitmaps = None;
    let h = create(cx.proc, l.cx, l.cy, l.flags, l.grow);
    with(cx.proc, h, |n| *n = l);
    h
}

#[allow(clippy::too_many_arguments)]
fn load_image(
    cx: &mut Ctx,
    hi: u32,
    lpbmp: u32,
    cx_: i32,
    cGrow: i32,
    crMask: u32,
    uType: u32,
    uFlags: u32,
    unicode: bool,
) -> ApiResult<u32> {
    if uType != IMAGE_BITMAP {
        return Err(ApiError::UnimplementedCase(format!(
            "ImageList_LoadImage of image type {uType}"
        )));
    }
    let name = if unicode { "LoadImageW" } else { "LoadImageA" };
    let hbm = ur(crate::user32::call_export(
        cx,
        "USER32.dll",
        name,
        &[hi, lpbmp, uType, 0, 0, uFlags],
    ))?
    .unwrap_or(0);
    let Some(bm) = bitmap::bitmap(cx.proc, hbm) else {
        return Ok(0);
    };
    let flags = if crMask != CLR_NONE { ILC_MASK } else { 0 };
    let h = create(cx.proc, cx_, bm.height, flags, cGrow.max(0) as u32);
    let r = if crMask != CLR_NONE {
        ImageList_AddMasked(cx, h, hbm, crMask)?
    } else {
        ImageList_Add(cx, h, hbm, 0)?
    };
    delete_object(cx, hbm)?;
    if r < 0 {
        ImageList_Destroy(cx, h)?;
        return Ok(0);
    }
    Ok(h)
}

#[allow(clippy::too_many_arguments)]
pub fn ImageList_LoadImageA(
    cx: &mut Ctx,
    hi: u32,
    lpbmp: u32,
    cx_: i32,
    cGrow: i32,
    crMask: u32,
    uType: u32,
    uFlags: u32,
) -> ApiResult<u32> {
    load_image(cx, hi, lpbmp, cx_, cGrow, crMask, uType, uFlags, false)
}

#[allow(clippy::too_many_arguments)]
pub fn ImageList_LoadImageW(
    cx: &mut Ctx,
    hi: u32,
    lpbmp: u32,
    cx_: i32,
    cGrow: i32,
    crMask: u32,
    uType: u32,
    uFlags: u32,
) -> ApiResult<u32> {
    load_image(cx, hi, lpbmp, cx_, cGrow, crMask, uType, uFlags, true)
}

// ---- streams ----------------------------------------------------------------------------

/// Reads exactly `n` bytes from guest IStream `stream` (IStream::Read, vtable slot 3);
/// None if the stream ends first or Read fails.
fn stream_read(cx: &mut Ctx, stream: u32, n: usize) -> UR<Option<Vec<u8>>> {
    const CHUNK: u32 = 4096;
    let read_fn = {
        let vt = cx.proc.mem.read_u32(stream)?;
        cx.proc.mem.read_u32(vt + 12)?
    };
    let mut out = Vec::with_capacity(n);
    let (buf, esp) = crate::user32::stack_alloc(cx, CHUNK + 4);
    let r = (|| -> UR<bool> {
        while out.len() < n {
            let want = (n - out.len()).min(CHUNK as usize) as u32;
            cx.proc.mem.write_u32(buf + CHUNK, 0)?;
            let hr = crate::user32::guest(cx, read_fn, &[stream, buf, want, buf + CHUNK])?;
            let got = cx.proc.mem.read_u32(buf + CHUNK)?.min(want);
            if hr as i32 != 0 && hr != 1 {
                return Ok(false);
            }
            let mut b = vec![0u8; got as usize];
            cx.proc.mem.read_bytes(buf, &mut b)?;
            out.extend_from_slice(&b);
            if got < want {
                return Ok(false);
            }
        }
        Ok(true)
    })();
    crate::user32::stack_free(cx, esp);
    Ok(r?.then_some(out))
}

/// Writes `data` to guest IStream `stream` (IStream::Write, vtable slot 4).
fn stream_write(cx: &mut Ctx, stream: u32, data: &[u8]) -> UR<bool> {
    const CHUNK: usize = 4096;
    let write_fn = {
        let vt = cx.proc.mem.read_u32(stream)?;
        cx.proc.mem.read_u32(vt + 16)?
    };
    let (buf, esp) = crate::user32::stack_alloc(cx, CHUNK as u32 + 4);
    let r = (|| -> UR<bool> {
        for part in data.chunks(CHUNK) {
            cx.proc.mem.write_bytes(buf, part)?;
            cx.proc.mem.write_u32(buf + CHUNK as u32, 0)?;
            let hr = crate::user32::guest(
                cx,
                write_fn,
                &[stream, buf, part.len() as u32, buf + CHUNK as u32],
            )?;
            let put = cx.proc.mem.read_u32(buf + CHUNK as u32)?;
            if hr != 0 || put as usize != part.len() {
                return Ok(false);
            }
        }
        Ok(true)
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// Reads one BMP file (BITMAPFILEHEADER, BITMAPINFOHEADER, colour table, bits) from
/// the stream: (width, height, pixels rows top first).
fn read_bmp(cx: &mut Ctx, stream: u32) -> UR<Option<(i32, i32, Vec<u32>)>> {
    let Some(fh) = stream_read(cx, stream, 14)? else {
        return Ok(None);
    };
    if &fh[0..2] != b"BM" {
        return Ok(None);
    }
    let Some(mut ih) = stream_read(cx, stream, 40)? else {
        return Ok(None);
    };
    let le32 = |b: &[u8], o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let hsize = le32(&ih, 0) as usize;
    if !(40..=1024).contains(&hsize) {
        return Ok(None);
    }
    if hsize > 40 {
        let Some(rest) = stream_read(cx, stream, hsize - 40)? else {
            return Ok(None);
        };
        ih.extend(rest);
    }
    let width = le32(&ih, 4) as i32;
    let height = le32(&ih, 8) as i32;
    let bpp = u16::from_le_bytes([ih[14], ih[15]]) as usize;
    let compression = le32(&ih, 16);
    let mut clr_used = le32(&ih, 32) as usize;
    if bpp <= 8 && clr_used == 0 {
        clr_used = 1 << bpp;
    }
    let mut table_len = clr_used * 4;
    if compression == 3 && hsize == 40 {
        table_len += 12;
    }
    let stride = (width.unsigned_abs() as usize * bpp).div_ceil(32) * 4;
    let bits_len = stride * height.unsigned_abs() as usize;
    if bits_len > 64 << 20 {
        return Ok(None);
    }
    let Some(rest) = stream_read(cx, stream, table_len + bits_len)? else {
        return Ok(None);
    };
    ih.extend(rest);
    let pal = crate::gdi32::palette::default_palette();
    let info = crate::gdi32::dib::parse_info(&ih, crate::gdi32::dib::DIB_RGB_COLORS, &pal)?;
    let px = crate::gdi32::dib::decode_image(&info.fmt, &ih[info.header_len..])?;
    Ok(Some((info.fmt.width, info.fmt.height, px)))
}

/// ImageList_Read: a new list from an ILHEAD and its bitmaps, or NULL.
pub fn ImageList_Read(cx: &mut Ctx, pstm: u32) -> ApiResult<Outcome> {
    crate::user32::fin(read_list(cx, pstm))
}

fn read_list(cx: &mut Ctx, pstm: u32) -> UR<u32> {
    if pstm == 0 {
        return Ok(0);
    }
    let Some(h) = stream_read(cx, pstm, 28)? else {
        return Ok(0);
    };
    let w16 = |o: usize| u16::from_le_bytes([h[o], h[o + 1]]);
    if w16(0) != IL_MAGIC || w16(2) != IL_VERSION {
        log::warn!(
            "ImageList_Read: stream holds no image list (magic {:#x}, version {:#x})",
            w16(0),
            w16(2)
        );
        return Ok(0);
    }
    let (cur, grow, icx, icy) = (w16(4) as usize, w16(8), w16(10) as i32, w16(12) as i32);
    let bk = u32::from_le_bytes([h[14], h[15], h[16], h[17]]);
    let flags = w16(18) as u32;
    let ovls: Vec<i16> = (0..4).map(|k| w16(20 + 2 * k) as i16).collect();
    let Some((w, hgt, px)) = read_bmp(cx, pstm)? else {
        return Ok(0);
    };
    let mask = if flags & ILC_MASK != 0 {
        let Some((mw, mh, mpx)) = read_bmp(cx, pstm)? else {
            return Ok(0);
        };
        let mut t = vec![false; (w * hgt).max(0) as usize];
        for y in 0..hgt.min(mh) {
            for x in 0..w.min(mw) {
                t[(y * w + x) as usize] = mpx[(y * mw + x) as usize] & 0xff_ffff == 0xff_ffff;
            }
        }
        Some(t)
    } else {
        None
    };
    let himl = create(cx.proc, icx, icy, flags, grow as u32);
    with(cx.proc, himl, |l| {
        let mut imgs = l.cut(w, hgt, &px, mask.as_deref());
        imgs.truncate(cur);
        l.images = imgs;
        l.bk = bk;
        for (k, &o) in ovls.iter().enumerate() {
            l.overlays[k] = o as i32;
        }
    });
    Ok(himl)
}

/// A BMP file of `w` x `h` pixels: 24 bits, or 1 bit black and white for a mask.
fn bmp_file(w: i32, h: i32, px: &[u32], mono: bool) -> Vec<u8> {
    let bpp: usize = if mono { 1 } else { 24 };
    let stride = (w as usize * bpp).div_ceil(32) * 4;
    let table = if mono { 8 } else { 0 };
    let off = 14 + 40 + table;
    let size = off + stride * h as usize;
    let mut b = Vec::with_capacity(size);
    b.extend_from_slice(b"BM");
    b.extend((size as u32).to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend((off as u32).to_le_bytes());
    b.extend(40u32.to_le_bytes());
    b.extend(w.to_le_bytes());
    b.extend(h.to_le_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend((bpp as u16).to_le_bytes());
    b.extend([0u8; 4]);
    b.extend(((stride * h as usize) as u32).to_le_bytes());
    b.extend([0u8; 8]);
    b.extend((if mono { 2u32 } else { 0 }).to_le_bytes());
    b.extend([0u8; 4]);
    if mono {
        b.extend([0, 0, 0, 0, 0xff, 0xff, 0xff, 0]);
    }
    for y in (0..h).rev() {
        let mut row = vec![0u8; stride];
        for x in 0..w as usize {
            let p = px[y as usize * w as usize + x];
            if mono {
                if p & 0xff_ffff != 0 {
                    row[x / 8] |= 0x80 >> (x % 8);
                }
            } else {
                row[3 * x] = p as u8;
                row[3 * x + 1] = (p >> 8) as u8;
                row[3 * x + 2] = (p >> 16) as u8;
            }
        }
        b.extend(row);
    }
    b
}

/// The stream form of a list: ILHEAD, then the images four to a row as a BMP, then
/// the mask the same way if the list has one.
fn serialize(l: &ImageList) -> Vec<u8> {
    let n = l.images.len();
    let rows = n.div_ceil(WRITE_COLUMNS).max(1);
    let (w, h) = (l.cx * WRITE_COLUMNS as i32, l.cy * rows as i32);
    let mut px = vec![0u32; (w * h) as usize];
    let mut mp = vec![0u32; (w * h) as usize];
    for (k, im) in l.images.iter().enumerate() {
        let (c, r) = ((k % WRITE_COLUMNS) as i32, (k / WRITE_COLUMNS) as i32);
        for y in 0..l.cy {
            for x in 0..l.cx {
                let s = (y * l.cx + x) as usize;
                let d = ((r * l.cy + y) * w + c * l.cx + x) as usize;
                px[d] = im.px[s];
                mp[d] = if im.transparent[s] { 0xff_ffff } else { 0 };
            }
        }
    }
    let mut out = Vec::new();
    for v in [
        IL_MAGIC,
        IL_VERSION,
        n as u16,
        (rows * WRITE_COLUMNS) as u16,
        l.grow as u16,
        l.cx as u16,
        l.cy as u16,
    ] {
        out.extend(v.to_le_bytes());
    }
    out.extend(l.bk.to_le_bytes());
    out.extend((l.flags as u16).to_le_bytes());
    for o in &l.overlays[..4] {
        out.extend((*o as i16).to_le_bytes());
    }
    out.extend(bmp_file(w, h, &px, false));
    if l.masked() {
        out.extend(bmp_file(w, h, &mp, true));
    }
    out
}

pub fn ImageList_Write(cx: &mut Ctx, himl: u32, pstm: u32) -> ApiResult<Outcome> {
    let Some(l) = get(cx.proc, himl) else {
        return Ok(Outcome::Return(0));
    };
    if pstm == 0 {
        return Ok(Outcome::Return(0));
    }
    let data = serialize(&l);
    crate::user32::fin(stream_write(cx, pstm, &data).map(u32::from))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("IImageList::QueryInterface", IImageList_QueryInterface),
        stdcall("IImageList::AddRef", IImageList_AddRef),
        stdcall("IImageList::Release", IImageList_Release),
        stdcall("IImageList::GetImageCount", IImageList_GetImageCount),
        stdcall("IImageList::GetIconSize", IImageList_GetIconSize),
        stdcall("ImageList_Create", ImageList_Create),
        stdcall("ImageList_Destroy", ImageList_Destroy),
        stdcall("ImageList_Add", ImageList_Add),
        stdcall("ImageList_AddMasked", ImageList_AddMasked),
        stdcall("ImageList_Replace", ImageList_Replace),
        stdcall("ImageList_ReplaceIcon", ImageList_ReplaceIcon),
        stdcall("ImageList_Remove", ImageList_Remove),
        stdcall("ImageList_GetImageCount", ImageList_GetImageCount),
        stdcall("ImageList_SetImageCount", ImageList_SetImageCount),
        stdcall("ImageList_GetIconSize", ImageList_GetIconSize),
        stdcall("ImageList_SetIconSize", ImageList_SetIconSize),
        stdcall("ImageList_SetBkColor", ImageList_SetBkColor),
        stdcall("ImageList_GetBkColor", ImageList_GetBkColor),
        stdcall("ImageList_SetOverlayImage", ImageList_SetOverlayImage),
        stdcall("ImageList_Draw", ImageList_Draw),
        stdcall("ImageList_DrawEx", ImageList_DrawEx),
        stdcall("ImageList_DrawIndirect", ImageList_DrawIndirect),
        stdcall("ImageList_GetIcon", ImageList_GetIcon),
        stdcall("ImageList_GetImageInfo", ImageList_GetImageInfo),
        stdcall("ImageList_Duplicate", ImageList_Duplicate),
        stdcall("ImageList_LoadImageA", ImageList_LoadImageA),
        stdcall("ImageList_LoadImageW", ImageList_LoadImageW),
        stdcall("ImageList_LoadImage", ImageList_LoadImageA),
        stdcall("ImageList_Read", ImageList_Read),
        stdcall("ImageList_Write", ImageList_Write),
    ]
}

/// Draws the opaque pixels of image `i` at (x, y) in one colour (0x00RRGGBB): what
/// a toolbar's disabled button is made of.
pub fn draw_solid(
    proc: &Process,
    himl: u32,
    i: i32,
    hdc: u32,
    x: i32,
    y: i32,
    rgb: u32,
) -> ApiResult<bool> {
    let Some(l) = get(proc, himl) else {
        return Ok(false);
    };
    let Some(im) = usize::try_from(i).ok().and_then(|i| l.images.get(i)) else {
        return Ok(false);
    };
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let (dl, dt) = d.to_dev(x, y);
    let src = Source {
        w: l.cx,
        h: l.cy,
        px: vec![rgb; im.px.len()],
        mono: false,
        bk: 0,
    };
    // Pixels of the light grey face stay transparent, like the mask's.
    let face = cr_to_rgb(crate::gdi32::paint::sys_color(
        crate::gdi32::paint::COLOR_BTNFACE,
    ));
    let m = Source {
        w: l.cx,
        h: l.cy,
        px: im
            .px
            .iter()
            .zip(&im.transparent)
            .map(|(&p, &t)| {
                if t || (!l.masked() && p == face) {
                    0xff_ffff
                } else {
                    0
                }
            })
            .collect(),
        mono: true,
        bk: 0xff_ffff,
    };
    let mask = Mask {
        bits: &m,
        x: 0,
        y: 0,
        background: 0xcc,
    };
    bitmap::blit_masked(
        proc,
        &d,
        (dl, dt, l.cx, l.cy),
        Some((&src, (0, 0, l.cx, l.cy))),
        0xaa,
        Some(mask),
    )?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(cx: i32, cy: i32) -> ImageList {
        ImageList {
            cx,
            cy,
            flags: ILC_MASK,
            bk: CLR_NONE,
            grow: 4,
            images: Vec::new(),
            overlays: [-1; 15],
            info_bitmaps: None,
        }
    }

    #[test]
    fn cut_goes_left_to_right_then_down() {
        let l = list(2, 1);
        let px: Vec<u32> = (0..8).collect();
        let imgs = l.cut(4, 2, &px, None);
        assert_eq!(imgs.len(), 4);
        assert_eq!(imgs[1].px, vec![2, 3]);
        assert_eq!(imgs[2].px, vec![4, 5]);
    }

    #[test]
    fn written_stream_has_the_documented_header() {
        let mut l = list(2, 2);
        l.images = l.cut(4, 2, &[1, 2, 3, 4, 5, 6, 7, 8], Some(&[true; 8]));
        let s = serialize(&l);
        assert_eq!(&s[0..4], &[0x49, 0x4c, 0x01, 0x01]);
        assert_eq!(u16::from_le_bytes([s[4], s[5]]), 2);
        assert_eq!(&s[28..30], b"BM");
        let bmp_len = u32::from_le_bytes([s[30], s[31], s[32], s[33]]) as usize;
        assert_eq!(&s[28 + bmp_len..30 + bmp_len], b"BM");
    }
}
