//! Typed API arguments and results: how a Rust parameter type is read from the
//! guest stack and how a Rust return value becomes EAX/EDX/ST(0).

use super::{ApiResult, Ctx, Outcome};

/// A parameter type of an HLE function.
pub trait Arg: Sized {
    /// Dwords it occupies on the stack.
    const SLOTS: u8;
    /// Reads it from `stack` (the slots from this argument on; `avail` of them).
    fn from_stack(cx: &mut Ctx, stack: &[u32], avail: usize) -> ApiResult<Self>;
}

impl Arg for u32 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0])
    }
}

impl Arg for i32 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as i32)
    }
}

impl Arg for u16 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as u16)
    }
}

/// GLshort by value (a 4-byte slot, the low half meaningful).
impl Arg for i16 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as i16)
    }
}

/// GLbyte by value (a 4-byte slot, the low byte meaningful).
impl Arg for i8 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as i8)
    }
}

impl Arg for u8 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as u8)
    }
}

/// Win32 BOOL: any non-zero value is TRUE.
impl Arg for bool {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] != 0)
    }
}

/// A C `double` passed by value (two stack slots).
impl Arg for f64 {
    const SLOTS: u8 = 2;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(f64::from_bits(s[0] as u64 | (s[1] as u64) << 32))
    }
}

/// A C `float` passed by value (one stack slot holding its IEEE bits), as OpenGL's
/// GLfloat and GLclampf arguments are.
impl Arg for f32 {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(f32::from_bits(s[0]))
    }
}

/// A 64-bit integer passed by value (two stack slots, low first).
impl Arg for u64 {
    const SLOTS: u8 = 2;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(s[0] as u64 | (s[1] as u64) << 32)
    }
}

/// `N` consecutive dword arguments, for APIs with more parameters than the typed
/// glue takes (CreateFont's 14): the slots count like any other argument, so the
/// stack is cleaned as the calling convention says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dwords<const N: usize>(pub [u32; N]);

impl<const N: usize> Arg for Dwords<N> {
    const SLOTS: u8 = N as u8;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        let mut a = [0u32; N];
        a.copy_from_slice(&s[..N]);
        Ok(Dwords(a))
    }
}

/// A guest pointer (may be NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr(pub u32);

impl Ptr {
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
}

impl Arg for Ptr {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(Ptr(s[0]))
    }
}

/// An LPCSTR: a guest pointer to a NUL-terminated ANSI string (may be NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CStrPtr(pub u32);

/// An LPCWSTR: a guest pointer to a NUL-terminated UTF-16 string (may be NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WStrPtr(pub u32);

impl Arg for CStrPtr {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(CStrPtr(s[0]))
    }
}

impl Arg for WStrPtr {
    const SLOTS: u8 = 1;
    fn from_stack(_: &mut Ctx, s: &[u32], _: usize) -> ApiResult<Self> {
        Ok(WStrPtr(s[0]))
    }
}

/// The `...` of a C variadic function: the guest address of the first variadic
/// argument. Must be the last parameter; occupies no fixed slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarArgs(pub u32);

impl Arg for VarArgs {
    const SLOTS: u8 = 0;
    fn from_stack(cx: &mut Ctx, _: &[u32], _: usize) -> ApiResult<Self> {
        // The variadic arguments follow the return address and the fixed arguments.
        let esp = cx.thread.cpu.regs[winterp_core::cpu::ESP];
        Ok(VarArgs(esp.wrapping_add(4 + 4 * cx.thread.call_nargs)))
    }
}

/// A return type of an HLE function.
pub trait Ret {
    fn into_outcome(self) -> ApiResult<Outcome>;
}

impl Ret for Outcome {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(self)
    }
}

impl Ret for u32 {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(self as u64))
    }
}

impl Ret for i32 {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(self as u32 as u64))
    }
}

impl Ret for u64 {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(self))
    }
}

impl Ret for bool {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(self as u64))
    }
}

impl Ret for () {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(0))
    }
}

impl Ret for f64 {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::ReturnF64(self))
    }
}

impl Ret for Ptr {
    fn into_outcome(self) -> ApiResult<Outcome> {
        Ok(Outcome::Return(self.0 as u64))
    }
}

impl<T: Ret> Ret for ApiResult<T> {
    fn into_outcome(self) -> ApiResult<Outcome> {
        self.and_then(Ret::into_outcome)
    }
}
