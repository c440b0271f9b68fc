//! Everything `unsafe` the `jit` tier needs, in one place: the code memory
//! (a Cranelift `JITModule` per executor), the call into compiled code, and the
//! `extern "C"` helpers compiled code calls back (guest memory through the
//! interpreter's own access functions, the lazy-flag readers).
//!
//! Compiled code has the signature `extern "C" fn(*mut Cpu) -> u32` and touches only
//! the `Cpu` it is given (registers, EIP, lazy flags, segment bases) at offsets taken
//! with `offset_of!` from the Rust layout, and calls the helpers below with the same
//! pointer. It never keeps the pointer past its return.

use super::Compiled;
use crate::cpu::{Cpu, Exception, ExceptionKind};
use crate::mem::{Access, Fault, Wrote};
use cranelift_codegen::Context;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;

/// An entry point of compiled code, valid while the [`CodeMemory`] that made it has
/// not been cleared (the executor drops every block holding one before it clears).
#[derive(Clone, Copy)]
pub struct Code(unsafe extern "C" fn(*mut Cpu) -> u32);

impl Code {
    /// Runs the compiled block on `cpu`; returns its exit word (see `super::exit`).
    #[inline(always)]
    pub fn run(self, cpu: &mut Cpu) -> u32 {
        // SAFETY: the function was compiled by `CodeMemory::compile` for exactly this
        // signature and is still mapped: the executor clears its code memory only
        // after dropping every block (and so every `Code`) of its cache. It reads and
        // writes `*cpu` only through fields at `offset_of!` offsets and the helpers
        // below, while no Rust reference to `cpu` is used (the `&mut` is turned into
        // the raw pointer for the call's duration).
        unsafe { (self.0)(cpu as *mut Cpu) }
    }
}

/// The host code of one executor (one guest thread): a Cranelift JIT module, created
/// at the first compile and freed whole when the executor drops its decoded code.
#[derive(Default)]
pub struct CodeMemory {
    module: Option<JITModule>,
}

impl CodeMemory {
    /// Compiles the function `ctx` holds. `Err` names why Cranelift refused.
    pub fn compile(&mut self, ctx: &mut Context) -> Result<Compiled, String> {
        if self.module.is_none() {
            self.module = Some(new_module()?);
        }
        let m = self.module.as_mut().expect("created above");
        let id = m
            .declare_anonymous_function(&ctx.func.signature)
            .map_err(|e| e.to_string())?;
        m.define_function(id, ctx).map_err(|e| format!("{e:?}"))?;
        let bytes = ctx
            .compiled_code()
            .map(|c| c.code_info().total_size as usize)
            .unwrap_or(0);
        m.clear_context(ctx);
        m.finalize_definitions().map_err(|e| e.to_string())?;
        let p = m.get_finalized_function(id);
        // SAFETY: `p` is the entry of the function just finalized (mapped executable)
        // whose signature the caller built as `(pointer) -> i32` with the host's
        // default calling convention, i.e. `extern "C" fn(*mut Cpu) -> u32`.
        let f =
            unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut Cpu) -> u32>(p) };
        Ok(Compiled {
            code: Code(f),
            bytes,
        })
    }

    /// Frees all code. The caller has dropped every [`Code`] this memory handed out.
    pub fn clear(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: no compiled function is running (this is called from the run
            // loop, between blocks) and the executor dropped every block holding a
            // `Code` from this module before calling (see `Executor::flush`).
            unsafe { m.free_memory() };
        }
    }

    /// The ISA's pointer type, for building signatures before the first compile.
    pub fn pointer_type(&mut self) -> Result<cranelift_codegen::ir::Type, String> {
        if self.module.is_none() {
            self.module = Some(new_module()?);
        }
        Ok(self
            .module
            .as_ref()
            .expect("created above")
            .target_config()
            .pointer_type())
    }

    pub fn make_context(&mut self) -> Result<Context, String> {
        if self.module.is_none() {
            self.module = Some(new_module()?);
        }
        Ok(self.module.as_ref().expect("created above").make_context())
    }
}

fn new_module() -> Result<JITModule, String> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
    flags
        .set("use_colocated_libcalls", "false")
        .map_err(|e| e.to_string())?;
    flags.set("is_pic", "false").map_err(|e| e.to_string())?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("host not supported by Cranelift: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    )))
}

/// Records a memory fault as the interpreter's handler would (`exec::op::fault`):
/// the exception at the instruction's EIP.
#[cold]
fn record_fault(cpu: &mut Cpu, eip: u32, f: Fault) {
    let kind = if f.guard {
        ExceptionKind::GuardPage(f.access)
    } else {
        ExceptionKind::AccessViolation(f.access)
    };
    cpu.pending = Some(Exception {
        kind,
        eip,
        addr: f.addr,
    });
}

/// `FAULT` in the high half: the access faulted (exception recorded).
pub const READ_FAULT: u64 = 1 << 32;

/// Guest load of `size` bits at `addr` for the instruction at `eip`; a read-modify-
/// write's load reports a fault as a write (`ops::alu::as_write`) when `as_write`.
///
/// # Safety
/// Called only by compiled code, with the `*mut Cpu` it was called with (the same
/// holds for every helper here).
pub(super) unsafe extern "C" fn load(
    cpu: *mut Cpu,
    addr: u32,
    size: u32,
    eip: u32,
    as_write: u32,
) -> u64 {
    // SAFETY: compiled code passes the `*mut Cpu` it was called with (see
    // `Code::run`); no other reference to it is live during the call.
    let cpu = unsafe { &mut *cpu };
    match cpu.load(size, addr) {
        Ok(v) => v as u64,
        Err(mut f) => {
            if as_write != 0 {
                f.access = Access::Write;
            }
            record_fault(cpu, eip, f);
            READ_FAULT
        }
    }
}

/// Store results.
pub const STORED: u32 = 0;
pub const STORED_CODE: u32 = 1;
pub const STORE_FAULT: u32 = 2;

/// Guest store of `size` bits; 0 data, 1 into a page holding code, 2 faulted.
pub(super) unsafe extern "C" fn store(
    cpu: *mut Cpu,
    addr: u32,
    v: u32,
    size: u32,
    eip: u32,
) -> u32 {
    // SAFETY: as in `load`.
    let cpu = unsafe { &mut *cpu };
    match cpu.store(size, addr, v) {
        Ok(Wrote::Data) => STORED,
        Ok(Wrote::Code) => STORED_CODE,
        Err(f) => {
            record_fault(cpu, eip, f);
            STORE_FAULT
        }
    }
}

/// CF of the lazy flags as they stand (the block's incoming flags).
pub(super) unsafe extern "C" fn carry(cpu: *mut Cpu) -> u32 {
    // SAFETY: as in `load`; read only.
    let cpu = unsafe { &*cpu };
    cpu.flags.cf() as u32
}

/// Condition `cc` (x86 nibble) of the lazy flags as they stand.
pub(super) unsafe extern "C" fn cond(cpu: *mut Cpu, cc: u32) -> u32 {
    // SAFETY: as in `load`; read only.
    let cpu = unsafe { &*cpu };
    cpu.flags.cond(cc as u8) as u32
}
