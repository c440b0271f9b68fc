//! WGL: rendering contexts, the pixel-format functions (GDI32's, which
//! OPENGL32 exports under wgl names too), SwapBuffers and wglGetProcAddress.
//!
//! A swap presents like a DirectDraw flip: it waits for the vertical blank of the
//! 60 Hz refresh (virtual in deterministic runs), hands the renderer's picture to
//! the window the DC draws on, and counts a presented frame (`--frames`).

use super::{Context, Drawable, Gl, Inner};
use crate::gdi32::pixelformat::{self, dc_window, window_format};
use crate::hle::{ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr};
use crate::teb::set_last_error;

const ERROR_INVALID_HANDLE: u32 = 6;
const ERROR_BUSY: u32 = 170;
const ERROR_INVALID_PIXEL_FORMAT: u32 = 2000;
const FIRST_HGLRC: u32 = 0x0001_0000;

/// The window's client size (1x1 at least: GL needs a drawable).
fn client_size(cx: &Ctx, hwnd: u32) -> (u32, u32) {
    crate::user32::present::client_on_screen(cx.proc, hwnd).map_or((1, 1), |r| {
        (r.width().max(1) as u32, r.height().max(1) as u32)
    })
}

fn ensure_renderer(cx: &Ctx, g: &mut Inner) -> ApiResult<()> {
    if g.dev.renderer.is_some() {
        return Ok(());
    }
    if let Some(e) = &g.dev.renderer_error {
        return Err(ApiError::Other(format!("OPENGL32: no renderer: {e}")));
    }
    match crate::glrender::create(cx.proc) {
        Ok(r) => {
            log::info!("OPENGL32: rendering with {}", r.name());
            g.dev.renderer = Some(r);
            Ok(())
        }
        Err(e) => {
            g.dev.renderer_error = Some(e.clone());
            Err(ApiError::Other(format!("OPENGL32: no renderer: {e}")))
        }
    }
}

pub fn wglCreateContext(cx: &mut Ctx, hdc: u32) -> ApiResult<u32> {
    let Some(hwnd) = dc_window(cx.proc, hdc) else {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(0);
    };
    if hwnd == 0 {
        return Err(ApiError::UnimplementedCase(
            "wglCreateContext on a memory or screen DC (rendering into bitmaps)".into(),
        ));
    }
    let pf = window_format(cx.proc, hwnd);
    let Some(format) = pixelformat::format(pf) else {
        set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
        return Ok(0);
    };
    let gl = cx.proc.slot::<Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    ensure_renderer(cx, &mut g)?;
    g.next_handle += 1;
    let h = FIRST_HGLRC + g.next_handle;
    g.dev.next_group += 1;
    let share = g.dev.next_group;
    g.dev.groups.entry(share).or_default().members += 1;
    let mut c = Context::new(share, format);
    c.pixel_format = pf;
    g.contexts.insert(h, c);
    Ok(h)
}

/// Leaves the context current nowhere, with its pending drawing handed over.
fn release(g: &mut Inner, h: u32) {
    let Inner { contexts, dev, .. } = g;
    if let Some(c) = contexts.get_mut(&h) {
        super::cmd::flush(c, dev);
        c.thread = None;
    }
}

pub fn wglMakeCurrent(cx: &mut Ctx, hdc: u32, hglrc: u32) -> ApiResult<bool> {
    let tid = cx.thread.tid;
    let gl = cx.proc.slot::<Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    if hglrc == 0 {
        if let Some(old) = g.current.remove(&tid) {
            release(&mut g, old);
        }
        return Ok(true);
    }
    let Some(c) = g.contexts.get(&hglrc) else {
        drop(g);
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if c.thread.is_some_and(|t| t != tid) {
        drop(g);
        set_last_error(cx, ERROR_BUSY)?;
        return Ok(false);
    }
    let pf = c.pixel_format;
    let hwnd = match dc_window(cx.proc, hdc) {
        Some(h) if h != 0 => h,
        _ => {
            drop(g);
            set_last_error(cx, ERROR_INVALID_HANDLE)?;
            return Ok(false);
        }
    };
    if window_format(cx.proc, hwnd) != pf {
        drop(g);
        set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
        return Ok(false);
    }
    if let Some(old) = g.current.insert(tid, hglrc)
        && old != hglrc
    {
        release(&mut g, old);
    }
    let (w, h) = client_size(cx, hwnd);
    let Inner { contexts, dev, .. } = &mut *g;
    let Some(c) = contexts.get_mut(&hglrc) else {
        return Ok(false);
    };
    super::cmd::flush(c, dev);
    c.thread = Some(tid);
    c.hdc = hdc;
    c.drawable = Some(Drawable {
        hwnd,
        width: w,
        height: h,
    });
    if !c.was_current {
        // The first time a context is made current its viewport and scissor box
        // become the window's size.
        c.was_current = true;
        c.s.viewport = [0, 0, w as i32, h as i32];
        c.s.scissor = [0, 0, w as i32, h as i32];
    }
    if let Some(r) = dev.renderer.as_deref_mut() {
        r.resize(hwnd, w, h);
    }
    Ok(true)
}

pub fn wglDeleteContext(cx: &mut Ctx, hglrc: u32) -> ApiResult<bool> {
    let tid = cx.thread.tid;
    let gl = cx.proc.slot::<Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    let Some(c) = g.contexts.get(&hglrc) else {
        drop(g);
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if c.thread.is_some_and(|t| t != tid) {
        drop(g);
        set_last_error(cx, ERROR_BUSY)?;
        return Ok(false);
    }
    if g.current.get(&tid) == Some(&hglrc) {
        g.current.remove(&tid);
        release(&mut g, hglrc);
    }
    if let Some(c) = g.contexts.remove(&hglrc) {
        leave_group(&mut g, c.share);
    }
    Ok(true)
}

/// A context leaves its share group; the last one out deletes its objects.
fn leave_group(g: &mut Inner, share: u32) {
    let gone = match g.dev.groups.get_mut(&share) {
        Some(grp) => {
            grp.members = grp.members.saturating_sub(1);
            grp.members == 0
        }
        None => false,
    };
    if gone
        && let Some(grp) = g.dev.groups.remove(&share)
        && let Some(r) = g.dev.renderer.as_deref_mut()
    {
        for name in grp.textures.keys() {
            r.delete_texture((share, *name));
        }
    }
}

pub fn wglGetCurrentContext(cx: &mut Ctx) -> u32 {
    let gl = cx.proc.slot::<Gl>();
    let g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    g.current.get(&cx.thread.tid).copied().unwrap_or(0)
}

pub fn wglGetCurrentDC(cx: &mut Ctx) -> u32 {
    let gl = cx.proc.slot::<Gl>();
    let g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    g.current
        .get(&cx.thread.tid)
        .and_then(|h| g.contexts.get(h))
        .map_or(0, |c| c.hdc)
}

/// wglShareLists(hglrc1, hglrc2): the second context joins the first's share
/// group; it must not have made display lists or textures of its own yet.
pub fn wglShareLists(cx: &mut Ctx, hglrc1: u32, hglrc2: u32) -> ApiResult<bool> {
    let gl = cx.proc.slot::<Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(a), Some(b)) = (g.contexts.get(&hglrc1), g.contexts.get(&hglrc2)) else {
        drop(g);
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let (sa, sb) = (a.share, b.share);
    if sa == sb {
        return Ok(true);
    }
    let used = g
        .dev
        .groups
        .get(&sb)
        .is_some_and(|grp| grp.textures.keys().any(|&n| n != 0) || !grp.list_names.is_empty());
    if used {
        drop(g);
        set_last_error(cx, ERROR_BUSY)?;
        return Ok(false);
    }
    leave_group(&mut g, sb);
    g.dev.groups.entry(sa).or_default().members += 1;
    if let Some(c) = g.contexts.get_mut(&hglrc2) {
        c.share = sa;
    }
    Ok(true)
}

/// The extension functions wglGetProcAddress hands out (HLE exports named
/// `ext::NAME`, which no import table can name).
pub const EXTENSION_FUNCTIONS: &[&str] = &[
    "glActiveTextureARB",
    "glClientActiveTextureARB",
    "glMultiTexCoord1fARB",
    "glMultiTexCoord1fvARB",
    "glMultiTexCoord2fARB",
    "glMultiTexCoord2fvARB",
    "glMultiTexCoord3fARB",
    "glMultiTexCoord3fvARB",
    "glMultiTexCoord4fARB",
    "glMultiTexCoord4fvARB",
    "glMultiTexCoord2dARB",
    "glMultiTexCoord2dvARB",
    "glMultiTexCoord2iARB",
    "glMultiTexCoord2ivARB",
    "glMultiTexCoord2sARB",
    "glMultiTexCoord2svARB",
    "glLockArraysEXT",
    "glUnlockArraysEXT",
];

pub fn wglGetProcAddress(cx: &mut Ctx, lpszProc: CStrPtr) -> ApiResult<u32> {
    if lpszProc.0 == 0 {
        return Ok(0);
    }
    let name = String::from_utf8_lossy(&crate::kernel32::string::read_cbytes(cx.proc, lpszProc.0)?)
        .into_owned();
    if EXTENSION_FUNCTIONS.contains(&name.as_str()) {
        let full = format!("ext::{name}");
        if let Some(d) = cx.proc.hle_dll("opengl32.dll")
            && let Some(k) = cx.proc.dlls[d].1.iter().position(|e| e.name == full)
        {
            return cx.proc.export_address(d, k);
        }
    }
    log::info!("wglGetProcAddress({name:?}): not an extension winterp offers; NULL");
    Ok(0)
}

/// SwapBuffers for GDI32 (and wglSwapBuffers).
pub fn swap_buffers(cx: &mut Ctx, hdc: u32) -> ApiResult<Outcome> {
    let Some(hwnd) = dc_window(cx.proc, hdc).filter(|&h| h != 0) else {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(Outcome::Return(0));
    };
    {
        let gl = cx.proc.slot::<Gl>();
        let g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
        let any = g
            .contexts
            .values()
            .any(|c| c.drawable.is_some_and(|d| d.hwnd == hwnd));
        if !any {
            drop(g);
            set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
            return Ok(Outcome::Return(0));
        }
        let single = g
            .contexts
            .values()
            .any(|c| c.drawable.is_some_and(|d| d.hwnd == hwnd) && !c.format.double_buffered());
        if single {
            // A single-buffered window shows its drawing as it happens: a swap
            // has nothing to exchange (glFlush presents).
            drop(g);
            present(cx, hdc, hwnd);
            return Ok(Outcome::Return(1));
        }
    }
    if let Some(o) = crate::ddraw::present::wait_vblank(cx, false) {
        return Ok(o);
    }
    present(cx, hdc, hwnd);
    Ok(Outcome::Return(1))
}

/// Hands the drawable's picture to its window and counts a presented frame.
pub fn present(cx: &mut Ctx, hdc: u32, hwnd: u32) {
    let (w, h) = client_size(cx, hwnd);
    let picture = {
        let gl = cx.proc.slot::<Gl>();
        let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Inner { contexts, dev, .. } = &mut *g;
        let mut size = None;
        for c in contexts.values_mut() {
            if let Some(d) = c.drawable.filter(|d| d.hwnd == hwnd) {
                super::cmd::flush(c, dev);
                size = Some((d.width, d.height));
            }
        }
        let Some((dw, dh)) = size else { return };
        let Some(r) = dev.renderer.as_deref_mut() else {
            return;
        };
        let px = r.present(hwnd);
        dev.counting.frames = dev.last_frame.frames + 1;
        dev.last_frame = dev.counting;
        dev.counting = Default::default();
        if (dw, dh) != (w, h) {
            // The window changed size: the drawable follows it from the next frame.
            r.resize(hwnd, w, h);
            for c in contexts.values_mut() {
                if let Some(d) = c.drawable.as_mut().filter(|d| d.hwnd == hwnd) {
                    d.width = w;
                    d.height = h;
                }
            }
        }
        (px, dw, dh)
    };
    let (px, dw, dh) = picture;
    pixelformat::show_in_window_dc(cx.proc, hdc, dw, dh, &px);
    if let Some(f) = crate::display::current_frame(cx.proc) {
        crate::display::note_present(cx.proc, &f);
    }
}

pub fn wglSwapBuffers(cx: &mut Ctx, hdc: u32) -> ApiResult<Outcome> {
    swap_buffers(cx, hdc)
}

pub fn wglChoosePixelFormat(cx: &mut Ctx, hdc: u32, ppfd: Ptr) -> ApiResult<i32> {
    pixelformat::ChoosePixelFormat(cx, hdc, ppfd)
}

pub fn wglDescribePixelFormat(
    cx: &mut Ctx,
    hdc: u32,
    iPixelFormat: i32,
    nBytes: u32,
    ppfd: Ptr,
) -> ApiResult<i32> {
    pixelformat::DescribePixelFormat(cx, hdc, iPixelFormat, nBytes, ppfd)
}

pub fn wglGetPixelFormat(cx: &mut Ctx, hdc: u32) -> ApiResult<i32> {
    pixelformat::GetPixelFormat(cx, hdc)
}

pub fn wglSetPixelFormat(cx: &mut Ctx, hdc: u32, format: i32, ppfd: Ptr) -> ApiResult<bool> {
    pixelformat::SetPixelFormat(cx, hdc, format, ppfd)
}

/// glFlush/glFinish: the pending batch goes to the renderer; a single-buffered
/// window shows what was drawn.
pub fn flush(cx: &mut Ctx) -> ApiResult<()> {
    let shown = super::with_current(cx, |c, dev| {
        super::cmd::flush(c, dev);
        Ok((!c.format.double_buffered())
            .then_some(c.drawable.map(|d| (c.hdc, d.hwnd)))
            .flatten())
    })?;
    if let Some(Some((hdc, hwnd))) = shown {
        present(cx, hdc, hwnd);
    }
    Ok(())
}
