//! The OpenGL renderer contract, at the display layer: what OPENGL32 (which keeps
//! the whole GL state and does per-vertex work on the CPU) hands to the machine's
//! graphics device, in plain data. The app installs an implementation (wgpu, in
//! `winterp-video`'s `gl` module) with [`install`]; hostwin32 never talks to a
//! graphics API itself.
//!
//! Coordinates: vertices arrive in the drawable's clip space (the GL viewport and
//! depth range already applied by OPENGL32, so the renderer's viewport is always the
//! whole drawable and its depth range 0..1, with clip z in 0..w), rows of drawables
//! and read-backs are top-down, texture images are tightly packed RGBA8 rows from
//! the image's first row (GL's t = 0).

use crate::process::Process;
use std::sync::Mutex;

/// A texture object's name in the renderer: the share group and the GL name.
pub type TexKey = (u32, u32);

/// Which primitives a batch draws (GL's other primitive types are broken into these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    Triangles,
    Lines,
    Points,
}

/// glBlendFunc factors of GL 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    SrcAlphaSaturate,
}

/// Depth, stencil and alpha comparison functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

/// glStencilOp operations of GL 1.1 (plus the wrapping ones of EXT_stencil_wrap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    Incr,
    Decr,
    Invert,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilState {
    pub func: Compare,
    pub read_mask: u8,
    pub write_mask: u8,
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cull {
    Front,
    Back,
    /// GL_FRONT_AND_BACK: every polygon (points and lines still draw).
    Both,
}

/// What selects a pipeline: everything fixed at pipeline creation in a modern API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    pub topology: Topology,
    /// (source, destination), or None when blending is off.
    pub blend: Option<(BlendFactor, BlendFactor)>,
    /// The depth test's function, or None when the depth test is off (GL then
    /// neither tests nor writes depth).
    pub depth_test: Option<Compare>,
    pub depth_write: bool,
    pub stencil: Option<StencilState>,
    /// R, G, B, A.
    pub color_mask: [bool; 4],
    pub cull: Option<Cull>,
    /// glFrontFace(GL_CCW).
    pub front_ccw: bool,
    /// glPolygonOffset (factor, units) as f32 bits, when GL_POLYGON_OFFSET_FILL is on.
    pub depth_bias: Option<(u32, u32)>,
}

/// glTexEnv modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnvMode {
    Modulate,
    Replace,
    Decal,
    Blend,
    /// GL_EXT_texture_env_add.
    Add,
}

/// The base internal format of a texture, which decides what the env modes do with
/// its components (GL 1.1 table 3.19).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseFormat {
    Alpha,
    Luminance,
    LuminanceAlpha,
    Intensity,
    Rgb,
    Rgba,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Nearest,
    Linear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// GL_REPEAT.
    Repeat,
    /// GL_CLAMP_TO_EDGE: the coordinate is clamped so that filtering never
    /// reaches past the edge texels.
    ClampToEdge,
    /// GL_CLAMP (GL 1.1 section 3.8.1): the coordinate is clamped to [0, 1], so
    /// linear filtering at the edge takes half of its sample from the texture's
    /// border colour (the texture has no border texels; [`TexUnit::border`]).
    Clamp,
}

/// A texture object's sampling parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampler {
    pub mag: Filter,
    pub min: Filter,
    /// The filter between mipmap levels, or None for a min filter without mipmaps.
    pub mip: Option<Filter>,
    pub wrap_s: Wrap,
    pub wrap_t: Wrap,
    /// Levels the renderer may sample (0..levels), when mipmapping.
    pub levels: u32,
}

/// One texture unit as a draw uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexUnit {
    pub tex: TexKey,
    pub format: BaseFormat,
    pub sampler: Sampler,
    pub env: EnvMode,
    pub env_color: [f32; 4],
    /// GL_TEXTURE_BORDER_COLOR, which [`Wrap::Clamp`] filters in at the edges.
    pub border: [f32; 4],
}

/// Everything a draw needs besides its vertices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawState {
    pub pipeline: PipelineKey,
    /// The scissor rectangle in window coordinates (x, y from the bottom, w, h),
    /// already intersected with the viewport.
    pub scissor: [i32; 4],
    pub stencil_ref: u8,
    /// GL_ALPHA_TEST's function and reference, or None when off.
    pub alpha_test: Option<(Compare, f32)>,
    pub units: [Option<TexUnit>; 2],
    /// GL_FOG when on (the per-vertex distance is in [`Vertex::fog`]).
    pub fog: Option<Fog>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FogMode {
    Linear,
    Exp,
    Exp2,
}

/// Fog as the fragment stage applies it: the factor from the interpolated
/// eye distance, then `color = f * fragment + (1 - f) * fog colour` on RGB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    pub mode: FogMode,
    pub color: [f32; 4],
    pub density: f32,
    pub start: f32,
    pub end: f32,
}

/// A vertex after OPENGL32's transform, lighting and texture-matrix work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Vertex {
    /// Clip coordinates of the whole drawable (see the module notes).
    pub pos: [f32; 4],
    /// RGBA in 0..1.
    pub color: [f32; 4],
    /// s, t, r, q of texture units 0 and 1.
    pub tex: [[f32; 4]; 2],
    /// The eye-space distance fog is computed from (|z| in eye coordinates).
    pub fog: f32,
}

/// glClear: which buffers, with what, within which rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClearOp {
    /// The colour, and the colour mask (R, G, B, A).
    pub color: Option<([f32; 4], [bool; 4])>,
    pub depth: Option<f32>,
    /// The value, and the stencil write mask.
    pub stencil: Option<(u8, u8)>,
    /// The scissor rectangle when GL_SCISSOR_TEST is on (x, y from the bottom, w, h).
    pub scissor: Option<[i32; 4]>,
}

/// One mip level of a texture image.
pub struct TexImage<'a> {
    pub level: u32,
    pub width: u32,
    pub height: u32,
    /// `width * height` RGBA8 texels.
    pub rgba: &'a [u8],
}

/// The graphics device behind OPENGL32. One per process; drawables are windows
/// (keyed by HWND), textures are keyed by share group and name.
pub trait GlRenderer: Send {
    /// A short name of the device for logs and the overlay ("wgpu: llvmpipe ...").
    fn name(&self) -> String;
    /// Makes sure drawable `id` exists with this size (contents are undefined after
    /// a size change, as a resized GL window's are).
    fn resize(&mut self, id: u32, width: u32, height: u32);
    fn clear(&mut self, id: u32, op: &ClearOp);
    fn draw(&mut self, id: u32, state: &DrawState, vertices: &[Vertex]);
    /// Defines `level` of texture `tex` (level 0 decides the size of the rest; a new
    /// size of level 0 drops the other levels).
    fn tex_image(&mut self, tex: TexKey, image: &TexImage);
    /// Replaces a rectangle of a level that was defined before.
    fn tex_sub_image(&mut self, tex: TexKey, level: u32, x: u32, y: u32, image: &TexImage);
    fn delete_texture(&mut self, tex: TexKey);
    /// Copies a rectangle of the drawable's colour buffer (x, y from the bottom)
    /// into a texture level at (x_dst, y_dst): glCopyTex(Sub)Image2D.
    fn copy_to_texture(
        &mut self,
        id: u32,
        src: [i32; 4],
        tex: TexKey,
        level: u32,
        dst: (u32, u32),
    ) -> Result<(), String>;
    /// Reads a rectangle of the colour buffer (x, y from the bottom, w, h) as RGBA8
    /// rows, bottom row first (GL's order).
    fn read_pixels(&mut self, id: u32, rect: [i32; 4]) -> Vec<u8>;
    /// Reads a rectangle of the depth buffer as depth values in 0..1, bottom row
    /// first (glReadPixels of GL_DEPTH_COMPONENT); outside the window reads 0.
    fn read_depth(&mut self, id: u32, rect: [i32; 4]) -> Vec<f32>;
    /// Reads a rectangle of the stencil buffer, bottom row first (glReadPixels
    /// of GL_STENCIL_INDEX); outside the window reads 0.
    fn read_stencil(&mut self, id: u32, rect: [i32; 4]) -> Vec<u8>;
    /// Finishes the drawable's pending work and returns its colour buffer as
    /// 0x00RRGGBB pixels, top row first (SwapBuffers).
    fn present(&mut self, id: u32) -> Vec<u32>;
    /// Forgets a drawable (its window went away).
    fn drop_drawable(&mut self, id: u32);
}

/// Makes a renderer when a program first creates a GL context.
pub type Factory = Box<dyn Fn() -> Result<Box<dyn GlRenderer>, String> + Send + Sync>;

#[derive(Default)]
struct Slot {
    factory: Mutex<Option<Factory>>,
}

/// The app's renderer maker for this process (the player and the headless runner
/// install the wgpu one).
pub fn install(proc: &Process, factory: Factory) {
    *proc
        .slot::<Slot>()
        .factory
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(factory);
}

/// A new renderer, or why there is none (no factory installed, or the device failed).
pub fn create(proc: &Process) -> Result<Box<dyn GlRenderer>, String> {
    let slot = proc.slot::<Slot>();
    let f = slot.factory.lock().unwrap_or_else(|e| e.into_inner());
    match f.as_ref() {
        Some(f) => f(),
        None => Err("this host has no OpenGL renderer".into()),
    }
}
