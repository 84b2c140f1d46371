/*
 * libnvidia-ml, opened once per process with dlopen (no link-time dependency, no NVIDIA
 * header: nvml_api.h declares what perfq calls). perfq__nvml_acquire also finds the devices
 * and tries each channel once per device, so that the catalog lists a counter available only
 * where its NVML call answers (and otherwise says which call refused, with NVML's message).
 * Probing costs one call of each kind per device but PCIe throughput's (about 20 ms each).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "providers/nvml_interval.h"
#include "providers/nvml_shared.h"

#define NVML_LIBRARY "libnvidia-ml.so.1"

const unsigned int perfq__gpm_metric_ids[PERFQ_GPM_METRICS_MAX] = {
    NVML_GPM_METRIC_SM_UTIL,          NVML_GPM_METRIC_SM_OCCUPANCY,
    NVML_GPM_METRIC_GRAPHICS_UTIL,    NVML_GPM_METRIC_DRAM_BW_UTIL,
    NVML_GPM_METRIC_ANY_TENSOR_UTIL,  NVML_GPM_METRIC_DFMA_TENSOR_UTIL,
    NVML_GPM_METRIC_HMMA_TENSOR_UTIL, NVML_GPM_METRIC_IMMA_TENSOR_UTIL,
    NVML_GPM_METRIC_FP64_UTIL,        NVML_GPM_METRIC_FP32_UTIL,
    NVML_GPM_METRIC_FP16_UTIL,        NVML_GPM_METRIC_INTEGER_UTIL,
    NVML_GPM_METRIC_PCIE_TX_PER_SEC,  NVML_GPM_METRIC_PCIE_RX_PER_SEC,
    NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
};

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static void *lib_handle;          /* kept for the process's life once opened */
static unsigned lib_users;
static struct nvml_global lib;

/* Reasons are static strings per (device, channel): built once, kept with the library. */
static char reason_text[NVML_MAX_DEVICES][CH_COUNT][96];

uint64_t perfq__nvml_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int load_symbols(char *reason, size_t size)
{
#define PERFQ_NVML_REQ(name, ret, args)                                                   \
    if (!(lib.fn.name = (ret(*) args)dlsym(lib_handle, #name))) {                        \
        snprintf(reason, size, NVML_LIBRARY " lacks %s (driver too old)", #name);        \
        return -1;                                                                        \
    }
#define PERFQ_NVML_OPT(name, ret, args) lib.fn.name = (ret(*) args)dlsym(lib_handle, #name);
    PERFQ_NVML_FUNCTIONS(PERFQ_NVML_REQ, PERFQ_NVML_OPT)
#undef PERFQ_NVML_REQ
#undef PERFQ_NVML_OPT
    return 0;
}

static void set_reason(unsigned d, int ch, const char *call, nvmlReturn_t rc)
{
    if (rc == NVML_SUCCESS)
        return;
    snprintf(reason_text[d][ch], sizeof(reason_text[d][ch]), "%s: %s", call,
             rc < 0 ? "not in this driver's NVML" : lib.fn.nvmlErrorString(rc));
    lib.dev[d].reason[ch] = reason_text[d][ch];
}

static void probe_gpm(unsigned d)
{
    struct nvml_device_info *dev = &lib.dev[d];
    const struct nvml_fns *f = &lib.fn;
    nvmlReturn_t rc = -1;
    nvmlGpmSupport_t support = {.version = NVML_GPM_SUPPORT_VERSION};
    if (f->nvmlGpmQueryDeviceSupport && f->nvmlGpmSampleAlloc && f->nvmlGpmSampleFree &&
        f->nvmlGpmSampleGet && f->nvmlGpmMetricsGet)
        rc = f->nvmlGpmQueryDeviceSupport(dev->handle, &support);
    if (rc == NVML_SUCCESS && !support.isSupportedDevice)
        rc = NVML_ERROR_NOT_SUPPORTED;
    /* One pair of samples tells which metrics this device computes. */
    nvmlGpmSample_t s[2] = {NULL, NULL};
    static perfq_nvmlGpmMetricsGet_t get;
    if (rc == NVML_SUCCESS && (rc = f->nvmlGpmSampleAlloc(&s[0])) == NVML_SUCCESS &&
        (rc = f->nvmlGpmSampleAlloc(&s[1])) == NVML_SUCCESS &&
        (rc = f->nvmlGpmSampleGet(dev->handle, s[0])) == NVML_SUCCESS) {
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        rc = f->nvmlGpmSampleGet(dev->handle, s[1]);
    }
    if (rc == NVML_SUCCESS) {
        memset(&get, 0, sizeof(get));
        get.version = NVML_GPM_METRICS_GET_VERSION;
        get.numMetrics = PERFQ_GPM_METRICS_MAX;
        get.sample1 = s[0];
        get.sample2 = s[1];
        for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
            get.metrics[i].metricId = perfq__gpm_metric_ids[i];
        rc = f->nvmlGpmMetricsGet(&get);
    }
    for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
        set_reason(d, CH_GPM_FIRST + i, rc != NVML_SUCCESS ? "nvmlGpmQueryDeviceSupport/Sample"
                                                           : "nvmlGpmMetricsGet",
                   rc != NVML_SUCCESS ? rc : get.metrics[i].nvmlReturn);
    dev->gpm_supported = rc == NVML_SUCCESS;
    if (s[0])
        f->nvmlGpmSampleFree(s[0]);
    if (s[1])
        f->nvmlGpmSampleFree(s[1]);
}

static void probe_device(unsigned d)
{
    struct nvml_device_info *dev = &lib.dev[d];
    const struct nvml_fns *f = &lib.fn;
    nvmlDevice_t h = dev->handle;
    unsigned v;
    unsigned long long u64;
    nvmlUtilization_t util;
    nvmlMemory_t mem;

    nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
    nvmlReturn_t rc = f->nvmlDeviceGetFieldValues ? f->nvmlDeviceGetFieldValues(h, 1, &fv) : -1;
    dev->power_instant = rc == NVML_SUCCESS && fv.nvmlReturn == NVML_SUCCESS;
    if (!dev->power_instant)
        set_reason(d, CH_POWER, "nvmlDeviceGetPowerUsage", f->nvmlDeviceGetPowerUsage(h, &v));
    set_reason(d, CH_SM_CLOCK, "nvmlDeviceGetClockInfo(SM)",
               f->nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, &v));
    set_reason(d, CH_MEM_CLOCK, "nvmlDeviceGetClockInfo(MEM)",
               f->nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, &v));
    rc = f->nvmlDeviceGetUtilizationRates(h, &util);
    set_reason(d, CH_GPU_UTIL, "nvmlDeviceGetUtilizationRates", rc);
    set_reason(d, CH_MEM_UTIL, "nvmlDeviceGetUtilizationRates", rc);
    set_reason(d, CH_TEMP, "nvmlDeviceGetTemperature",
               f->nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &v));
    set_reason(d, CH_MEM_USED, "nvmlDeviceGetMemoryInfo", f->nvmlDeviceGetMemoryInfo(h, &mem));
    rc = f->nvmlDeviceGetTotalEnergyConsumption
             ? f->nvmlDeviceGetTotalEnergyConsumption(h, &u64) : -1;
    set_reason(d, CH_ENERGY, "nvmlDeviceGetTotalEnergyConsumption", rc);
    if (!dev->reason[CH_ENERGY] && dev->reason[CH_POWER])
        dev->reason[CH_ENERGY] = "energy between counter updates needs the power reading";
    /* PCIe throughput is not tried here: one call blocks about 20 ms (the driver's window), a
     * third of NVML's start on an H100 (bench-nvml-start). Where the driver has the call the
     * counters are listed; where the device refuses it they read "not counted" (the sampler's
     * first read, nvml_sampler.c). */
    if (!f->nvmlDeviceGetPcieThroughput) {
        set_reason(d, CH_PCIE_TX, "nvmlDeviceGetPcieThroughput", -1);
        set_reason(d, CH_PCIE_RX, "nvmlDeviceGetPcieThroughput", -1);
    }
    if (f->nvmlDeviceGetCurrentClocksEventReasons)
        rc = f->nvmlDeviceGetCurrentClocksEventReasons(h, &u64);
    else if (f->nvmlDeviceGetCurrentClocksThrottleReasons)
        rc = f->nvmlDeviceGetCurrentClocksThrottleReasons(h, &u64);
    else
        rc = -1;
    set_reason(d, CH_THROTTLED, "nvmlDeviceGetCurrentClocksEventReasons", rc);
    if (dev->reason[CH_SM_CLOCK] || dev->reason[CH_MEM_CLOCK])
        dev->reason[CH_CLOCK_CHANGES] = dev->reason[dev->reason[CH_SM_CLOCK] ? CH_SM_CLOCK
                                                                             : CH_MEM_CLOCK];
    probe_gpm(d);
}

static int open_library(char *reason, size_t size)
{
    if (!lib_handle) {
        lib_handle = dlopen(NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (!lib_handle) {
            const char *e = dlerror();
            snprintf(reason, size, NVML_LIBRARY " not found (no NVIDIA driver): %s",
                     e ? e : "dlopen failed");
            return -1;
        }
    }
    if (load_symbols(reason, size))
        return -1;
    /* Not nvmlInitWithFlags(NVML_INIT_FLAG_NO_ATTACH): with it, driver 580 refuses
     * nvmlDeviceGetHandleByIndex_v2 (Invalid Argument, bench-nvml-start), so nothing reads. */
    nvmlReturn_t rc = lib.fn.nvmlInit_v2();
    if (rc != NVML_SUCCESS) {
        snprintf(reason, size, "nvmlInit_v2 failed: %s", lib.fn.nvmlErrorString(rc));
        return -1;
    }
    unsigned count = 0;
    rc = lib.fn.nvmlDeviceGetCount_v2(&count);
    if (rc != NVML_SUCCESS || count == 0) {
        snprintf(reason, size, "NVML found no NVIDIA device%s%s", rc ? ": " : "",
                 rc ? lib.fn.nvmlErrorString(rc) : "");
        lib.fn.nvmlShutdown();
        return -1;
    }
    if (count > NVML_MAX_DEVICES)
        count = NVML_MAX_DEVICES;   /* perfq lists the first NVML_MAX_DEVICES (docs) */
    lib.device_count = 0;
    for (unsigned d = 0; d < count; d++) {
        struct nvml_device_info *dev = &lib.dev[lib.device_count];
        memset(dev, 0, sizeof(*dev));
        if (lib.fn.nvmlDeviceGetHandleByIndex_v2(d, &dev->handle) != NVML_SUCCESS)
            break;   /* indices are dense: a device that cannot be opened ends the list */
        if (lib.fn.nvmlDeviceGetName(dev->handle, dev->name, sizeof(dev->name)) != NVML_SUCCESS)
            snprintf(dev->name, sizeof(dev->name), "NVIDIA GPU");
        if (lib.fn.nvmlDeviceGetUUID(dev->handle, dev->uuid, sizeof(dev->uuid)) != NVML_SUCCESS)
            dev->uuid[0] = 0;
        probe_device(lib.device_count);
        lib.device_count++;
    }
    if (lib.device_count == 0) {
        snprintf(reason, size, "NVML could not open device 0");
        lib.fn.nvmlShutdown();
        return -1;
    }
    return 0;
}

int perfq__nvml_acquire(const struct nvml_global **g, char *reason, size_t size)
{
    pthread_mutex_lock(&lib_lock);
    int rc = 0;
    if (lib_users == 0)
        rc = open_library(reason, size);
    if (rc == 0) {
        lib_users++;
        *g = &lib;
    }
    pthread_mutex_unlock(&lib_lock);
    return rc;
}

void perfq__nvml_release(void)
{
    pthread_mutex_lock(&lib_lock);
    if (lib_users && --lib_users == 0)
        lib.fn.nvmlShutdown();   /* the handle stays: a later perfq_open reuses it */
    pthread_mutex_unlock(&lib_lock);
}

unsigned perfq__nvml_device_count(void)
{
    const struct nvml_global *g;
    char reason[8];
    if (perfq__nvml_acquire(&g, reason, sizeof(reason)))
        return 0;
    unsigned n = g->device_count;
    perfq__nvml_release();
    return n;
}

/* NVML's "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as 16 bytes (0), or -1. */
static int parse_uuid(const char *s, unsigned char out[16])
{
    const char *p = strchr(s, '-');
    if (!p)
        return -1;
    int n = 0;
    for (p++; *p && n < 32; p++) {
        int v = *p >= '0' && *p <= '9' ? *p - '0'
              : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (*p == '-')
            continue;
        if (v < 0)
            return -1;
        out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | v : v << 4);
        n++;
    }
    return n == 32 && !*p ? 0 : -1;
}

int perfq__nvml_device_from_uuid(const unsigned char uuid[16])
{
    const struct nvml_global *g;
    char reason[8];
    if (perfq__nvml_acquire(&g, reason, sizeof(reason)))
        return -1;
    int found = -1;
    for (unsigned d = 0; d < g->device_count && found < 0; d++) {
        unsigned char u[16];
        if (parse_uuid(g->dev[d].uuid, u) == 0 && memcmp(u, uuid, 16) == 0)
            found = (int)d;
    }
    perfq__nvml_release();
    return found;
}
