//! Runs the guest programs of the game-input and multimedia-timer APIs (sources in
//! `tests/guest/src`, see `tests/guest/README.md`) with the `winterp` binary:
//!
//! - `mmtimer`: winmm timeSetEvent/timeKillEvent with every callback kind,
//!   timeGetTime, timeGetDevCaps, timeBeginPeriod; stdout (CR LF turned into LF)
//!   must equal `expected/mmtimer.stdout` (produced under Wine, each line a check
//!   that does not depend on the machine's speed, but for the `exact:` lines,
//!   which only the deterministic run compares), in the normal and the
//!   deterministic mode.
//! - `dinput_log`: DirectInput keyboard, mouse and joystick devices and
//!   joyGetPosEx under scripted input (`expected/dinput_log.script`: keys, mouse
//!   moves and buttons, pad buttons, axes, hat and unplugging at given refresh
//!   ticks), headless and deterministic; the per-frame log must equal
//!   `expected/dinput_log.stdout` and be the same in two runs.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above any of these programs' run time, so only a hang reaches it.
const TIMEOUT: Duration = Duration::from_secs(300);

fn guest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guest")
}

fn exe(name: &str) -> PathBuf {
    guest_dir().join("bin").join(format!("{name}.exe"))
}

fn expected(file: &str) -> PathBuf {
    guest_dir().join("expected").join(file)
}

struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

/// Runs winterp with `args` and a fresh data directory.
fn winterp(args: &[String]) -> Run {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .args(args)
        .env("WINTERP_DATA_DIR", data.path())
        .env_remove("RUST_LOG")
        .current_dir(guest_dir().join("bin"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the winterp binary");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        out.read_to_end(&mut v).map(|_| v)
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).map(|_| v)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for winterp") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("winterp {args:?} did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_t.join().unwrap().expect("reading stdout");
    let stderr = err_t.join().unwrap().expect("reading stderr");
    Run {
        stdout: String::from_utf8_lossy(&stdout).replace("\r\n", "\n"),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        code: status.code(),
    }
}

fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// The first line where `expected` and `actual` differ, with a little context.
fn first_difference(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let i = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let from = i.saturating_sub(3);
    let show = |v: &[&str]| {
        v[from.min(v.len())..(i + 4).min(v.len())]
            .iter()
            .enumerate()
            .map(|(k, l)| format!("{:>5}| {l}", from + k + 1))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at line {} (expected {} lines, got {})\n--- expected\n{}\n--- winterp\n{}",
        i + 1,
        a.len(),
        b.len(),
        show(&a),
        show(&b)
    )
}

fn s(v: &str) -> String {
    v.to_string()
}

/// Runs `args` and checks stdout against `expected/{want}` and a zero exit status.
fn check_stdout(name: &str, args: &[String], want: &str) -> String {
    let want_text =
        fs::read_to_string(expected(want)).unwrap_or_else(|e| panic!("expected/{want}: {e}"));
    let got = winterp(args);
    assert!(
        got.stdout == want_text && got.code == Some(0),
        "{name}.exe {args:?}: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        if got.stdout == want_text {
            "stdout as expected".to_string()
        } else {
            first_difference(&want_text, &got.stdout)
        },
        tail(&got.stderr, 30)
    );
    got.stdout
}

fn mmtimer(deterministic: bool) {
    let mut args = vec![s("--headless")];
    if deterministic {
        args.push(s("--deterministic"));
        args.push(exe("mmtimer").display().to_string());
        check_stdout("mmtimer", &args, "mmtimer.stdout");
        return;
    }
    // On the host clock a loaded machine may run the timer thread late: the
    // "exact:" lines (counts only a virtual clock pins down) are left out.
    args.push(exe("mmtimer").display().to_string());
    let inexact = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("exact:"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let want = inexact(&fs::read_to_string(expected("mmtimer.stdout")).unwrap());
    let got = winterp(&args);
    let have = inexact(&got.stdout);
    assert!(
        have == want && got.code == Some(0),
        "mmtimer.exe {args:?}: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        first_difference(&want, &have),
        tail(&got.stderr, 30)
    );
}

#[test]
fn mmtimer_normal() {
    mmtimer(false);
}

#[test]
fn mmtimer_deterministic() {
    mmtimer(true);
}

#[test]
fn dinput_log_scripted() {
    let args = vec![
        s("--headless"),
        s("--deterministic"),
        // More ticks than the script needs: the program ends itself (Escape
        // through DirectInput), so there is no screenshot to ask for.
        s("--frames"),
        s("200"),
        s("--input"),
        expected("dinput_log.script").display().to_string(),
        exe("dinput_log").display().to_string(),
    ];
    let first = check_stdout("dinput_log", &args, "dinput_log.stdout");
    let second = winterp(&args);
    assert_eq!(first, second.stdout, "a second deterministic run differs");
}
