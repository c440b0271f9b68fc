//! Scripted input for headless runs (`--input SCRIPT`): host events injected at given
//! refresh ticks. The format is in the README ("Headless frames").

use anyhow::{Context, Result, bail};
use winterp_hostwin32::display::{InputEvent, MouseButton};
use winterp_hostwin32::keys;

/// Events by the refresh tick they are injected at, in file order within a tick.
#[derive(Debug, Default, PartialEq)]
pub struct InputScript {
    events: Vec<(u64, InputEvent)>,
}

impl InputScript {
    pub fn parse(text: &str) -> Result<InputScript> {
        let mut events = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            parse_line(line, &mut events).with_context(|| format!("line {}: {raw}", i + 1))?;
        }
        // Stable: events of one tick keep their order.
        events.sort_by_key(|e| e.0);
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

fn parse_line(line: &str, out: &mut Vec<(u64, InputEvent)>) -> Result<()> {
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
        other => bail!("unknown event {other} (key, type, move, down, up, click, wheel, close)"),
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

    #[test]
    fn errors_name_the_line() {
        let e = InputScript::parse("1 key down A\n2 jump\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(InputScript::parse("x key down A").is_err());
        assert!(InputScript::parse("1 key down NOSUCHKEY").is_err());
        assert!(InputScript::parse("1 click left 1").is_err());
    }
}
