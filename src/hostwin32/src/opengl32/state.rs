//! A GL context's state (everything glGet* answers) and the device side shared by
//! a process's contexts: share groups (texture objects and display lists), the
//! renderer and the counters.

use super::consts::*;
use super::matrix::Stack;
use crate::glrender::{self, BaseFormat, Filter, GlRenderer, Vertex, Wrap};
use std::collections::HashMap;
use std::sync::Arc;

pub const MAX_MODELVIEW_DEPTH: usize = 32;
pub const MAX_PROJECTION_DEPTH: usize = 4;
pub const MAX_TEXTURE_DEPTH: usize = 10;
pub const MAX_TEXTURE_SIZE: u32 = 2048;
pub const MAX_LIST_NESTING: u32 = 64;
pub const UNITS: usize = 2;

/// The capabilities glEnable/glDisable switch that change what is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enables {
    pub depth_test: bool,
    pub blend: bool,
    pub alpha_test: bool,
    pub cull_face: bool,
    pub fog: bool,
    pub stencil_test: bool,
    pub scissor_test: bool,
    pub polygon_offset_fill: bool,
    pub dither: bool,
    pub normalize: bool,
    pub color_material: bool,
    pub lighting: bool,
    pub lights: [bool; 8],
    pub texture_2d: [bool; UNITS],
}

impl Default for Enables {
    fn default() -> Self {
        Enables {
            depth_test: false,
            blend: false,
            alpha_test: false,
            cull_face: false,
            fog: false,
            stencil_test: false,
            scissor_test: false,
            polygon_offset_fill: false,
            // GL_DITHER is the one capability on at start.
            dither: true,
            normalize: false,
            color_material: false,
            lighting: false,
            lights: [false; 8],
            texture_2d: [false; UNITS],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexEnv {
    pub mode: u32,
    pub color: [f32; 4],
}

/// The server state of a context (the GL state machine of GL 1.1, with two
/// texture units for GL_ARB_multitexture).
#[derive(Clone, Debug)]
pub struct State {
    pub error: u32,
    pub matrix_mode: u32,
    pub modelview: Stack,
    pub projection: Stack,
    pub texture: [Stack; UNITS],
    pub viewport: [i32; 4],
    pub depth_range: [f64; 2],
    pub scissor: [i32; 4],
    pub clear_color: [f32; 4],
    pub clear_depth: f64,
    pub clear_stencil: i32,
    pub color: [f32; 4],
    pub texcoord: [[f32; 4]; UNITS],
    pub normal: [f32; 3],
    pub en: Enables,
    pub blend: (u32, u32),
    pub alpha_func: (u32, f32),
    pub depth_func: u32,
    pub depth_mask: bool,
    pub color_mask: [bool; 4],
    pub stencil_func: (u32, i32, u32),
    pub stencil_op: (u32, u32, u32),
    pub stencil_writemask: u32,
    pub cull_face: u32,
    pub front_face: u32,
    pub shade_model: u32,
    pub polygon_offset: (f32, f32),
    pub polygon_mode: (u32, u32),
    pub fog_mode: u32,
    pub fog_density: f32,
    pub fog_start: f32,
    pub fog_end: f32,
    pub fog_color: [f32; 4],
    pub env: [TexEnv; UNITS],
    pub active_unit: usize,
    pub client_unit: usize,
    /// Texture bound to GL_TEXTURE_2D on each unit.
    pub bound: [u32; UNITS],
    pub point_size: f32,
    pub line_width: f32,
    pub hints: [u32; 5],
    pub unpack: PixelStore,
    pub pack: PixelStore,
    pub list_base: u32,
    pub draw_buffer: u32,
    pub read_buffer: u32,
    /// Lights, materials, the light model, glColorMaterial.
    pub lighting: super::light::Lighting,
}

/// glPixelStore parameters of one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelStore {
    pub alignment: u32,
    pub row_length: u32,
    pub skip_rows: u32,
    pub skip_pixels: u32,
    pub swap_bytes: bool,
    pub lsb_first: bool,
}

impl Default for PixelStore {
    fn default() -> Self {
        PixelStore {
            alignment: 4,
            row_length: 0,
            skip_rows: 0,
            skip_pixels: 0,
            swap_bytes: false,
            lsb_first: false,
        }
    }
}

impl State {
    pub fn new(double_buffered: bool) -> State {
        let buffer = if double_buffered { GL_BACK } else { GL_FRONT };
        State {
            error: GL_NO_ERROR,
            matrix_mode: GL_MODELVIEW,
            modelview: Stack::new(MAX_MODELVIEW_DEPTH),
            projection: Stack::new(MAX_PROJECTION_DEPTH),
            texture: [Stack::new(MAX_TEXTURE_DEPTH), Stack::new(MAX_TEXTURE_DEPTH)],
            viewport: [0; 4],
            depth_range: [0.0, 1.0],
            scissor: [0; 4],
            clear_color: [0.0; 4],
            clear_depth: 1.0,
            clear_stencil: 0,
            color: [1.0; 4],
            texcoord: [[0.0, 0.0, 0.0, 1.0]; UNITS],
            normal: [0.0, 0.0, 1.0],
            en: Enables::default(),
            blend: (GL_ONE, GL_ZERO),
            alpha_func: (GL_ALWAYS, 0.0),
            depth_func: GL_LESS,
            depth_mask: true,
            color_mask: [true; 4],
            stencil_func: (GL_ALWAYS, 0, u32::MAX),
            stencil_op: (GL_KEEP, GL_KEEP, GL_KEEP),
            stencil_writemask: u32::MAX,
            cull_face: GL_BACK,
            front_face: GL_CCW,
            shade_model: GL_SMOOTH,
            polygon_offset: (0.0, 0.0),
            polygon_mode: (GL_FILL, GL_FILL),
            fog_mode: GL_EXP,
            fog_density: 1.0,
            fog_start: 0.0,
            fog_end: 1.0,
            fog_color: [0.0; 4],
            env: [TexEnv {
                mode: GL_MODULATE,
                color: [0.0; 4],
            }; UNITS],
            active_unit: 0,
            client_unit: 0,
            bound: [0; UNITS],
            point_size: 1.0,
            line_width: 1.0,
            hints: [GL_DONT_CARE; 5],
            unpack: PixelStore::default(),
            pack: PixelStore::default(),
            list_base: 0,
            draw_buffer: buffer,
            read_buffer: buffer,
            lighting: Default::default(),
        }
    }

    /// Records the first error since the last glGetError (later ones are dropped).
    pub fn error(&mut self, e: u32) {
        if self.error == GL_NO_ERROR {
            self.error = e;
        }
    }

    pub fn stack_mut(&mut self) -> &mut Stack {
        match self.matrix_mode {
            GL_PROJECTION => &mut self.projection,
            GL_TEXTURE => &mut self.texture[self.active_unit],
            _ => &mut self.modelview,
        }
    }
}

/// A texture object.
#[derive(Clone, Debug)]
pub struct TexObj {
    /// (width, height) of each defined level.
    pub levels: Vec<Option<(u32, u32)>>,
    pub format: BaseFormat,
    pub internal: u32,
    pub min_filter: u32,
    pub mag_filter: u32,
    pub wrap_s: u32,
    pub wrap_t: u32,
    pub priority: f32,
    pub border_color: [f32; 4],
}

impl Default for TexObj {
    fn default() -> Self {
        TexObj {
            levels: Vec::new(),
            format: BaseFormat::Rgba,
            internal: 1,
            min_filter: GL_NEAREST_MIPMAP_LINEAR,
            mag_filter: GL_LINEAR,
            wrap_s: GL_REPEAT,
            wrap_t: GL_REPEAT,
            priority: 1.0,
            border_color: [0.0; 4],
        }
    }
}

impl TexObj {
    pub fn mipmapped(&self) -> bool {
        !matches!(self.min_filter, GL_NEAREST | GL_LINEAR)
    }

    /// The sampler, or None when the texture is incomplete (GL then draws as if
    /// texturing were off on that unit): level 0 missing, or a mipmap filter with
    /// a level of the chain down to 1x1 missing or of the wrong size.
    pub fn sampler(&self) -> Option<glrender::Sampler> {
        let (w, h) = (*self.levels.first()?)?;
        if w == 0 || h == 0 {
            return None;
        }
        let mut levels = 1;
        if self.mipmapped() {
            let (mut lw, mut lh) = (w, h);
            let mut k = 0;
            while lw > 1 || lh > 1 {
                lw = (lw / 2).max(1);
                lh = (lh / 2).max(1);
                k += 1;
                if self.levels.get(k).copied().flatten() != Some((lw, lh)) {
                    return None;
                }
            }
            levels = k as u32 + 1;
        }
        let f = |v: u32| {
            if matches!(
                v,
                GL_NEAREST | GL_NEAREST_MIPMAP_NEAREST | GL_NEAREST_MIPMAP_LINEAR
            ) {
                Filter::Nearest
            } else {
                Filter::Linear
            }
        };
        let wrap = |v: u32| match v {
            GL_REPEAT => Wrap::Repeat,
            GL_CLAMP => Wrap::Clamp,
            _ => Wrap::ClampToEdge,
        };
        Some(glrender::Sampler {
            mag: f(self.mag_filter),
            min: f(self.min_filter),
            mip: match self.min_filter {
                GL_NEAREST_MIPMAP_NEAREST | GL_LINEAR_MIPMAP_NEAREST => Some(Filter::Nearest),
                GL_NEAREST_MIPMAP_LINEAR | GL_LINEAR_MIPMAP_LINEAR => Some(Filter::Linear),
                _ => None,
            },
            wrap_s: wrap(self.wrap_s),
            wrap_t: wrap(self.wrap_t),
            levels,
        })
    }
}

/// Objects shared between contexts joined by wglShareLists.
#[derive(Default)]
pub struct ShareGroup {
    pub textures: HashMap<u32, TexObj>,
    pub lists: HashMap<u32, Arc<Vec<super::cmd::Cmd>>>,
    pub next_texture: u32,
    /// Names handed out by glGenLists or used by glNewList, and not deleted.
    pub list_names: std::collections::BTreeSet<u32>,
    /// Contexts in the group (it goes when the last one is deleted).
    pub members: u32,
}

/// Per-frame GL counters for the overlay (see [`super::counters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub draw_calls: u64,
    pub vertices: u64,
    pub texture_uploads: u64,
    pub texture_bytes: u64,
    pub state_changes: u64,
    pub frames: u64,
}

/// What a process's contexts share: the renderer and the share groups.
#[derive(Default)]
pub struct Device {
    pub renderer: Option<Box<dyn GlRenderer>>,
    /// Why there is no renderer, once making one failed.
    pub renderer_error: Option<String>,
    pub groups: HashMap<u32, ShareGroup>,
    pub next_group: u32,
    /// This frame's counters, and the last finished frame's.
    pub counting: Counters,
    pub last_frame: Counters,
}

/// A batch of vertices with one draw state, not yet handed to the renderer.
pub struct Batch {
    pub state: glrender::DrawState,
    pub vertices: Vec<Vertex>,
}

/// The current texture object of unit `u` in the share group.
pub fn bound_texture(groups: &mut HashMap<u32, ShareGroup>, share: u32, name: u32) -> &mut TexObj {
    groups
        .entry(share)
        .or_default()
        .textures
        .entry(name)
        .or_default()
}
