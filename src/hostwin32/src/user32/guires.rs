//! GetGuiResources: how many GDI and USER objects the process holds.

use super::lock_wm;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, stdcall};
use crate::kernel32::createprocess::{Target, process_target};

const GR_GDIOBJECTS: u32 = 0;
const GR_USEROBJECTS: u32 = 1;
const ERROR_INVALID_HANDLE: u32 = 6;
const ERROR_INVALID_PARAMETER: u32 = 87;

/// The USER objects of this process: windows, menus, icons, cursors and
/// accelerator tables it made, and its hooks. The system's icons and cursors
/// (LoadIcon(NULL, ...)) belong to the system, as on Windows.
pub fn user_object_count(cx: &Ctx) -> u32 {
    let n = {
        let wm = lock_wm(cx.proc);
        wm.windows.len() + wm.menus.len() + wm.objs.len()
    };
    (n + super::hook::count(cx)) as u32
}

/// GR_GDIOBJECTS and GR_USEROBJECTS of the calling process (XP has no peak
/// counts: GR_GDIOBJECTS_PEAK and GR_USEROBJECTS_PEAK came with Windows 7).
/// Another process's objects live in that process: asking for a child's is
/// reported.
pub fn GetGuiResources(cx: &mut Ctx, hProcess: u32, uiFlags: u32) -> ApiResult<u32> {
    match process_target(cx.proc, hProcess) {
        Target::Own => {}
        Target::Child(_) => {
            return Err(ApiError::UnimplementedCase(
                "GetGuiResources of a child process".into(),
            ));
        }
        Target::Invalid => {
            crate::teb::set_last_error(cx, ERROR_INVALID_HANDLE)?;
            return Ok(0);
        }
    }
    match uiFlags {
        GR_GDIOBJECTS => Ok(crate::gdi32::object_count(cx.proc)),
        GR_USEROBJECTS => Ok(user_object_count(cx)),
        _ => {
            crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
            Ok(0)
        }
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![stdcall("GetGuiResources", GetGuiResources)]
}
