//! The wgpu GL renderer on a real adapter (lavapipe without a GPU): clears,
//! masks, scissor, a flat triangle, depth and read-back orientation. Expected
//! pixels follow from the geometry given, not from the renderer.

use super::*;
use winterp_hostwin32::glrender::{
    BaseFormat, ClearOp, DrawState, EnvMode, Filter, PipelineKey, Sampler, StencilOp, StencilState,
    TexImage, TexUnit, Topology, Vertex, Wrap,
};

fn renderer() -> WgpuGl {
    WgpuGl::new().expect("these tests need a wgpu adapter; install mesa-vulkan-drivers")
}

fn key() -> PipelineKey {
    PipelineKey {
        topology: Topology::Triangles,
        blend: None,
        depth_test: None,
        depth_write: false,
        stencil: None,
        color_mask: [true; 4],
        cull: None,
        front_ccw: true,
        depth_bias: None,
    }
}

fn state(w: i32, h: i32) -> DrawState {
    DrawState {
        pipeline: key(),
        scissor: [0, 0, w, h],
        stencil_ref: 0,
        alpha_test: None,
        units: [None, None],
        fog: None,
    }
}

fn v(x: f32, y: f32, z: f32, color: [f32; 4]) -> Vertex {
    Vertex {
        pos: [x, y, z, 1.0],
        color,
        tex: [[0.0, 0.0, 0.0, 1.0]; 2],
        fog: 0.0,
    }
}

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

#[test]
fn clear_scissor_and_mask() {
    let mut r = renderer();
    r.resize(1, 8, 4);
    r.clear(
        1,
        &ClearOp {
            color: Some(([0.0, 0.0, 1.0, 1.0], [true; 4])),
            depth: Some(1.0),
            stencil: Some((0, 0xff)),
            scissor: None,
        },
    );
    // Red into the bottom-left 2x2 (GL rows count from the bottom), green masked out.
    r.clear(
        1,
        &ClearOp {
            color: Some(([1.0, 1.0, 0.0, 1.0], [true, false, true, true])),
            depth: None,
            stencil: None,
            scissor: Some([0, 0, 2, 2]),
        },
    );
    let px = r.present(1);
    assert_eq!(px.len(), 32);
    // Top-down rows: the bottom-left 2x2 is rows 2..4, columns 0..2.
    assert_eq!(px[0], 0x0000ff);
    assert_eq!(px[2 * 8], 0xff0000, "blue 0 written, green kept 0, red 1");
    assert_eq!(px[3 * 8 + 1], 0xff0000);
    assert_eq!(px[3 * 8 + 2], 0x0000ff);
    // glReadPixels order: bottom row first.
    let rb = r.read_pixels(1, [0, 0, 8, 4]);
    assert_eq!(&rb[0..4], &[255, 0, 0, 255]);
    assert_eq!(&rb[3 * 32..3 * 32 + 4], &[0, 0, 255, 255]);
}

#[test]
fn triangles_and_depth() {
    let mut r = renderer();
    r.resize(7, 4, 4);
    r.clear(
        7,
        &ClearOp {
            color: Some(([0.0; 4], [true; 4])),
            depth: Some(1.0),
            stencil: None,
            scissor: None,
        },
    );
    let mut s = state(4, 4);
    s.pipeline.depth_test = Some(Compare::Less);
    s.pipeline.depth_write = true;
    // A green full-screen quad at depth 0.25, then a red one at 0.75 that fails.
    let quad = |z: f32, c: [f32; 4]| {
        vec![
            v(-1.0, -1.0, z, c),
            v(1.0, -1.0, z, c),
            v(1.0, 1.0, z, c),
            v(-1.0, -1.0, z, c),
            v(1.0, 1.0, z, c),
            v(-1.0, 1.0, z, c),
        ]
    };
    r.draw(7, &s, &quad(0.25, GREEN));
    r.draw(7, &s, &quad(0.75, RED));
    // A red triangle over the left half only: x from -1 to 0 (2 pixels wide).
    s.pipeline.depth_test = None;
    s.pipeline.depth_write = false;
    r.draw(
        7,
        &s,
        &[
            v(-1.0, -1.0, 0.0, RED),
            v(0.0, -1.0, 0.0, RED),
            v(0.0, 1.0, 0.0, RED),
            v(-1.0, -1.0, 0.0, RED),
            v(0.0, 1.0, 0.0, RED),
            v(-1.0, 1.0, 0.0, RED),
        ],
    );
    let px = r.present(7);
    for y in 0..4 {
        assert_eq!(
            &px[y * 4..y * 4 + 4],
            &[0xff0000, 0xff0000, 0x00ff00, 0x00ff00]
        );
    }
}

fn full_quad(z: f32, c: [f32; 4]) -> Vec<Vertex> {
    vec![
        v(-1.0, -1.0, z, c),
        v(1.0, -1.0, z, c),
        v(1.0, 1.0, z, c),
        v(-1.0, -1.0, z, c),
        v(1.0, 1.0, z, c),
        v(-1.0, 1.0, z, c),
    ]
}

#[test]
fn depth_and_stencil_read_back() {
    let mut r = renderer();
    r.resize(3, 4, 4);
    r.clear(
        3,
        &ClearOp {
            color: Some(([0.0; 4], [true; 4])),
            depth: Some(1.0),
            stencil: Some((0, 0xff)),
            scissor: None,
        },
    );
    // The bottom half (GL rows 0 and 1) at depth 0.25 with stencil 5.
    let mut s = state(4, 4);
    s.pipeline.depth_test = Some(Compare::Always);
    s.pipeline.depth_write = true;
    s.pipeline.stencil = Some(StencilState {
        func: Compare::Always,
        read_mask: 0xff,
        write_mask: 0xff,
        fail: StencilOp::Keep,
        depth_fail: StencilOp::Keep,
        pass: StencilOp::Replace,
    });
    s.stencil_ref = 5;
    let half: Vec<Vertex> = full_quad(0.25, GREEN)
        .into_iter()
        .map(|mut x| {
            x.pos[1] = if x.pos[1] > 0.0 { 0.0 } else { -1.0 };
            x
        })
        .collect();
    r.draw(3, &s, &half);
    let d = r.read_depth(3, [0, 0, 4, 4]);
    assert_eq!(d.len(), 16);
    // Bottom row first.
    assert!(d[..8].iter().all(|&z| (z - 0.25).abs() < 1e-6), "{d:?}");
    assert!(d[8..].iter().all(|&z| z == 1.0), "{d:?}");
    // A rectangle from (1, 1): its first row is GL row 1, its second row 2;
    // a column beyond the window reads 0.
    let d = r.read_depth(3, [3, 1, 2, 2]);
    assert!((d[0] - 0.25).abs() < 1e-6 && d[1] == 0.0 && d[2] == 1.0 && d[3] == 0.0);
    let st = r.read_stencil(3, [0, 0, 4, 4]);
    assert_eq!(&st[..8], &[5; 8]);
    assert_eq!(&st[8..], &[0; 8]);
    assert_eq!(r.read_stencil(3, [2, 1, 1, 2]), vec![5, 0]);
}

/// A 4 x 1 window textured with a 2 x 1 red-blue texture across s = 0..1 with
/// linear filtering: pixel centres at s = 1/8 and 7/8 sample a quarter outside
/// the image, which GL_CLAMP fills with the border colour and GL_CLAMP_TO_EDGE
/// with the edge texel.
fn clamp_row(wrap: Wrap) -> Vec<u32> {
    let mut r = renderer();
    r.resize(4, 4, 1);
    r.tex_image(
        (1, 1),
        &TexImage {
            level: 0,
            width: 2,
            height: 1,
            rgba: &[255, 0, 0, 255, 0, 0, 255, 255],
        },
    );
    let mut s = state(4, 1);
    s.units[0] = Some(TexUnit {
        tex: (1, 1),
        format: BaseFormat::Rgba,
        sampler: Sampler {
            mag: Filter::Linear,
            min: Filter::Linear,
            mip: None,
            wrap_s: wrap,
            wrap_t: wrap,
            levels: 1,
        },
        env: EnvMode::Replace,
        env_color: [0.0; 4],
        border: GREEN,
    });
    let q: Vec<Vertex> = full_quad(0.0, RED)
        .into_iter()
        .map(|mut x| {
            x.tex[0] = [(x.pos[0] + 1.0) / 2.0, 0.5, 0.0, 1.0];
            x
        })
        .collect();
    r.draw(4, &s, &q);
    r.present(4)
}

fn near(a: u32, b: u32) -> bool {
    (0..3).all(|k| ((a >> (8 * k)) & 0xff).abs_diff((b >> (8 * k)) & 0xff) <= 2)
}

#[test]
fn gl_clamp_filters_the_border_colour_in() {
    let px = clamp_row(Wrap::Clamp);
    // 3/4 red + 1/4 green; 3/4 blue + 1/4 green.
    assert!(near(px[0], 0xbf4000), "{:06x}", px[0]);
    assert!(near(px[3], 0x0040bf), "{:06x}", px[3]);
    let px = clamp_row(Wrap::ClampToEdge);
    assert!(near(px[0], 0xff0000), "{:06x}", px[0]);
    assert!(near(px[3], 0x0000ff), "{:06x}", px[3]);
}
