/* What the start-up code of 1990s runtimes and games does before their main loop,
 * as the real programs of the compatibility corpus showed it (each block names the
 * program class that stopped there):
 *
 * - MSVC 5/6 static C runtime (every DirectX 7 SDK sample binary): the locale and
 *   code-page set-up, ending in WideCharToMultiByte with WC_COMPOSITECHECK;
 *   SetHandleCount from _ioinit.
 * - mingw-w64's C runtime: msvcrt!__lconv_init before main.
 * - Delphi's run time: GetKeyboardType, GetThreadLocale, GetLocaleInfoA, and
 *   LoadLibraryEx(LOAD_LIBRARY_AS_DATAFILE) of a language DLL that is not there.
 * - Games: FindResource/LoadResource/LockResource/SizeofResource for palettes and
 *   level data; EnumDisplaySettings/ChangeDisplaySettings to go full screen;
 *   CreateCursor for a blank pointer; the _lopen family; the priority class.
 *
 * Output is what Windows gives on an en-US system (cross-checked under Wine). */
#include <windows.h>
#include <stdio.h>
#include <string.h>

static void show_bytes(const char *what, const unsigned char *b, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %02x", b[i]);
    printf("\n");
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev; (void)cmd; (void)show;
    /* --- MSVC static CRT --- */
    printf("SetHandleCount(20) = %u\n", SetHandleCount(20));
    CPINFO cpi;
    BOOL ok = GetCPInfo(1252, &cpi);
    printf("GetCPInfo(1252) = %d, MaxCharSize %u\n", ok, cpi.MaxCharSize);
    WCHAR wide[256];
    unsigned char narrow[256];
    for (int i = 0; i < 256; i++)
        narrow[i] = (unsigned char)i;
    int n = MultiByteToWideChar(1252, MB_PRECOMPOSED, (LPCSTR)narrow + 1, 255, wide, 256);
    printf("MultiByteToWideChar = %d\n", n);
    WORD types[255];
    ok = GetStringTypeW(CT_CTYPE1, wide, 255, types);
    printf("GetStringTypeW = %d, types of 'A' %04x, '5' %04x, ' ' %04x, 0xE9 %04x\n", ok,
           types['A' - 1], types['5' - 1], types[' ' - 1], types[0xe9 - 1]);
    WCHAR upper[256];
    int m = LCMapStringW(0x409, LCMAP_UPPERCASE, wide, 255, upper, 256);
    printf("LCMapStringW = %d\n", m);
    unsigned char back[256];
    BOOL used = FALSE;
    int k = WideCharToMultiByte(1252, WC_COMPOSITECHECK | WC_SEPCHARS, upper, 255, (LPSTR)back,
                                256, NULL, &used);
    printf("WideCharToMultiByte(WC_COMPOSITECHECK) = %d, used default %d\n", k, used);
    for (int i = 0; i < 255; i++)
        if (back[i] == '?' && i + 1 != '?')
            printf("  byte %02x became the default character (upper case U+%04X)\n", i + 1,
                   upper[i]);
    show_bytes("upper a..e", back + 'a' - 1, 5);
    show_bytes("upper of e-acute, y-diaeresis", (unsigned char[]){back[0xe9 - 1], back[0xff - 1]}, 2);
    /* A base letter and a combining acute compose to one character. */
    WCHAR comp[3] = {'e', 0x0301, 'x'};
    unsigned char c2[4] = {0};
    k = WideCharToMultiByte(1252, WC_COMPOSITECHECK, comp, 3, (LPSTR)c2, 4, NULL, NULL);
    printf("e + combining acute: %d bytes", k);
    show_bytes("", c2, k);

    /* --- mingw-w64 CRT --- */
    int (__cdecl *lconv_init)(void) =
        (int (__cdecl *)(void))GetProcAddress(GetModuleHandleA("msvcrt.dll"), "__lconv_init");
    printf("__lconv_init found: %s, returns %d\n", lconv_init ? "yes" : "no",
           lconv_init ? lconv_init() : -1);

    /* --- Delphi --- */
    printf("GetKeyboardType: %d %d %d\n", GetKeyboardType(0), GetKeyboardType(1),
           GetKeyboardType(2));
    printf("GetThreadLocale = %04lx, GetUserDefaultLCID = %04lx\n", GetThreadLocale(),
           GetUserDefaultLCID());
    char buf[64];
    int len = GetLocaleInfoA(GetThreadLocale(), LOCALE_SABBREVLANGNAME, buf, sizeof buf);
    printf("LOCALE_SABBREVLANGNAME = %d \"%s\"\n", len, buf);
    len = GetLocaleInfoA(LOCALE_USER_DEFAULT, LOCALE_IDEFAULTANSICODEPAGE, buf, sizeof buf);
    printf("LOCALE_IDEFAULTANSICODEPAGE = %d \"%s\"\n", len, buf);
    len = GetLocaleInfoA(LOCALE_USER_DEFAULT, LOCALE_SDECIMAL, NULL, 0);
    printf("size of LOCALE_SDECIMAL = %d\n", len);
    len = GetLocaleInfoA(LOCALE_USER_DEFAULT, LOCALE_SMONTHNAME1, buf, sizeof buf);
    printf("LOCALE_SMONTHNAME1 = \"%s\"\n", buf);
    len = GetLocaleInfoA(LOCALE_USER_DEFAULT, LOCALE_SABBREVDAYNAME7, buf, sizeof buf);
    printf("LOCALE_SABBREVDAYNAME7 = \"%s\"\n", buf);
    DWORD num = 0;
    len = GetLocaleInfoA(LOCALE_USER_DEFAULT, LOCALE_IFIRSTDAYOFWEEK | LOCALE_RETURN_NUMBER,
                         (LPSTR)&num, sizeof num);
    printf("LOCALE_IFIRSTDAYOFWEEK as a number = %lu (%d)\n", num, len);
    SetLastError(0);
    HMODULE res = LoadLibraryExA("RTSTART.ENU", NULL, LOAD_LIBRARY_AS_DATAFILE);
    printf("LoadLibraryEx(RTSTART.ENU, DATAFILE) = %s, error %lu\n", res ? "loaded" : "NULL",
           GetLastError());

    /* --- resources --- */
    HRSRC r = FindResourceA(NULL, MAKEINTRESOURCE(101), RT_RCDATA);
    printf("FindResource(101, RT_RCDATA): %s\n", r ? "found" : "not found");
    if (r) {
        HGLOBAL g = LoadResource(NULL, r);
        const char *p = LockResource(g);
        printf("  size %lu, data \"%s\"\n", SizeofResource(NULL, r), p);
    }
    r = FindResourceA(inst, "LEVELDATA", RT_RCDATA);
    if (r)
        printf("FindResource(LEVELDATA): size %lu \"%s\"\n", SizeofResource(inst, r),
               (const char *)LockResource(LoadResource(inst, r)));
    r = FindResourceA(inst, "#7", "SOUNDFX");
    printf("FindResource(#7, SOUNDFX): %s\n", r ? (const char *)LockResource(LoadResource(inst, r)) : "not found");
    SetLastError(0);
    r = FindResourceA(inst, MAKEINTRESOURCE(999), RT_RCDATA);
    printf("FindResource(999): %s, error %lu\n", r ? "found" : "NULL", GetLastError());
    SetLastError(0);
    r = FindResourceA(inst, MAKEINTRESOURCE(1), "NOSUCHTYPE");
    printf("FindResource(type NOSUCHTYPE): %s, error %lu\n", r ? "found" : "NULL", GetLastError());

    /* --- display modes --- */
    DEVMODEA dm;
    memset(&dm, 0, sizeof dm);
    dm.dmSize = sizeof dm;
    int modes = 0, has640x480x16 = 0;
    while (EnumDisplaySettingsA(NULL, modes, &dm)) {
        if (dm.dmPelsWidth == 640 && dm.dmPelsHeight == 480 && dm.dmBitsPerPel == 16)
            has640x480x16 = 1;
        modes++;
    }
    printf("EnumDisplaySettings: modes listed %s, 640x480x16 among them: %s\n",
           modes > 0 ? "yes" : "no", has640x480x16 ? "yes" : "no");
    memset(&dm, 0, sizeof dm);
    dm.dmSize = sizeof dm;
    dm.dmFields = DM_PELSWIDTH | DM_PELSHEIGHT | DM_BITSPERPEL;
    dm.dmPelsWidth = 640;
    dm.dmPelsHeight = 480;
    dm.dmBitsPerPel = 16;
    printf("ChangeDisplaySettings(640x480x16, CDS_TEST) = %ld\n",
           ChangeDisplaySettingsA(&dm, CDS_TEST));
    dm.dmPelsWidth = 641;
    printf("ChangeDisplaySettings(641x480x16, CDS_TEST) = %ld\n",
           ChangeDisplaySettingsA(&dm, CDS_TEST));

    /* --- cursor, priority, _l* files --- */
    BYTE and_mask[32 * 4], xor_mask[32 * 4];
    memset(and_mask, 0xff, sizeof and_mask);
    memset(xor_mask, 0, sizeof xor_mask);
    HCURSOR blank = CreateCursor(inst, 0, 0, 32, 32, and_mask, xor_mask);
    printf("CreateCursor: %s, DestroyCursor: %d\n", blank ? "created" : "NULL",
           blank ? DestroyCursor(blank) : 0);
    printf("GetPriorityClass = %lx\n", GetPriorityClass(GetCurrentProcess()));
    printf("SetPriorityClass(HIGH) = %d\n",
           SetPriorityClass(GetCurrentProcess(), HIGH_PRIORITY_CLASS));
    printf("SetPriorityClass(0x12345) = %d\n", SetPriorityClass(GetCurrentProcess(), 0x12345));
    char self[MAX_PATH];
    GetModuleFileNameA(NULL, self, sizeof self);
    HFILE f = _lopen(self, OF_READ);
    char mz[3] = {0};
    UINT got = f != HFILE_ERROR ? _lread(f, mz, 2) : 0;
    LONG end = f != HFILE_ERROR ? _llseek(f, 0, 2) : -1;
    printf("_lopen(self): %s, _lread %u \"%s\", size positive %s, _lclose %d\n",
           f != HFILE_ERROR ? "open" : "failed", got, mz, end > 0 ? "yes" : "no",
           f != HFILE_ERROR ? _lclose(f) : -1);
    return 0;
}
