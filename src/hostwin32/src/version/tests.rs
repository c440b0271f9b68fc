//! VERSION unit tests: the block builder's layout, VerQueryValue's walk, the
//! system DLLs' blocks per emulated Windows, and the API over files in a sandbox
//! (sizes, the "FE2X" signature, ANSI strings in the spare room, error codes).

use super::block::{FIXED_SIGNATURE, Node, query};
use super::*;
use crate::kernel32::misc::test_support::Harness;
use crate::loader::resources::tests::image_with_resource;
use crate::vfs::VfsConfig;
use std::fs;
use std::sync::Arc;

fn w(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The text value VerQueryValueW would return, without its NUL.
fn text(block: &[u8], path: &str) -> Option<String> {
    let f = query(block, &w(path))?;
    assert!(f.text, "{path} is not text");
    let units: Vec<u16> = (0..usize::from(f.len))
        .map(|k| u16_at(block, f.offset + 2 * k))
        .take_while(|&u| u != 0)
        .collect();
    Some(String::from_utf16(&units).unwrap())
}

#[test]
fn a_string_node_is_laid_out_as_the_resource_compiler_writes_it() {
    // Header (6) + "A\0" (4) = 10, padded to 12; "xy\0" (6) ends at 18.
    let b = Node::text("A", "xy").to_bytes();
    assert_eq!(
        b,
        [
            18, 0, 3, 0, 1, 0, b'A', 0, 0, 0, 0, 0, b'x', 0, b'y', 0, 0, 0
        ]
    );
    // Children start on a 32-bit boundary; the last one's padding is not counted.
    let g = Node::group("GG", vec![Node::text("A", "xy"), Node::text("B", "z")]).to_bytes();
    assert_eq!(u16_at(&g, 0) as usize, g.len());
    assert_eq!(u16_at(&g, 2), 0); // no value
    assert_eq!(u16_at(&g, 4), 1); // a text node, as StringFileInfo is
    // 6 + "GG\0" (6) = 12; first child at 12 (18 bytes), second at 32.
    assert_eq!(&g[12..14], &[18, 0]);
    assert_eq!(&g[32..34], &[16, 0]);
    assert_eq!(g.len(), 48);
}

#[test]
fn the_walk_finds_values_case_insensitively_and_reports_misses() {
    let b = system::block("COMCTL32.DLL", WinVersion::WinXp);
    assert_eq!(usize::from(u16_at(&b, 0)), b.len());
    assert_eq!(b.len() % 4, 0, "a string ends on a 32-bit boundary here");
    // The root's value: VS_FIXEDFILEINFO right after "VS_VERSION_INFO\0", aligned.
    let root = query(&b, &w("\\")).unwrap();
    assert_eq!((root.offset, root.len, root.text), (40, 52, false));
    assert_eq!(query(&b, &[]), Some(root));
    assert_eq!(u32_at(&b, 40), FIXED_SIGNATURE);
    assert_eq!(u32_at(&b, 40 + 8), 0x0005_0052); // 5.82
    assert_eq!(u32_at(&b, 40 + 12), (2900 << 16) | 5512);
    let tr = query(&b, &w("\\VarFileInfo\\Translation")).unwrap();
    assert_eq!((tr.len, tr.text), (4, false));
    assert_eq!(&b[tr.offset..tr.offset + 4], &[0x09, 0x04, 0xb0, 0x04]);
    assert_eq!(
        text(&b, "\\StringFileInfo\\040904B0\\FileVersion").as_deref(),
        Some("5.82.2900.5512 (xpsp.080413-2111)")
    );
    assert_eq!(
        text(&b, "\\stringfileinfo\\040904b0\\PRODUCTNAME").as_deref(),
        Some("Microsoft(R) Windows(R) Operating System")
    );
    // Empty components are skipped, as VerQueryValue does.
    assert!(query(&b, &w("\\\\StringFileInfo\\\\040904B0\\CompanyName")).is_some());
    assert_eq!(
        query(&b, &w("\\StringFileInfo\\040904E4\\CompanyName")),
        None
    );
    assert_eq!(query(&b, &w("\\StringFileInfo\\040904B0\\Comments")), None);
    // A key that is only a prefix of a child's key does not match.
    assert_eq!(query(&b, &w("\\StringFileInfo\\040904B0\\File")), None);
    assert!(!block::is_16bit(&b));
}

#[test]
fn system_dlls_carry_the_emulated_windows_version() {
    let fixed = |dll: &str, v| {
        let b = system::block(dll, v);
        let f = query(&b, &w("\\")).unwrap();
        (
            u32_at(&b, f.offset + 8),
            u32_at(&b, f.offset + 12),
            u32_at(&b, f.offset + 32),
        )
    };
    // Windows 9x: major.minor, then the build alone.
    assert_eq!(
        fixed("KERNEL32.dll", WinVersion::Win98),
        (0x0004_000a, 2222, 0x1_0004)
    );
    assert_eq!(
        fixed("user32.dll", WinVersion::Win95),
        (0x0004_0000, 950, 0x1_0004)
    );
    assert_eq!(
        fixed("gdi32.dll", WinVersion::WinMe),
        (0x0004_005a, 3000, 0x1_0004)
    );
    assert_eq!(
        fixed("KERNEL32.dll", WinVersion::WinXp),
        (0x0005_0001, (2600 << 16) | 5512, 0x4_0004)
    );
    assert_eq!(
        fixed("advapi32.dll", WinVersion::Win2000),
        (0x0005_0000, 2195 << 16, 0x4_0004)
    );
    // COMCTL32's own line: Delphi's VCL compares the high DWORD with 5.80 (IE 5).
    assert_eq!(
        fixed("comctl32.dll", WinVersion::Win98),
        (0x0005_0050, (2614 << 16) | 3600, 0x1_0004)
    );
    assert_eq!(fixed("comctl32.dll", WinVersion::Win2000).0, 0x0005_0051);
    assert_eq!(fixed("comctl32.dll", WinVersion::Win95).0, 0x0004_0000);
    // The shell's line.
    assert_eq!(fixed("shell32.dll", WinVersion::Win98).0, 0x0004_0048);
    assert_eq!(
        fixed("SHLWAPI.dll", WinVersion::Win98),
        (0x0005_0000, 2222 << 16, 0x1_0004)
    );
    assert_eq!(
        fixed("shell32.dll", WinVersion::WinXp),
        (0x0006_0000, (2900 << 16) | 5512, 0x4_0004)
    );
    assert_eq!(fixed("msvcrt.dll", WinVersion::WinXp).0, 0x0007_0000);
    // DirectX 7.0a on Windows 9x: 4.07.00.0716.
    assert_eq!(
        fixed("DDRAW.dll", WinVersion::Win98),
        (0x0004_0007, 716, 0x1_0004)
    );
    assert_eq!(fixed("dsound.dll", WinVersion::WinXp).0, 0x0005_0003);
    let b = system::block("KERNEL32.dll", WinVersion::Win98);
    assert_eq!(
        text(&b, "\\StringFileInfo\\040904B0\\FileVersion").as_deref(),
        Some("4.10.2222")
    );
    assert_eq!(
        text(&b, "\\StringFileInfo\\040904B0\\FileDescription").as_deref(),
        Some("Win32 Kernel core component")
    );
    assert_eq!(
        text(&b, "\\StringFileInfo\\040904B0\\OriginalFilename").as_deref(),
        Some("kernel32.dll")
    );
}

// ---- the API ---------------------------------------------------------------------

struct Env {
    h: Harness,
    _tmp: tempfile::TempDir,
    buf: u32,
}

/// A process of Windows `v` whose program folder (C:\GAMES) holds `files`.
fn env(v: WinVersion, files: &[(&str, Vec<u8>)]) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("game");
    fs::create_dir_all(&program).unwrap();
    for (name, data) in files {
        fs::write(program.join(name), data).unwrap();
    }
    let h = Harness::with_config(|c| c.version = v);
    let vfs = Vfs::new(VfsConfig {
        program_dir: program,
        guest_dir: r"C:\GAMES".into(),
        overlay_dir: tmp.path().join("overlay"),
        allow_writes_to_original: false,
    })
    .unwrap();
    h.proc.vfs.set(Arc::new(vfs)).unwrap();
    let buf = h.scratch(0x10000);
    Env { h, _tmp: tmp, buf }
}

const NAME: u32 = 0;
const HANDLE: u32 = 0x200;
const OUT_PTR: u32 = 0x204;
const OUT_LEN: u32 = 0x208;
const PATH: u32 = 0x300;
const DATA: u32 = 0x1000;

impl Env {
    fn at(&self, off: u32) -> u32 {
        self.buf + off
    }

    /// GetFileVersionInfoSizeA: (size, handle, last error).
    fn size_a(&mut self, name: &str) -> (u32, u32, u32) {
        self.h.put_cstr(self.at(NAME), name);
        self.h
            .proc
            .mem
            .write_u32(self.at(HANDLE), 0x5555_5555)
            .unwrap();
        crate::teb::set_last_error(&mut self.h.cx(), 0xdead_beef).unwrap();
        let (n, hd) = (Ptr(self.at(NAME)), Ptr(self.at(HANDLE)));
        let size = GetFileVersionInfoSizeA(&mut self.h.cx(), n, hd).unwrap();
        (size, self.h.u32(self.at(HANDLE)), self.h.last_error())
    }

    /// GetFileVersionInfoA into DATA; the block's bytes as copied.
    fn info_a(&mut self, name: &str, len: u32) -> Vec<u8> {
        self.h.put_cstr(self.at(NAME), name);
        let (n, d) = (Ptr(self.at(NAME)), Ptr(self.at(DATA)));
        let ok = GetFileVersionInfoA(&mut self.h.cx(), n, 0, len, d);
        assert!(ok.unwrap(), "GetFileVersionInfoA({name})");
        let mut b = vec![0u8; len as usize];
        self.h.proc.mem.read_bytes(self.at(DATA), &mut b).unwrap();
        b
    }

    /// VerQueryValueA on the block at DATA: (pointer - DATA, length).
    fn query_a(&mut self, path: &str) -> Option<(u32, u32)> {
        self.h.put_cstr(self.at(PATH), path);
        let (p, o, l) = (
            Ptr(self.at(PATH)),
            Ptr(self.at(OUT_PTR)),
            Ptr(self.at(OUT_LEN)),
        );
        let d = Ptr(self.at(DATA));
        let ok = VerQueryValueA(&mut self.h.cx(), d, p, o, l).unwrap();
        ok.then(|| {
            (
                self.h.u32(self.at(OUT_PTR)) - self.at(DATA),
                self.h.u32(self.at(OUT_LEN)),
            )
        })
    }

    fn query_w(&mut self, path: &str) -> Option<(u32, u32)> {
        self.h.put_wstr(self.at(PATH), path);
        let (p, o, l) = (
            Ptr(self.at(PATH)),
            Ptr(self.at(OUT_PTR)),
            Ptr(self.at(OUT_LEN)),
        );
        let d = Ptr(self.at(DATA));
        let ok = VerQueryValueW(&mut self.h.cx(), d, p, o, l).unwrap();
        ok.then(|| {
            (
                self.h.u32(self.at(OUT_PTR)) - self.at(DATA),
                self.h.u32(self.at(OUT_LEN)),
            )
        })
    }
}

#[test]
fn a_system_dll_by_name_or_system_path() {
    let mut e = env(WinVersion::Win98, &[]);
    let block = system::block("COMCTL32.dll", WinVersion::Win98);
    let want = block.len() as u32 * 2 + 4;
    assert_eq!(e.size_a("comctl32.dll"), (want, 0, 0));
    assert_eq!(e.size_a("COMCTL32").0, want);
    // GetModuleFileName's path for it, and GetSystemDirectory's.
    assert_eq!(e.size_a(r"C:\WINDOWS\SYSTEM\COMCTL32.DLL").0, want);
    assert_eq!(e.size_a(r"c:\windows\system\comctl32.dll").0, want);
    // Not a system DLL there, and no such file: the file is missing.
    assert_eq!(e.size_a(r"C:\WINDOWS\SYSTEM\nosuch.dll"), (0, 0, 2));
    assert_eq!(e.size_a("nosuch.dll"), (0, 0, 2));

    let got = e.info_a("comctl32.dll", want);
    let wl = block.len();
    assert_eq!(&got[..wl], &block[..]);
    assert_eq!(&got[wl..wl + 4], b"FE2X");
    let (at, len) = e.query_a("\\").unwrap();
    assert_eq!((at, len), (40, 52));
    assert_eq!(e.h.u32(e.at(DATA) + at + 8), 0x0005_0050);
    // An ANSI string goes to the room past the block, at its own offset there.
    let (at, len) = e
        .query_a("\\StringFileInfo\\040904B0\\FileVersion")
        .unwrap();
    let (wat, wlen) = e
        .query_w("\\StringFileInfo\\040904B0\\FileVersion")
        .unwrap();
    assert_eq!(at, wl as u32 + 4 + wat);
    assert_eq!((len, wlen), (15, 15));
    assert_eq!(e.h.cstr(e.at(DATA) + at), "5.80.2614.3600");
    assert_eq!(e.h.wstr(e.at(DATA) + wat), "5.80.2614.3600");
    // A miss: FALSE, length 0, ERROR_RESOURCE_TYPE_NOT_FOUND.
    assert_eq!(e.query_a("\\StringFileInfo\\040904B0\\Comments"), None);
    assert_eq!(e.h.u32(e.at(OUT_LEN)), 0);
    assert_eq!(e.h.last_error(), ERROR_RESOURCE_TYPE_NOT_FOUND);
}

#[test]
fn a_small_buffer_gets_the_start_of_the_block_and_no_signature() {
    let mut e = env(WinVersion::WinXp, &[]);
    let block = system::block("kernel32.dll", WinVersion::WinXp);
    let got = e.info_a("kernel32.dll", block.len() as u32 + 3);
    assert_eq!(&got[..block.len()], &block[..]);
    assert_eq!(&got[block.len()..], &[0, 0, 0]);
    assert_eq!(
        e.size_a(r"C:\WINDOWS\system32\kernel32.dll").0,
        block.len() as u32 * 2 + 4
    );
}

/// A version block as a program's .rc would give it.
fn program_block() -> Vec<u8> {
    let fixed = block::FixedFileInfo {
        file_version: [1, 2, 3, 4],
        product_version: [5, 6, 7, 8],
        file_flags_mask: 0x3f,
        file_type: 1,
        file_os: 0x4_0004,
        ..Default::default()
    };
    Node::binary(
        "VS_VERSION_INFO",
        fixed.to_bytes(),
        vec![
            Node::group(
                "StringFileInfo",
                vec![Node::group(
                    "040904E4",
                    vec![Node::text("FileDescription", "caf\u{e9} game")],
                )],
            ),
            Node::group(
                "VarFileInfo",
                vec![Node::binary("Translation", vec![9, 4, 0xe4, 4], Vec::new())],
            ),
        ],
    )
    .to_bytes()
}

#[test]
fn a_program_file_in_the_sandbox() {
    let vb = program_block();
    let files = [
        ("GAME.EXE", image_with_resource(16, 1, 0x0409, &vb)),
        ("ICONS.DLL", image_with_resource(3, 1, 0x0409, b"icon")),
        ("OTHER.DLL", image_with_resource(16, 2, 0x0409, &vb)),
        ("PLAIN.DLL", crate::loader::pe::tests::Img::minimal().f),
        ("README.TXT", b"hello\r\n".to_vec()),
    ];
    let mut e = env(WinVersion::WinXp, &files);
    let want = vb.len() as u32 * 2 + 4;
    assert_eq!(e.size_a(r"C:\GAMES\GAME.EXE"), (want, 0, 0));
    assert_eq!(e.size_a("game.exe"), (want, 0, 0));
    e.info_a("GAME.EXE", want);
    let (at, _) = e.query_a("\\").unwrap();
    assert_eq!(e.h.u32(e.at(DATA) + at + 8), 0x0001_0002);
    assert_eq!(e.h.u32(e.at(DATA) + at + 20), 0x0007_0008);
    // The ANSI copy is in the code page: U+00E9 is 0xE9.
    let (at, len) = e
        .query_a("\\StringFileInfo\\040904E4\\FileDescription")
        .unwrap();
    assert_eq!(len, 10);
    let mut s = [0u8; 10];
    e.h.proc.mem.read_bytes(e.at(DATA) + at, &mut s).unwrap();
    assert_eq!(&s, b"caf\xe9 game\0");
    // No version resource: NT's codes.
    assert_eq!(e.size_a("ICONS.DLL"), (0, 0, ERROR_RESOURCE_TYPE_NOT_FOUND));
    assert_eq!(e.size_a("OTHER.DLL"), (0, 0, ERROR_RESOURCE_NAME_NOT_FOUND));
    assert_eq!(
        e.size_a("PLAIN.DLL"),
        (0, 0, err::ERROR_RESOURCE_DATA_NOT_FOUND)
    );
    assert_eq!(
        e.size_a("README.TXT"),
        (0, 0, err::ERROR_RESOURCE_DATA_NOT_FOUND)
    );
    assert_eq!(
        e.size_a(r"C:\GAMES\NOSUCH\X.DLL"),
        (0, 0, err::ERROR_PATH_NOT_FOUND)
    );
    assert_eq!(e.size_a(""), (0, 0, err::ERROR_BAD_PATHNAME));
    let got = GetFileVersionInfoSizeA(&mut e.h.cx(), Ptr(0), Ptr(0)).unwrap();
    assert_eq!((got, e.h.last_error()), (0, err::ERROR_INVALID_PARAMETER));
    // A failed GetFileVersionInfo says the same.
    e.h.put_cstr(e.at(NAME), "README.TXT");
    let (n, d) = (Ptr(e.at(NAME)), Ptr(e.at(DATA)));
    let ok = GetFileVersionInfoA(&mut e.h.cx(), n, 0, 64, d);
    assert!(!ok.unwrap());
    assert_eq!(e.h.last_error(), err::ERROR_RESOURCE_DATA_NOT_FOUND);
}

#[test]
fn windows_9x_codes_for_files_without_version_information() {
    let files = [
        ("ICONS.DLL", image_with_resource(3, 1, 0x0409, b"icon")),
        ("README.TXT", b"hello\r\n".to_vec()),
    ];
    let mut e = env(WinVersion::Win98, &files);
    assert_eq!(e.size_a("README.TXT"), (0, 0, ERROR_BAD_FORMAT));
    assert_eq!(e.size_a("ICONS.DLL"), (0, 0, err::ERROR_FILE_NOT_FOUND));
}

#[test]
fn the_wide_and_ex_functions_agree_with_the_ansi_ones() {
    let mut e = env(WinVersion::Win98, &[]);
    let want = system::block("ddraw.dll", WinVersion::Win98).len() as u32 * 2 + 4;
    e.h.put_wstr(e.at(NAME), "ddraw.dll");
    let n = Ptr(e.at(NAME));
    assert_eq!(
        GetFileVersionInfoSizeW(&mut e.h.cx(), n, Ptr(0)).unwrap(),
        want
    );
    assert_eq!(
        GetFileVersionInfoSizeExW(&mut e.h.cx(), 0, n, Ptr(0)).unwrap(),
        want
    );
    let d = Ptr(e.at(DATA));
    assert!(GetFileVersionInfoExW(&mut e.h.cx(), 1, n, 0, want, d).unwrap());
    let (at, len) = e
        .query_w("\\StringFileInfo\\040904B0\\FileVersion")
        .unwrap();
    assert_eq!(e.h.wstr(e.at(DATA) + at), "4.07.00.0716");
    assert_eq!(len, 13);
    assert!(matches!(
        GetFileVersionInfoSizeExW(&mut e.h.cx(), 0x100, n, Ptr(0)),
        Err(ApiError::UnimplementedCase(_))
    ));
}

#[test]
fn language_names() {
    let mut e = env(WinVersion::Win98, &[]);
    let out = Ptr(e.at(DATA));
    assert_eq!(
        VerLanguageNameA(&mut e.h.cx(), 0x0409, out, 64).unwrap(),
        23
    );
    assert_eq!(e.h.cstr(out.0), "English (United States)");
    // Cut to the buffer.
    assert_eq!(VerLanguageNameA(&mut e.h.cx(), 0x0409, out, 8).unwrap(), 7);
    assert_eq!(e.h.cstr(out.0), "English");
    assert_eq!(
        VerLanguageNameW(&mut e.h.cx(), 0x040a, out, 64).unwrap(),
        26
    );
    assert_eq!(e.h.wstr(out.0), "Spanish (Traditional Sort)");
    assert!(matches!(
        VerLanguageNameA(&mut e.h.cx(), 0x0c1a, out, 64),
        Err(ApiError::UnimplementedCase(_))
    ));
    // KERNEL32 exports it as well.
    let k = e.h.proc.hle_dll("kernel32.dll").unwrap();
    assert!(
        e.h.proc.dlls[k]
            .1
            .iter()
            .any(|d| d.name == "VerLanguageNameA")
    );
}
