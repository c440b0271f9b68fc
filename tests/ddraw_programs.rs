//! Runs the DirectDraw guest programs in `tests/guest/bin` (sources in
//! `tests/guest/src`, see `tests/guest/README.md`) under the headless frame runner:
//!
//! `winterp --headless --deterministic --frames N --screenshot OUT.png PROGRAM.EXE BPP`
//!
//! For a DirectDraw program `--frames N` is its Nth presented frame. `ddraw_blit`
//! presents two frames at 8, 16 and 32 bits per pixel; for each depth:
//! - the frame must hold every known pixel of [`KNOWN`] (colours worked out from
//!   the program's drawing and the documented DirectDraw rules: colour fills, source
//!   and destination colour keys, nearest-neighbour stretch, mirroring, clip lists,
//!   Lock writes, GDI through GetDC, palette animation at 8 bpp);
//! - what the program reads back through Lock (sample points and a hash of the back
//!   buffer outside the text box) must equal what the same program printed under
//!   Wine (`expected/ddraw_blit_BPP.wine.txt`);
//! - three deterministic runs must give the same frame, equal to the golden
//!   `expected/ddraw_blit_BPP.png` byte for byte once decoded (`WINTERP_BLESS=1`
//!   rewrites the golden, but only after the other checks pass).

mod common;

use common::{Run, exe, expected, tail, winterp};
use std::fs;
use std::path::Path;
use winterp_hostwin32::display::Frame;

/// The program's colours by index (`COLORS` in `src/ddraw_blit.c`).
const COLORS: [u32; 10] = [
    0x000000, 0xff0000, 0x00ff00, 0x0000ff, 0xffffff, 0xffff00, 0xff00ff, 0x00ffff, 0x808080,
    0x000080,
];

/// What colour `k` looks like in the presented frame at `bpp`. At 8 bpp the palette
/// animation turned entry 1 orange (255, 128, 0) before the frame; at 16 bpp the
/// components went through RGB565 and come back with their top bits repeated
/// (128 -> 0x84 in 5 bits, 0x82 in 6).
fn shown(bpp: u32, k: usize) -> u32 {
    let c = COLORS[k];
    match bpp {
        8 if k == 1 => 0xff8000,
        16 => {
            let (r, g, b) = (c >> 19 & 0x1f, c >> 10 & 0x3f, c >> 3 & 0x1f);
            (r << 3 | r >> 2) << 16 | (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2)
        }
        _ => c,
    }
}

const BG: usize = 9;

/// (x, y, colour index, why). The sprite is 16x16: columns 0-7 green with a yellow
/// 4x4 block at (0,0), columns 8-13 magenta (its source colour key), 14-15 blue.
const KNOWN: &[(u32, u32, usize, &str)] = &[
    (5, 5, BG, "background fill"),
    (10, 10, 1, "red fill, top-left corner"),
    (59, 39, 1, "red fill, last pixel (right/bottom exclusive)"),
    (60, 40, BG, "just outside the red fill"),
    (70, 10, 5, "keyed BltFast: sprite (0,0) yellow"),
    (77, 15, 2, "keyed BltFast: sprite (7,5) green"),
    (
        78,
        15,
        BG,
        "keyed BltFast: sprite (8,5) is the key, background shows",
    ),
    (85, 20, 3, "keyed BltFast: sprite (15,10) blue"),
    (98, 15, 6, "unkeyed BltFast: the key colour is copied"),
    (117, 17, 5, "2x stretch: (7,7) takes sprite (3,3) yellow"),
    (118, 18, 2, "2x stretch: (8,8) takes sprite (4,4) green"),
    (
        126,
        30,
        BG,
        "2x stretch with DDBLT_KEYSRC: sprite (8,10) is the key",
    ),
    (139, 41, 3, "2x stretch: (29,31) takes sprite (14,15) blue"),
    (
        150,
        10,
        3,
        "mirror left-right: column 0 takes sprite column 15",
    ),
    (
        153,
        13,
        6,
        "mirror left-right: column 3 takes column 12 (no key)",
    ),
    (158, 15, 2, "mirror left-right: column 8 takes column 7"),
    (
        164,
        11,
        5,
        "mirror left-right: column 14 takes column 1, row 1",
    ),
    (171, 22, 5, "mirror up-down: row 12 takes sprite row 3"),
    (171, 12, 2, "mirror up-down: row 2 takes sprite row 13"),
    (179, 10, 6, "mirror up-down: column 9 magenta"),
    (10, 50, 4, "dest key: white, not the key, keeps its colour"),
    (12, 55, 4, "dest key: white above the stripe"),
    (
        10,
        60,
        2,
        "dest key: the cyan stripe takes the stretched sprite",
    ),
    (59, 69, 2, "dest key: stripe's last pixel"),
    (30, 75, 4, "dest key: white below the stripe"),
    (197, 7, BG, "clip list: outside both rectangles"),
    (200, 10, 8, "clip list: first rectangle"),
    (219, 29, 8, "clip list: first rectangle's last pixel"),
    (225, 20, BG, "clip list: between the rectangles"),
    (230, 10, 8, "clip list: second rectangle"),
    (250, 30, BG, "clip list: past the second rectangle"),
    (10, 100, 4, "Lock: diagonal start"),
    (30, 120, 4, "Lock: diagonal"),
    (49, 139, 4, "Lock: diagonal end"),
    (11, 100, BG, "Lock: beside the diagonal"),
    (10, 140, 5, "Lock: yellow row"),
    (49, 140, 5, "Lock: yellow row end"),
    (50, 140, BG, "Lock: past the yellow row"),
    (100, 100, 2, "GetDC FillRect"),
    (139, 119, 2, "GetDC FillRect, last pixel"),
    (140, 119, BG, "GetDC FillRect excludes its right edge"),
    (100, 120, BG, "GetDC FillRect excludes its bottom edge"),
    (319, 239, BG, "bottom-right corner"),
];

fn frame_problems(bpp: u32, f: &Frame) -> Vec<String> {
    if (f.width, f.height) != (320, 240) {
        return vec![format!("frame is {}x{}, not 320x240", f.width, f.height)];
    }
    let mut v = Vec::new();
    for &(x, y, k, why) in KNOWN {
        let want = shown(bpp, k);
        let got = f.pixels[(y * 320 + x) as usize];
        if got != want {
            v.push(format!(
                "({x}, {y}): {got:06x}, expected {want:06x} ({why})"
            ));
        }
    }
    // The text "DirectDraw" at (160, 180), white: some of its pixels must be white.
    let white = (175..200)
        .flat_map(|y| (150..320).map(move |x| (x, y)))
        .filter(|&(x, y)| f.pixels[y * 320 + x] == 0xffffff)
        .count();
    if white < 20 {
        v.push(format!("only {white} white pixels where the GDI text goes"));
    }
    v
}

#[test]
fn known_pixels_fail_on_a_wrong_frame() {
    let mut f = Frame {
        width: 320,
        height: 240,
        pixels: vec![shown(32, BG); 320 * 240],
    };
    for &(x, y, k, _) in KNOWN {
        f.pixels[(y * 320 + x) as usize] = shown(32, k);
    }
    for x in 160..200 {
        f.pixels[185 * 320 + x] = 0xffffff;
    }
    assert_eq!(frame_problems(32, &f), Vec::<String>::new());
    // At 8 bpp the animated entry 1 is orange, so a red fill is wrong there.
    let p = frame_problems(8, &f);
    assert_eq!(p.len(), 2, "{p:?}");
    f.pixels[10 * 320 + 70] = 0;
    assert_eq!(frame_problems(32, &f).len(), 1);
}

/// The lines of stdout the Wine cross-check compares.
fn sample_lines(out: &str) -> String {
    out.lines()
        .filter(|l| {
            l.starts_with('(')
                || l.starts_with("hash ")
                || l.starts_with("sprite key")
                || l.starts_with("palette entry")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn screenshot(bpp: u32, deterministic: bool, dir: &Path, tag: &str) -> (Frame, Run) {
    let png = dir.join(format!("ddraw_blit-{bpp}-{tag}.png"));
    let mut args = vec!["--headless".to_string()];
    if deterministic {
        args.push("--deterministic".into());
    }
    args.extend([
        "--frames".into(),
        "2".into(),
        "--screenshot".into(),
        png.display().to_string(),
        exe("ddraw_blit").display().to_string(),
        bpp.to_string(),
    ]);
    let run = winterp(&args);
    assert_eq!(
        run.code,
        Some(0),
        "ddraw_blit.exe {bpp} run {tag}: exit status {:?}\n--- stderr (last 30 lines) ---\n{}",
        run.code,
        tail(&run.stderr, 30)
    );
    let frame = winterp_video::png_file::read(&png)
        .unwrap_or_else(|e| panic!("ddraw_blit.exe {bpp} run {tag}: no screenshot: {e}"));
    (frame, run)
}

fn ddraw_blit(bpp: u32) {
    let dir = tempfile::tempdir().unwrap();
    let (first, run) = screenshot(bpp, true, dir.path(), "1");
    let problems = frame_problems(bpp, &first);
    let keep = std::env::temp_dir().join(format!("ddraw_blit-{bpp}-actual.png"));
    if !problems.is_empty() {
        let _ = winterp_video::png_file::write(&keep, &first);
        panic!(
            "ddraw_blit {bpp} bpp: the frame breaks DirectDraw rules (saved at {}):\n{}",
            keep.display(),
            problems.join("\n")
        );
    }
    let wine = fs::read_to_string(expected(&format!("ddraw_blit_{bpp}.wine.txt"))).unwrap();
    assert_eq!(
        sample_lines(&run.stdout),
        wine,
        "ddraw_blit {bpp} bpp: Lock read-back differs from Wine's"
    );
    for k in 2..=3 {
        let (again, _) = screenshot(bpp, true, dir.path(), &k.to_string());
        assert!(again == first, "run {k} gave a different frame from run 1");
    }
    let golden = expected(&format!("ddraw_blit_{bpp}.png"));
    if std::env::var_os("WINTERP_BLESS").is_some_and(|v| v == "1") {
        winterp_video::png_file::write(&golden, &first).unwrap();
        eprintln!("wrote {}", golden.display());
        return;
    }
    let want = winterp_video::png_file::read(&golden).unwrap_or_else(|e| {
        panic!(
            "{e}; run with WINTERP_BLESS=1 to write the golden frame (see tests/guest/README.md)"
        )
    });
    if want != first {
        let _ = winterp_video::png_file::write(&keep, &first);
        let differing = want
            .pixels
            .iter()
            .zip(&first.pixels)
            .filter(|(a, b)| a != b)
            .count();
        panic!(
            "ddraw_blit {bpp} bpp: the frame differs from the golden in {differing} pixels; \
             this run is saved at {}",
            keep.display()
        );
    }
}

#[test]
fn ddraw_blit_8bpp() {
    ddraw_blit(8);
}

#[test]
fn ddraw_blit_16bpp() {
    ddraw_blit(16);
}

#[test]
fn ddraw_blit_32bpp() {
    ddraw_blit(32);
}

/// OS-thread mode (real-time vertical blank waits) shows the same picture.
#[test]
fn ddraw_blit_normal_mode_matches_the_golden() {
    let dir = tempfile::tempdir().unwrap();
    let (frame, run) = screenshot(32, false, dir.path(), "normal");
    assert_eq!(frame_problems(32, &frame), Vec::<String>::new());
    let wine = fs::read_to_string(expected("ddraw_blit_32.wine.txt")).unwrap();
    assert_eq!(sample_lines(&run.stdout), wine);
    let want = winterp_video::png_file::read(&expected("ddraw_blit_32.png")).unwrap();
    assert!(frame == want, "normal-mode frame differs from the golden");
}

// ---- ddraw_iface: interfaces, results, windowed presentation -----------------------

fn ddraw_iface_stdout(deterministic: bool) -> String {
    let mut args = vec!["--headless".to_string()];
    if deterministic {
        args.push("--deterministic".into());
    }
    args.push(exe("ddraw_iface").display().to_string());
    let run = winterp(&args);
    assert_eq!(
        run.code,
        Some(0),
        "ddraw_iface.exe: exit status {:?}\n{}",
        run.code,
        tail(&run.stderr, 30)
    );
    run.stdout
}

/// Every result line equals what the program printed under Wine, except the vertical
/// blank timing: Wine on Xvfb does not wait for a refresh at all, winterp paces on
/// 60 Hz (six blanks take 100 ms of virtual time).
#[test]
fn ddraw_iface_results_deterministic() {
    let want = fs::read_to_string(expected("ddraw_iface.stdout")).unwrap();
    assert_eq!(ddraw_iface_stdout(true), want);
}

/// OS-thread mode: the same results; the real-time vertical blank line is only
/// required to be there (its range depends on the host's load).
#[test]
fn ddraw_iface_results_normal() {
    let want = fs::read_to_string(expected("ddraw_iface.stdout")).unwrap();
    let got = ddraw_iface_stdout(false);
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| {
                if l.starts_with("6 vertical blanks:") {
                    "6 vertical blanks:".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect()
    };
    assert_eq!(strip(&got), strip(&want));
}

/// Windowed DirectDraw: blits into the primary surface at the window's client area
/// show in the window. Present 2 is the green square over the red fill.
#[test]
fn ddraw_iface_windowed_frame() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("iface.png");
    let run = winterp(&[
        "--headless".into(),
        "--deterministic".into(),
        "--frames".into(),
        "2".into(),
        "--screenshot".into(),
        png.display().to_string(),
        exe("ddraw_iface").display().to_string(),
    ]);
    assert_eq!(run.code, Some(0), "{}", tail(&run.stderr, 30));
    let f = winterp_video::png_file::read(&png).unwrap();
    assert_eq!((f.width, f.height), (160, 120));
    let mut wrong = Vec::new();
    for y in 0..120u32 {
        for x in 0..160u32 {
            let want = if (68..92).contains(&x) && (48..72).contains(&y) {
                0x00ff00
            } else {
                0xff0000
            };
            let got = f.pixels[(y * 160 + x) as usize];
            if got != want {
                wrong.push(format!("({x}, {y}): {got:06x}, expected {want:06x}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong pixels: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

/// DirectDraw overlays (`ddraw_overlay`): the HRESULTs the documentation gives for
/// each step (`expected/ddraw_overlay.stdout`; Wine has no overlay support to
/// compare with), and the presented frame: the overlay's left half (red) stretched
/// 2x at (150, 150), its right half (blue, the source key) transparent over the
/// green primary, and the second overlay (refused) nowhere.
#[test]
fn ddraw_overlay_shows_over_the_primary() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("overlay.png");
    let run = winterp(&[
        "--headless".into(),
        "--deterministic".into(),
        "--frames".into(),
        "10".into(),
        "--screenshot".into(),
        png.display().to_string(),
        exe("ddraw_overlay").display().to_string(),
    ]);
    assert_eq!(run.code, Some(0), "{}", tail(&run.stderr, 30));
    let want = fs::read_to_string(expected("ddraw_overlay.stdout")).unwrap();
    assert_eq!(run.stdout, want);
    let f = winterp_video::png_file::read(&png).unwrap();
    assert_eq!((f.width, f.height), (320, 240));
    let mut wrong = Vec::new();
    for y in 0..240u32 {
        for x in 0..320u32 {
            let want = if (150..214).contains(&x) && (150..214).contains(&y) {
                0xff0000
            } else {
                0x00ff00
            };
            let got = f.pixels[(y * 320 + x) as usize];
            if got != want {
                wrong.push(format!("({x}, {y}): {got:06x}, expected {want:06x}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong pixels: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}
