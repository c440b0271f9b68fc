//! ucrtbase in a real process: exports called through their generated glue with
//! arguments on the guest stack. Expected results follow UCRT's documented
//! behaviour for each option flag (the `_vsnprintf`, `vsnprintf` and `sprintf`
//! contracts the header wrappers rely on).

use super::stdio::{
    LEGACY_MSVCRT_COMPATIBILITY, LEGACY_THREE_DIGIT_EXPONENTS,
    LEGACY_VSPRINTF_NULL_TERMINATION as LEGACY, LEGACY_WIDE_SPECIFIERS, Plan,
    STANDARD_SNPRINTF_BEHAVIOR as STANDARD, store_plan,
};
use crate::hle::{Ctx, Outcome};
use crate::host::CaptureHost;
use crate::msvcrt::gmem;
use crate::process::{Process, ProcessConfig};
use crate::thread::GuestThread;
use std::sync::Arc;
use winterp_core::cpu::ESP;
use winterp_core::mem::Prot;

struct Env {
    proc: Arc<Process>,
    thread: GuestThread,
    data: u32,
}

fn env(args: &[&str]) -> Env {
    let mut cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
    cfg.args = args.iter().map(|s| s.to_string()).collect();
    cfg.env = vec![("Foo".into(), "bar".into())];
    let host = Arc::new(CaptureHost::default());
    let proc = Process::new(cfg, host, &crate::hle_dlls()).unwrap();
    let thread = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
    let data = proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1_0000, Prot::RWX, "test data")
        .unwrap();
    Env { proc, thread, data }
}

impl Env {
    fn call(&mut self, name: &str, args: &[u32]) -> Outcome {
        let proc = self.proc.clone();
        let d = proc.hle_dll("ucrtbase").unwrap();
        let def = proc.dlls[d]
            .1
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no export {name}"));
        let (_, nargs) = def.conv_nargs().unwrap();
        let saved = self.thread.cpu.regs[ESP];
        let esp = saved - 4 * (args.len() as u32 + 1) - 64;
        proc.mem.write_u32(esp, 0xdead_0000).unwrap();
        for (k, a) in args.iter().enumerate() {
            proc.mem.write_u32(esp + 4 + 4 * k as u32, *a).unwrap();
        }
        self.thread.cpu.regs[ESP] = esp;
        self.thread.call_nargs = nargs as u32;
        let r = {
            let mut cx = Ctx {
                proc: &proc,
                thread: &mut self.thread,
            };
            def.call(&mut cx, &args[..nargs as usize]).unwrap()
        };
        self.thread.cpu.regs[ESP] = saved;
        r
    }

    fn ret(&mut self, name: &str, args: &[u32]) -> i32 {
        match self.call(name, args) {
            Outcome::Return(v) => v as u32 as i32,
            o => panic!("{name} gave {o:?}"),
        }
    }

    fn put(&self, at: u32, s: &str) -> u32 {
        gmem::write_cstr(&self.proc.mem, self.data + at, s.as_bytes()).unwrap();
        self.data + at
    }

    fn put_w(&self, at: u32, s: &str) -> u32 {
        let u: Vec<u16> = s.encode_utf16().collect();
        gmem::write_wstr(&self.proc.mem, self.data + at, &u).unwrap();
        self.data + at
    }

    fn bytes(&self, a: u32, n: usize) -> Vec<u8> {
        let mut b = vec![0; n];
        self.proc.mem.read_bytes(a, &mut b).unwrap();
        b
    }

    /// A va_list holding `words`.
    fn va(&self, at: u32, words: &[u32]) -> u32 {
        for (k, w) in words.iter().enumerate() {
            self.proc
                .mem
                .write_u32(self.data + at + 4 * k as u32, *w)
                .unwrap();
        }
        self.data + at
    }
}

fn lo_hi(options: u64) -> [u32; 2] {
    [options as u32, (options >> 32) as u32]
}

#[test]
fn store_plan_follows_each_option() {
    let p = |copy, terminate, ret| Plan {
        copy,
        terminate,
        ret,
    };
    // Fits: every mode stores the text and a terminator.
    for o in [0, LEGACY, STANDARD] {
        assert_eq!(store_plan(o, true, 10, 5), p(5, true, 5));
    }
    // _vsnprintf: exactly full -> no terminator, the length; too long -> -1.
    assert_eq!(store_plan(LEGACY, true, 5, 5), p(5, false, 5));
    assert_eq!(store_plan(LEGACY, true, 5, 8), p(5, false, -1));
    // vsnprintf (C99): cut, terminated, the length the text needs.
    assert_eq!(store_plan(STANDARD, true, 5, 8), p(4, true, 8));
    assert_eq!(store_plan(STANDARD, true, 5, 5), p(4, true, 5));
    // Neither: cut and terminated, -2 (UCRT's "did not fit"); -1 for no room.
    assert_eq!(store_plan(0, true, 5, 8), p(4, true, -2));
    assert_eq!(store_plan(0, true, 0, 8), p(0, false, -1));
    // No buffer: measuring, whatever the options.
    for o in [0, LEGACY, STANDARD] {
        assert_eq!(store_plan(o, false, 0, 8), p(0, false, 8));
    }
}

#[test]
fn common_vsprintf_formats_and_truncates_in_guest_memory() {
    let mut e = env(&[]);
    let fmt = e.put(0x100, "%s-%d");
    let s = e.put(0x140, "abc");
    let va = e.va(0x180, &[s, 42]);
    let buf = e.data + 0x200;
    let [lo, hi] = lo_hi(STANDARD);
    assert_eq!(
        e.ret("__stdio_common_vsprintf", &[lo, hi, buf, 100, fmt, 0, va]),
        6
    );
    assert_eq!(e.bytes(buf, 7), b"abc-42\0");
    // Measuring with a NULL buffer.
    assert_eq!(
        e.ret("__stdio_common_vsprintf", &[lo, hi, 0, 0, fmt, 0, va]),
        6
    );
    // _vsnprintf into 4 bytes: no terminator, -1; the byte after is untouched.
    e.proc.mem.write_bytes(buf, b"zzzzzz").unwrap();
    let [lo, hi] = lo_hi(LEGACY);
    assert_eq!(
        e.ret("__stdio_common_vsprintf", &[lo, hi, buf, 4, fmt, 0, va]),
        -1
    );
    assert_eq!(e.bytes(buf, 5), b"abc-z");
    // NULL buffer with a non-zero count is an invalid parameter.
    assert_eq!(
        e.ret("__stdio_common_vsprintf", &[0, 0, 0, 4, fmt, 0, va]),
        -1
    );
}

#[test]
fn wide_s_follows_the_legacy_wide_specifiers_flag() {
    let mut e = env(&[]);
    let fmt = e.put_w(0x100, "<%s>");
    let wide_arg = e.put_w(0x140, "hi");
    let narrow_arg = e.put(0x180, "yo");
    let buf = e.data + 0x200;
    // Microsoft's meaning: %s in a wide format is a wide string.
    let va = e.va(0x1c0, &[wide_arg]);
    let [lo, hi] = lo_hi(LEGACY_WIDE_SPECIFIERS | STANDARD);
    assert_eq!(
        e.ret("__stdio_common_vswprintf", &[lo, hi, buf, 16, fmt, 0, va]),
        4
    );
    let got = gmem::read_wstr(&e.proc.mem, buf, 16).unwrap();
    assert_eq!(String::from_utf16_lossy(&got), "<hi>");
    // ISO meaning: a narrow string.
    let va = e.va(0x1c0, &[narrow_arg]);
    let [lo, hi] = lo_hi(STANDARD);
    assert_eq!(
        e.ret("__stdio_common_vswprintf", &[lo, hi, buf, 16, fmt, 0, va]),
        4
    );
    let got = gmem::read_wstr(&e.proc.mem, buf, 16).unwrap();
    assert_eq!(String::from_utf16_lossy(&got), "<yo>");
}

#[test]
fn vsprintf_s_truncate_and_sscanf_count() {
    let mut e = env(&[]);
    let fmt = e.put(0x100, "%d");
    let va = e.va(0x140, &[123456]);
    let buf = e.data + 0x200;
    // _TRUNCATE: as much as fits with the terminator, -1 for the cut.
    assert_eq!(
        e.ret(
            "__stdio_common_vsnprintf_s",
            &[0, 0, buf, 4, u32::MAX, fmt, 0, va]
        ),
        -1
    );
    assert_eq!(e.bytes(buf, 4), b"123\0");
    // sscanf reads only `count` characters of the input.
    let input = e.put(0x300, "98765");
    let out = e.data + 0x340;
    let va = e.va(0x380, &[out]);
    assert_eq!(
        e.ret("__stdio_common_vsscanf", &[0, 0, input, 3, fmt, 0, va]),
        1
    );
    assert_eq!(e.proc.mem.read_u32(out).unwrap(), 987);
}

#[test]
fn configure_wide_argv_fills_argc_and_wargv() {
    let mut e = env(&["one", "two words"]);
    assert_eq!(e.ret("_configure_wide_argv", &[1]), 0);
    let argc = e.ret("__p___argc", &[]) as u32;
    assert_eq!(e.proc.mem.read_u32(argc).unwrap(), 3);
    let wargv = e.ret("__p___wargv", &[]) as u32;
    let argv = e.proc.mem.read_u32(wargv).unwrap();
    let arg2 = e.proc.mem.read_u32(argv + 8).unwrap();
    let s = gmem::read_wstr(&e.proc.mem, arg2, 64).unwrap();
    assert_eq!(String::from_utf16_lossy(&s), "two words");
    assert_eq!(e.proc.mem.read_u32(argv + 12).unwrap(), 0);
    // The environment block lists the process's variables.
    assert_eq!(e.ret("_initialize_wide_environment", &[]), 0);
    let env = e.ret("_get_initial_wide_environment", &[]) as u32;
    let first = e.proc.mem.read_u32(env).unwrap();
    let s = gmem::read_wstr(&e.proc.mem, first, 64).unwrap();
    assert!(String::from_utf16_lossy(&s).contains('='));
    // An unknown mode is EINVAL.
    assert_eq!(e.ret("_configure_wide_argv", &[7]), 22);
}

#[test]
fn winmain_command_line_skips_the_program_name() {
    use super::startup::winmain_args_start;
    let w = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
    let line = w(r#""C:\Program Files\app.exe"  /x file"#);
    assert_eq!(winmain_args_start(&line), 28);
    assert_eq!(winmain_args_start(&w("app.exe")), 7);
    assert_eq!(winmain_args_start(&w("app.exe\targ")), 8);
}

#[test]
fn onexit_table_runs_last_registered_first() {
    let mut e = env(&[]);
    // Each function appends its tag: mov eax,[list]; mov byte [eax],tag;
    // inc dword [list]; ret.
    let list = e.data + 0x3000;
    let out = e.data + 0x3010;
    e.proc.mem.write_u32(list, out).unwrap();
    let table = e.data + 0x3100;
    assert_eq!(e.ret("_initialize_onexit_table", &[table]), 0);
    for (k, tag) in [b'A', b'B', b'C'].iter().enumerate() {
        let f = e.data + 0x900 + 0x20 * k as u32;
        let l = list.to_le_bytes();
        let mut c = vec![0xa1, l[0], l[1], l[2], l[3], 0xc6, 0x00, *tag, 0xff, 0x05];
        c.extend_from_slice(&l);
        c.push(0xc3);
        e.proc.mem.write_bytes(f, &c).unwrap();
        assert_eq!(e.ret("_register_onexit_function", &[table, f]), 0);
    }
    assert_eq!(e.ret("_execute_onexit_table", &[table]), 0);
    assert_eq!(e.bytes(out, 3), b"CBA");
    // The table is empty afterwards: running it again calls nothing.
    assert_eq!(e.ret("_execute_onexit_table", &[table]), 0);
    assert_eq!(e.bytes(out + 3, 1), b"\0");
}

#[test]
fn api_set_names_resolve_to_ucrtbase() {
    let e = env(&[]);
    let u = e.proc.hle_dll("ucrtbase.dll");
    assert!(u.is_some());
    assert_eq!(e.proc.hle_dll("api-ms-win-crt-stdio-l1-1-0.dll"), u);
    assert_eq!(e.proc.hle_dll("API-MS-WIN-CRT-RUNTIME-L1-1-0"), u);
    assert_ne!(e.proc.hle_dll("api-ms-win-core-file-l1-1-0.dll"), u);
}

#[test]
fn float_style_follows_the_exponent_and_special_value_flags() {
    let mut e = env(&[]);
    let fmt = e.put(0x100, "%e|%g|%f|%E");
    let b = |v: f64| [v.to_bits() as u32, (v.to_bits() >> 32) as u32];
    let [a0, a1] = b(12345.678);
    let [b0, b1] = b(1e-5);
    let [c0, c1] = b(f64::INFINITY);
    let [d0, d1] = b(-f64::INFINITY);
    let va = e.va(0x140, &[a0, a1, b0, b1, c0, c1, d0, d1]);
    let buf = e.data + 0x200;
    let text = |e: &Env, n: i32| String::from_utf8(e.bytes(buf, n as usize)).unwrap();
    // UCRT's defaults: two exponent digits, inf.
    let [lo, hi] = lo_hi(STANDARD);
    let n = e.ret("__stdio_common_vsprintf", &[lo, hi, buf, 100, fmt, 0, va]);
    assert_eq!(text(&e, n), "1.234568e+04|1e-05|inf|-INF");
    // msvcrt's: three digits, 1.#INF.
    let [lo, hi] = lo_hi(STANDARD | LEGACY_THREE_DIGIT_EXPONENTS | LEGACY_MSVCRT_COMPATIBILITY);
    let n = e.ret("__stdio_common_vsprintf", &[lo, hi, buf, 100, fmt, 0, va]);
    assert_eq!(text(&e, n), "1.234568e+004|1e-005|1.#INF00|-1.#INF00E+000");
}
