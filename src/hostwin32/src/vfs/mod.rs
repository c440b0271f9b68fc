//! The sandboxed virtual file system behind the Win32 file APIs.
//!
//! The guest sees one drive. The program's folder appears at a configured guest
//! directory (`C:\GAMES\FOO`), the directory's ancestors exist as otherwise empty
//! directories, and `C:\WINDOWS`, `C:\WINDOWS\SYSTEM` and `C:\WINDOWS\TEMP` exist
//! for GetWindowsDirectory, GetSystemDirectory and GetTempPath.
//!
//! # Where writes go
//!
//! Everything the guest writes lands in `overlay_dir/drive_c/` (the letter is the
//! configured drive's), a copy-on-write layer over the program folder (see
//! `overlay.rs` for the lookup rules):
//! - opening an original file for writing first copies it to the overlay (keeping
//!   its modification time); truncating opens skip the copy;
//! - new files and directories are created in the overlay with the guest's spelling;
//! - deleting an original file or directory records a whiteout in
//!   `overlay_dir/drive_c.state` (beside, never inside, the guest-visible tree),
//!   which hides it from then on;
//! - listings merge both trees minus the whiteouts.
//!
//! With `allow_writes_to_original`, paths inside the guest directory are read and
//! written in the program folder directly (no copy-up, no whiteouts; an overlay
//! left from earlier runs is not consulted there). Everything outside it still goes
//! to the overlay.
//!
//! # What cannot escape
//!
//! Guest paths are parsed by Win32 rules (`path.rs`): `..` stops at the root, `/` is
//! a separator so a host path like `/etc/passwd` is just `C:\etc\passwd` inside the
//! sandbox, other drive letters give ERROR_PATH_NOT_FOUND, `\\?\`, `\??\` and
//! stream names (`file:stream`) give ERROR_INVALID_NAME, UNC paths give
//! ERROR_BAD_NETPATH, and DOS device names come back as [`Device`] for the caller
//! to map (CON to the console, NUL to a null handle). Host symlinks are followed
//! only when their canonical target stays inside the tree they are in and is not
//! one of the link's ancestors; the others are invisible, and files are opened
//! with O_NOFOLLOW so nothing is reached through a link that was not checked. The
//! overlay and program folders must not contain each other, and the guest
//! directory and its ancestors cannot be removed or renamed (they hold the
//! running program).
//!
//! With `allow_writes_to_original` and a guest directory at the drive root, the
//! program folder is the whole drive, so `WINDOWS\TEMP` is created inside it.
//!
//! # Attributes
//!
//! File attributes live in the sidecar beside the whiteouts, never in host
//! permissions: files default to FILE_ATTRIBUTE_ARCHIVE, directories to
//! FILE_ATTRIBUTE_DIRECTORY, and what SetFileAttributes stores is what
//! GetFileAttributes and FindFirstFile report. FILE_ATTRIBUTE_READONLY is enforced:
//! such a file cannot be opened for writing, truncated, replaced or deleted.
//!
//! # Open files
//!
//! Share modes are enforced process-wide between all opens of a name, and every
//! open of a file sees the same bytes even when a later writer copies the
//! original up into the overlay (see `share.rs`).
//!
//! # Not modelled
//!
//! 8.3 short names.

mod access;
mod error;
mod host;
mod modify;
mod overlay;
mod path;
mod pattern;
mod query;
mod share;
mod state;

#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

pub use error::*;
pub use path::{Device, MAX_PATH};
pub use pattern::Pattern;
pub use share::{
    Access, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_VALID_FLAGS, FILE_SHARE_WRITE, HostFile,
    OpenGuard,
};

use overlay::Layers;
use path::{GuestPath, Parsed};
use share::Opens;
use state::Sidecar;

pub const FILE_ATTRIBUTE_READONLY: u32 = 0x1;
pub const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;
pub const FILE_ATTRIBUTE_SYSTEM: u32 = 0x4;
pub const FILE_ATTRIBUTE_DIRECTORY: u32 = 0x10;
pub const FILE_ATTRIBUTE_ARCHIVE: u32 = 0x20;
pub const FILE_ATTRIBUTE_NORMAL: u32 = 0x80;
pub const FILE_ATTRIBUTE_TEMPORARY: u32 = 0x100;
pub const FILE_ATTRIBUTE_OFFLINE: u32 = 0x1000;
pub const FILE_ATTRIBUTE_NOT_CONTENT_INDEXED: u32 = 0x2000;

/// The attributes SetFileAttributes may change; the rest are ignored, as on Windows.
const SETTABLE_ATTRIBUTES: u32 = FILE_ATTRIBUTE_READONLY
    | FILE_ATTRIBUTE_HIDDEN
    | FILE_ATTRIBUTE_SYSTEM
    | FILE_ATTRIBUTE_ARCHIVE
    | FILE_ATTRIBUTE_TEMPORARY
    | FILE_ATTRIBUTE_OFFLINE
    | FILE_ATTRIBUTE_NOT_CONTENT_INDEXED;

/// Where a program's files come from and where its writes go.
#[derive(Clone, Debug)]
pub struct VfsConfig {
    /// The host folder holding the program.
    pub program_dir: PathBuf,
    /// Where that folder appears in the guest, e.g. `C:\GAMES\FOO`; its drive
    /// letter is the guest's only drive.
    pub guest_dir: String,
    /// The per-program writable folder (in the user's data directory).
    pub overlay_dir: PathBuf,
    /// Write inside the program folder itself instead of the overlay.
    pub allow_writes_to_original: bool,
}

impl VfsConfig {
    /// The guest directory a host folder gets by default: its path on drive C:,
    /// upper-cased, with characters Windows forbids replaced by `_`
    /// (`/games/foo` → `C:\GAMES\FOO`).
    pub fn default_guest_dir(program_dir: &Path) -> String {
        let mut s = String::from("C:");
        for c in program_dir.components() {
            if let std::path::Component::Normal(os) = c {
                let name: String = os
                    .to_string_lossy()
                    .chars()
                    .map(|ch| {
                        if matches!(ch, '<' | '>' | ':' | '"' | '|' | '*' | '?' | '\\')
                            || (ch as u32) < 0x20
                        {
                            '_'
                        } else {
                            path::upcase(ch)
                        }
                    })
                    .collect();
                let mut name = name.trim_end_matches(['.', ' ']).to_string();
                if name.is_empty() {
                    continue;
                }
                if path::device_name(&name).is_some() {
                    name.push('_');
                }
                s.push('\\');
                s.push_str(&name);
            }
        }
        if s.len() == 2 {
            s.push('\\');
        }
        s
    }
}

/// How CreateFile treats an existing or missing file (the Win32 values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreationDisposition {
    CreateNew = 1,
    CreateAlways = 2,
    OpenExisting = 3,
    OpenAlways = 4,
    TruncateExisting = 5,
}

impl CreationDisposition {
    pub fn from_win32(v: u32) -> Option<CreationDisposition> {
        Some(match v {
            1 => CreationDisposition::CreateNew,
            2 => CreationDisposition::CreateAlways,
            3 => CreationDisposition::OpenExisting,
            4 => CreationDisposition::OpenAlways,
            5 => CreationDisposition::TruncateExisting,
            _ => return None,
        })
    }
}

/// The parts of a CreateFile call the VFS needs.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// Read access (GENERIC_READ, FILE_READ_DATA, FILE_EXECUTE).
    pub read: bool,
    /// Write access (GENERIC_WRITE, FILE_WRITE_DATA, FILE_APPEND_DATA).
    pub write: bool,
    /// DELETE access (also implied by FILE_FLAG_DELETE_ON_CLOSE); it only takes
    /// part in the sharing check.
    pub delete: bool,
    /// dwShareMode: FILE_SHARE_* bits.
    pub share: u32,
    pub disposition: CreationDisposition,
    /// FILE_ATTRIBUTE_* from dwFlagsAndAttributes, for files this call creates.
    pub attributes: u32,
    /// FILE_FLAG_BACKUP_SEMANTICS: directories may be opened (for reading).
    pub backup_semantics: bool,
}

impl OpenOptions {
    /// GENERIC_READ, OPEN_EXISTING, sharing reading and writing.
    pub fn read() -> OpenOptions {
        OpenOptions {
            read: true,
            write: false,
            delete: false,
            share: FILE_SHARE_READ | FILE_SHARE_WRITE,
            disposition: CreationDisposition::OpenExisting,
            attributes: FILE_ATTRIBUTE_NORMAL,
            backup_semantics: false,
        }
    }

    /// GENERIC_READ | GENERIC_WRITE with the given disposition, sharing reading
    /// and writing.
    pub fn read_write(disposition: CreationDisposition) -> OpenOptions {
        OpenOptions {
            read: true,
            write: true,
            delete: false,
            share: FILE_SHARE_READ | FILE_SHARE_WRITE,
            disposition,
            attributes: FILE_ATTRIBUTE_NORMAL,
            backup_semantics: false,
        }
    }
}

/// A file opened through the VFS.
#[derive(Debug)]
pub struct VfsFile {
    /// The host file; it may be repointed while open (see [`HostFile`]).
    pub host: Arc<HostFile>,
    /// The open's place in the sharing table: keep it as long as the handle.
    pub open: OpenGuard,
    /// The full guest path, in the spelling the directory shows.
    pub path: String,
    /// The file existed before the call: with OPEN_ALWAYS and CREATE_ALWAYS the
    /// Win32 layer sets ERROR_ALREADY_EXISTS while succeeding.
    pub existed: bool,
}

/// What CreateFile opened.
#[derive(Debug)]
pub enum Opened {
    File(VfsFile),
    /// A directory opened with FILE_FLAG_BACKUP_SEMANTICS; there is no host handle,
    /// the caller answers queries with [`Vfs::metadata`] on `path`.
    Directory {
        path: String,
        /// The open's place in the sharing table: keep it as long as the handle.
        open: OpenGuard,
    },
    Device(Device),
}

/// Creation, last-access and last-write times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileTimes {
    pub creation: SystemTime,
    pub last_access: SystemTime,
    pub last_write: SystemTime,
}

/// What GetFileAttributesEx reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metadata {
    pub is_dir: bool,
    pub size: u64,
    pub times: FileTimes,
    /// FILE_ATTRIBUTE_* including FILE_ATTRIBUTE_DIRECTORY; FILE_ATTRIBUTE_NORMAL
    /// when a file has no other attribute.
    pub attributes: u32,
}

/// One FindFirstFile/FindNextFile result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub is_dir: bool,
    pub size: u64,
    pub times: FileTimes,
    pub attributes: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
}

/// What a guest path refers to (see [`Vfs::resolve`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    Device(Device),
    Path {
        /// The full guest path (GetFullPathName form).
        full: String,
        /// `None` if nothing exists there (the parent does).
        kind: Option<EntryKind>,
    },
}

struct State {
    side: Sidecar,
    cwd: GuestPath,
}

/// One process's view of the file system. Shared by the process's threads: every
/// operation takes `&self` and serialises on an internal lock, so a copy-up and
/// the whiteout that goes with it are never seen half done.
pub struct Vfs {
    layers: Layers,
    drive: char,
    guest_dir: GuestPath,
    state: Mutex<State>,
    /// Checked and changed only while `state` is locked, so a check and the
    /// open it allows are one step; closing an open needs only this table.
    opens: Opens,
    /// The per-program writable folder (canonical), for other per-program state
    /// kept beside the drive trees (the registry file).
    overlay_dir: PathBuf,
}

impl std::fmt::Debug for Vfs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vfs")
            .field("guest_dir", &self.guest_dir.display())
            .finish_non_exhaustive()
    }
}

/// The absolute host path `p` will have once created: its longest existing prefix
/// canonicalised, the rest appended.
fn resolve_existing_prefix(p: &Path) -> std::io::Result<PathBuf> {
    let abs = std::path::absolute(p)?;
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        match fs::canonicalize(existing) {
            Ok(c) => return Ok(rest.iter().rev().fold(c, |acc: PathBuf, r| acc.join(r))),
            Err(_) => {
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Ok(abs);
                };
                rest.push(name.to_os_string());
                existing = parent;
            }
        }
    }
}

fn config_err(what: &str, p: &Path, e: std::io::Error) -> VfsError {
    VfsError::Config(format!("{what} {}: {e}", p.display()))
}

impl Vfs {
    /// Sets up the sandbox: checks the folders, creates the overlay tree and the
    /// guest's Windows directories, and loads the whiteouts and attributes.
    pub fn new(config: VfsConfig) -> Result<Vfs, VfsError> {
        let guest_dir = path::parse_guest_dir(&config.guest_dir)?;
        let program_root = fs::canonicalize(&config.program_dir)
            .map_err(|e| config_err("program folder", &config.program_dir, e))?;
        if !program_root.is_dir() {
            return Err(VfsError::Config(format!(
                "program folder {} is not a directory",
                program_root.display()
            )));
        }
        // Check before creating anything, so a bad configuration writes nothing
        // into the program folder.
        let overlay_target = resolve_existing_prefix(&config.overlay_dir)
            .map_err(|e| config_err("overlay folder", &config.overlay_dir, e))?;
        if overlay_target.starts_with(&program_root) || program_root.starts_with(&overlay_target) {
            return Err(VfsError::Config(format!(
                "overlay folder {} and program folder {} must not contain each other",
                overlay_target.display(),
                program_root.display()
            )));
        }
        fs::create_dir_all(&config.overlay_dir)
            .map_err(|e| config_err("overlay folder", &config.overlay_dir, e))?;
        let overlay_dir = fs::canonicalize(&config.overlay_dir)
            .map_err(|e| config_err("overlay folder", &config.overlay_dir, e))?;
        let upper = overlay_dir.join(format!("drive_{}", guest_dir.drive.to_ascii_lowercase()));
        fs::create_dir_all(&upper).map_err(|e| config_err("overlay folder", &upper, e))?;
        let overlay_root =
            fs::canonicalize(&upper).map_err(|e| config_err("overlay folder", &upper, e))?;
        if !overlay_root.starts_with(&overlay_dir) {
            return Err(VfsError::Config(format!(
                "{} leaves the overlay folder",
                upper.display()
            )));
        }
        let state_file = overlay_dir.join(format!(
            "drive_{}.state",
            guest_dir.drive.to_ascii_lowercase()
        ));
        let side = Sidecar::load(&state_file)?;
        let layers = Layers::new(
            overlay_root,
            program_root,
            guest_dir.comps.clone(),
            config.allow_writes_to_original,
        );
        let vfs = Vfs {
            layers,
            drive: guest_dir.drive,
            guest_dir: guest_dir.clone(),
            state: Mutex::new(State {
                side,
                cwd: guest_dir,
            }),
            opens: Opens::default(),
            overlay_dir,
        };
        for dir in [
            &["WINDOWS"][..],
            &["WINDOWS", "SYSTEM"],
            &["WINDOWS", "TEMP"],
        ] {
            vfs.ensure_dir(dir)?;
        }
        Ok(vfs)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves the state consistent
        // (every change is a single step), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The per-program writable folder (host path), where state that is not a guest
    /// file lives beside the drive trees.
    pub fn overlay_dir(&self) -> &Path {
        &self.overlay_dir
    }

    /// The guest's drive letter.
    pub fn drive(&self) -> char {
        self.drive
    }

    /// Where the program folder appears, e.g. `C:\GAMES\FOO`.
    pub fn guest_dir(&self) -> String {
        self.guest_dir.display()
    }

    /// GetWindowsDirectory.
    pub fn windows_dir(&self) -> String {
        format!("{}:\\WINDOWS", self.drive)
    }

    /// GetSystemDirectory (Windows 9x layout).
    pub fn system_dir(&self) -> String {
        format!("{}:\\WINDOWS\\SYSTEM", self.drive)
    }

    /// GetTempPath: with the trailing backslash GetTempPath returns.
    pub fn temp_dir(&self) -> String {
        format!("{}:\\WINDOWS\\TEMP\\", self.drive)
    }

    /// GetCurrentDirectory (no trailing backslash except at the root).
    pub fn current_dir(&self) -> String {
        self.lock().cwd.display()
    }

    /// GetFullPathName: the absolute, normalised form of `path` against the current
    /// directory. Pure string work (the file need not exist, other drive letters
    /// are allowed); device names give `\\.\NAME`. A `\\?\` path is already
    /// final and comes back as it is.
    pub fn full_path(&self, path: &str) -> Result<String, VfsError> {
        if path.starts_with("\\\\?\\") {
            return Ok(path.to_string());
        }
        let st = self.lock();
        Ok(match path::parse(path, &st.cwd)? {
            Parsed::Device(d) => format!("\\\\.\\{}", d.name()),
            Parsed::Path(p) => p.display(),
        })
    }

    /// SetCurrentDirectory: `path` must be an existing directory on the guest drive.
    pub fn set_current_dir(&self, path: &str) -> Result<(), VfsError> {
        let mut st = self.lock();
        let p = match path::parse(path, &st.cwd)? {
            Parsed::Device(_) => return Err(VfsError::NotADirectory(path.to_string())),
            Parsed::Path(p) => p.without_trailing_sep(),
        };
        if p.drive != self.drive {
            return Err(VfsError::PathNotFound(path.to_string()));
        }
        if !p.comps.is_empty() {
            let walk = self.layers.walk(&st.side, &p.comps, path)?;
            match walk.entry {
                None => return Err(VfsError::FileNotFound(path.to_string())),
                Some(e) if !e.is_dir() => return Err(VfsError::NotADirectory(path.to_string())),
                Some(_) => {}
            }
        }
        st.cwd = p;
        Ok(())
    }
}
