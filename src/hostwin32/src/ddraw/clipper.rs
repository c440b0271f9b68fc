//! IDirectDrawClipper: where blits into a surface may land, as an explicit list of
//! rectangles (SetClipList) or a window's client area on the screen (SetHWnd, for
//! the primary surface of a windowed program).

use super::iface::{self, com_exports};
use super::{
    DDERR_INVALIDOBJECT, DDERR_INVALIDPARAMS, DDERR_NOCLIPLIST, DdErr, DdResult, Inner, Kind, fail,
    hr,
};
use crate::gdi32::Rect;
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr};
use crate::process::Process;

pub const DDERR_CLIPPERISUSINGHWND: u32 = 0x8876_0237;
const RDH_RECTANGLES: u32 = 1;

#[derive(Default)]
pub struct Clip {
    pub hwnd: u32,
    pub list: Option<Vec<Rect>>,
}

pub fn create(cx: &mut Ctx, _dwFlags: u32, lplpDDClipper: Ptr) -> DdResult<()> {
    if lplpDDClipper.is_null() {
        return fail(DDERR_INVALIDPARAMS);
    }
    let mut g = cx.proc.ddraw.lock();
    let id = g.new_id();
    g.clippers.insert(id, Clip::default());
    let p = iface::get(cx.proc, &mut g, id, Kind::Clipper)?;
    if cx.proc.mem.write_u32(lplpDDClipper.0, p).is_err() {
        iface::release_ptr(cx.proc, &mut g, p)?;
        return fail(DDERR_INVALIDPARAMS);
    }
    Ok(())
}

/// The rectangles of clipper object `id` (screen or surface coordinates), or
/// `None` when it has neither a list nor a window.
pub fn rects(proc: &Process, g: &Inner, id: u32) -> Option<Vec<Rect>> {
    let c = g.clippers.get(&id)?;
    if c.hwnd != 0 {
        return crate::user32::present::client_on_screen(proc, c.hwnd).map(|r| vec![r]);
    }
    c.list.clone()
}

fn this_clipper(cx: &Ctx, this: u32) -> DdResult<u32> {
    let g = cx.proc.ddraw.lock();
    iface::lookup(&g, this, iface::is_clipper)
        .map(|(_, o)| o)
        .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))
}

pub fn read_rect(proc: &Process, at: u32) -> DdResult<Rect> {
    Ok(Rect::new(
        proc.mem.read_u32(at)? as i32,
        proc.mem.read_u32(at + 4)? as i32,
        proc.mem.read_u32(at + 8)? as i32,
        proc.mem.read_u32(at + 12)? as i32,
    ))
}

pub fn write_rect(proc: &Process, at: u32, r: Rect) -> DdResult<()> {
    for (k, v) in [r.left, r.top, r.right, r.bottom].iter().enumerate() {
        proc.mem.write_u32(at + 4 * k as u32, *v as u32)?;
    }
    Ok(())
}

/// GetClipList: an RGNDATA (32-byte RGNDATAHEADER, then the rectangles), cut to
/// `lpRect` if given; with a NULL buffer only the size it needs.
fn GetClipList(
    cx: &mut Ctx,
    this: u32,
    lpRect: Ptr,
    lpClipList: Ptr,
    lpdwSize: Ptr,
) -> ApiResult<u32> {
    let r = (|| {
        let id = this_clipper(cx, this)?;
        let list = {
            let g = cx.proc.ddraw.lock();
            rects(cx.proc, &g, id)
        };
        let Some(mut list) = list else {
            return fail(DDERR_NOCLIPLIST);
        };
        if !lpRect.is_null() {
            let cut = read_rect(cx.proc, lpRect.0)?;
            list = list
                .iter()
                .map(|r| r.intersect(&cut))
                .filter(|r| !r.is_empty())
                .collect();
        }
        if lpdwSize.is_null() {
            return fail(DDERR_INVALIDPARAMS);
        }
        let need = 32 + 16 * list.len() as u32;
        if lpClipList.is_null() {
            cx.proc.mem.write_u32(lpdwSize.0, need)?;
            return Ok(());
        }
        let have = cx.proc.mem.read_u32(lpdwSize.0)?;
        if have < need {
            cx.proc.mem.write_u32(lpdwSize.0, need)?;
            return fail(super::DDERR_REGIONTOOSMALL);
        }
        let at = lpClipList.0;
        let bound = list
            .iter()
            .skip(1)
            .fold(list.first().copied().unwrap_or_default(), |b, r| {
                Rect::new(
                    b.left.min(r.left),
                    b.top.min(r.top),
                    b.right.max(r.right),
                    b.bottom.max(r.bottom),
                )
            });
        cx.proc.mem.write_u32(at, 32)?;
        cx.proc.mem.write_u32(at + 4, RDH_RECTANGLES)?;
        cx.proc.mem.write_u32(at + 8, list.len() as u32)?;
        cx.proc.mem.write_u32(at + 12, 16 * list.len() as u32)?;
        write_rect(cx.proc, at + 16, bound)?;
        for (k, r) in list.iter().enumerate() {
            write_rect(cx.proc, at + 32 + 16 * k as u32, *r)?;
        }
        cx.proc.mem.write_u32(lpdwSize.0, need)?;
        Ok(())
    })();
    hr(r)
}

fn GetHWnd(cx: &mut Ctx, this: u32, lphWnd: Ptr) -> ApiResult<u32> {
    let r = (|| {
        let id = this_clipper(cx, this)?;
        let h = cx.proc.ddraw.lock().clippers.get(&id).map_or(0, |c| c.hwnd);
        cx.proc.mem.write_u32(lphWnd.0, h)?;
        Ok(())
    })();
    hr(r)
}

fn Initialize(cx: &mut Ctx, this: u32, _lpDD: u32, _dwFlags: u32) -> ApiResult<u32> {
    hr(this_clipper(cx, this).and_then(|_| fail(super::object::DDERR_ALREADYINITIALIZED)))
}

/// SetClipList: an RGNDATA of rectangles, or NULL to remove the list.
fn SetClipList(cx: &mut Ctx, this: u32, lpClipList: Ptr, _dwFlags: u32) -> ApiResult<u32> {
    let r = (|| {
        let id = this_clipper(cx, this)?;
        let list = if lpClipList.is_null() {
            None
        } else {
            let at = lpClipList.0;
            let n = cx.proc.mem.read_u32(at + 8)?;
            if cx.proc.mem.read_u32(at + 4)? != RDH_RECTANGLES || n > 4096 {
                return fail(super::DDERR_INVALIDCLIPLIST);
            }
            let hdr = cx.proc.mem.read_u32(at)?.max(32);
            let mut v = Vec::new();
            for k in 0..n {
                v.push(read_rect(cx.proc, at + hdr + 16 * k)?);
            }
            Some(v)
        };
        let mut g = cx.proc.ddraw.lock();
        let c = g
            .clippers
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        if c.hwnd != 0 {
            return fail(DDERR_CLIPPERISUSINGHWND);
        }
        c.list = list;
        Ok(())
    })();
    hr(r)
}

fn SetHWnd(cx: &mut Ctx, this: u32, _dwFlags: u32, hWnd: u32) -> ApiResult<u32> {
    let r = (|| {
        let id = this_clipper(cx, this)?;
        let mut g = cx.proc.ddraw.lock();
        let c = g
            .clippers
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        c.hwnd = hWnd;
        c.list = None;
        Ok(())
    })();
    hr(r)
}

pub fn exports() -> Vec<ApiDef> {
    com_exports!("IDirectDrawClipper";
        QueryInterface => iface::QueryInterface,
        AddRef => iface::AddRef,
        Release => iface::Release,
        GetClipList => GetClipList,
        GetHWnd => GetHWnd,
        Initialize => Initialize,
        SetClipList => SetClipList,
        SetHWnd => SetHWnd,
        ;
        IsClipListChanged(1),
    )
}
