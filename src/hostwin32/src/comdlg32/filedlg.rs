//! The Open and Save As common dialogs (GetOpenFileNameA/W, GetSaveFileNameA/W).
//!
//! The dialog is a modal `#32770` dialog built from a template in memory, with
//! COMDLG32's own dialog procedure (the `__winterp_FileDialogProc` export) and the
//! controls and control IDs of Windows' Explorer-style dialog (dlgs.h): "Look in"
//! (`cmb2`) holds the folders from the drive down to the current one, the file
//! list (`lst1`) the current folder's subfolders and the files the chosen filter
//! matches, "File name" (`edt1`), "Files of type" (`cmb1`, from `lpstrFilter`),
//! "Open as read-only" (`chx1`), Open or Save (IDOK), Cancel and Help (`pshHelp`),
//! plus an "Up one level" button. It browses the sandboxed file system.
//!
//! What the user confirms is checked as Windows does (OFN_PATHMUSTEXIST,
//! OFN_FILEMUSTEXIST, OFN_CREATEPROMPT, OFN_OVERWRITEPROMPT, OFN_NOREADONLYRETURN,
//! with message boxes owned by the dialog), then OPENFILENAME is filled: the path in
//! `lpstrFile` (several files typed in quotes with OFN_ALLOWMULTISELECT give the
//! folder and the names, each NUL-terminated, then a second NUL), `nFileOffset`,
//! `nFileExtension`, `lpstrFileTitle`, `nFilterIndex` and the OFN_READONLY and
//! OFN_EXTENSIONDIFFERENT flags. Cancel returns FALSE with CommDlgExtendedError 0.
//!
//! Nobody sits in front of a headless run: with
//! [`crate::process::ProcessConfig::message_box_ticks`] the dialog presses Cancel
//! after it has been shown for that many 60 Hz ticks and prints itself and the
//! answer to standard error, as message boxes do.
//!
//! Hook procedures and custom templates (OFN_ENABLEHOOK, OFN_ENABLETEMPLATE,
//! OFN_ENABLETEMPLATEHANDLE) are not provided: a call that asks for them reports
//! itself by name.

use super::set_error;
use crate::gdi32::Rect;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::encode_ansi;
use crate::user32::msg::{
    WM_COMMAND, WM_DRAWITEM, WM_GETTEXT, WM_INITDIALOG, WM_MEASUREITEM, WM_SETTEXT, WM_TIMER, send,
};
use crate::user32::{UR, call_export, fin, lock_wm, msgbox, stack_alloc, stack_free, wm};
use std::collections::HashMap;
use std::sync::Mutex;

/// The dialog procedure of the Open and Save As dialogs (COMDLG32's own).
const PROC_EXPORT: &str = "__winterp_FileDialogProc";

// OPENFILENAME flags.
const OFN_READONLY: u32 = 0x1;
const OFN_OVERWRITEPROMPT: u32 = 0x2;
const OFN_HIDEREADONLY: u32 = 0x4;
const OFN_NOCHANGEDIR: u32 = 0x8;
const OFN_SHOWHELP: u32 = 0x10;
const OFN_ENABLEHOOK: u32 = 0x20;
const OFN_ENABLETEMPLATE: u32 = 0x40;
const OFN_ENABLETEMPLATEHANDLE: u32 = 0x80;
const OFN_ALLOWMULTISELECT: u32 = 0x200;
const OFN_EXTENSIONDIFFERENT: u32 = 0x400;
const OFN_PATHMUSTEXIST: u32 = 0x800;
const OFN_FILEMUSTEXIST: u32 = 0x1000;
const OFN_CREATEPROMPT: u32 = 0x2000;
const OFN_NOREADONLYRETURN: u32 = 0x8000;
const OFN_FORCESHOWHIDDEN: u32 = 0x1000_0000;

// CommDlgExtendedError codes.
const CDERR_STRUCTSIZE: u32 = 0x1;
const CDERR_INITIALIZATION: u32 = 0x2;
const CDERR_DIALOGFAILURE: u32 = 0xffff;
const FNERR_BUFFERTOOSMALL: u32 = 0x3003;

/// OPENFILENAME's sizes: OPENFILENAME_SIZE_VERSION_400 and the Windows 2000 one.
const OFN_SIZE_400: u32 = 76;
const OFN_SIZE_500: u32 = 88;

// Control IDs of dlgs.h.
const CHX1: u32 = 0x410;
const PSH_HELP: u32 = 0x40e;
const STC2: u32 = 0x441;
const STC3: u32 = 0x442;
const STC4: u32 = 0x443;
const LST1: u32 = 0x460;
const CMB1: u32 = 0x470;
const CMB2: u32 = 0x471;
const EDT1: u32 = 0x480;
/// The Explorer dialog's "Up one level" command (its toolbar's FCIDM_TB_UPFOLDER).
const ID_UP: u32 = 0xa001;
const IDOK: u32 = 1;
const IDCANCEL: u32 = 2;

// Control styles.
const BS_DEFPUSHBUTTON: u32 = 0x1;
const BS_AUTOCHECKBOX: u32 = 0x3;
const ES_AUTOHSCROLL: u32 = 0x80;
const CBS_DROPDOWNLIST: u32 = 0x3;
const LBS_NOTIFY: u32 = 0x1;
const LBS_OWNERDRAWFIXED: u32 = 0x10;
const LBS_HASSTRINGS: u32 = 0x40;
const LBS_NOINTEGRALHEIGHT: u32 = 0x100;
const DS_MODALFRAME: u32 = 0x80;
const DS_3DLOOK: u32 = 0x4;
const SS_NOTIFY: u32 = 0x100;

// Notifications and messages.
const LBN_SELCHANGE: u32 = 1;
const LBN_DBLCLK: u32 = 2;
const CBN_SELCHANGE: u32 = 1;
const LB_ADDSTRING: u32 = 0x180;
const LB_RESETCONTENT: u32 = 0x184;
const LB_GETCURSEL: u32 = 0x188;
const CB_ADDSTRING: u32 = 0x143;
const CB_RESETCONTENT: u32 = 0x14b;
const CB_SETCURSEL: u32 = 0x14e;
const CB_GETCURSEL: u32 = 0x147;
const BM_GETCHECK: u32 = 0xf0;
const BM_SETCHECK: u32 = 0xf1;
const EM_SETSEL: u32 = 0xb1;
const DM_SETDEFID: u32 = 0x401;
const SW_HIDE: u32 = 0;

/// The headless auto-answer's timer (an ID no program uses on a window it did not
/// create).
const AUTO_TIMER: u32 = 0x5754_4644;

const MB_OK: u32 = 0x0;
const MB_YESNO: u32 = 0x4;
const MB_ICONWARNING: u32 = 0x30;
const IDYES: u32 = 6;

/// One line of the file list: a folder or a file of the current folder.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    name: String,
    folder: bool,
}

/// What a showing dialog works with: the caller's OPENFILENAME and where the
/// user is.
#[derive(Clone, Debug)]
struct Dlg {
    ofn: u32,
    unicode: bool,
    save: bool,
    flags: u32,
    owner: u32,
    title: String,
    /// (description, patterns) pairs of lpstrFilter.
    filters: Vec<(String, String)>,
    /// The filter in use (0-based into `filters`).
    filter: usize,
    /// Patterns the user typed into the name box, which replace the filter's.
    typed_filter: Option<String>,
    def_ext: Option<String>,
    /// The folder shown.
    dir: String,
    entries: Vec<Entry>,
    answered: bool,
    /// Set when the result did not fit lpstrFile (the dialog then ends with FALSE).
    error: u32,
}

#[derive(Default)]
struct Dialogs {
    next: u32,
    by_key: HashMap<u32, Dlg>,
    by_hwnd: HashMap<u32, u32>,
}

fn with<R>(cx: &Ctx, f: impl FnOnce(&mut Dialogs) -> R) -> R {
    let s = cx.proc.slot::<Mutex<Dialogs>>();
    let mut g = s.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

fn dlg_of(cx: &Ctx, h: u32) -> Option<Dlg> {
    with(cx, |d| {
        let k = d.by_hwnd.get(&h)?;
        d.by_key.get(k).cloned()
    })
}

fn update(cx: &Ctx, h: u32, f: impl FnOnce(&mut Dlg)) {
    with(cx, |d| {
        if let Some(k) = d.by_hwnd.get(&h).copied()
            && let Some(g) = d.by_key.get_mut(&k)
        {
            f(g);
        }
    });
}

// ---- OPENFILENAME --------------------------------------------------------------------------

fn rd(cx: &Ctx, ofn: u32, off: u32) -> ApiResult<u32> {
    Ok(cx.proc.mem.read_u32(ofn + off)?)
}

/// The strings of a list of NUL-terminated strings ended by an empty one
/// (lpstrFilter), in the A or W encoding; at most `max` of them.
fn read_multi(cx: &Ctx, p: u32, unicode: bool, max: usize) -> ApiResult<Vec<String>> {
    let mut out = Vec::new();
    if p == 0 {
        return Ok(out);
    }
    let mut at = p;
    while out.len() < max {
        let s = crate::user32::read_str(cx, at, unicode)?;
        if s.is_empty() {
            break;
        }
        at += crate::user32::str_bytes(&s, unicode);
        out.push(s);
    }
    Ok(out)
}

/// The (description, patterns) pairs of a filter list; a description without its
/// patterns is dropped, as Windows drops it.
fn filter_pairs(strings: &[String]) -> Vec<(String, String)> {
    strings
        .chunks_exact(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect()
}

fn encoded(s: &str, unicode: bool) -> Vec<u16> {
    if unicode {
        s.encode_utf16().collect()
    } else {
        encode_ansi(s).into_iter().map(u16::from).collect()
    }
}

fn write_units(cx: &Ctx, p: u32, units: &[u16], unicode: bool) -> ApiResult<()> {
    if unicode {
        let b: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        cx.proc.mem.write_bytes(p, &b)?;
    } else {
        let b: Vec<u8> = units.iter().map(|&u| u as u8).collect();
        cx.proc.mem.write_bytes(p, &b)?;
    }
    Ok(())
}

// ---- Paths ---------------------------------------------------------------------------------

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('\\') {
        format!("{dir}{name}")
    } else {
        format!("{dir}\\{name}")
    }
}

/// The folder above `dir`, or `None` at the drive's root.
fn parent_of(dir: &str) -> Option<String> {
    let t = dir.trim_end_matches('\\');
    let cut = t.rfind('\\')?;
    Some(if cut <= 2 {
        t[..=cut].to_string()
    } else {
        t[..cut].to_string()
    })
}

/// The folders from the drive's root down to `dir` ("C:\", "C:\A", "C:\A\B").
fn chain_of(dir: &str) -> Vec<String> {
    let mut v = vec![dir.to_string()];
    let mut d = dir.to_string();
    while let Some(p) = parent_of(&d) {
        v.push(p.clone());
        d = p;
    }
    v.reverse();
    v
}

/// A folder's name as "Look in" shows it: the drive's as "C:\", others by name.
fn folder_label(dir: &str) -> String {
    match dir.trim_end_matches('\\').rsplit_once('\\') {
        Some((_, name)) if !name.is_empty() => name.to_string(),
        _ => dir.to_string(),
    }
}

fn has_wildcards(s: &str) -> bool {
    s.contains(['*', '?'])
}

/// The names typed into the name box: one name, or with OFN_ALLOWMULTISELECT
/// several in double quotes (`"a.txt" "b.txt"`).
fn typed_names(text: &str, multi: bool) -> Vec<String> {
    let t = text.trim();
    if !(multi && t.starts_with('"')) {
        return vec![t.trim_matches('"').to_string()];
    }
    t.split('"')
        .enumerate()
        .filter(|(k, s)| k % 2 == 1 && !s.trim().is_empty())
        .map(|(_, s)| s.to_string())
        .collect()
}

/// The file name's extension (after its last '.'), if it has one.
fn extension(name: &str) -> Option<&str> {
    let file = name.rsplit('\\').next().unwrap_or(name);
    file.rfind('.').map(|k| &file[k + 1..])
}

/// What lpstrFile receives for one file: the path, the offsets of the name and of
/// its extension (nFileOffset, nFileExtension: the terminating NUL's for a name
/// without an extension, 0 for one that ends in '.'), in characters of the A or
/// W string.
fn single_result(path: &str, unicode: bool) -> (Vec<u16>, u16, u16) {
    let name_at = path.rfind('\\').map_or(0, |k| k + 1);
    let units = encoded(path, unicode);
    let offset = encoded(&path[..name_at], unicode).len();
    let name = &path[name_at..];
    let ext = match name.rfind('.') {
        Some(k) if k + 1 == name.len() => 0,
        Some(k) => encoded(&path[..name_at + k + 1], unicode).len(),
        None => units.len(),
    };
    (units, offset as u16, ext as u16)
}

/// What lpstrFile receives for several files: the folder and each name,
/// NUL-terminated, then a second NUL; nFileOffset is the first name's.
fn multi_result(dir: &str, names: &[String], unicode: bool) -> (Vec<u16>, u16) {
    let mut units = encoded(dir.trim_end_matches('\\'), unicode);
    if dir.len() == 3 {
        // The drive's root keeps its backslash ("C:\").
        units = encoded(dir, unicode);
    }
    units.push(0);
    let offset = units.len();
    for n in names {
        units.extend(encoded(n, unicode));
        units.push(0);
    }
    (units, offset as u16)
}

// ---- The dialog ------------------------------------------------------------------------------

/// The dialog template (DLGTEMPLATE, coordinates in dialog units).
fn template(caption: &str, save: bool) -> Vec<u8> {
    let mut t = Vec::new();
    let put16 = |t: &mut Vec<u8>, v: u16| t.extend_from_slice(&v.to_le_bytes());
    let put32 = |t: &mut Vec<u8>, v: u32| t.extend_from_slice(&v.to_le_bytes());
    let put_str = |t: &mut Vec<u8>, s: &str| {
        for u in s.encode_utf16() {
            t.extend_from_slice(&u.to_le_bytes());
        }
        t.extend_from_slice(&[0, 0]);
    };
    let ok = if save { "&Save" } else { "&Open" };
    // (class atom, style, id, x, y, w, h, text)
    let tab = wm::WS_TABSTOP;
    let items: &[(u16, u32, u32, i16, i16, i16, i16, &str)] = &[
        (
            0x82,
            SS_NOTIFY,
            STC4,
            7,
            6,
            41,
            8,
            if save { "Save &in:" } else { "Look &in:" },
        ),
        (0x85, CBS_DROPDOWNLIST | tab, CMB2, 49, 3, 160, 100, ""),
        (0x80, tab, ID_UP, 213, 3, 24, 13, "Up"),
        (
            0x83,
            LBS_NOTIFY
                | LBS_OWNERDRAWFIXED
                | LBS_HASSTRINGS
                | LBS_NOINTEGRALHEIGHT
                | wm::WS_VSCROLL
                | wm::WS_BORDER
                | tab,
            LST1,
            7,
            20,
            266,
            84,
            "",
        ),
        (0x82, SS_NOTIFY, STC3, 7, 112, 46, 8, "File &name:"),
        (
            0x81,
            ES_AUTOHSCROLL | wm::WS_BORDER | tab,
            EDT1,
            56,
            110,
            155,
            12,
            "",
        ),
        (0x82, SS_NOTIFY, STC2, 7, 128, 46, 8, "Files of &type:"),
        (0x85, CBS_DROPDOWNLIST | tab, CMB1, 56, 126, 155, 60, ""),
        (
            0x80,
            BS_AUTOCHECKBOX | tab,
            CHX1,
            56,
            144,
            100,
            10,
            "Open as &read-only",
        ),
        (0x80, BS_DEFPUSHBUTTON | tab, IDOK, 223, 110, 50, 14, ok),
        (0x80, tab, IDCANCEL, 223, 127, 50, 14, "Cancel"),
        (0x80, tab, PSH_HELP, 223, 144, 50, 14, "&Help"),
    ];
    let style = wm::WS_POPUP | wm::WS_CAPTION | wm::WS_SYSMENU | DS_MODALFRAME | DS_3DLOOK;
    put32(&mut t, style);
    put32(&mut t, wm::WS_EX_DLGMODALFRAME);
    put16(&mut t, items.len() as u16);
    for v in [0u16, 0, 280, 162] {
        put16(&mut t, v);
    }
    put16(&mut t, 0); // no menu
    put16(&mut t, 0); // the dialog class
    put_str(&mut t, caption);
    for &(class, style, id, x, y, w, h, text) in items {
        while !t.len().is_multiple_of(4) {
            t.push(0);
        }
        put32(&mut t, style | wm::WS_CHILD | wm::WS_VISIBLE);
        put32(&mut t, 0);
        for v in [x, y, w, h] {
            put16(&mut t, v as u16);
        }
        put16(&mut t, id as u16);
        put16(&mut t, 0xffff);
        put16(&mut t, class);
        put_str(&mut t, text);
        put16(&mut t, 0);
    }
    t
}

/// The dialog's control `id` (GetDlgItem).
fn item(cx: &Ctx, h: u32, id: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(h).map_or(0, |w| {
        w.children
            .iter()
            .copied()
            .find(|&c| wm.win(c).is_some_and(|cw| cw.id == id))
            .unwrap_or(0)
    })
}

fn set_text(cx: &mut Ctx, h: u32, text: &str) -> UR<()> {
    let (p, esp) = stack_alloc(cx, crate::user32::str_bytes(text, true));
    let r = (|| -> UR<()> {
        crate::user32::write_str(cx, p, text, true)?;
        send(cx, h, WM_SETTEXT, 0, p, true)?;
        Ok(())
    })();
    stack_free(cx, esp);
    r
}

fn get_text(cx: &mut Ctx, h: u32) -> UR<String> {
    const CAP: u32 = 1024;
    let (p, esp) = stack_alloc(cx, 2 * CAP);
    let r = (|| -> UR<String> {
        let n = send(cx, h, WM_GETTEXT, CAP, p, true)?.min(CAP - 1);
        Ok(crate::user32::read_str_n(cx, p, n as i32, true)?)
    })();
    stack_free(cx, esp);
    r
}

fn add_string(cx: &mut Ctx, h: u32, m: u32, text: &str) -> UR<()> {
    let (p, esp) = stack_alloc(cx, crate::user32::str_bytes(text, true));
    let r = (|| -> UR<()> {
        crate::user32::write_str(cx, p, text, true)?;
        send(cx, h, m, 0, p, true)?;
        Ok(())
    })();
    stack_free(cx, esp);
    r
}

/// The patterns the list shows files by: what the user typed, else the filter's
/// (all files without a filter).
fn patterns(d: &Dlg) -> Vec<crate::vfs::Pattern> {
    let spec = d
        .typed_filter
        .clone()
        .or_else(|| d.filters.get(d.filter).map(|f| f.1.clone()))
        .unwrap_or_else(|| "*".into());
    spec.split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let p = if p == "*.*" { "*" } else { p };
            let dot = p.ends_with('.');
            crate::vfs::Pattern::new(p.trim_end_matches('.'), dot)
        })
        .collect()
}

/// The folder's subfolders, then the files the patterns match, each sorted by
/// name; hidden ones only with OFN_FORCESHOWHIDDEN.
fn list_folder(cx: &Ctx, d: &Dlg) -> ApiResult<Vec<Entry>> {
    const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;
    let v = vfs(cx.proc)?;
    let all = v.read_dir(&join(&d.dir, "*")).unwrap_or_default();
    let pats = patterns(d);
    let show_hidden = d.flags & OFN_FORCESHOWHIDDEN != 0;
    let mut folders = Vec::new();
    let mut files = Vec::new();
    for e in all {
        if e.name == "." || e.name == ".." {
            continue;
        }
        if e.attributes & FILE_ATTRIBUTE_HIDDEN != 0 && !show_hidden {
            continue;
        }
        if e.is_dir {
            folders.push(Entry {
                name: e.name,
                folder: true,
            });
        } else if pats.iter().any(|p| p.matches(&e.name)) {
            files.push(Entry {
                name: e.name,
                folder: false,
            });
        }
    }
    let key = |e: &Entry| e.name.to_lowercase();
    folders.sort_by_key(key);
    files.sort_by_key(key);
    folders.extend(files);
    Ok(folders)
}

/// Shows folder `dir`: the file list and "Look in".
fn show_folder(cx: &mut Ctx, h: u32, dir: &str) -> UR<()> {
    update(cx, h, |d| d.dir = dir.to_string());
    let Some(d) = dlg_of(cx, h) else {
        return Ok(());
    };
    let entries = list_folder(cx, &d)?;
    update(cx, h, |d| d.entries = entries.clone());
    let list = item(cx, h, LST1);
    send(cx, list, LB_RESETCONTENT, 0, 0, true)?;
    for e in &entries {
        add_string(cx, list, LB_ADDSTRING, &e.name)?;
    }
    let look = item(cx, h, CMB2);
    send(cx, look, CB_RESETCONTENT, 0, 0, true)?;
    let chain = chain_of(dir);
    for f in &chain {
        add_string(cx, look, CB_ADDSTRING, &folder_label(f))?;
    }
    send(cx, look, CB_SETCURSEL, chain.len() as u32 - 1, 0, true)?;
    Ok(())
}

fn init(cx: &mut Ctx, h: u32, key: u32) -> UR<u32> {
    with(cx, |d| {
        if d.by_key.contains_key(&key) {
            d.by_hwnd.insert(h, key);
        }
    });
    let Some(d) = dlg_of(cx, h) else {
        return Ok(1);
    };
    let types = item(cx, h, CMB1);
    for (desc, _) in &d.filters {
        add_string(cx, types, CB_ADDSTRING, desc)?;
    }
    if !d.filters.is_empty() {
        send(cx, types, CB_SETCURSEL, d.filter as u32, 0, true)?;
    }
    let ro = item(cx, h, CHX1);
    if d.flags & OFN_HIDEREADONLY != 0 {
        crate::user32::window::show_window(cx, ro, SW_HIDE)?;
    } else if d.flags & OFN_READONLY != 0 {
        send(cx, ro, BM_SETCHECK, 1, 0, true)?;
    }
    if d.flags & OFN_SHOWHELP == 0 {
        let help = item(cx, h, PSH_HELP);
        crate::user32::window::show_window(cx, help, SW_HIDE)?;
    }
    // The initial name (lpstrFile without its folder).
    let initial = crate::user32::read_str(cx, rd(cx, d.ofn, 28)?, d.unicode)?;
    let name = initial.rsplit('\\').next().unwrap_or("").to_string();
    let edit = item(cx, h, EDT1);
    if !name.is_empty() {
        if has_wildcards(&name) {
            update(cx, h, |d| d.typed_filter = Some(name.clone()));
        }
        set_text(cx, edit, &name)?;
    }
    show_folder(cx, h, &d.dir)?;
    send(cx, h, DM_SETDEFID, IDOK, 0, true)?;
    crate::user32::window::set_focus(cx, edit)?;
    send(cx, edit, EM_SETSEL, 0, u32::MAX, true)?;
    if let Some(ticks) = cx.proc.config.message_box_ticks {
        let ms = (ticks as u64 * 1000).div_ceil(60).max(1) as u32;
        crate::user32::msg::SetTimer(cx, h, AUTO_TIMER, ms, 0)?;
    }
    // The focus is set: FALSE.
    Ok(0)
}

fn message(cx: &mut Ctx, h: u32, d: &Dlg, text: String, style: u32) -> UR<u32> {
    msgbox::show(
        cx,
        msgbox::Spec {
            owner: h,
            text,
            caption: d.title.clone(),
            style,
            ..Default::default()
        },
    )
}

fn end(cx: &mut Ctx, h: u32, result: u32) -> UR<()> {
    let first = with(cx, |d| {
        let k = *d.by_hwnd.get(&h)?;
        let g = d.by_key.get_mut(&k)?;
        Some(!std::mem::replace(&mut g.answered, true))
    });
    if first == Some(true) {
        crate::user32::dialog::EndDialog(cx, h, result)?;
    }
    Ok(())
}

/// The full path of a name typed or picked in folder `dir`.
fn full_path(cx: &Ctx, dir: &str, name: &str) -> ApiResult<Option<String>> {
    let p = if name.len() >= 2 && name.as_bytes()[1] == b':' || name.starts_with('\\') {
        name.to_string()
    } else {
        join(dir, name)
    };
    Ok(vfs(cx.proc)?.full_path(&p).ok())
}

/// Open or Save: checks what the name box (or the list's selection) names and
/// either goes into a folder, takes typed patterns as the filter, or fills the
/// caller's OPENFILENAME and ends the dialog.
fn confirm(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(d) = dlg_of(cx, h) else {
        return Ok(());
    };
    let edit = item(cx, h, EDT1);
    let mut text = get_text(cx, edit)?.trim().to_string();
    if text.is_empty() {
        let sel = send(cx, item(cx, h, LST1), LB_GETCURSEL, 0, 0, true)?;
        match d.entries.get(sel as usize) {
            Some(e) if e.folder => return show_folder(cx, h, &join(&d.dir, &e.name)),
            Some(e) => text = e.name.clone(),
            None => return Ok(()),
        }
    }
    let multi = d.flags & OFN_ALLOWMULTISELECT != 0;
    let names = typed_names(&text, multi);
    if names.len() == 1 {
        let name = &names[0];
        if has_wildcards(name) {
            let pats = name.rsplit('\\').next().unwrap_or(name).to_string();
            let dir = match name.rfind('\\') {
                Some(k) => full_path(cx, &d.dir, &name[..=k])?.unwrap_or(d.dir.clone()),
                None => d.dir.clone(),
            };
            update(cx, h, |d| d.typed_filter = Some(pats.clone()));
            set_text(cx, edit, &pats)?;
            return show_folder(cx, h, &dir);
        }
        if let Some(p) = full_path(cx, &d.dir, name)?
            && vfs(cx.proc)?
                .get_attributes(&p)
                .is_ok_and(|a| a & 0x10 != 0)
        {
            set_text(cx, edit, "")?;
            return show_folder(cx, h, &p);
        }
    }
    let mut paths = Vec::new();
    for n in &names {
        let Some(mut p) = full_path(cx, &d.dir, n)? else {
            message(
                cx,
                h,
                &d,
                format!("{n}\nThe file name is not valid."),
                MB_OK | MB_ICONWARNING,
            )?;
            return Ok(());
        };
        if extension(&p).is_none()
            && let Some(ext) = d.def_ext.as_deref().filter(|e| !e.is_empty())
        {
            p = format!("{p}.{}", ext.trim_start_matches('.'));
        }
        if !check(cx, h, &d, &p)? {
            return Ok(());
        }
        paths.push(p);
    }
    let ro_checked = d.flags & OFN_HIDEREADONLY == 0
        && send(cx, item(cx, h, CHX1), BM_GETCHECK, 0, 0, true)? != 0;
    let error = write_result(cx, &d, &paths, ro_checked)?;
    if error != 0 {
        update(cx, h, |d| d.error = error);
        return end(cx, h, 0);
    }
    if d.flags & OFN_NOCHANGEDIR == 0
        && let Some(dir) = paths.first().and_then(|p| parent_of(p))
    {
        let _ = vfs(cx.proc)?.set_current_dir(&dir);
    }
    end(cx, h, IDOK)
}

/// The checks of one chosen file, with their message boxes; whether it may be
/// returned.
fn check(cx: &mut Ctx, h: u32, d: &Dlg, path: &str) -> UR<bool> {
    let v = vfs(cx.proc)?;
    let attrs = v.get_attributes(path).ok();
    let name = path.rsplit('\\').next().unwrap_or(path).to_string();
    let dir_ok = parent_of(path).is_some_and(|p| v.get_attributes(&p).is_ok_and(|a| a & 0x10 != 0));
    if !dir_ok && d.flags & (OFN_PATHMUSTEXIST | OFN_FILEMUSTEXIST) != 0 {
        message(
            cx,
            h,
            d,
            format!("{name}\nPath does not exist.\nCheck the path and try again."),
            MB_OK | MB_ICONWARNING,
        )?;
        return Ok(false);
    }
    match attrs {
        None if d.flags & OFN_FILEMUSTEXIST != 0 => {
            message(
                cx,
                h,
                d,
                format!("{name}\nFile not found.\nPlease verify the correct file name was given."),
                MB_OK | MB_ICONWARNING,
            )?;
            return Ok(false);
        }
        None if d.flags & OFN_CREATEPROMPT != 0 => {
            let a = message(
                cx,
                h,
                d,
                format!("{name}\nThis file does not exist.\nDo you want to create it?"),
                MB_YESNO | MB_ICONWARNING,
            )?;
            if a != IDYES {
                return Ok(false);
            }
        }
        Some(a) if a & 0x1 != 0 && d.flags & OFN_NOREADONLYRETURN != 0 => {
            message(
                cx,
                h,
                d,
                format!(
                    "{name}\nThis file is set to read-only.\nTry again with a different file name."
                ),
                MB_OK | MB_ICONWARNING,
            )?;
            return Ok(false);
        }
        Some(_) if d.save && d.flags & OFN_OVERWRITEPROMPT != 0 => {
            let a = message(
                cx,
                h,
                d,
                format!("{name} already exists.\nDo you want to replace it?"),
                MB_YESNO | MB_ICONWARNING,
            )?;
            if a != IDYES {
                return Ok(false);
            }
        }
        _ => {}
    }
    Ok(true)
}

/// Fills the caller's OPENFILENAME with the chosen files; the extended error
/// (FNERR_BUFFERTOOSMALL) when lpstrFile cannot hold them, else 0.
fn write_result(cx: &mut Ctx, d: &Dlg, paths: &[String], ro_checked: bool) -> UR<u32> {
    let ofn = d.ofn;
    let u = d.unicode;
    let file = rd(cx, ofn, 28)?;
    let cap = rd(cx, ofn, 32)?;
    let (units, offset, ext) = if paths.len() == 1 {
        single_result(&paths[0], u)
    } else {
        let dir = parent_of(&paths[0]).unwrap_or_default();
        let names: Vec<String> = paths
            .iter()
            .map(|p| p.rsplit('\\').next().unwrap_or(p).to_string())
            .collect();
        let (mut units, offset) = multi_result(&dir, &names, u);
        // The list's own ending NUL is written with the string's.
        units.pop();
        (units, offset, 0)
    };
    if file == 0 || (cap as usize) < units.len() + 1 {
        if file != 0 && cap * if u { 2 } else { 1 } >= 2 {
            // The size needed, in characters, in the buffer's first two bytes.
            cx.proc.mem.write_u16(file, (units.len() + 1) as u16)?;
        }
        return Ok(FNERR_BUFFERTOOSMALL);
    }
    let mut out = units;
    out.push(0);
    write_units(cx, file, &out, u)?;
    cx.proc.mem.write_u16(ofn + 56, offset)?;
    cx.proc.mem.write_u16(ofn + 58, ext)?;
    let title_p = rd(cx, ofn, 36)?;
    let title_cap = rd(cx, ofn, 40)?;
    if title_p != 0 && title_cap > 0 {
        let name = paths[0].rsplit('\\').next().unwrap_or("");
        let mut t = encoded(name, u);
        t.truncate(title_cap as usize - 1);
        t.push(0);
        write_units(cx, title_p, &t, u)?;
    }
    // 0 without a filter list.
    let index = if d.filters.is_empty() {
        0
    } else {
        d.filter as u32 + 1
    };
    cx.proc.mem.write_u32(ofn + 24, index)?;
    let mut flags = rd(cx, ofn, 52)? & !(OFN_READONLY | OFN_EXTENSIONDIFFERENT);
    if ro_checked {
        flags |= OFN_READONLY;
    }
    if let Some(def) = &d.def_ext
        && paths.len() == 1
        && !extension(&paths[0])
            .unwrap_or("")
            .eq_ignore_ascii_case(def.trim_start_matches('.'))
    {
        flags |= OFN_EXTENSIONDIFFERENT;
    }
    cx.proc.mem.write_u32(ofn + 52, flags)?;
    Ok(0)
}

fn auto_cancel(cx: &mut Ctx, h: u32) -> UR<()> {
    crate::user32::msg::KillTimer(cx, h, AUTO_TIMER);
    let Some(d) = dlg_of(cx, h) else {
        return Ok(());
    };
    let shown: Vec<String> = d
        .entries
        .iter()
        .map(|e| {
            if e.folder {
                format!("{}\\", e.name)
            } else {
                e.name.clone()
            }
        })
        .collect();
    let line = format!(
        "winterp: file dialog \"{}\" in {} [{}] -> Cancel\n",
        d.title,
        d.dir,
        shown.join(", ")
    );
    cx.proc.host.stderr(line.as_bytes());
    let b = item(cx, h, IDCANCEL);
    send(cx, h, WM_COMMAND, IDCANCEL, b, true)?;
    Ok(())
}

/// Draws a line of the owner-drawn file list: a folder or page glyph, then the
/// name, highlighted when selected.
fn draw_item(cx: &mut Ctx, h: u32, dis: u32) -> UR<u32> {
    let m = &cx.proc.mem;
    let ctl_id = m.read_u32(dis + 4)?;
    if ctl_id != LST1 {
        return Ok(0);
    }
    let id = m.read_u32(dis + 8)? as i32;
    let state = m.read_u32(dis + 16)?;
    let hdc = m.read_u32(dis + 24)?;
    let r = Rect::new(
        m.read_u32(dis + 28)? as i32,
        m.read_u32(dis + 32)? as i32,
        m.read_u32(dis + 36)? as i32,
        m.read_u32(dis + 40)? as i32,
    );
    let Some(d) = dlg_of(cx, h) else {
        return Ok(1);
    };
    let selected = state & 0x1 != 0;
    let (bg, fg) = if selected {
        (
            crate::user32::window::sys_color_rgb(13),
            crate::user32::window::sys_color_rgb(14),
        )
    } else {
        (0xffffff, 0)
    };
    let cr = crate::user32::window::rgb_to_colorref;
    crate::gdi32::paint::fill_rect(cx.proc, hdc, r, cr(bg))?;
    if let Some(e) = usize::try_from(id).ok().and_then(|k| d.entries.get(k)) {
        // A 12 x 10 glyph: a yellow folder with its tab, or a white page.
        let (x, y) = (r.left + 3, r.top + (r.height() - 10) / 2);
        let outline = cr(0x808080);
        if e.folder {
            crate::gdi32::paint::fill_rect(cx.proc, hdc, Rect::new(x, y, x + 5, y + 2), outline)?;
            crate::gdi32::paint::fill_rect(
                cx.proc,
                hdc,
                Rect::new(x, y + 1, x + 12, y + 10),
                outline,
            )?;
            crate::gdi32::paint::fill_rect(
                cx.proc,
                hdc,
                Rect::new(x + 1, y + 2, x + 11, y + 9),
                cr(0xffff80),
            )?;
        } else {
            crate::gdi32::paint::fill_rect(
                cx.proc,
                hdc,
                Rect::new(x + 1, y - 1, x + 10, y + 11),
                outline,
            )?;
            crate::gdi32::paint::fill_rect(
                cx.proc,
                hdc,
                Rect::new(x + 2, y, x + 9, y + 10),
                cr(0xffffff),
            )?;
        }
        call_export(cx, "GDI32.dll", "SetBkMode", &[hdc, 1])?;
        call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, cr(fg)])?;
        crate::gdi32::paint::draw_text(
            cx.proc,
            hdc,
            &e.name,
            Rect::new(r.left + 19, r.top, r.right, r.bottom),
            crate::gdi32::paint::DT_SINGLELINE
                | crate::gdi32::paint::DT_VCENTER
                | crate::gdi32::paint::DT_NOPREFIX,
        );
    }
    Ok(1)
}

fn command(cx: &mut Ctx, h: u32, wp: u32) -> UR<u32> {
    let id = wp & 0xffff;
    let code = wp >> 16;
    let Some(d) = dlg_of(cx, h) else {
        return Ok(0);
    };
    match (id, code) {
        (IDOK, _) => confirm(cx, h)?,
        (IDCANCEL, _) => end(cx, h, IDCANCEL)?,
        (ID_UP, _) => {
            if let Some(p) = parent_of(&d.dir) {
                show_folder(cx, h, &p)?;
            }
        }
        (PSH_HELP, _) => help(cx, h, &d)?,
        (LST1, LBN_SELCHANGE) => {
            let sel = send(cx, item(cx, h, LST1), LB_GETCURSEL, 0, 0, true)?;
            if let Some(e) = d.entries.get(sel as usize).filter(|e| !e.folder) {
                let edit = item(cx, h, EDT1);
                set_text(cx, edit, &e.name)?;
            }
        }
        (LST1, LBN_DBLCLK) => {
            let sel = send(cx, item(cx, h, LST1), LB_GETCURSEL, 0, 0, true)?;
            match d.entries.get(sel as usize) {
                Some(e) if e.folder => show_folder(cx, h, &join(&d.dir, &e.name))?,
                Some(e) => {
                    let edit = item(cx, h, EDT1);
                    set_text(cx, edit, &e.name)?;
                    confirm(cx, h)?;
                }
                None => {}
            }
        }
        (CMB1, CBN_SELCHANGE) => {
            let sel = send(cx, item(cx, h, CMB1), CB_GETCURSEL, 0, 0, true)?;
            if (sel as usize) < d.filters.len() {
                update(cx, h, |d| {
                    d.filter = sel as usize;
                    d.typed_filter = None;
                });
                show_folder(cx, h, &d.dir)?;
            }
        }
        (CMB2, CBN_SELCHANGE) => {
            let sel = send(cx, item(cx, h, CMB2), CB_GETCURSEL, 0, 0, true)?;
            if let Some(f) = chain_of(&d.dir).get(sel as usize) {
                show_folder(cx, h, f)?;
            }
        }
        _ => return Ok(0),
    }
    Ok(1)
}

/// Help: the registered HELPMSGSTRING message ("commdlg_help") to the owner, with
/// the dialog and the OPENFILENAME, as Windows sends it.
fn help(cx: &mut Ctx, h: u32, d: &Dlg) -> UR<()> {
    if d.owner == 0 {
        return Ok(());
    }
    let name = "commdlg_help";
    let (p, esp) = stack_alloc(cx, crate::user32::str_bytes(name, true));
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, name, true)?;
        Ok(call_export(cx, "USER32.dll", "RegisterWindowMessageW", &[p])?.unwrap_or(0))
    })();
    stack_free(cx, esp);
    let msg = r?;
    if msg != 0 {
        send(cx, d.owner, msg, h, d.ofn, d.unicode)?;
    }
    Ok(())
}

fn dialog_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32) -> UR<u32> {
    match m {
        WM_INITDIALOG => init(cx, h, lp),
        WM_TIMER if wp == AUTO_TIMER => {
            auto_cancel(cx, h)?;
            Ok(1)
        }
        WM_COMMAND => command(cx, h, wp),
        WM_DRAWITEM => draw_item(cx, h, lp),
        // The file list's lines: the glyph's height and a little room.
        WM_MEASUREITEM if wp == LST1 => {
            cx.proc.mem.write_u32(lp + 16, 16)?;
            Ok(1)
        }
        _ => Ok(0),
    }
}

/// The dialog procedure of the Open and Save As dialogs.
pub fn FileDialogProc(
    cx: &mut Ctx,
    hDlg: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(dialog_proc(cx, hDlg, uMsg, wParam, lParam))
}

// ---- GetOpenFileName / GetSaveFileName ----------------------------------------------------

/// Reads the caller's OPENFILENAME, shows the dialog and returns TRUE when the user
/// chose a file, FALSE on Cancel (error 0) or an error (CommDlgExtendedError).
fn file_dialog(cx: &mut Ctx, ofn: u32, unicode: bool, save: bool) -> UR<u32> {
    let api = match (save, unicode) {
        (false, false) => "GetOpenFileNameA",
        (false, true) => "GetOpenFileNameW",
        (true, false) => "GetSaveFileNameA",
        (true, true) => "GetSaveFileNameW",
    };
    set_error(cx, 0);
    if ofn == 0 {
        set_error(cx, CDERR_INITIALIZATION);
        return Ok(0);
    }
    let size = rd(cx, ofn, 0)?;
    if size != OFN_SIZE_400 && size != OFN_SIZE_500 {
        set_error(cx, CDERR_STRUCTSIZE);
        return Ok(0);
    }
    let flags = rd(cx, ofn, 52)?;
    if flags & OFN_ENABLEHOOK != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "{api} with a hook procedure (OFN_ENABLEHOOK)"
        ))
        .into());
    }
    if flags & (OFN_ENABLETEMPLATE | OFN_ENABLETEMPLATEHANDLE) != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "{api} with a custom template (OFN_ENABLETEMPLATE/OFN_ENABLETEMPLATEHANDLE)"
        ))
        .into());
    }
    let owner = rd(cx, ofn, 4)?;
    let owner = if owner != 0 && lock_wm(cx.proc).win(owner).is_some() {
        lock_wm(cx.proc).top_of(owner)
    } else {
        0
    };
    let filters = filter_pairs(&read_multi(cx, rd(cx, ofn, 12)?, unicode, 512)?);
    let index = rd(cx, ofn, 24)? as usize;
    let filter = if index >= 1 && index <= filters.len() {
        index - 1
    } else {
        0
    };
    // The custom filter's pattern (its second string), when nFilterIndex is 0.
    let custom = read_multi(cx, rd(cx, ofn, 16)?, unicode, 2)?;
    let typed_filter = (index == 0).then(|| custom.get(1).cloned()).flatten();
    let title_p = rd(cx, ofn, 48)?;
    let title = if title_p != 0 {
        crate::user32::read_str(cx, title_p, unicode)?
    } else if save {
        "Save As".to_string()
    } else {
        "Open".to_string()
    };
    let def_ext_p = rd(cx, ofn, 60)?;
    let def_ext = if def_ext_p != 0 {
        Some(crate::user32::read_str(cx, def_ext_p, unicode)?)
    } else {
        None
    };
    // The folder shown first: the one lpstrFile names, else lpstrInitialDir, else
    // the current one.
    let v = vfs(cx.proc)?;
    let is_dir = |p: &str| v.get_attributes(p).is_ok_and(|a| a & 0x10 != 0);
    let file = crate::user32::read_str(cx, rd(cx, ofn, 28)?, unicode)?;
    let initial = crate::user32::read_str(cx, rd(cx, ofn, 44)?, unicode)?;
    let cwd = v.current_dir();
    let dir = [
        file.rfind('\\').map(|k| file[..=k].to_string()),
        Some(initial),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.is_empty())
    .filter_map(|s| {
        v.full_path(&join(&cwd, &s))
            .ok()
            .or_else(|| v.full_path(&s).ok())
    })
    .map(|s| {
        if s.len() > 3 {
            s.trim_end_matches('\\').to_string()
        } else {
            s
        }
    })
    .find(|s| is_dir(s))
    .unwrap_or(cwd);
    let key = with(cx, |d| {
        d.next = d.next.wrapping_add(1).max(1);
        let k = d.next;
        d.by_key.insert(
            k,
            Dlg {
                ofn,
                unicode,
                save,
                flags,
                owner,
                title: title.clone(),
                filters,
                filter,
                typed_filter,
                def_ext,
                dir,
                entries: Vec::new(),
                answered: false,
                error: 0,
            },
        );
        k
    });
    let tpl = template(&title, save);
    let r = (|| -> UR<u32> {
        let dlgproc = cx.proc.resolve_hle(super::DLL.name, PROC_EXPORT)?;
        let (buf, esp) = stack_alloc(cx, tpl.len() as u32);
        let r = (|| -> UR<u32> {
            cx.proc.mem.write_bytes(buf, &tpl)?;
            let inst = cx
                .proc
                .hle_dll(super::DLL.name)
                .and_then(|d| crate::loader::hle_module::base_of(cx.proc, d))
                .unwrap_or(0);
            Ok(call_export(
                cx,
                "USER32.dll",
                "DialogBoxIndirectParamW",
                &[inst, buf, owner, dlgproc, key],
            )?
            .unwrap_or(u32::MAX))
        })();
        stack_free(cx, esp);
        r
    })();
    let left = with(cx, |d| {
        d.by_hwnd.retain(|_, k| *k != key);
        d.by_key.remove(&key)
    });
    let r = r?;
    if r == u32::MAX {
        set_error(cx, CDERR_DIALOGFAILURE);
        return Ok(0);
    }
    if let Some(e) = left.map(|d| d.error).filter(|&e| e != 0) {
        set_error(cx, e);
        return Ok(0);
    }
    Ok((r == IDOK) as u32)
}

pub fn GetOpenFileNameA(cx: &mut Ctx, lpofn: Ptr) -> ApiResult<Outcome> {
    fin(file_dialog(cx, lpofn.0, false, false))
}

pub fn GetOpenFileNameW(cx: &mut Ctx, lpofn: Ptr) -> ApiResult<Outcome> {
    fin(file_dialog(cx, lpofn.0, true, false))
}

pub fn GetSaveFileNameA(cx: &mut Ctx, lpofn: Ptr) -> ApiResult<Outcome> {
    fin(file_dialog(cx, lpofn.0, false, true))
}

pub fn GetSaveFileNameW(cx: &mut Ctx, lpofn: Ptr) -> ApiResult<Outcome> {
    fin(file_dialog(cx, lpofn.0, true, true))
}

/// GetFileTitleA: as GetFileTitleW, in the ANSI code page.
pub fn GetFileTitleA(cx: &mut Ctx, lpszFile: Ptr, lpszTitle: Ptr, cchSize: u16) -> ApiResult<i32> {
    if lpszFile.is_null() {
        return Ok(-1);
    }
    let path: Vec<u16> = crate::kernel32::string::read_ansi(cx.proc, lpszFile.0)?
        .encode_utf16()
        .collect();
    let Some(t) = super::file_title(&path) else {
        return Ok(-1);
    };
    let bytes = encode_ansi(&String::from_utf16_lossy(&t));
    if lpszTitle.is_null() || (cchSize as usize) <= bytes.len() {
        return Ok(bytes.len() as i32 + 1);
    }
    let mut b = bytes;
    b.push(0);
    cx.proc.mem.write_bytes(lpszTitle.0, &b)?;
    Ok(0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetOpenFileNameA", GetOpenFileNameA),
        stdcall("GetOpenFileNameW", GetOpenFileNameW),
        stdcall("GetSaveFileNameA", GetSaveFileNameA),
        stdcall("GetSaveFileNameW", GetSaveFileNameW),
        stdcall("GetFileTitleA", GetFileTitleA),
        stdcall(PROC_EXPORT, FileDialogProc),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_above_and_their_labels() {
        assert_eq!(parent_of("C:\\A\\B"), Some("C:\\A".into()));
        assert_eq!(parent_of("C:\\A"), Some("C:\\".into()));
        assert_eq!(parent_of("C:\\"), None);
        assert_eq!(chain_of("C:\\A\\B"), ["C:\\", "C:\\A", "C:\\A\\B"]);
        assert_eq!(folder_label("C:\\"), "C:\\");
        assert_eq!(folder_label("C:\\A\\Games"), "Games");
    }

    #[test]
    fn offsets_of_the_name_and_its_extension() {
        // "C:\DIR\" is 7 characters; the extension starts after "C:\DIR\a.".
        let (u, off, ext) = single_result("C:\\DIR\\a.txt", true);
        assert_eq!((u.len(), off, ext), (12, 7, 9));
        // No extension: the terminating NUL's offset; a final '.': 0.
        assert_eq!(single_result("C:\\DIR\\readme", false).2, 13);
        assert_eq!(single_result("C:\\DIR\\x.", false).2, 0);
    }

    #[test]
    fn several_files_are_the_folder_then_each_name() {
        let (u, off) = multi_result("C:\\D", &["a".into(), "bc".into()], true);
        let want: Vec<u16> = "C:\\D\0a\0bc\0".encode_utf16().collect();
        assert_eq!(u, want);
        assert_eq!(off, 5);
        // The drive's root keeps its backslash.
        let (u, _) = multi_result("C:\\", &["a".into()], false);
        assert_eq!(u, "C:\\\0a\0".encode_utf16().collect::<Vec<_>>());
    }

    #[test]
    fn typed_names_with_and_without_quotes() {
        assert_eq!(typed_names(" a.txt ", false), ["a.txt"]);
        assert_eq!(
            typed_names("\"a b.txt\" \"c.txt\"", true),
            ["a b.txt", "c.txt"]
        );
        assert_eq!(typed_names("\"one.txt\"", false), ["one.txt"]);
    }

    #[test]
    fn filter_pairs_drop_an_unpaired_description() {
        let s: Vec<String> = ["Text", "*.txt", "All", "*.*", "Lone"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            filter_pairs(&s),
            [
                ("Text".into(), "*.txt".into()),
                ("All".into(), "*.*".into())
            ]
        );
    }

    #[test]
    fn the_template_has_windows_control_ids() {
        let t = template("Open", false);
        assert_eq!(u16::from_le_bytes([t[8], t[9]]), 12);
        let words: Vec<u16> = t
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        for id in [EDT1, LST1, CMB1, CMB2, CHX1, PSH_HELP] {
            assert!(words.contains(&(id as u16)), "{id:#x}");
        }
    }
}
