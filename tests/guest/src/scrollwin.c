/*
 * scrollwin: ScrollWindow. The whole client area (children move along), a part
 * of it (children stay), and with a clipping rectangle: the return value, where
 * a drawn square went (GetPixel through a window DC), the child's position and
 * the update rectangle the uncovered part leaves (GetUpdateRect).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

static HWND main_w, child;

static void state(const char *what)
{
    RECT u, c;
    HDC dc = GetDC(main_w);
    BOOL any = GetUpdateRect(main_w, &u, FALSE);
    GetWindowRect(child, &c);
    MapWindowPoints(NULL, main_w, (POINT *)&c, 2);
    printf("%s: update %d", what, any != 0);
    if (any)
        printf(" (%ld,%ld)-(%ld,%ld)", u.left, u.top, u.right, u.bottom);
    printf(", child at (%ld,%ld)-(%ld,%ld)\n", c.left, c.top, c.right, c.bottom);
    /* Where the 10x10 red square is: its corners and centre, by rows. */
    printf("  red at:");
    for (int y = 0; y < 120; y += 5)
        for (int x = 0; x < 160; x += 5)
            if (GetPixel(dc, x, y) == RGB(255, 0, 0))
                printf(" %d,%d", x, y);
    printf("\n");
    ReleaseDC(main_w, dc);
}

/* A white client area with a red square at (40,40)-(50,50), nothing left to paint. */
static void reset(void)
{
    RECT r = {0, 0, 400, 300}, sq = {40, 40, 50, 50};
    HDC dc = GetDC(main_w);
    FillRect(dc, &r, GetStockObject(WHITE_BRUSH));
    HBRUSH red = CreateSolidBrush(RGB(255, 0, 0));
    FillRect(dc, &sq, red);
    DeleteObject(red);
    ReleaseDC(main_w, dc);
    SetWindowPos(child, NULL, 100, 10, 20, 15, SWP_NOZORDER | SWP_NOACTIVATE);
    ValidateRect(main_w, NULL);
}

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_ERASEBKGND)
        return 1;
    if (m == WM_PAINT) {
        /* Only the start-up paint is dispatched; later update areas are read. */
        PAINTSTRUCT ps;
        BeginPaint(h, &ps);
        EndPaint(h, &ps);
        return 0;
    }
    return DefWindowProcA(h, m, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    WNDCLASSA wc = {0};
    MSG msg;
    BOOL r;
    RECT part = {0, 0, 100, 100}, clip = {0, 0, 100, 50};
    wc.lpfnWndProc = proc;
    wc.hInstance = inst;
    wc.lpszClassName = "scrollwin";
    wc.hbrBackground = GetStockObject(WHITE_BRUSH);
    RegisterClassA(&wc);
    main_w = CreateWindowExA(0, "scrollwin", "scroll", WS_OVERLAPPED | WS_CAPTION | WS_VISIBLE,
                             0, 0, 400, 300, NULL, NULL, inst, NULL);
    child = CreateWindowExA(0, "static", "", WS_CHILD | WS_VISIBLE, 100, 10, 20, 15, main_w,
                            NULL, inst, NULL);
    while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE))
        DispatchMessageA(&msg);

    reset();
    state("start");

    r = ScrollWindow(main_w, 20, 10, NULL, NULL);
    printf("ScrollWindow(20, 10) = %d\n", r != 0);
    state("whole client area");

    reset();
    r = ScrollWindow(main_w, -30, 0, &part, NULL);
    printf("ScrollWindow(-30, 0, (0,0)-(100,100)) = %d\n", r != 0);
    state("part");

    reset();
    r = ScrollWindow(main_w, 0, 20, NULL, &clip);
    printf("ScrollWindow(0, 20, clip (0,0)-(100,50)) = %d\n", r != 0);
    state("clipped");

    reset();
    r = ScrollWindow(main_w, 0, -5, &part, &clip);
    printf("ScrollWindow(0, -5, (0,0)-(100,100), clip (0,0)-(100,50)) = %d\n", r != 0);
    state("part and clip");

    DestroyWindow(main_w);
    return 0;
}
