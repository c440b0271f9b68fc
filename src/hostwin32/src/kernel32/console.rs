//! KERNEL32 console: the standard handles' objects (writes go to the host's
//! stdout/stderr, reads come from its stdin), WriteConsole/ReadConsole, console
//! modes, code pages and control handlers.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::objects::KernelObject;
use crate::process::Process;
use crate::teb::set_last_error;
use std::sync::{Arc, Mutex};

use super::misc::err;
use super::string::{ANSI_CP, OEM_CP};

/// Which standard stream a console handle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Input,
    Output,
    Error,
}

pub const ENABLE_PROCESSED_INPUT: u32 = 0x1;
pub const ENABLE_LINE_INPUT: u32 = 0x2;
pub const ENABLE_ECHO_INPUT: u32 = 0x4;
pub const ENABLE_PROCESSED_OUTPUT: u32 = 0x1;
pub const ENABLE_WRAP_AT_EOL_OUTPUT: u32 = 0x2;

/// A console input buffer or screen buffer handle.
pub struct Console {
    pub stream: Stream,
    /// GetConsoleMode/SetConsoleMode value.
    pub mode: Mutex<u32>,
}

impl KernelObject for Console {
    fn type_name(&self) -> &'static str {
        "Console"
    }
}

impl Console {
    pub fn new(stream: Stream) -> Console {
        let mode = match stream {
            Stream::Input => ENABLE_PROCESSED_INPUT | ENABLE_LINE_INPUT | ENABLE_ECHO_INPUT,
            _ => ENABLE_PROCESSED_OUTPUT | ENABLE_WRAP_AT_EOL_OUTPUT,
        };
        Console {
            stream,
            mode: Mutex::new(mode),
        }
    }

    /// Writes bytes in the console output code page: to the process's own console
    /// if it has one, else to the host stream; false for an input handle.
    pub fn write(&self, proc: &Process, bytes: &[u8]) -> bool {
        if let Some(own) = super::conscreen::own_console(proc) {
            let cp = super::string::CodePage::from_arg(output_cp(proc))
                .ok()
                .flatten()
                .unwrap_or(super::string::CodePage::Oem437);
            let units: Vec<u16> = bytes
                .iter()
                .map(|&b| super::string::byte_to_unicode(cp, b))
                .collect();
            return self.write_own(&own, &units);
        }
        match self.stream {
            Stream::Output => proc.host.stdout(bytes),
            Stream::Error => proc.host.stderr(bytes),
            Stream::Input => return false,
        }
        true
    }

    /// Writes UTF-16 text: into the process's own console, else to the host
    /// stream (the host terminal speaks UTF-8).
    pub fn write_units(&self, proc: &Process, units: &[u16]) -> bool {
        if let Some(own) = super::conscreen::own_console(proc) {
            return self.write_own(&own, units);
        }
        self.write(proc, String::from_utf16_lossy(units).as_bytes())
    }

    fn write_own(&self, own: &super::conscreen::OwnConsole, units: &[u16]) -> bool {
        if self.stream == Stream::Input {
            return false;
        }
        let mode = *self.mode.lock().unwrap_or_else(|e| e.into_inner());
        own.lock().write(
            units,
            mode & ENABLE_PROCESSED_OUTPUT != 0,
            mode & ENABLE_WRAP_AT_EOL_OUTPUT != 0,
        );
        true
    }

    /// Reads from the host's stdin; `None` for an output handle.
    pub fn read(&self, proc: &Process, buf: &mut [u8]) -> Option<usize> {
        match self.stream {
            Stream::Input => Some(proc.host.stdin(buf)),
            _ => None,
        }
    }
}

/// Process-wide console state.
#[derive(Default)]
pub struct ConsoleState {
    /// SetConsoleCtrlHandler routines, most recent last.
    ctrl_handlers: Mutex<Vec<u32>>,
    /// The process ignores Ctrl+C (SetConsoleCtrlHandler(NULL, TRUE)).
    ignore_ctrl_c: Mutex<bool>,
    input_cp: Mutex<Option<u32>>,
    output_cp: Mutex<Option<u32>>,
}

/// Registered console control handlers (most recent last), for whoever delivers
/// Ctrl+C to the guest.
pub fn ctrl_handlers(proc: &Process) -> Vec<u32> {
    proc.k32
        .console
        .ctrl_handlers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// The console object behind a handle, if it is one.
pub fn console_of(proc: &Arc<Process>, h: u32) -> Option<Arc<Console>> {
    proc.handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<Console>(h)
}

fn console_arg(cx: &mut Ctx, h: u32) -> ApiResult<Option<Arc<Console>>> {
    let c = console_of(cx.proc, h);
    if c.is_none() {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    }
    Ok(c)
}

pub fn WriteConsoleA(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    lpBuffer: Ptr,
    nNumberOfCharsToWrite: u32,
    lpNumberOfCharsWritten: Ptr,
    _lpReserved: u32,
) -> ApiResult<bool> {
    let Some(c) = console_arg(cx, hConsoleOutput)? else {
        return Ok(false);
    };
    let mut b = vec![0u8; nNumberOfCharsToWrite as usize];
    cx.proc.mem.read_bytes(lpBuffer.0, &mut b)?;
    if !c.write(cx.proc, &b) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    if !lpNumberOfCharsWritten.is_null() {
        cx.proc
            .mem
            .write_u32(lpNumberOfCharsWritten.0, nNumberOfCharsToWrite)?;
    }
    Ok(true)
}

pub fn WriteConsoleW(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    lpBuffer: Ptr,
    nNumberOfCharsToWrite: u32,
    lpNumberOfCharsWritten: Ptr,
    _lpReserved: u32,
) -> ApiResult<bool> {
    let Some(c) = console_arg(cx, hConsoleOutput)? else {
        return Ok(false);
    };
    let mut b = vec![0u8; 2 * nNumberOfCharsToWrite as usize];
    cx.proc.mem.read_bytes(lpBuffer.0, &mut b)?;
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    if !c.write_units(cx.proc, &units) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    if !lpNumberOfCharsWritten.is_null() {
        cx.proc
            .mem
            .write_u32(lpNumberOfCharsWritten.0, nNumberOfCharsToWrite)?;
    }
    Ok(true)
}

pub fn ReadConsoleA(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nNumberOfCharsToRead: u32,
    lpNumberOfCharsRead: Ptr,
    _pInputControl: u32,
) -> ApiResult<Outcome> {
    let Some(c) = console_arg(cx, hConsoleInput)? else {
        return Ok(Outcome::Return(0));
    };
    if let Some(own) = super::conscreen::own_console(cx.proc)
        && c.stream == Stream::Input
    {
        let units = match super::conscreen::read_chars(cx, &c, &own, nNumberOfCharsToRead)? {
            Ok(u) => u,
            Err(o) => return Ok(o),
        };
        let cp = super::string::CodePage::from_arg(GetConsoleCP(cx))?
            .unwrap_or(super::string::CodePage::Oem437);
        let b: Vec<u8> = units
            .iter()
            .map(|&u| super::string::unicode_to_byte(cp, u).unwrap_or(b'?'))
            .collect();
        cx.proc.mem.write_bytes(lpBuffer.0, &b)?;
        if !lpNumberOfCharsRead.is_null() {
            cx.proc
                .mem
                .write_u32(lpNumberOfCharsRead.0, b.len() as u32)?;
        }
        return Ok(Outcome::Return(1));
    }
    let mut b = vec![0u8; nNumberOfCharsToRead as usize];
    let Some(n) = c.read(cx.proc, &mut b) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(Outcome::Return(0));
    };
    cx.proc.mem.write_bytes(lpBuffer.0, &b[..n])?;
    if !lpNumberOfCharsRead.is_null() {
        cx.proc.mem.write_u32(lpNumberOfCharsRead.0, n as u32)?;
    }
    Ok(Outcome::Return(1))
}

/// ReadConsoleA's bytes in the console input code page, as UTF-16.
pub fn ReadConsoleW(
    cx: &mut Ctx,
    hConsoleInput: u32,
    lpBuffer: Ptr,
    nNumberOfCharsToRead: u32,
    lpNumberOfCharsRead: Ptr,
    _pInputControl: u32,
) -> ApiResult<Outcome> {
    let Some(c) = console_arg(cx, hConsoleInput)? else {
        return Ok(Outcome::Return(0));
    };
    if let Some(own) = super::conscreen::own_console(cx.proc)
        && c.stream == Stream::Input
    {
        let units = match super::conscreen::read_chars(cx, &c, &own, nNumberOfCharsToRead)? {
            Ok(u) => u,
            Err(o) => return Ok(o),
        };
        super::string::write_wide(cx.proc, lpBuffer.0, &units)?;
        if !lpNumberOfCharsRead.is_null() {
            cx.proc
                .mem
                .write_u32(lpNumberOfCharsRead.0, units.len() as u32)?;
        }
        return Ok(Outcome::Return(1));
    }
    let mut b = vec![0u8; nNumberOfCharsToRead as usize];
    let Some(n) = c.read(cx.proc, &mut b) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(Outcome::Return(0));
    };
    let cp = super::string::CodePage::from_arg(GetConsoleCP(cx))?
        .unwrap_or(super::string::CodePage::Oem437);
    let units: Vec<u16> = b[..n]
        .iter()
        .map(|&x| super::string::byte_to_unicode(cp, x))
        .collect();
    super::string::write_wide(cx.proc, lpBuffer.0, &units)?;
    if !lpNumberOfCharsRead.is_null() {
        cx.proc.mem.write_u32(lpNumberOfCharsRead.0, n as u32)?;
    }
    Ok(Outcome::Return(1))
}

pub fn GetConsoleMode(cx: &mut Ctx, hConsoleHandle: u32, lpMode: Ptr) -> ApiResult<bool> {
    let Some(c) = console_arg(cx, hConsoleHandle)? else {
        return Ok(false);
    };
    let m = *c.mode.lock().unwrap_or_else(|e| e.into_inner());
    cx.proc.mem.write_u32(lpMode.0, m)?;
    Ok(true)
}

pub fn SetConsoleMode(cx: &mut Ctx, hConsoleHandle: u32, dwMode: u32) -> ApiResult<bool> {
    let Some(c) = console_arg(cx, hConsoleHandle)? else {
        return Ok(false);
    };
    *c.mode.lock().unwrap_or_else(|e| e.into_inner()) = dwMode;
    Ok(true)
}

pub fn SetConsoleCtrlHandler(cx: &mut Ctx, HandlerRoutine: u32, Add: bool) -> ApiResult<bool> {
    let st = &cx.proc.k32.console;
    if HandlerRoutine == 0 {
        *st.ignore_ctrl_c.lock().unwrap_or_else(|e| e.into_inner()) = Add;
        return Ok(true);
    }
    let mut v = st.ctrl_handlers.lock().unwrap_or_else(|e| e.into_inner());
    if Add {
        v.push(HandlerRoutine);
        return Ok(true);
    }
    match v.iter().rposition(|&h| h == HandlerRoutine) {
        Some(k) => {
            v.remove(k);
            Ok(true)
        }
        None => {
            drop(v);
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(false)
        }
    }
}

pub fn GetConsoleCP(cx: &mut Ctx) -> u32 {
    cx.proc
        .k32
        .console
        .input_cp
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or(OEM_CP)
}

pub fn GetConsoleOutputCP(cx: &mut Ctx) -> u32 {
    output_cp(cx.proc)
}

fn output_cp(proc: &Process) -> u32 {
    proc.k32
        .console
        .output_cp
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or(OEM_CP)
}

fn valid_cp(cp: u32) -> bool {
    matches!(cp, OEM_CP | ANSI_CP | super::string::CP_UTF8)
}

pub fn SetConsoleCP(cx: &mut Ctx, wCodePageID: u32) -> ApiResult<bool> {
    if !valid_cp(wCodePageID) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    *cx.proc
        .k32
        .console
        .input_cp
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(wCodePageID);
    Ok(true)
}

pub fn SetConsoleOutputCP(cx: &mut Ctx, wCodePageID: u32) -> ApiResult<bool> {
    if !valid_cp(wCodePageID) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    *cx.proc
        .k32
        .console
        .output_cp
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(wCodePageID);
    Ok(true)
}

/// The process always has its host's console, so these succeed without effect.
pub fn AllocConsole(_cx: &mut Ctx) -> bool {
    true
}

pub fn FreeConsole(_cx: &mut Ctx) -> bool {
    true
}

/// The screen buffer the headless console reports: Windows' default console, 80
/// columns by 300 lines with an 80x25 window at the top, light grey on black. The
/// host terminal keeps the real cursor, so the cursor is reported at the origin.
pub const SCREEN_COLUMNS: i16 = 80;
pub const SCREEN_LINES: i16 = 300;
pub const WINDOW_LINES: i16 = 25;

pub fn GetConsoleScreenBufferInfo(
    cx: &mut Ctx,
    hConsoleOutput: u32,
    lpConsoleScreenBufferInfo: Ptr,
) -> ApiResult<bool> {
    let Some(c) = console_arg(cx, hConsoleOutput)? else {
        return Ok(false);
    };
    if c.stream == Stream::Input {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    if let Some(own) = super::conscreen::own_console(cx.proc) {
        use super::conscreen::{COLUMNS, LINES};
        let s = own.lock();
        // The whole 80x25 buffer is in the window (Windows 9x's console).
        let fields: [i16; 11] = [
            COLUMNS,
            LINES,
            s.cursor.0,
            s.cursor.1,
            s.attr as i16,
            0,
            0,
            COLUMNS - 1,
            LINES - 1,
            COLUMNS,
            LINES,
        ];
        drop(s);
        let b: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
        cx.proc.mem.write_bytes(lpConsoleScreenBufferInfo.0, &b)?;
        return Ok(true);
    }
    let fields: [i16; 11] = [
        SCREEN_COLUMNS,
        SCREEN_LINES,
        0,
        0,
        // FOREGROUND_RED | FOREGROUND_GREEN | FOREGROUND_BLUE
        0x7,
        0,
        0,
        SCREEN_COLUMNS - 1,
        WINDOW_LINES - 1,
        SCREEN_COLUMNS,
        WINDOW_LINES,
    ];
    let b: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    cx.proc.mem.write_bytes(lpConsoleScreenBufferInfo.0, &b)?;
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetConsoleScreenBufferInfo", GetConsoleScreenBufferInfo),
        stdcall("WriteConsoleA", WriteConsoleA),
        stdcall("WriteConsoleW", WriteConsoleW),
        stdcall("ReadConsoleA", ReadConsoleA),
        stdcall("ReadConsoleW", ReadConsoleW),
        stdcall("GetConsoleMode", GetConsoleMode),
        stdcall("SetConsoleMode", SetConsoleMode),
        stdcall("SetConsoleCtrlHandler", SetConsoleCtrlHandler),
        stdcall("GetConsoleCP", GetConsoleCP),
        stdcall("GetConsoleOutputCP", GetConsoleOutputCP),
        stdcall("SetConsoleCP", SetConsoleCP),
        stdcall("SetConsoleOutputCP", SetConsoleOutputCP),
        stdcall("AllocConsole", AllocConsole),
        stdcall("FreeConsole", FreeConsole),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;
    use crate::kernel32::process::GetStdHandle;

    #[test]
    fn screen_buffer_info_of_the_default_console() {
        let mut h = Harness::new();
        let b = h.scratch(32);
        let out = GetStdHandle(&mut h.cx(), -11i32 as u32).unwrap();
        assert!(GetConsoleScreenBufferInfo(&mut h.cx(), out, Ptr(b)).unwrap());
        let f: Vec<u16> = (0..11)
            .map(|k| h.proc.mem.read_u16(b + 2 * k).unwrap())
            .collect();
        // dwSize 80x300, cursor 0,0, light grey, window (0,0)-(79,24), max 80x25.
        assert_eq!(f, [80, 300, 0, 0, 7, 0, 0, 79, 24, 80, 25]);
        let inp = GetStdHandle(&mut h.cx(), -10i32 as u32).unwrap();
        assert!(!GetConsoleScreenBufferInfo(&mut h.cx(), inp, Ptr(b)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
    }
}
