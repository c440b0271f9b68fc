//! Guest threads and synchronisation end to end: small guest programs assembled
//! here call the KERNEL32 thunks, and run under `scheduler::run_process` in both
//! OS-thread and deterministic mode. Then the mingw test program threads.exe, whose
//! expected output was produced natively.

use iced_x86::BlockEncoderOptions;
use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::Prot;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::scheduler::{self, INSNS_PER_MS};
use winterp_hostwin32::thread::ThreadEnd;

const INFINITE: u32 = u32::MAX;
const WAIT_TIMEOUT: u32 = 258;
const CREATE_SUSPENDED: u32 = 4;

fn process(deterministic: bool) -> Arc<Process> {
    let mut c = ProcessConfig::new("/nonexistent/T.EXE".into(), r"C:\T\T.EXE".into());
    c.deterministic = deterministic;
    Process::new(
        c,
        Arc::new(CaptureHost::default()),
        &winterp_hostwin32::hle_dlls(),
    )
    .unwrap()
}

/// The thunk address of a KERNEL32 export.
fn k32(p: &Process, name: &str) -> u32 {
    p.resolve_hle("KERNEL32.dll", name).unwrap()
}

/// Guest read/write memory.
fn data(p: &Process, size: u32) -> u32 {
    p.vm.lock()
        .unwrap()
        .alloc(None, size, Prot::RW, "test data")
        .unwrap()
}

/// Assembles `build` into fresh guest code and returns the addresses of the labels it
/// returns. Code takes a label's address with `push dword [slot(k)]`: the loader
/// stores the address of the k-th returned label in [`slot`]`(k)`.
fn load(
    p: &Process,
    build: impl FnOnce(&mut CodeAssembler) -> Result<Vec<CodeLabel>, IcedError>,
) -> Vec<u32> {
    let addrs = load_code(p, build);
    for (k, &a) in addrs.iter().enumerate() {
        p.mem.write_u32(slot(k as u32), a).unwrap();
    }
    addrs
}

/// Where [`load`] stores label addresses: a fixed page, the same in every process.
fn slot(k: u32) -> u32 {
    SLOTS + 4 * k
}
const SLOTS: u32 = 0x0030_0000;

fn load_code(
    p: &Process,
    build: impl FnOnce(&mut CodeAssembler) -> Result<Vec<CodeLabel>, IcedError>,
) -> Vec<u32> {
    let _ =
        p.vm.lock()
            .unwrap()
            .alloc(Some(SLOTS), 0x1000, Prot::RW, "label slots");
    let base =
        p.vm.lock()
            .unwrap()
            .alloc(None, 0x1_0000, Prot::RWX, "test code")
            .unwrap();
    let mut a = CodeAssembler::new(32).unwrap();
    let labels = build(&mut a).unwrap();
    let r = a
        .assemble_options(
            base as u64,
            BlockEncoderOptions::RETURN_NEW_INSTRUCTION_OFFSETS,
        )
        .unwrap();
    p.mem.write_bytes(base, &r.inner.code_buffer).unwrap();
    labels
        .iter()
        .map(|l| r.label_ip(l).unwrap() as u32)
        .collect()
}

/// `stdcall` call of `target` with `args` (pushed right to left).
fn call(a: &mut CodeAssembler, target: u32, args: &[u32]) -> Result<(), IcedError> {
    for &x in args.iter().rev() {
        a.push(x)?;
    }
    a.mov(eax, target)?;
    a.call(eax)
}

/// Runs the process with its main thread starting at `entry`.
fn run(p: &Arc<Process>, entry: u32) -> ThreadEnd {
    let main = winterp_hostwin32::startup::new_thread(p, entry, 0, 0).unwrap();
    scheduler::run_process(p, main)
}

fn u32_at(p: &Process, a: u32) -> u32 {
    p.mem.read_u32(a).unwrap()
}

const WORKERS: u32 = 4;
const ITER: u32 = 20_000;

/// Layout of the counters program's data.
struct Counters {
    d: u32,
}

impl Counters {
    fn cs_count(&self) -> u32 {
        self.d
    }
    fn api_count(&self) -> u32 {
        self.d + 4
    }
    fn lock_count(&self) -> u32 {
        self.d + 8
    }
    fn log_index(&self) -> u32 {
        self.d + 0xc
    }
    fn cs(&self) -> u32 {
        self.d + 0x10
    }
    fn handles(&self) -> u32 {
        self.d + 0x40
    }
    fn codes(&self) -> u32 {
        self.d + 0x80
    }
    /// One byte per InterlockedIncrement of the log index: which worker got it.
    fn log(&self) -> u32 {
        self.d + 0x100
    }
}

/// WORKERS threads each do ITER rounds of: a plain increment under a critical
/// section, an InterlockedIncrement through the API, a LOCK INC, and an entry in
/// the log. Main waits for all of them and returns the critical-section count.
fn counters_program(p: &Arc<Process>) -> (Counters, u32) {
    let c = Counters {
        d: data(p, 0x100 + WORKERS * ITER + 0x100),
    };
    let (enter, leave, inc) = (
        k32(p, "EnterCriticalSection"),
        k32(p, "LeaveCriticalSection"),
        k32(p, "InterlockedIncrement"),
    );
    let init = k32(p, "InitializeCriticalSection");
    let create = k32(p, "CreateThread");
    let wait_all = k32(p, "WaitForMultipleObjects");
    let exit_code = k32(p, "GetExitCodeThread");
    let labels = load(p, |a| {
        let mut worker = a.create_label();
        let mut main = a.create_label();
        let mut again = a.create_label();
        a.set_label(&mut worker)?;
        a.push(ebx)?;
        a.push(esi)?;
        a.mov(esi, dword_ptr(esp + 12))?; // the parameter: worker number
        a.mov(ebx, ITER)?;
        a.set_label(&mut again)?;
        call(a, enter, &[c.cs()])?;
        a.mov(eax, dword_ptr(c.cs_count()))?;
        a.inc(eax)?;
        a.mov(dword_ptr(c.cs_count()), eax)?;
        call(a, leave, &[c.cs()])?;
        call(a, inc, &[c.api_count()])?;
        a.lock().inc(dword_ptr(c.lock_count()))?;
        call(a, inc, &[c.log_index()])?;
        a.mov(edx, esi)?;
        a.mov(byte_ptr(eax + c.log() - 1), dl)?;
        a.dec(ebx)?;
        a.jnz(again)?;
        a.lea(eax, dword_ptr(esi + 100))?;
        a.pop(esi)?;
        a.pop(ebx)?;
        a.ret_1(4)?;

        a.set_label(&mut main)?;
        call(a, init, &[c.cs()])?;
        for i in 0..WORKERS {
            // CreateThread(NULL, 0, worker, i, 0, NULL)
            a.push(0u32)?;
            a.push(0u32)?;
            a.push(i)?;
            a.push(dword_ptr(slot(1)))?;
            a.push(0u32)?;
            a.push(0u32)?;
            a.mov(eax, create)?;
            a.call(eax)?;
            a.mov(dword_ptr(c.handles() + 4 * i), eax)?;
        }
        call(a, wait_all, &[WORKERS, c.handles(), 1, INFINITE])?;
        a.mov(dword_ptr(c.codes() + 4 * WORKERS), eax)?;
        for i in 0..WORKERS {
            a.push(c.codes() + 4 * i)?;
            a.push(dword_ptr(c.handles() + 4 * i))?;
            a.mov(eax, exit_code)?;
            a.call(eax)?;
        }
        a.mov(eax, dword_ptr(c.cs_count()))?;
        a.ret_1(4)?;
        Ok(vec![main, worker])
    });
    (c, labels[0])
}

fn check_counters(p: &Process, c: &Counters, end: &ThreadEnd) {
    let n = WORKERS * ITER;
    assert_eq!(end, &ThreadEnd::Exited(n), "exit code is the CS count");
    assert_eq!(u32_at(p, c.api_count()), n);
    assert_eq!(u32_at(p, c.lock_count()), n);
    assert_eq!(u32_at(p, c.log_index()), n);
    assert_eq!(u32_at(p, c.codes() + 4 * WORKERS), 0, "WAIT_OBJECT_0");
    for i in 0..WORKERS {
        assert_eq!(
            u32_at(p, c.codes() + 4 * i),
            100 + i,
            "exit code of worker {i}"
        );
    }
    // The critical section is free again: LockCount -1, no owner.
    assert_eq!(u32_at(p, c.cs() + 4), u32::MAX);
    assert_eq!(u32_at(p, c.cs() + 0xc), 0);
}

#[test]
fn counters_are_exact_on_os_threads() {
    let p = process(false);
    let (c, entry) = counters_program(&p);
    let end = run(&p, entry);
    check_counters(&p, &c, &end);
    assert_eq!(p.thread_stats.lock().unwrap().len(), WORKERS as usize + 1);
}

/// What a deterministic run must reproduce exactly.
fn det_fingerprint(p: &Process, c: &Counters) -> (Vec<(u32, u64)>, u64, u64, Vec<u8>) {
    let mut stats: Vec<(u32, u64)> = p
        .thread_stats
        .lock()
        .unwrap()
        .iter()
        .map(|(tid, s)| (*tid, s.insns))
        .collect();
    stats.sort();
    let mut log = vec![0u8; (WORKERS * ITER) as usize];
    p.mem.read_bytes(c.log(), &mut log).unwrap();
    (
        stats,
        scheduler::virtual_clock(p),
        p.counters
            .api_calls
            .load(std::sync::atomic::Ordering::Relaxed),
        log,
    )
}

#[test]
fn counters_are_exact_and_reproducible_in_deterministic_mode() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let p = process(true);
        let (c, entry) = counters_program(&p);
        let end = run(&p, entry);
        check_counters(&p, &c, &end);
        runs.push(det_fingerprint(&p, &c));
    }
    assert_eq!(runs[0].0, runs[1].0, "per-thread instruction counts");
    assert_eq!(runs[0].1, runs[1].1, "virtual clock");
    assert_eq!(runs[0].2, runs[1].2, "API calls");
    assert!(
        runs[0].3 == runs[1].3,
        "the interleaving differs between runs"
    );
    // Round robin really interleaved the workers (each ran in several slices).
    let switches = runs[0].3.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches > 4 * WORKERS as usize, "only {switches} switches");
    // The clock counts every instruction of every thread.
    let total: u64 = runs[0].0.iter().map(|x| x.1).sum();
    assert_eq!(runs[0].1, total);
}

/// Main creates an event nobody can set and waits for it; so does a worker.
fn deadlock_program(p: &Arc<Process>) -> u32 {
    let d = data(p, 0x100);
    let create_event = k32(p, "CreateEventA");
    let wait = k32(p, "WaitForSingleObject");
    let create = k32(p, "CreateThread");
    load(p, |a| {
        let mut worker = a.create_label();
        let mut main = a.create_label();
        a.set_label(&mut worker)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.ret_1(4)?;
        a.set_label(&mut main)?;
        call(a, create_event, &[0, 1, 0, 0])?;
        a.mov(dword_ptr(d), eax)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(dword_ptr(slot(1)))?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.mov(eax, create)?;
        a.call(eax)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.ret_1(4)?;
        Ok(vec![main, worker])
    })[0]
}

#[test]
fn deadlock_ends_a_deterministic_run_with_a_report() {
    let p = process(true);
    let entry = deadlock_program(&p);
    match run(&p, entry) {
        ThreadEnd::Crashed(r) => {
            assert!(r.contains("deadlock"), "{r}");
            assert!(r.contains("Event (manual-reset, not signalled)"), "{r}");
            assert!(r.contains("thread 0x104"), "{r}");
        }
        other => panic!("expected a deadlock report, got {other:?}"),
    }
}

/// Main waits 250 ms for an event nobody sets and returns the wait's result.
fn timeout_program(p: &Arc<Process>) -> u32 {
    let create_event = k32(p, "CreateEventA");
    let wait = k32(p, "WaitForSingleObject");
    load(p, |a| {
        let mut main = a.create_label();
        a.set_label(&mut main)?;
        call(a, create_event, &[0, 0, 0, 0])?;
        a.push(250u32)?;
        a.push(eax)?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.ret_1(4)?;
        Ok(vec![main])
    })[0]
}

#[test]
fn timeouts_use_the_virtual_clock_in_deterministic_mode() {
    let p = process(true);
    let entry = timeout_program(&p);
    let t0 = std::time::Instant::now();
    assert_eq!(run(&p, entry), ThreadEnd::Exited(WAIT_TIMEOUT));
    assert!(scheduler::virtual_clock(&p) >= 250 * INSNS_PER_MS);
    // Nothing slept on the host.
    assert!(t0.elapsed() < std::time::Duration::from_millis(200));
}

#[test]
fn timeouts_use_the_host_clock_on_os_threads() {
    let p = process(false);
    let entry = timeout_program(&p);
    let t0 = std::time::Instant::now();
    assert_eq!(run(&p, entry), ThreadEnd::Exited(WAIT_TIMEOUT));
    assert!(t0.elapsed() >= std::time::Duration::from_millis(250));
}

/// A suspended thread does not run until resumed; a spinning thread is terminated.
fn lifetime_program(p: &Arc<Process>) -> (u32, u32) {
    let d = data(p, 0x100);
    let create = k32(p, "CreateThread");
    let wait = k32(p, "WaitForSingleObject");
    let resume = k32(p, "ResumeThread");
    let terminate = k32(p, "TerminateThread");
    let exit_code = k32(p, "GetExitCodeThread");
    let entry = load(p, |a| {
        let mut spinner = a.create_label();
        let mut flagger = a.create_label();
        let mut main = a.create_label();
        let mut not_yet = a.create_label();
        a.set_label(&mut spinner)?;
        a.lock().inc(dword_ptr(d + 0x20))?;
        a.jmp(spinner)?;
        a.set_label(&mut flagger)?;
        a.mov(dword_ptr(d + 0x24), 1u32)?;
        a.mov(eax, 5u32)?;
        a.ret_1(4)?;

        a.set_label(&mut main)?;
        let spawn = |a: &mut CodeAssembler, l: u32, flags: u32| {
            a.push(0u32)?;
            a.push(flags)?;
            a.push(0u32)?;
            a.push(dword_ptr(slot(l)))?;
            a.push(0u32)?;
            a.push(0u32)?;
            a.mov(eax, create)?;
            a.call(eax)
        };
        spawn(a, 2, CREATE_SUSPENDED)?;
        a.mov(dword_ptr(d), eax)?;
        a.push(20u32)?;
        a.push(eax)?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x30), eax)?;
        a.mov(eax, dword_ptr(d + 0x24))?;
        a.mov(dword_ptr(d + 0x44), eax)?; // the flag before resuming
        a.push(dword_ptr(d))?;
        a.mov(eax, resume)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x34), eax)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x38), eax)?;

        spawn(a, 1, 0)?;
        a.mov(dword_ptr(d + 4), eax)?;
        a.set_label(&mut not_yet)?;
        a.pause()?;
        a.cmp(dword_ptr(d + 0x20), 1000)?;
        a.jb(not_yet)?;
        a.push(42u32)?;
        a.push(dword_ptr(d + 4))?;
        a.mov(eax, terminate)?;
        a.call(eax)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d + 4))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x3c), eax)?;
        a.push(d + 0x40)?;
        a.push(dword_ptr(d + 4))?;
        a.mov(eax, exit_code)?;
        a.call(eax)?;
        a.xor(eax, eax)?;
        a.ret_1(4)?;
        Ok(vec![main, spinner, flagger])
    })[0];
    (d, entry)
}

fn check_lifetime(mode: bool) {
    let p = process(mode);
    let (d, entry) = lifetime_program(&p);
    assert_eq!(run(&p, entry), ThreadEnd::Exited(0));
    assert_eq!(
        u32_at(&p, d + 0x30),
        WAIT_TIMEOUT,
        "suspended thread still running"
    );
    assert_eq!(u32_at(&p, d + 0x44), 0, "the suspended thread ran");
    assert_eq!(u32_at(&p, d + 0x34), 1, "ResumeThread's previous count");
    assert_eq!(u32_at(&p, d + 0x38), 0);
    assert_eq!(u32_at(&p, d + 0x24), 1, "the resumed thread ran");
    assert_eq!(
        u32_at(&p, d + 0x3c),
        0,
        "the terminated thread is signalled"
    );
    assert_eq!(u32_at(&p, d + 0x40), 42, "TerminateThread's exit code");
}

#[test]
fn suspend_resume_terminate_on_os_threads() {
    check_lifetime(false);
}

#[test]
fn suspend_resume_terminate_in_deterministic_mode() {
    check_lifetime(true);
}

/// A worker calls ExitProcess(7) while main waits forever; a second worker owns a
/// mutex when it returns (abandoned) — main first checks that.
fn exit_program(p: &Arc<Process>) -> (u32, u32) {
    let d = data(p, 0x100);
    let create = k32(p, "CreateThread");
    let wait = k32(p, "WaitForSingleObject");
    let create_mutex = k32(p, "CreateMutexA");
    let create_event = k32(p, "CreateEventA");
    let exit_process = k32(p, "ExitProcess");
    let entry = load(p, |a| {
        let mut owner = a.create_label();
        let mut exiter = a.create_label();
        let mut main = a.create_label();
        a.set_label(&mut owner)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(esp + 8))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.ret_1(4)?;
        a.set_label(&mut exiter)?;
        call(a, exit_process, &[7])?;
        a.int3()?;

        a.set_label(&mut main)?;
        call(a, create_mutex, &[0, 0, 0])?;
        a.mov(dword_ptr(d), eax)?;
        let spawn = |a: &mut CodeAssembler, l: u32, param: u32| {
            a.push(0u32)?;
            a.push(0u32)?;
            a.push(param)?;
            a.push(dword_ptr(slot(l)))?;
            a.push(0u32)?;
            a.push(0u32)?;
            a.mov(eax, create)?;
            a.call(eax)
        };
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(dword_ptr(d))?;
        a.push(dword_ptr(slot(1)))?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.mov(eax, create)?;
        a.call(eax)?;
        a.push(INFINITE)?;
        a.push(eax)?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 4), eax)?; // WAIT_ABANDONED
        call(a, create_event, &[0, 1, 0, 0])?;
        a.mov(dword_ptr(d + 8), eax)?;
        spawn(a, 2, 0)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d + 8))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(eax, 99u32)?;
        a.ret_1(4)?;
        Ok(vec![main, owner, exiter])
    })[0];
    (d, entry)
}

fn check_exit(mode: bool) {
    let p = process(mode);
    let (d, entry) = exit_program(&p);
    assert_eq!(run(&p, entry), ThreadEnd::ProcessExit(7));
    assert_eq!(u32_at(&p, d + 4), 0x80, "WAIT_ABANDONED");
}

#[test]
fn exit_process_from_a_worker_stops_a_blocked_main_on_os_threads() {
    check_exit(false);
}

#[test]
fn exit_process_from_a_worker_stops_a_blocked_main_in_deterministic_mode() {
    check_exit(true);
}

/// Main calls ExitThread(3) while a worker still runs; the process ends with the
/// last thread's exit code.
fn exit_thread_program(p: &Arc<Process>) -> u32 {
    let create = k32(p, "CreateThread");
    let exit_thread = k32(p, "ExitThread");
    load(p, |a| {
        let mut worker = a.create_label();
        let mut again = a.create_label();
        let mut main = a.create_label();
        a.set_label(&mut worker)?;
        a.mov(ecx, 200_000u32)?;
        a.set_label(&mut again)?;
        a.dec(ecx)?;
        a.jnz(again)?;
        a.mov(eax, 9u32)?;
        a.ret_1(4)?;
        a.set_label(&mut main)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(dword_ptr(slot(1)))?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.mov(eax, create)?;
        a.call(eax)?;
        call(a, exit_thread, &[3])?;
        a.int3()?;
        Ok(vec![main, worker])
    })[0]
}

#[test]
fn main_thread_exit_thread_lets_the_others_finish() {
    for mode in [false, true] {
        let p = process(mode);
        let entry = exit_thread_program(&p);
        assert_eq!(
            run(&p, entry),
            ThreadEnd::ProcessExit(9),
            "deterministic: {mode}"
        );
    }
}

/// Main sorts two numbers with msvcrt's qsort; the comparator (a guest callback, so
/// its thread's host frames are below it) releases a worker, blocks until the worker
/// answers, then spins through several time slices. With `answer` false the worker
/// never answers: a deadlock inside the callback.
fn nested_program(p: &Arc<Process>, answer: bool) -> (u32, u32) {
    let d = data(p, 0x100);
    let create = k32(p, "CreateThread");
    let create_event = k32(p, "CreateEventA");
    let set_event = k32(p, "SetEvent");
    let wait = k32(p, "WaitForSingleObject");
    let qsort = p.resolve_hle("msvcrt.dll", "qsort").unwrap();
    let entry = load(p, |a| {
        let mut main = a.create_label();
        let mut worker = a.create_label();
        let mut compare = a.create_label();
        let mut spin = a.create_label();
        a.set_label(&mut worker)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d))?; // E1
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x10), 1u32)?;
        if answer {
            a.push(dword_ptr(d + 4))?; // E2
            a.mov(eax, set_event)?;
            a.call(eax)?;
        }
        a.xor(eax, eax)?;
        a.ret_1(4)?;

        a.set_label(&mut compare)?;
        a.push(dword_ptr(d))?;
        a.mov(eax, set_event)?;
        a.call(eax)?;
        a.push(INFINITE)?;
        a.push(dword_ptr(d + 4))?;
        a.mov(eax, wait)?;
        a.call(eax)?;
        a.mov(ecx, 100_000u32)?;
        a.set_label(&mut spin)?;
        a.dec(ecx)?;
        a.jnz(spin)?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(eax, dword_ptr(eax))?;
        a.mov(ecx, dword_ptr(esp + 8))?;
        a.sub(eax, dword_ptr(ecx))?;
        a.ret()?;

        a.set_label(&mut main)?;
        call(a, create_event, &[0, 1, 0, 0])?;
        a.mov(dword_ptr(d), eax)?;
        call(a, create_event, &[0, 1, 0, 0])?;
        a.mov(dword_ptr(d + 4), eax)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.push(dword_ptr(slot(1)))?;
        a.push(0u32)?;
        a.push(0u32)?;
        a.mov(eax, create)?;
        a.call(eax)?;
        a.mov(dword_ptr(d + 0x20), 7u32)?; // the array: 7, 3
        a.mov(dword_ptr(d + 0x24), 3u32)?;
        a.push(dword_ptr(slot(2)))?;
        a.push(4u32)?;
        a.push(2u32)?;
        a.push(d + 0x20)?;
        a.mov(eax, qsort)?;
        a.call(eax)?;
        a.add(esp, 16)?;
        a.mov(eax, dword_ptr(d + 0x10))?;
        a.ret_1(4)?;
        Ok(vec![main, worker, compare])
    })[0];
    (d, entry)
}

#[test]
fn waits_inside_guest_callbacks_run_the_other_threads() {
    for mode in [false, true] {
        let p = process(mode);
        let (d, entry) = nested_program(&p, true);
        assert_eq!(
            run(&p, entry),
            ThreadEnd::Exited(1),
            "deterministic: {mode}"
        );
        assert_eq!((u32_at(&p, d + 0x20), u32_at(&p, d + 0x24)), (3, 7));
    }
}

#[test]
fn deadlock_inside_a_guest_callback_is_reported() {
    let p = process(true);
    let (_, entry) = nested_program(&p, false);
    match run(&p, entry) {
        ThreadEnd::Crashed(r) => {
            assert!(r.contains("deadlock"), "{r}");
            assert!(r.contains("WaitForSingleObject"), "{r}");
        }
        other => panic!("expected a deadlock report, got {other:?}"),
    }
}

/// Runs a program from tests/guest/bin as the headless runner does, with its standard
/// streams captured. Returns how it ended, its stdout, and the process.
fn run_guest_program(name: &str, deterministic: bool) -> (ThreadEnd, Vec<u8>, Arc<Process>) {
    use winterp_hostwin32::vfs::{Vfs, VfsConfig};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest");
    let program = root
        .join("bin")
        .join(format!("{name}.exe"))
        .canonicalize()
        .unwrap();
    let mut config = ProcessConfig::new(
        program.clone(),
        format!(r"C:\BIN\{}.EXE", name.to_uppercase()),
    );
    config.deterministic = deterministic;
    let host = Arc::new(CaptureHost::default());
    let (proc, mut main) = winterp_hostwin32::startup::prepare(config, host.clone()).unwrap();
    let overlay = tempfile::tempdir().unwrap();
    let vfs = Vfs::new(VfsConfig {
        program_dir: program.parent().unwrap().to_path_buf(),
        guest_dir: r"C:\BIN".into(),
        overlay_dir: overlay.path().to_path_buf(),
        allow_writes_to_original: false,
    })
    .unwrap();
    let _ = proc.vfs.set(Arc::new(vfs));
    winterp_hostwin32::startup::initialize(&proc, &mut main).unwrap();
    let end = scheduler::run_process(&proc, main);
    let out = host.out.lock().unwrap().clone();
    (end, out, proc)
}

/// Guest stdout with the text-mode CR LF pairs turned back into LF (see
/// tests/guest/README.md).
fn lf(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace("\r\n", "\n")
}

fn expected_threads_stdout() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guest/expected/threads.stdout");
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn threads_exe_on_os_threads() {
    let (end, out, _) = run_guest_program("threads", false);
    assert_eq!(lf(&out), expected_threads_stdout());
    assert!(
        matches!(end, ThreadEnd::Exited(0) | ThreadEnd::ProcessExit(0)),
        "{end:?}"
    );
}

#[test]
fn threads_exe_in_deterministic_mode_is_exact_and_reproducible() {
    let mut counts = Vec::new();
    for _ in 0..2 {
        let (end, out, proc) = run_guest_program("threads", true);
        assert_eq!(lf(&out), expected_threads_stdout());
        assert!(
            matches!(end, ThreadEnd::Exited(0) | ThreadEnd::ProcessExit(0)),
            "{end:?}"
        );
        let mut per_thread: Vec<(u32, u64)> = proc
            .thread_stats
            .lock()
            .unwrap()
            .iter()
            .map(|(t, c)| (*t, c.insns))
            .collect();
        per_thread.sort();
        counts.push((per_thread, scheduler::virtual_clock(&proc)));
    }
    assert_eq!(counts[0], counts[1]);
}
