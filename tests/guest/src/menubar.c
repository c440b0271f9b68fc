/*
 * menubar: the menu bar as a program sees it.
 *
 * Without arguments: a WS_OVERLAPPEDWINDOW window of 300x200 with the four-item
 * menu of menubar.rc, and one without a menu, are created (not shown), and the
 * program prints what does not depend on the menu font's character widths:
 *
 * - how much lower the client area is with the menu bar (SM_CYMENU);
 * - GetMenuItemRect of each bar item against the client area's top-left corner
 *   (ClientToScreen): item 0 starts at its left edge, each item's right edge is
 *   the next one's left edge, all share one top; the item height, and where the
 *   items sit in the bar (its top is SM_CYMENU above the client area);
 * - GetMenuItemRect of an item past the last (fails), with no window (the window
 *   the menu is on), of an item of a pop-up that is not shown (an empty rectangle
 *   at the client area's top-left corner, as Wine's test_GetMenuItemRect found on
 *   Windows; without a window it fails), and of a handle that is no menu;
 * - MenuItemFromPoint at each item's centre and in the client area;
 * - GetMenuBarInfo of item 2 (GetMenuItemRect of item 1) and of an item past the
 *   last;
 * - with the second menu of menubar.rc, three items each wider than half the bar:
 *   one row each, SM_CYMENU - 1 apart, and the client area lower by the rows.
 *
 * With the argument "click": a 300x200 window with the four-item menu at 0,0
 * prints the menu messages it receives; expected/menubar.click.script clicks the
 * "File" item of the bar and then "New", the first item of its menu, which ends
 * in WM_COMMAND 101. A right click in the client area then opens the "Edit" menu
 * with TrackPopupMenu(TPM_RETURNCMD) at the pointer; the script clicks its first
 * item, "Copy", TrackPopupMenu returns 201 (and no WM_COMMAND comes), and the
 * program quits.
 */
#define _WIN32_WINNT 0x0500
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

#ifndef WM_UNINITMENUPOPUP
#define WM_UNINITMENUPOPUP 0x0125
#endif

static HMENU bar;

static const char *yes(int b)
{
    return b ? "yes" : "no";
}

static const char *menu_name(HMENU m)
{
    if (!m)
        return "none";
    if (m == bar)
        return "bar";
    for (int i = 0; i < GetMenuItemCount(bar); i++)
        if (GetSubMenu(bar, i) == m) {
            static char buf[32];
            snprintf(buf, sizeof buf, "submenu %d", i);
            return buf;
        }
    return "other";
}

static LRESULT CALLBACK wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_ENTERMENULOOP:
        printf("WM_ENTERMENULOOP %u\n", (unsigned)wp);
        break;
    case WM_EXITMENULOOP:
        printf("WM_EXITMENULOOP %u\n", (unsigned)wp);
        break;
    case WM_INITMENU:
        printf("WM_INITMENU %s\n", menu_name((HMENU)wp));
        break;
    case WM_INITMENUPOPUP:
        printf("WM_INITMENUPOPUP %s, position %u, system menu %u\n", menu_name((HMENU)wp),
               LOWORD(lp), HIWORD(lp));
        break;
    case WM_UNINITMENUPOPUP:
        printf("WM_UNINITMENUPOPUP %s\n", menu_name((HMENU)wp));
        break;
    case WM_MENUSELECT:
        printf("WM_MENUSELECT item %u, flags %04x, %s\n", LOWORD(wp), HIWORD(wp),
               menu_name((HMENU)lp));
        break;
    case WM_COMMAND:
        printf("WM_COMMAND id %u, notification %u, lParam %lx\n", LOWORD(wp), HIWORD(wp),
               (unsigned long)lp);
        break;
    case WM_RBUTTONUP: {
        /* The "Edit" menu as a context menu, its top-left corner at the pointer. */
        POINT p = {(short)LOWORD(lp), (short)HIWORD(lp)};
        ClientToScreen(hwnd, &p);
        printf("TrackPopupMenu\n");
        UINT id = TrackPopupMenu(GetSubMenu(bar, 1), TPM_LEFTALIGN | TPM_TOPALIGN | TPM_RETURNCMD,
                                 p.x, p.y, 0, hwnd, NULL);
        printf("TrackPopupMenu returned %u\n", id);
        PostQuitMessage(0);
        break;
    }
    case WM_DESTROY:
        PostQuitMessage(0);
        break;
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

static void layout(HINSTANCE inst)
{
    DWORD style = WS_OVERLAPPEDWINDOW;
    HWND w = CreateWindowA("menubar", "menubar", style, 40, 30, 300, 200, NULL, bar, inst, NULL);
    HWND plain = CreateWindowA("menubar", "plain", style, 40, 30, 300, 200, NULL, NULL, inst, NULL);
    if (!w || !plain) {
        printf("CreateWindow failed\n");
        return;
    }
    int cymenu = GetSystemMetrics(SM_CYMENU);
    RECT cr, pr;
    GetClientRect(w, &cr);
    GetClientRect(plain, &pr);
    printf("SM_CYMENU %d\n", cymenu);
    printf("client area lower by %ld with the menu (SM_CYMENU: %s)\n", pr.bottom - cr.bottom,
           yes(pr.bottom - cr.bottom == cymenu));
    POINT org = {0, 0};
    ClientToScreen(w, &org);
    long bar_top = org.y - cymenu;

    int n = GetMenuItemCount(bar);
    printf("%d items on the bar\n", n);
    RECT r[8];
    for (int i = 0; i < n && i < 8; i++) {
        BOOL ok = GetMenuItemRect(w, bar, i, &r[i]);
        printf("item %d: %d, height %ld, top - bar top %ld, client top - bottom %ld", i, ok,
               r[i].bottom - r[i].top, r[i].top - bar_top, org.y - r[i].bottom);
        if (i == 0)
            printf(", left edge at the client's: %s", yes(r[0].left == org.x));
        else
            printf(", left edge at item %d's right: %s, same top: %s", i - 1,
                   yes(r[i].left == r[i - 1].right), yes(r[i].top == r[0].top));
        printf("\n");
    }
    RECT x;
    memset(&x, 0x55, sizeof x);
    printf("GetMenuItemRect(item %d) = %d\n", n, GetMenuItemRect(w, bar, n, &x));
    BOOL ok = GetMenuItemRect(NULL, bar, 1, &x);
    printf("GetMenuItemRect(NULL window, item 1) = %d, same rectangle: %s\n", ok,
           yes(EqualRect(&x, &r[1])));
    HMENU sub = GetSubMenu(bar, 0);
    ok = GetMenuItemRect(w, sub, 0, &x);
    printf("GetMenuItemRect(menu not shown, item 0) = %d, empty at the client's top-left: %s\n", ok,
           yes(x.left == org.x && x.right == org.x && x.top == org.y && x.bottom == org.y));
    printf("GetMenuItemRect(NULL window, menu not shown, item 0) = %d\n",
           GetMenuItemRect(NULL, sub, 0, &x));
    printf("GetMenuItemRect(not a menu) = %d\n", GetMenuItemRect(w, (HMENU)0x5555, 0, &x));

    for (int i = 0; i < n && i < 8; i++)
        printf("MenuItemFromPoint(centre of item %d) = %d\n", i,
               MenuItemFromPoint(w, bar,
                                 (POINT){(r[i].left + r[i].right) / 2, (r[i].top + r[i].bottom) / 2}));
    printf("MenuItemFromPoint(client area) = %d\n",
           MenuItemFromPoint(w, bar, (POINT){org.x + 10, org.y + 10}));

    MENUBARINFO mbi;
    memset(&mbi, 0, sizeof mbi);
    mbi.cbSize = sizeof mbi;
    ok = GetMenuBarInfo(w, OBJID_MENU, 2, &mbi);
    printf("GetMenuBarInfo(item 2) = %d, item 1's rectangle: %s, the bar's menu: %s, focused %d %d\n",
           ok, yes(EqualRect(&mbi.rcBar, &r[1])), yes(mbi.hMenu == bar), mbi.fBarFocused,
           mbi.fFocused);
    printf("GetMenuBarInfo(item %d) = %d\n", n + 1, GetMenuBarInfo(w, OBJID_MENU, n + 1, &mbi));

    /* Three items each wider than half the bar: a row each. */
    HMENU wide = LoadMenuA(inst, MAKEINTRESOURCEA(2));
    SetMenu(w, wide);
    GetClientRect(w, &cr);
    org.x = org.y = 0;
    ClientToScreen(w, &org);
    n = GetMenuItemCount(wide);
    int rows = 1, spaced = 1, lefts = 1;
    for (int i = 0; i < n && i < 8; i++) {
        GetMenuItemRect(w, wide, i, &r[i]);
        lefts &= r[i].left == org.x;
        if (i > 0) {
            rows += r[i].top != r[i - 1].top;
            spaced &= r[i].top - r[i - 1].top == cymenu - 1;
        }
    }
    printf("wide items: %d items in %d rows, each SM_CYMENU - 1 below the last: %s, "
           "all at the client's left edge: %s\n",
           n, rows, yes(spaced), yes(lefts));
    printf("client area lower by %ld with them (%d * (SM_CYMENU - 1) + 1: %s)\n",
           pr.bottom - cr.bottom, rows, yes(pr.bottom - cr.bottom == rows * (cymenu - 1) + 1));
    printf("last item's bottom at the client's top - 1: %s\n", yes(r[n - 1].bottom == org.y - 1));
    DestroyWindow(plain);
    DestroyWindow(w);
}

static int click(HINSTANCE inst)
{
    HWND w = CreateWindowA("menubar", "menubar", WS_OVERLAPPEDWINDOW, 0, 0, 300, 200, NULL, bar,
                           inst, NULL);
    if (!w)
        return 1;
    ShowWindow(w, SW_SHOW);
    UpdateWindow(w);
    printf("ready\n");
    MSG m;
    while (GetMessageA(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageA(&m);
    }
    printf("quit\n");
    return 0;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);
    WNDCLASSA wc;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    wc.lpszClassName = "menubar";
    RegisterClassA(&wc);
    bar = LoadMenuA(inst, MAKEINTRESOURCEA(1));
    if (!bar) {
        printf("LoadMenu failed\n");
        return 1;
    }
    if (cmdline && !strcmp(cmdline, "click"))
        return click(inst);
    layout(inst);
    return 0;
}
