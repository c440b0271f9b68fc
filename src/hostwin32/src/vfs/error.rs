//! VFS errors and their Win32 error codes.

use std::io;

use super::path::Device;

pub const ERROR_FILE_NOT_FOUND: u32 = 2;
pub const ERROR_PATH_NOT_FOUND: u32 = 3;
pub const ERROR_TOO_MANY_OPEN_FILES: u32 = 4;
pub const ERROR_ACCESS_DENIED: u32 = 5;
pub const ERROR_NOT_ENOUGH_MEMORY: u32 = 8;
pub const ERROR_NOT_SAME_DEVICE: u32 = 17;
pub const ERROR_NO_MORE_FILES: u32 = 18;
pub const ERROR_GEN_FAILURE: u32 = 31;
pub const ERROR_SHARING_VIOLATION: u32 = 32;
pub const ERROR_BAD_NETPATH: u32 = 53;
pub const ERROR_FILE_EXISTS: u32 = 80;
pub const ERROR_INVALID_PARAMETER: u32 = 87;
pub const ERROR_DISK_FULL: u32 = 112;
pub const ERROR_INVALID_NAME: u32 = 123;
pub const ERROR_DIR_NOT_EMPTY: u32 = 145;
pub const ERROR_ALREADY_EXISTS: u32 = 183;
pub const ERROR_FILENAME_EXCED_RANGE: u32 = 206;
pub const ERROR_FILE_TOO_LARGE: u32 = 223;
pub const ERROR_DIRECTORY: u32 = 267;

/// A failed VFS operation. Guest-facing variants carry the guest path they concern;
/// [`VfsError::win32_code`] gives the code for SetLastError.
#[derive(Debug, thiserror::Error)]
pub enum VfsError {
    #[error("file not found: {0}")]
    FileNotFound(String),
    #[error("path not found: {0}")]
    PathNotFound(String),
    #[error("access denied: {0}")]
    AccessDenied(String),
    /// CREATE_NEW or CopyFile(bFailIfExists) on an existing file.
    #[error("file exists: {0}")]
    FileExists(String),
    /// CreateDirectory or MoveFile onto an existing name.
    #[error("already exists: {0}")]
    AlreadyExists(String),
    #[error("invalid name: {0:?}")]
    InvalidName(String),
    #[error("directory not empty: {0}")]
    DirNotEmpty(String),
    /// A directory operation on a file (RemoveDirectory, SetCurrentDirectory).
    #[error("not a directory: {0}")]
    NotADirectory(String),
    #[error("name too long: {0}")]
    FilenameTooLong(String),
    /// A UNC path: there is no network.
    #[error("network path not found: {0}")]
    BadNetPath(String),
    /// Copying a file onto itself: Windows fails because the source is open.
    #[error("sharing violation: {0}")]
    SharingViolation(String),
    /// The end of a directory listing (FindNextFile's last answer); the VFS itself
    /// never returns it, the Win32 layer uses it for its find handles.
    #[error("no more files")]
    NoMoreFiles,
    #[error("invalid parameter: {0}")]
    InvalidParameter(&'static str),
    /// A path that names a DOS device where only files or directories make sense
    /// (DeleteFile("NUL"), CreateDirectory("C:\\CON")).
    #[error("{path} is the device {device:?}")]
    Device { path: String, device: Device },
    /// The sandbox configuration is unusable; never reaches the guest.
    #[error("invalid VFS configuration: {0}")]
    Config(String),
    /// The host refused; `path` is the guest path.
    #[error("host I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl VfsError {
    pub fn io(path: impl Into<String>, source: io::Error) -> VfsError {
        VfsError::Io {
            path: path.into(),
            source,
        }
    }

    /// The Win32 error code a Windows program sees for this failure.
    pub fn win32_code(&self) -> u32 {
        match self {
            VfsError::FileNotFound(_) => ERROR_FILE_NOT_FOUND,
            VfsError::PathNotFound(_) => ERROR_PATH_NOT_FOUND,
            VfsError::AccessDenied(_) | VfsError::Device { .. } => ERROR_ACCESS_DENIED,
            VfsError::FileExists(_) => ERROR_FILE_EXISTS,
            VfsError::AlreadyExists(_) => ERROR_ALREADY_EXISTS,
            VfsError::InvalidName(_) => ERROR_INVALID_NAME,
            VfsError::DirNotEmpty(_) => ERROR_DIR_NOT_EMPTY,
            VfsError::NotADirectory(_) => ERROR_DIRECTORY,
            VfsError::FilenameTooLong(_) => ERROR_FILENAME_EXCED_RANGE,
            VfsError::BadNetPath(_) => ERROR_BAD_NETPATH,
            VfsError::SharingViolation(_) => ERROR_SHARING_VIOLATION,
            VfsError::NoMoreFiles => ERROR_NO_MORE_FILES,
            VfsError::InvalidParameter(_) | VfsError::Config(_) => ERROR_INVALID_PARAMETER,
            VfsError::Io { source, .. } => io_code(source),
        }
    }
}

/// Maps a host error to the nearest Win32 code.
fn io_code(e: &io::Error) -> u32 {
    use io::ErrorKind as K;
    match e.raw_os_error() {
        Some(libc::EMFILE | libc::ENFILE) => return ERROR_TOO_MANY_OPEN_FILES,
        // O_NOFOLLOW met a symlink: the sandbox refuses it.
        Some(libc::ELOOP) => return ERROR_ACCESS_DENIED,
        _ => {}
    }
    match e.kind() {
        K::NotFound => ERROR_FILE_NOT_FOUND,
        K::NotADirectory => ERROR_PATH_NOT_FOUND,
        K::PermissionDenied | K::IsADirectory | K::ReadOnlyFilesystem => ERROR_ACCESS_DENIED,
        K::AlreadyExists => ERROR_FILE_EXISTS,
        K::DirectoryNotEmpty => ERROR_DIR_NOT_EMPTY,
        K::StorageFull | K::QuotaExceeded => ERROR_DISK_FULL,
        K::InvalidFilename => ERROR_INVALID_NAME,
        K::FileTooLarge => ERROR_FILE_TOO_LARGE,
        K::CrossesDevices => ERROR_NOT_SAME_DEVICE,
        K::OutOfMemory => ERROR_NOT_ENOUGH_MEMORY,
        _ => ERROR_GEN_FAILURE,
    }
}
