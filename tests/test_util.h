/* Helpers shared by the core tests. */
#ifndef PERFQ_TESTS_TEST_UTIL_H
#define PERFQ_TESTS_TEST_UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* A test that finds a piece of the machine missing (OpenCL images, native kernels) may stop
 * there only where its command allows it: outside CI, or where PERFQ_TEST_MAY_LACK names the
 * piece. In CI nothing a test needs is missing, so there this returns 0 and the test asserts
 * on it. Always says on stderr what was not tested. */
static inline int test_may_lack(const char *piece)
{
    const char *ci = getenv("CI"), *may = getenv("PERFQ_TEST_MAY_LACK");
    int allowed = !(ci && strcmp(ci, "true") == 0) || (may && strstr(may, piece));
    fprintf(stderr, "%s: missing here, not tested%s\n", piece,
            allowed ? "" : " (CI=true: nothing may be missing)");
    return allowed;
}

/* Makes this process one that may not open perfq's fds through /proc/PID/fd (the open is
 * checked as ptrace's read mode): in a user namespace of its own (as a sandbox's processes), or
 * where that is refused and this runs as root, with its capability bounding set emptied, so that
 * the exec that must follow grants it none (as Chromium's processes under a perfq run as root).
 * 0, or -1 where neither is allowed here. */
static inline int test_isolate_from_perfq(void)
{
    if (unshare(CLONE_NEWUSER) == 0)
        return 0;
    if (geteuid() != 0)
        return -1;
    for (int cap = 0; cap < 64; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            return -1;
    return 0;
}

/* Hypervisor steal time of all CPUs so far (/proc/stat), in ns; 0 where not reported. perf's
 * task-clock runs on the scheduler clock, which keeps going while the hypervisor has taken
 * the vCPU away; thread CPU time and rusage leave steal time out. On a shared VM the two then
 * differ by up to the steal time of the interval. */
static inline double test_steal_ns(void)
{
    unsigned long long f[8] = {0};
    FILE *stat = fopen("/proc/stat", "r");
    if (!stat)
        return 0;
    int n = fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
                   &f[3], &f[4], &f[5], &f[6], &f[7]);
    fclose(stat);
    return n == 8 ? (double)f[7] * 1e9 / (double)sysconf(_SC_CLK_TCK) : 0;
}

/* The steal allowance of an interval that began at steal0: what was stolen, plus one clock
 * tick (the unit /proc/stat counts in) where anything was. */
static inline double test_steal_allowance(double steal0)
{
    double stolen = test_steal_ns() - steal0;
    return stolen > 0 ? stolen + 1e9 / (double)sysconf(_SC_CLK_TCK) : 0;
}

#endif
