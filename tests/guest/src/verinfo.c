/* VERSION.DLL on the program's own file (see verinfo.rc), on a file without a
 * version resource and on a missing file: GetFileVersionInfoSize(A/W),
 * GetFileVersionInfo(A/W), VerQueryValue(A/W) on the fixed part, the translation
 * table and strings, with the lengths and last errors Windows documents. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes past ASCII as \xNN, so the output is the same in any terminal. */
static void print_ansi(const char *s)
{
    for (; *s; s++)
        printf((unsigned char)*s < 0x80 ? "%c" : "\\x%02X", (unsigned char)*s);
}

static void print_wide(const WCHAR *s, UINT n)
{
    UINT i;
    for (i = 0; i < n && s[i]; i++)
        printf(s[i] < 0x80 ? "%c" : "<U+%04X>", s[i]);
}

int main(void)
{
    char self[MAX_PATH];
    WCHAR selfW[MAX_PATH];
    DWORD handle, size, sizeW, err;
    BYTE *block, *blockW;
    WORD wLength;
    VS_FIXEDFILEINFO *ffi;
    UINT len;
    void *p;
    BOOL ok;
    int i;
    static const char *const names[] = {
        "CompanyName", "FileDescription", "FileVersion", "InternalName",
        "LegalCopyright", "OriginalFilename", "ProductName", "ProductVersion",
    };

    GetModuleFileNameA(NULL, self, sizeof self);
    GetModuleFileNameW(NULL, selfW, MAX_PATH);

    handle = 0x55555555;
    SetLastError(0xdeadbeef);
    size = GetFileVersionInfoSizeA(self, &handle);
    err = GetLastError();
    printf("size A: %lu, handle %lu, last error %lu\n", size, handle, err);
    sizeW = GetFileVersionInfoSizeW(selfW, NULL);
    printf("size W: %lu\n", sizeW);
    if (size == 0)
        return 1;

    block = calloc(size, 1);
    SetLastError(0xdeadbeef);
    ok = GetFileVersionInfoA(self, 0, size, block);
    err = GetLastError();
    wLength = *(WORD *)block;
    printf("GetFileVersionInfoA: %d, last error %lu\n", ok, err);
    printf("wLength %u, size == 2 * wLength + 4: %s\n", wLength,
           size == 2u * wLength + 4 ? "yes" : "no");
    printf("after the block: %.4s\n", (char *)block + wLength);

    /* The W function gives the same buffer; strings stay in place. */
    blockW = calloc(sizeW, 1);
    ok = GetFileVersionInfoW(selfW, 0, sizeW, blockW);
    printf("GetFileVersionInfoW: %d, same bytes: %s\n", ok,
           size == sizeW && memcmp(block, blockW, size) == 0 ? "yes" : "no");
    {
        WCHAR *s;
        ok = VerQueryValueW(blockW, L"\\StringFileInfo\\040904B0\\LegalCopyright",
                            (void **)&s, &len);
        printf("LegalCopyright W: %d, length %u, in the block: %s, \"", ok, len,
               (BYTE *)s < blockW + wLength ? "yes" : "no");
        print_wide(s, len);
        printf("\"\n");
        ok = VerQueryValueW(blockW, L"\\", &p, &len);
        printf("\\ W: %d, length %u, at offset %d\n", ok, len, (int)((BYTE *)p - blockW));
    }
    free(blockW);

    ok = VerQueryValueA(block, "\\", (void **)&ffi, &len);
    printf("\\: %d, length %u, at offset %d\n", ok, len, (int)((BYTE *)ffi - block));
    printf("  signature %08lx, struct version %08lx\n", ffi->dwSignature, ffi->dwStrucVersion);
    printf("  file version %u.%u.%u.%u, product version %u.%u.%u.%u\n",
           HIWORD(ffi->dwFileVersionMS), LOWORD(ffi->dwFileVersionMS),
           HIWORD(ffi->dwFileVersionLS), LOWORD(ffi->dwFileVersionLS),
           HIWORD(ffi->dwProductVersionMS), LOWORD(ffi->dwProductVersionMS),
           HIWORD(ffi->dwProductVersionLS), LOWORD(ffi->dwProductVersionLS));
    printf("  flags mask %02lx, flags %02lx, OS %05lx, type %lu, subtype %lu\n",
           ffi->dwFileFlagsMask, ffi->dwFileFlags, ffi->dwFileOS, ffi->dwFileType,
           ffi->dwFileSubtype);
    ok = VerQueryValueA(block, NULL, &p, &len);
    printf("NULL sub-block: %d, same as \\: %s\n", ok, p == (void *)ffi ? "yes" : "no");
    ok = VerQueryValueA(block, "", &p, &len);
    printf("empty sub-block: %d, same as \\: %s\n", ok, p == (void *)ffi ? "yes" : "no");

    ok = VerQueryValueA(block, "\\VarFileInfo\\Translation", &p, &len);
    printf("translation: %d, length %u, language %04x, code page %u\n", ok, len,
           ((WORD *)p)[0], ((WORD *)p)[1]);

    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        char path[64];
        sprintf(path, "\\StringFileInfo\\040904B0\\%s", names[i]);
        ok = VerQueryValueA(block, path, &p, &len);
        printf("%s: %d, length %u, past the block: %s, \"", names[i], ok, len,
               (BYTE *)p >= block + wLength + 4 ? "yes" : "no");
        print_ansi(p);
        printf("\"\n");
    }
    ok = VerQueryValueA(block, "\\stringfileinfo\\040904b0\\PRODUCTNAME", &p, &len);
    printf("keys ignore case: %d, \"%s\"\n", ok, ok ? (char *)p : "");

    len = 12345;
    SetLastError(0xdeadbeef);
    ok = VerQueryValueA(block, "\\StringFileInfo\\040904B0\\Comments", &p, &len);
    printf("missing string: %d, length %u, last error %lu\n", ok, len, GetLastError());
    SetLastError(0xdeadbeef);
    ok = VerQueryValueA(block, "\\StringFileInfo\\040904E4\\FileVersion", &p, &len);
    printf("missing table: %d, length %u, last error %lu\n", ok, len, GetLastError());

    /* A buffer that holds only the start of the block gets no signature. */
    {
        BYTE small[16];
        memset(small, 0xcc, sizeof small);
        ok = GetFileVersionInfoA(self, 0, 8, small);
        printf("8-byte buffer: %d, wLength %u, byte 8 untouched: %s\n", ok,
               *(WORD *)small, small[8] == 0xcc ? "yes" : "no");
    }
    free(block);

    /* A file without a version resource, and a missing file. */
    {
        HANDLE f = CreateFileA("verinfo.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                               FILE_ATTRIBUTE_NORMAL, NULL);
        DWORD written;
        WriteFile(f, "no version here\r\n", 17, &written, NULL);
        CloseHandle(f);
    }
    handle = 0x55555555;
    SetLastError(0xdeadbeef);
    size = GetFileVersionInfoSizeA("verinfo.txt", &handle);
    printf("text file: size %lu, handle %lu, last error %lu\n", size, handle, GetLastError());
    DeleteFileA("verinfo.txt");
    handle = 0x55555555;
    SetLastError(0xdeadbeef);
    size = GetFileVersionInfoSizeA("no such file.dll", &handle);
    printf("missing file: size %lu, handle %lu, last error %lu\n", size, handle, GetLastError());
    {
        BYTE buf[64];
        SetLastError(0xdeadbeef);
        ok = GetFileVersionInfoA("no such file.dll", 0, sizeof buf, buf);
        printf("missing file, GetFileVersionInfoA: %d, last error %lu\n", ok, GetLastError());
    }
    return 0;
}
