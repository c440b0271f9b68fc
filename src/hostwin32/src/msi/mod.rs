//! msi.dll, the Windows Installer: the few functions a client such as msiexec
//! calls before it installs anything — the UI level (MsiSetInternalUI), file
//! versions (MsiGetFileVersion, from the file's version resource through VERSION)
//! and its message box (MsiMessageBox, USER32's). Installing, repairing or
//! advertising packages is not provided: those exports report themselves as not
//! implemented, by name, when called.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Outcome, Ptr, stdcall};
use crate::kernel32::misc::err;
use crate::kernel32::string::{copy_truncated_a, copy_truncated_w, encode_ansi, write_wide};
use crate::ucrtbase::{call_export, call_export_ret};
use std::sync::Mutex;

pub const DLL: HleDll = HleDll {
    name: "msi.dll",
    exports,
    attach: None,
};

const ERROR_FILE_INVALID: u32 = 1006;
const ERROR_PATH_NOT_FOUND: u32 = 3;

/// INSTALLUILEVEL: the base levels and the flags that may be added to them.
const INSTALLUILEVEL_NOCHANGE: u32 = 0;
const INSTALLUILEVEL_DEFAULT: u32 = 1;
const INSTALLUILEVEL_FULL: u32 = 5;
const INSTALLUILEVEL_FLAGS: u32 = 0x20 | 0x40 | 0x80 | 0x100 | 0x200;

/// The process's installer UI settings.
struct Ui {
    level: u32,
    owner: u32,
}

impl Default for Ui {
    fn default() -> Ui {
        Ui {
            level: INSTALLUILEVEL_DEFAULT,
            owner: 0,
        }
    }
}

fn ui(cx: &Ctx) -> std::sync::Arc<Mutex<Ui>> {
    cx.proc.slot::<Mutex<Ui>>()
}

/// MsiSetInternalUI: sets the UI level (and, with `phWnd`, the owner window,
/// handing back the previous one); returns the previous level, or
/// INSTALLUILEVEL_NOCHANGE for a level that is not one.
pub fn MsiSetInternalUI(cx: &mut Ctx, dwUILevel: u32, phWnd: Ptr) -> ApiResult<u32> {
    let base = dwUILevel & !INSTALLUILEVEL_FLAGS;
    if base > INSTALLUILEVEL_FULL {
        return Ok(INSTALLUILEVEL_NOCHANGE);
    }
    let new_owner = if phWnd.is_null() {
        None
    } else {
        Some(cx.proc.mem.read_u32(phWnd.0)?)
    };
    let state = ui(cx);
    let mut u = state.lock().unwrap_or_else(|e| e.into_inner());
    let old = u.level;
    if base != INSTALLUILEVEL_NOCHANGE {
        u.level = dwUILevel;
    }
    if let Some(h) = new_owner {
        cx.proc.mem.write_u32(phWnd.0, u.owner)?;
        u.owner = h;
    }
    Ok(old)
}

/// The file version ("major.minor.build.revision") and language (decimal LANGID)
/// of a file's version resource.
fn file_version(cx: &mut Ctx, path: u32) -> ApiResult<Result<(String, String), u32>> {
    let size = call_export_ret(cx, "VERSION.dll", "GetFileVersionInfoSizeW", &[path, 0])?;
    if size == 0 {
        let code = call_export_ret(cx, "KERNEL32.dll", "GetLastError", &[])?;
        return Ok(Err(match code {
            err::ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND => err::ERROR_FILE_NOT_FOUND,
            _ => ERROR_FILE_INVALID,
        }));
    }
    let size = size.min(1 << 20);
    let (buf, esp) = crate::user32::stack_alloc(cx, size);
    let r = (|| -> ApiResult<Option<Vec<u8>>> {
        if call_export_ret(
            cx,
            "VERSION.dll",
            "GetFileVersionInfoW",
            &[path, 0, size, buf],
        )? == 0
        {
            return Ok(None);
        }
        let mut b = vec![0u8; size as usize];
        cx.proc.mem.read_bytes(buf, &mut b)?;
        Ok(Some(b))
    })();
    crate::user32::stack_free(cx, esp);
    let Some(block) = r? else {
        return Ok(Err(ERROR_FILE_INVALID));
    };
    Ok(parse_version(&block).ok_or(ERROR_FILE_INVALID))
}

/// VS_FIXEDFILEINFO (found by its signature) and the first language of
/// VarFileInfo\Translation, if the block has one.
fn parse_version(block: &[u8]) -> Option<(String, String)> {
    let u32_at = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes(block.get(o..o + 4)?.try_into().ok()?))
    };
    // The block proper is wLength bytes; GetFileVersionInfo's ANSI scratch follows.
    let w = u16::from_le_bytes([*block.first()?, *block.get(1)?]) as usize;
    let block = &block[..w.min(block.len())];
    let fixed = (0..block.len().saturating_sub(16))
        .step_by(4)
        .find(|&o| u32_at(o) == Some(0xfeef_04bd))?;
    let (ms, ls) = (u32_at(fixed + 8)?, u32_at(fixed + 12)?);
    let version = format!("{}.{}.{}.{}", ms >> 16, ms & 0xffff, ls >> 16, ls & 0xffff);
    let key: Vec<u8> = "Translation\0"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let lang = block
        .windows(key.len())
        .position(|win| win == key.as_slice())
        .and_then(|k| {
            let v = (k + key.len() + 3) & !3;
            block
                .get(v..v + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
        })
        .map_or(String::new(), |l| l.to_string());
    Some((version, lang))
}

/// Copies `s` to a caller's buffer of `*pcch` characters: ERROR_MORE_DATA when it
/// does not fit; `*pcch` becomes the length without the terminator either way.
fn put_out(cx: &mut Ctx, s: &str, buf: Ptr, pcch: Ptr, unicode: bool) -> ApiResult<u32> {
    if pcch.is_null() {
        return Ok(err::ERROR_SUCCESS);
    }
    let cap = cx.proc.mem.read_u32(pcch.0)?;
    let (len, fits) = if unicode {
        let u: Vec<u16> = s.encode_utf16().collect();
        let fits = (u.len() as u32) < cap;
        if !buf.is_null() && cap > 0 {
            copy_truncated_w(cx.proc, buf.0, cap, &u)?;
        }
        (u.len() as u32, fits)
    } else {
        let b = encode_ansi(s);
        let fits = (b.len() as u32) < cap;
        if !buf.is_null() && cap > 0 {
            copy_truncated_a(cx.proc, buf.0, cap, &b)?;
        }
        (b.len() as u32, fits)
    };
    cx.proc.mem.write_u32(pcch.0, len)?;
    Ok(if fits || buf.is_null() {
        err::ERROR_SUCCESS
    } else {
        err::ERROR_MORE_DATA
    })
}

fn get_file_version(
    cx: &mut Ctx,
    path: u32,
    ver: Ptr,
    pcch_ver: Ptr,
    lang: Ptr,
    pcch_lang: Ptr,
    unicode: bool,
) -> ApiResult<u32> {
    if path == 0
        || (!ver.is_null() && pcch_ver.is_null())
        || (!lang.is_null() && pcch_lang.is_null())
    {
        return Ok(err::ERROR_INVALID_PARAMETER);
    }
    let r = if unicode {
        file_version(cx, path)
    } else {
        let s = crate::kernel32::string::read_ansi(cx.proc, path)?;
        let u: Vec<u16> = s.encode_utf16().chain([0]).collect();
        let (p, esp) = crate::user32::stack_alloc(cx, 2 * u.len() as u32);
        let r = write_wide(cx.proc, p, &u).and_then(|_| file_version(cx, p));
        crate::user32::stack_free(cx, esp);
        r
    };
    let (v, l) = match r? {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let a = put_out(cx, &v, ver, pcch_ver, unicode)?;
    let b = put_out(cx, &l, lang, pcch_lang, unicode)?;
    Ok(if a != err::ERROR_SUCCESS { a } else { b })
}

pub fn MsiGetFileVersionW(
    cx: &mut Ctx,
    szFilePath: u32,
    lpVersionBuf: Ptr,
    pcchVersionBuf: Ptr,
    lpLangBuf: Ptr,
    pcchLangBuf: Ptr,
) -> ApiResult<u32> {
    get_file_version(
        cx,
        szFilePath,
        lpVersionBuf,
        pcchVersionBuf,
        lpLangBuf,
        pcchLangBuf,
        true,
    )
}

pub fn MsiGetFileVersionA(
    cx: &mut Ctx,
    szFilePath: u32,
    lpVersionBuf: Ptr,
    pcchVersionBuf: Ptr,
    lpLangBuf: Ptr,
    pcchLangBuf: Ptr,
) -> ApiResult<u32> {
    get_file_version(
        cx,
        szFilePath,
        lpVersionBuf,
        pcchVersionBuf,
        lpLangBuf,
        pcchLangBuf,
        false,
    )
}

/// MsiMessageBox: the installer's message box is USER32's, in the given language
/// (`f`, reserved, is not used).
pub fn MsiMessageBoxW(
    cx: &mut Ctx,
    hWnd: u32,
    lpText: u32,
    lpCaption: u32,
    uType: u32,
    wLanguageId: u32,
    _f: u32,
) -> ApiResult<Outcome> {
    call_export(
        cx,
        "USER32.dll",
        "MessageBoxExW",
        &[hWnd, lpText, lpCaption, uType, wLanguageId],
    )
}

pub fn MsiMessageBoxA(
    cx: &mut Ctx,
    hWnd: u32,
    lpText: u32,
    lpCaption: u32,
    uType: u32,
    wLanguageId: u32,
    _f: u32,
) -> ApiResult<Outcome> {
    call_export(
        cx,
        "USER32.dll",
        "MessageBoxExA",
        &[hWnd, lpText, lpCaption, uType, wLanguageId],
    )
}

/// msi.dll's string table: string 10 is the usage text msiexec shows (its `%s` is
/// the version MsiGetFileVersion gives for msi.dll). Written from the documented
/// Windows Installer command-line options.
pub fn string_resource(id: u32) -> Option<&'static str> {
    match id {
        10 => Some(USAGE),
        _ => None,
    }
}

const USAGE: &str = "Windows Installer. V %s\n\n\
msiexec /Option <Required Parameter> [Optional Parameter]\n\n\
Install Options\n\
\t</package | /i> <Product.msi>\n\
\t\tInstalls or configures a product\n\
\t/a <Product.msi>\n\
\t\tAdministrative install - Installs a product on the network\n\
\t/j<u|m> <Product.msi> [/t <Transform List>] [/g <Language ID>]\n\
\t\tAdvertises a product - m to all users, u to current user\n\
\t</uninstall | /x> <Product.msi | ProductCode>\n\
\t\tUninstalls the product\n\
Display Options\n\
\t/quiet\n\t\tQuiet mode, no user interaction\n\
\t/passive\n\t\tUnattended mode - progress bar only\n\
\t/q[n|b|r|f]\n\t\tSets user interface level\n\
Restart Options\n\
\t/norestart\n\t\tDo not restart after the installation is complete\n\
\t/promptrestart\n\t\tPrompts the user for restart if necessary\n\
\t/forcerestart\n\t\tAlways restart the computer after installation\n\
Logging Options\n\
\t/l[i|w|e|a|r|u|c|m|o|p|v|x|+|!|*] <LogFile>\n\
Update Options\n\
\t/update <Update1.msp>[;Update2.msp]\n\t\tApplies update(s)\n\
Repair Options\n\
\t/f[p|e|c|m|s|o|d|a|u|v] <Product.msi | ProductCode>\n\t\tRepairs a product\n\
Setting Public Properties\n\
\t[PROPERTY=PropertyValue]\n";

fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("MsiSetInternalUI", MsiSetInternalUI),
        stdcall("MsiGetFileVersionW", MsiGetFileVersionW),
        stdcall("MsiGetFileVersionA", MsiGetFileVersionA),
        stdcall("MsiMessageBoxW", MsiMessageBoxW),
        stdcall("MsiMessageBoxA", MsiMessageBoxA),
    ]
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    fn wide(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn the_fixed_info_and_translation_give_version_and_language() {
        let mut b = vec![0u8; 40];
        b.extend_from_slice(&0xfeef_04bdu32.to_le_bytes());
        b.extend_from_slice(&0x1_0000u32.to_le_bytes());
        b.extend_from_slice(&((5 << 16) | 1u32).to_le_bytes());
        b.extend_from_slice(&((2600 << 16) | 7u32).to_le_bytes());
        b.extend_from_slice(&[0; 36]);
        b.extend_from_slice(&[0; 6]);
        b.extend_from_slice(&wide("Translation\0"));
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        b.extend_from_slice(&0x0409u16.to_le_bytes());
        b.extend_from_slice(&1200u16.to_le_bytes());
        let n = b.len() as u16;
        b[..2].copy_from_slice(&n.to_le_bytes());
        assert_eq!(
            parse_version(&b),
            Some(("5.1.2600.7".to_string(), "1033".to_string()))
        );
    }

    #[test]
    fn a_block_without_fixed_info_has_no_version() {
        let mut b = vec![0u8; 64];
        b[0] = 64;
        assert_eq!(parse_version(&b), None);
    }
}
