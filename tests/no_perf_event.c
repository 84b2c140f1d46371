/*
 * no-perf-event CMD [ARG...]: runs CMD where perf_event_open is refused (EACCES from a seccomp
 * filter, as container runtimes refuse it; the filter is inherited by every child CMD starts).
 * Issue 13, "perf_event refused": the tests of the C API (test_fallback_seccomp.c), of
 * `perfq stat`, of the GL layer's INTEL and BRCM entry points run under it (tests/meson.build,
 * tests/gl/meson.build) and must pass there as they do elsewhere, or degrade as documented.
 * Where this kernel has no seccomp filters: exits 77 (a skip) only where the test may lack them
 * (test_util.h: outside CI, or named in PERFQ_TEST_MAY_LACK), else 1. 127 where CMD cannot run.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "refuse_perf_event.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: no-perf-event CMD [ARG...]\n");
        return 2;
    }
    if (refuse_perf_event_open() != 0) {
        fprintf(stderr, "no-perf-event: no seccomp filter on this kernel (%s)\n", strerror(errno));
        return test_may_lack("seccomp filters") ? 77 : 1;
    }
    /* The filter holds: perf_event_open now fails with EACCES. */
    if (syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0) != -1 || errno != EACCES) {
        fprintf(stderr, "FAIL: perf_event_open not refused by the filter\n");
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "no-perf-event: %s: %s\n", argv[1], strerror(errno));
    return 127;
}
