//! Window classes whose procedure is host code of a DLL above USER32 (COMCTL32's
//! common controls, RICHED20's rich edit, ...).
//!
//! On Windows such a DLL registers global classes (CS_GLOBALCLASS) from its
//! DLL_PROCESS_ATTACH, with window procedures inside the DLL. Here the DLL's attach
//! routine calls [`register`]: the class's window procedure is the DLL's own thunk
//! for an HLE export (so GetClassLong/GetWindowLong, subclassing and CallWindowProc
//! see an ordinary code address), and USER32 remembers which host function stands
//! behind that thunk, so messages sent by the host reach it without a round trip
//! through guest code. USER32 learns of these functions only through this
//! registry, never by importing the DLLs above it.

use super::{NameOrId, UR, lock_wm, wm::Class};
use crate::hle::{ApiDef, Ctx, stdcall};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::RwLock;

/// A window procedure implemented by the host: (hwnd, msg, wParam, lParam, whether
/// text arguments are UTF-16).
pub type HostWndProc = fn(&mut Ctx, u32, u32, u32, u32, bool) -> UR<u32>;

const CS_GLOBALCLASS: u32 = 0x4000;

/// One class a DLL registers at attach.
pub struct HostClass {
    pub name: &'static str,
    /// The DLL's HLE export that guest code calls as the window procedure.
    pub export: &'static str,
    pub wndproc: HostWndProc,
    /// Class style; CS_GLOBALCLASS is added.
    pub style: u32,
    /// Window extra bytes (GetWindowLong offsets programs may use on the control).
    pub wnd_extra: u32,
    /// Class background brush value (COLOR_x + 1, or 0).
    pub background: u32,
}

/// The host procedures behind registered classes, by thunk address.
#[derive(Default)]
struct HostProcs(RwLock<HashMap<u32, HostWndProc>>);

/// Registers `classes` of HLE DLL `dll` (from its attach routine). A class that
/// already exists (the DLL attached before) is left alone.
pub fn register(proc: &Process, dll: &str, classes: &[HostClass]) {
    let instance = proc
        .modules
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(dll))
        .map_or(0, |m| m.base);
    let procs = proc.slot::<HostProcs>();
    for c in classes {
        let thunk = match proc.resolve_hle(dll, c.export) {
            Ok(t) => t,
            Err(e) => {
                log::error!("{dll}: cannot register class {}: {e}", c.name);
                continue;
            }
        };
        procs
            .0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(thunk, c.wndproc);
        let mut wm = lock_wm(proc);
        if wm
            .find_class(&NameOrId::Name(c.name.to_string()), instance)
            .is_some()
        {
            continue;
        }
        let atom = wm.alloc_atom(c.name);
        wm.classes.push(Some(Class {
            name: c.name.to_string(),
            atom,
            style: c.style | CS_GLOBALCLASS,
            wndproc: thunk,
            unicode: true,
            cls_extra: Vec::new(),
            wnd_extra: c.wnd_extra,
            instance,
            icon: 0,
            icon_sm: 0,
            cursor: 0,
            background: c.background,
            menu_name: 0,
            system: false,
        }));
    }
}

/// The host procedure behind window-procedure address `addr`, if it is one.
pub fn host_proc_of(proc: &Process, addr: u32) -> Option<HostWndProc> {
    proc.slot::<HostProcs>()
        .0
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&addr)
        .copied()
}

/// The HLE export through which guest code calls host window procedure `f`
/// directly (a subclass procedure forwarding to the address it replaced). Text
/// arguments are taken as UTF-16, as the classes are registered Unicode. `name`
/// is winterp's own (`__winterp_...`, which the export table check leaves out)
/// unless the real DLL exports the procedure by that name.
pub fn export(name: &'static str, f: HostWndProc) -> ApiDef {
    stdcall(
        name,
        move |cx: &mut Ctx, hwnd: u32, msg: u32, wp: u32, lp: u32| {
            super::fin(f(cx, hwnd, msg, wp, lp, true))
        },
    )
}
