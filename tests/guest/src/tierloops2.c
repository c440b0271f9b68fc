/* The lut_span and case_chain shapes as gcc writes them from plain C (no inline
 * assembly), the second program of the tier acceptance (docs/tiers.md):
 *
 * - remap16 / remap12_desc: `#pragma GCC unroll` byte-table translations, which gcc
 *   -O2 emits as straight-line `movzx r,[src+k] / movzx r,[table+r] / mov [dst+k],r8`
 *   units (table in a register, or an absolute table walked downwards);
 * - token: an if-chain on one byte, which gcc emits as a `cmp al,imm / je` ladder.
 *
 * The functions are `noipa` so gcc compiles each on its own (no constant table
 * propagated in, which lets it merge the byte stores).
 *
 * Results are checked against a plain loop and summarised as checksums. */
#include <stdio.h>

static unsigned char pal[256];
static unsigned char shade[256];
static unsigned char img[8192], out[8192];

__attribute__((noipa)) static void remap16(unsigned char *restrict d,
                                              const unsigned char *restrict s,
                                              const unsigned char *restrict t)
{
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++)
        d[i] = t[s[i]];
}

__attribute__((noipa)) static void remap12_desc(unsigned char *d, const unsigned char *s)
{
#pragma GCC unroll 12
    for (int i = 11; i >= 0; i--)
        d[i] = shade[s[i]];
}

__attribute__((noipa)) static int token(const unsigned char *p)
{
    unsigned char c = *p;
    if (c == '+')
        return 1;
    if (c == '-')
        return 2;
    if (c == '*')
        return 7;
    if (c == '/')
        return 4;
    if (c == '=')
        return 9;
    return 0;
}

static unsigned fnv(const unsigned char *p, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

int main(void)
{
    unsigned x = 777;
    for (int i = 0; i < 256; i++) {
        pal[i] = (unsigned char)(255 - i);
        shade[i] = (unsigned char)(i / 2 + 17);
    }
    for (int i = 0; i < 8192; i++) {
        x = x * 69069u + 1u;
        img[i] = (unsigned char)(x >> 24);
    }

    int bad = 0;
    for (int pass = 0; pass < 20; pass++) {
        for (int i = 0; i < 8192; i += 16)
            remap16(out + i, img + i, pal);
        for (int i = 0; i < 8192; i++)
            bad += out[i] != pal[img[i]];
        for (int i = 0; i + 12 <= 8192; i += 12)
            remap12_desc(img + i, out + i);
        for (int i = 0; i + 12 <= 8192; i += 12)
            bad += img[i] != shade[out[i]] || img[i + 11] != shade[out[i + 11]];
    }
    printf("remap: %s, checksums %08x %08x\n", bad ? "MISMATCH" : "ok", fnv(out, 8192),
           fnv(img, 8192));

    static const char expr[] = "a=b+c*d-e/f%g; x = (y + 2) * 3 - z / 4 = w % 5 + + - -";
    int sum = 0, counts[10] = {0};
    for (int rep = 0; rep < 300; rep++) {
        for (int i = 0; expr[i]; i++) {
            int k = token((const unsigned char *)expr + i);
            counts[k]++;
            sum += k;
        }
        for (int i = 0; i < 512; i++)
            counts[token(img + rep + i)]++;
    }
    printf("token: sum %d, counts", sum);
    for (int k = 0; k < 10; k++)
        printf(" %d", counts[k]);
    printf("\n");
    return 0;
}
