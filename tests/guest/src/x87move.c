/*
 * x87move: exact data movement through the x87 registers.
 *
 * The x87 registers hold 80-bit values with a 64-bit significand, so FILD m64
 * and FISTP m64 copy every 64-bit integer exactly, and FLD m80 / FSTP m80 copy
 * every 80-bit encoding (unnormals, pseudo-denormals, NaN payloads ...) without
 * raising anything, whatever the precision control says. Delphi's System.Move
 * (the FastCode version in Delphi 2007 and later) relies on the first: it copies
 * 9 to 32 bytes with FILD/FISTP m64, so an emulator that keeps the registers as
 * doubles corrupts strings ("TComponent" came out as 00 44 00 6c 70 6f 6e 65 6e
 * 74). Every line is the same on the hardware and under an exact emulator; the
 * same source built with gcc -m32 for Linux must print exactly this output
 * (run-native.sh).
 */
#include <stdio.h>
#include <string.h>

/* Delphi's Move for 9..32 bytes, instruction for instruction (EAX = source,
 * EDX = destination, ECX = count). */
static void delphi_move(const void *src, void *dst, int n)
{
    if (n <= 16)
        __asm__ volatile("fildll (%%eax)\n\t"
                         "fildll -8(%%eax,%%ecx)\n\t"
                         "fistpll -8(%%edx,%%ecx)\n\t"
                         "fistpll (%%edx)\n\t"
                         :
                         : "a"(src), "d"(dst), "c"(n)
                         : "memory", "st", "st(1)");
    else
        __asm__ volatile("fildll (%%eax)\n\t"
                         "fildll 8(%%eax)\n\t"
                         "fildll -16(%%eax,%%ecx)\n\t"
                         "fildll -8(%%eax,%%ecx)\n\t"
                         "fistpll -8(%%edx,%%ecx)\n\t"
                         "fistpll -16(%%edx,%%ecx)\n\t"
                         "fistpll 8(%%edx)\n\t"
                         "fistpll (%%edx)\n\t"
                         :
                         : "a"(src), "d"(dst), "c"(n)
                         : "memory", "st", "st(1)", "st(2)", "st(3)");
}

static unsigned short status(void)
{
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    return sw;
}

static void clear(void)
{
    __asm__ volatile("fnclex");
}

static void hex(const unsigned char *p, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%02x", i ? " " : "", p[i]);
}

/* An 80-bit value as sign|exponent:significand. */
static void ext(const unsigned char *p)
{
    printf("%02x%02x:", p[9], p[8]);
    for (int i = 7; i >= 0; i--)
        printf("%02x", p[i]);
}

static void moves(void)
{
    static const char *const names[] = {
        "TComponent",
        "TPersistent",
        "TStringList",
        "TInterfacedObject",
        "Class TComponent already exists",
        "TCustomActionList",
        "SpaceMission.exe",
    };
    printf("== Delphi Move of strings ==\n");
    for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++) {
        char buf[40];
        int n = (int)strlen(names[k]);
        memset(buf, '#', sizeof buf);
        delphi_move(names[k], buf, n);
        printf("%2d [%.*s] %s\n", n, n + 1, buf, memcmp(buf, names[k], n) ? "differs" : "same");
    }
    /* Every length from 9 to 32, over bytes that make large integers of every
     * sign, NaN-like and denormal-like patterns included. */
    static const unsigned char pat[32] = {
        0x54, 0x43, 0x6f, 0x6d, 0x70, 0x6f, 0x6e, 0x65, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xf0, 0x7f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    };
    printf("== Delphi Move, 9..32 bytes ==\n");
    for (int n = 9; n <= 32; n++) {
        unsigned char src[32], dst[40];
        for (int i = 0; i < n; i++)
            src[i] = pat[(i * 7 + n) % 32];
        memset(dst, 0xee, sizeof dst);
        delphi_move(src, dst, n);
        printf("%2d %s ", n, memcmp(src, dst, n) ? "differs" : "same");
        hex(dst, n + 1);
        printf("\n");
    }
}

static void integers(void)
{
    static const unsigned int v[][2] = {
        {0x0000abcd, 0x6d6f4354}, /* "TCom" style: 63 significant bits */
        {0xffffffff, 0x7fffffff}, /* INT64_MAX */
        {0x00000000, 0x80000000}, /* INT64_MIN */
        {0x00000001, 0x80000000},
        {0x00000001, 0x00200000}, /* 2^53 + 1 */
        {0xfffffffd, 0xffdfffff}, /* -2^53 - 3 */
        {0x12345678, 0x00000000},
    };
    printf("== FILD m64 / FISTP m64 ==\n");
    for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++) {
        unsigned int out[2] = {0, 0};
        clear();
        __asm__ volatile("fildll %1\n\tfistpll %0" : "=m"(out) : "m"(v[k]) : "st");
        printf("%08x%08x -> %08x%08x sw&3f %02x\n", v[k][1], v[k][0], out[1], out[0],
               status() & 0x3f);
    }
    /* FIST m32 of an integer beyond 32 bits: the integer indefinite with IE. */
    {
        int out = 0;
        clear();
        __asm__ volatile("fildll %1\n\tfistpl %0" : "=m"(out) : "m"(v[0]) : "st");
        printf("fistp m32 of %08x%08x = %08x sw&3f %02x\n", v[0][1], v[0][0], (unsigned)out,
               status() & 0x3f);
    }
    /* Two integers a double cannot tell apart compare as they are. */
    {
        static const unsigned int a[2] = {1, 0x40000000}, b[2] = {0, 0x40000000};
        unsigned short sw;
        __asm__ volatile("fildll %2\n\tfildll %1\n\tfcompp\n\tfnstsw %0"
                         : "=m"(sw)
                         : "m"(a), "m"(b)
                         : "st", "st(1)");
        printf("2^62+1 vs 2^62: C3 C2 C0 = %d %d %d\n", (sw >> 14) & 1, (sw >> 10) & 1,
               (sw >> 8) & 1);
    }
}

/* 80-bit encodings: sign|exponent, then the significand. */
static const struct {
    const char *what;
    unsigned short se;
    unsigned int hi, lo;
} specials[] = {
    {"64-bit significand", 0x403e, 0xd6f43540, 0x0000abcd},
    {"1 + 2^-63", 0x3fff, 0x80000000, 0x00000001},
    {"largest finite", 0x7ffe, 0xffffffff, 0xffffffff},
    {"smallest normal", 0x0001, 0x80000000, 0x00000000},
    {"denormal", 0x8000, 0x00000000, 0x00000001},
    {"pseudo-denormal", 0x0000, 0x80000000, 0x00000001},
    {"unnormal", 0x3fff, 0x40000000, 0x00000000},
    {"pseudo-zero", 0x1234, 0x00000000, 0x00000000},
    {"pseudo-infinity", 0x7fff, 0x00000000, 0x00000000},
    {"pseudo-NaN", 0xffff, 0x12340000, 0x00000001},
    {"SNaN, low payload", 0x7fff, 0x80000000, 0x00000001},
    {"QNaN, long payload", 0xffff, 0xc0000000, 0x00000fff},
    {"-infinity", 0xffff, 0x80000000, 0x00000000},
    {"MMX-style", 0xffff, 0x11223344, 0x55667788},
};

static void put80(unsigned char *p, unsigned short se, unsigned int hi, unsigned int lo)
{
    memcpy(p, &lo, 4);
    memcpy(p + 4, &hi, 4);
    memcpy(p + 8, &se, 2);
}

static void m80(void)
{
    printf("== FLD m80 / FSTP m80 ==\n");
    for (unsigned k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        unsigned char in[10], out[10];
        put80(in, specials[k].se, specials[k].hi, specials[k].lo);
        memset(out, 0, sizeof out);
        clear();
        __asm__ volatile("fldt %1\n\tfstpt %0" : "=m"(out) : "m"(in) : "st");
        printf("%-20s ", specials[k].what);
        ext(out);
        printf(" %s sw&3f %02x\n", memcmp(in, out, 10) ? "differs" : "same", status() & 0x3f);
    }
    /* Moved around the stack on the way: FLD ST(1), FXCH, FCHS, FSTP ST(1). */
    printf("== through the stack ==\n");
    {
        unsigned char a[10], b[10], o1[10], o2[10], o3[10];
        put80(a, specials[0].se, specials[0].hi, specials[0].lo);
        put80(b, specials[5].se, specials[5].hi, specials[5].lo);
        __asm__ volatile("fldt %3\n\t"      /* A */
                         "fldt %4\n\t"      /* B A */
                         "fxch %%st(1)\n\t" /* A B */
                         "fld %%st(1)\n\t"  /* B A B */
                         "fchs\n\t"         /* -B A B */
                         "fstpt %0\n\t"     /* A B */
                         "fstp %%st(1)\n\t" /* A */
                         "fld %%st(0)\n\t"  /* A A */
                         "fabs\n\t"
                         "fstpt %1\n\t"
                         "fstpt %2\n\t"
                         : "=m"(o1), "=m"(o2), "=m"(o3)
                         : "m"(a), "m"(b)
                         : "st", "st(1)", "st(2)");
        printf("-B   ");
        ext(o1);
        printf("\n|A|  ");
        ext(o2);
        printf("\nA    ");
        ext(o3);
        printf("\n");
    }
    /* FNSAVE / FRSTOR keep every register's encoding. */
    {
        unsigned char a[10], b[10], save[108], o1[10], o2[10];
        put80(a, specials[6].se, specials[6].hi, specials[6].lo);
        put80(b, specials[11].se, specials[11].hi, specials[11].lo);
        __asm__ volatile("fldt %3\n\t"
                         "fldt %4\n\t"
                         "fnsave %2\n\t"
                         "frstor %2\n\t"
                         "fstpt %0\n\t"
                         "fstpt %1\n\t"
                         : "=m"(o1), "=m"(o2), "=m"(save)
                         : "m"(a), "m"(b)
                         : "st", "st(1)");
        printf("fnsave ST0 ");
        ext(save + 28);
        printf(" ST1 ");
        ext(save + 38);
        printf("\nfrstor ST0 ");
        ext(o1);
        printf(" ST1 ");
        ext(o2);
        printf("\n");
    }
}

/* Conversions from the exact 80-bit value: one rounding under each rounding
 * control. */
static void conversions(void)
{
    static const char *const rc[4] = {"nearest", "down", "up", "chop"};
    unsigned char a[10], b[10];
    /* 1 + 2^-53 + 2^-60: just above the tie between 1 and the next double. */
    put80(a, 0x3fff, 0x80000000, 0x00000408);
    /* -(2^40 + 0.5 + 2^-22): just beyond a tie for the integer conversion. */
    put80(b, 0x8000 | (16383 + 40), 0x80000000, 0x00400001);
    printf("== conversions ==\n");
    for (int r = 0; r < 4; r++) {
        unsigned short cw = 0x037f | (unsigned short)(r << 10), old, sw;
        unsigned int d[2], f, q[2];
        clear();
        __asm__ volatile("fnstcw %0\n\t"
                         "fldcw %5\n\t"
                         "fldt %6\n\t"
                         "fstl %1\n\t"
                         "fstps %2\n\t"
                         "fldt %7\n\t"
                         "fistpll %3\n\t"
                         "fnstsw %4\n\t"
                         "fldcw %0\n\t"
                         : "=m"(old), "=m"(d), "=m"(f), "=m"(q), "=m"(sw)
                         : "m"(cw), "m"(a), "m"(b)
                         : "st");
        printf("%-7s m64 %08x%08x m32 %08x int %08x%08x sw&3f %02x\n", rc[r], d[1], d[0], f,
               q[1], q[0], sw & 0x3f);
    }
}

int main(void)
{
    moves();
    integers();
    m80();
    conversions();
    return 0;
}
