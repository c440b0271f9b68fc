/* The shell's browser object as Wine's Explorer drives it: CoCreateInstance of
 * CLSID_ExplorerBrowser, Initialize in the program's window, SetOptions and
 * GetOptions, Advise with an IExplorerBrowserEvents sink (every event printed),
 * BrowseToIDList of a folder the program makes, then its view (GetCurrentView,
 * IShellView::GetWindow and the list view inside it, its items sorted here), up
 * to the parent (SBSP_PARENT) and back (SBSP_NAVIGATEBACK); and what Explorer's
 * address bar asks of the namespace on each navigation: the desktop's ID list
 * from IPersistFolder2, SHBindToParent with GetDisplayNameOf
 * (SHGDN_FORADDRESSBAR) and StrRetToStrW, ILIsParent / ILIsEqual / ILCombine /
 * ILFindChild, and the system image list from SHGetImageList and SHGetFileInfo
 * (SHGFI_SYSICONINDEX).
 *
 * Paths differ between Wine and winterp, so only the last component of a
 * folder's path is printed, and how folders relate. */
#define COBJMACROS
#include <windows.h>
#include <commctrl.h>
#include <commoncontrols.h>
#include <shlobj.h>
#include <shobjidl.h>
#include <shlwapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* IID_IImageList {46EB5926-582E-4017-9FDF-E8998DAA0950} (not in mingw's libuuid). */
static const IID iid_image_list = {0x46eb5926, 0x582e, 0x4017,
                                   {0x9f, 0xdf, 0xe8, 0x99, 0x8d, 0xaa, 0x09, 0x50}};

static void print_wide(const WCHAR *s)
{
    for (; *s; s++)
        printf(*s < 0x80 ? "%c" : "<U+%04X>", *s);
}

static WCHAR cwd[MAX_PATH];

/* The last component of the path an ID list names, "(no path)", or "(the current
 * folder)". */
static void print_last(PCIDLIST_ABSOLUTE pidl)
{
    WCHAR path[MAX_PATH];
    WCHAR *p;
    if (!SHGetPathFromIDListW(pidl, path)) {
        printf("(no path)");
        return;
    }
    if (!lstrcmpiW(path, cwd)) {
        printf("(the current folder)");
        return;
    }
    p = wcsrchr(path, L'\\');
    print_wide(p && p[1] ? p + 1 : path);
}

static HRESULT STDMETHODCALLTYPE ev_qi(IExplorerBrowserEvents *This, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IExplorerBrowserEvents)) {
        *ppv = This;
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static LONG ev_refs = 1;

static ULONG STDMETHODCALLTYPE ev_addref(IExplorerBrowserEvents *This)
{
    (void)This;
    return ++ev_refs;
}

static ULONG STDMETHODCALLTYPE ev_release(IExplorerBrowserEvents *This)
{
    (void)This;
    return --ev_refs;
}

static HRESULT STDMETHODCALLTYPE ev_pending(IExplorerBrowserEvents *This, PCIDLIST_ABSOLUTE pidl)
{
    (void)This;
    printf("  OnNavigationPending ");
    print_last(pidl);
    printf("\n");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ev_view(IExplorerBrowserEvents *This, IShellView *psv)
{
    (void)This;
    printf("  OnViewCreated (view %s)\n", psv ? "given" : "NULL");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ev_complete(IExplorerBrowserEvents *This, PCIDLIST_ABSOLUTE pidl)
{
    (void)This;
    printf("  OnNavigationComplete ");
    print_last(pidl);
    printf("\n");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ev_failed(IExplorerBrowserEvents *This, PCIDLIST_ABSOLUTE pidl)
{
    (void)This;
    printf("  OnNavigationFailed ");
    print_last(pidl);
    printf("\n");
    return S_OK;
}

static IExplorerBrowserEventsVtbl ev_vtbl = {ev_qi,   ev_addref,  ev_release, ev_pending,
                                             ev_view, ev_complete, ev_failed};
static IExplorerBrowserEvents events = {&ev_vtbl};

static int by_name(const void *a, const void *b)
{
    return lstrcmpiW((const WCHAR *)a, (const WCHAR *)b);
}

/* The items of the browser's view: the list view in the view's window. */
static void show_view(IExplorerBrowser *eb)
{
    IShellView *sv = NULL;
    HWND win = NULL, list;
    static WCHAR names[32][64];
    int n, k;
    HRESULT hr = IExplorerBrowser_GetCurrentView(eb, &IID_IShellView, (void **)&sv);
    printf("GetCurrentView: %#lx\n", hr);
    if (FAILED(hr))
        return;
    IShellView_GetWindow(sv, &win);
    for (list = GetWindow(win, GW_CHILD); list; list = GetWindow(list, GW_HWNDNEXT)) {
        WCHAR cls[64];
        GetClassNameW(list, cls, 64);
        if (!lstrcmpW(cls, L"SysListView32"))
            break;
    }
    printf("view window has a list view: %d\n", list != NULL);
    n = (int)SendMessageW(list, LVM_GETITEMCOUNT, 0, 0);
    printf("items: %d\n", n);
    for (k = 0; k < n && k < 32; k++) {
        LVITEMW it;
        memset(&it, 0, sizeof it);
        it.iSubItem = 0;
        it.pszText = names[k];
        it.cchTextMax = 64;
        names[k][0] = 0;
        SendMessageW(list, LVM_GETITEMTEXTW, k, (LPARAM)&it);
    }
    qsort(names, n < 32 ? n : 32, sizeof names[0], by_name);
    for (k = 0; k < n && k < 32; k++) {
        printf("  ");
        print_wide(names[k]);
        printf("\n");
    }
    IShellView_Release(sv);
}

static void write_file(const char *name, int size)
{
    HANDLE f = CreateFileA(name, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    static char buf[4096];
    DWORD done;
    WriteFile(f, buf, size, &done, NULL);
    CloseHandle(f);
}

static void namespace_checks(PIDLIST_ABSOLUTE folder, PIDLIST_ABSOLUTE sub)
{
    IShellFolder *desktop, *parent;
    IPersistFolder2 *persist;
    PIDLIST_ABSOLUTE desktop_pidl = NULL, combined;
    PCUITEMID_CHILD last;
    STRRET sr;
    WCHAR *name;
    HRESULT hr;
    SHFILEINFOW info;
    DWORD_PTR list;
    IImageList *small = NULL;
    int count = 0;

    SHGetDesktopFolder(&desktop);
    hr = IShellFolder_QueryInterface(desktop, &IID_IPersistFolder2, (void **)&persist);
    printf("desktop IPersistFolder2: %#lx\n", hr);
    hr = IPersistFolder2_GetCurFolder(persist, &desktop_pidl);
    printf("GetCurFolder: %#lx, size %u\n", hr, ILGetSize(desktop_pidl));
    IPersistFolder2_Release(persist);
    hr = SHBindToParent(desktop_pidl, &IID_IShellFolder, (void **)&parent, &last);
    printf("SHBindToParent(desktop): %#lx, last is the list: %d\n", hr,
           (const void *)last == (const void *)desktop_pidl);
    hr = IShellFolder_GetDisplayNameOf(parent, last, SHGDN_FORADDRESSBAR, &sr);
    if (SUCCEEDED(hr))
        hr = StrRetToStrW(&sr, last, &name);
    printf("desktop for the address bar: %#lx \"", hr);
    if (SUCCEEDED(hr)) {
        print_wide(name);
        CoTaskMemFree(name);
    }
    printf("\"\n");
    IShellFolder_Release(parent);

    hr = SHBindToParent(sub, &IID_IShellFolder, (void **)&parent, &last);
    printf("SHBindToParent(sub): %#lx\n", hr);
    hr = IShellFolder_GetDisplayNameOf(parent, last, SHGDN_NORMAL, &sr);
    if (SUCCEEDED(hr))
        hr = StrRetToStrW(&sr, last, &name);
    printf("sub's name: %#lx \"", hr);
    if (SUCCEEDED(hr)) {
        print_wide(name);
        CoTaskMemFree(name);
    }
    printf("\"\n");
    IShellFolder_Release(parent);

    printf("ILIsParent(folder, sub, immediate): %d\n", ILIsParent(folder, sub, TRUE));
    printf("ILIsParent(desktop, sub): %d\n", ILIsParent(desktop_pidl, sub, FALSE));
    printf("ILIsParent(sub, folder): %d\n", ILIsParent(sub, folder, FALSE));
    printf("ILIsEqual(folder, folder): %d, (folder, sub): %d\n", ILIsEqual(folder, folder),
           ILIsEqual(folder, sub));
    combined = ILCombine(desktop_pidl, sub);
    printf("ILCombine(desktop, sub) equals sub: %d\n", ILIsEqual(combined, sub));
    printf("ILFindChild(desktop, sub) is sub: %d\n",
           (void *)ILFindChild(desktop_pidl, sub) == (void *)sub);
    printf("ILFindChild(sub, folder): %p\n", (void *)ILFindChild(sub, folder));
    ILFree(combined);

    hr = SHGetImageList(SHIL_SMALL, &iid_image_list, (void **)&small);
    printf("SHGetImageList(SHIL_SMALL): %#lx\n", hr);
    list = SHGetFileInfoW((LPCWSTR)sub, 0, &info, sizeof info,
                          SHGFI_PIDL | SHGFI_SYSICONINDEX | SHGFI_SMALLICON);
    printf("SHGetFileInfo gives the same list: %d\n", list == (DWORD_PTR)small);
    IImageList_GetImageCount(small, &count);
    printf("the icon is in the list: %d\n", info.iIcon >= 0 && info.iIcon < count);
    IImageList_Release(small);
    CoTaskMemFree(desktop_pidl);
    IShellFolder_Release(desktop);
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    return DefWindowProcW(h, m, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show_cmd)
{
    WNDCLASSW wc;
    HWND main;
    IExplorerBrowser *eb = NULL;
    FOLDERSETTINGS fs;
    RECT rc = {0, 0, 400, 300};
    WCHAR dir[MAX_PATH], sub_dir[MAX_PATH];
    PIDLIST_ABSOLUTE folder, sub;
    EXPLORER_BROWSER_OPTIONS options = 0;
    DWORD cookie = 0;
    HRESULT hr;
    (void)prev;
    (void)cmd;
    (void)show_cmd;
    OleInitialize(NULL);
    GetCurrentDirectoryW(MAX_PATH, cwd);
    CreateDirectoryA("browse", NULL);
    CreateDirectoryA("browse\\sub", NULL);
    write_file("browse\\a.zq1", 2000);
    write_file("browse\\b.zq2", 10);
    GetFullPathNameW(L"browse", MAX_PATH, dir, NULL);
    GetFullPathNameW(L"browse\\sub", MAX_PATH, sub_dir, NULL);
    folder = ILCreateFromPathW(dir);
    sub = ILCreateFromPathW(sub_dir);
    printf("ID lists: %d %d\n", folder != NULL, sub != NULL);
    namespace_checks(folder, sub);

    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = L"shellbrowse";
    RegisterClassW(&wc);
    main = CreateWindowW(L"shellbrowse", L"shellbrowse", WS_OVERLAPPEDWINDOW, 0, 0, 420, 340,
                         NULL, NULL, inst, NULL);
    hr = CoCreateInstance(&CLSID_ExplorerBrowser, NULL, CLSCTX_INPROC_SERVER,
                          &IID_IExplorerBrowser, (void **)&eb);
    printf("CoCreateInstance: %#lx\n", hr);
    if (FAILED(hr))
        return 1;
    fs.ViewMode = FVM_DETAILS;
    fs.fFlags = FWF_AUTOARRANGE;
    printf("Initialize: %#lx\n", IExplorerBrowser_Initialize(eb, main, &rc, &fs));
    printf("SetOptions: %#lx\n", IExplorerBrowser_SetOptions(eb, EBO_SHOWFRAMES));
    IExplorerBrowser_GetOptions(eb, &options);
    printf("options: %#x\n", options);
    printf("Advise: %#lx\n", IExplorerBrowser_Advise(eb, &events, &cookie));
    printf("BrowseToIDList(folder)\n");
    printf("-> %#lx\n", IExplorerBrowser_BrowseToIDList(eb, folder, SBSP_ABSOLUTE));
    show_view(eb);
    printf("BrowseToObject(NULL, SBSP_PARENT)\n");
    printf("-> %#lx\n", IExplorerBrowser_BrowseToObject(eb, NULL, SBSP_PARENT));
    printf("BrowseToObject(NULL, SBSP_NAVIGATEBACK)\n");
    printf("-> %#lx\n", IExplorerBrowser_BrowseToObject(eb, NULL, SBSP_NAVIGATEBACK));
    printf("Unadvise: %#lx\n", IExplorerBrowser_Unadvise(eb, cookie));
    printf("Destroy: %#lx\n", IExplorerBrowser_Destroy(eb));
    IExplorerBrowser_Release(eb);
    ILFree(folder);
    ILFree(sub);
    DestroyWindow(main);
    OleUninitialize();
    return 0;
}
