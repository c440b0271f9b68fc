//! Icons and cursors: decoding hand-built resources, choosing the directory entry,
//! GetIconInfo's bitmaps, and DrawIcon's pixels on a memory DC. Expected values come
//! from the documented formats and raster operations, worked out by hand.

use super::*;
use crate::gdi32::{dc, objects};
use crate::kernel32::misc::test_support::Harness;

/// A packed icon image: BITMAPINFOHEADER (height doubled), colour table, XOR rows
/// and AND rows, both bottom-up. `xor_rows` and `and_rows` are given top first, each
/// already padded to 4 bytes.
fn icon_bits(
    w: i32,
    h: i32,
    bpp: u16,
    colors: &[u32],
    xor_rows: &[&[u8]],
    and_rows: &[&[u8]],
) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [40u32, w as u32, 2 * h as u32] {
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
    for r in xor_rows.iter().rev() {
        b.extend_from_slice(r);
    }
    for r in and_rows.iter().rev() {
        b.extend_from_slice(r);
    }
    b
}

/// A 4x2 icon at 4 bpp: colours 0 black, 1 red, 2 green, 3 white.
/// Top row:    red, green, (clear), (inverting)
/// Bottom row: green, red, black, white
/// AND mask: top row 0011 (the right two keep the screen), bottom row 0000.
fn sample() -> Vec<u8> {
    icon_bits(
        4,
        2,
        4,
        &[0x000000, 0xff0000, 0x00ff00, 0xffffff],
        &[&[0x12, 0x03, 0, 0], &[0x21, 0x03, 0, 0]],
        &[&[0x30, 0, 0, 0], &[0x00, 0, 0, 0]],
    )
}

#[test]
fn decodes_a_four_bit_icon_with_its_mask() {
    let img = decode(&sample(), true, (0, 0), (0, 0)).unwrap().unwrap();
    assert_eq!((img.width, img.height, img.hotspot), (4, 2, (2, 1)));
    assert!(img.is_icon && !img.mono);
    assert_eq!(
        img.color,
        vec![
            0xff0000, 0x00ff00, 0, 0xffffff, 0x00ff00, 0xff0000, 0, 0xffffff
        ]
    );
    assert_eq!(
        img.mask,
        vec![false, false, true, true, false, false, false, false]
    );
}

#[test]
fn stretching_repeats_pixels_and_moves_a_cursors_hot_spot() {
    let img = decode(&sample(), false, (1, 1), (8, 4)).unwrap().unwrap();
    assert_eq!((img.width, img.height, img.hotspot), (8, 4, (2, 2)));
    // Each source pixel becomes 2x2.
    assert_eq!(
        &img.color[..8],
        &[
            0xff0000, 0xff0000, 0x00ff00, 0x00ff00, 0, 0, 0xffffff, 0xffffff
        ]
    );
    assert_eq!(img.color[..8], img.color[8..16]);
    assert!(img.mask[4] && img.mask[12] && !img.mask[16]);
}

#[test]
fn monochrome_icons_are_recognised_by_their_black_and_white_table() {
    let bw = icon_bits(
        2,
        1,
        1,
        &[0, 0xffffff],
        &[&[0x40, 0, 0, 0]],
        &[&[0x00, 0, 0, 0]],
    );
    let img = decode(&bw, true, (0, 0), (0, 0)).unwrap().unwrap();
    assert!(img.mono);
    assert_eq!(img.color, vec![0, 0xffffff]);
    // White then black is a two-colour colour icon.
    let wb = icon_bits(
        2,
        1,
        1,
        &[0xffffff, 0],
        &[&[0x40, 0, 0, 0]],
        &[&[0x00, 0, 0, 0]],
    );
    let img = decode(&wb, true, (0, 0), (0, 0)).unwrap().unwrap();
    assert!(!img.mono);
    assert_eq!(img.color, vec![0xffffff, 0]);
}

#[test]
fn malformed_and_png_images() {
    let s = sample();
    // Cut inside the XOR rows: no icon.
    assert!(
        decode(&s[..s.len() - 10], true, (0, 0), (0, 0))
            .unwrap()
            .is_none()
    );
    // Cut inside the mask: no mask, every pixel opaque.
    let img = decode(&s[..s.len() - 4], true, (0, 0), (0, 0))
        .unwrap()
        .unwrap();
    assert!(img.mask.iter().all(|m| !m));
    assert!(decode(b"junk", true, (0, 0), (0, 0)).unwrap().is_none());
    assert!(matches!(
        decode(b"\x89PNG\r\n\x1a\n....", true, (0, 0), (0, 0)),
        Err(ApiError::UnimplementedCase(_))
    ));
}

fn entries(v: &[(i32, i32, u16)]) -> Vec<DirEntry> {
    v.iter()
        .enumerate()
        .map(|(i, &(width, height, bits))| DirEntry {
            width,
            height,
            bits,
            id: i as u16 + 1,
        })
        .collect()
}

#[test]
fn the_best_icon_is_nearest_in_size_then_deepest_within_the_display() {
    let e = entries(&[(32, 32, 4), (32, 32, 24), (16, 16, 8), (48, 48, 32)]);
    let pick = |cx, cy, depth, flags| best_entry(&e, true, cx, cy, depth, flags);
    assert_eq!(pick(0, 0, 32, LR_DEFAULTSIZE), Some(1));
    assert_eq!(pick(0, 0, 8, LR_DEFAULTSIZE), Some(0));
    assert_eq!(pick(0, 0, 32, LR_DEFAULTSIZE | LR_MONOCHROME), Some(0));
    assert_eq!(pick(16, 16, 32, 0), Some(2));
    assert_eq!(pick(20, 20, 32, 0), Some(2));
    assert_eq!(pick(64, 64, 32, 0), Some(3));
    // No size and no LR_DEFAULTSIZE: the first entry's size.
    assert_eq!(pick(0, 0, 32, 0), Some(1));
    // Deeper than the display only when nothing else has the size.
    let deep = entries(&[(32, 32, 32), (32, 32, 24)]);
    assert_eq!(best_entry(&deep, true, 32, 32, 16, 0), Some(1));
}

#[test]
fn the_best_cursor_is_the_largest_that_fits() {
    let e = entries(&[(16, 16, 1), (32, 32, 1), (48, 48, 1)]);
    let pick = |cx, cy| best_entry(&e, false, cx, cy, 32, 0);
    assert_eq!(pick(32, 32), Some(1));
    assert_eq!(pick(40, 40), Some(1));
    assert_eq!(pick(8, 8), Some(0));
    assert_eq!(best_entry(&e, false, 0, 0, 32, LR_DEFAULTSIZE), Some(1));
}

#[test]
fn directories_parse_icon_and_cursor_entries() {
    let mut b = vec![0, 0, 1, 0, 2, 0];
    b.extend_from_slice(&[32, 32, 16, 0, 1, 0, 4, 0, 0xe8, 2, 0, 0, 7, 0]);
    b.extend_from_slice(&[0, 0, 0, 0, 1, 0, 32, 0, 0, 0, 1, 0, 8, 0]);
    let v = parse_directory(&b, true).unwrap();
    assert_eq!(
        v,
        vec![
            DirEntry {
                width: 32,
                height: 32,
                bits: 4,
                id: 7
            },
            DirEntry {
                width: 256,
                height: 256,
                bits: 32,
                id: 8
            },
        ]
    );
    // A cursor entry's height counts the mask too.
    let c = [
        0, 0, 2, 0, 1, 0, 32, 0, 64, 0, 1, 0, 1, 0, 0x34, 1, 0, 0, 3, 0,
    ];
    let v = parse_directory(&c, false).unwrap();
    assert_eq!(
        v,
        vec![DirEntry {
            width: 32,
            height: 32,
            bits: 1,
            id: 3
        }]
    );
    assert!(parse_directory(&b[..20], true).is_none());
}

/// Puts `bytes` in guest memory and makes an icon (or cursor) of them with
/// CreateIconFromResourceEx.
fn icon_from(h: &mut Harness, bytes: &[u8], f_icon: bool, size: (i32, i32)) -> u32 {
    let p = h.scratch(bytes.len() as u32);
    h.proc.mem.write_bytes(p, bytes).unwrap();
    let hi = CreateIconFromResourceEx(
        &mut h.cx(),
        Ptr(p),
        bytes.len() as u32,
        f_icon,
        0x0003_0000,
        size.0,
        size.1,
        0,
    )
    .unwrap();
    assert_ne!(hi, 0);
    hi
}

/// GetObject's BITMAP of `hbm`: (width, height, width bytes, bits per pixel).
fn bitmap_fields(h: &mut Harness, hbm: u32) -> (u32, u32, u32, u16) {
    let out = h.scratch(24);
    assert_eq!(
        objects::GetObjectA(&mut h.cx(), hbm, 24, Ptr(out)).unwrap(),
        24
    );
    let m = &h.proc.mem;
    (
        m.read_u32(out + 4).unwrap(),
        m.read_u32(out + 8).unwrap(),
        m.read_u32(out + 12).unwrap(),
        m.read_u16(out + 18).unwrap(),
    )
}

fn icon_info(h: &mut Harness, hicon: u32) -> [u32; 5] {
    let ii = h.scratch(20);
    assert!(GetIconInfo(&mut h.cx(), hicon, Ptr(ii)).unwrap());
    std::array::from_fn(|k| h.u32(ii + 4 * k as u32))
}

#[test]
fn get_icon_info_hands_out_new_bitmaps_of_the_documented_shapes() {
    let mut h = Harness::new();
    let hi = icon_from(&mut h, &sample(), true, (0, 0));
    let [f_icon, hx, hy, mask, color] = icon_info(&mut h, hi);
    assert_eq!((f_icon, hx, hy), (1, 2, 1));
    assert_eq!(bitmap_fields(&mut h, mask), (4, 2, 2, 1));
    assert_eq!(bitmap_fields(&mut h, color), (4, 2, 16, 32));
    // The colour bitmap holds the image; a second call gives other bitmaps.
    let bm = bitmap::bitmap(&h.proc, color).unwrap();
    assert_eq!(
        bitmap::read_bitmap_pixels(&h.proc, &bm).unwrap()[..2],
        [0xff0000, 0x00ff00]
    );
    let again = icon_info(&mut h, hi);
    assert!(again[3] != mask && again[4] != color);

    // A monochrome cursor: one mask bitmap twice as high, no colour bitmap.
    let mut cur = vec![3, 0, 1, 0];
    cur.extend(icon_bits(
        2,
        1,
        1,
        &[0, 0xffffff],
        &[&[0x40, 0, 0, 0]],
        &[&[0x80, 0, 0, 0]],
    ));
    let hc = icon_from(&mut h, &cur, false, (0, 0));
    let [f_icon, hx, hy, mask, color] = icon_info(&mut h, hc);
    assert_eq!((f_icon, hx, hy, color), (0, 3, 1, 0));
    assert_eq!(bitmap_fields(&mut h, mask), (2, 2, 2, 1));
    let bm = bitmap::bitmap(&h.proc, mask).unwrap();
    // AND row (1, 0) above XOR row (0, 1).
    assert_eq!(
        bitmap::read_bitmap_pixels(&h.proc, &bm).unwrap(),
        vec![0xffffff, 0, 0, 0xffffff]
    );

    // A bad handle fails with ERROR_INVALID_CURSOR_HANDLE.
    let ii = h.scratch(20);
    assert!(!GetIconInfo(&mut h.cx(), 0x1234, Ptr(ii)).unwrap());
    assert_eq!(h.last_error(), 1402);
}

#[test]
fn create_icon_indirect_round_trips_get_icon_info() {
    let mut h = Harness::new();
    let hi = icon_from(&mut h, &sample(), true, (0, 0));
    let info = icon_info(&mut h, hi);
    let p = h.scratch(20);
    for (k, v) in info.iter().enumerate() {
        h.proc.mem.write_u32(p + 4 * k as u32, *v).unwrap();
    }
    let copy = CreateIconIndirect(&mut h.cx(), Ptr(p)).unwrap();
    assert_ne!(copy, 0);
    assert_eq!(
        *icon_image(&h.proc, copy).unwrap(),
        *icon_image(&h.proc, hi).unwrap()
    );
    let dup = CopyIcon(&mut h.cx(), hi).unwrap();
    assert_eq!(
        *icon_image(&h.proc, dup).unwrap(),
        *icon_image(&h.proc, hi).unwrap()
    );
    // Destroyed icons are gone; system ones stay.
    assert!(DestroyIcon(&mut h.cx(), dup).unwrap());
    assert!(icon_image(&h.proc, dup).is_none());
    assert!(!DestroyIcon(&mut h.cx(), dup).unwrap());
    let app = system_handle(sysicons::IDI_APPLICATION, false);
    assert!(DestroyIcon(&mut h.cx(), app).unwrap());
    assert!(icon_image(&h.proc, app).is_some());
}

#[test]
fn create_cursor_keeps_its_planes() {
    let mut h = Harness::new();
    // 16x2: rows padded to 16 bits. AND: top row all 1, bottom row all 0.
    let and = h.scratch(4);
    h.proc.mem.write_bytes(and, &[0xff, 0xff, 0, 0]).unwrap();
    let xor = h.scratch(4);
    h.proc.mem.write_bytes(xor, &[0x80, 0, 0x00, 0x01]).unwrap();
    let c = CreateCursor(&mut h.cx(), 0, 3, 1, 16, 2, Ptr(and), Ptr(xor)).unwrap();
    let img = icon_image(&h.proc, c).unwrap();
    assert_eq!(
        (img.width, img.height, img.hotspot, img.mono),
        (16, 2, (3, 1), true)
    );
    assert!(img.mask[..16].iter().all(|&m| m) && img.mask[16..].iter().all(|&m| !m));
    assert_eq!(
        (img.color[0], img.color[1], img.color[31]),
        (0xffffff, 0, 0xffffff)
    );
}

/// A memory DC holding a `w`x`h` 32-bpp bitmap filled with `bg`.
fn memory_dc(h: &mut Harness, w: i32, ht: i32, bg: u32) -> (u32, u32) {
    let hbm = bitmap::new_ddb(&h.proc, w, ht, 32, Some(vec![bg; (w * ht) as usize]));
    let hdc = dc::CreateCompatibleDC(&mut h.cx(), 0);
    objects::SelectObject(&mut h.cx(), hdc, hbm).unwrap();
    (hdc, hbm)
}

fn pixels(h: &Harness, hbm: u32) -> Vec<u32> {
    let bm = bitmap::bitmap(&h.proc, hbm).unwrap();
    bitmap::read_bitmap_pixels(&h.proc, &bm).unwrap()
}

#[test]
fn draw_icon_ands_the_mask_then_xors_the_image() {
    let mut h = Harness::new();
    let bg = 0x123456;
    let (hdc, hbm) = memory_dc(&mut h, 40, 40, bg);
    let hi = icon_from(&mut h, &sample(), true, (0, 0));
    // DrawIcon draws at the system size, 32x32: every icon pixel is 8x4 screen pixels.
    assert!(DrawIcon(&mut h.cx(), hdc, 2, 3, hi).unwrap());
    let px = pixels(&h, hbm);
    let at = |x: i32, y: i32| px[(y * 40 + x) as usize];
    assert_eq!(at(2, 3), 0xff0000); // opaque red
    assert_eq!(at(10, 3), 0x00ff00); // opaque green
    assert_eq!(at(18, 3), bg); // mask 1, image black: the screen shows through
    assert_eq!(at(26, 3), bg ^ 0xffffff); // mask 1, image white: inverted
    assert_eq!(at(18, 3 + 16), 0); // opaque black
    assert_eq!(at(1, 3), bg); // outside
    assert_eq!(at(34, 34), bg);
    assert_eq!(at(33, 34), 0xffffff); // last pixel of the bottom row: opaque white

    // DI_MASK alone copies the mask; DI_IMAGE alone copies the image; 0 size is the
    // icon's own with neither DI_DEFAULTSIZE.
    let (hdc, hbm) = memory_dc(&mut h, 8, 4, bg);
    assert!(DrawIconEx(&mut h.cx(), hdc, 0, 0, hi, 0, 0, 0, 0, DI_MASK).unwrap());
    assert_eq!(&pixels(&h, hbm)[..5], &[0, 0, 0xffffff, 0xffffff, bg]);
    assert!(DrawIconEx(&mut h.cx(), hdc, 0, 0, hi, 0, 0, 0, 0, DI_IMAGE).unwrap());
    assert_eq!(
        &pixels(&h, hbm)[..5],
        &[0xff0000, 0x00ff00, 0, 0xffffff, bg]
    );
    // A flicker-free brush fills around the icon.
    let brush = objects::CreateSolidBrush(&mut h.cx(), 0x0000ff); // COLORREF red
    assert!(DrawIconEx(&mut h.cx(), hdc, 4, 0, hi, 4, 2, 0, brush, DI_NORMAL).unwrap());
    let px = pixels(&h, hbm);
    assert_eq!(
        &px[4..8],
        &[0xff0000, 0x00ff00, 0xff0000, 0xff0000 ^ 0xffffff]
    );
    // A bad icon or DC draws nothing.
    assert!(!DrawIcon(&mut h.cx(), hdc, 0, 0, 0).unwrap());
    assert!(!DrawIcon(&mut h.cx(), 0x999, 0, 0, hi).unwrap());
}

#[test]
fn draw_icon_of_a_monochrome_system_cursor() {
    let mut h = Harness::new();
    let arrow = system_handle(sysicons::IDC_ARROW, true);
    let (hdc, hbm) = memory_dc(&mut h, 32, 32, 0x808080);
    assert!(DrawIcon(&mut h.cx(), hdc, 0, 0, arrow).unwrap());
    let px = pixels(&h, hbm);
    let img = sysicons::image(sysicons::IDC_ARROW, true).unwrap();
    for (k, &p) in px.iter().enumerate() {
        let want = if img.mask[k] { 0x808080 } else { img.color[k] };
        assert_eq!(p, want, "pixel {k}");
    }
}
