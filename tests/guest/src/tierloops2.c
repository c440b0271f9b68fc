/* The fold shapes as gcc writes them from plain C (no inline assembly), the second
 * program of the tier acceptance (docs/tiers.md):
 *
 * - translate / copy16 / fill32: indexed loops, which gcc -O2 emits as LUT_RUN
 *   (`movzx edx,[esi+eax] / movzx edx,[edi+edx] / mov [ebx+eax],dl`, `cmp ecx,eax /
 *   jne`), COPY_RUN (`movzx ecx,word [eax] / mov [edx-2],cx`) and FILL_RUN
 *   (`mov [eax],edx / add eax,4 / cmp eax,ecx / jne`); `no-tree-loop-distribute-
 *   patterns` keeps gcc from turning the copy and the fill into memcpy/memset calls;
 * - find_byte / find_word0: scans through a volatile pointer (a buffer another
 *   agent may write), which gcc reads into a register (`movzx edx,[eax+1] / add
 *   eax,1 / cmp dl,imm / jne`, `test dx,dx / jne`) instead of comparing memory;
 * - fill64: an `__m64` store loop (mmintrin), gcc's `movq [eax],mm0 / add eax,8`;
 * - remap16 / remap12_desc: `#pragma GCC unroll` byte-table translations, which gcc
 *   -O2 emits as straight-line `movzx r,[src+k] / movzx r,[table+r] / mov [dst+k],r8`
 *   units (table in a register, or an absolute table walked downwards);
 * - token: an if-chain on one byte, which gcc emits as a `cmp al,imm / je` ladder.
 *
 * The functions are `noipa` so gcc compiles each on its own (no constant table
 * propagated in, which lets it merge the byte stores).
 *
 * Results are checked against a plain loop and summarised as checksums. */
#include <mmintrin.h>
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

#define LOOP __attribute__((noipa, optimize("no-tree-loop-distribute-patterns")))

LOOP static void translate(unsigned char *restrict d, const unsigned char *restrict s,
                           const unsigned char *restrict t, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = t[s[i]];
}

LOOP static void copy16(unsigned short *restrict d, const unsigned short *restrict s, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = s[i];
}

LOOP static void fill32(unsigned *d, unsigned v, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = v;
}

LOOP static int find_byte(const volatile unsigned char *p)
{
    const volatile unsigned char *q = p;
    while (*q != ';')
        q++;
    return (int)(q - p);
}

LOOP static int find_word0(const volatile unsigned short *p)
{
    const volatile unsigned short *q = p;
    while (*q)
        q++;
    return (int)(q - p);
}

__attribute__((noipa, target("mmx"))) static void fill64(__m64 *d, int hi, int lo, int n)
{
    __m64 v = _mm_set_pi32(hi, lo);
    for (int i = 0; i < n; i++)
        d[i] = v;
    _mm_empty();
}

static unsigned char tsrc[5000], tdst[5000];
static unsigned short hsrc[3000], hdst[3000];
static unsigned dwords[2500];
static unsigned long long qwords[900];

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

    /* The loop idioms, each pass feeding the next. */
    bad = 0;
    for (int i = 0; i < 5000; i++)
        tsrc[i] = img[i];
    for (int pass = 0; pass < 25; pass++) {
        translate(tdst, tsrc, shade, 5000);
        for (int i = 0; i < 5000; i++)
            bad += tdst[i] != shade[tsrc[i]];
        for (int i = 0; i < 3000; i++)
            hsrc[i] = (unsigned short)(tdst[i] * 251u + tdst[i + 2000] + pass);
        copy16(hdst, hsrc, 3000);
        for (int i = 0; i < 3000; i++)
            bad += hdst[i] != hsrc[i];
        int n = 50 + hdst[pass] % 2400;
        unsigned v = (unsigned)hdst[pass + 1] << 16 | hdst[pass + 2];
        fill32(dwords, v, n);
        for (int i = 0; i < n; i++)
            bad += dwords[i] != v;
        /* Bytes with the top bit set are never ';', so the scan stops at tsrc[at]. */
        for (int i = 0; i < 5000; i++)
            tsrc[i] = (unsigned char)(tdst[i] | 0x80);
        int at = hdst[pass + 3] % 4900;
        tsrc[at] = ';';
        bad += find_byte(tsrc) != at;
        for (int i = 0; i < 3000; i++)
            hsrc[i] = (unsigned short)(hdst[i] | 1);
        int z = hdst[pass + 4] % 2900;
        hsrc[z] = 0;
        bad += find_word0(hsrc) != z;
        int m = 1 + (int)(dwords[pass] % 900);
        fill64((__m64 *)qwords, (int)v, (int)dwords[pass + 5], m);
        for (int i = 0; i < m; i++)
            bad += qwords[i] != ((unsigned long long)v << 32 | dwords[pass + 5]);
        for (int i = 0; i < 5000; i++)
            tsrc[i] = (unsigned char)(tdst[i] + qwords[i % 900] + dwords[i % 2500] + z);
    }
    printf("idioms: %s, checksums %08x %08x %08x %08x\n", bad ? "MISMATCH" : "ok",
           fnv(tdst, 5000), fnv((const unsigned char *)hdst, sizeof hdst),
           fnv((const unsigned char *)dwords, sizeof dwords),
           fnv((const unsigned char *)qwords, sizeof qwords));

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
