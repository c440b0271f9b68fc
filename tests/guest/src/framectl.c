/*
 * framectl: DrawFrameControl into a 32-bit DIB section. For each type and state:
 * the return value, the rectangle DFCS_ADJUSTRECT writes back, and whether chosen
 * pixels (the corners and the first inner pixel of the frame, the centre) have
 * the system colour of their role: the colours of the schemes differ (Wine 8's
 * are not Windows 9x's), so pixels are checked by role, not by value. Roles are
 * what Wine 8 draws; the soft edges' COLOR_3DLIGHT pixels are not checked.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

#define BG RGB(1, 2, 3)
enum { SKIP = -1, BACK = -2, WHITE = -3, BLACK = -4 };

static HDC mdc;

static const char *check(int x, int y, int role)
{
    static char buf[8][16];
    static int k;
    COLORREF want, got = GetPixel(mdc, x, y);
    char *b = buf[k++ & 7];
    if (role == SKIP)
        return "-";
    want = role == BACK ? BG : role == WHITE ? RGB(255, 255, 255)
         : role == BLACK ? RGB(0, 0, 0) : GetSysColor(role);
    if (got == want)
        return "ok";
    snprintf(b, 16, "%06lx", (unsigned long)got);
    return b;
}

static void probe(const char *what, UINT type, UINT state, int tl, int br, int in, int mid)
{
    RECT r = {10, 10, 42, 34}, all = {0, 0, 64, 48};
    HBRUSH bg = CreateSolidBrush(BG);
    FillRect(mdc, &all, bg);
    DeleteObject(bg);
    BOOL ok = DrawFrameControl(mdc, &r, type, state);
    printf("%-24s = %d (%ld,%ld)-(%ld,%ld) tl %s br %s in %s mid %s out %s\n", what, ok,
           r.left, r.top, r.right, r.bottom, check(10, 10, tl), check(41, 33, br),
           check(11, 11, in), check(26, 22, mid), check(5, 5, BACK));
}

int main(void)
{
    BITMAPINFO bi = {{sizeof(BITMAPINFOHEADER), 64, -48, 1, 32, BI_RGB, 0, 0, 0, 0, 0}, {{0, 0, 0, 0}}};
    void *bits;
    mdc = CreateCompatibleDC(NULL);
    SelectObject(mdc, CreateDIBSection(NULL, &bi, DIB_RGB_COLORS, &bits, NULL, 0));

    probe("push", DFC_BUTTON, DFCS_BUTTONPUSH,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, COLOR_BTNFACE);
    probe("push pushed", DFC_BUTTON, DFCS_BUTTONPUSH | DFCS_PUSHED,
          COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNSHADOW, COLOR_BTNFACE);
    probe("push checked", DFC_BUTTON, DFCS_BUTTONPUSH | DFCS_CHECKED,
          COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNSHADOW, COLOR_BTNFACE);
    probe("push adjustrect", DFC_BUTTON, DFCS_BUTTONPUSH | DFCS_ADJUSTRECT,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, COLOR_BTNFACE);
    probe("push flat", DFC_BUTTON, DFCS_BUTTONPUSH | DFCS_FLAT,
          COLOR_BTNSHADOW, COLOR_BTNSHADOW, COLOR_BTNFACE, COLOR_BTNFACE);
    probe("check", DFC_BUTTON, DFCS_BUTTONCHECK, BACK, BACK, BACK, COLOR_WINDOW);
    probe("check checked", DFC_BUTTON, DFCS_BUTTONCHECK | DFCS_CHECKED,
          BACK, BACK, BACK, COLOR_BTNTEXT);
    probe("check inactive", DFC_BUTTON, DFCS_BUTTONCHECK | DFCS_INACTIVE,
          BACK, BACK, BACK, COLOR_BTNFACE);
    probe("check adjustrect", DFC_BUTTON, DFCS_BUTTONCHECK | DFCS_ADJUSTRECT,
          BACK, BACK, BACK, COLOR_WINDOW);
    probe("3state checked", DFC_BUTTON, DFCS_BUTTON3STATE | DFCS_CHECKED,
          BACK, BACK, BACK, COLOR_BTNSHADOW);
    probe("radio", DFC_BUTTON, DFCS_BUTTONRADIO, BACK, BACK, BACK, COLOR_WINDOW);
    probe("radio checked", DFC_BUTTON, DFCS_BUTTONRADIO | DFCS_CHECKED,
          BACK, BACK, BACK, COLOR_BTNTEXT);
    probe("scroll up", DFC_SCROLL, DFCS_SCROLLUP,
          SKIP, COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNTEXT);
    probe("scroll down pushed", DFC_SCROLL, DFCS_SCROLLDOWN | DFCS_PUSHED,
          COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNSHADOW, COLOR_BTNTEXT);
    probe("scroll left", DFC_SCROLL, DFCS_SCROLLLEFT,
          SKIP, COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNTEXT);
    probe("scroll left inactive", DFC_SCROLL, DFCS_SCROLLLEFT | DFCS_INACTIVE,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, COLOR_BTNSHADOW);
    probe("scroll right pushed", DFC_SCROLL, DFCS_SCROLLRIGHT | DFCS_PUSHED,
          COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNSHADOW, COLOR_BTNTEXT);
    probe("scroll combobox", DFC_SCROLL, DFCS_SCROLLCOMBOBOX,
          SKIP, COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNTEXT);
    probe("scroll up flat", DFC_SCROLL, DFCS_SCROLLUP | DFCS_FLAT,
          COLOR_BTNSHADOW, COLOR_BTNSHADOW, COLOR_BTNFACE, COLOR_BTNTEXT);
    probe("scroll up adjustrect", DFC_SCROLL, DFCS_SCROLLUP | DFCS_ADJUSTRECT,
          SKIP, COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNTEXT);
    probe("caption close", DFC_CAPTION, DFCS_CAPTIONCLOSE,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, SKIP);
    probe("caption close pushed", DFC_CAPTION, DFCS_CAPTIONCLOSE | DFCS_PUSHED,
          COLOR_3DDKSHADOW, COLOR_BTNHIGHLIGHT, COLOR_BTNSHADOW, SKIP);
    probe("caption min adjustrect", DFC_CAPTION, DFCS_CAPTIONMIN | DFCS_ADJUSTRECT,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, SKIP);
    probe("caption max", DFC_CAPTION, DFCS_CAPTIONMAX,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, SKIP);
    probe("caption restore", DFC_CAPTION, DFCS_CAPTIONRESTORE,
          COLOR_BTNHIGHLIGHT, COLOR_3DDKSHADOW, SKIP, SKIP);
    probe("menu check", DFC_MENU, DFCS_MENUCHECK, WHITE, WHITE, WHITE, BLACK);
    probe("menu arrow", DFC_MENU, DFCS_MENUARROW, WHITE, WHITE, WHITE, BLACK);
    probe("menu bullet", DFC_MENU, DFCS_MENUBULLET, WHITE, WHITE, WHITE, BLACK);
    probe("unknown type", 7, 0, BACK, BACK, BACK, BACK);
    probe("unknown button", DFC_BUTTON, 0x77, BACK, BACK, BACK, BACK);
    return 0;
}
