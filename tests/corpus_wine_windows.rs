//! Every program of Debian's libwine:i386 that shows a window under Wine itself
//! (`scripts/wine-main-windows.txt`, written by `scripts/wine-main-windows.sh` from
//! real Wine runs under Xvfb) must show one under winterp's headless `check` run:
//! a visible top-level window with one of the titles Wine shows (an error box of
//! another title does not count). A program whose window comes from a process it
//! starts (write starts wordpad) counts when that child showed a window; children
//! report that they did, not their titles.
//!
//! The programs that do not yet are listed in [`KNOWN_GAPS`] with what stops them.
//! The test fails both ways: a program outside the list that shows no window is a
//! regression, and a listed program that now shows one must leave the list, so the
//! list (and the count printed in the closing notes) stays true.
//!
//! Skips with a notice when the corpus is missing, unless `WINTERP_REQUIRE_CORPUS` is
//! set (CI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Programs that show a window under Wine but not yet under winterp, and why.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// Where Wine's title carries something Windows does not have, the title winterp
/// shows instead, and why: (program, Wine's title, winterp's title, reason).
const TITLE_DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    (
        "winver",
        "About Wine 8.0",
        "About Wine ",
        "winver asks ntdll for wine_get_version, Wine's own export; Windows has none",
    ),
    (
        "winefile",
        "Wine File Manager - [Z:\\]",
        "Wine File Manager - [C:\\prog-winefile]",
        "the title names the current folder: under Wine the host's root (Z:\\), under winterp the program's folder on the sandbox's drive C:",
    ),
    (
        "control",
        "Wine Control Panel",
        "Control Panel",
        "Wine brands its Control Panel window; Windows calls it Control Panel",
    ),
    (
        "wineconsole",
        "C:\\windows\\system32\\cmd.exe",
        "C:\\WINDOWS\\SYSTEM\\cmd.exe",
        "the window is the console of the cmd.exe wineconsole starts (a child, which \
         counts by its window), titled by cmd with its own path (GetStartupInfo's \
         lpTitle); the emulated Windows 98 keeps it in C:\\WINDOWS\\SYSTEM, Wine's \
         Windows in C:\\windows\\system32",
    ),
    (
        "iexplore",
        "Wine Internet Explorer",
        "about:blank - Microsoft Internet Explorer",
        "Wine brands its browser's frame; Internet Explorer 6 titles it with the page's \
         title (about:blank, the start page, has none: its address) and the application's name",
    ),
];

/// Files a program expects where a Windows (and Wine) installation has them:
/// (program, [(file from the corpus, its folder on drive C)]). `SYSTEM` is the
/// sandbox's system folder, whatever the emulated version calls it; write starts
/// wordpad from `Program Files\Windows NT\Accessories`, where Windows NT and Wine
/// install it. wineconsole starts `cmd`; the console window is the system's, as
/// Windows' console server draws it (Wine's conhost.exe speaks Wine's own server
/// protocol, so it is not one of them).
const SYSTEM_FILES: &[(&str, &[(&str, &str)])] = &[
    (
        "write",
        &[("wordpad.exe", r"Program Files\Windows NT\Accessories")],
    ),
    ("wineconsole", &[("cmd.exe", "SYSTEM")]),
    ("uninstaller", &[("appwiz.cpl", "SYSTEM")]),
];

fn corpus_dir() -> Option<PathBuf> {
    match std::env::var_os("WINTERP_CORPUS") {
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/winterp-corpus")),
    }
}

/// (program, window titles) of every program that shows a window under Wine.
fn oracle() -> Vec<(String, Vec<String>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wine-main-windows.txt");
    let text = std::fs::read_to_string(&path).expect("scripts/wine-main-windows.txt");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            out.push((name.trim().to_string(), Vec::new()));
        } else if let Some(w) = line.strip_prefix("win ")
            && let Some(last) = out.last_mut()
        {
            last.1
                .push(w.split(" | ").next().unwrap_or(w).trim().to_string());
        }
    }
    out.retain(|(_, w)| !w.is_empty());
    out
}

/// What one `winterp check` run showed.
struct Shown {
    /// Titles of the visible top-level windows, in the order first seen.
    titles: Vec<String>,
    /// Names of the child processes that showed a window.
    children: Vec<String>,
    /// The run's end, for the report.
    summary: String,
}

/// Runs `winterp check` on a copy of the program for 120 ticks, with its
/// [`SYSTEM_FILES`] in their folders of its sandbox (a first run makes the sandbox).
fn run_check(dir: &Path, src: &Path, name: &str) -> Shown {
    let prog = dir.join(format!("prog-{name}"));
    std::fs::create_dir_all(&prog).unwrap();
    let exe = prog.join(src.file_name().unwrap());
    std::fs::copy(src, &exe).unwrap();
    if let Some((_, files)) = SYSTEM_FILES.iter().find(|(n, _)| *n == name) {
        check_once(dir, &exe, name);
        let drive = sandbox_drive(&dir.join(format!("data-{name}")));
        for (f, folder) in *files {
            let to = if *folder == "SYSTEM" {
                sandbox_system_dir(&drive)
            } else {
                folder_in(&drive, folder)
            };
            std::fs::copy(src.with_file_name(f), to.join(f))
                .unwrap_or_else(|e| panic!("{name}: cannot put {f} in {}: {e}", to.display()));
        }
    }
    check_once(dir, &exe, name)
}

/// Drive C of the one program sandbox under data directory `data` (its overlay).
fn sandbox_drive(data: &Path) -> PathBuf {
    let programs: Vec<PathBuf> = std::fs::read_dir(data.join("programs"))
        .expect("the first run made no program sandbox")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(programs.len(), 1, "sandboxes: {programs:?}");
    programs[0].join("drive_c")
}

/// The system folder of a sandbox's drive C.
fn sandbox_system_dir(drive: &Path) -> PathBuf {
    let windows = drive.join("WINDOWS");
    std::fs::read_dir(&windows)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.eq_ignore_ascii_case("system"))
        })
        .unwrap_or_else(|| panic!("no system folder in {}", windows.display()))
}

/// Folder `path` (backslashes, from the drive's root) of a sandbox's drive C,
/// made where missing; an existing component is found in any case, as the
/// guest's file system would.
fn folder_in(drive: &Path, path: &str) -> PathBuf {
    let mut at = drive.to_path_buf();
    for comp in path.split('\\') {
        let found = std::fs::read_dir(&at).ok().and_then(|rd| {
            rd.map(|e| e.unwrap().path())
                .find(|p| p.is_dir() && p.file_name().is_some_and(|n| n.eq_ignore_ascii_case(comp)))
        });
        at = found.unwrap_or_else(|| at.join(comp));
        std::fs::create_dir_all(&at).unwrap();
    }
    at
}

fn check_once(dir: &Path, exe: &Path, name: &str) -> Shown {
    let json = dir.join(format!("{name}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_winterp"))
        .args(["check", "--frames", "120", "--json"])
        .arg(&json)
        .arg("--screenshot")
        .arg(dir.join(format!("{name}.png")))
        .arg(exe)
        .env("WINTERP_DATA_DIR", dir.join(format!("data-{name}")))
        .env_remove("RUST_LOG")
        .output()
        .expect("cannot start winterp");
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("end:"))
        .unwrap_or("")
        .trim()
        .to_string();
    let v: serde_json::Value = match std::fs::read_to_string(&json) {
        Ok(s) => serde_json::from_str(&s).expect("check --json wrote invalid JSON"),
        Err(e) => panic!(
            "winterp check {name} wrote no JSON ({e}); exit {:?}\n{text}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ),
    };
    let strings = |x: &serde_json::Value| -> Vec<String> {
        x.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let children = v["run"]["children"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|c| c["first_window_tick"].as_u64().is_some())
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Shown {
        titles: strings(&v["run"]["window_titles"]),
        children,
        summary,
    }
}

#[test]
fn wine_programs_with_a_window_show_it() {
    let Some(corpus) = corpus_dir().map(|c| c.join("wine")) else {
        return;
    };
    let programs = oracle();
    assert!(
        programs.len() >= 20,
        "the oracle lists {} programs",
        programs.len()
    );
    let missing: Vec<String> = programs
        .iter()
        .map(|(n, _)| format!("{n}.exe"))
        .chain(
            SYSTEM_FILES
                .iter()
                .flat_map(|(_, f)| f.iter().map(|(f, _)| f.to_string())),
        )
        .filter(|f| !corpus.join(f).is_file())
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("WINTERP_REQUIRE_CORPUS").is_none(),
            "{missing:?} missing from {} and WINTERP_REQUIRE_CORPUS is set",
            corpus.display()
        );
        println!(
            "wine_programs_with_a_window_show_it: skipped: {missing:?} missing (run scripts/fetch-corpus.sh)"
        );
        return;
    }
    for (gap, _) in KNOWN_GAPS {
        assert!(
            programs.iter().any(|(n, _)| n == gap),
            "KNOWN_GAPS names {gap}, which shows no window under Wine"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    // Two runs at a time: the machine's cores, and each run is single-threaded.
    let results: Vec<(String, Shown)> = std::thread::scope(|s| {
        let chunks: Vec<Vec<&(String, Vec<String>)>> = (0..2)
            .map(|k| programs.iter().skip(k).step_by(2).collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (dir, corpus) = (dir.path(), &corpus);
                s.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(n, _)| {
                            (
                                n.clone(),
                                run_check(dir, &corpus.join(format!("{n}.exe")), n),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut failures = Vec::new();
    let mut shown = 0;
    for (name, got) in &results {
        let titles = &programs.iter().find(|(n, _)| n == name).unwrap().1;
        let gap = KNOWN_GAPS.iter().find(|(n, _)| n == name);
        let same = |w: &str, t: &str| {
            w.trim() == t.trim()
                || TITLE_DIFFERENCES
                    .iter()
                    .any(|d| d.0 == name && d.1 == w && d.2 == t)
        };
        let own = got
            .titles
            .iter()
            .find(|t| titles.iter().any(|w| same(w, t)));
        let ok = own.is_some() || !got.children.is_empty();
        if ok {
            shown += 1;
            match own {
                Some(t) => println!("  {name:<12} shows \"{t}\""),
                None => println!(
                    "  {name:<12} its child {} shows a window",
                    got.children.join(", ")
                ),
            }
        } else {
            println!(
                "  {name:<12} no window titled {titles:?} (shown: {:?}; {}) {}",
                got.titles,
                gap.map_or("NOT A KNOWN GAP", |g| g.1),
                got.summary
            );
        }
        match (ok, gap.is_some()) {
            (false, false) => failures.push(format!(
                "{name} shows no window titled {titles:?} (shown: {:?}): {}",
                got.titles, got.summary
            )),
            (true, true) => failures.push(format!(
                "{name} now shows its window: remove it from KNOWN_GAPS"
            )),
            _ => {}
        }
    }
    println!(
        "Wine programs with a window under Wine: {}; showing one under winterp: {shown}",
        programs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
