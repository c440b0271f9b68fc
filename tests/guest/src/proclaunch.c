/* A launcher: starts the GUI program procwin.exe beside it, waits until it waits
 * for input (WaitForInputIdle), then gives it three seconds to end by itself (a
 * headless run with a frame limit ends it) before ending it. What procwin showed
 * is for `winterp check` to report. */
#include <windows.h>
#include <stdio.h>

int main(void)
{
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    char line[] = "procwin.exe";
    DWORD w;

    ZeroMemory(&si, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESHOWWINDOW;
    si.wShowWindow = SW_SHOWNORMAL;
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        printf("CreateProcess failed, error %lu\n", GetLastError());
        return 1;
    }
    w = WaitForInputIdle(pi.hProcess, 30000);
    printf("WaitForInputIdle: %lu\n", w);
    fflush(stdout);
    if (WaitForSingleObject(pi.hProcess, 3000) == WAIT_TIMEOUT)
        TerminateProcess(pi.hProcess, 0);
    w = WaitForSingleObject(pi.hProcess, INFINITE);
    printf("child ended: wait %lu\n", w);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return 0;
}
