/* A small Win32 GUI program for winterp's USER32 tests: a window class, a main
 * window with a child window, GDI painting in WM_PAINT, a timer, keyboard and mouse
 * input, and WM_CLOSE -> DestroyWindow -> WM_QUIT. It reports what it receives on
 * standard output. */
#include <windows.h>
#include <stdio.h>

static HWND child;
static int ticks;

static LRESULT CALLBACK child_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    switch (m) {
    case WM_LBUTTONDOWN:
        printf("child click %d,%d\n", (short)LOWORD(lp), (short)HIWORD(lp));
        return 0;
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(h, &ps);
        RECT r;
        HBRUSH b = CreateSolidBrush(RGB(0, 0, 255));
        GetClientRect(h, &r);
        FillRect(dc, &r, b);
        DeleteObject(b);
        EndPaint(h, &ps);
        return 0;
    }
    }
    return DefWindowProcA(h, m, wp, lp);
}

static LRESULT CALLBACK main_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    switch (m) {
    case WM_CREATE:
        printf("create\n");
        SetTimer(h, 7, 50, NULL);
        child = CreateWindowExA(0, "GuiChild", "", WS_CHILD | WS_VISIBLE, 40, 30, 100, 50,
                                h, (HMENU)5, GetModuleHandleA(NULL), NULL);
        return 0;
    case WM_TIMER:
        ticks++;
        if (ticks == 3) {
            printf("timer %u x3\n", (unsigned)wp);
            KillTimer(h, 7);
        }
        return 0;
    case WM_KEYDOWN:
        printf("keydown %02x repeat %u scan %02x ext %u prev %u\n", (unsigned)wp,
               (unsigned)(lp & 0xffff), (unsigned)((lp >> 16) & 0xff),
               (unsigned)((lp >> 24) & 1), (unsigned)((lp >> 30) & 1));
        return 0;
    case WM_KEYUP:
        printf("keyup %02x prev %u trans %u\n", (unsigned)wp, (unsigned)((lp >> 30) & 1),
               (unsigned)((lp >> 31) & 1));
        return 0;
    case WM_CHAR:
        printf("char %c\n", (char)wp);
        return 0;
    case WM_LBUTTONDOWN:
        printf("click %d,%d mk %u\n", (short)LOWORD(lp), (short)HIWORD(lp), (unsigned)wp);
        return 0;
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(h, &ps);
        RECT r;
        HBRUSH b = CreateSolidBrush(RGB(255, 0, 0));
        GetClientRect(h, &r);
        FillRect(dc, &r, b);
        DeleteObject(b);
        EndPaint(h, &ps);
        return 0;
    }
    case WM_CLOSE:
        printf("close\n");
        DestroyWindow(h);
        return 0;
    case WM_DESTROY:
        printf("destroy\n");
        PostQuitMessage(3);
        return 0;
    }
    return DefWindowProcA(h, m, wp, lp);
}

int main(void)
{
    WNDCLASSA wc = {0};
    MSG msg;
    RECT r = {0, 0, 200, 120};
    HWND h;
    wc.lpfnWndProc = main_proc;
    wc.hInstance = GetModuleHandleA(NULL);
    wc.hCursor = LoadCursorA(NULL, IDC_ARROW);
    wc.lpszClassName = "GuiMain";
    if (!RegisterClassA(&wc))
        return 1;
    wc.lpfnWndProc = child_proc;
    wc.lpszClassName = "GuiChild";
    if (!RegisterClassA(&wc))
        return 2;
    AdjustWindowRect(&r, WS_OVERLAPPEDWINDOW, FALSE);
    h = CreateWindowExA(0, "GuiMain", "winterp gui test", WS_OVERLAPPEDWINDOW, CW_USEDEFAULT,
                        CW_USEDEFAULT, r.right - r.left, r.bottom - r.top, NULL, NULL,
                        wc.hInstance, NULL);
    if (!h)
        return 3;
    ShowWindow(h, SW_SHOWNORMAL);
    UpdateWindow(h);
    GetClientRect(h, &r);
    printf("client %ld x %ld\n", r.right, r.bottom);
    fflush(stdout);
    while (GetMessageA(&msg, NULL, 0, 0) > 0) {
        TranslateMessage(&msg);
        DispatchMessageA(&msg);
        fflush(stdout);
    }
    printf("quit %u\n", (unsigned)msg.wParam);
    return (int)msg.wParam;
}
