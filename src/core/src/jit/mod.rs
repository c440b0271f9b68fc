//! The native-code tier `jit` (issue 19, docs/tiers.md): a hot interpreter block
//! whose instructions are all in the tier's vocabulary is compiled through Cranelift
//! to one host function, which the run loop calls instead of the block's threaded
//! ops. First slice: single decoded blocks (the interpreter's own boundaries, so
//! instructions retired and blocks entered are charged exactly as for the plain
//! block), 32-bit integer forms, guest memory through helper calls into the
//! interpreter's access functions (same permission table, same code-write
//! detection), and every exit back to the run loop.
//!
//! Vocabulary: MOV r/m32 (all forms, moffs included), ADD OR ADC SBB AND SUB XOR CMP
//! TEST r/m32 with r32/imm, INC DEC NEG NOT r32, LEA r32, MOVZX/MOVSX r32 from r8,
//! r16, m8, m16, PUSH r32/imm, POP r32, NOP; terminators JMP rel, Jcc rel (32-bit
//! operand size), CALL rel32, RET, RET imm16 and falling off the block's end.
//! Anything else declines the whole block (it keeps running on the threaded ops).
//!
//! Exactness: guest registers live in Cranelift variables for the block and are
//! written back at every exit; the lazy flag record of the block's last flag writer
//! is kept in SSA values and stored into `cpu.flags` (op, sign bit, result,
//! operands, and `aux` where the interpreter sets it) before anything that can
//! observe it: a memory access (it can fault or store into code and end the block
//! there) and every exit. Conditions, and the CF that INC/DEC/ADC/SBB read, are
//! computed from the record's values when the writer is in the block, otherwise by
//! a helper reading `cpu.flags`. A fault leaves registers and flags as they were
//! before the faulting instruction, with the exception recorded exactly as the
//! handler records it; a store into a page holding code retires the instruction and
//! leaves with EIP at the next one, as `Exit::CodeWrite` does.
//!
//! Code-write tracking: compiled code hangs off its interpreter block
//! ([`Block::jit`]), so it is retired exactly when the block cache retires the block
//! (a guest or host write into its bytes, replayed on every thread by
//! `Executor::sync_code`; a tier switch or flush). Code memory is one Cranelift
//! module per executor, freed whole on a flush, and the executor flushes when it
//! exceeds [`CODE_CAP`].

pub mod native;

use crate::cpu::Cpu;
use crate::cpu::flags::{FlagOp, LazyFlags};
use crate::exec::cache::Block;
use crate::exec::op::{Handler, Op};
use crate::mem::GuestMemory;
use crate::ops::alu::{ADC, ADD, AND, CMP, DEC, INC, NEG, NOT, OR, SBB, SUB, TEST, XOR};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlags, SigRef, Signature, Type, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use iced_x86::{Code as IC, Decoder, DecoderOptions, Instruction, Mnemonic, OpKind};
use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries of a block before it is compiled.
pub const HOT: u64 = 16;
/// Host code bytes per executor before it drops all decoded code (and its code).
pub const CODE_CAP: usize = 32 << 20;

/// Exit word of compiled code: kind in the low byte, instruction index above.
pub const EXIT_BLOCK: u32 = 0;
pub const EXIT_FAULT: u32 = 1;
pub const EXIT_CODE_WRITE: u32 = 2;

/// What a block's compiled code is (set at most once per block lifetime).
#[derive(Clone, Copy, Default)]
pub enum Slot {
    #[default]
    Untried,
    Declined,
    Code(native::Code),
}

pub struct Compiled {
    pub code: native::Code,
    pub bytes: usize,
}

/// The tier's counters (relaxed atomics, readable from any thread).
#[derive(Default)]
pub struct JitStats {
    pub compiled: AtomicU64,
    pub code_bytes: AtomicU64,
    pub declined: AtomicU64,
    /// Cranelift refused a function (reported; the block runs plain).
    pub failed: AtomicU64,
    pub entries: AtomicU64,
    pub exit_block: AtomicU64,
    pub exit_fault: AtomicU64,
    pub exit_code_write: AtomicU64,
    /// Instructions retired inside compiled code.
    pub insns: AtomicU64,
    pub compile_ns: AtomicU64,
    pub compile_ns_max: AtomicU64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JitSnapshot {
    pub compiled: u64,
    pub code_bytes: u64,
    pub declined: u64,
    pub failed: u64,
    pub entries: u64,
    pub exit_block: u64,
    pub exit_fault: u64,
    pub exit_code_write: u64,
    pub insns: u64,
    pub compile_ns: u64,
    pub compile_ns_max: u64,
}

impl JitStats {
    pub fn snapshot(&self) -> JitSnapshot {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        JitSnapshot {
            compiled: r(&self.compiled),
            code_bytes: r(&self.code_bytes),
            declined: r(&self.declined),
            failed: r(&self.failed),
            entries: r(&self.entries),
            exit_block: r(&self.exit_block),
            exit_fault: r(&self.exit_fault),
            exit_code_write: r(&self.exit_code_write),
            insns: r(&self.insns),
            compile_ns: r(&self.compile_ns),
            compile_ns_max: r(&self.compile_ns_max),
        }
    }
}

impl JitSnapshot {
    pub fn to_json(&self) -> String {
        format!(
            "{{\"compiled\":{},\"code_bytes\":{},\"declined\":{},\"failed\":{},\"entries\":{},\
             \"exits\":{{\"block\":{},\"fault\":{},\"code_write\":{}}},\"insns\":{},\
             \"compile_ns\":{},\"compile_ns_max\":{}}}",
            self.compiled,
            self.code_bytes,
            self.declined,
            self.failed,
            self.entries,
            self.exit_block,
            self.exit_fault,
            self.exit_code_write,
            self.insns,
            self.compile_ns,
            self.compile_ns_max
        )
    }
}

/// One executor's (guest thread's) compiler state and code memory.
#[derive(Default)]
pub struct JitState {
    mem: native::CodeMemory,
    bytes: usize,
}

impl JitState {
    /// Frees all compiled code; the caller has dropped every block holding some.
    pub fn clear(&mut self) {
        self.mem.clear();
        self.bytes = 0;
    }

    pub fn over_cap(&self) -> bool {
        self.bytes > CODE_CAP
    }

    /// The compiled code of `block`, compiling it at the first ask.
    pub fn code(
        &mut self,
        block: &Block,
        mem: &GuestMemory,
        st: &JitStats,
        ts: &crate::tiers::TierStats,
    ) -> Option<native::Code> {
        match block.jit.get() {
            Slot::Code(c) => Some(c),
            Slot::Declined => None,
            Slot::Untried => {
                let t0 = std::time::Instant::now();
                let plan = match plan(mem, block) {
                    Ok(p) => p,
                    Err(_) => {
                        st.declined.fetch_add(1, Ordering::Relaxed);
                        ts.declines[crate::tiers::Decline::Op as usize]
                            .fetch_add(1, Ordering::Relaxed);
                        block.jit.set(Slot::Declined);
                        return None;
                    }
                };
                match self.build(&plan) {
                    Ok(c) => {
                        let ns = t0.elapsed().as_nanos() as u64;
                        self.bytes += c.bytes;
                        st.compiled.fetch_add(1, Ordering::Relaxed);
                        ts.matches.fetch_add(1, Ordering::Relaxed);
                        st.code_bytes.fetch_add(c.bytes as u64, Ordering::Relaxed);
                        st.compile_ns.fetch_add(ns, Ordering::Relaxed);
                        st.compile_ns_max.fetch_max(ns, Ordering::Relaxed);
                        block.jit.set(Slot::Code(c.code));
                        Some(c.code)
                    }
                    Err(e) => {
                        log_failure(&e);
                        st.failed.fetch_add(1, Ordering::Relaxed);
                        block.jit.set(Slot::Declined);
                        None
                    }
                }
            }
        }
    }

    fn build(&mut self, p: &Plan) -> Result<Compiled, String> {
        let mut ctx = self.mem.make_context()?;
        let ptr = self.mem.pointer_type()?;
        let cc = ctx.func.signature.call_conv;
        ctx.func.signature.params.push(AbiParam::new(ptr));
        ctx.func.signature.returns.push(AbiParam::new(types::I32));
        let mut fbc = FunctionBuilderContext::new();
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let sig = |params: &[Type], ret: Type| {
                let mut s = Signature::new(cc);
                s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
                s.returns.push(AbiParam::new(ret));
                s
            };
            let i32 = types::I32;
            let sigs = Sigs {
                load: b.import_signature(sig(&[ptr, i32, i32, i32, i32], types::I64)),
                store: b.import_signature(sig(&[ptr, i32, i32, i32, i32], i32)),
                carry: b.import_signature(sig(&[ptr], i32)),
                cond: b.import_signature(sig(&[ptr, i32], i32)),
            };
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let cpu = b.block_params(entry)[0];
            let regs: [Variable; 8] = std::array::from_fn(|_| b.declare_var(i32));
            for (r, &v) in regs.iter().enumerate() {
                let x = b
                    .ins()
                    .load(i32, MemFlags::trusted(), cpu, (OFF_REGS + 4 * r) as i32);
                b.def_var(v, x);
            }
            let mut g = Gen {
                b,
                cpu,
                ptr,
                regs,
                dirty: 0,
                rec: None,
                rec_stored: true,
                sigs,
            };
            for (k, s) in p.steps.iter().enumerate() {
                g.step(s, k as u32);
            }
            g.term(p);
            g.b.seal_all_blocks();
            g.b.finalize();
        }
        self.mem.compile(&mut ctx)
    }
}

#[cold]
fn log_failure(e: &str) {
    eprintln!("jit: Cranelift refused a block: {e}");
}

// ---- the plan: a block's instructions in the tier's vocabulary -------------------

#[derive(Clone, Copy, Debug)]
struct Mem {
    disp: u32,
    base: u8,
    index: u8,
    scale: u8,
    seg: u8,
    amask: u32,
}

impl Mem {
    fn of(o: &Op) -> Mem {
        Mem {
            disp: o.disp,
            base: o.base,
            index: o.index,
            scale: o.scale,
            seg: o.seg,
            amask: o.amask,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Opnd {
    R(u8),
    I(u32),
    M(Mem),
}

#[derive(Clone, Copy, Debug)]
enum Ins {
    Mov {
        d: Opnd,
        s: Opnd,
    },
    Alu {
        op: u8,
        d: Opnd,
        s: Opnd,
    },
    Unary {
        op: u8,
        r: u8,
    },
    Lea {
        d: u8,
        m: Mem,
    },
    /// MOVZX/MOVSX r32 from an 8- or 16-bit register (x86 number) or memory.
    Movx {
        d: u8,
        s: Opnd,
        bits: u32,
        sx: bool,
    },
    Push(Opnd),
    Pop(u8),
    Nop,
}

#[derive(Clone, Copy, Debug)]
struct Step {
    ins: Ins,
    eip: u32,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
enum Term {
    Goto(u32),
    Jcc { cc: u8, taken: u32, next: u32 },
    Call { target: u32, ret: u32 },
    Ret { imm: u32 },
}

struct Plan {
    steps: Vec<Step>,
    term: Term,
    /// EIP of the terminating instruction (for its fault), and its index.
    term_eip: u32,
    term_k: u32,
}

fn gpr32(ins: &Instruction, n: u32) -> Option<u8> {
    (ins.op_kind(n) == OpKind::Register && ins.op_register(n).is_gpr32())
        .then(|| ins.op_register(n).number() as u8)
}

fn operand(ins: &Instruction, n: u32, o: &Op) -> Option<Opnd> {
    match ins.op_kind(n) {
        OpKind::Register => gpr32(ins, n).map(Opnd::R),
        OpKind::Memory if ins.memory_size().size() == 4 => Some(Opnd::M(Mem::of(o))),
        _ if crate::ops::is_imm(ins, n) => Some(Opnd::I(ins.immediate(n) as u32)),
        _ => None,
    }
}

/// The block's instructions in the tier's vocabulary, or the first one outside it.
fn plan(mem: &GuestMemory, b: &Block) -> Result<Plan, String> {
    let len = b.end.wrapping_sub(b.start) as usize;
    let mut bytes = vec![0u8; len];
    mem.read_bytes(b.start, &mut bytes)
        .map_err(|_| "fetch".to_string())?;
    let mut dec = Decoder::with_ip(32, &bytes, b.start as u64, DecoderOptions::NONE);
    let n = b.ninsn as usize;
    let falls = b.ops.len() > n;
    let mut steps = Vec::with_capacity(n);
    let mut term = None;
    let mut term_eip = 0;
    for k in 0..n {
        let o = &b.ops[k];
        if !dec.can_decode() {
            return Err("fetch".into());
        }
        let ins = dec.decode();
        if ins.ip32() != o.eip || ins.code() as u16 != o.code || ins.is_invalid() {
            return Err("bytes".into());
        }
        if std::ptr::fn_addr_eq(o.h, crate::ops::far::null_segment as Handler) {
            return Err("null_segment".into());
        }
        let why = || format!("{:?}", ins.code());
        if ins.has_lock_prefix() || ins.has_rep_prefix() || ins.has_repne_prefix() {
            return Err(why());
        }
        if k + 1 == n && !falls {
            term = Some(terminator(&ins, o).ok_or_else(why)?);
            term_eip = o.eip;
            break;
        }
        let i = instruction(&ins, o).ok_or_else(why)?;
        steps.push(Step {
            ins: i,
            eip: o.eip,
            next: o.next,
        });
    }
    let term = match term {
        Some(t) => t,
        None => {
            // Fell off the end (length cap, page edge, stop range): `block_end`.
            let e = b.ops.get(n).ok_or_else(|| "shape".to_string())?;
            Term::Goto(e.imm)
        }
    };
    Ok(Plan {
        term_k: steps.len() as u32,
        steps,
        term,
        term_eip,
    })
}

fn terminator(ins: &Instruction, o: &Op) -> Option<Term> {
    match ins.code() {
        IC::Jmp_rel8_32 | IC::Jmp_rel32_32 => {
            (ins.near_branch32() == o.imm).then_some(Term::Goto(o.imm))
        }
        IC::Call_rel32_32 => (ins.near_branch32() == o.imm).then_some(Term::Call {
            target: o.imm,
            ret: o.next,
        }),
        IC::Retnd => Some(Term::Ret { imm: 0 }),
        IC::Retnd_imm16 => Some(Term::Ret {
            imm: ins.immediate16() as u32,
        }),
        _ if ins.is_jcc_short_or_near() && ins.op0_kind() == OpKind::NearBranch32 => {
            let cc = ins.condition_code() as u8;
            if cc == 0 || ins.near_branch32() != o.imm {
                return None;
            }
            Some(Term::Jcc {
                cc: cc - 1,
                taken: o.imm,
                next: o.next,
            })
        }
        _ => None,
    }
}

fn instruction(ins: &Instruction, o: &Op) -> Option<Ins> {
    let m = ins.mnemonic();
    let alu = match m {
        Mnemonic::Add => Some(ADD),
        Mnemonic::Or => Some(OR),
        Mnemonic::Adc => Some(ADC),
        Mnemonic::Sbb => Some(SBB),
        Mnemonic::And => Some(AND),
        Mnemonic::Sub => Some(SUB),
        Mnemonic::Xor => Some(XOR),
        Mnemonic::Cmp => Some(CMP),
        Mnemonic::Test => Some(TEST),
        _ => None,
    };
    if let Some(op) = alu {
        if ins.op_count() != 2 {
            return None;
        }
        let d = operand(ins, 0, o)?;
        let s = operand(ins, 1, o)?;
        return match (d, s) {
            (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
            _ => Some(Ins::Alu { op, d, s }),
        };
    }
    match m {
        Mnemonic::Mov => {
            if ins.op_count() != 2 {
                return None;
            }
            let d = operand(ins, 0, o)?;
            let s = operand(ins, 1, o)?;
            match (d, s) {
                (Opnd::I(_), _) | (Opnd::M(_), Opnd::M(_)) => None,
                _ => Some(Ins::Mov { d, s }),
            }
        }
        Mnemonic::Inc | Mnemonic::Dec | Mnemonic::Neg | Mnemonic::Not => {
            let r = gpr32(ins, 0)?;
            let op = match m {
                Mnemonic::Inc => INC,
                Mnemonic::Dec => DEC,
                Mnemonic::Neg => NEG,
                _ => NOT,
            };
            Some(Ins::Unary { op, r })
        }
        Mnemonic::Lea => {
            let d = gpr32(ins, 0)?;
            Some(Ins::Lea { d, m: Mem::of(o) })
        }
        Mnemonic::Movzx | Mnemonic::Movsx => {
            let d = gpr32(ins, 0)?;
            let (s, bits) = match ins.op_kind(1) {
                OpKind::Register => {
                    let r = ins.op1_register();
                    let bits = crate::ops::reg_size(r);
                    (Opnd::R(crate::decode::gpr(r)?), bits)
                }
                OpKind::Memory => (Opnd::M(Mem::of(o)), (ins.memory_size().size() * 8) as u32),
                _ => return None,
            };
            if bits != 8 && bits != 16 {
                return None;
            }
            Some(Ins::Movx {
                d,
                s,
                bits,
                sx: m == Mnemonic::Movsx,
            })
        }
        Mnemonic::Push => match ins.code() {
            IC::Push_r32 => Some(Ins::Push(Opnd::R(gpr32(ins, 0)?))),
            IC::Pushd_imm8 | IC::Pushd_imm32 => Some(Ins::Push(Opnd::I(ins.immediate(0) as u32))),
            _ => None,
        },
        Mnemonic::Pop => match ins.code() {
            IC::Pop_r32 => Some(Ins::Pop(gpr32(ins, 0)?)),
            _ => None,
        },
        Mnemonic::Nop => Some(Ins::Nop),
        _ => None,
    }
}

// ---- code generation ---------------------------------------------------------------

const OFF_REGS: usize = offset_of!(Cpu, regs);
const OFF_EIP: usize = offset_of!(Cpu, eip);
const OFF_SEG: usize = offset_of!(Cpu, seg_base);
const OFF_F: usize = offset_of!(Cpu, flags);
const OFF_F_OP: usize = OFF_F + offset_of!(LazyFlags, op);
const OFF_F_SB: usize = OFF_F + offset_of!(LazyFlags, sb);
const OFF_F_RES: usize = OFF_F + offset_of!(LazyFlags, res);
const OFF_F_A: usize = OFF_F + offset_of!(LazyFlags, a);
const OFF_F_B: usize = OFF_F + offset_of!(LazyFlags, b);
const OFF_F_AUX: usize = OFF_F + offset_of!(LazyFlags, aux);

struct Sigs {
    load: SigRef,
    store: SigRef,
    carry: SigRef,
    cond: SigRef,
}

/// The block's last flag writer, as the interpreter records it (32-bit forms only).
#[derive(Clone, Copy)]
struct Rec {
    op: FlagOp,
    res: Value,
    a: Value,
    b: Value,
    /// Set for ADC/SBB (carry-in) and INC/DEC (kept CF); others leave `aux` alone.
    aux: Option<Value>,
}

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    cpu: Value,
    ptr: Type,
    regs: [Variable; 8],
    /// Registers assigned so far (written back at exits).
    dirty: u8,
    rec: Option<Rec>,
    rec_stored: bool,
    sigs: Sigs,
}

impl Gen<'_> {
    fn k32(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i32 as i64)
    }

    fn reg(&mut self, r: u8) -> Value {
        if r >= 8 {
            return self.k32(0);
        }
        self.b.use_var(self.regs[r as usize])
    }

    fn set(&mut self, r: u8, v: Value) {
        self.b.def_var(self.regs[(r & 7) as usize], v);
        self.dirty |= 1 << (r & 7);
    }

    fn seg_base(&mut self, seg: u8) -> Value {
        // Slots 6 and 7 (no segment) are never written and hold 0.
        if seg & 7 >= 6 {
            return self.k32(0);
        }
        self.b.ins().load(
            types::I32,
            MemFlags::trusted(),
            self.cpu,
            (OFF_SEG + 4 * (seg & 7) as usize) as i32,
        )
    }

    /// `Cpu::ea`: `((disp + base + index << scale) & amask) + seg_base[seg]`.
    fn ea(&mut self, m: Mem) -> Value {
        let mut off = self.k32(m.disp);
        if m.base < 8 {
            let b = self.reg(m.base);
            off = self.b.ins().iadd(off, b);
        }
        if m.index < 8 {
            let i = self.reg(m.index);
            let i = self.b.ins().ishl_imm(i, (m.scale & 3) as i64);
            off = self.b.ins().iadd(off, i);
        }
        if m.amask != u32::MAX {
            off = self.b.ins().band_imm(off, m.amask as i32 as i64);
        }
        if m.seg & 7 >= 6 {
            return off;
        }
        let s = self.seg_base(m.seg);
        self.b.ins().iadd(off, s)
    }

    fn store_rec(&mut self, r: Rec) {
        let (c, f) = (self.cpu, MemFlags::trusted());
        let op = self.b.ins().iconst(types::I8, r.op as u8 as i64);
        self.b.ins().store(f, op, c, OFF_F_OP as i32);
        let sb = self.b.ins().iconst(types::I8, 31);
        self.b.ins().store(f, sb, c, OFF_F_SB as i32);
        self.b.ins().store(f, r.res, c, OFF_F_RES as i32);
        self.b.ins().store(f, r.a, c, OFF_F_A as i32);
        self.b.ins().store(f, r.b, c, OFF_F_B as i32);
        if let Some(x) = r.aux {
            self.b.ins().store(f, x, c, OFF_F_AUX as i32);
        }
    }

    /// Makes `cpu.flags` what the interpreter would hold here.
    fn flush_flags(&mut self) {
        if let (Some(r), false) = (self.rec, self.rec_stored) {
            self.store_rec(r);
            self.rec_stored = true;
        }
    }

    fn write_back(&mut self) {
        for r in 0..8u8 {
            if self.dirty & (1 << r) != 0 {
                let v = self.b.use_var(self.regs[r as usize]);
                self.b.ins().store(
                    MemFlags::trusted(),
                    v,
                    self.cpu,
                    (OFF_REGS + 4 * r as usize) as i32,
                );
            }
        }
    }

    fn ret(&mut self, kind: u32, k: u32) {
        let w = self.k32(kind | (k << 8));
        self.b.ins().return_(&[w]);
    }

    /// A fault at instruction `k`: flags were flushed before the access, registers
    /// are as before `k`.
    fn fault_branch(&mut self, failed: Value, k: u32) {
        let fb = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fb);
        self.b.ins().brif(failed, fb, &[], cont, &[]);
        self.b.switch_to_block(fb);
        self.write_back();
        self.ret(EXIT_FAULT, k);
        self.b.switch_to_block(cont);
    }

    fn call(&mut self, sig: SigRef, f: usize, args: &[Value]) -> Value {
        let callee = self.b.ins().iconst(self.ptr, f as i64);
        let mut a = vec![self.cpu];
        a.extend_from_slice(args);
        let c = self.b.ins().call_indirect(sig, callee, &a);
        self.b.inst_results(c)[0]
    }

    fn load(&mut self, addr: Value, bits: u32, eip: u32, as_write: bool, k: u32) -> Value {
        self.flush_flags();
        let (s, e, w) = (self.k32(bits), self.k32(eip), self.k32(as_write as u32));
        let r = self.call(
            self.sigs.load,
            native::load as *const () as usize,
            &[addr, s, e, w],
        );
        let hi = self.b.ins().ushr_imm(r, 32);
        let failed = self.b.ins().icmp_imm(IntCC::NotEqual, hi, 0);
        self.fault_branch(failed, k);
        self.b.ins().ireduce(types::I32, r)
    }

    /// Stores; returns the status, for [`Gen::code_write_check`] once the
    /// instruction's other effects are done.
    fn store(&mut self, addr: Value, v: Value, bits: u32, eip: u32, k: u32) -> Value {
        self.flush_flags();
        let (s, e) = (self.k32(bits), self.k32(eip));
        let st = self.call(
            self.sigs.store,
            native::store as *const () as usize,
            &[addr, v, s, e],
        );
        let failed = self
            .b
            .ins()
            .icmp_imm(IntCC::Equal, st, native::STORE_FAULT as i64);
        self.fault_branch(failed, k);
        st
    }

    /// After instruction `k` stored with status `st`: a store into code leaves here
    /// with EIP at the next instruction.
    fn code_write_check(&mut self, st: Value, k: u32, next: u32) {
        let cw = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(cw);
        let hit = self
            .b
            .ins()
            .icmp_imm(IntCC::Equal, st, native::STORED_CODE as i64);
        self.b.ins().brif(hit, cw, &[], cont, &[]);
        self.b.switch_to_block(cw);
        if let (Some(r), false) = (self.rec, self.rec_stored) {
            self.store_rec(r);
        }
        self.write_back();
        let n = self.k32(next);
        self.b
            .ins()
            .store(MemFlags::trusted(), n, self.cpu, OFF_EIP as i32);
        self.ret(EXIT_CODE_WRITE, k);
        self.b.switch_to_block(cont);
    }

    fn set_rec(&mut self, r: Rec) {
        self.rec = Some(r);
        self.rec_stored = false;
    }

    /// CF (0/1, I32) of the flags as they stand.
    fn carry(&mut self) -> Value {
        let Some(r) = self.rec else {
            return self.call(self.sigs.carry, native::carry as *const () as usize, &[]);
        };
        let b = &mut self.b;
        let c = match r.op {
            FlagOp::Add => b.ins().icmp(IntCC::UnsignedLessThan, r.res, r.a),
            FlagOp::Sub => b.ins().icmp(IntCC::UnsignedLessThan, r.a, r.b),
            FlagOp::Adc | FlagOp::Sbb => {
                let (x, y) = if r.op == FlagOp::Adc {
                    (r.res, r.a)
                } else {
                    (r.a, r.b)
                };
                let lt = b.ins().icmp(IntCC::UnsignedLessThan, x, y);
                let eq = b.ins().icmp(IntCC::Equal, x, y);
                let aux = r.aux.expect("ADC/SBB record their carry-in");
                let cin = b.ins().icmp_imm(IntCC::NotEqual, aux, 0);
                let e = b.ins().band(eq, cin);
                b.ins().bor(lt, e)
            }
            FlagOp::Inc | FlagOp::Dec => return r.aux.expect("INC/DEC record CF"),
            FlagOp::Logic | FlagOp::Eager => return self.k32(0),
        };
        self.b.ins().uextend(types::I32, c)
    }

    /// Condition `cc` (x86 nibble) as an I8 0/1.
    fn cond(&mut self, cc: u8) -> Value {
        let Some(r) = self.rec else {
            let c = self.k32(cc as u32);
            let v = self.call(self.sigs.cond, native::cond as *const () as usize, &[c]);
            return self.b.ins().icmp_imm(IntCC::NotEqual, v, 0);
        };
        let zf = |g: &mut Gen| g.b.ins().icmp_imm(IntCC::Equal, r.res, 0);
        let sf = |g: &mut Gen| g.b.ins().icmp_imm(IntCC::SignedLessThan, r.res, 0);
        let of = |g: &mut Gen| -> Value {
            let b = &mut g.b;
            let x = match r.op {
                FlagOp::Add | FlagOp::Adc | FlagOp::Inc => {
                    let p = b.ins().bxor(r.a, r.res);
                    let q = b.ins().bxor(r.b, r.res);
                    b.ins().band(p, q)
                }
                FlagOp::Sub | FlagOp::Sbb | FlagOp::Dec => {
                    let p = b.ins().bxor(r.a, r.b);
                    let q = b.ins().bxor(r.a, r.res);
                    b.ins().band(p, q)
                }
                FlagOp::Logic | FlagOp::Eager => return b.ins().iconst(types::I8, 0),
            };
            b.ins().icmp_imm(IntCC::SignedLessThan, x, 0)
        };
        let cf = |g: &mut Gen| -> Value {
            let c = g.carry();
            g.b.ins().icmp_imm(IntCC::NotEqual, c, 0)
        };
        let v = match cc >> 1 {
            0 => of(self),
            1 => cf(self),
            2 => zf(self),
            3 => {
                let (c, z) = (cf(self), zf(self));
                self.b.ins().bor(c, z)
            }
            4 => sf(self),
            5 => {
                let lo = self.b.ins().band_imm(r.res, 0xff);
                let n = self.b.ins().popcnt(lo);
                let odd = self.b.ins().band_imm(n, 1);
                self.b.ins().icmp_imm(IntCC::Equal, odd, 0)
            }
            6 => {
                let (s, o) = (sf(self), of(self));
                self.b.ins().bxor(s, o)
            }
            _ => {
                let (z, s, o) = (zf(self), sf(self), of(self));
                let l = self.b.ins().bxor(s, o);
                self.b.ins().bor(z, l)
            }
        };
        if cc & 1 != 0 {
            self.b.ins().bxor_imm(v, 1)
        } else {
            v
        }
    }

    fn value(&mut self, o: Opnd, eip: u32, k: u32) -> Value {
        match o {
            Opnd::R(r) => self.reg(r),
            Opnd::I(i) => self.k32(i),
            Opnd::M(m) => {
                let a = self.ea(m);
                self.load(a, 32, eip, false, k)
            }
        }
    }

    /// `a OP b` with its flag record (ADC/SBB read the carry first).
    fn alu(&mut self, op: u8, a: Value, b: Value) -> (Value, Rec) {
        let ins = |_: &mut Gen, f: FlagOp, r: Value| Rec {
            op: f,
            res: r,
            a,
            b,
            aux: None,
        };
        match op {
            ADD => {
                let r = self.b.ins().iadd(a, b);
                (r, ins(self, FlagOp::Add, r))
            }
            OR => {
                let r = self.b.ins().bor(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
            ADC | SBB => {
                let c = self.carry();
                let r = if op == ADC {
                    let t = self.b.ins().iadd(a, b);
                    self.b.ins().iadd(t, c)
                } else {
                    let t = self.b.ins().isub(a, b);
                    self.b.ins().isub(t, c)
                };
                let f = if op == ADC { FlagOp::Adc } else { FlagOp::Sbb };
                let mut rec = ins(self, f, r);
                rec.aux = Some(c);
                (r, rec)
            }
            AND | TEST => {
                let r = self.b.ins().band(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
            SUB | CMP => {
                let r = self.b.ins().isub(a, b);
                (r, ins(self, FlagOp::Sub, r))
            }
            _ => {
                let r = self.b.ins().bxor(a, b);
                (r, ins(self, FlagOp::Logic, r))
            }
        }
    }

    fn step(&mut self, s: &Step, k: u32) {
        let writes_back = |op: u8| op != CMP && op != TEST;
        match s.ins {
            Ins::Nop => {}
            Ins::Mov { d, s: src } => match d {
                Opnd::R(r) => {
                    let v = self.value(src, s.eip, k);
                    self.set(r, v);
                }
                Opnd::M(m) => {
                    let a = self.ea(m);
                    let v = self.value(src, s.eip, k);
                    let st = self.store(a, v, 32, s.eip, k);
                    self.code_write_check(st, k, s.next);
                }
                Opnd::I(_) => unreachable!("plan rejects an immediate destination"),
            },
            Ins::Alu { op, d, s: src } => match d {
                Opnd::R(r) => {
                    let a = self.reg(r);
                    let b = self.value(src, s.eip, k);
                    let (res, rec) = self.alu(op, a, b);
                    self.set_rec(rec);
                    if writes_back(op) {
                        self.set(r, res);
                    }
                }
                Opnd::M(m) => {
                    let ea = self.ea(m);
                    let b = self.value(src, s.eip, k);
                    let a = self.load(ea, 32, s.eip, writes_back(op), k);
                    let (res, rec) = self.alu(op, a, b);
                    if writes_back(op) {
                        let st = self.store(ea, res, 32, s.eip, k);
                        self.set_rec(rec);
                        self.code_write_check(st, k, s.next);
                    } else {
                        self.set_rec(rec);
                    }
                }
                Opnd::I(_) => unreachable!("plan rejects an immediate destination"),
            },
            Ins::Unary { op, r } => {
                let a = self.reg(r);
                match op {
                    INC | DEC => {
                        let c = self.carry();
                        let one = self.k32(1);
                        let res = if op == INC {
                            self.b.ins().iadd(a, one)
                        } else {
                            self.b.ins().isub(a, one)
                        };
                        let f = if op == INC { FlagOp::Inc } else { FlagOp::Dec };
                        self.set_rec(Rec {
                            op: f,
                            res,
                            a,
                            b: one,
                            aux: Some(c),
                        });
                        self.set(r, res);
                    }
                    NEG => {
                        let z = self.k32(0);
                        let res = self.b.ins().isub(z, a);
                        self.set_rec(Rec {
                            op: FlagOp::Sub,
                            res,
                            a: z,
                            b: a,
                            aux: None,
                        });
                        self.set(r, res);
                    }
                    _ => {
                        let res = self.b.ins().bnot(a);
                        self.set(r, res);
                    }
                }
            }
            Ins::Lea { d, m } => {
                let a = self.ea(m);
                self.set(d, a);
            }
            Ins::Movx {
                d,
                s: src,
                bits,
                sx,
            } => {
                let v = match src {
                    Opnd::R(r) if bits == 8 => {
                        let c = self.reg(r & 3);
                        let c = if r & 4 != 0 {
                            self.b.ins().ushr_imm(c, 8)
                        } else {
                            c
                        };
                        self.b.ins().band_imm(c, 0xff)
                    }
                    Opnd::R(r) => {
                        let c = self.reg(r);
                        self.b.ins().band_imm(c, 0xffff)
                    }
                    Opnd::M(m) => {
                        let a = self.ea(m);
                        self.load(a, bits, s.eip, false, k)
                    }
                    Opnd::I(_) => unreachable!("plan takes registers and memory"),
                };
                let v = if sx {
                    let t = self.b.ins().ishl_imm(v, (32 - bits) as i64);
                    self.b.ins().sshr_imm(t, (32 - bits) as i64)
                } else {
                    v
                };
                self.set(d, v);
            }
            Ins::Push(src) => {
                let v = match src {
                    Opnd::R(r) => self.reg(r),
                    Opnd::I(i) => self.k32(i),
                    Opnd::M(_) => unreachable!("plan takes PUSH r32/imm"),
                };
                let esp = self.reg(crate::cpu::ESP as u8);
                let sp = self.b.ins().iadd_imm(esp, -4);
                let ss = self.seg_base(crate::cpu::seg::SS);
                let a = self.b.ins().iadd(sp, ss);
                let st = self.store(a, v, 32, s.eip, k);
                self.set(crate::cpu::ESP as u8, sp);
                self.code_write_check(st, k, s.next);
            }
            Ins::Pop(r) => {
                let esp = self.reg(crate::cpu::ESP as u8);
                let ss = self.seg_base(crate::cpu::seg::SS);
                let a = self.b.ins().iadd(esp, ss);
                let v = self.load(a, 32, s.eip, false, k);
                let sp = self.b.ins().iadd_imm(esp, 4);
                self.set(crate::cpu::ESP as u8, sp);
                self.set(r, v);
            }
        }
    }

    fn leave(&mut self, eip: Value) {
        self.flush_flags();
        self.write_back();
        self.b
            .ins()
            .store(MemFlags::trusted(), eip, self.cpu, OFF_EIP as i32);
        self.ret(EXIT_BLOCK, 0);
    }

    fn term(&mut self, p: &Plan) {
        let (eip, k) = (p.term_eip, p.term_k);
        match p.term {
            Term::Goto(t) => {
                let t = self.k32(t);
                self.leave(t);
            }
            Term::Jcc { cc, taken, next } => {
                let c = self.cond(cc);
                let (t, n) = (self.k32(taken), self.k32(next));
                let e = self.b.ins().select(c, t, n);
                self.leave(e);
            }
            Term::Call { target, ret } => {
                // As `call_to`: the return address is pushed (a store into code
                // still transfers; the run loop replays the write) or the CALL faults.
                let esp = self.reg(crate::cpu::ESP as u8);
                let sp = self.b.ins().iadd_imm(esp, -4);
                let ss = self.seg_base(crate::cpu::seg::SS);
                let a = self.b.ins().iadd(sp, ss);
                let r = self.k32(ret);
                self.store(a, r, 32, eip, k);
                self.set(crate::cpu::ESP as u8, sp);
                let t = self.k32(target);
                self.leave(t);
            }
            Term::Ret { imm } => {
                let esp = self.reg(crate::cpu::ESP as u8);
                let ss = self.seg_base(crate::cpu::seg::SS);
                let a = self.b.ins().iadd(esp, ss);
                let t = self.load(a, 32, eip, false, k);
                let sp = self.b.ins().iadd_imm(esp, 4 + imm as i64);
                self.set(crate::cpu::ESP as u8, sp);
                self.leave(t);
            }
        }
    }
}
