//! Property sheets (comctl32 5.8): PropertySheetA/W, modal and PSH_MODELESS, and
//! CreatePropertySheetPageA/W / DestroyPropertySheetPage.
//!
//! The sheet is a dialog (class #32770) created from an in-memory template through
//! USER32's CreateDialogIndirectParam, with COMCTL32's own dialog procedure
//! ([`sheet_proc`], behind the export `PropertySheetDlgProc`). It holds a tab control
//! (ID 0x3020), the OK / Cancel / Apply / Help buttons (wizards: Back / Next / Finish /
//! Cancel / Help) and the pages, each a child dialog created from its template
//! (resource or PSP_DLGINDIRECT) when it is first shown. Pages get the PSN_
//! notifications with their answers read from DWLP_MSGRESULT; the PSM_ messages,
//! the sheet callback (PSCB_PRECREATE / PSCB_INITIALIZED) and the page callbacks
//! (PSPCB_ADDREF / CREATE / RELEASE) follow the documentation.

use super::header::{le32, notify_to};
use crate::gdi32::Rect;
use crate::hle::{ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr};
use crate::user32::msg::*;
use crate::user32::window::{self, Create};
use crate::user32::wm::{self, WS_CHILD, WS_TABSTOP, WS_VISIBLE};
use crate::user32::{Flow, NameOrId, UR, fin, lock_wm};
use std::collections::HashMap;
use std::sync::Mutex;

const PSH_PROPTITLE: u32 = 0x1;
const PSH_PROPSHEETPAGE: u32 = 0x8;
const PSH_WIZARDHASFINISH: u32 = 0x10;
const PSH_WIZARD: u32 = 0x20;
const PSH_USEPSTARTPAGE: u32 = 0x40;
const PSH_NOAPPLYNOW: u32 = 0x80;
const PSH_USECALLBACK: u32 = 0x100;
const PSH_HASHELP: u32 = 0x200;
const PSH_MODELESS: u32 = 0x400;
const PSH_WIZARD97: u32 = 0x0100_0000;
const PSH_WIZARD_LITE: u32 = 0x0040_0000;

const PSP_DLGINDIRECT: u32 = 0x1;
const PSP_USETITLE: u32 = 0x8;
const PSP_USECALLBACK: u32 = 0x80;
const PSP_PREMATURE: u32 = 0x400;

/// PROPSHEETHEADER_V1_SIZE and PROPSHEETPAGE_V1_SIZE: the smallest sizes accepted.
const PSH_V1_SIZE: u32 = 40;
const PSP_V1_SIZE: u32 = 40;
/// The largest PROPSHEETPAGE COMCTL32 reads fields of (V3, with hActCtx).
const PSP_V3_SIZE: u32 = 52;

const PSCB_INITIALIZED: u32 = 1;
const PSCB_PRECREATE: u32 = 2;
const PSPCB_ADDREF: u32 = 0;
const PSPCB_RELEASE: u32 = 1;
const PSPCB_CREATE: u32 = 2;

const PSN_SETACTIVE: i32 = -200;
const PSN_KILLACTIVE: i32 = -201;
const PSN_APPLY: i32 = -202;
const PSN_RESET: i32 = -203;
const PSN_HELP: i32 = -205;
const PSN_WIZBACK: i32 = -206;
const PSN_WIZNEXT: i32 = -207;
const PSN_WIZFINISH: i32 = -208;
const PSN_QUERYCANCEL: i32 = -209;
const PSNRET_INVALID: u32 = 1;
const PSNRET_INVALID_NOCHANGEPAGE: u32 = 2;

const PSM_SETCURSEL: u32 = WM_USER + 101;
const PSM_REMOVEPAGE: u32 = WM_USER + 102;
const PSM_ADDPAGE: u32 = WM_USER + 103;
const PSM_CHANGED: u32 = WM_USER + 104;
const PSM_RESTARTWINDOWS: u32 = WM_USER + 105;
const PSM_REBOOTSYSTEM: u32 = WM_USER + 106;
const PSM_CANCELTOCLOSE: u32 = WM_USER + 107;
const PSM_QUERYSIBLINGS: u32 = WM_USER + 108;
const PSM_UNCHANGED: u32 = WM_USER + 109;
const PSM_APPLY: u32 = WM_USER + 110;
const PSM_SETTITLEA: u32 = WM_USER + 111;
const PSM_SETWIZBUTTONS: u32 = WM_USER + 112;
const PSM_PRESSBUTTON: u32 = WM_USER + 113;
const PSM_SETCURSELID: u32 = WM_USER + 114;
const PSM_SETFINISHTEXTA: u32 = WM_USER + 115;
const PSM_GETTABCONTROL: u32 = WM_USER + 116;
const PSM_ISDIALOGMESSAGE: u32 = WM_USER + 117;
const PSM_GETCURRENTPAGEHWND: u32 = WM_USER + 118;
const PSM_INSERTPAGE: u32 = WM_USER + 119;
const PSM_SETTITLEW: u32 = WM_USER + 120;
const PSM_SETFINISHTEXTW: u32 = WM_USER + 121;
const PSM_SETHEADERTITLEA: u32 = WM_USER + 125;
const PSM_SETHEADERSUBTITLEW: u32 = WM_USER + 128;
const PSM_HWNDTOINDEX: u32 = WM_USER + 129;
const PSM_INDEXTOHWND: u32 = WM_USER + 130;
const PSM_PAGETOINDEX: u32 = WM_USER + 131;
const PSM_INDEXTOPAGE: u32 = WM_USER + 132;
const PSM_IDTOINDEX: u32 = WM_USER + 133;
const PSM_INDEXTOID: u32 = WM_USER + 134;
const PSM_GETRESULT: u32 = WM_USER + 135;
const PSM_RECALCPAGESIZES: u32 = WM_USER + 136;

const PSWIZB_BACK: u32 = 1;
const PSWIZB_NEXT: u32 = 2;
const PSWIZB_FINISH: u32 = 4;
const PSWIZB_DISABLEDFINISH: u32 = 8;

const PSBTN_BACK: u32 = 0;
const PSBTN_NEXT: u32 = 1;
const PSBTN_FINISH: u32 = 2;
const PSBTN_OK: u32 = 3;
const PSBTN_APPLYNOW: u32 = 4;
const PSBTN_CANCEL: u32 = 5;
const PSBTN_HELP: u32 = 6;

const ID_PSRESTARTWINDOWS: u32 = 2;
const ID_PSREBOOTSYSTEM: u32 = 3;

const IDOK: u32 = 1;
const IDCANCEL: u32 = 2;
const IDHELP: u32 = 9;
const IDC_TABCONTROL: u32 = 0x3020;
const IDC_APPLY_BUTTON: u32 = 0x3021;
const IDC_BACK_BUTTON: u32 = 0x3023;
const IDC_NEXT_BUTTON: u32 = 0x3024;
const IDC_FINISH_BUTTON: u32 = 0x3025;

const DS_MODALFRAME: u32 = 0x80;
const DS_3DLOOK: u32 = 0x4;
const DS_CONTROL: u32 = 0x400;
const DS_CONTEXTHELP: u32 = 0x2000;
const WS_EX_CONTROLPARENT: u32 = 0x1_0000;
const BS_DEFPUSHBUTTON: u32 = 1;

/// Sheet layout in pixels: the margin round the tab control and the buttons, the
/// buttons' size (50 x 14 dialog units) and the gap between them.
const MARGIN: i32 = 7;
const BUTTON_W: i32 = 75;
const BUTTON_H: i32 = 23;
const BUTTON_GAP: i32 = 6;

/// A page handle's data. The handle is the address of COMCTL32's copy of the
/// caller's PROPSHEETPAGE (which is what the page's WM_INITDIALOG and callbacks get).
struct PageDef {
    unicode: bool,
}

#[derive(Default)]
struct PageDefs(Mutex<HashMap<u32, PageDef>>);

struct Page {
    hpage: u32,
    hwnd: u32,
    title: String,
    /// Template size in pixels.
    size: (i32, i32),
}

struct Sheet {
    hwnd: u32,
    flags: u32,
    hinst: u32,
    callback: u32,
    caption: String,
    pages: Vec<Page>,
    start: usize,
    cur: i32,
    tab: u32,
    /// Page windows that said PSM_CHANGED.
    changed: Vec<u32>,
    applied: bool,
    restart: u32,
    done: Option<u32>,
    /// The pages' area in sheet client coordinates.
    page_rect: Rect,
}

#[derive(Default)]
struct Sheets {
    live: Mutex<HashMap<u32, Sheet>>,
    /// Sheets being created, by the key passed as the dialog's init parameter.
    pending: Mutex<HashMap<u32, Sheet>>,
    next_key: Mutex<u32>,
}

fn sheets(cx: &Ctx) -> std::sync::Arc<Sheets> {
    cx.proc.slot::<Sheets>()
}

fn with<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut Sheet) -> R) -> Option<R> {
    let s = sheets(cx);
    let mut m = s.live.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(&h).map(f)
}

fn rd(cx: &Ctx, a: u32) -> UR<u32> {
    Ok(cx.proc.mem.read_u32(a)?)
}

fn ret(o: Outcome) -> UR<u32> {
    match o {
        Outcome::Return(v) => Ok(v as u32),
        o => Err(Flow::End(o)),
    }
}

fn heap(cx: &Ctx) -> UR<std::sync::Arc<crate::kernel32::heap::Heap>> {
    Ok(crate::kernel32::heap::process_heap(cx.proc)?)
}

// ---- pages -------------------------------------------------------------------------------

/// CreatePropertySheetPage's work: copies the PROPSHEETPAGE (all dwSize bytes: a
/// program may append its own data) and sends PSPCB_ADDREF.
fn create_page(cx: &mut Ctx, psp: u32, unicode: bool) -> UR<u32> {
    if psp == 0 {
        return Ok(0);
    }
    let size = rd(cx, psp)?;
    if !(PSP_V1_SIZE..=0x1_0000).contains(&size) {
        return Ok(0);
    }
    let copy = heap(cx)?.alloc(size.max(PSP_V3_SIZE), true)?;
    if copy == 0 {
        return Ok(0);
    }
    let mut b = vec![0u8; size as usize];
    cx.proc.mem.read_bytes(psp, &mut b)?;
    cx.proc.mem.write_bytes(copy, &b)?;
    cx.proc
        .slot::<PageDefs>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(copy, PageDef { unicode });
    page_callback(cx, copy, 0, PSPCB_ADDREF)?;
    Ok(copy)
}

fn page_callback(cx: &mut Ctx, hpage: u32, hwnd: u32, msg: u32) -> UR<u32> {
    let flags = rd(cx, hpage + 4)?;
    let cb = rd(cx, hpage + 32)?;
    if flags & PSP_USECALLBACK == 0 || cb == 0 {
        return Ok(1);
    }
    crate::user32::guest(cx, cb, &[hwnd, msg, hpage])
}

fn destroy_page(cx: &mut Ctx, hpage: u32) -> UR<bool> {
    let known = cx
        .proc
        .slot::<PageDefs>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&hpage)
        .is_some();
    if !known {
        return Ok(false);
    }
    page_callback(cx, hpage, 0, PSPCB_RELEASE)?;
    heap(cx)?.free(hpage);
    Ok(true)
}

fn page_unicode(cx: &Ctx, hpage: u32) -> bool {
    cx.proc
        .slot::<PageDefs>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&hpage)
        .is_some_and(|d| d.unicode)
}

/// A string argument that is text or a string resource ID of `hinst`.
fn str_or_res(cx: &mut Ctx, hinst: u32, p: u32, unicode: bool) -> UR<String> {
    if p == 0 {
        return Ok(String::new());
    }
    if p >> 16 != 0 {
        return Ok(crate::user32::read_str(cx, p, unicode)?);
    }
    let (buf, esp) = crate::user32::stack_alloc(cx, 512);
    let r = (|| -> UR<String> {
        let n = crate::user32::res::LoadString::<WStrPtr>(cx, hinst, p, buf, 256)?;
        Ok(crate::user32::read_str_n(cx, buf, n.max(0), true)?)
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// The page's dialog template: its address and whether COMCTL32 allocated it
/// (a copy of a resource, which the style patch must not write into).
fn page_template(cx: &mut Ctx, hpage: u32) -> UR<Option<(u32, bool)>> {
    let flags = rd(cx, hpage + 4)?;
    let t = rd(cx, hpage + 12)?;
    if flags & PSP_DLGINDIRECT != 0 {
        return Ok((t != 0).then_some((t, false)));
    }
    let hinst = rd(cx, hpage + 8)?;
    let base = if hinst == 0 {
        crate::user32::program_base(cx.proc)
    } else {
        hinst
    };
    let name = crate::user32::str_or_atom(cx, t, page_unicode(cx, hpage))?;
    let id = match &name {
        NameOrId::Id(i) => crate::loader::resources::ResId::Id(*i),
        NameOrId::Name(s) => crate::loader::resources::ResId::from_name(s),
    };
    let Some((rva, size)) = crate::loader::resources::find_resource(
        cx.proc,
        base,
        &crate::loader::resources::ResId::Id(5),
        &id,
        None,
    ) else {
        log::warn!("property sheet page template {name:?} not found");
        return Ok(None);
    };
    let copy = heap(cx)?.alloc(size.max(4), false)?;
    if copy == 0 {
        return Ok(None);
    }
    let mut b = vec![0u8; size as usize];
    cx.proc.mem.read_bytes(base + rva, &mut b)?;
    cx.proc.mem.write_bytes(copy, &b)?;
    Ok(Some((copy, true)))
}

/// (offset of style, offset of the extended style, offset of x) in a DLGTEMPLATE(EX).
fn template_layout(cx: &Ctx, t: u32) -> UR<(u32, u32, u32)> {
    let ex = cx.proc.mem.read_u16(t)? == 1 && cx.proc.mem.read_u16(t + 2)? == 0xffff;
    Ok(if ex { (12, 8, 18) } else { (0, 4, 10) })
}

/// Skips a sz_Or_Ord field.
fn skip_sz(cx: &Ctx, mut a: u32) -> UR<u32> {
    match cx.proc.mem.read_u16(a)? {
        0 => Ok(a + 2),
        0xffff => Ok(a + 4),
        _ => {
            for _ in 0..4096 {
                if cx.proc.mem.read_u16(a)? == 0 {
                    break;
                }
                a += 2;
            }
            Ok(a + 2)
        }
    }
}

/// The template's size in pixels (dialog units of the 8-point dialog font, 6 x 13
/// pixels per 4 x 8 units, as USER32 lays dialogs out) and its caption.
fn template_info(cx: &Ctx, t: u32) -> UR<((i32, i32), String)> {
    let (_, _, xo) = template_layout(cx, t)?;
    let m = &cx.proc.mem;
    let w = m.read_u16(t + xo + 4)? as i16 as i32;
    let h = m.read_u16(t + xo + 6)? as i16 as i32;
    let a = skip_sz(cx, t + xo + 8)?;
    let a = skip_sz(cx, a)?;
    let title = if m.read_u16(a)? == 0 {
        String::new()
    } else {
        crate::user32::read_str(cx, a, true)?
    };
    Ok(((w * 6 / 4, h * 13 / 8), title))
}

fn page_title(cx: &mut Ctx, hpage: u32) -> UR<(String, (i32, i32))> {
    let flags = rd(cx, hpage + 4)?;
    let unicode = page_unicode(cx, hpage);
    let (size, caption) = match page_template(cx, hpage)? {
        Some((t, owned)) => {
            let r = template_info(cx, t)?;
            if owned {
                heap(cx)?.free(t);
            }
            r
        }
        None => ((0, 0), String::new()),
    };
    let title = if flags & PSP_USETITLE != 0 {
        let hinst = rd(cx, hpage + 8)?;
        let p = rd(cx, hpage + 20)?;
        str_or_res(cx, hinst, p, unicode)?
    } else {
        caption
    };
    Ok((title, size))
}

/// Creates page `i`'s window (PSPCB_CREATE first; the callback may refuse).
fn create_page_window(cx: &mut Ctx, sheet: u32, i: usize) -> UR<u32> {
    let Some((hpage, hwnd, rect)) = with(cx, sheet, |s| {
        s.pages.get(i).map(|p| (p.hpage, p.hwnd, s.page_rect))
    })
    .flatten() else {
        return Ok(0);
    };
    if hwnd != 0 {
        return Ok(hwnd);
    }
    if page_callback(cx, hpage, 0, PSPCB_CREATE)? == 0 {
        return Ok(0);
    }
    let Some((t, owned)) = page_template(cx, hpage)? else {
        return Ok(0);
    };
    // Pages are child controls of the sheet whatever their template says.
    let (so, eo, _) = template_layout(cx, t)?;
    let style = rd(cx, t + so)?;
    let exstyle = rd(cx, t + eo)?;
    let new_style = (style | WS_CHILD | DS_CONTROL | WS_TABSTOP)
        & !(DS_MODALFRAME
            | wm::WS_CAPTION
            | wm::WS_SYSMENU
            | wm::WS_POPUP
            | wm::WS_DISABLED
            | WS_VISIBLE
            | wm::WS_THICKFRAME);
    cx.proc.mem.write_u32(t + so, new_style)?;
    cx.proc
        .mem
        .write_u32(t + eo, exstyle | WS_EX_CONTROLPARENT)?;
    let hinst = rd(cx, hpage + 8)?;
    let dlgproc = rd(cx, hpage + 24)?;
    let created = if page_unicode(cx, hpage) {
        crate::user32::dialog::CreateDialogIndirectParam::<WStrPtr>(
            cx, hinst, t, sheet, dlgproc, hpage,
        )
    } else {
        crate::user32::dialog::CreateDialogIndirectParam::<CStrPtr>(
            cx, hinst, t, sheet, dlgproc, hpage,
        )
    };
    if owned {
        heap(cx)?.free(t);
    } else {
        cx.proc.mem.write_u32(t + so, style)?;
        cx.proc.mem.write_u32(t + eo, exstyle)?;
    }
    let hwnd = ret(created?)?;
    if hwnd == 0 {
        return Ok(0);
    }
    window::set_window_pos(
        cx,
        hwnd,
        0,
        rect.left,
        rect.top,
        rect.width(),
        rect.height(),
        window::SWP_NOZORDER | window::SWP_NOACTIVATE,
    )?;
    with(cx, sheet, |s| {
        if let Some(p) = s.pages.get_mut(i) {
            p.hwnd = hwnd;
        }
    });
    Ok(hwnd)
}

// ---- notifications to pages --------------------------------------------------------

/// A PSN_ notification (PSHNOTIFY: NMHDR from the sheet, ID 0, and `lparam`) to a
/// page; its answer (DWLP_MSGRESULT).
fn psn(cx: &mut Ctx, sheet: u32, page: u32, code: i32, lparam: u32) -> UR<u32> {
    if page == 0 {
        return Ok(0);
    }
    Ok(notify_to(cx, page, sheet, 0, code, &le32(&[lparam]))?.0)
}

fn page_hwnd(cx: &Ctx, sheet: u32, i: i32) -> u32 {
    with(cx, sheet, |s| {
        if i < 0 {
            0
        } else {
            s.pages.get(i as usize).map_or(0, |p| p.hwnd)
        }
    })
    .unwrap_or(0)
}

fn created_pages(cx: &Ctx, sheet: u32) -> Vec<u32> {
    with(cx, sheet, |s| {
        s.pages.iter().map(|p| p.hwnd).filter(|&h| h != 0).collect()
    })
    .unwrap_or_default()
}

/// The sheet's child with control ID `id`.
fn item(cx: &Ctx, sheet: u32, id: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(sheet)
        .and_then(|w| {
            w.children
                .iter()
                .copied()
                .find(|&c| wm.win(c).is_some_and(|cw| cw.id == id))
        })
        .unwrap_or(0)
}

fn enable(cx: &mut Ctx, h: u32, on: bool) -> UR<()> {
    if h != 0 {
        ret(window::EnableWindow(cx, h, on)?)?;
    }
    Ok(())
}

fn show(cx: &mut Ctx, h: u32, on: bool) -> UR<()> {
    if h != 0 {
        window::show_window(cx, h, if on { 5 } else { 0 })?;
    }
    Ok(())
}

/// Shows page `i` after the old one agreed to go (PSN_KILLACTIVE already sent when
/// `killed`): creates it, PSN_SETACTIVE, switches the visible page and the tab.
fn activate(cx: &mut Ctx, sheet: u32, i: usize, killed: bool) -> UR<bool> {
    let Some((cur, n, tab)) = with(cx, sheet, |s| (s.cur, s.pages.len(), s.tab)) else {
        return Ok(false);
    };
    if i >= n {
        return Ok(false);
    }
    let old = page_hwnd(cx, sheet, cur);
    if !killed && old != 0 && cur != i as i32 && psn(cx, sheet, old, PSN_KILLACTIVE, 0)? != 0 {
        return Ok(false);
    }
    let new = create_page_window(cx, sheet, i)?;
    if new == 0 {
        return Ok(false);
    }
    let r = psn(cx, sheet, new, PSN_SETACTIVE, 0)?;
    if r == u32::MAX {
        // The page refused; the old one stays.
        if tab != 0 && cur >= 0 {
            crate::user32::msg::send(cx, tab, super::tab::TCM_SETCURSEL, cur as u32, 0, true)?;
        }
        return Ok(false);
    }
    with(cx, sheet, |s| s.cur = i as i32);
    if tab != 0 {
        crate::user32::msg::send(cx, tab, super::tab::TCM_SETCURSEL, i as u32, 0, true)?;
    }
    show(cx, new, true)?;
    if old != 0 && old != new {
        show(cx, old, false)?;
    }
    Ok(true)
}

/// Apply: PSN_KILLACTIVE to the current page, PSN_APPLY to every page created;
/// `ok` says the sheet closes afterwards.
fn apply(cx: &mut Ctx, sheet: u32, ok: bool) -> UR<bool> {
    let cur = with(cx, sheet, |s| s.cur).unwrap_or(-1);
    let cur_h = page_hwnd(cx, sheet, cur);
    if psn(cx, sheet, cur_h, PSN_KILLACTIVE, 0)? != 0 {
        return Ok(false);
    }
    for (k, p) in created_pages(cx, sheet).into_iter().enumerate() {
        let r = psn(cx, sheet, p, PSN_APPLY, ok as u32)?;
        if r == PSNRET_INVALID || r == PSNRET_INVALID_NOCHANGEPAGE {
            if r == PSNRET_INVALID {
                let idx = with(cx, sheet, |s| s.pages.iter().position(|x| x.hwnd == p))
                    .flatten()
                    .unwrap_or(k);
                activate(cx, sheet, idx, true)?;
            }
            return Ok(false);
        }
    }
    with(cx, sheet, |s| {
        s.changed.clear();
        s.applied = true;
    });
    let a = item(cx, sheet, IDC_APPLY_BUTTON);
    enable(cx, a, false)?;
    if !ok {
        psn(cx, sheet, cur_h, PSN_SETACTIVE, 0)?;
    }
    Ok(true)
}

fn finish(cx: &mut Ctx, sheet: u32, result: u32) {
    with(cx, sheet, |s| {
        let r = if result != 0 && s.restart != 0 {
            s.restart
        } else {
            result
        };
        s.done = Some(r);
    });
    // Wakes a modal loop waiting for messages.
    post(cx, sheet, WM_NULL, 0, 0);
}

fn cancel(cx: &mut Ctx, sheet: u32) -> UR<()> {
    let cur = with(cx, sheet, |s| s.cur).unwrap_or(-1);
    let cur_h = page_hwnd(cx, sheet, cur);
    if psn(cx, sheet, cur_h, PSN_QUERYCANCEL, 0)? != 0 {
        return Ok(());
    }
    for p in created_pages(cx, sheet) {
        psn(cx, sheet, p, PSN_RESET, 0)?;
    }
    let applied = with(cx, sheet, |s| s.applied).unwrap_or(false);
    finish(cx, sheet, applied as u32);
    Ok(())
}

fn wizard_step(cx: &mut Ctx, sheet: u32, back: bool) -> UR<()> {
    let (cur, n) = with(cx, sheet, |s| (s.cur, s.pages.len() as i32)).unwrap_or((-1, 0));
    let cur_h = page_hwnd(cx, sheet, cur);
    let code = if back { PSN_WIZBACK } else { PSN_WIZNEXT };
    let r = psn(cx, sheet, cur_h, code, 0)?;
    let target = match r {
        u32::MAX => return Ok(()),
        0 => {
            if back {
                cur - 1
            } else {
                cur + 1
            }
        }
        id => index_of_id(cx, sheet, id)?,
    };
    if target >= 0 && target < n {
        activate(cx, sheet, target as usize, false)?;
    }
    Ok(())
}

/// The index of the page whose template resource ID is `id` (PSM_IDTOINDEX).
fn index_of_id(cx: &Ctx, sheet: u32, id: u32) -> UR<i32> {
    let hpages: Vec<u32> =
        with(cx, sheet, |s| s.pages.iter().map(|p| p.hpage).collect()).unwrap_or_default();
    for (i, hp) in hpages.into_iter().enumerate() {
        if rd(cx, hp + 4)? & PSP_DLGINDIRECT == 0 && rd(cx, hp + 12)? == id {
            return Ok(i as i32);
        }
    }
    Ok(-1)
}

fn command(cx: &mut Ctx, sheet: u32, id: u32) -> UR<()> {
    match id {
        IDOK if apply(cx, sheet, true)? => finish(cx, sheet, 1),
        IDCANCEL => cancel(cx, sheet)?,
        IDC_APPLY_BUTTON => {
            apply(cx, sheet, false)?;
        }
        IDHELP => {
            let cur = with(cx, sheet, |s| s.cur).unwrap_or(-1);
            let h = page_hwnd(cx, sheet, cur);
            psn(cx, sheet, h, PSN_HELP, 0)?;
        }
        IDC_BACK_BUTTON => wizard_step(cx, sheet, true)?,
        IDC_NEXT_BUTTON => wizard_step(cx, sheet, false)?,
        IDC_FINISH_BUTTON => {
            let cur = with(cx, sheet, |s| s.cur).unwrap_or(-1);
            let h = page_hwnd(cx, sheet, cur);
            // Wizard pages get no PSN_APPLY on Finish (as Wine 8 shows).
            if psn(cx, sheet, h, PSN_WIZFINISH, 0)? == 0 {
                finish(cx, sheet, 1);
            }
        }
        _ => {}
    }
    Ok(())
}

fn set_wiz_buttons(cx: &mut Ctx, sheet: u32, flags: u32) -> UR<()> {
    let back = item(cx, sheet, IDC_BACK_BUTTON);
    let next = item(cx, sheet, IDC_NEXT_BUTTON);
    let fin_b = item(cx, sheet, IDC_FINISH_BUTTON);
    let has_finish = with(cx, sheet, |s| s.flags & PSH_WIZARDHASFINISH != 0).unwrap_or(false);
    enable(cx, back, flags & PSWIZB_BACK != 0)?;
    enable(cx, next, flags & PSWIZB_NEXT != 0)?;
    let finishing = flags & (PSWIZB_FINISH | PSWIZB_DISABLEDFINISH) != 0;
    if has_finish {
        show(cx, fin_b, true)?;
        enable(cx, fin_b, flags & PSWIZB_FINISH != 0)?;
    } else {
        // Finish takes Next's place on the last page.
        show(cx, next, !finishing)?;
        show(cx, fin_b, finishing)?;
        enable(cx, fin_b, flags & PSWIZB_FINISH != 0)?;
    }
    Ok(())
}

// ---- the sheet window ----------------------------------------------------------------

fn set_result(cx: &mut Ctx, h: u32, v: u32) -> UR<u32> {
    window::SetWindowLong::<WStrPtr>(cx, h, 0, v)?;
    Ok(1)
}

fn child(
    cx: &mut Ctx,
    sheet: u32,
    class: &str,
    text: &str,
    style: u32,
    id: u32,
    font: u32,
) -> UR<u32> {
    let bytes = crate::user32::str_bytes(text, true);
    let (p, esp) = crate::user32::stack_alloc(cx, bytes);
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, text, true)?;
        let h = window::create_window(
            cx,
            Create {
                exstyle: wm::WS_EX_NOPARENTNOTIFY,
                class: NameOrId::Name(class.into()),
                class_ptr: 0,
                name_ptr: p,
                style: style | WS_CHILD,
                x: 0,
                y: 0,
                w: 10,
                h: 10,
                parent: sheet,
                menu: id,
                instance: 0,
                param: 0,
                unicode: true,
            },
        )?;
        if h != 0 && font != 0 {
            send(cx, h, WM_SETFONT, font, 0, true)?;
        }
        Ok(h)
    })();
    crate::user32::stack_free(cx, esp);
    r
}

fn move_to(cx: &mut Ctx, h: u32, r: Rect) -> UR<()> {
    if h != 0 {
        window::set_window_pos(
            cx,
            h,
            0,
            r.left,
            r.top,
            r.width(),
            r.height(),
            window::SWP_NOZORDER | window::SWP_NOACTIVATE,
        )?;
    }
    Ok(())
}

/// WM_INITDIALOG of the sheet: its controls, the tab items, the layout sized for the
/// largest page, the caption, PSCB_INITIALIZED and the start page.
fn init_sheet(cx: &mut Ctx, h: u32, key: u32) -> UR<u32> {
    let pending = sheets(cx)
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    let Some(mut s) = pending else {
        return Ok(0);
    };
    s.hwnd = h;
    let flags = s.flags;
    let wizard = flags & (PSH_WIZARD | PSH_WIZARD97 | PSH_WIZARD_LITE) != 0;
    let hpages: Vec<u32> = s.pages.iter().map(|p| p.hpage).collect();
    sheets(cx)
        .live
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(h, s);
    let font = crate::user32::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0);
    let tab_style = WS_TABSTOP
        | wm::WS_CLIPSIBLINGS
        | super::tab::TCS_MULTILINE
        | if wizard { 0 } else { WS_VISIBLE };
    let tab = child(
        cx,
        h,
        super::tab::CLASS,
        "",
        tab_style,
        IDC_TABCONTROL,
        font,
    )?;
    let mut buttons: Vec<(u32, bool)> = Vec::new();
    let mk = |text: &str, id: u32| (text.to_string(), id);
    let defs = if wizard {
        vec![
            mk("< &Back", IDC_BACK_BUTTON),
            mk("&Next >", IDC_NEXT_BUTTON),
            mk("Finish", IDC_FINISH_BUTTON),
            mk("Cancel", IDCANCEL),
            mk("&Help", IDHELP),
        ]
    } else {
        vec![
            mk("OK", IDOK),
            mk("Cancel", IDCANCEL),
            mk("&Apply", IDC_APPLY_BUTTON),
            mk("&Help", IDHELP),
        ]
    };
    for (text, id) in defs {
        let visible = match id {
            IDHELP => flags & PSH_HASHELP != 0,
            IDC_APPLY_BUTTON => flags & PSH_NOAPPLYNOW == 0,
            IDC_FINISH_BUTTON => flags & PSH_WIZARDHASFINISH != 0,
            _ => true,
        };
        let style = WS_TABSTOP
            | if visible { WS_VISIBLE } else { 0 }
            | if id == IDOK || id == IDC_NEXT_BUTTON {
                BS_DEFPUSHBUTTON
            } else {
                0
            };
        let b = child(cx, h, "Button", &text, style, id, font)?;
        if id == IDC_APPLY_BUTTON {
            enable(cx, b, false)?;
        }
        buttons.push((id, visible));
    }
    // Titles and sizes of the pages.
    let mut max = (0, 0);
    for (i, hp) in hpages.iter().enumerate() {
        let (title, size) = page_title(cx, *hp)?;
        max = (max.0.max(size.0), max.1.max(size.1));
        super::tab::insert_text(cx, tab, i, &title)?;
        with(cx, h, |s| {
            s.pages[i].title = title;
            s.pages[i].size = size;
        });
    }
    // Layout: the tab control round the pages, the buttons in a row below.
    let page_origin = (MARGIN, MARGIN);
    let (tab_rect, page_rect) = if wizard {
        let pr = Rect::new(MARGIN, MARGIN, MARGIN + max.0, MARGIN + max.1);
        (pr, pr)
    } else {
        // TCM_ADJUSTRECT (larger) gives the tab control's size for the pages' size,
        // once the control has the pages' width its rows wrap at.
        move_to(cx, tab, Rect::new(0, 0, max.0 + 8, max.1 + 8))?;
        let outer = super::tab::adjust(cx, tab, Rect::new(0, 0, max.0, max.1), true)?;
        let tr = Rect::new(
            page_origin.0,
            page_origin.1,
            page_origin.0 + outer.width(),
            page_origin.1 + outer.height(),
        );
        let inner = super::tab::adjust(cx, tab, Rect::new(0, 0, tr.width(), tr.height()), false)?;
        (
            tr,
            Rect::new(
                tr.left + inner.left,
                tr.top + inner.top,
                tr.left + inner.right,
                tr.top + inner.bottom,
            ),
        )
    };
    move_to(cx, tab, tab_rect)?;
    with(cx, h, |s| {
        s.tab = tab;
        s.page_rect = page_rect;
    });
    let client_w = tab_rect.right + MARGIN;
    let by = tab_rect.bottom + MARGIN;
    let client_h = by + BUTTON_H + MARGIN;
    let mut x = client_w - MARGIN;
    for (id, visible) in buttons.iter().rev() {
        // Hidden buttons keep no place, except a wizard's Finish that shares Next's.
        if !(*visible || (wizard && *id == IDC_FINISH_BUTTON)) {
            continue;
        }
        let bh = item(cx, h, *id);
        if wizard && *id == IDC_NEXT_BUTTON && flags & PSH_WIZARDHASFINISH == 0 {
            // Next sits where Finish does when the wizard has no separate Finish.
            x += BUTTON_W + BUTTON_GAP;
        }
        move_to(cx, bh, Rect::new(x - BUTTON_W, by, x, by + BUTTON_H))?;
        x -= BUTTON_W + BUTTON_GAP;
        if *id == IDCANCEL && wizard {
            x -= BUTTON_GAP;
        }
    }
    // The sheet's size for that client area, centred over its owner (or the screen).
    let (style, exstyle, owner) = lock_wm(cx.proc)
        .win(h)
        .map_or((0, 0, 0), |w| (w.style, w.exstyle, w.owner.max(w.parent)));
    let outer = window::adjust_rect(Rect::new(0, 0, client_w, client_h), style, false, exstyle);
    let (ox, oy, ow, oh) = {
        let wmg = lock_wm(cx.proc);
        match wmg.win(owner) {
            Some(w) if owner != 0 => {
                let (wx, wy) = wmg.window_origin(owner);
                (wx, wy, w.rect.width(), w.rect.height())
            }
            _ => {
                let m = cx.proc.display.mode();
                (0, 0, m.width as i32, m.height as i32)
            }
        }
    };
    let x = (ox + (ow - outer.width()) / 2).max(0);
    let y = (oy + (oh - outer.height()) / 2).max(0);
    window::set_window_pos(
        cx,
        h,
        0,
        x,
        y,
        outer.width(),
        outer.height(),
        window::SWP_NOZORDER | window::SWP_NOACTIVATE,
    )?;
    // The caption.
    let (caption, cb, start) =
        with(cx, h, |s| (s.caption.clone(), s.callback, s.start)).unwrap_or_default();
    let title = if flags & PSH_PROPTITLE != 0 {
        format!("Properties for {caption}")
    } else {
        caption
    };
    set_text(cx, h, &title)?;
    if flags & PSH_USECALLBACK != 0 && cb != 0 {
        crate::user32::guest(cx, cb, &[h, PSCB_INITIALIZED, 0])?;
    }
    // Pages created before they are shown.
    for (i, hp) in hpages.iter().enumerate() {
        if rd(cx, hp + 4)? & PSP_PREMATURE != 0 {
            create_page_window(cx, h, i)?;
        }
    }
    if !activate(cx, h, start.min(hpages.len().saturating_sub(1)), true)? && !hpages.is_empty() {
        // The start page refused; the first one that accepts is shown.
        for i in 0..hpages.len() {
            if activate(cx, h, i, true)? {
                break;
            }
        }
    }
    if wizard {
        set_wiz_buttons(cx, h, PSWIZB_BACK | PSWIZB_NEXT)?;
    }
    Ok(1)
}

fn set_text(cx: &mut Ctx, h: u32, text: &str) -> UR<()> {
    let (p, esp) = crate::user32::stack_alloc(cx, crate::user32::str_bytes(text, true));
    let r = (|| -> UR<()> {
        crate::user32::write_str(cx, p, text, true)?;
        send(cx, h, WM_SETTEXT, 0, p, true)?;
        Ok(())
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// Releases the pages when the sheet window goes.
fn sheet_destroyed(cx: &mut Ctx, h: u32) -> UR<()> {
    let s = sheets(cx)
        .live
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&h);
    if let Some(s) = s {
        for p in s.pages {
            destroy_page(cx, p.hpage)?;
        }
    }
    Ok(())
}

fn add_page(cx: &mut Ctx, sheet: u32, at: usize, hpage: u32) -> UR<bool> {
    let known = cx
        .proc
        .slot::<PageDefs>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(&hpage);
    if !known {
        return Ok(false);
    }
    let (title, size) = page_title(cx, hpage)?;
    let Some((tab, at)) = with(cx, sheet, |s| {
        let at = at.min(s.pages.len());
        s.pages.insert(
            at,
            Page {
                hpage,
                hwnd: 0,
                title: title.clone(),
                size,
            },
        );
        if s.cur >= at as i32 {
            s.cur += 1;
        }
        (s.tab, at)
    }) else {
        return Ok(false);
    };
    super::tab::insert_text(cx, tab, at, &title)?;
    Ok(true)
}

fn remove_page(cx: &mut Ctx, sheet: u32, index: u32, hpage: u32) -> UR<()> {
    let Some(i) = with(cx, sheet, |s| {
        if hpage != 0 {
            s.pages.iter().position(|p| p.hpage == hpage)
        } else {
            ((index as usize) < s.pages.len()).then_some(index as usize)
        }
    })
    .flatten() else {
        return Ok(());
    };
    let (cur, n) = with(cx, sheet, |s| (s.cur, s.pages.len())).unwrap_or((-1, 0));
    if cur == i as i32 && n > 1 {
        let next = if i + 1 < n { i + 1 } else { i - 1 };
        activate(cx, sheet, next, true)?;
    }
    let Some((p, tab)) = with(cx, sheet, |s| {
        let p = s.pages.remove(i);
        if s.cur > i as i32 {
            s.cur -= 1;
        } else if s.cur == i as i32 {
            s.cur = -1;
        }
        (p, s.tab)
    }) else {
        return Ok(());
    };
    if tab != 0 {
        send(cx, tab, 0x1308, i as u32, 0, true)?;
        let cur = with(cx, sheet, |s| s.cur).unwrap_or(-1);
        if cur >= 0 {
            send(cx, tab, super::tab::TCM_SETCURSEL, cur as u32, 0, true)?;
        }
    }
    if p.hwnd != 0 {
        window::destroy_window(cx, p.hwnd)?;
    }
    destroy_page(cx, p.hpage)?;
    Ok(())
}

/// PSM_ISDIALOGMESSAGE: Ctrl+Tab / Ctrl+Shift+Tab and Ctrl+PageDown / PageUp turn the
/// pages; everything else is the dialog manager's.
fn is_dialog_message(cx: &mut Ctx, sheet: u32, pmsg: u32) -> UR<bool> {
    if pmsg == 0 {
        return Ok(false);
    }
    let m = read_msg(cx, pmsg)?;
    if m.message == WM_KEYDOWN && (m.wparam == 0x09 || m.wparam == 0x21 || m.wparam == 0x22) {
        let q = lock_wm(cx.proc).queue(cx.thread.tid);
        let (ctrl, shift) = {
            let d = q.lock();
            (
                d.keys.get(0x11).is_some_and(|k| k & 0x80 != 0),
                d.keys.get(0x10).is_some_and(|k| k & 0x80 != 0),
            )
        };
        if ctrl {
            let back = m.wparam == 0x21 || (m.wparam == 0x09 && shift);
            let (cur, n) = with(cx, sheet, |s| (s.cur, s.pages.len() as i32)).unwrap_or((-1, 0));
            if n > 0 {
                let next = if back {
                    (cur + n - 1) % n
                } else {
                    (cur + 1) % n
                };
                activate(cx, sheet, next as usize, false)?;
            }
            return Ok(true);
        }
    }
    crate::user32::dialog::is_dialog_message(cx, sheet, &m)
}

/// The sheet's dialog procedure (the export `PropertySheetDlgProc`).
pub fn sheet_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, _u: bool) -> UR<u32> {
    match m {
        WM_INITDIALOG => init_sheet(cx, h, lp),
        WM_COMMAND => {
            if with(cx, h, |_| ()).is_none() {
                return Ok(0);
            }
            command(cx, h, wp & 0xffff)?;
            Ok(1)
        }
        WM_NOTIFY => {
            if lp == 0 || rd(cx, lp + 4)? != IDC_TABCONTROL {
                return Ok(0);
            }
            let code = rd(cx, lp + 8)? as i32;
            match code {
                super::tab::TCN_SELCHANGING => {
                    let cur = with(cx, h, |s| s.cur).unwrap_or(-1);
                    let page = page_hwnd(cx, h, cur);
                    let r = psn(cx, h, page, PSN_KILLACTIVE, 0)?;
                    set_result(cx, h, (r != 0) as u32)
                }
                super::tab::TCN_SELCHANGE => {
                    let tab = with(cx, h, |s| s.tab).unwrap_or(0);
                    let i = send(cx, tab, super::tab::TCM_GETCURSEL, 0, 0, true)?;
                    if (i as i32) >= 0 {
                        activate(cx, h, i as usize, true)?;
                    }
                    set_result(cx, h, 0)
                }
                _ => Ok(0),
            }
        }
        WM_DESTROY => {
            sheet_destroyed(cx, h)?;
            Ok(0)
        }
        PSM_SETCURSEL | PSM_SETCURSELID => {
            let idx = if m == PSM_SETCURSELID {
                index_of_id(cx, h, lp)?
            } else if lp != 0 {
                with(cx, h, |s| s.pages.iter().position(|p| p.hpage == lp))
                    .flatten()
                    .map_or(-1, |i| i as i32)
            } else {
                wp as i32
            };
            let ok = idx >= 0 && activate(cx, h, idx as usize, false)?;
            set_result(cx, h, ok as u32)
        }
        PSM_CHANGED => {
            with(cx, h, |s| {
                if !s.changed.contains(&wp) {
                    s.changed.push(wp);
                }
            });
            let a = item(cx, h, IDC_APPLY_BUTTON);
            enable(cx, a, true)?;
            set_result(cx, h, 0)
        }
        PSM_UNCHANGED => {
            let none = with(cx, h, |s| {
                s.changed.retain(|&p| p != wp);
                s.changed.is_empty()
            })
            .unwrap_or(true);
            if none {
                let a = item(cx, h, IDC_APPLY_BUTTON);
                enable(cx, a, false)?;
            }
            set_result(cx, h, 0)
        }
        PSM_RESTARTWINDOWS | PSM_REBOOTSYSTEM => {
            let v = if m == PSM_REBOOTSYSTEM {
                ID_PSREBOOTSYSTEM
            } else {
                ID_PSRESTARTWINDOWS
            };
            with(cx, h, |s| s.restart = s.restart.max(v));
            set_result(cx, h, 0)
        }
        PSM_CANCELTOCLOSE => {
            let c = item(cx, h, IDCANCEL);
            enable(cx, c, false)?;
            let ok = item(cx, h, IDOK);
            if ok != 0 {
                set_text(cx, ok, "Close")?;
            }
            set_result(cx, h, 0)
        }
        PSM_QUERYSIBLINGS => {
            for p in created_pages(cx, h) {
                let r = send(cx, p, PSM_QUERYSIBLINGS, wp, lp, true)?;
                if r != 0 {
                    return set_result(cx, h, r);
                }
            }
            set_result(cx, h, 0)
        }
        PSM_APPLY => {
            let ok = apply(cx, h, false)?;
            set_result(cx, h, ok as u32)
        }
        PSM_SETTITLEA | PSM_SETTITLEW => {
            let hinst = with(cx, h, |s| s.hinst).unwrap_or(0);
            let t = str_or_res(cx, hinst, lp, m == PSM_SETTITLEW)?;
            let title = if wp & PSH_PROPTITLE != 0 {
                format!("Properties for {t}")
            } else {
                t
            };
            set_text(cx, h, &title)?;
            set_result(cx, h, 0)
        }
        PSM_SETWIZBUTTONS => {
            set_wiz_buttons(cx, h, lp)?;
            set_result(cx, h, 0)
        }
        PSM_PRESSBUTTON => {
            let id = match wp {
                PSBTN_BACK => IDC_BACK_BUTTON,
                PSBTN_NEXT => IDC_NEXT_BUTTON,
                PSBTN_FINISH => IDC_FINISH_BUTTON,
                PSBTN_OK => IDOK,
                PSBTN_APPLYNOW => IDC_APPLY_BUTTON,
                PSBTN_CANCEL => IDCANCEL,
                PSBTN_HELP => IDHELP,
                _ => return set_result(cx, h, 0),
            };
            let b = item(cx, h, id);
            let enabled = lock_wm(cx.proc)
                .win(b)
                .is_some_and(|w| w.style & wm::WS_DISABLED == 0);
            if b != 0 && enabled {
                command(cx, h, id)?;
            }
            set_result(cx, h, 0)
        }
        PSM_SETFINISHTEXTA | PSM_SETFINISHTEXTW => {
            let t = crate::user32::read_str(cx, lp, m == PSM_SETFINISHTEXTW)?;
            let f = item(cx, h, IDC_FINISH_BUTTON);
            let n = item(cx, h, IDC_NEXT_BUTTON);
            let b = item(cx, h, IDC_BACK_BUTTON);
            if f != 0 {
                set_text(cx, f, &t)?;
                show(cx, f, true)?;
                enable(cx, f, true)?;
            }
            show(cx, n, false)?;
            show(cx, b, false)?;
            set_result(cx, h, 0)
        }
        PSM_GETTABCONTROL => {
            let t = with(cx, h, |s| s.tab).unwrap_or(0);
            set_result(cx, h, t)
        }
        PSM_ISDIALOGMESSAGE => {
            let r = is_dialog_message(cx, h, lp)?;
            set_result(cx, h, r as u32)
        }
        PSM_GETCURRENTPAGEHWND => {
            let done = with(cx, h, |s| s.done.is_some()).unwrap_or(true);
            let cur = with(cx, h, |s| s.cur).unwrap_or(-1);
            let p = if done { 0 } else { page_hwnd(cx, h, cur) };
            set_result(cx, h, p)
        }
        PSM_ADDPAGE => {
            let n = with(cx, h, |s| s.pages.len()).unwrap_or(0);
            let ok = add_page(cx, h, n, lp)?;
            set_result(cx, h, ok as u32)
        }
        PSM_INSERTPAGE => {
            // wParam: an index (high word zero) or the page to insert after.
            let at = if wp >> 16 == 0 {
                wp as usize
            } else {
                with(cx, h, |s| s.pages.iter().position(|p| p.hpage == wp))
                    .flatten()
                    .map_or(usize::MAX, |i| i + 1)
            };
            let ok = add_page(cx, h, at, lp)?;
            set_result(cx, h, ok as u32)
        }
        PSM_REMOVEPAGE => {
            remove_page(cx, h, wp, lp)?;
            set_result(cx, h, 0)
        }
        PSM_HWNDTOINDEX => {
            let i = with(cx, h, |s| {
                s.pages.iter().position(|p| p.hwnd == wp && wp != 0)
            })
            .flatten()
            .map_or(-1, |i| i as i32);
            set_result(cx, h, i as u32)
        }
        PSM_INDEXTOHWND => {
            let p = page_hwnd(cx, h, wp as i32);
            set_result(cx, h, p)
        }
        PSM_PAGETOINDEX => {
            let i = with(cx, h, |s| s.pages.iter().position(|p| p.hpage == lp))
                .flatten()
                .map_or(-1, |i| i as i32);
            set_result(cx, h, i as u32)
        }
        PSM_INDEXTOPAGE => {
            let p = with(cx, h, |s| s.pages.get(wp as usize).map_or(0, |p| p.hpage)).unwrap_or(0);
            set_result(cx, h, p)
        }
        PSM_IDTOINDEX => {
            let i = index_of_id(cx, h, lp)?;
            set_result(cx, h, i as u32)
        }
        PSM_INDEXTOID => {
            let hp = with(cx, h, |s| s.pages.get(wp as usize).map_or(0, |p| p.hpage)).unwrap_or(0);
            let id = if hp != 0 && rd(cx, hp + 4)? & PSP_DLGINDIRECT == 0 {
                rd(cx, hp + 12)?
            } else {
                0
            };
            set_result(cx, h, id)
        }
        PSM_GETRESULT => {
            let r = with(cx, h, |s| s.done.unwrap_or(u32::MAX)).unwrap_or(u32::MAX);
            set_result(cx, h, r)
        }
        PSM_RECALCPAGESIZES => set_result(cx, h, 1),
        PSM_SETHEADERTITLEA..=PSM_SETHEADERSUBTITLEW => {
            // Wizard97 header texts: this sheet draws no header area.
            set_result(cx, h, 0)
        }
        _ => Ok(0),
    }
}

// ---- the API -----------------------------------------------------------------------------

/// A DLGTEMPLATE for the sheet, with no controls (the sheet creates them).
fn sheet_template(cx: &Ctx, p: u32, wizard: bool) -> UR<()> {
    let style = wm::WS_POPUP
        | wm::WS_CAPTION
        | wm::WS_SYSMENU
        | DS_MODALFRAME
        | DS_3DLOOK
        | if wizard { 0 } else { DS_CONTEXTHELP };
    let m = &cx.proc.mem;
    m.write_bytes(p, &[0u8; 24])?;
    m.write_u32(p, style)?;
    m.write_u32(p + 4, wm::WS_EX_DLGMODALFRAME | WS_EX_CONTROLPARENT)?;
    Ok(())
}

fn property_sheet(cx: &mut Ctx, psh: u32, unicode: bool) -> UR<u32> {
    if psh == 0 {
        return Ok(u32::MAX);
    }
    let size = rd(cx, psh)?;
    if size < PSH_V1_SIZE {
        return Ok(u32::MAX);
    }
    let flags = rd(cx, psh + 4)?;
    let parent = rd(cx, psh + 8)?;
    let hinst = rd(cx, psh + 12)?;
    let caption_p = rd(cx, psh + 20)?;
    let n = rd(cx, psh + 24)?.min(1024);
    let start_v = rd(cx, psh + 28)?;
    let pages_p = rd(cx, psh + 32)?;
    let callback = rd(cx, psh + 36)?;
    let caption = str_or_res(cx, hinst, caption_p, unicode)?;
    // The pages: PROPSHEETPAGEs (each of its own dwSize) or page handles.
    let mut hpages = Vec::new();
    let mut p = pages_p;
    for _ in 0..n {
        if flags & PSH_PROPSHEETPAGE != 0 {
            let sz = rd(cx, p)?;
            let hp = create_page(cx, p, unicode)?;
            if hp != 0 {
                hpages.push(hp);
            }
            if sz == 0 {
                break;
            }
            p += sz;
        } else {
            let hp = rd(cx, p)?;
            if hp != 0 {
                hpages.push(hp);
            }
            p += 4;
        }
    }
    let mut pages = Vec::with_capacity(hpages.len());
    for hp in &hpages {
        pages.push(Page {
            hpage: *hp,
            hwnd: 0,
            title: String::new(),
            size: (0, 0),
        });
    }
    let start = if flags & PSH_USEPSTARTPAGE != 0 {
        let want = str_or_res(cx, hinst, start_v, unicode)?;
        let mut found = 0;
        for (i, hp) in hpages.iter().enumerate() {
            if page_title(cx, *hp)?.0 == want {
                found = i;
                break;
            }
        }
        found
    } else {
        start_v as usize
    };
    let key = {
        let s = sheets(cx);
        let mut k = s.next_key.lock().unwrap_or_else(|e| e.into_inner());
        *k += 1;
        *k
    };
    sheets(cx)
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            key,
            Sheet {
                hwnd: 0,
                flags,
                hinst,
                callback,
                caption,
                pages,
                start,
                cur: -1,
                tab: 0,
                changed: Vec::new(),
                applied: false,
                restart: 0,
                done: None,
                page_rect: Rect::default(),
            },
        );
    let wizard = flags & (PSH_WIZARD | PSH_WIZARD97 | PSH_WIZARD_LITE) != 0;
    let (tpl, esp) = crate::user32::stack_alloc(cx, 32);
    let created = (|| -> UR<u32> {
        sheet_template(cx, tpl, wizard)?;
        if flags & PSH_USECALLBACK != 0 && callback != 0 {
            crate::user32::guest(cx, callback, &[0, PSCB_PRECREATE, tpl])?;
        }
        let dlgproc = cx
            .proc
            .resolve_hle(super::DLL.name, "__winterp_PropertySheetDlgProc")?;
        ret(crate::user32::dialog::CreateDialogIndirectParam::<WStrPtr>(
            cx, hinst, tpl, parent, dlgproc, key,
        )?)
    })();
    crate::user32::stack_free(cx, esp);
    let hdlg = created?;
    let left = sheets(cx)
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    if hdlg == 0 {
        if let Some(s) = left {
            for p in s.pages {
                destroy_page(cx, p.hpage)?;
            }
        }
        return Ok(u32::MAX);
    }
    window::show_window(cx, hdlg, 5)?;
    if flags & PSH_MODELESS != 0 {
        return Ok(hdlg);
    }
    modal_loop(cx, hdlg, parent)
}

/// PropertySheet's modal loop: the owner is disabled until a button ends the sheet.
fn modal_loop(cx: &mut Ctx, sheet: u32, parent: u32) -> UR<u32> {
    let owner = if parent == 0 {
        0
    } else {
        lock_wm(cx.proc).top_of(parent)
    };
    let owner_enabled = owner != 0
        && lock_wm(cx.proc)
            .win(owner)
            .is_some_and(|w| w.style & wm::WS_DISABLED == 0);
    if owner_enabled && let Some(w) = lock_wm(cx.proc).win_mut(owner) {
        w.style |= wm::WS_DISABLED;
    }
    let result = loop {
        match with(cx, sheet, |s| s.done) {
            None => break u32::MAX,
            Some(Some(r)) => break r,
            Some(None) => {}
        }
        let Some(m) = get_msg(cx, 0, 0, 0, true, Wait::Host)? else {
            continue;
        };
        if m.message == WM_QUIT {
            PostQuitMessage(cx, m.wparam);
            break 0;
        }
        let (p, esp) = crate::user32::stack_alloc(cx, 28);
        let handled = write_msg(cx, p, &m)
            .map_err(Flow::from)
            .and_then(|_| is_dialog_message(cx, sheet, p));
        crate::user32::stack_free(cx, esp);
        if !handled? {
            crate::user32::input::translate(cx, &m);
            dispatch(cx, &m, true)?;
        }
    };
    if owner_enabled && let Some(w) = lock_wm(cx.proc).win_mut(owner) {
        w.style &= !wm::WS_DISABLED;
    }
    if lock_wm(cx.proc).win(sheet).is_some() {
        window::destroy_window(cx, sheet)?;
    }
    if owner != 0 && lock_wm(cx.proc).win(owner).is_some() {
        window::set_active(cx, owner)?;
    }
    Ok(result)
}

pub fn PropertySheetA(cx: &mut Ctx, lppsph: Ptr) -> ApiResult<Outcome> {
    fin(property_sheet(cx, lppsph.0, false))
}

pub fn PropertySheetW(cx: &mut Ctx, lppsph: Ptr) -> ApiResult<Outcome> {
    fin(property_sheet(cx, lppsph.0, true))
}

pub fn CreatePropertySheetPageA(cx: &mut Ctx, lppsp: Ptr) -> ApiResult<Outcome> {
    fin(create_page(cx, lppsp.0, false))
}

pub fn CreatePropertySheetPageW(cx: &mut Ctx, lppsp: Ptr) -> ApiResult<Outcome> {
    fin(create_page(cx, lppsp.0, true))
}

pub fn DestroyPropertySheetPage(cx: &mut Ctx, hPSPage: u32) -> ApiResult<Outcome> {
    fin(destroy_page(cx, hPSPage))
}
