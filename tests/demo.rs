//! Acceptance tests of the bundled demo game (`assets/demo/demo.exe`, source
//! `assets/demo/demo.c`).
//!
//! - Headless: frame 300 of a deterministic run is the same in three runs and its
//!   pixels hash to the golden value in `assets/demo/golden.txt`; independently of
//!   winterp, the frame must show what the C source puts there: the status bar with
//!   "SCORE 000000   TIME 00x" in the 5x7 font, the idle player's pixel art at his
//!   start position, the water rows in water colours only.
//! - A scripted input that walks the player right changes the frame only where the
//!   player (and his shadow) were and went, and the player's art is found further
//!   right.
//! - Player window (Xvfb): `winterp` with no argument shows the demo within 5 s, runs
//!   a cpal stream, and presents at the demo's 60 Hz (see `player_window` below).
//!
//! The model of the frame (palette, font, player art, positions) is copied from
//! demo.c by hand: keep the two in step.

mod common;
use common::xvfb::{Xvfb, gui_tools_present, runtime_dir};

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use winterp_hostwin32::display::Frame;

const W: u32 = 320;
const H: u32 = 240;
const FRAMES: u64 = 300;

// demo.c's layout.
const STATUS_H: u32 = 12;
const TEXT_X: u32 = 4;
const TEXT_Y: u32 = 3;
const GROUND_Y: u32 = 192;
const PLAYER_W: u32 = 16;
const PLAYER_H: u32 = 20;
const PLAYER_START_X: u32 = 80;

// demo.c's build_palette(), as 0xRRGGBB.
const C_TEXT: u32 = 0xffffff;
const C_PANEL: u32 = 0x101848;
const fn rgb(r: u32, g: u32, b: u32) -> u32 {
    (r << 16) | (g << 8) | b
}
fn art_colour(c: u8) -> Option<u32> {
    Some(match c {
        b'k' => 0x000000,
        b's' => rgb(248, 184, 136),
        b'r' => rgb(216, 40, 40),
        b'b' => rgb(40, 64, 200),
        b'h' => rgb(96, 56, 16),
        b'e' => rgb(16, 16, 16),
        _ => return None,
    })
}
fn water_colours() -> Vec<u32> {
    (0..8)
        .map(|i| rgb(20 + i * 10, 60 + i * 18, 160 + i * 12))
        .collect()
}

/// demo.c's player_art[0]: standing, facing right.
const PLAYER_STAND: [&str; PLAYER_H as usize] = [
    "......hhhh......",
    ".....hhhhhh.....",
    ".....hsssss.....",
    ".....ssesse.....",
    ".....ssssss.....",
    "......ssss......",
    ".....rrrrrr.....",
    "....rrrrrrrr....",
    "...srrrrrrrrs...",
    "...srrrrrrrrs...",
    "...s.rrrrrr.s...",
    ".....rrrrrr.....",
    ".....bbbbbb.....",
    ".....bbbbbb.....",
    ".....bb..bb.....",
    ".....bb..bb.....",
    ".....bb..bb.....",
    ".....bb..bb.....",
    "....kkk..kkk....",
    "....kkk..kkk....",
];

/// demo.c's 5x7 font (bit 4 = leftmost column) for the characters of the status bar.
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        'S' => [0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e],
        'C' => [0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e],
        'O' => [0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        'R' => [0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11],
        'E' => [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f],
        'T' => [0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'I' => [0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e],
        'M' => [0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11],
        _ => return None,
    })
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn demo_exe() -> PathBuf {
    root().join("assets/demo/demo.exe")
}

fn at(f: &Frame, x: u32, y: u32) -> u32 {
    f.pixels[(y * f.width + x) as usize]
}

/// Frame `FRAMES` of a deterministic headless run, with an optional input script.
fn headless_frame(script: Option<&str>) -> Frame {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("f.png");
    let mut args: Vec<OsString> = vec![
        "--headless".into(),
        "--deterministic".into(),
        "--frames".into(),
        FRAMES.to_string().into(),
        "--screenshot".into(),
        shot.clone().into(),
    ];
    if let Some(s) = script {
        let p = dir.path().join("input.txt");
        std::fs::write(&p, s).unwrap();
        args.push("--input".into());
        args.push(p.into());
    }
    args.push(demo_exe().into());
    let run = common::run_winterp(args, &dir.path().join("data"), root(), common::TIMEOUT);
    assert!(
        run.code == Some(0),
        "winterp --headless demo.exe failed (exit status {:?}):\n{}",
        run.code,
        run.stderr
    );
    let f = winterp_video::png_file::read(&shot).expect("no screenshot");
    assert_eq!(
        (f.width, f.height),
        (W, H),
        "the demo runs full-screen at 320x240"
    );
    f
}

/// SHA-256 of the frame's RGBA8 pixels (row-major, alpha 255), by coreutils'
/// sha256sum.
fn sha256(f: &Frame) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rgba");
    std::fs::write(&p, f.to_rgba8()).unwrap();
    let out = Command::new("sha256sum")
        .arg(&p)
        .output()
        .expect("sha256sum (coreutils) is needed");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Checks the status bar against the text demo.c draws. The time's last digit
/// depends on how many 60 Hz ticks preceded the frame; the rest is fixed.
fn check_status_bar(f: &Frame) {
    let text = "SCORE 000000   TIME 00";
    let mut bad = Vec::new();
    for y in 0..STATUS_H {
        for x in 0..W {
            let p = at(f, x, y);
            if p != C_PANEL && p != C_TEXT {
                bad.push((x, y, p));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "status bar pixels neither panel nor text colour: {:x?}",
        &bad[..bad.len().min(10)]
    );
    let cell = |f: &Frame, x0: u32| -> [u8; 7] {
        let mut rows = [0u8; 7];
        for (r, row) in rows.iter_mut().enumerate() {
            for c in 0..5 {
                if at(f, x0 + c, TEXT_Y + r as u32) == C_TEXT {
                    *row |= 0x10 >> c;
                }
            }
        }
        rows
    };
    for (i, ch) in text.chars().enumerate() {
        let want = glyph(ch).unwrap_or([0; 7]);
        assert_eq!(
            cell(f, TEXT_X + 6 * i as u32),
            want,
            "status bar character {i} is not {ch:?}"
        );
    }
    let last = cell(f, TEXT_X + 6 * text.len() as u32);
    assert!(
        ('0'..='9').any(|d| glyph(d) == Some(last)),
        "the time's last digit is no digit: {last:x?}"
    );
    // Only the text's characters are lit: the rest of the bar is panel colour.
    let lit = f.pixels[..(STATUS_H * W) as usize]
        .iter()
        .filter(|&&p| p == C_TEXT)
        .count() as u32;
    let want: u32 = text
        .chars()
        .filter_map(glyph)
        .chain([last])
        .map(|g| g.iter().map(|r| r.count_ones()).sum::<u32>())
        .sum();
    assert_eq!(lit, want, "text pixels in the status bar");
}

/// Whether the standing player's art is at top-left (x, y): every opaque art pixel
/// in its colour.
fn player_at(f: &Frame, x: u32, y: u32) -> bool {
    PLAYER_STAND.iter().enumerate().all(|(r, row)| {
        row.bytes().enumerate().all(|(c, ch)| match art_colour(ch) {
            Some(col) => at(f, x + c as u32, y + r as u32) == col,
            None => true,
        })
    })
}

fn player_columns(f: &Frame) -> Vec<u32> {
    (0..=W - PLAYER_W)
        .filter(|&x| player_at(f, x, GROUND_Y - PLAYER_H))
        .collect()
}

fn golden_path() -> PathBuf {
    root().join("assets/demo/golden.txt")
}

/// The golden hash from golden.txt ("frame300 <sha256>").
fn golden_hash() -> Option<String> {
    let text = std::fs::read_to_string(golden_path()).ok()?;
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix("frame300 ").map(|h| h.trim().to_string()))
}

#[test]
fn demo_frame_300_is_deterministic_and_shows_what_the_source_draws() {
    let frames: Vec<Frame> = (0..3).map(|_| headless_frame(None)).collect();
    for (i, f) in frames.iter().enumerate().skip(1) {
        assert!(
            *f == frames[0],
            "deterministic run {} differs from run 0",
            i
        );
    }
    let f = &frames[0];
    check_status_bar(f);
    // Without input the player stands at his start, facing right.
    assert_eq!(
        player_columns(f),
        vec![PLAYER_START_X],
        "the idle player's art is not (only) at x = {PLAYER_START_X}"
    );
    // The bottom tile row is water: palette-cycled water colours only.
    let water = water_colours();
    let off = (224 * W..H * W)
        .filter(|&i| !water.contains(&f.pixels[i as usize]))
        .count();
    assert_eq!(off, 0, "pixels of the water row that are not water colours");
    // Something moves in the attract mode: the sky is not one colour per row
    // everywhere (hills, birds, clouds, coins are drawn).
    let distinct: std::collections::HashSet<u32> = f.pixels.iter().copied().collect();
    assert!(
        distinct.len() > 40,
        "only {} colours on screen",
        distinct.len()
    );

    let hash = sha256(f);
    println!("demo frame {FRAMES}: sha256 of RGBA pixels {hash}");
    if std::env::var_os("WINTERP_BLESS").is_some() {
        let text = format!(
            "# Golden frame of the demo (tests/demo.rs): SHA-256 of the RGBA8 pixels (row-major,\n\
             # alpha 255) of `winterp --headless --deterministic --frames 300 --screenshot F.png\n\
             # assets/demo/demo.exe`, e.g. `convert F.png rgba:- | sha256sum`. Written by\n\
             # WINTERP_BLESS=1 cargo test --release --test demo, only after the frame's\n\
             # source-derived checks passed; changes when demo.c or winterp's output changes.\n\
             frame300 {hash}\n"
        );
        std::fs::write(golden_path(), text).unwrap();
        println!("demo: golden hash written to {}", golden_path().display());
        return;
    }
    let golden = golden_hash().expect("assets/demo/golden.txt has no frame300 line");
    assert_eq!(hash, golden, "frame {FRAMES} differs from the golden frame");
}

/// The rectangle (x0, y0, x1, y1), exclusive, around all pixels that differ.
fn diff_box(a: &Frame, b: &Frame) -> Option<(u32, u32, u32, u32)> {
    let mut r: Option<(u32, u32, u32, u32)> = None;
    for y in 0..H {
        for x in 0..W {
            if at(a, x, y) != at(b, x, y) {
                r = Some(match r {
                    None => (x, y, x + 1, y + 1),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1)),
                });
            }
        }
    }
    r
}

/// Checks that `moved` (a run with `script`) differs from the idle run only around
/// the player, who now stands further right.
fn check_moved_right(script: &str, what: &str) {
    let idle = headless_frame(None);
    let moved = headless_frame(Some(script));
    let cols = player_columns(&moved);
    println!("demo {what}: player art found at x = {cols:?} (idle: {PLAYER_START_X})");
    assert_eq!(cols.len(), 1, "{what}: the player is not found once");
    let x = cols[0];
    assert!(
        x > PLAYER_START_X + 8,
        "{what}: the player did not move right (x = {x})"
    );
    let (x0, y0, x1, y1) = diff_box(&idle, &moved).expect("no difference at all");
    println!("demo {what}: frames differ within x {x0}..{x1}, y {y0}..{y1}");
    // The player's rows and his shadow's (an ellipse 2 rows either side of
    // GROUND_Y + 2); columns from his start to his end, with the shadow's 9 pixel
    // half-width around his centre.
    let shadow_r = 9;
    assert!(
        y0 >= GROUND_Y - PLAYER_H && y1 <= GROUND_Y + 2 + 3,
        "{what}: rows {y0}..{y1} changed, outside the player's and his shadow's rows"
    );
    assert!(
        x0 + shadow_r >= PLAYER_START_X + PLAYER_W / 2 - PLAYER_W / 2
            && x1 <= x + PLAYER_W / 2 + shadow_r + 1,
        "{what}: columns {x0}..{x1} changed, beyond the player's path {PLAYER_START_X}..{}",
        x + PLAYER_W
    );
}

#[test]
fn demo_arrow_key_walks_the_player_and_changes_nothing_else() {
    check_moved_right(
        "100 key down RIGHT\n130 key up RIGHT\n",
        "RIGHT held for ticks 100..130",
    );
}

#[test]
fn demo_pad_walks_the_player_and_changes_nothing_else() {
    // The pad is plugged in from the start (the demo polls joyGetPosEx every tick).
    check_moved_right(
        "1 pad 0 connect\n100 pad 0 axis x 65535\n130 pad 0 axis x 32767\n",
        "pad 0 X axis right for ticks 100..130",
    );
    check_moved_right(
        "1 pad 0 connect\n100 pad 0 pov 9000\n130 pad 0 pov center\n",
        "pad 0 hat right for ticks 100..130",
    );
}

// ------------------------------------------------------------------ player window

/// Where the demo's guest frame is in a screenshot: the status bar's top-left and
/// the scale, from the status bar's first row (a 320 guest pixel run of panel
/// colour, the text starts 3 rows lower).
fn find_demo(screen: &Frame) -> Option<(u32, u32, f64)> {
    let i = screen.pixels.iter().position(|&p| p == C_PANEL)? as u32;
    let (x0, y0) = (i % screen.width, i / screen.width);
    let x1 = (x0..screen.width)
        .find(|&x| at(screen, x, y0) != C_PANEL)
        .unwrap_or(screen.width);
    let s = (x1 - x0) as f64 / W as f64;
    (s >= 1.0).then_some((x0, y0, s))
}

/// The share of the source-derived pixels (the "SCORE 000000   TIME 00" text and
/// its panel, the idle player's art) that the screenshot shows at their guest
/// positions scaled by `s` from (ox, oy).
fn demo_match(screen: &Frame, ox: u32, oy: u32, s: f64) -> (usize, usize) {
    let sample = |gx: u32, gy: u32| -> Option<u32> {
        let x = ox as f64 + (gx as f64 + 0.5) * s;
        let y = oy as f64 + (gy as f64 + 0.5) * s;
        ((x as u32) < screen.width && (y as u32) < screen.height)
            .then(|| at(screen, x as u32, y as u32))
    };
    let (mut good, mut total) = (0, 0);
    for (i, ch) in "SCORE 000000   TIME 00".chars().enumerate() {
        let g = glyph(ch).unwrap_or([0; 7]);
        for (r, bits) in g.iter().enumerate() {
            for c in 0..5 {
                let want = if bits & (0x10 >> c) != 0 {
                    C_TEXT
                } else {
                    C_PANEL
                };
                total += 1;
                good +=
                    (sample(TEXT_X + 6 * i as u32 + c, TEXT_Y + r as u32) == Some(want)) as usize;
            }
        }
    }
    for (r, row) in PLAYER_STAND.iter().enumerate() {
        for (c, ch) in row.bytes().enumerate() {
            if let Some(col) = art_colour(ch) {
                total += 1;
                good += (sample(PLAYER_START_X + c as u32, GROUND_Y - PLAYER_H + r as u32)
                    == Some(col)) as usize;
            }
        }
    }
    (good, total)
}

/// Xvfb, the player started as `winterp` alone, and what it printed.
struct PlayerRun {
    winterp: std::process::Child,
    log: PathBuf,
    // Dropped after the player (fields drop in order), so the player never sees
    // its display go away while it runs.
    xvfb: Xvfb,
    _tmp: tempfile::TempDir,
}

impl Drop for PlayerRun {
    fn drop(&mut self) {
        let _ = self.winterp.kill();
        let _ = self.winterp.wait();
    }
}

impl PlayerRun {
    fn start() -> PlayerRun {
        let tmp = tempfile::tempdir().unwrap();
        let run = runtime_dir(tmp.path());
        let xvfb = Xvfb::start(120);
        let log = tmp.path().join("winterp.log");
        let winterp = Command::new(env!("CARGO_BIN_EXE_winterp"))
            .env("DISPLAY", &xvfb.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &run)
            .env("WINTERP_CONFIG_DIR", tmp.path().join("config"))
            .env("WINTERP_DATA_DIR", tmp.path().join("data"))
            .env("WINTERP_SCREENSHOT_DIR", tmp.path().join("shots"))
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(tmp.path().join("stdout.log")).unwrap())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("cannot start winterp");
        PlayerRun {
            winterp,
            log,
            xvfb,
            _tmp: tmp,
        }
    }

    fn screenshot(&self) -> Option<Frame> {
        self.xvfb.screenshot(&self._tmp.path().join("screen.png"))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Closes the player window the way a window manager does (WM_DELETE_WINDOW).
    fn close_window(&self) {
        let out = Command::new("xdotool")
            .args(["search", "--name", "winterp"])
            .env("DISPLAY", &self.xvfb.display)
            .output()
            .expect("xdotool");
        let list = String::from_utf8_lossy(&out.stdout).to_string();
        for win in list.split_whitespace() {
            let script = "import sys\n\
                from Xlib import X, display, protocol\n\
                d = display.Display()\n\
                w = d.create_resource_object('window', int(sys.argv[1]))\n\
                p = d.intern_atom('WM_PROTOCOLS')\n\
                dw = d.intern_atom('WM_DELETE_WINDOW')\n\
                ev = protocol.event.ClientMessage(window=w, client_type=p, data=(32, [dw, X.CurrentTime, 0, 0, 0]))\n\
                w.send_event(ev, event_mask=X.NoEventMask)\n\
                d.flush()\n";
            let _ = Command::new("/usr/bin/python3")
                .args(["-c", script, win])
                .env("DISPLAY", &self.xvfb.display)
                .status();
        }
    }
}

/// The demo's intended present rate: one flip per 60 Hz game tick.
const DEMO_HZ: f64 = 60.0;
/// How long the present rate is measured.
const MEASURE_S: u64 = 30;

/// `winterp` with no argument plays the demo: within 5 s the window shows its
/// frame (status bar text and the idle player, found at the window's scale), a
/// cpal stream is running (the audio backend's log line; the null device under
/// Xvfb), and over 30 s it presents at 60 Hz with fewer than 5 % of the frames
/// dropped: the player prints its count of DirectDraw presents between the first
/// and the last one it saw when the program ends, closed here as a window manager
/// closes a window.
#[test]
fn demo_plays_in_the_player_without_an_argument() {
    if !gui_tools_present(
        "demo player",
        &["Xvfb", "import", "xdotool", "/usr/bin/python3"],
    ) {
        return;
    }
    let mut run = PlayerRun::start();
    let t0 = std::time::Instant::now();
    let mut shown = None;
    let mut last = (0, 0);
    while t0.elapsed() < std::time::Duration::from_secs(5) {
        if let Some(screen) = run.screenshot()
            && let Some((ox, oy, s)) = find_demo(&screen)
        {
            let (good, total) = demo_match(&screen, ox, oy, s);
            last = (good, total);
            if good * 100 >= total * 98 {
                shown = Some((t0.elapsed(), ox, oy, s));
                break;
            }
        }
        if let Ok(Some(st)) = run.winterp.try_wait() {
            panic!(
                "winterp exited ({st}) before showing the demo:\n{}",
                run.log()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let Some((after, ox, oy, s)) = shown else {
        panic!(
            "the demo's frame is not on the screen within 5 s (best match {} of {} \
             source-derived pixels); winterp's log:\n{}",
            last.0,
            last.1,
            run.log()
        );
    };
    println!(
        "demo player: the demo's frame shown after {:.2} s at ({ox}, {oy}), scale {s:.3}",
        after.as_secs_f64()
    );

    std::thread::sleep(std::time::Duration::from_secs(MEASURE_S));
    assert!(
        run.winterp.try_wait().unwrap().is_none(),
        "winterp ended during the measurement:\n{}",
        run.log()
    );
    run.close_window();
    let t_close = std::time::Instant::now();
    let status = loop {
        if let Some(st) = run.winterp.try_wait().unwrap() {
            break st;
        }
        assert!(
            t_close.elapsed() < std::time::Duration::from_secs(10),
            "winterp did not exit within 10 s of the close request:\n{}",
            run.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let log = run.log();
    assert!(status.success(), "winterp exited with {status}:\n{log}");

    let audio = log
        .lines()
        .find(|l| l.contains("audio: cpal stream on"))
        .unwrap_or_else(|| panic!("no cpal stream was started:\n{log}"));
    println!("demo player: {}", audio.trim());

    // "winterp: N DirectDraw presents in T s (R per second)"
    let line = log
        .lines()
        .find(|l| l.contains("DirectDraw presents in"))
        .unwrap_or_else(|| panic!("the player reported no presents:\n{log}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let pos = words
        .iter()
        .position(|w| *w == "DirectDraw")
        .expect("present line");
    let n: f64 = words[pos - 1].parse().expect("present count");
    let secs: f64 = words[pos + 3].parse().expect("present time");
    assert!(
        secs >= MEASURE_S as f64,
        "presents measured over {secs} s only"
    );
    let rate = n / secs;
    let dropped = (1.0 - rate / DEMO_HZ).max(0.0) * 100.0;
    println!(
        "demo player: {n} presents in {secs:.2} s = {rate:.2} per second \
         (intended {DEMO_HZ}); {dropped:.2} % dropped"
    );
    assert!(
        dropped < 5.0,
        "the demo presents {rate:.2} frames per second, {dropped:.2} % below {DEMO_HZ}"
    );
}
