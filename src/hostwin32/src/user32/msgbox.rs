//! MessageBox as Windows makes it: a modal dialog of class `#32770` owned by the
//! caller's window, built from a dialog template in memory and laid out in its
//! WM_INITDIALOG from the text's metrics (icon, wrapped text, a row of buttons sized
//! to their labels), run by the same modal loop as DialogBox. So the owner is
//! disabled while it shows, the owner's timers and paints go on, FindWindow and
//! EnumWindows see it, and Enter, Escape and clicks answer it.
//!
//! Nobody sits in front of a headless run: when the process asks for it
//! ([`crate::process::ProcessConfig::message_box_ticks`]) a box presses its default
//! button after it has been shown for that many 60 Hz ticks and prints the box and
//! the answer to standard error. ShellAbout (SHELL32) uses the same dialog with its
//! own caption, icon and text.

use super::msg::*;
use super::window::{self, SWP_NOACTIVATE, SWP_NOZORDER};
use super::wm;
use super::{UR, fin, lock_wm};
use crate::gdi32::paint as gp;
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, stdcall};
use std::collections::HashMap;
use std::sync::Mutex;

/// The dialog procedure of every box (USER32's own; reached through its thunk).
pub const PROC_EXPORT: &str = "__winterp_MessageBoxProc";

/// Control IDs of the icon and text statics (Windows' own).
const ID_ICON: u32 = 0x14;
const ID_TEXT: u32 = 0xffff;
/// The headless auto-answer's timer: an ID no program passes for its own timers
/// on a window it did not create.
const AUTO_TIMER: u32 = 0x5754_4d42;

const IDOK: u32 = 1;
const IDCANCEL: u32 = 2;
const IDHELP: u32 = 9;

const MB_TYPEMASK: u32 = 0xf;
const MB_ICONMASK: u32 = 0xf0;
pub const MB_USERICON: u32 = 0x80;
const MB_DEFMASK: u32 = 0xf00;
const MB_SYSTEMMODAL: u32 = 0x1000;
const MB_TASKMODAL: u32 = 0x2000;
const MB_HELP: u32 = 0x4000;
const MB_SETFOREGROUND: u32 = 0x1_0000;
const MB_TOPMOST: u32 = 0x4_0000;
const MB_RIGHT: u32 = 0x8_0000;

const WS_EX_DLGMODALFRAME: u32 = 0x1;
const WS_EX_TOPMOST: u32 = 0x8;
const WS_EX_RIGHT: u32 = 0x1000;
const DS_MODALFRAME: u32 = 0x80;
const DS_NOIDLEMSG: u32 = 0x100;
const SS_RIGHT: u32 = 0x2;
const SS_ICON: u32 = 0x3;
const SS_NOPREFIX: u32 = 0x80;
const BS_DEFPUSHBUTTON: u32 = 0x1;
const STM_SETICON: u32 = 0x170;
const BM_SETSTYLE: u32 = 0xf4;
const WM_HELP: u32 = 0x53;
const SC_CLOSE: u32 = 0xf060;

/// Layout in pixels for the dialog font (8-point, dialog base units 6 x 13): the
/// margins are 7 dialog units, buttons 50 x 14 and 4 apart, as the Windows user
/// interface guidelines give them.
const MARGIN: i32 = 11;
const ICON: i32 = 32;
const BUTTON_W: i32 = 75;
const BUTTON_H: i32 = 23;
const BUTTON_GAP: i32 = 6;

/// The buttons (ID, label) of a MessageBox type (MB_OK .. MB_CANCELTRYCONTINUE),
/// plus Help with MB_HELP.
pub fn buttons_of(style: u32) -> Vec<(u32, &'static str)> {
    const OK: (u32, &str) = (IDOK, "OK");
    const CANCEL: (u32, &str) = (IDCANCEL, "Cancel");
    const ABORT: (u32, &str) = (3, "&Abort");
    const RETRY: (u32, &str) = (4, "&Retry");
    const IGNORE: (u32, &str) = (5, "&Ignore");
    const YES: (u32, &str) = (6, "&Yes");
    const NO: (u32, &str) = (7, "&No");
    const TRY: (u32, &str) = (10, "&Try Again");
    const CONTINUE: (u32, &str) = (11, "&Continue");
    let mut v = match style & MB_TYPEMASK {
        1 => vec![OK, CANCEL],
        2 => vec![ABORT, RETRY, IGNORE],
        3 => vec![YES, NO, CANCEL],
        4 => vec![YES, NO],
        5 => vec![RETRY, CANCEL],
        6 => vec![CANCEL, TRY, CONTINUE],
        _ => vec![OK],
    };
    if style & MB_HELP != 0 {
        v.push((IDHELP, "Help"));
    }
    v
}

/// The button Enter presses: MB_DEFBUTTONn (bits 8-11, Help included), else the first.
pub fn default_of(style: u32) -> u32 {
    let b = buttons_of(style);
    b.get(((style & MB_DEFMASK) >> 8) as usize)
        .or(b.first())
        .map_or(IDOK, |b| b.0)
}

/// What Escape and the close box answer: Cancel if the box has one, OK for a box
/// whose only answer is OK (MessageBox's documented rule); otherwise nothing.
fn escape_of(style: u32) -> Option<u32> {
    let b = buttons_of(style);
    if b.iter().any(|b| b.0 == IDCANCEL) {
        Some(IDCANCEL)
    } else if b.iter().all(|b| b.0 == IDOK || b.0 == IDHELP) {
        Some(IDOK)
    } else {
        None
    }
}

fn label(s: &str) -> String {
    s.replace('&', "")
}

/// What to show: MessageBox's arguments already read from the guest.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub owner: u32,
    pub text: String,
    pub caption: String,
    pub style: u32,
    /// An icon handle that replaces the MB_ICON* one (MB_USERICON, ShellAbout).
    pub icon: u32,
    /// MSGBOXPARAMS' help context and callback (MB_HELP).
    pub help_context: u32,
    pub help_callback: u32,
}

struct Live {
    spec: Spec,
    answered: bool,
}

/// The boxes showing (a box can open another), by the key WM_INITDIALOG gets.
#[derive(Default)]
struct Boxes {
    next: u32,
    by_key: HashMap<u32, Live>,
    by_hwnd: HashMap<u32, u32>,
}

fn boxes(cx: &Ctx) -> std::sync::Arc<Mutex<Boxes>> {
    cx.proc.slot::<Mutex<Boxes>>()
}

fn with_boxes<R>(cx: &Ctx, f: impl FnOnce(&mut Boxes) -> R) -> R {
    let b = boxes(cx);
    let mut g = b.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Whether a message box is showing in the process (the player gives a closing
/// program time while it asks its user something).
pub fn showing(proc: &crate::process::Process) -> bool {
    let b = proc.slot::<Mutex<Boxes>>();
    let g = b.lock().unwrap_or_else(|e| e.into_inner());
    !g.by_key.is_empty()
}

fn spec_of(cx: &Ctx, hdlg: u32) -> Option<Spec> {
    with_boxes(cx, |b| {
        let k = b.by_hwnd.get(&hdlg)?;
        b.by_key.get(k).map(|l| l.spec.clone())
    })
}

/// A dialog template (DLGTEMPLATE, no font) with the box's controls at zero size;
/// WM_INITDIALOG lays them out.
fn template(spec: &Spec, has_icon: bool) -> Vec<u8> {
    let mut t = Vec::new();
    let put16 = |t: &mut Vec<u8>, v: u16| t.extend_from_slice(&v.to_le_bytes());
    let put32 = |t: &mut Vec<u8>, v: u32| t.extend_from_slice(&v.to_le_bytes());
    let put_str = |t: &mut Vec<u8>, s: &str| {
        for u in s.encode_utf16().take(0x8000) {
            t.extend_from_slice(&u.to_le_bytes());
        }
        t.extend_from_slice(&[0, 0]);
    };
    let align = |t: &mut Vec<u8>| {
        while !t.len().is_multiple_of(4) {
            t.push(0);
        }
    };
    let buttons = buttons_of(spec.style);
    let def = default_of(spec.style);
    let mut exstyle = WS_EX_DLGMODALFRAME;
    if spec.style & (MB_TOPMOST | MB_SYSTEMMODAL) != 0 {
        exstyle |= WS_EX_TOPMOST;
    }
    if spec.style & MB_RIGHT != 0 {
        exstyle |= WS_EX_RIGHT;
    }
    let style = wm::WS_POPUP | wm::WS_CAPTION | wm::WS_SYSMENU | DS_MODALFRAME | DS_NOIDLEMSG;
    put32(&mut t, style);
    put32(&mut t, exstyle);
    put16(&mut t, (buttons.len() + 1 + has_icon as usize) as u16);
    for _ in 0..4 {
        put16(&mut t, 0);
    }
    put16(&mut t, 0); // no menu
    put16(&mut t, 0); // the dialog class
    put_str(&mut t, &spec.caption);
    let item = |t: &mut Vec<u8>, style: u32, id: u32, class: u16, title: &str| {
        align(t);
        put32(t, style | wm::WS_CHILD | wm::WS_VISIBLE);
        put32(t, 0);
        for _ in 0..4 {
            put16(t, 0);
        }
        put16(t, id as u16);
        put16(t, 0xffff);
        put16(t, class);
        put_str(t, title);
        put16(t, 0);
    };
    if has_icon {
        item(&mut t, SS_ICON, ID_ICON, 0x82, "");
    }
    let align_text = if spec.style & MB_RIGHT != 0 {
        SS_RIGHT
    } else {
        0
    };
    item(
        &mut t,
        align_text | SS_NOPREFIX | wm::WS_GROUP,
        ID_TEXT,
        0x82,
        &spec.text,
    );
    for (k, (id, text)) in buttons.iter().enumerate() {
        let mut s = wm::WS_TABSTOP;
        if k == 0 {
            s |= wm::WS_GROUP;
        }
        if *id == def {
            s |= BS_DEFPUSHBUTTON;
        }
        item(&mut t, s, *id, 0x80, text);
    }
    t
}

/// The icon the box shows: the caller's, or the system icon of MB_ICON*.
fn icon_of(cx: &mut Ctx, spec: &Spec) -> UR<u32> {
    if spec.icon != 0 {
        return Ok(spec.icon);
    }
    // IDI_HAND, IDI_QUESTION, IDI_EXCLAMATION, IDI_ASTERISK.
    let id = match spec.style & MB_ICONMASK {
        0x10 => 32513,
        0x20 => 32514,
        0x30 => 32515,
        0x40 => 32516,
        _ => return Ok(0),
    };
    Ok(super::call_export(cx, "USER32.dll", "LoadIconW", &[0, id])?.unwrap_or(0))
}

/// Shows the box modally and returns the ID of the button that answered it.
pub fn show(cx: &mut Ctx, spec: Spec) -> UR<u32> {
    let icon = icon_of(cx, &spec)?;
    let owner = if spec.owner != 0 && lock_wm(cx.proc).win(spec.owner).is_some() {
        spec.owner
    } else {
        0
    };
    let tpl = template(&spec, icon != 0);
    let dlgproc = cx.proc.resolve_hle("USER32.dll", PROC_EXPORT)?;
    let key = with_boxes(cx, |b| {
        b.next = b.next.wrapping_add(1).max(1);
        let k = b.next;
        b.by_key.insert(
            k,
            Live {
                spec: Spec {
                    icon,
                    ..spec.clone()
                },
                answered: false,
            },
        );
        k
    });
    // MB_TASKMODAL without an owner: every top-level window of the thread is
    // disabled while the box shows (the owner alone is disabled by the modal loop).
    let disabled: Vec<u32> = if owner == 0 && spec.style & MB_TASKMODAL != 0 {
        let tid = cx.thread.tid;
        let mut wm = lock_wm(cx.proc);
        let tops: Vec<u32> = wm
            .windows
            .iter()
            .filter(|(_, w)| w.parent == 0 && w.tid == tid && w.style & wm::WS_DISABLED == 0)
            .map(|(&h, _)| h)
            .collect();
        for h in &tops {
            if let Some(w) = wm.win_mut(*h) {
                w.style |= wm::WS_DISABLED;
            }
        }
        tops
    } else {
        Vec::new()
    };
    let (buf, esp) = super::stack_alloc(cx, tpl.len() as u32);
    let r = (|| -> UR<u32> {
        cx.proc.mem.write_bytes(buf, &tpl)?;
        let inst = user32_instance(cx);
        let r = super::call_export(
            cx,
            "USER32.dll",
            "DialogBoxIndirectParamW",
            &[inst, buf, owner, dlgproc, key],
        )?;
        Ok(r.unwrap_or(u32::MAX))
    })();
    super::stack_free(cx, esp);
    {
        let mut wm = lock_wm(cx.proc);
        for h in disabled {
            if let Some(w) = wm.win_mut(h) {
                w.style &= !wm::WS_DISABLED;
            }
        }
    }
    with_boxes(cx, |b| {
        b.by_key.remove(&key);
        b.by_hwnd.retain(|_, k| *k != key);
    });
    let r = r?;
    if r == u32::MAX {
        // The dialog could not be created (or was destroyed without an answer).
        return Ok(0);
    }
    Ok(r)
}

fn user32_instance(cx: &Ctx) -> u32 {
    cx.proc
        .hle_dll("USER32.dll")
        .and_then(|d| crate::loader::hle_module::base_of(cx.proc, d))
        .unwrap_or(0)
}

/// Measures the text and places the icon, the text, the buttons and the box.
fn layout(cx: &mut Ctx, hdlg: u32, spec: &Spec) -> UR<()> {
    let font = super::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0);
    let hdc = super::call_export(cx, "GDI32.dll", "CreateCompatibleDC", &[0])?.unwrap_or(0);
    if hdc != 0 && font != 0 {
        super::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
    }
    let screen = cx.proc.display.mode();
    let (sw, sh) = (screen.width as i32, screen.height as i32);
    let has_icon = spec.icon != 0;
    // Long lines wrap at about five eighths of the screen, as on Windows.
    let wrap = (sw * 5 / 8).max(200);
    let mut tr = crate::gdi32::Rect::new(0, 0, wrap, 0);
    let fmt = gp::DT_CALCRECT | gp::DT_WORDBREAK | gp::DT_EXPANDTABS | gp::DT_NOPREFIX;
    let text_h = gp::draw_text_calc(cx.proc, hdc, &spec.text, &mut tr, fmt)?;
    let text_w = tr.width();
    let buttons = buttons_of(spec.style);
    let bw = buttons
        .iter()
        .map(|(_, t)| gp::text_extent(cx.proc, hdc, &label(t)).0 + 2 * MARGIN)
        .max()
        .unwrap_or(0)
        .max(BUTTON_W);
    if hdc != 0 {
        super::call_export(cx, "GDI32.dll", "DeleteDC", &[hdc])?;
    }
    let text_x = if has_icon { 2 * MARGIN + ICON } else { MARGIN };
    let content_h = text_h.max(if has_icon { ICON } else { 0 });
    // Text shorter than the icon is centred against it.
    let text_y = MARGIN + (content_h - text_h) / 2;
    let row_w = buttons.len() as i32 * (bw + BUTTON_GAP) - BUTTON_GAP;
    let client_w = (text_x + text_w + MARGIN).max(row_w + 2 * MARGIN);
    let by = MARGIN + content_h + MARGIN;
    let client_h = by + BUTTON_H + MARGIN;
    let flags = SWP_NOZORDER | SWP_NOACTIVATE;
    if has_icon {
        let icon = super::dialog::GetDlgItem(cx, hdlg, ID_ICON);
        window::set_window_pos(cx, icon, 0, MARGIN, MARGIN, ICON, ICON, flags)?;
        send(cx, icon, STM_SETICON, spec.icon, 0, true)?;
    }
    let text = super::dialog::GetDlgItem(cx, hdlg, ID_TEXT);
    // A pixel of slack so the static's own word wrapping breaks where this did.
    window::set_window_pos(cx, text, 0, text_x, text_y, text_w + 2, text_h, flags)?;
    let mut x = (client_w - row_w) / 2;
    for (id, _) in &buttons {
        let b = super::dialog::GetDlgItem(cx, hdlg, *id);
        window::set_window_pos(cx, b, 0, x, by, bw, BUTTON_H, flags)?;
        x += bw + BUTTON_GAP;
    }
    let (style, exstyle) = lock_wm(cx.proc)
        .win(hdlg)
        .map_or((0, 0), |w| (w.style, w.exstyle));
    let r = window::adjust_rect(
        crate::gdi32::Rect::new(0, 0, client_w, client_h),
        style,
        false,
        exstyle,
    );
    let (w, h) = (r.width(), r.height());
    window::set_window_pos(
        cx,
        hdlg,
        0,
        ((sw - w) / 2).max(0),
        ((sh - h) / 2).max(0),
        w,
        h,
        flags,
    )?;
    Ok(())
}

fn press(cx: &mut Ctx, hdlg: u32, id: u32) -> UR<()> {
    let answered = with_boxes(cx, |b| {
        let k = *b.by_hwnd.get(&hdlg)?;
        let l = b.by_key.get_mut(&k)?;
        Some(std::mem::replace(&mut l.answered, true))
    });
    if answered != Some(false) {
        return Ok(());
    }
    super::dialog::EndDialog(cx, hdlg, id)?;
    Ok(())
}

/// Help: the MSGBOXPARAMS callback if there is one, else WM_HELP to the owner.
fn help(cx: &mut Ctx, hdlg: u32, spec: &Spec) -> UR<()> {
    let (hi, esp) = super::stack_alloc(cx, 28);
    let r = (|| -> UR<()> {
        let m = &cx.proc.mem;
        let button = super::dialog::GetDlgItem(cx, hdlg, IDHELP);
        for (k, v) in [28, 1, IDHELP, button, spec.help_context, 0, 0]
            .into_iter()
            .enumerate()
        {
            m.write_u32(hi + 4 * k as u32, v)?;
        }
        if spec.help_callback != 0 {
            super::guest(cx, spec.help_callback, &[hi])?;
        } else if spec.owner != 0 {
            send(cx, spec.owner, WM_HELP, 0, hi, true)?;
        }
        Ok(())
    })();
    super::stack_free(cx, esp);
    r
}

fn auto_answer(cx: &mut Ctx, hdlg: u32, spec: &Spec) -> UR<()> {
    super::msg::KillTimer(cx, hdlg, AUTO_TIMER);
    let buttons = buttons_of(spec.style);
    // Help answers nothing; a box whose default is Help gets its first button.
    let pick = match default_of(spec.style) {
        IDHELP => buttons.first().map_or(IDOK, |b| b.0),
        id => id,
    };
    let names: Vec<String> = buttons.iter().map(|b| label(b.1)).collect();
    let answer = buttons
        .iter()
        .find(|b| b.0 == pick)
        .map_or("OK".to_string(), |b| label(b.1));
    let line = format!(
        "winterp: message box \"{}\": {} [{}] -> {}\n",
        spec.caption,
        spec.text,
        names.join(", "),
        answer
    );
    cx.proc.host.stderr(line.as_bytes());
    let b = super::dialog::GetDlgItem(cx, hdlg, pick);
    send(cx, hdlg, WM_COMMAND, pick, b, true)?;
    Ok(())
}

fn box_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32) -> UR<u32> {
    match m {
        WM_INITDIALOG => {
            with_boxes(cx, |b| {
                if b.by_key.contains_key(&lp) {
                    b.by_hwnd.insert(h, lp);
                }
            });
            let Some(spec) = spec_of(cx, h) else {
                return Ok(1);
            };
            layout(cx, h, &spec)?;
            if escape_of(spec.style).is_none() {
                // No answer for the close box: it is greyed, as on Windows.
                let menu =
                    super::call_export(cx, "USER32.dll", "GetSystemMenu", &[h, 0])?.unwrap_or(0);
                if menu != 0 {
                    super::call_export(cx, "USER32.dll", "EnableMenuItem", &[menu, SC_CLOSE, 1])?;
                }
            }
            let def = default_of(spec.style);
            let b = super::dialog::GetDlgItem(cx, h, def);
            if b != 0 {
                send(cx, b, BM_SETSTYLE, BS_DEFPUSHBUTTON, 1, true)?;
                send(cx, h, 0x401, def, 0, true)?; // DM_SETDEFID
                window::set_focus(cx, b)?;
            }
            if spec.style & (MB_SETFOREGROUND | MB_SYSTEMMODAL | MB_TOPMOST) != 0 {
                window::set_active(cx, h)?;
            }
            if let Some(ticks) = cx.proc.config.message_box_ticks {
                let ms = (ticks as u64 * 1000).div_ceil(60).max(1) as u32;
                super::msg::SetTimer(cx, h, AUTO_TIMER, ms, 0)?;
            }
            // The focus is set: FALSE.
            Ok(0)
        }
        WM_TIMER if wp == AUTO_TIMER => {
            if let Some(spec) = spec_of(cx, h) {
                auto_answer(cx, h, &spec)?;
            }
            Ok(1)
        }
        WM_COMMAND => {
            let Some(spec) = spec_of(cx, h) else {
                return Ok(0);
            };
            let id = wp & 0xffff;
            let buttons = buttons_of(spec.style);
            if id == IDHELP && buttons.iter().any(|b| b.0 == IDHELP) {
                help(cx, h, &spec)?;
            } else if buttons.iter().any(|b| b.0 == id && id != IDCANCEL) {
                press(cx, h, id)?;
            } else if id == IDCANCEL
                && let Some(a) = escape_of(spec.style)
            {
                press(cx, h, a)?;
            }
            Ok(1)
        }
        _ => Ok(0),
    }
}

/// The dialog procedure of message boxes.
pub fn MessageBoxProc(
    cx: &mut Ctx,
    hDlg: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(box_proc(cx, hDlg, uMsg, wParam, lParam))
}

pub fn exports() -> Vec<ApiDef> {
    vec![stdcall(PROC_EXPORT, MessageBoxProc)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buttons_default_and_escape_follow_the_type() {
        // MB_YESNOCANCEL | MB_DEFBUTTON2: No is the default, Escape is Cancel.
        assert_eq!(
            buttons_of(0x3).iter().map(|b| b.0).collect::<Vec<_>>(),
            [6, 7, 2]
        );
        assert_eq!(default_of(0x3 | 0x100), 7);
        assert_eq!(escape_of(0x3), Some(IDCANCEL));
        // MB_YESNO: no Cancel, so Escape and the close box answer nothing.
        assert_eq!(escape_of(0x4), None);
        // MB_OK: Escape answers OK, as documented.
        assert_eq!(escape_of(0), Some(IDOK));
        // MB_DEFBUTTON3 on a two-button box falls back to the first button.
        assert_eq!(default_of(0x1 | 0x200), IDOK);
        // MB_HELP adds Help last; it can be the default.
        assert_eq!(buttons_of(0x1 | MB_HELP).last(), Some(&(IDHELP, "Help")));
        assert_eq!(default_of(0x1 | MB_HELP | 0x200), IDHELP);
        assert_eq!(escape_of(MB_HELP), Some(IDOK));
    }

    #[test]
    fn the_template_holds_caption_icon_text_and_buttons() {
        let spec = Spec {
            text: "Hi".into(),
            caption: "Cap".into(),
            style: 0x1 | 0x100,
            ..Default::default()
        };
        let t = template(&spec, true);
        // Icon, text and two buttons.
        assert_eq!(u16::from_le_bytes([t[8], t[9]]), 4);
        let words: Vec<u16> = t
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let has = |s: &str| {
            let w: Vec<u16> = s.encode_utf16().chain([0]).collect();
            words.windows(w.len()).any(|x| x == w.as_slice())
        };
        assert!(has("Cap") && has("Hi") && has("OK") && has("Cancel"));
    }
}
