//! The player in a real window: `scripts/gui-smoke.sh` starts Xvfb, runs
//! `winterp tests/guest/bin/gdi_draw.exe` (no `--headless`), screenshots the whole
//! display, closes the window as a window manager does and checks winterp exits with
//! code 0. This test then finds the guest's frame in the screenshot: it locates the
//! program's red rectangle (40x30 guest pixels at (10, 10), see `src/gdi_draw.c`) to
//! learn the scale and origin, and requires every pixel of the frame the headless
//! runner writes for the same program to appear at its scaled position, so a blank
//! or wrong window fails.
//!
//! Needs Xvfb, ImageMagick, xdotool, python3-xlib and a Vulkan or GL driver
//! (`scripts/setup.sh` installs them). Without them it skips with a notice, unless
//! `WINTERP_REQUIRE_GUI` is set (CI), where their absence fails.

use std::path::Path;
use std::process::Command;
use winterp_hostwin32::display::Frame;

fn tools_present() -> Result<(), String> {
    for tool in ["Xvfb", "import", "xdotool"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !found {
            return Err(format!("{tool} is missing"));
        }
    }
    Ok(())
}

fn at(f: &Frame, x: u32, y: u32) -> u32 {
    f.pixels[(y * f.width + x) as usize]
}

/// The solid run of `colour` that starts at the first such pixel in row order
/// (x0, y0, x1, y1), exclusive: the top-left-most rectangle of that colour.
fn first_block(f: &Frame, colour: u32) -> Option<(u32, u32, u32, u32)> {
    let i = f.pixels.iter().position(|&p| p == colour)? as u32;
    let (x0, y0) = (i % f.width, i / f.width);
    let x1 = (x0..f.width)
        .find(|&x| at(f, x, y0) != colour)
        .unwrap_or(f.width);
    let y1 = (y0..f.height)
        .find(|&y| at(f, x0, y) != colour)
        .unwrap_or(f.height);
    Some((x0, y0, x1, y1))
}

#[test]
fn player_window_shows_the_guest_drawing_and_closes_cleanly() {
    if let Err(why) = tools_present() {
        if std::env::var_os("WINTERP_REQUIRE_GUI").is_some() {
            panic!("gui_window: {why} and WINTERP_REQUIRE_GUI is set");
        }
        println!("gui_window: skipped: {why} (run scripts/setup.sh)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("screen.png");
    let out = Command::new(root.join("scripts/gui-smoke.sh"))
        .arg(root.join("tests/guest/bin/gdi_draw.exe"))
        .arg(&shot)
        .env("WINTERP", env!("CARGO_BIN_EXE_winterp"))
        .output()
        .expect("cannot run scripts/gui-smoke.sh");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "gui-smoke.sh failed:\n{log}");
    println!("{}", log.trim_end());

    let screen = winterp_video::png_file::read(&shot).unwrap();
    // The program's own pixels, from the headless runner.
    let headless = dir.path().join("headless.png");
    let data = dir.path().join("data");
    let run = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .args([
            "--headless",
            "--deterministic",
            "--frames",
            "10",
            "--screenshot",
        ])
        .arg(&headless)
        .arg(root.join("tests/guest/bin/gdi_draw.exe"))
        .env("WINTERP_DATA_DIR", &data)
        .output()
        .expect("cannot run winterp --headless");
    assert!(
        run.status.success(),
        "headless gdi_draw failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let golden = winterp_video::png_file::read(&headless).unwrap();
    // The guest's red FillRect: 40x30 guest pixels with its top-left at (10, 10).
    let (x0, y0, x1, y1) = first_block(&screen, 0xff0000)
        .expect("no red pixel on the screen: the guest's drawing is not shown");
    let (w, h) = (x1 - x0, y1 - y0);
    assert!(
        w % 40 == 0 && h % 30 == 0 && w / 40 == h / 30 && w >= 40,
        "the red rectangle is {w}x{h} on screen, not 40x30 at a whole scale"
    );
    let s = w / 40;
    let (ox, oy) = (x0 - 10 * s, y0 - 10 * s);
    assert!(
        ox + golden.width * s <= screen.width && oy + golden.height * s <= screen.height,
        "the guest frame at scale {s} from ({ox}, {oy}) does not fit the screen"
    );
    let mut wrong = 0;
    for gy in 0..golden.height {
        for gx in 0..golden.width {
            let sx = ox + gx * s + s / 2;
            let sy = oy + gy * s + s / 2;
            wrong += (at(&screen, sx, sy) != at(&golden, gx, gy)) as usize;
        }
    }
    println!(
        "gui_window: guest frame {}x{} found at ({ox}, {oy}) scale {s}; {wrong} of {} pixels differ",
        golden.width,
        golden.height,
        golden.width * golden.height
    );
    assert_eq!(wrong, 0, "the window does not show the guest's pixels");
}
