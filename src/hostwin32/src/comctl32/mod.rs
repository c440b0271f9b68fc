//! COMCTL32.dll: InitCommonControls(Ex). The common controls themselves (list views,
//! tree views, toolbars, ...) are not implemented: creating a window of one of their
//! classes fails as an unknown class, and their functions are reported missing.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Ptr, stdcall};

pub const DLL: HleDll = HleDll {
    name: "COMCTL32.dll",
    exports,
};

/// Registers nothing: the classes it would register are not implemented, and
/// programs that only call it for visual styles need nothing else.
pub fn InitCommonControls(_cx: &mut Ctx) {}

pub fn InitCommonControlsEx(cx: &mut Ctx, picce: Ptr) -> ApiResult<bool> {
    if picce.is_null() || cx.proc.mem.read_u32(picce.0)? != 8 {
        return Ok(false);
    }
    Ok(true)
}

fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("InitCommonControls", InitCommonControls).ordinal(17),
        stdcall("InitCommonControlsEx", InitCommonControlsEx),
    ]
}
