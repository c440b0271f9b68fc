/* The extended combo box (ComboBoxEx32) as Explorer's address bar and WordPad's
 * font box use it: its child combo box and edit box, CBEM_INSERTITEMW with every
 * field (and the CBEN_INSERTITEM the parent hears), CBEM_GETITEMW, CBEM_SETITEMW
 * on an item and on the edit box's item (-1), the CB_ messages passed to the
 * combo box (count, selection, item data), CBEM_DELETEITEM with its
 * CBEN_DELETEITEM, and CB_RESETCONTENT, which (under Wine 8) notifies nothing. */
#include <windows.h>
#include <commctrl.h>
#include <stdio.h>

static HWND box;

static void print_wide(const WCHAR *s)
{
    for (; *s; s++)
        printf(*s < 0x80 ? "%c" : "<U+%04X>", *s);
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_NOTIFY) {
        NMHDR *n = (NMHDR *)lp;
        if (n->hwndFrom == box && (n->code == CBEN_INSERTITEM || n->code == CBEN_DELETEITEM)) {
            NMCOMBOBOXEXW *e = (NMCOMBOBOXEXW *)lp;
            printf("  notify %s lParam %ld\n",
                   n->code == CBEN_INSERTITEM ? "CBEN_INSERTITEM" : "CBEN_DELETEITEM",
                   (long)e->ceItem.lParam);
        }
        return 0;
    }
    return DefWindowProcW(h, m, wp, lp);
}

static LRESULT insert(int at, const WCHAR *text, int image, int indent, LPARAM param)
{
    COMBOBOXEXITEMW it;
    memset(&it, 0, sizeof it);
    it.mask = CBEIF_TEXT | CBEIF_IMAGE | CBEIF_SELECTEDIMAGE | CBEIF_INDENT | CBEIF_LPARAM;
    it.iItem = at;
    it.pszText = (WCHAR *)text;
    it.iImage = image;
    it.iSelectedImage = image + 1;
    it.iIndent = indent;
    it.lParam = param;
    return SendMessageW(box, CBEM_INSERTITEMW, 0, (LPARAM)&it);
}

static void show(int at)
{
    COMBOBOXEXITEMW it;
    WCHAR text[64];
    memset(&it, 0, sizeof it);
    it.mask = CBEIF_TEXT | CBEIF_IMAGE | CBEIF_SELECTEDIMAGE | CBEIF_INDENT | CBEIF_LPARAM;
    it.iItem = at;
    it.pszText = text;
    it.cchTextMax = 64;
    text[0] = 0;
    if (!SendMessageW(box, CBEM_GETITEMW, 0, (LPARAM)&it)) {
        printf("item %d: none\n", at);
        return;
    }
    printf("item %d: \"", at);
    print_wide(text);
    printf("\" image %d selected %d indent %d lParam %ld\n", it.iImage, it.iSelectedImage,
           it.iIndent, (long)it.lParam);
}

static void class_of(const char *what, HWND h)
{
    char name[64];
    name[0] = 0;
    GetClassNameA(h, name, sizeof name);
    printf("%s: %s\n", what, h ? name : "(none)");
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show_cmd)
{
    WNDCLASSW wc;
    INITCOMMONCONTROLSEX icc = {sizeof icc, ICC_USEREX_CLASSES};
    HWND main, combo, edit;
    WCHAR text[64];
    int k;
    (void)prev;
    (void)cmd;
    (void)show_cmd;
    InitCommonControlsEx(&icc);
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = L"comboex";
    RegisterClassW(&wc);
    main = CreateWindowW(L"comboex", L"comboex", WS_OVERLAPPEDWINDOW, 0, 0, 400, 300, NULL, NULL,
                         inst, NULL);
    box = CreateWindowW(WC_COMBOBOXEXW, L"", WS_CHILD | WS_VISIBLE | CBS_DROPDOWN, 10, 10, 200,
                        150, main, (HMENU)7, inst, NULL);
    printf("created: %d\n", box != NULL);
    combo = (HWND)SendMessageW(box, CBEM_GETCOMBOCONTROL, 0, 0);
    edit = (HWND)SendMessageW(box, CBEM_GETEDITCONTROL, 0, 0);
    class_of("combo control", combo);
    class_of("edit control", edit);
    printf("combo's parent is the box: %d\n", GetParent(combo) == box);
    printf("edit's parent is the combo: %d\n", GetParent(edit) == combo);

    printf("insert Desktop -> %ld\n", (long)insert(-1, L"Desktop", 3, 0, 100));
    printf("insert Computer -> %ld\n", (long)insert(-1, L"My Computer", 5, 1, 101));
    printf("insert C at 1 -> %ld\n", (long)insert(1, L"C:\\", 7, 2, 102));
    printf("count %ld\n", (long)SendMessageW(box, CB_GETCOUNT, 0, 0));
    for (k = 0; k < 4; k++)
        show(k);
    for (k = 0; k < 3; k++)
        printf("data %d: %ld\n", k, (long)SendMessageW(box, CB_GETITEMDATA, k, 0));

    {
        COMBOBOXEXITEMW it;
        memset(&it, 0, sizeof it);
        it.mask = CBEIF_TEXT | CBEIF_INDENT;
        it.iItem = 2;
        it.pszText = L"Computer";
        it.iIndent = 4;
        printf("set item 2 -> %ld\n", (long)SendMessageW(box, CBEM_SETITEMW, 0, (LPARAM)&it));
        show(2);
        it.mask = CBEIF_TEXT;
        it.iItem = -1;
        it.pszText = L"Where to";
        printf("set item -1 -> %ld\n", (long)SendMessageW(box, CBEM_SETITEMW, 0, (LPARAM)&it));
        text[0] = 0;
        GetWindowTextW(edit, text, 64);
        printf("edit text \"");
        print_wide(text);
        printf("\"\n");
    }

    printf("set cursel 1 -> %ld\n", (long)SendMessageW(box, CB_SETCURSEL, 1, 0));
    printf("cursel %ld\n", (long)SendMessageW(box, CB_GETCURSEL, 0, 0));
    printf("combo's cursel %ld count %ld\n", (long)SendMessageW(combo, CB_GETCURSEL, 0, 0),
           (long)SendMessageW(combo, CB_GETCOUNT, 0, 0));
    SendMessageW(box, CB_SETITEMDATA, 0, 555);
    printf("data 0: %ld\n", (long)SendMessageW(box, CB_GETITEMDATA, 0, 0));
    printf("delete 1 -> %ld\n", (long)SendMessageW(box, CBEM_DELETEITEM, 1, 0));
    printf("count %ld\n", (long)SendMessageW(box, CB_GETCOUNT, 0, 0));
    printf("reset\n");
    SendMessageW(box, CB_RESETCONTENT, 0, 0);
    printf("count %ld\n", (long)SendMessageW(box, CB_GETCOUNT, 0, 0));
    DestroyWindow(main);
    return 0;
}
