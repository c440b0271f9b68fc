//! What egui draws over and around the guest: the menu bar, the welcome and
//! "no window yet" screens, program settings, problem reports, toasts
//! and the debug overlay. Drawing only records [`Action`]s; the app carries them out
//! after the pass.

use crate::settings::{ProgramSettings, Scale, WinVer};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub enum Action {
    Open,
    OpenRecent(PathBuf),
    CloseProgram,
    Restart,
    Quit,
    TogglePause,
    Screenshot,
    ToggleFullscreen,
    SetScale(Scale),
    SaveProgramSettings(ProgramSettings),
}

/// A problem shown in its own window until dismissed.
pub struct Problem {
    pub title: String,
    pub text: String,
    id: u64,
}

pub struct Toast {
    pub text: String,
    pub until: Instant,
}

/// The debug overlay's numbers, measured by the app.
#[derive(Default, Clone)]
pub struct Stats {
    pub ui_fps: f64,
    pub guest_fps: f64,
    pub api_calls_per_s: Option<f64>,
    /// Deterministic mode: the virtual clock's advance per second.
    pub virtual_insns_per_s: Option<f64>,
    pub threads: Option<usize>,
    pub finished_thread_insns: Option<u64>,
    pub display_mode: Option<String>,
    pub frame_size: Option<(u32, u32)>,
    pub scale_text: Option<String>,
    /// The sound output (device, counters).
    pub audio: Option<String>,
}

/// What the UI shows about the current program.
pub struct ProgramView<'a> {
    pub name: String,
    pub loading: bool,
    pub ended: Option<String>,
    pub has_frame: bool,
    pub paused: bool,
    pub deterministic: bool,
    pub settings: &'a ProgramSettings,
    pub console: String,
}

pub struct Ui {
    pub show_debug: bool,
    pub show_program_settings: bool,
    pub fullscreen: bool,
    /// Edited copy of the program's settings in the settings window.
    pub editing: Option<ProgramSettings>,
    pub problems: Vec<Problem>,
    next_problem: u64,
    pub toasts: Vec<Toast>,
    pub recent: Vec<PathBuf>,
    pub adapter: String,
    pub stats: Stats,
    pub picker_open: bool,
    /// The tier overlay (F10) on the process-wide gates.
    pub overlay: super::overlay::Overlay,
}

impl Ui {
    pub fn new(show_debug: bool) -> Ui {
        Ui {
            show_debug,
            show_program_settings: false,
            fullscreen: false,
            editing: None,
            problems: Vec::new(),
            next_problem: 0,
            toasts: Vec::new(),
            recent: Vec::new(),
            adapter: String::new(),
            stats: Stats::default(),
            picker_open: false,
            overlay: super::overlay::Overlay::new(winterp_core::tiers::global()),
        }
    }

    pub fn problem(&mut self, title: impl Into<String>, text: impl Into<String>) {
        let text = text.into();
        log::error!("{text}");
        self.next_problem += 1;
        self.problems.push(Problem {
            title: title.into(),
            text,
            id: self.next_problem,
        });
    }

    pub fn toast(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            text: text.into(),
            until: Instant::now() + Duration::from_secs(4),
        });
    }

    /// Draws everything; returns the actions the user took and the height of the
    /// menu bar in points (the guest is drawn below it).
    pub fn draw(
        &mut self,
        ctx: &egui::Context,
        program: Option<&ProgramView>,
    ) -> (Vec<Action>, f32) {
        let mut actions = Vec::new();
        let mut menu_height = 0.0;
        ctx.root_ui(|ui| {
            if !self.fullscreen {
                let r = egui::Panel::top("menu").show(ui, |ui| {
                    self.menu_bar(ui, program, &mut actions);
                });
                menu_height = r.response.rect.height();
            }
            egui::CentralPanel::no_frame().show(ui, |ui| {
                self.central(ui, program, &mut actions);
            });
        });
        self.program_settings_window(ctx, program, &mut actions);
        self.problem_windows(ctx);
        if self.show_debug {
            self.debug_window(ctx, program, &mut actions);
        }
        self.overlay.show(ctx);
        self.toasts_area(ctx);
        (actions, menu_height)
    }

    fn menu_bar(
        &mut self,
        ui: &mut egui::Ui,
        program: Option<&ProgramView>,
        actions: &mut Vec<Action>,
    ) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui
                    .add_enabled(!self.picker_open, egui::Button::new("Open…"))
                    .clicked()
                {
                    actions.push(Action::Open);
                }
                ui.menu_button("Recent", |ui| {
                    if self.recent.is_empty() {
                        ui.label("(none yet)");
                    }
                    for p in &self.recent {
                        if ui.button(p.display().to_string()).clicked() {
                            actions.push(Action::OpenRecent(p.clone()));
                        }
                    }
                });
                ui.separator();
                if ui
                    .add_enabled(program.is_some(), egui::Button::new("Close program"))
                    .clicked()
                {
                    actions.push(Action::CloseProgram);
                }
                if ui.button("Quit").clicked() {
                    actions.push(Action::Quit);
                }
            });
            ui.menu_button("Program", |ui| {
                let running = program.is_some_and(|p| p.ended.is_none() && !p.loading);
                let paused = program.is_some_and(|p| p.paused);
                let label = if paused {
                    "Resume (Pause)"
                } else {
                    "Pause (Pause)"
                };
                if ui.add_enabled(running, egui::Button::new(label)).clicked() {
                    actions.push(Action::TogglePause);
                }
                let has_frame = program.is_some_and(|p| p.has_frame);
                if ui
                    .add_enabled(has_frame, egui::Button::new("Screenshot (F12)"))
                    .clicked()
                {
                    actions.push(Action::Screenshot);
                }
                if ui
                    .add_enabled(program.is_some(), egui::Button::new("Restart"))
                    .clicked()
                {
                    actions.push(Action::Restart);
                }
                if ui
                    .add_enabled(program.is_some(), egui::Button::new("Settings…"))
                    .clicked()
                {
                    self.show_program_settings = true;
                    self.editing = program.map(|p| p.settings.clone());
                }
            });
            ui.menu_button("View", |ui| {
                let scale = program.map(|p| p.settings.scale);
                for (s, label) in [
                    (Scale::Integer, "Integer scaling"),
                    (Scale::Aspect, "Fit, keep aspect"),
                ] {
                    if ui
                        .add_enabled(
                            program.is_some(),
                            egui::RadioButton::new(scale == Some(s), label),
                        )
                        .clicked()
                    {
                        actions.push(Action::SetScale(s));
                    }
                }
                ui.separator();
                if ui.button("Fullscreen (Alt+Enter)").clicked() {
                    actions.push(Action::ToggleFullscreen);
                }
                ui.checkbox(&mut self.show_debug, "Debug overlay (F1)");
                ui.checkbox(&mut self.overlay.open, "Tier overlay (F10)");
            });
        });
    }

    fn central(
        &mut self,
        ui: &mut egui::Ui,
        program: Option<&ProgramView>,
        actions: &mut Vec<Action>,
    ) {
        let Some(p) = program else {
            self.welcome(ui, actions);
            return;
        };
        if p.has_frame && p.ended.is_none() {
            if p.paused {
                // On a panel of its own: the guest's picture may be any colour.
                egui::Area::new(egui::Id::unique("paused banner"))
                    .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
                    .interactable(false)
                    .show(ui.ctx(), |ui| {
                        egui::Frame::popup(ui.style()).show(ui, |ui| {
                            ui.label(
                                egui::RichText::new("Paused — press Pause to resume")
                                    .size(22.0)
                                    .strong(),
                            );
                        });
                    });
            }
            return;
        }
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() / 3.0);
            ui.heading(&p.name);
            if p.loading {
                ui.label("Loading…");
            } else if let Some(e) = &p.ended {
                ui.label(e);
                ui.add_space(8.0);
                if ui.button("Run again").clicked() {
                    actions.push(Action::Restart);
                }
                if ui.button("Open another program…").clicked() {
                    actions.push(Action::Open);
                }
            } else if p.paused {
                ui.label("Paused — press Pause to resume");
            } else {
                ui.label("Running, no window yet.");
                ui.weak("The program has not shown a window (yet).");
            }
            if !p.console.is_empty() {
                ui.add_space(12.0);
                ui.label("Program output:");
                egui::ScrollArea::vertical()
                    .max_height(160.0)
                    .stick_to_bottom(true)
                    .show(ui, |ui| {
                        ui.monospace(&p.console);
                    });
            }
        });
    }

    fn welcome(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() / 4.0);
            ui.heading(egui::RichText::new("winterp").size(32.0));
            ui.label("Plays 32-bit Windows games.");
            ui.add_space(16.0);
            if ui
                .add_enabled(!self.picker_open, egui::Button::new("Open a program…"))
                .clicked()
            {
                actions.push(Action::Open);
            }
            ui.add_space(4.0);
            ui.weak("or drop a Windows .exe on this window (File > Open works too)");
            if !self.recent.is_empty() {
                ui.add_space(16.0);
                ui.label("Recent:");
                for p in &self.recent {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    if ui
                        .button(&name)
                        .on_hover_text(p.display().to_string())
                        .clicked()
                    {
                        actions.push(Action::OpenRecent(p.clone()));
                    }
                }
            }
        });
    }

    fn program_settings_window(
        &mut self,
        ctx: &egui::Context,
        program: Option<&ProgramView>,
        actions: &mut Vec<Action>,
    ) {
        if !self.show_program_settings {
            return;
        }
        let Some(p) = program else {
            self.show_program_settings = false;
            return;
        };
        let Some(edit) = self.editing.as_mut() else {
            self.show_program_settings = false;
            return;
        };
        let mut open = true;
        let mut close = false;
        egui::Window::new(format!("Settings for {}", p.name))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.label("Scaling");
                ui.radio_value(
                    &mut edit.scale,
                    Scale::Integer,
                    "Integer (crisp, whole multiples)",
                );
                ui.radio_value(
                    &mut edit.scale,
                    Scale::Aspect,
                    "Fit the window, keep aspect",
                );
                ui.separator();
                egui::ComboBox::from_label("Windows version reported")
                    .selected_text(edit.winver.label())
                    .show_ui(ui, |ui| {
                        for v in WinVer::ALL {
                            ui.selectable_value(&mut edit.winver, v, v.label());
                        }
                    });
                ui.checkbox(
                    &mut edit.deterministic,
                    "Deterministic (one host thread, virtual clocks)",
                );
                ui.weak(
                    "The Windows version and deterministic mode apply when the program restarts.",
                );
                ui.separator();
                pad_keys_editor(ui, &mut edit.pad_keys);
                ui.horizontal(|ui| {
                    if ui.button("Save").clicked() {
                        actions.push(Action::SaveProgramSettings(edit.clone()));
                        close = true;
                    }
                    if ui.button("Save and restart").clicked() {
                        actions.push(Action::SaveProgramSettings(edit.clone()));
                        actions.push(Action::Restart);
                        close = true;
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
            });
        if !open || close {
            self.show_program_settings = false;
            self.editing = None;
        }
    }

    fn problem_windows(&mut self, ctx: &egui::Context) {
        let mut dismissed = Vec::new();
        for (i, p) in self.problems.iter().enumerate() {
            let mut open = true;
            egui::Window::new(&p.title)
                .id(egui::Id::unique(("problem", p.id)))
                .open(&mut open)
                .default_width(560.0)
                .default_pos([40.0 + 20.0 * i as f32, 60.0 + 20.0 * i as f32])
                .show(ctx, |ui| {
                    egui::ScrollArea::vertical()
                        .max_height(320.0)
                        .show(ui, |ui| {
                            ui.add(
                                egui::Label::new(egui::RichText::new(&p.text).monospace()).wrap(),
                            );
                        });
                    ui.horizontal(|ui| {
                        if ui.button("Copy").clicked() {
                            ui.ctx().copy_text(p.text.clone());
                        }
                        if ui.button("Dismiss").clicked() {
                            dismissed.push(i);
                        }
                    });
                });
            if !open {
                dismissed.push(i);
            }
        }
        for i in dismissed.into_iter().rev() {
            self.problems.remove(i);
        }
    }

    fn debug_window(
        &mut self,
        ctx: &egui::Context,
        program: Option<&ProgramView>,
        actions: &mut Vec<Action>,
    ) {
        let mut open = true;
        let s = &self.stats;
        egui::Window::new("Debug")
            .open(&mut open)
            .anchor(egui::Align2::RIGHT_TOP, [-8.0, 32.0])
            .resizable(false)
            .show(ctx, |ui| {
                egui::Grid::new("debug grid").num_columns(2).show(ui, |ui| {
                    ui.label("Window FPS");
                    ui.monospace(format!("{:.1}", s.ui_fps));
                    ui.end_row();
                    if let Some(p) = program {
                        ui.label("Guest frames/s");
                        ui.monospace(format!("{:.1}", s.guest_fps));
                        ui.end_row();
                        ui.label("Guest instructions/s");
                        match s.virtual_insns_per_s {
                            Some(v) => ui
                                .monospace(format!("{:.1} M (virtual clock, incl. idle)", v / 1e6)),
                            None => ui.weak("not readable while running (per-thread counters)"),
                        };
                        ui.end_row();
                        if let Some(n) = s.finished_thread_insns {
                            ui.label("Instructions, ended threads");
                            ui.monospace(format!("{n}"));
                            ui.end_row();
                        }
                        if let Some(a) = s.api_calls_per_s {
                            ui.label("API calls/s");
                            ui.monospace(format!("{a:.0}"));
                            ui.end_row();
                        }
                        if let Some(t) = s.threads {
                            ui.label("Guest threads");
                            ui.monospace(format!("{t}"));
                            ui.end_row();
                        }
                        ui.label("Mode");
                        ui.monospace(if p.deterministic {
                            "deterministic"
                        } else {
                            "OS threads"
                        });
                        ui.end_row();
                        if let Some(m) = &s.display_mode {
                            ui.label("Display mode");
                            ui.monospace(m);
                            ui.end_row();
                        }
                        if let Some((w, h)) = s.frame_size {
                            ui.label("Guest frame");
                            ui.monospace(format!("{w}x{h}"));
                            ui.end_row();
                        }
                        if let Some(t) = &s.scale_text {
                            ui.label("Scale");
                            ui.monospace(t);
                            ui.end_row();
                        }
                        if let Some(a) = &s.audio {
                            ui.label("Audio");
                            ui.monospace(a);
                            ui.end_row();
                        }
                    }
                });
                ui.separator();
                ui.label("Build");
                ui.monospace(format!(
                    "winterp {} ({}, {}-{})",
                    env!("CARGO_PKG_VERSION"),
                    if cfg!(debug_assertions) {
                        "debug"
                    } else {
                        "release"
                    },
                    std::env::consts::ARCH,
                    std::env::consts::OS
                ));
                ui.monospace(format!("graphics: {}", self.adapter));
                if program.is_some() && ui.button("Take screenshot (F12)").clicked() {
                    actions.push(Action::Screenshot);
                }
            });
        if !open {
            self.show_debug = false;
        }
    }

    fn toasts_area(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        self.toasts.retain(|t| t.until > now);
        if self.toasts.is_empty() {
            return;
        }
        egui::Area::new(egui::Id::unique("toasts"))
            .anchor(egui::Align2::LEFT_BOTTOM, [12.0, -12.0])
            .interactable(false)
            .show(ctx, |ui| {
                for t in &self.toasts {
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.label(&t.text);
                    });
                }
            });
    }
}

/// The pad-to-key mapping: on/off, arrows, and a key name per pad button (empty for
/// none; names the player does not know are shown as such and press nothing).
fn pad_keys_editor(ui: &mut egui::Ui, m: &mut crate::settings::PadKeys) {
    ui.checkbox(
        &mut m.enabled,
        "Game pad also presses keys (for games that read only the keyboard)",
    );
    ui.add_enabled_ui(m.enabled, |ui| {
        ui.checkbox(&mut m.arrows, "D-pad and left stick: arrow keys");
        egui::Grid::new("pad_keys").num_columns(3).show(ui, |ui| {
            for b in super::pads::BUTTON_NAMES {
                ui.label(b);
                let mut text = m.buttons.get(b).cloned().unwrap_or_default();
                let edit = egui::TextEdit::singleline(&mut text)
                    .desired_width(90.0)
                    .hint_text("no key");
                if ui.add(edit).changed() {
                    let t = text.trim().to_ascii_uppercase();
                    if t.is_empty() {
                        m.buttons.remove(b);
                    } else {
                        m.buttons.insert(b.to_string(), t);
                    }
                }
                match m.buttons.get(b) {
                    Some(k) if winterp_hostwin32::keys::vk_from_name(k).is_none() => {
                        ui.colored_label(egui::Color32::RED, "unknown key");
                    }
                    _ => {
                        ui.label("");
                    }
                }
                ui.end_row();
            }
        });
        ui.weak("Key names as in input scripts: SPACE, RETURN, CONTROL, SHIFT, A, F1, ...");
    });
}
