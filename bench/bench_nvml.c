/*
 * The NVIDIA providers' costs, on a machine with an NVIDIA driver (elsewhere it says why not
 * and exits 77):
 * 1. Each NVML call the sampler makes, wall and calling-thread CPU time per call (this
 *    program's own dlopen of libnvidia-ml.so.1): why the cadences are what they are.
 * 2. perfq_measurement_sample of NVML (and GPM) counters, ns per call, beside
 *    perfq_measurement_sample of clock/wall-time (one clock_gettime) in the same run.
 *    Target: under 100 ns; served from the sampler's memory, no NVML call.
 * 3. The sampler thread's CPU time ("perfq-nvml", from /proc/self/task/TID/schedstat) over
 *    10 s at the default cadences, as a share of one core; then with GPM, then with PCIe.
 *    Target: under 1% of one core at the default cadence.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfq/perfq.h"
#include "providers/nvml_api.h"

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- 1. NVML call costs ---- */
#define FN(name, ret, args) static ret(*p_##name) args;
PERFQ_NVML_FUNCTIONS(FN, FN)
#undef FN

static nvmlDevice_t dev;
static unsigned u;
static unsigned long long ull;

static int call(int which)
{
    nvmlUtilization_t util;
    nvmlMemory_t mem;
    nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
    static nvmlGpmSample_t gs;
    if ((which == 0 && !p_nvmlDeviceGetFieldValues) ||
        (which == 6 && !p_nvmlDeviceGetCurrentClocksEventReasons &&
         !p_nvmlDeviceGetCurrentClocksThrottleReasons) ||
        (which == 7 && !p_nvmlDeviceGetTotalEnergyConsumption) ||
        (which == 8 && (!p_nvmlGpmSampleAlloc || !p_nvmlGpmSampleGet)) ||
        (which == 9 && !p_nvmlDeviceGetPcieThroughput))
        return -1;
    switch (which) {
    case 0: return p_nvmlDeviceGetFieldValues(dev, 1, &fv) || fv.nvmlReturn;
    case 1: return p_nvmlDeviceGetPowerUsage(dev, &u);
    case 2: return p_nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &u);
    case 3: return p_nvmlDeviceGetUtilizationRates(dev, &util);
    case 4: return p_nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &u);
    case 5: return p_nvmlDeviceGetMemoryInfo(dev, &mem);
    case 6: return p_nvmlDeviceGetCurrentClocksEventReasons
                       ? p_nvmlDeviceGetCurrentClocksEventReasons(dev, &ull)
                       : p_nvmlDeviceGetCurrentClocksThrottleReasons(dev, &ull);
    case 7: return p_nvmlDeviceGetTotalEnergyConsumption(dev, &ull);
    case 8:
        if (!gs && p_nvmlGpmSampleAlloc(&gs))
            return -1;
        return p_nvmlGpmSampleGet(dev, gs);
    case 9: return p_nvmlDeviceGetPcieThroughput(dev, NVML_PCIE_UTIL_TX_BYTES, &u);
    }
    return -1;
}

static void nvml_call_costs(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
#define FN(name, ret, args) p_##name = (ret(*) args)dlsym(h, #name);
    PERFQ_NVML_FUNCTIONS(FN, FN)
#undef FN
    if (p_nvmlInit_v2() || p_nvmlDeviceGetHandleByIndex_v2(0, &dev)) {
        printf("nvmlInit_v2 or device 0 failed\n");
        return;
    }
    static const char *names[] = {"field POWER_INSTANT", "GetPowerUsage", "GetClockInfo(SM)",
                                  "GetUtilizationRates", "GetTemperature", "GetMemoryInfo",
                                  "GetCurrentClocksEventReasons", "GetTotalEnergyConsumption",
                                  "GpmSampleGet", "GetPcieThroughput(TX)"};
    static const int reps[] = {2000, 2000, 2000, 2000, 2000, 500, 2000, 20, 50, 5};
    printf("NVML call costs (device 0), per call:\n");
    for (int w = 0; w < 10; w++) {
        int rc = call(w);
        uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < reps[w]; i++)
            call(w);
        uint64_t t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        printf("  %-30s wall %10.2f us  cpu %10.2f us  (%d calls%s)\n", names[w],
               (double)(t1 - t0) / reps[w] / 1e3, (double)(c1 - c0) / reps[w] / 1e3, reps[w],
               rc ? ", returns an error" : "");
    }
    /* GPM: what one pair of samples 100 ms apart gives, and what nvmlGpmMetricsGet costs. */
    nvmlGpmSample_t g1 = NULL, g2 = NULL;
    if (p_nvmlGpmSampleAlloc && !p_nvmlGpmSampleAlloc(&g1) && !p_nvmlGpmSampleAlloc(&g2) &&
        !p_nvmlGpmSampleGet(dev, g1)) {
        nanosleep(&(struct timespec){0, 100000000}, NULL);
        p_nvmlGpmSampleGet(dev, g2);
        static const unsigned ids[] = {2, 3, 1, 10, 5, 6, 7, 9, 11, 12, 13, 4, 20, 21, 61, 60};
        static perfq_nvmlGpmMetricsGet_t get;
        for (unsigned k = 1; k <= 16; k += 15) {
            uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
            for (int r = 0; r < 20; r++) {
                memset(&get, 0, sizeof(get));
                get.version = NVML_GPM_METRICS_GET_VERSION;
                get.numMetrics = k;
                get.sample1 = g1;
                get.sample2 = g2;
                for (unsigned i = 0; i < k; i++)
                    get.metrics[i].metricId = ids[i];
                p_nvmlGpmMetricsGet(&get);
            }
            printf("  GpmMetricsGet of %2u metrics     cpu %10.2f us\n", k,
                   (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 20 / 1e3);
        }
        printf("  GPM metrics over 100 ms idle:");
        for (unsigned i = 0; i < 16; i++)
            printf(" %u=%g%s", ids[i], get.metrics[i].value,
                   get.metrics[i].nvmlReturn ? "(err)" : "");
        printf("\n");
    }
    if (g1)
        p_nvmlGpmSampleFree(g1);
    if (g2)
        p_nvmlGpmSampleFree(g2);
    /* How old the instant power value is when it is read: NVML stamps field values with the
     * CPU wall-clock time (us since 1970) at which the driver produced them. */
    if (p_nvmlDeviceGetFieldValues) {
        double ages[200];
        int n = 0;
        for (int i = 0; i < 200; i++) {
            nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
            if (p_nvmlDeviceGetFieldValues(dev, 1, &fv) == 0 && fv.nvmlReturn == 0)
                ages[n++] = (double)now_ns(CLOCK_REALTIME) / 1e3 - (double)fv.timestamp;
            nanosleep(&(struct timespec){0, 5000000}, NULL);
        }
        if (n) {
            double lo = ages[0], hi = ages[0], sum = 0;
            for (int i = 0; i < n; i++) {
                lo = ages[i] < lo ? ages[i] : lo;
                hi = ages[i] > hi ? ages[i] : hi;
                sum += ages[i];
            }
            printf("  instant power value age at read (CLOCK_REALTIME - field timestamp), %d "
                   "reads 5 ms apart: mean %.0f us, min %.0f us, max %.0f us\n", n, sum / n,
                   lo, hi);
        }
    }
    p_nvmlShutdown();
}

/* ---- 2. sample cost ---- */
static double sample_ns(perfq_measurement_t *m, size_t n, int calls)
{
    perfq_value_t v[8];
    uint64_t t0 = now_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < calls; i++)
        perfq_measurement_sample(m, v, n);
    return (double)(now_ns(CLOCK_MONOTONIC) - t0) / calls;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- 3. sampler CPU ---- */
static uint64_t sampler_cpu_ns(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    uint64_t ns = 0;
    char path[300], buf[64];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int match = fgets(buf, sizeof(buf), f) && strncmp(buf, "perfq-nvml", 10) == 0;
        fclose(f);
        if (!match)
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
        f = fopen(path, "r");
        unsigned long long run = 0;
        if (f && fscanf(f, "%llu", &run) == 1)
            ns = run;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return ns;
}

static void sampler_cpu(perfq_t *pq, const char *const *names, size_t n, const char *label)
{
    perfq_counter_id_t ids[8];
    perfq_measurement_t *m;
    for (size_t i = 0; i < n; i++)
        if (perfq_counter_find(pq, names[i], &ids[i]) != PERFQ_OK) {
            printf("  %s: %s not found\n", label, names[i]);
            return;
        }
    if (perfq_measurement_create(pq, ids, n, NULL, &m) != PERFQ_OK) {
        printf("  %s: measurement refused\n", label);
        return;
    }
    perfq_measurement_begin(m);
    sleep(1);
    uint64_t c0 = sampler_cpu_ns(), t0 = now_ns(CLOCK_MONOTONIC);
    sleep(10);
    uint64_t c1 = sampler_cpu_ns(), t1 = now_ns(CLOCK_MONOTONIC);
    perfq_value_t v[8];
    perfq_measurement_end(m);
    perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, n);
    printf("  %-44s %.3f%% of one core (%.1f ms CPU in %.1f s)\n", label,
           100.0 * (double)(c1 - c0) / (double)(t1 - t0), (double)(c1 - c0) / 1e6,
           (double)(t1 - t0) / 1e9);
    perfq_measurement_destroy(&m);
}

int main(void)
{
    perfq_t *pq;
    if (perfq_open(&pq) != PERFQ_OK)
        return 1;
    perfq_counter_id_t ids[3], wall;
    perfq_counter_info_t ci;
    if (perfq_counter_find(pq, "nvml-gpu0/average-power", &ids[0]) != PERFQ_OK ||
        perfq_counter_info(pq, ids[0], &ci) != PERFQ_OK || !ci.available) {
        perfq_counter_find(pq, "nvml/average-power", &ids[0]);
        perfq_counter_info(pq, ids[0], &ci);
        printf("bench-nvml: no NVIDIA device here (%s)\n", ci.unavailable_reason);
        perfq_close(&pq);
        return 77;
    }
    nvml_call_costs();

    perfq_counter_find(pq, "nvml-gpu0/energy", &ids[1]);
    size_t n = 2;
    if (perfq_counter_find(pq, "gpm-gpu0/sm-activity", &ids[2]) == PERFQ_OK &&
        perfq_counter_info(pq, ids[2], &ci) == PERFQ_OK && ci.available)
        n = 3;
    perfq_counter_find(pq, "clock/wall-time", &wall);
    perfq_measurement_t *m, *m1, *mw;
    perfq_measurement_create(pq, ids, n, NULL, &m);
    perfq_measurement_create(pq, ids, 1, NULL, &m1);
    perfq_measurement_create(pq, &wall, 1, NULL, &mw);
    perfq_measurement_begin(m);
    perfq_measurement_begin(m1);
    perfq_measurement_begin(mw);
    enum { BLOCKS = 31, CALLS = 20000 };
    double a[BLOCKS], a1[BLOCKS], b[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
        a[i] = sample_ns(m, n, CALLS);
        a1[i] = sample_ns(m1, 1, CALLS);
        b[i] = sample_ns(mw, 1, CALLS);
    }
    qsort(a, BLOCKS, sizeof(double), cmp);
    qsort(a1, BLOCKS, sizeof(double), cmp);
    qsort(b, BLOCKS, sizeof(double), cmp);
    printf("perfq_measurement_sample, median of %d blocks of %d calls:\n", BLOCKS, CALLS);
    printf("  nvml-gpu0/average-power alone:        %.1f ns/call\n", a1[BLOCKS / 2]);
    printf("  nvml-gpu0 average-power + energy%s: %.1f ns/call\n",
           n == 3 ? " + gpm-gpu0 sm-activity (two providers)" : "", a[BLOCKS / 2]);
    printf("  clock/wall-time (one clock_gettime):  %.1f ns/call (ratio power/wall-time %.2f)\n",
           b[BLOCKS / 2], a1[BLOCKS / 2] / b[BLOCKS / 2]);
    perfq_measurement_end(m);
    perfq_measurement_destroy(&m);
    perfq_measurement_destroy(&m1);
    perfq_measurement_destroy(&mw);

    printf("sampler thread CPU time over 10 s, idle GPU:\n");
    const char *fast[] = {"nvml-gpu0/energy", "nvml-gpu0/average-power",
                          "nvml-gpu0/gpu-utilization"};
    sampler_cpu(pq, fast, 3, "default cadences (20 ms gauges, 2 s energy)");
    const char *gpm[] = {"nvml-gpu0/energy", "gpm-gpu0/sm-activity"};
    if (n == 3)
        sampler_cpu(pq, gpm, 2, "with GPM (100 ms)");
    const char *pcie[] = {"nvml-gpu0/energy", "nvml-gpu0/pcie-tx"};
    sampler_cpu(pq, pcie, 2, "with PCIe throughput (1 s)");
    perfq_close(&pq);
    return 0;
}
