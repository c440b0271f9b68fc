//! Where DLLs shipped with a program come from: the program's folder on the host
//! ([`FolderDlls`]) or, in tests, memory ([`MemoryDlls`]).

use super::{LoadError, MAX_FILE_SIZE};
use std::path::{Path, PathBuf};

/// A DLL file found for an import or LoadLibrary.
pub struct DllFile {
    /// The file's actual name (e.g. `Smackw32.dll` for an import of `SMACKW32.DLL`).
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// Finds DLL files by name.
pub trait DllSource: Send + Sync {
    /// The file called `name` (a bare file name with extension; matched
    /// case-insensitively), or `None` if there is none.
    fn find(&self, name: &str) -> Result<Option<DllFile>, LoadError>;
}

/// The file name an import or LoadLibrary name refers to: `.dll` is added when the
/// name has no extension; a trailing dot means "no extension" (as LoadLibrary does).
pub fn file_name_for(name: &str) -> String {
    if let Some(n) = name.strip_suffix('.') {
        return n.to_string();
    }
    if name.contains('.') {
        name.to_string()
    } else {
        format!("{name}.dll")
    }
}

/// DLLs in one host folder (the program's). Lookup lists the folder and compares
/// names, so a name can never reach outside it; symbolic links are not followed.
pub struct FolderDlls {
    dir: PathBuf,
}

impl FolderDlls {
    pub fn new(dir: impl Into<PathBuf>) -> FolderDlls {
        FolderDlls { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Reads a host file of at most [`MAX_FILE_SIZE`] bytes.
pub fn read_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    let io = |source| LoadError::Io {
        path: path.display().to_string(),
        source,
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > MAX_FILE_SIZE {
        return Err(LoadError::FileTooLarge {
            name: path.display().to_string(),
            size: len,
        });
    }
    std::fs::read(path).map_err(io)
}

impl DllSource for FolderDlls {
    fn find(&self, name: &str) -> Result<Option<DllFile>, LoadError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) => {
                log::warn!("cannot list {} to look for {name}: {e}", self.dir.display());
                return Ok(None);
            }
        };
        let mut found: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.eq_ignore_ascii_case(name))
            .collect();
        // Several spellings can coexist on a case-sensitive host: prefer the exact
        // one, then a stable order.
        found.sort();
        let pick = found
            .iter()
            .find(|n| n.as_str() == name)
            .or(found.first())
            .cloned();
        let Some(file_name) = pick else {
            return Ok(None);
        };
        let bytes = read_file(&self.dir.join(&file_name))?;
        Ok(Some(DllFile { file_name, bytes }))
    }
}

/// DLLs held in memory (tests, fuzzing).
#[derive(Default)]
pub struct MemoryDlls {
    pub files: Vec<(String, Vec<u8>)>,
}

impl DllSource for MemoryDlls {
    fn find(&self, name: &str) -> Result<Option<DllFile>, LoadError> {
        Ok(self
            .files
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(n, b)| DllFile {
                file_name: n.clone(),
                bytes: b.clone(),
            }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_the_dll_extension_like_loadlibrary() {
        assert_eq!(file_name_for("KERNEL32"), "KERNEL32.dll");
        assert_eq!(file_name_for("mss32.dll"), "mss32.dll");
        assert_eq!(file_name_for("driver.drv"), "driver.drv");
        assert_eq!(file_name_for("noext."), "noext");
    }

    #[test]
    fn folder_lookup_is_case_insensitive_and_stays_in_the_folder() {
        let dir = std::env::temp_dir().join(format!("winterp-dlls-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("Smack.DLL"), b"x").unwrap();
        std::fs::write(dir.join("sub").join("inner.dll"), b"y").unwrap();
        let src = FolderDlls::new(&dir);
        let f = src.find("SMACK.dll").unwrap().unwrap();
        assert_eq!(
            (f.file_name.as_str(), f.bytes.as_slice()),
            ("Smack.DLL", &b"x"[..])
        );
        assert!(src.find("sub/inner.dll").unwrap().is_none());
        assert!(src.find("../x.dll").unwrap().is_none());
        assert!(src.find("sub").unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
