//! The emulated sound hardware as the player and the headless runner see it.
//!
//! Guest sound APIs (dsound, winmm's waveOut) own their voices and advance them on
//! the guest's clock, never on the host device's: a voice's play position is a
//! function of guest time, so a game paces itself the same with a real card, the
//! null device, or no audio at all, and a deterministic run produces the same
//! samples every time.
//!
//! What a voice played is *captured* as [`Chunk`]s of raw guest PCM, with the
//! voice's format, volume and pan at that moment and the guest time its first
//! sample played. A voice captures before anything could change what it will play
//! (a Lock that may overwrite played bytes, Stop, SetFrequency, SetVolume, a header
//! returned with WOM_DONE) and whenever the host pulls with [`drain`]. The mixer in
//! `winterp-audio` turns chunks into the device's stream (resampling, volume, pan)
//! or into a WAV file (`--audio-dump`); this crate does not depend on it.

use crate::process::Process;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

/// A PCM format as WAVEFORMATEX gives it (WAVE_FORMAT_PCM only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcmFormat {
    /// 1 or 2.
    pub channels: u16,
    /// 8 (unsigned) or 16 (signed little-endian).
    pub bits_per_sample: u16,
    /// Frames per second (a DirectSound buffer's current frequency).
    pub samples_per_sec: u32,
}

impl PcmFormat {
    /// Bytes per frame (nBlockAlign).
    pub fn block_align(&self) -> u32 {
        u32::from(self.channels) * u32::from(self.bits_per_sample / 8)
    }
}

/// Which API a voice belongs to (for the mixer's statistics and the debug overlay).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoiceKind {
    DirectSound,
    WaveOut,
    /// winmm's General MIDI synthesizer (MIDI output and the MCI sequencer).
    Midi,
}

/// Samples one voice played, contiguous in time.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// Stable per voice for the life of the process (the mixer keeps its resampling
    /// position per voice, so consecutive chunks of a voice join without a seam).
    pub voice: u64,
    pub kind: VoiceKind,
    pub format: PcmFormat,
    /// DSBVOLUME: hundredths of a decibel of attenuation, 0 (full) to -10000 (silent).
    /// waveOut voices carry their waveOutSetVolume setting converted to this scale.
    pub volume: i32,
    /// DSBPAN: -10000 (left only) to 10000 (right only), 0 centred.
    pub pan: i32,
    /// Guest time, in microseconds since process start, at which `data`'s first
    /// frame played.
    pub start_us: u64,
    /// Whole frames of guest PCM in `format`.
    pub data: Vec<u8>,
}

/// A voice that can report what it played up to a guest time.
pub trait Source: Send + Sync {
    /// Pushes (through [`push`]) what this voice played up to `now_us` that it has not
    /// captured yet.
    fn capture(&self, proc: &Arc<Process>, now_us: u64);
}

/// Process-wide sound state, in [`Process::sound`].
#[derive(Default)]
pub struct Sound {
    chunks: Mutex<VecDeque<Chunk>>,
    sources: Mutex<Vec<Weak<dyn Source>>>,
    /// Bytes queued but not drained; the queue is bounded so a host that never
    /// drains (a headless run without `--audio-dump`) does not grow without end.
    queued_bytes: Mutex<usize>,
    /// Whether anyone drains: until a host calls [`drain`] once, chunks are dropped.
    drained: std::sync::atomic::AtomicBool,
}

/// At most this much PCM waits for a drain (about 12 s of 44.1 kHz 16-bit stereo);
/// older chunks are dropped first.
const MAX_QUEUED_BYTES: usize = 2 << 20;

/// Registers a voice so [`drain`] captures it; it is forgotten once dropped.
pub fn register(proc: &Process, source: &Arc<dyn Source>) {
    let mut s = proc.sound.sources.lock().unwrap_or_else(|e| e.into_inner());
    s.retain(|w| w.strong_count() > 0);
    s.push(Arc::downgrade(source));
}

/// Queues what a voice played.
pub fn push(proc: &Process, chunk: Chunk) {
    if chunk.data.is_empty()
        || !proc
            .sound
            .drained
            .load(std::sync::atomic::Ordering::Relaxed)
    {
        return;
    }
    let mut q = proc.sound.chunks.lock().unwrap_or_else(|e| e.into_inner());
    let mut bytes = proc
        .sound
        .queued_bytes
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *bytes += chunk.data.len();
    q.push_back(chunk);
    while *bytes > MAX_QUEUED_BYTES {
        match q.pop_front() {
            Some(old) => *bytes -= old.data.len(),
            None => break,
        }
    }
}

/// The guest's clock as the host sees it between time slices.
pub fn now_us(proc: &Process) -> u64 {
    crate::kernel32::time::micros_at_slice_boundary(proc)
}

/// Captures every live voice up to the guest's current time and returns everything
/// played since the last drain, in capture order. The first call switches capturing
/// on (before it, nobody listens and chunks are not kept).
pub fn drain(proc: &Arc<Process>) -> Vec<Chunk> {
    proc.sound
        .drained
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let now = now_us(proc);
    let live: Vec<Arc<dyn Source>> = {
        let s = proc.sound.sources.lock().unwrap_or_else(|e| e.into_inner());
        s.iter().filter_map(Weak::upgrade).collect()
    };
    for src in live {
        src.capture(proc, now);
    }
    let mut q = proc.sound.chunks.lock().unwrap_or_else(|e| e.into_inner());
    *proc
        .sound
        .queued_bytes
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = 0;
    q.drain(..).collect()
}

/// Whether a host is listening (the guest may skip capturing work otherwise).
pub fn listening(proc: &Process) -> bool {
    proc.sound
        .drained
        .load(std::sync::atomic::Ordering::Relaxed)
}
