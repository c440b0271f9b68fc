/* The child of procparent (also runs on its own): prints its arguments, command
 * line, an environment variable and the last part of its current folder as
 * asked, can wait for a file its parent creates, and exits with the code asked
 * for.
 *
 *   procchild [quiet] [wait] [env] [cwd] [exit=N] [other args...]
 *
 * quiet prints only what env and cwd ask for; wait prints only when it is over.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

int main(int argc, char **argv)
{
    int quiet = 0, waits = 0, code = 0, i;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "quiet"))
            quiet = 1;
        if (!strcmp(argv[i], "wait"))
            waits = 1;
    }
    /* A child that waits prints nothing before: its parent prints meanwhile. */
    if (!quiet && !waits) {
        printf("child: command line [%s]\n", GetCommandLineA());
        printf("child: argc %d\n", argc);
        for (i = 1; i < argc; i++)
            printf("child: argv[%d] [%s]\n", i, argv[i]);
    }
    for (i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "exit=", 5)) {
            code = atoi(argv[i] + 5);
        } else if (!strcmp(argv[i], "env")) {
            const char *v = getenv("PROCTEST");
            printf("child: PROCTEST=%s\n", v ? v : "(not set)");
            printf("child: PATH is %s\n", getenv("PATH") ? "set" : "not set");
        } else if (!strcmp(argv[i], "cwd")) {
            char d[MAX_PATH], *p;
            GetCurrentDirectoryA(MAX_PATH, d);
            p = strrchr(d, '\\');
            p = p ? p + 1 : d;
            for (char *q = p; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            printf("child: current folder ends in %s\n", p);
        } else if (!strcmp(argv[i], "wait")) {
            /* The parent creates proc.go once it has looked at the running child. */
            long n;
            for (n = 0; n < 2000000; n++) {
                if (GetFileAttributesA("proc.go") != INVALID_FILE_ATTRIBUTES)
                    break;
                Sleep(10);
            }
            if (!quiet)
                printf("child: %s\n", n < 2000000 ? "proc.go appeared" : "gave up waiting");
        }
    }
    fflush(stdout);
    return code;
}
