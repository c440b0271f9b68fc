//! The loop-idiom tiers on real (mingw-compiled) guest programs: with every tier on
//! and every tier off, deterministic runs print the same output and retire the same
//! instructions and blocks, and the folds fire (`--stats` reports matches and
//! iterations) on more than one program.

use std::path::{Path, PathBuf};
use std::process::Command;

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/guest/bin")
        .join(format!("{name}.exe"))
}

/// Runs `program` headless and deterministic with the four folds `on` or off; returns
/// stdout and the parsed `--stats`.
fn run(program: &str, on: bool) -> (Vec<u8>, serde_json::Value) {
    let data = tempfile::tempdir().unwrap();
    let stats = data.path().join("stats.json");
    let arm = if on { "on" } else { "off" };
    let mut c = Command::new(env!("CARGO_BIN_EXE_winterp"));
    c.env("WINTERP_DATA_DIR", data.path());
    for t in ["lut", "copy", "fill", "scan", "mmx_fill"] {
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
    for (program, tiers) in [("cpuheavy", &["copy", "scan"][..]), ("fpu", &["scan"][..])] {
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
        for t in ["lut", "copy", "fill", "scan", "mmx_fill"] {
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
