//! The background compiler of one executor (one guest thread): a host thread that
//! takes a block's plan, builds its function and runs Cranelift on it, and sends the
//! machine code back. The guest thread keeps running the block on the interpreter
//! meanwhile, and maps finished code at its next block boundaries
//! (`JitState::poll`), so compile time stays out of the guest thread (and out of
//! frame pacing). Nothing here touches guest state: a job is plain data (the plan,
//! the block's start and length, the addresses its code embeds), and its result is
//! bytes.

use super::{Member, Unit, fill, looped};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::OwnedTargetIsa;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;

pub(super) struct Job {
    /// The id the block's slot holds while it waits (`Slot::Pending`).
    pub id: u64,
    /// The region's blocks, its head first.
    pub ms: Vec<Member>,
    /// The byte ranges of the region's blocks, head first, handed back with the
    /// code (`JitState::set_entries`).
    pub spans: Vec<(u32, u32)>,
    pub unit: Unit,
}

pub(super) struct Done {
    pub id: u64,
    pub start: u32,
    /// Machine code and its alignment, or why Cranelift refused.
    pub code: Result<(Vec<u8>, u64), String>,
    /// Compile time (building the function and Cranelift), on the worker.
    pub ns: u64,
    /// Blocks in the region.
    pub members: usize,
    pub spans: Vec<(u32, u32)>,
}

pub(super) struct Worker {
    tx: Option<Sender<Box<Job>>>,
    pub rx: Receiver<Done>,
    /// Results sent so far: the run loop asks the channel only when this moved
    /// ([`Worker::ready`]), one relaxed load instead of a channel poll at every
    /// block boundary while a job is out.
    sent: Arc<AtomicU64>,
    /// `sent` when the run loop last emptied the channel.
    seen: u64,
    /// Jobs queued so far.
    queued: u64,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    pub fn spawn() -> Result<Worker, String> {
        let mut isas = Isas::new()?;
        let (tx, jobs) = channel::<Box<Job>>();
        let (done, rx) = channel::<Done>();
        let sent = Arc::new(AtomicU64::new(0));
        let count = sent.clone();
        let handle = std::thread::Builder::new()
            .name("winterp-jit".into())
            .spawn(move || {
                // Ends when the executor drops its sender.
                while let Ok(job) = jobs.recv() {
                    let job = *job;
                    let t0 = Instant::now();
                    let code = compile(&mut isas, &job.ms, &job.unit);
                    let ns = t0.elapsed().as_nanos() as u64;
                    let d = Done {
                        id: job.id,
                        start: job.unit.start,
                        code,
                        ns,
                        members: job.ms.len(),
                        spans: job.spans,
                    };
                    if done.send(d).is_err() {
                        break;
                    }
                    count.fetch_add(1, Ordering::Release);
                }
            })
            .map_err(|e| format!("jit worker thread: {e}"))?;
        Ok(Worker {
            tx: Some(tx),
            rx,
            sent,
            seen: 0,
            queued: 0,
            handle: Some(handle),
        })
    }

    /// Whether results arrived since the last call that said so.
    pub fn ready(&mut self) -> bool {
        let n = self.sent.load(Ordering::Acquire);
        if n == self.seen {
            return false;
        }
        self.seen = n;
        true
    }

    /// Queues a job; gives it back if the worker is gone.
    pub fn send(&mut self, job: Box<Job>) -> Result<(), Box<Job>> {
        match &self.tx {
            Some(t) => {
                t.send(job).map_err(|e| e.0)?;
                self.queued += 1;
                Ok(())
            }
            None => Err(job),
        }
    }

    /// Jobs sent and not yet compiled.
    pub fn in_flight(&self) -> u64 {
        self.queued - self.sent.load(Ordering::Acquire)
    }

    /// Whether every job queued has been compiled (its result may still wait in
    /// the channel for the run loop).
    pub fn idle(&self) -> bool {
        self.sent.load(Ordering::Acquire) == self.queued
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
    /// Cranelift's contexts, cleared and reused: their allocations stay warm
    /// across compiles.
    ctx: cranelift_codegen::Context,
    fbc: cranelift_frontend::FunctionBuilderContext,
}

impl Isas {
    pub fn new() -> Result<Isas, String> {
        Ok(Isas {
            looped: super::native::new_isa("speed")?,
            straight: super::native::new_isa("none")?,
            ctx: cranelift_codegen::Context::new(),
            fbc: cranelift_frontend::FunctionBuilderContext::new(),
        })
    }
}

/// `WINTERP_JIT_DUMP=FILE`: every compiled unit's plan and machine code (as
/// Cranelift prints it) is appended to FILE, for looking at what hot code became.
pub(super) fn dump_file() -> Option<String> {
    static DUMP: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    DUMP.get_or_init(|| std::env::var("WINTERP_JIT_DUMP").ok())
        .clone()
}

pub(super) fn append(path: &str, text: &str) {
    use std::io::Write;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut f) = f {
        let _ = f.write_all(text.as_bytes());
    }
}

/// Builds and compiles one block to machine code and its alignment (on the worker,
/// or on the guest thread for synchronous compiles); the code must be position-
/// independent (the function embeds absolute addresses as constants and calls
/// helpers through registers, so Cranelift emits no relocations; anything else is
/// refused).
pub(super) fn compile(
    isas: &mut Isas,
    ms: &[Member],
    unit: &Unit,
) -> Result<(Vec<u8>, u64), String> {
    let isa = if looped(ms) {
        &isas.looped
    } else {
        &isas.straight
    };
    let ctx = &mut isas.ctx;
    ctx.clear();
    let ptr = isa.pointer_type();
    fill(ctx, &mut isas.fbc, ms, unit, ptr, isa.default_call_conv());
    let dump = dump_file();
    ctx.set_disasm(dump.is_some());
    let c = ctx
        .compile(&**isa, &mut ControlPlane::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    if let Some(path) = dump {
        let text = format!(
            "== unit 0x{:08x} ({} blocks)\n{}\n{}\n",
            unit.start,
            ms.len(),
            ms.iter()
                .map(|m| {
                    let steps: Vec<String> = m
                        .plan
                        .steps
                        .iter()
                        .map(|s| format!("  {:x}: {:?}", s.eip, s.ins))
                        .collect();
                    format!(
                        "block 0x{:08x}:\n{}\n  {:?}",
                        m.start,
                        steps.join("\n"),
                        m.plan.term
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            c.vcode.as_deref().unwrap_or("")
        );
        append(&path, &text);
    }
    if !c.buffer.relocs().is_empty() {
        return Err("relocations in background-compiled code".into());
    }
    let align = (c.buffer.alignment as u64)
        .max(isa.function_alignment().minimum as u64)
        .max(isa.symbol_alignment());
    Ok((c.code_buffer().to_vec(), align))
}
