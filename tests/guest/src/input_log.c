/*
 * input_log: prints the keyboard and mouse messages its windows receive, for
 * scripted input (winterp --headless --input SCRIPT).
 *
 * Arguments: the client size, "W H" (default 320 240). A child window covers
 * x W*5/16 .. W*9/16-1, y H/4 .. H/2-1 of the main window's client area
 * (100,60 80x60 at 320x240), so mouse messages over it arrive in the child's
 * own coordinates, and the parent gets WM_PARENTNOTIFY (in its coordinates)
 * for button presses in the child.
 *
 * Printed, one line each, prefixed with the window ("main"/"child"):
 * WM_KEYDOWN/KEYUP/CHAR/SYSKEYDOWN/SYSKEYUP/SYSCHAR with wParam and the whole
 * lParam (repeat count, scan code, extended, context, previous state,
 * transition bits); WM_MOUSEMOVE, WM_[LRM]BUTTONDOWN/UP with client x, y and
 * the MK_ flags in wParam; WM_MOUSEWHEEL with the delta, the MK_ flags and
 * its screen position converted to client coordinates; WM_PARENTNOTIFY for
 * button events; WM_CLOSE. The system keys are not passed to DefWindowProc,
 * so F10 does not enter menu mode. Releasing Escape or WM_CLOSE ends the
 * program.
 *
 * Mouse messages are printed only after the first keyboard message: when a
 * window appears under the pointer, Windows sends it a WM_MOUSEMOVE of its
 * own, and where the pointer starts is up to the host. The scripts begin
 * with a key. For the same reason a WM_MOUSEMOVE to the position the last
 * one reported is not printed: Windows synthesises such moves when windows
 * change under the pointer, and whether a host event that does not move the
 * pointer produces one is not documented.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef WM_MOUSEWHEEL
#define WM_MOUSEWHEEL 0x020A
#endif

static HWND main_win, child_win;
static int seen_key;
static HWND last_move_hwnd;
static LPARAM last_move_pos;

static const char *who(HWND hwnd)
{
    return hwnd == main_win ? "main" : hwnd == child_win ? "child" : "other";
}

static const char *key_name(UINT msg)
{
    switch (msg) {
    case WM_KEYDOWN:
        return "WM_KEYDOWN";
    case WM_KEYUP:
        return "WM_KEYUP";
    case WM_CHAR:
        return "WM_CHAR";
    case WM_SYSKEYDOWN:
        return "WM_SYSKEYDOWN";
    case WM_SYSKEYUP:
        return "WM_SYSKEYUP";
    case WM_SYSCHAR:
        return "WM_SYSCHAR";
    }
    return NULL;
}

static const char *mouse_name(UINT msg)
{
    switch (msg) {
    case WM_MOUSEMOVE:
        return "WM_MOUSEMOVE";
    case WM_LBUTTONDOWN:
        return "WM_LBUTTONDOWN";
    case WM_LBUTTONUP:
        return "WM_LBUTTONUP";
    case WM_RBUTTONDOWN:
        return "WM_RBUTTONDOWN";
    case WM_RBUTTONUP:
        return "WM_RBUTTONUP";
    case WM_MBUTTONDOWN:
        return "WM_MBUTTONDOWN";
    case WM_MBUTTONUP:
        return "WM_MBUTTONUP";
    }
    return NULL;
}

/* Both windows share this procedure. */
static LRESULT CALLBACK wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    const char *name;
    if ((name = key_name(msg))) {
        seen_key = 1;
        printf("%s %s 0x%02x lParam=0x%08lx\n", who(hwnd), name, (unsigned)wp, (unsigned long)lp);
        if (msg == WM_KEYUP && wp == VK_ESCAPE)
            DestroyWindow(main_win);
        return 0;
    }
    if ((name = mouse_name(msg))) {
        if (!seen_key)
            return 0;
        if (msg == WM_MOUSEMOVE) {
            if (hwnd == last_move_hwnd && lp == last_move_pos)
                return 0;
            last_move_hwnd = hwnd;
            last_move_pos = lp;
        }
        /* Client coordinates are signed 16-bit values. */
        printf("%s %s x=%d y=%d mk=0x%04x\n", who(hwnd), name, (short)LOWORD(lp), (short)HIWORD(lp), (unsigned)wp);
        return 0;
    }
    switch (msg) {
    case WM_MOUSEWHEEL: {
        if (!seen_key)
            return 0;
        POINT p = {(short)LOWORD(lp), (short)HIWORD(lp)};
        ScreenToClient(hwnd, &p);
        printf("%s WM_MOUSEWHEEL delta=%d mk=0x%04x client x=%ld y=%ld\n", who(hwnd), (short)HIWORD(wp),
               LOWORD(wp), p.x, p.y);
        return 0;
    }
    case WM_PARENTNOTIFY:
        if (LOWORD(wp) >= WM_MOUSEFIRST)
            printf("%s WM_PARENTNOTIFY 0x%04x x=%d y=%d\n", who(hwnd), LOWORD(wp), (short)LOWORD(lp),
                   (short)HIWORD(lp));
        return 0;
    case WM_CLOSE:
        printf("%s WM_CLOSE\n", who(hwnd));
        DestroyWindow(main_win);
        return 0;
    case WM_DESTROY:
        if (hwnd == main_win)
            PostQuitMessage(0);
        return 0;
    case WM_ERASEBKGND:
        return 1;
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(hwnd, &ps);
        RECT rc;
        GetClientRect(hwnd, &rc);
        FillRect(dc, &rc, (HBRUSH)GetStockObject(hwnd == main_win ? WHITE_BRUSH : GRAY_BRUSH));
        EndPaint(hwnd, &ps);
        return 0;
    }
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);

    int w = 320, h = 240;
    if (cmdline && *cmdline && sscanf(cmdline, "%d %d", &w, &h) != 2) {
        printf("usage: input_log [WIDTH HEIGHT]\n");
        return 2;
    }

    WNDCLASSA wc;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.lpszClassName = "input_log";
    RegisterClassA(&wc);

    DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX;
    RECT rc = {0, 0, w, h};
    AdjustWindowRect(&rc, style, FALSE);
    main_win = CreateWindowA("input_log", "input_log", style, CW_USEDEFAULT, CW_USEDEFAULT, rc.right - rc.left,
                             rc.bottom - rc.top, NULL, NULL, inst, NULL);
    if (!main_win)
        return 1;
    int cx = w * 5 / 16, cy = h / 4, cw = w / 4, ch = h / 4;
    child_win = CreateWindowA("input_log", "child", WS_CHILD | WS_VISIBLE, cx, cy, cw, ch, main_win, (HMENU)5, inst,
                              NULL);
    if (!child_win)
        return 1;
    ShowWindow(main_win, SW_SHOW);
    UpdateWindow(main_win);
    SetFocus(main_win);

    GetClientRect(main_win, &rc);
    printf("client %ldx%ld, child at %d,%d size %dx%d\n", rc.right, rc.bottom, cx, cy, cw, ch);

    MSG m;
    while (GetMessageA(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageA(&m);
    }
    printf("quit\n");
    return 0;
}
