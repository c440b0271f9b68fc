//! winterp-midi: General MIDI for the Win32 layer's MIDI output and MCI sequencer.
//!
//! - [`synth`]: a SoundFont GM synthesizer (rustysynth) with the font found on the
//!   host at run time.
//! - [`smf`]: Standard MIDI Files and their timing (tempo map).
//!
//! It knows nothing of the emulator: winmm feeds it messages at guest times and
//! takes rendered 16-bit stereo frames.

pub mod smf;
pub mod synth;

pub use synth::{Synth, SynthError, find_soundfont};
