//! Scripted input for headless runs (`--input SCRIPT`): host events injected at given
//! refresh ticks. The format is in the README ("Headless frames").

use anyhow::{Context, Result, bail};
use winterp_hostwin32::display::{InputEvent, MAX_PADS, MouseButton, PadState};
use winterp_hostwin32::keys;

/// Events by the refresh tick they are injected at, in file order within a tick.
#[derive(Debug, Default, PartialEq)]
pub struct InputScript {
    events: Vec<(u64, InputEvent)>,
}

impl InputScript {
    pub fn parse(text: &str) -> Result<InputScript> {
        let mut items = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            parse_line(line, &mut items).with_context(|| format!("line {}: {raw}", i + 1))?;
        }
        // Stable: events of one tick keep their order.
        items.sort_by_key(|e| e.0);
        // A pad event carries the pad's whole state, so pad lines are applied in
        // tick order, each to the state the previous ones left.
        let mut pads = [PadState::default(); MAX_PADS];
        let events = items
            .into_iter()
            .map(|(frame, item)| match item {
                Item::Event(ev) => (frame, ev),
                Item::Pad(index, change) => {
                    let p = &mut pads[usize::from(index)];
                    change.apply(p);
                    (frame, InputEvent::Pad { index, state: *p })
                }
            })
            .collect();
        Ok(InputScript { events })
    }

    pub fn load(path: &std::path::Path) -> Result<InputScript> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read input script {}", path.display()))?;
        InputScript::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// The events for tick `frame`.
    pub fn at(&self, frame: u64) -> impl Iterator<Item = &InputEvent> {
        self.events
            .iter()
            .filter(move |e| e.0 == frame)
            .map(|e| &e.1)
    }
}

/// One parsed line's worth of input, before pad lines become whole pad states.
enum Item {
    Event(InputEvent),
    Pad(u8, PadChange),
}

/// What a `pad` line changes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PadChange {
    Connect,
    Disconnect,
    Button(u32, bool),
    Axis(usize, u16),
    Pov(Option<u16>),
}

impl PadChange {
    fn apply(self, p: &mut PadState) {
        // Any change but `disconnect` to an empty slot plugs a pad in first (axes
        // centred, nothing pressed).
        if !p.connected && self != PadChange::Disconnect {
            *p = PadState {
                connected: true,
                buttons: 0,
                axes: PadState::CENTRED,
                pov: None,
            };
        }
        match self {
            PadChange::Connect => {}
            PadChange::Disconnect => *p = PadState::default(),
            PadChange::Button(b, true) => p.buttons |= 1 << b,
            PadChange::Button(b, false) => p.buttons &= !(1 << b),
            PadChange::Axis(a, v) => p.axes[a] = v,
            PadChange::Pov(v) => p.pov = v,
        }
    }
}

/// Pad button names (joystick button numbers from 0; `PadState::buttons` bits).
const PAD_BUTTONS: &[(&str, u32)] = &[
    ("A", 0),
    ("B", 1),
    ("X", 2),
    ("Y", 3),
    ("LB", 4),
    ("RB", 5),
    ("SELECT", 6),
    ("BACK", 6),
    ("START", 7),
    ("LS", 8),
    ("RS", 9),
];

/// Axis names in `PadState::axes` order.
const PAD_AXES: &[&str] = &["x", "y", "z", "r", "u", "v"];

fn parse_pad(rest: &[&str]) -> Result<(u8, PadChange)> {
    let index: u8 = rest
        .first()
        .context("pad: missing pad number")?
        .parse()
        .context("pad: the pad number must be a number")?;
    if usize::from(index) >= MAX_PADS {
        bail!("pad {index}: pads are numbered 0 to {}", MAX_PADS - 1);
    }
    let what = rest.get(1).context("pad: missing action")?;
    let args = &rest[2..];
    let want = |n: usize| -> Result<()> {
        if args.len() != n {
            bail!("pad {what} takes {n} arguments, got {}", args.len());
        }
        Ok(())
    };
    let change = match *what {
        "connect" => {
            want(0)?;
            PadChange::Connect
        }
        "disconnect" => {
            want(0)?;
            PadChange::Disconnect
        }
        "down" | "up" => {
            want(1)?;
            let name = args[0].to_ascii_uppercase();
            let b = match PAD_BUTTONS.iter().find(|(n, _)| *n == name) {
                Some(&(_, b)) => b,
                None => match name.parse::<u32>() {
                    Ok(b) if b < 32 => b,
                    _ => bail!(
                        "unknown pad button {} (A, B, X, Y, LB, RB, SELECT/BACK, START, LS, RS or 0..31)",
                        args[0]
                    ),
                },
            };
            PadChange::Button(b, *what == "down")
        }
        "axis" => {
            want(2)?;
            let name = args[0].to_ascii_lowercase();
            let a = PAD_AXES
                .iter()
                .position(|n| *n == name)
                .with_context(|| format!("unknown pad axis {} (x, y, z, r, u, v)", args[0]))?;
            let v: u16 = args[1]
                .parse()
                .with_context(|| format!("pad axis value {} must be 0..65535", args[1]))?;
            PadChange::Axis(a, v)
        }
        "pov" => {
            want(1)?;
            if args[0] == "center" || args[0] == "centre" {
                PadChange::Pov(None)
            } else {
                let v: u16 = args[0]
                    .parse()
                    .ok()
                    .filter(|v| *v < 36000)
                    .with_context(|| {
                        format!(
                            "pad pov {} must be 0..35999 (hundredths of a degree) or center",
                            args[0]
                        )
                    })?;
                PadChange::Pov(Some(v))
            }
        }
        other => bail!("unknown pad action {other} (connect, disconnect, down, up, axis, pov)"),
    };
    Ok((index, change))
}

fn key(vk: u8, down: bool) -> Result<InputEvent> {
    let (scancode, extended) =
        keys::scancode(vk).with_context(|| format!("no scan code for virtual key {vk:#04x}"))?;
    Ok(InputEvent::Key {
        vk,
        scancode,
        extended,
        down,
    })
}

fn parse_vk(s: &str) -> Result<u8> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u8::from_str_radix(hex, 16).with_context(|| format!("bad key code {s}"));
    }
    keys::vk_from_name(s).with_context(|| format!("unknown key name {s}"))
}

fn parse_button(s: &str) -> Result<MouseButton> {
    Ok(match s {
        "left" => MouseButton::Left,
        "right" => MouseButton::Right,
        "middle" => MouseButton::Middle,
        _ => bail!("unknown mouse button {s} (left, right or middle)"),
    })
}

fn parse_line(line: &str, items: &mut Vec<(u64, Item)>) -> Result<()> {
    let mut out = Vec::new();
    parse_event(line, items, &mut out)?;
    items.extend(out.into_iter().map(|(f, ev)| (f, Item::Event(ev))));
    Ok(())
}

fn parse_event(
    line: &str,
    items: &mut Vec<(u64, Item)>,
    out: &mut Vec<(u64, InputEvent)>,
) -> Result<()> {
    let mut words = line.split_whitespace();
    let frame: u64 = words
        .next()
        .context("missing frame number")?
        .parse()
        .context("the first word must be a frame number")?;
    let verb = words.next().context("missing event")?;
    let rest: Vec<&str> = words.collect();
    let num = |i: usize| -> Result<i32> {
        rest.get(i)
            .with_context(|| format!("{verb}: missing argument {}", i + 1))?
            .parse()
            .with_context(|| format!("{verb}: argument {} must be a number", i + 1))
    };
    let nargs = |n: usize| -> Result<()> {
        if rest.len() != n {
            bail!("{verb} takes {n} arguments, got {}", rest.len());
        }
        Ok(())
    };
    match verb {
        "key" => {
            nargs(2)?;
            let down = match rest[0] {
                "down" => true,
                "up" => false,
                other => bail!("key {other}: expected down or up"),
            };
            out.push((frame, key(parse_vk(rest[1])?, down)?));
        }
        "type" => {
            // Everything after the verb, with single spaces, is the text.
            let text = line
                .splitn(3, char::is_whitespace)
                .nth(2)
                .context("type: missing text")?;
            let shift = keys::vk_from_name("SHIFT").context("no SHIFT key")?;
            for c in text.chars() {
                let (vk, shifted) =
                    keys::key_for_char(c).with_context(|| format!("cannot type {c:?}"))?;
                if shifted {
                    out.push((frame, key(shift, true)?));
                }
                out.push((frame, key(vk, true)?));
                out.push((frame, key(vk, false)?));
                if shifted {
                    out.push((frame, key(shift, false)?));
                }
            }
        }
        "move" => {
            nargs(2)?;
            out.push((
                frame,
                InputEvent::MouseMove {
                    x: num(0)?,
                    y: num(1)?,
                },
            ));
        }
        "down" | "up" | "click" => {
            nargs(3)?;
            let button = parse_button(rest[0])?;
            let (x, y) = (num(1)?, num(2)?);
            out.push((frame, InputEvent::MouseMove { x, y }));
            let downs: &[bool] = match verb {
                "down" => &[true],
                "up" => &[false],
                _ => &[true, false],
            };
            for &down in downs {
                out.push((frame, InputEvent::MouseButton { button, down, x, y }));
            }
        }
        "wheel" => {
            nargs(3)?;
            out.push((
                frame,
                InputEvent::Wheel {
                    delta: num(0)?,
                    x: num(1)?,
                    y: num(2)?,
                },
            ));
        }
        "close" => {
            nargs(0)?;
            out.push((frame, InputEvent::Close));
        }
        "pad" => {
            let (index, change) = parse_pad(&rest)?;
            items.push((frame, Item::Pad(index, change)));
        }
        other => {
            bail!("unknown event {other} (key, type, move, down, up, click, wheel, close, pad)")
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_event_kind() {
        let s = InputScript::parse(
            "# a comment\n\
             5 key down RETURN\n\
             5 key up 0x0d   # trailing comment\n\
             2 click left 10 20\n\
             7 type Hi\n\
             8 wheel -120 1 2\n\
             9 close\n",
        )
        .unwrap();
        let at2: Vec<_> = s.at(2).cloned().collect();
        assert_eq!(
            at2,
            vec![
                InputEvent::MouseMove { x: 10, y: 20 },
                InputEvent::MouseButton {
                    button: MouseButton::Left,
                    down: true,
                    x: 10,
                    y: 20
                },
                InputEvent::MouseButton {
                    button: MouseButton::Left,
                    down: false,
                    x: 10,
                    y: 20
                },
            ]
        );
        let at5: Vec<_> = s.at(5).cloned().collect();
        assert_eq!(
            at5[0],
            InputEvent::Key {
                vk: 0x0d,
                scancode: 0x1c,
                extended: false,
                down: true
            }
        );
        assert_eq!(at5.len(), 2);
        // "Hi": Shift down, H down, H up, Shift up, I down, I up.
        let at7: Vec<_> = s.at(7).cloned().collect();
        assert_eq!(at7.len(), 6);
        assert!(matches!(
            at7[0],
            InputEvent::Key {
                vk: 0x10,
                down: true,
                ..
            }
        ));
        assert!(matches!(
            at7[4],
            InputEvent::Key {
                vk: 0x49,
                down: true,
                ..
            }
        ));
        assert_eq!(s.at(9).count(), 1);
    }

    fn pad_at(s: &InputScript, frame: u64) -> Vec<(u8, PadState)> {
        s.at(frame)
            .map(|e| match e {
                InputEvent::Pad { index, state } => (*index, *state),
                other => panic!("not a pad event: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn pad_lines_accumulate_whole_pad_states_in_tick_order() {
        // Out of order on purpose: states follow the ticks, not the file.
        let s = InputScript::parse(
            "3 pad 0 axis x 0\n\
             1 pad 0 connect\n\
             2 pad 0 down A\n\
             2 pad 0 down start   # names are case-insensitive\n\
             4 pad 0 pov 9000\n\
             5 pad 0 up a\n\
             5 pad 0 pov center\n\
             6 pad 1 down 12\n\
             7 pad 0 disconnect\n\
             7 key down A\n",
        )
        .unwrap();
        let centred = PadState {
            connected: true,
            buttons: 0,
            axes: PadState::CENTRED,
            pov: None,
        };
        assert_eq!(pad_at(&s, 1), vec![(0, centred)]);
        let a_start = PadState {
            buttons: 0b1000_0001,
            ..centred
        };
        assert_eq!(
            pad_at(&s, 2),
            vec![
                (
                    0,
                    PadState {
                        buttons: 1,
                        ..centred
                    }
                ),
                (0, a_start)
            ]
        );
        let left = PadState {
            axes: [0, 32767, 32767, 32767, 32767, 32767],
            ..a_start
        };
        assert_eq!(pad_at(&s, 3), vec![(0, left)]);
        let hat = PadState {
            pov: Some(9000),
            ..left
        };
        assert_eq!(pad_at(&s, 4), vec![(0, hat)]);
        let released = PadState {
            buttons: 0b1000_0000,
            ..left
        };
        assert_eq!(
            pad_at(&s, 5),
            vec![
                (
                    0,
                    PadState {
                        buttons: 0b1000_0000,
                        ..hat
                    }
                ),
                (0, released)
            ]
        );
        // A change to an empty slot plugs a pad in.
        assert_eq!(
            pad_at(&s, 6),
            vec![(
                1,
                PadState {
                    buttons: 1 << 12,
                    ..centred
                }
            )]
        );
        let at7: Vec<_> = s.at(7).cloned().collect();
        assert_eq!(
            at7[0],
            InputEvent::Pad {
                index: 0,
                state: PadState::default()
            }
        );
        assert!(matches!(at7[1], InputEvent::Key { vk: 0x41, .. }));
    }

    #[test]
    fn bad_pad_lines_are_refused() {
        for bad in [
            "1 pad 4 connect",
            "1 pad x connect",
            "1 pad 0",
            "1 pad 0 jump",
            "1 pad 0 down",
            "1 pad 0 down Z",
            "1 pad 0 down 32",
            "1 pad 0 axis w 5",
            "1 pad 0 axis x 65536",
            "1 pad 0 axis x -1",
            "1 pad 0 pov 36000",
            "1 pad 0 connect now",
        ] {
            assert!(InputScript::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = InputScript::parse("1 key down A\n2 jump\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(InputScript::parse("x key down A").is_err());
        assert!(InputScript::parse("1 key down NOSUCHKEY").is_err());
        assert!(InputScript::parse("1 click left 1").is_err());
    }
}
