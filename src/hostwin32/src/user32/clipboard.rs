//! The clipboard: OpenClipboard / EmptyClipboard / SetClipboardData /
//! GetClipboardData / CloseClipboard and the queries around them.
//!
//! Data are global memory handles the program gives away with SetClipboardData (the
//! clipboard frees them when it is emptied or the format is set again). The text
//! formats stand in for each other as on Windows: with any of CF_TEXT, CF_OEMTEXT
//! and CF_UNICODETEXT set, the other two (and CF_LOCALE) are available too once the
//! clipboard has been closed, converted
//! through the ANSI (1252) and OEM (437) code pages when first asked for; the
//! converted copies belong to the clipboard as well. The clipboard lives with the
//! process: winterp runs one guest process per session, so there is nobody else to
//! share it with (the host's clipboard is not connected).

use crate::hle::{ApiDef, ApiResult, Ctx, stdcall};
use crate::kernel32::heap::{GlobalAlloc, GlobalFree, GlobalLock, GlobalSize, GlobalUnlock};
use crate::kernel32::string::{CodePage, byte_to_unicode, unicode_to_byte};
use std::sync::{Arc, Mutex};

pub const CF_TEXT: u32 = 1;
pub const CF_OEMTEXT: u32 = 7;
pub const CF_UNICODETEXT: u32 = 13;
pub const CF_LOCALE: u32 = 16;

const ERROR_ACCESS_DENIED: u32 = 5;
const ERROR_CLIPBOARD_NOT_OPEN: u32 = 1418;
const GMEM_MOVEABLE: u32 = 0x2;
/// en-US, what CF_LOCALE holds for text the program did not tag (the user's locale).
const LOCALE_EN_US: u32 = 0x0409;

#[derive(Default)]
struct Clip {
    /// The thread that has the clipboard open, and the window it named.
    open: Option<(u32, u32)>,
    owner: u32,
    /// Formats in the order they were set, each with its handle (0: never set as
    /// data, only synthesized).
    data: Vec<(u32, u32)>,
    /// Synthesized formats' handles, made on first request.
    synthesized: Vec<(u32, u32)>,
    /// The other text formats (and CF_LOCALE) are offered from the first
    /// CloseClipboard after text was set, not while the setter still has it open
    /// (what Wine does; Windows renders them at that close).
    synth_ready: bool,
    sequence: u32,
}

#[derive(Default)]
struct State(Mutex<Clip>);

fn clip(cx: &Ctx) -> Arc<State> {
    cx.proc.slot::<State>()
}

fn set_error(cx: &mut Ctx, e: u32) -> ApiResult<()> {
    crate::teb::set_last_error(cx, e)
}

fn is_text(f: u32) -> bool {
    matches!(f, CF_TEXT | CF_OEMTEXT | CF_UNICODETEXT)
}

impl Clip {
    fn has(&self, f: u32) -> bool {
        self.data.iter().any(|&(g, _)| g == f)
    }

    /// The text format set first, which the others are made from.
    fn text_source(&self) -> Option<(u32, u32)> {
        self.data.iter().copied().find(|&(f, _)| is_text(f))
    }

    /// Every available format: those set, in order, then the synthesized ones in
    /// the order Windows lists them (CF_LOCALE, then the missing text formats).
    fn formats(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.data.iter().map(|&(f, _)| f).collect();
        if self.synth_ready && self.text_source().is_some() {
            for f in [CF_LOCALE, CF_TEXT, CF_OEMTEXT, CF_UNICODETEXT] {
                if !v.contains(&f) {
                    v.push(f);
                }
            }
        }
        v
    }

    fn opened_by(&self, tid: u32) -> bool {
        self.open.is_some_and(|(t, _)| t == tid)
    }
}

/// The handles the clipboard frees when emptied.
fn drop_all(cx: &mut Ctx, c: &mut Clip) -> ApiResult<()> {
    let handles: Vec<u32> = c
        .data
        .drain(..)
        .chain(c.synthesized.drain(..))
        .map(|(_, h)| h)
        .filter(|&h| h != 0)
        .collect();
    for h in handles {
        GlobalFree(cx, h)?;
    }
    Ok(())
}

pub fn OpenClipboard(cx: &mut Ctx, hWndNewOwner: u32) -> ApiResult<bool> {
    let st = clip(cx);
    let mut c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    let tid = cx.thread.tid;
    match c.open {
        Some((t, _)) if t != tid => {
            drop(c);
            set_error(cx, ERROR_ACCESS_DENIED)?;
            Ok(false)
        }
        _ => {
            c.open = Some((tid, hWndNewOwner));
            Ok(true)
        }
    }
}

pub fn CloseClipboard(cx: &mut Ctx) -> ApiResult<bool> {
    let st = clip(cx);
    let mut c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    if !c.opened_by(cx.thread.tid) {
        drop(c);
        set_error(cx, ERROR_CLIPBOARD_NOT_OPEN)?;
        return Ok(false);
    }
    c.open = None;
    c.synth_ready = c.text_source().is_some();
    Ok(true)
}

pub fn EmptyClipboard(cx: &mut Ctx) -> ApiResult<bool> {
    let st = clip(cx);
    let mut c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    let Some((_, hwnd)) = c.open.filter(|&(t, _)| t == cx.thread.tid) else {
        drop(c);
        set_error(cx, ERROR_CLIPBOARD_NOT_OPEN)?;
        return Ok(false);
    };
    drop_all(cx, &mut c)?;
    c.synth_ready = false;
    c.owner = hwnd;
    c.sequence = c.sequence.wrapping_add(1);
    Ok(true)
}

pub fn SetClipboardData(cx: &mut Ctx, uFormat: u32, hMem: u32) -> ApiResult<u32> {
    let st = clip(cx);
    let mut c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    if !c.opened_by(cx.thread.tid) {
        drop(c);
        set_error(cx, ERROR_CLIPBOARD_NOT_OPEN)?;
        return Ok(0);
    }
    if hMem == 0 {
        // Delayed rendering: the owner would be sent WM_RENDERFORMAT when someone
        // asks. Not built; say so rather than promise data that never comes.
        log::warn!(
            "SetClipboardData({uFormat:#x}, NULL): delayed rendering is not implemented; \
             the format is not set"
        );
        drop(c);
        set_error(cx, ERROR_ACCESS_DENIED)?;
        return Ok(0);
    }
    let mut old: Vec<u32> = Vec::new();
    if let Some(k) = c.data.iter().position(|&(f, _)| f == uFormat) {
        old.push(c.data.remove(k).1);
    }
    // New text makes every synthesized copy stale.
    if is_text(uFormat) || uFormat == CF_LOCALE {
        old.extend(c.synthesized.drain(..).map(|(_, h)| h));
        c.synth_ready = false;
    }
    c.data.push((uFormat, hMem));
    c.sequence = c.sequence.wrapping_add(1);
    for h in old.into_iter().filter(|&h| h != 0 && h != hMem) {
        GlobalFree(cx, h)?;
    }
    Ok(hMem)
}

/// The text of global memory handle `h` in format `f`, up to its NUL.
fn read_text(cx: &mut Ctx, f: u32, h: u32) -> ApiResult<Vec<u16>> {
    let size = GlobalSize(cx, h)?;
    let p = GlobalLock(cx, h)?;
    let mut out = Vec::new();
    if p != 0 {
        if f == CF_UNICODETEXT {
            for k in 0..size / 2 {
                let u = cx.proc.mem.read_u16(p + 2 * k)?;
                if u == 0 {
                    break;
                }
                out.push(u);
            }
        } else {
            let cp = if f == CF_OEMTEXT {
                CodePage::Oem437
            } else {
                CodePage::Ansi1252
            };
            for k in 0..size {
                let b = cx.proc.mem.read_u8(p + k)?;
                if b == 0 {
                    break;
                }
                out.push(byte_to_unicode(cp, b));
            }
        }
        GlobalUnlock(cx, h)?;
    }
    Ok(out)
}

/// A new moveable block holding `bytes`.
fn global_with(cx: &mut Ctx, bytes: &[u8]) -> ApiResult<u32> {
    let h = GlobalAlloc(cx, GMEM_MOVEABLE, bytes.len() as u32)?;
    if h == 0 {
        return Ok(0);
    }
    let p = GlobalLock(cx, h)?;
    cx.proc.mem.write_bytes(p, bytes)?;
    GlobalUnlock(cx, h)?;
    Ok(h)
}

/// Makes format `f` from the text set (or CF_LOCALE).
fn synthesize(cx: &mut Ctx, c: &Clip, f: u32) -> ApiResult<u32> {
    if f == CF_LOCALE {
        return global_with(cx, &LOCALE_EN_US.to_le_bytes());
    }
    let Some((src, h)) = c.text_source() else {
        return Ok(0);
    };
    let text = read_text(cx, src, h)?;
    let bytes: Vec<u8> = match f {
        CF_UNICODETEXT => text
            .iter()
            .chain(std::iter::once(&0))
            .flat_map(|u| u.to_le_bytes())
            .collect(),
        _ => {
            let cp = if f == CF_OEMTEXT {
                CodePage::Oem437
            } else {
                CodePage::Ansi1252
            };
            text.iter()
                .map(|&u| unicode_to_byte(cp, u).unwrap_or(b'?'))
                .chain(std::iter::once(0))
                .collect()
        }
    };
    global_with(cx, &bytes)
}

pub fn GetClipboardData(cx: &mut Ctx, uFormat: u32) -> ApiResult<u32> {
    let st = clip(cx);
    let mut c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    if !c.opened_by(cx.thread.tid) {
        drop(c);
        set_error(cx, ERROR_CLIPBOARD_NOT_OPEN)?;
        return Ok(0);
    }
    if let Some(&(_, h)) = c.data.iter().find(|&&(f, _)| f == uFormat) {
        return Ok(h);
    }
    if let Some(&(_, h)) = c.synthesized.iter().find(|&&(f, _)| f == uFormat) {
        return Ok(h);
    }
    if !c.formats().contains(&uFormat) {
        return Ok(0);
    }
    let h = synthesize(cx, &c, uFormat)?;
    if h != 0 {
        c.synthesized.push((uFormat, h));
    }
    Ok(h)
}

pub fn IsClipboardFormatAvailable(cx: &mut Ctx, format: u32) -> ApiResult<bool> {
    let st = clip(cx);
    let c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    Ok(c.has(format) || c.formats().contains(&format))
}

pub fn CountClipboardFormats(cx: &mut Ctx) -> ApiResult<u32> {
    let st = clip(cx);
    let c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    Ok(c.formats().len() as u32)
}

pub fn EnumClipboardFormats(cx: &mut Ctx, format: u32) -> ApiResult<u32> {
    let st = clip(cx);
    let c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    if !c.opened_by(cx.thread.tid) {
        drop(c);
        set_error(cx, ERROR_CLIPBOARD_NOT_OPEN)?;
        return Ok(0);
    }
    let list = c.formats();
    drop(c);
    let next = if format == 0 {
        list.first().copied()
    } else {
        list.iter()
            .position(|&f| f == format)
            .and_then(|k| list.get(k + 1).copied())
    };
    // 0 with ERROR_SUCCESS marks the end of the list (an error leaves its code).
    set_error(cx, 0)?;
    Ok(next.unwrap_or(0))
}

/// The first format of `paFormatPriorityList` that is available; 0 when the
/// clipboard is empty, -1 when it holds none of them.
pub fn GetPriorityClipboardFormat(
    cx: &mut Ctx,
    paFormatPriorityList: u32,
    cFormats: i32,
) -> ApiResult<i32> {
    let st = clip(cx);
    let list = st.0.lock().unwrap_or_else(|e| e.into_inner()).formats();
    if list.is_empty() {
        return Ok(0);
    }
    for k in 0..cFormats.max(0) as u32 {
        let f = cx.proc.mem.read_u32(paFormatPriorityList + 4 * k)?;
        if list.contains(&f) {
            return Ok(f as i32);
        }
    }
    Ok(-1)
}

pub fn GetClipboardOwner(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(clip(cx).0.lock().unwrap_or_else(|e| e.into_inner()).owner)
}

pub fn GetOpenClipboardWindow(cx: &mut Ctx) -> ApiResult<u32> {
    let st = clip(cx);
    let c = st.0.lock().unwrap_or_else(|e| e.into_inner());
    Ok(c.open.map_or(0, |(_, w)| w))
}

pub fn GetClipboardSequenceNumber(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(clip(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .sequence)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("OpenClipboard", OpenClipboard),
        stdcall("CloseClipboard", CloseClipboard),
        stdcall("EmptyClipboard", EmptyClipboard),
        stdcall("SetClipboardData", SetClipboardData),
        stdcall("GetClipboardData", GetClipboardData),
        stdcall("IsClipboardFormatAvailable", IsClipboardFormatAvailable),
        stdcall("CountClipboardFormats", CountClipboardFormats),
        stdcall("EnumClipboardFormats", EnumClipboardFormats),
        stdcall("GetPriorityClipboardFormat", GetPriorityClipboardFormat),
        stdcall("GetClipboardOwner", GetClipboardOwner),
        stdcall("GetOpenClipboardWindow", GetOpenClipboardWindow),
        stdcall("GetClipboardSequenceNumber", GetClipboardSequenceNumber),
    ]
}
