/* An ordinary mingw C program (C runtime start-up, msvcrt and kernel32 imports):
 * a realistic sample for the loader tests and the PE fuzz test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char buf[64];
    snprintf(buf, sizeof buf, "%d args", argc);
    puts(buf);
    return (int)strlen(argv[0]) > 1000 ? EXIT_FAILURE : EXIT_SUCCESS;
}
