//! The faulting instruction: decoded again (iced-x86) where the exception code
//! depends on it, as the Windows kernel's trap handlers look at it, and for reports.

use iced_x86::{
    Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter, Mnemonic, OpKind, Register,
};
use winterp_core::Cpu;
use winterp_core::mem::GuestMemory;

/// The longest x86 instruction.
const MAX_LEN: usize = 15;

/// The instruction at `eip`, if its bytes are readable and form one.
pub fn decode(mem: &GuestMemory, eip: u32) -> Option<Instruction> {
    let bytes = read_code(mem, eip);
    if bytes.is_empty() {
        return None;
    }
    let mut d = Decoder::with_ip(32, &bytes, eip as u64, DecoderOptions::NONE);
    let i = d.decode();
    (!i.is_invalid()).then_some(i)
}

/// Up to 15 bytes at `eip`, stopping at the first unreadable one.
fn read_code(mem: &GuestMemory, eip: u32) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(MAX_LEN);
    for k in 0..MAX_LEN as u32 {
        match mem.read_u8(eip.wrapping_add(k)) {
            Ok(b) => bytes.push(b),
            Err(_) => break,
        }
    }
    bytes
}

/// The instruction in Intel syntax, or why there is none.
pub fn disassemble(mem: &GuestMemory, eip: u32) -> String {
    let bytes = read_code(mem, eip);
    if bytes.is_empty() {
        return "(instruction bytes unreadable)".into();
    }
    let mut d = Decoder::with_ip(32, &bytes, eip as u64, DecoderOptions::NONE);
    let i = d.decode();
    let hex = |n: usize| {
        bytes[..n.min(bytes.len())]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if i.is_invalid() {
        return format!("(not a valid instruction: {})", hex(8));
    }
    let mut text = String::new();
    IntelFormatter::new().format(&i, &mut text);
    format!("{text}  [{}]", hex(i.len()))
}

/// Length of the instruction at `eip` (1 if it cannot be decoded, which is right for
/// the one-byte INT3 and INTO this is used for).
pub fn length(mem: &GuestMemory, eip: u32) -> u32 {
    decode(mem, eip).map_or(1, |i| i.len() as u32)
}

/// Whether the instruction at `eip` carries a LOCK prefix (an invalid-opcode fault
/// is then STATUS_INVALID_LOCK_SEQUENCE). Scans the prefix bytes, since the
/// instruction itself may not decode.
pub fn has_lock_prefix(mem: &GuestMemory, eip: u32) -> bool {
    for b in read_code(mem, eip) {
        match b {
            0xf0 => return true,
            0xf2 | 0xf3 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65 | 0x66 | 0x67 => {}
            _ => return false,
        }
    }
    false
}

/// For a divide error at `eip`: whether the divisor is zero (Windows then raises
/// STATUS_INTEGER_DIVIDE_BY_ZERO, otherwise the quotient overflowed and it raises
/// STATUS_INTEGER_OVERFLOW). `None` if the instruction or its operand cannot be
/// examined.
pub fn divisor_is_zero(cpu: &Cpu, eip: u32) -> Option<bool> {
    let i = decode(&cpu.mem, eip)?;
    match i.mnemonic() {
        Mnemonic::Aam => return Some(i.immediate8() == 0),
        Mnemonic::Div | Mnemonic::Idiv => {}
        _ => return None,
    }
    let v = match i.op0_kind() {
        OpKind::Register => register(cpu, i.op0_register())?,
        OpKind::Memory => {
            let addr = i.virtual_address(0, 0, |r, _, _| register(cpu, r).map(u64::from))? as u32;
            match i.memory_size().size() {
                1 => cpu.mem.read_u8(addr).ok()? as u32,
                2 => cpu.mem.read_u16(addr).ok()? as u32,
                4 => cpu.mem.read_u32(addr).ok()?,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(v == 0)
}

/// A general register's value, or a segment register's base.
fn register(cpu: &Cpu, r: Register) -> Option<u32> {
    use winterp_core::cpu::seg;
    let s = |slot: u8| Some(cpu.seg_base[slot as usize]);
    match r {
        Register::ES => s(seg::ES),
        Register::CS => s(seg::CS),
        Register::SS => s(seg::SS),
        Register::DS => s(seg::DS),
        Register::FS => s(seg::FS),
        Register::GS => s(seg::GS),
        r if r.is_gpr32() => Some(cpu.r32(r.number() as u8)),
        r if r.is_gpr16() => Some(cpu.r16(r.number() as u8)),
        // AL..BL are 0-3 and AH..BH 4-7 in both iced's numbering and x86 encoding.
        r if r.is_gpr8() && r.number() < 8 => Some(cpu.r8(r.number() as u8)),
        _ => None,
    }
}
