//! comdlg32.dll: the common dialogs. The Open and Save As dialogs are in
//! [`filedlg`]; the print, font, colour and find/replace dialogs are not provided:
//! a call stops the program with "comdlg32.dll!Name is not implemented".

#![allow(non_snake_case)]

mod filedlg;

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Ptr, WStrPtr, stdcall};
use crate::kernel32::string::{read_wide, write_wide};

pub const DLL: HleDll = HleDll {
    name: "comdlg32.dll",
    exports,
    attach: None,
};

/// The error of the last common dialog function that failed (0 when none did).
#[derive(Default)]
struct LastError(std::sync::atomic::AtomicU32);

fn set_error(cx: &Ctx, code: u32) {
    cx.proc
        .slot::<LastError>()
        .0
        .store(code, std::sync::atomic::Ordering::Relaxed);
}

fn CommDlgExtendedError(cx: &mut Ctx) -> u32 {
    cx.proc
        .slot::<LastError>()
        .0
        .load(std::sync::atomic::Ordering::Relaxed)
}

const PD_RETURNDEFAULT: u32 = 0x400;
const PDERR_NODEFAULTPRN: u32 = 0x1008;

/// The emulated machine has no printer: asking for the default one
/// (PD_RETURNDEFAULT) fails with PDERR_NODEFAULTPRN, as on Windows without a
/// printer installed. The print dialog itself is not provided.
fn print_dlg(cx: &mut Ctx, ppd: Ptr, name: &str) -> ApiResult<bool> {
    if ppd.is_null() {
        return Ok(false);
    }
    let flags = cx.proc.mem.read_u32(ppd.0 + 20)?;
    if flags & PD_RETURNDEFAULT == 0 {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "{name} showing the print dialog"
        )));
    }
    set_error(cx, PDERR_NODEFAULTPRN);
    Ok(false)
}

fn PrintDlgA(cx: &mut Ctx, ppd: Ptr) -> ApiResult<bool> {
    print_dlg(cx, ppd, "PrintDlgA")
}

fn PrintDlgW(cx: &mut Ctx, ppd: Ptr) -> ApiResult<bool> {
    print_dlg(cx, ppd, "PrintDlgW")
}

/// GetFileTitle's title: the name after the last separator; `None` for a path
/// that ends in a separator or holds a wildcard (the function's error case).
pub fn file_title(path: &[u16]) -> Option<Vec<u16>> {
    let is_sep = |u: u16| u == u16::from(b'\\') || u == u16::from(b'/') || u == u16::from(b':');
    if path.is_empty() || path.last().is_some_and(|&u| is_sep(u)) {
        return None;
    }
    if path
        .iter()
        .any(|&u| u == u16::from(b'*') || u == u16::from(b'?'))
    {
        return None;
    }
    let start = path.iter().rposition(|&u| is_sep(u)).map_or(0, |i| i + 1);
    Some(path[start..].to_vec())
}

/// 0 on success; the buffer size needed (with the NUL) if too small; -1 for a
/// path that names no file.
fn GetFileTitleW(cx: &mut Ctx, lpszFile: WStrPtr, lpszTitle: Ptr, cchSize: u16) -> ApiResult<i32> {
    if lpszFile.0 == 0 {
        return Ok(-1);
    }
    let Some(t) = file_title(&read_wide(cx.proc, lpszFile.0)?) else {
        return Ok(-1);
    };
    if lpszTitle.is_null() || (cchSize as usize) <= t.len() {
        return Ok(t.len() as i32 + 1);
    }
    let mut v = t;
    v.push(0);
    write_wide(cx.proc, lpszTitle.0, &v)?;
    Ok(0)
}

fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("CommDlgExtendedError", CommDlgExtendedError),
        stdcall("GetFileTitleW", GetFileTitleW),
        stdcall("PrintDlgA", PrintDlgA),
        stdcall("PrintDlgW", PrintDlgW),
    ];
    v.extend(filedlg::exports());
    v
}

#[cfg(test)]
mod tests {
    use super::file_title;

    fn w(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn title_is_the_last_component() {
        assert_eq!(file_title(&w(r"C:\dir\notes.txt")), Some(w("notes.txt")));
        assert_eq!(file_title(&w("notes.txt")), Some(w("notes.txt")));
        assert_eq!(file_title(&w(r"C:\dir\")), None);
        assert_eq!(file_title(&w(r"C:\dir\*.txt")), None);
    }
}
