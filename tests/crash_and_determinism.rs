//! End-to-end checks of the headless runner that are not plain output comparisons:
//! an unhandled access violation ends with a report and a non-zero exit code (while
//! winterp itself exits normally), and deterministic runs retire identical
//! instruction counts.

mod common;

use common::{Run, exe, run_winterp};
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

/// cpuheavy, the slowest guest program, takes under a minute; only a hang reaches
/// this.
const TIMEOUT: Duration = Duration::from_secs(900);

/// Runs winterp with `args` and the data directory `data`, from the package folder.
fn winterp<A: AsRef<OsStr>>(data: &Path, args: &[A]) -> Run {
    run_winterp(args, data, Path::new(env!("CARGO_MANIFEST_DIR")), TIMEOUT)
}

#[test]
fn unhandled_access_violation_reports_and_exits_nonzero() {
    let data = tempfile::tempdir().unwrap();
    let run = winterp(
        data.path(),
        &[OsStr::new("--headless"), exe("crash").as_os_str()],
    );
    let stderr = &run.stderr;
    assert_eq!(run.stdout, "about to write to 00000010\n");
    // Windows ends the process with STATUS_ACCESS_VIOLATION (0xC0000005); a Unix exit
    // status keeps its low byte. A host crash would show up as a signal instead.
    assert_eq!(run.code, Some(0x05), "stderr: {stderr}");
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
        let run = winterp(
            data.path(),
            &[
                OsStr::new("--headless"),
                OsStr::new("--deterministic"),
                OsStr::new("--stats"),
                stats.as_os_str(),
                exe("cpuheavy").as_os_str(),
            ],
        );
        assert!(run.code == Some(0), "{}", run.stderr);
        counts.push(instructions(&stats));
        outputs.push(run.stdout);
    }
    println!("cpuheavy deterministic instruction counts: {counts:?}");
    assert!(
        counts[0] > 1_000_000_000,
        "cpuheavy should be CPU-heavy: {counts:?}"
    );
    assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    assert!(outputs.iter().all(|o| *o == outputs[0]));
}
