/*
 * The NVML functions perfq resolves with dlsym, in nvml.h's names and types only, so that
 * tests/nvidia/nvml_abi_check.c can check each signature against the real nvml.h.
 */
#ifndef PERFQ_PROVIDERS_NVML_FUNCTIONS_H
#define PERFQ_PROVIDERS_NVML_FUNCTIONS_H

/* Every function perfq resolves, as (name, return, arguments). Optional ones (absent in older
 * drivers) are marked so; a missing required one makes the library unusable. */
#define PERFQ_NVML_FUNCTIONS(REQ, OPT)                                                        \
    REQ(nvmlInit_v2, nvmlReturn_t, (void))                                                    \
    REQ(nvmlShutdown, nvmlReturn_t, (void))                                                   \
    REQ(nvmlErrorString, const char *, (nvmlReturn_t))                                        \
    REQ(nvmlDeviceGetCount_v2, nvmlReturn_t, (unsigned int *))                                \
    REQ(nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t, (unsigned int, nvmlDevice_t *))          \
    REQ(nvmlDeviceGetName, nvmlReturn_t, (nvmlDevice_t, char *, unsigned int))                \
    REQ(nvmlDeviceGetUUID, nvmlReturn_t, (nvmlDevice_t, char *, unsigned int))                \
    REQ(nvmlDeviceGetPowerUsage, nvmlReturn_t, (nvmlDevice_t, unsigned int *))                \
    REQ(nvmlDeviceGetClockInfo, nvmlReturn_t, (nvmlDevice_t, nvmlClockType_t, unsigned int *)) \
    REQ(nvmlDeviceGetUtilizationRates, nvmlReturn_t, (nvmlDevice_t, nvmlUtilization_t *))     \
    REQ(nvmlDeviceGetTemperature, nvmlReturn_t,                                               \
        (nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *))                             \
    REQ(nvmlDeviceGetMemoryInfo, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_t *))                \
    OPT(nvmlDeviceGetFieldValues, nvmlReturn_t, (nvmlDevice_t, int, nvmlFieldValue_t *))      \
    OPT(nvmlDeviceGetTotalEnergyConsumption, nvmlReturn_t,                                    \
        (nvmlDevice_t, unsigned long long *))                                                 \
    OPT(nvmlDeviceGetPcieThroughput, nvmlReturn_t,                                            \
        (nvmlDevice_t, nvmlPcieUtilCounter_t, unsigned int *))                                \
    OPT(nvmlDeviceGetCurrentClocksEventReasons, nvmlReturn_t,                                 \
        (nvmlDevice_t, unsigned long long *))                                                 \
    OPT(nvmlDeviceGetCurrentClocksThrottleReasons, nvmlReturn_t,                              \
        (nvmlDevice_t, unsigned long long *))                                                 \
    OPT(nvmlGpmQueryDeviceSupport, nvmlReturn_t, (nvmlDevice_t, nvmlGpmSupport_t *))          \
    OPT(nvmlGpmSampleAlloc, nvmlReturn_t, (nvmlGpmSample_t *))                                \
    OPT(nvmlGpmSampleFree, nvmlReturn_t, (nvmlGpmSample_t))                                   \
    OPT(nvmlGpmSampleGet, nvmlReturn_t, (nvmlDevice_t, nvmlGpmSample_t))                      \
    OPT(nvmlGpmMetricsGet, nvmlReturn_t, (perfq_nvmlGpmMetricsGet_t *))

#endif
