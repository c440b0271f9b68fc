/* COMCTL32 5.8 views: a tab control, a header, a report-view list view and a
 * modeless property sheet of two in-memory pages, driven with the messages programs
 * send; prints the returned values, rectangles and the notifications the parents
 * receive. Sizes that depend on the font are printed relative to the font's text
 * height ("th"), a string's width ("text") or the header's height (report-view rows
 * are printed from its bottom), so the output does not depend on the fonts installed. */
#include <windows.h>
#include <commctrl.h>
#include <stdio.h>
#include <string.h>

static HWND main_w;
static HFONT font;
static int log_notify = 1;

static int text_w(const char *s)
{
    HDC dc = GetDC(main_w);
    HGDIOBJ old = SelectObject(dc, font);
    SIZE sz;
    GetTextExtentPoint32A(dc, s, strlen(s), &sz);
    SelectObject(dc, old);
    ReleaseDC(main_w, dc);
    return sz.cx;
}

static int text_h(void)
{
    HDC dc = GetDC(main_w);
    HGDIOBJ old = SelectObject(dc, font);
    TEXTMETRICA tm;
    GetTextMetricsA(dc, &tm);
    SelectObject(dc, old);
    ReleaseDC(main_w, dc);
    return tm.tmHeight;
}

static void show_rect(const char *what, BOOL ok, RECT r)
{
    printf("%s: %d (%ld,%ld)-(%ld,%ld)\n", what, ok, r.left, r.top, r.right, r.bottom);
}

static const char *code_name(int code)
{
    static char buf[32];
    switch (code) {
    case TCN_SELCHANGING: return "TCN_SELCHANGING";
    case TCN_SELCHANGE: return "TCN_SELCHANGE";
    case LVN_ITEMCHANGING: return "LVN_ITEMCHANGING";
    case LVN_ITEMCHANGED: return "LVN_ITEMCHANGED";
    case LVN_INSERTITEM: return "LVN_INSERTITEM";
    case LVN_DELETEITEM: return "LVN_DELETEITEM";
    case LVN_DELETEALLITEMS: return "LVN_DELETEALLITEMS";
    case LVN_COLUMNCLICK: return "LVN_COLUMNCLICK";
    case LVN_GETDISPINFOA: return "LVN_GETDISPINFOA";
    case LVN_GETDISPINFOW: return "LVN_GETDISPINFOW";
    case HDN_ITEMCHANGINGA: return "HDN_ITEMCHANGINGA";
    case HDN_ITEMCHANGEDA: return "HDN_ITEMCHANGEDA";
    case HDN_ITEMCHANGINGW: return "HDN_ITEMCHANGINGW";
    case HDN_ITEMCHANGEDW: return "HDN_ITEMCHANGEDW";
    case NM_CUSTOMDRAW: return NULL;
    case NM_SETFOCUS: return "NM_SETFOCUS";
    case NM_KILLFOCUS: return "NM_KILLFOCUS";
    }
    sprintf(buf, "code %d", code);
    return buf;
}

static LRESULT CALLBACK main_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_NOTIFY && log_notify) {
        NMHDR *n = (NMHDR *)lp;
        const char *name = code_name(n->code);
        if (!name)
            return 0;
        printf("  notify id %u %s", (unsigned)n->idFrom, name);
        if (n->code == LVN_ITEMCHANGING || n->code == LVN_ITEMCHANGED ||
            n->code == LVN_INSERTITEM || n->code == LVN_DELETEITEM) {
            NMLISTVIEW *v = (NMLISTVIEW *)lp;
            printf(" item %d sub %d new %#x old %#x changed %#x param %ld", v->iItem,
                   v->iSubItem, v->uNewState, v->uOldState, v->uChanged, (long)v->lParam);
        }
        if (n->code == LVN_GETDISPINFOA) {
            NMLVDISPINFOA *d = (NMLVDISPINFOA *)lp;
            printf(" item %d sub %d mask %#x max %d", d->item.iItem, d->item.iSubItem,
                   d->item.mask, d->item.cchTextMax);
            if (d->item.mask & LVIF_TEXT)
                sprintf(d->item.pszText, "cb%d.%d", d->item.iItem, d->item.iSubItem);
        }
        printf("\n");
        return 0;
    }
    return DefWindowProcA(h, m, wp, lp);
}

/* ---- tab control ------------------------------------------------------------ */

static void tab_test(void)
{
    HWND t = CreateWindowA(WC_TABCONTROLA, "", WS_CHILD | WS_VISIBLE | WS_CLIPSIBLINGS,
                           10, 10, 300, 200, main_w, (HMENU)100, NULL, NULL);
    TCITEMA it;
    RECT r;
    int i, th = text_h();
    long v1, v2;
    char buf[64];
    const char *names[] = { "General settings", "Advanced options", "X" };
    printf("tab: created %d\n", t != NULL);
    SendMessageA(t, WM_SETFONT, (WPARAM)font, 0);
    for (i = 0; i < 3; i++) {
        memset(&it, 0, sizeof it);
        it.mask = TCIF_TEXT | TCIF_PARAM;
        it.pszText = (char *)names[i];
        it.lParam = 100 + i;
        printf("tab: insert %d -> %ld\n", i, (long)SendMessageA(t, TCM_INSERTITEMA, i == 2 ? 1 : i, (LPARAM)&it));
    }
    printf("tab: count %ld cursel %ld\n", (long)SendMessageA(t, TCM_GETITEMCOUNT, 0, 0),
           (long)SendMessageA(t, TCM_GETCURSEL, 0, 0));
    for (i = 0; i < 3; i++) {
        memset(&it, 0, sizeof it);
        memset(buf, 0, sizeof buf);
        it.mask = TCIF_TEXT | TCIF_PARAM;
        it.pszText = buf;
        it.cchTextMax = sizeof buf;
        SendMessageA(t, TCM_GETITEMA, i, (LPARAM)&it);
        SetRectEmpty(&r);
        BOOL ok = SendMessageA(t, TCM_GETITEMRECT, i, (LPARAM)&r);
        /* Narrow items are widened to a minimum width; wide ones are text + padding. */
        char wbuf[32];
        if (r.right - r.left == text_w(buf) + 12)
            sprintf(wbuf, "text+12");
        else
            sprintf(wbuf, "%ld", r.right - r.left);
        printf("tab: item %d '%s' param %ld rect %d: left %s top %ld width %s h th%+ld\n", i, buf,
               (long)it.lParam, ok, i == 0 ? "2" : "after", r.top, wbuf, r.bottom - r.top - th);
    }
    v1 = SendMessageA(t, TCM_SETCURSEL, 1, 0);
    printf("tab: setcursel 1 -> %ld, cursel %ld\n", v1, (long)SendMessageA(t, TCM_GETCURSEL, 0, 0));
    v1 = SendMessageA(t, TCM_SETCURSEL, 5, 0);
    printf("tab: setcursel 5 -> %ld, cursel %ld\n", v1, (long)SendMessageA(t, TCM_GETCURSEL, 0, 0));
    SetRect(&r, 0, 0, 300, 200);
    SendMessageA(t, TCM_ADJUSTRECT, FALSE, (LPARAM)&r);
    RECT one;
    SendMessageA(t, TCM_GETITEMRECT, 0, (LPARAM)&one);
    printf("tab: adjust display (%ld,th%+ld)-(%ld,%ld)\n", r.left,
           r.top - (one.bottom - one.top) , r.right, r.bottom);
    SendMessageA(t, TCM_ADJUSTRECT, TRUE, (LPARAM)&r);
    printf("tab: adjust back (%ld,%ld)-(%ld,%ld)\n", r.left, r.top, r.right, r.bottom);
    {
        TCHITTESTINFO ht;
        ht.pt.x = one.left + 3;
        ht.pt.y = one.top + 3;
        ht.flags = 0;
        long hit = SendMessageA(t, TCM_HITTEST, 0, (LPARAM)&ht);
        printf("tab: hittest item0 -> %ld flags %#x\n", hit, ht.flags);
        ht.pt.x = 290;
        ht.pt.y = 150;
        hit = SendMessageA(t, TCM_HITTEST, 0, (LPARAM)&ht);
        printf("tab: hittest body -> %ld flags %#x\n", hit, ht.flags);
    }
    /* A click selects with TCN_SELCHANGING / TCN_SELCHANGE. */
    SendMessageA(t, WM_LBUTTONDOWN, MK_LBUTTON, MAKELPARAM(one.left + 3, one.top + 3));
    SendMessageA(t, WM_LBUTTONUP, 0, MAKELPARAM(one.left + 3, one.top + 3));
    printf("tab: after click cursel %ld\n", (long)SendMessageA(t, TCM_GETCURSEL, 0, 0));
    v1 = SendMessageA(t, TCM_DELETEITEM, 1, 0);
    v2 = SendMessageA(t, TCM_GETITEMCOUNT, 0, 0);
    printf("tab: delete 1 -> %ld count %ld cursel %ld\n", v1, v2, (long)SendMessageA(t, TCM_GETCURSEL, 0, 0));
    SendMessageA(t, TCM_SETITEMSIZE, 0, MAKELPARAM(80, 20));
    DestroyWindow(t);
    t = CreateWindowA(WC_TABCONTROLA, "", WS_CHILD | WS_VISIBLE | TCS_FIXEDWIDTH,
                      10, 10, 300, 200, main_w, (HMENU)101, NULL, NULL);
    SendMessageA(t, WM_SETFONT, (WPARAM)font, 0);
    v1 = SendMessageA(t, TCM_SETITEMSIZE, 0, MAKELPARAM(80, 20));
    printf("tab: fixed setitemsize -> old %ld x th%+ld\n", (long)LOWORD(v1), (long)HIWORD(v1) - th);
    for (i = 0; i < 2; i++) {
        memset(&it, 0, sizeof it);
        it.mask = TCIF_TEXT;
        it.pszText = (char *)names[i];
        SendMessageA(t, TCM_INSERTITEMA, i, (LPARAM)&it);
        SendMessageA(t, TCM_GETITEMRECT, i, (LPARAM)&r);
        show_rect("tab: fixed item", 1, r);
    }
    DestroyWindow(t);
    /* With an image list every item makes room for an icon, with or without one. */
    t = CreateWindowA(WC_TABCONTROLA, "", WS_CHILD | WS_VISIBLE, 10, 10, 300, 200, main_w, (HMENU)102, NULL, NULL);
    SendMessageA(t, WM_SETFONT, (WPARAM)font, 0);
    {
        HIMAGELIST il = ImageList_Create(16, 16, ILC_COLOR, 1, 1);
        SendMessageA(t, TCM_SETIMAGELIST, 0, (LPARAM)il);
        for (i = 0; i < 2; i++) {
            memset(&it, 0, sizeof it);
            it.mask = TCIF_TEXT | TCIF_IMAGE;
            it.pszText = (char *)names[i == 0 ? 0 : 1];
            it.iImage = i == 0 ? 0 : -1;
            SendMessageA(t, TCM_INSERTITEMA, i, (LPARAM)&it);
            SendMessageA(t, TCM_GETITEMRECT, i, (LPARAM)&r);
            printf("tab: icon item %d width text%+ld height %ld\n", i, r.right - r.left - text_w(names[i == 0 ? 0 : 1]),
                   r.bottom - r.top);
        }
        SetRect(&r, 0, 0, 300, 200);
        SendMessageA(t, TCM_ADJUSTRECT, FALSE, (LPARAM)&r);
        printf("tab: icon adjust top %ld\n", r.top);
        DestroyWindow(t);
        ImageList_Destroy(il);
    }
}

/* ---- header ---------------------------------------------------------------- */

static void header_test(void)
{
    HWND hd = CreateWindowA(WC_HEADERA, "", WS_CHILD | WS_VISIBLE | HDS_BUTTONS | HDS_HORZ,
                            0, 0, 300, 20, main_w, (HMENU)200, NULL, NULL);
    HDITEMA hi;
    RECT r;
    int i;
    long v1;
    char buf[32];
    SendMessageA(hd, WM_SETFONT, (WPARAM)font, 0);
    for (i = 0; i < 3; i++) {
        memset(&hi, 0, sizeof hi);
        hi.mask = HDI_TEXT | HDI_WIDTH | HDI_FORMAT | HDI_LPARAM;
        sprintf(buf, "Col%d", i);
        hi.pszText = buf;
        hi.cxy = 50 + 10 * i;
        hi.fmt = HDF_LEFT | HDF_STRING;
        hi.lParam = 7 + i;
        printf("header: insert -> %ld\n", (long)SendMessageA(hd, HDM_INSERTITEMA, i == 2 ? 0 : i, (LPARAM)&hi));
    }
    printf("header: count %ld\n", (long)SendMessageA(hd, HDM_GETITEMCOUNT, 0, 0));
    for (i = 0; i < 3; i++) {
        memset(&hi, 0, sizeof hi);
        hi.mask = HDI_TEXT | HDI_WIDTH | HDI_LPARAM | HDI_ORDER;
        hi.pszText = buf;
        hi.cchTextMax = sizeof buf;
        SendMessageA(hd, HDM_GETITEMA, i, (LPARAM)&hi);
        BOOL ok = SendMessageA(hd, HDM_GETITEMRECT, i, (LPARAM)&r);
        printf("header: item %d '%s' cxy %d param %ld order %d rect %d (%ld,%ld)-(%ld,%ld)\n", i, buf,
               hi.cxy, (long)hi.lParam, hi.iOrder, ok, r.left, r.top, r.right, r.bottom);
    }
    {
        HDLAYOUT lay;
        WINDOWPOS wp;
        SetRect(&r, 5, 6, 205, 106);
        lay.prc = &r;
        lay.pwpos = &wp;
        printf("header: layout -> %ld\n", (long)SendMessageA(hd, HDM_LAYOUT, 0, (LPARAM)&lay));
        printf("header: layout pos %d,%d size %d x th%+d, rest (%ld,th%+ld)-(%ld,%ld)\n", wp.x, wp.y, wp.cx,
               wp.cy - text_h(), r.left, r.top - text_h(), r.right, r.bottom);
    }
    memset(&hi, 0, sizeof hi);
    hi.mask = HDI_WIDTH;
    hi.cxy = 90;
    printf("header: setitem -> %ld\n", (long)SendMessageA(hd, HDM_SETITEMA, 1, (LPARAM)&hi));
    SendMessageA(hd, HDM_GETITEMRECT, 2, (LPARAM)&r);
    printf("header: item 2 now %ld..%ld\n", r.left, r.right);
    printf("header: ordertoindex 1 -> %ld\n", (long)SendMessageA(hd, HDM_ORDERTOINDEX, 1, 0));
    v1 = SendMessageA(hd, HDM_DELETEITEM, 0, 0);
    printf("header: delete 0 -> %ld count %ld\n", v1, (long)SendMessageA(hd, HDM_GETITEMCOUNT, 0, 0));
    DestroyWindow(hd);
}

/* ---- list view ------------------------------------------------------------- */

static int CALLBACK cmp(LPARAM a, LPARAM b, LPARAM sort)
{
    return sort ? (int)(b - a) : (int)(a - b);
}

static void lv_items(HWND lv, const char *what)
{
    int n = SendMessageA(lv, LVM_GETITEMCOUNT, 0, 0), i;
    char buf[32];
    printf("%s:", what);
    for (i = 0; i < n; i++) {
        LVITEMA it;
        memset(&it, 0, sizeof it);
        it.mask = LVIF_TEXT | LVIF_PARAM | LVIF_STATE;
        it.iItem = i;
        it.pszText = buf;
        it.cchTextMax = sizeof buf;
        it.stateMask = LVIS_SELECTED | LVIS_FOCUSED;
        SendMessageA(lv, LVM_GETITEMA, 0, (LPARAM)&it);
        printf(" [%s p%ld s%#x]", buf, (long)it.lParam, it.state);
    }
    printf("\n");
}

static void listview_test(void)
{
    HWND lv = CreateWindowA(WC_LISTVIEWA, "", WS_CHILD | WS_VISIBLE | LVS_REPORT | LVS_SHOWSELALWAYS,
                            0, 0, 300, 200, main_w, (HMENU)300, NULL, NULL);
    LVCOLUMNA c;
    LVITEMA it;
    RECT r;
    char buf[32];
    int i, th, hh;
    long v1, v2, v3;
    SendMessageA(lv, WM_SETFONT, (WPARAM)font, 0);
    th = text_h();
    GetWindowRect((HWND)SendMessageA(lv, LVM_GETHEADER, 0, 0), &r);
    hh = r.bottom - r.top;
    printf("lv: header %d\n", SendMessageA(lv, LVM_GETHEADER, 0, 0) != 0);
    for (i = 0; i < 3; i++) {
        memset(&c, 0, sizeof c);
        c.mask = LVCF_TEXT | LVCF_WIDTH | LVCF_SUBITEM;
        sprintf(buf, "Column %d", i);
        c.pszText = buf;
        c.cx = 80 + 10 * i;
        c.iSubItem = i;
        printf("lv: insertcolumn -> %ld\n", (long)SendMessageA(lv, LVM_INSERTCOLUMNA, i, (LPARAM)&c));
    }
    printf("lv: header items %ld, width 1 %ld\n",
           (long)SendMessageA((HWND)SendMessageA(lv, LVM_GETHEADER, 0, 0), HDM_GETITEMCOUNT, 0, 0),
           (long)SendMessageA(lv, LVM_GETCOLUMNWIDTH, 1, 0));
    v1 = SendMessageA(lv, LVM_SETCOLUMNWIDTH, 1, 120);
    printf("lv: setcolumnwidth -> %ld width %ld\n", v1, (long)SendMessageA(lv, LVM_GETCOLUMNWIDTH, 1, 0));
    memset(&c, 0, sizeof c);
    c.mask = LVCF_TEXT | LVCF_WIDTH | LVCF_FMT;
    c.pszText = buf;
    c.cchTextMax = sizeof buf;
    v1 = SendMessageA(lv, LVM_GETCOLUMNA, 2, (LPARAM)&c);
    printf("lv: getcolumn -> %ld '%s' cx %d fmt %d\n", v1, buf, c.cx, c.fmt);
    const char *names[] = { "delta", "alpha", "charlie", "bravo" };
    for (i = 0; i < 4; i++) {
        memset(&it, 0, sizeof it);
        it.mask = LVIF_TEXT | LVIF_PARAM;
        it.iItem = i;
        it.pszText = (char *)names[i];
        it.lParam = 10 * (4 - i);
        printf("lv: insertitem -> %ld\n", (long)SendMessageA(lv, LVM_INSERTITEMA, 0, (LPARAM)&it));
        it.mask = LVIF_TEXT;
        it.iSubItem = 1;
        sprintf(buf, "sub%d", i);
        it.pszText = buf;
        printf("lv: setitem sub -> %ld\n", (long)SendMessageA(lv, LVM_SETITEMA, 0, (LPARAM)&it));
    }
    memset(&it, 0, sizeof it);
    it.mask = LVIF_TEXT;
    it.iItem = 4;
    it.pszText = LPSTR_TEXTCALLBACKA;
    printf("lv: insert callback -> %ld\n", (long)SendMessageA(lv, LVM_INSERTITEMA, 0, (LPARAM)&it));
    it.iSubItem = 2;
    it.pszText = buf;
    it.cchTextMax = sizeof buf;
    buf[0] = 0;
    v1 = SendMessageA(lv, LVM_GETITEMTEXTA, 4, (LPARAM)&it);
    printf("lv: getitemtext -> %ld '%s'\n", v1, buf);
    it.iSubItem = 0;
    v1 = SendMessageA(lv, LVM_GETITEMTEXTA, 4, (LPARAM)&it);
    printf("lv: getitemtext -> %ld '%s'\n", v1, buf);
    SendMessageA(lv, LVM_DELETEITEM, 4, 0);
    lv_items(lv, "lv: items");
    for (i = 0; i < 2; i++) {
        r.left = LVIR_BOUNDS;
        BOOL ok = SendMessageA(lv, LVM_GETITEMRECT, i, (LPARAM)&r);
        printf("lv: itemrect %d bounds %d (%ld,header%+ld rows)-(%ld,h th%+ld)\n", i, ok, r.left,
               r.top - hh - i * (r.bottom - r.top), r.right, r.bottom - r.top - th);
        r.left = LVIR_LABEL;
        SendMessageA(lv, LVM_GETITEMRECT, i, (LPARAM)&r);
        printf("lv: itemrect %d label %ld..%ld\n", i, r.left, r.right);
        r.top = 1;
        r.left = LVIR_BOUNDS;
        SendMessageA(lv, LVM_GETSUBITEMRECT, i, (LPARAM)&r);
        printf("lv: subitemrect %d.1 %ld..%ld\n", i, r.left, r.right);
    }
    r.left = LVIR_BOUNDS;
    SendMessageA(lv, LVM_GETITEMRECT, 2, (LPARAM)&r);
    {
        LVHITTESTINFO ht;
        memset(&ht, 0, sizeof ht);
        ht.pt.x = 130;
        ht.pt.y = (r.top + r.bottom) / 2;
        v1 = SendMessageA(lv, LVM_SUBITEMHITTEST, 0, (LPARAM)&ht);
        printf("lv: subitemhittest -> %ld item %d sub %d flags %#x\n", v1, ht.iItem, ht.iSubItem, ht.flags);
        ht.pt.x = 10;
        v1 = SendMessageA(lv, LVM_HITTEST, 0, (LPARAM)&ht);
        printf("lv: hittest -> %ld flags %#x\n", v1, ht.flags);
        ht.pt.y = 190;
        v1 = SendMessageA(lv, LVM_HITTEST, 0, (LPARAM)&ht);
        printf("lv: hittest below -> %ld flags %#x\n", v1, ht.flags);
    }
    memset(&it, 0, sizeof it);
    it.stateMask = LVIS_SELECTED | LVIS_FOCUSED;
    it.state = LVIS_SELECTED | LVIS_FOCUSED;
    printf("lv: setitemstate 2 -> %ld\n", (long)SendMessageA(lv, LVM_SETITEMSTATE, 2, (LPARAM)&it));
    v1 = SendMessageA(lv, LVM_GETSELECTEDCOUNT, 0, 0);
    v2 = SendMessageA(lv, LVM_GETNEXTITEM, -1, LVNI_SELECTED);
    v3 = SendMessageA(lv, LVM_GETNEXTITEM, -1, LVNI_FOCUSED);
    printf("lv: selected %ld next sel %ld focused %ld state %#lx\n", v1, v2, v3,
           (long)SendMessageA(lv, LVM_GETITEMSTATE, 2, LVIS_SELECTED | LVIS_FOCUSED));
    {
        LVFINDINFOA fi;
        memset(&fi, 0, sizeof fi);
        fi.flags = LVFI_STRING;
        fi.psz = "charlie";
        printf("lv: finditem charlie -> %ld\n", (long)SendMessageA(lv, LVM_FINDITEMA, -1, (LPARAM)&fi));
        fi.flags = LVFI_PARTIAL | LVFI_STRING;
        fi.psz = "br";
        printf("lv: finditem br* -> %ld\n", (long)SendMessageA(lv, LVM_FINDITEMA, -1, (LPARAM)&fi));
        fi.flags = LVFI_PARAM;
        fi.lParam = 30;
        printf("lv: finditem param 30 -> %ld\n", (long)SendMessageA(lv, LVM_FINDITEMA, -1, (LPARAM)&fi));
    }
    printf("lv: sort -> %ld\n", (long)SendMessageA(lv, LVM_SORTITEMS, 0, (LPARAM)cmp));
    lv_items(lv, "lv: sorted");
    printf("lv: sort desc -> %ld\n", (long)SendMessageA(lv, LVM_SORTITEMS, 1, (LPARAM)cmp));
    lv_items(lv, "lv: sorted desc");
    printf("lv: topindex %ld countperpage th %s\n", (long)SendMessageA(lv, LVM_GETTOPINDEX, 0, 0),
           SendMessageA(lv, LVM_GETCOUNTPERPAGE, 0, 0) > 0 ? "positive" : "zero");
    printf("lv: stringwidth %s\n", SendMessageA(lv, LVM_GETSTRINGWIDTHA, 0, (LPARAM)"alpha") == text_w("alpha") ? "= text" : "differs");
    /* A click on the second row selects it alone. */
    r.left = LVIR_BOUNDS;
    SendMessageA(lv, LVM_GETITEMRECT, 1, (LPARAM)&r);
    printf("lv: click row 1\n");
    SendMessageA(lv, WM_LBUTTONDOWN, MK_LBUTTON, MAKELPARAM(20, (r.top + r.bottom) / 2));
    SendMessageA(lv, WM_LBUTTONUP, 0, MAKELPARAM(20, (r.top + r.bottom) / 2));
    lv_items(lv, "lv: after click");
    printf("lv: delete 0 -> %ld\n", (long)SendMessageA(lv, LVM_DELETEITEM, 0, 0));
    v1 = SendMessageA(lv, LVM_DELETEALLITEMS, 0, 0);
    printf("lv: deleteall -> %ld count %ld\n", v1, (long)SendMessageA(lv, LVM_GETITEMCOUNT, 0, 0));
    printf("lv: deletecolumn -> %ld\n", (long)SendMessageA(lv, LVM_DELETECOLUMN, 0, 0));
    v1 = SendMessageA(lv, LVM_SETEXTENDEDLISTVIEWSTYLE, 0, LVS_EX_FULLROWSELECT);
    printf("lv: extended %#lx\n", v1);
    printf("lv: extended now %#lx\n", (long)SendMessageA(lv, LVM_GETEXTENDEDLISTVIEWSTYLE, 0, 0));
    SetFocus(main_w);
    DestroyWindow(lv);
}

/* ---- list view geometry in the four views, with 16x16 and 32x32 image lists ---- */

static void views_test(void)
{
    static const DWORD views[] = { LVS_LIST, LVS_SMALLICON, LVS_ICON, LVS_REPORT };
    static const char *names[] = { "list", "smallicon", "icon", "report" };
    static const char *codes[] = { "bounds", "icon", "label", "select" };
    int v, k, code, tw = text_w("alpha"), th = text_h();
    for (v = 0; v < 4; v++) {
        HWND lv = CreateWindowA(WC_LISTVIEWA, "", WS_CHILD | WS_VISIBLE | views[v], 0, 0, 300, 200,
                                main_w, (HMENU)400, NULL, NULL);
        HIMAGELIST small = ImageList_Create(16, 16, ILC_COLOR, 1, 1);
        HIMAGELIST large = ImageList_Create(32, 32, ILC_COLOR, 1, 1);
        RECT hr;
        int hh;
        SendMessageA(lv, WM_SETFONT, (WPARAM)font, 0);
        SendMessageA(lv, LVM_SETIMAGELIST, LVSIL_SMALL, (LPARAM)small);
        SendMessageA(lv, LVM_SETIMAGELIST, LVSIL_NORMAL, (LPARAM)large);
        GetWindowRect((HWND)SendMessageA(lv, LVM_GETHEADER, 0, 0), &hr);
        hh = views[v] == LVS_REPORT ? hr.bottom - hr.top : 0;
        log_notify = 0;
        for (k = 0; k < 12; k++) {
            LVITEMA it;
            memset(&it, 0, sizeof it);
            it.mask = LVIF_TEXT;
            it.iItem = k;
            it.pszText = "alpha";
            SendMessageA(lv, LVM_INSERTITEMA, 0, (LPARAM)&it);
        }
        log_notify = 1;
        {
            long sp = SendMessageA(lv, LVM_GETITEMSPACING, views[v] == LVS_SMALLICON, 0);
            printf("%s: spacing %ld x %ld\n", names[v], (long)LOWORD(sp), (long)HIWORD(sp));
        }
        for (k = 0; k < 12; k += 5) {
            for (code = 0; code < 4; code++) {
                RECT r;
                r.left = code;
                SendMessageA(lv, LVM_GETITEMRECT, k, (LPARAM)&r);
                if (code == LVIR_LABEL && views[v] == LVS_ICON)
                    printf("%s: item %d label width text%+ld centred %d top %ld height th%+ld\n", names[v], k,
                           r.right - r.left - tw, (r.left + r.right) % 75 == 0 || (r.left + r.right) / 2 % 75 == 37,
                           r.top, r.bottom - r.top - th);
                else if (code == LVIR_LABEL && views[v] != LVS_REPORT)
                    printf("%s: item %d label (%ld,%ld) width text%+ld height %ld\n", names[v], k, r.left, r.top - hh,
                           r.right - r.left - tw, r.bottom - r.top);
                else if (code == LVIR_SELECTBOUNDS && views[v] == LVS_ICON) {
                    RECT l;
                    l.left = LVIR_LABEL;
                    SendMessageA(lv, LVM_GETITEMRECT, k, (LPARAM)&l);
                    printf("%s: item %d select left at label %d top %ld right at label %d\n", names[v], k,
                           r.left == l.left, r.top, r.right == l.right);
                } else if (code == LVIR_SELECTBOUNDS && views[v] != LVS_REPORT)
                    printf("%s: item %d select (%ld,%ld) width text%+ld\n", names[v], k, r.left, r.top - hh,
                           r.right - r.left - tw);
                else
                    printf("%s: item %d %s (%ld,%ld)-(%ld,%ld)\n", names[v], k, codes[code], r.left, r.top - hh,
                           r.right, r.bottom - hh);
            }
        }
        DestroyWindow(lv);
        ImageList_Destroy(small);
        ImageList_Destroy(large);
    }
}

/* ---- property sheet -------------------------------------------------------- */

static HWND sheet;

static INT_PTR CALLBACK page_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    (void)wp;
    int n = (int)GetWindowLongPtrA(h, GWLP_USERDATA);
    if (m == WM_INITDIALOG) {
        PROPSHEETPAGEA *p = (PROPSHEETPAGEA *)lp;
        SetWindowLongPtrA(h, GWLP_USERDATA, p->lParam);
        printf("  page %ld: WM_INITDIALOG parent is sheet's tab? %d sheet? %d\n", (long)p->lParam,
               GetParent(h) == (HWND)SendMessageA(GetParent(h), PSM_GETTABCONTROL, 0, 0),
               GetParent(h) == sheet || sheet == NULL);
        return TRUE;
    }
    if (m == WM_NOTIFY) {
        NMHDR *nh = (NMHDR *)lp;
        const char *name = NULL;
        switch (nh->code) {
        case PSN_SETACTIVE: name = "PSN_SETACTIVE"; break;
        case PSN_KILLACTIVE: name = "PSN_KILLACTIVE"; break;
        case PSN_APPLY: name = "PSN_APPLY"; break;
        case PSN_RESET: name = "PSN_RESET"; break;
        case PSN_QUERYCANCEL: name = "PSN_QUERYCANCEL"; break;
        }
        if (name) {
            printf("  page %d: %s id %u\n", n, name, (unsigned)nh->idFrom);
            SetWindowLongPtrA(h, DWLP_MSGRESULT, 0);
            return TRUE;
        }
    }
    return FALSE;
}

static int CALLBACK sheet_cb(HWND h, UINT m, LPARAM lp)
{
    (void)lp;
    printf("  sheet callback %u hwnd %s\n", m, h ? "set" : "null");
    return 0;
}

static UINT CALLBACK page_cb(HWND h, UINT m, PROPSHEETPAGEA *p)
{
    (void)h;
    printf("  page %ld callback %s\n", (long)p->lParam,
           m == PSPCB_CREATE ? "PSPCB_CREATE" : m == PSPCB_RELEASE ? "PSPCB_RELEASE" : "other");
    return 1;
}

/* An in-memory DLGTEMPLATE with one static control. */
static WORD *make_template(WORD *t, short cx, short cy, const char *text)
{
    WORD *p = t;
    DLGTEMPLATE *d = (DLGTEMPLATE *)p;
    d->style = WS_CHILD | DS_CONTROL;
    d->dwExtendedStyle = 0;
    d->cdit = 1;
    d->x = 0;
    d->y = 0;
    d->cx = cx;
    d->cy = cy;
    p = (WORD *)(d + 1);
    *p++ = 0; /* menu */
    *p++ = 0; /* class */
    *p++ = 0; /* title */
    if ((ULONG_PTR)p & 2)
        p++;
    DLGITEMTEMPLATE *i = (DLGITEMTEMPLATE *)p;
    i->style = WS_CHILD | WS_VISIBLE;
    i->dwExtendedStyle = 0;
    i->x = 5;
    i->y = 5;
    i->cx = 100;
    i->cy = 10;
    i->id = 1000;
    p = (WORD *)(i + 1);
    *p++ = 0xffff;
    *p++ = 0x0082;
    while (*text)
        *p++ = *text++;
    *p++ = 0;
    *p++ = 0;
    return t;
}

static void button_state(const char *what, int id)
{
    HWND b = GetDlgItem(sheet, id);
    printf("sheet: %s button %s\n", what, !b ? "absent" : !IsWindowVisible(b) ? "hidden" : IsWindowEnabled(b) ? "enabled" : "disabled");
}

static void propsheet_test(void)
{
    static WORD t1[64], t2[64];
    PROPSHEETPAGEA pg[2];
    PROPSHEETHEADERA hdr;
    int i;
    make_template(t1, 200, 100, "one");
    make_template(t2, 150, 120, "two");
    memset(pg, 0, sizeof pg);
    for (i = 0; i < 2; i++) {
        pg[i].dwSize = sizeof pg[i];
        pg[i].dwFlags = PSP_DLGINDIRECT | PSP_USETITLE | PSP_USECALLBACK;
        pg[i].pResource = (DLGTEMPLATE *)(i ? t2 : t1);
        pg[i].pfnDlgProc = page_proc;
        pg[i].pszTitle = i ? "Second" : "First";
        pg[i].lParam = i + 1;
        pg[i].pfnCallback = page_cb;
    }
    memset(&hdr, 0, sizeof hdr);
    hdr.dwSize = sizeof hdr;
    hdr.dwFlags = PSH_PROPSHEETPAGE | PSH_MODELESS | PSH_USECALLBACK | PSH_NOAPPLYNOW * 0;
    hdr.hwndParent = main_w;
    hdr.pszCaption = "Sheet";
    hdr.nPages = 2;
    hdr.ppsp = pg;
    hdr.pfnCallback = sheet_cb;
    printf("sheet: create\n");
    sheet = (HWND)PropertySheetA(&hdr);
    printf("sheet: created %d\n", sheet != NULL);
    if (!sheet)
        return;
    {
        char buf[64];
        GetWindowTextA(sheet, buf, sizeof buf);
        printf("sheet: title '%s' visible %d\n", buf, IsWindowVisible(sheet));
        GetClassNameA(sheet, buf, sizeof buf);
        printf("sheet: class '%s'\n", buf);
    }
    HWND tab = (HWND)SendMessageA(sheet, PSM_GETTABCONTROL, 0, 0);
    HWND page = (HWND)SendMessageA(sheet, PSM_GETCURRENTPAGEHWND, 0, 0);
    printf("sheet: tab %d id %#x count %ld", tab != NULL, GetDlgCtrlID(tab),
           (long)SendMessageA(tab, TCM_GETITEMCOUNT, 0, 0));
    printf(" cursel %ld\n", (long)SendMessageA(tab, TCM_GETCURSEL, 0, 0));
    printf("sheet: page %d parent is sheet %d, visible %d\n", page != NULL, GetParent(page) == sheet,
           IsWindowVisible(page));
    button_state("OK", IDOK);
    button_state("Cancel", IDCANCEL);
    button_state("Apply", 0x3021);
    button_state("Help", IDHELP);
    {
        RECT pr, tr;
        GetWindowRect(page, &pr);
        GetWindowRect(tab, &tr);
        MapWindowPoints(NULL, sheet, (POINT *)&pr, 2);
        MapWindowPoints(NULL, sheet, (POINT *)&tr, 2);
        printf("sheet: tab at %ld,%ld; page inside tab %d\n", tr.left, tr.top,
               pr.left > tr.left && pr.top > tr.top && pr.right < tr.right && pr.bottom < tr.bottom);
    }
    printf("sheet: PSM_CHANGED\n");
    SendMessageA(sheet, PSM_CHANGED, (WPARAM)page, 0);
    button_state("Apply", 0x3021);
    printf("sheet: PSM_SETCURSEL 1 -> ");
    fflush(stdout);
    printf("%ld\n", (long)SendMessageA(sheet, PSM_SETCURSEL, 1, 0));
    HWND page2 = (HWND)SendMessageA(sheet, PSM_GETCURRENTPAGEHWND, 0, 0);
    printf("sheet: page2 %d, page1 visible %d, page2 visible %d, cursel %ld\n", page2 != page,
           IsWindowVisible(page), IsWindowVisible(page2), (long)SendMessageA(tab, TCM_GETCURSEL, 0, 0));
    printf("sheet: PSM_SETTITLE\n");
    SendMessageA(sheet, PSM_SETTITLEA, 0, (LPARAM)"Other");
    {
        char buf[64];
        GetWindowTextA(sheet, buf, sizeof buf);
        printf("sheet: title '%s'\n", buf);
    }
    printf("sheet: apply\n");
    SendMessageA(sheet, PSM_PRESSBUTTON, PSBTN_APPLYNOW, 0);
    button_state("Apply", 0x3021);
    printf("sheet: OK\n");
    SendMessageA(sheet, PSM_PRESSBUTTON, PSBTN_OK, 0);
    printf("sheet: after OK current page %d window %d\n",
           SendMessageA(sheet, PSM_GETCURRENTPAGEHWND, 0, 0) != 0, IsWindow(sheet));
    DestroyWindow(sheet);
    printf("sheet: destroyed %d\n", !IsWindow(sheet));
}

/* ---- a modal wizard, driven by a thread timer ------------------------------ */

static INT_PTR CALLBACK wiz_page_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    int n = (int)GetWindowLongPtrA(h, GWLP_USERDATA);
    (void)wp;
    if (m == WM_INITDIALOG) {
        SetWindowLongPtrA(h, GWLP_USERDATA, ((PROPSHEETPAGEA *)lp)->lParam);
        printf("  wizard page %ld: WM_INITDIALOG\n", (long)((PROPSHEETPAGEA *)lp)->lParam);
        return TRUE;
    }
    if (m == WM_NOTIFY) {
        NMHDR *nh = (NMHDR *)lp;
        const char *name = NULL;
        switch (nh->code) {
        case PSN_SETACTIVE:
            name = "PSN_SETACTIVE";
            PostMessageA(GetParent(h), PSM_SETWIZBUTTONS, 0, n == 1 ? PSWIZB_NEXT : PSWIZB_BACK | PSWIZB_FINISH);
            break;
        case PSN_KILLACTIVE: name = "PSN_KILLACTIVE"; break;
        case PSN_WIZNEXT: name = "PSN_WIZNEXT"; break;
        case PSN_WIZBACK: name = "PSN_WIZBACK"; break;
        case PSN_WIZFINISH: name = "PSN_WIZFINISH"; break;
        case PSN_APPLY: name = "PSN_APPLY"; break;
        case PSN_RESET: name = "PSN_RESET"; break;
        }
        if (name) {
            printf("  wizard page %d: %s\n", n, name);
            SetWindowLongPtrA(h, DWLP_MSGRESULT, 0);
            return TRUE;
        }
    }
    return FALSE;
}

static void CALLBACK wiz_tick(HWND h, UINT m, UINT_PTR id, DWORD t)
{
    static int step;
    HWND s = GetActiveWindow();
    (void)h;
    (void)m;
    (void)t;
    step++;
    printf("wizard step %d: next %d finish %d back %d\n", step,
           IsWindowEnabled(GetDlgItem(s, 0x3024)) && IsWindowVisible(GetDlgItem(s, 0x3024)),
           IsWindowEnabled(GetDlgItem(s, 0x3025)) && IsWindowVisible(GetDlgItem(s, 0x3025)),
           IsWindowEnabled(GetDlgItem(s, 0x3023)));
    if (step == 1)
        SendMessageA(s, PSM_PRESSBUTTON, PSBTN_NEXT, 0);
    if (step == 2)
        SendMessageA(s, PSM_PRESSBUTTON, PSBTN_FINISH, 0);
    if (step == 2)
        KillTimer(NULL, id);
}

static void wizard_test(void)
{
    static WORD t1[64], t2[64];
    PROPSHEETPAGEA pg[2];
    PROPSHEETHEADERA hdr;
    int i;
    make_template(t1, 200, 100, "one");
    make_template(t2, 200, 100, "two");
    memset(pg, 0, sizeof pg);
    for (i = 0; i < 2; i++) {
        pg[i].dwSize = sizeof pg[i];
        pg[i].dwFlags = PSP_DLGINDIRECT;
        pg[i].pResource = (DLGTEMPLATE *)(i ? t2 : t1);
        pg[i].pfnDlgProc = wiz_page_proc;
        pg[i].lParam = i + 1;
    }
    memset(&hdr, 0, sizeof hdr);
    hdr.dwSize = sizeof hdr;
    hdr.dwFlags = PSH_PROPSHEETPAGE | PSH_WIZARD;
    hdr.hwndParent = main_w;
    hdr.pszCaption = "Wizard";
    hdr.nPages = 2;
    hdr.ppsp = pg;
    SetTimer(NULL, 0, 100, wiz_tick);
    printf("wizard: result %ld\n", (long)PropertySheetA(&hdr));
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    (void)prev;
    (void)cmd;
    (void)show;
    InitCommonControls();
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = main_proc;
    wc.hInstance = inst;
    wc.lpszClassName = "ComctlViews";
    wc.hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1);
    RegisterClassA(&wc);
    main_w = CreateWindowA("ComctlViews", "views", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0, 400, 300, NULL,
                           NULL, inst, NULL);
    font = (HFONT)GetStockObject(DEFAULT_GUI_FONT);
    tab_test();
    header_test();
    listview_test();
    views_test();
    propsheet_test();
    wizard_test();
    DestroyWindow(main_w);
    return 0;
}
