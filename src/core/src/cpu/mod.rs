//! Architectural state of one guest thread: registers, lazy flags, segment bases,
//! x87/MMX state and a handle on the (shared) guest memory.

pub mod flags;
pub mod fpu;
pub mod segs;

use crate::mem::{Access, Fault, GuestMemory, Wrote};
pub use flags::{FlagOp, LazyFlags};
pub use fpu::Fpu;

pub const EAX: usize = 0;
pub const ECX: usize = 1;
pub const EDX: usize = 2;
pub const EBX: usize = 3;
pub const ESP: usize = 4;
pub const EBP: usize = 5;
pub const ESI: usize = 6;
pub const EDI: usize = 7;
/// Register slot that always reads 0: an absent base or index in an address.
pub const NOREG: u8 = 8;

/// Segment slots of [`Cpu::seg_base`], in x86 encoding order; slot 6 is "no segment".
pub mod seg {
    pub const ES: u8 = 0;
    pub const CS: u8 = 1;
    pub const SS: u8 = 2;
    pub const DS: u8 = 3;
    pub const FS: u8 = 4;
    pub const GS: u8 = 5;
    pub const NONE: u8 = 6;
}

/// Why guest execution cannot continue at an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExceptionKind {
    /// Load, store or fetch that the page table refused.
    AccessViolation(Access),
    /// First touch of a PAGE_GUARD page.
    GuardPage(Access),
    /// #DE: DIV/IDIV by zero or quotient overflow; AAM with 0.
    DivideError,
    /// INT3 (the reported EIP is the INT3 itself).
    Breakpoint,
    /// INTO with OF set.
    Overflow,
    /// INT1 (ICEBP, opcode F1): a debug trap that needs no debug register, which
    /// Windows reports as STATUS_SINGLE_STEP at the instruction after it.
    Int1,
    /// BOUND out of range.
    BoundRange,
    /// #UD: bytes that are not a valid instruction (or UD2).
    InvalidOpcode,
    /// #GP from a privileged instruction at CPL 3 (HLT, CLI, IN/OUT, ...).
    Privileged,
    /// #GP (or #NP, #SS) from a segment load or far transfer naming a selector the
    /// process's descriptors do not allow (`cpu::segs`); Windows reports it as an
    /// access violation at 0xFFFFFFFF.
    GeneralProtection,
    /// INT n other than 3 (Windows reports these as access violations).
    SoftwareInterrupt(u8),
    /// An unmasked x87 exception delivered at the next waiting FPU instruction.
    FloatingPoint,
    /// Single-step trap (TF set).
    SingleStep,
    /// A valid instruction winterp does not implement; names it.
    Unimplemented(iced_x86::Mnemonic),
}

/// A precise guest exception: EIP and registers are as before the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exception {
    pub kind: ExceptionKind,
    pub eip: u32,
    /// The faulting data address for access violations, else 0.
    pub addr: u32,
}

impl std::fmt::Display for Exception {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ExceptionKind::AccessViolation(a) => write!(
                f,
                "access violation ({}) at address {:#010x}, eip {:#010x}",
                match a {
                    Access::Read => "read",
                    Access::Write => "write",
                    Access::Execute => "execute",
                },
                self.addr,
                self.eip
            ),
            ExceptionKind::Unimplemented(m) => {
                write!(
                    f,
                    "unimplemented instruction {m:?} at eip {:#010x}",
                    self.eip
                )
            }
            k => write!(f, "{k:?} at eip {:#010x}", self.eip),
        }
    }
}

/// One guest thread's CPU.
pub struct Cpu {
    /// EAX..EDI in slots 0-7; slots 8-15 always hold 0 so that address arithmetic
    /// can index an absent base/index without a branch.
    pub regs: [u32; 16],
    pub eip: u32,
    pub flags: LazyFlags,
    /// EFLAGS bits other than the six arithmetic flags (DF, TF, AC, ID, IF, bit 1).
    pub eflags_sys: u32,
    /// Segment bases by slot (see [`seg`]); only FS and GS are non-zero on Win32.
    pub seg_base: [u32; 8],
    pub seg_sel: [u16; 6],
    /// The descriptors segment loads and far transfers may name ([`segs`]).
    pub gdt: segs::Gdt,
    /// Data segment registers (bits by [`seg`] slot: ES, DS, FS, GS) holding a null
    /// selector, through which a memory access raises #GP. Decoded code depends on
    /// it (`decode::decode_block`), so the executor drops its blocks when it changes.
    pub null_segs: u8,
    pub fpu: Fpu,
    pub mem: GuestMemory,
    /// Set by a handler that stops its block early (fault or store into code).
    pub exit_at: usize,
    pub pending: Option<Exception>,
    /// Time-stamp counter base; RDTSC returns this plus retired instructions.
    pub tsc_base: u64,
    /// Instructions retired before the current block (maintained by the executor);
    /// a handler at op `i` is preceded by `retired + i` instructions.
    pub retired: u64,
    /// Block-chaining state for the executor's branch handlers.
    pub chain: crate::exec::chain::ChainState,
    /// Where the interpreter resumes when compiled code that accesses guest memory
    /// through the protected view is stopped by a host fault: the block start EIP
    /// of its last spill point in the high half, the exit word
    /// (`jit::EXIT_RESUME` and an instruction index) in the low half (one store).
    pub jit_resume: u64,
    /// While compiled code runs: instructions retired (shifted up by
    /// `jit::COUNT_SHIFT`) and blocks entered (the low bits) since the run loop
    /// entered it, in one word, and the two counts at that entry; the run loop
    /// (and the helper that runs an instruction's handler) turns them back into
    /// `retired` and `chain.blocks` (`jit::counts`).
    pub jit_count: u64,
    pub jit_base: [u64; 2],
    /// The protected view's host base while compiled code runs (set at every
    /// entry): compiled code loads it once per function into a register its
    /// accesses add to, where a 64-bit constant would be materialized at each.
    pub jit_view: u64,
    /// The address of the executor's attention limit (`attention::Attention`: the
    /// budget end the run loop armed, zeroed by every raise), set before every
    /// entry too: compiled code loads it once per function, and each budget check
    /// then loads the limit through it (where a 64-bit constant address was
    /// materialized at each).
    pub jit_limit: u64,
}

/// How a handler chain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// The block ran to its end and set `eip` to where control goes next.
    Block,
    /// Op `exit_at` raised `pending`; it did not retire.
    Fault,
    /// Op `exit_at` stored into a page holding decoded code and retired; `eip` is set.
    CodeWrite,
    /// Only with the `dispatch-loop` feature: continue with the next op.
    #[cfg(feature = "dispatch-loop")]
    Next,
}

impl Cpu {
    pub fn new(mem: GuestMemory) -> Cpu {
        Cpu {
            regs: [0; 16],
            eip: 0,
            flags: LazyFlags::default(),
            eflags_sys: flags::IF | 2,
            seg_base: [0; 8],
            seg_sel: Cpu::selectors(&segs::Gdt::default()),
            gdt: segs::Gdt::default(),
            null_segs: segs::null_mask(&Cpu::selectors(&segs::Gdt::default())),
            fpu: Fpu::default(),
            mem,
            exit_at: 0,
            pending: None,
            tsc_base: 0,
            retired: 0,
            chain: Default::default(),
            jit_resume: 0,
            jit_count: 0,
            jit_base: [0; 2],
            jit_view: 0,
            jit_limit: 0,
        }
    }

    /// Full EFLAGS as PUSHF would see it.
    #[inline]
    pub fn eflags(&self) -> u32 {
        self.flags.bits() | self.eflags_sys
    }

    /// Loads EFLAGS as POPF does at CPL 3: arithmetic and user-changeable bits only.
    #[inline]
    pub fn set_eflags(&mut self, v: u32) {
        self.flags.set_eager(v);
        self.eflags_sys = (self.eflags_sys & !flags::POPF_SYSTEM) | (v & flags::POPF_SYSTEM) | 2;
    }

    #[inline(always)]
    pub fn df(&self) -> bool {
        self.eflags_sys & flags::DF != 0
    }

    // ---- registers by width ------------------------------------------------------

    /// 8-bit register by x86 number (AL CL DL BL AH CH DH BH).
    #[inline(always)]
    pub fn r8(&self, r: u8) -> u32 {
        (self.regs[(r & 3) as usize] >> ((r & 4) << 1)) & 0xff
    }

    #[inline(always)]
    pub fn set_r8(&mut self, r: u8, v: u32) {
        let sh = (r & 4) << 1;
        let slot = &mut self.regs[(r & 3) as usize];
        *slot = (*slot & !(0xff << sh)) | ((v & 0xff) << sh);
    }

    #[inline(always)]
    pub fn r16(&self, r: u8) -> u32 {
        self.regs[(r & 7) as usize] & 0xffff
    }

    #[inline(always)]
    pub fn set_r16(&mut self, r: u8, v: u32) {
        let slot = &mut self.regs[(r & 7) as usize];
        *slot = (*slot & 0xffff_0000) | (v & 0xffff);
    }

    #[inline(always)]
    pub fn r32(&self, r: u8) -> u32 {
        self.regs[(r & 15) as usize]
    }

    #[inline(always)]
    pub fn set_r32(&mut self, r: u8, v: u32) {
        self.regs[(r & 7) as usize] = v;
    }

    /// Register of `size` bits (8, 16, 32), zero-extended.
    #[inline(always)]
    pub fn reg(&self, size: u32, r: u8) -> u32 {
        match size {
            8 => self.r8(r),
            16 => self.r16(r),
            _ => self.r32(r),
        }
    }

    /// Writes a register of `size` bits, preserving the rest of the 32-bit register.
    #[inline(always)]
    pub fn set_reg(&mut self, size: u32, r: u8, v: u32) {
        match size {
            8 => self.set_r8(r, v),
            16 => self.set_r16(r, v),
            _ => self.set_r32(r, v),
        }
    }

    // ---- memory by width ---------------------------------------------------------

    #[inline(always)]
    pub fn load(&self, size: u32, addr: u32) -> Result<u32, Fault> {
        match size {
            8 => self.mem.read_u8(addr).map(u32::from),
            16 => self.mem.read_u16(addr).map(u32::from),
            _ => self.mem.read_u32(addr),
        }
    }

    #[inline(always)]
    pub fn store(&self, size: u32, addr: u32, v: u32) -> Result<Wrote, Fault> {
        match size {
            8 => self.mem.write_u8(addr, v as u8),
            16 => self.mem.write_u16(addr, v as u16),
            _ => self.mem.write_u32(addr, v),
        }
    }

    // ---- stack -------------------------------------------------------------------

    /// Pushes a value of `size` bits; on a fault nothing changes.
    #[inline(always)]
    pub fn push(&mut self, size: u32, v: u32) -> Result<Wrote, Fault> {
        let sp = self.regs[ESP].wrapping_sub(size / 8);
        let w = self.store(size, sp.wrapping_add(self.seg_base[seg::SS as usize]), v)?;
        self.regs[ESP] = sp;
        Ok(w)
    }

    /// Reads the value a POP would return without moving ESP.
    #[inline(always)]
    pub fn peek(&self, size: u32, offset: u32) -> Result<u32, Fault> {
        self.load(
            size,
            self.regs[ESP]
                .wrapping_add(offset)
                .wrapping_add(self.seg_base[seg::SS as usize]),
        )
    }

    #[inline(always)]
    pub fn pop(&mut self, size: u32) -> Result<u32, Fault> {
        let v = self.peek(size, 0)?;
        self.regs[ESP] = self.regs[ESP].wrapping_add(size / 8);
        Ok(v)
    }

    /// Sets the base of FS or GS (the Win32 layer points FS at the TEB, which is
    /// then the TEB descriptor's base: a reload of FS's selector keeps it).
    pub fn set_seg_base(&mut self, slot: u8, base: u32) {
        self.seg_base[slot as usize] = base;
        if slot == seg::FS {
            self.gdt.teb_base = base;
        }
    }

    /// Loads segment register `s` (not CS) with `sel` and the base its descriptor
    /// gives, as MOV/POP/LxS do at CPL 3: None (nothing changed) when `sel` may not
    /// go there (#GP), else whether the set of null data segment registers
    /// ([`Cpu::null_segs`]) changed.
    pub fn load_segment(&mut self, s: u8, sel: u16) -> Option<bool> {
        let how = if s == seg::SS {
            segs::Load::Stack
        } else {
            segs::Load::Data
        };
        let (v, base) = self.gdt.check(sel, how)?;
        self.seg_sel[s as usize] = v;
        self.seg_base[s as usize] = base;
        let null = segs::null_mask(&self.seg_sel);
        let changed = null != self.null_segs;
        self.null_segs = null;
        Some(changed)
    }

    /// The data segment registers as the kernel sets them when it enters user mode
    /// to dispatch an exception: the flat data selector in DS and ES, the TEB's in
    /// FS, the null selector in GS.
    pub fn reset_data_segments(&mut self) {
        let g = self.gdt;
        for (s, sel) in [
            (seg::ES, g.data),
            (seg::DS, g.data),
            (seg::FS, g.teb),
            (seg::GS, 0),
        ] {
            let _ = self.load_segment(s, sel);
        }
    }

    /// The selectors a thread starts with under `gdt`: ES, CS, SS, DS, FS, GS.
    pub fn selectors(gdt: &segs::Gdt) -> [u16; 6] {
        [gdt.data, gdt.code, gdt.data, gdt.data, gdt.teb, 0]
    }

    /// Uses the descriptors `gdt` (another host's selectors, in tests) and loads
    /// the selectors a thread starts with.
    pub fn set_gdt(&mut self, gdt: segs::Gdt) {
        self.gdt = gdt;
        self.seg_sel = Cpu::selectors(&gdt);
        self.null_segs = segs::null_mask(&self.seg_sel);
    }
}
