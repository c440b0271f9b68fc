//! USER32.dll: so far the character functions console programs import (case
//! mapping lives with the code pages in [`crate::kernel32::string`]). Windows and
//! messages arrive with the player.

#![allow(non_snake_case)]

pub mod input;
pub mod present;

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, stdcall};
use crate::kernel32::string::{ANSI_CP, CP_ACP, CP_OEMCP, OEM_CP, user32_string_exports};

/// USER32's process-wide state, in [`crate::process::Process::user32`].
#[derive(Default)]
pub struct State {}

pub const DLL: HleDll = HleDll {
    name: "USER32.dll",
    exports,
};

// Every code page winterp knows (1252, 437) is single-byte, so one character is one
// byte in the A functions and one UTF-16 unit in the W ones (Windows' CharNextW does
// not step over surrogate pairs either).

pub fn CharNextA(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    let b = cx.proc.mem.read_u8(lpsz)?;
    Ok(if b == 0 { lpsz } else { lpsz.wrapping_add(1) })
}

pub fn CharNextW(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    let u = cx.proc.mem.read_u16(lpsz)?;
    Ok(if u == 0 { lpsz } else { lpsz.wrapping_add(2) })
}

pub fn CharPrevA(_cx: &mut Ctx, lpszStart: u32, lpszCurrent: u32) -> u32 {
    if lpszCurrent <= lpszStart {
        lpszStart
    } else {
        lpszCurrent - 1
    }
}

pub fn CharPrevW(_cx: &mut Ctx, lpszStart: u32, lpszCurrent: u32) -> u32 {
    if lpszCurrent <= lpszStart {
        lpszStart
    } else {
        lpszCurrent.wrapping_sub(2).max(lpszStart)
    }
}

fn code_page_known(cp: u32) -> bool {
    matches!(cp, CP_ACP | CP_OEMCP | ANSI_CP | OEM_CP)
}

pub fn CharNextExA(
    cx: &mut Ctx,
    CodePage: u16,
    lpCurrentChar: u32,
    _dwFlags: u32,
) -> ApiResult<u32> {
    if !code_page_known(CodePage as u32) {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "CharNextExA in code page {CodePage}"
        )));
    }
    CharNextA(cx, lpCurrentChar)
}

pub fn CharPrevExA(
    cx: &mut Ctx,
    CodePage: u16,
    lpStart: u32,
    lpCurrentChar: u32,
    _dwFlags: u32,
) -> ApiResult<u32> {
    if !code_page_known(CodePage as u32) {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "CharPrevExA in code page {CodePage}"
        )));
    }
    Ok(CharPrevA(cx, lpStart, lpCurrentChar))
}

fn exports() -> Vec<ApiDef> {
    let mut v = user32_string_exports();
    v.extend([
        stdcall("CharNextA", CharNextA),
        stdcall("CharNextW", CharNextW),
        stdcall("CharPrevA", CharPrevA),
        stdcall("CharPrevW", CharPrevW),
        stdcall("CharNextExA", CharNextExA),
        stdcall("CharPrevExA", CharPrevExA),
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn next_stops_at_the_terminator() {
        let mut h = Harness::new();
        let s = h.scratch(16);
        h.put_cstr(s, "ab");
        assert_eq!(CharNextA(&mut h.cx(), s).unwrap(), s + 1);
        assert_eq!(CharNextA(&mut h.cx(), s + 2).unwrap(), s + 2);
        h.put_wstr(s, "ab");
        assert_eq!(CharNextW(&mut h.cx(), s).unwrap(), s + 2);
        assert_eq!(CharNextW(&mut h.cx(), s + 4).unwrap(), s + 4);
    }

    #[test]
    fn prev_stops_at_the_start() {
        let mut h = Harness::new();
        assert_eq!(CharPrevA(&mut h.cx(), 0x1000, 0x1003), 0x1002);
        assert_eq!(CharPrevA(&mut h.cx(), 0x1000, 0x1000), 0x1000);
        assert_eq!(CharPrevW(&mut h.cx(), 0x1000, 0x1004), 0x1002);
        assert_eq!(CharPrevW(&mut h.cx(), 0x1000, 0x1000), 0x1000);
        assert_eq!(
            CharPrevExA(&mut h.cx(), CP_OEMCP as u16, 0x1000, 0x1001, 0).unwrap(),
            0x1000
        );
    }
}
