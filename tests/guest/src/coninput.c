/*
 * coninput: the console input buffer and the console title.
 *
 * Key records written with WriteConsoleInputW are counted by
 * GetNumberOfConsoleInputEvents, seen but left by PeekConsoleInputW, and taken
 * in order by ReadConsoleInputW; ReadConsoleInputA gives the character in the
 * console code page; FlushConsoleInputBuffer empties the buffer. A
 * ReadConsoleInputW of an empty buffer waits until a record arrives (written
 * by a second thread 200 ms later), it does not return with none. The title
 * reads back as SetConsoleTitle set it, and GetConsoleTitleW cuts it to the
 * buffer. FreeConsole and AllocConsole first, so the program has a console of
 * its own wherever it runs (Wine gives a program whose output is a pipe none).
 * Output on stdout.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>

static HANDLE in;

static INPUT_RECORD key(WCHAR c, BOOL down)
{
    INPUT_RECORD r;
    memset(&r, 0, sizeof r);
    r.EventType = KEY_EVENT;
    r.Event.KeyEvent.bKeyDown = down;
    r.Event.KeyEvent.wRepeatCount = 1;
    r.Event.KeyEvent.wVirtualKeyCode = (WORD)(c >= 'a' && c <= 'z' ? c - 32 : c);
    r.Event.KeyEvent.uChar.UnicodeChar = c;
    return r;
}

static DWORD WINAPI late_writer(void *arg)
{
    (void)arg;
    Sleep(200);
    INPUT_RECORD r = key(L'z', TRUE);
    DWORD n;
    WriteConsoleInputW(in, &r, 1, &n);
    return 0;
}

int main(void)
{
    FreeConsole();
    AllocConsole();
    in = CreateFileA("CONIN$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0,
                     NULL);
    printf("CONIN$ opened: %d\n", in != INVALID_HANDLE_VALUE);
    FlushConsoleInputBuffer(in);

    INPUT_RECORD w[3] = {key(L'a', TRUE), key(L'a', FALSE), key(0xe9, TRUE)};
    DWORD n = 0;
    BOOL ok = WriteConsoleInputW(in, w, 3, &n);
    printf("WriteConsoleInputW: %d, %lu written\n", ok, (unsigned long)n);
    GetNumberOfConsoleInputEvents(in, &n);
    printf("events: %lu\n", (unsigned long)n);

    INPUT_RECORD r[4];
    memset(r, 0, sizeof r);
    PeekConsoleInputW(in, r, 4, &n);
    printf("peek: %lu, first '%c' down %d\n", (unsigned long)n, (char)r[0].Event.KeyEvent.uChar.UnicodeChar,
           r[0].Event.KeyEvent.bKeyDown);
    GetNumberOfConsoleInputEvents(in, &n);
    printf("events after the peek: %lu\n", (unsigned long)n);

    ReadConsoleInputW(in, r, 2, &n);
    printf("read 2: %lu, '%c' down %d, '%c' down %d\n", (unsigned long)n, (char)r[0].Event.KeyEvent.uChar.UnicodeChar,
           r[0].Event.KeyEvent.bKeyDown, (char)r[1].Event.KeyEvent.uChar.UnicodeChar, r[1].Event.KeyEvent.bKeyDown);
    INPUT_RECORD ra;
    ReadConsoleInputA(in, &ra, 1, &n);
    printf("ReadConsoleInputA of U+00E9: %lu, char 0x%02x in code page %u\n", (unsigned long)n,
           (unsigned char)ra.Event.KeyEvent.uChar.AsciiChar, GetConsoleCP());
    GetNumberOfConsoleInputEvents(in, &n);
    printf("events left: %lu\n", (unsigned long)n);

    WriteConsoleInputW(in, w, 2, &n);
    FlushConsoleInputBuffer(in);
    GetNumberOfConsoleInputEvents(in, &n);
    printf("events after FlushConsoleInputBuffer: %lu\n", (unsigned long)n);

    HANDLE t = CreateThread(NULL, 0, late_writer, NULL, 0, NULL);
    DWORD before = GetTickCount();
    ReadConsoleInputW(in, r, 1, &n);
    DWORD waited = GetTickCount() - before;
    printf("read from an empty buffer: %lu record '%c' after waiting at least 150 ms: %d\n", (unsigned long)n,
           (char)r[0].Event.KeyEvent.uChar.UnicodeChar, waited >= 150);
    WaitForSingleObject(t, INFINITE);

    SetConsoleTitleW(L"coninput title");
    WCHAR buf[64];
    DWORD len = GetConsoleTitleW(buf, 64);
    printf("title: %ls (%lu)\n", buf, (unsigned long)len);
    len = GetConsoleTitleW(buf, 5);
    printf("title in 5: %ls\n", buf);
    char abuf[64];
    len = GetConsoleTitleA(abuf, 64);
    printf("title A: %s (%lu)\n", abuf, (unsigned long)len);
    fflush(stdout);
    return 0;
}
