/*
 * regsave: the Win32 register contract across API calls and callbacks.
 *
 * The 32-bit Windows calling convention promises a caller that EBX, ESI, EDI
 * and EBP survive every call, that a stdcall function pops exactly its
 * arguments (a cdecl one none), and a callee that the direction flag is clear
 * when it is entered. This program checks both sides against winterp's HLE:
 *
 * - API calls: probe_call (assembly below) loads canaries into EBX, ESI, EDI
 *   and EBP, pushes the arguments, optionally sets the direction flag (std)
 *   and calls the API through its import pointer (`call *__imp__Name@N`; COM
 *   methods through their vtable slot), then records the four registers and
 *   ESP. A check passes when all four canaries are intact and ESP is where the
 *   convention leaves it: above the arguments for stdcall, at them for cdecl.
 *   Setting DF before a call breaks the convention on purpose: a callback the
 *   API makes must still be entered with DF clear (winterp's contract for every
 *   host-to-guest call; DF is back to clear after each probe).
 * - Callbacks: every callback is entered through an assembly stub that, before
 *   any compiled code runs, reads EFLAGS (pushf, bit 10 = DF), checks that ESP
 *   is 4-byte aligned (all Win32 promises) and lies in the calling thread's
 *   stack (TEB StackLimit <= ESP < StackBase) and, for callbacks made on the
 *   caller's thread, below the stack frame of the API call that made them;
 *   then it jumps to the C function, which overwrites EBX, ESI, EDI (and EBP)
 *   with garbage, saving them in its own prologue as a correct C function does,
 *   so only a host that leaks callback state into the caller's registers fails
 *   the caller's canary check.
 *
 * Covered callbacks: window procedures (CreateWindowExA, SendMessageA,
 * DispatchMessageA, CallWindowProcA, DestroyWindow), dialog procedures
 * (DialogBoxIndirectParamA, CreateDialogIndirectParamA), SetTimer TIMERPROC,
 * timeSetEvent callbacks, thread start routines (CreateThread), EnumWindows,
 * EnumChildWindows, EnumThreadWindows, EnumFontFamiliesA, EnumFontsA,
 * EnumFontFamiliesExA, msvcrt qsort's comparator (cdecl), DirectDrawEnumerateA,
 * IDirectDraw::EnumDisplayModes, DirectSoundEnumerateA,
 * IDirectInput::EnumDevices, IDirectInputDevice::EnumObjects.
 *
 * Output: one line per check, "PASS what" or "FAIL what detail"; nothing
 * depends on timing or on how many fonts, modes or devices there are. The exit
 * code is the number of failures.
 *
 * The probe keeps its current frame in a global, so only the main thread
 * makes probed calls; the thread routine and the timer callback only check
 * their entry state.
 */
#define DIRECTINPUT_VERSION 0x0700
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <ddraw.h>
#include <dsound.h>
#include <dinput.h>
#include <stdio.h>
#include <string.h>

/* ---- the probe ------------------------------------------------------------------ */

#define CANARY_EBX 0xEB0C0DE1u
#define CANARY_ESI 0xE51C0DE2u
#define CANARY_EDI 0xED1C0DE3u
#define CANARY_EBP 0xEB9C0DE4u

/* Flags of a probed call. */
#define F_STD 1   /* set DF before the call */
#define F_CDECL 2 /* the callee leaves its arguments on the stack */

typedef struct probe {
    void *const *slot;           /* 0: the import pointer or vtable slot */
    DWORD nargs;                 /* 4 */
    const DWORD *args;           /* 8 */
    DWORD flags;                 /* 12 */
    DWORD ret;                   /* 16: EAX after the call */
    DWORD ebx, esi, edi, ebp;    /* 20, 24, 28, 32: after the call */
    DWORD esp_before, esp_after; /* 36: ESP at the call (arguments pushed), 40: after it */
} probe;

/* The probe in progress on the main thread (NULL outside probe_call). */
probe *volatile cur_probe __asm__("cur_probe");
DWORD probe_scratch __asm__("probe_scratch");

extern void probe_call(probe *p) __asm__("probe_call");
__asm__(".text\n"
        ".globl probe_call\n"
        "probe_call:\n"
        "    pushl %ebp\n"
        "    pushl %ebx\n"
        "    pushl %esi\n"
        "    pushl %edi\n"
        "    pushl cur_probe\n"
        "    movl 24(%esp), %eax\n"
        "    movl %eax, cur_probe\n"
        "    movl 4(%eax), %ecx\n"
        "    movl 8(%eax), %edx\n"
        "1:  testl %ecx, %ecx\n"
        "    jz 2f\n"
        "    decl %ecx\n"
        "    pushl (%edx,%ecx,4)\n"
        "    jmp 1b\n"
        "2:  movl %esp, 36(%eax)\n"
        "    movl (%eax), %edx\n"
        "    movl $0xEB0C0DE1, %ebx\n"
        "    movl $0xE51C0DE2, %esi\n"
        "    movl $0xED1C0DE3, %edi\n"
        "    movl $0xEB9C0DE4, %ebp\n"
        "    testl $1, 12(%eax)\n"
        "    jz 3f\n"
        "    std\n"
        "3:  call *(%edx)\n"
        "    cld\n"
        "    movl %eax, probe_scratch\n"
        "    movl cur_probe, %eax\n"
        "    movl %esp, 40(%eax)\n"
        "    movl %ebx, 20(%eax)\n"
        "    movl %esi, 24(%eax)\n"
        "    movl %edi, 28(%eax)\n"
        "    movl %ebp, 32(%eax)\n"
        "    movl probe_scratch, %ecx\n"
        "    movl %ecx, 16(%eax)\n"
        /* Back to the frame whatever the callee did to ESP. */
        "    movl 36(%eax), %esp\n"
        "    movl 4(%eax), %ecx\n"
        "    leal (%esp,%ecx,4), %esp\n"
        "    popl cur_probe\n"
        "    popl %edi\n"
        "    popl %esi\n"
        "    popl %ebx\n"
        "    popl %ebp\n"
        "    ret\n");

static int failures;

static void pass(const char *what)
{
    printf("PASS %s\n", what);
}

static void fail(const char *what, const char *detail)
{
    printf("FAIL %s %s\n", what, detail);
    failures++;
}

static void expect(const char *what, int ok, const char *fmt, unsigned long v)
{
    char detail[128];
    if (ok) {
        pass(what);
        return;
    }
    snprintf(detail, sizeof detail, fmt, v);
    fail(what, detail);
}

/* Quiet mode (message loops whose length is not fixed): the first failure's
 * text is kept and the loop prints one line. */
static int quiet, quiet_failed;
static char quiet_detail[200];

static DWORD api_(const char *label, void *const *slot, DWORD flags, DWORD n, const DWORD *args)
{
    probe p;
    char what[128], detail[200];
    DWORD want_esp;
    memset(&p, 0, sizeof p);
    p.slot = slot;
    p.nargs = n;
    p.args = args;
    p.flags = flags;
    probe_call(&p);
    want_esp = p.esp_before + ((flags & F_CDECL) ? 0 : 4 * n);
    snprintf(what, sizeof what, "api %s%s", label, (flags & F_STD) ? " (DF set)" : "");
    if (p.ebx == CANARY_EBX && p.esi == CANARY_ESI && p.edi == CANARY_EDI && p.ebp == CANARY_EBP &&
        p.esp_after == want_esp) {
        if (!quiet)
            pass(what);
    } else {
        snprintf(detail, sizeof detail, "ebx=%08lx esi=%08lx edi=%08lx ebp=%08lx esp%+ld", (unsigned long)p.ebx,
                 (unsigned long)p.esi, (unsigned long)p.edi, (unsigned long)p.ebp,
                 (long)(p.esp_after - want_esp));
        if (!quiet) {
            fail(what, detail);
        } else if (!quiet_failed++) {
            snprintf(quiet_detail, sizeof quiet_detail, "%s: %s", what, detail);
        }
    }
    return p.ret;
}

static void quiet_end(const char *what)
{
    quiet = 0;
    if (quiet_failed)
        fail(what, quiet_detail);
    else
        pass(what);
    quiet_failed = 0;
}

/* Import pointers: IMP for stdcall (decorated Name@bytes), IMPC for cdecl. */
#define IMP(fn, bytes)                                                                                                 \
    extern void *const imp_##fn __asm__("__imp__" #fn "@" #bytes);                                                   \
    enum { nargs_##fn = (bytes) / 4, conv_##fn = 0 }
#define IMPC(fn, n)                                                                                                    \
    extern void *const imp_##fn __asm__("__imp__" #fn);                                                              \
    enum { nargs_##fn = (n), conv_##fn = F_CDECL }

#define ARGS(...) ((const DWORD[]){0, ##__VA_ARGS__})
#define COUNT(...) (sizeof ARGS(__VA_ARGS__) / sizeof(DWORD) - 1)
/* A call of import fn with the given arguments; the argument count must be the
 * declared one (checked at compile time). */
#define CALLL(label, fn, flags, ...)                                                                                   \
    api_(label, &imp_##fn, (flags) | conv_##fn,                                                                        \
         (DWORD)(sizeof(char[COUNT(__VA_ARGS__) == (size_t)nargs_##fn ? 1 : -1]) * nargs_##fn),                     \
         ARGS(__VA_ARGS__) + 1)
#define CALL(fn, ...) CALLL(#fn, fn, 0, ##__VA_ARGS__)
#define CALL_DF(fn, ...) CALLL(#fn, fn, F_STD, ##__VA_ARGS__)
/* A COM method: obj->lpVtbl->method(obj, ...), stdcall. */
#define COM(label, obj, method, flags, ...)                                                                            \
    api_(label, (void *const *)&(obj)->lpVtbl->method, (flags), 1 + COUNT(__VA_ARGS__),                                \
         ARGS((DWORD)(obj), ##__VA_ARGS__) + 1)
#define D(x) ((DWORD)(x))

IMP(GetTickCount, 0);
IMP(GetCurrentThreadId, 0);
IMP(GetModuleHandleA, 4);
IMP(SetLastError, 4);
IMP(GetLastError, 0);
IMP(lstrlenA, 4);
IMP(MulDiv, 12);
IMP(GetProcessHeap, 0);
IMP(HeapAlloc, 12);
IMP(HeapFree, 12);
IMP(CreateEventA, 16);
IMP(SetEvent, 4);
IMP(ResetEvent, 4);
IMP(WaitForSingleObject, 8);
IMP(CloseHandle, 4);
IMP(MultiByteToWideChar, 24);
IMP(WideCharToMultiByte, 32);
IMP(QueryPerformanceCounter, 4);
IMP(Sleep, 4);
IMP(CreateThread, 24);
IMP(GetExitCodeThread, 8);
IMPC(strlen, 1);
IMPC(sprintf, 4); /* as called here: buffer, format and two values */
IMPC(memset, 3);
IMPC(strcmp, 2);
IMPC(qsort, 4);
IMPC(wsprintfA, 3); /* as called here: buffer, format and one value */
IMP(RegisterClassA, 4);
IMP(CreateWindowExA, 48);
IMP(SendMessageA, 16);
IMP(PostMessageA, 16);
IMP(PeekMessageA, 20);
IMP(GetMessageA, 16);
IMP(TranslateMessage, 4);
IMP(DispatchMessageA, 4);
IMP(CallWindowProcA, 20);
IMP(GetClientRect, 8);
IMP(SetWindowTextA, 8);
IMP(GetWindowTextA, 12);
IMP(DestroyWindow, 4);
IMP(SetTimer, 16);
IMP(KillTimer, 8);
IMP(DialogBoxIndirectParamA, 20);
IMP(CreateDialogIndirectParamA, 20);
IMP(EndDialog, 8);
IMP(EnumWindows, 8);
IMP(EnumChildWindows, 12);
IMP(EnumThreadWindows, 12);
IMP(GetDC, 4);
IMP(ReleaseDC, 8);
IMP(EnumFontFamiliesA, 16);
IMP(EnumFontsA, 16);
IMP(EnumFontFamiliesExA, 20);
IMP(CreateFontA, 56);
IMP(SelectObject, 8);
IMP(DeleteObject, 4);
IMP(SetDIBitsToDevice, 48);
IMP(StretchDIBits, 52);
IMP(DirectDrawEnumerateA, 8);
IMP(DirectDrawCreate, 12);
IMP(DirectSoundEnumerateA, 8);
IMP(DirectSoundCreate, 12);
IMP(DirectInputCreateA, 16);
IMP(timeSetEvent, 20);
IMP(timeGetTime, 0);

/* ---- callback entry checks ------------------------------------------------------- */

struct cbstat {
    void *target;               /* 0: the C function the stub jumps to */
    volatile LONG calls;        /* 4 */
    volatile LONG df;           /* 8: entries with DF set */
    volatile LONG misaligned;   /* 12: entries with ESP not a multiple of 4 */
    volatile LONG off_stack;    /* 16: entries with ESP outside the thread's stack */
    volatile DWORD esp;         /* 20: ESP at the last entry (the return address) */
    volatile LONG above_caller; /* 24: entries not below the API call's frame */
    int same_thread;            /* 28: made on the thread of the API call */
    const char *name;           /* 32 */
};

/* The entry stub NAME_stub: records the entry state in NAME_stat and jumps to
 * NAME_stat.target with the stack untouched. */
#define STUB_ASM(name)                                                                                                 \
    __asm__(".text\n"                                                                                                  \
            ".globl " #name "_stub\n" #name "_stub:\n"                                                                 \
            "    pushfl\n"                                                                                             \
            "    btl $10, (%esp)\n"                                                                                    \
            "    leal 4(%esp), %esp\n"                                                                                 \
            "    jnc 1f\n"                                                                                             \
            "    lock incl " #name "_stat+8\n"                                                                         \
            "    cld\n"                                                                                                \
            "1:  testl $3, %esp\n"                                                                                     \
            "    jz 2f\n"                                                                                              \
            "    lock incl " #name "_stat+12\n"                                                                        \
            "2:  cmpl %fs:8, %esp\n"                                                                                   \
            "    jb 3f\n"                                                                                              \
            "    cmpl %fs:4, %esp\n"                                                                                   \
            "    jb 4f\n"                                                                                              \
            "3:  lock incl " #name "_stat+16\n"                                                                        \
            "4:  movl %esp, " #name "_stat+20\n"                                                                       \
            "    lock incl " #name "_stat+4\n"                                                                         \
            "    jmp *" #name "_stat\n")

/* Declares NAME_impl (to be defined after), the stub NAME_stub with the same
 * type, and NAME_stat. */
#define CALLBACK_KIND(name, same_thread, ret, params)                                                                  \
    static ret name##_impl params;                                                                                     \
    extern ret name##_stub params __asm__(#name "_stub");                                                              \
    struct cbstat name##_stat __asm__(#name "_stat") = {(void *)name##_impl, 0, 0, 0, 0, 0, 0, same_thread, #name};    \
    STUB_ASM(name)

/* Garbage in the callee-saved registers: the asm's clobbers make the compiled
 * callback save and restore them, as any C function that uses them does. */
#define CLOBBER()                                                                                                      \
    __asm__ volatile("movl $0xBAD0EB01, %%ebx\n\t"                                                                     \
                     "movl $0xBAD0E502, %%esi\n\t"                                                                     \
                     "movl $0xBAD0ED03, %%edi\n\t"                                                                     \
                     "pushl %%ebp\n\t"                                                                                 \
                     "movl $0xBAD0EB04, %%ebp\n\t"                                                                     \
                     "popl %%ebp" ::                                                                                   \
                         : "ebx", "esi", "edi", "memory")

/* The first thing each callback's C body does. */
static void cb_enter(struct cbstat *s)
{
    probe *p = cur_probe;
    if (s->same_thread && p && !(s->esp < p->esp_before))
        InterlockedIncrement((LONG *)&s->above_caller);
}

static void cb_report(struct cbstat *s)
{
    char what[64], detail[160];
    snprintf(what, sizeof what, "callback %s", s->name);
    if (s->calls > 0 && !s->df && !s->misaligned && !s->off_stack && !s->above_caller) {
        pass(what);
        return;
    }
    snprintf(detail, sizeof detail, "calls=%ld df_set=%ld esp_misaligned=%ld esp_off_stack=%ld esp_above_caller=%ld",
             (long)s->calls, (long)s->df, (long)s->misaligned, (long)s->off_stack, (long)s->above_caller);
    fail(what, detail);
}

CALLBACK_KIND(wndproc, 1, LRESULT CALLBACK, (HWND, UINT, WPARAM, LPARAM));
CALLBACK_KIND(dlgproc, 1, INT_PTR CALLBACK, (HWND, UINT, WPARAM, LPARAM));
CALLBACK_KIND(timerproc, 1, VOID CALLBACK, (HWND, UINT, UINT_PTR, DWORD));
CALLBACK_KIND(mmtimer, 0, void CALLBACK, (UINT, UINT, DWORD_PTR, DWORD_PTR, DWORD_PTR));
CALLBACK_KIND(thread, 0, DWORD WINAPI, (LPVOID));
CALLBACK_KIND(enumwindows, 1, BOOL CALLBACK, (HWND, LPARAM));
CALLBACK_KIND(enumchild, 1, BOOL CALLBACK, (HWND, LPARAM));
CALLBACK_KIND(enumthread, 1, BOOL CALLBACK, (HWND, LPARAM));
CALLBACK_KIND(fontfamilies, 1, int CALLBACK, (const LOGFONTA *, const TEXTMETRICA *, DWORD, LPARAM));
CALLBACK_KIND(fonts, 1, int CALLBACK, (const LOGFONTA *, const TEXTMETRICA *, DWORD, LPARAM));
CALLBACK_KIND(fontfamiliesex, 1, int CALLBACK, (const LOGFONTA *, const TEXTMETRICA *, DWORD, LPARAM));
CALLBACK_KIND(qsortcmp, 1, int __cdecl, (const void *, const void *));
CALLBACK_KIND(ddenum, 1, BOOL WINAPI, (GUID *, LPSTR, LPSTR, LPVOID));
CALLBACK_KIND(ddmodes, 1, HRESULT WINAPI, (LPDDSURFACEDESC, LPVOID));
CALLBACK_KIND(dsenum, 1, BOOL CALLBACK, (LPGUID, LPCSTR, LPCSTR, LPVOID));
CALLBACK_KIND(didevices, 1, BOOL CALLBACK, (LPCDIDEVICEINSTANCEA, LPVOID));
CALLBACK_KIND(diobjects, 1, BOOL CALLBACK, (LPCDIDEVICEOBJECTINSTANCEA, LPVOID));

/* ---- the callbacks ---------------------------------------------------------------- */

#define CTX 0x5A5A0001u

static volatile LONG context_wrong;
static void check_context(DWORD got)
{
    if (got != CTX)
        InterlockedIncrement((LONG *)&context_wrong);
}

static LRESULT CALLBACK wndproc_impl(HWND h, UINT m, WPARAM w, LPARAM l)
{
    cb_enter(&wndproc_stat);
    CLOBBER();
    if (m == WM_USER + 1)
        return w * 16 + l;
    if (m == WM_USER + 2)
        return 0x77;
    return DefWindowProcA(h, m, w, l);
}

static int dialog_inits;

static INT_PTR CALLBACK dlgproc_impl(HWND dlg, UINT m, WPARAM w, LPARAM l)
{
    (void)w;
    cb_enter(&dlgproc_stat);
    CLOBBER();
    if (m == WM_INITDIALOG) {
        dialog_inits++;
        if (l == 0x55)
            CALLL("EndDialog (in the dialog procedure)", EndDialog, 0, D(dlg), 42);
        return TRUE;
    }
    return FALSE;
}

static volatile LONG timer_ticks;

static VOID CALLBACK timerproc_impl(HWND h, UINT m, UINT_PTR id, DWORD t)
{
    (void)h;
    (void)m;
    (void)id;
    (void)t;
    cb_enter(&timerproc_stat);
    CLOBBER();
    InterlockedIncrement((LONG *)&timer_ticks);
}

static void CALLBACK mmtimer_impl(UINT id, UINT m, DWORD_PTR user, DWORD_PTR dw1, DWORD_PTR dw2)
{
    (void)id;
    (void)m;
    (void)dw1;
    (void)dw2;
    cb_enter(&mmtimer_stat);
    CLOBBER();
    SetEvent((HANDLE)user);
}

static DWORD WINAPI thread_impl(LPVOID param)
{
    cb_enter(&thread_stat);
    CLOBBER();
    return (DWORD)param + 1;
}

static BOOL CALLBACK enumwindows_impl(HWND h, LPARAM l)
{
    (void)h;
    cb_enter(&enumwindows_stat);
    CLOBBER();
    check_context(l);
    return TRUE;
}

static BOOL CALLBACK enumchild_impl(HWND h, LPARAM l)
{
    (void)h;
    cb_enter(&enumchild_stat);
    CLOBBER();
    check_context(l);
    return TRUE;
}

static BOOL CALLBACK enumthread_impl(HWND h, LPARAM l)
{
    (void)h;
    cb_enter(&enumthread_stat);
    CLOBBER();
    check_context(l);
    return TRUE;
}

static int CALLBACK fontfamilies_impl(const LOGFONTA *lf, const TEXTMETRICA *tm, DWORD type, LPARAM l)
{
    (void)lf;
    (void)tm;
    (void)type;
    cb_enter(&fontfamilies_stat);
    CLOBBER();
    check_context(l);
    return 1;
}

static int CALLBACK fonts_impl(const LOGFONTA *lf, const TEXTMETRICA *tm, DWORD type, LPARAM l)
{
    (void)lf;
    (void)tm;
    (void)type;
    cb_enter(&fonts_stat);
    CLOBBER();
    check_context(l);
    return 1;
}

static int CALLBACK fontfamiliesex_impl(const LOGFONTA *lf, const TEXTMETRICA *tm, DWORD type, LPARAM l)
{
    (void)lf;
    (void)tm;
    (void)type;
    cb_enter(&fontfamiliesex_stat);
    CLOBBER();
    check_context(l);
    return 1;
}

static int __cdecl qsortcmp_impl(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    cb_enter(&qsortcmp_stat);
    CLOBBER();
    return (x > y) - (x < y);
}

static BOOL WINAPI ddenum_impl(GUID *g, LPSTR desc, LPSTR name, LPVOID ctx)
{
    (void)g;
    (void)desc;
    (void)name;
    cb_enter(&ddenum_stat);
    CLOBBER();
    check_context((DWORD)ctx);
    return TRUE;
}

static HRESULT WINAPI ddmodes_impl(LPDDSURFACEDESC d, LPVOID ctx)
{
    (void)d;
    cb_enter(&ddmodes_stat);
    CLOBBER();
    check_context((DWORD)ctx);
    return DDENUMRET_OK;
}

static BOOL CALLBACK dsenum_impl(LPGUID g, LPCSTR desc, LPCSTR module, LPVOID ctx)
{
    (void)g;
    (void)desc;
    (void)module;
    cb_enter(&dsenum_stat);
    CLOBBER();
    check_context((DWORD)ctx);
    return TRUE;
}

static BOOL CALLBACK didevices_impl(LPCDIDEVICEINSTANCEA inst, LPVOID ctx)
{
    (void)inst;
    cb_enter(&didevices_stat);
    CLOBBER();
    check_context((DWORD)ctx);
    return DIENUM_CONTINUE;
}

static BOOL CALLBACK diobjects_impl(LPCDIDEVICEOBJECTINSTANCEA obj, LPVOID ctx)
{
    (void)obj;
    cb_enter(&diobjects_stat);
    CLOBBER();
    check_context((DWORD)ctx);
    return DIENUM_CONTINUE;
}

/* ---- the program -------------------------------------------------------------------- */

/* A dialog template with no controls: style, extended style, cdit, x, y, cx,
 * cy, then no menu, the default class and an empty title (WORD-packed). */
#define DLG_STYLE (WS_POPUP | WS_CAPTION | DS_MODALFRAME)
static const WORD dlg_template[] __attribute__((aligned(4))) = {
    (WORD)(DLG_STYLE & 0xffff), (WORD)(DLG_STYLE >> 16), 0, 0, 0, 0, 0, 100, 50, 0, 0, 0};

static void plain_apis(void)
{
    char buf[64];
    WCHAR wbuf[16];
    LARGE_INTEGER li;
    HANDLE heap, ev;
    void *mem;
    DWORD r;

    CALL(GetTickCount);
    CALL(GetCurrentThreadId);
    CALL_DF(GetModuleHandleA, 0);
    CALL(SetLastError, 1234);
    r = CALL_DF(GetLastError);
    expect("result GetLastError", r == 1234, "got %lu", r);
    r = CALL(lstrlenA, D("hello"));
    expect("result lstrlenA", r == 5, "got %lu", r);
    r = CALL_DF(MulDiv, 10, 20, 5);
    expect("result MulDiv", r == 40, "got %lu", r);
    heap = (HANDLE)CALL(GetProcessHeap);
    mem = (void *)CALL(HeapAlloc, D(heap), 0, 16);
    expect("result HeapAlloc", mem != NULL, "got %08lx", D(mem));
    CALL(HeapFree, D(heap), 0, D(mem));
    ev = (HANDLE)CALL(CreateEventA, 0, TRUE, FALSE, 0);
    CALL(SetEvent, D(ev));
    CALL(ResetEvent, D(ev));
    r = CALL_DF(WaitForSingleObject, D(ev), 0);
    expect("result WaitForSingleObject", r == WAIT_TIMEOUT, "got %lu", r);
    CALL(CloseHandle, D(ev));
    r = CALL(MultiByteToWideChar, CP_ACP, 0, D("abc"), (DWORD)-1, D(wbuf), 16);
    expect("result MultiByteToWideChar", r == 4, "got %lu", r);
    r = CALL_DF(WideCharToMultiByte, CP_ACP, 0, D(wbuf), (DWORD)-1, D(buf), sizeof buf, 0, 0);
    expect("result WideCharToMultiByte", r == 4 && !strcmp(buf, "abc"), "got %lu", r);
    CALL(QueryPerformanceCounter, D(&li));
    CALL_DF(Sleep, 0);
    CALL(timeGetTime);

    r = CALL(strlen, D("hello"));
    expect("result strlen", r == 5, "got %lu", r);
    r = CALL_DF(sprintf, D(buf), D("%d-%s"), 42, D("x"));
    expect("result sprintf", r == 4 && !strcmp(buf, "42-x"), "got %lu", r);
    CALL(memset, D(buf), 0, sizeof buf);
    CALL_DF(memset, D(buf), 'z', 3);
    r = CALL(strcmp, D(buf), D("zzz"));
    expect("result memset/strcmp", r == 0, "got %lu", r);
    r = CALL_DF(wsprintfA, D(buf), D("<%d>"), 7);
    expect("result wsprintfA", r == 3 && !strcmp(buf, "<7>"), "got %lu", r);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    HWND hwnd, child, dlg;
    MSG msg;
    RECT rc;
    HDC hdc;
    HFONT font, old;
    LOGFONTA lf;
    DWORD r, tid, code;
    HANDLE ev, th;
    int i, arr[6] = {5, 3, 9, 1, 7, 2};
    char text[32];
    struct {
        BITMAPINFOHEADER h;
        DWORD pixels[4];
    } bmi;
    (void)prev;
    (void)cmd;
    (void)show;

    setvbuf(stdout, NULL, _IONBF, 0);

    /* Plain APIs of KERNEL32, msvcrt (cdecl), USER32's cdecl wsprintfA, WINMM. */
    plain_apis();

    /* Window procedures. */
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc_stub;
    wc.hInstance = inst;
    wc.lpszClassName = "regsave";
    r = CALL(RegisterClassA, D(&wc));
    expect("result RegisterClassA", r != 0, "got %lu", r);
    hwnd = (HWND)CALL_DF(CreateWindowExA, 0, D("regsave"), D("regsave"), WS_OVERLAPPEDWINDOW, 0, 0, 200, 150, 0, 0,
                         D(inst), 0);
    expect("result CreateWindowExA", hwnd != NULL, "got %08lx", D(hwnd));
    child = (HWND)CALL_DF(CreateWindowExA, 0, D("regsave"), D("child"), WS_CHILD | WS_VISIBLE, 10, 10, 50, 40,
                          D(hwnd), 1, D(inst), 0);
    expect("result CreateWindowExA (child)", child != NULL, "got %08lx", D(child));
    r = CALL_DF(SendMessageA, D(hwnd), WM_USER + 1, 7, 9);
    expect("result SendMessageA", r == 7 * 16 + 9, "got %lu", r);
    CALL(PostMessageA, D(hwnd), WM_USER + 2, 0, 0);
    r = CALL(PeekMessageA, D(&msg), D(hwnd), WM_USER + 2, WM_USER + 2, PM_REMOVE);
    expect("result PeekMessageA", r != 0 && msg.message == WM_USER + 2, "got %lu", r);
    r = CALL_DF(DispatchMessageA, D(&msg));
    expect("result DispatchMessageA", r == 0x77, "got %lu", r);
    r = CALL_DF(CallWindowProcA, D(wndproc_stub), D(hwnd), WM_USER + 1, 1, 2);
    expect("result CallWindowProcA", r == 18, "got %lu", r);
    CALL(GetClientRect, D(hwnd), D(&rc));
    CALL_DF(SetWindowTextA, D(hwnd), D("title"));
    r = CALL(GetWindowTextA, D(hwnd), D(text), sizeof text);
    expect("result GetWindowTextA", r == 5 && !strcmp(text, "title"), "got %lu", r);

    /* SetTimer with a TIMERPROC, reached through DispatchMessageA. */
    r = CALL_DF(SetTimer, D(hwnd), 7, 10, D(timerproc_stub));
    expect("result SetTimer", r != 0, "got %lu", r);
    quiet = 1;
    for (i = 0; i < 10000 && timer_ticks < 2; i++) {
        if ((int)CALLL("GetMessageA", GetMessageA, 0, D(&msg), 0, 0, 0) <= 0)
            break;
        CALLL("TranslateMessage", TranslateMessage, F_STD, D(&msg));
        CALLL("DispatchMessageA", DispatchMessageA, F_STD, D(&msg));
    }
    quiet_end("api GetMessageA/TranslateMessage/DispatchMessageA loop (DF set)");
    CALL(KillTimer, D(hwnd), 7);
    cb_report(&timerproc_stat);

    /* Dialog procedures. */
    r = CALL_DF(DialogBoxIndirectParamA, D(inst), D(dlg_template), D(hwnd), D(dlgproc_stub), 0x55);
    expect("result DialogBoxIndirectParamA", r == 42, "got %ld", r);
    dlg = (HWND)CALL_DF(CreateDialogIndirectParamA, D(inst), D(dlg_template), D(hwnd), D(dlgproc_stub), 0x66);
    expect("result CreateDialogIndirectParamA", dlg != NULL, "got %08lx", D(dlg));
    expect("result WM_INITDIALOG twice", dialog_inits == 2, "got %lu", dialog_inits);
    CALL_DF(DestroyWindow, D(dlg));
    cb_report(&dlgproc_stat);

    /* Window enumerations. */
    CALL_DF(EnumWindows, D(enumwindows_stub), CTX);
    cb_report(&enumwindows_stat);
    CALL_DF(EnumChildWindows, D(hwnd), D(enumchild_stub), CTX);
    cb_report(&enumchild_stat);
    tid = CALL(GetCurrentThreadId);
    CALL_DF(EnumThreadWindows, tid, D(enumthread_stub), CTX);
    cb_report(&enumthread_stat);

    /* GDI: font enumerations and the APIs with more than 12 arguments. */
    hdc = (HDC)CALL(GetDC, D(hwnd));
    CALL_DF(EnumFontFamiliesA, D(hdc), 0, D(fontfamilies_stub), CTX);
    cb_report(&fontfamilies_stat);
    CALL_DF(EnumFontsA, D(hdc), 0, D(fonts_stub), CTX);
    cb_report(&fonts_stat);
    memset(&lf, 0, sizeof lf);
    lf.lfCharSet = DEFAULT_CHARSET;
    CALL_DF(EnumFontFamiliesExA, D(hdc), D(&lf), D(fontfamiliesex_stub), CTX, 0);
    cb_report(&fontfamiliesex_stat);
    font = (HFONT)CALL(CreateFontA, 16, 0, 0, 0, FW_NORMAL, 0, 0, 0, ANSI_CHARSET, 0, 0, 0, 0, D("Arial"));
    expect("result CreateFontA", font != NULL, "got %08lx", D(font));
    old = (HFONT)CALL(SelectObject, D(hdc), D(font));
    CALL(SelectObject, D(hdc), D(old));
    CALL(DeleteObject, D(font));
    memset(&bmi, 0, sizeof bmi);
    bmi.h.biSize = sizeof bmi.h;
    bmi.h.biWidth = 2;
    bmi.h.biHeight = 2;
    bmi.h.biPlanes = 1;
    bmi.h.biBitCount = 32;
    bmi.h.biCompression = BI_RGB;
    r = CALL(SetDIBitsToDevice, D(hdc), 0, 0, 2, 2, 0, 0, 0, 2, D(bmi.pixels), D(&bmi), DIB_RGB_COLORS);
    expect("result SetDIBitsToDevice", r == 2, "got %lu", r);
    r = CALL_DF(StretchDIBits, D(hdc), 0, 0, 4, 4, 0, 0, 2, 2, D(bmi.pixels), D(&bmi), DIB_RGB_COLORS, SRCCOPY);
    expect("result StretchDIBits", r == 2, "got %lu", r);
    CALL(ReleaseDC, D(hwnd), D(hdc));

    /* msvcrt's qsort (a cdecl comparator). */
    CALL_DF(qsort, D(arr), 6, sizeof(int), D(qsortcmp_stub));
    expect("result qsort", arr[0] == 1 && arr[1] == 2 && arr[2] == 3 && arr[3] == 5 && arr[4] == 7 && arr[5] == 9,
           "first %lu", arr[0]);
    cb_report(&qsortcmp_stat);

    /* DirectDraw: the enumeration, COM methods, EnumDisplayModes. */
    {
        LPDIRECTDRAW dd = NULL;
        LPDIRECTDRAWSURFACE surf = NULL;
        DDSURFACEDESC sd;
        CALL_DF(DirectDrawEnumerateA, D(ddenum_stub), CTX);
        cb_report(&ddenum_stat);
        r = CALL(DirectDrawCreate, 0, D(&dd), 0);
        expect("result DirectDrawCreate", r == DD_OK && dd, "got %08lx", r);
        if (dd) {
            COM("IDirectDraw::SetCooperativeLevel", dd, SetCooperativeLevel, 0, D(hwnd), DDSCL_NORMAL);
            COM("IDirectDraw::EnumDisplayModes", dd, EnumDisplayModes, F_STD, 0, 0, CTX, D(ddmodes_stub));
            cb_report(&ddmodes_stat);
            memset(&sd, 0, sizeof sd);
            sd.dwSize = sizeof sd;
            COM("IDirectDraw::GetDisplayMode", dd, GetDisplayMode, 0, D(&sd));
            memset(&sd, 0, sizeof sd);
            sd.dwSize = sizeof sd;
            sd.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT;
            sd.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN;
            sd.dwWidth = 16;
            sd.dwHeight = 16;
            r = COM("IDirectDraw::CreateSurface", dd, CreateSurface, F_STD, D(&sd), D(&surf), 0);
            expect("result IDirectDraw::CreateSurface", r == DD_OK && surf, "got %08lx", r);
            if (surf) {
                memset(&sd, 0, sizeof sd);
                sd.dwSize = sizeof sd;
                COM("IDirectDrawSurface::GetSurfaceDesc", surf, GetSurfaceDesc, 0, D(&sd));
                COM("IDirectDrawSurface::Release", surf, Release, 0);
            }
            COM("IDirectDraw::Release", dd, Release, 0);
        }
    }

    /* DirectSound: the enumeration and COM methods. */
    {
        LPDIRECTSOUND ds = NULL;
        DSCAPS caps;
        CALL_DF(DirectSoundEnumerateA, D(dsenum_stub), CTX);
        cb_report(&dsenum_stat);
        r = CALL(DirectSoundCreate, 0, D(&ds), 0);
        expect("result DirectSoundCreate", r == DS_OK && ds, "got %08lx", r);
        if (ds) {
            COM("IDirectSound::SetCooperativeLevel", ds, SetCooperativeLevel, F_STD, D(hwnd), DSSCL_NORMAL);
            memset(&caps, 0, sizeof caps);
            caps.dwSize = sizeof caps;
            COM("IDirectSound::GetCaps", ds, GetCaps, 0, D(&caps));
            COM("IDirectSound::Release", ds, Release, 0);
        }
    }

    /* DirectInput: EnumDevices, EnumObjects and COM methods. */
    {
        LPDIRECTINPUTA di = NULL;
        LPDIRECTINPUTDEVICEA dev = NULL;
        r = CALL(DirectInputCreateA, D(inst), DIRECTINPUT_VERSION, D(&di), 0);
        expect("result DirectInputCreateA", r == DI_OK && di, "got %08lx", r);
        if (di) {
            COM("IDirectInput::EnumDevices", di, EnumDevices, F_STD, 0, D(didevices_stub), CTX, DIEDFL_ALLDEVICES);
            cb_report(&didevices_stat);
            r = COM("IDirectInput::CreateDevice", di, CreateDevice, 0, D(&GUID_SysKeyboard), D(&dev), 0);
            expect("result IDirectInput::CreateDevice", r == DI_OK && dev, "got %08lx", r);
            if (dev) {
                COM("IDirectInputDevice::SetDataFormat", dev, SetDataFormat, F_STD, D(&c_dfDIKeyboard));
                COM("IDirectInputDevice::EnumObjects", dev, EnumObjects, F_STD, D(diobjects_stub), CTX, DIDFT_ALL);
                cb_report(&diobjects_stat);
                COM("IDirectInputDevice::Release", dev, Release, 0);
            }
            COM("IDirectInput::Release", di, Release, 0);
        }
    }

    /* timeSetEvent: a one-shot function callback on winmm's timer thread. */
    ev = (HANDLE)CALL(CreateEventA, 0, FALSE, FALSE, 0);
    r = CALL_DF(timeSetEvent, 10, 1, D(mmtimer_stub), D(ev), TIME_ONESHOT | TIME_CALLBACK_FUNCTION);
    expect("result timeSetEvent", r != 0, "got %lu", r);
    r = CALL_DF(WaitForSingleObject, D(ev), 10000);
    expect("result WaitForSingleObject (timer callback)", r == WAIT_OBJECT_0, "got %lu", r);
    CALL(CloseHandle, D(ev));
    cb_report(&mmtimer_stat);

    /* A thread start routine. */
    th = (HANDLE)CALL_DF(CreateThread, 0, 0, D(thread_stub), 0x99, 0, D(&tid));
    expect("result CreateThread", th != NULL, "got %08lx", D(th));
    r = CALL_DF(WaitForSingleObject, D(th), INFINITE);
    expect("result WaitForSingleObject (thread)", r == WAIT_OBJECT_0, "got %lu", r);
    code = 0;
    CALL(GetExitCodeThread, D(th), D(&code));
    expect("result GetExitCodeThread", code == 0x9a, "got %lx", code);
    CALL(CloseHandle, D(th));
    cb_report(&thread_stat);

    /* The window goes; WM_DESTROY and friends reach the window procedure. */
    CALL_DF(DestroyWindow, D(hwnd));
    cb_report(&wndproc_stat);

    expect("result callback contexts", context_wrong == 0, "%lu wrong", context_wrong);
    printf("%d failures\n", failures);
    return failures;
}
