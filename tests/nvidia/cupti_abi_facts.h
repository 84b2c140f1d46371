/* Every fact of src/providers/cupti_api.h that tests/nvidia/cupti_abi_check compares with the real CUPTI headers: struct sizes, field offsets, constants. */
#define PERFQ_CUPTI_FACTS \
    PERFQ_FACT_SIZE(CUpti_Profiler_GetCounterAvailability_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_GetCounterAvailability_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_GetCounterAvailability_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_GetCounterAvailability_Params, ctx) \
    PERFQ_FACT_FIELD(CUpti_Profiler_GetCounterAvailability_Params, counterAvailabilityImageSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_Enable_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Enable_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Enable_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Enable_Params, ctx) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_Disable_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Disable_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Disable_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_Start_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Start_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Start_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Start_Params, pRangeProfilerObject) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_PopRange_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PopRange_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PopRange_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PopRange_Params, pRangeProfilerObject) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_Stop_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, passIndex) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, targetNestingLevel) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_PushRange_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PushRange_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PushRange_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PushRange_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_PushRange_Params, pRangeName) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_SetConfig_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, configSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, pConfig) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, range) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, replayMode) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, maxRangesPerPass) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, numNestingLevels) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, minNestingLevel) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, passIndex) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_DecodeData_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_DecodeData_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_DecodeData_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_DecodeData_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, pMetricNames) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, numMetrics) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumOfRanges) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumRangeTreeNodes) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pRangeProfilerObject) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, counterDataSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData) \
    PERFQ_FACT_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataInfo_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataInfo_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataInfo_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataInfo_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges) \
    PERFQ_FACT_CONST(CUPTI_AutoRange) \
    PERFQ_FACT_CONST(CUPTI_UserRange) \
    PERFQ_FACT_CONST(CUPTI_KernelReplay) \
    PERFQ_FACT_CONST(CUPTI_UserReplay) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Initialize_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Initialize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Initialize_Params, pPriv) \
    PERFQ_FACT_SIZE(CUpti_Device_GetChipName_Params) \
    PERFQ_FACT_FIELD(CUpti_Device_GetChipName_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Device_GetChipName_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Device_GetChipName_Params, deviceIndex) \
    PERFQ_FACT_FIELD(CUpti_Device_GetChipName_Params, pChipName) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_Initialize_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, profilerType) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, pChipName) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Initialize_Params, pHostObject) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_Deinitialize_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Deinitialize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Deinitialize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_Deinitialize_Params, pHostObject) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_GetConfigImage_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pHostObject) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, configImageSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses) \
    PERFQ_FACT_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics) \
    PERFQ_FACT_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_GetCounterAvailability_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterAvailability_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterAvailability_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterAvailability_Params, deviceIndex) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterAvailability_Params, counterAvailabilityImageSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterAvailability_Params, pCounterAvailabilityImage) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_Enable_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Enable_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Enable_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Enable_Params, deviceIndex) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Enable_Params, pPmSamplingObject) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_Disable_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Disable_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Disable_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Disable_Params, pPmSamplingObject) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_Start_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Start_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Start_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Start_Params, pPmSamplingObject) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_Stop_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Stop_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Stop_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_Stop_Params, pPmSamplingObject) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_SetConfig_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, pPmSamplingObject) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, configSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, pConfig) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, hardwareBufferSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, samplingInterval) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, triggerMode) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_SetConfig_Params, hwBufferAppendMode) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_GetCounterDataSize_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, pPmSamplingObject) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, pMetricNames) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, numMetrics) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, maxSamples) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataSize_Params, counterDataSize) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_CounterDataImage_Initialize_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterDataImage_Initialize_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterDataImage_Initialize_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterDataImage_Initialize_Params, pPmSamplingObject) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterDataImage_Initialize_Params, counterDataSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterDataImage_Initialize_Params, pCounterData) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_DecodeData_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, pPmSamplingObject) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, decodeStopReason) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_DecodeData_Params, overflow) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_GetCounterDataInfo_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, numTotalSamples) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, numPopulatedSamples) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_GetCounterDataInfo_Params, numCompletedSamples) \
    PERFQ_FACT_SIZE(CUpti_PmSampling_CounterData_GetSampleInfo_Params) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, structSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, pPriv) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, pPmSamplingObject) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, pCounterDataImage) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, counterDataImageSize) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, sampleIndex) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, startTimestamp) \
    PERFQ_FACT_FIELD(CUpti_PmSampling_CounterData_GetSampleInfo_Params, endTimestamp) \
    PERFQ_FACT_CONST(CUDA_SUCCESS) \
    PERFQ_FACT_CONST(CUPTI_SUCCESS) \
    PERFQ_FACT_CONST(CUPTI_ERROR_NOT_INITIALIZED) \
    PERFQ_FACT_CONST(CUPTI_ERROR_HARDWARE_BUSY) \
    PERFQ_FACT_CONST(CUPTI_ERROR_NOT_SUPPORTED) \
    PERFQ_FACT_CONST(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) \
    PERFQ_FACT_CONST(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) \
    PERFQ_FACT_CONST(CUPTI_PROFILER_TYPE_RANGE_PROFILER) \
    PERFQ_FACT_CONST(CUPTI_PROFILER_TYPE_PM_SAMPLING) \
    PERFQ_FACT_CONST(CUPTI_PROFILER_TYPE_PROFILER_INVALID) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_TRIGGER_MODE_COUNT) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNT) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST) \
    PERFQ_FACT_CONST(CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST) \

