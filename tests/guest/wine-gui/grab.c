/*
 * grab: starts a GUI program, waits for its top-level window of class
 * CLASS, copies the window's client area with BitBlt and writes it as a
 * binary PPM, then closes the window. A Wine cross-check tool for
 * run-wine-gui.sh, not a test program (build.sh does not build it).
 *
 * Usage: grab "COMMAND LINE" CLASS OUT.ppm
 */
#include <windows.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: grab \"COMMAND LINE\" CLASS OUT.ppm\n");
        return 2;
    }
    STARTUPINFOA si = {sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, argv[1], NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "cannot start %s\n", argv[1]);
        return 1;
    }
    HWND h = NULL;
    for (int i = 0; i < 100 && !h; i++) {
        Sleep(100);
        h = FindWindowA(argv[2], NULL);
    }
    if (!h) {
        fprintf(stderr, "no window of class %s\n", argv[2]);
        return 1;
    }
    Sleep(1500); /* let it paint */
    RECT rc;
    GetClientRect(h, &rc);
    int w = rc.right, hh = rc.bottom;
    HDC wdc = GetDC(h);
    BITMAPINFO bi = {0};
    bi.bmiHeader.biSize = sizeof bi.bmiHeader;
    bi.bmiHeader.biWidth = w;
    bi.bmiHeader.biHeight = -hh;
    bi.bmiHeader.biPlanes = 1;
    bi.bmiHeader.biBitCount = 32;
    DWORD *bits;
    HBITMAP bm = CreateDIBSection(NULL, &bi, DIB_RGB_COLORS, (void **)&bits, NULL, 0);
    HDC mdc = CreateCompatibleDC(wdc);
    SelectObject(mdc, bm);
    BitBlt(mdc, 0, 0, w, hh, wdc, 0, 0, SRCCOPY);
    FILE *f = fopen(argv[3], "wb");
    if (!f)
        return 1;
    fprintf(f, "P6\n%d %d\n255\n", w, hh);
    for (int i = 0; i < w * hh; i++) {
        fputc((int)(bits[i] >> 16) & 0xff, f);
        fputc((int)(bits[i] >> 8) & 0xff, f);
        fputc((int)bits[i] & 0xff, f);
    }
    fclose(f);
    PostMessageA(h, WM_CLOSE, 0, 0);
    WaitForSingleObject(pi.hProcess, 5000);
    return 0;
}
