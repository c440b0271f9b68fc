//! Runs the OpenGL guest programs (`tests/guest/src/gl_*.c`, built into
//! `tests/guest/bin` by `build.sh`) headless and compares what they draw with Mesa:
//!
//! `winterp --headless --deterministic --frames 3 --screenshot OUT.png gl_NAME.exe`
//!
//! Each program draws the same known scenes into a 256 x 256 window for three frames
//! with SwapBuffers (`src/gltest.h`); the third presented frame is the one compared.
//! The oracle needs no Windows: `tests/guest/gl-reference.sh` builds the same C
//! source for Linux against Mesa and runs it under Xvfb with llvmpipe, writing
//! `expected/gl_NAME.png` (the last frame, read back just before it was presented)
//! and `expected/gl_NAME.stdout`. (The .exe files under Wine, which draws with the
//! same Mesa, give the same frames: 8 of 9 byte-identical, gl_prims one pixel off by
//! one.) For each program:
//! - the run must end with exit code 0 and print exactly the oracle's stdout (which
//!   holds nothing that depends on rasterisation: glGetError per frame, and in
//!   `gl_readpix` values read back from flat areas);
//! - three deterministic runs must give byte-identical frames;
//! - the frame must match Mesa's within [`TOLERANCE`] (stated in
//!   `tests/guest/README.md` with the figures it was set from).
//!
//! Every program is run and its figures printed (run with `--nocapture` to see
//! them). Only the programs in [`MATCHING`] fail the test when they do not match:
//! the OpenGL implementation is being built program by program, and a program goes
//! into that list as soon as it matches on main. The tolerance is never widened to
//! let one in. A program not yet matching is reported with its figures, and one that
//! matches without being listed says so, so that the list is kept up to date.

mod common;

use common::{exe, expected, first_difference, tail, winterp};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use winterp_hostwin32::display::Frame;

/// The programs, one per area of OpenGL 1.1 (see each source's header comment).
const PROGRAMS: &[&str] = &[
    "gl_prims",
    "gl_matrix",
    "gl_texture",
    "gl_texenv",
    "gl_blend",
    "gl_depth",
    "gl_fog",
    "gl_arrays",
    "gl_readpix",
];

/// The programs that match Mesa on main; each must keep matching.
const MATCHING: &[&str] = &[
    "gl_texenv",
    "gl_prims",
    "gl_matrix",
    "gl_blend",
    "gl_depth",
    "gl_fog",
    "gl_arrays",
    "gl_texture",
    "gl_readpix",
];

/// The frame compared (the program presents exactly this many).
const FRAMES: u32 = 3;

/// How far a frame may differ from Mesa's: rasterisers that follow the GL rules
/// still differ in edge pixels (ties, clipping), interpolation precision and the
/// level of detail of mipmaps.
pub struct Tolerance {
    /// A pixel matches when no channel differs by more than this.
    pub channel: u8,
    /// A pixel that does not match at its place is "shifted" when each image has a
    /// matching pixel for the other's within one pixel (3 x 3): an edge a pixel
    /// away. At most this share of the frame, in percent, may be shifted.
    pub shifted_percent: f64,
    /// The other mismatching pixels are "wrong"; at most this many in any 64 x 64
    /// tile (the programs draw one case per tile).
    pub wrong_per_tile: u32,
}

/// The rule (tests/guest/README.md gives the figures it was set from: llvmpipe
/// against Mesa's other software rasteriser, softpipe, on these programs: at most
/// 1.07 % shifted in a frame, at most 30 wrong in a tile).
pub const TOLERANCE: Tolerance = Tolerance {
    channel: 8,
    shifted_percent: 2.0,
    wrong_per_tile: 48,
};

/// How two frames differ.
#[derive(Debug, Default, PartialEq)]
pub struct Difference {
    pub pixels: u32,
    /// Pixels whose channels all differ by at most the tolerance.
    pub same: u32,
    pub shifted: u32,
    pub wrong: u32,
    /// Wrong pixels per 64 x 64 tile, row by row.
    pub wrong_tiles: Vec<u32>,
    /// The largest difference of one channel anywhere.
    pub max_channel: u8,
    /// The first wrong pixels: (x, y, reference, frame).
    pub first_wrong: Vec<(u32, u32, u32, u32)>,
}

fn channel_diff(a: u32, b: u32) -> u8 {
    (0..3)
        .map(|k| ((a >> (8 * k)) & 0xff).abs_diff((b >> (8 * k)) & 0xff) as u8)
        .max()
        .unwrap()
}

/// Compares `got` with `want` (the same size) under tolerance `t`.
pub fn compare(want: &Frame, got: &Frame, t: &Tolerance) -> Difference {
    let (w, h) = (want.width, want.height);
    assert_eq!((got.width, got.height), (w, h));
    let at = |f: &Frame, x: u32, y: u32| f.pixels[(y * w + x) as usize];
    // Does image `f` have a pixel within one of (x, y) matching colour `c`?
    let near = |f: &Frame, x: u32, y: u32, c: u32| {
        (y.saturating_sub(1)..(y + 2).min(h)).any(|yy| {
            (x.saturating_sub(1)..(x + 2).min(w))
                .any(|xx| channel_diff(at(f, xx, yy), c) <= t.channel)
        })
    };
    let tiles_x = w.div_ceil(64);
    let mut d = Difference {
        pixels: w * h,
        wrong_tiles: vec![0; (tiles_x * h.div_ceil(64)) as usize],
        ..Difference::default()
    };
    for y in 0..h {
        for x in 0..w {
            let (a, b) = (at(want, x, y), at(got, x, y));
            let diff = channel_diff(a, b);
            d.max_channel = d.max_channel.max(diff);
            if diff <= t.channel {
                d.same += 1;
            } else if near(got, x, y, a) && near(want, x, y, b) {
                d.shifted += 1;
            } else {
                d.wrong += 1;
                d.wrong_tiles[((y / 64) * tiles_x + x / 64) as usize] += 1;
                if d.first_wrong.len() < 8 {
                    d.first_wrong.push((x, y, a, b));
                }
            }
        }
    }
    d
}

impl Difference {
    /// Whether it is within tolerance `t`.
    pub fn within(&self, t: &Tolerance) -> bool {
        f64::from(self.shifted) * 100.0 <= t.shifted_percent * f64::from(self.pixels)
            && self.wrong_tiles.iter().all(|&n| n <= t.wrong_per_tile)
    }

    /// One line of figures.
    pub fn summary(&self) -> String {
        let worst = self
            .wrong_tiles
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))
            .map(|(i, n)| format!("{n} (tile {i})"))
            .unwrap_or_default();
        let mut s = format!(
            "{} pixels: {} same, {} shifted ({:.2} %), {} wrong, most wrong in a tile {}, \
             largest channel difference {}",
            self.pixels,
            self.same,
            self.shifted,
            f64::from(self.shifted) * 100.0 / f64::from(self.pixels),
            self.wrong,
            worst,
            self.max_channel
        );
        for (x, y, a, b) in &self.first_wrong {
            let _ = write!(s, "; ({x}, {y}) {b:06x} for {a:06x}");
        }
        s
    }
}

// ---- the comparison itself can fail -------------------------------------------

fn flat(c: u32) -> Frame {
    Frame {
        width: 256,
        height: 256,
        pixels: vec![c; 256 * 256],
    }
}

fn fill(f: &mut Frame, x0: u32, y0: u32, x1: u32, y1: u32, c: u32) {
    for y in y0..y1 {
        for x in x0..x1 {
            f.pixels[(y * 256 + x) as usize] = c;
        }
    }
}

#[test]
fn identical_frames_match() {
    let mut a = flat(0x000040);
    fill(&mut a, 10, 10, 50, 50, 0xff0000);
    let d = compare(&a, &a, &TOLERANCE);
    assert_eq!(
        (d.same, d.shifted, d.wrong, d.max_channel),
        (65536, 0, 0, 0)
    );
    assert!(d.within(&TOLERANCE));
}

#[test]
fn small_colour_differences_and_a_shifted_edge_match() {
    let mut want = flat(0x000040);
    fill(&mut want, 10, 10, 50, 50, 0xff0000);
    let mut got = flat(0x020240);
    // Every colour off by 2, the square's right edge one pixel further.
    fill(&mut got, 10, 10, 51, 50, 0xfd0202);
    let d = compare(&want, &got, &TOLERANCE);
    assert_eq!((d.shifted, d.wrong), (40, 0), "{}", d.summary());
    assert!(d.within(&TOLERANCE));
}

#[test]
fn a_missing_line_is_wrong() {
    let mut want = flat(0x000040);
    // A one-pixel line of 60 pixels in tile 0 that the frame lacks.
    fill(&mut want, 2, 5, 62, 6, 0xffffff);
    let d = compare(&want, &flat(0x000040), &TOLERANCE);
    assert_eq!((d.shifted, d.wrong, d.wrong_tiles[0]), (0, 60, 60));
    assert!(!d.within(&TOLERANCE));
}

#[test]
fn a_colour_off_by_more_than_the_tolerance_is_wrong() {
    let mut want = flat(0x000040);
    fill(&mut want, 64, 64, 128, 128, 0x808080);
    let mut got = want.clone();
    fill(&mut got, 64, 64, 128, 128, 0x898080);
    let d = compare(&want, &got, &TOLERANCE);
    assert_eq!(d.wrong_tiles[5], 4096, "{}", d.summary());
    assert!(!d.within(&TOLERANCE));
}

#[test]
fn edges_shifted_everywhere_are_too_many() {
    // 62 vertical stripes two pixels wide, all one pixel further right: two
    // shifted columns per stripe, 48 % of the frame.
    let mut want = flat(0);
    let mut got = flat(0);
    for x in (4..252).step_by(4) {
        fill(&mut want, x, 0, x + 2, 256, 0xffffff);
        fill(&mut got, x + 1, 0, x + 3, 256, 0xffffff);
    }
    let d = compare(&want, &got, &TOLERANCE);
    assert_eq!((d.shifted, d.wrong), (62 * 2 * 256, 0), "{}", d.summary());
    assert!(!d.within(&TOLERANCE));
}

// ---- the programs -------------------------------------------------------------

struct Outcome {
    problems: Vec<String>,
    figures: String,
}

fn screenshot(name: &str, dir: &Path, tag: &str) -> Result<(Frame, String), String> {
    let png = dir.join(format!("{name}-{tag}.png"));
    let run = winterp(&[
        "--headless".into(),
        "--deterministic".into(),
        "--frames".into(),
        FRAMES.to_string(),
        "--screenshot".into(),
        png.display().to_string(),
        exe(name).display().to_string(),
    ]);
    if run.code != Some(0) {
        return Err(format!(
            "run {tag}: exit status {:?}\n--- stderr (last 4 lines) ---\n{}",
            run.code,
            tail(&run.stderr, 4)
        ));
    }
    let frame = winterp_video::png_file::read(&png)
        .map_err(|e| format!("run {tag}: no screenshot: {e}"))?;
    Ok((frame, run.stdout))
}

fn check(name: &str) -> Outcome {
    let mut problems = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    let want = winterp_video::png_file::read(&expected(&format!("{name}.png")))
        .unwrap_or_else(|e| panic!("expected/{name}.png: {e} (tests/guest/gl-reference.sh)"));
    let want_out = fs::read_to_string(expected(&format!("{name}.stdout"))).unwrap();
    let (first, stdout) = match screenshot(name, dir.path(), "1") {
        Ok(v) => v,
        Err(e) => {
            return Outcome {
                figures: "no frame".into(),
                problems: vec![e],
            };
        }
    };
    if stdout != want_out {
        problems.push(format!(
            "stdout differs from Mesa's: {}",
            first_difference(&want_out, &stdout)
        ));
    }
    for k in 2..=3 {
        match screenshot(name, dir.path(), &k.to_string()) {
            Ok((again, _)) if again == first => {}
            Ok(_) => problems.push(format!("run {k} gave a different frame from run 1")),
            Err(e) => problems.push(e),
        }
    }
    if (first.width, first.height) != (want.width, want.height) {
        problems.push(format!(
            "frame is {}x{}, Mesa's {}x{}",
            first.width, first.height, want.width, want.height
        ));
        return Outcome {
            figures: "no comparable frame".into(),
            problems,
        };
    }
    let d = compare(&want, &first, &TOLERANCE);
    if !d.within(&TOLERANCE) {
        let keep = std::env::temp_dir().join(format!("{name}-actual.png"));
        let _ = winterp_video::png_file::write(&keep, &first);
        problems.push(format!(
            "frame differs from Mesa's beyond the tolerance (saved at {})",
            keep.display()
        ));
    }
    Outcome {
        figures: d.summary(),
        problems,
    }
}

/// The player measurement runs alone: the program tests render on the same two
/// cores with lavapipe, and a frame rate measured under their load says more about
/// them than about the player (it fell to 23 per second that way). They hold this
/// for reading; the player test holds it for writing.
static ALONE: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn program(name: &str) {
    let _shared = ALONE.read().unwrap_or_else(|e| e.into_inner());
    let o = check(name);
    let listed = MATCHING.contains(&name);
    eprintln!("{name}: {}", o.figures);
    if o.problems.is_empty() {
        if !listed {
            eprintln!("{name}: MATCHES Mesa now; add it to MATCHING in tests/gl_programs.rs");
        }
        return;
    }
    for p in &o.problems {
        eprintln!("{name}: {p}");
    }
    if listed {
        panic!("{name} no longer matches Mesa:\n{}", o.problems.join("\n"));
    }
    eprintln!("{name}: not matching yet (not in MATCHING)");
}

#[test]
fn every_program_has_its_reference_and_is_tested() {
    for name in PROGRAMS {
        assert!(exe(name).exists(), "bin/{name}.exe missing (build.sh)");
        assert!(expected(&format!("{name}.png")).exists());
        assert!(expected(&format!("{name}.stdout")).exists());
    }
    for name in MATCHING {
        assert!(
            PROGRAMS.contains(name),
            "{name} in MATCHING but not in PROGRAMS"
        );
    }
    let src = common::guest_dir().join("src");
    let mut on_disk: Vec<String> = fs::read_dir(&src)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_prefix("gl_")
                .and_then(|r| r.strip_suffix(".c"))
                .map(|r| format!("gl_{r}"))
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = PROGRAMS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every src/gl_*.c is in PROGRAMS");
}

macro_rules! programs {
    ($($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                program(stringify!($name));
            }
        )*
    };
}

programs!(
    gl_prims, gl_matrix, gl_texture, gl_texenv, gl_blend, gl_depth, gl_fog, gl_arrays, gl_readpix
);

// ---- the player: presents per second under Xvfb ---------------------------------

/// The intended present rate (SwapBuffers waits for the 60 Hz vertical blank, as a
/// DirectDraw flip does).
const PLAYER_HZ: f64 = 60.0;
/// How long the present rate is measured.
const PLAYER_MEASURE_S: u64 = 30;

/// A GL program in the player window under Xvfb (wgpu on Mesa's software Vulkan
/// there) presents at 60 per second for 30 s with fewer than 5 % dropped: the player
/// prints its count of presents between the first and the last it saw when the
/// program ends (closed here as a window manager closes a window), as for the demo
/// (tests/demo.rs). The program is the first of [`MATCHING`], drawing its scenes
/// for 100000 frames (more than the run lasts); while no GL program matches yet there
/// is none that draws its scene, and the test says so.
#[test]
fn a_gl_program_presents_60_per_second_in_the_player() {
    use common::xvfb::{Xvfb, gui_tools_present, runtime_dir};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let Some(name) = MATCHING.first() else {
        println!("gl player: no GL program matches Mesa yet (MATCHING is empty); not measured");
        return;
    };
    if !gui_tools_present("gl player", &["Xvfb", "xdotool", "/usr/bin/python3"]) {
        return;
    }
    let _alone = ALONE.write().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let run = runtime_dir(tmp.path());
    let xvfb = Xvfb::start(160);
    let log = tmp.path().join("winterp.log");
    let mut winterp = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .arg(exe(name))
        .arg("100000")
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", &run)
        .env("WINTERP_CONFIG_DIR", tmp.path().join("config"))
        .env("WINTERP_DATA_DIR", tmp.path().join("data"))
        .env("WINTERP_SCREENSHOT_DIR", tmp.path().join("shots"))
        .current_dir(common::guest_dir().join("bin"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("cannot start winterp");
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    std::thread::sleep(Duration::from_secs(PLAYER_MEASURE_S + 3));
    if let Some(st) = winterp.try_wait().unwrap() {
        panic!(
            "winterp ended ({st}) during the measurement:\n{}",
            read_log()
        );
    }
    // What a window manager sends when the user clicks the close button.
    let script = "import sys\n\
        from Xlib import X, display, protocol\n\
        d = display.Display()\n\
        w = d.create_resource_object('window', int(sys.argv[1]))\n\
        p = d.intern_atom('WM_PROTOCOLS')\n\
        dw = d.intern_atom('WM_DELETE_WINDOW')\n\
        ev = protocol.event.ClientMessage(window=w, client_type=p, data=(32, [dw, X.CurrentTime, 0, 0, 0]))\n\
        w.send_event(ev, event_mask=X.NoEventMask)\n\
        d.flush()\n";
    for win in xvfb
        .xdotool(&["search", "--name", "winterp"])
        .split_whitespace()
    {
        let _ = Command::new("/usr/bin/python3")
            .args(["-c", script, win])
            .env("DISPLAY", &xvfb.display)
            .status();
    }
    let t_close = Instant::now();
    let status = loop {
        if let Some(st) = winterp.try_wait().unwrap() {
            break st;
        }
        if t_close.elapsed() > Duration::from_secs(10) {
            let _ = winterp.kill();
            let _ = winterp.wait();
            panic!(
                "winterp did not exit within 10 s of the close request:\n{}",
                read_log()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = read_log();
    assert!(status.success(), "winterp exited with {status}:\n{text}");
    // "winterp: N DirectDraw presents in T s (R per second)": every present, a
    // SwapBuffers as much as a flip.
    let line = text
        .lines()
        .find(|l| l.contains("presents in"))
        .unwrap_or_else(|| panic!("the player reported no presents:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let pos = words.iter().position(|w| *w == "presents").unwrap();
    let n: f64 = words[pos - 2].parse().expect("present count");
    let secs: f64 = words[pos + 2].parse().expect("present time");
    assert!(
        secs >= PLAYER_MEASURE_S as f64,
        "presents measured over {secs} s only"
    );
    let rate = n / secs;
    let dropped = (1.0 - rate / PLAYER_HZ).max(0.0) * 100.0;
    println!(
        "gl player: {name}: {n} presents in {secs:.2} s = {rate:.2} per second \
         (intended {PLAYER_HZ}); {dropped:.2} % dropped"
    );
    assert!(
        dropped < 5.0,
        "{name} presents {rate:.2} frames per second in the player, {dropped:.2} % below {PLAYER_HZ}"
    );
}
