/* OpenGL test: glReadPixels, with what it reads printed.
 *
 * Everything read lies inside flat areas (scissored clears and large one-colour
 * quads), so the values do not depend on how edges are rasterised and the
 * printed lines must equal the oracle's exactly. Frame f clears the window to
 * (10 f, 20, 30), so the last frame differs from the others. (The front buffer is
 * not read: Mesa's GLX on Xvfb does not give back the presented frame there, so
 * there is no oracle for it.) In the last frame the program prints:
 * - one pixel of the red quad as GL_RGBA / GL_UNSIGNED_BYTE, and of every quad
 *   as GL_RGBA / GL_FLOAT and GL_UNSIGNED_SHORT;
 * - a 3 x 2 block as GL_RGB with GL_PACK_ALIGNMENT 1, 4 and 8 (bytes left
 *   untouched stay 0xee, so the row padding shows);
 * - GL_RED, GL_GREEN, GL_BLUE, GL_ALPHA and GL_LUMINANCE (R + G + B, clamped) and
 *   GL_LUMINANCE_ALPHA of the grey and the dark quads;
 * - a 2 x 2 block into a wider buffer with GL_PACK_ROW_LENGTH 5,
 *   GL_PACK_SKIP_PIXELS 1 and GL_PACK_SKIP_ROWS 1;
 * - depth as GL_FLOAT where the quad at window depth 0.5 is and where the clear
 *   (1.0) is; stencil as GL_UNSIGNED_BYTE where 5 was written and where not;
 * - a hash (FNV-1a) of the 64 x 64 RGB block of four scissored clears;
 * - glGetError after glReadPixels with a bad format (GL_INVALID_ENUM) and a
 *   negative width (GL_INVALID_VALUE). */
#define GLTEST_NAME "gl_readpix"
#include "gltest.h"

static void rect(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1)
{
    glBegin(GL_QUADS);
    glVertex2f(x0, y0);
    glVertex2f(x1, y0);
    glVertex2f(x1, y1);
    glVertex2f(x0, y1);
    glEnd();
}

static void show_bytes(const char *what, const GLubyte *b, int n)
{
    int i;
    printf("%s:", what);
    for (i = 0; i < n; i++)
        printf(" %02x", b[i]);
    printf("\n");
}

static void pack(int align, int row, int skip_px, int skip_rows)
{
    glPixelStorei(GL_PACK_ALIGNMENT, align);
    glPixelStorei(GL_PACK_ROW_LENGTH, row);
    glPixelStorei(GL_PACK_SKIP_PIXELS, skip_px);
    glPixelStorei(GL_PACK_SKIP_ROWS, skip_rows);
}

static void read_back(void)
{
    static const struct {
        const char *name;
        int x, y;
    } at[4] = {{"red", 40, 40}, {"grey", 120, 40}, {"dark", 40, 120}, {"white", 120, 120}};
    GLubyte b[64];
    GLushort us[4];
    GLfloat f[4];
    static GLubyte block[64 * 64 * 3];
    unsigned hash = 2166136261u;
    int i, k;

    glReadBuffer(GL_BACK);
    pack(4, 0, 0, 0);
    memset(b, 0xee, sizeof b);
    glReadPixels(40, 40, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, b);
    show_bytes("red RGBA ubyte", b, 4);
    for (i = 0; i < 4; i++) {
        glReadPixels(at[i].x, at[i].y, 1, 1, GL_RGBA, GL_FLOAT, f);
        printf("%s RGBA float: %.4f %.4f %.4f %.4f\n", at[i].name, f[0], f[1], f[2], f[3]);
        glReadPixels(at[i].x, at[i].y, 1, 1, GL_RGBA, GL_UNSIGNED_SHORT, us);
        printf("%s RGBA ushort: %u %u %u %u\n", at[i].name, us[0], us[1], us[2], us[3]);
    }
    for (k = 1; k <= 8; k *= 2) {
        char what[40];
        if (k == 2)
            continue;
        memset(b, 0xee, sizeof b);
        pack(k, 0, 0, 0);
        glReadPixels(30, 30, 3, 2, GL_RGB, GL_UNSIGNED_BYTE, b);
        sprintf(what, "3x2 RGB alignment %d", k);
        show_bytes(what, b, 24);
    }
    pack(1, 0, 0, 0);
    for (i = 1; i <= 2; i++) {
        static const GLenum fmt[6] = {GL_RED, GL_GREEN, GL_BLUE, GL_ALPHA, GL_LUMINANCE,
                                      GL_LUMINANCE_ALPHA};
        static const char *fmt_name[6] = {"RED", "GREEN", "BLUE", "ALPHA", "LUMINANCE",
                                          "LUMINANCE_ALPHA"};
        for (k = 0; k < 6; k++) {
            char what[60];
            memset(b, 0xee, sizeof b);
            glReadPixels(at[i].x, at[i].y, 2, 1, fmt[k], GL_UNSIGNED_BYTE, b);
            sprintf(what, "%s %s", at[i].name, fmt_name[k]);
            show_bytes(what, b, k == 5 ? 4 : 2);
        }
    }
    memset(b, 0xee, sizeof b);
    pack(1, 5, 1, 1);
    glReadPixels(38, 38, 2, 2, GL_RGB, GL_UNSIGNED_BYTE, b);
    show_bytes("row length 5, skip 1 1", b, 45);
    pack(4, 0, 0, 0);

    glReadPixels(40, 40, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, f);
    glReadPixels(200, 40, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, f + 1);
    printf("depth: quad %.4f, clear %.4f\n", f[0], f[1]);
    memset(b, 0xee, sizeof b);
    glReadPixels(120, 120, 1, 1, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, b);
    glReadPixels(40, 40, 1, 1, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, b + 1);
    printf("stencil: white quad %u, red quad %u\n", b[0], b[1]);

    pack(1, 0, 0, 0);
    glReadPixels(176, 176, 64, 64, GL_RGB, GL_UNSIGNED_BYTE, block);
    for (i = 0; i < 64 * 64 * 3; i++) {
        hash ^= block[i];
        hash *= 16777619u;
    }
    printf("hash of the 64x64 clears: %08x\n", hash);
    pack(4, 0, 0, 0);

    glGetError();
    glReadPixels(0, 0, 1, 1, GL_TEXTURE_2D, GL_UNSIGNED_BYTE, b);
    printf("bad format: glGetError 0x%x\n", (unsigned)glGetError());
    glReadPixels(0, 0, -1, 1, GL_RGBA, GL_UNSIGNED_BYTE, b);
    printf("negative width: glGetError 0x%x\n", (unsigned)glGetError());
}

static void draw(int frame)
{
    glViewport(0, 0, GLTEST_W, GLTEST_H);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(frame * 10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 1);
    glClearDepth(1);
    glClearStencil(0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, GLTEST_W, 0, GLTEST_H, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glColor3ub(255, 0, 0);
    rect(16, 16, 64, 64);
    glColor3ub(128, 128, 128);
    rect(96, 16, 144, 64);
    glColor3ub(60, 70, 80);
    rect(16, 96, 64, 144);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 5, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    glColor3ub(255, 255, 255);
    rect(96, 96, 144, 144);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_DEPTH_TEST);

    glEnable(GL_SCISSOR_TEST);
    glScissor(176, 176, 32, 32);
    glClearColor(1, 1, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(208, 176, 32, 32);
    glClearColor(0, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(176, 208, 32, 32);
    glClearColor(1, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(208, 208, 32, 32);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(220, 220, 8, 8);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);

    if (frame == GLTEST_FRAMES)
        read_back();
}
