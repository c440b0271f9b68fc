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
