//! The console window: what the system's console server shows for a process's
//! own console ([`crate::kernel32::conscreen`]): a top-level window of class
//! ConsoleWindowClass, titled with the console's title, whose client area shows
//! the screen buffer's 80x25 cells in the 8x12 character cell of Windows 9x's
//! console font, in the console's 16 colours, with the cursor as a bar.
//!
//! The window belongs to the console server, not to a thread of the program
//! (its thread id is 0): messages sent to it are answered on the sender's thread
//! by DefWindowProc, and it is made and repainted from the screen buffer when the
//! frame is composed, so a program that never pumps messages (every console
//! program) still shows it.

use super::lock_wm;
use super::wm::{self, Class, CtlState, Window};
use crate::gdi32::Rect;
use crate::kernel32::conscreen::{self, COLUMNS, LINES};
use crate::process::Process;
use std::sync::Mutex;

/// The console font's character cell.
pub const CELL_W: i32 = 8;
pub const CELL_H: i32 = 12;

const WS_OVERLAPPEDWINDOW: u32 = 0x00cf_0000;

/// The console's colours: attribute bits FOREGROUND_BLUE, _GREEN, _RED,
/// _INTENSITY (and the same four bits above them for the background).
const PALETTE: [u32; 16] = [
    0x000000, 0x000080, 0x008000, 0x008080, 0x800000, 0x800080, 0x808000, 0xc0c0c0, 0x808080,
    0x0000ff, 0x00ff00, 0x00ffff, 0xff0000, 0xff00ff, 0xffff00, 0xffffff,
];

/// The console window of this process and the buffer version it shows.
#[derive(Default)]
struct ConWin(Mutex<(u32, u64)>);

/// The console window's handle, once it exists.
pub fn console_window(proc: &Process) -> u32 {
    proc.slot::<ConWin>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
}

/// Makes the console window if the process has its own console and none yet,
/// and brings its title and picture up to date with the console.
pub fn sync(proc: &Process) {
    let Some(con) = conscreen::own_console(proc) else {
        return;
    };
    let slot = proc.slot::<ConWin>();
    let mut st = slot.0.lock().unwrap_or_else(|e| e.into_inner());
    if st.0 == 0 {
        st.0 = create(proc);
    }
    let hwnd = st.0;
    let (version, title, cells, cursor) = {
        let s = con.lock();
        (s.version, s.title.clone(), s.cells.clone(), s.cursor)
    };
    let mut wm = lock_wm(proc);
    let Some(w) = wm.win_mut(hwnd) else { return };
    if w.text != title {
        w.text = title;
    }
    if st.1 == version {
        return;
    }
    st.1 = version;
    let Some(sref) = w.surface.clone() else {
        return;
    };
    let client = w.client;
    drop(wm);
    let mut s = sref.lock().unwrap_or_else(|e| e.into_inner());
    paint(&mut s, client, &cells, cursor);
}

fn create(proc: &Process) -> u32 {
    let mut wm = lock_wm(proc);
    let class = match wm
        .classes
        .iter()
        .position(|c| c.as_ref().is_some_and(|c| c.name == "ConsoleWindowClass"))
    {
        Some(k) => k,
        None => {
            let atom = wm.alloc_atom("ConsoleWindowClass");
            wm.classes.push(Some(Class {
                name: "ConsoleWindowClass".into(),
                atom,
                style: 0,
                // DefWindowProc's marker: the console server answers for it.
                wndproc: 0x8000_0000 | wm::Builtin::DefWindow as u32,
                unicode: true,
                cls_extra: Vec::new(),
                wnd_extra: 0,
                instance: 0,
                icon: 0,
                icon_sm: 0,
                cursor: 0,
                background: 0,
                menu_name: 0,
                system: true,
            }));
            wm.classes.len() - 1
        }
    };
    let client = Rect::new(0, 0, COLUMNS as i32 * CELL_W, LINES as i32 * CELL_H);
    let r = super::window::adjust_rect(client, WS_OVERLAPPEDWINDOW, false, 0);
    let n = wm.top.len() as i32 % 8;
    let (x, y) = (26 + 26 * n, 26 + 26 * n);
    let rect = Rect::new(x, y, x + r.width(), y + r.height());
    let hwnd = wm.alloc_hwnd();
    wm.windows.insert(
        hwnd,
        Window {
            hwnd,
            class,
            parent: 0,
            owner: 0,
            children: Vec::new(),
            style: WS_OVERLAPPEDWINDOW | wm::WS_VISIBLE,
            exstyle: 0,
            rect,
            client: Rect::default(),
            wndproc: 0x8000_0000 | wm::Builtin::DefWindow as u32,
            unicode: true,
            text: String::new(),
            id: 0,
            instance: 0,
            userdata: 0,
            extra: Vec::new(),
            tid: 0,
            update: None,
            erase: false,
            surface: Some(wm::new_surface(rect.width(), rect.height())),
            props: Default::default(),
            ctl: CtlState::default(),
            dlg: None,
            destroying: false,
            icon: [0, 0],
            cursor_class: 0,
            subclasses: Vec::new(),
            subclass_orig: (0, false),
            subclass_pos: Vec::new(),
            need_size: false,
            scroll: None,
        },
    );
    wm.top.insert(0, hwnd);
    wm.recalc_client(hwnd);
    // A console program has no window of its own: typing goes to its console.
    if wm.active == 0 {
        wm.active = hwnd;
    }
    hwnd
}

/// Draws the cells into the client area `client` of the window's surface.
fn paint(
    s: &mut crate::gdi32::Surface,
    client: Rect,
    cells: &[conscreen::Cell],
    cursor: (i16, i16),
) {
    let mut lf = crate::gdi32::objects::LogFont::simple(CELL_H, 400, 0x31, "Terminal");
    lf.width = CELL_W;
    let fi = crate::gdi32::text::font_info(&lf);
    let clip = client;
    crate::gdi32::raster::with_surface(s, clip, |r| {
        for y in 0..LINES {
            for x in 0..COLUMNS {
                let c = cells[y as usize * COLUMNS as usize + x as usize];
                let (fg, bg) = (
                    PALETTE[(c.attr & 0xf) as usize],
                    PALETTE[(c.attr >> 4 & 0xf) as usize],
                );
                let left = client.left + x as i32 * CELL_W;
                let top = client.top + y as i32 * CELL_H;
                for py in top..top + CELL_H {
                    r.span(py, left, left + CELL_W, |_, _| bg);
                }
                if let Some(ch) = char::from_u32(c.ch as u32)
                    && c.ch > 0x20
                {
                    crate::gdi32::text::draw_glyphs(
                        r,
                        &fi,
                        &[ch],
                        &[left],
                        top + fi.ascent,
                        fg,
                        false,
                    );
                }
                if (x, y) == cursor {
                    // The cursor: the bottom quarter of the cell, as Windows' default
                    // cursor size (25) draws it.
                    for py in top + CELL_H * 3 / 4..top + CELL_H {
                        r.span(py, left, left + CELL_W, |_, _| fg);
                    }
                }
            }
        }
    });
}
