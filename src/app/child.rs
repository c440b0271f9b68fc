//! CreateProcess on the app side: the launcher that starts a guest's child program
//! as a new process of this same binary, and the hidden `--child-spec FILE.json`
//! through which that process learns what its parent decided (guest path, command
//! line, current folder, environment, the shared sandbox, its process id and the
//! status file it reports to). The child runs in its parent's mode: headless
//! children of a headless run (deterministic and with the same frame limit if the
//! parent had them), a second player window otherwise.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use winterp_hostwin32::host::Launcher;
use winterp_hostwin32::kernel32::createprocess::{ChildOf, ChildSpec, StartError};
use winterp_hostwin32::vfs::VfsConfig;

/// What a child process is told: a [`ChildSpec`] in JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChildLaunch {
    pub guest_path: String,
    pub current_dir: String,
    pub env: Vec<(String, String)>,
    pub program_dir: PathBuf,
    pub guest_dir: String,
    pub overlay_dir: PathBuf,
    pub allow_writes_to_original: bool,
    pub process_id: u32,
    pub parent_process_id: u32,
    pub id_shift: u32,
    pub command_line: String,
    pub status_file: PathBuf,
    pub suspended: bool,
    pub show_window: Option<u16>,
    /// CREATE_NEW_CONSOLE for a console program.
    #[serde(default)]
    pub new_console: bool,
    /// `winterp check`'s frame rule (a DirectDraw program's run also ends at tick N).
    pub frames_are_ticks: bool,
}

impl ChildLaunch {
    fn from_spec(s: &ChildSpec, frames_are_ticks: bool) -> ChildLaunch {
        ChildLaunch {
            guest_path: s.guest_path.clone(),
            current_dir: s.current_dir.clone(),
            env: s.env.clone(),
            program_dir: s.sandbox.program_dir.clone(),
            guest_dir: s.sandbox.guest_dir.clone(),
            overlay_dir: s.sandbox.overlay_dir.clone(),
            allow_writes_to_original: s.sandbox.allow_writes_to_original,
            process_id: s.child.process_id,
            parent_process_id: s.child.parent_process_id,
            id_shift: s.child.id_shift,
            command_line: s.child.command_line.clone(),
            status_file: s.child.status_file.clone(),
            suspended: s.child.suspended,
            show_window: s.child.show_window,
            new_console: s.child.new_console,
            frames_are_ticks,
        }
    }

    /// Reads the spec the parent wrote (and removes the file: it was for us only).
    pub fn load(path: &Path) -> Result<ChildLaunch> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let _ = std::fs::remove_file(path);
        serde_json::from_str(&text).with_context(|| format!("bad child spec {}", path.display()))
    }

    pub fn child_of(&self) -> ChildOf {
        ChildOf {
            process_id: self.process_id,
            parent_process_id: self.parent_process_id,
            id_shift: self.id_shift,
            command_line: self.command_line.clone(),
            status_file: self.status_file.clone(),
            suspended: self.suspended,
            show_window: self.show_window,
            new_console: self.new_console,
        }
    }

    pub fn vfs_config(&self) -> VfsConfig {
        VfsConfig {
            program_dir: self.program_dir.clone(),
            guest_dir: self.guest_dir.clone(),
            overlay_dir: self.overlay_dir.clone(),
            allow_writes_to_original: self.allow_writes_to_original,
        }
    }
}

/// `--winver`'s value name for a version.
pub fn winver_name(v: winterp_hostwin32::process::WinVersion) -> &'static str {
    use winterp_hostwin32::process::WinVersion as V;
    match v {
        V::Win95 => "95",
        V::Win98 => "98",
        V::WinMe => "me",
        V::Nt4 => "nt4",
        V::Win2000 => "2000",
        V::WinXp => "xp",
    }
}

/// The parent's mode, which its children run in.
#[derive(Clone, Debug)]
pub struct Mode {
    pub headless: bool,
    pub deterministic: bool,
    pub frames: Option<u64>,
    pub frames_are_ticks: bool,
    /// `--winver`'s value name ("98", "xp", ...), if given.
    pub winver: Option<String>,
    pub stub_unimplemented: bool,
    pub trace_api: bool,
    pub max_instructions: Option<u64>,
}

/// Starts children as new processes of this binary in `mode`. Standard streams are
/// inherited, so a console child's output appears in the parent's.
pub fn launcher(mode: Mode) -> Launcher {
    Box::new(move |spec: &ChildSpec| {
        let exe = std::env::current_exe()
            .map_err(|e| StartError::Failed(format!("cannot find the winterp binary: {e}")))?;
        let json = spec.child.spec_file();
        let launch = ChildLaunch::from_spec(spec, mode.frames_are_ticks);
        let text = serde_json::to_string(&launch).map_err(|e| StartError::Failed(e.to_string()))?;
        std::fs::write(&json, text)
            .map_err(|e| StartError::Failed(format!("cannot write {}: {e}", json.display())))?;
        let mut cmd = Command::new(exe);
        if mode.headless {
            cmd.arg("--headless");
        }
        if mode.deterministic {
            cmd.arg("--deterministic");
        }
        if let Some(n) = mode.frames {
            cmd.arg("--frames").arg(n.to_string());
        }
        if let Some(v) = &mode.winver {
            cmd.arg("--winver").arg(v);
        }
        if mode.stub_unimplemented {
            cmd.arg("--stub-unimplemented");
        }
        if mode.trace_api {
            cmd.arg("--trace-api");
        }
        if let Some(n) = mode.max_instructions {
            cmd.arg("--max-instructions").arg(n.to_string());
        }
        cmd.arg("--child-spec").arg(&json).arg(&spec.program);
        cmd.stdin(Stdio::inherit())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit());
        cmd.spawn().map_err(|e| {
            let _ = std::fs::remove_file(&json);
            StartError::Failed(format!("cannot start {}: {e}", spec.program.display()))
        })
    })
}
