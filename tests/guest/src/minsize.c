/*
 * minsize: CreateWindowEx keeps an overlapped window within the tracking sizes
 * WM_GETMINMAXINFO allows. Windows' Minesweeper creates its window 2x0, sets its
 * menu and asks GetMenuItemRect whether the menu bar wrapped before sizing the
 * window; in a 2-pixel window every item would wrap, and the game would add a
 * menu row it does not have (a grey strip under the board).
 * Prints, for a WS_CAPTION window created 2x0: whether its size is the minimum
 * tracking size (SM_CXMINTRACK x SM_CYMINTRACK), whether the two menu items are on
 * one row; then the same for a window whose WM_GETMINMAXINFO asks for at least
 * 150x60, and for a WS_POPUP window (no tracking sizes: it stays 2x0).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

static LRESULT CALLBACK big(HWND h, UINT m, WPARAM w, LPARAM l)
{
    if (m == WM_GETMINMAXINFO) {
        MINMAXINFO *mm = (MINMAXINFO *)l;
        mm->ptMinTrackSize.x = 150;
        mm->ptMinTrackSize.y = 60;
        return 0;
    }
    return DefWindowProcA(h, m, w, l);
}

static void show(HINSTANCE inst, const char *cls, DWORD style, const char *what)
{
    HWND h = CreateWindowExA(0, cls, "t", style, 78, 80, 2, 0, NULL, NULL, inst, NULL);
    HMENU m = CreateMenu();
    AppendMenuA(m, MF_STRING, 1, "&Game");
    AppendMenuA(m, MF_STRING, 2, "&Help");
    if (!(style & WS_POPUP)) SetMenu(h, m);
    RECT w, a, b;
    GetWindowRect(h, &w);
    /* The minimum tracking size itself differs between Windows (112x27 in the
     * classic metrics) and Wine (116x27): compare with it, print sizes only
     * where the program chose them. */
    int at_min = w.right - w.left == GetSystemMetrics(SM_CXMINTRACK) &&
                 w.bottom - w.top == GetSystemMetrics(SM_CYMINTRACK);
    printf("%s: minimum tracking size %d", what, at_min);
    if (!at_min) printf(", %ldx%ld", w.right - w.left, w.bottom - w.top);
    if (!(style & WS_POPUP) && GetMenuItemRect(h, m, 0, &a) && GetMenuItemRect(h, m, 1, &b))
        printf(", menu on one row %d", (int)(a.top == b.top));
    printf("\n");
    DestroyWindow(h);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int showcmd)
{
    (void)prev; (void)cmd; (void)showcmd;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = DefWindowProcA;
    wc.hInstance = inst;
    wc.lpszClassName = "minsize";
    RegisterClassA(&wc);
    wc.lpfnWndProc = big;
    wc.lpszClassName = "minsize_big";
    RegisterClassA(&wc);
    show(inst, "minsize", WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX, "caption window");
    show(inst, "minsize_big", WS_CAPTION | WS_SYSMENU, "caption window, 150x60 minimum");
    show(inst, "minsize", WS_POPUP, "popup window");
    return 0;
}
