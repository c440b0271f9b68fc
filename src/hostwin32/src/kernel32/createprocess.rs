//! CreateProcess and the handles of other processes.
//!
//! A program CreateProcess starts runs in a new OS process of the emulator (the
//! host decides which binary and mode: [`Host::start_process`]), inside the same
//! sandbox: the same program folder at the same guest folder and the same overlay,
//! so what the parent wrote the child reads. The child is told its command line,
//! current folder, environment, process id and a *status file* ([`ChildOf`]); it
//! writes one line per event there ([`ChildEvent`]: idle for WaitForInputIdle,
//! what its run showed, its exit code) and the parent's watcher thread reads them.
//!
//! The parent sees the child as a [`ProcessObj`] (and its main thread as a
//! [`ChildThreadObj`]), both signalled when the child's OS process ends, so the
//! wait functions work on them in both thread modes; in deterministic mode the
//! scheduler blocks for real while every thread waits for such an external object
//! (see `Waitable::external`).
//!
//! Process ids: the first process has [`DEFAULT_PROCESS_ID`]; the n-th child of a
//! process with id P gets `P + (n << shift)`, the shift falling by 4 each
//! generation, so a tree of launchers never hands out one id twice.

#![allow(non_snake_case)]
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr, stdcall};
use crate::objects::{CURRENT_PROCESS, KernelObject};
use crate::process::Process;
use crate::scheduler::{self, Locked, Waitable};
use crate::teb::set_last_error;
use crate::vfs::VfsConfig;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::misc::err;
use super::process::{DEFAULT_PROCESS_ID, STD_ERROR, STD_INPUT, STD_OUTPUT};
use super::string::{read_ansi, read_wide};

pub const ERROR_BAD_EXE_FORMAT: u32 = 193;
pub const ERROR_NOT_SUPPORTED: u32 = 50;
pub const STILL_ACTIVE: u32 = 259;
const CREATE_SUSPENDED: u32 = 0x4;
const CREATE_NEW_CONSOLE: u32 = 0x10;
const STARTF_USESHOWWINDOW: u32 = 0x1;
const STARTF_USESTDHANDLES: u32 = 0x100;
/// The id shift for the first process's children (see the module comment).
const FIRST_ID_SHIFT: u32 = 12;
/// The main thread id of every process (`process::FIRST_THREAD_ID`).
const CHILD_MAIN_TID: u32 = crate::process::FIRST_THREAD_ID;
/// How often the watcher looks at a child's status file and exit.
const POLL: Duration = Duration::from_millis(5);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- what a child is told --------------------------------------------------------------

/// What a process CreateProcess started knows of its start (`ProcessConfig::child`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildOf {
    /// Its own process id (GetCurrentProcessId).
    pub process_id: u32,
    pub parent_process_id: u32,
    /// The id shift for its own children.
    pub id_shift: u32,
    /// GetCommandLine: exactly what the parent passed.
    pub command_line: String,
    /// Where it reports its events to the parent ([`ChildEvent`]).
    pub status_file: PathBuf,
    /// CREATE_SUSPENDED: it runs nothing until the parent's ResumeThread.
    pub suspended: bool,
    /// STARTUPINFO.wShowWindow when the parent gave STARTF_USESHOWWINDOW.
    pub show_window: Option<u16>,
    /// A console program started with CREATE_NEW_CONSOLE: it gets a console of its
    /// own, shown in a console window ([`super::conscreen`]), not the parent's.
    pub new_console: bool,
}

impl ChildOf {
    /// The file whose appearance resumes a CREATE_SUSPENDED child.
    pub fn resume_file(&self) -> PathBuf {
        self.status_file.with_extension("resume")
    }

    /// Where the host may put what it passes to the child (removed once the child
    /// ended, in case it never read it).
    pub fn spec_file(&self) -> PathBuf {
        self.status_file.with_extension("json")
    }
}

/// What the host needs to start a child emulator process.
#[derive(Clone, Debug)]
pub struct ChildSpec {
    /// The host file of the image (through the sandbox).
    pub program: PathBuf,
    /// Its full guest path.
    pub guest_path: String,
    /// The child's current folder (guest path).
    pub current_dir: String,
    pub env: Vec<(String, String)>,
    /// The parent's sandbox, shared.
    pub sandbox: VfsConfig,
    /// A console program: its standard streams are the parent's.
    pub console: bool,
    pub child: ChildOf,
}

/// One line of a child's status file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChildEvent {
    /// The child first waited for messages with none pending (WaitForInputIdle).
    Idle,
    /// The refresh tick at which it first showed a window (headless runs).
    FirstWindow(u64),
    /// The tick of its first presented frame.
    FirstPresent(u64),
    /// Frames it presented.
    Presented(u64),
    /// The first API it called that winterp does not implement.
    Unimplemented(String),
    /// How its run ended, in words.
    End(String),
    /// Its exit code (the guest's, all 32 bits).
    Exit(u32),
}

impl ChildEvent {
    pub fn line(&self) -> String {
        let one = |s: &str| s.replace(['\n', '\r'], " ");
        match self {
            ChildEvent::Idle => "idle".into(),
            ChildEvent::FirstWindow(t) => format!("window {t}"),
            ChildEvent::FirstPresent(t) => format!("present {t}"),
            ChildEvent::Presented(n) => format!("presented {n}"),
            ChildEvent::Unimplemented(s) => format!("unimplemented {}", one(s)),
            ChildEvent::End(s) => format!("end {}", one(s)),
            ChildEvent::Exit(c) => format!("exit {c}"),
        }
    }

    pub fn parse(line: &str) -> Option<ChildEvent> {
        let (k, v) = line.split_once(' ').unwrap_or((line, ""));
        Some(match k {
            "idle" => ChildEvent::Idle,
            "window" => ChildEvent::FirstWindow(v.parse().ok()?),
            "present" => ChildEvent::FirstPresent(v.parse().ok()?),
            "presented" => ChildEvent::Presented(v.parse().ok()?),
            "unimplemented" => ChildEvent::Unimplemented(v.to_string()),
            "end" => ChildEvent::End(v.to_string()),
            "exit" => ChildEvent::Exit(v.parse().ok()?),
            _ => return None,
        })
    }
}

/// The child side: this process's link to its parent, if CreateProcess started it.
#[derive(Default)]
struct ParentLink {
    idle_sent: AtomicBool,
    file: Mutex<Option<std::fs::File>>,
}

/// Appends `ev` to the status file of a process CreateProcess started (nothing for a
/// process the user started).
pub fn report(proc: &Process, ev: &ChildEvent) {
    let Some(c) = &proc.config.child else { return };
    let link = proc.slot::<ParentLink>();
    let mut f = lock(&link.file);
    if f.is_none() {
        *f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&c.status_file)
            .map_err(|e| log::warn!("cannot report to the parent process: {e}"))
            .ok();
    }
    if let Some(f) = f.as_mut() {
        // One write per line: the parent never reads half a line it cannot finish.
        let _ = f.write_all(format!("{}\n", ev.line()).as_bytes());
        let _ = f.flush();
    }
}

/// A thread of this process waits for messages with none pending: the first time,
/// the parent's WaitForInputIdle returns.
pub fn note_input_idle(proc: &Process) {
    if proc.config.child.is_none() {
        return;
    }
    let link = proc.slot::<ParentLink>();
    if !link.idle_sent.swap(true, Ordering::SeqCst) {
        report(proc, &ChildEvent::Idle);
    }
}

/// CREATE_SUSPENDED: holds the calling host thread until the parent resumes the
/// child's main thread (or gives up on the child). Call before running guest code.
pub fn hold_until_resumed(proc: &Process) {
    let Some(c) = &proc.config.child else { return };
    if !c.suspended {
        return;
    }
    let f = c.resume_file();
    while !f.exists() {
        std::thread::sleep(POLL);
    }
}

/// This process's id as its guest sees it.
pub fn own_process_id(proc: &Process) -> u32 {
    proc.config
        .child
        .as_ref()
        .map_or(DEFAULT_PROCESS_ID, |c| c.process_id)
}

// ---- the parent side ------------------------------------------------------------------------

/// What the parent knows of a child's run.
#[derive(Clone, Debug, Default)]
pub struct ChildStatus {
    /// The exit code once its OS process ended.
    pub exit: Option<u32>,
    pub idle: bool,
    pub first_window: Option<u64>,
    pub first_present: Option<u64>,
    pub presented: Option<u64>,
    pub unimplemented: Option<String>,
    pub end: Option<String>,
    /// The exit code the child reported (the host's exit status has 8 bits).
    reported_exit: Option<u32>,
    /// TerminateProcess's code, which wins over whatever the killed child reports.
    terminated: Option<u32>,
}

/// A child process.
pub struct Child {
    pub pid: u32,
    /// Its image's file name (`WORDPAD.EXE`), as toolhelp lists it.
    pub name: String,
    pub guest_path: String,
    pub parent_pid: u32,
    pub console: bool,
    host: Mutex<Option<std::process::Child>>,
    st: Mutex<ChildStatus>,
    status_file: PathBuf,
    resume_file: Option<PathBuf>,
    /// The child's main thread was created suspended and not resumed yet.
    suspended: AtomicU32,
}

impl Child {
    pub fn status(&self) -> ChildStatus {
        lock(&self.st).clone()
    }

    pub fn exit_code(&self) -> Option<u32> {
        lock(&self.st).exit
    }

    fn apply(&self, ev: ChildEvent) {
        let mut st = lock(&self.st);
        match ev {
            ChildEvent::Idle => st.idle = true,
            ChildEvent::FirstWindow(t) => st.first_window = Some(t),
            ChildEvent::FirstPresent(t) => st.first_present = Some(t),
            ChildEvent::Presented(n) => st.presented = Some(n),
            ChildEvent::Unimplemented(s) => st.unimplemented = Some(s),
            ChildEvent::End(s) => st.end = Some(s),
            ChildEvent::Exit(c) => st.reported_exit = Some(c),
        }
    }

    /// ResumeThread of the child's main thread: the previous suspend count.
    fn resume(&self) -> u32 {
        let prev = self
            .suspended
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(1))
            })
            .unwrap_or(0);
        if prev == 1
            && let Some(f) = &self.resume_file
            && let Err(e) = std::fs::write(f, b"")
        {
            log::warn!("cannot resume child process {:#x}: {e}", self.pid);
        }
        prev
    }

    /// TerminateProcess: kills the OS process; the exit code is `code`.
    fn terminate(&self, code: u32) -> bool {
        {
            let mut st = lock(&self.st);
            if st.exit.is_some() {
                return false;
            }
            st.terminated.get_or_insert(code);
        }
        if let Some(h) = lock(&self.host).as_mut() {
            let _ = h.kill();
        }
        true
    }
}

/// The processes this one started, in `Process::slot`.
#[derive(Default)]
pub struct Children {
    list: Mutex<Vec<Arc<Child>>>,
    started: AtomicU32,
    dir: Mutex<Option<PathBuf>>,
}

/// Every child this process started, in order.
pub fn children(proc: &Process) -> Vec<Arc<Child>> {
    lock(&proc.slot::<Children>().list).clone()
}

/// Waits until every child has ended (the headless runner, so a run reports what
/// its children did and no child outlives the test that started it). A child still
/// held by CREATE_SUSPENDED would never run: it is ended.
pub fn wait_children(proc: &Process) {
    for c in children(proc) {
        if c.suspended.load(Ordering::SeqCst) > 0 {
            c.terminate(1);
        }
        while c.exit_code().is_none() {
            std::thread::sleep(POLL);
        }
    }
    if let Some(d) = lock(&proc.slot::<Children>().dir).take() {
        let _ = std::fs::remove_dir(d);
    }
}

/// Ends every child still running (the run that started them crashed or was cut
/// short, so nothing will wait for them).
pub fn terminate_children(proc: &Process) {
    for c in children(proc) {
        c.terminate(1);
    }
}

/// A process handle: this process (OpenProcess of its own id) or a child.
pub enum ProcessObj {
    Own(Weak<Process>),
    Child(Arc<Child>),
}

impl KernelObject for ProcessObj {
    fn type_name(&self) -> &'static str {
        "Process"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for ProcessObj {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        match self {
            ProcessObj::Own(p) => p.upgrade().is_none_or(|p| p.exited().is_some()),
            ProcessObj::Child(c) => c.exit_code().is_some(),
        }
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn external(&self) -> bool {
        matches!(self, ProcessObj::Child(_))
    }
    fn describe(&self) -> String {
        match self {
            ProcessObj::Own(_) => "Process (this one)".into(),
            ProcessObj::Child(c) => format!("Process {:#x} {} (running)", c.pid, c.name),
        }
    }
}

/// The handle of a child's main thread: signalled when the child ends; ResumeThread
/// releases a CREATE_SUSPENDED child.
pub struct ChildThreadObj {
    pub child: Arc<Child>,
}

impl KernelObject for ChildThreadObj {
    fn type_name(&self) -> &'static str {
        "Thread"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for ChildThreadObj {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        self.child.exit_code().is_some()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn external(&self) -> bool {
        true
    }
    fn describe(&self) -> String {
        format!(
            "Thread {CHILD_MAIN_TID:#x} of process {:#x}",
            self.child.pid
        )
    }
}

/// WaitForInputIdle's object: ready once the child waited for input or ended.
struct IdleObj(Arc<Child>);

impl KernelObject for IdleObj {
    fn type_name(&self) -> &'static str {
        "InputIdle"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for IdleObj {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        let st = lock(&self.0.st);
        st.idle || st.exit.is_some()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn external(&self) -> bool {
        true
    }
    fn describe(&self) -> String {
        format!("input idle of process {:#x} {}", self.0.pid, self.0.name)
    }
}

/// The child a handle refers to (process or main-thread handle).
pub fn child_of_handle(proc: &Process, h: u32) -> Option<Arc<Child>> {
    let t = lock(&proc.handles);
    if let Some(p) = t.get_as::<ProcessObj>(h)
        && let ProcessObj::Child(c) = &*p
    {
        return Some(c.clone());
    }
    t.get_as::<ChildThreadObj>(h).map(|o| o.child.clone())
}

/// Whether `h` names this process: GetCurrentProcess's pseudo-handle or a handle
/// OpenProcess gave for its own id.
pub fn is_own_process(proc: &Process, h: u32) -> bool {
    h == CURRENT_PROCESS
        || lock(&proc.handles)
            .get_as::<ProcessObj>(h)
            .is_some_and(|p| matches!(*p, ProcessObj::Own(_)))
}

/// What a process handle names, for the functions that accept either kind.
pub enum Target {
    Own,
    Child(Arc<Child>),
    Invalid,
}

pub fn process_target(proc: &Process, h: u32) -> Target {
    if h == CURRENT_PROCESS {
        return Target::Own;
    }
    match lock(&proc.handles).get_as::<ProcessObj>(h).as_deref() {
        Some(ProcessObj::Own(_)) => Target::Own,
        Some(ProcessObj::Child(c)) => Target::Child(c.clone()),
        None => Target::Invalid,
    }
}

/// The watcher of one child: reads its status file as it grows and notices its
/// end; every change wakes this process's waiters.
fn watch(proc: Weak<Process>, child: Arc<Child>) {
    let mut offset = 0u64;
    let mut pending = String::new();
    let mut read_events = |child: &Child| -> bool {
        let Ok(mut f) = std::fs::File::open(&child.status_file) else {
            return false;
        };
        let mut buf = String::new();
        if f.seek(SeekFrom::Start(offset)).is_err() || f.read_to_string(&mut buf).is_err() {
            return false;
        }
        offset += buf.len() as u64;
        pending.push_str(&buf);
        let mut any = false;
        while let Some(k) = pending.find('\n') {
            let line: String = pending.drain(..=k).collect();
            if let Some(ev) = ChildEvent::parse(line.trim_end()) {
                child.apply(ev);
                any = true;
            }
        }
        any
    };
    let wake = |proc: &Weak<Process>| {
        if let Some(p) = proc.upgrade() {
            let k = p.sched.lock();
            p.sched.wake(&k);
        }
    };
    loop {
        let status = lock(&child.host).as_mut().map(|h| h.try_wait());
        let ended = match status {
            Some(Ok(Some(s))) => Some(s),
            Some(Ok(None)) => None,
            // The OS lost the child (or it was never there): it has ended.
            Some(Err(_)) | None => Some(std::process::ExitStatus::default()),
        };
        let changed = read_events(&child);
        if let Some(s) = ended {
            read_events(&child);
            // Removed before the exit is published: whoever waits for it may then
            // remove the folder.
            let _ = std::fs::remove_file(&child.status_file);
            let _ = std::fs::remove_file(child.status_file.with_extension("json"));
            if let Some(f) = &child.resume_file {
                let _ = std::fs::remove_file(f);
            }
            let p = proc.upgrade();
            // The exit is published under the dispatcher lock, so a waiter cannot
            // check between the change and the wake.
            let k = p.as_ref().map(|p| p.sched.lock());
            {
                let mut st = lock(&child.st);
                let code = st
                    .terminated
                    .or(st.reported_exit)
                    .unwrap_or_else(|| s.code().map_or(1, |c| c as u32));
                st.exit = Some(code);
            }
            if let (Some(p), Some(k)) = (&p, &k) {
                p.sched.wake(k);
            }
            drop(k);
            *lock(&child.host) = None;
            return;
        }
        if changed {
            wake(&proc);
        }
        std::thread::sleep(POLL);
    }
}

// ---- resolving the program ------------------------------------------------------------------

/// The first token of a command line as CreateProcess reads it: the quoted string,
/// or for an unquoted line every prefix that ends at a blank, shortest first
/// (`C:\Program Files\a b` tries `C:\Program`, `C:\Program Files\a`, then the whole).
pub fn module_candidates(cmdline: &str) -> Vec<String> {
    let line = cmdline.trim_start_matches([' ', '\t']);
    if let Some(rest) = line.strip_prefix('"') {
        let end = rest.find('"').unwrap_or(rest.len());
        return vec![rest[..end].to_string()];
    }
    let end = line.find('\t').unwrap_or(line.len());
    let line = &line[..end];
    let mut v: Vec<String> = line
        .match_indices(' ')
        .map(|(k, _)| line[..k].to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let whole = line.trim_end_matches(' ');
    if !whole.is_empty() && v.last().map(String::as_str) != Some(whole) {
        v.push(whole.to_string());
    }
    v.dedup();
    v
}

/// The folders a module name without a path is looked for in: the parent's program
/// folder, its current folder, the system folders, the Windows folder, then PATH.
fn search_dirs(cx: &mut Ctx) -> ApiResult<Vec<String>> {
    let vfs = super::file::vfs(cx.proc)?;
    let mut dirs = Vec::new();
    if let Some(p) = super::module::module_path(cx, 0)
        && let Some(k) = p.rfind('\\')
    {
        dirs.push(p[..k].to_string());
    }
    dirs.push(vfs.current_dir());
    let sys = crate::loader::hle_module::system_dir(cx.proc.config.version);
    dirs.push(sys.trim_end_matches('\\').to_string());
    dirs.push(vfs.system_dir());
    dirs.push(vfs.windows_dir());
    if let Some(path) = super::process::get_env(cx.proc, "PATH") {
        dirs.extend(path.split(';').filter(|d| !d.is_empty()).map(String::from));
    }
    let mut seen: Vec<String> = Vec::new();
    dirs.retain(|d| {
        let k = d.to_ascii_uppercase();
        let new = !seen.contains(&k);
        seen.push(k);
        new
    });
    Ok(dirs)
}

/// What was found for the module: its guest path and host file.
struct Found {
    guest: String,
    host: PathBuf,
}

/// Looks the module up. `Err` is the Win32 error of the last candidate tried.
fn find_module(cx: &mut Ctx, app: Option<&str>, cmdline: &str) -> ApiResult<Result<Found, u32>> {
    let vfs = super::file::vfs(cx.proc)?;
    let attempt = |path: &str| match vfs.host_file(path) {
        Ok((guest, host)) => Ok(Found { guest, host }),
        Err(e) => Err(e.win32_code()),
    };
    if let Some(app) = app {
        // The name is used as given (no search, no extension added).
        return Ok(attempt(app));
    }
    let dirs = search_dirs(cx)?;
    let mut last = err::ERROR_FILE_NOT_FOUND;
    for name in module_candidates(cmdline) {
        for c in super::system::search_candidates(&dirs, &name, Some(".exe")) {
            match attempt(&c) {
                Ok(f) => return Ok(Ok(f)),
                Err(e) => last = e,
            }
        }
    }
    // A search through folders that do not all exist still reports the name as
    // not found.
    if last == err::ERROR_PATH_NOT_FOUND
        && module_candidates(cmdline)
            .iter()
            .all(|n| !n.contains(['\\', '/', ':']))
    {
        last = err::ERROR_FILE_NOT_FOUND;
    }
    Ok(Err(last))
}

/// The image's subsystem if the file is a 32-bit x86 PE image: 3 is a console
/// program, 2 a GUI one.
pub fn pe_subsystem(bytes: &[u8]) -> Option<u16> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?));
    if bytes.get(..2)? != b"MZ" {
        return None;
    }
    let pe = u32_at(0x3c)? as usize;
    if bytes.get(pe..pe + 4)? != b"PE\0\0" || u16_at(pe + 4)? != 0x14c {
        return None;
    }
    // The optional header must be PE32 (not PE32+).
    let opt = pe + 24;
    if u16_at(opt)? != 0x10b {
        return None;
    }
    u16_at(opt + 68)
}

fn read_head(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    let mut b = Vec::new();
    Read::by_ref(&mut f).take(64 * 1024).read_to_end(&mut b)?;
    // The PE header may lie further in than the first 64 KiB.
    if b.len() >= 0x40 {
        let pe = u32::from_le_bytes([b[0x3c], b[0x3d], b[0x3e], b[0x3f]]) as u64;
        if pe + 0x100 > b.len() as u64 && pe < 1 << 24 {
            let mut more = vec![0u8; 0x100];
            f.seek(SeekFrom::Start(pe))?;
            let n = f.read(&mut more)?;
            b.resize(pe as usize, 0);
            b.extend_from_slice(&more[..n]);
        }
    }
    Ok(b)
}

// ---- CreateProcess --------------------------------------------------------------------------

/// The arguments of CreateProcessA/W once their strings are read.
struct Request {
    app: Option<String>,
    cmdline: Option<String>,
    flags: u32,
    env: Option<Vec<(String, String)>>,
    cwd: Option<String>,
    startup: u32,
    info: u32,
}

/// Reads an environment block of NUL-terminated `NAME=value` strings ending with
/// an empty one.
fn read_env_block(cx: &Ctx, p: u32, wide: bool) -> ApiResult<Vec<(String, String)>> {
    let mut v = Vec::new();
    let mut at = p;
    for _ in 0..65536 {
        let s = if wide {
            String::from_utf16_lossy(&read_wide(cx.proc, at)?)
        } else {
            read_ansi(cx.proc, at)?
        };
        if s.is_empty() {
            return Ok(v);
        }
        at += if wide {
            2 * (s.encode_utf16().count() as u32 + 1)
        } else {
            super::string::encode_ansi(&s).len() as u32 + 1
        };
        // Entries such as "=C:=C:\" (per-drive folders) have a name starting with '='.
        if let Some(k) = s[1..].find('=') {
            v.push((s[..k + 1].to_string(), s[k + 2..].to_string()));
        }
    }
    Err(ApiError::Other(
        "CreateProcess: environment block without an end".into(),
    ))
}

fn create_process(cx: &mut Ctx, r: Request) -> ApiResult<bool> {
    let fail = |cx: &mut Ctx, e: u32| -> ApiResult<bool> {
        set_last_error(cx, e)?;
        Ok(false)
    };
    let Some(line) = r.cmdline.clone().or_else(|| r.app.clone()) else {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    };
    let found = match find_module(cx, r.app.as_deref(), &line)? {
        Ok(f) => f,
        Err(e) => return fail(cx, e),
    };
    let head = match read_head(&found.host) {
        Ok(b) => b,
        Err(e) => {
            log::warn!("CreateProcess: cannot read {}: {e}", found.guest);
            return fail(cx, err::ERROR_ACCESS_DENIED);
        }
    };
    let Some(subsystem) = pe_subsystem(&head) else {
        return fail(cx, ERROR_BAD_EXE_FORMAT);
    };
    let vfs = super::file::vfs(cx.proc)?;
    let current_dir = match &r.cwd {
        None => vfs.current_dir(),
        Some(d) => match vfs.resolve(d) {
            Ok(crate::vfs::Resolved::Path {
                full,
                kind: Some(crate::vfs::EntryKind::Directory),
            }) => full.trim_end_matches('\\').to_string(),
            Ok(_) => return fail(cx, err::ERROR_DIRECTORY),
            Err(e) => return fail(cx, e.win32_code()),
        },
    };
    let mem = &cx.proc.mem;
    let si = if r.startup != 0 {
        let mut b = [0u8; 68];
        mem.read_bytes(r.startup, &mut b)?;
        Some(b)
    } else {
        None
    };
    let si_u32 = |o: usize| si.map_or(0, |b| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()));
    let si_flags = si_u32(44);
    if si_flags & STARTF_USESTDHANDLES != 0 {
        // Only the console's own streams can be handed on: the child's standard
        // streams are the host's.
        let [i, o, e] = super::process::std_handles(cx.proc);
        for (k, off) in [56usize, 60, 64].into_iter().enumerate() {
            let h = si_u32(off);
            let console = [STD_INPUT, STD_OUTPUT, STD_ERROR][k];
            if h != 0 && h != [i, o, e][k] && h != console {
                let t = lock(&cx.proc.handles)
                    .get(h)
                    .map_or("an invalid handle", |o| o.type_name());
                return Err(ApiError::UnimplementedCase(format!(
                    "CreateProcess with a redirected standard handle ({t} {h:#x})"
                )));
            }
        }
    }
    let show_window = (si_flags & STARTF_USESHOWWINDOW != 0).then(|| si_u32(48) as u16);
    let env = match r.env {
        Some(e) => e,
        None => super::process::env_vars(cx.proc),
    };

    let own = own_process_id(cx.proc);
    let shift = cx
        .proc
        .config
        .child
        .as_ref()
        .map_or(FIRST_ID_SHIFT, |c| c.id_shift);
    let kids = cx.proc.slot::<Children>();
    let n = kids.started.fetch_add(1, Ordering::SeqCst) + 1;
    let pid = own.wrapping_add(n << shift);
    let dir = {
        let mut d = lock(&kids.dir);
        if d.is_none() {
            let p = std::env::temp_dir().join(format!(
                "winterp-{}-{:x}-children",
                std::process::id(),
                own
            ));
            if let Err(e) = std::fs::create_dir_all(&p) {
                return Err(ApiError::Other(format!(
                    "CreateProcess: cannot create {}: {e}",
                    p.display()
                )));
            }
            *d = Some(p);
        }
        d.clone().unwrap_or_default()
    };
    let status_file = dir.join(format!("{pid:x}.status"));
    let _ = std::fs::remove_file(&status_file);
    let suspended = r.flags & CREATE_SUSPENDED != 0;
    let child_of = ChildOf {
        process_id: pid,
        parent_process_id: own,
        id_shift: shift.saturating_sub(4).max(2),
        command_line: line,
        status_file: status_file.clone(),
        suspended,
        show_window,
        new_console: r.flags & CREATE_NEW_CONSOLE != 0 && subsystem == 3,
    };
    let spec = ChildSpec {
        program: found.host.clone(),
        guest_path: found.guest.clone(),
        current_dir,
        env,
        sandbox: vfs.config(),
        console: subsystem == 3,
        child: child_of.clone(),
    };
    let host = match cx.proc.host.start_process(&spec) {
        Ok(h) => h,
        Err(StartError::Unsupported(why)) => {
            return Err(ApiError::UnimplementedCase(format!(
                "CreateProcess of {}: {why}",
                found.guest
            )));
        }
        Err(StartError::Failed(why)) => {
            log::warn!("CreateProcess of {}: {why}", found.guest);
            return fail(cx, err::ERROR_NOT_ENOUGH_MEMORY);
        }
    };
    let name = found
        .guest
        .rsplit('\\')
        .next()
        .unwrap_or(&found.guest)
        .to_string();
    let child = Arc::new(Child {
        pid,
        name,
        guest_path: found.guest,
        parent_pid: own,
        console: subsystem == 3,
        host: Mutex::new(Some(host)),
        st: Mutex::new(ChildStatus::default()),
        status_file,
        resume_file: suspended.then(|| child_of.resume_file()),
        suspended: AtomicU32::new(suspended as u32),
    });
    lock(&kids.list).push(child.clone());
    let (weak, c) = (Arc::downgrade(cx.proc), child.clone());
    std::thread::Builder::new()
        .name(format!("child process {pid:#x}"))
        .spawn(move || watch(weak, c))
        .map_err(|e| ApiError::Other(format!("CreateProcess: cannot watch the child: {e}")))?;
    let (hp, ht) = {
        let mut t = lock(&cx.proc.handles);
        (
            t.insert(Arc::new(ProcessObj::Child(child.clone()))),
            t.insert(Arc::new(ChildThreadObj {
                child: child.clone(),
            })),
        )
    };
    if r.info != 0 {
        for (k, v) in [hp, ht, pid, CHILD_MAIN_TID].into_iter().enumerate() {
            mem.write_u32(r.info + 4 * k as u32, v)?;
        }
    }
    Ok(true)
}

/// Why the host could not start a child.
#[derive(Debug)]
pub enum StartError {
    /// This host cannot start processes at all (tests' capture host).
    Unsupported(String),
    /// Starting failed (the OS refused).
    Failed(String),
}

fn opt_a(cx: &Ctx, p: u32) -> ApiResult<Option<String>> {
    Ok(if p == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, p)?)
    })
}

fn opt_w(cx: &Ctx, p: u32) -> ApiResult<Option<String>> {
    Ok(if p == 0 {
        None
    } else {
        Some(String::from_utf16_lossy(&read_wide(cx.proc, p)?))
    })
}

const CREATE_UNICODE_ENVIRONMENT: u32 = 0x400;

pub fn CreateProcessA(
    cx: &mut Ctx,
    lpApplicationName: CStrPtr,
    lpCommandLine: Ptr,
    _lpProcessAttributes: Ptr,
    _lpThreadAttributes: Ptr,
    _bInheritHandles: bool,
    dwCreationFlags: u32,
    lpEnvironment: Ptr,
    lpCurrentDirectory: CStrPtr,
    lpStartupInfo: Ptr,
    lpProcessInformation: Ptr,
) -> ApiResult<bool> {
    let env = match lpEnvironment.0 {
        0 => None,
        p => Some(read_env_block(
            cx,
            p,
            dwCreationFlags & CREATE_UNICODE_ENVIRONMENT != 0,
        )?),
    };
    let r = Request {
        app: opt_a(cx, lpApplicationName.0)?,
        cmdline: opt_a(cx, lpCommandLine.0)?,
        flags: dwCreationFlags,
        env,
        cwd: opt_a(cx, lpCurrentDirectory.0)?,
        startup: lpStartupInfo.0,
        info: lpProcessInformation.0,
    };
    create_process(cx, r)
}

pub fn CreateProcessW(
    cx: &mut Ctx,
    lpApplicationName: WStrPtr,
    lpCommandLine: Ptr,
    _lpProcessAttributes: Ptr,
    _lpThreadAttributes: Ptr,
    _bInheritHandles: bool,
    dwCreationFlags: u32,
    lpEnvironment: Ptr,
    lpCurrentDirectory: WStrPtr,
    lpStartupInfo: Ptr,
    lpProcessInformation: Ptr,
) -> ApiResult<bool> {
    let env = match lpEnvironment.0 {
        0 => None,
        p => Some(read_env_block(
            cx,
            p,
            dwCreationFlags & CREATE_UNICODE_ENVIRONMENT != 0,
        )?),
    };
    let r = Request {
        app: opt_w(cx, lpApplicationName.0)?,
        cmdline: opt_w(cx, lpCommandLine.0)?,
        flags: dwCreationFlags,
        env,
        cwd: opt_w(cx, lpCurrentDirectory.0)?,
        startup: lpStartupInfo.0,
        info: lpProcessInformation.0,
    };
    create_process(cx, r)
}

// ---- the process functions ------------------------------------------------------------------

/// The ids Windows always lists besides the programs: the System Idle Process and
/// System (XP's ids).
pub const IDLE_PROCESS_ID: u32 = 0;
pub const SYSTEM_PROCESS_ID: u32 = 4;

pub fn OpenProcess(
    cx: &mut Ctx,
    _dwDesiredAccess: u32,
    _bInheritHandle: bool,
    dwProcessId: u32,
) -> ApiResult<u32> {
    let obj = if dwProcessId == own_process_id(cx.proc) {
        Some(ProcessObj::Own(Arc::downgrade(cx.proc)))
    } else {
        children(cx.proc)
            .into_iter()
            .find(|c| c.pid == dwProcessId && c.exit_code().is_none())
            .map(ProcessObj::Child)
    };
    match obj {
        Some(o) => Ok(lock(&cx.proc.handles).insert(Arc::new(o))),
        None => {
            // The system's own processes exist but a user program may not open them.
            let e = if dwProcessId == SYSTEM_PROCESS_ID {
                err::ERROR_ACCESS_DENIED
            } else {
                err::ERROR_INVALID_PARAMETER
            };
            set_last_error(cx, e)?;
            Ok(0)
        }
    }
}

pub fn GetProcessId(cx: &mut Ctx, Process: u32) -> ApiResult<u32> {
    match process_target(cx.proc, Process) {
        Target::Own => Ok(own_process_id(cx.proc)),
        Target::Child(c) => Ok(c.pid),
        Target::Invalid => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            Ok(0)
        }
    }
}

/// The exit code of a child (STILL_ACTIVE while it runs); `None` when the handle
/// is not a child's.
pub fn child_exit_code(proc: &Process, h: u32) -> Option<u32> {
    child_of_handle(proc, h).map(|c| c.exit_code().unwrap_or(STILL_ACTIVE))
}

/// TerminateProcess of a child: `None` when the handle is not a child's; else
/// whether it was still running.
pub fn terminate_child(proc: &Process, h: u32, code: u32) -> Option<bool> {
    let c = match process_target(proc, h) {
        Target::Child(c) => c,
        _ => return None,
    };
    Some(c.terminate(code))
}

/// ResumeThread of a child's main thread: `None` when the handle is not one.
pub fn resume_child_thread(proc: &Process, h: u32) -> Option<u32> {
    lock(&proc.handles)
        .get_as::<ChildThreadObj>(h)
        .map(|t| t.child.resume())
}

/// USER32's WaitForInputIdle: returns once the child first waited for messages
/// with none pending, or after `dwMilliseconds`. A console program has no message
/// queue: the call returns at once.
pub fn WaitForInputIdle(cx: &mut Ctx, hProcess: u32, dwMilliseconds: u32) -> ApiResult<Outcome> {
    let c = match process_target(cx.proc, hProcess) {
        Target::Child(c) => c,
        Target::Own => {
            return Err(ApiError::UnimplementedCase(
                "WaitForInputIdle for the calling process".into(),
            ));
        }
        Target::Invalid => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            return Ok(Outcome::Return(scheduler::WAIT_FAILED as u64));
        }
    };
    if c.console {
        return Ok(Outcome::Return(0));
    }
    let obj: Arc<dyn KernelObject> = Arc::new(IdleObj(c.clone()));
    Ok(
        match scheduler::wait_for(cx, vec![obj], false, dwMilliseconds) {
            Outcome::Return(r) if r == scheduler::WAIT_OBJECT_0 as u64 => {
                Outcome::Return(if lock(&c.st).idle {
                    0
                } else {
                    // The process ended without ever waiting for input.
                    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
                    scheduler::WAIT_FAILED as u64
                })
            }
            o => o,
        },
    )
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateProcessA", CreateProcessA),
        stdcall("CreateProcessW", CreateProcessW),
        stdcall("OpenProcess", OpenProcess),
        stdcall("GetProcessId", GetProcessId),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_candidates_follow_the_documented_reading() {
        assert_eq!(module_candidates(r#""C:\a b\c.exe" x"#), [r"C:\a b\c.exe"]);
        assert_eq!(
            module_candidates("child.exe one two"),
            ["child.exe", "child.exe one", "child.exe one two"]
        );
        assert_eq!(
            module_candidates(r"  c:\program files\sub dir\prog"),
            [
                r"c:\program",
                r"c:\program files\sub",
                r"c:\program files\sub dir\prog"
            ]
        );
        assert_eq!(module_candidates("a\tb"), ["a"]);
        assert_eq!(module_candidates(""), Vec::<String>::new());
    }

    #[test]
    fn status_lines_round_trip() {
        for ev in [
            ChildEvent::Idle,
            ChildEvent::FirstWindow(12),
            ChildEvent::FirstPresent(13),
            ChildEvent::Presented(600),
            ChildEvent::Unimplemented("COMCTL32.dll!CreateStatusWindowW(1, 2)".into()),
            ChildEvent::End("exited with code 0x0".into()),
            ChildEvent::Exit(0xc000_0005),
        ] {
            assert_eq!(ChildEvent::parse(&ev.line()), Some(ev));
        }
        assert_eq!(ChildEvent::parse("bogus 1"), None);
        assert_eq!(ChildEvent::End("two\nlines".into()).line(), "end two lines");
    }

    #[test]
    fn pe_subsystem_needs_an_i386_pe32_image() {
        let mut b = vec![0u8; 0x200];
        b[..2].copy_from_slice(b"MZ");
        b[0x3c] = 0x80;
        b[0x80..0x84].copy_from_slice(b"PE\0\0");
        b[0x84..0x86].copy_from_slice(&0x14cu16.to_le_bytes());
        b[0x98..0x9a].copy_from_slice(&0x10bu16.to_le_bytes());
        b[0x98 + 68..0x98 + 70].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(pe_subsystem(&b), Some(3));
        let mut amd64 = b.clone();
        amd64[0x84..0x86].copy_from_slice(&0x8664u16.to_le_bytes());
        assert_eq!(pe_subsystem(&amd64), None);
        assert_eq!(pe_subsystem(b"MZ only a DOS stub"), None);
        assert_eq!(pe_subsystem(b"#!/bin/sh\n"), None);
    }
}
