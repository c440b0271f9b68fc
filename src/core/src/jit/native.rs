//! Everything `unsafe` the `jit` tier needs, in one place: the code memory
//! (one reservation per executor, filled front to back), the call into compiled code, the
//! `extern "C"` helpers compiled code calls back (an instruction through its
//! interpreter handler, the lazy-flag readers), and the host-fault path of
//! unchecked accesses ([`host_faults`]).
//!
//! A compiled block is a function `(cpu: *mut Cpu, eip: u32) -> u32` in Cranelift's
//! `tail` calling convention (`eip` the guest address it is entered at: the head of
//! its region or another block the region lets in), entered from the run loop
//! through a C-convention trampoline mapped at the start of the same memory, and entering the next compiled block with a tail call (a link). It
//! touches the `Cpu` it is given (registers, EIP, lazy flags, segment bases, the
//! retired and block counters) at offsets taken with `offset_of!` from the Rust
//! layout, guest bytes through the permission table (`super::Env`), and calls the
//! helpers below with the same pointer. It never keeps the pointer past its return.

use crate::cpu::Cpu;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{AbiParam, InstBuilder, Signature, types};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

/// The entry trampoline every compiled block is entered through from the run loop:
/// `extern "C" fn(cpu, block_fn) -> u32`, calling `block_fn` (tail calling
/// convention) and returning its exit word.
type Trampoline = unsafe extern "C" fn(*mut Cpu, *const u8) -> u32;

/// An entry point of compiled code, valid while the [`CodeMemory`] that made it has
/// not been cleared (the executor drops every block holding one before it clears).
#[derive(Clone, Copy)]
pub struct Code {
    /// The block's function (`tail` calling convention, `(cpu, eip) -> u32`).
    f: *const u8,
    tramp: Trampoline,
}

// SAFETY: a `Code` is only an address; it is called only by the executor that owns
// the code memory, on its own thread (see `Code::run`).
unsafe impl Send for Code {}

impl Code {
    /// Runs the compiled block on `cpu` (and the blocks it links to); returns the
    /// exit word of the last one (see `super::EXIT_BLOCK`).
    #[inline(always)]
    pub fn run(self, cpu: &mut Cpu) -> u32 {
        let view = cpu.mem.protected_view();
        cpu.jit_view = view.map_or(0, |v| v as u64);
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        if let Some(view) = view {
            return guard::run(self, cpu, view as usize);
        }
        // SAFETY: the trampoline and the function were mapped by
        // `CodeMemory::install` of the same memory for exactly these signatures and
        // are still mapped: the executor clears its code memory only after dropping
        // every block (and so every `Code`) of its cache, and bumps the link epoch so
        // no link table entry naming old code matches again. Compiled code reads and
        // writes `*cpu` only through fields at `offset_of!` offsets and the helpers
        // below, while no Rust reference to `cpu` is used (the `&mut` is turned into
        // the raw pointer for the call's duration); the other addresses it reads (link
        // table, permission table, guest bytes, epochs, halt flag) are documented at
        // `super::Env`.
        unsafe { (self.tramp)(cpu as *mut Cpu, self.f) }
    }

    /// The block function's address, for the link table.
    pub fn addr(self) -> u64 {
        self.f as u64
    }
}

/// Address space reserved per executor for host code: twice the bytes it may hold
/// before it drops all of them (`super::CODE_CAP`), which covers alignment padding
/// (at most 15 bytes per function of at least a few dozen) and the batch that
/// crosses the cap. Mapped inaccessible: a page takes host memory only once code
/// reaches it (Windows counts the whole reservation against its commit limit).
const RESERVE: usize = 2 * super::CODE_CAP;

/// The host code of one executor (one guest thread): one address-space reservation
/// filled front to back, so hot regions sit next to each other whatever order they
/// were compiled in (regions mapped one at a time into pages of their own took an
/// instruction-TLB entry and the same cache set each; docs/performance.md), and
/// freed whole when the executor drops its decoded code.
#[derive(Default)]
pub struct CodeMemory {
    arena: Option<Arena>,
}

struct Arena {
    alloc: region::Allocation,
    /// Bytes written so far from the start (pages past them are still reserved
    /// only).
    used: usize,
    tramp: Trampoline,
}

// SAFETY: the arena is plain memory owned by one executor; it moves with it between
// threads only while no code in it runs (an executor runs on one thread at a time).
unsafe impl Send for Arena {}

impl CodeMemory {
    fn arena(&mut self) -> Result<&mut Arena, String> {
        if self.arena.is_none() {
            let alloc = region::alloc(RESERVE, region::Protection::NONE)
                .map_err(|e| format!("reserving jit code memory: {e}"))?;
            let mut a = Arena {
                alloc,
                used: 0,
                tramp: unreachable_tramp,
            };
            let (bytes, align) = trampoline()?;
            let p = a.copy_in(&[(&bytes, align)])?[0];
            // SAFETY: `p` is the start of the trampoline's bytes just mapped
            // executable, compiled above for `extern "C" fn(*mut Cpu, *const u8) ->
            // u32` with the host's default calling convention.
            a.tramp = unsafe { std::mem::transmute::<*const u8, Trampoline>(p) };
            self.arena = Some(a);
        }
        Ok(self.arena.as_mut().expect("created above"))
    }

    /// Maps compiled functions (`super::worker::compile`: position-independent
    /// machine code with no relocations, and its alignment), one after the other
    /// behind the code mapped before them.
    pub fn install(&mut self, funcs: &[(&[u8], u64)]) -> Result<Vec<Code>, String> {
        let a = self.arena()?;
        let tramp = a.tramp;
        Ok(a.copy_in(funcs)?
            .into_iter()
            .map(|f| Code { f, tramp })
            .collect())
    }

    /// Frees all code. The caller has dropped every [`Code`] this memory handed out.
    pub fn clear(&mut self) {
        // Unmapped when the allocation drops. No compiled function is running
        // (this is called from the run loop, between blocks), the executor dropped
        // every block holding a `Code` from this memory before calling (see
        // `Executor::flush`), and bumped its link epoch so the link table names
        // none of it.
        self.arena = None;
    }
}

/// Stands in for the trampoline while the arena is being set up (never called:
/// no `Code` exists before the real one is in place).
unsafe extern "C" fn unreachable_tramp(_: *mut Cpu, _: *const u8) -> u32 {
    super::EXIT_BLOCK
}

impl Arena {
    /// Copies `funcs` in behind the bytes already used, each at its alignment, and
    /// makes them executable; returns their addresses.
    fn copy_in(&mut self, funcs: &[(&[u8], u64)]) -> Result<Vec<*const u8>, String> {
        let page = region::page::size();
        let mut at = Vec::with_capacity(funcs.len());
        let mut end = self.used;
        for &(bytes, align) in funcs {
            let align = (align as usize).clamp(1, page);
            let o = end.next_multiple_of(align);
            at.push(o);
            end = o + bytes.len();
        }
        if end > self.alloc.len() {
            return Err("jit code memory full".into());
        }
        // The pages written: the last one already holding code (executable, made
        // writable again) through the first ones taken from the reservation.
        let lo = self.used / page * page;
        let hi = end.next_multiple_of(page);
        let base = self.alloc.as_mut_ptr::<u8>();
        // SAFETY: [lo, hi) lies inside the reservation (`end` was checked against
        // its length and pages round within it, the length being whole pages). No
        // code in these pages is running: the executor installs between blocks on
        // the one thread that runs its code, so making them writable for the copy
        // cannot pull them from under an instruction fetch.
        unsafe {
            region::protect(base.add(lo), hi - lo, region::Protection::READ_WRITE)
                .map_err(|e| format!("jit code memory: {e}"))?;
        }
        for (&(bytes, _), &o) in funcs.iter().zip(&at) {
            // SAFETY: [o, o + len) is inside [lo, hi), writable since the protect
            // above, and disjoint from every other function's bytes (offsets grow).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(o), bytes.len()) };
        }
        // SAFETY: the same pages, now holding the finished code; the icache is
        // cleaned for the bytes written before they become executable (a no-op on
        // hosts whose instruction fetch sees stores, such as x86-64).
        unsafe {
            wasmtime_internal_jit_icache_coherence::clear_cache(
                base.add(self.used) as *const std::ffi::c_void,
                end - self.used,
            )
            .map_err(|e| format!("jit code memory: {e}"))?;
            region::protect(base.add(lo), hi - lo, region::Protection::READ_EXECUTE)
                .map_err(|e| format!("jit code memory: {e}"))?;
        }
        wasmtime_internal_jit_icache_coherence::pipeline_flush_mt()
            .map_err(|e| format!("jit code memory: {e}"))?;
        self.used = end;
        // SAFETY: each offset is inside the reservation (checked above).
        Ok(at
            .iter()
            .map(|&o| unsafe { base.add(o) } as *const u8)
            .collect())
    }
}

/// Compiles the entry trampoline: a C-convention function calling the block
/// function it is given with the `tail` convention (blocks link to each other with
/// tail calls, which Rust cannot make). Position-independent bytes, as blocks are.
fn trampoline() -> Result<(Vec<u8>, u64), String> {
    let isa = new_isa("speed")?;
    let ptr = isa.pointer_type();
    let mut ctx = cranelift_codegen::Context::new();
    ctx.func.signature = Signature::new(isa.default_call_conv());
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let mut tail = Signature::new(CallConv::Tail);
        tail.params.push(AbiParam::new(ptr));
        tail.params.push(AbiParam::new(types::I32));
        tail.returns.push(AbiParam::new(types::I32));
        let sig = b.import_signature(tail);
        let e = b.create_block();
        b.append_block_params_for_function_params(e);
        b.switch_to_block(e);
        let (cpu, f) = (b.block_params(e)[0], b.block_params(e)[1]);
        // The entry EIP (a region entered at one of its other blocks starts there):
        // the run loop enters with `cpu.eip` at the block it found the code on.
        let eip = b.ins().load(
            types::I32,
            cranelift_codegen::ir::MemFlags::trusted(),
            cpu,
            std::mem::offset_of!(Cpu, eip) as i32,
        );
        let c = b.ins().call_indirect(sig, f, &[cpu, eip]);
        let w = b.inst_results(c)[0];
        b.ins().return_(&[w]);
        b.seal_all_blocks();
        b.finalize();
    }
    let c = ctx
        .compile(&*isa, &mut ControlPlane::default())
        .map_err(|e| format!("jit trampoline: {:?}", e.inner))?;
    if !c.buffer.relocs().is_empty() {
        return Err("relocations in the jit trampoline".into());
    }
    let align = (c.buffer.alignment as u64).max(isa.function_alignment().minimum as u64);
    Ok((c.code_buffer().to_vec(), align))
}

/// The host ISA with the tier's flags: the executor's module compiles with it, and
/// so does the background compiler (`super::worker`), whose machine code the module
/// then takes as bytes.
pub(super) fn new_isa(opt_level: &str) -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    let opt = std::env::var(format!("WINTERP_JIT_OPT_{opt_level}")).unwrap_or(opt_level.into());
    flags.set("opt_level", &opt).map_err(|e| e.to_string())?;
    // The verifier re-checks every function Cranelift is given (a debugging aid
    // that cost a tenth of compile time); the tier's own tests check the code.
    flags
        .set("enable_verifier", "false")
        .map_err(|e| e.to_string())?;
    flags
        .set("use_colocated_libcalls", "false")
        .map_err(|e| e.to_string())?;
    flags.set("is_pic", "false").map_err(|e| e.to_string())?;
    // Nothing unwinds through compiled code (a host fault lands on the entry's
    // saved stack pointer, `guard`); the unwind records cost compile time.
    flags
        .set("unwind_info", "false")
        .map_err(|e| e.to_string())?;
    // Cranelift's tail calls (the links between blocks) rely on frame pointers.
    flags
        .set("preserve_frame_pointers", "true")
        .map_err(|e| e.to_string())?;
    if let Ok(ra) = std::env::var(format!("WINTERP_JIT_RA_{opt_level}")) {
        flags
            .set("regalloc_algorithm", &ra)
            .map_err(|e| e.to_string())?;
    }
    cranelift_native::builder()
        .map_err(|e| format!("host not supported by Cranelift: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())
}

/// Runs one instruction through its interpreter handler: `ops` is a pair [the
/// instruction's op, an op that returns `Exit::Block`] kept by the executor's
/// `JitState` while the code that names it lives. Returns 0 (retired, continue),
/// `super::EXIT_FAULT` (not retired, exception recorded by the handler) or
/// `super::EXIT_CODE_WRITE` (retired into code or ending the block; EIP set).
///
/// # Safety
/// Called only by compiled code, with the `*mut Cpu` it was called with (the same
/// holds for every helper here).
pub(super) unsafe extern "C" fn interp(cpu: *mut Cpu, ops: *const crate::exec::op::Op) -> u32 {
    // SAFETY: compiled code passes the `*mut Cpu` it was called with (see
    // `Code::run`); no other reference to it is live during the call.
    let cpu = unsafe { &mut *cpu };
    // SAFETY: compiled code passes the address of a live `Box<[Op; 2]>` from
    // `JitState::keep` (freed only with the code memory, see `JitState::clear`).
    let ops = unsafe { std::slice::from_raw_parts(ops, 2) };
    // The handler reads the counts as the interpreter keeps them (RDTSC in
    // deterministic mode); compiled code stored its combined count first.
    super::counts(cpu);
    match (ops[0].h)(cpu, ops, 0) {
        crate::cpu::Exit::Block => 0,
        crate::cpu::Exit::Fault => super::EXIT_FAULT,
        crate::cpu::Exit::CodeWrite => super::EXIT_CODE_WRITE,
        #[cfg(feature = "dispatch-loop")]
        crate::cpu::Exit::Next => 0,
    }
}

/// Condition `cc` (x86 nibble) of the lazy flags as they stand.
pub(super) unsafe extern "C" fn cond(cpu: *mut Cpu, cc: u32) -> u32 {
    // SAFETY: as in `interp`; read only.
    let cpu = unsafe { &*cpu };
    cpu.flags.cond(cc as u8) as u32
}

/// The six arithmetic flags as they stand, as EFLAGS bits (`LazyFlags::bits`).
pub(super) unsafe extern "C" fn bits(cpu: *mut Cpu) -> u32 {
    // SAFETY: as in `interp`; read only.
    let cpu = unsafe { &*cpu };
    cpu.flags.bits()
}

/// Whether compiled code may access guest memory unchecked through the protected
/// view (`GuestMemory::protected_view`): the host has the entry and landing below
/// and the fault handler is installed (once per process, at the first ask).
pub fn host_faults() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        guard::installed()
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        false
    }
}

/// The host-fault path (x86-64 Linux). Compiled code is entered through
/// `winterp_jit_enter`, which saves the callee-saved registers and records its
/// stack pointer in a thread-local slot before calling the trampoline. An access
/// through the protected view that the permission table refuses raises SIGSEGV;
/// the handler, seeing the slot set and the faulting address inside this
/// thread's view, makes the signal return to `winterp_jit_landing` with that
/// stack pointer and `super::EXIT_HOST_FAULT` in EAX: the compiled frames are
/// dropped (they own nothing) and the entry returns as if the code had. The
/// state compiled code spilled before the access (`Gen::spill`) says where the
/// interpreter resumes. Any other SIGSEGV goes to the handler installed before
/// (Rust's stack-overflow report, or the default action).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod guard {
    use super::{Code, Trampoline};
    use crate::cpu::Cpu;
    use std::cell::Cell;
    use std::sync::OnceLock;

    thread_local! {
        /// The entry's stack pointer while compiled code runs on this thread, else 0.
        static SP: Cell<usize> = const { Cell::new(0) };
        /// This thread's protected view while compiled code runs: [start, end).
        static VIEW: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }

    // The entry keeps the stack 16-byte aligned at the call (six pushes with the
    // return address, and eight bytes more) and records the stack pointer the
    // call leaves on return, so the landing is the return path itself.
    std::arch::global_asm!(
        ".text",
        ".p2align 4",
        ".globl winterp_jit_enter",
        ".hidden winterp_jit_enter",
        ".type winterp_jit_enter, @function",
        "winterp_jit_enter:",
        "push rbp",
        "mov rbp, rsp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        "sub rsp, 8",
        "mov qword ptr [rcx], rsp",
        "call rdx",
        ".globl winterp_jit_landing",
        ".hidden winterp_jit_landing",
        "winterp_jit_landing:",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        "ret",
        ".size winterp_jit_enter, . - winterp_jit_enter",
    );

    unsafe extern "C" {
        /// `tramp(cpu, f)` with the stack pointer recorded in `*slot`.
        fn winterp_jit_enter(
            cpu: *mut std::ffi::c_void,
            f: *const u8,
            tramp: Trampoline,
            slot: *mut usize,
        ) -> u32;
        fn winterp_jit_landing();
    }

    #[inline(always)]
    pub(super) fn run(code: Code, cpu: &mut Cpu, view: usize) -> u32 {
        VIEW.set((view, view + crate::mem::VIEW_LEN));
        let slot = SP.with(|c| c.as_ptr());
        // SAFETY: as for the trampoline in `Code::run`; the entry only adds the
        // saved registers and the recorded stack pointer around the same call,
        // and the landing returns through the same path with the registers the
        // entry saved. `slot` is this thread's `SP`, read by the handler on this
        // thread only.
        let w = unsafe { winterp_jit_enter(cpu as *mut Cpu as *mut _, code.f, code.tramp, slot) };
        SP.set(0);
        w
    }

    static PREV: OnceLock<Option<libc::sigaction>> = OnceLock::new();

    pub(super) fn installed() -> bool {
        PREV.get_or_init(install).is_some()
    }

    fn install() -> Option<libc::sigaction> {
        if std::env::var_os("WINTERP_NO_HOST_FAULTS").is_some() {
            return None;
        }
        // SAFETY: installs a SA_SIGINFO handler for SIGSEGV, keeping the old
        // action to chain to; both structs are plain data owned here.
        unsafe {
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_segv as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGSEGV, &new, &mut old) != 0 {
                return None;
            }
            Some(old)
        }
    }

    unsafe extern "C" fn on_segv(
        sig: libc::c_int,
        info: *mut libc::siginfo_t,
        ctx: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo and ucontext for a SA_SIGINFO
        // handler; the thread-locals are const-initialised cells (no lazy
        // initialisation or destructor runs here).
        unsafe {
            let addr = (*info).si_addr() as usize;
            let sp = SP.get();
            let (lo, hi) = VIEW.get();
            if sp != 0 && addr >= lo && addr < hi {
                let uc = ctx as *mut libc::ucontext_t;
                let g = &mut (*uc).uc_mcontext.gregs;
                g[libc::REG_RSP as usize] = sp as i64;
                g[libc::REG_RIP as usize] = winterp_jit_landing as *const () as usize as i64;
                g[libc::REG_RAX as usize] = super::super::EXIT_HOST_FAULT as i64;
                SP.set(0);
                return;
            }
            chain(sig, info, ctx);
        }
    }

    /// Hands a fault that is not ours to the action installed before.
    unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let Some(Some(old)) = PREV.get() else {
            return;
        };
        // SAFETY: `old` is the action the kernel returned at install: a handler
        // of the kind its flags say, or SIG_DFL/SIG_IGN, which are restored so
        // the faulting instruction faults again under them.
        unsafe {
            let h = old.sa_sigaction;
            if h == libc::SIG_DFL || h == libc::SIG_IGN {
                libc::sigaction(sig, old, std::ptr::null_mut());
            } else if old.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(h);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                f(sig);
            }
        }
    }
}
