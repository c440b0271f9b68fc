//! The tier overlay rendered offscreen during a demo run (`--overlay-png`) and the
//! process-wide hot blocks in `--stats`: the PNG has the overlay's size, shows a
//! window with content, and changes with what ran; the stats name the demo's hot
//! blocks by module and offset, with the same counts whatever the tiers. And F10 in
//! the player's window (under Xvfb; skipped without it unless WINTERP_REQUIRE_GUI is
//! set) opens and closes the overlay. (The switch-flips-the-gate unit test is in
//! src/app/gui/overlay.rs.)

mod common;
use common::xvfb::{Xvfb, gui_tools_present, runtime_dir};

use std::path::{Path, PathBuf};
use std::process::Command;
use winterp_hostwin32::display::Frame;

const FOLDS: [&str; 5] = ["lut", "copy", "fill", "scan", "mmx_fill"];
/// `overlay::offscreen::{WIDTH, HEIGHT}`.
const PNG_SIZE: (u32, u32) = (600, 1100);

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/demo.exe")
}

struct Run {
    /// The overlay PNG, decoded to 0x00RRGGBB pixels.
    png: Frame,
    stats: serde_json::Value,
}

/// 300 deterministic demo frames with the folds `on` or off, the overlay rendered to a
/// PNG and the stats written.
fn run(on: bool) -> Run {
    let data = tempfile::tempdir().unwrap();
    let png = data.path().join("overlay.png");
    let stats = data.path().join("stats.json");
    let mut c = Command::new(env!("CARGO_BIN_EXE_winterp"));
    c.env("WINTERP_DATA_DIR", data.path());
    let arm = if on { "on" } else { "off" };
    for t in FOLDS {
        c.arg("--tier").arg(format!("{t}={arm}"));
    }
    let out = c
        .args(["--headless", "--deterministic", "--frames", "300"])
        .arg("--overlay-png")
        .arg(&png)
        .arg("--stats")
        .arg(&stats)
        .arg(demo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "winterp failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(png.is_file(), "no overlay PNG written");
    let png = winterp_video::png_file::read(&png).expect("the overlay PNG decodes");
    let stats = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    Run { png, stats }
}

/// Distinct colours and non-background pixels in the rectangle (x0, y0)..(x1, y1).
fn content(img: &Frame, x0: u32, y0: u32, x1: u32, y1: u32) -> (usize, usize) {
    let mut colours = std::collections::HashSet::new();
    let mut lit = 0;
    for y in y0..y1.min(img.height) {
        for x in x0..x1.min(img.width) {
            let p = img.pixels[(y * img.width + x) as usize];
            colours.insert(p);
            if p != 0 {
                lit += 1;
            }
        }
    }
    (colours.len(), lit)
}

#[test]
fn overlay_png_and_hot_blocks_of_a_demo_run() {
    let on = run(true);
    let off = run(false);

    // --stats: the folds fired and the hot blocks are named.
    let tiers = &on.stats["tiers"];
    let elements: u64 = FOLDS
        .iter()
        .map(|t| tiers[t]["stats"]["elements"].as_u64().unwrap())
        .sum();
    assert!(elements > 0, "no fold ran on the demo: {tiers}");
    for r in [&on, &off] {
        let hot = r.stats["hot_blocks"].as_array().expect("hot_blocks list");
        assert_eq!(hot.len(), 20, "{hot:?}");
        let entries: Vec<u64> = hot.iter().map(|b| b["entries"].as_u64().unwrap()).collect();
        assert!(entries[0] > 1000, "the hottest block ran: {entries:?}");
        assert!(
            entries.windows(2).all(|w| w[0] >= w[1]),
            "most entered first: {entries:?}"
        );
        let blocks = r.stats["blocks"].as_u64().unwrap();
        assert!(
            entries.iter().sum::<u64>() <= blocks,
            "hot-block entries are block entries ({blocks} in all)"
        );
        for b in hot {
            assert!(b["insns_per_entry"].as_u64().unwrap() > 0, "{b}");
            let addr = b["address"].as_u64().unwrap();
            let module = b["module"].as_str().unwrap_or("");
            // The demo is one program image at its preferred base.
            let want = format!("demo.exe+{:#x}", addr - 0x40_0000);
            assert!(
                module.eq_ignore_ascii_case(&want),
                "{module} for {addr:#x} (want {want})"
            );
        }
    }
    // Block entries are exact in every tier (a folded iteration is one entry) and a
    // deterministic run's totals do not depend on when threads published them.
    let shape = |r: &Run| -> Vec<(u64, u64, u64)> {
        r.stats["hot_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let n = |k: &str| b[k].as_u64().unwrap();
                (n("address"), n("entries"), n("insns_per_entry"))
            })
            .collect()
    };
    assert_eq!(
        shape(&on),
        shape(&off),
        "hot blocks with the folds on and off"
    );
    let tier_of = |r: &Run| -> Vec<String> {
        r.stats["hot_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["tier"].as_str().map(String::from))
            .collect()
    };
    // (The demo's hottest blocks are plain code: its folded loops run fewer, longer
    // iterations; tests/tiers.rs checks the tier named for a folded block.)
    assert!(
        tier_of(&off).is_empty(),
        "no tier runs anything when all are off: {:?}",
        tier_of(&off)
    );

    // The PNG: the overlay's size, a window with text and lines in it, and a
    // different picture when the tiers are off (switches, counters, plot).
    for r in [&on, &off] {
        assert_eq!((r.png.width, r.png.height), PNG_SIZE);
        let (colours, lit) = content(&r.png, 0, 0, PNG_SIZE.0, PNG_SIZE.1);
        assert!(
            colours > 16,
            "anti-aliased text and a plot: {colours} colours"
        );
        assert!(
            lit > 50_000,
            "a window drawn over the background: {lit} pixels"
        );
        // The bottom-right corner is outside the window: background.
        let (bg, lit_corner) = content(
            &r.png,
            PNG_SIZE.0 - 20,
            PNG_SIZE.1 - 20,
            PNG_SIZE.0,
            PNG_SIZE.1,
        );
        assert_eq!((bg, lit_corner), (1, 0), "the background stays clear");
    }
    let differ = on
        .png
        .pixels
        .iter()
        .zip(&off.png.pixels)
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        differ > 500,
        "the overlay shows what ran: {differ} pixels differ"
    );
}

/// A process this test started, ended (by its own handle) when dropped.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn screenshot(xvfb: &Xvfb, path: &Path) -> Frame {
    xvfb.screenshot(path)
        .expect("the screenshot is taken and decodes")
}

/// F10 in the player's window (under Xvfb) opens the overlay over the guest's picture
/// and F10 again closes it, leaving the picture as it was.
#[test]
fn f10_toggles_the_overlay_in_the_player() {
    if !gui_tools_present("overlay f10", &["Xvfb", "import", "xdotool"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = runtime_dir(tmp.path());
    let xvfb = Xvfb::start(140);
    let display = xvfb.display.clone();
    let xdotool = |args: &[&str]| xvfb.xdotool(args);
    let log = tmp.path().join("winterp.log");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guest/bin/gdi_draw.exe");
    let mut player = Child(
        Command::new(env!("CARGO_BIN_EXE_winterp"))
            .arg(&program)
            .env("DISPLAY", &display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &run_dir)
            .env("WINTERP_CONFIG_DIR", tmp.path().join("config"))
            .env("WINTERP_DATA_DIR", tmp.path().join("data"))
            .env("RUST_LOG", "info")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("cannot start the player"),
    );
    let t0 = std::time::Instant::now();
    let win = loop {
        // The title is "<guest title> — winterp", with " (paused)" while paused.
        let w = xdotool(&["search", "--name", "winterp"]);
        if let Some(w) = w.lines().next().filter(|w| !w.is_empty()) {
            break w.to_string();
        }
        let exited = player.0.try_wait().ok().flatten();
        if exited.is_some() || t0.elapsed().as_secs() >= 60 {
            panic!(
                "no player window within {:.1} s (player exit status: {exited:?}); its log:\n{}",
                t0.elapsed().as_secs_f64(),
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    // The program draws once and waits; give the player time to show it.
    std::thread::sleep(std::time::Duration::from_secs(3));
    // Without a window manager nothing gives the window the keyboard focus.
    xdotool(&["windowfocus", &win]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pause = || std::thread::sleep(std::time::Duration::from_millis(1500));
    let before = screenshot(&xvfb, &tmp.path().join("a.png"));
    xdotool(&["key", "F10"]);
    pause();
    let open = screenshot(&xvfb, &tmp.path().join("b.png"));
    xdotool(&["key", "F10"]);
    pause();
    let closed = screenshot(&xvfb, &tmp.path().join("c.png"));
    // The overlay's window: its default place, 8..540 x 32..600 logical pixels
    // (Xvfb's scale is 1).
    let differing = |a: &Frame, b: &Frame| {
        let mut d = 0;
        for y in 40..600 {
            for x in 10..530 {
                let i = (y * a.width + x) as usize;
                d += (a.pixels[i] != b.pixels[i]) as usize;
            }
        }
        d
    };
    let area = 520 * 560;
    let shown = differing(&before, &open);
    assert!(
        shown > area / 2,
        "F10 did not draw the overlay: {shown} of {area} pixels changed"
    );
    let left = differing(&before, &closed);
    assert!(
        left < area / 100,
        "F10 again did not close the overlay: {left} of {area} pixels differ"
    );
}
