/* OpenGL test: display lists and vertex arrays.
 *
 * Lists and arrays are made in frame 1 and used in every frame. Orthographic
 * 0..64 per tile (gltest.h):
 *  0 glNewList GL_COMPILE of a quad, called three times with translations
 *  1 GL_COMPILE_AND_EXECUTE: drawn once while compiled (left), once called (right)
 *  2 a list holding state (colour, glShadeModel GL_FLAT) and matrix operations
 *    (glPushMatrix/glTranslatef/glPopMatrix): the state change persists after it
 *  3 nested lists (a list calling two others), glListBase and glCallLists with
 *    GL_UNSIGNED_BYTE names
 *  4 glDeleteLists: calling a deleted list draws nothing; glIsList answers
 *    (printed in frame 1)
 *  5 glDrawArrays GL_TRIANGLES from tightly packed float vertices and byte colours
 *  6 glDrawArrays GL_TRIANGLE_STRIP with strided (interleaved struct) arrays
 *  7 glDrawArrays with a first > 0 and GL_LINE_LOOP
 *  8 glDrawElements GL_UNSIGNED_BYTE indices, GL_QUADS
 *  9 glDrawElements GL_UNSIGNED_SHORT, GL_TRIANGLE_FAN
 * 10 glDrawElements GL_UNSIGNED_INT, GL_TRIANGLES sharing vertices
 * 11 glArrayElement inside glBegin/glEnd
 * 12 glInterleavedArrays GL_C3F_V3F
 * 13 glInterleavedArrays GL_T2F_V3F with a texture (nearest checker)
 * 14 short vertices (GL_SHORT, 2 components) and float colours with alpha, blended
 * 15 a display list that captured vertex arrays at compile time (client arrays
 *    changed afterwards do not change the list) */
#define GLTEST_NAME "gl_arrays"
#include "gltest.h"

static GLuint list_quad, list_state, list_base, list_nest, list_gone, list_arrays, tex;

struct vtx {
    GLfloat x, y;
    GLubyte rgba[4];
    GLfloat pad;
};

static void setup(int i)
{
    gltest_tile(i, 0, 0, 64);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, 64, 0, 64, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
}

static void rect(GLfloat x0, GLfloat y0, GLfloat x1, GLfloat y1)
{
    glBegin(GL_QUADS);
    glVertex2f(x0, y0);
    glVertex2f(x1, y0);
    glVertex2f(x1, y1);
    glVertex2f(x0, y1);
    glEnd();
}

static const GLfloat capture_v[6] = {4, 4, 60, 4, 32, 60};
static GLfloat capture_live[6];

static void make(void)
{
    static const GLubyte ids[3] = {0, 1, 2};
    int k;
    list_quad = glGenLists(1);
    glNewList(list_quad, GL_COMPILE);
    rect(0, 0, 16, 16);
    glEndList();

    list_state = glGenLists(1);
    glNewList(list_state, GL_COMPILE);
    glColor3ub(255, 128, 0);
    glShadeModel(GL_FLAT);
    glPushMatrix();
    glTranslatef(32, 32, 0);
    rect(0, 0, 24, 24);
    glPopMatrix();
    glEndList();

    /* three consecutive lists: a red, a green and a blue square at different places */
    list_base = glGenLists(3);
    for (k = 0; k < 3; k++) {
        glNewList(list_base + k, GL_COMPILE);
        glColor3ub(k == 0 ? 255 : 0, k == 1 ? 255 : 0, k == 2 ? 255 : 0);
        rect(4 + k * 20, 4, 18 + k * 20, 18);
        glEndList();
    }
    list_nest = glGenLists(1);
    glNewList(list_nest, GL_COMPILE);
    glCallList(list_base + 2);
    glTranslatef(0, 30, 0);
    glListBase(list_base);
    glCallLists(3, GL_UNSIGNED_BYTE, ids);
    glListBase(0);
    glEndList();

    list_gone = glGenLists(1);
    glNewList(list_gone, GL_COMPILE);
    glColor3ub(255, 0, 0);
    rect(0, 0, 64, 64);
    glEndList();

    memcpy(capture_live, capture_v, sizeof capture_v);
    glEnableClientState(GL_VERTEX_ARRAY);
    glVertexPointer(2, GL_FLOAT, 0, capture_live);
    list_arrays = glGenLists(1);
    glNewList(list_arrays, GL_COMPILE);
    glColor3ub(0, 255, 128);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glEndList();
    glDisableClientState(GL_VERTEX_ARRAY);
    /* Deleted only now: glGenLists may hand out a deleted name again, and then
     * tile 4 would call that list. */
    printf("glIsList before delete: %d\n", glIsList(list_gone));
    glDeleteLists(list_gone, 1);
    printf("glIsList after delete: %d\n", glIsList(list_gone));
    /* the list holds the vertices as they were */
    for (k = 0; k < 6; k++)
        capture_live[k] = 32;

    {
        static GLubyte img[4 * 4 * 3];
        for (k = 0; k < 16; k++) {
            int on = ((k & 3) + (k >> 2)) & 1;
            img[k * 3 + 0] = on ? 255 : 0;
            img[k * 3 + 1] = on ? 255 : 0;
            img[k * 3 + 2] = on ? 0 : 255;
        }
        glGenTextures(1, &tex);
        glBindTexture(GL_TEXTURE_2D, tex);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB, 4, 4, 0, GL_RGB, GL_UNSIGNED_BYTE, img);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
}

static void draw(int frame)
{
    static const GLfloat tri_v[12] = {4, 4, 40, 4, 4, 40, 60, 24, 60, 60, 24, 60};
    static const GLubyte tri_c[24] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                                      255, 255, 0, 255, 0, 255, 255, 255, 255, 0, 255, 255};
    static const struct vtx strip[6] = {
        {4, 8, {255, 0, 0, 255}, 0},   {4, 56, {0, 255, 0, 255}, 0},
        {30, 4, {0, 0, 255, 255}, 0},  {30, 60, {255, 255, 0, 255}, 0},
        {60, 8, {0, 255, 255, 255}, 0}, {60, 56, {255, 0, 255, 255}, 0}};
    static const GLfloat loop_v[14] = {0, 0, 0, 0, 8.5f, 8.5f, 55.5f, 8.5f,
                                       55.5f, 55.5f, 8.5f, 55.5f, 32.5f, 40.5f};
    static const GLfloat grid_v[18] = {4, 4, 32, 4, 60, 4, 4, 32, 32, 32, 60, 32, 4, 60, 32, 60, 60, 60};
    /* colours affine in position (so how a quad is cut into triangles cannot matter):
     * (120 i, 120 j, 240 - 60 i - 60 j) for column i and row j */
    static const GLubyte grid_c[27] = {0,   0,   240, 120, 0,   180, 240, 0,   120,
                                       0,   120, 180, 120, 120, 120, 240, 120, 60,
                                       0,   240, 120, 120, 240, 60,  240, 240, 0};
    static const GLubyte quads_b[8] = {0, 1, 4, 3, 4, 5, 8, 7};
    static const GLushort fan_s[6] = {4, 0, 2, 8, 6, 0};
    static const GLuint tris_i[9] = {0, 1, 3, 1, 5, 4, 3, 7, 6};
    static const GLfloat c3f_v3f[24] = {0, 0, 0.8f, 4, 4, 0, 1, 0, 0.8f, 60, 4, 0,
                                        1, 1, 0.8f, 60, 60, 0, 0, 1, 0.8f, 4, 60, 0};
    static const GLfloat t2f_v3f[20] = {0, 0, 4, 4, 0, 2, 0, 60, 4, 0,
                                        2, 2, 60, 60, 0, 0, 2, 4, 60, 0};
    static const GLshort short_v[8] = {8, 8, 48, 8, 48, 48, 8, 48};
    static const GLfloat float_c[16] = {1, 0, 0, 0.25f, 1, 0, 0, 0.25f, 0, 0, 1, 1, 0, 0, 1, 1};
    int k;
    if (frame == 1)
        make();
    glShadeModel(GL_SMOOTH);
    glColor3ub(255, 255, 255);

    setup(0);
    for (k = 0; k < 3; k++) {
        glColor3ub(255, (GLubyte)(k * 120), 0);
        glPushMatrix();
        glTranslatef(4 + k * 20, 4 + k * 20, 0);
        glCallList(list_quad);
        glPopMatrix();
    }

    setup(1);
    {
        /* compiled and executed every frame: a fresh name each time */
        GLuint l = glGenLists(1);
        glNewList(l, GL_COMPILE_AND_EXECUTE);
        glBegin(GL_TRIANGLES);
        glColor3ub(255, 0, 255);
        glVertex2f(4, 4);
        glVertex2f(28, 4);
        glVertex2f(16, 40);
        glEnd();
        glEndList();
        glTranslatef(32, 16, 0);
        glCallList(l);
        glDeleteLists(l, 1);
    }

    setup(2);
    glCallList(list_state);
    /* the colour and flat shading the list set are still in effect */
    glBegin(GL_TRIANGLES);
    glVertex2f(4, 4);
    glVertex2f(28, 4);
    glColor3ub(0, 128, 255);
    glVertex2f(4, 28);
    glEnd();
    glShadeModel(GL_SMOOTH);

    setup(3);
    glCallList(list_nest);

    setup(4);
    glCallList(list_gone);
    glColor3ub(0, 255, 0);
    rect(24, 24, 40, 40);

    glEnableClientState(GL_VERTEX_ARRAY);
    glEnableClientState(GL_COLOR_ARRAY);

    setup(5);
    glVertexPointer(2, GL_FLOAT, 0, tri_v);
    glColorPointer(4, GL_UNSIGNED_BYTE, 0, tri_c);
    glDrawArrays(GL_TRIANGLES, 0, 6);

    setup(6);
    glVertexPointer(2, GL_FLOAT, sizeof(struct vtx), &strip[0].x);
    glColorPointer(4, GL_UNSIGNED_BYTE, sizeof(struct vtx), strip[0].rgba);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 6);

    setup(7);
    glDisableClientState(GL_COLOR_ARRAY);
    glColor3ub(255, 255, 255);
    glVertexPointer(2, GL_FLOAT, 0, loop_v);
    glDrawArrays(GL_LINE_LOOP, 2, 5);
    glEnableClientState(GL_COLOR_ARRAY);

    glVertexPointer(2, GL_FLOAT, 0, grid_v);
    glColorPointer(3, GL_UNSIGNED_BYTE, 0, grid_c);
    setup(8);
    glDrawElements(GL_QUADS, 8, GL_UNSIGNED_BYTE, quads_b);
    setup(9);
    glDrawElements(GL_TRIANGLE_FAN, 6, GL_UNSIGNED_SHORT, fan_s);
    setup(10);
    glDrawElements(GL_TRIANGLES, 9, GL_UNSIGNED_INT, tris_i);
    setup(11);
    glBegin(GL_QUADS);
    glArrayElement(3);
    glArrayElement(4);
    glArrayElement(7);
    glArrayElement(6);
    glEnd();

    setup(12);
    glInterleavedArrays(GL_C3F_V3F, 0, c3f_v3f);
    glDrawArrays(GL_QUADS, 0, 4);

    setup(13);
    glEnable(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);
    glInterleavedArrays(GL_T2F_V3F, 0, t2f_v3f);
    glDrawArrays(GL_QUADS, 0, 4);
    glDisableClientState(GL_TEXTURE_COORD_ARRAY);
    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);

    setup(14);
    glColor3ub(0, 255, 0);
    glBegin(GL_QUADS);
    glVertex2f(20, 0);
    glVertex2f(36, 0);
    glVertex2f(36, 64);
    glVertex2f(20, 64);
    glEnd();
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glEnableClientState(GL_COLOR_ARRAY);
    glVertexPointer(2, GL_SHORT, 0, short_v);
    glColorPointer(4, GL_FLOAT, 0, float_c);
    glDrawArrays(GL_QUADS, 0, 4);
    glDisable(GL_BLEND);

    glDisableClientState(GL_COLOR_ARRAY);
    glDisableClientState(GL_VERTEX_ARRAY);

    setup(15);
    glCallList(list_arrays);
}
