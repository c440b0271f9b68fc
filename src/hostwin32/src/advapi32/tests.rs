//! Registry API tests through real guest memory. Expected values are documented
//! Windows behaviour and the results Wine's conformance tests
//! (dlls/advapi32/tests/registry.c) record on real Windows.

use super::registry::*;
use crate::hle::{ApiResult, CStrPtr, Ctx, Outcome, Ptr, WStrPtr};
use crate::kernel32::misc::err::*;
use crate::kernel32::misc::test_support::Harness;
use crate::process::WinVersion;
use crate::vfs::{Vfs, VfsConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const REG_SZ: u32 = 1;
const REG_EXPAND_SZ: u32 = 2;
const REG_BINARY: u32 = 3;
const REG_DWORD: u32 = 4;
const REG_MULTI_SZ: u32 = 7;

type EnumValueFn = fn(&mut Ctx, u32, u32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr) -> ApiResult<u32>;
type EnumKeyExFn = fn(&mut Ctx, u32, u32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr) -> ApiResult<u32>;
type QueryInfoFn =
    fn(&mut Ctx, u32, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr) -> ApiResult<u32>;

struct R {
    h: Harness,
    next: u32,
    overlay: PathBuf,
}

/// A process whose overlay folder is `root/overlay`; two of them over the same root
/// are one program started twice.
fn reg_at(root: &Path, version: WinVersion) -> R {
    let program = root.join("game");
    std::fs::create_dir_all(&program).unwrap();
    let overlay = root.join("overlay");
    let h = Harness::with_config(|c| c.version = version);
    let v = Vfs::new(VfsConfig {
        program_dir: program,
        guest_dir: r"C:\GAME".into(),
        overlay_dir: overlay.clone(),
        allow_writes_to_original: false,
    })
    .unwrap();
    h.proc.vfs.set(Arc::new(v)).unwrap();
    let next = h.scratch(0x10_0000);
    R {
        h,
        next,
        overlay: std::fs::canonicalize(overlay).unwrap(),
    }
}

fn tmp() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(t.path()).unwrap();
    (t, root)
}

impl R {
    fn alloc(&mut self, n: u32) -> u32 {
        let p = self.next;
        self.next += (n + 3) & !3;
        p
    }
    fn a(&mut self, s: &str) -> CStrPtr {
        let p = self.alloc(s.len() as u32 + 1);
        self.h.put_cstr(p, s);
        CStrPtr(p)
    }
    fn w(&mut self, s: &str) -> WStrPtr {
        let p = self.alloc(2 * (s.encode_utf16().count() as u32 + 1));
        self.h.put_wstr(p, s);
        WStrPtr(p)
    }
    fn bytes(&self, p: u32, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.h.proc.mem.read_bytes(p, &mut v).unwrap();
        v
    }
    fn fill(&self, p: u32, n: usize, b: u8) {
        self.h.proc.mem.write_bytes(p, &vec![b; n]).unwrap();
    }
    fn dword(&mut self, v: u32) -> u32 {
        let p = self.alloc(4);
        self.h.proc.mem.write_u32(p, v).unwrap();
        p
    }
    fn u32(&self, p: u32) -> u32 {
        self.h.u32(p)
    }
    fn data(&mut self, b: &[u8]) -> Ptr {
        let p = self.alloc(b.len() as u32 + 8);
        self.h.proc.mem.write_bytes(p, b).unwrap();
        Ptr(p)
    }
    fn create(&mut self, root: u32, path: &str) -> u32 {
        let (s, out) = (self.a(path), self.dword(0));
        assert_eq!(
            RegCreateKey::<CStrPtr>(&mut self.h.cx(), root, s, Ptr(out)).unwrap(),
            0,
            "{path}"
        );
        self.u32(out)
    }
    fn open(&mut self, root: u32, path: &str) -> (u32, u32) {
        let (s, out) = (self.a(path), self.dword(0xdead));
        let code =
            RegOpenKeyEx::<CStrPtr>(&mut self.h.cx(), root, s, 0, 0xf003f, Ptr(out)).unwrap();
        (code, self.u32(out))
    }
    fn set(&mut self, key: u32, name: &str, kind: u32, data: &[u8]) -> u32 {
        let (n, d) = (self.a(name), self.data(data));
        RegSetValueEx::<CStrPtr>(&mut self.h.cx(), key, n, 0, kind, d, data.len() as u32).unwrap()
    }
    fn set_w(&mut self, key: u32, name: &str, kind: u32, data: &[u8]) -> u32 {
        let (n, d) = (self.w(name), self.data(data));
        RegSetValueEx::<WStrPtr>(&mut self.h.cx(), key, n, 0, kind, d, data.len() as u32).unwrap()
    }
    /// RegQueryValueExA with a buffer of `cap` bytes: (code, type, size, bytes).
    fn query(&mut self, key: u32, name: Option<&str>, cap: u32) -> (u32, u32, u32, Vec<u8>) {
        let n = name.map_or(CStrPtr(0), |s| self.a(s));
        let (ty, sz, buf) = (self.dword(0xdead), self.dword(cap), self.alloc(cap + 8));
        self.fill(buf, cap as usize + 8, 0xbd);
        let code = RegQueryValueEx::<CStrPtr>(
            &mut self.h.cx(),
            key,
            n,
            Ptr(0),
            Ptr(ty),
            Ptr(buf),
            Ptr(sz),
        )
        .unwrap();
        let size = self.u32(sz);
        (code, self.u32(ty), size, self.bytes(buf, cap as usize + 1))
    }
    fn query_w(&mut self, key: u32, name: &str, cap: u32) -> (u32, u32, u32, Vec<u8>) {
        let n = self.w(name);
        let (ty, sz, buf) = (self.dword(0xdead), self.dword(cap), self.alloc(cap + 8));
        self.fill(buf, cap as usize + 8, 0xbd);
        let code = RegQueryValueEx::<WStrPtr>(
            &mut self.h.cx(),
            key,
            n,
            Ptr(0),
            Ptr(ty),
            Ptr(buf),
            Ptr(sz),
        )
        .unwrap();
        let size = self.u32(sz);
        (code, self.u32(ty), size, self.bytes(buf, cap as usize + 2))
    }
    /// The size RegQueryValueExA reports with a NULL buffer.
    fn size_of(&mut self, key: u32, name: &str) -> (u32, u32) {
        let (n, sz) = (self.a(name), self.dword(0xdead));
        let code =
            RegQueryValueEx::<CStrPtr>(&mut self.h.cx(), key, n, Ptr(0), Ptr(0), Ptr(0), Ptr(sz))
                .unwrap();
        (code, self.u32(sz))
    }
    /// Calls a KERNEL32 export by name (events for the notification tests).
    fn kernel32(&mut self, name: &str, args: &[u32]) -> u64 {
        let proc = self.h.proc.clone();
        let d = proc.hle_dll("KERNEL32").unwrap();
        let api = proc.dlls[d].1.iter().find(|e| e.name == name).unwrap();
        match api.call(&mut self.h.cx(), args).unwrap() {
            Outcome::Return(v) => v,
            o => panic!("{name}: {o:?}"),
        }
    }
}

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

#[test]
fn seeded_keys_describe_windows_98_and_the_cpu() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let (code, cv) = r.open(
        HKEY_LOCAL_MACHINE,
        r"Software\Microsoft\Windows\CurrentVersion",
    );
    assert_eq!(code, 0);
    for (name, want) in [
        ("ProductName", "Microsoft Windows 98"),
        ("VersionNumber", "4.10.2222"),
        ("ProgramFilesDir", r"C:\Program Files"),
        ("CommonFilesDir", r"C:\Program Files\Common Files"),
    ] {
        let (code, ty, size, data) = r.query(cv, Some(name), 100);
        assert_eq!(
            (code, ty, size),
            (0, REG_SZ, want.len() as u32 + 1),
            "{name}"
        );
        assert_eq!(&data[..size as usize], [want.as_bytes(), b"\0"].concat());
    }
    let (code, cpu) = r.open(
        HKEY_LOCAL_MACHINE,
        r"HARDWARE\DESCRIPTION\System\CentralProcessor\0",
    );
    assert_eq!(code, 0);
    let (_, _, n, id) = r.query(cpu, Some("Identifier"), 100);
    assert_eq!(&id[..n as usize], b"x86 Family 6 Model 3 Stepping 3\0");
    let (_, _, n, vendor) = r.query(cpu, Some("VendorIdentifier"), 100);
    assert_eq!(&vendor[..n as usize], b"GenuineIntel\0");
    // The TSC counts retired instructions; the deterministic clock runs 100 of them
    // per microsecond.
    let (code, ty, n, mhz) = r.query(cpu, Some("~MHz"), 4);
    assert_eq!((code, ty, n), (0, REG_DWORD, 4));
    assert_eq!(&mhz[..4], 100u32.to_le_bytes());
    // Nothing is written until the program changes something.
    assert_eq!(r.open(HKEY_CLASSES_ROOT, ".txt").0, ERROR_FILE_NOT_FOUND);
    assert_eq!(RegFlushKey(&mut r.h.cx(), HKEY_CURRENT_USER).unwrap(), 0);
    assert!(!r.overlay.join(REGISTRY_FILE).exists());
    r.create(HKEY_CURRENT_USER, "Software\\Game");
    assert!(r.overlay.join(REGISTRY_FILE).exists());
}

#[test]
fn nt_versions_seed_the_nt_key() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::WinXp);
    let (code, nt) = r.open(
        HKEY_LOCAL_MACHINE,
        r"Software\Microsoft\Windows NT\CurrentVersion",
    );
    assert_eq!(code, 0);
    let (_, _, n, v) = r.query(nt, Some("CurrentVersion"), 10);
    assert_eq!(&v[..n as usize], b"5.1\0");
}

#[test]
fn set_value_string_sizes_follow_windows() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
    // RegSetValue: REG_SZ only, cbData ignored, stops at the first NUL.
    let d = r.a("ThisNeverBreaks");
    assert_eq!(
        RegSetValue::<CStrPtr>(&mut r.h.cx(), k, CStrPtr(0), REG_SZ, Ptr(0), 0).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    assert_eq!(
        RegSetValue::<CStrPtr>(&mut r.h.cx(), k, CStrPtr(0), REG_SZ, Ptr(d.0), 4).unwrap(),
        0
    );
    assert_eq!(r.query(k, None, 100).2, 16);
    assert_eq!(r.query_w(k, "", 100).2, 32);
    let intra = r.data(b"This\0Breaks\0\0A\0\0\0Lot\0\0\0\0");
    assert_eq!(
        RegSetValue::<CStrPtr>(&mut r.h.cx(), k, CStrPtr(0), REG_SZ, intra, 24).unwrap(),
        0
    );
    assert_eq!(r.query(k, None, 100).2, 5);
    for ty in [REG_BINARY, REG_EXPAND_SZ, REG_MULTI_SZ] {
        assert_eq!(
            RegSetValue::<CStrPtr>(&mut r.h.cx(), k, CStrPtr(0), ty, intra, 24).unwrap(),
            ERROR_INVALID_PARAMETER
        );
    }
    // A zero-byte REG_SZ reads back as zero bytes; an empty string as one.
    assert_eq!(r.set(k, "CleanSingleString", REG_SZ, b""), 0);
    let (code, ty, size, data) = r.query(k, Some("CleanSingleString"), 0);
    assert_eq!((code, ty, size, data[0]), (0, REG_SZ, 0, 0xbd));
    assert_eq!(r.query_w(k, "CleanSingleString", 0).2, 0);
    assert_eq!(r.set(k, "CleanSingleString", REG_SZ, b"\0"), 0);
    assert_eq!(r.query(k, Some("CleanSingleString"), 1).2, 1);
    assert_eq!(r.query_w(k, "CleanSingleString", 2).2, 2);
    // A size that leaves out the NUL following the string gets it back.
    let (n, p) = (r.a("CleanSingleString"), r.a("ThisNeverBreaks"));
    assert_eq!(
        RegSetValueEx::<CStrPtr>(&mut r.h.cx(), k, n, 0, REG_SZ, Ptr(p.0), 15).unwrap(),
        0
    );
    let (_, _, size, data) = r.query(k, Some("CleanSingleString"), 16);
    assert_eq!((size, &data[..17]), (16, &b"ThisNeverBreaks\0\xbd"[..]));
    let (_, _, size, data) = r.query_w(k, "CleanSingleString", 32);
    assert_eq!((size, &data[..32]), (32, &utf16("ThisNeverBreaks\0")[..]));
    let (nw, pw) = (r.w("CleanSingleString"), r.w("ThisNeverBreaks"));
    assert_eq!(
        RegSetValueEx::<WStrPtr>(&mut r.h.cx(), k, nw, 0, REG_SZ, Ptr(pw.0), 30).unwrap(),
        0
    );
    assert_eq!(r.query(k, Some("CleanSingleString"), 100).2, 16);
    // Embedded NULs are kept.
    let intra_bytes = b"This\0Breaks\0\0A\0\0\0Lot\0\0\0\0";
    assert_eq!(r.set(k, "SomeIntraZeroedString", REG_SZ, intra_bytes), 0);
    let (_, _, size, data) = r.query(k, Some("SomeIntraZeroedString"), 100);
    assert_eq!(&data[..size as usize], intra_bytes);
    assert_eq!(
        r.query_w(k, "SomeIntraZeroedString", 100).2,
        2 * intra_bytes.len() as u32
    );
    // A NULL pointer with a size is ERROR_NOACCESS; with 0 bytes it is empty data.
    let n = r.w("x");
    assert_eq!(
        RegSetValueEx::<WStrPtr>(&mut r.h.cx(), k, n, 0, REG_SZ, Ptr(0), 4).unwrap(),
        ERROR_NOACCESS
    );
    assert_eq!(
        RegSetValueEx::<WStrPtr>(&mut r.h.cx(), k, n, 0, REG_DWORD, Ptr(0), 0).unwrap(),
        0
    );
}

#[test]
fn query_value_ex_sizes_and_more_data() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
    let path = b"%LONGSYSTEMVAR%\\subdir1\0";
    assert_eq!(r.set(k, "TP1_SZ", REG_SZ, path), 0);
    assert_eq!(r.size_of(k, "TP1_SZ"), (0, path.len() as u32));
    // Too small: ERROR_MORE_DATA, the size needed, nothing written.
    let (code, ty, size, data) = r.query(k, Some("TP1_SZ"), 10);
    assert_eq!(
        (code, ty, size),
        (ERROR_MORE_DATA, REG_SZ, path.len() as u32)
    );
    assert_eq!(data[0], 0xbd);
    // Missing: size 0 when only the size was asked for, untouched otherwise.
    assert_eq!(r.size_of(k, "Nonexistent Value"), (ERROR_FILE_NOT_FOUND, 0));
    let (code, _, size, _) = r.query(k, Some("Nonexistent Value"), 10);
    assert_eq!((code, size), (ERROR_FILE_NOT_FOUND, 10));
    // The type and size may be one variable.
    let qw = [0x78, 0x56, 0x34, 0x12, 0x21, 0x43, 0x65, 0x87];
    assert_eq!(r.set(k, "BIN32", REG_BINARY, &qw[..4]), 0);
    let (n, v, buf) = (r.a("BIN32"), r.dword(4), r.alloc(8));
    assert_eq!(
        RegQueryValueEx::<CStrPtr>(&mut r.h.cx(), k, n, Ptr(0), Ptr(v), Ptr(buf), Ptr(v)).unwrap(),
        0
    );
    assert_eq!(r.bytes(buf, 4), &qw[..4]);
    // Data pointer without a size pointer, and a reserved pointer: invalid.
    assert_eq!(
        RegQueryValueEx::<CStrPtr>(&mut r.h.cx(), k, n, Ptr(0), Ptr(0), Ptr(buf), Ptr(0)).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    assert_eq!(
        RegQueryValueEx::<CStrPtr>(&mut r.h.cx(), k, n, Ptr(buf), Ptr(0), Ptr(0), Ptr(0)).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    // Every type round-trips; string types convert for the A form.
    assert_eq!(r.set(k, "DWORD", REG_DWORD, &qw[..4]), 0);
    assert_eq!(r.set(k, "BIN64", REG_BINARY, &qw), 0);
    assert_eq!(r.set(k, "None", 0, b"raw"), 0);
    assert_eq!(r.set(k, "Multi", REG_MULTI_SZ, b"one\0two\0\0"), 0);
    assert_eq!(r.set(k, "Exp", REG_EXPAND_SZ, b"%PATH%\\x\0"), 0);
    for (name, ty, want) in [
        ("DWORD", REG_DWORD, &qw[..4]),
        ("BIN64", REG_BINARY, &qw[..]),
        ("None", 0, &b"raw"[..]),
        ("Multi", REG_MULTI_SZ, &b"one\0two\0\0"[..]),
        ("Exp", REG_EXPAND_SZ, &b"%PATH%\\x\0"[..]),
    ] {
        let (code, t, size, data) = r.query(k, Some(name), 64);
        assert_eq!((code, t), (0, ty), "{name}");
        assert_eq!(&data[..size as usize], want, "{name}");
    }
    let (_, ty, size, data) = r.query_w(k, "Multi", 64);
    assert_eq!(
        (ty, &data[..size as usize]),
        (REG_MULTI_SZ, &utf16("one\0two\0\0")[..])
    );
    // Invalid and deleted handles.
    assert_eq!(r.query(0xcafebabe, Some("x"), 4).0, ERROR_INVALID_HANDLE);
    assert_eq!(r.query(0, Some("x"), 4).0, ERROR_INVALID_HANDLE);
}

#[test]
fn strings_without_terminator() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test\string_termination");
    // Off by two: no NUL is stored, and A queries add one only when there is room.
    let n = r.a("stringtest");
    let s = r.data(b"FullString\0");
    assert_eq!(
        RegSetValueEx::<CStrPtr>(&mut r.h.cx(), k, n, 0, REG_SZ, s, 9).unwrap(),
        0
    );
    assert_eq!(r.size_of(k, "stringtest"), (0, 9));
    let (code, _, size, data) = r.query(k, Some("stringtest"), 9);
    assert_eq!((code, size, &data[..10]), (0, 9, &b"FullStrin\xbd"[..]));
    let (code, _, size, data) = r.query(k, Some("stringtest"), 10);
    assert_eq!((code, size, &data[..10]), (0, 9, &b"FullStrin\0"[..]));
    // The same for RegEnumValueA.
    let (name, nsize, buf, bsize) = (r.alloc(11), r.dword(11), r.alloc(16), r.dword(9));
    r.fill(buf, 16, 0xbd);
    let code = RegEnumValue::<CStrPtr>(
        &mut r.h.cx(),
        k,
        0,
        Ptr(name),
        Ptr(nsize),
        Ptr(0),
        Ptr(0),
        Ptr(buf),
        Ptr(bsize),
    )
    .unwrap();
    assert_eq!(
        (code, r.h.cstr(name), r.u32(bsize)),
        (0, "stringtest".to_string(), 9)
    );
    assert_eq!(r.bytes(buf, 10), b"FullStrin\xbd");
    r.h.proc.mem.write_u32(bsize, 10).unwrap();
    r.h.proc.mem.write_u32(nsize, 11).unwrap();
    RegEnumValue::<CStrPtr>(
        &mut r.h.cx(),
        k,
        0,
        Ptr(name),
        Ptr(nsize),
        Ptr(0),
        Ptr(0),
        Ptr(buf),
        Ptr(bsize),
    )
    .unwrap();
    assert_eq!(r.bytes(buf, 10), b"FullStrin\0");
}

#[test]
fn enum_value_overflow_rules() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test\TestKey");
    assert_eq!(r.set(k, "Test", REG_BINARY, b""), 0);
    let (value, vc, ty, data, dc) = (r.alloc(40), r.dword(0), r.dword(0), r.alloc(40), r.dword(0));
    let call = |r: &mut R, vcount: u32, dcount: u32, wide: bool| {
        r.h.proc.mem.write_u32(vc, vcount).unwrap();
        r.h.proc.mem.write_u32(dc, dcount).unwrap();
        r.h.proc.mem.write_u32(ty, 1234).unwrap();
        r.fill(value, 40, b'x');
        r.fill(data, 40, b'x');
        let f: EnumValueFn = if wide {
            RegEnumValue::<WStrPtr>
        } else {
            RegEnumValue::<CStrPtr>
        };
        let code = f(
            &mut r.h.cx(),
            k,
            0,
            Ptr(value),
            Ptr(vc),
            Ptr(0),
            Ptr(ty),
            Ptr(data),
            Ptr(dc),
        )
        .unwrap();
        (code, r.u32(vc), r.u32(dc), r.u32(ty))
    };
    assert_eq!(call(&mut r, 20, 20, false), (0, 4, 0, REG_BINARY));
    assert_eq!(r.h.cstr(value), "Test");
    assert_eq!(r.bytes(data, 1), b"x");
    assert_eq!(r.set(k, "Test", REG_SZ, b"foobar\0"), 0);
    // Both too small, the name too small, an empty name buffer: nothing written
    // but the type and the data size.
    for (vcount, dcount) in [(2, 2), (3, 16), (0, 16)] {
        assert_eq!(
            call(&mut r, vcount, dcount, false),
            (ERROR_MORE_DATA, vcount, 7, REG_SZ)
        );
        assert_eq!(
            (r.bytes(value, 2), r.bytes(data, 2)),
            (b"xx".to_vec(), b"xx".to_vec())
        );
    }
    // Only the data too small.
    assert_eq!(call(&mut r, 20, 2, false), (ERROR_MORE_DATA, 20, 7, REG_SZ));
    assert_eq!(r.bytes(value, 2), b"xx");
    assert_eq!(call(&mut r, 20, 20, false), (0, 4, 7, REG_SZ));
    assert_eq!(
        (r.h.cstr(value), r.h.cstr(data)),
        ("Test".to_string(), "foobar".to_string())
    );
    // Missing name buffer or count.
    let f = |r: &mut R, v: u32, c: u32| {
        RegEnumValue::<CStrPtr>(
            &mut r.h.cx(),
            k,
            0,
            Ptr(v),
            Ptr(c),
            Ptr(0),
            Ptr(ty),
            Ptr(data),
            Ptr(dc),
        )
        .unwrap()
    };
    assert_eq!(f(&mut r, 0, 0), ERROR_INVALID_PARAMETER);
    assert_eq!(f(&mut r, 0, vc), ERROR_INVALID_PARAMETER);
    assert_eq!(f(&mut r, value, 0), ERROR_INVALID_PARAMETER);
    // The W form: sizes in bytes of UTF-16; with only the data too small the name is
    // still stored.
    let (n, s) = (r.w("Test"), r.data(&utf16("foobar\0")));
    assert_eq!(
        RegSetValueEx::<WStrPtr>(&mut r.h.cx(), k, n, 0, REG_SZ, s, 14).unwrap(),
        0
    );
    assert_eq!(call(&mut r, 2, 2, true), (ERROR_MORE_DATA, 2, 14, REG_SZ));
    assert_eq!(call(&mut r, 3, 20, true), (ERROR_MORE_DATA, 3, 14, REG_SZ));
    assert_eq!(r.bytes(value, 2), b"xx");
    assert_eq!(call(&mut r, 20, 2, true), (ERROR_MORE_DATA, 4, 14, REG_SZ));
    assert_eq!(
        (r.h.wstr(value), r.bytes(data, 2)),
        ("Test".to_string(), b"xx".to_vec())
    );
    assert_eq!(call(&mut r, 20, 20, true), (0, 4, 14, REG_SZ));
    assert_eq!(r.h.wstr(data), "foobar");
    assert_eq!(call(&mut r, 20, 20, true), (0, 4, 14, REG_SZ));
    // Past the end.
    let code = RegEnumValue::<CStrPtr>(
        &mut r.h.cx(),
        k,
        1,
        Ptr(value),
        Ptr(vc),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
    )
    .unwrap();
    assert_eq!(code, ERROR_NO_MORE_ITEMS);
}

#[test]
fn values_enumerate_in_set_order_and_names_ignore_case() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, "test_rw_order");
    for n in ["A", "C", "D", "B"] {
        assert_eq!(r.set(k, n, REG_DWORD, &[0; 4]), 0);
    }
    let (name, len) = (r.alloc(4), r.dword(0));
    let mut names = Vec::new();
    for i in 0..4 {
        r.h.proc.mem.write_u32(len, 2).unwrap();
        let code = RegEnumValue::<CStrPtr>(
            &mut r.h.cx(),
            k,
            i,
            Ptr(name),
            Ptr(len),
            Ptr(0),
            Ptr(0),
            Ptr(0),
            Ptr(0),
        )
        .unwrap();
        assert_eq!(code, 0);
        names.push(r.h.cstr(name));
    }
    assert_eq!(names, ["A", "C", "D", "B"]);
    assert_eq!(r.set(k, "b", REG_SZ, b"x\0"), 0);
    let (_, ty, _, _) = r.query(k, Some("B"), 4);
    assert_eq!(ty, REG_SZ);
    let (code, k2) = r.open(HKEY_CURRENT_USER, "TEST_RW_ORDER");
    assert_eq!(code, 0);
    assert_eq!(r.query(k2, Some("a"), 4).0, 0);
    let n = r.a("c");
    assert_eq!(RegDeleteValue::<CStrPtr>(&mut r.h.cx(), k2, n).unwrap(), 0);
    assert_eq!(
        RegDeleteValue::<CStrPtr>(&mut r.h.cx(), k2, n).unwrap(),
        ERROR_FILE_NOT_FOUND
    );
}

#[test]
fn open_key_rules() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let main = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
    let (code, again) = r.open(HKEY_CURRENT_USER, r"Software\Wine\Test");
    assert_eq!(code, 0);
    assert_ne!(again, main);
    assert_eq!(r.open(HKEY_CURRENT_USER, r"Software\Wine\Test\\").0, 0);
    assert_eq!(
        r.open(HKEY_CURRENT_USER, r"Software\Wine\Nonexistent"),
        (ERROR_FILE_NOT_FOUND, 0)
    );
    assert_eq!(
        r.open(HKEY_CURRENT_USER, r"\Software\Wine\Test").0,
        ERROR_BAD_PATHNAME
    );
    // HKEY_CURRENT_USER is HKEY_USERS\.DEFAULT.
    assert_eq!(r.open(HKEY_USERS, r".default\software\wine\test").0, 0);
    let out = r.dword(0x1234);
    let ok = |r: &mut R, h: u32, sub: CStrPtr| {
        r.h.proc.mem.write_u32(out, 0x1234).unwrap();
        let code = RegOpenKey::<CStrPtr>(&mut r.h.cx(), h, sub, Ptr(out)).unwrap();
        (code, r.u32(out))
    };
    let empty = r.a("");
    assert_eq!(
        ok(&mut r, HKEY_CURRENT_USER, CStrPtr(0)),
        (0, HKEY_CURRENT_USER)
    );
    assert_eq!(ok(&mut r, HKEY_CURRENT_USER, empty), (0, HKEY_CURRENT_USER));
    assert_eq!(ok(&mut r, main, empty), (0, main));
    assert_eq!(ok(&mut r, 0, CStrPtr(0)), (0, 0));
    let sub = r.a(r"Software\Wine\Test");
    assert_eq!(ok(&mut r, 0, sub), (ERROR_INVALID_HANDLE, 0x1234));
    assert_eq!(
        RegOpenKey::<CStrPtr>(&mut r.h.cx(), HKEY_CURRENT_USER, sub, Ptr(0)).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    // RegOpenKeyEx: an empty path gives a predefined key back, others a new handle.
    assert_eq!(r.open(HKEY_CLASSES_ROOT, ""), (0, HKEY_CLASSES_ROOT));
    let (code, h) = r.open(main, "");
    assert_eq!(code, 0);
    assert_ne!(h, main);
    assert_eq!(RegCloseKey(&mut r.h.cx(), h).unwrap(), 0);
    assert_eq!(RegCloseKey(&mut r.h.cx(), h).unwrap(), ERROR_INVALID_HANDLE);
    assert_eq!(RegCloseKey(&mut r.h.cx(), 0).unwrap(), ERROR_INVALID_HANDLE);
    assert_eq!(RegCloseKey(&mut r.h.cx(), HKEY_LOCAL_MACHINE).unwrap(), 0);
    assert_eq!(r.open(0, "").0, ERROR_INVALID_HANDLE);
    // HKEY_PERFORMANCE_DATA says it is not implemented.
    let s = r.a("x");
    assert!(
        RegOpenKeyEx::<CStrPtr>(&mut r.h.cx(), HKEY_PERFORMANCE_DATA, s, 0, 0, Ptr(out)).is_err()
    );
}

#[test]
fn create_key_disposition_class_and_volatility() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let (out, disp) = (r.dword(0), r.dword(0));
    let create = |r: &mut R, parent: u32, path: &str, class: Option<&str>, opts: u32| {
        let s = r.a(path);
        let c = class.map_or(CStrPtr(0), |c| r.a(c));
        let code = RegCreateKeyEx::<CStrPtr>(
            &mut r.h.cx(),
            parent,
            s,
            0,
            c,
            opts,
            0xf003f,
            Ptr(0),
            Ptr(out),
            Ptr(disp),
        )
        .unwrap();
        (code, r.u32(out), r.u32(disp))
    };
    let (code, k, d) = create(
        &mut r,
        HKEY_CURRENT_USER,
        r"Software\Wine\Test\Sub",
        Some("subkey class"),
        0,
    );
    assert_eq!((code, d), (0, REG_CREATED_NEW_KEY));
    let (code, k2, d) = create(
        &mut r,
        HKEY_CURRENT_USER,
        r"software\WINE\test\sub",
        None,
        0,
    );
    assert_eq!((code, d), (0, REG_OPENED_EXISTING_KEY));
    assert_ne!(k, k2);
    assert_eq!(
        create(&mut r, k, r"\Subkey3", None, 0).0,
        ERROR_BAD_PATHNAME
    );
    assert_eq!(create(&mut r, k, "Subkey4\\\\", None, 0).0, 0);
    // A stable key cannot go below a volatile one; opening an existing one works.
    let (code, vol, _) = create(&mut r, k, "Volatile", None, REG_OPTION_VOLATILE);
    assert_eq!(code, 0);
    assert_eq!(
        create(&mut r, vol, "Subkey2", None, 0).0,
        ERROR_CHILD_MUST_BE_VOLATILE
    );
    assert_eq!(
        create(&mut r, vol, "Subkey2", None, REG_OPTION_VOLATILE).0,
        0
    );
    assert_eq!(create(&mut r, vol, "Subkey2", None, 0).0, 0);
    // The class is reported by RegQueryInfoKey and RegEnumKeyEx.
    let (cls, len) = (r.alloc(32), r.dword(32));
    let code = RegQueryInfoKey::<CStrPtr>(
        &mut r.h.cx(),
        k,
        Ptr(cls),
        Ptr(len),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
    )
    .unwrap();
    assert_eq!(
        (code, r.u32(len), r.h.cstr(cls)),
        (0, 12, "subkey class".to_string())
    );
    // RegCreateKey with an empty path gives back the handle passed in.
    let (e, o) = (r.a(""), r.dword(0));
    assert_eq!(
        RegCreateKey::<CStrPtr>(&mut r.h.cx(), k, e, Ptr(o)).unwrap(),
        0
    );
    assert_eq!(r.u32(o), k);
}

#[test]
fn enum_keys_sorted_with_sizes() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_LOCAL_MACHINE, r"Software\Vendor");
    for n in ["beta", "Alpha", "gamma"] {
        r.create(k, n);
    }
    let name = r.alloc(32);
    let mut names = Vec::new();
    for i in 0.. {
        match RegEnumKey::<CStrPtr>(&mut r.h.cx(), k, i, Ptr(name), 32).unwrap() {
            0 => names.push(r.h.cstr(name)),
            ERROR_NO_MORE_ITEMS => break,
            c => panic!("{c}"),
        }
    }
    assert_eq!(names, ["Alpha", "beta", "gamma"]);
    assert_eq!(
        RegEnumKey::<CStrPtr>(&mut r.h.cx(), k, 0, Ptr(name), 5).unwrap(),
        ERROR_MORE_DATA
    );
    assert_eq!(
        RegEnumKey::<CStrPtr>(&mut r.h.cx(), k, 0, Ptr(name), 6).unwrap(),
        0
    );
    let (len, ft) = (r.dword(5), r.alloc(8));
    let ex = |r: &mut R, wide: bool| {
        let f: EnumKeyExFn = if wide {
            RegEnumKeyEx::<WStrPtr>
        } else {
            RegEnumKeyEx::<CStrPtr>
        };
        f(
            &mut r.h.cx(),
            k,
            2,
            Ptr(name),
            Ptr(len),
            Ptr(0),
            Ptr(0),
            Ptr(0),
            Ptr(ft),
        )
        .unwrap()
    };
    assert_eq!(ex(&mut r, false), ERROR_MORE_DATA);
    assert_eq!(r.u32(len), 5);
    r.h.proc.mem.write_u32(len, 6).unwrap();
    assert_eq!(ex(&mut r, true), 0);
    assert_eq!((r.u32(len), r.h.wstr(name)), (5, "gamma".to_string()));
    assert_ne!(r.h.proc.mem.read_u64(ft).unwrap(), 0);
}

#[test]
fn query_info_key_counts_and_lengths() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let main = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
    let (s, c, o) = (r.a("subkey"), r.a("subkey class"), r.dword(0));
    assert_eq!(
        RegCreateKeyEx::<CStrPtr>(&mut r.h.cx(), main, s, 0, c, 0, 0, Ptr(0), Ptr(o), Ptr(0))
            .unwrap(),
        0
    );
    let sub = r.u32(o);
    let f: Vec<u32> = (0..9).map(|_| r.dword(0xdead)).collect();
    let ft = r.alloc(8);
    let info = |r: &mut R, wide: bool, class: u32| {
        let g: QueryInfoFn = if wide {
            RegQueryInfoKey::<WStrPtr>
        } else {
            RegQueryInfoKey::<CStrPtr>
        };
        let code = g(
            &mut r.h.cx(),
            sub,
            Ptr(class),
            Ptr(f[0]),
            Ptr(0),
            Ptr(f[1]),
            Ptr(f[2]),
            Ptr(f[3]),
            Ptr(f[4]),
            Ptr(f[5]),
            Ptr(f[6]),
            Ptr(f[7]),
            Ptr(ft),
        )
        .unwrap();
        let v: Vec<u32> = f[..8].iter().map(|&p| r.u32(p)).collect();
        (code, v)
    };
    // classlen, subkeys, maxsubkeylen, maxclasslen, values, maxvaluenamelen,
    // maxvaluelen, security descriptor size.
    for wide in [false, true] {
        r.h.proc.mem.write_u32(f[0], 0).unwrap();
        assert_eq!(info(&mut r, wide, 0), (0, vec![12, 0, 0, 0, 0, 0, 0, 0]));
    }
    let (ss, sc) = (r.a("subsubkey"), r.a("subsubkey class"));
    assert_eq!(
        RegCreateKeyEx::<CStrPtr>(&mut r.h.cx(), sub, ss, 0, sc, 0, 0, Ptr(0), Ptr(o), Ptr(0))
            .unwrap(),
        0
    );
    assert_eq!(r.set(sub, "", REG_SZ, b"data\0"), 0);
    for wide in [false, true] {
        assert_eq!(info(&mut r, wide, 0), (0, vec![12, 1, 9, 15, 1, 0, 10, 0]));
    }
    assert_eq!(r.set(sub, "value one", REG_SZ, b"first value data\0"), 0);
    assert_eq!(r.set(sub, "value 2", REG_SZ, b"second value data\0"), 0);
    for wide in [false, true] {
        let (_, v) = info(&mut r, wide, 0);
        assert_eq!((v[4], v[5], v[6]), (3, 9, 36));
    }
    assert_ne!(r.h.proc.mem.read_u64(ft).unwrap(), 0);
    // Class buffers: one character, one too few, enough.
    let cls = r.alloc(32);
    for (cap, code, len, text) in [
        (1, ERROR_MORE_DATA, 0, ""),
        (12, ERROR_MORE_DATA, 11, "subkey clas"),
        (13, 0, 12, "subkey class"),
    ] {
        r.fill(cls, 32, 0x55);
        r.h.proc.mem.write_u32(f[0], cap).unwrap();
        let (c, v) = info(&mut r, false, cls);
        assert_eq!(
            (c, v[0], r.h.cstr(cls)),
            (code, len, text.to_string()),
            "{cap}"
        );
    }
    r.fill(cls, 32, 0x55);
    r.h.proc.mem.write_u32(f[0], 12).unwrap();
    let (c, v) = info(&mut r, true, cls);
    assert_eq!(
        (c, v[0], r.bytes(cls, 2)),
        (ERROR_MORE_DATA, 12, vec![0x55, 0x55])
    );
    let code = RegQueryInfoKey::<CStrPtr>(
        &mut r.h.cx(),
        sub,
        Ptr(cls),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
    )
    .unwrap();
    assert_eq!(code, ERROR_INVALID_PARAMETER);
    let code = RegQueryInfoKey::<CStrPtr>(
        &mut r.h.cx(),
        0,
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
        Ptr(0),
    )
    .unwrap();
    assert_eq!(code, ERROR_INVALID_HANDLE);
}

#[test]
fn query_value_reads_default_values() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let main = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
    let sub = r.create(main, "subkey");
    let d = r.a("data");
    assert_eq!(
        RegSetValue::<CStrPtr>(&mut r.h.cx(), sub, CStrPtr(0), REG_SZ, Ptr(d.0), 4).unwrap(),
        0
    );
    let (s, val, size) = (r.a("subkey"), r.alloc(260), r.dword(260));
    let q = |r: &mut R, h: u32, sub: CStrPtr, v: u32, sz: u32| {
        RegQueryValue::<CStrPtr>(&mut r.h.cx(), h, sub, Ptr(v), Ptr(sz)).unwrap()
    };
    assert_eq!(q(&mut r, 0xcafebabe, s, val, size), ERROR_INVALID_HANDLE);
    assert_eq!(q(&mut r, main, s, 0, size), 0);
    assert_eq!(r.u32(size), 5);
    assert_eq!(q(&mut r, main, s, val, 0), ERROR_INVALID_PARAMETER);
    assert_eq!(q(&mut r, main, s, 0, 0), 0);
    r.h.proc.mem.write_u32(size, 1).unwrap();
    r.h.put_cstr(val, "");
    assert_eq!(q(&mut r, main, s, val, size), ERROR_MORE_DATA);
    assert_eq!((r.u32(size), r.h.cstr(val)), (5, String::new()));
    r.h.proc.mem.write_u32(size, 260).unwrap();
    assert_eq!(q(&mut r, main, s, val, size), 0);
    assert_eq!((r.u32(size), r.h.cstr(val)), (5, "data".to_string()));
    // W: sizes in bytes.
    r.h.proc.mem.write_u32(size, 0).unwrap();
    assert_eq!(
        RegQueryValue::<WStrPtr>(&mut r.h.cx(), sub, WStrPtr(0), Ptr(val), Ptr(size)).unwrap(),
        ERROR_MORE_DATA
    );
    assert_eq!(r.u32(size), 10);
    // RegSetValueW ignores cbData: the stored string is terminated.
    let dw = r.w("data");
    assert_eq!(
        RegSetValue::<WStrPtr>(&mut r.h.cx(), sub, WStrPtr(0), REG_SZ, Ptr(dw.0), 8).unwrap(),
        0
    );
    r.h.proc.mem.write_u32(size, 20).unwrap();
    assert_eq!(
        RegQueryValue::<WStrPtr>(&mut r.h.cx(), sub, WStrPtr(0), Ptr(val), Ptr(size)).unwrap(),
        0
    );
    assert_eq!((r.u32(size), r.h.wstr(val)), (10, "data".to_string()));
    // A key without a default value reads as an empty string.
    let bare = r.create(main, "bare");
    r.h.proc.mem.write_u32(size, 260).unwrap();
    r.h.put_cstr(val, "junk");
    assert_eq!(q(&mut r, bare, CStrPtr(0), val, size), 0);
    assert_eq!((r.u32(size), r.h.cstr(val)), (1, String::new()));
    assert_eq!(r.query(bare, None, 10).0, ERROR_FILE_NOT_FOUND);
    // RegSetValue creates the subkey.
    let (p, d) = (r.a(r"new\deeper"), r.a("x"));
    assert_eq!(
        RegSetValue::<CStrPtr>(&mut r.h.cx(), main, p, REG_SZ, Ptr(d.0), 0).unwrap(),
        0
    );
    let (code, deeper) = r.open(main, r"NEW\DEEPER");
    assert_eq!(code, 0);
    assert_eq!(r.query(deeper, Some(""), 10).3[..2], *b"x\0");
}

#[test]
fn delete_key_nt_refuses_subkeys_9x_removes_the_tree() {
    for (version, subtree_ok) in [(WinVersion::Win98, true), (WinVersion::Nt4, false)] {
        let (_t, root) = tmp();
        let mut r = reg_at(&root, version);
        let main = r.create(HKEY_CURRENT_USER, r"Software\Wine\Test");
        let n = r.a("x");
        assert_eq!(
            RegDeleteKey::<CStrPtr>(&mut r.h.cx(), main, CStrPtr(0)).unwrap(),
            ERROR_INVALID_PARAMETER
        );
        assert_eq!(
            RegDeleteKey::<CStrPtr>(&mut r.h.cx(), main, n).unwrap(),
            ERROR_FILE_NOT_FOUND
        );
        let k = r.create(main, "deleteme");
        let empty = r.a("");
        assert_eq!(RegDeleteKey::<CStrPtr>(&mut r.h.cx(), k, empty).unwrap(), 0);
        assert_eq!(r.open(main, "deleteme").0, ERROR_FILE_NOT_FOUND);
        // The handle now names a deleted key.
        assert_eq!(r.set(k, "v", REG_DWORD, &[0; 4]), ERROR_KEY_DELETED);
        assert_eq!(RegCloseKey(&mut r.h.cx(), k).unwrap(), 0);
        let tree = r.create(main, r"tree\leaf");
        let t = r.a("TREE");
        let code = RegDeleteKey::<CStrPtr>(&mut r.h.cx(), main, t).unwrap();
        if subtree_ok {
            assert_eq!(code, 0);
            assert_eq!(r.open(main, "tree").0, ERROR_FILE_NOT_FOUND);
            assert_eq!(r.query(tree, Some("x"), 4).0, ERROR_KEY_DELETED);
        } else {
            assert_eq!(code, ERROR_ACCESS_DENIED);
            assert_eq!(r.open(main, r"tree\leaf").0, 0);
        }
        assert_eq!(
            RegDeleteKey::<CStrPtr>(&mut r.h.cx(), HKEY_LOCAL_MACHINE, empty).unwrap(),
            ERROR_ACCESS_DENIED
        );
    }
}

#[test]
fn registry_survives_a_restart_and_can_be_edited() {
    let (_t, root) = tmp();
    {
        let mut r = reg_at(&root, WinVersion::Win98);
        let k = r.create(HKEY_CURRENT_USER, r"Software\Vendor\Game");
        let d = r.a("default");
        assert_eq!(
            RegSetValue::<CStrPtr>(&mut r.h.cx(), k, CStrPtr(0), REG_SZ, Ptr(d.0), 0).unwrap(),
            0
        );
        assert_eq!(r.set(k, "Player", REG_SZ, b"Caf\xe9 \"Q\"\\x\0"), 0);
        assert_eq!(r.set(k, "Level", REG_DWORD, &7u32.to_le_bytes()), 0);
        assert_eq!(r.set(k, "Blob", REG_BINARY, &[1, 2, 3, 250]), 0);
        assert_eq!(r.set(k, "Path", REG_EXPAND_SZ, b"%WINDIR%\\x\0"), 0);
        assert_eq!(r.set(k, "List", REG_MULTI_SZ, b"a\0b\0\0"), 0);
        assert_eq!(r.set_w(k, "Wide", REG_SZ, &utf16("Ωmega\0")), 0);
        r.create(HKEY_CLASSES_ROOT, r".sav");
        let (s, o) = (r.a("Temp"), r.dword(0));
        assert_eq!(
            RegCreateKeyEx::<CStrPtr>(
                &mut r.h.cx(),
                k,
                s,
                0,
                CStrPtr(0),
                REG_OPTION_VOLATILE,
                0,
                Ptr(0),
                Ptr(o),
                Ptr(0)
            )
            .unwrap(),
            0
        );
        // A change to the seeded keys is saved too.
        let (_, cv) = r.open(
            HKEY_LOCAL_MACHINE,
            r"Software\Microsoft\Windows\CurrentVersion",
        );
        assert_eq!(r.set(cv, "RegisteredOwner", REG_SZ, b"Tester\0"), 0);
    }
    let text = std::fs::read_to_string(root.join("overlay").join(REGISTRY_FILE)).unwrap();
    assert!(text.starts_with("Windows Registry Editor Version 5.00\n"));
    assert!(text.contains("[HKEY_USERS\\.DEFAULT\\Software\\Vendor\\Game]\n@=\"default\"\n\"Player\"=\"Café \\\"Q\\\"\\\\x\"\n"));
    assert!(text.contains("\"Level\"=dword:00000007\n"));
    assert!(text.contains("[HKEY_LOCAL_MACHINE\\Software\\Classes\\.sav]\n"));
    assert!(!text.contains("Temp"));
    assert!(!text.contains("Hardware"));
    {
        let mut r = reg_at(&root, WinVersion::Win98);
        let (code, k) = r.open(HKEY_CURRENT_USER, r"software\vendor\game");
        assert_eq!(code, 0);
        for (name, ty, data) in [
            ("Player", REG_SZ, &b"Caf\xe9 \"Q\"\\x\0"[..]),
            ("Level", REG_DWORD, &7u32.to_le_bytes()[..]),
            ("Blob", REG_BINARY, &[1, 2, 3, 250][..]),
            ("Path", REG_EXPAND_SZ, &b"%WINDIR%\\x\0"[..]),
            ("List", REG_MULTI_SZ, &b"a\0b\0\0"[..]),
            ("", REG_SZ, &b"default\0"[..]),
        ] {
            let (code, t, size, got) = r.query(k, Some(name), 64);
            assert_eq!((code, t), (0, ty), "{name}");
            assert_eq!(&got[..size as usize], data, "{name}");
        }
        let (_, _, size, got) = r.query_w(k, "Wide", 64);
        assert_eq!(&got[..size as usize], utf16("Ωmega\0"));
        assert_eq!(r.open(k, "Temp").0, ERROR_FILE_NOT_FOUND);
        assert_eq!(r.open(HKEY_CLASSES_ROOT, ".SAV").0, 0);
        let (_, cv) = r.open(
            HKEY_LOCAL_MACHINE,
            r"Software\Microsoft\Windows\CurrentVersion",
        );
        assert_eq!(
            &r.query(cv, Some("RegisteredOwner"), 10).3[..7],
            b"Tester\0"
        );
        // The processor key is rebuilt, not loaded.
        assert_eq!(
            r.open(
                HKEY_LOCAL_MACHINE,
                r"Hardware\Description\System\CentralProcessor\0"
            )
            .0,
            0
        );
    }
    // A user edit (REGEDIT4, alias roots, a deletion) is what the next run sees.
    let edited = text.replace("\"Level\"=dword:00000007", "\"Level\"=dword:0000000a")
        + "\r\n[HKEY_CURRENT_USER\\Software\\Vendor\\Game\\Added]\r\n\"New\"=\"yes\"\r\n[-HKEY_CLASSES_ROOT\\.sav]\r\n";
    std::fs::write(root.join("overlay").join(REGISTRY_FILE), edited).unwrap();
    let mut r = reg_at(&root, WinVersion::Win98);
    let (_, k) = r.open(HKEY_CURRENT_USER, r"Software\Vendor\Game");
    assert_eq!(&r.query(k, Some("Level"), 4).3[..4], 10u32.to_le_bytes());
    let (code, added) = r.open(k, "Added");
    assert_eq!(code, 0);
    assert_eq!(&r.query(added, Some("New"), 8).3[..4], b"yes\0");
    assert_eq!(r.open(HKEY_CLASSES_ROOT, ".sav").0, ERROR_FILE_NOT_FOUND);
}

#[test]
fn a_broken_registry_file_is_reported() {
    let (_t, root) = tmp();
    std::fs::create_dir_all(root.join("overlay")).unwrap();
    std::fs::write(
        root.join("overlay").join(REGISTRY_FILE),
        "REGEDIT4\n[HKLM\\X]\n\"V\"=bogus\n",
    )
    .unwrap();
    let mut r = reg_at(&root, WinVersion::Win98);
    let (s, o) = (r.a("X"), r.dword(0));
    let e =
        RegOpenKeyEx::<CStrPtr>(&mut r.h.cx(), HKEY_LOCAL_MACHINE, s, 0, 0, Ptr(o)).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn notifications_signal_their_event_once() {
    let (_t, root) = tmp();
    let mut r = reg_at(&root, WinVersion::Win98);
    let k = r.create(HKEY_CURRENT_USER, r"Software\Watch");
    let sub = r.create(k, "Sub");
    let ev = r.kernel32("CreateEventA", &[0, 1, 0, 0]) as u32;
    assert_ne!(ev, 0);
    let signalled = |r: &mut R| r.kernel32("WaitForSingleObject", &[ev, 0]) == 0;
    let notify = |r: &mut R, key: u32, subtree: bool, filter: u32| {
        RegNotifyChangeKeyValue(&mut r.h.cx(), key, subtree, filter, ev, true).unwrap()
    };
    // A value change below the key is seen only with bWatchSubtree.
    assert_eq!(notify(&mut r, k, false, REG_NOTIFY_CHANGE_LAST_SET), 0);
    assert_eq!(r.set(sub, "v", REG_DWORD, &[1, 0, 0, 0]), 0);
    assert!(!signalled(&mut r));
    assert_eq!(r.set(k, "v", REG_DWORD, &[1, 0, 0, 0]), 0);
    assert!(signalled(&mut r));
    r.kernel32("ResetEvent", &[ev]);
    // One-shot: a second change does not signal again.
    assert_eq!(r.set(k, "v", REG_DWORD, &[2, 0, 0, 0]), 0);
    assert!(!signalled(&mut r));
    // Subtree and filter: a value change does not satisfy REG_NOTIFY_CHANGE_NAME, a
    // new subkey below does.
    assert_eq!(notify(&mut r, k, true, REG_NOTIFY_CHANGE_NAME), 0);
    assert_eq!(r.set(sub, "w", REG_DWORD, &[1, 0, 0, 0]), 0);
    assert!(!signalled(&mut r));
    r.create(sub, "Deeper");
    assert!(signalled(&mut r));
    r.kernel32("ResetEvent", &[ev]);
    // Closing the watched handle signals.
    assert_eq!(notify(&mut r, sub, false, REG_NOTIFY_CHANGE_LAST_SET), 0);
    assert_eq!(RegCloseKey(&mut r.h.cx(), sub).unwrap(), 0);
    assert!(signalled(&mut r));
    r.kernel32("ResetEvent", &[ev]);
    // Deleting the watched key signals.
    let gone = r.create(k, "Gone");
    assert_eq!(notify(&mut r, gone, false, REG_NOTIFY_CHANGE_LAST_SET), 0);
    let e = r.a("");
    assert_eq!(RegDeleteKey::<CStrPtr>(&mut r.h.cx(), gone, e).unwrap(), 0);
    assert!(signalled(&mut r));
    // Bad arguments, and the synchronous form is reported as not implemented.
    assert_eq!(
        RegNotifyChangeKeyValue(&mut r.h.cx(), k, false, 0, ev, true).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    assert_eq!(
        RegNotifyChangeKeyValue(&mut r.h.cx(), k, false, 4, 0, true).unwrap(),
        ERROR_INVALID_PARAMETER
    );
    assert_eq!(
        RegNotifyChangeKeyValue(&mut r.h.cx(), k, false, 4, k, true).unwrap(),
        ERROR_INVALID_HANDLE
    );
    assert!(RegNotifyChangeKeyValue(&mut r.h.cx(), k, false, 4, ev, false).is_err());
    // RegFlushKey checks the handle.
    assert_eq!(RegFlushKey(&mut r.h.cx(), k).unwrap(), 0);
    assert_eq!(
        RegFlushKey(&mut r.h.cx(), 0x4444).unwrap(),
        ERROR_INVALID_HANDLE
    );
}
