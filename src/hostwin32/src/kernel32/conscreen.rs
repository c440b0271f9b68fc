//! A console of the process's own: the screen buffer and input buffer of the
//! console Windows creates for a console program started with CREATE_NEW_CONSOLE.
//! USER32 shows it as the console window (`user32::conwin`), as the system's
//! console server does on Windows. A process without one reads and writes the
//! host's standard streams (`console.rs`).
//!
//! The buffer is Windows 9x's: 80 columns by 25 lines, all of it in the window;
//! output that moves the cursor past the last line scrolls the buffer up. Input is
//! a queue of INPUT_RECORDs that only keys typed into the window fill: in a
//! headless run it stays empty, and reads wait as they do on Windows.

#![allow(non_snake_case)]

use crate::objects::KernelObject;
use crate::process::Process;
use crate::scheduler::{Locked, Waitable};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

pub const COLUMNS: i16 = 80;
pub const LINES: i16 = 25;
/// FOREGROUND_RED | FOREGROUND_GREEN | FOREGROUND_BLUE: light grey on black.
pub const DEFAULT_ATTR: u16 = 0x07;
/// An INPUT_RECORD's size.
pub const RECORD: usize = 20;
pub const KEY_EVENT: u16 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub ch: u16,
    pub attr: u16,
}

const BLANK: Cell = Cell {
    ch: b' ' as u16,
    attr: DEFAULT_ATTR,
};

pub struct Screen {
    /// Row-major, `COLUMNS * LINES` cells.
    pub cells: Vec<Cell>,
    pub cursor: (i16, i16),
    /// The attribute written text gets (SetConsoleTextAttribute).
    pub attr: u16,
    pub title: String,
    /// Bumped by every change, so the window repaints only when something changed.
    pub version: u64,
}

impl Screen {
    pub fn new(title: String) -> Screen {
        Screen {
            cells: vec![BLANK; (COLUMNS as usize) * (LINES as usize)],
            cursor: (0, 0),
            attr: DEFAULT_ATTR,
            title,
            version: 1,
        }
    }

    fn at(x: i16, y: i16) -> usize {
        y as usize * COLUMNS as usize + x as usize
    }

    pub fn cell(&self, x: i16, y: i16) -> Cell {
        self.cells[Self::at(x, y)]
    }

    fn scroll_up(&mut self) {
        let w = COLUMNS as usize;
        self.cells.drain(..w);
        self.cells.extend(std::iter::repeat_n(
            Cell {
                ch: b' ' as u16,
                attr: self.attr,
            },
            w,
        ));
    }

    fn newline(&mut self) {
        self.cursor.0 = 0;
        if self.cursor.1 + 1 >= LINES {
            self.scroll_up();
        } else {
            self.cursor.1 += 1;
        }
    }

    /// Writes characters at the cursor. With `processed` (ENABLE_PROCESSED_OUTPUT)
    /// CR, LF, BS, TAB and BEL act instead of showing; with `wrap`
    /// (ENABLE_WRAP_AT_EOL_OUTPUT) text continues on the next line, without it the
    /// last column is overwritten.
    pub fn write(&mut self, text: &[u16], processed: bool, wrap: bool) {
        for &c in text {
            if processed {
                match c {
                    0x0d => {
                        self.cursor.0 = 0;
                        continue;
                    }
                    0x0a => {
                        self.newline();
                        continue;
                    }
                    0x08 => {
                        self.cursor.0 = (self.cursor.0 - 1).max(0);
                        continue;
                    }
                    0x09 => {
                        let next = ((self.cursor.0 / 8) + 1) * 8;
                        for _ in self.cursor.0..next.min(COLUMNS) {
                            self.put(b' ' as u16, wrap);
                        }
                        continue;
                    }
                    0x07 => continue,
                    _ => {}
                }
            }
            self.put(c, wrap);
        }
        self.version += 1;
    }

    fn put(&mut self, c: u16, wrap: bool) {
        let (x, y) = self.cursor;
        let attr = self.attr;
        self.cells[Self::at(x, y)] = Cell { ch: c, attr };
        if x + 1 < COLUMNS {
            self.cursor.0 += 1;
        } else if wrap {
            self.newline();
        }
    }

    /// FillConsoleOutputCharacter/Attribute: `n` cells from `from` on, row by row,
    /// stopping at the end of the buffer; how many were written.
    pub fn fill(&mut self, from: (i16, i16), n: u32, f: impl Fn(&mut Cell)) -> u32 {
        let start = Self::at(from.0, from.1);
        let end = (start + n as usize).min(self.cells.len());
        for c in &mut self.cells[start..end] {
            f(c);
        }
        self.version += 1;
        (end - start) as u32
    }

    /// Whether `(x, y)` lies in the buffer.
    pub fn contains(x: i16, y: i16) -> bool {
        (0..COLUMNS).contains(&x) && (0..LINES).contains(&y)
    }
}

/// The process's own console, shared by its handles, the console window and the
/// wait for input.
pub struct OwnConsole {
    screen: Mutex<Screen>,
}

impl OwnConsole {
    pub fn lock(&self) -> MutexGuard<'_, Screen> {
        self.screen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The console's input buffer: INPUT_RECORDs not read yet, and what line input
/// (ReadConsole in ENABLE_LINE_INPUT mode) has made of them: the line being typed
/// and a finished line not read whole yet. Keys typed into the console window
/// fill it, and WriteConsoleInput; the host terminal's keys are not translated
/// into records, so for a process on the host's console only WriteConsoleInput
/// does.
#[derive(Default)]
pub struct InputState {
    pub records: VecDeque<[u8; RECORD]>,
    pub line: Vec<u16>,
    pub ready: VecDeque<u16>,
}

#[derive(Default)]
pub struct ConsoleInput(Mutex<InputState>);

impl ConsoleInput {
    pub fn lock(&self) -> MutexGuard<'_, InputState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The process's console input buffer.
pub fn input(proc: &Process) -> Arc<ConsoleInput> {
    proc.slot::<ConsoleInput>()
}

/// What a read of console input waits for: records in the input buffer (or a
/// finished line).
pub struct InputWait(pub Arc<ConsoleInput>);

impl KernelObject for InputWait {
    fn type_name(&self) -> &'static str {
        "ConsoleInput"
    }
    fn as_waitable(&self) -> Option<&dyn Waitable> {
        Some(self)
    }
}

impl Waitable for InputWait {
    fn ready(&self, _k: &Locked, _tid: u32) -> bool {
        let s = self.0.lock();
        !s.records.is_empty() || !s.ready.is_empty()
    }
    fn acquire(&self, _k: &Locked, _tid: u32) -> bool {
        false
    }
    fn describe(&self) -> String {
        "console input (no keys arrive in a headless run)".into()
    }
}

#[derive(Default)]
pub struct OwnSlot(Mutex<Option<Arc<OwnConsole>>>);

/// The process's own console, if it has one: a console program started with
/// CREATE_NEW_CONSOLE. Its title starts as the program's path, the title
/// CreateProcess gives a new console when STARTUPINFO names none.
pub fn own_console(proc: &Process) -> Option<Arc<OwnConsole>> {
    if !proc.config.child.as_ref().is_some_and(|c| c.new_console) {
        return None;
    }
    let slot = proc.slot::<OwnSlot>();
    let mut s = slot.0.lock().unwrap_or_else(|e| e.into_inner());
    Some(
        s.get_or_insert_with(|| {
            Arc::new(OwnConsole {
                screen: Mutex::new(Screen::new(proc.config.guest_path.clone())),
            })
        })
        .clone(),
    )
}

/// A KEY_EVENT INPUT_RECORD (the console window's keys).
pub fn key_record(
    down: bool,
    repeat: u16,
    vk: u16,
    scan: u16,
    ch: u16,
    state: u32,
) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[0..2].copy_from_slice(&KEY_EVENT.to_le_bytes());
    r[4..8].copy_from_slice(&u32::from(down).to_le_bytes());
    r[8..10].copy_from_slice(&repeat.to_le_bytes());
    r[10..12].copy_from_slice(&vk.to_le_bytes());
    r[12..14].copy_from_slice(&scan.to_le_bytes());
    r[14..16].copy_from_slice(&ch.to_le_bytes());
    r[16..20].copy_from_slice(&state.to_le_bytes());
    r
}

/// Puts input records into the console's input buffer and wakes readers.
pub fn push_input(proc: &Process, recs: &[[u8; RECORD]]) {
    input(proc).lock().records.extend(recs.iter().copied());
    let k = proc.sched.lock();
    proc.sched.wake(&k);
}

// ---- the console functions that need a screen or the input buffer ----------------------

use super::console::{Console, Stream, console_of};
use super::misc::err;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::scheduler::INFINITE;
use crate::teb::set_last_error;

/// A console handle of the kind asked for (input buffer or screen buffer), else
/// ERROR_INVALID_HANDLE.
fn con_arg(cx: &mut Ctx, h: u32, input: bool) -> ApiResult<Option<Arc<Console>>> {
    match console_of(cx.proc, h) {
        Some(c) if (c.stream == Stream::Input) == input => Ok(Some(c)),
        _ => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            Ok(None)
        }
    }
}

/// The process's own screen buffer for a screen-buffer handle; the host's
/// terminal has no cells to read or place.
fn screen_of(cx: &mut Ctx, h: u32, what: &str) -> ApiResult<Option<Arc<OwnConsole>>> {
    if con_arg(cx, h, false)?.is_none() {
        return Ok(None);
    }
    match own_console(cx.proc) {
        Some(c) => Ok(Some(c)),
        None => Err(ApiError::UnimplementedCase(format!(
            "{what} on the host's terminal (only a console of the process's own has cells)"
        ))),
    }
}

fn coord(v: u32) -> (i16, i16) {
    (v as u16 as i16, (v >> 16) as u16 as i16)
}

fn cp_byte(cx: &mut Ctx, input: bool, u: u16) -> ApiResult<u8> {
    let cp = if input {
        super::console::GetConsoleCP(cx)
    } else {
        super::console::GetConsoleOutputCP(cx)
    };
    let cp = super::string::CodePage::from_arg(cp)?.unwrap_or(super::string::CodePage::Oem437);
    Ok(super::string::unicode_to_byte(cp, u).unwrap_or(b'?'))
}

fn cp_unit(cx: &mut Ctx, input: bool, b: u8) -> ApiResult<u16> {
    let cp = if input {
        super::console::GetConsoleCP(cx)
    } else {
        super::console::GetConsoleOutputCP(cx)
    };
    let cp = super::string::CodePage::from_arg(cp)?.unwrap_or(super::string::CodePage::Oem437);
    Ok(super::string::byte_to_unicode(cp, b))
}

/// ReadConsoleInput (`remove`) and PeekConsoleInput: up to `n` records. A read of
/// an empty buffer waits for input, as on Windows; a peek returns none.
fn read_input(
    cx: &mut Ctx,
    h: u32,
    buf: Ptr,
    n: u32,
    read: Ptr,
    unicode: bool,
    remove: bool,
) -> ApiResult<Outcome> {
    if con_arg(cx, h, true)?.is_none() {
        return Ok(Outcome::Return(0));
    }
    let q = input(cx.proc);
    // A re-called read resumes its wait only if it has to wait again.
    let mut retry = cx.thread.sched.wait.take();
    loop {
        let recs: Vec<[u8; RECORD]> = {
            let mut st = q.lock();
            let k = (n as usize).min(st.records.len());
            if remove {
                st.records.drain(..k).collect()
            } else {
                st.records.iter().take(k).copied().collect()
            }
        };
        if !recs.is_empty() || !remove || n == 0 {
            for (i, r) in recs.iter().enumerate() {
                let mut r = *r;
                if !unicode && u16::from_le_bytes([r[0], r[1]]) == KEY_EVENT {
                    let b = cp_byte(cx, true, u16::from_le_bytes([r[14], r[15]]))?;
                    r[14..16].copy_from_slice(&u16::from(b).to_le_bytes());
                }
                cx.proc.mem.write_bytes(buf.0 + (i * RECORD) as u32, &r)?;
            }
            if !read.is_null() {
                cx.proc.mem.write_u32(read.0, recs.len() as u32)?;
            }
            return Ok(Outcome::Return(1));
        }
        cx.thread.sched.wait = retry.take();
        let w: Arc<dyn KernelObject> = Arc::new(InputWait(q.clone()));
        match crate::scheduler::wait_for(cx, vec![w], false, INFINITE) {
            Outcome::Return(_) => {}
            o => return Ok(o),
        }
    }
}

pub fn ReadConsoleInputA(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsRead: Ptr,
) -> ApiResult<Outcome> {
    read_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsRead,
        false,
        true,
    )
}

pub fn ReadConsoleInputW(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsRead: Ptr,
) -> ApiResult<Outcome> {
    read_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsRead,
        true,
        true,
    )
}

pub fn PeekConsoleInputA(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsRead: Ptr,
) -> ApiResult<Outcome> {
    read_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsRead,
        false,
        false,
    )
}

pub fn PeekConsoleInputW(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsRead: Ptr,
) -> ApiResult<Outcome> {
    read_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsRead,
        true,
        false,
    )
}

pub fn GetNumberOfConsoleInputEvents(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpNumberOfEvents: Ptr,
) -> ApiResult<bool> {
    if con_arg(cx, hConsoleInput, true)?.is_none() {
        return Ok(false);
    }
    let n = input(cx.proc).lock().records.len() as u32;
    cx.proc.mem.write_u32(lpNumberOfEvents.0, n)?;
    Ok(true)
}

fn write_input(
    cx: &mut Ctx,
    h: u32,
    buf: Ptr,
    n: u32,
    written: Ptr,
    unicode: bool,
) -> ApiResult<bool> {
    if con_arg(cx, h, true)?.is_none() {
        return Ok(false);
    }
    let mut recs = Vec::with_capacity(n as usize);
    for i in 0..n {
        let mut r = [0u8; RECORD];
        cx.proc.mem.read_bytes(buf.0 + i * RECORD as u32, &mut r)?;
        if !unicode && u16::from_le_bytes([r[0], r[1]]) == KEY_EVENT {
            let u = cp_unit(cx, true, r[14])?;
            r[14..16].copy_from_slice(&u.to_le_bytes());
        }
        recs.push(r);
    }
    push_input(cx.proc, &recs);
    if !written.is_null() {
        cx.proc.mem.write_u32(written.0, n)?;
    }
    Ok(true)
}

pub fn WriteConsoleInputA(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsWritten: Ptr,
) -> ApiResult<bool> {
    write_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsWritten,
        false,
    )
}

pub fn WriteConsoleInputW(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nLength: u32,
    lpNumberOfEventsWritten: Ptr,
) -> ApiResult<bool> {
    write_input(
        cx,
        hConsoleInput,
        lpBuffer,
        nLength,
        lpNumberOfEventsWritten,
        true,
    )
}

pub fn FlushConsoleInputBuffer(cx: &mut Ctx, hConsoleInput: u32) -> ApiResult<bool> {
    if con_arg(cx, hConsoleInput, true)?.is_none() {
        return Ok(false);
    }
    let q = input(cx.proc);
    let mut st = q.lock();
    st.records.clear();
    st.line.clear();
    st.ready.clear();
    Ok(true)
}

/// Line and character input from the input buffer (ReadConsole on a console of
/// the process's own): in ENABLE_LINE_INPUT mode the characters typed collect
/// until Enter (Backspace takes one back) and the line is returned with CR LF;
/// ENABLE_ECHO_INPUT shows what is typed. Waits while there is nothing to return.
pub fn read_chars(
    cx: &mut Ctx,
    con: &Console,
    own: &OwnConsole,
    n: u32,
) -> ApiResult<Result<Vec<u16>, Outcome>> {
    let mode = *con.mode.lock().unwrap_or_else(|e| e.into_inner());
    let line_mode = mode & super::console::ENABLE_LINE_INPUT != 0;
    let echo = mode & super::console::ENABLE_ECHO_INPUT != 0;
    let q = input(cx.proc);
    let mut retry = cx.thread.sched.wait.take();
    loop {
        {
            let mut st = q.lock();
            let mut shown: Vec<u16> = Vec::new();
            while st.ready.is_empty() {
                let Some(r) = st.records.pop_front() else {
                    break;
                };
                let down = u32::from_le_bytes([r[4], r[5], r[6], r[7]]) != 0;
                let ch = u16::from_le_bytes([r[14], r[15]]);
                if u16::from_le_bytes([r[0], r[1]]) != KEY_EVENT || !down || ch == 0 {
                    continue;
                }
                if !line_mode {
                    st.ready.push_back(ch);
                    shown.push(ch);
                    continue;
                }
                match ch {
                    0x0d => {
                        let mut l = std::mem::take(&mut st.line);
                        l.extend([0x0d, 0x0a]);
                        st.ready.extend(l);
                        shown.extend([0x0d, 0x0a]);
                    }
                    0x08 => {
                        if st.line.pop().is_some() {
                            shown.extend([0x08, 0x20, 0x08]);
                        }
                    }
                    c => {
                        st.line.push(c);
                        shown.push(c);
                    }
                }
            }
            if echo && !shown.is_empty() {
                own.lock().write(&shown, true, true);
            }
            if !st.ready.is_empty() {
                let k = (n as usize).min(st.ready.len());
                return Ok(Ok(st.ready.drain(..k).collect()));
            }
        }
        cx.thread.sched.wait = retry.take();
        let w: Arc<dyn KernelObject> = Arc::new(InputWait(q.clone()));
        match crate::scheduler::wait_for(cx, vec![w], false, INFINITE) {
            Outcome::Return(_) => {}
            o => return Ok(Err(o)),
        }
    }
}

pub fn SetConsoleCursorPosition(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    dwCursorPosition: u32,
) -> ApiResult<bool> {
    let Some(con) = screen_of(cx, hConsoleOutput, "SetConsoleCursorPosition")? else {
        return Ok(false);
    };
    let (x, y) = coord(dwCursorPosition);
    if !Screen::contains(x, y) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let mut s = con.lock();
    s.cursor = (x, y);
    s.version += 1;
    Ok(true)
}

pub fn SetConsoleTextAttribute(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    wAttributes: u32,
) -> ApiResult<bool> {
    let Some(con) = screen_of(cx, hConsoleOutput, "SetConsoleTextAttribute")? else {
        return Ok(false);
    };
    con.lock().attr = wAttributes as u16;
    Ok(true)
}

fn fill(
    cx: &mut Ctx,
    h: u32,
    n: u32,
    at: u32,
    written: Ptr,
    what: &str,
    f: impl Fn(&mut Cell),
) -> ApiResult<bool> {
    let Some(con) = screen_of(cx, h, what)? else {
        return Ok(false);
    };
    let (x, y) = coord(at);
    if !Screen::contains(x, y) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let k = con.lock().fill((x, y), n, f);
    cx.proc.mem.write_u32(written.0, k)?;
    Ok(true)
}

pub fn FillConsoleOutputCharacterA(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    cCharacter: u32,
    nLength: u32,
    dwWriteCoord: u32,
    lpNumberOfCharsWritten: Ptr,
) -> ApiResult<bool> {
    let u = cp_unit(cx, false, cCharacter as u8)?;
    fill(
        cx,
        hConsoleOutput,
        nLength,
        dwWriteCoord,
        lpNumberOfCharsWritten,
        "FillConsoleOutputCharacterA",
        |c| c.ch = u,
    )
}

pub fn FillConsoleOutputCharacterW(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    cCharacter: u32,
    nLength: u32,
    dwWriteCoord: u32,
    lpNumberOfCharsWritten: Ptr,
) -> ApiResult<bool> {
    let u = cCharacter as u16;
    fill(
        cx,
        hConsoleOutput,
        nLength,
        dwWriteCoord,
        lpNumberOfCharsWritten,
        "FillConsoleOutputCharacterW",
        |c| c.ch = u,
    )
}

pub fn FillConsoleOutputAttribute(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    wAttribute: u32,
    nLength: u32,
    dwWriteCoord: u32,
    lpNumberOfAttrsWritten: Ptr,
) -> ApiResult<bool> {
    let a = wAttribute as u16;
    fill(
        cx,
        hConsoleOutput,
        nLength,
        dwWriteCoord,
        lpNumberOfAttrsWritten,
        "FillConsoleOutputAttribute",
        |c| c.attr = a,
    )
}

/// The title of a process on the host's terminal (which shows none).
#[derive(Default)]
struct HostTitle(Mutex<Option<String>>);

/// The console's title: its own console's, else what SetConsoleTitle last gave
/// the host's, else the program's path (the title a new console starts with).
pub fn title(proc: &Process) -> String {
    if let Some(c) = own_console(proc) {
        return c.lock().title.clone();
    }
    proc.slot::<HostTitle>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| proc.config.guest_path.clone())
}

pub fn set_title(proc: &Process, t: String) {
    if let Some(c) = own_console(proc) {
        let mut s = c.lock();
        s.title = t;
        s.version += 1;
        return;
    }
    log::info!("console title: {t}");
    *proc
        .slot::<HostTitle>()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(t);
}

pub fn SetConsoleTitleA(cx: &mut Ctx, lpConsoleTitle: Ptr) -> ApiResult<bool> {
    let t = super::string::read_ansi(cx.proc, lpConsoleTitle.0)?;
    set_title(cx.proc, t);
    Ok(true)
}

pub fn SetConsoleTitleW(cx: &mut Ctx, lpConsoleTitle: Ptr) -> ApiResult<bool> {
    let t = String::from_utf16_lossy(&super::string::read_wide(cx.proc, lpConsoleTitle.0)?);
    set_title(cx.proc, t);
    Ok(true)
}

/// Copies as much of the title as fits with its terminator into `nSize`
/// characters and returns the title's length.
pub fn GetConsoleTitleA(cx: &mut Ctx, lpConsoleTitle: Ptr, nSize: u32) -> ApiResult<u32> {
    let t = super::string::encode_ansi(&title(cx.proc));
    if nSize > 0 {
        let k = t.len().min(nSize as usize - 1);
        let mut b = t[..k].to_vec();
        b.push(0);
        cx.proc.mem.write_bytes(lpConsoleTitle.0, &b)?;
    }
    Ok(t.len() as u32)
}

pub fn GetConsoleTitleW(cx: &mut Ctx, lpConsoleTitle: Ptr, nSize: u32) -> ApiResult<u32> {
    let t: Vec<u16> = title(cx.proc).encode_utf16().collect();
    if nSize > 0 {
        let k = t.len().min(nSize as usize - 1);
        let mut u = t[..k].to_vec();
        u.push(0);
        super::string::write_wide(cx.proc, lpConsoleTitle.0, &u)?;
    }
    Ok(t.len() as u32)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ReadConsoleInputA", ReadConsoleInputA),
        stdcall("ReadConsoleInputW", ReadConsoleInputW),
        stdcall("PeekConsoleInputA", PeekConsoleInputA),
        stdcall("PeekConsoleInputW", PeekConsoleInputW),
        stdcall(
            "GetNumberOfConsoleInputEvents",
            GetNumberOfConsoleInputEvents,
        ),
        stdcall("WriteConsoleInputA", WriteConsoleInputA),
        stdcall("WriteConsoleInputW", WriteConsoleInputW),
        stdcall("FlushConsoleInputBuffer", FlushConsoleInputBuffer),
        stdcall("SetConsoleCursorPosition", SetConsoleCursorPosition),
        stdcall("SetConsoleTextAttribute", SetConsoleTextAttribute),
        stdcall("FillConsoleOutputCharacterA", FillConsoleOutputCharacterA),
        stdcall("FillConsoleOutputCharacterW", FillConsoleOutputCharacterW),
        stdcall("FillConsoleOutputAttribute", FillConsoleOutputAttribute),
        stdcall("SetConsoleTitleA", SetConsoleTitleA),
        stdcall("SetConsoleTitleW", SetConsoleTitleW),
        stdcall("GetConsoleTitleA", GetConsoleTitleA),
        stdcall("GetConsoleTitleW", GetConsoleTitleW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &Screen, y: i16) -> String {
        (0..COLUMNS)
            .map(|x| char::from_u32(s.cell(x, y).ch as u32).unwrap())
            .collect::<String>()
            .trim_end()
            .to_string()
    }

    fn w(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn processed_output_moves_the_cursor() {
        let mut s = Screen::new(String::new());
        s.write(&w("ab\r\ncd\tx\x08y"), true, true);
        assert_eq!(text(&s, 0), "ab");
        assert_eq!(text(&s, 1), "cd      y");
        assert_eq!(s.cursor, (9, 1));
        // Unprocessed, control characters are shown as they are.
        s.write(&w("\r"), false, true);
        assert_eq!(s.cell(9, 1).ch, 0x0d);
    }

    #[test]
    fn the_last_line_scrolls_and_long_lines_wrap() {
        let mut s = Screen::new(String::new());
        for k in 0..LINES {
            s.write(&w(&format!("line {k}\n")), true, true);
        }
        // 25 newlines from the top: the first line scrolled away.
        assert_eq!(text(&s, 0), "line 1");
        assert_eq!(text(&s, LINES - 2), "line 24");
        assert_eq!(s.cursor, (0, LINES - 1));
        let long: String = "x".repeat(COLUMNS as usize + 3);
        s.write(&w(&long), true, true);
        assert_eq!(s.cursor, (3, LINES - 1));
        assert_eq!(text(&s, LINES - 1), "xxx");
        // Without wrapping the last column is overwritten.
        let mut t = Screen::new(String::new());
        t.write(
            &w(&format!("{}yz", "x".repeat(COLUMNS as usize - 1))),
            true,
            false,
        );
        assert_eq!(t.cursor, (COLUMNS - 1, 0));
        assert_eq!(t.cell(COLUMNS - 1, 0).ch, b'z' as u16);
    }

    #[test]
    fn a_tab_at_the_end_of_a_line_wraps_once() {
        let mut s = Screen::new(String::new());
        s.write(&w(&"x".repeat(COLUMNS as usize - 3)), true, true);
        s.write(&w("\ty"), true, true);
        assert_eq!(s.cursor, (1, 1));
        assert_eq!(text(&s, 1), "y");
    }

    #[test]
    fn fills_stop_at_the_end_of_the_buffer() {
        let mut s = Screen::new(String::new());
        let n = s.fill((COLUMNS - 2, LINES - 1), 10, |c| c.ch = b'#' as u16);
        assert_eq!(n, 2);
        let n = s.fill((0, 1), 100, |c| c.attr = 0x1f);
        assert_eq!(n, 100);
        assert_eq!(s.cell(19, 2).attr, 0x1f);
        assert_eq!(s.cell(20, 2).attr, DEFAULT_ATTR);
    }
}
