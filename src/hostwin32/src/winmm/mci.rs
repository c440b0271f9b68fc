//! winmm: MCI, MIDI and auxiliary audio, none of which has a device here.
//!
//! The machine has no CD drive, MIDI synthesizer or MCI driver, so games that probe
//! for CD audio or MIDI music get the "not installed" answers a Windows machine
//! without them gives, and carry on without music: opening any MCI device (by
//! string or command, including the auto-open of a device type named in a command)
//! fails with MCIERR_DEVICE_NOT_INSTALLED, other device names are not open, "close
//! all" succeeds, sysinfo counts 0 devices; MIDI output and auxiliary devices
//! number 0. mciGetErrorString has the documented text of every code returned here.

use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, stdcall};
use crate::kernel32::string::{read_ansi, read_wstr, write_wide};

const MMSYSERR_BADDEVICEID: u32 = 2;

const MCIERR_BASE: u32 = 256;
pub const MCIERR_INVALID_DEVICE_ID: u32 = MCIERR_BASE + 1;
pub const MCIERR_UNRECOGNIZED_COMMAND: u32 = MCIERR_BASE + 5;
pub const MCIERR_INVALID_DEVICE_NAME: u32 = MCIERR_BASE + 7;
pub const MCIERR_MISSING_COMMAND_STRING: u32 = MCIERR_BASE + 11;
pub const MCIERR_OUTOFRANGE: u32 = MCIERR_BASE + 26;
pub const MCIERR_MISSING_DEVICE_NAME: u32 = MCIERR_BASE + 36;
pub const MCIERR_DEVICE_NOT_INSTALLED: u32 = MCIERR_BASE + 50;

const MCI_OPEN: u32 = 0x0803;
const MCI_CLOSE: u32 = 0x0804;
const MCI_SYSINFO: u32 = 0x0810;
const MCI_ALL_DEVICE_ID: u32 = 0xFFFF_FFFF;
const MCI_SYSINFO_QUANTITY: u32 = 0x0100;

/// The "General MCI Errors" table's meaning of each code returned here.
fn error_text(code: u32) -> Option<&'static str> {
    Some(match code {
        0 => "The specified command was carried out.",
        MCIERR_INVALID_DEVICE_ID => {
            "Invalid device ID. Use the ID given to the device when the device was opened."
        }
        MCIERR_UNRECOGNIZED_COMMAND => "The driver cannot recognize the specified command.",
        MCIERR_INVALID_DEVICE_NAME => {
            "The specified device is not open or is not recognized by MCI."
        }
        MCIERR_MISSING_COMMAND_STRING => "No command was specified.",
        MCIERR_OUTOFRANGE => "The specified parameter is out of range for the specified command.",
        MCIERR_MISSING_DEVICE_NAME => "No device name was specified.",
        MCIERR_DEVICE_NOT_INSTALLED => {
            "The specified device is not installed on the system. Use the Drivers option from \
             the Control Panel to install the device."
        }
        _ => return None,
    })
}

/// The MCI device types of the [mci] section of a Windows system: naming one as
/// a device opens (auto-opens) a driver that is not installed here.
const DEVICE_TYPES: &[&str] = &[
    "cdaudio",
    "waveaudio",
    "sequencer",
    "avivideo",
    "mpegvideo",
    "digitalvideo",
    "videodisc",
    "vcr",
    "overlay",
    "scanner",
    "dat",
    "animation",
    "mmmovie",
    "other",
];

/// Words of a command string; a double-quoted part is one word without its quotes.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// mciSendString's answer: an error code and the return string.
pub fn send_string(cmd: &str) -> (u32, String) {
    let w = words(cmd);
    let Some(verb) = w.first().map(|v| v.to_ascii_lowercase()) else {
        return (MCIERR_MISSING_COMMAND_STRING, String::new());
    };
    let Some(device) = w.get(1).map(|d| d.to_ascii_lowercase()) else {
        return (MCIERR_MISSING_DEVICE_NAME, String::new());
    };
    let rest: Vec<String> = w[2..].iter().map(|s| s.to_ascii_lowercase()).collect();
    match verb.as_str() {
        "open" => (MCIERR_DEVICE_NOT_INSTALLED, String::new()),
        "close" if device == "all" => (0, String::new()),
        "sysinfo" => {
            if rest.first().map(String::as_str) == Some("quantity") {
                (0, "0".into())
            } else {
                // "name N" and "installname" of device N: there is no device N.
                (MCIERR_OUTOFRANGE, String::new())
            }
        }
        _ if DEVICE_TYPES.contains(&device.as_str()) => {
            (MCIERR_DEVICE_NOT_INSTALLED, String::new())
        }
        _ => (MCIERR_INVALID_DEVICE_NAME, String::new()),
    }
}

fn put_return_a(cx: &Ctx, buf: Ptr, cch: u32, s: &str) -> ApiResult<()> {
    if buf.is_null() || cch == 0 {
        return Ok(());
    }
    let mut b: Vec<u8> = s.bytes().take(cch as usize - 1).collect();
    b.push(0);
    cx.proc.mem.write_bytes(buf.0, &b)?;
    Ok(())
}

fn put_return_w(cx: &Ctx, buf: Ptr, cch: u32, s: &str) -> ApiResult<()> {
    if buf.is_null() || cch == 0 {
        return Ok(());
    }
    let mut u: Vec<u16> = s.encode_utf16().take(cch as usize - 1).collect();
    u.push(0);
    write_wide(cx.proc, buf.0, &u)
}

pub fn mciSendStringA(
    cx: &mut Ctx,
    lpszCommand: CStrPtr,
    lpszReturnString: Ptr,
    cchReturn: u32,
    _hwndCallback: u32,
) -> ApiResult<u32> {
    if lpszCommand.0 == 0 {
        return Ok(MCIERR_MISSING_COMMAND_STRING);
    }
    let (code, ret) = send_string(&read_ansi(cx.proc, lpszCommand.0)?);
    put_return_a(cx, lpszReturnString, cchReturn, &ret)?;
    Ok(code)
}

pub fn mciSendStringW(
    cx: &mut Ctx,
    lpszCommand: WStrPtr,
    lpszReturnString: Ptr,
    cchReturn: u32,
    _hwndCallback: u32,
) -> ApiResult<u32> {
    if lpszCommand.0 == 0 {
        return Ok(MCIERR_MISSING_COMMAND_STRING);
    }
    let (code, ret) = send_string(&read_wstr(cx.proc, lpszCommand.0)?);
    put_return_w(cx, lpszReturnString, cchReturn, &ret)?;
    Ok(code)
}

fn send_command(cx: &Ctx, id: u32, msg: u32, flags: u32, param: u32) -> ApiResult<u32> {
    Ok(match msg {
        MCI_OPEN => MCIERR_DEVICE_NOT_INSTALLED,
        MCI_CLOSE if id == MCI_ALL_DEVICE_ID => 0,
        MCI_SYSINFO if flags & MCI_SYSINFO_QUANTITY != 0 => {
            // MCI_SYSINFO_PARMS: dwCallback, lpstrReturn (receives a DWORD count), ...
            if param == 0 {
                return Ok(MCIERR_OUTOFRANGE);
            }
            let ret = cx.proc.mem.read_u32(param + 4)?;
            if ret != 0 {
                cx.proc.mem.write_u32(ret, 0)?;
            }
            0
        }
        MCI_SYSINFO => MCIERR_OUTOFRANGE,
        // No device is ever open, so no id names one.
        _ => MCIERR_INVALID_DEVICE_ID,
    })
}

pub fn mciSendCommandA(
    cx: &mut Ctx,
    IDDevice: u32,
    uMsg: u32,
    fdwCommand: u32,
    dwParam: u32,
) -> ApiResult<u32> {
    send_command(cx, IDDevice, uMsg, fdwCommand, dwParam)
}

pub fn mciSendCommandW(
    cx: &mut Ctx,
    IDDevice: u32,
    uMsg: u32,
    fdwCommand: u32,
    dwParam: u32,
) -> ApiResult<u32> {
    send_command(cx, IDDevice, uMsg, fdwCommand, dwParam)
}

/// FALSE for a code this module never returns.
pub fn mciGetErrorStringA(
    cx: &mut Ctx,
    mcierr: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<bool> {
    match error_text(mcierr) {
        Some(t) => {
            put_return_a(cx, pszText, cchText, t)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

pub fn mciGetErrorStringW(
    cx: &mut Ctx,
    mcierr: u32,
    pszText: Ptr,
    cchText: u32,
) -> ApiResult<bool> {
    match error_text(mcierr) {
        Some(t) => {
            put_return_w(cx, pszText, cchText, t)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// No device is open, so no name has an id.
pub fn mciGetDeviceIDA(_cx: &mut Ctx, _pszDevice: CStrPtr) -> u32 {
    0
}

pub fn mciGetDeviceIDW(_cx: &mut Ctx, _pszDevice: WStrPtr) -> u32 {
    0
}

pub fn auxGetNumDevs(_cx: &mut Ctx) -> u32 {
    0
}

pub fn midiOutGetNumDevs(_cx: &mut Ctx) -> u32 {
    0
}

pub fn midiInGetNumDevs(_cx: &mut Ctx) -> u32 {
    0
}

/// Every device id, the MIDI mapper's included, is out of range with no devices.
pub fn midiOutOpen(
    _cx: &mut Ctx,
    _phmo: Ptr,
    _uDeviceID: u32,
    _dwCallback: u32,
    _dwInstance: u32,
    _fdwOpen: u32,
) -> u32 {
    MMSYSERR_BADDEVICEID
}

pub fn midiOutGetDevCapsA(_cx: &mut Ctx, _uDeviceID: u32, _pmoc: Ptr, _cbmoc: u32) -> u32 {
    MMSYSERR_BADDEVICEID
}

pub fn midiOutGetDevCapsW(_cx: &mut Ctx, _uDeviceID: u32, _pmoc: Ptr, _cbmoc: u32) -> u32 {
    MMSYSERR_BADDEVICEID
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("mciSendStringA", mciSendStringA),
        stdcall("mciSendStringW", mciSendStringW),
        stdcall("mciSendCommandA", mciSendCommandA),
        stdcall("mciSendCommandW", mciSendCommandW),
        stdcall("mciGetErrorStringA", mciGetErrorStringA),
        stdcall("mciGetErrorStringW", mciGetErrorStringW),
        stdcall("mciGetDeviceIDA", mciGetDeviceIDA),
        stdcall("mciGetDeviceIDW", mciGetDeviceIDW),
        stdcall("auxGetNumDevs", auxGetNumDevs),
        stdcall("midiOutGetNumDevs", midiOutGetNumDevs),
        stdcall("midiInGetNumDevs", midiInGetNumDevs),
        stdcall("midiOutOpen", midiOutOpen),
        stdcall("midiOutGetDevCapsA", midiOutGetDevCapsA),
        stdcall("midiOutGetDevCapsW", midiOutGetDevCapsW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_strings_find_no_device() {
        assert_eq!(send_string("").0, MCIERR_MISSING_COMMAND_STRING);
        assert_eq!(send_string("play").0, MCIERR_MISSING_DEVICE_NAME);
        assert_eq!(
            send_string("open cdaudio shareable").0,
            MCIERR_DEVICE_NOT_INSTALLED
        );
        assert_eq!(
            send_string("open \"C:\\My Music\\a.mid\" type sequencer alias m").0,
            MCIERR_DEVICE_NOT_INSTALLED
        );
        // A device type named in another command is auto-opened, and that fails.
        assert_eq!(
            send_string("status cdaudio number of tracks").0,
            MCIERR_DEVICE_NOT_INSTALLED
        );
        assert_eq!(
            send_string("play music from 1").0,
            MCIERR_INVALID_DEVICE_NAME
        );
        assert_eq!(send_string("CLOSE ALL"), (0, String::new()));
        assert_eq!(send_string("sysinfo cdaudio quantity"), (0, "0".into()));
        assert_eq!(send_string("sysinfo all name 1").0, MCIERR_OUTOFRANGE);
    }

    #[test]
    fn quoted_words_keep_their_spaces() {
        assert_eq!(
            words("open  \"a b.wav\" alias x"),
            vec!["open", "a b.wav", "alias", "x"]
        );
        assert_eq!(words("  "), Vec::<String>::new());
        assert_eq!(words("x \"\""), vec!["x", ""]);
    }

    #[test]
    fn every_returned_code_has_its_text() {
        for c in [
            MCIERR_INVALID_DEVICE_ID,
            MCIERR_UNRECOGNIZED_COMMAND,
            MCIERR_INVALID_DEVICE_NAME,
            MCIERR_MISSING_COMMAND_STRING,
            MCIERR_OUTOFRANGE,
            MCIERR_MISSING_DEVICE_NAME,
            MCIERR_DEVICE_NOT_INSTALLED,
        ] {
            assert!(error_text(c).is_some(), "{c}");
        }
        assert_eq!(error_text(MCIERR_BASE + 200), None);
    }
}
