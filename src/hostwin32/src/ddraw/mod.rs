//! ddraw.dll: DirectDraw.
//!
//! Every DirectDraw interface (IDirectDraw 1/2/4/7, IDirectDrawSurface 1/2/3/4/7,
//! IDirectDrawPalette, IDirectDrawClipper) is a COM object built with
//! [`crate::hle::com`]: the guest holds a small heap block whose vtable points at HLE
//! exports named `Interface::Method`, and the real state lives here, keyed by object
//! id. Each interface pointer has its own reference count, as on Windows; an object
//! goes away when the last of its interfaces is released.
//!
//! Surface pixels live in guest memory (allocated from the process address space), so
//! `Lock` hands out a real guest pointer and GDI draws straight into them through a
//! DIB section over the same bits. What the primary surface shows is turned into a
//! [`crate::display::Frame`] at each present (a Flip, or a blit into the primary); see
//! [`present`].

#![allow(non_snake_case)]
// COM method signatures are fixed by ddraw.h, however many parameters they take.
#![allow(clippy::too_many_arguments)]

pub mod blit;
pub mod clipper;
pub mod format;
pub mod iface;
pub mod object;
pub mod ops;
pub mod overlay;
pub mod palette;
pub mod present;
pub mod surface;
#[cfg(test)]
mod tests;

use crate::display::Frame;
use crate::hle::{ApiDef, ApiError, ApiResult, HleDll};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

pub const DLL: HleDll = HleDll {
    name: "ddraw.dll",
    exports,
    attach: None,
};

pub const DD_OK: u32 = 0;
const fn dd_hresult(code: u32) -> u32 {
    0x8876_0000 | code
}
pub const DDERR_GENERIC: u32 = crate::hle::com::E_FAIL;
pub const DDERR_INVALIDPARAMS: u32 = crate::hle::com::E_INVALIDARG;
pub const DDERR_OUTOFMEMORY: u32 = crate::hle::com::E_OUTOFMEMORY;
pub const DDERR_UNSUPPORTED: u32 = 0x8000_4001;
pub const DDERR_CANNOTATTACHSURFACE: u32 = dd_hresult(10);
pub const DDERR_INVALIDCAPS: u32 = dd_hresult(100);
pub const DDERR_INVALIDCLIPLIST: u32 = dd_hresult(110);
pub const DDERR_INVALIDMODE: u32 = dd_hresult(120);
pub const DDERR_INVALIDOBJECT: u32 = dd_hresult(130);
pub const DDERR_INVALIDPIXELFORMAT: u32 = dd_hresult(145);
pub const DDERR_INVALIDRECT: u32 = dd_hresult(150);
pub const DDERR_NOCLIPLIST: u32 = dd_hresult(205);
pub const DDERR_NOCOOPERATIVELEVELSET: u32 = dd_hresult(212);
pub const DDERR_NOCOLORKEY: u32 = dd_hresult(215);
pub const DDERR_NOEXCLUSIVEMODE: u32 = dd_hresult(225);
pub const DDERR_NOTFOUND: u32 = dd_hresult(255);
pub const DDERR_SURFACEALREADYATTACHED: u32 = dd_hresult(410);
pub const DDERR_SURFACEBUSY: u32 = dd_hresult(430);
pub const DDERR_VERTICALBLANKINPROGRESS: u32 = dd_hresult(537);
pub const DDERR_REGIONTOOSMALL: u32 = dd_hresult(566);
pub const DDERR_NOCLIPPERATTACHED: u32 = dd_hresult(568);
pub const DDERR_NOHWND: u32 = dd_hresult(569);
pub const DDERR_NOPALETTEATTACHED: u32 = dd_hresult(572);
pub const DDERR_BLTFASTCANTCLIP: u32 = dd_hresult(574);
pub const DDERR_NOTFLIPPABLE: u32 = dd_hresult(582);
pub const DDERR_NOTLOCKED: u32 = dd_hresult(584);
pub const DDERR_NODC: u32 = dd_hresult(586);
pub const DDERR_NOTPALETTIZED: u32 = dd_hresult(589);
pub const DDERR_DCALREADYCREATED: u32 = dd_hresult(620);

/// Why a DirectDraw method did not succeed: an HRESULT for the guest, or an error
/// that stops the program (an unimplemented case).
#[derive(Debug)]
pub enum DdErr {
    Hr(u32),
    Api(ApiError),
}

pub type DdResult<T> = Result<T, DdErr>;

impl From<winterp_core::mem::Fault> for DdErr {
    /// A pointer the guest passed that does not point at memory is its mistake, which
    /// DirectDraw reports rather than crashing on.
    fn from(_: winterp_core::mem::Fault) -> Self {
        DdErr::Hr(DDERR_INVALIDPARAMS)
    }
}

impl From<ApiError> for DdErr {
    fn from(e: ApiError) -> Self {
        match e {
            ApiError::Fault(_) => DdErr::Hr(DDERR_INVALIDPARAMS),
            e => DdErr::Api(e),
        }
    }
}

/// The HRESULT a method returns (DD_OK on success), or the error that stops the
/// program.
pub fn hr(r: DdResult<()>) -> ApiResult<u32> {
    match r {
        Ok(()) => Ok(DD_OK),
        Err(DdErr::Hr(h)) => Ok(h),
        Err(DdErr::Api(e)) => Err(e),
    }
}

pub fn fail<T>(h: u32) -> DdResult<T> {
    Err(DdErr::Hr(h))
}

/// What an interface pointer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// IDirectDraw, IDirectDraw2, IDirectDraw4, IDirectDraw7 (the version number).
    DDraw(u8),
    /// IDirectDrawSurface .. IDirectDrawSurface7.
    Surface(u8),
    Palette,
    Clipper,
}

/// One interface pointer handed to the guest.
pub struct Iface {
    pub kind: Kind,
    /// The object (a key of the matching map in [`Inner`]).
    pub obj: u32,
    pub refs: u32,
}

/// Per-process DirectDraw state, in [`crate::process::Process::ddraw`].
#[derive(Default)]
pub struct State {
    inner: Mutex<Inner>,
}

impl State {
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Default)]
pub struct Inner {
    next: u32,
    /// Interface pointer -> what it is.
    pub ifaces: HashMap<u32, Iface>,
    /// (object, interface) -> its interface pointer: QueryInterface for an interface
    /// the object already has returns the same pointer.
    pub ptrs: HashMap<(u32, Kind), u32>,
    pub ddraws: HashMap<u32, object::DDraw>,
    pub surfaces: HashMap<u32, surface::Surf>,
    pub palettes: HashMap<u32, palette::Pal>,
    pub clippers: HashMap<u32, clipper::Clip>,
    /// The cooperative level of the last SetCooperativeLevel (any DirectDraw object).
    pub coop: u32,
    /// The window given to SetCooperativeLevel.
    pub coop_hwnd: u32,
    /// The primary surface, while one exists.
    pub primary: Option<u32>,
    /// The last frame presented in exclusive full-screen mode.
    pub latest: Option<Frame>,
    /// Guest copies of the strings DirectDrawEnumerate hands out.
    pub enum_strings: Option<(u32, u32)>,
}

impl Inner {
    pub fn new_id(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    /// Exclusive full-screen mode: the primary surface is the whole picture.
    pub fn fullscreen(&self) -> bool {
        self.coop & object::DDSCL_EXCLUSIVE != 0 && self.coop & object::DDSCL_FULLSCREEN != 0
    }
}

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    v.extend(object::exports());
    v.extend(surface::exports());
    v.extend(palette::exports());
    v.extend(clipper::exports());
    v
}
