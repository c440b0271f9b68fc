//! The sound card: a cpal stream fed from a ring buffer, or a null sink.
//!
//! The guest never waits for the card. The pump pushes finished mix frames (on the
//! guest's clock) into a wait-free ring; the card's callback takes what it needs and
//! plays silence when the ring runs dry (an underrun). When the ring is full the
//! newest frames are dropped. So a card that pulls slowly, one that pulls flat out
//! (ALSA's `null` PCM does), or no card at all never changes how fast the game runs.
//!
//! Opening: the requested device if one is named (or the null sink if it cannot be
//! opened); otherwise the host's default device, then ALSA's `null` PCM (a machine
//! without a sound card), then a host null sink that consumes in real time.

use crate::mixer::MIX_RATE;
use crate::resample::DeviceResampler;
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SizedSample};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How much sound the ring holds, in seconds: latency is at most this much.
const RING_SECONDS: f64 = 0.5;
/// ALSA's null PCM as cpal names it.
const NULL_PCM: &str = "alsa:null";
/// How often the null sink consumes.
const NULL_TICK: Duration = Duration::from_millis(10);

/// Where the sound goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A cpal stream on the device with this id (`alsa:default`, `alsa:null`, ...).
    Device { id: String, rate: u32 },
    /// No device could be opened; frames are consumed in real time and discarded.
    NullSink { reason: String },
}

impl OutputKind {
    /// The one-line report the player prints when the output starts.
    pub fn describe(&self) -> String {
        match self {
            OutputKind::Device { id, rate } => format!("audio: cpal stream on {id} at {rate} Hz"),
            OutputKind::NullSink { reason } => {
                format!("audio: no output device, using a null sink ({reason})")
            }
        }
    }
}

#[derive(Default)]
struct Counters {
    written: AtomicU64,
    played: AtomicU64,
    underruns: AtomicU64,
    silence: AtomicU64,
    dropped: AtomicU64,
    errors: AtomicU64,
}

/// Frame counts at the device's rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputStats {
    /// Frames pushed into the ring.
    pub frames_written: u64,
    /// Frames the device (or null sink) took from the ring.
    pub frames_played: u64,
    /// Callbacks (null sink ticks) that found the ring short and played silence.
    pub underruns: u64,
    /// Frames of silence played for those.
    pub silence_frames: u64,
    /// Frames dropped because the ring was full.
    pub dropped_frames: u64,
    /// Errors the stream reported.
    pub stream_errors: u64,
}

enum Sink {
    // Only held: dropping the stream stops it.
    Cpal(#[allow(dead_code)] cpal::Stream),
    Null {
        stop: Arc<AtomicBool>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
}

/// A running output. Dropping it stops the stream.
pub struct Output {
    kind: OutputKind,
    rate: u32,
    producer: rtrb::Producer<f32>,
    resampler: DeviceResampler,
    counters: Arc<Counters>,
    sink: Sink,
}

fn ring(rate: u32) -> (rtrb::Producer<f32>, rtrb::Consumer<f32>) {
    rtrb::RingBuffer::new(((f64::from(rate) * RING_SECONDS) as usize).max(1024) * 2)
}

/// Fills a device buffer of `channels`-channel frames from the stereo ring.
fn fill<T: SizedSample + FromSample<f32>>(
    cons: &mut rtrb::Consumer<f32>,
    out: &mut [T],
    channels: usize,
    counters: &Counters,
) {
    let channels = channels.max(1);
    let mut short = 0u64;
    let mut played = 0u64;
    for frame in out.chunks_mut(channels) {
        let (l, r) = if cons.slots() >= 2 {
            played += 1;
            (cons.pop().unwrap_or(0.0), cons.pop().unwrap_or(0.0))
        } else {
            short += 1;
            (0.0, 0.0)
        };
        match frame {
            [m] => *m = T::from_sample((l + r) * 0.5),
            [a, b, rest @ ..] => {
                *a = T::from_sample(l);
                *b = T::from_sample(r);
                for x in rest {
                    *x = T::from_sample(0.0f32);
                }
            }
            [] => {}
        }
    }
    counters.played.fetch_add(played, Ordering::Relaxed);
    if short > 0 {
        counters.underruns.fetch_add(1, Ordering::Relaxed);
        counters.silence.fetch_add(short, Ordering::Relaxed);
    }
}

/// Holds a device callback back to real time. Only for ALSA's null PCM, which has
/// no clock and calls back as fast as it can: unpaced it keeps a CPU core busy that
/// the emulator needs. A real card's callback is never delayed.
struct Pace {
    start: Option<Instant>,
    frames: u64,
    rate: f64,
}

impl Pace {
    fn after(&mut self, frames: u64) {
        let start = *self.start.get_or_insert_with(Instant::now);
        self.frames += frames;
        let due = Duration::from_secs_f64(self.frames as f64 / self.rate);
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait.min(Duration::from_millis(100)));
        }
    }
}

fn build<T: SizedSample + FromSample<f32>>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    mut cons: rtrb::Consumer<f32>,
    counters: Arc<Counters>,
    paced: bool,
) -> Result<cpal::Stream, String> {
    let channels = usize::from(config.channels);
    let errors = counters.clone();
    let mut pace = paced.then(|| Pace {
        start: None,
        frames: 0,
        rate: f64::from(config.sample_rate),
    });
    device
        .build_output_stream::<T, _, _>(
            config,
            move |data: &mut [T], _: &cpal::OutputCallbackInfo| {
                fill(&mut cons, data, channels, &counters);
                if let Some(p) = pace.as_mut() {
                    p.after((data.len() / channels.max(1)) as u64);
                }
            },
            move |e| {
                // Report the first few only: a broken device can fail every period.
                if errors.errors.fetch_add(1, Ordering::Relaxed) < 3 {
                    eprintln!("audio: stream error: {e}");
                }
            },
            None,
        )
        .map_err(|e| format!("build_output_stream: {e}"))
}

/// Opens a cpal stream on `device`.
fn open_device(
    device: &cpal::Device,
    counters: &Arc<Counters>,
) -> Result<(cpal::Stream, OutputKind, u32, rtrb::Producer<f32>), String> {
    let id = device
        .id()
        .map(|i| i.to_string())
        .map_err(|e| format!("device id: {e}"))?;
    let supported = device
        .default_output_config()
        .map_err(|e| format!("{id}: default_output_config: {e}"))?;
    let fmt = supported.sample_format();
    let config: cpal::StreamConfig = supported.into();
    let rate = config.sample_rate;
    let (prod, cons) = ring(rate);
    let c = counters.clone();
    let p = id == NULL_PCM;
    let stream = match fmt {
        cpal::SampleFormat::F32 => build::<f32>(device, config, cons, c, p),
        cpal::SampleFormat::F64 => build::<f64>(device, config, cons, c, p),
        cpal::SampleFormat::I16 => build::<i16>(device, config, cons, c, p),
        cpal::SampleFormat::U16 => build::<u16>(device, config, cons, c, p),
        cpal::SampleFormat::I32 => build::<i32>(device, config, cons, c, p),
        cpal::SampleFormat::U32 => build::<u32>(device, config, cons, c, p),
        cpal::SampleFormat::I8 => build::<i8>(device, config, cons, c, p),
        cpal::SampleFormat::U8 => build::<u8>(device, config, cons, c, p),
        other => Err(format!("unsupported sample format {other}")),
    }
    .map_err(|e| format!("{id}: {e}"))?;
    stream.play().map_err(|e| format!("{id}: play: {e}"))?;
    Ok((
        stream,
        OutputKind::Device {
            id: id.clone(),
            rate,
        },
        rate,
        prod,
    ))
}

fn device_by_id(host: &cpal::Host, want: &str) -> Result<cpal::Device, String> {
    let id: cpal::DeviceId = want
        .parse()
        .map_err(|e| format!("bad device id {want}: {e}"))?;
    host.device_by_id(&id)
        .ok_or_else(|| format!("no device {want}"))
}

impl Output {
    /// Opens the output; never fails (the null sink is the last resort). `device`
    /// names a cpal device id to use instead of the default.
    pub fn open(device: Option<&str>) -> Output {
        let counters = Arc::new(Counters::default());
        let host = cpal::default_host();
        let mut reasons = Vec::new();
        let candidates: Vec<Result<cpal::Device, String>> = match device {
            Some(want) => vec![device_by_id(&host, want)],
            None => vec![
                host.default_output_device()
                    .ok_or_else(|| "no default output device".to_string()),
                // A machine without a card still has ALSA's null PCM.
                device_by_id(&host, NULL_PCM),
            ],
        };
        for cand in candidates {
            match cand.and_then(|d| open_device(&d, &counters)) {
                Ok((stream, kind, rate, producer)) => match DeviceResampler::new(MIX_RATE, rate) {
                    Ok(resampler) => {
                        return Output {
                            kind,
                            rate,
                            producer,
                            resampler,
                            counters,
                            sink: Sink::Cpal(stream),
                        };
                    }
                    Err(e) => reasons.push(e.to_string()),
                },
                Err(e) => reasons.push(e),
            }
        }
        Output::null_sink(reasons.join("; "), counters)
    }

    /// An output that consumes at the mix rate in real time and discards.
    fn null_sink(reason: String, counters: Arc<Counters>) -> Output {
        let rate = MIX_RATE;
        let (producer, mut cons) = ring(rate);
        let stop = Arc::new(AtomicBool::new(false));
        let (stop2, c) = (stop.clone(), counters.clone());
        let thread = std::thread::Builder::new()
            .name("audio-null-sink".into())
            .spawn(move || {
                let start = Instant::now();
                let mut consumed = 0u64;
                let mut scratch = vec![0.0f32; 2 * 4096];
                while !stop2.load(Ordering::Relaxed) {
                    std::thread::sleep(NULL_TICK);
                    let due = (start.elapsed().as_secs_f64() * f64::from(rate)) as u64;
                    let mut n = due.saturating_sub(consumed);
                    consumed = due;
                    while n > 0 {
                        let k = n.min(4096) as usize;
                        fill(&mut cons, &mut scratch[..2 * k], 2, &c);
                        n -= k as u64;
                    }
                }
            })
            .ok();
        Output {
            kind: OutputKind::NullSink { reason },
            rate,
            producer,
            resampler: DeviceResampler::passthrough(),
            counters,
            sink: Sink::Null { stop, thread },
        }
    }

    pub fn kind(&self) -> &OutputKind {
        &self.kind
    }

    /// The device's frame rate.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Queues mix frames (44100 Hz stereo) for playing; returns without waiting.
    pub fn write(&mut self, frames: &[[i16; 2]]) {
        if frames.is_empty() {
            return;
        }
        let input: Vec<f32> = frames
            .iter()
            .flat_map(|f| f.map(|s| f32::from(s) / 32768.0))
            .collect();
        let out = match self.resampler.process(&input) {
            Ok(out) => out,
            Err(e) => {
                if self.counters.errors.fetch_add(1, Ordering::Relaxed) < 3 {
                    eprintln!("audio: {e}");
                }
                return;
            }
        };
        let fit = (self.producer.slots() / 2).min(out.len() / 2);
        for s in &out[..fit * 2] {
            // Cannot fail: `fit` frames were free, and only this side adds.
            let _ = self.producer.push(*s);
        }
        self.counters
            .written
            .fetch_add(fit as u64, Ordering::Relaxed);
        self.counters
            .dropped
            .fetch_add((out.len() / 2 - fit) as u64, Ordering::Relaxed);
    }

    pub fn stats(&self) -> OutputStats {
        let c = &self.counters;
        OutputStats {
            frames_written: c.written.load(Ordering::Relaxed),
            frames_played: c.played.load(Ordering::Relaxed),
            underruns: c.underruns.load(Ordering::Relaxed),
            silence_frames: c.silence.load(Ordering::Relaxed),
            dropped_frames: c.dropped.load(Ordering::Relaxed),
            stream_errors: c.errors.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Sink::Null { stop, thread } = &mut self.sink {
            stop.store(true, Ordering::Relaxed);
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_falls_back_to_a_real_time_null_sink() {
        let mut out = Output::open(Some("alsa:winterp-no-such-device"));
        let OutputKind::NullSink { reason } = out.kind().clone() else {
            panic!("opened {:?}", out.kind());
        };
        assert!(reason.contains("winterp-no-such-device"), "{reason}");
        assert!(
            out.kind()
                .describe()
                .starts_with("audio: no output device, using a null sink (")
        );
        assert_eq!(out.rate(), 44100);
        // 0.4 s of sound: the sink takes it at 44100 frames/s, not all at once.
        let start = Instant::now();
        out.write(&vec![[1000i16, -1000]; 17640]);
        assert_eq!(out.stats().frames_written, 17640);
        std::thread::sleep(Duration::from_millis(100));
        let early = out.stats().frames_played;
        let elapsed = start.elapsed().as_secs_f64();
        assert!(early > 0, "nothing consumed after 100 ms");
        assert!(
            (early as f64) <= elapsed * 44100.0 + 1000.0,
            "{early} frames consumed in {elapsed} s: not real time"
        );
        std::thread::sleep(Duration::from_millis(500));
        let s = out.stats();
        assert_eq!(s.frames_played, 17640);
        assert!(s.underruns > 0 && s.silence_frames > 0, "{s:?}");
        assert_eq!(s.dropped_frames, 0);
    }

    #[test]
    fn a_malformed_device_id_is_a_readable_reason() {
        let out = Output::open(Some("no-host-part"));
        let OutputKind::NullSink { reason } = out.kind() else {
            panic!("opened {:?}", out.kind());
        };
        assert!(reason.contains("bad device id no-host-part"), "{reason}");
    }

    #[test]
    fn a_full_ring_drops_instead_of_waiting() {
        let mut out = Output::open(Some("alsa:winterp-no-such-device"));
        // 2 s at once into a 0.5 s ring: returns at once, the excess is counted.
        let t = Instant::now();
        out.write(&vec![[0i16; 2]; 88200]);
        assert!(t.elapsed() < Duration::from_millis(500));
        let s = out.stats();
        assert_eq!(s.frames_written + s.dropped_frames, 88200);
        assert_eq!(s.frames_written, 22050);
    }

    #[test]
    fn device_line_is_the_documented_one() {
        let k = OutputKind::Device {
            id: "alsa:null".into(),
            rate: 48000,
        };
        assert_eq!(k.describe(), "audio: cpal stream on alsa:null at 48000 Hz");
    }
}
