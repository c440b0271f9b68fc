/*
 * winterp demo: a small Win9x-style DirectDraw platform game.
 *
 * Exclusive full-screen 320x240x8 with a flipping chain (primary + 1 back
 * buffer), an 8-bit palette animated with SetEntries (water and lava colours
 * cycle), a scrolling tile map blitted with BltFast from an off-screen
 * surface, colour-keyed sprites (coins, a bird) blitted the same way, an RLE
 * player sprite, shadows through a shadow table and a recoloured second bird
 * through a remap table drawn into the locked back buffer, a 5x7 bitmap font
 * for the score, DirectSound effects generated at start-up, a waveOut music
 * loop streamed through 4 headers refilled after their callback, and a
 * multimedia timer ticking the game at 60 Hz through an event.
 *
 * Controls: arrows or the pad's X axis / POV move, Space or pad button 1
 * jumps, Escape quits. Without input the attract animation runs: the map
 * scrolls, the palette cycles and the birds fly.
 *
 * Determinism: every random number comes from an LCG with a constant seed and
 * the game state advances only on timer ticks, so what is drawn at a given
 * flip depends only on the ticks seen and the input.
 *
 * Where things are (the acceptance tests in tests/demo.rs rely on these):
 * the status bar is rows 0..STATUS_H-1, filled with colour C_PANEL, text in
 * C_TEXT drawn by draw_text() at (TEXT_X, TEXT_Y), 6 pixels per character;
 * the player stands at screen x PLAYER_START_X with feet on GROUND_Y and is
 * PLAYER_W x PLAYER_H, using the shirt colour C_SHIRT; the palette RGB values
 * are in build_palette().
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <ddraw.h>
#include <dsound.h>
#include <string.h>

#define SCREEN_W 320
#define SCREEN_H 240
#define TILE 16
#define MAP_W 64 /* tiles, wraps */
#define MAP_H 15
#define STATUS_H 12
#define TEXT_X 4
#define TEXT_Y 3
#define GROUND_Y 192 /* top of the grass row: map row 12 */
#define PLAYER_W 16
#define PLAYER_H 20
#define PLAYER_START_X 80
#define BIRD_W 16
#define BIRD_H 12
#define COIN_SIZE 8
#define TICK_HZ 60
#define TIMER_MS 4 /* the timer runs at 250 Hz; every 1000/60 ms a game tick */

/* Palette layout. */
#define C_KEY 0     /* transparent colour of every sprite */
#define C_BLACK 1
#define C_TEXT 2    /* white */
#define C_PANEL 3   /* dark blue status bar */
#define C_SKIN 4
#define C_SHIRT 5   /* red */
#define C_PANTS 6   /* blue */
#define C_HAIR 7
#define C_EYE 8
#define C_GOLD 9
#define C_GOLD_DARK 10
#define C_BIRD 11
#define C_BIRD_DARK 12
#define C_BEAK 13
#define C_BIRD2 14      /* the remapped bird's colours */
#define C_BIRD2_DARK 15
#define C_SKY 16        /* 32 shades */
#define C_HILL 48       /* 8 shades */
#define C_GRASS 56      /* 4 */
#define C_DIRT 60       /* 4 */
#define C_BRICK 64      /* 8 */
#define C_WATER 80      /* 8, cycling */
#define C_LAVA 88       /* 8, cycling */
#define C_CLOUD 96      /* 4 */
#define C_GREY 100      /* 16 greys, the shadow table's targets */
#define C_TREE 116      /* 4 */
#define C_TRUNK 120

/* ---------------------------------------------------------------- state */

static HWND g_hwnd;
static LPDIRECTDRAW g_dd;
static LPDIRECTDRAWSURFACE g_primary, g_back, g_tiles, g_sprites;
static LPDIRECTDRAWPALETTE g_pal;
static PALETTEENTRY g_palette[256];
static BYTE g_shadow[256], g_remap[256], g_glow[256];
static BYTE g_keys[256];
static int g_quit;

static LPDIRECTSOUND g_ds;
static LPDIRECTSOUNDBUFFER g_snd_jump, g_snd_coin;

static HWAVEOUT g_wave;
#define MUSIC_BUFS 4
#define MUSIC_LEN 2048 /* samples per header, 22050 Hz mono 16-bit */
static WAVEHDR g_hdr[MUSIC_BUFS];
static short g_music[MUSIC_BUFS][MUSIC_LEN];
static volatile LONG g_hdr_done[MUSIC_BUFS];

static UINT g_timer;
static HANDLE g_tick_event;
static volatile LONG g_timer_ticks;
static LONG g_timer_acc;

static unsigned g_seed = 0x1234567u;
static unsigned rnd(void)
{
    g_seed = g_seed * 1103515245u + 12345u;
    return (g_seed >> 16) & 0x7fff;
}

/* The sky and far hills, 512 wide plus SCREEN_W columns repeated so one row
 * copy never wraps. */
#define SKY_W 512
#define SKY_STRIDE (SKY_W + SCREEN_W)
static BYTE g_sky[GROUND_Y * SKY_STRIDE];

/* The near forest: a transparent layer scrolled at 3/4 speed, same wrap trick. */
#define FOREST_H 64
#define FOREST_Y (GROUND_Y - FOREST_H)
static BYTE g_forest[FOREST_H * SKY_STRIDE];

/* Water ripple: horizontal offsets in pixels, one sine period over 64 entries. */
static signed char g_ripple[64];

static BYTE g_map[MAP_H][MAP_W];
enum { T_EMPTY, T_GRASS, T_DIRT, T_BRICK, T_WATER, T_LAVA, T_CLOUD_L, T_CLOUD_R, T_COUNT };

/* Game state. */
static float g_px, g_py, g_vx, g_vy; /* player, screen coordinates of the feet centre */
static int g_on_ground = 1, g_facing = 1, g_walk;
static double g_bird_y[2], g_bird_v[2], g_bird_x[2], g_bird_dx[2];
static int g_cam;       /* map scroll in pixels */
static unsigned g_tick; /* game ticks */
static unsigned g_score;
static int g_coin_taken[MAP_W];

/* Lava sparks: world x, screen y, velocities and life, x87 floats. */
#define SPARKS 64
static struct {
    float x, y, vx, vy;
    int life;
} g_spark[SPARKS];

/* ------------------------------------------------------------ palette */

static void set_rgb(int i, int r, int g, int b)
{
    g_palette[i].peRed = (BYTE)r;
    g_palette[i].peGreen = (BYTE)g;
    g_palette[i].peBlue = (BYTE)b;
    g_palette[i].peFlags = 0;
}

static void build_palette(void)
{
    int i;
    set_rgb(C_KEY, 0, 0, 0);
    set_rgb(C_BLACK, 0, 0, 0);
    set_rgb(C_TEXT, 255, 255, 255);
    set_rgb(C_PANEL, 16, 24, 72);
    set_rgb(C_SKIN, 248, 184, 136);
    set_rgb(C_SHIRT, 216, 40, 40);
    set_rgb(C_PANTS, 40, 64, 200);
    set_rgb(C_HAIR, 96, 56, 16);
    set_rgb(C_EYE, 16, 16, 16);
    set_rgb(C_GOLD, 252, 216, 40);
    set_rgb(C_GOLD_DARK, 184, 128, 8);
    set_rgb(C_BIRD, 232, 104, 24);
    set_rgb(C_BIRD_DARK, 152, 56, 8);
    set_rgb(C_BEAK, 248, 232, 64);
    set_rgb(C_BIRD2, 120, 40, 200);
    set_rgb(C_BIRD2_DARK, 64, 16, 120);
    for (i = 0; i < 32; i++) /* light at the horizon */
        set_rgb(C_SKY + i, 40 + i * 4, 80 + i * 4, 200 + i * 1);
    for (i = 0; i < 8; i++)
        set_rgb(C_HILL + i, 40 + i * 8, 90 + i * 10, 80 + i * 6);
    for (i = 0; i < 4; i++) {
        set_rgb(C_GRASS + i, 40 + i * 24, 150 + i * 24, 40 + i * 10);
        set_rgb(C_DIRT + i, 100 + i * 16, 64 + i * 12, 32 + i * 8);
        set_rgb(C_CLOUD + i, 200 + i * 18, 210 + i * 15, 230 + i * 8);
    }
    for (i = 0; i < 8; i++) {
        set_rgb(C_BRICK + i, 120 + i * 12, 48 + i * 6, 32 + i * 4);
        set_rgb(C_WATER + i, 20 + i * 10, 60 + i * 18, 160 + i * 12);
        set_rgb(C_LAVA + i, 180 + i * 10, 40 + i * 22, 8 + i * 4);
    }
    for (i = 0; i < 16; i++)
        set_rgb(C_GREY + i, i * 8, i * 8, i * 9);
    for (i = 0; i < 4; i++)
        set_rgb(C_TREE + i, 16 + i * 14, 64 + i * 18, 40 + i * 10);
    set_rgb(C_TRUNK, 72, 48, 24);
    for (i = C_TRUNK + 1; i < 256; i++)
        set_rgb(i, 0, 0, 0);
}

/* Shadow table: every colour's nearest palette entry at about half its
 * brightness, found by a full search (what Win9x games did at start-up). The
 * cycling entries are not targets: their colour changes. */
static void build_tables(void)
{
    int i, j;
    for (i = 0; i < 256; i++) {
        int r = g_palette[i].peRed * 9 / 16, g = g_palette[i].peGreen * 9 / 16,
            b = g_palette[i].peBlue * 9 / 16;
        int best = C_BLACK, bestd = 0x7fffffff;
        for (j = 1; j < 256; j++) {
            int dr, dg, db, d;
            if (j >= C_WATER && j < C_LAVA + 8)
                continue;
            dr = g_palette[j].peRed - r;
            dg = g_palette[j].peGreen - g;
            db = g_palette[j].peBlue - b;
            d = dr * dr * 3 + dg * dg * 4 + db * db * 2;
            if (d < bestd) {
                bestd = d;
                best = j;
            }
        }
        g_shadow[i] = (BYTE)best;
        g_remap[i] = (BYTE)i;
    }
    /* Glow table: each colour lit by a spark (brighter, toward orange). */
    for (i = 0; i < 256; i++) {
        int r = g_palette[i].peRed + 120, g = g_palette[i].peGreen + 60,
            b = g_palette[i].peBlue / 2;
        int best = C_BLACK, bestd = 0x7fffffff;
        for (j = 1; j < 256; j++) {
            int dr, dg, db, d;
            if (j >= C_WATER && j < C_LAVA + 8)
                continue;
            dr = g_palette[j].peRed - (r > 255 ? 255 : r);
            dg = g_palette[j].peGreen - (g > 255 ? 255 : g);
            db = g_palette[j].peBlue - b;
            d = dr * dr * 3 + dg * dg * 4 + db * db * 2;
            if (d < bestd) {
                bestd = d;
                best = j;
            }
        }
        g_glow[i] = (BYTE)best;
    }
    g_remap[C_BIRD] = C_BIRD2;
    g_remap[C_BIRD_DARK] = C_BIRD2_DARK;
    g_remap[C_BEAK] = C_GOLD;
}

/* ------------------------------------------------------------- sprites */

/* Pixel art: '.' transparent, letters are palette entries. */
static BYTE art_colour(char c)
{
    switch (c) {
    case 'k': return C_BLACK;
    case 's': return C_SKIN;
    case 'r': return C_SHIRT;
    case 'b': return C_PANTS;
    case 'h': return C_HAIR;
    case 'e': return C_EYE;
    case 'y': return C_GOLD;
    case 'Y': return C_GOLD_DARK;
    case 'o': return C_BIRD;
    case 'O': return C_BIRD_DARK;
    case 'q': return C_BEAK;
    case 'w': return C_TEXT;
    default: return C_KEY;
    }
}

static const char *const player_art[2][PLAYER_H] = {
    {
        "......hhhh......",
        ".....hhhhhh.....",
        ".....hsssss.....",
        ".....ssesse.....",
        ".....ssssss.....",
        "......ssss......",
        ".....rrrrrr.....",
        "....rrrrrrrr....",
        "...srrrrrrrrs...",
        "...srrrrrrrrs...",
        "...s.rrrrrr.s...",
        ".....rrrrrr.....",
        ".....bbbbbb.....",
        ".....bbbbbb.....",
        ".....bb..bb.....",
        ".....bb..bb.....",
        ".....bb..bb.....",
        ".....bb..bb.....",
        "....kkk..kkk....",
        "....kkk..kkk....",
    },
    {
        "......hhhh......",
        ".....hhhhhh.....",
        ".....hsssss.....",
        ".....ssesse.....",
        ".....ssssss.....",
        "......ssss......",
        ".....rrrrrr.....",
        "....rrrrrrrr....",
        "...srrrrrrrr....",
        "..ss.rrrrrrs....",
        ".....rrrrrrss...",
        ".....rrrrrr.....",
        ".....bbbbbb.....",
        "....bbbbbbbb....",
        "...bbb...bbb....",
        "..bbb.....bb....",
        "..bb......bb....",
        ".kkk......bb....",
        ".kk.......kkk...",
        "..........kkk...",
    },
};

static const char *const bird_art[2][BIRD_H] = {
    {
        "..OO............",
        "..OOO...........",
        "...OOOO.........",
        "....OOOOO.......",
        "....oooooooo....",
        "..oooooooooooo..",
        ".ooooooooooowoqq",
        "oooooooooooooqqq",
        ".ooooooooooooo..",
        "...ooooooooo....",
        "................",
        "................",
    },
    {
        "................",
        "................",
        "................",
        "................",
        "....oooooooo....",
        "..oooooooooooo..",
        ".ooooooooooowoqq",
        "oooooooooooooqqq",
        ".oooOOOOOOoooo..",
        "...OOOOOO.oo....",
        "...OOOO.........",
        "..OO............",
    },
};

/* RLE sprites: per row a run count, then runs of (skip, length, pixels...). */
static BYTE g_player_rle[2][PLAYER_H * PLAYER_W * 2 + PLAYER_H];

static void rle_encode(const char *const *art, int w, int h, BYTE *out)
{
    int y;
    for (y = 0; y < h; y++) {
        BYTE *nruns = out++;
        int x = 0;
        *nruns = 0;
        while (x < w) {
            int skip = 0, len = 0;
            while (x < w && art[y][x] == '.') {
                skip++;
                x++;
            }
            if (x == w)
                break;
            *out++ = (BYTE)skip;
            {
                BYTE *lenp = out++;
                while (x < w && art[y][x] != '.') {
                    *out++ = art_colour(art[y][x]);
                    len++;
                    x++;
                }
                *lenp = (BYTE)len;
            }
            (*nruns)++;
        }
    }
}

/* Draws an RLE sprite with its top-left at (x, y); mirrored draws it facing
 * the other way. The caller clips: sprites are only drawn fully on screen. */
static void rle_draw(BYTE *dst, LONG pitch, const BYTE *rle, int x, int y, int w, int h,
                     int mirrored)
{
    BYTE *row = dst + y * pitch + x;
    do {
        int runs = *rle++;
        BYTE *d = mirrored ? row + w - 1 : row;
        while (runs) {
            int len;
            d += mirrored ? -(int)rle[0] : rle[0];
            len = rle[1];
            rle += 2;
            if (mirrored) {
                do {
                    *d-- = *rle++;
                } while (--len);
            } else {
                do {
                    *d++ = *rle++;
                } while (--len);
            }
            runs--;
        }
        row += pitch;
    } while (--h);
}

/* An ellipse of shadow: every pixel goes through the shadow table. */
static void draw_shadow(BYTE *dst, LONG pitch, int cx, int cy, int rx, int ry)
{
    int y;
    for (y = -ry; y <= ry; y++) {
        /* Half-width of the row: rx * sqrt(1 - (y/ry)^2), by x87. */
        double t = (double)y / (ry + 1);
        int hw = (int)(rx * __builtin_sqrt(1.0 - t * t));
        int x0 = cx - hw, n = hw * 2;
        BYTE *d;
        if (cy + y < STATUS_H || cy + y >= SCREEN_H || n <= 0)
            continue;
        if (x0 < 0) {
            n += x0;
            x0 = 0;
        }
        if (x0 + n > SCREEN_W)
            n = SCREEN_W - x0;
        if (n <= 0)
            continue;
        d = dst + (cy + y) * pitch + x0;
        do {
            *d = g_shadow[*d];
            d++;
        } while (--n);
    }
}

/* A sprite from system memory through the remap table (clipped at the sides). */
static BYTE g_bird_pixels[2][BIRD_H * BIRD_W];
static void draw_remapped(BYTE *dst, LONG pitch, const BYTE *src, int x, int y, int w, int h)
{
    int j;
    for (j = 0; j < h; j++) {
        const BYTE *s = src + j * w;
        BYTE *d = dst + (y + j) * pitch + x;
        int i;
        for (i = 0; i < w; i++) {
            BYTE c = s[i];
            if (c != C_KEY && x + i >= 0 && x + i < SCREEN_W)
                d[i] = g_remap[c];
        }
    }
}

/* ---------------------------------------------------------------- font */

/* 5x7 glyphs, one byte per row, bit 4 = leftmost column. */
static const BYTE font_digits[10][7] = {
    {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}, {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e},
    {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}, {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e},
    {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}, {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e},
    {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}, {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}, {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c},
};
static const BYTE font_glyphs[][7] = {
    {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e}, /* S */
    {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e}, /* C */
    {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}, /* O */
    {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11}, /* R */
    {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f}, /* E */
    {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* T */
    {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}, /* I */
    {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11}, /* M */
};

static const BYTE *glyph(char c)
{
    static const char letters[] = "SCORETIM";
    int i;
    if (c >= '0' && c <= '9')
        return font_digits[c - '0'];
    for (i = 0; letters[i]; i++)
        if (letters[i] == c)
            return font_glyphs[i];
    return 0; /* space */
}

static void draw_text(BYTE *dst, LONG pitch, int x, int y, const char *s, BYTE colour)
{
    for (; *s; s++, x += 6) {
        const BYTE *g = glyph(*s);
        int r;
        if (!g)
            continue;
        for (r = 0; r < 7; r++) {
            BYTE bits = g[r];
            BYTE *d = dst + (y + r) * pitch + x;
            int n = 5;
            do {
                if (bits & 0x10)
                    *d = colour;
                bits <<= 1;
                d++;
            } while (--n);
        }
    }
}

static void put_number(char *p, unsigned v, int digits)
{
    p += digits;
    while (digits--) {
        *--p = (char)('0' + v % 10);
        v /= 10;
    }
}

/* -------------------------------------------------------- row copy asm */

/* Copies `dwords` dwords from src to dst: rep movsd, as the compiler would
 * not emit it for a loop of unknown length without a library call. */
static void copy_row(void *dst, const void *src, int dwords)
{
    __asm__ volatile("rep movsl"
                     : "+D"(dst), "+S"(src), "+c"(dwords)
                     :
                     : "memory");
}

static void fill_row(void *dst, DWORD value, int dwords)
{
    __asm__ volatile("rep stosl" : "+D"(dst), "+c"(dwords) : "a"(value) : "memory");
}

/* --------------------------------------------------------- world setup */

static void build_sky(void)
{
    int x, y;
    int hill[SKY_W];
    /* Hills: a random walk smoothed, wrapping at SKY_W. */
    int h = 40;
    for (x = 0; x < SKY_W; x++) {
        h += (int)(rnd() % 5) - 2;
        if (x > SKY_W - 40) /* pull back toward the start so it wraps */
            h += (40 - h) / (SKY_W - x + 1);
        if (h < 16)
            h = 16;
        if (h > 80)
            h = 80;
        hill[x] = h;
    }
    for (y = 0; y < GROUND_Y; y++) {
        BYTE *row = g_sky + y * SKY_STRIDE;
        for (x = 0; x < SKY_W; x++) {
            int shade = (y * 32 + ((x ^ y) & 3) * 12) / GROUND_Y; /* ordered dither */
            if (shade > 31)
                shade = 31;
            if (GROUND_Y - y < hill[x])
                row[x] = (BYTE)(C_HILL + ((GROUND_Y - y) * 8 / (hill[x] + 1) + (x & 1)) % 8);
            else
                row[x] = (BYTE)(C_SKY + shade);
        }
        memcpy(row + SKY_W, row, SCREEN_W);
    }
}

static void build_forest(void)
{
    int x, y, t;
    memset(g_forest, C_KEY, sizeof g_forest);
    /* Pines: a trunk and a stack of widening triangles, left to right. */
    for (x = 8; x < SKY_W - 8; x += 14 + rnd() % 22) {
        int h = 24 + rnd() % 36, top = FOREST_H - h, shade = rnd() & 3;
        for (y = FOREST_H - 8; y < FOREST_H; y++)
            for (t = -1; t <= 1; t++)
                g_forest[y * SKY_STRIDE + x + t] = C_TRUNK;
        for (y = top; y < FOREST_H - 6; y++) {
            int hw = 1 + ((y - top) % 10) * (y - top + 10) / 40;
            for (t = -hw; t <= hw; t++) {
                int c = C_TREE + ((shade + (t < 0) + ((x + t + y) & 1)) & 3);
                if (x + t >= 0 && x + t < SKY_W)
                    g_forest[y * SKY_STRIDE + x + t] = (BYTE)c;
            }
        }
    }
    for (y = 0; y < FOREST_H; y++)
        memcpy(g_forest + y * SKY_STRIDE + SKY_W, g_forest + y * SKY_STRIDE, SCREEN_W);
    /* One sine period by the rotation recurrence, x87 doubles: no libm. */
    {
        double c = 1.0, sn = 0.0, k = 2.0 * 3.14159265358979 / 64;
        for (t = 0; t < 64; t++) {
            double nc = c - sn * k, ns = sn + nc * k;
            g_ripple[t] = (signed char)(sn * 2.5 + (sn < 0 ? -0.5 : 0.5));
            c = nc;
            sn = ns;
        }
    }
}

static void build_map(void)
{
    int x, y;
    for (y = 0; y < MAP_H; y++)
        for (x = 0; x < MAP_W; x++)
            g_map[y][x] = T_EMPTY;
    for (x = 0; x < MAP_W; x++) {
        g_map[12][x] = T_GRASS;
        g_map[13][x] = (x % 16 >= 6 && x % 16 < 9) ? T_LAVA : T_DIRT;
        g_map[14][x] = T_WATER;
    }
    for (x = 0; x < MAP_W; x += 8) {
        int w = 2 + rnd() % 3, i, y0 = 7 + rnd() % 2;
        for (i = 0; i < w; i++)
            g_map[y0][(x + 3 + i) % MAP_W] = T_BRICK;
    }
    for (x = 0; x < MAP_W; x += 11) {
        int y0 = 1 + rnd() % 3;
        g_map[y0][x] = T_CLOUD_L;
        g_map[y0][(x + 1) % MAP_W] = T_CLOUD_R;
    }
}

/* Fills the tile surface (T_COUNT tiles of 16x16 in a row). */
static void draw_tile(BYTE *p, LONG pitch, int t)
{
    int x, y;
    for (y = 0; y < TILE; y++) {
        BYTE *row = p + y * pitch;
        for (x = 0; x < TILE; x++) {
            BYTE c = C_KEY;
            switch (t) {
            case T_GRASS:
                c = y < 4 + (int)((x * 7 + 3) % 3) ? C_GRASS + (rnd() & 3)
                                                   : C_DIRT + (rnd() & 3);
                break;
            case T_DIRT:
                c = C_DIRT + (rnd() & 3);
                break;
            case T_BRICK:
                if (y % 8 == 7 || (x + (y / 8) * 8) % 16 == 0)
                    c = C_BRICK;
                else
                    c = C_BRICK + 3 + (rnd() & 3);
                break;
            case T_WATER:
                c = C_WATER + ((x + y * 3 + (y > 2 ? x / 4 : 0)) & 7);
                break;
            case T_LAVA:
                c = C_LAVA + ((x * 2 + y + (x * y) / 5) & 7);
                break;
            case T_CLOUD_L:
            case T_CLOUD_R: {
                int cx = t == T_CLOUD_L ? 16 : 0, dx = x - cx, dy = (y - 10) * 2;
                if (dx * dx + dy * dy < 15 * 15 - (dx * dx) / 2)
                    c = C_CLOUD + (y < 6 ? 3 : y < 10 ? 2 : 1);
                break;
            }
            default:
                break;
            }
            row[x] = c;
        }
    }
}

static void init_game(void)
{
    int i;
    g_px = PLAYER_START_X + PLAYER_W / 2;
    g_py = GROUND_Y;
    for (i = 0; i < 2; i++) {
        g_bird_x[i] = 40.0 + i * 150.0;
        g_bird_dx[i] = i ? -0.75 : 1.25;
        g_bird_y[i] = i ? 12.0 : -18.0;
        g_bird_v[i] = 0.0;
    }
}

/* --------------------------------------------------------------- sound */

static LPDIRECTSOUNDBUFFER make_sound(int samples, int kind)
{
    WAVEFORMATEX wf;
    DSBUFFERDESC desc;
    LPDIRECTSOUNDBUFFER buf = NULL;
    void *p1, *p2;
    DWORD n1, n2;
    memset(&wf, 0, sizeof wf);
    wf.wFormatTag = WAVE_FORMAT_PCM;
    wf.nChannels = 1;
    wf.nSamplesPerSec = 22050;
    wf.wBitsPerSample = 8;
    wf.nBlockAlign = 1;
    wf.nAvgBytesPerSec = 22050;
    memset(&desc, 0, sizeof desc);
    desc.dwSize = sizeof desc;
    desc.dwFlags = DSBCAPS_CTRLVOLUME | DSBCAPS_CTRLPAN | DSBCAPS_STATIC;
    desc.dwBufferBytes = samples;
    desc.lpwfxFormat = &wf;
    if (FAILED(IDirectSound_CreateSoundBuffer(g_ds, &desc, &buf, NULL)))
        return NULL;
    if (SUCCEEDED(IDirectSoundBuffer_Lock(buf, 0, samples, &p1, &n1, &p2, &n2, 0))) {
        BYTE *s = p1;
        DWORD i, phase = 0;
        for (i = 0; i < n1; i++) {
            /* jump: a rising square sweep; coin: two square notes */
            DWORD step = kind == 0 ? 600 + i / 4 : (i < n1 / 3 ? 2400 : 3200);
            int amp = 90 * (int)(n1 - i) / (int)n1;
            phase += step;
            s[i] = (BYTE)(128 + ((phase & 0x8000) ? amp : -amp));
        }
        IDirectSoundBuffer_Unlock(buf, p1, n1, p2, n2);
    }
    return buf;
}

static void play(LPDIRECTSOUNDBUFFER b, int pan)
{
    if (!b)
        return;
    IDirectSoundBuffer_SetCurrentPosition(b, 0);
    IDirectSoundBuffer_SetPan(b, pan);
    IDirectSoundBuffer_Play(b, 0, 0, 0);
}

/* Music: a 16-step pattern of square-wave melody over a triangle bass. */
static const BYTE melody[32] = {64, 0, 67, 0, 71, 0, 67, 71, 72, 0, 71, 67, 64, 0, 62, 0,
                                60, 0, 64, 0, 67, 0, 64, 67, 69, 0, 67, 64, 62, 0, 59, 0};
static const BYTE bass[8] = {40, 40, 43, 43, 36, 36, 38, 38};
static DWORD g_music_pos, g_ph_mel, g_ph_bass;

static DWORD note_step(int note)
{
    /* Phase step per sample of a 32-bit accumulator at 22050 Hz. */
    static const DWORD octave[12] = {
        /* 2^32 * f / 22050 for C4..B4 (MIDI notes 60..71) */
        50960238, 53990491, 57200933, 60602278, 64205876, 68023757,
        72068660, 76354085, 80894335, 85704563, 90800821, 96200119};
    int o = note / 12 - 5;
    DWORD s = octave[note % 12];
    while (o > 0) {
        s <<= 1;
        o--;
    }
    while (o < 0) {
        s >>= 1;
        o++;
    }
    return s;
}

static void fill_music(short *out, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        DWORD step16 = g_music_pos / 2756; /* 8 steps per second */
        int m = melody[step16 & 31], b = bass[(step16 >> 2) & 7];
        int v = 0;
        if (m && (g_music_pos % 2756) < 2200) {
            g_ph_mel += note_step(m);
            v += (g_ph_mel & 0x80000000u) ? 5000 : -5000;
        }
        g_ph_bass += note_step(b);
        {
            int t = (int)(g_ph_bass >> 16);
            v += (t & 0x8000 ? 0xffff - t : t) / 4 - 4096;
        }
        out[i] = (short)v;
        g_music_pos++;
    }
}

static void CALLBACK wave_proc(HWAVEOUT h, UINT msg, DWORD_PTR inst, DWORD_PTR p1, DWORD_PTR p2)
{
    (void)h;
    (void)inst;
    (void)p2;
    /* Only note it: waveOut calls are not allowed inside the callback. */
    if (msg == WOM_DONE) {
        WAVEHDR *hdr = (WAVEHDR *)p1;
        g_hdr_done[hdr->dwUser] = 1;
    }
}

static void music_start(void)
{
    WAVEFORMATEX wf;
    int i;
    memset(&wf, 0, sizeof wf);
    wf.wFormatTag = WAVE_FORMAT_PCM;
    wf.nChannels = 1;
    wf.nSamplesPerSec = 22050;
    wf.wBitsPerSample = 16;
    wf.nBlockAlign = 2;
    wf.nAvgBytesPerSec = 44100;
    if (waveOutOpen(&g_wave, WAVE_MAPPER, &wf, (DWORD_PTR)wave_proc, 0, CALLBACK_FUNCTION) !=
        MMSYSERR_NOERROR) {
        g_wave = NULL;
        return;
    }
    for (i = 0; i < MUSIC_BUFS; i++) {
        memset(&g_hdr[i], 0, sizeof g_hdr[i]);
        g_hdr[i].lpData = (LPSTR)g_music[i];
        g_hdr[i].dwBufferLength = sizeof g_music[i];
        g_hdr[i].dwUser = i;
        waveOutPrepareHeader(g_wave, &g_hdr[i], sizeof g_hdr[i]);
        fill_music(g_music[i], MUSIC_LEN);
        waveOutWrite(g_wave, &g_hdr[i], sizeof g_hdr[i]);
    }
}

static void music_pump(void)
{
    int i;
    if (!g_wave)
        return;
    for (i = 0; i < MUSIC_BUFS; i++) {
        if (g_hdr_done[i]) {
            g_hdr_done[i] = 0;
            fill_music(g_music[i], MUSIC_LEN);
            waveOutWrite(g_wave, &g_hdr[i], sizeof g_hdr[i]);
        }
    }
}

static void music_stop(void)
{
    int i;
    if (!g_wave)
        return;
    waveOutReset(g_wave);
    for (i = 0; i < MUSIC_BUFS; i++)
        waveOutUnprepareHeader(g_wave, &g_hdr[i], sizeof g_hdr[i]);
    waveOutClose(g_wave);
    g_wave = NULL;
}

/* ---------------------------------------------------------------- timer */

static void CALLBACK timer_proc(UINT id, UINT msg, DWORD_PTR user, DWORD_PTR r1, DWORD_PTR r2)
{
    (void)id;
    (void)msg;
    (void)user;
    (void)r1;
    (void)r2;
    /* TIMER_MS * 60 / 1000 of a game tick per call. */
    g_timer_acc += TIMER_MS * TICK_HZ;
    if (g_timer_acc >= 1000) {
        g_timer_acc -= 1000;
        g_timer_ticks++;
        SetEvent(g_tick_event);
    }
}

/* ---------------------------------------------------------------- input */

#define IN_LEFT 1
#define IN_RIGHT 2
#define IN_JUMP 4

static int read_input(void)
{
    JOYINFOEX ji;
    int in = 0;
    if (g_keys[VK_LEFT])
        in |= IN_LEFT;
    if (g_keys[VK_RIGHT])
        in |= IN_RIGHT;
    if (g_keys[VK_SPACE] || g_keys[VK_UP])
        in |= IN_JUMP;
    memset(&ji, 0, sizeof ji);
    ji.dwSize = sizeof ji;
    ji.dwFlags = JOY_RETURNX | JOY_RETURNY | JOY_RETURNBUTTONS | JOY_RETURNPOV;
    if (joyGetPosEx(JOYSTICKID1, &ji) == JOYERR_NOERROR) {
        if (ji.dwXpos < 16384)
            in |= IN_LEFT;
        if (ji.dwXpos > 49152)
            in |= IN_RIGHT;
        if (ji.dwPOV != JOY_POVCENTERED) {
            if (ji.dwPOV > 18000 && ji.dwPOV < 36000)
                in |= IN_LEFT;
            if (ji.dwPOV > 0 && ji.dwPOV < 18000)
                in |= IN_RIGHT;
        }
        if (ji.dwButtons & JOY_BUTTON1)
            in |= IN_JUMP;
    }
    return in;
}

/* ----------------------------------------------------------------- game */

#define GRAVITY 0.25f
#define JUMP_V -5.5f
#define ACCEL 0.25f
#define MAX_VX 2.0f
#define FRICTION 0.8f

static int coin_y(int mx)
{
    return 136 + (mx * 5) % 16;
}

static void update(int in)
{
    int i;
    g_tick++;
    g_cam += 1; /* the attract scroll */

    /* Player physics, x87 floats. */
    if (in & IN_LEFT) {
        g_vx -= ACCEL;
        g_facing = 0;
    }
    if (in & IN_RIGHT) {
        g_vx += ACCEL;
        g_facing = 1;
    }
    if (!(in & (IN_LEFT | IN_RIGHT)))
        g_vx *= FRICTION;
    if (g_vx > MAX_VX)
        g_vx = MAX_VX;
    if (g_vx < -MAX_VX)
        g_vx = -MAX_VX;
    if (g_vx > -0.05f && g_vx < 0.05f)
        g_vx = 0.0f;
    if ((in & IN_JUMP) && g_on_ground) {
        g_vy = JUMP_V;
        g_on_ground = 0;
        play(g_snd_jump, (int)((g_px - SCREEN_W / 2) * 20.0f));
    }
    g_vy += GRAVITY;
    g_px += g_vx;
    g_py += g_vy;
    if (g_py >= GROUND_Y) {
        g_py = GROUND_Y;
        g_vy = 0.0f;
        g_on_ground = 1;
    }
    if (g_px < PLAYER_W / 2)
        g_px = PLAYER_W / 2, g_vx = 0.0f;
    if (g_px > SCREEN_W - PLAYER_W / 2)
        g_px = SCREEN_W - PLAYER_W / 2, g_vx = 0.0f;
    if (g_vx != 0.0f)
        g_walk++;
    else
        g_walk = 0;

    /* Birds: a damped spring bob around their flight line, x87 doubles. */
    for (i = 0; i < 2; i++) {
        g_bird_v[i] -= g_bird_y[i] * 0.02;
        g_bird_v[i] *= 0.999;
        if (g_bird_v[i] > -0.05 && g_bird_v[i] < 0.05 && g_bird_y[i] > -1.0 && g_bird_y[i] < 1.0)
            g_bird_v[i] += 2.0; /* flap */
        g_bird_y[i] += g_bird_v[i];
        g_bird_x[i] += g_bird_dx[i];
        if (g_bird_x[i] < 0.0 || g_bird_x[i] > SCREEN_W - BIRD_W) {
            g_bird_dx[i] = -g_bird_dx[i];
            g_bird_x[i] += g_bird_dx[i];
        }
    }

    /* Sparks rise from the lava pits in view and fall back. */
    for (i = 0; i < SPARKS; i++) {
        if (g_spark[i].life <= 0) {
            int pit = (g_cam / (16 * TILE)) * 16 + 6; /* first pit column at or before */
            if ((rnd() & 3) != 0)
                continue;
            if ((pit + 3) * TILE < g_cam)
                pit += 16;
            g_spark[i].x = (float)(pit * TILE + (int)(rnd() % (3 * TILE)));
            g_spark[i].y = (float)(13 * TILE + 2);
            g_spark[i].vx = ((int)(rnd() % 64) - 32) / 64.0f;
            g_spark[i].vy = -1.5f - (rnd() % 64) / 48.0f;
            g_spark[i].life = 40 + rnd() % 40;
            continue;
        }
        g_spark[i].vy += 0.08f;
        g_spark[i].x += g_spark[i].vx;
        g_spark[i].y += g_spark[i].vy;
        g_spark[i].life--;
        if (g_spark[i].y > 13 * TILE + 14)
            g_spark[i].life = 0;
    }

    /* Coins hang over every 4th map column; the player takes one by touching it. */
    {
        int px0 = (int)g_px - PLAYER_W / 2, py0 = (int)g_py - PLAYER_H;
        int mx0 = (g_cam + px0) / TILE, mx;
        for (mx = mx0; mx <= mx0 + 2; mx++) {
            int m = mx % MAP_W, cx, cy;
            if (m % 4 != 1 || g_coin_taken[m])
                continue;
            cx = mx * TILE + 4 - g_cam;
            cy = coin_y(m);
            if (cx + COIN_SIZE > px0 && cx < px0 + PLAYER_W && cy + COIN_SIZE > py0 &&
                cy < py0 + PLAYER_H) {
                g_coin_taken[m] = 1;
                g_score += 50;
                play(g_snd_coin, (int)((g_px - SCREEN_W / 2) * 20.0f));
            }
        }
        /* A coin comes back once its column has scrolled out of sight. */
        for (mx = 0; mx < MAP_W; mx++) {
            int sx = (mx * TILE - g_cam % (MAP_W * TILE) + MAP_W * TILE) % (MAP_W * TILE);
            if (sx > SCREEN_W + TILE && sx < MAP_W * TILE - 2 * TILE)
                g_coin_taken[mx] = 0;
        }
    }

    /* Palette animation: water every 6 ticks, lava every 4. */
    if (g_tick % 6 == 0) {
        PALETTEENTRY t = g_palette[C_WATER + 7];
        memmove(&g_palette[C_WATER + 1], &g_palette[C_WATER], 7 * sizeof t);
        g_palette[C_WATER] = t;
    }
    if (g_tick % 4 == 0) {
        PALETTEENTRY t = g_palette[C_LAVA];
        memmove(&g_palette[C_LAVA], &g_palette[C_LAVA + 1], 7 * sizeof t);
        g_palette[C_LAVA + 7] = t;
    }
    if (g_tick % 4 == 0 || g_tick % 6 == 0)
        IDirectDrawPalette_SetEntries(g_pal, 0, C_WATER, 16, &g_palette[C_WATER]);
}

/* BltFast one tile at screen (sx, sy), clipped to the play area. */
static void blit_tile(int t, int sx, int sy)
{
    RECT r;
    int x = sx, y = sy;
    r.left = t * TILE;
    r.top = 0;
    r.right = r.left + TILE;
    r.bottom = TILE;
    if (x < 0) {
        r.left -= x;
        x = 0;
    }
    if (x + (r.right - r.left) > SCREEN_W)
        r.right = r.left + (SCREEN_W - x);
    if (y < STATUS_H) {
        r.top += STATUS_H - y;
        y = STATUS_H;
    }
    if (r.right <= r.left || r.bottom <= r.top)
        return;
    IDirectDrawSurface_BltFast(g_back, x, y, g_tiles, &r,
                               DDBLTFAST_SRCCOLORKEY | DDBLTFAST_WAIT);
}

/* BltFast from the sprite sheet: row 0 coins (4 frames), row 1 birds (2 frames). */
static void blit_sprite(int sheet_x, int sheet_y, int w, int h, int sx, int sy)
{
    RECT r;
    r.left = sheet_x;
    r.top = sheet_y;
    r.right = sheet_x + w;
    r.bottom = sheet_y + h;
    if (sx < 0) {
        r.left -= sx;
        sx = 0;
    }
    if (sx + (r.right - r.left) > SCREEN_W)
        r.right = r.left + (SCREEN_W - sx);
    if (r.right <= r.left || sy < STATUS_H || sy + h > SCREEN_H)
        return;
    IDirectDrawSurface_BltFast(g_back, sx, sy, g_sprites, &r,
                               DDBLTFAST_SRCCOLORKEY | DDBLTFAST_WAIT);
}

static HRESULT lock(LPDIRECTDRAWSURFACE s, BYTE **bits, LONG *pitch)
{
    DDSURFACEDESC d;
    HRESULT hr;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    hr = IDirectDrawSurface_Lock(s, NULL, &d, DDLOCK_WAIT, NULL);
    if (hr == DDERR_SURFACELOST) {
        IDirectDrawSurface_Restore(g_primary);
        hr = IDirectDrawSurface_Lock(s, NULL, &d, DDLOCK_WAIT, NULL);
    }
    if (FAILED(hr))
        return hr;
    *bits = d.lpSurface;
    *pitch = d.lPitch;
    return hr;
}

static void render(void)
{
    BYTE *p;
    LONG pitch;
    int y, mx, my;
    char text[40];

    /* 1. Sky and hills: parallax at half speed, one rep movsd per row. */
    if (FAILED(lock(g_back, &p, &pitch)))
        return;
    fill_row(p, C_PANEL * 0x01010101u, (STATUS_H * pitch) / 4);
    {
        int off = (g_cam / 2) % SKY_W;
        for (y = STATUS_H; y < GROUND_Y; y++)
            copy_row(p + y * pitch, g_sky + y * SKY_STRIDE + off, SCREEN_W / 4);
    }
    /* The near forest, transparent, a byte loop per row. */
    {
        int off = (g_cam * 3 / 4) % SKY_W;
        for (y = 0; y < FOREST_H; y++) {
            const BYTE *s = g_forest + y * SKY_STRIDE + off;
            BYTE *d = p + (FOREST_Y + y) * pitch;
            int n = SCREEN_W;
            do {
                BYTE c = *s++;
                if (c)
                    *d = c;
                d++;
            } while (--n);
        }
    }
    IDirectDrawSurface_Unlock(g_back, NULL);

    /* 2. The tile map. */
    {
        int first = g_cam / TILE, fine = g_cam % TILE;
        for (my = 0; my < MAP_H; my++)
            for (mx = 0; mx <= SCREEN_W / TILE; mx++) {
                int t = g_map[my][(first + mx) % MAP_W];
                if (t != T_EMPTY)
                    blit_tile(t, mx * TILE - fine, my * TILE);
            }
        /* 3. Coins, colour-keyed, spinning. */
        for (mx = 0; mx <= SCREEN_W / TILE + 1; mx++) {
            int m = (first + mx) % MAP_W;
            if (m % 4 == 1 && !g_coin_taken[m]) {
                int frame = ((g_tick / 6) + m) & 3;
                blit_sprite(frame * COIN_SIZE, 0, COIN_SIZE, COIN_SIZE, mx * TILE - fine + 4,
                            coin_y(m));
            }
        }
    }
    /* 4. Bird 0 from the sprite sheet, colour-keyed. */
    {
        int by = 60 + (int)g_bird_y[0], frame = (g_tick / 8) & 1;
        blit_sprite(frame * BIRD_W + (g_bird_dx[0] < 0 ? 2 * BIRD_W : 0), COIN_SIZE, BIRD_W,
                    BIRD_H, (int)g_bird_x[0], by);
    }

    /* 5. Software sprites into the locked back buffer. */
    if (FAILED(lock(g_back, &p, &pitch)))
        return;
    {
        int i;
        /* Water ripple: each row of the bottom tile row shifted by a moving sine. */
        {
            static BYTE tmp[SCREEN_W * 2];
            for (y = SCREEN_H - TILE; y < SCREEN_H; y++) {
                int sh = g_ripple[(y * 4 + g_tick) & 63], n = SCREEN_W;
                BYTE *d = p + y * pitch;
                const BYTE *src;
                copy_row(tmp, d, SCREEN_W / 4);
                copy_row(tmp + SCREEN_W, d, SCREEN_W / 4);
                src = tmp + (sh + SCREEN_W) % SCREEN_W;
                do {
                    *d++ = *src++;
                } while (--n);
            }
        }
        for (i = 0; i < SPARKS; i++) { /* sparks light 2x2 pixels through the glow table */
            int sx = (int)g_spark[i].x - g_cam, sy = (int)g_spark[i].y;
            if (g_spark[i].life > 0 && sx >= 0 && sx < SCREEN_W - 1 && sy >= STATUS_H &&
                sy < SCREEN_H - 1) {
                BYTE *d = p + sy * pitch + sx;
                d[0] = g_glow[d[0]];
                d[1] = g_glow[d[1]];
                d[pitch] = g_glow[d[pitch]];
                d[pitch + 1] = g_glow[d[pitch + 1]];
            }
        }
        for (i = 0; i < 2; i++) /* bird shadows on the grass */
            draw_shadow(p, pitch, (int)g_bird_x[i] + BIRD_W / 2, GROUND_Y + 3, 7, 2);
        /* Player shadow shrinks as he jumps. */
        {
            int lift = (GROUND_Y - (int)g_py) / 8;
            draw_shadow(p, pitch, (int)g_px, GROUND_Y + 2, 9 - lift, 2);
        }
        /* Bird 1 through the remap table (the same bird, recoloured). */
        {
            int by = 96 + (int)g_bird_y[1], frame = (g_tick / 7) & 1;
            draw_remapped(p, pitch, g_bird_pixels[frame], (int)g_bird_x[1], by, BIRD_W,
                          BIRD_H);
        }
        /* The player, RLE. */
        {
            int frame = g_on_ground ? (g_walk / 6) & 1 : 1;
            rle_draw(p, pitch, g_player_rle[frame], (int)g_px - PLAYER_W / 2,
                     (int)g_py - PLAYER_H, PLAYER_W, PLAYER_H, !g_facing);
        }
        /* 6. Score and time. */
        strcpy(text, "SCORE 000000   TIME 000");
        put_number(text + 6, g_score, 6);
        put_number(text + 20, g_tick / TICK_HZ, 3);
        draw_text(p, pitch, TEXT_X, TEXT_Y, text, C_TEXT);
    }
    IDirectDrawSurface_Unlock(g_back, NULL);

    if (IDirectDrawSurface_Flip(g_primary, NULL, DDFLIP_WAIT) == DDERR_SURFACELOST)
        IDirectDrawSurface_Restore(g_primary);
}

/* -------------------------------------------------------------- window */

static LRESULT CALLBACK wnd_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_KEYDOWN:
        if (wp == VK_ESCAPE)
            PostMessage(h, WM_CLOSE, 0, 0);
        g_keys[wp & 0xff] = 1;
        return 0;
    case WM_KEYUP:
        g_keys[wp & 0xff] = 0;
        return 0;
    case WM_SETCURSOR:
        SetCursor(NULL);
        return TRUE;
    case WM_DESTROY:
        g_quit = 1;
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProc(h, msg, wp, lp);
}

static int fail(const char *what, HRESULT hr)
{
    char msg[128];
    wsprintfA(msg, "%s failed (0x%08lx)", what, (unsigned long)hr);
    if (g_dd)
        IDirectDraw_RestoreDisplayMode(g_dd);
    MessageBoxA(NULL, msg, "winterp demo", MB_OK | MB_ICONERROR);
    return 1;
}

static HRESULT init_ddraw(void)
{
    DDSURFACEDESC d;
    DDSCAPS caps;
    DDCOLORKEY key;
    HRESULT hr;
    BYTE *p;
    LONG pitch;
    int t, f, y, x;

    if (FAILED(hr = DirectDrawCreate(NULL, &g_dd, NULL)))
        return fail("DirectDrawCreate", hr), hr;
    if (FAILED(hr = IDirectDraw_SetCooperativeLevel(g_dd, g_hwnd,
                                                    DDSCL_EXCLUSIVE | DDSCL_FULLSCREEN)))
        return fail("SetCooperativeLevel", hr), hr;
    if (FAILED(hr = IDirectDraw_SetDisplayMode(g_dd, SCREEN_W, SCREEN_H, 8)))
        return fail("SetDisplayMode 320x240x8", hr), hr;

    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_BACKBUFFERCOUNT;
    d.ddsCaps.dwCaps = DDSCAPS_PRIMARYSURFACE | DDSCAPS_FLIP | DDSCAPS_COMPLEX;
    d.dwBackBufferCount = 1;
    if (FAILED(hr = IDirectDraw_CreateSurface(g_dd, &d, &g_primary, NULL)))
        return fail("CreateSurface (primary)", hr), hr;
    memset(&caps, 0, sizeof caps);
    caps.dwCaps = DDSCAPS_BACKBUFFER;
    if (FAILED(hr = IDirectDrawSurface_GetAttachedSurface(g_primary, &caps, &g_back)))
        return fail("GetAttachedSurface", hr), hr;
    if (FAILED(hr = IDirectDraw_CreatePalette(g_dd, DDPCAPS_8BIT | DDPCAPS_ALLOW256, g_palette,
                                              &g_pal, NULL)))
        return fail("CreatePalette", hr), hr;
    if (FAILED(hr = IDirectDrawSurface_SetPalette(g_primary, g_pal)))
        return fail("SetPalette", hr), hr;

    /* Off-screen surfaces: tiles (one row) and sprites (coins, birds). */
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = DDSD_CAPS | DDSD_WIDTH | DDSD_HEIGHT;
    d.ddsCaps.dwCaps = DDSCAPS_OFFSCREENPLAIN;
    d.dwWidth = T_COUNT * TILE;
    d.dwHeight = TILE;
    if (FAILED(hr = IDirectDraw_CreateSurface(g_dd, &d, &g_tiles, NULL)))
        return fail("CreateSurface (tiles)", hr), hr;
    d.dwWidth = 4 * BIRD_W;
    d.dwHeight = COIN_SIZE + BIRD_H;
    if (FAILED(hr = IDirectDraw_CreateSurface(g_dd, &d, &g_sprites, NULL)))
        return fail("CreateSurface (sprites)", hr), hr;
    key.dwColorSpaceLowValue = C_KEY;
    key.dwColorSpaceHighValue = C_KEY;
    IDirectDrawSurface_SetColorKey(g_tiles, DDCKEY_SRCBLT, &key);
    IDirectDrawSurface_SetColorKey(g_sprites, DDCKEY_SRCBLT, &key);

    if (FAILED(hr = lock(g_tiles, &p, &pitch)))
        return fail("Lock (tiles)", hr), hr;
    for (t = 0; t < T_COUNT; t++)
        draw_tile(p + t * TILE, pitch, t);
    IDirectDrawSurface_Unlock(g_tiles, NULL);

    if (FAILED(hr = lock(g_sprites, &p, &pitch)))
        return fail("Lock (sprites)", hr), hr;
    for (y = 0; y < COIN_SIZE + BIRD_H; y++)
        memset(p + y * pitch, C_KEY, 4 * BIRD_W);
    for (f = 0; f < 4; f++) /* a coin turning: its width shrinks and grows */
        for (y = 0; y < COIN_SIZE; y++)
            for (x = 0; x < COIN_SIZE; x++) {
                int hw = f == 0 ? 4 : f == 1 || f == 3 ? 3 : 1;
                int dx = x * 2 + 1 - COIN_SIZE, dy = y * 2 + 1 - COIN_SIZE;
                if (dx * dx * 64 + dy * dy * (hw * hw * 4) < 64 * hw * hw * 4)
                    p[y * pitch + f * COIN_SIZE + x] = (dx + dy < 0) ? C_GOLD : C_GOLD_DARK;
            }
    for (f = 0; f < 2; f++)
        for (y = 0; y < BIRD_H; y++)
            for (x = 0; x < BIRD_W; x++) {
                BYTE c = art_colour(bird_art[f][y][x]);
                g_bird_pixels[f][y * BIRD_W + x] = c;
                p[(COIN_SIZE + y) * pitch + f * BIRD_W + x] = c;      /* facing right */
                p[(COIN_SIZE + y) * pitch + (2 + f) * BIRD_W + BIRD_W - 1 - x] = c; /* left */
            }
    IDirectDrawSurface_Unlock(g_sprites, NULL);
    return DD_OK;
}

static void shutdown_all(void)
{
    if (g_timer) {
        timeKillEvent(g_timer);
        timeEndPeriod(1);
    }
    g_timer = 0;
    music_stop();
    if (g_snd_jump)
        IDirectSoundBuffer_Release(g_snd_jump);
    if (g_snd_coin)
        IDirectSoundBuffer_Release(g_snd_coin);
    if (g_ds)
        IDirectSound_Release(g_ds);
    if (g_sprites)
        IDirectDrawSurface_Release(g_sprites);
    if (g_tiles)
        IDirectDrawSurface_Release(g_tiles);
    if (g_primary)
        IDirectDrawSurface_Release(g_primary); /* releases the back buffer with it */
    if (g_pal)
        IDirectDrawPalette_Release(g_pal);
    if (g_dd) {
        IDirectDraw_RestoreDisplayMode(g_dd);
        IDirectDraw_SetCooperativeLevel(g_dd, g_hwnd, DDSCL_NORMAL);
        IDirectDraw_Release(g_dd);
    }
    if (g_tick_event)
        CloseHandle(g_tick_event);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    MSG msg;
    LONG done_ticks = 0;
    int f;
    (void)prev;
    (void)cmd;
    (void)show;

    build_palette();
    build_tables();
    build_sky();
    build_forest();
    build_map();
    for (f = 0; f < 2; f++)
        rle_encode(player_art[f], PLAYER_W, PLAYER_H, g_player_rle[f]);
    init_game();

    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wnd_proc;
    wc.hInstance = inst;
    wc.hbrBackground = (HBRUSH)GetStockObject(BLACK_BRUSH);
    wc.lpszClassName = "WinterpDemo";
    RegisterClassA(&wc);
    g_hwnd = CreateWindowExA(WS_EX_TOPMOST, "WinterpDemo", "winterp demo", WS_POPUP, 0, 0,
                             GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN),
                             NULL, NULL, inst, NULL);
    if (!g_hwnd)
        return 1;
    ShowWindow(g_hwnd, SW_SHOW);
    UpdateWindow(g_hwnd);

    if (FAILED(init_ddraw())) {
        shutdown_all();
        return 1;
    }
    if (SUCCEEDED(DirectSoundCreate(NULL, &g_ds, NULL)) &&
        SUCCEEDED(IDirectSound_SetCooperativeLevel(g_ds, g_hwnd, DSSCL_NORMAL))) {
        g_snd_jump = make_sound(22050 / 5, 0);
        g_snd_coin = make_sound(22050 / 4, 1);
    }
    music_start();

    g_tick_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    timeBeginPeriod(1);
    g_timer = timeSetEvent(TIMER_MS, 1, timer_proc, 0, TIME_PERIODIC);
    if (!g_timer) {
        shutdown_all();
        return fail("timeSetEvent", 0);
    }

    render();
    while (!g_quit) {
        while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE)) {
            if (msg.message == WM_QUIT) {
                g_quit = 1;
                break;
            }
            TranslateMessage(&msg);
            DispatchMessageA(&msg);
        }
        if (g_quit)
            break;
        WaitForSingleObject(g_tick_event, 100);
        {
            LONG due = g_timer_ticks;
            int n = 0;
            if (due == done_ticks)
                continue;
            /* Catch up at most 4 ticks, then render once. */
            while (done_ticks != due && n < 4) {
                update(read_input());
                done_ticks++;
                n++;
            }
            done_ticks = due;
        }
        music_pump();
        render();
    }
    shutdown_all();
    return 0;
}
