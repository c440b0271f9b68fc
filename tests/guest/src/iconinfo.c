/* Icons and cursors with their pictures: LoadIcon/LoadCursor/LoadImage from the
 * program's own resources (src/iconinfo.rc; the images are written by
 * src/iconinfo.py), GetIconInfo's bitmaps (printed with GetObject), DrawIcon and
 * DrawIconEx onto a memory DC (a few pixels printed with GetPixel), the
 * constructors (CreateIconFromResourceEx, CreateIconIndirect, CreateCursor,
 * CopyIcon), LookupIconIdFromDirectoryEx, DestroyIcon, and the sizes of the
 * system icon IDI_APPLICATION (its pixels differ between Windows versions).
 *
 * The pictures (iconinfo.py has the code):
 * - icon 1 has three images: 32x32 at 4 bpp (maroon wherever it is opaque), 32x32
 *   at 24 bpp and 16x16 at 8 bpp. The 24-bpp one: a transparent 4-pixel frame,
 *   quadrants red (top left), green, blue, yellow, and two transparent 4x4 blocks
 *   at (4,24) and (24,24) whose XOR colours are white (inverts the screen) and
 *   navy. The 16x16 one: a transparent 2-pixel frame, left half RGB(0x20,0x80,0x60),
 *   right half RGB(0xf0,0x80,0x20).
 * - cursor 2: 32x32 monochrome, hot spot (5,7), opaque only at (8..16, 8..16):
 *   black above y=12, white below; an inverting block at (20..24, 20..24).
 * - icon 3: 32x32 monochrome, opaque at (8..24, 8..24): white left half, black
 *   right half.
 *
 * The expected output is this program's output under Wine 8.0 on a 24-bit X
 * display (colour bitmaps compatible with the screen have 32 bits per pixel). */
#include <windows.h>
#include <stdio.h>
#include <string.h>

#define BG RGB(0x12, 0x34, 0x56)

static HDC mem;

static void clear(void)
{
    HBRUSH b = CreateSolidBrush(BG);
    RECT r = {0, 0, 64, 64};
    FillRect(mem, &r, b);
    DeleteObject(b);
}

static void px(const char *what, int x, int y)
{
    printf("    (%d,%d) %s: %06lx\n", x, y, what, (unsigned long)GetPixel(mem, x, y));
}

static void show_bitmap(const char *what, HBITMAP hbm)
{
    if (!hbm) {
        printf("  %s: NULL\n", what);
        return;
    }
    BITMAP bm;
    int n = GetObjectA(hbm, sizeof bm, &bm);
    printf("  %s: GetObject %d, type %ld, %ldx%ld, width bytes %ld, planes %u, bits %u, "
           "bmBits %s\n",
           what, n, bm.bmType, bm.bmWidth, bm.bmHeight, bm.bmWidthBytes, bm.bmPlanes,
           bm.bmBitsPixel, bm.bmBits ? "set" : "NULL");
}

/* Pixels of a bitmap GetIconInfo made, read through a memory DC. */
static void bitmap_px(HBITMAP hbm, const int *xy, int n)
{
    HDC dc = CreateCompatibleDC(NULL);
    HGDIOBJ old = SelectObject(dc, hbm);
    for (int i = 0; i < n; i++)
        printf("    (%d,%d): %06lx\n", xy[2 * i], xy[2 * i + 1],
               (unsigned long)GetPixel(dc, xy[2 * i], xy[2 * i + 1]));
    SelectObject(dc, old);
    DeleteDC(dc);
}

/* GetIconInfo: the fields, then each bitmap; the bitmaps are the caller's. */
static void show_info(const char *what, HICON h, const int *mask_xy, int nm,
                      const int *color_xy, int nc)
{
    ICONINFO ii = {0};
    BOOL ok = GetIconInfo(h, &ii);
    printf("%s: GetIconInfo %d, fIcon %d, hot spot %lu,%lu\n", what, ok, ii.fIcon,
           ii.xHotspot, ii.yHotspot);
    if (!ok)
        return;
    show_bitmap("hbmMask", ii.hbmMask);
    if (nm)
        bitmap_px(ii.hbmMask, mask_xy, nm);
    show_bitmap("hbmColor", ii.hbmColor);
    if (nc && ii.hbmColor)
        bitmap_px(ii.hbmColor, color_xy, nc);
    DeleteObject(ii.hbmMask);
    if (ii.hbmColor)
        DeleteObject(ii.hbmColor);
}

static const void *resource(HINSTANCE inst, int id, LPCSTR type, DWORD *size)
{
    HRSRC r = FindResourceA(inst, MAKEINTRESOURCEA(id), type);
    *size = r ? SizeofResource(inst, r) : 0;
    return r ? LockResource(LoadResource(inst, r)) : NULL;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);

    BITMAPINFO bi;
    memset(&bi, 0, sizeof bi);
    bi.bmiHeader = (BITMAPINFOHEADER){sizeof(BITMAPINFOHEADER), 64, -64, 1, 32, BI_RGB, 0, 0, 0, 0, 0};
    void *bits;
    HBITMAP target = CreateDIBSection(NULL, &bi, DIB_RGB_COLORS, &bits, NULL, 0);
    mem = CreateCompatibleDC(NULL);
    SelectObject(mem, target);
    printf("background %06lx\n", (unsigned long)BG);

    /* --- icon 1: LoadIcon picks the 32x32 24-bpp image --- */
    HICON icon = LoadIconA(inst, MAKEINTRESOURCEA(1));
    printf("LoadIcon(1): %s, again the same handle: %s\n", icon ? "loaded" : "NULL",
           LoadIconA(inst, MAKEINTRESOURCEA(1)) == icon ? "yes" : "no");
    static const int mask_xy[] = {0, 0, 10, 10, 5, 25, 25, 25};
    static const int color_xy[] = {0, 0, 10, 10, 20, 10, 10, 20, 20, 20, 5, 25, 25, 25};
    show_info("icon 1", icon, mask_xy, 4, color_xy, 7);

    clear();
    printf("DrawIcon(icon 1) at 8,8: %d\n", DrawIcon(mem, 8, 8, icon));
    px("outside", 7, 7);
    px("frame", 8, 8);
    px("red", 18, 18);
    px("green", 28, 18);
    px("blue", 18, 28);
    px("yellow", 28, 28);
    px("inverted", 13, 33);
    px("navy XOR", 33, 33);
    px("frame", 39, 39);
    px("outside", 40, 40);

    clear();
    printf("DrawIconEx(icon 1, 64x64, DI_NORMAL): %d\n",
           DrawIconEx(mem, 0, 0, icon, 64, 64, 0, NULL, DI_NORMAL));
    px("frame", 7, 7);
    px("red", 8, 8);
    px("red", 31, 31);
    px("green", 32, 31);
    px("yellow", 55, 47);
    px("inverted", 8, 48);
    px("frame", 56, 56);

    clear();
    printf("DrawIconEx(icon 1, DI_MASK): %d\n",
           DrawIconEx(mem, 0, 0, icon, 0, 0, 0, NULL, DI_MASK));
    px("frame", 0, 0);
    px("red", 10, 10);
    px("inverted", 5, 25);
    clear();
    printf("DrawIconEx(icon 1, DI_IMAGE): %d\n",
           DrawIconEx(mem, 0, 0, icon, 0, 0, 0, NULL, DI_IMAGE));
    px("frame", 0, 0);
    px("red", 10, 10);
    px("inverted", 5, 25);

    clear();
    HBRUSH white = GetStockObject(WHITE_BRUSH);
    printf("DrawIconEx(icon 1, flicker-free brush): %d\n",
           DrawIconEx(mem, 0, 0, icon, 0, 0, 0, white, DI_NORMAL));
    px("frame", 0, 0);
    px("red", 10, 10);
    px("inverted", 5, 25);
    px("outside", 32, 10);

    /* --- icon 1 at 16x16: the 8-bpp image --- */
    HICON small = LoadImageA(inst, MAKEINTRESOURCEA(1), IMAGE_ICON, 16, 16, 0);
    static const int small_xy[] = {0, 0, 2, 2, 12, 12};
    show_info("LoadImage(icon 1, 16x16)", small, small_xy, 3, small_xy, 3);
    clear();
    printf("DrawIcon(16x16 icon) draws 32x32: %d\n", DrawIcon(mem, 0, 0, small));
    px("frame", 3, 3);
    px("left", 4, 4);
    px("left", 15, 10);
    px("right", 16, 10);
    px("right", 27, 27);
    px("frame", 28, 28);
    clear();
    printf("DrawIconEx(16x16 icon, own size): %d\n",
           DrawIconEx(mem, 0, 0, small, 0, 0, 0, NULL, DI_NORMAL));
    px("left", 2, 2);
    px("right", 8, 2);
    px("frame", 14, 14);
    px("outside", 16, 8);
    printf("DestroyIcon(16x16 icon): %d\n", DestroyIcon(small));

    HICON first = LoadImageA(inst, MAKEINTRESOURCEA(1), IMAGE_ICON, 0, 0, 0);
    static const int red_xy[] = {10, 10};
    show_info("LoadImage(icon 1, 0x0, no LR_DEFAULTSIZE)", first, NULL, 0, red_xy, 1);
    DestroyIcon(first);

    /* --- the directory and CreateIconFromResourceEx --- */
    DWORD dsize, isize;
    const BYTE *dir = resource(inst, 1, RT_GROUP_ICON, &dsize);
    printf("RT_GROUP_ICON 1: %lu bytes, %u entries\n", dsize, dir ? ((const WORD *)dir)[2] : 0);
    printf("LookupIconIdFromDirectoryEx: 16x16 -> %d, 32x32 -> %d, 20x20 -> %d, 48x48 -> %d\n",
           LookupIconIdFromDirectoryEx((PBYTE)dir, TRUE, 16, 16, 0),
           LookupIconIdFromDirectoryEx((PBYTE)dir, TRUE, 32, 32, 0),
           LookupIconIdFromDirectoryEx((PBYTE)dir, TRUE, 20, 20, 0),
           LookupIconIdFromDirectoryEx((PBYTE)dir, TRUE, 48, 48, 0));
    printf("LookupIconIdFromDirectory: %d\n", LookupIconIdFromDirectory((PBYTE)dir, TRUE));
    const BYTE *img = resource(inst, 1, RT_ICON, &isize);
    printf("RT_ICON 1: %lu bytes\n", isize);
    HICON four = CreateIconFromResourceEx((PBYTE)img, isize, TRUE, 0x00030000, 0, 0, 0);
    show_info("CreateIconFromResourceEx(RT_ICON 1)", four, NULL, 0, red_xy, 1);
    HICON big = CreateIconFromResourceEx((PBYTE)img, isize, TRUE, 0x00030000, 48, 48, 0);
    show_info("CreateIconFromResourceEx(RT_ICON 1, 48x48)", big, NULL, 0, NULL, 0);
    DestroyIcon(four);
    DestroyIcon(big);

    /* --- cursor 2: monochrome --- */
    HCURSOR cur = LoadCursorA(inst, MAKEINTRESOURCEA(2));
    const BYTE *cdir = resource(inst, 2, RT_GROUP_CURSOR, &dsize);
    printf("LoadCursor(2): %s; LookupIconIdFromDirectoryEx(cursor, 32x32) -> %d\n",
           cur ? "loaded" : "NULL", LookupIconIdFromDirectoryEx((PBYTE)cdir, FALSE, 32, 32, 0));
    static const int cmask_xy[] = {0, 0, 10, 10, 10, 42, 10, 45, 21, 53};
    show_info("cursor 2", cur, cmask_xy, 5, NULL, 0);
    clear();
    printf("DrawIcon(cursor 2) at 0,0: %d\n", DrawIcon(mem, 0, 0, cur));
    px("clear", 0, 0);
    px("black", 10, 10);
    px("white", 10, 13);
    px("inverted", 21, 21);
    px("clear", 30, 30);

    /* --- icon 3: monochrome --- */
    HICON mono = LoadIconA(inst, MAKEINTRESOURCEA(3));
    show_info("icon 3", mono, NULL, 0, NULL, 0);
    clear();
    printf("DrawIcon(icon 3): %d\n", DrawIcon(mem, 0, 0, mono));
    px("clear", 0, 0);
    px("white", 10, 10);
    px("black", 20, 10);

    /* --- the system icon (sizes only) --- */
    HICON app = LoadIconA(NULL, IDI_APPLICATION);
    printf("LoadIcon(NULL, IDI_APPLICATION): %s, again the same handle: %s\n",
           app ? "loaded" : "NULL", LoadIconA(NULL, IDI_APPLICATION) == app ? "yes" : "no");
    show_info("IDI_APPLICATION", app, NULL, 0, NULL, 0);
    clear();
    printf("DrawIcon(IDI_APPLICATION): %d\n", DrawIcon(mem, 0, 0, app));
    ICONINFO ai = {0};
    BOOL ok = GetIconInfo(LoadCursorA(NULL, IDC_ARROW), &ai);
    printf("IDC_ARROW: GetIconInfo %d, fIcon %d\n", ok, ai.fIcon);
    if (ok) {
        DeleteObject(ai.hbmMask);
        if (ai.hbmColor)
            DeleteObject(ai.hbmColor);
    }

    /* --- CreateIconIndirect --- */
    /* 8 pixels wide, rows of 2 bytes: an AND mask whose top 4 rows are 1, then
     * (the lower half of a monochrome icon's mask bitmap) an XOR image whose left
     * 4 columns are 1. */
    static const BYTE and8[32] = {0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0xf0, 0, 0xf0, 0, 0xf0, 0, 0xf0, 0,
                                  0xf0, 0, 0xf0, 0, 0xf0, 0, 0xf0, 0};
    HBITMAP mask = CreateBitmap(8, 8, 1, 1, and8);
    HDC screen = GetDC(NULL);
    HBITMAP color = CreateCompatibleBitmap(screen, 8, 8);
    ReleaseDC(NULL, screen);
    HDC cdc = CreateCompatibleDC(NULL);
    HGDIOBJ old = SelectObject(cdc, color);
    RECT r8 = {0, 0, 8, 8};
    HBRUSH blue = CreateSolidBrush(RGB(0, 0, 255));
    FillRect(cdc, &r8, blue);
    DeleteObject(blue);
    SelectObject(cdc, old);
    DeleteDC(cdc);
    ICONINFO ci = {TRUE, 1, 1, mask, color};
    HICON made = CreateIconIndirect(&ci);
    show_info("CreateIconIndirect(8x8 colour)", made, NULL, 0, NULL, 0);
    clear();
    printf("DrawIcon(8x8 icon): %d\n", DrawIcon(mem, 0, 0, made));
    px("mask 1, blue XOR", 0, 0);
    px("mask 0, blue", 0, 20);
    HBITMAP mono_mask = CreateBitmap(8, 16, 1, 1, and8);
    ICONINFO mi = {FALSE, 2, 3, mono_mask, NULL};
    HCURSOR made_cur = CreateIconIndirect(&mi);
    show_info("CreateIconIndirect(8x16 monochrome cursor)", made_cur, NULL, 0, NULL, 0);
    clear();
    DrawIconEx(mem, 0, 0, made_cur, 0, 0, 0, NULL, DI_NORMAL);
    px("mask 1, XOR 1", 0, 0);
    px("mask 1, XOR 0", 6, 0);
    px("mask 0, XOR 1", 0, 6);
    px("mask 0, XOR 0", 6, 6);
    printf("the bitmaps stay the caller's: DeleteObject %d %d %d\n", DeleteObject(mask),
           DeleteObject(color), DeleteObject(mono_mask));

    /* --- CreateCursor, CopyIcon, DestroyIcon --- */
    BYTE and_plane[4 * 32], xor_plane[4 * 32];
    memset(and_plane, 0xff, sizeof and_plane);
    memset(xor_plane, 0, sizeof xor_plane);
    xor_plane[4 * 3] = 0x80; /* inverts pixel (0,3) */
    HCURSOR blank = CreateCursor(inst, 1, 2, 32, 32, and_plane, xor_plane);
    static const int blank_xy[] = {0, 0, 0, 35};
    show_info("CreateCursor", blank, blank_xy, 2, NULL, 0);
    clear();
    DrawIcon(mem, 0, 0, blank);
    px("clear", 0, 0);
    px("inverted", 0, 3);
    printf("DestroyCursor(created): %d\n", DestroyCursor(blank));

    HICON copy = CopyIcon(icon);
    printf("CopyIcon: %s, a new handle: %s\n", copy ? "copied" : "NULL",
           copy != icon ? "yes" : "no");
    show_info("copy", copy, NULL, 0, red_xy, 1);
    printf("DestroyIcon(copy): %d\n", DestroyIcon(copy));
    /* Each call in its own statement: the order a C compiler evaluates arguments
     * in is unspecified, and GetLastError must come after the call it reports. */
    ICONINFO gone;
    SetLastError(0);
    ok = GetIconInfo(copy, &gone);
    printf("GetIconInfo(destroyed copy): %d, error %lu\n", ok, GetLastError());
    ok = DestroyIcon(icon);
    printf("DestroyIcon(LoadIcon's shared icon): %d", ok);
    printf(", still usable: %d\n", DrawIcon(mem, 0, 0, icon));
    SetLastError(0);
    ok = GetIconInfo(NULL, &gone);
    printf("GetIconInfo(NULL): %d, error %lu\n", ok, GetLastError());
    printf("DrawIcon(NULL): %d\n", DrawIcon(mem, 0, 0, NULL));
    /* Missing icons are NULL (the error code is not documented: Wine gives
     * ERROR_RESOURCE_TYPE_NOT_FOUND, winterp ERROR_RESOURCE_NAME_NOT_FOUND). */
    printf("LoadIcon(NULL, 12345): %s\n", LoadIconA(NULL, MAKEINTRESOURCEA(12345)) ? "icon" : "NULL");
    printf("LoadIcon(inst, 99): %s\n", LoadIconA(inst, MAKEINTRESOURCEA(99)) ? "icon" : "NULL");
    DeleteDC(mem);
    DeleteObject(target);
    return 0;
}
