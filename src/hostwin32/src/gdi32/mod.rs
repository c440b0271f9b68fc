//! GDI32.dll: device contexts, bitmaps and DIB sections, pens and brushes, drawing,
//! text and palettes. Drawing lands in [`surface::Surface`]s (window backing stores
//! and memory bitmaps) or directly in DIB section bits in guest memory.
//!
//! All GDI objects and DCs live in one table ([`State`]); a drawing call copies what it
//! needs out of the table ([`dc::DrawCtx`]) and releases the table lock before it
//! touches pixels, so no GDI lock is held while a surface is locked.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

pub mod bitmap;
pub mod dc;
pub mod dib;
pub mod draw;
pub mod mapping;
pub mod metafile;
pub mod objects;
pub mod paint;
pub mod palette;
pub mod pixelformat;
pub mod raster;
pub mod region;
pub mod surface;
pub mod text;

#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, HleDll};
use crate::process::Process;
use objects::Obj;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
pub use surface::{Rect, Surface, SurfaceRef};

pub const DLL: HleDll = HleDll {
    name: "GDI32.dll",
    exports,
    attach: None,
};

/// Where a window DC draws: a window's backing store seen through its client origin
/// and clipped to its visible client area (both in surface pixels).
#[derive(Clone)]
pub struct WindowTarget {
    pub surface: SurfaceRef,
    pub origin: (i32, i32),
    pub clip: Rect,
    pub hwnd: u32,
}

/// The handle table: every GDI object and DC of the process.
pub struct Inner {
    pub objs: HashMap<u32, Obj>,
    pub dcs: HashMap<u32, dc::Dc>,
    next: u32,
    /// What CreateDC("DISPLAY") draws into: the screen outside any window, which the
    /// frame composer does not show.
    pub screen: Option<SurfaceRef>,
    /// The system palette (GetSystemPaletteEntries): the 20 static colours and the
    /// entries the last RealizePalette put in between.
    pub system_palette: Vec<u32>,
    /// What each metafile DC has recorded.
    pub meta_dcs: HashMap<u32, metafile::Recorder>,
    /// Finished metafiles (HMETAFILE and HENHMETAFILE handles).
    pub metafiles: HashMap<u32, metafile::MetaData>,
}

/// GDI32's process-wide state, in [`Process::gdi32`].
pub struct State {
    inner: Mutex<Inner>,
}

impl Default for State {
    fn default() -> State {
        let mut objs = HashMap::new();
        objects::add_stock_objects(&mut objs);
        State {
            inner: Mutex::new(Inner {
                objs,
                dcs: HashMap::new(),
                next: 0,
                screen: None,
                system_palette: palette::default_system_palette(),
                meta_dcs: HashMap::new(),
                metafiles: HashMap::new(),
            }),
        }
    }
}

/// First handle value of objects created at run time (stock objects sit below it).
const FIRST_HANDLE: u32 = 0x0100_1000;

impl State {
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    /// A fresh handle. GDI handles live in their own range so they never collide with
    /// kernel handles, and are never reused (a stale handle stays invalid).
    pub fn alloc_handle(&mut self) -> u32 {
        self.next += 4;
        FIRST_HANDLE + self.next
    }

    pub fn add_obj(&mut self, o: Obj) -> u32 {
        let h = self.alloc_handle();
        self.objs.insert(h, o);
        h
    }
}

/// The GDI objects this process holds (GetGuiResources): the pens, brushes, fonts,
/// bitmaps, palettes and regions it created, its DCs and its metafiles. Stock
/// objects belong to the system, as on Windows.
pub fn object_count(proc: &Process) -> u32 {
    let g = proc.gdi32.lock();
    let made = g.objs.keys().filter(|&&h| h >= FIRST_HANDLE).count();
    (made + g.dcs.len() + g.metafiles.len()) as u32
}

/// A DC for drawing into a window (GetDC, BeginPaint, GetWindowDC): user32 calls this
/// with the window's backing store, client origin and visible area.
pub fn create_window_dc(proc: &Process, target: WindowTarget) -> u32 {
    let mut g = proc.gdi32.lock();
    let h = g.alloc_handle();
    g.dcs.insert(h, dc::Dc::new(dc::DcKind::Window(target)));
    h
}

/// Ends a window DC (ReleaseDC, EndPaint). False if `hdc` is not a window DC.
pub fn release_window_dc(proc: &Process, hdc: u32) -> bool {
    let mut g = proc.gdi32.lock();
    match g.dcs.get(&hdc) {
        Some(d) if matches!(d.kind, dc::DcKind::Window(_)) => {
            g.dcs.remove(&hdc);
            true
        }
        _ => false,
    }
}

/// Updates a window DC's target after the window moved or was resized (user32 keeps
/// DCs of CS_OWNDC windows). False if `hdc` is not a window DC.
pub fn update_window_dc(proc: &Process, hdc: u32, target: WindowTarget) -> bool {
    let mut g = proc.gdi32.lock();
    match g.dcs.get_mut(&hdc) {
        Some(d) if matches!(d.kind, dc::DcKind::Window(_)) => {
            d.kind = dc::DcKind::Window(target);
            true
        }
        _ => false,
    }
}

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    v.extend(dc::exports());
    v.extend(mapping::exports());
    v.extend(objects::exports());
    v.extend(bitmap::exports());
    v.extend(draw::exports());
    v.extend(text::exports());
    v.extend(palette::exports());
    v.extend(pixelformat::exports());
    v.extend(region::exports());
    v.extend(metafile::exports());
    metafile::wrap(v)
}
