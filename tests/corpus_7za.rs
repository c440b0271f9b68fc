//! 7-Zip's 7za.exe (21.07, x86, built with MSVC; from the npm package 7zip-bin via
//! `scripts/fetch-corpus.sh`) under `winterp --headless`:
//!
//! - `a` then `x` of a ≥ 5 MB tree of mixed files (text, random bytes, zeros, an
//!   empty file, nested and empty folders) gives byte-identical files;
//! - `l` and `t` succeed on an archive made by native 7z (Debian p7zip-full);
//! - `b -mmt1` (the single-threaded benchmark) completes.
//!
//! 7-Zip refuses Windows 9x, so these runs report Windows XP (`--winver xp`). The
//! guest sees its folder as `C:\<folder name>` and its writes land in the overlay
//! under `WINTERP_DATA_DIR`, so the extracted tree is read from there, and the
//! test also checks that nothing was written into the program folder.
//!
//! Without the corpus (no `$WINTERP_CORPUS` or `~/.cache/winterp-corpus`) every test
//! prints a notice and passes without running.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above the slowest run (the benchmark), so only a hang reaches it.
const TIMEOUT: Duration = Duration::from_secs(1800);

fn corpus_dir() -> Option<PathBuf> {
    match std::env::var_os("WINTERP_CORPUS") {
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/winterp-corpus")),
    }
}

/// 7za.exe from the corpus, or `None` after printing why the test is skipped.
fn sevenza(test: &str) -> Option<PathBuf> {
    let exe = corpus_dir()?.join("win/ia32/7za.exe");
    if exe.is_file() {
        Some(exe)
    } else if std::env::var_os("WINTERP_REQUIRE_CORPUS").is_some() {
        // CI fetches the corpus first; a missing file there is a failure, not a skip.
        panic!(
            "corpus_7za::{test}: {} is missing and WINTERP_REQUIRE_CORPUS is set",
            exe.display()
        );
    } else {
        println!(
            "corpus_7za::{test}: skipped: {} is missing (run scripts/fetch-corpus.sh)",
            exe.display()
        );
        None
    }
}

/// A scratch folder with 7za.exe in `prog/` and an empty data directory.
struct Setup {
    _tmp: tempfile::TempDir,
    prog: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new(exe: &Path) -> Setup {
        let tmp = tempfile::tempdir().expect("temporary folder");
        let prog = tmp.path().join("prog");
        let data = tmp.path().join("data");
        fs::create_dir_all(&prog).unwrap();
        fs::create_dir_all(&data).unwrap();
        fs::copy(exe, prog.join("7za.exe")).expect("copying 7za.exe");
        Setup {
            _tmp: tmp,
            prog,
            data,
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
        self.run_with(&[], args)
    }

    /// `run` with winterp options `flags` before the program.
    fn run_with(&self, flags: &[&str], args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_winterp"));
        cmd.args(["--headless", "--winver", "xp"])
            .args(flags)
            .arg(self.prog.join("7za.exe"))
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
                panic!("7za {args:?} did not finish within {TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let r = Run {
            args: args.iter().map(|s| s.to_string()).collect(),
            stdout: String::from_utf8_lossy(&out_t.join().unwrap().unwrap()).into_owned(),
            stderr: String::from_utf8_lossy(&err_t.join().unwrap().unwrap()).into_owned(),
            code: status.code(),
            secs: start.elapsed().as_secs_f64(),
        };
        println!("7za {:?}: exit {:?} in {:.1} s", r.args, r.code, r.secs);
        r
    }
}

struct Run {
    args: Vec<String>,
    stdout: String,
    stderr: String,
    code: Option<i32>,
    secs: f64,
}

impl Run {
    /// Exit code 0 and 7-Zip's success line.
    fn assert_ok(&self) {
        assert!(
            self.code == Some(0) && self.stdout.contains("Everything is Ok"),
            "7za {:?} failed (exit {:?})\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.args,
            self.code,
            tail(&self.stdout),
            tail(&self.stderr)
        );
    }
}

fn tail(s: &str) -> String {
    // Progress lines are redrawn with backspaces; show them as lines.
    let s = s.replace('\u{8}', "");
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

/// xorshift64*: reproducible bytes with no structure for the compressor to find.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The test tree under `root/tree`: 2 MiB random, 1 MiB zeros, ~2.2 MB of text,
/// a small and an empty file, nested and empty folders; ≥ 5 MB in all.
fn make_tree(root: &Path) -> u64 {
    let t = root.join("tree");
    for d in ["docs/sub/deeper", "bin", "empty"] {
        fs::create_dir_all(t.join(d)).unwrap();
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let random: Vec<u8> = (0..2 << 20).map(|_| (rng.next() >> 56) as u8).collect();
    fs::write(t.join("bin/random.bin"), &random).unwrap();
    fs::write(t.join("bin/zeros.bin"), vec![0u8; 1 << 20]).unwrap();
    let words = [
        "archive",
        "window",
        "seven",
        "zip",
        "emulator",
        "guest",
        "thread",
        "heap",
        "the",
        "a",
        "of",
        "and",
        "folder",
        "stream",
        "block",
        "dictionary",
    ];
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 2_200_000 {
        line += 1;
        text.push_str(&format!("{line:6}:"));
        for _ in 0..10 {
            text.push(' ');
            text.push_str(words[(rng.next() % words.len() as u64) as usize]);
        }
        text.push_str("\r\n");
    }
    fs::write(t.join("docs/text.txt"), &text).unwrap();
    fs::write(t.join("docs/sub/small.txt"), b"hello from the guest\r\n").unwrap();
    fs::write(t.join("docs/sub/deeper/empty.dat"), b"").unwrap();
    fs::write(t.join("docs/sub/deeper/mixed.dat"), {
        let mut v = vec![0u8; 300_000];
        v.extend(random[..200_000].iter());
        v.extend(text.as_bytes()[..200_000].iter());
        v
    })
    .unwrap();
    total_size(&t)
}

fn total_size(p: &Path) -> u64 {
    snapshot(p)
        .values()
        .map(|e| e.as_ref().map_or(0, |b| b.len() as u64))
        .sum()
}

/// Every file (with its bytes) and folder (`None`) under `root`, by relative path.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if p.is_dir() {
                out.insert(rel, None);
                walk(root, &p, out);
            } else {
                out.insert(rel, Some(fs::read(&p).unwrap()));
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(root, root, &mut m);
    m
}

fn assert_same_tree(expected: &Path, actual: &Path) {
    let a = snapshot(expected);
    let b = snapshot(actual);
    let names_a: Vec<_> = a.keys().collect();
    let names_b: Vec<_> = b.keys().collect();
    assert_eq!(
        names_a, names_b,
        "extracted entries differ from the originals"
    );
    for (k, v) in &a {
        assert!(
            *v == b[k],
            "{} differs after the round trip ({:?} vs {:?} bytes)",
            k.display(),
            v.as_ref().map(Vec::len),
            b[k].as_ref().map(Vec::len)
        );
    }
}

#[test]
fn add_then_extract_gives_identical_files() {
    let Some(exe) = sevenza("add_then_extract_gives_identical_files") else {
        return;
    };
    let s = Setup::new(&exe);
    let size = make_tree(&s.prog);
    assert!(size >= 5_000_000, "test tree is only {size} bytes");
    let before = snapshot(&s.prog);

    s.run(&["a", "-mmt1", "test.7z", "tree"]).assert_ok();
    let overlay = s.overlay_prog();
    assert!(
        overlay.join("test.7z").is_file(),
        "the archive is in the overlay"
    );

    let x = s.run(&["x", "-y", "-oout", "test.7z"]);
    x.assert_ok();
    assert_same_tree(&s.prog.join("tree"), &overlay.join("out/tree"));
    // All writes went to the overlay: the program folder is as it was.
    assert!(
        snapshot(&s.prog) == before,
        "the program folder was modified"
    );
}

/// Issue 19: the same round trip with the native-code tier `jit` on, and compiled
/// code really ran in both 7za runs (`--stats`).
#[test]
fn add_then_extract_with_jit_on_gives_identical_files() {
    let Some(exe) = sevenza("add_then_extract_with_jit_on_gives_identical_files") else {
        return;
    };
    let s = Setup::new(&exe);
    make_tree(&s.prog);
    let stats = s.data.parent().unwrap().join("stats.json");
    let stats_s = stats.to_str().unwrap();
    let jit_runs = || -> (u64, u64) {
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
        let d = &v["tiers"]["jit"]["detail"];
        (
            d["entries"].as_u64().unwrap(),
            d["compiled"].as_u64().unwrap(),
        )
    };
    let flags = ["--tier", "jit=on", "--stats", stats_s];
    s.run_with(&flags, &["a", "-mmt1", "test.7z", "tree"])
        .assert_ok();
    let (entries_a, compiled_a) = jit_runs();
    s.run_with(&flags, &["x", "-y", "-oout", "test.7z"])
        .assert_ok();
    let (entries_x, compiled_x) = jit_runs();
    assert_same_tree(&s.prog.join("tree"), &s.overlay_prog().join("out/tree"));
    println!(
        "7za with jit on: add {compiled_a} compiled, {entries_a} entries; \
         extract {compiled_x} compiled, {entries_x} entries"
    );
    assert!(entries_a > 0 && entries_x > 0, "compiled code never ran");
}

/// Native 7z (p7zip-full), which `scripts/fetch-corpus.sh` installs.
fn native_7z() -> &'static str {
    let ok = Command::new("7z")
        .arg("i")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the corpus is present but native 7z is not: run scripts/fetch-corpus.sh"
    );
    "7z"
}

#[test]
fn list_and_test_an_archive_made_by_native_7z() {
    let Some(exe) = sevenza("list_and_test_an_archive_made_by_native_7z") else {
        return;
    };
    let s = Setup::new(&exe);
    let work = s._tmp.path().join("native");
    fs::create_dir_all(&work).unwrap();
    make_tree(&work);
    let st = Command::new(native_7z())
        .args(["a", "-bd", "-mx=5", "-mmt1"])
        .arg(s.prog.join("native.7z"))
        .arg("tree")
        .current_dir(&work)
        .stdout(Stdio::null())
        .status()
        .expect("running native 7z");
    assert!(st.success(), "native 7z could not make the archive");

    let l = s.run(&["l", "native.7z"]);
    assert_eq!(
        l.code,
        Some(0),
        "7za l failed:\n{}\n{}",
        tail(&l.stdout),
        tail(&l.stderr)
    );
    for name in [
        r"tree\bin\random.bin",
        r"tree\bin\zeros.bin",
        r"tree\docs\text.txt",
        r"tree\docs\sub\deeper\empty.dat",
        r"tree\empty",
    ] {
        assert!(
            l.stdout.contains(name),
            "7za l does not list {name}:\n{}",
            l.stdout
        );
    }
    assert!(l.stdout.contains("6 files, 6 folders"), "{}", l.stdout);

    let t = s.run(&["t", "native.7z"]);
    t.assert_ok();
    assert!(t.stdout.contains("Files: 6"), "{}", tail(&t.stdout));
}

#[test]
fn single_threaded_benchmark_completes() {
    let Some(exe) = sevenza("single_threaded_benchmark_completes") else {
        return;
    };
    let s = Setup::new(&exe);
    let b = s.run(&["b", "-mmt1"]);
    assert_eq!(
        b.code,
        Some(0),
        "7za b -mmt1 failed:\n{}\n{}",
        tail(&b.stdout),
        tail(&b.stderr)
    );
    // The summary lines of a completed run.
    for key in ["Avr:", "Tot:"] {
        assert!(
            b.stdout.contains(key),
            "no {key} line:\n{}",
            tail(&b.stdout)
        );
    }
    println!("{}", tail(&b.stdout));
}
