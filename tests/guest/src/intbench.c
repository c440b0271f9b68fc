/*
 * intbench: an integer benchmark kernel for the side-by-side speed script
 * (scripts/vs-qemu.sh), in the spirit of the classic integer suites: a
 * hand-written quicksort, an open-addressing hash table (insert, hit and miss
 * lookups, deletes), an integer matrix product, bitwise CRC-32C, a bytecode
 * interpreter with a switch dispatch (a jump table), a Collatz/GCD division mix
 * and a string search. Every part prints a checksum and a few are checked against
 * known values (CRC-32C check value, a GCD identity, the sum of a sorted array),
 * so the output is the same on every platform; nothing reads a clock. Built as a
 * Win32 console program with mingw and as a static 32-bit Linux program with
 * gcc -m32 from this same source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int u32;
typedef unsigned char u8;

static u32 rng = 1234567u;

static u32 next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static u32 mix(u32 h, u32 v)
{
    h ^= v;
    h *= 0x01000193u;
    return h ^ (h >> 15);
}

/* ---- quicksort (median of three, insertion sort below 16) ---- */

static void isort(int *a, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i; j > 0 && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

static void qsort_int(int *a, int n)
{
    while (n > 16) {
        int m = n / 2, i = 0, j = n - 1, p, t;
        if (a[m] < a[0]) { t = a[m]; a[m] = a[0]; a[0] = t; }
        if (a[n - 1] < a[0]) { t = a[n - 1]; a[n - 1] = a[0]; a[0] = t; }
        if (a[n - 1] < a[m]) { t = a[n - 1]; a[n - 1] = a[m]; a[m] = t; }
        p = a[m];
        for (;;) {
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i >= j)
                break;
            t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* Recurse into the smaller side, loop on the larger. */
        if (j + 1 < n - j - 1) {
            qsort_int(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            qsort_int(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    isort(a, n);
}

static void sorting(void)
{
    const int n = 600000;
    int *a = malloc(n * sizeof *a), i, ok = 1;
    u32 sum = 0, sum_after = 0, h = 0;
    for (i = 0; i < n; i++) {
        a[i] = (int)(next() % 1000000u) - 500000;
        sum += (u32)a[i];
    }
    qsort_int(a, n);
    for (i = 0; i < n; i++) {
        if (i && a[i - 1] > a[i])
            ok = 0;
        sum_after += (u32)a[i];
        h = mix(h, (u32)a[i]);
    }
    printf("quicksort %d ints: sorted %s, same sum %s, min %d, median %d, max %d, hash 0x%08x\n", n,
           ok ? "yes" : "no", sum == sum_after ? "yes" : "no", a[0], a[n / 2], a[n - 1], h);
    free(a);
}

/* ---- open-addressing hash table (linear probing, tombstones) ---- */

#define TBITS 20
#define EMPTY 0u
#define TOMB 1u

static u32 keys[1u << TBITS];
static u32 vals[1u << TBITS];

static u32 slot_of(u32 k)
{
    return (k * 2654435761u) >> (32 - TBITS);
}

static int ht_put(u32 k, u32 v)
{
    u32 s = slot_of(k), m = (1u << TBITS) - 1, tomb = 0xffffffffu;
    for (;;) {
        if (keys[s] == k) {
            vals[s] = v;
            return 0;
        }
        if (keys[s] == TOMB && tomb == 0xffffffffu)
            tomb = s;
        if (keys[s] == EMPTY) {
            if (tomb != 0xffffffffu)
                s = tomb;
            keys[s] = k;
            vals[s] = v;
            return 1;
        }
        s = (s + 1) & m;
    }
}

static u32 *ht_get(u32 k)
{
    u32 s = slot_of(k), m = (1u << TBITS) - 1;
    while (keys[s] != EMPTY) {
        if (keys[s] == k)
            return &vals[s];
        s = (s + 1) & m;
    }
    return 0;
}

static int ht_del(u32 k)
{
    u32 *v = ht_get(k);
    if (!v)
        return 0;
    keys[v - vals] = TOMB;
    return 1;
}

static void hashing(void)
{
    const u32 n = 500000;
    u32 i, added = 0, hits = 0, misses = 0, deleted = 0, h = 0, seed = rng;
    for (i = 0; i < n; i++)
        added += ht_put((next() | 2u), i);
    rng = seed;
    for (i = 0; i < n; i++) {
        u32 *v = ht_get(next() | 2u);
        if (v) {
            hits++;
            h = mix(h, *v);
        }
    }
    for (i = 0; i < n; i++)
        misses += ht_get((next() & ~3u) | 2u) == 0;
    rng = seed;
    for (i = 0; i < n; i += 2) {
        next();
        deleted += ht_del(next() | 2u);
    }
    rng = seed;
    for (i = 0; i < n; i++) {
        u32 *v = ht_get(next() | 2u);
        if (v)
            h = mix(h, *v + i);
    }
    printf("hash table: %u insertions (%u new keys), %u hits, %u misses of %u, %u deleted, hash 0x%08x\n", n, added,
           hits, misses, n, deleted, h);
}

/* ---- integer matrix product ---- */

#define MN 200

static u32 ma[MN][MN], mb[MN][MN], mc[MN][MN];

static void matrix(void)
{
    int i, j, k, r;
    u32 h = 0, trace = 0;
    for (i = 0; i < MN; i++)
        for (j = 0; j < MN; j++) {
            ma[i][j] = next() % 1000;
            mb[i][j] = next() % 1000;
        }
    for (r = 0; r < 2; r++) {
        for (i = 0; i < MN; i++)
            for (j = 0; j < MN; j++)
                mc[i][j] = 0;
        for (i = 0; i < MN; i++)
            for (k = 0; k < MN; k++) {
                u32 x = ma[i][k];
                for (j = 0; j < MN; j++)
                    mc[i][j] += x * mb[k][j];
            }
        /* The next round multiplies by the product (mod 1000). */
        for (i = 0; i < MN; i++)
            for (j = 0; j < MN; j++)
                mb[i][j] = mc[i][j] % 1000;
    }
    for (i = 0; i < MN; i++) {
        trace += mc[i][i];
        for (j = 0; j < MN; j++)
            h = mix(h, mc[i][j]);
    }
    printf("matrix %dx%d, two products: trace %u, hash 0x%08x\n", MN, MN, trace, h);
}

/* ---- CRC-32C, bit at a time ---- */

static u32 crc32c(const u8 *p, u32 n)
{
    u32 c = 0xffffffffu;
    int k;
    while (n--) {
        c ^= *p++;
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return c ^ 0xffffffffu;
}

static void crc(void)
{
    const u32 n = 3u << 20;
    u8 *buf = malloc(n);
    u32 i;
    for (i = 0; i < n; i++)
        buf[i] = (u8)(next() >> 13);
    printf("CRC-32C(\"123456789\") = 0x%08x (0xe3069283 expected); CRC-32C of 3 MiB 0x%08x\n",
           crc32c((const u8 *)"123456789", 9), crc32c(buf, n));
    free(buf);
}

/* ---- a bytecode interpreter ---- */

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, AND, XOR, SHL, SHR, DUP, SWAP, JNZ, DEC, HALT };

/*
 * The program: for r from N down to 1: acc = (acc * 33) ^ (r << 3) + (r & 255);
 * written as stack code over three variables (v0 = r, v1 = acc, v2 = scratch).
 */
static u32 vm(u32 rounds)
{
    static const int code[] = {
        PUSH, 0,                    /* placeholder replaced below: v0 = rounds */
        STORE, 0,  PUSH, 5381, STORE, 1,
        /* loop: (ip 8) */
        LOAD, 1,   PUSH, 33,   MUL,   LOAD, 0, PUSH, 3, SHL, XOR,
        LOAD, 0,   PUSH, 255,  AND,   ADD,  STORE, 1,
        LOAD, 0,   DEC,        DUP,   STORE, 0,
        JNZ,  8,   HALT,
    };
    int prog[sizeof code / sizeof code[0]];
    u32 stack[16], var[3] = {0, 0, 0};
    int sp = 0, ip = 0;
    memcpy(prog, code, sizeof code);
    prog[1] = (int)rounds;
    for (;;) {
        int op = prog[ip++];
        switch (op) {
        case PUSH: stack[sp++] = (u32)prog[ip++]; break;
        case LOAD: stack[sp++] = var[prog[ip++]]; break;
        case STORE: var[prog[ip++]] = stack[--sp]; break;
        case ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
        case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
        case AND: sp--; stack[sp - 1] &= stack[sp]; break;
        case XOR: sp--; stack[sp - 1] ^= stack[sp]; break;
        case SHL: sp--; stack[sp - 1] <<= stack[sp] & 31; break;
        case SHR: sp--; stack[sp - 1] >>= stack[sp] & 31; break;
        case DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case SWAP: { u32 t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } break;
        case JNZ: { int to = prog[ip++]; if (stack[--sp]) ip = to; } break;
        case DEC: stack[sp - 1]--; break;
        case HALT: return var[1];
        default: return 0xdeadbeefu;
        }
    }
}

static void bytecode(void)
{
    const u32 rounds = 700000;
    u32 r, acc = 5381;
    /* The same computation in C, to check the interpreter against. */
    for (r = rounds; r >= 1; r--)
        acc = ((acc * 33) ^ (r << 3)) + (r & 255);
    printf("bytecode VM, %u rounds: 0x%08x (C: 0x%08x)\n", rounds, vm(rounds), acc);
}

/* ---- division: Collatz lengths and GCDs ---- */

static u32 gcd(u32 a, u32 b)
{
    while (b) {
        u32 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void division(void)
{
    u32 i, longest = 0, at = 0, gsum = 0, lcm_ok = 1;
    for (i = 1; i < 300000; i++) {
        u32 x = i, steps = 0;
        while (x != 1 && steps < 1000) {
            x = x & 1 ? (x > 0x55555554u ? 1 : 3 * x + 1) : x / 2;
            steps++;
        }
        if (steps > longest) {
            longest = steps;
            at = i;
        }
    }
    for (i = 0; i < 300000; i++) {
        u32 a = next() % 100000 + 1, b = next() % 100000 + 1, g = gcd(a, b);
        gsum += g;
        /* gcd(a, b) * lcm(a, b) == a * b, lcm = a / g * b (fits: < 2^34 / g checked). */
        if ((unsigned long long)(a / g) * b * g != (unsigned long long)a * b)
            lcm_ok = 0;
    }
    printf("Collatz below 300000: longest %u steps at %u (442 at 230631 expected); 300000 GCDs sum %u, "
           "gcd*lcm identity %s\n",
           longest, at, gsum, lcm_ok ? "holds" : "FAILS");
}

/* ---- string search (naive, over generated text) ---- */

static void search(void)
{
    const u32 n = 2u << 20;
    char *text = malloc(n + 1);
    static const char *needles[] = {"abcab", "ccccc", "bacba", "aaaaaaab"};
    u32 i, k;
    for (i = 0; i < n; i++)
        text[i] = (char)('a' + next() % 3);
    text[n] = 0;
    for (k = 0; k < sizeof needles / sizeof needles[0]; k++) {
        const char *nd = needles[k];
        u32 m = (u32)strlen(nd), count = 0, first = 0xffffffffu;
        for (i = 0; i + m <= n; i++) {
            u32 j = 0;
            while (j < m && text[i + j] == nd[j])
                j++;
            if (j == m) {
                if (first == 0xffffffffu)
                    first = i;
                count++;
            }
        }
        printf("search \"%s\": %u matches, first at %u\n", nd, count, first);
    }
    free(text);
}

int main(void)
{
    sorting();
    hashing();
    matrix();
    crc();
    bytecode();
    division();
    search();
    return 0;
}
