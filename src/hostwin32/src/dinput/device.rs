//! A DirectInput device's host-side model: its objects (keys, axes, buttons, the
//! hat), the program's data format mapped onto them, its state, and the event
//! buffer GetDeviceData drains.
//!
//! Data formats are interpreted the way DirectInput documents them, not recognised
//! by address: each DIOBJECTDATAFORMAT entry takes the first unused device object
//! whose type GUID (if given), type bits and instance (unless DIDFT_ANYINSTANCE)
//! match; an entry nothing matches fails SetDataFormat unless DIDFT_OPTIONAL.

use crate::display::PadState;
use crate::hle::com::Guid;
use std::collections::VecDeque;

const fn di_guid(d1: u32, d2: u16, d3: u16) -> Guid {
    Guid::new(d1, d2, d3, [0xBF, 0xC7, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00])
}

pub const GUID_X_AXIS: Guid = di_guid(0xA36D02E0, 0xC9F3, 0x11CF);
pub const GUID_Y_AXIS: Guid = di_guid(0xA36D02E1, 0xC9F3, 0x11CF);
pub const GUID_Z_AXIS: Guid = di_guid(0xA36D02E2, 0xC9F3, 0x11CF);
pub const GUID_RX_AXIS: Guid = di_guid(0xA36D02F4, 0xC9F3, 0x11CF);
pub const GUID_RY_AXIS: Guid = di_guid(0xA36D02F5, 0xC9F3, 0x11CF);
pub const GUID_RZ_AXIS: Guid = di_guid(0xA36D02E3, 0xC9F3, 0x11CF);
pub const GUID_BUTTON: Guid = di_guid(0xA36D02F0, 0xC9F3, 0x11CF);
pub const GUID_KEY: Guid = di_guid(0x55728220, 0xD33C, 0x11CF);
pub const GUID_POV: Guid = di_guid(0xA36D02F2, 0xC9F3, 0x11CF);

pub const DIDFT_RELAXIS: u32 = 0x1;
pub const DIDFT_ABSAXIS: u32 = 0x2;
pub const DIDFT_PSHBUTTON: u32 = 0x4;
pub const DIDFT_POV: u32 = 0x10;
pub const DIDFT_OPTIONAL: u32 = 0x8000_0000;
const ANY_INSTANCE: u32 = 0xFFFF;

/// Which device an object belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Keyboard,
    Mouse,
    /// The joystick on host pad slot `n`.
    Joystick(usize),
}

/// What an object reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// Keyboard key by DIK code.
    Key(u8),
    /// Mouse X, Y, wheel.
    MouseAxis(usize),
    /// Mouse left, right, middle.
    MouseButton(usize),
    /// Pad axis by `PadState::axes` index.
    PadAxis(usize),
    PadPov,
    PadButton(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obj {
    pub guid: Guid,
    /// DIDFT_ type bits.
    pub ty: u32,
    pub inst: u32,
    pub what: What,
}

impl Obj {
    /// The object id DIPH_BYID and EnumObjects use: type bits and instance.
    pub fn id(&self) -> u32 {
        self.ty | (self.inst << 8)
    }
}

/// Host pad axes in `PadState::axes` order as DirectInput axes: the left stick is
/// X/Y, the right stick Z/Rz (winmm's Z and R), the triggers Rx/Ry (winmm's U, V).
pub const PAD_AXIS_GUIDS: [Guid; 6] = [
    GUID_X_AXIS,
    GUID_Y_AXIS,
    GUID_Z_AXIS,
    GUID_RZ_AXIS,
    GUID_RX_AXIS,
    GUID_RY_AXIS,
];

/// The device's objects in enumeration order.
pub fn objects(kind: Kind) -> Vec<Obj> {
    match kind {
        Kind::Keyboard => (0..=255u8)
            .map(|k| Obj {
                guid: GUID_KEY,
                ty: DIDFT_PSHBUTTON,
                inst: u32::from(k),
                what: What::Key(k),
            })
            .collect(),
        Kind::Mouse => {
            let mut v: Vec<Obj> = [GUID_X_AXIS, GUID_Y_AXIS, GUID_Z_AXIS]
                .iter()
                .enumerate()
                .map(|(i, g)| Obj {
                    guid: *g,
                    ty: DIDFT_RELAXIS,
                    inst: i as u32,
                    what: What::MouseAxis(i),
                })
                .collect();
            v.extend((0..3).map(|b| Obj {
                guid: GUID_BUTTON,
                ty: DIDFT_PSHBUTTON,
                inst: b as u32,
                what: What::MouseButton(b),
            }));
            v
        }
        Kind::Joystick(_) => {
            let mut v: Vec<Obj> = PAD_AXIS_GUIDS
                .iter()
                .enumerate()
                .map(|(i, g)| Obj {
                    guid: *g,
                    ty: DIDFT_ABSAXIS,
                    inst: i as u32,
                    what: What::PadAxis(i),
                })
                .collect();
            v.push(Obj {
                guid: GUID_POV,
                ty: DIDFT_POV,
                inst: 0,
                what: What::PadPov,
            });
            v.extend((0..crate::winmm::joy::NUM_BUTTONS as usize).map(|b| Obj {
                guid: GUID_BUTTON,
                ty: DIDFT_PSHBUTTON,
                inst: b as u32,
                what: What::PadButton(b),
            }));
            v
        }
    }
}

/// One DIOBJECTDATAFORMAT as read from the program.
#[derive(Clone, Copy, Debug)]
pub struct FormatEntry {
    pub guid: Option<Guid>,
    pub ofs: u32,
    pub ty: u32,
}

/// A data format mapped onto a device: each object's offset, if the format has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub data_size: u32,
    /// By object index.
    pub offsets: Vec<Option<u32>>,
}

impl Format {
    /// Maps `entries` onto `objs`, or says why it cannot.
    pub fn build(objs: &[Obj], data_size: u32, entries: &[FormatEntry]) -> Result<Format, String> {
        if !data_size.is_multiple_of(4) {
            return Err(format!("dwDataSize {data_size} is not a multiple of 4"));
        }
        let mut offsets = vec![None; objs.len()];
        for (n, e) in entries.iter().enumerate() {
            let tbits = e.ty & 0xFF;
            let inst = (e.ty >> 8) & 0xFFFF;
            let found = objs.iter().enumerate().position(|(i, o)| {
                offsets[i].is_none()
                    && e.guid.is_none_or(|g| g == o.guid)
                    && (tbits == 0 || tbits & o.ty != 0)
                    && (inst == ANY_INSTANCE || inst == o.inst)
            });
            match found {
                Some(i) => {
                    let width = match objs[i].what {
                        What::Key(_) | What::MouseButton(_) | What::PadButton(_) => 1,
                        _ => 4,
                    };
                    if e.ofs.checked_add(width).is_none_or(|end| end > data_size) {
                        return Err(format!(
                            "object {n} at offset {} does not fit in {data_size} bytes",
                            e.ofs
                        ));
                    }
                    if width == 4 && !e.ofs.is_multiple_of(4) {
                        return Err(format!("object {n}: offset {} is not aligned", e.ofs));
                    }
                    offsets[i] = Some(e.ofs);
                }
                None if e.ty & DIDFT_OPTIONAL != 0 => {}
                None => {
                    return Err(format!(
                        "object {n} (type {:#x}) matches nothing on the device",
                        e.ty
                    ));
                }
            }
        }
        Ok(Format { data_size, offsets })
    }
}

/// One DIDEVICEOBJECTDATA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub ofs: u32,
    pub data: u32,
    pub time: u32,
    pub seq: u32,
}

/// Per-axis calibration the program set through properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisProps {
    pub min: i32,
    pub max: i32,
    /// DIPROP_DEADZONE, 0..=10000 of the distance from centre to either end.
    pub deadzone: u32,
    /// DIPROP_SATURATION, 0..=10000.
    pub saturation: u32,
}

impl Default for AxisProps {
    fn default() -> Self {
        AxisProps {
            min: 0,
            max: 65535,
            deadzone: 0,
            saturation: 10000,
        }
    }
}

impl AxisProps {
    /// A host pad axis reading (0..=65535, 32767 centred) in the program's range:
    /// within the dead zone the range's centre, beyond the saturation its end,
    /// linear in between.
    pub fn scale(&self, raw: u16) -> i32 {
        // Signed distance from centre in 1/65535ths of the half range.
        let off = 2 * i64::from(raw) - 65535;
        let mag = off.abs();
        let dz = i64::from(self.deadzone) * 65535 / 10000;
        let sat = (i64::from(self.saturation) * 65535 / 10000).max(dz + 1);
        let (lo, hi) = (i64::from(self.min), i64::from(self.max));
        let centre = lo + (hi - lo) / 2;
        if self.deadzone == 0 && self.saturation >= 10000 {
            // The plain linear map, rounding to nearest so the centre maps to the
            // centre of a symmetric range.
            return (lo + (i64::from(raw) * (hi - lo) + 32767) / 65535) as i32;
        }
        if mag <= dz {
            return centre as i32;
        }
        let t = (mag.min(sat) - dz) as i128;
        let span = (sat - dz) as i128;
        let v = if off < 0 {
            centre as i128 - (t * (centre - lo) as i128 + span / 2) / span
        } else {
            centre as i128 + (t * (hi - centre) as i128 + span / 2) / span
        };
        v as i32
    }
}

/// A device's state.
pub struct Device {
    pub kind: Kind,
    pub wide: bool,
    pub refs: u32,
    pub objs: Vec<Obj>,
    pub format: Option<Format>,
    pub acquired: bool,
    /// Acquisition was lost (focus, unplugging): reads say DIERR_INPUTLOST until
    /// the program acquires or unacquires the device.
    pub lost: bool,
    pub coop: u32,
    pub buffer_size: u32,
    pub buffer: VecDeque<Event>,
    pub overflow: bool,
    pub keys: [bool; 256],
    pub mouse_buttons: [bool; 3],
    /// Relative mode: motion since the last GetDeviceState.
    pub mouse_rel: [i32; 3],
    /// Absolute mode: the sum of all motion while acquired.
    pub mouse_abs: [i32; 3],
    /// DIPROP_AXISMODE is DIPROPAXISMODE_ABS.
    pub abs_axes: bool,
    pub axes: [AxisProps; 6],
    pub pad: PadState,
    /// The DirectInput version the program asked for (structure sizes).
    pub version: u32,
    /// SetEventNotification's event: set whenever the acquired device's state
    /// changes or its acquisition is lost.
    pub notify: Option<std::sync::Arc<crate::kernel32::sync::Event>>,
    /// Counts state changes (and losses), so a caller can tell whether an input
    /// event changed anything.
    pub changes: u32,
}

impl Device {
    pub fn new(kind: Kind, wide: bool) -> Device {
        Device {
            kind,
            wide,
            refs: 1,
            objs: objects(kind),
            format: None,
            acquired: false,
            lost: false,
            coop: 0,
            buffer_size: 0,
            buffer: VecDeque::new(),
            overflow: false,
            keys: [false; 256],
            mouse_buttons: [false; 3],
            mouse_rel: [0; 3],
            mouse_abs: [0; 3],
            abs_axes: kind != Kind::Mouse,
            axes: [AxisProps::default(); 6],
            pad: PadState::default(),
            version: 0x0700,
            notify: None,
            changes: 0,
        }
    }

    fn index_of(&self, what: What) -> Option<usize> {
        self.objs.iter().position(|o| o.what == what)
    }

    /// Buffers a change of `what` (when acquired, buffered and in the format).
    fn record(&mut self, what: What, data: u32, time: u32, seq: u32) {
        if !self.acquired || self.buffer_size == 0 {
            return;
        }
        let Some(ofs) = self
            .index_of(what)
            .and_then(|i| self.format.as_ref().and_then(|f| f.offsets[i]))
        else {
            return;
        };
        if self.buffer.len() >= self.buffer_size as usize {
            self.overflow = true;
            return;
        }
        self.buffer.push_back(Event {
            ofs,
            data,
            time,
            seq,
        });
    }

    pub fn key(&mut self, dik: u8, down: bool, time: u32, seq: u32) {
        if self.keys[usize::from(dik)] == down {
            return;
        }
        self.keys[usize::from(dik)] = down;
        self.changes = self.changes.wrapping_add(1);
        self.record(What::Key(dik), if down { 0x80 } else { 0 }, time, seq);
    }

    pub fn mouse_motion(&mut self, d: [i32; 3], time: u32, seq: u32) {
        if !self.acquired {
            return;
        }
        for (a, &delta) in d.iter().enumerate() {
            if delta == 0 {
                continue;
            }
            self.changes = self.changes.wrapping_add(1);
            self.mouse_rel[a] = self.mouse_rel[a].wrapping_add(delta);
            self.mouse_abs[a] = self.mouse_abs[a].wrapping_add(delta);
            let data = if self.abs_axes {
                self.mouse_abs[a]
            } else {
                delta
            };
            self.record(What::MouseAxis(a), data as u32, time, seq);
        }
    }

    pub fn mouse_button(&mut self, b: usize, down: bool, time: u32, seq: u32) {
        if self.mouse_buttons[b] == down {
            return;
        }
        self.mouse_buttons[b] = down;
        self.changes = self.changes.wrapping_add(1);
        self.record(What::MouseButton(b), if down { 0x80 } else { 0 }, time, seq);
    }

    pub fn pad_changed(&mut self, new: PadState, time: u32, seq: u32) {
        let old = self.pad;
        self.pad = new;
        if old != new {
            self.changes = self.changes.wrapping_add(1);
        }
        if !new.connected {
            if self.acquired {
                self.acquired = false;
                self.lost = true;
            }
            return;
        }
        for a in 0..6 {
            if old.axes[a] != new.axes[a] {
                let v = self.axes[a].scale(new.axes[a]);
                self.record(What::PadAxis(a), v as u32, time, seq);
            }
        }
        if old.pov != new.pov {
            self.record(What::PadPov, pov_value(new.pov), time, seq);
        }
        for b in 0..crate::winmm::joy::NUM_BUTTONS as usize {
            let (was, is) = (old.buttons >> b & 1 != 0, new.buttons >> b & 1 != 0);
            if was != is {
                self.record(What::PadButton(b), if is { 0x80 } else { 0 }, time, seq);
            }
        }
    }

    /// GetDeviceState's bytes (relative mouse motion is consumed).
    pub fn state_bytes(&mut self) -> Vec<u8> {
        let Some(f) = &self.format else {
            return Vec::new();
        };
        let mut b = vec![0u8; f.data_size as usize];
        for (i, o) in self.objs.iter().enumerate() {
            let Some(ofs) = f.offsets[i] else { continue };
            let at = ofs as usize;
            let put4 = |b: &mut [u8], v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            match o.what {
                What::Key(k) => b[at] = if self.keys[usize::from(k)] { 0x80 } else { 0 },
                What::MouseButton(m) => b[at] = if self.mouse_buttons[m] { 0x80 } else { 0 },
                What::PadButton(p) => {
                    b[at] = if self.pad.buttons >> p & 1 != 0 {
                        0x80
                    } else {
                        0
                    }
                }
                What::MouseAxis(a) => {
                    let v = if self.abs_axes {
                        self.mouse_abs[a]
                    } else {
                        self.mouse_rel[a]
                    };
                    put4(&mut b, v as u32)
                }
                What::PadAxis(a) => put4(&mut b, self.axes[a].scale(self.pad.axes[a]) as u32),
                What::PadPov => put4(&mut b, pov_value(self.pad.pov)),
            }
        }
        self.mouse_rel = [0; 3];
        b
    }
}

/// Where an object's data lies in the device's native format (the layout of
/// c_dfDIKeyboard, c_dfDIMouse and c_dfDIJoystick), for EnumObjects.
pub fn native_offset(what: What) -> u32 {
    match what {
        What::Key(k) => u32::from(k),
        What::MouseAxis(a) => 4 * a as u32,
        What::MouseButton(b) => 12 + b as u32,
        // DIJOYSTATE: lX, lY, lZ, lRx, lRy, lRz.
        What::PadAxis(a) => [0, 4, 8, 20, 12, 16][a],
        What::PadPov => 32,
        What::PadButton(b) => 48 + b as u32,
    }
}

/// An object's name as EnumObjects reports it.
pub fn object_name(what: What) -> String {
    match what {
        What::Key(k) => format!("Key {k:#04x}"),
        What::MouseAxis(a) => ["X Axis", "Y Axis", "Wheel"][a].to_string(),
        What::MouseButton(b) => ["Button 0", "Button 1", "Button 2"][b].to_string(),
        What::PadAxis(a) => [
            "X Axis",
            "Y Axis",
            "Z Axis",
            "Z Rotation",
            "X Rotation",
            "Y Rotation",
        ][a]
            .to_string(),
        What::PadPov => "Hat Switch".to_string(),
        What::PadButton(b) => format!("Button {b}"),
    }
}

/// A hat reading as DirectInput reports it: hundredths of a degree, or -1 centred.
pub fn pov_value(pov: Option<u16>) -> u32 {
    pov.map_or(u32::MAX, u32::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(guid: Option<Guid>, ofs: u32, ty: u32) -> FormatEntry {
        FormatEntry { guid, ofs, ty }
    }

    const ANY: u32 = 0x00FF_FF00;
    const AXIS: u32 = 3;
    const BUTTON: u32 = 0xC;

    #[test]
    fn mouse_format_maps_axes_by_guid_and_buttons_in_order() {
        // c_dfDIMouse as the SDK documents it: X, Y, Z, then four buttons (Z and
        // the last two optional).
        let objs = objects(Kind::Mouse);
        let f = Format::build(
            &objs,
            16,
            &[
                entry(Some(GUID_X_AXIS), 0, AXIS | ANY),
                entry(Some(GUID_Y_AXIS), 4, AXIS | ANY),
                entry(Some(GUID_Z_AXIS), 8, AXIS | ANY | DIDFT_OPTIONAL),
                entry(None, 12, BUTTON | ANY),
                entry(None, 13, BUTTON | ANY),
                entry(None, 14, BUTTON | ANY | DIDFT_OPTIONAL),
                entry(None, 15, BUTTON | ANY | DIDFT_OPTIONAL),
            ],
        )
        .unwrap();
        assert_eq!(
            f.offsets,
            vec![Some(0), Some(4), Some(8), Some(12), Some(13), Some(14)]
        );
        // A fourth button is not optional here: nothing matches it.
        assert!(
            Format::build(
                &objs,
                16,
                &[
                    entry(None, 12, BUTTON | ANY),
                    entry(None, 13, BUTTON | ANY),
                    entry(None, 14, BUTTON | ANY),
                    entry(None, 15, BUTTON | ANY),
                ],
            )
            .is_err()
        );
    }

    #[test]
    fn keyboard_format_maps_instances_to_scan_codes() {
        let objs = objects(Kind::Keyboard);
        let entries: Vec<_> = (0..256u32)
            .map(|i| entry(Some(GUID_KEY), i, BUTTON | (i << 8) | DIDFT_OPTIONAL))
            .collect();
        let f = Format::build(&objs, 256, &entries).unwrap();
        assert_eq!(f.offsets[0x1E], Some(0x1E));
        let mut d = Device::new(Kind::Keyboard, false);
        d.format = Some(f);
        d.acquired = true;
        d.buffer_size = 4;
        d.key(0xC8, true, 5, 1);
        let s = d.state_bytes();
        assert_eq!((s[0xC8], s[0x48]), (0x80, 0));
        assert_eq!(
            d.buffer.pop_front(),
            Some(Event {
                ofs: 0xC8,
                data: 0x80,
                time: 5,
                seq: 1
            })
        );
    }

    #[test]
    fn bad_formats_are_refused() {
        let objs = objects(Kind::Mouse);
        assert!(Format::build(&objs, 14, &[]).is_err());
        assert!(Format::build(&objs, 16, &[entry(Some(GUID_X_AXIS), 14, AXIS | ANY)]).is_err());
        assert!(Format::build(&objs, 16, &[entry(Some(GUID_X_AXIS), 2, AXIS | ANY)]).is_err());
        // A mouse has no hat.
        assert!(Format::build(&objs, 16, &[entry(None, 0, DIDFT_POV | ANY)]).is_err());
    }

    #[test]
    fn axis_scaling_follows_range_deadzone_and_saturation() {
        let plain = AxisProps::default();
        assert_eq!(
            (plain.scale(0), plain.scale(32767), plain.scale(65535)),
            (0, 32767, 65535)
        );
        let r = AxisProps {
            min: -1000,
            max: 1000,
            ..plain
        };
        assert_eq!(
            (r.scale(0), r.scale(32767), r.scale(65535)),
            (-1000, 0, 1000)
        );
        // Dead zone of 20%: a fifth of the way from centre still reads centre, the
        // ends still reach the ends, halfway between reads a little under half.
        let dz = AxisProps {
            deadzone: 2000,
            ..r
        };
        assert_eq!(dz.scale(32767 + 6553), 0);
        assert_eq!((dz.scale(0), dz.scale(65535)), (-1000, 1000));
        assert_eq!(dz.scale(49151), 375);
        let sat = AxisProps {
            saturation: 5000,
            ..r
        };
        assert_eq!(sat.scale(49152), 1000);
    }

    #[test]
    fn buffer_overflow_drops_new_events_and_is_flagged() {
        let objs = objects(Kind::Mouse);
        let mut d = Device::new(Kind::Mouse, false);
        d.format = Some(
            Format::build(
                &objs,
                16,
                &[
                    entry(Some(GUID_X_AXIS), 0, AXIS | ANY),
                    entry(Some(GUID_Y_AXIS), 4, AXIS | ANY),
                ],
            )
            .unwrap(),
        );
        d.acquired = true;
        d.buffer_size = 2;
        d.mouse_motion([3, -2, 0], 10, 1);
        d.mouse_motion([1, 0, 0], 11, 2);
        assert!(d.overflow);
        assert_eq!(d.buffer.len(), 2);
        assert_eq!(d.buffer[1].data, (-2i32) as u32);
        let s = d.state_bytes();
        assert_eq!(i32::from_le_bytes([s[0], s[1], s[2], s[3]]), 4);
        // Relative motion is consumed by the read.
        assert_eq!(d.state_bytes()[0], 0);
    }
}
