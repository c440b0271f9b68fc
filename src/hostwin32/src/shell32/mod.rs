//! shell32.dll: drag-and-drop of files (HDROP) and the About box here; the
//! special folders ([`folders`]) and the item ID lists they hand out ([`pidl`]),
//! CommandLineToArgvW ([`cmdline`]), Control_RunDLL and the Control Panel ([`control`]), ShellExecute and FindExecutable
//! ([`execute`]), SHGetFileInfo's names and attributes ([`fileinfo`]), and
//! ExtractIcon ([`icons`]), and the shell namespace's IShellFolder objects from
//! SHGetDesktopFolder ([`shellfolder`]), and the notification area's icons
//! ([`tray`]). Other dialogs (the folder browser, file
//! operations) are not provided, and report themselves as not implemented by name when
//! called.

#![allow(non_snake_case)]

pub mod cmdline;
pub mod control;
pub mod ebrowser;
pub mod execute;
pub mod fileinfo;
pub mod folders;
pub mod icons;
pub mod pidl;
pub mod shellfolder;
pub mod sysimagelist;
pub mod tray;

use crate::hle::{
    ApiDef, ApiError, ApiResult, CStrPtr, Ctx, HleDll, Outcome, Ptr, WStrPtr, stdcall,
};
use crate::kernel32::heap::{GlobalFree, GlobalLock, GlobalSize, GlobalUnlock};
use crate::kernel32::string::{
    copy_truncated_a, copy_truncated_w, encode_ansi, read_ansi, read_wstr,
};

pub const DLL: HleDll = HleDll {
    name: "shell32.dll",
    exports,
    attach: None,
};

/// Makes sure COMCTL32 is loaded (its window classes registered), as SHELL32,
/// which imports it on Windows, finds it: the shell's views are its controls.
pub fn ensure_comctl32(cx: &mut Ctx) -> ApiResult<()> {
    let Some(i) = cx.proc.hle_dll(crate::comctl32::DLL.name) else {
        return Err(ApiError::Other("COMCTL32 is not among the HLE DLLs".into()));
    };
    let mut st = crate::loader::state(cx.proc);
    crate::loader::hle_module::ensure(cx.proc, &mut st, i)
        .map_err(|e| ApiError::Other(format!("SHELL32 cannot load COMCTL32: {e}")))?;
    Ok(())
}

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

/// The About box's title and text: `szApp` is the title ("About X"), or with a
/// `#` the title before it and the product line after it; then the Windows
/// version and the caller's extra text.
pub fn about_text(app: &str, other: Option<&str>, version: (u32, u32, u32)) -> (String, String) {
    let (title, product) = match app.split_once('#') {
        Some((t, p)) => (t.to_string(), p.to_string()),
        None => (format!("About {app}"), app.to_string()),
    };
    let (major, minor, build) = version;
    let mut text = format!("Microsoft {product}\r\nVersion {major}.{minor} (Build {build})");
    if let Some(o) = other.filter(|o| !o.is_empty()) {
        text.push_str("\r\n");
        text.push_str(o);
    }
    (title, text)
}

/// ShellAbout: a modal dialog captioned "About <app>" (or the part of `szApp` before
/// `#`) with the program's icon (the Windows logo without one), the product and
/// version lines and `szOtherStuff`, answered with OK; USER32's message box
/// dialog lays it out and runs it.
fn shell_about(
    cx: &mut Ctx,
    hWnd: u32,
    app: String,
    other: Option<String>,
    hIcon: u32,
) -> ApiResult<Outcome> {
    let (major, minor, build, _, _) = crate::kernel32::process::version_of(cx.proc.config.version);
    let (title, text) = about_text(&app, other.as_deref(), (major, minor, build));
    let icon = if hIcon != 0 {
        hIcon
    } else {
        // IDI_WINLOGO.
        crate::ucrtbase::call_export_ret(cx, "user32.dll", "LoadIconW", &[0, 32517])?
    };
    let spec = crate::user32::msgbox::Spec {
        owner: hWnd,
        text,
        caption: title,
        icon,
        ..Default::default()
    };
    // The box answers IDOK; ShellAbout reports TRUE.
    match crate::user32::fin(crate::user32::msgbox::show(cx, spec))? {
        Outcome::Return(_) => Ok(Outcome::Return(1)),
        o => Ok(o),
    }
}

fn ShellAboutW(
    cx: &mut Ctx,
    hWnd: u32,
    szApp: WStrPtr,
    szOtherStuff: WStrPtr,
    hIcon: u32,
) -> ApiResult<Outcome> {
    let app = if szApp.0 == 0 {
        String::new()
    } else {
        read_wstr(cx.proc, szApp.0)?
    };
    let other = if szOtherStuff.0 == 0 {
        None
    } else {
        Some(read_wstr(cx.proc, szOtherStuff.0)?)
    };
    shell_about(cx, hWnd, app, other, hIcon)
}

fn ShellAboutA(
    cx: &mut Ctx,
    hWnd: u32,
    szApp: CStrPtr,
    szOtherStuff: CStrPtr,
    hIcon: u32,
) -> ApiResult<Outcome> {
    let app = if szApp.0 == 0 {
        String::new()
    } else {
        read_ansi(cx.proc, szApp.0)?
    };
    let other = if szOtherStuff.0 == 0 {
        None
    } else {
        Some(read_ansi(cx.proc, szOtherStuff.0)?)
    };
    shell_about(cx, hWnd, app, other, hIcon)
}

fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("DragAcceptFiles", DragAcceptFiles),
        stdcall("DragQueryFileW", DragQueryFileW),
        stdcall("DragQueryFileA", DragQueryFileA),
        stdcall("DragFinish", DragFinish),
        stdcall("ShellAboutW", ShellAboutW),
        stdcall("ShellAboutA", ShellAboutA),
    ];
    v.extend(folders::exports());
    v.extend(pidl::exports());
    v.extend(cmdline::exports());
    v.extend(control::exports());
    v.extend(execute::exports());
    v.extend(fileinfo::exports());
    v.extend(icons::exports());
    v.extend(shellfolder::exports());
    v.extend(sysimagelist::exports());
    v.extend(ebrowser::exports());
    v.extend(tray::exports());
    v
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

    // ShellAbout's documented use of szApp: "About X" without a separator; with
    // one, the title before it and the product line after it.
    #[test]
    fn about_box_title_and_text() {
        let (t, m) = super::about_text("Notepad", Some("by Wine"), (5, 1, 2600));
        assert_eq!(t, "About Notepad");
        assert_eq!(
            m,
            "Microsoft Notepad\r\nVersion 5.1 (Build 2600)\r\nby Wine"
        );
        let (t, m) = super::about_text("Wine Clock#Clock", None, (4, 10, 1998));
        assert_eq!(t, "Wine Clock");
        assert_eq!(m, "Microsoft Clock\r\nVersion 4.10 (Build 1998)");
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
