/*
 * keymap: the keyboard-layout queries of USER32 (MapVirtualKeyA/W and
 * MapVirtualKeyExA/W in all five map types, GetKeyNameTextA/W with and without
 * the "don't care" bit and with short buffers), GDI32's LineDDA (the points it
 * hands the callback for lines in all octants) and KERNEL32's GlobalCompact.
 *
 * The layout is the US keyboard (winterp emulates it; the Wine oracle runs with
 * the US layout). Only what Wine's X11 keyboard driver answers as Windows does is
 * printed: Wine names keys by their X keysyms ("Return", "KP_Up"), maps the
 * keypad's digit keys to no scan code and ignores the E0 prefix of the _EX map
 * types; winterp's unit tests (src/hostwin32/src/keys.rs, user32/input.rs) hold
 * Windows' answers for those.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

static const UINT vks[] = {
    'A', 'Z', '0', '9', VK_RETURN, VK_ESCAPE, VK_SPACE, VK_BACK, VK_TAB,
    VK_SHIFT, VK_LSHIFT, VK_RSHIFT, VK_CONTROL, VK_LCONTROL, VK_RCONTROL,
    VK_MENU, VK_LMENU, VK_RMENU, VK_LEFT, VK_UP, VK_HOME, VK_DELETE,
    VK_MULTIPLY, VK_ADD, VK_SUBTRACT, VK_DECIMAL, VK_DIVIDE, VK_F1, VK_F12, VK_OEM_1, VK_OEM_PLUS, VK_OEM_COMMA,
    VK_OEM_MINUS, VK_OEM_PERIOD, VK_OEM_2, VK_OEM_3, VK_OEM_4, VK_OEM_5,
    VK_OEM_6, VK_OEM_7, VK_CAPITAL, VK_NUMLOCK, VK_SCROLL, 0xff,
};

/* The same without the extended keys (Wine's _EX form does not prefix them). */
static const UINT vks_ex[] = {
    'A', 'Z', '0', '9', VK_RETURN, VK_ESCAPE, VK_SPACE, VK_BACK, VK_TAB,
    VK_SHIFT, VK_LSHIFT, VK_RSHIFT, VK_CONTROL, VK_LCONTROL, VK_RCONTROL,
    VK_MENU, VK_LMENU, VK_RMENU, VK_MULTIPLY, VK_ADD, VK_SUBTRACT, VK_F1,
    VK_OEM_1, VK_OEM_7, VK_CAPITAL, 0xff,
};

static const UINT scans[] = {
    0x01, 0x02, 0x0b, 0x0c, 0x0e, 0x0f, 0x10, 0x1c, 0x1d, 0x1e, 0x2a, 0x29,
    0x2b, 0x35, 0x36, 0x38, 0x39, 0x3a, 0x3b, 0x44, 0x47, 0x48, 0x4a,
    0x4e, 0x52, 0x53, 0x57, 0x58, 0x7f, 0xe048,
    /* the generic type gives the generic key with or without E0 */
    0xe01d, 0xe038,
};

/* lParam values of WM_KEYDOWN: scan code in bits 16-23, extended in bit 24. */
static const LONG keylp[] = {
    0x1e0000, 0x0f0000, 0x2a0000, 0x380000, 0x3b0000, 0x440000, 0x570000,
    0x1480000, 0x1470000, 0x1530000, 0x1520000, 0x020000, 0x0c0000,
    0x0d0000, 0x1a0000, 0x270000, 0x290000, 0x2b0000, 0x330000, 0x350000,
    0x320000, 0x100000,
};

static int points;

static void CALLBACK dda(int x, int y, LPARAM lp)
{
    printf(" (%d,%d)", x, y);
    points++;
    if (lp != 0x1234)
        printf(" [lParam %lx]", (long)lp);
}

static void line(int x1, int y1, int x2, int y2)
{
    BOOL r;
    points = 0;
    printf("LineDDA %d,%d -> %d,%d:", x1, y1, x2, y2);
    r = LineDDA(x1, y1, x2, y2, dda, 0x1234);
    printf(" = %d, %d points\n", r, points);
}

int main(void)
{
    unsigned i, t;
    char a[64];
    WCHAR w[64];
    HKL hkl = GetKeyboardLayout(0);

    for (t = 0; t <= 4; t++) {
        const UINT *codes = t == 4 ? vks_ex : (t == 0 || t == 2) ? vks : scans;
        unsigned n = t == 4 ? sizeof vks_ex / sizeof vks_ex[0]
                     : (t == 0 || t == 2) ? sizeof vks / sizeof vks[0]
                     /* type 3 tells the E0 keys apart: Wine does not */
                     : t == 3 ? sizeof scans / sizeof scans[0] - 2
                              : sizeof scans / sizeof scans[0];
        printf("MapVirtualKey type %u:", t);
        for (i = 0; i < n; i++) {
            UINT ra = MapVirtualKeyA(codes[i], t);
            UINT rw = MapVirtualKeyW(codes[i], t);
            UINT rx = MapVirtualKeyExA(codes[i], t, hkl);
            UINT rxw = MapVirtualKeyExW(codes[i], t, NULL);
            printf(" %x=%x", codes[i], ra);
            if (rw != ra || rx != ra || rxw != ra)
                printf("[W %x ExA %x ExW %x]", rw, rx, rxw);
        }
        printf("\n");
    }

    for (i = 0; i < sizeof keylp / sizeof keylp[0]; i++) {
        int na, nw;
        memset(a, 'x', sizeof a);
        memset(w, 0, sizeof w);
        na = GetKeyNameTextA(keylp[i], a, sizeof a);
        nw = GetKeyNameTextW(keylp[i], w, 64);
        printf("GetKeyNameText %08lx: %d \"%s\"", (long)keylp[i], na, na >= 0 ? a : "");
        if (nw != na)
            printf(" W %d", nw);
        else {
            int k, same = 1;
            for (k = 0; k <= nw; k++)
                if (w[k] != (unsigned char)a[k])
                    same = 0;
            if (!same)
                printf(" W differs");
        }
        printf("\n");
    }
    /* Short buffers: the name is cut and NUL-terminated; 0 characters. */
    memset(a, 'x', sizeof a);
    printf("GetKeyNameTextA(Delete, 4) = %d \"%s\"\n", GetKeyNameTextA(0x1530000, a, 4), a);
    memset(a, 'x', sizeof a);
    printf("GetKeyNameTextA(A, 1) = %d \"%s\"\n", GetKeyNameTextA(0x1e0000, a, 1), a);
    memset(a, 'x', sizeof a);
    printf("GetKeyNameTextA(A, 0) = %d first byte %s\n", GetKeyNameTextA(0x1e0000, a, 0),
           a[0] == 'x' ? "untouched" : "written");
    memset(w, 0x78, sizeof w);
    printf("GetKeyNameTextW(Tab, 3) = %d", GetKeyNameTextW(0x0f0000, w, 3));
    printf(" %04x %04x %04x\n", w[0], w[1], w[2]);

    line(0, 0, 10, 3);
    line(0, 0, 3, 10);
    line(10, 3, 0, 0);
    line(3, 10, 0, 0);
    line(0, 0, -7, 4);
    line(0, 0, 4, -7);
    line(5, 5, 10, 10);
    line(5, 5, 0, 10);
    line(2, 2, 2, 2);
    line(0, 0, 6, 0);
    line(0, 0, 0, -5);
    line(0, 0, 8, 4);
    line(0, 0, -8, -4);
    line(1, 1, 7, 3);

    /* Its answer differs (Wine: 0; Windows NT: the process heap's largest free
       block), so only that it answers. */
    GlobalCompact(0);
    printf("GlobalCompact answered\n");
    return 0;
}
