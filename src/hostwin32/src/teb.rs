//! The Thread Environment Block (FS base) and the Process Environment Block, with
//! the Windows NT field offsets programs and compilers rely on.

use crate::hle::{ApiResult, Ctx};

pub const TEB_SIZE: u32 = 0x1000;
pub const EXCEPTION_LIST: u32 = 0x00;
pub const STACK_BASE: u32 = 0x04;
pub const STACK_LIMIT: u32 = 0x08;
pub const SELF: u32 = 0x18;
pub const PROCESS_ID: u32 = 0x20;
pub const THREAD_ID: u32 = 0x24;
pub const TLS_POINTER: u32 = 0x2c;
pub const PEB: u32 = 0x30;
pub const LAST_ERROR: u32 = 0x34;
pub const TLS_SLOTS: u32 = 0xe10;
pub const TLS_SLOT_COUNT: u32 = 64;

/// PEB offsets.
pub mod peb {
    pub const IMAGE_BASE: u32 = 0x08;
    pub const LDR: u32 = 0x0c;
    pub const PROCESS_PARAMETERS: u32 = 0x10;
    pub const PROCESS_HEAP: u32 = 0x18;
}

/// SetLastError for the calling thread.
pub fn set_last_error(cx: &mut Ctx, code: u32) -> ApiResult<()> {
    let teb = cx.thread.teb;
    cx.proc.mem.write_u32(teb + LAST_ERROR, code)?;
    Ok(())
}

/// GetLastError for the calling thread.
pub fn last_error(cx: &Ctx) -> ApiResult<u32> {
    Ok(cx.proc.mem.read_u32(cx.thread.teb + LAST_ERROR)?)
}
