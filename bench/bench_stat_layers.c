/*
 * bench-stat-layers PERFQ ROUNDS -- CMD [ARGS]: the slowdown `perfq stat` causes on a program
 * (the examples: perfq-example-gl, perfq-example-cl), side by side in one run. Each round runs
 * CMD bare, under `perfq stat --no-layers` (the counters only: host, and device where NVML
 * finds one), under `perfq stat` (the default since issue 12: the layers too, frames and
 * OpenCL commands) and under `perfq stat --per-draw` (every GL draw call timed and counted
 * too), in an order that rotates every round, and takes the wall time of each; it prints the median over rounds of each variant's ratio to the bare run of the same
 * round. Wall time includes perfq's own start and report (what a user waits for). CPU time is
 * user + system time of the whole process tree (wait4's rusage: CMD, perfq and every process
 * they waited for): on a shared machine it does not count the time others' processes took the
 * cores, so its ratio is the steadier measure of the work perfq adds. Each round's ratios are
 * printed as it ends. The draw-heavy load: bench/gl/draw_heavy.c (bench-draw-heavy).
 */
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

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: bench-stat-layers PERFQ ROUNDS -- CMD [ARGS]\n");
        return 2;
    }
    int rounds = atoi(argv[2]);
    if (rounds < 1 || rounds > 1000)
        return 2;
    char **cmd = argv + 4;
    int ncmd = argc - 4;
    char *bare[64], *stat[64], *layers[64], *draws[64];
    if (ncmd > 56)
        return 2;
    char *sv[] = {argv[1], "stat", "--no-layers", "-o", "/dev/null", "--"};
    char *lv[] = {argv[1], "stat", "-o", "/dev/null", "--"};
    char *dv[] = {argv[1], "stat", "--per-draw", "-o", "/dev/null", "--"};
    memcpy(bare, cmd, (size_t)ncmd * sizeof(char *));
    bare[ncmd] = NULL;
    memcpy(stat, sv, sizeof(sv));
    memcpy(stat + 6, cmd, (size_t)ncmd * sizeof(char *));
    stat[6 + ncmd] = NULL;
    memcpy(layers, lv, sizeof(lv));
    memcpy(layers + 5, cmd, (size_t)ncmd * sizeof(char *));
    layers[5 + ncmd] = NULL;
    memcpy(draws, dv, sizeof(dv));
    memcpy(draws + 6, cmd, (size_t)ncmd * sizeof(char *));
    draws[6 + ncmd] = NULL;
    char **variants[4] = {bare, stat, layers, draws};
    double *ratio_stat = calloc((size_t)rounds, sizeof(double));
    double *ratio_layers = calloc((size_t)rounds, sizeof(double));
    double *ratio_draws = calloc((size_t)rounds, sizeof(double));
    double *bare_s = calloc((size_t)rounds, sizeof(double));
    double *cpu_ratio[3], *bare_cpu = calloc((size_t)rounds, sizeof(double));
    for (int k = 0; k < 3; k++)
        cpu_ratio[k] = calloc((size_t)rounds, sizeof(double));
    run(bare);   /* warm the caches (shader and kernel compilers, page cache) */
    for (int r = 0; r < rounds; r++) {
        double t[4], cpu[4];
        for (int k = 0; k < 4; k++) {
            int v = (r + k) % 4;   /* rotate the order: no variant always runs first */
            t[v] = run(variants[v]);
            cpu[v] = cpu_s;
        }
        bare_cpu[r] = cpu[0];
        for (int k = 0; k < 3; k++)
            cpu_ratio[k][r] = cpu[k + 1] / cpu[0];
        bare_s[r] = t[0];
        ratio_stat[r] = t[1] / t[0];
        ratio_layers[r] = t[2] / t[0];
        ratio_draws[r] = t[3] / t[0];
        /* Each round as it ends: a run cut short (a time limit) still leaves its figures. */
        printf("  round %d: bare %.3f s  --no-layers %.3f  default %.3f  --per-draw %.3f   CPU: "
               "bare %.3f s  --no-layers %.3f  default %.3f  --per-draw %.3f\n", r + 1, t[0],
               ratio_stat[r], ratio_layers[r], ratio_draws[r], cpu[0], cpu_ratio[0][r],
               cpu_ratio[1][r], cpu_ratio[2][r]);
        fflush(stdout);
    }
    qsort(ratio_stat, (size_t)rounds, sizeof(double), cmp);
    qsort(ratio_layers, (size_t)rounds, sizeof(double), cmp);
    qsort(ratio_draws, (size_t)rounds, sizeof(double), cmp);
    qsort(bare_s, (size_t)rounds, sizeof(double), cmp);
    qsort(bare_cpu, (size_t)rounds, sizeof(double), cmp);
    for (int k = 0; k < 3; k++)
        qsort(cpu_ratio[k], (size_t)rounds, sizeof(double), cmp);
    printf("%s: %d rounds, bare median %.3f s\n", cmd[0], rounds, bare_s[rounds / 2]);
    printf("  perfq stat --no-layers / bare: median %.3f  (min %.3f, max %.3f)\n",
           ratio_stat[rounds / 2], ratio_stat[0], ratio_stat[rounds - 1]);
    printf("  perfq stat (default)   / bare: median %.3f  (min %.3f, max %.3f)\n",
           ratio_layers[rounds / 2], ratio_layers[0], ratio_layers[rounds - 1]);
    printf("  perfq stat --per-draw  / bare: median %.3f  (min %.3f, max %.3f)\n",
           ratio_draws[rounds / 2], ratio_draws[0], ratio_draws[rounds - 1]);
    static const char *const label[3] = {"perfq stat --no-layers", "perfq stat (default)  ",
                                         "perfq stat --per-draw "};
    printf("  CPU time (user+system, whole tree), bare median %.3f s:\n", bare_cpu[rounds / 2]);
    for (int k = 0; k < 3; k++)
        printf("  %s / bare: median %.3f  (min %.3f, max %.3f)\n", label[k],
               cpu_ratio[k][rounds / 2], cpu_ratio[k][0], cpu_ratio[k][rounds - 1]);
    for (int k = 0; k < 3; k++)
        free(cpu_ratio[k]);
    free(bare_cpu);
    free(ratio_draws);
    free(ratio_stat);
    free(ratio_layers);
    free(bare_s);
    return 0;
}
