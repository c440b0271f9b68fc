//! winmm.dll: multimedia timers, waveOut, PlaySound, multimedia file I/O (mmio),
//! the joystick API, MCI and MIDI.
//! Each area lives in its own module with its own export list.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, HleDll};

pub mod joy;
pub mod mci;
pub mod midi;
pub mod mixer;
pub mod mmio;
pub mod playsound;
pub mod timer;
pub mod wave;
pub mod wave_service;

pub const DLL: HleDll = HleDll {
    name: "winmm.dll",
    exports,
    attach: None,
};

/// Per-process winmm state, in [`crate::process::Process::winmm`].
#[derive(Default)]
pub struct State {
    pub wave: wave::State,
    pub timer: timer::State,
    pub joy: joy::State,
}

fn exports() -> Vec<ApiDef> {
    let mut v = timer::exports();
    v.extend(wave::exports());
    v.extend(joy::exports());
    v.extend(mci::exports());
    v.extend(midi::exports());
    v.extend(mixer::exports());
    v.extend(mmio::exports());
    v.extend(playsound::exports());
    v
}
