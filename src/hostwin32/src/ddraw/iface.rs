//! Interface pointers: vtables, QueryInterface, AddRef and Release for every
//! DirectDraw interface.

use super::{Inner, Kind};
use crate::hle::com::{self, E_NOINTERFACE, E_POINTER, Guid, IID_IUNKNOWN};
use crate::hle::{ApiResult, Ctx, Ptr};
use crate::process::Process;
use std::sync::Arc;

pub const IID_IDIRECTDRAW: Guid = Guid::new(
    0x6C14DB80,
    0xA733,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);
pub const IID_IDIRECTDRAW2: Guid = Guid::new(
    0xB3A6F3E0,
    0x2B43,
    0x11CF,
    [0xA2, 0xDE, 0x00, 0xAA, 0x00, 0xB9, 0x33, 0x56],
);
pub const IID_IDIRECTDRAW4: Guid = Guid::new(
    0x9c59509a,
    0x39bd,
    0x11d1,
    [0x8c, 0x4a, 0x00, 0xc0, 0x4f, 0xd9, 0x30, 0xc5],
);
pub const IID_IDIRECTDRAW7: Guid = Guid::new(
    0x15e65ec0,
    0x3b9c,
    0x11d2,
    [0xb9, 0x2f, 0x00, 0x60, 0x97, 0x97, 0xea, 0x5b],
);
pub const IID_IDIRECTDRAWSURFACE: Guid = Guid::new(
    0x6C14DB81,
    0xA733,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);
pub const IID_IDIRECTDRAWSURFACE2: Guid = Guid::new(
    0x57805885,
    0x6eec,
    0x11cf,
    [0x94, 0x41, 0xa8, 0x23, 0x03, 0xc1, 0x0e, 0x27],
);
pub const IID_IDIRECTDRAWSURFACE3: Guid = Guid::new(
    0xDA044E00,
    0x69B2,
    0x11D0,
    [0xA1, 0xD5, 0x00, 0xAA, 0x00, 0xB8, 0xDF, 0xBB],
);
pub const IID_IDIRECTDRAWSURFACE4: Guid = Guid::new(
    0x0B2B8630,
    0xAD35,
    0x11D0,
    [0x8E, 0xA6, 0x00, 0x60, 0x97, 0x97, 0xEA, 0x5B],
);
pub const IID_IDIRECTDRAWSURFACE7: Guid = Guid::new(
    0x06675a80,
    0x3b9b,
    0x11d2,
    [0xb9, 0x2f, 0x00, 0x60, 0x97, 0x97, 0xea, 0x5b],
);
pub const IID_IDIRECTDRAWPALETTE: Guid = Guid::new(
    0x6C14DB84,
    0xA733,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);
pub const IID_IDIRECTDRAWCLIPPER: Guid = Guid::new(
    0x6C14DB85,
    0xA733,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);

/// IDirectDraw7's methods in vtable order (ddraw.h) with the interface version that
/// introduced each: IDirectDraw's table is the version-1 prefix, and so on.
pub const DDRAW_METHODS: &[(u8, &str)] = &[
    (1, "QueryInterface"),
    (1, "AddRef"),
    (1, "Release"),
    (1, "Compact"),
    (1, "CreateClipper"),
    (1, "CreatePalette"),
    (1, "CreateSurface"),
    (1, "DuplicateSurface"),
    (1, "EnumDisplayModes"),
    (1, "EnumSurfaces"),
    (1, "FlipToGDISurface"),
    (1, "GetCaps"),
    (1, "GetDisplayMode"),
    (1, "GetFourCCCodes"),
    (1, "GetGDISurface"),
    (1, "GetMonitorFrequency"),
    (1, "GetScanLine"),
    (1, "GetVerticalBlankStatus"),
    (1, "Initialize"),
    (1, "RestoreDisplayMode"),
    (1, "SetCooperativeLevel"),
    (1, "SetDisplayMode"),
    (1, "WaitForVerticalBlank"),
    (2, "GetAvailableVidMem"),
    (4, "GetSurfaceFromDC"),
    (4, "RestoreAllSurfaces"),
    (4, "TestCooperativeLevel"),
    (4, "GetDeviceIdentifier"),
    (7, "StartModeTest"),
    (7, "EvaluateMode"),
];

/// IDirectDrawSurface7's methods in vtable order, with the version that added each.
pub const SURFACE_METHODS: &[(u8, &str)] = &[
    (1, "QueryInterface"),
    (1, "AddRef"),
    (1, "Release"),
    (1, "AddAttachedSurface"),
    (1, "AddOverlayDirtyRect"),
    (1, "Blt"),
    (1, "BltBatch"),
    (1, "BltFast"),
    (1, "DeleteAttachedSurface"),
    (1, "EnumAttachedSurfaces"),
    (1, "EnumOverlayZOrders"),
    (1, "Flip"),
    (1, "GetAttachedSurface"),
    (1, "GetBltStatus"),
    (1, "GetCaps"),
    (1, "GetClipper"),
    (1, "GetColorKey"),
    (1, "GetDC"),
    (1, "GetFlipStatus"),
    (1, "GetOverlayPosition"),
    (1, "GetPalette"),
    (1, "GetPixelFormat"),
    (1, "GetSurfaceDesc"),
    (1, "Initialize"),
    (1, "IsLost"),
    (1, "Lock"),
    (1, "ReleaseDC"),
    (1, "Restore"),
    (1, "SetClipper"),
    (1, "SetColorKey"),
    (1, "SetOverlayPosition"),
    (1, "SetPalette"),
    (1, "Unlock"),
    (1, "UpdateOverlay"),
    (1, "UpdateOverlayDisplay"),
    (1, "UpdateOverlayZOrder"),
    (2, "GetDDInterface"),
    (2, "PageLock"),
    (2, "PageUnlock"),
    (3, "SetSurfaceDesc"),
    (4, "SetPrivateData"),
    (4, "GetPrivateData"),
    (4, "FreePrivateData"),
    (4, "GetUniquenessValue"),
    (4, "ChangeUniquenessValue"),
    (7, "SetPriority"),
    (7, "GetPriority"),
    (7, "SetLOD"),
    (7, "GetLOD"),
];

pub const PALETTE_METHODS: &[(u8, &str)] = &[
    (1, "QueryInterface"),
    (1, "AddRef"),
    (1, "Release"),
    (1, "GetCaps"),
    (1, "GetEntries"),
    (1, "Initialize"),
    (1, "SetEntries"),
];

pub const CLIPPER_METHODS: &[(u8, &str)] = &[
    (1, "QueryInterface"),
    (1, "AddRef"),
    (1, "Release"),
    (1, "GetClipList"),
    (1, "GetHWnd"),
    (1, "Initialize"),
    (1, "IsClipListChanged"),
    (1, "SetClipList"),
    (1, "SetHWnd"),
];

/// The interface's name as the exports spell it.
pub fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::DDraw(1) => "IDirectDraw",
        Kind::DDraw(2) => "IDirectDraw2",
        Kind::DDraw(4) => "IDirectDraw4",
        Kind::DDraw(_) => "IDirectDraw7",
        Kind::Surface(1) => "IDirectDrawSurface",
        Kind::Surface(2) => "IDirectDrawSurface2",
        Kind::Surface(3) => "IDirectDrawSurface3",
        Kind::Surface(4) => "IDirectDrawSurface4",
        Kind::Surface(_) => "IDirectDrawSurface7",
        Kind::Palette => "IDirectDrawPalette",
        Kind::Clipper => "IDirectDrawClipper",
    }
}

fn methods(kind: Kind) -> Vec<&'static str> {
    let (list, ver) = match kind {
        Kind::DDraw(v) => (DDRAW_METHODS, v),
        Kind::Surface(v) => (SURFACE_METHODS, v),
        Kind::Palette => (PALETTE_METHODS, 1),
        Kind::Clipper => (CLIPPER_METHODS, 1),
    };
    list.iter()
        .filter(|(v, _)| *v <= ver)
        .map(|(_, m)| *m)
        .collect()
}

/// The interface an IID names within the family of `kind` (IUnknown: the family's
/// first interface, so it is the same pointer every time, as COM identity requires).
fn kind_of_iid(kind: Kind, iid: &Guid) -> Option<Kind> {
    let table: &[(Guid, Kind)] = match kind {
        Kind::DDraw(_) => &[
            (IID_IUNKNOWN, Kind::DDraw(1)),
            (IID_IDIRECTDRAW, Kind::DDraw(1)),
            (IID_IDIRECTDRAW2, Kind::DDraw(2)),
            (IID_IDIRECTDRAW4, Kind::DDraw(4)),
            (IID_IDIRECTDRAW7, Kind::DDraw(7)),
        ],
        Kind::Surface(_) => &[
            (IID_IUNKNOWN, Kind::Surface(1)),
            (IID_IDIRECTDRAWSURFACE, Kind::Surface(1)),
            (IID_IDIRECTDRAWSURFACE2, Kind::Surface(2)),
            (IID_IDIRECTDRAWSURFACE3, Kind::Surface(3)),
            (IID_IDIRECTDRAWSURFACE4, Kind::Surface(4)),
            (IID_IDIRECTDRAWSURFACE7, Kind::Surface(7)),
        ],
        Kind::Palette => &[
            (IID_IUNKNOWN, Kind::Palette),
            (IID_IDIRECTDRAWPALETTE, Kind::Palette),
        ],
        Kind::Clipper => &[
            (IID_IUNKNOWN, Kind::Clipper),
            (IID_IDIRECTDRAWCLIPPER, Kind::Clipper),
        ],
    };
    table.iter().find(|(g, _)| g == iid).map(|(_, k)| *k)
}

/// The DirectDraw interface an IID names (DirectDrawCreateEx, CreateSurface chains).
pub fn ddraw_kind_of_iid(iid: &Guid) -> Option<Kind> {
    kind_of_iid(Kind::DDraw(1), iid).filter(|_| *iid != IID_IUNKNOWN)
}

/// An interface pointer of kind `kind` on object `obj`, with one more reference: the
/// existing pointer if the object already has that interface.
pub fn get(proc: &Arc<Process>, g: &mut Inner, obj: u32, kind: Kind) -> ApiResult<u32> {
    if let Some(&p) = g.ptrs.get(&(obj, kind))
        && let Some(i) = g.ifaces.get_mut(&p)
    {
        i.refs += 1;
        return Ok(p);
    }
    let vtbl = com::vtable(proc, "ddraw.dll", name(kind), &methods(kind))?;
    let p = com::new_object(proc, vtbl, obj, 8)?;
    g.ifaces.insert(p, super::Iface { kind, obj, refs: 1 });
    g.ptrs.insert((obj, kind), p);
    Ok(p)
}

/// The object behind an interface pointer, if it is one of kind family `want`.
pub fn lookup(g: &Inner, this: u32, want: fn(Kind) -> bool) -> Option<(Kind, u32)> {
    g.ifaces
        .get(&this)
        .filter(|i| want(i.kind))
        .map(|i| (i.kind, i.obj))
}

pub fn is_ddraw(k: Kind) -> bool {
    matches!(k, Kind::DDraw(_))
}
pub fn is_surface(k: Kind) -> bool {
    matches!(k, Kind::Surface(_))
}
pub fn is_palette(k: Kind) -> bool {
    k == Kind::Palette
}
pub fn is_clipper(k: Kind) -> bool {
    k == Kind::Clipper
}

/// Whether the object still has any interface pointer.
pub fn has_refs(g: &Inner, obj: u32) -> bool {
    g.ifaces.values().any(|i| i.obj == obj)
}

pub fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppvObj: Ptr) -> ApiResult<u32> {
    if ppvObj.is_null() {
        return Ok(E_POINTER);
    }
    let Ok(iid) = Guid::read(cx.proc, riid.0) else {
        return Ok(super::DDERR_INVALIDPARAMS);
    };
    let mut g = cx.proc.ddraw.lock();
    let Some((kind, obj)) = lookup(&g, this, |_| true) else {
        return Ok(super::DDERR_INVALIDOBJECT);
    };
    match kind_of_iid(kind, &iid) {
        Some(k) => {
            let p = get(cx.proc, &mut g, obj, k)?;
            if cx.proc.mem.write_u32(ppvObj.0, p).is_err() {
                release_ptr(cx.proc, &mut g, p)?;
                return Ok(super::DDERR_INVALIDPARAMS);
            }
            Ok(com::S_OK)
        }
        None => {
            // No such interface here (Direct3D, IDirectDraw3, colour control...).
            let _ = cx.proc.mem.write_u32(ppvObj.0, 0);
            Ok(E_NOINTERFACE)
        }
    }
}

pub fn AddRef(cx: &mut Ctx, this: u32) -> u32 {
    let mut g = cx.proc.ddraw.lock();
    match g.ifaces.get_mut(&this) {
        Some(i) => {
            i.refs += 1;
            i.refs
        }
        None => 0,
    }
}

pub fn Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    release_ptr(cx.proc, &mut g, this)
}

/// Drops one reference of an interface pointer; at zero the pointer goes away, and
/// with the object's last pointer the object itself.
pub fn release_ptr(proc: &Arc<Process>, g: &mut Inner, this: u32) -> ApiResult<u32> {
    let Some(i) = g.ifaces.get_mut(&this) else {
        return Ok(0);
    };
    i.refs = i.refs.saturating_sub(1);
    let left = i.refs;
    if left > 0 {
        return Ok(left);
    }
    let (kind, obj) = (i.kind, i.obj);
    g.ifaces.remove(&this);
    g.ptrs.remove(&(obj, kind));
    com::free_object(proc, this)?;
    if !has_refs(g, obj) {
        match kind {
            Kind::DDraw(_) => super::object::destroy(proc, g, obj)?,
            Kind::Surface(_) => super::surface::destroy(proc, g, obj)?,
            Kind::Palette => {
                g.palettes.remove(&obj);
            }
            Kind::Clipper => {
                g.clippers.remove(&obj);
            }
        }
    }
    Ok(0)
}

/// Removes every interface pointer of an object that is going away with another
/// (the back buffers of a flipping chain with its front buffer).
pub fn drop_all(proc: &Arc<Process>, g: &mut Inner, obj: u32) -> ApiResult<()> {
    let ptrs: Vec<u32> = g
        .ifaces
        .iter()
        .filter(|(_, i)| i.obj == obj)
        .map(|(&p, _)| p)
        .collect();
    for p in ptrs {
        if let Some(i) = g.ifaces.remove(&p) {
            g.ptrs.remove(&(i.obj, i.kind));
        }
        com::free_object(proc, p)?;
    }
    Ok(())
}

/// Declares the exports `Interface::Method` of one interface: implemented methods
/// as `Method => function`, and methods this DirectDraw does not implement as
/// `Method(n)` (n arguments after `this`), which stop the program naming the method.
macro_rules! com_exports {
    ($iface:expr; $($m:ident => $f:expr,)* ; $($u:ident($n:tt),)*) => {
        vec![
            $( $crate::hle::stdcall(concat!($iface, "::", stringify!($m)), $f), )*
            $( $crate::ddraw::iface::unimplemented!(concat!($iface, "::", stringify!($u)), $n), )*
        ]
    };
}
pub(crate) use com_exports;

macro_rules! unimplemented {
    ($name:expr, 0) => {
        $crate::hle::stdcall($name, |_: &mut $crate::hle::Ctx, _this: u32| {
            $crate::ddraw::iface::unimpl($name)
        })
    };
    ($name:expr, 1) => {
        $crate::hle::stdcall($name, |_: &mut $crate::hle::Ctx, _this: u32, _a: u32| {
            $crate::ddraw::iface::unimpl($name)
        })
    };
    ($name:expr, 2) => {
        $crate::hle::stdcall(
            $name,
            |_: &mut $crate::hle::Ctx, _this: u32, _a: u32, _b: u32| {
                $crate::ddraw::iface::unimpl($name)
            },
        )
    };
    ($name:expr, 3) => {
        $crate::hle::stdcall(
            $name,
            |_: &mut $crate::hle::Ctx, _this: u32, _a: u32, _b: u32, _c: u32| {
                $crate::ddraw::iface::unimpl($name)
            },
        )
    };
    ($name:expr, 4) => {
        $crate::hle::stdcall(
            $name,
            |_: &mut $crate::hle::Ctx, _this: u32, _a: u32, _b: u32, _c: u32, _d: u32| {
                $crate::ddraw::iface::unimpl($name)
            },
        )
    };
    ($name:expr, 5) => {
        $crate::hle::stdcall(
            $name,
            |_: &mut $crate::hle::Ctx, _this: u32, _a: u32, _b: u32, _c: u32, _d: u32, _e: u32| {
                $crate::ddraw::iface::unimpl($name)
            },
        )
    };
}
pub(crate) use unimplemented;

pub fn unimpl(name: &str) -> ApiResult<u32> {
    Err(crate::hle::ApiError::Unimplemented {
        dll: "ddraw.dll".into(),
        name: name.into(),
    })
}
