//! ADVAPI32 registry functions (Reg*, A and W).
//!
//! # Where the registry lives
//!
//! One registry per program, kept in memory in [`Process::registry`] and persisted as
//! `registry.reg` in the program's overlay folder (beside, never inside, the
//! guest-visible drive), in the text format of `regfile.rs`, so users can edit it.
//! It is loaded on the first registry call; without a file the standard keys are
//! seeded (see [`seed_software`]); nothing is written until a program changes
//! something. Every call that changes a stable key rewrites the file at once
//! (written to a temporary file and renamed over the old one), so nothing depends
//! on the program closing its keys or exiting cleanly. A file that cannot be
//! written is reported with a warning, the registry keeps working in memory, and
//! the next change or RegFlushKey tries again. A file that cannot be parsed stops
//! the program with a report naming the line.
//!
//! `HKEY_LOCAL_MACHINE\Hardware` is volatile, as on Windows NT: rebuilt at every
//! start (the processor key describes the CPU winterp emulates) and never saved,
//! like keys created with REG_OPTION_VOLATILE and everything under HKEY_DYN_DATA.
//!
//! # Semantics
//!
//! As documented for Windows NT (and checked by Wine's conformance tests on real
//! Windows), except where Windows 9x differs in a way programs rely on: with a 9x
//! version configured RegDeleteKey removes a key's whole subtree, on NT it refuses a
//! key with subkeys (ERROR_ACCESS_DENIED). Names are case-insensitive; subkeys
//! enumerate in name order and values in the order they were first set. String
//! values are stored in UTF-16 with their terminating NUL, and a string set with a
//! size that leaves out the NUL that follows it in memory gets it added (as Windows
//! does). The A functions convert names and string data through code page 1252.
//! Access masks and security attributes are accepted and not enforced; keys have
//! no security descriptor (RegQueryInfoKey reports its size as 0).
//!
//! RegNotifyChangeKeyValue supports asynchronous notification: the event is
//! signalled once, when a matching change is made through these functions or the
//! watched key is deleted or its handle closed with RegCloseKey (not CloseHandle).
//! The synchronous form (blocking the caller until a change) is not implemented.
//!
//! HKEY_CURRENT_USER is `HKEY_USERS\.DEFAULT` (Windows 9x without user profiles)
//! and HKEY_CLASSES_ROOT is `HKEY_LOCAL_MACHINE\Software\Classes`, without NT 5's
//! per-user merge; HKEY_PERFORMANCE_DATA is not implemented.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use super::hive::{self, Hive, NodeId, PathError, REG_DWORD, REG_SZ, Root, Value};
use super::regfile;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall, stdcall_aw};
use crate::kernel32::file::vfs;
use crate::kernel32::misc::err::{
    ERROR_ACCESS_DENIED, ERROR_BAD_PATHNAME, ERROR_FILE_NOT_FOUND, ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER, ERROR_MORE_DATA, ERROR_NOACCESS, ERROR_SUCCESS,
};
use crate::kernel32::string::{GuestStr, decode_ansi, encode_ansi, read_ansi, read_wstr};
use crate::kernel32::time::{INSNS_PER_MICRO, now_filetime};
use crate::objects::KernelObject;
use crate::process::{Process, WinVersion};
use crate::teb::{last_error, set_last_error};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub const HKEY_CLASSES_ROOT: u32 = 0x8000_0000;
pub const HKEY_CURRENT_USER: u32 = 0x8000_0001;
pub const HKEY_LOCAL_MACHINE: u32 = 0x8000_0002;
pub const HKEY_USERS: u32 = 0x8000_0003;
pub const HKEY_PERFORMANCE_DATA: u32 = 0x8000_0004;
pub const HKEY_CURRENT_CONFIG: u32 = 0x8000_0005;
pub const HKEY_DYN_DATA: u32 = 0x8000_0006;
const HKEY_PERFORMANCE_TEXT: u32 = 0x8000_0050;
const HKEY_PERFORMANCE_NLSTEXT: u32 = 0x8000_0060;

pub const ERROR_NO_MORE_ITEMS: u32 = 259;
pub const ERROR_KEY_DELETED: u32 = 1018;
pub const ERROR_CHILD_MUST_BE_VOLATILE: u32 = 1021;

pub const REG_OPTION_VOLATILE: u32 = 0x1;
const REG_OPTION_CREATE_LINK: u32 = 0x2;
const REG_OPTION_BACKUP_RESTORE: u32 = 0x4;
pub const REG_CREATED_NEW_KEY: u32 = 1;
pub const REG_OPENED_EXISTING_KEY: u32 = 2;

pub const REG_NOTIFY_CHANGE_NAME: u32 = 0x1;
pub const REG_NOTIFY_CHANGE_ATTRIBUTES: u32 = 0x2;
pub const REG_NOTIFY_CHANGE_LAST_SET: u32 = 0x4;
pub const REG_NOTIFY_CHANGE_SECURITY: u32 = 0x8;
const REG_NOTIFY_THREAD_AGNOSTIC: u32 = 0x1000_0000;

/// The file in the overlay folder that holds the registry.
pub const REGISTRY_FILE: &str = "registry.reg";
/// Largest value a program may set in one call; larger sizes are treated as the bad
/// pointer they almost certainly are.
const MAX_VALUE_SIZE: u32 = 1 << 26;

/// The process's registry, loaded on first use.
#[derive(Default)]
pub struct RegistryState {
    inner: Mutex<Option<Loaded>>,
}

struct Loaded {
    hive: Hive,
    file: PathBuf,
    /// The text last read from or written to `file` (nothing is written while the
    /// text would not change).
    saved: String,
    /// Windows NT semantics (HKEY_CURRENT_CONFIG's location, RegDeleteKey).
    nt: bool,
    notifies: Vec<Notify>,
    /// The last save failed (RegFlushKey tries again).
    unsaved: bool,
}

/// A pending RegNotifyChangeKeyValue.
struct Notify {
    handle: u32,
    node: NodeId,
    subtree: bool,
    filter: u32,
    event: Arc<dyn KernelObject>,
}

/// An open registry key (an HKEY from RegOpenKey/RegCreateKey).
pub struct KeyObject {
    node: NodeId,
}

impl KernelObject for KeyObject {
    fn type_name(&self) -> &'static str {
        "Key"
    }
}

fn is_nt(v: WinVersion) -> bool {
    matches!(v, WinVersion::Nt4 | WinVersion::Win2000 | WinVersion::WinXp)
}

// ---- loading and seeding ---------------------------------------------------------------

fn set_sz(hive: &mut Hive, key: NodeId, name: &str, text: &str, now: u64) {
    let mut data: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    data.extend_from_slice(&[0, 0]);
    hive.set_value(key, name, REG_SZ, data, now);
}

/// The keys a fresh Windows installation has that programs read: the version and
/// the standard folders (as GetVersionEx reports the configured version, on the
/// VFS's drive), and the empty roots of the aliases.
pub fn seed_software(
    hive: &mut Hive,
    version: WinVersion,
    drive: char,
    windows_dir: &str,
    now: u64,
) {
    let lm = hive.root(Root::LocalMachine);
    let cv = hive.ensure(
        lm,
        &["Software", "Microsoft", "Windows", "CurrentVersion"],
        false,
        now,
    );
    let program_files = format!("{drive}:\\Program Files");
    set_sz(hive, cv, "ProgramFilesDir", &program_files, now);
    set_sz(
        hive,
        cv,
        "CommonFilesDir",
        &format!("{program_files}\\Common Files"),
        now,
    );
    let nine_x = match version {
        WinVersion::Win95 => Some(("Microsoft Windows 95", "Windows 95", "4.00.950", "")),
        WinVersion::Win98 => Some(("Microsoft Windows 98", "Windows 98", "4.10.2222", " A ")),
        WinVersion::WinMe => Some((
            "Microsoft Windows ME",
            "Windows Millennium Edition",
            "4.90.3000",
            " ",
        )),
        _ => None,
    };
    if let Some((product, name, number, sub)) = nine_x {
        for (k, v) in [
            ("ProductName", product),
            ("Version", name),
            ("VersionNumber", number),
            ("SubVersionNumber", sub),
            ("SystemRoot", windows_dir),
            ("RegisteredOwner", super::user::USER_NAME),
            ("RegisteredOrganization", ""),
        ] {
            set_sz(hive, cv, k, v, now);
        }
        set_sz(hive, cv, "MediaPath", &format!("{windows_dir}\\MEDIA"), now);
    } else {
        let (product, current, build, csd) = match version {
            WinVersion::Nt4 => ("Microsoft Windows NT", "4.0", "1381", "Service Pack 6"),
            WinVersion::Win2000 => ("Microsoft Windows 2000", "5.0", "2195", "Service Pack 4"),
            _ => ("Microsoft Windows XP", "5.1", "2600", "Service Pack 3"),
        };
        let nt = hive.ensure(
            lm,
            &["Software", "Microsoft", "Windows NT", "CurrentVersion"],
            false,
            now,
        );
        for (k, v) in [
            ("ProductName", product),
            ("CurrentVersion", current),
            ("CurrentBuildNumber", build),
            ("CSDVersion", csd),
            ("SystemRoot", windows_dir),
            ("RegisteredOwner", super::user::USER_NAME),
            ("RegisteredOrganization", ""),
        ] {
            set_sz(hive, nt, k, v, now);
        }
    }
    hive.ensure(lm, &["System", "CurrentControlSet", "Control"], false, now);
    hive.ensure(
        hive.root(Root::Users),
        &[".DEFAULT", "Software"],
        false,
        now,
    );
}

/// The processor key, from the CPUID the core reports. `~MHz` is the rate the time
/// stamp counter (one tick per retired instruction) runs at on the guest's clock.
pub fn seed_hardware(hive: &mut Hive, now: u64) {
    use winterp_core::ops::system::{CPUID_SIGNATURE, cpuid};
    let lm = hive.root(Root::LocalMachine);
    hive.ensure(lm, &["Hardware"], true, now);
    let cpu = hive.ensure(
        lm,
        &["Hardware", "Description", "System", "CentralProcessor", "0"],
        true,
        now,
    );
    let (family, model, stepping) = (
        (CPUID_SIGNATURE >> 8) & 0xf,
        (CPUID_SIGNATURE >> 4) & 0xf,
        CPUID_SIGNATURE & 0xf,
    );
    let (_, b, c, d) = cpuid(0);
    let vendor: Vec<u8> = [b, d, c].iter().flat_map(|r| r.to_le_bytes()).collect();
    set_sz(
        hive,
        cpu,
        "Identifier",
        &format!("x86 Family {family} Model {model} Stepping {stepping}"),
        now,
    );
    set_sz(
        hive,
        cpu,
        "VendorIdentifier",
        &String::from_utf8_lossy(&vendor),
        now,
    );
    hive.set_value(
        cpu,
        "~MHz",
        REG_DWORD,
        (INSNS_PER_MICRO as u32).to_le_bytes().to_vec(),
        now,
    );
}

fn load(proc: &Process, now: u64) -> ApiResult<Loaded> {
    let vfs = vfs(proc)?;
    let file = vfs.overlay_dir().join(REGISTRY_FILE);
    let nt = is_nt(proc.config.version);
    let mut hive = Hive::new(now);
    match std::fs::read(&file) {
        Ok(bytes) => regfile::read(&bytes, &mut hive, nt, now)
            .map_err(|e| ApiError::Other(format!("registry file {}: {e}", file.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => seed_software(
            &mut hive,
            proc.config.version,
            vfs.drive(),
            &vfs.windows_dir(),
            now,
        ),
        Err(e) => {
            return Err(ApiError::Other(format!(
                "cannot read the registry file {}: {e}",
                file.display()
            )));
        }
    }
    // Compared with what a change produces, so an unchanged registry (or one only
    // seeded) is never written.
    let saved = if file.exists() {
        regfile::write(&hive)
    } else {
        String::new()
    };
    seed_hardware(&mut hive, now);
    Ok(Loaded {
        hive,
        file,
        saved,
        nt,
        notifies: Vec::new(),
        unsaved: false,
    })
}

// ---- the registry during one call ------------------------------------------------------

/// The loaded registry while a call holds it.
struct Reg<'a> {
    l: &'a mut Loaded,
    proc: &'a Process,
    now: u64,
    /// Events of notifications that fired, signalled once the registry is released.
    fire: Vec<Arc<dyn KernelObject>>,
    dirty: bool,
}

/// Runs `f` on the process's registry (loading it first if needed), saves it if `f`
/// changed it, then signals the notifications `f` fired.
fn with_reg<T>(cx: &mut Ctx, f: impl FnOnce(&mut Reg) -> ApiResult<T>) -> ApiResult<T> {
    let now = now_filetime(cx);
    let proc = cx.proc;
    let (out, fire) = {
        let mut guard = proc
            .registry
            .inner
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(load(proc, now)?);
        }
        let Some(l) = guard.as_mut() else {
            return Err(ApiError::Other("the registry failed to load".into()));
        };
        let mut r = Reg {
            l,
            proc,
            now,
            fire: Vec::new(),
            dirty: false,
        };
        let out = f(&mut r);
        if r.dirty {
            r.save();
        }
        (out, r.fire)
    };
    for ev in &fire {
        signal_event(cx, ev)?;
    }
    out
}

/// Sets an event through KERNEL32's SetEvent (which owns the event type), keeping
/// the caller's last error.
fn signal_event(cx: &mut Ctx, ev: &Arc<dyn KernelObject>) -> ApiResult<()> {
    let proc = cx.proc;
    let set_event = proc
        .hle_dll("KERNEL32")
        .and_then(|d| proc.dlls[d].1.iter().find(|e| e.name == "SetEvent"))
        .ok_or_else(|| {
            ApiError::Other("registry notification: KERNEL32!SetEvent is missing".into())
        })?;
    let h = proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(ev.clone());
    let saved = last_error(cx)?;
    let r = set_event.call(cx, &[h]);
    proc.handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .close(h);
    set_last_error(cx, saved)?;
    r.map(|_| ())
}

fn is_predefined(hkey: u32) -> bool {
    (HKEY_CLASSES_ROOT..=HKEY_DYN_DATA).contains(&hkey)
        || hkey == HKEY_PERFORMANCE_TEXT
        || hkey == HKEY_PERFORMANCE_NLSTEXT
}

impl Reg<'_> {
    fn save(&mut self) {
        let text = regfile::write(&self.l.hive);
        if text == self.l.saved {
            return;
        }
        let tmp = self.l.file.with_extension("reg.tmp");
        match std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, &self.l.file)) {
            Ok(()) => {
                self.l.saved = text;
                self.l.unsaved = false;
            }
            Err(e) => {
                self.l.unsaved = true;
                log::warn!(
                    "registry: cannot save {}: {e} (changes are kept in memory)",
                    self.l.file.display()
                );
            }
        }
    }

    /// The key a predefined handle stands for (its alias path is created if a
    /// program deleted it); `None` if `hkey` is not predefined.
    fn predefined(&mut self, hkey: u32) -> ApiResult<Option<NodeId>> {
        let name = match hkey {
            HKEY_CLASSES_ROOT => "HKEY_CLASSES_ROOT",
            HKEY_CURRENT_USER => "HKEY_CURRENT_USER",
            HKEY_LOCAL_MACHINE => "HKEY_LOCAL_MACHINE",
            HKEY_USERS => "HKEY_USERS",
            HKEY_CURRENT_CONFIG => "HKEY_CURRENT_CONFIG",
            HKEY_DYN_DATA => "HKEY_DYN_DATA",
            HKEY_PERFORMANCE_DATA | HKEY_PERFORMANCE_TEXT | HKEY_PERFORMANCE_NLSTEXT => {
                return Err(ApiError::UnimplementedCase(
                    "registry: HKEY_PERFORMANCE_DATA".into(),
                ));
            }
            _ => return Ok(None),
        };
        let Some((root, comps)) = hive::alias(name, self.l.nt) else {
            return Ok(None);
        };
        let top = self.l.hive.root(root);
        // Structure only: saved with the next real change, not because of a read.
        Ok(Some(self.l.hive.ensure(top, comps, false, self.now)))
    }

    /// The key behind a handle, or the Win32 error for a bad one.
    fn key(&mut self, hkey: u32) -> ApiResult<Result<NodeId, u32>> {
        if let Some(id) = self.predefined(hkey)? {
            return Ok(Ok(id));
        }
        let obj = self
            .proc
            .handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_as::<KeyObject>(hkey);
        Ok(match obj {
            Some(k) if self.l.hive.exists(k.node) => Ok(k.node),
            Some(_) => Err(ERROR_KEY_DELETED),
            None => Err(ERROR_INVALID_HANDLE),
        })
    }

    fn new_handle(&self, node: NodeId) -> u32 {
        self.proc
            .handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(Arc::new(KeyObject { node }))
    }

    /// Fires the notifications a change of kind `what` (REG_NOTIFY_CHANGE_*) to
    /// `node` satisfies.
    fn changed(&mut self, node: NodeId, what: u32) {
        let hive = &self.l.hive;
        let (hit, keep): (Vec<Notify>, Vec<Notify>) = std::mem::take(&mut self.l.notifies)
            .into_iter()
            .partition(|n| {
                n.filter & what != 0
                    && (n.node == node || (n.subtree && hive.is_at_or_above(n.node, node)))
            });
        self.l.notifies = keep;
        self.fire.extend(hit.into_iter().map(|n| n.event));
    }

    /// Fires every notification on a deleted key or a closed handle.
    fn fire_where(&mut self, pred: impl Fn(&Notify) -> bool) {
        let (hit, keep): (Vec<Notify>, Vec<Notify>) = std::mem::take(&mut self.l.notifies)
            .into_iter()
            .partition(pred);
        self.l.notifies = keep;
        self.fire.extend(hit.into_iter().map(|n| n.event));
    }

    /// Opens or creates `comps` below `from`; returns the key and whether it was
    /// created.
    fn create_path(
        &mut self,
        from: NodeId,
        comps: &[&str],
        class: &str,
        volatile: bool,
    ) -> Result<(NodeId, bool), u32> {
        let dyn_data = self.l.hive.root(Root::DynData);
        let mut at = from;
        let mut created = false;
        for (k, c) in comps.iter().enumerate() {
            if let Some(id) = self.l.hive.child(at, c) {
                at = id;
                continue;
            }
            let mut volatile = volatile;
            if self.l.hive.is_volatile(at) && !volatile {
                // HKEY_DYN_DATA is volatile as a whole; elsewhere Windows refuses.
                if !self.l.hive.is_at_or_above(dyn_data, at) {
                    return Err(ERROR_CHILD_MUST_BE_VOLATILE);
                }
                volatile = true;
            }
            self.changed(at, REG_NOTIFY_CHANGE_NAME);
            let class = if k + 1 == comps.len() { class } else { "" };
            at = self.l.hive.create_child(at, c, class, volatile, self.now);
            created = true;
            self.dirty = true;
        }
        Ok((at, created))
    }

    fn set_value(&mut self, node: NodeId, name: &str, kind: u32, data: Vec<u8>) {
        self.l.hive.set_value(node, name, kind, data, self.now);
        self.changed(node, REG_NOTIFY_CHANGE_LAST_SET);
        self.dirty = true;
    }

    fn delete(&mut self, node: NodeId) {
        if let Some(parent) = self.l.hive.node(node).and_then(|n| n.parent) {
            self.changed(parent, REG_NOTIFY_CHANGE_NAME);
        }
        let gone = self.l.hive.delete(node, self.now);
        self.fire_where(|n| gone.contains(&n.node));
        self.dirty = true;
    }
}

// ---- guest strings and data ------------------------------------------------------------

/// The character set of a call: the A functions use code page 1252, the W functions
/// UTF-16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cs {
    A,
    W,
}

impl Cs {
    /// The set of an export whose string parameters are `S`.
    fn of<S: GuestStr>() -> Cs {
        if S::WIDE { Cs::W } else { Cs::A }
    }

    fn read(self, proc: &Process, p: u32) -> ApiResult<Option<String>> {
        if p == 0 {
            return Ok(None);
        }
        Ok(Some(match self {
            Cs::A => read_ansi(proc, p)?,
            Cs::W => read_wstr(proc, p)?,
        }))
    }

    /// `s` in this character set, without a NUL.
    fn encode(self, s: &str) -> Vec<u8> {
        match self {
            Cs::A => encode_ansi(s),
            Cs::W => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        }
    }

    fn unit(self) -> u32 {
        match self {
            Cs::A => 1,
            Cs::W => 2,
        }
    }

    /// Length of `s` in characters of this set.
    fn len(self, s: &str) -> u32 {
        self.encode(s).len() as u32 / self.unit()
    }

    /// Writes `s` and a NUL at `p`.
    fn put(self, proc: &Process, p: u32, s: &str) -> ApiResult<()> {
        let mut b = self.encode(s);
        b.extend(std::iter::repeat_n(0, self.unit() as usize));
        proc.mem.write_bytes(p, &b)?;
        Ok(())
    }
}

/// UTF-16LE bytes to 1252, one byte per unit (unpaired or paired surrogates become
/// `?`, like any character 1252 lacks).
fn wide_to_ansi(data: &[u8]) -> Vec<u8> {
    let s: String = data
        .chunks_exact(2)
        .map(|c| char::from_u32(u16::from_le_bytes([c[0], c[1]]) as u32).unwrap_or('?'))
        .collect();
    encode_ansi(&s)
}

fn ansi_to_wide(bytes: &[u8]) -> Vec<u8> {
    decode_ansi(bytes)
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// A value's data as a call in `cs` sees it.
fn data_for(v: &Value, cs: Cs) -> Vec<u8> {
    if cs == Cs::A && hive::is_string(v.kind) {
        wide_to_ansi(&v.data)
    } else {
        v.data.clone()
    }
}

/// The data a RegSetValueEx call passes, as stored; `Err` with ERROR_NOACCESS for
/// unreadable memory.
fn data_from_guest(proc: &Process, kind: u32, p: u32, cb: u32, cs: Cs) -> Result<Vec<u8>, u32> {
    if p == 0 {
        return if cb == 0 {
            Ok(Vec::new())
        } else {
            Err(ERROR_NOACCESS)
        };
    }
    if cb > MAX_VALUE_SIZE {
        return Err(ERROR_NOACCESS);
    }
    let mut cb = cb;
    // A string whose size leaves out its terminating NUL gets it back, as Windows NT
    // does ("forgot to count the NUL").
    if hive::is_string(kind) && cb > 0 {
        match cs {
            Cs::A => {
                let last = proc.mem.read_u8(p + cb - 1).map_err(|_| ERROR_NOACCESS)?;
                if last != 0 && matches!(proc.mem.read_u8(p.wrapping_add(cb)), Ok(0)) {
                    cb += 1;
                }
            }
            Cs::W => {
                let n = cb / 2;
                if n > 0 {
                    let last = proc
                        .mem
                        .read_u16(p + 2 * n - 2)
                        .map_err(|_| ERROR_NOACCESS)?;
                    if last != 0 && matches!(proc.mem.read_u16(p.wrapping_add(2 * n)), Ok(0)) {
                        cb = 2 * n + 2;
                    }
                }
            }
        }
    }
    let mut buf = vec![0u8; cb as usize];
    proc.mem
        .read_bytes(p, &mut buf)
        .map_err(|_| ERROR_NOACCESS)?;
    if cs == Cs::A && hive::is_string(kind) {
        buf = ansi_to_wide(&buf);
    }
    Ok(buf)
}

/// Stores value data for the caller as RegQueryValueEx does: the type, then the
/// data if it fits (ERROR_MORE_DATA and the size needed if not), then the size.
/// An A call gets a NUL after string data that lacks one when there is room.
fn put_data(
    proc: &Process,
    kind: u32,
    data: &[u8],
    lpType: u32,
    lpData: u32,
    lpcbData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    // Read the capacity before writing the type: programs pass one variable for both.
    let cap = if lpcbData != 0 {
        proc.mem.read_u32(lpcbData)?
    } else {
        0
    };
    if lpType != 0 {
        proc.mem.write_u32(lpType, kind)?;
    }
    let need = data.len() as u32;
    if lpData != 0 {
        if cap < need {
            proc.mem.write_u32(lpcbData, need)?;
            return Ok(ERROR_MORE_DATA);
        }
        proc.mem.write_bytes(lpData, data)?;
        if cs == Cs::A
            && hive::is_string(kind)
            && need < cap
            && data.last().is_some_and(|&b| b != 0)
        {
            proc.mem.write_u8(lpData + need, 0)?;
        }
    }
    if lpcbData != 0 {
        proc.mem.write_u32(lpcbData, need)?;
    }
    Ok(ERROR_SUCCESS)
}

fn path_code(e: PathError) -> u32 {
    match e {
        PathError::BadPathname => ERROR_BAD_PATHNAME,
    }
}

/// Evaluates to the key behind a handle or returns its error code from the closure.
macro_rules! key_or_return {
    ($r:expr, $h:expr) => {
        match $r.key($h)? {
            Ok(n) => n,
            Err(code) => return Ok(code),
        }
    };
}

// ---- opening, creating and closing keys ------------------------------------------------------

fn open_key(
    cx: &mut Ctx,
    hKey: u32,
    sub: Option<String>,
    phkResult: u32,
    ex: bool,
) -> ApiResult<u32> {
    if phkResult == 0 {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    let sub = sub.unwrap_or_default();
    if sub.is_empty() && !ex && hKey == 0 {
        // RegOpenKey(NULL, NULL) "opens" NULL.
        proc.mem.write_u32(phkResult, 0)?;
        return Ok(ERROR_SUCCESS);
    }
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let comps = match hive::split_path(&sub) {
            Ok(c) => c,
            Err(e) => return Ok(path_code(e)),
        };
        if comps.is_empty() && (!ex || is_predefined(hKey)) {
            // An empty path gives back the same handle (RegOpenKeyEx: only for the
            // predefined keys; others get a new handle).
            proc.mem.write_u32(phkResult, hKey)?;
            return Ok(ERROR_SUCCESS);
        }
        let Some(target) = r.l.hive.lookup(node, &comps) else {
            proc.mem.write_u32(phkResult, 0)?;
            return Ok(ERROR_FILE_NOT_FOUND);
        };
        proc.mem.write_u32(phkResult, r.new_handle(target))?;
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegOpenKey<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    phkResult: Ptr,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    open_key(cx, hKey, sub, phkResult.0, false)
}

pub fn RegOpenKeyEx<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    _ulOptions: u32,
    _samDesired: u32,
    phkResult: Ptr,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    open_key(cx, hKey, sub, phkResult.0, true)
}

fn create_key(
    cx: &mut Ctx,
    hKey: u32,
    sub: Option<String>,
    class: Option<String>,
    options: u32,
    phkResult: u32,
    disposition: u32,
    ex: bool,
) -> ApiResult<u32> {
    if phkResult == 0 || (ex && sub.is_none()) {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    if options & REG_OPTION_CREATE_LINK != 0 {
        return Err(ApiError::UnimplementedCase(
            "RegCreateKeyEx: REG_OPTION_CREATE_LINK (symbolic links)".into(),
        ));
    }
    if options & REG_OPTION_BACKUP_RESTORE != 0 {
        return Err(ApiError::UnimplementedCase(
            "RegCreateKeyEx: REG_OPTION_BACKUP_RESTORE".into(),
        ));
    }
    let proc = cx.proc;
    let sub = sub.unwrap_or_default();
    let class = class.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let comps = match hive::split_path(&sub) {
            Ok(c) => c,
            Err(e) => return Ok(path_code(e)),
        };
        if comps.is_empty() && !ex {
            // RegCreateKey with an empty path gives back the handle passed in.
            proc.mem.write_u32(phkResult, hKey)?;
            return Ok(ERROR_SUCCESS);
        }
        let (target, created) =
            match r.create_path(node, &comps, &class, options & REG_OPTION_VOLATILE != 0) {
                Ok(x) => x,
                Err(code) => return Ok(code),
            };
        proc.mem.write_u32(phkResult, r.new_handle(target))?;
        if disposition != 0 {
            let d = if created {
                REG_CREATED_NEW_KEY
            } else {
                REG_OPENED_EXISTING_KEY
            };
            proc.mem.write_u32(disposition, d)?;
        }
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegCreateKey<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    phkResult: Ptr,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    create_key(cx, hKey, sub, None, 0, phkResult.0, 0, false)
}

pub fn RegCreateKeyEx<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    _Reserved: u32,
    lpClass: S,
    dwOptions: u32,
    _samDesired: u32,
    _lpSecurityAttributes: Ptr,
    phkResult: Ptr,
    lpdwDisposition: Ptr,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    let class = lpClass.read_opt(cx.proc)?;
    create_key(
        cx,
        hKey,
        sub,
        class,
        dwOptions,
        phkResult.0,
        lpdwDisposition.0,
        true,
    )
}

/// Closing a predefined key succeeds without effect, as on Windows.
pub fn RegCloseKey(cx: &mut Ctx, hKey: u32) -> ApiResult<u32> {
    if is_predefined(hKey) {
        return Ok(ERROR_SUCCESS);
    }
    let proc = cx.proc;
    with_reg(cx, |r| {
        let mut handles = proc.handles.lock().unwrap_or_else(|e| e.into_inner());
        if handles.get_as::<KeyObject>(hKey).is_none() {
            return Ok(ERROR_INVALID_HANDLE);
        }
        handles.close(hKey);
        drop(handles);
        r.fire_where(|n| n.handle == hKey);
        Ok(ERROR_SUCCESS)
    })
}

/// Every change is already on disk (see the module comment) unless saving failed,
/// which this retries.
pub fn RegFlushKey(cx: &mut Ctx, hKey: u32) -> ApiResult<u32> {
    with_reg(cx, |r| {
        key_or_return!(r, hKey);
        if r.l.unsaved {
            r.save();
        }
        Ok(ERROR_SUCCESS)
    })
}

// ---- deleting ---------------------------------------------------------------------------------

fn delete_key(cx: &mut Ctx, hKey: u32, sub: Option<String>) -> ApiResult<u32> {
    let Some(sub) = sub else {
        return Ok(ERROR_INVALID_PARAMETER);
    };
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let comps = match hive::split_path(&sub) {
            Ok(c) => c,
            Err(e) => return Ok(path_code(e)),
        };
        if comps.is_empty() && is_predefined(hKey) {
            return Ok(ERROR_ACCESS_DENIED);
        }
        let Some(target) = r.l.hive.lookup(node, &comps) else {
            return Ok(ERROR_FILE_NOT_FOUND);
        };
        if r.l.hive.is_root(target) {
            return Ok(ERROR_ACCESS_DENIED);
        }
        // Windows NT deletes only keys without subkeys; Windows 9x removes the tree.
        if r.l.nt && !r.l.hive.children(target).is_empty() {
            return Ok(ERROR_ACCESS_DENIED);
        }
        r.delete(target);
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegDeleteKey<S: GuestStr>(cx: &mut Ctx, hKey: u32, lpSubKey: S) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    delete_key(cx, hKey, sub)
}

fn delete_value(cx: &mut Ctx, hKey: u32, name: Option<String>) -> ApiResult<u32> {
    let name = name.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        if !r.l.hive.delete_value(node, &name, r.now) {
            return Ok(ERROR_FILE_NOT_FOUND);
        }
        r.dirty = true;
        r.changed(node, REG_NOTIFY_CHANGE_LAST_SET);
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegDeleteValue<S: GuestStr>(cx: &mut Ctx, hKey: u32, lpValueName: S) -> ApiResult<u32> {
    let name = lpValueName.read_opt(cx.proc)?;
    delete_value(cx, hKey, name)
}

// ---- values -------------------------------------------------------------------------------------

fn query_value_ex(
    cx: &mut Ctx,
    hKey: u32,
    name: Option<String>,
    lpReserved: u32,
    lpType: u32,
    lpData: u32,
    lpcbData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if lpReserved != 0 || (lpData != 0 && lpcbData == 0) {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    let name = name.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let Some(v) = r.l.hive.value(node, &name) else {
            if lpData == 0 && lpcbData != 0 {
                proc.mem.write_u32(lpcbData, 0)?;
            }
            return Ok(ERROR_FILE_NOT_FOUND);
        };
        put_data(proc, v.kind, &data_for(v, cs), lpType, lpData, lpcbData, cs)
    })
}

pub fn RegQueryValueEx<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpValueName: S,
    lpReserved: Ptr,
    lpType: Ptr,
    lpData: Ptr,
    lpcbData: Ptr,
) -> ApiResult<u32> {
    let name = lpValueName.read_opt(cx.proc)?;
    query_value_ex(
        cx,
        hKey,
        name,
        lpReserved.0,
        lpType.0,
        lpData.0,
        lpcbData.0,
        Cs::of::<S>(),
    )
}

fn set_value_ex(
    cx: &mut Ctx,
    hKey: u32,
    name: Option<String>,
    kind: u32,
    lpData: u32,
    cbData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    let data = match data_from_guest(cx.proc, kind, lpData, cbData, cs) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    let name = name.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        r.set_value(node, &name, kind, data);
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegSetValueEx<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpValueName: S,
    _Reserved: u32,
    dwType: u32,
    lpData: Ptr,
    cbData: u32,
) -> ApiResult<u32> {
    let name = lpValueName.read_opt(cx.proc)?;
    set_value_ex(cx, hKey, name, dwType, lpData.0, cbData, Cs::of::<S>())
}

/// RegSetValue: the default value of a subkey (created if missing), always REG_SZ,
/// sized by the string itself (cbData is ignored, as Windows does).
fn set_value(
    cx: &mut Ctx,
    hKey: u32,
    sub: Option<String>,
    dwType: u32,
    lpData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if dwType != REG_SZ || lpData == 0 {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let text = cs.read(cx.proc, lpData)?.unwrap_or_default();
    let mut data: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    data.extend_from_slice(&[0, 0]);
    let sub = sub.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let comps = match hive::split_path(&sub) {
            Ok(c) => c,
            Err(e) => return Ok(path_code(e)),
        };
        let target = match r.create_path(node, &comps, "", false) {
            Ok((t, _)) => t,
            Err(code) => return Ok(code),
        };
        r.set_value(target, "", REG_SZ, data);
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegSetValue<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    dwType: u32,
    lpData: Ptr,
    _cbData: u32,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    set_value(cx, hKey, sub, dwType, lpData.0, Cs::of::<S>())
}

/// RegQueryValue: a subkey's default value; an unset one reads as an empty string.
fn query_value(
    cx: &mut Ctx,
    hKey: u32,
    sub: Option<String>,
    lpData: u32,
    lpcbData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if lpData != 0 && lpcbData == 0 {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    let sub = sub.unwrap_or_default();
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let comps = match hive::split_path(&sub) {
            Ok(c) => c,
            Err(e) => return Ok(path_code(e)),
        };
        let Some(target) = r.l.hive.lookup(node, &comps) else {
            return Ok(ERROR_FILE_NOT_FOUND);
        };
        let (kind, data) = match r.l.hive.value(target, "") {
            Some(v) => (v.kind, data_for(v, cs)),
            None => (REG_SZ, vec![0; cs.unit() as usize]),
        };
        put_data(proc, kind, &data, 0, lpData, lpcbData, cs)
    })
}

/// The string value `name` (`""`: the default value) of key `path` under the
/// predefined key `hkey`, for other DLLs that consult the registry as Windows
/// does (SHELL32's file associations): `None` when the key or value is missing
/// or the value is not REG_SZ / REG_EXPAND_SZ (returned unexpanded).
pub fn query_string(cx: &mut Ctx, hkey: u32, path: &str, name: &str) -> ApiResult<Option<String>> {
    with_reg(cx, |r| {
        let Ok(node) = r.key(hkey)? else {
            return Ok(None);
        };
        let Ok(comps) = hive::split_path(path) else {
            return Ok(None);
        };
        let Some(target) = r.l.hive.lookup(node, &comps) else {
            return Ok(None);
        };
        Ok(r.l.hive.value(target, name).and_then(|v| {
            if v.kind != REG_SZ && v.kind != hive::REG_EXPAND_SZ {
                return None;
            }
            let units: Vec<u16> = v
                .data
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .take_while(|&u| u != 0)
                .collect();
            Some(String::from_utf16_lossy(&units))
        }))
    })
}

pub fn RegQueryValue<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpSubKey: S,
    lpData: Ptr,
    lpcbData: Ptr,
) -> ApiResult<u32> {
    let sub = lpSubKey.read_opt(cx.proc)?;
    query_value(cx, hKey, sub, lpData.0, lpcbData.0, Cs::of::<S>())
}

// ---- enumeration and information ---------------------------------------------------------------

fn enum_key(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpName: u32,
    cchName: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if lpName == 0 {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let Some(child) = r.l.hive.child_at(node, dwIndex as usize) else {
            return Ok(ERROR_NO_MORE_ITEMS);
        };
        let name =
            r.l.hive
                .node(child)
                .map(|n| n.name.clone())
                .unwrap_or_default();
        if cs.len(&name) >= cchName {
            return Ok(ERROR_MORE_DATA);
        }
        cs.put(proc, lpName, &name)?;
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegEnumKey<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpName: Ptr,
    cchName: u32,
) -> ApiResult<u32> {
    enum_key(cx, hKey, dwIndex, lpName.0, cchName, Cs::of::<S>())
}

fn enum_key_ex(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpName: u32,
    lpcchName: u32,
    lpClass: u32,
    lpcchClass: u32,
    lpftLastWriteTime: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if lpName == 0 || lpcchName == 0 || (lpClass != 0 && lpcchClass == 0) {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let Some(child) = r.l.hive.child_at(node, dwIndex as usize) else {
            return Ok(ERROR_NO_MORE_ITEMS);
        };
        let Some(n) = r.l.hive.node(child) else {
            return Ok(ERROR_NO_MORE_ITEMS);
        };
        let (name_len, class_len) = (cs.len(&n.name), cs.len(&n.class));
        if name_len >= proc.mem.read_u32(lpcchName)? {
            return Ok(ERROR_MORE_DATA);
        }
        if lpClass != 0 && class_len >= proc.mem.read_u32(lpcchClass)? {
            return Ok(ERROR_MORE_DATA);
        }
        cs.put(proc, lpName, &n.name)?;
        proc.mem.write_u32(lpcchName, name_len)?;
        if lpClass != 0 {
            cs.put(proc, lpClass, &n.class)?;
        }
        if lpcchClass != 0 {
            proc.mem.write_u32(lpcchClass, class_len)?;
        }
        if lpftLastWriteTime != 0 {
            proc.mem.write_u64(lpftLastWriteTime, n.last_write)?;
        }
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegEnumKeyEx<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpName: Ptr,
    lpcchName: Ptr,
    _lpReserved: Ptr,
    lpClass: Ptr,
    lpcchClass: Ptr,
    lpftLastWriteTime: Ptr,
) -> ApiResult<u32> {
    enum_key_ex(
        cx,
        hKey,
        dwIndex,
        lpName.0,
        lpcchName.0,
        lpClass.0,
        lpcchClass.0,
        lpftLastWriteTime.0,
        Cs::of::<S>(),
    )
}

/// RegEnumValue. When the name does not fit nothing is written but the type and
/// the data size; when only the data does not fit, the W form still stores the name
/// (the A form does not), as Windows does.
fn enum_value(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpValueName: u32,
    lpcchValueName: u32,
    lpType: u32,
    lpData: u32,
    lpcbData: u32,
    cs: Cs,
) -> ApiResult<u32> {
    if lpValueName == 0 || lpcchValueName == 0 || (lpData != 0 && lpcbData == 0) {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let Some(v) =
            r.l.hive
                .node(node)
                .and_then(|n| n.values.get(dwIndex as usize))
        else {
            return Ok(ERROR_NO_MORE_ITEMS);
        };
        let name_cap = proc.mem.read_u32(lpcchValueName)?;
        let data_cap = if lpcbData != 0 {
            proc.mem.read_u32(lpcbData)?
        } else {
            0
        };
        let data = data_for(v, cs);
        let need = data.len() as u32;
        if lpType != 0 {
            proc.mem.write_u32(lpType, v.kind)?;
        }
        if lpcbData != 0 {
            proc.mem.write_u32(lpcbData, need)?;
        }
        let name_len = cs.len(&v.name);
        if name_len >= name_cap {
            return Ok(ERROR_MORE_DATA);
        }
        let data_fits = lpData == 0 || need <= data_cap;
        if data_fits || cs == Cs::W {
            cs.put(proc, lpValueName, &v.name)?;
            proc.mem.write_u32(lpcchValueName, name_len)?;
        }
        if !data_fits {
            return Ok(ERROR_MORE_DATA);
        }
        if lpData != 0 {
            proc.mem.write_bytes(lpData, &data)?;
            if cs == Cs::A
                && hive::is_string(v.kind)
                && need < data_cap
                && data.last().is_some_and(|&b| b != 0)
            {
                proc.mem.write_u8(lpData + need, 0)?;
            }
        }
        Ok(ERROR_SUCCESS)
    })
}

pub fn RegEnumValue<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    dwIndex: u32,
    lpValueName: Ptr,
    lpcchValueName: Ptr,
    _lpReserved: Ptr,
    lpType: Ptr,
    lpData: Ptr,
    lpcbData: Ptr,
) -> ApiResult<u32> {
    enum_value(
        cx,
        hKey,
        dwIndex,
        lpValueName.0,
        lpcchValueName.0,
        lpType.0,
        lpData.0,
        lpcbData.0,
        Cs::of::<S>(),
    )
}

/// RegQueryInfoKey. Name and class lengths are in characters without the NUL, data
/// sizes in stored bytes (UTF-16 for strings, also for the A form, as on NT).
fn query_info_key(cx: &mut Ctx, hKey: u32, out: [u32; 10], cs: Cs) -> ApiResult<u32> {
    let [
        lpClass,
        lpcchClass,
        lpcSubKeys,
        lpcbMaxSubKeyLen,
        lpcbMaxClassLen,
        lpcValues,
        lpcbMaxValueNameLen,
        lpcbMaxValueLen,
        lpcbSecurityDescriptor,
        lpftLastWriteTime,
    ] = out;
    let proc = cx.proc;
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        if lpClass != 0 && lpcchClass == 0 {
            return Ok(ERROR_INVALID_PARAMETER);
        }
        let hive = &r.l.hive;
        let Some(n) = hive.node(node) else {
            return Ok(ERROR_KEY_DELETED);
        };
        let children = hive.children(node);
        let subs: Vec<&hive::Node> = children.iter().filter_map(|&c| hive.node(c)).collect();
        let mut code = ERROR_SUCCESS;
        let class_len = cs.len(&n.class);
        if lpcchClass != 0 {
            let mut reported = class_len;
            if lpClass != 0 {
                let cap = proc.mem.read_u32(lpcchClass)?;
                if cap == 0 {
                    reported = 0;
                } else if class_len < cap {
                    cs.put(proc, lpClass, &n.class)?;
                } else if cs == Cs::A {
                    // The A form stores what fits.
                    let mut b = cs.encode(&n.class);
                    b.truncate(cap as usize - 1);
                    b.push(0);
                    proc.mem.write_bytes(lpClass, &b)?;
                    reported = cap - 1;
                    code = ERROR_MORE_DATA;
                } else {
                    code = ERROR_MORE_DATA;
                }
            }
            proc.mem.write_u32(lpcchClass, reported)?;
        }
        let fields = [
            (lpcSubKeys, subs.len() as u32),
            (
                lpcbMaxSubKeyLen,
                subs.iter().map(|s| cs.len(&s.name)).max().unwrap_or(0),
            ),
            (
                lpcbMaxClassLen,
                subs.iter().map(|s| cs.len(&s.class)).max().unwrap_or(0),
            ),
            (lpcValues, n.values.len() as u32),
            (
                lpcbMaxValueNameLen,
                n.values.iter().map(|v| cs.len(&v.name)).max().unwrap_or(0),
            ),
            (
                lpcbMaxValueLen,
                n.values
                    .iter()
                    .map(|v| v.data.len() as u32)
                    .max()
                    .unwrap_or(0),
            ),
            (lpcbSecurityDescriptor, 0),
        ];
        for (p, v) in fields {
            if p != 0 {
                proc.mem.write_u32(p, v)?;
            }
        }
        if lpftLastWriteTime != 0 {
            proc.mem.write_u64(lpftLastWriteTime, n.last_write)?;
        }
        Ok(code)
    })
}

pub fn RegQueryInfoKey<S: GuestStr>(
    cx: &mut Ctx,
    hKey: u32,
    lpClass: Ptr,
    lpcchClass: Ptr,
    _lpReserved: Ptr,
    lpcSubKeys: Ptr,
    lpcbMaxSubKeyLen: Ptr,
    lpcbMaxClassLen: Ptr,
    lpcValues: Ptr,
    lpcbMaxValueNameLen: Ptr,
    lpcbMaxValueLen: Ptr,
    lpcbSecurityDescriptor: Ptr,
    lpftLastWriteTime: Ptr,
) -> ApiResult<u32> {
    let out = [
        lpClass.0,
        lpcchClass.0,
        lpcSubKeys.0,
        lpcbMaxSubKeyLen.0,
        lpcbMaxClassLen.0,
        lpcValues.0,
        lpcbMaxValueNameLen.0,
        lpcbMaxValueLen.0,
        lpcbSecurityDescriptor.0,
        lpftLastWriteTime.0,
    ];
    query_info_key(cx, hKey, out, Cs::of::<S>())
}

// ---- notification -------------------------------------------------------------------------------

pub fn RegNotifyChangeKeyValue(
    cx: &mut Ctx,
    hKey: u32,
    bWatchSubtree: bool,
    dwNotifyFilter: u32,
    hEvent: u32,
    fAsynchronous: bool,
) -> ApiResult<u32> {
    if !fAsynchronous {
        return Err(ApiError::UnimplementedCase(
            "RegNotifyChangeKeyValue: waiting synchronously (fAsynchronous = FALSE)".into(),
        ));
    }
    let kinds = REG_NOTIFY_CHANGE_NAME
        | REG_NOTIFY_CHANGE_ATTRIBUTES
        | REG_NOTIFY_CHANGE_LAST_SET
        | REG_NOTIFY_CHANGE_SECURITY;
    if hEvent == 0
        || dwNotifyFilter & !(kinds | REG_NOTIFY_THREAD_AGNOSTIC) != 0
        || dwNotifyFilter & kinds == 0
    {
        return Ok(ERROR_INVALID_PARAMETER);
    }
    let proc = cx.proc;
    with_reg(cx, |r| {
        let node = key_or_return!(r, hKey);
        let event = proc
            .handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(hEvent)
            .filter(|o| o.type_name() == "Event");
        let Some(event) = event else {
            return Ok(ERROR_INVALID_HANDLE);
        };
        r.l.notifies.push(Notify {
            handle: hKey,
            node,
            subtree: bWatchSubtree,
            filter: dwNotifyFilter & kinds,
            event,
        });
        Ok(ERROR_SUCCESS)
    })
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("RegCloseKey", RegCloseKey),
        stdcall("RegFlushKey", RegFlushKey),
        stdcall("RegNotifyChangeKeyValue", RegNotifyChangeKeyValue),
    ];
    v.extend(stdcall_aw![
        RegOpenKey,
        RegOpenKeyEx,
        RegCreateKey,
        RegCreateKeyEx,
        RegDeleteKey,
        RegDeleteValue,
        RegQueryValue,
        RegQueryValueEx,
        RegSetValue,
        RegSetValueEx,
        RegEnumKey,
        RegEnumKeyEx,
        RegEnumValue,
        RegQueryInfoKey,
    ]);
    v
}
