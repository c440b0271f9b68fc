//! Plumbing shared by the file operations: resolving a guest path to a walked
//! entry, host file helpers that never follow a link, attributes and metadata.

use std::fs;
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use super::overlay::{Dir, Entry, Lower, LowerDir, Walk};
use super::path::{self, Device, GuestPath, Parsed};
use super::state::Sidecar;
use super::*;

/// A parsed path on the guest drive.
pub(super) enum Target {
    Device(Device),
    Root,
    Path(GuestPath),
}

/// A walked path with at least one component.
pub(super) struct Found {
    pub p: GuestPath,
    pub walk: Walk,
    pub key: String,
    pub shown: String,
}

impl Found {
    /// The name to create: the guest's spelling.
    pub fn new_name(&self) -> &str {
        self.p.comps.last().map(String::as_str).unwrap_or("")
    }

    /// The full guest path in the spelling the directory shows.
    pub fn visible(&self, drive: char) -> String {
        let mut names = self.walk.parent.names.clone();
        names.push(match &self.walk.entry {
            Some(e) => e.name.clone(),
            None => self.new_name().to_string(),
        });
        format!("{drive}:\\{}", names.join("\\"))
    }
}

pub(super) fn times_of(meta: &fs::Metadata) -> FileTimes {
    let write = meta.modified().unwrap_or(UNIX_EPOCH);
    FileTimes {
        creation: meta.created().unwrap_or(write),
        last_access: meta.accessed().unwrap_or(write),
        last_write: write,
    }
}

/// Whether `key` lies strictly below `prefix`.
pub(super) fn is_under(key: &str, prefix: &str) -> bool {
    key.len() > prefix.len() && key.starts_with(prefix) && key.as_bytes()[prefix.len()] == b'\\'
}

impl Vfs {
    pub(super) fn target(&self, cwd: &GuestPath, path: &str) -> Result<Target, VfsError> {
        match path::parse(path, cwd)? {
            Parsed::Device(d) => Ok(Target::Device(d)),
            Parsed::Path(p) if p.drive != self.drive => {
                Err(VfsError::PathNotFound(path.to_string()))
            }
            Parsed::Path(p) if p.comps.is_empty() => Ok(Target::Root),
            Parsed::Path(p) => Ok(Target::Path(p)),
        }
    }

    /// Parses and walks a path that must name something other than a device or the
    /// root (the root gets `on_root`'s error).
    pub(super) fn find(
        &self,
        side: &Sidecar,
        cwd: &GuestPath,
        path: &str,
        on_root: fn(String) -> VfsError,
    ) -> Result<Found, VfsError> {
        let p = match self.target(cwd, path)? {
            Target::Device(device) => {
                return Err(VfsError::Device {
                    path: path.to_string(),
                    device,
                });
            }
            Target::Root => return Err(on_root(path.to_string())),
            Target::Path(p) => p,
        };
        let shown = p.display();
        let walk = self.layers.walk(side, &p.comps, &shown)?;
        let key = p.key();
        Ok(Found {
            p,
            walk,
            key,
            shown,
        })
    }

    /// Whether the entry is the guest directory or one of its ancestors.
    pub(super) fn holds_program(&self, f: &Found) -> bool {
        let keys: Vec<String> = f.p.comps.iter().map(|c| path::fold(c)).collect();
        self.layers.holds_program(&keys)
    }

    /// The attributes the guest sees for `key`.
    pub(super) fn attributes(side: &Sidecar, key: &str, is_dir: bool) -> u32 {
        if is_dir {
            return side.attrs(key).unwrap_or(0) | FILE_ATTRIBUTE_DIRECTORY;
        }
        match side.attrs(key).unwrap_or(FILE_ATTRIBUTE_ARCHIVE) {
            0 => FILE_ATTRIBUTE_NORMAL,
            a => a,
        }
    }

    pub(super) fn readonly(side: &Sidecar, key: &str) -> bool {
        side.attrs(key).unwrap_or(0) & FILE_ATTRIBUTE_READONLY != 0
    }

    /// Stores attributes, leaving the sidecar empty for the defaults.
    pub(super) fn store_attributes(
        side: &mut Sidecar,
        key: &str,
        is_dir: bool,
        attrs: u32,
    ) -> Result<(), VfsError> {
        let value = attrs & SETTABLE_ATTRIBUTES;
        let default = if is_dir { 0 } else { FILE_ATTRIBUTE_ARCHIVE };
        side.set_attrs(key, (value != default).then_some(value))
    }

    pub(super) fn entry_metadata(
        &self,
        side: &Sidecar,
        key: &str,
        e: &Entry,
        shown: &str,
    ) -> Result<Metadata, VfsError> {
        let path = match (&e.upper, &e.lower) {
            (Some(u), _) => u.path.as_path(),
            (None, Some(Lower::Host(h))) => h.path.as_path(),
            // A virtual directory: the program folder's times.
            _ => self.layers.program_root(),
        };
        let meta = fs::symlink_metadata(path).map_err(|err| VfsError::io(shown, err))?;
        let is_dir = e.is_dir();
        Ok(Metadata {
            is_dir,
            size: if meta.is_dir() { 0 } else { meta.len() },
            times: times_of(&meta),
            attributes: Self::attributes(side, key, is_dir),
        })
    }

    pub(super) fn dir_metadata(
        &self,
        side: &Sidecar,
        dir: &Dir,
        shown: &str,
    ) -> Result<Metadata, VfsError> {
        let path = match (&dir.upper, &dir.lower) {
            (Some((_, p)), _) => p.as_path(),
            (None, Some(LowerDir::Host(p))) => p.as_path(),
            _ => self.layers.program_root(),
        };
        let meta = fs::symlink_metadata(path).map_err(|e| VfsError::io(shown, e))?;
        Ok(Metadata {
            is_dir: true,
            size: 0,
            times: times_of(&meta),
            attributes: Self::attributes(side, &dir.key(), true),
        })
    }

    /// The host file that takes writes for the file entry `key`, copying an
    /// original into the upper tree first (just creating it empty when it is about
    /// to be truncated anyway). Opens still reading the original follow the copy.
    pub(super) fn writable(
        &self,
        parent: &Dir,
        e: &Entry,
        key: &str,
        truncate: bool,
        shown: &str,
    ) -> Result<PathBuf, VfsError> {
        if let Some(u) = e.upper_file() {
            return Ok(u.path.clone());
        }
        let Some(Lower::Host(src)) = &e.lower else {
            return Err(VfsError::AccessDenied(shown.to_string()));
        };
        let (_, dir) = self.layers.ensure_upper(parent)?;
        let dest = dir.join(&e.name);
        if truncate {
            self.layers.create_file(&dest, false, shown)?;
        } else {
            self.layers.copy_file(&src.path, &dest, shown)?;
        }
        log::debug!("vfs: copied {shown} to the overlay");
        self.opens.rehost(key, &dest, shown)?;
        Ok(dest)
    }

    /// Makes `comps` exist as directories (start-up: C:\WINDOWS and friends).
    pub(super) fn ensure_dir(&self, comps: &[&str]) -> Result<(), VfsError> {
        let st = self.lock();
        let mut dir = self.layers.root_dir();
        for c in comps {
            let entry = match self.layers.child(&st.side, &dir, c)? {
                Some(e) => e,
                None => {
                    let (_, up) = self.layers.ensure_upper(&dir)?;
                    self.layers.mkdir(&up.join(c), c)?;
                    self.layers
                        .child(&st.side, &dir, c)?
                        .ok_or_else(|| VfsError::Config(format!("cannot create {c}")))?
                }
            };
            dir = self
                .layers
                .enter(&dir, &entry)
                .ok_or_else(|| VfsError::Config(format!("{c} is a file, not a directory")))?;
        }
        Ok(())
    }
}
