/*
 * seh: structured exception handling as a mingw program has to do it.
 *
 * mingw's gcc has no __try/__except, so handlers are linked into the FS:[0]
 * chain by hand. The faulting instructions live in small assembly functions
 * with a global label on the instruction, so a handler can check
 * ExceptionAddress and CONTEXT.Eip exactly, skip the instruction (its length
 * is known) or fix a register and retry it. Covered: access violations (read,
 * write, a read-only page), integer divide by zero and overflow, ud2, int3,
 * hlt, RaiseException with parameters, a handler that passes an exception on,
 * a non-continuable exception handled by unwinding (RtlUnwind calls the inner
 * handlers with EXCEPTION_UNWINDING, then control jumps back to the frame
 * that handled it, as __except does), msvcrt setjmp/longjmp, and
 * SetUnhandledExceptionFilter returning EXCEPTION_CONTINUE_EXECUTION and
 * finally EXCEPTION_EXECUTE_HANDLER, which ends the process with the
 * exception code as its exit code.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <excpt.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* ---- the faulting instructions ---- */

/*
 * Every function sets EBX/ESI/EDI to known values and records ESP just
 * before its faulting instruction, so a handler can check the CONTEXT.
 */
unsigned fault_esp;
int fault_read(const void *p);
int fault_write(void *p, int v);
unsigned fault_div(unsigned a, unsigned b);
int fault_idiv(int a, int b);
int fault_ud2(void);
int fault_int3(void);
int fault_hlt(void);
void call_rtl_unwind(void *frame, EXCEPTION_RECORD *rec);
extern char fault_read_at[], fault_write_at[], fault_div_at[], fault_idiv_at[], fault_ud2_at[], fault_int3_at[],
    fault_hlt_at[];

__asm__(".text\n"
        ".macro FAULT_PROLOGUE\n"
        "    pushl %ebx\n"
        "    pushl %esi\n"
        "    pushl %edi\n"
        "    movl $0x11111111, %ebx\n"
        "    movl $0x22222222, %esi\n"
        "    movl $0x33333333, %edi\n"
        "    movl %esp, _fault_esp\n"
        ".endm\n"
        ".macro FAULT_EPILOGUE\n"
        "    popl %edi\n"
        "    popl %esi\n"
        "    popl %ebx\n"
        "    ret\n"
        ".endm\n"

        ".globl _fault_read\n"
        "_fault_read:\n"
        "    movl 4(%esp), %ecx\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %eax, %eax\n"
        ".globl _fault_read_at\n"
        "_fault_read_at:\n"
        "    movl (%ecx), %eax\n" /* 8b 01: 2 bytes */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_write\n"
        "_fault_write:\n"
        "    movl 4(%esp), %ecx\n"
        "    movl 8(%esp), %edx\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %eax, %eax\n"
        ".globl _fault_write_at\n"
        "_fault_write_at:\n"
        "    movl %edx, (%ecx)\n" /* 89 11: 2 bytes */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_div\n"
        "_fault_div:\n"
        "    movl 4(%esp), %eax\n"
        "    movl 8(%esp), %ecx\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %edx, %edx\n"
        ".globl _fault_div_at\n"
        "_fault_div_at:\n"
        "    divl %ecx\n" /* f7 f1: 2 bytes */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_idiv\n"
        "_fault_idiv:\n"
        "    movl 4(%esp), %eax\n"
        "    movl 8(%esp), %ecx\n"
        "    FAULT_PROLOGUE\n"
        "    cltd\n"
        ".globl _fault_idiv_at\n"
        "_fault_idiv_at:\n"
        "    idivl %ecx\n" /* f7 f9: 2 bytes */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_ud2\n"
        "_fault_ud2:\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %eax, %eax\n"
        ".globl _fault_ud2_at\n"
        "_fault_ud2_at:\n"
        "    ud2\n" /* 0f 0b: 2 bytes */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_int3\n"
        "_fault_int3:\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %eax, %eax\n"
        ".globl _fault_int3_at\n"
        "_fault_int3_at:\n"
        "    int3\n" /* cc: 1 byte */
        "    FAULT_EPILOGUE\n"

        ".globl _fault_hlt\n"
        "_fault_hlt:\n"
        "    FAULT_PROLOGUE\n"
        "    xorl %eax, %eax\n"
        ".globl _fault_hlt_at\n"
        "_fault_hlt_at:\n"
        "    hlt\n" /* f4: 1 byte */
        "    FAULT_EPILOGUE\n"

        /*
         * RtlUnwind may return with EBX/ESI/EDI/EBP changed (it resumes
         * through a captured context), so everything the caller keeps is
         * saved here and only ESP is relied on. TargetIp is the return
         * address, for implementations that continue there.
         */
        ".globl _call_rtl_unwind\n"
        "_call_rtl_unwind:\n"
        "    pushl %ebp\n"
        "    movl %esp, %ebp\n"
        "    pushl %ebx\n"
        "    pushl %esi\n"
        "    pushl %edi\n"
        "    pushl %ebp\n"
        "    pushl $0\n"
        "    pushl 12(%ebp)\n"
        "    pushl $_rtl_unwind_return\n"
        "    pushl 8(%ebp)\n"
        "    call *__imp__RtlUnwind@16\n"
        "_rtl_unwind_return:\n"
        "    popl %ebp\n"
        "    popl %edi\n"
        "    popl %esi\n"
        "    popl %ebx\n"
        "    popl %ebp\n"
        "    ret\n");

/* ---- the FS:[0] chain ---- */

struct reg {
    struct reg *prev;
    void *handler;
};

static struct reg *seh_head(void)
{
    struct reg *r;
    __asm__ volatile("movl %%fs:0, %0" : "=r"(r));
    return r;
}

static void seh_set(struct reg *r)
{
    __asm__ volatile("movl %0, %%fs:0" : : "r"(r) : "memory");
}

typedef EXCEPTION_DISPOSITION(__cdecl *handler_fn)(EXCEPTION_RECORD *, void *, CONTEXT *, void *);

/* ---- a handler that records what it was given and continues ---- */

static struct {
    DWORD code, flags, nparams, eip, ecx;
    ULONG_PTR info[EXCEPTION_MAXIMUM_PARAMETERS];
    void *addr, *frame;
    int regs_ok, chained, calls, unwinds;
} seen;

static struct {
    int skip;        /* bytes to advance Eip by; 0 retries the instruction */
    int set_eax;     /* put eax_value in Eax */
    DWORD eax_value;
    int set_ecx;     /* put ecx_value in Ecx */
    DWORD ecx_value;
} want;

static void record(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx)
{
    DWORD i;
    seen.calls++;
    seen.code = rec->ExceptionCode;
    seen.flags = rec->ExceptionFlags;
    seen.nparams = rec->NumberParameters;
    for (i = 0; i < rec->NumberParameters && i < EXCEPTION_MAXIMUM_PARAMETERS; i++)
        seen.info[i] = rec->ExceptionInformation[i];
    seen.addr = rec->ExceptionAddress;
    seen.chained = rec->ExceptionRecord != NULL;
    seen.frame = frame;
    seen.eip = ctx->Eip;
    seen.ecx = ctx->Ecx;
    seen.regs_ok = ctx->Ebx == 0x11111111 && ctx->Esi == 0x22222222 && ctx->Edi == 0x33333333 &&
                   ctx->Esp == fault_esp;
}

static EXCEPTION_DISPOSITION __cdecl recording_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    (void)dc;
    if (rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND)) {
        seen.unwinds++;
        return ExceptionContinueSearch;
    }
    record(rec, frame, ctx);
    ctx->Eip += want.skip;
    if (want.set_eax)
        ctx->Eax = want.eax_value;
    if (want.set_ecx)
        ctx->Ecx = want.ecx_value;
    return ExceptionContinueExecution;
}

static void expect(int skip, DWORD eax)
{
    memset(&seen, 0, sizeof seen);
    memset(&want, 0, sizeof want);
    want.skip = skip;
    want.set_eax = 1;
    want.eax_value = eax;
}

/* Prints what the handler saw for a fault at `at` handled by frame `r`. */
static void report(const char *what, const void *at, const struct reg *r)
{
    printf("%s: code 0x%08lx, flags %lu, ExceptionAddress %s, Eip %s, EBX/ESI/EDI/ESP %s, frame %s, nested record %s, "
           "handler calls %d\n",
           what, seen.code, seen.flags, seen.addr == at ? "at the instruction" : "elsewhere",
           seen.eip == (DWORD)at ? "at the instruction" : "elsewhere", seen.regs_ok ? "as at the fault" : "wrong",
           seen.frame == r ? "ours" : "other", seen.chained ? "present" : "none", seen.calls);
}

static void hardware_faults(void)
{
    struct reg r;
    static int good = 0x12345678;
    unsigned char *ro;
    DWORD old;
    int v;
    unsigned u;

    r.prev = seh_head();
    r.handler = (void *)(handler_fn)recording_handler;
    seh_set(&r);

    expect(2, 0x600df00d);
    v = fault_read((const void *)0x10);
    report("read of 0x10", fault_read_at, &r);
    printf("  NumberParameters %lu, ExceptionInformation[0] = %lu (read), [1] = 0x%lx, Ecx 0x%lx; "
           "continued past it with eax = 0x%x\n",
           seen.nparams, (unsigned long)seen.info[0], (unsigned long)seen.info[1], seen.ecx, v);

    expect(2, 0x0bad0bad);
    v = fault_write((void *)0x20, 7);
    report("write to 0x20", fault_write_at, &r);
    printf("  NumberParameters %lu, ExceptionInformation[0] = %lu (write), [1] = 0x%lx; continued with eax = 0x%x\n",
           seen.nparams, (unsigned long)seen.info[0], (unsigned long)seen.info[1], v);

    ro = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    ro[100] = 1;
    VirtualProtect(ro, 4096, PAGE_READONLY, &old);
    expect(2, 0);
    fault_write(ro + 100, 2);
    report("write to a PAGE_READONLY page", fault_write_at, &r);
    printf("  ExceptionInformation[0] = %lu, [1] is the page + 100: %s; the byte is still %d\n",
           (unsigned long)seen.info[0], seen.info[1] == (ULONG_PTR)(ro + 100) ? "yes" : "no", ro[100]);
    VirtualFree(ro, 0, MEM_RELEASE);

    /* Fix the register and run the same instruction again. */
    expect(0, 0);
    want.set_eax = 0;
    want.set_ecx = 1;
    want.ecx_value = (DWORD)&good;
    v = fault_read((const void *)0x10);
    printf("retry after pointing ECX at valid memory: handler calls %d, the load gave 0x%x\n", seen.calls, v);

    expect(2, 0xd1d0);
    u = fault_div(100, 0);
    report("div by zero", fault_div_at, &r);
    printf("  continued with eax = 0x%x\n", u);

    expect(2, 0x0f10);
    v = fault_idiv((int)0x80000000, -1);
    report("idiv 0x80000000 / -1", fault_idiv_at, &r);
    printf("  continued with eax = 0x%x\n", v);

    expect(2, 0x0d2);
    v = fault_ud2();
    report("ud2", fault_ud2_at, &r);
    printf("  continued with eax = 0x%x\n", v);

    /* Windows reports int3 at the instruction itself, so going on needs Eip + 1. */
    expect(1, 0x0cc);
    v = fault_int3();
    report("int3", fault_int3_at, &r);
    printf("  continued with eax = 0x%x\n", v);

    expect(1, 0x0f4);
    v = fault_hlt();
    report("hlt", fault_hlt_at, &r);
    printf("  continued with eax = 0x%x\n", v);

    printf("no unwinding calls during all that: %s\n", seen.unwinds == 0 ? "yes" : "no");
    seh_set(r.prev);
    printf("chain restored: %s\n", seh_head() == r.prev ? "yes" : "no");
}

static void software_exceptions(void)
{
    struct reg r;
    ULONG_PTR args[3] = {0x11, 0x22, 0x33};

    r.prev = seh_head();
    r.handler = (void *)(handler_fn)recording_handler;
    seh_set(&r);
    expect(0, 0);
    want.set_eax = 0;
    RaiseException(0xE0001234, 0, 3, args);
    printf("RaiseException(0xE0001234, 0, 3 args): code 0x%08lx, flags %lu, NumberParameters %lu, [0..2] = 0x%lx 0x%lx "
           "0x%lx, frame %s, nested record %s; RaiseException returned\n",
           seen.code, seen.flags, seen.nparams, (unsigned long)seen.info[0], (unsigned long)seen.info[1],
           (unsigned long)seen.info[2], seen.frame == &r ? "ours" : "other", seen.chained ? "present" : "none");
    expect(0, 0);
    want.set_eax = 0;
    RaiseException(0xE0000000, 0, 0, NULL);
    printf("RaiseException(0xE0000000, 0, 0, NULL): code 0x%08lx, NumberParameters %lu\n", seen.code, seen.nparams);
    seh_set(r.prev);
}

/* ---- a handler that declines ---- */

static int passed_on;

static EXCEPTION_DISPOSITION __cdecl declining_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    (void)frame, (void)ctx, (void)dc;
    if (!(rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND)))
        passed_on = seen.calls == 0 ? 1 : -1; /* 1: called before the outer handler */
    return ExceptionContinueSearch;
}

static void declining(void)
{
    struct reg outer, inner;
    int v;

    outer.prev = seh_head();
    outer.handler = (void *)(handler_fn)recording_handler;
    seh_set(&outer);
    inner.prev = &outer;
    inner.handler = (void *)(handler_fn)declining_handler;
    seh_set(&inner);
    expect(2, 0x5ea4c4);
    v = fault_read((const void *)0x30);
    printf("inner handler returning ExceptionContinueSearch: it ran first: %s, the outer frame handled it: %s, "
           "eax = 0x%x\n",
           passed_on == 1 ? "yes" : "no", seen.frame == &outer ? "yes" : "no", v);
    seh_set(outer.prev);
}

/* ---- a handler that unwinds to its own frame, then declines ---- */

static int unwound_then_declined;

/* Seen in a Delphi program's shutdown: the handler calls RtlUnwind with its own frame
 * as the target (which removes the dispatcher's nested record from FS:[0]), then
 * returns instead of jumping anywhere. Windows' handler-calling helper then unlinks
 * whatever record is on top (`mov esp, fs:[0]; pop fs:[0]`): this handler's own. */
static EXCEPTION_DISPOSITION __cdecl unwinding_decliner(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    (void)ctx, (void)dc;
    if (rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND))
        return ExceptionContinueSearch;
    /* No record: RtlUnwind would mark the one being dispatched as unwinding. */
    call_rtl_unwind(frame, NULL);
    unwound_then_declined = seh_head() == frame ? 1 : -1;
    return ExceptionContinueSearch;
}

static void unwind_then_decline(void)
{
    struct reg outer, inner;
    int v;

    outer.prev = seh_head();
    outer.handler = (void *)(handler_fn)recording_handler;
    seh_set(&outer);
    inner.prev = &outer;
    inner.handler = (void *)(handler_fn)unwinding_decliner;
    seh_set(&inner);
    expect(2, 0x0dec11e5);
    v = fault_read((const void *)0x34);
    printf("inner handler unwinding to its own frame, then returning ExceptionContinueSearch: its frame was on top "
           "after RtlUnwind: %s, the outer frame handled it: %s, eax = 0x%x, chain head afterwards is the outer "
           "frame: %s\n",
           unwound_then_declined == 1 ? "yes" : "no", seen.frame == &outer ? "yes" : "no", v,
           seh_head() == &outer ? "yes" : "no");
    seh_set(outer.prev);
}

/* ---- unwinding ---- */

static void *resume[5];
static char trace[512];

static void note(const char *s)
{
    strcat(trace, s);
}

static EXCEPTION_DISPOSITION __cdecl tracing_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc,
                                                     const char *name)
{
    char buf[96];
    (void)frame, (void)ctx, (void)dc;
    sprintf(buf, " %s(%s, code 0x%08lx, flags %lu)", name,
            rec->ExceptionFlags & EXCEPTION_UNWINDING ? "unwind" : "search", rec->ExceptionCode, rec->ExceptionFlags);
    note(buf);
    return ExceptionContinueSearch;
}

static EXCEPTION_DISPOSITION __cdecl inner_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    return tracing_handler(rec, frame, ctx, dc, "inner");
}

static EXCEPTION_DISPOSITION __cdecl middle_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    return tracing_handler(rec, frame, ctx, dc, "middle");
}

static EXCEPTION_DISPOSITION __cdecl outer_handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    char buf[96];
    if (rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND)) {
        note(" outer(unwind: the target frame must not be called)");
        return ExceptionContinueSearch;
    }
    tracing_handler(rec, frame, ctx, dc, "outer");
    /* Handle it the way __except does: unwind the frames above this one, then jump to the handler's code. */
    call_rtl_unwind(frame, rec);
    sprintf(buf, " RtlUnwind returned, chain head is the outer frame: %s", seh_head() == frame ? "yes" : "no");
    note(buf);
    __builtin_longjmp(resume, 1);
}

static __attribute__((noinline)) void raise_inside_two_frames(void)
{
    struct reg middle, inner;
    ULONG_PTR arg = 0x5151;
    middle.prev = seh_head();
    middle.handler = (void *)(handler_fn)middle_handler;
    seh_set(&middle);
    inner.prev = &middle;
    inner.handler = (void *)(handler_fn)inner_handler;
    seh_set(&inner);
    RaiseException(0xE0000BAD, EXCEPTION_NONCONTINUABLE, 1, &arg);
    note(" RaiseException returned (wrong)");
    seh_set(middle.prev);
}

static __attribute__((noinline)) void unwinding(void)
{
    /* volatile: the frame must be in memory and re-read after the jump back. */
    volatile struct reg outer;
    outer.prev = seh_head();
    outer.handler = (void *)(handler_fn)outer_handler;
    seh_set((struct reg *)&outer);
    trace[0] = 0;
    if (__builtin_setjmp(resume) == 0) {
        raise_inside_two_frames();
        note(" fell through (wrong)");
    } else {
        note(" back in the outer function");
    }
    seh_set(outer.prev);
    printf("non-continuable exception handled by unwinding:%s\n", trace);
}

/* ---- msvcrt setjmp/longjmp ---- */

static jmp_buf jb;

static __attribute__((noinline)) void jump_back(int v)
{
    longjmp(jb, v);
}

static void crt_longjmp(void)
{
    volatile int step = 0;
    int r = setjmp(jb);
    step++;
    if (r == 0)
        jump_back(42);
    printf("setjmp/longjmp: setjmp returned 0 then %d, passes %d\n", r, step);
    step = 0;
    r = setjmp(jb);
    step++;
    if (r == 0)
        jump_back(0);
    printf("longjmp(jb, 0) makes setjmp return %d\n", r);
}

/* ---- the unhandled exception filter ---- */

static int filter_calls;

static LONG WINAPI filter(EXCEPTION_POINTERS *ep)
{
    EXCEPTION_RECORD *rec = ep->ExceptionRecord;
    CONTEXT *ctx = ep->ContextRecord;
    filter_calls++;
    printf("filter call %d: code 0x%08lx, [0] = %lu, [1] = 0x%lx, Eip %s\n", filter_calls, rec->ExceptionCode,
           (unsigned long)rec->ExceptionInformation[0], (unsigned long)rec->ExceptionInformation[1],
           ctx->Eip == (DWORD)(filter_calls == 1 ? fault_read_at : fault_write_at) ? "at the instruction" : "elsewhere");
    if (filter_calls == 1) {
        ctx->Eip += 2;
        ctx->Eax = 0xf117e5;
        printf("filter: returning EXCEPTION_CONTINUE_EXECUTION\n");
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    printf("filter: returning EXCEPTION_EXECUTE_HANDLER; the process ends with the exception code\n");
    fflush(stdout);
    return EXCEPTION_EXECUTE_HANDLER;
}

static void unhandled(void)
{
    LPTOP_LEVEL_EXCEPTION_FILTER prev = SetUnhandledExceptionFilter(filter);
    int v;
    printf("SetUnhandledExceptionFilter: the C runtime's start-up had installed one: %s\n", prev ? "yes" : "no");
    v = fault_read((const void *)0x40);
    printf("after the filter continued: eax = 0x%x\n", v);
    fault_write((void *)0x50, 1);
    printf("not reached\n");
}

int main(void)
{
    struct reg *head;
    setvbuf(stdout, NULL, _IONBF, 0);
    head = seh_head();
    printf("FS:[0] holds a registration record: %s\n", head != NULL && head != (struct reg *)-1 ? "yes" : "no");
    hardware_faults();
    software_exceptions();
    declining();
    unwind_then_decline();
    unwinding();
    printf("chain head after unwinding is the one main started with: %s\n", seh_head() == head ? "yes" : "no");
    crt_longjmp();
    unhandled();
    return 0;
}
