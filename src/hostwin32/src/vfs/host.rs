//! The host side of the two trees: case-insensitive lookup, listing, the checks
//! that keep symlinks and special files out, and every change the VFS makes to
//! host directories.
//!
//! Case-insensitive lookup tries the exact spelling first (one `lstat`), then a
//! per-directory index from case-folded name to host names. An index is rebuilt
//! when its directory's modification time changes, and every change the VFS itself
//! makes goes through [`Layers::changed`], which updates the index in place, so
//! creating many files in one directory stays linear instead of rescanning the
//! directory for each new name. A change made by someone else on the host within
//! the same timestamp tick as the VFS's last change to that directory can go
//! unnoticed until the directory changes again.
//!
//! Among host names differing only in case, the exact spelling wins, then the
//! smallest name in byte order, so the choice is stable.

use std::collections::HashMap;
use std::fs;
use std::io::{self, ErrorKind};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::error::VfsError;
use super::overlay::{HostItem, Layers, Root};
use super::path::{fold, is_guest_visible_name};

/// Past this many indexed directories the cache starts over, bounding memory.
const MAX_INDEXED_DIRS: usize = 4096;

struct DirNames {
    mtime: Option<SystemTime>,
    /// Folded name → host names with that folding, sorted.
    by_fold: HashMap<String, Vec<String>>,
}

/// The per-directory name indexes.
#[derive(Default)]
pub struct NameCache {
    dirs: Mutex<HashMap<PathBuf, DirNames>>,
}

fn mtime_of(dir: &Path) -> io::Result<Option<SystemTime>> {
    fs::metadata(dir).map(|m| m.modified().ok())
}

/// Opens a host file without following a symlink in its last component (the
/// paths handed here are already resolved, so a link there means the host
/// changed under us).
pub fn open_host(
    path: &Path,
    read: bool,
    write: bool,
    truncate: bool,
    shown: &str,
) -> Result<fs::File, VfsError> {
    fs::OpenOptions::new()
        .read(read || !write)
        .write(write)
        .truncate(truncate)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| VfsError::io(shown, e))
}

/// Copies the rest of `from` into `to` and gives `to` the source's modification
/// time (a copy-up is not a modification, and CopyFile keeps it too).
pub fn copy_into(from: &mut fs::File, to: &mut fs::File, shown: &str) -> Result<(), VfsError> {
    io::copy(from, to).map_err(|e| VfsError::io(shown, e))?;
    let mtime = from
        .metadata()
        .and_then(|m| m.modified())
        .map_err(|e| VfsError::io(shown, e))?;
    to.set_modified(mtime).map_err(|e| VfsError::io(shown, e))
}

fn is_symlink(p: &Path) -> bool {
    fs::symlink_metadata(p)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false)
}

impl Layers {
    /// Finds `comp` in the host directory `dir` of tree `root`, case-insensitively.
    pub fn find(&self, root: Root, dir: &Path, comp: &str) -> Result<Option<HostItem>, VfsError> {
        if let Some(item) = self.classify(root, dir, comp)? {
            return Ok(Some(item));
        }
        let folded = fold(comp);
        let candidates = self.with_index(dir, |ix| ix.get(&folded).cloned().unwrap_or_default())?;
        for n in candidates.iter().filter(|n| *n != comp) {
            if let Some(item) = self.classify(root, dir, n)? {
                return Ok(Some(item));
            }
        }
        Ok(None)
    }

    /// Every guest-visible entry of a host directory, one per folded name.
    pub fn list(&self, root: Root, dir: &Path) -> Result<Vec<HostItem>, VfsError> {
        let groups: Vec<Vec<String>> = self.with_index(dir, |ix| ix.values().cloned().collect())?;
        let mut out = Vec::with_capacity(groups.len());
        for names in groups {
            for n in names {
                if let Some(item) = self.classify(root, dir, &n)? {
                    out.push(item);
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Runs `f` on the (fresh) name index of `dir`; a missing directory has none.
    fn with_index<T>(
        &self,
        dir: &Path,
        f: impl FnOnce(&HashMap<String, Vec<String>>) -> T,
    ) -> Result<T, VfsError> {
        let mut dirs = self
            .names
            .dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mtime = match mtime_of(dir) {
            Ok(t) => t,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                dirs.remove(dir);
                return Ok(f(&HashMap::new()));
            }
            Err(e) => return Err(VfsError::io(dir.display().to_string(), e)),
        };
        if let Some(ix) = dirs.get(dir)
            && ix.mtime.is_some()
            && ix.mtime == mtime
        {
            return Ok(f(&ix.by_fold));
        }
        let mut by_fold: HashMap<String, Vec<String>> = HashMap::new();
        for n in read_names(dir)? {
            by_fold.entry(fold(&n)).or_default().push(n);
        }
        for v in by_fold.values_mut() {
            v.sort();
        }
        let out = f(&by_fold);
        if dirs.len() >= MAX_INDEXED_DIRS {
            dirs.clear();
        }
        dirs.insert(dir.to_path_buf(), DirNames { mtime, by_fold });
        Ok(out)
    }

    /// Records that the VFS created, removed or renamed the host entry `path`.
    fn changed(&self, path: &Path) {
        let mut dirs = self
            .names
            .dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Whatever was indexed at or below `path` belonged to a different entry.
        dirs.retain(|k, _| !k.starts_with(path));
        let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
        else {
            return;
        };
        let Some(ix) = dirs.get_mut(dir) else {
            return;
        };
        let group = ix.by_fold.entry(fold(name)).or_default();
        group.retain(|n| n != name);
        if fs::symlink_metadata(path).is_ok() && is_guest_visible_name(name) {
            group.push(name.to_string());
            group.sort();
        }
        match mtime_of(dir) {
            Ok(t) => ix.mtime = t,
            Err(_) => {
                dirs.remove(dir);
            }
        }
    }

    /// The entry `name` of host directory `dir`, if the guest may see it: a
    /// regular file or directory, or a symlink whose canonical target is one, stays
    /// inside `root`'s tree and is not an ancestor of the link (the returned `path`
    /// is then the target).
    fn classify(&self, root: Root, dir: &Path, name: &str) -> Result<Option<HostItem>, VfsError> {
        if !is_guest_visible_name(name) {
            return Ok(None);
        }
        let entry_path = dir.join(name);
        let meta = match fs::symlink_metadata(&entry_path) {
            Ok(m) => m,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None);
            }
            Err(e) => return Err(VfsError::io(entry_path.display().to_string(), e)),
        };
        let (path, meta) = if meta.file_type().is_symlink() {
            let Ok(target) = fs::canonicalize(&entry_path) else {
                return Ok(None); // dangling or looping
            };
            if !target.starts_with(self.root_path(root)) {
                log::debug!(
                    "vfs: ignoring symlink {} -> {} (leaves the sandbox)",
                    entry_path.display(),
                    target.display()
                );
                return Ok(None);
            }
            // A link to one of its own ancestors would make the tree infinite
            // (and a directory rename that copies it would never end).
            if dir.starts_with(&target) {
                log::debug!(
                    "vfs: ignoring symlink {} (loops back to {})",
                    entry_path.display(),
                    target.display()
                );
                return Ok(None);
            }
            match fs::symlink_metadata(&target) {
                Ok(m) => (target, m),
                Err(_) => return Ok(None),
            }
        } else {
            (entry_path.clone(), meta)
        };
        if !meta.is_file() && !meta.is_dir() {
            return Ok(None);
        }
        Ok(Some(HostItem {
            root,
            path,
            entry_path,
            name: name.to_string(),
            is_dir: meta.is_dir(),
        }))
    }

    /// Creates a host directory; never reuses anything already there.
    pub fn mkdir(&self, path: &Path, shown: &str) -> Result<(), VfsError> {
        let r = fs::create_dir(path);
        self.changed(path);
        r.map_err(|e| match e.kind() {
            // Something the guest cannot see (an escaping symlink, a FIFO, a name
            // it cannot spell) holds the name: never write through it.
            ErrorKind::AlreadyExists => VfsError::AccessDenied(shown.to_string()),
            _ => VfsError::io(shown, e),
        })
    }

    /// Creates a new host file; never follows or replaces anything already there.
    pub fn create_file(&self, path: &Path, read: bool, shown: &str) -> Result<fs::File, VfsError> {
        let r = fs::OpenOptions::new()
            .read(read)
            .write(true)
            .create_new(true)
            .open(path);
        self.changed(path);
        r.map_err(|e| match e.kind() {
            ErrorKind::AlreadyExists => VfsError::AccessDenied(shown.to_string()),
            _ => VfsError::io(shown, e),
        })
    }

    /// Copies a host file into a new host file.
    pub fn copy_file(&self, src: &Path, dest: &Path, shown: &str) -> Result<(), VfsError> {
        let mut from = open_host(src, true, false, false, shown)?;
        let mut to = self.create_file(dest, false, shown)?;
        copy_into(&mut from, &mut to, shown)
    }

    /// Renames a host entry. Directories report a cross-device rename to the
    /// caller (which copies the merged view); files are copied and removed.
    pub fn rename(
        &self,
        src: &Path,
        dest: &Path,
        is_dir: bool,
        shown: &str,
    ) -> Result<(), VfsError> {
        let r = fs::rename(src, dest);
        self.changed(src);
        self.changed(dest);
        match r {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::CrossesDevices && !is_dir => {
                self.copy_file(src, dest, shown)?;
                self.remove(src, false, shown)
            }
            Err(e) => Err(VfsError::io(shown, e)),
        }
    }

    /// Removes an upper-tree entry: the link itself for a symlink, the whole tree
    /// for a directory (`remove_dir_all` does not follow links inside it).
    pub fn remove(&self, entry_path: &Path, is_dir: bool, shown: &str) -> Result<(), VfsError> {
        let r = if is_dir && !is_symlink(entry_path) {
            fs::remove_dir_all(entry_path)
        } else {
            fs::remove_file(entry_path)
        };
        self.changed(entry_path);
        r.map_err(|e| VfsError::io(shown, e))
    }

    /// Removes an empty upper-tree directory (or the link that stands for it).
    pub fn remove_empty_dir(&self, entry_path: &Path, shown: &str) -> Result<(), VfsError> {
        let r = if is_symlink(entry_path) {
            fs::remove_file(entry_path)
        } else {
            fs::remove_dir(entry_path)
        };
        self.changed(entry_path);
        r.map_err(|e| match e.kind() {
            // The merged view was empty, so what is left is invisible to the
            // guest; leave it to the host user.
            ErrorKind::DirectoryNotEmpty => VfsError::DirNotEmpty(shown.to_string()),
            _ => VfsError::io(shown, e),
        })
    }
}

/// The guest-visible names in a host directory.
fn read_names(dir: &Path) -> Result<Vec<String>, VfsError> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(VfsError::io(dir.display().to_string(), e)),
    };
    let mut names = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|e| VfsError::io(dir.display().to_string(), e))?;
        if let Ok(n) = ent.file_name().into_string()
            && is_guest_visible_name(&n)
        {
            names.push(n);
        }
    }
    Ok(names)
}
