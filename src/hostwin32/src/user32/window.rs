//! Window classes and windows: creation and destruction with their messages,
//! geometry, showing, activation and focus, window longs and text, the monitor
//! and system metrics, and DefWindowProc.

use super::msg::*;
use super::wm::{self, Class, CtlState, Window, Wm};
use super::{Flow, NameOrId, UR, fin, lock_wm, read_str, str_or_atom};
use crate::gdi32::Rect;
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall, stdcall_aw};
use crate::kernel32::string::GuestStr;

const ERROR_INVALID_WINDOW_HANDLE: u32 = 1400;
const ERROR_CANNOT_FIND_WND_CLASS: u32 = 1407;
const ERROR_CLASS_ALREADY_EXISTS: u32 = 1410;
const ERROR_CLASS_DOES_NOT_EXIST: u32 = 1411;
const ERROR_INVALID_INDEX: u32 = 1413;
const CW_USEDEFAULT: i32 = 0x8000_0000u32 as i32;

pub const GWL_WNDPROC: i32 = -4;
pub const GWL_HINSTANCE: i32 = -6;
pub const GWL_HWNDPARENT: i32 = -8;
pub const GWL_ID: i32 = -12;
pub const GWL_STYLE: i32 = -16;
pub const GWL_EXSTYLE: i32 = -20;
pub const GWL_USERDATA: i32 = -21;

pub const SWP_NOSIZE: u32 = 0x1;
pub const SWP_NOMOVE: u32 = 0x2;
pub const SWP_NOZORDER: u32 = 0x4;
pub const SWP_NOREDRAW: u32 = 0x8;
pub const SWP_NOACTIVATE: u32 = 0x10;
pub const SWP_FRAMECHANGED: u32 = 0x20;
pub const SWP_SHOWWINDOW: u32 = 0x40;
pub const SWP_HIDEWINDOW: u32 = 0x80;

fn set_error(cx: &mut Ctx, e: u32) -> ApiResult<()> {
    crate::teb::set_last_error(cx, e)
}

fn exists(cx: &Ctx, h: u32) -> bool {
    lock_wm(cx.proc).win(h).is_some()
}

fn rect_at(cx: &Ctx, p: u32) -> ApiResult<Rect> {
    let m = &cx.proc.mem;
    Ok(Rect::new(
        m.read_u32(p)? as i32,
        m.read_u32(p + 4)? as i32,
        m.read_u32(p + 8)? as i32,
        m.read_u32(p + 12)? as i32,
    ))
}

pub fn put_rect(cx: &Ctx, p: u32, r: Rect) -> ApiResult<()> {
    let m = &cx.proc.mem;
    m.write_u32(p, r.left as u32)?;
    m.write_u32(p + 4, r.top as u32)?;
    m.write_u32(p + 8, r.right as u32)?;
    m.write_u32(p + 12, r.bottom as u32)?;
    Ok(())
}

pub fn read_rect(cx: &Ctx, p: u32) -> ApiResult<Rect> {
    rect_at(cx, p)
}

fn lohi(a: i32, b: i32) -> u32 {
    (a as u16 as u32) | ((b as u16 as u32) << 16)
}

// ---- Classes ----------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn register_class(
    cx: &mut Ctx,
    style: u32,
    wndproc: u32,
    cls_extra: u32,
    wnd_extra: u32,
    instance: u32,
    icon: u32,
    cursor: u32,
    background: u32,
    menu_name: u32,
    class_name: u32,
    icon_sm: u32,
    unicode: bool,
) -> ApiResult<u32> {
    let name = match str_or_atom(cx, class_name, unicode)? {
        NameOrId::Name(n) => n,
        NameOrId::Id(a) => format!("#{a}"),
    };
    let instance = if instance == 0 {
        super::program_base(cx.proc)
    } else {
        instance
    };
    let mut wm = lock_wm(cx.proc);
    let dup = wm
        .classes
        .iter()
        .flatten()
        .any(|c| !c.system && c.instance == instance && c.name.eq_ignore_ascii_case(&name));
    if dup {
        drop(wm);
        set_error(cx, ERROR_CLASS_ALREADY_EXISTS)?;
        return Ok(0);
    }
    let atom = wm.alloc_atom(&name);
    wm.classes.push(Some(Class {
        name,
        atom,
        style,
        wndproc,
        unicode,
        cls_extra: vec![0; cls_extra.min(0x1000) as usize],
        wnd_extra: wnd_extra.min(0x1000),
        instance,
        icon,
        icon_sm,
        cursor,
        background,
        menu_name,
        system: false,
    }));
    Ok(atom as u32)
}

fn register_class_plain(cx: &mut Ctx, p: Ptr, unicode: bool) -> ApiResult<u32> {
    let m = &cx.proc.mem;
    let f: Vec<u32> = (0..10)
        .map(|k| m.read_u32(p.0 + 4 * k))
        .collect::<Result<_, _>>()?;
    register_class(
        cx, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], 0, unicode,
    )
}

fn register_class_ex(cx: &mut Ctx, p: Ptr, unicode: bool) -> ApiResult<u32> {
    let m = &cx.proc.mem;
    let f: Vec<u32> = (0..12)
        .map(|k| m.read_u32(p.0 + 4 * k))
        .collect::<Result<_, _>>()?;
    if f[0] != 48 {
        set_error(cx, 87)?;
        return Ok(0);
    }
    register_class(
        cx, f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], unicode,
    )
}

pub fn RegisterClass<S: GuestStr>(cx: &mut Ctx, lpWndClass: Ptr) -> ApiResult<u32> {
    register_class_plain(cx, lpWndClass, S::WIDE)
}
pub fn RegisterClassEx<S: GuestStr>(cx: &mut Ctx, lpWndClass: Ptr) -> ApiResult<u32> {
    register_class_ex(cx, lpWndClass, S::WIDE)
}
fn unregister_class(cx: &mut Ctx, name: u32, inst: u32, unicode: bool) -> ApiResult<bool> {
    let n = str_or_atom(cx, name, unicode)?;
    let inst = if inst == 0 {
        super::program_base(cx.proc)
    } else {
        inst
    };
    let mut wm = lock_wm(cx.proc);
    let Some(k) = wm.find_class(&n, inst) else {
        drop(wm);
        set_error(cx, ERROR_CLASS_DOES_NOT_EXIST)?;
        return Ok(false);
    };
    if wm.classes[k].as_ref().is_some_and(|c| c.system) || wm.windows.values().any(|w| w.class == k)
    {
        drop(wm);
        set_error(cx, 1412)?;
        return Ok(false);
    }
    wm.classes[k] = None;
    Ok(true)
}

pub fn UnregisterClass<S: GuestStr>(
    cx: &mut Ctx,
    lpClassName: u32,
    hInstance: u32,
) -> ApiResult<bool> {
    unregister_class(cx, lpClassName, hInstance, S::WIDE)
}
fn get_class_info(
    cx: &mut Ctx,
    inst: u32,
    name: u32,
    out: Ptr,
    ex: bool,
    unicode: bool,
) -> ApiResult<u32> {
    let n = str_or_atom(cx, name, unicode)?;
    let c = {
        let wm = lock_wm(cx.proc);
        wm.find_class(&n, inst).and_then(|k| wm.classes[k].clone())
    };
    let Some(c) = c else {
        set_error(cx, ERROR_CLASS_DOES_NOT_EXIST)?;
        return Ok(0);
    };
    let wndproc = proc_address(cx, c.wndproc);
    let mut f = vec![
        c.style,
        wndproc,
        c.cls_extra.len() as u32,
        c.wnd_extra,
        c.instance,
        c.icon,
        c.cursor,
        c.background,
        c.menu_name,
        name,
    ];
    let base = if ex {
        f.insert(0, 48);
        f.push(c.icon_sm);
        out.0
    } else {
        out.0
    };
    for (k, v) in f.iter().enumerate() {
        cx.proc.mem.write_u32(base + 4 * k as u32, *v)?;
    }
    Ok(c.atom as u32)
}

pub fn GetClassInfo<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpClassName: u32,
    lpWndClass: Ptr,
) -> ApiResult<u32> {
    get_class_info(cx, hInstance, lpClassName, lpWndClass, false, S::WIDE)
}
pub fn GetClassInfoEx<S: GuestStr>(
    cx: &mut Ctx,
    hInstance: u32,
    lpClassName: u32,
    lpWndClass: Ptr,
) -> ApiResult<u32> {
    get_class_info(cx, hInstance, lpClassName, lpWndClass, true, S::WIDE)
}
fn class_long(cx: &mut Ctx, h: u32, idx: i32, set: Option<u32>) -> ApiResult<u32> {
    let mut wm = lock_wm(cx.proc);
    let Some(k) = wm.win(h).map(|w| w.class) else {
        drop(wm);
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    };
    let Some(Some(c)) = wm.classes.get_mut(k) else {
        return Ok(0);
    };
    let field: Option<&mut u32> = match idx {
        -8 => Some(&mut c.menu_name),
        -10 => Some(&mut c.background),
        -12 => Some(&mut c.cursor),
        -14 => Some(&mut c.icon),
        -16 => Some(&mut c.instance),
        -18 => Some(&mut c.wnd_extra),
        -24 => Some(&mut c.wndproc),
        -26 => Some(&mut c.style),
        -34 => Some(&mut c.icon_sm),
        _ => None,
    };
    if let Some(f) = field {
        let old = *f;
        if let Some(v) = set {
            *f = v;
        }
        drop(wm);
        return Ok(if idx == -24 {
            proc_address(cx, old)
        } else {
            old
        });
    }
    if idx == -32 {
        return Ok(c.atom as u32);
    }
    if idx == -20 {
        return Ok(c.cls_extra.len() as u32);
    }
    if idx >= 0 && (idx as usize) + 4 <= c.cls_extra.len() {
        let i = idx as usize;
        let old = u32::from_le_bytes([
            c.cls_extra[i],
            c.cls_extra[i + 1],
            c.cls_extra[i + 2],
            c.cls_extra[i + 3],
        ]);
        if let Some(v) = set {
            c.cls_extra[i..i + 4].copy_from_slice(&v.to_le_bytes());
        }
        return Ok(old);
    }
    drop(wm);
    set_error(cx, ERROR_INVALID_INDEX)?;
    Ok(0)
}

pub fn GetClassLong<S: GuestStr>(cx: &mut Ctx, hWnd: u32, nIndex: i32) -> ApiResult<u32> {
    class_long(cx, hWnd, nIndex, None)
}
pub fn SetClassLong<S: GuestStr>(cx: &mut Ctx, hWnd: u32, nIndex: i32, v: u32) -> ApiResult<u32> {
    class_long(cx, hWnd, nIndex, Some(v))
}
fn class_name(cx: &mut Ctx, h: u32, buf: u32, cap: u32, unicode: bool) -> ApiResult<u32> {
    let n = lock_wm(cx.proc).class_of(h).map(|c| c.name.clone());
    match n {
        Some(n) => super::put_str(cx, buf, cap, &n, unicode),
        None => {
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            Ok(0)
        }
    }
}

pub fn GetClassName<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    lpClassName: u32,
    nMaxCount: u32,
) -> ApiResult<u32> {
    class_name(cx, hWnd, lpClassName, nMaxCount, S::WIDE)
}
// ---- Creation -----------------------------------------------------------------------

/// CreateWindowEx's arguments.
pub struct Create {
    pub exstyle: u32,
    pub class: NameOrId,
    /// Guest pointers as the caller gave them (they go into CREATESTRUCT).
    pub class_ptr: u32,
    pub name_ptr: u32,
    pub style: u32,
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
    pub parent: u32,
    pub menu: u32,
    pub instance: u32,
    pub param: u32,
    pub unicode: bool,
}

/// CreateWindowEx's work; 0 when the class is unknown or the window refused.
pub fn create_window(cx: &mut Ctx, a: Create) -> UR<u32> {
    let tid = cx.thread.tid;
    let instance = if a.instance == 0 {
        super::program_base(cx.proc)
    } else {
        a.instance
    };
    let mode = cx.proc.display.mode();
    let child = a.style & wm::WS_CHILD != 0;
    if child && (a.parent == 0 || !exists(cx, a.parent)) {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    }
    let name = if a.name_ptr == 0 {
        String::new()
    } else {
        match str_or_atom(cx, a.name_ptr, a.unicode)? {
            NameOrId::Name(n) => n,
            NameOrId::Id(_) => String::new(),
        }
    };
    let mut menu = a.menu;
    if !child && menu == 0 {
        // The class menu (lpszMenuName) for windows created without one.
        let cm = {
            let wm = lock_wm(cx.proc);
            wm.find_class(&a.class, instance)
                .and_then(|k| wm.classes[k].as_ref())
                .map(|c| (c.menu_name, c.unicode, c.instance))
        };
        if let Some((mn, u, ci)) = cm
            && mn != 0
        {
            let n = str_or_atom(cx, mn, u)?;
            menu = super::res::load_menu(cx, ci, &n)?;
        }
    }
    let hwnd = {
        let mut wm = lock_wm(cx.proc);
        let Some(k) = wm.find_class(&a.class, instance) else {
            drop(wm);
            log::warn!("CreateWindowEx: no window class {:?}", a.class);
            set_error(cx, ERROR_CANNOT_FIND_WND_CLASS)?;
            return Ok(0);
        };
        let c = wm.classes[k].clone().expect("found above");
        let (mut x, mut y, mut w, mut h) = (a.x, a.y, a.w, a.h);
        if !child && a.style & wm::WS_POPUP == 0 {
            // Overlapped windows: CW_USEDEFAULT cascades from the top left.
            if x == CW_USEDEFAULT {
                let n = wm.top.len() as i32 % 8;
                x = 26 + 26 * n;
                y = 26 + 26 * n;
            }
            if w == CW_USEDEFAULT {
                w = mode.width as i32 * 3 / 4;
                h = mode.height as i32 * 3 / 4;
            }
        } else {
            if x == CW_USEDEFAULT {
                x = 0;
                y = 0;
            }
            if w == CW_USEDEFAULT {
                w = 0;
                h = 0;
            }
        }
        let (w, h) = (w.max(0), h.max(0));
        let hwnd = wm.alloc_hwnd();
        let menu_handle = if child { 0 } else { menu };
        let (parent, owner) = if child {
            (a.parent, 0)
        } else {
            (
                0,
                if a.parent == wm::HWND_DESKTOP {
                    0
                } else {
                    wm.top_of(a.parent)
                },
            )
        };
        let surface = (!child).then(|| wm::new_surface(w, h));
        let wndproc = c.wndproc;
        wm.windows.insert(
            hwnd,
            Window {
                hwnd,
                class: k,
                parent,
                owner,
                children: Vec::new(),
                style: a.style & !wm::WS_VISIBLE,
                exstyle: a.exstyle,
                rect: Rect::new(x, y, x + w, y + h),
                client: Rect::default(),
                wndproc,
                unicode: c.unicode,
                text: name,
                id: if child { a.menu } else { menu_handle },
                instance,
                userdata: 0,
                extra: vec![0; c.wnd_extra as usize],
                tid,
                update: None,
                erase: false,
                surface,
                props: Default::default(),
                ctl: CtlState {
                    sel: -1,
                    limit: 30000,
                    ..Default::default()
                },
                dlg: None,
                destroying: false,
                icon: [0, 0],
                cursor_class: c.cursor,
                subclasses: Vec::new(),
                subclass_orig: (0, false),
                subclass_pos: Vec::new(),
                need_size: false,
                scroll: None,
            },
        );
        if child {
            if let Some(p) = wm.win_mut(parent) {
                p.children.push(hwnd);
            }
        } else {
            wm.top.insert(0, hwnd);
        }
        wm.recalc_client(hwnd);
        wm.queue(tid);
        hwnd
    };
    // Resolve a system class marker into a thunk the guest can call.
    let wp = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.wndproc);
    let real = proc_address(cx, wp);
    if let Some(w) = lock_wm(cx.proc).win_mut(hwnd) {
        w.wndproc = real;
    }
    let (rect, style) = {
        let wm = lock_wm(cx.proc);
        let w = wm.win(hwnd).expect("just created");
        (w.rect, w.style)
    };
    // CREATESTRUCT on the guest stack.
    let (cs, esp) = super::stack_alloc(cx, 48 + 40 + 16);
    let r = (|| -> UR<bool> {
        let f = [
            a.param,
            instance,
            a.menu,
            a.parent,
            rect.height() as u32,
            rect.width() as u32,
            rect.top as u32,
            rect.left as u32,
            a.style,
            a.name_ptr,
            a.class_ptr,
            a.exstyle,
        ];
        for (k, v) in f.iter().enumerate() {
            cx.proc.mem.write_u32(cs + 4 * k as u32, *v)?;
        }
        if super::hook::cbt_create(cx, hwnd, cs)? {
            return Ok(false);
        }
        if !child && (style & wm::WS_THICKFRAME != 0 || style & wm::WS_CAPTION == wm::WS_CAPTION) {
            let mmi = cs + 48;
            let mode = cx.proc.display.mode();
            let vals = [
                0,
                0,
                mode.width as i32 + 8,
                mode.height as i32 + 8,
                -4,
                -4,
                112,
                27,
                mode.width as i32 + 12,
                mode.height as i32 + 12,
            ];
            for (k, v) in vals.iter().enumerate() {
                cx.proc.mem.write_u32(mmi + 4 * k as u32, *v as u32)?;
            }
            send(cx, hwnd, WM_GETMINMAXINFO, 0, mmi, a.unicode)?;
            // The new window is kept within the tracking sizes the answer allows
            // (the maximum first, then the minimum, which wins): a program that
            // creates its window 2x0 and sizes it later still gets a window its
            // caption and menu bar fit in meanwhile.
            let at = |k: u32| -> UR<i32> { Ok(cx.proc.mem.read_u32(mmi + 4 * k)? as i32) };
            let (min_w, min_h, max_w, max_h) = (at(6)?, at(7)?, at(8)?, at(9)?);
            let w = rect.width().min(max_w).max(min_w).max(0);
            let h = rect.height().min(max_h).max(min_h).max(0);
            if (w, h) != (rect.width(), rect.height()) {
                if let Some(win) = lock_wm(cx.proc).win_mut(hwnd) {
                    win.rect = Rect::new(rect.left, rect.top, rect.left + w, rect.top + h);
                }
                cx.proc.mem.write_u32(cs + 16, h as u32)?;
                cx.proc.mem.write_u32(cs + 20, w as u32)?;
            }
        }
        if send(cx, hwnd, WM_NCCREATE, 0, cs, a.unicode)? == 0 {
            return Ok(false);
        }
        // WM_NCCALCSIZE: the window rectangle in, the client rectangle out.
        let rc = cs + 48;
        let cur = lock_wm(cx.proc).win(hwnd).map(|w| w.rect);
        if let Some(r) = cur {
            put_rect(cx, rc, r)?;
            send(cx, hwnd, WM_NCCALCSIZE, 0, rc, a.unicode)?;
            let c = rect_at(cx, rc)?;
            let mut wm = lock_wm(cx.proc);
            if let Some(w) = wm.win_mut(hwnd) {
                let c = c.offset(-w.rect.left, -w.rect.top);
                let full = Rect::new(0, 0, w.rect.width(), w.rect.height());
                let c = c.intersect(&full);
                w.client = if c.is_empty() {
                    Rect::new(c.left.max(0), c.top.max(0), c.left.max(0), c.top.max(0))
                } else {
                    c
                };
            }
        }
        if send(cx, hwnd, WM_CREATE, 0, cs, a.unicode)? == u32::MAX {
            return Ok(false);
        }
        Ok(true)
    })();
    super::stack_free(cx, esp);
    match r {
        Ok(true) => {}
        Ok(false) => {
            destroy_window(cx, hwnd)?;
            return Ok(0);
        }
        Err(e) => return Err(e),
    }
    if !exists(cx, hwnd) {
        return Ok(0);
    }
    let (cw, ch, cxp, cyp) = {
        let wm = lock_wm(cx.proc);
        let w = wm.win(hwnd).expect("checked");
        (
            w.client.width(),
            w.client.height(),
            w.rect.left + w.client.left,
            w.rect.top + w.client.top,
        )
    };
    let overlapped = a.style & (wm::WS_CHILD | wm::WS_POPUP) == 0;
    if overlapped {
        if let Some(w) = lock_wm(cx.proc).win_mut(hwnd) {
            w.need_size = true;
        }
    } else {
        send(cx, hwnd, WM_SIZE, 0, lohi(cw, ch), true)?;
        send(cx, hwnd, WM_MOVE, 0, lohi(cxp, cyp), true)?;
    }
    if child && a.exstyle & wm::WS_EX_NOPARENTNOTIFY == 0 {
        send(
            cx,
            a.parent,
            WM_PARENTNOTIFY,
            WM_CREATE | (a.menu << 16),
            hwnd,
            true,
        )?;
    }
    if a.style & wm::WS_VISIBLE != 0 && exists(cx, hwnd) {
        show_window(cx, hwnd, if child { 8 } else { 1 })?;
    }
    Ok(hwnd)
}

#[allow(clippy::too_many_arguments)]
fn create_window_api(
    cx: &mut Ctx,
    dwExStyle: u32,
    lpClassName: u32,
    lpWindowName: u32,
    dwStyle: u32,
    X: i32,
    Y: i32,
    nWidth: i32,
    nHeight: i32,
    hWndParent: u32,
    hMenu: u32,
    hInstance: u32,
    lpParam: u32,
    unicode: bool,
) -> ApiResult<Outcome> {
    let class = str_or_atom(cx, lpClassName, unicode)?;
    fin(create_window(
        cx,
        Create {
            exstyle: dwExStyle,
            class,
            class_ptr: lpClassName,
            name_ptr: lpWindowName,
            style: dwStyle,
            x: X,
            y: Y,
            w: nWidth,
            h: nHeight,
            parent: hWndParent,
            menu: hMenu,
            instance: hInstance,
            param: lpParam,
            unicode,
        },
    ))
}

#[allow(clippy::too_many_arguments)]
pub fn CreateWindowEx<S: GuestStr>(
    cx: &mut Ctx,
    dwExStyle: u32,
    lpClassName: u32,
    lpWindowName: u32,
    dwStyle: u32,
    X: i32,
    Y: i32,
    nWidth: i32,
    nHeight: i32,
    hWndParent: u32,
    hMenu: u32,
    hInstance: u32,
    lpParam: u32,
) -> ApiResult<Outcome> {
    create_window_api(
        cx,
        dwExStyle,
        lpClassName,
        lpWindowName,
        dwStyle,
        X,
        Y,
        nWidth,
        nHeight,
        hWndParent,
        hMenu,
        hInstance,
        lpParam,
        S::WIDE,
    )
}

// ---- Destruction ----------------------------------------------------------------------

/// DestroyWindow's work: hides it, gives activation and focus away, destroys owned
/// windows, then WM_DESTROY (parent before children) and WM_NCDESTROY (children
/// before parent).
pub fn destroy_window(cx: &mut Ctx, hwnd: u32) -> UR<bool> {
    let info = {
        let mut wm = lock_wm(cx.proc);
        match wm.win_mut(hwnd) {
            Some(w) if !w.destroying => {
                w.destroying = true;
                Some((w.parent, w.style, w.id, w.exstyle))
            }
            _ => None,
        }
    };
    let Some((parent, style, id, exstyle)) = info else {
        if !exists(cx, hwnd) {
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        }
        return Ok(false);
    };
    if style & wm::WS_VISIBLE != 0 {
        set_window_pos(
            cx,
            hwnd,
            0,
            0,
            0,
            0,
            0,
            SWP_HIDEWINDOW | SWP_NOSIZE | SWP_NOMOVE | SWP_NOZORDER | SWP_NOACTIVATE,
        )?;
    }
    let was_active = lock_wm(cx.proc).active == hwnd;
    if was_active {
        let next = {
            let wm = lock_wm(cx.proc);
            let owner = wm.win(hwnd).map_or(0, |w| w.owner);
            if owner != 0 && wm.is_visible(owner) {
                owner
            } else {
                wm.top
                    .iter()
                    .copied()
                    .find(|&t| t != hwnd && wm.is_visible(t))
                    .unwrap_or(0)
            }
        };
        if next != 0 {
            set_active(cx, next)?;
        } else {
            lock_wm(cx.proc).active = 0;
        }
    }
    {
        let mut wm = lock_wm(cx.proc);
        if wm.focus == hwnd || wm.is_child_of(wm.focus, hwnd) {
            wm.focus = 0;
        }
        if wm.capture == hwnd || wm.is_child_of(wm.capture, hwnd) {
            wm.capture = 0;
        }
    }
    if parent != 0 && exstyle & wm::WS_EX_NOPARENTNOTIFY == 0 {
        send(
            cx,
            parent,
            WM_PARENTNOTIFY,
            WM_DESTROY | (id << 16),
            hwnd,
            true,
        )?;
    }
    let owned: Vec<u32> = {
        let wm = lock_wm(cx.proc);
        wm.top
            .iter()
            .copied()
            .filter(|&t| wm.win(t).is_some_and(|w| w.owner == hwnd))
            .collect()
    };
    for o in owned {
        destroy_window(cx, o)?;
    }
    destroy_tree(cx, hwnd)?;
    if parent != 0 {
        let r = lock_wm(cx.proc).win(hwnd).map(|w| w.rect);
        if let Some(r) = r {
            lock_wm(cx.proc).invalidate(parent, Some(r), true);
        }
    }
    Ok(true)
}

fn destroy_tree(cx: &mut Ctx, hwnd: u32) -> UR<()> {
    send(cx, hwnd, WM_DESTROY, 0, 0, true)?;
    let kids = lock_wm(cx.proc)
        .win(hwnd)
        .map(|w| w.children.clone())
        .unwrap_or_default();
    for c in kids {
        if let Some(w) = lock_wm(cx.proc).win_mut(c) {
            w.destroying = true;
        }
        destroy_tree(cx, c)?;
    }
    send(cx, hwnd, WM_NCDESTROY, 0, 0, true)?;
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.windows.remove(&hwnd) else {
        return Ok(());
    };
    if w.parent != 0 {
        if let Some(p) = wm.win_mut(w.parent) {
            p.children.retain(|&c| c != hwnd);
        }
    } else {
        wm.top.retain(|&t| t != hwnd);
    }
    wm.dirty.remove(&hwnd);
    wm.hidden_with_owner.remove(&hwnd);
    // An owner tree whose last active window goes answers its owner again.
    wm.last_active_popup
        .retain(|&o, &mut p| o != hwnd && p != hwnd);
    wm.timers.retain(|t| t.hwnd != hwnd);
    if wm.main == hwnd {
        wm.main = 0;
    }
    if wm.focus == hwnd {
        wm.focus = 0;
    }
    Ok(())
}

pub fn DestroyWindow(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    fin(destroy_window(cx, hWnd))
}

// ---- Showing, positions, activation ------------------------------------------------

fn write_windowpos(cx: &Ctx, p: u32, v: [u32; 7]) -> ApiResult<()> {
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u32(p + 4 * k as u32, *x)?;
    }
    Ok(())
}

/// SetWindowPos's work, with WM_WINDOWPOSCHANGING/CHANGED.
#[allow(clippy::too_many_arguments)]
pub fn set_window_pos(
    cx: &mut Ctx,
    hwnd: u32,
    after: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    flags: u32,
) -> UR<bool> {
    let Some((old, visible, child)) = lock_wm(cx.proc)
        .win(hwnd)
        .map(|w| (w.rect, w.style & wm::WS_VISIBLE != 0, w.parent != 0))
    else {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(false);
    };
    let mut flags = flags;
    if flags & SWP_SHOWWINDOW != 0 && visible {
        flags &= !SWP_SHOWWINDOW;
    }
    if flags & SWP_HIDEWINDOW != 0 && !visible {
        flags &= !SWP_HIDEWINDOW;
    }
    let (mut nx, mut ny) = if flags & SWP_NOMOVE != 0 {
        (old.left, old.top)
    } else {
        (x, y)
    };
    let (mut nw, mut nh) = if flags & SWP_NOSIZE != 0 {
        (old.width(), old.height())
    } else {
        (w.max(0), h.max(0))
    };
    let (wp, esp) = super::stack_alloc(cx, 28);
    let r = (|| -> UR<u32> {
        write_windowpos(
            cx,
            wp,
            [
                hwnd, after, nx as u32, ny as u32, nw as u32, nh as u32, flags,
            ],
        )?;
        send(cx, hwnd, WM_WINDOWPOSCHANGING, 0, wp, true)?;
        let m = &cx.proc.mem;
        nx = m.read_u32(wp + 8)? as i32;
        ny = m.read_u32(wp + 12)? as i32;
        nw = (m.read_u32(wp + 16)? as i32).max(0);
        nh = (m.read_u32(wp + 20)? as i32).max(0);
        let mut f = m.read_u32(wp + 24)?;
        if (nx, ny) == (old.left, old.top) {
            f |= SWP_NOMOVE;
        }
        if (nw, nh) == (old.width(), old.height()) {
            f |= SWP_NOSIZE;
        }
        Ok(f)
    })();
    let f = match r {
        Ok(f) => f,
        Err(e) => {
            super::stack_free(cx, esp);
            return Err(e);
        }
    };
    let parent = {
        let mut wm = lock_wm(cx.proc);
        let parent = wm.win(hwnd).map_or(0, |w| w.parent);
        if let Some(win) = wm.win_mut(hwnd) {
            win.rect = Rect::new(nx, ny, nx + nw, ny + nh);
            if f & SWP_SHOWWINDOW != 0 {
                win.style |= wm::WS_VISIBLE;
            }
            if f & SWP_HIDEWINDOW != 0 {
                win.style &= !wm::WS_VISIBLE;
            }
        }
        wm.recalc_client(hwnd);
        if f & SWP_NOZORDER == 0 {
            let list = if parent == 0 {
                &mut wm.top
            } else {
                match wm.windows.get_mut(&parent) {
                    Some(p) => &mut p.children,
                    None => &mut wm.top,
                }
            };
            list.retain(|&t| t != hwnd);
            match after {
                1 => list.push(hwnd),
                0 | 0xffff_ffff | 0xffff_fffe => list.insert(0, hwnd),
                a => {
                    let i = list.iter().position(|&t| t == a).map_or(0, |i| i + 1);
                    list.insert(i, hwnd);
                }
            }
        }
        let moved = f & (SWP_NOMOVE | SWP_NOSIZE) != (SWP_NOMOVE | SWP_NOSIZE);
        if f & SWP_NOREDRAW == 0
            && (moved || f & (SWP_SHOWWINDOW | SWP_HIDEWINDOW | SWP_FRAMECHANGED) != 0)
        {
            if child {
                wm.invalidate(parent, Some(old), true);
            }
            if wm.is_visible(hwnd) {
                wm.invalidate(hwnd, None, true);
            }
        }
        parent
    };
    let _ = parent;
    let r = (|| -> UR<()> {
        write_windowpos(
            cx,
            wp,
            [hwnd, after, nx as u32, ny as u32, nw as u32, nh as u32, f],
        )?;
        if f & SWP_SHOWWINDOW != 0 && !child && f & SWP_NOACTIVATE == 0 {
            set_active(cx, hwnd)?;
        }
        send(cx, hwnd, WM_WINDOWPOSCHANGED, 0, wp, true)?;
        Ok(())
    })();
    super::stack_free(cx, esp);
    wm::wake_all(cx.proc);
    r?;
    Ok(true)
}

/// ShowWindow's work; returns whether it was visible before.
/// The WM_SIZE/WM_MOVE an overlapped window created hidden still owes its window
/// procedure (sent once, at its first ShowWindow).
fn send_deferred_size(cx: &mut Ctx, hwnd: u32) -> UR<()> {
    let owed = {
        let mut wm = lock_wm(cx.proc);
        wm.win_mut(hwnd).and_then(|w| {
            std::mem::take(&mut w.need_size).then(|| {
                (
                    w.client.width(),
                    w.client.height(),
                    w.rect.left + w.client.left,
                    w.rect.top + w.client.top,
                    w.style & wm::WS_MAXIMIZE != 0,
                    w.unicode,
                )
            })
        })
    };
    if let Some((cw, ch, x, y, maximized, unicode)) = owed {
        send(
            cx,
            hwnd,
            WM_SIZE,
            if maximized { 2 } else { 0 },
            lohi(cw, ch),
            unicode,
        )?;
        send(cx, hwnd, WM_MOVE, 0, lohi(x, y), unicode)?;
    }
    Ok(())
}

pub fn show_window(cx: &mut Ctx, hwnd: u32, cmd: u32) -> UR<bool> {
    let Some((visible, child)) = lock_wm(cx.proc)
        .win(hwnd)
        .map(|w| (w.style & wm::WS_VISIBLE != 0, w.parent != 0))
    else {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(false);
    };
    match cmd {
        0 => {
            if visible {
                send(cx, hwnd, WM_SHOWWINDOW, 0, 0, true)?;
                set_window_pos(
                    cx,
                    hwnd,
                    0,
                    0,
                    0,
                    0,
                    0,
                    SWP_HIDEWINDOW | SWP_NOSIZE | SWP_NOMOVE | SWP_NOZORDER | SWP_NOACTIVATE,
                )?;
                let next = {
                    let wm = lock_wm(cx.proc);
                    if wm.active == hwnd {
                        let owner = wm.win(hwnd).map_or(0, |w| w.owner);
                        Some(if owner != 0 {
                            owner
                        } else {
                            wm.top
                                .iter()
                                .copied()
                                .find(|&t| t != hwnd && wm.is_visible(t))
                                .unwrap_or(0)
                        })
                    } else {
                        None
                    }
                };
                if let Some(n) = next {
                    if n != 0 {
                        set_active(cx, n)?;
                    } else {
                        lock_wm(cx.proc).active = 0;
                    }
                }
            }
        }
        _ => {
            let activate = !child && matches!(cmd, 1 | 3 | 5 | 9 | 10);
            if !visible {
                send(cx, hwnd, WM_SHOWWINDOW, 1, 0, true)?;
            }
            let mut flags = SWP_SHOWWINDOW | SWP_NOSIZE | SWP_NOMOVE;
            if !activate {
                flags |= SWP_NOACTIVATE | SWP_NOZORDER;
            }
            let (mut x, mut y, mut w, mut h) = (0, 0, 0, 0);
            if cmd == 3 && !child {
                // Maximised: the work area plus the frame.
                let mode = cx.proc.display.mode();
                let i = {
                    let wm = lock_wm(cx.proc);
                    let win = wm.win(hwnd).expect("checked");
                    Wm::nc_insets(win.style, win.exstyle, false)
                };
                x = -i.left;
                y = -i.left;
                w = mode.width as i32 + 2 * i.left;
                h = mode.height as i32 + 2 * i.left;
                flags &= !(SWP_NOSIZE | SWP_NOMOVE);
                if let Some(win) = lock_wm(cx.proc).win_mut(hwnd) {
                    win.style |= wm::WS_MAXIMIZE;
                }
            }
            if !visible || cmd == 3 {
                set_window_pos(cx, hwnd, 0, x, y, w, h, flags)?;
            } else if activate {
                set_active(cx, hwnd)?;
            }
            send_deferred_size(cx, hwnd)?;
            if activate && !child && lock_wm(cx.proc).main == 0 {
                let mut wm = lock_wm(cx.proc);
                if wm.win(hwnd).is_some_and(|w| w.owner == 0) {
                    wm.main = hwnd;
                }
            }
        }
    }
    Ok(visible)
}

pub fn ShowWindow(cx: &mut Ctx, hWnd: u32, nCmdShow: u32) -> ApiResult<Outcome> {
    fin(show_window(cx, hWnd, nCmdShow))
}

pub fn ShowWindowAsync(cx: &mut Ctx, hWnd: u32, nCmdShow: u32) -> ApiResult<Outcome> {
    fin(show_window(cx, hWnd, nCmdShow))
}

/// Makes `hwnd` (top-level) the active window with WM_ACTIVATEAPP, WM_NCACTIVATE and
/// WM_ACTIVATE; returns the previous one.
pub fn set_active(cx: &mut Ctx, hwnd: u32) -> UR<u32> {
    let prev = lock_wm(cx.proc).active;
    if prev == hwnd {
        return Ok(prev);
    }
    if prev != 0 && exists(cx, prev) {
        send(cx, prev, WM_NCACTIVATE, 0, 0, true)?;
        send(cx, prev, WM_ACTIVATE, 0, hwnd, true)?;
    }
    {
        let mut wm = lock_wm(cx.proc);
        wm.active = hwnd;
        if hwnd != 0 {
            wm.top.retain(|&t| t != hwnd);
            wm.top.insert(0, hwnd);
            let root = owner_root(&wm, hwnd);
            wm.last_active_popup.insert(root, hwnd);
        }
    }
    if hwnd == 0 {
        return Ok(prev);
    }
    if prev == 0 {
        let tops: Vec<u32> = lock_wm(cx.proc).top.clone();
        for t in tops {
            send(cx, t, WM_ACTIVATEAPP, 1, 0, true)?;
        }
    }
    send(cx, hwnd, WM_NCACTIVATE, 1, 0, true)?;
    send(cx, hwnd, WM_ACTIVATE, 1, prev, true)?;
    Ok(prev)
}

/// The unowned window at the top of `hwnd`'s owner chain.
fn owner_root(wm: &Wm, mut hwnd: u32) -> u32 {
    // An owner chain has no cycles (an owner exists before what it owns), but a
    // bound keeps a damaged one from looping.
    for _ in 0..64 {
        match wm.win(hwnd).map_or(0, |w| w.owner) {
            0 => break,
            o => hwnd = o,
        }
    }
    hwnd
}

/// GetLastActivePopup: the window of `hWnd`'s owner tree that was active last;
/// `hWnd` itself if that was it, if none of its pop-ups has been active (or that
/// one is gone), or if `hWnd` is a child or an owned window.
pub fn GetLastActivePopup(cx: &mut Ctx, hWnd: u32) -> ApiResult<u32> {
    let wm = lock_wm(cx.proc);
    let Some(w) = wm.win(hWnd) else {
        drop(wm);
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    };
    if w.parent != 0 || w.owner != 0 {
        return Ok(hWnd);
    }
    Ok(match wm.last_active_popup.get(&hWnd) {
        Some(&p) if wm.win(p).is_some() => p,
        _ => hWnd,
    })
}

/// ShowOwnedPopups: sends each pop-up `hWnd` owns WM_SHOWWINDOW with
/// SW_PARENTCLOSING (the visible ones, for FALSE) or SW_PARENTOPENING (for TRUE,
/// the ones an earlier FALSE hid); DefWindowProc then hides or shows the window.
pub fn ShowOwnedPopups(cx: &mut Ctx, hWnd: u32, fShow: bool) -> ApiResult<Outcome> {
    const SW_PARENTCLOSING: u32 = 1;
    const SW_PARENTOPENING: u32 = 3;
    let targets: Vec<u32> = {
        let wm = lock_wm(cx.proc);
        if wm.win(hWnd).is_none() {
            drop(wm);
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            return Ok(Outcome::Return(0));
        }
        wm.top
            .iter()
            .copied()
            .filter(|&t| {
                wm.win(t).is_some_and(|w| {
                    w.owner == hWnd
                        && if fShow {
                            wm.hidden_with_owner.contains(&t)
                        } else {
                            w.style & wm::WS_VISIBLE != 0
                        }
                })
            })
            .collect()
    };
    fin((|| {
        for t in targets {
            if fShow {
                send(cx, t, WM_SHOWWINDOW, 1, SW_PARENTOPENING, true)?;
            } else {
                send(cx, t, WM_SHOWWINDOW, 0, SW_PARENTCLOSING, true)?;
            }
        }
        Ok(true)
    })())
}

/// DefWindowProc's WM_SHOWWINDOW from ShowOwnedPopups (`lp` non-zero): an owned
/// window hides, remembering why, or shows again if that is why it was hidden.
fn show_with_owner(cx: &mut Ctx, hwnd: u32, show: bool) -> UR<()> {
    let act = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            return Ok(());
        };
        let visible = w.style & wm::WS_VISIBLE != 0;
        if w.owner == 0 || visible == show {
            false
        } else if show {
            wm.hidden_with_owner.remove(&hwnd)
        } else {
            wm.hidden_with_owner.insert(hwnd);
            true
        }
    };
    if act {
        // SW_SHOWNOACTIVATE or SW_HIDE.
        show_window(cx, hwnd, if show { 4 } else { 0 })?;
    }
    Ok(())
}

/// WinHelp: winterp has no help engine (winhlp32.exe is absent, as on Windows
/// Vista and later without the separate download). HELP_QUIT, which closes the
/// engine, has nothing to close and succeeds; every other command fails as
/// WinHelp does when it cannot start winhlp32.exe: FALSE with ERROR_FILE_NOT_FOUND.
pub fn WinHelp<S: GuestStr>(
    cx: &mut Ctx,
    _hWndMain: u32,
    _lpszHelp: S,
    uCommand: u32,
    _dwData: u32,
) -> ApiResult<bool> {
    const HELP_QUIT: u32 = 2;
    if uCommand == HELP_QUIT {
        return Ok(true);
    }
    set_error(cx, crate::kernel32::misc::err::ERROR_FILE_NOT_FOUND)?;
    Ok(false)
}

/// SetFocus's work; returns the previous focus.
pub fn set_focus(cx: &mut Ctx, hwnd: u32) -> UR<u32> {
    let (prev, top, active) = {
        let wm = lock_wm(cx.proc);
        (wm.focus, wm.top_of(hwnd), wm.active)
    };
    if hwnd == 0 {
        if prev != 0 {
            lock_wm(cx.proc).focus = 0;
            send(cx, prev, WM_KILLFOCUS, 0, 0, true)?;
        }
        return Ok(prev);
    }
    if !exists(cx, hwnd) {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    }
    if prev == hwnd {
        return Ok(prev);
    }
    if top != active {
        set_active(cx, top)?;
        if lock_wm(cx.proc).focus == hwnd {
            return Ok(prev);
        }
    }
    let prev = lock_wm(cx.proc).focus;
    lock_wm(cx.proc).focus = hwnd;
    if prev != 0 && exists(cx, prev) {
        send(cx, prev, WM_KILLFOCUS, hwnd, 0, true)?;
    }
    if lock_wm(cx.proc).focus == hwnd {
        send(cx, hwnd, WM_SETFOCUS, prev, 0, true)?;
    }
    Ok(prev)
}

pub fn SetFocus(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    fin(set_focus(cx, hWnd))
}

pub fn GetFocus(cx: &mut Ctx) -> u32 {
    lock_wm(cx.proc).focus
}

pub fn SetActiveWindow(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    let top = lock_wm(cx.proc).top_of(hWnd);
    fin(set_active(cx, top))
}

pub fn GetActiveWindow(cx: &mut Ctx) -> u32 {
    lock_wm(cx.proc).active
}

pub fn GetForegroundWindow(cx: &mut Ctx) -> u32 {
    lock_wm(cx.proc).active
}

pub fn SetForegroundWindow(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    let top = lock_wm(cx.proc).top_of(hWnd);
    fin(set_active(cx, top).map(|_| true))
}

pub fn BringWindowToTop(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    fin(set_window_pos(
        cx,
        hWnd,
        0,
        0,
        0,
        0,
        0,
        SWP_NOSIZE | SWP_NOMOVE,
    ))
}

#[allow(clippy::too_many_arguments)]
pub fn SetWindowPos(
    cx: &mut Ctx,
    hWnd: u32,
    hWndInsertAfter: u32,
    X: i32,
    Y: i32,
    cx_: i32,
    cy: i32,
    uFlags: u32,
) -> ApiResult<Outcome> {
    fin(set_window_pos(
        cx,
        hWnd,
        hWndInsertAfter,
        X,
        Y,
        cx_,
        cy,
        uFlags,
    ))
}

pub fn MoveWindow(
    cx: &mut Ctx,
    hWnd: u32,
    X: i32,
    Y: i32,
    nWidth: i32,
    nHeight: i32,
    bRepaint: bool,
) -> ApiResult<Outcome> {
    let mut f = SWP_NOZORDER | SWP_NOACTIVATE;
    if !bRepaint {
        f |= SWP_NOREDRAW;
    }
    fin(set_window_pos(cx, hWnd, 0, X, Y, nWidth, nHeight, f))
}

pub fn EnableWindow(cx: &mut Ctx, hWnd: u32, bEnable: bool) -> ApiResult<Outcome> {
    let was = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win_mut(hWnd) else {
            return Ok(Outcome::Return(0));
        };
        let was_disabled = w.style & wm::WS_DISABLED != 0;
        if bEnable {
            w.style &= !wm::WS_DISABLED;
        } else {
            w.style |= wm::WS_DISABLED;
        }
        if was_disabled == bEnable {
            wm.invalidate(hWnd, None, true);
        }
        was_disabled
    };
    if was == bEnable {
        if !bEnable {
            let f = lock_wm(cx.proc).focus;
            if f == hWnd {
                lock_wm(cx.proc).focus = 0;
            }
        }
        if let Err(e) = send(cx, hWnd, WM_ENABLE, bEnable as u32, 0, true) {
            return fin::<u32>(Err(e));
        }
    }
    Ok(Outcome::Return(was as u64))
}

pub fn IsWindowEnabled(cx: &mut Ctx, hWnd: u32) -> bool {
    lock_wm(cx.proc)
        .win(hWnd)
        .is_some_and(|w| w.style & wm::WS_DISABLED == 0)
}

pub fn IsWindow(cx: &mut Ctx, hWnd: u32) -> bool {
    hWnd == wm::HWND_DESKTOP || exists(cx, hWnd)
}

pub fn IsWindowVisible(cx: &mut Ctx, hWnd: u32) -> bool {
    lock_wm(cx.proc).is_visible(hWnd)
}

/// Whether the window's procedure takes Unicode messages: set by the class it was
/// created from (RegisterClassW) and by the last SetWindowLongA/W(GWL_WNDPROC).
pub fn IsWindowUnicode(cx: &mut Ctx, hWnd: u32) -> bool {
    lock_wm(cx.proc).win(hWnd).is_some_and(|w| w.unicode)
}

pub fn IsIconic(cx: &mut Ctx, hWnd: u32) -> bool {
    lock_wm(cx.proc)
        .win(hWnd)
        .is_some_and(|w| w.style & wm::WS_MINIMIZE != 0)
}

pub fn IsZoomed(cx: &mut Ctx, hWnd: u32) -> bool {
    lock_wm(cx.proc)
        .win(hWnd)
        .is_some_and(|w| w.style & wm::WS_MAXIMIZE != 0)
}

pub fn IsChild(cx: &mut Ctx, hWndParent: u32, hWnd: u32) -> bool {
    lock_wm(cx.proc).is_child_of(hWnd, hWndParent)
}

pub fn GetWindowRect(cx: &mut Ctx, hWnd: u32, lpRect: Ptr) -> ApiResult<bool> {
    let r = {
        let wm = lock_wm(cx.proc);
        if hWnd == wm::HWND_DESKTOP {
            let m = cx.proc.display.mode();
            Some(Rect::new(0, 0, m.width as i32, m.height as i32))
        } else {
            wm.win(hWnd).map(|w| {
                let (x, y) = wm.window_origin(hWnd);
                Rect::new(x, y, x + w.rect.width(), y + w.rect.height())
            })
        }
    };
    match r {
        Some(r) => {
            put_rect(cx, lpRect.0, r)?;
            Ok(true)
        }
        None => {
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            Ok(false)
        }
    }
}

pub fn GetClientRect(cx: &mut Ctx, hWnd: u32, lpRect: Ptr) -> ApiResult<bool> {
    let r = if hWnd == wm::HWND_DESKTOP {
        let m = cx.proc.display.mode();
        Some((m.width as i32, m.height as i32))
    } else {
        let wm = lock_wm(cx.proc);
        wm.win(hWnd).map(|w| (w.client.width(), w.client.height()))
    };
    match r {
        Some((w, h)) => {
            put_rect(cx, lpRect.0, Rect::new(0, 0, w, h))?;
            Ok(true)
        }
        None => {
            set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            Ok(false)
        }
    }
}

pub fn ClientToScreen(cx: &mut Ctx, hWnd: u32, lpPoint: Ptr) -> ApiResult<bool> {
    let (ox, oy) = lock_wm(cx.proc).client_origin(hWnd);
    let m = &cx.proc.mem;
    let x = m.read_u32(lpPoint.0)? as i32;
    let y = m.read_u32(lpPoint.0 + 4)? as i32;
    m.write_u32(lpPoint.0, (x + ox) as u32)?;
    m.write_u32(lpPoint.0 + 4, (y + oy) as u32)?;
    Ok(true)
}

pub fn ScreenToClient(cx: &mut Ctx, hWnd: u32, lpPoint: Ptr) -> ApiResult<bool> {
    let (ox, oy) = lock_wm(cx.proc).client_origin(hWnd);
    let m = &cx.proc.mem;
    let x = m.read_u32(lpPoint.0)? as i32;
    let y = m.read_u32(lpPoint.0 + 4)? as i32;
    m.write_u32(lpPoint.0, (x - ox) as u32)?;
    m.write_u32(lpPoint.0 + 4, (y - oy) as u32)?;
    Ok(true)
}

pub fn MapWindowPoints(
    cx: &mut Ctx,
    hWndFrom: u32,
    hWndTo: u32,
    lpPoints: Ptr,
    cPoints: u32,
) -> ApiResult<u32> {
    let (fx, fy, tx, ty) = {
        let wm = lock_wm(cx.proc);
        let f = wm.client_origin(hWndFrom);
        let t = wm.client_origin(hWndTo);
        (f.0, f.1, t.0, t.1)
    };
    let (dx, dy) = (fx - tx, fy - ty);
    let m = &cx.proc.mem;
    for k in 0..cPoints.min(0x10000) {
        let p = lpPoints.0 + 8 * k;
        let x = m.read_u32(p)? as i32;
        let y = m.read_u32(p + 4)? as i32;
        m.write_u32(p, (x + dx) as u32)?;
        m.write_u32(p + 4, (y + dy) as u32)?;
    }
    Ok(lohi(dx, dy))
}

pub fn GetParent(cx: &mut Ctx, hWnd: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    wm.win(hWnd).map_or(0, |w| {
        if w.style & wm::WS_CHILD != 0 {
            w.parent
        } else {
            w.owner
        }
    })
}

pub fn GetAncestor(cx: &mut Ctx, hWnd: u32, gaFlags: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    match gaFlags {
        1 => wm.win(hWnd).map_or(0, |w| {
            if w.parent != 0 {
                w.parent
            } else {
                wm::HWND_DESKTOP
            }
        }),
        _ => {
            let mut t = wm.top_of(hWnd);
            if gaFlags == 3 {
                while let Some(o) = wm.win(t).map(|w| w.owner).filter(|&o| o != 0) {
                    t = o;
                }
            }
            t
        }
    }
}

pub fn SetParent(cx: &mut Ctx, hWndChild: u32, hWndNewParent: u32) -> ApiResult<u32> {
    let mut wm = lock_wm(cx.proc);
    let Some(old) = wm.win(hWndChild).map(|w| w.parent) else {
        return Ok(0);
    };
    if old != 0 {
        if let Some(p) = wm.win_mut(old) {
            p.children.retain(|&c| c != hWndChild);
        }
    } else {
        wm.top.retain(|&c| c != hWndChild);
    }
    let np = if hWndNewParent == wm::HWND_DESKTOP {
        0
    } else {
        hWndNewParent
    };
    if np != 0 && wm.win(np).is_some() {
        wm.win_mut(np)
            .expect("checked")
            .children
            .insert(0, hWndChild);
        let w = wm.win_mut(hWndChild).expect("checked");
        w.parent = np;
        w.surface = None;
    } else {
        wm.top.insert(0, hWndChild);
        let w = wm.win_mut(hWndChild).expect("checked");
        w.parent = 0;
        if w.surface.is_none() {
            w.surface = Some(wm::new_surface(w.rect.width(), w.rect.height()));
        }
    }
    Ok(if old == 0 { wm::HWND_DESKTOP } else { old })
}

pub fn GetWindow(cx: &mut Ctx, hWnd: u32, uCmd: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    let Some(w) = wm.win(hWnd) else { return 0 };
    let siblings: &[u32] = if w.parent != 0 {
        wm.win(w.parent).map_or(&[], |p| &p.children)
    } else {
        &wm.top
    };
    let pos = siblings.iter().position(|&s| s == hWnd);
    match uCmd {
        0 => siblings.first().copied().unwrap_or(0),
        1 => siblings.last().copied().unwrap_or(0),
        2 => pos.and_then(|i| siblings.get(i + 1)).copied().unwrap_or(0),
        3 => pos
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| siblings.get(i))
            .copied()
            .unwrap_or(0),
        4 => w.owner,
        5 => w.children.first().copied().unwrap_or(0),
        _ => 0,
    }
}

pub fn GetTopWindow(cx: &mut Ctx, hWnd: u32) -> u32 {
    let wm = lock_wm(cx.proc);
    if hWnd == 0 || hWnd == wm::HWND_DESKTOP {
        return wm.top.first().copied().unwrap_or(0);
    }
    wm.win(hWnd)
        .and_then(|w| w.children.first().copied())
        .unwrap_or(0)
}

pub fn GetDesktopWindow(_cx: &mut Ctx) -> u32 {
    wm::HWND_DESKTOP
}

pub fn GetWindowThreadProcessId(cx: &mut Ctx, hWnd: u32, lpdwProcessId: Ptr) -> ApiResult<u32> {
    let tid = lock_wm(cx.proc).win(hWnd).map_or(0, |w| w.tid);
    if tid != 0 && !lpdwProcessId.is_null() {
        let pid = crate::kernel32::process::process_id(cx);
        cx.proc.mem.write_u32(lpdwProcessId.0, pid)?;
    }
    Ok(tid)
}

fn find_window(cx: &mut Ctx, class: u32, title: u32, unicode: bool) -> ApiResult<u32> {
    let class = if class == 0 {
        None
    } else {
        Some(str_or_atom(cx, class, unicode)?)
    };
    let title = if title == 0 {
        None
    } else {
        Some(read_str(cx, title, unicode)?)
    };
    let wm = lock_wm(cx.proc);
    Ok(wm
        .top
        .iter()
        .copied()
        .find(|&h| {
            let w = wm.win(h).expect("listed");
            let c = wm.classes.get(w.class).and_then(|c| c.as_ref());
            let cm = match (&class, c) {
                (None, _) => true,
                (Some(NameOrId::Name(n)), Some(c)) => c.name.eq_ignore_ascii_case(n),
                (Some(NameOrId::Id(a)), Some(c)) => c.atom == *a,
                _ => false,
            };
            cm && title.as_ref().is_none_or(|t| *t == w.text)
        })
        .unwrap_or(0))
}

pub fn FindWindow<S: GuestStr>(
    cx: &mut Ctx,
    lpClassName: u32,
    lpWindowName: u32,
) -> ApiResult<u32> {
    find_window(cx, lpClassName, lpWindowName, S::WIDE)
}
fn enum_windows(cx: &mut Ctx, list: Vec<u32>, f: u32, lp: u32) -> UR<bool> {
    for h in list {
        if !exists(cx, h) {
            continue;
        }
        if super::guest(cx, f, &[h, lp])? == 0 {
            break;
        }
    }
    Ok(true)
}

pub fn EnumWindows(cx: &mut Ctx, lpEnumFunc: u32, lParam: u32) -> ApiResult<Outcome> {
    let list = lock_wm(cx.proc).top.clone();
    fin(enum_windows(cx, list, lpEnumFunc, lParam))
}

pub fn EnumChildWindows(
    cx: &mut Ctx,
    hWndParent: u32,
    lpEnumFunc: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let list = {
        let wm = lock_wm(cx.proc);
        let mut v = Vec::new();
        fn walk(wm: &Wm, h: u32, v: &mut Vec<u32>) {
            if let Some(w) = wm.win(h) {
                for &c in &w.children {
                    v.push(c);
                    walk(wm, c, v);
                }
            }
        }
        walk(&wm, hWndParent, &mut v);
        v
    };
    fin(enum_windows(cx, list, lpEnumFunc, lParam))
}

pub fn EnumThreadWindows(
    cx: &mut Ctx,
    dwThreadId: u32,
    lpfn: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let list = {
        let wm = lock_wm(cx.proc);
        wm.top
            .iter()
            .copied()
            .filter(|&h| wm.win(h).is_some_and(|w| w.tid == dwThreadId))
            .collect()
    };
    fin(enum_windows(cx, list, lpfn, lParam))
}

// ---- Window longs and text --------------------------------------------------------------

fn window_long(cx: &mut Ctx, h: u32, idx: i32, set: Option<u32>, unicode: bool) -> ApiResult<u32> {
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.win_mut(h) else {
        drop(wm);
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    };
    let old = match idx {
        GWL_WNDPROC => {
            let old = w.wndproc;
            if let Some(v) = set {
                w.wndproc = v;
                w.unicode = unicode;
            }
            old
        }
        GWL_HINSTANCE => {
            let old = w.instance;
            if let Some(v) = set {
                w.instance = v;
            }
            old
        }
        GWL_HWNDPARENT => {
            if w.parent != 0 {
                w.parent
            } else {
                let old = w.owner;
                if let Some(v) = set {
                    w.owner = v;
                }
                old
            }
        }
        GWL_ID => {
            let old = w.id;
            if let Some(v) = set {
                w.id = v;
            }
            old
        }
        GWL_STYLE => {
            let old = w.style;
            if let Some(v) = set {
                w.style = v;
            }
            old
        }
        GWL_EXSTYLE => {
            let old = w.exstyle;
            if let Some(v) = set {
                w.exstyle = v;
            }
            old
        }
        GWL_USERDATA => {
            let old = w.userdata;
            if let Some(v) = set {
                w.userdata = v;
            }
            old
        }
        i if i >= 0 && (i as usize) + 4 <= w.extra.len() => {
            let i = i as usize;
            let old =
                u32::from_le_bytes([w.extra[i], w.extra[i + 1], w.extra[i + 2], w.extra[i + 3]]);
            if let Some(v) = set {
                w.extra[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            old
        }
        _ => {
            drop(wm);
            set_error(cx, ERROR_INVALID_INDEX)?;
            return Ok(0);
        }
    };
    drop(wm);
    if idx == GWL_STYLE && set.is_some() {
        lock_wm(cx.proc).recalc_client(h);
    }
    Ok(old)
}

pub fn GetWindowLong<S: GuestStr>(cx: &mut Ctx, hWnd: u32, nIndex: i32) -> ApiResult<u32> {
    window_long(cx, hWnd, nIndex, None, S::WIDE)
}
pub fn SetWindowLong<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    nIndex: i32,
    dwNewLong: u32,
) -> ApiResult<u32> {
    window_long(cx, hWnd, nIndex, Some(dwNewLong), S::WIDE)
}
fn window_word(cx: &mut Ctx, h: u32, idx: i32, set: Option<u16>) -> ApiResult<u32> {
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.win_mut(h) else { return Ok(0) };
    if idx >= 0 && (idx as usize) + 2 <= w.extra.len() {
        let i = idx as usize;
        let old = u16::from_le_bytes([w.extra[i], w.extra[i + 1]]);
        if let Some(v) = set {
            w.extra[i..i + 2].copy_from_slice(&v.to_le_bytes());
        }
        return Ok(old as u32);
    }
    if idx == GWL_ID {
        return Ok(w.id & 0xffff);
    }
    drop(wm);
    set_error(cx, ERROR_INVALID_INDEX)?;
    Ok(0)
}

pub fn GetWindowWord(cx: &mut Ctx, hWnd: u32, nIndex: i32) -> ApiResult<u32> {
    window_word(cx, hWnd, nIndex, None)
}
pub fn SetWindowWord(cx: &mut Ctx, hWnd: u32, nIndex: i32, w: u32) -> ApiResult<u32> {
    window_word(cx, hWnd, nIndex, Some(w as u16))
}

fn get_window_text(cx: &mut Ctx, h: u32, buf: u32, cap: u32, unicode: bool) -> ApiResult<Outcome> {
    if cap == 0 || buf == 0 {
        return Ok(Outcome::Return(0));
    }
    cx.proc.mem.write_u8(buf, 0)?;
    if !exists(cx, h) {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(Outcome::Return(0));
    }
    fin(send(cx, h, WM_GETTEXT, cap, buf, unicode))
}

pub fn GetWindowText<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    lpString: u32,
    nMaxCount: u32,
) -> ApiResult<Outcome> {
    get_window_text(cx, hWnd, lpString, nMaxCount, S::WIDE)
}
pub fn GetWindowTextLength<S: GuestStr>(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    fin(send(cx, hWnd, WM_GETTEXTLENGTH, 0, 0, S::WIDE))
}
pub fn SetWindowText<S: GuestStr>(cx: &mut Ctx, hWnd: u32, lpString: u32) -> ApiResult<Outcome> {
    fin(send(cx, hWnd, WM_SETTEXT, 0, lpString, S::WIDE))
}
fn prop(
    cx: &mut Ctx,
    h: u32,
    name: u32,
    unicode: bool,
    set: Option<Option<u32>>,
) -> ApiResult<u32> {
    let key = match str_or_atom(cx, name, unicode)? {
        NameOrId::Name(n) => n.to_uppercase(),
        NameOrId::Id(a) => format!("#{a}"),
    };
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.win_mut(h) else { return Ok(0) };
    Ok(match set {
        None => w.props.get(&key).copied().unwrap_or(0),
        Some(Some(v)) => {
            w.props.insert(key, v);
            1
        }
        Some(None) => w.props.remove(&key).unwrap_or(0),
    })
}

pub fn GetProp<S: GuestStr>(cx: &mut Ctx, hWnd: u32, lpString: u32) -> ApiResult<u32> {
    prop(cx, hWnd, lpString, S::WIDE, None)
}
pub fn SetProp<S: GuestStr>(cx: &mut Ctx, hWnd: u32, lpString: u32, hData: u32) -> ApiResult<u32> {
    prop(cx, hWnd, lpString, S::WIDE, Some(Some(hData)))
}
pub fn RemoveProp<S: GuestStr>(cx: &mut Ctx, hWnd: u32, lpString: u32) -> ApiResult<u32> {
    prop(cx, hWnd, lpString, S::WIDE, Some(None))
}
// ---- Metrics, monitor, desktop -----------------------------------------------------------

pub fn adjust_rect(r: Rect, style: u32, menu: bool, exstyle: u32) -> Rect {
    let i = Wm::nc_insets(style, exstyle, menu);
    Rect::new(
        r.left - i.left,
        r.top - i.top,
        r.right + i.right,
        r.bottom + i.bottom,
    )
}

pub fn AdjustWindowRect(cx: &mut Ctx, lpRect: Ptr, dwStyle: u32, bMenu: bool) -> ApiResult<bool> {
    AdjustWindowRectEx(cx, lpRect, dwStyle, bMenu, 0)
}

pub fn AdjustWindowRectEx(
    cx: &mut Ctx,
    lpRect: Ptr,
    dwStyle: u32,
    bMenu: bool,
    dwExStyle: u32,
) -> ApiResult<bool> {
    let r = rect_at(cx, lpRect.0)?;
    // Overlapped windows always have a caption.
    let style = if dwStyle & (wm::WS_POPUP | wm::WS_CHILD) == 0 {
        dwStyle | wm::WS_CAPTION
    } else {
        dwStyle
    };
    put_rect(
        cx,
        lpRect.0,
        adjust_rect(r, style, bMenu && style & wm::WS_CHILD == 0, dwExStyle),
    )?;
    Ok(true)
}

pub fn GetSystemMetrics(cx: &mut Ctx, nIndex: i32) -> i32 {
    let m = cx.proc.display.mode();
    let (w, h) = (m.width as i32, m.height as i32);
    match nIndex {
        0 | 16 | 78 => w,
        1 | 79 => h,
        17 => h - wm::CY_CAPTION,
        2 | 3 | 9 | 10 | 20 | 21 => 16,
        4 => wm::CY_CAPTION,
        5 | 6 => wm::CX_BORDER,
        7 | 8 => wm::CX_DLGFRAME,
        11..=14 => 32,
        15 => wm::CY_MENU,
        19 => 1,
        28 => 112,
        29 => 27,
        30 | 31 => 18,
        32 | 33 => wm::CX_FRAME,
        34 => 112,
        35 => 27,
        36 | 37 => 4,
        38 => 75,
        39 => 75,
        43 => 3,
        45 | 46 => wm::CX_EDGE,
        47 => 160,
        48 => 24,
        49 | 50 => 16,
        51 => 15,
        52 | 53 => 15,
        54 | 55 => 18,
        56 => 8,
        57 => 160,
        58 => 24,
        59 => w + 12,
        60 => h + 12,
        61 => w + 8,
        62 => h + 8,
        63 => 3,
        68 | 69 => 4,
        71 | 72 => 13,
        75 => 1,
        80 | 81 => 1,
        18 | 22 | 23 | 40 | 41 | 42 | 44 | 67 | 70 | 73 | 74 | 76 | 77 | 0x1000 => 0,
        _ => {
            log::warn!("GetSystemMetrics({nIndex}): unknown index, returning 0");
            0
        }
    }
}

const HMONITOR: u32 = 0x0001_0042;

pub fn MonitorFromRect(_cx: &mut Ctx, _lprc: Ptr, _dwFlags: u32) -> u32 {
    HMONITOR
}
pub fn MonitorFromWindow(_cx: &mut Ctx, _hwnd: u32, _dwFlags: u32) -> u32 {
    HMONITOR
}
pub fn MonitorFromPoint(_cx: &mut Ctx, _x: i32, _y: i32, _dwFlags: u32) -> u32 {
    HMONITOR
}

/// The one monitor, clipped to `lprcClip` (and to the device context's area when
/// `hdc` is given, which here is the same screen): MonitorEnumProc(hMonitor,
/// hdcMonitor, lprcMonitor, dwData) is called once if the intersection is not empty.
pub fn EnumDisplayMonitors(
    cx: &mut Ctx,
    hdc: u32,
    lprcClip: Ptr,
    lpfnEnum: u32,
    dwData: u32,
) -> ApiResult<Outcome> {
    let m = cx.proc.display.mode();
    let screen = Rect::new(0, 0, m.width as i32, m.height as i32);
    let area = if lprcClip.is_null() {
        screen
    } else {
        let c = rect_at(cx, lprcClip.0)?;
        Rect::new(
            c.left.max(screen.left),
            c.top.max(screen.top),
            c.right.min(screen.right),
            c.bottom.min(screen.bottom),
        )
    };
    if area.right <= area.left || area.bottom <= area.top {
        return Ok(Outcome::Return(1));
    }
    let (rc, esp) = super::stack_alloc(cx, 16);
    put_rect(cx, rc, if hdc == 0 { screen } else { area })?;
    let r = super::guest(cx, lpfnEnum, &[HMONITOR, hdc, rc, dwData]);
    super::stack_free(cx, esp);
    fin(r.map(|_| true))
}

fn monitor_info(cx: &mut Ctx, h: u32, p: Ptr, unicode: bool) -> ApiResult<bool> {
    if h != HMONITOR {
        return Ok(false);
    }
    let size = cx.proc.mem.read_u32(p.0)?;
    let m = cx.proc.display.mode();
    let r = Rect::new(0, 0, m.width as i32, m.height as i32);
    put_rect(cx, p.0 + 4, r)?;
    put_rect(cx, p.0 + 20, r)?;
    cx.proc.mem.write_u32(p.0 + 36, 1)?;
    let ex = if unicode { 40 + 64 } else { 40 + 32 };
    if size >= ex {
        super::write_str(cx, p.0 + 40, r"\\.\DISPLAY1", unicode)?;
    }
    Ok(true)
}

pub fn GetMonitorInfo<S: GuestStr>(cx: &mut Ctx, hMonitor: u32, lpmi: Ptr) -> ApiResult<bool> {
    monitor_info(cx, hMonitor, lpmi, S::WIDE)
}
fn spi(cx: &mut Ctx, action: u32, param: u32, pv: Ptr, unicode: bool) -> ApiResult<bool> {
    let m = cx.proc.display.mode();
    let mem = &cx.proc.mem;
    match action {
        // SPI_GETWORKAREA
        0x30 => {
            put_rect(cx, pv.0, Rect::new(0, 0, m.width as i32, m.height as i32))?;
        }
        // SPI_GETBEEP, SPI_GETSCREENSAVEACTIVE, SPI_GETDRAGFULLWINDOWS, SPI_GETFONTSMOOTHING
        0x1 | 0x10 | 0x26 | 0x4a => {
            mem.write_u32(pv.0, 0)?;
        }
        // SPI_GETKEYBOARDSPEED, SPI_GETKEYBOARDDELAY
        0xa => {
            mem.write_u32(pv.0, 31)?;
        }
        0x16 => {
            mem.write_u32(pv.0, 1)?;
        }
        // SPI_GETWHEELSCROLLLINES
        0x68 => {
            mem.write_u32(pv.0, 3)?;
        }
        // SPI_GETSHOWSOUNDS, SPI_GETMENUDROPALIGNMENT, SPI_GETHIGHCONTRAST-like flags
        0x38 | 0x1b => {
            mem.write_u32(pv.0, 0)?;
        }
        // SPI_GETICONTITLELOGFONT
        0x1f => write_logfont(cx, pv.0, unicode)?,
        // SPI_GETNONCLIENTMETRICS
        0x29 => {
            let lf = if unicode { 92 } else { 60 };
            let vals = [1u32, 16, 16, 18, 18];
            for (k, v) in vals.iter().enumerate() {
                mem.write_u32(pv.0 + 4 + 4 * k as u32, *v)?;
            }
            let mut at = pv.0 + 24;
            write_logfont(cx, at, unicode)?;
            at += lf;
            mem.write_u32(at, 15)?;
            mem.write_u32(at + 4, 15)?;
            at += 8;
            write_logfont(cx, at, unicode)?;
            at += lf;
            mem.write_u32(at, 18)?;
            mem.write_u32(at + 4, 18)?;
            at += 8;
            for _ in 0..3 {
                write_logfont(cx, at, unicode)?;
                at += lf;
            }
        }
        _ => {
            return Err(crate::hle::ApiError::UnimplementedCase(format!(
                "SystemParametersInfo action {action:#x} (param {param})"
            )));
        }
    }
    Ok(true)
}

fn write_logfont(cx: &Ctx, p: u32, unicode: bool) -> ApiResult<()> {
    let m = &cx.proc.mem;
    m.write_u32(p, (-11i32) as u32)?;
    for k in 1..5 {
        m.write_u32(p + 4 * k, 0)?;
    }
    m.write_u32(p + 16, 400)?;
    m.write_u32(p + 20, 0)?;
    m.write_u32(p + 24, 0)?;
    super::write_str(cx, p + 28, "MS Shell Dlg", unicode)
}

pub fn SystemParametersInfo<S: GuestStr>(
    cx: &mut Ctx,
    uiAction: u32,
    uiParam: u32,
    pvParam: Ptr,
    _fWinIni: u32,
) -> ApiResult<bool> {
    spi(cx, uiAction, uiParam, pvParam, S::WIDE)
}
/// Classic Windows colours as 0x00RRGGBB, by COLOR_ index.
pub const SYS_COLORS: [u32; 31] = [
    0xc0c0c0, 0x008080, 0x000080, 0x808080, 0xc0c0c0, 0xffffff, 0x000000, 0x000000, 0x000000,
    0xffffff, 0xc0c0c0, 0xc0c0c0, 0x808080, 0x000080, 0xffffff, 0xc0c0c0, 0x808080, 0x808080,
    0x000000, 0xc0c0c0, 0xffffff, 0x000000, 0xdfdfdf, 0x000000, 0xffffe1, 0xb5b5b5, 0x0000ff,
    0x1084d0, 0xb5b5b5, 0x000080, 0xc0c0c0,
];

pub fn sys_color_rgb(i: u32) -> u32 {
    SYS_COLORS.get(i as usize).copied().unwrap_or(0)
}

pub fn rgb_to_colorref(c: u32) -> u32 {
    ((c & 0xff) << 16) | (c & 0xff00) | ((c >> 16) & 0xff)
}

pub fn GetSysColor(_cx: &mut Ctx, nIndex: u32) -> u32 {
    rgb_to_colorref(sys_color_rgb(nIndex))
}

pub fn GetSysColorBrush(cx: &mut Ctx, nIndex: u32) -> ApiResult<Outcome> {
    fin(sys_color_brush(cx, nIndex))
}

/// A GDI solid brush of system colour `i`, created once.
pub fn sys_color_brush(cx: &mut Ctx, i: u32) -> UR<u32> {
    if let Some(&b) = lock_wm(cx.proc).sys_brushes.get(&i) {
        return Ok(b);
    }
    let c = rgb_to_colorref(sys_color_rgb(i));
    let Some(b) = super::call_export(cx, "GDI32.dll", "CreateSolidBrush", &[c])? else {
        return Err(Flow::Err(crate::hle::ApiError::Unimplemented {
            dll: "GDI32.dll".into(),
            name: "CreateSolidBrush (for GetSysColorBrush)".into(),
        }));
    };
    lock_wm(cx.proc).sys_brushes.insert(i, b);
    Ok(b)
}

// ---- DefWindowProc --------------------------------------------------------------------

const HTCLIENT: u32 = 1;
pub const HTMENU: u32 = 5;
const SC_MOUSEMENU: u32 = 0xf090;
const SC_KEYMENU: u32 = 0xf100;
const SC_CLOSE: u32 = 0xf060;
const SC_MINIMIZE: u32 = 0xf020;
const SC_MAXIMIZE: u32 = 0xf030;
const SC_RESTORE: u32 = 0xf120;

pub fn def_window_proc(
    cx: &mut Ctx,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    match msg {
        WM_NCCREATE => {
            if lp != 0 {
                let name_p = cx.proc.mem.read_u32(lp + 36)?;
                if name_p >> 16 != 0 {
                    let s = read_str(cx, name_p, unicode)?;
                    if let Some(w) = lock_wm(cx.proc).win_mut(hwnd) {
                        w.text = s;
                    }
                }
            }
            Ok(1)
        }
        WM_NCCALCSIZE => {
            if lp != 0 {
                let r = rect_at(cx, lp)?;
                let i = lock_wm(cx.proc).window_insets(hwnd, r.width());
                let c = Rect::new(
                    r.left + i.left,
                    r.top + i.top,
                    (r.right - i.right).max(r.left + i.left),
                    (r.bottom - i.bottom).max(r.top + i.top),
                );
                put_rect(cx, lp, c)?;
            }
            Ok(0)
        }
        WM_CLOSE => {
            destroy_window(cx, hwnd)?;
            Ok(0)
        }
        WM_ERASEBKGND => super::paint::erase_background(cx, hwnd, wp),
        WM_PAINT => {
            let (ps, esp) = super::stack_alloc(cx, 64);
            let r = super::paint::begin_paint(cx, hwnd, ps).and_then(|hdc| {
                if hdc != 0 {
                    super::paint::end_paint(cx, hwnd, ps)?;
                }
                Ok(())
            });
            super::stack_free(cx, esp);
            r?;
            Ok(0)
        }
        WM_SETTEXT => {
            let s = if lp == 0 {
                String::new()
            } else {
                read_str(cx, lp, unicode)?
            };
            if let Some(w) = lock_wm(cx.proc).win_mut(hwnd) {
                w.text = s;
            }
            Ok(1)
        }
        WM_GETTEXT => {
            let s = lock_wm(cx.proc)
                .win(hwnd)
                .map(|w| w.text.clone())
                .unwrap_or_default();
            if wp == 0 {
                return Ok(0);
            }
            Ok(super::put_str(cx, lp, wp, &s, unicode)?)
        }
        WM_GETTEXTLENGTH => {
            let s = lock_wm(cx.proc)
                .win(hwnd)
                .map(|w| w.text.clone())
                .unwrap_or_default();
            Ok(super::str_len(&s, unicode))
        }
        WM_SYSCOMMAND => {
            match wp & 0xfff0 {
                SC_CLOSE => {
                    send(cx, hwnd, WM_CLOSE, 0, 0, unicode)?;
                }
                SC_MINIMIZE => {
                    show_window(cx, hwnd, 6)?;
                }
                SC_MAXIMIZE => {
                    show_window(cx, hwnd, 3)?;
                }
                SC_RESTORE => {
                    show_window(cx, hwnd, 9)?;
                }
                SC_MOUSEMENU => {
                    let pt = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
                    super::menubar::track_bar(cx, hwnd, pt)?;
                }
                SC_KEYMENU => {
                    log::warn!(
                        "WM_SYSCOMMAND SC_KEYMENU (menu from the keyboard) for window {hwnd:#x}: \
                         keyboard menu mode is not implemented; the menu opens with the mouse"
                    );
                }
                _ => {}
            }
            Ok(0)
        }
        WM_SYSKEYDOWN => {
            // Alt+F4 closes the window.
            if wp == 0x73 && lp & (1 << 29) != 0 {
                let top = lock_wm(cx.proc).top_of(hwnd);
                post(cx, top, WM_SYSCOMMAND, SC_CLOSE, 0);
            }
            Ok(0)
        }
        WM_WINDOWPOSCHANGED => {
            if lp == 0 {
                return Ok(0);
            }
            let flags = cx.proc.mem.read_u32(lp + 24)?;
            let info = lock_wm(cx.proc).win(hwnd).map(|w| {
                (
                    w.rect.left + w.client.left,
                    w.rect.top + w.client.top,
                    w.client.width(),
                    w.client.height(),
                    w.style,
                )
            });
            if let Some((x, y, w, h, style)) = info {
                if flags & SWP_NOMOVE == 0 {
                    send(cx, hwnd, WM_MOVE, 0, lohi(x, y), unicode)?;
                }
                if flags & SWP_NOSIZE == 0 {
                    let kind = if style & wm::WS_MAXIMIZE != 0 { 2 } else { 0 };
                    send(cx, hwnd, WM_SIZE, kind, lohi(w, h), unicode)?;
                }
            }
            Ok(0)
        }
        WM_ACTIVATE => {
            if wp & 0xffff != 0 {
                let focus = lock_wm(cx.proc).focus;
                let inside = focus == hwnd || lock_wm(cx.proc).is_child_of(focus, hwnd);
                if !inside {
                    set_focus(cx, hwnd)?;
                }
            }
            Ok(0)
        }
        WM_NCACTIVATE => Ok(1),
        WM_MOUSEACTIVATE => {
            let parent = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.parent);
            if parent != 0 {
                let r = send(cx, parent, msg, wp, lp, unicode)?;
                if r != 0 {
                    return Ok(r);
                }
            }
            Ok(1)
        }
        WM_SETCURSOR => {
            let parent = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.parent);
            if parent != 0 && send(cx, parent, msg, wp, lp, unicode)? != 0 {
                return Ok(1);
            }
            if lp & 0xffff == HTCLIENT {
                let c = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.cursor_class);
                if c != 0 {
                    lock_wm(cx.proc).cursor_handle = c;
                }
                return Ok(1);
            }
            Ok(0)
        }
        WM_NCHITTEST => {
            let p = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
            Ok(lock_wm(cx.proc).nc_hit_test(hwnd, p))
        }
        WM_NCLBUTTONDOWN => {
            // A press on the menu bar opens it (Windows: SC_MOUSEMENU with the point).
            if wp == HTMENU {
                send(cx, hwnd, WM_SYSCOMMAND, SC_MOUSEMENU, lp, unicode)?;
            }
            if wp == super::scroll::HTHSCROLL || wp == super::scroll::HTVSCROLL {
                let pt = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
                super::scroll::click(cx, hwnd, wp, pt, unicode)?;
            }
            Ok(0)
        }
        WM_MOUSEWHEEL | WM_CONTEXTMENU => {
            let parent = lock_wm(cx.proc).win(hwnd).map_or(0, |w| w.parent);
            if parent != 0 {
                return send(cx, parent, msg, wp, lp, unicode);
            }
            Ok(0)
        }
        WM_CTLCOLORMSGBOX..=WM_CTLCOLORSTATIC => {
            let (bg, fg) = if msg == WM_CTLCOLOREDIT || msg == WM_CTLCOLORLISTBOX {
                (5, 8)
            } else {
                (15, 18)
            };
            super::call_export(
                cx,
                "GDI32.dll",
                "SetTextColor",
                &[wp, rgb_to_colorref(sys_color_rgb(fg))],
            )?;
            super::call_export(
                cx,
                "GDI32.dll",
                "SetBkColor",
                &[wp, rgb_to_colorref(sys_color_rgb(bg))],
            )?;
            sys_color_brush(cx, bg)
        }
        WM_QUERYENDSESSION => Ok(1),
        WM_GETICON => Ok(lock_wm(cx.proc)
            .win(hwnd)
            .map_or(0, |w| w.icon[(wp & 1) as usize])),
        WM_SETICON => {
            let mut wm = lock_wm(cx.proc);
            Ok(wm.win_mut(hwnd).map_or(0, |w| {
                let k = (wp & 1) as usize;
                std::mem::replace(&mut w.icon[k], lp)
            }))
        }
        WM_SHOWWINDOW if lp != 0 => {
            show_with_owner(cx, hwnd, wp != 0)?;
            Ok(0)
        }
        WM_SHOWWINDOW | WM_SETFOCUS | WM_KILLFOCUS | WM_DESTROY | WM_NCDESTROY | WM_CREATE
        | WM_SIZE | WM_MOVE | WM_GETMINMAXINFO | WM_WINDOWPOSCHANGING | WM_ACTIVATEAPP
        | WM_PARENTNOTIFY | WM_TIMER | WM_COMMAND | WM_NCPAINT | WM_ENABLE | WM_SETFONT
        | WM_GETFONT | WM_KEYDOWN | WM_KEYUP | WM_CHAR | WM_SYSKEYUP | WM_SYSCHAR => Ok(0),
        _ => Ok(0),
    }
}

pub fn DefWindowProc<S: GuestStr>(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(def_window_proc(cx, hWnd, Msg, wParam, lParam, S::WIDE))
}

pub fn CallWindowProc<S: GuestStr>(
    cx: &mut Ctx,
    lpPrevWndFunc: u32,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(call_proc(
        cx,
        lpPrevWndFunc,
        S::WIDE,
        hWnd,
        Msg,
        wParam,
        lParam,
        S::WIDE,
    ))
}

/// Windows here are never given a region (SetWindowRgn is not implemented and
/// reports by name), so every window answers ERROR: "the window has no region".
pub fn GetWindowRgn(cx: &mut Ctx, hWnd: u32, _hRgn: u32) -> ApiResult<u32> {
    if !IsWindow(cx, hWnd) {
        crate::teb::set_last_error(cx, 1400)?; // ERROR_INVALID_WINDOW_HANDLE
    }
    Ok(0)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("EnumDisplayMonitors", EnumDisplayMonitors),
        stdcall("GetWindowRgn", GetWindowRgn),
        stdcall("DestroyWindow", DestroyWindow),
        stdcall("ShowWindow", ShowWindow),
        stdcall("ShowWindowAsync", ShowWindowAsync),
        stdcall("SetWindowPos", SetWindowPos),
        stdcall("MoveWindow", MoveWindow),
        stdcall("BringWindowToTop", BringWindowToTop),
        stdcall("EnableWindow", EnableWindow),
        stdcall("IsWindowEnabled", IsWindowEnabled),
        stdcall("IsWindow", IsWindow),
        stdcall("IsWindowVisible", IsWindowVisible),
        stdcall("IsIconic", IsIconic),
        stdcall("IsZoomed", IsZoomed),
        stdcall("IsChild", IsChild),
        stdcall("GetWindowRect", GetWindowRect),
        stdcall("GetClientRect", GetClientRect),
        stdcall("ClientToScreen", ClientToScreen),
        stdcall("ScreenToClient", ScreenToClient),
        stdcall("MapWindowPoints", MapWindowPoints),
        stdcall("GetParent", GetParent),
        stdcall("GetAncestor", GetAncestor),
        stdcall("SetParent", SetParent),
        stdcall("GetWindow", GetWindow),
        stdcall("GetLastActivePopup", GetLastActivePopup),
        stdcall("ShowOwnedPopups", ShowOwnedPopups),
        stdcall("GetTopWindow", GetTopWindow),
        stdcall("GetDesktopWindow", GetDesktopWindow),
        stdcall("GetWindowThreadProcessId", GetWindowThreadProcessId),
        stdcall("EnumWindows", EnumWindows),
        stdcall("EnumChildWindows", EnumChildWindows),
        stdcall("EnumThreadWindows", EnumThreadWindows),
        stdcall("IsWindowUnicode", IsWindowUnicode),
        stdcall("GetWindowWord", GetWindowWord),
        stdcall("SetWindowWord", SetWindowWord),
        stdcall("SetFocus", SetFocus),
        stdcall("GetFocus", GetFocus),
        stdcall("SetActiveWindow", SetActiveWindow),
        stdcall("GetActiveWindow", GetActiveWindow),
        stdcall("GetForegroundWindow", GetForegroundWindow),
        stdcall("SetForegroundWindow", SetForegroundWindow),
        stdcall("AdjustWindowRect", AdjustWindowRect),
        stdcall("AdjustWindowRectEx", AdjustWindowRectEx),
        stdcall("GetSystemMetrics", GetSystemMetrics),
        stdcall("MonitorFromRect", MonitorFromRect),
        stdcall("MonitorFromWindow", MonitorFromWindow),
        stdcall("MonitorFromPoint", MonitorFromPoint),
        stdcall("GetSysColor", GetSysColor),
        stdcall("GetSysColorBrush", GetSysColorBrush),
    ];
    v.extend(stdcall_aw![
        WinHelp,
        RegisterClass,
        RegisterClassEx,
        UnregisterClass,
        GetClassInfo,
        GetClassInfoEx,
        GetClassLong,
        SetClassLong,
        GetClassName,
        CreateWindowEx,
        FindWindow,
        GetWindowLong,
        SetWindowLong,
        GetWindowText,
        GetWindowTextLength,
        SetWindowText,
        GetProp,
        SetProp,
        RemoveProp,
        GetMonitorInfo,
        SystemParametersInfo,
        DefWindowProc,
        CallWindowProc,
    ]);
    v
}
