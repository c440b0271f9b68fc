//! Visual C++ exception handling through msvcrt's `_CxxThrowException`,
//! `__CxxFrameHandler` and `_except_handler3`, driven by guest code assembled with
//! iced-x86 in the shapes the compiler emits: C++ frames (registration node at
//! EBP-0x0C with the state at EBP-4, saved ESP at EBP-0x10, a stub loading the
//! FuncInfo into EAX) and SEH frames (scope table, try level, EXCEPTION_POINTERS at
//! EBP-0x14, saved ESP at EBP-0x18). The metadata (FuncInfo, unwind and try-block
//! maps, handler types, ThrowInfo, catchable types, type descriptors with decorated
//! names such as `.H` for int) is laid out as the compiler documents it; expected
//! values follow from the C++ and SEH semantics.

use iced_x86::code_asm::*;
use std::sync::Arc;
use winterp_core::mem::Prot;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::thread::{GuestThread, ThreadEnd};

const CODE: u32 = 0x0040_0000;
const META: u32 = 0x0048_0000;
const DATA: u32 = 0x0050_0000;
const STACK: u32 = 0x0060_0000;
const STACK_SIZE: u32 = 0x1_0000;
const TEB: u32 = 0x0070_0000;

const MAIN: u32 = CODE;
const INNER: u32 = CODE + 0x400;
const FUNCLETS: u32 = CODE + 0x800;

// Results the guest writes (offsets from DATA).
const CAUGHT: u32 = 0x00;
const DTOR_CALLS: u32 = 0x04;
const DTOR_EBP: u32 = 0x08;
const INNER_EBP: u32 = 0x0c;
const MAIN_EBP: u32 = 0x10;
const CATCH_EBP: u32 = 0x14;
const MAIN_SAVED_ESP: u32 = 0x18;
const CONT_ESP: u32 = 0x1c;
const STATE_AFTER: u32 = 0x20;
const SEQ: u32 = 0x24;
const COPY_DST: u32 = 0x28;
const COPY_SRC: u32 = 0x2c;
const OBJ_DTOR_ECX: u32 = 0x30;
const OBJ_DTOR_SEQ: u32 = 0x34;
const CATCH_SEQ: u32 = 0x38;
const FILTER_CODE: u32 = 0x3c;
const FILTER_SEQ: u32 = 0x40;
const FINALLY_SEQ: u32 = 0x44;
const LEVEL_AFTER: u32 = 0x48;
const FINALLY_EBP: u32 = 0x4c;
/// The thrown object.
const OBJ: u32 = 0x100;

struct Guest {
    proc: Arc<Process>,
    t: GuestThread,
    meta_next: u32,
}

impl Guest {
    fn new() -> Guest {
        let host = Arc::new(CaptureHost::default());
        let config = ProcessConfig::new("/nonexistent/EH.EXE".into(), r"C:\EH.EXE".into());
        let proc = Process::new(config, host, &winterp_hostwin32::hle_dlls()).unwrap();
        {
            let mut vm = proc.vm.lock().unwrap();
            vm.alloc(Some(CODE), 0x1_0000, Prot::RWX, "code").unwrap();
            vm.alloc(Some(META), 0x1_0000, Prot::RW, "metadata")
                .unwrap();
            vm.alloc(Some(DATA), 0x1000, Prot::RW, "data").unwrap();
            vm.alloc(Some(STACK), STACK_SIZE, Prot::RW, "stack")
                .unwrap();
            vm.alloc(Some(TEB), 0x1000, Prot::RW, "TEB").unwrap();
        }
        let m = &proc.mem;
        m.write_u32(TEB, 0xffff_ffff).unwrap();
        m.write_u32(TEB + 4, STACK + STACK_SIZE).unwrap();
        m.write_u32(TEB + 8, STACK).unwrap();
        m.write_u32(TEB + 0x18, TEB).unwrap();
        let mut t = GuestThread::new(&proc, 4, TEB);
        t.cpu.regs[4] = STACK + STACK_SIZE - 0x40;
        Guest {
            proc,
            t,
            meta_next: META,
        }
    }

    fn crt(&self, name: &str) -> u64 {
        self.proc.resolve_hle("msvcrt.dll", name).unwrap() as u64
    }

    fn asm(&self, at: u32, build: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>) {
        let mut a = CodeAssembler::new(32).unwrap();
        build(&mut a).unwrap();
        let bytes = a.assemble(at as u64).unwrap();
        self.proc.mem.write_bytes(at, &bytes).unwrap();
    }

    /// Places dwords in the metadata area and returns their address.
    fn table(&mut self, words: &[u32]) -> u32 {
        let at = self.meta_next;
        for (k, w) in words.iter().enumerate() {
            self.proc.mem.write_u32(at + 4 * k as u32, *w).unwrap();
        }
        self.meta_next += (4 * words.len() as u32 + 15) & !15;
        at
    }

    /// A TypeDescriptor with a decorated name.
    fn type_desc(&mut self, name: &str) -> u32 {
        let at = self.meta_next;
        let mut b = vec![0u8; 8];
        b.extend_from_slice(name.as_bytes());
        b.push(0);
        self.proc.mem.write_bytes(at, &b).unwrap();
        self.meta_next += (b.len() as u32 + 15) & !15;
        at
    }

    fn data(&self, off: u32) -> u32 {
        self.proc.mem.read_u32(DATA + off).unwrap()
    }

    fn run(&mut self, entry: u32) -> u32 {
        self.t.start_at(entry, &[]).unwrap();
        match self.t.run(&self.proc) {
            ThreadEnd::Exited(v) => v,
            other => panic!("thread did not exit normally: {other:?}"),
        }
    }

    fn chain_head(&self) -> u32 {
        self.proc.mem.read_u32(TEB).unwrap()
    }
}

const FUNCINFO_MAGIC: u32 = 0x1993_0520;

/// The C++ frame prologue: registration node with state -1 and `stub` as handler,
/// `locals` bytes of locals, ESP saved at EBP-0x10.
fn cxx_prologue(a: &mut CodeAssembler, stub: u32, locals: i32) -> Result<(), IcedError> {
    a.push(ebp)?;
    a.mov(ebp, esp)?;
    a.push(-1)?;
    a.push(stub)?;
    a.push(dword_ptr(0).fs())?;
    a.mov(dword_ptr(0).fs(), esp)?;
    a.sub(esp, locals)?;
    a.mov(dword_ptr(ebp - 0x10), esp)
}

/// The frame handler stub: FuncInfo into EAX, then __CxxFrameHandler.
fn stub(g: &Guest, at: u32, funcinfo: u32) {
    let handler = g.crt("__CxxFrameHandler");
    g.asm(at, |a| {
        a.mov(eax, funcinfo)?;
        a.jmp(handler)
    });
}

/// Bumps the sequence counter and stores its new value at DATA+`slot`.
fn seq(a: &mut CodeAssembler, slot: u32) -> Result<(), IcedError> {
    a.inc(dword_ptr(DATA + SEQ))?;
    a.mov(edx, dword_ptr(DATA + SEQ))?;
    a.mov(dword_ptr(DATA + slot), edx)
}

#[test]
fn int_thrown_through_a_frame_with_a_destructor_is_caught_by_value() {
    let mut g = Guest::new();
    let td_int = g.type_desc(".H");
    let td_pchar = g.type_desc(".PAD");
    // catch (int): CatchableType {simple, .H, mdisp 0, pdisp -1, vdisp 0, size 4}.
    let ct_int = g.table(&[1, td_int, 0, u32::MAX, 0, 4, 0]);
    let cta = g.table(&[1, ct_int]);
    let throw_info = g.table(&[0, 0, 0, cta]);
    g.proc.mem.write_u32(DATA + OBJ, 42).unwrap();

    let inner_dtor = FUNCLETS;
    let inner_stub = FUNCLETS + 0x40;
    let catch_pchar = FUNCLETS + 0x80;
    let catch_int = FUNCLETS + 0xc0;
    let main_cont = FUNCLETS + 0x100;
    let main_stub = FUNCLETS + 0x140;

    // INNER: one local object with a destructor (state 0), then throw 42.
    let inner_unwind = g.table(&[u32::MAX, inner_dtor]);
    let inner_fi = g.table(&[FUNCINFO_MAGIC, 1, inner_unwind, 0, 0, 0, 0]);
    stub(&g, inner_stub, inner_fi);
    let throw = g.crt("_CxxThrowException");
    g.asm(INNER, |a| {
        cxx_prologue(a, inner_stub, 8)?;
        a.mov(dword_ptr(DATA + INNER_EBP), ebp)?;
        a.mov(dword_ptr(ebp - 4), 0)?;
        a.push(throw_info)?;
        a.push(DATA + OBJ)?;
        a.call(throw)?;
        a.int3()
    });
    g.asm(inner_dtor, |a| {
        a.mov(dword_ptr(DATA + DTOR_EBP), ebp)?;
        a.inc(dword_ptr(DATA + DTOR_CALLS))?;
        a.ret()
    });

    // MAIN: try { INNER(); } catch (char*) {} catch (int e) { CAUGHT = e; }
    let handlers = g.table(&[
        0,
        td_pchar,
        (-0x18i32) as u32,
        catch_pchar,
        0,
        td_int,
        (-0x18i32) as u32,
        catch_int,
    ]);
    let try_map = g.table(&[0, 0, 1, 2, handlers]);
    let main_unwind = g.table(&[u32::MAX, 0, u32::MAX, 0]);
    let main_fi = g.table(&[FUNCINFO_MAGIC, 2, main_unwind, 1, try_map, 0, 0]);
    stub(&g, main_stub, main_fi);
    g.asm(MAIN, |a| {
        cxx_prologue(a, main_stub, 0x20)?;
        a.mov(dword_ptr(DATA + MAIN_EBP), ebp)?;
        a.mov(eax, dword_ptr(ebp - 0x10))?;
        a.mov(dword_ptr(DATA + MAIN_SAVED_ESP), eax)?;
        a.mov(dword_ptr(ebp - 4), 0)?;
        a.call(INNER as u64)?;
        a.int3()
    });
    g.asm(catch_pchar, |a| {
        a.mov(dword_ptr(DATA + CAUGHT), 0xbad)?;
        a.mov(eax, main_cont)?;
        a.ret()
    });
    g.asm(catch_int, |a| {
        a.mov(eax, dword_ptr(ebp - 0x18))?;
        a.mov(dword_ptr(DATA + CAUGHT), eax)?;
        a.mov(dword_ptr(DATA + CATCH_EBP), ebp)?;
        a.mov(eax, main_cont)?;
        a.ret()
    });
    g.asm(main_cont, |a| {
        a.mov(dword_ptr(DATA + CONT_ESP), esp)?;
        a.mov(eax, dword_ptr(ebp - 4))?;
        a.mov(dword_ptr(DATA + STATE_AFTER), eax)?;
        a.mov(ecx, dword_ptr(ebp - 0xc))?;
        a.mov(dword_ptr(0).fs(), ecx)?;
        a.mov(esp, ebp)?;
        a.pop(ebp)?;
        a.mov(eax, 0x77)?;
        a.ret()
    });

    assert_eq!(g.run(MAIN), 0x77);
    assert_eq!(
        g.data(CAUGHT),
        42,
        "catch (int) gets a copy of the thrown int"
    );
    assert_eq!(g.data(DTOR_CALLS), 1, "INNER's local is destroyed once");
    assert_eq!(
        g.data(DTOR_EBP),
        g.data(INNER_EBP),
        "destructor funclet sees INNER's EBP"
    );
    assert_eq!(
        g.data(CATCH_EBP),
        g.data(MAIN_EBP),
        "catch funclet sees MAIN's EBP"
    );
    assert_eq!(
        g.data(CONT_ESP),
        g.data(MAIN_SAVED_ESP),
        "continuation at MAIN's ESP"
    );
    assert_eq!(
        g.data(STATE_AFTER),
        1,
        "state after the try block is tryHigh + 1"
    );
    assert_eq!(g.chain_head(), 0xffff_ffff, "the chain is back to empty");
}

/// A class thrown by value: the catch object is made with the copy constructor,
/// the catch block runs, and only then is the thrown object destroyed (once, even
/// though an inner catch rethrew it).
#[test]
fn class_object_copy_constructed_rethrown_and_destroyed_once() {
    let mut g = Guest::new();
    let td = g.type_desc(".?AVError@@");
    let copy_ctor = FUNCLETS;
    let obj_dtor = FUNCLETS + 0x40;
    let inner_stub = FUNCLETS + 0x80;
    let inner_catch = FUNCLETS + 0xc0;
    let main_stub = FUNCLETS + 0x100;
    let main_catch = FUNCLETS + 0x140;
    let main_cont = FUNCLETS + 0x180;
    // CatchableType {not simple, Error, 0, -1, 0, size 4, copy ctor}.
    let ct = g.table(&[0, td, 0, u32::MAX, 0, 4, copy_ctor]);
    let cta = g.table(&[1, ct]);
    let throw_info = g.table(&[0, obj_dtor, 0, cta]);
    g.proc.mem.write_u32(DATA + OBJ, 5).unwrap();

    // Error::Error(const Error& src) (thiscall): this->v = src.v + 1000.
    g.asm(copy_ctor, |a| {
        a.mov(dword_ptr(DATA + COPY_DST), ecx)?;
        a.mov(eax, dword_ptr(esp + 4))?;
        a.mov(dword_ptr(DATA + COPY_SRC), eax)?;
        a.mov(eax, dword_ptr(eax))?;
        a.add(eax, 1000)?;
        a.mov(dword_ptr(ecx), eax)?;
        a.mov(eax, ecx)?;
        a.ret_1(4)
    });
    // Error::~Error() (thiscall).
    g.asm(obj_dtor, |a| {
        a.mov(dword_ptr(DATA + OBJ_DTOR_ECX), ecx)?;
        a.inc(dword_ptr(DATA + DTOR_CALLS))?;
        seq(a, OBJ_DTOR_SEQ)?;
        a.ret()
    });

    // INNER: try { throw Error{5}; } catch (Error&) { throw; }
    let inner_handlers = g.table(&[8, td, 0, inner_catch]);
    let inner_try = g.table(&[0, 0, 1, 1, inner_handlers]);
    let inner_unwind = g.table(&[u32::MAX, 0, u32::MAX, 0]);
    let inner_fi = g.table(&[FUNCINFO_MAGIC, 2, inner_unwind, 1, inner_try, 0, 0]);
    stub(&g, inner_stub, inner_fi);
    let throw = g.crt("_CxxThrowException");
    g.asm(INNER, |a| {
        cxx_prologue(a, inner_stub, 8)?;
        a.mov(dword_ptr(ebp - 4), 0)?;
        a.push(throw_info)?;
        a.push(DATA + OBJ)?;
        a.call(throw)?;
        a.int3()
    });
    g.asm(inner_catch, |a| {
        a.push(0)?;
        a.push(0)?;
        a.call(throw)?;
        a.int3()
    });

    // MAIN: try { INNER(); } catch (Error e) { CAUGHT = e.v; }
    let main_handlers = g.table(&[0, td, (-0x18i32) as u32, main_catch]);
    let main_try = g.table(&[0, 0, 1, 1, main_handlers]);
    let main_unwind = g.table(&[u32::MAX, 0, u32::MAX, 0]);
    let main_fi = g.table(&[FUNCINFO_MAGIC, 2, main_unwind, 1, main_try, 0, 0]);
    stub(&g, main_stub, main_fi);
    g.asm(MAIN, |a| {
        cxx_prologue(a, main_stub, 0x20)?;
        a.mov(dword_ptr(DATA + MAIN_EBP), ebp)?;
        a.mov(dword_ptr(ebp - 4), 0)?;
        a.call(INNER as u64)?;
        a.int3()
    });
    g.asm(main_catch, |a| {
        a.mov(eax, dword_ptr(ebp - 0x18))?;
        a.mov(dword_ptr(DATA + CAUGHT), eax)?;
        seq(a, CATCH_SEQ)?;
        a.mov(eax, main_cont)?;
        a.ret()
    });
    g.asm(main_cont, |a| {
        a.mov(ecx, dword_ptr(ebp - 0xc))?;
        a.mov(dword_ptr(0).fs(), ecx)?;
        a.mov(esp, ebp)?;
        a.pop(ebp)?;
        a.mov(eax, 0x66)?;
        a.ret()
    });

    assert_eq!(g.run(MAIN), 0x66);
    assert_eq!(
        g.data(CAUGHT),
        1005,
        "catch object made by the copy constructor"
    );
    assert_eq!(g.data(COPY_SRC), DATA + OBJ);
    assert_eq!(g.data(COPY_DST), g.data(MAIN_EBP).wrapping_sub(0x18));
    assert_eq!(g.data(DTOR_CALLS), 1, "the thrown object is destroyed once");
    assert_eq!(g.data(OBJ_DTOR_ECX), DATA + OBJ);
    assert!(
        g.data(OBJ_DTOR_SEQ) > g.data(CATCH_SEQ),
        "destroyed after the catch block ran"
    );
    assert_eq!(g.chain_head(), 0xffff_ffff);
}

/// `__try { __try { *(int*)0 = 1; } __finally { ... } } __except (filter) { ... }`:
/// the filter sees STATUS_ACCESS_VIOLATION through GetExceptionInformation, runs
/// before the `__finally` block, and the `__except` block runs at the function's
/// ESP with the try level back to -1.
#[test]
fn seh_filter_finally_and_except_block() {
    let mut g = Guest::new();
    let filter = FUNCLETS;
    let finally = FUNCLETS + 0x40;
    let except = FUNCLETS + 0x80;
    let scope = g.table(&[u32::MAX, filter, except, 0, 0, finally]);
    let eh3 = g.crt("_except_handler3");
    g.asm(MAIN, |a| {
        a.push(ebp)?;
        a.mov(ebp, esp)?;
        a.push(-1)?;
        a.push(scope)?;
        a.push(eh3 as u32)?;
        a.push(dword_ptr(0).fs())?;
        a.mov(dword_ptr(0).fs(), esp)?;
        a.sub(esp, 8)?;
        a.mov(dword_ptr(ebp - 0x18), esp)?;
        a.mov(dword_ptr(DATA + MAIN_EBP), ebp)?;
        a.mov(eax, dword_ptr(ebp - 0x18))?;
        a.mov(dword_ptr(DATA + MAIN_SAVED_ESP), eax)?;
        a.mov(dword_ptr(ebp - 4), 0)?;
        a.mov(dword_ptr(ebp - 4), 1)?;
        a.mov(eax, 0)?;
        a.mov(dword_ptr(eax), 1)?;
        a.int3()
    });
    g.asm(filter, |a| {
        a.mov(eax, dword_ptr(ebp - 0x14))?;
        a.mov(eax, dword_ptr(eax))?;
        a.mov(eax, dword_ptr(eax))?;
        a.mov(dword_ptr(DATA + FILTER_CODE), eax)?;
        seq(a, FILTER_SEQ)?;
        a.mov(eax, 1)?;
        a.ret()
    });
    g.asm(finally, |a| {
        a.mov(dword_ptr(DATA + FINALLY_EBP), ebp)?;
        seq(a, FINALLY_SEQ)?;
        a.ret()
    });
    g.asm(except, |a| {
        a.mov(dword_ptr(DATA + CONT_ESP), esp)?;
        a.mov(eax, dword_ptr(ebp - 4))?;
        a.mov(dword_ptr(DATA + LEVEL_AFTER), eax)?;
        a.mov(ecx, dword_ptr(ebp - 0x10))?;
        a.mov(dword_ptr(0).fs(), ecx)?;
        a.mov(esp, ebp)?;
        a.pop(ebp)?;
        a.mov(eax, 0x55)?;
        a.ret()
    });

    assert_eq!(g.run(MAIN), 0x55);
    assert_eq!(g.data(FILTER_CODE), 0xc000_0005);
    assert_eq!(g.data(FILTER_SEQ), 1, "filters run in the search phase");
    assert_eq!(g.data(FINALLY_SEQ), 2, "__finally runs during the unwind");
    assert_eq!(g.data(FINALLY_EBP), g.data(MAIN_EBP));
    assert_eq!(
        g.data(LEVEL_AFTER),
        u32::MAX,
        "try level is the enclosing one"
    );
    assert_eq!(g.data(CONT_ESP), g.data(MAIN_SAVED_ESP));
    assert_eq!(g.chain_head(), 0xffff_ffff);
}

/// `try { *(int*)0 = 1; } catch (...) {}` in a function compiled with /EHa (FuncInfo
/// version 3 without FI_EHS_FLAG): catch(...) sees the access violation. Compiled
/// with /EHs (the flag set), the same frame lets it pass to the next handler, here
/// an outer C++ frame compiled with /EHa.
#[test]
fn catch_all_sees_seh_exceptions_only_under_eha() {
    for ehs in [false, true] {
        let mut g = Guest::new();
        let inner_stub = FUNCLETS;
        let inner_catch = FUNCLETS + 0x40;
        let main_stub = FUNCLETS + 0x80;
        let main_catch = FUNCLETS + 0xc0;
        let cont = FUNCLETS + 0x100;
        let catch_all = |g: &mut Guest, at: u32| {
            let handlers = g.table(&[0, 0, 0, at]);
            let try_map = g.table(&[0, 0, 1, 1, handlers]);
            let unwind = g.table(&[u32::MAX, 0, u32::MAX, 0]);
            (try_map, unwind)
        };
        let (inner_try, inner_unwind) = catch_all(&mut g, inner_catch);
        let inner_fi = g.table(&[
            0x1993_0522,
            2,
            inner_unwind,
            1,
            inner_try,
            0,
            0,
            0,
            ehs as u32,
        ]);
        stub(&g, inner_stub, inner_fi);
        let (main_try, main_unwind) = catch_all(&mut g, main_catch);
        let main_fi = g.table(&[0x1993_0522, 2, main_unwind, 1, main_try, 0, 0, 0, 0]);
        stub(&g, main_stub, main_fi);
        g.asm(MAIN, |a| {
            cxx_prologue(a, main_stub, 0x20)?;
            a.mov(dword_ptr(ebp - 4), 0)?;
            a.call(INNER as u64)?;
            a.jmp(cont as u64)
        });
        g.asm(INNER, |a| {
            cxx_prologue(a, inner_stub, 8)?;
            a.mov(dword_ptr(ebp - 4), 0)?;
            a.mov(eax, 0)?;
            a.mov(dword_ptr(eax), 1)?;
            a.int3()
        });
        for (at, who) in [(inner_catch, 1), (main_catch, 2)] {
            g.asm(at, |a| {
                a.mov(dword_ptr(DATA + CAUGHT), who)?;
                a.mov(eax, cont)?;
                a.ret()
            });
        }
        // The epilogue of either function: INNER's returns into MAIN after the call,
        // which jumps here again for MAIN's; MAIN's ends the thread.
        g.asm(cont, |a| {
            a.mov(ecx, dword_ptr(ebp - 0xc))?;
            a.mov(dword_ptr(0).fs(), ecx)?;
            a.mov(eax, dword_ptr(DATA + CAUGHT))?;
            a.mov(esp, ebp)?;
            a.pop(ebp)?;
            a.ret()
        });
        let want = if ehs { 2 } else { 1 };
        assert_eq!(g.run(MAIN), want, "ehs = {ehs}");
        assert_eq!(g.chain_head(), 0xffff_ffff);
    }
}
