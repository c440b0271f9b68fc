//! ADVAPI32 security: access tokens and privileges, and file security descriptors.
//!
//! The process runs as an ordinary (not elevated) user: its token holds the
//! privileges Windows gives such a user (shutdown, change notify, undock, increase
//! working set, time zone), with only SeChangeNotifyPrivilege enabled. A program that
//! asks to enable anything else (SeLockMemoryPrivilege for large pages,
//! SeSecurityPrivilege, SeCreateSymbolicLinkPrivilege) gets ERROR_NOT_ALL_ASSIGNED,
//! exactly as on Windows for such a user, and takes its fallback path.
//!
//! The sandboxed file system keeps no security descriptors (like a FAT volume), so
//! GetFileSecurity/SetFileSecurity fail with ERROR_NOT_SUPPORTED.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::misc::err;
use crate::kernel32::string::{read_ansi, read_wstr};
use crate::objects::{CURRENT_PROCESS, CURRENT_THREAD, KernelObject};
use crate::teb::set_last_error;
use std::sync::Mutex;

const ERROR_NO_TOKEN: u32 = 1008;
const ERROR_NOT_ALL_ASSIGNED: u32 = 1300;
const ERROR_NO_SUCH_PRIVILEGE: u32 = 1313;
const RPC_S_SERVER_UNAVAILABLE: u32 = 1722;

const SE_PRIVILEGE_ENABLED_BY_DEFAULT: u32 = 0x1;
const SE_PRIVILEGE_ENABLED: u32 = 0x2;
const SE_PRIVILEGE_REMOVED: u32 = 0x4;

/// The privilege names of winnt.h with the LUIDs Windows assigns them (the low
/// part; the high part is 0), in LUID order from 2.
const PRIVILEGES: [&str; 34] = [
    "SeCreateTokenPrivilege",
    "SeAssignPrimaryTokenPrivilege",
    "SeLockMemoryPrivilege",
    "SeIncreaseQuotaPrivilege",
    "SeMachineAccountPrivilege",
    "SeTcbPrivilege",
    "SeSecurityPrivilege",
    "SeTakeOwnershipPrivilege",
    "SeLoadDriverPrivilege",
    "SeSystemProfilePrivilege",
    "SeSystemtimePrivilege",
    "SeProfileSingleProcessPrivilege",
    "SeIncreaseBasePriorityPrivilege",
    "SeCreatePagefilePrivilege",
    "SeCreatePermanentPrivilege",
    "SeBackupPrivilege",
    "SeRestorePrivilege",
    "SeShutdownPrivilege",
    "SeDebugPrivilege",
    "SeAuditPrivilege",
    "SeSystemEnvironmentPrivilege",
    "SeChangeNotifyPrivilege",
    "SeRemoteShutdownPrivilege",
    "SeUndockPrivilege",
    "SeSyncAgentPrivilege",
    "SeEnableDelegationPrivilege",
    "SeManageVolumePrivilege",
    "SeImpersonatePrivilege",
    "SeCreateGlobalPrivilege",
    "SeTrustedCredManAccessPrivilege",
    "SeRelabelPrivilege",
    "SeIncreaseWorkingSetPrivilege",
    "SeTimeZonePrivilege",
    "SeCreateSymbolicLinkPrivilege",
];

const FIRST_LUID: u32 = 2;

fn luid_of(name: &str) -> Option<u32> {
    PRIVILEGES
        .iter()
        .position(|p| p.eq_ignore_ascii_case(name))
        .map(|k| k as u32 + FIRST_LUID)
}

/// A held privilege: its LUID and attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    luid: u32,
    attributes: u32,
}

/// The process's access token.
pub struct Token {
    held: Mutex<Vec<Held>>,
}

impl KernelObject for Token {
    fn type_name(&self) -> &'static str {
        "Token"
    }
}

impl Token {
    /// A standard user's token.
    fn standard_user() -> Token {
        let held = [
            ("SeShutdownPrivilege", 0),
            (
                "SeChangeNotifyPrivilege",
                SE_PRIVILEGE_ENABLED | SE_PRIVILEGE_ENABLED_BY_DEFAULT,
            ),
            ("SeUndockPrivilege", 0),
            ("SeIncreaseWorkingSetPrivilege", 0),
            ("SeTimeZonePrivilege", 0),
        ]
        .iter()
        .filter_map(|&(n, attributes)| luid_of(n).map(|luid| Held { luid, attributes }))
        .collect();
        Token {
            held: Mutex::new(held),
        }
    }
}

pub fn OpenProcessToken(
    cx: &mut Ctx,
    ProcessHandle: u32,
    _DesiredAccess: u32,
    TokenHandle: Ptr,
) -> ApiResult<bool> {
    if ProcessHandle != CURRENT_PROCESS {
        // The only process is this one, and no real handle to it is handed out.
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    let h = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(std::sync::Arc::new(Token::standard_user()));
    cx.proc.mem.write_u32(TokenHandle.0, h)?;
    Ok(true)
}

/// No thread impersonates, so no thread has a token of its own.
pub fn OpenThreadToken(
    cx: &mut Ctx,
    ThreadHandle: u32,
    _DesiredAccess: u32,
    _OpenAsSelf: bool,
    _TokenHandle: Ptr,
) -> ApiResult<bool> {
    let e = if ThreadHandle == CURRENT_THREAD {
        ERROR_NO_TOKEN
    } else {
        let known = cx
            .proc
            .handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(ThreadHandle)
            .is_some();
        if known {
            ERROR_NO_TOKEN
        } else {
            err::ERROR_INVALID_HANDLE
        }
    };
    set_last_error(cx, e)?;
    Ok(false)
}

fn lookup_privilege(
    cx: &mut Ctx,
    system: Option<String>,
    name: &str,
    lpLuid: Ptr,
) -> ApiResult<bool> {
    if system.is_some_and(|s| !s.is_empty()) {
        set_last_error(cx, RPC_S_SERVER_UNAVAILABLE)?;
        return Ok(false);
    }
    match luid_of(name) {
        Some(luid) => {
            cx.proc.mem.write_u32(lpLuid.0, luid)?;
            cx.proc.mem.write_u32(lpLuid.0 + 4, 0)?;
            Ok(true)
        }
        None => {
            set_last_error(cx, ERROR_NO_SUCH_PRIVILEGE)?;
            Ok(false)
        }
    }
}

pub fn LookupPrivilegeValueW(
    cx: &mut Ctx,
    lpSystemName: Ptr,
    lpName: Ptr,
    lpLuid: Ptr,
) -> ApiResult<bool> {
    let system = if lpSystemName.is_null() {
        None
    } else {
        Some(read_wstr(cx.proc, lpSystemName.0)?)
    };
    let name = read_wstr(cx.proc, lpName.0)?;
    lookup_privilege(cx, system, &name, lpLuid)
}

pub fn LookupPrivilegeValueA(
    cx: &mut Ctx,
    lpSystemName: Ptr,
    lpName: Ptr,
    lpLuid: Ptr,
) -> ApiResult<bool> {
    let system = if lpSystemName.is_null() {
        None
    } else {
        Some(read_ansi(cx.proc, lpSystemName.0)?)
    };
    let name = read_ansi(cx.proc, lpName.0)?;
    lookup_privilege(cx, system, &name, lpLuid)
}

/// TOKEN_PRIVILEGES bytes: a count, then (LUID low, LUID high, attributes) triples.
fn token_privileges_bytes(list: &[Held]) -> Vec<u8> {
    let mut b = (list.len() as u32).to_le_bytes().to_vec();
    for h in list {
        b.extend_from_slice(&h.luid.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&h.attributes.to_le_bytes());
    }
    b
}

/// Enables or disables held privileges. Succeeds even when some requested
/// privileges are not held; the last error (ERROR_NOT_ALL_ASSIGNED or
/// ERROR_SUCCESS) says whether all were, as on Windows. PreviousState receives the
/// prior state of the privileges that changed.
pub fn AdjustTokenPrivileges(
    cx: &mut Ctx,
    TokenHandle: u32,
    DisableAllPrivileges: bool,
    NewState: Ptr,
    BufferLength: u32,
    PreviousState: Ptr,
    ReturnLength: Ptr,
) -> ApiResult<bool> {
    let token = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<Token>(TokenHandle);
    let Some(token) = token else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let mut requests = Vec::new();
    if !DisableAllPrivileges {
        if NewState.is_null() {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            return Ok(false);
        }
        let n = cx.proc.mem.read_u32(NewState.0)?;
        for k in 0..n {
            let at = NewState.0 + 4 + 12 * k;
            let low = cx.proc.mem.read_u32(at)?;
            let high = cx.proc.mem.read_u32(at + 4)?;
            let attributes = cx.proc.mem.read_u32(at + 8)?;
            requests.push((low, high, attributes));
        }
    }
    let mut held = token.held.lock().unwrap_or_else(|e| e.into_inner());
    // Work out the new state before changing anything: a too-small PreviousState
    // buffer must leave the token as it was.
    let mut next = held.clone();
    let mut previous = Vec::new();
    let mut all_assigned = true;
    if DisableAllPrivileges {
        for h in next.iter_mut() {
            if h.attributes & SE_PRIVILEGE_ENABLED != 0 {
                previous.push(*h);
                h.attributes &= !SE_PRIVILEGE_ENABLED;
            }
        }
    } else {
        for (low, high, attributes) in requests {
            let slot = if high == 0 {
                next.iter().position(|h| h.luid == low)
            } else {
                None
            };
            let Some(k) = slot else {
                all_assigned = false;
                continue;
            };
            let before = next[k];
            if attributes & SE_PRIVILEGE_REMOVED != 0 {
                previous.push(before);
                next.remove(k);
                continue;
            }
            let enabled = attributes & SE_PRIVILEGE_ENABLED != 0;
            if enabled != (before.attributes & SE_PRIVILEGE_ENABLED != 0) {
                previous.push(before);
                if enabled {
                    next[k].attributes |= SE_PRIVILEGE_ENABLED;
                } else {
                    next[k].attributes &= !SE_PRIVILEGE_ENABLED;
                }
            }
        }
    }
    if !PreviousState.is_null() {
        let bytes = token_privileges_bytes(&previous);
        if !ReturnLength.is_null() {
            cx.proc.mem.write_u32(ReturnLength.0, bytes.len() as u32)?;
        }
        if (bytes.len() as u32) > BufferLength {
            drop(held);
            set_last_error(cx, err::ERROR_INSUFFICIENT_BUFFER)?;
            return Ok(false);
        }
        cx.proc.mem.write_bytes(PreviousState.0, &bytes)?;
    }
    *held = next;
    drop(held);
    set_last_error(
        cx,
        if all_assigned {
            err::ERROR_SUCCESS
        } else {
            ERROR_NOT_ALL_ASSIGNED
        },
    )?;
    Ok(true)
}

pub fn GetFileSecurityW(
    cx: &mut Ctx,
    _lpFileName: Ptr,
    _RequestedInformation: u32,
    _pSecurityDescriptor: Ptr,
    _nLength: u32,
    _lpnLengthNeeded: Ptr,
) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_NOT_SUPPORTED)?;
    Ok(false)
}

pub fn GetFileSecurityA(
    cx: &mut Ctx,
    lpFileName: Ptr,
    RequestedInformation: u32,
    pSecurityDescriptor: Ptr,
    nLength: u32,
    lpnLengthNeeded: Ptr,
) -> ApiResult<bool> {
    GetFileSecurityW(
        cx,
        lpFileName,
        RequestedInformation,
        pSecurityDescriptor,
        nLength,
        lpnLengthNeeded,
    )
}

pub fn SetFileSecurityW(
    cx: &mut Ctx,
    _lpFileName: Ptr,
    _SecurityInformation: u32,
    _pSecurityDescriptor: Ptr,
) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_NOT_SUPPORTED)?;
    Ok(false)
}

pub fn SetFileSecurityA(
    cx: &mut Ctx,
    lpFileName: Ptr,
    SecurityInformation: u32,
    pSecurityDescriptor: Ptr,
) -> ApiResult<bool> {
    SetFileSecurityW(cx, lpFileName, SecurityInformation, pSecurityDescriptor)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("OpenProcessToken", OpenProcessToken),
        stdcall("OpenThreadToken", OpenThreadToken),
        stdcall("LookupPrivilegeValueW", LookupPrivilegeValueW),
        stdcall("LookupPrivilegeValueA", LookupPrivilegeValueA),
        stdcall("AdjustTokenPrivileges", AdjustTokenPrivileges),
        stdcall("GetFileSecurityW", GetFileSecurityW),
        stdcall("GetFileSecurityA", GetFileSecurityA),
        stdcall("SetFileSecurityW", SetFileSecurityW),
        stdcall("SetFileSecurityA", SetFileSecurityA),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    fn open(h: &mut Harness) -> u32 {
        let p = h.scratch(4);
        assert!(OpenProcessToken(&mut h.cx(), CURRENT_PROCESS, 0x28, Ptr(p)).unwrap());
        h.u32(p)
    }

    #[test]
    fn privilege_luids_match_winnt() {
        let mut h = Harness::new();
        let s = h.scratch(128);
        let luid = s + 96;
        // winnt.h: SE_LOCK_MEMORY_PRIVILEGE 4, SE_SECURITY_PRIVILEGE 8,
        // SE_CHANGE_NOTIFY_PRIVILEGE 23, SE_CREATE_SYMBOLIC_LINK_PRIVILEGE 35.
        for (name, want) in [
            ("SeLockMemoryPrivilege", 4),
            ("SeSecurityPrivilege", 8),
            ("sechangenotifyprivilege", 23),
            ("SeCreateSymbolicLinkPrivilege", 35),
        ] {
            h.put_wstr(s, name);
            assert!(LookupPrivilegeValueW(&mut h.cx(), Ptr(0), Ptr(s), Ptr(luid)).unwrap());
            assert_eq!((h.u32(luid), h.u32(luid + 4)), (want, 0), "{name}");
        }
        h.put_wstr(s, "SeNoSuchPrivilege");
        assert!(!LookupPrivilegeValueW(&mut h.cx(), Ptr(0), Ptr(s), Ptr(luid)).unwrap());
        assert_eq!(h.last_error(), ERROR_NO_SUCH_PRIVILEGE);
    }

    fn request(h: &Harness, at: u32, luid: u32, attributes: u32) {
        h.proc.mem.write_u32(at, 1).unwrap();
        h.proc.mem.write_u32(at + 4, luid).unwrap();
        h.proc.mem.write_u32(at + 8, 0).unwrap();
        h.proc.mem.write_u32(at + 12, attributes).unwrap();
    }

    #[test]
    fn unheld_privilege_is_not_all_assigned() {
        let mut h = Harness::new();
        let tok = open(&mut h);
        let s = h.scratch(64);
        request(&h, s, 4, SE_PRIVILEGE_ENABLED);
        assert!(AdjustTokenPrivileges(&mut h.cx(), tok, false, Ptr(s), 0, Ptr(0), Ptr(0)).unwrap());
        assert_eq!(h.last_error(), ERROR_NOT_ALL_ASSIGNED);
    }

    #[test]
    fn held_privilege_toggles_and_reports_previous_state() {
        let mut h = Harness::new();
        let tok = open(&mut h);
        let s = h.scratch(64);
        let prev = s + 32;
        let len = s + 60;
        // SeShutdownPrivilege (19) is held but disabled.
        request(&h, s, 19, SE_PRIVILEGE_ENABLED);
        assert!(
            AdjustTokenPrivileges(&mut h.cx(), tok, false, Ptr(s), 16, Ptr(prev), Ptr(len))
                .unwrap()
        );
        assert_eq!(h.last_error(), err::ERROR_SUCCESS);
        assert_eq!(h.u32(len), 16);
        assert_eq!((h.u32(prev), h.u32(prev + 4), h.u32(prev + 12)), (1, 19, 0));
        // Enabling it again changes nothing, so nothing is reported.
        assert!(
            AdjustTokenPrivileges(&mut h.cx(), tok, false, Ptr(s), 16, Ptr(prev), Ptr(len))
                .unwrap()
        );
        assert_eq!((h.u32(len), h.u32(prev)), (4, 0));
    }

    #[test]
    fn small_previous_state_buffer_changes_nothing() {
        let mut h = Harness::new();
        let tok = open(&mut h);
        let s = h.scratch(64);
        request(&h, s, 19, SE_PRIVILEGE_ENABLED);
        let len = s + 60;
        assert!(
            !AdjustTokenPrivileges(&mut h.cx(), tok, false, Ptr(s), 4, Ptr(s + 32), Ptr(len))
                .unwrap()
        );
        assert_eq!(h.last_error(), err::ERROR_INSUFFICIENT_BUFFER);
        assert_eq!(h.u32(len), 16);
        // Still disabled: enabling reports the change.
        assert!(
            AdjustTokenPrivileges(&mut h.cx(), tok, false, Ptr(s), 16, Ptr(s + 32), Ptr(len))
                .unwrap()
        );
        assert_eq!(h.u32(len), 16);
    }
}
