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

/// What the player shows about its sound output.
#[derive(Clone, Debug, Default)]
pub struct AudioStatus {
    /// The line printed when the output started (device and rate, or why none).
    pub device: String,
    pub output: winterp_audio::OutputStats,
    pub mixer: MixerStats,
}

impl AudioStatus {
    /// One line for the debug overlay.
    pub fn summary(&self) -> String {
        let o = &self.output;
        format!(
            "{}\n{} voices, {} frames played, {} underruns, {} dropped",
            self.device.trim_start_matches("audio: "),
            self.mixer.active_voices,
            o.frames_played,
            o.underruns,
            o.dropped_frames
        )
    }
}

pub type AudioStatusHandle = Arc<std::sync::Mutex<AudioStatus>>;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Deterministic player runs: the refresh hook drains the guest on the scheduler's
/// thread (between time slices, where the virtual clock is consistent) and hands
/// the mix to the output thread.
pub struct Feeder {
    pump: Pump,
    tx: std::sync::mpsc::Sender<Vec<[i16; 2]>>,
    status: AudioStatusHandle,
}

impl Feeder {
    pub fn feed(&mut self, proc: &Arc<Process>) {
        let frames = self.pump.pump(proc);
        lock(&self.status).mixer = self.pump.stats();
        if !frames.is_empty() {
            let _ = self.tx.send(frames);
        }
    }
}

/// The player's sound: a host thread that owns the output device (a cpal stream
/// need not be movable between threads) and, in OS-thread mode, drains the guest
/// every 10 ms itself. The guest never waits for it.
pub struct PlayerAudio {
    status: AudioStatusHandle,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    feeder: Option<Feeder>,
}

/// How often the OS-thread player drains the guest.
const PUMP_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

impl PlayerAudio {
    /// Starts the output for a session; `deterministic` runs are fed through
    /// [`PlayerAudio::take_feeder`] from the refresh hook instead. While `paused`
    /// says so the OS-thread pump keeps draining (the guest's clock runs on) but
    /// sends nothing: a paused game is silent.
    pub fn start(
        proc: &Arc<Process>,
        deterministic: bool,
        paused: Box<dyn Fn() -> bool + Send>,
    ) -> PlayerAudio {
        use std::sync::atomic::Ordering;
        let status = AudioStatusHandle::default();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<Vec<[i16; 2]>>();
        let (st, stp, p) = (status.clone(), stop.clone(), proc.clone());
        // WINTERP_AUDIO_DEVICE picks a cpal device id (e.g. alsa:null) over the default.
        let device = std::env::var("WINTERP_AUDIO_DEVICE").ok();
        let thread = std::thread::Builder::new()
            .name("winterp-audio".into())
            .spawn(move || {
                let mut out = winterp_audio::Output::open(device.as_deref());
                let line = out.kind().describe();
                eprintln!("{line}");
                lock(&st).device = line;
                let mut pump = Pump::new();
                while !stp.load(Ordering::Relaxed) && p.exited().is_none() {
                    if deterministic {
                        match rx.recv_timeout(std::time::Duration::from_millis(50)) {
                            Ok(frames) => out.write(&frames),
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                        }
                    } else {
                        let frames = pump.pump(&p);
                        if !paused() {
                            out.write(&frames);
                        }
                        lock(&st).mixer = pump.stats();
                        std::thread::sleep(PUMP_EVERY);
                    }
                    lock(&st).output = out.stats();
                }
                let (o, m) = (out.stats(), lock(&st).mixer);
                eprintln!(
                    "audio: stopped: {} mix frames from {} chunks, {} device frames played, \
                     {} underruns, {} frames dropped",
                    m.frames_out, m.chunks, o.frames_played, o.underruns, o.dropped_frames
                );
            })
            .map_err(|e| {
                let line = format!("audio: no output device, using a null sink (no thread: {e})");
                eprintln!("{line}");
                lock(&status).device = line;
            })
            .ok();
        let feeder = deterministic.then(|| Feeder {
            pump: Pump::new(),
            tx,
            status: status.clone(),
        });
        PlayerAudio {
            status,
            stop,
            thread,
            feeder,
        }
    }

    /// The deterministic run's feeder, for the refresh hook (once).
    pub fn take_feeder(&mut self) -> Option<Feeder> {
        self.feeder.take()
    }

    pub fn status(&self) -> AudioStatusHandle {
        self.status.clone()
    }
}

impl Drop for PlayerAudio {
    /// Stops the output with the session.
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use winterp_hostwin32::sound::{Chunk, PcmFormat as GuestFormat, VoiceKind};

    #[test]
    fn guest_chunks_keep_every_field() {
        let c = Chunk {
            voice: 7,
            kind: VoiceKind::DirectSound,
            format: GuestFormat {
                channels: 1,
                bits_per_sample: 8,
                samples_per_sec: 22050,
            },
            volume: -600,
            pan: 1200,
            start_us: 123_456,
            data: vec![1, 2, 3],
        };
        let v = convert(c);
        assert_eq!(
            v,
            VoiceChunk {
                voice: 7,
                format: PcmFormat {
                    channels: 1,
                    bits_per_sample: 8,
                    samples_per_sec: 22050,
                },
                volume: -600,
                pan: 1200,
                start_us: 123_456,
                data: vec![1, 2, 3],
            }
        );
    }
}
