/* OpenGL test: texture environment modes and formats, TexSubImage, CopyTexImage,
 * the texture matrix and perspective-correct texturing.
 *
 * Blending (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA) is on over a grey background in
 * tiles 0-4, so the alpha each mode computes shows too. The fragment colour is
 * (200, 100, 50, 160)/255 and the environment colour (0, 64, 255, 128)/255. Each
 * of tiles 0-4 draws one texture of 2 x 2 texels (A: (255,0,0,255), B: (0,255,0,128),
 * C: (0,0,255,64), D: (255,255,255,0) as RGBA; luminance and alpha from the same
 * bytes) in the six base formats, two rows of three 20 x 20 quads:
 * GL_RGB, GL_RGBA, GL_LUMINANCE / GL_LUMINANCE_ALPHA, GL_ALPHA, GL_INTENSITY.
 *  0 GL_MODULATE   1 GL_DECAL (RGB and RGBA only: the others are undefined)
 *  2 GL_BLEND      3 GL_REPLACE   4 GL_ADD (GL_EXT_texture_env_add)
 *  5 glTexSubImage2D: a 16 x 16 texture with a 4 x 4 square replaced at (8, 4)
 *  6 glCopyTexImage2D of tile 7's first 32 x 32 pixels (drawn before), drawn 1:1
 *    and turned half a turn
 *  7 a smooth triangle, the source of tile 6 (drawn first), and beside it
 *    glCopyTexSubImage2D of 16 x 16 pixels of it into a 32 x 32 texture
 *  8 the texture matrix: a translated, rotated and scaled checker
 *  9 a checker on a quad seen in perspective (texture coordinates are interpolated
 *    perspective-correctly), GL_PERSPECTIVE_CORRECTION_HINT GL_NICEST
 * 10 GL_UNPACK_ROW_LENGTH / SKIP_PIXELS / SKIP_ROWS picking a 4 x 4 window of an
 *    8 x 8 image */
#define GLTEST_NAME "gl_texenv"
#include "gltest.h"

static GLuint tex_fmt[6], tex_sub, tex_copy, tex_copysub, tex_checker, tex_window;

static void ortho(int i, GLubyte grey)
{
    gltest_tile(i, grey, grey, grey);
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

static void nearest(void)
{
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

static void make_textures(void)
{
    static const GLubyte rgba[16] = {255, 0, 0, 255, 0, 255, 0, 128,
                                     0, 0, 255, 64, 255, 255, 255, 0};
    static const GLubyte rgb[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
    static const GLubyte lum[4] = {255, 128, 64, 0};
    static const GLubyte la[8] = {255, 255, 128, 128, 64, 64, 0, 0};
    static const GLubyte lum_rev[4] = {255, 128, 64, 16};
    static GLubyte img[64 * 64 * 4];
    int x, y;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glGenTextures(6, tex_fmt);
    glBindTexture(GL_TEXTURE_2D, tex_fmt[0]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 2, 2, 0, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_fmt[1]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_fmt[2]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_LUMINANCE, 2, 2, 0, GL_LUMINANCE, GL_UNSIGNED_BYTE, lum);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_fmt[3]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_LUMINANCE_ALPHA, 2, 2, 0, GL_LUMINANCE_ALPHA,
                 GL_UNSIGNED_BYTE, la);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_fmt[4]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_ALPHA, 2, 2, 0, GL_ALPHA, GL_UNSIGNED_BYTE, lum);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_fmt[5]);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_INTENSITY, 2, 2, 0, GL_LUMINANCE, GL_UNSIGNED_BYTE,
                 lum_rev);
    nearest();

    glGenTextures(1, &tex_sub);
    glBindTexture(GL_TEXTURE_2D, tex_sub);
    for (x = 0; x < 16 * 16; x++) {
        img[x * 3 + 0] = (x & 16) ? 40 : 0;
        img[x * 3 + 1] = 80;
        img[x * 3 + 2] = 160;
    }
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 16, 16, 0, GL_RGB, GL_UNSIGNED_BYTE, img);
    nearest();
    for (x = 0; x < 16; x++) {
        img[x * 3 + 0] = 255;
        img[x * 3 + 1] = x * 16;
        img[x * 3 + 2] = 0;
    }
    glTexSubImage2D(GL_TEXTURE_2D, 0, 8, 4, 4, 4, GL_RGB, GL_UNSIGNED_BYTE, img);

    glGenTextures(1, &tex_copy);
    glGenTextures(1, &tex_copysub);
    glBindTexture(GL_TEXTURE_2D, tex_copysub);
    for (x = 0; x < 32 * 32; x++) {
        img[x * 3 + 0] = 0;
        img[x * 3 + 1] = 0;
        img[x * 3 + 2] = 255;
    }
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 32, 32, 0, GL_RGB, GL_UNSIGNED_BYTE, img);
    nearest();

    glGenTextures(1, &tex_checker);
    glBindTexture(GL_TEXTURE_2D, tex_checker);
    for (y = 0; y < 8; y++)
        for (x = 0; x < 8; x++) {
            GLubyte *p = img + (y * 8 + x) * 3;
            int on = (x + y) & 1;
            p[0] = on ? 255 : 0;
            p[1] = on ? 255 : (GLubyte)(y * 32);
            p[2] = on ? 255 : (GLubyte)(x * 32);
        }
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 8, 8, 0, GL_RGB, GL_UNSIGNED_BYTE, img);
    nearest();

    /* an 8 x 8 RGBA image whose 4 x 4 window at (3, 2) is taken */
    for (y = 0; y < 8; y++)
        for (x = 0; x < 8; x++) {
            GLubyte *p = img + (y * 8 + x) * 4;
            int in = x >= 3 && x < 7 && y >= 2 && y < 6;
            p[0] = in ? (GLubyte)(x * 36) : 255;
            p[1] = in ? (GLubyte)(y * 36) : 0;
            p[2] = in ? 128 : 255;
            p[3] = 255;
        }
    glGenTextures(1, &tex_window);
    glBindTexture(GL_TEXTURE_2D, tex_window);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 8);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 3);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 2);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    nearest();
    glBindTexture(GL_TEXTURE_2D, 0);
}

static void draw(int frame)
{
    static const GLenum modes[5] = {GL_MODULATE, GL_DECAL, GL_BLEND, GL_REPLACE, GL_ADD};
    static const GLfloat env[4] = {0, 64 / 255.0f, 1, 128 / 255.0f};
    int i, k;
    if (frame == 1)
        make_textures();
    glEnable(GL_TEXTURE_2D);
    glTexEnvfv(GL_TEXTURE_ENV, GL_TEXTURE_ENV_COLOR, env);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

    for (i = 0; i < 5; i++) {
        ortho(i, 96);
        glEnable(GL_BLEND);
        glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, modes[i]);
        glColor4ub(200, 100, 50, 160);
        for (k = 0; k < 6; k++) {
            GLfloat x = 1 + (k % 3) * 21, y = 42 - (k / 3) * 24;
            if (modes[i] == GL_DECAL && k >= 2)
                continue;
            glBindTexture(GL_TEXTURE_2D, tex_fmt[k]);
            quad(x, y, x + 20, y + 20, 0, 0, 1, 1);
        }
        glDisable(GL_BLEND);
    }
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);
    glColor4ub(255, 255, 255, 255);

    ortho(5, 0);
    glBindTexture(GL_TEXTURE_2D, tex_sub);
    quad(0, 0, 64, 64, 0, 0, 1, 1);

    /* 7 first: the source of the copies */
    ortho(7, 0);
    glDisable(GL_TEXTURE_2D);
    glBegin(GL_TRIANGLES);
    glColor3ub(255, 0, 0);
    glVertex2f(0, 0);
    glColor3ub(0, 255, 0);
    glVertex2f(32, 0);
    glColor3ub(0, 0, 255);
    glVertex2f(0, 32);
    glEnd();
    glColor3ub(255, 255, 255);
    glEnable(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, tex_copy);
    glCopyTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 3 * 64, 256 - 2 * 64, 32, 32, 0);
    nearest();
    glBindTexture(GL_TEXTURE_2D, tex_copysub);
    glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 8, 8, 3 * 64, 256 - 2 * 64, 16, 16);
    quad(32, 32, 64, 64, 0, 0, 1, 1);

    ortho(6, 0);
    glBindTexture(GL_TEXTURE_2D, tex_copy);
    quad(0, 0, 32, 32, 0, 0, 1, 1);
    quad(32, 32, 64, 64, 1, 1, 0, 0);

    /* 8: texture matrix */
    ortho(8, 0);
    glBindTexture(GL_TEXTURE_2D, tex_checker);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glMatrixMode(GL_TEXTURE);
    glLoadIdentity();
    glTranslatef(0.5f, 0.5f, 0);
    glRotatef(30, 0, 0, 1);
    glScalef(1.5f, 1.5f, 1);
    glMatrixMode(GL_MODELVIEW);
    quad(4, 4, 60, 60, 0, 0, 1, 1);
    glMatrixMode(GL_TEXTURE);
    glLoadIdentity();
    glMatrixMode(GL_MODELVIEW);

    /* 9: perspective */
    gltest_tile(9, 0, 0, 0);
    glHint(GL_PERSPECTIVE_CORRECTION_HINT, GL_NICEST);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glFrustum(-1, 1, -1, 1, 1, 20);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glTranslatef(0, 0, -3);
    glRotatef(-70, 1, 0, 0);
    glRotatef(20, 0, 0, 1);
    quad(-2, -2, 2, 2, 0, 0, 2, 2);
    glLoadIdentity();

    /* 10: unpack window */
    ortho(10, 0);
    glBindTexture(GL_TEXTURE_2D, tex_window);
    quad(8, 8, 56, 56, 0, 0, 1, 1);

    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);
}
