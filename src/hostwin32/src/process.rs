//! A Win32 process: guest memory and address space, loaded modules, the HLE DLLs
//! and their thunks, configuration, and process-wide state shared by its threads.

use crate::address_space::AddressSpace;
use crate::hle::thunks::{self, ThunkTable, ThunkTarget};
use crate::hle::{ApiDef, ApiError, ExportKind, HleDll};
use crate::host::Host;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use winterp_core::mem::{GuestMemory, Prot};

/// Which Windows the guest is told it runs on (GetVersion/GetVersionEx).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinVersion {
    Win95,
    Win98,
    WinMe,
    Nt4,
    Win2000,
    WinXp,
}

#[derive(Clone, Debug)]
pub struct ProcessConfig {
    /// Host path of the program.
    pub program: PathBuf,
    /// The guest's view of the program path (e.g. `C:\GAMES\FOO\GAME.EXE`).
    pub guest_path: String,
    /// Arguments after the program name.
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Run all threads cooperatively on one host thread with instruction-driven clocks.
    pub deterministic: bool,
    /// Unimplemented imports log and return 0 instead of stopping the program.
    pub stub_unimplemented: bool,
    /// Log every API call with arguments and result.
    pub trace_api: bool,
    pub version: WinVersion,
    /// Stop after this many guest instructions (all threads).
    pub max_instructions: Option<u64>,
    /// Set when another process's CreateProcess started this one.
    pub child: Option<crate::kernel32::createprocess::ChildOf>,
    /// Message boxes press their default button after showing this many 60 Hz
    /// ticks (headless runs and tests, where nobody answers); `None`: they wait
    /// for input (the player, scripted input).
    pub message_box_ticks: Option<u32>,
}

/// How long a message box shows before a headless run answers it: half a second.
pub const DEFAULT_MESSAGE_BOX_TICKS: u32 = 30;

impl ProcessConfig {
    pub fn new(program: PathBuf, guest_path: String) -> ProcessConfig {
        ProcessConfig {
            program,
            guest_path,
            args: Vec::new(),
            env: Vec::new(),
            deterministic: false,
            stub_unimplemented: false,
            trace_api: false,
            version: WinVersion::Win98,
            max_instructions: None,
            child: None,
            message_box_ticks: Some(DEFAULT_MESSAGE_BOX_TICKS),
        }
    }
}

/// A module in the guest address space: the program, a guest DLL, or an HLE DLL.
#[derive(Clone, Debug)]
pub struct Module {
    /// File name as the guest knows it (e.g. `KERNEL32.dll`).
    pub name: String,
    pub base: u32,
    pub size: u32,
    pub entry: u32,
    /// Guest path of the file it came from.
    pub path: String,
    /// Exports by name -> address (for HLE DLLs, thunk or data addresses).
    pub exports: HashMap<String, u32>,
    pub ordinals: HashMap<u16, u32>,
    /// Index into [`Process::dlls`] for HLE DLLs.
    pub hle: Option<usize>,
}

/// Counters the headless runner reports.
#[derive(Default)]
pub struct ProcessCounters {
    pub api_calls: AtomicU64,
    pub threads: AtomicU32,
    /// The first call of an API winterp does not implement (`DLL!Function(args)`),
    /// stubbed or not: what `winterp check` reports.
    pub first_unimplemented: Mutex<Option<String>>,
}

impl ProcessCounters {
    pub fn note_unimplemented(&self, call: &str) {
        let mut f = self
            .first_unimplemented
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some(call.to_string());
        }
    }
}

pub struct Process {
    pub mem: GuestMemory,
    pub vm: Mutex<AddressSpace>,
    pub thunks: RwLock<ThunkTable>,
    /// HLE DLLs: name and exports, in registration order.
    pub dlls: Vec<(&'static str, Vec<ApiDef>)>,
    /// Each HLE DLL's attach routine (index as in `dlls`), run when its
    /// pseudo-module is created.
    pub dll_attach: Vec<Option<fn(&Process)>>,
    pub modules: RwLock<Vec<Module>>,
    /// Guest addresses of HLE data exports, by (dll index, export index).
    data_exports: Mutex<HashMap<(usize, usize), u32>>,
    /// Guest address of each `GuestBlob` mapped so far (keyed by its address).
    guest_blobs: Mutex<HashMap<usize, u32>>,
    pub config: ProcessConfig,
    pub host: Arc<dyn Host>,
    /// The process exit code once set: `EXIT_SET | code`, 0 while running. An
    /// atomic because every executor run of every thread asks (see
    /// [`Process::exited`]).
    exit_code: AtomicU64,
    /// ExitProcess has begun DLL_PROCESS_DETACH (it runs once).
    pub detaching: std::sync::atomic::AtomicBool,
    pub counters: ProcessCounters,
    /// The last API calls (for crash reports).
    pub recent_calls: Mutex<RecentCalls>,
    pub handles: crate::objects::Handles,
    /// Executor counters of threads that have ended, for `--stats`.
    pub thread_stats: Mutex<Vec<(u32, winterp_core::stats::ExecCounters)>>,
    /// Hot blocks of every guest thread, published between executor runs (the
    /// overlay and `--stats`; [`Process::locate`] names their modules).
    pub hot: winterp_core::tiers::hot::HotRegistry,
    /// KERNEL32's process-wide state (environment, heaps, standard handles, ...).
    pub k32: crate::kernel32::process::ProcessEnv,
    /// The sandboxed file system the file APIs use; set once by whoever creates the
    /// process (file APIs fail with a report while it is unset).
    pub vfs: std::sync::OnceLock<Arc<crate::vfs::Vfs>>,
    /// Next thread id to hand out (multiples of 4, as on Windows NT).
    pub next_thread_id: AtomicU32,
    /// The PE loader's bookkeeping: guest images, init order, implicit TLS, threads.
    pub loader: Mutex<crate::loader::LoaderState>,
    /// Threads, the dispatcher lock, critical sections, named objects, TLS slots.
    pub sched: crate::scheduler::Sched,
    /// ADVAPI32's registry (loaded from the overlay folder on first use).
    pub registry: crate::advapi32::registry::RegistryState,
    /// The emulated screen: display mode (frames and input go through user32).
    pub display: crate::display::Display,
    /// USER32's windows, classes, message queues and timers.
    pub user32: crate::user32::State,
    /// GDI32's device contexts and objects.
    pub gdi32: crate::gdi32::State,
    pub com: crate::hle::com::ComState,
    pub sound: crate::sound::Sound,
    pub winmm: crate::winmm::State,
    pub ddraw: crate::ddraw::State,
    pub dsound: crate::dsound::State,
    pub dinput: crate::dinput::State,
    /// State of DLL modules the process does not name (msvcrt, ole32, dplayx, the
    /// mixer), one value per type, created on first use: see [`Process::slot`].
    slots: Mutex<HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("guest memory: {0}")]
    Memory(String),
}

impl Process {
    pub fn new(
        config: ProcessConfig,
        host: Arc<dyn Host>,
        dlls: &[HleDll],
    ) -> Result<Arc<Process>, ProcessError> {
        // The protected view only for a process that starts with `jit` on (its
        // unchecked accesses need it; the shared mapping costs the others).
        let jit = winterp_core::tiers::global().is_on(winterp_core::tiers::Tier::Jit);
        let mem = if jit {
            GuestMemory::with_protected_view()
        } else {
            GuestMemory::new()
        }
        .map_err(|e| ProcessError::Memory(e.to_string()))?;
        let mut vm = AddressSpace::new(mem.clone());
        // The thunk range: executable-looking bytes (RET) so a guest that inspects an
        // imported function's first byte sees something sane.
        vm.alloc(
            Some(thunks::THUNK_BASE),
            thunks::THUNK_SIZE,
            Prot::RX,
            "HLE thunks",
        )
        .map_err(|e| ProcessError::Memory(e.to_string()))?;
        mem.write_bytes(thunks::THUNK_BASE, &vec![0xc3; thunks::THUNK_SIZE as usize])
            .map_err(|f| ProcessError::Memory(format!("{f:?}")))?;
        let dll_attach = dlls.iter().map(|d| d.attach).collect();
        let dlls = dlls.iter().map(|d| (d.name, (d.exports)())).collect();
        Ok(Arc::new(Process {
            mem,
            vm: Mutex::new(vm),
            thunks: RwLock::new(ThunkTable::new()),
            dlls,
            dll_attach,
            modules: RwLock::new(Vec::new()),
            data_exports: Mutex::new(HashMap::new()),
            guest_blobs: Mutex::new(HashMap::new()),
            config,
            host,
            exit_code: AtomicU64::new(0),
            detaching: Default::default(),
            counters: ProcessCounters::default(),
            recent_calls: Mutex::new(RecentCalls::default()),
            handles: Default::default(),
            thread_stats: Mutex::new(Vec::new()),
            hot: Default::default(),
            k32: Default::default(),
            vfs: std::sync::OnceLock::new(),
            next_thread_id: AtomicU32::new(FIRST_THREAD_ID),
            loader: Mutex::new(crate::loader::LoaderState::default()),
            sched: Default::default(),
            registry: Default::default(),
            display: Default::default(),
            user32: Default::default(),
            gdi32: Default::default(),
            com: Default::default(),
            sound: Default::default(),
            winmm: Default::default(),
            ddraw: Default::default(),
            dsound: Default::default(),
            dinput: Default::default(),
            slots: Default::default(),
        }))
    }

    /// The process's value of type `T` (a DLL module's state), created with
    /// `T::default()` the first time it is asked for; it lives as long as the process.
    pub fn slot<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let any = slots
            .entry(std::any::TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()))
            .clone();
        any.downcast::<T>()
            .unwrap_or_else(|_| unreachable!("slots are keyed by their type"))
    }

    /// Index of the HLE DLL called `name` (case-insensitive, `.dll` optional).
    pub fn hle_dll(&self, name: &str) -> Option<usize> {
        let mut want = dll_key(name);
        // API-set contracts of the C runtime are served by ucrtbase.
        if crate::ucrtbase::is_crt_api_set(&want) {
            want = "ucrtbase".into();
        }
        self.dlls.iter().position(|(n, _)| dll_key(n) == want)
    }

    /// Address an import of `dll!name` resolves to in an HLE DLL, or a "missing"
    /// thunk that reports the call if the DLL or export does not exist.
    pub fn resolve_hle(&self, dll: &str, name: &str) -> Result<u32, ApiError> {
        if let Some(d) = self.hle_dll(dll)
            && let Some(k) = self.dlls[d].1.iter().position(|e| e.name == name)
        {
            return self.export_address(d, k);
        }
        Ok(self.missing_thunk(dll, name))
    }

    /// Address of an HLE export by ordinal: an ordinal the HLE DLL declares, else the
    /// real DLL's ordinal from the system export table, served by name (implemented
    /// or reporting), else a thunk that reports `DLL!#ordinal`.
    pub fn resolve_hle_ordinal(&self, dll: &str, ordinal: u16) -> Result<u32, ApiError> {
        if let Some(d) = self.hle_dll(dll)
            && let Some(k) = self.dlls[d]
                .1
                .iter()
                .position(|e| e.ordinal == Some(ordinal))
        {
            return self.export_address(d, k);
        }
        if let Some(e) = crate::sysexports::lookup_ordinal(dll, ordinal) {
            return self.resolve_hle(dll, e.name);
        }
        Ok(self.missing_thunk(dll, &format!("#{ordinal}")))
    }

    pub fn missing_thunk(&self, dll: &str, name: &str) -> u32 {
        self.thunks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .address_of(ThunkTarget::Missing {
                dll: dll.to_string(),
                name: name.to_string(),
            })
    }

    /// Thunk address of a function export, or the guest address of a data export
    /// (allocated and initialised on first use).
    pub fn export_address(self: &Process, dll: usize, index: usize) -> Result<u32, ApiError> {
        match &self.dlls[dll].1[index].kind {
            ExportKind::Function { .. } => Ok(self
                .thunks
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .address_of(ThunkTarget::Api { dll, index })),
            ExportKind::Data { size, .. } => {
                let mut map = self.data_exports.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(&a) = map.get(&(dll, index)) {
                    return Ok(a);
                }
                let a = self
                    .vm
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .alloc(None, *size, Prot::RW, "HLE data export")
                    .map_err(|e| ApiError::Other(e.to_string()))?;
                map.insert((dll, index), a);
                Ok(a)
            }
            ExportKind::Code { blob, offset, .. } => Ok(self.guest_blob(blob)? + offset),
        }
    }

    /// Guest address of `blob`, mapped read-execute on first use (one mapping per
    /// blob and process, shared by all its routines).
    fn guest_blob(&self, blob: &'static crate::hle::GuestBlob) -> Result<u32, ApiError> {
        let key = blob as *const crate::hle::GuestBlob as usize;
        let mut map = self.guest_blobs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&a) = map.get(&key) {
            return Ok(a);
        }
        let a = self
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(None, blob.bytes.len() as u32, Prot::RX, blob.name)
            .map_err(|e| ApiError::Other(e.to_string()))?;
        // A host write: the guest sees the bytes read-execute only.
        self.mem
            .write_bytes(a, blob.bytes)
            .map_err(|f| ApiError::Other(format!("{}: {f:?}", blob.name)))?;
        map.insert(key, a);
        Ok(a)
    }

    /// Runs the initialisers of data exports that were allocated (after all imports
    /// are resolved, so initialisers may refer to each other).
    pub fn init_data_exports(self: &Arc<Process>) -> Result<(), ApiError> {
        let list: Vec<((usize, usize), u32)> = self
            .data_exports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, v)| (*k, *v))
            .collect();
        for ((d, k), addr) in list {
            if let ExportKind::Data { init, .. } = &self.dlls[d].1[k].kind {
                init(self, addr)?;
            }
        }
        Ok(())
    }

    /// Runs the initialisers of data exports allocated since the last call (those
    /// whose keys are not in `done`) and records them in `done`. Unlike
    /// [`Process::init_data_exports`] it never re-initialises a variable, so the loader
    /// can call it after every LoadLibrary/GetProcAddress.
    pub fn init_new_data_exports(
        self: &Arc<Process>,
        done: &mut std::collections::HashSet<(usize, usize)>,
    ) -> Result<(), ApiError> {
        // An initialiser may allocate further data exports (a pointer to another
        // variable): repeat until a pass finds nothing new.
        loop {
            let mut list: Vec<((usize, usize), u32)> = self
                .data_exports
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter(|(k, _)| !done.contains(k))
                .map(|(k, v)| (*k, *v))
                .collect();
            if list.is_empty() {
                return Ok(());
            }
            // Deterministic order (the map's is not).
            list.sort_unstable();
            for ((d, k), addr) in list {
                done.insert((d, k));
                if let ExportKind::Data { init, .. } = &self.dlls[d].1[k].kind {
                    init(self, addr)?;
                }
            }
        }
    }

    /// A fresh thread id.
    pub fn alloc_thread_id(&self) -> u32 {
        self.next_thread_id.fetch_add(4, Ordering::Relaxed)
    }

    /// Name of the module containing `addr` and the offset into it.
    pub fn locate(&self, addr: u32) -> Option<(String, u32)> {
        let mods = self.modules.read().unwrap_or_else(|e| e.into_inner());
        mods.iter()
            .find(|m| addr >= m.base && addr - m.base < m.size)
            .map(|m| (m.name.clone(), addr - m.base))
    }

    pub fn note_call(&self, what: RecentCall) {
        let mut q = self.recent_calls.lock().unwrap_or_else(|e| e.into_inner());
        self.count_call();
        *q.next_slot() = what;
    }

    /// [`Process::note_call`] of an HLE API call, written into the ring slot in
    /// place (every API call comes here; building the entry and moving it in
    /// cost a store-forwarding stall per call).
    pub fn note_api_call(&self, dll: &'static str, name: &'static str, args: &[u32]) {
        let mut q = self.recent_calls.lock().unwrap_or_else(|e| e.into_inner());
        self.count_call();
        let slot = q.next_slot();
        let n = args.len().min(8);
        match slot {
            RecentCall::Api {
                dll: d,
                name: f,
                args: a,
                n: k,
                more,
            } => {
                *d = dll;
                *f = name;
                a[..n].copy_from_slice(&args[..n]);
                *k = n as u8;
                *more = args.len() > 8;
            }
            RecentCall::Text(_) => *slot = RecentCall::api(dll, name, args),
        }
    }

    /// Counts an API call; the caller holds the recent-call lock. Only calls made
    /// under that lock add to `api_calls`, so a plain load and store count exactly
    /// and spare a locked add per call.
    fn count_call(&self) {
        let n = self.counters.api_calls.load(Ordering::Relaxed);
        self.counters.api_calls.store(n + 1, Ordering::Relaxed);
    }

    /// Records the process exit code; the first one set stays.
    pub fn set_exit(&self, code: u32) {
        let _ = self.exit_code.compare_exchange(
            0,
            EXIT_SET | code as u64,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    pub fn exited(&self) -> Option<u32> {
        let v = self.exit_code.load(Ordering::SeqCst);
        (v & EXIT_SET != 0).then_some(v as u32)
    }
}

/// Marks [`Process::exit_code`] as set (any 32-bit code, 0 included, can follow).
const EXIT_SET: u64 = 1 << 32;

/// The last [`RecentCalls::LEN`] API calls of the process, oldest first: a ring
/// whose entries are overwritten in place.
#[derive(Default)]
pub struct RecentCalls {
    ring: Vec<RecentCall>,
    /// Once the ring is full: the slot of the oldest entry, the next to overwrite.
    next: usize,
}

impl RecentCalls {
    pub const LEN: usize = 16;

    /// The slot for a new entry: a fresh one while the ring fills, then the oldest.
    fn next_slot(&mut self) -> &mut RecentCall {
        if self.ring.len() < Self::LEN {
            self.ring.push(RecentCall::Text(String::new()));
            let last = self.ring.len() - 1;
            return &mut self.ring[last];
        }
        let k = self.next;
        self.next = (k + 1) % Self::LEN;
        &mut self.ring[k]
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &RecentCall> {
        self.ring[self.next..].iter().chain(&self.ring[..self.next])
    }
}

/// One entry of [`Process::recent_calls`]. A call is kept as its names and
/// argument words and formatted only when a report shows it: programs make
/// hundreds of thousands of calls (memcpy, strlen) and formatting each cost more
/// than many of the calls themselves.
pub enum RecentCall {
    Api {
        dll: &'static str,
        name: &'static str,
        /// The first `n` argument words (at most 8 kept).
        args: [u32; 8],
        n: u8,
        /// Arguments the call took beyond the eight kept.
        more: bool,
    },
    Text(String),
}

impl RecentCall {
    pub fn api(dll: &'static str, name: &'static str, args: &[u32]) -> RecentCall {
        let mut kept = [0u32; 8];
        let n = args.len().min(8);
        kept[..n].copy_from_slice(&args[..n]);
        RecentCall::Api {
            dll,
            name,
            args: kept,
            n: n as u8,
            more: args.len() > 8,
        }
    }
}

impl std::fmt::Display for RecentCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecentCall::Api {
                dll,
                name,
                args,
                n,
                more,
            } => {
                write!(f, "{dll}!{name}{:x?}", &args[..*n as usize])?;
                if *more {
                    write!(f, " (and more arguments)")?;
                }
                Ok(())
            }
            RecentCall::Text(s) => f.write_str(s),
        }
    }
}

/// The first thread id handed out (the main thread's).
pub const FIRST_THREAD_ID: u32 = 0x104;

/// Normalised DLL name: lower case without a `.dll` suffix.
pub fn dll_key(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    n.strip_suffix(".dll").unwrap_or(&n).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_call_ring_keeps_the_last_sixteen_oldest_first() {
        let cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
        let proc = Process::new(cfg, Arc::new(crate::host::CaptureHost::default()), &[]).unwrap();
        assert!(proc.recent_calls.lock().unwrap().is_empty());
        for k in 0..21u32 {
            if k % 5 == 4 {
                proc.note_call(RecentCall::Text(format!("text {k}")));
            } else {
                // Argument counts that shrink, so a reused slot must not show the
                // words of the call it held before.
                let args: Vec<u32> = (0..10 - k % 5).map(|a| a + 100 * k).collect();
                proc.note_api_call("msvcrt", "f", &args);
            }
        }
        let shown: Vec<String> = proc
            .recent_calls
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.to_string())
            .collect();
        // Calls 5 to 20 (decimal 100 * k + a, shown in hex).
        assert_eq!(shown.len(), 16);
        assert_eq!(
            shown[0],
            "msvcrt!f[1f4, 1f5, 1f6, 1f7, 1f8, 1f9, 1fa, 1fb] (and more arguments)"
        );
        assert_eq!(shown[4], "text 9");
        // 17 and 18 reuse the slots of 1 and 2, which had more arguments.
        assert_eq!(
            shown[12],
            "msvcrt!f[6a4, 6a5, 6a6, 6a7, 6a8, 6a9, 6aa, 6ab]"
        );
        assert_eq!(shown[13], "msvcrt!f[708, 709, 70a, 70b, 70c, 70d, 70e]");
        // 19 is text in the slot of an API call, 20 an API call in that of text 4.
        assert_eq!(shown[14], "text 19");
        assert_eq!(
            shown[15],
            "msvcrt!f[7d0, 7d1, 7d2, 7d3, 7d4, 7d5, 7d6, 7d7] (and more arguments)"
        );
        assert_eq!(proc.counters.api_calls.load(Ordering::Relaxed), 21);
    }

    #[test]
    fn recent_calls_read_as_the_call_with_its_argument_words() {
        let c = RecentCall::api("kernel32", "SetFilePointer", &[0x1c, 0x200, 0, 1]);
        assert_eq!(c.to_string(), "kernel32!SetFilePointer[1c, 200, 0, 1]");
        let words: Vec<u32> = (1..=10).collect();
        let c = RecentCall::api("user32", "CreateWindowExA", &words);
        assert_eq!(
            c.to_string(),
            "user32!CreateWindowExA[1, 2, 3, 4, 5, 6, 7, 8] (and more arguments)"
        );
        assert_eq!(
            RecentCall::Text("gdi32!Foo(1)".into()).to_string(),
            "gdi32!Foo(1)"
        );
    }
}
