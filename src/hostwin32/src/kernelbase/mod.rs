//! kernelbase.dll, a DLL of Windows 7 and later: Windows XP has none, and a program
//! importing it would not start there. Wine's own builds link against it as Windows
//! 7 does (appwiz.cpl, the Add/Remove Programs applet, takes CreateFileW,
//! GetModuleHandleW and other functions from it), so winterp serves it as a post-XP
//! DLL, like [`crate::shcore`]: every export of the real one is in the system export
//! table (all marked `notxp`). Windows 7 moved the implementations of KERNEL32,
//! ADVAPI32 and SHLWAPI functions into kernelbase and forwards the old names to it;
//! here it is the other way round: each kernelbase export that one of those DLLs
//! implements in winterp is that implementation (the same function, as a forwarder
//! would give). The rest report themselves by name when called.

use crate::hle::{ApiDef, HleDll};
use crate::process::dll_key;

pub const DLL: HleDll = HleDll {
    name: "kernelbase.dll",
    exports,
    attach: None,
};

/// Where the implementations are, in the order a name is looked up.
const TARGETS: &[&str] = &["kernel32.dll", "advapi32.dll", "shlwapi.dll"];

fn exports() -> Vec<ApiDef> {
    let Some(sys) = crate::sysexports::dll(DLL.name) else {
        return Vec::new();
    };
    let dlls = crate::hle_dlls();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in TARGETS {
        let Some(d) = dlls.iter().find(|d| dll_key(d.name) == dll_key(t)) else {
            continue;
        };
        for mut e in (d.exports)() {
            if sys.by_name(e.name).is_some() && seen.insert(e.name) {
                e.ordinal = None;
                out.push(e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn serves_kernel32s_implementations_under_kernelbase_names() {
        let names: Vec<&str> = super::exports().iter().map(|e| e.name).collect();
        for n in [
            "CreateFileW",
            "GetModuleHandleW",
            "CloseHandle",
            "HeapAlloc",
        ] {
            assert!(names.contains(&n), "{n}");
        }
        let sys = crate::sysexports::dll("kernelbase.dll").expect("in the table");
        for n in &names {
            assert!(sys.by_name(n).is_some_and(|e| e.not_in_xp), "{n}");
        }
    }
}
