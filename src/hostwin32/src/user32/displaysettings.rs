//! EnumDisplaySettings and ChangeDisplaySettings: the display modes of the emulated
//! screen (the list DirectDraw offers too) and switching between them, as games
//! that go full screen without DirectDraw (OpenGL, GDI) do. Also GetKeyboardType
//! and GetKeyboardLayout, which the Delphi run-time asks at start-up.

#![allow(non_snake_case)]

use crate::display::{DEPTHS, DisplayMode, MODES};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};

const ENUM_CURRENT_SETTINGS: u32 = 0xffff_ffff;
const ENUM_REGISTRY_SETTINGS: u32 = 0xffff_fffe;

const DM_BITSPERPEL: u32 = 0x0004_0000;
const DM_PELSWIDTH: u32 = 0x0008_0000;
const DM_PELSHEIGHT: u32 = 0x0010_0000;
const DM_DISPLAYFLAGS: u32 = 0x0020_0000;
const DM_DISPLAYFREQUENCY: u32 = 0x0040_0000;

const CDS_TEST: u32 = 0x2;
const DISP_CHANGE_SUCCESSFUL: i32 = 0;
const DISP_CHANGE_BADMODE: i32 = -2;
const DISP_CHANGE_BADFLAGS: i32 = -4;
const DISP_CHANGE_BADPARAM: i32 = -5;

/// Where DEVMODE's fields are: the A and W forms differ by their two 32-character
/// strings (dmDeviceName before dmSize, dmFormName before dmBitsPerPel).
struct Layout {
    fields: u32,
    bits: u32,
}

const DEVMODE_A: Layout = Layout {
    fields: 40,
    bits: 104,
};
const DEVMODE_W: Layout = Layout {
    fields: 72,
    bits: 168,
};

/// The mode the display starts in (what the "registry" holds).
fn registry_mode() -> DisplayMode {
    DisplayMode::default()
}

/// Mode `n` of the enumeration: every size at every depth.
fn nth_mode(n: u32) -> Option<DisplayMode> {
    let n = n as usize;
    let &(width, height) = MODES.get(n / DEPTHS.len())?;
    Some(DisplayMode {
        width,
        height,
        bpp: DEPTHS[n % DEPTHS.len()],
        refresh_hz: 60,
    })
}

fn write_mode(cx: &mut Ctx, dm: u32, l: &Layout, m: DisplayMode) -> ApiResult<()> {
    let mem = &cx.proc.mem;
    mem.write_u32(
        dm + l.fields,
        DM_BITSPERPEL | DM_PELSWIDTH | DM_PELSHEIGHT | DM_DISPLAYFLAGS | DM_DISPLAYFREQUENCY,
    )?;
    // dmBitsPerPel, dmPelsWidth, dmPelsHeight, dmDisplayFlags, dmDisplayFrequency:
    // all within the smallest DEVMODE a program can pass (Windows 95's).
    let values = [m.bpp, m.width, m.height, 0, m.refresh_hz];
    for (k, v) in values.iter().enumerate() {
        mem.write_u32(dm + l.bits + 4 * k as u32, *v)?;
    }
    Ok(())
}

fn enum_settings(cx: &mut Ctx, mode: u32, dm: Ptr, l: &Layout) -> ApiResult<bool> {
    if dm.is_null() {
        return Ok(false);
    }
    let m = match mode {
        ENUM_CURRENT_SETTINGS => cx.proc.display.mode(),
        ENUM_REGISTRY_SETTINGS => registry_mode(),
        n => match nth_mode(n) {
            Some(m) => m,
            None => return Ok(false),
        },
    };
    write_mode(cx, dm.0, l, m)?;
    Ok(true)
}

pub fn EnumDisplaySettingsA(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    iModeNum: u32,
    lpDevMode: Ptr,
) -> ApiResult<bool> {
    enum_settings(cx, iModeNum, lpDevMode, &DEVMODE_A)
}

pub fn EnumDisplaySettingsW(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    iModeNum: u32,
    lpDevMode: Ptr,
) -> ApiResult<bool> {
    enum_settings(cx, iModeNum, lpDevMode, &DEVMODE_W)
}

pub fn EnumDisplaySettingsExA(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    iModeNum: u32,
    lpDevMode: Ptr,
    _dwFlags: u32,
) -> ApiResult<bool> {
    enum_settings(cx, iModeNum, lpDevMode, &DEVMODE_A)
}

pub fn EnumDisplaySettingsExW(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    iModeNum: u32,
    lpDevMode: Ptr,
    _dwFlags: u32,
) -> ApiResult<bool> {
    enum_settings(cx, iModeNum, lpDevMode, &DEVMODE_W)
}

/// The mode a DEVMODE asks for: the fields its dmFields names, the current
/// mode's for the rest.
fn requested(cx: &Ctx, dm: u32, l: &Layout) -> ApiResult<DisplayMode> {
    let mem = &cx.proc.mem;
    let fields = mem.read_u32(dm + l.fields)?;
    let mut m = cx.proc.display.mode();
    if fields & DM_BITSPERPEL != 0 {
        m.bpp = mem.read_u32(dm + l.bits)?;
    }
    if fields & DM_PELSWIDTH != 0 {
        m.width = mem.read_u32(dm + l.bits + 4)?;
    }
    if fields & DM_PELSHEIGHT != 0 {
        m.height = mem.read_u32(dm + l.bits + 8)?;
    }
    if fields & DM_DISPLAYFREQUENCY != 0 {
        let hz = mem.read_u32(dm + l.bits + 16)?;
        // 0 and 1 mean the hardware default.
        m.refresh_hz = if hz <= 1 { 60 } else { hz };
    }
    Ok(m)
}

fn is_offered(m: &DisplayMode) -> bool {
    MODES.contains(&(m.width, m.height)) && DEPTHS.contains(&m.bpp) && m.refresh_hz == 60
}

fn change_settings(cx: &mut Ctx, dm: Ptr, flags: u32, l: &Layout) -> ApiResult<i32> {
    // CDS_UPDATEREGISTRY 1, CDS_TEST 2, CDS_FULLSCREEN 4, CDS_GLOBAL 8,
    // CDS_SET_PRIMARY 0x10, CDS_RESET 0x40000000, CDS_NORESET 0x10000000.
    if flags & !(0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x4000_0000 | 0x1000_0000) != 0 {
        return Ok(DISP_CHANGE_BADFLAGS);
    }
    let m = if dm.is_null() {
        registry_mode()
    } else {
        requested(cx, dm.0, l)?
    };
    if !is_offered(&m) {
        return Ok(if m.width == 0 || m.height == 0 {
            DISP_CHANGE_BADPARAM
        } else {
            DISP_CHANGE_BADMODE
        });
    }
    if flags & CDS_TEST == 0 {
        *cx.proc
            .display
            .mode
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = m;
    }
    Ok(DISP_CHANGE_SUCCESSFUL)
}

pub fn ChangeDisplaySettingsA(cx: &mut Ctx, lpDevMode: Ptr, dwFlags: u32) -> ApiResult<i32> {
    change_settings(cx, lpDevMode, dwFlags, &DEVMODE_A)
}

pub fn ChangeDisplaySettingsW(cx: &mut Ctx, lpDevMode: Ptr, dwFlags: u32) -> ApiResult<i32> {
    change_settings(cx, lpDevMode, dwFlags, &DEVMODE_W)
}

pub fn ChangeDisplaySettingsExA(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    lpDevMode: Ptr,
    _hwnd: u32,
    dwflags: u32,
    _lParam: u32,
) -> ApiResult<i32> {
    change_settings(cx, lpDevMode, dwflags, &DEVMODE_A)
}

pub fn ChangeDisplaySettingsExW(
    cx: &mut Ctx,
    _lpszDeviceName: Ptr,
    lpDevMode: Ptr,
    _hwnd: u32,
    dwflags: u32,
    _lParam: u32,
) -> ApiResult<i32> {
    change_settings(cx, lpDevMode, dwflags, &DEVMODE_W)
}

/// The keyboard of a 1990s PC: type 4 (IBM enhanced, 101/102 keys), subtype 0,
/// 12 function keys.
pub fn GetKeyboardType(_cx: &mut Ctx, nTypeFlag: i32) -> i32 {
    match nTypeFlag {
        0 => 4,
        1 => 0,
        2 => 12,
        _ => 0,
    }
}

/// The input locale of an en-US keyboard: language 0x0409 in both halves.
pub fn GetKeyboardLayout(_cx: &mut Ctx, _idThread: u32) -> u32 {
    0x0409_0409
}

pub(crate) const HKL_EN_US: u32 = 0x0409_0409;

/// The one installed layout: with `nBuff` 0 the count, else the handles stored.
pub fn GetKeyboardLayoutList(cx: &mut Ctx, nBuff: i32, lpList: Ptr) -> ApiResult<i32> {
    if nBuff > 0 && !lpList.is_null() {
        cx.proc.mem.write_u32(lpList.0, HKL_EN_US)?;
    }
    Ok(1)
}

/// KLID of the active layout: "00000409" (US), 8 characters and a NUL.
fn layout_name(cx: &mut Ctx, p: Ptr, wide: bool) -> ApiResult<bool> {
    let name = "00000409";
    if wide {
        let mut u: Vec<u16> = name.encode_utf16().collect();
        u.push(0);
        crate::kernel32::string::write_wide(cx.proc, p.0, &u)?;
    } else {
        cx.proc.mem.write_bytes(p.0, b"00000409\0")?;
    }
    Ok(true)
}

pub fn GetKeyboardLayoutNameA(cx: &mut Ctx, pwszKLID: Ptr) -> ApiResult<bool> {
    layout_name(cx, pwszKLID, false)
}

pub fn GetKeyboardLayoutNameW(cx: &mut Ctx, pwszKLID: Ptr) -> ApiResult<bool> {
    layout_name(cx, pwszKLID, true)
}

/// Only the US layout is installed: activating it (or HKL_NEXT/HKL_PREV, 1 and 0)
/// answers the previous layout, the same one; any other fails.
pub fn ActivateKeyboardLayout(cx: &mut Ctx, hkl: u32, _Flags: u32) -> ApiResult<u32> {
    if matches!(hkl, HKL_EN_US | 0 | 1) {
        return Ok(HKL_EN_US);
    }
    crate::teb::set_last_error(cx, 87)?;
    Ok(0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetKeyboardLayoutList", GetKeyboardLayoutList),
        stdcall("GetKeyboardLayoutNameA", GetKeyboardLayoutNameA),
        stdcall("GetKeyboardLayoutNameW", GetKeyboardLayoutNameW),
        stdcall("ActivateKeyboardLayout", ActivateKeyboardLayout),
        stdcall("GetKeyboardLayout", GetKeyboardLayout),
        stdcall("EnumDisplaySettingsA", EnumDisplaySettingsA),
        stdcall("EnumDisplaySettingsW", EnumDisplaySettingsW),
        stdcall("EnumDisplaySettingsExA", EnumDisplaySettingsExA),
        stdcall("EnumDisplaySettingsExW", EnumDisplaySettingsExW),
        stdcall("ChangeDisplaySettingsA", ChangeDisplaySettingsA),
        stdcall("ChangeDisplaySettingsW", ChangeDisplaySettingsW),
        stdcall("ChangeDisplaySettingsExA", ChangeDisplaySettingsExA),
        stdcall("ChangeDisplaySettingsExW", ChangeDisplaySettingsExW),
        stdcall("GetKeyboardType", GetKeyboardType),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_enumerate_every_size_at_every_depth_then_end() {
        assert_eq!(
            nth_mode(0),
            Some(DisplayMode {
                width: 320,
                height: 200,
                bpp: 8,
                refresh_hz: 60
            })
        );
        assert_eq!(
            nth_mode(17).map(|m| (m.width, m.height, m.bpp)),
            Some((640, 480, 32))
        );
        assert_eq!(nth_mode((MODES.len() * 3) as u32), None);
        assert!(is_offered(&DisplayMode {
            width: 640,
            height: 480,
            bpp: 16,
            refresh_hz: 60
        }));
        assert!(!is_offered(&DisplayMode {
            width: 641,
            height: 480,
            bpp: 16,
            refresh_hz: 60
        }));
    }
}
