/* OpenGL test: texture filters, mipmaps, wrap modes and texture objects.
 *
 * Textures are made in frame 1 and used in every frame. 4 x 4 tiles of 64 x 64
 * (gltest.h), orthographic 0..64 so vertex coordinates are pixels of the tile:
 *  0 mag GL_NEAREST: an 8 x 8 checker magnified 8 times
 *  1 mag GL_LINEAR: the same checker
 *  2-7 min filters GL_NEAREST, GL_LINEAR, GL_NEAREST_MIPMAP_NEAREST,
 *      GL_LINEAR_MIPMAP_NEAREST, GL_NEAREST_MIPMAP_LINEAR, GL_LINEAR_MIPMAP_LINEAR on a
 *      64 x 64 texture whose levels are solid colours (from red at level 0 to
 *      green at level 6 in steps of 40), drawn 24 x 24 (level 1.42) and
 *      10 x 10 (level 2.68), and 64 x 64 (level 0) in the upper half
 *  8 a perspective ground with a 64 x 64 checker of 8 x 8 blocks, mipmaps from
 *    gluBuild2DMipmaps, GL_LINEAR_MIPMAP_LINEAR
 *  9 gluBuild2DMipmaps of 32 x 32 one-texel stripes drawn 8 x 8 (level 2: the
 *    stripes averaged) beside it drawn 32 x 32 (level 0)
 * 10 GL_REPEAT with texture coordinates -1..2
 * 11 GL_CLAMP, GL_NEAREST, coordinates -0.5..1.5
 * 12 GL_CLAMP, GL_LINEAR, a green border colour, coordinates -0.5..1.5
 * 13 S GL_REPEAT, T GL_CLAMP
 * 14 texture objects: two bound in turn; a third deleted and its name bound again
 *    (a new, empty texture: texturing has no effect, the quad keeps its colour)
 * 15 GL_RGB rows of 6 bytes with GL_UNPACK_ALIGNMENT 1 (left) and 4 (right) */
#define GLTEST_NAME "gl_texture"
#include "gltest.h"

static GLuint tex_checker8, tex_levels, tex_ground, tex_stripes, tex_a, tex_b, tex_gone,
    tex_rgb1, tex_rgb4;

static void ortho(int i)
{
    gltest_tile(i, 0, 0, 64);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
}

static void quad(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1, GLfloat s0, GLfloat t0,
                 GLfloat s1, GLfloat t1)
{
    glBegin(GL_QUADS);
    glTexCoord2f(s0, t0);
    glVertex2f(x0, y0);
    glTexCoord2f(s1, t0);
    glVertex2f(x1, y0);
    glTexCoord2f(s1, t1);
    glVertex2f(x1, y1);
    glTexCoord2f(s0, t1);
    glVertex2f(x0, y1);
    glEnd();
}

static void params(GLenum min, GLenum mag, GLenum ws, GLenum wt)
{
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, ws);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wt);
}

static void make_textures(void)
{
    static GLubyte img[64 * 64 * 4];
    /* neighbouring levels differ by 40 per channel at most, so a level of detail
     * computed a little differently (llvmpipe's differs from the exact log2 by up to
     * 0.05) changes a blend by about 2, while the wrong level or no blending
     * changes it by 13 or more */
    static const GLubyte level_colour[7][3] = {{255, 0, 0},    {215, 40, 20},  {175, 80, 40},
                                               {135, 120, 60}, {95, 160, 80},  {55, 200, 100},
                                               {15, 240, 120}};
    static const GLubyte rgb1[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0};
    static const GLubyte rgb4[16] = {255, 0, 0, 0, 255, 0, 9, 9, 0, 0, 255, 255, 255, 0, 9, 9};
    int x, y, l, size;
    GLuint names[9];
    glGenTextures(9, names);
    tex_checker8 = names[0];
    tex_levels = names[1];
    tex_ground = names[2];
    tex_stripes = names[3];
    tex_a = names[4];
    tex_b = names[5];
    tex_gone = names[6];
    tex_rgb1 = names[7];
    tex_rgb4 = names[8];
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);

    for (y = 0; y < 8; y++)
        for (x = 0; x < 8; x++) {
            GLubyte *p = img + (y * 8 + x) * 4;
            int on = (x + y) & 1;
            p[0] = on ? 255 : 32;
            p[1] = on ? 224 : 32;
            p[2] = on ? 64 : 160;
            p[3] = 255;
        }
    glBindTexture(GL_TEXTURE_2D, tex_checker8);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);

    glBindTexture(GL_TEXTURE_2D, tex_levels);
    for (l = 0, size = 64; size >= 1; l++, size /= 2) {
        for (x = 0; x < size * size; x++) {
            img[x * 4 + 0] = level_colour[l][0];
            img[x * 4 + 1] = level_colour[l][1];
            img[x * 4 + 2] = level_colour[l][2];
            img[x * 4 + 3] = 255;
        }
        glTexImage2D(GL_TEXTURE_2D, l, GL_RGBA, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    }

    for (y = 0; y < 64; y++)
        for (x = 0; x < 64; x++) {
            GLubyte *p = img + (y * 64 + x) * 3;
            int on = ((x >> 3) + (y >> 3)) & 1;
            p[0] = on ? 255 : 0;
            p[1] = on ? 255 : 64;
            p[2] = on ? 255 : 0;
        }
    glBindTexture(GL_TEXTURE_2D, tex_ground);
    gluBuild2DMipmaps(GL_TEXTURE_2D, GL_RGB, 64, 64, GL_RGB, GL_UNSIGNED_BYTE, img);

    for (y = 0; y < 32; y++)
        for (x = 0; x < 32; x++) {
            GLubyte *p = img + (y * 32 + x) * 3;
            p[0] = (x & 1) ? 255 : 0;
            p[1] = (x & 1) ? 0 : 200;
            p[2] = (y & 1) ? 100 : 0;
        }
    glBindTexture(GL_TEXTURE_2D, tex_stripes);
    gluBuild2DMipmaps(GL_TEXTURE_2D, GL_RGB, 32, 32, GL_RGB, GL_UNSIGNED_BYTE, img);

    /* 4 x 4: a 2 x 2 colour block pattern */
    for (y = 0; y < 4; y++)
        for (x = 0; x < 4; x++) {
            GLubyte *p = img + (y * 4 + x) * 4;
            p[0] = (x < 2) ? 255 : 0;
            p[1] = (y < 2) ? 255 : 0;
            p[2] = (x >= 2 && y >= 2) ? 255 : 0;
            p[3] = 255;
        }
    glBindTexture(GL_TEXTURE_2D, tex_a);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    for (x = 0; x < 16; x++) {
        img[x * 4 + 0] = 255;
        img[x * 4 + 1] = 128;
        img[x * 4 + 2] = 0;
        img[x * 4 + 3] = 255;
    }
    glBindTexture(GL_TEXTURE_2D, tex_b);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D, tex_gone);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    glDeleteTextures(1, &tex_gone);

    glBindTexture(GL_TEXTURE_2D, tex_rgb1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 2, 2, 0, GL_RGB, GL_UNSIGNED_BYTE, rgb1);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D, tex_rgb4);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 2, 2, 0, GL_RGB, GL_UNSIGNED_BYTE, rgb4);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D, 0);
}

static void draw(int frame)
{
    static const GLenum min[6] = {GL_NEAREST,
                                  GL_LINEAR,
                                  GL_NEAREST_MIPMAP_NEAREST,
                                  GL_LINEAR_MIPMAP_NEAREST,
                                  GL_NEAREST_MIPMAP_LINEAR,
                                  GL_LINEAR_MIPMAP_LINEAR};
    static const GLfloat green[4] = {0, 1, 0, 1};
    int i;
    if (frame == 1)
        make_textures();
    glEnable(GL_TEXTURE_2D);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);
    glColor3ub(255, 255, 255);

    for (i = 0; i < 2; i++) {
        ortho(i);
        glBindTexture(GL_TEXTURE_2D, tex_checker8);
        params(GL_NEAREST, i ? GL_LINEAR : GL_NEAREST, GL_REPEAT, GL_REPEAT);
        quad(0, 0, 64, 64, 0, 0, 1, 1);
    }

    glBindTexture(GL_TEXTURE_2D, tex_levels);
    for (i = 0; i < 6; i++) {
        ortho(2 + i);
        params(min[i], GL_NEAREST, GL_REPEAT, GL_REPEAT);
        quad(4, 4, 28, 28, 0, 0, 1, 1);
        quad(40, 10, 50, 20, 0, 0, 1, 1);
        /* magnified by 1: level 0 whatever the min filter */
        quad(0, 32, 64, 96, 0, 0, 1, 1);
    }

    /* 8: the ground */
    gltest_tile(8, 0, 0, 64);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    gluPerspective(60, 1, 0.5, 100);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    gluLookAt(0, 1, 0, 0, 1, -1, 0, 1, 0);
    glBindTexture(GL_TEXTURE_2D, tex_ground);
    params(GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, GL_REPEAT, GL_REPEAT);
    glBegin(GL_QUADS);
    glTexCoord2f(0, 0);
    glVertex3f(-3, 0, -1);
    glTexCoord2f(3, 0);
    glVertex3f(3, 0, -1);
    glTexCoord2f(3, 8);
    glVertex3f(3, 0, -17);
    glTexCoord2f(0, 8);
    glVertex3f(-3, 0, -17);
    glEnd();

    /* 9: stripes */
    ortho(9);
    glBindTexture(GL_TEXTURE_2D, tex_stripes);
    params(GL_NEAREST_MIPMAP_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    quad(4, 4, 12, 12, 0, 0, 1, 1);
    quad(28, 28, 60, 60, 0, 0, 1, 1);

    /* 10-13: wrap modes on the magnified checker */
    glBindTexture(GL_TEXTURE_2D, tex_checker8);
    ortho(10);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_REPEAT);
    quad(4, 4, 60, 60, -1, -1, 2, 2);
    ortho(11);
    params(GL_NEAREST, GL_NEAREST, GL_CLAMP, GL_CLAMP);
    quad(4, 4, 60, 60, -0.5f, -0.5f, 1.5f, 1.5f);
    ortho(12);
    params(GL_LINEAR, GL_LINEAR, GL_CLAMP, GL_CLAMP);
    glTexParameterfv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, green);
    quad(4, 4, 60, 60, -0.5f, -0.5f, 1.5f, 1.5f);
    ortho(13);
    params(GL_NEAREST, GL_NEAREST, GL_REPEAT, GL_CLAMP);
    quad(4, 4, 60, 60, -0.5f, -0.5f, 1.5f, 1.5f);

    /* 14: texture objects */
    ortho(14);
    glBindTexture(GL_TEXTURE_2D, tex_a);
    quad(4, 4, 28, 28, 0, 0, 1, 1);
    glBindTexture(GL_TEXTURE_2D, tex_b);
    quad(36, 4, 60, 28, 0, 0, 1, 1);
    glBindTexture(GL_TEXTURE_2D, tex_a);
    quad(4, 36, 28, 60, 0, 0, 2, 2);
    glBindTexture(GL_TEXTURE_2D, tex_gone);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE);
    glColor3ub(0, 160, 255);
    quad(36, 36, 60, 60, 0, 0, 1, 1);
    glColor3ub(255, 255, 255);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);

    /* 15: unpack alignment */
    ortho(15);
    glBindTexture(GL_TEXTURE_2D, tex_rgb1);
    quad(4, 16, 28, 40, 0, 0, 1, 1);
    glBindTexture(GL_TEXTURE_2D, tex_rgb4);
    quad(36, 16, 60, 40, 0, 0, 1, 1);

    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);
}
