//! A small standalone machine for tests, benchmarks and tools: guest memory with a
//! code region, a data region and a stack, one CPU and its executor. Code returns to
//! the host by jumping to [`EXIT`], which lies in the executor's stop range.

use crate::cpu::{Cpu, ESP};
use crate::exec::{Executor, StopReason};
use crate::mem::{GuestMemory, Prot};

pub const CODE: u32 = 0x0040_0000;
pub const CODE_SIZE: u32 = 0x0010_0000;
pub const DATA: u32 = 0x0060_0000;
pub const DATA_SIZE: u32 = 0x0020_0000;
pub const STACK_TOP: u32 = 0x0100_0000;
pub const STACK_SIZE: u32 = 0x0010_0000;
/// Jumping here ends the guest program.
pub const EXIT: u32 = 0x7fff_0000;

pub struct Machine {
    pub mem: GuestMemory,
    pub cpu: Cpu,
    pub exec: Executor,
}

impl Machine {
    /// A machine whose memory has the protected view where the host gives one
    /// (`GuestMemory::with_protected_view`): the `jit` tier's accesses unchecked.
    pub fn new() -> Machine {
        Machine::with_memory(GuestMemory::with_protected_view().expect("reserve guest memory"))
    }

    /// A machine whose memory has no protected view: the `jit` tier tests every
    /// access against the permission table (the path of hosts without one).
    pub fn new_tested() -> Machine {
        Machine::with_memory(GuestMemory::new().expect("reserve guest memory"))
    }

    fn with_memory(mem: GuestMemory) -> Machine {
        mem.commit(CODE, CODE_SIZE, Prot::RWX).expect("commit code");
        mem.commit(DATA, DATA_SIZE, Prot::RW).expect("commit data");
        mem.commit(STACK_TOP - STACK_SIZE, STACK_SIZE, Prot::RW)
            .expect("commit stack");
        let mut cpu = Cpu::new(mem.clone());
        cpu.regs[ESP] = STACK_TOP - 16;
        let mut exec = Executor::new();
        exec.set_stop_range(EXIT, EXIT + 1);
        Machine { mem, cpu, exec }
    }

    /// Copies `code` to [`CODE`] and points EIP at it.
    pub fn load(&mut self, code: &[u8]) {
        self.mem.write_bytes(CODE, code).expect("code fits");
        self.cpu.eip = CODE;
    }

    /// Runs until the program jumps to [`EXIT`] or stops otherwise.
    pub fn run(&mut self, budget: u64) -> StopReason {
        self.exec.run(&mut self.cpu, budget)
    }
}

impl Default for Machine {
    fn default() -> Self {
        Self::new()
    }
}

/// Assembles with iced's code assembler at [`CODE`].
pub fn assemble(
    f: impl FnOnce(&mut iced_x86::code_asm::CodeAssembler) -> Result<(), iced_x86::IcedError>,
) -> Vec<u8> {
    let mut a = iced_x86::code_asm::CodeAssembler::new(32).expect("32-bit assembler");
    f(&mut a).expect("assemble");
    a.assemble(CODE as u64).expect("assemble")
}
