//! The tier overlay (F10, or View > Tier overlay): a switch per optimisation tier on
//! the process-wide gates, live counters per tier with elements per second over the
//! last 30 s, the hottest blocks of the last second across all guest threads, and
//! guest MIPS and frames per second. The player draws it over the guest;
//! `winterp --headless --overlay-png OUT.png` renders it offscreen ([`offscreen`]).
//!
//! A switch calls [`Tiers::set`] on the gates every guest thread's executor holds, so
//! it takes effect at each thread's next block boundary; the guest sees no difference
//! (the tiers are exact, docs/tiers.md).

pub mod offscreen;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winterp_core::jit::JitSnapshot;
use winterp_core::tiers::{ALL, DECLINES, StatsSnapshot, Tier, Tiers};
use winterp_hostwin32::process::Process;

/// Seconds of history the plot shows.
pub const HISTORY_S: f64 = 30.0;
/// Rows of the hot-block table.
pub const HOT_ROWS: usize = 20;
/// The window the hot-block rates and MIPS are measured over.
pub const RATE_WINDOW: Duration = Duration::from_secs(1);

/// One row of the hot-block table.
#[derive(Clone, Debug, PartialEq)]
pub struct HotRow {
    pub address: u32,
    /// `MODULE+0xOFFSET` when the address is inside a loaded module.
    pub module: Option<String>,
    pub entries_per_s: f64,
    pub insns_per_entry: u32,
    pub tier: Option<Tier>,
}

/// What the overlay shows at one instant.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Seconds on the overlay's clock (only differences matter).
    pub t: f64,
    pub stats: [StatsSnapshot; ALL.len()],
    pub hot: Vec<HotRow>,
    pub mips: Option<f64>,
    pub fps: Option<f64>,
    /// OPENGL32's counters for the last presented frame, for a GL program.
    pub gl: Option<winterp_hostwin32::opengl32::state::Counters>,
    /// The `jit` tier's own counters (code memory, compile time, exits by reason).
    pub jit: JitSnapshot,
}

impl Sample {
    /// Reads the tier counters and, with a process, its hot blocks and instructions
    /// over the [`RATE_WINDOW`] ending at `now`.
    pub fn take(
        t: f64,
        tiers: &Tiers,
        proc: Option<&Process>,
        now: Instant,
        fps: Option<f64>,
    ) -> Sample {
        let stats = std::array::from_fn(|k| tiers.stats(ALL[k]).snapshot());
        let (hot, mips) = match proc {
            Some(p) => {
                let r = p.hot.recent(HOT_ROWS, now, RATE_WINDOW);
                // A process younger than the window has run for less.
                let secs = r.span.as_secs_f64().max(1e-3);
                let rows = r
                    .blocks
                    .iter()
                    .map(|b| HotRow {
                        address: b.start,
                        module: module_offset(p, b.start),
                        entries_per_s: b.entries as f64 / secs,
                        insns_per_entry: b.insns_per_entry,
                        tier: b.tier,
                    })
                    .collect();
                (rows, Some(r.insns as f64 / secs / 1e6))
            }
            None => (Vec::new(), None),
        };
        Sample {
            t,
            stats,
            hot,
            mips,
            fps,
            gl: proc.and_then(winterp_hostwin32::opengl32::counters),
            jit: tiers.jit.snapshot(),
        }
    }
}

/// `MODULE+0xOFFSET` for a guest address, from the process's loaded modules.
pub fn module_offset(proc: &Process, addr: u32) -> Option<String> {
    proc.locate(addr).map(|(m, off)| format!("{m}+{off:#x}"))
}

pub struct Overlay {
    pub open: bool,
    tiers: Arc<Tiers>,
    /// (t, elements per tier), oldest first, [`HISTORY_S`] long.
    history: VecDeque<(f64, [u64; ALL.len()])>,
    latest: Sample,
    /// Where each tier's switch was drawn last (tests click there).
    switch_rects: [Option<egui::Rect>; ALL.len()],
}

impl Overlay {
    /// An overlay switching `tiers` (the player passes the process-wide gates).
    pub fn new(tiers: Arc<Tiers>) -> Overlay {
        Overlay {
            open: false,
            tiers,
            history: VecDeque::new(),
            latest: Sample::default(),
            switch_rects: [None; ALL.len()],
        }
    }

    pub fn sample(&mut self, s: Sample) {
        // A clock that went back (a new session's clock) starts a new history.
        if self.history.back().is_some_and(|(t, _)| *t > s.t) {
            self.history.clear();
        }
        self.history
            .push_back((s.t, std::array::from_fn(|k| s.stats[k].elements)));
        while self
            .history
            .front()
            .is_some_and(|(t, _)| s.t - *t > HISTORY_S)
        {
            self.history.pop_front();
        }
        self.latest = s;
    }

    /// Elements per second of tier `k` between consecutive samples, at seconds
    /// relative to the newest sample (-30..0).
    fn rates(&self, k: usize) -> Vec<[f64; 2]> {
        let Some(&(now, _)) = self.history.back() else {
            return Vec::new();
        };
        self.history
            .iter()
            .zip(self.history.iter().skip(1))
            .filter(|(a, b)| b.0 > a.0)
            .map(|(a, b)| {
                let r = b.1[k].saturating_sub(a.1[k]) as f64 / (b.0 - a.0);
                [b.0 - now, r]
            })
            .collect()
    }

    /// The overlay's window, when open.
    pub fn show(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let mut open = true;
        egui::Window::new("Tiers")
            .id(egui::Id::unique("tier overlay"))
            .open(&mut open)
            .default_pos([8.0, 32.0])
            .default_width(WIDTH)
            .resizable(false)
            .show(ctx, |ui| self.contents(ui));
        if !open {
            self.open = false;
        }
    }

    fn contents(&mut self, ui: &mut egui::Ui) {
        let s = &self.latest;
        ui.horizontal(|ui| {
            ui.label("Guest");
            ui.monospace(match s.mips {
                Some(m) => format!("{m:.1} MIPS"),
                None => "- MIPS".into(),
            });
            ui.separator();
            ui.monospace(match s.fps {
                Some(f) => format!("{f:.1} fps"),
                None => "- fps".into(),
            });
        });
        if let Some(g) = s.gl {
            ui.horizontal(|ui| {
                ui.label("OpenGL per frame");
                ui.monospace(format!(
                    "{} draws  {} vertices  {} uploads ({} bytes)  {} state changes",
                    compact(g.draw_calls),
                    compact(g.vertices),
                    compact(g.texture_uploads),
                    compact(g.texture_bytes),
                    compact(g.state_changes)
                ));
            });
        }
        // Shown once the tier has been switched on or has compiled anything, so a
        // slow compile or an exit storm can be read while the program runs.
        if self.tiers.is_on(Tier::Jit) || s.jit.compiled > 0 {
            let (code, compile, exits) = jit_lines(&s.jit);
            ui.horizontal(|ui| {
                ui.label("jit");
                ui.vertical(|ui| {
                    ui.monospace(code);
                    ui.monospace(compile);
                    ui.monospace(exits);
                });
            });
        }
        ui.separator();
        egui::Grid::new("tier counters")
            .num_columns(6)
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    "tier",
                    "matches",
                    "runs",
                    "iterations",
                    "elements",
                    "declines",
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for (k, &tier) in ALL.iter().enumerate() {
                    let on = self.tiers.is_on(tier);
                    let r = if tier.available() {
                        let mut v = on;
                        let r = ui.checkbox(&mut v, tier.name());
                        if v != on
                            && let Err(e) = self.tiers.set(tier, v)
                        {
                            log::warn!("{e}");
                        }
                        r
                    } else {
                        let mut v = false;
                        ui.add_enabled(false, egui::Checkbox::new(&mut v, tier.name()))
                            .on_disabled_hover_text("not built")
                    };
                    self.switch_rects[k] = Some(r.rect);
                    if tier.available() {
                        let c = &self.latest.stats[k];
                        for v in [c.matches, c.runs, c.iterations, c.elements] {
                            ui.monospace(compact(v));
                        }
                        let why: Vec<String> = DECLINES
                            .iter()
                            .map(|d| format!("{}: {}", d.name(), c.decline(*d)))
                            .collect();
                        ui.monospace(compact(c.declines_total()))
                            .on_hover_text(why.join("\n"));
                    } else {
                        ui.weak("not built");
                        for _ in 0..4 {
                            ui.label("");
                        }
                    }
                    ui.end_row();
                }
            });
        ui.separator();
        ui.label("Elements per second, last 30 s");
        // Only tiers that did something get a line (and a legend entry); a flat line
        // per idle tier would hide the others.
        let lines: Vec<(usize, Vec<[f64; 2]>)> = (0..ALL.len())
            .filter(|&k| ALL[k].available())
            .map(|k| (k, self.rates(k)))
            .filter(|(_, pts)| pts.iter().any(|p| p[1] > 0.0))
            .collect();
        ui.horizontal_wrapped(|ui| {
            if lines.is_empty() {
                ui.weak("no tier processed elements in the last 30 s");
            }
            for (k, _) in &lines {
                let (r, _) = ui.allocate_exact_size(egui::vec2(14.0, 10.0), egui::Sense::hover());
                ui.painter().line_segment(
                    [r.left_center(), r.right_center()],
                    egui::Stroke::new(2.0, PALETTE[*k]),
                );
                ui.label(ALL[*k].name());
            }
        });
        egui_plot::Plot::new("tier elements")
            .height(PLOT_HEIGHT)
            .width(WIDTH)
            .include_x(-HISTORY_S)
            .include_x(0.0)
            .include_y(0.0)
            .include_y(1.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show(ui, |p| {
                for (k, pts) in lines {
                    p.line(
                        egui_plot::Line::new(ALL[k].name(), pts)
                            .color(PALETTE[k])
                            .width(1.5),
                    );
                }
            });
        ui.separator();
        ui.label("Hot blocks, last second (all guest threads)");
        egui::Grid::new("hot blocks")
            .num_columns(5)
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    "address",
                    "module+offset",
                    "entries/s",
                    "insns/entry",
                    "tier",
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for r in &self.latest.hot {
                    ui.monospace(format!("{:#010x}", r.address));
                    ui.monospace(r.module.as_deref().unwrap_or("?"));
                    ui.monospace(compact(r.entries_per_s.round() as u64));
                    ui.monospace(format!("{}", r.insns_per_entry));
                    ui.monospace(r.tier.map_or("plain", |t| t.name()));
                    ui.end_row();
                }
            });
        if self.latest.hot.is_empty() {
            ui.weak("nothing ran in the last second");
        }
    }
}

/// `--overlay-png`: samples the overlay as the player does, on wall-clock time, while
/// a headless run goes on.
pub struct HeadlessSampler {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<(Overlay, FpsMeter)>,
    t0: Instant,
}

impl HeadlessSampler {
    pub fn start(proc: &Arc<Process>) -> HeadlessSampler {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let t0 = Instant::now();
        let (p, halt) = (proc.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut o = Overlay::new(winterp_core::tiers::global());
            let mut fps = FpsMeter::default();
            while !halt.load(std::sync::atomic::Ordering::Relaxed) {
                let now = Instant::now();
                let f = fps.sample(&p, now);
                o.sample(Sample::take(
                    (now - t0).as_secs_f64(),
                    &winterp_core::tiers::global(),
                    Some(&p),
                    now,
                    f,
                ));
                std::thread::sleep(SAMPLE_EVERY);
            }
            (o, fps)
        });
        HeadlessSampler { stop, thread, t0 }
    }

    /// Stops sampling and takes the last sample, once the guest threads have
    /// finished (their last hot blocks are published when they end).
    pub fn finish(self, proc: &Process) -> Result<Overlay, String> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (mut o, mut fps) = self
            .thread
            .join()
            .map_err(|_| "the overlay sampler panicked".to_string())?;
        let now = Instant::now();
        let f = fps.sample(proc, now);
        o.sample(Sample::take(
            (now - self.t0).as_secs_f64(),
            &winterp_core::tiers::global(),
            Some(proc),
            now,
            f,
        ));
        Ok(o)
    }
}

const SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// Guest frames per wall-clock second over about the last second: DirectDraw presents,
/// or refresh ticks of the virtual clock in deterministic mode (OS-thread mode's ticks
/// are the host's 60 Hz, not the guest's doing, so they are not reported).
#[derive(Default)]
pub struct FpsMeter {
    seen: VecDeque<(Instant, u64)>,
}

impl FpsMeter {
    fn sample(&mut self, proc: &Process, now: Instant) -> Option<f64> {
        use winterp_hostwin32::{display, scheduler};
        let frames = match display::presents(proc) {
            0 if proc.config.deterministic => {
                scheduler::virtual_clock(proc) / display::frame_start(1).max(1)
            }
            0 => return None,
            n => n,
        };
        self.seen.push_back((now, frames));
        while self.seen.len() > 2 && now - self.seen[1].0 >= RATE_WINDOW {
            self.seen.pop_front();
        }
        let &(t, f) = self.seen.front()?;
        let dt = (now - t).as_secs_f64();
        (dt > 0.0).then(|| frames.saturating_sub(f) as f64 / dt)
    }
}

/// A line colour per tier, by its index in [`ALL`].
const PALETTE: [egui::Color32; ALL.len()] = [
    egui::Color32::from_rgb(0xe6, 0x4b, 0x3c),
    egui::Color32::from_rgb(0x4a, 0x90, 0xe2),
    egui::Color32::from_rgb(0x7e, 0xd3, 0x21),
    egui::Color32::from_rgb(0xf5, 0xa6, 0x23),
    egui::Color32::from_rgb(0xbd, 0x10, 0xe0),
    egui::Color32::from_rgb(0x50, 0xe3, 0xc2),
    egui::Color32::from_rgb(0xf8, 0xe7, 0x1c),
    egui::Color32::from_rgb(0xff, 0x7f, 0xbf),
    egui::Color32::from_rgb(0xb8, 0xe9, 0x86),
    egui::Color32::from_rgb(0x9b, 0x9b, 0xff),
    // jit
    egui::Color32::from_rgb(0xff, 0xff, 0xff),
];

/// The window's content width in points.
const WIDTH: f32 = 520.0;
const PLOT_HEIGHT: f32 = 140.0;

/// The `jit` row: code held, compile time, entries and exits by reason.
fn jit_lines(j: &JitSnapshot) -> (String, String, String) {
    let ms = |ns: u64| ns as f64 / 1e6;
    (
        format!(
            "{} regions ({} blocks, {} entry) compiled, {} declined, {} failed; code {} B live, {} B peak",
            compact(j.compiled),
            compact(j.region_blocks),
            compact(j.entry_blocks),
            compact(j.declined),
            compact(j.failed),
            compact(j.code_bytes_live),
            compact(j.code_bytes_peak)
        ),
        format!(
            "compile p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms  total {:.1} ms",
            ms(j.compile_ns_p50),
            ms(j.compile_ns_p99),
            ms(j.compile_ns_max),
            ms(j.compile_ns)
        ),
        format!(
            "{} entries, {} linked, {} insns; exits: {} block, {} fault, {} code write, {} to the interpreter",
            compact(j.entries),
            compact(j.linked),
            compact(j.insns),
            compact(j.exit_block),
            compact(j.exit_fault),
            compact(j.exit_code_write),
            compact(j.exit_resume)
        ),
    )
}

/// `1234567` -> `1.23M`: counters grow past what a column can hold.
fn compact(v: u64) -> String {
    let f = v as f64;
    match v {
        0..1_000 => format!("{v}"),
        1_000..1_000_000 => format!("{:.1}k", f / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2}M", f / 1e6),
        _ => format!("{:.2}G", f / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(events: Vec<egui::Event>) -> egui::RawInput {
        egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(800.0, 900.0),
            )),
            events,
            ..Default::default()
        }
    }

    /// Presses and releases the primary button at `p` over two passes.
    fn click(ctx: &egui::Context, o: &mut Overlay, p: egui::Pos2) {
        let press = |pressed| egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        let _ = ctx.run_pass(
            input(vec![egui::Event::PointerMoved(p), press(true)]),
            |c| o.show(c),
        );
        let _ = ctx.run_pass(input(vec![press(false)]), |c| o.show(c));
    }

    #[test]
    fn jit_lines_show_code_compile_time_and_exits() {
        let j = JitSnapshot {
            compiled: 1234,
            region_blocks: 4321,
            entry_blocks: 987,
            declined: 7,
            code_bytes_live: 2_500_000,
            code_bytes_peak: 3_000_000,
            compile_ns_p50: 520_000,
            compile_ns_p99: 7_300_000,
            compile_ns_max: 9_000_000,
            compile_ns: 640_000_000,
            entries: 42,
            linked: 5_000_000,
            insns: 90_000_000,
            exit_block: 40,
            exit_fault: 1,
            exit_code_write: 1,
            exit_resume: 3,
            ..Default::default()
        };
        let (code, compile, exits) = jit_lines(&j);
        assert_eq!(
            code,
            "1.2k regions (4.3k blocks, 987 entry) compiled, 7 declined, 0 failed; code 2.50M B live, 3.00M B peak"
        );
        assert_eq!(
            compile,
            "compile p50 0.52 ms  p99 7.30 ms  max 9.00 ms  total 640.0 ms"
        );
        assert_eq!(
            exits,
            "42 entries, 5.00M linked, 90.00M insns; exits: 40 block, 1 fault, 1 code write, 3 to the interpreter"
        );
    }

    #[test]
    fn a_switch_flips_its_gate_and_unbuilt_tiers_stay_off() {
        let tiers = Arc::new(Tiers::new());
        let mut o = Overlay::new(tiers.clone());
        o.open = true;
        let ctx = egui::Context::default();
        ctx.all_styles_mut(|s| s.animation_time = 0.0);
        for _ in 0..3 {
            let _ = ctx.run_pass(input(Vec::new()), |c| o.show(c));
        }
        assert!(tiers.is_on(Tier::Lut), "lut defaults on");
        let e = tiers.epoch();
        let at = o.switch_rects[Tier::Lut as usize].expect("lut's switch drawn");
        click(&ctx, &mut o, at.left_center() + egui::vec2(6.0, 0.0));
        assert!(!tiers.is_on(Tier::Lut), "the click switched lut off");
        assert_eq!(tiers.epoch(), e + 1, "executors see the switch");
        assert!(tiers.is_on(Tier::Copy), "other gates unchanged");
        click(&ctx, &mut o, at.left_center() + egui::vec2(6.0, 0.0));
        assert!(tiers.is_on(Tier::Lut), "and back on");
        let unbuilt = ALL.iter().find(|t| !t.available()).copied();
        if let Some(t) = unbuilt {
            let at = o.switch_rects[t as usize].expect("unbuilt tiers are listed");
            let e = tiers.epoch();
            click(&ctx, &mut o, at.left_center() + egui::vec2(6.0, 0.0));
            assert!(!tiers.is_on(t));
            assert_eq!(tiers.epoch(), e);
        }
    }

    #[test]
    fn rates_are_per_second_between_samples_over_thirty_seconds() {
        let mut o = Overlay::new(Arc::new(Tiers::new()));
        let mut s = Sample::default();
        for k in 0..=40u64 {
            s.t = k as f64;
            s.stats[Tier::Fill as usize].elements = k * k * 10;
            o.sample(s.clone());
        }
        let r = o.rates(Tier::Fill as usize);
        // Samples 10..=40 are kept (30 s); the last rate is (1600 - 1521) * 10 / 1 s.
        assert_eq!(r.len(), 30);
        assert_eq!(r.last(), Some(&[0.0, 790.0]));
        assert_eq!(r.first(), Some(&[-29.0, 210.0]));
        assert!(o.rates(Tier::Lut as usize).iter().all(|p| p[1] == 0.0));
    }

    #[test]
    fn counters_are_compact() {
        assert_eq!(compact(999), "999");
        assert_eq!(compact(12_345), "12.3k");
        assert_eq!(compact(7_654_321), "7.65M");
        assert_eq!(compact(3_000_000_000), "3.00G");
    }
}
