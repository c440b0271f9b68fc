/*
 * timer: SetTimer/KillTimer, WM_TIMER and TIMERPROC callbacks.
 *
 * The phases run one after the other, each started by the end of the one
 * before, so the printed order does not depend on how long anything takes:
 *
 * 1. a window timer (id 1, 10 ms, no TIMERPROC): WM_TIMER reaches the window
 *    procedure with wParam = 1 and lParam = 0; five ticks, then KillTimer;
 * 2. a thread timer, SetTimer(NULL, 0, 20, proc): the callback gets hwnd
 *    NULL, WM_TIMER, the id SetTimer returned and a dwTime that is a
 *    GetTickCount value; three ticks, then KillTimer(NULL, id);
 * 3. a window timer with a TIMERPROC (id 2, 15 ms): DispatchMessage calls
 *    the callback with the window and id 2, and the window procedure sees no
 *    WM_TIMER for it; three ticks;
 * 4. two timers at once (id 3, 10 ms, WM_TIMER; id 4, 25 ms, TIMERPROC):
 *    how they interleave depends on timing, so only the counts are printed,
 *    each timer being killed at its fourth tick.
 *
 * A WM_TIMER that was already waiting when its timer was killed may still be
 * delivered ("KillTimer does not remove WM_TIMER messages already posted"),
 * so ticks of killed timers are ignored rather than counted. The window is
 * never shown. Output on stdout.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

static HWND win;
static int phase;
static int ticks[5];
static UINT_PTR thread_timer;
static DWORD phase_start;
static int dwtime_ok = 1;

static void start_phase(int p);

static void check_dwtime(DWORD t)
{
    DWORD now = GetTickCount();
    if (t - phase_start > now - phase_start)
        dwtime_ok = 0;
}

static void CALLBACK thread_proc(HWND hwnd, UINT msg, UINT_PTR id, DWORD time)
{
    if (phase != 2 || id != thread_timer || ticks[0] >= 3)
        return;
    check_dwtime(time);
    ticks[0]++;
    printf("thread TIMERPROC tick %d: hwnd %s, msg 0x%x, id is SetTimer's: %d\n", ticks[0], hwnd ? "set" : "NULL",
           msg, id == thread_timer);
    if (ticks[0] == 3) {
        printf("KillTimer(NULL, id) = %d\n", KillTimer(NULL, thread_timer));
        start_phase(3);
    }
}

static void CALLBACK window_proc_timer(HWND hwnd, UINT msg, UINT_PTR id, DWORD time)
{
    if (phase == 3 && id == 2 && ticks[2] < 3) {
        check_dwtime(time);
        ticks[2]++;
        printf("window TIMERPROC tick %d: hwnd is the window: %d, msg 0x%x, id %u\n", ticks[2], hwnd == win, msg,
               (unsigned)id);
        if (ticks[2] == 3) {
            printf("KillTimer(hwnd, 2) = %d\n", KillTimer(hwnd, 2));
            start_phase(4);
        }
    } else if (phase == 4 && id == 4 && ticks[4] < 4) {
        check_dwtime(time);
        if (++ticks[4] == 4)
            KillTimer(hwnd, 4);
    }
    if (phase == 4 && ticks[3] == 4 && ticks[4] == 4)
        start_phase(5);
}

static void start_phase(int p)
{
    phase = p;
    phase_start = GetTickCount();
    switch (p) {
    case 1:
        printf("phase 1: SetTimer(hwnd, 1, 10, NULL) nonzero: %d\n", SetTimer(win, 1, 10, NULL) != 0);
        break;
    case 2:
        thread_timer = SetTimer(NULL, 0, 20, thread_proc);
        printf("phase 2: SetTimer(NULL, 0, 20, proc) nonzero: %d\n", thread_timer != 0);
        break;
    case 3:
        printf("phase 3: SetTimer(hwnd, 2, 15, proc) nonzero: %d\n", SetTimer(win, 2, 15, window_proc_timer) != 0);
        break;
    case 4:
        printf("phase 4: two timers at once\n");
        SetTimer(win, 3, 10, NULL);
        SetTimer(win, 4, 25, window_proc_timer);
        break;
    case 5:
        printf("phase 4 counts: id 3 %d ticks, id 4 %d ticks\n", ticks[3], ticks[4]);
        printf("every dwTime was a GetTickCount value from its phase: %d\n", dwtime_ok);
        printf("KillTimer of a timer that does not exist = %d\n", KillTimer(win, 99));
        DestroyWindow(win);
        break;
    }
}

static LRESULT CALLBACK wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_TIMER:
        if (phase == 1 && wp == 1 && ticks[1] < 5) {
            ticks[1]++;
            printf("WM_TIMER tick %d: wParam %u, lParam %ld\n", ticks[1], (unsigned)wp, (long)lp);
            if (ticks[1] == 5) {
                DWORD elapsed = GetTickCount() - phase_start;
                printf("five 10 ms ticks took at least 30 ms: %d\n", elapsed >= 30);
                printf("KillTimer(hwnd, 1) = %d\n", KillTimer(hwnd, 1));
                start_phase(2);
            }
        } else if (wp == 2) {
            printf("WM_TIMER for id 2 reached the window procedure\n");
        } else if (phase == 4 && wp == 3 && ticks[3] < 4) {
            if (++ticks[3] == 4)
                KillTimer(hwnd, 3);
            if (ticks[3] == 4 && ticks[4] == 4)
                start_phase(5);
        }
        return 0;
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)cmdline;
    (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);

    WNDCLASSA wc;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "timer";
    RegisterClassA(&wc);
    win = CreateWindowA("timer", "timer", WS_OVERLAPPEDWINDOW, 0, 0, 200, 100, NULL, NULL, inst, NULL);
    if (!win)
        return 1;

    start_phase(1);
    MSG m;
    while (GetMessageA(&m, NULL, 0, 0) > 0)
        DispatchMessageA(&m);
    printf("done, WM_QUIT wParam %u\n", (unsigned)m.wParam);
    return 0;
}
