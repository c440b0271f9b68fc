/*
 * msglog: the messages a window procedure receives through a window's life,
 * printed to stdout in the order they arrive.
 *
 * Steps (each announced with a "--" line): RegisterClassA, CreateWindowExA
 * (client 200x100, so WM_SIZE is exact), ShowWindow(SW_SHOW),
 * UpdateWindow, SetWindowTextA, PostMessageA(WM_APP+1), SendMessageA(WM_APP+2),
 * then the message loop. The posted WM_APP+1 arrives through GetMessage and
 * its handler calls DestroyWindow; WM_DESTROY calls PostQuitMessage(7),
 * which ends the loop; WinMain returns 7.
 *
 * Only a documented set of messages is printed. The others depend on the
 * window manager, on activation, on the Windows version or on the moment the
 * system chooses, and are left out: WM_GETICON, WM_NCPAINT, WM_ERASEBKGND
 * (sent from ShowWindow or from BeginPaint), WM_NCACTIVATE, WM_ACTIVATE,
 * WM_ACTIVATEAPP, WM_SETFOCUS/KILLFOCUS, WM_IME_*, WM_WINDOWPOSCHANGING/
 * CHANGED, WM_GETMINMAXINFO, WM_NCCALCSIZE, WM_QUERYNEWPALETTE, WM_GETTEXT,
 * WM_SETCURSOR, WM_NCHITTEST and everything else not handled below.
 * tests/guest/README.md says how the expected log was derived.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdarg.h>
#include <stdio.h>

#define WM_STEP_POSTED (WM_APP + 1)
#define WM_STEP_SENT (WM_APP + 2)

static int depth;

static void line(const char *fmt, ...)
{
    va_list ap;
    printf("%*s", depth * 2, "");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static LRESULT CALLBACK wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    LRESULT r = 0;
    switch (msg) {
    case WM_NCCREATE: {
        const CREATESTRUCTA *cs = (const CREATESTRUCTA *)lp;
        line("WM_NCCREATE class=%s name=%s param=0x%08lx", cs->lpszClass, cs->lpszName,
             (unsigned long)(UINT_PTR)cs->lpCreateParams);
        return DefWindowProcA(hwnd, msg, wp, lp);
    }
    case WM_CREATE: {
        const CREATESTRUCTA *cs = (const CREATESTRUCTA *)lp;
        line("WM_CREATE name=%s param=0x%08lx style_child=%d", cs->lpszName,
             (unsigned long)(UINT_PTR)cs->lpCreateParams, (cs->style & WS_CHILD) != 0);
        return 0;
    }
    case WM_SHOWWINDOW:
        line("WM_SHOWWINDOW shown=%u status=%ld", (unsigned)wp, (long)lp);
        break;
    case WM_MOVE:
        /* The position includes the frame, whose size is the system's. */
        line("WM_MOVE");
        return 0;
    case WM_SIZE:
        line("WM_SIZE type=%u width=%u height=%u", (unsigned)wp, LOWORD(lp), HIWORD(lp));
        return 0;
    case WM_PAINT: {
        PAINTSTRUCT ps;
        line("WM_PAINT");
        depth++;
        HDC dc = BeginPaint(hwnd, &ps);
        line("BeginPaint dc=%s rect=%ld,%ld,%ld,%ld", dc ? "yes" : "NULL", ps.rcPaint.left, ps.rcPaint.top,
             ps.rcPaint.right, ps.rcPaint.bottom);
        EndPaint(hwnd, &ps);
        depth--;
        return 0;
    }
    case WM_SETTEXT:
        line("WM_SETTEXT text=%s", (const char *)lp);
        return DefWindowProcA(hwnd, msg, wp, lp);
    case WM_STEP_SENT:
        line("WM_APP+2 wParam=0x%x lParam=0x%lx (sent)", (unsigned)wp, (unsigned long)lp);
        return 0x5678;
    case WM_STEP_POSTED:
        line("WM_APP+1 wParam=0x%x lParam=0x%lx (posted)", (unsigned)wp, (unsigned long)lp);
        depth++;
        line("-- DestroyWindow");
        depth++;
        BOOL ok = DestroyWindow(hwnd);
        depth--;
        line("DestroyWindow returned %d", ok);
        depth--;
        return 0;
    case WM_CLOSE:
        line("WM_CLOSE");
        return 0;
    case WM_DESTROY:
        line("WM_DESTROY");
        depth++;
        line("-- PostQuitMessage(7)");
        PostQuitMessage(7);
        depth--;
        return 0;
    case WM_NCDESTROY:
        line("WM_NCDESTROY");
        break;
    case WM_QUIT:
        line("WM_QUIT reached the window procedure");
        break;
    default:
        break;
    }
    r = DefWindowProcA(hwnd, msg, wp, lp);
    return r;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)cmdline;
    (void)show;
    /* Unbuffered, so a run that stops early still shows how far it got. */
    setvbuf(stdout, NULL, _IONBF, 0);

    WNDCLASSA wc;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    wc.lpszClassName = "msglog";
    line("-- RegisterClassA");
    ATOM atom = RegisterClassA(&wc);
    line("RegisterClassA %s", atom ? "nonzero" : "failed");

    DWORD style = WS_OVERLAPPEDWINDOW;
    RECT rc = {0, 0, 200, 100};
    AdjustWindowRect(&rc, style, FALSE);
    line("-- CreateWindowExA");
    depth++;
    HWND hwnd = CreateWindowExA(0, "msglog", "first title", style, 40, 30, rc.right - rc.left, rc.bottom - rc.top,
                                NULL, NULL, inst, (LPVOID)0x1234abcd);
    depth--;
    line("CreateWindowExA %s", hwnd ? "returned a window" : "failed");
    if (!hwnd)
        return 1;

    line("-- ShowWindow(SW_SHOW)");
    depth++;
    BOOL was_visible = ShowWindow(hwnd, SW_SHOW);
    depth--;
    line("ShowWindow returned %d (was hidden)", was_visible);

    line("-- UpdateWindow");
    depth++;
    UpdateWindow(hwnd);
    depth--;
    line("-- UpdateWindow again (nothing left to paint)");
    depth++;
    UpdateWindow(hwnd);
    depth--;

    line("-- SetWindowTextA");
    depth++;
    SetWindowTextA(hwnd, "second title");
    depth--;
    char title[64];
    GetWindowTextA(hwnd, title, sizeof title);
    line("GetWindowTextA: %s", title);

    line("-- PostMessageA(WM_APP+1, 0x11, 0x22)");
    PostMessageA(hwnd, WM_STEP_POSTED, 0x11, 0x22);
    line("-- SendMessageA(WM_APP+2, 0x33, 0x44)");
    depth++;
    LRESULT sent = SendMessageA(hwnd, WM_STEP_SENT, 0x33, 0x44);
    depth--;
    line("SendMessageA returned 0x%lx", (unsigned long)sent);

    line("-- message loop");
    MSG m;
    BOOL got;
    depth++;
    while ((got = GetMessageA(&m, NULL, 0, 0)) > 0) {
        /* Only posted messages for the window are printed: WM_TIMER, WM_PAINT
           and input are generated on demand and depend on the environment. */
        if (m.message >= WM_APP)
            line("GetMessageA: 0x%04x for %s", m.message, m.hwnd == hwnd ? "the window" : "another window");
        TranslateMessage(&m);
        depth++;
        DispatchMessageA(&m);
        depth--;
    }
    depth--;
    line("GetMessageA returned %d, WM_QUIT wParam %u, hwnd %s", got, (unsigned)m.wParam, m.hwnd ? "set" : "NULL");
    line("IsWindow after the loop: %d", IsWindow(hwnd));
    return (int)m.wParam;
}
