/* An unhandled access violation: winterp must end the program with a report that
 * names the faulting instruction and module, and a non-zero exit code, while the
 * host process exits normally. Nothing here installs a handler of its own. */
#include <stdio.h>

int main(void)
{
    volatile int *p = (volatile int *)0x00000010;
    printf("about to write to %p\n", (void *)p);
    fflush(stdout);
    *p = 42;
    printf("not reached\n");
    return 0;
}
