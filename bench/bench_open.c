/*
 * bench-open [ROUNDS]: where perfq_open's time goes, each part in a fresh process (a device's
 * first initialisation is paid once per process, so every figure is a first call):
 *   - each built-in provider's probe + enumerate alone (registry order);
 *   - CUPTI's first calls alone: dlopen of libcuda.so.1 and libcupti, cuInit,
 *     cuDeviceGetCount, cuptiProfilerInitialize (what the "cupti" and "cupti-range" probes
 *     begin with);
 *   - perfq_open + perfq_close as a program calls them, then perfq_open followed by
 *     perfq_counter_count (the whole catalog, every provider probed), each with PERFQ_DISABLE
 *     as the environment has it.
 * Wall time (CLOCK_MONOTONIC) and CPU time of the process, every thread
 * (CLOCK_PROCESS_CPUTIME_ID), median and max over ROUNDS (default 3). bench/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"
#include "providers/cupti_lib.h"

#define MAX_ROUNDS 15
#define MAX_PHASES 8

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct mark {
    double wall, cpu;
};

static struct mark now(void)
{
    return (struct mark){clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

/* A child's result: per phase wall and CPU ms, and a note (a reason, a count). */
struct result {
    int phases;
    double wall_ms[MAX_PHASES], cpu_ms[MAX_PHASES];
    char note[200];
};

static void lap(struct result *r, struct mark *t)
{
    struct mark n = now();
    r->wall_ms[r->phases] = (n.wall - t->wall) * 1e3;
    r->cpu_ms[r->phases] = (n.cpu - t->cpu) * 1e3;
    r->phases++;
    *t = n;
}

static void provider_alone(const struct perfq_provider_ops *ops, struct result *r)
{
    struct mark t = now();
    void *state = NULL;
    char reason[256] = "";
    perfq_status_t st = ops->probe(NULL, &state, reason, sizeof(reason));
    lap(r, &t);
    struct perfq_catalog cat;
    memset(&cat, 0, sizeof(cat));
    cat.provider_name = ops->name;
    ops->enumerate(st == PERFQ_OK ? state : NULL, &cat, st == PERFQ_OK ? NULL : reason);
    lap(r, &t);
    if (st == PERFQ_OK)
        snprintf(r->note, sizeof(r->note), "%u groups, %u counters", cat.group_count,
                 cat.counter_count);
    else
        snprintf(r->note, sizeof(r->note), "unavailable: %.180s", reason);
    perfq__catalog_free(&cat);
    /* Not closed: CUPTI's threads and a provider's process state die with the process. */
}

static void cupti_first_calls(struct result *r)
{
    static struct perfq_cupti_fns f;
    char reason[256] = "";
    int count = 0;
    struct mark t = now();
    if (perfq__cupti_load_cuda(&f, 0, reason, sizeof(reason)) == 0) {
        lap(r, &t);
        if (perfq__cupti_load_cupti(&f, 0, reason, sizeof(reason)) == 0) {
            lap(r, &t);
            CUresult cr = f.cuInit(0);
            lap(r, &t);
            f.cuDeviceGetCount(&count);
            lap(r, &t);
            CUpti_Profiler_Initialize_Params pi = {
                PERFQ_CUPTI_SIZE(CUpti_Profiler_Initialize_Params, pPriv), NULL};
            CUptiResult rc = f.cuptiProfilerInitialize(&pi);
            lap(r, &t);
            snprintf(reason, sizeof(reason), "cuInit %d, %d devices, cuptiProfilerInitialize %d",
                     (int)cr, count, (int)rc);
        }
    }
    snprintf(r->note, sizeof(r->note), "%.190s", reason);
}

static void open_close(int whole, struct result *r)
{
    struct mark t = now();
    perfq_t *pq = NULL;
    perfq_status_t st = perfq_open(&pq);
    lap(r, &t);
    uint32_t groups = 0, counters = 0;
    if (st == PERFQ_OK && whole) {
        perfq_group_count(pq, &groups);
        perfq_counter_count(pq, &counters);
        lap(r, &t);
    }
    if (pq)
        perfq_close(&pq);
    lap(r, &t);
    snprintf(r->note, sizeof(r->note), "%s%s", perfq_status_string(st),
             whole ? "" : " (catalog not read)");
    if (whole)
        snprintf(r->note, sizeof(r->note), "%s, %u groups, %u counters",
                 perfq_status_string(st), groups, counters);
}

enum job { JOB_PROVIDER, JOB_CUPTI, JOB_OPEN, JOB_OPEN_WHOLE };

static int in_child(enum job job, size_t provider, struct result *out)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        struct result r;
        memset(&r, 0, sizeof(r));
        if (job == JOB_PROVIDER)
            provider_alone(perfq__builtin_providers[provider], &r);
        else if (job == JOB_CUPTI)
            cupti_first_calls(&r);
        else
            open_close(job == JOB_OPEN_WHOLE, &r);
        ssize_t w = write(fd[1], &r, sizeof(r));
        _exit(w == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], out, sizeof(*out));
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return n == (ssize_t)sizeof(*out) && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, const char *const *phase_names, enum job job,
                   size_t provider, int rounds)
{
    struct result r[MAX_ROUNDS];
    for (int i = 0; i < rounds; i++)
        if (in_child(job, provider, &r[i])) {
            printf("%-22s failed\n", what);
            return;
        }
    printf("%-22s", what);
    for (int p = 0; p < r[0].phases; p++) {
        double w[MAX_ROUNDS], c[MAX_ROUNDS];
        for (int i = 0; i < rounds; i++) {
            w[i] = r[i].wall_ms[p];
            c[i] = r[i].cpu_ms[p];
        }
        qsort(w, (size_t)rounds, sizeof(double), cmp);
        qsort(c, (size_t)rounds, sizeof(double), cmp);
        printf("  %s %.1f/%.1f ms (max %.1f/%.1f)", phase_names[p], w[rounds / 2],
               c[rounds / 2], w[rounds - 1], c[rounds - 1]);
    }
    printf("  [%s]\n", r[0].note);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench-open [ROUNDS (1-%d)]\n", MAX_ROUNDS);
        return 2;
    }
    const char *disable = getenv("PERFQ_DISABLE");
    printf("bench-open: %d rounds, fresh process each; wall/CPU ms, median (max); "
           "PERFQ_DISABLE=%s\n", rounds, disable ? disable : "(unset)");
    static const char *const probe_names[] = {"probe", "enumerate"};
    for (size_t i = 0; i < perfq__builtin_provider_count; i++)
        report(perfq__builtin_providers[i]->name, probe_names, JOB_PROVIDER, i, rounds);
    static const char *const cupti_names[] = {"dlopen cuda", "dlopen cupti", "cuInit",
                                              "cuDeviceGetCount", "cuptiProfilerInitialize"};
    report("CUPTI first calls", cupti_names, JOB_CUPTI, 0, rounds);
    static const char *const open_names[] = {"perfq_open", "perfq_close"};
    report("perfq_open", open_names, JOB_OPEN, 0, rounds);
    static const char *const whole_names[] = {"perfq_open", "whole catalog", "perfq_close"};
    report("open + whole catalog", whole_names, JOB_OPEN_WHOLE, 0, rounds);
    return 0;
}
