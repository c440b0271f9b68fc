/* System exports that are real but not implemented, and GetProcAddress.
 *
 * Run with --stub-unimplemented (expected/sysexports.flags): calling a real export
 * that winterp does not implement returns 0 and leaves the stack exactly as the
 * real function would, for stdcall (callee pops) and cdecl (caller pops) alike.
 * GetProcAddress finds implemented exports, real-but-unimplemented ones (a callable
 * address), not nonexistent ones (NULL, ERROR_PROC_NOT_FOUND), and ordinals.
 *
 * The stack checks call through a function pointer from inline assembly, so the
 * compiler cannot repair an unbalanced ESP with its own frame bookkeeping. */
#include <windows.h>
#include <stdio.h>

typedef BOOL(WINAPI *BackupRead_t)(HANDLE, LPBYTE, DWORD, LPDWORD, BOOL, BOOL, LPVOID *);

/* Calls `fn` with `n` dword arguments (all `arg`) and returns ESP after the call
 * minus ESP before it; `cdecl_pop` bytes are removed by the caller afterwards, as a
 * cdecl caller does. 0 means balanced. EAX comes back in *ret. */
static int call_and_measure(void *fn, int n, DWORD arg, int cdecl_pop, DWORD *ret)
{
    int delta;
    DWORD eax;
    __asm__ volatile(
        "mov %%esp, %%esi\n\t"
        "mov %[n], %%ecx\n\t"
        "1: test %%ecx, %%ecx\n\t"
        "jz 2f\n\t"
        "push %[arg]\n\t"
        "dec %%ecx\n\t"
        "jmp 1b\n\t"
        "2: call *%[fn]\n\t"
        "add %[pop], %%esp\n\t"
        "mov %%esp, %%edx\n\t"
        "sub %%esi, %%edx\n\t"
        "mov %%esi, %%esp\n\t"
        : "=d"(delta), "=a"(eax)
        : [fn] "r"(fn), [n] "r"(n), [arg] "r"(arg), [pop] "r"(cdecl_pop)
        : "ecx", "esi", "memory", "cc");
    *ret = eax;
    return delta;
}

int main(void)
{
    HMODULE k32 = GetModuleHandleA("KERNEL32.DLL");
    HMODULE crt = GetModuleHandleA("MSVCRT.DLL");
    DWORD ret;

    /* Implemented: an address that works. */
    FARPROC tick = GetProcAddress(k32, "GetTickCount");
    printf("GetTickCount found: %s\n", tick ? "yes" : "no");

    /* Real, 7 arguments, callee pops 28 bytes. */
    FARPROC backup = GetProcAddress(k32, "BackupRead");
    printf("BackupRead found: %s\n", backup ? "yes" : "no");
    if (backup) {
        int d = call_and_measure((void *)backup, 7, 0, 0, &ret);
        printf("BackupRead: returned %lu, stack %s\n", ret, d == 0 ? "balanced" : "unbalanced");
    }

    /* The same export through the import table. */
    {
        BackupRead_t f = BackupRead;
        int d = call_and_measure((void *)f, 7, 0, 0, &ret);
        printf("BackupRead (import): returned %lu, stack %s\n", ret,
               d == 0 ? "balanced" : "unbalanced");
    }

    /* Real cdecl: the caller pops, the function must not. _getdiskfree(drive, p). */
    FARPROC gdf = GetProcAddress(crt, "_getdiskfree");
    printf("_getdiskfree found: %s\n", gdf ? "yes" : "no");
    if (gdf) {
        /* Every argument is this buffer's address: a drive number no machine has,
         * so the real function fails without writing through the pointer. */
        static DWORD scratch[16];
        int d = call_and_measure((void *)gdf, 2, (DWORD)scratch, 8, &ret);
        printf("_getdiskfree: stack %s\n", d == 0 ? "balanced" : "unbalanced");
    }

    /* Not exported by Windows at all. */
    SetLastError(0);
    FARPROC none = GetProcAddress(k32, "NoSuchKernelFunction");
    printf("NoSuchKernelFunction: %s, error %lu\n", none ? "found" : "NULL", GetLastError());

    /* Added after XP (Windows 8, or 7 with KB2533623): programs built by newer
     * toolchains probe for it and take their older path on NULL, so on the Windows
     * winterp emulates it must not be found. (Wine, which answers as Windows 10,
     * finds it: this line is the one that differs from Wine's output.) */
    SetLastError(0);
    FARPROC sddd = GetProcAddress(k32, "SetDefaultDllDirectories");
    printf("SetDefaultDllDirectories (post-XP): %s, error %lu\n", sddd ? "found" : "NULL",
           sddd ? 0 : GetLastError());

    /* Ordinals: WSOCK32 exports WSAStartup as 115 and inet_addr as 10 in every
     * Windows version; DPLAYX's DirectPlayCreate is 1. */
    HMODULE ws = LoadLibraryA("wsock32.dll");
    printf("wsock32 loaded: %s\n", ws ? "yes" : "no");
    if (ws) {
        FARPROC by_ord = GetProcAddress(ws, (LPCSTR)115);
        FARPROC by_name = GetProcAddress(ws, "WSAStartup");
        printf("wsock32 #115: %s, same as WSAStartup: %s\n", by_ord ? "found" : "NULL",
               by_ord && by_ord == by_name ? "yes" : "no");
        SetLastError(0);
        FARPROC bad = GetProcAddress(ws, (LPCSTR)9999);
        printf("wsock32 #9999: %s, error %lu\n", bad ? "found" : "NULL", GetLastError());
    }
    HMODULE dp = LoadLibraryA("DPLAYX.DLL");
    if (dp) {
        FARPROC by_ord = GetProcAddress(dp, (LPCSTR)1);
        printf("dplayx #1 is DirectPlayCreate: %s\n",
               by_ord && by_ord == GetProcAddress(dp, "DirectPlayCreate") ? "yes" : "no");
    } else {
        printf("dplayx not loaded\n");
    }

    /* An implemented function by its real ordinal: COMCTL32's InitCommonControls
     * is ordinal 17. */
    HMODULE cc = LoadLibraryA("comctl32.dll");
    if (cc) {
        FARPROC by_ord = GetProcAddress(cc, (LPCSTR)17);
        printf("comctl32 #17 is InitCommonControls: %s\n",
               by_ord && by_ord == GetProcAddress(cc, "InitCommonControls") ? "yes" : "no");
    }
    return 0;
}
