//! The loop-idiom tiers on real (mingw-compiled) guest programs: with every tier on
//! and every tier off, deterministic runs print the same output and retire the same
//! instructions and blocks, and the folds fire (`--stats` reports matches and
//! iterations) on more than one program: each of the seven on both tierloops programs.
//!
//! The bundled demo (issue 6's acceptance): frames 1-600 of a deterministic run are
//! byte-identical with every available tier on and off, and with `lut` switched off
//! at frame 200 and on again at frame 400 (`--frame-hashes`, `--tier-at`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fold tiers the on/off arms switch.
const FOLDS: &[&str] = &[
    "lut",
    "copy",
    "fill",
    "scan",
    "mmx_fill",
    "lut_span",
    "case_chain",
];

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/guest/bin")
        .join(format!("{name}.exe"))
}

/// Runs `program` headless and deterministic with every fold `on` or off; returns
/// stdout and the parsed `--stats`.
fn run(program: &str, on: bool) -> (Vec<u8>, serde_json::Value) {
    let data = tempfile::tempdir().unwrap();
    let stats = data.path().join("stats.json");
    let arm = if on { "on" } else { "off" };
    let mut c = Command::new(env!("CARGO_BIN_EXE_winterp"));
    c.env("WINTERP_DATA_DIR", data.path());
    for t in FOLDS {
        c.arg("--tier").arg(format!("{t}={arm}"));
    }
    let out = c
        .args(["--headless", "--deterministic", "--stats"])
        .arg(&stats)
        .arg(guest(program))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    (out.stdout, v)
}

fn stat(v: &serde_json::Value, tier: &str, field: &str) -> u64 {
    v["tiers"][tier]["stats"][field].as_u64().unwrap()
}

#[test]
fn folds_fire_on_guest_programs_and_change_nothing() {
    // tierloops (inline asm) and tierloops2 (plain C through gcc -O2) hold every fold's
    // shape with different registers and addressing, so each fold fires on two programs.
    for (program, tiers) in [
        ("cpuheavy", &["copy", "scan"][..]),
        ("fpu", &["scan"][..]),
        ("tierloops", FOLDS),
        ("tierloops2", FOLDS),
    ] {
        let (out_off, off) = run(program, false);
        let (out_on, on) = run(program, true);
        assert_eq!(out_off, out_on, "{program}: output");
        for k in ["instructions", "blocks"] {
            assert_eq!(off[k], on[k], "{program}: {k}");
        }
        for t in tiers {
            assert_eq!(
                stat(&off, t, "matches"),
                0,
                "{program}: {t} matched while off"
            );
            assert!(stat(&on, t, "matches") > 0, "{program}: {t} did not match");
            assert!(stat(&on, t, "iterations") > 0, "{program}: {t} never ran");
        }
        let fired: Vec<String> = tiers
            .iter()
            .map(|t| {
                format!(
                    "{t} {}/{}",
                    stat(&on, t, "matches"),
                    stat(&on, t, "iterations")
                )
            })
            .collect();
        println!(
            "{program}: matches/iterations with the folds on: {}; {} instructions in both arms",
            fired.join(", "),
            on["instructions"]
        );
    }
}

/// The bundled demo (assets/demo/demo.exe): frame 300 in deterministic mode is
/// byte-identical with the folds on and off, and LUT_RUN and FILL_RUN fire on it
/// (its `draw_shadow` loop is gcc's in-place `*d = g_shadow[*d]` with a `jne` bound).
#[test]
fn demo_frames_identical_with_folds_on_and_off() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/demo.exe");
    let mut shots = Vec::new();
    let mut stats = Vec::new();
    for arm in ["off", "on"] {
        let data = tempfile::tempdir().unwrap();
        let shot = data.path().join("f.png");
        let st = data.path().join("stats.json");
        let mut c = Command::new(env!("CARGO_BIN_EXE_winterp"));
        c.env("WINTERP_DATA_DIR", data.path());
        for t in FOLDS {
            c.arg("--tier").arg(format!("{t}={arm}"));
        }
        let out = c
            .args([
                "--headless",
                "--deterministic",
                "--frames",
                "300",
                "--screenshot",
            ])
            .arg(&shot)
            .arg("--stats")
            .arg(&st)
            .arg(&demo)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        shots.push(std::fs::read(&shot).unwrap());
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&st).unwrap()).unwrap();
        stats.push(v);
    }
    assert!(shots[0] == shots[1], "frame 300 differs with the folds on");
    assert_eq!(stats[0]["instructions"], stats[1]["instructions"]);
    assert_eq!(stats[0]["blocks"], stats[1]["blocks"]);
    for t in ["lut", "fill"] {
        assert!(stat(&stats[1], t, "matches") > 0, "demo: {t} did not match");
        assert!(stat(&stats[1], t, "bulk") > 0, "demo: {t} kernel never ran");
    }
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/demo.exe")
}

/// The tiers this build implements, by name, from the `tiers` object of `--stats`
/// (so tiers built later are switched by these tests without editing them).
fn available_tiers() -> Vec<String> {
    let data = tempfile::tempdir().unwrap();
    let stats = data.path().join("stats.json");
    let out = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .env("WINTERP_DATA_DIR", data.path())
        .args(["--headless", "--deterministic", "--frames", "1", "--stats"])
        .arg(&stats)
        .arg(demo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let tiers = v["tiers"].as_object().expect("--stats has no tiers object");
    let names: Vec<String> = tiers
        .iter()
        .filter(|(_, t)| t["available"] == serde_json::Value::Bool(true))
        .map(|(n, _)| n.clone())
        .collect();
    // The folds the demo is known to exercise must be among them.
    for t in ["lut", "fill"] {
        assert!(
            names.iter().any(|n| n == t),
            "{t} is not available: {names:?}"
        );
    }
    names
}

/// One deterministic demo run of `FRAMES` presents.
struct DemoRun {
    /// (frame, "WxH hash") for each line of `--frame-hashes`.
    hashes: Vec<(u64, String)>,
    stats: serde_json::Value,
    /// The last frame (`--screenshot`).
    last: winterp_hostwin32::display::Frame,
    /// Presents run.
    frames: u64,
}

const FRAMES: u64 = 600;

fn demo_run(flags: &[String]) -> DemoRun {
    demo_run_n(flags, FRAMES)
}

fn demo_run_n(flags: &[String], frames: u64) -> DemoRun {
    let data = tempfile::tempdir().unwrap();
    let (hashes, stats, shot) = (
        data.path().join("hashes.txt"),
        data.path().join("stats.json"),
        data.path().join("last.png"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .env("WINTERP_DATA_DIR", data.path())
        .args(flags)
        .args(["--headless", "--deterministic", "--frames"])
        .arg(frames.to_string())
        .arg("--frame-hashes")
        .arg(&hashes)
        .arg("--stats")
        .arg(&stats)
        .arg("--screenshot")
        .arg(&shot)
        .arg(demo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hashes = std::fs::read_to_string(&hashes)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (n, rest) = l.split_once(' ').expect("frame hash line without a space");
            (n.parse().expect("frame number"), rest.to_string())
        })
        .collect();
    DemoRun {
        hashes,
        stats: serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap(),
        last: winterp_video::png_file::read(&shot).expect("no screenshot"),
        frames,
    }
}

fn switches(tiers: &[String], arm: &str) -> Vec<String> {
    tiers
        .iter()
        .flat_map(|t| ["--tier".to_string(), format!("{t}={arm}")])
        .collect()
}

/// FNV-1a (64-bit) of the frame's RGBA8 bytes, written here from the algorithm's
/// definition so the hashes winterp writes are checked against a screenshot.
fn fnv1a_rgba(f: &winterp_hostwin32::display::Frame) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in f.to_rgba8() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The hash lines are frames 1..=N in order, at the demo's 320x240, and line N
/// is the hash of the screenshot of frame N.
fn check_hash_lines(what: &str, r: &DemoRun) {
    let numbers: Vec<u64> = r.hashes.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        (1..=r.frames).collect::<Vec<_>>(),
        "{what}: frame numbers"
    );
    for (n, h) in &r.hashes {
        assert!(h.starts_with("320x240 "), "{what}: frame {n} is {h}");
    }
    let last = &r.hashes[r.frames as usize - 1].1;
    assert_eq!(
        *last,
        format!("320x240 {:016x}", fnv1a_rgba(&r.last)),
        "{what}: the hash of frame {} is not that of its screenshot",
        r.frames
    );
}

/// Asserts the two runs showed the same frames 1..=600; returns how many distinct
/// frames there were.
fn same_frames(a: (&str, &DemoRun), b: (&str, &DemoRun)) -> usize {
    check_hash_lines(a.0, a.1);
    check_hash_lines(b.0, b.1);
    if let Some(((n, x), (_, y))) = a.1.hashes.iter().zip(&b.1.hashes).find(|(x, y)| x != y) {
        panic!("frame {n} differs: {} {x}, {} {y}", a.0, b.0);
    }
    for k in ["instructions", "blocks"] {
        assert_eq!(a.1.stats[k], b.1.stats[k], "{k}: {} vs {}", a.0, b.0);
        assert!(a.1.stats[k].as_u64().unwrap() > 0, "{k} missing");
    }
    let distinct: std::collections::HashSet<&String> = a.1.hashes.iter().map(|(_, h)| h).collect();
    distinct.len()
}

/// Issue 6: with every tier on versus every tier off, the demo's frames 1-600 in
/// deterministic mode are byte-identical (and so are instructions and blocks).
#[test]
fn demo_frames_1_to_600_identical_all_tiers_on_and_off() {
    let tiers = available_tiers();
    let off = demo_run(&switches(&tiers, "off"));
    let on = demo_run(&switches(&tiers, "on"));
    let distinct = same_frames(("all off", &off), ("all on", &on));
    println!(
        "demo: {FRAMES} frames compared with tiers {tiers:?} on and off, {distinct} distinct; \
         {} instructions, {} blocks in both",
        on.stats["instructions"], on.stats["blocks"]
    );
    // The frames change (the demo animates), so identical hashes are not a still picture.
    assert!(distinct > 1, "all {FRAMES} frames are the same picture");
    for t in &tiers {
        assert_eq!(stat_of(&off, t, "matches"), 0, "{t} matched while off");
        assert_eq!(stat_of(&off, t, "iterations"), 0, "{t} ran while off");
    }
    // Otherwise the comparison says nothing about the folds.
    for t in ["lut", "fill"] {
        assert!(stat_of(&on, t, "iterations") > 0, "demo: {t} never ran");
    }
}

/// Issue 19: the demo's frames 1-1800 (30 s of play) in deterministic mode are
/// byte-identical with the native-code tier `jit` on and off (the other tiers at
/// their defaults), as are instructions and blocks; compiled code ran.
#[test]
fn demo_frames_1_to_1800_identical_jit_on_and_off() {
    let off = demo_run_n(&["--tier".into(), "jit=off".into()], 1800);
    let on = demo_run_n(&["--tier".into(), "jit=on".into()], 1800);
    let distinct = same_frames(("jit off", &off), ("jit on", &on));
    let d = &on.stats["tiers"]["jit"]["detail"];
    println!(
        "demo: 1800 frames compared with jit on and off, {distinct} distinct; {} instructions; \
         jit compiled {}, entries {}, insns {}, compile p50 {} ns p99 {} ns",
        on.stats["instructions"],
        d["compiled"],
        d["entries"],
        d["insns"],
        d["compile_ns_p50"],
        d["compile_ns_p99"]
    );
    assert!(distinct > 1, "all 1800 frames are the same picture");
    assert_eq!(stat_of(&off, "jit", "runs"), 0, "jit ran while off");
    assert!(
        stat_of(&on, "jit", "runs") > 0,
        "demo: compiled code never ran"
    );
}

fn stat_of(r: &DemoRun, tier: &str, field: &str) -> u64 {
    stat(&r.stats, tier, field)
}

/// Issue 6: a deterministic demo run that switches `lut` off at frame 200 and on at
/// frame 400 produces the same frames as an all-on run (every tier on but `jit`),
/// and LUT ran before frame 200 and again after frame 400.
#[test]
fn demo_lut_off_at_200_on_at_400_matches_all_on() {
    // Every tier but `jit`: compiled regions take a fold's loop whose runs are
    // short (the demo's LUT runs about 12 iterations at a time), so with `jit` on
    // LUT would not run again after frame 400 (its switches are checked in
    // `demo_frames_1_to_1800_identical_jit_on_and_off` and tests/guest_programs.rs).
    let tiers: Vec<String> = available_tiers()
        .into_iter()
        .filter(|t| t != "jit")
        .collect();
    let mut all_on = switches(&tiers, "on");
    all_on.extend(["--tier".to_string(), "jit=off".to_string()]);
    let with = |extra: &[&str]| -> Vec<String> {
        let mut v = all_on.clone();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let on = demo_run(&all_on);
    let switched = demo_run(&with(&[
        "--tier-at",
        "200:lut=off",
        "--tier-at",
        "400:lut=on",
    ]));
    // LUT's share of frames 1..=200: off from there on.
    let first = demo_run(&with(&["--tier-at", "200:lut=off"]));
    let distinct = same_frames(("all on", &on), ("lut off 200-400", &switched));
    same_frames(("all on", &on), ("lut off from 200", &first));
    let (all, sw, before) = (
        stat_of(&on, "lut", "iterations"),
        stat_of(&switched, "lut", "iterations"),
        stat_of(&first, "lut", "iterations"),
    );
    println!(
        "demo: {FRAMES} frames compared ({distinct} distinct); lut iterations: all on {all}, \
         off at 200 and on at 400 {sw}, off from 200 {before}"
    );
    assert!(before > 0, "lut did not run before frame 200");
    assert!(sw > before, "lut did not run again after frame 400");
    assert!(sw < all, "lut ran between frames 200 and 400 while off");
    assert_eq!(switched.stats["tiers"]["lut"]["on"], true, "lut ends on");
    assert_eq!(first.stats["tiers"]["lut"]["on"], false, "lut ends off");
}

/// `--frame-hashes` on a program that draws with GDI: its frames are the refresh
/// ticks 1..=N, and frame N's hash is that of the `--screenshot` taken at tick N.
#[test]
fn frame_hashes_of_a_gdi_program_are_its_refresh_ticks() {
    let data = tempfile::tempdir().unwrap();
    let (hashes, shot) = (data.path().join("h.txt"), data.path().join("f.png"));
    let out = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .env("WINTERP_DATA_DIR", data.path())
        .args(["--headless", "--deterministic", "--frames", "30"])
        .arg("--frame-hashes")
        .arg(&hashes)
        .arg("--screenshot")
        .arg(&shot)
        .arg(guest("gdi_draw"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&hashes).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let numbers: Vec<String> = lines
        .iter()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(numbers, (1..=30).map(|n| n.to_string()).collect::<Vec<_>>());
    let f = winterp_video::png_file::read(&shot).expect("no screenshot");
    assert_eq!(
        lines[29],
        format!("30 {}x{} {:016x}", f.width, f.height, fnv1a_rgba(&f))
    );
}
