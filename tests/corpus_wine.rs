//! Wine's console programs (Debian's libwine:i386 PE builds, fetched into the corpus
//! by `scripts/fetch-corpus.sh`) under `winterp --headless`. They are UCRT programs
//! (ucrtbase.dll, `__stdio_common_*`, `_configure_wide_argv`), so they exercise the
//! ucrtbase, ntdll and shlwapi modules and KERNEL32's file, console, locale and
//! message functions end to end. Expected output follows each command's documented
//! behaviour (FIND is case-sensitive and exits 1 when nothing matched, TYPE copies
//! the file, XCOPY reports the number of files copied, ...) and the files the test
//! creates itself.
//!
//! Each program is copied into a scratch `prog` folder with its input files; the
//! guest sees it as `C:\prog` and its writes land in the overlay under
//! `WINTERP_DATA_DIR`.
//!
//! Without the corpus (no `$WINTERP_CORPUS` or `~/.cache/winterp-corpus`) every test
//! prints a notice and passes without running.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above any of these runs (each takes well under a second).
const TIMEOUT: Duration = Duration::from_secs(300);

fn corpus_dir() -> Option<PathBuf> {
    match std::env::var_os("WINTERP_CORPUS") {
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/winterp-corpus")),
    }
}

/// `wine/<name>` from the corpus, or `None` after printing why the test is skipped.
fn program(test: &str, name: &str) -> Option<PathBuf> {
    let exe = corpus_dir()?.join("wine").join(name);
    if exe.is_file() {
        Some(exe)
    } else if std::env::var_os("WINTERP_REQUIRE_CORPUS").is_some() {
        panic!(
            "corpus_wine::{test}: {} is missing and WINTERP_REQUIRE_CORPUS is set",
            exe.display()
        );
    } else {
        println!(
            "corpus_wine::{test}: skipped: {} is missing (run scripts/fetch-corpus.sh)",
            exe.display()
        );
        None
    }
}

/// The input file most tests use: CRLF lines, one match for "needle" in its
/// case, one in another case.
const TEXT: &str = "alpha line\r\nbeta needle here\r\ngamma\r\nNEEDLE upper\r\n";

/// A scratch folder with the program in `prog/`, `t.txt` beside it, and an empty
/// data directory.
struct Setup {
    _tmp: tempfile::TempDir,
    prog: PathBuf,
    data: PathBuf,
    exe: String,
}

impl Setup {
    fn new(exe: &Path) -> Setup {
        let tmp = tempfile::tempdir().expect("temporary folder");
        let prog = tmp.path().join("prog");
        let data = tmp.path().join("data");
        fs::create_dir_all(&prog).unwrap();
        fs::create_dir_all(&data).unwrap();
        let name = exe.file_name().unwrap().to_string_lossy().into_owned();
        fs::copy(exe, prog.join(&name)).expect("copying the program");
        fs::write(prog.join("t.txt"), TEXT).unwrap();
        Setup {
            _tmp: tmp,
            prog,
            data,
            exe: name,
        }
    }

    /// The host folder where the guest's writes to its own folder land.
    fn overlay_prog(&self) -> PathBuf {
        let programs = self.data.join("programs");
        let mut dirs: Vec<PathBuf> = fs::read_dir(&programs)
            .unwrap_or_else(|e| panic!("{}: {e}", programs.display()))
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(
            dirs.len(),
            1,
            "one overlay expected in {}",
            programs.display()
        );
        dirs.pop().unwrap().join("drive_c").join("prog")
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_winterp"));
        cmd.arg("--headless")
            .arg(self.prog.join(&self.exe))
            .args(args)
            .env("WINTERP_DATA_DIR", &self.data)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("cannot start the winterp binary");
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
                panic!("{} {args:?} did not finish within {TIMEOUT:?}", self.exe);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Run {
            what: format!("{} {args:?}", self.exe),
            stdout: String::from_utf8_lossy(&out_t.join().unwrap().unwrap()).into_owned(),
            stderr: String::from_utf8_lossy(&err_t.join().unwrap().unwrap()).into_owned(),
            code: status.code(),
        }
    }
}

struct Run {
    what: String,
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

impl Run {
    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "{}: exit {:?}, expected {code}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.what,
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }

    fn lines(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .collect()
    }
}

#[test]
fn hostname_prints_one_host_name_line() {
    let Some(exe) = program("hostname_prints_one_host_name_line", "hostname.exe") else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&[]);
    r.expect_code(0);
    let lines = r.lines();
    assert_eq!(lines.len(), 1, "{:?}", r.stdout);
    // A NetBIOS computer name: 1-15 letters, digits and hyphens.
    let name = lines[0];
    assert!(
        (1..=15).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
        "not a host name: {name:?}"
    );
}

#[test]
fn cmd_echo_prints_its_text() {
    let Some(exe) = program("cmd_echo_prints_its_text", "cmd.exe") else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["/c", "echo", "hello"]);
    r.expect_code(0);
    assert_eq!(r.lines(), ["hello"]);
}

#[test]
fn cmd_type_copies_the_file_to_standard_output() {
    let Some(exe) = program("cmd_type_copies_the_file_to_standard_output", "cmd.exe") else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["/c", "type", "t.txt"]);
    r.expect_code(0);
    assert_eq!(r.stdout, TEXT);
}

#[test]
fn cmd_dir_lists_the_folder_with_sizes() {
    let Some(exe) = program("cmd_dir_lists_the_folder_with_sizes", "cmd.exe") else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["/c", "dir"]);
    r.expect_code(0);
    let lines = r.lines();
    assert!(
        lines.iter().any(|l| l.trim() == r"Directory of C:\prog"),
        "{}",
        r.stdout
    );
    let size = TEXT.len().to_string();
    let entry = lines
        .iter()
        .find(|l| l.ends_with(" t.txt"))
        .unwrap_or_else(|| panic!("no t.txt entry:\n{}", r.stdout));
    assert!(
        entry.split_whitespace().any(|w| w == size),
        "t.txt entry without its size {size}: {entry:?}"
    );
    // Two files (cmd.exe and t.txt) and the "." and ".." entries.
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("2 file")),
        "{}",
        r.stdout
    );
}

#[test]
fn find_prints_the_matching_lines_case_sensitively() {
    let Some(exe) = program(
        "find_prints_the_matching_lines_case_sensitively",
        "find.exe",
    ) else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["needle", "t.txt"]);
    r.expect_code(0);
    let lines: Vec<&str> = r.lines().into_iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines, ["---------- T.TXT", "beta needle here"]);
    // Nothing matches: the header only, exit code 1.
    let r = s.run(&["zebra", "t.txt"]);
    r.expect_code(1);
    let lines: Vec<&str> = r.lines().into_iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines, ["---------- T.TXT"]);
}

#[test]
fn attrib_shows_the_archive_attribute_and_full_path() {
    let Some(exe) = program(
        "attrib_shows_the_archive_attribute_and_full_path",
        "attrib.exe",
    ) else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["t.txt"]);
    r.expect_code(0);
    let lines = r.lines();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    // A file created by a write has only FILE_ATTRIBUTE_ARCHIVE set.
    let line = lines[0];
    assert!(line.starts_with('A'), "{line:?}");
    assert!(line.ends_with(r"C:\prog\t.txt"), "{line:?}");
    let flags = &line[..line.len() - r"C:\prog\t.txt".len()];
    assert_eq!(flags.trim(), "A", "{line:?}");
}

#[test]
fn xcopy_copies_a_file_into_a_new_folder() {
    let Some(exe) = program("xcopy_copies_a_file_into_a_new_folder", "xcopy.exe") else {
        return;
    };
    let s = Setup::new(&exe);
    let r = s.run(&["t.txt", "copied\\"]);
    r.expect_code(0);
    assert!(
        r.lines().iter().any(|l| l.trim() == "1 file(s) copied"),
        "{}",
        r.stdout
    );
    let copy = s.overlay_prog().join("copied").join("t.txt");
    assert_eq!(fs::read_to_string(&copy).unwrap(), TEXT);
    // The program folder itself is untouched.
    assert!(!s.prog.join("copied").exists());
}
