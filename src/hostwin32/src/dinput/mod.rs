//! dinput.dll: DirectInput 3 to 7 (A and W).
//!
//! One IDirectInput object per DirectInputCreate serves every version of its
//! character set (the version 7 method table starts with the older ones'), and so
//! does one device object for IDirectInputDevice, 2 and 7. Devices: the system
//! keyboard (DIK codes from the host's set-1 scan codes, 0x80 added for E0-prefixed
//! keys), the system mouse (relative X/Y from pointer moves, Z from the wheel,
//! three buttons) and one joystick per connected host pad (six axes, a hat, ten
//! buttons, as the joystick API sees it). Every host input event reaches
//! [`on_input`] first; acquired devices update their state and, with
//! DIPROP_BUFFERSIZE set, buffer one DIDEVICEOBJECTDATA per changed object. All
//! objects changed by one host event share its sequence number; time stamps are on
//! GetTickCount's scale.
//!
//! Methods outside this set are exports that stop the program with a report naming
//! them (for example `IDirectInputDevice7A::CreateEffect`: no force feedback).

#![allow(non_snake_case)]

pub mod device;

use crate::display::{InputEvent, MAX_PADS, MouseButton};
use crate::hle::com::{self, Guid};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Outcome, Ptr, stdcall};
use crate::process::Process;
use device::{Device, Format, FormatEntry, Kind};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub const DLL: HleDll = HleDll {
    name: "dinput.dll",
    exports,
    attach: None,
};

const DLL_NAME: &str = "dinput.dll";

pub const DI_OK: u32 = 0;
pub const DI_NOEFFECT: u32 = 1;
pub const DI_BUFFEROVERFLOW: u32 = 1;
pub const DIERR_INVALIDPARAM: u32 = com::E_INVALIDARG;
pub const DIERR_NOINTERFACE: u32 = com::E_NOINTERFACE;
pub const DIERR_UNSUPPORTED: u32 = 0x8000_4001;
pub const DIERR_OLDDIRECTINPUTVERSION: u32 = 0x8007_047E;
pub const DIERR_BETADIRECTINPUTVERSION: u32 = 0x8007_0481;
pub const DIERR_DEVICENOTREG: u32 = 0x8004_0154;
pub const DIERR_OBJECTNOTFOUND: u32 = 0x8007_0002;
pub const DIERR_INPUTLOST: u32 = 0x8007_001E;
pub const DIERR_ACQUIRED: u32 = 0x8007_00AA;
pub const DIERR_NOTACQUIRED: u32 = 0x8007_000C;
pub const DIERR_NOTBUFFERED: u32 = 0x8004_0207;
pub const DIERR_UNPLUGGED: u32 = 0x8004_0209;
pub const DIERR_NOTINITIALIZED: u32 = 0x8007_0015;

const fn di_guid(d1: u32, d2: u16, d3: u16) -> Guid {
    Guid::new(d1, d2, d3, [0xBF, 0xC7, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00])
}
const fn di7_guid(d1: u32, d2: u16, d3: u16) -> Guid {
    Guid::new(d1, d2, d3, [0x8E, 0x9D, 0x00, 0xC0, 0x4F, 0x68, 0x44, 0xAE])
}

const IID_IDIRECTINPUT_A: [Guid; 3] = [
    di_guid(0x89521360, 0xAA8A, 0x11CF),
    di_guid(0x5944E662, 0xAA8A, 0x11CF),
    di7_guid(0x9A4CB684, 0x236D, 0x11D3),
];
const IID_IDIRECTINPUT_W: [Guid; 3] = [
    di_guid(0x89521361, 0xAA8A, 0x11CF),
    di_guid(0x5944E663, 0xAA8A, 0x11CF),
    di7_guid(0x9A4CB685, 0x236D, 0x11D3),
];
const IID_IDIRECTINPUTDEVICE_A: [Guid; 3] = [
    di_guid(0x5944E680, 0xC92E, 0x11CF),
    di_guid(0x5944E682, 0xC92E, 0x11CF),
    di7_guid(0x57D7C6BC, 0x2356, 0x11D3),
];
const IID_IDIRECTINPUTDEVICE_W: [Guid; 3] = [
    di_guid(0x5944E681, 0xC92E, 0x11CF),
    di_guid(0x5944E683, 0xC92E, 0x11CF),
    di7_guid(0x57D7C6BD, 0x2356, 0x11D3),
];
pub const GUID_SYS_MOUSE: Guid = di_guid(0x6F1D2B60, 0xD5A0, 0x11CF);
pub const GUID_SYS_KEYBOARD: Guid = di_guid(0x6F1D2B61, 0xD5A0, 0x11CF);

/// The instance GUID of the joystick on pad slot `n` (winterp's own numbering).
pub fn joystick_instance(n: usize) -> Guid {
    Guid::new(
        0x7717_0000 + n as u32,
        0xD0A0,
        0x11F1,
        [0x80, 0x00, b'w', b'i', b'n', b't', b'r', b'p'],
    )
}

/// The product GUID DirectInput gives a HID game controller: the USB vendor and
/// product ids in Data1 and "PIDVID" after them (the same ids joyGetDevCaps reports).
pub fn joystick_product() -> Guid {
    Guid::new(
        0x028E_045E,
        0,
        0,
        [0, 0, b'P', b'I', b'D', b'V', b'I', b'D'],
    )
}

const DI_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "CreateDevice",
    "EnumDevices",
    "GetDeviceStatus",
    "RunControlPanel",
    "Initialize",
    "FindDevice",
    "CreateDeviceEx",
];

const DEVICE_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "GetCapabilities",
    "EnumObjects",
    "GetProperty",
    "SetProperty",
    "Acquire",
    "Unacquire",
    "GetDeviceState",
    "GetDeviceData",
    "SetDataFormat",
    "SetEventNotification",
    "SetCooperativeLevel",
    "GetObjectInfo",
    "GetDeviceInfo",
    "RunControlPanel",
    "Initialize",
    "CreateEffect",
    "EnumEffects",
    "GetEffectInfo",
    "GetForceFeedbackState",
    "SendForceFeedbackCommand",
    "EnumCreatedEffectObjects",
    "Escape",
    "Poll",
    "SendDeviceData",
    "EnumEffectsInFile",
    "WriteEffectToFile",
];

/// An IDirectInput object.
struct DiObj {
    wide: bool,
    /// The dwVersion it was created for (sizes of structures it fills); 0 while
    /// an object CoCreateInstance made waits for Initialize.
    version: u32,
    refs: u32,
}

/// Per-process DirectInput state, in [`crate::process::Process::dinput`].
#[derive(Default)]
pub struct State {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    dis: HashMap<u32, DiObj>,
    devices: HashMap<u32, Device>,
    /// The last host event's sequence number.
    seq: u32,
    /// Where the host pointer was last (guest frame pixels), for relative motion.
    last_mouse: Option<(i32, i32)>,
}

fn st(proc: &Process) -> MutexGuard<'_, Inner> {
    proc.dinput.inner.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every host input event passes here first so acquired devices can update their
/// state and buffers.
pub fn on_input(proc: &Arc<Process>, ev: &InputEvent) {
    let mut s = st(proc);
    if s.devices.is_empty() {
        // Still follow the pointer, so the first motion after CreateDevice is right.
        if let Some(p) = pointer_of(ev) {
            s.last_mouse = Some(p);
        }
        return;
    }
    let time = (crate::kernel32::time::BOOT_MILLIS
        + crate::kernel32::time::micros_at_slice_boundary(proc) / 1000) as u32;
    s.seq = s.seq.wrapping_add(1);
    let seq = s.seq;
    let motion = match pointer_of(ev) {
        Some(p) => {
            let d = s.last_mouse.map_or((0, 0), |l| (p.0 - l.0, p.1 - l.1));
            s.last_mouse = Some(p);
            d
        }
        None => (0, 0),
    };
    let wheel = match ev {
        InputEvent::Wheel { delta, .. } => *delta,
        _ => 0,
    };
    let mut notify = Vec::new();
    for d in s.devices.values_mut() {
        let (changes, was_acquired) = (d.changes, d.acquired);
        match (d.kind, ev) {
            (
                Kind::Keyboard,
                InputEvent::Key {
                    scancode,
                    extended,
                    down,
                    ..
                },
            ) => {
                let dik = (*scancode as u8 & 0x7F) | if *extended { 0x80 } else { 0 };
                d.key(dik, *down, time, seq);
            }
            (Kind::Mouse, _) => {
                if motion != (0, 0) || wheel != 0 {
                    d.mouse_motion([motion.0, motion.1, wheel], time, seq);
                }
                if let InputEvent::MouseButton { button, down, .. } = ev {
                    let b = match button {
                        MouseButton::Left => 0,
                        MouseButton::Right => 1,
                        MouseButton::Middle => 2,
                    };
                    d.mouse_button(b, *down, time, seq);
                }
            }
            (Kind::Joystick(n), InputEvent::Pad { index, state }) if usize::from(*index) == n => {
                d.pad_changed(*state, time, seq);
            }
            _ => {}
        }
        if let InputEvent::Focus(false) = ev
            && d.coop & DISCL_FOREGROUND != 0
            && d.acquired
        {
            d.acquired = false;
            d.lost = true;
        }
        let changed = d.acquired && d.changes != changes;
        let lost = was_acquired && !d.acquired;
        if (changed || lost)
            && let Some(e) = &d.notify
        {
            notify.push(e.clone());
        }
    }
    drop(s);
    for e in notify {
        crate::kernel32::sync::set_event_object(proc, &e);
    }
}

fn pointer_of(ev: &InputEvent) -> Option<(i32, i32)> {
    match *ev {
        InputEvent::MouseMove { x, y }
        | InputEvent::MouseButton { x, y, .. }
        | InputEvent::Wheel { x, y, .. } => Some((x, y)),
        _ => None,
    }
}

const DISCL_EXCLUSIVE: u32 = 1;
const DISCL_NONEXCLUSIVE: u32 = 2;
const DISCL_FOREGROUND: u32 = 4;
const DISCL_BACKGROUND: u32 = 8;

// ---- DirectInputCreate ---------------------------------------------------------------

fn create_di(cx: &mut Ctx, version: u32, wide: bool, out: Ptr, outer: u32) -> ApiResult<u32> {
    if out.is_null() {
        return Ok(com::E_POINTER);
    }
    cx.proc.mem.write_u32(out.0, 0)?;
    if outer != 0 {
        return Ok(com::CLASS_E_NOAGGREGATION);
    }
    if version < 0x0300 {
        return Ok(DIERR_OLDDIRECTINPUTVERSION);
    }
    if version > 0x0700 {
        return Ok(DIERR_BETADIRECTINPUTVERSION);
    }
    let iface = if wide {
        "IDirectInput7W"
    } else {
        "IDirectInput7A"
    };
    let vt = com::vtable(cx.proc, DLL_NAME, iface, DI_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    st(cx.proc).dis.insert(
        obj,
        DiObj {
            wide,
            version,
            refs: 1,
        },
    );
    cx.proc.mem.write_u32(out.0, obj)?;
    Ok(DI_OK)
}

/// CoCreateInstance(CLSID_DirectInput, riid): an uninitialised IDirectInput of
/// the character set `riid` names (E_NOINTERFACE for another interface).
pub(crate) fn co_create(cx: &mut Ctx, riid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    let wide = if IID_IDIRECTINPUT_W.contains(riid) {
        true
    } else if IID_IDIRECTINPUT_A.contains(riid) || *riid == com::IID_IUNKNOWN {
        false
    } else {
        return Ok(com::E_NOINTERFACE);
    };
    let iface = if wide {
        "IDirectInput7W"
    } else {
        "IDirectInput7A"
    };
    let vt = com::vtable(cx.proc, DLL_NAME, iface, DI_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    st(cx.proc).dis.insert(
        obj,
        DiObj {
            wide,
            version: 0,
            refs: 1,
        },
    );
    cx.proc.mem.write_u32(ppv.0, obj)?;
    Ok(DI_OK)
}

pub fn DirectInputCreateA(
    cx: &mut Ctx,
    _hinst: u32,
    dwVersion: u32,
    ppDI: Ptr,
    punkOuter: u32,
) -> ApiResult<u32> {
    create_di(cx, dwVersion, false, ppDI, punkOuter)
}

pub fn DirectInputCreateW(
    cx: &mut Ctx,
    _hinst: u32,
    dwVersion: u32,
    ppDI: Ptr,
    punkOuter: u32,
) -> ApiResult<u32> {
    create_di(cx, dwVersion, true, ppDI, punkOuter)
}

pub fn DirectInputCreateEx(
    cx: &mut Ctx,
    _hinst: u32,
    dwVersion: u32,
    riid: Ptr,
    ppvOut: Ptr,
    punkOuter: u32,
) -> ApiResult<u32> {
    let iid = Guid::read(cx.proc, riid.0)?;
    let wide = if IID_IDIRECTINPUT_A.contains(&iid) {
        false
    } else if IID_IDIRECTINPUT_W.contains(&iid) {
        true
    } else {
        if !ppvOut.is_null() {
            cx.proc.mem.write_u32(ppvOut.0, 0)?;
        }
        return Ok(DIERR_NOINTERFACE);
    };
    create_di(cx, dwVersion, wide, ppvOut, punkOuter)
}

// ---- IDirectInput ----------------------------------------------------------------------

fn di_of(cx: &Ctx, this: u32) -> ApiResult<(bool, u32)> {
    match st(cx.proc).dis.get(&this) {
        Some(d) => Ok((d.wide, d.version)),
        None => Err(ApiError::Other(format!(
            "IDirectInput method called on {this:#010x}, which is not a DirectInput object"
        ))),
    }
}

fn DI_QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    let (wide, _) = di_of(cx, this)?;
    let iid = Guid::read(cx.proc, riid.0)?;
    let ok = iid == com::IID_IUNKNOWN
        || if wide {
            IID_IDIRECTINPUT_W.contains(&iid)
        } else {
            IID_IDIRECTINPUT_A.contains(&iid)
        };
    if !ok {
        cx.proc.mem.write_u32(ppv.0, 0)?;
        return Ok(DIERR_NOINTERFACE);
    }
    if let Some(d) = st(cx.proc).dis.get_mut(&this) {
        d.refs += 1;
    }
    cx.proc.mem.write_u32(ppv.0, this)?;
    Ok(DI_OK)
}

fn DI_AddRef(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    di_of(cx, this)?;
    let mut s = st(cx.proc);
    let d = s.dis.get_mut(&this).map(|d| {
        d.refs += 1;
        d.refs
    });
    Ok(d.unwrap_or(0))
}

fn DI_Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    di_of(cx, this)?;
    let left = {
        let mut s = st(cx.proc);
        let Some(d) = s.dis.get_mut(&this) else {
            return Ok(0);
        };
        d.refs -= 1;
        let left = d.refs;
        if left == 0 {
            s.dis.remove(&this);
        }
        left
    };
    if left == 0 {
        com::free_object(cx.proc, this)?;
    }
    Ok(left)
}

/// The device a GUID names: a system device or a connected pad's joystick.
fn device_for(cx: &Ctx, g: Guid) -> Option<Kind> {
    if g == GUID_SYS_KEYBOARD {
        return Some(Kind::Keyboard);
    }
    if g == GUID_SYS_MOUSE {
        return Some(Kind::Mouse);
    }
    (0..MAX_PADS)
        .find(|&n| joystick_instance(n) == g && crate::display::pad(cx.proc, n).connected)
        .map(Kind::Joystick)
}

fn create_device(cx: &mut Ctx, this: u32, rguid: Ptr, out: Ptr, outer: u32) -> ApiResult<u32> {
    let (wide, _) = di_of(cx, this)?;
    if out.is_null() || rguid.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    cx.proc.mem.write_u32(out.0, 0)?;
    if outer != 0 {
        return Ok(com::CLASS_E_NOAGGREGATION);
    }
    if di_of(cx, this)?.1 == 0 {
        return Ok(DIERR_NOTINITIALIZED);
    }
    let g = Guid::read(cx.proc, rguid.0)?;
    let Some(kind) = device_for(cx, g) else {
        return Ok(DIERR_DEVICENOTREG);
    };
    let iface = if wide {
        "IDirectInputDevice7W"
    } else {
        "IDirectInputDevice7A"
    };
    let vt = com::vtable(cx.proc, DLL_NAME, iface, DEVICE_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    let version = di_of(cx, this)?.1;
    let mut d = Device::new(kind, wide);
    d.version = version;
    if let Kind::Joystick(n) = kind {
        d.pad = crate::display::pad(cx.proc, n);
    }
    st(cx.proc).devices.insert(obj, d);
    cx.proc.mem.write_u32(out.0, obj)?;
    Ok(DI_OK)
}

fn DI_CreateDevice(
    cx: &mut Ctx,
    this: u32,
    rguid: Ptr,
    lplpDevice: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    create_device(cx, this, rguid, lplpDevice, pUnkOuter)
}

/// IDirectInput7::CreateDeviceEx: the device object answers every device IID of
/// its character set.
fn DI_CreateDeviceEx(
    cx: &mut Ctx,
    this: u32,
    rguid: Ptr,
    riid: Ptr,
    pvOut: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    let (wide, _) = di_of(cx, this)?;
    let iid = Guid::read(cx.proc, riid.0)?;
    let known = if wide {
        IID_IDIRECTINPUTDEVICE_W.contains(&iid)
    } else {
        IID_IDIRECTINPUTDEVICE_A.contains(&iid)
    };
    if !known {
        if !pvOut.is_null() {
            cx.proc.mem.write_u32(pvOut.0, 0)?;
        }
        return Ok(DIERR_NOINTERFACE);
    }
    create_device(cx, this, rguid, pvOut, pUnkOuter)
}

const DIDEVTYPE_MOUSE: u32 = 2;
const DIDEVTYPE_KEYBOARD: u32 = 3;
const DIDEVTYPE_JOYSTICK: u32 = 4;

fn dev_type(kind: Kind) -> u32 {
    match kind {
        // DIDEVTYPEMOUSE_TRADITIONAL.
        Kind::Mouse => DIDEVTYPE_MOUSE | 2 << 8,
        // DIDEVTYPEKEYBOARD_PCENH.
        Kind::Keyboard => DIDEVTYPE_KEYBOARD | 4 << 8,
        // DIDEVTYPEJOYSTICK_GAMEPAD, a HID device.
        Kind::Joystick(_) => DIDEVTYPE_JOYSTICK | 4 << 8 | 0x1_0000,
    }
}

fn names(kind: Kind) -> (Guid, Guid, String, (u16, u16)) {
    match kind {
        Kind::Mouse => (GUID_SYS_MOUSE, GUID_SYS_MOUSE, "Mouse".into(), (1, 2)),
        Kind::Keyboard => (
            GUID_SYS_KEYBOARD,
            GUID_SYS_KEYBOARD,
            "Keyboard".into(),
            (1, 6),
        ),
        Kind::Joystick(n) => (
            joystick_instance(n),
            joystick_product(),
            crate::winmm::joy::product_name(n),
            (1, 5),
        ),
    }
}

/// DIDEVICEINSTANCE of `size` bytes (the DirectX 3 or 5 layout, A or W).
fn device_instance(kind: Kind, wide: bool, size: u32) -> Vec<u8> {
    let (inst, product, name, usage) = names(kind);
    let unit = if wide { 2 } else { 1 };
    let mut b = vec![0u8; size as usize];
    b[0..4].copy_from_slice(&size.to_le_bytes());
    b[4..20].copy_from_slice(&inst.0);
    b[20..36].copy_from_slice(&product.0);
    b[36..40].copy_from_slice(&dev_type(kind).to_le_bytes());
    for field in [40, 40 + 260 * unit] {
        for (k, c) in name.encode_utf16().take(259).enumerate() {
            let o = field + k * unit;
            if wide {
                b[o..o + 2].copy_from_slice(&c.to_le_bytes());
            } else {
                b[o] = c as u8;
            }
        }
    }
    let ext = 40 + 520 * unit + 16;
    if b.len() >= ext + 4 {
        b[ext..ext + 2].copy_from_slice(&usage.0.to_le_bytes());
        b[ext + 2..ext + 4].copy_from_slice(&usage.1.to_le_bytes());
    }
    b
}

/// sizeof(DIDEVICEINSTANCE) for a DirectInput version: the DirectX 3 layout
/// before 5.0, with the force-feedback driver GUID and HID usage after.
fn instance_size(wide: bool, version: u32) -> u32 {
    match (wide, version >= 0x0500) {
        (false, false) => 560,
        (false, true) => 580,
        (true, false) => 1080,
        (true, true) => 1100,
    }
}

fn DI_EnumDevices(
    cx: &mut Ctx,
    this: u32,
    dwDevType: u32,
    lpCallback: u32,
    pvRef: u32,
    _dwFlags: u32,
) -> ApiResult<Outcome> {
    let (wide, version) = di_of(cx, this)?;
    if lpCallback == 0 {
        return Ok(Outcome::Return(u64::from(DIERR_INVALIDPARAM)));
    }
    if version == 0 {
        return Ok(Outcome::Return(u64::from(DIERR_NOTINITIALIZED)));
    }
    let mut kinds = vec![Kind::Mouse, Kind::Keyboard];
    kinds.extend(
        (0..MAX_PADS)
            .filter(|&n| crate::display::pad(cx.proc, n).connected)
            .map(Kind::Joystick),
    );
    let want = dwDevType & 0xFF;
    let size = instance_size(wide, version);
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let buf = heap.alloc(size, true)?;
    let mut result = Outcome::Return(u64::from(DI_OK));
    for k in kinds {
        if want != 0 && dev_type(k) & 0xFF != want {
            continue;
        }
        cx.proc
            .mem
            .write_bytes(buf, &device_instance(k, wide, size))?;
        match crate::msvcrt::state::call_guest(cx, lpCallback, &[buf, pvRef])? {
            // DIENUM_STOP.
            Ok(0) => break,
            Ok(_) => {}
            Err(end) => {
                result = end;
                break;
            }
        }
    }
    heap.free(buf);
    Ok(result)
}

/// DI_OK for an attached device, DI_NOTATTACHED (S_FALSE) for a pad slot with
/// no pad, DIERR_DEVICENOTREG for anything else.
fn DI_GetDeviceStatus(cx: &mut Ctx, this: u32, rguidInstance: Ptr) -> ApiResult<u32> {
    if di_of(cx, this)?.1 == 0 {
        return Ok(DIERR_NOTINITIALIZED);
    }
    let g = Guid::read(cx.proc, rguidInstance.0)?;
    if device_for(cx, g).is_some() {
        return Ok(DI_OK);
    }
    if (0..MAX_PADS).any(|n| joystick_instance(n) == g) {
        return Ok(1);
    }
    Ok(DIERR_DEVICENOTREG)
}

/// The DirectInput versions Initialize accepts (DirectX 3 to 7).
const DI_VERSIONS: [u32; 7] = [0x0300, 0x0500, 0x050A, 0x05B2, 0x0602, 0x061A, 0x0700];

/// Initialize checks its arguments every time (as Wine's conformance tests show
/// Windows doing): a NULL instance is DIERR_INVALIDPARAM, version 0
/// DIERR_NOTINITIALIZED, an unknown older version DIERR_BETADIRECTINPUTVERSION, a
/// newer one DIERR_OLDDIRECTINPUTVERSION; a known version initialises an object
/// CoCreateInstance made (DirectInputCreate's already are).
fn DI_Initialize(cx: &mut Ctx, this: u32, hinst: u32, dwVersion: u32) -> ApiResult<u32> {
    let (_, version) = di_of(cx, this)?;
    if hinst == 0 {
        return Ok(DIERR_INVALIDPARAM);
    }
    if dwVersion == 0 {
        return Ok(DIERR_NOTINITIALIZED);
    }
    if !DI_VERSIONS.contains(&dwVersion) {
        return Ok(if dwVersion < 0x0700 {
            DIERR_BETADIRECTINPUTVERSION
        } else {
            DIERR_OLDDIRECTINPUTVERSION
        });
    }
    if version == 0
        && let Some(d) = st(cx.proc).dis.get_mut(&this)
    {
        d.version = dwVersion;
    }
    Ok(DI_OK)
}

// ---- IDirectInputDevice --------------------------------------------------------------

/// Runs `f` on the device `this`, or reports a call on something else.
fn with_dev<T>(cx: &Ctx, this: u32, f: impl FnOnce(&mut Device) -> T) -> ApiResult<T> {
    let mut s = st(cx.proc);
    match s.devices.get_mut(&this) {
        Some(d) => Ok(f(d)),
        None => Err(ApiError::Other(format!(
            "IDirectInputDevice method called on {this:#010x}, which is not a DirectInput device"
        ))),
    }
}

fn Dev_QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    let wide = with_dev(cx, this, |d| d.wide)?;
    let iid = Guid::read(cx.proc, riid.0)?;
    let ok = iid == com::IID_IUNKNOWN
        || if wide {
            IID_IDIRECTINPUTDEVICE_W.contains(&iid)
        } else {
            IID_IDIRECTINPUTDEVICE_A.contains(&iid)
        };
    if !ok {
        cx.proc.mem.write_u32(ppv.0, 0)?;
        return Ok(DIERR_NOINTERFACE);
    }
    with_dev(cx, this, |d| d.refs += 1)?;
    cx.proc.mem.write_u32(ppv.0, this)?;
    Ok(DI_OK)
}

fn Dev_AddRef(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    with_dev(cx, this, |d| {
        d.refs += 1;
        d.refs
    })
}

fn Dev_Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let left = with_dev(cx, this, |d| {
        d.refs -= 1;
        d.refs
    })?;
    if left == 0 {
        st(cx.proc).devices.remove(&this);
        com::free_object(cx.proc, this)?;
    }
    Ok(left)
}

fn Dev_SetDataFormat(cx: &mut Ctx, this: u32, lpdf: Ptr) -> ApiResult<u32> {
    if lpdf.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let m = &cx.proc.mem;
    let (size, obj_size, _flags, data_size, n, rgodf) = (
        m.read_u32(lpdf.0)?,
        m.read_u32(lpdf.0 + 4)?,
        m.read_u32(lpdf.0 + 8)?,
        m.read_u32(lpdf.0 + 12)?,
        m.read_u32(lpdf.0 + 16)?,
        m.read_u32(lpdf.0 + 20)?,
    );
    if size != 24 || obj_size != 16 || n > 1024 || data_size > 0x10000 {
        return Ok(DIERR_INVALIDPARAM);
    }
    let mut entries = Vec::with_capacity(n as usize);
    for k in 0..n {
        let a = rgodf.wrapping_add(16 * k);
        let pguid = m.read_u32(a)?;
        let guid = if pguid == 0 {
            None
        } else {
            Some(Guid::read(cx.proc, pguid)?)
        };
        entries.push(FormatEntry {
            guid,
            ofs: m.read_u32(a + 4)?,
            ty: m.read_u32(a + 8)?,
        });
    }
    with_dev(cx, this, |d| {
        if d.acquired {
            return DIERR_ACQUIRED;
        }
        match Format::build(&d.objs, data_size, &entries) {
            Ok(f) => {
                d.format = Some(f);
                DI_OK
            }
            Err(why) => {
                log::warn!("IDirectInputDevice::SetDataFormat: {why}");
                DIERR_INVALIDPARAM
            }
        }
    })
}

fn Dev_SetCooperativeLevel(cx: &mut Ctx, this: u32, _hwnd: u32, dwFlags: u32) -> ApiResult<u32> {
    with_dev(cx, this, |d| {
        let excl = dwFlags & (DISCL_EXCLUSIVE | DISCL_NONEXCLUSIVE);
        let fg = dwFlags & (DISCL_FOREGROUND | DISCL_BACKGROUND);
        if excl == 0 || excl == 3 || fg == 0 || fg == 12 {
            return DIERR_INVALIDPARAM;
        }
        // Exclusive background access to the keyboard is refused, as documented.
        if d.kind == Kind::Keyboard
            && dwFlags & DISCL_EXCLUSIVE != 0
            && dwFlags & DISCL_BACKGROUND != 0
        {
            return DIERR_UNSUPPORTED;
        }
        d.coop = dwFlags;
        DI_OK
    })
}

fn Dev_Acquire(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let pads: Vec<_> = (0..MAX_PADS)
        .map(|n| crate::display::pad(cx.proc, n))
        .collect();
    with_dev(cx, this, |d| {
        if d.format.is_none() {
            return DIERR_INVALIDPARAM;
        }
        if d.acquired {
            return DI_NOEFFECT;
        }
        if let Kind::Joystick(n) = d.kind {
            if !pads[n].connected {
                return DIERR_UNPLUGGED;
            }
            d.pad = pads[n];
        }
        d.acquired = true;
        d.lost = false;
        d.buffer.clear();
        d.overflow = false;
        d.mouse_rel = [0; 3];
        DI_OK
    })
}

/// The event is set whenever the device's state changes while it is acquired, and
/// when the acquisition is lost. It cannot change while the device is acquired;
/// NULL turns notification off.
fn Dev_SetEventNotification(cx: &mut Ctx, this: u32, hEvent: u32) -> ApiResult<u32> {
    let ev = if hEvent == 0 {
        None
    } else {
        match crate::kernel32::sync::event_object(cx, hEvent) {
            Some(e) => Some(e),
            None => return Ok(DIERR_INVALIDPARAM),
        }
    };
    with_dev(cx, this, |d| {
        if d.acquired {
            return DIERR_ACQUIRED;
        }
        d.notify = ev;
        DI_OK
    })
}

fn Dev_Unacquire(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    with_dev(cx, this, |d| {
        d.lost = false;
        if !d.acquired {
            return DI_NOEFFECT;
        }
        d.acquired = false;
        DI_OK
    })
}

/// The error for reading an unacquired device: DIERR_INPUTLOST while the
/// acquisition is lost (focus, unplugging) until the program acquires or
/// unacquires it, as the documentation tells programs to reacquire on that
/// error only; DIERR_NOTACQUIRED otherwise.
fn not_acquired(d: &mut Device) -> u32 {
    if d.lost {
        DIERR_INPUTLOST
    } else {
        DIERR_NOTACQUIRED
    }
}

fn Dev_GetDeviceState(cx: &mut Ctx, this: u32, cbData: u32, lpvData: Ptr) -> ApiResult<u32> {
    let r = with_dev(cx, this, |d| {
        if !d.acquired {
            return Err(not_acquired(d));
        }
        match &d.format {
            Some(f) if f.data_size == cbData => Ok(d.state_bytes()),
            _ => Err(DIERR_INVALIDPARAM),
        }
    })?;
    match r {
        Ok(bytes) => {
            if lpvData.is_null() {
                return Ok(DIERR_INVALIDPARAM);
            }
            cx.proc.mem.write_bytes(lpvData.0, &bytes)?;
            Ok(DI_OK)
        }
        Err(e) => Ok(e),
    }
}

const DIGDD_PEEK: u32 = 1;

fn Dev_GetDeviceData(
    cx: &mut Ctx,
    this: u32,
    cbObjectData: u32,
    rgdod: Ptr,
    pdwInOut: Ptr,
    dwFlags: u32,
) -> ApiResult<u32> {
    // DIDEVICEOBJECTDATA_DX3, or DirectX 8's with uAppData (left 0).
    if (cbObjectData != 16 && cbObjectData != 20) || pdwInOut.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let want = cx.proc.mem.read_u32(pdwInOut.0)?;
    let peek = dwFlags & DIGDD_PEEK != 0;
    let r = with_dev(cx, this, |d| {
        if !d.acquired {
            return Err(not_acquired(d));
        }
        if d.buffer_size == 0 {
            return Err(DIERR_NOTBUFFERED);
        }
        let n = (want as usize).min(d.buffer.len());
        let taken: Vec<_> = if peek {
            d.buffer.iter().take(n).copied().collect()
        } else {
            d.buffer.drain(..n).collect()
        };
        let overflow = d.overflow;
        if !peek {
            d.overflow = false;
        }
        Ok((taken, overflow))
    })?;
    let (events, overflow) = match r {
        Ok(v) => v,
        Err(e) => return Ok(e),
    };
    if !rgdod.is_null() {
        for (k, e) in events.iter().enumerate() {
            let a = rgdod.0.wrapping_add(cbObjectData * k as u32);
            let mut b = vec![0u8; cbObjectData as usize];
            for (i, v) in [e.ofs, e.data, e.time, e.seq].iter().enumerate() {
                b[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
            cx.proc.mem.write_bytes(a, &b)?;
        }
    }
    cx.proc.mem.write_u32(pdwInOut.0, events.len() as u32)?;
    Ok(if overflow { DI_BUFFEROVERFLOW } else { DI_OK })
}

/// The device never needs polling, so Poll has nothing to do (DI_NOEFFECT).
fn Dev_Poll(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    with_dev(cx, this, |d| {
        if d.acquired {
            DI_NOEFFECT
        } else {
            not_acquired(d)
        }
    })
}

const DIPROP_BUFFERSIZE: u32 = 1;
const DIPROP_AXISMODE: u32 = 2;
const DIPROP_GRANULARITY: u32 = 3;
const DIPROP_RANGE: u32 = 4;
const DIPROP_DEADZONE: u32 = 5;
const DIPROP_SATURATION: u32 = 6;
const DIPH_DEVICE: u32 = 0;
const DIPH_BYOFFSET: u32 = 1;
const DIPH_BYID: u32 = 2;

/// The pad axes a property header names: all of them for DIPH_DEVICE.
fn prop_axes(d: &Device, obj: u32, how: u32) -> Result<Vec<usize>, u32> {
    let axes: Vec<(usize, usize)> = d
        .objs
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o.what {
            device::What::PadAxis(a) => Some((i, a)),
            _ => None,
        })
        .collect();
    match how {
        DIPH_DEVICE if obj == 0 => Ok(axes.iter().map(|p| p.1).collect()),
        DIPH_BYOFFSET => {
            let f = d.format.as_ref().ok_or(DIERR_INVALIDPARAM)?;
            axes.iter()
                .find(|(i, _)| f.offsets[*i] == Some(obj))
                .map(|p| vec![p.1])
                .ok_or(DIERR_OBJECTNOTFOUND)
        }
        DIPH_BYID => axes
            .iter()
            .find(|(i, _)| d.objs[*i].id() == obj & 0x00FF_FFFF)
            .map(|p| vec![p.1])
            .ok_or(DIERR_OBJECTNOTFOUND),
        _ => Err(DIERR_INVALIDPARAM),
    }
}

/// The property a REFGUID names: DirectInput's predefined ones are small integers.
fn prop_id(rguid: Ptr) -> Option<u32> {
    (rguid.0 < 0x100).then_some(rguid.0)
}

fn Dev_SetProperty(cx: &mut Ctx, this: u32, rguidProp: Ptr, pdiph: Ptr) -> ApiResult<u32> {
    if pdiph.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let m = &cx.proc.mem;
    let (size, hsize, obj, how) = (
        m.read_u32(pdiph.0)?,
        m.read_u32(pdiph.0 + 4)?,
        m.read_u32(pdiph.0 + 8)?,
        m.read_u32(pdiph.0 + 12)?,
    );
    if hsize != 16 || size < 20 {
        return Ok(DIERR_INVALIDPARAM);
    }
    let v1 = m.read_u32(pdiph.0 + 16)?;
    let v2 = if size >= 24 {
        m.read_u32(pdiph.0 + 20)?
    } else {
        0
    };
    let Some(prop) = prop_id(rguidProp) else {
        return Ok(DIERR_UNSUPPORTED);
    };
    with_dev(cx, this, |d| match prop {
        DIPROP_BUFFERSIZE | DIPROP_AXISMODE => {
            if how != DIPH_DEVICE || obj != 0 {
                return DIERR_INVALIDPARAM;
            }
            if d.acquired {
                return DIERR_ACQUIRED;
            }
            if prop == DIPROP_BUFFERSIZE {
                d.buffer_size = v1.min(1 << 16);
                d.buffer.clear();
            } else {
                match v1 {
                    0 => d.abs_axes = true,
                    1 => d.abs_axes = false,
                    _ => return DIERR_INVALIDPARAM,
                }
            }
            DI_OK
        }
        DIPROP_RANGE | DIPROP_DEADZONE | DIPROP_SATURATION => {
            if d.acquired && prop == DIPROP_RANGE {
                return DIERR_ACQUIRED;
            }
            let axes = match prop_axes(d, obj, how) {
                Ok(a) if !a.is_empty() => a,
                Ok(_) => return DIERR_UNSUPPORTED,
                Err(e) => return e,
            };
            for a in axes {
                let p = &mut d.axes[a];
                match prop {
                    DIPROP_RANGE => {
                        if size < 24 || (v1 as i32) >= (v2 as i32) {
                            return DIERR_INVALIDPARAM;
                        }
                        p.min = v1 as i32;
                        p.max = v2 as i32;
                    }
                    _ if v1 > 10000 => return DIERR_INVALIDPARAM,
                    DIPROP_DEADZONE => p.deadzone = v1,
                    _ => p.saturation = v1,
                }
            }
            DI_OK
        }
        _ => DIERR_UNSUPPORTED,
    })
}

fn Dev_GetProperty(cx: &mut Ctx, this: u32, rguidProp: Ptr, pdiph: Ptr) -> ApiResult<u32> {
    if pdiph.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let m = &cx.proc.mem;
    let (size, hsize, obj, how) = (
        m.read_u32(pdiph.0)?,
        m.read_u32(pdiph.0 + 4)?,
        m.read_u32(pdiph.0 + 8)?,
        m.read_u32(pdiph.0 + 12)?,
    );
    if hsize != 16 || size < 20 {
        return Ok(DIERR_INVALIDPARAM);
    }
    let Some(prop) = prop_id(rguidProp) else {
        return Ok(DIERR_UNSUPPORTED);
    };
    let r: Result<Vec<u32>, u32> = with_dev(cx, this, |d| match prop {
        DIPROP_BUFFERSIZE => Ok(vec![d.buffer_size]),
        DIPROP_AXISMODE => Ok(vec![if d.abs_axes { 0 } else { 1 }]),
        DIPROP_GRANULARITY if d.kind == Kind::Mouse => Ok(vec![1]),
        DIPROP_GRANULARITY | DIPROP_RANGE | DIPROP_DEADZONE | DIPROP_SATURATION => {
            let axes = prop_axes(d, obj, how)?;
            if axes.len() != 1 {
                // Reading needs one object.
                return Err(if axes.is_empty() {
                    DIERR_UNSUPPORTED
                } else {
                    DIERR_INVALIDPARAM
                });
            }
            let p = d.axes[axes[0]];
            Ok(match prop {
                DIPROP_GRANULARITY => vec![1],
                DIPROP_RANGE => vec![p.min as u32, p.max as u32],
                DIPROP_DEADZONE => vec![p.deadzone],
                _ => vec![p.saturation],
            })
        }
        _ => Err(DIERR_UNSUPPORTED),
    })?;
    match r {
        Ok(vals) => {
            if size < 16 + 4 * vals.len() as u32 {
                return Ok(DIERR_INVALIDPARAM);
            }
            for (k, v) in vals.iter().enumerate() {
                cx.proc.mem.write_u32(pdiph.0 + 16 + 4 * k as u32, *v)?;
            }
            Ok(DI_OK)
        }
        Err(e) => Ok(e),
    }
}

const DIDC_ATTACHED: u32 = 1;

fn Dev_GetCapabilities(cx: &mut Ctx, this: u32, lpDIDevCaps: Ptr) -> ApiResult<u32> {
    if lpDIDevCaps.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let size = cx.proc.mem.read_u32(lpDIDevCaps.0)?;
    // DIDEVCAPS_DX3 or the DirectX 5 DIDEVCAPS with force-feedback fields.
    if size != 24 && size != 44 {
        return Ok(DIERR_INVALIDPARAM);
    }
    let kind = with_dev(cx, this, |d| d.kind)?;
    let (axes, buttons, povs) = match kind {
        Kind::Keyboard => (0, 128, 0),
        Kind::Mouse => (3, 3, 0),
        Kind::Joystick(_) => (6, crate::winmm::joy::NUM_BUTTONS, 1),
    };
    let mut v = vec![size, DIDC_ATTACHED, dev_type(kind), axes, buttons, povs];
    v.resize(size as usize / 4, 0);
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u32(lpDIDevCaps.0 + 4 * k as u32, *x)?;
    }
    Ok(DI_OK)
}

fn Dev_GetDeviceInfo(cx: &mut Ctx, this: u32, pdidi: Ptr) -> ApiResult<u32> {
    if pdidi.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let (kind, wide) = with_dev(cx, this, |d| (d.kind, d.wide))?;
    let size = cx.proc.mem.read_u32(pdidi.0)?;
    if size != instance_size(wide, 0x0300) && size != instance_size(wide, 0x0500) {
        return Ok(DIERR_INVALIDPARAM);
    }
    cx.proc
        .mem
        .write_bytes(pdidi.0, &device_instance(kind, wide, size))?;
    Ok(DI_OK)
}

/// DIDEVICEOBJECTINSTANCE of object `i` in `size` bytes (DirectX 3 or 5 layout,
/// A or W): the offset in the program's data format when it has the object, else
/// in the device's native format.
fn object_instance(d: &Device, i: usize, size: u32) -> Vec<u8> {
    let o = d.objs[i];
    let unit = if d.wide { 2 } else { 1 };
    let ofs = d
        .format
        .as_ref()
        .and_then(|f| f.offsets[i])
        .unwrap_or_else(|| device::native_offset(o.what));
    let mut b = vec![0u8; size as usize];
    b[0..4].copy_from_slice(&size.to_le_bytes());
    b[4..20].copy_from_slice(&o.guid.0);
    b[20..24].copy_from_slice(&ofs.to_le_bytes());
    b[24..28].copy_from_slice(&o.id().to_le_bytes());
    for (k, c) in device::object_name(o.what)
        .encode_utf16()
        .take(259)
        .enumerate()
    {
        let at = 32 + k * unit;
        if d.wide {
            b[at..at + 2].copy_from_slice(&c.to_le_bytes());
        } else {
            b[at] = c as u8;
        }
    }
    b
}

/// sizeof(DIDEVICEOBJECTINSTANCE): DirectX 3, or 5 with the force-feedback and
/// HID fields.
fn object_instance_sizes(wide: bool) -> [u32; 2] {
    if wide { [552, 576] } else { [292, 316] }
}

fn Dev_EnumObjects(
    cx: &mut Ctx,
    this: u32,
    lpCallback: u32,
    pvRef: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    if lpCallback == 0 {
        return Ok(Outcome::Return(u64::from(DIERR_INVALIDPARAM)));
    }
    let want = dwFlags & 0xFF;
    let blocks: Vec<Vec<u8>> = with_dev(cx, this, |d| {
        let size = object_instance_sizes(d.wide)[usize::from(d.version >= 0x0500)];
        (0..d.objs.len())
            .filter(|&i| want == 0 || d.objs[i].ty & want != 0)
            .map(|i| object_instance(d, i, size))
            .collect()
    })?;
    let Some(size) = blocks.first().map(|b| b.len() as u32) else {
        return Ok(Outcome::Return(u64::from(DI_OK)));
    };
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let buf = heap.alloc(size, true)?;
    let mut result = Outcome::Return(u64::from(DI_OK));
    for b in blocks {
        cx.proc.mem.write_bytes(buf, &b)?;
        match crate::msvcrt::state::call_guest(cx, lpCallback, &[buf, pvRef])? {
            // DIENUM_STOP.
            Ok(0) => break,
            Ok(_) => {}
            Err(end) => {
                result = end;
                break;
            }
        }
    }
    heap.free(buf);
    Ok(result)
}

fn Dev_GetObjectInfo(
    cx: &mut Ctx,
    this: u32,
    pdidoi: Ptr,
    dwObj: u32,
    dwHow: u32,
) -> ApiResult<u32> {
    if pdidoi.is_null() {
        return Ok(DIERR_INVALIDPARAM);
    }
    let size = cx.proc.mem.read_u32(pdidoi.0)?;
    let r = with_dev(cx, this, |d| {
        if !object_instance_sizes(d.wide).contains(&size) {
            return Err(DIERR_INVALIDPARAM);
        }
        let i = match dwHow {
            DIPH_BYOFFSET => {
                let f = d.format.as_ref().ok_or(DIERR_INVALIDPARAM)?;
                f.offsets.iter().position(|o| *o == Some(dwObj))
            }
            DIPH_BYID => d.objs.iter().position(|o| o.id() == dwObj & 0x00FF_FFFF),
            _ => return Err(DIERR_INVALIDPARAM),
        };
        i.map(|i| object_instance(d, i, size))
            .ok_or(DIERR_OBJECTNOTFOUND)
    })?;
    match r {
        Ok(b) => {
            cx.proc.mem.write_bytes(pdidoi.0, &b)?;
            Ok(DI_OK)
        }
        Err(e) => Ok(e),
    }
}

/// Already initialised by CreateDevice.
fn Dev_Initialize(
    cx: &mut Ctx,
    this: u32,
    _hinst: u32,
    _dwVersion: u32,
    _rguid: Ptr,
) -> ApiResult<u32> {
    with_dev(cx, this, |_| DI_OK)
}

/// A method that is not provided: stops the program with its name.
fn unimplemented(name: &'static str) -> ApiDef {
    stdcall(name, move |_cx: &mut Ctx, _this: u32| -> ApiResult<u32> {
        Err(ApiError::UnimplementedCase(name.to_string()))
    })
}

macro_rules! both {
    ($v:ident, $m:literal, $f:expr) => {
        $v.push(stdcall(concat!("IDirectInputDevice7A::", $m), $f));
        $v.push(stdcall(concat!("IDirectInputDevice7W::", $m), $f));
    };
}

macro_rules! both_di {
    ($v:ident, $m:literal, $f:expr) => {
        $v.push(stdcall(concat!("IDirectInput7A::", $m), $f));
        $v.push(stdcall(concat!("IDirectInput7W::", $m), $f));
    };
}

macro_rules! both_missing {
    ($v:ident, $iface:literal, $($m:literal),*) => {
        $(
            $v.push(unimplemented(concat!($iface, "A::", $m)));
            $v.push(unimplemented(concat!($iface, "W::", $m)));
        )*
    };
}

fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("DirectInputCreateA", DirectInputCreateA),
        stdcall("DirectInputCreateW", DirectInputCreateW),
        stdcall("DirectInputCreateEx", DirectInputCreateEx),
    ];
    both_di!(v, "QueryInterface", DI_QueryInterface);
    both_di!(v, "AddRef", DI_AddRef);
    both_di!(v, "Release", DI_Release);
    both_di!(v, "CreateDevice", DI_CreateDevice);
    both_di!(v, "EnumDevices", DI_EnumDevices);
    both_di!(v, "GetDeviceStatus", DI_GetDeviceStatus);
    both_di!(v, "Initialize", DI_Initialize);
    both_di!(v, "CreateDeviceEx", DI_CreateDeviceEx);
    both_missing!(v, "IDirectInput7", "RunControlPanel", "FindDevice");
    both!(v, "QueryInterface", Dev_QueryInterface);
    both!(v, "AddRef", Dev_AddRef);
    both!(v, "Release", Dev_Release);
    both!(v, "GetCapabilities", Dev_GetCapabilities);
    both!(v, "GetProperty", Dev_GetProperty);
    both!(v, "SetProperty", Dev_SetProperty);
    both!(v, "Acquire", Dev_Acquire);
    both!(v, "Unacquire", Dev_Unacquire);
    both!(v, "GetDeviceState", Dev_GetDeviceState);
    both!(v, "GetDeviceData", Dev_GetDeviceData);
    both!(v, "SetDataFormat", Dev_SetDataFormat);
    both!(v, "SetCooperativeLevel", Dev_SetCooperativeLevel);
    both!(v, "GetDeviceInfo", Dev_GetDeviceInfo);
    both!(v, "Initialize", Dev_Initialize);
    both!(v, "Poll", Dev_Poll);
    both!(v, "SetEventNotification", Dev_SetEventNotification);
    both!(v, "EnumObjects", Dev_EnumObjects);
    both!(v, "GetObjectInfo", Dev_GetObjectInfo);
    both_missing!(
        v,
        "IDirectInputDevice7",
        "RunControlPanel",
        "CreateEffect",
        "EnumEffects",
        "GetEffectInfo",
        "GetForceFeedbackState",
        "SendForceFeedbackCommand",
        "EnumCreatedEffectObjects",
        "Escape",
        "SendDeviceData",
        "EnumEffectsInFile",
        "WriteEffectToFile"
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vtable_method_is_exported() {
        let names: Vec<&str> = exports().iter().map(|e| e.name).collect();
        for iface in ["IDirectInput7A", "IDirectInput7W"] {
            for m in DI_METHODS {
                assert!(
                    names.contains(&format!("{iface}::{m}").as_str()),
                    "{iface}::{m}"
                );
            }
        }
        for iface in ["IDirectInputDevice7A", "IDirectInputDevice7W"] {
            for m in DEVICE_METHODS {
                assert!(
                    names.contains(&format!("{iface}::{m}").as_str()),
                    "{iface}::{m}"
                );
            }
        }
    }

    #[test]
    fn event_notification_is_set_by_changes_while_acquired_and_by_loss() {
        use crate::display::InputEvent;
        use crate::hle::{CStrPtr, Outcome};
        use crate::kernel32::misc::test_support::Harness;
        use crate::kernel32::sync::{CreateEvent, ResetEvent, WaitForSingleObject};
        let mut h = Harness::new();
        let ev = CreateEvent::<CStrPtr>(&mut h.cx(), Ptr(0), true, false, CStrPtr(0)).unwrap();
        let this = 0x5000_0000;
        let mut d = Device::new(Kind::Keyboard, false);
        d.coop = DISCL_FOREGROUND | DISCL_NONEXCLUSIVE;
        st(&h.proc).devices.insert(this, d);
        assert_eq!(
            Dev_SetEventNotification(&mut h.cx(), this, ev).unwrap(),
            DI_OK
        );
        let signalled = |h: &mut Harness| {
            matches!(
                WaitForSingleObject(&mut h.cx(), ev, 0).unwrap(),
                Outcome::Return(0)
            )
        };
        let key = |down| InputEvent::Key {
            vk: 0x41,
            scancode: 0x1e,
            extended: false,
            down,
        };
        // Not acquired: a key changes nothing the program can read.
        on_input(&h.proc, &key(true));
        assert!(!signalled(&mut h));
        st(&h.proc).devices.get_mut(&this).unwrap().acquired = true;
        assert_eq!(
            Dev_SetEventNotification(&mut h.cx(), this, 0).unwrap(),
            DIERR_ACQUIRED
        );
        on_input(&h.proc, &key(false));
        assert!(signalled(&mut h));
        ResetEvent(&mut h.cx(), ev).unwrap();
        // A key already up does not change the state.
        on_input(&h.proc, &key(false));
        assert!(!signalled(&mut h));
        on_input(&h.proc, &InputEvent::Focus(false));
        assert!(signalled(&mut h), "losing the acquisition sets the event");
        assert_eq!(
            Dev_SetEventNotification(&mut h.cx(), this, 0x1234).unwrap(),
            DIERR_INVALIDPARAM
        );
    }

    #[test]
    fn device_instance_layout() {
        let b = device_instance(Kind::Keyboard, false, 580);
        assert_eq!(&b[0..4], &580u32.to_le_bytes());
        assert_eq!(&b[4..20], &GUID_SYS_KEYBOARD.0);
        assert_eq!(&b[40..48], b"Keyboard");
        assert_eq!(&b[300..308], b"Keyboard");
        // wUsagePage 1, wUsage 6 after guidFFDriver.
        assert_eq!(&b[576..580], &[1, 0, 6, 0]);
        let w = device_instance(Kind::Mouse, true, 1080);
        assert_eq!(&w[40..44], &[b'M', 0, b'o', 0]);
        assert_eq!(&w[560..564], &[b'M', 0, b'o', 0]);
        assert_eq!(
            joystick_product().to_string(),
            "{028E045E-0000-0000-0000-504944564944}"
        );
    }
}
