//! `winterp check`: the inspection names what a program imports that winterp does
//! not implement before it runs anything, and the exit code is 0 only when the
//! trial run reached its frames.

mod common;

use common::{exe, run_winterp, s, tail};
use std::path::Path;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(600);

fn check(args: &[String], cwd: &Path) -> common::Run {
    let data = tempfile::tempdir().unwrap();
    let mut all = vec![s("check")];
    all.extend_from_slice(args);
    run_winterp(all, data.path(), cwd, TIMEOUT)
}

#[test]
fn the_demo_reaches_its_frames_and_writes_the_last_one() {
    let out = tempfile::tempdir().unwrap();
    let png = out.path().join("last.png");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/demo.exe");
    let r = check(
        &[
            s("--frames"),
            s("60"),
            s("--screenshot"),
            png.display().to_string(),
            demo.display().to_string(),
        ],
        out.path(),
    );
    assert_eq!(
        r.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        tail(&r.stderr, 20)
    );
    assert!(r.stdout.contains("runtime: MinGW (GCC)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("0 unimplemented, 0 missing"),
        "{}",
        r.stdout
    );
    // The demo presents every refresh from its first window on (tick 4).
    let presented: u64 = r
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("frames presented:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a frames presented line");
    assert!((50..=60).contains(&presented), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("end:                   reached 60 frames"),
        "{}",
        r.stdout
    );
    let bytes = std::fs::read(&png).expect("the last frame was written");
    assert_eq!(&bytes[1..4], b"PNG");
}

#[test]
fn an_unimplemented_import_is_named_before_the_run_and_the_exit_code_says_so() {
    let out = tempfile::tempdir().unwrap();
    let r = check(
        &[
            s("--frames"),
            s("30"),
            exe("sysexports").display().to_string(),
        ],
        out.path(),
    );
    assert_eq!(r.code, Some(1), "stdout:\n{}", r.stdout);
    let named = r
        .stdout
        .find("unimplemented KERNEL32.dll!BackupRead")
        .expect("the inspection names BackupRead");
    let run = r.stdout.find("run: 30 frames").expect("then the run");
    assert!(named < run, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "first unimplemented:   KERNEL32.dll!BackupRead(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("first window:          never"),
        "{}",
        r.stdout
    );
}

#[test]
fn no_run_only_inspects() {
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("c.json");
    let r = check(
        &[
            s("--no-run"),
            s("--json"),
            json.display().to_string(),
            exe("hello").display().to_string(),
        ],
        out.path(),
    );
    assert_eq!(r.code, Some(0), "{}", r.stdout);
    assert!(!r.stdout.contains("run:"), "{}", r.stdout);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(v["imports"].as_array().is_some_and(|a| !a.is_empty()));
}
