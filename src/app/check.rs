//! `winterp check PROGRAM.EXE`: will this program run? First what it is (runtime,
//! packer) and every function it imports, marked implemented, unimplemented (a
//! real export winterp lacks: the call stops with a report) or missing (no such
//! export anywhere); then a headless deterministic run of N frames that says how
//! far it got. The exit code is 0 only when the run reached N frames.

use crate::headless::{self, HeadlessArgs, RunReport, WinVer};
use anyhow::{Context, Result};
use std::fmt::Write;
use std::path::PathBuf;
use winterp_hostwin32::inspect::{ImportStatus, Inspection, inspect};

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Frames to run: DirectDraw presents, or 60 Hz refresh ticks for GDI programs.
    #[arg(long, default_value_t = 600, value_name = "N")]
    pub frames: u64,
    /// Where to write the last frame (default: PROGRAM.check.png in the current folder).
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Unimplemented APIs return 0 instead of stopping the run.
    #[arg(long)]
    pub stub_unimplemented: bool,
    /// The Windows version the program is told.
    #[arg(long, value_enum, default_value = "98")]
    pub winver: WinVer,
    /// Only inspect the program; do not run it.
    #[arg(long)]
    pub no_run: bool,
    /// Also write the result as JSON.
    #[arg(long, value_name = "FILE.json")]
    pub json: Option<PathBuf>,
    /// List every import, not only those that are not implemented.
    #[arg(long)]
    pub all_imports: bool,
    /// The program to check.
    pub program: PathBuf,
}

/// The inspection as text: runtime, packer, and the imports per DLL.
pub fn inspection_text(i: &Inspection, all: bool) -> String {
    let mut t = String::new();
    if let Some(e) = &i.error {
        let _ = writeln!(t, "image: {e}");
    }
    let _ = writeln!(
        t,
        "runtime: {}   packer: {}   linker {}.{}, {} subsystem",
        i.runtime.as_deref().unwrap_or("not recognised"),
        i.packer.as_deref().unwrap_or("none recognised"),
        i.linker.0,
        i.linker.1,
        if i.gui { "GUI" } else { "console" }
    );
    let count = |s: ImportStatus| {
        i.imports
            .iter()
            .flat_map(|d| &d.functions)
            .filter(|f| f.status == s)
            .count()
    };
    let total: usize = i.imports.iter().map(|d| d.functions.len()).sum();
    let _ = writeln!(
        t,
        "imports: {} DLLs, {total} functions: {} implemented, {} unimplemented, {} missing, {} from guest DLLs",
        i.imports.len(),
        count(ImportStatus::Implemented),
        count(ImportStatus::Unimplemented),
        count(ImportStatus::Missing),
        count(ImportStatus::GuestDll),
    );
    for d in &i.imports {
        let of = |s: ImportStatus| d.functions.iter().filter(|f| f.status == s).count();
        let _ = writeln!(
            t,
            "  {}: {} functions, {} implemented{}",
            d.name,
            d.functions.len(),
            of(ImportStatus::Implemented),
            match of(ImportStatus::GuestDll) {
                0 => String::new(),
                n => format!(", {n} from the program's own DLL"),
            }
        );
        for f in &d.functions {
            if all
                || matches!(
                    f.status,
                    ImportStatus::Unimplemented | ImportStatus::Missing
                )
            {
                let _ = writeln!(t, "    {:<13} {}!{}", f.status.label(), d.name, f.name);
            }
        }
    }
    t
}

fn seconds(tick: u64) -> String {
    format!("{:.2} s", tick as f64 / 60.0)
}

/// The run's summary lines.
pub fn run_text(r: &RunReport, frames: u64, png: &std::path::Path) -> String {
    let p = &r.progress;
    let mut t = String::new();
    let at = |tick: Option<u64>| match tick {
        Some(k) => format!("tick {k} ({} of guest time)", seconds(k)),
        None => "never".to_string(),
    };
    let _ = writeln!(t, "  first window:          {}", at(p.first_window));
    if !p.titles.is_empty() {
        let _ = writeln!(
            t,
            "  windows shown:         \"{}\"",
            p.titles.join("\", \"")
        );
    }
    let _ = writeln!(t, "  first presented frame: {}", at(p.first_present));
    let _ = writeln!(
        t,
        "  frames presented:      {} in {} refresh ticks",
        p.presented,
        p.ticks.min(frames)
    );
    let _ = writeln!(
        t,
        "  first unimplemented:   {}",
        r.first_unimplemented.as_deref().unwrap_or("none")
    );
    let end = if p.reached {
        format!("reached {frames} frames")
    } else {
        r.end.lines().next().unwrap_or("").to_string()
    };
    let _ = writeln!(t, "  end:                   {end}");
    let _ = writeln!(
        t,
        "  last frame:            {}",
        if r.screenshot {
            png.display().to_string()
        } else {
            "none (no window at the end)".to_string()
        }
    );
    t
}

pub fn run(a: CheckArgs) -> Result<i32> {
    let program = a
        .program
        .canonicalize()
        .with_context(|| format!("cannot open {}", a.program.display()))?;
    let bytes =
        std::fs::read(&program).with_context(|| format!("cannot read {}", program.display()))?;
    let i = inspect(&bytes, program.parent());
    println!("{}", program.display());
    print!("{}", inspection_text(&i, a.all_imports));
    let mut json = serde_json::json!({
        "program": program.display().to_string(),
        "runtime": i.runtime,
        "packer": i.packer,
        "imports": i.imports.iter().map(|d| serde_json::json!({
            "dll": d.name,
            "functions": d.functions.iter().map(|f| serde_json::json!({
                "name": f.name, "status": f.status.label(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    if a.no_run {
        if let Some(path) = &a.json {
            std::fs::write(path, json.to_string())?;
        }
        return Ok(if i.gaps().next().is_none() { 0 } else { 1 });
    }
    let png = a.screenshot.clone().unwrap_or_else(|| {
        let stem = program
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "program".into());
        PathBuf::from(format!("{stem}.check.png"))
    });
    println!(
        "run: {} frames, headless, deterministic{}",
        a.frames,
        if a.stub_unimplemented {
            ", unimplemented APIs stubbed"
        } else {
            ""
        }
    );
    let r = headless::run_report(HeadlessArgs {
        program: program.clone(),
        args: Vec::new(),
        deterministic: true,
        max_instructions: None,
        stats: None,
        trace_api: false,
        stub_unimplemented: a.stub_unimplemented,
        winver: a.winver,
        frames: Some(a.frames),
        screenshot: Some(png.clone()),
        input: None,
        audio_dump: None,
        frame_hashes: None,
        tier_at: Vec::new(),
        overlay_png: None,
        uop_census: false,
        track_progress: true,
        frames_are_ticks: true,
        message_box_ticks: Some(winterp_hostwin32::process::DEFAULT_MESSAGE_BOX_TICKS),
        child: None,
    })?;
    print!("{}", run_text(&r, a.frames, &png));
    for c in &r.children {
        println!("  {}", c.line());
    }
    if let Some(path) = &a.json {
        let p = &r.progress;
        json["run"] = serde_json::json!({
            "frames": a.frames,
            "first_window_tick": p.first_window,
            "window_titles": p.titles,
            "first_present_tick": p.first_present,
            "presented": p.presented.min(a.frames),
            "reached": p.reached,
            "first_unimplemented": r.first_unimplemented,
            "end": r.end.lines().next().unwrap_or(""),
            "screenshot": r.screenshot.then(|| png.display().to_string()),
            "children": r.children.iter().map(|c| serde_json::json!({
                "name": c.name,
                "id": c.pid,
                "first_window_tick": c.status.first_window,
                "first_present_tick": c.status.first_present,
                "presented": c.status.presented,
                "first_unimplemented": c.status.unimplemented,
                "end": c.status.end,
                "exit_code": c.status.exit,
            })).collect::<Vec<_>>(),
        });
        std::fs::write(path, json.to_string())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(if r.progress.reached { 0 } else { 1 })
}
