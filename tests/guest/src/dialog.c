/*
 * dialog: a modal dialog from a resource template (dialog.rc) and strings
 * from a STRINGTABLE.
 *
 * LoadStringA: a whole string, a truncated copy into a 6-byte buffer, an
 * undefined id in a block that exists and one in a block that does not (both
 * return 0). Then DialogBoxParamA runs the template: WM_INITDIALOG gets the
 * init parameter, reads the controls the template made (caption, static
 * text, the empty edit box, the checkbox), sets the edit text (counting the
 * EN_UPDATE/EN_CHANGE notifications the edit control sends for it), checks
 * the checkbox, round-trips an integer through SetDlgItemInt/GetDlgItemInt,
 * and posts WM_COMMAND(IDOK) to itself. That message arrives through the
 * dialog's own modal loop; the handler reads the controls again and calls
 * EndDialog(42), which is what DialogBoxParamA returns. Output on stdout.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>
#include "dialog.h"

static int counting, en_update, en_change;
static HWND dialog_hwnd;

static void show_text(HWND dlg, int id, const char *what)
{
    char buf[64];
    UINT n = GetDlgItemTextA(dlg, id, buf, sizeof buf);
    printf("  GetDlgItemTextA(%s) = %u \"%s\"\n", what, n, buf);
}

static INT_PTR CALLBACK dlgproc(HWND dlg, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_INITDIALOG: {
        char buf[64];
        dialog_hwnd = dlg;
        printf("WM_INITDIALOG lParam=0x%lx\n", (unsigned long)lp);
        GetWindowTextA(dlg, buf, sizeof buf);
        printf("  caption \"%s\"\n", buf);
        show_text(dlg, IDC_LABEL, "IDC_LABEL");
        show_text(dlg, IDC_NAME, "IDC_NAME");
        GetClassNameA(GetDlgItem(dlg, IDC_NAME), buf, sizeof buf);
        printf("  IDC_NAME class \"%s\"\n", buf);
        HWND ok = GetDlgItem(dlg, IDOK);
        printf("  GetDlgItem(IDOK): %s, GetDlgCtrlID = %d, parent is the dialog: %d\n", ok ? "found" : "NULL",
               GetDlgCtrlID(ok), GetParent(ok) == dlg);
        printf("  GetDlgItem(999): %s\n", GetDlgItem(dlg, 999) ? "found" : "NULL");

        counting = 1;
        BOOL set = SetDlgItemTextA(dlg, IDC_NAME, "typed text");
        counting = 0;
        printf("  SetDlgItemTextA(IDC_NAME) = %d, EN_UPDATE x%d, EN_CHANGE x%d\n", set, en_update, en_change);
        show_text(dlg, IDC_NAME, "IDC_NAME");

        printf("  IsDlgButtonChecked(IDC_REMEMBER) = %u\n", IsDlgButtonChecked(dlg, IDC_REMEMBER));
        CheckDlgButton(dlg, IDC_REMEMBER, BST_CHECKED);
        printf("  after CheckDlgButton: %u\n", IsDlgButtonChecked(dlg, IDC_REMEMBER));

        BOOL translated = FALSE;
        SetDlgItemInt(dlg, IDC_LABEL, (UINT)-42, TRUE);
        int v = (int)GetDlgItemInt(dlg, IDC_LABEL, &translated, TRUE);
        printf("  SetDlgItemInt(-42) then GetDlgItemInt = %d, translated %d\n", v, translated);
        show_text(dlg, IDC_LABEL, "IDC_LABEL");

        PostMessageA(dlg, WM_COMMAND, IDOK, 0);
        printf("  posted WM_COMMAND(IDOK)\n");
        /* TRUE: let the dialog manager give the first tab stop the focus. */
        return TRUE;
    }
    case WM_COMMAND:
        if (LOWORD(wp) == IDC_NAME) {
            if (counting && HIWORD(wp) == EN_UPDATE)
                en_update++;
            if (counting && HIWORD(wp) == EN_CHANGE)
                en_change++;
            return TRUE;
        }
        if (LOWORD(wp) == IDOK || LOWORD(wp) == IDCANCEL) {
            printf("WM_COMMAND %s code=%u lParam=0x%lx\n", LOWORD(wp) == IDOK ? "IDOK" : "IDCANCEL", HIWORD(wp),
                   (unsigned long)lp);
            show_text(dlg, IDC_NAME, "IDC_NAME");
            printf("  IsDlgButtonChecked(IDC_REMEMBER) = %u\n", IsDlgButtonChecked(dlg, IDC_REMEMBER));
            printf("  EndDialog(42) = %d\n", EndDialog(dlg, 42));
            return TRUE;
        }
        return FALSE;
    case WM_DESTROY:
        printf("WM_DESTROY\n");
        return FALSE;
    }
    return FALSE;
}

static void load(HINSTANCE inst, UINT id, const char *what, int size)
{
    char buf[64];
    memset(buf, '#', sizeof buf);
    int n = LoadStringA(inst, id, buf, size);
    /* What a failed call leaves in the buffer is not documented. */
    if (n > 0)
        printf("LoadStringA(%s, %d) = %d \"%s\"\n", what, size, n, buf);
    else
        printf("LoadStringA(%s, %d) = %d\n", what, size, n);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)cmdline;
    (void)show;
    setvbuf(stdout, NULL, _IONBF, 0);

    load(inst, IDS_GREETING, "IDS_GREETING", 64);
    load(inst, IDS_GREETING, "IDS_GREETING", 6);
    load(inst, IDS_SECOND, "IDS_SECOND", 64);
    load(inst, IDS_SECOND + 1, "IDS_SECOND+1", 64);
    load(inst, IDS_MISSING, "IDS_MISSING", 64);

    printf("DialogBoxParamA\n");
    INT_PTR r = DialogBoxParamA(inst, MAKEINTRESOURCEA(IDD_MAIN), NULL, dlgproc, 0x1234);
    printf("DialogBoxParamA returned %ld\n", (long)r);
    printf("the dialog window is gone: %d\n", dialog_hwnd && !IsWindow(dialog_hwnd));
    return 0;
}
