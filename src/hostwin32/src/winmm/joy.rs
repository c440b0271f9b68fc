//! winmm joystick API: one joystick slot per host pad ([`crate::display::pad`]).
//!
//! Every slot describes the same device: six axes (X/Y left stick, Z/R right stick,
//! U/V triggers) on 0..=65535, a continuous point-of-view hat and [`NUM_BUTTONS`]
//! buttons. joySetCapture/joyReleaseCapture (joystick messages to a window) are not
//! provided, so calling them stops the program with a report naming them.

use crate::display::{MAX_PADS, PadState};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use std::sync::Mutex;

pub const JOYERR_NOERROR: u32 = 0;
pub const MMSYSERR_NODRIVER: u32 = 6;
pub const MMSYSERR_INVALPARAM: u32 = 11;
/// JOYERR_BASE (160) + 5.
pub const JOYERR_PARMS: u32 = 165;
/// JOYERR_BASE + 7.
pub const JOYERR_UNPLUGGED: u32 = 167;

/// A, B, X, Y, two shoulders, select, start, two stick clicks.
pub const NUM_BUTTONS: u32 = 10;
/// wPeriodMin/wPeriodMax: the polling periods joySetCapture would accept.
const CAPTURE_PERIOD_MIN: u32 = 10;
const CAPTURE_PERIOD_MAX: u32 = 1000;

pub const JOY_RETURNX: u32 = 0x1;
pub const JOY_RETURNY: u32 = 0x2;
pub const JOY_RETURNZ: u32 = 0x4;
pub const JOY_RETURNR: u32 = 0x8;
pub const JOY_RETURNU: u32 = 0x10;
pub const JOY_RETURNV: u32 = 0x20;
pub const JOY_RETURNPOV: u32 = 0x40;
pub const JOY_RETURNBUTTONS: u32 = 0x80;
pub const JOY_RETURNPOVCTS: u32 = 0x200;
pub const JOY_POVCENTERED: u32 = 0xFFFF;

/// JOYCAPS.wCaps: Z, R, U, V axes, a POV hat reporting continuous angles.
const JOYCAPS_HASZ: u32 = 0x1;
const JOYCAPS_HASR: u32 = 0x2;
const JOYCAPS_HASU: u32 = 0x4;
const JOYCAPS_HASV: u32 = 0x8;
const JOYCAPS_HASPOV: u32 = 0x10;
const JOYCAPS_POVCTS: u32 = 0x40;

/// sizeof(JOYINFOEX).
const JOYINFOEX_SIZE: u32 = 52;
/// sizeof(JOYCAPSA) and sizeof(JOYCAPSW).
const JOYCAPSA_SIZE: u32 = 404;
const JOYCAPSW_SIZE: u32 = 728;

/// Per-process joystick state, in `proc.winmm.joy`.
#[derive(Default)]
pub struct State {
    thresholds: Mutex<[u32; MAX_PADS]>,
}

/// The product name every slot reports.
pub fn product_name(index: usize) -> String {
    format!("winterp game pad {}", index + 1)
}

/// The pad in slot `id`, or the joystick error for an invalid id or empty slot.
fn slot(cx: &Ctx, id: u32) -> Result<(usize, PadState), u32> {
    let i = id as usize;
    if i >= MAX_PADS {
        return Err(JOYERR_PARMS);
    }
    let pad = crate::display::pad(cx.proc, i);
    if !pad.connected {
        return Err(JOYERR_UNPLUGGED);
    }
    Ok((i, pad))
}

pub fn joyGetNumDevs(_cx: &mut Ctx) -> u32 {
    MAX_PADS as u32
}

/// JOYCAPS after the name: the 19 UINTs from wXmin to wMaxButtons.
fn caps_numbers() -> [u32; 19] {
    [
        0,
        65535, // X
        0,
        65535, // Y
        0,
        65535, // Z
        NUM_BUTTONS,
        CAPTURE_PERIOD_MIN,
        CAPTURE_PERIOD_MAX,
        0,
        65535, // R
        0,
        65535, // U
        0,
        65535, // V
        JOYCAPS_HASZ | JOYCAPS_HASR | JOYCAPS_HASU | JOYCAPS_HASV | JOYCAPS_HASPOV | JOYCAPS_POVCTS,
        6,  // wMaxAxes
        6,  // wNumAxes
        32, // wMaxButtons
    ]
}

/// Writes JOYCAPS: `wide` for JOYCAPSW (names of 32 UTF-16 units, the OEM VxD name
/// of 260), else ANSI.
fn write_caps(cx: &Ctx, p: u32, index: usize, wide: bool) -> ApiResult<()> {
    let (size, unit) = if wide {
        (JOYCAPSW_SIZE, 2)
    } else {
        (JOYCAPSA_SIZE, 1)
    };
    let mut b = vec![0u8; size as usize];
    // Microsoft's USB vendor id and the Xbox 360 controller's product id: the pad
    // games of the time knew best.
    b[0..2].copy_from_slice(&0x045Eu16.to_le_bytes());
    b[2..4].copy_from_slice(&0x028Eu16.to_le_bytes());
    let put_str = |b: &mut [u8], at: usize, s: &str, cap: usize| {
        for (k, c) in s.chars().take(cap - 1).enumerate() {
            let o = at + k * unit;
            if unit == 2 {
                b[o..o + 2].copy_from_slice(&(c as u16).to_le_bytes());
            } else {
                b[o] = c as u8;
            }
        }
    };
    put_str(&mut b, 4, &product_name(index), 32);
    let nums_at = 4 + 32 * unit;
    for (k, v) in caps_numbers().iter().enumerate() {
        let o = nums_at + 4 * k;
        b[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }
    put_str(&mut b, nums_at + 4 * 19, "DINPUT.DLL", 32);
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(())
}

fn get_dev_caps(cx: &Ctx, id: u32, pjc: Ptr, cbjc: u32, wide: bool) -> ApiResult<u32> {
    let size = if wide { JOYCAPSW_SIZE } else { JOYCAPSA_SIZE };
    if pjc.is_null() || cbjc != size {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let index = id as usize;
    if index >= MAX_PADS || !crate::display::pad(cx.proc, index).connected {
        // "The joystick driver is not present, or the specified joystick identifier
        // is invalid."
        return Ok(MMSYSERR_NODRIVER);
    }
    write_caps(cx, pjc.0, index, wide)?;
    Ok(JOYERR_NOERROR)
}

pub fn joyGetDevCapsA(cx: &mut Ctx, uJoyID: u32, pjc: Ptr, cbjc: u32) -> ApiResult<u32> {
    get_dev_caps(cx, uJoyID, pjc, cbjc, false)
}

pub fn joyGetDevCapsW(cx: &mut Ctx, uJoyID: u32, pjc: Ptr, cbjc: u32) -> ApiResult<u32> {
    get_dev_caps(cx, uJoyID, pjc, cbjc, true)
}

/// JOYINFO: X, Y, Z and the first four buttons.
pub fn joyGetPos(cx: &mut Ctx, uJoyID: u32, pji: Ptr) -> ApiResult<u32> {
    if pji.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let pad = match slot(cx, uJoyID) {
        Ok((_, p)) => p,
        Err(e) => return Ok(e),
    };
    let v = [
        u32::from(pad.axes[0]),
        u32::from(pad.axes[1]),
        u32::from(pad.axes[2]),
        pad.buttons & 0xF,
    ];
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u32(pji.0 + 4 * k as u32, *x)?;
    }
    Ok(JOYERR_NOERROR)
}

/// The hat for JOY_RETURNPOV, whose "discrete units" are the four directions:
/// a diagonal reports the nearest one, halfway cases counter-clockwise.
pub fn pov_discrete(pov: Option<u16>) -> u32 {
    match pov {
        None => JOY_POVCENTERED,
        Some(a) => {
            let a = u32::from(a) % 36000;
            ((a + 4499) / 9000 % 4) * 9000
        }
    }
}

/// JOYINFOEX fields from dwXpos on, as the flags ask; members not asked for are 0.
pub fn info_ex(pad: &PadState, flags: u32) -> [u32; 11] {
    let mut v = [0u32; 11];
    let axis_flags = [
        JOY_RETURNX,
        JOY_RETURNY,
        JOY_RETURNZ,
        JOY_RETURNR,
        JOY_RETURNU,
        JOY_RETURNV,
    ];
    for (k, f) in axis_flags.iter().enumerate() {
        if flags & f != 0 {
            v[k] = u32::from(pad.axes[k]);
        }
    }
    if flags & JOY_RETURNBUTTONS != 0 {
        v[6] = pad.buttons;
        v[7] = pad.buttons.count_ones();
    }
    if flags & JOY_RETURNPOVCTS != 0 {
        v[8] = pad.pov.map_or(JOY_POVCENTERED, u32::from);
    } else if flags & JOY_RETURNPOV != 0 {
        v[8] = pov_discrete(pad.pov);
    }
    v
}

pub fn joyGetPosEx(cx: &mut Ctx, uJoyID: u32, pji: Ptr) -> ApiResult<u32> {
    if pji.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let size = cx.proc.mem.read_u32(pji.0)?;
    if size != JOYINFOEX_SIZE {
        return Ok(JOYERR_PARMS);
    }
    let pad = match slot(cx, uJoyID) {
        Ok((_, p)) => p,
        Err(e) => return Ok(e),
    };
    let flags = cx.proc.mem.read_u32(pji.0 + 4)?;
    for (k, x) in info_ex(&pad, flags).iter().enumerate() {
        cx.proc.mem.write_u32(pji.0 + 8 + 4 * k as u32, *x)?;
    }
    Ok(JOYERR_NOERROR)
}

pub fn joyGetThreshold(cx: &mut Ctx, uJoyID: u32, puThreshold: Ptr) -> ApiResult<u32> {
    let i = uJoyID as usize;
    if i >= MAX_PADS {
        return Ok(JOYERR_PARMS);
    }
    if puThreshold.is_null() {
        return Ok(MMSYSERR_INVALPARAM);
    }
    let t = cx
        .proc
        .winmm
        .joy
        .thresholds
        .lock()
        .unwrap_or_else(|e| e.into_inner())[i];
    cx.proc.mem.write_u32(puThreshold.0, t)?;
    Ok(JOYERR_NOERROR)
}

/// The threshold only matters to joySetCapture's messages, which are not provided;
/// it is kept so joyGetThreshold reads it back.
pub fn joySetThreshold(cx: &mut Ctx, uJoyID: u32, uThreshold: u32) -> u32 {
    let i = uJoyID as usize;
    if i >= MAX_PADS {
        return JOYERR_PARMS;
    }
    cx.proc
        .winmm
        .joy
        .thresholds
        .lock()
        .unwrap_or_else(|e| e.into_inner())[i] = uThreshold;
    JOYERR_NOERROR
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("joyGetNumDevs", joyGetNumDevs),
        stdcall("joyGetDevCapsA", joyGetDevCapsA),
        stdcall("joyGetDevCapsW", joyGetDevCapsW),
        stdcall("joyGetPos", joyGetPos),
        stdcall("joyGetPosEx", joyGetPosEx),
        stdcall("joyGetThreshold", joyGetThreshold),
        stdcall("joySetThreshold", joySetThreshold),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pov_discrete_rounds_to_the_four_directions() {
        assert_eq!(pov_discrete(None), JOY_POVCENTERED);
        assert_eq!(pov_discrete(Some(0)), 0);
        assert_eq!(pov_discrete(Some(9000)), 9000);
        assert_eq!(pov_discrete(Some(4500)), 0);
        assert_eq!(pov_discrete(Some(4501)), 9000);
        assert_eq!(pov_discrete(Some(31500)), 27000);
        assert_eq!(pov_discrete(Some(31501)), 0);
    }

    #[test]
    fn info_ex_fills_only_requested_members() {
        let pad = PadState {
            connected: true,
            buttons: 0b101,
            axes: [1, 2, 3, 4, 5, 6],
            pov: Some(13500),
        };
        let all = info_ex(&pad, 0xFF);
        assert_eq!(all, [1, 2, 3, 4, 5, 6, 0b101, 2, 9000, 0, 0]);
        let some = info_ex(&pad, JOY_RETURNY | JOY_RETURNPOVCTS);
        assert_eq!(some, [0, 2, 0, 0, 0, 0, 0, 0, 13500, 0, 0]);
        let centred = info_ex(&PadState::default(), JOY_RETURNPOV);
        assert_eq!(centred[8], JOY_POVCENTERED);
    }
}
