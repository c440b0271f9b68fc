//! dplayx unit tests: vtables against dplay.h/dplobby.h, the enumerations through
//! guest callbacks, connections, capabilities, sessions and the lobby's addresses.
//! Expected values are Windows' (DirectX documentation, and Wine's conformance
//! tests where they pass on Windows).

use super::*;
use crate::hle::ExportKind;
use crate::host::CaptureHost;
use crate::process::ProcessConfig;
use crate::thread::GuestThread;
use winterp_core::mem::Prot;

pub(crate) struct Env {
    pub proc: Arc<Process>,
    pub thread: GuestThread,
    /// 64 KiB of read/write/execute guest memory for test data and callbacks.
    pub data: u32,
}

pub(crate) fn env() -> Env {
    let cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
    let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &crate::hle_dlls()).unwrap();
    let thread = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
    let data = proc
        .vm
        .lock()
        .unwrap()
        .alloc(None, 0x1_0000, Prot::RWX, "test data")
        .unwrap();
    Env { proc, thread, data }
}

impl Env {
    /// Calls export `name` of HLE DLL `dll` with `args` (for a method, `this` first).
    pub fn call_in(&mut self, dll: &str, name: &str, args: &[u32]) -> ApiResult<u32> {
        let proc = self.proc.clone();
        let d = proc.hle_dll(dll).unwrap();
        let def = proc.dlls[d]
            .1
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no export {name}"));
        let (_, nargs) = def.conv_nargs().unwrap();
        assert_eq!(nargs as usize, args.len(), "{name} takes {nargs} arguments");
        let mut cx = Ctx {
            proc: &proc,
            thread: &mut self.thread,
        };
        match def.call(&mut cx, args)? {
            Outcome::Return(v) => Ok(v as u32),
            o => panic!("{name}: {o:?}"),
        }
    }

    pub fn call(&mut self, name: &str, args: &[u32]) -> u32 {
        self.call_in("dplayx.dll", name, args).unwrap()
    }

    pub fn u32_at(&self, a: u32) -> u32 {
        self.proc.mem.read_u32(a).unwrap()
    }

    pub fn put(&self, a: u32, v: u32) {
        self.proc.mem.write_u32(a, v).unwrap();
    }

    pub fn put_guid(&self, a: u32, g: &Guid) {
        g.write(&self.proc, a).unwrap();
    }

    pub fn cstr(&self, a: u32) -> String {
        String::from_utf8(self.proc.mem.read_cstr(a, 256).unwrap()).unwrap()
    }

    /// A stdcall callback of `nargs` arguments at `code` that counts its calls in
    /// the dword at its context (argument `ctx_arg`), copies its arguments to the
    /// dwords after the count, and returns the dword at context + 0x40.
    pub fn recorder(&self, code: u32, nargs: u8, ctx_arg: u8) -> u32 {
        let mut c = vec![0x8b, 0x44, 0x24, 4 + 4 * ctx_arg, 0xff, 0x00];
        for k in 0..nargs {
            c.extend_from_slice(&[0x8b, 0x54, 0x24, 4 + 4 * k, 0x89, 0x50, 4 + 4 * k]);
        }
        c.extend_from_slice(&[0x8b, 0x40, 0x40, 0xc2, 4 * nargs, 0x00]);
        self.proc.mem.write_bytes(code, &c).unwrap();
        code
    }
}

fn name_of(i: Iface) -> &'static str {
    i.name()
}

#[test]
fn vtables_have_dplay_h_method_counts_and_every_method_is_exported() {
    let counts = [
        ("IDirectPlay", 25),
        ("IDirectPlay2", 32),
        ("IDirectPlay2A", 32),
        ("IDirectPlay3", 47),
        ("IDirectPlay3A", 47),
        ("IDirectPlay4", 53),
        ("IDirectPlay4A", 53),
        ("IDirectPlayLobby", 14),
        ("IDirectPlayLobbyA", 14),
        ("IDirectPlayLobby2", 15),
        ("IDirectPlayLobby2A", 15),
        ("IDirectPlayLobby3", 19),
        ("IDirectPlayLobby3A", 19),
    ];
    let defs = exports();
    for i in Iface::all() {
        let want = counts.iter().find(|(n, _)| *n == name_of(i)).unwrap().1;
        assert_eq!(i.methods().len(), want, "{}", i.name());
        for (m, nargs) in i.methods() {
            let full = format!("{}::{m}", i.name());
            let def = defs
                .iter()
                .find(|d| d.name == full)
                .unwrap_or_else(|| panic!("{full} not exported"));
            let ExportKind::Function { nargs: n, .. } = def.kind else {
                panic!("{full} is data");
            };
            assert_eq!(n, nargs + 1, "{full}: arguments and this");
        }
    }
}

#[test]
fn unprovided_methods_stop_with_their_name() {
    let mut e = env();
    match e.call_in("dplayx.dll", "IDirectPlay4A::Send", &[0; 6]) {
        Err(ApiError::Unimplemented { dll, name }) => {
            assert_eq!(
                (dll.as_str(), name.as_str()),
                ("dplayx.dll", "IDirectPlay4A::Send")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn direct_play_enumerate_lists_the_four_providers_in_windows_order() {
    let mut e = env();
    let cb = e.recorder(e.data, 5, 4);
    let ctx = e.data + 0x1000;
    e.put(ctx + 0x40, 1);
    assert_eq!(e.call("DirectPlayEnumerateA", &[cb, ctx]), DP_OK);
    assert_eq!(e.u32_at(ctx), 4);
    // The last call: TCP/IP, version 6.0, the context.
    let guid = e.u32_at(ctx + 4);
    assert_eq!(Guid::read(&e.proc, guid).unwrap(), DPSPGUID_TCPIP);
    assert_eq!(
        e.cstr(e.u32_at(ctx + 8)),
        "Internet TCP/IP Connection For DirectPlay"
    );
    assert_eq!((e.u32_at(ctx + 12), e.u32_at(ctx + 16)), (6, 0));
    assert_eq!(e.u32_at(ctx + 20), ctx);
    // FALSE stops after the first: Serial.
    e.put(ctx, 0);
    e.put(ctx + 0x40, 0);
    assert_eq!(e.call("DirectPlayEnumerate", &[cb, ctx]), DP_OK);
    assert_eq!(e.u32_at(ctx), 1);
    assert_eq!(
        e.cstr(e.u32_at(ctx + 8)),
        "Serial Connection For DirectPlay"
    );
    // The GUID handed out stays valid after the enumeration.
    assert_eq!(Guid::read(&e.proc, guid).unwrap(), DPSPGUID_TCPIP);
    // Unicode names.
    e.put(ctx, 0);
    e.put(ctx + 0x40, 0);
    assert_eq!(e.call("DirectPlayEnumerateW", &[cb, ctx]), DP_OK);
    let w = e.u32_at(ctx + 8);
    assert_eq!(
        (
            e.proc.mem.read_u16(w).unwrap(),
            e.proc.mem.read_u16(w + 2).unwrap()
        ),
        (u16::from(b'S'), u16::from(b'e'))
    );
    assert_eq!(
        e.call("DirectPlayEnumerateA", &[0, ctx]),
        DPERR_INVALIDPARAMS
    );
}

#[test]
fn direct_play_create_binds_only_providers_the_machine_has() {
    let mut e = env();
    let g = e.data;
    let out = e.data + 0x100;
    e.put_guid(g, &DPSPGUID_IPX);
    assert_eq!(e.call("DirectPlayCreate", &[g, out, 0]), DPERR_UNAVAILABLE);
    assert_eq!(
        e.call("DirectPlayCreate", &[0, out, 0]),
        DPERR_INVALIDPARAMS
    );
    assert_eq!(e.call("DirectPlayCreate", &[g, 0, 0]), DPERR_INVALIDPARAMS);
    assert_eq!(
        e.call("DirectPlayCreate", &[g, out, 1]),
        com::CLASS_E_NOAGGREGATION
    );
    e.put_guid(g, &DPSPGUID_TCPIP);
    assert_eq!(e.call("DirectPlayCreate", &[g, out, 0]), DP_OK);
    let dp = e.u32_at(out);
    // Bound: version 1 GetCaps answers with the TCP/IP provider's capabilities.
    let caps = e.data + 0x200;
    e.put(caps, play::DPCAPS_SIZE);
    assert_eq!(e.call("IDirectPlay::GetCaps", &[dp, caps]), DP_OK);
    assert_eq!(e.u32_at(caps + 8), 65_479);
    assert_eq!(
        e.call("IDirectPlay::Initialize", &[dp, g]),
        DPERR_ALREADYINITIALIZED
    );
    assert_eq!(e.call("IDirectPlay::Release", &[dp]), 0);
    assert!(lookup(&e.proc, dp).is_none());
}

#[test]
fn connections_capabilities_and_sessions() {
    let mut e = env();
    let g = e.data;
    let out = e.data + 0x100;
    let iid = e.data + 0x120;
    e.put_guid(g, &GUID_NULL);
    assert_eq!(e.call("DirectPlayCreate", &[g, out, 0]), DP_OK);
    let dp = e.u32_at(out);
    let sd1 = e.data + 0x300;
    e.put(sd1, play::DPSESSIONDESC_SIZE);
    assert_eq!(
        e.call("IDirectPlay::EnumSessions", &[dp, sd1, 0, 0, 0, 0]),
        DPERR_UNINITIALIZED
    );
    e.put_guid(iid, &play::PLAY_IIDS[6].0);
    assert_eq!(
        e.call("IDirectPlay::QueryInterface", &[dp, iid, out]),
        DP_OK
    );
    let dp4 = e.u32_at(out);
    assert_ne!(dp4, dp);
    // IUnknown is the same pointer from every interface.
    e.put_guid(iid, &com::IID_IUNKNOWN);
    assert_eq!(
        e.call("IDirectPlay4A::QueryInterface", &[dp4, iid, out]),
        DP_OK
    );
    assert_eq!(e.u32_at(out), dp);
    assert_eq!(e.call("IDirectPlay::Release", &[dp]), 2);

    // EnumConnections: four DirectPlay connections, TCP/IP last.
    let cb = e.recorder(e.data + 0x800, 6, 5);
    let ctx = e.data + 0x1000;
    e.put(ctx + 0x40, 1);
    assert_eq!(
        e.call("IDirectPlay4A::EnumConnections", &[dp4, 0, cb, ctx, 0]),
        DP_OK
    );
    assert_eq!(e.u32_at(ctx), 4);
    let (conn, size, name, flags) = (
        e.u32_at(ctx + 8),
        e.u32_at(ctx + 12),
        e.u32_at(ctx + 16),
        e.u32_at(ctx + 20),
    );
    assert_eq!((size, flags), (80, play::DPCONNECTION_DIRECTPLAY));
    assert_eq!(e.u32_at(name), 16);
    assert_eq!(
        e.cstr(e.u32_at(name + 8)),
        "Internet TCP/IP Connection For DirectPlay"
    );
    e.put(ctx, 0);
    assert_eq!(
        e.call(
            "IDirectPlay4A::EnumConnections",
            &[dp4, 0, cb, ctx, play::DPCONNECTION_DIRECTPLAYLOBBY]
        ),
        DP_OK
    );
    assert_eq!(e.u32_at(ctx), 0, "no lobby provider is installed");
    assert_eq!(
        e.call("IDirectPlay4A::EnumConnections", &[dp4, 0, cb, ctx, 4]),
        DPERR_INVALIDFLAGS
    );
    assert_eq!(
        e.call("IDirectPlay4A::EnumConnections", &[dp4, 0, 0, ctx, 0]),
        DPERR_INVALIDPARAMS
    );

    // GetCaps needs a connection.
    let caps = e.data + 0x200;
    e.put(caps, play::DPCAPS_SIZE);
    assert_eq!(
        e.call("IDirectPlay4A::GetCaps", &[dp4, caps, 0]),
        DPERR_UNINITIALIZED
    );
    // InitializeConnection: argument checks, then the TCP/IP connection.
    assert_eq!(
        e.call("IDirectPlay4A::InitializeConnection", &[dp4, 0, 1]),
        DPERR_INVALIDPARAMS
    );
    assert_eq!(
        e.call("IDirectPlay4A::InitializeConnection", &[dp4, conn, 1]),
        DPERR_INVALIDFLAGS
    );
    assert_eq!(
        e.call("IDirectPlay4A::InitializeConnection", &[dp4, conn, 0]),
        DP_OK
    );
    assert_eq!(
        e.call("IDirectPlay4A::InitializeConnection", &[dp4, conn, 0]),
        DPERR_ALREADYINITIALIZED
    );
    assert_eq!(e.call("IDirectPlay4A::GetCaps", &[dp4, caps, 0]), DP_OK);
    let got: Vec<u32> = (0..9).map(|k| e.u32_at(caps + 4 + 4 * k)).collect();
    assert_eq!(got, play::tcpip_caps(false).to_vec());
    assert_eq!(
        e.call(
            "IDirectPlay4A::GetCaps",
            &[dp4, caps, play::DPGETCAPS_GUARANTEED]
        ),
        DP_OK
    );
    assert_eq!((e.u32_at(caps + 8), e.u32_at(caps + 16)), (1_048_547, 64));
    e.put(caps, 12);
    assert_eq!(
        e.call("IDirectPlay4A::GetCaps", &[dp4, caps, 0]),
        DPERR_INVALIDPARAMS
    );

    // EnumSessions: no session, one timed-out callback.
    let scb = e.recorder(e.data + 0x900, 4, 3);
    let sctx = e.data + 0x1100;
    let sd = e.data + 0x400;
    assert_eq!(
        e.call("IDirectPlay4A::EnumSessions", &[dp4, sd, 0, scb, sctx, 0]),
        DPERR_INVALIDPARAMS,
        "dwSize 0"
    );
    e.put(sd, play::DPSESSIONDESC2_SIZE);
    assert_eq!(
        e.call("IDirectPlay4A::EnumSessions", &[dp4, sd, 0, scb, sctx, !0]),
        DPERR_INVALIDPARAMS
    );
    assert_eq!(
        e.call("IDirectPlay4A::EnumSessions", &[dp4, sd, 0, scb, sctx, 0]),
        DP_OK
    );
    assert_eq!(e.u32_at(sctx), 1);
    assert_eq!(e.u32_at(sctx + 4), 0, "lpThisSD");
    assert_eq!(e.u32_at(e.u32_at(sctx + 8)), 5_000, "the default timeout");
    assert_eq!(e.u32_at(sctx + 12), play::DPESC_TIMEDOUT);
    assert_eq!(e.u32_at(sctx + 16), sctx);
    // Asynchronous: one call even when the callback asks for more.
    e.put(sctx, 0);
    e.put(sctx + 0x40, 1);
    assert_eq!(
        e.call(
            "IDirectPlay4A::EnumSessions",
            &[dp4, sd, 250, scb, sctx, play::DPENUMSESSIONS_ASYNC]
        ),
        DP_OK
    );
    assert_eq!(e.u32_at(sctx), 1);
    assert_eq!(e.u32_at(e.u32_at(sctx + 8)), 250);

    // Open: nothing to join, nothing can be hosted.
    assert_eq!(
        e.call("IDirectPlay4A::Open", &[dp4, sd, play::DPOPEN_JOIN]),
        DPERR_NOSESSIONS
    );
    assert_eq!(
        e.call("IDirectPlay4A::Open", &[dp4, sd, play::DPOPEN_CREATE]),
        DPERR_UNAVAILABLE
    );
    assert_eq!(e.call("IDirectPlay4A::Close", &[dp4]), DP_OK);
    assert_eq!(e.call("IDirectPlay4A::Release", &[dp4]), 1);
    assert_eq!(e.call("IDirectPlay::Release", &[dp]), 0);
    assert!(lookup(&e.proc, dp4).is_none());
}

#[test]
fn initialize_connection_refuses_providers_the_machine_lacks() {
    let mut e = env();
    let iid = e.data;
    let out = e.data + 0x20;
    e.put_guid(iid, &play::PLAY_IIDS[5].0);
    assert_eq!(
        co_create_play(&mut cx_of(&mut e), &play::PLAY_IIDS[5].0, Ptr(out)).unwrap(),
        DP_OK
    );
    let dp = e.u32_at(out);
    let conn = e.data + 0x100;
    for (sp, want) in [
        (DPSPGUID_IPX, DPERR_UNAVAILABLE),
        (DPSPGUID_MODEM, DPERR_UNAVAILABLE),
        (DPSPGUID_SERIAL, DPERR_UNAVAILABLE),
        (Guid([9; 16]), DPERR_UNAVAILABLE),
    ] {
        e.proc
            .mem
            .write_bytes(conn, &address::connection(&sp))
            .unwrap();
        assert_eq!(
            e.call("IDirectPlay4::InitializeConnection", &[dp, conn, 0]),
            want
        );
    }
    // Not an address at all.
    e.put(conn, 0);
    assert_eq!(
        e.call("IDirectPlay4::InitializeConnection", &[dp, conn, 0]),
        DPERR_INVALIDPARAMS
    );
}

fn cx_of(e: &mut Env) -> Ctx<'_> {
    Ctx {
        proc: &e.proc,
        thread: &mut e.thread,
    }
}

#[test]
fn the_lobby_is_not_connected_and_builds_addresses() {
    let mut e = env();
    let out = e.data;
    assert_eq!(e.call("DirectPlayLobbyCreateA", &[0, out, 0, 0, 0]), DP_OK);
    let lobby = e.u32_at(out);
    assert_eq!(
        e.call("DirectPlayLobbyCreateA", &[out, out, 0, 0, 0]),
        DPERR_INVALIDPARAMS,
        "the provider GUID is reserved"
    );
    let size = e.data + 0x10;
    assert_eq!(
        e.call(
            "IDirectPlayLobbyA::GetConnectionSettings",
            &[lobby, 0, 0, size]
        ),
        DPERR_NOTLOBBIED
    );
    assert_eq!(
        e.call("IDirectPlayLobbyA::Connect", &[lobby, 0, out, 0]),
        DPERR_NOTLOBBIED
    );
    // CreateAddress: the size first, then the address.
    let (sp, ty, data, buf) = (
        e.data + 0x100,
        e.data + 0x120,
        e.data + 0x140,
        e.data + 0x200,
    );
    e.put_guid(sp, &DPSPGUID_TCPIP);
    e.put_guid(ty, &Guid([7; 16]));
    e.proc.mem.write_bytes(data, b"10.0.0.1\0").unwrap();
    e.put(size, 0);
    assert_eq!(
        e.call(
            "IDirectPlayLobbyA::CreateAddress",
            &[lobby, sp, ty, data, 9, 0, size]
        ),
        DPERR_BUFFERTOOSMALL
    );
    assert_eq!(e.u32_at(size), 89);
    e.put(size, 0x100);
    assert_eq!(
        e.call(
            "IDirectPlayLobbyA::CreateAddress",
            &[lobby, sp, ty, data, 9, buf, size]
        ),
        DP_OK
    );
    assert_eq!(e.u32_at(size), 89);
    assert_eq!(e.u32_at(buf + 20), 89, "DPAID_TotalSize");
    // EnumAddress: three chunks, each pointing into the address.
    let cb = e.recorder(e.data + 0x800, 4, 3);
    let ctx = e.data + 0x1000;
    e.put(ctx + 0x40, 1);
    assert_eq!(
        e.call("IDirectPlayLobbyA::EnumAddress", &[lobby, cb, buf, 89, ctx]),
        DP_OK
    );
    assert_eq!(e.u32_at(ctx), 3);
    assert_eq!(e.u32_at(ctx + 4), buf + 24 + 36);
    assert_eq!(e.u32_at(ctx + 8), 9);
    assert_eq!(e.cstr(e.u32_at(ctx + 12)), "10.0.0.1");
    // Only lobby objects have lobby methods.
    assert_eq!(
        e.call("IDirectPlayLobbyA::EnumAddress", &[buf, cb, buf, 89, ctx]),
        DPERR_INVALIDOBJECT
    );
    // A compound address of two elements (IDirectPlayLobby2 and later).
    let iid = e.data + 0x180;
    e.put_guid(iid, &lobby::LOBBY_IIDS[3].0);
    e.call("DirectPlayLobbyCreateA", &[0, out, 0, 0, 0]);
    let l1 = e.u32_at(out);
    assert_eq!(
        e.call("IDirectPlayLobbyA::QueryInterface", &[l1, iid, out]),
        DP_OK
    );
    let l2 = e.u32_at(out);
    let elems = e.data + 0x300;
    e.put_guid(elems, &address::DPAID_SERVICE_PROVIDER);
    e.put(elems + 16, 16);
    e.put(elems + 20, sp);
    e.put_guid(elems + 24, &Guid([7; 16]));
    e.put(elems + 40, 9);
    e.put(elems + 44, data);
    e.put(size, 0x100);
    assert_eq!(
        e.call(
            "IDirectPlayLobby2A::CreateCompoundAddress",
            &[l2, elems, 2, buf, size]
        ),
        DP_OK
    );
    assert_eq!(e.u32_at(size), 89);
    assert_eq!(
        e.call(
            "IDirectPlayLobby2A::CreateCompoundAddress",
            &[l2, elems, 0, buf, size]
        ),
        DPERR_INVALIDPARAMS
    );
    assert_eq!(e.call("IDirectPlayLobby2A::Release", &[l2]), 1);
    assert_eq!(e.call("IDirectPlayLobbyA::Release", &[l1]), 0);
}
