//! winterp-audio: turns what the guest's voices played into sound.
//!
//! The guest's sound APIs hand over chunks of raw guest PCM, each stamped with the
//! guest time its first frame played ([`VoiceChunk`]). The [`Mixer`] places them on
//! one 44100 Hz 16-bit stereo timeline (resampling voices at other rates, applying
//! DirectSound's volume and pan law). The timeline goes either to a WAV file
//! ([`wav::WavDump`], `--audio-dump`) or to the sound card ([`output::Output`]),
//! converted to the card's rate ([`resample::DeviceResampler`]).
//!
//! This crate knows nothing of the emulator: the app converts the Win32 layer's
//! chunks into [`VoiceChunk`]s.

pub mod gain;
pub mod mixer;
pub mod output;
pub mod resample;
pub mod wav;

pub use mixer::{MIX_RATE, Mixer, MixerStats, PcmFormat, VoiceChunk};
pub use output::{Output, OutputKind, OutputStats};

#[cfg(test)]
pub(crate) mod testutil {
    /// Amplitude of the sinusoid of frequency `f` in `x` (sampled at `rate`), by
    /// correlating with sine and cosine over whole samples: a plain DFT bin, which
    /// for a pure tone of that frequency gives its peak amplitude.
    pub fn amplitude_at(x: &[f64], rate: f64, f: f64) -> f64 {
        let w = 2.0 * std::f64::consts::PI * f / rate;
        let (mut s, mut c) = (0.0, 0.0);
        for (n, v) in x.iter().enumerate() {
            s += v * (w * n as f64).sin();
            c += v * (w * n as f64).cos();
        }
        2.0 * (s * s + c * c).sqrt() / x.len() as f64
    }
}
