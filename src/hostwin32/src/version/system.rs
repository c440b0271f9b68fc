//! The version resource of a system DLL winterp serves (KERNEL32, USER32,
//! COMCTL32, DDRAW ...): there is no file, so the block is made as the Windows
//! being emulated carries it in its own copy of the DLL. Programs read it to choose
//! features (Delphi's VCL asks COMCTL32's version; DirectX games ask DDRAW's).
//!
//! The figures:
//! - Most system files carry the release's own version: 4.00.950 (Windows 95),
//!   4.10.2222 (98 SE), 4.90.3000 (Me), 4.0.1381 (NT 4.0), 5.0.2195 (2000),
//!   5.1.2600.5512 (XP SP3), the builds `kernel32::process::version_of` reports
//!   (Microsoft KB Q158238 and Q206071 for the 9x stamps). Windows 9x files put
//!   major.minor in the high DWORD and the build alone in the low one (4.10.0.2222);
//!   NT files put the build in the third word and the file's own revision in the
//!   fourth. NT 4.0 SP6 and 2000 SP4 files each carry their own revision, with no
//!   one figure for the release, so those are 0; XP SP3's files share 5512.
//! - COMCTL32 has its own line, which programs test (MSDN "Common Control
//!   Versions"; Geoff Chappell's COMCTL32 history): 4.00 with Windows 95, 4.72 with
//!   late NT 4.0 service packs, 5.80 with 98 SE (IE 5: 5.80.2614.3600), 5.81 with
//!   Me and 2000 (5.81.4704.1100, the figure Wine's COMCTL32 also reports), 5.82
//!   with XP (5.82.2900.5512 on SP3: the system directory's copy; 6.0 only
//!   through a manifest).
//!   The NT 4.0 figure is the one build of 4.72 on record (Windows 98's
//!   4.72.3110.1).
//! - SHELL32 and SHLWAPI follow the shell's line (MSDN "Shell and Shlwapi DLL
//!   Versions"): SHELL32 4.00 with 95 and NT 4.0, 4.72 with 98, 5.0 with Me and
//!   2000, 6.0 with XP; SHLWAPI 5.0 with 98 SE and 2000, 5.5 with Me, 6.0 with
//!   XP (95 and NT 4.0 had it only from Internet Explorer 4.01 on: 4.72). Their build words are on
//!   record only for XP SP3 (6.0.2900.5512); elsewhere the release's build stands
//!   in the third word. MSVCRT on XP is the 7.0 runtime (7.0.2600.5512).
//! - The DirectX DLLs on Windows 9x carry DirectX's version, not Windows': the
//!   DirectX 7.0a runtime's 4.07.00.0716, the release whose interfaces (up to
//!   IDirectDraw7) winterp provides; games' DirectX checks compare exactly this.
//!   On XP SP3 they are 5.3.2600.5512 (DirectX 9.0c as part of XP). NT 4.0 and
//!   2000 ship their DirectX with the system, under the system's version.
//!
//! The strings are the StringFileInfo block 040904B0 (U.S. English, Unicode) of
//! Microsoft's files: CompanyName, FileDescription, FileVersion, InternalName,
//! LegalCopyright, OriginalFilename, ProductName, ProductVersion. Descriptions are
//! those of the real DLLs where known; others are the DLL's name.

use super::block::{FixedFileInfo, Node};
use crate::process::WinVersion;

/// One version line: the four words and how the file writes them as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub words: [u16; 4],
    pub text: String,
}

fn nine_x(major: u16, minor: u16, build: u16) -> Line {
    Line {
        words: [major, minor, 0, build],
        text: format!("{major}.{minor:02}.{build}"),
    }
}

fn nt(words: [u16; 4]) -> Line {
    let [a, b, c, d] = words;
    Line {
        words,
        text: format!("{a}.{b:02}.{c}.{d}"),
    }
}

/// XP SP3's files: revision 5512 and the build lab's tag after the number.
fn xp_sp3(major: u16, minor: u16, build: u16) -> Line {
    Line {
        words: [major, minor, build, 5512],
        text: format!("{major}.{minor}.{build}.5512 (xpsp.080413-2111)"),
    }
}

/// The release's own line.
pub fn os_line(v: WinVersion) -> Line {
    match v {
        WinVersion::Win95 => nine_x(4, 0, 950),
        WinVersion::Win98 => nine_x(4, 10, 2222),
        WinVersion::WinMe => nine_x(4, 90, 3000),
        WinVersion::Nt4 => nt([4, 0, 1381, 0]),
        WinVersion::Win2000 => nt([5, 0, 2195, 0]),
        WinVersion::WinXp => xp_sp3(5, 1, 2600),
    }
}

fn is_9x(v: WinVersion) -> bool {
    matches!(v, WinVersion::Win95 | WinVersion::Win98 | WinVersion::WinMe)
}

/// DLLs of the DirectX runtime (see the module notes).
const DIRECTX: &[&str] = &[
    "ddraw", "dsound", "dinput", "dinput8", "dplayx", "dplay", "dpwsockx", "dpnet", "d3dim",
    "d3drm", "d3dxof", "d3d8", "d3d9", "dmusic", "dmime", "dmloader", "dmstyle", "dmsynth",
    "dmband", "dmcompos", "dmscript", "dswave", "dxdiagn", "quartz",
];

/// The version line of system DLL `key` (a `process::dll_key`) under `v`.
pub fn dll_line(key: &str, v: WinVersion) -> Line {
    if key == "comctl32" {
        return match v {
            WinVersion::Win95 => nine_x(4, 0, 950),
            WinVersion::Win98 => nt([5, 80, 2614, 3600]),
            WinVersion::WinMe | WinVersion::Win2000 => nt([5, 81, 4704, 1100]),
            WinVersion::Nt4 => nt([4, 72, 3110, 1]),
            WinVersion::WinXp => xp_sp3(5, 82, 2900),
        };
    }
    let shell = |major: u16, minor: u16| {
        let os = os_line(v).words;
        // 9x lines carry the build in the fourth word, NT lines in the third.
        let build = if is_9x(v) { os[3] } else { os[2] };
        nt([major, minor, build, 0])
    };
    match (key, v) {
        ("shell32", WinVersion::Win95 | WinVersion::Nt4) => return shell(4, 0),
        ("shell32", WinVersion::Win98) => return shell(4, 72),
        ("shell32", WinVersion::WinMe | WinVersion::Win2000) => return shell(5, 0),
        ("shell32" | "shlwapi", WinVersion::WinXp) => return xp_sp3(6, 0, 2900),
        ("shlwapi", WinVersion::Win95 | WinVersion::Nt4) => return shell(4, 72),
        ("shlwapi", WinVersion::Win98 | WinVersion::Win2000) => return shell(5, 0),
        ("shlwapi", WinVersion::WinMe) => return shell(5, 50),
        ("msvcrt", WinVersion::WinXp) => return xp_sp3(7, 0, 2600),
        _ => {}
    }
    if DIRECTX.contains(&key) {
        if is_9x(v) {
            return Line {
                words: [4, 7, 0, 716],
                text: "4.07.00.0716".into(),
            };
        }
        if v == WinVersion::WinXp {
            return xp_sp3(5, 3, 2600);
        }
    }
    os_line(v)
}

/// FileDescription of the real DLLs (the NT-family text where the two differ,
/// except KERNEL32, whose 9x text is on record too).
fn description(key: &str, v: WinVersion) -> String {
    let known = match key {
        "kernel32" if is_9x(v) => "Win32 Kernel core component",
        "kernel32" => "Windows NT BASE API Client DLL",
        "ntdll" => "NT Layer DLL",
        "gdi32" => "GDI Client DLL",
        "advapi32" => "Advanced Windows 32 Base API",
        "comctl32" => "Common Controls Library",
        "comdlg32" => "Common Dialogs DLL",
        "shell32" => "Windows Shell Common Dll",
        "shlwapi" => "Shell Light-weight Utility Library",
        "ole32" => "Microsoft OLE for Windows",
        "version" => "Version Checking and File Installation Libraries",
        "winmm" => "MCI API DLL",
        "msvcrt" => "Windows NT CRT DLL",
        "ddraw" => "Microsoft DirectDraw",
        "dsound" => "DirectSound",
        "dinput" => "Microsoft DirectInput",
        _ => return format!("{} DLL", key.to_ascii_uppercase()),
    };
    known.to_string()
}

fn copyright(v: WinVersion) -> &'static str {
    match v {
        WinVersion::Win95 => "Copyright (C) Microsoft Corp. 1981-1995",
        WinVersion::Nt4 => "Copyright (C) Microsoft Corp. 1981-1996",
        WinVersion::Win98 | WinVersion::Win2000 => "Copyright (C) Microsoft Corp. 1981-1999",
        WinVersion::WinMe => "Copyright (C) Microsoft Corp. 1981-2000",
        WinVersion::WinXp => "\u{a9} Microsoft Corporation. All rights reserved.",
    }
}

/// VS_FF_* bits a file may set (all of them).
const VS_FFI_FILEFLAGSMASK: u32 = 0x3f;
/// Windows 9x files say they run on DOS-based Windows, NT files on NT.
const VOS_DOS_WINDOWS32: u32 = 0x0001_0004;
const VOS_NT_WINDOWS32: u32 = 0x0004_0004;
const VFT_DLL: u32 = 2;

/// The language and code page of the block: U.S. English, Unicode.
pub const LANGUAGE: u16 = 0x0409;
pub const CODE_PAGE: u16 = 0x04b0;

/// The version block of system DLL `file` (its file name, e.g. `COMCTL32.DLL`).
pub fn block(file: &str, v: WinVersion) -> Vec<u8> {
    let key = crate::process::dll_key(file);
    let line = dll_line(&key, v);
    let fixed = FixedFileInfo {
        file_version: line.words,
        product_version: line.words,
        file_flags_mask: VS_FFI_FILEFLAGSMASK,
        file_flags: 0,
        file_os: if is_9x(v) {
            VOS_DOS_WINDOWS32
        } else {
            VOS_NT_WINDOWS32
        },
        file_type: VFT_DLL,
        file_subtype: 0,
    };
    let file_name = format!("{key}.dll");
    let strings = vec![
        Node::text("CompanyName", "Microsoft Corporation"),
        Node::text("FileDescription", &description(&key, v)),
        Node::text("FileVersion", &line.text),
        Node::text("InternalName", &key),
        Node::text("LegalCopyright", copyright(v)),
        Node::text("OriginalFilename", &file_name),
        Node::text("ProductName", "Microsoft(R) Windows(R) Operating System"),
        Node::text("ProductVersion", &line.text),
    ];
    let translation = [LANGUAGE.to_le_bytes(), CODE_PAGE.to_le_bytes()].concat();
    Node::binary(
        "VS_VERSION_INFO",
        fixed.to_bytes(),
        vec![
            Node::group(
                "StringFileInfo",
                vec![Node::group(
                    &format!("{LANGUAGE:04X}{CODE_PAGE:04X}"),
                    strings,
                )],
            ),
            Node::group(
                "VarFileInfo",
                vec![Node::binary("Translation", translation, Vec::new())],
            ),
        ],
    )
    .to_bytes()
}
