/* The GUI child of proclaunch: shows a window and runs its message loop until
 * the window is closed (or the process is ended). */
#include <windows.h>

static LRESULT CALLBACK wndproc(HWND w, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_DESTROY) {
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(w, m, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    WNDCLASSA wc;
    HWND win;
    MSG m;
    (void)prev;
    (void)cmdline;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    wc.lpszClassName = "procwin";
    RegisterClassA(&wc);
    win = CreateWindowA("procwin", "procwin", WS_OVERLAPPEDWINDOW, 0, 0, 240, 160, NULL, NULL,
                        inst, NULL);
    if (!win)
        return 1;
    ShowWindow(win, show);
    UpdateWindow(win);
    while (GetMessageA(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageA(&m);
    }
    return (int)m.wParam;
}
