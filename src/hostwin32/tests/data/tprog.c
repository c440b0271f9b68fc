/* Test program for the loader tests (built with -nostdlib, no C runtime; the
 * entry point returns its result, which becomes the thread's exit code).
 *
 * Exit code when everything works, computed by hand from this source:
 *   add(2,3) = 5, mul(4,5) = 20, fwd(3) = real(3) = 21, fwd_ord(2) = 14,
 *   calls_real(1) = 8, TLS callback ran: +100, TLS data copied: +1000,
 *   tlib's DllMain saw exactly one DLL_PROCESS_ATTACH: +10000   => 11168 */

__declspec(dllimport) int add(int, int);
__declspec(dllimport) int mul(int, int);
__declspec(dllimport) int fwd(int);
__declspec(dllimport) int fwd_ord(int);
__declspec(dllimport) int calls_real(int);
__declspec(dllimport) int reasons[16];
__declspec(dllimport) int nreasons;
__declspec(dllimport) unsigned long __stdcall GetTickCount(void);
__declspec(dllimport) void NoSuchFunction(void);

/* Referenced so the imports exist; never called. */
__declspec(dllexport) void *unused_imports[2] = { (void *)GetTickCount, (void *)NoSuchFunction };

__declspec(dllexport) int some_global = 5;
__declspec(dllexport) int *relocated_ptr = &some_global;
__declspec(dllexport) int prog_export(void) { return 42; }

/* Implicit TLS without a C runtime: our own IMAGE_TLS_DIRECTORY (_tls_used), which
 * the linker points data directory 9 at. */
typedef void(__stdcall *tls_callback)(void *, unsigned long, void *);
unsigned long _tls_index = 0xdead;
__attribute__((section(".tls"))) char _tls_start = 0;
__attribute__((section(".tls$BBB"))) int tls_var = 0x1234;
__attribute__((section(".tls$ZZZ"))) char _tls_end = 0;

__declspec(dllexport) int tls_cb_flag;
__declspec(dllexport) int tls_cb_calls;
static void __stdcall on_tls(void *module, unsigned long reason, void *reserved) {
    (void)module; (void)reserved;
    if (reason == 1)
        tls_cb_flag = 0x77;
    tls_cb_calls++;
}
tls_callback tls_callbacks[2] = { on_tls, 0 };

const struct {
    unsigned long start, end, index, callbacks, zero_fill, characteristics;
} _tls_used = {
    (unsigned long)&_tls_start, (unsigned long)&_tls_end, (unsigned long)&_tls_index,
    (unsigned long)tls_callbacks, 16, 0,
};

static int *tls_var_here(void) {
    char **slots;
    __asm__("movl %%fs:0x2c, %0" : "=r"(slots));
    return (int *)(slots[_tls_index] + ((char *)&tls_var - &_tls_start));
}

int start(void) {
    int r = add(2, 3) + mul(4, 5) + fwd(3) + fwd_ord(2) + calls_real(1);
    if (tls_cb_flag == 0x77)
        r += 100;
    if (*tls_var_here() == 0x1234)
        r += 1000;
    if (nreasons == 1 && reasons[0] == 1)
        r += 10000;
    return r;
}
