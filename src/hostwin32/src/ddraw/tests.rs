//! DirectDraw unit tests: vtables against ddraw.h's method counts, reference
//! counting, unimplemented methods, surfaces in guest memory.

use super::iface::{self, name};
use super::{DD_OK, DDERR_INVALIDPARAMS, Kind};
use crate::hle::{ApiError, Ptr};
use crate::kernel32::misc::test_support::Harness;

/// Method counts of each interface in mingw-w64's ddraw.h.
const COUNTS: &[(Kind, usize)] = &[
    (Kind::DDraw(1), 23),
    (Kind::DDraw(2), 24),
    (Kind::DDraw(4), 28),
    (Kind::DDraw(7), 30),
    (Kind::Surface(1), 36),
    (Kind::Surface(2), 39),
    (Kind::Surface(3), 40),
    (Kind::Surface(4), 45),
    (Kind::Surface(7), 49),
    (Kind::Palette, 7),
    (Kind::Clipper, 9),
];

#[test]
fn every_vtable_entry_is_the_export_of_its_method() {
    let h = Harness::new();
    let mut g = h.proc.ddraw.lock();
    for &(kind, count) in COUNTS {
        let p = iface::get(&h.proc, &mut g, 1000, kind).unwrap();
        let vtbl = h.proc.mem.read_u32(p).unwrap();
        let list = match kind {
            Kind::DDraw(_) => iface::DDRAW_METHODS,
            Kind::Surface(_) => iface::SURFACE_METHODS,
            Kind::Palette => iface::PALETTE_METHODS,
            Kind::Clipper => iface::CLIPPER_METHODS,
        };
        for (k, (_, m)) in list.iter().take(count).enumerate() {
            let want = h
                .proc
                .resolve_hle("ddraw.dll", &format!("{}::{m}", name(kind)))
                .unwrap();
            let got = h.proc.mem.read_u32(vtbl + 4 * k as u32).unwrap();
            assert_eq!(got, want, "{}::{m} at slot {k}", name(kind));
        }
        // The table has exactly `count` methods: the next version's first is not in it.
        let vers = list.iter().filter(|(v, _)| match kind {
            Kind::DDraw(n) | Kind::Surface(n) => *v <= n,
            _ => true,
        });
        assert_eq!(vers.count(), count, "{}", name(kind));
    }
}

#[test]
fn interfaces_count_references_separately() {
    let mut h = Harness::new();
    let out = h.scratch(0x1000);
    let iid = out + 0x100;
    {
        let mut cx = h.cx();
        assert_eq!(
            super::object::DirectDrawCreate(&mut cx, Ptr(0), Ptr(out), 0).unwrap(),
            DD_OK
        );
    }
    let dd = h.proc.mem.read_u32(out).unwrap();
    iface::IID_IDIRECTDRAW7.write(&h.proc, iid).unwrap();
    let mut cx = h.cx();
    assert_eq!(
        iface::QueryInterface(&mut cx, dd, Ptr(iid), Ptr(out + 4)).unwrap(),
        0
    );
    let dd7 = cx.proc.mem.read_u32(out + 4).unwrap();
    assert_ne!(dd7, dd);
    assert_eq!(iface::AddRef(&mut cx, dd7), 2);
    assert_eq!(iface::Release(&mut cx, dd7).unwrap(), 1);
    assert_eq!(iface::Release(&mut cx, dd).unwrap(), 0);
    // The object lives on through its IDirectDraw7 pointer, then goes.
    assert_eq!(cx.proc.ddraw.lock().ddraws.len(), 1);
    assert_eq!(iface::Release(&mut cx, dd7).unwrap(), 0);
    assert!(cx.proc.ddraw.lock().ddraws.is_empty());
    // A released pointer is no longer an interface.
    assert_eq!(iface::AddRef(&mut cx, dd7), 0);
}

#[test]
fn bad_pointers_are_invalid_params_not_crashes() {
    let mut h = Harness::new();
    let mut cx = h.cx();
    assert_eq!(
        super::object::DirectDrawCreate(&mut cx, Ptr(0), Ptr(0x10), 0).unwrap(),
        DDERR_INVALIDPARAMS
    );
    assert_eq!(
        super::object::DirectDrawCreate(&mut cx, Ptr(0), Ptr(0), 0).unwrap(),
        DDERR_INVALIDPARAMS
    );
}

#[test]
fn unimplemented_methods_stop_with_their_name() {
    let mut h = Harness::new();
    let defs = super::exports();
    let def = defs
        .iter()
        .find(|d| d.name == "IDirectDrawSurface7::SetLOD")
        .expect("SetLOD is exported");
    let mut cx = h.cx();
    match def.call(&mut cx, &[0, 0]) {
        Err(ApiError::Unimplemented { dll, name }) => {
            assert_eq!(
                (dll.as_str(), name.as_str()),
                ("ddraw.dll", "IDirectDrawSurface7::SetLOD")
            )
        }
        other => panic!("{other:?}"),
    }
}

// ---- CreateSurface: what Windows accepts and what it refuses ------------------------

use super::DDERR_INVALIDCAPS;
use super::surface::{
    DDSCAPS_BACKBUFFER, DDSCAPS_COMPLEX, DDSCAPS_FLIP, DDSCAPS_FRONTBUFFER, DDSCAPS_OFFSCREENPLAIN,
    DDSCAPS_PRIMARYSURFACE, DDSCAPS_SYSTEMMEMORY, DDSCAPS_VIDEOMEMORY, DDSD_BACKBUFFERCOUNT,
    DDSD_CAPS, DDSD_HEIGHT, DDSD_PIXELFORMAT, DDSD_WIDTH,
};
use crate::hle::Outcome;

/// Calls the ddraw.dll export `name` with `args` (this first).
fn call(h: &mut Harness, name: &str, args: &[u32]) -> u32 {
    let defs = super::exports();
    let def = defs.iter().find(|d| d.name == name).expect(name);
    match def.call(&mut h.cx(), args).unwrap() {
        Outcome::Return(v) => v as u32,
        other => panic!("{name}: {other:?}"),
    }
}

/// A DirectDraw object (IDirectDraw) at cooperative level `coop`, and scratch memory
/// for surface descriptions.
fn ddraw_at(h: &mut Harness, coop: u32) -> (u32, u32) {
    let mem = h.scratch(0x1000);
    assert_eq!(
        super::object::DirectDrawCreate(&mut h.cx(), Ptr(0), Ptr(mem), 0).unwrap(),
        DD_OK
    );
    let dd = h.proc.mem.read_u32(mem).unwrap();
    if coop != 0 {
        // Exclusive mode wants a window; the handle is only stored.
        let hwnd = if coop & super::object::DDSCL_EXCLUSIVE != 0 {
            0x10024
        } else {
            0
        };
        assert_eq!(
            call(h, "IDirectDraw::SetCooperativeLevel", &[dd, hwnd, coop]),
            DD_OK
        );
    }
    (dd, mem)
}

/// IDirectDraw::CreateSurface of a DDSURFACEDESC (108 bytes) with these fields; the
/// pixel format, when given, is (flags, bpp, r, g, b masks).
fn create(
    h: &mut Harness,
    dd: u32,
    mem: u32,
    flags: u32,
    caps: u32,
    size: (u32, u32),
    backs: u32,
    pf: Option<(u32, u32, u32, u32, u32)>,
) -> u32 {
    let d = mem + 0x100;
    let m = &h.proc.mem;
    m.write_bytes(d, &[0; 108]).unwrap();
    m.write_u32(d, 108).unwrap();
    m.write_u32(d + 4, flags).unwrap();
    m.write_u32(d + 8, size.1).unwrap();
    m.write_u32(d + 12, size.0).unwrap();
    m.write_u32(d + 20, backs).unwrap();
    if let Some((f, bpp, r, g, b)) = pf {
        for (k, v) in [32, f, 0, bpp, r, g, b].iter().enumerate() {
            m.write_u32(d + 72 + 4 * k as u32, *v).unwrap();
        }
    }
    m.write_u32(d + 104, caps).unwrap();
    m.write_u32(mem + 0x200, 0).unwrap();
    call(h, "IDirectDraw::CreateSurface", &[dd, d, mem + 0x200, 0])
}

const NORMAL: u32 = super::object::DDSCL_NORMAL;
const EXCLUSIVE: u32 = super::object::DDSCL_EXCLUSIVE | super::object::DDSCL_FULLSCREEN;
const WH: u32 = DDSD_WIDTH | DDSD_HEIGHT;

/// win4k fills only dwSize and ddsCaps (DDSCAPS_PRIMARYSURFACE), dwFlags 0: Windows
/// reads ddsCaps anyway and makes the primary surface.
#[test]
fn create_surface_reads_caps_without_ddsd_caps() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, EXCLUSIVE);
    let r = create(&mut h, dd, mem, 0, DDSCAPS_PRIMARYSURFACE, (0, 0), 0, None);
    assert_eq!(r, DD_OK);
    let p = h.proc.mem.read_u32(mem + 0x200).unwrap();
    let g = h.proc.ddraw.lock();
    let (_, id) = super::surface::this_surface(&g, p).unwrap();
    assert_eq!(g.primary, Some(id));
}

/// Caps left 0 with a size: an off-screen surface in video memory.
#[test]
fn create_surface_caps_zero_is_offscreen_video_memory() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, NORMAL);
    assert_eq!(create(&mut h, dd, mem, WH, 0, (32, 16), 0, None), DD_OK);
    assert_eq!(
        create(&mut h, dd, mem, DDSD_CAPS | WH, 0, (32, 16), 0, None),
        DD_OK
    );
    let p = h.proc.mem.read_u32(mem + 0x200).unwrap();
    let g = h.proc.ddraw.lock();
    let (_, id) = super::surface::this_surface(&g, p).unwrap();
    assert!(g.surfaces[&id].in_video_memory());
    assert_eq!((g.surfaces[&id].width, g.surfaces[&id].height), (32, 16));
}

/// Off-screen plain surfaces in system and in video memory are made; both at once is
/// DDERR_INVALIDCAPS.
#[test]
fn create_surface_memory_caps() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, NORMAL);
    for caps in [
        DDSCAPS_OFFSCREENPLAIN | DDSCAPS_SYSTEMMEMORY,
        DDSCAPS_OFFSCREENPLAIN | DDSCAPS_VIDEOMEMORY,
        DDSCAPS_OFFSCREENPLAIN,
    ] {
        let r = create(&mut h, dd, mem, DDSD_CAPS | WH, caps, (8, 8), 0, None);
        assert_eq!(r, DD_OK, "caps {caps:#x}");
    }
    let both = DDSCAPS_OFFSCREENPLAIN | DDSCAPS_SYSTEMMEMORY | DDSCAPS_VIDEOMEMORY;
    let r = create(&mut h, dd, mem, DDSD_CAPS | WH, both, (8, 8), 0, None);
    assert_eq!(r, DDERR_INVALIDCAPS);
}

/// Front and back buffers are made only by a flipping chain: asking for one alone
/// is DDERR_INVALIDCAPS.
#[test]
fn create_surface_refuses_explicit_front_and_back_buffers() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, EXCLUSIVE);
    for caps in [
        DDSCAPS_OFFSCREENPLAIN | DDSCAPS_BACKBUFFER,
        DDSCAPS_OFFSCREENPLAIN | DDSCAPS_FRONTBUFFER,
        DDSCAPS_PRIMARYSURFACE | DDSCAPS_BACKBUFFER,
    ] {
        let r = create(&mut h, dd, mem, DDSD_CAPS | WH, caps, (8, 8), 0, None);
        assert_eq!(r, DDERR_INVALIDCAPS, "caps {caps:#x}");
    }
}

/// A flipping primary chain takes its back buffer count (1 and 2 here); without
/// DDSCAPS_COMPLEX or the count it is DDERR_INVALIDCAPS.
#[test]
fn create_surface_back_buffer_counts() {
    let chain = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP | DDSCAPS_COMPLEX;
    for n in [1u32, 2] {
        let mut h = Harness::new();
        let (dd, mem) = ddraw_at(&mut h, EXCLUSIVE);
        let r = create(
            &mut h,
            dd,
            mem,
            DDSD_CAPS | DDSD_BACKBUFFERCOUNT,
            chain,
            (0, 0),
            n,
            None,
        );
        assert_eq!(r, DD_OK, "{n} back buffers");
        let p = h.proc.mem.read_u32(mem + 0x200).unwrap();
        let g = h.proc.ddraw.lock();
        let (_, id) = super::surface::this_surface(&g, p).unwrap();
        assert_eq!(g.surfaces[&id].chain.len() as u32, n + 1);
    }
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, EXCLUSIVE);
    let flip = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP;
    let r = create(
        &mut h,
        dd,
        mem,
        DDSD_CAPS | DDSD_BACKBUFFERCOUNT,
        flip,
        (0, 0),
        1,
        None,
    );
    assert_eq!(r, DDERR_INVALIDCAPS);
    assert_eq!(
        create(&mut h, dd, mem, DDSD_CAPS, chain, (0, 0), 0, None),
        DDERR_INVALIDCAPS
    );
}

/// Explicit pixel formats: 8 bpp palettised, RGB565 and XRGB8888 off-screen
/// surfaces whatever the display's depth.
#[test]
fn create_surface_explicit_pixel_formats() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, NORMAL);
    let flags = DDSD_CAPS | WH | DDSD_PIXELFORMAT;
    let caps = DDSCAPS_OFFSCREENPLAIN | DDSCAPS_SYSTEMMEMORY;
    for pf in [
        (0x20 | 0x40, 8, 0, 0, 0),
        (0x40, 16, 0xf800, 0x07e0, 0x001f),
        (0x40, 32, 0xff_0000, 0xff00, 0xff),
    ] {
        let r = create(&mut h, dd, mem, flags, caps, (8, 8), 0, Some(pf));
        assert_eq!(r, DD_OK, "{pf:x?}");
    }
}

/// A surface other than the primary needs its width and height.
#[test]
fn create_surface_offscreen_needs_a_size() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, NORMAL);
    let caps = DDSCAPS_OFFSCREENPLAIN;
    for flags in [DDSD_CAPS, DDSD_CAPS | DDSD_WIDTH, DDSD_CAPS | DDSD_HEIGHT] {
        let r = create(&mut h, dd, mem, flags, caps, (8, 8), 0, None);
        assert_eq!(r, DDERR_INVALIDPARAMS, "flags {flags:#x}");
    }
    assert_eq!(
        create(&mut h, dd, mem, DDSD_CAPS | WH, caps, (0, 8), 0, None),
        DDERR_INVALIDPARAMS
    );
}

/// SetDisplayMode in exclusive mode makes the cooperative window cover the new
/// screen (DX7 wormhole blits to its client rectangle in screen coordinates; its
/// 800x600 window would put that outside a 640x480 primary surface).
#[test]
fn exclusive_set_display_mode_moves_the_window_over_the_screen() {
    use crate::user32::window::{Create, GetWindowRect, create_window};
    let mut h = Harness::new();
    // Window messages go through the guest stack.
    let stack = h.scratch(0x10000);
    h.thread.cpu.regs[winterp_core::cpu::ESP] = stack + 0xff00;
    let hwnd = create_window(
        &mut h.cx(),
        Create {
            exstyle: 0,
            class: crate::user32::NameOrId::Name("STATIC".into()),
            class_ptr: 0,
            name_ptr: 0,
            style: 0x9000_0000, // WS_POPUP | WS_VISIBLE
            x: 0,
            y: 0,
            w: 800,
            h: 600,
            parent: 0,
            menu: 0,
            instance: 0,
            param: 0,
            unicode: false,
        },
    )
    .unwrap_or_else(|e| match e {
        crate::user32::Flow::Err(e) => panic!("create_window: {e:?}"),
        crate::user32::Flow::End(o) => panic!("create_window: {o:?}"),
    });
    assert_ne!(hwnd, 0);
    let (dd, mem) = ddraw_at(&mut h, 0);
    assert_eq!(
        call(
            &mut h,
            "IDirectDraw::SetCooperativeLevel",
            &[dd, hwnd, EXCLUSIVE]
        ),
        DD_OK
    );
    assert_eq!(
        call(&mut h, "IDirectDraw::SetDisplayMode", &[dd, 640, 480, 8]),
        DD_OK
    );
    assert!(GetWindowRect(&mut h.cx(), hwnd, Ptr(mem + 0x300)).unwrap());
    let r: Vec<u32> = (0..4)
        .map(|k| h.proc.mem.read_u32(mem + 0x300 + 4 * k).unwrap())
        .collect();
    assert_eq!(r, [0, 0, 640, 480]);
}

/// win4k calls ReleaseDC without pushing the DC (whatever is on the stack comes as
/// hDC): the surface's DC is released all the same; a second ReleaseDC has none.
#[test]
fn release_dc_releases_the_surfaces_dc_whatever_handle_comes() {
    let mut h = Harness::new();
    let (dd, mem) = ddraw_at(&mut h, NORMAL);
    let caps = DDSCAPS_OFFSCREENPLAIN | DDSCAPS_SYSTEMMEMORY;
    assert_eq!(
        create(&mut h, dd, mem, DDSD_CAPS | WH, caps, (8, 8), 0, None),
        DD_OK
    );
    let s = h.proc.mem.read_u32(mem + 0x200).unwrap();
    assert_eq!(
        call(&mut h, "IDirectDrawSurface::GetDC", &[s, mem + 0x300]),
        DD_OK
    );
    let hdc = h.proc.mem.read_u32(mem + 0x300).unwrap();
    assert_eq!(
        call(&mut h, "IDirectDrawSurface::ReleaseDC", &[s, 0x7fd0_0010]),
        DD_OK
    );
    assert_ne!(
        call(&mut h, "IDirectDrawSurface::ReleaseDC", &[s, hdc]),
        DD_OK
    );
}
