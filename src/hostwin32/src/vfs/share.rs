//! Open files: the sharing table and the host files behind open handles.
//!
//! # Share modes
//!
//! Every CreateFile (and every DeleteFile, MoveFile, CopyFile and RemoveDirectory,
//! which open the file internally) is checked against the other opens of the same
//! guest path, as CreateFile documents ("Creating and Opening Files"): the new
//! open's access must be allowed by the share mode of every existing open, and the
//! access of every existing open must be allowed by the new share mode. Only data
//! access counts — reading (FILE_READ_DATA, FILE_EXECUTE), writing
//! (FILE_WRITE_DATA, FILE_APPEND_DATA) and DELETE; an open without any of them
//! (for attributes or times) neither conflicts nor restricts others. A conflict
//! is ERROR_SHARING_VIOLATION.
//!
//! An open lasts while its [`OpenGuard`] lives: the Win32 layer keeps it in the
//! file object, so it ends when the last handle to that object is closed.
//!
//! Opens are keyed by the case-folded guest path, so two guest names that reach
//! one host file through a symlink inside the program folder are checked
//! separately.
//!
//! # One view of the bytes
//!
//! Each open gets its own host file descriptor, held in a [`HostFile`] that the
//! VFS can repoint. When the bytes the guest sees move to another host file — an
//! original copied up into the overlay because someone opened it for writing, or
//! truncated into a fresh overlay file, or a file renamed by copying — every open
//! of that name is switched to the new host file (same access mode, same
//! position, which the Win32 layer keeps), so a handle opened for reading before
//! the copy-up sees what the writer writes, as on Windows.
//!
//! # Deleting open files
//!
//! DeleteFile on a file whose opens all allow FILE_SHARE_DELETE removes the name
//! at once (as Windows 10's POSIX delete semantics do); the open handles keep
//! working on the removed file, and their share modes no longer constrain a new
//! file of the same name.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, Weak};

use super::error::VfsError;
use super::host::open_host;

pub const FILE_SHARE_READ: u32 = 0x1;
pub const FILE_SHARE_WRITE: u32 = 0x2;
pub const FILE_SHARE_DELETE: u32 = 0x4;
/// Every share mode bit CreateFile accepts.
pub const FILE_SHARE_VALID_FLAGS: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// The kinds of access the sharing check looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub read: bool,
    pub write: bool,
    pub delete: bool,
}

impl Access {
    /// The access DeleteFile, RemoveDirectory and a rename request for themselves.
    pub const DELETE: Access = Access {
        read: false,
        write: false,
        delete: true,
    };

    fn any(self) -> bool {
        self.read || self.write || self.delete
    }

    /// Whether an open with this access may coexist with one that allows only
    /// `share` (FILE_SHARE_* bits).
    fn allowed_by(self, share: u32) -> bool {
        (!self.read || share & FILE_SHARE_READ != 0)
            && (!self.write || share & FILE_SHARE_WRITE != 0)
            && (!self.delete || share & FILE_SHARE_DELETE != 0)
    }
}

/// The host file behind one open handle. The VFS swaps the descriptor when the
/// guest-visible bytes move to another host file (see the module docs), so
/// callers reach it through [`HostFile::get`] for each operation.
#[derive(Debug)]
pub struct HostFile {
    file: RwLock<fs::File>,
    /// How the descriptor was opened, so a replacement gets the same mode.
    read: bool,
    write: bool,
}

impl HostFile {
    pub fn new(file: fs::File, read: bool, write: bool) -> Arc<HostFile> {
        Arc::new(HostFile {
            file: RwLock::new(file),
            read,
            write,
        })
    }

    /// The current host descriptor.
    pub fn get(&self) -> RwLockReadGuard<'_, fs::File> {
        // Swapping is a single assignment, so a poisoned lock still holds a file.
        self.file.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Points this open at `path` unless it already reaches that host file.
    fn repoint(&self, path: &Path, target: &fs::Metadata, shown: &str) -> Result<(), VfsError> {
        let same = self
            .get()
            .metadata()
            .is_ok_and(|m| m.dev() == target.dev() && m.ino() == target.ino());
        if same {
            return Ok(());
        }
        let file = open_host(path, self.read, self.write, false, shown)?;
        *self.file.write().unwrap_or_else(PoisonError::into_inner) = file;
        Ok(())
    }
}

#[derive(Debug)]
struct Open {
    id: u64,
    access: Access,
    share: u32,
    /// `None` for directories.
    host: Option<Weak<HostFile>>,
}

impl Open {
    /// Whether this existing open and a new one with `access`/`share` can coexist.
    fn compatible(&self, access: Access, share: u32) -> bool {
        !access.any()
            || !self.access.any()
            || (access.allowed_by(self.share) && self.access.allowed_by(share))
    }
}

#[derive(Debug, Default)]
struct Table {
    /// Guest key → the opens of that name.
    by_key: HashMap<String, Vec<Open>>,
    /// Open id → its current key (renames move opens to another key).
    keys: HashMap<u64, String>,
    next_id: u64,
}

/// The process's open files. Cloning shares the table.
#[derive(Clone, Debug, Default)]
pub struct Opens {
    table: Arc<Mutex<Table>>,
}

/// One registered open; dropping it ends the open.
#[derive(Debug)]
pub struct OpenGuard {
    table: Arc<Mutex<Table>>,
    id: u64,
}

impl Drop for OpenGuard {
    fn drop(&mut self) {
        let mut t = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        // A deleted name's opens were detached: nothing left to remove.
        let Some(key) = t.keys.remove(&self.id) else {
            return;
        };
        if let Some(v) = t.by_key.get_mut(&key) {
            v.retain(|o| o.id != self.id);
            if v.is_empty() {
                t.by_key.remove(&key);
            }
        }
    }
}

/// Whether `key` lies strictly below `prefix` (`prefix` "" is the root).
fn below(key: &str, prefix: &str) -> bool {
    if prefix.is_empty() {
        return !key.is_empty();
    }
    key.len() > prefix.len() && key.starts_with(prefix) && key.as_bytes()[prefix.len()] == b'\\'
}

impl Opens {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every change is a single step, so a poisoned table is still consistent.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// ERROR_SHARING_VIOLATION unless an open of `key` with `access` and `share`
    /// may coexist with every existing open of it.
    pub fn check(
        &self,
        key: &str,
        access: Access,
        share: u32,
        shown: &str,
    ) -> Result<(), VfsError> {
        let t = self.lock();
        let ok = t
            .by_key
            .get(key)
            .is_none_or(|v| v.iter().all(|o| o.compatible(access, share)));
        if ok {
            Ok(())
        } else {
            Err(VfsError::SharingViolation(shown.to_string()))
        }
    }

    /// Records an open of `key` (after [`Opens::check`] passed under the same VFS
    /// lock).
    pub fn register(
        &self,
        key: &str,
        access: Access,
        share: u32,
        host: Option<&Arc<HostFile>>,
    ) -> OpenGuard {
        let mut t = self.lock();
        t.next_id += 1;
        let id = t.next_id;
        t.keys.insert(id, key.to_string());
        t.by_key.entry(key.to_string()).or_default().push(Open {
            id,
            access,
            share,
            host: host.map(Arc::downgrade),
        });
        OpenGuard {
            table: self.table.clone(),
            id,
        }
    }

    /// Whether anything (even an open without data access) has `key` open.
    pub fn is_open(&self, key: &str) -> bool {
        self.lock().by_key.contains_key(key)
    }

    /// Whether anything below the directory `key` is open.
    pub fn any_below(&self, key: &str) -> bool {
        self.lock().by_key.keys().any(|k| below(k, key))
    }

    /// The name `key` is gone: its opens keep working but no longer take part in
    /// sharing checks for that name.
    pub fn detach(&self, key: &str) {
        let mut t = self.lock();
        if let Some(v) = t.by_key.remove(key) {
            for o in v {
                t.keys.remove(&o.id);
            }
        }
    }

    /// The file `from` is now called `to`: its opens follow it.
    pub fn rename(&self, from: &str, to: &str) {
        if from == to {
            return;
        }
        let mut t = self.lock();
        let Some(moved) = t.by_key.remove(from) else {
            return;
        };
        for o in &moved {
            t.keys.insert(o.id, to.to_string());
        }
        t.by_key.entry(to.to_string()).or_default().extend(moved);
    }

    /// The guest-visible bytes of `key` now live in the host file `path`: every
    /// open of it that still reads another host file is pointed there.
    pub fn rehost(&self, key: &str, path: &Path, shown: &str) -> Result<(), VfsError> {
        let hosts: Vec<Arc<HostFile>> = {
            let t = self.lock();
            t.by_key
                .get(key)
                .map(|v| {
                    v.iter()
                        .filter_map(|o| o.host.as_ref()?.upgrade())
                        .collect()
                })
                .unwrap_or_default()
        };
        if hosts.is_empty() {
            return Ok(());
        }
        let target = fs::symlink_metadata(path).map_err(|e| VfsError::io(shown, e))?;
        for h in hosts {
            h.repoint(path, &target, shown)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Access = Access {
        read: true,
        write: false,
        delete: false,
    };
    const W: Access = Access {
        read: false,
        write: true,
        delete: false,
    };
    const RW: Access = Access {
        read: true,
        write: true,
        delete: false,
    };
    const NONE: Access = Access {
        read: false,
        write: false,
        delete: false,
    };
    const SR: u32 = FILE_SHARE_READ;
    const SW: u32 = FILE_SHARE_WRITE;
    const SD: u32 = FILE_SHARE_DELETE;

    fn code(r: Result<(), VfsError>) -> u32 {
        r.unwrap_err().win32_code()
    }

    // The cases of the table in "Creating and Opening Files" (CreateFile docs):
    // the second open must ask only for access the first shares, and share every
    // access the first holds.
    #[test]
    fn second_open_follows_the_documented_table() {
        let cases: &[(Access, u32, Access, u32, bool)] = &[
            (R, SR, R, SR, true),
            (R, SR, W, SR | SW, false),
            (R, SR, R, SW, false),
            (R, SR | SW, W, SR, true),
            (R, SR | SW, W, SW, false),
            (W, SR, R, SW, true),
            (W, SR, R, SR, false),
            (W, SR | SW, W, SR | SW, true),
            (RW, SR | SW, R, SR | SW, true),
            (RW, SR, R, SR | SW, true),
            (RW, SR, R, SR, false),
            (RW, SR, W, SR | SW, false),
            (R, 0, R, SR | SW | SD, false),
            (Access::DELETE, SR | SW | SD, R, SR, false),
            (Access::DELETE, SR | SW | SD, R, SR | SD, true),
            (NONE, 0, RW, 0, true),
            (RW, 0, NONE, 0, true),
        ];
        for (i, &(a1, s1, a2, s2, ok)) in cases.iter().enumerate() {
            let opens = Opens::default();
            let _g = opens.register("X", a1, s1, None);
            assert_eq!(opens.check("X", a2, s2, "X").is_ok(), ok, "case {i}");
            // Other names are unaffected.
            assert!(opens.check("Y", a2, s2, "Y").is_ok());
        }
    }

    #[test]
    fn delete_needs_every_open_to_share_delete() {
        let opens = Opens::default();
        let a = opens.register("F", R, SR | SD, None);
        let b = opens.register("F", R, SR | SW | SD, None);
        assert!(opens.check("F", Access::DELETE, SR | SW | SD, "F").is_ok());
        let c = opens.register("F", R, SR | SW, None);
        assert_eq!(
            code(opens.check("F", Access::DELETE, SR | SW | SD, "F")),
            32
        );
        drop(c);
        assert!(opens.check("F", Access::DELETE, SR | SW | SD, "F").is_ok());
        drop((a, b));
        assert!(!opens.is_open("F"));
    }

    #[test]
    fn closing_releases_and_detach_and_rename_move_opens() {
        let opens = Opens::default();
        let g = opens.register(r"D\F", RW, 0, None);
        assert!(opens.is_open(r"D\F"));
        assert!(opens.any_below("D"));
        assert!(opens.any_below(""));
        assert!(!opens.any_below(r"D\F"));
        assert!(!opens.any_below("DX"));
        opens.rename(r"D\F", r"D\G");
        assert!(!opens.is_open(r"D\F"));
        assert_eq!(code(opens.check(r"D\G", R, SR | SW, "G")), 32);
        opens.detach(r"D\G");
        assert!(opens.check(r"D\G", R, 0, "G").is_ok());
        // A new open of the name is not disturbed when the detached one closes.
        let h = opens.register(r"D\G", R, 0, None);
        drop(g);
        assert_eq!(code(opens.check(r"D\G", W, SR | SW, "G")), 32);
        drop(h);
        assert!(!opens.is_open(r"D\G"));
    }

    #[test]
    fn rehost_points_every_open_at_the_new_file() {
        use std::io::Write;
        use std::os::unix::fs::FileExt;
        let tmp = tempfile::tempdir().unwrap();
        let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
        fs::write(&old, b"original").unwrap();
        fs::write(&new, b"copied up").unwrap();
        let opens = Opens::default();
        let reader = HostFile::new(fs::File::open(&old).unwrap(), true, false);
        let _g = opens.register("F", R, SR | SW, Some(&reader));
        opens.rehost("F", &new, "F").unwrap();
        let mut b = [0u8; 9];
        reader.get().read_exact_at(&mut b, 0).unwrap();
        assert_eq!(&b, b"copied up");
        // Writes through the new file are seen by the repointed reader.
        fs::OpenOptions::new()
            .write(true)
            .open(&new)
            .unwrap()
            .write_all(b"CHANGED")
            .unwrap();
        reader.get().read_exact_at(&mut b[..7], 0).unwrap();
        assert_eq!(&b[..7], b"CHANGED");
        // The replacement keeps the mode: still read-only.
        assert!(reader.get().write_at(b"x", 0).is_err());
    }
}
