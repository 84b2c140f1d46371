/*
 * bench-nvml-start ROUNDS -- CMD [ARGS]: where NVML's start costs a program that starts beside
 * it (perfq stat's device counters, tools/perfq/stat_device.c; docs/perfq-stat.md). On a machine
 * with an NVIDIA driver (elsewhere it says why not and exits 77):
 * 1. Each step of NVML's start as perfq's probe makes it (nvml_lib.c), in a fresh process per
 *    round, with nvmlInit_v2 and with nvmlInitWithFlags(NVML_INIT_FLAG_NO_ATTACH): wall and
 *    CPU time of each call (medians), and whether it answered.
 * 2. CMD's own wall time (fork to exit) while another process does one part of that start at
 *    the same moment (the variants below), in an order that rotates every round: the median
 *    of each variant's CMD time and its ratio to the idle variant's in the same round. This
 *    tells which NVML call slows the program's own driver start, and whether starting NVML
 *    later (after CMD's driver start) still does.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "providers/nvml_api.h"

#ifndef NVML_INIT_FLAG_NO_ATTACH
#define NVML_INIT_FLAG_NO_ATTACH 2u
#endif

#define FN(name, ret, args) static ret(*p_##name) args;
PERFQ_NVML_FUNCTIONS(FN, FN)
#undef FN
/* Not among perfq's functions (nvml_lib.c says why): measured here only. */
static nvmlReturn_t (*p_nvmlInitWithFlags)(unsigned int);

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
#define FN(name, ret, args) p_##name = (ret(*) args)dlsym(h, #name);
    PERFQ_NVML_FUNCTIONS(FN, FN)
#undef FN
    p_nvmlInitWithFlags = (nvmlReturn_t(*)(unsigned int))dlsym(h, "nvmlInitWithFlags");
    return p_nvmlInit_v2 ? 0 : -1;
}

/* ---- The steps of perfq's probe (nvml_lib.c), one function each ---- */
static nvmlDevice_t dev;
static nvmlGpmSample_t gs[2];
enum step {
    S_INIT_V2, S_INIT_NO_ATTACH, S_COUNT, S_HANDLE, S_NAME, S_UUID, S_POWER_FIELD, S_POWER,
    S_SM_CLOCK, S_MEM_CLOCK, S_UTIL, S_TEMP, S_MEMINFO, S_ENERGY, S_PCIE_TX, S_REASONS,
    S_GPM_SUPPORT, S_GPM_SAMPLE, S_GPM_SAMPLE2, S_GPM_METRICS, S_FAST_AGAIN, S_SHUTDOWN, S_N
};
static const char *const step_name[S_N] = {
    "nvmlInit_v2", "nvmlInitWithFlags(NO_ATTACH)", "DeviceGetCount_v2",
    "DeviceGetHandleByIndex_v2(0)", "DeviceGetName", "DeviceGetUUID", "field POWER_INSTANT",
    "DeviceGetPowerUsage", "GetClockInfo(SM)", "GetClockInfo(MEM)", "GetUtilizationRates",
    "GetTemperature", "GetMemoryInfo", "GetTotalEnergyConsumption", "GetPcieThroughput(TX)",
    "GetCurrentClocksEventReasons", "GpmQueryDeviceSupport", "GpmSampleAlloc+Get",
    "GpmSampleGet 2 ms later", "GpmMetricsGet(16)", "fast calls again (6)", "nvmlShutdown"};

static nvmlReturn_t fast_calls(void)
{
    unsigned v;
    unsigned long long u64;
    nvmlUtilization_t util;
    nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
    nvmlReturn_t rc = p_nvmlDeviceGetFieldValues ? p_nvmlDeviceGetFieldValues(dev, 1, &fv) : 0;
    rc |= p_nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &v);
    rc |= p_nvmlDeviceGetClockInfo(dev, NVML_CLOCK_MEM, &v);
    rc |= p_nvmlDeviceGetUtilizationRates(dev, &util);
    rc |= p_nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &v);
    if (p_nvmlDeviceGetCurrentClocksEventReasons)
        rc |= p_nvmlDeviceGetCurrentClocksEventReasons(dev, &u64);
    return rc;
}

static nvmlReturn_t do_step(enum step s)
{
    unsigned v = 0;
    unsigned long long u64;
    nvmlUtilization_t util;
    nvmlMemory_t mem;
    char buf[96];
    nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
    nvmlGpmSupport_t support = {.version = NVML_GPM_SUPPORT_VERSION};
    static perfq_nvmlGpmMetricsGet_t get;
    static const unsigned ids[] = {2, 3, 1, 10, 5, 6, 7, 9, 11, 12, 13, 4, 20, 21, 61, 60};
    switch (s) {
    case S_INIT_V2: return p_nvmlInit_v2();
    case S_INIT_NO_ATTACH:
        return p_nvmlInitWithFlags ? p_nvmlInitWithFlags(NVML_INIT_FLAG_NO_ATTACH) : -1;
    case S_COUNT: return p_nvmlDeviceGetCount_v2(&v);
    case S_HANDLE: return p_nvmlDeviceGetHandleByIndex_v2(0, &dev);
    case S_NAME: return p_nvmlDeviceGetName(dev, buf, sizeof(buf));
    case S_UUID: return p_nvmlDeviceGetUUID(dev, buf, sizeof(buf));
    case S_POWER_FIELD:
        return !p_nvmlDeviceGetFieldValues ? -1 : p_nvmlDeviceGetFieldValues(dev, 1, &fv)
                                                      ? 1 : fv.nvmlReturn;
    case S_POWER: return p_nvmlDeviceGetPowerUsage(dev, &v);
    case S_SM_CLOCK: return p_nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &v);
    case S_MEM_CLOCK: return p_nvmlDeviceGetClockInfo(dev, NVML_CLOCK_MEM, &v);
    case S_UTIL: return p_nvmlDeviceGetUtilizationRates(dev, &util);
    case S_TEMP: return p_nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &v);
    case S_MEMINFO: return p_nvmlDeviceGetMemoryInfo(dev, &mem);
    case S_ENERGY:
        return p_nvmlDeviceGetTotalEnergyConsumption
                   ? p_nvmlDeviceGetTotalEnergyConsumption(dev, &u64) : -1;
    case S_PCIE_TX:
        return p_nvmlDeviceGetPcieThroughput
                   ? p_nvmlDeviceGetPcieThroughput(dev, NVML_PCIE_UTIL_TX_BYTES, &v) : -1;
    case S_REASONS:
        return p_nvmlDeviceGetCurrentClocksEventReasons
                   ? p_nvmlDeviceGetCurrentClocksEventReasons(dev, &u64) : -1;
    case S_GPM_SUPPORT:
        return p_nvmlGpmQueryDeviceSupport ? p_nvmlGpmQueryDeviceSupport(dev, &support) : -1;
    case S_GPM_SAMPLE:
        if (!p_nvmlGpmSampleAlloc || p_nvmlGpmSampleAlloc(&gs[0]) || p_nvmlGpmSampleAlloc(&gs[1]))
            return -1;
        return p_nvmlGpmSampleGet(dev, gs[0]);
    case S_GPM_SAMPLE2:
        if (!gs[1])
            return -1;
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        return p_nvmlGpmSampleGet(dev, gs[1]);
    case S_GPM_METRICS:
        if (!gs[1] || !p_nvmlGpmMetricsGet)
            return -1;
        memset(&get, 0, sizeof(get));
        get.version = NVML_GPM_METRICS_GET_VERSION;
        get.numMetrics = 16;
        get.sample1 = gs[0];
        get.sample2 = gs[1];
        for (unsigned i = 0; i < 16; i++)
            get.metrics[i].metricId = ids[i];
        return p_nvmlGpmMetricsGet(&get);
    case S_FAST_AGAIN: return fast_calls();
    case S_SHUTDOWN: return p_nvmlShutdown();
    case S_N: break;
    }
    return -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Part 1: every step once in a fresh process; its times come back through a pipe. */
struct step_times {
    uint64_t wall[S_N], cpu[S_N];
    int rc[S_N];
};

static void steps_child(int init, int fd)
{
    struct step_times st;
    memset(&st, 0, sizeof(st));
    uint64_t t0 = now_ns(CLOCK_MONOTONIC);
    if (load()) {
        _exit(77);
    }
    uint64_t dl = now_ns(CLOCK_MONOTONIC) - t0;
    int usable = 1;
    for (int s = 0; s < S_N; s++) {
        if ((s == S_INIT_V2 || s == S_INIT_NO_ATTACH) && s != init)
            continue;
        if (!usable && s != S_SHUTDOWN) {
            st.rc[s] = -2;   /* not tried: no device handle */
            continue;
        }
        uint64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        st.rc[s] = (int)do_step((enum step)s);
        st.wall[s] = now_ns(CLOCK_MONOTONIC) - w0;
        st.cpu[s] = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (st.rc[s] && (s == init || s == S_HANDLE))
            usable = 0;
    }
    (void)dl;
    if (write(fd, &st, sizeof(st)) != (ssize_t)sizeof(st))
        _exit(1);
    _exit(0);
}

static int part1(int rounds)
{
    static const int inits[2] = {S_INIT_V2, S_INIT_NO_ATTACH};
    for (int k = 0; k < 2; k++) {
        uint64_t *w = calloc((size_t)rounds * S_N, sizeof(*w));
        uint64_t *c = calloc((size_t)rounds * S_N, sizeof(*c));
        int rcs[S_N] = {0};
        for (int r = 0; r < rounds; r++) {
            int p[2];
            if (pipe(p))
                return -1;
            pid_t pid = fork();
            if (pid == 0) {
                close(p[0]);
                steps_child(inits[k], p[1]);
            }
            close(p[1]);
            struct step_times st;
            ssize_t got = read(p[0], &st, sizeof(st));
            close(p[0]);
            int status;
            waitpid(pid, &status, 0);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
                return 77;
            if (got != (ssize_t)sizeof(st)) {
                printf("  %s: the process failed (status 0x%x)\n", step_name[inits[k]], status);
                memset(&st, 0, sizeof(st));
                for (int s = 0; s < S_N; s++)
                    st.rc[s] = -3;
            }
            for (int s = 0; s < S_N; s++) {
                w[s * rounds + r] = st.wall[s];
                c[s * rounds + r] = st.cpu[s];
                rcs[s] = st.rc[s];
            }
        }
        printf("NVML's start, step by step, with %s (%d fresh processes, medians):\n",
               step_name[inits[k]], rounds);
        uint64_t total_w = 0, total_c = 0;
        for (int s = 0; s < S_N; s++) {
            if ((s == S_INIT_V2 || s == S_INIT_NO_ATTACH) && s != inits[k])
                continue;
            qsort(w + s * rounds, (size_t)rounds, sizeof(*w), cmp_u64);
            qsort(c + s * rounds, (size_t)rounds, sizeof(*c), cmp_u64);
            uint64_t mw = w[s * rounds + rounds / 2], mc = c[s * rounds + rounds / 2];
            if (s != S_SHUTDOWN)
                total_w += mw, total_c += mc;
            printf("  %-32s wall %9.1f us  cpu %9.1f us  (min %.1f, max %.1f)%s%s\n",
                   step_name[s], mw / 1e3, mc / 1e3, w[s * rounds] / 1e3,
                   w[s * rounds + rounds - 1] / 1e3, rcs[s] ? "  returns " : "",
                   rcs[s] && p_nvmlErrorString && rcs[s] > 0 ? p_nvmlErrorString(rcs[s])
                   : rcs[s] == -1 ? "-1 (absent)" : rcs[s] == -2 ? "(not tried)"
                   : rcs[s] ? "(process failed)" : "");
        }
        printf("  sum before shutdown: wall %.1f ms, cpu %.1f ms\n", total_w / 1e6, total_c / 1e6);
        free(w);
        free(c);
    }
    return 0;
}

/* ---- Part 2: CMD beside one part of NVML's start ---- */
struct variant {
    const char *name;
    int pre[S_N], pre_n;      /* before CMD starts (not timed) */
    int conc[S_N], conc_n;    /* at CMD's start */
    int delay_ms;             /* conc begins this long after CMD's start */
    int sampler;              /* then samples as perfq's sampler does until CMD ends */
};

#define L(...) {__VA_ARGS__}, sizeof((int[]){__VA_ARGS__}) / sizeof(int)
#define NONE {0}, 0
#define PROBE S_COUNT, S_HANDLE, S_NAME, S_UUID, S_POWER_FIELD, S_SM_CLOCK, S_MEM_CLOCK, \
    S_UTIL, S_TEMP, S_MEMINFO, S_ENERGY
#define PROBE_REST S_REASONS, S_GPM_SUPPORT, S_GPM_SAMPLE, S_GPM_SAMPLE2, S_GPM_METRICS

static const struct variant variants[] = {
    {"idle helper process", NONE, NONE, 0, 0},
    {"nvmlInit_v2", NONE, L(S_INIT_V2), 0, 0},
    {"nvmlInitWithFlags(NO_ATTACH)", NONE, L(S_INIT_NO_ATTACH), 0, 0},
    {"init_v2+count+handle+name+uuid", NONE, L(S_INIT_V2, S_COUNT, S_HANDLE, S_NAME, S_UUID), 0, 0},
    {"NO_ATTACH+count+handle+name+uuid", NONE,
     L(S_INIT_NO_ATTACH, S_COUNT, S_HANDLE, S_NAME, S_UUID), 0, 0},
    {"(init+handle) fast calls", L(S_INIT_V2, S_HANDLE),
     L(S_POWER_FIELD, S_SM_CLOCK, S_MEM_CLOCK, S_UTIL, S_TEMP, S_MEMINFO, S_REASONS), 0, 0},
    {"(init+handle) total energy", L(S_INIT_V2, S_HANDLE), L(S_ENERGY), 0, 0},
    {"(init+handle) PCIe TX", L(S_INIT_V2, S_HANDLE), L(S_PCIE_TX), 0, 0},
    {"(init+handle) GPM probe", L(S_INIT_V2, S_HANDLE),
     L(S_GPM_SUPPORT, S_GPM_SAMPLE, S_GPM_SAMPLE2, S_GPM_METRICS), 0, 0},
    {"(all of the probe) held idle", L(S_INIT_V2, PROBE, S_PCIE_TX, PROBE_REST), NONE, 0, 0},
    {"(all of the probe) sampler", L(S_INIT_V2, PROBE, S_PCIE_TX, PROBE_REST), NONE, 0, 1},
    {"perfq's start now (probe+PCIe+sampler)", NONE,
     L(S_INIT_V2, PROBE, S_PCIE_TX, PROBE_REST), 0, 1},
    {"perfq's start without PCIe", NONE, L(S_INIT_V2, PROBE, PROBE_REST), 0, 1},
    {"NO_ATTACH start without PCIe", NONE, L(S_INIT_NO_ATTACH, PROBE, PROBE_REST), 0, 1},
    {"start without PCIe, 30 ms later", NONE, L(S_INIT_V2, PROBE, PROBE_REST), 30, 1},
    {"start without PCIe, 80 ms later", NONE, L(S_INIT_V2, PROBE, PROBE_REST), 80, 1},
    {"start without PCIe, 150 ms later", NONE, L(S_INIT_V2, PROBE, PROBE_REST), 150, 1},
};
#define NV (int)(sizeof(variants) / sizeof(variants[0]))

static volatile sig_atomic_t sampler_stop;
static void on_term(int sig)
{
    (void)sig;
    sampler_stop = 1;
}

/* The helper: pre steps, "ready", wait for "go", the delay, conc steps, then sampling. */
static void helper(const struct variant *v, int ready, int go)
{
    signal(SIGTERM, on_term);
    if ((v->pre_n || v->conc_n) && load())
        _exit(77);
    for (int i = 0; i < v->pre_n; i++)
        do_step((enum step)v->pre[i]);
    char b = 1;
    if (write(ready, &b, 1) != 1 || read(go, &b, 1) != 1)
        _exit(1);
    if (v->delay_ms)
        nanosleep(&(struct timespec){0, v->delay_ms * 1000000L}, NULL);
    for (int i = 0; i < v->conc_n; i++)
        do_step((enum step)v->conc[i]);
    if (v->sampler) {
        /* As nvml_sampler.c: the fast calls every 20 ms, memory every 50 ms, energy at once. */
        do_step(S_ENERGY);
        for (int k = 0; !sampler_stop; k++) {
            fast_calls();
            if (k % 3 == 0)
                do_step(S_MEMINFO);
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
    } else {
        while (!sampler_stop)
            pause();
    }
    _exit(0);
}

static double run_variant(const struct variant *v, char **cmd)
{
    int ready[2], go[2];
    if (pipe(ready) || pipe(go))
        return -1;
    pid_t h = fork();
    if (h == 0) {
        close(ready[0]);
        close(go[1]);
        helper(v, ready[1], go[0]);
    }
    close(ready[1]);
    close(go[0]);
    char b;
    if (read(ready[0], &b, 1) != 1) {
        int status;
        waitpid(h, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) == 77 ? -77 : -1;
    }
    uint64_t t0 = now_ns(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(cmd[0], cmd);
        _exit(127);
    }
    b = 1;
    if (write(go[1], &b, 1) != 1)
        return -1;
    int status;
    waitpid(pid, &status, 0);
    uint64_t t = now_ns(CLOCK_MONOTONIC) - t0;
    kill(h, SIGTERM);
    int hs;
    waitpid(h, &hs, 0);
    close(ready[0]);
    close(go[1]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-nvml-start: '%s' failed (status 0x%x)\n", cmd[0], status);
        return -1;
    }
    return (double)t / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int part2(int rounds, char **cmd)
{
    double *t = calloc((size_t)rounds * NV, sizeof(double));
    double *ratio = calloc((size_t)rounds * NV, sizeof(double));
    if (run_variant(&variants[0], cmd) < 0)   /* warm the caches */
        return -1;
    for (int r = 0; r < rounds; r++) {
        double row[NV];
        for (int k = 0; k < NV; k++) {
            int v = (r + k) % NV;   /* rotate the order */
            row[v] = run_variant(&variants[v], cmd);
            if (row[v] == -77)
                return 77;
            if (row[v] < 0)
                return -1;
        }
        for (int v = 0; v < NV; v++) {
            t[v * rounds + r] = row[v];
            ratio[v * rounds + r] = row[v] / row[0];
        }
    }
    printf("%s beside one part of NVML's start in another process (%d rounds, medians of "
           "CMD's wall time, fork to exit):\n", cmd[0], rounds);
    for (int v = 0; v < NV; v++) {
        qsort(t + v * rounds, (size_t)rounds, sizeof(double), cmp_d);
        qsort(ratio + v * rounds, (size_t)rounds, sizeof(double), cmp_d);
        printf("  %-40s %8.1f ms  / idle: %.3f (min %.3f, max %.3f)\n", variants[v].name,
               t[v * rounds + rounds / 2] * 1e3, ratio[v * rounds + rounds / 2],
               ratio[v * rounds], ratio[v * rounds + rounds - 1]);
    }
    free(t);
    free(ratio);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench-nvml-start ROUNDS [-- CMD [ARGS]]\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    if (rounds < 1 || rounds > 1000)
        return 2;
    if (load()) {
        printf("bench-nvml-start: no libnvidia-ml.so.1: nothing to measure\n");
        return 77;
    }
    int rc = part1(rounds);
    if (rc == 0 && argc > 3 && strcmp(argv[2], "--") == 0)
        rc = part2(rounds, argv + 3);
    fflush(stdout);
    return rc < 0 ? 1 : rc;
}
