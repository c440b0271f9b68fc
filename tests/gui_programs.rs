//! Runs the Windows GUI guest programs in `tests/guest/bin` (sources in
//! `tests/guest/src`, see `tests/guest/README.md`) under the headless frame runner:
//!
//! `winterp --headless --deterministic --frames N --screenshot OUT.png [--input SCRIPT] PROGRAM.EXE`
//!
//! - `gdi_draw`: the frame after 10 refresh ticks must hold every "known pixel" of
//!   the table in `src/gdi_draw.c` (colours worked out by hand from the documented
//!   GDI rules), be the same in three runs, and equal the golden
//!   `expected/gdi_draw.png` byte for byte once decoded. `WINTERP_BLESS=1` rewrites
//!   the golden from the current run, but only after the known-pixel checks pass.
//! - `msglog`, `dialog`, `timer`: stdout (CR LF turned into LF) must equal
//!   `expected/NAME.stdout`, written from documented Windows behaviour and
//!   cross-checked under Wine; in both the normal and the deterministic mode.
//! - `regsave`: the register contract across API calls and callbacks (EBX, ESI, EDI,
//!   EBP and ESP preserved, stdcall stack balance, DF clear and a sane ESP on entry
//!   to every kind of callback); every line of `expected/regsave.stdout` is a PASS
//!   (written from the program's checks, not from a run), in both modes.
//! - `rtstart`: the start-up calls of the MSVC, mingw-w64 and Delphi runtimes and of
//!   games (locale and code pages, WC_COMPOSITECHECK, resources, display modes,
//!   CreateCursor, the `_l*` files), as real programs make them; expected output
//!   from a run under Wine.
//! - `iconinfo`: icons and cursors from the program's resources, GetIconInfo's
//!   bitmaps, DrawIcon/DrawIconEx pixels on a memory DC, the icon constructors;
//!   expected output from a run under Wine.
//! - `menubar`: the menu bar's layout as GetMenuItemRect, GetClientRect,
//!   MenuItemFromPoint and GetMenuBarInfo show it (what does not depend on the menu
//!   font's widths), one row and wrapped; expected output from a run under Wine but
//!   for where the items sit in their row (README). With `click` and
//!   `expected/menubar.click.script`: the menu messages of a click on the bar and on
//!   an item of its menu, ending in WM_COMMAND, then of a TrackPopupMenu context menu,
//!   as Wine sends them.
//! - `scrollbar`: window scroll bars' state (SetScrollInfo clamping, SetScrollPos,
//!   SetScrollRange, bars shown and hidden with the range, ShowScrollBar) and the
//!   client area and WM_SIZE with and without them, sizes as "less SM_CXVSCROLL";
//!   expected output from a run under Wine 8, in both modes.
//! - `mapmode`: mapping modes (extents each mode sets, LPtoDP/DPtoLP rounding, the
//!   MM_ISOTROPIC adjustment, the world transform), shapes, blits and clipping drawn in
//!   logical units into a DIB section, and a Windows and an enhanced metafile recorded
//!   and played back; expected output from a run under Wine 8.
//! - `treeview`: COMCTL32's tree view: insertion order, navigation, indent,
//!   expansion and selection with the parent's notifications, item rectangles (relative
//!   to item height and indent), hit testing, sorting and deletion; expected output
//!   from Wine 8, in both modes.
//! - `comctl_views`: COMCTL32's tab control, header, report-view list view and a
//!   modeless property sheet of two in-memory pages: returned values, item
//!   rectangles (font-dependent sizes relative to the text metrics) and the
//!   notifications the parents and pages receive; expected output from a run under
//!   Wine 8, in both modes.
//! - `msgbox`: MessageBox as a modal `#32770` dialog: an owner timer finds the box
//!   with FindWindow, prints its text static and buttons (IDs, texts, focus) and
//!   answers it by BM_CLICK, WM_CLOSE and a posted Enter; MessageBoxIndirect with
//!   string resource IDs. Expected output from a run under Wine 8, except that an
//!   MB_OK box closed with WM_CLOSE answers IDOK as Windows documents it (Wine: IDCANCEL).
//! - `mdi`: an MDI frame with two children maximized, restored, cascaded, tiled,
//!   cycled, destroyed and created at CW_USEDEFAULT: the children's rectangles, the
//!   active child, the frame's title and menu bar item count, the window menu and
//!   the children's WM_MDIACTIVATE/WM_CHILDACTIVATE; expected output from Wine 8.
//! - `ownerdraw`: owner-drawn list boxes as Winefile uses them: WM_MEASUREITEM when a
//!   fixed list is made and for each item of a variable one, WM_DRAWITEM for each
//!   visible item and at once for a selection change, items without strings kept as
//!   their data, item heights and rectangles, WM_COMPAREITEM and WM_DELETEITEM;
//!   expected output from Wine 8, in both modes.
//! - `filedlg`: the Open and Save As dialogs (GetOpenFileNameA, GetSaveFileNameA)
//!   driven by an owner timer that types names and presses buttons: the dialog's
//!   controls, lpstrDefExt, the read-only box, FNERR_BUFFERTOOSMALL, several quoted
//!   names, a typed folder, Cancel and the returned OPENFILENAME fields; expected
//!   output from Wine 8, in both modes.
//! - `comboex`: COMCTL32's extended combo box: its combo and edit children, items
//!   inserted, read and changed with every COMBOBOXEXITEM field, the edit box's item,
//!   the CB_ messages it passes on, deletion and CBEN_INSERTITEM/CBEN_DELETEITEM;
//!   expected output from Wine 8, in both modes.
//! - `shellbrowse`: SHELL32's ExplorerBrowser browsing a folder the program makes
//!   (its events, its view's list view items, parent and back), and the namespace
//!   helpers Wine's Explorer uses on each navigation (IPersistFolder2, SHBindToParent,
//!   GetDisplayNameOf for the address bar, StrRetToStrW, ILIsParent/ILIsEqual/
//!   ILCombine/ILFindChild, the system image list); expected output from Wine 8.
//! - `xsend`: SendMessage between threads: a send to a thread inside
//!   CreateDialogIndirectParam waits for its message loop, a waiting sender serves
//!   messages sent to it, SendMessageTimeout times out, a send to a thread that ends
//!   without retrieving messages returns 0; expected output from Wine 8, in both
//!   modes.
//! - `procres`: GetProcessIoCounters, GetGuiResources and Shell_NotifyIconW as
//!   taskmgr uses them (README: the lines Wine 8 stubs keep Windows' behaviour).
//! - `popups`: ShowOwnedPopups (WM_SHOWWINDOW with SW_PARENTCLOSING/OPENING, what
//!   DefWindowProc hides and shows again), GetLastActivePopup across activation and
//!   destruction, WinHelp's HELP_QUIT; expected output from Wine 8, in both modes.
//! - `scrollwin`: ScrollWindow of the whole client area (children move along), of a
//!   part and with a clipping rectangle: where a drawn square goes (GetPixel), the
//!   child's position and the update rectangle left; expected output from Wine 8.
//! - `input_log`: a scripted input (`expected/input_log.script`) at a 320x240 client
//!   area and, with every coordinate doubled, at 640x480; the logged keyboard
//!   lParams and client/child coordinates must equal the expected logs.

mod common;

use common::{Run, exe, expected, first_difference, guest_dir, s, tail, winterp};
use std::fs;
use std::path::Path;
use winterp_hostwin32::display::Frame;

/// The GUI programs; `build.sh` builds these with `-mwindows`.
const GUI_PROGRAMS: &[&str] = &[
    "childid",
    "comboex",
    "comctl_bars",
    "comctl_views",
    "dialog",
    "gdi_draw",
    "iconinfo",
    "input_log",
    "mdi",
    "menubar",
    "minsize",
    "msglog",
    "msgbox",
    "popups",
    "procres",
    "regsave",
    "rtstart",
    "scrollbar",
    "scrollwin",
    "shellbrowse",
    "timer",
    "treeview",
    "ownerdraw",
    "filedlg",
    "xsend",
];

// ---- programs with an expected stdout ------------------------------------------

fn stdout_program(name: &str, deterministic: bool) {
    stdout_program_with(name, deterministic, &[]);
}

/// [`stdout_program`] with more options before the program.
fn stdout_program_with(name: &str, deterministic: bool, options: &[&str]) {
    let want = fs::read_to_string(expected(&format!("{name}.stdout")))
        .unwrap_or_else(|e| panic!("expected/{name}.stdout: {e}"));
    let want_code = match fs::read_to_string(expected(&format!("{name}.exitcode"))) {
        Ok(t) => t.trim().parse::<u32>().expect("exit code file") & 0xff,
        Err(_) => 0,
    };
    let mut args = vec![s("--headless")];
    if deterministic {
        args.push(s("--deterministic"));
    }
    args.extend(options.iter().map(|o| s(o)));
    args.push(exe(name).display().to_string());
    let got = winterp(&args);
    assert!(
        got.stdout == want && got.code == Some(want_code as i32),
        "{name}.exe (deterministic: {deterministic}): exit status {:?} (expected {want_code})\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        if got.stdout == want {
            "stdout as expected".to_string()
        } else {
            first_difference(&want, &got.stdout)
        },
        tail(&got.stderr, 30)
    );
}

#[test]
fn xsend_normal() {
    stdout_program("xsend", false);
}

#[test]
fn xsend_deterministic() {
    stdout_program("xsend", true);
}

#[test]
fn procres_normal() {
    stdout_program("procres", false);
}

#[test]
fn procres_deterministic() {
    stdout_program("procres", true);
}

#[test]
fn minsize_normal() {
    stdout_program("minsize", false);
}

#[test]
fn comctl_bars_normal() {
    stdout_program("comctl_bars", false);
}

#[test]
fn comctl_bars_deterministic() {
    stdout_program("comctl_bars", true);
}

#[test]
fn childid_normal() {
    stdout_program("childid", false);
}

#[test]
fn scrollwin_normal() {
    stdout_program("scrollwin", false);
}

#[test]
fn scrollwin_deterministic() {
    stdout_program("scrollwin", true);
}

#[test]
fn popups_normal() {
    stdout_program("popups", false);
}

#[test]
fn popups_deterministic() {
    stdout_program("popups", true);
}

#[test]
fn msglog_normal() {
    stdout_program("msglog", false);
}

#[test]
fn msglog_deterministic() {
    stdout_program("msglog", true);
}

#[test]
fn dialog_normal() {
    stdout_program("dialog", false);
}

#[test]
fn dialog_deterministic() {
    stdout_program("dialog", true);
}

#[test]
fn timer_normal() {
    stdout_program("timer", false);
}

#[test]
fn timer_deterministic() {
    stdout_program("timer", true);
}

#[test]
fn mapmode_normal() {
    stdout_program("mapmode", false);
}

#[test]
fn mapmode_deterministic() {
    stdout_program("mapmode", true);
}

#[test]
fn comctl_views_normal() {
    stdout_program("comctl_views", false);
}

#[test]
fn comctl_views_deterministic() {
    stdout_program("comctl_views", true);
}

#[test]
fn comboex_normal() {
    stdout_program("comboex", false);
}

#[test]
fn comboex_deterministic() {
    stdout_program("comboex", true);
}

#[test]
fn shellbrowse_normal() {
    stdout_program("shellbrowse", false);
}

#[test]
fn shellbrowse_deterministic() {
    stdout_program("shellbrowse", true);
}

#[test]
fn treeview_normal() {
    stdout_program("treeview", false);
}

#[test]
fn treeview_deterministic() {
    stdout_program("treeview", true);
}

#[test]
fn ownerdraw_normal() {
    stdout_program("ownerdraw", false);
}

#[test]
fn ownerdraw_deterministic() {
    stdout_program("ownerdraw", true);
}

// The program answers its dialogs itself: no headless Cancel races its timer on a
// loaded machine.
#[test]
fn filedlg_normal() {
    stdout_program_with("filedlg", false, &["--message-box-ticks", "off"]);
}

/// Nobody answers the dialog: the headless runner presses Cancel after
/// `--message-box-ticks` and says so; the call returns FALSE with no error, as for
/// a user's Cancel (the Cancel case of `expected/filedlg.stdout`).
#[test]
fn filedlg_headless_cancel() {
    let got = winterp(&[
        s("--headless"),
        s("--deterministic"),
        s("--message-box-ticks"),
        s("10"),
        exe("filedlg").display().to_string(),
        s("unanswered"),
    ]);
    assert_eq!(
        got.stdout,
        "-- Open: nobody answers\nreturned 0, CommDlgExtendedError 0\ncurrent folder \"<start>\"\n",
        "{}",
        tail(&got.stderr, 30)
    );
    assert!(
        got.stderr.contains("winterp: file dialog \"Open\" in ")
            && got.stderr.contains("-> Cancel"),
        "{}",
        tail(&got.stderr, 30)
    );
}

#[test]
fn filedlg_deterministic() {
    stdout_program_with("filedlg", true, &["--message-box-ticks", "off"]);
}

#[test]
fn scrollbar_normal() {
    stdout_program("scrollbar", false);
}

#[test]
fn scrollbar_deterministic() {
    stdout_program("scrollbar", true);
}

#[test]
fn mdi_normal() {
    stdout_program("mdi", false);
}

#[test]
fn mdi_deterministic() {
    stdout_program("mdi", true);
}

#[test]
fn msgbox_normal() {
    stdout_program("msgbox", false);
}

#[test]
fn msgbox_deterministic() {
    stdout_program("msgbox", true);
}

#[test]
fn rtstart_normal() {
    stdout_program("rtstart", false);
}

#[test]
fn rtstart_deterministic() {
    stdout_program("rtstart", true);
}

#[test]
fn iconinfo_normal() {
    stdout_program("iconinfo", false);
}

#[test]
fn iconinfo_deterministic() {
    stdout_program("iconinfo", true);
}

#[test]
fn menubar_normal() {
    stdout_program("menubar", false);
}

#[test]
fn menubar_deterministic() {
    stdout_program("menubar", true);
}

/// A click on the bar's first item and then on the first item of its menu: the
/// modal menu loop's messages, and the WM_COMMAND that ends it; then a context menu
/// (TrackPopupMenu with TPM_RETURNCMD) and its first item.
#[test]
fn menubar_click() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("click.txt");
    fs::copy(expected("menubar.click.script"), &script).unwrap();
    let want = fs::read_to_string(expected("menubar.click.stdout")).unwrap();
    let got = winterp(&[
        s("--headless"),
        s("--deterministic"),
        s("--frames"),
        s("60"),
        s("--input"),
        script.display().to_string(),
        exe("menubar").display().to_string(),
        s("click"),
    ]);
    assert!(
        got.stdout == want && got.code == Some(0),
        "menubar.exe click: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        if got.stdout == want {
            "stdout as expected".to_string()
        } else {
            first_difference(&want, &got.stdout)
        },
        tail(&got.stderr, 30)
    );
}

#[test]
fn regsave_normal() {
    stdout_program("regsave", false);
}

#[test]
fn regsave_deterministic() {
    stdout_program("regsave", true);
}

// ---- gdi_draw: known pixels and the golden frame ---------------------------------

/// One row of the known-pixel table in `src/gdi_draw.c`.
#[derive(Debug)]
struct KnownPixel {
    x: u32,
    y: u32,
    rgb: u32,
    why: String,
}

/// Reads the `px X Y RRGGBB reason` lines of the comment table in `src/gdi_draw.c`.
fn known_pixels() -> Vec<KnownPixel> {
    let src = fs::read_to_string(guest_dir().join("src/gdi_draw.c")).unwrap();
    let mut out = Vec::new();
    for line in src.lines() {
        let Some(rest) = line.trim_start().strip_prefix("* px ") else {
            continue;
        };
        let mut f = rest.split_whitespace();
        let (Some(x), Some(y), Some(c)) = (f.next(), f.next(), f.next()) else {
            panic!("bad known-pixel line: {line}");
        };
        out.push(KnownPixel {
            x: x.parse().unwrap_or_else(|e| panic!("{line}: {e}")),
            y: y.parse().unwrap_or_else(|e| panic!("{line}: {e}")),
            rgb: u32::from_str_radix(c, 16).unwrap_or_else(|e| panic!("{line}: {e}")),
            why: f.collect::<Vec<_>>().join(" "),
        });
    }
    out
}

const TEXT_RGB: u32 = 0x80_0000;
/// `TextOutA(210, 60, "winterp")`: the glyphs must lie inside this box.
const TEXT_BOX: (u32, u32, u32, u32) = (210, 60, 310, 90);

/// Every semantic check of the gdi_draw frame; the problems found, if any.
fn frame_problems(frame: &Frame) -> Vec<String> {
    let mut problems = Vec::new();
    if (frame.width, frame.height) != (320, 240) {
        problems.push(format!(
            "frame is {}x{}, the client area is 320x240",
            frame.width, frame.height
        ));
        return problems;
    }
    let at = |x: u32, y: u32| frame.pixels[(y * frame.width + x) as usize];
    for p in known_pixels() {
        let got = at(p.x, p.y);
        if got != p.rgb {
            problems.push(format!(
                "({}, {}) is {got:06x}, expected {:06x}: {}",
                p.x, p.y, p.rgb, p.why
            ));
        }
    }
    // The polygon's outline encloses its fill (see the table's comment).
    for y in 51..110 {
        let drawn: Vec<u32> = (0..115).filter(|&x| at(x, y) != 0xff_ffff).collect();
        if let (Some(&first), Some(&last)) = (drawn.first(), drawn.last()) {
            for x in [first, last] {
                if at(x, y) != 0 {
                    problems.push(format!(
                        "({x}, {y}) is {:06x}: Polygon's fill reaches outside its pen outline",
                        at(x, y)
                    ));
                }
            }
        } else {
            problems.push(format!("row {y} of the polygon is empty"));
        }
    }
    let (l, t, r, b) = TEXT_BOX;
    let mut inside = 0;
    let mut outside = 0;
    for y in 0..frame.height {
        for x in 0..frame.width {
            if at(x, y) == TEXT_RGB {
                if (l..r).contains(&x) && (t..b).contains(&y) {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
        }
    }
    if inside < 20 {
        problems.push(format!(
            "the text \"winterp\" left only {inside} pixels of {TEXT_RGB:06x} in its box"
        ));
    }
    if outside > 0 {
        problems.push(format!(
            "{outside} pixels of the text colour {TEXT_RGB:06x} outside the text box"
        ));
    }
    problems
}

#[test]
fn known_pixel_table_is_read() {
    let table = known_pixels();
    assert!(table.len() >= 60, "only {} known pixels read", table.len());
    assert!(
        table
            .iter()
            .all(|p| p.x < 320 && p.y < 240 && !p.why.is_empty()),
        "{table:?}"
    );
}

/// The checks themselves, on an independent renderer's picture:
/// `expected/gdi_draw.wine.png` is gdi_draw's client area as Wine 8.0 drew it
/// (`run-wine-gui.sh`). It must pass, and a frame with one known pixel changed
/// must not.
#[test]
fn known_pixels_hold_in_wines_frame() {
    let wine = winterp_video::png_file::read(&expected("gdi_draw.wine.png")).unwrap();
    assert_eq!(frame_problems(&wine), Vec::<String>::new());
    let mut broken = wine.clone();
    // LineTo must not draw its end point (200, 50).
    broken.pixels[50 * 320 + 200] = 0xff_00ff;
    let problems = frame_problems(&broken);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("(200, 50)"), "{problems:?}");
}

fn screenshot(name: &str, frames: u32, dir: &Path, tag: &str) -> (Frame, Run) {
    let png = dir.join(format!("{name}-{tag}.png"));
    let run = winterp(&[
        s("--headless"),
        s("--deterministic"),
        s("--frames"),
        frames.to_string(),
        s("--screenshot"),
        png.display().to_string(),
        exe(name).display().to_string(),
    ]);
    assert_eq!(
        run.code,
        Some(0),
        "{name}.exe run {tag}: exit status {:?}\n--- stderr (last 30 lines) ---\n{}",
        run.code,
        tail(&run.stderr, 30)
    );
    let frame = winterp_video::png_file::read(&png)
        .unwrap_or_else(|e| panic!("{name}.exe run {tag}: no screenshot: {e}"));
    (frame, run)
}

#[test]
fn gdi_draw_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = screenshot("gdi_draw", 10, dir.path(), "1");
    let problems = frame_problems(&first);
    assert!(
        problems.is_empty(),
        "gdi_draw's frame breaks GDI rules (saved at {}):\n{}",
        {
            let keep = std::env::temp_dir().join("gdi_draw-failed.png");
            let _ = winterp_video::png_file::write(&keep, &first);
            keep.display().to_string()
        },
        problems.join("\n")
    );
    for k in 2..=3 {
        let (again, _) = screenshot("gdi_draw", 10, dir.path(), &k.to_string());
        assert!(again == first, "run {k} gave a different frame from run 1");
    }
    let golden = expected("gdi_draw.png");
    if std::env::var_os("WINTERP_BLESS").is_some_and(|v| v == "1") {
        winterp_video::png_file::write(&golden, &first).unwrap();
        eprintln!("wrote {}", golden.display());
        return;
    }
    let want = winterp_video::png_file::read(&golden).unwrap_or_else(|e| {
        panic!(
            "{e}; run with WINTERP_BLESS=1 to write the golden frame (see tests/guest/README.md)"
        )
    });
    if want != first {
        let keep = std::env::temp_dir().join("gdi_draw-actual.png");
        let _ = winterp_video::png_file::write(&keep, &first);
        let differing = want
            .pixels
            .iter()
            .zip(&first.pixels)
            .filter(|(a, b)| a != b)
            .count();
        panic!(
            "gdi_draw's frame differs from expected/gdi_draw.png in {differing} pixels \
             (sizes {}x{} / {}x{}); this run is saved at {}",
            want.width,
            want.height,
            first.width,
            first.height,
            keep.display()
        );
    }
}

// ---- input_log: scripted input at two sizes ---------------------------------------

/// `script` with every coordinate (the numbers after move/down/up/click/wheel's
/// delta) multiplied by `k`; frame numbers, keys and wheel deltas stay.
fn scale_script(script: &str, k: i32) -> String {
    let mut out = String::new();
    for line in script.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let first_coord = match f.get(1).copied() {
            _ if line.trim_start().starts_with('#') => None,
            Some("move") => Some(2),
            Some("down" | "up" | "click") => Some(3),
            Some("wheel") => Some(3),
            _ => None,
        };
        match first_coord {
            Some(i) if f.len() == i + 2 => {
                let mut g: Vec<String> = f.iter().map(|x| x.to_string()).collect();
                for c in &mut g[i..] {
                    let v: i32 = c.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                    *c = (v * k).to_string();
                }
                out.push_str(&g.join(" "));
            }
            Some(_) => panic!("unexpected script line: {line}"),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[test]
fn scaling_a_script_keeps_frames_keys_and_deltas() {
    assert_eq!(
        scale_script(
            "# c 1 2\n5 move 1 2\n6 down left 3 4\n7 wheel -120 5 6\n8 key down A\n9 click right 0 7\n",
            2
        ),
        "# c 1 2\n5 move 2 4\n6 down left 6 8\n7 wheel -120 10 12\n8 key down A\n9 click right 0 14\n"
    );
}

fn input_log(script: &str, size: Option<(u32, u32)>, want_file: &str) {
    let dir = tempfile::tempdir().unwrap();
    let script_path = dir.path().join("input.txt");
    fs::write(&script_path, script).unwrap();
    let mut args = vec![
        s("--headless"),
        s("--deterministic"),
        // More ticks than the script needs: the program ends itself (Escape,
        // WM_CLOSE), so there is no screenshot to ask for.
        s("--frames"),
        s("90"),
        s("--input"),
        script_path.display().to_string(),
        exe("input_log").display().to_string(),
    ];
    if let Some((w, h)) = size {
        args.push(w.to_string());
        args.push(h.to_string());
    }
    let want = fs::read_to_string(expected(want_file)).unwrap();
    let got = winterp(&args);
    assert!(
        got.stdout == want && got.code == Some(0),
        "input_log.exe {size:?}: exit status {:?}\n{}\n--- stderr (last 30 lines) ---\n{}",
        got.code,
        if got.stdout == want {
            "stdout as expected".to_string()
        } else {
            first_difference(&want, &got.stdout)
        },
        tail(&got.stderr, 30)
    );
}

#[test]
fn input_log_at_320x240() {
    let script = fs::read_to_string(expected("input_log.script")).unwrap();
    input_log(&script, None, "input_log.320.stdout");
}

#[test]
fn input_log_at_640x480() {
    let script = fs::read_to_string(expected("input_log.script")).unwrap();
    input_log(
        &scale_script(&script, 2),
        Some((640, 480)),
        "input_log.640.stdout",
    );
}

/// Rewrites every coordinate pair of an input script through `f`.
fn map_script_points(script: &str, f: impl Fn(i32, i32) -> (i32, i32)) -> String {
    let mut out = String::new();
    for line in script.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let first = match w.get(1).copied() {
            _ if line.trim_start().starts_with('#') => None,
            Some("move") => Some(2),
            Some("down" | "up" | "click" | "wheel") => Some(3),
            _ => None,
        };
        match first {
            Some(i) if w.len() == i + 2 => {
                let x: i32 = w[i].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                let y: i32 = w[i + 1].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                let (mx, my) = f(x, y);
                let mut g: Vec<String> = w[..i].iter().map(|x| x.to_string()).collect();
                g.push(mx.to_string());
                g.push(my.to_string());
                out.push_str(&g.join(" "));
            }
            Some(_) => panic!("unexpected script line: {line}"),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The player's path for pointer input at two window scales: each scripted guest
/// point becomes the centre of its on-screen pixel block in a player window (integer
/// scale 2 in a 640x480 area; aspect-fit in a 1000x700 area, a fractional scale with
/// letterbox), and is mapped back with the same `winterp_video::scale` mapping the
/// player uses for winit's pointer events. The guest window procedure must log
/// exactly what it logs for the unscaled script.
#[test]
fn input_log_through_the_player_mapping_at_two_window_scales() {
    use winterp_video::scale::{Rect, ScaleMode, fit};
    let script = fs::read_to_string(expected("input_log.script")).unwrap();
    let areas = [
        (
            ScaleMode::Integer,
            Rect {
                x: 0,
                y: 24,
                w: 640,
                h: 480,
            },
        ),
        (
            ScaleMode::Aspect,
            Rect {
                x: 0,
                y: 24,
                w: 1000,
                h: 700,
            },
        ),
    ];
    for (mode, area) in areas {
        let vp = fit(mode, 320, 240, area).expect("the guest fits the window");
        let mapped = map_script_points(&script, |x, y| {
            let (wx, wy) = vp.guest_centre(x as u32, y as u32);
            vp.to_guest(wx, wy)
                .unwrap_or_else(|| panic!("({x}, {y}) -> ({wx}, {wy}) is outside the guest"))
        });
        println!(
            "input_log at {mode:?} in {}x{}: viewport {:?}",
            area.w, area.h, vp.rect
        );
        input_log(&mapped, None, "input_log.320.stdout");
    }
}

#[test]
fn input_log_close() {
    let script = fs::read_to_string(expected("input_log.close.script")).unwrap();
    input_log(&script, None, "input_log.close.stdout");
}

// ---- child processes --------------------------------------------------------------

/// CreateProcess of a GUI program: `winterp check` on the console launcher
/// proclaunch reports what its child "procwin" showed, and the launcher's
/// WaitForInputIdle returned when the child first waited for messages.
#[test]
fn check_reports_the_window_of_a_child_process() {
    let child = "procwin";
    let png = tempfile::tempdir().unwrap();
    let r = winterp(&[
        s("check"),
        s("--frames"),
        s("20"),
        s("--screenshot"),
        png.path().join("launch.png").display().to_string(),
        exe("proclaunch").display().to_string(),
    ]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains(&format!("child process {child}.exe")))
        .unwrap_or_else(|| {
            panic!(
                "no child line in the report:\n{}\n--- stderr ---\n{}",
                r.stdout,
                tail(&r.stderr, 20)
            )
        });
    assert!(
        line.contains("first window at tick ") && line.contains("reached its last frame"),
        "{line}"
    );
}

// ---- bookkeeping -----------------------------------------------------------------

/// build.sh's GUI list, the programs here and the committed files agree.
#[test]
fn every_gui_program_is_built_and_tested() {
    // build.sh builds a source that defines WinMain as a GUI program; each of them
    // must be named by a test suite: this one, or the DirectX/sound/input suites.
    let suites: String = [
        "gui_programs.rs",
        "ddraw_programs.rs",
        "audio_programs.rs",
        "input_programs.rs",
    ]
    .iter()
    .map(|f| {
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(f)).unwrap()
    })
    .collect();
    for e in fs::read_dir(guest_dir().join("src")).unwrap() {
        let path = e.unwrap().path();
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".c"))
        else {
            continue;
        };
        if fs::read_to_string(&path).unwrap().contains("WinMain") {
            assert!(exe(name).is_file(), "bin/{name}.exe is missing");
            assert!(
                suites.contains(&format!("\"{name}\"")),
                "GUI program {name} has no test"
            );
        }
    }
    for name in GUI_PROGRAMS {
        assert!(exe(name).is_file(), "bin/{name}.exe is missing");
        assert!(
            guest_dir().join(format!("src/{name}.c")).is_file(),
            "src/{name}.c is missing"
        );
    }
    for file in [
        "msglog.stdout",
        "dialog.stdout",
        "timer.stdout",
        "regsave.stdout",
        "rtstart.stdout",
        "menubar.stdout",
        "menubar.click.script",
        "menubar.click.stdout",
        "iconinfo.stdout",
        "comctl_views.stdout",
        "treeview.stdout",
        "ownerdraw.stdout",
        "filedlg.stdout",
        "comboex.stdout",
        "shellbrowse.stdout",
        "mapmode.stdout",
        "input_log.script",
        "input_log.320.stdout",
        "input_log.640.stdout",
        "gdi_draw.wine.png",
    ] {
        assert!(expected(file).is_file(), "expected/{file} is missing");
    }
}
