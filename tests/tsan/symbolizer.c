/*
 * TSan's external symbolizer for the test command (TSAN_OPTIONS=external_symbolizer_path=
 * .../llvm-symbolizer; the file's name must say llvm-symbolizer). A test that preloads a
 * TSan-built layer hands LD_PRELOAD to the symbolizer it starts, which then cannot load
 * (libperfq.so.0: undefined symbol __tsan_init), and neither can a shell script. This program
 * is linked statically, so the dynamic loader never reads LD_PRELOAD for it; it removes the
 * variable and runs the real llvm-symbolizer. scripts/test-all.sh builds it with cc -static.
 */
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    unsetenv("LD_PRELOAD");
    execv("/usr/bin/llvm-symbolizer-14", argv);
    execvp("llvm-symbolizer", argv);
    perror("llvm-symbolizer");
    return 127;
}
