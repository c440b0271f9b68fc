//! ole32 unit tests: apartment counting, CoCreateInstance of the DirectX classes
//! (uninitialised until Initialize) and of registered class objects (guest code),
//! GUID text, the task allocator and CoCreateGuid. Expected values follow the COM
//! documentation and Wine's conformance tests where they pass on Windows.

use super::create::*;
use super::*;
use crate::hle::com::Guid;
use crate::hle::{ApiError, ApiResult, Ctx, Outcome};
use crate::host::CaptureHost;
use crate::process::ProcessConfig;
use crate::thread::GuestThread;
use winterp_core::mem::Prot;

struct Env {
    proc: Arc<Process>,
    thread: GuestThread,
    data: u32,
}

fn env_with(deterministic: bool) -> Env {
    let mut cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
    cfg.deterministic = deterministic;
    let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &crate::hle_dlls()).unwrap();
    let thread = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
    let data = proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1_0000, Prot::RWX, "test data")
        .unwrap();
    Env { proc, thread, data }
}

fn env() -> Env {
    env_with(false)
}

impl Env {
    fn try_call(&mut self, dll: &str, name: &str, args: &[u32]) -> ApiResult<u32> {
        let proc = self.proc.clone();
        let d = proc.hle_dll(dll).unwrap();
        let def = proc.dlls[d]
            .1
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no export {name}"));
        assert_eq!(
            def.conv_nargs().unwrap().1 as usize,
            args.len(),
            "{name}: argument count"
        );
        let mut cx = Ctx {
            proc: &proc,
            thread: &mut self.thread,
        };
        match def.call(&mut cx, args)? {
            Outcome::Return(v) => Ok(v as u32),
            o => panic!("{name}: {o:?}"),
        }
    }

    fn call_in(&mut self, dll: &str, name: &str, args: &[u32]) -> u32 {
        self.try_call(dll, name, args).unwrap()
    }

    fn call(&mut self, name: &str, args: &[u32]) -> u32 {
        self.call_in("ole32.dll", name, args)
    }

    fn u32_at(&self, a: u32) -> u32 {
        self.proc.mem.read_u32(a).unwrap()
    }

    fn put(&self, a: u32, v: u32) {
        self.proc.mem.write_u32(a, v).unwrap();
    }

    fn guid_at(&self, a: u32) -> Guid {
        Guid::read(&self.proc, a).unwrap()
    }

    fn put_guid(&self, a: u32, g: &Guid) {
        g.write(&self.proc, a).unwrap();
    }

    fn put_wstr(&self, a: u32, s: &str) {
        let mut b: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
        b.extend_from_slice(&[0, 0]);
        self.proc.mem.write_bytes(a, &b).unwrap();
    }

    fn wstr(&self, a: u32) -> String {
        let mut v = Vec::new();
        for k in 0.. {
            let u = self.proc.mem.read_u16(a + 2 * k).unwrap();
            if u == 0 {
                break;
            }
            v.push(u);
        }
        String::from_utf16(&v).unwrap()
    }

    /// CoCreateInstance(clsid, outer, context, iid) -> (hr, object).
    fn create(&mut self, clsid: &Guid, outer: u32, context: u32, iid: &Guid) -> (u32, u32) {
        let (c, i, out) = (self.data + 0xF00, self.data + 0xF10, self.data + 0xF20);
        self.put_guid(c, clsid);
        self.put_guid(i, iid);
        self.put(out, 0xdead_beef);
        let hr = self.call("CoCreateInstance", &[c, outer, context, i, out]);
        (hr, self.u32_at(out))
    }
}

const IID_IDIRECTDRAW: Guid = crate::ddraw::iface::IID_IDIRECTDRAW;
const IID_IDIRECTINPUTA: Guid = Guid::new(
    0x89521360,
    0xAA8A,
    0x11CF,
    [0xBF, 0xC7, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00],
);
const IID_IDIRECTINPUT8A: Guid = Guid::new(
    0xBF798030,
    0x483A,
    0x4DA2,
    [0xAA, 0x99, 0x5D, 0x64, 0xED, 0x36, 0x97, 0x00],
);
const CLSID_NOTHING: Guid = Guid::new(
    0x6b9d2f1a,
    0x0c4e,
    0x4d57,
    [0x9a, 0x3b, 0x7e, 0x2f, 0x1c, 0x8d, 0x4a, 0x60],
);

#[test]
fn apartments_count_per_thread() {
    let mut e = env();
    assert_eq!(
        e.create(&CLSID_DIRECTDRAW, 0, CLSCTX_INPROC_SERVER, &IID_IDIRECTDRAW),
        (CO_E_NOTINITIALIZED, 0)
    );
    assert_eq!(e.call("CoInitialize", &[0]), S_OK);
    assert_eq!(e.call("CoInitialize", &[0]), S_FALSE);
    assert_eq!(e.call("CoInitializeEx", &[0, 0]), RPC_E_CHANGED_MODE);
    assert_eq!(e.call("CoInitializeEx", &[0, 2]), S_FALSE);
    for _ in 0..3 {
        e.call("CoUninitialize", &[]);
    }
    // Out of the apartment: the next initialisation may choose the other model.
    assert_eq!(
        e.create(&CLSID_DIRECTDRAW, 0, CLSCTX_INPROC_SERVER, &IID_IDIRECTDRAW)
            .0,
        CO_E_NOTINITIALIZED
    );
    e.call("CoUninitialize", &[]); // one too many: nothing happens
    assert_eq!(e.call("CoInitializeEx", &[0, 0]), S_OK);
    assert_eq!(e.call("CoInitialize", &[0]), RPC_E_CHANGED_MODE);

    // Another thread is in the implicit MTA while this one is in the MTA.
    let mut other = crate::startup::new_thread(&e.proc, 0, 0, 0).unwrap();
    {
        let cx = Ctx {
            proc: &e.proc,
            thread: &mut other,
        };
        assert!(apartment::initialized(&cx));
        assert_eq!(apartment::apartment(&cx), Apartment::default());
    }
    e.call("CoUninitialize", &[]);
    let cx = Ctx {
        proc: &e.proc,
        thread: &mut other,
    };
    assert!(!apartment::initialized(&cx));
}

#[test]
fn ole_initialize_counts_on_top_of_com() {
    let mut e = env();
    // OleInitialize after CoInitialize is the first OLE initialisation: S_OK.
    assert_eq!(e.call("CoInitialize", &[0]), S_OK);
    assert_eq!(e.call("OleInitialize", &[0]), S_OK);
    assert_eq!(e.call("OleInitialize", &[0]), S_FALSE);
    e.call("OleUninitialize", &[]);
    e.call("OleUninitialize", &[]);
    // Extra OleUninitialize calls do not undo CoInitialize.
    e.call("OleUninitialize", &[]);
    e.call("OleUninitialize", &[]);
    let cx = Ctx {
        proc: &e.proc,
        thread: &mut e.thread,
    };
    assert!(apartment::initialized(&cx));
    assert_eq!(apartment::apartment(&cx).inits, 1);
    e.call("CoUninitialize", &[]);
    // OleInitialize on a multithreaded thread fails and counts nothing.
    assert_eq!(e.call("CoInitializeEx", &[0, 0]), S_OK);
    assert_eq!(e.call("OleInitialize", &[0]), RPC_E_CHANGED_MODE);
    e.call("OleUninitialize", &[]);
    let cx = Ctx {
        proc: &e.proc,
        thread: &mut e.thread,
    };
    assert_eq!(
        apartment::apartment(&cx),
        Apartment {
            inits: 1,
            mta: true,
            ole_inits: 0
        }
    );
}

#[test]
fn direct_draw_from_co_create_instance_waits_for_initialize() {
    let mut e = env();
    e.call("CoInitialize", &[0]);
    let (hr, dd) = e.create(&CLSID_DIRECTDRAW, 0, CLSCTX_INPROC_SERVER, &IID_IDIRECTDRAW);
    assert_eq!(hr, S_OK);
    let caps = e.data;
    e.put(caps, 380);
    let not_init = crate::ddraw::object::DDERR_NOTINITIALIZED;
    assert_eq!(not_init, CO_E_NOTINITIALIZED);
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::GetCaps", &[dd, caps, 0]),
        not_init
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::SetCooperativeLevel", &[dd, 0, 8]),
        not_init
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::Initialize", &[dd, 0]),
        0
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::Initialize", &[dd, 0]),
        crate::ddraw::object::DDERR_ALREADYINITIALIZED
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::GetCaps", &[dd, caps, 0]),
        0
    );
    assert_eq!(e.call_in("ddraw.dll", "IDirectDraw::Release", &[dd]), 0);
    // CLSID_DirectDraw7 as IDirectDraw7; an IID DirectDraw does not have.
    let (hr, dd7) = e.create(
        &CLSID_DIRECTDRAW7,
        0,
        CLSCTX_INPROC_SERVER,
        &crate::ddraw::iface::IID_IDIRECTDRAW7,
    );
    assert_eq!(hr, S_OK);
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw7::TestCooperativeLevel", &[dd7]),
        not_init
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw7::Initialize", &[dd7, 0]),
        0
    );
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw7::TestCooperativeLevel", &[dd7]),
        0
    );
    assert_eq!(
        e.create(
            &CLSID_DIRECTDRAW,
            0,
            CLSCTX_INPROC_SERVER,
            &IID_IDIRECTINPUTA
        ),
        (crate::hle::com::E_NOINTERFACE, 0)
    );
    // DirectDrawCreate's objects are initialised already.
    let out = e.data + 0x10;
    assert_eq!(e.call_in("ddraw.dll", "DirectDrawCreate", &[0, out, 0]), 0);
    let dd1 = e.u32_at(out);
    assert_eq!(
        e.call_in("ddraw.dll", "IDirectDraw::Initialize", &[dd1, 0]),
        crate::ddraw::object::DDERR_ALREADYINITIALIZED
    );
}

#[test]
fn direct_sound_from_co_create_instance_waits_for_initialize() {
    let mut e = env();
    e.call("CoInitialize", &[0]);
    let (hr, ds) = e.create(
        &CLSID_DIRECTSOUND,
        0,
        CLSCTX_INPROC_SERVER,
        &crate::dsound::IID_IDIRECTSOUND,
    );
    assert_eq!(hr, S_OK);
    let caps = e.data;
    e.put(caps, 96);
    let uninit = crate::dsound::DSERR_UNINITIALIZED;
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::GetCaps", &[ds, caps]),
        uninit
    );
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::GetCaps", &[ds, 0]),
        uninit
    );
    // An unknown device GUID: no driver, still uninitialised.
    let g = e.data + 0x100;
    e.put_guid(g, &Guid([5; 16]));
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::Initialize", &[ds, g]),
        crate::dsound::DSERR_NODRIVER
    );
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::Initialize", &[ds, 0]),
        0
    );
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::Initialize", &[ds, 0]),
        crate::dsound::DSERR_ALREADYINITIALIZED
    );
    assert_eq!(
        e.call_in("dsound.dll", "IDirectSound::GetCaps", &[ds, caps]),
        0
    );
    assert_eq!(e.call_in("dsound.dll", "IDirectSound::Release", &[ds]), 0);
    // IDirectSound8 only from CLSID_DirectSound8.
    assert_eq!(
        e.create(
            &CLSID_DIRECTSOUND,
            0,
            CLSCTX_INPROC_SERVER,
            &crate::dsound::IID_IDIRECTSOUND8
        ),
        (crate::hle::com::E_NOINTERFACE, 0)
    );
    assert_eq!(
        e.create(
            &CLSID_DIRECTSOUND8,
            0,
            CLSCTX_INPROC_SERVER,
            &crate::dsound::IID_IDIRECTSOUND8
        )
        .0,
        S_OK
    );
}

#[test]
fn direct_input_from_co_create_instance_waits_for_initialize() {
    let mut e = env();
    e.call("CoInitialize", &[0]);
    let (hr, di) = e.create(
        &CLSID_DIRECTINPUT,
        0,
        CLSCTX_INPROC_SERVER,
        &IID_IDIRECTINPUTA,
    );
    assert_eq!(hr, S_OK);
    let kb = e.data;
    e.put_guid(kb, &crate::dinput::GUID_SYS_KEYBOARD);
    let not_init = crate::dinput::DIERR_NOTINITIALIZED;
    assert_eq!(
        e.call_in("dinput.dll", "IDirectInput7A::GetDeviceStatus", &[di, kb]),
        not_init
    );
    let out = e.data + 0x20;
    assert_eq!(
        e.call_in(
            "dinput.dll",
            "IDirectInput7A::CreateDevice",
            &[di, kb, out, 0]
        ),
        not_init
    );
    assert_eq!(e.u32_at(out), 0);
    let hinst = 0x40_0000;
    for (h, v, want) in [
        (0, 0x0700, crate::dinput::DIERR_INVALIDPARAM),
        (hinst, 0, not_init),
        (hinst, 0x0123, crate::dinput::DIERR_BETADIRECTINPUTVERSION),
        (hinst, 0xcafe, crate::dinput::DIERR_OLDDIRECTINPUTVERSION),
        (hinst, 0x0500, 0),
        (hinst, 0x0700, 0),
    ] {
        assert_eq!(
            e.call_in("dinput.dll", "IDirectInput7A::Initialize", &[di, h, v]),
            want,
            "Initialize({h:#x}, {v:#x})"
        );
    }
    assert_eq!(
        e.call_in("dinput.dll", "IDirectInput7A::GetDeviceStatus", &[di, kb]),
        0
    );
    // DirectInput 8 is a different DLL, which winterp does not have.
    let (c, i, o) = (e.data + 0x100, e.data + 0x110, e.data + 0x120);
    e.put_guid(c, &CLSID_DIRECTINPUT8);
    e.put_guid(i, &IID_IDIRECTINPUT8A);
    match e.try_call("ole32.dll", "CoCreateInstance", &[c, 0, 1, i, o]) {
        Err(ApiError::UnimplementedCase(what)) => assert!(what.contains("CLSID_DirectInput8")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn other_classes_are_not_registered() {
    let mut e = env();
    e.call("CoInitialize", &[0]);
    let unk = crate::hle::com::IID_IUNKNOWN;
    assert_eq!(
        e.create(&CLSID_NOTHING, 0, 0x17, &unk),
        (REGDB_E_CLASSNOTREG, 0)
    );
    // The DirectX classes are in-process servers only.
    assert_eq!(
        e.create(&CLSID_DIRECTDRAW, 0, 0x4, &unk),
        (REGDB_E_CLASSNOTREG, 0)
    );
    assert_eq!(
        e.create(&CLSID_DIRECTDRAW, 0x1234, CLSCTX_INPROC_SERVER, &unk),
        (crate::hle::com::CLASS_E_NOAGGREGATION, 0)
    );
    let (hr, dp) = e.create(&crate::dplayx::CLSID_DIRECTPLAY, 0, 0x17, &unk);
    assert_eq!(hr, S_OK);
    assert_ne!(dp, 0);
    let (hr, lobby) = e.create(&crate::dplayx::CLSID_DIRECTPLAYLOBBY, 0, 0x17, &unk);
    assert_eq!(hr, S_OK);
    assert_ne!(lobby, 0);
    let ppv = e.data + 0x200;
    assert_eq!(
        e.call("CoCreateInstance", &[e.data, 0, 1, e.data, 0]),
        crate::hle::com::E_POINTER
    );
    assert_eq!(
        e.call("CoCreateInstance", &[0, 0, 1, e.data, ppv]),
        E_INVALIDARG
    );
}

/// A class object in guest code: QueryInterface hands out itself (with a
/// reference), AddRef/Release count in a dword, CreateInstance returns 0x12345678.
fn guest_class_object(e: &Env) -> (u32, u32) {
    let count = e.data + 0x2000;
    let c = count.to_le_bytes();
    let code = e.data + 0x2100;
    let qi = code;
    let mut q = vec![0xff, 0x05, c[0], c[1], c[2], c[3]];
    q.extend_from_slice(&[
        0x8b, 0x44, 0x24, 0x0c, 0x8b, 0x4c, 0x24, 0x04, 0x89, 0x08, 0x31, 0xc0, 0xc2, 0x0c, 0x00,
    ]);
    let add_ref = code + 0x40;
    let a = [
        0xff, 0x05, c[0], c[1], c[2], c[3], 0xa1, c[0], c[1], c[2], c[3], 0xc2, 0x04, 0x00,
    ];
    let release = code + 0x60;
    let r = [
        0xff, 0x0d, c[0], c[1], c[2], c[3], 0xa1, c[0], c[1], c[2], c[3], 0xc2, 0x04, 0x00,
    ];
    let create = code + 0x80;
    let ci = [
        0x8b, 0x44, 0x24, 0x10, 0xc7, 0x00, 0x78, 0x56, 0x34, 0x12, 0x31, 0xc0, 0xc2, 0x10, 0x00,
    ];
    for (at, bytes) in [
        (qi, q.as_slice()),
        (add_ref, &a[..]),
        (release, &r[..]),
        (create, &ci[..]),
    ] {
        e.proc.mem.write_bytes(at, bytes).unwrap();
    }
    let vtbl = e.data + 0x2200;
    for (k, f) in [qi, add_ref, release, create].iter().enumerate() {
        e.put(vtbl + 4 * k as u32, *f);
    }
    let obj = e.data + 0x2300;
    e.put(obj, vtbl);
    (obj, count)
}

#[test]
fn registered_class_objects_create_instances() {
    let mut e = env();
    let (obj, count) = guest_class_object(&e);
    let clsid = e.data + 0x100;
    let cookie = e.data + 0x120;
    e.put_guid(clsid, &CLSID_NOTHING);
    assert_eq!(
        e.call("CoRegisterClassObject", &[clsid, obj, 1, 1, cookie]),
        CO_E_NOTINITIALIZED
    );
    e.call("CoInitialize", &[0]);
    assert_eq!(
        e.call("CoRegisterClassObject", &[clsid, obj, 1, 1, cookie]),
        S_OK
    );
    assert_eq!(e.u32_at(count), 1, "the registration holds a reference");
    let unk = crate::hle::com::IID_IUNKNOWN;
    assert_eq!(e.create(&CLSID_NOTHING, 0, 1, &unk), (S_OK, 0x1234_5678));
    assert_eq!(e.u32_at(count), 1, "the factory was released after use");
    // Not registered for local servers.
    assert_eq!(e.create(&CLSID_NOTHING, 0, 4, &unk).0, REGDB_E_CLASSNOTREG);
    let c = e.u32_at(cookie);
    assert_eq!(e.call("CoRevokeClassObject", &[c]), S_OK);
    assert_eq!(e.u32_at(count), 0);
    assert_eq!(e.call("CoRevokeClassObject", &[c]), CO_E_OBJNOTREG);
    assert_eq!(e.create(&CLSID_NOTHING, 0, 1, &unk).0, REGDB_E_CLASSNOTREG);
    // Leaving the apartment revokes what the thread registered.
    assert_eq!(
        e.call("CoRegisterClassObject", &[clsid, obj, 1, 1, cookie]),
        S_OK
    );
    assert_eq!(e.u32_at(count), 1);
    e.call("CoUninitialize", &[]);
    assert_eq!(e.u32_at(count), 0);
}

#[test]
fn guid_text_round_trips_and_bad_text_is_stored_as_far_as_it_parses() {
    let mut e = env();
    let s = e.data;
    let g = e.data + 0x200;
    let text = "{6C14DB80-A733-11CE-A521-0020AF0BE560}";
    e.put_wstr(s, text);
    assert_eq!(e.call("CLSIDFromString", &[s, g]), S_OK);
    assert_eq!(e.guid_at(g), IID_IDIRECTDRAW);
    assert_eq!(e.call("IIDFromString", &[s, g]), S_OK);
    // NULL is GUID_NULL.
    e.put_guid(g, &Guid([0xab; 16]));
    assert_eq!(e.call("CLSIDFromString", &[0, g]), S_OK);
    assert_eq!(e.guid_at(g), Guid([0; 16]));
    // Longer than a GUID: every field stored, CO_E_CLASSSTRING.
    e.put_wstr(s, &format!("{text}AAAA"));
    e.put_guid(g, &Guid([0; 16]));
    assert_eq!(e.call("CLSIDFromString", &[s, g]), CO_E_CLASSSTRING);
    assert_eq!(e.guid_at(g), IID_IDIRECTDRAW);
    assert_eq!(e.call("IIDFromString", &[s, g]), E_INVALIDARG);
    // A bad separator after Data1: Data1 stored, Data2 untouched.
    e.put_wstr(s, "{6C14DB80*A733-11CE-A521-0020AF0BE560}");
    e.put_guid(g, &Guid([0xcc; 16]));
    assert_eq!(e.call("CLSIDFromString", &[s, g]), CO_E_CLASSSTRING);
    let got = e.guid_at(g).0;
    assert_eq!(&got[..4], &0x6C14DB80u32.to_le_bytes());
    assert_eq!(&got[4..6], &[0xcc, 0xcc]);
    // Data1 broken off after two digits: those digits are Data1.
    e.put_wstr(s, "{6C*4DB80-A733-11CE-A521-0020AF0BE560}");
    e.put_guid(g, &Guid([0xcc; 16]));
    assert_eq!(e.call("CLSIDFromString", &[s, g]), CO_E_CLASSSTRING);
    assert_eq!(&e.guid_at(g).0[..6], &[0x6c, 0, 0, 0, 0xcc, 0xcc]);
    // IIDFromString: right length, not braced -> CO_E_IIDSTRING, untouched.
    e.put_wstr(s, "x6C14DB80-A733-11CE-A521-0020AF0BE560}");
    e.put_guid(g, &Guid([0xab; 16]));
    assert_eq!(e.call("IIDFromString", &[s, g]), CO_E_IIDSTRING);
    assert_eq!(e.guid_at(g), Guid([0xab; 16]));
    // A ProgID is not looked up: reported.
    e.put_wstr(s, "StdFont");
    assert!(matches!(
        e.try_call("ole32.dll", "CLSIDFromString", &[s, g]),
        Err(ApiError::UnimplementedCase(_))
    ));
    // StringFromGUID2 needs room for 39 characters.
    e.put_guid(g, &IID_IDIRECTDRAW);
    let out = e.data + 0x400;
    assert_eq!(e.call("StringFromGUID2", &[g, out, 39]), 39);
    assert_eq!(e.wstr(out), text);
    assert_eq!(e.call("StringFromGUID2", &[g, out, 38]), 0);
    assert_eq!(e.call("StringFromGUID2", &[0, out, 50]), 0);
    let pp = e.data + 0x500;
    assert_eq!(e.call("StringFromCLSID", &[g, pp]), S_OK);
    assert_eq!(e.wstr(e.u32_at(pp)), text);
    e.call("CoTaskMemFree", &[e.u32_at(pp)]);
}

#[test]
fn the_task_allocator_is_the_imalloc() {
    let mut e = env();
    let p = e.call("CoTaskMemAlloc", &[100]);
    assert_ne!(p, 0);
    let pm = e.data;
    assert_eq!(e.call("CoGetMalloc", &[1, pm]), S_OK);
    let m = e.u32_at(pm);
    assert_eq!(e.call("CoGetMalloc", &[0, pm]), E_INVALIDARG);
    assert_eq!(e.call("IMalloc::GetSize", &[m, p]), 100);
    assert_eq!(e.call("IMalloc::DidAlloc", &[m, p]), 1);
    assert_eq!(e.call("IMalloc::DidAlloc", &[m, 0]), u32::MAX);
    assert_eq!(e.call("IMalloc::DidAlloc", &[m, e.data]), 0);
    e.proc.mem.write_bytes(p, b"keep").unwrap();
    let p2 = e.call("CoTaskMemRealloc", &[p, 5000]);
    assert_ne!(p2, 0);
    assert_eq!(e.call("IMalloc::GetSize", &[m, p2]), 5000);
    let mut b = [0u8; 4];
    e.proc.mem.read_bytes(p2, &mut b).unwrap();
    assert_eq!(&b, b"keep");
    // Realloc to 0 frees and returns NULL; a foreign pointer fails.
    assert_eq!(e.call("IMalloc::Realloc", &[m, p2, 0]), 0);
    assert_eq!(e.call("IMalloc::DidAlloc", &[m, p2]), 0);
    assert_eq!(e.call("CoTaskMemRealloc", &[e.data, 10]), 0);
    let q = e.call("IMalloc::Alloc", &[m, 16]);
    assert_eq!(e.call("IMalloc::GetSize", &[m, q]), 16);
    e.call("CoTaskMemFree", &[q]);
    assert_eq!(e.call("IMalloc::GetSize", &[m, q]), u32::MAX);
    e.call("CoTaskMemFree", &[0]);
    // QueryInterface: IUnknown and IMalloc are the object itself.
    let iid = e.data + 0x10;
    e.put_guid(iid, &malloc::IID_IMALLOC);
    assert_eq!(e.call("IMalloc::QueryInterface", &[m, iid, pm]), S_OK);
    assert_eq!(e.u32_at(pm), m);
    e.put_guid(iid, &IID_IDIRECTDRAW);
    assert_eq!(
        e.call("IMalloc::QueryInterface", &[m, iid, pm]),
        crate::hle::com::E_NOINTERFACE
    );
}

#[test]
fn co_create_guid_makes_version_4_guids_reproducibly_when_deterministic() {
    let run = |deterministic: bool| {
        let mut e = env_with(deterministic);
        let g = e.data;
        let mut out = Vec::new();
        for _ in 0..3 {
            assert_eq!(e.call("CoCreateGuid", &[g]), S_OK);
            let b = e.guid_at(g).0;
            assert_eq!(b[7] >> 4, 4, "version 4");
            assert_eq!(b[8] >> 6, 0b10, "RFC 4122 variant");
            out.push(b);
        }
        assert_eq!(e.call("CoCreateGuid", &[0]), E_INVALIDARG);
        out
    };
    let a = run(true);
    assert_ne!(a[0], a[1]);
    assert_eq!(a, run(true));
    assert_ne!(run(false), run(false));
}
