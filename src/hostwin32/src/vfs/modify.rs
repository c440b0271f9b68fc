//! The operations that change the tree: CreateDirectory, RemoveDirectory,
//! DeleteFile, MoveFileEx and CopyFile, each following the documented behaviour
//! of its Win32 call.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use super::access::{Found, is_under};
use super::host::{copy_into, open_host};
use super::overlay::{Dir, Entry, Lower};
use super::state::Sidecar;
use super::*;

/// The share mode DeleteFile, RemoveDirectory and MoveFile open with: they
/// conflict only with opens that do not share delete.
const SHARE_ALL: u32 = FILE_SHARE_VALID_FLAGS;

impl Vfs {
    /// CreateDirectory.
    pub fn create_dir(&self, path: &str) -> Result<(), VfsError> {
        let st = self.lock();
        let f = self.find(&st.side, &st.cwd, path, VfsError::AlreadyExists)?;
        if f.walk.entry.is_some() {
            return Err(VfsError::AlreadyExists(f.shown));
        }
        let (_, dir) = self.layers.ensure_upper(&f.walk.parent)?;
        self.layers.mkdir(&dir.join(f.new_name()), &f.shown)
    }

    /// RemoveDirectory: only empty directories; the guest directory and its
    /// ancestors hold the running program and are refused.
    pub fn remove_dir(&self, path: &str) -> Result<(), VfsError> {
        let mut st = self.lock();
        let f = self.find(&st.side, &st.cwd, path, VfsError::AccessDenied)?;
        let e = f
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(f.shown.clone()))?;
        if !e.is_dir() {
            return Err(VfsError::NotADirectory(f.shown.clone()));
        }
        if self.holds_program(&f) {
            return Err(VfsError::AccessDenied(f.shown.clone()));
        }
        self.opens
            .check(&f.key, Access::DELETE, SHARE_ALL, &f.shown)?;
        if Self::readonly(&st.side, &f.key) {
            return Err(VfsError::AccessDenied(f.shown.clone()));
        }
        let dir = self
            .layers
            .enter(&f.walk.parent, e)
            .ok_or_else(|| VfsError::NotADirectory(f.shown.clone()))?;
        if !self.layers.entries(&st.side, &dir)?.is_empty() {
            return Err(VfsError::DirNotEmpty(f.shown.clone()));
        }
        if let Some(u) = &e.upper {
            self.layers.remove_empty_dir(&u.entry_path, &f.shown)?;
        }
        if e.lower.is_some() {
            st.side.add_whiteout(&f.key)?;
        } else {
            st.side.drop_whiteouts_below(&f.key)?;
        }
        self.opens.detach(&f.key);
        st.side.remove_attrs_under(&f.key)
    }

    /// DeleteFile. Refused with ERROR_SHARING_VIOLATION while the file is open
    /// without FILE_SHARE_DELETE; with it, the name goes at once and the open
    /// handles keep the removed file.
    pub fn delete_file(&self, path: &str) -> Result<(), VfsError> {
        let mut st = self.lock();
        let f = self.find(&st.side, &st.cwd, path, VfsError::AccessDenied)?;
        let e = f
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(f.shown.clone()))?;
        if e.is_dir() {
            return Err(VfsError::AccessDenied(f.shown.clone()));
        }
        if f.p.trailing_sep {
            return Err(VfsError::InvalidName(f.shown.clone()));
        }
        // DeleteFile opens the file for DELETE first, so sharing is checked before
        // the read-only attribute refuses the deletion itself.
        self.opens
            .check(&f.key, Access::DELETE, SHARE_ALL, &f.shown)?;
        if Self::readonly(&st.side, &f.key) {
            return Err(VfsError::AccessDenied(f.shown.clone()));
        }
        if let Some(u) = &e.upper {
            self.layers.remove(&u.entry_path, u.is_dir, &f.shown)?;
        }
        if e.lower.is_some() {
            st.side.add_whiteout(&f.key)?;
        }
        self.opens.detach(&f.key);
        st.side.remove_attrs_under(&f.key)
    }

    /// MoveFileEx (MoveFile is `replace_existing = false`). Files and directories
    /// move anywhere on the drive; directories that include original content are
    /// copied into the overlay and the originals whited out. Moving a directory
    /// into itself is refused with ERROR_ACCESS_DENIED.
    ///
    /// The source is opened for DELETE, so its opens must share delete
    /// (ERROR_SHARING_VIOLATION otherwise); a directory with anything open below
    /// it and a replaced target that is open are refused with ERROR_ACCESS_DENIED,
    /// as the FAT and NTFS drivers refuse them. Opens of a moved file follow it.
    pub fn rename(&self, from: &str, to: &str, replace_existing: bool) -> Result<(), VfsError> {
        let mut st = self.lock();
        let src = self.find(&st.side, &st.cwd, from, VfsError::AccessDenied)?;
        let dst = self.find(&st.side, &st.cwd, to, VfsError::AccessDenied)?;
        let e = src
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(src.shown.clone()))?;
        if self.holds_program(&src) {
            return Err(VfsError::AccessDenied(src.shown.clone()));
        }
        self.opens
            .check(&src.key, Access::DELETE, SHARE_ALL, &src.shown)?;
        if e.is_dir() && self.opens.any_below(&src.key) {
            return Err(VfsError::AccessDenied(src.shown.clone()));
        }
        if src.key == dst.key {
            return self.rename_case(&src, e, dst.new_name());
        }
        if e.is_dir() && is_under(&dst.key, &src.key) {
            return Err(VfsError::AccessDenied(dst.shown.clone()));
        }
        if let Some(t) = &dst.walk.entry {
            if !replace_existing {
                return Err(VfsError::AlreadyExists(dst.shown.clone()));
            }
            // MOVEFILE_REPLACE_EXISTING never replaces a directory or moves one
            // onto an existing name.
            if t.is_dir()
                || e.is_dir()
                || Self::readonly(&st.side, &dst.key)
                || self.opens.is_open(&dst.key)
            {
                return Err(VfsError::AccessDenied(dst.shown.clone()));
            }
            if let Some(u) = t.upper_file() {
                self.layers.remove(&u.entry_path, false, &dst.shown)?;
            }
        }
        let (_, dir) = self.layers.ensure_upper(&dst.walk.parent)?;
        let dest = dir.join(dst.new_name());
        if e.is_dir() {
            self.move_dir(&mut st.side, &src, e, &dest)?;
        } else {
            match e.upper_file() {
                Some(u) => self
                    .layers
                    .rename(&u.entry_path, &dest, false, &src.shown)?,
                None => {
                    let Some(Lower::Host(h)) = &e.lower else {
                        return Err(VfsError::AccessDenied(src.shown.clone()));
                    };
                    self.layers.copy_file(&h.path, &dest, &src.shown)?;
                }
            }
            if e.lower.is_some() {
                st.side.add_whiteout(&src.key)?;
            }
        }
        self.opens.rename(&src.key, &dst.key);
        if !e.is_dir() {
            // A move that copied (an original, or across host file systems) left
            // the opens on the old bytes' file.
            self.opens.rehost(&dst.key, &dest, &dst.shown)?;
        }
        st.side.move_attrs(&src.key, &dst.key)
    }

    fn move_dir(
        &self,
        side: &mut Sidecar,
        src: &Found,
        e: &Entry,
        dest: &Path,
    ) -> Result<(), VfsError> {
        if let (Some(u), None) = (&e.upper, &e.lower) {
            match self.layers.rename(&u.entry_path, dest, true, &src.shown) {
                // Whiteouts below referred to originals under the old name; the
                // directory has none, so they can never apply again.
                Ok(()) => return side.drop_whiteouts_below(&src.key),
                Err(VfsError::Io { source, .. }) if source.kind() == ErrorKind::CrossesDevices => {}
                Err(err) => return Err(err),
            }
        }
        let dir = self
            .layers
            .enter(&src.walk.parent, e)
            .ok_or_else(|| VfsError::NotADirectory(src.shown.clone()))?;
        self.copy_tree(side, &dir, dest, &src.shown)?;
        if let Some(u) = &e.upper {
            self.layers.remove(&u.entry_path, true, &src.shown)?;
        }
        if e.lower.is_some() {
            side.add_whiteout(&src.key)
        } else {
            side.drop_whiteouts_below(&src.key)
        }
    }

    /// Copies the merged contents of `dir` into a new host directory `dest`.
    fn copy_tree(
        &self,
        side: &Sidecar,
        dir: &Dir,
        dest: &Path,
        shown: &str,
    ) -> Result<(), VfsError> {
        self.layers.mkdir(dest, shown)?;
        for e in self.layers.entries(side, dir)? {
            let target = dest.join(&e.name);
            if let Some(sub) = self.layers.enter(dir, &e) {
                self.copy_tree(side, &sub, &target, shown)?;
            } else if let Some(h) = e.visible_file() {
                self.layers.copy_file(&h.path, &target, shown)?;
            }
        }
        Ok(())
    }

    /// A rename that changes only the case of the name.
    fn rename_case(&self, src: &Found, e: &Entry, new_name: &str) -> Result<(), VfsError> {
        if e.name == new_name {
            return Ok(());
        }
        match &e.upper {
            Some(u) => {
                let dest = u.entry_path.with_file_name(new_name);
                if fs::symlink_metadata(&dest).is_ok() {
                    return Err(VfsError::AccessDenied(src.shown.clone()));
                }
                self.layers
                    .rename(&u.entry_path, &dest, u.is_dir, &src.shown)
            }
            None => {
                // The upper tree's spelling wins, so a copy (or, for a directory, an
                // empty directory that merges with the original) renames it.
                let (_, dir) = self.layers.ensure_upper(&src.walk.parent)?;
                let dest = dir.join(new_name);
                match &e.lower {
                    Some(Lower::Host(h)) if !h.is_dir => {
                        self.layers.copy_file(&h.path, &dest, &src.shown)?;
                        self.opens.rehost(&src.key, &dest, &src.shown)
                    }
                    _ => self.layers.mkdir(&dest, &src.shown),
                }
            }
        }
    }

    /// CopyFile (`fail_if_exists` is bFailIfExists). Keeps the source's
    /// attributes and modification time.
    ///
    /// CopyFile reads the source with FILE_SHARE_READ | FILE_SHARE_DELETE, so a
    /// source open for writing (or not sharing reading) is a sharing violation, as
    /// is copying a file onto itself; an existing destination is written, so its
    /// opens must share writing.
    pub fn copy_file(&self, from: &str, to: &str, fail_if_exists: bool) -> Result<(), VfsError> {
        let mut st = self.lock();
        let src = self.find(&st.side, &st.cwd, from, VfsError::AccessDenied)?;
        let dst = self.find(&st.side, &st.cwd, to, VfsError::AccessDenied)?;
        let e = src
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(src.shown.clone()))?;
        let h = e
            .visible_file()
            .ok_or_else(|| VfsError::AccessDenied(src.shown.clone()))?;
        let read = Access {
            read: true,
            ..Access::default()
        };
        self.opens.check(
            &src.key,
            read,
            FILE_SHARE_READ | FILE_SHARE_DELETE,
            &src.shown,
        )?;
        if src.key == dst.key {
            return Err(VfsError::SharingViolation(dst.shown.clone()));
        }
        let mut from_file = open_host(&h.path, true, false, false, &src.shown)?;
        let mut to_file = match &dst.walk.entry {
            Some(t) => {
                if fail_if_exists {
                    return Err(VfsError::FileExists(dst.shown.clone()));
                }
                if t.is_dir() || Self::readonly(&st.side, &dst.key) {
                    return Err(VfsError::AccessDenied(dst.shown.clone()));
                }
                let write = Access {
                    write: true,
                    ..Access::default()
                };
                self.opens.check(&dst.key, write, SHARE_ALL, &dst.shown)?;
                let host = self.writable(&dst.walk.parent, t, &dst.key, true, &dst.shown)?;
                open_host(&host, false, true, true, &dst.shown)?
            }
            None => {
                let (_, dir) = self.layers.ensure_upper(&dst.walk.parent)?;
                self.layers
                    .create_file(&dir.join(dst.new_name()), false, &dst.shown)?
            }
        };
        copy_into(&mut from_file, &mut to_file, &dst.shown)?;
        let attrs = st.side.attrs(&src.key);
        st.side.set_attrs(&dst.key, attrs)
    }
}
