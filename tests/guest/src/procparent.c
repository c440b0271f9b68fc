/* CreateProcess and process handles: starts procchild.exe (found beside this
 * program) with arguments, an environment block and a current folder, waits for
 * it and reads its exit code; GetExitCodeProcess says STILL_ACTIVE while it runs;
 * TerminateProcess; WaitForMultipleObjects on two children; the errors for a
 * missing program, a missing folder and a file that is not a program;
 * OpenProcess of the own id and of an id nobody has. The child's output goes to
 * the same standard output, between the parent's lines, because the parent
 * flushes before starting a child and waits for it before printing again.
 */
#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static STARTUPINFOA si;

/* What a process list said of this process and of one child. */
static void report_list(const char *how, int own, DWORD own_parent_ok, int child,
                        const char *child_name, DWORD child_parent)
{
    printf("%s: own process %s, child %s", how, own ? "listed" : "missing",
           child ? "listed" : "missing");
    if (child)
        printf(" as %s, its parent %s", _stricmp(child_name, "procchild.exe") ? child_name
               : "procchild.exe", child_parent == GetCurrentProcessId() ? "is us" : "is another");
    printf("%s\n", own_parent_ok ? "" : " (own entry wrong)");
}

/* The Tool Help list and NtQuerySystemInformation's, with a child running. */
static void lists(DWORD child_pid)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    PROCESSENTRY32 pe;
    int own = 0, child = 0;
    char name[MAX_PATH] = "";
    DWORD parent = 0, ok = 1;
    typedef LONG (WINAPI *NTQSI)(ULONG, void *, ULONG, ULONG *);
    NTQSI q = (NTQSI)GetProcAddress(LoadLibraryA("ntdll.dll"), "NtQuerySystemInformation");
    ULONG need = 0;
    LONG st;
    unsigned char *buf;

    pe.dwSize = sizeof pe;
    if (snap != INVALID_HANDLE_VALUE && Process32First(snap, &pe)) {
        do {
            if (pe.th32ProcessID == GetCurrentProcessId()) {
                own = 1;
                ok = pe.cntThreads >= 1 && !_stricmp(pe.szExeFile, "procparent.exe");
            }
            if (pe.th32ProcessID == child_pid) {
                child = 1;
                strcpy(name, pe.szExeFile);
                parent = pe.th32ParentProcessID;
            }
        } while (Process32Next(snap, &pe));
        printf("toolhelp: end of list, error %lu\n", GetLastError());
    }
    CloseHandle(snap);
    report_list("toolhelp", own, ok, child, name, parent);

    own = child = 0;
    ok = 1;
    st = q(5, NULL, 0, &need);
    printf("process information: without a buffer %#lx, size given %s\n", (unsigned long)st,
           need > 0 ? "yes" : "no");
    buf = malloc(need + 65536);
    st = q(5, buf, need + 65536, &need);
    printf("process information: %#lx\n", (unsigned long)st);
    if (st == 0) {
        unsigned char *p = buf;
        for (;;) {
            ULONG next = *(ULONG *)p;
            DWORD pid = *(DWORD *)(p + 0x44);
            USHORT len = *(USHORT *)(p + 0x38);
            WCHAR *w = *(WCHAR **)(p + 0x3c);
            char n[MAX_PATH] = "";
            if (w)
                WideCharToMultiByte(CP_ACP, 0, w, len / 2, n, sizeof n - 1, NULL, NULL);
            if (pid == GetCurrentProcessId()) {
                own = 1;
                ok = *(ULONG *)(p + 4) >= 1 && !_stricmp(n, "procparent.exe");
            }
            if (pid == child_pid) {
                child = 1;
                strcpy(name, n);
                parent = *(DWORD *)(p + 0x48);
            }
            if (!next)
                break;
            p += next;
        }
    }
    free(buf);
    report_list("process information", own, ok, child, name, parent);
}

/* Starts a child; prints the error if it fails. */
static int start(const char *app, const char *cmdline, DWORD flags, void *env,
                 const char *cwd, PROCESS_INFORMATION *pi)
{
    char line[512];
    BOOL ok;
    strcpy(line, cmdline);
    fflush(stdout);
    memset(pi, 0, sizeof *pi);
    ok = CreateProcessA(app, line, NULL, NULL, FALSE, flags, env, cwd, &si, pi);
    if (!ok) {
        printf("CreateProcess(%s, %s) failed, error %lu\n", app ? app : "NULL", cmdline,
               GetLastError());
        return 0;
    }
    return 1;
}

static void finish(PROCESS_INFORMATION *pi, const char *what)
{
    DWORD code = 12345, w;
    w = WaitForSingleObject(pi->hProcess, INFINITE);
    GetExitCodeProcess(pi->hProcess, &code);
    printf("%s: wait %lu, exit code %lu\n", what, w, code);
    CloseHandle(pi->hThread);
    CloseHandle(pi->hProcess);
}

int main(void)
{
    PROCESS_INFORMATION pi, pj;
    DWORD code, w;
    HANDLE h, both[2];
    char env[64];

    si.cb = sizeof si;

    /* Found beside the program, .exe appended; quoted arguments. */
    if (start(NULL, "procchild one \"two words\" exit=7", 0, NULL, NULL, &pi)) {
        /* Printed once the child is over: its output must not interleave. */
        int differs = pi.dwProcessId != GetCurrentProcessId();
        int agrees = GetProcessId(pi.hProcess) == pi.dwProcessId;
        DWORD tid = pi.dwThreadId;
        finish(&pi, "first child");
        printf("ids: child id differs from ours %s, GetProcessId agrees %s, thread id %s\n",
               differs ? "yes" : "no", agrees ? "yes" : "no", tid != 0 ? "set" : "zero");
    }

    /* The application name given: the command line is passed on as it is. */
    if (start("procchild.exe", "anything a\\b \"c d\" exit=300", 0, NULL, NULL, &pi))
        finish(&pi, "named child");

    /* STILL_ACTIVE while it runs; a zero timeout times out. */
    DeleteFileA("proc.go");
    if (start(NULL, "procchild.exe wait exit=5", 0, NULL, NULL, &pi)) {
        code = 0;
        GetExitCodeProcess(pi.hProcess, &code);
        w = WaitForSingleObject(pi.hProcess, 0);
        printf("while running: exit code %lu, wait(0) %#lx\n", code, w);
        fflush(stdout);
        h = CreateFileA("proc.go", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
        CloseHandle(h);
        finish(&pi, "waiting child");
        DeleteFileA("proc.go");
    }

    /* An environment block and a current folder. */
    CreateDirectoryA("procsub", NULL);
    memcpy(env, "PROCTEST=hello\0\0", 16);
    if (start(NULL, "procchild quiet env cwd", 0, env, "procsub", &pi))
        finish(&pi, "env child");
    RemoveDirectoryA("procsub");

    /* TerminateProcess: the child ends with the code given; while it runs, the
       process lists show it. */
    if (start(NULL, "procchild quiet wait", 0, NULL, NULL, &pi)) {
        lists(pi.dwProcessId);
        printf("terminate: %s\n", TerminateProcess(pi.hProcess, 99) ? "TRUE" : "FALSE");
        finish(&pi, "terminated child");
    }

    /* Two children at once, waited for together. */
    if (start(NULL, "procchild quiet exit=3", 0, NULL, NULL, &pi) &&
        start(NULL, "procchild quiet exit=4", 0, NULL, NULL, &pj)) {
        both[0] = pi.hProcess;
        both[1] = pj.hProcess;
        w = WaitForMultipleObjects(2, both, TRUE, INFINITE);
        printf("wait for both: %lu\n", w);
        finish(&pi, "child 3");
        finish(&pj, "child 4");
    }

    /* Errors. */
    start(NULL, "nosuchprogram.exe x", 0, NULL, NULL, &pi);
    start("C:\\nosuchfolder\\prog.exe", "prog", 0, NULL, NULL, &pi);
    h = CreateFileA("notpe.exe", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    WriteFile(h, "this is not a program\r\n", 23, &code, NULL);
    CloseHandle(h);
    start(NULL, "notpe.exe", 0, NULL, NULL, &pi);
    DeleteFileA("notpe.exe");

    /* OpenProcess. */
    h = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, GetCurrentProcessId());
    code = 0;
    printf("OpenProcess(own id): %s", h ? "a handle" : "NULL");
    if (h) {
        GetExitCodeProcess(h, &code);
        printf(", exit code %lu, GetProcessId agrees %s", code,
               GetProcessId(h) == GetCurrentProcessId() ? "yes" : "no");
        printf(", CloseHandle %s", CloseHandle(h) ? "TRUE" : "FALSE");
    }
    printf("\n");
    SetLastError(0);
    h = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, 0xfffffff0);
    printf("OpenProcess(unknown id): %s, error %lu\n", h ? "a handle" : "NULL", GetLastError());
    return 0;
}
