//! Where the guest frame goes in the player window, and the way back: window pixels
//! to guest frame pixels for mouse input.
//!
//! Everything here is in physical window pixels. The presenter draws the guest frame
//! into [`Viewport`] with nearest-neighbour sampling, so window pixel column `c`
//! (centre `c + 0.5`) shows guest column `floor((c + 0.5 - x) * guest_w / w)`;
//! [`Viewport::to_guest`] uses the same formula, which is what makes a click land on
//! the guest pixel the user sees under the pointer.

/// How the guest frame is fitted into the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScaleMode {
    /// The largest whole multiple of the guest size that fits (crisp pixels); when
    /// even 1x does not fit, falls back to [`ScaleMode::Aspect`] so nothing is cut off.
    #[default]
    Integer,
    /// As large as fits while keeping the guest's aspect ratio.
    Aspect,
}

/// A rectangle in window pixels: the area available for the guest (the window minus
/// the menu bar) or the part of it the guest frame covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: u32,
    pub h: u32,
}

/// The guest frame's place in the window, for a guest frame of `guest_w` x `guest_h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewport {
    /// Where the frame is drawn (the rest of the area is letterbox).
    pub rect: Rect,
    pub guest_w: u32,
    pub guest_h: u32,
}

/// Fits a `guest_w` x `guest_h` frame into `area`, centred. `None` when either side
/// is empty (minimised window, no frame).
pub fn fit(mode: ScaleMode, guest_w: u32, guest_h: u32, area: Rect) -> Option<Viewport> {
    if guest_w == 0 || guest_h == 0 || area.w == 0 || area.h == 0 {
        return None;
    }
    let (w, h) = match mode {
        ScaleMode::Integer if area.w >= guest_w && area.h >= guest_h => {
            let k = (area.w / guest_w).min(area.h / guest_h);
            (guest_w * k, guest_h * k)
        }
        _ => aspect_size(guest_w, guest_h, area.w, area.h),
    };
    // Odd leftovers put the extra pixel on the right/bottom.
    let x = area.x + ((area.w - w) / 2) as i32;
    let y = area.y + ((area.h - h) / 2) as i32;
    Some(Viewport {
        rect: Rect { x, y, w, h },
        guest_w,
        guest_h,
    })
}

/// The largest `w` x `h` with `w / h` as close to `gw / gh` as whole pixels allow
/// that fits in `aw` x `ah` (never 0 on either side).
fn aspect_size(gw: u32, gh: u32, aw: u32, ah: u32) -> (u32, u32) {
    let (gw, gh, aw, ah) = (gw as u64, gh as u64, aw as u64, ah as u64);
    if aw * gh <= ah * gw {
        // Width-limited: the frame spans the full width.
        let h = (gh * aw * 2 + gw) / (gw * 2); // rounded gh * aw / gw
        (aw as u32, h.clamp(1, ah) as u32)
    } else {
        let w = (gw * ah * 2 + gh) / (gh * 2);
        (w.clamp(1, aw) as u32, ah as u32)
    }
}

impl Viewport {
    /// The guest pixel shown at window position (`wx`, `wy`) (winit pointer positions
    /// are fractional physical pixels), or `None` outside the frame (letterbox, menu).
    pub fn to_guest(self, wx: f64, wy: f64) -> Option<(i32, i32)> {
        let (gx, gy) = self.to_guest_unclamped(wx, wy);
        let inside =
            (0..self.guest_w as i64).contains(&gx) && (0..self.guest_h as i64).contains(&gy);
        inside.then_some((gx as i32, gy as i32))
    }

    /// Like [`Viewport::to_guest`], but a position outside the frame maps to the
    /// nearest edge pixel (for button releases outside the frame, so the guest never
    /// keeps a button held).
    pub fn to_guest_clamped(self, wx: f64, wy: f64) -> (i32, i32) {
        let (gx, gy) = self.to_guest_unclamped(wx, wy);
        (
            gx.clamp(0, self.guest_w as i64 - 1) as i32,
            gy.clamp(0, self.guest_h as i64 - 1) as i32,
        )
    }

    fn to_guest_unclamped(self, wx: f64, wy: f64) -> (i64, i64) {
        let r = &self.rect;
        let gx = ((wx - r.x as f64) * self.guest_w as f64 / r.w as f64).floor();
        let gy = ((wy - r.y as f64) * self.guest_h as f64 / r.h as f64).floor();
        // NaN and huge values (pointer far outside) saturate instead of wrapping.
        (gx as i64, gy as i64)
    }

    /// The window position of the centre of guest pixel (`gx`, `gy`).
    pub fn guest_centre(self, gx: u32, gy: u32) -> (f64, f64) {
        let r = &self.rect;
        (
            r.x as f64 + (gx as f64 + 0.5) * r.w as f64 / self.guest_w as f64,
            r.y as f64 + (gy as f64 + 0.5) * r.h as f64 / self.guest_h as f64,
        )
    }

    /// The whole-pixel scale factor, when the frame is drawn at one.
    pub fn integer_scale(self) -> Option<u32> {
        (self.rect.w.is_multiple_of(self.guest_w)
            && self.rect.h.is_multiple_of(self.guest_h)
            && self.rect.w / self.guest_w == self.rect.h / self.guest_h)
            .then(|| self.rect.w / self.guest_w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(w: u32, h: u32) -> Rect {
        Rect { x: 0, y: 0, w, h }
    }

    /// Every guest pixel's centre in window space maps back to that pixel.
    fn assert_round_trip(vp: &Viewport) {
        for gy in 0..vp.guest_h {
            for gx in 0..vp.guest_w {
                let (wx, wy) = vp.guest_centre(gx, gy);
                assert_eq!(
                    vp.to_guest(wx, wy),
                    Some((gx as i32, gy as i32)),
                    "pixel ({gx},{gy}) centre ({wx},{wy}) in {vp:?}"
                );
            }
        }
    }

    #[test]
    fn integer_scale_picks_the_largest_whole_multiple_and_centres_it() {
        let vp = fit(ScaleMode::Integer, 320, 200, area(1000, 700)).unwrap();
        // 1000/320 = 3, 700/200 = 3 -> 960x600, margins 20 and 50.
        assert_eq!(
            vp.rect,
            Rect {
                x: 20,
                y: 50,
                w: 960,
                h: 600
            }
        );
        assert_eq!(vp.integer_scale(), Some(3));
        let vp = fit(ScaleMode::Integer, 640, 480, area(640, 480)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 0,
                y: 0,
                w: 640,
                h: 480
            }
        );
        // Limited by height: 1920/640 = 3 but 1000/480 = 2.
        let vp = fit(ScaleMode::Integer, 640, 480, area(1920, 1000)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 320,
                y: 20,
                w: 1280,
                h: 960
            }
        );
    }

    #[test]
    fn integer_scale_too_small_a_window_falls_back_to_aspect() {
        let vp = fit(ScaleMode::Integer, 640, 480, area(320, 480)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 0,
                y: 120,
                w: 320,
                h: 240
            }
        );
    }

    #[test]
    fn aspect_scale_fills_one_side_and_letterboxes_the_other() {
        // 4:3 in 16:9 -> pillarbox.
        let vp = fit(ScaleMode::Aspect, 640, 480, area(1920, 1080)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 240,
                y: 0,
                w: 1440,
                h: 1080
            }
        );
        // 4:3 in a tall window -> letterbox.
        let vp = fit(ScaleMode::Aspect, 640, 480, area(800, 1000)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 0,
                y: 200,
                w: 800,
                h: 600
            }
        );
        // 320x200 in 1000x700: width-limited, 1000 * 200 / 320 = 625.
        let vp = fit(ScaleMode::Aspect, 320, 200, area(1000, 700)).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 0,
                y: 37,
                w: 1000,
                h: 625
            }
        );
    }

    #[test]
    fn the_area_offset_moves_the_frame() {
        let a = Rect {
            x: 0,
            y: 24,
            w: 800,
            h: 600,
        };
        let vp = fit(ScaleMode::Integer, 800, 600, a).unwrap();
        assert_eq!(
            vp.rect,
            Rect {
                x: 0,
                y: 24,
                w: 800,
                h: 600
            }
        );
        assert_eq!(vp.to_guest(0.0, 24.0), Some((0, 0)));
        assert_eq!(vp.to_guest(0.0, 23.9), None);
    }

    #[test]
    fn every_pixel_centre_maps_back_at_integer_scales() {
        for (gw, gh, aw, ah) in [
            (64, 48, 64, 48),         // 1x
            (64, 48, 130, 100),       // 2x with odd margins
            (40, 30, 161, 125),       // 4x
            (17, 13, 17 * 7, 13 * 9), // 7x, limited by width
        ] {
            let vp = fit(ScaleMode::Integer, gw, gh, area(aw, ah)).unwrap();
            assert!(vp.integer_scale().is_some(), "{vp:?}");
            assert_round_trip(&vp);
        }
    }

    #[test]
    fn every_pixel_centre_maps_back_at_fractional_scales() {
        for (gw, gh, aw, ah) in [
            (64, 48, 100, 100), // 1.5625x
            (64, 48, 97, 61),   // odd, height-limited
            (320, 200, 1000, 700),
            (50, 40, 33, 70), // downscaled below 1x: several guest pixels per window pixel
        ] {
            let vp = fit(ScaleMode::Aspect, gw, gh, area(aw, ah)).unwrap();
            assert_round_trip(&vp);
        }
    }

    #[test]
    fn edges_of_the_frame_map_to_the_edge_pixels() {
        let vp = fit(ScaleMode::Integer, 320, 200, area(1000, 700)).unwrap(); // 3x at (20,50)
        assert_eq!(vp.to_guest(20.0, 50.0), Some((0, 0)));
        // The last window pixel of the frame (979, 649) still shows guest (319, 199).
        assert_eq!(vp.to_guest(979.99, 649.99), Some((319, 199)));
        // One pixel further is letterbox.
        assert_eq!(vp.to_guest(980.0, 100.0), None);
        assert_eq!(vp.to_guest(100.0, 650.0), None);
        assert_eq!(vp.to_guest(19.99, 100.0), None);
        assert_eq!(vp.to_guest(100.0, 49.99), None);
        // Each guest pixel covers exactly 3 window pixels.
        assert_eq!(vp.to_guest(22.99, 50.0), Some((0, 0)));
        assert_eq!(vp.to_guest(23.0, 50.0), Some((1, 0)));
    }

    #[test]
    fn outside_positions_clamp_to_the_nearest_edge_pixel() {
        let vp = fit(ScaleMode::Aspect, 640, 480, area(1920, 1080)).unwrap();
        assert_eq!(vp.to_guest_clamped(0.0, 0.0), (0, 0));
        assert_eq!(vp.to_guest_clamped(1919.0, 1079.0), (639, 479));
        assert_eq!(vp.to_guest_clamped(-5000.0, 500.0).0, 0);
        assert_eq!(vp.to_guest_clamped(1e300, f64::NAN), (639, 0));
        assert_eq!(vp.to_guest(-1.0, -1.0), None);
    }

    #[test]
    fn empty_sizes_have_no_viewport() {
        assert_eq!(fit(ScaleMode::Aspect, 640, 480, area(0, 100)), None);
        assert_eq!(fit(ScaleMode::Integer, 0, 480, area(100, 100)), None);
        // A 1-pixel-high window still shows something.
        let vp = fit(ScaleMode::Aspect, 640, 480, area(1000, 1)).unwrap();
        assert_eq!((vp.rect.w, vp.rect.h), (1, 1));
    }
}
