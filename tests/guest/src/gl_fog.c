/* OpenGL test: fog.
 *
 * Fog may be computed per vertex or per fragment, so every fogged primitive here
 * lies at one eye distance: rows of 8 x 8 squares facing the viewer, each at its
 * own distance, in a perspective projection scaled so each square is drawn the
 * same size (glScalef by the distance). Each tile shows eight squares, at eye
 * distances 1, 2, ..., 8 (left to right, two rows of four going down), white on
 * a background cleared to the fog colour (except tile 15).
 *  0 GL_LINEAR, start 1, end 8        6 GL_EXP2, density 0.15
 *  1 GL_LINEAR, start 3, end 6        7 GL_EXP2, density 0.4
 *  2 GL_LINEAR, start 0, end 16       8 GL_LINEAR on red squares, blue fog
 *  3 GL_EXP, density 0.1              9 GL_EXP with a textured checker
 *  4 GL_EXP, density 0.3             10 GL_LINEAR on smooth-coloured squares
 *  5 GL_EXP, density 0.7             11 fog off again after tile 10
 * 12 GL_LINEAR with blending (alpha 0.5 squares over the bars of the background)
 * 13 GL_FOG_HINT GL_NICEST, GL_EXP2 0.25
 * 14 GL_LINEAR with start > end (5, 2): fog falls with distance
 * 15 GL_LINEAR, grey fog over a black background */
#define GLTEST_NAME "gl_fog"
#include "gltest.h"

static GLuint checker;

static void setup(int i, const GLfloat *fog)
{
    gltest_tile(i, (GLubyte)(fog[0] * 255), (GLubyte)(fog[1] * 255), (GLubyte)(fog[2] * 255));
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glFrustum(-1, 1, -1, 1, 1, 40);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glFogfv(GL_FOG_COLOR, fog);
}

/* Square k (0..7) at eye distance k + 1: left to right, top row first. At
 * distance d a unit of x on screen is 1/d, so coordinates are scaled by d. */
static void squares(int smooth)
{
    int k;
    for (k = 0; k < 8; k++) {
        GLfloat d = (GLfloat)(k + 1);
        GLfloat x = -0.9f + (k % 4) * 0.47f, y = 0.1f - (k / 4) * 0.9f;
        glBegin(GL_QUADS);
        /* smooth colours affine in position: how the quad is cut cannot matter */
        if (smooth)
            glColor3ub(0, 0, 200);
        glTexCoord2f(0, 0);
        glVertex3f(x * d, y * d, -d);
        if (smooth)
            glColor3ub(255, 0, 200);
        glTexCoord2f(1, 0);
        glVertex3f((x + 0.4f) * d, y * d, -d);
        if (smooth)
            glColor3ub(255, 255, 200);
        glTexCoord2f(1, 1);
        glVertex3f((x + 0.4f) * d, (y + 0.7f) * d, -d);
        if (smooth)
            glColor3ub(0, 255, 200);
        glTexCoord2f(0, 1);
        glVertex3f(x * d, (y + 0.7f) * d, -d);
        glEnd();
    }
}

static void fog_mode(GLenum mode, GLfloat a, GLfloat b)
{
    glEnable(GL_FOG);
    glFogi(GL_FOG_MODE, mode);
    if (mode == GL_LINEAR) {
        glFogf(GL_FOG_START, a);
        glFogf(GL_FOG_END, b);
    } else {
        glFogf(GL_FOG_DENSITY, a);
    }
}

static void draw(int frame)
{
    static const GLfloat grey[4] = {0.5f, 0.5f, 0.5f, 1};
    static const GLfloat blue[4] = {0, 0, 1, 1};
    static const GLfloat dark[4] = {0.2f, 0.2f, 0.2f, 1};
    static const GLenum mode[8] = {GL_LINEAR, GL_LINEAR, GL_LINEAR, GL_EXP,
                                   GL_EXP,    GL_EXP,    GL_EXP2,   GL_EXP2};
    static const GLfloat a[8] = {1, 3, 0, 0.1f, 0.3f, 0.7f, 0.15f, 0.4f};
    static const GLfloat b[8] = {8, 6, 16, 0, 0, 0, 0, 0};
    int i;
    if (frame == 1) {
        static GLubyte img[4 * 4 * 3];
        for (i = 0; i < 16; i++) {
            int on = ((i & 3) + (i >> 2)) & 1;
            img[i * 3 + 0] = on ? 255 : 0;
            img[i * 3 + 1] = on ? 255 : 128;
            img[i * 3 + 2] = on ? 0 : 255;
        }
        glGenTextures(1, &checker);
        glBindTexture(GL_TEXTURE_2D, checker);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 4, 4, 0, GL_RGB, GL_UNSIGNED_BYTE, img);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glHint(GL_FOG_HINT, GL_DONT_CARE);
    for (i = 0; i < 8; i++) {
        setup(i, grey);
        fog_mode(mode[i], a[i], b[i]);
        glColor3ub(255, 255, 255);
        squares(0);
        glDisable(GL_FOG);
    }

    setup(8, blue);
    fog_mode(GL_LINEAR, 1, 8);
    glColor3ub(255, 0, 0);
    squares(0);

    setup(9, grey);
    fog_mode(GL_EXP, 0.2f, 0);
    glEnable(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, checker);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE);
    glColor3ub(255, 255, 255);
    squares(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);

    setup(10, grey);
    fog_mode(GL_LINEAR, 1, 10);
    squares(1);

    setup(11, grey);
    glDisable(GL_FOG);
    glColor3ub(255, 255, 255);
    squares(0);

    setup(12, dark);
    glDisable(GL_FOG);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glBegin(GL_QUADS);
    glColor3ub(255, 0, 0);
    glVertex2f(0, 0);
    glVertex2f(21, 0);
    glVertex2f(21, 64);
    glVertex2f(0, 64);
    glColor3ub(0, 255, 0);
    glVertex2f(43, 0);
    glVertex2f(64, 0);
    glVertex2f(64, 64);
    glVertex2f(43, 64);
    glEnd();
    glLoadIdentity();
    glFrustum(-1, 1, -1, 1, 1, 40);
    glMatrixMode(GL_MODELVIEW);
    fog_mode(GL_LINEAR, 1, 8);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glColor4ub(255, 255, 255, 128);
    squares(0);
    glDisable(GL_BLEND);

    setup(13, grey);
    glHint(GL_FOG_HINT, GL_NICEST);
    fog_mode(GL_EXP2, 0.25f, 0);
    glColor3ub(255, 255, 255);
    squares(0);
    glHint(GL_FOG_HINT, GL_DONT_CARE);

    setup(14, grey);
    fog_mode(GL_LINEAR, 5, 2);
    glColor3ub(255, 255, 255);
    squares(0);

    gltest_tile(15, 0, 0, 0);
    glFogfv(GL_FOG_COLOR, grey);
    fog_mode(GL_LINEAR, 1, 8);
    glColor3ub(0, 255, 255);
    squares(0);
    glDisable(GL_FOG);
}
