/* DirectDraw blits at 8, 16 or 32 bits per pixel (the first argument; default 8).
 *
 * Exclusive full-screen 320x240 with a primary surface and one back buffer. Draws
 * into the back buffer with colour fills, BltFast with and without a source colour
 * key, a 2x stretch, left-right and up-down mirroring, a destination colour key,
 * a clipper with two rectangles, direct writes through Lock and GDI through GetDC,
 * then flips (present 1). It copies the front buffer back into the back buffer,
 * animates the palette (8 bpp: colour 1 turns from red to orange) and flips again
 * (present 2): the frame the tests compare.
 *
 * Before the last flip it prints what Lock reads back at sample points and a hash
 * of the back buffer outside the GDI text box, so the same run under Wine can be
 * compared line by line.
 *
 * With a second argument "offscreen" it does the same drawing in a windowed
 * (DDSCL_NORMAL) program into an off-screen surface of the given depth, without
 * changing the display mode, and prints the same samples: that runs under Wine on
 * a display whose depth cannot change (Xvfb), which is how the 8 and 16 bpp
 * samples were cross-checked.
 */
#include <windows.h>
#include <ddraw.h>
#include <stdio.h>
#include <stdlib.h>

#define W 320
#define H 240

/* The colours, by index: the 8-bit palette's first entries, and what 16 and
 * 32-bit pixels are made from. Components are 0 or 255 (exact in RGB565) except
 * grey. */
static const unsigned char COLORS[][3] = {
    {0, 0, 0},       /* 0 black */
    {255, 0, 0},     /* 1 red (8 bpp: orange after the palette animation) */
    {0, 255, 0},     /* 2 green */
    {0, 0, 255},     /* 3 blue */
    {255, 255, 255}, /* 4 white */
    {255, 255, 0},   /* 5 yellow */
    {255, 0, 255},   /* 6 magenta: the sprite's colour key */
    {0, 255, 255},   /* 7 cyan: the destination key */
    {128, 128, 128}, /* 8 grey */
    {0, 0, 128},     /* 9 navy: the background */
};
#define NCOLORS (sizeof COLORS / sizeof COLORS[0])

static int bpp = 8;
static int offscreen;
static LPDIRECTDRAW dd;
static LPDIRECTDRAWSURFACE primary, back, sprite;

static DWORD pix(int k)
{
    const unsigned char *c = COLORS[k];
    switch (bpp) {
    case 8:
        return (DWORD)k;
    case 16:
        return (DWORD)((c[0] >> 3) << 11 | (c[1] >> 2) << 5 | (c[2] >> 3));
    default:
        return (DWORD)(c[0] << 16 | c[1] << 8 | c[2]);
    }
}

static void check(HRESULT hr, const char *what)
{
    if (hr != DD_OK) {
        printf("%s failed: 0x%08lx\n", what, (unsigned long)hr);
        fflush(stdout);
        ExitProcess(1);
    }
}

static void fill(LPDIRECTDRAWSURFACE s, int l, int t, int r, int b, int k)
{
    DDBLTFX fx;
    RECT rc = {l, t, r, b};
    memset(&fx, 0, sizeof fx);
    fx.dwSize = sizeof fx;
    fx.dwFillColor = pix(k);
    check(IDirectDrawSurface_Blt(s, &rc, NULL, NULL, DDBLT_COLORFILL | DDBLT_WAIT, &fx), "fill");
}

static void put(unsigned char *row, int x, DWORD v)
{
    switch (bpp) {
    case 8:
        row[x] = (unsigned char)v;
        break;
    case 16:
        ((unsigned short *)row)[x] = (unsigned short)v;
        break;
    default:
        ((DWORD *)row)[x] = v;
    }
}

static DWORD get(const unsigned char *row, int x)
{
    switch (bpp) {
    case 8:
        return row[x];
    case 16:
        return ((const unsigned short *)row)[x];
    default:
        return ((const DWORD *)row)[x] & 0xffffff;
    }
}

/* The sprite, 16x16: left half green with a yellow 4x4 block at its top-left
 * corner, right half magenta (the key) with a blue 2-pixel column at x 14-15. */
static void draw_sprite(void)
{
    DDSURFACEDESC d;
    int x, y;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    check(IDirectDrawSurface_Lock(sprite, NULL, &d, DDLOCK_WAIT, NULL), "Lock sprite");
    for (y = 0; y < 16; y++) {
        unsigned char *row = (unsigned char *)d.lpSurface + y * d.lPitch;
        for (x = 0; x < 16; x++) {
            int k = x < 8 ? 2 : 6;
            if (x < 4 && y < 4)
                k = 5;
            if (x >= 14)
                k = 3;
            put(row, x, pix(k));
        }
    }
    check(IDirectDrawSurface_Unlock(sprite, NULL), "Unlock sprite");
}

/* Off-screen mode: surfaces get the test's depth explicitly (the display's may
 * differ). */
static void set_format(DDSURFACEDESC *d)
{
    d->dwFlags |= DDSD_PIXELFORMAT;
    d->ddpfPixelFormat.dwSize = sizeof d->ddpfPixelFormat;
    d->ddpfPixelFormat.dwRGBBitCount = bpp;
    if (bpp == 8) {
        d->ddpfPixelFormat.dwFlags = DDPF_RGB | DDPF_PALETTEINDEXED8;
    } else {
        d->ddpfPixelFormat.dwFlags = DDPF_RGB;
        d->ddpfPixelFormat.dwRBitMask = bpp == 16 ? 0xf800 : 0xff0000;
        d->ddpfPixelFormat.dwGBitMask = bpp == 16 ? 0x07e0 : 0x00ff00;
        d->ddpfPixelFormat.dwBBitMask = bpp == 16 ? 0x001f : 0x0000ff;
    }
}

static const int SAMPLES[][2] = {
    {0, 0}, {5, 5}, {10, 10}, {59, 39}, {60, 40},          /* background, red fill */
    {70, 10}, {77, 15}, {78, 15}, {85, 20}, {84, 20},     /* BltFast keyed */
    {90, 10}, {98, 15}, {104, 15}, {105, 25},             /* BltFast unkeyed */
    {110, 10}, {117, 17}, {118, 18}, {125, 25}, {126, 30}, {139, 41}, {141, 41}, /* stretch */
    {150, 10}, {151, 11}, {153, 13}, {157, 15}, {158, 15}, {163, 20}, {165, 25}, /* mirror LR */
    {170, 10}, {171, 22}, {173, 25}, {175, 20}, {184, 12}, {185, 12}, {179, 10}, /* mirror UD */
    {10, 50}, {10, 60}, {20, 65}, {40, 69}, {59, 70}, {30, 75},               /* dest key */
    {195, 5}, {200, 10}, {219, 29}, {220, 20}, {225, 20}, {230, 10}, {249, 29}, {250, 30}, /* clip */
    {10, 100}, {11, 101}, {49, 139}, {12, 100}, {10, 140}, {30, 140}, {49, 140}, /* Lock */
    {100, 100}, {139, 119}, {140, 120}, {99, 99},         /* GDI FillRect */
    {319, 239}, {318, 238},
};
#define NSAMPLES (sizeof SAMPLES / sizeof SAMPLES[0])

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    return DefWindowProcA(h, m, w, l);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    HWND hwnd;
    DDSURFACEDESC d;
    DDSCAPS caps;
    DDBLTFX fx;
    DDCOLORKEY key;
    LPDIRECTDRAWPALETTE pal = NULL;
    LPDIRECTDRAWCLIPPER clip;
    LPDIRECTDRAW2 dd2;
    PALETTEENTRY pe[256];
    RECT rc, src;
    HDC hdc;
    int x, y, i;
    ULONG refs;
    unsigned long hash = 2166136261u;
    (void)prev;
    (void)show;

    if (cmd && atoi(cmd))
        bpp = atoi(cmd);
    offscreen = cmd && strstr(cmd, "offscreen") != NULL;

    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "ddraw_blit";
    RegisterClassA(&wc);
    hwnd = CreateWindowExA(0, "ddraw_blit", "ddraw_blit", WS_POPUP | WS_VISIBLE, 0, 0, W, H,
                           NULL, NULL, inst, NULL);

    check(DirectDrawCreate(NULL, &dd, NULL), "DirectDrawCreate");
    check(IDirectDraw_QueryInterface(dd, &IID_IDirectDraw2, (void **)&dd2), "QueryInterface");
    refs = IDirectDraw2_AddRef(dd2);
    printf("IDirectDraw2 AddRef -> %lu\n", refs);
    refs = IDirectDraw2_Release(dd2);
    printf("IDirectDraw2 Release -> %lu\n", refs);
    if (offscreen) {
        check(IDirectDraw_SetCooperativeLevel(dd, hwnd, DDSCL_NORMAL), "SetCooperativeLevel");
        IDirectDraw2_Release(dd2);
        memset(&d, 0, sizeof d);
        d.dwSize = sizeof d;
        d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT | DDSD_PIXELFORMAT;
        d.dwWidth = W;
        d.dwHeight = H;
        d.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN;
        set_format(&d);
        check(IDirectDraw_CreateSurface(dd, &d, &back, NULL), "CreateSurface offscreen");
    } else {
        check(IDirectDraw_SetCooperativeLevel(dd, hwnd, DDSCL_EXCLUSIVE | DDSCL_FULLSCREEN),
              "SetCooperativeLevel");
        check(IDirectDraw2_SetDisplayMode(dd2, W, H, bpp, 0, 0), "SetDisplayMode");
        IDirectDraw2_Release(dd2);
        printf("GetSystemMetrics %d x %d\n", GetSystemMetrics(SM_CXSCREEN),
               GetSystemMetrics(SM_CYSCREEN));

        memset(&d, 0, sizeof d);
        d.dwSize = sizeof d;
        d.dwFlags = DDSD_CAPS | DDSD_BACKBUFFERCOUNT;
        d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP | DDSCAPS_COMPLEX;
        d.dwBackBufferCount = 1;
        check(IDirectDraw_CreateSurface(dd, &d, &primary, NULL), "CreateSurface primary");
        caps.dwCaps = DDSCAPS_BACKBUFFER;
        check(IDirectDrawSurface_GetAttachedSurface(primary, &caps, &back),
              "GetAttachedSurface");
    }

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    check(IDirectDrawSurface_GetSurfaceDesc(back, &d), "GetSurfaceDesc");
    printf("back buffer %lu x %lu pitch %ld bpp %lu masks %06lx %06lx %06lx\n",
           (unsigned long)d.dwWidth, (unsigned long)d.dwHeight, (long)d.lPitch,
           (unsigned long)d.ddpfPixelFormat.dwRGBBitCount,
           (unsigned long)d.ddpfPixelFormat.dwRBitMask,
           (unsigned long)d.ddpfPixelFormat.dwGBitMask,
           (unsigned long)d.ddpfPixelFormat.dwBBitMask);
    if (!offscreen)
        printf("back buffer caps: backbuffer %d flip %d\n",
               (d.ddsCaps.dwCaps & DDSCAPS_BACKBUFFER) != 0,
               (d.ddsCaps.dwCaps & DDSCAPS_FLIP) != 0);

    if (bpp == 8) {
        memset(pe, 0, sizeof pe);
        for (i = 0; i < (int)NCOLORS; i++) {
            pe[i].peRed = COLORS[i][0];
            pe[i].peGreen = COLORS[i][1];
            pe[i].peBlue = COLORS[i][2];
        }
        check(IDirectDraw_CreatePalette(dd, DDPCAPS_8BIT | DDPCAPS_ALLOW256, pe, &pal, NULL),
              "CreatePalette");
        check(IDirectDrawSurface_SetPalette(offscreen ? back : primary, pal), "SetPalette");
    }

    /* Background and a red rectangle. */
    fill(back, 0, 0, W, H, 9);
    fill(back, 10, 10, 60, 40, 1);

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT;
    d.dwWidth = 16;
    d.dwHeight = 16;
    d.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN;
    if (offscreen)
        set_format(&d);
    check(IDirectDraw_CreateSurface(dd, &d, &sprite, NULL), "CreateSurface sprite");
    draw_sprite();
    key.dwColorSpaceLowValue = key.dwColorSpaceHighValue = pix(6);
    check(IDirectDrawSurface_SetColorKey(sprite, DDCKEY_SRCBLT, &key), "SetColorKey");
    memset(&key, 0, sizeof key);
    check(IDirectDrawSurface_GetColorKey(sprite, DDCKEY_SRCBLT, &key), "GetColorKey");
    printf("sprite key %lx %lx\n", (unsigned long)key.dwColorSpaceLowValue,
           (unsigned long)key.dwColorSpaceHighValue);

    /* BltFast with and without the key. */
    check(IDirectDrawSurface_BltFast(back, 70, 10, sprite, NULL,
                                     DDBLTFAST_SRCCOLORKEY | DDBLTFAST_WAIT), "BltFast key");
    check(IDirectDrawSurface_BltFast(back, 90, 10, sprite, NULL,
                                     DDBLTFAST_NOCOLORKEY | DDBLTFAST_WAIT), "BltFast");
    /* A 2x stretch with the key. */
    SetRect(&rc, 110, 10, 142, 42);
    check(IDirectDrawSurface_Blt(back, &rc, sprite, NULL, DDBLT_KEYSRC | DDBLT_WAIT, NULL),
          "Blt stretch");
    /* Mirrors (no key). */
    memset(&fx, 0, sizeof fx);
    fx.dwSize = sizeof fx;
    fx.dwDDFX = DDBLTFX_MIRRORLEFTRIGHT;
    SetRect(&rc, 150, 10, 166, 26);
    check(IDirectDrawSurface_Blt(back, &rc, sprite, NULL, DDBLT_DDFX | DDBLT_WAIT, &fx),
          "Blt mirror lr");
    fx.dwDDFX = DDBLTFX_MIRRORUPDOWN;
    SetRect(&rc, 170, 10, 186, 26);
    check(IDirectDrawSurface_Blt(back, &rc, sprite, NULL, DDBLT_DDFX | DDBLT_WAIT, &fx),
          "Blt mirror ud");
    /* Destination key: a white box with a cyan stripe; the sprite's left half,
     * stretched over the box, lands only on the stripe. */
    fill(back, 10, 50, 60, 80, 4);
    fill(back, 10, 60, 60, 70, 7);
    memset(&fx, 0, sizeof fx);
    fx.dwSize = sizeof fx;
    fx.ddckDestColorkey.dwColorSpaceLowValue = pix(7);
    fx.ddckDestColorkey.dwColorSpaceHighValue = pix(7);
    SetRect(&rc, 10, 50, 60, 80);
    SetRect(&src, 0, 0, 8, 16);
    check(IDirectDrawSurface_Blt(back, &rc, sprite, &src, DDBLT_KEYDESTOVERRIDE | DDBLT_WAIT,
                                 &fx), "Blt dest key");
    /* A clipper with two rectangles: a grey fill over both lands only inside them. */
    check(IDirectDraw_CreateClipper(dd, 0, &clip, NULL), "CreateClipper");
    {
        struct {
            RGNDATAHEADER h;
            RECT r[2];
        } rgn;
        memset(&rgn, 0, sizeof rgn);
        rgn.h.dwSize = sizeof rgn.h;
        rgn.h.iType = RDH_RECTANGLES;
        rgn.h.nCount = 2;
        rgn.h.nRgnSize = sizeof rgn.r;
        SetRect(&rgn.h.rcBound, 200, 10, 250, 30);
        SetRect(&rgn.r[0], 200, 10, 220, 30);
        SetRect(&rgn.r[1], 230, 10, 250, 30);
        check(IDirectDrawClipper_SetClipList(clip, (LPRGNDATA)&rgn, 0), "SetClipList");
    }
    check(IDirectDrawSurface_SetClipper(back, clip), "SetClipper");
    fill(back, 195, 5, 255, 35, 8);
    check(IDirectDrawSurface_SetClipper(back, NULL), "SetClipper NULL");
    refs = IDirectDrawClipper_Release(clip);
    printf("clipper Release -> %lu\n", refs);

    /* Lock: a white diagonal from (10,100) to (49,139) and a yellow row at y 140. */
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    check(IDirectDrawSurface_Lock(back, NULL, &d, DDLOCK_WAIT | DDLOCK_WRITEONLY, NULL),
          "Lock back");
    for (i = 0; i < 40; i++)
        put((unsigned char *)d.lpSurface + (100 + i) * d.lPitch, 10 + i, pix(4));
    for (x = 10; x < 50; x++)
        put((unsigned char *)d.lpSurface + 140 * d.lPitch, x, pix(5));
    check(IDirectDrawSurface_Unlock(back, NULL), "Unlock back");

    /* GDI: a green FillRect and some text. */
    check(IDirectDrawSurface_GetDC(back, &hdc), "GetDC");
    {
        HBRUSH br = CreateSolidBrush(RGB(0, 255, 0));
        SetRect(&rc, 100, 100, 140, 120);
        FillRect(hdc, &rc, br);
        DeleteObject(br);
        SetBkMode(hdc, TRANSPARENT);
        SetTextColor(hdc, RGB(255, 255, 255));
        TextOutA(hdc, 160, 180, "DirectDraw", 10);
    }
    check(IDirectDrawSurface_ReleaseDC(back, hdc), "ReleaseDC");

    if (!offscreen) {
        check(IDirectDrawSurface_Flip(primary, NULL, DDFLIP_WAIT), "Flip 1");
        /* The picture is now in the front buffer: copy it back and animate. */
        check(IDirectDrawSurface_Blt(back, NULL, primary, NULL, DDBLT_WAIT, NULL), "Blt copy");
    }
    if (pal) {
        PALETTEENTRY orange = {255, 128, 0, 0}, got;
        check(IDirectDrawPalette_SetEntries(pal, 0, 1, 1, &orange), "SetEntries");
        check(IDirectDrawPalette_GetEntries(pal, 0, 1, 1, &got), "GetEntries");
        printf("palette entry 1: %d %d %d\n", got.peRed, got.peGreen, got.peBlue);
    }

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    check(IDirectDrawSurface_Lock(back, NULL, &d, DDLOCK_WAIT | DDLOCK_READONLY, NULL),
          "Lock read");
    for (i = 0; i < (int)NSAMPLES; i++) {
        x = SAMPLES[i][0];
        y = SAMPLES[i][1];
        printf("(%d,%d) %lx\n", x, y,
               (unsigned long)get((unsigned char *)d.lpSurface + y * d.lPitch, x));
    }
    /* Everything but the text box (GDI fonts differ between systems). */
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) {
            DWORD v;
            if (y >= 170 && y < 210 && x >= 150)
                continue;
            v = get((unsigned char *)d.lpSurface + y * d.lPitch, x);
            for (i = 0; i < 4; i++) {
                hash = (hash ^ (v & 0xff)) * 16777619u;
                v >>= 8;
            }
        }
    }
    check(IDirectDrawSurface_Unlock(back, NULL), "Unlock read");
    printf("hash %08lx\n", hash);
    fflush(stdout);

    if (!offscreen)
        check(IDirectDrawSurface_Flip(primary, NULL, DDFLIP_WAIT), "Flip 2");

    IDirectDrawSurface_Release(sprite);
    refs = IDirectDrawSurface_Release(back);
    if (!offscreen) {
        refs = IDirectDrawSurface_Release(primary);
        printf("primary Release -> %lu\n", refs);
    }
    if (pal)
        IDirectDrawPalette_Release(pal);
    IDirectDraw_RestoreDisplayMode(dd);
    refs = IDirectDraw_Release(dd);
    printf("IDirectDraw Release -> %lu\n", refs);
    fflush(stdout);
    DestroyWindow(hwnd);
    return 0;
}
