/* Control_RunDLL driving a Control Panel applet DLL (bin/cpltest.cpl, from
 * src/cpl/cpltest.c): the CPlApplet messages for the default applet, one chosen
 * by index, one by name, and one with parameters (CPL_STARTWPARMS, declined, so
 * CPL_DBLCLK follows). The CPL prints what it receives. */
#include <windows.h>
#include <stdio.h>

typedef void (WINAPI *RunDLL)(HWND, HINSTANCE, LPCSTR, int);

int main(void)
{
    static const char *cmds[] = {
        "cpltest.cpl", "cpltest.cpl,@1", "cpltest.cpl,Second", "cpltest.cpl,@0,hello",
    };
    HMODULE shell = LoadLibraryA("shell32.dll");
    RunDLL run = (RunDLL)(void (*)(void))GetProcAddress(shell, "Control_RunDLLA");
    unsigned k;
    printf("Control_RunDLLA %s\n", run ? "found" : "missing");
    if (!run)
        return 1;
    for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
        printf("Control_RunDLLA(\"%s\")\n", cmds[k]);
        fflush(stdout);
        run(NULL, NULL, cmds[k], SW_SHOWNORMAL);
        printf("returned; CPL still loaded: %s\n", GetModuleHandleA("cpltest.cpl") ? "yes" : "no");
    }
    return 0;
}
