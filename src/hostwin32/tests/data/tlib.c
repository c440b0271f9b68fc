/* Test DLL for the loader tests (built with -nostdlib, no C runtime).
 * - add: exported by name (ordinal 1); mul: exported by ordinal only (5, NONAME)
 * - fwd / fwd_ord / ktick: forwarded exports (see tlib.def)
 * - calls_real: calls into tlib2.dll through this DLL's own imports
 * - reasons/nreasons: every DllMain reason in call order
 * - self_ptr: a pointer initialised to a global, so it needs a base relocation */

__declspec(dllimport) int real(int x);

int reasons[16];
int nreasons;
int attach_target;
int *self_ptr = &attach_target;

int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }
int calls_real(int x) { return real(x) + 1; }

int __stdcall entry(void *module, unsigned long reason, void *reserved) {
    (void)module; (void)reserved;
    if (nreasons < 16)
        reasons[nreasons++] = (int)reason;
    return 1;
}
