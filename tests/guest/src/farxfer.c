/*
 * farxfer: far transfers and segment-register instructions in a Win32 user
 * process, as packers, protection code and hand-written assembly use them.
 *
 * The flat code selector is read from CS first (Windows uses 0x1B, Wine on
 * Linux another value), then: far CALL m16:32 and the RETF that returns from
 * it, far JMP m16:32, RETF imm16, IRETD, MOV/PUSH/POP of DS and ES, LDS/LES/LFS
 * with valid selectors. Far transfers and segment loads naming a selector user
 * mode may not use (a kernel segment, an LDT selector, a data segment as code, a
 * null SS) raise a general-protection fault, and so does an access through a
 * null selector loaded into ES (the load itself is allowed); Windows reports them as
 * EXCEPTION_ACCESS_VIOLATION; a handler linked into the FS:[0] chain by hand
 * (mingw has no __try) records the code and the faulting address and skips the
 * instruction. Selector values are printed only as "same as" comparisons, so
 * the output is the same on Windows and Wine.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

unsigned short read_cs(void);
unsigned short read_ds(void);
unsigned short read_fs(void);
unsigned far_call(unsigned short cs, unsigned *pushed_cs);
unsigned far_jmp(unsigned short cs);
unsigned ret_far_imm(unsigned short cs);
unsigned iret_same(unsigned short cs, unsigned flags);
unsigned seg_moves(void);
unsigned far_loads(unsigned short ds, unsigned short fs);
void bad_call(unsigned short sel);
void bad_jmp(unsigned short sel);
void bad_retf(unsigned short sel);
void bad_iret(unsigned short sel);
void bad_mov_ds(unsigned short sel);
void bad_pop_es(unsigned short sel);
void bad_lss(unsigned short sel);
void bad_null_es(unsigned short sel);
extern char bad_null_es_at[];
extern char bad_call_at[], bad_jmp_at[], bad_retf_at[], bad_iret_at[], bad_mov_ds_at[], bad_pop_es_at[],
    bad_lss_at[];

__asm__(".text\n"
        ".globl _read_cs\n_read_cs:\n    movw %cs, %ax\n    movzwl %ax, %eax\n    ret\n"
        ".globl _read_ds\n_read_ds:\n    movw %ds, %ax\n    movzwl %ax, %eax\n    ret\n"
        ".globl _read_fs\n_read_fs:\n    movw %fs, %ax\n    movzwl %ax, %eax\n    ret\n"

        /* far_call(cs, &pushed): lcall through a m16:32 pointer built from CS; the
           callee stores the CS the call pushed and returns with lret. */
        ".globl _far_call\n_far_call:\n"
        "    pushl %ebx\n"
        "    movl 12(%esp), %ebx\n"
        "    movzwl 8(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $far_callee\n"
        "    lcall *(%esp)\n"
        "    addl $8, %esp\n"
        "    popl %ebx\n"
        "    ret\n"
        "far_callee:\n"
        "    movl 4(%esp), %eax\n"
        "    movl %eax, (%ebx)\n"
        "    movl $0x600d, %eax\n"
        "    lret\n"

        /* far_jmp(cs): ljmp through m16:32 to a label. */
        ".globl _far_jmp\n_far_jmp:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $1f\n"
        "    xorl %eax, %eax\n"
        "    ljmp *(%esp)\n"
        "    movl $0xbad, %eax\n"
        "1:  addl $8, %esp\n"
        "    orl $0x1e, %eax\n"
        "    ret\n"

        /* ret_far_imm(cs): lret $8 releases two more dwords. */
        ".globl _ret_far_imm\n_ret_far_imm:\n"
        "    movl %esp, %edx\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl $0x1111\n"
        "    pushl $0x2222\n"
        "    pushl %eax\n"
        "    pushl $1f\n"
        "    lret $8\n"
        "1:  subl %esp, %edx\n"
        "    movl %edx, %eax\n" /* 0 when ESP is back where it was */
        "    ret\n"

        /* iret_same(cs, flags): IRETD to the same level loads the flags. */
        ".globl _iret_same\n_iret_same:\n"
        "    movl 8(%esp), %eax\n"
        "    movzwl 4(%esp), %ecx\n"
        "    pushl %eax\n"
        "    pushl %ecx\n"
        "    pushl $1f\n"
        "    iret\n"
        "1:  pushfl\n"
        "    popl %eax\n"
        "    andl $0x8d5, %eax\n" /* OF DF SF ZF AF PF CF */
        "    ret\n"

        /* seg_moves(): DS and ES through PUSH/POP and MOV; returns 1 when both
           come back with DS's selector. */
        ".globl _seg_moves\n_seg_moves:\n"
        "    pushl %ds\n"
        "    popl %es\n"
        "    movw %ds, %ax\n"
        "    movw %ax, %ds\n"
        "    xorl %ecx, %ecx\n"
        "    movw %cx, %es\n" /* a null selector: allowed in ES */
        "    movw %es, %cx\n"
        "    pushl %ds\n"
        "    popl %es\n"
        "    movw %es, %dx\n"
        "    cmpw %ax, %dx\n"
        "    sete %al\n"
        "    testw %cx, %cx\n"
        "    sete %cl\n"
        "    andb %cl, %al\n"
        "    movzbl %al, %eax\n"
        "    ret\n"

        /* far_loads(ds, fs): LDS/LES/LFS from memory far pointers. */
        ".globl _far_loads\n_far_loads:\n"
        "    pushl %ebx\n"
        "    pushl %esi\n"
        "    subl $8, %esp\n"
        "    movl $0x12345678, (%esp)\n"
        "    movl 20(%esp), %eax\n"
        "    movw %ax, 4(%esp)\n"
        "    les (%esp), %ebx\n"
        "    lds (%esp), %esi\n"
        "    movl 24(%esp), %eax\n"
        "    movw %ax, 4(%esp)\n"
        "    lfs (%esp), %ecx\n"
        "    movw %fs, %dx\n"
        "    xorl %eax, %eax\n"
        "    cmpl $0x12345678, %ebx\n"
        "    jne 1f\n"
        "    cmpl %ebx, %esi\n"
        "    jne 1f\n"
        "    cmpl %ebx, %ecx\n"
        "    jne 1f\n"
        "    cmpw 24(%esp), %dx\n"
        "    jne 1f\n"
        "    movl %fs:0x18, %eax\n" /* the TEB's self pointer through FS */
        "1:  addl $8, %esp\n"
        "    popl %esi\n"
        "    popl %ebx\n"
        "    ret\n"

        /* The faulting instructions, each at a global label; the handler skips
           the instruction (lengths: lcall *(%esp) 3, ljmp *(%esp) 3, lret 1,
           iret 1, mov %ax,%ds 2, pop %es 1, lss (%esp),%eax 4). */
        ".globl _bad_call\n_bad_call:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $0\n"
        ".globl _bad_call_at\n_bad_call_at:\n"
        "    lcall *(%esp)\n"
        "    addl $8, %esp\n"
        "    ret\n"
        ".globl _bad_jmp\n_bad_jmp:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $0\n"
        ".globl _bad_jmp_at\n_bad_jmp_at:\n"
        "    ljmp *(%esp)\n"
        "    addl $8, %esp\n"
        "    ret\n"
        ".globl _bad_retf\n_bad_retf:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $0\n"
        ".globl _bad_retf_at\n_bad_retf_at:\n"
        "    lret\n"
        "    addl $8, %esp\n"
        "    ret\n"
        ".globl _bad_iret\n_bad_iret:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl $0x202\n"
        "    pushl %eax\n"
        "    pushl $0\n"
        ".globl _bad_iret_at\n_bad_iret_at:\n"
        "    iret\n"
        "    addl $12, %esp\n"
        "    ret\n"
        ".globl _bad_mov_ds\n_bad_mov_ds:\n"
        "    movl 4(%esp), %eax\n"
        ".globl _bad_mov_ds_at\n_bad_mov_ds_at:\n"
        "    movw %ax, %ds\n"
        "    ret\n"
        ".globl _bad_pop_es\n_bad_pop_es:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        ".globl _bad_pop_es_at\n_bad_pop_es_at:\n"
        "    popl %es\n"
        "    addl $4, %esp\n"
        "    ret\n"
        /* bad_null_es(0): loading the null selector into ES is allowed; the access
           through it faults (es: mov (%esp), %eax: 4 bytes). ES gets DS back. */
        ".globl _bad_null_es\n_bad_null_es:\n"
        "    movl 4(%esp), %eax\n"
        "    movw %ax, %es\n"
        ".globl _bad_null_es_at\n_bad_null_es_at:\n"
        "    movl %es:(%esp), %eax\n"
        "    pushl %ds\n"
        "    popl %es\n"
        "    ret\n"
        ".globl _bad_lss\n_bad_lss:\n"
        "    movzwl 4(%esp), %eax\n"
        "    pushl %eax\n"
        "    pushl $0\n"
        ".globl _bad_lss_at\n_bad_lss_at:\n"
        "    lss (%esp), %eax\n"
        "    addl $8, %esp\n"
        "    ret\n");

/* ---- the FS:[0] chain ---- */

struct reg {
    struct reg *prev;
    void *handler;
};

static struct {
    DWORD code, nparams, eip;
    ULONG_PTR info[2];
    void *addr;
    int calls, skip;
} seen;

static EXCEPTION_DISPOSITION __cdecl handler(EXCEPTION_RECORD *rec, void *frame, CONTEXT *ctx, void *dc)
{
    (void)frame;
    (void)dc;
    if (rec->ExceptionFlags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND))
        return ExceptionContinueSearch;
    seen.calls++;
    seen.code = rec->ExceptionCode;
    seen.nparams = rec->NumberParameters;
    seen.info[0] = rec->NumberParameters > 0 ? rec->ExceptionInformation[0] : 0;
    seen.info[1] = rec->NumberParameters > 1 ? rec->ExceptionInformation[1] : 0;
    seen.addr = rec->ExceptionAddress;
    seen.eip = ctx->Eip;
    ctx->Eip += seen.skip;
    return ExceptionContinueExecution;
}

static void bad(const char *what, void (*fn)(unsigned short), unsigned short sel, const char *at, int len)
{
    memset(&seen, 0, sizeof seen);
    seen.skip = len;
    fn(sel);
    printf("%s: code 0x%08lx, parameters %lu (0x%lx 0x%lx), address %s, Eip %s, handler calls %d\n", what,
           seen.code, seen.nparams, (unsigned long)seen.info[0], (unsigned long)seen.info[1],
           seen.addr == at ? "at the instruction" : "elsewhere",
           seen.eip == (DWORD)at ? "at the instruction" : "elsewhere", seen.calls);
}

int main(void)
{
    struct reg r;
    unsigned short cs = read_cs(), ds = read_ds(), fs = read_fs();
    unsigned pushed = 0xffffffff, v;
    void *teb;

    printf("CS is %s, its RPL %u; DS %s\n", cs != 0 ? "not null" : "null", cs & 3u,
           ds != 0 && ds != cs ? "another non-null selector" : "odd");

    v = far_call(cs, &pushed);
    printf("far call through CS: returned 0x%x, pushed CS %s, upper half %s\n", v,
           (pushed & 0xffff) == cs ? "same as CS" : "different", (pushed >> 16) == 0 ? "0" : "not 0");
    printf("far jmp through CS: 0x%x\n", far_jmp(cs));
    printf("retf 8: ESP off by %u\n", ret_far_imm(cs));
    printf("iretd: flags 0x%x and 0x%x\n", iret_same(cs, 0x202 | 0x8d5), iret_same(cs, 0x202));
    printf("push/pop/mov DS and ES, a null ES: %s\n", seg_moves() ? "ok" : "wrong");
    __asm__ volatile("movl %%fs:0x18, %0" : "=r"(teb));
    v = far_loads(ds, fs);
    printf("les/lds/lfs: %s\n", v == (unsigned)teb ? "ok, FS still reaches the TEB" : "wrong");
    printf("CS after all that: %s\n", read_cs() == cs ? "unchanged" : "changed");

    __asm__ volatile("movl %%fs:0, %0" : "=r"(r.prev));
    r.handler = (void *)handler;
    __asm__ volatile("movl %0, %%fs:0" : : "r"(&r) : "memory");

    bad("far call to a kernel data selector (0x10)", bad_call, 0x10, bad_call_at, 3);
    bad("far call to the null selector", bad_call, 0, bad_call_at, 3);
    bad("far call to DS", bad_call, ds, bad_call_at, 3);
    bad("far jmp to an LDT selector (0x0f)", bad_jmp, 0x0f, bad_jmp_at, 3);
    bad("far jmp to a kernel code selector (0x08)", bad_jmp, 0x08, bad_jmp_at, 3);
    bad("retf to DS", bad_retf, ds, bad_retf_at, 1);
    bad("retf to CS with RPL 0", bad_retf, cs & ~3, bad_retf_at, 1);
    bad("iretd to the null selector", bad_iret, 0, bad_iret_at, 1);
    bad("mov ds, 0x10", bad_mov_ds, 0x10, bad_mov_ds_at, 2);
    bad("pop es, an LDT selector (0x07)", bad_pop_es, 0x07, bad_pop_es_at, 1);
    bad("lss with the null selector", bad_lss, 0, bad_lss_at, 4);
    bad("lss with CS", bad_lss, cs, bad_lss_at, 4);
    bad("an access through a null ES", bad_null_es, 0, bad_null_es_at, 4);

    __asm__ volatile("movl %0, %%fs:0" : : "r"(r.prev) : "memory");
    printf("CS, DS, FS at the end: %s\n",
           read_cs() == cs && read_ds() == ds && read_fs() == fs ? "unchanged" : "changed");
    return 0;
}
