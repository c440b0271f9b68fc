/*
 * files: the file system as a Win32 program sees it, inside winterp's sandbox.
 *
 * Works in a directory "ftest" under the current directory (removed at the
 * start and at the end, so a persistent overlay does not change the output),
 * exercising CreateFile/ReadFile/WriteFile/SetFilePointer/GetFileSize/
 * SetEndOfFile, share modes, the msvcrt stdio layer (text mode CR-LF and
 * Ctrl-Z), FindFirstFile/FindNextFile, MoveFile, CopyFile, DeleteFile,
 * directories, attributes, file times, GetFullPathName, temp files, and then
 * tries to leave the sandbox.
 *
 * Paths that contain the current drive letter are printed with "<D>" in its
 * place, and the current directory is never printed, so the output does not
 * depend on where the runner put the program.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static char drive; /* the current drive letter */

/* Prints a path with the current drive letter replaced by <D>. */
static const char *shown(const char *p)
{
    static char buf[4][MAX_PATH + 16];
    static int next;
    char *o = buf[next++ & 3];
    char *start = o;
    for (; *p; p++) {
        if ((p[0] == drive || p[0] == (drive ^ 0x20)) && p[1] == ':') {
            strcpy(o, "<D>");
            o += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return start;
}

/* Reports a BOOL-style result; the error code is read before printf can change it. */
static void show(const char *what, BOOL ok)
{
    DWORD e = GetLastError();
    if (ok)
        printf("%s: ok\n", what);
    else
        printf("%s: failed, error %lu\n", what, e);
}

static HANDLE open_file(const char *path, DWORD access, DWORD share, DWORD disp)
{
    return CreateFileA(path, access, share, NULL, disp, FILE_ATTRIBUTE_NORMAL, NULL);
}

static void show_open(const char *what, HANDLE h)
{
    show(what, h != INVALID_HANDLE_VALUE);
}

/* For opens expected to fail: reports, and closes the handle if one came back anyway. */
static void probe(const char *what, HANDLE h)
{
    show_open(what, h);
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
}

static void write_str(HANDLE h, const char *s)
{
    DWORD n = 0;
    BOOL ok = WriteFile(h, s, (DWORD)strlen(s), &n, NULL);
    printf("  WriteFile(%lu bytes) = %d, written %lu\n", (unsigned long)strlen(s), ok, n);
}

static DWORD file_size(const char *path)
{
    WIN32_FIND_DATAA fd;
    HANDLE f = FindFirstFileA(path, &fd);
    if (f == INVALID_HANDLE_VALUE)
        return 0xffffffff;
    FindClose(f);
    return fd.nFileSizeLow;
}

static void show_attrs(const char *path)
{
    DWORD a;
    SetLastError(0xdeadbeef);
    a = GetFileAttributesA(path);
    if (a == INVALID_FILE_ATTRIBUTES)
        printf("GetFileAttributesA(%s) = INVALID_FILE_ATTRIBUTES, error %lu\n", shown(path), GetLastError());
    else
        printf("GetFileAttributesA(%s) = 0x%lx\n", shown(path), a);
}

/* Removes a tree left behind by an earlier run; prints nothing. */
static void remove_tree(const char *dir)
{
    char pat[MAX_PATH], sub[2 * MAX_PATH];
    WIN32_FIND_DATAA fd;
    HANDLE f;
    sprintf(pat, "%s\\*", dir);
    f = FindFirstFileA(pat, &fd);
    if (f != INVALID_HANDLE_VALUE) {
        do {
            if (!strcmp(fd.cFileName, ".") || !strcmp(fd.cFileName, ".."))
                continue;
            sprintf(sub, "%s\\%s", dir, fd.cFileName);
            SetFileAttributesA(sub, FILE_ATTRIBUTE_NORMAL);
            if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
                remove_tree(sub);
            else
                DeleteFileA(sub);
        } while (FindNextFileA(f, &fd));
        FindClose(f);
    }
    RemoveDirectoryA(dir);
}

struct entry {
    char name[MAX_PATH];
    DWORD attrs;
    DWORD size;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Lists a pattern sorted by name: FindNextFile's order is the file system's, not a promise. */
static void list(const char *pattern)
{
    static struct entry e[64];
    WIN32_FIND_DATAA fd;
    HANDLE f;
    int n = 0, i;
    DWORD err;

    printf("listing %s:\n", pattern);
    SetLastError(0xdeadbeef);
    f = FindFirstFileA(pattern, &fd);
    if (f == INVALID_HANDLE_VALUE) {
        printf("  FindFirstFileA failed, error %lu\n", GetLastError());
        return;
    }
    do {
        if (n < 64) {
            strcpy(e[n].name, fd.cFileName);
            /* Only the bits this program sets are stable across file systems. */
            e[n].attrs = fd.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_READONLY |
                                                FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_NORMAL);
            e[n].size = fd.nFileSizeLow;
            n++;
        }
    } while (FindNextFileA(f, &fd));
    err = GetLastError();
    FindClose(f);
    qsort(e, n, sizeof e[0], by_name);
    for (i = 0; i < n; i++) {
        if (e[i].attrs & FILE_ATTRIBUTE_DIRECTORY)
            printf("  %-12s <DIR> attrs 0x%lx\n", e[i].name, e[i].attrs);
        else
            printf("  %-12s %5lu attrs 0x%lx\n", e[i].name, e[i].size, e[i].attrs);
    }
    printf("  %d entries, FindNextFileA ended with error %lu\n", n, err);
}

static void full_path(const char *in)
{
    char out[MAX_PATH];
    char *part = NULL;
    DWORD n = GetFullPathNameA(in, sizeof out, out, &part);
    printf("GetFullPathNameA(%s) = %s [%s] file part [%s]\n", shown(in),
           n == strlen(out) ? "length ok" : "length wrong", shown(out), part ? part : "(null)");
}

static void section(const char *name)
{
    printf("\n== %s ==\n", name);
}

static void basic_io(void)
{
    HANDLE h, h2;
    DWORD n, hi, pos, i, e;
    char buf[128];
    int zeros;
    BOOL ok;

    section("CreateFile, WriteFile, SetFilePointer, GetFileSize");
    h = open_file("ftest\\a.txt", GENERIC_WRITE, 0, CREATE_NEW);
    show_open("CreateFileA(ftest\\a.txt, CREATE_NEW)", h);
    write_str(h, "Hello, file!\r\n");
    ok = WriteFile(h, "", 0, &n, NULL);
    printf("  WriteFile(0 bytes) = %d, written %lu\n", ok, n);
    printf("  SetFilePointer(0, FILE_CURRENT) = %lu\n", SetFilePointer(h, 0, NULL, FILE_CURRENT));
    printf("  SetFilePointer(100, FILE_BEGIN) = %lu\n", SetFilePointer(h, 100, NULL, FILE_BEGIN));
    hi = 77;
    n = GetFileSize(h, &hi);
    printf("  GetFileSize before writing at 100 = %lu (high %lu)\n", n, hi);
    write_str(h, "X");
    hi = 77;
    n = GetFileSize(h, &hi);
    printf("  GetFileSize = %lu (high %lu)\n", n, hi);
    printf("  SetFilePointer(-1, FILE_END) = %lu\n", SetFilePointer(h, -1, NULL, FILE_END));
    SetLastError(0xdeadbeef);
    pos = SetFilePointer(h, -200, NULL, FILE_CURRENT);
    printf("  SetFilePointer(-200, FILE_CURRENT) = 0x%lx, error %lu\n", pos, GetLastError());
    printf("  position after the failed seek = %lu\n", SetFilePointer(h, 0, NULL, FILE_CURRENT));
    {
        LONG high = 0;
        pos = SetFilePointer(h, 60, &high, FILE_BEGIN);
        printf("  SetFilePointer(60, high 0, FILE_BEGIN) = %lu, high %ld\n", pos, high);
    }
    printf("  SetEndOfFile = %d\n", SetEndOfFile(h));
    printf("  GetFileSize after SetEndOfFile = %lu\n", GetFileSize(h, NULL));
    printf("  CloseHandle = %d\n", CloseHandle(h));

    h = open_file("ftest\\a.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    show_open("CreateFileA(ftest\\a.txt, GENERIC_READ, share read)", h);
    memset(buf, 0x55, sizeof buf);
    ok = ReadFile(h, buf, sizeof buf, &n, NULL);
    zeros = 1;
    for (i = 14; i < 60; i++)
        zeros &= buf[i] == 0;
    printf("  ReadFile(128) = %d, read %lu, starts \"Hello, file!\\r\\n\": %s, bytes 14..59 zero: %s\n", ok, n,
           memcmp(buf, "Hello, file!\r\n", 14) == 0 ? "yes" : "no", zeros ? "yes" : "no");
    ok = ReadFile(h, buf, sizeof buf, &n, NULL);
    printf("  ReadFile at end of file = %d, read %lu\n", ok, n);
    printf("  SetFilePointer(7, FILE_BEGIN) = %lu\n", SetFilePointer(h, 7, NULL, FILE_BEGIN));
    ok = ReadFile(h, buf, 4, &n, NULL);
    buf[n] = 0;
    printf("  ReadFile(4) = %d, read %lu [%s]\n", ok, n, buf);

    /* A second handle must respect the first one's share mode. */
    h2 = open_file("ftest\\a.txt", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING);
    show_open("  second open for writing while shared for reading only", h2);
    if (h2 != INVALID_HANDLE_VALUE)
        CloseHandle(h2);
    h2 = open_file("ftest\\a.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    show_open("  second open for reading", h2);
    if (h2 != INVALID_HANDLE_VALUE)
        CloseHandle(h2);
    show("  DeleteFileA while open without FILE_SHARE_DELETE", DeleteFileA("ftest\\a.txt"));
    CloseHandle(h);

    section("creation dispositions");
    h = open_file("ftest\\a.txt", GENERIC_WRITE, 0, CREATE_NEW);
    probe("CreateFileA(existing, CREATE_NEW)", h);
    h = open_file("ftest\\missing.txt", GENERIC_READ, 0, OPEN_EXISTING);
    probe("CreateFileA(missing, OPEN_EXISTING)", h);
    h = open_file("ftest\\nodir\\x.txt", GENERIC_WRITE, 0, CREATE_ALWAYS);
    probe("CreateFileA(missing directory, CREATE_ALWAYS)", h);
    h = open_file("ftest\\missing.txt", GENERIC_WRITE, 0, TRUNCATE_EXISTING);
    probe("CreateFileA(missing, TRUNCATE_EXISTING)", h);

    SetLastError(0xdeadbeef);
    h = open_file("ftest\\b.txt", GENERIC_WRITE, 0, CREATE_ALWAYS);
    printf("CreateFileA(new b.txt, CREATE_ALWAYS): %s, last error %lu\n",
           h != INVALID_HANDLE_VALUE ? "ok" : "failed", GetLastError());
    write_str(h, "bbbbbbbbbb");
    CloseHandle(h);
    SetLastError(0xdeadbeef);
    h = open_file("ftest\\b.txt", GENERIC_WRITE, 0, CREATE_ALWAYS);
    e = GetLastError();
    printf("CreateFileA(existing b.txt, CREATE_ALWAYS): %s, last error %lu, size %lu\n",
           h != INVALID_HANDLE_VALUE ? "ok" : "failed", e, GetFileSize(h, NULL));
    write_str(h, "bbb");
    CloseHandle(h);
    SetLastError(0xdeadbeef);
    h = open_file("ftest\\b.txt", GENERIC_READ | GENERIC_WRITE, 0, OPEN_ALWAYS);
    e = GetLastError();
    printf("CreateFileA(existing b.txt, OPEN_ALWAYS): %s, last error %lu, size %lu\n",
           h != INVALID_HANDLE_VALUE ? "ok" : "failed", e, GetFileSize(h, NULL));
    CloseHandle(h);
    SetLastError(0xdeadbeef);
    h = open_file("ftest\\c.txt", GENERIC_WRITE, 0, OPEN_ALWAYS);
    printf("CreateFileA(new c.txt, OPEN_ALWAYS): %s, last error %lu\n",
           h != INVALID_HANDLE_VALUE ? "ok" : "failed", GetLastError());
    write_str(h, "cccccccc");
    CloseHandle(h);
    h = open_file("ftest\\c.txt", GENERIC_WRITE, 0, TRUNCATE_EXISTING);
    printf("CreateFileA(c.txt, TRUNCATE_EXISTING): %s, size %lu\n",
           h != INVALID_HANDLE_VALUE ? "ok" : "failed", GetFileSize(h, NULL));
    CloseHandle(h);
}

static void crt_io(void)
{
    FILE *f;
    char line[64];
    char buf[128];
    size_t n, i;
    int crs = 0;

    section("msvcrt stdio");
    f = fopen("ftest\\crt.txt", "w");
    printf("fopen(ftest\\crt.txt, w): %s\n", f ? "ok" : "failed");
    for (i = 1; i <= 3; i++)
        fprintf(f, "line %u\n", (unsigned)i);
    printf("ftell after three text-mode lines = %ld\n", ftell(f));
    fclose(f);
    printf("size on disk (text mode writes CR LF) = %lu\n", file_size("ftest\\crt.txt"));
    f = fopen("ftest\\crt.txt", "a");
    fprintf(f, "appended\n");
    fclose(f);
    printf("size after append = %lu\n", file_size("ftest\\crt.txt"));

    f = fopen("ftest\\crt.txt", "r");
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        printf("  fgets: %u chars, ends with LF only: %s, [%.*s]\n", (unsigned)len,
               (len >= 2 && line[len - 1] == '\n' && line[len - 2] != '\r') ? "yes" : "no",
               (int)(len - 1), line);
    }
    printf("  feof = %d\n", feof(f) != 0);
    fclose(f);

    f = fopen("ftest\\crt.txt", "rb");
    n = fread(buf, 1, sizeof buf, f);
    for (i = 0; i < n; i++)
        crs += buf[i] == '\r';
    printf("binary fread = %u bytes, %d CRs, ftell %ld\n", (unsigned)n, crs, ftell(f));
    fseek(f, 8, SEEK_SET);
    n = fread(buf, 1, 6, f);
    buf[n] = 0;
    printf("fseek(8) then fread(6) = [%s]\n", buf);
    fclose(f);

    /* Ctrl-Z ends a text-mode read. */
    f = fopen("ftest\\ctrlz.bin", "wb");
    fwrite("ab\x1a" "cd\n", 1, 6, f);
    fclose(f);
    f = fopen("ftest\\ctrlz.bin", "r");
    n = fread(buf, 1, sizeof buf, f);
    printf("text-mode fread of \"ab^Zcd\\n\" = %u bytes, feof %d\n", (unsigned)n, feof(f) != 0);
    fclose(f);
    f = fopen("ftest\\ctrlz.bin", "rb");
    n = fread(buf, 1, sizeof buf, f);
    printf("binary fread of the same file = %u bytes\n", (unsigned)n);
    fclose(f);

    errno = 0;
    f = fopen("ftest\\missing.txt", "r");
    printf("fopen(missing, r) = %s, errno %d\n", f ? "FILE" : "NULL", errno);
}

static void find_move_copy(void)
{
    HANDLE h;
    WIN32_FIND_DATAA fd;
    char a[64], b[64];
    DWORD n1, n2;

    section("directories");
    show("CreateDirectoryA(ftest\\sub)", CreateDirectoryA("ftest\\sub", NULL));
    show("CreateDirectoryA(ftest\\sub) again", CreateDirectoryA("ftest\\sub", NULL));
    show("CreateDirectoryA(ftest\\no\\such)", CreateDirectoryA("ftest\\no\\such", NULL));

    section("MoveFile, CopyFile, DeleteFile");
    show("MoveFileA(ftest\\b.txt, ftest\\sub\\moved.txt)", MoveFileA("ftest\\b.txt", "ftest\\sub\\moved.txt"));
    show_attrs("ftest\\b.txt");
    show("MoveFileA(ftest\\c.txt, ftest\\sub\\moved.txt) onto an existing file",
         MoveFileA("ftest\\c.txt", "ftest\\sub\\moved.txt"));
    show("MoveFileA(ftest\\missing.txt, ftest\\x.txt)", MoveFileA("ftest\\missing.txt", "ftest\\x.txt"));
    show("MoveFileA(ftest\\sub, ftest\\dir2) renames a directory", MoveFileA("ftest\\sub", "ftest\\dir2"));
    show("CopyFileA(ftest\\a.txt, ftest\\copy.txt, fail if exists)",
         CopyFileA("ftest\\a.txt", "ftest\\copy.txt", TRUE));
    show("CopyFileA(ftest\\a.txt, ftest\\copy.txt, fail if exists) again",
         CopyFileA("ftest\\a.txt", "ftest\\copy.txt", TRUE));
    show("CopyFileA(ftest\\c.txt, ftest\\copy.txt, overwrite)", CopyFileA("ftest\\c.txt", "ftest\\copy.txt", FALSE));
    printf("size of copy.txt = %lu (c.txt was truncated to 0)\n", file_size("ftest\\copy.txt"));
    show("CopyFileA(ftest\\a.txt, ftest\\copy.txt, overwrite)", CopyFileA("ftest\\a.txt", "ftest\\copy.txt", FALSE));
    {
        HANDLE x = open_file("ftest\\a.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
        HANDLE y = open_file("ftest\\copy.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
        ReadFile(x, a, sizeof a, &n1, NULL);
        ReadFile(y, b, sizeof b, &n2, NULL);
        printf("copy.txt has a.txt's %lu bytes: %s\n", n1, n1 == n2 && !memcmp(a, b, n1) ? "yes" : "no");
        CloseHandle(x);
        CloseHandle(y);
    }
    show("CopyFileA(ftest\\missing.txt, ftest\\y.txt)", CopyFileA("ftest\\missing.txt", "ftest\\y.txt", FALSE));
    show("DeleteFileA(ftest\\missing.txt)", DeleteFileA("ftest\\missing.txt"));
    show("DeleteFileA(ftest\\dir2) on a directory", DeleteFileA("ftest\\dir2"));
    show("RemoveDirectoryA(ftest\\dir2) while not empty", RemoveDirectoryA("ftest\\dir2"));
    show("RemoveDirectoryA(ftest\\nodir)", RemoveDirectoryA("ftest\\nodir"));

    section("attributes and times");
    show_attrs("ftest\\a.txt");
    show_attrs("ftest\\dir2");
    show_attrs("ftest\\missing.txt");
    show("SetFileAttributesA(ftest\\copy.txt, READONLY)", SetFileAttributesA("ftest\\copy.txt", FILE_ATTRIBUTE_READONLY));
    show_attrs("ftest\\copy.txt");
    h = open_file("ftest\\copy.txt", GENERIC_WRITE, 0, OPEN_EXISTING);
    probe("CreateFileA(read-only file, GENERIC_WRITE)", h);
    show("DeleteFileA(read-only file)", DeleteFileA("ftest\\copy.txt"));
    show("SetFileAttributesA(ftest\\copy.txt, NORMAL)", SetFileAttributesA("ftest\\copy.txt", FILE_ATTRIBUTE_NORMAL));
    show_attrs("ftest\\copy.txt");
    {
        SYSTEMTIME st = {2001, 2, 6, 3, 4, 5, 6, 0}, back;
        FILETIME ft, got;
        HANDLE x = open_file("ftest\\a.txt", GENERIC_READ | GENERIC_WRITE, 0, OPEN_EXISTING);
        SystemTimeToFileTime(&st, &ft);
        printf("SystemTimeToFileTime(2001-02-03 04:05:06) = 0x%08lx%08lx\n", ft.dwHighDateTime, ft.dwLowDateTime);
        show("SetFileTime(last write)", SetFileTime(x, NULL, NULL, &ft));
        GetFileTime(x, NULL, NULL, &got);
        CloseHandle(x);
        FileTimeToSystemTime(&got, &back);
        printf("GetFileTime(last write) = %04u-%02u-%02u %02u:%02u:%02u, same FILETIME: %s\n", back.wYear, back.wMonth,
               back.wDay, back.wHour, back.wMinute, back.wSecond,
               got.dwLowDateTime == ft.dwLowDateTime && got.dwHighDateTime == ft.dwHighDateTime ? "yes" : "no");
        h = FindFirstFileA("ftest\\a.txt", &fd);
        printf("FindFirstFileA sees the same last write time: %s\n",
               fd.ftLastWriteTime.dwLowDateTime == ft.dwLowDateTime &&
                       fd.ftLastWriteTime.dwHighDateTime == ft.dwHighDateTime
                   ? "yes"
                   : "no");
        FindClose(h);
    }

    section("FindFirstFile and FindNextFile");
    list("ftest\\*");
    list("ftest\\*.txt");
    list("ftest\\dir2\\*");
    list("ftest\\*.xyz");
    list("ftest\\nodir\\*");
    list("ftest\\a.txt");
}

static void paths(void)
{
    char cwd[MAX_PATH], want[MAX_PATH + 32], got[MAX_PATH], small[4];
    char *part;
    DWORD n;
    char in[64];

    section("current directory and GetFullPathName");
    GetCurrentDirectoryA(sizeof cwd, cwd);
    /* A drive root keeps its backslash; any other directory has none. */
    sprintf(want, "%s%sftest\\a.txt", cwd, cwd[strlen(cwd) - 1] == '\\' ? "" : "\\");
    n = GetFullPathNameA("ftest\\a.txt", sizeof got, got, &part);
    printf("GetFullPathNameA(ftest\\a.txt) is the current directory + ftest\\a.txt: %s, file part [%s]\n",
           n == strlen(want) && !strcmp(got, want) ? "yes" : "no", part);
    n = GetFullPathNameA("ftest\\.\\dir2\\..\\a.txt", sizeof got, got, &part);
    printf("GetFullPathNameA(ftest\\.\\dir2\\..\\a.txt) gives the same: %s\n", !strcmp(got, want) ? "yes" : "no");
    n = GetFullPathNameA("ftest\\a.txt", sizeof small, small, &part);
    printf("GetFullPathNameA into 4 bytes returns the size needed: %s\n", n == strlen(want) + 1 ? "yes" : "no");
    sprintf(in, "%c:\\x\\..\\..\\y.txt", drive);
    full_path(in);
    sprintf(in, "%c:/fwd/slash.txt", drive);
    full_path(in);
    full_path("\\rooted\\p.txt");
    full_path("/rooted/q.txt");
    sprintf(in, "%c:\\dir\\", drive);
    full_path(in);
    sprintf(in, "%c:\\a\\b\\..\\..\\..\\..\\c", drive);
    full_path(in);

    show("SetCurrentDirectoryA(ftest)", SetCurrentDirectoryA("ftest"));
    GetCurrentDirectoryA(sizeof got, got);
    printf("new current directory ends with \\ftest: %s\n",
           strlen(got) > 6 && !strcmp(got + strlen(got) - 6, "\\ftest") ? "yes" : "no");
    show_attrs("a.txt");
    show("SetCurrentDirectoryA(..)", SetCurrentDirectoryA(".."));
    GetCurrentDirectoryA(sizeof got, got);
    printf("back in the first directory: %s\n", !strcmp(got, cwd) ? "yes" : "no");
    show("SetCurrentDirectoryA(nodir)", SetCurrentDirectoryA("nodir"));
}

static void temp_files(void)
{
    char tmp[MAX_PATH], name[MAX_PATH];
    UINT u;
    DWORD a;
    size_t len, i;
    int pattern;

    section("temp files");
    len = GetTempPathA(sizeof tmp, tmp);
    printf("GetTempPathA ends with a backslash: %s\n", len > 0 && tmp[len - 1] == '\\' ? "yes" : "no");
    a = GetFileAttributesA(tmp);
    printf("temp path is a directory: %s\n", a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) ? "yes" : "no");

    u = GetTempFileNameA(tmp, "wtp", 0, name);
    /* tmp + "wtp" + 1-4 hex digits + ".tmp" */
    len = strlen(name);
    pattern = u != 0 && !strncmp(name, tmp, strlen(tmp)) && !strncmp(name + strlen(tmp), "wtp", 3) &&
              len >= strlen(tmp) + 8 && len <= strlen(tmp) + 11 && !_stricmp(name + len - 4, ".tmp");
    /* The hex digits' case is not documented. */
    for (i = strlen(tmp) + 3; pattern && i < len - 4; i++)
        pattern = (name[i] >= '0' && name[i] <= '9') || (name[i] >= 'A' && name[i] <= 'F') ||
                  (name[i] >= 'a' && name[i] <= 'f');
    printf("GetTempFileNameA(temp, wtp, 0): nonzero, named <temp>wtpXXXX.tmp: %s\n", pattern ? "yes" : "no");
    printf("  it created an empty file: %s\n", file_size(name) == 0 ? "yes" : "no");
    show("  DeleteFileA", DeleteFileA(name));

    /* With a unique number given, the name is only made up, not created. */
    u = GetTempFileNameA("ftest", "wtp", 0x1234, name);
    printf("GetTempFileNameA(ftest, wtp, 0x1234) = 0x%x, name is ftest\\wtp1234.tmp: %s\n", u,
           !_stricmp(name, "ftest\\wtp1234.tmp") ? "yes" : "no");
    SetLastError(0xdeadbeef);
    a = GetFileAttributesA(name);
    printf("  GetFileAttributesA(that name) = 0x%lx, error %lu\n", a, GetLastError());
}

/*
 * Attempts to leave the sandbox. Each must fail the way it fails on Windows
 * for a program whose drive has no "etc" or "usr" directory, or end up on
 * the program's own drive.
 */
static void escapes(void)
{
    char p[MAX_PATH], full[MAX_PATH], root[MAX_PATH], label[MAX_PATH + 16];
    int contained;
    HANDLE h;
    DWORD e, a;
    DWORD n;

    section("leaving the sandbox");
    h = open_file("..\\..\\..\\..\\..\\..\\..\\..\\etc\\passwd", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    probe("open ..\\..\\..\\..\\..\\..\\..\\..\\etc\\passwd", h);
    sprintf(p, "%c:\\..\\..\\etc\\hostname", drive);
    h = open_file(p, GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    sprintf(label, "open %s", shown(p));
    probe(label, h);
    h = open_file("/etc/passwd", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    probe("open /etc/passwd", h);
    h = open_file("/usr/share/winterp_escape.txt", GENERIC_WRITE, 0, CREATE_ALWAYS);
    probe("create /usr/share/winterp_escape.txt", h);
    sprintf(p, "\\\\?\\%c:\\etc\\passwd", drive);
    h = open_file(p, GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    sprintf(label, "open %s", shown(p));
    probe(label, h);
    /* No normalisation happens after \\?\; Windows reports either code. */
    sprintf(p, "\\\\?\\%c:\\..\\..\\etc\\passwd", drive);
    h = open_file(p, GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    e = GetLastError();
    printf("open %s: %s, error is ERROR_PATH_NOT_FOUND or ERROR_INVALID_NAME: %s\n", shown(p),
           h == INVALID_HANDLE_VALUE ? "failed" : "ok", e == ERROR_PATH_NOT_FOUND || e == ERROR_INVALID_NAME ? "yes" : "no");
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    h = open_file("\\\\.\\PhysicalDrive0", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING);
    probe("open \\\\.\\PhysicalDrive0 for reading", h);

    /* ".." stops at the root of the drive, so this lands in <D>:\escape.txt if it succeeds. */
    h = open_file("..\\..\\..\\..\\..\\..\\..\\..\\escape.txt", GENERIC_WRITE, 0, CREATE_NEW);
    e = GetLastError();
    n = GetFullPathNameA("..\\..\\..\\..\\..\\..\\..\\..\\escape.txt", sizeof full, full, NULL);
    sprintf(root, "%c:\\escape.txt", drive);
    if (h == INVALID_HANDLE_VALUE) {
        /* Refusing is fine as long as it is an error Windows gives for a protected root. */
        contained = e == ERROR_ACCESS_DENIED || e == ERROR_PATH_NOT_FOUND;
    } else {
        CloseHandle(h);
        a = GetFileAttributesA(root);
        contained = n == strlen(root) && !_stricmp(full, root) && a != INVALID_FILE_ATTRIBUTES && DeleteFileA(root);
    }
    printf("create ..\\..\\..\\..\\..\\..\\..\\..\\escape.txt: refused or created as <D>:\\escape.txt: %s\n",
           contained ? "yes" : "no");
    printf("GetFullPathNameA(..\\..\\..\\..\\..\\..\\..\\..\\escape.txt) = %s\n", shown(full));

    h = open_file("NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING);
    show_open("open NUL", h);
    if (h != INVALID_HANDLE_VALUE) {
        write_str(h, "gone!");
        CloseHandle(h);
    }
}

static void own_folder(void)
{
    char exe[MAX_PATH];
    char mz[2] = {0, 0};
    DWORD n = 0;
    HANDLE h;

    section("the program's own folder");
    GetModuleFileNameA(NULL, exe, sizeof exe);
    h = open_file(exe, GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING);
    show_open("open the program's own .exe (GetModuleFileNameA)", h);
    ReadFile(h, mz, 2, &n, NULL);
    printf("  it starts with MZ: %s\n", n == 2 && mz[0] == 'M' && mz[1] == 'Z' ? "yes" : "no");
    CloseHandle(h);
}

static void cleanup(void)
{
    section("cleanup");
    show("DeleteFileA(ftest\\a.txt)", DeleteFileA("ftest\\a.txt"));
    show("DeleteFileA(ftest\\c.txt)", DeleteFileA("ftest\\c.txt"));
    show("DeleteFileA(ftest\\copy.txt)", DeleteFileA("ftest\\copy.txt"));
    show("DeleteFileA(ftest\\crt.txt)", DeleteFileA("ftest\\crt.txt"));
    show("DeleteFileA(ftest\\ctrlz.bin)", DeleteFileA("ftest\\ctrlz.bin"));
    show("DeleteFileA(ftest\\dir2\\moved.txt)", DeleteFileA("ftest\\dir2\\moved.txt"));
    show("RemoveDirectoryA(ftest\\dir2)", RemoveDirectoryA("ftest\\dir2"));
    show("RemoveDirectoryA(ftest)", RemoveDirectoryA("ftest"));
    show_attrs("ftest");
}

int main(void)
{
    char cwd[MAX_PATH];
    DWORD n = GetCurrentDirectoryA(sizeof cwd, cwd);
    drive = cwd[0];
    printf("GetCurrentDirectoryA is a drive path: %s\n",
           n == strlen(cwd) && cwd[1] == ':' && cwd[2] == '\\' ? "yes" : "no");

    remove_tree("ftest");
    show("CreateDirectoryA(ftest)", CreateDirectoryA("ftest", NULL));
    basic_io();
    crt_io();
    find_move_copy();
    paths();
    temp_files();
    escapes();
    own_folder();
    cleanup();
    return 0;
}
