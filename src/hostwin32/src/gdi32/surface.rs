//! Host-side pixel stores: window backing stores and device-dependent bitmaps.

use std::sync::{Arc, Mutex};

/// A rectangle with exclusive right/bottom edges, as Windows' RECT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Rect {
    pub fn new(left: i32, top: i32, right: i32, bottom: i32) -> Rect {
        Rect {
            left,
            top,
            right,
            bottom,
        }
    }
    pub fn width(&self) -> i32 {
        self.right - self.left
    }
    pub fn height(&self) -> i32 {
        self.bottom - self.top
    }
    pub fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top
    }
    pub fn intersect(&self, o: &Rect) -> Rect {
        Rect::new(
            self.left.max(o.left),
            self.top.max(o.top),
            self.right.min(o.right),
            self.bottom.min(o.bottom),
        )
    }
    pub fn offset(&self, dx: i32, dy: i32) -> Rect {
        Rect::new(
            self.left + dx,
            self.top + dy,
            self.right + dx,
            self.bottom + dy,
        )
    }
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }
}

/// 32-bit pixels, 0x00RRGGBB, row-major with no padding.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u32>,
}

pub type SurfaceRef = Arc<Mutex<Surface>>;

impl Surface {
    pub fn new(width: u32, height: u32) -> Surface {
        Surface {
            width,
            height,
            pixels: vec![0; width as usize * height as usize],
        }
    }

    pub fn new_ref(width: u32, height: u32) -> SurfaceRef {
        Arc::new(Mutex::new(Surface::new(width, height)))
    }

    /// Resizes keeping the overlapping top-left part (window resize).
    pub fn resize(&mut self, width: u32, height: u32) {
        let mut p = vec![0; width as usize * height as usize];
        let w = width.min(self.width) as usize;
        for y in 0..height.min(self.height) as usize {
            let src = y * self.width as usize;
            let dst = y * width as usize;
            p[dst..dst + w].copy_from_slice(&self.pixels[src..src + w]);
        }
        self.width = width;
        self.height = height;
        self.pixels = p;
    }

    /// A copy of `r` (clipped to the surface) as its own surface.
    pub fn crop(&self, r: Rect) -> Surface {
        let r = r.intersect(&Rect::new(0, 0, self.width as i32, self.height as i32));
        if r.is_empty() {
            return Surface::new(0, 0);
        }
        let mut out = Surface::new(r.width() as u32, r.height() as u32);
        for y in 0..r.height() as usize {
            let src = (r.top as usize + y) * self.width as usize + r.left as usize;
            let dst = y * out.width as usize;
            out.pixels[dst..dst + out.width as usize]
                .copy_from_slice(&self.pixels[src..src + out.width as usize]);
        }
        out
    }
}
