//! The processes winterp knows, as the Tool Help snapshots (CreateToolhelp32Snapshot,
//! Process32First/Next, Thread32First/Next) and NTDLL's SystemProcessInformation
//! list them: the System Idle Process and System, which Windows NT always lists,
//! this process, and the children it started that still run. A process knows
//! nothing of its parent's other children or of processes outside winterp.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::objects::KernelObject;
use crate::teb::set_last_error;
use std::sync::{Arc, Mutex};

use super::createprocess::{IDLE_PROCESS_ID, SYSTEM_PROCESS_ID, children, own_process_id};
use super::misc::err;

/// One process of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcEntry {
    pub pid: u32,
    pub parent: u32,
    /// The image's file name (`None` for the System Idle Process, which has none).
    pub name: Option<String>,
    /// Thread ids (one for a child: its main thread, the only one its parent knows).
    pub threads: Vec<u32>,
    pub base_priority: u32,
    /// This process (its handle count and times are known).
    pub own: bool,
}

/// Priority class base of a normal process, and of System.
const NORMAL_BASE: u32 = 8;

/// The list, in the order Windows gives it (the idle process, System, then by
/// creation).
pub fn processes(cx: &mut Ctx) -> Vec<ProcEntry> {
    let own = own_process_id(cx.proc);
    let name = cx
        .proc
        .config
        .guest_path
        .rsplit('\\')
        .next()
        .unwrap_or("")
        .to_string();
    let mut tids: Vec<u32> = cx.proc.sched.threads().iter().map(|t| t.tid).collect();
    if !tids.contains(&cx.thread.tid) {
        tids.insert(0, cx.thread.tid);
    }
    let parent = cx
        .proc
        .config
        .child
        .as_ref()
        .map_or(0, |c| c.parent_process_id);
    let mut v = vec![
        ProcEntry {
            pid: IDLE_PROCESS_ID,
            parent: 0,
            name: None,
            threads: vec![0],
            base_priority: 0,
            own: false,
        },
        ProcEntry {
            pid: SYSTEM_PROCESS_ID,
            parent: 0,
            name: Some("System".into()),
            threads: vec![8],
            base_priority: NORMAL_BASE,
            own: false,
        },
        ProcEntry {
            pid: own,
            parent,
            name: Some(name),
            threads: tids,
            base_priority: NORMAL_BASE,
            own: true,
        },
    ];
    for c in children(cx.proc) {
        if c.exit_code().is_none() {
            v.push(ProcEntry {
                pid: c.pid,
                parent: c.parent_pid,
                name: Some(c.name.clone()),
                threads: vec![crate::process::FIRST_THREAD_ID],
                base_priority: NORMAL_BASE,
                own: false,
            });
        }
    }
    v
}

/// A Tool Help snapshot: the list as it was when taken, and the enumeration
/// positions.
struct Snapshot {
    procs: Vec<ProcEntry>,
    /// (process, thread id) pairs.
    threads: Vec<(u32, u32)>,
    next_proc: Mutex<usize>,
    next_thread: Mutex<usize>,
}

impl KernelObject for Snapshot {
    fn type_name(&self) -> &'static str {
        "ToolhelpSnapshot"
    }
}

const TH32CS_SNAPPROCESS: u32 = 0x2;
const TH32CS_SNAPTHREAD: u32 = 0x4;

/// Any flags: the process and thread lists are always taken (heap and module lists
/// are not kept, and their enumeration functions report themselves unimplemented).
pub fn CreateToolhelp32Snapshot(cx: &mut Ctx, dwFlags: u32, _th32ProcessID: u32) -> ApiResult<u32> {
    let procs = processes(cx);
    let threads = if dwFlags & TH32CS_SNAPTHREAD != 0 {
        procs
            .iter()
            .filter(|p| p.pid != IDLE_PROCESS_ID)
            .flat_map(|p| p.threads.iter().map(move |t| (p.pid, *t)))
            .collect()
    } else {
        Vec::new()
    };
    let procs = if dwFlags & TH32CS_SNAPPROCESS != 0 {
        procs
    } else {
        Vec::new()
    };
    let snap = Snapshot {
        procs,
        threads,
        next_proc: Mutex::new(0),
        next_thread: Mutex::new(0),
    };
    Ok(cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(Arc::new(snap)))
}

fn snapshot(cx: &Ctx, h: u32) -> Option<Arc<Snapshot>> {
    cx.proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_as::<Snapshot>(h)
}

/// PROCESSENTRY32 (A: 296 bytes, W: 556): the entry at the position, which then
/// moves on; ERROR_NO_MORE_FILES after the last.
fn process_entry(cx: &mut Ctx, h: u32, p: u32, first: bool, wide: bool) -> ApiResult<bool> {
    let size = if wide { 556 } else { 296 };
    let Some(s) = snapshot(cx, h) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if p == 0 || cx.proc.mem.read_u32(p)? < size {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let e = {
        let mut k = s.next_proc.lock().unwrap_or_else(|e| e.into_inner());
        if first {
            *k = 0;
        }
        let e = s.procs.get(*k).cloned();
        *k += 1;
        e
    };
    let Some(e) = e else {
        set_last_error(cx, err::ERROR_NO_MORE_FILES)?;
        return Ok(false);
    };
    let mut b = vec![0u8; size as usize];
    let vals = [
        size,
        0,
        e.pid,
        0,
        0,
        e.threads.len() as u32,
        e.parent,
        e.base_priority,
        0,
    ];
    for (k, v) in vals.iter().enumerate() {
        b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    // XP names the idle process "[System Process]" here.
    let name = e.name.unwrap_or_else(|| "[System Process]".into());
    if wide {
        for (k, u) in name.encode_utf16().take(259).enumerate() {
            b[36 + 2 * k..38 + 2 * k].copy_from_slice(&u.to_le_bytes());
        }
    } else {
        let a = super::string::encode_ansi(&name);
        let n = a.len().min(259);
        b[36..36 + n].copy_from_slice(&a[..n]);
    }
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(true)
}

pub fn Process32First(cx: &mut Ctx, hSnapshot: u32, lppe: Ptr) -> ApiResult<bool> {
    process_entry(cx, hSnapshot, lppe.0, true, false)
}

pub fn Process32Next(cx: &mut Ctx, hSnapshot: u32, lppe: Ptr) -> ApiResult<bool> {
    process_entry(cx, hSnapshot, lppe.0, false, false)
}

pub fn Process32FirstW(cx: &mut Ctx, hSnapshot: u32, lppe: Ptr) -> ApiResult<bool> {
    process_entry(cx, hSnapshot, lppe.0, true, true)
}

pub fn Process32NextW(cx: &mut Ctx, hSnapshot: u32, lppe: Ptr) -> ApiResult<bool> {
    process_entry(cx, hSnapshot, lppe.0, false, true)
}

/// THREADENTRY32 (28 bytes).
fn thread_entry(cx: &mut Ctx, h: u32, p: u32, first: bool) -> ApiResult<bool> {
    let Some(s) = snapshot(cx, h) else {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if p == 0 || cx.proc.mem.read_u32(p)? < 28 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let e = {
        let mut k = s.next_thread.lock().unwrap_or_else(|e| e.into_inner());
        if first {
            *k = 0;
        }
        let e = s.threads.get(*k).copied();
        *k += 1;
        e
    };
    let Some((pid, tid)) = e else {
        set_last_error(cx, err::ERROR_NO_MORE_FILES)?;
        return Ok(false);
    };
    let mut b = [0u8; 28];
    for (k, v) in [28, 0, tid, pid, NORMAL_BASE, 0, 0].iter().enumerate() {
        b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    cx.proc.mem.write_bytes(p, &b)?;
    Ok(true)
}

pub fn Thread32First(cx: &mut Ctx, hSnapshot: u32, lpte: Ptr) -> ApiResult<bool> {
    thread_entry(cx, hSnapshot, lpte.0, true)
}

pub fn Thread32Next(cx: &mut Ctx, hSnapshot: u32, lpte: Ptr) -> ApiResult<bool> {
    thread_entry(cx, hSnapshot, lpte.0, false)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateToolhelp32Snapshot", CreateToolhelp32Snapshot),
        stdcall("Process32First", Process32First),
        stdcall("Process32Next", Process32Next),
        stdcall("Process32FirstW", Process32FirstW),
        stdcall("Process32NextW", Process32NextW),
        stdcall("Thread32First", Thread32First),
        stdcall("Thread32Next", Thread32Next),
    ]
}
