//! comdlg32.dll: the common dialogs. The dialogs themselves (open/save, print,
//! font, find/replace) are not provided: a call stops the program with
//! "comdlg32.dll!Name is not implemented". What is here needs no dialog.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Ptr, WStrPtr, stdcall};
use crate::kernel32::string::{read_wide, write_wide};

pub const DLL: HleDll = HleDll {
    name: "comdlg32.dll",
    exports,
    attach: None,
};

/// No common dialog ever ran in this process, so none failed.
fn CommDlgExtendedError(_cx: &mut Ctx) -> u32 {
    0
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
    vec![
        stdcall("CommDlgExtendedError", CommDlgExtendedError),
        stdcall("GetFileTitleW", GetFileTitleW),
    ]
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
