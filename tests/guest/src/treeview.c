/* The tree view (SysTreeView32): insertion order (TVI_FIRST/LAST/SORT), navigation
 * (TVGN_*), indent, expansion with its notifications and the TVIS_EXPANDEDONCE
 * rule, a lazily filled item (cChildren 1), selection, item rectangles (relative
 * to the item height and indent), hit testing, sorting with a callback and
 * deletion, with every WM_NOTIFY the parent receives. */
#include <windows.h>
#include <commctrl.h>
#include <stdio.h>

static HWND tree;

static const char *code_name(int c)
{
    switch (c) {
    case TVN_SELCHANGINGW: return "TVN_SELCHANGINGW";
    case TVN_SELCHANGEDW: return "TVN_SELCHANGEDW";
    case TVN_ITEMEXPANDINGW: return "TVN_ITEMEXPANDINGW";
    case TVN_ITEMEXPANDEDW: return "TVN_ITEMEXPANDEDW";
    case TVN_DELETEITEMW: return "TVN_DELETEITEMW";
    case TVN_GETDISPINFOW: return "TVN_GETDISPINFOW";
    case TVN_SELCHANGINGA: return "TVN_SELCHANGINGA";
    case TVN_SELCHANGEDA: return "TVN_SELCHANGEDA";
    case TVN_ITEMEXPANDINGA: return "TVN_ITEMEXPANDINGA";
    case TVN_ITEMEXPANDEDA: return "TVN_ITEMEXPANDEDA";
    case TVN_DELETEITEMA: return "TVN_DELETEITEMA";
    }
    return NULL;
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_NOTIFY) {
        NMHDR *n = (NMHDR *)lp;
        const char *name = code_name((int)n->code);
        if (n->hwndFrom == tree && name) {
            NMTREEVIEWW *t = (NMTREEVIEWW *)lp;
            printf("  notify %s action %u old %ld new %ld", name, t->action,
                   t->itemOld.hItem ? (long)t->itemOld.lParam : -1L,
                   t->itemNew.hItem ? (long)t->itemNew.lParam : -1L);
            if (n->code == TVN_ITEMEXPANDINGW || n->code == TVN_ITEMEXPANDEDW)
                printf(" state %#x", t->itemNew.state & (TVIS_EXPANDED | TVIS_EXPANDEDONCE));
            printf("\n");
        }
        return 0;
    }
    return DefWindowProcW(h, m, wp, lp);
}

static HTREEITEM add(HTREEITEM parent, HTREEITEM after, const wchar_t *text, LPARAM param, int children)
{
    TVINSERTSTRUCTW is;
    memset(&is, 0, sizeof is);
    is.hParent = parent;
    is.hInsertAfter = after;
    is.item.mask = TVIF_TEXT | TVIF_PARAM | (children ? TVIF_CHILDREN : 0);
    is.item.pszText = (wchar_t *)text;
    is.item.lParam = param;
    is.item.cChildren = children;
    return (HTREEITEM)SendMessageW(tree, TVM_INSERTITEMW, 0, (LPARAM)&is);
}

static long param_of(HTREEITEM h)
{
    TVITEMW it;
    if (!h)
        return -1;
    memset(&it, 0, sizeof it);
    it.mask = TVIF_PARAM;
    it.hItem = h;
    SendMessageW(tree, TVM_GETITEMW, 0, (LPARAM)&it);
    return (long)it.lParam;
}

static HTREEITEM next(HTREEITEM h, UINT code)
{
    return (HTREEITEM)SendMessageW(tree, TVM_GETNEXTITEM, code, (LPARAM)h);
}

static void text_of(HTREEITEM h)
{
    char buf[64];
    TVITEMA it;
    memset(&it, 0, sizeof it);
    it.mask = TVIF_TEXT | TVIF_STATE;
    it.stateMask = 0xff;
    it.hItem = h;
    it.pszText = buf;
    it.cchTextMax = sizeof buf;
    buf[0] = 0;
    BOOL ok = (BOOL)SendMessageA(tree, TVM_GETITEMA, 0, (LPARAM)&it);
    printf("GETITEMA(%ld) -> %d text \"%s\" state %#x\n", param_of(h), ok, buf, it.state);
}

static int CALLBACK by_param_desc(LPARAM a, LPARAM b, LPARAM sort)
{
    printf("  compare %ld %ld (sort %ld)\n", (long)a, (long)b, (long)sort);
    return (int)(b - a);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSW wc;
    INITCOMMONCONTROLSEX icc = {sizeof icc, ICC_TREEVIEW_CLASSES};
    HWND main;
    HTREEITEM a, b, c, a0, a1, lazy, h;
    RECT r;
    int ih, indent;
    TVHITTESTINFO ht;
    TVSORTCB sort;
    (void)prev; (void)cmd; (void)show;

    InitCommonControlsEx(&icc);
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = L"TreeTest";
    RegisterClassW(&wc);
    main = CreateWindowW(L"TreeTest", L"tree", WS_OVERLAPPEDWINDOW, 0, 0, 400, 400, 0, 0, inst, 0);
    tree = CreateWindowW(WC_TREEVIEWW, L"", WS_CHILD | WS_VISIBLE | TVS_HASLINES | TVS_HASBUTTONS | TVS_LINESATROOT,
                         0, 0, 300, 200, main, (HMENU)7, inst, 0);
    printf("tree created: %s\n", tree ? "yes" : "no");
    if (!tree)
        return 1;
    ih = (int)SendMessageW(tree, TVM_GETITEMHEIGHT, 0, 0);
    printf("item height > 0: %s\n", ih > 0 ? "yes" : "no");

    a = add(TVI_ROOT, TVI_LAST, L"Alpha", 1, 0);
    c = add(TVI_ROOT, TVI_LAST, L"Gamma", 3, 0);
    b = add(TVI_ROOT, TVI_SORT, L"Beta", 2, 0);
    a1 = add(a, TVI_LAST, L"a1", 11, 0);
    a0 = add(a, TVI_FIRST, L"a0", 10, 0);
    lazy = add(c, TVI_LAST, L"lazy", 30, 1);
    printf("count %d\n", (int)SendMessageW(tree, TVM_GETCOUNT, 0, 0));
    printf("root %ld next %ld next %ld next %ld\n", param_of(next(0, TVGN_ROOT)), param_of(next(a, TVGN_NEXT)),
           param_of(next(b, TVGN_NEXT)), param_of(next(c, TVGN_NEXT)));
    printf("prev of Gamma %ld, child of Alpha %ld, next %ld, parent of a1 %ld, parent of Alpha %ld\n",
           param_of(next(c, TVGN_PREVIOUS)), param_of(next(a, TVGN_CHILD)), param_of(next(a0, TVGN_NEXT)),
           param_of(next(a1, TVGN_PARENT)), param_of(next(a, TVGN_PARENT)));
    printf("child of NULL %ld, caret %ld, first visible %ld, last visible %ld\n", param_of(next(0, TVGN_CHILD)),
           param_of(next(0, TVGN_CARET)), param_of(next(0, TVGN_FIRSTVISIBLE)), param_of(next(0, TVGN_LASTVISIBLE)));
    text_of(a);

    indent = (int)SendMessageW(tree, TVM_GETINDENT, 0, 0);
    printf("indent %d\n", indent);
    SendMessageW(tree, TVM_SETINDENT, 5, 0);
    printf("indent after 5: %d\n", (int)SendMessageW(tree, TVM_GETINDENT, 0, 0));
    SendMessageW(tree, TVM_SETINDENT, 30, 0);
    indent = (int)SendMessageW(tree, TVM_GETINDENT, 0, 0);
    printf("indent after 30: %d\n", indent);

    memcpy(&r, &a1, sizeof a1);
    printf("GETITEMRECT(a1) while collapsed -> %d\n", (int)SendMessageW(tree, TVM_GETITEMRECT, FALSE, (LPARAM)&r));
    printf("EXPAND(Alpha) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)a));
    printf("EXPAND(Alpha) again -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)a));
    printf("state of Alpha %#x\n", (unsigned)SendMessageW(tree, TVM_GETITEMSTATE, (WPARAM)a, 0xff));
    printf("COLLAPSE(Alpha) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_COLLAPSE, (LPARAM)a));
    printf("TOGGLE(Alpha) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_TOGGLE, (LPARAM)a));
    printf("EXPAND(Beta, no children) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)b));
    printf("EXPAND(Gamma) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)c));
    printf("EXPAND(lazy, cChildren 1) -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)lazy));
    printf("next visible of Alpha %ld, of a1 %ld, previous visible of Beta %ld, last visible %ld\n",
           param_of(next(a, TVGN_NEXTVISIBLE)), param_of(next(a1, TVGN_NEXTVISIBLE)),
           param_of(next(b, TVGN_PREVIOUSVISIBLE)), param_of(next(0, TVGN_LASTVISIBLE)));

    memcpy(&r, &a1, sizeof a1);
    printf("GETITEMRECT(a1) -> %d", (int)SendMessageW(tree, TVM_GETITEMRECT, FALSE, (LPARAM)&r));
    printf(" row: left %ld right %ld top-2*ih %ld bottom-top-ih %ld\n", r.left, r.right, r.top - 2 * ih,
           r.bottom - r.top - ih);
    memcpy(&r, &a1, sizeof a1);
    SendMessageW(tree, TVM_GETITEMRECT, TRUE, (LPARAM)&r);
    printf("  text: left/indent %ld top/ih %ld\n", r.left / indent, r.top / ih);
    memcpy(&r, &b, sizeof b);
    SendMessageW(tree, TVM_GETITEMRECT, TRUE, (LPARAM)&r);
    printf("  Beta text: left/indent %ld top/ih %ld\n", r.left / indent, r.top / ih);
    ht.pt.x = (r.left + r.right) / 2;
    ht.pt.y = (r.top + r.bottom) / 2;
    h = (HTREEITEM)SendMessageW(tree, TVM_HITTEST, 0, (LPARAM)&ht);
    printf("HITTEST(Beta's label) -> %ld flags %#x\n", param_of(h), ht.flags);
    ht.pt.x = r.right + 5;
    h = (HTREEITEM)SendMessageW(tree, TVM_HITTEST, 0, (LPARAM)&ht);
    printf("HITTEST(right of it) -> %ld flags %#x\n", param_of(h), ht.flags);
    ht.pt.x = 2;
    ht.pt.y = 150 + 190;
    h = (HTREEITEM)SendMessageW(tree, TVM_HITTEST, 0, (LPARAM)&ht);
    printf("HITTEST(below) -> %ld flags %#x\n", param_of(h), ht.flags);

    printf("SELECTITEM(a1) -> %d\n", (int)SendMessageW(tree, TVM_SELECTITEM, TVGN_CARET, (LPARAM)a1));
    printf("SELECTITEM(a1) again -> %d\n", (int)SendMessageW(tree, TVM_SELECTITEM, TVGN_CARET, (LPARAM)a1));
    text_of(a1);
    printf("COLLAPSE(Alpha) with a1 selected -> %d\n", (int)SendMessageW(tree, TVM_EXPAND, TVE_COLLAPSE, (LPARAM)a));
    printf("caret %ld\n", param_of(next(0, TVGN_CARET)));
    printf("SELECTITEM(lazy) -> %d\n", (int)SendMessageW(tree, TVM_SELECTITEM, TVGN_CARET, (LPARAM)lazy));

    sort.hParent = TVI_ROOT;
    sort.lpfnCompare = by_param_desc;
    sort.lParam = 99;
    printf("SORTCHILDRENCB(root) -> %d\n", (int)SendMessageW(tree, TVM_SORTCHILDRENCB, 0, (LPARAM)&sort));
    printf("roots now %ld %ld %ld\n", param_of(next(0, TVGN_ROOT)), param_of(next(next(0, TVGN_ROOT), TVGN_NEXT)),
           param_of(next(next(next(0, TVGN_ROOT), TVGN_NEXT), TVGN_NEXT)));
    printf("SORTCHILDREN(root) -> %d\n", (int)SendMessageW(tree, TVM_SORTCHILDREN, 0, (LPARAM)TVI_ROOT));
    printf("roots now %ld %ld %ld\n", param_of(next(0, TVGN_ROOT)), param_of(next(next(0, TVGN_ROOT), TVGN_NEXT)),
           param_of(next(next(next(0, TVGN_ROOT), TVGN_NEXT), TVGN_NEXT)));

    printf("DELETEITEM(Gamma) -> %d\n", (int)SendMessageW(tree, TVM_DELETEITEM, 0, (LPARAM)c));
    printf("count %d caret %ld\n", (int)SendMessageW(tree, TVM_GETCOUNT, 0, 0), param_of(next(0, TVGN_CARET)));
    printf("DELETEITEM(root) -> %d\n", (int)SendMessageW(tree, TVM_DELETEITEM, 0, (LPARAM)TVI_ROOT));
    printf("count %d\n", (int)SendMessageW(tree, TVM_GETCOUNT, 0, 0));
    DestroyWindow(main);
    return 0;
}
