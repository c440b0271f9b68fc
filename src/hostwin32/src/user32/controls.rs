//! The standard controls (BUTTON, STATIC, EDIT, LISTBOX, COMBOBOX), drawn with GDI.

use super::UR;
use crate::hle::{ApiDef, Ctx};

pub fn button_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}
pub fn static_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}
pub fn edit_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}
pub fn listbox_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}
pub fn combo_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    super::window::def_window_proc(cx, h, m, wp, lp, u)
}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
