//! The tooltip control (`tooltips_class32`): a list of tools (a window, or a
//! rectangle of one, with a text, a string resource or LPSTR_TEXTCALLBACK), shown in a
//! small pop-up after the mouse rested on a tool for the initial delay. Mouse
//! messages reach it through TTM_RELAYEVENT; a toolbar's own tooltip control finds
//! its tools in the toolbar's buttons and asks for their text with TTN_GETDISPINFO.

use super::ccommon::{self as cc, WM_USER};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::msg::*;
use crate::user32::{UR, read_str};

const TTM_ACTIVATE: u32 = WM_USER + 1;
const TTM_SETDELAYTIME: u32 = WM_USER + 3;
const TTM_ADDTOOLA: u32 = WM_USER + 4;
const TTM_DELTOOLA: u32 = WM_USER + 5;
const TTM_NEWTOOLRECTA: u32 = WM_USER + 6;
const TTM_RELAYEVENT: u32 = WM_USER + 7;
const TTM_GETTOOLINFOA: u32 = WM_USER + 8;
const TTM_SETTOOLINFOA: u32 = WM_USER + 9;
const TTM_GETTEXTA: u32 = WM_USER + 11;
const TTM_UPDATETIPTEXTA: u32 = WM_USER + 12;
const TTM_GETTOOLCOUNT: u32 = WM_USER + 13;
const TTM_SETTIPBKCOLOR: u32 = WM_USER + 19;
const TTM_SETTIPTEXTCOLOR: u32 = WM_USER + 20;
const TTM_GETDELAYTIME: u32 = WM_USER + 21;
const TTM_GETTIPBKCOLOR: u32 = WM_USER + 22;
const TTM_GETTIPTEXTCOLOR: u32 = WM_USER + 23;
const TTM_SETMAXTIPWIDTH: u32 = WM_USER + 24;
const TTM_GETMAXTIPWIDTH: u32 = WM_USER + 25;
const TTM_POP: u32 = WM_USER + 28;
const TTM_UPDATE: u32 = WM_USER + 29;
const TTM_ADDTOOLW: u32 = WM_USER + 50;
const TTM_DELTOOLW: u32 = WM_USER + 51;
const TTM_NEWTOOLRECTW: u32 = WM_USER + 52;
const TTM_GETTOOLINFOW: u32 = WM_USER + 53;
const TTM_SETTOOLINFOW: u32 = WM_USER + 54;
const TTM_GETTEXTW: u32 = WM_USER + 56;
const TTM_UPDATETIPTEXTW: u32 = WM_USER + 57;
const TTF_IDISHWND: u32 = 0x1;
const TTN_GETDISPINFOW: u32 = (-530i32) as u32;
const TTN_SHOW: u32 = (-521i32) as u32;
const TTN_POP: u32 = (-522i32) as u32;
const LPSTR_TEXTCALLBACK: u32 = u32::MAX;
const TIMER_SHOW: u32 = 1;
const TIMER_HIDE: u32 = 2;
const TTDT_AUTOPOP: u32 = 2;
const TTDT_INITIAL: u32 = 3;
const SW_HIDE: u32 = 0;
const SW_SHOWNOACTIVATE: u32 = 4;

#[derive(Clone, Default)]
struct Tool {
    flags: u32,
    hwnd: u32,
    id: u32,
    rect: Rect,
    hinst: u32,
    /// The text, or None for LPSTR_TEXTCALLBACK.
    text: Option<String>,
    /// A string resource id (hinst != 0 and lpszText < 0x10000).
    res: u32,
    lparam: u32,
}

struct State {
    tools: Vec<Tool>,
    active: bool,
    toolbar: u32,
    /// The tool the mouse is on (window, id) and the text shown.
    current: Option<(u32, u32)>,
    shown: bool,
    initial: u32,
    autopop: u32,
    max_width: i32,
    bk: u32,
    fg: u32,
    text: String,
}

impl Default for State {
    fn default() -> Self {
        State {
            tools: Vec::new(),
            active: true,
            toolbar: 0,
            current: None,
            shown: false,
            initial: 500,
            autopop: 5000,
            max_width: -1,
            bk: gp::sys_color(gp::COLOR_INFOBK),
            fg: gp::sys_color(gp::COLOR_INFOTEXT),
            text: String::new(),
        }
    }
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

/// Makes tooltip control `tips` the one of toolbar `toolbar`.
pub fn set_toolbar(cx: &Ctx, tips: u32, toolbar: u32) {
    st(cx, tips, |s| s.toolbar = toolbar);
}

/// TOOLINFO: cbSize, uFlags, hwnd, uId, rect, hinst, lpszText, lParam (44 bytes;
/// 40 before comctl32 4.70).
fn read_tool(cx: &Ctx, p: u32, u: bool) -> UR<Tool> {
    let m = &cx.proc.mem;
    let size = m.read_u32(p)?;
    let hinst = m.read_u32(p + 32)?;
    let tp = m.read_u32(p + 36)?;
    let (text, res) = if tp == LPSTR_TEXTCALLBACK {
        (None, 0)
    } else if tp != 0 && tp < 0x10000 {
        (Some(String::new()), tp)
    } else if tp == 0 {
        (Some(String::new()), 0)
    } else {
        (Some(read_str(cx, tp, u)?), 0)
    };
    Ok(Tool {
        flags: m.read_u32(p + 4)?,
        hwnd: m.read_u32(p + 8)?,
        id: m.read_u32(p + 12)?,
        rect: gp::read_rect(cx.proc, p + 16)?,
        hinst,
        text,
        res,
        lparam: if size >= 44 { m.read_u32(p + 40)? } else { 0 },
    })
}

fn find(s: &State, hwnd: u32, id: u32) -> Option<usize> {
    s.tools.iter().position(|t| t.hwnd == hwnd && t.id == id)
}

/// The tool under screen point (x, y), as (window, id).
fn tool_at(cx: &mut Ctx, h: u32, x: i32, y: i32) -> UR<Option<(u32, u32)>> {
    let toolbar = st(cx, h, |s| s.toolbar);
    if toolbar != 0 {
        let (ox, oy) = crate::user32::lock_wm(cx.proc).window_origin(toolbar);
        let (cl, ct) = crate::user32::lock_wm(cx.proc)
            .win(toolbar)
            .map_or((0, 0), |w| (w.client.left, w.client.top));
        return Ok(
            super::toolbar::tool_at(cx, toolbar, x - ox - cl, y - oy - ct)?
                .map(|(cmd, _)| (toolbar, cmd)),
        );
    }
    let tools = st(cx, h, |s| s.tools.clone());
    for t in tools {
        let w = if t.flags & TTF_IDISHWND != 0 {
            t.id
        } else {
            t.hwnd
        };
        let wm = crate::user32::lock_wm(cx.proc);
        let Some(win) = wm.win(w) else { continue };
        let (ox, oy) = wm.window_origin(w);
        let (lx, ly) = (x - ox - win.client.left, y - oy - win.client.top);
        let inside = if t.flags & TTF_IDISHWND != 0 {
            win.client
                .offset(-win.client.left, -win.client.top)
                .contains(lx, ly)
        } else {
            t.rect.contains(lx, ly)
        };
        if inside {
            return Ok(Some((t.hwnd, t.id)));
        }
    }
    Ok(None)
}

/// The text of tool (hwnd, id): its own, its string resource, or what its window
/// answers to TTN_GETDISPINFO.
fn tool_text(cx: &mut Ctx, h: u32, tool: (u32, u32)) -> UR<String> {
    let t = st(cx, h, |s| {
        find(s, tool.0, tool.1).map(|i| s.tools[i].clone())
    });
    let (to, flags, hinst, lparam) = match &t {
        Some(t) => {
            if let Some(text) = &t.text
                && t.res == 0
            {
                return Ok(text.clone());
            }
            if t.res != 0 {
                return load_string(cx, t.hinst, t.res);
            }
            (t.hwnd, t.flags, t.hinst, t.lparam)
        }
        None => (super::toolbar::notify_window(cx, tool.0), 0, 0, 0),
    };
    // NMTTDISPINFOW after NMHDR: lpszText, szText[80], hinst, uFlags, lParam.
    let mut extra = [0u32; 1 + 40 + 3];
    extra[41] = hinst;
    extra[42] = flags;
    extra[43] = lparam;
    let size = 12 + 4 * extra.len() as u32;
    let (p, esp) = crate::user32::stack_alloc(cx, size);
    let r = (|| -> UR<String> {
        let m = &cx.proc.mem;
        m.write_u32(p, h)?;
        m.write_u32(p + 4, tool.1)?;
        m.write_u32(p + 8, TTN_GETDISPINFOW)?;
        for (k, v) in extra.iter().enumerate() {
            m.write_u32(p + 12 + 4 * k as u32, *v)?;
        }
        send(cx, to, WM_NOTIFY, tool.1, p, true)?;
        let m = &cx.proc.mem;
        let text_p = m.read_u32(p + 12)?;
        let hinst = m.read_u32(p + 12 + 4 + 160)?;
        if text_p == 0 {
            Ok(String::new())
        } else if text_p < 0x10000 {
            load_string(cx, hinst, text_p)
        } else {
            Ok(read_str(cx, text_p, true)?)
        }
    })();
    crate::user32::stack_free(cx, esp);
    r
}

fn load_string(cx: &mut Ctx, hinst: u32, id: u32) -> UR<String> {
    let (buf, esp) = crate::user32::stack_alloc(cx, 1024);
    let r = crate::user32::call_export(cx, "USER32.dll", "LoadStringW", &[hinst, id, buf, 511])
        .and_then(|n| {
            if n.unwrap_or(0) > 0 {
                Ok(read_str(cx, buf, true)?)
            } else {
                Ok(String::new())
            }
        });
    crate::user32::stack_free(cx, esp);
    r
}

fn hide(cx: &mut Ctx, h: u32) -> UR<()> {
    let (shown, cur) = st(cx, h, |s| {
        (std::mem::replace(&mut s.shown, false), s.current)
    });
    crate::user32::call_export(cx, "USER32.dll", "KillTimer", &[h, TIMER_HIDE])?;
    if shown {
        crate::user32::call_export(cx, "USER32.dll", "ShowWindow", &[h, SW_HIDE])?;
        if let Some((w, id)) = cur {
            let to = st(cx, h, |s| s.toolbar);
            let to = if to != 0 {
                super::toolbar::notify_window(cx, w)
            } else {
                w
            };
            cc::notify_to(cx, to, h, TTN_POP, &[])?;
            let _ = id;
        }
    }
    Ok(())
}

fn show(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(tool) = st(cx, h, |s| s.current) else {
        return Ok(());
    };
    let text = tool_text(cx, h, tool)?;
    if text.is_empty() {
        return Ok(());
    }
    st(cx, h, |s| s.text = text.clone());
    let tw = cc::text_width(cx, h, &text)?;
    let fh = cc::font_height(cx, h)?;
    let (w, hh) = (tw + 8, fh + 4);
    let (px, py) = crate::user32::lock_wm(cx.proc).cursor;
    let to = st(cx, h, |s| s.toolbar);
    let to = if to != 0 {
        super::toolbar::notify_window(cx, tool.0)
    } else {
        tool.0
    };
    cc::notify_to(cx, to, h, TTN_SHOW, &[])?;
    crate::user32::window::set_window_pos(cx, h, u32::MAX, px, py + 20, w, hh, 0x10)?;
    crate::user32::call_export(cx, "USER32.dll", "ShowWindow", &[h, SW_SHOWNOACTIVATE])?;
    st(cx, h, |s| s.shown = true);
    let autopop = st(cx, h, |s| s.autopop);
    crate::user32::call_export(cx, "USER32.dll", "SetTimer", &[h, TIMER_HIDE, autopop, 0])?;
    cc::redraw(cx, h);
    Ok(())
}

/// A mouse message relayed from a tool's window (MSG at `p`).
fn relay(cx: &mut Ctx, h: u32, p: u32) -> UR<()> {
    if p == 0 || !st(cx, h, |s| s.active) {
        return Ok(());
    }
    let msg = cx.proc.mem.read_u32(p + 4)?;
    match msg {
        WM_MOUSEMOVE => {
            let (x, y) = crate::user32::lock_wm(cx.proc).cursor;
            let t = tool_at(cx, h, x, y)?;
            let cur = st(cx, h, |s| s.current);
            if t != cur {
                hide(cx, h)?;
                st(cx, h, |s| s.current = t);
                crate::user32::call_export(cx, "USER32.dll", "KillTimer", &[h, TIMER_SHOW])?;
                if t.is_some() {
                    let d = st(cx, h, |s| s.initial);
                    crate::user32::call_export(
                        cx,
                        "USER32.dll",
                        "SetTimer",
                        &[h, TIMER_SHOW, d, 0],
                    )?;
                }
            }
        }
        WM_LBUTTONDOWN | WM_RBUTTONDOWN | WM_MBUTTONDOWN | WM_LBUTTONUP | WM_RBUTTONUP => {
            crate::user32::call_export(cx, "USER32.dll", "KillTimer", &[h, TIMER_SHOW])?;
            hide(cx, h)?;
        }
        _ => {}
    }
    Ok(())
}

fn write_tool(cx: &mut Ctx, p: u32, t: &Tool, u: bool) -> UR<()> {
    let m = &cx.proc.mem;
    let size = m.read_u32(p)?;
    m.write_u32(p + 4, t.flags)?;
    m.write_u32(p + 8, t.hwnd)?;
    m.write_u32(p + 12, t.id)?;
    gp::write_rect(cx.proc, p + 16, t.rect)?;
    m.write_u32(p + 32, t.hinst)?;
    let tp = m.read_u32(p + 36)?;
    match &t.text {
        None => {
            m.write_u32(p + 36, LPSTR_TEXTCALLBACK)?;
        }
        Some(s) if tp >= 0x10000 => crate::user32::write_str(cx, tp, s, u)?,
        Some(_) => {}
    }
    if size >= 44 {
        cx.proc.mem.write_u32(p + 40, t.lparam)?;
    }
    Ok(())
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            st(cx, h, |_| ());
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT => cc::paint(cx, h, |cx, hdc, w| {
            let (bk, fg, text) = st(cx, h, |s| (s.bk, s.fg, s.text.clone()));
            let r = Rect::new(0, 0, w.w, w.h);
            cc::fill(cx, hdc, r, bk)?;
            gp::frame_rect(cx.proc, hdc, r, gp::sys_color(gp::COLOR_WINDOWFRAME))?;
            crate::user32::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, fg])?;
            gp::draw_text(
                cx.proc,
                hdc,
                &text,
                Rect::new(4, 2, w.w - 2, w.h - 2),
                gp::DT_SINGLELINE | gp::DT_NOPREFIX,
            );
            Ok(())
        }),
        WM_ERASEBKGND => Ok(1),
        WM_TIMER => {
            crate::user32::call_export(cx, "USER32.dll", "KillTimer", &[h, wp])?;
            if wp == TIMER_SHOW {
                show(cx, h)?;
            } else {
                hide(cx, h)?;
            }
            Ok(0)
        }
        WM_NCHITTEST => Ok((-1i32) as u32),
        WM_SETFONT => {
            cc::set_font(cx, h, wp);
            Ok(0)
        }
        WM_GETFONT => Ok(cc::win(cx, h).map_or(0, |w| w.font)),
        TTM_ACTIVATE => {
            st(cx, h, |s| s.active = wp != 0);
            if wp == 0 {
                hide(cx, h)?;
            }
            Ok(0)
        }
        TTM_ADDTOOLA | TTM_ADDTOOLW => {
            if lp == 0 {
                return Ok(0);
            }
            let t = read_tool(cx, lp, m == TTM_ADDTOOLW)?;
            st(cx, h, |s| {
                if let Some(i) = find(s, t.hwnd, t.id) {
                    s.tools[i] = t;
                } else {
                    s.tools.push(t);
                }
            });
            Ok(1)
        }
        TTM_DELTOOLA | TTM_DELTOOLW => {
            if lp != 0 {
                let t = read_tool(cx, lp, m == TTM_DELTOOLW)?;
                st(cx, h, |s| {
                    s.tools.retain(|x| !(x.hwnd == t.hwnd && x.id == t.id))
                });
            }
            Ok(0)
        }
        TTM_NEWTOOLRECTA | TTM_NEWTOOLRECTW => {
            if lp != 0 {
                let t = read_tool(cx, lp, m == TTM_NEWTOOLRECTW)?;
                st(cx, h, |s| {
                    if let Some(i) = find(s, t.hwnd, t.id) {
                        s.tools[i].rect = t.rect;
                    }
                });
            }
            Ok(0)
        }
        TTM_SETTOOLINFOA | TTM_SETTOOLINFOW => {
            if lp != 0 {
                let t = read_tool(cx, lp, m == TTM_SETTOOLINFOW)?;
                st(cx, h, |s| {
                    if let Some(i) = find(s, t.hwnd, t.id) {
                        s.tools[i] = t;
                    }
                });
            }
            Ok(0)
        }
        TTM_UPDATETIPTEXTA | TTM_UPDATETIPTEXTW => {
            if lp != 0 {
                let t = read_tool(cx, lp, m == TTM_UPDATETIPTEXTW)?;
                st(cx, h, |s| {
                    if let Some(i) = find(s, t.hwnd, t.id) {
                        s.tools[i].text = t.text;
                        s.tools[i].res = t.res;
                        s.tools[i].hinst = t.hinst;
                    }
                });
            }
            Ok(0)
        }
        TTM_GETTOOLINFOA | TTM_GETTOOLINFOW => {
            if lp == 0 {
                return Ok(0);
            }
            let m8 = &cx.proc.mem;
            let (hw, id) = (m8.read_u32(lp + 8)?, m8.read_u32(lp + 12)?);
            let t = st(cx, h, |s| find(s, hw, id).map(|i| s.tools[i].clone()));
            match t {
                Some(t) => {
                    write_tool(cx, lp, &t, m == TTM_GETTOOLINFOW)?;
                    Ok(1)
                }
                None => Ok(0),
            }
        }
        TTM_GETTEXTA | TTM_GETTEXTW => {
            if lp == 0 {
                return Ok(0);
            }
            let m8 = &cx.proc.mem;
            let (hw, id, tp) = (
                m8.read_u32(lp + 8)?,
                m8.read_u32(lp + 12)?,
                m8.read_u32(lp + 36)?,
            );
            let known = st(cx, h, |s| find(s, hw, id).is_some());
            if known && tp != 0 {
                let text = tool_text(cx, h, (hw, id))?;
                // As documented for comctl32 before 6: the buffer is taken to hold
                // 80 characters.
                crate::user32::put_str(cx, tp, 80, &text, m == TTM_GETTEXTW)?;
            }
            Ok(0)
        }
        TTM_GETTOOLCOUNT => Ok(st(cx, h, |s| s.tools.len() as u32)),
        TTM_RELAYEVENT => {
            relay(cx, h, lp)?;
            Ok(0)
        }
        TTM_SETDELAYTIME => {
            let v = lp & 0xffff;
            st(cx, h, |s| match wp {
                TTDT_AUTOPOP => s.autopop = v,
                TTDT_INITIAL => s.initial = v,
                0 => {
                    // TTDT_AUTOMATIC: the others follow the initial time.
                    s.initial = v;
                    s.autopop = v * 10;
                }
                _ => {}
            });
            Ok(0)
        }
        TTM_GETDELAYTIME => Ok(st(cx, h, |s| match wp {
            TTDT_AUTOPOP => s.autopop,
            _ => s.initial,
        })),
        TTM_SETMAXTIPWIDTH => {
            Ok(st(cx, h, |s| std::mem::replace(&mut s.max_width, lp as i32)) as u32)
        }
        TTM_GETMAXTIPWIDTH => Ok(st(cx, h, |s| s.max_width) as u32),
        TTM_SETTIPBKCOLOR => {
            st(cx, h, |s| s.bk = wp);
            Ok(0)
        }
        TTM_SETTIPTEXTCOLOR => {
            st(cx, h, |s| s.fg = wp);
            Ok(0)
        }
        TTM_GETTIPBKCOLOR => Ok(st(cx, h, |s| s.bk)),
        TTM_GETTIPTEXTCOLOR => Ok(st(cx, h, |s| s.fg)),
        TTM_POP => {
            hide(cx, h)?;
            Ok(0)
        }
        TTM_UPDATE => {
            if st(cx, h, |s| s.shown) {
                show(cx, h)?;
            }
            Ok(0)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![crate::user32::hostclass::export(
        "__winterp_TooltipsWndProc",
        wndproc,
    )]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "tooltips_class32",
        export: "__winterp_TooltipsWndProc",
        wndproc,
        style: 0x8 | 0x800, // CS_DBLCLKS | CS_SAVEBITS
        wnd_extra: 0,
        background: 0,
    }
}
