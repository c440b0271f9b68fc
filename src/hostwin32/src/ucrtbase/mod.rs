//! ucrtbase.dll: the Universal C runtime (Visual Studio 2015 and later, and Wine's
//! own programs). Most of its exports are msvcrt's functions under the same names,
//! served by the msvcrt module with the same process-wide runtime state (streams,
//! errno, environment), so a program that mixes both runtimes sees one C library.
//! What is UCRT's own: the `__stdio_common_*` entry points behind the inline
//! printf/scanf family of its headers (see [`stdio`]), the start-up functions the
//! compiler's start-up code calls (`_configure_*_argv`,
//! `_initialize_*_environment`, onexit tables), and a few renamed accessors.

mod startup;
mod stdio;

#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, ApiError, ApiResult, Conv, Ctx, HleDll, Outcome};
use std::collections::HashSet;

pub const DLL: HleDll = HleDll {
    name: "ucrtbase.dll",
    exports,
    attach: None,
};

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    v.extend(startup::exports());
    v.extend(stdio::exports());
    let own: HashSet<&'static str> = v.iter().map(|e| e.name).collect();
    // msvcrt's functions that the real ucrtbase.dll exports with the same
    // signature (the system export table says which: UCRT dropped many names and
    // changed some, such as wcstok's third argument). msvcrt's data exports are not
    // part of UCRT's interface (it has accessor functions instead), and a second
    // copy would split the runtime's variables.
    let real = crate::sysexports::dll("ucrtbase");
    let same = |e: &ApiDef| match (e.conv_nargs(), real.and_then(|r| r.by_name(e.name))) {
        (Some((conv, nargs)), Some(r)) => r
            .kind
            .agrees_with(conv == Conv::Stdcall, u16::from(nargs) * 4),
        _ => false,
    };
    v.extend(
        (crate::msvcrt::DLL.exports)()
            .into_iter()
            .filter(|e| !own.contains(e.name) && same(e)),
    );
    v
}

/// Whether an API-set DLL name (`api-ms-win-crt-stdio-l1-1-0.dll`) is one of the
/// UCRT's contracts, which ucrtbase.dll implements.
pub fn is_crt_api_set(dll: &str) -> bool {
    let n = dll.to_ascii_lowercase();
    n.starts_with("api-ms-win-crt-")
}

/// Calls export `name` of the HLE DLL `dll` with raw stack arguments (another
/// module's implementation reused under this DLL's name).
pub(crate) fn call_export(cx: &mut Ctx, dll: &str, name: &str, args: &[u32]) -> ApiResult<Outcome> {
    let missing = || ApiError::Unimplemented {
        dll: dll.to_string(),
        name: name.to_string(),
    };
    let proc = cx.proc.clone();
    let d = proc.hle_dll(dll).ok_or_else(missing)?;
    let def = proc.dlls[d]
        .1
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(missing)?;
    if let Some((_, n)) = def.conv_nargs()
        && n as usize != args.len()
    {
        return Err(ApiError::Other(format!(
            "{dll}!{name} takes {n} argument slots, {} given",
            args.len()
        )));
    }
    def.call(cx, args)
}

/// [`call_export`] for a function that returns to its caller with EAX.
pub(crate) fn call_export_ret(cx: &mut Ctx, dll: &str, name: &str, args: &[u32]) -> ApiResult<u32> {
    match call_export(cx, dll, name, args)? {
        Outcome::Return(v) => Ok(v as u32),
        o => Err(ApiError::Other(format!("{dll}!{name} ended with {o:?}"))),
    }
}
