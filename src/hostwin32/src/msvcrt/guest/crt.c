/*
 * msvcrt routines that run as guest code (see ../guest_code.rs).
 *
 * They are pure computation on guest memory, or call back into the program
 * (qsort's and bsearch's comparators), so as x86 code they run in the CPU
 * tiers like the program's own code: no exit to the host per call, comparator
 * calls are plain guest calls, and a bad pointer faults inside msvcrt as it does
 * on Windows. The string instructions run with DF as they need it and leave the
 * caller's DF as it was (like the HLE functions, they work even when a program
 * calls them with DF set). Return values follow the HLE rules they replace: memcmp and
 * strcmp return -1, 0 or 1; memcpy copies as memmove does; qsort and bsearch
 * are msvcrt's own algorithms (equal keys end in the same order as on Windows).
 *
 * Built by build.sh into crt.bin (flat code, no data, no relocations) and
 * crt_syms.rs (each routine's offset). cdecl, integer instructions only.
 */
typedef unsigned int u32;
typedef unsigned char u8;
typedef int (*cmp_fn)(const void *, const void *);

#define EXPORT __attribute__((used, noinline))

EXPORT void *memmove(void *dst, const void *src, u32 n)
{
    u32 d = (u32)dst, s = (u32)src;
    if (d - s >= n) {
        /* No overlap that a forward copy would spoil. */
        u32 words = n >> 2, rest = n & 3;
        __asm__ volatile("pushfl\n\t"
                         "cld\n\t"
                         "rep movsl\n\t"
                         "movl %[rest], %%ecx\n\t"
                         "rep movsb\n\t"
                         "popfl"
                         : "+D"(d), "+S"(s), "+c"(words)
                         : [rest] "r"(rest)
                         : "memory");
    } else {
        /* dst lies inside [src, src + n): copy from the top down. */
        u32 td = d + n - 1, ts = s + n - 1, c = n;
        __asm__ volatile("pushfl\n\t"
                         "std\n\t"
                         "rep movsb\n\t"
                         "popfl"
                         : "+D"(td), "+S"(ts), "+c"(c)
                         :
                         : "memory");
    }
    return dst;
}

EXPORT void *memcpy(void *dst, const void *src, u32 n)
{
    return memmove(dst, src, n);
}

EXPORT void *memset(void *dst, int c, u32 n)
{
    u32 d = (u32)dst, v = (u8)c * 0x01010101u, words = n >> 2, rest = n & 3;
    __asm__ volatile("pushfl\n\t"
                     "cld\n\t"
                     "rep stosl\n\t"
                     "movl %[rest], %%ecx\n\t"
                     "rep stosb\n\t"
                     "popfl"
                     : "+D"(d), "+c"(words)
                     : "a"(v), [rest] "r"(rest)
                     : "memory");
    return dst;
}

EXPORT int memcmp(const void *a, const void *b, u32 n)
{
    const u8 *x = a, *y = b;
    for (u32 k = 0; k < n; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

EXPORT u32 strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (u32)(p - s);
}

EXPORT int strcmp(const char *a, const char *b)
{
    const u8 *x = (const u8 *)a, *y = (const u8 *)b;
    for (;;) {
        u8 p = *x++, q = *y++;
        if (p != q)
            return p < q ? -1 : 1;
        if (!p)
            return 0;
    }
}

EXPORT char *strcpy(char *dst, const char *src)
{
    char *d = dst;
    while ((*d++ = *src++))
        ;
    return dst;
}

/* ---- qsort and bsearch: msvcrt's algorithms ---- */

/* The comparator is entered with DF clear, as Windows promises every callback,
 * and the caller gets its own DF back. */
static u32 clear_df(void)
{
    u32 fl;
    __asm__ volatile("pushfl\n\t"
                     "popl %0\n\t"
                     "cld"
                     : "=r"(fl)
                     :
                     : "cc");
    return fl;
}

static void restore_flags(u32 fl)
{
    __asm__ volatile("pushl %0\n\t"
                     "popfl"
                     :
                     : "r"(fl)
                     : "cc");
}

static void swap(u32 a, u32 b, u32 width)
{
    if (a == b)
        return;
    if (width == 4) {
        u32 t = *(u32 *)a;
        *(u32 *)a = *(u32 *)b;
        *(u32 *)b = t;
        return;
    }
    for (u32 k = 0; k < width; k++) {
        u8 t = ((u8 *)a)[k];
        ((u8 *)a)[k] = ((u8 *)b)[k];
        ((u8 *)b)[k] = t;
    }
}

/* Selection sort moving the maximum to the end, for partitions of at most
 * CUTOFF elements. */
static void shortsort(u32 lo, u32 hi, u32 width, cmp_fn f)
{
    while (hi > lo) {
        u32 max = lo;
        for (u32 p = lo + width; p <= hi; p += width)
            if (f((void *)p, (void *)max) > 0)
                max = p;
        swap(max, hi, width);
        hi -= width;
    }
}

#define CUTOFF 8

/* Non-recursive quicksort with the middle element as pivot; the larger part is
 * pushed and the smaller one sorted first, so the stack holds at most one entry
 * per halving (32 for any 32-bit count). */
static void sort(void *base, u32 num, u32 width, cmp_fn f)
{
    u32 stk_lo[32], stk_hi[32];
    int sp = 0;
    if (num < 2 || width == 0)
        return;
    u32 lo = (u32)base, hi = (u32)base + width * (num - 1);
    for (;;) {
        u32 size = (hi - lo) / width + 1;
        if (size <= CUTOFF) {
            shortsort(lo, hi, width, f);
        } else {
            u32 mid = lo + (size / 2) * width;
            swap(mid, lo, width);
            u32 loguy = lo, higuy = hi + width;
            for (;;) {
                do
                    loguy += width;
                while (loguy <= hi && f((void *)loguy, (void *)lo) <= 0);
                do
                    higuy -= width;
                while (higuy > lo && f((void *)higuy, (void *)lo) >= 0);
                if (higuy < loguy)
                    break;
                swap(loguy, higuy, width);
            }
            swap(lo, higuy, width);
            if (higuy - 1 - lo >= hi - loguy) {
                if (lo + width < higuy) {
                    stk_lo[sp] = lo;
                    stk_hi[sp++] = higuy - width;
                }
                if (loguy < hi) {
                    lo = loguy;
                    continue;
                }
            } else {
                if (loguy < hi) {
                    stk_lo[sp] = loguy;
                    stk_hi[sp++] = hi;
                }
                if (lo + width < higuy) {
                    hi = higuy - width;
                    continue;
                }
            }
        }
        if (sp == 0)
            return;
        sp--;
        lo = stk_lo[sp];
        hi = stk_hi[sp];
    }
}

static void *search(const void *key, const void *base, u32 num, u32 width, cmp_fn f)
{
    u32 lo = (u32)base, hi = (u32)base + (num - 1) * width;
    while (num > 0 && lo <= hi) {
        u32 half = num / 2;
        if (half != 0) {
            u32 mid = lo + ((num & 1) ? half : half - 1) * width;
            int r = f(key, (void *)mid);
            if (r == 0)
                return (void *)mid;
            if (r < 0) {
                hi = mid - width;
                num = (num & 1) ? half : half - 1;
            } else {
                lo = mid + width;
                num = half;
            }
        } else {
            return f(key, (void *)lo) == 0 ? (void *)lo : 0;
        }
    }
    return 0;
}

EXPORT void qsort(void *base, u32 num, u32 width, cmp_fn f)
{
    u32 fl = clear_df();
    sort(base, num, width, f);
    restore_flags(fl);
}

EXPORT void *bsearch(const void *key, const void *base, u32 num, u32 width, cmp_fn f)
{
    u32 fl = clear_df();
    void *r = search(key, base, num, width, f);
    restore_flags(fl);
    return r;
}
