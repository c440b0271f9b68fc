//! Guest frames as PNG files: screenshots (F12, `--screenshot`) and golden frames.

use std::path::Path;
use winterp_hostwin32::display::Frame;

#[derive(Debug, thiserror::Error)]
pub enum PngError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot encode {path}: {source}")]
    Encode {
        path: String,
        source: png::EncodingError,
    },
    #[error("cannot decode {path}: {source}")]
    Decode {
        path: String,
        source: png::DecodingError,
    },
    #[error("{path} is not an 8-bit RGB or RGBA image")]
    Format { path: String },
}

/// Encodes `frame` as an 8-bit RGB PNG (the guest has no alpha).
pub fn encode(frame: &Frame) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, frame.width, frame.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header()?;
        let mut rgb = Vec::with_capacity(frame.pixels.len() * 3);
        for &p in &frame.pixels {
            rgb.extend_from_slice(&[(p >> 16) as u8, (p >> 8) as u8, p as u8]);
        }
        w.write_image_data(&rgb)?;
    }
    Ok(out)
}

pub fn write(path: &Path, frame: &Frame) -> Result<(), PngError> {
    let p = path.display().to_string();
    let bytes = encode(frame).map_err(|source| PngError::Encode {
        path: p.clone(),
        source,
    })?;
    std::fs::write(path, bytes).map_err(|source| PngError::Io { path: p, source })
}

/// Reads an RGB, RGBA or palette PNG into a frame (alpha is dropped).
pub fn read(path: &Path) -> Result<Frame, PngError> {
    let p = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| PngError::Io {
        path: p.clone(),
        source,
    })?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    // Palette and 16-bit images (other tools' screenshots) become 8-bit RGB(A).
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|source| PngError::Decode {
        path: p.clone(),
        source,
    })?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| PngError::Format { path: p.clone() })?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|source| PngError::Decode {
            path: p.clone(),
            source,
        })?;
    let channels = match (info.color_type, info.bit_depth) {
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        _ => return Err(PngError::Format { path: p }),
    };
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32)
        .collect();
    Ok(Frame {
        width: info.width,
        height: info.height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_a_round_trip() {
        let frame = Frame {
            width: 3,
            height: 2,
            pixels: vec![
                0x00ff_0000,
                0x0000_ff00,
                0x0000_00ff,
                0x0012_3456,
                0,
                0x00ff_ffff,
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.png");
        write(&path, &frame).unwrap();
        assert_eq!(read(&path).unwrap(), frame);
    }
}
