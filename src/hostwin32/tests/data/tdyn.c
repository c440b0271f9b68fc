/* A DLL with implicit TLS, for LoadLibrary tests (built with -nostdlib).
 * get_tls_var returns the calling thread's copy of tls_var (template 0x5678);
 * set_tls_var changes it. */

unsigned long _tls_index = 0xdead;
__attribute__((section(".tls"))) char _tls_start = 0;
__attribute__((section(".tls$BBB"))) int tls_var = 0x5678;
__attribute__((section(".tls$ZZZ"))) char _tls_end = 0;

const struct {
    unsigned long start, end, index, callbacks, zero_fill, characteristics;
} _tls_used = {
    (unsigned long)&_tls_start, (unsigned long)&_tls_end, (unsigned long)&_tls_index, 0, 0, 0,
};

static int *here(void) {
    char **slots;
    __asm__("movl %%fs:0x2c, %0" : "=r"(slots));
    return (int *)(slots[_tls_index] + ((char *)&tls_var - &_tls_start));
}

__declspec(dllexport) int get_tls_var(void) { return *here(); }
__declspec(dllexport) void set_tls_var(int v) { *here() = v; }

int __stdcall entry(void *module, unsigned long reason, void *reserved) {
    (void)module; (void)reason; (void)reserved;
    return 1;
}
