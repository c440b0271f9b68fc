/*
 * ddraw_overlay: a DirectDraw overlay surface laid over an exclusive full-screen
 * 320x240x16 primary, as the DirectX documentation describes overlays.
 *
 * The primary is filled green (0x07E0). The overlay is 64x32 RGB565: its left half
 * red (0xF800), its right half blue (0x001F). Steps, each printing its HRESULT:
 *   - GetCaps: DDCAPS_OVERLAY, DDCKEYCAPS_SRCOVERLAY and dwMaxVisibleOverlays;
 *   - GetOverlayPosition before any UpdateOverlay: DDERR_NOOVERLAYDEST (not
 *     placed yet); UpdateOverlay on a plain off-screen surface:
 *     DDERR_NOTAOVERLAYSURFACE; SetOverlayPosition while hidden:
 *     DDERR_NOOVERLAYDEST too (no destination established yet);
 *   - UpdateOverlay(src NULL, primary, dst (40,20)-(168,84) = stretched 2x, SHOW |
 *     KEYSRCOVERRIDE with blue as the key): blue becomes transparent;
 *   - SetOverlayPosition(-1, 0): DDERR_INVALIDPOSITION (off the screen);
 *     SetOverlayPosition(200, 150): DDERR_INVALIDPOSITION too (the 128x64
 *     destination would reach x 328); SetOverlayPosition(150, 150) then
 *     GetOverlayPosition: 150,150;
 *   - a second overlay shown at the same time: DDERR_OUTOFCAPS (one overlay unit);
 *   - Flip of the primary to present a frame.
 * The test (tests/ddraw_programs.rs) then checks the frame: red at the overlay's
 * left half (150..214, 150..214), green where its keyed right half lies and
 * everywhere else.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <ddraw.h>
#include <stdio.h>
#include <string.h>

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    return DefWindowProcA(h, m, w, l);
}

static void fill(LPDIRECTDRAWSURFACE s, int x0, int x1, WORD c)
{
    DDSURFACEDESC d;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    if (IDirectDrawSurface_Lock(s, NULL, &d, DDLOCK_WAIT, NULL) != DD_OK) {
        printf("Lock failed\n");
        return;
    }
    for (DWORD y = 0; y < d.dwHeight; y++) {
        WORD *row = (WORD *)((BYTE *)d.lpSurface + y * d.lPitch);
        for (int x = x0; x < x1; x++) row[x] = c;
    }
    IDirectDrawSurface_Unlock(s, NULL);
}

static LPDIRECTDRAWSURFACE overlay(LPDIRECTDRAW dd, const char *what)
{
    DDSURFACEDESC d;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT | DDSD_PIXELFORMAT;
    d.ddsCaps.dwCaps = DDSCAPS_OVERLAY | DDSCAPS_VIDEOMEMORY;
    d.dwWidth = 64;
    d.dwHeight = 32;
    d.ddpfPixelFormat.dwSize = sizeof d.ddpfPixelFormat;
    d.ddpfPixelFormat.dwFlags = DDPF_RGB;
    d.ddpfPixelFormat.dwRGBBitCount = 16;
    d.ddpfPixelFormat.dwRBitMask = 0xF800;
    d.ddpfPixelFormat.dwGBitMask = 0x07E0;
    d.ddpfPixelFormat.dwBBitMask = 0x001F;
    LPDIRECTDRAWSURFACE s = NULL;
    printf("CreateSurface(%s overlay) %08lx\n", what, IDirectDraw_CreateSurface(dd, &d, &s, NULL));
    return s;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = proc;
    wc.hInstance = inst;
    wc.lpszClassName = "ddraw_overlay";
    RegisterClassA(&wc);
    HWND w = CreateWindowExA(0, "ddraw_overlay", "overlay", WS_POPUP | WS_VISIBLE, 0, 0,
                             320, 240, NULL, NULL, inst, NULL);
    LPDIRECTDRAW dd;
    if (DirectDrawCreate(NULL, &dd, NULL) != DD_OK) return 1;
    IDirectDraw_SetCooperativeLevel(dd, w, DDSCL_EXCLUSIVE | DDSCL_FULLSCREEN);
    printf("SetDisplayMode %08lx\n", IDirectDraw_SetDisplayMode(dd, 320, 240, 16));

    DDCAPS caps;
    memset(&caps, 0, sizeof caps);
    caps.dwSize = sizeof caps;
    printf("GetCaps %08lx\n", IDirectDraw_GetCaps(dd, &caps, NULL));
    printf("DDCAPS_OVERLAY %d, DDCKEYCAPS_SRCOVERLAY %d, max visible %lu\n",
           !!(caps.dwCaps & DDCAPS_OVERLAY), !!(caps.dwCKeyCaps & DDCKEYCAPS_SRCOVERLAY),
           caps.dwMaxVisibleOverlays);

    DDSURFACEDESC d;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_BACKBUFFERCOUNT;
    d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP | DDSCAPS_COMPLEX;
    d.dwBackBufferCount = 1;
    LPDIRECTDRAWSURFACE primary, back, plain;
    printf("CreateSurface(primary) %08lx\n", IDirectDraw_CreateSurface(dd, &d, &primary, NULL));
    DDSCAPS bc = {DDSCAPS_BACKBUFFER};
    IDirectDrawSurface_GetAttachedSurface(primary, &bc, &back);
    fill(primary, 0, 320, 0x07E0);
    fill(back, 0, 320, 0x07E0);

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT;
    d.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN;
    d.dwWidth = 16;
    d.dwHeight = 16;
    IDirectDraw_CreateSurface(dd, &d, &plain, NULL);

    LPDIRECTDRAWSURFACE ov = overlay(dd, "first");
    fill(ov, 0, 32, 0xF800);
    fill(ov, 32, 64, 0x001F);
    LONG x = -7, y = -7;
    printf("GetOverlayPosition before UpdateOverlay %08lx\n",
           IDirectDrawSurface_GetOverlayPosition(ov, &x, &y));
    printf("SetOverlayPosition before UpdateOverlay %08lx\n",
           IDirectDrawSurface_SetOverlayPosition(ov, 10, 10));
    RECT dst = {40, 20, 168, 84};
    printf("UpdateOverlay on a plain surface %08lx\n",
           IDirectDrawSurface_UpdateOverlay(plain, NULL, primary, &dst, DDOVER_SHOW, NULL));

    DDOVERLAYFX fx;
    memset(&fx, 0, sizeof fx);
    fx.dwSize = sizeof fx;
    fx.dckSrcColorkey.dwColorSpaceLowValue = 0x001F;
    fx.dckSrcColorkey.dwColorSpaceHighValue = 0x001F;
    printf("UpdateOverlay show %08lx\n",
           IDirectDrawSurface_UpdateOverlay(ov, NULL, primary, &dst,
                                            DDOVER_SHOW | DDOVER_KEYSRCOVERRIDE | DDOVER_DDFX, &fx));
    HRESULT hr = IDirectDrawSurface_GetOverlayPosition(ov, &x, &y);
    printf("GetOverlayPosition %08lx %ld,%ld\n", hr, x, y);
    printf("SetOverlayPosition(-1, 0) %08lx\n", IDirectDrawSurface_SetOverlayPosition(ov, -1, 0));
    printf("SetOverlayPosition(200, 150) %08lx\n", IDirectDrawSurface_SetOverlayPosition(ov, 200, 150));
    printf("SetOverlayPosition(150, 150) %08lx\n", IDirectDrawSurface_SetOverlayPosition(ov, 150, 150));
    hr = IDirectDrawSurface_GetOverlayPosition(ov, &x, &y);
    printf("GetOverlayPosition %08lx %ld,%ld\n", hr, x, y);

    LPDIRECTDRAWSURFACE ov2 = overlay(dd, "second");
    RECT dst2 = {0, 0, 64, 32};
    printf("UpdateOverlay show a second overlay %08lx\n",
           IDirectDrawSurface_UpdateOverlay(ov2, NULL, primary, &dst2, DDOVER_SHOW, NULL));

    printf("Flip %08lx\n", IDirectDrawSurface_Flip(primary, NULL, DDFLIP_WAIT));
    fflush(stdout);
    /* Keep presenting: the frame runner stops the program at its 10th frame. */
    for (int k = 0; k < 200; k++) IDirectDrawSurface_Flip(primary, NULL, DDFLIP_WAIT);
    return 0;
}
