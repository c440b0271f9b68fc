//! ntdll.dll: the few exports Win32 programs import directly. Its C library
//! functions behave as msvcrt's (ntdll's own copies follow the same Microsoft
//! rules: `_vsnprintf` leaves the terminator out when the text fills the buffer),
//! so msvcrt's implementations serve them; the Rtl functions sit on KERNEL32.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, HleDll, Ptr, stdcall};

mod sysinfo;

pub const DLL: HleDll = HleDll {
    name: "ntdll.dll",
    exports,
    attach: None,
};

/// The C library functions ntdll exports that msvcrt implements.
const CRT: &[&str] = &[
    "_vsnprintf",
    "_vsnwprintf",
    "_snprintf",
    "_snwprintf",
    "sprintf",
    "swprintf",
    "sscanf",
    "strlen",
    "strcpy",
    "strcat",
    "strcmp",
    "strncmp",
    "strncpy",
    "strchr",
    "strrchr",
    "strstr",
    "_stricmp",
    "_strnicmp",
    "wcslen",
    "wcscpy",
    "wcscat",
    "wcscmp",
    "wcsncmp",
    "wcschr",
    "wcsrchr",
    "wcsstr",
    "_wcsicmp",
    "_wcsnicmp",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "atoi",
    "atol",
    "strtol",
    "strtoul",
    "tolower",
    "toupper",
    "towlower",
    "towupper",
    "qsort",
];

const STATUS_SUCCESS: u32 = 0;
const STATUS_INVALID_PARAMETER: u32 = 0xC000_000D;

/// RtlGetVersion fills an OSVERSIONINFO(EX)W exactly as GetVersionExW does (same
/// layout, `dwOSVersionInfoSize` chosen by the caller) but reports an NTSTATUS.
fn RtlGetVersion(cx: &mut Ctx, lpVersionInformation: Ptr) -> ApiResult<u32> {
    if lpVersionInformation.is_null() {
        return Ok(STATUS_INVALID_PARAMETER);
    }
    let ok = crate::kernel32::process::GetVersionExW(cx, lpVersionInformation)?;
    Ok(if ok {
        STATUS_SUCCESS
    } else {
        STATUS_INVALID_PARAMETER
    })
}

fn exports() -> Vec<ApiDef> {
    let mut v: Vec<ApiDef> = (crate::msvcrt::DLL.exports)()
        .into_iter()
        .filter(|e| CRT.contains(&e.name))
        .collect();
    v.push(stdcall("RtlGetVersion", RtlGetVersion));
    v.push(stdcall(
        "NtQuerySystemInformation",
        sysinfo::NtQuerySystemInformation,
    ));
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_crt_function_exists_in_msvcrt() {
        let names: Vec<&str> = (crate::msvcrt::DLL.exports)()
            .iter()
            .map(|e| e.name)
            .collect();
        for n in super::CRT {
            assert!(names.contains(n), "msvcrt has no {n}");
        }
    }
}
