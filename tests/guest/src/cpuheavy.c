/*
 * cpuheavy: integer work for the interpreter, with checksums.
 *
 * Sorting (msvcrt's qsort with a guest comparator, and a hand-written
 * bottom-up merge sort of 1M integers), hashing (table-driven CRC-32 and
 * FNV-1a over generated data), a sieve of Eratosthenes and an LZ77
 * compressor/decompressor round trip over generated text and noise. All
 * input comes from a fixed PRNG, so the output is the same on every
 * platform; a few lines are checked against published values (the CRC-32
 * and FNV-1a check values, the number of primes below 2,000,000).
 * Nothing here reads a clock, so deterministic runs retire the same
 * instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int u32;
typedef unsigned char u8;

static u32 rng = 2463534242u;

static u32 next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* ---- hashing ---- */

static u32 crc_table[256];

static void crc_init(void)
{
    u32 i, j, c;
    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static u32 crc32(const u8 *p, size_t n)
{
    u32 c = 0xffffffffu;
    while (n--)
        c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static u32 fnv1a(const u8 *p, size_t n)
{
    u32 h = 2166136261u;
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

static u32 fnv_ints(const int *a, size_t n)
{
    return fnv1a((const u8 *)a, n * sizeof *a);
}

/* ---- sorting ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void merge_sort(int *a, int *tmp, size_t n)
{
    size_t width, i;
    int *src = a, *dst = tmp, *t;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            size_t lo = i, mid = i + width < n ? i + width : n, hi = i + 2 * width < n ? i + 2 * width : n;
            size_t l = lo, r = mid, k = lo;
            while (l < mid && r < hi)
                dst[k++] = src[l] <= src[r] ? src[l++] : src[r++];
            while (l < mid)
                dst[k++] = src[l++];
            while (r < hi)
                dst[k++] = src[r++];
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static int sorted(const int *a, size_t n)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}

static void sorting(void)
{
    const size_t nq = 250000, nm = 1000000;
    int *a = malloc(nm * sizeof *a), *tmp = malloc(nm * sizeof *a);
    u32 sum_before = 0, xor_before = 0, sum_after = 0, xor_after = 0;
    size_t i;

    for (i = 0; i < nq; i++)
        a[i] = (int)(next() % 2000000u) - 1000000;
    qsort(a, nq, sizeof *a, cmp_int);
    printf("qsort %u ints: sorted %s, min %d, median %d, max %d, FNV-1a 0x%08x\n", (unsigned)nq,
           sorted(a, nq) ? "yes" : "no", a[0], a[nq / 2], a[nq - 1], fnv_ints(a, nq));

    for (i = 0; i < nm; i++) {
        a[i] = (int)next();
        sum_before += (u32)a[i];
        xor_before ^= (u32)a[i] * 2654435761u;
    }
    merge_sort(a, tmp, nm);
    for (i = 0; i < nm; i++) {
        sum_after += (u32)a[i];
        xor_after ^= (u32)a[i] * 2654435761u;
    }
    printf("merge sort %u ints: sorted %s, same elements %s, min %d, median %d, max %d, FNV-1a 0x%08x\n",
           (unsigned)nm, sorted(a, nm) ? "yes" : "no",
           sum_before == sum_after && xor_before == xor_after ? "yes" : "no", a[0], a[nm / 2], a[nm - 1],
           fnv_ints(a, nm));
    free(a);
    free(tmp);
}

/* ---- primes ---- */

static void sieve(void)
{
    const u32 n = 2000000;
    u8 *composite = calloc(n, 1);
    u32 i, j, count = 0, last = 0, sum = 0;
    for (i = 2; i < n; i++) {
        if (composite[i])
            continue;
        count++;
        last = i;
        sum += i;
        for (j = i * 2; j < n; j += i)
            composite[j] = 1;
    }
    printf("sieve below %u: %u primes (148933 expected), largest %u, sum mod 2^32 %u (142913828922 mod 2^32 = "
           "1179908154 expected)\n",
           n, count, last, sum);
    free(composite);
}

/* ---- LZ77 ---- */

#define WINDOW 65536
#define MIN_MATCH 4
#define MAX_MATCH 255 + MIN_MATCH
#define HASH_BITS 15
#define MAX_CHAIN 64

static u32 hash4(const u8 *p)
{
    u32 v = p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

/*
 * Format: groups of up to 8 items after a flag byte (bit set = match).
 * A literal is one byte; a match is a 16-bit little-endian distance
 * (1..65535) and a byte holding length - MIN_MATCH.
 */
static size_t lz_compress(const u8 *in, size_t n, u8 *out)
{
    static int head[1 << HASH_BITS];
    static int prev[WINDOW];
    size_t i = 0, o = 0, flag_pos = 0;
    int bit = 8;

    memset(head, -1, sizeof head);
    while (i < n) {
        size_t best_len = 0, best_dist = 0;
        if (bit == 8) {
            flag_pos = o++;
            out[flag_pos] = 0;
            bit = 0;
        }
        if (i + MIN_MATCH <= n) {
            u32 h = hash4(in + i);
            int cand = head[h], chain = MAX_CHAIN;
            size_t limit = n - i < MAX_MATCH ? n - i : MAX_MATCH;
            while (cand >= 0 && i - (size_t)cand < WINDOW && chain--) {
                const u8 *a = in + cand, *b = in + i;
                size_t len = 0;
                while (len < limit && a[len] == b[len])
                    len++;
                if (len > best_len) {
                    best_len = len;
                    best_dist = i - (size_t)cand;
                    if (len == limit)
                        break;
                }
                cand = prev[cand & (WINDOW - 1)];
            }
            prev[i & (WINDOW - 1)] = head[h];
            head[h] = (int)i;
        }
        if (best_len >= MIN_MATCH) {
            size_t k;
            out[flag_pos] |= (u8)(1 << bit);
            out[o++] = (u8)best_dist;
            out[o++] = (u8)(best_dist >> 8);
            out[o++] = (u8)(best_len - MIN_MATCH);
            /* Index the positions the match covers so later matches can find them. */
            for (k = 1; k < best_len && i + k + MIN_MATCH <= n; k++) {
                u32 h = hash4(in + i + k);
                prev[(i + k) & (WINDOW - 1)] = head[h];
                head[h] = (int)(i + k);
            }
            i += best_len;
        } else {
            out[o++] = in[i++];
        }
        bit++;
    }
    return o;
}

static size_t lz_decompress(const u8 *in, size_t n, u8 *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        u8 flags = in[i++];
        int bit;
        for (bit = 0; bit < 8 && i < n; bit++) {
            if (flags & (1 << bit)) {
                size_t dist = in[i] | in[i + 1] << 8, len = in[i + 2] + MIN_MATCH, k;
                i += 3;
                if (dist == 0 || dist > o || o + len > cap)
                    return (size_t)-1;
                for (k = 0; k < len; k++, o++)
                    out[o] = out[o - dist];
            } else {
                if (o >= cap)
                    return (size_t)-1;
                out[o++] = in[i++];
            }
        }
    }
    return o;
}

static const char *words[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "emulator",
                              "interprets", "x86", "instructions", "while", "windows", "programs", "run",
                              "deterministic", "output", "is", "compared", "byte", "for", "and", "a"};

static size_t make_text(u8 *buf, size_t n)
{
    size_t o = 0;
    while (o < n) {
        const char *w = words[next() % (sizeof words / sizeof words[0])];
        size_t len = strlen(w);
        if (o + len + 1 > n)
            break;
        memcpy(buf + o, w, len);
        o += len;
        buf[o++] = next() % 13 == 0 ? '\n' : ' ';
    }
    while (o < n)
        buf[o++] = '.';
    return o;
}

static void compression(void)
{
    const size_t text_len = 6u << 20, noise_len = 1u << 20, n = text_len + noise_len;
    u8 *data = malloc(n), *packed = malloc(n + n / 8 + 16), *back = malloc(n);
    size_t i, plen, blen;

    make_text(data, text_len);
    for (i = text_len; i < n; i++)
        data[i] = (u8)(next() >> 24);
    printf("LZ77 input: %u bytes (text then noise), CRC-32 0x%08x, FNV-1a 0x%08x\n", (unsigned)n, crc32(data, n),
           fnv1a(data, n));
    plen = lz_compress(data, n, packed);
    printf("LZ77 compressed: %u bytes, CRC-32 0x%08x\n", (unsigned)plen, crc32(packed, plen));
    blen = lz_decompress(packed, plen, back, n);
    printf("LZ77 round trip: %u bytes, identical: %s\n", (unsigned)blen,
           blen == n && memcmp(back, data, n) == 0 ? "yes" : "no");
    free(data);
    free(packed);
    free(back);
}

static void hashing(void)
{
    const size_t n = 32u << 20;
    u8 *buf = malloc(n);
    size_t i;
    printf("CRC-32(\"123456789\") = 0x%08x (0xcbf43926 expected)\n", crc32((const u8 *)"123456789", 9));
    printf("FNV-1a(\"\") = 0x%08x (0x811c9dc5 expected), FNV-1a(\"a\") = 0x%08x (0xe40c292c expected)\n",
           fnv1a((const u8 *)"", 0), fnv1a((const u8 *)"a", 1));
    for (i = 0; i < n; i += 4) {
        u32 v = next();
        memcpy(buf + i, &v, 4);
    }
    printf("32 MiB of PRNG output: CRC-32 0x%08x, FNV-1a 0x%08x\n", crc32(buf, n), fnv1a(buf, n));
    free(buf);
}

int main(void)
{
    crc_init();
    hashing();
    sieve();
    sorting();
    compression();
    return 0;
}
