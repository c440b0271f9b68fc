/* The clipboard as calc, Delphi programs and editors use it: open with a window,
 * empty, set CF_TEXT, read it back as every text format (Windows converts between
 * CF_TEXT, CF_OEMTEXT and CF_UNICODETEXT and adds CF_LOCALE), a registered format,
 * the errors of calls made without opening it, and emptying it again. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

static HGLOBAL make(const void *p, SIZE_T n)
{
    HGLOBAL h = GlobalAlloc(GMEM_MOVEABLE, n);
    void *q = GlobalLock(h);
    memcpy(q, p, n);
    GlobalUnlock(h);
    return h;
}

static void dump(const char *what, HANDLE h, int wide)
{
    if (!h) {
        printf("%s: NULL\n", what);
        return;
    }
    const unsigned char *p = GlobalLock(h);
    printf("%s:", what);
    if (wide) {
        const unsigned short *w = (const unsigned short *)p;
        for (int k = 0; w[k]; k++)
            printf(" %04x", w[k]);
    } else {
        for (int k = 0; p[k]; k++)
            printf(" %02x", p[k]);
    }
    printf("\n");
    GlobalUnlock(h);
}

int main(void)
{
    HWND w = CreateWindowA("STATIC", "clip owner", 0, 0, 0, 10, 10, NULL, NULL, NULL, NULL);
    BOOL r;
    HANDLE h;
    SetLastError(0);
    r = CloseClipboard();
    printf("CloseClipboard unopened: %d err %lu\n", r, GetLastError());
    SetLastError(0);
    r = EmptyClipboard();
    printf("EmptyClipboard unopened: %d err %lu\n", r, GetLastError());
    SetLastError(0);
    h = GetClipboardData(CF_TEXT);
    printf("GetClipboardData unopened: %p err %lu\n", h, GetLastError());

    printf("OpenClipboard: %d\n", OpenClipboard(w));
    printf("open window is ours: %d\n", GetOpenClipboardWindow() == w);
    printf("EmptyClipboard: %d\n", EmptyClipboard());
    printf("owner is ours: %d\n", GetClipboardOwner() == w);
    printf("formats after empty: %d\n", CountClipboardFormats());

    static const char text[] = "Caf\xe9 au lait";
    HGLOBAL t = make(text, sizeof text);
    printf("SetClipboardData CF_TEXT returns the handle: %d\n", SetClipboardData(CF_TEXT, t) == t);
    UINT mine = RegisterClipboardFormatA("winterp clip test");
    static const unsigned char blob[] = {1, 2, 3, 4, 0};
    HGLOBAL b = make(blob, sizeof blob);
    printf("SetClipboardData registered: %d\n", SetClipboardData(mine, b) == b);

    int fmts[] = {CF_TEXT, CF_UNICODETEXT, CF_OEMTEXT, CF_LOCALE, CF_BITMAP};
    const char *names[] = {"CF_TEXT", "CF_UNICODETEXT", "CF_OEMTEXT", "CF_LOCALE", "CF_BITMAP"};
    for (int k = 0; k < 5; k++)
        printf("available %s: %d\n", names[k], IsClipboardFormatAvailable(fmts[k]));
    printf("available registered: %d\n", IsClipboardFormatAvailable(mine));

    printf("CF_TEXT is the handle set: %d\n", GetClipboardData(CF_TEXT) == t);
    printf("registered is the handle set: %d\n", GetClipboardData(mine) == b);
    dump("CF_TEXT", GetClipboardData(CF_TEXT), 0);
    printf("CloseClipboard: %d\n", CloseClipboard());
    printf("available CF_UNICODETEXT closed: %d\n", IsClipboardFormatAvailable(CF_UNICODETEXT));

    printf("OpenClipboard again: %d\n", OpenClipboard(w));
    dump("CF_TEXT again", GetClipboardData(CF_TEXT), 0);
    dump("CF_UNICODETEXT", GetClipboardData(CF_UNICODETEXT), 1);
    dump("CF_OEMTEXT", GetClipboardData(CF_OEMTEXT), 0);
    HANDLE u1 = GetClipboardData(CF_UNICODETEXT), u2 = GetClipboardData(CF_UNICODETEXT);
    printf("CF_UNICODETEXT twice is one handle: %d\n", u1 == u2);
    HANDLE loc = GetClipboardData(CF_LOCALE);
    printf("CF_LOCALE present: %d\n", loc != NULL);
    printf("formats: %d\n", CountClipboardFormats());
    printf("registered still there: %d\n", IsClipboardFormatAvailable(mine));
    printf("EmptyClipboard: %d\n", EmptyClipboard());
    printf("available CF_TEXT after empty: %d\n", IsClipboardFormatAvailable(CF_TEXT));
    printf("formats after empty: %d\n", CountClipboardFormats());
    printf("CloseClipboard: %d\n", CloseClipboard());
    DestroyWindow(w);
    return 0;
}
