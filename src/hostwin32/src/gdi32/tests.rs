//! Pixel-level checks of GDI32 against documented Windows behaviour. Expected pixels
//! come from the Windows rules (exclusive right/bottom edges, the last pixel of a line
//! not drawn, bottom-up DIB rows), never from the code under test.

use super::objects::rgb;
use super::paint;
use super::*;
use crate::kernel32::misc::test_support::Harness;

const RED: u32 = 0x0000ff; // COLORREF
const RED_PX: u32 = 0xff0000; // surface pixel

/// A 40x30 window backing store whose client area starts at (4, 3), and a DC on it.
fn window_dc(h: &Harness) -> (SurfaceRef, u32) {
    let surf = Surface::new_ref(40, 30);
    let hdc = create_window_dc(
        &h.proc,
        WindowTarget {
            surface: surf.clone(),
            origin: (4, 3),
            clip: Rect::new(4, 3, 40, 30),
            hwnd: 0x10,
        },
    );
    (surf, hdc)
}

fn px(s: &SurfaceRef, x: i32, y: i32) -> u32 {
    let s = s.lock().unwrap();
    s.pixels[y as usize * s.width as usize + x as usize]
}

/// The set of surface pixels equal to `c`, as (x, y) pairs in row order.
fn pixels_of(s: &SurfaceRef, c: u32) -> Vec<(i32, i32)> {
    let s = s.lock().unwrap();
    let mut v = Vec::new();
    for y in 0..s.height as i32 {
        for x in 0..s.width as i32 {
            if s.pixels[y as usize * s.width as usize + x as usize] == c {
                v.push((x, y));
            }
        }
    }
    v
}

#[test]
fn fill_rect_excludes_right_and_bottom_and_honours_the_client_origin() {
    let h = Harness::new();
    let (s, hdc) = window_dc(&h);
    assert!(paint::fill_rect(&h.proc, hdc, Rect::new(2, 1, 5, 3), RED).unwrap());
    let mut want = Vec::new();
    for y in 1..3 {
        for x in 2..5 {
            want.push((x + 4, y + 3));
        }
    }
    assert_eq!(pixels_of(&s, RED_PX), want);
}

#[test]
fn fill_rect_is_clipped_to_the_visible_area() {
    let h = Harness::new();
    let (s, hdc) = window_dc(&h);
    // Client (-10,-10)-(1,1) covers only client pixel (0,0) = surface (4,3).
    paint::fill_rect(&h.proc, hdc, Rect::new(-10, -10, 1, 1), RED).unwrap();
    assert_eq!(pixels_of(&s, RED_PX), vec![(4, 3)]);
}

#[test]
fn frame_rect_draws_a_one_pixel_border_inside() {
    let h = Harness::new();
    let (s, hdc) = window_dc(&h);
    paint::frame_rect(&h.proc, hdc, Rect::new(0, 0, 4, 3), RED).unwrap();
    // A 4x3 frame: all border pixels of client (0..4, 0..3); only (1,1) and (2,1) inside.
    let got = pixels_of(&s, RED_PX);
    assert_eq!(got.len(), 4 * 3 - 2);
    assert!(!got.contains(&(5, 4)) && !got.contains(&(6, 4)));
    assert!(got.contains(&(4, 3)) && got.contains(&(7, 5)));
}

#[test]
fn raised_edge_uses_the_win9x_colours() {
    let h = Harness::new();
    let (s, hdc) = window_dc(&h);
    paint::draw_edge(&h.proc, hdc, Rect::new(0, 0, 10, 10), true).unwrap();
    // Outer: top/left 3DLIGHT (C0C0C0), bottom/right 3DDKSHADOW (black, = untouched 0 so
    // check the inner ring too); inner: top/left white, bottom/right shadow grey.
    assert_eq!(px(&s, 4, 3), 0xc0c0c0);
    assert_eq!(px(&s, 5, 4), 0xffffff);
    assert_eq!(px(&s, 4 + 8, 3 + 5), 0x808080);
    assert_eq!(px(&s, 4 + 5, 3 + 8), 0x808080);
    // The top-right corner belongs to the dark side.
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 10, 10), rgb(1, 2, 3)).unwrap();
    paint::draw_edge(&h.proc, hdc, Rect::new(0, 0, 10, 10), true).unwrap();
    assert_eq!(px(&s, 4 + 9, 3), 0);
    assert_eq!(px(&s, 4 + 8, 3), 0xc0c0c0);
}

#[test]
fn sys_colors_are_the_windows_98_standard_scheme() {
    assert_eq!(paint::sys_color(paint::COLOR_BTNFACE), rgb(192, 192, 192));
    assert_eq!(paint::sys_color(paint::COLOR_ACTIVECAPTION), rgb(0, 0, 128));
    assert_eq!(paint::sys_color(paint::COLOR_BACKGROUND), rgb(0, 128, 128));
    assert_eq!(paint::sys_color(paint::COLOR_INFOBK), rgb(255, 255, 225));
}

#[test]
fn brush_color_knows_stock_brushes_and_sys_colour_indices() {
    let h = Harness::new();
    let mut h = h;
    let white = objects::GetStockObject(&mut h.cx(), objects::WHITE_BRUSH as i32);
    assert_eq!(paint::brush_color(&h.proc, white), Some(0xffffff));
    // COLOR_BTNFACE + 1.
    assert_eq!(paint::brush_color(&h.proc, 16), Some(rgb(192, 192, 192)));
    let b = objects::CreateSolidBrush(&mut h.cx(), rgb(1, 2, 3));
    assert_eq!(paint::brush_color(&h.proc, b), Some(rgb(1, 2, 3)));
    let null = objects::GetStockObject(&mut h.cx(), objects::NULL_BRUSH as i32);
    assert_eq!(paint::brush_color(&h.proc, null), None);
}

#[test]
fn text_extent_grows_with_the_text() {
    let h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let (w1, h1) = paint::text_extent(&h.proc, hdc, "i");
    let (w2, h2) = paint::text_extent(&h.proc, hdc, "iW");
    let (w3, _) = paint::text_extent(&h.proc, hdc, "iWiW");
    assert!(w1 > 0 && h1 > 0);
    assert!(w2 > w1 && w3 == 2 * w2, "{w1} {w2} {w3}");
    assert_eq!(h1, h2);
    // The default font is SYSTEM_FONT, a 16-pixel cell.
    assert_eq!(h1, 16);
}

#[test]
fn text_out_draws_in_the_text_colour_inside_its_cell() {
    let h = Harness::new();
    let (s, hdc) = window_dc(&h);
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 36, 27), rgb(255, 255, 255)).unwrap();
    assert!(paint::text_out(&h.proc, hdc, 2, 2, "H").unwrap());
    let (w, th) = paint::text_extent(&h.proc, hdc, "H");
    let s2 = s.lock().unwrap();
    let mut dark = 0;
    for y in 0..30 {
        for x in 0..40 {
            let p = s2.pixels[y * 40 + x];
            if p != 0xffffff && p != 0 {
                // Grey edge pixels are fine (anti-aliasing); they must be inside the cell.
            }
            if p != 0xffffff && (x as i32) >= 4 && (y as i32) >= 3 {
                let (cx, cy) = (x as i32 - 4, y as i32 - 3);
                assert!(
                    cx >= 2 && cx < 2 + w && cy >= 2 && cy < 2 + th,
                    "ink at {cx},{cy}"
                );
                if p == 0 {
                    dark += 1;
                }
            }
        }
    }
    assert!(
        dark > 10,
        "an H has two stems and a bar: {dark} black pixels"
    );
}

#[test]
fn draw_text_calcrect_and_centering() {
    let h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let (w, th) = paint::text_extent(&h.proc, hdc, "Hello");
    let mut r = Rect::new(0, 0, 0, 0);
    let height = paint::draw_text_calc(&h.proc, hdc, "Hello", &mut r, paint::DT_CALCRECT).unwrap();
    assert_eq!((r.width(), r.height(), height), (w, th, th));
    // Two lines.
    let mut r = Rect::new(0, 0, 0, 0);
    paint::draw_text_calc(&h.proc, hdc, "a\nb", &mut r, paint::DT_CALCRECT).unwrap();
    assert_eq!(r.height(), 2 * th);
    // "&Hello" with the prefix processed measures like "Hello".
    let mut r = Rect::new(0, 0, 0, 0);
    paint::draw_text_calc(&h.proc, hdc, "&Hello", &mut r, paint::DT_CALCRECT).unwrap();
    assert_eq!(r.width(), w);
}
