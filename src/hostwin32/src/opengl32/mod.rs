//! OPENGL32.dll: OpenGL 1.1 as the ICDs of 1999 offered it, over the renderer
//! contract of [`crate::glrender`].
//!
//! The HLE keeps the whole GL state of every context (so glGet*, glIsEnabled and
//! glGetError answer from it) and does the per-vertex work on the CPU: the
//! modelview and projection transforms with the viewport and depth range folded
//! in, texture matrices, flat shading's provoking colours, the fog distance, and
//! primitive assembly into triangle, line and point lists (wide points and lines
//! become quads). What it hands the renderer is batches of such vertices with a
//! [`crate::glrender::DrawState`]; a batch grows while the state stays the same.
//!
//! Modules: `wgl` (contexts, pixel formats through GDI32, SwapBuffers,
//! wglGetProcAddress), `state` (the state and the share groups), `cmd` (the
//! commands a display list can hold and their execution), `lists` (display
//! lists), `texture` (texture objects and images), `arrays` (vertex arrays),
//! `query` (glGet*, glGetString, glReadPixels), `font` (wglUseFontOutlines), `light`
//! (lighting),
//! `api` (the exports: argument forms decoded into commands).
//!
//! Contexts belong to threads as on Windows: each thread has at most one current
//! context, found by its thread id. GL calls with no current context do nothing,
//! as Windows' OPENGL32 dispatches them to an empty table.

#![allow(non_snake_case)]
#![allow(clippy::too_many_arguments)]

pub mod api;
pub mod arrays;
pub mod cmd;
pub mod consts;
pub mod font;
pub mod light;
pub mod lists;
pub mod matrix;
pub mod query;
pub mod state;
#[cfg(test)]
mod tests;
pub mod texture;
pub mod wgl;

use crate::gdi32::pixelformat::PixelFormat;
use crate::hle::{ApiResult, Ctx, HleDll};
use crate::process::Process;
use cmd::{Cmd, Xform};
use state::{Batch, Counters, Device, State};
use std::collections::HashMap;
use std::sync::Mutex;

pub const DLL: HleDll = HleDll {
    name: "OPENGL32.dll",
    exports: api::exports,
    attach: Some(attach),
};

fn attach(proc: &Process) {
    crate::gdi32::pixelformat::set_swap_handler(proc, wgl::swap_buffers);
}

/// The window a context draws into, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drawable {
    pub hwnd: u32,
    pub width: u32,
    pub height: u32,
}

/// A display list being compiled.
pub struct Compiling {
    pub name: u32,
    pub mode: u32,
    pub cmds: Vec<Cmd>,
}

/// A rendering context (HGLRC).
pub struct Context {
    pub share: u32,
    pub format: PixelFormat,
    /// The pixel format's number (the window's must match to make it current).
    pub pixel_format: i32,
    pub s: State,
    pub drawable: Option<Drawable>,
    /// The thread it is current on.
    pub thread: Option<u32>,
    pub hdc: u32,
    /// The primitive between glBegin and glEnd: its mode and processed vertices.
    pub prim: Option<(u32, Vec<crate::glrender::Vertex>)>,
    pub xf: Option<Xform>,
    pub batch: Option<Batch>,
    pub compiling: Option<Compiling>,
    pub list_depth: u32,
    pub arrays: arrays::Arrays,
    /// glPushClientAttrib's stack: the mask and what it saved.
    pub client_stack: Vec<(u32, arrays::Arrays, state::PixelStore, state::PixelStore)>,
    /// Whether it has been current before (the first time sets the viewport).
    pub was_current: bool,
}

impl Context {
    pub fn new(share: u32, format: PixelFormat) -> Context {
        Context {
            share,
            format,
            pixel_format: 0,
            s: State::new(format.double_buffered()),
            drawable: None,
            thread: None,
            hdc: 0,
            prim: None,
            xf: None,
            batch: None,
            compiling: None,
            list_depth: 0,
            arrays: arrays::Arrays::default(),
            client_stack: Vec::new(),
            was_current: false,
        }
    }
}

#[derive(Default)]
pub struct Inner {
    pub contexts: HashMap<u32, Context>,
    /// Thread id -> current HGLRC.
    pub current: HashMap<u32, u32>,
    pub next_handle: u32,
    pub dev: Device,
    /// glGetString's answers in guest memory, by name.
    pub strings: HashMap<u32, u32>,
    /// A GL call without a current context was logged once.
    warned_no_context: bool,
}

/// OPENGL32's per-process state.
#[derive(Default)]
pub struct Gl {
    pub inner: Mutex<Inner>,
}

/// Runs `f` on the calling thread's current context, or returns None when the
/// thread has none (the call does nothing, as on Windows).
pub fn with_current<R>(
    cx: &mut Ctx,
    f: impl FnOnce(&mut Context, &mut Device) -> ApiResult<R>,
) -> ApiResult<Option<R>> {
    let gl = cx.proc.slot::<Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    let tid = cx.thread.tid;
    let Some(&h) = g.current.get(&tid) else {
        if !g.warned_no_context {
            g.warned_no_context = true;
            log::warn!("OPENGL32: a GL call on thread {tid} with no current context does nothing");
        }
        return Ok(None);
    };
    let Inner { contexts, dev, .. } = &mut *g;
    match contexts.get_mut(&h) {
        Some(c) => f(c, dev).map(Some),
        None => Ok(None),
    }
}

/// A listable command: compiled into the list being built, executed, or both.
pub fn submit(cx: &mut Ctx, cmd: Cmd) -> ApiResult<()> {
    with_current(cx, |c, dev| {
        if let Some(l) = &mut c.compiling {
            let mode = l.mode;
            l.cmds.push(cmd.clone());
            if mode == consts::GL_COMPILE {
                return Ok(());
            }
        }
        cmd::exec(c, dev, &cmd)
    })
    .map(|_| ())
}

/// The last finished frame's GL counters, if the process has made a GL context.
pub fn counters(proc: &Process) -> Option<Counters> {
    let gl = proc.slot::<Gl>();
    let g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    if g.contexts.is_empty() && g.dev.last_frame == Counters::default() {
        return None;
    }
    Some(g.dev.last_frame)
}
