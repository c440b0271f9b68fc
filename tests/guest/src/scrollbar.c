/* Window scroll bars: SetScrollInfo / GetScrollInfo, SetScrollPos, SetScrollRange,
 * ShowScrollBar and EnableScrollBar on a WS_POPUP window (no border, so only
 * SM_CXVSCROLL / SM_CYHSCROLL change its client area), printing the values the
 * functions return, the client rectangle and the WM_SIZE messages sent. Sizes are
 * printed as the window's size less SM_CXVSCROLL / SM_CYHSCROLL (16 on Windows and
 * in winterp, 17 in Wine 8), so the output does not depend on the metrics. */
#include <windows.h>
#include <stdio.h>

static int sizes;
static int full_w, full_h;

/* A client width or height: the window's, or that less the scroll bar's. */
static const char *dim(char *buf, int v, int full, int metric)
{
    if (v == full)
        return "full";
    if (v == full - metric)
        return "full-bar";
    sprintf(buf, "%d", v);
    return buf;
}

static void size_line(const char *what, int w, int h)
{
    char a[16], b[16];
    printf("%s %s x %s", what, dim(a, w, full_w, GetSystemMetrics(SM_CXVSCROLL)),
           dim(b, h, full_h, GetSystemMetrics(SM_CYHSCROLL)));
}

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_SIZE) {
        sizes++;
        size_line("  WM_SIZE", LOWORD(lp), HIWORD(lp));
        printf("\n");
    }
    return DefWindowProcA(h, m, wp, lp);
}

static void client(HWND h, const char *what)
{
    RECT r;
    GetClientRect(h, &r);
    printf("%s:", what);
    size_line(" client", r.right, r.bottom);
    printf(", style bits %s%s\n", GetWindowLongA(h, GWL_STYLE) & WS_HSCROLL ? "H" : "-",
           GetWindowLongA(h, GWL_STYLE) & WS_VSCROLL ? "V" : "-");
}

static void info(HWND h, int bar, const char *what)
{
    SCROLLINFO si;
    BOOL ok;
    memset(&si, 0x55, sizeof si);
    si.cbSize = sizeof si;
    si.fMask = SIF_ALL;
    ok = GetScrollInfo(h, bar, &si);
    if (ok)
        printf("%s: GetScrollInfo min %d max %d page %u pos %d track %d\n", what, si.nMin,
               si.nMax, si.nPage, si.nPos, si.nTrackPos);
    else
        printf("%s: GetScrollInfo FALSE\n", what);
}

static int set(HWND h, int bar, UINT mask, int mn, int mx, UINT page, int pos)
{
    SCROLLINFO si;
    si.cbSize = sizeof si;
    si.fMask = mask;
    si.nMin = mn;
    si.nMax = mx;
    si.nPage = page;
    si.nPos = pos;
    return SetScrollInfo(h, bar, &si, TRUE);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc = {0};
    HWND h, plain;
    int mn, mx, ok;
    (void)prev;
    (void)cmd;
    (void)show;
    wc.lpfnWndProc = proc;
    wc.hInstance = inst;
    wc.lpszClassName = "ScrollTest";
    RegisterClassA(&wc);

    full_w = 200;
    full_h = 150;
    h = CreateWindowExA(0, "ScrollTest", "", WS_POPUP | WS_VSCROLL | WS_HSCROLL, 10, 10, 200,
                        150, NULL, NULL, inst, NULL);
    client(h, "created with both bars");
    info(h, SB_VERT, "default vertical");
    printf("GetScrollPos %d\n", GetScrollPos(h, SB_VERT));

    printf("SetScrollInfo range 0..200 page 50 pos 180 -> %d\n",
           set(h, SB_VERT, SIF_RANGE | SIF_PAGE | SIF_POS, 0, 200, 50, 180));
    info(h, SB_VERT, "after");
    printf("SetScrollInfo pos -7 -> %d\n", set(h, SB_VERT, SIF_POS, 0, 0, 0, -7));
    printf("SetScrollInfo page 500 -> %d\n", set(h, SB_VERT, SIF_PAGE, 0, 0, 500, 0));
    info(h, SB_VERT, "page larger than range");
    client(h, "after");
    printf("SetScrollInfo range 10..60 page 0 pos 100 -> %d\n",
           set(h, SB_VERT, SIF_RANGE | SIF_PAGE | SIF_POS, 10, 60, 0, 100));
    info(h, SB_VERT, "after");
    client(h, "after");
    printf("SetScrollPos 30 -> %d\n", SetScrollPos(h, SB_VERT, 30, TRUE));
    printf("SetScrollPos 99 -> %d\n", SetScrollPos(h, SB_VERT, 99, TRUE));
    printf("GetScrollPos %d\n", GetScrollPos(h, SB_VERT));
    printf("SetScrollInfo inverted range 5..1 -> %d\n",
           set(h, SB_HORZ, SIF_RANGE | SIF_DISABLENOSCROLL, 5, 1, 0, 0));
    info(h, SB_HORZ, "inverted");
    client(h, "after (disabled, not hidden)");

    printf("ShowScrollBar SB_VERT FALSE -> %d\n", ShowScrollBar(h, SB_VERT, FALSE));
    client(h, "vertical hidden");
    printf("ShowScrollBar SB_BOTH FALSE -> %d\n", ShowScrollBar(h, SB_BOTH, FALSE));
    client(h, "both hidden");
    printf("ShowScrollBar SB_BOTH TRUE -> %d\n", ShowScrollBar(h, SB_BOTH, TRUE));
    client(h, "both shown");
    printf("EnableScrollBar ESB_DISABLE_BOTH -> %d\n",
           EnableScrollBar(h, SB_VERT, ESB_DISABLE_BOTH));

    full_w = 100;
    full_h = 80;
    plain = CreateWindowExA(0, "ScrollTest", "", WS_POPUP, 10, 10, 100, 80, NULL, NULL, inst,
                            NULL);
    client(plain, "created without bars");
    info(plain, SB_VERT, "no bar");
    printf("SetScrollPos without a bar -> %d\n", SetScrollPos(plain, SB_VERT, 5, TRUE));
    client(plain, "after");
    printf("SetScrollRange 0..10 -> %d\n", SetScrollRange(plain, SB_HORZ, 0, 10, TRUE));
    client(plain, "range set");
    info(plain, SB_HORZ, "created on demand");
    mn = mx = 77;
    ok = GetScrollRange(plain, SB_HORZ, &mn, &mx);
    printf("GetScrollRange -> %d, %d..%d\n", ok, mn, mx);
    printf("SetScrollRange 0..0 -> %d\n", SetScrollRange(plain, SB_HORZ, 0, 0, TRUE));
    client(plain, "empty range");
    printf("WM_SIZE messages: %d\n", sizes);
    DestroyWindow(plain);
    DestroyWindow(h);
    return 0;
}
