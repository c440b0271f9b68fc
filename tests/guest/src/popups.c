/*
 * popups: owned pop-up windows and their owner. ShowOwnedPopups sends each
 * pop-up WM_SHOWWINDOW with SW_PARENTCLOSING / SW_PARENTOPENING and DefWindowProc
 * hides it or shows it again (only the ones it hid; a pop-up that handles the
 * message itself stays as it is); GetLastActivePopup follows activation of the
 * owner tree; WinHelp with HELP_QUIT when no help is open. Prints the messages
 * the pop-ups receive and their visibility after each step.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

static HWND main_w, p1, p2, p3, child;

static const char *name(HWND h)
{
    if (h == main_w) return "main";
    if (h == p1) return "p1";
    if (h == p2) return "p2";
    if (h == p3) return "p3";
    if (h == child) return "child";
    return h ? "other" : "NULL";
}

static LRESULT CALLBACK popup_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_SHOWWINDOW && (h == p1 || h == p2 || h == p3)) {
        printf("  %s WM_SHOWWINDOW %d %ld\n", name(h), (int)wp, (long)lp);
        /* p3 answers the message itself: DefWindowProc does not see it. */
        if (h == p3)
            return 0;
    }
    return DefWindowProcA(h, m, wp, lp);
}

static void visibility(const char *when)
{
    printf("%s: p1 %d p2 %d p3 %d child %d\n", when, IsWindowVisible(p1) != 0,
           IsWindowVisible(p2) != 0, IsWindowVisible(p3) != 0, IsWindowVisible(child) != 0);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    WNDCLASSA wc = {0};
    BOOL r;
    wc.lpfnWndProc = popup_proc;
    wc.hInstance = inst;
    wc.lpszClassName = "popups";
    RegisterClassA(&wc);
    main_w = CreateWindowExA(0, "popups", "main", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0,
                             300, 200, NULL, NULL, inst, NULL);
    printf("after creating main: last active popup of main %s\n",
           name(GetLastActivePopup(main_w)));
    p1 = CreateWindowExA(0, "popups", "p1", WS_POPUP | WS_CAPTION, 10, 10, 100, 80, main_w,
                         NULL, inst, NULL);
    p2 = CreateWindowExA(0, "popups", "p2", WS_POPUP | WS_CAPTION, 20, 20, 100, 80, main_w,
                         NULL, inst, NULL);
    p3 = CreateWindowExA(0, "popups", "p3", WS_POPUP | WS_CAPTION, 30, 30, 100, 80, main_w,
                         NULL, inst, NULL);
    child = CreateWindowExA(0, "popups", "child", WS_CHILD | WS_VISIBLE, 0, 0, 50, 50, main_w,
                            NULL, inst, NULL);
    printf("showing p1 and p3:\n");
    ShowWindow(p1, SW_SHOW);
    ShowWindow(p3, SW_SHOWNA);
    printf("active %s, last active popup of main %s, of p1 %s, of child %s\n",
           name(GetActiveWindow()), name(GetLastActivePopup(main_w)),
           name(GetLastActivePopup(p1)), name(GetLastActivePopup(child)));
    visibility("before");

    printf("ShowOwnedPopups(main, FALSE):\n");
    r = ShowOwnedPopups(main_w, FALSE);
    printf("= %d\n", r);
    visibility("hidden");

    printf("ShowOwnedPopups(main, FALSE) again:\n");
    r = ShowOwnedPopups(main_w, FALSE);
    printf("= %d\n", r);

    printf("ShowOwnedPopups(main, TRUE):\n");
    r = ShowOwnedPopups(main_w, TRUE);
    printf("= %d\n", r);
    visibility("shown");

    printf("ShowOwnedPopups(main, TRUE) again:\n");
    r = ShowOwnedPopups(main_w, TRUE);
    printf("= %d\n", r);

    printf("hiding p1 with ShowWindow, then ShowOwnedPopups(main, TRUE):\n");
    ShowWindow(p1, SW_HIDE);
    r = ShowOwnedPopups(main_w, TRUE);
    printf("= %d\n", r);
    visibility("after");

    SetActiveWindow(main_w);
    printf("main activated: active %s, last active popup of main %s\n",
           name(GetActiveWindow()), name(GetLastActivePopup(main_w)));
    ShowWindow(p2, SW_SHOW);
    printf("p2 shown: active %s, last active popup of main %s\n", name(GetActiveWindow()),
           name(GetLastActivePopup(main_w)));
    DestroyWindow(p2);
    p2 = NULL;
    printf("p2 destroyed: last active popup of main %s\n", name(GetLastActivePopup(main_w)));

    r = WinHelpA(main_w, "popups.hlp", HELP_QUIT, 0);
    printf("WinHelpA(HELP_QUIT) = %d\n", r);
    r = WinHelpW(main_w, L"popups.hlp", HELP_QUIT, 0);
    printf("WinHelpW(HELP_QUIT) = %d\n", r);

    DestroyWindow(main_w);
    return 0;
}
