/*
 * traps: the one-byte and INT n trap instructions as a Win32 program sees them
 * through structured exception handling: ICEBP (INT1, F1), INT3 (CC), INT 3
 * (CD 03), INTO with OF set and clear, INT 4 (CD 04), and INT 1 (CD 01), whose
 * gate user mode may not use: Windows reports it as an access violation. A
 * handler linked into the FS:[0] chain by hand (mingw has no __try) records the
 * exception code, the parameters, where the record and the context put the
 * instruction pointer (as an offset from the instruction, so the output does
 * not depend on where the program is loaded), then resumes after the
 * instruction.
 *
 * INTO and INT 4 trap with EIP after the instruction; Windows' handler reports
 * that EIP less one as the exception address (the INTO itself, the second byte
 * of CD 04), Wine the EIP itself: for those the program prints only whether the
 * address lies within the instruction or just after it, which both satisfy.
 * INT 0x80 is not here: on Windows a #GP like INT 1, under Wine on Linux the
 * host's system call.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

unsigned t_icebp(void);
unsigned t_int3(void);
unsigned t_int_3(void);
unsigned t_into_set(void);
unsigned t_into_clear(void);
unsigned t_int_4(void);
unsigned t_int_1(void);
extern char t_icebp_at[], t_int3_at[], t_int_3_at[], t_into_set_at[], t_into_clear_at[], t_int_4_at[],
    t_int_1_at[];

/* Each function sets EAX to 0x600d after the instruction, so a handler that
   resumes at the right place shows as 0x600d. */
__asm__(".text\n"
        ".globl _t_icebp\n_t_icebp:\n    xorl %eax, %eax\n"
        ".globl _t_icebp_at\n_t_icebp_at:\n    .byte 0xf1\n    movl $0x600d, %eax\n    ret\n"
        ".globl _t_int3\n_t_int3:\n    xorl %eax, %eax\n"
        ".globl _t_int3_at\n_t_int3_at:\n    .byte 0xcc\n    movl $0x600d, %eax\n    ret\n"
        ".globl _t_int_3\n_t_int_3:\n    xorl %eax, %eax\n"
        ".globl _t_int_3_at\n_t_int_3_at:\n    .byte 0xcd, 0x03\n    movl $0x600d, %eax\n    ret\n"
        /* OF set: 0x7fffffff + 1. */
        ".globl _t_into_set\n_t_into_set:\n    movl $0x7fffffff, %eax\n    addl $1, %eax\n    movl $0, %eax\n"
        ".globl _t_into_set_at\n_t_into_set_at:\n    into\n    movl $0x600d, %eax\n    ret\n"
        ".globl _t_into_clear\n_t_into_clear:\n    xorl %eax, %eax\n"
        ".globl _t_into_clear_at\n_t_into_clear_at:\n    into\n    movl $0x600d, %eax\n    ret\n"
        ".globl _t_int_4\n_t_int_4:\n    xorl %eax, %eax\n"
        ".globl _t_int_4_at\n_t_int_4_at:\n    .byte 0xcd, 0x04\n    movl $0x600d, %eax\n    ret\n"
        ".globl _t_int_1\n_t_int_1:\n    xorl %eax, %eax\n"
        ".globl _t_int_1_at\n_t_int_1_at:\n    .byte 0xcd, 0x01\n    movl $0x600d, %eax\n    ret\n");

struct reg {
    struct reg *prev;
    void *handler;
};

static struct {
    DWORD code, nparams, eip, flags;
    ULONG_PTR info[2];
    char *addr;
    char *resume;
    int calls;
} seen;

static EXCEPTION_DISPOSITION __cdecl handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    (void)frame;
    (void)dc;
    if (rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND))
        return ExceptionContinueSearch;
    seen.calls++;
    seen.code = rec->ExceptionCode;
    seen.flags = rec->ExceptionFlags;
    seen.nparams = rec->NumberParameters;
    seen.info[0] = rec->NumberParameters > 0 ? rec->ExceptionInformation[0] : 0;
    seen.info[1] = rec->NumberParameters > 1 ? rec->ExceptionInformation[1] : 0;
    seen.addr = rec->ExceptionAddress;
    seen.eip = ctx->Eip;
    ctx->Eip = (DWORD)seen.resume;
    return ExceptionContinueExecution;
}

/* `exact`: print the address as an offset; else whether it lies in [at, at + len]. */
static void trap(const char *what, unsigned (*fn)(void), char *at, int len, int exact)
{
    char where[48];
    unsigned v;
    memset(&seen, 0, sizeof seen);
    seen.resume = at + len;
    v = fn();
    if (seen.calls == 0) {
        printf("%s: no exception, EAX 0x%x\n", what, v);
        return;
    }
    if (exact)
        sprintf(where, "%+d", (int)(seen.addr - at));
    else
        strcpy(where, seen.addr >= at && seen.addr <= at + len ? "in or just after the instruction" : "elsewhere");
    printf("%s: code 0x%08lx, flags %lu, parameters %lu (0x%lx 0x%lx), address %s, Eip %+d, "
           "handler calls %d, EAX 0x%x\n",
           what, seen.code, seen.flags, seen.nparams, (unsigned long)seen.info[0], (unsigned long)seen.info[1],
           where, (int)((char *)seen.eip - at), seen.calls, v);
}

int main(void)
{
    struct reg r;
    __asm__ volatile("movl %%fs:0, %0" : "=r"(r.prev));
    r.handler = (void *)handler;
    __asm__ volatile("movl %0, %%fs:0" : : "r"(&r) : "memory");

    trap("icebp (f1)", t_icebp, t_icebp_at, 1, 1);
    trap("int3 (cc)", t_int3, t_int3_at, 1, 1);
    trap("int 3 (cd 03)", t_int_3, t_int_3_at, 2, 1);
    trap("into, OF set", t_into_set, t_into_set_at, 1, 0);
    trap("into, OF clear", t_into_clear, t_into_clear_at, 1, 0);
    trap("int 4 (cd 04)", t_int_4, t_int_4_at, 2, 0);
    trap("int 1 (cd 01)", t_int_1, t_int_1_at, 2, 1);

    __asm__ volatile("movl %0, %%fs:0" : : "r"(r.prev) : "memory");
    return 0;
}
