//! The desktop player: one window showing the guest's frame (scaled, letterboxed),
//! the guest's input from the host's keyboard and mouse, and an egui layer for menus,
//! dialogs and the debug overlay.
//!
//! The UI thread (winit's event loop) never waits for the guest: programs run on their
//! own host threads ([`session`]), and everything the UI needs from them (frames,
//! message boxes, how the run ended) is picked up without blocking in
//! `about_to_wait`.

mod keymap;
pub mod overlay;
mod pads;
mod render;
mod screenshot;
mod session;
mod ui;

use crate::settings::{ProgramSettings, Settings, WinVer};
use session::{Ending, Launch, Session, Waker};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, ModifiersState, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};
use winterp_hostwin32::display::{InputEvent, MouseButton};
use winterp_video::scale::{self, Rect, Viewport};

/// The command line's options for the player.
pub struct GuiArgs {
    pub program: Option<PathBuf>,
    pub args: Vec<String>,
    /// `--deterministic` forces deterministic mode for this run.
    pub deterministic: bool,
    /// `--winver` when given explicitly (overrides the program's setting).
    pub winver: Option<WinVer>,
    pub trace_api: bool,
    pub stub_unimplemented: bool,
    pub max_instructions: Option<u64>,
    /// Another winterp's CreateProcess started this one (`--child-spec`).
    pub child: Option<crate::child::ChildLaunch>,
}

/// How long a program may take to end after WM_CLOSE before it is ended.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How often the tier overlay samples its counters.
const OVERLAY_SAMPLE: Duration = Duration::from_millis(250);
/// How long to wait for the guest's threads after ending it.
const END_GRACE: Duration = Duration::from_secs(2);

/// Runs the player until its window closes; returns winterp's exit code.
pub fn run(args: GuiArgs) -> anyhow::Result<i32> {
    let event_loop = EventLoop::<()>::with_user_event().build().map_err(|e| {
        anyhow::anyhow!("cannot open a window ({e}); use --headless to run without one")
    })?;
    let proxy = Mutex::new(event_loop.create_proxy());
    let waker: Waker = Arc::new(move || {
        let _ = proxy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send_event(());
    });
    let mut app = App::new(args, waker);
    event_loop.run_app(&mut app)?;
    if let Some(e) = app.fatal.take() {
        anyhow::bail!(e);
    }
    Ok(app.exit_code)
}

/// What to do once the current program has ended.
enum After {
    Quit,
    Start(PathBuf),
    Nothing,
}

struct Closing {
    after: After,
    /// WM_CLOSE was sent at this time; `ended_at` once the program was ended.
    asked_at: Instant,
    ended_at: Option<Instant>,
}

struct App {
    args: GuiArgs,
    waker: Waker,
    gfx: Option<render::Gfx>,
    /// A failure that stops the player before it can show anything.
    fatal: Option<String>,
    exit_code: i32,
    /// Leave the event loop at the next opportunity.
    want_exit: bool,
    settings: Settings,
    saver: Option<Sender<String>>,
    session: Option<Session>,
    /// The settings of the current program.
    program_settings: ProgramSettings,
    /// Started from the command line (or a double-click): the player closes when the
    /// program exits, like the program's own window would.
    quit_with_program: bool,
    closing: Option<Closing>,
    /// An Ending already reported to the user (so it is reported once).
    reported: bool,
    ui: ui::Ui,
    /// File dialog results, with how long the dialog was up.
    picker: (
        Sender<(Option<PathBuf>, Duration)>,
        Receiver<(Option<PathBuf>, Duration)>,
    ),
    shots: (
        Sender<Result<PathBuf, String>>,
        Receiver<Result<PathBuf, String>>,
    ),
    cursor: Option<(f64, f64)>,
    viewport: Option<Viewport>,
    held_keys: HashSet<KeyCode>,
    /// MouseButton is not Hash; there are three of them.
    held_buttons: Vec<MouseButton>,
    modifiers: ModifiersState,
    /// Pixel-delta wheel movement not yet worth a notch.
    wheel_rest: f64,
    title: String,
    /// Redraw bookkeeping: guest frames drawn, egui asked for a frame, last redraw.
    drawn_frames: u64,
    dirty: bool,
    last_redraw: Instant,
    gilrs: Option<gilrs::Gilrs>,
    pads: pads::Pads,
    meter: Meter,
    /// The tier overlay's clock and its last sample.
    overlay_clock: (Instant, Option<Instant>),
}

impl App {
    fn new(args: GuiArgs, waker: Waker) -> App {
        let mut ui = ui::Ui::new(false);
        let settings_path = Settings::path();
        let settings = match &settings_path {
            Some(p) => Settings::load(p).unwrap_or_else(|e| {
                ui.problem("Settings", format!("{e}\nStarting with default settings."));
                Settings::default()
            }),
            None => Settings::default(),
        };
        ui.show_debug = settings.show_debug;
        ui.recent = settings.recent.clone();
        let saver = settings_path.clone().map(|path| {
            let (tx, rx) = channel::<String>();
            // Writes happen off the UI thread; only the newest queued text is written.
            let _ = std::thread::Builder::new()
                .name("winterp-settings".into())
                .spawn(move || {
                    while let Ok(mut text) = rx.recv() {
                        while let Ok(newer) = rx.try_recv() {
                            text = newer;
                        }
                        if let Err(e) = Settings::write(&path, &text) {
                            log::error!("{e}");
                        }
                    }
                });
            tx
        });
        let program = args.program.clone();
        let mut app = App {
            args,
            waker,
            gfx: None,
            fatal: None,
            exit_code: 0,
            want_exit: false,
            settings,
            saver,
            session: None,
            program_settings: ProgramSettings::default(),
            quit_with_program: program.is_some(),
            closing: None,
            reported: false,
            ui,
            picker: channel(),
            shots: channel(),
            cursor: None,
            viewport: None,
            held_keys: HashSet::new(),
            held_buttons: Vec::new(),
            modifiers: ModifiersState::empty(),
            wheel_rest: 0.0,
            title: String::new(),
            drawn_frames: 0,
            dirty: true,
            last_redraw: Instant::now(),
            gilrs: init_gamepads(),
            pads: pads::Pads::default(),
            meter: Meter::new(),
            overlay_clock: (Instant::now(), None),
        };
        if let Some(p) = program {
            app.start_program(&p);
        }
        app
    }

    fn save_settings(&mut self) {
        self.settings.show_debug = self.ui.show_debug;
        self.ui.recent = self.settings.recent.clone();
        if let Some(tx) = &self.saver {
            let _ = tx.send(self.settings.to_toml());
        }
    }

    /// Starts `program` now (the caller made sure no other program runs).
    fn start_program(&mut self, program: &Path) {
        let program = program
            .canonicalize()
            .unwrap_or_else(|_| program.to_path_buf());
        let mut ps = self.settings.program(&program);
        // Command-line options win for this run (they are not saved).
        let cli_program = self
            .args
            .program
            .as_ref()
            .and_then(|p| p.canonicalize().ok());
        let from_cli = cli_program.as_deref() == Some(program.as_path());
        if from_cli {
            ps.deterministic |= self.args.deterministic;
            if let Some(v) = self.args.winver {
                ps.winver = v;
            }
        }
        let launch = Launch {
            program: program.clone(),
            args: if from_cli {
                self.args.args.clone()
            } else {
                Vec::new()
            },
            deterministic: ps.deterministic,
            winver: ps.winver.into(),
            trace_api: self.args.trace_api,
            stub_unimplemented: self.args.stub_unimplemented,
            max_instructions: self.args.max_instructions,
            child: if from_cli {
                self.args.child.clone()
            } else {
                None
            },
        };
        self.program_settings = ps;
        self.settings.note_recent(&program);
        self.save_settings();
        self.reported = false;
        // winterp's exit code is about the last program run.
        self.exit_code = 0;
        self.viewport = None;
        self.pads.new_session();
        self.session = Some(Session::start(launch, self.waker.clone()));
    }

    fn program_name(&self) -> Option<String> {
        self.session.as_ref().map(|s| {
            s.launch
                .program
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
    }

    /// Asks the running program to close (WM_CLOSE), then does `after` once it has
    /// ended (or was ended after [`CLOSE_GRACE`]).
    fn close_program(&mut self, after: After) {
        if let Some(c) = self.closing.as_mut() {
            // Already closing: the newest wish wins (Quit stays Quit).
            if !matches!(c.after, After::Quit) {
                c.after = after;
            }
            return;
        }
        let Some(s) = &self.session else {
            self.finish(after);
            return;
        };
        if s.ending().is_some() {
            self.session = None;
            self.finish(after);
            return;
        }
        s.set_paused(false);
        self.release_all_input();
        if let Some(s) = &self.session {
            s.send(InputEvent::Close);
        }
        self.closing = Some(Closing {
            after,
            asked_at: Instant::now(),
            ended_at: None,
        });
    }

    fn finish(&mut self, after: After) {
        match after {
            After::Quit => self.want_exit = true,
            After::Start(p) => {
                self.quit_with_program = false;
                self.start_program(&p);
            }
            After::Nothing => {}
        }
    }

    /// Checks on a closing program without waiting.
    fn poll_closing(&mut self) {
        let Some(c) = self.closing.as_mut() else {
            return;
        };
        let ended = self.session.as_ref().is_none_or(|s| s.ending().is_some());
        let now = Instant::now();
        if c.ended_at.is_none()
            && self
                .session
                .as_ref()
                .and_then(|s| s.proc())
                .is_some_and(|p| winterp_hostwin32::user32::msgbox::showing(p))
        {
            // The program asks something while closing ("Save changes?"): the user
            // gets the grace time after answering.
            c.asked_at = now;
        }
        let give_up = match c.ended_at {
            None if !ended && now - c.asked_at >= CLOSE_GRACE => {
                if let Some(s) = &self.session {
                    log::info!("the program did not close within {CLOSE_GRACE:?}; ending it");
                    s.end_now();
                }
                c.ended_at = Some(now);
                false
            }
            Some(t) => now - t >= END_GRACE,
            None => false,
        };
        if ended || give_up {
            if give_up {
                log::warn!("the program's threads did not stop; leaving them behind");
            }
            let c = self
                .closing
                .take()
                .map(|c| c.after)
                .unwrap_or(After::Nothing);
            self.session = None;
            self.finish(c);
        }
    }

    /// Reports how the program ended (once), and closes the player when the
    /// program was its reason to exist.
    fn poll_ending(&mut self) {
        if self.closing.is_some() || self.reported {
            return;
        }
        let Some(s) = &self.session else { return };
        let Some(ending) = s.ending() else { return };
        self.reported = true;
        let name = self.program_name().unwrap_or_default();
        self.release_all_input();
        match ending {
            Ending::Exited(code) => {
                if self.quit_with_program {
                    self.exit_code = code as i32;
                    self.want_exit = true;
                } else {
                    self.ui.toast(format!("{name} exited with code {code}"));
                }
            }
            Ending::Crashed(report) => {
                self.exit_code = 255;
                self.ui.problem(format!("{name} stopped"), report);
            }
            Ending::InstructionLimit => {
                self.exit_code = 124;
                self.ui.problem(
                    format!("{name} stopped"),
                    "The program reached the instruction limit (--max-instructions).",
                );
            }
            Ending::LoadFailed(e) => {
                self.exit_code = 1;
                self.ui.problem(format!("Cannot run {name}"), e);
            }
        }
    }

    fn ending_text(&self) -> Option<String> {
        let s = self.session.as_ref()?;
        Some(match s.ending()? {
            Ending::Exited(c) => format!("The program exited (code {c})."),
            Ending::Crashed(_) => "The program stopped with an error (see the report).".into(),
            Ending::InstructionLimit => "The program reached the instruction limit.".into(),
            Ending::LoadFailed(_) => "The program could not be started (see the report).".into(),
        })
    }

    fn open_dialog(&mut self) {
        if self.ui.picker_open {
            return; // one file dialog at a time
        }
        self.ui.picker_open = true;
        let mut dialog = rfd::AsyncFileDialog::new()
            .set_title("Open a Windows program")
            .add_filter("Windows programs", &["exe", "EXE"])
            .add_filter("All files", &["*"]);
        if let Some(g) = &self.gfx {
            dialog = dialog.set_parent(&*g.window);
        }
        if let Some(dir) = self.settings.recent.first().and_then(|p| p.parent()) {
            dialog = dialog.set_directory(dir);
        }
        let future = dialog.pick_file();
        let tx = self.picker.0.clone();
        let wake = self.waker.clone();
        let spawned = std::thread::Builder::new()
            .name("winterp-file-dialog".into())
            .spawn(move || {
                let shown = Instant::now();
                let picked = pollster::block_on(future).map(|h| h.path().to_path_buf());
                let _ = tx.send((picked, shown.elapsed()));
                wake();
            });
        if let Err(e) = spawned {
            self.ui.picker_open = false;
            self.ui
                .problem("Open", format!("cannot show the file dialog: {e}"));
        }
    }

    /// A program chosen by the user (dialog, drop, recent list).
    fn open_program(&mut self, path: PathBuf) {
        if !path.is_file() {
            self.ui
                .problem("Open", format!("{} is not a file.", path.display()));
            return;
        }
        self.close_program(After::Start(path));
    }

    fn screenshot(&mut self) {
        let Some(frame) = self.session.as_ref().and_then(|s| s.frame()) else {
            self.ui.toast("No picture to save yet.");
            return;
        };
        let Some(dir) = screenshot::dir() else {
            self.ui
                .problem("Screenshot", "This system has no pictures or data folder.");
            return;
        };
        let name = self
            .session
            .as_ref()
            .and_then(|s| {
                s.launch
                    .program
                    .file_stem()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "winterp".into());
        let tx = self.shots.0.clone();
        let wake = self.waker.clone();
        // PNG encoding and file IO happen off the UI thread.
        std::thread::spawn(move || {
            let _ = tx.send(screenshot::save(
                &dir,
                &name,
                &frame,
                std::time::SystemTime::now(),
            ));
            wake();
        });
    }

    fn toggle_pause(&mut self) {
        if let Some(s) = &self.session
            && s.ending().is_none()
            && self.closing.is_none()
        {
            let paused = !s.is_paused();
            if paused {
                // Nothing stays held down in the guest while it sleeps.
                self.release_all_input();
            }
            if let Some(s) = &self.session {
                s.set_paused(paused);
            }
        }
    }

    fn toggle_fullscreen(&mut self) {
        let Some(g) = &self.gfx else { return };
        let full = g.window.fullscreen().is_none();
        g.window
            .set_fullscreen(full.then_some(Fullscreen::Borderless(None)));
        self.ui.fullscreen = full;
    }

    fn do_actions(&mut self, actions: Vec<ui::Action>) {
        use ui::Action::*;
        for a in actions {
            match a {
                Open => self.open_dialog(),
                OpenRecent(p) => self.open_program(p),
                CloseProgram => {
                    self.quit_with_program = false;
                    self.close_program(After::Nothing);
                }
                Restart => {
                    if let Some(p) = self.session.as_ref().map(|s| s.launch.program.clone()) {
                        self.close_program(After::Start(p));
                    }
                }
                Quit => self.close_program(After::Quit),
                TogglePause => self.toggle_pause(),
                Screenshot => self.screenshot(),
                ToggleFullscreen => self.toggle_fullscreen(),
                SetScale(s) => {
                    self.program_settings.scale = s;
                    self.store_program_settings(None);
                }
                SaveProgramSettings(ps) => self.store_program_settings(Some(ps)),
            }
        }
    }

    /// Saves the current program's settings (`ps`, or the live ones). Settings that
    /// need a restart are saved as chosen, not as this run's command line forced them.
    fn store_program_settings(&mut self, ps: Option<ProgramSettings>) {
        let Some(program) = self.session.as_ref().map(|s| s.launch.program.clone()) else {
            return;
        };
        let mut saved = self.settings.program(&program);
        match ps {
            Some(ps) => {
                self.program_settings.scale = ps.scale;
                // The pad mapping applies at once, like the scaling.
                self.program_settings.pad_keys = ps.pad_keys.clone();
                saved = ps;
            }
            None => saved.scale = self.program_settings.scale,
        }
        self.settings.set_program(&program, saved);
        self.save_settings();
    }

    // ---- input ------------------------------------------------------------------------

    fn guest_accepts_input(&self) -> bool {
        self.closing.is_none()
            && self
                .session
                .as_ref()
                .is_some_and(|s| s.ending().is_none() && !s.is_paused())
    }

    fn send(&self, ev: InputEvent) {
        log::debug!("input to the guest: {ev:?}");
        if let Some(s) = &self.session {
            s.send(ev);
        }
    }

    /// Lets go of every key and button the guest saw go down (focus loss, pause,
    /// program switch), so none stays stuck.
    fn release_all_input(&mut self) {
        let keys: Vec<KeyCode> = self.held_keys.drain().collect();
        for code in keys {
            if let Some(k) = keymap::win_key(code) {
                self.send(InputEvent::Key {
                    vk: k.vk,
                    scancode: k.scancode,
                    extended: k.extended,
                    down: false,
                });
            }
        }
        for ev in self.pads.release_keys() {
            self.send(ev);
        }
        let (x, y) = self.guest_pointer_clamped().unwrap_or((0, 0));
        let buttons: Vec<MouseButton> = std::mem::take(&mut self.held_buttons);
        for button in buttons {
            self.send(InputEvent::MouseButton {
                button,
                down: false,
                x,
                y,
            });
        }
    }

    /// The pointer in guest pixels, if it is over the guest frame and not over an
    /// egui window.
    fn guest_pointer(&self) -> Option<(i32, i32)> {
        let (wx, wy) = self.cursor?;
        let vp = self.viewport?;
        let g = self.gfx.as_ref()?;
        let ctx = g.egui_state.egui_ctx();
        let ppp = ctx.pixels_per_point() as f64;
        let over_egui = ctx
            .layer_id_at(egui::pos2((wx / ppp) as f32, (wy / ppp) as f32))
            .is_some_and(|l| l.order != egui::Order::Background);
        if over_egui {
            return None;
        }
        vp.to_guest(wx, wy)
    }

    fn guest_pointer_clamped(&self) -> Option<(i32, i32)> {
        let (wx, wy) = self.cursor?;
        Some(self.viewport?.to_guest_clamped(wx, wy))
    }

    /// The player's own keys; true when `code` was one of them.
    fn hotkey(&mut self, code: KeyCode) -> bool {
        match code {
            KeyCode::F1 => self.ui.show_debug = !self.ui.show_debug,
            KeyCode::F10 => self.ui.overlay.open = !self.ui.overlay.open,
            KeyCode::F12 => self.screenshot(),
            KeyCode::Pause => self.toggle_pause(),
            KeyCode::Enter | KeyCode::NumpadEnter if self.modifiers.alt_key() => {
                self.toggle_fullscreen()
            }
            _ => return false,
        }
        true
    }

    fn keyboard(&mut self, event: &winit::event::KeyEvent, egui_wants_keys: bool) {
        let PhysicalKey::Code(code) = event.physical_key else {
            return;
        };
        let down = event.state == ElementState::Pressed;
        if down && !event.repeat && self.hotkey(code) {
            return;
        }
        if matches!(
            code,
            KeyCode::F1 | KeyCode::F10 | KeyCode::F12 | KeyCode::Pause
        ) {
            return; // their releases belong to the player too
        }
        // A release of a key the guest saw go down always goes through.
        if !down && self.held_keys.remove(&code) {
            self.send_key(code, false);
            return;
        }
        if !down || egui_wants_keys || !self.guest_accepts_input() {
            return;
        }
        self.held_keys.insert(code);
        self.send_key(code, true);
    }

    fn send_key(&self, code: KeyCode, down: bool) {
        if let Some(k) = keymap::win_key(code) {
            self.send(InputEvent::Key {
                vk: k.vk,
                scancode: k.scancode,
                extended: k.extended,
                down,
            });
        }
    }

    fn mouse_button(&mut self, button: winit::event::MouseButton, state: ElementState) {
        let button = match button {
            winit::event::MouseButton::Left => MouseButton::Left,
            winit::event::MouseButton::Right => MouseButton::Right,
            winit::event::MouseButton::Middle => MouseButton::Middle,
            _ => return,
        };
        let down = state == ElementState::Pressed;
        if !down {
            if self.held_buttons.contains(&button) {
                self.held_buttons.retain(|b| *b != button);
                let (x, y) = self.guest_pointer_clamped().unwrap_or((0, 0));
                self.send(InputEvent::MouseButton { button, down, x, y });
            }
            return;
        }
        if !self.guest_accepts_input() {
            return;
        }
        if let Some((x, y)) = self.guest_pointer() {
            if !self.held_buttons.contains(&button) {
                self.held_buttons.push(button);
            }
            self.send(InputEvent::MouseButton { button, down, x, y });
        }
    }

    fn cursor_moved(&mut self, x: f64, y: f64) {
        self.cursor = Some((x, y));
        if !self.guest_accepts_input() {
            return;
        }
        // While a button is held the guest keeps getting moves (clamped to the edge),
        // as a window that captured the mouse would.
        let pos = if self.held_buttons.is_empty() {
            self.guest_pointer()
        } else {
            self.guest_pointer_clamped()
        };
        if let Some((x, y)) = pos {
            self.send(InputEvent::MouseMove { x, y });
        }
    }

    fn wheel(&mut self, delta: MouseScrollDelta) {
        if !self.guest_accepts_input() {
            return;
        }
        let Some((x, y)) = self.guest_pointer() else {
            return;
        };
        // WHEEL_DELTA (120) per notch; pixel deltas (touchpads) count ~40 px a notch.
        let notches = match delta {
            MouseScrollDelta::LineDelta(_, dy) => dy as f64,
            MouseScrollDelta::PixelDelta(p) => {
                self.wheel_rest += p.y / 40.0;
                let whole = self.wheel_rest.trunc();
                self.wheel_rest -= whole;
                whole
            }
        };
        let delta = (notches * 120.0).round() as i32;
        if delta != 0 {
            self.send(InputEvent::Wheel { delta, x, y });
        }
    }

    // ---- drawing ----------------------------------------------------------------------

    fn redraw(&mut self) {
        if self.gfx.is_none() {
            return;
        }
        let frame = self.session.as_ref().and_then(|s| s.frame());
        let name = self.program_name();
        let console = self
            .session
            .as_ref()
            .map(|s| {
                s.shared
                    .host
                    .console
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone()
            })
            .unwrap_or_default();
        let ended = self.ending_text();
        let program_settings = self.program_settings.clone();
        let view = self.session.as_ref().map(|s| ui::ProgramView {
            name: name.clone().unwrap_or_default(),
            loading: s.proc().is_none() && s.ending().is_none(),
            ended,
            has_frame: frame.is_some(),
            paused: s.is_paused(),
            deterministic: s.launch.deterministic,
            settings: &program_settings,
            console,
        });
        let Some(g) = self.gfx.as_mut() else { return };
        if let Some(f) = &frame {
            g.set_guest_frame(f);
        }
        let raw = g.egui_state.take_egui_input(&g.window);
        let ctx = g.egui_state.egui_ctx().clone();
        let mut result = (Vec::new(), 0.0);
        let out = ctx.run_pass(raw, |c| result = self.ui.draw(c, view.as_ref()));
        drop(view);
        let (actions, menu_points) = result;
        g.egui_state
            .handle_platform_output(&g.window, out.platform_output.clone());
        let (w, h) = g.size();
        let top = (menu_points * out.pixels_per_point).ceil() as u32;
        let area = Rect {
            x: 0,
            y: top.min(h) as i32,
            w,
            h: h.saturating_sub(top),
        };
        let mode = self.program_settings.scale.into();
        self.viewport = frame
            .as_ref()
            .and_then(|f| scale::fit(mode, f.width, f.height, area));
        g.render(self.viewport, out);
        self.meter.window_frame();
        self.do_actions(actions);
        self.update_title();
    }

    fn update_title(&mut self) {
        let Some(g) = &self.gfx else { return };
        let mut title = match (&self.session, self.program_name()) {
            (Some(s), Some(name)) => {
                let shown = s.guest_title().filter(|t| !t.is_empty()).unwrap_or(name);
                format!("{shown} — winterp")
            }
            _ => "winterp".to_string(),
        };
        if self.session.as_ref().is_some_and(|s| s.is_paused()) {
            title.push_str(" (paused)");
        }
        if title != self.title {
            g.window.set_title(&title);
            self.title = title;
        }
    }

    fn update_stats(&mut self) {
        let Some(s) = &self.session else {
            self.ui.stats = ui::Stats {
                ui_fps: self.meter.ui_fps,
                ..Default::default()
            };
            return;
        };
        let proc = s.proc();
        let frames = s.shared.frames.load(Ordering::Relaxed);
        let api = proc.map(|p| p.counters.api_calls.load(Ordering::Relaxed));
        let clock = proc
            .filter(|_| s.launch.deterministic)
            .map(|p| winterp_hostwin32::scheduler::virtual_clock(p));
        self.meter.sample(frames, api, clock);
        let finished: u64 = proc
            .map(|p| {
                p.thread_stats
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .map(|(_, c)| c.insns)
                    .sum()
            })
            .unwrap_or(0);
        let now = Instant::now();
        if self
            .overlay_clock
            .1
            .is_none_or(|t| now - t >= OVERLAY_SAMPLE)
        {
            self.overlay_clock.1 = Some(now);
            let t = (now - self.overlay_clock.0).as_secs_f64();
            // Reading the hot blocks makes guest threads publish them often: only
            // while they are shown.
            let sample = overlay::Sample::take(
                t,
                &winterp_core::tiers::global(),
                proc.filter(|_| self.ui.overlay.open).map(|p| &**p),
                now,
                Some(self.meter.guest_fps),
            );
            self.ui.overlay.sample(sample);
        }
        let frame = s.frame();
        self.ui.stats = ui::Stats {
            ui_fps: self.meter.ui_fps,
            guest_fps: self.meter.guest_fps,
            api_calls_per_s: api.map(|_| self.meter.api_per_s),
            virtual_insns_per_s: clock.map(|_| self.meter.clock_per_s),
            threads: proc.map(|p| p.sched.threads().len()),
            finished_thread_insns: (finished > 0).then_some(finished),
            display_mode: proc.map(|p| {
                let m = p.display.mode();
                format!("{}x{}x{} @{} Hz", m.width, m.height, m.bpp, m.refresh_hz)
            }),
            frame_size: frame.as_ref().map(|f| (f.width, f.height)),
            scale_text: self.viewport.map(|vp| match vp.integer_scale() {
                Some(k) => format!("{k}x ({}x{} window pixels)", vp.rect.w, vp.rect.h),
                None => format!(
                    "{:.3}x ({}x{} window pixels)",
                    vp.rect.w as f64 / vp.guest_w as f64,
                    vp.rect.w,
                    vp.rect.h
                ),
            }),
            audio: s
                .shared
                .audio
                .get()
                .map(|a| a.lock().unwrap_or_else(|e| e.into_inner()).summary()),
        };
    }

    fn poll_channels(&mut self) {
        while let Ok((picked, up_for)) = self.picker.1.try_recv() {
            self.ui.picker_open = false;
            match picked {
                Some(p) => self.open_program(p),
                // rfd says "nothing chosen" both for Cancel and for having no file
                // chooser to show (no xdg-desktop-portal, no zenity); nobody cancels
                // that fast.
                None if up_for < Duration::from_millis(300) => self.ui.problem(
                    "Open",
                    "No file chooser could be shown (winterp uses the desktop's \
                     xdg-desktop-portal, or zenity). Drop the .exe on this window or \
                     start it with `winterp PROGRAM.EXE` instead.",
                ),
                None => {}
            }
        }
        while let Ok(r) = self.shots.1.try_recv() {
            match r {
                Ok(p) => self.ui.toast(format!("Screenshot saved: {}", p.display())),
                Err(e) => self.ui.problem("Screenshot", e),
            }
        }
    }

    /// Pad changes (and the keys the program's pad mapping presses) to the guest;
    /// while it takes no input they wait in gilrs's queue.
    fn poll_gamepads(&mut self) {
        if !self.guest_accepts_input() {
            return;
        }
        let Some(g) = self.gilrs.as_mut() else { return };
        let events = self.pads.poll(g, &self.program_settings.pad_keys);
        for ev in events {
            self.send(ev);
        }
    }
}

/// gilrs with its error branches kept: no udev or /dev/input is not an error for the
/// player, just no pads.
fn init_gamepads() -> Option<gilrs::Gilrs> {
    match gilrs::Gilrs::new() {
        Ok(g) => {
            for (id, pad) in g.gamepads() {
                log::info!("gamepad {id}: {}", pad.name());
            }
            Some(g)
        }
        Err(gilrs::Error::NotImplemented(g)) => {
            log::info!("gamepads are not supported on this platform");
            Some(g)
        }
        Err(e) => {
            log::warn!("gamepads unavailable: {e}");
            None
        }
    }
}

/// Rates for the debug overlay, over about half a second.
struct Meter {
    since: Instant,
    window_frames: u64,
    last: Option<(u64, Option<u64>, Option<u64>)>,
    ui_fps: f64,
    guest_fps: f64,
    api_per_s: f64,
    clock_per_s: f64,
}

impl Meter {
    fn new() -> Meter {
        Meter {
            since: Instant::now(),
            window_frames: 0,
            last: None,
            ui_fps: 0.0,
            guest_fps: 0.0,
            api_per_s: 0.0,
            clock_per_s: 0.0,
        }
    }

    fn window_frame(&mut self) {
        self.window_frames += 1;
    }

    fn sample(&mut self, frames: u64, api: Option<u64>, clock: Option<u64>) {
        let dt = self.since.elapsed().as_secs_f64();
        if dt < 0.5 {
            return;
        }
        let rate = |now: u64, then: u64| now.saturating_sub(then) as f64 / dt;
        self.ui_fps = self.window_frames as f64 / dt;
        if let Some((f0, a0, c0)) = self.last {
            self.guest_fps = rate(frames, f0);
            if let (Some(a), Some(a0)) = (api, a0) {
                self.api_per_s = rate(a, a0);
            }
            if let (Some(c), Some(c0)) = (clock, c0) {
                self.clock_per_s = rate(c, c0);
            }
        }
        self.last = Some((frames, api, clock));
        self.window_frames = 0;
        self.since = Instant::now();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title("winterp")
            .with_inner_size(winit::dpi::LogicalSize::new(800.0, 624.0))
            .with_min_inner_size(winit::dpi::LogicalSize::new(320.0, 240.0));
        let window = match el.create_window(attrs) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                self.fatal = Some(format!("cannot create the window: {e}"));
                el.exit();
                return;
            }
        };
        match render::Gfx::new(el, window) {
            Ok(g) => {
                self.ui.adapter = g.adapter.clone();
                g.window.request_redraw();
                self.gfx = Some(g);
                self.update_title();
            }
            Err(e) => {
                self.fatal = Some(format!(
                    "cannot draw the window: {e} (WGPU_BACKEND=gl may help)"
                ));
                el.exit();
            }
        }
    }

    fn user_event(&mut self, _el: &ActiveEventLoop, _event: ()) {
        // Only a wake-up: about_to_wait picks up what changed.
    }

    fn window_event(&mut self, _el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let mut egui_wants_keys = false;
        if let Some(g) = self.gfx.as_mut() {
            let r = g.egui_state.on_window_event(&g.window, &event);
            // egui asks to repaint after a redraw too; that one is not news.
            self.dirty |= r.repaint && !matches!(event, WindowEvent::RedrawRequested);
            egui_wants_keys = g.egui_state.egui_ctx().egui_wants_keyboard_input();
        }
        match event {
            WindowEvent::CloseRequested => self.close_program(After::Quit),
            WindowEvent::Resized(size) => {
                self.dirty = true;
                if let Some(g) = self.gfx.as_mut() {
                    g.resize(size.width, size.height);
                    g.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => self.redraw(),
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::KeyboardInput { event, .. } => self.keyboard(&event, egui_wants_keys),
            WindowEvent::CursorMoved { position, .. } => self.cursor_moved(position.x, position.y),
            WindowEvent::CursorLeft { .. } => self.cursor = None,
            WindowEvent::MouseInput { state, button, .. } => self.mouse_button(button, state),
            WindowEvent::MouseWheel { delta, .. } => self.wheel(delta),
            WindowEvent::Focused(focused) => {
                if !focused {
                    self.release_all_input();
                }
                if self.guest_accepts_input() || !focused {
                    self.send(InputEvent::Focus(focused));
                }
            }
            WindowEvent::DroppedFile(path) => {
                let is_exe = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("exe"));
                if is_exe {
                    self.open_program(path);
                } else {
                    self.ui.toast(format!(
                        "{} is not a Windows program (.exe)",
                        path.display()
                    ));
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        self.poll_gamepads();
        self.poll_channels();
        self.poll_ending();
        self.poll_closing();
        self.update_stats();
        if self.want_exit {
            self.save_settings();
            el.exit();
            return;
        }
        // Redraw for a new guest frame, for egui (input, animations, toasts) and a few
        // times a second for status text; drawing nothing new would only take CPU time
        // from the guest (a lot of it with software rendering).
        let frames = self
            .session
            .as_ref()
            .map_or(0, |s| s.shared.frames.load(Ordering::Relaxed));
        let egui_wants = self
            .gfx
            .as_ref()
            .is_some_and(|g| g.egui_state.egui_ctx().has_requested_repaint());
        let stale = self.last_redraw.elapsed() >= Duration::from_millis(250);
        if frames != self.drawn_frames || egui_wants || self.dirty || stale {
            self.drawn_frames = frames;
            self.dirty = false;
            self.last_redraw = Instant::now();
            if let Some(g) = &self.gfx {
                g.window.request_redraw();
            }
        }
        // The guest publishes at most 60 frames a second.
        el.set_control_flow(ControlFlow::WaitUntil(
            Instant::now() + Duration::from_millis(8),
        ));
    }

    fn exiting(&mut self, _el: &ActiveEventLoop) {
        // Dropping the session ends a program that is still running.
        self.session = None;
    }
}
