//! The overlay's sidecar: whiteouts (original entries the guest deleted) and file
//! attributes the guest set. Both are keyed by case-folded guest path without the
//! drive (`GAMES\FOO\SAVE.DAT`) and kept in one text file per drive beside the
//! overlay tree, outside anything the guest can name:
//!
//! ```text
//! winterp-vfs 1
//! W<TAB>GAMES\FOO\INTRO.AVI
//! A<TAB>00000003<TAB>GAMES\FOO\SAVE.DAT
//! ```
//!
//! Fields are separated by one tab. Guest names cannot contain tabs or newlines, so
//! the format needs no escaping.
//! The file is rewritten (write to a temporary file, then rename) after every
//! change, so a crash leaves either the old or the new state.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::error::VfsError;

const HEADER: &str = "winterp-vfs 1";

#[derive(Debug)]
pub struct Sidecar {
    file: PathBuf,
    whiteouts: BTreeSet<String>,
    attrs: BTreeMap<String, u32>,
}

/// Whether `key` is `prefix` or lies below it.
fn under(key: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || key == prefix
        || (key.len() > prefix.len()
            && key.starts_with(prefix)
            && key.as_bytes()[prefix.len()] == b'\\')
}

impl Sidecar {
    /// Loads the sidecar at `file`, or starts an empty one if it does not exist.
    pub fn load(file: &Path) -> Result<Sidecar, VfsError> {
        let mut s = Sidecar {
            file: file.to_path_buf(),
            whiteouts: BTreeSet::new(),
            attrs: BTreeMap::new(),
        };
        let text = match fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(s),
            Err(e) => {
                return Err(VfsError::Config(format!(
                    "cannot read {}: {e}",
                    file.display()
                )));
            }
        };
        let corrupt =
            |line: &str| VfsError::Config(format!("{}: unreadable line {line:?}", file.display()));
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(VfsError::Config(format!(
                "{}: not a winterp VFS state file",
                file.display()
            )));
        }
        for line in lines.filter(|l| !l.is_empty()) {
            let mut parts = line.split('\t');
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some("W"), Some(key), None, None) => {
                    s.whiteouts.insert(key.to_string());
                }
                (Some("A"), Some(hex), Some(key), None) => {
                    let v = u32::from_str_radix(hex, 16).map_err(|_| corrupt(line))?;
                    s.attrs.insert(key.to_string(), v);
                }
                _ => return Err(corrupt(line)),
            }
        }
        Ok(s)
    }

    fn save(&self) -> Result<(), VfsError> {
        let mut text = String::from(HEADER);
        text.push('\n');
        for w in &self.whiteouts {
            text.push_str(&format!("W\t{w}\n"));
        }
        for (k, v) in &self.attrs {
            text.push_str(&format!("A\t{v:08x}\t{k}\n"));
        }
        let tmp = self.file.with_extension("tmp");
        let io = |e| VfsError::io(format!("VFS state {}", self.file.display()), e);
        fs::write(&tmp, text).map_err(io)?;
        fs::rename(&tmp, &self.file).map_err(io)
    }

    /// Whether the original entry at `key` was deleted by the guest. Callers check
    /// every prefix on the way down, so a whiteout hides the whole subtree.
    pub fn is_whiteout(&self, key: &str) -> bool {
        self.whiteouts.contains(key)
    }

    /// Records the deletion of the original entry at `key`. Whiteouts below it
    /// become redundant and are dropped.
    pub fn add_whiteout(&mut self, key: &str) -> Result<(), VfsError> {
        if self.whiteouts.contains(key) {
            return Ok(());
        }
        self.whiteouts.retain(|w| !under(w, key));
        self.whiteouts.insert(key.to_string());
        self.save()
    }

    /// Drops whiteouts strictly below `key` (a directory that no longer has an
    /// original part, so they can never apply again).
    pub fn drop_whiteouts_below(&mut self, key: &str) -> Result<(), VfsError> {
        let before = self.whiteouts.len();
        self.whiteouts.retain(|w| w == key || !under(w, key));
        if self.whiteouts.len() != before {
            self.save()?;
        }
        Ok(())
    }

    /// The attributes the guest stored for `key`, if any.
    pub fn attrs(&self, key: &str) -> Option<u32> {
        self.attrs.get(key).copied()
    }

    /// Stores (`Some`) or forgets (`None`) the attributes of `key`.
    pub fn set_attrs(&mut self, key: &str, value: Option<u32>) -> Result<(), VfsError> {
        let old = match value {
            Some(v) => self.attrs.insert(key.to_string(), v),
            None => self.attrs.remove(key),
        };
        if old != value {
            self.save()?;
        }
        Ok(())
    }

    /// Forgets the attributes of `key` and everything below it.
    pub fn remove_attrs_under(&mut self, key: &str) -> Result<(), VfsError> {
        let before = self.attrs.len();
        self.attrs.retain(|k, _| !under(k, key));
        if self.attrs.len() != before {
            self.save()?;
        }
        Ok(())
    }

    /// Moves the attributes of `from` and everything below it to `to` (a rename),
    /// replacing whatever `to` had.
    pub fn move_attrs(&mut self, from: &str, to: &str) -> Result<(), VfsError> {
        let moved: Vec<(String, u32)> = self
            .attrs
            .iter()
            .filter(|(k, _)| under(k, from))
            .map(|(k, v)| (format!("{to}{}", &k[from.len()..]), *v))
            .collect();
        let had_target = self.attrs.keys().any(|k| under(k, to));
        if moved.is_empty() && !had_target {
            return Ok(());
        }
        self.attrs.retain(|k, _| !under(k, from) && !under(k, to));
        self.attrs.extend(moved);
        self.save()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_test_respects_component_boundaries() {
        assert!(under(r"A\B", "A"));
        assert!(under("A", "A"));
        assert!(!under("AB", "A"));
        assert!(under("ANY", ""));
    }

    #[test]
    fn round_trips_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("state.txt");
        let mut s = Sidecar::load(&f).unwrap();
        s.add_whiteout(r"GAMES\FOO\X").unwrap();
        s.set_attrs(r"GAMES\FOO\Y", Some(3)).unwrap();
        let t = Sidecar::load(&f).unwrap();
        assert!(t.is_whiteout(r"GAMES\FOO\X"));
        assert_eq!(t.attrs(r"GAMES\FOO\Y"), Some(3));
        s.add_whiteout(r"GAMES").unwrap();
        assert!(
            !s.is_whiteout(r"GAMES\FOO\X"),
            "covered by the parent's whiteout"
        );
        s.move_attrs(r"GAMES\FOO", r"SAVE").unwrap();
        assert_eq!(s.attrs(r"SAVE\Y"), Some(3));
        assert_eq!(s.attrs(r"GAMES\FOO\Y"), None);
        fs::write(&f, "something else\n").unwrap();
        assert!(Sidecar::load(&f).is_err());
    }
}
