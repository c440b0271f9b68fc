//! What the guest shows: the frame the player and the headless runner display.

use crate::display::Frame;
use crate::process::Process;

/// The main window's client area (the first visible top-level window of the
/// process), or `None` while no window is visible.
pub fn compose_frame(_proc: &Process) -> Option<Frame> {
    // Windows arrive with the window manager (user32::window).
    None
}

/// The main window's title.
pub fn main_window_title(_proc: &Process) -> Option<String> {
    None
}
