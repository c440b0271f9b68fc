//! The runtime inside a real process: exports called through their generated glue
//! (so variadic arguments come off the guest stack), KERNEL32 underneath, guest
//! code for callbacks. Expected values follow the C standard and Microsoft's
//! documentation of each function.

use super::exports;
use crate::hle::{Ctx, Outcome};
use crate::host::CaptureHost;
use crate::process::{Process, ProcessConfig};
use crate::thread::GuestThread;
use std::sync::Arc;
use winterp_core::cpu::{EAX, EBP, EBX, EDI, ESI, ESP};
use winterp_core::mem::Prot;

struct Env {
    proc: Arc<Process>,
    thread: GuestThread,
    host: Arc<CaptureHost>,
    /// Free guest memory for test data (64 KiB, read/write/execute).
    data: u32,
}

fn env(args: &[&str]) -> Env {
    let mut cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
    cfg.args = args.iter().map(|s| s.to_string()).collect();
    cfg.env = vec![
        ("PATH".into(), "C:\\WINDOWS".into()),
        ("Foo".into(), "bar".into()),
    ];
    let host = Arc::new(CaptureHost::default());
    let proc = Process::new(cfg, host.clone(), &crate::hle_dlls()).unwrap();
    let thread = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
    let data = proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1_0000, Prot::RWX, "test data")
        .unwrap();
    Env {
        proc,
        thread,
        host,
        data,
    }
}

impl Env {
    /// Calls msvcrt export `name` as guest code would: arguments pushed on the
    /// guest stack below a dummy return address.
    fn call(&mut self, name: &str, args: &[u32]) -> Outcome {
        self.try_call(name, args).unwrap()
    }

    /// [`Env::call`] that hands back the error (a guest fault) instead of failing.
    fn try_call(&mut self, name: &str, args: &[u32]) -> crate::hle::ApiResult<Outcome> {
        let proc = self.proc.clone();
        let d = proc.hle_dll("msvcrt").unwrap();
        let def = proc.dlls[d]
            .1
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no export {name}"));
        if let crate::hle::ExportKind::Code { .. } = def.kind {
            let addr = proc.resolve_hle("msvcrt.dll", name)?;
            return self.run_guest(addr, args);
        }
        let (_, nargs) = def.conv_nargs().unwrap();
        let saved = self.thread.cpu.regs[ESP];
        let esp = saved - 4 * (args.len() as u32 + 1) - 64;
        proc.mem.write_u32(esp, 0xdead_0000).unwrap();
        for (k, a) in args.iter().enumerate() {
            proc.mem.write_u32(esp + 4 + 4 * k as u32, *a).unwrap();
        }
        self.thread.cpu.regs[ESP] = esp;
        self.thread.call_nargs = nargs as u32;
        let fixed = &args[..(nargs as usize).min(args.len())];
        let r = {
            let mut cx = Ctx {
                proc: &proc,
                thread: &mut self.thread,
            };
            def.call(&mut cx, fixed)
        };
        if !matches!(r, Ok(Outcome::Resume)) {
            self.thread.cpu.regs[ESP] = saved;
        }
        r
    }

    /// Runs the guest routine at `addr` (a guest-code export) on this thread's
    /// executor as a cdecl call from a host sentinel: `Return(EAX)` when it
    /// returns, the access violation's address as `ApiError::Fault` when it
    /// faults (no guest handler runs).
    fn run_guest(&mut self, addr: u32, args: &[u32]) -> crate::hle::ApiResult<Outcome> {
        use winterp_core::exec::StopReason;
        let sentinel = crate::hle::thunks::CALL_RETURN;
        let cpu = &mut self.thread.cpu;
        let saved = cpu.regs[ESP];
        let esp = saved - 4 * (args.len() as u32 + 1) - 64;
        self.proc.mem.write_u32(esp, sentinel).unwrap();
        for (k, a) in args.iter().enumerate() {
            self.proc.mem.write_u32(esp + 4 + 4 * k as u32, *a).unwrap();
        }
        cpu.regs[ESP] = esp;
        cpu.eip = addr;
        let r = loop {
            match self.thread.exec.run(cpu, 1 << 24) {
                StopReason::Thunk(eip) if eip == sentinel => {
                    break Ok(Outcome::Return(u64::from(cpu.regs[EAX])));
                }
                StopReason::BudgetSpent => continue,
                StopReason::Exception(x) => break Err(crate::hle::ApiError::Fault(x.addr)),
                other => panic!("guest routine at {addr:#x} stopped with {other:?}"),
            }
        };
        cpu.regs[ESP] = saved;
        r
    }

    /// Writes `int cmp(const int *a, const int *b) { return *a - *b; }` (cdecl)
    /// into the data area and returns its address.
    fn int_comparator(&self) -> u32 {
        let code = self.data + 0x800;
        self.proc
            .mem
            .write_bytes(
                code,
                &[
                    0x8b, 0x44, 0x24, 0x04, 0x8b, 0x00, 0x8b, 0x4c, 0x24, 0x08, 0x2b, 0x01, 0xc3,
                ],
            )
            .unwrap();
        code
    }

    fn ret(&mut self, name: &str, args: &[u32]) -> u32 {
        match self.call(name, args) {
            Outcome::Return(v) => v as u32,
            o => panic!("{name} gave {o:?}"),
        }
    }

    fn put_str(&self, at: u32, s: &str) -> u32 {
        super::gmem::write_cstr(&self.proc.mem, self.data + at, s.as_bytes()).unwrap();
        self.data + at
    }

    fn str_at(&self, a: u32) -> String {
        String::from_utf8(super::gmem::read_cstr(&self.proc.mem, a, 4096).unwrap()).unwrap()
    }

    fn u32_at(&self, a: u32) -> u32 {
        self.proc.mem.read_u32(a).unwrap()
    }
}

fn dbl(v: f64) -> [u32; 2] {
    let b = v.to_bits();
    [b as u32, (b >> 32) as u32]
}

#[test]
fn sprintf_reads_variadic_arguments_from_the_guest_stack() {
    let mut e = env(&[]);
    let fmt = e.put_str(0x100, "%s=%5.2f|%d|%e|%c");
    let s = e.put_str(0x200, "pi");
    let buf = e.data + 0x300;
    let [lo, hi] = dbl(2.5);
    let n = e.ret(
        "sprintf",
        &[buf, fmt, s, lo, hi, (-7i32) as u32, 0, 0x4059_0000, 0x41],
    );
    assert_eq!(e.str_at(buf), "pi= 2.50|-7|1.000000e+002|A");
    assert_eq!(n, 27);
}

#[test]
fn snprintf_truncation_rules() {
    let mut e = env(&[]);
    let fmt = e.put_str(0x100, "%d");
    let buf = e.data + 0x300;
    e.proc.mem.write_bytes(buf, b"xxxxxxxx").unwrap();
    // Microsoft's _snprintf: no terminator and -1 when the output does not fit.
    assert_eq!(e.ret("_snprintf", &[buf, 3, fmt, 123456]) as i32, -1);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, buf, 5).unwrap(),
        b"123xx"
    );
    // Exactly fitting: all characters, no terminator, the length.
    assert_eq!(e.ret("_snprintf", &[buf, 6, fmt, 123456]), 6);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, buf, 7).unwrap(),
        b"123456x"
    );
    assert_eq!(e.ret("_scprintf", &[fmt, 123456]), 6);
    // Measuring with a NULL buffer and count 0.
    assert_eq!(e.ret("_snprintf", &[0, 0, fmt, 123456]) as i32, -1);
    assert_eq!(e.ret("_vsnprintf", &[0, 0, fmt, e.data]) as i32, -1);
    assert_eq!(e.ret("vsnprintf", &[0, 0, fmt, e.data]), 1);
}

#[test]
fn sscanf_stores_through_guest_pointers() {
    let mut e = env(&[]);
    let input = e.put_str(0x100, "  42 3.5 word rest");
    let fmt = e.put_str(0x200, "%d %lf %4s");
    let (pi, pd, ps) = (e.data + 0x300, e.data + 0x308, e.data + 0x310);
    assert_eq!(e.ret("sscanf", &[input, fmt, pi, pd, ps]), 3);
    assert_eq!(e.u32_at(pi), 42);
    assert_eq!(f64::from_bits(e.proc.mem.read_u64(pd).unwrap()), 3.5);
    assert_eq!(e.str_at(ps), "word");
}

#[test]
fn getmainargs_splits_the_command_line() {
    let mut e = env(&["two words", "say \"hi\"", "C:\\dir\\", ""]);
    let (pargc, pargv, penv) = (e.data, e.data + 4, e.data + 8);
    assert_eq!(
        e.ret("__getmainargs", &[pargc, pargv, penv, 0, e.data + 12]),
        0
    );
    assert_eq!(e.u32_at(pargc), 5);
    let argv = e.u32_at(pargv);
    let args: Vec<String> = (0..5).map(|k| e.str_at(e.u32_at(argv + 4 * k))).collect();
    assert_eq!(
        args,
        [
            "C:\\TEST\\test.exe",
            "two words",
            "say \"hi\"",
            "C:\\dir\\",
            ""
        ]
    );
    assert_eq!(e.u32_at(argv + 20), 0);
    let envp = e.u32_at(penv);
    let mut vars = Vec::new();
    let mut k = 0;
    while e.u32_at(envp + 4 * k) != 0 {
        vars.push(e.str_at(e.u32_at(envp + 4 * k)));
        k += 1;
    }
    assert!(vars.contains(&"Foo=bar".to_string()), "{vars:?}");
    // getenv is case-insensitive on Windows and reads the runtime's copy.
    let name = e.put_str(0x400, "FOO");
    let v = e.ret("getenv", &[name]);
    assert_eq!(e.str_at(v), "bar");
    let set = e.put_str(0x500, "FOO=baz");
    assert_eq!(e.ret("_putenv", &[set]), 0);
    let v = e.ret("getenv", &[name]);
    assert_eq!(e.str_at(v), "baz");
}

#[test]
fn printf_writes_text_mode_to_stdout() {
    let mut e = env(&[]);
    let fmt = e.put_str(0x100, "n=%d\n");
    assert_eq!(e.ret("printf", &[fmt, 5]), 4);
    let s = e.put_str(0x200, "line");
    assert_eq!(e.ret("puts", &[s]), 0);
    let out = e.host.out.lock().unwrap().clone();
    // stdout is in text mode: each \n reaches the handle as CR LF.
    assert_eq!(out, b"n=5\r\nline\r\n");
    let iob = e.proc.resolve_hle("msvcrt.dll", "_iob").unwrap();
    assert_eq!(e.u32_at(iob + 32 + 16), 1, "_iob[1]._file");
    assert_eq!(e.ret("fputc", &[b'x' as u32, iob + 64]), b'x' as u32);
    assert_eq!(e.host.err.lock().unwrap().as_slice(), b"x");
}

#[test]
fn qsort_calls_the_guest_comparator() {
    let mut e = env(&[]);
    let code = e.int_comparator();
    let vals: Vec<i32> = vec![5, -3, 9, 0, 5, 12, -8, 7, 1, 1, 100, -50, 3, 2, 8, 6, 4];
    let arr = e.data + 0x1000;
    for (k, v) in vals.iter().enumerate() {
        e.proc.mem.write_u32(arr + 4 * k as u32, *v as u32).unwrap();
    }
    e.ret("qsort", &[arr, vals.len() as u32, 4, code]);
    let got: Vec<i32> = (0..vals.len() as u32)
        .map(|k| e.u32_at(arr + 4 * k) as i32)
        .collect();
    let mut want = vals.clone();
    want.sort();
    assert_eq!(got, want);
    // bsearch over the sorted array.
    let key = e.data + 0x2000;
    e.proc.mem.write_u32(key, 7).unwrap();
    let hit = e.ret("bsearch", &[key, arr, vals.len() as u32, 4, code]);
    assert_eq!(e.u32_at(hit), 7);
    e.proc.mem.write_u32(key, 99).unwrap();
    assert_eq!(e.ret("bsearch", &[key, arr, vals.len() as u32, 4, code]), 0);
}

/// msvcrt's qsort on a list of (key, id): middle pivot, explicit stack with the
/// larger part pushed, selection sort moving the maximum up below 9 elements.
/// The reference the guest routine must follow for equal keys.
fn msvcrt_qsort_reference(v: &mut [(i32, u32)]) {
    if v.len() < 2 {
        return;
    }
    let mut stack = Vec::new();
    let (mut lo, mut hi) = (0usize, v.len() - 1);
    loop {
        let size = hi - lo + 1;
        if size <= 8 {
            let mut h = hi;
            while h > lo {
                let mut max = lo;
                for p in lo + 1..=h {
                    if v[p].0 > v[max].0 {
                        max = p;
                    }
                }
                v.swap(max, h);
                h -= 1;
            }
        } else {
            v.swap(lo + size / 2, lo);
            let (mut loguy, mut higuy) = (lo, hi + 1);
            loop {
                loguy += 1;
                while loguy <= hi && v[loguy].0 <= v[lo].0 {
                    loguy += 1;
                }
                higuy -= 1;
                while higuy > lo && v[higuy].0 >= v[lo].0 {
                    higuy -= 1;
                }
                if higuy < loguy {
                    break;
                }
                v.swap(loguy, higuy);
            }
            v.swap(lo, higuy);
            if higuy - lo > hi - loguy {
                if lo + 1 < higuy {
                    stack.push((lo, higuy - 1));
                }
                if loguy < hi {
                    lo = loguy;
                    continue;
                }
            } else {
                if loguy < hi {
                    stack.push((loguy, hi));
                }
                if lo + 1 < higuy {
                    hi = higuy - 1;
                    continue;
                }
            }
        }
        match stack.pop() {
            Some((l, h)) => (lo, hi) = (l, h),
            None => return,
        }
    }
}

#[test]
fn qsort_orders_equal_keys_as_msvcrt() {
    let mut e = env(&[]);
    // Records whose first dword is the key.
    let code = e.int_comparator();
    let mut seed = 12345u32;
    for (n, width) in [(300u32, 8u32), (57, 12), (9, 8), (1000, 4)] {
        let recs: Vec<(i32, u32)> = (0..n)
            .map(|id| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (((seed >> 16) % 7) as i32, id)
            })
            .collect();
        let arr = e.data + 0x1000;
        for (k, &(key, id)) in recs.iter().enumerate() {
            let at = arr + width * k as u32;
            e.proc.mem.write_u32(at, key as u32).unwrap();
            if width > 4 {
                e.proc.mem.write_u32(at + 4, id).unwrap();
            }
        }
        e.ret("qsort", &[arr, n, width, code]);
        let mut want = recs.clone();
        msvcrt_qsort_reference(&mut want);
        let got: Vec<(i32, u32)> = (0..n)
            .map(|k| {
                let at = arr + width * k;
                let id = if width > 4 { e.u32_at(at + 4) } else { 0 };
                (e.u32_at(at) as i32, id)
            })
            .collect();
        let want: Vec<(i32, u32)> = want
            .into_iter()
            .map(|(k, id)| (k, if width > 4 { id } else { 0 }))
            .collect();
        assert_eq!(got, want, "{n} records of {width} bytes");
    }
}

#[test]
fn atexit_handlers_run_in_reverse_on_exit() {
    let mut e = env(&[]);
    // Each handler appends its tag to a list: mov eax,[list]; mov byte [eax],tag;
    // inc dword [list]; ret.
    let list = e.data + 0x3000;
    let out = e.data + 0x3010;
    e.proc.mem.write_u32(list, out).unwrap();
    let mut handlers = Vec::new();
    for (k, tag) in [b'A', b'B', b'C'].iter().enumerate() {
        let f = e.data + 0x900 + 0x20 * k as u32;
        let l = list.to_le_bytes();
        let mut c = vec![0xa1, l[0], l[1], l[2], l[3], 0xc6, 0x00, *tag, 0xff, 0x05];
        c.extend_from_slice(&l);
        c.push(0xc3);
        e.proc.mem.write_bytes(f, &c).unwrap();
        handlers.push(f);
    }
    assert_eq!(e.ret("atexit", &[handlers[0]]), 0);
    assert_eq!(e.ret("_onexit", &[handlers[1]]), handlers[1]);
    assert_eq!(e.ret("atexit", &[handlers[2]]), 0);
    let o = e.call("exit", &[7]);
    assert_eq!(o, Outcome::ExitProcess(7));
    assert_eq!(e.str_at(out), "CBA");
}

#[test]
fn setjmp_longjmp_restore_registers() {
    let mut e = env(&[]);
    let buf = e.data + 0x100;
    e.thread.cpu.regs[EBX] = 0x1111;
    e.thread.cpu.regs[ESI] = 0x2222;
    e.thread.cpu.regs[EDI] = 0x3333;
    e.thread.cpu.regs[EBP] = 0x4444;
    let esp_before = e.thread.cpu.regs[ESP];
    assert_eq!(e.ret("_setjmp3", &[buf, 0]), 0);
    // The call helper put the return address 0xdead0000 at the stack top.
    assert_eq!(e.u32_at(buf + 20), 0xdead_0000);
    let setjmp_esp = e.u32_at(buf + 16);
    for r in [EBX, ESI, EDI, EBP] {
        e.thread.cpu.regs[r] = 0;
    }
    assert_eq!(e.call("longjmp", &[buf, 0]), Outcome::Resume);
    let r = e.thread.cpu.regs;
    assert_eq!(
        (r[EBX], r[ESI], r[EDI], r[EBP]),
        (0x1111, 0x2222, 0x3333, 0x4444)
    );
    // longjmp(buf, 0) makes setjmp return 1, just after its call.
    assert_eq!(r[EAX], 1);
    assert_eq!(e.thread.cpu.eip, 0xdead_0000);
    assert_eq!(r[ESP], setjmp_esp + 4);
    assert!(r[ESP] < esp_before);
}

#[test]
fn rand_is_per_thread_ms_lcg() {
    let mut e = env(&[]);
    assert_eq!(e.ret("rand", &[]), 41);
    e.ret("srand", &[1]);
    assert_eq!(e.ret("rand", &[]), 41);
    assert_eq!(e.ret("rand", &[]), 18467);
}

#[test]
fn strtok_and_errno() {
    let mut e = env(&[]);
    let s = e.put_str(0x100, ",,a,bc,,d");
    let d = e.put_str(0x200, ",");
    let mut toks = Vec::new();
    let mut p = e.ret("strtok", &[s, d]);
    while p != 0 {
        toks.push(e.str_at(p));
        p = e.ret("strtok", &[0, d]);
    }
    assert_eq!(toks, ["a", "bc", "d"]);
    let n = e.put_str(0x300, "99999999999");
    assert_eq!(e.ret("strtol", &[n, 0, 10]), i32::MAX as u32);
    let perr = e.ret("_errno", &[]);
    assert_eq!(e.u32_at(perr), 34, "ERANGE");
    let msg = e.ret("strerror", &[34]);
    assert_eq!(e.str_at(msg), "Result too large");
}

#[test]
fn control87_uses_the_abstract_control_word() {
    let mut e = env(&[]);
    // _PC_24 under _MCW_PC (0x30000): the x87 precision field becomes 00.
    let r = e.ret("_controlfp", &[0x2_0000, 0x3_0000]);
    assert_eq!(r & 0x3_0000, 0x2_0000);
    assert_eq!(e.thread.cpu.fpu.cw & 0x300, 0);
    e.ret("_fpreset", &[]);
    assert_eq!(e.thread.cpu.fpu.cw, 0x027f);
}

#[test]
fn ci_pow_takes_its_arguments_on_the_x87_stack() {
    let mut e = env(&[]);
    e.thread.cpu.fpu.push(2.0);
    e.thread.cpu.fpu.push(10.0);
    let top = e.thread.cpu.fpu.top;
    match e.call("_CIpow", &[]) {
        Outcome::ReturnF64(v) => assert_eq!(v, 1024.0),
        o => panic!("{o:?}"),
    }
    // Both arguments were popped (the glue pushes the result afterwards).
    assert_eq!(e.thread.cpu.fpu.top, (top + 2) & 7);
}

#[test]
fn export_names_are_unique() {
    let v = exports();
    let mut names: Vec<&str> = v.iter().map(|e| e.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "duplicate msvcrt export");
}

/// What a mingw-w64 hello world imports from msvcrt.dll.
#[test]
fn covers_mingw_startup_imports() {
    let v = exports();
    for name in [
        "__getmainargs",
        "__initenv",
        "__mb_cur_max",
        "__p__acmdln",
        "__p__commode",
        "__p__fmode",
        "__set_app_type",
        "__setusermatherr",
        "_amsg_exit",
        "_cexit",
        "_errno",
        "_initterm",
        "_iob",
        "_lock",
        "_onexit",
        "_unlock",
        "abort",
        "atoi",
        "calloc",
        "exit",
        "fprintf",
        "fputc",
        "free",
        "fwrite",
        "localeconv",
        "malloc",
        "memcpy",
        "memset",
        "setlocale",
        "signal",
        "strchr",
        "strerror",
        "strlen",
        "strncmp",
        "vfprintf",
        "wcslen",
        "_stricmp",
        "fclose",
        "feof",
        "fgets",
        "fopen",
        "fread",
        "fseek",
        "ftell",
        "memcmp",
        "printf",
        "qsort",
        "sprintf",
        "strcmp",
        "strcpy",
        "_putenv",
        "getenv",
        "puts",
    ] {
        assert!(v.iter().any(|e| e.name == name), "missing {name}");
    }
}

/// A process whose C: drive is a fresh temporary folder.
fn env_with_files(tag: &str) -> (Env, std::path::PathBuf) {
    let e = env(&[]);
    let root = std::env::temp_dir().join(format!("winterp-msvcrt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("prog")).unwrap();
    std::fs::create_dir_all(root.join("overlay")).unwrap();
    let vfs = crate::vfs::Vfs::new(crate::vfs::VfsConfig {
        program_dir: root.join("prog"),
        guest_dir: "C:\\TEST".into(),
        overlay_dir: root.join("overlay"),
        allow_writes_to_original: true,
    })
    .unwrap();
    let _ = e.proc.vfs.set(Arc::new(vfs));
    (e, root)
}

#[test]
fn text_and_binary_streams_on_files() {
    let (mut e, root) = env_with_files("stdio");
    let name = e.put_str(0x100, "C:\\TEST\\out.txt");
    let (w, rb, r) = (
        e.put_str(0x140, "w"),
        e.put_str(0x148, "rb"),
        e.put_str(0x150, "r"),
    );
    let text = e.put_str(0x200, "line1\nline2\n");
    let fp = e.ret("fopen", &[name, w]);
    assert_ne!(fp, 0);
    assert_eq!(e.ret("fputs", &[text, fp]), 0);
    let fmt = e.put_str(0x300, "%d-%s\n");
    let arg = e.put_str(0x340, "x");
    assert_eq!(e.ret("fprintf", &[fp, fmt, 7, arg]), 4);
    assert_eq!(e.ret("fclose", &[fp]), 0);
    // Text mode wrote CR LF line ends to the file.
    let on_disk = std::fs::read(root.join("prog").join("out.txt")).unwrap();
    assert_eq!(on_disk, b"line1\r\nline2\r\n7-x\r\n");

    // Binary read sees the CRs.
    let fp = e.ret("fopen", &[name, rb]);
    let buf = e.data + 0x400;
    assert_eq!(e.ret("fread", &[buf, 1, 100, fp]), 19);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, buf, 7).unwrap(),
        b"line1\r\n"
    );
    assert_ne!(e.ret("feof", &[fp]), 0);
    assert_eq!(e.ret("fclose", &[fp]), 0);

    // Text read turns CR LF back into LF; ftell counts the file's bytes.
    let fp = e.ret("fopen", &[name, r]);
    assert_eq!(e.ret("fgets", &[buf, 64, fp]), buf);
    assert_eq!(e.str_at(buf), "line1\n");
    assert_eq!(e.ret("ftell", &[fp]), 7);
    assert_eq!(e.ret("fgetc", &[fp]), b'l' as u32);
    assert_eq!(e.ret("ungetc", &[b'L' as u32, fp]), b'L' as u32);
    assert_eq!(e.ret("fgets", &[buf, 64, fp]), buf);
    assert_eq!(e.str_at(buf), "Line2\n");
    assert_eq!(e.ret("fseek", &[fp, 0, 2]), 0);
    assert_eq!(e.ret("ftell", &[fp]), 19);
    assert_eq!(e.ret("fgetc", &[fp]) as i32, -1);
    assert_ne!(e.ret("feof", &[fp]), 0);
    e.ret("rewind", &[fp]);
    assert_eq!(e.ret("feof", &[fp]), 0);
    let sfmt = e.put_str(0x500, "line%d");
    let pv = e.data + 0x600;
    assert_eq!(e.ret("fscanf", &[fp, sfmt, pv]), 1);
    assert_eq!(e.u32_at(pv), 1);
    assert_eq!(e.ret("fclose", &[fp]), 0);

    // A missing file: NULL and errno ENOENT.
    let missing = e.put_str(0x700, "C:\\TEST\\nope.txt");
    assert_eq!(e.ret("fopen", &[missing, r]), 0);
    let perr = e.ret("_errno", &[]);
    assert_eq!(e.u32_at(perr), 2);
    assert_eq!(e.ret("remove", &[name]), 0);
    assert!(!root.join("prog").join("out.txt").exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn lowio_text_reads_split_cr_lf_across_calls() {
    let (mut e, root) = env_with_files("lowio");
    std::fs::write(root.join("prog").join("in.txt"), b"a\r\nb\rc\x1ad").unwrap();
    let name = e.put_str(0x100, "C:\\TEST\\in.txt");
    // _O_RDONLY | _O_TEXT
    let fd = e.ret("_open", &[name, 0x4000]);
    assert_eq!(fd, 3);
    let buf = e.data + 0x200;
    let mut got = Vec::new();
    loop {
        let n = e.ret("_read", &[fd, buf, 2]) as i32;
        assert!((0..=2).contains(&n));
        if n == 0 {
            break;
        }
        got.extend(super::gmem::read_vec(&e.proc.mem, buf, n as usize).unwrap());
    }
    // CR LF -> LF even when split between reads; a lone CR stays; Ctrl-Z ends
    // a text file.
    assert_eq!(got, b"a\nb\rc");
    assert_eq!(e.ret("_close", &[fd]), 0);
    assert_eq!(e.ret("_close", &[fd]) as i32, -1);
    let _ = std::fs::remove_dir_all(&root);
}

/// Guest memory whose second page is reserved but not committed: returns the
/// address of the first byte past the committed page.
fn edge_of_committed(e: &Env) -> u32 {
    let mut vm = e.proc.vm.lock().unwrap();
    let base = vm.reserve(None, 0x2000, Prot::RW, "edge test").unwrap();
    vm.commit(base, 0x1000, Prot::RW).unwrap();
    base + 0x1000
}

#[test]
fn memory_functions_follow_the_c_standard() {
    let mut e = env(&[]);
    let a = e.data + 0x1000;
    e.proc.mem.write_bytes(a, b"0123456789").unwrap();
    // memmove with overlap, either direction; memcpy shares its body.
    assert_eq!(e.ret("memmove", &[a + 2, a, 6]), a + 2);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, a, 10).unwrap(),
        b"0101234589"
    );
    assert_eq!(e.ret("memcpy", &[a, a + 3, 5]), a);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, a, 10).unwrap(),
        b"1234534589"
    );
    // memset takes the low byte of its int.
    assert_eq!(e.ret("memset", &[a + 8, 0x141, 2]), a + 8);
    assert_eq!(
        super::gmem::read_vec(&e.proc.mem, a, 10).unwrap(),
        b"12345345AA"
    );
    // memcmp: unsigned bytes, sign of the first difference; 0 for no bytes.
    let b = e.data + 0x1100;
    e.proc.mem.write_bytes(b, b"1234\x80").unwrap();
    assert_eq!(e.ret("memcmp", &[a, b, 4]), 0);
    assert_eq!(e.ret("memcmp", &[a, b, 5]) as i32, -1);
    assert_eq!(e.ret("memcmp", &[b, a, 5]) as i32, 1);
    assert_eq!(e.ret("memcmp", &[a, b, 0]), 0);
    // memchr: the first match inside the count, NULL past it.
    assert_eq!(e.ret("memchr", &[a, b'5' as u32, 10]), a + 4);
    assert_eq!(e.ret("memchr", &[a, b'5' as u32, 4]), 0);
    assert_eq!(e.ret("memchr", &[a, 0x100 + b'A' as u32, 10]), a + 8);
}

#[test]
fn string_functions_follow_the_c_standard() {
    let mut e = env(&[]);
    let s = e.put_str(0x1000, "hello");
    let t = e.put_str(0x1100, "help");
    let dest = e.data + 0x1200;
    assert_eq!(e.ret("strlen", &[s]), 5);
    assert_eq!(e.ret("strnlen", &[s, 3]), 3);
    assert_eq!(e.ret("strnlen", &[s, 9]), 5);
    assert_eq!(e.ret("strcpy", &[dest, s]), dest);
    assert_eq!(e.str_at(dest), "hello");
    assert_eq!(e.ret("strcat", &[dest, t]), dest);
    assert_eq!(e.str_at(dest), "hellohelp");
    // "hel" is common; 'l' < 'p'. A proper prefix sorts first.
    assert_eq!(e.ret("strcmp", &[s, t]) as i32, -1);
    assert_eq!(e.ret("strcmp", &[t, s]) as i32, 1);
    assert_eq!(e.ret("strcmp", &[s, dest]) as i32, -1);
    assert_eq!(e.ret("strcmp", &[dest, dest]), 0);
    assert_eq!(e.ret("strncmp", &[s, t, 3]), 0);
    assert_eq!(e.ret("strncmp", &[s, t, 4]) as i32, -1);
    assert_eq!(e.ret("strncmp", &[s, dest, 9]) as i32, -1);
    let hi = e.put_str(0x1300, "\u{7f}");
    let lo = e.put_str(0x1310, "a");
    assert_eq!(e.ret("strcmp", &[hi, lo]) as i32, 1);
    // strchr: the first match; the terminator itself is part of the string.
    assert_eq!(e.ret("strchr", &[dest, b'l' as u32]), dest + 2);
    assert_eq!(e.ret("strchr", &[dest, b'z' as u32]), 0);
    assert_eq!(e.ret("strchr", &[dest, 0]), dest + 9);
    assert_eq!(e.ret("strchr", &[dest, 0x100 + b'p' as u32]), dest + 8);
}

#[test]
fn string_and_memory_functions_stop_at_the_nul_before_uncommitted_memory() {
    let mut e = env(&[]);
    let edge = edge_of_committed(&e);
    let s = edge - 4;
    e.proc.mem.write_bytes(s, b"abc\0").unwrap();
    assert_eq!(e.ret("strlen", &[s]), 3);
    assert_eq!(e.ret("strchr", &[s, b'c' as u32]), s + 2);
    assert_eq!(e.ret("strcmp", &[s, s]), 0);
    let dest = e.data + 0x100;
    assert_eq!(e.ret("strcpy", &[dest, s]), dest);
    assert_eq!(e.str_at(dest), "abc");
    assert_eq!(e.ret("memchr", &[s, b'c' as u32, 0x100]), s + 2);
    // Without a NUL the string runs into the uncommitted page: a fault there.
    e.proc.mem.write_bytes(s, b"abcd").unwrap();
    let fault = |r: crate::hle::ApiResult<Outcome>| match r {
        Err(crate::hle::ApiError::Fault(a)) => a,
        r => panic!("expected a fault, got {r:?}"),
    };
    assert_eq!(fault(e.try_call("strlen", &[s])), edge);
    assert_eq!(fault(e.try_call("memchr", &[s, b'z' as u32, 0x100])), edge);
    assert_eq!(fault(e.try_call("memcpy", &[dest, s, 0x10])), edge);
    assert_eq!(fault(e.try_call("memcpy", &[s, dest, 0x10])), edge);
    assert_eq!(fault(e.try_call("memset", &[s, 0, 0x10])), edge);
    // As msvcrt's own code: a copy or fill running into the edge has stored what
    // lies before it (the last of them, memset, zeroed the four bytes).
    assert_eq!(super::gmem::read_vec(&e.proc.mem, s, 4).unwrap(), [0; 4]);
    // memcmp reads on while the bytes are equal, into the edge.
    e.proc.mem.write_bytes(dest, &[0; 4]).unwrap();
    assert_eq!(fault(e.try_call("memcmp", &[dest, s, 0x10])), edge);
    assert_eq!(e.ret("memcmp", &[dest, s, 4]), 0);
}
