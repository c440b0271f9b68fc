/* Shapes for every fold tier (docs/tiers.md), written in inline assembly so the
 * instructions are exactly the folded shapes, with other registers than the bench
 * shapes in src/core/src/bench.rs:
 *
 * - lut_run: `movzx edx,[ebx] / movzx edx,[eax+edx] / mov [esi],dl`, cursors ebx/esi,
 *   counter edi (LUT_RUN);
 * - copy_run: a dword copy `mov ecx,[edx+eax*4] / mov [ebx+eax*4],ecx`, bounded by
 *   `cmp eax,esi / jb` (COPY_RUN);
 * - fill_run: a word fill `mov [ebx],dx / add ebx,2`, bounded by `cmp ebx,ecx / jne`
 *   (FILL_RUN);
 * - scan_run: `mov bl,[edx] / inc edx / cmp bl,imm / jne` (SCAN_RUN);
 * - mmx_run: `movq [edx],mm3 / add edx,8 / dec eax / jnz` (the MMX qword fill);
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

static unsigned char lsrc[3000], ldst[3000];
static unsigned dsrc[1500], ddst[1500];
static unsigned short words[2000];
static unsigned char line[4096];
static unsigned long long qwords[700];

__attribute__((noinline)) static void lut_run(unsigned char *d, const unsigned char *s,
                                              const unsigned char *t, int n)
{
    __asm__ volatile(".intel_syntax noprefix\n"
                     "1: movzx edx, byte ptr [ebx]\n\t"
                     "movzx edx, byte ptr [eax+edx]\n\t"
                     "mov byte ptr [esi], dl\n\t"
                     "inc ebx\n\t"
                     "inc esi\n\t"
                     "dec edi\n\t"
                     "jnz 1b\n\t"
                     ".att_syntax prefix\n\t"
                     : "+b"(s), "+S"(d), "+D"(n)
                     : "a"(t)
                     : "edx", "cc", "memory");
}

__attribute__((noinline)) static void copy_run(unsigned *d, const unsigned *s, int n)
{
    __asm__ volatile(".intel_syntax noprefix\n\t"
                     "xor eax, eax\n"
                     "1: mov ecx, dword ptr [edx+eax*4]\n\t"
                     "mov dword ptr [ebx+eax*4], ecx\n\t"
                     "inc eax\n\t"
                     "cmp eax, esi\n\t"
                     "jb 1b\n\t"
                     ".att_syntax prefix\n\t"
                     :
                     : "d"(s), "b"(d), "S"(n)
                     : "eax", "ecx", "cc", "memory");
}

__attribute__((noinline)) static void fill_run(unsigned short *d, unsigned short *end,
                                               unsigned short v)
{
    __asm__ volatile(".intel_syntax noprefix\n"
                     "1: mov word ptr [ebx], dx\n\t"
                     "add ebx, 2\n\t"
                     "cmp ebx, ecx\n\t"
                     "jne 1b\n\t"
                     ".att_syntax prefix\n\t"
                     : "+b"(d)
                     : "c"(end), "d"(v)
                     : "cc", "memory");
}

/* Returns the index of the first `stop` byte (there must be one). */
__attribute__((noinline)) static int scan_run(const unsigned char *p, unsigned char stop)
{
    const unsigned char *q = p;
    __asm__ volatile(".intel_syntax noprefix\n\t"
                     "cmp al, 0x0d\n\t"
                     "jne 9f\n"
                     "1: mov bl, byte ptr [edx]\n\t"
                     "inc edx\n\t"
                     "cmp bl, 0x0d\n\t"
                     "jne 1b\n\t"
                     "jmp 8f\n"
                     "9: mov bl, byte ptr [edx]\n\t"
                     "inc edx\n\t"
                     "test bl, bl\n\t"
                     "jnz 9b\n"
                     "8:\n\t"
                     ".att_syntax prefix\n\t"
                     : "+d"(q)
                     : "a"(stop)
                     : "ebx", "cc", "memory");
    return (int)(q - p) - 1;
}

/* Stores the qword at v into n qwords at d. mm3 is not named as clobbered: gcc
 * rejects that without -mmmx, and without it gcc keeps nothing in MMX registers;
 * emms leaves the x87 stack empty, as the ABI has it at a call. */
__attribute__((noinline)) static void mmx_run(unsigned long long *d,
                                              const unsigned long long *v, int n)
{
    __asm__ volatile(".intel_syntax noprefix\n\t"
                     "movq mm3, qword ptr [ecx]\n"
                     "1: movq qword ptr [edx], mm3\n\t"
                     "add edx, 8\n\t"
                     "dec eax\n\t"
                     "jnz 1b\n\t"
                     "emms\n\t"
                     ".att_syntax prefix\n\t"
                     : "+d"(d), "+a"(n)
                     : "c"(v)
                     : "cc", "memory");
}

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

    /* The loop idioms, each pass feeding the next. */
    bad = 0;
    for (int i = 0; i < 3000; i++)
        lsrc[i] = src[i];
    for (int pass = 0; pass < 30; pass++) {
        lut_run(ldst, lsrc, table, 3000);
        for (int i = 0; i < 3000; i++)
            bad += ldst[i] != table[lsrc[i]];
        for (int i = 0; i < 1500; i++)
            dsrc[i] = ((unsigned)ldst[i] << 16 | ldst[i + 1500]) * (pass + 3u);
        copy_run(ddst, dsrc, 1500);
        for (int i = 0; i < 1500; i++)
            bad += ddst[i] != dsrc[i];
        int n = 100 + (int)(ddst[pass] % 1800);
        unsigned short v = (unsigned short)ddst[pass + 7];
        fill_run(words, words + n, v);
        for (int i = 0; i < 2000; i++)
            bad += words[i] != (i < n ? v : words[i]);
        for (int i = 0; i < 4096; i++)
            line[i] = (unsigned char)(ldst[i % 3000] | 0x10); /* never 0 or 0x0d */
        int at = (int)(ddst[pass + 11] % 4000);
        unsigned char stop = (pass & 1) ? 0x0d : 0;
        line[at] = stop;
        bad += scan_run(line, stop) != at;
        unsigned long long q = (unsigned long long)ddst[pass] << 32 | words[pass];
        int m = 1 + (int)(ddst[pass + 3] % 700);
        mmx_run(qwords, &q, m);
        for (int i = 0; i < m; i++)
            bad += qwords[i] != q;
        for (int i = 0; i < 3000; i++)
            lsrc[i] = (unsigned char)(ldst[i] ^ qwords[i % 700] ^ (words[i % 2000] >> 3));
    }
    printf("idioms: %s, checksums %08x %08x %08x %08x\n", bad ? "MISMATCH" : "ok",
           fnv(ldst, 3000), fnv((const unsigned char *)ddst, sizeof ddst),
           fnv((const unsigned char *)words, sizeof words),
           fnv((const unsigned char *)qwords, sizeof qwords));

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
