//! winterp-video: guest frames to the screen (scaling, the window-to-guest mapping,
//! the wgpu presenter) and to PNG files (screenshots, golden frames).

pub mod gl;
pub mod png_file;
pub mod scale;
