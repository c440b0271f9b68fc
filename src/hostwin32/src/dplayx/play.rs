//! The DirectPlay object: IDirectPlay (version 1) and IDirectPlay2/3/4 (A and W).

use super::{
    DP_OK, DPERR_ALREADYINITIALIZED, DPERR_INVALIDFLAGS, DPERR_INVALIDOBJECT, DPERR_INVALIDPARAMS,
    DPERR_NOSESSIONS, DPERR_UNAVAILABLE, DPERR_UNINITIALIZED, Iface, Kind, SERVICE_PROVIDERS,
    with_state,
};
use crate::hle::com::Guid;
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};

const fn dp_guid(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Guid {
    Guid::new(d1, d2, d3, d4)
}

/// The DirectPlay IIDs (dplay.h) and the interface each names.
pub const PLAY_IIDS: [(Guid, Iface); 7] = [
    (
        dp_guid(
            0x5454e9a0,
            0xdb65,
            0x11ce,
            [0x92, 0x1c, 0x00, 0xaa, 0x00, 0x6c, 0x49, 0x72],
        ),
        Iface::Play {
            version: 1,
            ansi: true,
        },
    ),
    (
        dp_guid(
            0x2b74f7c0,
            0x9154,
            0x11cf,
            [0xa9, 0xcd, 0x00, 0xaa, 0x00, 0x68, 0x86, 0xe3],
        ),
        Iface::Play {
            version: 2,
            ansi: false,
        },
    ),
    (
        dp_guid(
            0x9d460580,
            0xa822,
            0x11cf,
            [0x96, 0x0c, 0x00, 0x80, 0xc7, 0x53, 0x4e, 0x82],
        ),
        Iface::Play {
            version: 2,
            ansi: true,
        },
    ),
    (
        dp_guid(
            0x133efe40,
            0x32dc,
            0x11d0,
            [0x9c, 0xfb, 0x00, 0xa0, 0xc9, 0x0a, 0x43, 0xcb],
        ),
        Iface::Play {
            version: 3,
            ansi: false,
        },
    ),
    (
        dp_guid(
            0x133efe41,
            0x32dc,
            0x11d0,
            [0x9c, 0xfb, 0x00, 0xa0, 0xc9, 0x0a, 0x43, 0xcb],
        ),
        Iface::Play {
            version: 3,
            ansi: true,
        },
    ),
    (
        dp_guid(
            0x0ab1c530,
            0x4745,
            0x11d1,
            [0xa7, 0xa1, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
        ),
        Iface::Play {
            version: 4,
            ansi: false,
        },
    ),
    (
        dp_guid(
            0x0ab1c531,
            0x4745,
            0x11d1,
            [0xa7, 0xa1, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
        ),
        Iface::Play {
            version: 4,
            ansi: true,
        },
    ),
];

/// IDirectPlay's vtable (dplay.h): method and argument count after `this`.
pub const PLAY1_METHODS: &[(&str, u8)] = &[
    ("QueryInterface", 2),
    ("AddRef", 0),
    ("Release", 0),
    ("AddPlayerToGroup", 2),
    ("Close", 0),
    ("CreatePlayer", 4),
    ("CreateGroup", 3),
    ("DeletePlayerFromGroup", 2),
    ("DestroyPlayer", 1),
    ("DestroyGroup", 1),
    ("EnableNewPlayers", 1),
    ("EnumGroupPlayers", 4),
    ("EnumGroups", 4),
    ("EnumPlayers", 4),
    ("EnumSessions", 5),
    ("GetCaps", 1),
    ("GetMessageCount", 2),
    ("GetPlayerCaps", 2),
    ("GetPlayerName", 5),
    ("Initialize", 1),
    ("Open", 1),
    ("Receive", 5),
    ("SaveSession", 1),
    ("Send", 5),
    ("SetPlayerName", 3),
];

/// IDirectPlay4's vtable with the version that introduced each method (the
/// IDirectPlay2 and IDirectPlay3 tables are its prefixes) and its argument count.
pub const PLAY_METHODS: &[(u8, &str, u8)] = &[
    (2, "QueryInterface", 2),
    (2, "AddRef", 0),
    (2, "Release", 0),
    (2, "AddPlayerToGroup", 2),
    (2, "Close", 0),
    (2, "CreateGroup", 5),
    (2, "CreatePlayer", 6),
    (2, "DeletePlayerFromGroup", 2),
    (2, "DestroyGroup", 1),
    (2, "DestroyPlayer", 1),
    (2, "EnumGroupPlayers", 5),
    (2, "EnumGroups", 4),
    (2, "EnumPlayers", 4),
    (2, "EnumSessions", 5),
    (2, "GetCaps", 2),
    (2, "GetGroupData", 4),
    (2, "GetGroupName", 3),
    (2, "GetMessageCount", 2),
    (2, "GetPlayerAddress", 3),
    (2, "GetPlayerCaps", 3),
    (2, "GetPlayerData", 4),
    (2, "GetPlayerName", 3),
    (2, "GetSessionDesc", 2),
    (2, "Initialize", 1),
    (2, "Open", 2),
    (2, "Receive", 5),
    (2, "Send", 5),
    (2, "SetGroupData", 4),
    (2, "SetGroupName", 3),
    (2, "SetPlayerData", 4),
    (2, "SetPlayerName", 3),
    (2, "SetSessionDesc", 2),
    (3, "AddGroupToGroup", 2),
    (3, "CreateGroupInGroup", 6),
    (3, "DeleteGroupFromGroup", 2),
    (3, "EnumConnections", 4),
    (3, "EnumGroupsInGroup", 5),
    (3, "GetGroupConnectionSettings", 4),
    (3, "InitializeConnection", 2),
    (3, "SecureOpen", 4),
    (3, "SendChatMessage", 4),
    (3, "SetGroupConnectionSettings", 3),
    (3, "StartSession", 2),
    (3, "GetGroupFlags", 2),
    (3, "GetGroupParent", 2),
    (3, "GetPlayerAccount", 4),
    (3, "GetPlayerFlags", 2),
    (4, "GetGroupOwner", 2),
    (4, "SetGroupOwner", 2),
    (4, "SendEx", 9),
    (4, "GetMessageQueue", 5),
    (4, "CancelMessage", 2),
    (4, "CancelPriority", 3),
];

/// The implementation of `method` of IDirectPlay `version`, if this DLL has one.
pub fn method(name: &'static str, version: u8, method: &str) -> Option<ApiDef> {
    Some(match method {
        "QueryInterface" => stdcall(name, super::QueryInterface),
        "AddRef" => stdcall(name, super::AddRef),
        "Release" => stdcall(name, super::Release),
        "Close" => stdcall(name, Close),
        "Initialize" => stdcall(name, Initialize),
        "EnumSessions" if version == 1 => stdcall(name, EnumSessions1),
        "EnumSessions" => stdcall(name, EnumSessions),
        "GetCaps" if version == 1 => stdcall(name, GetCaps1),
        "GetCaps" => stdcall(name, GetCaps),
        "Open" if version >= 2 => stdcall(name, Open),
        "EnumConnections" => stdcall(name, EnumConnections),
        "InitializeConnection" => stdcall(name, InitializeConnection),
        _ => return None,
    })
}

/// The DirectPlay object behind `this`: its id, interface and bound provider.
fn this_play(cx: &Ctx, this: u32) -> Option<(u32, Iface, Option<usize>)> {
    with_state(cx.proc, |g| {
        let &(id, iface) = g.ifaces.get(&this)?;
        match &g.objects.get(&id)?.kind {
            Kind::Play(p) => Some((id, iface, p.sp)),
            Kind::Lobby => None,
        }
    })
}

/// No session is ever open, so closing has nothing to end.
fn Close(cx: &mut Ctx, this: u32) -> u32 {
    match this_play(cx, this) {
        Some(_) => DP_OK,
        None => DPERR_INVALIDOBJECT,
    }
}

/// The object is initialised when created: Initialize always answers
/// DPERR_ALREADYINITIALIZED, as documented (InitializeConnection binds a
/// provider).
fn Initialize(cx: &mut Ctx, this: u32, _lpGUID: Ptr) -> u32 {
    match this_play(cx, this) {
        Some(_) => DPERR_ALREADYINITIALIZED,
        None => DPERR_INVALIDOBJECT,
    }
}

pub const DPCONNECTION_DIRECTPLAY: u32 = 1;
pub const DPCONNECTION_DIRECTPLAYLOBBY: u32 = 2;

/// EnumConnections: every service provider as a DPCONNECTION_DIRECTPLAY
/// connection (its address, size and name); no lobby provider is installed.
fn EnumConnections(
    cx: &mut Ctx,
    this: u32,
    _lpguidApplication: Ptr,
    lpEnumCallback: u32,
    lpContext: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    let Some((_, iface, _)) = this_play(cx, this) else {
        return ret(DPERR_INVALIDOBJECT);
    };
    if lpEnumCallback == 0 {
        return ret(DPERR_INVALIDPARAMS);
    }
    if dwFlags & !(DPCONNECTION_DIRECTPLAY | DPCONNECTION_DIRECTPLAYLOBBY) != 0 {
        return ret(DPERR_INVALIDFLAGS);
    }
    let flags = if dwFlags == 0 {
        DPCONNECTION_DIRECTPLAY
    } else {
        dwFlags
    };
    if flags & DPCONNECTION_DIRECTPLAY == 0 {
        return ret(DP_OK);
    }
    for s in super::sp_strings(cx.proc)? {
        let name = if iface.ansi() { s.dpname_a } else { s.dpname_w };
        let args = [
            s.guid,
            s.connection,
            s.connection_size,
            name,
            DPCONNECTION_DIRECTPLAY,
            lpContext,
        ];
        match crate::msvcrt::state::call_guest(cx, lpEnumCallback, &args)? {
            Ok(0) => break,
            Ok(_) => {}
            Err(end) => return Ok(end),
        }
    }
    ret(DP_OK)
}

/// Binds the service provider a connection (a DirectPlay address) names.
fn InitializeConnection(cx: &mut Ctx, this: u32, lpConnection: Ptr, dwFlags: u32) -> u32 {
    let Some((id, _, sp)) = this_play(cx, this) else {
        return DPERR_INVALIDOBJECT;
    };
    if lpConnection.is_null() {
        return DPERR_INVALIDPARAMS;
    }
    if dwFlags != 0 {
        return DPERR_INVALIDFLAGS;
    }
    if sp.is_some() {
        return DPERR_ALREADYINITIALIZED;
    }
    let Some(bytes) = super::address::read(cx.proc, lpConnection.0) else {
        return DPERR_INVALIDPARAMS;
    };
    let Some((guid, lobby)) = super::address::provider(&bytes) else {
        return DPERR_INVALIDPARAMS;
    };
    // No lobby provider is installed; of the service providers only TCP/IP has
    // what it needs on this machine.
    let k = match super::service_provider(&guid) {
        Some(k) if !lobby && SERVICE_PROVIDERS[k].usable => k,
        _ => return DPERR_UNAVAILABLE,
    };
    with_state(cx.proc, |g| {
        if let Some(o) = g.objects.get_mut(&id)
            && let Kind::Play(p) = &mut o.kind
        {
            p.sp = Some(k);
        }
    });
    DP_OK
}

pub const DPGETCAPS_GUARANTEED: u32 = 1;
pub const DPCAPS_GUARANTEEDOPTIMIZED: u32 = 0x20;
pub const DPCAPS_GUARANTEEDSUPPORTED: u32 = 0x40;
pub const DPCAPS_ASYNCSUPPORTED: u32 = 0x1_0000;
/// sizeof(DPCAPS).
pub const DPCAPS_SIZE: u32 = 40;

/// The DPCAPS of the TCP/IP service provider (what Windows reports, per Wine's
/// conformance tests): dwFlags, dwMaxBufferSize, dwMaxQueueSize, dwMaxPlayers,
/// dwHundredBaud, dwLatency, dwMaxLocalPlayers, dwHeaderLength, dwTimeout.
pub fn tcpip_caps(guaranteed: bool) -> [u32; 9] {
    let (buffer, players) = if guaranteed {
        (1_048_547, 64)
    } else {
        (65_479, 65_536)
    };
    [
        DPCAPS_ASYNCSUPPORTED | DPCAPS_GUARANTEEDOPTIMIZED | DPCAPS_GUARANTEEDSUPPORTED,
        buffer,
        0,
        players,
        0,
        500,
        65_536,
        20,
        5_000,
    ]
}

fn get_caps(cx: &mut Ctx, this: u32, caps: Ptr, flags: u32) -> ApiResult<u32> {
    let Some((_, _, sp)) = this_play(cx, this) else {
        return Ok(DPERR_INVALIDOBJECT);
    };
    if sp.is_none() {
        return Ok(DPERR_UNINITIALIZED);
    }
    if caps.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let Ok(size) = cx.proc.mem.read_u32(caps.0) else {
        return Ok(DPERR_INVALIDPARAMS);
    };
    if size != DPCAPS_SIZE {
        return Ok(DPERR_INVALIDPARAMS);
    }
    if flags & !DPGETCAPS_GUARANTEED != 0 {
        return Ok(DPERR_INVALIDFLAGS);
    }
    for (k, v) in tcpip_caps(flags & DPGETCAPS_GUARANTEED != 0)
        .iter()
        .enumerate()
    {
        cx.proc.mem.write_u32(caps.0 + 4 + 4 * k as u32, *v)?;
    }
    Ok(DP_OK)
}

fn GetCaps1(cx: &mut Ctx, this: u32, lpDPCaps: Ptr) -> ApiResult<u32> {
    get_caps(cx, this, lpDPCaps, 0)
}

fn GetCaps(cx: &mut Ctx, this: u32, lpDPCaps: Ptr, dwFlags: u32) -> ApiResult<u32> {
    get_caps(cx, this, lpDPCaps, dwFlags)
}

pub const DPENUMSESSIONS_AVAILABLE: u32 = 0x01;
pub const DPENUMSESSIONS_ALL: u32 = 0x02;
pub const DPENUMSESSIONS_ASYNC: u32 = 0x10;
pub const DPENUMSESSIONS_STOPASYNC: u32 = 0x20;
pub const DPENUMSESSIONS_PASSWORDREQUIRED: u32 = 0x40;
pub const DPENUMSESSIONS_RETURNSTATUS: u32 = 0x80;
pub const DPESC_TIMEDOUT: u32 = 1;
/// sizeof(DPSESSIONDESC) and sizeof(DPSESSIONDESC2).
pub const DPSESSIONDESC_SIZE: u32 = 124;
pub const DPSESSIONDESC2_SIZE: u32 = 80;
/// The TCP/IP provider's timeout, used when EnumSessions is given 0.
const DEFAULT_TIMEOUT_MS: u32 = 5_000;

/// EnumSessions finds no session: the callback hears only that the enumeration
/// timed out (lpThisSD NULL, DPESC_TIMEDOUT), once per enumeration period for as
/// long as it returns TRUE in a synchronous enumeration, once in an asynchronous
/// one. The period is not waited out: nothing could answer.
fn enum_sessions(
    cx: &mut Ctx,
    this: u32,
    lpsd: Ptr,
    dwTimeout: u32,
    cb: u32,
    ctx: u32,
    dwFlags: u32,
    v1: bool,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    let Some((_, _, sp)) = this_play(cx, this) else {
        return ret(DPERR_INVALIDOBJECT);
    };
    if sp.is_none() {
        return ret(DPERR_UNINITIALIZED);
    }
    let want = if v1 {
        DPSESSIONDESC_SIZE
    } else {
        DPSESSIONDESC2_SIZE
    };
    if lpsd.is_null() || cx.proc.mem.read_u32(lpsd.0).ok() != Some(want) {
        return ret(DPERR_INVALIDPARAMS);
    }
    let known = DPENUMSESSIONS_AVAILABLE
        | DPENUMSESSIONS_ALL
        | DPENUMSESSIONS_ASYNC
        | DPENUMSESSIONS_STOPASYNC
        | DPENUMSESSIONS_PASSWORDREQUIRED
        | DPENUMSESSIONS_RETURNSTATUS;
    if dwFlags & !known != 0 || cb == 0 {
        return ret(DPERR_INVALIDPARAMS);
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let timeout = heap.alloc(4, false)?;
    if timeout == 0 {
        return ret(crate::hle::com::E_OUTOFMEMORY);
    }
    let period = if dwTimeout == 0 {
        DEFAULT_TIMEOUT_MS
    } else {
        dwTimeout
    };
    let once = dwFlags & (DPENUMSESSIONS_ASYNC | DPENUMSESSIONS_STOPASYNC) != 0;
    let mut result = Outcome::Return(u64::from(DP_OK));
    loop {
        cx.proc.mem.write_u32(timeout, period)?;
        let args = if v1 {
            // LPDPENUMSESSIONSCALLBACK(lpDPSessionDesc, lpContext, lpdwTimeOut, dwFlags)
            [0, ctx, timeout, DPESC_TIMEDOUT]
        } else {
            // LPDPENUMSESSIONSCALLBACK2(lpThisSD, lpdwTimeOut, dwFlags, lpContext)
            [0, timeout, DPESC_TIMEDOUT, ctx]
        };
        match crate::msvcrt::state::call_guest(cx, cb, &args)? {
            Ok(again) if again != 0 && !once => continue,
            Ok(_) => break,
            Err(end) => {
                result = end;
                break;
            }
        }
    }
    heap.free(timeout);
    Ok(result)
}

fn EnumSessions1(
    cx: &mut Ctx,
    this: u32,
    lpsd: Ptr,
    dwTimeout: u32,
    lpEnumSessionsCallback: u32,
    lpContext: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    enum_sessions(
        cx,
        this,
        lpsd,
        dwTimeout,
        lpEnumSessionsCallback,
        lpContext,
        dwFlags,
        true,
    )
}

fn EnumSessions(
    cx: &mut Ctx,
    this: u32,
    lpsd: Ptr,
    dwTimeout: u32,
    lpEnumSessionsCallback2: u32,
    lpContext: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    enum_sessions(
        cx,
        this,
        lpsd,
        dwTimeout,
        lpEnumSessionsCallback2,
        lpContext,
        dwFlags,
        false,
    )
}

pub const DPOPEN_JOIN: u32 = 1;
pub const DPOPEN_CREATE: u32 = 2;
pub const DPOPEN_RETURNSTATUS: u32 = 0x80;

/// Open: there is no session to join (DPERR_NOSESSIONS), and without a network
/// the machine cannot host one (DPERR_UNAVAILABLE).
fn Open(cx: &mut Ctx, this: u32, lpsd: Ptr, dwFlags: u32) -> u32 {
    let Some((_, _, sp)) = this_play(cx, this) else {
        return DPERR_INVALIDOBJECT;
    };
    if lpsd.is_null() || cx.proc.mem.read_u32(lpsd.0).ok() != Some(DPSESSIONDESC2_SIZE) {
        return DPERR_INVALIDPARAMS;
    }
    if sp.is_none() {
        return DPERR_UNINITIALIZED;
    }
    if dwFlags & !(DPOPEN_JOIN | DPOPEN_CREATE | DPOPEN_RETURNSTATUS) != 0 {
        return DPERR_INVALIDFLAGS;
    }
    if dwFlags & DPOPEN_JOIN != 0 {
        DPERR_NOSESSIONS
    } else if dwFlags & DPOPEN_CREATE != 0 {
        DPERR_UNAVAILABLE
    } else {
        DPERR_INVALIDFLAGS
    }
}
