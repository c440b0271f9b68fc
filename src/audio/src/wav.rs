//! `--audio-dump`: the mix as a 44100 Hz 16-bit stereo WAV file.
//!
//! hound writes the RIFF header, streams the samples through a buffer and patches the
//! sizes when finalized; a hand-written header would duplicate that for no gain, and
//! hound's reader checks our own output in the tests.

use crate::mixer::MIX_RATE;
use std::path::{Path, PathBuf};

/// Errors writing the WAV file, with its path.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct WavError {
    path: PathBuf,
    source: hound::Error,
}

pub struct WavDump {
    path: PathBuf,
    writer: hound::WavWriter<std::io::BufWriter<std::fs::File>>,
    frames: u64,
}

impl WavDump {
    pub fn create(path: &Path) -> Result<WavDump, WavError> {
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: MIX_RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let writer = hound::WavWriter::create(path, spec).map_err(|source| WavError {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(WavDump {
            path: path.to_path_buf(),
            writer,
            frames: 0,
        })
    }

    pub fn write(&mut self, frames: &[[i16; 2]]) -> Result<(), WavError> {
        for f in frames {
            for s in f {
                self.writer.write_sample(*s).map_err(|source| WavError {
                    path: self.path.clone(),
                    source,
                })?;
            }
        }
        self.frames += frames.len() as u64;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes the final sizes into the header.
    pub fn finish(self) -> Result<u64, WavError> {
        let path = self.path;
        self.writer
            .finalize()
            .map_err(|source| WavError { path, source })?;
        Ok(self.frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_44100_16_bit_stereo_file() {
        let dir = std::env::temp_dir().join(format!("winterp-audio-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.wav");
        let mut w = WavDump::create(&path).unwrap();
        w.write(&[[1, -1], [i16::MAX, i16::MIN]]).unwrap();
        w.write(&[[3, 4]]).unwrap();
        assert_eq!(w.finish().unwrap(), 3);
        let bytes = std::fs::read(&path).unwrap();
        // RIFF header: 44 bytes, then 3 frames of 4 bytes.
        assert_eq!(bytes.len(), 44 + 12);
        assert_eq!(&bytes[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 36 + 12);
        assert_eq!(&bytes[8..16], b"WAVEfmt ");
        // PCM, 2 channels, 44100 Hz, 176400 bytes/s, block 4, 16 bits.
        assert_eq!(u16::from_le_bytes([bytes[20], bytes[21]]), 1);
        assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 2);
        assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 44100);
        assert_eq!(
            u32::from_le_bytes(bytes[28..32].try_into().unwrap()),
            176400
        );
        assert_eq!(u16::from_le_bytes([bytes[32], bytes[33]]), 4);
        assert_eq!(u16::from_le_bytes([bytes[34], bytes[35]]), 16);
        assert_eq!(&bytes[36..40], b"data");
        assert_eq!(u32::from_le_bytes(bytes[40..44].try_into().unwrap()), 12);
        assert_eq!(
            &bytes[44..],
            &[1, 0, 255, 255, 255, 127, 0, 128, 3, 0, 4, 0]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_path_is_a_readable_error() {
        let e = WavDump::create(Path::new("/nonexistent-dir/x.wav"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("/nonexistent-dir/x.wav"), "{e}");
    }
}
