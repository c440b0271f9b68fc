//! Every implemented HLE function against the system export table: the calling
//! convention and the argument bytes must be what the real DLL's are, or a real
//! program's stack comes back unbalanced from the call.

use winterp_hostwin32::hle::{Conv, ExportKind};
use winterp_hostwin32::sysexports::{self, Kind};

/// Exports winterp serves that the table has no signature for (or a wrong one),
/// each with why the check does not apply. Kept short and explained.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "msvcrt.dll",
        "_cabs",
        "takes struct _complex (two doubles, 16 bytes) by value; Wine's spec says one \
         long. cdecl, so the caller pops either way",
    ),
    (
        "USER32.dll",
        "ButtonWndProc",
        "built-in control class procedure (internal)",
    ),
    (
        "USER32.dll",
        "StaticWndProc",
        "built-in control class procedure (internal)",
    ),
    (
        "USER32.dll",
        "ListBoxWndProc",
        "built-in control class procedure (internal)",
    ),
    (
        "USER32.dll",
        "ComboBoxWndProc",
        "built-in control class procedure (internal)",
    ),
    (
        "USER32.dll",
        "ScrollBarWndProc",
        "built-in control class procedure (internal)",
    ),
    (
        "USER32.dll",
        "SubclassWndProc",
        "built-in control class procedure (internal)",
    ),
];

/// winterp's own helpers that guest code reaches through thunks (SEH glue).
const INTERNAL_PREFIX: &str = "__winterp_";

fn excepted(dll: &str, name: &str) -> bool {
    name.starts_with(INTERNAL_PREFIX) || EXCEPTIONS.iter().any(|(d, n, _)| *d == dll && *n == name)
}

#[test]
fn every_hle_function_matches_the_system_export_table() {
    let mut problems = Vec::new();
    let mut checked = 0usize;
    let mut stubs = 0usize;
    for dll in winterp_hostwin32::hle_dlls() {
        let Some(sys) = sysexports::dll(dll.name) else {
            problems.push(format!("{}: no such DLL in the export table", dll.name));
            continue;
        };
        for def in (dll.exports)() {
            // COM methods (`IDirectDraw::Blt`) are served through the same thunks
            // but are vtable entries, not exports of the DLL.
            if def.name.contains("::") {
                continue;
            }
            let (ExportKind::Function { conv, nargs, .. } | ExportKind::Code { conv, nargs, .. }) =
                def.kind
            else {
                if let Some(e) = sys.by_name(def.name)
                    && e.kind != Kind::Data
                    && e.kind != Kind::Stub
                {
                    problems.push(format!(
                        "{}!{}: data here, {:?} in the table",
                        dll.name, def.name, e.kind
                    ));
                }
                continue;
            };
            if excepted(dll.name, def.name) {
                continue;
            }
            let Some(e) = sys.by_name(def.name) else {
                problems.push(format!(
                    "{}!{}: not in the export table",
                    dll.name, def.name
                ));
                continue;
            };
            if let Some(o) = def.ordinal
                && e.ordinal.is_some_and(|t| t != o)
            {
                problems.push(format!(
                    "{}!{}: ordinal {o} here, {:?} in the table",
                    dll.name, def.name, e.ordinal
                ));
            }
            let bytes = nargs as u16 * 4;
            if e.kind == Kind::Stub {
                stubs += 1;
            }
            let ok = e.kind.agrees_with(conv == Conv::Stdcall, bytes);
            checked += 1;
            if !ok {
                problems.push(format!(
                    "{}!{}: {conv:?} with {bytes} argument bytes here, {:?} in the table",
                    dll.name, def.name, e.kind
                ));
            }
        }
    }
    println!(
        "checked {checked} HLE functions against the export table ({stubs} are stubs in the table)"
    );
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
