//! The wgpu GL renderer on a real adapter (lavapipe without a GPU): clears,
//! masks, scissor, a flat triangle, depth and read-back orientation. Expected
//! pixels follow from the geometry given, not from the renderer.

use super::*;
use winterp_hostwin32::glrender::{ClearOp, DrawState, PipelineKey, Topology, Vertex};

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
