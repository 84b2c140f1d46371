/*
 * bench-stat-layers PERFQ ROUNDS -- CMD [ARGS]: the slowdown `perfq stat` causes on a program
 * (the examples: perfq-example-gl, perfq-example-cl), side by side in one run. Each round runs
 * CMD bare, under `perfq run` (the layers injected by perfq's process, nothing counted: what
 * the injection and the extra process cost), under `perfq stat --no-layers` (the counters
 * only: host, and device where NVML finds one), under `perfq stat` (the default since issue
 * 12: the layers too, frames and OpenCL commands) and under `perfq stat --per-draw` (every GL
 * draw call timed and counted too), in an order that rotates every round, and takes the wall
 * time of each; it prints the median over rounds of each variant's ratio to the bare run of
 * the same round, and the median of its difference to that run in ms (a run of CMD short
 * enough to be mostly start and exit, e.g. `perfq-example-gl 1`, shows the fixed costs).
 * Wall time includes perfq's own start and report (what a user waits for). CPU time is user +
 * system time of the whole process tree (wait4's rusage: CMD, perfq and every process they
 * waited for): on a shared machine it does not count the time others' processes took the
 * cores, so its ratio is the steadier measure of the work perfq adds. Each round's ratios are
 * printed as it ends. The draw-heavy load: bench/gl/draw_heavy.c (bench-draw-heavy).
 *
 * Each median comes with its 95% confidence interval (distribution-free: the order statistics
 * that bracket the median with 95% probability under the binomial's normal approximation; no
 * assumption on how the runs spread), and the wall ratio with a verdict on issue 12's target,
 * a slowdown under 3%: "under 3%" when the whole interval is below 1.03, "over 3%" when it is
 * at or above, "undecided" when it straddles 1.03 (more rounds narrow it). On a shared machine
 * the runs of one variant spread by tens of percent: a median without its interval says little.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s;   /* CPU time of the last run */

static double run(char **argv)
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", 1);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    wait4(pid, &status, 0, &ru);
    cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-stat-layers: '%s' failed (status 0x%x)\n", argv[0], status);
        exit(1);
    }
    return now_s() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The 95% confidence interval of the median of n sorted values: [sorted[*lo], sorted[*hi]].
 * The 1-based ranks n/2 - 1.96 sqrt(n)/2 and 1 + n/2 + 1.96 sqrt(n)/2 (how many values fall
 * below the median is binomial B(n, 1/2), taken as normal), widened to whole ranks and held
 * inside 1..n (41 rounds: ranks 14 and 28; up to 10 rounds, the whole range). */
static void median_ci(int n, int *lo, int *hi)
{
    double half = 1.96 * sqrt((double)n) / 2.0;
    int j = (int)floor((double)n / 2.0 - half), k = (int)ceil((double)n / 2.0 + 1.0 + half);
    *lo = (j < 1 ? 1 : j) - 1;
    *hi = (k > n ? n : k) - 1;
}

static const char *verdict(double lo, double hi, double limit)
{
    return hi < limit ? "under 3%" : lo >= limit ? "over 3%" : "undecided";
}

int main(int argc, char **argv)
{
    /* --only TAGS: bare and the variants named (run, --no-layers, default, --per-draw), so
     * that more rounds of the ones of interest fit in the same time. */
    const char *only = NULL;
    int at = 3;
    if (argc > 4 && strcmp(argv[3], "--only") == 0) {
        only = argv[4];
        at = 5;
    }
    if (argc < at + 2 || strcmp(argv[at], "--") != 0) {
        fprintf(stderr, "usage: bench-stat-layers PERFQ ROUNDS [--only TAG,...] -- CMD [ARGS]\n"
                "  TAG: run, --no-layers, default, --no-device, --per-draw, --no-stats (bare always "
                "runs)\n");
        return 2;
    }
    int rounds = atoi(argv[2]);
    if (rounds < 1 || rounds > 1000)
        return 2;
    char **cmd = argv + at + 1;
    int ncmd = argc - at - 1;
    if (ncmd > 56)
        return 2;
    /* Each variant: perfq's arguments before CMD (none: CMD bare). */
    static const struct {
        const char *label, *tag;
        const char *args[5];
    } variant[] = {
        {"bare", "bare", {NULL}},
        {"perfq run", "run", {"run", "--", NULL}},
        {"perfq stat --no-layers", "--no-layers", {"stat", "--no-layers", "-o", "/dev/null", "--"}},
        {"perfq stat (default)", "default", {"stat", "-o", "/dev/null", "--", NULL}},
        /* the layers without the device counters: what NVML's start beside CMD costs */
        {"perfq stat --no-device", "--no-device", {"stat", "--no-device", "-o", "/dev/null", "--"}},
        {"perfq stat --per-draw", "--per-draw", {"stat", "--per-draw", "-o", "/dev/null", "--"}},
        /* frames without the pipeline statistics (llvmpipe: queries stop its overdraw
         * elimination, docs/perfq-stat.md) */
        {"perfq stat --no-stats", "--no-stats", {"stat", "--no-stats", "-o", "/dev/null", "--"}},
    };
    enum { NV = sizeof(variant) / sizeof(variant[0]) };
    int on[NV], n_on = 0, order[NV];   /* the variants run, bare first */
    for (int v = 0; v < NV; v++) {
        on[v] = v == 0 || !only;
        if (only) {
            size_t len = strlen(variant[v].tag);
            for (const char *t = only; *t;) {
                size_t n = strcspn(t, ",");
                if (n == len && strncmp(t, variant[v].tag, len) == 0)
                    on[v] = 1;
                t += n + (t[n] == ',');
            }
        }
        if (on[v])
            order[n_on++] = v;
    }
    if (only && n_on < 2) {
        fprintf(stderr, "bench-stat-layers: --only '%s' names no variant (run, --no-layers, "
                "default, --per-draw)\n", only);
        return 2;
    }
    char *argvs[NV][64];
    for (int v = 0; v < NV; v++) {
        int k = 0;
        if (variant[v].args[0]) {
            argvs[v][k++] = argv[1];
            for (int i = 0; i < 5 && variant[v].args[i]; i++)
                argvs[v][k++] = (char *)variant[v].args[i];
        }
        memcpy(argvs[v] + k, cmd, (size_t)ncmd * sizeof(char *));
        argvs[v][k + ncmd] = NULL;
    }
    /* Per variant and round: wall, CPU, their ratios and the wall's difference to bare. */
    double *wall[NV], *cpu[NV], *ratio[NV], *cpu_ratio[NV], *diff_ms[NV];
    for (int v = 0; v < NV; v++) {
        wall[v] = calloc((size_t)rounds, sizeof(double));
        cpu[v] = calloc((size_t)rounds, sizeof(double));
        ratio[v] = calloc((size_t)rounds, sizeof(double));
        cpu_ratio[v] = calloc((size_t)rounds, sizeof(double));
        diff_ms[v] = calloc((size_t)rounds, sizeof(double));
        if (!wall[v] || !cpu[v] || !ratio[v] || !cpu_ratio[v] || !diff_ms[v])
            return 1;
    }
    run(argvs[0]);   /* warm the caches (shader and kernel compilers, page cache) */
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < n_on; k++) {
            int v = order[(r + k) % n_on];   /* rotate the order: no variant always runs first */
            wall[v][r] = run(argvs[v]);
            cpu[v][r] = cpu_s;
        }
        /* Each round as it ends: a run cut short (a time limit) still leaves its figures. */
        printf("  round %d: bare %.3f s (CPU %.3f s);", r + 1, wall[0][r], cpu[0][r]);
        for (int v = 1; v < NV; v++) {
            if (!on[v])
                continue;
            ratio[v][r] = wall[v][r] / wall[0][r];
            cpu_ratio[v][r] = cpu[v][r] / cpu[0][r];
            diff_ms[v][r] = (wall[v][r] - wall[0][r]) * 1e3;
            printf("  %s %.3f (%.3f)", variant[v].tag, ratio[v][r],
                   cpu_ratio[v][r]);
        }
        printf("\n");
        fflush(stdout);
    }
    for (int v = 0; v < NV; v++) {
        qsort(wall[v], (size_t)rounds, sizeof(double), cmp);
        qsort(cpu[v], (size_t)rounds, sizeof(double), cmp);
        qsort(ratio[v], (size_t)rounds, sizeof(double), cmp);
        qsort(cpu_ratio[v], (size_t)rounds, sizeof(double), cmp);
        qsort(diff_ms[v], (size_t)rounds, sizeof(double), cmp);
    }
    int m = rounds / 2, lo, hi;
    median_ci(rounds, &lo, &hi);
    printf("%s: %d rounds, bare median %.3f s (CPU %.3f s)\n", cmd[0], rounds, wall[0][m],
           cpu[0][m]);
    printf("  %-24s %-36s %-9s %-12s %s\n", "variant / bare",
           "wall: median [95% CI] (min, max)", "3% target", "wall - bare",
           "CPU (user+system, whole tree): median [95% CI] (min, max)");
    for (int v = 1; v < NV; v++)
        if (on[v])
            printf("  %-24s %.3f [%.3f, %.3f] (%.3f, %.3f)  %-9s %+7.2f ms   %.3f [%.3f, %.3f] "
                   "(%.3f, %.3f)\n",
                   variant[v].label, ratio[v][m], ratio[v][lo], ratio[v][hi], ratio[v][0],
                   ratio[v][rounds - 1], verdict(ratio[v][lo], ratio[v][hi], 1.03), diff_ms[v][m],
                   cpu_ratio[v][m], cpu_ratio[v][lo], cpu_ratio[v][hi], cpu_ratio[v][0],
                   cpu_ratio[v][rounds - 1]);
    printf("  (95%% CI: the order statistics %d and %d of %d; the target's verdict is on the "
           "wall ratio's interval)\n", lo + 1, hi + 1, rounds);
    for (int v = 0; v < NV; v++) {
        free(wall[v]);
        free(cpu[v]);
        free(ratio[v]);
        free(cpu_ratio[v]);
        free(diff_ms[v]);
    }
    return 0;
}
