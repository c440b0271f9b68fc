//! USER32 unit tests: message order on window creation, showing and destruction,
//! posting and retrieving, cross-thread SendMessage, timers on the virtual clock.
//! Window procedures are small guest routines that log each message number and
//! tail-jump to DefWindowProcA.

use super::msg::{self, *};
use super::window::{self, Create};
use super::{NameOrId, fin, lock_wm};
use crate::hle::{CStrPtr, Ctx, Outcome, WStrPtr};
use crate::kernel32::misc::test_support::Harness;
use winterp_core::mem::Prot;

/// A logging window procedure: stores [esp+8] (the message) at `log + 4 + 4*n`
/// (n = the dword at `log`), increments n, then `jmp [defproc_slot]`.
struct Logger {
    proc_: u32,
    log: u32,
}

fn setup(h: &mut Harness) -> Logger {
    let stack = h
        .proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x10000, Prot::RW, "test stack")
        .unwrap();
    h.thread.cpu.regs[winterp_core::cpu::ESP] = stack + 0xff00;
    let code = h
        .proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1000, Prot::RWX, "test code")
        .unwrap();
    let log = h.scratch(0x4000);
    let slot = log + 0x3ff0;
    let def = h.proc.resolve_hle("USER32.dll", "DefWindowProcA").unwrap();
    h.proc.mem.write_u32(slot, def).unwrap();
    let mut c = vec![0x8b, 0x44, 0x24, 0x08]; // mov eax,[esp+8]
    c.extend([0x8b, 0x0d]); // mov ecx,[log]
    c.extend(log.to_le_bytes());
    c.extend([0x89, 0x04, 0x8d]); // mov [ecx*4+log+4],eax
    c.extend((log + 4).to_le_bytes());
    c.extend([0xff, 0x05]); // inc dword [log]
    c.extend(log.to_le_bytes());
    c.extend([0xff, 0x25]); // jmp [slot]
    c.extend(slot.to_le_bytes());
    h.proc.mem.write_bytes(code, &c).unwrap();
    Logger { proc_: code, log }
}

impl Logger {
    fn take(&self, h: &Harness) -> Vec<u32> {
        let n = h.u32(self.log);
        let v = (0..n).map(|k| h.u32(self.log + 4 + 4 * k)).collect();
        h.proc.mem.write_u32(self.log, 0).unwrap();
        v
    }
}

fn register(h: &mut Harness, lg: &Logger, name: &str) {
    let wc = h.scratch(0x100);
    let nm = wc + 0x80;
    h.put_cstr(nm, name);
    let f = [0u32, lg.proc_, 0, 0, 0, 0, 0, 6, 0, nm];
    for (k, v) in f.iter().enumerate() {
        h.proc.mem.write_u32(wc + 4 * k as u32, *v).unwrap();
    }
    let atom = window::RegisterClass::<CStrPtr>(&mut h.cx(), crate::hle::Ptr(wc)).unwrap();
    assert_ne!(atom, 0);
}

fn create(
    h: &mut Harness,
    class: &str,
    style: u32,
    parent: u32,
    rect: (i32, i32, i32, i32),
) -> u32 {
    window::create_window(
        &mut h.cx(),
        Create {
            exstyle: 0,
            class: NameOrId::Name(class.into()),
            class_ptr: 0,
            name_ptr: 0,
            style,
            x: rect.0,
            y: rect.1,
            w: rect.2,
            h: rect.3,
            parent,
            menu: 0,
            instance: 0,
            param: 0,
            unicode: false,
        },
    )
    .unwrap_or_else(|_| panic!("create_window failed"))
}

const WS_OVERLAPPEDWINDOW: u32 = 0x00cf_0000;
const WS_CHILD: u32 = 0x4000_0000;
const WS_VISIBLE: u32 = 0x1000_0000;
const WM_ERASEBKGND_: u32 = 0x14;

#[test]
fn create_show_destroy_send_messages_in_windows_order() {
    let mut h = Harness::new();
    let lg = setup(&mut h);
    register(&mut h, &lg, "Logged");
    let w = create(&mut h, "Logged", WS_OVERLAPPEDWINDOW, 0, (10, 10, 300, 200));
    assert_eq!(
        lg.take(&h),
        vec![WM_GETMINMAXINFO, WM_NCCREATE, WM_NCCALCSIZE, WM_CREATE,]
    );
    window::show_window(&mut h.cx(), w, 1).unwrap_or_else(|_| panic!("show"));
    assert_eq!(
        lg.take(&h),
        vec![
            WM_SHOWWINDOW,
            WM_WINDOWPOSCHANGING,
            WM_ACTIVATEAPP,
            WM_NCACTIVATE,
            WM_ACTIVATE,
            WM_SETFOCUS,
            WM_WINDOWPOSCHANGED,
            // An overlapped window's first WM_SIZE/WM_MOVE come with its first show.
            WM_SIZE,
            WM_MOVE,
        ]
    );
    assert_eq!(lock_wm(&h.proc).focus, w);
    // The update area turns into WM_PAINT (DefWindowProc erases and validates).
    let m = msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .expect("WM_PAINT pending");
    assert_eq!((m.hwnd, m.message), (w, WM_PAINT));
    msg::dispatch(&mut h.cx(), &m, false).unwrap_or_else(|_| panic!("dispatch"));
    assert_eq!(lg.take(&h), vec![WM_PAINT, WM_ERASEBKGND_]);
    assert!(
        msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
            .unwrap_or_else(|_| panic!("get"))
            .is_none()
    );
    // A child: created, then destroyed with its parent (WM_DESTROY parent first,
    // WM_NCDESTROY child first).
    let c = create(&mut h, "Logged", WS_CHILD | WS_VISIBLE, w, (5, 5, 50, 20));
    let created = lg.take(&h);
    assert_eq!(
        created[..5],
        [WM_NCCREATE, WM_NCCALCSIZE, WM_CREATE, WM_SIZE, WM_MOVE]
    );
    assert_eq!(created[5], WM_PARENTNOTIFY);
    assert!(created.contains(&WM_SHOWWINDOW));
    assert!(window::destroy_window(&mut h.cx(), w).unwrap_or(false));
    let destroyed = lg.take(&h);
    let tail: Vec<u32> = destroyed
        .iter()
        .copied()
        .filter(|&m| matches!(m, WM_DESTROY | WM_NCDESTROY))
        .collect();
    assert_eq!(
        tail,
        vec![WM_DESTROY, WM_DESTROY, WM_NCDESTROY, WM_NCDESTROY]
    );
    assert!(destroyed.starts_with(&[WM_WINDOWPOSCHANGING, WM_WINDOWPOSCHANGED]));
    assert!(lock_wm(&h.proc).win(w).is_none());
    assert!(lock_wm(&h.proc).win(c).is_none());
}

#[test]
fn posted_messages_come_back_in_order_and_peek_can_leave_them() {
    let mut h = Harness::new();
    let lg = setup(&mut h);
    register(&mut h, &lg, "Q");
    let w = create(&mut h, "Q", WS_OVERLAPPEDWINDOW, 0, (0, 0, 100, 100));
    lg.take(&h);
    let post = |h: &mut Harness, m: u32, wp: u32| {
        let r = msg::PostMessageA(&mut h.cx(), w, m, wp, 0).unwrap();
        assert!(r);
    };
    post(&mut h, WM_USER + 1, 11);
    post(&mut h, WM_USER + 2, 22);
    post(&mut h, WM_USER + 3, 33);
    let get = |h: &mut Harness, min: u32, max: u32, remove: bool| {
        msg::get_msg(&mut h.cx(), 0, min, max, remove, Wait::No)
            .unwrap_or_else(|_| panic!("get"))
            .map(|m| (m.message, m.wparam))
    };
    // PM_NOREMOVE leaves it; a range filter skips ahead.
    assert_eq!(get(&mut h, 0, 0, false), Some((WM_USER + 1, 11)));
    assert_eq!(
        get(&mut h, WM_USER + 2, WM_USER + 2, true),
        Some((WM_USER + 2, 22))
    );
    assert_eq!(get(&mut h, 0, 0, true), Some((WM_USER + 1, 11)));
    assert_eq!(get(&mut h, 0, 0, true), Some((WM_USER + 3, 33)));
    assert_eq!(get(&mut h, 0, 0, true), None);
    // WM_QUIT after posted messages; GetMessage's FALSE comes from it.
    msg::PostQuitMessage(&mut h.cx(), 5);
    post(&mut h, WM_USER + 4, 44);
    assert_eq!(get(&mut h, 0, 0, true), Some((WM_USER + 4, 44)));
    assert_eq!(get(&mut h, 0, 0, true), Some((WM_QUIT, 5)));
    // Thread messages have no window; a filter of -1 selects only them.
    let tid = h.thread.tid;
    assert!(msg::PostThreadMessageA(&mut h.cx(), tid, WM_USER + 9, 1, 2).unwrap());
    post(&mut h, WM_USER + 5, 55);
    let m = msg::get_msg(&mut h.cx(), 0xffff_ffff, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .unwrap();
    assert_eq!((m.hwnd, m.message), (0, WM_USER + 9));
    // Dispatch reaches the window procedure.
    let m = msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .unwrap();
    msg::dispatch(&mut h.cx(), &m, false).unwrap_or_else(|_| panic!("dispatch"));
    assert_eq!(lg.take(&h), vec![WM_USER + 5]);
}

#[test]
fn timers_fire_on_the_virtual_clock() {
    let mut h = Harness::with_config(|c| c.deterministic = true);
    let lg = setup(&mut h);
    register(&mut h, &lg, "T");
    let w = create(&mut h, "T", WS_OVERLAPPEDWINDOW, 0, (0, 0, 100, 100));
    assert_eq!(msg::SetTimer(&mut h.cx(), w, 3, 100, 0).unwrap(), 3);
    let get = |h: &mut Harness| {
        msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
            .unwrap_or_else(|_| panic!("get"))
            .map(|m| (m.message, m.wparam))
    };
    assert_eq!(get(&mut h), None);
    let ms = crate::scheduler::INSNS_PER_MS;
    h.thread.exec.counters.insns += 99 * ms;
    assert_eq!(get(&mut h), None, "not due before 100 ms");
    h.thread.exec.counters.insns += ms;
    assert_eq!(get(&mut h), Some((WM_TIMER, 3)));
    assert_eq!(get(&mut h), None, "one WM_TIMER per period");
    h.thread.exec.counters.insns += 100 * ms;
    assert_eq!(get(&mut h), Some((WM_TIMER, 3)));
    assert!(msg::KillTimer(&mut h.cx(), w, 3));
    h.thread.exec.counters.insns += 500 * ms;
    assert_eq!(get(&mut h), None);
}

#[test]
fn send_message_to_another_thread_waits_for_its_reply() {
    let mut h = Harness::new();
    let def = h.proc.resolve_hle("USER32.dll", "DefWindowProcW").unwrap();
    // Thread B registers a class whose procedure is DefWindowProcW, owns a window and
    // runs a message loop in host code; thread A (the harness) sends to it.
    let wc = h.scratch(0x100);
    let nm = wc + 0x80;
    h.put_wstr(nm, "Remote");
    let f = [0u32, def, 0, 0, 0, 0, 0, 6, 0, nm];
    for (k, v) in f.iter().enumerate() {
        h.proc.mem.write_u32(wc + 4 * k as u32, *v).unwrap();
    }
    assert_ne!(
        window::RegisterClass::<WStrPtr>(&mut h.cx(), crate::hle::Ptr(wc)).unwrap(),
        0
    );
    let proc = h.proc.clone();
    let teb = h.thread.teb;
    let stack_b = h.scratch(0x10000);
    let (tx, rx) = std::sync::mpsc::channel();
    let b = std::thread::spawn(move || {
        let mut t = crate::thread::GuestThread::new(&proc, 0x20, teb);
        t.cpu.regs[winterp_core::cpu::ESP] = stack_b + 0xff00;
        // A thread CreateThread made is known to the scheduler before it runs; this
        // host-made one registers itself, or a send that comes before its first
        // wait finds no receiver and returns 0 (seen once on a loaded machine).
        crate::scheduler::register(&proc, &mut t);
        let mut cx = Ctx {
            proc: &proc,
            thread: &mut t,
        };
        let w = window::create_window(
            &mut cx,
            Create {
                exstyle: 0,
                class: NameOrId::Name("Remote".into()),
                class_ptr: 0,
                name_ptr: 0,
                style: WS_OVERLAPPEDWINDOW,
                x: 0,
                y: 0,
                w: 50,
                h: 50,
                parent: 0,
                menu: 0,
                instance: 0,
                param: 0,
                unicode: true,
            },
        )
        .unwrap_or(0);
        tx.send(w).unwrap();
        loop {
            let m = match msg::get_msg(&mut cx, 0, 0, 0, true, Wait::Host) {
                Ok(Some(m)) => m,
                _ => return false,
            };
            if m.message == WM_QUIT {
                return true;
            }
            if msg::dispatch(&mut cx, &m, true).is_err() {
                return false;
            }
        }
    });
    let w = rx.recv().unwrap();
    assert_ne!(w, 0);
    let s = h.scratch(64);
    h.put_cstr(s, "from A");
    let r = fin(msg::send(&mut h.cx(), w, WM_SETTEXT, 0, s, false)).unwrap();
    assert_eq!(r, Outcome::Return(1));
    let r = fin(msg::send(&mut h.cx(), w, WM_GETTEXTLENGTH, 0, 0, false)).unwrap();
    assert_eq!(r, Outcome::Return(6));
    assert_eq!(lock_wm(&h.proc).win(w).unwrap().text, "from A");
    assert_eq!(lock_wm(&h.proc).win(w).unwrap().tid, 0x20);
    assert!(msg::PostThreadMessageW(&mut h.cx(), 0x20, WM_QUIT, 0, 0).unwrap());
    assert!(b.join().unwrap());
}

#[test]
fn mouse_goes_to_the_child_under_the_pointer_in_client_coordinates() {
    let mut h = Harness::new();
    let lg = setup(&mut h);
    register(&mut h, &lg, "M");
    let w = create(
        &mut h,
        "M",
        WS_OVERLAPPEDWINDOW | WS_VISIBLE,
        0,
        (100, 50, 300, 200),
    );
    let c = create(&mut h, "M", WS_CHILD | WS_VISIBLE, w, (20, 10, 40, 30));
    lg.take(&h);
    let proc = h.proc.clone();
    let click = |x, y| {
        crate::user32::input::inject(
            &proc,
            crate::display::InputEvent::MouseButton {
                button: crate::display::MouseButton::Left,
                down: true,
                x,
                y,
            },
        )
    };
    click(25, 15);
    click(5, 6);
    let mut got = Vec::new();
    while let Some(m) = msg::get_msg(
        &mut h.cx(),
        0,
        WM_MOUSEMOVE,
        WM_MBUTTONDBLCLK,
        true,
        Wait::No,
    )
    .unwrap_or_else(|_| panic!("get"))
    {
        got.push((
            m.hwnd,
            m.message,
            m.lparam & 0xffff,
            m.lparam >> 16,
            m.wparam,
        ));
    }
    assert_eq!(
        got,
        vec![(c, WM_LBUTTONDOWN, 5, 5, 1), (w, WM_LBUTTONDOWN, 5, 6, 1)]
    );
    // The press in the child also told the parent, in the parent's coordinates.
    let n = msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .expect("WM_PARENTNOTIFY pending");
    assert_eq!(
        (n.hwnd, n.message, n.wparam & 0xffff, n.lparam),
        (w, WM_PARENTNOTIFY, WM_LBUTTONDOWN, 25 | (15 << 16))
    );
    assert!(
        msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
            .unwrap_or_else(|_| panic!("get"))
            .is_none_or(|m| m.message != WM_PARENTNOTIFY)
    );
    // Key lParam: scan code, extended bit, previous state, transition.
    crate::user32::input::inject(
        &proc,
        crate::display::InputEvent::Key {
            vk: 0x25,
            scancode: 0x4b,
            extended: true,
            down: true,
        },
    );
    crate::user32::input::inject(
        &proc,
        crate::display::InputEvent::Key {
            vk: 0x25,
            scancode: 0x4b,
            extended: true,
            down: false,
        },
    );
    let a = msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .unwrap();
    let b = msg::get_msg(&mut h.cx(), 0, 0, 0, true, Wait::No)
        .unwrap_or_else(|_| panic!("get"))
        .unwrap();
    assert_eq!(
        (a.message, a.wparam, a.lparam),
        (WM_KEYDOWN, 0x25, 0x014b_0001)
    );
    assert_eq!(
        (b.message, b.wparam, b.lparam),
        (WM_KEYUP, 0x25, 0xc14b_0001)
    );
}

/// Appends UTF-16 units of `s` with a NUL.
fn push_w(b: &mut Vec<u8>, s: &str) {
    for u in s.encode_utf16().chain([0]) {
        b.extend(u.to_le_bytes());
    }
}

fn align4(b: &mut Vec<u8>) {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
}

#[test]
fn dialog_template_makes_working_controls() {
    let mut h = Harness::new();
    let _ = setup(&mut h);
    // DLGTEMPLATE: WS_POPUP | WS_CAPTION, three items: EDIT 10, check box 11, sorted
    // LISTBOX 12.
    let mut b = Vec::new();
    for v in [0x80c0_0000u32, 0] {
        b.extend(v.to_le_bytes());
    }
    b.extend(3u16.to_le_bytes());
    for v in [0i16, 0, 100, 60] {
        b.extend(v.to_le_bytes());
    }
    b.extend([0, 0, 0, 0]);
    push_w(&mut b, "Dlg");
    let item = |b: &mut Vec<u8>, style: u32, id: u16, atom: u16, title: &str| {
        align4(b);
        b.extend((style | 0x5000_0000).to_le_bytes());
        b.extend(0u32.to_le_bytes());
        for v in [4i16, 4, 60, 12] {
            b.extend(v.to_le_bytes());
        }
        b.extend(id.to_le_bytes());
        b.extend(0xffffu16.to_le_bytes());
        b.extend(atom.to_le_bytes());
        push_w(b, title);
        b.extend(0u16.to_le_bytes());
    };
    item(&mut b, 0x0081_0000, 10, 0x81, "");
    item(&mut b, 0x0001_0003, 11, 0x80, "Chk");
    item(&mut b, 0x0000_0002, 12, 0x83, "");
    let tpl = h.scratch(0x1000);
    h.proc.mem.write_bytes(tpl, &b).unwrap();
    let Outcome::Return(d) =
        super::dialog::CreateDialogIndirectParam::<WStrPtr>(&mut h.cx(), 0, tpl, 0, 0, 0).unwrap()
    else {
        panic!("no dialog")
    };
    let d = d as u32;
    assert_ne!(d, 0);
    assert_eq!(lock_wm(&h.proc).win(d).unwrap().text, "Dlg");
    let edit = super::dialog::GetDlgItem(&mut h.cx(), d, 10);
    assert_ne!(edit, 0);
    // Dialog units: x 4 -> 6 pixels, cy 12 -> 19 pixels.
    let r = lock_wm(&h.proc).win(edit).unwrap().rect;
    assert_eq!((r.left, r.top, r.height()), (6, 6, 19));
    super::dialog::SetDlgItemInt(&mut h.cx(), d, 10, 42, false).unwrap();
    let ok = h.scratch(4);
    let v = super::dialog::GetDlgItemInt(&mut h.cx(), d, 10, crate::hle::Ptr(ok), false).unwrap();
    assert_eq!((v, h.u32(ok)), (Outcome::Return(42), 1));
    // Typing goes in at the caret (start after WM_SETTEXT); a selection is replaced.
    let send = |h: &mut Harness, w: u32, m: u32, wp: u32, lp: u32| {
        fin(msg::send(&mut h.cx(), w, m, wp, lp, true)).unwrap()
    };
    send(&mut h, edit, WM_CHAR, '7' as u32, 0);
    assert_eq!(lock_wm(&h.proc).win(edit).unwrap().text, "742");
    send(&mut h, edit, 0xb1, 0, u32::MAX);
    send(&mut h, edit, WM_CHAR, 'x' as u32, 0);
    send(&mut h, edit, WM_CHAR, 'y' as u32, 0);
    send(&mut h, edit, WM_CHAR, 8, 0);
    assert_eq!(lock_wm(&h.proc).win(edit).unwrap().text, "x");
    // Check box: CheckDlgButton, then a click toggles it back.
    super::dialog::CheckDlgButton(&mut h.cx(), d, 11, 1).unwrap();
    assert_eq!(
        super::dialog::IsDlgButtonChecked(&mut h.cx(), d, 11).unwrap(),
        Outcome::Return(1)
    );
    let chk = super::dialog::GetDlgItem(&mut h.cx(), d, 11);
    send(&mut h, chk, 0xf5, 0, 0);
    assert_eq!(
        super::dialog::IsDlgButtonChecked(&mut h.cx(), d, 11).unwrap(),
        Outcome::Return(0)
    );
    // Sorted list box.
    let lb = super::dialog::GetDlgItem(&mut h.cx(), d, 12);
    let s = h.scratch(64);
    h.put_wstr(s, "pear");
    send(&mut h, lb, 0x180, 0, s);
    h.put_wstr(s, "apple");
    assert_eq!(send(&mut h, lb, 0x180, 0, s), Outcome::Return(0));
    assert_eq!(send(&mut h, lb, 0x18b, 0, 0), Outcome::Return(2));
    send(&mut h, lb, 0x189, 1, s);
    assert_eq!(h.wstr(s), "pear");
    // Tab moves the focus between WS_TABSTOP controls (edit -> check box).
    super::window::set_focus(&mut h.cx(), edit).unwrap_or_else(|_| panic!("focus"));
    let m = super::wm::Msg {
        hwnd: edit,
        message: WM_KEYDOWN,
        wparam: 9,
        ..Default::default()
    };
    assert!(super::dialog::is_dialog_message(&mut h.cx(), d, &m).unwrap_or(false));
    assert_eq!(lock_wm(&h.proc).focus, chk);
}

#[test]
fn is_window_unicode_follows_the_window_procedure() {
    let mut h = Harness::new();
    let lg = setup(&mut h);
    register(&mut h, &lg, "AnsiClass");
    let w = create(
        &mut h,
        "AnsiClass",
        WS_OVERLAPPEDWINDOW,
        0,
        (0, 0, 100, 100),
    );
    assert!(!window::IsWindowUnicode(&mut h.cx(), w));
    let old =
        window::SetWindowLong::<WStrPtr>(&mut h.cx(), w, window::GWL_WNDPROC, lg.proc_).unwrap();
    assert_ne!(old, 0);
    assert!(window::IsWindowUnicode(&mut h.cx(), w));
    window::SetWindowLong::<CStrPtr>(&mut h.cx(), w, window::GWL_WNDPROC, lg.proc_).unwrap();
    assert!(!window::IsWindowUnicode(&mut h.cx(), w));
    assert!(!window::IsWindowUnicode(&mut h.cx(), 0x1234));
}

#[test]
fn a_visible_window_of_no_size_is_not_the_main_window() {
    // Delphi's TApplication: a visible 0x0 popup that owns the program's forms.
    let mut h = Harness::new();
    let lg = setup(&mut h);
    register(&mut h, &lg, "TApplication");
    let app = create(&mut h, "TApplication", WS_VISIBLE, 0, (0, 0, 0, 0));
    let form = create(
        &mut h,
        "TApplication",
        WS_OVERLAPPEDWINDOW | WS_VISIBLE,
        app,
        (10, 10, 200, 100),
    );
    assert_eq!(lock_wm(&h.proc).main_window(), Some(form));
}

#[test]
fn win_help_without_a_help_engine() {
    // HELP_QUIT closes nothing and succeeds; any other command fails as WinHelp
    // does when winhlp32.exe cannot be started (ERROR_FILE_NOT_FOUND).
    let mut h = Harness::new();
    assert!(window::WinHelp::<CStrPtr>(&mut h.cx(), 0, CStrPtr(0), 2, 0).unwrap());
    assert!(!window::WinHelp::<WStrPtr>(&mut h.cx(), 0, WStrPtr(0), 3, 0).unwrap());
    assert_eq!(h.last_error(), 2);
}
