/*
 * mdi: the Multiple Document Interface as a program sees it.
 *
 * A frame (DefFrameProc) with a two-item menu ("&File", "&Window") whose client
 * area is 480x360, an MDIClient filling it (CLIENTCREATESTRUCT: the "Window"
 * menu, first child id 100) and two children (DefMDIChildProc) made with
 * WM_MDICREATE at 10,10 and 40,40, 200x150. Then, step by step: maximize the
 * second, activate the first (the maximized state moves with it), restore it,
 * cascade, tile vertically and horizontally, WM_MDINEXT, destroy one, create one at CW_USEDEFAULT, maximize it by its system command, and pick
 * the first child from the window menu (WM_COMMAND 100 through DefFrameProc).
 *
 * After each step it prints every child's window rectangle in MDI client
 * coordinates, the active child (WM_MDIGETACTIVE) and whether it is maximized,
 * the frame's title, the number of items of the frame's menu bar and the window
 * menu's items with their check marks; and, as they arrive, the children's
 * WM_MDIACTIVATE and WM_CHILDACTIVATE (but while a maximized child hands its
 * state to another, where how often each hears of it is an implementation's
 * detail). Positions that depend on the system
 * metrics are printed in the program as what they are relative to (the caption
 * and frame sizes), so the output is the same whatever they are.
 */
#define _WIN32_WINNT 0x0500
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

static HWND frame, client;
static HMENU bar, winmenu;
static HWND kids[4];
static const char *names[4] = {"One", "Two", "Three", "?"};
static int logging;

static const char *name_of(HWND h)
{
    if (!h)
        return "none";
    for (int i = 0; i < 4; i++)
        if (kids[i] == h)
            return names[i];
    return "other";
}

static LRESULT CALLBACK frame_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return DefFrameProcA(hwnd, client, msg, wp, lp);
}

static LRESULT CALLBACK child_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    if (logging && msg == WM_MDIACTIVATE)
        printf("  %s: WM_MDIACTIVATE deactivating %s, activating %s\n", name_of(hwnd),
               name_of((HWND)wp), name_of((HWND)lp));
    if (logging && msg == WM_CHILDACTIVATE)
        printf("  %s: WM_CHILDACTIVATE\n", name_of(hwnd));
    return DefMDIChildProcA(hwnd, msg, wp, lp);
}

/* A value that depends on a metric, as "m+k" or "m-k" around it. */
static void rel(char *out, size_t n, int v, int base, const char *what)
{
    if (v == base)
        snprintf(out, n, "%s", what);
    else
        snprintf(out, n, "%s%+d", what, v - base);
}

static void report(const char *step)
{
    int fx = GetSystemMetrics(SM_CXFRAME), fy = GetSystemMetrics(SM_CYFRAME);
    int cap = GetSystemMetrics(SM_CYCAPTION);
    RECT cr;
    GetClientRect(client, &cr);
    printf("%s\n", step);
    for (int i = 0; i < 4; i++) {
        if (!kids[i] || !IsWindow(kids[i]))
            continue;
        RECT r;
        GetWindowRect(kids[i], &r);
        MapWindowPoints(HWND_DESKTOP, client, (POINT *)&r, 2);
        LONG style = GetWindowLongA(kids[i], GWL_STYLE);
        if (style & WS_MAXIMIZE) {
            /* The frame lies outside the client area. */
            char a[32], b[32], c[32], d[32];
            rel(a, sizeof a, r.left, -fx, "-frame");
            rel(b, sizeof b, r.top, -fy - cap, "-frame-caption");
            rel(c, sizeof c, r.right, cr.right + fx, "width+frame");
            rel(d, sizeof d, r.bottom, cr.bottom + fy, "height+frame");
            printf("  %s: maximized (%s, %s)-(%s, %s)\n", names[i], a, b, c, d);
        } else {
            printf("  %s: (%ld, %ld) %ldx%ld%s\n", names[i], r.left, r.top, r.right - r.left,
                   r.bottom - r.top, style & WS_VISIBLE ? "" : " hidden");
        }
    }
    BOOL max = FALSE;
    HWND act = (HWND)SendMessageA(client, WM_MDIGETACTIVE, 0, (LPARAM)&max);
    char title[128];
    GetWindowTextA(frame, title, sizeof title);
    printf("  active %s%s; frame title \"%s\"; bar items %d\n", name_of(act),
           max ? " (maximized)" : "", title, GetMenuItemCount(bar));
    printf("  window menu:");
    int n = GetMenuItemCount(winmenu);
    for (int i = 0; i < n; i++) {
        char t[64] = "";
        UINT id = GetMenuItemID(winmenu, i);
        UINT st = GetMenuState(winmenu, i, MF_BYPOSITION);
        if (st & MF_SEPARATOR) {
            printf(" |");
            continue;
        }
        GetMenuStringA(winmenu, i, t, sizeof t, MF_BYPOSITION);
        printf(" [%u \"%s\"%s]", id, t, st & MF_CHECKED ? " checked" : "");
    }
    printf("\n");
    fflush(stdout);
}

static HWND make_child(const char *title, int x, int y, int w, int h)
{
    MDICREATESTRUCTA mcs = {"MdiTestChild", title, GetModuleHandleA(NULL), x, y, w, h, 0, 0};
    return (HWND)SendMessageA(client, WM_MDICREATE, 0, (LPARAM)&mcs);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    (void)show;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = frame_proc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    wc.lpszClassName = "MdiTestFrame";
    RegisterClassA(&wc);
    wc.lpfnWndProc = child_proc;
    wc.lpszClassName = "MdiTestChild";
    RegisterClassA(&wc);

    bar = CreateMenu();
    HMENU file = CreatePopupMenu();
    AppendMenuA(file, MF_STRING, 1, "E&xit");
    winmenu = CreatePopupMenu();
    AppendMenuA(winmenu, MF_STRING, 2, "&Cascade");
    AppendMenuA(winmenu, MF_STRING, 3, "&Tile");
    AppendMenuA(bar, MF_POPUP, (UINT_PTR)file, "&File");
    AppendMenuA(bar, MF_POPUP, (UINT_PTR)winmenu, "&Window");

    RECT r = {0, 0, 480, 360};
    AdjustWindowRect(&r, WS_OVERLAPPEDWINDOW, TRUE);
    frame = CreateWindowA("MdiTestFrame", "Frame", WS_OVERLAPPEDWINDOW | WS_CLIPCHILDREN, 0, 0,
                          r.right - r.left, r.bottom - r.top, NULL, bar, inst, NULL);
    CLIENTCREATESTRUCT ccs = {winmenu, 100};
    client = CreateWindowA("MDICLIENT", NULL, WS_CHILD | WS_CLIPCHILDREN | WS_VISIBLE, 0, 0, 0, 0,
                           frame, (HMENU)0xcac, inst, &ccs);
    ShowWindow(frame, SW_SHOW);
    UpdateWindow(frame);
    RECT cr;
    GetClientRect(client, &cr);
    printf("client area %ldx%ld\n", cr.right, cr.bottom);

    logging = 1;
    printf("create One\n");
    kids[0] = make_child("One", 10, 10, 200, 150);
    printf("create Two\n");
    kids[1] = make_child("Two", 40, 40, 200, 150);
    printf("ids %ld %ld\n", GetWindowLongA(kids[0], GWL_ID), GetWindowLongA(kids[1], GWL_ID));
    report("after creating two children");

    SendMessageA(client, WM_MDIMAXIMIZE, (WPARAM)kids[1], 0);
    report("WM_MDIMAXIMIZE Two");

    /* How often the two children hear of the switch of a maximized child is an
     * implementation's detail: not logged. */
    logging = 0;
    SendMessageA(client, WM_MDIACTIVATE, (WPARAM)kids[0], 0);
    logging = 1;
    report("WM_MDIACTIVATE One");

    SendMessageA(client, WM_MDIRESTORE, (WPARAM)kids[0], 0);
    report("WM_MDIRESTORE One");

    SendMessageA(client, WM_MDICASCADE, 0, 0);
    {
        int s = GetSystemMetrics(SM_CYCAPTION) + GetSystemMetrics(SM_CYFRAME) - 1;
        printf("cascade step caption+frame-1 = %d\n", s);
    }
    report("WM_MDICASCADE");

    SendMessageA(client, WM_MDITILE, MDITILE_VERTICAL, 0);
    report("WM_MDITILE vertical");

    SendMessageA(client, WM_MDITILE, MDITILE_HORIZONTAL, 0);
    report("WM_MDITILE horizontal");

    SendMessageA(client, WM_MDINEXT, 0, 0);
    report("WM_MDINEXT");

    SendMessageA(client, WM_MDIDESTROY, (WPARAM)kids[0], 0);
    report("WM_MDIDESTROY One");
    printf("id of Two %ld\n", GetWindowLongA(kids[1], GWL_ID));

    kids[2] = make_child("Three", CW_USEDEFAULT, CW_USEDEFAULT, CW_USEDEFAULT, CW_USEDEFAULT);
    report("create Three at CW_USEDEFAULT");

    SendMessageA(kids[2], WM_SYSCOMMAND, SC_MAXIMIZE, 0);
    report("WM_SYSCOMMAND SC_MAXIMIZE Three");

    logging = 0;
    SendMessageA(frame, WM_COMMAND, 100, 0);
    logging = 1;
    report("WM_COMMAND 100 to the frame");

    SendMessageA(frame, WM_COMMAND, SC_RESTORE, 0);
    report("WM_COMMAND SC_RESTORE to the frame");

    logging = 0;
    DestroyWindow(frame);
    printf("done\n");
    return 0;
}
