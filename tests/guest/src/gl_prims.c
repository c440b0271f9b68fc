/* OpenGL test: the ten primitive types, shading, polygon modes and face culling.
 *
 * 4 x 4 tiles of 64 x 64 (gltest.h), each with an orthographic projection of
 * 0..64 on both axes so vertex coordinates are pixels of the tile:
 *  0 GL_POINTS of size 1 and 4          8 GL_POLYGON (a pentagon)
 *  1 GL_LINES, width 1 and 3            9 GL_SHADE_MODEL GL_FLAT: the last vertex's colour
 *  2 GL_LINE_STRIP                     10 glPolygonMode GL_LINE front and back
 *  3 GL_LINE_LOOP                      11 glPolygonMode GL_POINT (size 3)
 *  4 GL_TRIANGLES, smooth colours      12 culling GL_BACK: only the CCW triangle shows
 *  5 GL_TRIANGLE_STRIP                 13 culling GL_FRONT: only the CW triangle shows
 *  6 GL_TRIANGLE_FAN                   14 glFrontFace GL_CW with GL_BACK culling
 *  7 GL_QUADS and GL_QUAD_STRIP        15 GL_FRONT_AND_BACK culling (nothing) over a
 *                                         GL_LINE_LOOP (culling leaves lines alone)
 * Coordinates sit at pixel centres (x.5) for points and lines, so no rasterisation
 * rule has a tie to break there. A quad or polygon with smooth colours has colours
 * that are an affine function of position (here R = 4 x, G = 4 y), because GL
 * leaves open how it is cut into triangles and other colours would depend on the
 * cut. */
#define GLTEST_NAME "gl_prims"
#include "gltest.h"

static void ortho(void)
{
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
}

static void tri(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1, GLfloat x2, GLfloat y2)
{
    glVertex2f(x0, y0);
    glVertex2f(x1, y1);
    glVertex2f(x2, y2);
}

static void tile_setup(int i, GLubyte r, GLubyte g, GLubyte b);

static void draw(int frame)
{
    int i;
    (void)frame;
    glDisable(GL_CULL_FACE);
    glFrontFace(GL_CCW);
    glShadeModel(GL_SMOOTH);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glPointSize(1);
    glLineWidth(1);

    /* 0: points */
    tile_setup(0, 0, 0, 64);
    glBegin(GL_POINTS);
    for (i = 0; i < 8; i++) {
        glColor3ub(255, 255, 0);
        glVertex2f(4.5f + i * 7, 8.5f);
        glColor3ub(0, 255, 255);
        glVertex2f(4.5f + i * 7, 16.5f + i);
    }
    glEnd();
    glPointSize(4);
    glBegin(GL_POINTS);
    glColor3ub(255, 0, 0);
    glVertex2f(12, 40);
    glColor3ub(0, 255, 0);
    glVertex2f(32, 40);
    glColor3ub(255, 255, 255);
    glVertex2f(52, 52);
    glEnd();
    glPointSize(1);

    /* 1: lines, width 1 and 3 */
    tile_setup(1, 0, 0, 64);
    glBegin(GL_LINES);
    glColor3ub(255, 255, 255);
    glVertex2f(4.5f, 4.5f);
    glVertex2f(60.5f, 4.5f);
    glColor3ub(255, 0, 0);
    glVertex2f(4.5f, 8.5f);
    glColor3ub(0, 0, 255);
    glVertex2f(4.5f, 60.5f);
    glColor3ub(0, 255, 0);
    glVertex2f(10.5f, 10.5f);
    glVertex2f(40.5f, 40.5f);
    glEnd();
    glLineWidth(3);
    glBegin(GL_LINES);
    glColor3ub(255, 255, 0);
    glVertex2f(20.5f, 56.5f);
    glVertex2f(60.5f, 56.5f);
    glVertex2f(56.5f, 12.5f);
    glVertex2f(56.5f, 44.5f);
    glEnd();
    glLineWidth(1);

    /* 2: line strip, a zigzag */
    tile_setup(2, 0, 0, 64);
    glBegin(GL_LINE_STRIP);
    glColor3ub(255, 128, 0);
    glVertex2f(4.5f, 4.5f);
    glVertex2f(16.5f, 56.5f);
    glColor3ub(0, 255, 128);
    glVertex2f(28.5f, 4.5f);
    glVertex2f(40.5f, 56.5f);
    glColor3ub(128, 0, 255);
    glVertex2f(59.5f, 30.5f);
    glEnd();

    /* 3: line loop, a closed square and a triangle */
    tile_setup(3, 0, 0, 64);
    glColor3ub(255, 255, 255);
    glBegin(GL_LINE_LOOP);
    glVertex2f(6.5f, 6.5f);
    glVertex2f(57.5f, 6.5f);
    glVertex2f(57.5f, 57.5f);
    glVertex2f(6.5f, 57.5f);
    glEnd();
    glColor3ub(255, 0, 255);
    glBegin(GL_LINE_LOOP);
    glVertex2f(16.5f, 16.5f);
    glVertex2f(48.5f, 16.5f);
    glVertex2f(32.5f, 46.5f);
    glEnd();

    /* 4: independent triangles, smooth colours */
    tile_setup(4, 0, 0, 64);
    glBegin(GL_TRIANGLES);
    glColor3ub(255, 0, 0);
    glVertex2f(2, 2);
    glColor3ub(0, 255, 0);
    glVertex2f(40, 2);
    glColor3ub(0, 0, 255);
    glVertex2f(2, 40);
    glColor3ub(255, 255, 0);
    tri(62, 24, 62, 62, 24, 62);
    glEnd();

    /* 5: triangle strip, six vertices, four triangles */
    tile_setup(5, 0, 0, 64);
    glBegin(GL_TRIANGLE_STRIP);
    glColor3ub(255, 0, 0);
    glVertex2f(4, 10);
    glColor3ub(0, 255, 0);
    glVertex2f(4, 54);
    glColor3ub(0, 0, 255);
    glVertex2f(24, 4);
    glColor3ub(255, 255, 0);
    glVertex2f(34, 44);
    glColor3ub(0, 255, 255);
    glVertex2f(60, 20);
    glColor3ub(255, 0, 255);
    glVertex2f(60, 60);
    glEnd();

    /* 6: triangle fan, a half disc of five triangles around (32, 8) */
    tile_setup(6, 0, 0, 64);
    glBegin(GL_TRIANGLE_FAN);
    glColor3ub(255, 255, 255);
    glVertex2f(32, 8);
    glColor3ub(255, 0, 0);
    glVertex2f(4, 8);
    glColor3ub(255, 255, 0);
    glVertex2f(10, 36);
    glColor3ub(0, 255, 0);
    glVertex2f(32, 60);
    glColor3ub(0, 255, 255);
    glVertex2f(54, 36);
    glColor3ub(0, 0, 255);
    glVertex2f(60, 8);
    glEnd();

    /* 7: two quads, then a quad strip of two quads */
    tile_setup(7, 0, 0, 64);
    glBegin(GL_QUADS);
    glColor3ub(255, 0, 0);
    glVertex2f(4, 4);
    glVertex2f(28, 4);
    glColor3ub(0, 255, 0);
    glVertex2f(28, 24);
    glVertex2f(4, 24);
    glColor3ub(0, 0, 255);
    glVertex2f(36, 4);
    glVertex2f(60, 4);
    glVertex2f(60, 24);
    glVertex2f(36, 24);
    glEnd();
    glBegin(GL_QUAD_STRIP);
    glColor3ub(255, 255, 0);
    glVertex2f(4, 32);
    glVertex2f(4, 60);
    glColor3ub(255, 0, 255);
    glVertex2f(30, 36);
    glVertex2f(30, 56);
    glColor3ub(0, 255, 255);
    glVertex2f(60, 32);
    glVertex2f(60, 60);
    glEnd();

    /* 8: polygon, a convex pentagon */
    tile_setup(8, 0, 0, 64);
    glBegin(GL_POLYGON);
    glColor3ub(128, 16, 200);
    glVertex2f(32, 4);
    glColor3ub(240, 96, 200);
    glVertex2f(60, 24);
    glColor3ub(200, 240, 200);
    glVertex2f(50, 60);
    glColor3ub(56, 240, 200);
    glVertex2f(14, 60);
    glColor3ub(16, 96, 200);
    glVertex2f(4, 24);
    glEnd();

    /* 9: flat shading: each triangle takes its last vertex's colour, a quad its
     * fourth's, a polygon its first's */
    tile_setup(9, 0, 0, 64);
    glShadeModel(GL_FLAT);
    glBegin(GL_TRIANGLES);
    glColor3ub(255, 0, 0);
    glVertex2f(2, 2);
    glColor3ub(0, 0, 255);
    glVertex2f(30, 2);
    glColor3ub(0, 255, 0);
    glVertex2f(2, 30);
    glEnd();
    glBegin(GL_QUADS);
    glColor3ub(255, 0, 0);
    glVertex2f(34, 2);
    glVertex2f(62, 2);
    glColor3ub(0, 0, 255);
    glVertex2f(62, 30);
    glColor3ub(255, 255, 0);
    glVertex2f(34, 30);
    glEnd();
    glBegin(GL_POLYGON);
    glColor3ub(255, 0, 255);
    glVertex2f(10, 34);
    glColor3ub(0, 255, 0);
    glVertex2f(54, 34);
    glColor3ub(0, 0, 255);
    glVertex2f(54, 62);
    glVertex2f(10, 62);
    glEnd();
    glShadeModel(GL_SMOOTH);

    /* 10: polygon mode GL_LINE: outlines of a triangle and a quad */
    tile_setup(10, 0, 0, 64);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    glColor3ub(255, 255, 255);
    glBegin(GL_TRIANGLES);
    tri(6.5f, 6.5f, 40.5f, 6.5f, 6.5f, 40.5f);
    glEnd();
    glColor3ub(0, 255, 0);
    glBegin(GL_QUADS);
    glVertex2f(30.5f, 30.5f);
    glVertex2f(58.5f, 30.5f);
    glVertex2f(58.5f, 58.5f);
    glVertex2f(30.5f, 58.5f);
    glEnd();

    /* 11: polygon mode GL_POINT, size 3: the corners only */
    tile_setup(11, 0, 0, 64);
    glPolygonMode(GL_FRONT_AND_BACK, GL_POINT);
    glPointSize(3);
    glColor3ub(255, 255, 0);
    glBegin(GL_QUADS);
    glVertex2f(10.5f, 10.5f);
    glVertex2f(50.5f, 10.5f);
    glVertex2f(50.5f, 50.5f);
    glVertex2f(10.5f, 50.5f);
    glEnd();
    glPointSize(1);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);

    /* 12-14: culling. Left triangle counter-clockwise, right one clockwise. */
    for (i = 12; i <= 14; i++) {
        tile_setup(i, 0, 0, 64);
        glEnable(GL_CULL_FACE);
        glCullFace(i == 13 ? GL_FRONT : GL_BACK);
        glFrontFace(i == 14 ? GL_CW : GL_CCW);
        glBegin(GL_TRIANGLES);
        glColor3ub(255, 0, 0);
        tri(2, 8, 30, 8, 16, 56);
        glColor3ub(0, 255, 0);
        tri(34, 8, 48, 56, 62, 8);
        glEnd();
        glDisable(GL_CULL_FACE);
        glFrontFace(GL_CCW);
    }

    /* 15: both faces culled: the quad is gone, the line loop around it stays */
    tile_setup(15, 0, 0, 64);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_FRONT_AND_BACK);
    glColor3ub(255, 0, 0);
    glBegin(GL_QUADS);
    glVertex2f(8, 8);
    glVertex2f(56, 8);
    glVertex2f(56, 56);
    glVertex2f(8, 56);
    glEnd();
    glColor3ub(255, 255, 255);
    glBegin(GL_LINE_LOOP);
    glVertex2f(8.5f, 8.5f);
    glVertex2f(55.5f, 8.5f);
    glVertex2f(55.5f, 55.5f);
    glVertex2f(8.5f, 55.5f);
    glEnd();
    glDisable(GL_CULL_FACE);
}


static void tile_setup(int i, GLubyte r, GLubyte g, GLubyte b)
{
    gltest_tile(i, r, g, b);
    ortho();
}
