/* COM, DirectPlay and the winmm mixer, as a game uses them before it goes online.
 *
 * ole32: apartment counting (CoInitialize S_OK then S_FALSE, RPC_E_CHANGED_MODE for
 * the other model, CO_E_NOTINITIALIZED before), CoCreateInstance of DirectDraw and
 * DirectInput (uninitialised until their Initialize), of an unknown class
 * (REGDB_E_CLASSNOTREG) and of the DirectPlay lobby, GUID text and the task
 * allocator. dplayx: DirectPlayEnumerate, DirectPlayCreate, EnumConnections,
 * InitializeConnection, GetCaps, EnumSessions finding no session, Open, the lobby's
 * GetConnectionSettings and its address helpers. winmm: the mixer's speaker line,
 * its master volume and mute controls, and a set/get of the volume.
 *
 * Checked under Wine 8.0 (tests/guest/run-wine.sh): every line agrees except
 * these, where the expected output keeps Windows' documented behaviour (for
 * DirectPlay, what Wine's own conformance tests, which pass on Windows, expect;
 * Wine marks those checks todo_wine):
 * - "DirectDraw GetCaps before Initialize": DDERR_NOTINITIALIZED, documented for
 *   objects CoCreateInstance makes; Wine initialises the object at creation (DD_OK).
 * - The service providers' order: Windows lists Serial, Modem, IPX, Internet
 *   TCP/IP; Wine lists its registry order (TCP/IP first).
 * - IDirectPlay (version 1) EnumSessions before a connection: DPERR_UNINITIALIZED,
 *   and its Initialize: DPERR_ALREADYINITIALIZED as documented; Wine's IDirectPlay
 *   version 1 answers E_NOTIMPL.
 * - A connection from EnumConnections is 80 bytes on Windows (a closing GUID_NULL
 *   chunk); Wine's is 60.
 * - EnumSessions with dwSize 0: DPERR_INVALIDPARAMS; finding no session: DP_OK
 *   after one timed-out callback; joining: DPERR_NOSESSIONS. Wine answers E_NOTIMPL
 *   (after the callback), and E_NOTIMPL for Open and Close (its TCP/IP provider
 *   implements neither). Hosting (Open with DPOPEN_CREATE) needs the network the
 *   emulated machine does not have: DPERR_UNAVAILABLE.
 * - CreateAddress writes the address's size back (89 bytes), as documented; Wine
 *   leaves the buffer's size there, so EnumAddress then reads past the address.
 * - The mixer is the emulated sound card's: one speaker destination with a master
 *   volume and mute. Wine shows the host's mixers (none without a sound device:
 *   mixerGetNumDevs 0 and MMSYSERR_BADDEVICEID from there on). */
#define COBJMACROS
#include <windows.h>
#include <objbase.h>
#include <stdio.h>
#include <string.h>
#include <mmsystem.h>
#include <ddraw.h>
#include <dinput.h>
#include <dplay.h>
#include <dplobby.h>

/* An unregistered class: {6B9D2F1A-0C4E-4D57-9A3B-7E2F1C8D4A60}. */
static const GUID CLSID_Nothing = {0x6b9d2f1a, 0x0c4e, 0x4d57, {0x9a, 0x3b, 0x7e, 0x2f, 0x1c, 0x8d, 0x4a, 0x60}};
static const GUID appGuid = {0xbdcfe03e, 0xf0ec, 0x415b, {0x82, 0x11, 0x6f, 0x86, 0xd8, 0x19, 0x7f, 0xe1}};

static BOOL WINAPI provider_cb(GUID *guid, char *name, DWORD major, DWORD minor, void *ctx)
{
    int *n = ctx;
    (void)guid;
    printf("  provider %d: %s (%lu.%lu)\n", ++*n, name, major, minor);
    return TRUE;
}

struct conn_data {
    int count;
    BYTE tcpip[256];
    DWORD tcpip_size;
};

static BOOL WINAPI connection_cb(LPCGUID sp, void *conn, DWORD size, LPCDPNAME name, DWORD flags, void *ctx)
{
    struct conn_data *d = ctx;
    printf("  connection %d: %s, flags %lu, address %lu bytes\n", ++d->count, name->lpszShortNameA,
           flags, size);
    if (IsEqualGUID(sp, &DPSPGUID_TCPIP) && size <= sizeof(d->tcpip)) {
        memcpy(d->tcpip, conn, size);
        d->tcpip_size = size;
    }
    return TRUE;
}

static BOOL WINAPI session_cb(LPCDPSESSIONDESC2 sd, LPDWORD timeout, DWORD flags, void *ctx)
{
    int *n = ctx;
    (void)timeout;
    ++*n;
    printf("  session callback: %s, timed out: %s\n", sd ? "a session" : "no session",
           (flags & DPESC_TIMEDOUT) ? "yes" : "no");
    return FALSE;
}

static BOOL WINAPI address_cb(REFGUID type, DWORD size, LPCVOID data, void *ctx)
{
    int *n = ctx;
    const char *what = IsEqualGUID(type, &DPAID_TotalSize)         ? "DPAID_TotalSize"
                       : IsEqualGUID(type, &DPAID_ServiceProvider) ? "DPAID_ServiceProvider"
                       : IsEqualGUID(type, &DPAID_INet)            ? "DPAID_INet"
                                                                   : "other";
    printf("  chunk %d: %s, %lu bytes", ++*n, what, size);
    if (IsEqualGUID(type, &DPAID_TotalSize))
        printf(" (%lu)", *(const DWORD *)data);
    if (IsEqualGUID(type, &DPAID_INet))
        printf(" (%s)", (const char *)data);
    printf("\n");
    return TRUE;
}

static void com_part(void)
{
    IDirectDraw *dd = (void *)1, *dd7;
    IDirectInputA *di;
    IUnknown *unk = (void *)1;
    DDCAPS caps;
    HRESULT hr;

    hr = CoCreateInstance(&CLSID_DirectDraw, NULL, CLSCTX_INPROC_SERVER, &IID_IDirectDraw, (void **)&dd);
    printf("CoCreateInstance before CoInitialize: %08lx, out %s\n", hr, dd ? "set" : "NULL");
    printf("CoInitialize: %08lx\n", CoInitialize(NULL));
    printf("CoInitialize again: %08lx\n", CoInitialize(NULL));
    printf("CoInitializeEx multithreaded: %08lx\n", CoInitializeEx(NULL, COINIT_MULTITHREADED));
    CoUninitialize();

    hr = CoCreateInstance(&CLSID_DirectDraw, NULL, CLSCTX_INPROC_SERVER, &IID_IDirectDraw, (void **)&dd);
    printf("CoCreateInstance(CLSID_DirectDraw): %08lx\n", hr);
    if (SUCCEEDED(hr)) {
        memset(&caps, 0, sizeof(caps));
        caps.dwSize = sizeof(caps);
        printf("DirectDraw GetCaps before Initialize: %08lx\n", IDirectDraw_GetCaps(dd, &caps, NULL));
        printf("DirectDraw Initialize: %08lx\n", IDirectDraw_Initialize(dd, NULL));
        printf("DirectDraw Initialize again: %08lx\n", IDirectDraw_Initialize(dd, NULL));
        memset(&caps, 0, sizeof(caps));
        caps.dwSize = sizeof(caps);
        hr = IDirectDraw_GetCaps(dd, &caps, NULL);
        printf("DirectDraw GetCaps: %08lx, video memory: %s, blits: %s\n", hr,
               caps.dwVidMemTotal ? "yes" : "no", (caps.dwCaps & DDCAPS_BLT) ? "yes" : "no");
        hr = IDirectDraw_QueryInterface(dd, &IID_IDirectDraw7, (void **)&dd7);
        printf("DirectDraw QueryInterface(IDirectDraw7): %08lx\n", hr);
        if (SUCCEEDED(hr))
            printf("IDirectDraw7 Release: %lu\n", IDirectDraw7_Release((IDirectDraw7 *)dd7));
        printf("IDirectDraw Release: %lu\n", IDirectDraw_Release(dd));
    }

    hr = CoCreateInstance(&CLSID_Nothing, NULL, CLSCTX_ALL, &IID_IUnknown, (void **)&unk);
    printf("CoCreateInstance(unknown class): %08lx, out %s\n", hr, unk ? "set" : "NULL");

    hr = CoCreateInstance(&CLSID_DirectInput, NULL, CLSCTX_INPROC_SERVER, &IID_IDirectInputA, (void **)&di);
    printf("CoCreateInstance(CLSID_DirectInput): %08lx\n", hr);
    if (SUCCEEDED(hr)) {
        printf("DirectInput GetDeviceStatus before Initialize: %08lx\n",
               IDirectInput_GetDeviceStatus(di, &GUID_SysKeyboard));
        printf("DirectInput Initialize(version 0): %08lx\n",
               IDirectInput_Initialize(di, GetModuleHandleA(NULL), 0));
        printf("DirectInput Initialize: %08lx\n",
               IDirectInput_Initialize(di, GetModuleHandleA(NULL), 0x0700));
        printf("DirectInput GetDeviceStatus(keyboard): %08lx\n",
               IDirectInput_GetDeviceStatus(di, &GUID_SysKeyboard));
        printf("IDirectInput Release: %lu\n", IDirectInput_Release(di));
    }
}

static void guid_part(void)
{
    static const WCHAR text[] = L"{6C14DB80-A733-11CE-A521-0020AF0BE560}";
    WCHAR back[40];
    char narrow[40];
    GUID g;
    IMalloc *m;
    void *p;
    LPOLESTR s;

    HRESULT hr = CLSIDFromString((LPOLESTR)text, &g);
    printf("CLSIDFromString: %08lx, is IID_IDirectDraw: %s\n", hr, IsEqualGUID(&g, &IID_IDirectDraw) ? "yes" : "no");
    printf("CLSIDFromString(no closing brace): %08lx\n",
           CLSIDFromString((LPOLESTR)L"{6C14DB80-A733-11CE-A521-0020AF0BE560", &g));
    printf("IIDFromString(short): %08lx\n", IIDFromString((LPOLESTR)L"{6C14DB80}", &g));
    printf("StringFromGUID2: %d, ", StringFromGUID2(&DPSPGUID_TCPIP, back, 40));
    WideCharToMultiByte(CP_ACP, 0, back, -1, narrow, sizeof(narrow), NULL, NULL);
    printf("%s\n", narrow);
    printf("StringFromGUID2(38 characters): %d\n", StringFromGUID2(&DPSPGUID_TCPIP, back, 38));
    if (StringFromCLSID(&CLSID_DirectPlay, &s) == S_OK) {
        WideCharToMultiByte(CP_ACP, 0, s, -1, narrow, sizeof(narrow), NULL, NULL);
        printf("StringFromCLSID: %s\n", narrow);
        CoTaskMemFree(s);
    }
    p = CoTaskMemAlloc(100);
    printf("CoGetMalloc: %08lx\n", CoGetMalloc(1, &m));
    printf("IMalloc GetSize: %lu, DidAlloc: %d\n", (DWORD)IMalloc_GetSize(m, p), IMalloc_DidAlloc(m, p));
    p = CoTaskMemRealloc(p, 300);
    printf("after CoTaskMemRealloc: %lu\n", (DWORD)IMalloc_GetSize(m, p));
    CoTaskMemFree(p);
    printf("CoCreateGuid: %08lx\n", CoCreateGuid(&g));
}

static void dplay_part(void)
{
    IDirectPlay *dp;
    IDirectPlay4A *dp4;
    IDirectPlayLobby3A *lobby;
    DPSESSIONDESC sd1;
    DPSESSIONDESC2 sd;
    DPCAPS caps;
    struct conn_data conns;
    BYTE addr[256];
    DWORD size;
    HRESULT hr;
    int n = 0;

    printf("DirectPlayEnumerateA:\n");
    printf("DirectPlayEnumerateA: %08lx\n", DirectPlayEnumerateA(provider_cb, &n));
    printf("DirectPlayEnumerateA(NULL): %08lx\n", DirectPlayEnumerateA(NULL, NULL));

    hr = DirectPlayCreate((GUID *)&GUID_NULL, &dp, NULL);
    printf("DirectPlayCreate(GUID_NULL): %08lx\n", hr);
    if (FAILED(hr))
        return;
    memset(&sd1, 0, sizeof(sd1));
    sd1.dwSize = sizeof(sd1);
    printf("IDirectPlay EnumSessions before a connection: %08lx\n",
           IDirectPlay_EnumSessions(dp, &sd1, 0, NULL, NULL, 0));
    printf("IDirectPlay Initialize: %08lx\n", IDirectPlay_Initialize(dp, (GUID *)&DPSPGUID_TCPIP));
    hr = IDirectPlay_QueryInterface(dp, &IID_IDirectPlay4A, (void **)&dp4);
    printf("QueryInterface(IDirectPlay4A): %08lx\n", hr);
    if (SUCCEEDED(hr)) {
        memset(&conns, 0, sizeof(conns));
        printf("EnumConnections:\n");
        printf("EnumConnections: %08lx\n", IDirectPlayX_EnumConnections(dp4, &appGuid, connection_cb, &conns, 0));
        printf("EnumConnections(lobby providers): %08lx\n",
               IDirectPlayX_EnumConnections(dp4, &appGuid, connection_cb, &conns, DPCONNECTION_DIRECTPLAYLOBBY));
        memset(&caps, 0, sizeof(caps));
        caps.dwSize = sizeof(caps);
        printf("GetCaps before a connection: %08lx\n", IDirectPlayX_GetCaps(dp4, &caps, 0));
        printf("InitializeConnection(TCP/IP): %08lx\n", IDirectPlayX_InitializeConnection(dp4, conns.tcpip, 0));
        printf("InitializeConnection again: %08lx\n", IDirectPlayX_InitializeConnection(dp4, conns.tcpip, 0));
        hr = IDirectPlayX_GetCaps(dp4, &caps, 0);
        printf("GetCaps: %08lx, flags %08lx, max buffer %lu, max players %lu, latency %lu, header %lu, "
               "timeout %lu\n",
               hr, caps.dwFlags, caps.dwMaxBufferSize, caps.dwMaxPlayers, caps.dwLatency, caps.dwHeaderLength,
               caps.dwTimeout);
        hr = IDirectPlayX_GetCaps(dp4, &caps, DPGETCAPS_GUARANTEED);
        printf("GetCaps(guaranteed): %08lx, max buffer %lu, max players %lu\n", hr, caps.dwMaxBufferSize,
               caps.dwMaxPlayers);
        memset(&sd, 0, sizeof(sd));
        printf("EnumSessions(no size): %08lx\n", IDirectPlayX_EnumSessions(dp4, &sd, 0, session_cb, &n, 0));
        sd.dwSize = sizeof(sd);
        sd.guidApplication = appGuid;
        n = 0;
        hr = IDirectPlayX_EnumSessions(dp4, &sd, 100, session_cb, &n, 0);
        printf("EnumSessions: %08lx, callbacks %d\n", hr, n);
        printf("Open(join): %08lx\n", IDirectPlayX_Open(dp4, &sd, DPOPEN_JOIN));
        sd.dwMaxPlayers = 4;
        printf("Open(create): %08lx\n", IDirectPlayX_Open(dp4, &sd, DPOPEN_CREATE));
        printf("Close: %08lx\n", IDirectPlayX_Close(dp4));
        IDirectPlayX_Release(dp4);
    }
    printf("IDirectPlay Release: %lu\n", IDirectPlay_Release(dp));

    hr = CoCreateInstance(&CLSID_DirectPlayLobby, NULL, CLSCTX_ALL, &IID_IDirectPlayLobby3A, (void **)&lobby);
    printf("CoCreateInstance(CLSID_DirectPlayLobby): %08lx\n", hr);
    if (FAILED(hr))
        return;
    size = 0;
    printf("GetConnectionSettings: %08lx\n", IDirectPlayLobby_GetConnectionSettings(lobby, 0, NULL, &size));
    size = 0;
    hr = IDirectPlayLobby_CreateAddress(lobby, &DPSPGUID_TCPIP, &DPAID_INet, "10.0.0.1", 9, NULL, &size);
    printf("CreateAddress(no buffer): %08lx, %lu bytes\n", hr, size);
    size = sizeof(addr);
    hr = IDirectPlayLobby_CreateAddress(lobby, &DPSPGUID_TCPIP, &DPAID_INet, "10.0.0.1", 9, addr, &size);
    printf("CreateAddress: %08lx, %lu bytes\n", hr, size);
    n = 0;
    printf("EnumAddress: %08lx\n", IDirectPlayLobby_EnumAddress(lobby, address_cb, addr, size, &n));
    printf("IDirectPlayLobby3A Release: %lu\n", IDirectPlayLobby_Release(lobby));
}

static void mixer_part(void)
{
    MIXERCAPSA caps;
    MIXERLINEA line;
    MIXERLINECONTROLSA lc;
    MIXERCONTROLA vol, mute;
    MIXERCONTROLDETAILS d;
    MIXERCONTROLDETAILS_UNSIGNED v[2];
    MIXERCONTROLDETAILS_BOOLEAN b;
    HMIXER hmx;
    UINT id = 99;
    MMRESULT r;

    printf("mixerGetNumDevs: %u\n", mixerGetNumDevs());
    r = mixerGetDevCapsA(0, &caps, sizeof(caps));
    printf("mixerGetDevCapsA: %u, destinations %lu\n", r, caps.cDestinations);
    printf("mixerGetDevCapsA(device 1): %u\n", mixerGetDevCapsA(1, &caps, sizeof(caps)));
    printf("mixerOpen(CALLBACK_FUNCTION): %u\n", mixerOpen(&hmx, 0, 0, 0, CALLBACK_FUNCTION));
    r = mixerOpen(&hmx, 0, 0, 0, MIXER_OBJECTF_MIXER);
    printf("mixerOpen: %u\n", r);
    if (r)
        return;
    r = mixerGetID((HMIXEROBJ)hmx, &id, MIXER_OBJECTF_HMIXER);
    printf("mixerGetID: %u, id %u\n", r, id);

    memset(&line, 0, sizeof(line));
    line.cbStruct = sizeof(line);
    line.dwComponentType = MIXERLINE_COMPONENTTYPE_DST_SPEAKERS;
    r = mixerGetLineInfoA((HMIXEROBJ)hmx, &line, MIXER_OBJECTF_HMIXER | MIXER_GETLINEINFOF_COMPONENTTYPE);
    printf("mixerGetLineInfoA(speakers): %u, channels %lu, controls %lu, target %s\n", r, line.cChannels,
           line.cControls, line.Target.dwType == MIXERLINE_TARGETTYPE_WAVEOUT ? "waveOut" : "other");
    line.cbStruct = 0;
    printf("mixerGetLineInfoA(cbStruct 0): %u\n",
           mixerGetLineInfoA((HMIXEROBJ)hmx, &line, MIXER_OBJECTF_HMIXER | MIXER_GETLINEINFOF_DESTINATION));

    memset(&lc, 0, sizeof(lc));
    lc.cbStruct = sizeof(lc);
    lc.dwLineID = line.dwLineID;
    lc.dwControlType = MIXERCONTROL_CONTROLTYPE_VOLUME;
    lc.cControls = 1;
    lc.cbmxctrl = sizeof(vol);
    lc.pamxctrl = &vol;
    r = mixerGetLineControlsA((HMIXEROBJ)hmx, &lc, MIXER_OBJECTF_HMIXER | MIXER_GETLINECONTROLSF_ONEBYTYPE);
    printf("volume control: %u, type %08lx, range %lu..%lu\n", r, vol.dwControlType, vol.Bounds.dwMinimum,
           vol.Bounds.dwMaximum);
    lc.dwControlType = MIXERCONTROL_CONTROLTYPE_MUTE;
    lc.pamxctrl = &mute;
    r = mixerGetLineControlsA((HMIXEROBJ)hmx, &lc, MIXER_OBJECTF_HMIXER | MIXER_GETLINECONTROLSF_ONEBYTYPE);
    printf("mute control: %u, type %08lx, uniform %s\n", r, mute.dwControlType,
           (mute.fdwControl & MIXERCONTROL_CONTROLF_UNIFORM) ? "yes" : "no");

    memset(&d, 0, sizeof(d));
    d.cbStruct = sizeof(d);
    d.dwControlID = vol.dwControlID;
    d.cChannels = 2;
    d.cbDetails = sizeof(v[0]);
    d.paDetails = v;
    v[0].dwValue = 0x8000;
    v[1].dwValue = 0x4000;
    printf("set volume: %u\n", mixerSetControlDetails((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER));
    v[0].dwValue = v[1].dwValue = 0;
    r = mixerGetControlDetailsA((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER);
    printf("get volume: %u, left %04lx, right %04lx\n", r, v[0].dwValue, v[1].dwValue);
    d.cChannels = 1;
    r = mixerGetControlDetailsA((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER);
    printf("get volume (one channel): %u, %04lx\n", r, v[0].dwValue);
    v[0].dwValue = 0x2000;
    printf("set volume (one channel): %u\n", mixerSetControlDetails((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER));
    d.cChannels = 2;
    r = mixerGetControlDetailsA((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER);
    printf("get volume: %u, left %04lx, right %04lx\n", r, v[0].dwValue, v[1].dwValue);

    d.dwControlID = mute.dwControlID;
    d.cChannels = 1;
    d.cbDetails = sizeof(b);
    d.paDetails = &b;
    b.fValue = TRUE;
    printf("set mute: %u\n", mixerSetControlDetails((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER));
    b.fValue = 7;
    r = mixerGetControlDetailsA((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER);
    printf("get mute: %u, %ld\n", r, b.fValue);
    b.fValue = FALSE;
    mixerSetControlDetails((HMIXEROBJ)hmx, &d, MIXER_OBJECTF_HMIXER);

    printf("mixerClose: %u\n", mixerClose(hmx));
    printf("mixerClose again: %u\n", mixerClose(hmx));
}

int main(void)
{
    com_part();
    guid_part();
    dplay_part();
    mixer_part();
    CoUninitialize();
    printf("done\n");
    return 0;
}
