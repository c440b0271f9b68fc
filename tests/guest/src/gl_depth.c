/* OpenGL test: the depth buffer, the stencil buffer, scissoring and polygon offset.
 *
 * Depth tiles 0-7: a quad at depth 0.5 (window depth; z = 0 in a -1..1 ortho) is
 * drawn first with GL_LESS, then a wide bar sloping from z = -1 (near, left) to
 * z = 1 (far, right) with the tile's depth function, so the bar shows where the
 * function passes against the quad (and against the cleared 1.0 elsewhere):
 *  0 GL_LESS  1 GL_LEQUAL  2 GL_GREATER  3 GL_GEQUAL  4 GL_EQUAL (a coplanar quad)
 *  5 GL_NOTEQUAL  6 GL_ALWAYS  7 GL_NEVER
 *  8 glDepthMask(GL_FALSE): the bar is drawn but writes no depth, so a green strip
 *    at window depth 0.6 drawn after it with GL_LESS shows over the bar wherever
 *    the red quad (0.5) is not
 *  9 glDepthRange(0.5, 1): the near half of the bar is pushed behind the quad
 * 10 interpenetrating triangles (depth sorted per pixel)
 * 11 glPolygonOffset: a coplanar decal with offset -1, -1 wins with GL_LESS
 * Stencil tiles:
 * 12 a stencil mask written by a disc (GL_REPLACE 1, colour writes off), then a
 *    quad drawn where stencil == 1 and another where != 1
 * 13 GL_INCR on three overlapping quads, then colour by stencil value (1, 2, 3)
 * 14 GL_DECR, GL_INVERT and GL_ZERO with a write mask, read with GL_EQUAL
 *    through a value mask
 * 15 glScissor inside the tile, and a stencil outline (GL_KEEP on depth fail) */
#define GLTEST_NAME "gl_depth"
#include "gltest.h"

static void setup(int i)
{
    gltest_tile(i, 0, 0, 64);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
}

static void rect(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1, GLfloat z)
{
    glBegin(GL_QUADS);
    glVertex3f(x0, y0, z);
    glVertex3f(x1, y0, z);
    glVertex3f(x1, y1, z);
    glVertex3f(x0, y1, z);
    glEnd();
}

/* The sloping bar: glOrtho's z is negated, so vertex z = 1 is window depth 0. */
static void bar(void)
{
    glBegin(GL_QUADS);
    glColor3ub(255, 255, 0);
    glVertex3f(0, 20, 1);
    glColor3ub(0, 255, 255);
    glVertex3f(64, 20, -1);
    glVertex3f(64, 44, -1);
    glColor3ub(255, 255, 0);
    glVertex3f(0, 44, 1);
    glEnd();
}

static void disc_fan(GLfloat cx, GLfloat cy)
{
    /* an octagon of radius 20 (vertex offsets 20 and 14) */
    static const GLfloat o[9][2] = {{20, 0}, {14, 14}, {0, 20}, {-14, 14}, {-20, 0},
                                    {-14, -14}, {0, -20}, {14, -14}, {20, 0}};
    int k;
    glBegin(GL_TRIANGLE_FAN);
    glVertex2f(cx, cy);
    for (k = 0; k < 9; k++)
        glVertex2f(cx + o[k][0], cy + o[k][1]);
    glEnd();
}

static void draw(int frame)
{
    static const GLenum funcs[8] = {GL_LESS,  GL_LEQUAL,   GL_GREATER, GL_GEQUAL,
                                    GL_EQUAL, GL_NOTEQUAL, GL_ALWAYS,  GL_NEVER};
    int i;
    (void)frame;
    glEnable(GL_DEPTH_TEST);
    for (i = 0; i < 8; i++) {
        setup(i);
        glDepthFunc(GL_LESS);
        glColor3ub(200, 0, 0);
        rect(16, 8, 48, 56, 0);
        glDepthFunc(funcs[i]);
        if (funcs[i] == GL_EQUAL) {
            glColor3ub(0, 0, 255);
            rect(8, 24, 40, 40, 0);
        } else {
            bar();
        }
    }
    glDepthFunc(GL_LESS);

    setup(8);
    glColor3ub(200, 0, 0);
    rect(16, 8, 48, 56, 0);
    glDepthMask(GL_FALSE);
    bar();
    glDepthMask(GL_TRUE);
    glColor3ub(0, 200, 0);
    rect(4, 28, 60, 36, -0.2f);

    setup(9);
    glColor3ub(200, 0, 0);
    rect(16, 8, 48, 56, 0);
    glDepthRange(0.5, 1);
    bar();
    glDepthRange(0, 1);

    setup(10);
    glBegin(GL_TRIANGLES);
    glColor3ub(255, 0, 0);
    glVertex3f(4, 8, 1);
    glVertex3f(60, 8, 1);
    glVertex3f(32, 60, -1);
    glColor3ub(0, 0, 255);
    glVertex3f(4, 56, 1);
    glVertex3f(60, 56, 1);
    glVertex3f(32, 4, -1);
    glEnd();

    setup(11);
    glColor3ub(128, 128, 128);
    rect(4, 4, 60, 60, 0.3f);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1, -1);
    glColor3ub(255, 255, 255);
    rect(16, 16, 48, 48, 0.3f);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glColor3ub(255, 0, 0);
    rect(24, 24, 40, 40, 0.3f);
    glDisable(GL_DEPTH_TEST);

    /* 12: stencil mask */
    setup(12);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 1, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    disc_fan(32, 32);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glStencilFunc(GL_EQUAL, 1, 0xff);
    glColor3ub(255, 255, 0);
    rect(0, 0, 64, 40, 0);
    glStencilFunc(GL_NOTEQUAL, 1, 0xff);
    glColor3ub(0, 128, 255);
    rect(0, 24, 64, 64, 0);

    /* 13: counting overlaps */
    setup(13);
    glStencilFunc(GL_ALWAYS, 0, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    rect(4, 4, 40, 40, 0);
    rect(24, 4, 60, 40, 0);
    rect(14, 20, 50, 60, 0);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    for (i = 1; i <= 3; i++) {
        glStencilFunc(GL_EQUAL, i, 0xff);
        glColor3ub(i == 1 ? 255 : 0, i == 2 ? 255 : 0, i == 3 ? 255 : 0);
        rect(0, 0, 64, 64, 0);
    }

    /* 14: DECR (clamps at 0), INVERT through a write mask of 0x0f, ZERO */
    setup(14);
    glStencilFunc(GL_ALWAYS, 0, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    rect(0, 0, 64, 64, 0); /* everything 1 (and white pixels covered below) */
    glStencilOp(GL_KEEP, GL_KEEP, GL_DECR);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    rect(0, 0, 32, 64, 0);  /* left 0 */
    rect(0, 0, 16, 64, 0);  /* far left stays 0 (clamped) */
    glStencilMask(0x0f);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INVERT);
    rect(0, 32, 64, 64, 0); /* top: 0 -> 0x0f, 1 -> 0x0e */
    glStencilMask(0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_ZERO);
    rect(48, 0, 64, 64, 0); /* right column 0 */
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glStencilFunc(GL_EQUAL, 0x0e, 0x0f);
    glColor3ub(255, 0, 255);
    rect(0, 0, 64, 64, 0);
    glStencilFunc(GL_EQUAL, 0x0f, 0xff);
    glColor3ub(0, 255, 0);
    rect(0, 0, 64, 64, 0);
    glStencilFunc(GL_EQUAL, 0, 0xff);
    glColor3ub(0, 0, 0);
    rect(0, 0, 64, 64, 0);

    /* 15: scissor, and an outline with the stencil */
    setup(15);
    glEnable(GL_SCISSOR_TEST);
    glScissor(3 * 64 + 8, 8, 48, 40);
    glColor3ub(80, 80, 80);
    rect(0, 0, 64, 64, 0);
    glStencilFunc(GL_ALWAYS, 1, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    glColor3ub(255, 128, 0);
    rect(20, 16, 44, 40, 0);
    glStencilFunc(GL_NOTEQUAL, 1, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glColor3ub(255, 255, 255);
    rect(16, 12, 48, 44, 0);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_STENCIL_TEST);
}
