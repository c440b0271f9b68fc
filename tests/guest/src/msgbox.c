/* MessageBox as a real dialog: while a box shows, a timer of its owner keeps
 * running (the modal loop dispatches it), finds the box with FindWindow("#32770",
 * caption), prints what it sees (class, owner, the owner disabled, the text static
 * and the buttons' IDs and texts, the focus) and answers it: a BM_CLICK on No, a
 * WM_CLOSE (a box whose only button is OK answers IDOK), Enter posted to the focused
 * button (the default button answers), and a MessageBoxIndirect whose text and
 * caption are string resource IDs (MSGBOXPARAMS documents them). Prints each
 * MessageBox's return value. */
#include <windows.h>
#include <stdio.h>

#define IDS_TEXT 101
#define IDS_CAPTION 102

static HWND main_wnd;
static int step;
static int seen;
static int ticks;
static const char *want_caption;

static void show_box(HWND box)
{
    char cls[64], buf[256];
    GetClassNameA(box, cls, sizeof cls);
    printf("  class %s, owner is main %d, main enabled %d, visible %d\n", cls,
           GetWindow(box, GW_OWNER) == main_wnd, IsWindowEnabled(main_wnd) != 0,
           IsWindowVisible(box) != 0);
    GetDlgItemTextA(box, 0xffff, buf, sizeof buf);
    printf("  text \"%s\"\n", buf);
    for (int id = 1; id <= 11; id++) {
        HWND b = GetDlgItem(box, id);
        if (!b)
            continue;
        GetWindowTextA(b, buf, sizeof buf);
        GetClassNameA(b, cls, sizeof cls);
        printf("  button %d \"%s\" class %s%s\n", id, buf, cls,
               GetFocus() == b ? " (focus)" : "");
    }
    fflush(stdout);
}

static void CALLBACK on_timer(HWND hwnd, UINT msg, UINT_PTR id, DWORD now)
{
    (void)hwnd, (void)msg, (void)id, (void)now;
    ticks++;
    if (!want_caption)
        return;
    HWND box = FindWindowA("#32770", want_caption);
    if (!box || !IsWindowVisible(box) || ++seen < 2)
        return;
    const char *c = want_caption;
    want_caption = NULL;
    seen = 0;
    printf("box \"%s\" found\n", c);
    show_box(box);
    switch (step) {
    case 1:
        SendMessageA(GetDlgItem(box, IDNO), BM_CLICK, 0, 0);
        break;
    case 2:
        PostMessageA(box, WM_CLOSE, 0, 0);
        break;
    case 3:
        PostMessageA(GetFocus(), WM_KEYDOWN, VK_RETURN, 0x001c0001);
        PostMessageA(GetFocus(), WM_KEYUP, VK_RETURN, 0xc01c0001);
        break;
    default:
        SendMessageA(GetDlgItem(box, IDOK), BM_CLICK, 0, 0);
        break;
    }
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    if (m == WM_DESTROY) {
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(h, m, w, l);
}

static void run(int n, const char *caption, int r)
{
    printf("MessageBox %d returned %d, owner timer ran %d, main enabled %d\n", n, r,
           ticks > 0, IsWindowEnabled(main_wnd) != 0);
    (void)caption;
    ticks = 0;
    fflush(stdout);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev, (void)cmd, (void)show;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    wc.lpszClassName = "msgboxmain";
    RegisterClassA(&wc);
    main_wnd = CreateWindowA("msgboxmain", "msgbox main", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                             40, 40, 320, 240, NULL, NULL, inst, NULL);
    SetTimer(main_wnd, 1, 50, on_timer);

    step = 1;
    want_caption = "Question";
    int r = MessageBoxA(main_wnd, "Save the changes?", "Question",
                        MB_YESNOCANCEL | MB_ICONQUESTION | MB_DEFBUTTON2);
    run(1, "Question", r);

    step = 2;
    want_caption = "Only OK";
    r = MessageBoxA(main_wnd, "Closed by WM_CLOSE", "Only OK", MB_OK | MB_ICONEXCLAMATION);
    run(2, "Only OK", r);

    step = 3;
    want_caption = "Enter";
    r = MessageBoxA(main_wnd, "Enter presses the default button", "Enter",
                    MB_OKCANCEL | MB_DEFBUTTON2);
    run(3, "Enter", r);

    step = 4;
    char caption[64];
    LoadStringA(inst, IDS_CAPTION, caption, sizeof caption);
    want_caption = caption;
    MSGBOXPARAMSA p = {0};
    p.cbSize = sizeof p;
    p.hwndOwner = main_wnd;
    p.hInstance = inst;
    p.lpszText = MAKEINTRESOURCEA(IDS_TEXT);
    p.lpszCaption = MAKEINTRESOURCEA(IDS_CAPTION);
    p.dwStyle = MB_OK | MB_ICONASTERISK;
    r = MessageBoxIndirectA(&p);
    run(4, caption, r);

    KillTimer(main_wnd, 1);
    DestroyWindow(main_wnd);
    MSG msg;
    while (GetMessageA(&msg, NULL, 0, 0) > 0)
        DispatchMessageA(&msg);
    printf("done\n");
    return 0;
}
