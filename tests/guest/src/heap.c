/*
 * heap: allocator stress and the Win32 memory APIs.
 *
 * The stress part drives an allocator with a deterministic PRNG: thousands of
 * blocks from 1 byte to 1 MiB, more than 64 MiB live at the peak, every block
 * filled with a pattern derived from its tag and checked before it is freed
 * or resized (a resize must keep the common prefix). It runs once through
 * msvcrt's malloc/realloc/free and once through a private HeapCreate heap.
 * The counts and checksums depend only on the PRNG, not on the allocator, so
 * the same source compiled natively (where the Win32 heap calls become
 * malloc) must print the same lines.
 *
 * Lines starting with "[win]" test Windows-only APIs (HeapSize, flags, fixed
 * heaps, Global/Local, Virtual*); the native build does not print them.
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int u32;

static u32 rng;

static u32 next(void)
{
    /* xorshift32 */
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

struct allocator {
    const char *name;
    void *(*alloc)(size_t);
    void *(*resize)(void *, size_t);
    void (*release)(void *);
};

static void *crt_alloc(size_t n) { return malloc(n); }
static void *crt_resize(void *p, size_t n) { return realloc(p, n); }
static void crt_release(void *p) { free(p); }

#ifdef _WIN32
static HANDLE private_heap;
static void *heap_alloc(size_t n) { return HeapAlloc(private_heap, 0, n); }
static void *heap_resize(void *p, size_t n) { return HeapReAlloc(private_heap, 0, p, n); }
static void heap_release(void *p) { HeapFree(private_heap, 0, p); }
#else
/* Natively the Win32 heap is stood in for by malloc: the printed results do not depend on the allocator. */
#define heap_alloc crt_alloc
#define heap_resize crt_resize
#define heap_release crt_release
#endif

static const struct allocator crt = {"malloc", crt_alloc, crt_resize, crt_release};
static const struct allocator heap = {"HeapAlloc", heap_alloc, heap_resize, heap_release};

/* Blocks over 64 KiB get every 16th word, which still catches overlap and lost data, at a 16th of the cost. */
static size_t stride_for(size_t size)
{
    return size > 65536 ? 16 : 1;
}

static u32 pattern(u32 tag, size_t i)
{
    return tag ^ (u32)(i * 2654435761u);
}

static void fill(unsigned char *p, size_t size, u32 tag)
{
    size_t words = size / 4, i, stride = stride_for(size);
    for (i = 0; i < words; i += stride) {
        u32 v = pattern(tag, i);
        memcpy(p + i * 4, &v, 4);
    }
    for (i = words * 4; i < size; i++)
        p[i] = (unsigned char)(tag >> (8 * (i & 3)));
}

/* Checks the first `size` bytes of a block filled for `filled` bytes; returns a checksum or sets *bad. */
static u32 check(const unsigned char *p, size_t size, size_t filled, u32 tag, int *bad)
{
    size_t words = filled / 4, i, stride = stride_for(filled);
    u32 sum = 0;
    for (i = 0; i < words && i * 4 + 4 <= size; i += stride) {
        u32 v;
        memcpy(&v, p + i * 4, 4);
        if (v != pattern(tag, i))
            *bad = 1;
        sum = (sum ^ v) * 16777619u;
        sum ^= sum >> 15;
    }
    if (size == filled)
        for (i = words * 4; i < size; i++) {
            if (p[i] != (unsigned char)(tag >> (8 * (i & 3))))
                *bad = 1;
            sum = (sum ^ p[i]) * 16777619u;
        }
    return sum;
}

static size_t random_size(void)
{
    u32 c = next() % 100;
    u32 r = next();
    if (c < 60)
        return 1 + r % 256;
    if (c < 90)
        return 257 + r % (16384 - 256);
    if (c < 98)
        return 16385 + r % (262144 - 16384);
    return 262145 + r % (1048576 - 262144);
}

#define SLOTS 4096

struct slot {
    unsigned char *p;
    size_t size;
    u32 tag;
};

static struct slot slots[SLOTS];

static void stress(const struct allocator *a, u32 seed, int ops)
{
    unsigned long allocs = 0, frees = 0, reallocs = 0, checks = 0, failures = 0;
    size_t live = 0, peak = 0, blocks = 0, peak_blocks = 0;
    u32 sum = 0, tagc = seed * 0x10000u;
    int bad = 0, i;

    rng = seed;
    memset(slots, 0, sizeof slots);
    for (i = 0; i < ops; i++) {
        struct slot *s = &slots[next() % SLOTS];
        u32 action = next() % 10;
        if (!s->p) {
            s->size = random_size();
            s->tag = ++tagc;
            s->p = a->alloc(s->size);
            if (!s->p) {
                failures++;
                continue;
            }
            fill(s->p, s->size, s->tag);
            allocs++;
            live += s->size;
            blocks++;
        } else if (action < 4) {
            sum = 31 * sum + check(s->p, s->size, s->size, s->tag, &bad);
            checks++;
            a->release(s->p);
            s->p = NULL;
            frees++;
            live -= s->size;
            blocks--;
        } else if (action < 7) {
            size_t nsize = random_size();
            unsigned char *np = a->resize(s->p, nsize);
            if (!np) {
                failures++;
                continue;
            }
            /* The common prefix survives the move. */
            sum = 31 * sum + check(np, nsize < s->size ? nsize : s->size, s->size, s->tag, &bad);
            checks++;
            live += nsize;
            live -= s->size;
            s->p = np;
            s->size = nsize;
            s->tag = ++tagc;
            fill(s->p, s->size, s->tag);
            reallocs++;
        } else {
            sum = 31 * sum + check(s->p, s->size, s->size, s->tag, &bad);
            checks++;
        }
        if (live > peak) {
            peak = live;
            peak_blocks = blocks;
        }
    }
    for (i = 0; i < SLOTS; i++) {
        struct slot *s = &slots[i];
        if (s->p) {
            sum = 31 * sum + check(s->p, s->size, s->size, s->tag, &bad);
            a->release(s->p);
            s->p = NULL;
            frees++;
        }
    }
    printf("stress %s: seed %u, %d ops: %lu allocs, %lu reallocs, %lu frees, %lu checks, %lu failures\n", a->name,
           seed, ops, allocs, reallocs, frees, checks, failures);
    printf("stress %s: peak %lu bytes in %lu blocks, over 64 MiB: %s, contents intact: %s, checksum 0x%08x\n",
           a->name, (unsigned long)peak, (unsigned long)peak_blocks, peak > 64u << 20 ? "yes" : "no",
           bad ? "no" : "yes", sum);
}

/* 80 blocks of exactly 1 MiB live together. */
static void big_blocks(const struct allocator *a)
{
    static unsigned char *b[80];
    int i, bad = 0, got = 0;
    u32 sum = 0;
    for (i = 0; i < 80; i++) {
        b[i] = a->alloc(1u << 20);
        if (b[i]) {
            fill(b[i], 1u << 20, 0xb16b0000u + i);
            got++;
        }
    }
    for (i = 0; i < 80; i++)
        if (b[i])
            sum = 31 * sum + check(b[i], 1u << 20, 1u << 20, 0xb16b0000u + i, &bad);
    for (i = 0; i < 80; i++)
        a->release(b[i]);
    printf("big blocks %s: %d of 80 x 1 MiB allocated at once, contents intact: %s, checksum 0x%08x\n", a->name,
           got, bad ? "no" : "yes", sum);
}

static void crt_extras(void)
{
    unsigned char *p;
    int i, zero = 1;
    p = calloc(1000, 10);
    for (i = 0; i < 10000; i++)
        zero &= p[i] == 0;
    printf("calloc(1000, 10) zeroed: %s\n", zero ? "yes" : "no");
    free(p);
    free(NULL);
    printf("free(NULL) returned\n");
    p = malloc(10);
    memcpy(p, "0123456789", 10);
    p = realloc(p, 100000);
    printf("realloc 10 -> 100000 keeps the bytes: %s\n", memcmp(p, "0123456789", 10) == 0 ? "yes" : "no");
    p = realloc(p, 5);
    printf("realloc 100000 -> 5 keeps the bytes: %s\n", memcmp(p, "01234", 5) == 0 ? "yes" : "no");
    free(p);
    p = realloc(NULL, 64);
    printf("realloc(NULL, 64) allocates: %s\n", p ? "yes" : "no");
    free(p);
}

#ifdef _WIN32
static int all_zero(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void win_heap(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    unsigned char *p, *q;
    int n, i;
    SIZE_T sz;

    printf("[win] HeapCreate(0, 0, 0) (growable): %s\n", h ? "ok" : "failed");
    p = HeapAlloc(h, 0, 1000);
    printf("[win] HeapSize(HeapAlloc(1000)) = %lu\n", (unsigned long)HeapSize(h, 0, p));
    HeapFree(h, 0, p);
    p = HeapAlloc(h, HEAP_ZERO_MEMORY, 5000);
    printf("[win] HeapAlloc(HEAP_ZERO_MEMORY, 5000) zeroed: %s\n", all_zero(p, 5000) ? "yes" : "no");
    memset(p, 0xab, 5000);
    q = HeapReAlloc(h, HEAP_REALLOC_IN_PLACE_ONLY, p, 100);
    printf("[win] HeapReAlloc(IN_PLACE_ONLY, 5000 -> 100): same block: %s, HeapSize %lu\n", q == p ? "yes" : "no",
           (unsigned long)HeapSize(h, 0, q));
    p = HeapReAlloc(h, HEAP_ZERO_MEMORY, q, 8000);
    n = 1;
    for (i = 0; i < 100; i++)
        n &= p[i] == 0xab;
    printf("[win] HeapReAlloc(HEAP_ZERO_MEMORY, 100 -> 8000): first 100 kept: %s, rest zeroed: %s, HeapSize %lu\n",
           n ? "yes" : "no", all_zero(p + 100, 7900) ? "yes" : "no", (unsigned long)HeapSize(h, 0, p));
    printf("[win] HeapValidate: %s\n", HeapValidate(h, 0, NULL) ? "nonzero" : "FALSE");
    printf("[win] HeapFree: %s\n", HeapFree(h, 0, p) ? "nonzero" : "FALSE");
    p = HeapAlloc(h, 0, 3 << 20);
    printf("[win] HeapAlloc(3 MiB) from the growable heap: %s\n", p ? "ok" : "failed");
    printf("[win] HeapDestroy: %s\n", HeapDestroy(h) ? "nonzero" : "FALSE");

    /* A heap with a maximum size does not grow past it. */
    h = HeapCreate(0, 0x10000, 0x100000);
    for (n = 0; n < 32; n++)
        if (!HeapAlloc(h, 0, 0x10000))
            break;
    printf("[win] HeapCreate(0, 64 KiB, 1 MiB): 64 KiB allocations stop after at least 8 and before 16: %s\n",
           n >= 8 && n < 16 ? "yes" : "no");
    printf("[win] HeapAlloc(2 MiB) from it: %s\n", HeapAlloc(h, 0, 2 << 20) ? "ok" : "NULL");
    HeapDestroy(h);

    /* The process heap grows well past 1 MiB. */
    p = HeapAlloc(GetProcessHeap(), 0, 24 << 20);
    if (p) {
        memset(p, 0x5a, 24 << 20);
        n = p[0] == 0x5a && p[(24 << 20) - 1] == 0x5a;
    }
    printf("[win] HeapAlloc(GetProcessHeap(), 24 MiB) usable: %s\n", p && n ? "yes" : "no");
    HeapFree(GetProcessHeap(), 0, p);

    p = malloc(12345);
    sz = _msize(p);
    printf("[win] _msize(malloc(12345)) >= 12345: %s\n", sz >= 12345 ? "yes" : "no");
    free(p);
}

static void win_global_local(void)
{
    HGLOBAL g, g2;
    HLOCAL l;
    unsigned char *p;
    DWORD e;
    BOOL r;

    p = GlobalAlloc(GMEM_FIXED | GMEM_ZEROINIT, 1000);
    printf("[win] GlobalAlloc(GPTR, 1000): zeroed %s, GlobalSize >= 1000: %s\n", p && all_zero(p, 1000) ? "yes" : "no",
           GlobalSize(p) >= 1000 ? "yes" : "no");
    printf("[win] GlobalFree(fixed) = %s\n", GlobalFree(p) == NULL ? "NULL" : "handle");

    g = GlobalAlloc(GMEM_MOVEABLE, 2000);
    p = GlobalLock(g);
    printf("[win] GlobalAlloc(GMEM_MOVEABLE, 2000): locked pointer differs from the handle: %s, lock count %lu\n",
           p && (void *)p != (void *)g ? "yes" : "no", (unsigned long)(GlobalFlags(g) & GMEM_LOCKCOUNT));
    memcpy(p, "moveable", 9);
    printf("[win] GlobalHandle(pointer) is the handle: %s\n", GlobalHandle(p) == g ? "yes" : "no");
    SetLastError(0xdeadbeef);
    r = GlobalUnlock(g);
    e = GetLastError();
    printf("[win] GlobalUnlock = %d, error %lu, lock count %lu\n", r, e, (unsigned long)(GlobalFlags(g) & GMEM_LOCKCOUNT));
    g2 = GlobalReAlloc(g, 100000, GMEM_MOVEABLE);
    p = GlobalLock(g2);
    printf("[win] GlobalReAlloc(100000): contents kept: %s, GlobalSize >= 100000: %s\n",
           p && !strcmp((char *)p, "moveable") ? "yes" : "no", GlobalSize(g2) >= 100000 ? "yes" : "no");
    GlobalUnlock(g2);
    printf("[win] GlobalFree(moveable) = %s\n", GlobalFree(g2) == NULL ? "NULL" : "handle");

    l = LocalAlloc(LPTR, 500);
    printf("[win] LocalAlloc(LPTR, 500): zeroed %s, LocalSize >= 500: %s\n", l && all_zero(l, 500) ? "yes" : "no",
           LocalSize(l) >= 500 ? "yes" : "no");
    memcpy(l, "local", 6);
    l = LocalReAlloc(l, 50000, LMEM_MOVEABLE);
    printf("[win] LocalReAlloc(50000, LMEM_MOVEABLE): contents kept: %s\n", l && !strcmp(l, "local") ? "yes" : "no");
    printf("[win] LocalFree = %s\n", LocalFree(l) == NULL ? "NULL" : "handle");
}

static void show_region(const char *what, const void *addr, const unsigned char *base)
{
    MEMORY_BASIC_INFORMATION m;
    SIZE_T n = VirtualQuery(addr, &m, sizeof m);
    if (n != sizeof m) {
        printf("[win] VirtualQuery(%s) failed, error %lu\n", what, GetLastError());
        return;
    }
    if (m.State == MEM_FREE) {
        printf("[win] VirtualQuery(%s): State 0x%lx\n", what, m.State);
        return;
    }
    printf("[win] VirtualQuery(%s): BaseAddress base+0x%lx AllocationBase %s RegionSize 0x%lx State 0x%lx", what,
           (unsigned long)((const unsigned char *)m.BaseAddress - base),
           m.AllocationBase == base ? "base" : "other", (unsigned long)m.RegionSize, m.State);
    /* Protect is only defined for committed pages. */
    if (m.State == MEM_COMMIT)
        printf(" Protect 0x%lx", m.Protect);
    printf(" AllocationProtect 0x%lx Type 0x%lx\n", m.AllocationProtect, m.Type);
}

static void win_virtual(void)
{
    unsigned char *base, *p;
    DWORD old = 0;
    BOOL ok;
    int zero;

    base = VirtualAlloc(NULL, 1 << 20, MEM_RESERVE, PAGE_NOACCESS);
    printf("[win] VirtualAlloc(NULL, 1 MiB, MEM_RESERVE, PAGE_NOACCESS): 64 KiB aligned: %s\n",
           base && ((ULONG_PTR)base & 0xffff) == 0 ? "yes" : "no");
    show_region("base", base, base);
    SetLastError(0xdeadbeef);
    p = VirtualAlloc(base, 4096, MEM_RESERVE, PAGE_READWRITE);
    printf("[win] VirtualAlloc(base, MEM_RESERVE) again: %s, error %lu\n", p ? "ok" : "NULL", GetLastError());

    /* The committed range covers every page the 8192 bytes from base+0x10064 touch: three. */
    p = VirtualAlloc(base + 0x10064, 8192, MEM_COMMIT, PAGE_READWRITE);
    printf("[win] VirtualAlloc(base+0x10064, 8192, MEM_COMMIT) = base+0x%lx\n", (unsigned long)(p - base));
    zero = all_zero(base + 0x10000, 0x3000);
    memset(base + 0x10000, 0x77, 0x3000);
    printf("[win] committed pages were zero and are writable: %s\n", zero ? "yes" : "no");
    show_region("base", base, base);
    show_region("base+0x10000", base + 0x10000, base);
    show_region("base+0x13000", base + 0x13000, base);

    ok = VirtualProtect(base + 0x10000, 4096, PAGE_READONLY, &old);
    printf("[win] VirtualProtect(base+0x10000, 4096, PAGE_READONLY) = %d, old 0x%lx\n", ok, old);
    show_region("base+0x10000", base + 0x10000, base);
    show_region("base+0x11000", base + 0x11000, base);
    printf("[win] read-only page still reads 0x%02x\n", base[0x10010]);
    SetLastError(0xdeadbeef);
    ok = VirtualProtect(base + 0x20000, 4096, PAGE_READWRITE, &old);
    printf("[win] VirtualProtect on reserved, uncommitted pages = %d, error %lu\n", ok, GetLastError());

    ok = VirtualFree(base + 0x11000, 4096, MEM_DECOMMIT);
    printf("[win] VirtualFree(base+0x11000, 4096, MEM_DECOMMIT) = %d\n", ok);
    show_region("base+0x11000", base + 0x11000, base);
    SetLastError(0xdeadbeef);
    ok = VirtualFree(base, 4096, MEM_RELEASE);
    printf("[win] VirtualFree(base, 4096, MEM_RELEASE) = %d, error %lu\n", ok, GetLastError());
    ok = VirtualFree(base, 0, MEM_RELEASE);
    printf("[win] VirtualFree(base, 0, MEM_RELEASE) = %d\n", ok);
    show_region("base", base, base);

    base = VirtualAlloc(NULL, 10000, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    show_region("VirtualAlloc(NULL, 10000, MEM_COMMIT | MEM_RESERVE)", base, base);
    VirtualFree(base, 0, MEM_RELEASE);
}
#endif

int main(void)
{
#ifdef _WIN32
    private_heap = HeapCreate(0, 0, 0);
#endif
    stress(&crt, 1, 40000);
    stress(&heap, 2, 40000);
    big_blocks(&crt);
    big_blocks(&heap);
    crt_extras();
#ifdef _WIN32
    HeapDestroy(private_heap);
    win_heap();
    win_global_local();
    win_virtual();
#endif
    return 0;
}
