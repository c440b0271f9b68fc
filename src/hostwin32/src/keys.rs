//! Windows virtual-key codes, their names and their set-1 scan codes for the US
//! keyboard layout that winterp emulates (MapVirtualKey, input scripts, the player).

/// (name as in the `VK_` constants without the prefix, virtual-key code, set-1 make
/// code, E0-extended).
const KEYS: &[(&str, u8, u16, bool)] = &[
    ("BACK", 0x08, 0x0e, false),
    ("TAB", 0x09, 0x0f, false),
    ("RETURN", 0x0d, 0x1c, false),
    ("SHIFT", 0x10, 0x2a, false),
    ("CONTROL", 0x11, 0x1d, false),
    ("MENU", 0x12, 0x38, false),
    ("PAUSE", 0x13, 0x45, false),
    ("CAPITAL", 0x14, 0x3a, false),
    ("ESCAPE", 0x1b, 0x01, false),
    ("SPACE", 0x20, 0x39, false),
    ("PRIOR", 0x21, 0x49, true),
    ("NEXT", 0x22, 0x51, true),
    ("END", 0x23, 0x4f, true),
    ("HOME", 0x24, 0x47, true),
    ("LEFT", 0x25, 0x4b, true),
    ("UP", 0x26, 0x48, true),
    ("RIGHT", 0x27, 0x4d, true),
    ("DOWN", 0x28, 0x50, true),
    ("SNAPSHOT", 0x2c, 0x37, true),
    ("INSERT", 0x2d, 0x52, true),
    ("DELETE", 0x2e, 0x53, true),
    ("0", 0x30, 0x0b, false),
    ("1", 0x31, 0x02, false),
    ("2", 0x32, 0x03, false),
    ("3", 0x33, 0x04, false),
    ("4", 0x34, 0x05, false),
    ("5", 0x35, 0x06, false),
    ("6", 0x36, 0x07, false),
    ("7", 0x37, 0x08, false),
    ("8", 0x38, 0x09, false),
    ("9", 0x39, 0x0a, false),
    ("A", 0x41, 0x1e, false),
    ("B", 0x42, 0x30, false),
    ("C", 0x43, 0x2e, false),
    ("D", 0x44, 0x20, false),
    ("E", 0x45, 0x12, false),
    ("F", 0x46, 0x21, false),
    ("G", 0x47, 0x22, false),
    ("H", 0x48, 0x23, false),
    ("I", 0x49, 0x17, false),
    ("J", 0x4a, 0x24, false),
    ("K", 0x4b, 0x25, false),
    ("L", 0x4c, 0x26, false),
    ("M", 0x4d, 0x32, false),
    ("N", 0x4e, 0x31, false),
    ("O", 0x4f, 0x18, false),
    ("P", 0x50, 0x19, false),
    ("Q", 0x51, 0x10, false),
    ("R", 0x52, 0x13, false),
    ("S", 0x53, 0x1f, false),
    ("T", 0x54, 0x14, false),
    ("U", 0x55, 0x16, false),
    ("V", 0x56, 0x2f, false),
    ("W", 0x57, 0x11, false),
    ("X", 0x58, 0x2d, false),
    ("Y", 0x59, 0x15, false),
    ("Z", 0x5a, 0x2c, false),
    ("LWIN", 0x5b, 0x5b, true),
    ("RWIN", 0x5c, 0x5c, true),
    ("APPS", 0x5d, 0x5d, true),
    ("NUMPAD0", 0x60, 0x52, false),
    ("NUMPAD1", 0x61, 0x4f, false),
    ("NUMPAD2", 0x62, 0x50, false),
    ("NUMPAD3", 0x63, 0x51, false),
    ("NUMPAD4", 0x64, 0x4b, false),
    ("NUMPAD5", 0x65, 0x4c, false),
    ("NUMPAD6", 0x66, 0x4d, false),
    ("NUMPAD7", 0x67, 0x47, false),
    ("NUMPAD8", 0x68, 0x48, false),
    ("NUMPAD9", 0x69, 0x49, false),
    ("MULTIPLY", 0x6a, 0x37, false),
    ("ADD", 0x6b, 0x4e, false),
    ("SUBTRACT", 0x6d, 0x4a, false),
    ("DECIMAL", 0x6e, 0x53, false),
    ("DIVIDE", 0x6f, 0x35, true),
    ("F1", 0x70, 0x3b, false),
    ("F2", 0x71, 0x3c, false),
    ("F3", 0x72, 0x3d, false),
    ("F4", 0x73, 0x3e, false),
    ("F5", 0x74, 0x3f, false),
    ("F6", 0x75, 0x40, false),
    ("F7", 0x76, 0x41, false),
    ("F8", 0x77, 0x42, false),
    ("F9", 0x78, 0x43, false),
    ("F10", 0x79, 0x44, false),
    ("F11", 0x7a, 0x57, false),
    ("F12", 0x7b, 0x58, false),
    ("NUMLOCK", 0x90, 0x45, false),
    ("SCROLL", 0x91, 0x46, false),
    ("LSHIFT", 0xa0, 0x2a, false),
    ("RSHIFT", 0xa1, 0x36, false),
    ("LCONTROL", 0xa2, 0x1d, false),
    ("RCONTROL", 0xa3, 0x1d, true),
    ("LMENU", 0xa4, 0x38, false),
    ("RMENU", 0xa5, 0x38, true),
    ("OEM_1", 0xba, 0x27, false),
    ("OEM_PLUS", 0xbb, 0x0d, false),
    ("OEM_COMMA", 0xbc, 0x33, false),
    ("OEM_MINUS", 0xbd, 0x0c, false),
    ("OEM_PERIOD", 0xbe, 0x34, false),
    ("OEM_2", 0xbf, 0x35, false),
    ("OEM_3", 0xc0, 0x29, false),
    ("OEM_4", 0xdb, 0x1a, false),
    ("OEM_5", 0xdc, 0x2b, false),
    ("OEM_6", 0xdd, 0x1b, false),
    ("OEM_7", 0xde, 0x28, false),
];

/// The virtual-key code for a `VK_` name without its prefix (`RETURN`, `F1`, `A`),
/// case-insensitive; `ENTER`, `ESC` and `CTRL`/`ALT` are accepted as aliases.
pub fn vk_from_name(name: &str) -> Option<u8> {
    let n = name.to_ascii_uppercase();
    let n = match n.as_str() {
        "ENTER" => "RETURN",
        "ESC" => "ESCAPE",
        "CTRL" => "CONTROL",
        "ALT" => "MENU",
        "BACKSPACE" => "BACK",
        other => other,
    };
    KEYS.iter().find(|k| k.0 == n).map(|k| k.1)
}

/// The `VK_` name of a virtual-key code.
pub fn vk_name(vk: u8) -> Option<&'static str> {
    KEYS.iter().find(|k| k.1 == vk).map(|k| k.0)
}

/// The set-1 make code and E0 flag of a virtual-key code (MapVirtualKey
/// MAPVK_VK_TO_VSC for the generic SHIFT/CONTROL/MENU gives the left key's code).
pub fn scancode(vk: u8) -> Option<(u16, bool)> {
    KEYS.iter().find(|k| k.1 == vk).map(|k| (k.2, k.3))
}

/// The virtual-key code of a set-1 make code (MAPVK_VSC_TO_VK: the generic codes for
/// Shift, Ctrl, Alt; numpad codes without E0 map to the numpad keys).
pub fn vk_from_scancode(scan: u16, extended: bool) -> Option<u8> {
    let generic = |vk: u8| matches!(vk, 0xa0..=0xa5);
    KEYS.iter()
        .filter(|k| k.2 == scan && (k.3 == extended || matches!(k.1, 0x10..=0x12)))
        .map(|k| k.1)
        .find(|&vk| !generic(vk))
}

/// The key (virtual-key code, needs Shift) that types `c` on a US layout.
pub fn key_for_char(c: char) -> Option<(u8, bool)> {
    const SHIFTED_DIGITS: &str = ")!@#$%^&*(";
    Some(match c {
        'a'..='z' => (c.to_ascii_uppercase() as u8, false),
        'A'..='Z' => (c as u8, true),
        '0'..='9' => (c as u8, false),
        ' ' => (0x20, false),
        '\n' | '\r' => (0x0d, false),
        '\t' => (0x09, false),
        _ => {
            if let Some(i) = SHIFTED_DIGITS.find(c) {
                return Some((b'0' + i as u8, true));
            }
            const OEM: &[(char, char, u8)] = &[
                (';', ':', 0xba),
                ('=', '+', 0xbb),
                (',', '<', 0xbc),
                ('-', '_', 0xbd),
                ('.', '>', 0xbe),
                ('/', '?', 0xbf),
                ('`', '~', 0xc0),
                ('[', '{', 0xdb),
                ('\\', '|', 0xdc),
                (']', '}', 0xdd),
                ('\'', '"', 0xde),
            ];
            let &(plain, _, vk) = OEM.iter().find(|o| o.0 == c || o.1 == c)?;
            (vk, c != plain)
        }
    })
}

/// The character a key types on a US layout (TranslateMessage/ToAscii), or `None`
/// for keys that type nothing. Caps Lock affects letters only.
pub fn char_for_key(vk: u8, shift: bool, caps: bool) -> Option<char> {
    Some(match vk {
        0x41..=0x5a => {
            let upper = shift != caps;
            let c = vk as char;
            if upper { c } else { c.to_ascii_lowercase() }
        }
        0x30..=0x39 => {
            if shift {
                ")!@#$%^&*(".as_bytes()[(vk - 0x30) as usize] as char
            } else {
                vk as char
            }
        }
        0x20 => ' ',
        0x0d => '\r',
        0x08 => '\x08',
        0x09 => '\t',
        0x1b => '\x1b',
        0x60..=0x69 => (b'0' + vk - 0x60) as char,
        0x6a => '*',
        0x6b => '+',
        0x6d => '-',
        0x6e => '.',
        0x6f => '/',
        _ => {
            let (plain, shifted) = match vk {
                0xba => (';', ':'),
                0xbb => ('=', '+'),
                0xbc => (',', '<'),
                0xbd => ('-', '_'),
                0xbe => ('.', '>'),
                0xbf => ('/', '?'),
                0xc0 => ('`', '~'),
                0xdb => ('[', '{'),
                0xdc => ('\\', '|'),
                0xdd => (']', '}'),
                0xde => ('\'', '"'),
                _ => return None,
            };
            if shift { shifted } else { plain }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_codes() {
        // Values from the Windows virtual-key code table and the set-1 scan code table.
        assert_eq!(vk_from_name("a"), Some(0x41));
        assert_eq!(scancode(0x41), Some((0x1e, false)));
        assert_eq!(vk_from_name("Enter"), Some(0x0d));
        assert_eq!(scancode(0x0d), Some((0x1c, false)));
        assert_eq!(scancode(0xa3), Some((0x1d, true)));
        assert_eq!(scancode(0x26), Some((0x48, true)));
        assert_eq!(scancode(0x70), Some((0x3b, false)));
        assert_eq!(vk_from_scancode(0x1e, false), Some(0x41));
        assert_eq!(vk_from_scancode(0x2a, false), Some(0x10));
        assert_eq!(vk_from_scancode(0x48, true), Some(0x26));
        assert_eq!(vk_from_scancode(0x48, false), Some(0x68));
        assert_eq!(vk_from_name("nonsense"), None);
    }

    #[test]
    fn characters_round_trip_through_keys() {
        for c in "abcXYZ 019!@#;:'\",<.>/?[]{}\\|`~-_=+".chars() {
            let (vk, shift) = key_for_char(c).unwrap();
            assert_eq!(char_for_key(vk, shift, false), Some(c), "{c:?}");
        }
        assert_eq!(char_for_key(0x41, false, true), Some('A'));
        assert_eq!(char_for_key(0x41, true, true), Some('a'));
        assert_eq!(char_for_key(0x70, false, false), None);
    }
}
