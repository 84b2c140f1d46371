/*
 * The part of the CUDA driver API and of CUPTI 13 (cupti_pmsampling.h, cupti_profiler_host.h,
 * cupti_profiler_target.h, cupti_range_profiler.h, cupti_target.h, cupti_result.h,
 * cupti_activity.h) that perfq calls,
 * declared here in the headers' own names so that the build needs no NVIDIA header:
 * libcuda.so.1 and libcupti are opened with dlopen at run time (cupti_lib.c).
 * tests/nvidia/cupti_abi_check.cpp compares every constant, struct size and field offset, and
 * assigns every function of PERFQ_CUPTI_FUNCTIONS to a pointer of perfq's type for it, against
 * the real headers wherever they exist (a C++ file: cupti_profiler_host.h includes <string>).
 */
#ifndef PERFQ_PROVIDERS_CUPTI_API_H
#define PERFQ_PROVIDERS_CUPTI_API_H

#include <stddef.h>
#include <stdint.h>

#ifndef PERFQ_CUPTI_REAL_HEADERS
typedef int CUresult;                     /* cuda.h: enum cudaError_enum */
typedef int CUdevice;                     /* cuda.h: CUdevice_v1 = int */
typedef struct CUctx_st *CUcontext;       /* cuda.h */
#define CUDA_SUCCESS 0

typedef int CUptiResult;                  /* cupti_result.h: enum CUptiResult */
#define CUPTI_SUCCESS 0
#define CUPTI_ERROR_NOT_INITIALIZED 15
#define CUPTI_ERROR_HARDWARE_BUSY 26
#define CUPTI_ERROR_NOT_SUPPORTED 27
#define CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35
#define CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES 40

#define CUPTI_PROFILER_STRUCT_SIZE(type_, lastfield_) \
    (offsetof(type_, lastfield_) + sizeof(((type_ *)0)->lastfield_))

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;
typedef struct CUpti_PmSampling_Object CUpti_PmSampling_Object;

typedef enum CUpti_ProfilerType {
    CUPTI_PROFILER_TYPE_RANGE_PROFILER,
    CUPTI_PROFILER_TYPE_PM_SAMPLING,
    CUPTI_PROFILER_TYPE_PROFILER_INVALID
} CUpti_ProfilerType;

typedef enum CUpti_PmSampling_TriggerMode {
    CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL = 0,
    CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL = 1,
    CUPTI_PM_SAMPLING_TRIGGER_MODE_COUNT
} CUpti_PmSampling_TriggerMode;

typedef enum CUpti_PmSampling_DecodeStopReason {
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER = 0,
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL,
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS,
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNT
} CUpti_PmSampling_DecodeStopReason;

typedef enum CUpti_PmSampling_HardwareBuffer_AppendMode {
    CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST = 0,
    CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST = 1
} CUpti_PmSampling_HardwareBuffer_AppendMode;

typedef struct CUpti_Profiler_Initialize_Params {
    size_t structSize;
    void *pPriv;
} CUpti_Profiler_Initialize_Params;

typedef struct CUpti_Device_GetChipName_Params {
    size_t structSize;
    void *pPriv;
    size_t deviceIndex;
    const char *pChipName;
} CUpti_Device_GetChipName_Params;

typedef struct CUpti_Profiler_Host_Initialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_ProfilerType profilerType;
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Initialize_Params;

typedef struct CUpti_Profiler_Host_Deinitialize_Params {
    size_t structSize;
    void *pPriv;
    struct CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;

typedef struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    size_t structSize;
    void *pPriv;
    struct CUpti_Profiler_Host_Object *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;

typedef struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
} CUpti_Profiler_Host_GetConfigImageSize_Params;

typedef struct CUpti_Profiler_Host_GetConfigImage_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage;
} CUpti_Profiler_Host_GetConfigImage_Params;

typedef struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses;
} CUpti_Profiler_Host_GetNumOfPasses_Params;

typedef struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues;
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;

typedef struct CUpti_PmSampling_GetCounterAvailability_Params {
    size_t structSize;
    void *pPriv;
    size_t deviceIndex;
    size_t counterAvailabilityImageSize;
    uint8_t *pCounterAvailabilityImage;
} CUpti_PmSampling_GetCounterAvailability_Params;

typedef struct CUpti_PmSampling_Enable_Params {
    size_t structSize;
    void *pPriv;
    size_t deviceIndex;
    CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Enable_Params;

/* Disable, Start and Stop take the same three fields. */
typedef struct CUpti_PmSampling_Disable_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Disable_Params;
typedef struct CUpti_PmSampling_Start_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Start_Params;
typedef struct CUpti_PmSampling_Stop_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Stop_Params;

typedef struct CUpti_PmSampling_SetConfig_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
    size_t configSize;
    const uint8_t *pConfig;
    size_t hardwareBufferSize;
    uint64_t samplingInterval;
    CUpti_PmSampling_TriggerMode triggerMode;
    CUpti_PmSampling_HardwareBuffer_AppendMode hwBufferAppendMode;
} CUpti_PmSampling_SetConfig_Params;

typedef struct CUpti_PmSampling_GetCounterDataSize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
    const char **pMetricNames;
    size_t numMetrics;
    uint32_t maxSamples;
    size_t counterDataSize;
} CUpti_PmSampling_GetCounterDataSize_Params;

typedef struct CUpti_PmSampling_CounterDataImage_Initialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
    size_t counterDataSize;
    uint8_t *pCounterData;
} CUpti_PmSampling_CounterDataImage_Initialize_Params;

typedef struct CUpti_PmSampling_DecodeData_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
    uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    CUpti_PmSampling_DecodeStopReason decodeStopReason;
    uint8_t overflow;
} CUpti_PmSampling_DecodeData_Params;

typedef struct CUpti_PmSampling_GetCounterDataInfo_Params {
    size_t structSize;
    void *pPriv;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t numTotalSamples;
    size_t numPopulatedSamples;
    size_t numCompletedSamples;
} CUpti_PmSampling_GetCounterDataInfo_Params;

typedef struct CUpti_PmSampling_CounterData_GetSampleInfo_Params {
    size_t structSize;
    void *pPriv;
    CUpti_PmSampling_Object *pPmSamplingObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t sampleIndex;
    uint64_t startTimestamp;
    uint64_t endTimestamp;
} CUpti_PmSampling_CounterData_GetSampleInfo_Params;

/* The range profiler (cupti_range_profiler.h) and the counter availability of a context
 * (cupti_profiler_target.h). */
typedef struct CUpti_RangeProfiler_Object CUpti_RangeProfiler_Object;

typedef enum {
    CUPTI_Range_INVALID,
    CUPTI_AutoRange,
    CUPTI_UserRange,
    CUPTI_Range_COUNT,
} CUpti_ProfilerRange;

typedef enum {
    CUPTI_Replay_INVALID,
    CUPTI_ApplicationReplay,
    CUPTI_KernelReplay,
    CUPTI_UserReplay,
    CUPTI_Replay_COUNT,
} CUpti_ProfilerReplayMode;

typedef struct CUpti_Profiler_GetCounterAvailability_Params {
    size_t structSize;
    void *pPriv;
    CUcontext ctx;
    size_t counterAvailabilityImageSize;
    uint8_t *pCounterAvailabilityImage;
} CUpti_Profiler_GetCounterAvailability_Params;

typedef struct CUpti_RangeProfiler_Enable_Params {
    size_t structSize;
    void *pPriv;
    CUcontext ctx;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Enable_Params;

/* Disable, Start and PopRange take the same three fields. */
typedef struct CUpti_RangeProfiler_Disable_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Disable_Params;
typedef struct CUpti_RangeProfiler_Start_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Start_Params;
typedef struct CUpti_RangeProfiler_PopRange_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_PopRange_Params;

typedef struct CUpti_RangeProfiler_Stop_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    size_t passIndex;
    size_t targetNestingLevel;
    uint8_t isAllPassSubmitted;
} CUpti_RangeProfiler_Stop_Params;

typedef struct CUpti_RangeProfiler_PushRange_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    const char *pRangeName;
} CUpti_RangeProfiler_PushRange_Params;

typedef struct CUpti_RangeProfiler_SetConfig_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    size_t configSize;
    const uint8_t *pConfig;
    size_t counterDataImageSize;
    uint8_t *pCounterDataImage;
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replayMode;
    size_t maxRangesPerPass;
    uint16_t numNestingLevels;
    uint16_t minNestingLevel;
    size_t passIndex;
    uint16_t targetNestingLevel;
} CUpti_RangeProfiler_SetConfig_Params;

typedef struct CUpti_RangeProfiler_DecodeData_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    size_t numOfRangeDropped;
} CUpti_RangeProfiler_DecodeData_Params;

typedef struct CUpti_RangeProfiler_GetCounterDataSize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    const char **pMetricNames;
    size_t numMetrics;
    size_t maxNumOfRanges;
    uint32_t maxNumRangeTreeNodes;
    size_t counterDataSize;
} CUpti_RangeProfiler_GetCounterDataSize_Params;

typedef struct CUpti_RangeProfiler_CounterDataImage_Initialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_RangeProfiler_Object *pRangeProfilerObject;
    size_t counterDataSize;
    uint8_t *pCounterData;
} CUpti_RangeProfiler_CounterDataImage_Initialize_Params;

typedef struct CUpti_RangeProfiler_GetCounterDataInfo_Params {
    size_t structSize;
    void *pPriv;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t numTotalRanges;
} CUpti_RangeProfiler_GetCounterDataInfo_Params;
#endif /* !PERFQ_CUPTI_REAL_HEADERS */

/* The headers' *_STRUCT_SIZE values: the size up to each struct's last field. */
#define PERFQ_CUPTI_SIZE(type, last) CUPTI_PROFILER_STRUCT_SIZE(type, last)

/* The range profiler's (cupti_range.c): the CUDA context of the calling thread, and the
 * range profiler's functions besides those of PERFQ_CUPTI_FUNCTIONS it shares. */
#define PERFQ_CUDA_RANGE_FUNCTIONS(X)                                                        \
    X(cuCtxGetCurrent, CUresult, (CUcontext *))                                              \
    X(cuCtxGetDevice, CUresult, (CUdevice *))                                                \
    X(cuCtxSynchronize, CUresult, (void))

#define PERFQ_CUPTI_RANGE_FUNCTIONS(X)                                                       \
    X(cuptiProfilerGetCounterAvailability, CUptiResult,                                      \
      (CUpti_Profiler_GetCounterAvailability_Params *))                                      \
    X(cuptiRangeProfilerEnable, CUptiResult, (CUpti_RangeProfiler_Enable_Params *))          \
    X(cuptiRangeProfilerDisable, CUptiResult, (CUpti_RangeProfiler_Disable_Params *))        \
    X(cuptiRangeProfilerStart, CUptiResult, (CUpti_RangeProfiler_Start_Params *))            \
    X(cuptiRangeProfilerStop, CUptiResult, (CUpti_RangeProfiler_Stop_Params *))              \
    X(cuptiRangeProfilerPushRange, CUptiResult, (CUpti_RangeProfiler_PushRange_Params *))    \
    X(cuptiRangeProfilerPopRange, CUptiResult, (CUpti_RangeProfiler_PopRange_Params *))      \
    X(cuptiRangeProfilerSetConfig, CUptiResult, (CUpti_RangeProfiler_SetConfig_Params *))    \
    X(cuptiRangeProfilerDecodeData, CUptiResult, (CUpti_RangeProfiler_DecodeData_Params *))  \
    X(cuptiRangeProfilerGetCounterDataSize, CUptiResult,                                     \
      (CUpti_RangeProfiler_GetCounterDataSize_Params *))                                     \
    X(cuptiRangeProfilerCounterDataImageInitialize, CUptiResult,                             \
      (CUpti_RangeProfiler_CounterDataImage_Initialize_Params *))                            \
    X(cuptiRangeProfilerGetCounterDataInfo, CUptiResult,                                     \
      (CUpti_RangeProfiler_GetCounterDataInfo_Params *))

/* The library functions perfq resolves, as (library, name, return, arguments). */
#define PERFQ_CUDA_FUNCTIONS(X)                                                              \
    X(cuInit, CUresult, (unsigned int))                                                      \
    X(cuDeviceGetCount, CUresult, (int *))

#define PERFQ_CUPTI_FUNCTIONS(X)                                                             \
    X(cuptiGetResultString, CUptiResult, (CUptiResult, const char **))                       \
    X(cuptiGetTimestamp, CUptiResult, (uint64_t *))                                          \
    X(cuptiProfilerInitialize, CUptiResult, (CUpti_Profiler_Initialize_Params *))            \
    X(cuptiDeviceGetChipName, CUptiResult, (CUpti_Device_GetChipName_Params *))              \
    X(cuptiProfilerHostInitialize, CUptiResult, (CUpti_Profiler_Host_Initialize_Params *))   \
    X(cuptiProfilerHostDeinitialize, CUptiResult,                                            \
      (CUpti_Profiler_Host_Deinitialize_Params *))                                           \
    X(cuptiProfilerHostConfigAddMetrics, CUptiResult,                                        \
      (CUpti_Profiler_Host_ConfigAddMetrics_Params *))                                       \
    X(cuptiProfilerHostGetConfigImageSize, CUptiResult,                                      \
      (CUpti_Profiler_Host_GetConfigImageSize_Params *))                                     \
    X(cuptiProfilerHostGetConfigImage, CUptiResult,                                          \
      (CUpti_Profiler_Host_GetConfigImage_Params *))                                         \
    X(cuptiProfilerHostGetNumOfPasses, CUptiResult,                                          \
      (CUpti_Profiler_Host_GetNumOfPasses_Params *))                                         \
    X(cuptiProfilerHostEvaluateToGpuValues, CUptiResult,                                     \
      (CUpti_Profiler_Host_EvaluateToGpuValues_Params *))                                    \
    X(cuptiPmSamplingGetCounterAvailability, CUptiResult,                                    \
      (CUpti_PmSampling_GetCounterAvailability_Params *))                                    \
    X(cuptiPmSamplingEnable, CUptiResult, (CUpti_PmSampling_Enable_Params *))                \
    X(cuptiPmSamplingDisable, CUptiResult, (CUpti_PmSampling_Disable_Params *))              \
    X(cuptiPmSamplingSetConfig, CUptiResult, (CUpti_PmSampling_SetConfig_Params *))          \
    X(cuptiPmSamplingStart, CUptiResult, (CUpti_PmSampling_Start_Params *))                  \
    X(cuptiPmSamplingStop, CUptiResult, (CUpti_PmSampling_Stop_Params *))                    \
    X(cuptiPmSamplingGetCounterDataSize, CUptiResult,                                        \
      (CUpti_PmSampling_GetCounterDataSize_Params *))                                        \
    X(cuptiPmSamplingCounterDataImageInitialize, CUptiResult,                                \
      (CUpti_PmSampling_CounterDataImage_Initialize_Params *))                               \
    X(cuptiPmSamplingDecodeData, CUptiResult, (CUpti_PmSampling_DecodeData_Params *))        \
    X(cuptiPmSamplingGetCounterDataInfo, CUptiResult,                                        \
      (CUpti_PmSampling_GetCounterDataInfo_Params *))                                        \
    X(cuptiPmSamplingCounterDataGetSampleInfo, CUptiResult,                                  \
      (CUpti_PmSampling_CounterData_GetSampleInfo_Params *))

#endif
