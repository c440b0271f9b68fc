//! The shell's browser object (CLSID_ExplorerBrowser, IExplorerBrowser), which a
//! program puts in its own window to show a folder of the namespace, as Wine's
//! Explorer does.
//!
//! Initialize makes the browser's window (class `ExplorerBrowserControl`) as a
//! child of the program's window at the rectangle given, and in it the folder
//! view's window (`SHELLDLL_DefView`, what IShellView::GetWindow gives) holding
//! a COMCTL32 list view in the view mode of the FOLDERSETTINGS (details: the Name,
//! Size and Type columns), with the system image list's icons. Browsing
//! (BrowseToIDList, BrowseToObject; SBSP_ABSOLUTE, SBSP_PARENT and the travel
//! log's SBSP_NAVIGATEBACK / SBSP_NAVIGATEFORWARD) fills the view with the items
//! of the folder from [`super::shellfolder`] (folders first, then by name) and
//! tells every IExplorerBrowserEvents sink given to Advise, in Windows' order:
//! OnNavigationPending (a failure cancels the navigation), OnViewCreated with
//! the view (an IShellView whose window is the list view), then
//! OnNavigationComplete. Double-clicking a folder in the view browses into it.
//!
//! EBO_SHOWFRAMES is kept and given back by GetOptions; the navigation pane it
//! asks for (a tree of the namespace beside the view) is not drawn, the view takes
//! the whole rectangle. Methods not served here (SetPropertyBag, SetEmptyText,
//! FillFromObject, RemoveAll, and the IShellView methods beyond its window,
//! Refresh and settings) report themselves by name.

#![allow(non_snake_case)]

use super::pidl::{self, Item};
use super::shellfolder;
use crate::hle::com::{
    self, E_FAIL, E_INVALIDARG, E_NOINTERFACE, E_OUTOFMEMORY, E_POINTER, Guid, IID_IUNKNOWN, S_OK,
};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::ole32::apartment::{add_ref, call_method, release};
use crate::user32::msg::{WM_NCDESTROY, WM_NOTIFY, WM_SETREDRAW, WM_SIZE, send};
use crate::user32::window::{Create, create_window, set_window_pos};
use crate::user32::{Flow, NameOrId, UR, stack_alloc, stack_free, write_str};
use std::collections::HashMap;
use std::sync::Mutex;

const DLL: &str = "shell32.dll";
const CLASS: &str = "ExplorerBrowserControl";
const VIEW_CLASS: &str = "SHELLDLL_DefView";
const EXPORT_WNDPROC: &str = "__winterp_ExplorerBrowserWndProc";

/// CLSID_ExplorerBrowser {71F96385-DDD6-48D3-A0C1-AE06E8B055FB}.
pub const CLSID_EXPLORERBROWSER: Guid = Guid::new(
    0x71F96385,
    0xDDD6,
    0x48D3,
    [0xA0, 0xC1, 0xAE, 0x06, 0xE8, 0xB0, 0x55, 0xFB],
);
/// IID_IExplorerBrowser {DFD3B6B5-C10C-4BE9-85F6-A66969F402F6}.
const IID_IEXPLORERBROWSER: Guid = Guid::new(
    0xDFD3B6B5,
    0xC10C,
    0x4BE9,
    [0x85, 0xF6, 0xA6, 0x69, 0x69, 0xF4, 0x02, 0xF6],
);
const IID_ISHELLVIEW: Guid = Guid::new(0x000214E3, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IOLEWINDOW: Guid = Guid::new(0x00000114, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);

const BROWSER_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "Initialize",
    "Destroy",
    "SetRect",
    "SetPropertyBag",
    "SetEmptyText",
    "SetFolderSettings",
    "Advise",
    "Unadvise",
    "SetOptions",
    "GetOptions",
    "BrowseToIDList",
    "BrowseToObject",
    "FillFromObject",
    "RemoveAll",
    "GetCurrentView",
];

const VIEW_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "GetWindow",
    "ContextSensitiveHelp",
    "TranslateAccelerator",
    "EnableModeless",
    "UIActivate",
    "Refresh",
    "CreateViewWindow",
    "DestroyViewWindow",
    "GetCurrentInfo",
    "AddPropertySheetPages",
    "SaveViewState",
    "SelectItem",
    "GetItemObject",
];

// IExplorerBrowserEvents' slots after IUnknown.
const ON_NAVIGATION_PENDING: u32 = 3;
const ON_VIEW_CREATED: u32 = 4;
const ON_NAVIGATION_COMPLETE: u32 = 5;

const SBSP_PARENT: u32 = 0x2000;
const SBSP_NAVIGATEBACK: u32 = 0x4000;
const SBSP_NAVIGATEFORWARD: u32 = 0x8000;

// FOLDERVIEWMODE.
const FVM_ICON: u32 = 1;
const FVM_SMALLICON: u32 = 2;
const FVM_LIST: u32 = 3;
const FVM_DETAILS: u32 = 4;

const WS_CHILD: u32 = 0x4000_0000;
const WS_VISIBLE: u32 = 0x1000_0000;
const WS_CLIPCHILDREN: u32 = 0x0200_0000;
const WS_EX_CLIENTEDGE: u32 = 0x200;
const LVS_ICON: u32 = 0x0;
const LVS_REPORT: u32 = 0x1;
const LVS_SMALLICON: u32 = 0x2;
const LVS_LIST: u32 = 0x3;
const LVS_SHAREIMAGELISTS: u32 = 0x40;
const LVS_SHOWSELALWAYS: u32 = 0x8;
const LVM_SETIMAGELIST: u32 = 0x1003;
const LVM_DELETEALLITEMS: u32 = 0x1009;
const LVM_INSERTITEMW: u32 = 0x104d;
const LVM_SETITEMTEXTW: u32 = 0x1074;
const LVM_INSERTCOLUMNW: u32 = 0x1061;
const LVSIL_NORMAL: u32 = 0;
const LVSIL_SMALL: u32 = 1;
const NM_DBLCLK: u32 = (-3i32) as u32;
const LVN_ITEMACTIVATE: u32 = (-114i32) as u32;

/// One browser object.
#[derive(Default)]
struct Browser {
    refs: u32,
    /// The browser's window, the view's window in it and the view's list view.
    hwnd: u32,
    defview: u32,
    list: u32,
    view_mode: u32,
    folder_flags: u32,
    options: u32,
    sinks: Vec<(u32, u32)>,
    next_cookie: u32,
    current: Option<Item>,
    /// The items the view shows, in its order.
    shown: Vec<Item>,
    /// Visited folders and where in them we are.
    history: Vec<Item>,
    at: usize,
    view: u32,
    destroyed: bool,
}

#[derive(Default)]
struct State {
    browsers: HashMap<u32, Browser>,
    /// View objects, by pointer: their browser.
    views: HashMap<u32, (u32, u32)>,
    /// Browser windows, by handle: their browser.
    windows: HashMap<u32, u32>,
}

#[derive(Default)]
struct Slot(Mutex<State>);

fn with<R>(cx: &Ctx, f: impl FnOnce(&mut State) -> R) -> R {
    let s = cx.proc.slot::<Slot>();
    let mut g = s.0.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

fn browser<R>(cx: &Ctx, this: u32, f: impl FnOnce(&mut Browser) -> R) -> ApiResult<R> {
    with(cx, |s| s.browsers.get_mut(&this).map(f))
        .ok_or_else(|| ApiError::Other(format!("{this:#x} is not one of SHELL32's browsers")))
}

/// CoCreateInstance(CLSID_ExplorerBrowser): a new browser as `iid`.
pub fn co_create(cx: &mut Ctx, iid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    if *iid != IID_IEXPLORERBROWSER && *iid != IID_IUNKNOWN {
        log::info!("ExplorerBrowser for {iid}: only IExplorerBrowser is served");
        return Ok(E_NOINTERFACE);
    }
    let vt = com::vtable(cx.proc, DLL, "IExplorerBrowser", BROWSER_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    with(cx, |s| {
        s.browsers.insert(
            obj,
            Browser {
                refs: 1,
                next_cookie: 1,
                view_mode: FVM_DETAILS,
                ..Default::default()
            },
        )
    });
    cx.proc.mem.write_u32(ppv.0, obj)?;
    Ok(S_OK)
}

fn ret(h: u32) -> ApiResult<Outcome> {
    Ok(Outcome::Return(u64::from(h)))
}

/// An Outcome for a result that may have ended the thread in guest code.
fn fin(r: UR<u32>) -> ApiResult<Outcome> {
    match r {
        Ok(v) => ret(v),
        Err(Flow::Err(e)) => Err(e),
        Err(Flow::End(o)) => Ok(o),
    }
}

fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if riid.is_null() || ppv.is_null() {
        return Ok(E_POINTER);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_IEXPLORERBROWSER {
        AddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    log::info!("IExplorerBrowser::QueryInterface({iid}): not an interface winterp's browser has");
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

fn AddRef(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.browsers.get_mut(&this).map_or(0, |b| {
            b.refs += 1;
            b.refs
        })
    })
}

fn Release(cx: &mut Ctx, this: u32) -> ApiResult<Outcome> {
    let left = with(cx, |s| {
        s.browsers.get_mut(&this).map(|b| {
            b.refs = b.refs.saturating_sub(1);
            b.refs
        })
    });
    match left {
        Some(0) => {
            if let Err(end) = destroy(cx, this)? {
                return Ok(end);
            }
            let view = with(cx, |s| s.browsers.remove(&this).map_or(0, |b| b.view));
            if view != 0 {
                with(cx, |s| s.views.remove(&view));
                com::free_object(cx.proc, view)?;
            }
            com::free_object(cx.proc, this)?;
            ret(0)
        }
        Some(n) => ret(n),
        None => ret(0),
    }
}

/// Registers the browser's and the view's window classes (once; SHELL32's attach
/// would on Windows).
fn register_class(cx: &Ctx) {
    let class = |name| crate::user32::hostclass::HostClass {
        name,
        export: EXPORT_WNDPROC,
        wndproc,
        style: 0x1 | 0x2 | 0x8,
        wnd_extra: 0,
        background: 16,
    };
    crate::user32::hostclass::register(cx.proc, DLL, &[class(CLASS), class(VIEW_CLASS)]);
}

fn create(
    cx: &mut Ctx,
    class: &str,
    exstyle: u32,
    style: u32,
    r: crate::gdi32::Rect,
    parent: u32,
) -> UR<u32> {
    create_window(
        cx,
        Create {
            exstyle,
            class: NameOrId::Name(class.into()),
            class_ptr: 0,
            name_ptr: 0,
            style,
            x: r.left,
            y: r.top,
            w: r.width(),
            h: r.height(),
            parent,
            menu: 0,
            instance: 0,
            param: 0,
            unicode: true,
        },
    )
}

fn list_style(view_mode: u32) -> u32 {
    let kind = match view_mode {
        FVM_ICON => LVS_ICON,
        FVM_SMALLICON => LVS_SMALLICON,
        FVM_LIST => LVS_LIST,
        _ => LVS_REPORT,
    };
    WS_CHILD | WS_VISIBLE | LVS_SHAREIMAGELISTS | LVS_SHOWSELALWAYS | kind
}

/// Sends `msg` with a guest copy of `words` (and `text` after them, its address in
/// word `text_at`) as lParam.
fn send_struct(
    cx: &mut Ctx,
    to: u32,
    msg: u32,
    wp: u32,
    words: &[u32],
    text: Option<(usize, &str)>,
) -> UR<u32> {
    let tlen = text.map_or(0, |(_, t)| 2 * (t.encode_utf16().count() as u32 + 1));
    let size = 4 * words.len() as u32;
    let (p, esp) = stack_alloc(cx, size + tlen);
    let r = (|| -> UR<u32> {
        for (k, w) in words.iter().enumerate() {
            cx.proc.mem.write_u32(p + 4 * k as u32, *w)?;
        }
        if let Some((at, t)) = text {
            write_str(cx, p + size, t, true)?;
            cx.proc.mem.write_u32(p + 4 * at as u32, p + size)?;
        }
        send(cx, to, msg, wp, p, true)
    })();
    stack_free(cx, esp);
    r
}

/// Initialize(hwndParent, prc, pfs): the browser's window and its view.
fn Initialize(cx: &mut Ctx, this: u32, hwndParent: u32, prc: Ptr, pfs: Ptr) -> ApiResult<Outcome> {
    if hwndParent == 0 || prc.is_null() {
        return ret(E_INVALIDARG);
    }
    if browser(cx, this, |b| b.hwnd)? != 0 {
        return ret(E_FAIL);
    }
    let r = crate::gdi32::paint::read_rect(cx.proc, prc.0)?;
    let (mode, flags) = if pfs.is_null() {
        (FVM_DETAILS, 0)
    } else {
        (
            cx.proc.mem.read_u32(pfs.0)?,
            cx.proc.mem.read_u32(pfs.0 + 4)?,
        )
    };
    register_class(cx);
    super::ensure_comctl32(cx)?;
    fin((|| -> UR<u32> {
        let hwnd = create(
            cx,
            CLASS,
            0,
            WS_CHILD | WS_VISIBLE | WS_CLIPCHILDREN,
            r,
            hwndParent,
        )?;
        if hwnd == 0 {
            return Ok(E_FAIL);
        }
        with(cx, |s| s.windows.insert(hwnd, this));
        let inner = crate::gdi32::Rect::new(0, 0, r.width(), r.height());
        let defview = create(
            cx,
            VIEW_CLASS,
            0,
            WS_CHILD | WS_VISIBLE | WS_CLIPCHILDREN,
            inner,
            hwnd,
        )?;
        if defview == 0 {
            return Ok(E_FAIL);
        }
        with(cx, |s| s.windows.insert(defview, this));
        let list = create(
            cx,
            crate::comctl32::listview::CLASS,
            WS_EX_CLIENTEDGE,
            list_style(mode),
            inner,
            defview,
        )?;
        if list == 0 {
            return Err(Flow::Err(ApiError::Other(
                "ExplorerBrowser: COMCTL32's list view could not be created".into(),
            )));
        }
        let (small, large) = super::sysimagelist::lists(cx).map_err(Flow::Err)?;
        send(cx, list, LVM_SETIMAGELIST, LVSIL_SMALL, small, true)?;
        send(cx, list, LVM_SETIMAGELIST, LVSIL_NORMAL, large, true)?;
        // LVCOLUMNW: mask (LVCF_FMT | LVCF_WIDTH | LVCF_TEXT | LVCF_SUBITEM), fmt, cx,
        // pszText, cchTextMax, iSubItem.
        for (k, (name, width, fmt)) in [("Name", 180, 0), ("Size", 80, 1), ("Type", 120, 0)]
            .into_iter()
            .enumerate()
        {
            send_struct(
                cx,
                list,
                LVM_INSERTCOLUMNW,
                k as u32,
                &[0xf, fmt, width, 0, 0, k as u32],
                Some((3, name)),
            )?;
        }
        browser(cx, this, |b| {
            b.hwnd = hwnd;
            b.defview = defview;
            b.list = list;
            b.view_mode = mode;
            b.folder_flags = flags;
        })
        .map_err(Flow::Err)?;
        Ok(S_OK)
    })())
}

/// Destroys the browser's window (Destroy, and the last Release).
fn destroy(cx: &mut Ctx, this: u32) -> ApiResult<Result<(), Outcome>> {
    let hwnd = with(cx, |s| {
        s.browsers.get_mut(&this).map_or(0, |b| {
            b.destroyed = true;
            std::mem::take(&mut b.hwnd)
        })
    });
    if hwnd != 0 {
        with(cx, |s| s.windows.remove(&hwnd));
        match crate::user32::call_export(cx, "USER32.dll", "DestroyWindow", &[hwnd]) {
            Ok(_) => {}
            Err(Flow::Err(e)) => return Err(e),
            Err(Flow::End(o)) => return Ok(Err(o)),
        }
    }
    Ok(Ok(()))
}

fn Destroy(cx: &mut Ctx, this: u32) -> ApiResult<Outcome> {
    match destroy(cx, this)? {
        Ok(()) => ret(S_OK),
        Err(o) => Ok(o),
    }
}

/// SetRect(phdwp, rcBrowser): the RECT comes by value, four dwords on the stack.
fn SetRect(
    cx: &mut Ctx,
    this: u32,
    phdwp: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
) -> ApiResult<Outcome> {
    let (hwnd, list) = browser(cx, this, |b| (b.hwnd, b.defview))?;
    if phdwp != 0 {
        return Err(ApiError::UnimplementedCase(
            "IExplorerBrowser::SetRect within a DeferWindowPos batch".into(),
        ));
    }
    if hwnd == 0 {
        return ret(S_OK);
    }
    fin((|| -> UR<u32> {
        set_window_pos(
            cx,
            hwnd,
            0,
            left,
            top,
            right - left,
            bottom - top,
            0x4 | 0x10,
        )?;
        if list != 0 {
            set_window_pos(cx, list, 0, 0, 0, right - left, bottom - top, 0x4 | 0x10)?;
        }
        Ok(S_OK)
    })())
}

fn SetFolderSettings(cx: &mut Ctx, this: u32, pfs: Ptr) -> ApiResult<Outcome> {
    if pfs.is_null() {
        return ret(E_INVALIDARG);
    }
    let (mode, flags) = (
        cx.proc.mem.read_u32(pfs.0)?,
        cx.proc.mem.read_u32(pfs.0 + 4)?,
    );
    let list = browser(cx, this, |b| {
        b.view_mode = mode;
        b.folder_flags = flags;
        b.list
    })?;
    if list != 0 {
        const GWL_STYLE: u32 = (-16i32) as u32;
        let r = crate::user32::call_export(
            cx,
            "USER32.dll",
            "SetWindowLongW",
            &[list, GWL_STYLE, list_style(mode)],
        );
        if let Err(Flow::End(o)) = r {
            return Ok(o);
        }
        if let Err(Flow::Err(e)) = r {
            return Err(e);
        }
    }
    ret(S_OK)
}

fn Advise(cx: &mut Ctx, this: u32, psbe: u32, pdwCookie: Ptr) -> ApiResult<Outcome> {
    if psbe == 0 || pdwCookie.is_null() {
        return ret(E_INVALIDARG);
    }
    if let Err(end) = add_ref(cx, psbe)? {
        return Ok(end);
    }
    let cookie = browser(cx, this, |b| {
        let c = b.next_cookie;
        b.next_cookie += 1;
        b.sinks.push((c, psbe));
        c
    })?;
    cx.proc.mem.write_u32(pdwCookie.0, cookie)?;
    ret(S_OK)
}

fn Unadvise(cx: &mut Ctx, this: u32, dwCookie: u32) -> ApiResult<Outcome> {
    let sink = browser(cx, this, |b| {
        let k = b.sinks.iter().position(|(c, _)| *c == dwCookie)?;
        Some(b.sinks.remove(k).1)
    })?;
    let Some(sink) = sink else {
        return ret(E_INVALIDARG);
    };
    match release(cx, sink)? {
        Ok(_) => ret(S_OK),
        Err(end) => Ok(end),
    }
}

fn SetOptions(cx: &mut Ctx, this: u32, dwFlag: u32) -> ApiResult<u32> {
    browser(cx, this, |b| b.options = dwFlag)?;
    Ok(S_OK)
}

fn GetOptions(cx: &mut Ctx, this: u32, pdwFlag: Ptr) -> ApiResult<u32> {
    if pdwFlag.is_null() {
        return Ok(E_POINTER);
    }
    let o = browser(cx, this, |b| b.options)?;
    cx.proc.mem.write_u32(pdwFlag.0, o)?;
    Ok(S_OK)
}

/// Calls `slot` of every sink with `arg`; stops at the first failure (for
/// OnNavigationPending) when `stop_on_failure`.
fn tell(
    cx: &mut Ctx,
    this: u32,
    slot: u32,
    arg: u32,
    stop_on_failure: bool,
) -> ApiResult<Result<u32, Outcome>> {
    let sinks: Vec<u32> = browser(cx, this, |b| b.sinks.iter().map(|s| s.1).collect())?;
    for s in sinks {
        let hr = match call_method(cx, s, slot, &[arg])? {
            Ok(h) => h,
            Err(end) => return Ok(Err(end)),
        };
        if stop_on_failure && hr & 0x8000_0000 != 0 {
            return Ok(Ok(hr));
        }
    }
    Ok(Ok(S_OK))
}

/// The view object (made on first use).
fn view_object(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let have = browser(cx, this, |b| b.view)?;
    if have != 0 {
        return Ok(have);
    }
    let vt = com::vtable(cx.proc, DLL, "IShellView", VIEW_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    with(cx, |s| s.views.insert(obj, (this, 1)));
    browser(cx, this, |b| b.view = obj)?;
    Ok(obj)
}

/// Formats a file size as Explorer's Size column does: whole kilobytes, rounded
/// up, with thousands separators ("1 KB", "12,345 KB").
fn size_text(bytes: u64) -> String {
    let kb = bytes.div_ceil(1024);
    let digits = kb.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out} KB")
}

/// Fills the view with the folder's items: folders first, then files, each by
/// name as CompareIDs orders them.
fn fill(cx: &mut Ctx, this: u32, folder: &Item) -> UR<()> {
    let list = browser(cx, this, |b| b.list).map_err(Flow::Err)?;
    // SHCONTF_FOLDERS | SHCONTF_NONFOLDERS.
    let mut items = shellfolder::children(cx, folder, 0x20 | 0x40).map_err(Flow::Err)?;
    let mut keyed = Vec::new();
    for it in items.drain(..) {
        let dir = shellfolder::is_folder(cx, &it).map_err(Flow::Err)?;
        let name = shellfolder::display_name(cx, &it, 0x1).map_err(Flow::Err)?;
        keyed.push((!dir, name.to_lowercase(), name, dir, it));
    }
    keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    if list != 0 {
        send(cx, list, WM_SETREDRAW, 0, 0, true)?;
        send(cx, list, LVM_DELETEALLITEMS, 0, 0, true)?;
    }
    let mut shown = Vec::new();
    for (k, (_, _, name, dir, it)) in keyed.into_iter().enumerate() {
        let image = super::sysimagelist::icon_of(&it, dir, false);
        let (size, type_name) = match &it {
            Item::Path(p) if !(p.len() == 3 && p.ends_with(":\\")) => {
                let v = crate::kernel32::file::vfs(cx.proc).map_err(Flow::Err)?;
                let attrs = v.get_attributes(p).unwrap_or(0);
                let entry_size = v
                    .read_dir(p)
                    .ok()
                    .and_then(|e| e.into_iter().next())
                    .map_or(0, |e| e.size);
                let file = p.rsplit('\\').next().unwrap_or(p);
                let class = if dir {
                    None
                } else {
                    super::fileinfo::registered_class(cx, file).map_err(Flow::Err)?
                };
                let info = super::fileinfo::describe(
                    file,
                    attrs,
                    class.as_ref().map(|(c, f)| (c.as_str(), f.as_str())),
                );
                let size = if dir {
                    String::new()
                } else {
                    size_text(entry_size)
                };
                (size, info.type_name)
            }
            Item::Path(_) => (String::new(), "Local Disk".to_string()),
            Item::Virtual(_) => (String::new(), "System Folder".to_string()),
            Item::Desktop => (String::new(), "System Folder".to_string()),
        };
        if list != 0 {
            // LVITEMW: mask (LVIF_TEXT | LVIF_IMAGE | LVIF_PARAM), iItem, iSubItem,
            // state, stateMask, pszText, cchTextMax, iImage, lParam, iIndent.
            let at = send_struct(
                cx,
                list,
                LVM_INSERTITEMW,
                0,
                &[0x7, k as u32, 0, 0, 0, 0, 0, image as u32, k as u32, 0],
                Some((5, &name)),
            )?;
            for (sub, text) in [(1u32, &size), (2, &type_name)] {
                send_struct(
                    cx,
                    list,
                    LVM_SETITEMTEXTW,
                    at,
                    &[0x1, at, sub, 0, 0, 0, 0, 0, 0, 0],
                    Some((5, text)),
                )?;
            }
        }
        shown.push(it);
    }
    if list != 0 {
        send(cx, list, WM_SETREDRAW, 1, 0, true)?;
        crate::comctl32::ccommon::redraw(cx, list);
    }
    browser(cx, this, |b| b.shown = shown).map_err(Flow::Err)?;
    Ok(())
}

/// Browses to `item`: the events around filling the view. `record` puts it in the
/// travel log after the current place (a new navigation, not back or forward).
fn navigate(cx: &mut Ctx, this: u32, item: Item, record: bool) -> ApiResult<Outcome> {
    if !shellfolder::is_folder(cx, &item)? {
        return ret(E_INVALIDARG);
    }
    let list_pidl = pidl::alloc(cx, &item)?;
    if list_pidl == 0 {
        return ret(E_OUTOFMEMORY);
    }
    let r = (|| -> ApiResult<Result<u32, Outcome>> {
        match tell(cx, this, ON_NAVIGATION_PENDING, list_pidl, true)? {
            Ok(hr) if hr & 0x8000_0000 != 0 => return Ok(Ok(hr)),
            Ok(_) => {}
            Err(end) => return Ok(Err(end)),
        }
        match fill(cx, this, &item) {
            Ok(()) => {}
            Err(Flow::Err(e)) => return Err(e),
            Err(Flow::End(o)) => return Ok(Err(o)),
        }
        browser(cx, this, |b| {
            b.current = Some(item.clone());
            if record {
                if !b.history.is_empty() {
                    b.history.truncate(b.at + 1);
                }
                b.history.push(item.clone());
                b.at = b.history.len() - 1;
            }
        })?;
        let view = view_object(cx, this)?;
        if let Err(end) = tell(cx, this, ON_VIEW_CREATED, view, false)? {
            return Ok(Err(end));
        }
        if let Err(end) = tell(cx, this, ON_NAVIGATION_COMPLETE, list_pidl, false)? {
            return Ok(Err(end));
        }
        Ok(Ok(S_OK))
    })();
    crate::ole32::malloc::free(cx, list_pidl)?;
    match r? {
        Ok(hr) => ret(hr),
        Err(end) => Ok(end),
    }
}

/// Where a relative move (parent, back, forward) leads, if anywhere.
fn relative(cx: &mut Ctx, this: u32, uFlags: u32) -> ApiResult<Option<(Item, bool)>> {
    if uFlags & SBSP_PARENT != 0 {
        let cur = browser(cx, this, |b| b.current.clone())?;
        return Ok(match cur {
            Some(c) => shellfolder::parent_of(cx, &c)?.map(|p| (p, true)),
            None => None,
        });
    }
    let back = uFlags & SBSP_NAVIGATEBACK != 0;
    browser(cx, this, |b| {
        let to = if back {
            b.at.checked_sub(1)?
        } else {
            (b.at + 1 < b.history.len()).then_some(b.at + 1)?
        };
        b.at = to;
        Some((b.history[to].clone(), false))
    })
}

fn browse(cx: &mut Ctx, this: u32, target: Option<Item>, uFlags: u32) -> ApiResult<Outcome> {
    if browser(cx, this, |b| b.destroyed)? {
        return ret(E_FAIL);
    }
    if uFlags & (SBSP_PARENT | SBSP_NAVIGATEBACK | SBSP_NAVIGATEFORWARD) != 0 {
        return match relative(cx, this, uFlags)? {
            Some((item, record)) => navigate(cx, this, item, record),
            None => ret(E_FAIL),
        };
    }
    match target {
        Some(item) => navigate(cx, this, item, true),
        None => ret(E_INVALIDARG),
    }
}

fn BrowseToIDList(cx: &mut Ctx, this: u32, pidl_: u32, uFlags: u32) -> ApiResult<Outcome> {
    let target = if uFlags & (SBSP_PARENT | SBSP_NAVIGATEBACK | SBSP_NAVIGATEFORWARD) != 0 {
        None
    } else {
        match pidl::read(cx, pidl_)? {
            Some(i) => Some(i),
            None if pidl_ == 0 => Some(Item::Desktop),
            None => {
                return Err(ApiError::UnimplementedCase(format!(
                    "IExplorerBrowser::BrowseToIDList of an item ID list at {pidl_:#x} that \
                     winterp's SHELL32 did not make"
                )));
            }
        }
    };
    browse(cx, this, target, uFlags)
}

fn BrowseToObject(cx: &mut Ctx, this: u32, punk: u32, uFlags: u32) -> ApiResult<Outcome> {
    let target = if uFlags & (SBSP_PARENT | SBSP_NAVIGATEBACK | SBSP_NAVIGATEFORWARD) != 0 {
        None
    } else if punk == 0 {
        return ret(E_INVALIDARG);
    } else {
        match shellfolder::object_item(cx, punk) {
            Some(i) => Some(i),
            None => {
                return Err(ApiError::UnimplementedCase(format!(
                    "IExplorerBrowser::BrowseToObject of the object {punk:#x}, which is not one \
                     of winterp's shell folders"
                )));
            }
        }
    };
    browse(cx, this, target, uFlags)
}

fn GetCurrentView(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if riid.is_null() || ppv.is_null() {
        return Ok(E_POINTER);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    if browser(cx, this, |b| b.current.is_none())? {
        return Ok(E_FAIL);
    }
    let view = view_object(cx, this)?;
    ViewQueryInterface(cx, view, riid, ppv)
}

// ---- IShellView ------------------------------------------------------------------------------

fn ViewQueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if riid.is_null() || ppv.is_null() {
        return Ok(E_POINTER);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_ISHELLVIEW || iid == IID_IOLEWINDOW {
        ViewAddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    log::info!("IShellView::QueryInterface({iid}): not an interface winterp's view has");
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

/// The view lives as long as its browser; its count is kept for the answers.
fn ViewAddRef(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.views.get_mut(&this).map_or(0, |v| {
            v.1 += 1;
            v.1
        })
    })
}

fn ViewRelease(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.views.get_mut(&this).map_or(0, |v| {
            v.1 = v.1.saturating_sub(1).max(1);
            v.1
        })
    })
}

fn view_browser(cx: &Ctx, this: u32) -> ApiResult<u32> {
    with(cx, |s| s.views.get(&this).map(|v| v.0))
        .ok_or_else(|| ApiError::Other(format!("{this:#x} is not one of SHELL32's views")))
}

fn GetWindow(cx: &mut Ctx, this: u32, phwnd: Ptr) -> ApiResult<u32> {
    if phwnd.is_null() {
        return Ok(E_INVALIDARG);
    }
    let b = view_browser(cx, this)?;
    let win = browser(cx, b, |b| b.defview)?;
    cx.proc.mem.write_u32(phwnd.0, win)?;
    Ok(if win == 0 { E_FAIL } else { S_OK })
}

fn Refresh(cx: &mut Ctx, this: u32) -> ApiResult<Outcome> {
    let b = view_browser(cx, this)?;
    let Some(cur) = browser(cx, b, |b| b.current.clone())? else {
        return ret(S_OK);
    };
    fin(fill(cx, b, &cur).map(|()| S_OK))
}

/// FOLDERSETTINGS: the view mode and flags.
fn GetCurrentInfo(cx: &mut Ctx, this: u32, pfs: Ptr) -> ApiResult<u32> {
    if pfs.is_null() {
        return Ok(E_INVALIDARG);
    }
    let b = view_browser(cx, this)?;
    let (mode, flags) = browser(cx, b, |b| (b.view_mode, b.folder_flags))?;
    cx.proc.mem.write_u32(pfs.0, mode)?;
    cx.proc.mem.write_u32(pfs.0 + 4, flags)?;
    Ok(S_OK)
}

// ---- The browser's window ---------------------------------------------------------------------

/// The browser's window and the view's: the view fills the browser, the list
/// view fills the view, and a double click (or Enter) on a folder in the list
/// browses into it.
pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let this = with(cx, |s| s.windows.get(&h).copied());
    match (m, this) {
        (WM_SIZE, Some(this)) => {
            let (hwnd, defview, list) =
                browser(cx, this, |b| (b.hwnd, b.defview, b.list)).map_err(Flow::Err)?;
            let list = if h == hwnd { defview } else { list };
            if list != 0 {
                let (w, ht) = ((lp & 0xffff) as i32, (lp >> 16) as i32);
                set_window_pos(cx, list, 0, 0, 0, w, ht, 0x4 | 0x10)?;
            }
            Ok(0)
        }
        (WM_NOTIFY, Some(this)) => {
            let code = cx.proc.mem.read_u32(lp + 8)?;
            if code == NM_DBLCLK || code == LVN_ITEMACTIVATE {
                // NMITEMACTIVATE: iItem after the NMHDR.
                let i = cx.proc.mem.read_u32(lp + 12)? as i32;
                let item = browser(cx, this, |b| b.shown.get(i.max(0) as usize).cloned())
                    .map_err(Flow::Err)?
                    .filter(|_| i >= 0);
                if let Some(item) = item
                    && shellfolder::is_folder(cx, &item).map_err(Flow::Err)?
                {
                    match navigate(cx, this, item, true).map_err(Flow::Err)? {
                        Outcome::Return(_) => {}
                        o => return Err(Flow::End(o)),
                    }
                }
            }
            Ok(0)
        }
        (WM_NCDESTROY, _) => {
            with(cx, |s| s.windows.remove(&h));
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        crate::user32::hostclass::export(EXPORT_WNDPROC, wndproc),
        stdcall("IExplorerBrowser::QueryInterface", QueryInterface),
        stdcall("IExplorerBrowser::AddRef", AddRef),
        stdcall("IExplorerBrowser::Release", Release),
        stdcall("IExplorerBrowser::Initialize", Initialize),
        stdcall("IExplorerBrowser::Destroy", Destroy),
        stdcall("IExplorerBrowser::SetRect", SetRect),
        stdcall("IExplorerBrowser::SetFolderSettings", SetFolderSettings),
        stdcall("IExplorerBrowser::Advise", Advise),
        stdcall("IExplorerBrowser::Unadvise", Unadvise),
        stdcall("IExplorerBrowser::SetOptions", SetOptions),
        stdcall("IExplorerBrowser::GetOptions", GetOptions),
        stdcall("IExplorerBrowser::BrowseToIDList", BrowseToIDList),
        stdcall("IExplorerBrowser::BrowseToObject", BrowseToObject),
        stdcall("IExplorerBrowser::GetCurrentView", GetCurrentView),
        stdcall("IShellView::QueryInterface", ViewQueryInterface),
        stdcall("IShellView::AddRef", ViewAddRef),
        stdcall("IShellView::Release", ViewRelease),
        stdcall("IShellView::GetWindow", GetWindow),
        stdcall("IShellView::Refresh", Refresh),
        stdcall("IShellView::GetCurrentInfo", GetCurrentInfo),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_whole_kilobytes_rounded_up() {
        assert_eq!(size_text(0), "0 KB");
        assert_eq!(size_text(1), "1 KB");
        assert_eq!(size_text(1024), "1 KB");
        assert_eq!(size_text(1025), "2 KB");
        assert_eq!(size_text(12_345 * 1024), "12,345 KB");
        assert_eq!(size_text(1_234_567 * 1024), "1,234,567 KB");
    }
}
