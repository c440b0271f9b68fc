//! The i386 structures SEH hands to guest code, with the layouts of winnt.h:
//! EXCEPTION_RECORD (0x50 bytes), CONTEXT (0x2CC bytes, FLOATING_SAVE_AREA being
//! the 108-byte FSAVE image followed by Cr0NpxState), and the status codes, flags and
//! dispositions the handlers exchange with the dispatcher.

use winterp_core::Cpu;
use winterp_core::cpu::{EAX, EBP, EBX, ECX, EDI, EDX, ESI, ESP, flags, seg};
use winterp_core::mem::{Fault, GuestMemory};

/// The `Next` value of the last registration record on the FS:[0] chain.
pub const CHAIN_END: u32 = 0xffff_ffff;

/// NTSTATUS exception codes (ntstatus.h).
pub mod code {
    pub const GUARD_PAGE_VIOLATION: u32 = 0x8000_0001;
    pub const DATATYPE_MISALIGNMENT: u32 = 0x8000_0002;
    pub const BREAKPOINT: u32 = 0x8000_0003;
    pub const SINGLE_STEP: u32 = 0x8000_0004;
    pub const ACCESS_VIOLATION: u32 = 0xc000_0005;
    pub const IN_PAGE_ERROR: u32 = 0xc000_0006;
    pub const INVALID_HANDLE: u32 = 0xc000_0008;
    pub const NO_MEMORY: u32 = 0xc000_0017;
    pub const ILLEGAL_INSTRUCTION: u32 = 0xc000_001d;
    pub const INVALID_LOCK_SEQUENCE: u32 = 0xc000_001e;
    pub const NONCONTINUABLE_EXCEPTION: u32 = 0xc000_0025;
    pub const INVALID_DISPOSITION: u32 = 0xc000_0026;
    pub const UNWIND: u32 = 0xc000_0027;
    pub const BAD_STACK: u32 = 0xc000_0028;
    pub const INVALID_UNWIND_TARGET: u32 = 0xc000_0029;
    pub const ARRAY_BOUNDS_EXCEEDED: u32 = 0xc000_008c;
    pub const FLOAT_DENORMAL_OPERAND: u32 = 0xc000_008d;
    pub const FLOAT_DIVIDE_BY_ZERO: u32 = 0xc000_008e;
    pub const FLOAT_INEXACT_RESULT: u32 = 0xc000_008f;
    pub const FLOAT_INVALID_OPERATION: u32 = 0xc000_0090;
    pub const FLOAT_OVERFLOW: u32 = 0xc000_0091;
    pub const FLOAT_STACK_CHECK: u32 = 0xc000_0092;
    pub const FLOAT_UNDERFLOW: u32 = 0xc000_0093;
    pub const INTEGER_DIVIDE_BY_ZERO: u32 = 0xc000_0094;
    pub const INTEGER_OVERFLOW: u32 = 0xc000_0095;
    pub const PRIVILEGED_INSTRUCTION: u32 = 0xc000_0096;
    pub const STACK_OVERFLOW: u32 = 0xc000_00fd;
    pub const CONTROL_C_EXIT: u32 = 0xc000_013a;
    /// What Visual C++'s `throw` raises.
    pub const MSVC_CPP: u32 = 0xe06d_7363;
}

/// The winbase.h name of an exception code, for reports.
pub fn code_name(c: u32) -> Option<&'static str> {
    Some(match c {
        code::GUARD_PAGE_VIOLATION => "EXCEPTION_GUARD_PAGE",
        code::DATATYPE_MISALIGNMENT => "EXCEPTION_DATATYPE_MISALIGNMENT",
        code::BREAKPOINT => "EXCEPTION_BREAKPOINT",
        code::SINGLE_STEP => "EXCEPTION_SINGLE_STEP",
        code::ACCESS_VIOLATION => "EXCEPTION_ACCESS_VIOLATION",
        code::IN_PAGE_ERROR => "EXCEPTION_IN_PAGE_ERROR",
        code::INVALID_HANDLE => "EXCEPTION_INVALID_HANDLE",
        code::NO_MEMORY => "STATUS_NO_MEMORY",
        code::ILLEGAL_INSTRUCTION => "EXCEPTION_ILLEGAL_INSTRUCTION",
        code::INVALID_LOCK_SEQUENCE => "STATUS_INVALID_LOCK_SEQUENCE",
        code::NONCONTINUABLE_EXCEPTION => "EXCEPTION_NONCONTINUABLE_EXCEPTION",
        code::INVALID_DISPOSITION => "EXCEPTION_INVALID_DISPOSITION",
        code::UNWIND => "STATUS_UNWIND",
        code::BAD_STACK => "STATUS_BAD_STACK",
        code::INVALID_UNWIND_TARGET => "STATUS_INVALID_UNWIND_TARGET",
        code::ARRAY_BOUNDS_EXCEEDED => "EXCEPTION_ARRAY_BOUNDS_EXCEEDED",
        code::FLOAT_DENORMAL_OPERAND => "EXCEPTION_FLT_DENORMAL_OPERAND",
        code::FLOAT_DIVIDE_BY_ZERO => "EXCEPTION_FLT_DIVIDE_BY_ZERO",
        code::FLOAT_INEXACT_RESULT => "EXCEPTION_FLT_INEXACT_RESULT",
        code::FLOAT_INVALID_OPERATION => "EXCEPTION_FLT_INVALID_OPERATION",
        code::FLOAT_OVERFLOW => "EXCEPTION_FLT_OVERFLOW",
        code::FLOAT_STACK_CHECK => "EXCEPTION_FLT_STACK_CHECK",
        code::FLOAT_UNDERFLOW => "EXCEPTION_FLT_UNDERFLOW",
        code::INTEGER_DIVIDE_BY_ZERO => "EXCEPTION_INT_DIVIDE_BY_ZERO",
        code::INTEGER_OVERFLOW => "EXCEPTION_INT_OVERFLOW",
        code::PRIVILEGED_INSTRUCTION => "EXCEPTION_PRIV_INSTRUCTION",
        code::STACK_OVERFLOW => "EXCEPTION_STACK_OVERFLOW",
        code::CONTROL_C_EXIT => "STATUS_CONTROL_C_EXIT",
        code::MSVC_CPP => "Visual C++ exception",
        _ => return None,
    })
}

/// EXCEPTION_RECORD.ExceptionFlags bits.
pub mod flag {
    pub const NONCONTINUABLE: u32 = 0x01;
    pub const UNWINDING: u32 = 0x02;
    pub const EXIT_UNWIND: u32 = 0x04;
    pub const STACK_INVALID: u32 = 0x08;
    pub const NESTED_CALL: u32 = 0x10;
    /// Either kind of unwind.
    pub const UNWIND: u32 = UNWINDING | EXIT_UNWIND;
}

/// EXCEPTION_DISPOSITION, what a frame-based handler returns.
pub mod disposition {
    pub const CONTINUE_EXECUTION: u32 = 0;
    pub const CONTINUE_SEARCH: u32 = 1;
    pub const NESTED_EXCEPTION: u32 = 2;
    pub const COLLIDED_UNWIND: u32 = 3;
}

/// What an exception filter (and UnhandledExceptionFilter) returns.
pub mod filter {
    pub const EXECUTE_HANDLER: i32 = 1;
    pub const CONTINUE_SEARCH: i32 = 0;
    pub const CONTINUE_EXECUTION: i32 = -1;
}

/// ExceptionInformation[0] of an access violation or guard-page exception.
pub mod access {
    pub const READ: u32 = 0;
    pub const WRITE: u32 = 1;
    /// A data-execution-prevention fault.
    pub const EXECUTE: u32 = 8;
}

/// EXCEPTION_MAXIMUM_PARAMETERS.
pub const MAX_PARAMS: usize = 15;

/// An EXCEPTION_RECORD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExceptionRecord {
    pub code: u32,
    pub flags: u32,
    /// Guest address of the record of the exception this one was raised during, or 0.
    pub record: u32,
    pub address: u32,
    /// ExceptionInformation[..NumberParameters] (at most [`MAX_PARAMS`]).
    pub params: Vec<u32>,
}

/// Field offsets of EXCEPTION_RECORD.
pub mod rec {
    pub const CODE: u32 = 0x00;
    pub const FLAGS: u32 = 0x04;
    pub const RECORD: u32 = 0x08;
    pub const ADDRESS: u32 = 0x0c;
    pub const NUMBER_PARAMETERS: u32 = 0x10;
    pub const INFORMATION: u32 = 0x14;
}

impl ExceptionRecord {
    pub const SIZE: u32 = 0x50;

    pub fn new(code: u32, address: u32, params: &[u32]) -> ExceptionRecord {
        ExceptionRecord {
            code,
            flags: 0,
            record: 0,
            address,
            params: params[..params.len().min(MAX_PARAMS)].to_vec(),
        }
    }

    pub fn to_bytes(&self) -> [u8; Self::SIZE as usize] {
        let mut b = [0u8; Self::SIZE as usize];
        let n = self.params.len().min(MAX_PARAMS);
        for (k, v) in [self.code, self.flags, self.record, self.address, n as u32]
            .into_iter()
            .chain(self.params[..n].iter().copied())
            .enumerate()
        {
            b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// Reads a record; a NumberParameters above the maximum is clamped, as the
    /// dispatcher only ever copies that many.
    pub fn read(mem: &GuestMemory, addr: u32) -> Result<ExceptionRecord, Fault> {
        let mut b = [0u8; Self::SIZE as usize];
        mem.read_bytes(addr, &mut b)?;
        let w = |k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().expect("4 bytes"));
        let n = (w(4) as usize).min(MAX_PARAMS);
        Ok(ExceptionRecord {
            code: w(0),
            flags: w(1),
            record: w(2),
            address: w(3),
            params: (0..n).map(|k| w(5 + k)).collect(),
        })
    }

    pub fn write(&self, mem: &GuestMemory, addr: u32) -> Result<(), Fault> {
        mem.write_bytes(addr, &self.to_bytes())
    }
}

/// CONTEXT.ContextFlags values for i386.
pub mod ctx_flags {
    pub const I386: u32 = 0x0001_0000;
    pub const CONTROL: u32 = I386 | 0x01;
    pub const INTEGER: u32 = I386 | 0x02;
    pub const SEGMENTS: u32 = I386 | 0x04;
    pub const FLOATING_POINT: u32 = I386 | 0x08;
    pub const DEBUG_REGISTERS: u32 = I386 | 0x10;
    pub const FULL: u32 = CONTROL | INTEGER | SEGMENTS;
}

/// Field offsets of the i386 CONTEXT.
pub mod ctx {
    pub const CONTEXT_FLAGS: u32 = 0x00;
    pub const DR0: u32 = 0x04;
    pub const FLOAT_SAVE: u32 = 0x1c;
    /// FLOATING_SAVE_AREA.StatusWord.
    pub const FLOAT_STATUS_WORD: u32 = FLOAT_SAVE + 4;
    pub const CR0_NPX_STATE: u32 = FLOAT_SAVE + 108;
    pub const SEG_GS: u32 = 0x8c;
    pub const SEG_FS: u32 = 0x90;
    pub const SEG_ES: u32 = 0x94;
    pub const SEG_DS: u32 = 0x98;
    pub const EDI: u32 = 0x9c;
    pub const ESI: u32 = 0xa0;
    pub const EBX: u32 = 0xa4;
    pub const EDX: u32 = 0xa8;
    pub const ECX: u32 = 0xac;
    pub const EAX: u32 = 0xb0;
    pub const EBP: u32 = 0xb4;
    pub const EIP: u32 = 0xb8;
    pub const SEG_CS: u32 = 0xbc;
    pub const EFLAGS: u32 = 0xc0;
    pub const ESP: u32 = 0xc4;
    pub const SEG_SS: u32 = 0xc8;
    pub const EXTENDED_REGISTERS: u32 = 0xcc;
}

/// An i386 CONTEXT. ExtendedRegisters (the FXSAVE area) is not kept: winterp has
/// no SSE state, and the flags never claim CONTEXT_EXTENDED_REGISTERS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    pub flags: u32,
    /// Dr0-Dr3, Dr6, Dr7.
    pub dr: [u32; 6],
    /// FLOATING_SAVE_AREA without Cr0NpxState: the 32-bit FSAVE image.
    pub float_save: [u8; 108],
    pub cr0_npx_state: u32,
    pub seg_gs: u32,
    pub seg_fs: u32,
    pub seg_es: u32,
    pub seg_ds: u32,
    pub edi: u32,
    pub esi: u32,
    pub ebx: u32,
    pub edx: u32,
    pub ecx: u32,
    pub eax: u32,
    pub ebp: u32,
    pub eip: u32,
    pub seg_cs: u32,
    pub eflags: u32,
    pub esp: u32,
    pub seg_ss: u32,
}

/// EFLAGS bits NtContinue takes from a user CONTEXT: the arithmetic flags, TF, DF,
/// AC and ID (as POPF at CPL 3, without NT). IF and bit 1 stay set.
const USER_EFLAGS: u32 = flags::ARITH | flags::TF | flags::DF | flags::AC | flags::ID;

impl Context {
    pub const SIZE: u32 = 0x2cc;

    /// The thread's state as the dispatcher reports it: control, integer, segment
    /// and x87 registers.
    pub fn capture(cpu: &Cpu) -> Context {
        let sel = |s: u8| cpu.seg_sel[s as usize] as u32;
        Context {
            flags: ctx_flags::FULL | ctx_flags::FLOATING_POINT,
            dr: [0; 6],
            float_save: cpu.fpu.fsave_image(),
            cr0_npx_state: 0,
            seg_gs: sel(seg::GS),
            seg_fs: sel(seg::FS),
            seg_es: sel(seg::ES),
            seg_ds: sel(seg::DS),
            edi: cpu.regs[EDI],
            esi: cpu.regs[ESI],
            ebx: cpu.regs[EBX],
            edx: cpu.regs[EDX],
            ecx: cpu.regs[ECX],
            eax: cpu.regs[EAX],
            ebp: cpu.regs[EBP],
            eip: cpu.eip,
            seg_cs: sel(seg::CS),
            eflags: cpu.eflags(),
            esp: cpu.regs[ESP],
            seg_ss: sel(seg::SS),
        }
    }

    /// Loads the parts of the context its flags name into the CPU, as NtContinue
    /// does for user mode: EFLAGS are sanitised, and the segment registers and CS/SS
    /// are not taken (the flat Win32 selectors cannot change).
    pub fn apply(&self, cpu: &mut Cpu) {
        let has = |part: u32| self.flags & part & !ctx_flags::I386 != 0;
        if has(ctx_flags::INTEGER) {
            cpu.regs[EDI] = self.edi;
            cpu.regs[ESI] = self.esi;
            cpu.regs[EBX] = self.ebx;
            cpu.regs[EDX] = self.edx;
            cpu.regs[ECX] = self.ecx;
            cpu.regs[EAX] = self.eax;
        }
        if has(ctx_flags::CONTROL) {
            cpu.regs[EBP] = self.ebp;
            cpu.regs[ESP] = self.esp;
            cpu.eip = self.eip;
            let keep = cpu.eflags() & !USER_EFLAGS & !(1 << 14);
            cpu.set_eflags(keep | (self.eflags & USER_EFLAGS));
        }
        if has(ctx_flags::FLOATING_POINT) {
            cpu.fpu.frstor_image(&self.float_save);
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; Self::SIZE as usize];
        let mut put = |off: u32, v: u32| {
            b[off as usize..off as usize + 4].copy_from_slice(&v.to_le_bytes());
        };
        put(ctx::CONTEXT_FLAGS, self.flags);
        for (k, &d) in self.dr.iter().enumerate() {
            put(ctx::DR0 + 4 * k as u32, d);
        }
        put(ctx::CR0_NPX_STATE, self.cr0_npx_state);
        for (off, v) in self.gprs() {
            put(off, v);
        }
        let fs = ctx::FLOAT_SAVE as usize;
        b[fs..fs + 108].copy_from_slice(&self.float_save);
        b
    }

    pub fn from_bytes(b: &[u8]) -> Context {
        let w = |off: u32| {
            let o = off as usize;
            u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
        };
        let fs = ctx::FLOAT_SAVE as usize;
        Context {
            flags: w(ctx::CONTEXT_FLAGS),
            dr: std::array::from_fn(|k| w(ctx::DR0 + 4 * k as u32)),
            float_save: b[fs..fs + 108].try_into().expect("108 bytes"),
            cr0_npx_state: w(ctx::CR0_NPX_STATE),
            seg_gs: w(ctx::SEG_GS),
            seg_fs: w(ctx::SEG_FS),
            seg_es: w(ctx::SEG_ES),
            seg_ds: w(ctx::SEG_DS),
            edi: w(ctx::EDI),
            esi: w(ctx::ESI),
            ebx: w(ctx::EBX),
            edx: w(ctx::EDX),
            ecx: w(ctx::ECX),
            eax: w(ctx::EAX),
            ebp: w(ctx::EBP),
            eip: w(ctx::EIP),
            seg_cs: w(ctx::SEG_CS),
            eflags: w(ctx::EFLAGS),
            esp: w(ctx::ESP),
            seg_ss: w(ctx::SEG_SS),
        }
    }

    pub fn read(mem: &GuestMemory, addr: u32) -> Result<Context, Fault> {
        let mut b = vec![0u8; Self::SIZE as usize];
        mem.read_bytes(addr, &mut b)?;
        Ok(Context::from_bytes(&b))
    }

    pub fn write(&self, mem: &GuestMemory, addr: u32) -> Result<(), Fault> {
        mem.write_bytes(addr, &self.to_bytes())
    }

    /// The dword fields after FloatSave with their offsets.
    fn gprs(&self) -> [(u32, u32); 16] {
        [
            (ctx::SEG_GS, self.seg_gs),
            (ctx::SEG_FS, self.seg_fs),
            (ctx::SEG_ES, self.seg_es),
            (ctx::SEG_DS, self.seg_ds),
            (ctx::EDI, self.edi),
            (ctx::ESI, self.esi),
            (ctx::EBX, self.ebx),
            (ctx::EDX, self.edx),
            (ctx::ECX, self.ecx),
            (ctx::EAX, self.eax),
            (ctx::EBP, self.ebp),
            (ctx::EIP, self.eip),
            (ctx::SEG_CS, self.seg_cs),
            (ctx::EFLAGS, self.eflags),
            (ctx::ESP, self.esp),
            (ctx::SEG_SS, self.seg_ss),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_layout_matches_winnt() {
        let mut r = ExceptionRecord::new(code::ACCESS_VIOLATION, 0x401000, &[1, 0x1234]);
        r.flags = flag::NONCONTINUABLE;
        r.record = 0x0012_0000;
        let b = r.to_bytes();
        let w = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(w(0x00), 0xc000_0005);
        assert_eq!(w(0x04), 1);
        assert_eq!(w(0x08), 0x0012_0000);
        assert_eq!(w(0x0c), 0x401000);
        assert_eq!(w(0x10), 2);
        assert_eq!(w(0x14), 1);
        assert_eq!(w(0x18), 0x1234);
        assert_eq!(w(0x1c), 0);
    }

    #[test]
    fn context_layout_matches_winnt() {
        // Offsets from winnt.h's i386 CONTEXT: FloatSave at 0x1C (112 bytes), SegGs
        // at 0x8C, Edi at 0x9C, Eip at 0xB8, EFlags at 0xC0, Esp at 0xC4, total 0x2CC.
        assert_eq!(ctx::FLOAT_SAVE + 112, ctx::SEG_GS);
        assert_eq!(ctx::EXTENDED_REGISTERS + 512, Context::SIZE);
        let mem = GuestMemory::new().unwrap();
        let c = Context::capture(&Cpu::new(mem));
        let mut c2 = c.clone();
        c2.eax = 0x1111_1111;
        c2.eip = 0x0040_1000;
        c2.esp = 0x0012_fff0;
        c2.eflags = 0x246;
        c2.float_save[0] = 0x7f;
        let b = c2.to_bytes();
        assert_eq!(b.len(), 0x2cc);
        let w = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(w(0), 0x1000f);
        assert_eq!(w(0xb0), 0x1111_1111);
        assert_eq!(w(0xb8), 0x0040_1000);
        assert_eq!(w(0xc4), 0x0012_fff0);
        assert_eq!(w(0xc0), 0x246);
        assert_eq!(b[0x1c], 0x7f);
        assert_eq!(Context::from_bytes(&b), c2);
    }

    #[test]
    fn apply_keeps_system_flags_and_honours_context_flags() {
        let mem = GuestMemory::new().unwrap();
        let mut cpu = Cpu::new(mem);
        let mut c = Context::capture(&cpu);
        c.eax = 5;
        c.eip = 0x1234;
        // IF clear, NT set and IOPL 3 must not reach the thread; CF and DF must.
        c.eflags = flags::CF | flags::DF | (1 << 14) | (3 << 12);
        c.flags = ctx_flags::CONTROL;
        c.apply(&mut cpu);
        assert_eq!(
            cpu.regs[EAX], 0,
            "CONTEXT_INTEGER not set: registers untouched"
        );
        assert_eq!(cpu.eip, 0x1234);
        let f = cpu.eflags();
        assert_eq!(f & flags::CF, flags::CF);
        assert_eq!(f & flags::DF, flags::DF);
        assert_eq!(f & flags::IF, flags::IF);
        assert_eq!(f & ((1 << 14) | (3 << 12)), 0);
    }
}
