//! The HLE framework: an API is an ordinary Rust function whose typed parameters
//! (after the [`Ctx`]) are its Win32 arguments; one declaration per API in a DLL
//! module's export list (`stdcall("GetTickCount", GetTickCount)`) generates the glue
//! that reads the arguments from the guest stack, calls it, stores the result and
//! cleans the stack as the calling convention says. Imports resolve to thunk
//! addresses; reaching one stops the executor and [`crate::thread`] dispatches here.

pub mod args;
pub mod com;
pub mod thunks;

pub use args::{Arg, CStrPtr, Dwords, Ptr, Ret, VarArgs, WStrPtr};

use crate::process::Process;
use crate::thread::GuestThread;
use std::sync::Arc;

/// How the callee leaves the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// Callee pops its arguments (WINAPI).
    Stdcall,
    /// Caller pops (C runtime).
    Cdecl,
}

/// What an API call does to the guest once it returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Return to the caller with EDX:EAX.
    Return(u64),
    /// Return to the caller with a double in ST(0) (C runtime math).
    ReturnF64(f64),
    /// The API set EIP/ESP itself (longjmp, a callback trampoline): do not pop.
    Resume,
    /// The process ends with this exit code (ExitProcess, exit).
    ExitProcess(u32),
    /// The calling thread ends with this exit code.
    ExitThread(u32),
}

/// Why an API could not complete. Stops the program with a report.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{dll}!{name} is not implemented")]
    Unimplemented { dll: String, name: String },
    #[error("{0} is not implemented")]
    UnimplementedCase(String),
    #[error("guest memory fault at {0:#010x} while serving the call")]
    Fault(u32),
    #[error("{0}")]
    Other(String),
}

impl From<winterp_core::mem::Fault> for ApiError {
    fn from(f: winterp_core::mem::Fault) -> Self {
        ApiError::Fault(f.addr)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The environment an API function runs in: the process and the calling thread.
pub struct Ctx<'a> {
    pub proc: &'a Arc<Process>,
    pub thread: &'a mut GuestThread,
}

type Glue = Box<dyn Fn(&mut Ctx, &[u32]) -> ApiResult<Outcome> + Send + Sync>;

/// What an export is.
pub enum ExportKind {
    Function {
        conv: Conv,
        nargs: u8,
        glue: Glue,
    },
    /// A variable exported by the DLL (e.g. msvcrt's `_iob`): `size` bytes of guest
    /// memory initialised by `init` at load time.
    Data {
        size: u32,
        init: fn(&Arc<Process>, u32) -> ApiResult<()>,
    },
    /// A function that runs as guest code: the routine at `offset` in `blob`, which
    /// is mapped read-execute into the process once, on first use. `conv` and
    /// `nargs` are its declared convention and argument slots (checked against the
    /// system export table like every function's).
    Code {
        blob: &'static GuestBlob,
        offset: u32,
        conv: Conv,
        nargs: u8,
    },
}

/// Guest machine code an HLE DLL ships (position-independent, code only), e.g.
/// msvcrt's string routines and qsort (`msvcrt/guest`).
pub struct GuestBlob {
    /// What the mapping is called in the address space (VirtualQuery, reports).
    pub name: &'static str,
    pub bytes: &'static [u8],
}

/// One export of an HLE DLL.
pub struct ApiDef {
    pub name: &'static str,
    pub ordinal: Option<u16>,
    pub kind: ExportKind,
}

/// A function with typed arguments that can be called from guest code.
pub trait ApiFn<Args>: Send + Sync + 'static {
    /// Stack slots (dwords) the arguments occupy.
    fn slots() -> u8;
    fn call(&self, cx: &mut Ctx, stack: &[u32]) -> ApiResult<Outcome>;
}

macro_rules! impl_api_fn {
    ($($a:ident),*) => {
        impl<F, R, $($a),*> ApiFn<($($a,)*)> for F
        where
            F: Fn(&mut Ctx, $($a),*) -> R + Send + Sync + 'static,
            R: Ret,
            $($a: Arg),*
        {
            fn slots() -> u8 {
                0 $(+ $a::SLOTS)*
            }
            #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments)]
            fn call(&self, cx: &mut Ctx, stack: &[u32]) -> ApiResult<Outcome> {
                let mut at = 0usize;
                $(
                    let $a = $a::from_stack(cx, &stack[at..], stack.len() - at)?;
                    at += $a::SLOTS as usize;
                )*
                self(cx, $($a),*).into_outcome()
            }
        }
    };
}

impl_api_fn!();
impl_api_fn!(A1);
impl_api_fn!(A1, A2);
impl_api_fn!(A1, A2, A3);
impl_api_fn!(A1, A2, A3, A4);
impl_api_fn!(A1, A2, A3, A4, A5);
impl_api_fn!(A1, A2, A3, A4, A5, A6);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7, A8);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7, A8, A9);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);
impl_api_fn!(A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12);

fn function<Args, F: ApiFn<Args>>(name: &'static str, conv: Conv, f: F) -> ApiDef {
    let nargs = F::slots();
    ApiDef {
        name,
        ordinal: None,
        kind: ExportKind::Function {
            conv,
            nargs,
            glue: Box::new(move |cx, st| f.call(cx, st)),
        },
    }
}

/// Declares a WINAPI (stdcall) export.
pub fn stdcall<Args, F: ApiFn<Args>>(name: &'static str, f: F) -> ApiDef {
    function(name, Conv::Stdcall, f)
}

/// Declares the A and W exports of APIs whose one HLE body is generic over the
/// string kind (`kernel32::string::GuestStr`): `stdcall_aw![GetProfileString]` is
/// `vec![stdcall("GetProfileStringA", GetProfileString::<CStrPtr>),
/// stdcall("GetProfileStringW", GetProfileString::<WStrPtr>)]`.
macro_rules! stdcall_aw {
    ($($f:ident),* $(,)?) => {
        vec![$(
            $crate::hle::stdcall(concat!(stringify!($f), "A"), $f::<$crate::hle::CStrPtr>),
            $crate::hle::stdcall(concat!(stringify!($f), "W"), $f::<$crate::hle::WStrPtr>),
        )*]
    };
}
pub(crate) use stdcall_aw;

/// Declares a C (cdecl) export.
pub fn cdecl<Args, F: ApiFn<Args>>(name: &'static str, f: F) -> ApiDef {
    function(name, Conv::Cdecl, f)
}

/// Declares a cdecl export of `nargs` argument slots that runs as guest code:
/// `offset` into `blob`.
pub fn guest_code(name: &'static str, blob: &'static GuestBlob, offset: u32, nargs: u8) -> ApiDef {
    ApiDef {
        name,
        ordinal: None,
        kind: ExportKind::Code {
            blob,
            offset,
            conv: Conv::Cdecl,
            nargs,
        },
    }
}

/// Declares an exported variable of `size` bytes.
pub fn data(
    name: &'static str,
    size: u32,
    init: fn(&Arc<Process>, u32) -> ApiResult<()>,
) -> ApiDef {
    ApiDef {
        name,
        ordinal: None,
        kind: ExportKind::Data { size, init },
    }
}

impl ApiDef {
    /// Gives the export an ordinal (for imports by ordinal).
    pub fn ordinal(mut self, n: u16) -> ApiDef {
        self.ordinal = Some(n);
        self
    }

    pub fn conv_nargs(&self) -> Option<(Conv, u8)> {
        match &self.kind {
            ExportKind::Function { conv, nargs, .. } | ExportKind::Code { conv, nargs, .. } => {
                Some((*conv, *nargs))
            }
            ExportKind::Data { .. } => None,
        }
    }

    pub fn call(&self, cx: &mut Ctx, stack: &[u32]) -> ApiResult<Outcome> {
        match &self.kind {
            ExportKind::Function { glue, .. } => glue(cx, stack),
            ExportKind::Data { .. } => {
                Err(ApiError::Other(format!("{} is data, not code", self.name)))
            }
            ExportKind::Code { .. } => Err(ApiError::Other(format!(
                "{} runs as guest code, not through a thunk",
                self.name
            ))),
        }
    }
}

/// An HLE DLL: its name and export list.
pub struct HleDll {
    pub name: &'static str,
    pub exports: fn() -> Vec<ApiDef>,
    /// Runs once when the DLL's pseudo-module is created (the DLL is imported or
    /// loaded), as a real DLL's DLL_PROCESS_ATTACH would: e.g. COMCTL32 registers
    /// its window classes here.
    pub attach: Option<fn(&crate::process::Process)>,
}
