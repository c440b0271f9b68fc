/*
 * threads: guest threads, atomics and every Win32 synchronisation object.
 *
 * Eight threads each add 100,000 to shared counters through the inline
 * (lock-prefixed) Interlocked intrinsics, through kernel32's exported
 * InterlockedIncrement, through a compare-exchange loop and under a
 * CRITICAL_SECTION; then 8 x 20,000 under a mutex and under a semaphore.
 * The totals are exact whatever the scheduling. Events with
 * WaitForMultipleObjects (any/all, timeouts, auto/manual reset), TLS slots,
 * _beginthreadex, ExitThread, GetExitCodeThread/STILL_ACTIVE, abandoned
 * mutexes, semaphore limits, suspended creation and priorities follow. No
 * output depends on timing: every wait that is expected to time out waits on
 * an object nothing can signal at that moment.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 8
#define ITER 100000
#define LOCKED_ITER 20000

static volatile LONG c_inline, c_export, c_cas, c_cs, c_mutex, c_sema;
static CRITICAL_SECTION cs;
static HANDLE mutex, sema;
static LONG(WINAPI *k32_InterlockedIncrement)(LONG volatile *);
static LONG(WINAPI *k32_InterlockedDecrement)(LONG volatile *);
static LONG(WINAPI *k32_InterlockedExchange)(LONG volatile *, LONG);
static LONG(WINAPI *k32_InterlockedCompareExchange)(LONG volatile *, LONG, LONG);
static LONG(WINAPI *k32_InterlockedExchangeAdd)(LONG volatile *, LONG);

static HANDLE start_threads(LPTHREAD_START_ROUTINE fn, HANDLE *h, DWORD *ids)
{
    int i;
    for (i = 0; i < NTHREADS; i++)
        h[i] = CreateThread(NULL, 0, fn, (void *)(INT_PTR)i, 0, &ids[i]);
    return h[0];
}

static DWORD join(HANDLE *h)
{
    DWORD r = WaitForMultipleObjects(NTHREADS, h, TRUE, INFINITE);
    int i;
    for (i = 0; i < NTHREADS; i++)
        CloseHandle(h[i]);
    return r;
}

static DWORD WINAPI inline_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < ITER; i++)
        InterlockedIncrement(&c_inline);
    return 0;
}

static DWORD WINAPI export_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < ITER; i++)
        k32_InterlockedIncrement(&c_export);
    return 0;
}

static DWORD WINAPI cas_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < ITER; i++) {
        LONG old;
        do
            old = c_cas;
        while (InterlockedCompareExchange(&c_cas, old + 1, old) != old);
    }
    return 0;
}

static DWORD WINAPI cs_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < ITER; i++) {
        EnterCriticalSection(&cs);
        c_cs = c_cs + 1; /* a plain read-modify-write: only the lock makes it safe */
        LeaveCriticalSection(&cs);
    }
    return 0;
}

static DWORD WINAPI mutex_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < LOCKED_ITER; i++) {
        WaitForSingleObject(mutex, INFINITE);
        c_mutex = c_mutex + 1;
        ReleaseMutex(mutex);
    }
    return 0;
}

static DWORD WINAPI sema_worker(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < LOCKED_ITER; i++) {
        WaitForSingleObject(sema, INFINITE);
        c_sema = c_sema + 1;
        ReleaseSemaphore(sema, 1, NULL);
    }
    return 0;
}

static void counters(void)
{
    HANDLE h[NTHREADS];
    DWORD ids[NTHREADS];
    HMODULE k32 = GetModuleHandleA("kernel32.dll");
    DWORD r;

    k32_InterlockedIncrement = (void *)GetProcAddress(k32, "InterlockedIncrement");
    k32_InterlockedDecrement = (void *)GetProcAddress(k32, "InterlockedDecrement");
    k32_InterlockedExchange = (void *)GetProcAddress(k32, "InterlockedExchange");
    k32_InterlockedCompareExchange = (void *)GetProcAddress(k32, "InterlockedCompareExchange");
    k32_InterlockedExchangeAdd = (void *)GetProcAddress(k32, "InterlockedExchangeAdd");
    printf("GetProcAddress(kernel32, Interlocked*): %s\n",
           k32_InterlockedIncrement && k32_InterlockedDecrement && k32_InterlockedExchange &&
                   k32_InterlockedCompareExchange && k32_InterlockedExchangeAdd
               ? "all found"
               : "missing");

    start_threads(inline_worker, h, ids);
    r = join(h);
    printf("inline InterlockedIncrement: %d threads x %d = %ld (wait all returned %lu)\n", NTHREADS, ITER, c_inline, r);

    start_threads(export_worker, h, ids);
    r = join(h);
    printf("kernel32 InterlockedIncrement: %d threads x %d = %ld (wait all returned %lu)\n", NTHREADS, ITER, c_export, r);

    start_threads(cas_worker, h, ids);
    r = join(h);
    printf("InterlockedCompareExchange loop: %d threads x %d = %ld\n", NTHREADS, ITER, c_cas);

    InitializeCriticalSection(&cs);
    start_threads(cs_worker, h, ids);
    r = join(h);
    DeleteCriticalSection(&cs);
    printf("critical section: %d threads x %d = %ld\n", NTHREADS, ITER, c_cs);

    mutex = CreateMutexA(NULL, FALSE, NULL);
    start_threads(mutex_worker, h, ids);
    r = join(h);
    CloseHandle(mutex);
    printf("mutex: %d threads x %d = %ld\n", NTHREADS, LOCKED_ITER, c_mutex);

    sema = CreateSemaphoreA(NULL, 1, 1, NULL);
    start_threads(sema_worker, h, ids);
    r = join(h);
    CloseHandle(sema);
    printf("semaphore (count 1): %d threads x %d = %ld\n", NTHREADS, LOCKED_ITER, c_sema);
}

static void interlocked_values(void)
{
    volatile LONG x = 5;
    LONG r;

    r = InterlockedIncrement(&x);
    printf("inline: InterlockedIncrement(5) = %ld", r);
    r = InterlockedDecrement(&x);
    printf(", InterlockedDecrement(6) = %ld", r);
    r = InterlockedExchange(&x, 10);
    printf(", InterlockedExchange(5, 10) = %ld", r);
    r = InterlockedCompareExchange(&x, 20, 10);
    printf(", InterlockedCompareExchange(10, 20, 10) = %ld", r);
    r = InterlockedCompareExchange(&x, 30, 10);
    printf(", InterlockedCompareExchange(20, 30, 10) = %ld", r);
    r = InterlockedExchangeAdd(&x, -25);
    printf(", InterlockedExchangeAdd(20, -25) = %ld, x = %ld\n", r, x);

    /* Windows 95/98 documented only the sign of Increment/Decrement's result. */
    x = -2;
    r = k32_InterlockedIncrement(&x);
    printf("kernel32: InterlockedIncrement(-2) < 0: %s, x = %ld", r < 0 ? "yes" : "no", x);
    r = k32_InterlockedIncrement(&x);
    printf(", InterlockedIncrement(-1) == 0: %s", r == 0 ? "yes" : "no");
    r = k32_InterlockedIncrement(&x);
    printf(", InterlockedIncrement(0) > 0: %s", r > 0 ? "yes" : "no");
    r = k32_InterlockedDecrement(&x);
    printf(", InterlockedDecrement(1) == 0: %s, x = %ld\n", r == 0 ? "yes" : "no", x);
    x = 7;
    r = k32_InterlockedExchange(&x, 8);
    printf("kernel32: InterlockedExchange(7, 8) = %ld", r);
    r = k32_InterlockedCompareExchange(&x, 9, 8);
    printf(", InterlockedCompareExchange(8, 9, 8) = %ld", r);
    r = k32_InterlockedCompareExchange(&x, 1, 8);
    printf(", InterlockedCompareExchange(9, 1, 8) = %ld", r);
    r = k32_InterlockedExchangeAdd(&x, 100);
    printf(", InterlockedExchangeAdd(9, 100) = %ld, x = %ld\n", r, x);
}

/* ---- events ---- */

static HANDLE gate, done[NTHREADS], leave;
static LONG own[NTHREADS];
static DWORD tids[NTHREADS];

static DWORD WINAPI event_worker(void *arg)
{
    int me = (int)(INT_PTR)arg, i;
    tids[me] = GetCurrentThreadId();
    WaitForSingleObject(gate, INFINITE);
    for (i = 0; i < ITER; i++)
        own[me]++;
    SetEvent(done[me]);
    WaitForSingleObject(leave, INFINITE);
    return 100 + me;
}

static void events(void)
{
    HANDLE h[NTHREADS], named, named2;
    DWORD ids[NTHREADS], r, code, e;
    LONG total = 0;
    int i, distinct = 1, j, codes_ok = 1;

    gate = CreateEventA(NULL, TRUE, FALSE, NULL);  /* manual reset */
    leave = CreateEventA(NULL, TRUE, FALSE, NULL); /* manual reset */
    for (i = 0; i < NTHREADS; i++)
        done[i] = CreateEventA(NULL, FALSE, FALSE, NULL); /* auto reset */
    start_threads(event_worker, h, ids);

    /* Nothing can be signalled before the gate opens. */
    r = WaitForMultipleObjects(NTHREADS, done, FALSE, 0);
    printf("WaitForMultipleObjects(any, 0 ms) before the gate opens = %lu (WAIT_TIMEOUT is 258)\n", r);
    r = WaitForMultipleObjects(NTHREADS, done, FALSE, 30);
    printf("WaitForMultipleObjects(any, 30 ms) = %lu\n", r);
    SetEvent(done[5]);
    r = WaitForMultipleObjects(NTHREADS, done, FALSE, INFINITE);
    printf("after SetEvent(done[5]): WaitForMultipleObjects(any) = WAIT_OBJECT_0 + %lu\n", r - WAIT_OBJECT_0);
    r = WaitForSingleObject(done[5], 0);
    printf("the auto-reset event was consumed by that wait: WaitForSingleObject = %lu\n", r);

    SetEvent(gate);
    r = WaitForMultipleObjects(NTHREADS, done, TRUE, INFINITE);
    printf("WaitForMultipleObjects(all) after the gate opened = %lu\n", r);
    r = WaitForSingleObject(done[3], 0);
    printf("auto-reset events were reset by the wait-all: WaitForSingleObject(done[3], 0) = %lu\n", r);
    r = WaitForSingleObject(gate, 0);
    printf("manual-reset gate stays signalled: %lu\n", r);
    ResetEvent(gate);
    r = WaitForSingleObject(gate, 0);
    printf("after ResetEvent: %lu\n", r);
    for (i = 0; i < NTHREADS; i++)
        total += own[i];
    printf("per-thread counters after the events: %d x %d = %ld\n", NTHREADS, ITER, total);

    for (i = 0; i < NTHREADS; i++)
        for (j = 0; j < NTHREADS; j++)
            distinct &= tids[i] != 0 && tids[i] != GetCurrentThreadId() && (i == j || tids[i] != tids[j]);
    for (i = 0; i < NTHREADS; i++)
        distinct &= ids[i] == tids[i];
    printf("thread ids distinct, non-zero, and as CreateThread reported: %s\n", distinct ? "yes" : "no");

    GetExitCodeThread(h[0], &code);
    printf("GetExitCodeThread while the thread waits = %lu (STILL_ACTIVE is 259)\n", code);
    SetEvent(leave);
    WaitForMultipleObjects(NTHREADS, h, TRUE, INFINITE);
    for (i = 0; i < NTHREADS; i++) {
        GetExitCodeThread(h[i], &code);
        codes_ok &= code == (DWORD)(100 + i);
        CloseHandle(h[i]);
        CloseHandle(done[i]);
    }
    printf("exit codes are the threads' return values 100..107: %s\n", codes_ok ? "yes" : "no");
    CloseHandle(gate);
    CloseHandle(leave);

    SetLastError(0xdeadbeef);
    named = CreateEventA(NULL, TRUE, FALSE, "winterp_threads_event");
    e = GetLastError();
    named2 = CreateEventA(NULL, TRUE, FALSE, "winterp_threads_event");
    printf("named event: first create error %lu, second create error %lu\n", e, GetLastError());
    SetEvent(named);
    printf("the second handle sees the first's SetEvent: %s\n", WaitForSingleObject(named2, 0) == WAIT_OBJECT_0 ? "yes" : "no");
    CloseHandle(named);
    CloseHandle(named2);
}

/* ---- TLS ---- */

static DWORD slot;

static DWORD WINAPI tls_worker(void *arg)
{
    int me = (int)(INT_PTR)arg, i, wrong = 0;
    DWORD e;
    void *initial;
    SetLastError(1234);
    initial = TlsGetValue(slot);
    e = GetLastError();
    if (initial != NULL || e != ERROR_SUCCESS)
        wrong = 1000;
    TlsSetValue(slot, (void *)(INT_PTR)(0x1000 + me));
    for (i = 0; i < 2000; i++) {
        if (TlsGetValue(slot) != (void *)(INT_PTR)(0x1000 + me))
            wrong++;
        if (i % 100 == 0)
            Sleep(0);
    }
    return wrong;
}

static void tls(void)
{
    HANDLE h[NTHREADS];
    DWORD ids[NTHREADS], code, bad = 0;
    int i;

    slot = TlsAlloc();
    printf("TlsAlloc: %s\n", slot != TLS_OUT_OF_INDEXES ? "ok" : "TLS_OUT_OF_INDEXES");
    TlsSetValue(slot, (void *)0x5555);
    start_threads(tls_worker, h, ids);
    WaitForMultipleObjects(NTHREADS, h, TRUE, INFINITE);
    for (i = 0; i < NTHREADS; i++) {
        GetExitCodeThread(h[i], &code);
        bad += code;
        CloseHandle(h[i]);
    }
    printf("TLS: each thread started with NULL (last error 0) and kept its own value: %s\n", bad == 0 ? "yes" : "no");
    printf("TLS: the main thread's value is untouched: %s\n", TlsGetValue(slot) == (void *)0x5555 ? "yes" : "no");
    printf("TlsFree: %d\n", TlsFree(slot));
}

/* ---- thread lifetime ---- */

static unsigned __stdcall crt_worker(void *arg)
{
    return 200 + (unsigned)(UINT_PTR)arg;
}

static DWORD WINAPI exit_worker(void *arg)
{
    (void)arg;
    ExitThread(77);
    return 1; /* never reached */
}

static volatile LONG ran;

static DWORD WINAPI flag_worker(void *arg)
{
    (void)arg;
    InterlockedExchange(&ran, 1);
    return GetThreadPriority(GetCurrentThread());
}

static HANDLE abandon_me;

static DWORD WINAPI abandon_worker(void *arg)
{
    (void)arg;
    WaitForSingleObject(abandon_me, INFINITE);
    return 0; /* exits owning the mutex */
}

static DWORD WINAPI not_owner_worker(void *arg)
{
    BOOL ok = ReleaseMutex((HANDLE)arg);
    return ok ? 0 : GetLastError();
}

static void lifetime(void)
{
    HANDLE h[NTHREADS], t, m, s;
    DWORD code, r, e;
    LONG prev;
    unsigned id;
    int i, ok = 1;
    BOOL b;

    for (i = 0; i < NTHREADS; i++)
        h[i] = (HANDLE)_beginthreadex(NULL, 0, crt_worker, (void *)(UINT_PTR)i, 0, &id);
    WaitForMultipleObjects(NTHREADS, h, TRUE, INFINITE);
    for (i = 0; i < NTHREADS; i++) {
        GetExitCodeThread(h[i], &code);
        ok &= code == (DWORD)(200 + i);
        CloseHandle(h[i]);
    }
    printf("_beginthreadex: exit codes are the return values 200..207: %s\n", ok ? "yes" : "no");

    t = CreateThread(NULL, 0, exit_worker, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    GetExitCodeThread(t, &code);
    printf("ExitThread(77): GetExitCodeThread = %lu\n", code);
    CloseHandle(t);

    t = CreateThread(NULL, 0, flag_worker, NULL, CREATE_SUSPENDED, NULL);
    printf("CREATE_SUSPENDED: the thread has not run: %s\n", ran == 0 ? "yes" : "no");
    b = SetThreadPriority(t, THREAD_PRIORITY_ABOVE_NORMAL);
    printf("SetThreadPriority(ABOVE_NORMAL) = %d, GetThreadPriority = %d\n", b, GetThreadPriority(t));
    printf("ResumeThread = %lu (previous suspend count)\n", ResumeThread(t));
    WaitForSingleObject(t, INFINITE);
    GetExitCodeThread(t, &code);
    printf("after ResumeThread it ran: %s, and saw its priority %lu\n", ran ? "yes" : "no", code);
    CloseHandle(t);

    /* Mutex ownership. */
    m = CreateMutexA(NULL, TRUE, NULL);
    r = WaitForSingleObject(m, 0);
    printf("mutex: the owner waits again (recursion) = %lu\n", r);
    t = CreateThread(NULL, 0, not_owner_worker, m, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    GetExitCodeThread(t, &code);
    CloseHandle(t);
    printf("mutex: ReleaseMutex from another thread fails with error %lu\n", code);
    b = ReleaseMutex(m);
    printf("mutex: ReleaseMutex = %d", b);
    b = ReleaseMutex(m);
    printf(", again = %d", b);
    SetLastError(0);
    b = ReleaseMutex(m);
    e = GetLastError();
    printf(", a third time = %d, error %lu\n", b, e);
    CloseHandle(m);

    abandon_me = CreateMutexA(NULL, FALSE, NULL);
    t = CreateThread(NULL, 0, abandon_worker, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    r = WaitForSingleObject(abandon_me, INFINITE);
    printf("mutex: waiting on a mutex whose owner exited = 0x%lx (WAIT_ABANDONED is 0x80)\n", r);
    printf("mutex: and the waiter now owns it: ReleaseMutex = %d\n", ReleaseMutex(abandon_me));
    CloseHandle(abandon_me);

    /* Semaphore limits. */
    s = CreateSemaphoreA(NULL, 2, 3, NULL);
    b = ReleaseSemaphore(s, 1, &prev);
    printf("semaphore(2 of max 3): ReleaseSemaphore(1) = %d, previous count %ld\n", b, prev);
    prev = -1;
    SetLastError(0);
    b = ReleaseSemaphore(s, 1, &prev);
    e = GetLastError();
    printf("semaphore: ReleaseSemaphore past the maximum = %d, error %lu\n", b, e);
    printf("semaphore: waits");
    for (i = 0; i < 4; i++)
        printf(" %lu", WaitForSingleObject(s, 0));
    printf("\n");
    CloseHandle(s);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    counters();
    interlocked_values();
    events();
    tls();
    lifetime();
    printf("done\n");
    return 0;
}
