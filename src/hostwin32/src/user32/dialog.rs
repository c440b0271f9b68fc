//! Dialog boxes from resources and the dialog manager.

use super::UR;
use crate::hle::{ApiDef, Ctx};

pub fn def_dlg_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
