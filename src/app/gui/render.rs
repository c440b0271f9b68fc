//! The window's GPU side: the wgpu surface, the guest frame as a texture drawn into
//! its scaled viewport, and egui on top, in one render pass.

use std::sync::Arc;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;
use winterp_hostwin32::display::Frame;
use winterp_video::scale::Viewport;

pub struct Gfx {
    pub window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    guest: GuestLayer,
    pub egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    /// "name (backend, device type)" of the adapter, for the debug overlay.
    pub adapter: String,
}

impl Gfx {
    pub fn new(el: &ActiveEventLoop, window: Arc<Window>) -> Result<Gfx, String> {
        // wgpu wants the display connection up front (GLES on Wayland needs it).
        let desc = wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            el.owned_display_handle(),
        ));
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot create a drawing surface: {e}"))?;
        // WGPU_BACKEND (vulkan, gl, ...) from the environment picks the backend; by
        // default wgpu tries them all and takes the first adapter that can draw here,
        // which on a machine without a GPU is Mesa's software Vulkan (lavapipe) or GL.
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| format!("no graphics adapter can draw to this window: {e}"))?;
        let info = adapter.get_info();
        let adapter_name = format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type);
        log::info!(
            "wgpu adapter: {adapter_name}, driver {} {}",
            info.driver,
            info.driver_info
        );
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("winterp"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| format!("cannot open the graphics device: {e}"))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the graphics adapter cannot draw to this window")?;
        let caps = surface.get_capabilities(&adapter);
        // egui blends in gamma space and wants a non-sRGB target; the guest's bytes
        // are already sRGB values, so they too pass through a non-sRGB target unchanged.
        if let Some(f) = caps.formats.iter().find(|f| !f.is_srgb()) {
            config.format = *f;
        }
        config.present_mode = wgpu::PresentMode::AutoVsync;
        surface.configure(&device, &config);
        let guest = GuestLayer::new(&device, config.format);
        let ctx = egui::Context::default();
        let max_texture = device.limits().max_texture_dimension_2d as usize;
        let egui_state = egui_winit::State::new(
            ctx,
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_texture),
        );
        let egui_renderer = egui_wgpu::Renderer::new(
            &device,
            config.format,
            egui_wgpu::RendererOptions::default(),
        );
        Ok(Gfx {
            window,
            surface,
            device,
            queue,
            config,
            guest,
            egui_state,
            egui_renderer,
            adapter: adapter_name,
        })
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        if width > 0 && height > 0 {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(&self.device, &self.config);
        }
    }

    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Uploads `frame` when it is not the one already in the texture.
    pub fn set_guest_frame(&mut self, frame: &Arc<Frame>) {
        self.guest.upload(&self.device, &self.queue, frame);
    }

    /// Draws one window frame: the guest frame into `viewport` (if any), then egui.
    pub fn render(&mut self, viewport: Option<Viewport>, out: egui::FullOutput) {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return;
            }
            other => {
                log::warn!("skipping a frame: {other:?}");
                return;
            }
        };
        let view = texture.texture.create_view(&Default::default());
        let ctx = self.egui_state.egui_ctx().clone();
        let ppp = out.pixels_per_point;
        let jobs = ctx.tessellate(out.shapes, ppp);
        for (id, deltas) in &out.textures_delta.set {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.device, &self.queue, *id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        let extra = self.egui_renderer.update_buffers(
            &self.device,
            &self.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("window"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            // The letterbox colour.
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    ..Default::default()
                })
                // egui_wgpu::Renderer::render takes a RenderPass<'static>.
                .forget_lifetime();
            if let Some(vp) = viewport {
                self.guest
                    .draw(&mut pass, vp, self.config.width, self.config.height);
            }
            self.egui_renderer.render(&mut pass, &jobs, &screen);
        }
        for id in &out.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }
        self.queue
            .submit(extra.into_iter().chain(std::iter::once(encoder.finish())));
        self.window.pre_present_notify();
        self.queue.present(texture);
    }
}

/// The guest frame as a texture and the pipeline that draws it with nearest
/// sampling (crisp pixels, and the exact pixel the input mapping assumes).
struct GuestLayer {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    texture_format: wgpu::TextureFormat,
    /// The texture, its bind group and the frame it holds.
    current: Option<(wgpu::Texture, wgpu::BindGroup, Arc<Frame>)>,
}

impl GuestLayer {
    fn new(device: &wgpu::Device, target: wgpu::TextureFormat) -> GuestLayer {
        // Same sRGB-ness as the target, so the guest's bytes reach the screen unchanged.
        let texture_format = if target.is_srgb() {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        };
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("guest"),
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            ..Default::default()
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("guest"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("guest"),
            source: wgpu::ShaderSource::Wgsl(include_str!("guest.wgsl").into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("guest"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("guest"),
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
                    format: target,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        GuestLayer {
            pipeline,
            layout,
            sampler,
            texture_format,
            current: None,
        }
    }

    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, frame: &Arc<Frame>) {
        if frame.width == 0 || frame.height == 0 {
            return;
        }
        let reuse = match &self.current {
            Some((_, _, held)) if Arc::ptr_eq(held, frame) => return,
            Some((_, _, held)) => held.width == frame.width && held.height == frame.height,
            None => false,
        };
        if !reuse {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("guest frame"),
                size: wgpu::Extent3d {
                    width: frame.width,
                    height: frame.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.texture_format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let view = texture.create_view(&Default::default());
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("guest"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                ],
            });
            self.current = Some((texture, bind_group, frame.clone()));
        }
        let Some((texture, _, held)) = self.current.as_mut() else {
            return;
        };
        *held = frame.clone();
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &frame.to_rgba8(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(frame.width * 4),
                rows_per_image: Some(frame.height),
            },
            wgpu::Extent3d {
                width: frame.width,
                height: frame.height,
                depth_or_array_layers: 1,
            },
        );
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, vp: Viewport, target_w: u32, target_h: u32) {
        let Some((_, bind_group, _)) = &self.current else {
            return;
        };
        // wgpu rejects viewports outside the target; the frame never is, but a resize
        // between layout and drawing could make it so for one frame.
        let r = vp.rect;
        let x = r.x.max(0) as u32;
        let y = r.y.max(0) as u32;
        if x + r.w > target_w || y + r.h > target_h {
            return;
        }
        pass.set_viewport(x as f32, y as f32, r.w as f32, r.h as f32, 0.0, 1.0);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use winterp_video::scale::{self, Rect, ScaleMode};

    const TARGET: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

    fn device() -> (wgpu::Device, wgpu::Queue) {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: None,
            ..Default::default()
        }))
        .expect("these tests need a wgpu adapter; without a GPU install mesa-vulkan-drivers");
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("test"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .expect("request_device")
    }

    /// Draws `frame` into a `w` x `h` target through the presenter's guest layer and
    /// reads the target back as 0x00RRGGBB pixels.
    fn draw(
        dev: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &Arc<Frame>,
        vp: Viewport,
        w: u32,
        h: u32,
    ) -> Vec<u32> {
        let mut layer = GuestLayer::new(dev, TARGET);
        layer.upload(dev, queue, frame);
        let target = dev.create_texture(&wgpu::TextureDescriptor {
            label: Some("target"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: TARGET,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&Default::default());
        let row = (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buf = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: (row * h) as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = dev.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("test"),
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
            layer.draw(&mut pass, vp, w, h);
        }
        enc.copy_texture_to_buffer(
            target.as_image_copy(),
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
        queue.submit([enc.finish()]);
        let slice = buf.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        dev.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        let data = slice.get_mapped_range().expect("mapped range");
        let mut out = Vec::with_capacity((w * h) as usize);
        for r in data.chunks(row as usize) {
            for p in r[..(w * 4) as usize].chunks(4) {
                out.push((p[0] as u32) << 16 | (p[1] as u32) << 8 | p[2] as u32);
            }
        }
        out
    }

    /// Every window pixel shows the guest pixel the input mapping says is under it,
    /// and the letterbox stays black: what the user clicks is what the guest gets.
    #[test]
    fn drawn_pixels_agree_with_the_input_mapping() {
        let (dev, queue) = device();
        // 5x3 guest frame, every pixel a different colour (none black).
        let (gw, gh) = (5u32, 3u32);
        let frame = Arc::new(Frame {
            width: gw,
            height: gh,
            pixels: (0..gw * gh)
                .map(|i| 0x0010_2030 + i * 0x0001_0907)
                .collect(),
        });
        for (mode, w, h) in [
            (ScaleMode::Integer, 17, 11), // 3x with margins
            (ScaleMode::Integer, 5, 3),   // 1x, no margin
            (ScaleMode::Aspect, 23, 19),  // 4.6x, letterbox top and bottom
            (ScaleMode::Aspect, 13, 4),   // fractional, pillarbox
        ] {
            let vp = scale::fit(mode, gw, gh, Rect { x: 0, y: 0, w, h }).unwrap();
            let got = draw(&dev, &queue, &frame, vp, w, h);
            for y in 0..h {
                for x in 0..w {
                    let want = match vp.to_guest(x as f64 + 0.5, y as f64 + 0.5) {
                        Some((gx, gy)) => frame.pixels[(gy as u32 * gw + gx as u32) as usize],
                        None => 0,
                    };
                    assert_eq!(
                        got[(y * w + x) as usize],
                        want,
                        "{mode:?} {w}x{h}, window pixel ({x},{y}), viewport {vp:?}"
                    );
                }
            }
        }
    }
}
