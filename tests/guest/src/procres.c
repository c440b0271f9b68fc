/*
 * procres: what taskmgr asks of its own process and the shell.
 *
 * 1. GetProcessIoCounters: the six counters never go down, and writing then
 *    reading a 1000-byte file adds at least one write and one read operation
 *    and at least 1000 bytes each way (Windows counts every NtWriteFile and
 *    NtReadFile of the process). An invalid handle fails.
 * 2. GetGuiResources: GR_GDIOBJECTS goes up by one for a pen and back down when
 *    it is deleted; GR_USEROBJECTS likewise for a window and a menu. An unknown
 *    flag fails with ERROR_INVALID_PARAMETER.
 * 3. Shell_NotifyIconW: NIM_ADD of a new icon succeeds and of the same window
 *    and id again fails; NIM_MODIFY and NIM_DELETE of an icon that does not
 *    exist fail; NIM_DELETE removes the icon, so a second one fails.
 *
 * Parts 1 and 2 print only comparisons that hold on Windows (Wine 8 answers
 * zeros for both, see tests/guest/README.md); part 3 is Wine's output with its
 * system tray. Output on stdout.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>
#include <stdio.h>

static int grew(const IO_COUNTERS *a, const IO_COUNTERS *b)
{
    return b->ReadOperationCount >= a->ReadOperationCount && b->WriteOperationCount >= a->WriteOperationCount &&
           b->OtherOperationCount >= a->OtherOperationCount && b->ReadTransferCount >= a->ReadTransferCount &&
           b->WriteTransferCount >= a->WriteTransferCount && b->OtherTransferCount >= a->OtherTransferCount;
}

static void io_counters(void)
{
    IO_COUNTERS a, b, c;
    char buf[1000];
    DWORD n;
    memset(buf, 'x', sizeof buf);
    printf("GetProcessIoCounters: %d\n", GetProcessIoCounters(GetCurrentProcess(), &a));
    HANDLE f = CreateFileA("procres.tmp", GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    WriteFile(f, buf, sizeof buf, &n, NULL);
    GetProcessIoCounters(GetCurrentProcess(), &b);
    SetFilePointer(f, 0, NULL, FILE_BEGIN);
    ReadFile(f, buf, sizeof buf, &n, NULL);
    CloseHandle(f);
    DeleteFileA("procres.tmp");
    GetProcessIoCounters(GetCurrentProcess(), &c);
    printf("counters never go down: %d\n", grew(&a, &b) && grew(&b, &c));
    printf("a 1000-byte write: +%d operation(s) at least, +1000 bytes at least: %d\n", 1,
           b.WriteOperationCount >= a.WriteOperationCount + 1 && b.WriteTransferCount >= a.WriteTransferCount + 1000);
    printf("a 1000-byte read: +%d operation(s) at least, +1000 bytes at least: %d\n", 1,
           c.ReadOperationCount >= b.ReadOperationCount + 1 && c.ReadTransferCount >= b.ReadTransferCount + 1000);
    SetLastError(0);
    BOOL ok = GetProcessIoCounters((HANDLE)0x1234, &a);
    printf("an invalid handle: %d, error %lu\n", ok, (unsigned long)GetLastError());
}

static void gui_resources(void)
{
    HANDLE me = GetCurrentProcess();
    DWORD g0 = GetGuiResources(me, GR_GDIOBJECTS);
    HPEN pen = CreatePen(PS_SOLID, 1, RGB(1, 2, 3));
    DWORD g1 = GetGuiResources(me, GR_GDIOBJECTS);
    DeleteObject(pen);
    DWORD g2 = GetGuiResources(me, GR_GDIOBJECTS);
    printf("GDI objects: a pen adds one: %d, deleting it gives it back: %d\n", g1 == g0 + 1, g2 == g0);

    DWORD u0 = GetGuiResources(me, GR_USEROBJECTS);
    HWND w = CreateWindowA("STATIC", "x", WS_POPUP, 0, 0, 10, 10, NULL, NULL, NULL, NULL);
    DWORD u1 = GetGuiResources(me, GR_USEROBJECTS);
    HMENU m = CreateMenu();
    DWORD u2 = GetGuiResources(me, GR_USEROBJECTS);
    DestroyMenu(m);
    DestroyWindow(w);
    DWORD u3 = GetGuiResources(me, GR_USEROBJECTS);
    printf("USER objects: a window adds one: %d, a menu one more: %d, destroying both gives them back: %d\n",
           u1 == u0 + 1, u2 == u1 + 1, u3 == u0);
    SetLastError(0);
    DWORD r = GetGuiResources(me, 0x1000);
    printf("an unknown flag: %lu, error %lu\n", (unsigned long)r, (unsigned long)GetLastError());
}

static void tray(HWND h)
{
    NOTIFYICONDATAW nid;
    memset(&nid, 0, sizeof nid);
    nid.cbSize = NOTIFYICONDATAW_V1_SIZE;
    nid.hWnd = h;
    nid.uID = 7;
    nid.uFlags = NIF_MESSAGE | NIF_ICON | NIF_TIP;
    nid.uCallbackMessage = WM_APP;
    nid.hIcon = LoadIconA(NULL, (LPCSTR)IDI_APPLICATION);
    lstrcpyW(nid.szTip, L"procres");
    printf("NIM_ADD: %d\n", Shell_NotifyIconW(NIM_ADD, &nid));
    printf("NIM_ADD of the same icon again: %d\n", Shell_NotifyIconW(NIM_ADD, &nid));
    nid.uFlags = NIF_TIP;
    lstrcpyW(nid.szTip, L"procres 2");
    printf("NIM_MODIFY: %d\n", Shell_NotifyIconW(NIM_MODIFY, &nid));
    nid.uID = 8;
    printf("NIM_MODIFY of an unknown id: %d\n", Shell_NotifyIconW(NIM_MODIFY, &nid));
    printf("NIM_DELETE of an unknown id: %d\n", Shell_NotifyIconW(NIM_DELETE, &nid));
    nid.uID = 7;
    printf("NIM_DELETE: %d\n", Shell_NotifyIconW(NIM_DELETE, &nid));
    printf("NIM_DELETE again: %d\n", Shell_NotifyIconW(NIM_DELETE, &nid));
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)inst;
    (void)prev;
    (void)cmd;
    (void)show;
    io_counters();
    gui_resources();
    HWND h = CreateWindowA("STATIC", "tray owner", WS_POPUP, 0, 0, 10, 10, NULL, NULL, NULL, NULL);
    tray(h);
    DestroyWindow(h);
    fflush(stdout);
    return 0;
}
