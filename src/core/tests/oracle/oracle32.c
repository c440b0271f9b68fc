/*
 * oracle32: runs x86-32 instruction bytes on the host CPU for winterp's
 * differential test (tests/differential.rs). Built by tests/oracle/mod.rs with
 *     gcc -m32 -static -O2 -fno-pie -no-pie
 * and driven over stdin/stdout with a little-endian binary protocol:
 *
 *   init   (once)  u32 MAGIC_INIT, u32 code_addr, u32 win_addr, u32 win_size,
 *                  u8 window[win_size]           (the pristine data window)
 *          reply   u32 MAGIC_READY, u32 exit_stub_addr
 *   batch          u32 MAGIC_BATCH, u32 ncases, u32 nbytes, u8 payload[nbytes]
 *          case    u8 code_len, u8 npatches, u16 reserved,
 *                  u32 regs[8] (EAX..EDI), u32 eflags, u8 fsave[108],
 *                  u8 code[code_len], npatches x { u16 off, u16 len, u8 data[len] }
 *          reply   u32 MAGIC_RESULT, u32 ncases, u32 nbytes, u8 payload[nbytes]
 *          result  u32 regs[8], u32 eip, u32 eflags, u8 fsave[108],
 *                  u32 signo, u32 trapno, u32 err, u32 addr,
 *                  u16 nruns, u16 reserved, nruns x { u16 off, u16 len, u8 data[len] }
 *
 * Each case: the data window is the pristine window plus the case's patches; the
 * code page holds the code bytes followed by `jmp exit_stub`. The guest state is
 * loaded with FRSTOR, POPFD and plain MOVs (ESP last) and the code is entered with
 * an indirect JMP. The exit stub saves ESP first, switches to a private stack and
 * saves the GPRs, EFLAGS (PUSHFD) and the x87 state (FNSAVE). Faults are caught on
 * an alternate signal stack (the guest ESP is never used for a signal frame) and
 * reported with the signal, trap number, error code, si_addr and the state from the
 * ucontext. After each case the window bytes that differ from the pristine window
 * are reported as runs and restored; DS, ES, FS and GS get the host's selectors
 * back (in the exit stub, and in the signal entry before any C code runs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAGIC_INIT 0x54494e49u   /* "INIT" */
#define MAGIC_READY 0x59444552u  /* "REDY" */
#define MAGIC_BATCH 0x48435442u  /* "BTCH" */
#define MAGIC_RESULT 0x544c5352u /* "RSLT" */

#define FSAVE_SIZE 108
#define MAX_WIN 0x10000u
#define CODE_PAGE 0x1000u

/* ---- state shared with the assembly below (fixed addresses: static, non-PIE) ---- */
uint32_t g_in_regs[8];
uint32_t g_in_eflags;
uint8_t g_in_fsave[FSAVE_SIZE] __attribute__((aligned(16)));
uint32_t g_out_regs[8];
uint32_t g_out_eflags;
uint8_t g_out_fsave[FSAVE_SIZE] __attribute__((aligned(16)));
uint32_t g_host_esp;
uint32_t g_code_entry;
/* The host's FS and GS (glibc keeps its TLS in GS): a case may load others; they
   are put back when the case ends or faults. */
uint16_t g_host_fs, g_host_gs;
uint8_t g_priv_stack[16384] __attribute__((aligned(16)));

void run_guest(void);
void exit_stub(void);

__asm__(
    ".text\n"
    ".globl run_guest\n"
    "run_guest:\n"
    "  pushl %ebp\n"
    "  pushl %ebx\n"
    "  pushl %esi\n"
    "  pushl %edi\n"
    "  movl %esp, g_host_esp\n"
    "  frstor g_in_fsave\n"
    "  pushl g_in_eflags\n"
    "  popfl\n"
    /* From here on only MOVs and the JMP: none of them touches EFLAGS. */
    "  movl g_in_regs+0, %eax\n"
    "  movl g_in_regs+4, %ecx\n"
    "  movl g_in_regs+8, %edx\n"
    "  movl g_in_regs+12, %ebx\n"
    "  movl g_in_regs+20, %ebp\n"
    "  movl g_in_regs+24, %esi\n"
    "  movl g_in_regs+28, %edi\n"
    "  movl g_in_regs+16, %esp\n"
    "  jmp *g_code_entry\n"
    "\n"
    ".globl exit_stub\n"
    "exit_stub:\n"
    /* The case may have left a null or code selector in DS or ES: the first stores
       go through SS, then DS and ES get SS's flat selector back. */
    "  movl %esp, %ss:g_out_regs+16\n"
    "  movl %eax, %ss:g_out_regs+0\n"
    "  movw %ss, %ax\n"
    "  movw %ax, %ds\n"
    "  movw %ax, %es\n"
    "  movw g_host_fs, %ax\n"
    "  movw %ax, %fs\n"
    "  movw g_host_gs, %ax\n"
    "  movw %ax, %gs\n"
    "  movl $(g_priv_stack+16384-16), %esp\n"
    "  movl %ecx, g_out_regs+4\n"
    "  movl %edx, g_out_regs+8\n"
    "  movl %ebx, g_out_regs+12\n"
    "  movl %ebp, g_out_regs+20\n"
    "  movl %esi, g_out_regs+24\n"
    "  movl %edi, g_out_regs+28\n"
    "  pushfl\n"
    "  popl g_out_eflags\n"
    "  fnsave g_out_fsave\n"
    /* Host C code wants DF=0, AC=0 (Linux sets CR0.AM), NT=0. */
    "  pushl $0x202\n"
    "  popfl\n"
    "  movl g_host_esp, %esp\n"
    "  popl %edi\n"
    "  popl %esi\n"
    "  popl %ebx\n"
    "  popl %ebp\n"
    "  ret\n"
    "\n"
    /* Signal entry: the kernel gives the handler flat DS and ES but leaves FS and
       GS as the case had them; the C handler (and siglongjmp) need the host's. */
    ".globl on_signal_entry\n"
    "on_signal_entry:\n"
    "  movw g_host_fs, %ax\n"
    "  movw %ax, %fs\n"
    "  movw g_host_gs, %ax\n"
    "  movw %ax, %gs\n"
    "  jmp on_signal\n");
void on_signal_entry(int, siginfo_t *, void *);

/* ---- fault capture ---- */
static sigjmp_buf g_jb;
static volatile sig_atomic_t g_in_guest;
static struct {
    uint32_t signo, trapno, err, addr, eip, eflags;
    uint32_t regs[8];
    uint8_t fsave[FSAVE_SIZE];
} g_fault;

static void die(const char *msg) {
    fprintf(stderr, "oracle32: %s (errno %d: %s)\n", msg, errno, strerror(errno));
    exit(2);
}

__attribute__((used)) void on_signal(int sig, siginfo_t *si, void *ucv);
__attribute__((used)) void on_signal(int sig, siginfo_t *si, void *ucv) {
    /* The guest may have left AC/DF/NT set: make the handler's own code safe. */
    __asm__ volatile("pushl $0x202\n\tpopfl" ::: "cc", "memory");
    if (!g_in_guest) {
        static const char m[] = "oracle32: unexpected signal outside guest code\n";
        ssize_t r = write(2, m, sizeof m - 1);
        (void)r;
        _exit(3);
    }
    ucontext_t *uc = (ucontext_t *)ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    g_fault.signo = (uint32_t)sig;
    g_fault.trapno = (uint32_t)g[REG_TRAPNO];
    g_fault.err = (uint32_t)g[REG_ERR];
    g_fault.addr = (uint32_t)(uintptr_t)si->si_addr;
    g_fault.eip = (uint32_t)g[REG_EIP];
    g_fault.eflags = (uint32_t)g[REG_EFL];
    g_fault.regs[0] = (uint32_t)g[REG_EAX];
    g_fault.regs[1] = (uint32_t)g[REG_ECX];
    g_fault.regs[2] = (uint32_t)g[REG_EDX];
    g_fault.regs[3] = (uint32_t)g[REG_EBX];
    g_fault.regs[4] = (uint32_t)g[REG_ESP];
    g_fault.regs[5] = (uint32_t)g[REG_EBP];
    g_fault.regs[6] = (uint32_t)g[REG_ESI];
    g_fault.regs[7] = (uint32_t)g[REG_EDI];
    if (uc->uc_mcontext.fpregs) {
        /* The kernel's i387 view of the saved state has the FSAVE layout. */
        memcpy(g_fault.fsave, uc->uc_mcontext.fpregs, FSAVE_SIZE);
    } else {
        memset(g_fault.fsave, 0, FSAVE_SIZE);
    }
    if (sig == SIGVTALRM) {
        g_fault.trapno = 0xffffffffu;
    }
    siglongjmp(g_jb, 1);
}

static void install_handlers(void) {
    static uint8_t altstack[1 << 17] __attribute__((aligned(16)));
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    if (sigaltstack(&ss, NULL) != 0) die("sigaltstack");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal_entry;
    /* SA_NODEFER: nothing is left blocked after the siglongjmp out of the handler. */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGVTALRM};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (sigaction(sigs[i], &sa, NULL) != 0) die("sigaction");
    }
}

/* A guest that never reaches its end (a runaway loop) is stopped after `secs` of
 * this process's own CPU time, so a loaded machine cannot cause false timeouts. */
static void arm_timer(int secs) {
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = secs;
    if (setitimer(ITIMER_VIRTUAL, &t, NULL) != 0) die("setitimer");
}

/* ---- I/O ---- */
static void read_full(void *buf, size_t n, int eof_ok) {
    uint8_t *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(0, p + got, n - got);
        if (r == 0) {
            if (eof_ok && got == 0) exit(0);
            fprintf(stderr, "oracle32: unexpected end of input\n");
            exit(2);
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            die("read");
        }
        got += (size_t)r;
    }
}

static void write_full(const void *buf, size_t n) {
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = write(1, p, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        p += r;
        n -= (size_t)r;
    }
}

static uint8_t *g_out;
static size_t g_out_len, g_out_cap;

static void out_bytes(const void *p, size_t n) {
    if (g_out_len + n > g_out_cap) {
        g_out_cap = (g_out_len + n) * 2;
        g_out = realloc(g_out, g_out_cap);
        if (!g_out) die("realloc");
    }
    memcpy(g_out + g_out_len, p, n);
    g_out_len += n;
}

static void out_u32(uint32_t v) { out_bytes(&v, 4); }
static void out_u16(uint16_t v) { out_bytes(&v, 2); }

static uint32_t rd_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint16_t rd_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* ---- the machine ---- */
static uint32_t g_code_addr, g_win_addr, g_win_size;
static uint8_t *g_code, *g_win;
static uint8_t g_pristine[MAX_WIN];

static void map_fixed(uint32_t addr, uint32_t len, int prot) {
    void *p = mmap((void *)(uintptr_t)addr, len, prot,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || (uintptr_t)p != addr) die("mmap at fixed address");
}

/* Reports the window bytes that differ from the pristine copy and restores them. */
static void diff_window(void) {
    size_t runs_at = g_out_len;
    out_u16(0);
    out_u16(0);
    uint16_t nruns = 0;
    uint32_t i = 0;
    while (i < g_win_size) {
        if ((i & 3) == 0 && i + 4 <= g_win_size &&
            rd_u32(g_win + i) == rd_u32(g_pristine + i)) {
            i += 4;
            continue;
        }
        if (g_win[i] == g_pristine[i]) {
            i++;
            continue;
        }
        uint32_t start = i;
        /* A run ends at 4 equal bytes in a row (short gaps are folded in). */
        uint32_t end = i + 1, same = 0;
        uint32_t j = i + 1;
        while (j < g_win_size && same < 4) {
            if (g_win[j] == g_pristine[j]) {
                same++;
            } else {
                same = 0;
                end = j + 1;
            }
            j++;
        }
        out_u16((uint16_t)start);
        out_u16((uint16_t)(end - start));
        out_bytes(g_win + start, end - start);
        memcpy(g_win + start, g_pristine + start, end - start);
        nruns++;
        i = end;
    }
    memcpy(g_out + runs_at, &nruns, 2);
}

/* Kept outside run_case's frame: siglongjmp may clobber register locals. */
static const uint8_t *g_next;
static uint32_t g_code_len;

static const uint8_t *run_case(const uint8_t *p, const uint8_t *end) {
    if (end - p < 4 + 36 + FSAVE_SIZE) {
        fprintf(stderr, "oracle32: truncated case\n");
        exit(2);
    }
    uint32_t code_len = p[0], npatches = p[1];
    p += 4;
    for (int r = 0; r < 8; r++) g_in_regs[r] = rd_u32(p + 4 * r);
    g_in_eflags = rd_u32(p + 32);
    p += 36;
    memcpy(g_in_fsave, p, FSAVE_SIZE);
    p += FSAVE_SIZE;
    if (code_len + 5 > CODE_PAGE || end - p < (long)code_len) {
        fprintf(stderr, "oracle32: bad code length\n");
        exit(2);
    }
    memcpy(g_code, p, code_len);
    p += code_len;
    uint32_t jmp_at = g_code_addr + code_len;
    int32_t rel = (int32_t)((uint32_t)(uintptr_t)exit_stub - (jmp_at + 5));
    g_code[code_len] = 0xe9;
    memcpy(g_code + code_len + 1, &rel, 4);
    for (uint32_t k = 0; k < npatches; k++) {
        if (end - p < 4) {
            fprintf(stderr, "oracle32: truncated patch\n");
            exit(2);
        }
        uint32_t off = rd_u16(p), len = rd_u16(p + 2);
        p += 4;
        if (off + len > g_win_size || end - p < (long)len) {
            fprintf(stderr, "oracle32: bad patch\n");
            exit(2);
        }
        memcpy(g_win + off, p, len);
        p += len;
    }

    g_next = p;
    g_code_len = code_len;
    g_in_guest = 1;
    if (sigsetjmp(g_jb, 0) == 0) {
        run_guest();
        g_in_guest = 0;
        out_bytes(g_out_regs, 32);
        out_u32(jmp_at);
        out_u32(g_out_eflags);
        out_bytes(g_out_fsave, FSAVE_SIZE);
        out_u32(0);
        out_u32(0);
        out_u32(0);
        out_u32(0);
    } else {
        g_in_guest = 0;
        __asm__ volatile("pushl $0x202\n\tpopfl\n\tfninit" ::: "cc", "memory");
        out_bytes(g_fault.regs, 32);
        out_u32(g_fault.eip);
        out_u32(g_fault.eflags);
        out_bytes(g_fault.fsave, FSAVE_SIZE);
        out_u32(g_fault.signo);
        out_u32(g_fault.trapno);
        out_u32(g_fault.err);
        out_u32(g_fault.addr);
        if (g_fault.signo == SIGVTALRM) arm_timer(2);
    }
    diff_window();
    memset(g_code, 0xcc, g_code_len + 5);
    return g_next;
}

int main(void) {
    uint32_t hdr[4];
    read_full(hdr, 16, 0);
    if (hdr[0] != MAGIC_INIT) {
        fprintf(stderr, "oracle32: bad init magic %#x\n", hdr[0]);
        return 2;
    }
    g_code_addr = hdr[1];
    g_win_addr = hdr[2];
    g_win_size = hdr[3];
    if (g_win_size == 0 || g_win_size > MAX_WIN || (g_win_size & 0xfff) || (g_code_addr & 0xfff) ||
        (g_win_addr & 0xfff)) {
        fprintf(stderr, "oracle32: bad layout\n");
        return 2;
    }
    read_full(g_pristine, g_win_size, 0);
    map_fixed(g_code_addr, CODE_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC);
    map_fixed(g_win_addr, g_win_size, PROT_READ | PROT_WRITE);
    g_code = (uint8_t *)(uintptr_t)g_code_addr;
    g_win = (uint8_t *)(uintptr_t)g_win_addr;
    memset(g_code, 0xcc, CODE_PAGE);
    memcpy(g_win, g_pristine, g_win_size);
    g_code_entry = g_code_addr;
    __asm__ volatile("movw %%fs, %0\n\tmovw %%gs, %1" : "=m"(g_host_fs), "=m"(g_host_gs));
    install_handlers();
    uint32_t ready[2] = {MAGIC_READY, (uint32_t)(uintptr_t)exit_stub};
    write_full(ready, 8);

    uint8_t *in = NULL;
    size_t in_cap = 0;
    for (;;) {
        uint32_t bh[3];
        read_full(bh, 12, 1);
        if (bh[0] != MAGIC_BATCH) {
            fprintf(stderr, "oracle32: bad batch magic %#x\n", bh[0]);
            return 2;
        }
        if (bh[2] > in_cap) {
            in_cap = bh[2];
            in = realloc(in, in_cap);
            if (!in) die("realloc");
        }
        read_full(in, bh[2], 0);
        g_out_len = 0;
        out_u32(MAGIC_RESULT);
        out_u32(bh[1]);
        out_u32(0);
        const uint8_t *p = in, *end = in + bh[2];
        arm_timer(2);
        for (uint32_t c = 0; c < bh[1]; c++) p = run_case(p, end);
        arm_timer(0);
        uint32_t nbytes = (uint32_t)(g_out_len - 12);
        memcpy(g_out + 8, &nbytes, 4);
        write_full(g_out, g_out_len);
    }
}
