//! dinput.dll: DirectInput. Arrives with issue 5.

#![allow(non_snake_case)]

use crate::display::InputEvent;
use crate::hle::{ApiDef, HleDll};
use crate::process::Process;
use std::sync::Arc;

pub const DLL: HleDll = HleDll {
    name: "dinput.dll",
    exports,
};

/// Per-process DirectInput state, in [`crate::process::Process::dinput`].
#[derive(Default)]
pub struct State {}

/// Every host input event passes here first so acquired devices can update their
/// state and buffers.
pub fn on_input(_proc: &Arc<Process>, _ev: &InputEvent) {}

fn exports() -> Vec<ApiDef> {
    vec![]
}
