//! The Visual C++ exception machinery msvcrt.dll exports to MSVC-built programs:
//! `_CxxThrowException` (throw), `__CxxFrameHandler` (the frame handler of every
//! function with C++ try blocks or objects to destroy), `_except_handler3` (the
//! frame handler of `__try`/`__except`/`__finally`), `terminate`, the type_info
//! destructor and `_adjust_fdiv`.
//!
//! A C++ throw is RaiseException(0xE06D7363, EXCEPTION_NONCONTINUABLE, {0x19930520,
//! object, ThrowInfo}) dispatched through the FS:[0] chain like any exception. The
//! data structures (FuncInfo, unwind map, try-block map, handler types, ThrowInfo,
//! catchable types, scope tables) are the compiler's documented x86 layouts:
//!
//! - C++ frame: the registration node `{next, handler, state}` sits at EBP-0x0C,
//!   the function's ESP after its prologue at EBP-0x10; the handler is a stub that
//!   loads the FuncInfo address into EAX and jumps to `__CxxFrameHandler`.
//! - SEH frame: `{next, handler, scopetable, trylevel}` at EBP-0x10, the
//!   EXCEPTION_POINTERS pointer at EBP-0x14 and the saved ESP at EBP-0x18.
//!
//! Catch blocks, destructors, filters and `__finally` blocks are funclets called
//! with EBP set to their function's frame. A catch block returns the address to
//! continue at; the handler then restores the function's ESP and EBP and jumps
//! there, never returning to the dispatcher (which Windows allows: its state lives
//! on the abandoned guest stack).
//!
//! Funclets run as nested guest calls on the host stack. A catch block that does not
//! return (an exception escaping it is caught further out) leaves its host call
//! frame waiting; that frame then serves as the thread's run loop until the thread
//! ends, which is correct but costs host stack per such escape.

#![allow(non_snake_case)]

use super::state::{call_guest, crt};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, cdecl, data, stdcall};
use crate::process::Process;
use crate::seh::{self, Context, ExceptionRecord, disposition, flag};
use std::sync::Arc;
use winterp_core::cpu::{EAX, EBP, ECX, ESP};

/// The exception code of a C++ throw ('msc' | 0xE0000000).
pub const CXX_EXCEPTION: u32 = 0xe06d_7363;
/// The first parameter of a C++ exception: the compiler's EH version.
pub const CXX_MAGIC: u32 = 0x1993_0520;
/// FuncInfo magic numbers this runtime understands (VC6 to VC2005+).
const FUNCINFO_MAGIC_MIN: u32 = 0x1993_0520;
const FUNCINFO_MAGIC_MAX: u32 = 0x1993_0522;
/// FuncInfo.EHFlags: compiled with /EHs, so catch(...) does not catch SEH exceptions.
const FI_EHS_FLAG: u32 = 1;

/// HandlerType.adjectives.
const HT_IS_CONST: u32 = 0x1;
const HT_IS_VOLATILE: u32 = 0x2;
const HT_IS_REFERENCE: u32 = 0x8;
/// ThrowInfo.attributes.
const TI_IS_CONST: u32 = 0x1;
const TI_IS_VOLATILE: u32 = 0x2;
/// CatchableType.properties.
const CT_IS_SIMPLE_TYPE: u32 = 0x1;
const CT_BY_REFERENCE_ONLY: u32 = 0x2;
const CT_HAS_VIRTUAL_BASE: u32 = 0x4;

/// Offset of the decorated name in a TypeDescriptor (after the vftable and spare).
const TYPE_NAME: u32 = 8;
/// Longest type name compared.
const MAX_TYPE_NAME: usize = 4096;

fn rd(cx: &Ctx, a: u32) -> ApiResult<u32> {
    Ok(cx.proc.mem.read_u32(a)?)
}

fn wr(cx: &Ctx, a: u32, v: u32) -> ApiResult<()> {
    cx.proc.mem.write_u32(a, v)?;
    Ok(())
}

/// A funclet call with EBP (and ECX for thiscall) set; `Err` carries the outcome
/// when the thread or process ended inside it.
fn call_funclet(
    cx: &mut Ctx,
    addr: u32,
    ebp: Option<u32>,
    ecx: Option<u32>,
    args: &[u32],
) -> ApiResult<Result<u32, Outcome>> {
    let saved_ebp = cx.thread.cpu.regs[EBP];
    let saved_ecx = cx.thread.cpu.regs[ECX];
    if let Some(v) = ebp {
        cx.thread.cpu.regs[EBP] = v;
    }
    if let Some(v) = ecx {
        cx.thread.cpu.regs[ECX] = v;
    }
    let r = call_guest(cx, addr, args);
    cx.thread.cpu.regs[EBP] = saved_ebp;
    cx.thread.cpu.regs[ECX] = saved_ecx;
    r
}

/// Unwinds every frame above `frame` (RtlUnwind through the guest, so their
/// handlers run as they would on Windows) and comes back here.
fn global_unwind(cx: &mut Ctx, frame: u32, record: u32) -> ApiResult<Result<(), Outcome>> {
    let rtl_unwind = cx.proc.resolve_hle("KERNEL32.dll", "RtlUnwind")?;
    Ok(call_guest(cx, rtl_unwind, &[frame, 0, record, 0])?.map(|_| ()))
}

// ---- throw -----------------------------------------------------------------------------

/// An exception a catch block of this thread is handling (for `throw;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caught {
    pub object: u32,
    pub throw_info: u32,
    /// The registration node of the function whose catch block runs.
    pub frame: u32,
}

fn caught_stack_push(cx: &mut Ctx, c: Caught) {
    let tid = cx.thread.tid;
    let crt = crt(cx.proc);
    let mut st = crt.lock();
    let v = st.cxx_caught.entry(tid).or_default();
    // Catch blocks of frames below this one were unwound: they will not finish.
    v.retain(|e| e.frame >= c.frame);
    v.push(c);
}

fn caught_stack_top(cx: &mut Ctx) -> Option<Caught> {
    let tid = cx.thread.tid;
    crt(cx.proc)
        .lock()
        .cxx_caught
        .get(&tid)
        .and_then(|v| v.last().copied())
}

/// Ends the catch block of `c`: it and everything pushed after it go. Returns
/// whether the object is still held by an enclosing catch block (a rethrow caught
/// inside the block), in which case it must not be destroyed yet.
fn caught_stack_pop(cx: &mut Ctx, c: Caught) -> bool {
    let tid = cx.thread.tid;
    let crt = crt(cx.proc);
    let mut st = crt.lock();
    let v = st.cxx_caught.entry(tid).or_default();
    if let Some(k) = v.iter().rposition(|e| *e == c) {
        v.truncate(k);
    }
    v.iter().any(|e| e.object == c.object && c.object != 0)
}

/// `throw obj;` (or `throw;` with both arguments NULL: rethrows the exception the
/// innermost running catch block handles, or calls terminate() if there is none).
fn _CxxThrowException(cx: &mut Ctx, pExceptionObject: u32, pThrowInfo: Ptr) -> ApiResult<Outcome> {
    let (object, throw_info) = if pExceptionObject == 0 && pThrowInfo.is_null() {
        match caught_stack_top(cx) {
            Some(c) => (c.object, c.throw_info),
            None => return terminate(cx),
        }
    } else {
        (pExceptionObject, pThrowInfo.0)
    };
    let esp = cx.thread.cpu.regs[ESP];
    let ret = rd(cx, esp)?;
    let mut ctx = Context::capture(&cx.thread.cpu);
    ctx.eip = ret;
    // stdcall: the caller's view has the two arguments popped.
    ctx.esp = esp.wrapping_add(12);
    let mut rec = ExceptionRecord::new(CXX_EXCEPTION, ret, &[CXX_MAGIC, object, throw_info]);
    rec.flags = flag::NONCONTINUABLE;
    let r = seh::raise(cx.thread, cx.proc, &rec, &ctx);
    Ok(seh::outcome(cx.proc, r))
}

// ---- __CxxFrameHandler ---------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct FuncInfo {
    max_state: i32,
    unwind_map: u32,
    n_try_blocks: u32,
    try_block_map: u32,
    eh_flags: u32,
}

impl FuncInfo {
    fn read(cx: &Ctx, at: u32) -> ApiResult<FuncInfo> {
        let magic = rd(cx, at)?;
        if !(FUNCINFO_MAGIC_MIN..=FUNCINFO_MAGIC_MAX).contains(&magic) {
            return Err(ApiError::UnimplementedCase(format!(
                "__CxxFrameHandler: FuncInfo at {at:#010x} has magic {magic:#010x}"
            )));
        }
        Ok(FuncInfo {
            max_state: rd(cx, at + 4)? as i32,
            unwind_map: rd(cx, at + 8)?,
            n_try_blocks: rd(cx, at + 12)?,
            try_block_map: rd(cx, at + 16)?,
            eh_flags: if magic >= 0x1993_0522 {
                rd(cx, at + 32)?
            } else {
                0
            },
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct TryBlock {
    try_low: i32,
    try_high: i32,
    n_catches: u32,
    handlers: u32,
}

#[derive(Clone, Copy, Debug)]
struct Handler {
    adjectives: u32,
    type_desc: u32,
    disp_catch_obj: i32,
    address: u32,
}

#[derive(Clone, Copy, Debug)]
struct CatchableType {
    properties: u32,
    type_desc: u32,
    mdisp: i32,
    pdisp: i32,
    vdisp: i32,
    size: u32,
    copy_function: u32,
}

/// The thrown object and its ThrowInfo, from a C++ exception record.
#[derive(Clone, Copy, Debug)]
struct Thrown {
    object: u32,
    throw_info: u32,
}

fn thrown_of(cx: &Ctx, record: u32) -> ApiResult<Option<Thrown>> {
    if rd(cx, record)? != CXX_EXCEPTION || rd(cx, record + 0x10)? != 3 {
        return Ok(None);
    }
    let magic = rd(cx, record + 0x14)?;
    if !(FUNCINFO_MAGIC_MIN..=FUNCINFO_MAGIC_MAX).contains(&magic) {
        return Ok(None);
    }
    let throw_info = rd(cx, record + 0x1c)?;
    if throw_info == 0 {
        return Ok(None);
    }
    Ok(Some(Thrown {
        object: rd(cx, record + 0x18)?,
        throw_info,
    }))
}

fn type_name(cx: &Ctx, desc: u32) -> ApiResult<Vec<u8>> {
    Ok(cx.proc.mem.read_cstr(desc + TYPE_NAME, MAX_TYPE_NAME)?)
}

/// The catchable type of `t` that `h` catches, if any.
fn catchable_for(cx: &Ctx, h: &Handler, t: &Thrown) -> ApiResult<Option<CatchableType>> {
    let ti_attributes = rd(cx, t.throw_info)?;
    let array = rd(cx, t.throw_info + 12)?;
    let n = rd(cx, array)?;
    let want = type_name(cx, h.type_desc)?;
    for k in 0..n.min(1024) {
        let at = rd(cx, array + 4 + 4 * k)?;
        let ct = CatchableType {
            properties: rd(cx, at)?,
            type_desc: rd(cx, at + 4)?,
            mdisp: rd(cx, at + 8)? as i32,
            pdisp: rd(cx, at + 12)? as i32,
            vdisp: rd(cx, at + 16)? as i32,
            size: rd(cx, at + 20)?,
            copy_function: rd(cx, at + 24)?,
        };
        // Type descriptors are unique per module, but a type thrown from one module
        // and caught in another has two: compare the decorated names then.
        if ct.type_desc != h.type_desc && type_name(cx, ct.type_desc)? != want {
            continue;
        }
        if ct.properties & CT_BY_REFERENCE_ONLY != 0 && h.adjectives & HT_IS_REFERENCE == 0 {
            continue;
        }
        if ti_attributes & TI_IS_CONST != 0 && h.adjectives & HT_IS_CONST == 0 {
            continue;
        }
        if ti_attributes & TI_IS_VOLATILE != 0 && h.adjectives & HT_IS_VOLATILE == 0 {
            continue;
        }
        return Ok(Some(ct));
    }
    Ok(None)
}

/// The address of the base-class subobject the catchable type describes
/// (`this` adjusted by the member, and for virtual bases the vbtable, displacement).
fn adjust_this(cx: &Ctx, this: u32, ct: &CatchableType) -> ApiResult<u32> {
    let mut p = this.wrapping_add(ct.mdisp as u32);
    if ct.pdisp >= 0 {
        let vbtable = rd(cx, this.wrapping_add(ct.pdisp as u32))?;
        let off = rd(cx, vbtable.wrapping_add(ct.vdisp as u32))?;
        p = p.wrapping_add(off).wrapping_add(ct.pdisp as u32);
    }
    Ok(p)
}

fn copy_bytes(cx: &Ctx, dst: u32, src: u32, n: u32) -> ApiResult<()> {
    let mut b = vec![0u8; n as usize];
    cx.proc.mem.read_bytes(src, &mut b)?;
    cx.proc.mem.write_bytes(dst, &b)?;
    Ok(())
}

/// Initialises the catch block's parameter from the thrown object.
fn build_catch_object(
    cx: &mut Ctx,
    frame_ebp: u32,
    h: &Handler,
    t: &Thrown,
    ct: &CatchableType,
) -> ApiResult<Result<(), Outcome>> {
    if h.disp_catch_obj == 0 || h.type_desc == 0 {
        return Ok(Ok(()));
    }
    let dst = frame_ebp.wrapping_add(h.disp_catch_obj as u32);
    if h.adjectives & HT_IS_REFERENCE != 0 {
        let p = adjust_this(cx, t.object, ct)?;
        wr(cx, dst, p)?;
    } else if ct.properties & CT_IS_SIMPLE_TYPE != 0 {
        copy_bytes(cx, dst, t.object, ct.size)?;
        // A thrown pointer is converted to the caught base-class pointer.
        if ct.size == 4 {
            let p = rd(cx, dst)?;
            if p != 0 {
                let q = adjust_this(cx, p, ct)?;
                wr(cx, dst, q)?;
            }
        }
    } else if ct.copy_function != 0 {
        let src = adjust_this(cx, t.object, ct)?;
        let args: &[u32] = if ct.properties & CT_HAS_VIRTUAL_BASE != 0 {
            &[src, 1]
        } else {
            &[src]
        };
        if let Err(o) = call_funclet(cx, ct.copy_function, None, Some(dst), args)? {
            return Ok(Err(o));
        }
    } else {
        let src = adjust_this(cx, t.object, ct)?;
        copy_bytes(cx, dst, src, ct.size)?;
    }
    Ok(Ok(()))
}

/// Runs the destructors of the C++ frame at `frame` from its current state down to
/// `target` (exclusive), updating the state before each so that an exception in a
/// destructor does not run it again.
fn cxx_local_unwind(
    cx: &mut Ctx,
    frame: u32,
    fi: &FuncInfo,
    target: i32,
) -> ApiResult<Result<(), Outcome>> {
    let mut state = rd(cx, frame + 8)? as i32;
    let mut steps = 0;
    while state != target && state >= 0 && state < fi.max_state {
        steps += 1;
        if steps > fi.max_state {
            return Err(ApiError::Other(format!(
                "__CxxFrameHandler: the unwind map of the frame at {frame:#010x} loops"
            )));
        }
        let entry = fi.unwind_map + 8 * state as u32;
        let to = rd(cx, entry)? as i32;
        let action = rd(cx, entry + 4)?;
        wr(cx, frame + 8, to as u32)?;
        if action != 0
            && let Err(o) = call_funclet(cx, action, Some(frame + 0xc), None, &[])?
        {
            return Ok(Err(o));
        }
        state = to;
    }
    Ok(Ok(()))
}

/// The frame handler of C++ functions (FuncInfo in EAX, set by the compiler's stub).
fn __CxxFrameHandler(
    cx: &mut Ctx,
    pExcept: u32,
    pRN: u32,
    _pContext: u32,
    _pDC: u32,
) -> ApiResult<Outcome> {
    let fi = FuncInfo::read(cx, cx.thread.cpu.regs[EAX])?;
    let search = Ok(Outcome::Return(disposition::CONTINUE_SEARCH as u64));
    let flags = rd(cx, pExcept + 4)?;
    if flags & flag::UNWIND != 0 {
        if fi.max_state > 0
            && let Err(o) = cxx_local_unwind(cx, pRN, &fi, -1)?
        {
            return Ok(o);
        }
        return search;
    }
    if fi.n_try_blocks == 0 {
        return search;
    }
    let thrown = thrown_of(cx, pExcept)?;
    if thrown.is_none() && fi.eh_flags & FI_EHS_FLAG != 0 {
        return search;
    }
    let state = rd(cx, pRN + 8)? as i32;
    for b in 0..fi.n_try_blocks.min(4096) {
        let at = fi.try_block_map + 20 * b;
        let tb = TryBlock {
            try_low: rd(cx, at)? as i32,
            try_high: rd(cx, at + 4)? as i32,
            n_catches: rd(cx, at + 12)?,
            handlers: rd(cx, at + 16)?,
        };
        if state < tb.try_low || state > tb.try_high {
            continue;
        }
        for k in 0..tb.n_catches.min(4096) {
            let hat = tb.handlers + 16 * k;
            let h = Handler {
                adjectives: rd(cx, hat)?,
                type_desc: rd(cx, hat + 4)?,
                disp_catch_obj: rd(cx, hat + 8)? as i32,
                address: rd(cx, hat + 12)?,
            };
            let catch_all = h.type_desc == 0 || type_name(cx, h.type_desc)?.is_empty();
            let ct = match &thrown {
                Some(t) if !catch_all => match catchable_for(cx, &h, t)? {
                    Some(ct) => Some(ct),
                    None => continue,
                },
                Some(_) => None,
                None if catch_all => None,
                None => continue,
            };
            return catch_it(cx, pExcept, pRN, &fi, &tb, &h, thrown, ct);
        }
    }
    search
}

/// Hands the exception to the catch block `h` of the frame `frame`: builds the
/// catch object, unwinds the frames above and this frame's inner states, runs the
/// block, destroys the exception object and continues where the block said.
#[allow(clippy::too_many_arguments)]
fn catch_it(
    cx: &mut Ctx,
    record: u32,
    frame: u32,
    fi: &FuncInfo,
    tb: &TryBlock,
    h: &Handler,
    thrown: Option<Thrown>,
    ct: Option<CatchableType>,
) -> ApiResult<Outcome> {
    let frame_ebp = frame + 0xc;
    if let (Some(t), Some(ct)) = (&thrown, &ct)
        && let Err(o) = build_catch_object(cx, frame_ebp, h, t, ct)?
    {
        return Ok(o);
    }
    if let Err(o) = global_unwind(cx, frame, record)? {
        return Ok(o);
    }
    if let Err(o) = cxx_local_unwind(cx, frame, fi, tb.try_low)? {
        return Ok(o);
    }
    wr(cx, frame + 8, (tb.try_high + 1) as u32)?;
    let caught = thrown.map(|t| Caught {
        object: t.object,
        throw_info: t.throw_info,
        frame,
    });
    if let Some(c) = caught {
        caught_stack_push(cx, c);
    }
    let continuation = match call_funclet(cx, h.address, Some(frame_ebp), None, &[])? {
        Ok(v) => v,
        Err(o) => return Ok(o),
    };
    if let Some(c) = caught {
        let still_held = caught_stack_pop(cx, c);
        let destructor = rd(cx, c.throw_info + 4)?;
        if !still_held
            && destructor != 0
            && c.object != 0
            && let Err(o) = call_funclet(cx, destructor, None, Some(c.object), &[])?
        {
            return Ok(o);
        }
    }
    let saved_esp = rd(cx, frame.wrapping_sub(4))?;
    let cpu = &mut cx.thread.cpu;
    cpu.regs[ESP] = saved_esp;
    cpu.regs[EBP] = frame_ebp;
    cpu.eip = continuation;
    Ok(Outcome::Resume)
}

// ---- _except_handler3 ----------------------------------------------------------------

/// Runs the `__finally` blocks of the SEH frame at `reg` from its current try level
/// down to `stop` (exclusive), lowering the level before each.
fn eh3_local_unwind(cx: &mut Ctx, reg: u32, stop: i32) -> ApiResult<Result<(), Outcome>> {
    let table = rd(cx, reg + 8)?;
    let mut steps = 0u32;
    loop {
        let level = rd(cx, reg + 12)? as i32;
        if level == -1 || level == stop {
            return Ok(Ok(()));
        }
        steps += 1;
        if level < 0 || steps > 4096 {
            return Err(ApiError::Other(format!(
                "_except_handler3: bad try level {level} in the frame at {reg:#010x}"
            )));
        }
        let entry = table + 12 * level as u32;
        let enclosing = rd(cx, entry)?;
        let filter = rd(cx, entry + 4)?;
        let handler = rd(cx, entry + 8)?;
        wr(cx, reg + 12, enclosing)?;
        if filter == 0
            && let Err(o) = call_funclet(cx, handler, Some(reg + 0x10), None, &[])?
        {
            return Ok(Err(o));
        }
    }
}

/// The frame handler of `__try` blocks compiled by Visual C++ (scope table version 3).
fn _except_handler3(
    cx: &mut Ctx,
    ExceptionRecord: u32,
    EstablisherFrame: u32,
    ContextRecord: u32,
    _DispatcherContext: u32,
) -> ApiResult<Outcome> {
    let reg = EstablisherFrame;
    let search = Ok(Outcome::Return(disposition::CONTINUE_SEARCH as u64));
    let flags = rd(cx, ExceptionRecord + 4)?;
    if flags & flag::UNWIND != 0 {
        if let Err(o) = eh3_local_unwind(cx, reg, -1)? {
            return Ok(o);
        }
        return search;
    }
    // GetExceptionInformation() reads the EXCEPTION_POINTERS through EBP-0x14; they
    // live below this call's stack pointer, which stays lowered (so nested guest
    // calls cannot overwrite them) until the handler returns or jumps.
    let esp = cx.thread.cpu.regs[ESP];
    let pointers = (esp - 16) & !3;
    wr(cx, pointers, ExceptionRecord)?;
    wr(cx, pointers + 4, ContextRecord)?;
    wr(cx, reg.wrapping_sub(4), pointers)?;
    cx.thread.cpu.regs[ESP] = pointers;
    let r = eh3_dispatch(cx, reg, ExceptionRecord);
    if !matches!(r, Ok(Outcome::Resume)) {
        cx.thread.cpu.regs[ESP] = esp;
    }
    r
}

/// The search phase of `_except_handler3`, and the jump into an `__except` block.
fn eh3_dispatch(cx: &mut Ctx, reg: u32, record: u32) -> ApiResult<Outcome> {
    match eh3_search(cx, reg)? {
        Eh3::Search => Ok(Outcome::Return(disposition::CONTINUE_SEARCH as u64)),
        Eh3::Continue => Ok(Outcome::Return(disposition::CONTINUE_EXECUTION as u64)),
        Eh3::Ended(o) => Ok(o),
        Eh3::Execute { level } => {
            if let Err(o) = global_unwind(cx, reg, record)? {
                return Ok(o);
            }
            if let Err(o) = eh3_local_unwind(cx, reg, level)? {
                return Ok(o);
            }
            let table = rd(cx, reg + 8)?;
            let entry = table + 12 * level as u32;
            let enclosing = rd(cx, entry)?;
            let handler = rd(cx, entry + 8)?;
            wr(cx, reg + 12, enclosing)?;
            let saved_esp = rd(cx, reg.wrapping_sub(8))?;
            let cpu = &mut cx.thread.cpu;
            cpu.regs[ESP] = saved_esp;
            cpu.regs[EBP] = reg + 0x10;
            cpu.eip = handler;
            Ok(Outcome::Resume)
        }
    }
}

enum Eh3 {
    Search,
    Continue,
    Execute { level: i32 },
    Ended(Outcome),
}

/// Asks the filters from the current try level outwards.
fn eh3_search(cx: &mut Ctx, reg: u32) -> ApiResult<Eh3> {
    let table = rd(cx, reg + 8)?;
    let mut level = rd(cx, reg + 12)? as i32;
    let mut steps = 0u32;
    while level != -1 {
        steps += 1;
        if level < 0 || steps > 4096 {
            return Err(ApiError::Other(format!(
                "_except_handler3: bad try level {level} in the frame at {reg:#010x}"
            )));
        }
        let entry = table + 12 * level as u32;
        let enclosing = rd(cx, entry)? as i32;
        let filter = rd(cx, entry + 4)?;
        if filter != 0 {
            let v = match call_funclet(cx, filter, Some(reg + 0x10), None, &[])? {
                Ok(v) => v as i32,
                Err(o) => return Ok(Eh3::Ended(o)),
            };
            match v {
                v if v < 0 => return Ok(Eh3::Continue),
                0 => {}
                _ => return Ok(Eh3::Execute { level }),
            }
        }
        level = enclosing;
    }
    Ok(Eh3::Search)
}

// ---- the rest ---------------------------------------------------------------------------

/// `terminate()`: with no handler installed (set_terminate is not provided), abort().
fn terminate(cx: &mut Ctx) -> ApiResult<Outcome> {
    super::process::abort(cx)
}

/// `type_info::~type_info()` (thiscall): frees the undecorated name `name()` cached.
fn type_info_dtor(cx: &mut Ctx) -> ApiResult<()> {
    let this = cx.thread.cpu.regs[ECX];
    let cached = rd(cx, this + 4)?;
    if cached != 0 {
        super::heap::free_raw(cx, cached)?;
        wr(cx, this + 4, 0)?;
    }
    Ok(())
}

/// `_adjust_fdiv`: 0, the emulated Pentium has no FDIV bug to work around.
fn init_adjust_fdiv(_: &Arc<Process>, _: u32) -> ApiResult<()> {
    Ok(())
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("_CxxThrowException", _CxxThrowException),
        cdecl("__CxxFrameHandler", __CxxFrameHandler),
        cdecl("_except_handler3", _except_handler3),
        cdecl("?terminate@@YAXXZ", terminate),
        // thiscall without arguments: nothing to pop, like cdecl.
        cdecl("??1type_info@@UAE@XZ", type_info_dtor),
        data("_adjust_fdiv", 4, init_adjust_fdiv),
    ]
}
