//! dplayx.dll: DirectPlay (IDirectPlay, IDirectPlay2/3/4 in A and W) and the
//! DirectPlay lobby (IDirectPlayLobby 1/2/3, A and W), as far as a game goes
//! before it is online.
//!
//! The emulated machine is a default DirectX 6+ install without a network: the four
//! service providers Windows registers (Serial, Modem, IPX, Internet TCP/IP) are
//! listed by DirectPlayEnumerate and EnumConnections, in the order Windows lists
//! them (Wine's conformance tests, which pass on Windows, expect Serial, Modem, IPX,
//! TCP/IP from EnumConnections; Wine itself lists them in registry order). Only
//! TCP/IP can be initialised (there is no IPX protocol, modem or serial port); it
//! finds no session, and hosting or joining one fails with the documented
//! DirectPlay errors. The program is never launched by a lobby
//! (DPERR_NOTLOBBIED). Methods a program can only reach with a session open stop
//! the program with a report naming them.
//!
//! Interfaces are COM objects built with [`crate::hle::com`]: each interface
//! pointer is a small heap block whose vtable holds HLE exports named
//! `Interface::Method`; one object serves every interface of its kind.

#![allow(non_snake_case)]
// COM method signatures are fixed by dplay.h and dplobby.h.
#![allow(clippy::too_many_arguments)]

pub mod address;
pub mod lobby;
pub mod play;
#[cfg(test)]
mod tests;

use crate::hle::com::{self, Guid};
use crate::hle::{ApiDef, ApiError, ApiResult, Conv, Ctx, ExportKind, HleDll, Outcome, Ptr};
use crate::process::Process;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

pub const DLL: HleDll = HleDll {
    name: "dplayx.dll",
    exports,
    attach: None,
};

const DLL_NAME: &str = "dplayx.dll";

const fn dperr(code: u32) -> u32 {
    0x8877_0000 | code
}
pub const DP_OK: u32 = 0;
pub const DPERR_ALREADYINITIALIZED: u32 = dperr(5);
pub const DPERR_BUFFERTOOSMALL: u32 = dperr(30);
pub const DPERR_INVALIDFLAGS: u32 = dperr(120);
pub const DPERR_INVALIDOBJECT: u32 = dperr(130);
pub const DPERR_INVALIDPARAMS: u32 = com::E_INVALIDARG;
pub const DPERR_NOSESSIONS: u32 = dperr(220);
pub const DPERR_UNAVAILABLE: u32 = dperr(250);
pub const DPERR_UNINITIALIZED: u32 = dperr(320);
pub const DPERR_NOTLOBBIED: u32 = dperr(1070);

/// The CLSIDs of the DLL's classes (dplay.h, dplobby.h).
pub const CLSID_DIRECTPLAY: Guid = Guid::new(
    0xd1eb6d20,
    0x8923,
    0x11d0,
    [0x9d, 0x97, 0x00, 0xa0, 0xc9, 0x0a, 0x43, 0xcb],
);
pub const CLSID_DIRECTPLAYLOBBY: Guid = Guid::new(
    0x2fe8f810,
    0xb2a5,
    0x11d0,
    [0xa7, 0x87, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
);

/// GUID_NULL.
pub const GUID_NULL: Guid = Guid([0; 16]);

/// A service provider of a default DirectX install.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceProvider {
    pub guid: Guid,
    /// Its registry DescriptionA/DescriptionW.
    pub name: &'static str,
    /// Whether InitializeConnection can bind it on the emulated machine.
    pub usable: bool,
}

pub const DPSPGUID_IPX: Guid = Guid::new(
    0x685bc400,
    0x9d2c,
    0x11cf,
    [0xa9, 0xcd, 0x00, 0xaa, 0x00, 0x68, 0x86, 0xe3],
);
pub const DPSPGUID_TCPIP: Guid = Guid::new(
    0x36e95ee0,
    0x8577,
    0x11cf,
    [0x96, 0x0c, 0x00, 0x80, 0xc7, 0x53, 0x4e, 0x82],
);
pub const DPSPGUID_SERIAL: Guid = Guid::new(
    0x0f1d6860,
    0x88d9,
    0x11cf,
    [0x9c, 0x4e, 0x00, 0xa0, 0xc9, 0x05, 0x42, 0x5e],
);
pub const DPSPGUID_MODEM: Guid = Guid::new(
    0x44eaa760,
    0xcb68,
    0x11cf,
    [0x9c, 0x4e, 0x00, 0xa0, 0xc9, 0x05, 0x42, 0x5e],
);

/// The service providers, in the order Windows enumerates them.
pub const SERVICE_PROVIDERS: [ServiceProvider; 4] = [
    ServiceProvider {
        guid: DPSPGUID_SERIAL,
        name: "Serial Connection For DirectPlay",
        usable: false,
    },
    ServiceProvider {
        guid: DPSPGUID_MODEM,
        name: "Modem Connection For DirectPlay",
        usable: false,
    },
    ServiceProvider {
        guid: DPSPGUID_IPX,
        name: "IPX Connection For DirectPlay",
        usable: false,
    },
    ServiceProvider {
        guid: DPSPGUID_TCPIP,
        name: "Internet TCP/IP Connection For DirectPlay",
        usable: true,
    },
];

/// The service provider version DirectPlayEnumerate reports for every provider of
/// a DirectX 6+ install (6.0).
pub const SP_MAJOR_VERSION: u32 = 6;
pub const SP_MINOR_VERSION: u32 = 0;

pub fn service_provider(guid: &Guid) -> Option<usize> {
    SERVICE_PROVIDERS.iter().position(|s| s.guid == *guid)
}

/// One interface of the DLL: DirectPlay version 1..4 or lobby version 1..3, ANSI
/// or Unicode (IDirectPlay version 1 is ANSI only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Iface {
    Play { version: u8, ansi: bool },
    Lobby { version: u8, ansi: bool },
}

impl Iface {
    pub fn name(self) -> &'static str {
        match self {
            Iface::Play { version: 1, .. } => "IDirectPlay",
            Iface::Play { version: 2, ansi } => pick(ansi, "IDirectPlay2A", "IDirectPlay2"),
            Iface::Play { version: 3, ansi } => pick(ansi, "IDirectPlay3A", "IDirectPlay3"),
            Iface::Play { ansi, .. } => pick(ansi, "IDirectPlay4A", "IDirectPlay4"),
            Iface::Lobby { version: 1, ansi } => {
                pick(ansi, "IDirectPlayLobbyA", "IDirectPlayLobby")
            }
            Iface::Lobby { version: 2, ansi } => {
                pick(ansi, "IDirectPlayLobby2A", "IDirectPlayLobby2")
            }
            Iface::Lobby { ansi, .. } => pick(ansi, "IDirectPlayLobby3A", "IDirectPlayLobby3"),
        }
    }

    pub fn ansi(self) -> bool {
        match self {
            Iface::Play { ansi, .. } | Iface::Lobby { ansi, .. } => ansi,
        }
    }

    pub fn version(self) -> u8 {
        match self {
            Iface::Play { version, .. } | Iface::Lobby { version, .. } => version,
        }
    }

    /// Every interface, for the export list.
    pub fn all() -> Vec<Iface> {
        let mut v = vec![Iface::Play {
            version: 1,
            ansi: true,
        }];
        for version in 2..=4 {
            for ansi in [false, true] {
                v.push(Iface::Play { version, ansi });
            }
        }
        for version in 1..=3 {
            for ansi in [false, true] {
                v.push(Iface::Lobby { version, ansi });
            }
        }
        v
    }

    /// The method names of its vtable, in order, with the argument count of each
    /// (after `this`).
    pub fn methods(self) -> Vec<(&'static str, u8)> {
        match self {
            Iface::Play { version: 1, .. } => play::PLAY1_METHODS.to_vec(),
            Iface::Play { version, .. } => play::PLAY_METHODS
                .iter()
                .filter(|(v, _, _)| *v <= version)
                .map(|&(_, m, n)| (m, n))
                .collect(),
            Iface::Lobby { version, .. } => lobby::LOBBY_METHODS
                .iter()
                .filter(|(v, _, _)| *v <= version)
                .map(|&(_, m, n)| (m, n))
                .collect(),
        }
    }
}

fn pick(ansi: bool, a: &'static str, w: &'static str) -> &'static str {
    if ansi { a } else { w }
}

/// A DirectPlay object.
#[derive(Default)]
pub struct Play {
    /// The service provider InitializeConnection (or DirectPlayCreate) bound, an
    /// index into [`SERVICE_PROVIDERS`].
    pub sp: Option<usize>,
}

/// A COM object of the DLL.
pub enum Kind {
    Play(Play),
    Lobby,
}

pub struct Object {
    pub refs: u32,
    pub kind: Kind,
    /// The interface it was created as: what QueryInterface(IID_IUnknown) gives,
    /// the same pointer every time, as COM identity requires.
    pub primary: Iface,
    /// Its interface pointers.
    pub ptrs: HashMap<Iface, u32>,
}

/// Guest copies of what the enumerations hand out, made once per process: callers
/// may keep the GUID pointers after the enumeration returns.
#[derive(Clone, Copy, Debug)]
pub struct SpStrings {
    pub guid: u32,
    pub name_a: u32,
    pub name_w: u32,
    /// The connection address EnumConnections offers for it.
    pub connection: u32,
    pub connection_size: u32,
    /// DPNAME structures (ANSI and Unicode) naming it.
    pub dpname_a: u32,
    pub dpname_w: u32,
}

/// Per-process DirectPlay state.
#[derive(Default)]
pub struct Inner {
    next: u32,
    pub objects: HashMap<u32, Object>,
    /// Interface pointer -> (object, interface).
    pub ifaces: HashMap<u32, (u32, Iface)>,
    pub sp_strings: Option<Vec<SpStrings>>,
}

fn state_of(proc: &Arc<Process>) -> Arc<Mutex<Inner>> {
    proc.slot::<Mutex<Inner>>()
}

/// Runs `f` on the process's DirectPlay state (no guest code may run inside).
pub fn with_state<T>(proc: &Arc<Process>, f: impl FnOnce(&mut Inner) -> T) -> T {
    let s = state_of(proc);
    let mut g: MutexGuard<'_, Inner> = s.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// A new object with one interface pointer (one reference).
pub fn new_object(proc: &Arc<Process>, kind: Kind, iface: Iface) -> ApiResult<u32> {
    with_state(proc, |g| {
        g.next += 1;
        let id = g.next;
        g.objects.insert(
            id,
            Object {
                refs: 1,
                kind,
                primary: iface,
                ptrs: HashMap::new(),
            },
        );
        pointer(proc, g, id, iface)
    })
}

/// The interface pointer of `iface` on object `id` (made on first use). Does not
/// count a reference.
pub fn pointer(proc: &Arc<Process>, g: &mut Inner, id: u32, iface: Iface) -> ApiResult<u32> {
    if let Some(&p) = g.objects.get(&id).and_then(|o| o.ptrs.get(&iface)) {
        return Ok(p);
    }
    let names: Vec<&'static str> = iface.methods().iter().map(|(m, _)| *m).collect();
    let vt = com::vtable(proc, DLL_NAME, iface.name(), &names)?;
    let p = com::new_object(proc, vt, id, 8)?;
    g.ifaces.insert(p, (id, iface));
    if let Some(o) = g.objects.get_mut(&id) {
        o.ptrs.insert(iface, p);
    }
    Ok(p)
}

/// The object and interface behind an interface pointer.
pub fn lookup(proc: &Arc<Process>, this: u32) -> Option<(u32, Iface)> {
    with_state(proc, |g| g.ifaces.get(&this).copied())
}

/// The interface an IID names, if it is one of `play`'s family (DirectPlay or
/// lobby).
pub fn iface_of_iid(iid: &Guid, play: bool) -> Option<Iface> {
    let table: &[(Guid, Iface)] = if play {
        &play::PLAY_IIDS
    } else {
        &lobby::LOBBY_IIDS
    };
    table.iter().find(|(g, _)| g == iid).map(|(_, i)| *i)
}

// ---- IUnknown, shared by every interface ----------------------------------------------

pub fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppvObj: Ptr) -> ApiResult<u32> {
    if ppvObj.is_null() || riid.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let Ok(iid) = Guid::read(cx.proc, riid.0) else {
        return Ok(DPERR_INVALIDPARAMS);
    };
    let proc = cx.proc.clone();
    let r = with_state(&proc, |g| -> ApiResult<Result<u32, u32>> {
        let Some(&(id, iface)) = g.ifaces.get(&this) else {
            return Ok(Err(DPERR_INVALIDOBJECT));
        };
        let Some(o) = g.objects.get(&id) else {
            return Ok(Err(DPERR_INVALIDOBJECT));
        };
        let want = if iid == com::IID_IUNKNOWN {
            Some(o.primary)
        } else {
            iface_of_iid(&iid, matches!(iface, Iface::Play { .. }))
        };
        let Some(want) = want else {
            return Ok(Err(com::E_NOINTERFACE));
        };
        let p = pointer(&proc, g, id, want)?;
        if let Some(o) = g.objects.get_mut(&id) {
            o.refs += 1;
        }
        Ok(Ok(p))
    })?;
    match r {
        Ok(p) => {
            cx.proc.mem.write_u32(ppvObj.0, p)?;
            Ok(DP_OK)
        }
        Err(h) => {
            if h == com::E_NOINTERFACE {
                let _ = cx.proc.mem.write_u32(ppvObj.0, 0);
            }
            Ok(h)
        }
    }
}

pub fn AddRef(cx: &mut Ctx, this: u32) -> u32 {
    with_state(cx.proc, |g| {
        let Some(&(id, _)) = g.ifaces.get(&this) else {
            return 0;
        };
        match g.objects.get_mut(&id) {
            Some(o) => {
                o.refs += 1;
                o.refs
            }
            None => 0,
        }
    })
}

pub fn Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let freed = with_state(cx.proc, |g| {
        let Some(&(id, _)) = g.ifaces.get(&this) else {
            return (0, Vec::new());
        };
        let Some(o) = g.objects.get_mut(&id) else {
            return (0, Vec::new());
        };
        o.refs = o.refs.saturating_sub(1);
        if o.refs > 0 {
            return (o.refs, Vec::new());
        }
        let o = g.objects.remove(&id).expect("looked up above");
        let ptrs: Vec<u32> = o.ptrs.values().copied().collect();
        for p in &ptrs {
            g.ifaces.remove(p);
        }
        (0, ptrs)
    });
    for p in freed.1 {
        com::free_object(cx.proc, p)?;
    }
    Ok(freed.0)
}

// ---- text and enumeration data in guest memory -----------------------------------------

pub fn ansi_bytes(s: &str) -> Vec<u8> {
    s.bytes().chain(std::iter::once(0)).collect()
}

pub fn wide_bytes(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain(std::iter::once(0))
        .flat_map(|u| u.to_le_bytes())
        .collect()
}

/// The guest copies of the service providers' GUIDs, names and connections.
pub fn sp_strings(proc: &Arc<Process>) -> ApiResult<Vec<SpStrings>> {
    if let Some(s) = with_state(proc, |g| g.sp_strings.clone()) {
        return Ok(s);
    }
    let heap = crate::kernel32::heap::process_heap(proc)?;
    let mut out = Vec::new();
    for sp in SERVICE_PROVIDERS {
        let a = ansi_bytes(sp.name);
        let w = wide_bytes(sp.name);
        let conn = address::connection(&sp.guid);
        let size = 16 + 16 + 16 + a.len() + w.len() + conn.len();
        let base = heap.alloc(size as u32, true)?;
        if base == 0 {
            return Err(ApiError::Other("dplayx: process heap exhausted".into()));
        }
        let guid = base;
        let dpname_a = base + 16;
        let dpname_w = base + 32;
        let name_a = base + 48;
        let name_w = name_a + a.len() as u32;
        let connection = name_w + w.len() as u32;
        sp.guid.write(proc, guid)?;
        proc.mem.write_bytes(name_a, &a)?;
        proc.mem.write_bytes(name_w, &w)?;
        proc.mem.write_bytes(connection, &conn)?;
        // DPNAME: dwSize, dwFlags, the short name, no long name.
        for (at, name) in [(dpname_a, name_a), (dpname_w, name_w)] {
            proc.mem.write_u32(at, 16)?;
            proc.mem.write_u32(at + 4, 0)?;
            proc.mem.write_u32(at + 8, name)?;
            proc.mem.write_u32(at + 12, 0)?;
        }
        out.push(SpStrings {
            guid,
            name_a,
            name_w,
            connection,
            connection_size: conn.len() as u32,
            dpname_a,
            dpname_w,
        });
    }
    with_state(proc, |g| g.sp_strings = Some(out.clone()));
    Ok(out)
}

// ---- the DLL's functions -----------------------------------------------------------------

/// DirectPlayCreate: an IDirectPlay (version 1) object, bound to the service
/// provider `lpGUID` names; GUID_NULL leaves it unbound (InitializeConnection
/// binds it later), a provider the machine cannot use gives DPERR_UNAVAILABLE.
pub fn DirectPlayCreate(cx: &mut Ctx, lpGUID: Ptr, lplpDP: Ptr, pUnk: Ptr) -> ApiResult<u32> {
    if !pUnk.is_null() {
        return Ok(com::CLASS_E_NOAGGREGATION);
    }
    if lplpDP.is_null() || lpGUID.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let Ok(guid) = Guid::read(cx.proc, lpGUID.0) else {
        return Ok(DPERR_INVALIDPARAMS);
    };
    let sp = if guid == GUID_NULL {
        None
    } else {
        match service_provider(&guid) {
            Some(k) if SERVICE_PROVIDERS[k].usable => Some(k),
            _ => return Ok(DPERR_UNAVAILABLE),
        }
    };
    let p = new_object(
        cx.proc,
        Kind::Play(Play { sp }),
        Iface::Play {
            version: 1,
            ansi: true,
        },
    )?;
    if cx.proc.mem.write_u32(lplpDP.0, p).is_err() {
        Release(cx, p)?;
        return Ok(DPERR_INVALIDPARAMS);
    }
    Ok(DP_OK)
}

/// CoCreateInstance(CLSID_DirectPlay): an unbound DirectPlay object, as the
/// interface `riid` names.
pub fn co_create_play(cx: &mut Ctx, riid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    co_create(cx, riid, ppv, true)
}

/// CoCreateInstance(CLSID_DirectPlayLobby).
pub fn co_create_lobby(cx: &mut Ctx, riid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    co_create(cx, riid, ppv, false)
}

fn co_create(cx: &mut Ctx, riid: &Guid, ppv: Ptr, play: bool) -> ApiResult<u32> {
    let iface = if *riid == com::IID_IUNKNOWN {
        // IUnknown of the class: its newest Unicode interface.
        Some(if play {
            Iface::Play {
                version: 4,
                ansi: false,
            }
        } else {
            Iface::Lobby {
                version: 3,
                ansi: false,
            }
        })
    } else {
        iface_of_iid(riid, play)
    };
    let Some(iface) = iface else {
        return Ok(com::E_NOINTERFACE);
    };
    let kind = if play {
        Kind::Play(Play::default())
    } else {
        Kind::Lobby
    };
    let p = new_object(cx.proc, kind, iface)?;
    if cx.proc.mem.write_u32(ppv.0, p).is_err() {
        Release(cx, p)?;
        return Ok(com::E_POINTER);
    }
    Ok(DP_OK)
}

/// Calls the program's callback for each service provider, with its GUID, name,
/// and version, until it returns FALSE.
fn enumerate(cx: &mut Ctx, cb: u32, ctx: u32, wide: bool) -> ApiResult<Outcome> {
    if cb == 0 {
        return Ok(Outcome::Return(u64::from(DPERR_INVALIDPARAMS)));
    }
    let strings = sp_strings(cx.proc)?;
    for s in strings {
        let name = if wide { s.name_w } else { s.name_a };
        let args = [s.guid, name, SP_MAJOR_VERSION, SP_MINOR_VERSION, ctx];
        match crate::msvcrt::state::call_guest(cx, cb, &args)? {
            Ok(0) => break,
            Ok(_) => {}
            Err(end) => return Ok(end),
        }
    }
    Ok(Outcome::Return(u64::from(DP_OK)))
}

pub fn DirectPlayEnumerateA(
    cx: &mut Ctx,
    lpEnumCallback: u32,
    lpContext: u32,
) -> ApiResult<Outcome> {
    enumerate(cx, lpEnumCallback, lpContext, false)
}

pub fn DirectPlayEnumerateW(
    cx: &mut Ctx,
    lpEnumCallback: u32,
    lpContext: u32,
) -> ApiResult<Outcome> {
    enumerate(cx, lpEnumCallback, lpContext, true)
}

fn lobby_create(
    cx: &mut Ctx,
    lpguidSP: Ptr,
    lplpDPL: Ptr,
    lpUnk: Ptr,
    lpData: Ptr,
    dwDataSize: u32,
    ansi: bool,
) -> ApiResult<u32> {
    if !lpUnk.is_null() {
        return Ok(com::CLASS_E_NOAGGREGATION);
    }
    // The service provider GUID and the data are reserved: NULL and zero.
    if !lpguidSP.is_null() || !lpData.is_null() || dwDataSize != 0 || lplpDPL.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let p = new_object(cx.proc, Kind::Lobby, Iface::Lobby { version: 1, ansi })?;
    if cx.proc.mem.write_u32(lplpDPL.0, p).is_err() {
        Release(cx, p)?;
        return Ok(DPERR_INVALIDPARAMS);
    }
    Ok(DP_OK)
}

pub fn DirectPlayLobbyCreateA(
    cx: &mut Ctx,
    lpguidSP: Ptr,
    lplpDPL: Ptr,
    lpUnk: Ptr,
    lpData: Ptr,
    dwDataSize: u32,
) -> ApiResult<u32> {
    lobby_create(cx, lpguidSP, lplpDPL, lpUnk, lpData, dwDataSize, true)
}

pub fn DirectPlayLobbyCreateW(
    cx: &mut Ctx,
    lpguidSP: Ptr,
    lplpDPL: Ptr,
    lpUnk: Ptr,
    lpData: Ptr,
    dwDataSize: u32,
) -> ApiResult<u32> {
    lobby_create(cx, lpguidSP, lplpDPL, lpUnk, lpData, dwDataSize, false)
}

/// gdwDPlaySPRefCount: how many service provider DLLs hold DirectPlay; none is
/// ever loaded here.
fn init_sp_ref_count(proc: &Arc<Process>, at: u32) -> ApiResult<()> {
    proc.mem.write_u32(at, 0)?;
    Ok(())
}

// ---- exports -------------------------------------------------------------------------

/// `Interface::Method` as a `'static` name (made once per name for the whole run).
pub fn method_name(iface: &str, method: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let full = format!("{iface}::{method}");
    let mut set = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&s) = set.get(full.as_str()) {
        return s;
    }
    let s: &'static str = Box::leak(full.into_boxed_str());
    set.insert(s);
    s
}

/// A method this DLL does not provide: stops the program naming it (with
/// `--stub-unimplemented`, returns 0 and pops its `nargs` arguments and `this`).
pub fn missing(name: &'static str, nargs: u8) -> ApiDef {
    ApiDef {
        name,
        ordinal: None,
        kind: ExportKind::Function {
            conv: Conv::Stdcall,
            nargs: nargs + 1,
            glue: Box::new(move |_, _| {
                Err(ApiError::Unimplemented {
                    dll: DLL_NAME.into(),
                    name: name.into(),
                })
            }),
        },
    }
}

fn exports() -> Vec<ApiDef> {
    use crate::hle::{data, stdcall};
    let mut v = vec![
        stdcall("DirectPlayCreate", DirectPlayCreate).ordinal(1),
        stdcall("DirectPlayEnumerateA", DirectPlayEnumerateA).ordinal(2),
        stdcall("DirectPlayEnumerateW", DirectPlayEnumerateW).ordinal(3),
        stdcall("DirectPlayLobbyCreateA", DirectPlayLobbyCreateA).ordinal(4),
        stdcall("DirectPlayLobbyCreateW", DirectPlayLobbyCreateW).ordinal(5),
        data("gdwDPlaySPRefCount", 4, init_sp_ref_count).ordinal(6),
        stdcall("DirectPlayEnumerate", DirectPlayEnumerateA).ordinal(9),
    ];
    for iface in Iface::all() {
        for (m, nargs) in iface.methods() {
            let name = method_name(iface.name(), m);
            let def = match iface {
                Iface::Play { version, .. } => play::method(name, version, m),
                Iface::Lobby { .. } => lobby::method(name, m),
            };
            v.push(def.unwrap_or_else(|| missing(name, nargs)));
        }
    }
    v
}
