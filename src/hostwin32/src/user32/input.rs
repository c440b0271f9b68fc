//! Host input to guest messages and key state.

use crate::display::InputEvent;
use crate::process::Process;
use std::sync::Arc;

/// Delivers `ev` to the window under the pointer or with the focus.
pub fn inject(_proc: &Arc<Process>, ev: InputEvent) {
    log::debug!("input before any window exists: {ev:?}");
}
