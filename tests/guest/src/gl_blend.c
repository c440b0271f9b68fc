/* OpenGL test: blending, the alpha test, colour masks and dithering off.
 *
 * Each tile: a background of four vertical colour bars (black, red, green, white
 * over 16 pixels each), then a horizontal band drawn over it with the tile's
 * state; the band's colour goes from alpha 0 at the bottom to alpha 1 at the top
 * in four flat steps (0, 85, 170, 255) for the blend tiles, so each (bar, step)
 * pair is a 16 x 12 block of one colour.
 *  0 GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA   8 alpha test GL_GREATER 0.5
 *  1 GL_ONE, GL_ONE (additive)              9 alpha test GL_LESS 0.5
 *  2 GL_DST_COLOR, GL_ZERO (modulate)      10 alpha test GL_EQUAL 170/255
 *  3 GL_ZERO, GL_ONE_MINUS_SRC_COLOR       11 alpha test GL_NEVER / GL_ALWAYS halves
 *  4 GL_ONE_MINUS_DST_COLOR, GL_ONE        12 glColorMask(1, 0, 1, 1)
 *  5 GL_SRC_ALPHA_SATURATE, GL_ONE         13 blending off after being on (opaque)
 *  6 GL_DST_COLOR, GL_SRC_COLOR (2x)       14 a textured sprite with alpha 0 texels
 *  7 GL_ONE, GL_ZERO (replace)                cut out by GL_GREATER 0 (Quake's way)
 *                                          15 smooth alpha over the bars, blended
 * Only factors GL 1.1 allows are used (GL_SRC_COLOR is a source factor only from
 * GL 1.4; an implementation of 1.1 rightly answers GL_INVALID_ENUM).
 * Blending with destination alpha is left out: a 32-bit format of the time need
 * not have alpha bits. */
#define GLTEST_NAME "gl_blend"
#include "gltest.h"

static GLuint sprite;

static void rect(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1)
{
    glBegin(GL_QUADS);
    glTexCoord2f(0, 0);
    glVertex2f(x0, y0);
    glTexCoord2f(1, 0);
    glVertex2f(x1, y0);
    glTexCoord2f(1, 1);
    glVertex2f(x1, y1);
    glTexCoord2f(0, 1);
    glVertex2f(x0, y1);
    glEnd();
}

static void background(int i)
{
    gltest_tile(i, 0, 0, 64);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glDisable(GL_BLEND);
    glDisable(GL_ALPHA_TEST);
    glColor3ub(0, 0, 0);
    rect(0, 0, 16, 64);
    glColor3ub(255, 0, 0);
    rect(16, 0, 32, 64);
    glColor3ub(0, 255, 0);
    rect(32, 0, 48, 64);
    glColor3ub(255, 255, 255);
    rect(48, 0, 64, 64);
}

/* Four flat steps of alpha 0, 85, 170, 255 in colour (r, g, b), y 8..56. */
static void steps(GLubyte r, GLubyte g, GLubyte b)
{
    int k;
    for (k = 0; k < 4; k++) {
        glColor4ub(r, g, b, (GLubyte)(k * 85));
        rect(0, 8 + k * 12, 64, 20 + k * 12);
    }
}

static void draw(int frame)
{
    static const GLenum blend[8][2] = {
        {GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA},
        {GL_ONE, GL_ONE},
        {GL_DST_COLOR, GL_ZERO},
        {GL_ZERO, GL_ONE_MINUS_SRC_COLOR},
        {GL_ONE_MINUS_DST_COLOR, GL_ONE},
        {GL_SRC_ALPHA_SATURATE, GL_ONE},
        {GL_DST_COLOR, GL_SRC_COLOR},
        {GL_ONE, GL_ZERO},
    };
    static const GLenum alpha[3] = {GL_GREATER, GL_LESS, GL_EQUAL};
    static const GLclampf alpha_ref[3] = {0.5f, 0.5f, 170 / 255.0f};
    int i, x, y;
    glDisable(GL_DITHER);
    if (frame == 1) {
        static GLubyte img[16 * 16 * 4];
        for (y = 0; y < 16; y++)
            for (x = 0; x < 16; x++) {
                GLubyte *p = img + (y * 16 + x) * 4;
                int dx = 2 * x - 15, dy = 2 * y - 15;
                int in = dx * dx + dy * dy < 14 * 14;
                p[0] = 255;
                p[1] = (GLubyte)(x * 16);
                p[2] = (GLubyte)(y * 16);
                p[3] = in ? 255 : 0;
            }
        glGenTextures(1, &sprite);
        glBindTexture(GL_TEXTURE_2D, sprite);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 16, 16, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    for (i = 0; i < 8; i++) {
        background(i);
        glEnable(GL_BLEND);
        glBlendFunc(blend[i][0], blend[i][1]);
        steps(64, 128, 255);
        glDisable(GL_BLEND);
    }
    for (i = 0; i < 3; i++) {
        background(8 + i);
        glEnable(GL_ALPHA_TEST);
        glAlphaFunc(alpha[i], alpha_ref[i]);
        steps(255, 128, 0);
        glDisable(GL_ALPHA_TEST);
    }
    background(11);
    glEnable(GL_ALPHA_TEST);
    glAlphaFunc(GL_NEVER, 0);
    glColor4ub(255, 0, 255, 255);
    rect(4, 4, 60, 30);
    glAlphaFunc(GL_ALWAYS, 0);
    glColor4ub(255, 0, 255, 0);
    rect(4, 34, 60, 60);
    glDisable(GL_ALPHA_TEST);

    background(12);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
    glColor3ub(128, 128, 128);
    rect(8, 8, 56, 56);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);

    background(13);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glDisable(GL_BLEND);
    steps(64, 128, 255);

    background(14);
    glEnable(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, sprite);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);
    glEnable(GL_ALPHA_TEST);
    glAlphaFunc(GL_GREATER, 0);
    rect(8, 8, 56, 56);
    glDisable(GL_ALPHA_TEST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);

    background(15);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glBegin(GL_QUADS);
    glColor4ub(0, 0, 255, 0);
    glVertex2f(0, 8);
    glVertex2f(64, 8);
    glColor4ub(0, 0, 255, 255);
    glVertex2f(64, 56);
    glVertex2f(0, 56);
    glEnd();
    glDisable(GL_BLEND);
}
