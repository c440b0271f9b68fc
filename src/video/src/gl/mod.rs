//! The OpenGL renderer on wgpu: implements hostwin32's renderer contract
//! ([`winterp_hostwin32::glrender::GlRenderer`]). Each drawable (a GL window) is
//! an RGBA8 colour texture and a Depth24PlusStencil8 texture; draws and clears
//! are queued per drawable and run in one render pass when the picture is needed
//! (a swap, a read-back, a copy into a texture, or a texture change that queued
//! draws must not see). The fixed-function fragment stage is `fixed.wgsl`;
//! pipelines are cached by [`PipelineKey`]. Clears are quads drawn with a
//! pipeline that writes the cleared buffers through their masks and the scissor.
//!
//! Headless runs use the same code on Mesa's lavapipe (software Vulkan), so frames
//! are identical from run to run.

use std::collections::HashMap;
use winterp_hostwin32::glrender::{
    BaseFormat, BlendFactor, ClearOp, Compare, Cull, DrawState, EnvMode, Filter, FogMode,
    GlRenderer, PipelineKey, Sampler, StencilOp, StencilState, TexImage, TexKey, Topology, Vertex,
    Wrap,
};

const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;
const VERTEX_BYTES: u64 = 68;
/// Size of one draw's uniforms (`Params` in the shader).
const PARAMS_BYTES: usize = 144;

enum Op {
    Draw {
        state: DrawState,
        first: u32,
        count: u32,
    },
}

struct Drawable {
    color: wgpu::Texture,
    depth: wgpu::Texture,
    width: u32,
    height: u32,
    vertices: Vec<Vertex>,
    ops: Vec<Op>,
}

struct Tex {
    texture: wgpu::Texture,
    width: u32,
    height: u32,
    levels: u32,
}

pub struct WgpuGl {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    drawables: HashMap<u32, Drawable>,
    textures: HashMap<TexKey, Tex>,
    /// Pipelines by key and whether the fragment stage samples a unit by hand
    /// (`fs_border`, see [`sampling_mode`]).
    pipelines: HashMap<(PipelineKey, bool), wgpu::RenderPipeline>,
    samplers: HashMap<Sampler, wgpu::Sampler>,
    params_layout: wgpu::BindGroupLayout,
    tex_layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    white: wgpu::TextureView,
    uniform_align: usize,
    /// The depth read-back pass (`depth_copy.wgsl`) and its bind group layout.
    depth_copy: (wgpu::RenderPipeline, wgpu::BindGroupLayout),
}

impl WgpuGl {
    /// A renderer on the first adapter wgpu finds without a window (lavapipe on a
    /// machine without a GPU).
    pub fn new() -> Result<WgpuGl, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| format!("no graphics adapter for OpenGL rendering: {e}"))?;
        let info = adapter.get_info();
        let name = format!("{} ({:?})", info.name, info.backend);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("winterp gl"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| format!("cannot open the graphics device for OpenGL: {e}"))?;
        Ok(WgpuGl::with_device(device, queue, name))
    }

    pub fn with_device(device: wgpu::Device, queue: wgpu::Queue, adapter: String) -> WgpuGl {
        let params_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("gl params"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(PARAMS_BYTES as u64),
                },
                count: None,
            }],
        });
        let tex_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let samp_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let tex_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("gl textures"),
            entries: &[tex_entry(0), samp_entry(1), tex_entry(2), samp_entry(3)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("gl"),
            bind_group_layouts: &[Some(&params_layout), Some(&tex_layout)],
            immediate_size: 0,
        });
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("gl fixed function"),
            source: wgpu::ShaderSource::Wgsl(include_str!("fixed.wgsl").into()),
        });
        let white_tex = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("gl white"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        queue.write_texture(
            white_tex.as_image_copy(),
            &[255, 255, 255, 255],
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4),
                rows_per_image: Some(1),
            },
            wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
        );
        let white = white_tex.create_view(&Default::default());
        let uniform_align = device.limits().min_uniform_buffer_offset_alignment as usize;
        let depth_copy = make_depth_copy(&device);
        WgpuGl {
            device,
            queue,
            adapter,
            drawables: HashMap::new(),
            textures: HashMap::new(),
            pipelines: HashMap::new(),
            samplers: HashMap::new(),
            params_layout,
            tex_layout,
            pipeline_layout,
            shader,
            white,
            uniform_align: PARAMS_BYTES.next_multiple_of(uniform_align.max(1)),
            depth_copy,
        }
    }

    fn pipeline(&mut self, key: &(PipelineKey, bool)) -> &wgpu::RenderPipeline {
        if !self.pipelines.contains_key(key) {
            let p = make_pipeline(&self.device, &self.pipeline_layout, &self.shader, key);
            self.pipelines.insert(*key, p);
        }
        &self.pipelines[key]
    }

    fn sampler(&mut self, s: &Sampler) -> wgpu::Sampler {
        if let Some(x) = self.samplers.get(s) {
            return x.clone();
        }
        let f = |f: Filter| match f {
            Filter::Nearest => wgpu::FilterMode::Nearest,
            Filter::Linear => wgpu::FilterMode::Linear,
        };
        let w = |w: Wrap| match w {
            Wrap::Repeat => wgpu::AddressMode::Repeat,
            // GL_CLAMP's border is filtered in by the shader (`manual` in
            // fixed.wgsl) whenever it can show; nearest sampling never reaches it.
            Wrap::ClampToEdge | Wrap::Clamp => wgpu::AddressMode::ClampToEdge,
        };
        let x = self.device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("gl"),
            address_mode_u: w(s.wrap_s),
            address_mode_v: w(s.wrap_t),
            mag_filter: f(s.mag),
            min_filter: f(s.min),
            mipmap_filter: match s.mip {
                Some(Filter::Linear) => wgpu::MipmapFilterMode::Linear,
                _ => wgpu::MipmapFilterMode::Nearest,
            },
            lod_min_clamp: 0.0,
            lod_max_clamp: if s.mip.is_some() {
                s.levels.saturating_sub(1) as f32
            } else {
                0.0
            },
            ..Default::default()
        });
        self.samplers.insert(*s, x.clone());
        x
    }

    /// Runs every drawable's queued work.
    fn execute_all(&mut self) {
        let ids: Vec<u32> = self
            .drawables
            .iter()
            .filter(|(_, d)| !d.ops.is_empty())
            .map(|(k, _)| *k)
            .collect();
        for id in ids {
            self.execute(id);
        }
    }

    /// Runs drawable `id`'s queued draws in one render pass.
    fn execute(&mut self, id: u32) {
        let Some(d) = self.drawables.get_mut(&id) else {
            return;
        };
        if d.ops.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut d.ops);
        let vertices = std::mem::take(&mut d.vertices);
        let (w, h) = (d.width, d.height);
        let mut vbytes = Vec::with_capacity(vertices.len() * VERTEX_BYTES as usize);
        for v in &vertices {
            for x in v
                .pos
                .iter()
                .chain(v.color.iter())
                .chain(v.tex[0].iter())
                .chain(v.tex[1].iter())
                .chain(std::iter::once(&v.fog))
            {
                vbytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let vbuf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gl vertices"),
            size: (vbytes.len() as u64).max(VERTEX_BYTES),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&vbuf, 0, &vbytes);
        let mut ubytes = vec![0u8; ops.len().max(1) * self.uniform_align];
        for (k, Op::Draw { state, .. }) in ops.iter().enumerate() {
            let p = params(state);
            ubytes[k * self.uniform_align..k * self.uniform_align + PARAMS_BYTES]
                .copy_from_slice(&p);
        }
        let ubuf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gl params"),
            size: ubytes.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&ubuf, 0, &ubytes);
        let ubind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gl params"),
            layout: &self.params_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &ubuf,
                    offset: 0,
                    size: wgpu::BufferSize::new(PARAMS_BYTES as u64),
                }),
            }],
        });
        // Pipelines and texture bind groups first (they borrow self mutably).
        let mut groups: Vec<wgpu::BindGroup> = Vec::with_capacity(ops.len());
        for Op::Draw { state, .. } in &ops {
            self.pipeline(&pipeline_key(state));
            let mut views: Vec<wgpu::TextureView> = Vec::new();
            let mut samps: Vec<wgpu::Sampler> = Vec::new();
            for u in state.units.iter() {
                match u.and_then(|u| self.textures.get(&u.tex).map(|t| (u, t))) {
                    Some((u, t)) => {
                        views.push(t.texture.create_view(&Default::default()));
                        let s = u.sampler;
                        samps.push(self.sampler(&s));
                    }
                    None => {
                        views.push(self.white.clone());
                        samps.push(self.sampler(&DEFAULT_SAMPLER));
                    }
                }
            }
            groups.push(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gl textures"),
                layout: &self.tex_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&views[0]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&samps[0]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::TextureView(&views[1]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::Sampler(&samps[1]),
                    },
                ],
            }));
        }
        let Some(d) = self.drawables.get(&id) else {
            return;
        };
        let cview = d.color.create_view(&Default::default());
        let dview = d.depth.create_view(&Default::default());
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("gl") });
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("gl"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &cview,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &dview,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    }),
                }),
                ..Default::default()
            });
            pass.set_vertex_buffer(0, vbuf.slice(..));
            for (
                k,
                Op::Draw {
                    state,
                    first,
                    count,
                },
            ) in ops.iter().enumerate()
            {
                let key = &state.pipeline;
                if key.cull == Some(Cull::Both) && key.topology == Topology::Triangles {
                    continue;
                }
                // GL's scissor box counts rows from the bottom.
                let [sx, sy, sw, sh] = state.scissor;
                let x0 = sx.clamp(0, w as i32);
                let x1 = (sx + sw).clamp(0, w as i32);
                let y0 = (h as i32 - (sy + sh)).clamp(0, h as i32);
                let y1 = (h as i32 - sy).clamp(0, h as i32);
                if x1 <= x0 || y1 <= y0 {
                    continue;
                }
                pass.set_scissor_rect(x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32);
                pass.set_pipeline(&self.pipelines[&pipeline_key(state)]);
                pass.set_bind_group(0, &ubind, &[(k * self.uniform_align) as u32]);
                pass.set_bind_group(1, &groups[k], &[]);
                pass.set_stencil_reference(u32::from(state.stencil_ref));
                pass.draw(*first..*first + *count, 0..1);
            }
        }
        self.queue.submit([enc.finish()]);
    }

    /// Reads a rectangle (top-left origin) of a drawable's colour texture as RGBA8
    /// rows, top first.
    fn read_back(&mut self, id: u32, x: u32, y: u32, w: u32, h: u32) -> Vec<u8> {
        self.execute(id);
        let Some(d) = self.drawables.get(&id) else {
            return vec![0; (w * h * 4) as usize];
        };
        self.copy_out(&d.color, wgpu::TextureAspect::All, [x, y, w, h], 4)
    }

    /// Copies a rectangle (top-left origin) of a texture's aspect into memory,
    /// `bpp` bytes a texel, rows top first.
    fn copy_out(
        &self,
        texture: &wgpu::Texture,
        aspect: wgpu::TextureAspect,
        rect: [u32; 4],
        bpp: u32,
    ) -> Vec<u8> {
        let [x, y, w, h] = rect;
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let row = (w * bpp).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gl readback"),
            size: u64::from(row * h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buf,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([enc.finish()]);
        let size = (w * h * bpp) as usize;
        let slice = buf.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::error!("OpenGL read-back: {e}");
            return vec![0; size];
        }
        let mut out = Vec::with_capacity(size);
        match slice.get_mapped_range() {
            Ok(data) => {
                for r in data.chunks(row as usize).take(h as usize) {
                    out.extend_from_slice(&r[..(w * bpp) as usize]);
                }
            }
            Err(e) => {
                log::error!("OpenGL read-back: {e}");
                out.resize(size, 0);
            }
        }
        out
    }

    /// The depth values of a rectangle (top-left origin) of a drawable, rows top
    /// first. A depth aspect of Depth24PlusStencil8 cannot be copied out in wgpu,
    /// so a pass loads it (`depth_copy.wgsl`) into an R32Float target of the
    /// rectangle's size, which is copied.
    fn depth_back(&mut self, id: u32, rect: [u32; 4]) -> Vec<f32> {
        self.execute(id);
        let [x, y, w, h] = rect;
        let Some(d) = self.drawables.get(&id) else {
            return vec![0.0; (w * h) as usize];
        };
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let target = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("gl depth read-back"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let origin = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gl depth read-back origin"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut o = [0u8; 16];
        o[0..4].copy_from_slice(&x.to_le_bytes());
        o[4..8].copy_from_slice(&y.to_le_bytes());
        self.queue.write_buffer(&origin, 0, &o);
        let depth_view = d.depth.create_view(&wgpu::TextureViewDescriptor {
            aspect: wgpu::TextureAspect::DepthOnly,
            ..Default::default()
        });
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("gl depth read-back"),
            layout: &self.depth_copy.1,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&depth_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: origin.as_entire_binding(),
                },
            ],
        });
        let view = target.create_view(&Default::default());
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("gl depth read-back"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&self.depth_copy.0);
            pass.set_bind_group(0, &group, &[]);
            pass.draw(0..3, 0..1);
        }
        self.queue.submit([enc.finish()]);
        self.copy_out(&target, wgpu::TextureAspect::All, [0, 0, w, h], 4)
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    /// Reads a GL rectangle (x, y from the bottom) of drawable `id` with `read`,
    /// which takes a top-left rectangle inside the drawable and returns its texels
    /// top row first; returns the whole rectangle bottom row first, texels outside
    /// the drawable `T::default()`.
    fn read_gl_rect<T: Copy + Default>(
        &mut self,
        id: u32,
        rect: [i32; 4],
        read: impl FnOnce(&mut Self, [u32; 4]) -> Vec<T>,
    ) -> Vec<T> {
        let [x, y, w, h] = rect;
        let (w, h) = (w.max(0) as u32, h.max(0) as u32);
        let mut out = vec![T::default(); (w * h) as usize];
        let Some(d) = self.drawables.get(&id) else {
            return out;
        };
        let (dw, dh) = (d.width as i32, d.height as i32);
        let x0 = x.clamp(0, dw);
        let x1 = (x + w as i32).clamp(0, dw);
        let y0 = y.clamp(0, dh);
        let y1 = (y + h as i32).clamp(0, dh);
        if x1 <= x0 || y1 <= y0 {
            return out;
        }
        let (cw, ch) = ((x1 - x0) as u32, (y1 - y0) as u32);
        let top = (dh - y1) as u32;
        let data = read(self, [x0 as u32, top, cw, ch]);
        if data.len() < (cw * ch) as usize {
            return out;
        }
        for r in 0..ch {
            // Row r of the read (from the top) is GL row y1 - 1 - r.
            let gl_row = (y1 - 1 - r as i32 - y) as u32;
            let dst = (gl_row * w + (x0 - x) as u32) as usize;
            let src = (r * cw) as usize;
            out[dst..dst + cw as usize].copy_from_slice(&data[src..src + cw as usize]);
        }
        out
    }

    fn queue_draw(&mut self, id: u32, state: &DrawState, vertices: &[Vertex]) {
        let Some(d) = self.drawables.get_mut(&id) else {
            return;
        };
        let first = d.vertices.len() as u32;
        d.vertices.extend_from_slice(vertices);
        d.ops.push(Op::Draw {
            state: *state,
            first,
            count: vertices.len() as u32,
        });
    }
}

const DEFAULT_SAMPLER: Sampler = Sampler {
    mag: Filter::Nearest,
    min: Filter::Nearest,
    mip: None,
    wrap_s: Wrap::Repeat,
    wrap_t: Wrap::Repeat,
    levels: 1,
};

fn compare(c: Compare) -> wgpu::CompareFunction {
    match c {
        Compare::Never => wgpu::CompareFunction::Never,
        Compare::Less => wgpu::CompareFunction::Less,
        Compare::Equal => wgpu::CompareFunction::Equal,
        Compare::LessEqual => wgpu::CompareFunction::LessEqual,
        Compare::Greater => wgpu::CompareFunction::Greater,
        Compare::NotEqual => wgpu::CompareFunction::NotEqual,
        Compare::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
        Compare::Always => wgpu::CompareFunction::Always,
    }
}

fn compare_code(c: Compare) -> f32 {
    match c {
        Compare::Never => 0.0,
        Compare::Less => 1.0,
        Compare::Equal => 2.0,
        Compare::LessEqual => 3.0,
        Compare::Greater => 4.0,
        Compare::NotEqual => 5.0,
        Compare::GreaterEqual => 6.0,
        Compare::Always => 7.0,
    }
}

fn blend_factor(f: BlendFactor) -> wgpu::BlendFactor {
    match f {
        BlendFactor::Zero => wgpu::BlendFactor::Zero,
        BlendFactor::One => wgpu::BlendFactor::One,
        BlendFactor::SrcColor => wgpu::BlendFactor::Src,
        BlendFactor::OneMinusSrcColor => wgpu::BlendFactor::OneMinusSrc,
        BlendFactor::DstColor => wgpu::BlendFactor::Dst,
        BlendFactor::OneMinusDstColor => wgpu::BlendFactor::OneMinusDst,
        BlendFactor::SrcAlpha => wgpu::BlendFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => wgpu::BlendFactor::OneMinusSrcAlpha,
        BlendFactor::DstAlpha => wgpu::BlendFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha => wgpu::BlendFactor::OneMinusDstAlpha,
        BlendFactor::SrcAlphaSaturate => wgpu::BlendFactor::SrcAlphaSaturated,
    }
}

fn stencil_op(o: StencilOp) -> wgpu::StencilOperation {
    match o {
        StencilOp::Keep => wgpu::StencilOperation::Keep,
        StencilOp::Zero => wgpu::StencilOperation::Zero,
        StencilOp::Replace => wgpu::StencilOperation::Replace,
        StencilOp::Incr => wgpu::StencilOperation::IncrementClamp,
        StencilOp::Decr => wgpu::StencilOperation::DecrementClamp,
        StencilOp::Invert => wgpu::StencilOperation::Invert,
    }
}

/// A draw's pipeline: its key, and whether a unit is sampled by hand.
fn pipeline_key(state: &DrawState) -> (PipelineKey, bool) {
    (
        state.pipeline,
        state
            .units
            .iter()
            .flatten()
            .any(|u| sampling_mode(&u.sampler) != 0),
    )
}

fn make_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    &(ref key, border): &(PipelineKey, bool),
) -> wgpu::RenderPipeline {
    let stencil = match key.stencil {
        Some(StencilState {
            func,
            read_mask,
            write_mask,
            fail,
            depth_fail,
            pass,
        }) => {
            let face = wgpu::StencilFaceState {
                compare: compare(func),
                fail_op: stencil_op(fail),
                depth_fail_op: stencil_op(depth_fail),
                pass_op: stencil_op(pass),
            };
            wgpu::StencilState {
                front: face,
                back: face,
                read_mask: u32::from(read_mask),
                write_mask: u32::from(write_mask),
            }
        }
        None => wgpu::StencilState::default(),
    };
    let bias = match key.depth_bias {
        Some((factor, units)) => wgpu::DepthBiasState {
            constant: f32::from_bits(units).round() as i32,
            slope_scale: f32::from_bits(factor),
            clamp: 0.0,
        },
        None => wgpu::DepthBiasState::default(),
    };
    let mut writes = wgpu::ColorWrites::empty();
    for (k, w) in [
        wgpu::ColorWrites::RED,
        wgpu::ColorWrites::GREEN,
        wgpu::ColorWrites::BLUE,
        wgpu::ColorWrites::ALPHA,
    ]
    .into_iter()
    .enumerate()
    {
        if key.color_mask[k] {
            writes |= w;
        }
    }
    let attrs = [
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 0,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 16,
            shader_location: 1,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 32,
            shader_location: 2,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 48,
            shader_location: 3,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32,
            offset: 64,
            shader_location: 4,
        },
    ];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("gl"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: VERTEX_BYTES,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attrs,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: match key.topology {
                Topology::Triangles => wgpu::PrimitiveTopology::TriangleList,
                Topology::Lines => wgpu::PrimitiveTopology::LineList,
                Topology::Points => wgpu::PrimitiveTopology::PointList,
            },
            front_face: if key.front_ccw {
                wgpu::FrontFace::Ccw
            } else {
                wgpu::FrontFace::Cw
            },
            cull_mode: match key.cull {
                Some(Cull::Front) => Some(wgpu::Face::Front),
                Some(Cull::Back) => Some(wgpu::Face::Back),
                _ => None,
            },
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(key.depth_write),
            depth_compare: Some(
                key.depth_test
                    .map_or(wgpu::CompareFunction::Always, compare),
            ),
            stencil,
            bias,
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some(if border { "fs_border" } else { "fs_main" }),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: COLOR,
                blend: key.blend.map(|(s, d)| {
                    let c = wgpu::BlendComponent {
                        src_factor: blend_factor(s),
                        dst_factor: blend_factor(d),
                        operation: wgpu::BlendOperation::Add,
                    };
                    wgpu::BlendState { color: c, alpha: c }
                }),
                write_mask: writes,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The pipeline that loads depth into an R32Float target (`depth_copy.wgsl`).
fn make_depth_copy(device: &wgpu::Device) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout) {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("gl depth read-back"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(16),
                },
                count: None,
            },
        ],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("gl depth read-back"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("gl depth read-back"),
        source: wgpu::ShaderSource::Wgsl(include_str!("depth_copy.wgsl").into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("gl depth read-back"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::R32Float,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    });
    (pipeline, layout)
}

/// The uniforms of one draw (`Params` in fixed.wgsl).
fn params(s: &DrawState) -> [u8; PARAMS_BYTES] {
    let mut f = [0f32; 20];
    let (func, r) = s
        .alpha_test
        .map_or((8.0, 0.0), |(c, r)| (compare_code(c), r));
    f[0] = func;
    f[1] = r;
    if let Some(fog) = &s.fog {
        f[4..8].copy_from_slice(&fog.color);
        f[8] = match fog.mode {
            FogMode::Linear => 1.0,
            FogMode::Exp => 2.0,
            FogMode::Exp2 => 3.0,
        };
        f[9] = fog.density;
        f[10] = fog.start;
        f[11] = fog.end;
    }
    let mut units = [0u32; 4];
    for (k, u) in s.units.iter().enumerate() {
        if let Some(u) = u {
            f[12 + 4 * k..16 + 4 * k].copy_from_slice(&u.env_color);
            units[2 * k] = match u.env {
                EnvMode::Modulate => 1,
                EnvMode::Replace => 2,
                EnvMode::Decal => 3,
                EnvMode::Blend => 4,
                EnvMode::Add => 5,
            };
            units[2 * k + 1] = match u.format {
                BaseFormat::Alpha => 0,
                BaseFormat::Luminance => 1,
                BaseFormat::LuminanceAlpha => 2,
                BaseFormat::Intensity => 3,
                BaseFormat::Rgb => 4,
                BaseFormat::Rgba => 5,
            };
        }
    }
    let mut border = [0f32; 8];
    let mut sampling = [0u32; 4];
    for (k, u) in s.units.iter().enumerate() {
        if let Some(u) = u {
            border[4 * k..4 * k + 4].copy_from_slice(&u.border);
            sampling[k] = sampling_mode(&u.sampler);
        }
    }
    let mut out = [0u8; PARAMS_BYTES];
    for (k, v) in f.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    for (k, v) in units.iter().enumerate() {
        out[80 + 4 * k..84 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    for (k, v) in border.iter().enumerate() {
        out[96 + 4 * k..100 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    for (k, v) in sampling.iter().enumerate() {
        out[128 + 4 * k..132 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// How the shader samples a unit (`manual` in fixed.wgsl): 0 for the hardware
/// sampler, else the mode word, for a GL_CLAMP texture with a linear filter (the
/// only case where the border colour can show).
fn sampling_mode(s: &Sampler) -> u32 {
    let clamp = s.wrap_s == Wrap::Clamp || s.wrap_t == Wrap::Clamp;
    if !clamp || (s.mag == Filter::Nearest && s.min == Filter::Nearest) {
        return 0;
    }
    let wrap = |w: Wrap| match w {
        Wrap::Repeat => 0,
        Wrap::ClampToEdge => 1,
        Wrap::Clamp => 2,
    };
    1 | wrap(s.wrap_s) << 1
        | wrap(s.wrap_t) << 3
        | u32::from(s.mag == Filter::Linear) << 5
        | u32::from(s.min == Filter::Linear) << 6
        | match s.mip {
            None => 0,
            Some(Filter::Nearest) => 1 << 7,
            Some(Filter::Linear) => 2 << 7,
        }
        | s.levels.clamp(1, 255) << 16
}

fn mip_count(w: u32, h: u32) -> u32 {
    32 - w.max(h).max(1).leading_zeros()
}

impl GlRenderer for WgpuGl {
    fn name(&self) -> String {
        format!("wgpu: {}", self.adapter)
    }

    fn resize(&mut self, id: u32, width: u32, height: u32) {
        let (width, height) = (width.max(1), height.max(1));
        if self
            .drawables
            .get(&id)
            .is_some_and(|d| d.width == width && d.height == height)
        {
            return;
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let color = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("gl colour"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let depth = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("gl depth"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        self.drawables.insert(
            id,
            Drawable {
                color,
                depth,
                width,
                height,
                vertices: Vec::new(),
                ops: Vec::new(),
            },
        );
    }

    fn clear(&mut self, id: u32, op: &ClearOp) {
        let Some(d) = self.drawables.get(&id) else {
            return;
        };
        let (w, h) = (d.width as i32, d.height as i32);
        let color = op.color.map_or([0.0; 4], |c| c.0);
        let z = op.depth.unwrap_or(0.0);
        let key = PipelineKey {
            topology: Topology::Triangles,
            blend: None,
            depth_test: op.depth.map(|_| Compare::Always),
            depth_write: op.depth.is_some(),
            stencil: op.stencil.map(|(_, mask)| StencilState {
                func: Compare::Always,
                read_mask: 0xff,
                write_mask: mask,
                fail: StencilOp::Replace,
                depth_fail: StencilOp::Replace,
                pass: StencilOp::Replace,
            }),
            color_mask: op.color.map_or([false; 4], |c| c.1),
            cull: None,
            front_ccw: true,
            depth_bias: None,
        };
        let state = DrawState {
            pipeline: key,
            scissor: op.scissor.unwrap_or([0, 0, w, h]),
            stencil_ref: op.stencil.map_or(0, |s| s.0),
            alpha_test: None,
            units: [None, None],
            fog: None,
        };
        let v = |x: f32, y: f32| Vertex {
            pos: [x, y, z, 1.0],
            color,
            tex: [[0.0, 0.0, 0.0, 1.0]; 2],
            fog: 0.0,
        };
        let quad = [
            v(-1.0, -1.0),
            v(1.0, -1.0),
            v(1.0, 1.0),
            v(-1.0, -1.0),
            v(1.0, 1.0),
            v(-1.0, 1.0),
        ];
        self.queue_draw(id, &state, &quad);
    }

    fn draw(&mut self, id: u32, state: &DrawState, vertices: &[Vertex]) {
        self.queue_draw(id, state, vertices);
    }

    fn tex_image(&mut self, tex: TexKey, image: &TexImage) {
        // Queued draws sample what the texture held when they were issued.
        self.execute_all();
        let (w0, h0) = (
            (image.width << image.level).max(1),
            (image.height << image.level).max(1),
        );
        let fits = self
            .textures
            .get(&tex)
            .is_some_and(|t| t.width == w0 && t.height == h0);
        if !fits {
            let levels = mip_count(w0, h0);
            let texture = self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("gl texture"),
                size: wgpu::Extent3d {
                    width: w0,
                    height: h0,
                    depth_or_array_layers: 1,
                },
                mip_level_count: levels,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: COLOR,
                usage: wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            self.textures.insert(
                tex,
                Tex {
                    texture,
                    width: w0,
                    height: h0,
                    levels,
                },
            );
        }
        self.tex_sub_image(tex, image.level, 0, 0, image);
    }

    fn tex_sub_image(&mut self, tex: TexKey, level: u32, x: u32, y: u32, image: &TexImage) {
        self.execute_all();
        let Some(t) = self.textures.get(&tex) else {
            return;
        };
        if level >= t.levels || image.width == 0 || image.height == 0 {
            return;
        }
        self.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &t.texture,
                mip_level: level,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            image.rgba,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(image.width * 4),
                rows_per_image: Some(image.height),
            },
            wgpu::Extent3d {
                width: image.width,
                height: image.height,
                depth_or_array_layers: 1,
            },
        );
    }

    fn delete_texture(&mut self, tex: TexKey) {
        self.execute_all();
        self.textures.remove(&tex);
    }

    fn copy_to_texture(
        &mut self,
        id: u32,
        src: [i32; 4],
        tex: TexKey,
        level: u32,
        dst: (u32, u32),
    ) -> Result<(), String> {
        self.execute_all();
        let (Some(d), Some(t)) = (self.drawables.get(&id), self.textures.get(&tex)) else {
            return Ok(());
        };
        let [x, y, w, h] = src;
        if w <= 0 || h <= 0 {
            return Ok(());
        }
        if x < 0 || y < 0 || x + w > d.width as i32 || y + h > d.height as i32 {
            return Err(format!(
                "a source rectangle outside the window ({x},{y} {w}x{h} of {}x{})",
                d.width, d.height
            ));
        }
        let mut enc = self.device.create_command_encoder(&Default::default());
        // The framebuffer's bottom row becomes the texture's first row: one row at
        // a time, flipped.
        for r in 0..h {
            let src_row = d.height as i32 - 1 - (y + r);
            enc.copy_texture_to_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &d.color,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: x as u32,
                        y: src_row as u32,
                        z: 0,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyTextureInfo {
                    texture: &t.texture,
                    mip_level: level,
                    origin: wgpu::Origin3d {
                        x: dst.0,
                        y: dst.1 + r as u32,
                        z: 0,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::Extent3d {
                    width: w as u32,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            );
        }
        self.queue.submit([enc.finish()]);
        Ok(())
    }

    fn read_pixels(&mut self, id: u32, rect: [i32; 4]) -> Vec<u8> {
        self.read_gl_rect(id, rect, |r, [x, y, w, h]| {
            r.read_back(id, x, y, w, h)
                .chunks_exact(4)
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect()
        })
        .concat()
    }

    fn read_depth(&mut self, id: u32, rect: [i32; 4]) -> Vec<f32> {
        self.read_gl_rect(id, rect, |r, rect| r.depth_back(id, rect))
    }

    fn read_stencil(&mut self, id: u32, rect: [i32; 4]) -> Vec<u8> {
        self.read_gl_rect(id, rect, |r, rect| {
            r.execute(id);
            let Some(d) = r.drawables.get(&id) else {
                return Vec::new();
            };
            // A depth-stencil texture is copied whole (wgpu allows no partial
            // copies of it); the rectangle is cut out here.
            let [x, y, w, h] = rect;
            let all = r.copy_out(
                &d.depth,
                wgpu::TextureAspect::StencilOnly,
                [0, 0, d.width, d.height],
                1,
            );
            let mut out = Vec::with_capacity((w * h) as usize);
            for row in all
                .chunks(d.width.max(1) as usize)
                .skip(y as usize)
                .take(h as usize)
            {
                out.extend_from_slice(&row[x as usize..(x + w) as usize]);
            }
            out
        })
    }

    fn present(&mut self, id: u32) -> Vec<u32> {
        let Some(d) = self.drawables.get(&id) else {
            return Vec::new();
        };
        let (w, h) = (d.width, d.height);
        let data = self.read_back(id, 0, 0, w, h);
        data.chunks_exact(4)
            .map(|p| u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]))
            .collect()
    }

    fn drop_drawable(&mut self, id: u32) {
        self.drawables.remove(&id);
    }
}

#[cfg(test)]
mod tests;
