//! What the test suites that run the `winterp` binary on the guest programs share:
//! where the programs and their expected outputs are, running winterp with its own
//! data directory and a time limit, and showing where an output went wrong.
//!
//! Each suite is its own crate that compiles this module and uses only part of it,
//! so the parts one suite leaves out must not count as dead code there.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above any of the GUI, DirectX and sound programs' run time, so only a hang
/// reaches it.
pub const TIMEOUT: Duration = Duration::from_secs(300);

pub fn guest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guest")
}

/// `tests/guest/bin/NAME.exe`.
pub fn exe(name: &str) -> PathBuf {
    guest_dir().join("bin").join(format!("{name}.exe"))
}

/// `tests/guest/expected/FILE`.
pub fn expected(file: &str) -> PathBuf {
    guest_dir().join("expected").join(file)
}

pub fn s(v: &str) -> String {
    v.to_string()
}

/// What one winterp run printed and how it ended. stdout has CR LF turned into LF
/// (msvcrt's text-mode stdout writes CR LF, the expected files have LF).
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    /// None when winterp was ended by a signal (a host crash).
    pub code: Option<i32>,
}

/// Runs winterp with `args` from `tests/guest/bin`, with a fresh data directory
/// (so an overlay left by an earlier run cannot change the result) and [`TIMEOUT`].
pub fn winterp(args: &[String]) -> Run {
    let data = tempfile::tempdir().expect("creating a data directory");
    run_winterp(args, data.path(), &guest_dir().join("bin"), TIMEOUT)
}

/// Runs winterp with `args` from `cwd` with `WINTERP_DATA_DIR=data`; panics (after
/// killing it) when it has not finished within `timeout`.
pub fn run_winterp<I, A>(args: I, data: &Path, cwd: &Path, timeout: Duration) -> Run
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    run_winterp_env(args, &[], data, cwd, timeout)
}

/// [`run_winterp`] with these environment variables set as well.
pub fn run_winterp_env<I, A>(
    args: I,
    env: &[(&str, &str)],
    data: &Path,
    cwd: &Path,
    timeout: Duration,
) -> Run
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .args(&args)
        .envs(env.iter().copied())
        .env("WINTERP_DATA_DIR", data)
        .env_remove("RUST_LOG")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the winterp binary");
    // Read both pipes on their own threads so a chatty program cannot fill one and
    // stall while we wait.
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
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
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("winterp {args:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_t
        .join()
        .expect("stdout reader")
        .expect("reading stdout");
    let stderr = err_t
        .join()
        .expect("stderr reader")
        .expect("reading stderr");
    Run {
        stdout: String::from_utf8_lossy(&stdout).replace("\r\n", "\n"),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        code: status.code(),
    }
}

/// The last `lines` lines of `s`.
pub fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// The first line where `expected` and `actual` differ, with a little context.
pub fn first_difference(expected: &str, actual: &str) -> String {
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
pub mod xvfb;
