//! End-to-end checks of the headless runner that are not plain output comparisons:
//! an unhandled access violation ends with a report and a non-zero exit code (while
//! winterp itself exits normally), and deterministic runs retire identical
//! instruction counts.

use std::path::{Path, PathBuf};
use std::process::Command;

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/guest/bin")
        .join(format!("{name}.exe"))
}

fn winterp(data_dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_winterp"));
    c.env("WINTERP_DATA_DIR", data_dir);
    c
}

#[test]
fn unhandled_access_violation_reports_and_exits_nonzero() {
    let data = tempfile::tempdir().unwrap();
    let out = winterp(data.path())
        .arg("--headless")
        .arg(guest("crash"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout, "about to write to 00000010\n");
    // Windows ends the process with STATUS_ACCESS_VIOLATION (0xC0000005); a Unix exit
    // status keeps its low byte. A host crash would show up as a signal instead.
    assert_eq!(out.status.code(), Some(0x05), "stderr: {stderr}");
    for needle in [
        "0xC0000005",
        "EXCEPTION_ACCESS_VIOLATION",
        "writing address 0x00000010",
        "crash.exe+0x",
        "mov dword ptr [10h]",
    ] {
        assert!(
            stderr.contains(needle),
            "report lacks {needle:?}:\n{stderr}"
        );
    }
}

fn instructions(stats: &Path) -> u64 {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    v["instructions"].as_u64().expect("instructions in --stats")
}

#[test]
fn deterministic_runs_retire_identical_instruction_counts() {
    let data = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    let mut outputs = Vec::new();
    for k in 0..3 {
        let stats = data.path().join(format!("stats{k}.json"));
        let out = winterp(data.path())
            .args(["--headless", "--deterministic", "--stats"])
            .arg(&stats)
            .arg(guest("cpuheavy"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        counts.push(instructions(&stats));
        outputs.push(out.stdout);
    }
    println!("cpuheavy deterministic instruction counts: {counts:?}");
    assert!(
        counts[0] > 1_000_000_000,
        "cpuheavy should be CPU-heavy: {counts:?}"
    );
    assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    assert!(outputs.iter().all(|o| *o == outputs[0]));
}
