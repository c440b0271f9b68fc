//! The General MIDI synthesizer: rustysynth playing a GM SoundFont found on the
//! host at run time.
//!
//! Where the SoundFont comes from ([`find_soundfont`]): `$WINTERP_SOUNDFONT` if it
//! is set (only that file: set to a path that does not exist, there is no
//! synthesizer), otherwise the first that exists of Debian's GM SoundFont paths:
//! `default-GM.sf2` (the alternatives link the installed GM fonts provide), then
//! `FluidR3_GM.sf2` (package `fluid-soundfont-gm`) and `TimGM6mb.sf2` (package
//! `timgm6mb-soundfont`, the small one `scripts/setup.sh` installs).
//!
//! A loaded font is shared: [`load`] keeps each path's font for the life of the
//! process, so opening the device again costs nothing.
//!
//! [`Synth`] renders 16-bit stereo frames at a fixed rate. Rendering is a pure
//! function of the messages and where they fall between frames, so the same
//! messages at the same frames give the same samples on every run.

use rustysynth::{SoundFont, Synthesizer, SynthesizerSettings};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable that names the SoundFont.
pub const SOUNDFONT_ENV: &str = "WINTERP_SOUNDFONT";

/// Debian's GM SoundFonts, in order of preference.
pub const DEBIAN_SOUNDFONTS: &[&str] = &[
    "/usr/share/sounds/sf2/default-GM.sf2",
    "/usr/share/sounds/sf2/FluidR3_GM.sf2",
    "/usr/share/sounds/sf2/TimGM6mb.sf2",
];

/// The SoundFont to play with, if there is one (see the module comment).
pub fn find_soundfont() -> Option<PathBuf> {
    pick(std::env::var_os(SOUNDFONT_ENV).as_deref(), |p| p.is_file())
}

/// The lookup of [`find_soundfont`], given the variable's value and a test for a
/// file's existence.
fn pick(var: Option<&std::ffi::OsStr>, exists: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    match var {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            exists(&p).then_some(p)
        }
        _ => DEBIAN_SOUNDFONTS
            .iter()
            .map(PathBuf::from)
            .find(|p| exists(p)),
    }
}

/// Why a SoundFont could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("{path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a usable SoundFont: {reason}")]
    Font { path: String, reason: String },
    #[error("synthesizer: {0}")]
    Synth(String),
}

type Fonts = Mutex<HashMap<PathBuf, Arc<SoundFont>>>;

fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(Default::default)
}

/// Loads (once per process) the SoundFont at `path`.
pub fn load(path: &Path) -> Result<Arc<SoundFont>, SynthError> {
    let mut m = fonts().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = m.get(path) {
        return Ok(f.clone());
    }
    let file = std::fs::File::open(path).map_err(|source| SynthError::Open {
        path: path.display().to_string(),
        source,
    })?;
    let mut r = std::io::BufReader::new(file);
    let font = SoundFont::new(&mut r).map_err(|e| SynthError::Font {
        path: path.display().to_string(),
        reason: format!("{e:?}"),
    })?;
    let font = Arc::new(font);
    m.insert(path.to_path_buf(), font.clone());
    Ok(font)
}

/// A General MIDI synthesizer voice.
pub struct Synth {
    inner: Synthesizer,
    rate: u32,
    left: Vec<f32>,
    right: Vec<f32>,
}

impl std::fmt::Debug for Synth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Synth").field("rate", &self.rate).finish()
    }
}

impl Synth {
    /// A synthesizer playing `font` at `rate` frames per second.
    pub fn new(font: &Arc<SoundFont>, rate: u32) -> Result<Synth, SynthError> {
        let settings = SynthesizerSettings::new(rate as i32);
        let inner =
            Synthesizer::new(font, &settings).map_err(|e| SynthError::Synth(format!("{e:?}")))?;
        Ok(Synth {
            inner,
            rate,
            left: Vec::new(),
            right: Vec::new(),
        })
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Plays a channel message packed as midiOutShortMsg takes it (status in the
    /// low byte). System messages (`F0`..`FF`) carry no sound and change nothing.
    pub fn short(&mut self, msg: u32) {
        let status = (msg & 0xFF) as u8;
        if !(0x80..0xF0).contains(&status) {
            return;
        }
        let d1 = ((msg >> 8) & 0x7F) as i32;
        let d2 = ((msg >> 16) & 0x7F) as i32;
        let channel = i32::from(status & 0x0F);
        let command = i32::from(status & 0xF0);
        self.inner.process_midi_message(channel, command, d1, d2);
    }

    /// Plays a system-exclusive message: GM System On and GS Reset reset the
    /// synthesizer, the universal Master Volume sets its volume. Returns false for
    /// any other message, which a GM synthesizer ignores (as the MIDI
    /// specification asks of a receiver that does not recognise one).
    pub fn sysex(&mut self, msg: &[u8]) -> bool {
        let body = msg.strip_prefix(&[0xF0]).unwrap_or(msg);
        match body {
            // GM System On: F0 7E <dev> 09 01 F7 (GM2: 09 03).
            [0x7E, _, 0x09, 0x01 | 0x03, ..] => {
                self.reset();
                true
            }
            // Roland GS Reset: F0 41 <dev> 42 12 40 00 7F 00 41 F7.
            [0x41, _, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, ..] => {
                self.reset();
                true
            }
            // F0 7F <dev> 04 01 <lsb> <msb> F7
            [0x7F, _, 0x04, 0x01, lsb, msb, ..] => {
                let v = (u32::from(*msb & 0x7F) << 7) | u32::from(*lsb & 0x7F);
                self.inner.set_master_volume(0.5 * v as f32 / 16383.0);
                true
            }
            _ => false,
        }
    }

    /// Every note off at once and every controller reset (midiOutReset, a GM reset).
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    /// Releases every sounding note on every channel (the notes fade out with
    /// their release, as "All Notes Off" does).
    pub fn all_notes_off(&mut self) {
        self.inner.note_off_all(false);
    }

    /// Renders `frames` frames as interleaved 16-bit stereo, appended to `out`.
    pub fn render_i16(&mut self, frames: usize, out: &mut Vec<u8>) {
        const STEP: usize = 4096;
        let mut left = std::mem::take(&mut self.left);
        let mut right = std::mem::take(&mut self.right);
        out.reserve(frames * 4);
        let mut done = 0;
        while done < frames {
            let n = (frames - done).min(STEP);
            left.resize(n, 0.0);
            right.resize(n, 0.0);
            self.inner.render(&mut left[..n], &mut right[..n]);
            for k in 0..n {
                let l = (left[k] * 32767.0).round().clamp(-32768.0, 32767.0) as i16;
                let r = (right[k] * 32767.0).round().clamp(-32768.0, 32767.0) as i16;
                out.extend_from_slice(&l.to_le_bytes());
                out.extend_from_slice(&r.to_le_bytes());
            }
            done += n;
        }
        self.left = left;
        self.right = right;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The font the tests play, if the host has one (scripts/setup.sh installs one).
    fn font() -> Option<Arc<SoundFont>> {
        let p = DEBIAN_SOUNDFONTS
            .iter()
            .map(Path::new)
            .find(|p| p.is_file());
        match p {
            Some(p) => Some(load(p).unwrap()),
            None => {
                eprintln!("skipped: no GM SoundFont (run scripts/setup.sh)");
                None
            }
        }
    }

    fn peak(pcm: &[u8]) -> i32 {
        pcm.chunks_exact(2)
            .map(|c| i32::from(i16::from_le_bytes([c[0], c[1]])).abs())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_note_sounds_and_stops_and_rendering_repeats_exactly() {
        let Some(font) = font() else { return };
        let run = |split: usize| {
            let mut s = Synth::new(&font, 44100).unwrap();
            let mut out = Vec::new();
            s.render_i16(441, &mut out);
            // Piano, middle C, loud.
            s.short(0x00_00_C0);
            s.short(0x7F_3C_90);
            s.render_i16(split, &mut out);
            s.render_i16(22050 - split, &mut out);
            s.short(0x00_3C_80);
            // Two seconds for the release and the reverb tail to die away.
            s.render_i16(88200, &mut out);
            out
        };
        let a = run(1000);
        // Silent before the note, sounding during it, silent at the end.
        assert_eq!(peak(&a[..441 * 4]), 0);
        assert!(peak(&a[441 * 4..(441 + 22050) * 4]) > 1000);
        let tail = &a[a.len() - 4410 * 4..];
        assert!(peak(tail) < 4, "tail peak {}", peak(tail));
        // Where the rendering is split does not change a sample.
        assert_eq!(a, run(64 * 7 + 3));
    }

    #[test]
    fn reset_and_all_notes_off_silence_the_voices() {
        let Some(font) = font() else { return };
        let mut s = Synth::new(&font, 44100).unwrap();
        let mut out = Vec::new();
        s.short(0x7F_40_90);
        s.render_i16(4410, &mut out);
        assert!(peak(&out) > 1000);
        assert!(s.sysex(&[0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]));
        out.clear();
        s.render_i16(88200, &mut out);
        assert!(peak(&out[out.len() - 4410 * 4..]) < 4);
        // An unknown manufacturer's message is not understood.
        assert!(!s.sysex(&[0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]));
        // Master volume 0 silences a note.
        assert!(s.sysex(&[0xF0, 0x7F, 0x7F, 0x04, 0x01, 0x00, 0x00, 0xF7]));
        s.short(0x7F_40_90);
        out.clear();
        s.render_i16(4410, &mut out);
        assert_eq!(peak(&out), 0);
    }

    #[test]
    fn the_environment_variable_wins_even_when_it_points_nowhere() {
        // The lookup is tested through `pick`, which takes the variable's value
        // and the existence test as arguments.
        assert_eq!(
            pick(Some("/nonexistent/winterp.sf2".as_ref()), |p| {
                !p.starts_with("/nonexistent")
            }),
            None
        );
        assert_eq!(
            pick(Some("/x/my.sf2".as_ref()), |_| true),
            Some(PathBuf::from("/x/my.sf2"))
        );
        assert_eq!(
            pick(None, |p| p.ends_with("TimGM6mb.sf2")),
            Some(PathBuf::from("/usr/share/sounds/sf2/TimGM6mb.sf2"))
        );
        assert_eq!(
            pick(None, |p| p.ends_with("default-GM.sf2")
                || p.ends_with("TimGM6mb.sf2")),
            Some(PathBuf::from("/usr/share/sounds/sf2/default-GM.sf2"))
        );
        assert_eq!(pick(None, |_| false), None);
    }
}
