//! The PE loader: maps a PE32 image and the DLLs it imports into a process.
//!
//! Loading goes in two phases. The *link* phase ([`session`]) runs no guest code: it
//! parses and validates the headers ([`pe`]), maps headers and sections
//! ([`map`]), applies base relocations ([`reloc`]), parses exports ([`exports`]),
//! resolves imports ([`imports`]; DLLs shipped next to the program are loaded as
//! guest code through a [`source::DllSource`], everything else goes to the HLE DLLs,
//! which get pseudo-modules, [`hle_module`]), registers implicit TLS ([`tls`]) and
//! sets page protections. The *init* phase ([`init`]) runs guest code on a thread:
//! TLS callbacks and DllMain, in dependency order.
//!
//! Public entry points for the Win32 API implementations:
//! - [`resolve_export`] (GetProcAddress), [`find_resource`] (FindResource and friends),
//! - [`init::load_library`], [`init::free_library`], [`init::thread_attach`],
//!   [`init::thread_detach`], [`init::process_detach`],
//!   [`init::disable_thread_library_calls`],
//! - [`crate::startup`] creates processes and threads.

pub mod exports;
pub mod hle_module;
pub mod imports;
pub mod init;
pub mod map;
pub mod pe;
pub mod reloc;
pub mod resources;
pub mod session;
pub mod source;
pub mod tls;

pub use exports::{ExportName, resolve_export};
pub use init::{
    disable_thread_library_calls, free_library, load_library, load_library_file, process_detach,
    thread_attach, thread_detach,
};
pub use resources::{ResId, find_resource, resource_children};
pub use source::{DllFile, DllSource, FolderDlls, MemoryDlls};

use crate::address_space::VmError;
use crate::hle::ApiError;
use crate::process::ProcessError;
use crate::thread::ThreadEnd;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Largest image (SizeOfImage) and file the loader accepts. Larger values in a
/// header are treated as malformed rather than allocated.
pub const MAX_IMAGE_SIZE: u32 = 256 << 20;
/// Largest DLL/EXE file read from the host.
pub const MAX_FILE_SIZE: u64 = 256 << 20;
/// Most sections Windows XP accepts in an image.
pub const MAX_SECTIONS: usize = 96;
/// Bounds on table sizes, so a malformed image cannot make the loader loop for long.
pub const MAX_IMPORTS: usize = 32 * 1024;
pub const MAX_IMPORT_DLLS: usize = 1024;
pub const MAX_EXPORTS: usize = 64 * 1024;
/// Deepest chain of DLLs importing DLLs, and of forwarded exports.
pub const MAX_DEPTH: u32 = 32;

/// Longest import/export name accepted (C++ decorated names stay well below).
pub const MAX_NAME: usize = 4096;

/// A name from an image's tables as a string, or `None` if it is absurdly long.
pub(crate) fn name_string(b: &[u8]) -> Option<String> {
    (b.len() <= MAX_NAME).then(|| String::from_utf8_lossy(b).into_owned())
}

/// Why an image could not be loaded. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{name}: file is {size} bytes; files over {MAX_FILE_SIZE} bytes are rejected")]
    FileTooLarge { name: String, size: u64 },
    #[error("{name}: not an executable (no MZ signature)")]
    NoMz { name: String },
    #[error("{name}: truncated: {what} lies past the end of the file")]
    Truncated { name: String, what: &'static str },
    #[error("{name}: no PE signature at file offset {offset:#x}")]
    NoPe { name: String, offset: u32 },
    #[error("{name}: machine type {machine:#06x} is not i386")]
    NotI386 { name: String, machine: u16 },
    #[error("{name}: optional header magic {magic:#06x} is not PE32 (0x10b)")]
    NotPe32 { name: String, magic: u16 },
    #[error("{name}: bad header: {what}")]
    BadHeader { name: String, what: String },
    #[error("{name}: SizeOfImage {size:#x} exceeds the {MAX_IMAGE_SIZE:#x}-byte limit")]
    ImageTooLarge { name: String, size: u32 },
    #[error("{name}: section {section:?}: {what}")]
    BadSection {
        name: String,
        section: String,
        what: String,
    },
    #[error("{name}: {what} at RVA {rva:#x} (size {size:#x}) lies outside the image")]
    BadRva {
        name: String,
        what: &'static str,
        rva: u32,
        size: u32,
    },
    #[error("{name}: malformed {what}: {detail}")]
    Malformed {
        name: String,
        what: &'static str,
        detail: String,
    },
    #[error("{name}: more than {limit} {what}")]
    TooMany {
        name: String,
        what: &'static str,
        limit: usize,
    },
    /// The preferred base cannot be had (`by` says what holds it) and the image cannot
    /// be moved (`reason`).
    #[error(
        "{name}: preferred base {base:#010x} is {by}, and the image cannot be relocated: {reason}"
    )]
    BaseTaken {
        name: String,
        base: u32,
        by: String,
        reason: &'static str,
    },
    #[error("{name}: no room in the guest address space: {err}")]
    NoSpace { name: String, err: VmError },
    #[error("{name}: base relocation type {kind} at RVA {rva:#x} is not supported")]
    UnsupportedRelocation { name: String, kind: u16, rva: u32 },
    #[error("{name}: is a DLL, not a program")]
    NotAProgram { name: String },
    #[error("{name}: not found next to the program and not provided by winterp")]
    NotFound { name: String },
    #[error("{name}: DLLs nested or forwarded more than {MAX_DEPTH} deep (a loop?)")]
    TooDeep { name: String },
    #[error("guest memory fault at {addr:#010x} while loading {name}")]
    Fault { name: String, addr: u32 },
    #[error("{name}: {detail}")]
    Api { name: String, detail: String },
    #[error("creating the process: {0}")]
    Process(#[from] ProcessError),
    #[error("{name}: initialisation failed (DllMain returned FALSE for DLL_PROCESS_ATTACH)")]
    InitFailed { name: String },
    #[error("{name}: the guest ended during {what}: {end:?}")]
    GuestEnded {
        name: String,
        what: &'static str,
        end: ThreadEnd,
    },
}

impl LoadError {
    pub(crate) fn fault(name: &str, f: winterp_core::mem::Fault) -> LoadError {
        LoadError::Fault {
            name: name.to_string(),
            addr: f.addr,
        }
    }

    pub(crate) fn api(name: &str, e: ApiError) -> LoadError {
        LoadError::Api {
            name: name.to_string(),
            detail: e.to_string(),
        }
    }

    pub(crate) fn vm(name: &str, err: VmError) -> LoadError {
        LoadError::NoSpace {
            name: name.to_string(),
            err,
        }
    }
}

/// A guest image (the program or a DLL loaded as guest code).
#[derive(Clone, Debug)]
pub struct Image {
    /// File name (e.g. `SMACKW32.DLL`), as found on disk.
    pub name: String,
    /// Guest path of the file.
    pub path: String,
    pub base: u32,
    /// Mapped size (SizeOfImage rounded up to a page).
    pub size: u32,
    /// Entry point address, 0 if none.
    pub entry: u32,
    pub is_dll: bool,
    pub exports: exports::ExportDir,
    /// Resource directory (RVA, size), if any.
    pub resources: Option<(u32, u32)>,
    /// Implicit TLS index, if the image has a TLS directory.
    pub tls: Option<u32>,
    /// Bases of the guest DLLs this image holds a reference on (its imports and the
    /// targets of forwarders it resolved).
    pub deps: Vec<u32>,
    /// LoadLibrary references plus references from dependants; unused when pinned.
    pub refs: u32,
    /// Loaded at process start (statically linked): never unloaded.
    pub pinned: bool,
    /// DLL_PROCESS_ATTACH has been delivered (or started).
    pub attached: bool,
    /// DllMain gets DLL_THREAD_ATTACH/DETACH (until DisableThreadLibraryCalls).
    pub thread_calls: bool,
    /// SizeOfStackReserve / SizeOfStackCommit from the optional header.
    pub stack_reserve: u32,
    pub stack_commit: u32,
}

/// Implicit TLS of one image (IMAGE_TLS_DIRECTORY32, addresses relocated).
#[derive(Clone, Debug)]
pub struct TlsModule {
    pub base: u32,
    /// Template data: `len` bytes at `start`, then `zero_fill` zero bytes.
    pub start: u32,
    pub len: u32,
    pub zero_fill: u32,
    /// Where the image wants its TLS index (AddressOfIndex).
    pub index_addr: u32,
    /// Null-terminated array of callback addresses, 0 if none.
    pub callbacks: u32,
}

/// A thread's loader-owned memory.
#[derive(Clone, Debug)]
pub struct ThreadRec {
    pub teb: u32,
    /// Reservation base of the stack (0 if the thread's stack is not the loader's).
    pub stack: u32,
    /// The array TEB+0x2C points to, and its capacity in entries.
    pub tls_array: u32,
    pub tls_cap: u32,
    /// Reservations holding the TLS array and data blocks.
    pub tls_blocks: Vec<u32>,
}

/// The loader's per-process state (in [`crate::process::Process::loader`]).
#[derive(Default)]
pub struct LoaderState {
    pub images: Vec<Image>,
    /// Image bases in initialisation order: every DLL after the DLLs it imports,
    /// the program last among the statically loaded images.
    pub init_order: Vec<u32>,
    /// Implicit TLS, indexed by TLS index (`None` once the image is unloaded).
    pub tls: Vec<Option<TlsModule>>,
    /// Threads by thread id.
    pub threads: HashMap<u32, ThreadRec>,
    /// Where DLLs shipped with the program are looked up.
    pub source: Option<Arc<dyn DllSource>>,
    /// Guest folder of the program, with a trailing backslash (`C:\GAMES\FOO\`).
    pub guest_dir: String,
    /// Guest address of the PEB.
    pub peb: u32,
    /// SizeOfStackReserve of the program (the default for new threads).
    pub stack_reserve: u32,
    /// HLE data exports whose initialisers have run.
    pub data_inited: HashSet<(usize, usize)>,
    /// DLL names already reported as missing (to warn once).
    pub missing_warned: HashSet<String>,
}

impl LoaderState {
    pub fn image(&self, base: u32) -> Option<&Image> {
        self.images.iter().find(|i| i.base == base)
    }

    pub fn image_mut(&mut self, base: u32) -> Option<&mut Image> {
        self.images.iter_mut().find(|i| i.base == base)
    }

    /// The guest image whose name matches `name` (case-insensitive, `.dll` optional).
    pub fn image_named(&self, name: &str) -> Option<&Image> {
        let key = crate::process::dll_key(&source::file_name_for(name));
        self.images
            .iter()
            .find(|i| crate::process::dll_key(&i.name) == key)
    }

    /// The program image (the first image that is not a DLL).
    pub fn program(&self) -> Option<&Image> {
        self.images.iter().find(|i| !i.is_dll)
    }
}

/// Locks the loader state, recovering from a poisoned lock.
pub fn state(proc: &crate::process::Process) -> std::sync::MutexGuard<'_, LoaderState> {
    proc.loader.lock().unwrap_or_else(|e| e.into_inner())
}
