//! One running program in the player: the guest's host threads and what the UI
//! thread exchanges with them.
//!
//! The UI thread never calls into the guest. A "guest host" thread loads and runs the
//! process (`run_process` blocks until it ends). Frames, title and queued input cross
//! over at the refresh tick: in OS-thread mode a bridge thread ticks at 60 Hz wall
//! clock; in deterministic mode the scheduler's own refresh hook does it between time
//! slices (so input lands at a reproducible point) and paces the run to real time.
//! What the UI reads is behind locks held only for a pointer swap.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use winterp_hostwin32::display::{self, Frame, InputEvent};
use winterp_hostwin32::host::Host;
use winterp_hostwin32::process::{Process, ProcessConfig, WinVersion};
use winterp_hostwin32::scheduler::{self, ThreadObj};
use winterp_hostwin32::thread::ThreadEnd;
use winterp_hostwin32::vfs::{Vfs, VfsConfig};

/// Wakes the UI thread's event loop (a new dialog, the program ended).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

const TICK: Duration = Duration::from_nanos(1_000_000_000 / 60);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Clone, Debug)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub deterministic: bool,
    pub winver: WinVersion,
    pub trace_api: bool,
    pub stub_unimplemented: bool,
    pub max_instructions: Option<u64>,
    /// Another winterp's CreateProcess started this one (`--child-spec`).
    pub child: Option<crate::child::ChildLaunch>,
}

/// How a program's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited (returned from its entry point, ExitProcess, or was ended).
    Exited(u32),
    /// The unhandled-exception / unimplemented-API report.
    Crashed(String),
    InstructionLimit,
    /// It never started: bad file, missing DLL, ...
    LoadFailed(String),
}

/// Keeps the last part of the guest's console output for the debug overlay.
const CONSOLE_KEEP: usize = 16 * 1024;

/// The [`Host`] of a program run in the player.
pub struct GuiHost {
    start: Instant,
    pub console: Mutex<String>,
    /// The mode the running program's CreateProcess children start in.
    child_mode: Mutex<Option<crate::child::Mode>>,
}

impl GuiHost {
    fn new() -> GuiHost {
        GuiHost {
            start: Instant::now(),
            console: Mutex::new(String::new()),
            child_mode: Mutex::new(None),
        }
    }

    fn keep_console(&self, bytes: &[u8]) {
        let mut c = lock(&self.console);
        c.push_str(&String::from_utf8_lossy(bytes));
        if c.len() > CONSOLE_KEEP {
            let mut cut = c.len() - CONSOLE_KEEP;
            while !c.is_char_boundary(cut) {
                cut += 1;
            }
            c.drain(..cut);
        }
    }
}

impl Host for GuiHost {
    /// A child opens a player window of its own (a new process of this binary).
    fn start_process(
        &self,
        spec: &winterp_hostwin32::kernel32::createprocess::ChildSpec,
    ) -> Result<std::process::Child, winterp_hostwin32::kernel32::createprocess::StartError> {
        let mode = lock(&self.child_mode).clone().ok_or_else(|| {
            winterp_hostwin32::kernel32::createprocess::StartError::Failed(
                "no program is running".into(),
            )
        })?;
        crate::child::launcher(mode)(spec)
    }
    fn stdout(&self, bytes: &[u8]) {
        use std::io::Write;
        let _ = std::io::stdout().lock().write_all(bytes);
        self.keep_console(bytes);
    }
    fn stderr(&self, bytes: &[u8]) {
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(bytes);
        self.keep_console(bytes);
    }
    fn stdin(&self, _buf: &mut [u8]) -> usize {
        // A windowed program has no console input.
        0
    }
    fn millis(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
    fn micros(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
}

/// State shared by the UI thread and the guest's host threads.
pub struct Shared {
    pub proc: OnceLock<Arc<Process>>,
    pub host: Arc<GuiHost>,
    deterministic: bool,
    /// The latest guest frame (`None`: the guest shows no window).
    frame: Mutex<Option<Arc<Frame>>>,
    /// Guest frames published so far (the overlay's guest FPS).
    pub frames: AtomicU64,
    /// The sound output's device and counters, once it started.
    pub audio: OnceLock<crate::audio_pump::AudioStatusHandle>,
    /// DirectDraw's present count when first seen non-zero and when last seen to
    /// change, with the times: the present rate printed when the program ends.
    presents: Mutex<Option<((u64, Instant), (u64, Instant))>>,
    title: Mutex<Option<String>>,
    input: Mutex<Vec<InputEvent>>,
    paused: AtomicBool,
    /// The host threads should stop ticking.
    stop: AtomicBool,
    ending: Mutex<Option<Ending>>,
}

impl Shared {
    /// Delivers queued input, publishes the frame and title, and (OS-thread mode)
    /// keeps threads suspended while paused. Runs on a guest host thread.
    fn tick(&self, proc: &Arc<Process>) {
        let events: Vec<InputEvent> = std::mem::take(&mut *lock(&self.input));
        for ev in events {
            log::debug!("injecting {ev:?}");
            display::inject(proc, ev);
        }
        let frame = display::current_frame(proc).map(Arc::new);
        if frame.is_some() {
            self.frames.fetch_add(1, Ordering::Relaxed);
        }
        let n = display::presents(proc);
        if n > 0 {
            let now = Instant::now();
            let mut p = lock(&self.presents);
            match p.as_mut() {
                None => *p = Some(((n, now), (n, now))),
                Some((_, last)) if last.0 != n => *last = (n, now),
                Some(_) => {}
            }
        }
        *lock(&self.frame) = frame;
        *lock(&self.title) = display::main_window_title(proc);
    }
}

/// A program started in the player.
pub struct Session {
    pub shared: Arc<Shared>,
    pub launch: Launch,
    guest_thread: Option<std::thread::JoinHandle<()>>,
}

impl Session {
    /// Starts loading and running `launch` on new host threads; returns at once.
    pub fn start(launch: Launch, wake: Waker) -> Session {
        let shared = Arc::new(Shared {
            proc: OnceLock::new(),
            host: Arc::new(GuiHost::new()),
            deterministic: launch.deterministic,
            frame: Mutex::new(None),
            frames: AtomicU64::new(0),
            audio: OnceLock::new(),
            presents: Mutex::new(None),
            title: Mutex::new(None),
            input: Mutex::new(Vec::new()),
            paused: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            ending: Mutex::new(None),
        });
        let s = shared.clone();
        let l = launch.clone();
        let spawned = std::thread::Builder::new()
            .name("winterp-guest".into())
            .spawn(move || {
                let ending = run_guest(&s, &l);
                // How fast a DirectDraw program presented (tests/demo.rs reads it).
                if let Some(((n0, t0), (n1, t1))) = *lock(&s.presents)
                    && n1 > n0
                {
                    let secs = (t1 - t0).as_secs_f64().max(1e-6);
                    eprintln!(
                        "winterp: {} DirectDraw presents in {secs:.2} s ({:.2} per second)",
                        n1 - n0,
                        (n1 - n0) as f64 / secs
                    );
                }
                s.stop.store(true, Ordering::SeqCst);
                *lock(&s.ending) = Some(ending);
                wake();
            });
        let guest_thread = match spawned {
            Ok(h) => Some(h),
            Err(e) => {
                *lock(&shared.ending) = Some(Ending::LoadFailed(format!(
                    "cannot start a host thread for the program: {e}"
                )));
                None
            }
        };
        Session {
            shared,
            launch,
            guest_thread,
        }
    }

    pub fn frame(&self) -> Option<Arc<Frame>> {
        lock(&self.shared.frame).clone()
    }

    pub fn guest_title(&self) -> Option<String> {
        lock(&self.shared.title).clone()
    }

    pub fn proc(&self) -> Option<&Arc<Process>> {
        self.shared.proc.get()
    }

    /// Queues input for the next refresh tick (dropped while paused: a paused game
    /// should not find a pile of keystrokes when it resumes).
    pub fn send(&self, ev: InputEvent) {
        if !self.is_paused() || matches!(ev, InputEvent::Close) {
            lock(&self.shared.input).push(ev);
        }
    }

    pub fn is_paused(&self) -> bool {
        self.shared.paused.load(Ordering::SeqCst)
    }

    pub fn set_paused(&self, paused: bool) {
        self.shared.paused.store(paused, Ordering::SeqCst);
    }

    /// How the run ended, once it has. A host thread that died without saying
    /// (a winterp bug) is reported as such.
    pub fn ending(&self) -> Option<Ending> {
        if let Some(e) = lock(&self.shared.ending).clone() {
            return Some(e);
        }
        match &self.guest_thread {
            Some(h) if h.is_finished() => Some(Ending::Crashed(
                "winterp: the program's host thread stopped unexpectedly (a winterp bug; \
                 the terminal has its panic message)"
                    .into(),
            )),
            _ => None,
        }
    }

    /// Ends the process now (threads stop at their next block boundary or wait).
    pub fn end_now(&self) {
        self.set_paused(false);
        if let Some(p) = self.proc() {
            scheduler::end_process(p, 0);
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The UI dropped a program that may still run (player quitting): stop it
        // without waiting for its threads.
        self.shared.stop.store(true, Ordering::SeqCst);
        if self.ending().is_none() {
            self.end_now();
        }
    }
}

/// The guest host thread: load, start, run; the result is how the run ended.
fn run_guest(s: &Arc<Shared>, l: &Launch) -> Ending {
    let program = match l.program.canonicalize() {
        Ok(p) => p,
        Err(e) => return Ending::LoadFailed(format!("cannot open {}: {e}", l.program.display())),
    };
    let mut config = ProcessConfig::new(program.clone(), crate::headless::guest_path(&program));
    config.args = l.args.clone();
    config.deterministic = l.deterministic;
    config.max_instructions = l.max_instructions;
    config.trace_api = l.trace_api;
    config.stub_unimplemented = l.stub_unimplemented;
    config.version = l.winver;
    // Message boxes are guest windows the user answers in the frame.
    config.message_box_ticks = None;
    if let Some(c) = &l.child {
        config.guest_path = c.guest_path.clone();
        config.env = c.env.clone();
        config.child = Some(c.child_of());
    }
    *lock(&s.host.child_mode) = Some(crate::child::Mode {
        headless: false,
        deterministic: l.deterministic,
        frames: None,
        frames_are_ticks: false,
        winver: Some(crate::child::winver_name(l.winver).to_string()),
        stub_unimplemented: l.stub_unimplemented,
        trace_api: l.trace_api,
        max_instructions: l.max_instructions,
    });
    let guest_dir = config
        .guest_path
        .rsplit_once('\\')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default();
    let host: Arc<dyn Host> = s.host.clone();
    let (proc, mut main) = match winterp_hostwin32::startup::prepare(config, host) {
        Ok(x) => x,
        Err(e) => return Ending::LoadFailed(format!("cannot load {}: {e}", program.display())),
    };
    // OpenGL programs draw through wgpu (lavapipe without a GPU), made when the
    // program creates its first GL context.
    winterp_hostwin32::glrender::install(
        &proc,
        Box::new(|| {
            winterp_video::gl::WgpuGl::new()
                .map(|r| Box::new(r) as Box<dyn winterp_hostwin32::glrender::GlRenderer>)
        }),
    );
    let overlay_dir = match crate::headless::overlay_dir(&program) {
        Ok(d) => d,
        Err(e) => return Ending::LoadFailed(format!("{e:#}")),
    };
    // A child shares its parent's sandbox and starts in the folder it was given.
    let vfs = Vfs::new(match &l.child {
        Some(c) => c.vfs_config(),
        None => VfsConfig {
            program_dir: program
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default(),
            guest_dir,
            overlay_dir,
            allow_writes_to_original: false,
        },
    })
    .and_then(|v| {
        if let Some(c) = &l.child {
            v.set_current_dir(&c.current_dir)?;
        }
        Ok(v)
    });
    match vfs {
        Ok(v) => {
            let _ = proc.vfs.set(Arc::new(v));
        }
        Err(e) => {
            return Ending::LoadFailed(format!("cannot set up the program's file system: {e}"));
        }
    }
    // Started and stopped with the session (dropped when this function returns).
    let paused = s.clone();
    let mut audio = crate::audio_pump::PlayerAudio::start(
        &proc,
        s.deterministic,
        Box::new(move || paused.paused.load(Ordering::SeqCst)),
    );
    let _ = s.audio.set(audio.status());
    if s.deterministic {
        let shared = s.clone();
        let mut pace = Pacer::new();
        let mut feeder = audio.take_feeder();
        scheduler::set_frame_hook(
            &proc,
            Box::new(move |p, k| {
                // Paused: the whole deterministic run waits here, on the guest's host
                // thread, until resumed or ended.
                while shared.paused.load(Ordering::SeqCst)
                    && !shared.stop.load(Ordering::SeqCst)
                    && p.exited().is_none()
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                shared.tick(p);
                if let Some(f) = feeder.as_mut() {
                    f.feed(p);
                }
                pace.wait_for_frame(k);
            }),
        );
    }
    let _ = s.proc.set(proc.clone());
    // CREATE_SUSPENDED: nothing runs before the parent's ResumeThread.
    winterp_hostwin32::kernel32::createprocess::hold_until_resumed(&proc);
    if let Err(e) = winterp_hostwin32::startup::initialize(&proc, &mut main) {
        return Ending::LoadFailed(format!("cannot start {}: {e}", program.display()));
    }
    let bridge = if s.deterministic {
        None
    } else {
        let shared = s.clone();
        let p = proc.clone();
        std::thread::Builder::new()
            .name("winterp-bridge".into())
            .spawn(move || bridge(&shared, &p))
            .ok()
    };
    let end = scheduler::run_process(&proc, main);
    s.stop.store(true, Ordering::SeqCst);
    if let ThreadEnd::Exited(c) | ThreadEnd::ProcessExit(c) = &end {
        winterp_hostwin32::kernel32::createprocess::report(
            &proc,
            &winterp_hostwin32::kernel32::createprocess::ChildEvent::Exit(*c),
        );
    }
    if let Some(b) = bridge {
        let _ = b.join();
    }
    match end {
        ThreadEnd::Exited(c) | ThreadEnd::ProcessExit(c) => Ending::Exited(c),
        ThreadEnd::Crashed(report) => Ending::Crashed(report.trim_end().to_string()),
        ThreadEnd::InstructionLimit => Ending::InstructionLimit,
    }
}

/// OS-thread mode: ticks at 60 Hz wall clock until the run ends; while paused it
/// suspends every guest thread (new ones too) and resumes them afterwards.
fn bridge(s: &Shared, proc: &Arc<Process>) {
    let mut suspended: Vec<Arc<ThreadObj>> = Vec::new();
    let mut next = Instant::now();
    while !s.stop.load(Ordering::SeqCst) && proc.exited().is_none() {
        if s.paused.load(Ordering::SeqCst) {
            for t in proc.sched.threads() {
                if !suspended.iter().any(|x| Arc::ptr_eq(x, &t)) && t.suspend().is_some() {
                    suspended.push(t);
                }
            }
        } else {
            for t in suspended.drain(..) {
                t.resume();
            }
            s.tick(proc);
        }
        next += TICK;
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        } else {
            next = now;
        }
    }
    for t in suspended.drain(..) {
        t.resume();
    }
}

/// Deterministic mode: holds refresh tick `k` back until its wall-clock time, so a
/// program that runs faster than real time plays at real speed.
struct Pacer {
    start: Instant,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer {
            start: Instant::now(),
        }
    }

    fn wait_for_frame(&mut self, k: u64) {
        let due = self.start + TICK * (k as u32);
        let now = Instant::now();
        if now < due {
            std::thread::sleep(due - now);
        } else if now - due > Duration::from_millis(250) {
            // Far behind (slow stretch or a pause): start counting from here instead of
            // racing to catch up.
            self.start = now - TICK * (k as u32);
        }
    }
}
