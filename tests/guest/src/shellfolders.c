/* SHELL32's everyday functions: CommandLineToArgvW on a set of command lines,
 * the special folders (SHGetFolderPathA/W, SHGetSpecialFolderPathA,
 * SHGetSpecialFolderLocation + SHGetPathFromIDListA and the ways to free an ID
 * list), ShellExecute(Ex)A and FindExecutableA on files without a handler, and
 * SHGetFileInfoA's names and attributes; the shell namespace: SHGetDesktopFolder,
 * IShellFolder's ParseDisplayName, BindToObject, EnumObjects (IEnumIDList's Next,
 * Reset, Skip), CompareIDs, GetAttributesOf and GetDisplayNameOf over a folder the
 * program makes.
 *
 * Folder paths differ between Windows versions and Wine, so only what every
 * Windows NT layout agrees on is printed: the result codes, the lower-cased
 * last component of each path, and how the folders relate (the Windows folder
 * is GetWindowsDirectory's, the desktop is in the profile ...). */
#define COBJMACROS
#include <windows.h>
#include <shlobj.h>
#include <shellapi.h>
#include <stdio.h>
#include <string.h>

static void print_wide(const WCHAR *s)
{
    for (; *s; s++)
        printf(*s < 0x80 ? "%c" : "<U+%04X>", *s);
}

/* The last component of a path, lower-cased (ASCII). */
static const char *last(const char *path)
{
    static char buf[MAX_PATH];
    const char *p = strrchr(path, '\\');
    int i;
    p = p ? p + 1 : path;
    for (i = 0; p[i] && i < MAX_PATH - 1; i++)
        buf[i] = (p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i];
    buf[i] = 0;
    return buf;
}

static void parent(char *path)
{
    char *p = strrchr(path, '\\');
    if (p)
        *p = 0;
}

static const WCHAR *const lines[] = {
    L"prog a b c",
    L"\"abc\" d e",
    L"prog a\\\\b d\"e f\"g h",
    L"prog a\\\\\\\"b c d",
    L"prog a\\\\\\\\\"b c\" d e",
    L"prog a\"b\"\" c d",
    L"\"a b\"c d",
    L"  lead x",
    L"prog \"\"",
    L"prog \"a\"\"\"b\"",
    L"prog \"\"\"\"",
    L"prog \"a\"\"b\" c",
    L"prog \"\"\"\"\"\" x",
    L"prog trail  ",
    L"\"C:\\a\\\" b",
    L"prog\tx",
    L"\"unterminated",
    L"prog \"open end",
    L"x\\\"y z",
};

static void command_lines(void)
{
    unsigned i;
    int n, j;
    WCHAR **argv;
    char name[MAX_PATH];

    printf("-- CommandLineToArgvW\n");
    for (i = 0; i < sizeof lines / sizeof *lines; i++) {
        argv = CommandLineToArgvW(lines[i], &n);
        printf("[");
        print_wide(lines[i]);
        printf("] %d:", n);
        for (j = 0; j < n; j++) {
            printf(" <");
            print_wide(argv[j]);
            printf(">");
        }
        printf("%s\n", argv[n] == NULL ? "" : " (no NULL after the last)");
        if (LocalFree(argv) != NULL)
            printf("LocalFree failed\n");
    }
    argv = CommandLineToArgvW(L"", &n);
    WideCharToMultiByte(CP_ACP, 0, argv[0], -1, name, sizeof name, NULL, NULL);
    printf("empty line: %d argument, %s\n", n, last(name));
    LocalFree(argv);
    SetLastError(0);
    argv = CommandLineToArgvW(L"a b", NULL);
    printf("no count: %p, last error %lu\n", (void *)argv, GetLastError());
}

static const struct {
    int csidl;
    const char *name;
} folders[] = {
    {CSIDL_DESKTOP, "DESKTOP"},
    {CSIDL_PROGRAMS, "PROGRAMS"},
    {CSIDL_FAVORITES, "FAVORITES"},
    {CSIDL_STARTUP, "STARTUP"},
    {CSIDL_RECENT, "RECENT"},
    {CSIDL_SENDTO, "SENDTO"},
    {CSIDL_STARTMENU, "STARTMENU"},
    {CSIDL_DESKTOPDIRECTORY, "DESKTOPDIRECTORY"},
    {CSIDL_FONTS, "FONTS"},
    {CSIDL_TEMPLATES, "TEMPLATES"},
    {CSIDL_COMMON_PROGRAMS, "COMMON_PROGRAMS"},
    {CSIDL_COMMON_STARTUP, "COMMON_STARTUP"},
    {CSIDL_HISTORY, "HISTORY"},
    {CSIDL_WINDOWS, "WINDOWS"},
    {CSIDL_PROGRAM_FILES, "PROGRAM_FILES"},
    {CSIDL_PROGRAM_FILES_COMMON, "PROGRAM_FILES_COMMON"},
    {CSIDL_ADMINTOOLS, "ADMINTOOLS"},
};

static void folder_paths(void)
{
    char path[MAX_PATH], other[MAX_PATH], windir[MAX_PATH], profile[MAX_PATH];
    WCHAR wpath[MAX_PATH];
    HRESULT hr;
    unsigned i;
    static const int invalid[] = {0x0f, 0x33, 0x41, CSIDL_DRIVES, CSIDL_BITBUCKET};

    printf("-- SHGetFolderPathA\n");
    for (i = 0; i < sizeof folders / sizeof *folders; i++) {
        strcpy(path, "untouched");
        hr = SHGetFolderPathA(NULL, folders[i].csidl, NULL, SHGFP_TYPE_CURRENT, path);
        printf("%-20s %08lx %s\n", folders[i].name, (unsigned long)hr, last(path));
    }

    GetWindowsDirectoryA(windir, sizeof windir);
    SHGetFolderPathA(NULL, CSIDL_WINDOWS, NULL, 0, path);
    printf("WINDOWS is GetWindowsDirectory: %d\n", lstrcmpiA(path, windir) == 0);
    GetSystemDirectoryA(other, sizeof other);
    SHGetFolderPathA(NULL, CSIDL_SYSTEM, NULL, 0, path);
    printf("SYSTEM is GetSystemDirectory: %d\n", lstrcmpiA(path, other) == 0);
    SHGetFolderPathA(NULL, CSIDL_FONTS, NULL, 0, path);
    parent(path);
    printf("FONTS is in the Windows folder: %d\n", lstrcmpiA(path, windir) == 0);
    SHGetFolderPathA(NULL, CSIDL_DESKTOP, NULL, 0, path);
    SHGetFolderPathA(NULL, CSIDL_DESKTOPDIRECTORY, NULL, 0, other);
    printf("DESKTOP is DESKTOPDIRECTORY: %d\n", lstrcmpiA(path, other) == 0);
    SHGetFolderPathA(NULL, CSIDL_PROFILE, NULL, 0, profile);
    parent(path);
    printf("the desktop is in PROFILE: %d\n", lstrcmpiA(path, profile) == 0);
    SHGetFolderPathA(NULL, CSIDL_APPDATA, NULL, 0, path);
    printf("APPDATA is under PROFILE: %d\n",
           strncmp(path, profile, strlen(profile)) == 0 && path[strlen(profile)] == '\\');
    SHGetFolderPathA(NULL, CSIDL_PERSONAL, NULL, 0, path);
    printf("PERSONAL is under PROFILE: %d\n",
           strncmp(path, profile, strlen(profile)) == 0 && path[strlen(profile)] == '\\');
    SHGetFolderPathA(NULL, CSIDL_PROGRAM_FILES_COMMON, NULL, 0, path);
    SHGetFolderPathA(NULL, CSIDL_PROGRAM_FILES, NULL, 0, other);
    parent(path);
    printf("Common Files is in Program Files: %d\n", lstrcmpiA(path, other) == 0);

    for (i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        strcpy(path, "untouched");
        hr = SHGetFolderPathA(NULL, invalid[i], NULL, 0, path);
        printf("csidl %#x: %08lx, path \"%s\"\n", invalid[i], (unsigned long)hr, path);
    }
    hr = SHGetFolderPathA(NULL, CSIDL_PERSONAL, NULL, 2, path);
    printf("dwFlags 2: %08lx\n", (unsigned long)hr);
    strcpy(path, "untouched");
    hr = SHGetFolderPathA(NULL, CSIDL_ALTSTARTUP, NULL, 0, path);
    printf("ALTSTARTUP: %08lx, path \"%s\"\n", (unsigned long)hr, path);
    hr = SHGetFolderPathA(NULL, CSIDL_WINDOWS, NULL, 0, NULL);
    printf("no buffer: %08lx\n", (unsigned long)hr);

    /* A folder Windows makes only when asked to. */
    wpath[0] = 0;
    hr = SHGetFolderPathW(NULL, CSIDL_CDBURN_AREA, NULL, 0, wpath);
    printf("CDBURN_AREA W: %08lx, path given: %d\n", (unsigned long)hr, wpath[0] != 0);
    strcpy(path, "untouched");
    hr = SHGetFolderPathA(NULL, CSIDL_CDBURN_AREA, NULL, 0, path);
    printf("CDBURN_AREA A: %08lx, path \"%s\"\n", (unsigned long)hr, path);
    hr = SHGetFolderPathA(NULL, CSIDL_CDBURN_AREA | CSIDL_FLAG_CREATE, NULL, 0, path);
    printf("CDBURN_AREA | CSIDL_FLAG_CREATE: %08lx, a folder: %d\n", (unsigned long)hr,
           (GetFileAttributesA(path) & FILE_ATTRIBUTE_DIRECTORY) != 0);
    hr = SHGetFolderPathA(NULL, CSIDL_CDBURN_AREA, NULL, 0, other);
    printf("CDBURN_AREA again: %08lx, same path: %d\n", (unsigned long)hr,
           strcmp(path, other) == 0);

    printf("-- SHGetSpecialFolderPathA\n");
    printf("FONTS: %d", SHGetSpecialFolderPathA(NULL, path, CSIDL_FONTS, FALSE));
    SHGetFolderPathA(NULL, CSIDL_FONTS, NULL, 0, other);
    printf(", same as SHGetFolderPath: %d\n", strcmp(path, other) == 0);
    printf("csidl 0xf: %d\n", SHGetSpecialFolderPathA(NULL, path, 0x0f, FALSE));
}

static void locations(void)
{
    static const int ids[] = {CSIDL_DESKTOP, CSIDL_DESKTOPDIRECTORY, CSIDL_FONTS, CSIDL_WINDOWS,
                              CSIDL_PROGRAM_FILES, CSIDL_APPDATA, CSIDL_STARTMENU};
    char path[MAX_PATH], other[MAX_PATH];
    LPITEMIDLIST pidl;
    IMalloc *malloc;
    HRESULT hr;
    unsigned i;
    BOOL ok;

    printf("-- SHGetSpecialFolderLocation\n");
    hr = SHGetMalloc(&malloc);
    printf("SHGetMalloc: %08lx\n", (unsigned long)hr);
    for (i = 0; i < sizeof ids / sizeof *ids; i++) {
        pidl = NULL;
        hr = SHGetSpecialFolderLocation(NULL, ids[i], &pidl);
        ok = SHGetPathFromIDListA(pidl, path);
        SHGetFolderPathA(NULL, ids[i], NULL, 0, other);
        printf("csidl %#x: %08lx, path %d, same as SHGetFolderPath: %d\n", ids[i],
               (unsigned long)hr, ok, strcmp(path, other) == 0);
        /* Every allocator the shell's lists may be freed with. */
        if (i % 3 == 0)
            ILFree(pidl);
        else if (i % 3 == 1)
            CoTaskMemFree(pidl);
        else
            malloc->lpVtbl->Free(malloc, pidl);
    }
    hr = SHGetSpecialFolderLocation(NULL, CSIDL_DRIVES, &pidl);
    strcpy(path, "untouched");
    ok = SHGetPathFromIDListA(pidl, path);
    printf("DRIVES: %08lx, a list: %d, path %d \"%s\"\n", (unsigned long)hr, pidl != NULL, ok,
           path);
    ILFree(pidl);
    pidl = (LPITEMIDLIST)1;
    hr = SHGetSpecialFolderLocation(NULL, 0x0f, &pidl);
    printf("csidl 0xf: %08lx, list %p\n", (unsigned long)hr, (void *)pidl);
    hr = SHGetSpecialFolderLocation(NULL, CSIDL_ALTSTARTUP, &pidl);
    printf("ALTSTARTUP: %08lx, list %p\n", (unsigned long)hr, (void *)pidl);
}

static void execute(void)
{
    SHELLEXECUTEINFOA sei;
    char self[MAX_PATH], result[MAX_PATH];
    HINSTANCE h;
    HANDLE f;
    BOOL ok;

    printf("-- ShellExecute\n");
    h = ShellExecuteA(NULL, "open", "C:\\nonexistent\\nofile.txt", NULL, NULL, SW_SHOWNORMAL);
    printf("missing file: %d (<= 32: %d)\n", (int)(INT_PTR)h, (INT_PTR)h <= 32);
    h = ShellExecuteA(NULL, NULL, "nofile.txt", NULL, NULL, SW_SHOWNORMAL);
    printf("missing file in this folder: %d\n", (int)(INT_PTR)h);

    f = CreateFileA("shellfolders.qqq", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    CloseHandle(f);
    h = ShellExecuteA(NULL, "open", "shellfolders.qqq", NULL, NULL, SW_SHOWNORMAL);
    printf("no association: %d\n", (int)(INT_PTR)h);

    memset(&sei, 0, sizeof sei);
    sei.cbSize = sizeof sei;
    sei.fMask = SEE_MASK_FLAG_NO_UI | SEE_MASK_NOCLOSEPROCESS;
    sei.lpFile = "C:\\nonexistent\\nofile.txt";
    sei.hProcess = (HANDLE)1;
    SetLastError(0);
    ok = ShellExecuteExA(&sei);
    printf("ShellExecuteExA missing: %d, last error %lu, hInstApp %d, hProcess %p\n", ok,
           GetLastError(), (int)(INT_PTR)sei.hInstApp, (void *)sei.hProcess);
    sei.lpFile = "shellfolders.qqq";
    ok = ShellExecuteExA(&sei);
    printf("ShellExecuteExA no association: %d, hInstApp %d\n", ok, (int)(INT_PTR)sei.hInstApp);

    strcpy(result, "untouched");
    h = FindExecutableA("shellfolders.qqq", NULL, result);
    printf("FindExecutableA no association: %d \"%s\"\n", (int)(INT_PTR)h, result);
    strcpy(result, "untouched");
    h = FindExecutableA("nofile.qqq", NULL, result);
    printf("FindExecutableA missing: %d \"%s\"\n", (int)(INT_PTR)h, result);
    GetModuleFileNameA(NULL, self, sizeof self);
    h = FindExecutableA(self, NULL, result);
    printf("FindExecutableA of a program: %d, itself: %d\n", (int)(INT_PTR)h,
           lstrcmpiA(self, result) == 0);
}

static void file_info(void)
{
    SHFILEINFOA fi;
    DWORD_PTR r;
    char windir[MAX_PATH];

    printf("-- SHGetFileInfoA\n");
    memset(&fi, 0, sizeof fi);
    r = SHGetFileInfoA("shellfolders.qqq", 0, &fi, sizeof fi, SHGFI_DISPLAYNAME | SHGFI_ATTRIBUTES);
    printf("file: %d \"%s\" %08lx\n", (int)r, fi.szDisplayName, fi.dwAttributes);
    GetWindowsDirectoryA(windir, sizeof windir);
    r = SHGetFileInfoA(windir, 0, &fi, sizeof fi, SHGFI_DISPLAYNAME | SHGFI_ATTRIBUTES);
    printf("folder: %d \"%s\" %08lx\n", (int)r, last(fi.szDisplayName), fi.dwAttributes);
    fi.dwAttributes = SFGAO_FOLDER | SFGAO_CANCOPY;
    r = SHGetFileInfoA(windir, 0, &fi, sizeof fi, SHGFI_ATTRIBUTES | SHGFI_ATTR_SPECIFIED);
    printf("asked attributes: %d %08lx\n", (int)r, fi.dwAttributes);
    r = SHGetFileInfoA("nofile.qqq", 0, &fi, sizeof fi, SHGFI_DISPLAYNAME);
    printf("missing: %d\n", (int)r);
    r = SHGetFileInfoA("C:\\nofile.qqq", FILE_ATTRIBUTE_NORMAL, &fi, sizeof fi,
                       SHGFI_DISPLAYNAME | SHGFI_USEFILEATTRIBUTES);
    printf("missing, by attributes: %d \"%s\"\n", (int)r, fi.szDisplayName);
    DeleteFileA("shellfolders.qqq");
}

/* IID_IShellFolder, spelled out (the program links no uuid library). */
static const GUID iid_shellfolder = {0x000214E6, 0, 0, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};

/* A STRRET as text, whichever form the folder chose; frees the string it owns. */
static void strret_text(STRRET *sr, LPCITEMIDLIST pidl, char *out, int n)
{
    out[0] = 0;
    if (sr->uType == STRRET_WSTR) {
        WideCharToMultiByte(CP_ACP, 0, sr->pOleStr, -1, out, n, NULL, NULL);
        CoTaskMemFree(sr->pOleStr);
    } else if (sr->uType == STRRET_CSTR) {
        lstrcpynA(out, sr->cStr, n);
    } else if (sr->uType == STRRET_OFFSET) {
        lstrcpynA(out, (const char *)pidl + sr->uOffset, n);
    }
}

static void name_of(IShellFolder *f, LPCITEMIDLIST pidl, DWORD flags, char *out, int n)
{
    STRRET sr;
    HRESULT hr = IShellFolder_GetDisplayNameOf(f, pidl, flags, &sr);
    if (FAILED(hr))
        snprintf(out, n, "(failed %08lx)", hr);
    else
        strret_text(&sr, pidl, out, n);
}

static void namespace(void)
{
    IShellFolder *desk = NULL, *folder = NULL;
    IEnumIDList *en = NULL;
    LPITEMIDLIST pidl = NULL, items[8], missing = NULL;
    WCHAR wpath[MAX_PATH], wmissing[MAX_PATH];
    char path[MAX_PATH], text[MAX_PATH];
    ULONG eaten = 0, got = 0, attrs;
    (void)eaten;
    HRESULT hr;
    HANDLE f;
    int n = 0;

    printf("-- the shell namespace\n");
    CreateDirectoryA("shns", NULL);
    CreateDirectoryA("shns\\sub", NULL);
    f = CreateFileA("shns\\b.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    CloseHandle(f);
    f = CreateFileA("shns\\A.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    CloseHandle(f);
    GetFullPathNameA("shns", MAX_PATH, path, NULL);
    MultiByteToWideChar(CP_ACP, 0, path, -1, wpath, MAX_PATH);

    hr = SHGetDesktopFolder(&desk);
    printf("SHGetDesktopFolder: %08lx\n", hr);
    if (FAILED(hr))
        return;
    attrs = SFGAO_FOLDER | SFGAO_FILESYSTEM;
    hr = IShellFolder_ParseDisplayName(desk, NULL, NULL, wpath, &eaten, &pidl, &attrs);
    /* The attributes asked for; a folder may set more (Wine sets them all). */
    printf("ParseDisplayName: %08lx, attributes %08lx\n", hr,
           attrs & (SFGAO_FOLDER | SFGAO_FILESYSTEM));
    lstrcpyW(wmissing, wpath);
    lstrcatW(wmissing, L"\\nothing-here");
    hr = IShellFolder_ParseDisplayName(desk, NULL, NULL, wmissing, NULL, &missing, NULL);
    printf("ParseDisplayName of a missing file: %08lx, list %s\n", hr, missing ? "set" : "NULL");
    name_of(desk, pidl, SHGDN_FORPARSING, text, sizeof text);
    printf("GetDisplayNameOf(FORPARSING) is the path: %d\n", lstrcmpiA(text, path) == 0);
    name_of(desk, pidl, SHGDN_INFOLDER, text, sizeof text);
    printf("GetDisplayNameOf(INFOLDER): \"%s\"\n", text);

    hr = IShellFolder_BindToObject(desk, pidl, NULL, &iid_shellfolder, (void **)&folder);
    printf("BindToObject: %08lx\n", hr);
    if (FAILED(hr))
        return;
    hr = IShellFolder_EnumObjects(folder, NULL, SHCONTF_FOLDERS | SHCONTF_NONFOLDERS, &en);
    printf("EnumObjects: %08lx\n", hr);
    if (FAILED(hr))
        return;
    while (n < 8 && IEnumIDList_Next(en, 1, &items[n], &got) == S_OK && got == 1)
        n++;
    hr = IEnumIDList_Next(en, 1, &items[7], &got);
    printf("items %d; Next past the end: %08lx, fetched %lu\n", n, hr, got);
    /* Sorted by CompareIDs on the name column. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            hr = IShellFolder_CompareIDs(folder, 0, items[j - 1], items[j]);
            if ((short)HRESULT_CODE(hr) <= 0)
                break;
            LPITEMIDLIST t = items[j];
            items[j] = items[j - 1];
            items[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        LPCITEMIDLIST one = items[i];
        attrs = SFGAO_FOLDER | SFGAO_FILESYSTEM;
        IShellFolder_GetAttributesOf(folder, 1, &one, &attrs);
        /* For parsing: the name with its extension, whatever Explorer's setting. */
        name_of(folder, one, SHGDN_INFOLDER | SHGDN_FORPARSING, text, sizeof text);
        printf("  \"%s\" attributes %08lx\n", text, attrs & (SFGAO_FOLDER | SFGAO_FILESYSTEM));
    }
    if (n > 0) {
        /* Nothing asked for (Winefile's get_path): the folder answers every
         * attribute it has. */
        LPCITEMIDLIST one = items[0];
        attrs = 0;
        IShellFolder_GetAttributesOf(folder, 1, &one, &attrs);
        printf("nothing asked for: attributes %08lx\n", attrs & (SFGAO_FOLDER | SFGAO_FILESYSTEM));
    }
    if (n >= 3) {
        hr = IShellFolder_CompareIDs(folder, 0, items[0], items[0]);
        printf("CompareIDs of an item with itself: %08lx\n", hr);
        hr = IEnumIDList_Reset(en);
        printf("Reset: %08lx\n", hr);
        hr = IEnumIDList_Skip(en, 2);
        printf("Skip(2): %08lx\n", hr);
        hr = IEnumIDList_Skip(en, 5);
        printf("Skip(5) with one left: %08lx\n", hr);
        /* More asked for than are left: the shell's enumerators answer S_OK with
         * what they fetched (Winefile stops at S_FALSE before reading the items),
         * then S_FALSE with none. */
        LPITEMIDLIST many[8];
        IEnumIDList_Reset(en);
        hr = IEnumIDList_Next(en, 8, many, &got);
        printf("Next(8) with 3 left: %08lx, fetched %lu\n", hr, got);
        for (ULONG i = 0; i < got && i < 8; i++)
            CoTaskMemFree(many[i]);
        hr = IEnumIDList_Next(en, 8, many, &got);
        printf("Next(8) with none left: %08lx, fetched %lu\n", hr, got);
    }
    for (int i = 0; i < n; i++)
        CoTaskMemFree(items[i]);
    IEnumIDList_Release(en);
    IShellFolder_Release(folder);
    CoTaskMemFree(pidl);
    IShellFolder_Release(desk);
    DeleteFileA("shns\\A.txt");
    DeleteFileA("shns\\b.txt");
    RemoveDirectoryA("shns\\sub");
    RemoveDirectoryA("shns");
}

/* A list ParseDisplayName made holds one item per level from the desktop down,
 * each the item its parent folder enumerates: walking it as Winefile does (copy
 * the first item, find it among the folder's children byte for byte, bind to it,
 * go on) reaches the folder, and the last level's name for parsing is the path. */
static void walk_levels(void)
{
    IShellFolder *folder, *child;
    LPITEMIDLIST pidl, p;
    WCHAR wpath[MAX_PATH];
    char path[MAX_PATH], text[MAX_PATH];
    ULONG eaten = 0;
    HRESULT hr;
    int levels = 0, found = 0;

    printf("-- a parsed list, level by level\n");
    CreateDirectoryA("shwalk", NULL);
    CreateDirectoryA("shwalk\\Inner", NULL);
    /* Spelled in another case than the folder's own name. */
    GetFullPathNameA("SHWALK\\inner", MAX_PATH, path, NULL);
    MultiByteToWideChar(CP_ACP, 0, path, -1, wpath, MAX_PATH);
    if (FAILED(SHGetDesktopFolder(&folder)))
        return;
    hr = IShellFolder_ParseDisplayName(folder, NULL, NULL, wpath, &eaten, &pidl, NULL);
    printf("ParseDisplayName: %08lx\n", hr);
    if (FAILED(hr))
        return;
    IShellFolder_AddRef(folder);
    text[0] = 0;
    for (p = pidl; p->mkid.cb; p = (LPITEMIDLIST)((BYTE *)p + p->mkid.cb)) {
        LPITEMIDLIST first = CoTaskMemAlloc(p->mkid.cb + 2), item;
        IEnumIDList *en;
        ULONG got;
        int hit = 0;
        levels++;
        memcpy(first, p, p->mkid.cb);
        *(USHORT *)((BYTE *)first + p->mkid.cb) = 0;
        if (SUCCEEDED(IShellFolder_EnumObjects(folder, NULL,
                SHCONTF_FOLDERS | SHCONTF_NONFOLDERS | SHCONTF_INCLUDEHIDDEN, &en))) {
            while (IEnumIDList_Next(en, 1, &item, &got) == S_OK && got == 1) {
                if (!hit && item->mkid.cb == p->mkid.cb && !memcmp(item, p, p->mkid.cb))
                    hit = 1;
                CoTaskMemFree(item);
            }
            IEnumIDList_Release(en);
        }
        found += hit;
        if (!((LPITEMIDLIST)((BYTE *)p + p->mkid.cb))->mkid.cb)
            name_of(folder, first, SHGDN_FORPARSING, text, sizeof text);
        hr = IShellFolder_BindToObject(folder, first, NULL, &iid_shellfolder, (void **)&child);
        CoTaskMemFree(first);
        IShellFolder_Release(folder);
        if (FAILED(hr)) {
            printf("BindToObject at level %d: %08lx\n", levels, hr);
            folder = NULL;
            break;
        }
        folder = child;
    }
    printf("levels found among their parent's children: %s\n",
           levels >= 3 && found == levels ? "all" : "not all");
    printf("the last level's name for parsing is the path: %d\n", lstrcmpiA(text, path) == 0);
    printf("it is spelled as the folder is: %s\n", strrchr(text, '\\') ? strrchr(text, '\\') + 1 : text);
    if (folder)
        IShellFolder_Release(folder);
    CoTaskMemFree(pidl);
    RemoveDirectoryA("shwalk\\Inner");
    RemoveDirectoryA("shwalk");
}

int main(void)
{
    command_lines();
    folder_paths();
    locations();
    execute();
    file_info();
    namespace();
    walk_levels();
    return 0;
}
