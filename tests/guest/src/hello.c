/*
 * hello: command line, environment and exit code.
 *
 * Prints argc/argv as parsed by msvcrt's start-up code (__getmainargs),
 * re-parses GetCommandLineA with the documented Microsoft rules and checks it
 * gives the same argv, exercises the Win32 environment block
 * (SetEnvironmentVariableA/GetEnvironmentVariableA) and the CRT's copy of it
 * (_putenv/getenv), and exits with code 3.
 *
 * Nothing printed depends on where the program lives or how the runner chose
 * to quote the arguments, only on the arguments themselves.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last path component of p, lower-cased (Windows names are case-insensitive). */
static const char *basename_lower(const char *p, char *out, size_t cap)
{
    const char *b = p;
    size_t i;
    for (; *p; p++)
        if (*p == '\\' || *p == '/' || *p == ':')
            b = p + 1;
    for (i = 0; b[i] && i + 1 < cap; i++)
        out[i] = (b[i] >= 'A' && b[i] <= 'Z') ? (char)(b[i] - 'A' + 'a') : b[i];
    out[i] = 0;
    return out;
}

/*
 * Splits a command line the way the Microsoft C runtime documents it
 * ("Parsing C command-line arguments"): the program name ends at the closing
 * quote or at white space, without backslash processing; in later arguments
 * 2n backslashes before a quote give n backslashes and a quote delimiter,
 * 2n+1 backslashes before a quote give n backslashes and a literal quote,
 * and other backslashes are literal.
 */
static int split_cmdline(const char *s, char **argv, int max, char *store)
{
    int argc = 0;
    char *o = store;

    /* program name */
    argv[argc++] = o;
    if (*s == '"') {
        s++;
        while (*s && *s != '"')
            *o++ = *s++;
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ' ' && *s != '\t')
            *o++ = *s++;
    }
    *o++ = 0;

    for (;;) {
        int inq = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || argc >= max)
            break;
        argv[argc++] = o;
        while (*s) {
            if (*s == '\\') {
                int n = 0;
                while (*s == '\\') {
                    n++;
                    s++;
                }
                if (*s == '"') {
                    int k;
                    for (k = 0; k < n / 2; k++)
                        *o++ = '\\';
                    if (n % 2) {
                        *o++ = '"';
                        s++;
                    }
                } else {
                    while (n--)
                        *o++ = '\\';
                }
            } else if (*s == '"') {
                s++;
                if (inq && *s == '"') { /* "" inside quotes: a literal quote */
                    *o++ = '"';
                    s++;
                } else {
                    inq = !inq;
                }
            } else if (!inq && (*s == ' ' || *s == '\t')) {
                break;
            } else {
                *o++ = *s++;
            }
        }
        *o++ = 0;
    }
    return argc;
}

static void show_get(const char *name)
{
    char buf[64];
    DWORD n;
    SetLastError(0xdeadbeef);
    n = GetEnvironmentVariableA(name, buf, sizeof buf);
    if (n == 0)
        printf("GetEnvironmentVariableA(%s) = 0, error %lu\n", name, GetLastError());
    else
        printf("GetEnvironmentVariableA(%s) = %lu [%s]\n", name, n, buf);
}

static void show_getenv(const char *name)
{
    const char *v = getenv(name);
    if (v)
        printf("getenv(%s) = [%s]\n", name, v);
    else
        printf("getenv(%s) = NULL\n", name);
}

int main(int argc, char **argv)
{
    char name[MAX_PATH];
    char module[MAX_PATH];
    static char store[4096];
    char *parsed[64];
    int i, nparsed, same;
    const char *cl;
    char small[4];
    DWORD n;

    printf("argc = %d\n", argc);
    for (i = 1; i < argc; i++)
        printf("argv[%d] = [%s]\n", i, argv[i]);
    printf("argv[0] name = [%s]\n", basename_lower(argv[0], name, sizeof name));
    n = GetModuleFileNameA(NULL, module, sizeof module);
    printf("GetModuleFileNameA name = [%s], full path: %s\n",
           basename_lower(module, name, sizeof name),
           (n > 3 && module[1] == ':' && module[2] == '\\') ? "yes" : "no");
    printf("argv[NULL terminator] = %s\n", argv[argc] == NULL ? "NULL" : "not NULL");

    cl = GetCommandLineA();
    nparsed = split_cmdline(cl, parsed, 64, store);
    same = nparsed == argc;
    for (i = 0; same && i < argc; i++)
        same = strcmp(parsed[i], argv[i]) == 0;
    printf("GetCommandLineA splits into the same %d arguments: %s\n", argc, same ? "yes" : "no");
    if (!same)
        printf("  command line was [%s]\n", cl);

    /* The Win32 environment block. */
    printf("SetEnvironmentVariableA(WINTERP_K1) = %d\n",
           SetEnvironmentVariableA("WINTERP_K1", "v1 = x"));
    show_get("WINTERP_K1");
    /* Names are case-insensitive. */
    show_get("winterp_k1");
    /* Too small: the size needed including the terminator. */
    n = GetEnvironmentVariableA("WINTERP_K1", small, sizeof small);
    printf("GetEnvironmentVariableA(WINTERP_K1, 4-byte buffer) = %lu\n", n);
    show_get("WINTERP_MISSING");
    /* getenv reads the CRT's copy made at start-up, which SetEnvironmentVariable does not touch. */
    show_getenv("WINTERP_K1");

    /* The CRT copy: _putenv updates it and the Win32 block. */
    printf("_putenv(WINTERP_K2=crt value) = %d\n", _putenv("WINTERP_K2=crt value"));
    show_getenv("WINTERP_K2");
    show_get("WINTERP_K2");
    printf("_putenv(WINTERP_K2=) = %d\n", _putenv("WINTERP_K2="));
    show_getenv("WINTERP_K2");
    show_get("WINTERP_K2");

    /* Deleting with a NULL value. */
    printf("SetEnvironmentVariableA(WINTERP_K1, NULL) = %d\n",
           SetEnvironmentVariableA("WINTERP_K1", NULL));
    show_get("WINTERP_K1");

    /* The exit code travels through exit() after stdio is flushed. */
    printf("exiting with 3\n");
    return 3;
}
