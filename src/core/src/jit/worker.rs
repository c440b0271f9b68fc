//! The background compiler of one executor (one guest thread): a host thread that
//! takes a block's plan, builds its function and runs Cranelift on it, and sends the
//! machine code back. The guest thread keeps running the block on the interpreter
//! meanwhile, and maps finished code at its next block boundaries
//! (`JitState::poll`), so compile time stays out of the guest thread (and out of
//! frame pacing). Nothing here touches guest state: a job is plain data (the plan,
//! the block's start and length, the addresses its code embeds), and its result is
//! bytes.

use super::{Plan, Unit, fill};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::OwnedTargetIsa;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;

pub(super) struct Job {
    /// The id the block's slot holds while it waits (`Slot::Pending`).
    pub id: u64,
    pub plan: Plan,
    pub unit: Unit,
}

pub(super) struct Done {
    pub id: u64,
    pub start: u32,
    /// Machine code and its alignment, or why Cranelift refused.
    pub code: Result<(Vec<u8>, u64), String>,
    /// Compile time (building the function and Cranelift), on the worker.
    pub ns: u64,
}

pub(super) struct Worker {
    tx: Option<Sender<Box<Job>>>,
    pub rx: Receiver<Done>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    pub fn spawn() -> Result<Worker, String> {
        let isas = Isas::new()?;
        let (tx, jobs) = channel::<Box<Job>>();
        let (done, rx) = channel::<Done>();
        let handle = std::thread::Builder::new()
            .name("winterp-jit".into())
            .spawn(move || {
                // Ends when the executor drops its sender.
                while let Ok(job) = jobs.recv() {
                    let t0 = Instant::now();
                    let code = compile(&isas, &job.plan, &job.unit);
                    let ns = t0.elapsed().as_nanos() as u64;
                    let d = Done {
                        id: job.id,
                        start: job.unit.start,
                        code,
                        ns,
                    };
                    if done.send(d).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| format!("jit worker thread: {e}"))?;
        Ok(Worker {
            tx: Some(tx),
            rx,
            handle: Some(handle),
        })
    }

    /// Queues a job; gives it back if the worker is gone.
    pub fn send(&self, job: Box<Job>) -> Result<(), Box<Job>> {
        match &self.tx {
            Some(t) => t.send(job).map_err(|e| e.0),
            None => Err(job),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            // The worker finishes the job in hand (milliseconds at most) and ends.
            let _ = h.join();
        }
    }
}

/// The two ISA objects blocks are compiled with: Cranelift's optimizer (the egraph
/// pass: about half of a block's compile time) pays in self-loops, whose body runs
/// many times in one function, and not in straight blocks, whose IR is built
/// folded already (measured, docs/tiers.md).
pub(super) struct Isas {
    looped: OwnedTargetIsa,
    straight: OwnedTargetIsa,
}

impl Isas {
    pub fn new() -> Result<Isas, String> {
        Ok(Isas {
            looped: super::native::new_isa("speed")?,
            straight: super::native::new_isa("none")?,
        })
    }
}

/// Builds and compiles one block to machine code and its alignment (on the worker,
/// or on the guest thread for synchronous compiles); the code must be position-
/// independent (the function embeds absolute addresses as constants and calls
/// helpers through registers, so Cranelift emits no relocations; anything else is
/// refused).
pub(super) fn compile(isas: &Isas, plan: &Plan, unit: &Unit) -> Result<(Vec<u8>, u64), String> {
    let isa = if plan.term.targets().contains(&unit.start) {
        &isas.looped
    } else {
        &isas.straight
    };
    let mut ctx = cranelift_codegen::Context::new();
    let ptr = isa.pointer_type();
    fill(&mut ctx, plan, unit, ptr, isa.default_call_conv());
    let c = ctx
        .compile(&**isa, &mut ControlPlane::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    if !c.buffer.relocs().is_empty() {
        return Err("relocations in background-compiled code".into());
    }
    let align = (c.buffer.alignment as u64)
        .max(isa.function_alignment().minimum as u64)
        .max(isa.symbol_alignment());
    Ok((c.code_buffer().to_vec(), align))
}
