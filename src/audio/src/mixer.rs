//! Places the voices' chunks on one 44100 Hz 16-bit stereo timeline.
//!
//! Frame `n` of the timeline plays at guest time n / 44100 s. A voice's first chunk
//! (or its first after a gap) starts at frame round(start_us * 44100 / 10^6); a chunk
//! that starts where the voice's previous one ended (within one of its frames)
//! continues it without a seam, through the voice's own resampler state. Voices add
//! in 32 bits and saturate to 16 bits when the frames are taken.
//!
//! The timeline is finished up to a frame the caller chooses ([`Mixer::take`]): the
//! caller drains the guest up to time T, so nothing will land before T any more
//! except a resampler's look-ahead, which [`SETTLE_FRAMES`] covers.

use crate::gain;
use crate::resample::VoiceInterp;
use std::collections::{HashMap, VecDeque};

/// The timeline's rate.
pub const MIX_RATE: u32 = 44100;

/// How far behind the drained guest time the timeline can be finished: a voice's
/// interpolator holds back two input frames, which at DirectSound's lowest rate
/// (100 Hz) is 882 mix frames.
pub const SETTLE_FRAMES: i64 = 2048;

/// No chunk may land further than this past the finished part (10 minutes): a
/// bound on memory, not a limit real voices reach.
const MAX_AHEAD: i64 = 600 * MIX_RATE as i64;

/// A PCM format as WAVEFORMATEX gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcmFormat {
    /// 1 or 2.
    pub channels: u16,
    /// 8 (unsigned) or 16 (signed little-endian).
    pub bits_per_sample: u16,
    pub samples_per_sec: u32,
}

/// What one voice played, contiguous in time.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceChunk {
    /// Stable per voice: consecutive chunks of a voice join without a seam.
    pub voice: u64,
    pub format: PcmFormat,
    /// DSBVOLUME (hundredths of a dB, 0..-10000).
    pub volume: i32,
    /// DSBPAN (-10000..10000).
    pub pan: i32,
    /// Guest time of the first frame, in microseconds since process start.
    pub start_us: u64,
    /// Whole frames in `format`; a partial last frame is ignored.
    pub data: Vec<u8>,
}

/// A chunk the mixer cannot play.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MixError {
    #[error("voice {voice}: unsupported PCM format {channels} channel(s), {bits} bits, {rate} Hz")]
    Format {
        voice: u64,
        channels: u16,
        bits: u16,
        rate: u32,
    },
}

/// Running totals for the status display and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixerStats {
    pub chunks: u64,
    pub rejected_chunks: u64,
    /// Guest frames received.
    pub frames_in: u64,
    /// Timeline frames finished.
    pub frames_out: u64,
    /// Resampled frames that arrived for an already finished part of the timeline.
    pub late_frames: u64,
    /// Output samples clamped to the 16-bit range.
    pub clipped_samples: u64,
    /// Voices with a segment in progress.
    pub active_voices: usize,
}

struct Voice {
    interp: VoiceInterp,
    /// Input frames per mix frame.
    step: f64,
    /// Timeline frame of the next output frame.
    next_out: i64,
    /// Guest time at which the last chunk ended.
    end_us: f64,
}

/// The mix timeline and the voices' resampling state.
#[derive(Default)]
pub struct Mixer {
    /// Timeline frame of `acc[0]`; everything before it has been taken.
    base: i64,
    acc: VecDeque<[i32; 2]>,
    voices: HashMap<u64, Voice>,
    stats: MixerStats,
}

/// The timeline frame at which guest time `us` plays (rounded to nearest).
pub fn frame_at(us: u64) -> i64 {
    ((u128::from(us) * u128::from(MIX_RATE) + 500_000) / 1_000_000).min(i64::MAX as u128) as i64
}

/// Adds a voice's output frame at timeline frame `pos`.
fn add(acc: &mut VecDeque<[i32; 2]>, base: i64, stats: &mut MixerStats, pos: i64, v: [f32; 2]) {
    let idx = pos - base;
    if idx < 0 {
        stats.late_frames += 1;
        return;
    }
    if idx >= MAX_AHEAD {
        stats.late_frames += 1;
        return;
    }
    let idx = idx as usize;
    if acc.len() <= idx {
        acc.resize(idx + 1, [0; 2]);
    }
    for c in 0..2 {
        acc[idx][c] = acc[idx][c].saturating_add(v[c].round() as i32);
    }
}

impl Mixer {
    pub fn new() -> Mixer {
        Mixer::default()
    }

    /// The first timeline frame not taken yet.
    pub fn position(&self) -> i64 {
        self.base
    }

    pub fn stats(&self) -> MixerStats {
        MixerStats {
            active_voices: self.voices.len(),
            ..self.stats
        }
    }

    /// Mixes a chunk into the timeline.
    pub fn push(&mut self, chunk: &VoiceChunk) -> Result<(), MixError> {
        let f = chunk.format;
        if !matches!(f.channels, 1 | 2)
            || !matches!(f.bits_per_sample, 8 | 16)
            || f.samples_per_sec == 0
            || f.samples_per_sec > 1_000_000
        {
            self.stats.rejected_chunks += 1;
            return Err(MixError::Format {
                voice: chunk.voice,
                channels: f.channels,
                bits: f.bits_per_sample,
                rate: f.samples_per_sec,
            });
        }
        self.stats.chunks += 1;
        let frames = to_stereo(chunk);
        if frames.is_empty() {
            return Ok(());
        }
        self.stats.frames_in += frames.len() as u64;
        let rate = f64::from(f.samples_per_sec);
        let step = rate / f64::from(MIX_RATE);
        let start = chunk.start_us as f64;
        let Mixer {
            acc,
            base,
            voices,
            stats,
            ..
        } = self;
        let base = *base;
        // A chunk continues its voice when it starts where the last one ended, give
        // or take one of its frames (the guest clock is whole microseconds).
        let continues = voices
            .get(&chunk.voice)
            .is_some_and(|v| (start - v.end_us).abs() <= 1e6 / rate + 1.0);
        if !continues {
            if let Some(mut old) = voices.remove(&chunk.voice) {
                let mut pos = old.next_out;
                old.interp.finish(old.step, &mut |v| {
                    add(acc, base, stats, pos, v);
                    pos += 1;
                });
            }
            voices.insert(
                chunk.voice,
                Voice {
                    interp: VoiceInterp::default(),
                    step,
                    next_out: frame_at(chunk.start_us),
                    end_us: start,
                },
            );
        }
        let Some(voice) = voices.get_mut(&chunk.voice) else {
            return Ok(());
        };
        voice.step = step;
        // Follow the guest's stamps rather than summing durations, so a voice whose
        // clock drifts a little against its nominal rate is not cut into segments.
        voice.end_us = start + frames.len() as f64 * 1e6 / rate;
        let mut pos = voice.next_out;
        voice.interp.push(&frames, step, &mut |v| {
            add(acc, base, stats, pos, v);
            pos += 1;
        });
        voice.next_out = pos;
        Ok(())
    }

    /// Ends the segments of voices that stopped before timeline frame `until`.
    fn settle_idle(&mut self, until: i64, all: bool) {
        let idle: Vec<u64> = self
            .voices
            .iter()
            .filter(|(_, v)| all || frame_at(v.end_us.max(0.0) as u64) < until)
            .map(|(&id, _)| id)
            .collect();
        for id in idle {
            if let Some(mut old) = self.voices.remove(&id) {
                let mut pos = old.next_out;
                let (acc, base, stats) = (&mut self.acc, self.base, &mut self.stats);
                old.interp.finish(old.step, &mut |v| {
                    add(acc, base, stats, pos, v);
                    pos += 1;
                });
            }
        }
    }

    /// Finishes and returns the timeline up to (not including) frame `until`; empty
    /// if it is not past what was taken already. Callers that drained the guest up
    /// to time T pass `frame_at(T) - SETTLE_FRAMES`.
    pub fn take(&mut self, until: i64) -> Vec<[i16; 2]> {
        self.settle_idle(until, false);
        self.emit(until)
    }

    /// Ends every voice and returns the rest of the timeline, at least up to frame
    /// `until` (the end of the run) and past the last voice's last frame.
    pub fn finish(&mut self, until: i64) -> Vec<[i16; 2]> {
        self.settle_idle(until, true);
        let end = until.max(self.base + self.acc.len() as i64);
        self.emit(end)
    }

    fn emit(&mut self, until: i64) -> Vec<[i16; 2]> {
        let n = (until - self.base).max(0);
        let n = n.min(MAX_AHEAD) as usize;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let f = self.acc.pop_front().unwrap_or([0; 2]);
            let mut s = [0i16; 2];
            for c in 0..2 {
                let v = f[c].clamp(i32::from(i16::MIN), i32::from(i16::MAX));
                if v != f[c] {
                    self.stats.clipped_samples += 1;
                }
                s[c] = v as i16;
            }
            out.push(s);
        }
        self.base += n as i64;
        self.stats.frames_out += n as u64;
        out
    }
}

/// The chunk's frames as stereo in the 16-bit scale, volume and pan applied.
fn to_stereo(chunk: &VoiceChunk) -> Vec<[f32; 2]> {
    let f = chunk.format;
    let (gl, gr) = gain::stereo(chunk.volume, chunk.pan);
    let bytes = usize::from(f.channels) * usize::from(f.bits_per_sample / 8);
    chunk
        .data
        .chunks_exact(bytes)
        .map(|fr| {
            let sample = |i: usize| -> f32 {
                if f.bits_per_sample == 8 {
                    // 8-bit PCM is unsigned, 128 = silence.
                    f32::from((i16::from(fr[i]) - 128) << 8)
                } else {
                    f32::from(i16::from_le_bytes([fr[2 * i], fr[2 * i + 1]]))
                }
            };
            let (l, r) = if f.channels == 1 {
                let s = sample(0);
                (s, s)
            } else {
                (sample(0), sample(1))
            };
            [l * gl, r * gr]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(
        voice: u64,
        ch: u16,
        bits: u16,
        rate: u32,
        start_us: u64,
        data: Vec<u8>,
    ) -> VoiceChunk {
        VoiceChunk {
            voice,
            format: PcmFormat {
                channels: ch,
                bits_per_sample: bits,
                samples_per_sec: rate,
            },
            volume: 0,
            pan: 0,
            start_us,
            data,
        }
    }

    fn pcm16(samples: &[i16]) -> Vec<u8> {
        samples.iter().flat_map(|s| s.to_le_bytes()).collect()
    }

    fn mix(chunks: &[VoiceChunk]) -> Vec<[i16; 2]> {
        let mut m = Mixer::new();
        for c in chunks {
            m.push(c).expect("valid chunk");
        }
        m.finish(0)
    }

    /// A deterministic noise sequence covering the whole 16-bit range.
    fn noise(n: usize, seed: u32) -> Vec<i16> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 16) as u16 as i16
            })
            .collect()
    }

    #[test]
    fn stereo_44100_16_bit_passes_through_bit_exact() {
        let s = noise(2 * 1000, 1);
        let out = mix(&[chunk(1, 2, 16, 44100, 0, pcm16(&s))]);
        let want: Vec<[i16; 2]> = s.chunks(2).map(|p| [p[0], p[1]]).collect();
        assert_eq!(out, want);
        // Extremes survive too.
        let ext = [i16::MIN, i16::MAX, i16::MAX, i16::MIN];
        let out = mix(&[chunk(1, 2, 16, 44100, 0, pcm16(&ext))]);
        assert_eq!(out, vec![[i16::MIN, i16::MAX], [i16::MAX, i16::MIN]]);
    }

    #[test]
    fn mono_16_bit_duplicates_to_both_channels() {
        let s = noise(500, 2);
        let out = mix(&[chunk(1, 1, 16, 44100, 0, pcm16(&s))]);
        let want: Vec<[i16; 2]> = s.iter().map(|&v| [v, v]).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn eight_bit_unsigned_is_shifted_to_16_bit() {
        // (s - 128) << 8: 0 -> -32768, 128 -> 0, 255 -> 32512, 1 -> -32512.
        let out = mix(&[chunk(1, 1, 8, 44100, 0, vec![0, 128, 255, 1])]);
        assert_eq!(out, vec![[-32768; 2], [0; 2], [32512; 2], [-32512; 2]]);
        let out = mix(&[chunk(1, 2, 8, 44100, 0, vec![0, 255, 200, 64])]);
        assert_eq!(out, vec![[-32768, 32512], [18432, -16384]]);
    }

    #[test]
    fn overlapping_voices_add_and_saturate() {
        let a = chunk(1, 1, 16, 44100, 0, pcm16(&[1000, 30000, -30000, -5]));
        let b = chunk(2, 1, 16, 44100, 0, pcm16(&[234, 10000, -10000, 7]));
        let out = mix(&[a, b]);
        assert_eq!(out, vec![[1234; 2], [32767; 2], [-32768; 2], [2; 2]]);
        let mut m = Mixer::new();
        m.push(&chunk(1, 1, 16, 44100, 0, pcm16(&[30000, 30000])))
            .unwrap();
        m.push(&chunk(2, 1, 16, 44100, 0, pcm16(&[30000, 1])))
            .unwrap();
        let _ = m.finish(0);
        // Two clipped frames would be 4 samples; only the first frame clips.
        assert_eq!(m.stats().clipped_samples, 2);
    }

    #[test]
    fn first_chunk_starts_at_its_rounded_guest_time() {
        // 1000 us * 44100 / 1e6 = 44.1 -> frame 44; 1 ms 11.3 us = 44.598 -> 45.
        let out = mix(&[chunk(1, 1, 16, 44100, 1000, pcm16(&[5, 6]))]);
        assert_eq!(out.len(), 46);
        assert!(out[..44].iter().all(|f| *f == [0, 0]));
        assert_eq!(out[44..], [[5, 5], [6, 6]]);
        let out = mix(&[chunk(1, 1, 16, 44100, 1011, pcm16(&[5]))]);
        assert_eq!(out.len(), 46);
        assert_eq!(out[45], [5, 5]);
        // Two voices starting 1 s apart.
        let out = mix(&[
            chunk(1, 1, 16, 44100, 0, pcm16(&[1])),
            chunk(2, 1, 16, 44100, 1_000_000, pcm16(&[2])),
        ]);
        assert_eq!(out.len(), 44101);
        assert_eq!((out[0], out[44100]), ([1, 1], [2, 2]));
    }

    #[test]
    fn later_chunks_join_without_a_seam() {
        // Three chunks of one voice at 44100 Hz whose stamps are the guest's
        // (rounded down to whole microseconds): they land back to back.
        let s = noise(3000, 3);
        let c1 = chunk(1, 1, 16, 44100, 500, pcm16(&s[..1000]));
        // 1000 frames = 22675.7 us
        let c2 = chunk(1, 1, 16, 44100, 500 + 22675, pcm16(&s[1000..1700]));
        let c3 = chunk(1, 1, 16, 44100, 500 + 38548, pcm16(&s[1700..]));
        let out = mix(&[c1, c2, c3]);
        let first = frame_at(500) as usize; // 22.05 -> 22
        assert_eq!(first, 22);
        assert_eq!(out.len(), first + 3000);
        let got: Vec<i16> = out[first..].iter().map(|f| f[0]).collect();
        assert_eq!(got, s);
    }

    #[test]
    fn a_gap_restarts_the_voice_at_its_new_time() {
        let c1 = chunk(1, 1, 16, 44100, 0, pcm16(&[7; 10]));
        // 10 frames end at 226.8 us; the next chunk starts 1 s later.
        let c2 = chunk(1, 1, 16, 44100, 1_000_000, pcm16(&[9; 3]));
        let out = mix(&[c1, c2]);
        assert_eq!(out.len(), 44103);
        assert_eq!(out[9], [7, 7]);
        assert_eq!(out[10], [0, 0]);
        assert_eq!(out[44100..], [[9; 2]; 3]);
    }

    #[test]
    fn chunked_resampled_voice_equals_the_whole() {
        // A 22050 Hz voice cut into uneven chunks mixes exactly as one chunk.
        let s = noise(4000, 4);
        let whole = mix(&[chunk(1, 1, 16, 22050, 0, pcm16(&s))]);
        let mut parts = Vec::new();
        let mut at = 0usize;
        for len in [1usize, 333, 1000, 2, 2664] {
            let start_us = (at as u64 * 1_000_000) / 22050;
            parts.push(chunk(1, 1, 16, 22050, start_us, pcm16(&s[at..at + len])));
            at += len;
        }
        assert_eq!(at, 4000);
        assert_eq!(mix(&parts), whole);
        assert_eq!(whole.len(), 8000);
    }

    #[test]
    fn resampled_tone_keeps_frequency_and_amplitude() {
        // A 1 kHz sine of amplitude 16000 at 22050 Hz and at 11025 Hz (mono 16-bit)
        // (and 8000, 48000 Hz) becomes a 1 kHz sine of amplitude 16000 +- 1% at
        // 44100 Hz, with no more than 1% of it at the other frequencies probed.
        for rate in [22050u32, 11025, 8000, 48000] {
            let n = rate as usize; // 1 s
            let s: Vec<i16> = (0..n)
                .map(|i| {
                    (16000.0
                        * (2.0 * std::f64::consts::PI * 1000.0 * i as f64 / f64::from(rate)).sin())
                    .round() as i16
                })
                .collect();
            let out = mix(&[chunk(1, 1, 16, rate, 0, pcm16(&s))]);
            assert_eq!(out.len(), 44100, "rate {rate}");
            let left: Vec<f64> = out[100..44000].iter().map(|f| f64::from(f[0])).collect();
            let a = crate::testutil::amplitude_at(&left, 44100.0, 1000.0);
            assert!((a - 16000.0).abs() < 160.0, "rate {rate}: amplitude {a}");
            // The interpolator's images of the tone (rate +- 1 kHz) stay 40 dB down.
            let images = [f64::from(rate) - 1000.0, f64::from(rate) + 1000.0];
            for other in images
                .into_iter()
                .filter(|&f| f < 22050.0)
                .chain([900.0, 1100.0, 2000.0, 3000.0])
            {
                let b = crate::testutil::amplitude_at(&left, 44100.0, other);
                assert!(b < 160.0, "rate {rate}: {b} at {other} Hz");
            }
        }
    }

    #[test]
    fn volume_and_pan_follow_the_decibel_law() {
        // -6 dB volume: 10000 * 10^(-600/2000) = 5011.87 -> 5012 on both channels.
        let mut c = chunk(1, 1, 16, 44100, 0, pcm16(&[10000]));
        c.volume = -600;
        assert_eq!(mix(&[c.clone()]), vec![[5012, 5012]]);
        // Pan +1200: left 10000 * 10^(-1200/2000) = 2511.89 -> 2512, right untouched.
        c.volume = 0;
        c.pan = 1200;
        assert_eq!(mix(&[c.clone()]), vec![[2512, 10000]]);
        // Volume -1000 and pan -2000: left -10 dB = 3162.28, right -30 dB = 316.23.
        c.volume = -1000;
        c.pan = -2000;
        assert_eq!(mix(&[c.clone()]), vec![[3162, 316]]);
        c.volume = -10000;
        c.pan = 0;
        assert_eq!(mix(&[c]), vec![[0, 0]]);
    }

    #[test]
    fn take_finishes_only_what_is_settled() {
        let mut m = Mixer::new();
        let s = noise(44100, 5);
        m.push(&chunk(1, 1, 16, 44100, 0, pcm16(&s[..22050])))
            .unwrap();
        // Drained up to 0.5 s: finish up to frame 22050 - SETTLE_FRAMES.
        let a = m.take(22050 - SETTLE_FRAMES);
        assert_eq!(a.len(), 22050 - SETTLE_FRAMES as usize);
        m.push(&chunk(1, 1, 16, 44100, 500_000, pcm16(&s[22050..])))
            .unwrap();
        let b = m.finish(44100);
        let got: Vec<i16> = a.iter().chain(&b).map(|f| f[1]).collect();
        assert_eq!(got, s);
        assert_eq!(m.stats().late_frames, 0);
        assert_eq!(m.stats().frames_out, 44100);
    }

    #[test]
    fn bad_formats_are_rejected_by_name() {
        let mut m = Mixer::new();
        let e = m.push(&chunk(9, 3, 16, 44100, 0, vec![0; 6])).unwrap_err();
        assert!(e.to_string().contains("3 channel(s)"), "{e}");
        assert!(m.push(&chunk(9, 2, 24, 44100, 0, vec![0; 6])).is_err());
        assert!(m.push(&chunk(9, 2, 16, 0, 0, vec![0; 4])).is_err());
        assert_eq!(m.stats().rejected_chunks, 3);
    }
}
