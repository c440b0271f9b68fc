/* OpenGL test: the matrix stacks and the transformations.
 *
 * 4 x 4 tiles of 64 x 64 (gltest.h):
 *  0 glOrtho(-2, 2, -1, 3): a unit square at the origin sits low and centred
 *  1 glFrustum: two equal squares at z = -2 (red) and z = -4 (green, half the size)
 *  2 glTranslatef            10 gluOrtho2D(0, 8, 0, 4): a square squashed to half height
 *  3 glRotatef 30 about z     11 glFrustum with a plane tilted 60 degrees about x
 *  4 glScalef(2, 0.5, 1)     12 projection stack: glPushMatrix/glPopMatrix of GL_PROJECTION
 *  5 glPushMatrix/PopMatrix  13 glViewport smaller than the tile: clipped to it
 *  6 glLoadMatrixf (a shear) 14 a triangle crossing the near plane is clipped
 *  7 glMultMatrixf           15 rotate-then-translate and translate-then-rotate
 *  8 gluPerspective, a cube with depth test (three faces seen)
 *  9 gluLookAt from above onto a chequered ground of quads
 * Smooth quads have colours affine in position (red along x, green along y), as GL
 * leaves open how a quad is cut into triangles. */
#define GLTEST_NAME "gl_matrix"
#include "gltest.h"

static void tile(int i);

static void square(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1, GLfloat z)
{
    glBegin(GL_QUADS);
    glVertex3f(x0, y0, z);
    glVertex3f(x1, y0, z);
    glVertex3f(x1, y1, z);
    glVertex3f(x0, y1, z);
    glEnd();
}

static void proj_identity(void)
{
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
}

static void cube(void)
{
    static const GLfloat v[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                    {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    static const int f[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                {2, 3, 7, 6}, {0, 4, 7, 3}, {1, 2, 6, 5}};
    static const GLubyte c[6][3] = {{255, 0, 0},   {0, 255, 0},   {0, 0, 255},
                                    {255, 255, 0}, {255, 0, 255}, {0, 255, 255}};
    int i, k;
    glBegin(GL_QUADS);
    for (i = 0; i < 6; i++) {
        glColor3ubv(c[i]);
        for (k = 0; k < 4; k++)
            glVertex3fv(v[f[i][k]]);
    }
    glEnd();
}

static void draw(int frame)
{
    static const GLfloat shear[16] = {0.5f, 0, 0, 0, 0.25f, 0.5f, 0, 0, 0, 0, 1, 0, -0.25f, -0.25f, 0, 1};
    static const GLfloat scale_move[16] = {0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.25f, 0, 0, 1};
    int i, j;
    (void)frame;
    glDisable(GL_DEPTH_TEST);
    glShadeModel(GL_SMOOTH);

    /* 0 */
    tile(0);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(-2, 2, -1, 3, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glColor3ub(255, 255, 255);
    square(-0.5f, -0.5f, 0.5f, 0.5f, 0);

    /* 1 */
    tile(1);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glFrustum(-1, 1, -1, 1, 1, 10);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glColor3ub(0, 255, 0);
    square(-3, -3, 1, 1, -4);
    glColor3ub(255, 0, 0);
    square(0, 0, 1.5f, 1.5f, -2);

    /* 2-7 use an orthographic -2..2 projection */
    for (i = 2; i <= 7; i++) {
        tile(i);
        glMatrixMode(GL_PROJECTION);
        glLoadIdentity();
        glOrtho(-2, 2, -2, 2, -1, 1);
        glMatrixMode(GL_MODELVIEW);
        glLoadIdentity();
        glColor3ub(64, 64, 64);
        square(-0.5f, -0.5f, 0.5f, 0.5f, 0);
        switch (i) {
        case 2:
            glTranslatef(1, 1.25f, 0);
            break;
        case 3:
            glRotatef(30, 0, 0, 1);
            break;
        case 4:
            glScalef(2, 0.5f, 1);
            break;
        case 5:
            glPushMatrix();
            glTranslatef(-1.25f, 0, 0);
            glColor3ub(255, 0, 0);
            square(-0.5f, -0.5f, 0.5f, 0.5f, 0);
            glPushMatrix();
            glTranslatef(0, 1.25f, 0);
            glColor3ub(0, 255, 0);
            square(-0.5f, -0.5f, 0.5f, 0.5f, 0);
            glPopMatrix();
            glTranslatef(0, -1.25f, 0);
            glColor3ub(0, 0, 255);
            square(-0.5f, -0.5f, 0.5f, 0.5f, 0);
            glPopMatrix();
            glTranslatef(1.25f, 0, 0);
            break;
        case 6:
            glLoadMatrixf(shear);
            break;
        case 7:
            glTranslatef(0, 1, 0);
            glMultMatrixf(scale_move);
            break;
        }
        glBegin(GL_QUADS);
        glColor3ub(0, 0, 200);
        glVertex2f(-0.75f, -0.75f);
        glColor3ub(255, 0, 200);
        glVertex2f(0.75f, -0.75f);
        glColor3ub(255, 255, 200);
        glVertex2f(0.75f, 0.75f);
        glColor3ub(0, 255, 200);
        glVertex2f(-0.75f, 0.75f);
        glEnd();
    }

    /* 8: a cube in perspective */
    tile(8);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    gluPerspective(45, 1, 1, 20);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glTranslatef(0, 0, -6);
    glRotatef(30, 1, 0, 0);
    glRotatef(-40, 0, 1, 0);
    cube();
    glDisable(GL_DEPTH_TEST);

    /* 9: gluLookAt onto a chequered ground (y = 0), 8 x 8 squares of 1 */
    tile(9);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    gluPerspective(60, 1, 0.5, 50);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    gluLookAt(0, 3, 6, 0, 0, 0, 0, 1, 0);
    glBegin(GL_QUADS);
    for (i = -4; i < 4; i++)
        for (j = -4; j < 4; j++) {
            if ((i + j) & 1)
                glColor3ub(255, 255, 255);
            else
                glColor3ub(200, 0, 0);
            glVertex3f(i, 0, j);
            glVertex3f(i, 0, j + 1);
            glVertex3f(i + 1, 0, j + 1);
            glVertex3f(i + 1, 0, j);
        }
    glEnd();

    /* 10 */
    tile(10);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    gluOrtho2D(0, 8, 0, 4);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glColor3ub(255, 255, 0);
    square(1, 1, 3, 3, 0);
    glColor3ub(0, 255, 255);
    square(5, 0.5f, 7, 1.5f, 0);

    /* 11: a square tilted 60 degrees away about x, smooth colours (perspective) */
    tile(11);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glFrustum(-0.5, 0.5, -0.5, 0.5, 1, 10);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glTranslatef(0, -0.5f, -3);
    glRotatef(-60, 1, 0, 0);
    glBegin(GL_QUADS);
    glColor3ub(0, 0, 200);
    glVertex2f(-1, -1);
    glColor3ub(255, 0, 200);
    glVertex2f(1, -1);
    glColor3ub(255, 255, 200);
    glVertex2f(1, 3);
    glColor3ub(0, 255, 200);
    glVertex2f(-1, 3);
    glEnd();

    /* 12: the projection stack */
    tile(12);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(-1, 1, -1, 1, -1, 1);
    glPushMatrix();
    glScalef(0.5f, 0.5f, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glColor3ub(255, 0, 0);
    square(-1, -1, 1, 1, 0);
    glMatrixMode(GL_PROJECTION);
    glPopMatrix();
    glMatrixMode(GL_MODELVIEW);
    glColor3ub(0, 0, 255);
    square(0.6f, 0.6f, 1, 1, 0);

    /* 13: a viewport of 32 x 24 at (8, 8) inside the tile; the square covers more
     * than the viewport's volume and is clipped to it */
    tile(13);
    glViewport(1 * 64 + 8, 256 - 4 * 64 + 8, 32, 24);
    proj_identity();
    glColor3ub(0, 255, 0);
    square(-2, -2, 2, 2, 0);
    glColor3ub(255, 0, 0);
    square(-0.5f, -0.5f, 0.5f, 0.5f, 0);

    /* 14: near-plane clipping: a triangle from z = -0.5 (in front of the near plane
     * at 1) to z = -5 */
    tile(14);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glFrustum(-1, 1, -1, 1, 1, 10);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glBegin(GL_TRIANGLES);
    glColor3ub(255, 255, 0);
    glVertex3f(-0.4f, -0.4f, -0.5f);
    glColor3ub(0, 255, 255);
    glVertex3f(2, -1.8f, -5); /* not -2: the far edge would run through pixel centres */
    glColor3ub(255, 0, 255);
    glVertex3f(-2, 2, -5);
    glEnd();

    /* 15: order of transformations */
    tile(15);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(-2, 2, -2, 2, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glPushMatrix();
    glRotatef(45, 0, 0, 1);
    glTranslatef(1, 0, 0);
    glColor3ub(255, 0, 0);
    square(-0.3f, -0.3f, 0.3f, 0.3f, 0);
    glPopMatrix();
    glTranslatef(1, 0, 0);
    glRotatef(45, 0, 0, 1);
    glColor3ub(0, 255, 0);
    square(-0.3f, -0.3f, 0.3f, 0.3f, 0);
    glLoadIdentity();
}


static void tile(int i)
{
    gltest_tile(i, 0, 0, 64);
}
