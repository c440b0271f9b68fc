//! GDI32.dll: device contexts, bitmaps and DIB sections, pens and brushes, drawing,
//! text and palettes. Drawing lands in [`surface::Surface`]s (window backing stores
//! and memory bitmaps) or directly in DIB section bits in guest memory.

#![allow(non_snake_case)]

pub mod surface;

use crate::hle::{ApiDef, HleDll};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::Mutex;
pub use surface::{Rect, Surface, SurfaceRef};

pub const DLL: HleDll = HleDll {
    name: "GDI32.dll",
    exports,
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

/// GDI32's process-wide state, in [`Process::gdi32`].
#[derive(Default)]
pub struct State {
    window_dcs: Mutex<HashMap<u32, WindowTarget>>,
    next_handle: Mutex<u32>,
}

impl State {
    fn alloc_handle(&self) -> u32 {
        let mut n = self.next_handle.lock().unwrap_or_else(|e| e.into_inner());
        *n += 4;
        // GDI handles live in their own range so they never collide with kernel handles.
        0x0100_0000 + *n
    }
}

/// A DC for drawing into a window (GetDC, BeginPaint, GetWindowDC): user32 calls this
/// with the window's backing store, client origin and visible area.
pub fn create_window_dc(proc: &Process, target: WindowTarget) -> u32 {
    let h = proc.gdi32.alloc_handle();
    proc.gdi32
        .window_dcs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(h, target);
    h
}

/// Ends a window DC (ReleaseDC, EndPaint). False if `hdc` is not a window DC.
pub fn release_window_dc(proc: &Process, hdc: u32) -> bool {
    proc.gdi32
        .window_dcs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&hdc)
        .is_some()
}

fn exports() -> Vec<ApiDef> {
    Vec::new()
}
