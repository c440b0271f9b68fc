//! Everything `unsafe` the `jit` tier needs, in one place: the code memory
//! (a Cranelift `JITModule` per executor), the call into compiled code, and the
//! `extern "C"` helpers compiled code calls back (an instruction through its
//! interpreter handler, the lazy-flag readers).
//!
//! A compiled block is a function `(cpu: *mut Cpu) -> u32` in Cranelift's `tail`
//! calling convention, entered from the run loop through a per-module C-convention
//! trampoline, and entering the next compiled block with a tail call (a link). It
//! touches the `Cpu` it is given (registers, EIP, lazy flags, segment bases, the
//! retired and block counters) at offsets taken with `offset_of!` from the Rust
//! layout, guest bytes through the permission table (`super::Env`), and calls the
//! helpers below with the same pointer. It never keeps the pointer past its return.

use crate::cpu::Cpu;
use cranelift_codegen::ir::{AbiParam, InstBuilder, Signature, types};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;

/// The entry trampoline every compiled block is entered through from the run loop:
/// `extern "C" fn(cpu, block_fn) -> u32`, calling `block_fn` (tail calling
/// convention) and returning its exit word.
type Trampoline = unsafe extern "C" fn(*mut Cpu, *const u8) -> u32;

/// An entry point of compiled code, valid while the [`CodeMemory`] that made it has
/// not been cleared (the executor drops every block holding one before it clears).
#[derive(Clone, Copy)]
pub struct Code {
    /// The block's function (`tail` calling convention, `(cpu) -> u32`).
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
        // SAFETY: the trampoline and the function were compiled by
        // `CodeMemory::compile` of the same module for exactly these signatures and
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

/// The host code of one executor (one guest thread): a Cranelift JIT module, created
/// at the first compile and freed whole when the executor drops its decoded code.
#[derive(Default)]
pub struct CodeMemory {
    module: Option<(JITModule, Trampoline)>,
}

impl CodeMemory {
    fn module(&mut self) -> Result<&mut (JITModule, Trampoline), String> {
        if self.module.is_none() {
            let mut m = new_module()?;
            let t = trampoline(&mut m)?;
            self.module = Some((m, t));
        }
        Ok(self.module.as_mut().expect("created above"))
    }

    /// Maps compiled functions (`super::worker::compile`: position-independent
    /// machine code with no relocations, and its alignment) with one finalize for
    /// the batch.
    pub fn install(&mut self, funcs: &[(&[u8], u64)]) -> Result<Vec<Code>, String> {
        let (m, tramp) = self.module()?;
        let tramp = *tramp;
        let mut sig = Signature::new(CallConv::Tail);
        sig.params
            .push(AbiParam::new(m.target_config().pointer_type()));
        sig.returns.push(AbiParam::new(types::I32));
        let mut ids = Vec::with_capacity(funcs.len());
        for &(bytes, align) in funcs {
            let id = m
                .declare_anonymous_function(&sig)
                .map_err(|e| e.to_string())?;
            m.define_function_bytes(id, align, bytes, &[])
                .map_err(|e| format!("{e:?}"))?;
            ids.push(id);
        }
        m.finalize_definitions().map_err(|e| e.to_string())?;
        Ok(ids
            .into_iter()
            .map(|id| Code {
                f: m.get_finalized_function(id),
                tramp,
            })
            .collect())
    }

    /// Frees all code. The caller has dropped every [`Code`] this memory handed out.
    pub fn clear(&mut self) {
        if let Some((m, _)) = self.module.take() {
            // SAFETY: no compiled function is running (this is called from the run
            // loop, between blocks) and the executor dropped every block holding a
            // `Code` from this module before calling (see `Executor::flush`), and
            // bumped its link epoch so the link table names none of it.
            unsafe { m.free_memory() };
        }
    }
}

/// Compiles the entry trampoline of a module: a C-convention function calling the
/// block function it is given with the `tail` convention (blocks link to each other
/// with tail calls, which Rust cannot make).
fn trampoline(m: &mut JITModule) -> Result<Trampoline, String> {
    let ptr = m.target_config().pointer_type();
    let mut ctx = m.make_context();
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let mut tail = Signature::new(CallConv::Tail);
        tail.params.push(AbiParam::new(ptr));
        tail.returns.push(AbiParam::new(types::I32));
        let sig = b.import_signature(tail);
        let e = b.create_block();
        b.append_block_params_for_function_params(e);
        b.switch_to_block(e);
        let (cpu, f) = (b.block_params(e)[0], b.block_params(e)[1]);
        let c = b.ins().call_indirect(sig, f, &[cpu]);
        let w = b.inst_results(c)[0];
        b.ins().return_(&[w]);
        b.seal_all_blocks();
        b.finalize();
    }
    let id = m
        .declare_anonymous_function(&ctx.func.signature)
        .map_err(|e| e.to_string())?;
    m.define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    m.clear_context(&mut ctx);
    m.finalize_definitions().map_err(|e| e.to_string())?;
    let p = m.get_finalized_function(id);
    // SAFETY: `p` is the entry of the function just finalized (mapped executable)
    // whose signature was built above as `(pointer, pointer) -> i32` with the host's
    // default calling convention, i.e. `extern "C" fn(*mut Cpu, *const u8) -> u32`.
    Ok(unsafe { std::mem::transmute::<*const u8, Trampoline>(p) })
}

fn new_module() -> Result<JITModule, String> {
    Ok(JITModule::new(JITBuilder::with_isa(
        new_isa("speed")?,
        cranelift_module::default_libcall_names(),
    )))
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
