//! The union view of the guest drive.
//!
//! Two host trees make up the drive:
//!
//! - the *upper* tree, writable: `overlay_dir/drive_c` for the whole drive (or the
//!   program folder itself, for paths inside the guest directory, when writes to
//!   the original are allowed);
//! - the *lower* tree, read-only: the program folder, mounted at the guest
//!   directory. The guest directory's ancestors (`C:\GAMES` for `C:\GAMES\FOO`)
//!   are virtual directories that contain just the next component.
//!
//! A name resolves one component at a time, overlayfs style: the upper entry wins;
//! otherwise the lower entry is visible unless a whiteout in the sidecar hides it
//! (a whiteout on a directory hides its whole original subtree, so a directory the
//! guest deleted and made again is opaque). A directory that exists in both trees
//! shows the union of their entries.
//!
//! Host entries are matched case-insensitively (see `host.rs`). Entries the guest
//! could never name, special files (FIFOs, sockets,
//! devices) and symlinks whose canonical target leaves the tree they are in are
//! invisible: they are neither listed nor opened. Symlinks that stay inside are
//! followed, so a program folder that links one data directory to another still
//! works; the canonical target is what gets opened, and files are opened with
//! O_NOFOLLOW, so nothing is ever opened through a link that was not checked.

use std::path::{Path, PathBuf};

use super::error::VfsError;
use super::host::NameCache;
use super::path::fold;
use super::state::Sidecar;

/// Which host tree an entry belongs to; symlinks must stay inside their own tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    Overlay,
    Program,
}

/// A host file or directory the guest can see.
#[derive(Clone, Debug)]
pub struct HostItem {
    pub root: Root,
    /// The host path to open: symlinks already resolved and checked.
    pub path: PathBuf,
    /// The entry's own host path in its parent (the link itself for a symlink):
    /// what a delete or rename acts on.
    pub entry_path: PathBuf,
    /// The host entry's own name (the guest-visible spelling).
    pub name: String,
    pub is_dir: bool,
}

/// The original (read-only) side of a name.
#[derive(Clone, Debug)]
pub enum Lower {
    /// An ancestor of the guest directory, `depth` components deep.
    Virtual {
        depth: usize,
    },
    Host(HostItem),
}

impl Lower {
    pub fn is_dir(&self) -> bool {
        match self {
            Lower::Virtual { .. } => true,
            Lower::Host(h) => h.is_dir,
        }
    }
}

/// One name in a merged directory.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The visible spelling: the upper entry's, else the lower one's.
    pub name: String,
    pub upper: Option<HostItem>,
    /// Present only if visible (not hidden by a whiteout).
    pub lower: Option<Lower>,
}

impl Entry {
    pub fn is_dir(&self) -> bool {
        match (&self.upper, &self.lower) {
            (Some(u), _) => u.is_dir,
            (None, Some(l)) => l.is_dir(),
            (None, None) => false,
        }
    }

    /// The upper side if it is a regular file.
    pub fn upper_file(&self) -> Option<&HostItem> {
        self.upper.as_ref().filter(|u| !u.is_dir)
    }

    /// The host file whose bytes the guest sees, if this entry is a file.
    pub fn visible_file(&self) -> Option<&HostItem> {
        match (&self.upper, &self.lower) {
            (Some(u), _) if !u.is_dir => Some(u),
            (None, Some(Lower::Host(h))) if !h.is_dir => Some(h),
            _ => None,
        }
    }
}

/// A merged directory reached by a walk.
#[derive(Clone, Debug)]
pub struct Dir {
    /// Visible spelling of each component from the root.
    pub names: Vec<String>,
    /// The upper host directory, if it exists.
    pub upper: Option<(Root, PathBuf)>,
    /// The lower side, if it exists and is visible.
    pub lower: Option<LowerDir>,
}

#[derive(Clone, Debug)]
pub enum LowerDir {
    Virtual(usize),
    Host(PathBuf),
}

impl Dir {
    pub fn key(&self) -> String {
        super::path::key_of(&self.names)
    }

    pub fn child_key(&self, name: &str) -> String {
        let k = self.key();
        if k.is_empty() {
            fold(name)
        } else {
            format!("{k}\\{}", fold(name))
        }
    }
}

/// Result of resolving a path with at least one component.
pub struct Walk {
    pub parent: Dir,
    pub entry: Option<Entry>,
}

/// The two host trees and where they appear in the guest.
pub struct Layers {
    overlay_root: PathBuf,
    program_root: PathBuf,
    /// Guest directory components as configured (visible spelling).
    guest: Vec<String>,
    guest_folded: Vec<String>,
    /// Paths inside the guest directory are written to the program folder itself.
    direct: bool,
    /// Case-folded name indexes of host directories (see [`super::host`]).
    pub(super) names: NameCache,
}

impl Layers {
    pub fn new(
        overlay_root: PathBuf,
        program_root: PathBuf,
        guest: Vec<String>,
        direct: bool,
    ) -> Layers {
        let guest_folded = guest.iter().map(|c| fold(c)).collect();
        Layers {
            overlay_root,
            program_root,
            guest,
            guest_folded,
            direct,
            names: NameCache::default(),
        }
    }

    pub fn program_root(&self) -> &Path {
        &self.program_root
    }

    /// Writes inside the guest directory go to the program folder itself.
    pub fn direct(&self) -> bool {
        self.direct
    }

    pub(super) fn root_path(&self, root: Root) -> &Path {
        match root {
            Root::Overlay => &self.overlay_root,
            Root::Program => &self.program_root,
        }
    }

    /// The program folder root, as the upper item that replaces the guest directory
    /// in direct mode.
    fn program_item(&self, root: Root) -> HostItem {
        HostItem {
            root,
            path: self.program_root.clone(),
            entry_path: self.program_root.clone(),
            name: self.guest.last().cloned().unwrap_or_default(),
            is_dir: true,
        }
    }

    /// Whether `comps` names the guest directory or one of its ancestors (entries
    /// the sandbox refuses to remove or rename: they hold the running program).
    pub fn holds_program(&self, keys: &[String]) -> bool {
        keys.len() <= self.guest_folded.len()
            && keys.iter().zip(&self.guest_folded).all(|(a, b)| a == b)
    }

    /// The merged root directory.
    pub fn root_dir(&self) -> Dir {
        let (upper, lower) = match (self.guest.is_empty(), self.direct) {
            (true, true) => (Some((Root::Program, self.program_root.clone())), None),
            (true, false) => (
                Some((Root::Overlay, self.overlay_root.clone())),
                Some(LowerDir::Host(self.program_root.clone())),
            ),
            (false, _) => (
                Some((Root::Overlay, self.overlay_root.clone())),
                Some(LowerDir::Virtual(0)),
            ),
        };
        Dir {
            names: Vec::new(),
            upper,
            lower,
        }
    }

    /// The lower side of `folded` in the virtual directory `depth` components deep,
    /// and (direct mode) the program folder standing in as its upper side.
    fn virtual_child(&self, depth: usize, folded: &str) -> (Option<HostItem>, Option<Lower>) {
        if depth >= self.guest.len() || folded != self.guest_folded[depth] {
            return (None, None);
        }
        if depth + 1 < self.guest.len() {
            (None, Some(Lower::Virtual { depth: depth + 1 }))
        } else if self.direct {
            // The program folder itself is the writable tree of the guest directory.
            (Some(self.program_item(Root::Program)), None)
        } else {
            (None, Some(Lower::Host(self.program_item(Root::Program))))
        }
    }

    /// Combines the two sides of one name into an entry.
    fn merge(
        &self,
        dir: &Dir,
        side: &Sidecar,
        folded: &str,
        upper: Option<HostItem>,
        lower: Option<HostItem>,
    ) -> Option<Entry> {
        let key = if dir.names.is_empty() {
            folded.to_string()
        } else {
            format!("{}\\{folded}", dir.key())
        };
        let (mut upper, mut lower) = (upper, lower.map(Lower::Host));
        if let Some(LowerDir::Virtual(d)) = &dir.lower {
            let (over, virt) = self.virtual_child(*d, folded);
            if over.is_some() {
                upper = over;
            }
            lower = virt;
        }
        if side.is_whiteout(&key) {
            lower = None;
        }
        let name = match (&upper, &lower) {
            (Some(u), _) => u.name.clone(),
            (None, Some(Lower::Host(h))) => h.name.clone(),
            (None, Some(Lower::Virtual { depth })) => self.guest[depth - 1].clone(),
            (None, None) => return None,
        };
        Some(Entry { name, upper, lower })
    }

    /// Looks `comp` up in the merged directory `dir`.
    pub fn child(&self, side: &Sidecar, dir: &Dir, comp: &str) -> Result<Option<Entry>, VfsError> {
        let upper = match &dir.upper {
            Some((root, path)) => self.find(*root, path, comp)?,
            None => None,
        };
        let lower = match &dir.lower {
            Some(LowerDir::Host(path)) => self.find(Root::Program, path, comp)?,
            _ => None,
        };
        Ok(self.merge(dir, side, &fold(comp), upper, lower))
    }

    /// Enters a directory entry; `None` if it is a file.
    pub fn enter(&self, dir: &Dir, entry: &Entry) -> Option<Dir> {
        if !entry.is_dir() {
            return None;
        }
        let mut names = dir.names.clone();
        names.push(entry.name.clone());
        let upper = entry
            .upper
            .as_ref()
            .filter(|u| u.is_dir)
            .map(|u| (u.root, u.path.clone()));
        // A file in the upper tree hides a lower directory, but then the entry is
        // a file and we never get here; an upper directory merges with a lower one.
        let lower = match &entry.lower {
            Some(Lower::Virtual { depth }) => Some(LowerDir::Virtual(*depth)),
            Some(Lower::Host(h)) if h.is_dir => Some(LowerDir::Host(h.path.clone())),
            _ => None,
        };
        Some(Dir {
            names,
            upper,
            lower,
        })
    }

    /// Resolves a directory path; `Ok(None)` if some component is missing or a file.
    pub fn dir(&self, side: &Sidecar, comps: &[String]) -> Result<Option<Dir>, VfsError> {
        let mut dir = self.root_dir();
        for c in comps {
            let Some(e) = self.child(side, &dir, c)? else {
                return Ok(None);
            };
            let Some(d) = self.enter(&dir, &e) else {
                return Ok(None);
            };
            dir = d;
        }
        Ok(Some(dir))
    }

    /// Resolves a path with at least one component: its parent must exist
    /// (ERROR_PATH_NOT_FOUND otherwise), the entry itself may not.
    pub fn walk(&self, side: &Sidecar, comps: &[String], shown: &str) -> Result<Walk, VfsError> {
        let Some((last, parents)) = comps.split_last() else {
            return Err(VfsError::InvalidParameter("walk of the root"));
        };
        let parent = self
            .dir(side, parents)?
            .ok_or_else(|| VfsError::PathNotFound(shown.to_string()))?;
        let entry = self.child(side, &parent, last)?;
        Ok(Walk { parent, entry })
    }

    /// All visible entries of a merged directory, sorted by folded name.
    pub fn entries(&self, side: &Sidecar, dir: &Dir) -> Result<Vec<Entry>, VfsError> {
        use std::collections::BTreeMap;
        let index = |items: Vec<HostItem>| -> BTreeMap<String, HostItem> {
            items.into_iter().map(|i| (fold(&i.name), i)).collect()
        };
        let mut upper = match &dir.upper {
            Some((root, path)) => index(self.list(*root, path)?),
            None => BTreeMap::new(),
        };
        let mut lower = match &dir.lower {
            Some(LowerDir::Host(path)) => index(self.list(Root::Program, path)?),
            _ => BTreeMap::new(),
        };
        let mut names: Vec<String> = upper.keys().chain(lower.keys()).cloned().collect();
        if let Some(LowerDir::Virtual(d)) = &dir.lower {
            names.extend(self.guest_folded.get(*d).cloned());
        }
        names.sort();
        names.dedup();
        let mut out = Vec::with_capacity(names.len());
        for k in names {
            let (u, l) = (upper.remove(&k), lower.remove(&k));
            out.extend(self.merge(dir, side, &k, u, l));
        }
        Ok(out)
    }

    /// The upper tree's directory for `dir`, created (with the visible spelling of
    /// each component) if it does not exist yet.
    pub fn ensure_upper(&self, dir: &Dir) -> Result<(Root, PathBuf), VfsError> {
        if let Some(u) = &dir.upper {
            return Ok(u.clone());
        }
        let folded: Vec<String> = dir.names.iter().map(|c| fold(c)).collect();
        let inside = self.direct
            && folded.len() >= self.guest.len()
            && folded[..self.guest.len()] == self.guest_folded[..];
        let (root, mut path, rest) = if inside {
            (
                Root::Program,
                self.program_root.clone(),
                &dir.names[self.guest.len()..],
            )
        } else {
            (Root::Overlay, self.overlay_root.clone(), &dir.names[..])
        };
        for name in rest {
            match self.find(root, &path, name)? {
                Some(item) if item.is_dir => path = item.path,
                Some(_) => return Err(VfsError::AccessDenied(dir.names.join("\\"))),
                None => {
                    let p = path.join(name);
                    self.mkdir(&p, &dir.names.join("\\"))?;
                    path = p;
                }
            }
        }
        Ok((root, path))
    }
}
