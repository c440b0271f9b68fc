/* A Control Panel applet DLL (built by build.sh into bin/cpltest.cpl) for the
 * cplrun test: two applets; CPlApplet prints every message it receives. Applet 0
 * names its strings and icon by resource id in CPL_INQUIRE; applet 1 answers
 * CPL_DYNAMIC_RES so the Control Panel asks again with CPL_NEWINQUIRE. */
#include <windows.h>
#include <cpl.h>
#include <stdio.h>

static const char *name(UINT m)
{
    switch (m) {
    case CPL_INIT: return "CPL_INIT";
    case CPL_GETCOUNT: return "CPL_GETCOUNT";
    case CPL_INQUIRE: return "CPL_INQUIRE";
    case CPL_SELECT: return "CPL_SELECT";
    case CPL_DBLCLK: return "CPL_DBLCLK";
    case CPL_STOP: return "CPL_STOP";
    case CPL_EXIT: return "CPL_EXIT";
    case CPL_NEWINQUIRE: return "CPL_NEWINQUIRE";
    case CPL_STARTWPARMSA: return "CPL_STARTWPARMSA";
    case CPL_STARTWPARMSW: return "CPL_STARTWPARMSW";
    }
    return "?";
}

LONG APIENTRY CPlApplet(HWND hwnd, UINT msg, LPARAM l1, LPARAM l2)
{
    (void)hwnd;
    printf("  %s(%d)", name(msg), (int)l1);
    switch (msg) {
    case CPL_INIT:
        printf("\n");
        fflush(stdout);
        return 1;
    case CPL_GETCOUNT:
        printf(" -> 2\n");
        fflush(stdout);
        return 2;
    case CPL_INQUIRE: {
        CPLINFO *ci = (CPLINFO *)l2;
        if (l1 == 0) {
            ci->idIcon = 1;
            ci->idName = 10;
            ci->idInfo = 11;
            ci->lData = 0x1234;
        } else {
            ci->idIcon = CPL_DYNAMIC_RES;
            ci->idName = CPL_DYNAMIC_RES;
            ci->idInfo = CPL_DYNAMIC_RES;
            ci->lData = 0x5678;
        }
        break;
    }
    case CPL_NEWINQUIRE: {
        NEWCPLINFOA *ni = (NEWCPLINFOA *)l2;
        ni->dwSize = sizeof(*ni);
        ni->dwFlags = 0;
        ni->lData = l1 == 0 ? 0x1234 : 0x5678;
        ni->hIcon = LoadIconA(NULL, (LPCSTR)IDI_APPLICATION);
        lstrcpyA(ni->szName, l1 == 0 ? "First" : "Second");
        lstrcpyA(ni->szInfo, l1 == 0 ? "The first applet" : "The second applet");
        break;
    }
    case CPL_DBLCLK:
    case CPL_STOP:
        printf(" data %#lx", (unsigned long)l2);
        break;
    case CPL_STARTWPARMSW:
        printf(" params \"%ls\"", (const wchar_t *)l2);
        printf("\n");
        fflush(stdout);
        return 0;
    case CPL_STARTWPARMSA:
        printf(" params \"%s\"", (const char *)l2);
        printf("\n");
        fflush(stdout);
        return 0;
    }
    printf("\n");
    fflush(stdout);
    return 0;
}
