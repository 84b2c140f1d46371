/*
 * libphase-stamps.so, preloaded by bench/stat_phases.py into every run it makes: at the exit of
 * the process whose environment has STAMP_T0 (the harness's CLOCK_MONOTONIC just before it
 * started the run) it appends "T0 START END" to $STAMP_FILE: START when this library's
 * constructor ran (before the program's own constructors and main), END when its destructor
 * ran (after the program's and its libraries' destructors). perfq's own process, which the
 * preload reaches too, writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long start_ns;

static long long monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((constructor(101))) static void on_start(void)
{
    start_ns = monotonic_ns();
}

__attribute__((destructor(101))) static void on_end(void)
{
    long long end_ns = monotonic_ns();
    const char *file = getenv("STAMP_FILE"), *t0 = getenv("STAMP_T0");
    if (!file || !t0 || strcmp(program_invocation_short_name, "perfq") == 0)
        return;
    FILE *out = fopen(file, "a");
    if (!out)
        return;
    fprintf(out, "%s %lld %lld\n", t0, start_ns, end_ns);
    fclose(out);
}
