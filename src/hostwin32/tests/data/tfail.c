/* A DLL whose DllMain refuses DLL_PROCESS_ATTACH (built with -nostdlib); it imports
 * tlib2.dll, which a failed LoadLibrary must unload again. */

__declspec(dllimport) int real(int x);

__declspec(dllexport) int uses_real(int x) { return real(x); }

int __stdcall entry(void *module, unsigned long reason, void *reserved) {
    (void)module; (void)reserved;
    return reason != 1;
}
