//! shell32.dll: drag-and-drop of files (HDROP) so far. Dialog-based functions
//! (ShellAbout, the folder browser) are not provided, and report themselves as
//! not implemented by name when called.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Ptr, stdcall};
use crate::kernel32::heap::{GlobalFree, GlobalLock, GlobalSize, GlobalUnlock};
use crate::kernel32::string::{copy_truncated_a, copy_truncated_w, encode_ansi};

pub const DLL: HleDll = HleDll {
    name: "shell32.dll",
    exports,
};

/// winterp's display has no way to drop files onto a window, so the
/// WS_EX_ACCEPTFILES style this sets could never produce a WM_DROPFILES: there
/// is nothing to record.
fn DragAcceptFiles(_cx: &mut Ctx, _hWnd: u32, _fAccept: bool) {}

/// The file names in a DROPFILES block: `pFiles` (offset of the list) at 0,
/// `fWide` at 16; the list is NUL-separated and ends with an empty name.
pub fn drop_files(block: &[u8]) -> Option<Vec<Vec<u16>>> {
    let rd = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes(block.get(o..o + 4)?.try_into().ok()?))
    };
    let start = rd(0)? as usize;
    let wide = rd(16)? != 0;
    let list = block.get(start..)?;
    let units: Vec<u16> = if wide {
        list.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    } else {
        list.iter().map(|&b| u16::from(b)).collect()
    };
    let mut out = Vec::new();
    for name in units.split(|&u| u == 0) {
        if name.is_empty() {
            break;
        }
        out.push(name.to_vec());
    }
    Some(out)
}

fn read_drop(cx: &mut Ctx, hDrop: u32) -> ApiResult<Vec<Vec<u16>>> {
    let size = GlobalSize(cx, hDrop)?;
    let p = GlobalLock(cx, hDrop)?;
    if p == 0 {
        return Err(ApiError::Other(format!(
            "DragQueryFile: {hDrop:#x} is not an HDROP"
        )));
    }
    let mut block = vec![0u8; size.min(1 << 20) as usize];
    let r = cx.proc.mem.read_bytes(p, &mut block);
    GlobalUnlock(cx, hDrop)?;
    r?;
    drop_files(&block)
        .ok_or_else(|| ApiError::Other(format!("DragQueryFile: malformed DROPFILES at {hDrop:#x}")))
}

/// iFile 0xFFFFFFFF: the number of files; with no buffer: the length of name
/// `iFile`; else the name copied (cut to the buffer) and its length returned.
fn drag_query(
    cx: &mut Ctx,
    hDrop: u32,
    iFile: u32,
    buf: u32,
    cch: u32,
    wide: bool,
) -> ApiResult<u32> {
    let files = read_drop(cx, hDrop)?;
    if iFile == u32::MAX {
        return Ok(files.len() as u32);
    }
    let Some(name) = files.get(iFile as usize) else {
        return Ok(0);
    };
    if wide {
        if buf == 0 {
            return Ok(name.len() as u32);
        }
        copy_truncated_w(cx.proc, buf, cch, name)
    } else {
        let a = encode_ansi(&String::from_utf16_lossy(name));
        if buf == 0 {
            return Ok(a.len() as u32);
        }
        copy_truncated_a(cx.proc, buf, cch, &a)
    }
}

fn DragQueryFileW(cx: &mut Ctx, hDrop: u32, iFile: u32, lpszFile: Ptr, cch: u32) -> ApiResult<u32> {
    drag_query(cx, hDrop, iFile, lpszFile.0, cch, true)
}

fn DragQueryFileA(cx: &mut Ctx, hDrop: u32, iFile: u32, lpszFile: Ptr, cch: u32) -> ApiResult<u32> {
    drag_query(cx, hDrop, iFile, lpszFile.0, cch, false)
}

fn DragFinish(cx: &mut Ctx, hDrop: u32) -> ApiResult<()> {
    GlobalFree(cx, hDrop)?;
    Ok(())
}

fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("DragAcceptFiles", DragAcceptFiles),
        stdcall("DragQueryFileW", DragQueryFileW),
        stdcall("DragQueryFileA", DragQueryFileA),
        stdcall("DragFinish", DragFinish),
    ]
}

#[cfg(test)]
mod tests {
    use super::drop_files;

    fn dropfiles(wide: bool, names: &[&str]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&20u32.to_le_bytes());
        b.extend_from_slice(&[0; 12]);
        b.extend_from_slice(&u32::from(wide).to_le_bytes());
        for n in names {
            if wide {
                for u in n.encode_utf16().chain([0]) {
                    b.extend_from_slice(&u.to_le_bytes());
                }
            } else {
                b.extend_from_slice(n.as_bytes());
                b.push(0);
            }
        }
        b.extend_from_slice(if wide { &[0, 0] } else { &[0] });
        b
    }

    #[test]
    fn dropfiles_lists_both_encodings() {
        for wide in [false, true] {
            let got = drop_files(&dropfiles(wide, &[r"C:\a.txt", r"C:\dir\b"])).unwrap();
            let got: Vec<String> = got.iter().map(|v| String::from_utf16_lossy(v)).collect();
            assert_eq!(got, [r"C:\a.txt", r"C:\dir\b"]);
        }
        assert!(drop_files(&[1, 2]).is_none());
    }
}
