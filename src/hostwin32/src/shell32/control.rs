//! Control_RunDLL(A/W): the Control Panel and its applets (`.cpl` DLLs exporting
//! CPlApplet), as documented for Control Panel items:
//!
//! - `"name.cpl[,applet[,params]]"` loads that CPL with LoadLibrary, sends CPL_INIT,
//!   CPL_GETCOUNT and CPL_INQUIRE for each applet (CPL_NEWINQUIRE when the answer
//!   leaves a part to be given dynamically or names a resource that does not load),
//!   then runs the applet asked for (`@n` by index, else by name, default the
//!   first): CPL_STARTWPARMS with the parameters if any, else (or if that is
//!   declined) CPL_DBLCLK; at the end CPL_STOP for every applet, CPL_EXIT, and the
//!   CPL is freed. A CPL that cannot be found or loaded is reported in a message
//!   box, as Windows does.
//! - An empty command opens the Control Panel window: every `.cpl` in the system
//!   folder and beside the program, loaded and asked as above, shown in a list view
//!   (large icons); a double click runs the applet (CPL_DBLCLK). Closing the window
//!   stops and unloads every CPL; Control_RunDLL returns when it is closed.

use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Outcome, WStrPtr, stdcall};
use crate::user32::msg::*;
use crate::user32::{Flow, UR, call_export, fin, guest, lock_wm};
use std::collections::HashMap;
use std::sync::Mutex;

const CPL_INIT: u32 = 1;
const CPL_GETCOUNT: u32 = 2;
const CPL_INQUIRE: u32 = 3;
const CPL_DBLCLK: u32 = 5;
const CPL_STOP: u32 = 6;
const CPL_EXIT: u32 = 7;
const CPL_NEWINQUIRE: u32 = 8;
const CPL_STARTWPARMSW: u32 = 10;
/// CPLINFO's "ask me with CPL_NEWINQUIRE" resource id.
const CPL_DYNAMIC_RES: u32 = 0;
/// sizeof(NEWCPLINFOW): dwSize, dwFlags, dwHelpContext, lData, hIcon, szName[32],
/// szInfo[64], szHelpFile[128].
const NEWCPLINFOW_SIZE: u32 = 20 + 2 * (32 + 64 + 128);

const CLASS: &str = "Control Panel";
const WNDPROC_EXPORT: &str = "__winterp_ControlPanelWndProc";
const LIST_ID: u32 = 1;

/// One applet of a CPL, as CPL_INQUIRE/CPL_NEWINQUIRE described it.
#[derive(Clone, Debug, Default)]
struct Applet {
    name: String,
    info: String,
    icon: u32,
    data: u32,
}

/// A loaded CPL.
#[derive(Clone, Debug)]
struct Cpl {
    module: u32,
    proc_: u32,
    applets: Vec<Applet>,
}

#[derive(Default)]
struct Panels(Mutex<HashMap<u32, Panel>>);

#[derive(Default)]
struct Panel {
    cpls: Vec<Cpl>,
    list: u32,
    /// List view item index -> (CPL, applet).
    items: Vec<(usize, usize)>,
}

/// Scratch guest memory on the stack for the duration of `f`.
fn with_scratch<R>(cx: &mut Ctx, size: u32, f: impl FnOnce(&mut Ctx, u32) -> UR<R>) -> UR<R> {
    let (p, esp) = crate::user32::stack_alloc(cx, size);
    let r = f(cx, p);
    crate::user32::stack_free(cx, esp);
    r
}

fn write_wide(cx: &Ctx, p: u32, s: &str) -> UR<()> {
    crate::user32::write_str(cx, p, s, true)?;
    Ok(())
}

fn export(cx: &mut Ctx, dll: &str, name: &str, args: &[u32]) -> UR<u32> {
    call_export(cx, dll, name, args)?.ok_or_else(|| {
        Flow::Err(crate::hle::ApiError::Other(format!(
            "Control_RunDLL needs {dll}!{name}"
        )))
    })
}

fn cpl_call(cx: &mut Ctx, c: &Cpl, hwnd: u32, msg: u32, l1: u32, l2: u32) -> UR<u32> {
    guest(cx, c.proc_, &[hwnd, msg, l1, l2])
}

/// A string resource of `module`, or "" if it does not load.
fn load_string(cx: &mut Ctx, module: u32, id: u32) -> UR<String> {
    with_scratch(cx, 520, |cx, p| {
        let n = export(cx, "USER32.dll", "LoadStringW", &[module, id, p, 260])?;
        if n == 0 {
            return Ok(String::new());
        }
        Ok(crate::user32::read_str(cx, p, true)?)
    })
}

/// The applets of CPL `c` (CPL_INQUIRE, and CPL_NEWINQUIRE where needed).
fn inquire(cx: &mut Ctx, c: &Cpl, hwnd: u32, count: u32) -> UR<Vec<Applet>> {
    let mut out = Vec::new();
    for i in 0..count {
        let (id_icon, id_name, id_info, data) = with_scratch(cx, 16, |cx, p| {
            for k in 0..4 {
                cx.proc.mem.write_u32(p + 4 * k, 0)?;
            }
            cpl_call(cx, c, hwnd, CPL_INQUIRE, i, p)?;
            let m = &cx.proc.mem;
            Ok((
                m.read_u32(p)?,
                m.read_u32(p + 4)?,
                m.read_u32(p + 8)?,
                m.read_u32(p + 12)?,
            ))
        })?;
        let mut a = Applet {
            data,
            ..Default::default()
        };
        if id_icon != CPL_DYNAMIC_RES {
            a.icon = export(cx, "USER32.dll", "LoadIconW", &[c.module, id_icon])?;
        }
        if id_name != CPL_DYNAMIC_RES {
            a.name = load_string(cx, c.module, id_name)?;
        }
        if id_info != CPL_DYNAMIC_RES {
            a.info = load_string(cx, c.module, id_info)?;
        }
        let dynamic = a.icon == 0 || a.name.is_empty() || id_info == CPL_DYNAMIC_RES;
        if dynamic {
            let (icon, name, info, data) = with_scratch(cx, NEWCPLINFOW_SIZE, |cx, p| {
                for k in 0..NEWCPLINFOW_SIZE / 4 {
                    cx.proc.mem.write_u32(p + 4 * k, 0)?;
                }
                cpl_call(cx, c, hwnd, CPL_NEWINQUIRE, i, p)?;
                let m = &cx.proc.mem;
                let size = m.read_u32(p)?;
                let wide = size == NEWCPLINFOW_SIZE;
                // NEWCPLINFOA's strings are bytes: szName at 20, szInfo at 52.
                let (name, info) = if wide {
                    (
                        crate::user32::read_str(cx, p + 20, true)?,
                        crate::user32::read_str(cx, p + 84, true)?,
                    )
                } else {
                    (
                        crate::user32::read_str(cx, p + 20, false)?,
                        crate::user32::read_str(cx, p + 52, false)?,
                    )
                };
                Ok((m.read_u32(p + 16)?, name, info, m.read_u32(p + 12)?))
            })?;
            if a.icon == 0 {
                a.icon = icon;
            }
            if a.name.is_empty() {
                a.name = name;
            }
            if a.info.is_empty() {
                a.info = info;
            }
            if a.data == 0 {
                a.data = data;
            }
        }
        out.push(a);
    }
    Ok(out)
}

/// Loads CPL `path` and asks for its applets; None if it does not load, has no
/// CPlApplet or declines CPL_INIT.
fn load_cpl(cx: &mut Ctx, hwnd: u32, path: &str) -> UR<Option<Cpl>> {
    let module = with_scratch(cx, 2 * (path.len() as u32 + 1), |cx, p| {
        write_wide(cx, p, path)?;
        export(cx, "KERNEL32.dll", "LoadLibraryW", &[p])
    })?;
    if module == 0 {
        return Ok(None);
    }
    let proc_ = with_scratch(cx, 16, |cx, p| {
        crate::user32::write_str(cx, p, "CPlApplet", false)?;
        export(cx, "KERNEL32.dll", "GetProcAddress", &[module, p])
    })?;
    let mut c = Cpl {
        module,
        proc_,
        applets: Vec::new(),
    };
    if proc_ == 0 || cpl_call(cx, &c, hwnd, CPL_INIT, 0, 0)? == 0 {
        export(cx, "KERNEL32.dll", "FreeLibrary", &[module])?;
        return Ok(None);
    }
    let count = cpl_call(cx, &c, hwnd, CPL_GETCOUNT, 0, 0)?;
    c.applets = inquire(cx, &c, hwnd, count)?;
    Ok(Some(c))
}

/// CPL_STOP for each applet, CPL_EXIT, FreeLibrary.
fn unload(cx: &mut Ctx, hwnd: u32, c: &Cpl) -> UR<()> {
    for (i, a) in c.applets.iter().enumerate() {
        cpl_call(cx, c, hwnd, CPL_STOP, i as u32, a.data)?;
    }
    cpl_call(cx, c, hwnd, CPL_EXIT, 0, 0)?;
    export(cx, "KERNEL32.dll", "FreeLibrary", &[c.module])?;
    Ok(())
}

/// The parts of a command `"file.cpl",applet,params`: the file (quotes removed),
/// the applet (`@n` or a name, may be empty) and the parameters.
fn parse_command(cmd: &str) -> (String, String, Option<String>) {
    let cmd = cmd.trim();
    let (file, rest) = if let Some(r) = cmd.strip_prefix('"') {
        match r.find('"') {
            Some(e) => (r[..e].to_string(), r[e + 1..].trim_start()),
            None => (r.to_string(), ""),
        }
    } else {
        match cmd.find(',') {
            Some(e) => (cmd[..e].trim().to_string(), &cmd[e..]),
            None => (cmd.to_string(), ""),
        }
    };
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    let (applet, params) = match rest.find(',') {
        Some(e) => (
            rest[..e].trim().to_string(),
            Some(rest[e + 1..].to_string()),
        ),
        None => (rest.trim().to_string(), None),
    };
    (file, applet, params.filter(|p| !p.is_empty()))
}

/// Which applet `spec` names: `@n`, a name (case-insensitive), or the first.
fn applet_index(applets: &[Applet], spec: &str) -> usize {
    if let Some(n) = spec.strip_prefix('@') {
        return n.trim().parse::<usize>().unwrap_or(0);
    }
    if spec.is_empty() {
        return 0;
    }
    applets
        .iter()
        .position(|a| a.name.eq_ignore_ascii_case(spec))
        .unwrap_or(0)
}

fn not_found(cx: &mut Ctx, hwnd: u32, file: &str) -> UR<()> {
    let text = format!(
        "Windows cannot find '{file}'. Make sure you typed the name correctly, and then try again."
    );
    let size = 2 * (text.len() as u32 + CLASS.len() as u32 + 2);
    with_scratch(cx, size, |cx, p| {
        write_wide(cx, p, &text)?;
        let title = p + 2 * (text.encode_utf16().count() as u32 + 1);
        write_wide(cx, title, CLASS)?;
        const MB_ICONERROR: u32 = 0x10;
        export(
            cx,
            "USER32.dll",
            "MessageBoxW",
            &[hwnd, p, title, MB_ICONERROR],
        )?;
        Ok(())
    })
}

fn run_applet(cx: &mut Ctx, hwnd: u32, cmd: &str) -> UR<()> {
    let (file, spec, params) = parse_command(cmd);
    let Some(c) = load_cpl(cx, hwnd, &file)? else {
        return not_found(cx, hwnd, &file);
    };
    let i = applet_index(&c.applets, &spec);
    if let Some(a) = c.applets.get(i) {
        let started = match &params {
            Some(p) => {
                with_scratch(cx, 2 * (p.len() as u32 + 1), |cx, buf| {
                    write_wide(cx, buf, p)?;
                    cpl_call(cx, &c, hwnd, CPL_STARTWPARMSW, i as u32, buf)
                })? != 0
            }
            None => false,
        };
        if !started {
            cpl_call(cx, &c, hwnd, CPL_DBLCLK, i as u32, a.data)?;
        }
    }
    unload(cx, hwnd, &c)
}

/// The `.cpl` files of a folder (`dir` ends with a backslash).
fn cpl_files(cx: &mut Ctx, dir: &str) -> UR<Vec<String>> {
    let pattern = format!("{dir}*.cpl");
    const FIND_SIZE: u32 = 592;
    with_scratch(cx, FIND_SIZE + 2 * (pattern.len() as u32 + 1), |cx, fd| {
        let pat = fd + FIND_SIZE;
        write_wide(cx, pat, &pattern)?;
        let h = export(cx, "KERNEL32.dll", "FindFirstFileW", &[pat, fd])?;
        let mut out = Vec::new();
        if h == u32::MAX {
            return Ok(out);
        }
        loop {
            let attrs = cx.proc.mem.read_u32(fd)?;
            if attrs & 0x10 == 0 {
                out.push(format!(
                    "{dir}{}",
                    crate::user32::read_str(cx, fd + 44, true)?
                ));
            }
            if export(cx, "KERNEL32.dll", "FindNextFileW", &[h, fd])? == 0 {
                break;
            }
        }
        export(cx, "KERNEL32.dll", "FindClose", &[h])?;
        Ok(out)
    })
}

/// The system folder and the program's folder, each ending with a backslash.
fn cpl_folders(cx: &mut Ctx) -> UR<Vec<String>> {
    with_scratch(cx, 1040, |cx, p| {
        let mut dirs = Vec::new();
        let n = export(cx, "KERNEL32.dll", "GetSystemDirectoryW", &[p, 260])?;
        if n > 0 {
            dirs.push(crate::user32::read_str(cx, p, true)?);
        }
        let n = export(cx, "KERNEL32.dll", "GetModuleFileNameW", &[0, p, 260])?;
        if n > 0 {
            let exe = crate::user32::read_str(cx, p, true)?;
            if let Some(k) = exe.rfind('\\') {
                dirs.push(exe[..k].to_string());
            }
        }
        let mut out: Vec<String> = Vec::new();
        for d in dirs {
            let d = if d.ends_with('\\') {
                d
            } else {
                format!("{d}\\")
            };
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&d)) {
                out.push(d);
            }
        }
        Ok(out)
    })
}

fn panels(cx: &Ctx) -> std::sync::Arc<Panels> {
    cx.proc.slot::<Panels>()
}

/// Fills the list view with the applets.
fn fill_list(cx: &mut Ctx, hwnd: u32) -> UR<()> {
    let Some((list, apps)) = panels(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&hwnd)
        .map(|p| {
            (
                p.list,
                p.items
                    .iter()
                    .map(|&(c, a)| p.cpls[c].applets[a].clone())
                    .collect::<Vec<_>>(),
            )
        })
    else {
        return Ok(());
    };
    if list == 0 {
        return Ok(());
    }
    const ILC_COLOR32: u32 = 0x20;
    const ILC_MASK: u32 = 0x1;
    const LVM_SETIMAGELIST: u32 = 0x1003;
    const LVM_INSERTITEMW: u32 = 0x104d;
    const LVSIL_NORMAL: u32 = 0;
    let il = call_export(
        cx,
        "COMCTL32.dll",
        "ImageList_Create",
        &[32, 32, ILC_COLOR32 | ILC_MASK, apps.len() as u32, 1],
    )?
    .unwrap_or(0);
    if il != 0 {
        for a in &apps {
            if a.icon != 0 {
                call_export(
                    cx,
                    "COMCTL32.dll",
                    "ImageList_ReplaceIcon",
                    &[il, u32::MAX, a.icon],
                )?;
            }
        }
        send(cx, list, LVM_SETIMAGELIST, LVSIL_NORMAL, il, true)?;
    }
    for (k, a) in apps.iter().enumerate() {
        let size = 52 + 2 * (a.name.len() as u32 + 1);
        with_scratch(cx, size, |cx, p| {
            let text = p + 52;
            write_wide(cx, text, &a.name)?;
            // LVITEMW: mask (TEXT|IMAGE|PARAM), iItem, iSubItem, state, stateMask,
            // pszText, cchTextMax, iImage, lParam.
            let v = [0x7, k as u32, 0, 0, 0, text, 0, k as u32, k as u32];
            for (n, x) in v.iter().enumerate() {
                cx.proc.mem.write_u32(p + 4 * n as u32, *x)?;
            }
            send(cx, list, LVM_INSERTITEMW, 0, p, true)?;
            Ok(())
        })?;
    }
    Ok(())
}

/// Runs the applet behind list item `item` (CPL_DBLCLK).
fn open_item(cx: &mut Ctx, hwnd: u32, item: usize) -> UR<()> {
    let target = panels(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&hwnd)
        .and_then(|p| {
            let &(c, a) = p.items.get(item)?;
            Some((p.cpls[c].clone(), a))
        });
    if let Some((c, a)) = target {
        cpl_call(cx, &c, hwnd, CPL_DBLCLK, a as u32, c.applets[a].data)?;
    }
    Ok(())
}

fn layout(cx: &mut Ctx, hwnd: u32) -> UR<()> {
    let list = panels(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&hwnd)
        .map_or(0, |p| p.list);
    let size = lock_wm(cx.proc)
        .win(hwnd)
        .map(|w| (w.client.width(), w.client.height()));
    if list != 0
        && let Some((w, h)) = size
    {
        crate::user32::window::set_window_pos(cx, list, 0, 0, 0, w, h, 0x4 | 0x10)?;
    }
    Ok(())
}

pub fn wndproc(cx: &mut Ctx, hwnd: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    const NM_DBLCLK: u32 = (-3i32) as u32;
    const NM_RETURN: u32 = (-4i32) as u32;
    const LVM_GETNEXTITEM: u32 = 0x100c;
    const LVNI_SELECTED: u32 = 0x2;
    match m {
        WM_SIZE => {
            layout(cx, hwnd)?;
            Ok(0)
        }
        WM_NOTIFY if lp != 0 => {
            let code = cx.proc.mem.read_u32(lp + 8)?;
            let from = cx.proc.mem.read_u32(lp)?;
            let list = panels(cx)
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&hwnd)
                .map_or(0, |p| p.list);
            if from == list && (code == NM_DBLCLK || code == NM_RETURN) {
                let sel = send(cx, list, LVM_GETNEXTITEM, u32::MAX, LVNI_SELECTED, true)?;
                if sel != u32::MAX {
                    open_item(cx, hwnd, sel as usize)?;
                }
            }
            Ok(0)
        }
        WM_DESTROY => {
            let cpls = panels(cx)
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_mut(&hwnd)
                .map(|p| std::mem::take(&mut p.cpls))
                .unwrap_or_default();
            for c in &cpls {
                unload(cx, hwnd, c)?;
            }
            Ok(0)
        }
        WM_NCDESTROY => {
            panels(cx)
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&hwnd);
            crate::user32::window::def_window_proc(cx, hwnd, m, wp, lp, u)
        }
        _ => crate::user32::window::def_window_proc(cx, hwnd, m, wp, lp, u),
    }
}

fn register_class(cx: &Ctx) {
    crate::user32::hostclass::register(
        cx.proc,
        super::DLL.name,
        &[crate::user32::hostclass::HostClass {
            name: CLASS,
            export: WNDPROC_EXPORT,
            wndproc,
            style: 0x1 | 0x2,
            wnd_extra: 0,
            background: 16, // COLOR_BTNFACE + 1
        }],
    );
}

fn control_panel(cx: &mut Ctx, owner: u32, show: u32) -> UR<()> {
    register_class(cx);
    let mut cpls = Vec::new();
    for dir in cpl_folders(cx)? {
        for f in cpl_files(cx, &dir)? {
            if let Some(c) = load_cpl(cx, owner, &f)? {
                cpls.push(c);
            }
        }
    }
    const WS_OVERLAPPEDWINDOW: u32 = 0x00cf_0000;
    const WS_CHILD: u32 = 0x4000_0000;
    const WS_VISIBLE: u32 = 0x1000_0000;
    const CW_USEDEFAULT: u32 = 0x8000_0000;
    const LVS_ICON: u32 = 0;
    const LVS_SINGLESEL: u32 = 0x4;
    const LVS_AUTOARRANGE: u32 = 0x100;
    let hwnd = with_scratch(cx, 2 * (CLASS.len() as u32 + 1), |cx, name| {
        write_wide(cx, name, CLASS)?;
        export(
            cx,
            "USER32.dll",
            "CreateWindowExW",
            &[
                0,
                name,
                name,
                WS_OVERLAPPEDWINDOW,
                CW_USEDEFAULT,
                CW_USEDEFAULT,
                CW_USEDEFAULT,
                CW_USEDEFAULT,
                0,
                0,
                0,
                0,
            ],
        )
    })?;
    if hwnd == 0 {
        for c in &cpls {
            unload(cx, owner, c)?;
        }
        return Ok(());
    }
    let items = cpls
        .iter()
        .enumerate()
        .flat_map(|(k, c)| (0..c.applets.len()).map(move |a| (k, a)))
        .collect();
    panels(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            hwnd,
            Panel {
                cpls,
                list: 0,
                items,
            },
        );
    const LIST_CLASS: &str = "SysListView32";
    let list = with_scratch(cx, 2 * (LIST_CLASS.len() as u32 + 1), |cx, name| {
        write_wide(cx, name, LIST_CLASS)?;
        export(
            cx,
            "USER32.dll",
            "CreateWindowExW",
            &[
                0x200, // WS_EX_CLIENTEDGE
                name,
                0,
                WS_CHILD | WS_VISIBLE | LVS_ICON | LVS_SINGLESEL | LVS_AUTOARRANGE,
                0,
                0,
                0,
                0,
                hwnd,
                LIST_ID,
                0,
                0,
            ],
        )
    })?;
    if let Some(p) = panels(cx)
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_mut(&hwnd)
    {
        p.list = list;
    }
    fill_list(cx, hwnd)?;
    layout(cx, hwnd)?;
    export(cx, "USER32.dll", "ShowWindow", &[hwnd, show])?;
    export(cx, "USER32.dll", "UpdateWindow", &[hwnd])?;
    // Control_RunDLL returns when the window is closed.
    while lock_wm(cx.proc).win(hwnd).is_some() {
        let Some(msg) = get_msg(cx, 0, 0, 0, true, Wait::Host)? else {
            continue;
        };
        if msg.message == WM_QUIT {
            PostQuitMessage(cx, msg.wparam);
            break;
        }
        crate::user32::input::translate(cx, &msg);
        dispatch(cx, &msg, true)?;
    }
    Ok(())
}

fn run(cx: &mut Ctx, hwnd: u32, cmd: &str, show: u32) -> UR<u32> {
    if cmd.trim().is_empty() {
        control_panel(cx, hwnd, show)?;
    } else {
        run_applet(cx, hwnd, cmd)?;
    }
    Ok(0)
}

pub fn Control_RunDLLW(
    cx: &mut Ctx,
    hWnd: u32,
    _hInst: u32,
    cmd: WStrPtr,
    nCmdShow: u32,
) -> ApiResult<Outcome> {
    let s = if cmd.0 == 0 {
        String::new()
    } else {
        crate::kernel32::string::read_wstr(cx.proc, cmd.0)?
    };
    fin(run(cx, hWnd, &s, nCmdShow))
}

pub fn Control_RunDLLA(
    cx: &mut Ctx,
    hWnd: u32,
    _hInst: u32,
    cmd: CStrPtr,
    nCmdShow: u32,
) -> ApiResult<Outcome> {
    let s = if cmd.0 == 0 {
        String::new()
    } else {
        crate::kernel32::string::read_ansi(cx.proc, cmd.0)?
    };
    fin(run(cx, hWnd, &s, nCmdShow))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("Control_RunDLLW", Control_RunDLLW),
        stdcall("Control_RunDLLA", Control_RunDLLA),
        // The name rundll32 and older programs use: the ANSI entry.
        stdcall("Control_RunDLL", Control_RunDLLA),
        crate::user32::hostclass::export(WNDPROC_EXPORT, wndproc),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_into_file_applet_and_parameters() {
        assert_eq!(
            parse_command("appwiz.cpl"),
            ("appwiz.cpl".into(), String::new(), None)
        );
        assert_eq!(
            parse_command("main.cpl,@1"),
            ("main.cpl".into(), "@1".into(), None)
        );
        assert_eq!(
            parse_command("\"C:\\a b\\x.cpl\",Mouse,2"),
            ("C:\\a b\\x.cpl".into(), "Mouse".into(), Some("2".into()))
        );
        assert_eq!(
            parse_command("x.cpl,,1"),
            ("x.cpl".into(), String::new(), Some("1".into()))
        );
    }

    #[test]
    fn applets_are_named_by_index_or_name() {
        let a = |n: &str| Applet {
            name: n.into(),
            ..Default::default()
        };
        let v = [a("Mouse"), a("Keyboard")];
        assert_eq!(applet_index(&v, ""), 0);
        assert_eq!(applet_index(&v, "@1"), 1);
        assert_eq!(applet_index(&v, "keyboard"), 1);
        assert_eq!(applet_index(&v, "Sound"), 0);
    }
}
