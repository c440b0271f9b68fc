//! The InternetExplorer object: IWebBrowser2 (with IWebBrowserApp, IWebBrowser and
//! IDispatch, which it extends) over a frame window of [`super::frame`].
//!
//! Methods are HLE exports named `IWebBrowser2::Method` ([`crate::hle::com`]); the
//! ones not implemented here (IDispatch's type information and Invoke, ExecWB,
//! PutProperty, full-screen and theater mode, ...) stop the program with a report
//! naming them when called. Navigation is synchronous: about:blank (the empty page,
//! which needs no HTML engine) is shown at once with READYSTATE_COMPLETE; any other
//! address stops the program with a report naming MSHTML, the HTML engine winterp
//! does not emulate. get_Document reports the same: the document object is
//! MSHTML's.
//!
//! The object lives while the program holds references, and while its window is
//! open and visible (a visible Internet Explorer window stays open when its
//! automation client lets go of it, as on Windows); closing the window (the user,
//! or Quit) leaves the object, whose window-related properties then fail with
//! RPC_E_DISCONNECTED, the error a client of a closed iexplore.exe gets.

use super::DLL;
use super::frame;
use crate::hle::com::{self, Guid};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::user32::{Flow, UR};
use std::sync::Mutex;

/// CLSID_InternetExplorer, {0002DF01-0000-0000-C000-000000000046} (exdisp.h).
pub const CLSID_INTERNET_EXPLORER: Guid =
    Guid::new(0x0002DF01, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IDISPATCH: Guid = Guid::new(0x00020400, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IWEBBROWSER: Guid = Guid::new(
    0xEAB22AC1,
    0x30C1,
    0x11CF,
    [0xA7, 0xEB, 0x00, 0x00, 0xC0, 0x5B, 0xAE, 0x0B],
);
const IID_IWEBBROWSERAPP: Guid = Guid::new(0x0002DF05, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IWEBBROWSER2: Guid = Guid::new(
    0xD30C1661,
    0xCDAF,
    0x11D0,
    [0x8A, 0x3E, 0x00, 0xC0, 0x4F, 0xC9, 0xE2, 0x6E],
);
/// Interfaces Internet Explorer's object has that this one does not, named in the
/// log when a program asks for them.
const OTHER_INTERFACES: &[(Guid, &str)] = &[
    (
        Guid::new(
            0xB196B284,
            0xBAB4,
            0x101A,
            [0xB6, 0x9C, 0x00, 0xAA, 0x00, 0x34, 0x1D, 0x07],
        ),
        "IConnectionPointContainer (DWebBrowserEvents2 events)",
    ),
    (
        Guid::new(0x00000112, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]),
        "IOleObject",
    ),
    (
        Guid::new(
            0x6D5140C1,
            0x7436,
            0x11CE,
            [0x80, 0x34, 0x00, 0xAA, 0x00, 0x60, 0x09, 0xFA],
        ),
        "IServiceProvider",
    ),
    (
        Guid::new(
            0xB196B283,
            0xBAB4,
            0x101A,
            [0xB6, 0x9C, 0x00, 0xAA, 0x00, 0x34, 0x1D, 0x07],
        ),
        "IProvideClassInfo",
    ),
];

const S_OK: u32 = 0;
const E_FAIL: u32 = com::E_FAIL;
/// What a client of an Internet Explorer whose window has closed gets.
const RPC_E_DISCONNECTED: u32 = 0x8001_0108;
const VARIANT_TRUE: u32 = 0xffff;
const VARIANT_FALSE: u32 = 0;
pub const READYSTATE_UNINITIALIZED: u32 = 0;
pub const READYSTATE_COMPLETE: u32 = 4;
/// BrowserNavConstants.navOpenInNewWindow.
const NAV_OPEN_IN_NEW_WINDOW: i32 = 0x1;
/// The application name Internet Explorer 6 reports (IWebBrowserApp::get_Name) and
/// puts after the page's title in its caption.
pub const APP_NAME: &str = "Microsoft Internet Explorer";
const HKEY_CURRENT_USER: u32 = 0x8000_0001;

/// IWebBrowser2's methods in vtable order (exdisp.idl): IUnknown, IDispatch,
/// IWebBrowser, IWebBrowserApp, IWebBrowser2.
const METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "GetTypeInfoCount",
    "GetTypeInfo",
    "GetIDsOfNames",
    "Invoke",
    "GoBack",
    "GoForward",
    "GoHome",
    "GoSearch",
    "Navigate",
    "Refresh",
    "Refresh2",
    "Stop",
    "get_Application",
    "get_Parent",
    "get_Container",
    "get_Document",
    "get_TopLevelContainer",
    "get_Type",
    "get_Left",
    "put_Left",
    "get_Top",
    "put_Top",
    "get_Width",
    "put_Width",
    "get_Height",
    "put_Height",
    "get_LocationName",
    "get_LocationURL",
    "get_Busy",
    "Quit",
    "ClientToWindow",
    "PutProperty",
    "GetProperty",
    "get_Name",
    "get_HWND",
    "get_FullName",
    "get_Path",
    "get_Visible",
    "put_Visible",
    "get_StatusBar",
    "put_StatusBar",
    "get_StatusText",
    "put_StatusText",
    "get_ToolBar",
    "put_ToolBar",
    "get_MenuBar",
    "put_MenuBar",
    "get_FullScreen",
    "put_FullScreen",
    "Navigate2",
    "QueryStatusWB",
    "ExecWB",
    "ShowBrowserBar",
    "get_ReadyState",
    "get_Offline",
    "put_Offline",
    "get_Silent",
    "put_Silent",
    "get_RegisterAsBrowser",
    "put_RegisterAsBrowser",
    "get_RegisterAsDropTarget",
    "put_RegisterAsDropTarget",
    "get_TheaterMode",
    "put_TheaterMode",
    "get_AddressBar",
    "put_AddressBar",
    "get_Resizable",
    "put_Resizable",
];

/// One InternetExplorer object.
pub struct Browser {
    /// Its interface pointer (every interface it has is this one).
    pub this: u32,
    refs: u32,
    /// The frame window, 0 once it is closed.
    pub frame: u32,
    pub parts: frame::Parts,
    /// The page shown ("" before the first navigation) and its title.
    pub url: String,
    pub title: String,
    pub ready: u32,
    /// Pages visited; `pos` is the one shown.
    pub history: Vec<String>,
    pub pos: usize,
    pub visible: bool,
    pub status_bar: bool,
    pub tool_bar: bool,
    pub address_bar: bool,
    pub menu_bar: bool,
    pub resizable: bool,
    pub silent: bool,
    pub offline: bool,
    pub register_as_browser: bool,
    pub register_as_drop_target: bool,
    pub status_text: String,
    /// Opened by IEWinMain: closing the last such window ends its message loop.
    pub main: bool,
}

#[derive(Default)]
struct Browsers(Mutex<Vec<Browser>>);

/// Runs `f` on the browser `this` (None when there is no such object).
pub fn with<R>(cx: &Ctx, this: u32, f: impl FnOnce(&mut Browser) -> R) -> Option<R> {
    let s = cx.proc.slot::<Browsers>();
    let mut v = s.0.lock().unwrap_or_else(|e| e.into_inner());
    v.iter_mut().find(|b| b.this == this).map(f)
}

/// The browser whose frame or part is window `hwnd`.
pub fn by_window(cx: &Ctx, hwnd: u32) -> Option<u32> {
    let s = cx.proc.slot::<Browsers>();
    let v = s.0.lock().unwrap_or_else(|e| e.into_inner());
    v.iter()
        .find(|b| hwnd != 0 && (b.frame == hwnd || b.parts.contains(hwnd)))
        .map(|b| b.this)
}

pub fn frame_of(cx: &Ctx, this: u32) -> u32 {
    with(cx, this, |b| b.frame).unwrap_or(0)
}

/// A new InternetExplorer object with its (hidden) frame window, one reference.
pub fn create(cx: &mut Ctx, main: bool) -> UR<u32> {
    // The frame's classes are ieframe's and its controls COMCTL32's: both DLLs are
    // loaded (and attached) as the real ieframe.dll's imports would be.
    for dll in [DLL.name, crate::comctl32::DLL.name] {
        crate::loader::load_library(cx.proc, cx.thread, dll).map_err(|e| {
            ApiError::Other(format!("ieframe.dll: cannot load {dll} for the frame: {e}"))
        })?;
    }
    let vtable = com::vtable(cx.proc, DLL.name, "IWebBrowser2", METHODS)?;
    let this = com::new_object(cx.proc, vtable, 0, 8)?;
    if this == 0 {
        return Err(ApiError::Other("ieframe.dll: the process heap is exhausted".into()).into());
    }
    cx.proc
        .slot::<Browsers>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Browser {
            this,
            refs: 1,
            frame: 0,
            parts: frame::Parts::default(),
            url: String::new(),
            title: String::new(),
            ready: READYSTATE_UNINITIALIZED,
            history: Vec::new(),
            pos: 0,
            visible: false,
            status_bar: true,
            tool_bar: true,
            address_bar: true,
            menu_bar: true,
            resizable: true,
            silent: false,
            offline: false,
            register_as_browser: false,
            register_as_drop_target: true,
            status_text: String::new(),
            main,
        });
    let hwnd = frame::create(cx, this)?;
    if hwnd == 0 {
        forget(cx, this)?;
        return Err(
            ApiError::Other("ieframe.dll: the IEFrame window could not be created".into()).into(),
        );
    }
    Ok(this)
}

/// Drops the object's state and frees its block.
fn forget(cx: &mut Ctx, this: u32) -> ApiResult<()> {
    cx.proc
        .slot::<Browsers>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|b| b.this != this);
    com::free_object(cx.proc, this)
}

/// One reference fewer; at none the object goes, with its window unless that is
/// open and visible (then the window's closing frees it).
pub fn release(cx: &mut Ctx, this: u32) -> UR<u32> {
    let Some((refs, frame, visible)) = with(cx, this, |b| {
        b.refs = b.refs.saturating_sub(1);
        (b.refs, b.frame, b.visible)
    }) else {
        return Ok(0);
    };
    if refs == 0 {
        if frame == 0 {
            forget(cx, this)?;
        } else if !visible {
            // Its WM_NCDESTROY frees the object.
            crate::user32::window::destroy_window(cx, frame)?;
        }
    }
    Ok(refs)
}

/// The frame window `this` had is gone (WM_NCDESTROY).
pub fn frame_destroyed(cx: &mut Ctx, this: u32) -> UR<()> {
    let Some((refs, main)) = with(cx, this, |b| {
        b.frame = 0;
        b.parts = frame::Parts::default();
        b.visible = false;
        (b.refs, b.main)
    }) else {
        return Ok(());
    };
    if refs == 0 {
        forget(cx, this)?;
    }
    if main {
        let others = {
            let s = cx.proc.slot::<Browsers>();
            let v = s.0.lock().unwrap_or_else(|e| e.into_inner());
            v.iter().any(|b| b.main && b.frame != 0)
        };
        if !others {
            crate::user32::msg::PostQuitMessage(cx, 0);
        }
    }
    Ok(())
}

/// Shows or hides the frame.
pub fn set_visible(cx: &mut Ctx, this: u32, on: bool) {
    with(cx, this, |b| b.visible = on);
}

/// Navigation: about:blank is shown (the empty page); anything else needs MSHTML.
pub fn navigate(cx: &mut Ctx, this: u32, url: &str) -> UR<u32> {
    let url = url.trim();
    if !url.eq_ignore_ascii_case("about:blank") {
        return Err(ApiError::UnimplementedCase(format!(
            "ieframe.dll: navigating to \"{url}\": web pages are shown by MSHTML.dll, the HTML \
             engine, which winterp does not emulate (only about:blank, the empty page, is shown)"
        ))
        .into());
    }
    with(cx, this, |b| {
        let keep = if b.history.is_empty() { 0 } else { b.pos + 1 };
        b.history.truncate(keep);
        b.history.push("about:blank".into());
        b.pos = b.history.len() - 1;
    });
    show_current(cx, this)?;
    Ok(S_OK)
}

/// Shows the history entry at the current position.
fn show_current(cx: &mut Ctx, this: u32) -> UR<()> {
    with(cx, this, |b| {
        // Only about:blank gets into the history; its title is its address, as
        // Internet Explorer titles a page that has no <title>.
        b.url = b.history.get(b.pos).cloned().unwrap_or_default();
        b.title = b.url.clone();
        b.ready = READYSTATE_COMPLETE;
        b.status_text = "Done".into();
    });
    frame::show_page(cx, this)
}

/// The start page: HKCU\Software\Microsoft\Internet Explorer\Main "Start Page",
/// else about:blank.
pub fn go_home(cx: &mut Ctx, this: u32) -> UR<u32> {
    let page = crate::advapi32::registry::query_string(
        cx,
        HKEY_CURRENT_USER,
        "Software\\Microsoft\\Internet Explorer\\Main",
        "Start Page",
    )?
    .filter(|p| !p.trim().is_empty())
    .unwrap_or_else(|| "about:blank".into());
    navigate(cx, this, &page)
}

/// Back (`step` -1) or forward (+1) in the history; false when there is no page
/// that way.
pub fn go(cx: &mut Ctx, this: u32, step: isize) -> UR<bool> {
    let moved = with(cx, this, |b| {
        let to = b.pos as isize + step;
        if b.history.is_empty() || to < 0 || to as usize >= b.history.len() {
            return false;
        }
        b.pos = to as usize;
        true
    })
    .unwrap_or(false);
    if moved {
        show_current(cx, this)?;
    }
    Ok(moved)
}

/// Shows or hides one of the frame's bars.
pub fn set_bar(cx: &mut Ctx, this: u32, bar: frame::Bar, on: bool) -> UR<()> {
    with(cx, this, |b| match bar {
        frame::Bar::Status => b.status_bar = on,
        frame::Bar::Tool => b.tool_bar = on,
        frame::Bar::Address => b.address_bar = on,
        frame::Bar::Menu => b.menu_bar = on,
    });
    frame::apply_bars(cx, this)
}

// ---- COM glue ----------------------------------------------------------------------

fn hr(r: UR<u32>) -> ApiResult<crate::hle::Outcome> {
    crate::user32::fin(r)
}

fn put(cx: &Ctx, p: Ptr, v: u32) -> UR<u32> {
    if p.is_null() {
        return Ok(com::E_POINTER);
    }
    cx.proc.mem.write_u32(p.0, v)?;
    Ok(S_OK)
}

fn put_bstr(cx: &mut Ctx, p: Ptr, text: &str) -> UR<u32> {
    if p.is_null() {
        return Ok(com::E_POINTER);
    }
    let b = crate::oleaut32::new_bstr(cx, text)?;
    cx.proc.mem.write_u32(p.0, b)?;
    Ok(if b == 0 { com::E_OUTOFMEMORY } else { S_OK })
}

/// Writes a VARIANT_BOOL (two bytes: VARIANT_TRUE is -1) to *p.
fn put_vbool(cx: &Ctx, p: Ptr, on: bool) -> UR<u32> {
    if p.is_null() {
        return Ok(com::E_POINTER);
    }
    let v = if on { VARIANT_TRUE } else { VARIANT_FALSE };
    cx.proc.mem.write_u16(p.0, v as u16)?;
    Ok(S_OK)
}

/// A VARIANT_BOOL argument (a 16-bit value in a 32-bit stack slot): nonzero is true.
fn is_true(v: u32) -> bool {
    v & 0xffff != 0
}

/// The frame of a live object, or the HRESULT for a missing object or a closed window.
fn live_frame(cx: &Ctx, this: u32) -> Result<u32, u32> {
    match with(cx, this, |b| b.frame) {
        None => Err(com::E_INVALIDARG),
        Some(0) => Err(RPC_E_DISCONNECTED),
        Some(f) => Ok(f),
    }
}

fn QueryInterface(cx: &mut Ctx, This: u32, riid: Ptr, ppvObject: Ptr) -> ApiResult<u32> {
    if ppvObject.is_null() {
        return Ok(com::E_POINTER);
    }
    cx.proc.mem.write_u32(ppvObject.0, 0)?;
    if riid.is_null() {
        return Ok(com::E_INVALIDARG);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    let ours = [
        com::IID_IUNKNOWN,
        IID_IDISPATCH,
        IID_IWEBBROWSER,
        IID_IWEBBROWSERAPP,
        IID_IWEBBROWSER2,
    ];
    if !ours.contains(&iid) {
        match OTHER_INTERFACES.iter().find(|(g, _)| *g == iid) {
            Some((_, name)) => log::warn!(
                "ieframe.dll: the InternetExplorer object's {name} is not implemented \
                 (QueryInterface answers E_NOINTERFACE)"
            ),
            None => log::info!("ieframe.dll: InternetExplorer object has no interface {iid}"),
        }
        return Ok(com::E_NOINTERFACE);
    }
    if with(cx, This, |b| b.refs += 1).is_none() {
        return Ok(com::E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppvObject.0, This)?;
    Ok(S_OK)
}

fn AddRef(cx: &mut Ctx, This: u32) -> u32 {
    with(cx, This, |b| {
        b.refs += 1;
        b.refs
    })
    .unwrap_or(0)
}

fn Release(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(release(cx, This))
}

fn GoBack(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(go(cx, This, -1).map(|ok| if ok { S_OK } else { E_FAIL }))
}

fn GoForward(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(go(cx, This, 1).map(|ok| if ok { S_OK } else { E_FAIL }))
}

fn GoHome(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(_) => go_home(cx, This),
    })
}

/// A VARIANT's integer value (VT_I2, VT_I4, VT_UI4, VT_INT, by value or by
/// reference); None for VT_EMPTY/VT_ERROR (an omitted optional argument) or NULL.
fn variant_int(cx: &Ctx, p: Ptr) -> UR<Option<i32>> {
    if p.is_null() {
        return Ok(None);
    }
    let m = &cx.proc.mem;
    let vt = m.read_u32(p.0)? & 0xffff;
    const VT_BYREF: u32 = 0x4000;
    let (kind, at) = if vt & VT_BYREF != 0 {
        (vt & !VT_BYREF, m.read_u32(p.0 + 8)?)
    } else {
        (vt, p.0 + 8)
    };
    Ok(match kind {
        2 => Some(m.read_u32(at)? as u16 as i16 as i32),
        3 | 19 | 22 | 23 => Some(m.read_u32(at)? as i32),
        _ => None,
    })
}

/// A VARIANT holding text (VT_BSTR by value or reference, or a VT_VARIANT
/// reference to one); None for an omitted argument; Err for another kind.
fn variant_text(cx: &Ctx, p: Ptr) -> UR<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    let m = &cx.proc.mem;
    let vt = m.read_u32(p.0)? & 0xffff;
    match vt {
        0 | 10 => Ok(None),
        8 => Ok(Some(crate::oleaut32::read_bstr(cx, m.read_u32(p.0 + 8)?)?)),
        0x4008 => {
            let bp = m.read_u32(p.0 + 8)?;
            let b = if bp == 0 { 0 } else { m.read_u32(bp)? };
            Ok(Some(crate::oleaut32::read_bstr(cx, b)?))
        }
        0x400c => variant_text(cx, Ptr(m.read_u32(p.0 + 8)?)),
        _ => Err(ApiError::UnimplementedCase(format!(
            "ieframe.dll: navigating to a VARIANT of type {vt:#x} (a shell item's ID list, \
             VT_ARRAY|VT_UI1, or another kind)"
        ))
        .into()),
    }
}

/// Navigate/Navigate2's common part once the address is text.
fn navigate_with(
    cx: &mut Ctx,
    this: u32,
    url: &str,
    flags: Ptr,
    target: Ptr,
    post: Ptr,
) -> UR<u32> {
    if let Err(e) = live_frame(cx, this) {
        return Ok(e);
    }
    if variant_int(cx, flags)?.is_some_and(|f| f & NAV_OPEN_IN_NEW_WINDOW != 0) {
        return Err(ApiError::UnimplementedCase(
            "ieframe.dll: IWebBrowser2::Navigate with navOpenInNewWindow".into(),
        )
        .into());
    }
    if variant_text(cx, target)?.is_some_and(|t| !t.is_empty()) {
        return Err(ApiError::UnimplementedCase(
            "ieframe.dll: IWebBrowser2::Navigate into a named frame (frames are MSHTML's)".into(),
        )
        .into());
    }
    if !post.is_null() && cx.proc.mem.read_u32(post.0)? & 0xffff != 0 {
        return Err(ApiError::UnimplementedCase(
            "ieframe.dll: IWebBrowser2::Navigate with post data (a request to a server)".into(),
        )
        .into());
    }
    navigate(cx, this, url)
}

fn Navigate(
    cx: &mut Ctx,
    This: u32,
    URL: u32,
    Flags: Ptr,
    TargetFrameName: Ptr,
    PostData: Ptr,
    _Headers: Ptr,
) -> ApiResult<crate::hle::Outcome> {
    hr((|| {
        let url = crate::oleaut32::read_bstr(cx, URL)?;
        navigate_with(cx, This, &url, Flags, TargetFrameName, PostData)
    })())
}

fn Navigate2(
    cx: &mut Ctx,
    This: u32,
    URL: Ptr,
    Flags: Ptr,
    TargetFrameName: Ptr,
    PostData: Ptr,
    _Headers: Ptr,
) -> ApiResult<crate::hle::Outcome> {
    hr((|| {
        let Some(url) = variant_text(cx, URL)? else {
            return Ok(com::E_INVALIDARG);
        };
        navigate_with(cx, This, &url, Flags, TargetFrameName, PostData)
    })())
}

/// Refresh shows the current page again (about:blank, the only one there can be).
fn Refresh(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(_) => {
            if with(cx, This, |b| b.history.is_empty()).unwrap_or(true) {
                Ok(S_OK)
            } else {
                show_current(cx, This).map(|_| S_OK)
            }
        }
    })
}

/// Refresh2's level (normal, if expired, completely) only matters to a page loaded
/// from a server; about:blank is shown again as by Refresh.
fn Refresh2(cx: &mut Ctx, This: u32, _Level: Ptr) -> ApiResult<crate::hle::Outcome> {
    Refresh(cx, This)
}

/// Navigation completes inside Navigate, so nothing is ever loading when Stop comes:
/// Stop has nothing to cancel.
fn Stop(cx: &mut Ctx, This: u32) -> u32 {
    match live_frame(cx, This) {
        Err(e) => e,
        Ok(_) => S_OK,
    }
}

fn get_Document(cx: &mut Ctx, This: u32, ppDisp: Ptr) -> ApiResult<u32> {
    if !ppDisp.is_null() {
        cx.proc.mem.write_u32(ppDisp.0, 0)?;
    }
    let url = with(cx, This, |b| b.url.clone()).unwrap_or_default();
    Err(ApiError::UnimplementedCase(format!(
        "ieframe.dll!IWebBrowser2::get_Document (page \"{url}\"): the document object is \
         MSHTML.dll's HTMLDocument; the HTML engine is not emulated"
    )))
}

/// Internet Explorer's object is a top-level container (a WebBrowser control in a
/// program's window is not).
fn get_TopLevelContainer(cx: &mut Ctx, _This: u32, pBool: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(put_vbool(cx, pBool, true))
}

/// The frame's window rectangle, in screen coordinates.
fn frame_rect(cx: &Ctx, this: u32) -> Result<crate::gdi32::Rect, u32> {
    let f = live_frame(cx, this)?;
    crate::user32::lock_wm(cx.proc)
        .win(f)
        .map(|w| w.rect)
        .ok_or(RPC_E_DISCONNECTED)
}

fn get_geometry(cx: &mut Ctx, this: u32, p: Ptr, pick: fn(crate::gdi32::Rect) -> i32) -> UR<u32> {
    match frame_rect(cx, this) {
        Err(e) => Ok(e),
        Ok(r) => put(cx, p, pick(r) as u32),
    }
}

/// Moves or sizes the frame: `change` gives the new rectangle from the old one.
fn set_geometry(
    cx: &mut Ctx,
    this: u32,
    change: impl FnOnce(crate::gdi32::Rect) -> crate::gdi32::Rect,
) -> UR<u32> {
    let r = match frame_rect(cx, this) {
        Err(e) => return Ok(e),
        Ok(r) => r,
    };
    let n = change(r);
    let f = frame_of(cx, this);
    const SWP_NOZORDER: u32 = 0x4;
    const SWP_NOACTIVATE: u32 = 0x10;
    crate::user32::window::set_window_pos(
        cx,
        f,
        0,
        n.left,
        n.top,
        n.width(),
        n.height(),
        SWP_NOZORDER | SWP_NOACTIVATE,
    )?;
    Ok(S_OK)
}

fn get_Left(cx: &mut Ctx, This: u32, pl: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(get_geometry(cx, This, pl, |r| r.left))
}
fn get_Top(cx: &mut Ctx, This: u32, pl: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(get_geometry(cx, This, pl, |r| r.top))
}
fn get_Width(cx: &mut Ctx, This: u32, pl: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(get_geometry(cx, This, pl, |r| r.width()))
}
fn get_Height(cx: &mut Ctx, This: u32, pl: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(get_geometry(cx, This, pl, |r| r.height()))
}
fn put_Left(cx: &mut Ctx, This: u32, Left: i32) -> ApiResult<crate::hle::Outcome> {
    hr(set_geometry(cx, This, |r| {
        crate::gdi32::Rect::new(Left, r.top, Left + r.width(), r.bottom)
    }))
}
fn put_Top(cx: &mut Ctx, This: u32, Top: i32) -> ApiResult<crate::hle::Outcome> {
    hr(set_geometry(cx, This, |r| {
        crate::gdi32::Rect::new(r.left, Top, r.right, Top + r.height())
    }))
}
fn put_Width(cx: &mut Ctx, This: u32, Width: i32) -> ApiResult<crate::hle::Outcome> {
    hr(set_geometry(cx, This, |r| {
        crate::gdi32::Rect::new(r.left, r.top, r.left + Width, r.bottom)
    }))
}
fn put_Height(cx: &mut Ctx, This: u32, Height: i32) -> ApiResult<crate::hle::Outcome> {
    hr(set_geometry(cx, This, |r| {
        crate::gdi32::Rect::new(r.left, r.top, r.right, r.top + Height)
    }))
}

fn get_LocationName(cx: &mut Ctx, This: u32, LocationName: Ptr) -> ApiResult<crate::hle::Outcome> {
    let t = with(cx, This, |b| b.title.clone()).unwrap_or_default();
    hr(put_bstr(cx, LocationName, &t))
}

fn get_LocationURL(cx: &mut Ctx, This: u32, LocationURL: Ptr) -> ApiResult<crate::hle::Outcome> {
    let u = with(cx, This, |b| b.url.clone()).unwrap_or_default();
    hr(put_bstr(cx, LocationURL, &u))
}

/// Never busy: navigation completes inside Navigate.
fn get_Busy(cx: &mut Ctx, _This: u32, pBool: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(put_vbool(cx, pBool, false))
}

/// Closes the window; the object stays until it is released.
fn Quit(cx: &mut Ctx, This: u32) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(f) => crate::user32::window::destroy_window(cx, f).map(|_| S_OK),
    })
}

fn get_Name(cx: &mut Ctx, _This: u32, Name: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(put_bstr(cx, Name, APP_NAME))
}

fn get_HWND(cx: &mut Ctx, This: u32, pHWND: Ptr) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(f) => put(cx, pHWND, f),
    })
}

fn get_Visible(cx: &mut Ctx, This: u32, pBool: Ptr) -> ApiResult<crate::hle::Outcome> {
    let v = with(cx, This, |b| b.visible).unwrap_or(false);
    hr(put_vbool(cx, pBool, v))
}

fn put_Visible(cx: &mut Ctx, This: u32, Value: u32) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(f) => {
            let on = is_true(Value);
            const SW_HIDE: u32 = 0;
            const SW_SHOW: u32 = 5;
            set_visible(cx, This, on);
            crate::user32::window::show_window(cx, f, if on { SW_SHOW } else { SW_HIDE })
                .map(|_| S_OK)
        }
    })
}

/// A property kept on the object: `get` reads it into *p as a VARIANT_BOOL.
fn get_flag(
    cx: &mut Ctx,
    this: u32,
    p: Ptr,
    f: fn(&Browser) -> bool,
) -> ApiResult<crate::hle::Outcome> {
    let v = with(cx, this, |b| f(b)).unwrap_or(false);
    hr(put_vbool(cx, p, v))
}

fn set_flag(
    cx: &mut Ctx,
    this: u32,
    v: u32,
    f: fn(&mut Browser, bool),
) -> ApiResult<crate::hle::Outcome> {
    hr(match with(cx, this, |b| f(b, is_true(v))) {
        Some(()) => Ok(S_OK),
        None => Ok(com::E_INVALIDARG),
    })
}

fn set_bar_prop(
    cx: &mut Ctx,
    this: u32,
    bar: frame::Bar,
    v: bool,
) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, this) {
        Err(e) => Ok(e),
        Ok(_) => set_bar(cx, this, bar, v).map(|_| S_OK),
    })
}

fn get_StatusBar(cx: &mut Ctx, This: u32, pBool: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, pBool, |b| b.status_bar)
}
fn put_StatusBar(cx: &mut Ctx, This: u32, Value: u32) -> ApiResult<crate::hle::Outcome> {
    set_bar_prop(cx, This, frame::Bar::Status, is_true(Value))
}
fn get_MenuBar(cx: &mut Ctx, This: u32, Value: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, Value, |b| b.menu_bar)
}
fn put_MenuBar(cx: &mut Ctx, This: u32, Value: u32) -> ApiResult<crate::hle::Outcome> {
    set_bar_prop(cx, This, frame::Bar::Menu, is_true(Value))
}
fn get_AddressBar(cx: &mut Ctx, This: u32, Value: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, Value, |b| b.address_bar)
}
fn put_AddressBar(cx: &mut Ctx, This: u32, Value: u32) -> ApiResult<crate::hle::Outcome> {
    set_bar_prop(cx, This, frame::Bar::Address, is_true(Value))
}

/// ToolBar is an int, not a VARIANT_BOOL: nonzero shows the toolbar.
fn get_ToolBar(cx: &mut Ctx, This: u32, Value: Ptr) -> ApiResult<crate::hle::Outcome> {
    let v = with(cx, This, |b| b.tool_bar).unwrap_or(false);
    hr(put(cx, Value, u32::from(v)))
}
fn put_ToolBar(cx: &mut Ctx, This: u32, Value: i32) -> ApiResult<crate::hle::Outcome> {
    set_bar_prop(cx, This, frame::Bar::Tool, Value != 0)
}

fn get_StatusText(cx: &mut Ctx, This: u32, StatusText: Ptr) -> ApiResult<crate::hle::Outcome> {
    let t = with(cx, This, |b| b.status_text.clone()).unwrap_or_default();
    hr(put_bstr(cx, StatusText, &t))
}

fn put_StatusText(cx: &mut Ctx, This: u32, StatusText: u32) -> ApiResult<crate::hle::Outcome> {
    hr((|| {
        if let Err(e) = live_frame(cx, This) {
            return Ok(e);
        }
        let t = crate::oleaut32::read_bstr(cx, StatusText)?;
        with(cx, This, |b| b.status_text = t);
        frame::show_status(cx, This)?;
        Ok(S_OK)
    })())
}

fn get_ReadyState(cx: &mut Ctx, This: u32, plReadyState: Ptr) -> ApiResult<crate::hle::Outcome> {
    let v = with(cx, This, |b| b.ready).unwrap_or(READYSTATE_UNINITIALIZED);
    hr(put(cx, plReadyState, v))
}

/// Offline only decides whether pages come from the network or the cache; there
/// is no page but about:blank to load, so it is kept for the program to read.
fn get_Offline(cx: &mut Ctx, This: u32, pbOffline: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, pbOffline, |b| b.offline)
}
fn put_Offline(cx: &mut Ctx, This: u32, bOffline: u32) -> ApiResult<crate::hle::Outcome> {
    set_flag(cx, This, bOffline, |b, v| b.offline = v)
}
/// Silent suppresses the dialogs a page's scripts and errors would show; with no
/// page engine there are none, so it is kept for the program to read.
fn get_Silent(cx: &mut Ctx, This: u32, pbSilent: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, pbSilent, |b| b.silent)
}
fn put_Silent(cx: &mut Ctx, This: u32, bSilent: u32) -> ApiResult<crate::hle::Outcome> {
    set_flag(cx, This, bSilent, |b, v| b.silent = v)
}
/// Whether other browsers may open pages in this one by its frame name (kept; no
/// other browser here looks for one).
fn get_RegisterAsBrowser(
    cx: &mut Ctx,
    This: u32,
    pbRegister: Ptr,
) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, pbRegister, |b| b.register_as_browser)
}
fn put_RegisterAsBrowser(
    cx: &mut Ctx,
    This: u32,
    bRegister: u32,
) -> ApiResult<crate::hle::Outcome> {
    set_flag(cx, This, bRegister, |b, v| b.register_as_browser = v)
}
/// Whether files dropped on the window open in it (kept; winterp's windows take no
/// drops).
fn get_RegisterAsDropTarget(
    cx: &mut Ctx,
    This: u32,
    pbRegister: Ptr,
) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, pbRegister, |b| b.register_as_drop_target)
}
fn put_RegisterAsDropTarget(
    cx: &mut Ctx,
    This: u32,
    bRegister: u32,
) -> ApiResult<crate::hle::Outcome> {
    set_flag(cx, This, bRegister, |b, v| b.register_as_drop_target = v)
}

fn get_Resizable(cx: &mut Ctx, This: u32, Value: Ptr) -> ApiResult<crate::hle::Outcome> {
    get_flag(cx, This, Value, |b| b.resizable)
}
fn put_Resizable(cx: &mut Ctx, This: u32, Value: u32) -> ApiResult<crate::hle::Outcome> {
    hr(match live_frame(cx, This) {
        Err(e) => Ok(e),
        Ok(f) => {
            let on = is_true(Value);
            with(cx, This, |b| b.resizable = on);
            frame::set_resizable(cx, f, on).map(|_| S_OK)
        }
    })
}

/// CoCreateInstance(CLSID_InternetExplorer): a new, invisible Internet Explorer,
/// as the interface `iid` names.
pub fn co_create(cx: &mut Ctx, iid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    let ours = [
        com::IID_IUNKNOWN,
        IID_IDISPATCH,
        IID_IWEBBROWSER,
        IID_IWEBBROWSERAPP,
        IID_IWEBBROWSER2,
    ];
    if !ours.contains(iid) {
        return Ok(com::E_NOINTERFACE);
    }
    let this = match create(cx, false) {
        Ok(t) => t,
        Err(Flow::Err(e)) => return Err(e),
        Err(Flow::End(o)) => {
            return Err(ApiError::Other(format!(
                "ieframe.dll: the thread ended while the InternetExplorer object was made ({o:?})"
            )));
        }
    };
    cx.proc.mem.write_u32(ppv.0, this)?;
    Ok(S_OK)
}

/// The exports `IWebBrowser2::Name` of the functions of the same name.
macro_rules! methods {
    ($($name:ident),* $(,)?) => {
        vec![$(stdcall(concat!("IWebBrowser2::", stringify!($name)), $name)),*]
    };
}

pub fn exports() -> Vec<ApiDef> {
    methods![
        QueryInterface,
        AddRef,
        Release,
        GoBack,
        GoForward,
        GoHome,
        Navigate,
        Refresh,
        Refresh2,
        Stop,
        get_Document,
        get_TopLevelContainer,
        get_Left,
        put_Left,
        get_Top,
        put_Top,
        get_Width,
        put_Width,
        get_Height,
        put_Height,
        get_LocationName,
        get_LocationURL,
        get_Busy,
        Quit,
        get_Name,
        get_HWND,
        get_Visible,
        put_Visible,
        get_StatusBar,
        put_StatusBar,
        get_StatusText,
        put_StatusText,
        get_ToolBar,
        put_ToolBar,
        get_MenuBar,
        put_MenuBar,
        Navigate2,
        get_ReadyState,
        get_Offline,
        put_Offline,
        get_Silent,
        put_Silent,
        get_RegisterAsBrowser,
        put_RegisterAsBrowser,
        get_RegisterAsDropTarget,
        put_RegisterAsDropTarget,
        get_AddressBar,
        put_AddressBar,
        get_Resizable,
        put_Resizable,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vtable_has_iwebbrowser2s_seventy_one_slots_in_order() {
        // IUnknown 3 + IDispatch 4 + IWebBrowser 25 + IWebBrowserApp 20 +
        // IWebBrowser2 19 (exdisp.idl).
        assert_eq!(METHODS.len(), 71);
        assert_eq!(METHODS[11], "Navigate");
        assert_eq!(METHODS[32], "Quit");
        assert_eq!(METHODS[52], "Navigate2");
        assert_eq!(METHODS[70], "put_Resizable");
        for def in exports() {
            let name = def.name.strip_prefix("IWebBrowser2::").unwrap();
            assert!(METHODS.contains(&name), "{name} is not a method");
        }
    }

    #[test]
    fn the_class_and_interface_ids_are_the_sdks() {
        assert_eq!(
            CLSID_INTERNET_EXPLORER.to_string(),
            "{0002DF01-0000-0000-C000-000000000046}"
        );
        assert_eq!(
            IID_IWEBBROWSER2.to_string(),
            "{D30C1661-CDAF-11D0-8A3E-00C04FC9E26E}"
        );
        assert_eq!(
            IID_IWEBBROWSER.to_string(),
            "{EAB22AC1-30C1-11CF-A7EB-0000C05BAE0B}"
        );
    }
}
