//! The emulated screen as the player and the headless runner see it: the display
//! mode the guest is told about, the frames it presents, the input it receives and
//! the refresh clock that paces both.
//!
//! Frames are pulled, not pushed: the player's UI thread (at its own refresh) or the
//! headless runner (at each tick of the virtual 60 Hz refresh in deterministic mode)
//! calls [`current_frame`], which composes the guest's main window client area (or,
//! with DirectDraw, its full-screen surface). Input goes the other way through
//! [`inject`], which turns host events into guest messages and key state and wakes the
//! threads that wait for them.

use crate::process::Process;
use std::sync::Arc;
use std::sync::Mutex;

/// The screen sizes the emulated display offers, each at 8, 16 and 32 bits per
/// pixel (DirectDraw's EnumDisplayModes, USER32's EnumDisplaySettings).
pub const MODES: &[(u32, u32)] = &[
    (320, 200),
    (320, 240),
    (400, 300),
    (512, 384),
    (640, 400),
    (640, 480),
    (800, 600),
    (1024, 768),
];

/// The depths of every mode in [`MODES`].
pub const DEPTHS: [u32; 3] = [8, 16, 32];

/// What GetSystemMetrics, GetDeviceCaps and EnumDisplaySettings report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisplayMode {
    pub width: u32,
    pub height: u32,
    /// 8, 16 or 32.
    pub bpp: u32,
    pub refresh_hz: u32,
}

impl Default for DisplayMode {
    fn default() -> Self {
        DisplayMode {
            width: 800,
            height: 600,
            bpp: 32,
            refresh_hz: 60,
        }
    }
}

/// One guest frame: the program's own pixels, before any host scaling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    /// Row-major, `width * height` pixels as 0x00RRGGBB.
    pub pixels: Vec<u32>,
}

impl Frame {
    /// The pixels as RGBA8 bytes (alpha 255), for PNG files and textures.
    pub fn to_rgba8(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pixels.len() * 4);
        for &p in &self.pixels {
            out.extend_from_slice(&[(p >> 16) as u8, (p >> 8) as u8, p as u8, 255]);
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

/// A host input event. Coordinates are guest frame pixels (the frame returned by
/// [`current_frame`]: the main window's client area, or the full-screen surface); the
/// player maps window coordinates through its scaling before injecting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputEvent {
    /// A key went down or up. `vk` is the Windows virtual-key code, `scancode` the
    /// set-1 make code, `extended` the E0 prefix (right Ctrl/Alt, arrows, ...).
    Key {
        vk: u8,
        scancode: u16,
        extended: bool,
        down: bool,
    },
    MouseMove {
        x: i32,
        y: i32,
    },
    MouseButton {
        button: MouseButton,
        down: bool,
        x: i32,
        y: i32,
    },
    /// Wheel turned by `delta` (WHEEL_DELTA = 120 per notch, positive away from the user).
    Wheel {
        delta: i32,
        x: i32,
        y: i32,
    },
    /// The player window gained or lost focus.
    Focus(bool),
    /// The user closed the player window: the guest's main window gets WM_CLOSE.
    Close,
    /// Game pad `index` (0-based, at most [`MAX_PADS`]) now reads `state` (gilrs in the
    /// player, `pad` lines in input scripts). Pads reach the guest through the
    /// joystick API and DirectInput; games that read only the keyboard get keys
    /// from the player's per-program pad-to-key mapping instead.
    Pad {
        index: u8,
        state: PadState,
    },
}

/// How many pads the guest can see (joyGetNumDevs reports this many slots).
pub const MAX_PADS: usize = 4;

/// One pad's state in joystick-API terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PadState {
    /// Whether a pad is plugged into this slot.
    pub connected: bool,
    /// Button `k` down is bit `k` (JOY_BUTTON1 is bit 0: A/south on an Xbox-style pad).
    pub buttons: u32,
    /// X, Y (left stick), Z (right stick X), R (right stick Y), U, V (triggers), each
    /// 0..=65535 with 32767 centred, as joyGetPosEx reports them; Y grows downwards.
    pub axes: [u16; 6],
    /// Point of view hat in hundredths of a degree clockwise from up, or `None`
    /// when centred (JOY_POVCENTERED).
    pub pov: Option<u16>,
}

impl PadState {
    pub const CENTRED: [u16; 6] = [32767; 6];
}

/// Called at each DirectDraw present with the count of presents so far (this one
/// included) and the presented frame.
pub type PresentHook = Box<dyn FnMut(&Arc<Process>, u64, &Frame) + Send>;

/// Process-wide display state, in [`Process::display`].
#[derive(Default)]
pub struct Display {
    pub mode: Mutex<DisplayMode>,
    /// The pads as the host last reported them.
    pub pads: Mutex<[PadState; MAX_PADS]>,
    /// Frames presented through DirectDraw and OpenGL's SwapBuffers.
    presents: std::sync::atomic::AtomicU64,
    present_hook: Mutex<Option<PresentHook>>,
}

impl Display {
    pub fn mode(&self) -> DisplayMode {
        *self.mode.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The guest's current picture, or `None` while it shows nothing (no visible window).
pub fn current_frame(proc: &Process) -> Option<Frame> {
    // Exclusive full-screen DirectDraw shows its primary surface instead of windows.
    // DirectDraw overlays are laid over the screen at scan-out, after everything.
    if let Some(mut f) = crate::ddraw::present::fullscreen_frame(proc) {
        crate::ddraw::overlay::composite(proc, &mut f, (0, 0));
        return Some(f);
    }
    let mut f = crate::user32::present::compose_frame(proc)?;
    if let Some(origin) = crate::user32::present::frame_screen_origin(proc) {
        crate::ddraw::overlay::composite(proc, &mut f, origin);
    }
    Some(f)
}

/// How many frames the guest has presented through DirectDraw (Flip, or a blit into
/// the primary surface).
pub fn presents(proc: &Process) -> u64 {
    proc.display
        .presents
        .load(std::sync::atomic::Ordering::SeqCst)
}

/// Whether the program shows its picture through DirectDraw or OpenGL (whose
/// SwapBuffers presents the same way): it has presented, or it has ddraw.dll or
/// opengl32.dll loaded (the headless runner then counts presents, not ticks).
pub fn uses_directdraw(proc: &Process) -> bool {
    presents(proc) > 0
        || proc
            .modules
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|m| {
                m.name.eq_ignore_ascii_case("ddraw.dll")
                    || m.name.eq_ignore_ascii_case("opengl32.dll")
            })
}

/// Installs the hook DirectDraw calls at each present (the headless runner counts
/// presented frames with it).
pub fn set_present_hook(proc: &Process, hook: PresentHook) {
    *proc
        .display
        .present_hook
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(hook);
}

/// DirectDraw presented `frame`: counts it and runs the hook.
pub fn note_present(proc: &Arc<Process>, frame: &Frame) {
    let n = proc
        .display
        .presents
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        + 1;
    let mut hook = proc
        .display
        .present_hook
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = hook.as_mut() {
        h(proc, n, frame);
    }
}

/// Delivers a host input event to the guest (any thread; wakes waiting guest threads).
pub fn inject(proc: &Arc<Process>, ev: InputEvent) {
    // DirectInput devices keep their own state and buffers, fed from the same events.
    crate::dinput::on_input(proc, &ev);
    match ev {
        InputEvent::Pad { index, state } => {
            let mut pads = proc.display.pads.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(p) = pads.get_mut(usize::from(index)) {
                *p = state;
            }
        }
        ev => crate::user32::input::inject(proc, ev),
    }
}

/// Pad `index` as the host last reported it (disconnected if out of range).
pub fn pad(proc: &Process, index: usize) -> PadState {
    let pads = proc.display.pads.lock().unwrap_or_else(|e| e.into_inner());
    pads.get(index).copied().unwrap_or_default()
}

/// The title of the guest's main window, if it has one (the player shows it).
pub fn main_window_title(proc: &Process) -> Option<String> {
    crate::user32::present::main_window_title(proc)
}

/// Instructions per virtual refresh in deterministic mode: frame `k` begins when the
/// virtual clock reaches `frame_start(k)` (60 Hz at [`crate::scheduler::INSNS_PER_MS`]).
pub fn frame_start(k: u64) -> u64 {
    k * crate::scheduler::INSNS_PER_MS * 1000 / 60
}
