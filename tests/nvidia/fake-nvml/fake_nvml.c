/*
 * A test-only libnvidia-ml.so.1 with one device whose readings are fixed and known, so that
 * test-nvml-fake can check the sampler's arithmetic (interpolation, energy, flags, counts) on
 * machines without a GPU. Never installed or shipped; perfq loads it only where a test puts
 * its folder first on LD_LIBRARY_PATH. Like the real driver, the total-energy counter moves in
 * 100 ms steps (here: 100 W times the time since nvmlInit_v2, floored to 100 ms).
 * FAKE_NVML_PCIE=refuse: the PCIe throughput call answers NVML_ERROR_NOT_SUPPORTED.
 * FAKE_NVML_INIT_MS=N: nvmlInit_v2 takes N ms.
 * FAKE_NVML_INIT_MARK=PATH: nvmlInit_v2 creates the file PATH when it begins (a test's command
 * waits for it, to end while NVML starts whatever the scheduling).
 * FAKE_NVML_LOAD_MARK=PATH: the library creates the file PATH when it is loaded (perfq stat
 * loads NVML only when the device counters start).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "providers/nvml_api.h"

/* The real library's prototypes, from the list perfq resolves. */
#define DECLARE(name, ret, args) ret name args;
PERFQ_NVML_FUNCTIONS(DECLARE, DECLARE)
#undef DECLARE

#define FAKE_MW 100000u

static struct timespec start;

static double since_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - start.tv_sec) + (double)(ts.tv_nsec - start.tv_nsec) / 1e9;
}

#define API __attribute__((visibility("default")))

__attribute__((constructor)) static void mark_load(void)
{
    const char *mark = getenv("FAKE_NVML_LOAD_MARK");
    int fd = mark && *mark ? open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0)
        close(fd);
}

/* nvmlInit_v2 calls so far: tests/gl/intel/test_intel_engine.c reads it (dlsym) to count the
 * engine instances with the built-ins that a process opened one after another. */
API unsigned fake_nvml_init_calls;

API nvmlReturn_t nvmlInit_v2(void)
{
    __atomic_add_fetch(&fake_nvml_init_calls, 1, __ATOMIC_RELEASE);
    const char *mark = getenv("FAKE_NVML_INIT_MARK");
    int fd = mark && *mark ? open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0)
        close(fd);
    const char *ms = getenv("FAKE_NVML_INIT_MS");   /* a slow start, as the driver's can be */
    if (ms && atoi(ms) > 0)
        nanosleep(&(struct timespec){atoi(ms) / 1000, (atoi(ms) % 1000) * 1000000L}, NULL);
    clock_gettime(CLOCK_MONOTONIC, &start);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }
API const char *nvmlErrorString(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_NOT_SUPPORTED ? "Not Supported" : "Unknown Error";
}
API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = 1;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (i != 0)
        return 2;   /* NVML_ERROR_INVALID_ARGUMENT */
    *d = (nvmlDevice_t)&start;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *s, unsigned int n)
{
    (void)d;
    strncpy(s, "perfq test fake", n);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *s, unsigned int n)
{
    (void)d;
    strncpy(s, "GPU-fake", n);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
    (void)d;
    *mw = FAKE_MW;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
    (void)d;
    for (int i = 0; i < n; i++) {
        v[i].nvmlReturn = v[i].fieldId == NVML_FI_DEV_POWER_INSTANT ? NVML_SUCCESS
                                                                     : NVML_ERROR_NOT_SUPPORTED;
        v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v[i].value.uiVal = FAKE_MW;
    }
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t t, unsigned int *mhz)
{
    (void)d;
    *mhz = t == NVML_CLOCK_MEM ? 2619 : 1000;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    (void)d;
    u->gpu = 50;
    u->memory = 25;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, nvmlTemperatureSensors_t s,
                                          unsigned int *c)
{
    (void)d;
    (void)s;
    *c = 40;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    (void)d;
    m->total = 4ull << 30;
    m->used = 1ull << 30;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    (void)d;
    double steps = (double)(long long)(since_start() * 10.0);   /* 100 ms steps */
    *mj = (unsigned long long)(steps * 0.1 * FAKE_MW);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, nvmlPcieUtilCounter_t c,
                                             unsigned int *kbs)
{
    (void)d;
    nanosleep(&(struct timespec){0, 20000000}, NULL);   /* the driver's 20 ms window */
    /* A device without the counters (perfq's probe does not try this call). */
    const char *refuse = getenv("FAKE_NVML_PCIE");
    if (refuse && strcmp(refuse, "refuse") == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *kbs = c == NVML_PCIE_UTIL_TX_BYTES ? 1000 : 3000;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d,
                                                        unsigned long long *r)
{
    (void)d;
    *r = nvmlClocksEventReasonGpuIdle;   /* idle is not a limiting reason */
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t d, nvmlGpmSupport_t *s)
{
    (void)d;
    s->isSupportedDevice = 0;
    return NVML_SUCCESS;
}
