/* Common controls part 1: status bar, toolbar, rebar, progress bar and up-down
 * control created on a top-level window; prints what the messages programs send
 * return (parts, rectangles, texts, button states, band heights, positions) and
 * the WM_COMMAND/WM_NOTIFY messages the parent receives. */
#include <windows.h>
#include <commctrl.h>
#include <stdio.h>

static const int log_notify = 1;

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    /* NM_CUSTOMDRAW comes with painting, whose timing differs between systems. */
    if (m == WM_NOTIFY && log_notify && ((NMHDR *)lp)->code != (UINT)NM_CUSTOMDRAW) {
        NMHDR *n = (NMHDR *)lp;
        printf("  WM_NOTIFY id %u code %d\n", (unsigned)n->idFrom, (int)n->code);
    } else if (m == WM_COMMAND) {
        printf("  WM_COMMAND id %u code %u\n", LOWORD(wp), HIWORD(wp));
    }
    return DefWindowProcA(h, m, wp, lp);
}

static void rect(const char *what, RECT *r)
{
    printf("%s (%ld,%ld)-(%ld,%ld)\n", what, r->left, r->top, r->right, r->bottom);
}

static void winrect(const char *what, HWND parent, HWND h)
{
    RECT r;
    GetWindowRect(h, &r);
    MapWindowPoints(NULL, parent, (POINT *)&r, 2);
    rect(what, &r);
}

int WINAPI WinMain(HINSTANCE hi, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc = {0};
    HWND top, sb, tb, pb, ud, ed;
    RECT r;
    char buf[64];
    int parts[3] = {100, 200, -1}, got[4], i;
    LRESULT v;
    (void)prev; (void)cmd; (void)show;
    InitCommonControls();
    wc.lpfnWndProc = proc;
    wc.hInstance = hi;
    wc.lpszClassName = "ccbars";
    wc.hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1);
    RegisterClassA(&wc);
    top = CreateWindowA("ccbars", "bars", WS_POPUP | WS_VISIBLE, 0, 0, 400, 300, 0, 0, hi, 0);

    printf("status bar\n");
    sb = CreateStatusWindowA(WS_CHILD | WS_VISIBLE, "ready", top, 100);
    winrect(" window", top, sb);
    v = SendMessageA(sb, SB_GETTEXTLENGTHA, 0, 0);
    printf(" length %d type %d\n", LOWORD(v), HIWORD(v));
    printf(" setparts %d\n", (int)SendMessageA(sb, SB_SETPARTS, 3, (LPARAM)parts));
    memset(got, 0x55, sizeof got);
    v = SendMessageA(sb, SB_GETPARTS, 4, (LPARAM)got);
    printf(" getparts %d: %d %d %d\n", (int)v, got[0], got[1], got[2]);
    SendMessageA(sb, SB_GETBORDERS, 0, (LPARAM)got);
    printf(" borders %d %d %d\n", got[0], got[1], got[2]);
    for (i = 0; i < 3; i++) {
        SendMessageA(sb, SB_GETRECT, i, (LPARAM)&r);
        sprintf(buf, " part %d", i);
        rect(buf, &r);
    }
    SendMessageA(sb, SB_SETTEXTA, 1 | SBT_POPOUT, (LPARAM)"second");
    v = SendMessageA(sb, SB_GETTEXTA, 1, (LPARAM)buf);
    printf(" text 1 '%s' len %d type %#x\n", buf, LOWORD(v), HIWORD(v));
    v = SendMessageA(sb, SB_GETTEXTA, 0, (LPARAM)buf);
    printf(" text 0 '%s' len %d type %#x\n", buf, LOWORD(v), HIWORD(v));
    SendMessageA(sb, SB_SIMPLE, TRUE, 0);
    printf(" simple %d\n", (int)SendMessageA(sb, SB_ISSIMPLE, 0, 0));
    SendMessageA(sb, SB_GETRECT, 0, (LPARAM)&r);
    rect(" simple rect", &r);
    SendMessageA(sb, SB_SIMPLE, FALSE, 0);
    MoveWindow(top, 0, 0, 300, 200, TRUE);
    SendMessageA(sb, WM_SIZE, 0, 0);
    winrect(" after WM_SIZE", top, sb);
    SendMessageA(sb, SB_GETRECT, 2, (LPARAM)&r);
    rect(" part 2", &r);
    SendMessageA(sb, SB_SETMINHEIGHT, 40, 0);
    SendMessageA(sb, WM_SIZE, 0, 0);
    winrect(" min height 40", top, sb);
    DestroyWindow(sb);

    printf("toolbar\n");
    {
        TBBUTTON b[4] = {
            {STD_FILENEW, 201, TBSTATE_ENABLED, BTNS_BUTTON, {0}, 0, 0},
            {0, 0, TBSTATE_ENABLED, BTNS_SEP, {0}, 0, 0},
            {STD_FILEOPEN, 202, TBSTATE_ENABLED, BTNS_CHECK, {0}, 0, 0},
            {STD_FILESAVE, 203, 0, BTNS_BUTTON, {0}, 0, 0},
        };
        TBBUTTON q;
        tb = CreateToolbarEx(top, WS_CHILD | WS_VISIBLE | TBSTYLE_FLAT | TBSTYLE_TOOLTIPS, 300, 15,
                             HINST_COMMCTRL, IDB_STD_SMALL_COLOR, b, 4, 16, 16, 16, 16,
                             sizeof(TBBUTTON));
        winrect(" window", top, tb);
        printf(" count %d\n", (int)SendMessageA(tb, TB_BUTTONCOUNT, 0, 0));
        for (i = 0; i < 4; i++) {
            SendMessageA(tb, TB_GETITEMRECT, i, (LPARAM)&r);
            sprintf(buf, " item %d", i);
            rect(buf, &r);
        }
        SendMessageA(tb, TB_GETRECT, 202, (LPARAM)&r);
        rect(" rect of 202", &r);
        v = SendMessageA(tb, TB_GETBUTTONSIZE, 0, 0);
        printf(" button size %d x %d\n", LOWORD(v), HIWORD(v));
        printf(" index of 203: %d, of 999: %d\n", (int)SendMessageA(tb, TB_COMMANDTOINDEX, 203, 0),
               (int)SendMessageA(tb, TB_COMMANDTOINDEX, 999, 0));
        printf(" enabled 203: %d\n", (int)SendMessageA(tb, TB_ISBUTTONENABLED, 203, 0));
        SendMessageA(tb, TB_ENABLEBUTTON, 203, TRUE);
        printf(" enabled 203: %d\n", (int)SendMessageA(tb, TB_ISBUTTONENABLED, 203, 0));
        SendMessageA(tb, TB_CHECKBUTTON, 202, TRUE);
        printf(" checked 202: %d state %#x\n", (int)SendMessageA(tb, TB_ISBUTTONCHECKED, 202, 0),
               (int)SendMessageA(tb, TB_GETSTATE, 202, 0));
        SendMessageA(tb, TB_HIDEBUTTON, 201, TRUE);
        SendMessageA(tb, TB_GETITEMRECT, 2, (LPARAM)&r);
        rect(" item 2 with 201 hidden", &r);
        SendMessageA(tb, TB_HIDEBUTTON, 201, FALSE);
        SendMessageA(tb, TB_GETBUTTON, 2, (LPARAM)&q);
        printf(" button 2: bitmap %d command %d state %#x style %#x\n", q.iBitmap, q.idCommand,
               q.fsState, q.fsStyle);
        v = SendMessageA(tb, TB_DELETEBUTTON, 1, 0);
        printf(" delete 1: %d count %d\n", (int)v, (int)SendMessageA(tb, TB_BUTTONCOUNT, 0, 0));
        SendMessageA(tb, TB_GETITEMRECT, 1, (LPARAM)&r);
        rect(" item 1 after delete", &r);
        i = SendMessageA(tb, TB_ADDSTRINGA, 0, (LPARAM)"Go\0Stop\0");
        printf(" addstring %d\n", i);
        SendMessageA(tb, WM_LBUTTONDOWN, MK_LBUTTON, MAKELPARAM(10, 10));
        SendMessageA(tb, WM_LBUTTONUP, 0, MAKELPARAM(10, 10));
        SendMessageA(tb, TB_SETBUTTONSIZE, 0, MAKELPARAM(30, 28));
        SendMessageA(tb, TB_GETITEMRECT, 0, (LPARAM)&r);
        rect(" item 0 after setbuttonsize 30x28", &r);
        DestroyWindow(tb);
    }

    printf("progress\n");
    pb = CreateWindowA(PROGRESS_CLASSA, "", WS_CHILD | WS_VISIBLE, 10, 10, 200, 20, top, (HMENU)5, hi, 0);
    v = SendMessageA(pb, PBM_SETRANGE, 0, MAKELPARAM(0, 50));
    printf(" setrange old %d-%d\n", LOWORD(v), HIWORD(v));
    printf(" setpos old %d\n", (int)SendMessageA(pb, PBM_SETPOS, 20, 0));
    printf(" deltapos old %d\n", (int)SendMessageA(pb, PBM_DELTAPOS, 5, 0));
    printf(" setstep old %d\n", (int)SendMessageA(pb, PBM_SETSTEP, 15, 0));
    printf(" stepit old %d\n", (int)SendMessageA(pb, PBM_STEPIT, 0, 0));
    printf(" stepit old %d\n", (int)SendMessageA(pb, PBM_STEPIT, 0, 0));
    printf(" getpos %d\n", (int)SendMessageA(pb, PBM_GETPOS, 0, 0));
    v = SendMessageA(pb, PBM_SETPOS, 99, 0);
    printf(" setpos 99 old %d, now %d\n", (int)v, (int)SendMessageA(pb, PBM_GETPOS, 0, 0));

    printf("up-down\n");
    ed = CreateWindowA("EDIT", "", WS_CHILD | WS_VISIBLE | WS_BORDER, 10, 40, 60, 20, top, (HMENU)6, hi, 0);
    ud = CreateUpDownControl(WS_CHILD | WS_VISIBLE | UDS_ALIGNRIGHT | UDS_SETBUDDYINT, 0, 0, 0, 0, top, 7, hi,
                             ed, 10, 0, 3);
    winrect(" updown", top, ud);
    winrect(" buddy", top, ed);
    GetWindowTextA(ed, buf, sizeof buf);
    printf(" buddy text '%s' pos %d\n", buf, (int)(short)SendMessageA(ud, UDM_GETPOS, 0, 0));
    v = SendMessageA(ud, UDM_GETRANGE, 0, 0);
    printf(" range %d %d\n", (short)HIWORD(v), (short)LOWORD(v));
    SendMessageA(ud, UDM_SETPOS, 0, MAKELPARAM(7, 0));
    GetWindowTextA(ed, buf, sizeof buf);
    printf(" setpos 7: text '%s'\n", buf);
    SendMessageA(ud, UDM_SETPOS, 0, MAKELPARAM(70, 0));
    printf(" setpos 70: pos %d\n", (int)(short)SendMessageA(ud, UDM_GETPOS, 0, 0));
    DestroyWindow(top);
    return 0;
}
