//! Moves what the guest's voices played from the Win32 layer into the mixer, for
//! the player's sound output and for `--audio-dump`.

use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use winterp_audio::mixer::{SETTLE_FRAMES, frame_at};
use winterp_audio::wav::WavDump;
use winterp_audio::{Mixer, MixerStats, PcmFormat, VoiceChunk};
use winterp_hostwin32::process::Process;
use winterp_hostwin32::sound;

/// The Win32 layer's chunk as the mixer takes it.
pub fn convert(c: sound::Chunk) -> VoiceChunk {
    VoiceChunk {
        voice: c.voice,
        format: PcmFormat {
            channels: c.format.channels,
            bits_per_sample: c.format.bits_per_sample,
            samples_per_sec: c.format.samples_per_sec,
        },
        volume: c.volume,
        pan: c.pan,
        start_us: c.start_us,
        data: c.data,
    }
}

/// Drains the guest's voices into a mixer.
#[derive(Default)]
pub struct Pump {
    mixer: Mixer,
    /// Voices whose unplayable format was already reported (once each, not per chunk).
    reported: std::collections::HashSet<u64>,
}

impl Pump {
    pub fn new() -> Pump {
        Pump::default()
    }

    fn drain(&mut self, proc: &Arc<Process>) -> u64 {
        // The time is read first: the drain captures at least up to it, so nothing
        // drained later can start before it.
        let now = sound::now_us(proc);
        for c in sound::drain(proc) {
            let voice = c.voice;
            if let Err(e) = self.mixer.push(&convert(c))
                && self.reported.insert(voice)
            {
                log::warn!("audio: {e}; the voice is not played");
            }
        }
        now
    }

    /// Drains the guest and returns the mix frames that are final now.
    pub fn pump(&mut self, proc: &Arc<Process>) -> Vec<[i16; 2]> {
        let now = self.drain(proc);
        self.mixer.take(frame_at(now) - SETTLE_FRAMES)
    }

    /// Drains the guest a last time and returns the rest of the mix, up to the
    /// guest's current time.
    pub fn finish(&mut self, proc: &Arc<Process>) -> Vec<[i16; 2]> {
        let now = self.drain(proc);
        self.mixer.finish(frame_at(now))
    }

    pub fn stats(&self) -> MixerStats {
        self.mixer.stats()
    }
}

/// `--audio-dump OUT.wav`: the whole run's mix, from guest time 0.
pub struct AudioDump {
    pump: Pump,
    wav: WavDump,
    /// The first write error; later pumps stop writing and the run reports it.
    error: Option<String>,
}

impl AudioDump {
    pub fn create(path: &Path) -> Result<AudioDump> {
        let wav = WavDump::create(path).context("--audio-dump")?;
        Ok(AudioDump {
            pump: Pump::new(),
            wav,
            error: None,
        })
    }

    pub fn pump(&mut self, proc: &Arc<Process>) {
        let frames = self.pump.pump(proc);
        if self.error.is_none()
            && let Err(e) = self.wav.write(&frames)
        {
            self.error = Some(e.to_string());
        }
    }

    /// Writes the rest of the mix and the WAV header's sizes.
    pub fn finish(mut self, proc: &Arc<Process>) -> Result<u64> {
        let frames = self.pump.finish(proc);
        if let Some(e) = self.error {
            anyhow::bail!("--audio-dump: {e}");
        }
        self.wav.write(&frames).context("--audio-dump")?;
        let stats = self.pump.stats();
        if stats.late_frames > 0 {
            log::warn!(
                "audio: {} resampled frames arrived after their part of the mix was written",
                stats.late_frames
            );
        }
        self.wav.finish().context("--audio-dump")
    }
}
