//! Physical host keys to what a Windows program sees in WM_KEYDOWN: the virtual-key
//! code (wParam) and the set-1 make code with its E0 "extended" flag (lParam bits
//! 16-24).
//!
//! Keys are mapped by position (winit's physical `KeyCode`, named after the US
//! layout), as a PC keyboard's scan codes are; the virtual-key codes are the US
//! layout's. Numpad digits always report VK_NUMPAD0-9: the host does not tell us the
//! guest's Num Lock state.

use winit::keyboard::KeyCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinKey {
    pub vk: u8,
    pub scancode: u16,
    pub extended: bool,
}

const fn k(vk: u8, scancode: u16) -> Option<WinKey> {
    Some(WinKey {
        vk,
        scancode,
        extended: false,
    })
}

/// E0-prefixed keys (the second copies of Ctrl/Alt/Enter and the navigation block).
const fn e(vk: u8, scancode: u16) -> Option<WinKey> {
    Some(WinKey {
        vk,
        scancode,
        extended: true,
    })
}

// Virtual-key codes (winuser.h) that are not just the ASCII letter or digit.
const VK_BACK: u8 = 0x08;
const VK_TAB: u8 = 0x09;
const VK_RETURN: u8 = 0x0D;
const VK_SHIFT: u8 = 0x10;
const VK_CONTROL: u8 = 0x11;
const VK_MENU: u8 = 0x12;
const VK_PAUSE: u8 = 0x13;
const VK_CAPITAL: u8 = 0x14;
const VK_ESCAPE: u8 = 0x1B;
const VK_SPACE: u8 = 0x20;
const VK_PRIOR: u8 = 0x21;
const VK_NEXT: u8 = 0x22;
const VK_END: u8 = 0x23;
const VK_HOME: u8 = 0x24;
const VK_LEFT: u8 = 0x25;
const VK_UP: u8 = 0x26;
const VK_RIGHT: u8 = 0x27;
const VK_DOWN: u8 = 0x28;
const VK_SNAPSHOT: u8 = 0x2C;
const VK_INSERT: u8 = 0x2D;
const VK_DELETE: u8 = 0x2E;
const VK_LWIN: u8 = 0x5B;
const VK_RWIN: u8 = 0x5C;
const VK_APPS: u8 = 0x5D;
const VK_NUMPAD0: u8 = 0x60;
const VK_MULTIPLY: u8 = 0x6A;
const VK_ADD: u8 = 0x6B;
const VK_SUBTRACT: u8 = 0x6D;
const VK_DECIMAL: u8 = 0x6E;
const VK_DIVIDE: u8 = 0x6F;
const VK_F1: u8 = 0x70;
const VK_NUMLOCK: u8 = 0x90;
const VK_SCROLL: u8 = 0x91;
const VK_OEM_1: u8 = 0xBA; // ;:
const VK_OEM_PLUS: u8 = 0xBB; // =+
const VK_OEM_COMMA: u8 = 0xBC;
const VK_OEM_MINUS: u8 = 0xBD;
const VK_OEM_PERIOD: u8 = 0xBE;
const VK_OEM_2: u8 = 0xBF; // /?
const VK_OEM_3: u8 = 0xC0; // `~
const VK_OEM_4: u8 = 0xDB; // [{
const VK_OEM_5: u8 = 0xDC; // \|
const VK_OEM_6: u8 = 0xDD; // ]}
const VK_OEM_7: u8 = 0xDE; // '"
const VK_OEM_102: u8 = 0xE2; // the extra key left of Z on ISO keyboards

/// The Windows key for a physical host key, `None` for keys a Win9x-era PC keyboard
/// does not have (media keys, F13 and up, ...).
pub fn win_key(code: KeyCode) -> Option<WinKey> {
    use KeyCode::*;
    match code {
        Escape => k(VK_ESCAPE, 0x01),
        Digit1 => k(b'1', 0x02),
        Digit2 => k(b'2', 0x03),
        Digit3 => k(b'3', 0x04),
        Digit4 => k(b'4', 0x05),
        Digit5 => k(b'5', 0x06),
        Digit6 => k(b'6', 0x07),
        Digit7 => k(b'7', 0x08),
        Digit8 => k(b'8', 0x09),
        Digit9 => k(b'9', 0x0A),
        Digit0 => k(b'0', 0x0B),
        Minus => k(VK_OEM_MINUS, 0x0C),
        Equal => k(VK_OEM_PLUS, 0x0D),
        Backspace => k(VK_BACK, 0x0E),
        Tab => k(VK_TAB, 0x0F),
        KeyQ => k(b'Q', 0x10),
        KeyW => k(b'W', 0x11),
        KeyE => k(b'E', 0x12),
        KeyR => k(b'R', 0x13),
        KeyT => k(b'T', 0x14),
        KeyY => k(b'Y', 0x15),
        KeyU => k(b'U', 0x16),
        KeyI => k(b'I', 0x17),
        KeyO => k(b'O', 0x18),
        KeyP => k(b'P', 0x19),
        BracketLeft => k(VK_OEM_4, 0x1A),
        BracketRight => k(VK_OEM_6, 0x1B),
        Enter => k(VK_RETURN, 0x1C),
        ControlLeft => k(VK_CONTROL, 0x1D),
        KeyA => k(b'A', 0x1E),
        KeyS => k(b'S', 0x1F),
        KeyD => k(b'D', 0x20),
        KeyF => k(b'F', 0x21),
        KeyG => k(b'G', 0x22),
        KeyH => k(b'H', 0x23),
        KeyJ => k(b'J', 0x24),
        KeyK => k(b'K', 0x25),
        KeyL => k(b'L', 0x26),
        Semicolon => k(VK_OEM_1, 0x27),
        Quote => k(VK_OEM_7, 0x28),
        Backquote => k(VK_OEM_3, 0x29),
        ShiftLeft => k(VK_SHIFT, 0x2A),
        Backslash => k(VK_OEM_5, 0x2B),
        KeyZ => k(b'Z', 0x2C),
        KeyX => k(b'X', 0x2D),
        KeyC => k(b'C', 0x2E),
        KeyV => k(b'V', 0x2F),
        KeyB => k(b'B', 0x30),
        KeyN => k(b'N', 0x31),
        KeyM => k(b'M', 0x32),
        Comma => k(VK_OEM_COMMA, 0x33),
        Period => k(VK_OEM_PERIOD, 0x34),
        Slash => k(VK_OEM_2, 0x35),
        ShiftRight => k(VK_SHIFT, 0x36),
        NumpadMultiply => k(VK_MULTIPLY, 0x37),
        AltLeft => k(VK_MENU, 0x38),
        Space => k(VK_SPACE, 0x39),
        CapsLock => k(VK_CAPITAL, 0x3A),
        F1 => k(VK_F1, 0x3B),
        F2 => k(VK_F1 + 1, 0x3C),
        F3 => k(VK_F1 + 2, 0x3D),
        F4 => k(VK_F1 + 3, 0x3E),
        F5 => k(VK_F1 + 4, 0x3F),
        F6 => k(VK_F1 + 5, 0x40),
        F7 => k(VK_F1 + 6, 0x41),
        F8 => k(VK_F1 + 7, 0x42),
        F9 => k(VK_F1 + 8, 0x43),
        F10 => k(VK_F1 + 9, 0x44),
        // Windows reports Num Lock's make code 0x45 with the extended bit set (Pause,
        // which also sends 0x45 after an E1 prefix, does not).
        NumLock => e(VK_NUMLOCK, 0x45),
        ScrollLock => k(VK_SCROLL, 0x46),
        Numpad7 => k(VK_NUMPAD0 + 7, 0x47),
        Numpad8 => k(VK_NUMPAD0 + 8, 0x48),
        Numpad9 => k(VK_NUMPAD0 + 9, 0x49),
        NumpadSubtract => k(VK_SUBTRACT, 0x4A),
        Numpad4 => k(VK_NUMPAD0 + 4, 0x4B),
        Numpad5 => k(VK_NUMPAD0 + 5, 0x4C),
        Numpad6 => k(VK_NUMPAD0 + 6, 0x4D),
        NumpadAdd => k(VK_ADD, 0x4E),
        Numpad1 => k(VK_NUMPAD0 + 1, 0x4F),
        Numpad2 => k(VK_NUMPAD0 + 2, 0x50),
        Numpad3 => k(VK_NUMPAD0 + 3, 0x51),
        Numpad0 => k(VK_NUMPAD0, 0x52),
        NumpadDecimal => k(VK_DECIMAL, 0x53),
        IntlBackslash => k(VK_OEM_102, 0x56),
        F11 => k(VK_F1 + 10, 0x57),
        F12 => k(VK_F1 + 11, 0x58),
        Pause => k(VK_PAUSE, 0x45),
        NumpadEnter => e(VK_RETURN, 0x1C),
        ControlRight => e(VK_CONTROL, 0x1D),
        NumpadDivide => e(VK_DIVIDE, 0x35),
        PrintScreen => e(VK_SNAPSHOT, 0x37),
        AltRight => e(VK_MENU, 0x38),
        Home => e(VK_HOME, 0x47),
        ArrowUp => e(VK_UP, 0x48),
        PageUp => e(VK_PRIOR, 0x49),
        ArrowLeft => e(VK_LEFT, 0x4B),
        ArrowRight => e(VK_RIGHT, 0x4D),
        End => e(VK_END, 0x4F),
        ArrowDown => e(VK_DOWN, 0x50),
        PageDown => e(VK_NEXT, 0x51),
        Insert => e(VK_INSERT, 0x52),
        Delete => e(VK_DELETE, 0x53),
        SuperLeft => e(VK_LWIN, 0x5B),
        SuperRight => e(VK_RWIN, 0x5C),
        ContextMenu => e(VK_APPS, 0x5D),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(vk: u8, scancode: u16, extended: bool) -> Option<WinKey> {
        Some(WinKey {
            vk,
            scancode,
            extended,
        })
    }

    #[test]
    fn keys_from_the_windows_documentation() {
        assert_eq!(win_key(KeyCode::KeyA), key(0x41, 0x1E, false));
        assert_eq!(win_key(KeyCode::Enter), key(0x0D, 0x1C, false));
        assert_eq!(win_key(KeyCode::ControlRight), key(0x11, 0x1D, true));
        assert_eq!(win_key(KeyCode::ControlLeft), key(0x11, 0x1D, false));
        assert_eq!(win_key(KeyCode::ArrowUp), key(0x26, 0x48, true));
        assert_eq!(win_key(KeyCode::F1), key(0x70, 0x3B, false));
        assert_eq!(win_key(KeyCode::F12), key(0x7B, 0x58, false));
        assert_eq!(win_key(KeyCode::Escape), key(0x1B, 0x01, false));
        assert_eq!(win_key(KeyCode::Space), key(0x20, 0x39, false));
        assert_eq!(win_key(KeyCode::ShiftRight), key(0x10, 0x36, false));
        assert_eq!(win_key(KeyCode::AltRight), key(0x12, 0x38, true));
        assert_eq!(win_key(KeyCode::NumpadEnter), key(0x0D, 0x1C, true));
        assert_eq!(win_key(KeyCode::Numpad8), key(0x68, 0x48, false));
        assert_eq!(win_key(KeyCode::Delete), key(0x2E, 0x53, true));
        assert_eq!(win_key(KeyCode::Slash), key(0xBF, 0x35, false));
    }

    #[test]
    fn no_two_keys_share_a_scan_code() {
        use std::collections::HashMap;
        // Every KeyCode winit has for a PC keyboard's keys.
        use KeyCode::*;
        let all = [
            Escape,
            Digit1,
            Digit2,
            Digit3,
            Digit4,
            Digit5,
            Digit6,
            Digit7,
            Digit8,
            Digit9,
            Digit0,
            Minus,
            Equal,
            Backspace,
            Tab,
            KeyQ,
            KeyW,
            KeyE,
            KeyR,
            KeyT,
            KeyY,
            KeyU,
            KeyI,
            KeyO,
            KeyP,
            BracketLeft,
            BracketRight,
            Enter,
            ControlLeft,
            KeyA,
            KeyS,
            KeyD,
            KeyF,
            KeyG,
            KeyH,
            KeyJ,
            KeyK,
            KeyL,
            Semicolon,
            Quote,
            Backquote,
            ShiftLeft,
            Backslash,
            KeyZ,
            KeyX,
            KeyC,
            KeyV,
            KeyB,
            KeyN,
            KeyM,
            Comma,
            Period,
            Slash,
            ShiftRight,
            NumpadMultiply,
            AltLeft,
            Space,
            CapsLock,
            F1,
            F2,
            F3,
            F4,
            F5,
            F6,
            F7,
            F8,
            F9,
            F10,
            NumLock,
            ScrollLock,
            Numpad7,
            Numpad8,
            Numpad9,
            NumpadSubtract,
            Numpad4,
            Numpad5,
            Numpad6,
            NumpadAdd,
            Numpad1,
            Numpad2,
            Numpad3,
            Numpad0,
            NumpadDecimal,
            IntlBackslash,
            F11,
            F12,
            NumpadEnter,
            ControlRight,
            NumpadDivide,
            PrintScreen,
            AltRight,
            Home,
            ArrowUp,
            PageUp,
            ArrowLeft,
            ArrowRight,
            End,
            ArrowDown,
            PageDown,
            Insert,
            Delete,
            SuperLeft,
            SuperRight,
            ContextMenu,
        ];
        let mut seen = HashMap::new();
        for c in all {
            let w = win_key(c).unwrap_or_else(|| panic!("{c:?} unmapped"));
            if let Some(prev) = seen.insert((w.scancode, w.extended), c) {
                panic!("{c:?} and {prev:?} share {:#x}", w.scancode);
            }
        }
        // Letters and digits report their ASCII upper-case character as the VK.
        for (c, ch) in [(KeyQ, b'Q'), (KeyZ, b'Z'), (Digit0, b'0'), (Digit9, b'9')] {
            assert_eq!(win_key(c).map(|w| w.vk), Some(ch));
        }
        assert_eq!(win_key(F13), None);
    }
}
