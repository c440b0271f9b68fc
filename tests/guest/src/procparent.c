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
#include <stdio.h>
#include <string.h>

static STARTUPINFOA si;

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

    /* TerminateProcess: the child ends with the code given. */
    if (start(NULL, "procchild quiet wait", 0, NULL, NULL, &pi)) {
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
