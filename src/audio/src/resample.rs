//! Rate conversion: per voice onto the mix timeline, and of the mix to the card.
//!
//! Voices use [`VoiceInterp`], a 4-point Catmull-Rom (cubic Hermite) interpolator
//! written here rather than a library resampler: a voice arrives in chunks of any
//! length (a few frames to seconds), its first frame must land on an exact mix
//! frame, its rate may change between chunks (SetFrequency, 100..200000 Hz), and at
//! a ratio of 1 it must pass samples through bit-exactly. rubato's resamplers work
//! on fixed-size blocks with a filter delay, which would hold back or pad short
//! chunks and shift the start. The interpolator keeps its state between a voice's
//! chunks, so a stream cut anywhere resamples to the same output as the whole.
//! It has no anti-alias filter: like the cards of the era it images/aliases a
//! little; a pure tone in the lower half of the band keeps its frequency exactly and
//! its amplitude within 1% (see the tests).
//!
//! The finished mix is converted to the card's rate by [`DeviceResampler`], rubato's
//! synchronous FFT resampler (fixed ratio, band-limited).

use audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Fft, FixedSync, Resampler};
use std::collections::VecDeque;

/// One voice's resampling state between chunks.
#[derive(Debug)]
pub struct VoiceInterp {
    /// Input frames still needed; `hist[0]` is input frame `first` of the segment.
    hist: VecDeque<[f32; 2]>,
    first: i64,
    /// Input position of the next output frame: `ipos + frac`.
    ipos: i64,
    frac: f64,
}

impl Default for VoiceInterp {
    fn default() -> Self {
        // Silence before the first frame, for the interpolation around frame 0.
        VoiceInterp {
            hist: VecDeque::from([[0.0; 2]]),
            first: -1,
            ipos: 0,
            frac: 0.0,
        }
    }
}

impl VoiceInterp {
    /// Appends input frames and emits every output frame they complete; `step` is
    /// input frames per output frame (input rate / mix rate).
    pub fn push(&mut self, input: &[[f32; 2]], step: f64, out: &mut impl FnMut([f32; 2])) {
        self.hist.extend(input.iter().copied());
        self.run(step, out);
    }

    /// Ends the segment: the input is followed by silence, and every output frame
    /// that starts before the input's end is emitted. The state is then fresh.
    pub fn finish(&mut self, step: f64, out: &mut impl FnMut([f32; 2])) {
        self.hist.extend([[0.0; 2]; 2]);
        self.run(step, out);
        *self = VoiceInterp::default();
    }

    fn run(&mut self, step: f64, out: &mut impl FnMut([f32; 2])) {
        let step = if step.is_finite() && step > 0.0 {
            step
        } else {
            1.0
        };
        // Output at position p needs input frames floor(p)-1 ..= floor(p)+2.
        while self.ipos + 2 < self.first + self.hist.len() as i64 {
            let k = (self.ipos - 1 - self.first) as usize;
            let t = self.frac as f32;
            let mut v = [0.0f32; 2];
            for (c, o) in v.iter_mut().enumerate() {
                *o = catmull_rom(
                    self.hist[k][c],
                    self.hist[k + 1][c],
                    self.hist[k + 2][c],
                    self.hist[k + 3][c],
                    t,
                );
            }
            out(v);
            self.frac += step;
            let whole = self.frac.floor();
            self.ipos += whole as i64;
            self.frac -= whole;
        }
        while self.first < self.ipos - 1 && !self.hist.is_empty() {
            self.hist.pop_front();
            self.first += 1;
        }
    }
}

/// Catmull-Rom spline between p1 (t = 0) and p2 (t = 1). In Horner form t = 0 gives
/// exactly p1, so a ratio-1 voice passes through unchanged.
fn catmull_rom(p0: f32, p1: f32, p2: f32, p3: f32, t: f32) -> f32 {
    let a = -0.5 * p0 + 1.5 * p1 - 1.5 * p2 + 0.5 * p3;
    let b = p0 - 2.5 * p1 + 2.0 * p2 - 0.5 * p3;
    let c = -0.5 * p0 + 0.5 * p2;
    ((a * t + b) * t + c) * t + p1
}

/// Errors setting up the device-rate converter.
#[derive(Debug, thiserror::Error)]
pub enum ResampleError {
    #[error("cannot resample {from} Hz to {to} Hz: {why}")]
    Setup { from: u32, to: u32, why: String },
    #[error("resampling failed: {0}")]
    Process(String),
}

/// Converts the interleaved stereo mix from one fixed rate to the card's.
pub struct DeviceResampler {
    inner: Option<Fft<f32>>,
    pending: Vec<f32>,
    out: Vec<f32>,
    /// Output frames still to drop: the FFT resampler's delay, so the card's stream
    /// starts with the mix's first frame rather than filter run-in silence.
    skip: usize,
}

/// Input block of the FFT resampler: 10 ms at 44.1 kHz.
const BLOCK: usize = 441;

impl DeviceResampler {
    /// A converter for a device at the mix's own rate.
    pub fn passthrough() -> DeviceResampler {
        DeviceResampler {
            inner: None,
            pending: Vec::new(),
            out: Vec::new(),
            skip: 0,
        }
    }

    pub fn new(from: u32, to: u32) -> Result<DeviceResampler, ResampleError> {
        if from == 0 || to == 0 {
            return Err(ResampleError::Setup {
                from,
                to,
                why: "a rate of 0".into(),
            });
        }
        let inner = if from == to {
            None
        } else {
            Some(
                Fft::<f32>::new(from as usize, to as usize, BLOCK, 2, FixedSync::Input).map_err(
                    |e| ResampleError::Setup {
                        from,
                        to,
                        why: e.to_string(),
                    },
                )?,
            )
        };
        let skip = inner.as_ref().map_or(0, |r| r.output_delay());
        Ok(DeviceResampler {
            inner,
            pending: Vec::new(),
            out: Vec::new(),
            skip,
        })
    }

    /// Feeds interleaved stereo frames; returns the converted frames available so
    /// far (interleaved stereo). Whatever does not fill a block waits for more input.
    pub fn process(&mut self, input: &[f32]) -> Result<Vec<f32>, ResampleError> {
        let Some(r) = self.inner.as_mut() else {
            return Ok(input.to_vec());
        };
        self.pending.extend_from_slice(input);
        let mut result = Vec::new();
        let mut used = 0;
        loop {
            let need = r.input_frames_next();
            if (self.pending.len() - used) / 2 < need {
                break;
            }
            let max_out = r.output_frames_max();
            self.out.resize(max_out * 2, 0.0);
            let inp = InterleavedSlice::new(&self.pending[used..used + need * 2], 2, need)
                .map_err(|e| ResampleError::Process(e.to_string()))?;
            let mut outp = InterleavedSlice::new_mut(&mut self.out[..], 2, max_out)
                .map_err(|e| ResampleError::Process(e.to_string()))?;
            let (n_in, n_out) = r
                .process_into_buffer(&inp, &mut outp, None)
                .map_err(|e| ResampleError::Process(e.to_string()))?;
            used += n_in * 2;
            let drop = self.skip.min(n_out);
            self.skip -= drop;
            result.extend_from_slice(&self.out[drop * 2..n_out * 2]);
        }
        self.pending.drain(..used);
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_all(input: &[[f32; 2]], step: f64, cut: &[usize]) -> Vec<[f32; 2]> {
        let mut r = VoiceInterp::default();
        let mut out = Vec::new();
        let mut at = 0;
        for &c in cut.iter().chain(std::iter::once(&input.len())) {
            r.push(&input[at..c], step, &mut |v| out.push(v));
            at = c;
        }
        r.finish(step, &mut |v| out.push(v));
        out
    }

    #[test]
    fn ratio_one_passes_through_exactly() {
        let input: Vec<[f32; 2]> = (0..100)
            .map(|i| [(i * 331 % 65536 - 32768) as f32, -(i as f32)])
            .collect();
        let out = run_all(&input, 1.0, &[7, 8, 50]);
        assert_eq!(out, input);
    }

    #[test]
    fn output_length_covers_the_input() {
        // 100 frames at half the mix rate: ceil(100 / 0.5) = 200 output frames.
        let input = vec![[1000.0f32; 2]; 100];
        assert_eq!(run_all(&input, 0.5, &[]).len(), 200);
        // 100 frames at 8000 Hz into 44100: ceil(100 * 44100 / 8000) = 552.
        assert_eq!(run_all(&input, 8000.0 / 44100.0, &[]).len(), 552);
    }

    #[test]
    fn chunking_does_not_change_the_output() {
        let input: Vec<[f32; 2]> = (0..500)
            .map(|i| {
                let x = (i as f32 * 0.1).sin() * 10000.0;
                [x, -x]
            })
            .collect();
        let step = 22050.0 / 44100.0;
        let whole = run_all(&input, step, &[]);
        let cut = run_all(&input, step, &[1, 2, 3, 97, 250, 251, 499]);
        assert_eq!(whole, cut);
    }

    #[test]
    fn device_resampler_keeps_a_tone() {
        // A 1 kHz tone at 44100 Hz into 48000 Hz: same frequency, same amplitude.
        let mut r = DeviceResampler::new(44100, 48000).expect("setup");
        let input: Vec<f32> = (0..44100)
            .flat_map(|i| {
                let x =
                    (2.0 * std::f64::consts::PI * 1000.0 * i as f64 / 44100.0).sin() as f32 * 0.5;
                [x, x]
            })
            .collect();
        let out = r.process(&input).expect("process");
        let frames = out.len() / 2;
        // All but the last partial block (441 in = 480 out) minus the filter delay.
        assert!(frames > 47000 && frames <= 48000, "{frames}");
        let left: Vec<f64> = out.iter().step_by(2).map(|&v| f64::from(v)).collect();
        let body = &left[2000..frames - 2000];
        let peak = body.iter().fold(0f64, |m, v| m.max(v.abs()));
        assert!((peak - 0.5).abs() < 0.005, "peak {peak}");
        let f = crate::testutil::amplitude_at(body, 48000.0, 1000.0);
        assert!(f > 0.49, "1 kHz amplitude {f}");
    }
}
