//! Message queues: posting, sending (same thread: a direct call; another thread:
//! queued while the sender waits, serving messages sent to it meanwhile),
//! GetMessage/PeekMessage, dispatching to window procedures (guest or built-in,
//! converting ANSI/Unicode text where the two sides differ), timers and waits.

use super::wm::{self, Builtin, Msg, Queue, Reply, Sent, Timer};
use super::{Flow, UR, fin, guest, lock_wm};
use crate::hle::thunks::ThunkTarget;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::objects::KernelObject;
use crate::scheduler::{self, INFINITE, Locked, Waitable};
use crate::thread::ThreadEnd;
use std::sync::{Arc, Mutex};

pub const WM_NULL: u32 = 0;
pub const WM_CREATE: u32 = 0x0001;
pub const WM_DESTROY: u32 = 0x0002;
pub const WM_MOVE: u32 = 0x0003;
pub const WM_SIZE: u32 = 0x0005;
pub const WM_ACTIVATE: u32 = 0x0006;
pub const WM_SETFOCUS: u32 = 0x0007;
pub const WM_KILLFOCUS: u32 = 0x0008;
pub const WM_ENABLE: u32 = 0x000a;
pub const WM_SETREDRAW: u32 = 0x000b;
pub const WM_SETTEXT: u32 = 0x000c;
pub const WM_GETTEXT: u32 = 0x000d;
pub const WM_GETTEXTLENGTH: u32 = 0x000e;
pub const WM_PAINT: u32 = 0x000f;
pub const WM_CLOSE: u32 = 0x0010;
pub const WM_QUERYENDSESSION: u32 = 0x0011;
pub const WM_QUIT: u32 = 0x0012;
pub const WM_ERASEBKGND: u32 = 0x0014;
pub const WM_SYSCOLORCHANGE: u32 = 0x0015;
pub const WM_SHOWWINDOW: u32 = 0x0018;
pub const WM_ACTIVATEAPP: u32 = 0x001c;
pub const WM_SETCURSOR: u32 = 0x0020;
pub const WM_MOUSEACTIVATE: u32 = 0x0021;
pub const WM_GETMINMAXINFO: u32 = 0x0024;
pub const WM_NEXTDLGCTL: u32 = 0x0028;
pub const WM_DRAWITEM: u32 = 0x002b;
pub const WM_MEASUREITEM: u32 = 0x002c;
pub const WM_DELETEITEM: u32 = 0x002d;
pub const WM_COMPAREITEM: u32 = 0x0039;
pub const WM_SETFONT: u32 = 0x0030;
pub const WM_GETFONT: u32 = 0x0031;
pub const WM_WINDOWPOSCHANGING: u32 = 0x0046;
pub const WM_WINDOWPOSCHANGED: u32 = 0x0047;
pub const WM_NOTIFY: u32 = 0x004e;
pub const WM_CONTEXTMENU: u32 = 0x007b;
pub const WM_GETICON: u32 = 0x007f;
pub const WM_SETICON: u32 = 0x0080;
pub const WM_NCCREATE: u32 = 0x0081;
pub const WM_NCDESTROY: u32 = 0x0082;
pub const WM_NCCALCSIZE: u32 = 0x0083;
pub const WM_NCHITTEST: u32 = 0x0084;
pub const WM_NCPAINT: u32 = 0x0085;
pub const WM_NCACTIVATE: u32 = 0x0086;
pub const WM_GETDLGCODE: u32 = 0x0087;
pub const WM_NCMOUSEMOVE: u32 = 0x00a0;
pub const WM_NCLBUTTONDOWN: u32 = 0x00a1;
pub const WM_NCLBUTTONUP: u32 = 0x00a2;
pub const WM_NCLBUTTONDBLCLK: u32 = 0x00a3;
pub const WM_NCRBUTTONDOWN: u32 = 0x00a4;
pub const WM_NCRBUTTONUP: u32 = 0x00a5;
pub const WM_KEYDOWN: u32 = 0x0100;
pub const WM_KEYUP: u32 = 0x0101;
pub const WM_CHAR: u32 = 0x0102;
pub const WM_DEADCHAR: u32 = 0x0103;
pub const WM_SYSKEYDOWN: u32 = 0x0104;
pub const WM_SYSKEYUP: u32 = 0x0105;
pub const WM_SYSCHAR: u32 = 0x0106;
pub const WM_INITDIALOG: u32 = 0x0110;
pub const WM_COMMAND: u32 = 0x0111;
pub const WM_SYSCOMMAND: u32 = 0x0112;
pub const WM_TIMER: u32 = 0x0113;
pub const WM_HSCROLL: u32 = 0x0114;
pub const WM_VSCROLL: u32 = 0x0115;
pub const WM_INITMENU: u32 = 0x0116;
pub const WM_INITMENUPOPUP: u32 = 0x0117;
pub const WM_MENUSELECT: u32 = 0x011f;
pub const WM_UNINITMENUPOPUP: u32 = 0x0125;
pub const WM_CTLCOLORMSGBOX: u32 = 0x0132;
pub const WM_CTLCOLOREDIT: u32 = 0x0133;
pub const WM_CTLCOLORLISTBOX: u32 = 0x0134;
pub const WM_CTLCOLORBTN: u32 = 0x0135;
pub const WM_CTLCOLORDLG: u32 = 0x0136;
pub const WM_CTLCOLORSCROLLBAR: u32 = 0x0137;
pub const WM_CTLCOLORSTATIC: u32 = 0x0138;
pub const WM_MOUSEMOVE: u32 = 0x0200;
pub const WM_LBUTTONDOWN: u32 = 0x0201;
pub const WM_LBUTTONUP: u32 = 0x0202;
pub const WM_LBUTTONDBLCLK: u32 = 0x0203;
pub const WM_RBUTTONDOWN: u32 = 0x0204;
pub const WM_RBUTTONUP: u32 = 0x0205;
pub const WM_RBUTTONDBLCLK: u32 = 0x0206;
pub const WM_MBUTTONDOWN: u32 = 0x0207;
pub const WM_MBUTTONUP: u32 = 0x0208;
pub const WM_MBUTTONDBLCLK: u32 = 0x0209;
pub const WM_MOUSEWHEEL: u32 = 0x020a;
pub const WM_PARENTNOTIFY: u32 = 0x0210;
pub const WM_ENTERMENULOOP: u32 = 0x0211;
pub const WM_EXITMENULOOP: u32 = 0x0212;
pub const WM_CAPTURECHANGED: u32 = 0x0215;
pub const WM_USER: u32 = 0x0400;

pub const PM_REMOVE: u32 = 1;
const HWND_BROADCAST: u32 = 0xffff;
const USER_TIMER_MINIMUM: u32 = 10;
const ERROR_INVALID_WINDOW_HANDLE: u32 = 1400;
const ERROR_INVALID_THREAD_ID: u32 = 1444;

// ---- Window procedures ---------------------------------------------------------------

/// The built-in procedure a window-procedure address stands for, if any (a USER32
/// thunk, or the marker a system class holds before the thunk exists).
pub fn builtin_of(cx: &Ctx, addr: u32) -> Option<Builtin> {
    const ALL: [Builtin; 10] = [
        Builtin::DefWindow,
        Builtin::DefDlg,
        Builtin::Button,
        Builtin::Static,
        Builtin::Edit,
        Builtin::ListBox,
        Builtin::ComboBox,
        Builtin::ScrollBar,
        Builtin::Subclass,
        Builtin::MdiClient,
    ];
    if addr & 0xffff_fff0 == 0x8000_0000 {
        return ALL.get((addr & 0xf) as usize).copied();
    }
    let t = cx
        .proc
        .thunks
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .target(addr)
        .cloned();
    let Some(ThunkTarget::Api { dll, index }) = t else {
        return None;
    };
    let (dname, exports) = &cx.proc.dlls[dll];
    if !dname.eq_ignore_ascii_case("USER32.dll") {
        return None;
    }
    let name = exports[index].name;
    match name {
        "DefWindowProcA" => Some(Builtin::DefWindow),
        "DefDlgProcA" => Some(Builtin::DefDlg),
        _ => ALL.iter().copied().find(|b| b.export_name() == name),
    }
}

/// The guest-callable address of a window-procedure value (system class markers
/// become their USER32 thunk).
pub fn proc_address(cx: &Ctx, v: u32) -> u32 {
    if v & 0xffff_fff0 == 0x8000_0000
        && let Some(b) = builtin_of(cx, v)
    {
        return cx
            .proc
            .resolve_hle("USER32.dll", b.export_name())
            .unwrap_or(v);
    }
    v
}

fn run_builtin(
    cx: &mut Ctx,
    b: Builtin,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    match b {
        Builtin::DefWindow => super::window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::DefDlg => super::dialog::def_dlg_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::Button => super::controls::button_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::Static => super::controls::static_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::Edit => super::controls::edit_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::ListBox => super::controls::listbox_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::ComboBox => super::controls::combo_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::ScrollBar => super::window::def_window_proc(cx, hwnd, msg, wp, lp, unicode),
        Builtin::Subclass => super::subclass::dispatch(cx, hwnd, msg, wp, lp, unicode),
        Builtin::MdiClient => super::mdi::client_proc(cx, hwnd, msg, wp, lp, unicode),
    }
}

fn char_a_to_w(c: u32) -> u32 {
    let s = crate::kernel32::string::decode_ansi(&[c as u8]);
    s.encode_utf16().next().unwrap_or(0) as u32
}

fn char_w_to_a(c: u32) -> u32 {
    let s = String::from_utf16_lossy(&[c as u16]);
    crate::kernel32::string::encode_ansi(&s)
        .first()
        .copied()
        .unwrap_or(b'?') as u32
}

/// Calls window procedure `f` with a message whose text arguments are in the
/// sender's encoding (`unicode`); `f_unicode` is the procedure's own.
#[allow(clippy::too_many_arguments)]
pub fn call_proc(
    cx: &mut Ctx,
    f: u32,
    f_unicode: bool,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    if let Some(b) = builtin_of(cx, f) {
        return run_builtin(cx, b, hwnd, msg, wp, lp, unicode);
    }
    if let Some(p) = super::hostclass::host_proc_of(cx.proc, f) {
        return p(cx, hwnd, msg, wp, lp, unicode);
    }
    if f == 0 {
        return Ok(0);
    }
    if f_unicode == unicode {
        return guest(cx, f, &[hwnd, msg, wp, lp]);
    }
    match msg {
        WM_SETTEXT if lp != 0 => {
            let s = super::read_str(cx, lp, unicode)?;
            let (buf, esp) = super::stack_alloc(cx, super::str_bytes(&s, f_unicode));
            super::write_str(cx, buf, &s, f_unicode)?;
            let r = guest(cx, f, &[hwnd, msg, wp, buf]);
            super::stack_free(cx, esp);
            r
        }
        WM_GETTEXT if lp != 0 && wp > 0 => {
            let cap = wp.min(0x8000);
            let (buf, esp) = super::stack_alloc(cx, cap * 2 + 2);
            cx.proc.mem.write_u32(buf, 0)?;
            let r = guest(cx, f, &[hwnd, msg, cap, buf]);
            let out = super::read_str(cx, buf, f_unicode);
            super::stack_free(cx, esp);
            r?;
            let s = out?;
            Ok(super::put_str(cx, lp, wp, &s, unicode)?)
        }
        WM_CREATE | WM_NCCREATE if lp != 0 => {
            let mut cs = [0u8; 48];
            cx.proc.mem.read_bytes(lp, &mut cs)?;
            let name_p = u32::from_le_bytes([cs[36], cs[37], cs[38], cs[39]]);
            let class_p = u32::from_le_bytes([cs[40], cs[41], cs[42], cs[43]]);
            let name = if name_p >> 16 != 0 {
                Some(super::read_str(cx, name_p, unicode)?)
            } else {
                None
            };
            let class = if class_p >> 16 != 0 {
                Some(super::read_str(cx, class_p, unicode)?)
            } else {
                None
            };
            let need = 48
                + name.as_ref().map_or(0, |s| super::str_bytes(s, f_unicode))
                + class.as_ref().map_or(0, |s| super::str_bytes(s, f_unicode))
                + 8;
            let (buf, esp) = super::stack_alloc(cx, need);
            let mut at = buf + 48;
            if let Some(s) = &name {
                super::write_str(cx, at, s, f_unicode)?;
                cs[36..40].copy_from_slice(&at.to_le_bytes());
                at += super::str_bytes(s, f_unicode);
                at = (at + 1) & !1;
            }
            if let Some(s) = &class {
                super::write_str(cx, at, s, f_unicode)?;
                cs[40..44].copy_from_slice(&at.to_le_bytes());
            }
            cx.proc.mem.write_bytes(buf, &cs)?;
            let r = guest(cx, f, &[hwnd, msg, wp, buf]);
            super::stack_free(cx, esp);
            r
        }
        WM_CHAR | WM_SYSCHAR | WM_DEADCHAR => {
            let c = if unicode {
                char_w_to_a(wp)
            } else {
                char_a_to_w(wp)
            };
            guest(cx, f, &[hwnd, msg, c, lp])
        }
        _ => guest(cx, f, &[hwnd, msg, wp, lp]),
    }
}

/// SendMessage's work: a direct call for the window's own thread, else queued to
/// its thread while this one waits (serving messages sent to it meanwhile).
pub fn send(cx: &mut Ctx, hwnd: u32, msg: u32, wp: u32, lp: u32, unicode: bool) -> UR<u32> {
    let info = {
        let wm = lock_wm(cx.proc);
        wm.win(hwnd).map(|w| (w.tid, w.wndproc, w.unicode))
    };
    let Some((tid, f, fu)) = info else {
        if hwnd == HWND_BROADCAST {
            let tops: Vec<u32> = lock_wm(cx.proc).top.clone();
            for h in tops {
                send(cx, h, msg, wp, lp, unicode)?;
            }
            return Ok(0);
        }
        crate::teb::set_last_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    };
    // Thread 0 is the console server's (the console window): it answers on the
    // sender's thread.
    if tid == cx.thread.tid || tid == 0 {
        return call_proc(cx, f, fu, hwnd, msg, wp, lp, unicode);
    }
    send_other_thread(cx, tid, hwnd, msg, wp, lp, unicode)
}

/// Waits for the messages sent to a thread only (not for posted ones).
struct SentOnly(Arc<Queue>);

impl KernelObject for SentOnly {
    fn type_name(&self) -> &'static str {
        "SentMessages"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for SentOnly {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        !self.0.lock().sent.is_empty()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        format!("messages sent to thread {:#x}", self.0.tid)
    }
}

/// The receiving thread's object, to wait for its end too: a thread that ends
/// without retrieving its messages answers none (SendMessage then returns 0).
/// `None` when it has ended already.
fn receiver(cx: &Ctx, tid: u32) -> Option<Arc<crate::scheduler::ThreadObj>> {
    cx.proc
        .sched
        .threads()
        .into_iter()
        .find(|t| t.tid == tid && t.exit_code().is_none())
}

/// Takes a message the receiver never picked up back out of its queue.
fn withdraw(cx: &Ctx, tid: u32, reply: &Arc<Reply>) {
    let q = lock_wm(cx.proc).queue(tid);
    q.lock().sent.retain(|m| !Arc::ptr_eq(&m.reply, reply));
}

/// Queues a message for thread `tid` and returns the slot its reply will fill.
fn queue_sent(
    cx: &mut Ctx,
    tid: u32,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> Arc<Reply> {
    let reply = Arc::new(Reply {
        st: Mutex::new(None),
    });
    let target = lock_wm(cx.proc).queue(tid);
    let time = wm::now_ms(cx) as u32;
    target.lock().sent.push_back(Sent {
        msg: Msg {
            hwnd,
            message: msg,
            wparam: wp,
            lparam: lp,
            time,
            pt: (0, 0),
        },
        unicode,
        reply: reply.clone(),
    });
    wm::wake_queue(cx.proc, &target);
    reply
}

/// SendMessage as guest code calls it (SendMessage, SendMessageTimeout,
/// SendDlgItemMessage); `Ok(None)` when `ms` passed without a reply.
///
/// A message for another thread's window waits, as on Windows, until that thread
/// retrieves messages (GetMessage, PeekMessage, a modal loop, a send of its own);
/// meanwhile this thread serves messages sent to it. The wait must not keep this
/// thread on the host stack: in deterministic mode every thread shares one host
/// stack, and a receiver whose host frames lie below the sender's (a main thread
/// inside CreateDialogParam whose WM_INITDIALOG started the sending thread) could
/// never run to reply. So the wait returns [`Outcome::Resume`] like any blocking
/// API, and the call is made again when the reply (or a message sent to this
/// thread) arrives; the send is found in the queue's `pending` list by the guest
/// call depth it was made at, so it is queued once. Host code that sends from
/// inside another API uses [`send`], which waits in place.
pub fn send_api(
    cx: &mut Ctx,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
    ms: u32,
) -> UR<Option<u32>> {
    let depth = cx.thread.call_depth;
    let mine = lock_wm(cx.proc).queue(cx.thread.tid);
    let resumed = {
        let mut d = mine.lock();
        // Sends of deeper guest calls that unwound without their reply are over.
        while d.pending.last().is_some_and(|p| p.0 > depth) {
            d.pending.pop();
        }
        d.pending
            .last()
            .filter(|p| p.0 == depth)
            .map(|p| (p.1.clone(), p.2))
    };
    let (reply, target) = match resumed {
        Some(r) => r,
        None => {
            let tid = lock_wm(cx.proc).win(hwnd).map(|w| w.tid);
            match tid {
                Some(t) if t != cx.thread.tid && t != 0 => {
                    let r = queue_sent(cx, t, hwnd, msg, wp, lp, unicode);
                    mine.lock().pending.push((depth, r.clone(), t));
                    (r, t)
                }
                // Its own window, a broadcast or an invalid handle.
                _ => return send(cx, hwnd, msg, wp, lp, unicode).map(Some),
            }
        }
    };
    let done = |mine: &Queue| mine.lock().pending.retain(|p| !Arc::ptr_eq(&p.1, &reply));
    // A re-called send resumes its wait (and deadline) only if it waits again;
    // messages served meanwhile may wait themselves.
    let mut retry = cx.thread.sched.wait.take();
    loop {
        if let Err(e) = process_sent(cx) {
            done(&mine);
            return Err(e);
        }
        if let Some(v) = *reply.st.lock().unwrap_or_else(|e| e.into_inner()) {
            done(&mine);
            return Ok(Some(v));
        }
        let Some(thread) = receiver(cx, target) else {
            done(&mine);
            withdraw(cx, target, &reply);
            return Ok(Some(0));
        };
        cx.thread.sched.wait = retry.take();
        let objs: Vec<Arc<dyn KernelObject>> =
            vec![reply.clone(), Arc::new(SentOnly(mine.clone())), thread];
        match scheduler::wait_for(cx, objs, false, ms) {
            Outcome::Return(r) if r == scheduler::WAIT_TIMEOUT as u64 => {
                done(&mine);
                // A message the receiver has not picked up is withdrawn.
                withdraw(cx, target, &reply);
                return Ok(None);
            }
            Outcome::Return(_) => {}
            Outcome::Resume => return Err(Flow::End(Outcome::Resume)),
            o => {
                done(&mine);
                return Err(Flow::End(o));
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn send_other_thread(
    cx: &mut Ctx,
    tid: u32,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    let reply = queue_sent(cx, tid, hwnd, msg, wp, lp, unicode);
    let mine = lock_wm(cx.proc).queue(cx.thread.tid);
    loop {
        if let Some(v) = *reply.st.lock().unwrap_or_else(|e| e.into_inner()) {
            return Ok(v);
        }
        process_sent(cx)?;
        if let Some(v) = *reply.st.lock().unwrap_or_else(|e| e.into_inner()) {
            return Ok(v);
        }
        let Some(thread) = receiver(cx, tid) else {
            withdraw(cx, tid, &reply);
            return Ok(0);
        };
        let objs: Vec<Arc<dyn KernelObject>> =
            vec![reply.clone(), Arc::new(SentOnly(mine.clone())), thread];
        block_host(cx, objs, INFINITE)?;
    }
}

/// Serves the messages other threads sent to this one.
pub fn process_sent(cx: &mut Ctx) -> UR<()> {
    let q = {
        let wm = lock_wm(cx.proc);
        match wm.queues.get(&cx.thread.tid) {
            Some(q) => q.clone(),
            None => return Ok(()),
        }
    };
    loop {
        let Some(s) = q.lock().sent.pop_front() else {
            return Ok(());
        };
        let info = lock_wm(cx.proc)
            .win(s.msg.hwnd)
            .map(|w| (w.wndproc, w.unicode));
        q.lock().in_send += 1;
        let r = match info {
            Some((f, fu)) => call_proc(
                cx,
                f,
                fu,
                s.msg.hwnd,
                s.msg.message,
                s.msg.wparam,
                s.msg.lparam,
                s.unicode,
            ),
            None => Ok(0),
        };
        q.lock().in_send -= 1;
        // The sender learns the result even if the procedure ended the thread.
        let v = *r.as_ref().unwrap_or(&0);
        *s.reply.st.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
        wm::wake_all(cx.proc);
        r?;
    }
}

/// Blocks host code (a modal loop, a cross-thread send) until one of `objs` is
/// ready or `ms` pass: in deterministic mode other threads run meanwhile.
pub fn block_host(cx: &mut Ctx, objs: Vec<Arc<dyn KernelObject>>, ms: u32) -> UR<u32> {
    loop {
        match scheduler::wait_for(cx, objs.clone(), false, ms) {
            Outcome::Return(r) => return Ok(r as u32),
            Outcome::Resume => {
                if let Err(e) = scheduler::reschedule(cx.thread, cx.proc) {
                    return Err(match e {
                        ThreadEnd::Exited(c) => Flow::End(Outcome::ExitThread(c)),
                        ThreadEnd::ProcessExit(c) => Flow::End(Outcome::ExitProcess(c)),
                        ThreadEnd::Crashed(r) => Flow::Err(ApiError::Other(r)),
                        ThreadEnd::InstructionLimit => {
                            Flow::End(Outcome::ExitProcess(scheduler::ABNORMAL_EXIT))
                        }
                    });
                }
            }
            o => return Err(Flow::End(o)),
        }
    }
}

pub fn post(cx: &Ctx, hwnd: u32, msg: u32, wp: u32, lp: u32) -> bool {
    post_proc(cx.proc, hwnd, msg, wp, lp, wm::now_ms(cx) as u32)
}

/// Posts to a window's thread queue (any thread, or the host).
pub fn post_proc(
    proc: &crate::process::Process,
    hwnd: u32,
    msg: u32,
    wp: u32,
    lp: u32,
    time: u32,
) -> bool {
    let mut wm = lock_wm(proc);
    let targets: Vec<u32> = if hwnd == HWND_BROADCAST {
        wm.top.clone()
    } else {
        vec![hwnd]
    };
    let mut ok = false;
    for h in targets {
        let Some(tid) = wm.win(h).map(|w| w.tid) else {
            continue;
        };
        let pt = wm.cursor;
        let q = wm.queue(tid);
        let mut qd = q.lock();
        qd.posted.push_back(Msg {
            hwnd: h,
            message: msg,
            wparam: wp,
            lparam: lp,
            time,
            pt,
        });
        qd.wake = true;
        ok = true;
    }
    drop(wm);
    wm::wake_all(proc);
    ok
}

fn post_thread(cx: &Ctx, tid: u32, msg: u32, wp: u32, lp: u32) -> bool {
    let q = {
        let mut wm = lock_wm(cx.proc);
        let known = wm.queues.contains_key(&tid)
            || cx.proc.sched.threads().iter().any(|t| t.tid == tid)
            || tid == cx.thread.tid;
        if !known {
            return false;
        }
        wm.queue(tid)
    };
    let time = wm::now_ms(cx) as u32;
    q.lock().posted.push_back(Msg {
        hwnd: 0,
        message: msg,
        wparam: wp,
        lparam: lp,
        time,
        pt: (0, 0),
    });
    wm::wake_queue(cx.proc, &q);
    true
}

// ---- Retrieving -------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// PeekMessage: return at once.
    No,
    /// GetMessage from guest code: deterministic mode re-calls the API.
    Restart,
    /// A host-side loop (modal dialog): block here.
    Host,
}

fn in_range(m: u32, min: u32, max: u32) -> bool {
    (min == 0 && max == 0) || (m >= min && m <= max)
}

fn hwnd_matches(wm: &wm::Wm, msg_hwnd: u32, filter: u32) -> bool {
    match filter {
        0 => true,
        0xffff_ffff => msg_hwnd == 0,
        f => msg_hwnd == f || wm.is_child_of(msg_hwnd, f),
    }
}

/// Milliseconds until this thread's next timer is due (INFINITE without timers).
fn next_timer_wait(wm: &wm::Wm, tid: u32, now: u64) -> u32 {
    wm.timers
        .iter()
        .filter(|t| t.tid == tid)
        .map(|t| t.due.saturating_sub(now))
        .min()
        .map_or(INFINITE, |d| d.min(INFINITE as u64 - 1) as u32)
}

/// GetMessage/PeekMessage: the next message for the calling thread that passes the
/// filter, after serving sent messages; `None` when there is none and `wait` is
/// [`Wait::No`].
pub fn get_msg(
    cx: &mut Ctx,
    filter: u32,
    min: u32,
    max: u32,
    remove: bool,
    wait: Wait,
) -> UR<Option<Msg>> {
    let tid = cx.thread.tid;
    // Deterministic mode re-calls a blocked GetMessage: its wait (and deadline) is
    // resumed only if it has to wait again, and must not outlive a call that returns.
    let mut retry = cx.thread.sched.wait.take();
    loop {
        process_sent(cx)?;
        let now = wm::now_ms(cx);
        let (found, q, timeout) = {
            let mut wm = lock_wm(cx.proc);
            let q = wm.queue(tid);
            let found = scan(&mut wm, &q, tid, filter, min, max, remove, now);
            let timeout = next_timer_wait(&wm, tid, now);
            (found, q, timeout)
        };
        if let Some(m) = found {
            return Ok(Some(m));
        }
        match wait {
            Wait::No => return Ok(None),
            Wait::Restart => {
                cx.thread.sched.wait = retry.take();
                match scheduler::wait_for(cx, vec![q as Arc<dyn KernelObject>], false, timeout) {
                    Outcome::Return(_) => continue,
                    o => return Err(Flow::End(o)),
                }
            }
            Wait::Host => {
                block_host(cx, vec![q as Arc<dyn KernelObject>], timeout)?;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn scan(
    wm: &mut wm::Wm,
    q: &Queue,
    tid: u32,
    filter: u32,
    min: u32,
    max: u32,
    remove: bool,
    now: u64,
) -> Option<Msg> {
    let mut qd = q.lock();
    qd.wake = false;
    let pick = |v: &std::collections::VecDeque<Msg>| {
        v.iter()
            .position(|m| in_range(m.message, min, max) && hwnd_matches(wm, m.hwnd, filter))
    };
    if let Some(i) = pick(&qd.posted) {
        let m = if remove {
            qd.posted.remove(i)?
        } else {
            qd.posted[i]
        };
        qd.last_time = m.time;
        qd.last_pos = m.pt;
        return Some(m);
    }
    if let Some(i) = pick(&qd.input) {
        let m = if remove {
            qd.input.remove(i)?
        } else {
            qd.input[i]
        };
        qd.last_time = m.time;
        qd.last_pos = m.pt;
        if remove && (WM_KEYDOWN..=WM_SYSKEYUP).contains(&m.message) {
            let vk = (m.wparam & 0xff) as usize;
            let down = matches!(m.message, WM_KEYDOWN | WM_SYSKEYDOWN);
            super::input::apply_key(&mut qd.keys, vk, down);
        }
        return Some(m);
    }
    if let Some(code) = qd.quit
        && in_range(WM_QUIT, min, max)
    {
        if remove {
            qd.quit = None;
        }
        return Some(Msg {
            hwnd: 0,
            message: WM_QUIT,
            wparam: code,
            lparam: 0,
            time: now as u32,
            pt: wm.cursor,
        });
    }
    let (time, pt) = (now as u32, wm.cursor);
    drop(qd);
    if in_range(WM_PAINT, min, max)
        && filter != 0xffff_ffff
        && let Some(h) = wm.paint_candidate(tid, filter)
    {
        return Some(Msg {
            hwnd: h,
            message: WM_PAINT,
            wparam: 0,
            lparam: 0,
            time,
            pt,
        });
    }
    if in_range(WM_TIMER, min, max) && !wm.timers.is_empty() {
        let k = wm
            .timers
            .iter()
            .position(|t| t.tid == tid && t.due <= now && hwnd_matches(wm, t.hwnd, filter))?;
        let t = &mut wm.timers[k];
        if remove {
            t.due = now + t.interval as u64;
        }
        return Some(Msg {
            hwnd: t.hwnd,
            message: WM_TIMER,
            wparam: t.id,
            lparam: t.proc_,
            time,
            pt,
        });
    }
    None
}

pub fn write_msg(cx: &Ctx, p: u32, m: &Msg) -> ApiResult<()> {
    let mem = &cx.proc.mem;
    mem.write_u32(p, m.hwnd)?;
    mem.write_u32(p + 4, m.message)?;
    mem.write_u32(p + 8, m.wparam)?;
    mem.write_u32(p + 12, m.lparam)?;
    mem.write_u32(p + 16, m.time)?;
    mem.write_u32(p + 20, m.pt.0 as u32)?;
    mem.write_u32(p + 24, m.pt.1 as u32)?;
    Ok(())
}

pub fn read_msg(cx: &Ctx, p: u32) -> ApiResult<Msg> {
    let mem = &cx.proc.mem;
    Ok(Msg {
        hwnd: mem.read_u32(p)?,
        message: mem.read_u32(p + 4)?,
        wparam: mem.read_u32(p + 8)?,
        lparam: mem.read_u32(p + 12)?,
        time: mem.read_u32(p + 16)?,
        pt: (mem.read_u32(p + 20)? as i32, mem.read_u32(p + 24)? as i32),
    })
}

fn get_message(
    cx: &mut Ctx,
    lpMsg: Ptr,
    hWnd: u32,
    min: u32,
    max: u32,
    unicode: bool,
) -> ApiResult<Outcome> {
    let r = get_msg(cx, hWnd, min, max, true, Wait::Restart).and_then(|m| {
        let m = m.ok_or_else(|| Flow::Err(ApiError::Other("GetMessage found nothing".into())))?;
        let m = to_charset(m, unicode);
        write_msg(cx, lpMsg.0, &m)?;
        Ok(m.message != WM_QUIT)
    });
    fin(r)
}

/// WM_CHAR from the queue is UTF-16; an ANSI program's GetMessageA sees 1252.
fn to_charset(mut m: Msg, unicode: bool) -> Msg {
    if !unicode && matches!(m.message, WM_CHAR | WM_SYSCHAR | WM_DEADCHAR) {
        m.wparam = char_w_to_a(m.wparam);
    }
    m
}

pub fn GetMessageA(cx: &mut Ctx, lpMsg: Ptr, hWnd: u32, min: u32, max: u32) -> ApiResult<Outcome> {
    get_message(cx, lpMsg, hWnd, min, max, false)
}

pub fn GetMessageW(cx: &mut Ctx, lpMsg: Ptr, hWnd: u32, min: u32, max: u32) -> ApiResult<Outcome> {
    get_message(cx, lpMsg, hWnd, min, max, true)
}

fn peek_message(
    cx: &mut Ctx,
    lpMsg: Ptr,
    hWnd: u32,
    min: u32,
    max: u32,
    flags: u32,
    unicode: bool,
) -> ApiResult<Outcome> {
    let r = get_msg(cx, hWnd, min, max, flags & PM_REMOVE != 0, Wait::No).and_then(|m| {
        Ok(match m {
            Some(m) => {
                write_msg(cx, lpMsg.0, &to_charset(m, unicode))?;
                true
            }
            None => false,
        })
    });
    fin(r)
}

pub fn PeekMessageA(
    cx: &mut Ctx,
    lpMsg: Ptr,
    hWnd: u32,
    min: u32,
    max: u32,
    wRemoveMsg: u32,
) -> ApiResult<Outcome> {
    peek_message(cx, lpMsg, hWnd, min, max, wRemoveMsg, false)
}

pub fn PeekMessageW(
    cx: &mut Ctx,
    lpMsg: Ptr,
    hWnd: u32,
    min: u32,
    max: u32,
    wRemoveMsg: u32,
) -> ApiResult<Outcome> {
    peek_message(cx, lpMsg, hWnd, min, max, wRemoveMsg, true)
}

/// DispatchMessage's work on a message already read.
pub fn dispatch(cx: &mut Ctx, m: &Msg, unicode: bool) -> UR<u32> {
    if m.message == WM_TIMER && m.lparam != 0 {
        let known = lock_wm(cx.proc)
            .timers
            .iter()
            .any(|t| t.proc_ == m.lparam && t.id == m.wparam);
        if known {
            let now = wm::now_ms(cx) as u32;
            return guest(cx, m.lparam, &[m.hwnd, WM_TIMER, m.wparam, now]);
        }
    }
    if m.hwnd == 0 {
        return Ok(0);
    }
    let info = lock_wm(cx.proc).win(m.hwnd).map(|w| (w.wndproc, w.unicode));
    let Some((f, fu)) = info else {
        crate::teb::set_last_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    };
    call_proc(cx, f, fu, m.hwnd, m.message, m.wparam, m.lparam, unicode)
}

pub fn DispatchMessageA(cx: &mut Ctx, lpMsg: Ptr) -> ApiResult<Outcome> {
    let r = read_msg(cx, lpMsg.0)
        .map_err(Flow::from)
        .and_then(|m| dispatch(cx, &m, false));
    fin(r)
}

pub fn DispatchMessageW(cx: &mut Ctx, lpMsg: Ptr) -> ApiResult<Outcome> {
    let r = read_msg(cx, lpMsg.0)
        .map_err(Flow::from)
        .and_then(|m| dispatch(cx, &m, true));
    fin(r)
}

pub fn SendMessageA(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(send_api(cx, hWnd, Msg, wParam, lParam, false, INFINITE).map(|v| v.unwrap_or(0)))
}

pub fn SendMessageW(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(send_api(cx, hWnd, Msg, wParam, lParam, true, INFINITE).map(|v| v.unwrap_or(0)))
}

const ERROR_TIMEOUT: u32 = 1460;

#[allow(clippy::too_many_arguments)]
fn send_timeout(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
    uTimeout: u32,
    lpdwResult: Ptr,
    unicode: bool,
) -> ApiResult<Outcome> {
    // The flags (SMTO_BLOCK, SMTO_ABORTIFHUNG, ...) change nothing here: the sender
    // serves messages sent to it while it waits, and no thread is ever "hung".
    let r = send_api(cx, hWnd, Msg, wParam, lParam, unicode, uTimeout).and_then(|v| match v {
        Some(v) => {
            if !lpdwResult.is_null() {
                cx.proc.mem.write_u32(lpdwResult.0, v)?;
            }
            Ok(1u32)
        }
        None => {
            // Windows sets the result to 0 (Wine's xsend run shows it).
            if !lpdwResult.is_null() {
                cx.proc.mem.write_u32(lpdwResult.0, 0)?;
            }
            crate::teb::set_last_error(cx, ERROR_TIMEOUT)?;
            Ok(0)
        }
    });
    fin(r)
}

#[allow(clippy::too_many_arguments)]
pub fn SendMessageTimeoutA(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
    _fuFlags: u32,
    uTimeout: u32,
    lpdwResult: Ptr,
) -> ApiResult<Outcome> {
    send_timeout(cx, hWnd, Msg, wParam, lParam, uTimeout, lpdwResult, false)
}

#[allow(clippy::too_many_arguments)]
pub fn SendMessageTimeoutW(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
    _fuFlags: u32,
    uTimeout: u32,
    lpdwResult: Ptr,
) -> ApiResult<Outcome> {
    send_timeout(cx, hWnd, Msg, wParam, lParam, uTimeout, lpdwResult, true)
}

fn send_notify(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
    u: bool,
) -> ApiResult<Outcome> {
    let tid = lock_wm(cx.proc).win(hWnd).map(|w| w.tid);
    if tid == Some(cx.thread.tid) {
        return fin(send(cx, hWnd, Msg, wParam, lParam, u).map(|_| 1u32));
    }
    Ok(Outcome::Return(post(cx, hWnd, Msg, wParam, lParam) as u64))
}

pub fn SendNotifyMessageA(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    send_notify(cx, hWnd, Msg, wParam, lParam, false)
}

pub fn SendNotifyMessageW(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    send_notify(cx, hWnd, Msg, wParam, lParam, true)
}

pub fn PostMessageA(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<bool> {
    post_message(cx, hWnd, Msg, wParam, lParam)
}

pub fn PostMessageW(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<bool> {
    post_message(cx, hWnd, Msg, wParam, lParam)
}

fn post_message(cx: &mut Ctx, hWnd: u32, Msg: u32, wParam: u32, lParam: u32) -> ApiResult<bool> {
    if hWnd == 0 {
        let tid = cx.thread.tid;
        return Ok(post_thread(cx, tid, Msg, wParam, lParam));
    }
    if post(cx, hWnd, Msg, wParam, lParam) {
        Ok(true)
    } else {
        crate::teb::set_last_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        Ok(false)
    }
}

pub fn PostThreadMessageA(
    cx: &mut Ctx,
    idThread: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<bool> {
    if post_thread(cx, idThread, Msg, wParam, lParam) {
        Ok(true)
    } else {
        crate::teb::set_last_error(cx, ERROR_INVALID_THREAD_ID)?;
        Ok(false)
    }
}

pub fn PostThreadMessageW(
    cx: &mut Ctx,
    idThread: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<bool> {
    PostThreadMessageA(cx, idThread, Msg, wParam, lParam)
}

pub fn PostQuitMessage(cx: &mut Ctx, nExitCode: u32) {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().quit = Some(nExitCode);
    wm::wake_queue(cx.proc, &q);
}

pub fn WaitMessage(cx: &mut Ctx) -> ApiResult<Outcome> {
    let tid = cx.thread.tid;
    let retry = cx.thread.sched.wait.take();
    let r = process_sent(cx).and_then(|_| {
        let now = wm::now_ms(cx);
        let (q, timeout, due) = {
            let mut wm = lock_wm(cx.proc);
            let q = wm.queue(tid);
            let t = next_timer_wait(&wm, tid, now);
            let paint = wm.paint_candidate(tid, 0).is_some();
            (q, t, paint || t == 0)
        };
        if due {
            return Ok(1u32);
        }
        cx.thread.sched.wait = retry;
        match scheduler::wait_for(cx, vec![q as Arc<dyn KernelObject>], false, timeout) {
            Outcome::Return(_) => Ok(1),
            o => Err(Flow::End(o)),
        }
    });
    fin(r)
}

const MWMO_INPUTAVAILABLE: u32 = 4;

fn msg_wait(
    cx: &mut Ctx,
    n: u32,
    handles: Ptr,
    all: bool,
    ms: u32,
    flags: u32,
) -> ApiResult<Outcome> {
    if n > 63 {
        return Err(ApiError::Other(format!(
            "MsgWaitForMultipleObjects with {n} handles"
        )));
    }
    let mut objs: Vec<Arc<dyn KernelObject>> = Vec::new();
    for k in 0..n {
        let h = cx.proc.mem.read_u32(handles.0 + 4 * k)?;
        let o = if h == crate::objects::CURRENT_THREAD {
            Some(scheduler::current(cx) as Arc<dyn KernelObject>)
        } else {
            cx.proc
                .handles
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(h)
        };
        match o {
            Some(o) if o.as_waitable().is_some() => objs.push(o),
            _ => {
                crate::teb::set_last_error(cx, 6)?;
                return Ok(Outcome::Return(scheduler::WAIT_FAILED as u64));
            }
        }
    }
    if all && n > 0 {
        return Err(ApiError::UnimplementedCase(
            "MsgWaitForMultipleObjects with bWaitAll".into(),
        ));
    }
    let tid = cx.thread.tid;
    if let Err(e) = process_sent(cx) {
        return fin::<u32>(Err(e));
    }
    let q = {
        let mut wm = lock_wm(cx.proc);
        let q = wm.queue(tid);
        if flags & MWMO_INPUTAVAILABLE != 0 {
            let d = q.lock();
            if !d.posted.is_empty() || !d.input.is_empty() {
                return Ok(Outcome::Return(n as u64));
            }
        }
        let now = wm::now_ms(cx);
        if next_timer_wait(&wm, tid, now) == 0 || wm.paint_candidate(tid, 0).is_some() {
            q.lock().wake = true;
        }
        q
    };
    objs.push(q);
    Ok(scheduler::wait_for(cx, objs, false, ms))
}

pub fn MsgWaitForMultipleObjects(
    cx: &mut Ctx,
    nCount: u32,
    pHandles: Ptr,
    fWaitAll: bool,
    dwMilliseconds: u32,
    _dwWakeMask: u32,
) -> ApiResult<Outcome> {
    msg_wait(cx, nCount, pHandles, fWaitAll, dwMilliseconds, 0)
}

pub fn MsgWaitForMultipleObjectsEx(
    cx: &mut Ctx,
    nCount: u32,
    pHandles: Ptr,
    dwMilliseconds: u32,
    _dwWakeMask: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    msg_wait(
        cx,
        nCount,
        pHandles,
        dwFlags & 1 != 0,
        dwMilliseconds,
        dwFlags,
    )
}

pub fn GetMessageTime(cx: &mut Ctx) -> u32 {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().last_time
}

pub fn GetMessagePos(cx: &mut Ctx) -> u32 {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let (x, y) = q.lock().last_pos;
    (x as u16 as u32) | ((y as u16 as u32) << 16)
}

pub fn GetQueueStatus(cx: &mut Ctx, _flags: u32) -> u32 {
    let tid = cx.thread.tid;
    let mut wm = lock_wm(cx.proc);
    let q = wm.queue(tid);
    let d = q.lock();
    let mut s = 0;
    if !d.input.is_empty() {
        s |= 0x7;
    }
    if !d.posted.is_empty() {
        s |= 0x8;
    }
    if !d.sent.is_empty() {
        s |= 0x40;
    }
    drop(d);
    if wm.paint_candidate(tid, 0).is_some() {
        s |= 0x20;
    }
    s | (s << 16)
}

pub fn GetInputState(cx: &mut Ctx) -> bool {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    !q.lock().input.is_empty()
}

/// Whether the message being handled was sent by another thread.
pub fn InSendMessage(cx: &mut Ctx) -> bool {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().in_send > 0
}

fn register_message(cx: &mut Ctx, name: String) -> u32 {
    if name.is_empty() {
        return 0;
    }
    lock_wm(cx.proc).alloc_atom(&name) as u32
}

pub fn RegisterWindowMessageA(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    let s = super::read_str(cx, lpString, false)?;
    Ok(register_message(cx, s))
}

pub fn RegisterWindowMessageW(cx: &mut Ctx, lpString: u32) -> ApiResult<u32> {
    let s = super::read_str(cx, lpString, true)?;
    Ok(register_message(cx, s))
}

/// Clipboard formats and window messages are registered in the same atom table on
/// Windows, so the same name gives the same number from either function.
pub fn RegisterClipboardFormatA(cx: &mut Ctx, lpszFormat: u32) -> ApiResult<u32> {
    let s = super::read_str(cx, lpszFormat, false)?;
    Ok(register_message(cx, s))
}

pub fn RegisterClipboardFormatW(cx: &mut Ctx, lpszFormat: u32) -> ApiResult<u32> {
    let s = super::read_str(cx, lpszFormat, true)?;
    Ok(register_message(cx, s))
}

// ---- Timers ---------------------------------------------------------------------------

pub fn SetTimer(
    cx: &mut Ctx,
    hWnd: u32,
    nIDEvent: u32,
    uElapse: u32,
    lpTimerFunc: u32,
) -> ApiResult<u32> {
    let now = wm::now_ms(cx);
    let tid = cx.thread.tid;
    let interval = uElapse.max(USER_TIMER_MINIMUM);
    let mut wm = lock_wm(cx.proc);
    let owner_tid = if hWnd != 0 {
        match wm.win(hWnd) {
            Some(w) => w.tid,
            None => {
                drop(wm);
                crate::teb::set_last_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
                return Ok(0);
            }
        }
    } else {
        tid
    };
    let id = if hWnd == 0 {
        // Thread timers get fresh ids (nIDEvent only names an existing one).
        if nIDEvent != 0 && wm.timers.iter().any(|t| t.hwnd == 0 && t.id == nIDEvent) {
            nIDEvent
        } else {
            (1..)
                .find(|i| !wm.timers.iter().any(|t| t.hwnd == 0 && t.id == *i))
                .unwrap_or(1)
        }
    } else {
        nIDEvent
    };
    wm.timers.retain(|t| !(t.hwnd == hWnd && t.id == id));
    wm.timers.push(Timer {
        hwnd: hWnd,
        id,
        tid: owner_tid,
        interval,
        due: now + interval as u64,
        proc_: lpTimerFunc,
    });
    let q = wm.queue(owner_tid);
    drop(wm);
    // A waiting thread must recompute its timeout.
    wm::wake_queue(cx.proc, &q);
    Ok(if hWnd == 0 { id } else { id.max(1) })
}

pub fn KillTimer(cx: &mut Ctx, hWnd: u32, uIDEvent: u32) -> bool {
    let mut wm = lock_wm(cx.proc);
    let n = wm.timers.len();
    wm.timers.retain(|t| !(t.hwnd == hWnd && t.id == uIDEvent));
    n != wm.timers.len()
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetMessageA", GetMessageA),
        stdcall("GetMessageW", GetMessageW),
        stdcall("PeekMessageA", PeekMessageA),
        stdcall("PeekMessageW", PeekMessageW),
        stdcall("DispatchMessageA", DispatchMessageA),
        stdcall("DispatchMessageW", DispatchMessageW),
        stdcall("SendMessageA", SendMessageA),
        stdcall("SendMessageW", SendMessageW),
        stdcall("SendMessageTimeoutA", SendMessageTimeoutA),
        stdcall("SendMessageTimeoutW", SendMessageTimeoutW),
        stdcall("SendNotifyMessageA", SendNotifyMessageA),
        stdcall("SendNotifyMessageW", SendNotifyMessageW),
        stdcall("PostMessageA", PostMessageA),
        stdcall("PostMessageW", PostMessageW),
        stdcall("PostThreadMessageA", PostThreadMessageA),
        stdcall("PostThreadMessageW", PostThreadMessageW),
        stdcall("PostQuitMessage", PostQuitMessage),
        stdcall("WaitMessage", WaitMessage),
        stdcall("MsgWaitForMultipleObjects", MsgWaitForMultipleObjects),
        stdcall("MsgWaitForMultipleObjectsEx", MsgWaitForMultipleObjectsEx),
        stdcall("GetMessageTime", GetMessageTime),
        stdcall("GetMessagePos", GetMessagePos),
        stdcall("GetQueueStatus", GetQueueStatus),
        stdcall("GetInputState", GetInputState),
        stdcall("InSendMessage", InSendMessage),
        stdcall("RegisterClipboardFormatA", RegisterClipboardFormatA),
        stdcall("RegisterClipboardFormatW", RegisterClipboardFormatW),
        stdcall("RegisterWindowMessageA", RegisterWindowMessageA),
        stdcall("RegisterWindowMessageW", RegisterWindowMessageW),
        stdcall("SetTimer", SetTimer),
        stdcall("KillTimer", KillTimer),
    ]
}
