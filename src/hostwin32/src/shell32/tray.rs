//! Shell_NotifyIcon: the taskbar notification area ("system tray") as the shell
//! keeps it, one list of icons per process.
//!
//! winterp shows no taskbar, so the icons are never drawn and never send their
//! callback messages (no click can reach them); what a program sees is Windows'
//! bookkeeping: an icon is named by its window and id, NIM_ADD fails for one that
//! exists, NIM_MODIFY, NIM_DELETE, NIM_SETFOCUS and NIM_SETVERSION fail for one
//! that does not, and NIM_MODIFY changes only what its flags name.

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use std::sync::Mutex;

const NIM_ADD: u32 = 0;
const NIM_MODIFY: u32 = 1;
const NIM_DELETE: u32 = 2;
const NIM_SETFOCUS: u32 = 3;
const NIM_SETVERSION: u32 = 4;

const NIF_MESSAGE: u32 = 0x01;
const NIF_ICON: u32 = 0x02;
const NIF_TIP: u32 = 0x04;
const NIF_STATE: u32 = 0x08;
const NIF_INFO: u32 = 0x10;
const NIF_GUID: u32 = 0x20;

const ERROR_INVALID_PARAMETER: u32 = 87;

/// One icon in the notification area.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrayIcon {
    pub hwnd: u32,
    pub id: u32,
    pub callback_message: u32,
    pub icon: u32,
    pub tip: String,
    /// NIS_HIDDEN, NIS_SHAREDICON.
    pub state: u32,
    /// The balloon: text, title, NIIF_* flags.
    pub info: String,
    pub info_title: String,
    pub info_flags: u32,
    /// NOTIFYICON_VERSION set by NIM_SETVERSION (0: the Windows 95 behaviour).
    pub version: u32,
    pub guid: [u8; 16],
}

/// The process's notification-area icons, in the order they were added.
#[derive(Default)]
pub struct Tray {
    pub icons: Mutex<Vec<TrayIcon>>,
}

/// What one NOTIFYICONDATA structure says (the fields its size has).
#[derive(Clone, Debug, Default)]
struct Data {
    hwnd: u32,
    id: u32,
    flags: u32,
    callback_message: u32,
    icon: u32,
    tip: String,
    /// Version 2 and later structures (Windows 2000): state, balloon, version.
    v2: Option<V2>,
    guid: Option<[u8; 16]>,
}

#[derive(Clone, Debug, Default)]
struct V2 {
    state: u32,
    state_mask: u32,
    info: String,
    timeout_or_version: u32,
    info_title: String,
    info_flags: u32,
}

/// The layout of NOTIFYICONDATAA or NOTIFYICONDATAW: the structure's sizes by
/// version and the character size.
struct Layout {
    unicode: bool,
    v1: usize,
    v2: usize,
    v3: usize,
    full: usize,
}

const LAYOUT_A: Layout = Layout {
    unicode: false,
    v1: 88,
    v2: 488,
    v3: 504,
    full: 508,
};
const LAYOUT_W: Layout = Layout {
    unicode: true,
    v1: 152,
    v2: 936,
    v3: 952,
    full: 956,
};

impl Layout {
    fn ch(&self) -> usize {
        if self.unicode { 2 } else { 1 }
    }

    /// A NUL-terminated string of at most `chars` characters at `at`.
    fn text(&self, b: &[u8], at: usize, chars: usize) -> String {
        let field = &b[at..at + chars * self.ch()];
        if self.unicode {
            let u: Vec<u16> = field
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .take_while(|&c| c != 0)
                .collect();
            String::from_utf16_lossy(&u)
        } else {
            let n = field.iter().position(|&c| c == 0).unwrap_or(field.len());
            crate::kernel32::string::decode_ansi(&field[..n])
        }
    }

    /// Parses a structure of `b.len()` bytes (its cbSize), `None` when it is smaller
    /// than the first version's.
    fn parse(&self, b: &[u8]) -> Option<Data> {
        if b.len() < self.v1 {
            return None;
        }
        let u = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let big = b.len() >= self.v2;
        let tip_chars = if big { 128 } else { 64 };
        let mut d = Data {
            hwnd: u(4),
            id: u(8),
            flags: u(12),
            callback_message: u(16),
            icon: u(20),
            tip: self.text(b, 24, tip_chars),
            v2: None,
            guid: None,
        };
        if big {
            let st = 24 + 128 * self.ch();
            let info = st + 8;
            let timeout = info + 256 * self.ch();
            let title = timeout + 4;
            let flags = title + 64 * self.ch();
            d.v2 = Some(V2 {
                state: u(st),
                state_mask: u(st + 4),
                info: self.text(b, info, 256),
                timeout_or_version: u(timeout),
                info_title: self.text(b, title, 64),
                info_flags: u(flags),
            });
            if b.len() >= self.v3 {
                let g = flags + 4;
                d.guid = Some(b[g..g + 16].try_into().expect("16 bytes"));
            }
        }
        Some(d)
    }
}

/// Sets the fields of `icon` that `d.flags` names.
fn update(icon: &mut TrayIcon, d: &Data) {
    if d.flags & NIF_MESSAGE != 0 {
        icon.callback_message = d.callback_message;
    }
    if d.flags & NIF_ICON != 0 {
        icon.icon = d.icon;
    }
    if d.flags & NIF_TIP != 0 {
        icon.tip = d.tip.clone();
    }
    if let Some(v) = &d.v2 {
        if d.flags & NIF_STATE != 0 {
            icon.state = (icon.state & !v.state_mask) | (v.state & v.state_mask);
        }
        if d.flags & NIF_INFO != 0 {
            icon.info = v.info.clone();
            icon.info_title = v.info_title.clone();
            icon.info_flags = v.info_flags;
        }
    }
    if d.flags & NIF_GUID != 0
        && let Some(g) = d.guid
    {
        icon.guid = g;
    }
}

/// Carries out one Shell_NotifyIcon message on `icons`: whether it succeeded.
fn apply(icons: &mut Vec<TrayIcon>, message: u32, d: &Data) -> bool {
    let at = icons.iter().position(|i| i.hwnd == d.hwnd && i.id == d.id);
    match (message, at) {
        (NIM_ADD, None) => {
            let mut icon = TrayIcon {
                hwnd: d.hwnd,
                id: d.id,
                ..Default::default()
            };
            update(&mut icon, d);
            icons.push(icon);
            true
        }
        (NIM_MODIFY, Some(k)) => {
            update(&mut icons[k], d);
            true
        }
        (NIM_DELETE, Some(k)) => {
            icons.remove(k);
            true
        }
        // There is no taskbar to take the keyboard focus.
        (NIM_SETFOCUS, Some(_)) => true,
        (NIM_SETVERSION, Some(k)) => match &d.v2 {
            Some(v) => {
                icons[k].version = v.timeout_or_version;
                true
            }
            // The first version's structure has no uVersion.
            None => false,
        },
        _ => false,
    }
}

fn notify_icon(cx: &mut Ctx, dwMessage: u32, lpData: Ptr, layout: &Layout) -> ApiResult<bool> {
    let size = cx.proc.mem.read_u32(lpData.0)? as usize;
    let mut b = vec![0u8; size.min(layout.full)];
    cx.proc.mem.read_bytes(lpData.0, &mut b)?;
    let Some(d) = layout.parse(&b) else {
        crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    };
    let tray = cx.proc.slot::<Tray>();
    let mut icons = tray.icons.lock().unwrap_or_else(|e| e.into_inner());
    Ok(apply(&mut icons, dwMessage, &d))
}

pub fn Shell_NotifyIconA(cx: &mut Ctx, dwMessage: u32, lpData: Ptr) -> ApiResult<bool> {
    notify_icon(cx, dwMessage, lpData, &LAYOUT_A)
}

pub fn Shell_NotifyIconW(cx: &mut Ctx, dwMessage: u32, lpData: Ptr) -> ApiResult<bool> {
    notify_icon(cx, dwMessage, lpData, &LAYOUT_W)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        // Shell_NotifyIcon is the ANSI function under its old name.
        stdcall("Shell_NotifyIcon", Shell_NotifyIconA),
        stdcall("Shell_NotifyIconA", Shell_NotifyIconA),
        stdcall("Shell_NotifyIconW", Shell_NotifyIconW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NOTIFYICONDATAW of `size` bytes, laid out by hand from the SDK's
    /// declaration (cbSize, hWnd, uID, uFlags, uCallbackMessage, hIcon, szTip[...],
    /// then for version 2: dwState, dwStateMask, szInfo[256], uVersion,
    /// szInfoTitle[64], dwInfoFlags).
    fn nid_w(size: usize, hwnd: u32, id: u32, flags: u32, tip: &str) -> Vec<u8> {
        let mut b = vec![0u8; size];
        for (o, v) in [
            (0, size as u32),
            (4, hwnd),
            (8, id),
            (12, flags),
            (16, 0x8001),
            (20, 0x77),
        ] {
            b[o..o + 4].copy_from_slice(&v.to_le_bytes());
        }
        for (k, c) in tip.encode_utf16().enumerate() {
            b[24 + 2 * k..26 + 2 * k].copy_from_slice(&c.to_le_bytes());
        }
        b
    }

    #[test]
    fn add_modify_delete_follow_the_icon_s_window_and_id() {
        let mut icons = Vec::new();
        let add = LAYOUT_W
            .parse(&nid_w(
                152,
                0x10,
                1,
                NIF_MESSAGE | NIF_ICON | NIF_TIP,
                "CPU",
            ))
            .unwrap();
        assert!(apply(&mut icons, NIM_ADD, &add));
        // The same window and id again: it exists already.
        assert!(!apply(&mut icons, NIM_ADD, &add));
        assert_eq!(icons.len(), 1);
        assert_eq!(icons[0].tip, "CPU");
        assert_eq!(icons[0].callback_message, 0x8001);
        assert_eq!(icons[0].icon, 0x77);

        // NIM_MODIFY with NIF_TIP only leaves the icon and message alone.
        let mut m = nid_w(152, 0x10, 1, NIF_TIP, "CPU 5%");
        m[20..24].copy_from_slice(&0x99u32.to_le_bytes());
        assert!(apply(&mut icons, NIM_MODIFY, &LAYOUT_W.parse(&m).unwrap()));
        assert_eq!(icons[0].tip, "CPU 5%");
        assert_eq!(icons[0].icon, 0x77);

        // Another id of the same window is another icon.
        let other = LAYOUT_W.parse(&nid_w(152, 0x10, 2, NIF_TIP, "x")).unwrap();
        assert!(!apply(&mut icons, NIM_MODIFY, &other));
        assert!(!apply(&mut icons, NIM_DELETE, &other));
        assert!(!apply(&mut icons, NIM_SETFOCUS, &other));

        assert!(apply(&mut icons, NIM_DELETE, &add));
        assert!(icons.is_empty());
        assert!(!apply(&mut icons, NIM_DELETE, &add));
        assert!(!apply(&mut icons, NIM_MODIFY, &add));
        // An unknown message fails.
        assert!(!apply(&mut icons, 7, &add));
    }

    #[test]
    fn version_two_structures_carry_state_balloon_and_version() {
        let mut b = nid_w(936, 0x20, 5, NIF_TIP | NIF_STATE, "a longer tip");
        // dwState NIS_HIDDEN under dwStateMask NIS_HIDDEN, at 24 + 256.
        b[280..284].copy_from_slice(&1u32.to_le_bytes());
        b[284..288].copy_from_slice(&1u32.to_le_bytes());
        // uVersion at 24 + 256 + 8 + 512.
        b[800..804].copy_from_slice(&3u32.to_le_bytes());
        let d = LAYOUT_W.parse(&b).unwrap();
        let mut icons = Vec::new();
        assert!(apply(&mut icons, NIM_ADD, &d));
        assert_eq!(icons[0].state, 1);
        assert_eq!(icons[0].tip, "a longer tip");
        assert!(apply(&mut icons, NIM_SETVERSION, &d));
        assert_eq!(icons[0].version, 3);
        // A first-version structure has no uVersion to set.
        let v1 = LAYOUT_W.parse(&nid_w(152, 0x20, 5, 0, "")).unwrap();
        assert!(!apply(&mut icons, NIM_SETVERSION, &v1));
        // Too small a structure is refused.
        assert!(LAYOUT_W.parse(&nid_w(100, 0x20, 5, 0, "")).is_none());
    }

    #[test]
    fn ansi_structures_hold_single_byte_text() {
        let mut b = vec![0u8; 88];
        b[0..4].copy_from_slice(&88u32.to_le_bytes());
        b[12..16].copy_from_slice(&NIF_TIP.to_le_bytes());
        b[24..28].copy_from_slice(b"Tip\0");
        let d = LAYOUT_A.parse(&b).unwrap();
        assert_eq!(d.tip, "Tip");
        assert!(d.v2.is_none());
    }
}
