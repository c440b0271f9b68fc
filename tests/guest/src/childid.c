/*
 * childid: a child window's menu slot is its control ID. CreateWindowEx's hMenu
 * argument of a WS_CHILD window is its ID, and GetMenu of the child answers that
 * value: Wine's oleview keeps a pointer there and reads it back with GetMenu
 * (MSDN calls the result undefined; Wine, the oracle here, returns the ID).
 * Prints GetMenu, GetWindowLong(GWL_ID) and GetDlgCtrlID of a child whose ID is a
 * pointer-sized value, then of the top-level window, which has no menu.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = DefWindowProcA;
    wc.hInstance = inst;
    wc.lpszClassName = "childid";
    RegisterClassA(&wc);
    HWND top = CreateWindowExA(0, "childid", "top", WS_OVERLAPPEDWINDOW, 0, 0, 200, 100,
                               NULL, NULL, inst, NULL);
    static int pane_state[4];
    HWND child = CreateWindowExA(0, "childid", NULL, WS_CHILD | WS_VISIBLE, 0, 0, 50, 50,
                                 top, (HMENU)pane_state, inst, NULL);
    printf("child GetMenu matches the pointer: %d\n", GetMenu(child) == (HMENU)pane_state);
    printf("child GWL_ID matches the pointer: %d\n",
           GetWindowLongA(child, GWL_ID) == (LONG)(LONG_PTR)pane_state);
    printf("child GetDlgCtrlID matches the pointer: %d\n",
           GetDlgCtrlID(child) == (int)(LONG_PTR)pane_state);
    HWND small = CreateWindowExA(0, "childid", NULL, WS_CHILD, 0, 0, 10, 10, top,
                                 (HMENU)1234, inst, NULL);
    printf("child with ID 1234: GetMenu %lu\n", (unsigned long)(ULONG_PTR)GetMenu(small));
    printf("top-level without a menu: GetMenu %lu\n", (unsigned long)(ULONG_PTR)GetMenu(top));
    DestroyWindow(top);
    return 0;
}
