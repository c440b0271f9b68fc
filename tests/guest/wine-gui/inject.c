/*
 * inject: starts input_log (or another program whose window class is
 * "input_log") and replays a winterp input script into it with SendInput,
 * coordinates multiplied by SCALE, one event every 50 ms. A Wine cross-check
 * tool for run-wine-gui.sh, not a test program.
 *
 * Usage: inject "COMMAND LINE" SCRIPT SCALE
 *
 * Keys carry the scan code MapVirtualKey gives and the extended flag for the
 * arrow keys, as a keyboard would; mouse positions are client coordinates of
 * the window, turned into absolute screen coordinates.
 */
#include <windows.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static HWND win;

static int vk_of(const char *s)
{
    static const struct {
        const char *name;
        int vk;
    } names[] = {{"SHIFT", VK_SHIFT},   {"CONTROL", VK_CONTROL}, {"LEFT", VK_LEFT}, {"RIGHT", VK_RIGHT},
                 {"UP", VK_UP},         {"DOWN", VK_DOWN},       {"RETURN", VK_RETURN}, {"ESCAPE", VK_ESCAPE},
                 {"SPACE", VK_SPACE},   {"F1", VK_F1},           {"F10", VK_F10}};
    if (!strncmp(s, "0x", 2))
        return (int)strtol(s, NULL, 16);
    if (strlen(s) == 1)
        return toupper((unsigned char)s[0]);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name))
            return names[i].vk;
    fprintf(stderr, "unknown key %s\n", s);
    exit(2);
}

static void key(int vk, int up)
{
    int ext = vk == VK_LEFT || vk == VK_RIGHT || vk == VK_UP || vk == VK_DOWN;
    INPUT in = {0};
    in.type = INPUT_KEYBOARD;
    in.ki.wVk = (WORD)vk;
    in.ki.wScan = (WORD)MapVirtualKeyA(vk, 0);
    in.ki.dwFlags = (up ? KEYEVENTF_KEYUP : 0) | (ext ? KEYEVENTF_EXTENDEDKEY : 0);
    SendInput(1, &in, sizeof in);
}

static void mouse(DWORD flags, int x, int y, int data)
{
    POINT p = {x, y};
    ClientToScreen(win, &p);
    INPUT in = {0};
    in.type = INPUT_MOUSE;
    /* +1 keeps the rounding of the 0..65535 scale on the intended pixel. */
    in.mi.dx = p.x * 65536 / GetSystemMetrics(SM_CXSCREEN) + 1;
    in.mi.dy = p.y * 65536 / GetSystemMetrics(SM_CYSCREEN) + 1;
    in.mi.dwFlags = flags | MOUSEEVENTF_ABSOLUTE;
    in.mi.mouseData = (DWORD)data;
    SendInput(1, &in, sizeof in);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: inject \"COMMAND LINE\" SCRIPT SCALE\n");
        return 2;
    }
    STARTUPINFOA si = {sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, argv[1], NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
        return 1;
    int scale = atoi(argv[3]);
    for (int i = 0; i < 100 && !win; i++) {
        Sleep(100);
        win = FindWindowA("input_log", NULL);
    }
    if (!win)
        return 1;
    Sleep(500);
    SetForegroundWindow(win);
    Sleep(300);
    FILE *f = fopen(argv[2], "r");
    if (!f)
        return 1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int frame, x = 0, y = 0, delta = 0;
        char ev[32], a[32] = "", b[32] = "";
        if (line[0] == '#' || sscanf(line, "%d %31s", &frame, ev) != 2)
            continue;
        if (!strcmp(ev, "key")) {
            sscanf(line, "%d %31s %31s %31s", &frame, ev, a, b);
            key(vk_of(b), !strcmp(a, "up"));
        } else if (!strcmp(ev, "type")) {
            sscanf(line, "%d %31s %31s", &frame, ev, a);
            for (char *c = a; *c; c++) {
                key(toupper((unsigned char)*c), 0);
                key(toupper((unsigned char)*c), 1);
            }
        } else if (!strcmp(ev, "move")) {
            sscanf(line, "%d %31s %d %d", &frame, ev, &x, &y);
            mouse(MOUSEEVENTF_MOVE, x * scale, y * scale, 0);
        } else if (!strcmp(ev, "down") || !strcmp(ev, "up") || !strcmp(ev, "click")) {
            sscanf(line, "%d %31s %31s %d %d", &frame, ev, a, &x, &y);
            int left = !strcmp(a, "left");
            DWORD down = left ? MOUSEEVENTF_LEFTDOWN : MOUSEEVENTF_RIGHTDOWN;
            DWORD up = left ? MOUSEEVENTF_LEFTUP : MOUSEEVENTF_RIGHTUP;
            if (strcmp(ev, "up"))
                mouse(down, x * scale, y * scale, 0);
            if (strcmp(ev, "down"))
                mouse(up, x * scale, y * scale, 0);
        } else if (!strcmp(ev, "wheel")) {
            sscanf(line, "%d %31s %d %d %d", &frame, ev, &delta, &x, &y);
            mouse(MOUSEEVENTF_WHEEL, x * scale, y * scale, delta);
        } else if (!strcmp(ev, "close")) {
            PostMessageA(win, WM_CLOSE, 0, 0);
        }
        Sleep(50);
    }
    fclose(f);
    WaitForSingleObject(pi.hProcess, 5000);
    return 0;
}
