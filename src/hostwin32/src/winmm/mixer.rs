//! winmm mixer API: one mixer device (ID 0), the mixer of the one sound card.
//!
//! It has one destination line, the speakers (MIXERLINE_COMPONENTTYPE_DST_SPEAKERS,
//! stereo, its target the waveOut device), with two controls: the master volume
//! (a per-channel fader, 0..65535) and the master mute (a uniform switch). It has
//! no source lines. The control values belong to the process: setting them
//! changes what reading them returns, and every open mixer handle opened with
//! CALLBACK_WINDOW gets MM_MIXM_CONTROL_CHANGE when a value changes. The sound
//! contract has no per-process output level, so the values are not applied to
//! what the program plays.
//!
//! Structures (mmsystem.h, all fields naturally aligned): MIXERCAPS 48/80 bytes
//! (A/W), MIXERLINE 168/280, MIXERLINECONTROLS 24, MIXERCONTROL 148/228,
//! MIXERCONTROLDETAILS 24, MIXERCONTROLDETAILS_UNSIGNED/_BOOLEAN 4.

use super::wave::{
    MMSYSERR_BADDEVICEID, MMSYSERR_INVALFLAG, MMSYSERR_INVALHANDLE, MMSYSERR_INVALPARAM,
    MMSYSERR_NOERROR, MMSYSERR_NOTSUPPORTED, WAVE_MAPPER,
};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub const MIXERR_INVALLINE: u32 = 1024;
pub const MIXERR_INVALCONTROL: u32 = 1025;
pub const MIXERR_INVALVALUE: u32 = 1026;

pub const MIXER_OBJECTF_HANDLE: u32 = 0x8000_0000;
pub const MIXER_OBJECTF_MIXER: u32 = 0x0000_0000;
pub const MIXER_OBJECTF_HMIXER: u32 = 0x8000_0000;
pub const MIXER_OBJECTF_WAVEOUT: u32 = 0x1000_0000;
pub const MIXER_OBJECTF_HWAVEOUT: u32 = 0x9000_0000;
pub const MIXER_OBJECTF_WAVEIN: u32 = 0x2000_0000;
pub const MIXER_OBJECTF_HWAVEIN: u32 = 0xA000_0000;
pub const MIXER_OBJECTF_MIDIOUT: u32 = 0x3000_0000;
pub const MIXER_OBJECTF_HMIDIOUT: u32 = 0xB000_0000;
pub const MIXER_OBJECTF_MIDIIN: u32 = 0x4000_0000;
pub const MIXER_OBJECTF_HMIDIIN: u32 = 0xC000_0000;
pub const MIXER_OBJECTF_AUX: u32 = 0x5000_0000;
const OBJECT_MASK: u32 = 0xF000_0000;
const QUERY_MASK: u32 = 0xF;

pub const MIXER_GETLINEINFOF_DESTINATION: u32 = 0;
pub const MIXER_GETLINEINFOF_SOURCE: u32 = 1;
pub const MIXER_GETLINEINFOF_LINEID: u32 = 2;
pub const MIXER_GETLINEINFOF_COMPONENTTYPE: u32 = 3;
pub const MIXER_GETLINEINFOF_TARGETTYPE: u32 = 4;
pub const MIXER_GETLINECONTROLSF_ALL: u32 = 0;
pub const MIXER_GETLINECONTROLSF_ONEBYID: u32 = 1;
pub const MIXER_GETLINECONTROLSF_ONEBYTYPE: u32 = 2;
pub const MIXER_GETCONTROLDETAILSF_VALUE: u32 = 0;
pub const MIXER_GETCONTROLDETAILSF_LISTTEXT: u32 = 1;
pub const MIXER_SETCONTROLDETAILSF_VALUE: u32 = 0;
pub const MIXER_SETCONTROLDETAILSF_CUSTOM: u32 = 1;

pub const MIXERLINE_LINEF_ACTIVE: u32 = 1;
pub const MIXERLINE_COMPONENTTYPE_DST_SPEAKERS: u32 = 4;
pub const MIXERLINE_TARGETTYPE_WAVEOUT: u32 = 1;
pub const MIXERCONTROL_CONTROLF_UNIFORM: u32 = 1;
pub const MIXERCONTROL_CONTROLTYPE_VOLUME: u32 = 0x5003_0001;
pub const MIXERCONTROL_CONTROLTYPE_MUTE: u32 = 0x2001_0002;

const CALLBACK_TYPEMASK: u32 = 0x0007_0000;
const CALLBACK_NULL: u32 = 0;
const CALLBACK_WINDOW: u32 = 0x0001_0000;
pub const MM_MIXM_CONTROL_CHANGE: u32 = 0x3D1;

/// The speakers line's ID (a destination line; the high word marks it as one, as
/// Windows' drivers number them).
pub const SPEAKERS_LINE_ID: u32 = 0xFFFF_0000;
pub const VOLUME_CONTROL_ID: u32 = 1;
pub const MUTE_CONTROL_ID: u32 = 2;
pub const VOLUME_MAX: u32 = 0xFFFF;

const MIXER_NAME: &str = "winterp Mixer";
const LINE_SHORT_NAME: &str = "Volume Control";
const LINE_NAME: &str = "Volume Control";
/// The waveOut device the speakers line plays (as waveOutGetDevCaps describes it).
const WAVEOUT_NAME: &str = "winterp Wave Out";
const MM_MICROSOFT: u16 = 1;
const MM_MSFT_WDMAUDIO_MIXER: u16 = 104;
const WAVEOUT_PID: u16 = 104;
const DRIVER_VERSION: u32 = 0x0500;

/// sizeof the structures, ANSI and Unicode.
const fn caps_size(wide: bool) -> u32 {
    if wide { 80 } else { 48 }
}
const fn line_size(wide: bool) -> u32 {
    if wide { 280 } else { 168 }
}
const fn control_size(wide: bool) -> u32 {
    if wide { 228 } else { 148 }
}
const LINECONTROLS_SIZE: u32 = 24;
const DETAILS_SIZE: u32 = 24;

/// The process's mixer: control values and open handles.
pub struct MixerState {
    /// Master volume, left and right.
    pub volume: [u32; 2],
    pub mute: bool,
    /// Open handle -> the window its callback posts to (0: none).
    pub handles: BTreeMap<u32, u32>,
    next: u32,
}

impl Default for MixerState {
    fn default() -> Self {
        MixerState {
            volume: [VOLUME_MAX, VOLUME_MAX],
            mute: false,
            handles: BTreeMap::new(),
            next: 0,
        }
    }
}

/// HMIXER values: a tag in the high half, a counter in the low.
const HANDLE_TAG: u32 = 0x6D78_0000;

fn state_of(proc: &Arc<Process>) -> Arc<Mutex<MixerState>> {
    proc.slot::<Mutex<MixerState>>()
}

/// Runs `f` on the process's mixer state.
pub fn with_state<T>(proc: &Arc<Process>, f: impl FnOnce(&mut MixerState) -> T) -> T {
    let s = state_of(proc);
    let mut g: MutexGuard<'_, MixerState> = s.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

fn is_open(cx: &Ctx, h: u32) -> bool {
    with_state(cx.proc, |s| s.handles.contains_key(&h))
}

/// Whether an open waveOut handle is `h`.
fn is_waveout_handle(cx: &mut Ctx, h: u32) -> ApiResult<bool> {
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let scratch = heap.alloc(4, false)?;
    if scratch == 0 {
        return Ok(false);
    }
    let r = super::wave::waveOutGetID(cx, h, Ptr(scratch));
    heap.free(scratch);
    Ok(r? == MMSYSERR_NOERROR)
}

/// Which mixer an object names (`hmxobj` as the MIXER_OBJECTF_* bits of `flags`
/// say): Ok(()) for the one mixer, or the error. A mixer ID also accepts an open
/// mixer handle, as Windows does.
fn resolve(cx: &mut Ctx, hmxobj: u32, flags: u32) -> ApiResult<Result<(), u32>> {
    Ok(match flags & OBJECT_MASK {
        MIXER_OBJECTF_MIXER if hmxobj == 0 || is_open(cx, hmxobj) => Ok(()),
        MIXER_OBJECTF_MIXER => Err(MMSYSERR_BADDEVICEID),
        MIXER_OBJECTF_HMIXER if is_open(cx, hmxobj) => Ok(()),
        MIXER_OBJECTF_HMIXER => Err(MMSYSERR_INVALHANDLE),
        MIXER_OBJECTF_WAVEOUT if hmxobj == 0 || hmxobj == WAVE_MAPPER => Ok(()),
        MIXER_OBJECTF_WAVEOUT => Err(MMSYSERR_BADDEVICEID),
        MIXER_OBJECTF_HWAVEOUT if is_waveout_handle(cx, hmxobj)? => Ok(()),
        MIXER_OBJECTF_HWAVEOUT => Err(MMSYSERR_INVALHANDLE),
        // No wave input, MIDI or auxiliary device exists, so none can be open.
        MIXER_OBJECTF_WAVEIN | MIXER_OBJECTF_MIDIOUT | MIXER_OBJECTF_MIDIIN | MIXER_OBJECTF_AUX => {
            Err(MMSYSERR_BADDEVICEID)
        }
        MIXER_OBJECTF_HWAVEIN | MIXER_OBJECTF_HMIDIOUT | MIXER_OBJECTF_HMIDIIN => {
            Err(MMSYSERR_INVALHANDLE)
        }
        _ => Err(MMSYSERR_INVALFLAG),
    })
}

pub fn mixerGetNumDevs(_cx: &mut Ctx) -> u32 {
    1
}

/// Text in a fixed-size field of `chars` characters (NUL-terminated, truncated).
fn put_text(b: &mut [u8], at: usize, chars: usize, s: &str, wide: bool) {
    for (k, u) in s.encode_utf16().take(chars - 1).enumerate() {
        if wide {
            b[at + 2 * k..at + 2 * k + 2].copy_from_slice(&u.to_le_bytes());
        } else {
            b[at + k] = u as u8;
        }
    }
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

/// MIXERCAPS.
pub fn caps_bytes(wide: bool) -> Vec<u8> {
    let unit = if wide { 2 } else { 1 };
    let mut b = vec![0u8; caps_size(wide) as usize];
    put_u16(&mut b, 0, MM_MICROSOFT);
    put_u16(&mut b, 2, MM_MSFT_WDMAUDIO_MIXER);
    put_u32(&mut b, 4, DRIVER_VERSION);
    put_text(&mut b, 8, 32, MIXER_NAME, wide);
    let at = 8 + 32 * unit;
    put_u32(&mut b, at, 0); // fdwSupport
    put_u32(&mut b, at + 4, 1); // cDestinations
    b
}

fn get_dev_caps(
    cx: &mut Ctx,
    uMxId: u32,
    pmxcaps: Ptr,
    cbmxcaps: u32,
    wide: bool,
) -> ApiResult<u32> {
    if uMxId != 0 && !is_open(cx, uMxId) {
        return Ok(MMSYSERR_BADDEVICEID);
    }
    if pmxcaps.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let b = caps_bytes(wide);
    let n = (cbmxcaps as usize).min(b.len());
    cx.proc.mem.write_bytes(pmxcaps.0, &b[..n])?;
    Ok(MMSYSERR_NOERROR)
}

pub fn mixerGetDevCapsA(cx: &mut Ctx, uMxId: u32, pmxcaps: Ptr, cbmxcaps: u32) -> ApiResult<u32> {
    get_dev_caps(cx, uMxId, pmxcaps, cbmxcaps, false)
}

pub fn mixerGetDevCapsW(cx: &mut Ctx, uMxId: u32, pmxcaps: Ptr, cbmxcaps: u32) -> ApiResult<u32> {
    get_dev_caps(cx, uMxId, pmxcaps, cbmxcaps, true)
}

/// mixerOpen: only window callbacks exist for mixers (CALLBACK_FUNCTION is an
/// invalid flag).
pub fn mixerOpen(
    cx: &mut Ctx,
    phmx: Ptr,
    uMxId: u32,
    dwCallback: u32,
    _dwInstance: u32,
    fdwOpen: u32,
) -> ApiResult<u32> {
    if let Err(e) = resolve(cx, uMxId, fdwOpen & OBJECT_MASK)? {
        return Ok(e);
    }
    let hwnd = match fdwOpen & CALLBACK_TYPEMASK {
        CALLBACK_NULL => 0,
        CALLBACK_WINDOW => {
            if dwCallback != 0 && !crate::user32::window::IsWindow(cx, dwCallback) {
                return Ok(MMSYSERR_INVALPARAM);
            }
            dwCallback
        }
        _ => return Ok(MMSYSERR_INVALFLAG),
    };
    if fdwOpen & !(OBJECT_MASK | CALLBACK_TYPEMASK) != 0 {
        return Ok(MMSYSERR_INVALFLAG);
    }
    if phmx.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let h = with_state(cx.proc, |s| {
        s.next += 1;
        let h = HANDLE_TAG | (s.next & 0xFFFF);
        s.handles.insert(h, hwnd);
        h
    });
    if cx.proc.mem.write_u32(phmx.0, h).is_err() {
        with_state(cx.proc, |s| s.handles.remove(&h));
        return Ok(MMSYSERR_INVALPARAM);
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn mixerClose(cx: &mut Ctx, hmx: u32) -> u32 {
    if with_state(cx.proc, |s| s.handles.remove(&hmx)).is_some() {
        MMSYSERR_NOERROR
    } else {
        MMSYSERR_INVALHANDLE
    }
}

pub fn mixerGetID(cx: &mut Ctx, hmxobj: u32, puMxId: Ptr, fdwId: u32) -> ApiResult<u32> {
    if fdwId & !OBJECT_MASK != 0 {
        return Ok(MMSYSERR_INVALFLAG);
    }
    if let Err(e) = resolve(cx, hmxobj, fdwId)? {
        return Ok(e);
    }
    if puMxId.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    cx.proc.mem.write_u32(puMxId.0, 0)?;
    Ok(MMSYSERR_NOERROR)
}

/// Checks the flags of a mixer query (an object type and a query of at most
/// `max_query`) and the object they name.
fn check(cx: &mut Ctx, hmxobj: u32, flags: u32, max_query: u32) -> ApiResult<Result<u32, u32>> {
    if flags & !(OBJECT_MASK | QUERY_MASK) != 0 || flags & QUERY_MASK > max_query {
        return Ok(Err(MMSYSERR_INVALFLAG));
    }
    Ok(resolve(cx, hmxobj, flags)?.map(|()| flags & QUERY_MASK))
}

/// MIXERLINE of the speakers line (cbStruct left as the caller set it).
pub fn line_bytes(wide: bool, cb: u32) -> Vec<u8> {
    let unit = if wide { 2 } else { 1 };
    let mut b = vec![0u8; line_size(wide) as usize];
    put_u32(&mut b, 0, cb);
    put_u32(&mut b, 4, 0); // dwDestination
    put_u32(&mut b, 8, 0); // dwSource
    put_u32(&mut b, 12, SPEAKERS_LINE_ID);
    put_u32(&mut b, 16, MIXERLINE_LINEF_ACTIVE);
    put_u32(&mut b, 20, 0); // dwUser
    put_u32(&mut b, 24, MIXERLINE_COMPONENTTYPE_DST_SPEAKERS);
    put_u32(&mut b, 28, 2); // cChannels
    put_u32(&mut b, 32, 0); // cConnections
    put_u32(&mut b, 36, 2); // cControls
    put_text(&mut b, 40, 16, LINE_SHORT_NAME, wide);
    put_text(&mut b, 40 + 16 * unit, 64, LINE_NAME, wide);
    let t = 40 + 80 * unit;
    put_u32(&mut b, t, MIXERLINE_TARGETTYPE_WAVEOUT);
    put_u32(&mut b, t + 4, 0); // dwDeviceID
    put_u16(&mut b, t + 8, MM_MICROSOFT);
    put_u16(&mut b, t + 10, WAVEOUT_PID);
    put_u32(&mut b, t + 12, DRIVER_VERSION);
    put_text(&mut b, t + 16, 32, WAVEOUT_NAME, wide);
    b
}

fn get_line_info(cx: &mut Ctx, hmxobj: u32, pmxl: Ptr, fdwInfo: u32, wide: bool) -> ApiResult<u32> {
    let query = match check(cx, hmxobj, fdwInfo, MIXER_GETLINEINFOF_TARGETTYPE)? {
        Ok(q) => q,
        Err(e) => return Ok(e),
    };
    if pmxl.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let m = &cx.proc.mem;
    let cb = m.read_u32(pmxl.0)?;
    if cb < line_size(wide) {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let ours = match query {
        MIXER_GETLINEINFOF_DESTINATION => m.read_u32(pmxl.0 + 4)? == 0,
        // The destination has no source lines.
        MIXER_GETLINEINFOF_SOURCE => false,
        MIXER_GETLINEINFOF_LINEID => m.read_u32(pmxl.0 + 12)? == SPEAKERS_LINE_ID,
        MIXER_GETLINEINFOF_COMPONENTTYPE => {
            m.read_u32(pmxl.0 + 24)? == MIXERLINE_COMPONENTTYPE_DST_SPEAKERS
        }
        _ => {
            let t = pmxl.0 + if wide { 200 } else { 120 };
            m.read_u32(t)? == MIXERLINE_TARGETTYPE_WAVEOUT
        }
    };
    if !ours {
        return Ok(MIXERR_INVALLINE);
    }
    m.write_bytes(pmxl.0, &line_bytes(wide, cb))?;
    Ok(MMSYSERR_NOERROR)
}

pub fn mixerGetLineInfoA(cx: &mut Ctx, hmxobj: u32, pmxl: Ptr, fdwInfo: u32) -> ApiResult<u32> {
    get_line_info(cx, hmxobj, pmxl, fdwInfo, false)
}

pub fn mixerGetLineInfoW(cx: &mut Ctx, hmxobj: u32, pmxl: Ptr, fdwInfo: u32) -> ApiResult<u32> {
    get_line_info(cx, hmxobj, pmxl, fdwInfo, true)
}

/// MIXERCONTROL of control `id`.
pub fn control_bytes(id: u32, wide: bool) -> Vec<u8> {
    let unit = if wide { 2 } else { 1 };
    let mut b = vec![0u8; control_size(wide) as usize];
    put_u32(&mut b, 0, control_size(wide));
    put_u32(&mut b, 4, id);
    let (ty, flags, short, long, max, steps) = if id == VOLUME_CONTROL_ID {
        (
            MIXERCONTROL_CONTROLTYPE_VOLUME,
            0,
            "Volume",
            "Master Volume",
            VOLUME_MAX,
            VOLUME_MAX,
        )
    } else {
        (
            MIXERCONTROL_CONTROLTYPE_MUTE,
            MIXERCONTROL_CONTROLF_UNIFORM,
            "Mute",
            "Master Mute",
            1,
            0,
        )
    };
    put_u32(&mut b, 8, ty);
    put_u32(&mut b, 12, flags);
    put_u32(&mut b, 16, 0); // cMultipleItems
    put_text(&mut b, 20, 16, short, wide);
    put_text(&mut b, 20 + 16 * unit, 64, long, wide);
    let bounds = 20 + 80 * unit;
    put_u32(&mut b, bounds, 0);
    put_u32(&mut b, bounds + 4, max);
    put_u32(&mut b, bounds + 24, steps);
    b
}

fn control_of_type(ty: u32) -> Option<u32> {
    match ty {
        MIXERCONTROL_CONTROLTYPE_VOLUME => Some(VOLUME_CONTROL_ID),
        MIXERCONTROL_CONTROLTYPE_MUTE => Some(MUTE_CONTROL_ID),
        _ => None,
    }
}

fn get_line_controls(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxlc: Ptr,
    fdwControls: u32,
    wide: bool,
) -> ApiResult<u32> {
    let query = match check(cx, hmxobj, fdwControls, MIXER_GETLINECONTROLSF_ONEBYTYPE)? {
        Ok(q) => q,
        Err(e) => return Ok(e),
    };
    if pmxlc.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let m = &cx.proc.mem;
    let (cb, line, which, count, cbctrl, array) = (
        m.read_u32(pmxlc.0)?,
        m.read_u32(pmxlc.0 + 4)?,
        m.read_u32(pmxlc.0 + 8)?,
        m.read_u32(pmxlc.0 + 12)?,
        m.read_u32(pmxlc.0 + 16)?,
        m.read_u32(pmxlc.0 + 20)?,
    );
    if cb < LINECONTROLS_SIZE || cbctrl < control_size(wide) || array == 0 {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let ids: Vec<u32> = match query {
        MIXER_GETLINECONTROLSF_ALL => {
            if line != SPEAKERS_LINE_ID {
                return Ok(MIXERR_INVALLINE);
            }
            if count != 2 {
                return Ok(MMSYSERR_INVALPARAM);
            }
            vec![VOLUME_CONTROL_ID, MUTE_CONTROL_ID]
        }
        MIXER_GETLINECONTROLSF_ONEBYID => {
            if which != VOLUME_CONTROL_ID && which != MUTE_CONTROL_ID {
                return Ok(MIXERR_INVALCONTROL);
            }
            // The line the control belongs to comes back in dwLineID.
            m.write_u32(pmxlc.0 + 4, SPEAKERS_LINE_ID)?;
            vec![which]
        }
        _ => {
            if line != SPEAKERS_LINE_ID {
                return Ok(MIXERR_INVALLINE);
            }
            match control_of_type(which) {
                Some(id) => vec![id],
                None => return Ok(MIXERR_INVALCONTROL),
            }
        }
    };
    for (k, id) in ids.iter().enumerate() {
        m.write_bytes(array + cbctrl * k as u32, &control_bytes(*id, wide))?;
    }
    Ok(MMSYSERR_NOERROR)
}

pub fn mixerGetLineControlsA(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxlc: Ptr,
    fdwControls: u32,
) -> ApiResult<u32> {
    get_line_controls(cx, hmxobj, pmxlc, fdwControls, false)
}

pub fn mixerGetLineControlsW(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxlc: Ptr,
    fdwControls: u32,
) -> ApiResult<u32> {
    get_line_controls(cx, hmxobj, pmxlc, fdwControls, true)
}

/// A MIXERCONTROLDETAILS the caller passed: (control id, channels, value array,
/// bytes per value), or the error.
fn details(cx: &Ctx, pmxcd: Ptr) -> ApiResult<Result<(u32, u32, u32, u32), u32>> {
    if pmxcd.is_null() {
        return Ok(Err(MMSYSERR_INVALPARAM));
    }
    let m = &cx.proc.mem;
    let (cb, id, channels, items, cbdetails, array) = (
        m.read_u32(pmxcd.0)?,
        m.read_u32(pmxcd.0 + 4)?,
        m.read_u32(pmxcd.0 + 8)?,
        m.read_u32(pmxcd.0 + 12)?,
        m.read_u32(pmxcd.0 + 16)?,
        m.read_u32(pmxcd.0 + 20)?,
    );
    if cb < DETAILS_SIZE {
        return Ok(Err(MMSYSERR_INVALPARAM));
    }
    if id != VOLUME_CONTROL_ID && id != MUTE_CONTROL_ID {
        return Ok(Err(MIXERR_INVALCONTROL));
    }
    // One channel (all channels as one) or the line's two; neither control has
    // multiple items.
    if !(1..=2).contains(&channels) || items != 0 || cbdetails < 4 || array == 0 {
        return Ok(Err(MMSYSERR_INVALPARAM));
    }
    Ok(Ok((id, channels, array, cbdetails)))
}

pub fn mixerGetControlDetailsA(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxcd: Ptr,
    fdwDetails: u32,
) -> ApiResult<u32> {
    get_control_details(cx, hmxobj, pmxcd, fdwDetails)
}

pub fn mixerGetControlDetailsW(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxcd: Ptr,
    fdwDetails: u32,
) -> ApiResult<u32> {
    get_control_details(cx, hmxobj, pmxcd, fdwDetails)
}

/// The values of a control, per channel: one channel reads as the louder of the
/// two for the volume.
pub fn read_values(proc: &Arc<Process>, id: u32, channels: u32) -> Vec<u32> {
    with_state(proc, |s| {
        if id == VOLUME_CONTROL_ID {
            if channels == 1 {
                vec![s.volume[0].max(s.volume[1])]
            } else {
                s.volume.to_vec()
            }
        } else {
            vec![s.mute as u32; channels as usize]
        }
    })
}

fn get_control_details(cx: &mut Ctx, hmxobj: u32, pmxcd: Ptr, fdwDetails: u32) -> ApiResult<u32> {
    let query = match check(cx, hmxobj, fdwDetails, MIXER_GETCONTROLDETAILSF_LISTTEXT)? {
        Ok(q) => q,
        Err(e) => return Ok(e),
    };
    let (id, channels, array, stride) = match details(cx, pmxcd)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    if query == MIXER_GETCONTROLDETAILSF_LISTTEXT {
        // Only multiple-item controls have item texts.
        return Ok(MMSYSERR_INVALPARAM);
    }
    for (k, v) in read_values(cx.proc, id, channels).iter().enumerate() {
        cx.proc.mem.write_u32(array + stride * k as u32, *v)?;
    }
    Ok(MMSYSERR_NOERROR)
}

/// mixerSetControlDetails: stores the values (a volume above the maximum is the
/// maximum; any non-zero mute is TRUE) and tells the windows of open handles.
pub fn mixerSetControlDetails(
    cx: &mut Ctx,
    hmxobj: u32,
    pmxcd: Ptr,
    fdwDetails: u32,
) -> ApiResult<u32> {
    let query = match check(cx, hmxobj, fdwDetails, MIXER_SETCONTROLDETAILSF_CUSTOM)? {
        Ok(q) => q,
        Err(e) => return Ok(e),
    };
    let (id, channels, array, stride) = match details(cx, pmxcd)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    if query == MIXER_SETCONTROLDETAILSF_CUSTOM {
        // Neither control is a custom one.
        return Ok(MMSYSERR_INVALPARAM);
    }
    let mut vals = Vec::new();
    for k in 0..channels {
        vals.push(cx.proc.mem.read_u32(array + stride * k)?);
    }
    let (changed, windows) = with_state(cx.proc, |s| {
        let before = (s.volume, s.mute);
        if id == VOLUME_CONTROL_ID {
            let l = vals[0].min(VOLUME_MAX);
            let r = vals.get(1).map_or(l, |v| (*v).min(VOLUME_MAX));
            s.volume = [l, r];
        } else {
            s.mute = vals[0] != 0;
        }
        let windows: Vec<(u32, u32)> = s
            .handles
            .iter()
            .filter(|(_, w)| **w != 0)
            .map(|(h, w)| (*h, *w))
            .collect();
        (before != (s.volume, s.mute), windows)
    });
    if changed {
        for (h, hwnd) in windows {
            crate::user32::msg::post(cx, hwnd, MM_MIXM_CONTROL_CHANGE, h, id);
        }
    }
    Ok(MMSYSERR_NOERROR)
}

/// mixerMessage sends a driver-specific message; this mixer's driver defines
/// none.
pub fn mixerMessage(cx: &mut Ctx, hmx: u32, _uMsg: u32, _dwParam1: u32, _dwParam2: u32) -> u32 {
    if hmx != 0 && !is_open(cx, hmx) {
        return MMSYSERR_INVALHANDLE;
    }
    MMSYSERR_NOTSUPPORTED
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("mixerGetNumDevs", mixerGetNumDevs),
        stdcall("mixerGetDevCapsA", mixerGetDevCapsA),
        stdcall("mixerGetDevCapsW", mixerGetDevCapsW),
        stdcall("mixerOpen", mixerOpen),
        stdcall("mixerClose", mixerClose),
        stdcall("mixerGetID", mixerGetID),
        stdcall("mixerGetLineInfoA", mixerGetLineInfoA),
        stdcall("mixerGetLineInfoW", mixerGetLineInfoW),
        stdcall("mixerGetLineControlsA", mixerGetLineControlsA),
        stdcall("mixerGetLineControlsW", mixerGetLineControlsW),
        stdcall("mixerGetControlDetailsA", mixerGetControlDetailsA),
        stdcall("mixerGetControlDetailsW", mixerGetControlDetailsW),
        stdcall("mixerSetControlDetails", mixerSetControlDetails),
        stdcall("mixerMessage", mixerMessage),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn structures_have_the_mmsystem_layouts() {
        let a = caps_bytes(false);
        assert_eq!(a.len(), 48);
        assert_eq!(&a[0..4], &[1, 0, 104, 0]);
        assert_eq!(&a[8..21], b"winterp Mixer");
        assert_eq!(&a[40..48], &[0, 0, 0, 0, 1, 0, 0, 0]);
        let w = caps_bytes(true);
        assert_eq!(w.len(), 80);
        assert_eq!(&w[8..12], &[b'w', 0, b'i', 0]);
        assert_eq!(&w[76..80], &[1, 0, 0, 0]);

        let l = line_bytes(false, 168);
        assert_eq!(l.len(), 168);
        assert_eq!(&l[12..16], &SPEAKERS_LINE_ID.to_le_bytes());
        assert_eq!(
            &l[24..28],
            &MIXERLINE_COMPONENTTYPE_DST_SPEAKERS.to_le_bytes()
        );
        assert_eq!(&l[28..40], &[2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(&l[40..54], b"Volume Control");
        assert_eq!(&l[56..70], b"Volume Control");
        // Target at 120: dwType, dwDeviceID, wMid, wPid, vDriverVersion, szPname.
        assert_eq!(&l[120..124], &MIXERLINE_TARGETTYPE_WAVEOUT.to_le_bytes());
        assert_eq!(&l[128..132], &[1, 0, 104, 0]);
        assert_eq!(&l[136..152], b"winterp Wave Out");
        let lw = line_bytes(true, 280);
        assert_eq!(lw.len(), 280);
        assert_eq!(&lw[72..76], &[b'V', 0, b'o', 0]);
        assert_eq!(&lw[200..204], &MIXERLINE_TARGETTYPE_WAVEOUT.to_le_bytes());
        assert_eq!(&lw[216..220], &[b'w', 0, b'i', 0]);

        let c = control_bytes(VOLUME_CONTROL_ID, false);
        assert_eq!(c.len(), 148);
        assert_eq!(&c[0..4], &148u32.to_le_bytes());
        assert_eq!(&c[8..12], &MIXERCONTROL_CONTROLTYPE_VOLUME.to_le_bytes());
        assert_eq!(&c[20..26], b"Volume");
        assert_eq!(&c[36..49], b"Master Volume");
        // Bounds at 100 (min, max), Metrics at 124 (cSteps).
        assert_eq!(&c[100..108], &[0, 0, 0, 0, 0xff, 0xff, 0, 0]);
        assert_eq!(&c[124..128], &[0xff, 0xff, 0, 0]);
        let m = control_bytes(MUTE_CONTROL_ID, true);
        assert_eq!(m.len(), 228);
        assert_eq!(&m[12..16], &MIXERCONTROL_CONTROLF_UNIFORM.to_le_bytes());
        assert_eq!(&m[180..188], &[0, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn devices_handles_and_ids() {
        let mut h = Harness::new();
        let p = h.scratch(0x1000);
        let mut cx = h.cx();
        assert_eq!(mixerGetNumDevs(&mut cx), 1);
        assert_eq!(
            mixerGetDevCapsA(&mut cx, 1, Ptr(p), 48).unwrap(),
            MMSYSERR_BADDEVICEID
        );
        assert_eq!(
            mixerGetDevCapsA(&mut cx, 0, Ptr(0), 48).unwrap(),
            MMSYSERR_INVALPARAM
        );
        // A short buffer gets what fits.
        cx.proc.mem.write_u32(p + 4, 0xdead_beef).unwrap();
        assert_eq!(mixerGetDevCapsW(&mut cx, 0, Ptr(p), 4).unwrap(), 0);
        assert_eq!(cx.proc.mem.read_u32(p + 4).unwrap(), 0xdead_beef);
        for (id, want) in [(1, MMSYSERR_BADDEVICEID), (u32::MAX, MMSYSERR_BADDEVICEID)] {
            assert_eq!(mixerOpen(&mut cx, Ptr(p), id, 0, 0, 0).unwrap(), want);
        }
        assert_eq!(
            mixerOpen(&mut cx, Ptr(p), 0, 0, 0, 0x0003_0000).unwrap(),
            MMSYSERR_INVALFLAG,
            "CALLBACK_FUNCTION"
        );
        assert_eq!(
            mixerOpen(&mut cx, Ptr(p), 0, 0xdead_beef, 0, CALLBACK_WINDOW).unwrap(),
            MMSYSERR_INVALPARAM
        );
        assert_eq!(
            mixerOpen(&mut cx, Ptr(p), 0, 0, 0, CALLBACK_WINDOW).unwrap(),
            0
        );
        let hmx = cx.proc.mem.read_u32(p).unwrap();
        // The handle stands for the device everywhere a device ID does.
        assert_eq!(
            mixerGetDevCapsA(&mut cx, hmx, Ptr(p + 0x100), 48).unwrap(),
            0
        );
        let id = p + 0x200;
        for (obj, flags, want) in [
            (hmx, MIXER_OBJECTF_HMIXER, MMSYSERR_NOERROR),
            (hmx, MIXER_OBJECTF_MIXER, MMSYSERR_NOERROR),
            (0, MIXER_OBJECTF_MIXER, MMSYSERR_NOERROR),
            (0, MIXER_OBJECTF_WAVEOUT, MMSYSERR_NOERROR),
            (WAVE_MAPPER, MIXER_OBJECTF_WAVEOUT, MMSYSERR_NOERROR),
            (1, MIXER_OBJECTF_WAVEOUT, MMSYSERR_BADDEVICEID),
            (0x1234, MIXER_OBJECTF_HWAVEOUT, MMSYSERR_INVALHANDLE),
            (0, MIXER_OBJECTF_MIDIOUT, MMSYSERR_BADDEVICEID),
            (0, MIXER_OBJECTF_WAVEIN, MMSYSERR_BADDEVICEID),
            (5, MIXER_OBJECTF_HMIDIIN, MMSYSERR_INVALHANDLE),
            (7, MIXER_OBJECTF_HMIXER, MMSYSERR_INVALHANDLE),
            (0, 0x6000_0000, MMSYSERR_INVALFLAG),
        ] {
            cx.proc.mem.write_u32(id, 99).unwrap();
            assert_eq!(
                mixerGetID(&mut cx, obj, Ptr(id), flags).unwrap(),
                want,
                "{obj:#x} {flags:#x}"
            );
            if want == 0 {
                assert_eq!(cx.proc.mem.read_u32(id).unwrap(), 0);
            }
        }
        assert_eq!(
            mixerMessage(&mut cx, hmx, 0x4000, 0, 0),
            MMSYSERR_NOTSUPPORTED
        );
        assert_eq!(mixerMessage(&mut cx, 3, 0x4000, 0, 0), MMSYSERR_INVALHANDLE);
        assert_eq!(mixerClose(&mut cx, hmx), 0);
        assert_eq!(mixerClose(&mut cx, hmx), MMSYSERR_INVALHANDLE);
    }

    #[test]
    fn line_info_and_controls() {
        let mut h = Harness::new();
        let p = h.scratch(0x2000);
        let mut cx = h.cx();
        let m = cx.proc.mem.clone();
        let line = p;
        m.write_u32(line, 168).unwrap();
        m.write_u32(line + 4, 0).unwrap();
        assert_eq!(mixerGetLineInfoA(&mut cx, 0, Ptr(line), 0).unwrap(), 0);
        assert_eq!(m.read_u32(line).unwrap(), 168, "cbStruct kept");
        assert_eq!(m.read_u32(line + 12).unwrap(), SPEAKERS_LINE_ID);
        m.write_u32(line + 4, 1).unwrap();
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), 0).unwrap(),
            MIXERR_INVALLINE
        );
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), MIXER_GETLINEINFOF_SOURCE).unwrap(),
            MIXERR_INVALLINE,
            "no source lines"
        );
        m.write_u32(line + 12, SPEAKERS_LINE_ID).unwrap();
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), MIXER_GETLINEINFOF_LINEID).unwrap(),
            0
        );
        m.write_u32(line + 24, 0x1008).unwrap(); // SRC_WAVEOUT
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), MIXER_GETLINEINFOF_COMPONENTTYPE).unwrap(),
            MIXERR_INVALLINE
        );
        m.write_u32(line + 200, MIXERLINE_TARGETTYPE_WAVEOUT)
            .unwrap();
        m.write_u32(line, 280).unwrap();
        assert_eq!(
            mixerGetLineInfoW(&mut cx, 0, Ptr(line), MIXER_GETLINEINFOF_TARGETTYPE).unwrap(),
            0
        );
        m.write_u32(line, 0).unwrap();
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), 0).unwrap(),
            MMSYSERR_INVALPARAM
        );
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(0), 0).unwrap(),
            MMSYSERR_INVALPARAM
        );
        assert_eq!(
            mixerGetLineInfoA(&mut cx, 0, Ptr(line), u32::MAX).unwrap(),
            MMSYSERR_INVALFLAG
        );

        // MIXERLINECONTROLS at lc, the controls at arr.
        let (lc, arr) = (p + 0x400, p + 0x800);
        let set_lc = |line_id: u32, which: u32, count: u32, cb: u32| {
            for (k, v) in [24, line_id, which, count, cb, arr].iter().enumerate() {
                m.write_u32(lc + 4 * k as u32, *v).unwrap();
            }
        };
        set_lc(SPEAKERS_LINE_ID, 0, 2, 148);
        assert_eq!(mixerGetLineControlsA(&mut cx, 0, Ptr(lc), 0).unwrap(), 0);
        assert_eq!(m.read_u32(arr + 4).unwrap(), VOLUME_CONTROL_ID);
        assert_eq!(m.read_u32(arr + 148 + 4).unwrap(), MUTE_CONTROL_ID);
        set_lc(SPEAKERS_LINE_ID, 0, 1, 148);
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), 0).unwrap(),
            MMSYSERR_INVALPARAM,
            "ALL wants every control"
        );
        set_lc(5, 0, 2, 148);
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), 0).unwrap(),
            MIXERR_INVALLINE
        );
        set_lc(0, MUTE_CONTROL_ID, 1, 228);
        assert_eq!(
            mixerGetLineControlsW(&mut cx, 0, Ptr(lc), MIXER_GETLINECONTROLSF_ONEBYID).unwrap(),
            0
        );
        assert_eq!(m.read_u32(lc + 4).unwrap(), SPEAKERS_LINE_ID);
        assert_eq!(m.read_u32(arr + 8).unwrap(), MIXERCONTROL_CONTROLTYPE_MUTE);
        set_lc(0, 9, 1, 148);
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), MIXER_GETLINECONTROLSF_ONEBYID).unwrap(),
            MIXERR_INVALCONTROL
        );
        set_lc(SPEAKERS_LINE_ID, MIXERCONTROL_CONTROLTYPE_VOLUME, 1, 148);
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), MIXER_GETLINECONTROLSF_ONEBYTYPE).unwrap(),
            0
        );
        assert_eq!(m.read_u32(arr + 4).unwrap(), VOLUME_CONTROL_ID);
        set_lc(SPEAKERS_LINE_ID, 0x5003_0002, 1, 148); // BASS: not on this line
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), MIXER_GETLINECONTROLSF_ONEBYTYPE).unwrap(),
            MIXERR_INVALCONTROL
        );
        set_lc(SPEAKERS_LINE_ID, 0, 2, 100);
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), 0).unwrap(),
            MMSYSERR_INVALPARAM,
            "cbmxctrl too small"
        );
        assert_eq!(
            mixerGetLineControlsA(&mut cx, 0, Ptr(lc), 3).unwrap(),
            MMSYSERR_INVALFLAG
        );
    }

    #[test]
    fn control_values_belong_to_the_process() {
        let mut h = Harness::new();
        let p = h.scratch(0x1000);
        let mut cx = h.cx();
        let m = cx.proc.mem.clone();
        let (d, vals) = (p, p + 0x100);
        let set_d = |id: u32, channels: u32, cb: u32| {
            for (k, v) in [24, id, channels, 0, cb, vals].iter().enumerate() {
                m.write_u32(d + 4 * k as u32, *v).unwrap();
            }
        };
        set_d(VOLUME_CONTROL_ID, 2, 4);
        assert_eq!(mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        assert_eq!(m.read_u32(vals).unwrap(), VOLUME_MAX);
        m.write_u32(vals, 0x8000).unwrap();
        m.write_u32(vals + 4, 0x2_0000).unwrap();
        assert_eq!(mixerSetControlDetails(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        assert_eq!(
            read_values(cx.proc, VOLUME_CONTROL_ID, 2),
            vec![0x8000, VOLUME_MAX],
            "above the maximum is the maximum"
        );
        set_d(VOLUME_CONTROL_ID, 1, 4);
        assert_eq!(mixerGetControlDetailsW(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        assert_eq!(m.read_u32(vals).unwrap(), VOLUME_MAX, "the louder channel");
        m.write_u32(vals, 0x1000).unwrap();
        assert_eq!(mixerSetControlDetails(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        assert_eq!(
            read_values(cx.proc, VOLUME_CONTROL_ID, 2),
            vec![0x1000, 0x1000]
        );
        set_d(MUTE_CONTROL_ID, 1, 4);
        m.write_u32(vals, 5).unwrap();
        assert_eq!(mixerSetControlDetails(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        m.write_u32(vals, 9).unwrap();
        assert_eq!(mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 0).unwrap(), 0);
        assert_eq!(m.read_u32(vals).unwrap(), 1);
        // Checks: list text, custom values, channel counts, sizes, unknown controls.
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 0, Ptr(d), MIXER_GETCONTROLDETAILSF_LISTTEXT).unwrap(),
            MMSYSERR_INVALPARAM
        );
        assert_eq!(
            mixerSetControlDetails(&mut cx, 0, Ptr(d), MIXER_SETCONTROLDETAILSF_CUSTOM).unwrap(),
            MMSYSERR_INVALPARAM
        );
        set_d(VOLUME_CONTROL_ID, 3, 4);
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 0).unwrap(),
            MMSYSERR_INVALPARAM
        );
        set_d(VOLUME_CONTROL_ID, 1, 2);
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 0).unwrap(),
            MMSYSERR_INVALPARAM
        );
        set_d(77, 1, 4);
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 0).unwrap(),
            MIXERR_INVALCONTROL
        );
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 0, Ptr(d), 2).unwrap(),
            MMSYSERR_INVALFLAG
        );
        assert_eq!(
            mixerGetControlDetailsA(&mut cx, 3, Ptr(d), 0).unwrap(),
            MMSYSERR_BADDEVICEID
        );
        // Another process has its own mixer values.
        let mut h2 = Harness::new();
        assert_eq!(
            read_values(h2.cx().proc, VOLUME_CONTROL_ID, 2),
            vec![VOLUME_MAX, VOLUME_MAX]
        );
    }
}
