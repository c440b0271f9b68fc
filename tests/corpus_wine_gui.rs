//! Wine's GUI programs (from `scripts/fetch-corpus.sh`: Debian's libwine:i386 builds,
//! which nobody on the team wrote) under the headless frame runner:
//!
//! - winemine.exe shows its board, and a scripted left click on a cell changes the
//!   frame (compared with the same run, to the same tick, without the click).
//! - notepad.exe opens, and typed keys appear in its edit area (the frame after
//!   typing has more text-coloured pixels in the edit area than the one without).
//!
//! Both runs of a pair are deterministic and identical up to the scripted input, so
//! any difference between them is the program's reaction to it.
//!
//! Skips with a notice when the corpus is missing, unless `WINTERP_REQUIRE_CORPUS` is
//! set (CI), where a missing corpus fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use winterp_hostwin32::display::Frame;

fn corpus_dir() -> Option<PathBuf> {
    match std::env::var_os("WINTERP_CORPUS") {
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/winterp-corpus")),
    }
}

/// A copy of `wine/NAME.exe` in its own folder, or `None` after printing why the
/// test is skipped.
fn program(test: &str, name: &str, dir: &Path) -> Option<PathBuf> {
    let src = corpus_dir()?.join("wine").join(format!("{name}.exe"));
    if !src.is_file() {
        if std::env::var_os("WINTERP_REQUIRE_CORPUS").is_some() {
            panic!(
                "{test}: {} is missing and WINTERP_REQUIRE_CORPUS is set",
                src.display()
            );
        }
        println!(
            "{test}: skipped: {} is missing (run scripts/fetch-corpus.sh)",
            src.display()
        );
        return None;
    }
    let prog = dir.join("prog");
    std::fs::create_dir_all(&prog).unwrap();
    let exe = prog.join(format!("{name}.exe"));
    std::fs::copy(&src, &exe).unwrap();
    Some(exe)
}

/// Runs `exe` deterministically for `frames` ticks with `script` (if any) and returns
/// the last frame. Each run gets a fresh data directory, so no saved state leaks
/// from one run into the next.
fn frame_after(dir: &Path, exe: &Path, frames: u64, script: Option<&str>, tag: &str) -> Frame {
    let data = dir.join(format!("data-{tag}"));
    let shot = dir.join(format!("{tag}.png"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_winterp"));
    cmd.args(["--headless", "--deterministic", "--frames"])
        .arg(frames.to_string())
        .arg("--screenshot")
        .arg(&shot)
        .env("WINTERP_DATA_DIR", &data)
        .env_remove("RUST_LOG");
    if let Some(s) = script {
        let path = dir.join(format!("{tag}.script"));
        std::fs::write(&path, s).unwrap();
        cmd.arg("--input").arg(path);
    }
    let out = cmd.arg(exe).output().expect("cannot start winterp");
    assert!(
        out.status.success(),
        "winterp on {} ({tag}) failed with {:?}:\n{}",
        exe.display(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    winterp_video::png_file::read(&shot).unwrap()
}

fn pixel(f: &Frame, x: u32, y: u32) -> u32 {
    f.pixels[(y * f.width + x) as usize]
}

/// Pixels that differ between two frames of the same size, within `r` (x0, y0, x1, y1).
fn differing(a: &Frame, b: &Frame, r: (u32, u32, u32, u32)) -> usize {
    assert_eq!(
        (a.width, a.height),
        (b.width, b.height),
        "frame sizes differ"
    );
    let mut n = 0;
    for y in r.1..r.3.min(a.height) {
        for x in r.0..r.2.min(a.width) {
            n += (pixel(a, x, y) != pixel(b, x, y)) as usize;
        }
    }
    n
}

/// Whether the 16x16 blocks at (ax, ay) and (bx, by) are the same pixels.
fn same_block(f: &Frame, (ax, ay): (u32, u32), (bx, by): (u32, u32)) -> bool {
    (0..16).all(|j| (0..16).all(|i| pixel(f, ax + i, ay + j) == pixel(f, bx + i, by + j)))
}

/// Winemine's board is drawn from 16x16 tiles of its bitmap; at the start every cell
/// shows the same "unrevealed" tile. Returns the top-left corner of a 9x9 grid of
/// identical, not single-coloured 16x16 blocks (the beginner board), if there is one.
fn beginner_board(f: &Frame) -> Option<(u32, u32)> {
    let span = 9 * 16;
    for y0 in 0..f.height.saturating_sub(span - 1) {
        for x0 in 0..f.width.saturating_sub(span - 1) {
            let first = pixel(f, x0, y0);
            let uniform = (0..16).all(|j| (0..16).all(|i| pixel(f, x0 + i, y0 + j) == first));
            if uniform {
                continue;
            }
            let all_same =
                (0..9).all(|r| (0..9).all(|c| same_block(f, (x0, y0), (x0 + 16 * c, y0 + 16 * r))));
            if all_same {
                return Some((x0, y0));
            }
        }
    }
    None
}

#[test]
fn winemine_shows_its_board_and_a_click_changes_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = program("winemine", "winemine", dir.path()) else {
        return;
    };
    let before = frame_after(dir.path(), &exe, 40, None, "board");
    let (bx, by) = beginner_board(&before).unwrap_or_else(|| {
        panic!(
            "no 9x9 board of identical cells in the {}x{} frame",
            before.width, before.height
        )
    });
    // The middle cell.
    let (cx, cy) = (bx + 4 * 16, by + 4 * 16);
    let script = format!("30 click left {} {}\n", cx + 8, cy + 8);
    let without = frame_after(dir.path(), &exe, 60, None, "without");
    let with = frame_after(dir.path(), &exe, 60, Some(&script), "with");
    let changed = differing(&without, &with, (cx, cy, cx + 16, cy + 16));
    assert!(
        changed > 0,
        "the clicked cell at ({cx}, {cy}) looks the same with and without the click"
    );
    println!(
        "winemine: 9x9 board at ({bx}, {by}) in a {}x{} frame, click at ({}, {}) changed {changed} pixels of its cell",
        before.width,
        before.height,
        cx + 8,
        cy + 8
    );
}

/// Pixels from row `top` down that are dark enough to be text in the default black-on-white edit control.
fn dark_pixels(f: &Frame, top: u32) -> usize {
    let mut n = 0;
    for y in top..f.height {
        for x in 0..f.width {
            let p = pixel(f, x, y);
            let (r, g, b) = (p >> 16 & 0xff, p >> 8 & 0xff, p & 0xff);
            n += (r + g + b < 3 * 96) as usize;
        }
    }
    n
}

#[test]
fn notepad_shows_typed_keys_in_its_edit_area() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = program("notepad", "notepad", dir.path()) else {
        return;
    };
    let script = "20 type Hello winterp\n";
    let without = frame_after(dir.path(), &exe, 40, None, "without");
    let with = frame_after(dir.path(), &exe, 40, Some(script), "with");
    // The frame is the menu bar and the client area, which the edit control fills;
    // typing changes only the edit control.
    let top = 0;
    let changed = differing(&without, &with, (0, top, without.width, without.height));
    let (d0, d1) = (dark_pixels(&without, top), dark_pixels(&with, top));
    assert!(
        changed > 0 && d1 > d0,
        "typing changed {changed} pixels; text-coloured pixels {d0} -> {d1}"
    );
    println!(
        "notepad: frame {}x{}, typing changed {changed} pixels, text pixels {d0} -> {d1}",
        with.width, with.height
    );
}

/// Wine's programs that winterp shows today must keep showing their main window
/// under `winterp check` (docs/compatibility.md lists the others and what stops
/// them): the check exits 0 only when the window is still there at its last tick.
#[test]
fn wine_programs_show_their_main_window_under_check() {
    for name in ["clock", "notepad", "winemine"] {
        let dir = tempfile::tempdir().unwrap();
        let Some(exe) = program(
            "wine_programs_show_their_main_window_under_check",
            name,
            dir.path(),
        ) else {
            return;
        };
        let out = Command::new(env!("CARGO_BIN_EXE_winterp"))
            .args(["check", "--frames", "60", "--screenshot"])
            .arg(dir.path().join("last.png"))
            .arg(&exe)
            .current_dir(exe.parent().unwrap())
            .env("WINTERP_DATA_DIR", dir.path().join("data"))
            .output()
            .expect("running winterp check");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}:\n{stdout}");
        assert!(
            stdout.contains("first window:          tick"),
            "{name}: no window\n{stdout}"
        );
        assert!(
            stdout.contains("end:                   reached 60 frames"),
            "{name}:\n{stdout}"
        );
    }
}
