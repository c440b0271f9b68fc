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
    // GetSysColorBrush brushes paint their colour and survive DeleteObject.
    let face = paint::sys_color_brush(paint::COLOR_BTNFACE);
    assert_eq!(paint::brush_color(&h.proc, face), Some(rgb(192, 192, 192)));
    assert!(objects::DeleteObject(&mut h.cx(), face).unwrap());
    assert_eq!(paint::brush_color(&h.proc, face), Some(rgb(192, 192, 192)));
    assert_eq!(paint::sys_color_brush(99), 0);
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

// ---- memory DCs, bitmaps, DIB sections, blits -----------------------------------------

use crate::hle::Ptr;

/// A memory DC with a `w`x`h` bottom-up DIB section of `bpp` bits selected.
/// Returns (hdc, hbitmap, bits address).
fn dib_dc(h: &mut Harness, w: i32, ht: i32, bpp: u16, colors: &[u32]) -> (u32, u32, u32) {
    let bmi = h.scratch(1064);
    let mut b = Vec::new();
    for v in [40u32, w as u32, ht as u32] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&bpp.to_le_bytes());
    for v in [0u32, 0, 0, 0, colors.len() as u32, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for c in colors {
        b.extend_from_slice(&c.to_le_bytes());
    }
    h.proc.mem.write_bytes(bmi, &b).unwrap();
    let pp = h.scratch(4);
    let hbm = bitmap::CreateDIBSection(&mut h.cx(), 0, Ptr(bmi), 0, Ptr(pp), 0, 0).unwrap();
    assert_ne!(hbm, 0);
    let bits = h.proc.mem.read_u32(pp).unwrap();
    let hdc = dc::CreateCompatibleDC(&mut h.cx(), 0);
    assert_ne!(objects::SelectObject(&mut h.cx(), hdc, hbm).unwrap(), 0);
    (hdc, hbm, bits)
}

fn rd32(h: &Harness, a: u32) -> u32 {
    h.proc.mem.read_u32(a).unwrap()
}

#[test]
fn dib_section_rows_are_bottom_up_in_guest_memory() {
    let mut h = Harness::new();
    let (hdc, _, bits) = dib_dc(&mut h, 4, 3, 32, &[]);
    // Picture row 0 (top) is the last row in memory for a bottom-up DIB.
    assert_eq!(
        draw::SetPixel(&mut h.cx(), hdc, 1, 0, rgb(10, 20, 30)).unwrap(),
        rgb(10, 20, 30)
    );
    let stride = 16;
    assert_eq!(rd32(&h, bits + 2 * stride + 4), 0x000a141e);
    assert_eq!(rd32(&h, bits + 4), 0);
    // The guest writes a pixel: GDI reads it.
    h.proc.mem.write_u32(bits, 0x00ff8000).unwrap(); // bottom-left
    assert_eq!(
        draw::GetPixel(&mut h.cx(), hdc, 0, 2).unwrap(),
        rgb(0xff, 0x80, 0)
    );
}

#[test]
fn palettized_dib_section_stores_nearest_indices() {
    let mut h = Harness::new();
    // RGBQUADs: black, pure red, pure blue, white.
    let (hdc, _, bits) = dib_dc(&mut h, 8, 2, 8, &[0, 0xff0000, 0x0000ff, 0xffffff]);
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 4, 1), rgb(250, 10, 10)).unwrap();
    paint::fill_rect(&h.proc, hdc, Rect::new(4, 0, 8, 1), rgb(0, 0, 200)).unwrap();
    // Row 0 is stored second (bottom-up, stride 8).
    let mut row = [0u8; 8];
    h.proc.mem.read_bytes(bits + 8, &mut row).unwrap();
    assert_eq!(row, [1, 1, 1, 1, 2, 2, 2, 2]);
    // SetDIBColorTable changes what index 1 means.
    let q = h.scratch(4);
    h.proc.mem.write_u32(q, 0x00ff00).unwrap();
    assert_eq!(
        bitmap::SetDIBColorTable(&mut h.cx(), hdc, 1, 1, Ptr(q)).unwrap(),
        1
    );
    assert_eq!(
        draw::GetPixel(&mut h.cx(), hdc, 0, 0).unwrap(),
        rgb(0, 255, 0)
    );
}

#[test]
fn bitblt_copies_between_dib_section_and_window() {
    let mut h = Harness::new();
    let (mdc, _, bits) = dib_dc(&mut h, 4, 4, 24, &[]);
    // Guest fills the DIB: 24 bpp, stride 12, bottom-up; picture (2,1) = memory row 2.
    h.proc
        .mem
        .write_bytes(bits + 2 * 12 + 2 * 3, &[0x33, 0x22, 0x11])
        .unwrap();
    let (s, wdc) = window_dc(&h);
    assert!(bitmap::BitBlt(&mut h.cx(), wdc, 10, 10, 4, 4, mdc, 0, 0, 0x00cc0020).unwrap());
    assert_eq!(px(&s, 4 + 12, 3 + 11), 0x112233);
    assert_eq!(px(&s, 4 + 11, 3 + 11), 0);
    // And back: NOTSRCCOPY from the window into the DIB.
    assert!(bitmap::BitBlt(&mut h.cx(), mdc, 0, 0, 4, 4, wdc, 10, 10, 0x00330008).unwrap());
    let mut b = [0u8; 3];
    h.proc
        .mem
        .read_bytes(bits + 2 * 12 + 2 * 3, &mut b)
        .unwrap();
    assert_eq!(b, [0xcc, 0xdd, 0xee]);
}

#[test]
fn rop3_results_by_hand() {
    use raster::rop3;
    let (p, s, d) = (0x00f0f0f0, 0x00cccccc, 0x00aaaaaa);
    assert_eq!(rop3(0xcc, p, s, d), 0xcccccc); // SRCCOPY
    assert_eq!(rop3(0xee, p, s, d), 0xeeeeee); // SRCPAINT = S|D
    assert_eq!(rop3(0x88, p, s, d), 0x888888); // SRCAND = S&D
    assert_eq!(rop3(0x66, p, s, d), 0x666666); // SRCINVERT = S^D
    assert_eq!(rop3(0x44, p, s, d), 0x444444); // SRCERASE = S&~D
    assert_eq!(rop3(0x33, p, s, d), 0x333333); // NOTSRCCOPY
    assert_eq!(rop3(0xc0, p, s, d), 0xc0c0c0); // MERGECOPY = P&S
    assert_eq!(rop3(0xf0, p, s, d), 0xf0f0f0); // PATCOPY
    assert_eq!(rop3(0x5a, p, s, d), 0x5a5a5a); // PATINVERT = P^D
    assert_eq!(rop3(0x55, p, s, d), 0x555555); // DSTINVERT
    assert_eq!(rop3(0x00, p, s, d), 0); // BLACKNESS
    assert_eq!(rop3(0xff, p, s, d), 0xffffff); // WHITENESS
    // A ROP without a fast path: 0xB8 (PSDPxax) = ((D ^ P) & S) ^ P.
    let (p, s, d) = (0x12_3456, 0xff_00f0, 0x0f_0f0f);
    assert_eq!(rop3(0xb8, p, s, d), ((d ^ p) & s) ^ p);
    // ROP2: R2_XORPEN, R2_NOT, R2_MERGEPEN.
    assert_eq!(raster::rop2(7, 0xff00ff, 0x0f0f0f), 0xf00ff0);
    assert_eq!(raster::rop2(6, 0xff00ff, 0x0f0f0f), 0xf0f0f0);
    assert_eq!(raster::rop2(15, 0xff0000, 0x00000f), 0xff000f);
}

#[test]
fn patblt_uses_the_selected_brush() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let br = objects::CreateSolidBrush(&mut h.cx(), RED);
    objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
    assert!(bitmap::PatBlt(&mut h.cx(), hdc, 1, 1, 2, 2, 0x00f00021).unwrap());
    assert_eq!(pixels_of(&s, RED_PX), vec![(5, 4), (6, 4), (5, 5), (6, 5)]);
    // DSTINVERT on one of them.
    assert!(bitmap::PatBlt(&mut h.cx(), hdc, 1, 1, 1, 1, 0x00550009).unwrap());
    assert_eq!(px(&s, 5, 4), 0x00ffff);
}

#[test]
fn monochrome_bitmap_blits_in_text_and_background_colours() {
    let mut h = Harness::new();
    // A 2x1 monochrome bitmap: bits 10 (left pixel set = white).
    let bits = h.scratch(4);
    h.proc.mem.write_bytes(bits, &[0x80, 0]).unwrap();
    let hbm = bitmap::CreateBitmap(&mut h.cx(), 2, 1, 1, 1, Ptr(bits)).unwrap();
    let mdc = dc::CreateCompatibleDC(&mut h.cx(), 0);
    objects::SelectObject(&mut h.cx(), mdc, hbm).unwrap();
    let (s, wdc) = window_dc(&h);
    dc::SetTextColor(&mut h.cx(), wdc, RED);
    dc::SetBkColor(&mut h.cx(), wdc, rgb(0, 0, 255));
    bitmap::BitBlt(&mut h.cx(), wdc, 0, 0, 2, 1, mdc, 0, 0, 0x00cc0020).unwrap();
    // 1 bits take the destination's background colour, 0 bits its text colour.
    assert_eq!(px(&s, 4, 3), 0x0000ff);
    assert_eq!(px(&s, 5, 3), RED_PX);
}

#[test]
fn compatible_bitmap_of_a_fresh_memory_dc_is_monochrome() {
    let mut h = Harness::new();
    let mdc = dc::CreateCompatibleDC(&mut h.cx(), 0);
    let hbm = bitmap::CreateCompatibleBitmap(&mut h.cx(), mdc, 8, 8);
    let out = h.scratch(24);
    assert_eq!(
        objects::GetObjectA(&mut h.cx(), hbm, 24, Ptr(out)).unwrap(),
        24
    );
    assert_eq!(h.proc.mem.read_u16(out + 18).unwrap(), 1);
    let (_s, wdc) = window_dc(&h);
    let hbm2 = bitmap::CreateCompatibleBitmap(&mut h.cx(), wdc, 8, 8);
    objects::GetObjectA(&mut h.cx(), hbm2, 24, Ptr(out)).unwrap();
    assert_eq!(h.proc.mem.read_u16(out + 18).unwrap(), 32);
}

#[test]
fn packed_dib_from_a_resource_becomes_a_bitmap() {
    let h = Harness::new();
    // 2x2, 4 bpp, bottom-up; colour table black, red; bottom row: 0,1; top row: 1,0.
    let mut b = Vec::new();
    for v in [40u32, 2, 2] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    for v in [0u32, 0, 0, 0, 2, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&0x00ff0000u32.to_le_bytes());
    b.extend_from_slice(&[0x01, 0, 0, 0]); // bottom row
    b.extend_from_slice(&[0x10, 0, 0, 0]); // top row
    let hbm = bitmap::create_bitmap_from_dib(&h.proc, &b).unwrap();
    let bm = match h.proc.gdi32.lock().objs.get(&hbm) {
        Some(objects::Obj::Bitmap(bm)) => bm.clone(),
        _ => panic!("not a bitmap"),
    };
    let px = bitmap::read_bitmap_pixels(&h.proc, &bm).unwrap();
    assert_eq!(px, vec![0xff0000, 0, 0, 0xff0000]);
    // Truncated data is an error, not a panic.
    assert!(bitmap::create_bitmap_from_dib(&h.proc, &b[..50]).is_err());
}

#[test]
fn getdibits_reads_a_bitmap_as_a_top_down_dib() {
    let mut h = Harness::new();
    let (mdc, hbm, _) = dib_dc(&mut h, 2, 2, 32, &[]);
    draw::SetPixel(&mut h.cx(), mdc, 0, 0, rgb(1, 2, 3)).unwrap();
    let bmi = h.scratch(64);
    let mut hd = Vec::new();
    for v in [40u32, 2, (-2i32) as u32] {
        hd.extend_from_slice(&v.to_le_bytes());
    }
    hd.extend_from_slice(&1u16.to_le_bytes());
    hd.extend_from_slice(&32u16.to_le_bytes());
    hd.resize(40, 0);
    h.proc.mem.write_bytes(bmi, &hd).unwrap();
    let out = h.scratch(16);
    assert_eq!(
        bitmap::GetDIBits(&mut h.cx(), mdc, hbm, 0, 2, Ptr(out), Ptr(bmi), 0).unwrap(),
        2
    );
    assert_eq!(rd32(&h, out), 0x010203);
    assert_eq!(rd32(&h, out + 4), 0);
}

// ---- primitives ------------------------------------------------------------------------

#[test]
fn line_to_excludes_the_last_pixel() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let pen = objects::CreatePen(&mut h.cx(), 0, 1, RED);
    objects::SelectObject(&mut h.cx(), hdc, pen).unwrap();
    draw::MoveToEx(&mut h.cx(), hdc, 2, 2, Ptr(0)).unwrap();
    draw::LineTo(&mut h.cx(), hdc, 6, 2).unwrap();
    assert_eq!(pixels_of(&s, RED_PX), vec![(6, 5), (7, 5), (8, 5), (9, 5)]);
    // Diagonal: (2,2) to (5,5) draws (2,2), (3,3), (4,4).
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 30, 20), 0).unwrap();
    draw::MoveToEx(&mut h.cx(), hdc, 2, 2, Ptr(0)).unwrap();
    draw::LineTo(&mut h.cx(), hdc, 5, 5).unwrap();
    assert_eq!(pixels_of(&s, RED_PX), vec![(6, 5), (7, 6), (8, 7)]);
    let p = h.scratch(8);
    dc::GetCurrentPositionEx(&mut h.cx(), hdc, Ptr(p)).unwrap();
    assert_eq!((rd32(&h, p), rd32(&h, p + 4)), (5, 5));
}

#[test]
fn xor_pen_twice_restores_the_background() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 36, 27), rgb(10, 20, 30)).unwrap();
    let pen = objects::CreatePen(&mut h.cx(), 0, 1, rgb(255, 255, 255));
    objects::SelectObject(&mut h.cx(), hdc, pen).unwrap();
    dc::SetROP2(&mut h.cx(), hdc, 7);
    draw::MoveToEx(&mut h.cx(), hdc, 0, 0, Ptr(0)).unwrap();
    draw::LineTo(&mut h.cx(), hdc, 3, 0).unwrap();
    assert_eq!(px(&s, 4, 3), 0xf5ebe1);
    draw::MoveToEx(&mut h.cx(), hdc, 0, 0, Ptr(0)).unwrap();
    draw::LineTo(&mut h.cx(), hdc, 3, 0).unwrap();
    assert_eq!(px(&s, 4, 3), 0x0a141e);
}

#[test]
fn rectangle_frames_left_to_right_minus_one() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let pen = objects::CreatePen(&mut h.cx(), 0, 1, RED);
    objects::SelectObject(&mut h.cx(), hdc, pen).unwrap();
    let br = objects::CreateSolidBrush(&mut h.cx(), rgb(0, 255, 0));
    objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
    draw::Rectangle(&mut h.cx(), hdc, 10, 10, 20, 20).unwrap();
    let red = pixels_of(&s, RED_PX);
    let green = pixels_of(&s, 0x00ff00);
    // Frame: x 10..19, y 10..19 (36 pixels); interior 11..18 (64 pixels).
    assert_eq!(red.len(), 36);
    assert_eq!(green.len(), 64);
    assert!(red.contains(&(4 + 19, 3 + 19)) && !red.contains(&(4 + 20, 3 + 10)));
    assert!(green.contains(&(4 + 11, 3 + 11)) && green.contains(&(4 + 18, 3 + 18)));
    // With the null pen the fill covers 10..18 (one pixel less on the right/bottom).
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 36, 27), 0).unwrap();
    let np = objects::GetStockObject(&mut h.cx(), objects::NULL_PEN as i32);
    objects::SelectObject(&mut h.cx(), hdc, np).unwrap();
    draw::Rectangle(&mut h.cx(), hdc, 10, 10, 20, 20).unwrap();
    assert_eq!(pixels_of(&s, 0x00ff00).len(), 81);
}

#[test]
fn ellipse_stays_in_its_box_and_is_symmetric() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let br = objects::CreateSolidBrush(&mut h.cx(), RED);
    objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
    let np = objects::GetStockObject(&mut h.cx(), objects::NULL_PEN as i32);
    objects::SelectObject(&mut h.cx(), hdc, np).unwrap();
    draw::Ellipse(&mut h.cx(), hdc, 0, 0, 11, 11).unwrap();
    let red = pixels_of(&s, RED_PX);
    assert!(
        red.iter()
            .all(|&(x, y)| (4..15).contains(&x) && (3..14).contains(&y))
    );
    // Centre row spans the full width; corners are empty.
    assert!(red.contains(&(4, 3 + 5)) && red.contains(&(14, 3 + 5)));
    assert!(!red.contains(&(4, 3)) && !red.contains(&(14, 13)));
    for &(x, y) in &red {
        assert!(red.contains(&(18 - x, y)) && red.contains(&(x, 16 - y)));
    }
}

#[test]
fn polygon_fill_modes_differ_on_a_self_overlapping_star() {
    let mut h = Harness::new();
    // A pentagram: its centre is inside with WINDING and outside with ALTERNATE.
    let pts = [(15, 0), (24, 27), (0, 10), (30, 10), (6, 27)];
    let p = h.scratch(64);
    for (i, (x, y)) in pts.iter().enumerate() {
        h.proc.mem.write_u32(p + 8 * i as u32, *x as u32).unwrap();
        h.proc
            .mem
            .write_u32(p + 8 * i as u32 + 4, *y as u32)
            .unwrap();
    }
    let np = objects::GetStockObject(&mut h.cx(), objects::NULL_PEN as i32);
    let br = objects::CreateSolidBrush(&mut h.cx(), RED);
    for (mode, centre_filled) in [(dc::ALTERNATE, false), (dc::WINDING, true)] {
        let (s, hdc) = window_dc(&h);
        objects::SelectObject(&mut h.cx(), hdc, np).unwrap();
        objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
        dc::SetPolyFillMode(&mut h.cx(), hdc, mode);
        assert!(draw::Polygon(&mut h.cx(), hdc, Ptr(p), 5).unwrap());
        assert_eq!(
            px(&s, 4 + 15, 3 + 15) == RED_PX,
            centre_filled,
            "mode {mode}"
        );
        // A point of the star is filled in both modes.
        assert_eq!(px(&s, 4 + 15, 3 + 3), RED_PX);
    }
}

#[test]
fn get_pixel_outside_the_clip_is_clr_invalid() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    assert_eq!(
        draw::GetPixel(&mut h.cx(), hdc, -1, 0).unwrap(),
        0xffff_ffff
    );
    assert_eq!(
        draw::SetPixel(&mut h.cx(), hdc, 100, 0, RED).unwrap(),
        0xffff_ffff
    );
}

// ---- regions and clipping ----------------------------------------------------------------

fn rects_of(h: &Harness, hrgn: u32) -> Vec<Rect> {
    match h.proc.gdi32.lock().objs.get(&hrgn) {
        Some(objects::Obj::Region(r)) => r.clone(),
        _ => panic!("not a region"),
    }
}

fn area(rs: &[Rect]) -> i32 {
    rs.iter().map(|r| r.width() * r.height()).sum()
}

#[test]
fn combine_rgn_on_two_overlapping_squares() {
    let mut h = Harness::new();
    let a = region::CreateRectRgn(&mut h.cx(), 0, 0, 10, 10);
    let b = region::CreateRectRgn(&mut h.cx(), 5, 5, 15, 15);
    let d = region::CreateRectRgn(&mut h.cx(), 0, 0, 0, 0);
    // Areas: each 100, overlap 25.
    for (mode, want_area, want_type) in [
        (region::RGN_AND, 25, objects::SIMPLEREGION),
        (region::RGN_OR, 175, objects::COMPLEXREGION),
        (region::RGN_XOR, 150, objects::COMPLEXREGION),
        (region::RGN_DIFF, 75, objects::COMPLEXREGION),
    ] {
        assert_eq!(region::CombineRgn(&mut h.cx(), d, a, b, mode), want_type);
        let rs = rects_of(&h, d);
        assert_eq!(area(&rs), want_area, "mode {mode}");
        // The rectangles do not overlap.
        for (i, r) in rs.iter().enumerate() {
            for q in &rs[i + 1..] {
                assert!(r.intersect(q).is_empty());
            }
        }
    }
    region::CombineRgn(&mut h.cx(), d, a, b, region::RGN_AND);
    assert_eq!(rects_of(&h, d), vec![Rect::new(5, 5, 10, 10)]);
    assert!(region::PtInRegion(&mut h.cx(), d, 5, 5));
    assert!(!region::PtInRegion(&mut h.cx(), d, 10, 10));
    assert_eq!(
        region::OffsetRgn(&mut h.cx(), d, 1, 2),
        objects::SIMPLEREGION
    );
    assert_eq!(rects_of(&h, d), vec![Rect::new(6, 7, 11, 12)]);
    assert!(region::SetRectRgn(&mut h.cx(), d, 1, 1, 1, 5));
    assert_eq!(rects_of(&h, d), vec![]);
}

#[test]
fn clip_region_limits_drawing_and_get_clip_box() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let out = h.scratch(16);
    assert_eq!(
        region::GetClipBox(&mut h.cx(), hdc, Ptr(out)).unwrap(),
        objects::SIMPLEREGION
    );
    assert_eq!(
        paint::read_rect(&h.proc, out).unwrap(),
        Rect::new(0, 0, 36, 27)
    );
    region::IntersectClipRect(&mut h.cx(), hdc, 2, 2, 6, 6);
    assert_eq!(
        region::ExcludeClipRect(&mut h.cx(), hdc, 3, 3, 5, 5),
        objects::COMPLEXREGION
    );
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 36, 27), RED).unwrap();
    // 4x4 minus the 2x2 hole.
    let red = pixels_of(&s, RED_PX);
    assert_eq!(red.len(), 12);
    assert!(!red.contains(&(4 + 3, 3 + 3)) && red.contains(&(4 + 2, 3 + 2)));
    region::GetClipBox(&mut h.cx(), hdc, Ptr(out)).unwrap();
    assert_eq!(
        paint::read_rect(&h.proc, out).unwrap(),
        Rect::new(2, 2, 6, 6)
    );
    // SelectClipRgn(NULL) removes the clip; a DC's SaveDC/RestoreDC brings it back.
    let level = dc::SaveDC(&mut h.cx(), hdc);
    region::SelectClipRgn(&mut h.cx(), hdc, 0).unwrap();
    region::GetClipBox(&mut h.cx(), hdc, Ptr(out)).unwrap();
    assert_eq!(
        paint::read_rect(&h.proc, out).unwrap(),
        Rect::new(0, 0, 36, 27)
    );
    assert!(dc::RestoreDC(&mut h.cx(), hdc, level));
    region::GetClipBox(&mut h.cx(), hdc, Ptr(out)).unwrap();
    assert_eq!(
        paint::read_rect(&h.proc, out).unwrap(),
        Rect::new(2, 2, 6, 6)
    );
}

#[test]
fn fill_rgn_paints_only_the_region() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let r = region::CreateRectRgn(&mut h.cx(), 1, 1, 3, 2);
    let br = objects::CreateSolidBrush(&mut h.cx(), RED);
    assert!(region::FillRgn(&mut h.cx(), hdc, r, br).unwrap());
    assert_eq!(pixels_of(&s, RED_PX), vec![(5, 4), (6, 4)]);
}

// ---- palettes ----------------------------------------------------------------------------

fn make_palette(h: &mut Harness, entries: &[u32]) -> u32 {
    let p = h.scratch(4 + 4 * entries.len() as u32);
    h.proc.mem.write_u16(p, 0x300).unwrap();
    h.proc.mem.write_u16(p + 2, entries.len() as u16).unwrap();
    for (i, e) in entries.iter().enumerate() {
        h.proc.mem.write_u32(p + 4 + 4 * i as u32, *e).unwrap();
    }
    palette::CreatePalette(&mut h.cx(), Ptr(p)).unwrap()
}

#[test]
fn palette_index_colours_and_nearest_index() {
    let mut h = Harness::new();
    let hpal = make_palette(&mut h, &[rgb(0, 0, 0), rgb(200, 0, 0), rgb(0, 0, 200)]);
    assert_eq!(
        palette::GetNearestPaletteIndex(&mut h.cx(), hpal, rgb(180, 30, 10)),
        1
    );
    assert_eq!(
        palette::GetNearestPaletteIndex(&mut h.cx(), hpal, rgb(10, 10, 255)),
        2
    );
    let (s, hdc) = window_dc(&h);
    palette::SelectPalette(&mut h.cx(), hdc, hpal, false);
    // PALETTEINDEX(2) draws entry 2.
    paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 1, 1), 0x0100_0002).unwrap();
    assert_eq!(px(&s, 4, 3), 0x0000c8);
    let out = h.scratch(16);
    assert_eq!(
        palette::GetPaletteEntries(&mut h.cx(), hpal, 1, 5, Ptr(out)).unwrap(),
        2
    );
    assert_eq!(rd32(&h, out), rgb(200, 0, 0));
    assert_eq!(
        palette::GetPaletteEntries(&mut h.cx(), hpal, 0, 0, Ptr(0)).unwrap(),
        3
    );
}

#[test]
fn system_palette_has_the_static_colours_at_both_ends() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let out = h.scratch(1024);
    assert_eq!(
        palette::GetSystemPaletteEntries(&mut h.cx(), hdc, 0, 256, Ptr(out)).unwrap(),
        256
    );
    assert_eq!(rd32(&h, out), 0);
    assert_eq!(rd32(&h, out + 4 * 7), rgb(192, 192, 192));
    assert_eq!(rd32(&h, out + 4 * 249), rgb(255, 0, 0));
    assert_eq!(rd32(&h, out + 4 * 255), rgb(255, 255, 255));
}

#[test]
fn realize_palette_on_an_8_bit_display_fills_the_middle_slots() {
    let mut h = Harness::new();
    *h.proc.display.mode.lock().unwrap() = crate::display::DisplayMode {
        width: 640,
        height: 480,
        bpp: 8,
        refresh_hz: 60,
    };
    let (_s, hdc) = window_dc(&h);
    assert_ne!(dc::GetDeviceCaps(&mut h.cx(), hdc, 38).unwrap() & 0x100, 0); // RC_PALETTE
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 104).unwrap(), 256); // SIZEPALETTE
    let hpal = make_palette(&mut h, &[rgb(1, 2, 3), rgb(4, 5, 6)]);
    palette::SelectPalette(&mut h.cx(), hdc, hpal, false);
    assert_eq!(palette::RealizePalette(&mut h.cx(), hdc), 2);
    let out = h.scratch(8);
    palette::GetSystemPaletteEntries(&mut h.cx(), hdc, 10, 2, Ptr(out)).unwrap();
    assert_eq!(
        (rd32(&h, out), rd32(&h, out + 4)),
        (rgb(1, 2, 3), rgb(4, 5, 6))
    );
    // GetNearestColor answers with a system palette colour.
    assert_eq!(
        palette::GetNearestColor(&mut h.cx(), hdc, rgb(3, 4, 5)),
        rgb(4, 5, 6)
    );
}

#[test]
fn device_caps_follow_the_display_mode() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 8).unwrap(), 800);
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 10).unwrap(), 600);
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 12).unwrap(), 32);
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 88).unwrap(), 96);
    assert_eq!(dc::GetDeviceCaps(&mut h.cx(), hdc, 38).unwrap() & 0x100, 0);
    assert!(dc::GetDeviceCaps(&mut h.cx(), hdc, 9999).is_err());
    assert_eq!(mapping::SetMapMode(&mut h.cx(), hdc, 9), 0);
}

#[test]
fn objects_select_delete_and_get_object() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let pen = objects::CreatePen(&mut h.cx(), objects::PS_DASH, 3, RED);
    let old = objects::SelectObject(&mut h.cx(), hdc, pen).unwrap();
    assert_eq!(old, objects::stock(objects::BLACK_PEN));
    // A selected object cannot be deleted; after deselecting it can.
    assert!(!objects::DeleteObject(&mut h.cx(), pen).unwrap());
    assert_eq!(objects::SelectObject(&mut h.cx(), hdc, old).unwrap(), pen);
    let out = h.scratch(64);
    assert_eq!(
        objects::GetObjectW(&mut h.cx(), pen, 16, Ptr(out)).unwrap(),
        16
    );
    assert_eq!(
        (rd32(&h, out), rd32(&h, out + 4), rd32(&h, out + 12)),
        (1, 3, RED)
    );
    assert!(objects::DeleteObject(&mut h.cx(), pen).unwrap());
    assert!(!objects::DeleteObject(&mut h.cx(), pen).unwrap());
    // LOGFONTW of the default GUI font.
    let f = objects::GetStockObject(&mut h.cx(), objects::DEFAULT_GUI_FONT as i32);
    assert_eq!(
        objects::GetObjectW(&mut h.cx(), f, 92, Ptr(out)).unwrap(),
        92
    );
    assert_eq!(rd32(&h, out) as i32, -11);
    assert_eq!(h.proc.mem.read_u16(out + 28).unwrap(), 'M' as u16);
    assert_eq!(
        objects::GetCurrentObject(&mut h.cx(), hdc, objects::OBJ_FONT),
        objects::stock(objects::SYSTEM_FONT)
    );
}

#[test]
fn text_metrics_of_an_8_point_font() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let f = text::create_font(
        &h.proc,
        objects::LogFont::simple(-11, 400, 0, "MS Sans Serif"),
    );
    objects::SelectObject(&mut h.cx(), hdc, f).unwrap();
    let tm = h.scratch(64);
    assert!(text::GetTextMetricsW(&mut h.cx(), hdc, Ptr(tm)).unwrap());
    let (height, ascent, descent) = (
        rd32(&h, tm) as i32,
        rd32(&h, tm + 4) as i32,
        rd32(&h, tm + 8) as i32,
    );
    assert_eq!(height, ascent + descent);
    // Arial's proportions: ascent 0.905 em, descent 0.212 em at an 11-pixel em.
    assert_eq!((ascent, descent), (10, 2));
    // A positive height asks for the cell height.
    let f2 = text::create_font(&h.proc, objects::LogFont::simple(20, 400, 0, "Arial"));
    objects::SelectObject(&mut h.cx(), hdc, f2).unwrap();
    text::GetTextMetricsA(&mut h.cx(), hdc, Ptr(tm)).unwrap();
    assert_eq!(rd32(&h, tm), 20);
    // Courier New maps to a fixed-pitch font: every character has the same width.
    let f3 = text::create_font(
        &h.proc,
        objects::LogFont::simple(-13, 400, 0, "Courier New"),
    );
    objects::SelectObject(&mut h.cx(), hdc, f3).unwrap();
    assert_eq!(
        paint::text_extent(&h.proc, hdc, "iiii").0,
        paint::text_extent(&h.proc, hdc, "WWWW").0
    );
}

#[test]
fn text_rendering_is_deterministic() {
    let h = Harness::new();
    let draw = || {
        let (s, hdc) = window_dc(&h);
        paint::fill_rect(&h.proc, hdc, Rect::new(0, 0, 36, 27), rgb(255, 255, 255)).unwrap();
        paint::text_out(&h.proc, hdc, 1, 1, "Ag&9").unwrap();
        s.lock().unwrap().pixels.clone()
    };
    let a = draw();
    assert_eq!(a, draw());
    assert!(a.contains(&0));
}

// ---- calls that read their own arguments, DIB-to-device -------------------------------

/// Calls an API whose many arguments come as one [`crate::hle::Dwords`] (the glue
/// reads and pops them as for any stdcall API: tests/export_abi.rs checks the count).
fn call_long<const N: usize>(
    h: &mut Harness,
    f: fn(&mut crate::hle::Ctx, crate::hle::Dwords<N>) -> crate::hle::ApiResult<u32>,
    args: [u32; N],
) -> u32 {
    f(&mut h.cx(), crate::hle::Dwords(args)).unwrap()
}

/// A packed 32-bpp BITMAPINFO + bits for a `w`x`h` bottom-up DIB whose memory rows
/// are `rows` (bottom row first). Returns (bmi, bits).
fn guest_dib32(h: &Harness, w: i32, ht: i32, rows: &[&[u32]]) -> (u32, u32) {
    let bmi = h.scratch(64);
    let mut b = Vec::new();
    for v in [40u32, w as u32, ht as u32] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&32u16.to_le_bytes());
    b.resize(40, 0);
    h.proc.mem.write_bytes(bmi, &b).unwrap();
    let bits = h.scratch(4 * (w * ht) as u32);
    let mut k = 0;
    for r in rows {
        for p in *r {
            h.proc.mem.write_u32(bits + 4 * k, *p).unwrap();
            k += 1;
        }
    }
    (bmi, bits)
}

#[test]
fn stretch_dibits_doubles_a_bottom_up_dib() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    // Bottom row: A B; top row: C D.
    let (a, b, c, d) = (0x000001u32, 0x000002, 0x000003, 0x000004);
    let (bmi, bits) = guest_dib32(&h, 2, 2, &[&[a, b], &[c, d]]);
    let lines = call_long(
        &mut h,
        bitmap::StretchDIBits,
        [hdc, 0, 0, 4, 4, 0, 0, 2, 2, bits, bmi, 0, 0x00cc0020],
    );
    assert_eq!(lines, 2);
    // Top-left 2x2 block is C, bottom-right is B.
    for (x, y, want) in [(0, 0, c), (1, 1, c), (2, 0, d), (0, 2, a), (3, 3, b)] {
        assert_eq!(px(&s, 4 + x, 3 + y), want, "({x},{y})");
    }
}

#[test]
fn set_dibits_to_device_counts_source_y_from_the_bottom() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    // 1x3 bottom-up: memory rows bottom..top = 1, 2, 3 (picture top is 3).
    let (bmi, bits) = guest_dib32(&h, 1, 3, &[&[1], &[2], &[3]]);
    // One pixel from ySrc = 0: the bottom-left corner of the picture, value 1.
    let r = call_long(
        &mut h,
        bitmap::SetDIBitsToDevice,
        [hdc, 0, 0, 1, 1, 0, 0, 0, 3, bits, bmi, 0],
    );
    assert_eq!(r, 3);
    assert_eq!(px(&s, 4, 3), 1);
    // The whole picture at (5, 0): top row first on screen.
    call_long(
        &mut h,
        bitmap::SetDIBitsToDevice,
        [hdc, 5, 0, 1, 3, 0, 0, 0, 3, bits, bmi, 0],
    );
    assert_eq!((px(&s, 9, 3), px(&s, 9, 4), px(&s, 9, 5)), (3, 2, 1));
}

#[test]
fn create_font_reads_its_fourteen_arguments() {
    let mut h = Harness::new();
    let face = h.scratch(32);
    h.put_cstr(face, "Courier New");
    let hf = call_long(
        &mut h,
        text::CreateFontA,
        [(-20i32) as u32, 0, 0, 0, 700, 1, 0, 0, 0, 0, 0, 0, 0, face],
    );
    match h.proc.gdi32.lock().objs.get(&hf) {
        Some(objects::Obj::Font(f)) => {
            assert_eq!((f.height, f.weight, f.italic), (-20, 700, 1));
            assert_eq!(f.face, "Courier New");
        }
        _ => panic!("CreateFontA did not return a font"),
    }
}

#[test]
fn bitmap_bits_round_trip_through_a_ddb() {
    let mut h = Harness::new();
    let hbm = bitmap::CreateBitmap(&mut h.cx(), 3, 2, 1, 32, Ptr(0)).unwrap();
    let (bmi, bits) = guest_dib32(&h, 3, 2, &[&[1, 2, 3], &[4, 5, 6]]);
    let (_s, hdc) = window_dc(&h);
    assert_eq!(
        bitmap::SetDIBits(&mut h.cx(), hdc, hbm, 0, 2, Ptr(bits), Ptr(bmi), 0).unwrap(),
        2
    );
    // GetBitmapBits gives rows top first: the DIB's second memory row first.
    let out = h.scratch(64);
    assert_eq!(
        bitmap::GetBitmapBits(&mut h.cx(), hbm, 64, Ptr(out)).unwrap(),
        24
    );
    let got: Vec<u32> = (0..6).map(|i| rd32(&h, out + 4 * i)).collect();
    assert_eq!(got, vec![4, 5, 6, 1, 2, 3]);
    h.proc.mem.write_u32(out, 0x00abcdef).unwrap();
    bitmap::SetBitmapBits(&mut h.cx(), hbm, 24, Ptr(out)).unwrap();
    let mdc = dc::CreateCompatibleDC(&mut h.cx(), 0);
    objects::SelectObject(&mut h.cx(), mdc, hbm).unwrap();
    assert_eq!(
        draw::GetPixel(&mut h.cx(), mdc, 0, 0).unwrap(),
        rgb(0xab, 0xcd, 0xef)
    );
}

#[test]
fn hatch_brush_draws_its_lines_and_gaps() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    // HS_HORIZONTAL: a line every 8 rows, on row 3 of each cell; gaps in the
    // background colour (OPAQUE mode).
    let br = objects::CreateHatchBrush(&mut h.cx(), 0, RED);
    dc::SetBkColor(&mut h.cx(), hdc, rgb(0, 0, 255));
    paint::fill_rect_brush(&h.proc, hdc, Rect::new(0, 0, 8, 8), br).unwrap();
    let red = pixels_of(&s, RED_PX);
    assert_eq!(red.len(), 8);
    assert!(red.iter().all(|&(_, y)| y == 3 + 3));
    assert_eq!(pixels_of(&s, 0x0000ff).len(), 56);
}

#[test]
fn text_extent_ex_counts_the_characters_that_fit() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let s = h.scratch(64);
    h.put_wstr(s, "abcdef");
    let (w3, _) = paint::text_extent(&h.proc, hdc, "abc");
    let fit = h.scratch(4);
    let dx = h.scratch(32);
    let size = h.scratch(8);
    assert!(
        text::GetTextExtentExPointW(
            &mut h.cx(),
            hdc,
            Ptr(s),
            6,
            w3,
            Ptr(fit),
            Ptr(dx),
            Ptr(size)
        )
        .unwrap()
    );
    assert_eq!(rd32(&h, fit), 3);
    assert_eq!(rd32(&h, dx + 8) as i32, w3);
    assert_eq!(
        rd32(&h, size) as i32,
        paint::text_extent(&h.proc, hdc, "abcdef").0
    );
}

#[test]
fn draw_text_wordbreak_wraps_at_spaces() {
    let h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let (w, th) = paint::text_extent(&h.proc, hdc, "hello world");
    let (wh, _) = paint::text_extent(&h.proc, hdc, "hello");
    // Narrower than the whole text but wider than one word: two lines.
    let mut r = Rect::new(0, 0, w - 1, 100);
    let fmt = paint::DT_WORDBREAK | paint::DT_CALCRECT;
    assert_eq!(
        paint::draw_text_calc(&h.proc, hdc, "hello world", &mut r, fmt).unwrap(),
        2 * th
    );
    assert!(r.width() >= wh && r.width() < w);
    let mut r = Rect::new(0, 0, w, 100);
    assert_eq!(
        paint::draw_text_calc(&h.proc, hdc, "hello world", &mut r, fmt).unwrap(),
        th
    );
}

#[test]
fn save_and_restore_dc_bring_back_colours_and_objects() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let n = dc::SaveDC(&mut h.cx(), hdc);
    assert_eq!(n, 1);
    dc::SetTextColor(&mut h.cx(), hdc, RED);
    let p = objects::CreatePen(&mut h.cx(), 0, 2, RED);
    objects::SelectObject(&mut h.cx(), hdc, p).unwrap();
    assert!(dc::RestoreDC(&mut h.cx(), hdc, -1));
    assert_eq!(dc::GetTextColor(&mut h.cx(), hdc), 0);
    assert_eq!(
        objects::GetCurrentObject(&mut h.cx(), hdc, objects::OBJ_PEN),
        objects::stock(objects::BLACK_PEN)
    );
    assert!(!dc::RestoreDC(&mut h.cx(), hdc, -1));
}

#[test]
fn viewport_origin_offsets_drawing() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    mapping::SetViewportOrgEx(&mut h.cx(), hdc, 10, 5, Ptr(0)).unwrap();
    mapping::SetWindowOrgEx(&mut h.cx(), hdc, 1, 1, Ptr(0)).unwrap();
    paint::fill_rect(&h.proc, hdc, Rect::new(1, 1, 2, 2), RED).unwrap();
    assert_eq!(pixels_of(&s, RED_PX), vec![(4 + 10, 3 + 5)]);
}

#[test]
fn flood_fill_stops_at_the_border_colour() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    // A red frame 0..6 x 0..6; fill inside with green from (2, 2).
    paint::frame_rect(&h.proc, hdc, Rect::new(0, 0, 6, 6), RED).unwrap();
    let br = objects::CreateSolidBrush(&mut h.cx(), rgb(0, 255, 0));
    objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
    assert!(draw::FloodFill(&mut h.cx(), hdc, 2, 2, RED).unwrap());
    assert_eq!(pixels_of(&s, 0x00ff00).len(), 16);
    assert_eq!(pixels_of(&s, RED_PX).len(), 20);
    // Starting on the border colour fills nothing.
    assert!(!draw::FloodFill(&mut h.cx(), hdc, 0, 0, RED).unwrap());
}

#[test]
fn abc_widths_add_up_to_the_advance() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let out = h.scratch(12 * 3);
    assert!(text::GetCharABCWidthsA(&mut h.cx(), hdc, 'A' as u32, 'C' as u32, Ptr(out)).unwrap());
    for (i, c) in ['A', 'B', 'C'].into_iter().enumerate() {
        let o = out + 12 * i as u32;
        let sum = rd32(&h, o) as i32 + rd32(&h, o + 4) as i32 + rd32(&h, o + 8) as i32;
        assert_eq!(sum, paint::text_extent(&h.proc, hdc, &c.to_string()).0);
        assert!(rd32(&h, o + 4) > 0);
    }
}

#[test]
fn logfont_width_sets_the_average_character_width() {
    let mut h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let mut lf = objects::LogFont::simple(16, 400, 0, "Arial");
    lf.width = 12;
    let f = text::create_font(&h.proc, lf);
    objects::SelectObject(&mut h.cx(), hdc, f).unwrap();
    let tm = h.scratch(64);
    text::GetTextMetricsA(&mut h.cx(), hdc, Ptr(tm)).unwrap();
    assert_eq!(rd32(&h, tm + 20), 12); // tmAveCharWidth
    assert_eq!(paint::text_extent(&h.proc, hdc, "xxxx").0, 48);
}

#[test]
fn black_and_white_packed_dib_loads_as_monochrome() {
    let mut h = Harness::new();
    let mut b = Vec::new();
    for v in [40u32, 8, 1] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.resize(40, 0);
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&0x00ff_ffffu32.to_le_bytes());
    b.extend_from_slice(&[0xf0, 0, 0, 0]);
    let hbm = bitmap::create_bitmap_from_dib(&h.proc, &b).unwrap();
    let out = h.scratch(24);
    objects::GetObjectA(&mut h.cx(), hbm, 24, Ptr(out)).unwrap();
    assert_eq!(h.proc.mem.read_u16(out + 18).unwrap(), 1);
    // A 1-bpp DIB with other colours loads in colour.
    let n = b.len();
    b[n - 8..n - 4].copy_from_slice(&0x00ff_0000u32.to_le_bytes());
    let hbm = bitmap::create_bitmap_from_dib(&h.proc, &b).unwrap();
    objects::GetObjectA(&mut h.cx(), hbm, 24, Ptr(out)).unwrap();
    assert_eq!(h.proc.mem.read_u16(out + 18).unwrap(), 32);
}

#[test]
fn clipped_line_pixels_match_the_stepping_algorithm() {
    // Every line between points of a small grid: the direct (clipped) computation
    // gives the same pixels as Bresenham's stepping.
    let all = Rect::new(-100, -100, 100, 100);
    for (x0, y0) in [(0, 0), (3, -2), (-5, 7)] {
        for x1 in -9..10 {
            for y1 in -9..10 {
                let stepped = draw::line_points(x0, y0, x1, y1);
                let direct: Vec<(i32, i32)> = draw::line_points_within(x0, y0, x1, y1, all)
                    .into_iter()
                    .map(|(_, x, y)| (x, y))
                    .collect();
                assert_eq!(stepped, direct, "({x0},{y0})-({x1},{y1})");
            }
        }
    }
    // A line from far outside the window draws only its visible part, quickly.
    let v = draw::line_points_within(-2_000_000_000, 5, 2_000_000_000, 5, Rect::new(0, 0, 10, 10));
    assert_eq!(v.len(), 10);
    assert!(v.iter().all(|&(_, _, y)| y == 5));
}

#[test]
fn huge_coordinates_are_clipped_not_looped_over() {
    let mut h = Harness::new();
    let (s, hdc) = window_dc(&h);
    let br = objects::CreateSolidBrush(&mut h.cx(), RED);
    objects::SelectObject(&mut h.cx(), hdc, br).unwrap();
    let t = std::time::Instant::now();
    draw::Ellipse(
        &mut h.cx(),
        hdc,
        -1_000_000,
        -1_000_000,
        1_000_000,
        1_000_000,
    )
    .unwrap();
    bitmap::PatBlt(
        &mut h.cx(),
        hdc,
        -1_000_000_000,
        0,
        2_000_000_000,
        1,
        0x00f00021,
    )
    .unwrap();
    draw::MoveToEx(&mut h.cx(), hdc, -1_000_000_000, 2, Ptr(0)).unwrap();
    draw::LineTo(&mut h.cx(), hdc, 1_000_000_000, 2).unwrap();
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(px(&s, 10, 10), RED_PX);
}

#[test]
fn elliptic_region_is_a_stack_of_row_runs() {
    let mut h = Harness::new();
    let e = region::CreateEllipticRgn(&mut h.cx(), 0, 0, 10, 10).unwrap();
    let rs = rects_of(&h, e);
    // Symmetric, inside its box, widest in the middle rows, corners out.
    assert!(
        rs.iter()
            .all(|r| r.left >= 0 && r.top >= 0 && r.right <= 10 && r.bottom <= 10)
    );
    assert!(region::PtInRegion(&mut h.cx(), e, 0, 5) && region::PtInRegion(&mut h.cx(), e, 9, 4));
    assert!(!region::PtInRegion(&mut h.cx(), e, 0, 0) && !region::PtInRegion(&mut h.cx(), e, 9, 9));
    for y in 0..10 {
        for x in 0..10 {
            assert_eq!(
                region::PtInRegion(&mut h.cx(), e, x, y),
                region::PtInRegion(&mut h.cx(), e, 9 - x, 9 - y),
                "({x},{y})"
            );
        }
    }
    // A huge one is refused with an error, not computed pixel by pixel.
    assert!(region::CreateEllipticRgn(&mut h.cx(), 0, 0, 100_000, 100_000).is_err());
}

#[test]
fn stretch_blt_mirrors_with_a_negative_width() {
    let mut h = Harness::new();
    let (mdc, _, bits) = dib_dc(&mut h, 3, 1, 32, &[]);
    for (i, v) in [1u32, 2, 3].iter().enumerate() {
        h.proc.mem.write_u32(bits + 4 * i as u32, *v).unwrap();
    }
    let (s, wdc) = window_dc(&h);
    // Destination x 3 with width -3 covers x 1..=3 (the origin column included),
    // mirrored.
    assert!(
        bitmap::StretchBlt(&mut h.cx(), wdc, 3, 0, -3, 1, mdc, 0, 0, 3, 1, 0x00cc0020).unwrap()
    );
    assert_eq!((px(&s, 5, 3), px(&s, 6, 3), px(&s, 7, 3)), (3, 2, 1));
    assert_eq!(px(&s, 4, 3), 0);
    // Shrinking 3 -> 1 takes the middle pixel (nearest to the destination centre).
    assert!(
        bitmap::StretchBlt(&mut h.cx(), wdc, 10, 0, 1, 1, mdc, 0, 0, 3, 1, 0x00cc0020).unwrap()
    );
    assert_eq!(px(&s, 14, 3), 2);
    // A blit at far-away coordinates is clipped before anything is computed per pixel.
    assert!(
        bitmap::BitBlt(
            &mut h.cx(),
            wdc,
            -1_000_000_000,
            0,
            2_000_000_000,
            1,
            mdc,
            0,
            0,
            0x00cc0020
        )
        .unwrap()
    );
}

#[test]
fn enum_font_families_calls_the_guest_callback_per_family() {
    use winterp_core::mem::Prot;
    let h = Harness::new();
    let mut thread = crate::startup::new_thread(&h.proc, 0, 0, 0).unwrap();
    let data = h
        .proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1000, Prot::RWX, "test code")
        .unwrap();
    // int CALLBACK cb(lf, tm, type, lparam) { ++*(int *)lparam; return 1; }
    let code = [
        0x8b, 0x44, 0x24, 0x10, 0xff, 0x00, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc2, 0x10, 0x00,
    ];
    h.proc.mem.write_bytes(data, &code).unwrap();
    let counter = data + 0x100;
    let face = data + 0x200;
    let mut cx = crate::hle::Ctx {
        proc: &h.proc,
        thread: &mut thread,
    };
    let r = text::EnumFontFamiliesW(&mut cx, 0, crate::hle::WStrPtr(0), data, counter).unwrap();
    assert_eq!(r, crate::hle::Outcome::Return(1));
    assert_eq!(h.proc.mem.read_u32(counter).unwrap(), 6);
    // Only the named family.
    h.proc.mem.write_u32(counter, 0).unwrap();
    h.put_wstr(face, "courier new");
    text::EnumFontFamiliesW(&mut cx, 0, crate::hle::WStrPtr(face), data, counter).unwrap();
    assert_eq!(h.proc.mem.read_u32(counter).unwrap(), 1);
}

#[test]
fn draw_text_end_ellipsis_shortens_to_fit() {
    let h = Harness::new();
    let (_s, hdc) = window_dc(&h);
    let (w, _) = paint::text_extent(&h.proc, hdc, "Hello wonderful world");
    let mut r = Rect::new(0, 0, w / 2, 20);
    let fmt = paint::DT_END_ELLIPSIS | paint::DT_SINGLELINE | paint::DT_CALCRECT;
    paint::draw_text_calc(&h.proc, hdc, "Hello wonderful world", &mut r, fmt).unwrap();
    assert!(
        r.width() <= w / 2 && r.width() > 0,
        "{} vs {}",
        r.width(),
        w / 2
    );
    let (dots, _) = paint::text_extent(&h.proc, hdc, "...");
    assert!(r.width() >= dots);
}

#[test]
fn mask_blt_picks_the_rop_by_mask_bit() {
    let mut h = Harness::new();
    // Source: 2x1 of value 0x112233; mask: left 1, right 0.
    let (mdc, _, bits) = dib_dc(&mut h, 2, 1, 32, &[]);
    h.proc.mem.write_u32(bits, 0x112233).unwrap();
    h.proc.mem.write_u32(bits + 4, 0x112233).unwrap();
    let mb = h.scratch(4);
    h.proc.mem.write_bytes(mb, &[0x80, 0]).unwrap();
    let mask = bitmap::CreateBitmap(&mut h.cx(), 2, 1, 1, 1, Ptr(mb)).unwrap();
    let (s, wdc) = window_dc(&h);
    paint::fill_rect(&h.proc, wdc, Rect::new(0, 0, 2, 1), rgb(0, 0, 0xff)).unwrap();
    // Foreground SRCCOPY, background DSTCOPY (0xAA): MAKEROP4(SRCCOPY, 0x00AA0029).
    let rop = 0x00cc_0020 | (0xaa << 24);
    assert!(bitmap::MaskBlt(&mut h.cx(), wdc, 0, 0, 2, 1, mdc, 0, 0, mask, 0, 0, rop).unwrap());
    assert_eq!((px(&s, 4, 3), px(&s, 5, 3)), (0x112233, 0x0000ff));
}
