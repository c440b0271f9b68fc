/* Shapes for the lut_span and case_chain tiers (docs/tiers.md), written in inline
 * assembly so the instructions are exactly the folded shapes:
 *
 * - span8: an unrolled LUT span, eight `movzx edx,[esi+k] / movzx edx,[ecx+edx] /
 *   mov [edi+k],dl` units with descending displacements, in a function of its own
 *   (so it is straight-line code, not a self-loop);
 * - classify: a `cmp cl,imm / je` ladder of eight rungs on CL.
 *
 * Every result is checked against plain C and summarised as a checksum, so the
 * output is the same natively (gcc -m32) and under winterp with the tiers on or off. */
#include <stdio.h>

static unsigned char table[256];
static unsigned char src[4096], dst[4096], ref[4096];

#define UNIT(k)                                      \
    "movzx edx, byte ptr [esi+" #k "]\n\t"           \
    "movzx edx, byte ptr [ecx+edx]\n\t"              \
    "mov byte ptr [edi+" #k "], dl\n\t"

__attribute__((noinline)) static void span8(unsigned char *d, const unsigned char *s,
                                            const unsigned char *t)
{
    __asm__ volatile(".intel_syntax noprefix\n\t"
                     UNIT(7) UNIT(6) UNIT(5) UNIT(4) UNIT(3) UNIT(2) UNIT(1) UNIT(0)
                     ".att_syntax prefix\n\t"
                     :
                     : "S"(s), "D"(d), "c"(t)
                     : "edx", "memory");
}

/* 'a' -> 0, 'e' -> 1, 'i' -> 2, 'o' -> 3, 'u' -> 4, ' ' -> 5, '.' -> 6, '\n' -> 7,
 * anything else -> 8. */
__attribute__((noinline)) static int classify(unsigned char c)
{
    int r;
    __asm__ volatile(".intel_syntax noprefix\n\t"
                     "cmp cl, 'a'\n\t"
                     "je 10f\n\t"
                     "cmp cl, 'e'\n\t"
                     "je 11f\n\t"
                     "cmp cl, 'i'\n\t"
                     "je 12f\n\t"
                     "cmp cl, 'o'\n\t"
                     "je 13f\n\t"
                     "cmp cl, 'u'\n\t"
                     "je 14f\n\t"
                     "cmp cl, ' '\n\t"
                     "je 15f\n\t"
                     "cmp cl, '.'\n\t"
                     "je 16f\n\t"
                     "cmp cl, 10\n\t"
                     "je 17f\n\t"
                     "mov eax, 8\n\t"
                     "jmp 19f\n"
                     "10: mov eax, 0\n\t"
                     "jmp 19f\n"
                     "11: mov eax, 1\n\t"
                     "jmp 19f\n"
                     "12: mov eax, 2\n\t"
                     "jmp 19f\n"
                     "13: mov eax, 3\n\t"
                     "jmp 19f\n"
                     "14: mov eax, 4\n\t"
                     "jmp 19f\n"
                     "15: mov eax, 5\n\t"
                     "jmp 19f\n"
                     "16: mov eax, 6\n\t"
                     "jmp 19f\n"
                     "17: mov eax, 7\n"
                     "19:\n\t"
                     ".att_syntax prefix\n\t"
                     : "=a"(r)
                     : "c"(c)
                     : "cc");
    return r;
}

static int classify_ref(unsigned char c)
{
    static const char keys[] = "aeiou .\n";
    for (int k = 0; k < 8; k++)
        if (c == (unsigned char)keys[k])
            return k;
    return 8;
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
    unsigned x = 12345;
    for (int i = 0; i < 256; i++)
        table[i] = (unsigned char)((i * 7 + 3) ^ 0x5a);
    for (int i = 0; i < 4096; i++) {
        x = x * 1103515245u + 12345u;
        src[i] = (unsigned char)(x >> 16);
    }

    /* LUT spans: 512 spans of 8 bytes per pass, each pass translating the last. */
    int bad = 0;
    for (int pass = 0; pass < 40; pass++) {
        for (int i = 0; i < 4096; i += 8)
            span8(dst + i, src + i, table);
        for (int i = 0; i < 4096; i++) {
            ref[i] = table[src[i]];
            bad += ref[i] != dst[i];
            src[i] = dst[i];
        }
    }
    printf("span8: %s, checksum %08x\n", bad ? "MISMATCH" : "ok", fnv(dst, 4096));

    /* The ladder over text-like bytes. */
    static const char text[] = "a quick brown fox jumps over the lazy dog.\n"
                               "sphinx of black quartz, judge my vow.\n";
    int counts[9] = {0};
    bad = 0;
    for (int rep = 0; rep < 200; rep++) {
        for (int i = 0; text[i]; i++) {
            unsigned char c = (unsigned char)text[i];
            int k = classify(c);
            bad += k != classify_ref(c);
            counts[k]++;
        }
        for (int i = 0; i < 256; i++) {
            int k = classify((unsigned char)src[i]);
            bad += k != classify_ref(src[i]);
            counts[k]++;
        }
    }
    printf("classify: %s, counts", bad ? "MISMATCH" : "ok");
    for (int k = 0; k < 9; k++)
        printf(" %d", counts[k]);
    printf("\n");
    return 0;
}
