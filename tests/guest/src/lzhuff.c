/*
 * lzhuff: a compression kernel for the side-by-side speed script (scripts/vs-qemu.sh).
 *
 * An LZ77 matcher (hash chains over a 32 KiB window, lazy matching) feeding a
 * canonical Huffman coder with Deflate's literal/length and distance alphabets
 * (lengths 3..258, distances 1..32768 with extra bits), code lengths limited to
 * 15 bits, one block per 64 KiB of input with its own code tables. The decoder
 * rebuilds the codes from the lengths and decodes with a 10-bit lookup table and
 * a slow path, then the round trip is checked byte for byte. Three inputs from a
 * fixed PRNG: word text, a record-structured binary table and noise. Output is a
 * few checksums (CRC-32) and sizes, identical on every platform; nothing reads a
 * clock. Built as a Win32 console program with mingw and as a static 32-bit Linux
 * program with gcc -m32 from this same source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

static u32 rng = 88172645u;

static u32 next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

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

static u32 crc32(const u8 *p, u32 n)
{
    u32 c = 0xffffffffu;
    while (n--)
        c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* ---- Deflate's length and distance alphabets ---- */

static const u16 len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const u8 len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const u16 dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                  193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const u8 dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int len_code(u32 len)
{
    int c = 0;
    while (c < 28 && len_base[c + 1] <= len)
        c++;
    return c;
}

static int dist_code(u32 d)
{
    int c = 0;
    while (c < 29 && dist_base[c + 1] <= d)
        c++;
    return c;
}

/* ---- LZ77: items are literals (< 256), end (256) or length/distance pairs ---- */

#define WSIZE 32768
#define HBITS 15
#define CHAIN 48
#define MINM 3
#define MAXM 258

typedef struct {
    u16 lit_or_len; /* literal byte, or match length (>= 3) when dist != 0 */
    u16 dist;
} item;

static int head[1 << HBITS];
static int prevpos[WSIZE];

static u32 hash3(const u8 *p)
{
    return ((u32)p[0] << 16 | (u32)p[1] << 8 | p[2]) * 2654435761u >> (32 - HBITS);
}

static void insert(const u8 *in, u32 i)
{
    u32 h = hash3(in + i);
    prevpos[i & (WSIZE - 1)] = head[h];
    head[h] = (int)i;
}

static u32 longest(const u8 *in, u32 n, u32 i, u32 *dist)
{
    u32 best = 0, limit = n - i < MAXM ? n - i : MAXM;
    int cand = head[hash3(in + i)], chain = CHAIN;
    while (cand >= 0 && i - (u32)cand <= WSIZE - 1 && chain-- > 0) {
        const u8 *a = in + cand, *b = in + i;
        if (a[best] == b[best]) {
            u32 l = 0;
            while (l < limit && a[l] == b[l])
                l++;
            if (l > best) {
                best = l;
                *dist = i - (u32)cand;
                if (l == limit)
                    break;
            }
        }
        cand = prevpos[cand & (WSIZE - 1)];
    }
    return best;
}

/* LZ77 over in[start..end) (the window reaches back before start). */
static u32 lz_parse(const u8 *in, u32 start, u32 end, item *out)
{
    u32 i = start, o = 0;
    while (i < end) {
        u32 d = 0, l = 0;
        if (i + MINM <= end)
            l = longest(in, end, i, &d);
        if (l >= MINM && i + 1 + MINM <= end) {
            /* Lazy matching: a longer match one byte later wins. */
            u32 d2 = 0, l2;
            insert(in, i);
            l2 = longest(in, end, i + 1, &d2);
            if (l2 > l) {
                out[o].lit_or_len = in[i];
                out[o++].dist = 0;
                i++;
                l = l2;
                d = d2;
            } else {
                out[o].lit_or_len = (u16)l;
                out[o++].dist = (u16)d;
                i++;
                while (--l) {
                    if (i + MINM <= end)
                        insert(in, i);
                    i++;
                }
                continue;
            }
        }
        if (l >= MINM) {
            out[o].lit_or_len = (u16)l;
            out[o++].dist = (u16)d;
            while (l--) {
                if (i + MINM <= end)
                    insert(in, i);
                i++;
            }
        } else {
            if (i + MINM <= end)
                insert(in, i);
            out[o].lit_or_len = in[i++];
            out[o++].dist = 0;
        }
    }
    return o;
}

/* ---- Huffman code lengths, limited to MAXBITS ---- */

#define MAXBITS 15
#define NLIT 286
#define NDIST 30

/* Package-free length limiting: build by repeated merging of the two lightest
 * nodes (a simple O(n^2) selection; n <= 286), then flatten overlong codes the
 * way zlib's gen_bitlen does. */
static void code_lengths(const u32 *freq, int n, u8 *lens)
{
    u32 w[2 * NLIT];
    int parent[2 * NLIT], alive[2 * NLIT], depth[2 * NLIT];
    int nodes = 0, i, used = 0, count[MAXBITS + 2];
    int map[NLIT];

    memset(lens, 0, (size_t)n);
    for (i = 0; i < n; i++)
        if (freq[i]) {
            map[used] = i;
            w[used] = freq[i];
            parent[used] = -1;
            alive[used] = 1;
            used++;
        }
    if (used == 0)
        return;
    if (used == 1) {
        lens[map[0]] = 1;
        return;
    }
    nodes = used;
    for (;;) {
        int a = -1, b = -1, k;
        for (k = 0; k < nodes; k++) {
            if (!alive[k])
                continue;
            if (a < 0 || w[k] < w[a]) {
                b = a;
                a = k;
            } else if (b < 0 || w[k] < w[b]) {
                b = k;
            }
        }
        if (b < 0)
            break;
        w[nodes] = w[a] + w[b];
        parent[nodes] = -1;
        alive[nodes] = 1;
        alive[a] = alive[b] = 0;
        parent[a] = parent[b] = nodes;
        nodes++;
    }
    for (i = nodes - 1; i >= 0; i--)
        depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
    /* Limit: count lengths, clamp, then repair the Kraft sum. */
    memset(count, 0, sizeof count);
    for (i = 0; i < used; i++)
        count[depth[i] > MAXBITS ? MAXBITS : depth[i]]++;
    {
        u32 kraft = 0;
        int bits;
        for (bits = 1; bits <= MAXBITS; bits++)
            kraft += (u32)count[bits] << (MAXBITS - bits);
        while (kraft > (1u << MAXBITS)) {
            /* Move one leaf from the deepest level below MAXBITS down one level. */
            for (bits = MAXBITS - 1; bits > 0 && count[bits] == 0; bits--)
                ;
            count[bits]--;
            count[bits + 1] += 2;
            count[MAXBITS]--;
            kraft -= 1u << (MAXBITS - bits);
            kraft += 2u << (MAXBITS - bits - 1);
            kraft -= 1;
        }
    }
    /* Assign lengths: sort leaves by weight (heaviest first), shortest codes first. */
    {
        int order[NLIT], k, j, bits;
        for (k = 0; k < used; k++)
            order[k] = k;
        for (k = 1; k < used; k++) {
            int v = order[k];
            for (j = k; j > 0 && (w[order[j - 1]] < w[v] || (w[order[j - 1]] == w[v] && map[order[j - 1]] > map[v])); j--)
                order[j] = order[j - 1];
            order[j] = v;
        }
        k = 0;
        for (bits = 1; bits <= MAXBITS; bits++)
            for (j = 0; j < count[bits]; j++)
                lens[map[order[k++]]] = (u8)bits;
    }
}

/* Canonical codes from lengths (bit-reversed for LSB-first output, as Deflate). */
static void canonical(const u8 *lens, int n, u16 *codes)
{
    int bl_count[MAXBITS + 1] = {0}, bits, i;
    u32 next_code[MAXBITS + 1], code = 0;
    for (i = 0; i < n; i++)
        bl_count[lens[i]]++;
    bl_count[0] = 0;
    for (bits = 1; bits <= MAXBITS; bits++) {
        code = (code + (u32)bl_count[bits - 1]) << 1;
        next_code[bits] = code;
    }
    for (i = 0; i < n; i++) {
        u32 c, r = 0;
        int l = lens[i], k;
        if (!l)
            continue;
        c = next_code[l]++;
        for (k = 0; k < l; k++)
            r |= ((c >> k) & 1) << (l - 1 - k);
        codes[i] = (u16)r;
    }
}

/* ---- bit I/O, LSB first ---- */

typedef struct {
    u8 *p;
    u32 pos;
    u32 acc;
    int n;
} bitw;

static void put(bitw *w, u32 v, int bits)
{
    w->acc |= v << w->n;
    w->n += bits;
    while (w->n >= 8) {
        w->p[w->pos++] = (u8)w->acc;
        w->acc >>= 8;
        w->n -= 8;
    }
}

static void flush(bitw *w)
{
    if (w->n > 0)
        w->p[w->pos++] = (u8)w->acc;
    w->acc = 0;
    w->n = 0;
}

typedef struct {
    const u8 *p;
    u32 pos, size;
    u32 acc;
    int n;
} bitr;

static void refill(bitr *r)
{
    while (r->n <= 24) {
        u32 b = r->pos < r->size ? r->p[r->pos] : 0;
        r->pos++;
        r->acc |= b << r->n;
        r->n += 8;
    }
}

static u32 get(bitr *r, int bits)
{
    u32 v;
    if (!bits)
        return 0;
    refill(r);
    v = r->acc & ((1u << bits) - 1);
    r->acc >>= bits;
    r->n -= bits;
    return v;
}

/* ---- decoding tables ---- */

#define FAST 10

typedef struct {
    u16 fast[1 << FAST]; /* symbol << 4 | length, 0 = slow path */
    u8 lens[NLIT];
    u16 codes[NLIT];
    int n;
} dtable;

static void dtable_build(dtable *t, const u8 *lens, int n)
{
    int i;
    t->n = n;
    memcpy(t->lens, lens, (size_t)n);
    memset(t->codes, 0, sizeof t->codes);
    canonical(lens, n, t->codes);
    memset(t->fast, 0, sizeof t->fast);
    for (i = 0; i < n; i++) {
        int l = lens[i];
        u32 c;
        if (!l || l > FAST)
            continue;
        for (c = t->codes[i]; c < (1u << FAST); c += 1u << l)
            t->fast[c] = (u16)(i << 4 | l);
    }
}

static int decode_sym(bitr *r, const dtable *t)
{
    u32 e, peek;
    int i;
    refill(r);
    peek = r->acc;
    e = t->fast[peek & ((1u << FAST) - 1)];
    if (e) {
        r->acc >>= e & 15;
        r->n -= e & 15;
        return (int)(e >> 4);
    }
    for (i = 0; i < t->n; i++) {
        int l = t->lens[i];
        if (l > FAST && (peek & ((1u << l) - 1)) == t->codes[i]) {
            r->acc >>= l;
            r->n -= l;
            return i;
        }
    }
    return -1;
}

/* ---- blocks: [lit lengths 286 x 4 bits][dist lengths 30 x 4 bits][symbols][256] ---- */

#define BLOCK 65536

static item items[BLOCK + 8];

static u32 compress(const u8 *in, u32 n, u8 *out)
{
    bitw w = {out, 0, 0, 0};
    u32 start;
    int i;
    for (i = 0; i < (1 << HBITS); i++)
        head[i] = -1;
    put(&w, n & 0xffff, 16);
    put(&w, n >> 16, 16);
    for (start = 0; start < n; start += BLOCK) {
        u32 end = start + BLOCK < n ? start + BLOCK : n;
        u32 ni = lz_parse(in, start, end, items), k;
        u32 lf[NLIT], df[NDIST];
        u8 ll[NLIT], dl[NDIST];
        u16 lc[NLIT], dc[NDIST];
        memset(lf, 0, sizeof lf);
        memset(df, 0, sizeof df);
        memset(lc, 0, sizeof lc);
        memset(dc, 0, sizeof dc);
        for (k = 0; k < ni; k++) {
            if (items[k].dist) {
                lf[257 + len_code(items[k].lit_or_len)]++;
                df[dist_code(items[k].dist)]++;
            } else {
                lf[items[k].lit_or_len]++;
            }
        }
        lf[256] = 1;
        code_lengths(lf, NLIT, ll);
        code_lengths(df, NDIST, dl);
        canonical(ll, NLIT, lc);
        canonical(dl, NDIST, dc);
        for (i = 0; i < NLIT; i++)
            put(&w, ll[i], 4);
        for (i = 0; i < NDIST; i++)
            put(&w, dl[i], 4);
        for (k = 0; k < ni; k++) {
            if (items[k].dist) {
                u32 l = items[k].lit_or_len, d = items[k].dist;
                int lcode = len_code(l), dcode = dist_code(d);
                put(&w, lc[257 + lcode], ll[257 + lcode]);
                put(&w, l - len_base[lcode], len_extra[lcode]);
                put(&w, dc[dcode], dl[dcode]);
                put(&w, d - dist_base[dcode], dist_extra[dcode]);
            } else {
                put(&w, lc[items[k].lit_or_len], ll[items[k].lit_or_len]);
            }
        }
        put(&w, lc[256], ll[256]);
    }
    flush(&w);
    return w.pos;
}

static dtable lt, dt;

/* Returns the decoded size, or (u32)-1 for a malformed stream. */
static u32 decompress(const u8 *in, u32 size, u8 *out, u32 cap)
{
    bitr r = {in, 0, size, 0, 0};
    u32 n, o = 0;
    n = get(&r, 16);
    n |= get(&r, 16) << 16;
    if (n > cap)
        return (u32)-1;
    while (o < n) {
        u8 ll[NLIT], dl[NDIST];
        int i;
        for (i = 0; i < NLIT; i++)
            ll[i] = (u8)get(&r, 4);
        for (i = 0; i < NDIST; i++)
            dl[i] = (u8)get(&r, 4);
        dtable_build(&lt, ll, NLIT);
        dtable_build(&dt, dl, NDIST);
        for (;;) {
            int s = decode_sym(&r, &lt);
            if (s < 0 || r.pos > size + 4)
                return (u32)-1;
            if (s < 256) {
                if (o >= n)
                    return (u32)-1;
                out[o++] = (u8)s;
            } else if (s == 256) {
                break;
            } else {
                int lcode = s - 257, dcode;
                u32 l, d, k;
                if (lcode > 28)
                    return (u32)-1;
                l = len_base[lcode] + get(&r, len_extra[lcode]);
                dcode = decode_sym(&r, &dt);
                if (dcode < 0 || dcode > 29)
                    return (u32)-1;
                d = dist_base[dcode] + get(&r, dist_extra[dcode]);
                if (d > o || o + l > n)
                    return (u32)-1;
                for (k = 0; k < l; k++, o++)
                    out[o] = out[o - d];
            }
        }
    }
    return o;
}

/* ---- inputs ---- */

static const char *words[] = {"emulator", "window", "message", "thread", "handle", "the", "of", "and", "a",
                              "to", "in", "is", "device", "context", "bitmap", "palette", "sound", "buffer",
                              "interrupt", "register", "segment", "page", "fault", "cache", "block", "code"};

static void make_text(u8 *buf, u32 n)
{
    u32 o = 0;
    while (o < n) {
        const char *w = words[next() % (sizeof words / sizeof words[0])];
        u32 len = (u32)strlen(w), k;
        for (k = 0; k < len && o < n; k++)
            buf[o++] = (u8)w[k];
        if (o < n)
            buf[o++] = next() % 11 == 0 ? '\n' : ' ';
    }
}

static void make_table(u8 *buf, u32 n)
{
    /* 32-byte records: an increasing id, a small category, a skewed amount, a name. */
    u32 o = 0, id = 1000;
    while (o + 32 <= n) {
        u32 amount = next() % 100;
        amount = amount < 70 ? amount : amount * (next() % 1000);
        memcpy(buf + o, &id, 4);
        buf[o + 4] = (u8)(next() % 6);
        memcpy(buf + o + 8, &amount, 4);
        {
            const char *w = words[next() % 8];
            u32 len = (u32)strlen(w);
            memset(buf + o + 12, ' ', 20);
            memcpy(buf + o + 12, w, len);
        }
        id += 1 + next() % 3;
        o += 32;
    }
    while (o < n)
        buf[o++] = 0;
}

static void run(const char *name, u8 *data, u32 n)
{
    u8 *packed = malloc(n + n / 4 + 4096), *back = malloc(n);
    u32 plen, blen;
    plen = compress(data, n, packed);
    blen = decompress(packed, plen, back, n);
    printf("%-6s %7u bytes, CRC-32 0x%08x -> %7u bytes (%u.%u%%), CRC-32 0x%08x; round trip %s\n", name, n,
           crc32(data, n), plen, plen * 100u / n, plen * 1000u / n % 10, crc32(packed, plen),
           blen == n && memcmp(back, data, n) == 0 ? "identical" : "DIFFERS");
    free(packed);
    free(back);
}

int main(void)
{
    const u32 text_n = 4u << 20, table_n = 2u << 20, noise_n = 1u << 20;
    u8 *text = malloc(text_n), *table = calloc(table_n, 1), *noise = malloc(noise_n);
    u32 i;
    crc_init();
    make_text(text, text_n);
    make_table(table, table_n);
    for (i = 0; i < noise_n; i++)
        noise[i] = (u8)(next() >> 24);
    run("text", text, text_n);
    run("table", table, table_n);
    run("noise", noise, noise_n);
    /* A malformed stream is refused, not decoded: flip a bit in the first block. */
    {
        u8 *packed = malloc(text_n + text_n / 4 + 4096), *back = malloc(text_n);
        u32 plen = compress(text, 65536, packed), r;
        packed[plen / 2] ^= 0x10;
        r = decompress(packed, plen, back, text_n);
        printf("corrupted stream: %s\n",
               r == (u32)-1                                        ? "refused"
               : r == 65536 && memcmp(back, text, 65536) == 0 ? "decoded, identical"
                                                              : "decoded to different bytes");
        free(packed);
        free(back);
    }
    free(text);
    free(table);
    free(noise);
    return 0;
}
