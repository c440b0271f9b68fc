/* The platform layer of the OpenGL test programs (src/gl_*.c).
 *
 * The same program source builds twice:
 * - for Windows with mingw (tests/guest/build.sh): a WGL context on a window whose
 *   client area is GLTEST_W x GLTEST_H, presented with SwapBuffers; this is the .exe
 *   winterp runs;
 * - for Linux against Mesa (tests/guest/gl-reference.sh): a GLX context on a window
 *   of the same size under Xvfb, drawn by llvmpipe; this is the oracle whose frames
 *   are the reference (tests/guest/expected/gl_*.png).
 *
 * A program defines GLTEST_NAME and `static void draw(int frame)` (which draws the
 * whole scene of frame 1..GLTEST_FRAMES, starting with a clear) and includes this
 * header last. The layer creates a double-buffered 32-bit RGBA context with a 24-bit
 * depth and an 8-bit stencil buffer (a format every driver of 1999 offered), calls
 * draw for each frame, prints `frame N: glGetError 0xE` after each, and presents it.
 * With the environment variable GLTEST_PPM=FILE set, the back buffer of the last
 * frame is read back just before it is presented and written to FILE as a binary
 * PPM (gl-reference.sh turns it into the reference PNG); without it the program
 * reads nothing back (what it presents is what winterp's frame capture sees).
 *
 * An optional first argument gives the number of frames (the player's frame-rate
 * test runs a program for thousands); the frame drawn is then frame
 * ((n - 1) % GLTEST_FRAMES) + 1, so every frame is one of the known scenes.
 *
 * Everything a program prints goes through printf; the output must not depend on
 * how the implementation rasterises (it is compared exactly with the oracle's). */
#ifndef GLTEST_H_INCLUDED
#define GLTEST_H_INCLUDED

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#endif
#include <GL/gl.h>
#include <GL/glu.h>
#ifndef _WIN32
#include <GL/glx.h>
#include <X11/Xlib.h>
#endif

#define GLTEST_W 256
#define GLTEST_H 256
#ifndef GLTEST_FRAMES
#define GLTEST_FRAMES 3
#endif

static void draw(int frame);

/* The scene is laid out as 4 x 4 tiles of 64 x 64 pixels, tile 0 at the top left,
 * row by row. gltest_tile sets the viewport to the tile, scissors to it and clears
 * it to (r, g, b) (colour and depth 1.0 and stencil 0), leaving the scissor test off
 * again. */
static inline void gltest_tile(int i, GLubyte r, GLubyte g, GLubyte b)
{
    int x = (i % 4) * 64, y = GLTEST_H - 64 - (i / 4) * 64;
    glViewport(x, y, 64, 64);
    glScissor(x, y, 64, 64);
    glEnable(GL_SCISSOR_TEST);
    glClearColor(r / 255.0f, g / 255.0f, b / 255.0f, 1.0f);
    glClearDepth(1.0);
    glClearStencil(0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
}

/* Writes the colour buffer being drawn (the back buffer) as a binary PPM, rows
 * from the top. */
static void gltest_dump(const char *path)
{
    static unsigned char px[GLTEST_W * GLTEST_H * 3];
    FILE *f;
    int y;
    glPushClientAttrib(GL_CLIENT_PIXEL_STORE_BIT);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, GLTEST_W, GLTEST_H, GL_RGB, GL_UNSIGNED_BYTE, px);
    glPopClientAttrib();
    f = fopen(path, "wb");
    if (!f) {
        printf("cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "P6\n%d %d\n255\n", GLTEST_W, GLTEST_H);
    for (y = GLTEST_H - 1; y >= 0; y--)
        fwrite(px + y * GLTEST_W * 3, 1, GLTEST_W * 3, f);
    fclose(f);
}

static void gltest_swap(void);

static int gltest_frame_count(int argc, char **argv)
{
    int n = GLTEST_FRAMES;
    if (argc > 1) {
        n = atoi(argv[1]);
        if (n < 1) {
            printf("usage: %s [FRAMES >= 1]\n", GLTEST_NAME);
            exit(2);
        }
    }
    return n;
}

/* The frame loop both platforms share. `pump` handles the window system's
 * messages between frames. */
static int gltest_loop(int n, void (*pump)(void))
{
    const char *dump = getenv("GLTEST_PPM");
    int f;
    for (f = 1; f <= n; f++) {
        pump();
        draw((f - 1) % GLTEST_FRAMES + 1);
        if (n <= GLTEST_FRAMES)
            printf("frame %d: glGetError 0x%x\n", f, (unsigned)glGetError());
        else
            glGetError();
        if (f == n && dump && *dump)
            gltest_dump(dump);
        gltest_swap();
    }
    /* Nothing is printed after the last present: a headless run with --frames N
     * ends the program at its Nth present. */
    fflush(stdout);
    return 0;
}

#ifdef _WIN32

static HWND gltest_hwnd;
static HDC gltest_hdc;

static LRESULT CALLBACK gltest_wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_CLOSE) {
        ExitProcess(0);
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

static void gltest_pump(void)
{
    MSG m;
    while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {
        TranslateMessage(&m);
        DispatchMessageA(&m);
    }
}

static void gltest_swap(void)
{
    SwapBuffers(gltest_hdc);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    RECT r = {0, 0, GLTEST_W, GLTEST_H};
    DWORD style = WS_OVERLAPPEDWINDOW | WS_CLIPCHILDREN | WS_CLIPSIBLINGS;
    PIXELFORMATDESCRIPTOR pfd;
    HGLRC rc;
    int fmt;
    int n;
    char *argv[2] = {(char *)GLTEST_NAME, cmd};
    (void)prev;
    (void)show;
    n = gltest_frame_count(cmd && *cmd ? 2 : 1, argv);

    memset(&wc, 0, sizeof wc);
    wc.style = CS_OWNDC;
    wc.lpfnWndProc = gltest_wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.lpszClassName = "gltest";
    RegisterClassA(&wc);
    AdjustWindowRect(&r, style, FALSE);
    gltest_hwnd = CreateWindowA("gltest", GLTEST_NAME, style, 0, 0, r.right - r.left,
                                r.bottom - r.top, NULL, NULL, inst, NULL);
    ShowWindow(gltest_hwnd, SW_SHOW);
    UpdateWindow(gltest_hwnd);
    GetClientRect(gltest_hwnd, &r);
    if (r.right != GLTEST_W || r.bottom != GLTEST_H) {
        printf("client area %ldx%ld, not %dx%d\n", r.right, r.bottom, GLTEST_W, GLTEST_H);
        return 1;
    }
    gltest_hdc = GetDC(gltest_hwnd);

    memset(&pfd, 0, sizeof pfd);
    pfd.nSize = sizeof pfd;
    pfd.nVersion = 1;
    pfd.dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
    pfd.iPixelType = PFD_TYPE_RGBA;
    pfd.cColorBits = 32;
    pfd.cDepthBits = 24;
    pfd.cStencilBits = 8;
    pfd.iLayerType = PFD_MAIN_PLANE;
    fmt = ChoosePixelFormat(gltest_hdc, &pfd);
    if (!fmt || !SetPixelFormat(gltest_hdc, fmt, &pfd)) {
        printf("no pixel format (ChoosePixelFormat %d, error %lu)\n", fmt, GetLastError());
        return 1;
    }
    DescribePixelFormat(gltest_hdc, fmt, sizeof pfd, &pfd);
    if (pfd.cRedBits != 8 || pfd.cGreenBits != 8 || pfd.cBlueBits != 8 ||
        pfd.cDepthBits < 24 || pfd.cStencilBits < 8 || !(pfd.dwFlags & PFD_DOUBLEBUFFER)) {
        printf("pixel format %d: RGB %d%d%d, depth %d, stencil %d, flags 0x%lx\n", fmt,
               pfd.cRedBits, pfd.cGreenBits, pfd.cBlueBits, pfd.cDepthBits, pfd.cStencilBits,
               pfd.dwFlags);
        return 1;
    }
    rc = wglCreateContext(gltest_hdc);
    if (!rc || !wglMakeCurrent(gltest_hdc, rc)) {
        printf("no GL context (error %lu)\n", GetLastError());
        return 1;
    }
    gltest_loop(n, gltest_pump);
    wglMakeCurrent(NULL, NULL);
    wglDeleteContext(rc);
    ReleaseDC(gltest_hwnd, gltest_hdc);
    DestroyWindow(gltest_hwnd);
    return 0;
}

#else /* GLX under an X server (Xvfb), for the reference frames */

static Display *gltest_dpy;
static Window gltest_win;

static void gltest_pump(void)
{
    while (XPending(gltest_dpy)) {
        XEvent e;
        XNextEvent(gltest_dpy, &e);
    }
}

static void gltest_swap(void)
{
    glXSwapBuffers(gltest_dpy, gltest_win);
}

int main(int argc, char **argv)
{
    int attrs[] = {GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8,
                   GLX_BLUE_SIZE, 8, GLX_DEPTH_SIZE, 24, GLX_STENCIL_SIZE, 8, None};
    XVisualInfo *vi;
    XSetWindowAttributes swa;
    GLXContext ctx;
    XEvent e;
    int n = gltest_frame_count(argc, argv);

    gltest_dpy = XOpenDisplay(NULL);
    if (!gltest_dpy) {
        printf("no X display\n");
        return 1;
    }
    vi = glXChooseVisual(gltest_dpy, DefaultScreen(gltest_dpy), attrs);
    if (!vi) {
        printf("no GLX visual\n");
        return 1;
    }
    swa.colormap = XCreateColormap(gltest_dpy, RootWindow(gltest_dpy, vi->screen), vi->visual,
                                   AllocNone);
    swa.event_mask = StructureNotifyMask;
    swa.border_pixel = 0;
    gltest_win = XCreateWindow(gltest_dpy, RootWindow(gltest_dpy, vi->screen), 0, 0, GLTEST_W,
                               GLTEST_H, 0, vi->depth, InputOutput, vi->visual,
                               CWColormap | CWEventMask | CWBorderPixel, &swa);
    XMapWindow(gltest_dpy, gltest_win);
    do
        XNextEvent(gltest_dpy, &e);
    while (e.type != MapNotify);
    ctx = glXCreateContext(gltest_dpy, vi, NULL, True);
    if (!ctx || !glXMakeCurrent(gltest_dpy, gltest_win, ctx)) {
        printf("no GLX context\n");
        return 1;
    }
    gltest_loop(n, gltest_pump);
    glXMakeCurrent(gltest_dpy, None, NULL);
    glXDestroyContext(gltest_dpy, ctx);
    XDestroyWindow(gltest_dpy, gltest_win);
    XCloseDisplay(gltest_dpy);
    return 0;
}

#endif
#endif
