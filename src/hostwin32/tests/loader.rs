//! PE loader tests on the committed binaries in tests/data (see build.sh there).
//! Expected addresses come from the files themselves, read with the `object`
//! crate's own PE parser (or, where noted, from `objdump -p` of the files);
//! expected program results are computed by hand from the C sources.

use object::LittleEndian as LE;
use object::read::pe::{ExportTarget, Import, PeFile32};
use std::sync::Arc;
use winterp_core::mem::Prot;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::loader::{
    self, ExportName, LoadError, MemoryDlls, ResId, find_resource, resolve_export,
    resource_children,
};
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::startup;
use winterp_hostwin32::thread::{GuestThread, ThreadEnd};
use winterp_hostwin32::{hle_dlls, teb};

fn data(name: &str) -> Vec<u8> {
    let p = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn new_proc(program: &str) -> Arc<Process> {
    let cfg = ProcessConfig::new(program.into(), format!("C:\\TEST\\{program}"));
    Process::new(cfg, Arc::new(CaptureHost::default()), &hle_dlls()).unwrap()
}

fn dlls() -> Arc<MemoryDlls> {
    Arc::new(MemoryDlls {
        files: vec![
            ("tlib.dll".into(), data("tlib.dll")),
            ("tlib2.dll".into(), data("tlib2.dll")),
        ],
    })
}

fn base_of(proc: &Process, name: &str) -> u32 {
    proc.modules
        .read()
        .unwrap()
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("{name} not loaded"))
        .base
}

fn u32_at(proc: &Process, a: u32) -> u32 {
    let mut b = [0u8; 4];
    proc.mem.read_bytes(a, &mut b).unwrap();
    u32::from_le_bytes(b)
}

/// RVA of an export of a file, by name or ordinal, according to `object`.
fn export_rva(file: &str, want: &ExportName) -> u32 {
    let bytes = data(file);
    let pe = PeFile32::parse(&*bytes).unwrap();
    let t = pe.export_table().unwrap().unwrap();
    let ord = match want {
        ExportName::Ordinal(o) => *o as u32,
        ExportName::Name(n) => {
            let (_, idx) = t
                .name_iter()
                .find(|(p, _)| t.name_from_pointer(*p).unwrap() == n.as_bytes())
                .unwrap();
            idx as u32 + t.ordinal_base()
        }
    };
    match t.target_by_ordinal(ord).unwrap() {
        ExportTarget::Address(a) => a,
        other => panic!("{file}!{want} is {other:?}"),
    }
}

/// IAT slot RVA of every import of `file`: (dll, import, slot RVA).
fn iat_slots(file: &str) -> Vec<(String, ExportName, u32)> {
    let bytes = data(file);
    let pe = PeFile32::parse(&*bytes).unwrap();
    let it = pe.import_table().unwrap().unwrap();
    let mut v = Vec::new();
    let mut ds = it.descriptors().unwrap();
    while let Some(d) = ds.next().unwrap() {
        let dll = String::from_utf8(it.name(d.name.get(LE)).unwrap().to_vec()).unwrap();
        let mut th = it.thunks(d.original_first_thunk.get(LE)).unwrap();
        let mut slot = d.first_thunk.get(LE);
        while let Some(t) = th.next::<object::pe::ImageNtHeaders32>().unwrap() {
            let what = match it.import::<object::pe::ImageNtHeaders32>(t).unwrap() {
                Import::Ordinal(o) => ExportName::Ordinal(o),
                Import::Name(_, n) => ExportName::Name(String::from_utf8(n.to_vec()).unwrap()),
            };
            v.push((dll.clone(), what, slot));
            slot += 4;
        }
    }
    v
}

fn load(proc: &Arc<Process>) -> GuestThread {
    startup::load_program(proc, &data("tprog.exe"), dlls()).unwrap()
}

#[test]
fn modules_are_registered_and_the_second_dll_is_relocated() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    assert_eq!(base_of(&proc, "tprog.exe"), 0x40_0000);
    // tlib.dll is mapped first (it is imported by the program) and takes the shared
    // preferred base 0x10000000; tlib2.dll, imported by tlib, must move.
    assert_eq!(base_of(&proc, "TLIB.dll"), 0x1000_0000);
    let lib2 = base_of(&proc, "tlib2.dll");
    assert_ne!(lib2, 0x1000_0000);
    // The loaded header records the actual base (optional header + 28).
    let e_lfanew = u32_at(&proc, lib2 + 0x3c);
    assert_eq!(u32_at(&proc, lib2 + e_lfanew + 24 + 28), lib2);
    // KERNEL32 has a pseudo-module with a PE header.
    let k32 = base_of(&proc, "KERNEL32.dll");
    assert_ne!(k32, 0);
    let mut mz = [0u8; 2];
    proc.mem.read_bytes(k32, &mut mz).unwrap();
    assert_eq!(&mz, b"MZ");
    let guest = proc
        .modules
        .read()
        .unwrap()
        .iter()
        .find(|m| m.name == "tlib2.dll")
        .unwrap()
        .path
        .clone();
    assert_eq!(guest, "C:\\TEST\\tlib2.dll");
}

#[test]
fn iat_holds_exports_forwarders_hle_and_missing_thunks() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    let prog = base_of(&proc, "tprog.exe");
    let lib = base_of(&proc, "tlib.dll");
    let lib2 = base_of(&proc, "tlib2.dll");
    let slots = iat_slots("tprog.exe");
    assert_eq!(slots.len(), 9);
    for (dll, what, slot) in &slots {
        let got = u32_at(&proc, prog + slot);
        assert_ne!(got, 0, "{dll}!{what} left 0 in the IAT");
        let want = match (dll.as_str(), what) {
            ("TLIB.DLL", ExportName::Name(n)) if n == "fwd" || n == "fwd_ord" => {
                lib2 + export_rva("tlib2.dll", &ExportName::Name("real".into()))
            }
            ("TLIB.DLL", w) => lib + export_rva("tlib.dll", w),
            ("KERNEL32.dll", ExportName::Name(n)) => proc.resolve_hle("KERNEL32.dll", n).unwrap(),
            ("nosuch.dll", ExportName::Name(n)) => proc.missing_thunk("nosuch.dll", n),
            other => panic!("unexpected import {other:?}"),
        };
        assert_eq!(got, want, "{dll}!{what}");
    }
    // mul is imported by ordinal 5 (objdump: 80000005) and is tlib's RVA 0x1010.
    assert!(slots.iter().any(|(_, w, _)| *w == ExportName::Ordinal(5)));
    assert_eq!(export_rva("tlib.dll", &ExportName::Ordinal(5)), 0x1010);
}

#[test]
fn exports_resolve_by_name_ordinal_and_forwarder() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    let prog = base_of(&proc, "tprog.exe");
    let lib = base_of(&proc, "tlib.dll");
    let lib2 = base_of(&proc, "tlib2.dll");
    let name = |s: &str| ExportName::Name(s.into());
    assert_eq!(
        resolve_export(&proc, prog, &name("prog_export")),
        Some(prog + export_rva("tprog.exe", &name("prog_export")))
    );
    // objdump: prog_export is ordinal 1 at RVA 0x1020.
    assert_eq!(
        resolve_export(&proc, prog, &ExportName::Ordinal(1)),
        Some(prog + 0x1020)
    );
    assert_eq!(
        resolve_export(&proc, lib, &ExportName::Ordinal(5)),
        Some(lib + 0x1010)
    );
    assert_eq!(resolve_export(&proc, lib, &name("mul")), None, "NONAME");
    let real = lib2 + export_rva("tlib2.dll", &name("real"));
    assert_eq!(resolve_export(&proc, lib, &name("fwd")), Some(real));
    assert_eq!(resolve_export(&proc, lib, &name("fwd_ord")), Some(real));
    assert_eq!(resolve_export(&proc, lib, &name("nothing")), None);
    assert_eq!(resolve_export(&proc, lib, &ExportName::Ordinal(11)), None);
    // ktick = KERNEL32.GetTickCount: an HLE export if KERNEL32 implements it.
    let k = proc.hle_dll("KERNEL32").unwrap();
    let has = proc.dlls[k].1.iter().any(|e| e.name == "GetTickCount");
    assert_eq!(
        resolve_export(&proc, lib, &name("ktick")),
        has.then(|| proc.resolve_hle("KERNEL32.dll", "GetTickCount").unwrap())
    );
    let k32 = base_of(&proc, "KERNEL32.dll");
    assert_eq!(resolve_export(&proc, k32, &name("NoSuchApiAnywhere")), None);
    assert_eq!(resolve_export(&proc, 0x1234_0000, &name("x")), None);
}

#[test]
fn hle_pseudo_module_exports_match_the_thunks() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    let k32 = base_of(&proc, "KERNEL32.dll");
    let size = proc
        .modules
        .read()
        .unwrap()
        .iter()
        .find(|m| m.base == k32)
        .unwrap()
        .size;
    let mut img = vec![0u8; size as usize];
    proc.mem.read_bytes(k32, &mut img).unwrap();
    let dir_rva = u32::from_le_bytes(img[0xb8..0xbc].try_into().unwrap());
    let t = object::read::pe::ExportTable::parse(&img[dir_rva as usize..], dir_rva).unwrap();
    let k = proc.hle_dll("KERNEL32").unwrap();
    let funcs: Vec<&str> = proc.dlls[k]
        .1
        .iter()
        .filter(|e| e.conv_nargs().is_some())
        .map(|e| e.name)
        .collect();
    // Every implemented function is in the directory, and so is every other export
    // of the real DLL (the system export table), with a thunk that reports it.
    let names: Vec<String> = t
        .name_iter()
        .map(|(p, _)| String::from_utf8(t.name_from_pointer(p).unwrap().to_vec()).unwrap())
        .collect();
    for f in &funcs {
        assert!(
            names.iter().any(|n| n == f),
            "{f} missing from the directory"
        );
    }
    assert!(names.iter().any(|n| n == "BackupRead"));
    assert!(!funcs.contains(&"BackupRead"));
    assert!(names.len() > funcs.len());
    for (p, i) in t.name_iter() {
        let n = std::str::from_utf8(t.name_from_pointer(p).unwrap()).unwrap();
        let addr = k32.wrapping_add(t.address_by_index(i as u32).unwrap());
        assert_eq!(addr, proc.resolve_hle("KERNEL32.dll", n).unwrap(), "{n}");
        assert_eq!(
            resolve_export(&proc, k32, &ExportName::Name(n.into())),
            Some(addr)
        );
    }
}

#[test]
fn sections_get_their_protections() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    let b = base_of(&proc, "tprog.exe");
    // objdump -h: .text RX, .data RW, .rdata R, .bss RW, .edata R, .idata RW,
    // .tls RW, .rsrc RW, .reloc R; headers R.
    let want = [
        (0, Prot::R),
        (0x1000, Prot::RX),
        (0x2000, Prot::RW),
        (0x3000, Prot::R),
        (0x4000, Prot::RW),
        (0x5000, Prot::R),
        (0x6000, Prot::RW),
        (0x7000, Prot::RW),
        (0x8000, Prot::RW),
        (0x9000, Prot::R),
    ];
    for (rva, p) in want {
        assert_eq!(proc.mem.prot(b + rva), p, "rva {rva:#x}");
    }
    // BSS is zero and the whole image is committed.
    assert_eq!(u32_at(&proc, b + 0x4000), 0);
    assert!(!proc.mem.is_committed(b + 0xa000));
}

#[test]
fn relocation_when_preferred_bases_are_taken() {
    let proc = new_proc("tprog.exe");
    for (base, size) in [(0x40_0000u32, 0x10000u32), (0x1000_0000, 0x10000)] {
        proc.vm
            .lock()
            .unwrap()
            .reserve(Some(base), size, Prot::RW, "test blocker")
            .unwrap();
    }
    let mut t = load(&proc);
    let prog = base_of(&proc, "tprog.exe");
    let lib = base_of(&proc, "tlib.dll");
    assert_ne!(prog, 0x40_0000);
    assert_ne!(lib, 0x1000_0000);
    let name = |s: &str| ExportName::Name(s.into());
    let some_global = prog + export_rva("tprog.exe", &name("some_global"));
    let relocated_ptr = prog + export_rva("tprog.exe", &name("relocated_ptr"));
    assert_eq!(u32_at(&proc, relocated_ptr), some_global);
    let self_ptr = lib + export_rva("tlib.dll", &name("self_ptr"));
    let target = lib + export_rva("tlib.dll", &name("attach_target"));
    assert_eq!(u32_at(&proc, self_ptr), target);
    // objdump -d: `call *0x406088` at 0x401043, its operand at RVA 0x1045.
    assert_eq!(u32_at(&proc, prog + 0x1045), prog + 0x6088);
    // And the relocated program still runs correctly.
    startup::initialize(&proc, &mut t).unwrap();
    assert_eq!(t.run(&proc), ThreadEnd::Exited(11168));
}

#[test]
fn program_runs_with_dllmain_and_tls() {
    let proc = new_proc("tprog.exe");
    let mut t = load(&proc);
    let prog = base_of(&proc, "tprog.exe");
    let lib = base_of(&proc, "tlib.dll");
    // TLS: index 0 written to _tls_index (objdump: .data+8, RVA 0x2008); the main
    // thread's block is the template (0, then 0x1234) plus 16 zero bytes.
    assert_eq!(u32_at(&proc, prog + 0x2008), 0);
    let arr = u32_at(&proc, t.teb + teb::TLS_POINTER);
    assert_ne!(arr, 0);
    let block = u32_at(&proc, arr);
    let mut b = [0xffu8; 24];
    proc.mem.read_bytes(block, &mut b).unwrap();
    let mut want = [0u8; 24];
    want[4..6].copy_from_slice(&[0x34, 0x12]);
    assert_eq!(b, want);
    // TEB fields.
    assert_eq!(u32_at(&proc, t.teb + teb::SELF), t.teb);
    assert_eq!(u32_at(&proc, t.teb + teb::EXCEPTION_LIST), 0xffff_ffff);
    assert_eq!(u32_at(&proc, t.teb + teb::THREAD_ID), t.tid);
    let peb = u32_at(&proc, t.teb + teb::PEB);
    assert_eq!(u32_at(&proc, peb + teb::peb::IMAGE_BASE), prog);
    let top = u32_at(&proc, t.teb + teb::STACK_BASE);
    let limit = u32_at(&proc, t.teb + teb::STACK_LIMIT);
    // mingw's default SizeOfStackReserve is 2 MiB (objdump: 0x200000).
    assert_eq!(top - limit, 0x20_0000);
    let esp = t.cpu.regs[winterp_core::cpu::ESP];
    assert!(esp < top && esp > top - 0x100);

    startup::initialize(&proc, &mut t).unwrap();
    let name = |s: &str| ExportName::Name(s.into());
    let tls_cb_calls = prog + export_rva("tprog.exe", &name("tls_cb_calls"));
    assert_eq!(u32_at(&proc, tls_cb_calls), 1);
    let reasons = lib + export_rva("tlib.dll", &name("reasons"));
    let nreasons = lib + export_rva("tlib.dll", &name("nreasons"));
    assert_eq!((u32_at(&proc, nreasons), u32_at(&proc, reasons)), (1, 1));
    // 5 + 20 + 21 + 14 + 8 + 100 + 1000 + 10000, see tprog.c.
    assert_eq!(t.run(&proc), ThreadEnd::Exited(11168));

    // A second thread: DLL_THREAD_ATTACH, its own TLS block, DLL_THREAD_DETACH.
    let entry = resolve_export(&proc, prog, &name("prog_export")).unwrap();
    let mut t2 = startup::new_thread(&proc, entry, 0, 0).unwrap();
    assert_ne!(t2.tid, t.tid);
    loader::thread_attach(&proc, &mut t2).unwrap();
    assert_eq!(u32_at(&proc, tls_cb_calls), 2);
    let arr2 = u32_at(&proc, t2.teb + teb::TLS_POINTER);
    let block2 = u32_at(&proc, arr2);
    assert_ne!(block2, block);
    assert_eq!(u32_at(&proc, block2 + 4), 0x1234);
    assert_eq!(t2.run(&proc), ThreadEnd::Exited(42));
    loader::thread_detach(&proc, &mut t2).unwrap();
    startup::release_thread(&proc, t2.tid);
    assert!(!proc.mem.is_committed(t2.teb));
    loader::process_detach(&proc, &mut t).unwrap();
    let seen: Vec<u32> = (0..u32_at(&proc, nreasons))
        .map(|k| u32_at(&proc, reasons + 4 * k))
        .collect();
    // DLL_PROCESS_ATTACH, DLL_THREAD_ATTACH, DLL_THREAD_DETACH, DLL_PROCESS_DETACH.
    assert_eq!(seen, vec![1, 2, 3, 0]);
    // The program's TLS callback saw attach, thread attach, thread detach, detach.
    assert_eq!(u32_at(&proc, tls_cb_calls), 4);
}

#[test]
fn resources_by_id_name_and_language() {
    let proc = new_proc("tprog.exe");
    let _t = load(&proc);
    let b = base_of(&proc, "tprog.exe");
    let read = |(rva, size): (u32, u32)| {
        let mut v = vec![0u8; size as usize];
        proc.mem.read_bytes(b + rva, &mut v).unwrap();
        v
    };
    // String table block 1 holds ids 0..15: counted UTF-16 strings, id 0 empty.
    let st = find_resource(&proc, b, &ResId::Id(6), &ResId::Id(1), None).unwrap();
    let s = read(st);
    let utf16 = |t: &str| -> Vec<u8> {
        let mut v = (t.len() as u16).to_le_bytes().to_vec();
        v.extend(t.encode_utf16().flat_map(u16::to_le_bytes));
        v
    };
    let mut want = vec![0, 0];
    want.extend(utf16("hello"));
    want.extend(utf16("world"));
    assert_eq!(&s[..want.len()], &want[..]);
    // A named RCDATA resource, looked up in another case.
    let d = find_resource(&proc, b, &ResId::Id(10), &ResId::from_name("mydata"), None).unwrap();
    assert_eq!(read(d), b"abc");
    // A string type with two languages: 0x409 (and the fallback) and 0x407.
    let custom = ResId::Name("custom".into());
    let en = find_resource(&proc, b, &custom, &ResId::Id(5), Some(0x409)).unwrap();
    assert_eq!(read(en), b"xyz!");
    let de = find_resource(&proc, b, &custom, &ResId::from_name("#5"), Some(0x407)).unwrap();
    assert_eq!(read(de), b"de");
    assert_eq!(
        find_resource(&proc, b, &custom, &ResId::Id(5), None),
        Some(en)
    );
    assert_eq!(
        find_resource(&proc, b, &custom, &ResId::Id(5), Some(0x40c)),
        None
    );
    assert_eq!(
        find_resource(&proc, b, &ResId::Id(3), &ResId::Id(1), None),
        None
    );
    let types = resource_children(&proc, b, &[]);
    for t in [ResId::Id(6), ResId::Id(10), ResId::Name("CUSTOM".into())] {
        assert!(types.contains(&t), "{t:?} in {types:?}");
    }
    assert_eq!(
        resource_children(&proc, b, &[custom, ResId::Id(5)]).len(),
        2
    );
}

#[test]
fn load_library_and_free_library_count_references() {
    let proc = new_proc("tcrt.exe");
    let mut t = startup::load_program(&proc, &data("tcrt.exe"), dlls()).unwrap();
    assert!(
        proc.modules
            .read()
            .unwrap()
            .iter()
            .all(|m| m.name != "tlib.dll")
    );
    let lib = loader::load_library(&proc, &mut t, "TLIB").unwrap();
    let lib2 = base_of(&proc, "tlib2.dll");
    let nreasons = lib + export_rva("tlib.dll", &ExportName::Name("nreasons".into()));
    assert_eq!(u32_at(&proc, nreasons), 1, "DllMain ran once");
    assert_eq!(
        loader::load_library(&proc, &mut t, "tlib.dll").unwrap(),
        lib
    );
    assert_eq!(u32_at(&proc, nreasons), 1, "no second attach");
    assert!(loader::free_library(&proc, &mut t, lib).unwrap());
    assert!(proc.mem.is_committed(lib), "one reference left");
    assert!(loader::free_library(&proc, &mut t, lib).unwrap());
    assert!(!proc.mem.is_committed(lib));
    assert!(!proc.mem.is_committed(lib2), "its dependency went too");
    assert!(
        proc.modules
            .read()
            .unwrap()
            .iter()
            .all(|m| m.base != lib && m.base != lib2)
    );
    // HLE DLLs load as their pseudo-modules; unknown names fail.
    let k32 = loader::load_library(&proc, &mut t, "kernel32").unwrap();
    assert_eq!(k32, base_of(&proc, "KERNEL32.dll"));
    assert!(matches!(
        loader::load_library(&proc, &mut t, "nosuch.dll"),
        Err(LoadError::NotFound { .. })
    ));
}

#[test]
fn malformed_and_unsupported_images_are_rejected() {
    let proc = new_proc("tlib.dll");
    assert!(matches!(
        startup::load_program(&proc, &data("tlib.dll"), dlls()),
        Err(LoadError::NotAProgram { .. })
    ));
    // Relocations stripped and the base taken.
    let mut exe = data("tprog.exe");
    let fh = u32::from_le_bytes(exe[0x3c..0x40].try_into().unwrap()) as usize + 4;
    exe[fh + 18] |= 1; // IMAGE_FILE_RELOCS_STRIPPED
    let proc = new_proc("tprog.exe");
    proc.vm
        .lock()
        .unwrap()
        .reserve(Some(0x40_0000), 0x1000, Prot::RW, "blocker")
        .unwrap();
    assert!(matches!(
        startup::load_program(&proc, &exe, dlls()),
        Err(LoadError::BaseTaken {
            base: 0x40_0000,
            ..
        })
    ));
    // An IMAGE_REL_BASED_DIR64 entry (objdump: .reloc at file offset 0x1200; the
    // first entry follows the 8-byte block header).
    let mut exe = data("tprog.exe");
    exe[0x1209] = (exe[0x1209] & 0x0f) | 0xa0;
    let proc = new_proc("tprog.exe");
    proc.vm
        .lock()
        .unwrap()
        .reserve(Some(0x40_0000), 0x1000, Prot::RW, "blocker")
        .unwrap();
    assert!(matches!(
        startup::load_program(&proc, &exe, dlls()),
        Err(LoadError::UnsupportedRelocation { kind: 10, .. })
    ));
    // A broken DLL next to the program is an error, not a silent fallback.
    let proc = new_proc("tprog.exe");
    let broken = Arc::new(MemoryDlls {
        files: vec![
            ("tlib.dll".into(), data("tlib.dll")[..0x300].to_vec()),
            ("tlib2.dll".into(), data("tlib2.dll")),
        ],
    });
    let Err(e) = startup::load_program(&proc, &data("tprog.exe"), broken) else {
        panic!("a truncated tlib.dll loaded");
    };
    assert!(
        matches!(&e, LoadError::BadSection { name, .. } if name == "tlib.dll"),
        "{e}"
    );
}

/// A stand-in KERNEL32 with an ordinal, and two data exports, the first of which
/// points at the second (so its initialiser allocates another data export).
mod fake_k32 {
    use std::sync::Arc;
    use winterp_hostwin32::hle::{ApiDef, ApiResult, Ctx, HleDll, data, stdcall};
    use winterp_hostwin32::process::Process;

    fn get_tick_count(_cx: &mut Ctx) -> u32 {
        1234
    }

    fn init_value(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
        proc.mem.write_bytes(a, &0x1122_3344u32.to_le_bytes())?;
        Ok(())
    }

    fn init_ptr(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
        let k = proc.hle_dll("KERNEL32").unwrap();
        let v = proc.export_address(k, 2)?;
        proc.mem.write_bytes(a, &v.to_le_bytes())?;
        Ok(())
    }

    fn exports() -> Vec<ApiDef> {
        vec![
            stdcall("GetTickCount", get_tick_count).ordinal(7),
            data("TestPtr", 4, init_ptr),
            data("TestValue", 4, init_value),
        ]
    }

    pub const DLL: HleDll = HleDll {
        name: "KERNEL32.dll",
        exports,
        attach: None,
    };
}

#[test]
fn hle_ordinals_data_exports_and_forwarders_to_hle() {
    let cfg = ProcessConfig::new("tprog.exe".into(), "C:\\TEST\\tprog.exe".into());
    let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &[fake_k32::DLL]).unwrap();
    let _t = load(&proc);
    let tick = proc.resolve_hle("KERNEL32.dll", "GetTickCount").unwrap();
    let k32 = base_of(&proc, "KERNEL32.dll");
    let lib = base_of(&proc, "tlib.dll");
    assert_eq!(
        resolve_export(&proc, k32, &ExportName::Ordinal(7)),
        Some(tick)
    );
    // Ordinal 8 is not declared by this DLL, but the real KERNEL32 has it (a Win9x
    // VxDCall entry): it resolves to a thunk that reports it. An ordinal the real
    // DLL does not have is not found.
    assert!(resolve_export(&proc, k32, &ExportName::Ordinal(8)).is_some());
    assert_eq!(
        resolve_export(&proc, k32, &ExportName::Ordinal(0xfff0)),
        None
    );
    assert_eq!(
        resolve_export(&proc, lib, &ExportName::Name("ktick".into())),
        Some(tick)
    );
    // GetProcAddress of a data export allocates and initialises it, and the
    // variable its initialiser allocates on the way.
    let p = resolve_export(&proc, k32, &ExportName::Name("TestPtr".into())).unwrap();
    let v = u32_at(&proc, p);
    assert_eq!(u32_at(&proc, v), 0x1122_3344);
    assert_eq!(
        resolve_export(&proc, k32, &ExportName::Name("TestValue".into())),
        Some(v)
    );
    // The pseudo-module's export directory lists GetTickCount under ordinal 7.
    let dir = u32_at(&proc, k32 + 0x58 + 96);
    let ord_base = u32_at(&proc, k32 + dir + 16);
    let eat = u32_at(&proc, k32 + dir + 28);
    assert_eq!(
        k32.wrapping_add(u32_at(&proc, k32 + eat + 4 * (7 - ord_base))),
        tick
    );
}

fn tcrt_with(files: &[&str]) -> (Arc<Process>, GuestThread) {
    let proc = new_proc("tcrt.exe");
    let dlls = Arc::new(MemoryDlls {
        files: files.iter().map(|f| (f.to_string(), data(f))).collect(),
    });
    let t = startup::load_program(&proc, &data("tcrt.exe"), dlls).unwrap();
    (proc, t)
}

#[test]
fn load_library_gives_existing_and_new_threads_the_dlls_tls() {
    let (proc, mut t) = tcrt_with(&["tdyn.dll"]);
    let mut t2 = startup::new_thread(&proc, 0, 0, 0).unwrap();
    let m = loader::load_library(&proc, &mut t, "TDYN.DLL").unwrap();
    let get = resolve_export(&proc, m, &ExportName::Name("get_tls_var".into())).unwrap();
    let set = resolve_export(&proc, m, &ExportName::Name("set_tls_var".into())).unwrap();
    // tcrt.exe's C runtime has TLS (index 0), so tdyn.dll gets index 1.
    assert_eq!(u32_at(&proc, m + tdyn_tls_index_rva()), 1);
    assert_eq!(t.call_guest(&proc, get, &[]), Ok(0x5678));
    assert_eq!(t2.call_guest(&proc, get, &[]), Ok(0x5678));
    t.call_guest(&proc, set, &[7]).unwrap();
    assert_eq!(t.call_guest(&proc, get, &[]), Ok(7));
    assert_eq!(t2.call_guest(&proc, get, &[]), Ok(0x5678));
    let mut t3 = startup::new_thread(&proc, 0, 0, 0).unwrap();
    assert_eq!(t3.call_guest(&proc, get, &[]), Ok(0x5678));
}

/// RVA of tdyn.dll's _tls_index: AddressOfIndex of its TLS directory, which
/// `objdump -p` shows at RVA 0x3000 (the directory's third field).
fn tdyn_tls_index_rva() -> u32 {
    let bytes = data("tdyn.dll");
    let pe = PeFile32::parse(&*bytes).unwrap();
    let base = 0x2000_0000; // tdyn.dll's ImageBase (build.sh)
    let dir = pe
        .data_directories()
        .get(object::pe::IMAGE_DIRECTORY_ENTRY_TLS)
        .unwrap();
    let d = pe
        .section_table()
        .pe_data_at(&*bytes, dir.virtual_address.get(LE))
        .unwrap();
    u32::from_le_bytes(d[8..12].try_into().unwrap()) - base
}

#[test]
fn a_failing_dllmain_unloads_the_dll_and_what_it_brought() {
    let (proc, mut t) = tcrt_with(&["tfail.dll", "tlib2.dll"]);
    let e = loader::load_library(&proc, &mut t, "tfail").unwrap_err();
    assert!(
        matches!(&e, LoadError::InitFailed { name } if name == "tfail.dll"),
        "{e}"
    );
    let mods = proc.modules.read().unwrap();
    assert!(
        mods.iter()
            .all(|m| m.name != "tfail.dll" && m.name != "tlib2.dll")
    );
    assert!(!proc.mem.is_committed(0x3000_0000));
    assert!(!proc.mem.is_committed(0x1000_0000));
    assert!(loader::state(&proc).images.iter().all(|i| !i.is_dll));
}
