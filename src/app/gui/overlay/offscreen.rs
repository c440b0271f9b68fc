//! The overlay rendered without a window: egui's pass and tessellation as in the
//! player, drawn by egui-wgpu into a texture on whatever adapter wgpu finds without a
//! display (Mesa's software Vulkan on a machine without a GPU), read back and written
//! as PNG.

use super::Overlay;
use anyhow::{Context, Result, anyhow};
use std::path::Path;
use winterp_hostwin32::display::Frame;

/// The PNG's size in pixels (one pixel per point): room for the whole window.
pub const WIDTH: u32 = 600;
pub const HEIGHT: u32 = 1100;

const TARGET: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Renders `overlay` (shown open, at the window's default place) as a
/// [`WIDTH`] x [`HEIGHT`] frame.
pub fn render(overlay: &mut Overlay) -> Result<Frame> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        compatible_surface: None,
        ..Default::default()
    }))
    .map_err(|e| {
        anyhow!("no graphics adapter to render the overlay ({e}); without a GPU install mesa-vulkan-drivers")
    })?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("overlay"),
        required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
        ..Default::default()
    }))
    .context("cannot open the graphics device")?;
    let (w, h) = (WIDTH, HEIGHT);
    let ctx = egui::Context::default();
    // Windows fade in over several frames otherwise.
    ctx.all_styles_mut(|s| s.animation_time = 0.0);
    let mut renderer =
        egui_wgpu::Renderer::new(&device, TARGET, egui_wgpu::RendererOptions::PREDICTABLE);
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(w as f32, h as f32),
        )),
        ..Default::default()
    };
    let was_open = overlay.open;
    overlay.open = true;
    // A window sizes itself invisibly in its first pass; the font atlas arrives in a
    // texture delta that every later pass builds on.
    let mut out = None;
    for _ in 0..3 {
        let mut o = ctx.run_pass(input(), |c| overlay.show(c));
        for (id, deltas) in &o.textures_delta.set {
            for delta in deltas {
                renderer.update_texture(&device, &queue, *id, delta);
            }
        }
        o.textures_delta.set.clear();
        out = Some(o);
    }
    overlay.open = was_open;
    let out = out.ok_or_else(|| anyhow!("egui ran no pass"))?;
    let jobs = ctx.tessellate(out.shapes, out.pixels_per_point);
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [w, h],
        pixels_per_point: out.pixels_per_point,
    };
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("overlay"),
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
    let mut enc = device.create_command_encoder(&Default::default());
    let extra = renderer.update_buffers(&device, &queue, &mut enc, &jobs, &screen);
    {
        let mut pass = enc
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
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
            })
            .forget_lifetime();
        renderer.render(&mut pass, &jobs, &screen);
    }
    let row =
        (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("overlay readback"),
        size: u64::from(row) * u64::from(h),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
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
    queue.submit(extra.into_iter().chain(std::iter::once(enc.finish())));
    let slice = buf.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| anyhow!("the overlay render did not finish: {e}"))?;
    rx.recv()
        .context("the overlay readback was dropped")?
        .map_err(|e| anyhow!("cannot read the overlay back: {e}"))?;
    let data = slice
        .get_mapped_range()
        .map_err(|e| anyhow!("cannot read the overlay back: {e:?}"))?;
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for r in data.chunks(row as usize) {
        for p in r[..(w * 4) as usize].chunks(4) {
            pixels.push(u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]));
        }
    }
    Ok(Frame {
        width: w,
        height: h,
        pixels,
    })
}

/// Renders `overlay` and writes it to `path` as PNG.
pub fn write_png(overlay: &mut Overlay, path: &Path) -> Result<()> {
    let frame = render(overlay)?;
    winterp_video::png_file::write(path, &frame)
        .with_context(|| format!("cannot write {}", path.display()))
}
