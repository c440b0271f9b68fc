//! `winterp --headless PROGRAM.EXE [ARGS...]`: runs a Windows console program with
//! its standard streams on the host's, and exits with the guest's exit code.

use crate::audio_pump::AudioDump;
use crate::input_script::InputScript;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use winterp_hostwin32::display::{self, Frame};
use winterp_hostwin32::host::ConsoleHost;
use winterp_hostwin32::kernel32::createprocess;
use winterp_hostwin32::process::{Process, ProcessConfig, WinVersion};
use winterp_hostwin32::scheduler;
use winterp_hostwin32::thread::ThreadEnd;
use winterp_hostwin32::vfs::{Vfs, VfsConfig};

pub struct HeadlessArgs {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub deterministic: bool,
    pub max_instructions: Option<u64>,
    pub stats: Option<PathBuf>,
    pub trace_api: bool,
    pub stub_unimplemented: bool,
    pub winver: WinVer,
    /// Stop after this many refresh ticks (60 Hz; virtual in deterministic mode).
    pub frames: Option<u64>,
    /// Write the guest frame at the last tick as PNG.
    pub screenshot: Option<PathBuf>,
    /// Inject the events of this script at their ticks.
    pub input: Option<PathBuf>,
    /// Write what the guest's voices played as a 44100 Hz 16-bit stereo WAV.
    pub audio_dump: Option<PathBuf>,
    /// Write one line per frame 1..=N: number, size and hash of its pixels.
    pub frame_hashes: Option<PathBuf>,
    /// Tier switches at frames (`--tier-at`), in command-line order.
    pub tier_at: Vec<TierAt>,
    /// Render the tier overlay at the end of the run as PNG.
    pub overlay_png: Option<PathBuf>,
    /// Print the `uop` census at the end of the run.
    pub uop_census: bool,
    /// Follow the run's progress (first window, presents) for `winterp check`.
    pub track_progress: bool,
    /// `--frames` also ends a DirectDraw program's run at tick N if it has not
    /// presented N frames by then (`winterp check`: a program that presents at 2 Hz
    /// is judged by how long it keeps running).
    pub frames_are_ticks: bool,
    /// Message boxes press their default button after showing this many refresh
    /// ticks (`--message-box-ticks`); `None`: only input answers them.
    pub message_box_ticks: Option<u32>,
    /// This run is a child another run's CreateProcess started (`--child-spec`).
    pub child: Option<crate::child::ChildLaunch>,
}

/// How far a run with `--frames` got (`winterp check`).
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// The last refresh tick.
    pub ticks: u64,
    /// The first tick at which the program had a window showing something.
    pub first_window: Option<u64>,
    /// The tick of the first presented frame (a DirectDraw present, or for GDI
    /// programs the first tick with a window).
    pub first_present: Option<u64>,
    /// Frames presented: DirectDraw presents, or refresh ticks with a window.
    pub presented: u64,
    /// The run ended at its last frame (rather than by the program).
    pub reached: bool,
    /// The titles of the visible top-level windows it showed, in the order first
    /// seen (`winterp check` reports them; the Wine corpus test compares them with
    /// the titles Wine shows).
    pub titles: Vec<String>,
}

/// What a headless run ended with.
pub struct RunReport {
    /// The exit code winterp exits with.
    pub code: i32,
    /// How the guest ended, in words.
    pub end: String,
    pub progress: Progress,
    /// The first call of an API winterp does not implement.
    pub first_unimplemented: Option<String>,
    /// The screenshot was written.
    pub screenshot: bool,
    /// The processes the program started, with what they did.
    pub children: Vec<ChildReport>,
}

/// A process the program started (CreateProcess) and what its run showed.
pub struct ChildReport {
    pub name: String,
    pub pid: u32,
    pub status: winterp_hostwin32::kernel32::createprocess::ChildStatus,
}

impl ChildReport {
    /// "child process WORDPAD.EXE (id 0x14d0): first window at tick 12, ...".
    pub fn line(&self) -> String {
        let s = &self.status;
        let mut parts = vec![match s.first_window {
            Some(t) => format!("first window at tick {t}"),
            None => "no window".to_string(),
        }];
        if let Some(t) = s.first_present {
            parts.push(format!("first presented frame at tick {t}"));
        }
        if let Some(n) = s.presented {
            parts.push(format!("{n} frames presented"));
        }
        if let Some(u) = &s.unimplemented {
            parts.push(format!("first unimplemented {u}"));
        }
        match (&s.end, s.exit) {
            (Some(e), _) => parts.push(e.clone()),
            (None, Some(c)) => parts.push(format!("exited with code {c:#x}")),
            (None, None) => parts.push("still running".to_string()),
        }
        format!(
            "child process {} (id {:#x}): {}",
            self.name,
            self.pid,
            parts.join(", ")
        )
    }
}

/// `--tier-at FRAME:NAME=on|off`: once frame `frame` has been shown, the process-wide
/// gate of `tier` is set to `on`.
#[derive(Clone, Copy, Debug)]
pub struct TierAt {
    pub frame: u64,
    pub tier: winterp_core::tiers::Tier,
    pub on: bool,
}

/// `--winver` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum WinVer {
    #[value(name = "95")]
    Win95,
    #[value(name = "98")]
    Win98,
    #[value(name = "me")]
    WinMe,
    #[value(name = "nt4")]
    Nt4,
    #[value(name = "2000")]
    Win2000,
    #[value(name = "xp")]
    WinXp,
}

impl From<WinVer> for WinVersion {
    fn from(v: WinVer) -> WinVersion {
        match v {
            WinVer::Win95 => WinVersion::Win95,
            WinVer::Win98 => WinVersion::Win98,
            WinVer::WinMe => WinVersion::WinMe,
            WinVer::Nt4 => WinVersion::Nt4,
            WinVer::Win2000 => WinVersion::Win2000,
            WinVer::WinXp => WinVersion::WinXp,
        }
    }
}

/// Runs the program; returns the exit code winterp should exit with.
pub fn run(a: HeadlessArgs) -> Result<i32> {
    Ok(run_report(a)?.code)
}

/// Runs the program and says how it ended.
pub fn run_report(mut a: HeadlessArgs) -> Result<RunReport> {
    // A child reports what its run showed to its parent, so it follows its progress.
    if let Some(c) = &a.child {
        a.track_progress = true;
        a.frames_are_ticks |= c.frames_are_ticks;
    }
    let frames = FrameRun::new(&a)?;
    let progress = frames.as_ref().map(|f| f.progress.clone());
    let program = a
        .program
        .canonicalize()
        .with_context(|| format!("cannot open {}", a.program.display()))?;
    let mut config = ProcessConfig::new(program.clone(), guest_path(&program));
    config.args = a.args;
    config.deterministic = a.deterministic;
    // A deterministic run compiles `jit` code on the guest thread: which blocks run
    // compiled then depends only on the program, so its statistics repeat too.
    if a.deterministic {
        winterp_core::tiers::global().set_jit_background(false);
    }
    config.max_instructions = a.max_instructions;
    config.trace_api = a.trace_api;
    config.stub_unimplemented = a.stub_unimplemented;
    config.version = a.winver.into();
    config.message_box_ticks = a.message_box_ticks;
    if let Some(c) = &a.child {
        config.guest_path = c.guest_path.clone();
        config.env = c.env.clone();
        config.child = Some(c.child_of());
    }
    let guest_dir = config
        .guest_path
        .rsplit_once('\\')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default();
    let host = Arc::new(ConsoleHost::with_launcher(crate::child::launcher(
        crate::child::Mode {
            headless: true,
            deterministic: a.deterministic,
            frames: a.frames,
            frames_are_ticks: a.frames_are_ticks,
            winver: clap::ValueEnum::to_possible_value(&a.winver).map(|v| v.get_name().to_string()),
            stub_unimplemented: a.stub_unimplemented,
            trace_api: a.trace_api,
            max_instructions: a.max_instructions,
        },
    )));
    let (proc, mut main) = winterp_hostwin32::startup::prepare(config, host)
        .with_context(|| format!("cannot load {}", program.display()))?;
    // OpenGL programs draw through wgpu (lavapipe without a GPU), made when the
    // program creates its first GL context.
    winterp_hostwin32::glrender::install(
        &proc,
        Box::new(|| {
            winterp_video::gl::WgpuGl::new()
                .map(|r| Box::new(r) as Box<dyn winterp_hostwin32::glrender::GlRenderer>)
        }),
    );
    let program_dir = program
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    // A child shares its parent's sandbox (its image may lie anywhere in it).
    let vfs_config = match &a.child {
        Some(c) => c.vfs_config(),
        None => VfsConfig {
            program_dir: program_dir.clone(),
            guest_dir,
            overlay_dir: overlay_dir(&program)?,
            allow_writes_to_original: false,
        },
    };
    let vfs = Vfs::new(vfs_config).context("cannot set up the program's file system")?;
    if let Some(c) = &a.child {
        vfs.set_current_dir(&c.current_dir)
            .with_context(|| format!("cannot enter {}", c.current_dir))?;
    }
    let _ = proc.vfs.set(Arc::new(vfs));
    // CREATE_SUSPENDED: not even DLL initialisation runs before ResumeThread.
    createprocess::hold_until_resumed(&proc);
    winterp_hostwin32::startup::initialize(&proc, &mut main)
        .with_context(|| format!("cannot start {}", program.display()))?;
    let captured = frames.as_ref().map(|f| f.captured.clone());
    let frame_log = frames.as_ref().map(|f| f.log.clone());
    let audio = match &a.audio_dump {
        Some(path) => {
            let mut dump = AudioDump::create(path)?;
            // The first drain switches capturing on, from guest time 0.
            dump.pump(&proc);
            Some(Arc::new(Mutex::new(Some(dump))))
        }
        None => None,
    };
    let audio_pump = audio
        .as_ref()
        .and_then(|d| audio_thread(&proc, d, frames.is_some()));
    let ticker = frames.map(|mut f| {
        f.audio = audio.clone();
        f.install(&proc)
    });
    let overlay = a
        .overlay_png
        .as_ref()
        .map(|_| crate::gui::overlay::HeadlessSampler::start(&proc));
    let end = winterp_hostwin32::scheduler::run_process(&proc, main);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    // The run reports what its children did, and none outlives it: they are waited
    // for when the program ended normally, ended when it crashed or was cut short.
    if !matches!(end, ThreadEnd::Exited(_) | ThreadEnd::ProcessExit(_)) {
        createprocess::terminate_children(&proc);
    }
    createprocess::wait_children(&proc);
    if let Some(t) = audio_pump {
        let _ = t.join();
    }
    // The refresh hook keeps its handle, so the dump is taken out of the shared slot.
    if let Some(dump) = audio.and_then(|d| lock(&d).take()) {
        dump.finish(&proc)?;
    }
    if let (Some(path), Some(log)) = (&a.frame_hashes, &frame_log) {
        lock(log).write(path, display::uses_directdraw(&proc))?;
    }
    // The overlay's last sample is taken now (its "last second" ends with the run);
    // it is rendered after the stats are written, which need no graphics adapter.
    let overlay = overlay
        .map(|s| s.finish(&proc).map_err(|e| anyhow::anyhow!(e)))
        .transpose()?;
    if let Some(path) = &a.stats {
        std::fs::write(path, stats_json(&proc))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if a.uop_census {
        eprint!("{}", uop_census_text(&proc));
    }
    if let (Some(path), Some(mut o)) = (&a.overlay_png, overlay) {
        crate::gui::overlay::offscreen::write_png(&mut o, path)?;
    }
    let (code, end_text) = match &end {
        ThreadEnd::Exited(c) | ThreadEnd::ProcessExit(c) => {
            (*c as i32, format!("exited with code {c:#x}"))
        }
        ThreadEnd::InstructionLimit => {
            eprintln!("winterp: stopped after the instruction limit");
            (124, "stopped after the instruction limit".to_string())
        }
        other => {
            let text = crash_text(other);
            eprintln!("{text}");
            // A crashed guest ends like a Windows process killed by its exception.
            (crash_code(other), text)
        }
    };
    let mut report = RunReport {
        code,
        end: end_text,
        progress: progress.map(|p| lock(&p).clone()).unwrap_or_default(),
        first_unimplemented: lock(&proc.counters.first_unimplemented).clone(),
        screenshot: false,
        children: createprocess::children(&proc)
            .iter()
            .map(|c| ChildReport {
                name: c.name.clone(),
                pid: c.pid,
                status: c.status(),
            })
            .collect(),
    };
    if let Some(path) = &a.screenshot {
        let frame = captured.and_then(|c| c.lock().unwrap_or_else(|e| e.into_inner()).take());
        match frame {
            Some(frame) => {
                winterp_video::png_file::write(path, &frame)?;
                report.screenshot = true;
            }
            None => {
                eprintln!(
                    "winterp: no frame written to {}: the program ended, or showed no \
                     window, before the last refresh tick",
                    path.display()
                );
                report.code = if code == 0 { 1 } else { code };
            }
        }
    }
    report_to_parent(&proc, &report);
    Ok(report)
}

/// A child's run summary, for its parent's report (`winterp check`).
fn report_to_parent(proc: &Process, r: &RunReport) {
    use createprocess::ChildEvent as E;
    if proc.config.child.is_none() {
        return;
    }
    let p = &r.progress;
    let mut events = Vec::new();
    events.extend(p.first_window.map(E::FirstWindow));
    events.extend(p.first_present.map(E::FirstPresent));
    if p.presented > 0 {
        events.push(E::Presented(p.presented));
    }
    events.extend(r.first_unimplemented.clone().map(E::Unimplemented));
    events.push(E::End(if p.reached {
        "reached its last frame".to_string()
    } else {
        r.end.lines().next().unwrap_or("").to_string()
    }));
    events.push(E::Exit(r.code as u32));
    for ev in &events {
        createprocess::report(proc, ev);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `--audio-dump` without `--frames` in OS-thread mode: a host thread drains the
/// guest every 10 ms (with `--frames` the refresh ticks do it). A deterministic run
/// without `--frames` drains only at its start and end, so its voices' queue (about
/// 12 s of sound) bounds what the dump holds.
fn audio_thread(
    proc: &Arc<Process>,
    dump: &SharedDump,
    ticked: bool,
) -> Option<std::thread::JoinHandle<()>> {
    if ticked || proc.config.deterministic {
        return None;
    }
    let (proc, dump) = (proc.clone(), dump.clone());
    Some(std::thread::spawn(move || {
        while proc.exited().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(10));
            if let Some(d) = lock(&dump).as_mut() {
                d.pump(&proc);
            }
        }
    }))
}

/// `--frames`, `--screenshot`, `--input` and `--audio-dump`: what happens at each
/// refresh tick.
struct FrameRun {
    last: Option<u64>,
    script: InputScript,
    captured: Arc<Mutex<Option<Frame>>>,
    audio: Option<SharedDump>,
    /// `--frame-hashes` given.
    hashing: bool,
    log: Arc<Mutex<FrameLog>>,
    /// Followed when `track` (composing a frame every tick costs time).
    progress: Arc<Mutex<Progress>>,
    track: bool,
    ticks_only: bool,
}

/// `--frame-hashes` and `--tier-at`: what is done once a frame has been shown, by the
/// refresh ticks (programs that draw with GDI) and the present hook (DirectDraw).
#[derive(Default)]
struct FrameLog {
    /// (frame, its hash) at refresh ticks 1..=N; `None` where nothing was shown.
    ticks: Vec<(u64, Option<FrameHash>)>,
    /// (present, its hash) for presents 1..=N.
    presents: Vec<(u64, Option<FrameHash>)>,
    /// Switches not applied yet.
    switches: Vec<TierAt>,
}

#[derive(Clone, Copy)]
struct FrameHash {
    width: u32,
    height: u32,
    fnv: u64,
}

impl FrameHash {
    /// FNV-1a (64-bit) of the frame's RGBA8 bytes, row-major with alpha 255: the bytes
    /// a `--screenshot` PNG decodes to (`convert F.png rgba:-`), so a line can be checked
    /// against a screenshot with any tool. The palette and surface format are in it
    /// through the colours they give each pixel.
    fn of(f: &Frame) -> FrameHash {
        const PRIME: u64 = 0x100_0000_01b3;
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &p in &f.pixels {
            for b in [(p >> 16) as u8, (p >> 8) as u8, p as u8, 255] {
                h = (h ^ u64::from(b)).wrapping_mul(PRIME);
            }
        }
        FrameHash {
            width: f.width,
            height: f.height,
            fnv: h,
        }
    }
}

impl FrameLog {
    /// Frame `n` has been shown (a refresh tick's picture, or the `n`th present);
    /// `hash` is its hash when hashing (`Some(None)`: nothing was shown).
    fn shown(&mut self, present: bool, n: u64, hash: Option<Option<FrameHash>>) {
        if let Some(h) = hash {
            if present {
                self.presents.push((n, h));
            } else {
                self.ticks.push((n, h));
            }
        }
        // The switch happens here, in the guest thread that presented (or between
        // deterministic slices at a tick), so it lands on the same instruction in
        // every deterministic run.
        let tiers = winterp_core::tiers::global();
        self.switches.retain(|s| {
            if s.frame != n {
                return true;
            }
            if let Err(e) = tiers.set(s.tier, s.on) {
                eprintln!("winterp: --tier-at {}: {e}", s.frame);
            }
            false
        });
    }

    /// The `--frame-hashes` file: the frames as `--frames` counts them (presents for a
    /// DirectDraw program, refresh ticks otherwise).
    fn write(&self, path: &std::path::Path, directdraw: bool) -> Result<()> {
        use std::fmt::Write;
        let rows = if directdraw {
            &self.presents
        } else {
            &self.ticks
        };
        let mut text = String::from("# frame WIDTHxHEIGHT fnv1a64(RGBA8 pixels)\n");
        for (n, h) in rows {
            let _ = match h {
                Some(h) => writeln!(text, "{n} {}x{} {:016x}", h.width, h.height, h.fnv),
                None => writeln!(text, "{n} none"),
            };
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The `--audio-dump` writer, shared by the refresh ticks or the pump thread and the
/// end of the run (which takes it out).
type SharedDump = Arc<Mutex<Option<AudioDump>>>;

impl FrameRun {
    fn new(a: &HeadlessArgs) -> Result<Option<FrameRun>> {
        if a.frames.is_none()
            && (a.screenshot.is_some()
                || a.input.is_some()
                || a.frame_hashes.is_some()
                || !a.tier_at.is_empty())
        {
            anyhow::bail!("--screenshot, --input, --frame-hashes and --tier-at need --frames N");
        }
        let Some(n) = a.frames else { return Ok(None) };
        if let Some(s) = a.tier_at.iter().find(|s| s.frame == 0 || s.frame >= n) {
            anyhow::bail!(
                "--tier-at {}: the frame must be 1..{} to take effect before the run \
                 ends (use --tier for the start)",
                s.frame,
                n.saturating_sub(1)
            );
        }
        let script = match &a.input {
            Some(p) => InputScript::load(p)?,
            None => InputScript::default(),
        };
        Ok(Some(FrameRun {
            last: Some(n),
            script,
            captured: Arc::new(Mutex::new(None)),
            audio: None,
            hashing: a.frame_hashes.is_some(),
            log: Arc::new(Mutex::new(FrameLog {
                switches: a.tier_at.clone(),
                ..FrameLog::default()
            })),
            progress: Arc::new(Mutex::new(Progress::default())),
            track: a.track_progress,
            ticks_only: a.frames_are_ticks,
        }))
    }

    /// Tick `k`: inject its scripted events; at the last tick capture the frame and
    /// end the run.
    fn tick(&mut self, proc: &Arc<Process>, k: u64) {
        if let Some(a) = &self.audio
            && let Some(d) = lock(a).as_mut()
        {
            d.pump(proc);
        }
        for ev in self.script.at(k) {
            display::inject(proc, ev.clone());
        }
        // Once a program presents through DirectDraw its frames are its presents, and
        // the present hook ends the run; one that stops presenting short of N ends a
        // minute of refresh ticks later with its last picture.
        let ddraw = display::uses_directdraw(proc) && !self.ticks_only;
        if self.track {
            let shown = display::current_frame(proc).is_some();
            let mut p = lock(&self.progress);
            p.ticks = k;
            if shown {
                if p.first_window.is_none() {
                    // A child tells its parent at once: the parent may end it soon.
                    createprocess::report(proc, &createprocess::ChildEvent::FirstWindow(k));
                }
                p.first_window.get_or_insert(k);
                for t in winterp_hostwin32::user32::present::visible_titles(proc) {
                    if !p.titles.contains(&t) {
                        p.titles.push(t);
                    }
                }
                // Until a program presents through DirectDraw, its window is what it
                // shows (GDI programs, and DirectDraw ones that draw with GDI).
                if display::presents(proc) == 0 {
                    p.first_present.get_or_insert(k);
                    p.presented += 1;
                }
            }
        }
        if !ddraw && k >= 1 && self.last.is_some_and(|n| k <= n) {
            // Composed before the log is locked: the present hook takes the log.
            let hash = self
                .hashing
                .then(|| display::current_frame(proc).as_ref().map(FrameHash::of));
            lock(&self.log).shown(false, k, hash);
        }
        let give_up = self.last.map(|n| n + 3600);
        if (Some(k) == self.last && !ddraw) || (ddraw && Some(k) == give_up) {
            let frame = display::current_frame(proc);
            // A GDI program reached its last frame if it still shows a window.
            lock(&self.progress).reached = !ddraw && frame.is_some();
            *self.captured.lock().unwrap_or_else(|e| e.into_inner()) = frame;
            scheduler::end_process(proc, 0);
        }
    }

    /// DirectDraw's present `count`: the Nth is captured and ends the run.
    fn install_present_hook(&self, proc: &Arc<Process>) {
        let (captured, last, log) = (self.captured.clone(), self.last, self.log.clone());
        let hashing = self.hashing;
        let progress = self.progress.clone();
        display::set_present_hook(
            proc,
            Box::new(move |p, count, frame| {
                if last.is_some_and(|n| count <= n) {
                    let hash = hashing.then(|| Some(FrameHash::of(frame)));
                    lock(&log).shown(true, count, hash);
                }
                {
                    let mut p = lock(&progress);
                    let tick = p.ticks;
                    if count == 1 {
                        // Window ticks counted before the first present give way.
                        p.first_present = Some(tick);
                    }
                    p.presented = count;
                    p.reached |= Some(count) == last;
                }
                if Some(count) == last {
                    *captured.lock().unwrap_or_else(|e| e.into_inner()) = Some(frame.clone());
                    scheduler::end_process(p, 0);
                }
            }),
        );
    }

    /// Deterministic mode: the scheduler runs the ticks on virtual time. OS-thread
    /// mode: a host thread ticks at 60 Hz of wall-clock time until the process ends.
    fn install(mut self, proc: &Arc<Process>) -> std::thread::JoinHandle<()> {
        self.install_present_hook(proc);
        if proc.config.deterministic {
            scheduler::set_frame_hook(proc, Box::new(move |p, k| self.tick(p, k)));
            return std::thread::spawn(|| {});
        }
        let proc = proc.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            let mut k = 0u64;
            while proc.exited().is_none() {
                let due = start + std::time::Duration::from_micros(k * 1_000_000 / 60);
                if let Some(wait) = due.checked_duration_since(std::time::Instant::now()) {
                    std::thread::sleep(wait);
                }
                if proc.exited().is_some() {
                    break;
                }
                self.tick(&proc, k);
                k += 1;
            }
        })
    }
}

/// The per-program writable folder: `$WINTERP_DATA_DIR` if set (tests), else the
/// user's data directory, one folder per program path.
pub fn overlay_dir(program: &std::path::Path) -> Result<PathBuf> {
    let base = match std::env::var_os("WINTERP_DATA_DIR") {
        Some(d) => PathBuf::from(d),
        None => directories::ProjectDirs::from("", "", "winterp")
            .map(|p| p.data_dir().to_path_buf())
            .context("no user data directory on this system; set WINTERP_DATA_DIR")?,
    };
    let name = program
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    // Two programs with the same name in different folders get different overlays.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in program.to_string_lossy().bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let dir = base.join("programs").join(format!("{name}-{h:016x}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// The guest sees the program in a folder named after its host folder on drive C.
pub fn guest_path(program: &std::path::Path) -> String {
    let file = program
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let dir = program
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| d.to_string_lossy().to_string())
        .unwrap_or_default();
    if dir.is_empty() {
        format!("C:\\{file}")
    } else {
        format!("C:\\{dir}\\{file}")
    }
}

fn crash_text(e: &ThreadEnd) -> String {
    match e {
        ThreadEnd::Crashed(report) => report.trim_end().to_string(),
        other => format!("winterp: the program ended abnormally: {other:?}"),
    }
}

fn crash_code(_e: &ThreadEnd) -> i32 {
    // STATUS_ACCESS_VIOLATION and friends do not fit an i32 exit status on Unix;
    // report a generic failure code.
    255
}

fn stats_json(proc: &Process) -> String {
    use std::sync::atomic::Ordering;
    let threads = proc
        .thread_stats
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut total = winterp_core::stats::ExecCounters::default();
    for (_, c) in &threads {
        total.insns += c.insns;
        total.blocks += c.blocks;
        total.decodes += c.decodes;
        total.dispatches += c.dispatches;
        total.invalidations += c.invalidations;
    }
    let per_thread: Vec<serde_json::Value> = threads
        .iter()
        .map(|(tid, c)| serde_json::json!({ "tid": tid, "instructions": c.insns, "blocks": c.blocks }))
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "instructions": total.insns,
        "blocks": total.blocks,
        "decodes": total.decodes,
        "dispatches": total.dispatches,
        "invalidations": total.invalidations,
        "api_calls": proc.counters.api_calls.load(Ordering::Relaxed),
        "threads": threads.len(),
        "per_thread": per_thread,
        "hot_blocks": hot_blocks_json(proc),
        "uop_census": uop_census_json(proc),
        "tiers": serde_json::from_str::<serde_json::Value>(&winterp_core::tiers::global().to_json())
            .unwrap_or_default(),
    }))
    .unwrap_or_default()
}

/// The micro-op tier's verdicts on hot loop heads, heaviest first: `verdict` is
/// `installed`, `retired`, `claimed` or `declined:<reason>` (for a declined head the
/// reason is the first instruction form the lowering does not model, as iced names
/// it, or a structural reason), with the heads and their block entries.
fn uop_census_json(proc: &Process) -> serde_json::Value {
    proc.hot
        .uop_census()
        .iter()
        .map(|r| serde_json::json!({ "verdict": r.verdict.key(), "heads": r.heads, "entries": r.entries }))
        .collect()
}

/// `--uop-census`: the same rows as a table, with each row's share of the entries.
fn uop_census_text(proc: &Process) -> String {
    let rows = proc.hot.uop_census();
    let total: u64 = rows.iter().map(|r| r.entries).sum();
    let uop = winterp_core::tiers::global().is_on(winterp_core::tiers::Tier::Uop);
    let mut out = format!(
        "uop census ({} gate; hot loop heads by verdict, weighted by block entries):\n",
        if uop { "on" } else { "off" }
    );
    if rows.is_empty() {
        out.push_str("  no head got hot enough for a verdict (is the uop gate on?)\n");
    }
    out.push_str(&format!(
        "  {:<40} {:>7} {:>14} {:>7}\n",
        "verdict", "heads", "entries", "share"
    ));
    for r in &rows {
        out.push_str(&format!(
            "  {:<40} {:>7} {:>14} {:>6.1}%\n",
            r.verdict.key(),
            r.heads,
            r.entries,
            100.0 * r.entries as f64 / total.max(1) as f64
        ));
    }
    out
}

/// The 20 most entered blocks of the run across all threads: guest address, module and
/// offset, entries, instructions per entry and the tier that ran the block (null: the
/// plain interpreter).
fn hot_blocks_json(proc: &Process) -> serde_json::Value {
    proc.hot
        .top(20)
        .iter()
        .map(|b| {
            serde_json::json!({
                "address": b.start,
                "module": crate::gui::overlay::module_offset(proc, b.start),
                "entries": b.entries,
                "insns_per_entry": b.insns_per_entry,
                "tier": b.tier.map(|t| t.name()),
            })
        })
        .collect()
}
