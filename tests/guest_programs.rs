//! Runs every guest program in `tests/guest/bin` under the `winterp` binary and
//! compares it with `tests/guest/expected` (see `tests/guest/README.md`):
//!
//! - stdout, with CR LF turned into LF (msvcrt's text-mode stdout writes CR LF,
//!   the expected files have LF), must equal `expected/NAME.stdout`;
//! - the exit status must equal `expected/NAME.exitcode` (default 0) modulo 256,
//!   since a Unix process passes on only the low 8 bits;
//! - arguments come from `expected/NAME.args`, one per line;
//! - winterp options for the run (before the program) from `expected/NAME.flags`,
//!   one per line.
//!
//! Each program runs twice, normally and with `--deterministic`, each time with
//! a fresh `WINTERP_DATA_DIR`, so an overlay left by an earlier run cannot change
//! the result. `files` also runs from a temporary copy of the program folder,
//! and the folder around it is compared before and after: the only writes
//! allowed are inside the data directory.

mod common;

use common::{Run, guest_dir, run_winterp, tail};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every program in `tests/guest/bin`; `every_program_has_a_test` keeps this in
/// step with the folder.
const PROGRAMS: &[&str] = &[
    "clipbrd",
    "comdplay",
    "coninput",
    "cplrun",
    "cpuheavy",
    "crash",
    "farxfer",
    "files",
    "fpu",
    "framectl",
    "heap",
    "hello",
    "iebrowser",
    "intbench",
    "keymap",
    "loadsys",
    "lzhuff",
    "playsnd",
    "procchild",
    "proclaunch",
    "procparent",
    "seh",
    "shellfolders",
    "sysexports",
    "threads",
    "tierloops",
    "tierloops2",
    "traps",
    "verinfo",
    "x87move",
];

/// The Windows GUI programs in the same folder; tests/gui_programs.rs runs them.
/// Windows GUI programs (their source defines WinMain, which is also how
/// tests/guest/build.sh tells them apart) are tested by the other suites.
fn is_gui_program(name: &str) -> bool {
    // The PE header's Subsystem field (IMAGE_SUBSYSTEM_WINDOWS_GUI = 2), not the
    // source text: a program's WinMain may sit in a shared header (gltest.h).
    let Ok(pe) = fs::read(guest_dir().join(format!("bin/{name}.exe"))) else {
        return false;
    };
    let word = |at: usize| {
        pe.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let Some(nt) = word(0x3c) else { return false };
    pe.get(nt as usize + 0x5c..nt as usize + 0x5e) == Some(&[2, 0][..])
}

/// Far above any program's run time (cpuheavy, the slowest, takes under a
/// minute), so only a hang reaches it.
const TIMEOUT: Duration = Duration::from_secs(900);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Normal,
    Deterministic,
}

fn expected_args(name: &str) -> Vec<String> {
    lines_of(&format!("expected/{name}.args"))
}

fn expected_flags(name: &str) -> Vec<String> {
    lines_of(&format!("expected/{name}.flags"))
}

/// The lines of a file of one item per line (none when it does not exist).
fn lines_of(rel: &str) -> Vec<String> {
    let p = guest_dir().join(rel);
    let Ok(text) = fs::read_to_string(&p) else {
        return Vec::new();
    };
    // One argument per line; the file ends with a newline, so the piece after
    // the last one is not an argument. An empty line is an empty argument.
    let mut args: Vec<String> = text.split('\n').map(str::to_string).collect();
    assert_eq!(
        args.pop().as_deref(),
        Some(""),
        "{} must end with a newline",
        p.display()
    );
    args
}

fn expected_exit_code(name: &str) -> u32 {
    let p = guest_dir().join(format!("expected/{name}.exitcode"));
    match fs::read_to_string(&p) {
        Ok(t) => t
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        Err(_) => 0,
    }
}

/// Runs `exe` under winterp with a fresh data directory `data`.
fn run(exe: &Path, flags: &[String], args: &[String], mode: Mode, data: &Path, cwd: &Path) -> Run {
    let mut all: Vec<OsString> = vec!["--headless".into()];
    if mode == Mode::Deterministic {
        all.push("--deterministic".into());
    }
    all.extend(flags.iter().map(Into::into));
    all.push(exe.into());
    all.extend(args.iter().map(Into::into));
    run_winterp(all, data, cwd, TIMEOUT)
}

/// A line diff (longest common subsequence) of `expected` and `actual`, as
/// `-`/`+` lines with their line numbers, at most `limit` lines.
fn diff(expected: &str, actual: &str, limit: usize) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(format!("+{:>5}| {}", j + 1, b[j]));
            j += 1;
        } else {
            out.push(format!("-{:>5}| {}", i + 1, a[i]));
            i += 1;
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        out.push("(the outputs differ in their final newline)".into());
    }
    let more = out.len().saturating_sub(limit);
    out.truncate(limit);
    if more > 0 {
        out.push(format!("... and {more} more differing lines"));
    }
    out.join("\n")
}

/// Runs `name` from `program_dir` and checks stdout and the exit status.
fn check(name: &str, mode: Mode, program_dir: &Path, data: &Path) {
    let exe = program_dir.join(format!("{name}.exe"));
    let expected = fs::read_to_string(guest_dir().join(format!("expected/{name}.stdout")))
        .unwrap_or_else(|e| panic!("expected/{name}.stdout: {e}"));
    let want_code = (expected_exit_code(name) & 0xff) as i32;
    let got = run(
        &exe,
        &expected_flags(name),
        &expected_args(name),
        mode,
        data,
        program_dir,
    );
    let mut problems = Vec::new();
    if got.stdout != expected {
        problems.push(format!(
            "stdout differs from expected/{name}.stdout (- expected, + winterp):\n{}",
            diff(&expected, &got.stdout, 80)
        ));
    }
    if got.code != Some(want_code) {
        problems.push(format!(
            "exit status {:?}, expected {want_code} (expected/{name}.exitcode & 0xff)",
            got.code
        ));
    }
    assert!(
        problems.is_empty(),
        "{name}.exe ({mode:?}):\n{}\n--- stderr (last 30 lines) ---\n{}",
        problems.join("\n"),
        tail(&got.stderr, 30)
    );
}

/// Runs a program from the committed folder (a file a program writes, as verinfo
/// does, goes to the overlay in the data directory).
fn guest_program(name: &str, mode: Mode) {
    let data = tempfile::tempdir().unwrap();
    check(name, mode, &guest_dir().join("bin"), data.path());
}

// ---- the file-system program ---------------------------------------------------

#[derive(Debug, PartialEq, Eq)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Everything under `dir` except the subtree `skip`, links not followed.
fn snapshot(dir: &Path, skip: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for ent in fs::read_dir(&d).unwrap() {
            let p = ent.unwrap().path();
            if p == skip {
                continue;
            }
            let m = fs::symlink_metadata(&p).unwrap();
            let node = if m.file_type().is_symlink() {
                Node::Link(fs::read_link(&p).unwrap())
            } else if m.is_dir() {
                stack.push(p.clone());
                Node::Dir
            } else {
                Node::File(fs::read(&p).unwrap())
            };
            out.insert(p, node);
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for ent in fs::read_dir(from).unwrap() {
        let ent = ent.unwrap();
        let target = to.join(ent.file_name());
        if ent.file_type().unwrap().is_dir() {
            copy_dir(&ent.path(), &target);
        } else {
            fs::copy(ent.path(), &target).unwrap();
        }
    }
}

/// `files` from a temporary copy of the program folder: besides its output, the
/// folder around the copy (the copy included) must be exactly as before; all
/// writes go to the data directory, which lives beside the copy.
fn files_program(mode: Mode) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let program_dir = root.join("bin");
    copy_dir(&guest_dir().join("bin"), &program_dir);
    let data = root.join("data");
    fs::create_dir(&data).unwrap();
    // Places the program tries to reach outside its drive; none may appear.
    let escapes = [
        PathBuf::from("/usr/share/winterp_escape.txt"),
        PathBuf::from("/escape.txt"),
        root.join("escape.txt"),
    ];
    let existed: Vec<bool> = escapes.iter().map(|p| p.exists()).collect();
    let before = snapshot(&root, &data);

    check("files", mode, &program_dir, &data);

    let after = snapshot(&root, &data);
    if before != after {
        let changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .map(|k| k.display().to_string())
            .collect();
        panic!("files.exe ({mode:?}) changed the host outside its data directory: {changed:?}");
    }
    for (p, had) in escapes.iter().zip(existed) {
        assert!(
            had || !p.exists(),
            "files.exe ({mode:?}) created {}",
            p.display()
        );
    }
    // The writes did happen, in the overlay: the per-program folder exists there.
    assert!(
        data.join("programs").is_dir(),
        "no overlay was made in the data directory"
    );
}

// ---- one test per program and mode -----------------------------------------------

#[test]
fn every_program_has_a_test() {
    let mut found: Vec<String> = fs::read_dir(guest_dir().join("bin"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            name.strip_suffix(".exe").map(str::to_string)
        })
        .filter(|name| !is_gui_program(name))
        .collect();
    found.sort();
    assert_eq!(found, PROGRAMS, "tests/guest/bin and PROGRAMS disagree");
    for name in PROGRAMS {
        assert!(
            guest_dir()
                .join(format!("expected/{name}.stdout"))
                .is_file(),
            "{name} has no expected output"
        );
    }
}

#[test]
fn diff_shows_changed_lines() {
    let d = diff("a\nb\nc\n", "a\nB\nc\nd\n", 10);
    assert_eq!(d, "+    2| B\n-    2| b\n+    4| d");
    assert_eq!(
        diff("x\n", "x", 10),
        "(the outputs differ in their final newline)"
    );
}

#[test]
fn hello_normal() {
    guest_program("hello", Mode::Normal);
}

#[test]
fn hello_deterministic() {
    guest_program("hello", Mode::Deterministic);
}

#[test]
fn files_normal() {
    files_program(Mode::Normal);
}

#[test]
fn files_deterministic() {
    files_program(Mode::Deterministic);
}

#[test]
fn clipbrd_normal() {
    guest_program("clipbrd", Mode::Normal);
}

#[test]
fn clipbrd_deterministic() {
    guest_program("clipbrd", Mode::Deterministic);
}

#[test]
fn heap_normal() {
    guest_program("heap", Mode::Normal);
}

#[test]
fn heap_deterministic() {
    guest_program("heap", Mode::Deterministic);
}

#[test]
fn sysexports_normal() {
    guest_program("sysexports", Mode::Normal);
}

#[test]
fn sysexports_deterministic() {
    guest_program("sysexports", Mode::Deterministic);
}

/// Without `--stub-unimplemented` the first unimplemented call stops the program
/// with a report naming the function and its arguments.
#[test]
fn sysexports_without_stubs_reports_the_function() {
    let data = tempfile::tempdir().unwrap();
    let bin = guest_dir().join("bin");
    let got = run(
        &bin.join("sysexports.exe"),
        &[],
        &[],
        Mode::Deterministic,
        data.path(),
        &bin,
    );
    assert_ne!(got.code, Some(0), "the program must stop");
    assert!(
        got.stderr.contains(
            "KERNEL32.dll!BackupRead(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0) is not implemented"
        ),
        "no report naming BackupRead with its 7 arguments:\n{}",
        tail(&got.stderr, 30)
    );
}

#[test]
fn coninput_normal() {
    guest_program("coninput", Mode::Normal);
}

#[test]
fn coninput_deterministic() {
    guest_program("coninput", Mode::Deterministic);
}

#[test]
fn threads_normal() {
    guest_program("threads", Mode::Normal);
}

#[test]
fn threads_deterministic() {
    guest_program("threads", Mode::Deterministic);
}

#[test]
fn tierloops_normal() {
    guest_program("tierloops", Mode::Normal);
}

#[test]
fn tierloops_deterministic() {
    guest_program("tierloops", Mode::Deterministic);
}

#[test]
fn tierloops2_normal() {
    guest_program("tierloops2", Mode::Normal);
}

#[test]
fn tierloops2_deterministic() {
    guest_program("tierloops2", Mode::Deterministic);
}

#[test]
fn traps_normal() {
    guest_program("traps", Mode::Normal);
}

#[test]
fn traps_deterministic() {
    guest_program("traps", Mode::Deterministic);
}

#[test]
fn farxfer_normal() {
    guest_program("farxfer", Mode::Normal);
}

#[test]
fn farxfer_deterministic() {
    guest_program("farxfer", Mode::Deterministic);
}

#[test]
fn seh_normal() {
    guest_program("seh", Mode::Normal);
}

#[test]
fn seh_deterministic() {
    guest_program("seh", Mode::Deterministic);
}

#[test]
fn loadsys_normal() {
    guest_program("loadsys", Mode::Normal);
}

#[test]
fn loadsys_deterministic() {
    guest_program("loadsys", Mode::Deterministic);
}

#[test]
fn cplrun_normal() {
    guest_program("cplrun", Mode::Normal);
}

#[test]
fn cplrun_deterministic() {
    guest_program("cplrun", Mode::Deterministic);
}

#[test]
fn iebrowser_normal() {
    guest_program("iebrowser", Mode::Normal);
}

#[test]
fn iebrowser_deterministic() {
    guest_program("iebrowser", Mode::Deterministic);
}

#[test]
fn shellfolders_normal() {
    guest_program("shellfolders", Mode::Normal);
}

#[test]
fn shellfolders_deterministic() {
    guest_program("shellfolders", Mode::Deterministic);
}

#[test]
fn fpu_normal() {
    guest_program("fpu", Mode::Normal);
}

#[test]
fn fpu_deterministic() {
    guest_program("fpu", Mode::Deterministic);
}

#[test]
fn crash_normal() {
    guest_program("crash", Mode::Normal);
}

#[test]
fn crash_deterministic() {
    guest_program("crash", Mode::Deterministic);
}

#[test]
fn comdplay_normal() {
    guest_program("comdplay", Mode::Normal);
}

#[test]
fn comdplay_deterministic() {
    guest_program("comdplay", Mode::Deterministic);
}

#[test]
fn cpuheavy_normal() {
    guest_program("cpuheavy", Mode::Normal);
}

#[test]
fn cpuheavy_deterministic() {
    guest_program("cpuheavy", Mode::Deterministic);
}

#[test]
fn lzhuff_normal() {
    guest_program("lzhuff", Mode::Normal);
}

#[test]
fn lzhuff_deterministic() {
    guest_program("lzhuff", Mode::Deterministic);
}

#[test]
fn intbench_normal() {
    guest_program("intbench", Mode::Normal);
}

#[test]
fn intbench_deterministic() {
    guest_program("intbench", Mode::Deterministic);
}

#[test]
fn framectl_normal() {
    guest_program("framectl", Mode::Normal);
}

#[test]
fn framectl_deterministic() {
    guest_program("framectl", Mode::Deterministic);
}

#[test]
fn keymap_normal() {
    guest_program("keymap", Mode::Normal);
}

#[test]
fn keymap_deterministic() {
    guest_program("keymap", Mode::Deterministic);
}

#[test]
fn playsnd_normal() {
    guest_program("playsnd", Mode::Normal);
}

#[test]
fn playsnd_deterministic() {
    guest_program("playsnd", Mode::Deterministic);
}

#[test]
fn procchild_normal() {
    guest_program("procchild", Mode::Normal);
}

#[test]
fn procchild_deterministic() {
    guest_program("procchild", Mode::Deterministic);
}

/// CreateProcess: the child is a second winterp process in the same sandbox and
/// mode, its output between the parent's lines.
/// A GUI child (procwin) waited for with WaitForInputIdle, then ended.
#[test]
fn proclaunch_normal() {
    guest_program("proclaunch", Mode::Normal);
}

#[test]
fn proclaunch_deterministic() {
    guest_program("proclaunch", Mode::Deterministic);
}

#[test]
fn procparent_normal() {
    guest_program("procparent", Mode::Normal);
}

#[test]
fn procparent_deterministic() {
    guest_program("procparent", Mode::Deterministic);
}

#[test]
fn verinfo_normal() {
    guest_program("verinfo", Mode::Normal);
}

#[test]
fn verinfo_deterministic() {
    guest_program("verinfo", Mode::Deterministic);
}

#[test]
fn x87move_normal() {
    guest_program("x87move", Mode::Normal);
}

#[test]
fn x87move_deterministic() {
    guest_program("x87move", Mode::Deterministic);
}
