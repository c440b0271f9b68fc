//! winterp-hostwin32: the Win32 process. PE loader, address space, threads, the HLE
//! framework and one module per emulated DLL, the sandboxed file system and SEH.
//! Talks to the machine only through [`host::Host`].

pub mod address_space;
pub mod advapi32;
pub mod comctl32;
pub mod comdlg32;
pub mod ddraw;
pub mod dinput;
pub mod display;
pub mod dplayx;
pub mod dsound;
pub mod gdi32;
pub mod glrender;
pub mod glu32;
pub mod hle;
pub mod host;
pub mod ieframe;
pub mod inspect;
pub mod kernel32;
pub mod kernelbase;
pub mod keys;
pub mod loader;
pub mod msi;
pub mod msvcrt;
pub mod ntdll;
pub mod objects;
pub mod ole32;
pub mod oleaut32;
pub mod opengl32;
pub mod process;
pub mod riched20;
pub mod scheduler;
pub mod seh;
pub mod shcore;
pub mod shell32;
pub mod shlwapi;
pub mod sound;
pub mod startup;
pub mod sysexports;
pub mod thread;
pub mod ucrtbase;
pub mod user32;
pub mod version;
pub mod vfs;
pub mod winmm;

/// The HLE DLLs every process gets, in lookup order: the implemented ones, then every
/// other DLL of the system export table with no function implemented, so that it
/// loads as on Windows and each call into it reports the function by name.
pub fn hle_dlls() -> Vec<hle::HleDll> {
    let mut dlls = vec![
        kernel32::DLL,
        kernelbase::DLL,
        msvcrt::DLL,
        advapi32::DLL,
        user32::DLL,
        gdi32::DLL,
        oleaut32::DLL,
        ucrtbase::DLL,
        ntdll::DLL,
        shlwapi::DLL,
        shell32::DLL,
        shcore::DLL,
        comdlg32::DLL,
        comctl32::DLL,
        winmm::DLL,
        ddraw::DLL,
        dsound::DLL,
        dinput::DLL,
        ole32::DLL,
        dplayx::DLL,
        version::DLL,
        msi::DLL,
        riched20::DLL,
        riched20::DLL32,
        ieframe::DLL,
        opengl32::DLL,
        glu32::DLL,
    ];
    for d in sysexports::table().dlls() {
        if !dlls.iter().any(|h| process::dll_key(h.name) == d.name) {
            dlls.push(hle::HleDll {
                name: d.file_name,
                exports: Vec::new,
                attach: None,
            });
        }
    }
    dlls
}
pub mod teb;

#[cfg(test)]
mod tests {
    /// No HLE DLL declares a name twice: the pseudo-module's export directory and
    /// `Process::resolve_hle` would then name different thunks for it (an explicit
    /// `stdcall("XA", ...)` left beside `stdcall_aw![X]` did, for CreateFileA and
    /// four more).
    #[test]
    fn every_hle_dll_declares_each_name_once() {
        for d in super::hle_dlls() {
            let mut seen = std::collections::HashSet::new();
            for e in (d.exports)() {
                assert!(seen.insert(e.name), "{} declares {} twice", d.name, e.name);
            }
        }
    }
}
