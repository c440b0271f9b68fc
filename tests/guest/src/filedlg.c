/* The Open and Save As common dialogs (GetOpenFileNameA, GetSaveFileNameA), driven
 * by a timer of their owner the way a user would: it finds the dialog, types into
 * the file name box and presses Open (IDOK), Cancel or the read-only check
 * box. Covers lpstrDefExt, the read-only box, a too small lpstrFile (FNERR_BUFFERTOOSMALL), several quoted names
 * with OFN_ALLOWMULTISELECT, going into a typed folder and OFN_FILEMUSTEXIST with a
 * file that exists there (last: later dialogs of Windows 2000 and Wine start in the
 * folder chosen last), Cancel, a bad lStructSize and GetFileTitleA; prints the
 * returned OPENFILENAME fields (paths relative to the starting folder), the
 * dialog's caption, owner and the controls Windows' and Wine's dialogs share.
 * With "unanswered" on the command line it only shows one Open dialog that
 * nobody answers (for the headless runner's Cancel). */
#include <windows.h>
#include <commdlg.h>
#include <dlgs.h>
#include <stdio.h>
#include <string.h>

static HWND main_wnd;
static char start[MAX_PATH];
static const char *caption;
static const char *const *actions;
static int next_action, seen, shown;

static void show_dialog(HWND box)
{
    char buf[256], cls[64];
    GetWindowTextA(box, buf, sizeof buf);
    GetClassNameA(box, cls, sizeof cls);
    printf("  dialog \"%s\" class %s, owner is main %d, main enabled %d\n", buf, cls,
           GetWindow(box, GW_OWNER) == main_wnd, IsWindowEnabled(main_wnd) != 0);
    GetClassNameA(GetDlgItem(box, cmb2), cls, sizeof cls);
    printf("  cmb2 class %s\n", cls);
    HWND types = GetDlgItem(box, cmb1);
    int n = (int)SendMessageA(types, CB_GETCOUNT, 0, 0);
    printf("  cmb1 %d types, selected %d:", n, (int)SendMessageA(types, CB_GETCURSEL, 0, 0));
    for (int i = 0; i < n; i++) {
        SendMessageA(types, CB_GETLBTEXT, i, (LPARAM)buf);
        printf(" \"%s\"", buf);
    }
    printf("\n");
    printf("  chx1 visible %d, pshHelp visible %d\n",
           IsWindowVisible(GetDlgItem(box, chx1)) != 0,
           IsWindowVisible(GetDlgItem(box, pshHelp)) != 0);
    GetDlgItemTextA(box, IDOK, buf, sizeof buf);
    printf("  IDOK \"%s\"", buf);
    GetDlgItemTextA(box, IDCANCEL, buf, sizeof buf);
    printf(", IDCANCEL \"%s\"\n", buf);
    fflush(stdout);
}

/* The file name box: edt1 in the dialogs of Windows 95 to 2000, cmb13 (a combo
 * box with an edit) in later ones and Wine's. */
static HWND name_box(HWND box)
{
    HWND h = GetDlgItem(box, edt1);
    return h ? h : GetDlgItem(box, cmb13);
}

static void CALLBACK on_timer(HWND hwnd, UINT msg, UINT_PTR id, DWORD now)
{
    (void)hwnd, (void)msg, (void)id, (void)now;
    if (!actions || !actions[next_action])
        return;
    HWND box = FindWindowA("#32770", caption);
    if (!box || !IsWindowVisible(box) || ++seen < 2)
        return;
    seen = 0;
    if (!shown) {
        show_dialog(box);
        shown = 1;
    }
    const char *a = actions[next_action++];
    if (!strcmp(a, "<cancel>")) {
        PostMessageA(box, WM_COMMAND, MAKEWPARAM(IDCANCEL, BN_CLICKED),
                     (LPARAM)GetDlgItem(box, IDCANCEL));
    } else if (!strcmp(a, "<read-only>")) {
        SendMessageA(GetDlgItem(box, chx1), BM_CLICK, 0, 0);
    } else {
        SetWindowTextA(name_box(box), a);
        PostMessageA(box, WM_COMMAND, MAKEWPARAM(IDOK, BN_CLICKED), (LPARAM)GetDlgItem(box, IDOK));
    }
}

/* A path with the starting folder shown as <start>. */
static const char *rel(const char *p)
{
    static char buf[2 * MAX_PATH];
    size_t n = strlen(start);
    if (!_strnicmp(p, start, n))
        snprintf(buf, sizeof buf, "<start>%s", p + n);
    else
        snprintf(buf, sizeof buf, "%s", p);
    return buf;
}

static void run(const char *what, BOOL save, OPENFILENAMEA *ofn, const char *const *script)
{
    char cwd[MAX_PATH];
    printf("-- %s\n", what);
    caption = ofn->lpstrTitle ? ofn->lpstrTitle : save ? "Save As" : "Open";
    actions = script;
    next_action = seen = shown = 0;
    BOOL ok = save ? GetSaveFileNameA(ofn) : GetOpenFileNameA(ofn);
    actions = NULL;
    DWORD err = CommDlgExtendedError();
    printf("returned %d, CommDlgExtendedError %lx\n", ok, err);
    if (ok) {
        printf("lpstrFile \"%s\"\n", rel(ofn->lpstrFile));
        size_t dir = strlen(start) + 1;
        printf("nFileOffset start+%d, nFileExtension start+%d, nFilterIndex %lu\n",
               (int)ofn->nFileOffset - (int)dir, ofn->nFileExtension ? (int)ofn->nFileExtension - (int)dir : -999,
               ofn->nFilterIndex);
        if (ofn->lpstrFileTitle)
            printf("lpstrFileTitle \"%s\"\n", ofn->lpstrFileTitle);
        printf("OFN_READONLY %d, OFN_EXTENSIONDIFFERENT %d\n", (ofn->Flags & OFN_READONLY) != 0,
               (ofn->Flags & OFN_EXTENSIONDIFFERENT) != 0);
    }
    GetCurrentDirectoryA(sizeof cwd, cwd);
    printf("current folder \"%s\"\n", rel(cwd));
    SetCurrentDirectoryA(start);
}

static void fresh(OPENFILENAMEA *ofn, char *file, DWORD cap)
{
    memset(ofn, 0, sizeof *ofn);
    ofn->lStructSize = sizeof *ofn;
    ofn->hwndOwner = main_wnd;
    ofn->lpstrFile = file;
    ofn->nMaxFile = cap;
    file[0] = 0;
}

static void touch(const char *name)
{
    HANDLE f = CreateFileA(name, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    CloseHandle(f);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev, (void)show;
    static const char filter[] = "Text files\0*.txt\0All files\0*.*\0";
    char file[MAX_PATH], title[64];
    OPENFILENAMEA ofn;
    WNDCLASSA wc = {0};
    wc.lpfnWndProc = DefWindowProcA;
    wc.hInstance = inst;
    wc.lpszClassName = "filedlg";
    RegisterClassA(&wc);
    main_wnd = CreateWindowA("filedlg", "file dialogs", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0,
                             300, 200, NULL, NULL, inst, NULL);
    SetTimer(main_wnd, 1, 50, on_timer);
    GetCurrentDirectoryA(sizeof start, start);
    if (strstr(cmd, "unanswered")) {
        /* Nobody answers: a headless run presses Cancel after a while. */
        fresh(&ofn, file, sizeof file);
        ofn.lpstrFilter = filter;
        run("Open: nobody answers", FALSE, &ofn, NULL);
        DestroyWindow(main_wnd);
        return 0;
    }
    CreateDirectoryA("fdsub", NULL);
    touch("fdsub\\c.txt");
    touch("a.txt");
    touch("b.txt");

    static const char *const new_name[] = {"newname", NULL};
    fresh(&ofn, file, sizeof file);
    ofn.lpstrFilter = filter;
    ofn.nFilterIndex = 2;
    ofn.lpstrDefExt = "txt";
    ofn.Flags = OFN_OVERWRITEPROMPT | OFN_HIDEREADONLY | OFN_NOCHANGEDIR | OFN_SHOWHELP;
    run("Save As: lpstrDefExt added", TRUE, &ofn, new_name);

    static const char *const read_only[] = {"<read-only>", "a.txt", NULL};
    fresh(&ofn, file, sizeof file);
    ofn.Flags = OFN_READONLY | OFN_NOCHANGEDIR;
    run("Open: the read-only box checked, then unchecked", FALSE, &ofn, read_only);

    static const char *const small[] = {"a.txt", NULL};
    fresh(&ofn, file, 5);
    ofn.Flags = OFN_HIDEREADONLY;
    run("Open: lpstrFile too small", FALSE, &ofn, small);
    printf("size needed: the path's length%+d\n", (int)*(WORD *)file - (int)strlen(start) - 6);

    static const char *const several[] = {"\"a.txt\" \"b.txt\"", NULL};
    fresh(&ofn, file, sizeof file);
    ofn.Flags = OFN_ALLOWMULTISELECT | OFN_EXPLORER | OFN_HIDEREADONLY | OFN_FILEMUSTEXIST;
    run("Open: two files with OFN_ALLOWMULTISELECT", FALSE, &ofn, several);
    if (file[0]) {
        const char *p = file + ofn.nFileOffset;
        printf("  the folder part is the start: %d\n", !_stricmp(file, start));
        for (; *p; p += strlen(p) + 1)
            printf("  name \"%s\"\n", p);
    }

    static const char *const cancel[] = {"<cancel>", NULL};
    fresh(&ofn, file, sizeof file);
    strcpy(file, "untouched");
    ofn.Flags = OFN_HIDEREADONLY;
    run("Open: Cancel", FALSE, &ofn, cancel);
    printf("lpstrFile \"%s\"\n", file);

    fresh(&ofn, file, sizeof file);
    ofn.lStructSize = 12;
    run("Open: a bad lStructSize", FALSE, &ofn, NULL);

    static const char *const into_folder[] = {"fdsub", "c.txt", NULL};
    fresh(&ofn, file, sizeof file);
    ofn.lpstrFilter = filter;
    ofn.nFilterIndex = 1;
    ofn.lpstrFileTitle = title;
    ofn.nMaxFileTitle = sizeof title;
    ofn.Flags = OFN_FILEMUSTEXIST | OFN_HIDEREADONLY;
    run("Open: a folder typed, then a file in it", FALSE, &ofn, into_folder);

    printf("-- GetFileTitleA\n");
    printf("%d", GetFileTitleA("C:\\some\\dir\\name.txt", title, sizeof title));
    printf(" \"%s\"\n", title);
    printf("too small: %d\n", GetFileTitleA("C:\\some\\dir\\name.txt", title, 4));

    DeleteFileA("fdsub\\c.txt");
    RemoveDirectoryA("fdsub");
    DeleteFileA("a.txt");
    DeleteFileA("b.txt");
    DestroyWindow(main_wnd);
    return 0;
}
