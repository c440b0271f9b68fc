/*
 * mmtimer: winmm multimedia timers on the guest clock.
 *
 * Prints, one line per check, results that do not depend on how fast the
 * machine is (so the same output is expected from winterp in both modes and
 * from Windows or Wine): timeGetDevCaps, timeBeginPeriod/timeEndPeriod range
 * checks, timeGetTime against GetTickCount and timeGetSystemTime, and
 * timeSetEvent with each callback kind:
 * - TIME_PERIODIC with a function, 10 ms: the callback runs on another thread
 *   (the winmm timer thread: one for all events while they run; Wine ends
 *   it when no event is left and starts another), gets its timer id
 *   and dwUser with uMsg, dw1, dw2 zero; the k-th call comes no earlier than
 *   k*10 ms after timeSetEvent; after Sleep(105) there have been 10 calls
 *   (printed on an "exact:" line, which only deterministic runs compare; on a
 *   loaded real-time system only a range is checked), none after
 *   timeKillEvent;
 * - TIME_ONESHOT: exactly one call;
 * - TIME_CALLBACK_EVENT_SET: an auto-reset event is set after the delay;
 * - TIME_CALLBACK_EVENT_PULSE, periodic: a waiting thread is released each
 *   period;
 * - out-of-range delays and unknown ids fail.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <stdio.h>

#define MAX_CALLS 64

static volatile LONG calls;
static DWORD call_time[MAX_CALLS];
static UINT call_id[MAX_CALLS];
static DWORD_PTR call_user[MAX_CALLS], call_dw1[MAX_CALLS], call_dw2[MAX_CALLS];
static UINT call_msg[MAX_CALLS];
static DWORD call_thread[MAX_CALLS];

static volatile LONG oneshot_calls;
static DWORD oneshot_thread;

static void CALLBACK periodic_cb(UINT id, UINT msg, DWORD_PTR user, DWORD_PTR dw1, DWORD_PTR dw2)
{
    LONG n = InterlockedIncrement(&calls) - 1;
    if (n < MAX_CALLS) {
        call_time[n] = timeGetTime();
        call_id[n] = id;
        call_msg[n] = msg;
        call_user[n] = user;
        call_dw1[n] = dw1;
        call_dw2[n] = dw2;
        call_thread[n] = GetCurrentThreadId();
    }
}

static void CALLBACK oneshot_cb(UINT id, UINT msg, DWORD_PTR user, DWORD_PTR dw1, DWORD_PTR dw2)
{
    (void)id;
    (void)msg;
    (void)user;
    (void)dw1;
    (void)dw2;
    oneshot_thread = GetCurrentThreadId();
    InterlockedIncrement(&oneshot_calls);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)inst;
    (void)prev;
    (void)cmd;
    (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);

    TIMECAPS tc;
    MMRESULT r = timeGetDevCaps(&tc, sizeof tc);
    printf("timeGetDevCaps = %u: wPeriodMin >= 1: %d, wPeriodMax >= 1000: %d\n", r, tc.wPeriodMin >= 1,
           tc.wPeriodMax >= 1000);
    printf("timeGetDevCaps(NULL) = %u\n", timeGetDevCaps(NULL, sizeof tc));
    printf("timeBeginPeriod(0) = %u\n", timeBeginPeriod(0));
    printf("timeBeginPeriod(1) = %u\n", timeBeginPeriod(1));
    printf("timeEndPeriod(1) = %u\n", timeEndPeriod(1));
    printf("timeEndPeriod(0) = %u\n", timeEndPeriod(0));

    DWORD t = timeGetTime(), g = GetTickCount();
    printf("timeGetTime and GetTickCount within 20 ms: %d\n", (LONG)(t - g) < 20 && (LONG)(g - t) < 20);
    MMTIME mt;
    mt.wType = TIME_BYTES;
    r = timeGetSystemTime(&mt, sizeof mt);
    printf("timeGetSystemTime = %u, wType TIME_MS: %d, within 20 ms of timeGetTime: %d\n", r, mt.wType == TIME_MS,
           (LONG)(mt.u.ms - t) < 20 && (LONG)(t - mt.u.ms) < 20);

    printf("timeSetEvent(0 ms) = %u\n", timeSetEvent(0, 0, periodic_cb, 0, TIME_PERIODIC));
    printf("timeSetEvent(1000001 ms) = %u\n", timeSetEvent(1000001, 0, periodic_cb, 0, TIME_PERIODIC));
    /* Documented as MMSYSERR_INVALPARAM; Wine returns TIMERR_NOCANDO. */
    printf("timeKillEvent(unknown id) fails: %d\n", timeKillEvent(0x7ffe) != TIMERR_NOERROR);

    /* Periodic function callback. */
    DWORD start = timeGetTime();
    UINT id = timeSetEvent(10, 0, periodic_cb, 0x1234, TIME_PERIODIC | TIME_CALLBACK_FUNCTION);
    printf("periodic timeSetEvent nonzero: %d\n", id != 0);
    Sleep(105);
    r = timeKillEvent(id);
    LONG n = calls;
    printf("timeKillEvent = %u\n", r);
    /* A busy real-time machine may run the timer thread late; the exact count is
       only compared in deterministic runs (tests/input_programs.rs). */
    printf("calls after 105 ms within 5..11: %d\n", n >= 5 && n <= 11);
    printf("exact: calls after 105 ms: %ld\n", (long)n);
    int args_ok = 1, thread_ok = 1, times_ok = 1;
    for (LONG k = 0; k < n && k < MAX_CALLS; k++) {
        if (call_id[k] != id || call_msg[k] != 0 || call_user[k] != 0x1234 || call_dw1[k] != 0 || call_dw2[k] != 0)
            args_ok = 0;
        if (call_thread[k] == GetCurrentThreadId() || call_thread[k] != call_thread[0])
            thread_ok = 0;
        if ((LONG)(call_time[k] - start) < 10 * (k + 1))
            times_ok = 0;
    }
    printf("callback arguments (id, 0, dwUser, 0, 0): %d\n", args_ok);
    printf("callbacks on one thread other than the caller's: %d\n", thread_ok);
    printf("call k came no earlier than k*10 ms: %d\n", times_ok);
    Sleep(50);
    printf("no calls after timeKillEvent: %d\n", calls == n);

    /* One-shot. */
    id = timeSetEvent(20, 0, oneshot_cb, 0, TIME_ONESHOT);
    printf("one-shot timeSetEvent nonzero: %d\n", id != 0);
    Sleep(100);
    printf("one-shot calls: %ld, not on the caller's thread: %d\n", (long)oneshot_calls,
           oneshot_thread != GetCurrentThreadId());

    /* Event set. */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    start = timeGetTime();
    id = timeSetEvent(30, 0, (LPTIMECALLBACK)ev, 0, TIME_ONESHOT | TIME_CALLBACK_EVENT_SET);
    printf("event-set timeSetEvent nonzero: %d\n", id != 0);
    DWORD w = WaitForSingleObject(ev, 2000);
    DWORD waited = timeGetTime() - start;
    printf("event set: wait = %lu, after >= 30 ms: %d\n", w, waited >= 30);
    printf("auto-reset event not set again: %lu\n", WaitForSingleObject(ev, 100));

    /* Event pulse, periodic: each period releases the waiting thread once. */
    start = timeGetTime();
    id = timeSetEvent(20, 0, (LPTIMECALLBACK)ev, 0, TIME_PERIODIC | TIME_CALLBACK_EVENT_PULSE);
    int pulses = 0;
    for (int k = 0; k < 3; k++)
        if (WaitForSingleObject(ev, 2000) == WAIT_OBJECT_0)
            pulses++;
    waited = timeGetTime() - start;
    timeKillEvent(id);
    printf("event pulse: %d of 3 waits released, after >= 60 ms: %d\n", pulses, waited >= 60);
    CloseHandle(ev);
    printf("done\n");
    return 0;
}
