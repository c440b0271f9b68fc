/* Owner-drawn list boxes, as Winefile uses them: the parent's WM_MEASUREITEM
 * when an LBS_OWNERDRAWFIXED list is created and for each item added to an
 * LBS_OWNERDRAWVARIABLE one, WM_DRAWITEM for each visible item when the list
 * paints (selection state, item rectangles, item data), items without
 * LBS_HASSTRINGS kept as their data (LB_GETTEXT, LB_FINDSTRING), LB_SETITEMHEIGHT
 * and LB_GETITEMRECT, WM_COMPAREITEM for a sorted list without strings and
 * WM_DELETEITEM for LB_DELETESTRING, LB_RESETCONTENT and DestroyWindow.
 * Prints every message's fields; widths are printed relative to the list's
 * client width. */
#include <windows.h>
#include <stdio.h>

static HWND lists[4];
static const char *strings[] = {"one", "two"};
static int compares;

static int which(HWND h)
{
    for (int i = 0; i < 4; i++)
        if (lists[i] && lists[i] == h)
            return i;
    return -1;
}

static int client_width(HWND h)
{
    RECT r;
    GetClientRect(h, &r);
    return r.right;
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    switch (m) {
    case WM_MEASUREITEM: {
        MEASUREITEMSTRUCT *mi = (MEASUREITEMSTRUCT *)lp;
        /* With strings the data is a pointer to the string (Windows: the caller's,
         * Wine: its copy), printed as set or not. */
        printf("WM_MEASUREITEM wParam %u: type %u, id %u, item %d, width %u, height given %s, ",
               (unsigned)wp, mi->CtlType, mi->CtlID, (int)mi->itemID, mi->itemWidth,
               mi->itemHeight > 0 ? "> 0" : "0");
        if (mi->CtlID == 2)
            printf("data %s\n", mi->itemData ? "set" : "0");
        else
            printf("data %08lx\n", (unsigned long)mi->itemData);
        mi->itemHeight = mi->CtlID == 2 ? 20 + mi->itemID : 18;
        return TRUE;
    }
    case WM_DRAWITEM: {
        DRAWITEMSTRUCT *di = (DRAWITEMSTRUCT *)lp;
        printf("WM_DRAWITEM wParam %u: type %u, id %u, item %d, action %x, state %x, "
               "list %d, rect %ld,%ld-w%+ld,%ld, data %08lx\n",
               (unsigned)wp, di->CtlType, di->CtlID, (int)di->itemID, di->itemAction,
               di->itemState, which(di->hwndItem), di->rcItem.left, di->rcItem.top,
               di->rcItem.right - client_width(di->hwndItem), di->rcItem.bottom,
               (unsigned long)di->itemData);
        return TRUE;
    }
    case WM_DELETEITEM: {
        DELETEITEMSTRUCT *de = (DELETEITEMSTRUCT *)lp;
        printf("WM_DELETEITEM wParam %u: type %u, id %u, item %u, list %d, data %08lx\n",
               (unsigned)wp, de->CtlType, de->CtlID, de->itemID, which(de->hwndItem),
               (unsigned long)de->itemData);
        return TRUE;
    }
    case WM_COMPAREITEM: {
        COMPAREITEMSTRUCT *ci = (COMPAREITEMSTRUCT *)lp;
        compares++;
        if (compares == 1)
            printf("WM_COMPAREITEM wParam %u: type %u, id %u, list %d, item1 %d data %lu, "
                   "item2 %d data %lu\n",
                   (unsigned)wp, ci->CtlType, ci->CtlID, which(ci->hwndItem), (int)ci->itemID1,
                   (unsigned long)ci->itemData1, (int)ci->itemID2,
                   (unsigned long)ci->itemData2);
        return ci->itemData1 < ci->itemData2 ? -1 : ci->itemData1 > ci->itemData2;
    }
    }
    return DefWindowProcA(h, m, wp, lp);
}

static void item_rect(HWND list, int i)
{
    RECT r;
    LRESULT ok = SendMessageA(list, LB_GETITEMRECT, i, (LPARAM)&r);
    printf("LB_GETITEMRECT %d: %ld, %ld,%ld-w%+ld,%ld\n", i, (long)ok, r.left, r.top,
           r.right - client_width(list), r.bottom);
}

static void paint(HWND list)
{
    InvalidateRect(list, NULL, TRUE);
    UpdateWindow(list);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev, (void)cmd, (void)show;
    WNDCLASSA wc = {0};
    DWORD data = 0;
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "ownerdraw";
    wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    RegisterClassA(&wc);
    HWND top = CreateWindowA("ownerdraw", "owner-drawn lists", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                             0, 0, 400, 400, NULL, NULL, inst, NULL);
    UpdateWindow(top);

    printf("-- LBS_OWNERDRAWFIXED, items without strings\n");
    lists[1] = CreateWindowA("LISTBOX", "", WS_CHILD | WS_VISIBLE | LBS_OWNERDRAWFIXED |
                             LBS_NOTIFY | LBS_NOINTEGRALHEIGHT, 10, 10, 150, 100, top,
                             (HMENU)1, inst, NULL);
    for (DWORD d = 0x1111; d <= 0x3333; d += 0x1111)
        printf("LB_ADDSTRING %04lx: %ld\n", d, (long)SendMessageA(lists[1], LB_ADDSTRING, 0, d));
    printf("LB_GETTEXTLEN 1: %ld\n", (long)SendMessageA(lists[1], LB_GETTEXTLEN, 1, 0));
    LRESULT got = SendMessageA(lists[1], LB_GETTEXT, 1, (LPARAM)&data);
    printf("LB_GETTEXT 1: %ld, %08lx\n", (long)got, data);
    printf("LB_FINDSTRING 3333: %ld\n",
           (long)SendMessageA(lists[1], LB_FINDSTRING, (WPARAM)-1, 0x3333));
    printf("LB_GETITEMDATA 2: %lx\n", (long)SendMessageA(lists[1], LB_GETITEMDATA, 2, 0));
    printf("LB_GETITEMHEIGHT: %ld\n", (long)SendMessageA(lists[1], LB_GETITEMHEIGHT, 0, 0));
    item_rect(lists[1], 1);
    /* A visible list draws a selection change at once (ODA_SELECT). */
    printf("LB_SETCURSEL 1\n");
    SendMessageA(lists[1], LB_SETCURSEL, 1, 0);
    printf("paint\n");
    paint(lists[1]);
    printf("LB_SETCURSEL 2\n");
    SendMessageA(lists[1], LB_SETCURSEL, 2, 0);
    printf("LB_SETITEMHEIGHT 25: %ld\n",
           (long)SendMessageA(lists[1], LB_SETITEMHEIGHT, 0, MAKELPARAM(25, 0)));
    printf("LB_SETITEMHEIGHT 300: %ld\n",
           (long)SendMessageA(lists[1], LB_SETITEMHEIGHT, 0, MAKELPARAM(300, 0)));
    item_rect(lists[1], 2);
    printf("LB_DELETESTRING 0: %ld\n", (long)SendMessageA(lists[1], LB_DELETESTRING, 0, 0));
    printf("LB_RESETCONTENT: %ld\n", (long)SendMessageA(lists[1], LB_RESETCONTENT, 0, 0));
    SendMessageA(lists[1], LB_ADDSTRING, 0, 0x4444);
    SendMessageA(lists[1], LB_ADDSTRING, 0, 0);
    printf("DestroyWindow\n");
    DestroyWindow(lists[1]);
    lists[1] = NULL;

    printf("-- LBS_OWNERDRAWVARIABLE with strings\n");
    lists[2] = CreateWindowA("LISTBOX", "", WS_CHILD | WS_VISIBLE | LBS_OWNERDRAWVARIABLE |
                             LBS_HASSTRINGS | LBS_NOINTEGRALHEIGHT, 10, 120, 150, 100, top,
                             (HMENU)2, inst, NULL);
    for (int i = 0; i < 2; i++)
        printf("LB_ADDSTRING \"%s\": %ld\n", strings[i],
               (long)SendMessageA(lists[2], LB_ADDSTRING, 0, (LPARAM)strings[i]));
    printf("LB_GETITEMHEIGHT 1: %ld\n", (long)SendMessageA(lists[2], LB_GETITEMHEIGHT, 1, 0));
    item_rect(lists[2], 1);
    SendMessageA(lists[2], LB_SETITEMDATA, 1, 0x77);
    paint(lists[2]);
    printf("DestroyWindow\n");
    DestroyWindow(lists[2]);
    lists[2] = NULL;

    printf("-- LBS_OWNERDRAWFIXED | LBS_SORT without strings\n");
    lists[3] = CreateWindowA("LISTBOX", "", WS_CHILD | WS_VISIBLE | LBS_OWNERDRAWFIXED | LBS_SORT |
                             LBS_NOINTEGRALHEIGHT, 170, 10, 150, 100, top, (HMENU)3, inst, NULL);
    printf("LB_ADDSTRING 30: %ld\n", (long)SendMessageA(lists[3], LB_ADDSTRING, 0, 30));
    printf("LB_ADDSTRING 10: %ld\n", (long)SendMessageA(lists[3], LB_ADDSTRING, 0, 10));
    printf("LB_ADDSTRING 20: %ld\n", (long)SendMessageA(lists[3], LB_ADDSTRING, 0, 20));
    printf("order:");
    for (int i = 0; i < 3; i++)
        printf(" %ld", (long)SendMessageA(lists[3], LB_GETITEMDATA, i, 0));
    printf("\n");
    printf("DestroyWindow\n");
    DestroyWindow(lists[3]);
    lists[3] = NULL;
    DestroyWindow(top);
    return 0;
}
