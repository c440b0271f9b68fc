/* DirectDraw interfaces, results and windowed presentation.
 *
 * A windowed (DDSCL_NORMAL) program: DirectDrawEnumerateA, DirectDrawCreateEx
 * (IDirectDraw7) and QueryInterface between the DirectDraw and surface interfaces
 * (same pointer for the same interface, separate reference counts), surfaces
 * through DDSURFACEDESC2, the documented error results for bad arguments, a
 * clipper on the window, vertical blank pacing, and finally a red fill and a
 * green square blitted into the primary surface at the window's client area, which
 * presents one frame: the window shows them.
 */
#include <windows.h>
#include <ddraw.h>
#include <stdio.h>

static int devices;

static BOOL WINAPI enum_cb(GUID *guid, LPSTR desc, LPSTR name, LPVOID ctx)
{
    (void)desc;
    (void)name;
    devices++;
    printf("device %d: guid %s, context %s\n", devices, guid ? "set" : "NULL",
           ctx == (LPVOID)&devices ? "ok" : "wrong");
    return TRUE;
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    return DefWindowProcA(h, m, w, l);
}

#define SHOW(expr) printf("%-40s %08lx\n", #expr, (unsigned long)(expr))

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    HWND hwnd;
    LPDIRECTDRAW7 dd7;
    LPDIRECTDRAW dd1, dd1b;
    LPDIRECTDRAWSURFACE7 prim, off;
    LPDIRECTDRAWSURFACE s1;
    LPDIRECTDRAWCLIPPER clip;
    LPDIRECTDRAWPALETTE pal;
    DDSURFACEDESC2 d;
    DDCOLORKEY key;
    DDBLTFX fx;
    RECT rc, client;
    POINT pt = {0, 0};
    DWORD t0, t1, size;
    int i;
    (void)prev;
    (void)cmd;
    (void)show;

    setvbuf(stdout, NULL, _IONBF, 0);
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hbrBackground = (HBRUSH)GetStockObject(BLACK_BRUSH);
    wc.lpszClassName = "ddraw_iface";
    RegisterClassA(&wc);
    hwnd = CreateWindowExA(0, "ddraw_iface", "ddraw_iface", WS_POPUP | WS_VISIBLE, 40, 30, 160,
                           120, NULL, NULL, inst, NULL);
    UpdateWindow(hwnd);

    SHOW(DirectDrawEnumerateA(enum_cb, &devices));
    SHOW(DirectDrawCreateEx(NULL, (void **)&dd7, &IID_IDirectDraw, NULL));
    SHOW(DirectDrawCreateEx(NULL, (void **)&dd7, &IID_IDirectDraw7, NULL));
    SHOW(IDirectDraw7_QueryInterface(dd7, &IID_IDirectDraw, (void **)&dd1));
    SHOW(IDirectDraw7_QueryInterface(dd7, &IID_IDirectDraw, (void **)&dd1b));
    printf("same IDirectDraw pointer: %d\n", dd1 == dd1b);
    SHOW(IDirectDraw_Release(dd1b));
    SHOW(IDirectDraw_Release(dd1));
    SHOW(IDirectDraw7_AddRef(dd7));
    SHOW(IDirectDraw7_Release(dd7));

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS;
    d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE;
    SHOW(IDirectDraw7_CreateSurface(dd7, &d, &prim, NULL));
    SHOW(IDirectDraw7_SetCooperativeLevel(dd7, hwnd, DDSCL_EXCLUSIVE));
    SHOW(IDirectDraw7_SetCooperativeLevel(dd7, hwnd, DDSCL_NORMAL));
    d.dwFlags = DDSD_CAPS | DDSD_BACKBUFFERCOUNT;
    d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP | DDSCAPS_COMPLEX;
    d.dwBackBufferCount = 1;
    SHOW(IDirectDraw7_CreateSurface(dd7, &d, &prim, NULL));
    d.dwFlags = DDSD_CAPS;
    d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE;
    SHOW(IDirectDraw7_CreateSurface(dd7, &d, &prim, NULL));

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT;
    d.dwWidth = 24;
    d.dwHeight = 24;
    d.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN | DDSCAPS_SYSTEMMEMORY;
    SHOW(IDirectDraw7_CreateSurface(dd7, &d, &off, NULL));
    SHOW(IDirectDrawSurface7_QueryInterface(off, &IID_IDirectDrawSurface, (void **)&s1));
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    SHOW(IDirectDrawSurface7_GetSurfaceDesc(off, &d));
    printf("off-screen %lu x %lu, pitch >= width*4: %d, system memory: %d\n",
           (unsigned long)d.dwWidth, (unsigned long)d.dwHeight, d.lPitch >= 24 * 4,
           (d.ddsCaps.dwCaps & DDSCAPS_SYSTEMMEMORY) != 0);
    SHOW(IDirectDrawSurface_Release(s1));

    /* Documented failures. */
    d.dwSize = 0;
    SHOW(IDirectDrawSurface7_Lock(off, NULL, &d, DDLOCK_WAIT, NULL));
    SHOW(IDirectDrawSurface7_Unlock(off, NULL));
    SHOW(IDirectDrawSurface7_GetColorKey(off, DDCKEY_SRCBLT, &key));
    SHOW(IDirectDrawSurface7_GetPalette(off, &pal));
    SetRect(&rc, 20, 20, 30, 30);
    SHOW(IDirectDrawSurface7_BltFast(off, 0, 0, off, &rc, DDBLTFAST_WAIT));
    SHOW(IDirectDrawSurface7_BltFast(off, 10, 10, off, NULL, DDBLTFAST_WAIT));
    SHOW(IDirectDrawSurface7_Blt(off, NULL, off, &rc, DDBLT_WAIT, NULL));

    /* A clipper on the window. */
    SHOW(IDirectDraw7_CreateClipper(dd7, 0, &clip, NULL));
    SHOW(IDirectDrawClipper_SetHWnd(clip, 0, hwnd));
    size = 0;
    SHOW(IDirectDrawClipper_GetClipList(clip, NULL, NULL, &size));
    printf("clip list size: %lu\n", (unsigned long)size);
    SHOW(IDirectDrawSurface7_SetClipper(prim, clip));

    /* Six vertical blanks take about 100 ms of a 60 Hz refresh. */
    t0 = GetTickCount();
    for (i = 0; i < 6; i++)
        IDirectDraw7_WaitForVerticalBlank(dd7, DDWAITVB_BLOCKBEGIN, NULL);
    t1 = GetTickCount();
    printf("6 vertical blanks: %s\n", t1 - t0 >= 80 && t1 - t0 <= 140 ? "80..140 ms" : "out of range");

    /* Red over the client area, a green square in its middle. */
    GetClientRect(hwnd, &client);
    ClientToScreen(hwnd, &pt);
    OffsetRect(&client, pt.x, pt.y);
    memset(&fx, 0, sizeof fx);
    fx.dwSize = sizeof fx;
    fx.dwFillColor = 0x00ff00;
    SHOW(IDirectDrawSurface7_Blt(off, NULL, NULL, NULL, DDBLT_COLORFILL | DDBLT_WAIT, &fx));
    fx.dwFillColor = 0xff0000;
    SHOW(IDirectDrawSurface7_Blt(prim, &client, NULL, NULL, DDBLT_COLORFILL | DDBLT_WAIT, &fx));
    SetRect(&rc, client.left + 68, client.top + 48, client.left + 92, client.top + 72);
    SHOW(IDirectDrawSurface7_Blt(prim, &rc, off, NULL, DDBLT_WAIT, NULL));

    IDirectDrawSurface7_Release(off);
    SHOW(IDirectDrawSurface7_Release(prim));
    SHOW(IDirectDrawClipper_Release(clip));
    SHOW(IDirectDraw7_Release(dd7));
    DestroyWindow(hwnd);
    return 0;
}
