//! COMCTL32.dll: InitCommonControls(Ex), window subclassing and the flat scroll bar
//! functions (drawn as standard scroll bars, see [`crate::user32::scroll`]). The common controls themselves (list views,
//! tree views, toolbars, ...) are not implemented: creating a window of one of their
//! classes fails as an unknown class, and their functions are reported missing.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Outcome, Ptr, stdcall};

pub mod ccommon;
pub mod comboex;
pub mod glyphs;
pub mod header;
pub mod imagelist;
pub mod listview;
pub mod progress;
pub mod propsheet;
pub mod rebar;
pub mod statusbar;
pub mod tab;
pub mod toolbar;
pub mod tooltip;
pub mod treeview;
pub mod updown;

pub const DLL: HleDll = HleDll {
    name: "COMCTL32.dll",
    exports,
    attach: Some(attach),
};

/// DLL_PROCESS_ATTACH: the window classes are registered when COMCTL32 is loaded,
/// so a control created before (or without) InitCommonControls(Ex) still finds its
/// class, as under the Windows and Wine builds programs were tested on.
fn attach(proc: &crate::process::Process) {
    crate::user32::hostclass::register(proc, DLL.name, &classes());
}

/// Every control class COMCTL32 implements, with its window procedure.
fn classes() -> Vec<crate::user32::hostclass::HostClass> {
    let mut v = Vec::new();
    v.extend(ccommon::classes());
    v.extend(header::views_classes());
    v.push(treeview::class());
    v
}

/// Registers nothing: the classes it would register are not implemented, and
/// programs that only call it for visual styles need nothing else.
pub fn InitCommonControls(_cx: &mut Ctx) {}

pub fn InitCommonControlsEx(cx: &mut Ctx, picce: Ptr) -> ApiResult<bool> {
    if picce.is_null() || cx.proc.mem.read_u32(picce.0)? != 8 {
        return Ok(false);
    }
    Ok(true)
}

pub fn SetWindowSubclass(
    cx: &mut Ctx,
    hWnd: u32,
    pfnSubclass: u32,
    uIdSubclass: u32,
    dwRefData: u32,
) -> bool {
    crate::user32::subclass::set_subclass(cx, hWnd, pfnSubclass, uIdSubclass, dwRefData)
}

pub fn GetWindowSubclass(
    cx: &mut Ctx,
    hWnd: u32,
    pfnSubclass: u32,
    uIdSubclass: u32,
    pdwRefData: Ptr,
) -> ApiResult<bool> {
    let r = crate::user32::subclass::get_subclass(cx, hWnd, pfnSubclass, uIdSubclass);
    if !pdwRefData.is_null() {
        cx.proc.mem.write_u32(pdwRefData.0, r.unwrap_or(0))?;
    }
    Ok(r.is_some())
}

pub fn RemoveWindowSubclass(cx: &mut Ctx, hWnd: u32, pfnSubclass: u32, uIdSubclass: u32) -> bool {
    crate::user32::subclass::remove_subclass(cx, hWnd, pfnSubclass, uIdSubclass)
}

pub fn DefSubclassProc(
    cx: &mut Ctx,
    hWnd: u32,
    uMsg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    crate::user32::fin(crate::user32::subclass::def_subclass(
        cx, hWnd, uMsg, wParam, lParam,
    ))
}

fn exports() -> Vec<ApiDef> {
    let mut v = crate::user32::scroll::flat_exports();
    v.extend(ccommon::exports());
    v.extend(header::views_exports());
    v.push(treeview::export());
    v.extend([
        stdcall("InitCommonControls", InitCommonControls).ordinal(17),
        stdcall("InitCommonControlsEx", InitCommonControlsEx),
        stdcall("SetWindowSubclass", SetWindowSubclass).ordinal(410),
        stdcall("GetWindowSubclass", GetWindowSubclass).ordinal(411),
        stdcall("RemoveWindowSubclass", RemoveWindowSubclass).ordinal(412),
        stdcall("DefSubclassProc", DefSubclassProc).ordinal(413),
    ]);
    v
}
