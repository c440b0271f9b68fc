//! dsound.dll: DirectSound over the sound contract.
//!
//! One device, "Primary Sound Driver", mixing in software. Every secondary buffer is
//! a voice: its play cursor advances on the guest clock at the buffer's frequency
//! (`cursor.rs`), what it played is captured as PCM chunks (`voice.rs`) before
//! anything changes what it will play, and position notifications are signalled by
//! the sound service thread at the guest time the cursor passes them.
//!
//! Decisions where Windows leaves a choice:
//! - The write cursor leads the play cursor by 10 ms of frames while playing and
//!   equals it while stopped.
//! - A one-shot buffer that reached its end is stopped with its position at 0.
//! - The primary buffer (default format 22050 Hz, 8-bit, stereo, as on Windows)
//!   accepts GetFormat/SetFormat (SetFormat needs DSSCL_PRIORITY or higher) and
//!   Play (DSBPLAY_LOOPING). Lock on it needs DSSCL_WRITEPRIMARY
//!   (DSERR_PRIOLEVELNEEDED otherwise); only then is it heard, as a looping voice of
//!   its own format.
//! - Buffers are never lost (no DSBSTATUS_BUFFERLOST, Restore succeeds).
//! - Control methods need the buffer's DSBCAPS_CTRL* flag (DSERR_CONTROLUNAVAIL).

#![allow(non_snake_case)]

pub mod buffer;
pub mod cursor;
pub mod voice;

use crate::hle::com::{self, Guid};
use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Outcome, Ptr, stdcall};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use voice::Buffer;

pub const DLL: HleDll = HleDll {
    name: "dsound.dll",
    exports,
    attach: None,
};

const fn dserr(code: u32) -> u32 {
    0x8878_0000 | code
}
pub const DS_OK: u32 = 0;
pub const DSERR_ALLOCATED: u32 = dserr(10);
pub const DSERR_CONTROLUNAVAIL: u32 = dserr(30);
pub const DSERR_INVALIDPARAM: u32 = com::E_INVALIDARG;
pub const DSERR_INVALIDCALL: u32 = dserr(50);
pub const DSERR_PRIOLEVELNEEDED: u32 = dserr(70);
pub const DSERR_OUTOFMEMORY: u32 = com::E_OUTOFMEMORY;
pub const DSERR_BADFORMAT: u32 = dserr(100);
pub const DSERR_NODRIVER: u32 = dserr(120);
pub const DSERR_ALREADYINITIALIZED: u32 = dserr(130);
pub const DSERR_UNINITIALIZED: u32 = dserr(170);
pub const DSERR_NOAGGREGATION: u32 = com::CLASS_E_NOAGGREGATION;
pub const DSERR_OBJECTNOTFOUND: u32 = dserr(4449);

pub const DSSCL_NORMAL: u32 = 1;
pub const DSSCL_PRIORITY: u32 = 2;
pub const DSSCL_WRITEPRIMARY: u32 = 4;

pub const IID_IDIRECTSOUND: Guid = Guid::new(
    0x279A_FA83,
    0x4981,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);
pub const IID_IDIRECTSOUND8: Guid = Guid::new(
    0xC50A_7E93,
    0xF395,
    0x4834,
    [0x9E, 0xF6, 0x7F, 0xA9, 0x9D, 0xE5, 0x09, 0x66],
);
pub const IID_IDIRECTSOUNDBUFFER: Guid = Guid::new(
    0x279A_FA85,
    0x4981,
    0x11CE,
    [0xA5, 0x21, 0x00, 0x20, 0xAF, 0x0B, 0xE5, 0x60],
);
pub const IID_IDIRECTSOUNDBUFFER8: Guid = Guid::new(
    0x6825_A449,
    0x7524,
    0x4D82,
    [0x92, 0x0F, 0x50, 0xE3, 0x6A, 0xB3, 0xAB, 0x1E],
);
pub const IID_IDIRECTSOUNDNOTIFY: Guid = Guid::new(
    0xB021_0783,
    0x89cd,
    0x11d0,
    [0xAF, 0x08, 0x00, 0xA0, 0xC9, 0x25, 0xCD, 0x16],
);
const DSDEVID_DEFAULTPLAYBACK: Guid = Guid::new(
    0xDEF0_0000,
    0x9C6D,
    0x47ED,
    [0xAA, 0xF1, 0x4D, 0xDA, 0x8F, 0x2B, 0x5C, 0x03],
);
const DSDEVID_DEFAULTVOICEPLAYBACK: Guid = Guid::new(
    0xDEF0_0002,
    0x9C6D,
    0x47ED,
    [0xAA, 0xF1, 0x4D, 0xDA, 0x8F, 0x2B, 0x5C, 0x03],
);

/// IDirectSound8's methods (IDirectSound's plus VerifyCertification, which an
/// IDirectSound caller never reaches).
const DEVICE_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "CreateSoundBuffer",
    "GetCaps",
    "DuplicateSoundBuffer",
    "SetCooperativeLevel",
    "Compact",
    "GetSpeakerConfig",
    "SetSpeakerConfig",
    "Initialize",
    "VerifyCertification",
];

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An IDirectSound object.
pub struct Device {
    pub st: Mutex<DeviceState>,
    pub is8: bool,
}

pub struct DeviceState {
    pub refs: u32,
    pub level: u32,
    pub speaker: u32,
    /// Its primary buffer's interface pointer once created.
    pub primary: u32,
    /// Interface pointers of the buffers it created (released with it).
    pub buffers: Vec<u32>,
    /// Made by CoCreateInstance and not yet initialised: every method but
    /// QueryInterface, AddRef, Release and Initialize fails with
    /// DSERR_UNINITIALIZED.
    pub uninitialised: bool,
}

pub enum Obj {
    Device(Arc<Device>),
    /// A buffer and the device that created it.
    Buffer(Arc<Buffer>, u32),
    /// IDirectSoundNotify of a buffer (its interface pointer).
    Notify(u32),
}

/// Per-process DirectSound state, in [`crate::process::Process::dsound`].
#[derive(Default)]
pub struct State {
    pub objects: Mutex<HashMap<u32, Obj>>,
    next_voice: AtomicU32,
}

/// Voice ids of DirectSound buffers: a counter in the low half, this in the high.
const VOICE_TAG: u64 = 2 << 32;

fn state(proc: &Process) -> &State {
    &proc.dsound
}

pub fn new_voice_id(proc: &Process) -> u64 {
    VOICE_TAG | u64::from(state(proc).next_voice.fetch_add(1, Ordering::Relaxed))
}

fn device(cx: &Ctx, this: u32) -> Option<Arc<Device>> {
    match lock(&state(cx.proc).objects).get(&this) {
        Some(Obj::Device(d)) => Some(d.clone()),
        _ => None,
    }
}

fn create(cx: &mut Ctx, lpGuid: Ptr, ppDS: Ptr, pUnkOuter: Ptr, is8: bool) -> ApiResult<u32> {
    if ppDS.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(ppDS.0, 0)?;
    if !pUnkOuter.is_null() {
        return Ok(DSERR_NOAGGREGATION);
    }
    if !lpGuid.is_null() {
        let g = Guid::read(cx.proc, lpGuid.0)?;
        if g != DSDEVID_DEFAULTPLAYBACK && g != DSDEVID_DEFAULTVOICEPLAYBACK {
            return Ok(DSERR_NODRIVER);
        }
    }
    let vt = com::vtable(cx.proc, "dsound.dll", "IDirectSound", DEVICE_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    let dev = Arc::new(Device {
        is8,
        st: Mutex::new(DeviceState {
            refs: 1,
            level: 0,
            // DSSPEAKER_COMBINED(DSSPEAKER_STEREO, DSSPEAKER_GEOMETRY_WIDE).
            speaker: 4 | (20 << 16),
            primary: 0,
            buffers: Vec::new(),
            uninitialised: false,
        }),
    });
    lock(&state(cx.proc).objects).insert(obj, Obj::Device(dev));
    cx.proc.mem.write_u32(ppDS.0, obj)?;
    Ok(DS_OK)
}

pub fn DirectSoundCreate(cx: &mut Ctx, lpGuid: Ptr, ppDS: Ptr, pUnkOuter: Ptr) -> ApiResult<u32> {
    create(cx, lpGuid, ppDS, pUnkOuter, false)
}

pub fn DirectSoundCreate8(cx: &mut Ctx, lpGuid: Ptr, ppDS: Ptr, pUnkOuter: Ptr) -> ApiResult<u32> {
    create(cx, lpGuid, ppDS, pUnkOuter, true)
}

/// Calls the enumeration callback once for the one device, with a NULL GUID as the
/// primary sound driver is listed on Windows.
fn enumerate(cx: &mut Ctx, cb: Ptr, ctx: u32, wide: bool) -> ApiResult<Outcome> {
    if cb.is_null() {
        return Ok(Outcome::Return(u64::from(DSERR_INVALIDPARAM)));
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let text = |s: &str| -> Vec<u8> {
        if wide {
            s.encode_utf16()
                .chain(std::iter::once(0))
                .flat_map(|u| u.to_le_bytes())
                .collect()
        } else {
            s.bytes().chain(std::iter::once(0)).collect()
        }
    };
    let desc = text("Primary Sound Driver");
    let module = text("");
    let p = heap.alloc((desc.len() + module.len()) as u32, false)?;
    if p == 0 {
        return Ok(Outcome::Return(u64::from(DSERR_OUTOFMEMORY)));
    }
    cx.proc.mem.write_bytes(p, &desc)?;
    let m = p + desc.len() as u32;
    cx.proc.mem.write_bytes(m, &module)?;
    let r = crate::msvcrt::state::call_guest(cx, cb.0, &[0, p, m, ctx])?;
    heap.free(p);
    match r {
        Ok(_) => Ok(Outcome::Return(u64::from(DS_OK))),
        Err(o) => Ok(o),
    }
}

pub fn DirectSoundEnumerateA(
    cx: &mut Ctx,
    lpDSEnumCallback: Ptr,
    lpContext: u32,
) -> ApiResult<Outcome> {
    enumerate(cx, lpDSEnumCallback, lpContext, false)
}

pub fn DirectSoundEnumerateW(
    cx: &mut Ctx,
    lpDSEnumCallback: Ptr,
    lpContext: u32,
) -> ApiResult<Outcome> {
    enumerate(cx, lpDSEnumCallback, lpContext, true)
}

fn ds_QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if riid.is_null() || ppv.is_null() {
        return Ok(com::E_POINTER);
    }
    let g = Guid::read(cx.proc, riid.0)?;
    if g == com::IID_IUNKNOWN || g == IID_IDIRECTSOUND || (g == IID_IDIRECTSOUND8 && dev.is8) {
        lock(&dev.st).refs += 1;
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(DS_OK);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(com::E_NOINTERFACE)
}

fn ds_AddRef(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(0);
    };
    let mut st = lock(&dev.st);
    st.refs += 1;
    Ok(st.refs)
}

fn ds_Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(0);
    };
    let (left, buffers) = {
        let mut st = lock(&dev.st);
        st.refs = st.refs.saturating_sub(1);
        (st.refs, std::mem::take(&mut st.buffers))
    };
    if left > 0 {
        lock(&dev.st).buffers = buffers;
        return Ok(left);
    }
    // As on Windows, the device takes its buffers with it.
    for b in buffers {
        buffer::destroy(cx, b)?;
    }
    lock(&state(cx.proc).objects).remove(&this);
    com::free_object(cx.proc, this)?;
    Ok(0)
}

fn ds_CreateSoundBuffer(
    cx: &mut Ctx,
    this: u32,
    desc: Ptr,
    ppBuf: Ptr,
    pUnkOuter: Ptr,
) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    buffer::create(cx, this, &dev, desc, ppBuf, pUnkOuter)
}

/// sizeof(DSCAPS).
const DSCAPS_SIZE: u32 = 96;

fn ds_GetCaps(cx: &mut Ctx, this: u32, caps: Ptr) -> ApiResult<u32> {
    if device(cx, this).is_none() || caps.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    if cx.proc.mem.read_u32(caps.0)? != DSCAPS_SIZE {
        return Ok(DSERR_INVALIDPARAM);
    }
    let mut v = [0u32; 24];
    v[0] = DSCAPS_SIZE;
    // PRIMARY{MONO,STEREO,8BIT,16BIT}, CONTINUOUSRATE, SECONDARY{MONO,STEREO,8BIT,16BIT}.
    v[1] = 0x0f | 0x10 | 0xf00;
    v[2] = 100;
    v[3] = 200_000;
    v[4] = 1;
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u32(caps.0 + 4 * k as u32, *x)?;
    }
    Ok(DS_OK)
}

fn ds_DuplicateSoundBuffer(cx: &mut Ctx, this: u32, orig: u32, ppDup: Ptr) -> ApiResult<u32> {
    if device(cx, this).is_none() || ppDup.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    buffer::duplicate(cx, this, orig, ppDup)
}

fn ds_SetCooperativeLevel(cx: &mut Ctx, this: u32, _hwnd: u32, level: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if !(DSSCL_NORMAL..=DSSCL_WRITEPRIMARY).contains(&level) {
        return Ok(DSERR_INVALIDPARAM);
    }
    let primary = {
        let mut st = lock(&dev.st);
        st.level = level;
        st.primary
    };
    if let Some(b) = buffer::get(cx, primary) {
        b.lock().audible = level == DSSCL_WRITEPRIMARY;
    }
    Ok(DS_OK)
}

fn ds_Compact(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    Ok(if lock(&dev.st).level >= DSSCL_PRIORITY {
        DS_OK
    } else {
        DSERR_PRIOLEVELNEEDED
    })
}

fn ds_GetSpeakerConfig(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if p.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    let v = lock(&dev.st).speaker;
    cx.proc.mem.write_u32(p.0, v)?;
    Ok(DS_OK)
}

fn ds_SetSpeakerConfig(cx: &mut Ctx, this: u32, v: u32) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    lock(&dev.st).speaker = v;
    Ok(DS_OK)
}

/// Initialises an object CoCreateInstance made, on the device the GUID names
/// (NULL or a default-device GUID: the one device); DirectSoundCreate's objects,
/// and objects initialised before, answer DSERR_ALREADYINITIALIZED.
fn ds_Initialize(cx: &mut Ctx, this: u32, guid: Ptr) -> ApiResult<u32> {
    let Some(dev) = device(cx, this) else {
        return Ok(DSERR_INVALIDPARAM);
    };
    if !lock(&dev.st).uninitialised {
        return Ok(DSERR_ALREADYINITIALIZED);
    }
    if !guid.is_null() {
        let g = Guid::read(cx.proc, guid.0)?;
        if g != DSDEVID_DEFAULTPLAYBACK && g != DSDEVID_DEFAULTVOICEPLAYBACK {
            return Ok(DSERR_NODRIVER);
        }
    }
    lock(&dev.st).uninitialised = false;
    Ok(DS_OK)
}

/// CoCreateInstance(CLSID_DirectSound or CLSID_DirectSound8, riid): an
/// uninitialised device object (E_NOINTERFACE for an IID it does not have).
pub(crate) fn co_create(cx: &mut Ctx, is8: bool, riid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    if *riid != com::IID_IUNKNOWN
        && *riid != IID_IDIRECTSOUND
        && !(is8 && *riid == IID_IDIRECTSOUND8)
    {
        return Ok(com::E_NOINTERFACE);
    }
    let hr = create(cx, Ptr(0), ppv, Ptr(0), is8)?;
    if hr == DS_OK {
        let obj = cx.proc.mem.read_u32(ppv.0)?;
        if let Some(dev) = device(cx, obj) {
            lock(&dev.st).uninitialised = true;
        }
    }
    Ok(hr)
}

/// Makes an IDirectSound method answer DSERR_UNINITIALIZED while its object
/// waits for Initialize.
fn needs_initialize(def: ApiDef) -> ApiDef {
    let crate::hle::ExportKind::Function { conv, nargs, glue } = def.kind else {
        return def;
    };
    ApiDef {
        kind: crate::hle::ExportKind::Function {
            conv,
            nargs,
            glue: Box::new(move |cx, stack| {
                let this = stack.first().copied().unwrap_or(0);
                if device(cx, this).is_some_and(|d| lock(&d.st).uninitialised) {
                    return Ok(Outcome::Return(u64::from(DSERR_UNINITIALIZED)));
                }
                glue(cx, stack)
            }),
        },
        ..def
    }
}

fn ds_VerifyCertification(cx: &mut Ctx, this: u32, p: Ptr) -> ApiResult<u32> {
    if device(cx, this).is_none() || p.is_null() {
        return Ok(DSERR_INVALIDPARAM);
    }
    // DS_UNCERTIFIED: an emulated driver carries no WHQL certificate.
    cx.proc.mem.write_u32(p.0, 1)?;
    Ok(DS_OK)
}

fn exports() -> Vec<ApiDef> {
    let v = vec![
        stdcall("DirectSoundCreate", DirectSoundCreate).ordinal(1),
        stdcall("DirectSoundEnumerateA", DirectSoundEnumerateA).ordinal(2),
        stdcall("DirectSoundEnumerateW", DirectSoundEnumerateW).ordinal(3),
        stdcall("DirectSoundCreate8", DirectSoundCreate8).ordinal(11),
        stdcall("IDirectSound::QueryInterface", ds_QueryInterface),
        stdcall("IDirectSound::AddRef", ds_AddRef),
        stdcall("IDirectSound::Release", ds_Release),
        stdcall("IDirectSound::CreateSoundBuffer", ds_CreateSoundBuffer),
        stdcall("IDirectSound::GetCaps", ds_GetCaps),
        stdcall(
            "IDirectSound::DuplicateSoundBuffer",
            ds_DuplicateSoundBuffer,
        ),
        stdcall("IDirectSound::SetCooperativeLevel", ds_SetCooperativeLevel),
        stdcall("IDirectSound::Compact", ds_Compact),
        stdcall("IDirectSound::GetSpeakerConfig", ds_GetSpeakerConfig),
        stdcall("IDirectSound::SetSpeakerConfig", ds_SetSpeakerConfig),
        stdcall("IDirectSound::Initialize", ds_Initialize),
        stdcall("IDirectSound::VerifyCertification", ds_VerifyCertification),
    ];
    let mut v: Vec<ApiDef> = v
        .into_iter()
        .map(|def| match def.name.strip_prefix("IDirectSound::") {
            Some("QueryInterface" | "AddRef" | "Release" | "Initialize") | None => def,
            Some(_) => needs_initialize(def),
        })
        .collect();
    v.extend(buffer::exports());
    v
}
