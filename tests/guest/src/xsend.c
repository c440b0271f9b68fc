/*
 * xsend: SendMessage between threads, in the order taskmgr relies on.
 *
 * 1. The main thread creates a modeless dialog; its WM_INITDIALOG starts a
 *    worker thread that at once sends WM_APP to the dialog (as taskmgr's
 *    refresh thread sends LVM_GETITEMCOUNT to its list view). The main thread
 *    is inside CreateDialogIndirectParam and then sleeps: a sent message is
 *    only delivered when the receiving thread retrieves messages, so the worker
 *    waits, WM_INITDIALOG and CreateDialogIndirectParam return, and the main
 *    thread's GetMessage delivers WM_APP (InSendMessage is then TRUE).
 * 2. The worker makes a window of its own and sends WM_APP+1 with it; the
 *    dialog, handling that, sends WM_APP+2 to the worker's window: the worker,
 *    waiting for its reply, serves the message sent to it meanwhile.
 * 3. The worker posts WM_APP+3 (the dialog sleeps 1 s on it) and, 200 ms
 *    later, sends WM_APP+4 with SendMessageTimeout and a 100 ms timeout: it
 *    times out with ERROR_TIMEOUT and a result of 0, and the message, never
 *    picked up, is not delivered later.
 * 4. The worker posts WM_APP+5: the dialog is destroyed and the loop ends.
 * 5. A second worker makes a window, lets the main thread know, and ends
 *    200 ms later without ever retrieving messages: the main thread's
 *    SendMessage to that window returns 0 when the thread ends.
 *
 * Each step starts when the one before is over, so the order of the lines does
 * not depend on timing (but for the 1 s against 300 ms of step 3). Output on
 * stdout.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdarg.h>
#include <stdio.h>

static HWND dlg;
static DWORD main_tid, worker_tid;
static volatile LONG worker_replied;

static void say(const char *fmt, ...)
{
    va_list a;
    va_start(a, fmt);
    vprintf(fmt, a);
    va_end(a);
    fflush(stdout);
}

static HWND quitter_wnd;
static HANDLE quitter_ready;

static DWORD WINAPI quitter(void *arg)
{
    (void)arg;
    quitter_wnd = CreateWindowA("xsend_worker", "q", WS_OVERLAPPED, 0, 0, 10, 10, NULL, NULL, GetModuleHandleA(NULL),
                                NULL);
    SetEvent(quitter_ready);
    Sleep(200);
    return 0;
}

static LRESULT CALLBACK worker_wnd(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_APP + 2) {
        say("worker window: WM_APP+2 (wParam %u) on the worker thread: %d, InSendMessage %d\n", (unsigned)wp,
            GetCurrentThreadId() == worker_tid, InSendMessage() != 0);
        return 5;
    }
    return DefWindowProcA(h, m, wp, lp);
}

static DWORD WINAPI worker(void *arg)
{
    (void)arg;
    LRESULT r = SendMessageA(dlg, WM_APP, 7, 0);
    InterlockedExchange(&worker_replied, 1);
    say("worker: SendMessage(WM_APP) returned %ld\n", (long)r);

    HWND w = CreateWindowA("xsend_worker", "w", WS_OVERLAPPED, 0, 0, 10, 10, NULL, NULL, GetModuleHandleA(NULL), NULL);
    r = SendMessageA(dlg, WM_APP + 1, 0, (LPARAM)w);
    say("worker: SendMessage(WM_APP+1) returned %ld\n", (long)r);

    PostMessageA(dlg, WM_APP + 3, 0, 0);
    Sleep(200);
    DWORD_PTR res = 99;
    SetLastError(0);
    LRESULT ok = SendMessageTimeoutA(dlg, WM_APP + 4, 0, 0, SMTO_NORMAL, 100, &res);
    DWORD err = GetLastError();
    say("worker: SendMessageTimeout(WM_APP+4, 100 ms) returned %ld, error %lu, result %lu\n", (long)ok,
        (unsigned long)err, (unsigned long)res);

    PostMessageA(dlg, WM_APP + 5, 0, 0);
    DestroyWindow(w);
    return 0;
}

static INT_PTR CALLBACK dlg_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    switch (m) {
    case WM_INITDIALOG: {
        dlg = h;
        HANDLE t = CreateThread(NULL, 0, worker, NULL, 0, &worker_tid);
        *(HANDLE *)lp = t;
        Sleep(300);
        say("WM_INITDIALOG: worker started; after 300 ms its send has a reply: %d, InSendMessage %d\n",
            (int)worker_replied, InSendMessage() != 0);
        return TRUE;
    }
    case WM_APP:
        say("dialog: WM_APP (wParam %u) on the main thread: %d, InSendMessage %d\n", (unsigned)wp,
            GetCurrentThreadId() == main_tid, InSendMessage() != 0);
        SetWindowLongA(h, DWLP_MSGRESULT, 42);
        return TRUE;
    case WM_APP + 1: {
        LRESULT r = SendMessageA((HWND)lp, WM_APP + 2, 3, 0);
        say("dialog: the worker's window answered WM_APP+2 with %ld\n", (long)r);
        SetWindowLongA(h, DWLP_MSGRESULT, 6);
        return TRUE;
    }
    case WM_APP + 3:
        say("dialog: WM_APP+3, sleeping 1 s\n");
        Sleep(1000);
        say("dialog: awake\n");
        return TRUE;
    case WM_APP + 4:
        say("dialog: WM_APP+4 delivered after the timeout\n");
        return TRUE;
    case WM_APP + 5:
        say("dialog: WM_APP+5, closing\n");
        DestroyWindow(h);
        PostQuitMessage(0);
        return TRUE;
    }
    return FALSE;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    (void)show;
    main_tid = GetCurrentThreadId();
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = worker_wnd;
    wc.hInstance = inst;
    wc.lpszClassName = "xsend_worker";
    RegisterClassA(&wc);

    /* A dialog template with no controls: DLGTEMPLATE, then empty menu, class
       and title arrays (WORD-aligned, which the union provides). */
    static union {
        DLGTEMPLATE t;
        WORD w[16];
    } tpl;
    tpl.t.style = WS_POPUP | WS_CAPTION;
    tpl.t.cx = 100;
    tpl.t.cy = 50;
    HANDLE thread = NULL;
    HWND h = CreateDialogIndirectParamA(inst, &tpl.t, NULL, dlg_proc, (LPARAM)&thread);
    say("CreateDialogIndirectParam returned a window: %d; the worker's send has a reply: %d\n", h != NULL,
        (int)worker_replied);

    MSG msg;
    while (GetMessageA(&msg, NULL, 0, 0) > 0) {
        if (!IsDialogMessageA(dlg, &msg)) {
            TranslateMessage(&msg);
            DispatchMessageA(&msg);
        }
    }
    say("message loop ended; worker ended: %d\n", WaitForSingleObject(thread, 5000) == WAIT_OBJECT_0);

    quitter_ready = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE q = CreateThread(NULL, 0, quitter, NULL, 0, NULL);
    WaitForSingleObject(quitter_ready, INFINITE);
    LRESULT r = SendMessageA(quitter_wnd, WM_APP + 2, 9, 0);
    WaitForSingleObject(q, INFINITE);
    say("SendMessage to a thread that ends without retrieving messages: %ld\n", (long)r);
    return 0;
}
