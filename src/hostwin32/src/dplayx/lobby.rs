//! The DirectPlay lobby object: IDirectPlayLobby, 2 and 3 (A and W). The program
//! was not launched by a lobby, so the connection calls answer DPERR_NOTLOBBIED;
//! the address helpers (CreateAddress, CreateCompoundAddress, EnumAddress) work on
//! DirectPlay addresses in guest memory.

use super::address::{self, HEADER};
use super::{DP_OK, DPERR_BUFFERTOOSMALL, DPERR_INVALIDOBJECT, DPERR_INVALIDPARAMS, Iface, Kind};
use super::{DPERR_NOTLOBBIED, with_state};
use crate::hle::com::Guid;
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};

/// The lobby IIDs (dplobby.h) and the interface each names.
pub const LOBBY_IIDS: [(Guid, Iface); 6] = [
    (
        Guid::new(
            0xaf465c71,
            0x9588,
            0x11cf,
            [0xa0, 0x20, 0x00, 0xaa, 0x00, 0x61, 0x57, 0xac],
        ),
        Iface::Lobby {
            version: 1,
            ansi: false,
        },
    ),
    (
        Guid::new(
            0x26c66a70,
            0xb367,
            0x11cf,
            [0xa0, 0x24, 0x00, 0xaa, 0x00, 0x61, 0x57, 0xac],
        ),
        Iface::Lobby {
            version: 1,
            ansi: true,
        },
    ),
    (
        Guid::new(
            0x0194c220,
            0xa303,
            0x11d0,
            [0x9c, 0x4f, 0x00, 0xa0, 0xc9, 0x05, 0x42, 0x5e],
        ),
        Iface::Lobby {
            version: 2,
            ansi: false,
        },
    ),
    (
        Guid::new(
            0x1bb4af80,
            0xa303,
            0x11d0,
            [0x9c, 0x4f, 0x00, 0xa0, 0xc9, 0x05, 0x42, 0x5e],
        ),
        Iface::Lobby {
            version: 2,
            ansi: true,
        },
    ),
    (
        Guid::new(
            0x2db72490,
            0x652c,
            0x11d1,
            [0xa7, 0xa8, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
        ),
        Iface::Lobby {
            version: 3,
            ansi: false,
        },
    ),
    (
        Guid::new(
            0x2db72491,
            0x652c,
            0x11d1,
            [0xa7, 0xa8, 0x00, 0x00, 0xf8, 0x03, 0xab, 0xfc],
        ),
        Iface::Lobby {
            version: 3,
            ansi: true,
        },
    ),
];

/// IDirectPlayLobby3's vtable with the version that introduced each method and its
/// argument count after `this`.
pub const LOBBY_METHODS: &[(u8, &str, u8)] = &[
    (1, "QueryInterface", 2),
    (1, "AddRef", 0),
    (1, "Release", 0),
    (1, "Connect", 3),
    (1, "CreateAddress", 6),
    (1, "EnumAddress", 4),
    (1, "EnumAddressTypes", 4),
    (1, "EnumLocalApplications", 3),
    (1, "GetConnectionSettings", 3),
    (1, "ReceiveLobbyMessage", 5),
    (1, "RunApplication", 4),
    (1, "SendLobbyMessage", 4),
    (1, "SetConnectionSettings", 3),
    (1, "SetLobbyMessageEvent", 3),
    (2, "CreateCompoundAddress", 4),
    (3, "ConnectEx", 4),
    (3, "RegisterApplication", 2),
    (3, "UnregisterApplication", 2),
    (3, "WaitForConnectionSettings", 1),
];

pub fn method(name: &'static str, method: &str) -> Option<ApiDef> {
    Some(match method {
        "QueryInterface" => stdcall(name, super::QueryInterface),
        "AddRef" => stdcall(name, super::AddRef),
        "Release" => stdcall(name, super::Release),
        "Connect" => stdcall(name, Connect),
        "ConnectEx" => stdcall(name, ConnectEx),
        "GetConnectionSettings" => stdcall(name, GetConnectionSettings),
        "CreateAddress" => stdcall(name, CreateAddress),
        "CreateCompoundAddress" => stdcall(name, CreateCompoundAddress),
        "EnumAddress" => stdcall(name, EnumAddress),
        _ => return None,
    })
}

fn is_lobby(cx: &Ctx, this: u32) -> bool {
    with_state(cx.proc, |g| {
        g.ifaces
            .get(&this)
            .and_then(|(id, _)| g.objects.get(id))
            .is_some_and(|o| matches!(o.kind, Kind::Lobby))
    })
}

/// Connect: only a program a lobby launched has a connection to make.
fn Connect(cx: &mut Ctx, this: u32, _dwFlags: u32, lplpDP: Ptr, pUnk: Ptr) -> ApiResult<u32> {
    connect(cx, this, lplpDP, pUnk)
}

fn ConnectEx(
    cx: &mut Ctx,
    this: u32,
    _dwFlags: u32,
    _riid: Ptr,
    lplpDP: Ptr,
    pUnk: Ptr,
) -> ApiResult<u32> {
    connect(cx, this, lplpDP, pUnk)
}

fn connect(cx: &mut Ctx, this: u32, lplpDP: Ptr, pUnk: Ptr) -> ApiResult<u32> {
    if !is_lobby(cx, this) {
        return Ok(DPERR_INVALIDOBJECT);
    }
    if !pUnk.is_null() {
        return Ok(crate::hle::com::CLASS_E_NOAGGREGATION);
    }
    if lplpDP.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    Ok(DPERR_NOTLOBBIED)
}

/// GetConnectionSettings: there are none, the program was not lobby-launched.
fn GetConnectionSettings(
    cx: &mut Ctx,
    this: u32,
    _dwAppID: u32,
    _lpData: Ptr,
    lpdwDataSize: Ptr,
) -> u32 {
    if !is_lobby(cx, this) {
        return DPERR_INVALIDOBJECT;
    }
    if lpdwDataSize.is_null() {
        return DPERR_INVALIDPARAMS;
    }
    DPERR_NOTLOBBIED
}

/// The largest element a program may put in an address.
const MAX_ELEMENT: u32 = 0x1_0000;

/// Hands an address to the caller's buffer: its size in `*lpdwAddressSize`, and
/// the bytes when the buffer is large enough (DPERR_BUFFERTOOSMALL otherwise).
fn give(cx: &mut Ctx, bytes: &[u8], lpAddress: Ptr, lpdwAddressSize: Ptr) -> ApiResult<u32> {
    let have = cx.proc.mem.read_u32(lpdwAddressSize.0)?;
    cx.proc
        .mem
        .write_u32(lpdwAddressSize.0, bytes.len() as u32)?;
    if lpAddress.is_null() || (have as usize) < bytes.len() {
        return Ok(DPERR_BUFFERTOOSMALL);
    }
    cx.proc.mem.write_bytes(lpAddress.0, bytes)?;
    Ok(DP_OK)
}

fn read_data(cx: &Ctx, at: u32, size: u32) -> Option<Vec<u8>> {
    if size > MAX_ELEMENT || (at == 0 && size != 0) {
        return None;
    }
    let mut d = vec![0u8; size as usize];
    if size > 0 {
        cx.proc.mem.read_bytes(at, &mut d).ok()?;
    }
    Some(d)
}

/// CreateAddress: an address naming the service provider and one item of data.
fn CreateAddress(
    cx: &mut Ctx,
    this: u32,
    guidSP: Ptr,
    guidDataType: Ptr,
    lpData: Ptr,
    dwDataSize: u32,
    lpAddress: Ptr,
    lpdwAddressSize: Ptr,
) -> ApiResult<u32> {
    if !is_lobby(cx, this) {
        return Ok(DPERR_INVALIDOBJECT);
    }
    if guidSP.is_null() || guidDataType.is_null() || lpdwAddressSize.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let (Ok(sp), Ok(ty)) = (
        Guid::read(cx.proc, guidSP.0),
        Guid::read(cx.proc, guidDataType.0),
    ) else {
        return Ok(DPERR_INVALIDPARAMS);
    };
    let Some(data) = read_data(cx, lpData.0, dwDataSize) else {
        return Ok(DPERR_INVALIDPARAMS);
    };
    let bytes = address::build(&[(address::DPAID_SERVICE_PROVIDER, &sp.0), (ty, &data)]);
    give(cx, &bytes, lpAddress, lpdwAddressSize)
}

/// CreateCompoundAddress: an address of DPCOMPOUNDADDRESSELEMENTs (GUID, size,
/// data pointer), in the order given.
fn CreateCompoundAddress(
    cx: &mut Ctx,
    this: u32,
    lpElements: Ptr,
    dwElementCount: u32,
    lpAddress: Ptr,
    lpdwAddressSize: Ptr,
) -> ApiResult<u32> {
    if !is_lobby(cx, this) {
        return Ok(DPERR_INVALIDOBJECT);
    }
    if lpElements.is_null() || dwElementCount == 0 || dwElementCount > 256 {
        return Ok(DPERR_INVALIDPARAMS);
    }
    if lpdwAddressSize.is_null() {
        return Ok(DPERR_INVALIDPARAMS);
    }
    let mut elems = Vec::new();
    for k in 0..dwElementCount {
        let at = lpElements.0 + 24 * k;
        let (Ok(ty), Ok(size), Ok(data)) = (
            Guid::read(cx.proc, at),
            cx.proc.mem.read_u32(at + 16),
            cx.proc.mem.read_u32(at + 20),
        ) else {
            return Ok(DPERR_INVALIDPARAMS);
        };
        // The total size is the address's own first chunk, never an element.
        if ty == address::DPAID_TOTAL_SIZE {
            continue;
        }
        let Some(d) = read_data(cx, data, size) else {
            return Ok(DPERR_INVALIDPARAMS);
        };
        elems.push((ty, d));
    }
    let chunks: Vec<(Guid, &[u8])> = elems.iter().map(|(g, d)| (*g, d.as_slice())).collect();
    let bytes = address::build(&chunks);
    give(cx, &bytes, lpAddress, lpdwAddressSize)
}

/// EnumAddress: calls the program's callback with each chunk of an address (its
/// type, size and data, pointing into the address itself) until it returns FALSE.
fn EnumAddress(
    cx: &mut Ctx,
    this: u32,
    lpEnumAddressCallback: u32,
    lpAddress: Ptr,
    dwAddressSize: u32,
    lpContext: u32,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    if !is_lobby(cx, this) {
        return ret(DPERR_INVALIDOBJECT);
    }
    if lpEnumAddressCallback == 0 || lpAddress.is_null() || dwAddressSize > 0x10_0000 {
        return ret(DPERR_INVALIDPARAMS);
    }
    let mut bytes = vec![0u8; dwAddressSize as usize];
    if cx.proc.mem.read_bytes(lpAddress.0, &mut bytes).is_err() {
        return ret(DPERR_INVALIDPARAMS);
    }
    let Some(chunks) = address::parse(&bytes) else {
        return ret(DPERR_INVALIDPARAMS);
    };
    for c in chunks {
        let ty = lpAddress.0 + (c.offset - HEADER) as u32;
        let data = lpAddress.0 + c.offset as u32;
        let args = [ty, c.size as u32, data, lpContext];
        match crate::msvcrt::state::call_guest(cx, lpEnumAddressCallback, &args)? {
            Ok(0) => break,
            Ok(_) => {}
            Err(end) => return Ok(end),
        }
    }
    ret(DP_OK)
}
