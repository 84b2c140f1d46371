/*
 * The part of NVML's ABI that perfq calls, declared here so that the build needs no NVIDIA
 * header and no link-time dependency (PAPI's nvml component and nvtop do the same).
 * libnvidia-ml.so.1 is opened with dlopen at run time (nvml_lib.c).
 *
 * Names, values and layouts are nvml.h's (NVML API version 12). They are checked against the
 * real nvml.h on the GPU machine by tests/nvidia/nvml_abi_check.c, which compiles once against
 * this file and once against nvml.h and prints the same facts for both (docs/nvidia-providers.md).
 */
#ifndef PERFQ_PROVIDERS_NVML_API_H
#define PERFQ_PROVIDERS_NVML_API_H

typedef int nvmlReturn_t;                       /* nvml.h: enum nvmlReturn_enum */
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;                           /* % of the past sample period a kernel ran */
    unsigned int memory;                        /* % of it device memory was read or written */
} nvmlUtilization_t;

typedef struct nvmlMemory_st {
    unsigned long long total, free, used;       /* bytes */
} nvmlMemory_t;

typedef int nvmlClockType_t;                    /* enum nvmlClockType_enum */
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2

typedef int nvmlTemperatureSensors_t;           /* enum nvmlTemperatureSensors_enum */
#define NVML_TEMPERATURE_GPU 0

typedef int nvmlPcieUtilCounter_t;              /* enum nvmlPcieUtilCounter_enum */
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1

/* Clock event reasons (formerly "throttle reasons"), a bit mask. */
#define nvmlClocksEventReasonGpuIdle 0x1ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x2ULL
#define nvmlClocksEventReasonSwPowerCap 0x4ULL
#define nvmlClocksThrottleReasonHwSlowdown 0x8ULL
#define nvmlClocksEventReasonSyncBoost 0x10ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x20ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x40ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x80ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x100ULL

typedef int nvmlValueType_t;                    /* enum nvmlValueType_enum */
#define NVML_VALUE_TYPE_DOUBLE 0
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5

typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;                        /* CPU time of the value, us since 1970 */
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

#define NVML_FI_DEV_POWER_INSTANT 186           /* current power, mW, on all architectures */

/* GPU Performance Monitoring (Hopper and later). */
typedef int nvmlGpmMetricId_t;                  /* enum nvmlGpmMetricId_t */
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_INTEGER_UTIL 4
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DFMA_TENSOR_UTIL 6
#define NVML_GPM_METRIC_HMMA_TENSOR_UTIL 7
#define NVML_GPM_METRIC_IMMA_TENSOR_UTIL 9
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_FP64_UTIL 11
#define NVML_GPM_METRIC_FP32_UTIL 12
#define NVML_GPM_METRIC_FP16_UTIL 13
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61

typedef struct {
    unsigned int metricId;                      /* IN */
    nvmlReturn_t nvmlReturn;                    /* OUT: value valid when NVML_SUCCESS */
    double value;                               /* OUT */
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;                               /* OUT, may be NULL */
} nvmlGpmMetric_t;

/* nvml.h's NVML_GPM_METRIC_MAX grew across releases (98, 210, 333); NVML reads and writes only
 * numMetrics entries, so perfq's array is sized for what it asks for. */
#define PERFQ_GPM_METRICS_MAX 16
typedef struct {
    unsigned int version;                       /* NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[PERFQ_GPM_METRICS_MAX];
} perfq_nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1

typedef struct {
    unsigned int version;                       /* NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

#include "providers/nvml_functions.h"

#endif
