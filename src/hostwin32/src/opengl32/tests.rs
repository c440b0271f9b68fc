//! OPENGL32 unit tests: the export ABI against the system export table, and the
//! GL state machine driven through the exports with a recording renderer.

use crate::hle::ExportKind;
use crate::sysexports::{self, Kind};

/// Every OPENGL32 and GLU32 function pops exactly the bytes Windows' does (the
/// `ext::` functions come from wglGetProcAddress and are stdcall too).
#[test]
fn exports_match_the_system_table() {
    for (dll, defs) in [
        ("opengl32", super::api::exports()),
        ("glu32", (crate::glu32::DLL.exports)()),
    ] {
        for d in defs {
            let ExportKind::Function { nargs, .. } = d.kind else {
                continue;
            };
            if d.name.starts_with("ext::") {
                continue;
            }
            let e = sysexports::lookup(dll, d.name)
                .unwrap_or_else(|| panic!("{dll}!{} is not in the table", d.name));
            match e.kind {
                Kind::Stdcall(bytes) => {
                    assert_eq!(u16::from(nargs) * 4, bytes, "{dll}!{}", d.name)
                }
                k => panic!("{dll}!{} is {k:?}", d.name),
            }
        }
    }
}

use super::cmd::{Cmd, exec};
use super::consts::*;
use super::state::Device;
use super::{Context, Drawable};
use crate::gdi32::pixelformat::FORMATS;
use crate::glrender::{ClearOp, DrawState, GlRenderer, TexImage, TexKey, Topology, Vertex};
use std::sync::{Arc, Mutex};

/// What a recording renderer was given.
#[derive(Default)]
struct Log {
    draws: Vec<(DrawState, Vec<Vertex>)>,
    clears: Vec<ClearOp>,
    images: Vec<(TexKey, u32, u32, u32, Vec<u8>)>,
}

struct Recorder(Arc<Mutex<Log>>);

impl GlRenderer for Recorder {
    fn name(&self) -> String {
        "recorder".into()
    }
    fn resize(&mut self, _: u32, _: u32, _: u32) {}
    fn clear(&mut self, _: u32, op: &ClearOp) {
        self.0.lock().unwrap().clears.push(*op);
    }
    fn draw(&mut self, _: u32, state: &DrawState, v: &[Vertex]) {
        self.0.lock().unwrap().draws.push((*state, v.to_vec()));
    }
    fn tex_image(&mut self, tex: TexKey, i: &TexImage) {
        let mut l = self.0.lock().unwrap();
        l.images
            .push((tex, i.level, i.width, i.height, i.rgba.to_vec()));
    }
    fn tex_sub_image(&mut self, _: TexKey, _: u32, _: u32, _: u32, _: &TexImage) {}
    fn delete_texture(&mut self, _: TexKey) {}
    fn copy_to_texture(
        &mut self,
        _: u32,
        _: [i32; 4],
        _: TexKey,
        _: u32,
        _: (u32, u32),
    ) -> Result<(), String> {
        Ok(())
    }
    fn read_pixels(&mut self, _: u32, _: [i32; 4]) -> Vec<u8> {
        Vec::new()
    }
    fn read_depth(&mut self, _: u32, _: [i32; 4]) -> Vec<f32> {
        Vec::new()
    }
    fn read_stencil(&mut self, _: u32, _: [i32; 4]) -> Vec<u8> {
        Vec::new()
    }
    fn present(&mut self, _: u32) -> Vec<u32> {
        Vec::new()
    }
    fn drop_drawable(&mut self, _: u32) {}
}

/// A current-like context on a 100 x 50 window with a recording renderer.
fn setup() -> (Context, Device, Arc<Mutex<Log>>) {
    let log = Arc::new(Mutex::new(Log::default()));
    let dev = Device {
        renderer: Some(Box::new(Recorder(log.clone()))),
        ..Device::default()
    };
    let mut c = Context::new(1, FORMATS[0]);
    c.drawable = Some(Drawable {
        hwnd: 7,
        width: 100,
        height: 50,
    });
    c.s.viewport = [0, 0, 100, 50];
    c.s.scissor = [0, 0, 100, 50];
    (c, dev, log)
}

fn run(c: &mut Context, dev: &mut Device, cmds: &[Cmd]) {
    for k in cmds {
        exec(c, dev, k).unwrap();
    }
    super::cmd::flush(c, dev);
}

fn quad() -> Vec<Cmd> {
    vec![
        Cmd::Begin(GL_QUADS),
        Cmd::Color([1.0, 0.0, 0.0, 1.0]),
        Cmd::Vertex([-1.0, -1.0, 0.0, 1.0]),
        Cmd::Color([0.0, 1.0, 0.0, 1.0]),
        Cmd::Vertex([1.0, -1.0, 0.0, 1.0]),
        Cmd::Color([0.0, 0.0, 1.0, 1.0]),
        Cmd::Vertex([1.0, 1.0, 0.0, 1.0]),
        Cmd::Color([1.0, 1.0, 1.0, 1.0]),
        Cmd::Vertex([-1.0, 1.0, 0.0, 1.0]),
        Cmd::End,
    ]
}

#[test]
fn a_flat_quad_is_two_triangles_in_the_last_vertex_colour() {
    let (mut c, mut dev, log) = setup();
    let mut cmds = vec![Cmd::ShadeModel(GL_FLAT)];
    cmds.extend(quad());
    run(&mut c, &mut dev, &cmds);
    let l = log.lock().unwrap();
    assert_eq!(l.draws.len(), 1);
    let (st, v) = &l.draws[0];
    assert_eq!(st.pipeline.topology, Topology::Triangles);
    assert_eq!(v.len(), 6);
    // GL_QUADS: the fourth vertex provokes the colour.
    assert!(v.iter().all(|x| x.color == [1.0, 1.0, 1.0, 1.0]));
    // (0,1,2) then (0,2,3).
    assert_eq!(v[1].pos, [1.0, -1.0, 0.5, 1.0]);
    assert_eq!(v[5].pos, [-1.0, 1.0, 0.5, 1.0]);
}

#[test]
fn the_viewport_is_folded_into_clip_space() {
    let (mut c, mut dev, log) = setup();
    // The right half of the window: x -1..1 lands on 0..1 of the whole window.
    let mut cmds = vec![Cmd::Viewport([50, 0, 50, 50]), Cmd::DepthRange(0.0, 0.5)];
    cmds.extend(quad());
    run(&mut c, &mut dev, &cmds);
    let l = log.lock().unwrap();
    let (st, v) = &l.draws[0];
    assert_eq!(v[0].pos, [0.0, -1.0, 0.25, 1.0]);
    assert_eq!(v[1].pos, [1.0, -1.0, 0.25, 1.0]);
    assert_eq!(st.scissor, [50, 0, 50, 50]);
}

#[test]
fn matrix_stacks_and_errors() {
    let (mut c, mut dev, _) = setup();
    run(&mut c, &mut dev, &[Cmd::MatrixMode(GL_PROJECTION)]);
    for _ in 0..3 {
        run(&mut c, &mut dev, &[Cmd::PushMatrix]);
    }
    assert_eq!(c.s.error, GL_NO_ERROR);
    // The projection stack holds 4: the fourth push overflows and changes nothing.
    run(&mut c, &mut dev, &[Cmd::PushMatrix]);
    assert_eq!(c.s.error, GL_STACK_OVERFLOW);
    assert_eq!(c.s.projection.items.len(), 4);
    // Only the first error is kept until glGetError.
    run(&mut c, &mut dev, &[Cmd::MatrixMode(0x1234)]);
    assert_eq!(c.s.error, GL_STACK_OVERFLOW);
    // Inside glBegin/glEnd a matrix call is an invalid operation.
    c.s.error = GL_NO_ERROR;
    run(
        &mut c,
        &mut dev,
        &[Cmd::Begin(GL_POINTS), Cmd::LoadIdentity, Cmd::End],
    );
    assert_eq!(c.s.error, GL_INVALID_OPERATION);
}

#[test]
fn display_lists_replay_what_they_compiled() {
    let (mut c, mut dev, log) = setup();
    super::lists::new_list(&mut c, &mut dev, 5, GL_COMPILE);
    let mut cmds = vec![Cmd::Color([0.5, 0.5, 0.5, 1.0])];
    cmds.extend(quad());
    // What submit does while compiling in GL_COMPILE: record, do not run.
    for k in &cmds {
        c.compiling.as_mut().unwrap().cmds.push(k.clone());
    }
    super::lists::end_list(&mut c, &mut dev);
    assert!(log.lock().unwrap().draws.is_empty());
    assert!(super::lists::is_list(&c, &dev, 5));
    run(&mut c, &mut dev, &[Cmd::CallList(5), Cmd::CallList(5)]);
    let l = log.lock().unwrap();
    // Two calls, one state: one batch of 12 vertices.
    assert_eq!(l.draws.len(), 1);
    assert_eq!(l.draws[0].1.len(), 12);
    // glGenLists skips names in use.
    drop(l);
    assert_eq!(super::lists::gen_lists(&mut c, &mut dev, 3), 1);
    assert_eq!(super::lists::gen_lists(&mut c, &mut dev, 2), 6);
}

#[test]
fn state_changes_split_batches_and_textures_need_all_levels() {
    let (mut c, mut dev, log) = setup();
    let mut cmds = quad();
    cmds.push(Cmd::Enable(GL_BLEND));
    cmds.push(Cmd::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    cmds.extend(quad());
    // A 2x2 texture with the default (mipmapping) min filter and no level 1:
    // incomplete, so the unit stays off.
    cmds.push(Cmd::Enable(GL_TEXTURE_2D));
    cmds.push(Cmd::BindTexture(GL_TEXTURE_2D, 3));
    cmds.push(Cmd::TexImage2D {
        level: 0,
        internal: GL_LUMINANCE,
        width: 2,
        height: 2,
        rgba: Arc::new([10, 20, 30, 40].repeat(4)),
    });
    cmds.extend(quad());
    cmds.push(Cmd::TexParameter(
        GL_TEXTURE_2D,
        GL_TEXTURE_MIN_FILTER,
        [GL_NEAREST as f32, 0.0, 0.0, 0.0],
    ));
    cmds.extend(quad());
    run(&mut c, &mut dev, &cmds);
    let l = log.lock().unwrap();
    // The texture upload hands over the pending batch first (draws before it
    // must not see the new image), so the blended quad and the incomplete-textured
    // one are separate draws with the same state.
    assert_eq!(l.draws.len(), 4);
    assert!(l.draws[0].0.pipeline.blend.is_none());
    assert!(l.draws[1].0.pipeline.blend.is_some());
    assert_eq!(l.draws[1].0, l.draws[2].0);
    assert!(l.draws[2].0.units[0].is_none());
    assert!(l.draws[3].0.units[0].is_some());
    // Luminance keeps red in all three colour channels and alpha 255.
    assert_eq!(&l.images[0].4[..4], &[10, 10, 10, 255]);
}

#[test]
fn read_pixels_converts_to_every_type() {
    let ps = super::state::PixelStore::default();
    let px = [255u8, 0, 51, 255];
    let b = super::query::pack(&ps, &px, 1, 1, GL_RGBA, GL_UNSIGNED_SHORT, |n| vec![0; n]).unwrap();
    assert_eq!(b, vec![0xff, 0xff, 0, 0, 0x33, 0x33, 0xff, 0xff]);
    let b = super::query::pack(&ps, &px, 1, 1, GL_LUMINANCE, GL_UNSIGNED_BYTE, |n| {
        vec![0; n]
    })
    .unwrap();
    // R + G + B = 1.2, clamped to 1.
    assert_eq!(b, vec![255]);
    let b = super::query::pack(&ps, &px, 1, 1, GL_BLUE, GL_FLOAT, |n| vec![0; n]).unwrap();
    assert_eq!(f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0.2);
}

#[test]
fn read_pixels_leaves_padding_and_skipped_bytes_alone() {
    // Two rows of one RGB pixel with GL_PACK_ALIGNMENT 4 and one skipped row:
    // rows of 4 bytes (3 used), the pixels at 4..7 and 8..11.
    let ps = super::state::PixelStore {
        skip_rows: 1,
        ..Default::default()
    };
    let px = [1u8, 2, 3, 255, 4, 5, 6, 255];
    let b =
        super::query::pack(&ps, &px, 1, 2, GL_RGB, GL_UNSIGNED_BYTE, |n| vec![0xee; n]).unwrap();
    assert_eq!(b, vec![0xee, 0xee, 0xee, 0xee, 1, 2, 3, 0xee, 4, 5, 6]);
}

#[test]
fn depth_and_stencil_read_back_convert_by_type() {
    use super::query::{Single, pack_single};
    let ps = super::state::PixelStore::default();
    let depth = [0.5f32, 1.0];
    let b = pack_single(&ps, Single::Depth(&depth), 2, 1, GL_UNSIGNED_SHORT, |n| {
        vec![0; n]
    })
    .unwrap();
    // GL 1.1 table 2.6: 0.5 * 65535 rounds to 32768.
    assert_eq!(b, vec![0x00, 0x80, 0xff, 0xff]);
    let b = pack_single(&ps, Single::Depth(&depth), 2, 1, GL_FLOAT, |n| vec![0; n]).unwrap();
    assert_eq!(&b[4..8], &1.0f32.to_le_bytes());
    let stencil = [5u8, 200];
    let b = pack_single(&ps, Single::Stencil(&stencil), 2, 1, GL_FLOAT, |n| {
        vec![0; n]
    })
    .unwrap();
    assert_eq!(&b[4..8], &200.0f32.to_le_bytes());
    // GL_BYTE keeps the index's low 7 bits: 200 & 0x7f = 72.
    let b = pack_single(&ps, Single::Stencil(&stencil), 2, 1, GL_BYTE, |n| {
        vec![0; n]
    })
    .unwrap();
    assert_eq!(b, vec![5, 72]);
}

/// The ordinals a size-coded intro (MetaZlo, in the real-program corpus) imports
/// OPENGL32 by: Windows' numbering in ASCII order of the names.
#[test]
fn exports_carry_windows_ordinals() {
    let v = super::api::exports();
    let ord = |n: &str| v.iter().find(|d| d.name == n).and_then(|d| d.ordinal);
    assert_eq!(ord("glLoadIdentity"), Some(0xa5));
    assert_eq!(ord("glMatrixMode"), Some(0xb6));
    assert_eq!(ord("glVertexPointer"), Some(0x156));
    assert_eq!(ord("wglCreateContext"), Some(0x15a));
    assert_eq!(ord("wglMakeCurrent"), Some(0x165));
    assert_eq!(ord("ext::glActiveTextureARB"), None);
}

fn tri_area(t: &[[f32; 2]]) -> f32 {
    t.chunks_exact(3)
        .map(|t| {
            ((t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]))
                / 2.0
        })
        .sum()
}

#[test]
fn font_outline_fill_keeps_holes_open() {
    // A clockwise unit square with an anticlockwise hole of 0.5 x 0.5 (TrueType's
    // orientation): 0.75 filled, every triangle anticlockwise.
    let outer = vec![[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]];
    let hole = vec![[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75]];
    let t = super::font::fill(&[outer, hole]);
    assert!((tri_area(&t) - 0.75).abs() < 1e-6, "{}", tri_area(&t));
    assert!(t.chunks_exact(3).all(|t| tri_area(t) > 0.0));
    // Nothing is drawn inside the hole.
    let inside = |p: [f32; 2], t: &[[f32; 2]]| {
        (0..3).all(|k| {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0.0
        })
    };
    assert!(!t.chunks_exact(3).any(|t| inside([0.5, 0.5], t)));
    assert!(t.chunks_exact(3).any(|t| inside([0.1, 0.5], t)));
}

#[test]
fn glyph_outlines_come_in_em_units() {
    // Liberation Sans' "O": an outer contour and a hole, about 0.7 em tall (0.68 to 0.75) from
    // the baseline, advance 0.778 em (Arial's 1593/2048).
    let o = crate::gdi32::text::glyph_outline(0, 'O', 0.0).unwrap();
    assert_eq!(o.contours.len(), 2);
    let b = o.bbox.unwrap();
    assert!(
        b[1] > -0.05 && b[1] < 0.0 && b[3] > 0.68 && b[3] < 0.75,
        "{b:?}"
    );
    assert!((o.advance - 1593.0 / 2048.0).abs() < 1e-3, "{}", o.advance);
    let t = super::font::fill(&o.contours);
    assert!(tri_area(&t) > 0.1 && tri_area(&t) < (b[2] - b[0]) * (b[3] - b[1]));
    // A space has no outline.
    assert!(
        crate::gdi32::text::glyph_outline(0, ' ', 0.0)
            .unwrap()
            .bbox
            .is_none()
    );
}

#[test]
fn lighting_follows_the_gl_equation() {
    use super::light::{Lighting, set_light, shade};
    use super::matrix::Mat4;
    let mut l = Lighting::default();
    let mut on = [false; 8];
    on[0] = true;
    let close =
        |c: [f32; 4], want: [f32; 3]| (0..3).all(|k| (c[k] - want[k]).abs() < 1e-5) && c[3] == 1.0;
    // Light 0's defaults: white, directional along +z. Material ambient 0.2 times
    // the model's 0.2, plus diffuse 0.8 times n.l (no specular: material 0).
    let o = [0.0, 0.0, 0.0, 1.0];
    assert!(close(shade(&l, &on, o, [0.0, 0.0, 1.0]), [0.84; 3]));
    let s60 = 60f32.to_radians().sin();
    assert!(close(shade(&l, &on, o, [s60, 0.0, 0.5]), [0.44; 3]));
    // Facing away: ambient only.
    assert!(close(shade(&l, &on, o, [0.0, 0.0, -1.0]), [0.04; 3]));
    // A positional light 2 away with quadratic attenuation 1: a quarter.
    let id = Mat4::IDENTITY;
    set_light(&mut l.lights[0], &id, GL_POSITION, [0.0, 0.0, 2.0, 1.0]).unwrap();
    set_light(&mut l.lights[0], &id, GL_CONSTANT_ATTENUATION, [0.0; 4]).unwrap();
    set_light(
        &mut l.lights[0],
        &id,
        GL_QUADRATIC_ATTENUATION,
        [1.0, 0.0, 0.0, 0.0],
    )
    .unwrap();
    assert!(close(shade(&l, &on, o, [0.0, 0.0, 1.0]), [0.24; 3]));
    // A 30-degree spot pointing down -z misses a vertex 45 degrees off its axis.
    set_light(&mut l.lights[0], &id, GL_SPOT_CUTOFF, [30.0, 0.0, 0.0, 0.0]).unwrap();
    assert!(close(
        shade(&l, &on, [2.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
        [0.04; 3]
    ));
    assert!(close(shade(&l, &on, o, [0.0, 0.0, 1.0]), [0.24; 3]));
    // Bad values are GL_INVALID_VALUE; the position goes through the modelview.
    assert_eq!(
        set_light(
            &mut l.lights[1],
            &id,
            GL_SPOT_CUTOFF,
            [120.0, 0.0, 0.0, 0.0]
        ),
        Err(GL_INVALID_VALUE)
    );
    let t = Mat4::translate(1.0, 2.0, 3.0);
    set_light(&mut l.lights[1], &t, GL_POSITION, [0.0, 0.0, 0.0, 1.0]).unwrap();
    assert_eq!(l.lights[1].position, [1.0, 2.0, 3.0, 1.0]);
}

#[test]
fn color_material_and_lighting_through_commands() {
    let (mut c, mut dev, log) = setup();
    for cmd in [
        Cmd::Enable(GL_LIGHTING),
        Cmd::Enable(GL_LIGHT0),
        Cmd::ColorMaterial(GL_FRONT_AND_BACK, GL_DIFFUSE),
        Cmd::Enable(GL_COLOR_MATERIAL),
        Cmd::Color([1.0, 0.0, 0.5, 0.5]),
        Cmd::Normal([0.0, 0.0, 2.0]),
        Cmd::Enable(GL_NORMALIZE),
        Cmd::Begin(GL_TRIANGLES),
        Cmd::Vertex([0.0, 0.0, 0.0, 1.0]),
        Cmd::Vertex([1.0, 0.0, 0.0, 1.0]),
        Cmd::Vertex([0.0, 1.0, 0.0, 1.0]),
        Cmd::End,
    ] {
        super::cmd::exec(&mut c, &mut dev, &cmd).unwrap();
    }
    super::cmd::flush(&mut c, &mut dev);
    // Diffuse follows the colour: 0.04 ambient plus the colour times n.l = 1;
    // alpha is the diffuse alpha.
    let l = log.lock().unwrap();
    let col = l.draws[0].1[0].color;
    let want = [1.0, 0.04, 0.54, 0.5];
    assert!((0..4).all(|k| (col[k] - want[k]).abs() < 1e-5), "{col:?}");
    assert_eq!(c.s.lighting.material[1].diffuse, [1.0, 0.0, 0.5, 0.5]);
}
