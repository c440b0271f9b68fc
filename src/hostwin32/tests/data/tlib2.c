/* Second-level test DLL for the loader tests: imported by tlib.dll, target of
 * forwarded exports. Built with -nostdlib, so it needs no C runtime. */

__declspec(dllexport) int real(int x) { return x * 7; }

int __stdcall entry(void *module, unsigned long reason, void *reserved) {
    (void)module; (void)reason; (void)reserved;
    return 1;
}
