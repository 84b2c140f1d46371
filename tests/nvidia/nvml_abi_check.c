/*
 * Checks perfq's own NVML declarations (src/providers/nvml_api.h) against NVIDIA's nvml.h.
 * Not part of the build (the build must need no NVIDIA header): run on a machine with nvml.h,
 *   cc -I src -o a tests/nvidia/nvml_abi_check.c && ./a > ours
 *   cc -DREAL_NVML_H -I src -I $CUDA/targets/x86_64-linux/include -Wall -Werror \
 *      -o b tests/nvidia/nvml_abi_check.c /path/to/libnvidia-ml.so.1 && ./b > theirs &&
 *   diff ours theirs
 * With REAL_NVML_H, each function perfq resolves is also assigned to a pointer of perfq's type
 * for it: a signature that differs from nvml.h's fails to compile (-Werror).
 */
#include <stddef.h>
#include <stdio.h>

#ifdef REAL_NVML_H
#include <nvml.h>
#define perfq_nvmlGpmMetricsGet_t nvmlGpmMetricsGet_t
#include "providers/nvml_functions.h"
#define CHECK_FN(name, ret, args) ret(*check_##name) args = name; (void)check_##name;
#define WHICH "nvml.h"
#else
#include "providers/nvml_api.h"
#define CHECK_FN(name, ret, args)
#define WHICH "perfq"
#endif

#define C(x) printf("%-48s %lld\n", #x, (long long)(x))
#define S(t) printf("sizeof %-41s %zu\n", #t, sizeof(t))
#define O(t, f) printf("offsetof %s.%-30s %zu\n", #t, #f, offsetof(t, f))

int main(void)
{
    PERFQ_NVML_FUNCTIONS(CHECK_FN, CHECK_FN)
    fprintf(stderr, "declarations: %s\n", WHICH);
    C(NVML_SUCCESS); C(NVML_ERROR_UNINITIALIZED); C(NVML_ERROR_NOT_SUPPORTED);
    C(NVML_ERROR_NO_PERMISSION);
    C(NVML_CLOCK_GRAPHICS); C(NVML_CLOCK_SM); C(NVML_CLOCK_MEM);
    C(NVML_TEMPERATURE_GPU); C(NVML_PCIE_UTIL_TX_BYTES); C(NVML_PCIE_UTIL_RX_BYTES);
    C(nvmlClocksEventReasonGpuIdle); C(nvmlClocksEventReasonApplicationsClocksSetting);
    C(nvmlClocksEventReasonSwPowerCap); C(nvmlClocksThrottleReasonHwSlowdown);
    C(nvmlClocksEventReasonSyncBoost); C(nvmlClocksEventReasonSwThermalSlowdown);
    C(nvmlClocksThrottleReasonHwThermalSlowdown);
    C(nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
    C(nvmlClocksEventReasonDisplayClockSetting);
    C(NVML_VALUE_TYPE_DOUBLE); C(NVML_VALUE_TYPE_UNSIGNED_INT);
    C(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    C(NVML_FI_DEV_POWER_INSTANT);
    C(NVML_GPM_METRIC_GRAPHICS_UTIL); C(NVML_GPM_METRIC_SM_UTIL);
    C(NVML_GPM_METRIC_SM_OCCUPANCY); C(NVML_GPM_METRIC_INTEGER_UTIL);
    C(NVML_GPM_METRIC_ANY_TENSOR_UTIL); C(NVML_GPM_METRIC_DFMA_TENSOR_UTIL);
    C(NVML_GPM_METRIC_HMMA_TENSOR_UTIL); C(NVML_GPM_METRIC_IMMA_TENSOR_UTIL);
    C(NVML_GPM_METRIC_DRAM_BW_UTIL); C(NVML_GPM_METRIC_FP64_UTIL);
    C(NVML_GPM_METRIC_FP32_UTIL); C(NVML_GPM_METRIC_FP16_UTIL);
    C(NVML_GPM_METRIC_PCIE_TX_PER_SEC); C(NVML_GPM_METRIC_PCIE_RX_PER_SEC);
    C(NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC); C(NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
    C(NVML_GPM_METRICS_GET_VERSION); C(NVML_GPM_SUPPORT_VERSION);
    C(NVML_DEVICE_NAME_V2_BUFFER_SIZE); C(NVML_DEVICE_UUID_V2_BUFFER_SIZE);
    S(nvmlDevice_t); S(nvmlGpmSample_t); S(nvmlReturn_t); S(nvmlClockType_t);
    S(nvmlUtilization_t); O(nvmlUtilization_t, gpu); O(nvmlUtilization_t, memory);
    S(nvmlMemory_t); O(nvmlMemory_t, total); O(nvmlMemory_t, free); O(nvmlMemory_t, used);
    S(nvmlValue_t); S(nvmlFieldValue_t); O(nvmlFieldValue_t, fieldId);
    O(nvmlFieldValue_t, scopeId); O(nvmlFieldValue_t, timestamp);
    O(nvmlFieldValue_t, latencyUsec); O(nvmlFieldValue_t, valueType);
    O(nvmlFieldValue_t, nvmlReturn); O(nvmlFieldValue_t, value);
    S(nvmlGpmMetric_t); O(nvmlGpmMetric_t, metricId); O(nvmlGpmMetric_t, nvmlReturn);
    O(nvmlGpmMetric_t, value); O(nvmlGpmMetric_t, metricInfo);
    O(perfq_nvmlGpmMetricsGet_t, version); O(perfq_nvmlGpmMetricsGet_t, numMetrics);
    O(perfq_nvmlGpmMetricsGet_t, sample1); O(perfq_nvmlGpmMetricsGet_t, sample2);
    O(perfq_nvmlGpmMetricsGet_t, metrics);
    S(nvmlGpmSupport_t); O(nvmlGpmSupport_t, isSupportedDevice);
#ifdef REAL_NVML_H
    fprintf(stderr, "nvml.h NVML_GPM_METRIC_MAX %d (perfq asks for %d metrics at most)\n",
            NVML_GPM_METRIC_MAX, 16);
#endif
    return 0;
}
