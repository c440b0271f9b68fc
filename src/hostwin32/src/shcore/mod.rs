//! shcore.dll, a DLL of Windows 8 and later: Windows XP has none, and a program
//! importing it would not start there. Wine's own builds of its programs (regedit
//! takes CommandLineToArgvW from it) link against it as Windows 8 does, so winterp
//! serves it as a post-XP DLL: every export of the real one is known to the system
//! export table (all marked `notxp`), and the functions winterp implements in an
//! older DLL are forwarded there, as a real DLL forwards an export (`shcore.X` ->
//! `SHELL32.X`): the forwarded export runs the same implementation. An export with
//! no implementation anywhere is reported by name when called.

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "shcore.dll",
    exports,
    attach: None,
};

/// shcore's exports and the DLL whose implementation of the same name serves them:
/// the functions that moved into shcore from SHELL32 and SHLWAPI (which later
/// Windows forwards the other way).
const FORWARDS: &[(&str, &str)] = &[
    ("CommandLineToArgvW", "shell32.dll"),
    ("IStream_Read", "shlwapi.dll"),
    ("IStream_Reset", "shlwapi.dll"),
    ("IStream_Size", "shlwapi.dll"),
    ("IStream_Write", "shlwapi.dll"),
    ("IUnknown_AtomicRelease", "shlwapi.dll"),
    ("IUnknown_GetSite", "shlwapi.dll"),
    ("IUnknown_QueryService", "shlwapi.dll"),
    ("IUnknown_Set", "shlwapi.dll"),
    ("IUnknown_SetSite", "shlwapi.dll"),
    ("IsOS", "shlwapi.dll"),
    ("SHAnsiToAnsi", "shlwapi.dll"),
    ("SHAnsiToUnicode", "shlwapi.dll"),
    ("SHCopyKeyA", "shlwapi.dll"),
    ("SHCopyKeyW", "shlwapi.dll"),
    ("SHCreateMemStream", "shlwapi.dll"),
    ("SHCreateStreamOnFileA", "shlwapi.dll"),
    ("SHCreateStreamOnFileEx", "shlwapi.dll"),
    ("SHCreateStreamOnFileW", "shlwapi.dll"),
    ("SHCreateThread", "shlwapi.dll"),
    ("SHCreateThreadRef", "shlwapi.dll"),
    ("SHDeleteEmptyKeyA", "shlwapi.dll"),
    ("SHDeleteEmptyKeyW", "shlwapi.dll"),
    ("SHDeleteKeyA", "shlwapi.dll"),
    ("SHDeleteKeyW", "shlwapi.dll"),
    ("SHDeleteValueA", "shlwapi.dll"),
    ("SHDeleteValueW", "shlwapi.dll"),
    ("SHEnumKeyExA", "shlwapi.dll"),
    ("SHEnumKeyExW", "shlwapi.dll"),
    ("SHEnumValueA", "shlwapi.dll"),
    ("SHEnumValueW", "shlwapi.dll"),
    ("SHGetThreadRef", "shlwapi.dll"),
    ("SHGetValueA", "shlwapi.dll"),
    ("SHGetValueW", "shlwapi.dll"),
    ("SHOpenRegStream2A", "shlwapi.dll"),
    ("SHOpenRegStream2W", "shlwapi.dll"),
    ("SHOpenRegStreamA", "shlwapi.dll"),
    ("SHOpenRegStreamW", "shlwapi.dll"),
    ("SHQueryInfoKeyA", "shlwapi.dll"),
    ("SHQueryInfoKeyW", "shlwapi.dll"),
    ("SHQueryValueExA", "shlwapi.dll"),
    ("SHQueryValueExW", "shlwapi.dll"),
    ("SHRegDuplicateHKey", "shlwapi.dll"),
    ("SHRegGetPathA", "shlwapi.dll"),
    ("SHRegGetPathW", "shlwapi.dll"),
    ("SHRegGetValueA", "shlwapi.dll"),
    ("SHRegGetValueW", "shlwapi.dll"),
    ("SHRegSetPathA", "shlwapi.dll"),
    ("SHRegSetPathW", "shlwapi.dll"),
    ("SHReleaseThreadRef", "shlwapi.dll"),
    ("SHSetThreadRef", "shlwapi.dll"),
    ("SHSetValueA", "shlwapi.dll"),
    ("SHSetValueW", "shlwapi.dll"),
    ("SHStrDupA", "shlwapi.dll"),
    ("SHStrDupW", "shlwapi.dll"),
    ("SHUnicodeToAnsi", "shlwapi.dll"),
    ("SHUnicodeToUnicode", "shlwapi.dll"),
];

/// The forwarded exports whose target DLL implements them: each is the target's
/// own export definition (same function, same calling convention) under shcore's
/// name. The ordinal is dropped: shcore's numbering is its own.
fn exports() -> Vec<ApiDef> {
    let mut out = Vec::new();
    for dll in crate::hle_dlls() {
        let key = crate::process::dll_key(dll.name);
        if !FORWARDS
            .iter()
            .any(|(_, t)| crate::process::dll_key(t) == key)
        {
            continue;
        }
        for mut e in (dll.exports)() {
            if FORWARDS
                .iter()
                .any(|&(n, t)| n == e.name && crate::process::dll_key(t) == key)
            {
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
    fn forwards_name_real_shcore_exports() {
        let sys = crate::sysexports::dll("shcore.dll").expect("shcore is in the table");
        for (name, _) in super::FORWARDS {
            let e = sys.by_name(name).unwrap_or_else(|| panic!("{name}"));
            assert!(e.not_in_xp, "{name}: shcore does not exist on XP");
        }
    }

    #[test]
    fn command_line_to_argv_is_served_by_shell32s_implementation() {
        let names: Vec<&str> = super::exports().iter().map(|e| e.name).collect();
        assert!(names.contains(&"CommandLineToArgvW"));
        // Forwards to functions no DLL implements are left out, so a call reports
        // shcore's export by name.
        for n in &names {
            assert!(super::FORWARDS.iter().any(|(f, _)| f == n));
        }
    }
}
