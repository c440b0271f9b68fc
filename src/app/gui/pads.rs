//! Host game pads (gilrs) as the guest's pads, and the per-program pad-to-key
//! mapping for games that read only the keyboard.
//!
//! Each connected gamepad takes the first free slot (0 to `MAX_PADS - 1`) and keeps
//! it until it disconnects. Its whole state is read from gilrs after each of its
//! events and sent as `InputEvent::Pad` when it changed: buttons 0 to 9 are South
//! (A), East (B), West (X), North (Y), the left and right shoulders, Select, Start
//! and the two stick clicks; the left stick is X/Y, the right stick Z/R (Y growing
//! downwards as the joystick API has it), the analogue triggers U and V (0 released,
//! 65535 fully pressed); the d-pad is the hat.
//!
//! With the program's `pad_keys` mapping enabled, the same changes also press and
//! release keys: the d-pad and the left stick (beyond half way) the arrow keys, and
//! pad buttons the keys the mapping names.

use crate::settings::PadKeys;
use gilrs::{Axis, Button, GamepadId, Gilrs};
use std::collections::BTreeSet;
use winterp_hostwin32::display::{InputEvent, MAX_PADS, PadState};
use winterp_hostwin32::keys;

/// gilrs buttons in joystick button order.
const BUTTONS: [Button; 10] = [
    Button::South,
    Button::East,
    Button::West,
    Button::North,
    Button::LeftTrigger,
    Button::RightTrigger,
    Button::Select,
    Button::Start,
    Button::LeftThumb,
    Button::RightThumb,
];

/// The names pad buttons have in the mapping (and in input scripts), by button.
pub const BUTTON_NAMES: [&str; 10] = [
    "A", "B", "X", "Y", "LB", "RB", "SELECT", "START", "LS", "RS",
];

/// A stick position -1..=1 (up or right positive when `flip` is false) as a
/// joystick axis 0..=65535 growing right or down, centre 32767.
fn stick(v: f32, flip: bool) -> u16 {
    let v = if flip { -v } else { v };
    ((v.clamp(-1.0, 1.0) + 1.0) / 2.0 * 65535.0).floor() as u16
}

fn trigger(v: f32) -> u16 {
    ((v.clamp(0.0, 1.0) * 65535.0).round()) as u16
}

/// The hat angle for the d-pad buttons held (opposite directions cancel).
pub fn dpad_pov(up: bool, right: bool, down: bool, left: bool) -> Option<u16> {
    let dy = i32::from(down) - i32::from(up);
    let dx = i32::from(right) - i32::from(left);
    Some(match (dx, dy) {
        (0, 0) => return None,
        (0, -1) => 0,
        (1, -1) => 4500,
        (1, 0) => 9000,
        (1, 1) => 13500,
        (0, 1) => 18000,
        (-1, 1) => 22500,
        (-1, 0) => 27000,
        _ => 31500,
    })
}

/// A gamepad's state in joystick terms, from gilrs's button and axis readings.
pub fn pad_state(
    pressed: impl Fn(Button) -> bool,
    axis: impl Fn(Axis) -> f32,
    trig: impl Fn(Button) -> f32,
) -> PadState {
    let mut buttons = 0;
    for (k, b) in BUTTONS.iter().enumerate() {
        if pressed(*b) {
            buttons |= 1 << k;
        }
    }
    PadState {
        connected: true,
        buttons,
        axes: [
            stick(axis(Axis::LeftStickX), false),
            stick(axis(Axis::LeftStickY), true),
            stick(axis(Axis::RightStickX), false),
            stick(axis(Axis::RightStickY), true),
            trigger(trig(Button::LeftTrigger2)),
            trigger(trig(Button::RightTrigger2)),
        ],
        pov: dpad_pov(
            pressed(Button::DPadUp),
            pressed(Button::DPadRight),
            pressed(Button::DPadDown),
            pressed(Button::DPadLeft),
        ),
    }
}

fn vk(name: &str) -> Option<u8> {
    keys::vk_from_name(name)
}

/// The virtual keys the mapping holds down for a pad state.
pub fn mapped_keys(p: &PadState, map: &PadKeys) -> BTreeSet<u8> {
    let mut out = BTreeSet::new();
    if !map.enabled || !p.connected {
        return out;
    }
    if map.arrows {
        let (mut up, mut right, mut down, mut left) = (false, false, false, false);
        if let Some(a) = p.pov {
            let a = u32::from(a);
            up = a >= 31500 || a <= 4500;
            right = (4500..=13500).contains(&a);
            down = (13500..=22500).contains(&a);
            left = (22500..=31500).contains(&a);
        }
        // Beyond half way from centre.
        left |= p.axes[0] < 16384;
        right |= p.axes[0] > 49151;
        up |= p.axes[1] < 16384;
        down |= p.axes[1] > 49151;
        for (held, name) in [(up, "UP"), (right, "RIGHT"), (down, "DOWN"), (left, "LEFT")] {
            if held && let Some(v) = vk(name) {
                out.insert(v);
            }
        }
    }
    for (k, name) in BUTTON_NAMES.iter().enumerate() {
        if p.buttons >> k & 1 != 0
            && let Some(key) = map.buttons.get(*name)
            && let Some(v) = vk(key)
        {
            out.insert(v);
        }
    }
    out
}

/// Key events that take the keys held from `old` to `new`: releases first.
pub fn key_changes(old: &BTreeSet<u8>, new: &BTreeSet<u8>) -> Vec<InputEvent> {
    let key = |vk: u8, down: bool| {
        keys::scancode(vk).map(|(scancode, extended)| InputEvent::Key {
            vk,
            scancode,
            extended,
            down,
        })
    };
    old.difference(new)
        .filter_map(|&v| key(v, false))
        .chain(new.difference(old).filter_map(|&v| key(v, true)))
        .collect()
}

/// The player's pads: which gamepad sits in which slot and what the guest was told.
#[derive(Default)]
pub struct Pads {
    slots: [Option<GamepadId>; MAX_PADS],
    sent: [PadState; MAX_PADS],
    /// Keys the mapping holds down, per slot.
    held: [BTreeSet<u8>; MAX_PADS],
    /// The gamepads gilrs knew at startup have been given slots.
    started: bool,
}

impl Pads {
    /// A new guest process knows no pad yet: send every state again.
    pub fn new_session(&mut self) {
        self.sent = [PadState::default(); MAX_PADS];
        self.held = Default::default();
    }

    /// Events for every change since the last poll.
    pub fn poll(&mut self, g: &mut Gilrs, map: &PadKeys) -> Vec<InputEvent> {
        let mut touched: Vec<GamepadId> = Vec::new();
        if !self.started {
            self.started = true;
            touched.extend(g.gamepads().map(|(id, _)| id));
        }
        while let Some(ev) = g.next_event() {
            match ev.event {
                gilrs::EventType::Connected => {
                    log::info!("gamepad connected: {}", g.gamepad(ev.id).name());
                }
                gilrs::EventType::Disconnected => log::info!("gamepad {} disconnected", ev.id),
                _ => {}
            }
            if !touched.contains(&ev.id) {
                touched.push(ev.id);
            }
        }
        // Slots of pads that went away, then pads that came.
        for id in &touched {
            let connected = g.connected_gamepad(*id).is_some();
            let slot = self.slots.iter().position(|s| *s == Some(*id));
            match (slot, connected) {
                (Some(i), false) => self.slots[i] = None,
                (None, true) => {
                    if let Some(i) = self.slots.iter().position(Option::is_none) {
                        self.slots[i] = Some(*id);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for i in 0..MAX_PADS {
            let state = match self.slots[i].and_then(|id| g.connected_gamepad(id)) {
                Some(pad) => pad_state(
                    |b| pad.is_pressed(b),
                    |a| pad.value(a),
                    |b| pad.button_data(b).map_or(0.0, |d| d.value()),
                ),
                None => PadState::default(),
            };
            self.send(i, state, map, &mut out);
        }
        out
    }

    fn send(&mut self, i: usize, state: PadState, map: &PadKeys, out: &mut Vec<InputEvent>) {
        if state != self.sent[i] {
            self.sent[i] = state;
            out.push(InputEvent::Pad {
                index: i as u8,
                state,
            });
        }
        let keys = mapped_keys(&state, map);
        out.extend(key_changes(&self.held[i], &keys));
        self.held[i] = keys;
    }

    /// Releases every key the mapping holds (focus loss, pause).
    pub fn release_keys(&mut self) -> Vec<InputEvent> {
        let mut out = Vec::new();
        for h in &mut self.held {
            out.extend(key_changes(h, &BTreeSet::new()));
            h.clear();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> PadKeys {
        PadKeys {
            enabled: true,
            ..PadKeys::default()
        }
    }

    #[test]
    fn gilrs_readings_become_joystick_terms() {
        let p = pad_state(
            |b| {
                matches!(
                    b,
                    Button::South | Button::Start | Button::DPadUp | Button::DPadLeft
                )
            },
            |a| match a {
                Axis::LeftStickX => -1.0,
                Axis::LeftStickY => 1.0,
                Axis::RightStickX => 0.0,
                _ => -1.0,
            },
            |b| if b == Button::RightTrigger2 { 1.0 } else { 0.0 },
        );
        assert_eq!(p.buttons, 1 | 1 << 7);
        // Stick up is Y 0 (Y grows downwards); right stick down is R 65535.
        assert_eq!(p.axes, [0, 0, 32767, 65535, 0, 65535]);
        assert_eq!(p.pov, Some(31500));
        assert_eq!(dpad_pov(false, false, false, false), None);
        assert_eq!(dpad_pov(true, false, true, false), None);
        assert_eq!(dpad_pov(false, true, true, false), Some(13500));
    }

    #[test]
    fn mapping_turns_pads_into_keys() {
        let centred = PadState {
            connected: true,
            buttons: 0,
            axes: PadState::CENTRED,
            pov: None,
        };
        assert!(mapped_keys(&centred, &map()).is_empty());
        let p = PadState {
            buttons: 1 | 1 << 7,
            pov: Some(9000),
            axes: [32767, 0, 32767, 32767, 0, 0],
            ..centred
        };
        let want: BTreeSet<u8> = [0x26, 0x27, 0x20, 0x0D].into_iter().collect();
        assert_eq!(mapped_keys(&p, &map()), want);
        // Disabled: no keys.
        assert!(mapped_keys(&p, &PadKeys::default()).is_empty());
        let ev = key_changes(&want, &[0x20].into_iter().collect());
        assert_eq!(ev.len(), 3);
        assert!(
            ev.iter()
                .all(|e| matches!(e, InputEvent::Key { down: false, .. }))
        );
        let ev = key_changes(&BTreeSet::new(), &[0x25].into_iter().collect());
        assert_eq!(
            ev,
            vec![InputEvent::Key {
                vk: 0x25,
                scancode: 0x4b,
                extended: true,
                down: true
            }]
        );
    }
}
