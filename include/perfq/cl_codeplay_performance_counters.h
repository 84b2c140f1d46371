/*
 * cl_codeplay_performance_counters: tokens and types.
 *
 * The extension is in no Khronos header (checked up to the 2026 OpenCL headers), so perfq ships
 * this one, with the names and values of the specification text (Revision 2, 2021/06/30). perfq's
 * OpenCL layer (libperfq-cl.so, loaded through OPENCL_LAYERS) implements it on any OpenCL
 * platform; see docs/opencl-layer.md.
 *
 * Differences from the oneAPI Construction Kit's header, on purpose: the counter struct is named
 * cl_performance_counter_codeplay as in the specification (OCK's typedef drops the suffix). The
 * unit and storage member types are cl_int as in OCK, so the struct layouts agree.
 */
#ifndef PERFQ_CL_CODEPLAY_PERFORMANCE_COUNTERS_H
#define PERFQ_CL_CODEPLAY_PERFORMANCE_COUNTERS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cl_codeplay_performance_counters 1
#define CL_CODEPLAY_PERFORMANCE_COUNTERS_EXTENSION_NAME "cl_codeplay_performance_counters"

/* Accepted as param_name parameter to clGetDeviceInfo. */
#define CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY 0x4260
/* Accepted as a key in the properties key value array parameter to
 * clCreateCommandQueueWithPropertiesKHR (perfq: and clCreateCommandQueueWithProperties). */
#define CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY 0x4261
/* Accepted as param_name parameter to clGetEventProfilingInfo. */
#define CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY 0x4262

/* Accepted as unit member of cl_performance_counter_codeplay. */
#define CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY 0x0
#define CL_PERFORMANCE_COUNTER_UNIT_PERCENTAGE_CODEPLAY 0x1
#define CL_PERFORMANCE_COUNTER_UNIT_NANOSECONDS_CODEPLAY 0x2
#define CL_PERFORMANCE_COUNTER_UNIT_BYTES_CODEPLAY 0x3
#define CL_PERFORMANCE_COUNTER_UNIT_BYTES_PER_SECOND_CODEPLAY 0x4
#define CL_PERFORMANCE_COUNTER_UNIT_KELVIN_CODEPLAY 0x5
#define CL_PERFORMANCE_COUNTER_UNIT_WATTS_CODEPLAY 0x6
#define CL_PERFORMANCE_COUNTER_UNIT_VOLTS_CODEPLAY 0x7
#define CL_PERFORMANCE_COUNTER_UNIT_AMPS_CODEPLAY 0x8
#define CL_PERFORMANCE_COUNTER_UNIT_HERTZ_CODEPLAY 0x9
#define CL_PERFORMANCE_COUNTER_UNIT_CYCLES_CODEPLAY 0xA

/* Accepted as storage member of cl_performance_counter_codeplay. */
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT32_CODEPLAY 0x0
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT64_CODEPLAY 0x1
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT32_CODEPLAY 0x2
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT64_CODEPLAY 0x3
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT32_CODEPLAY 0x4
#define CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY 0x5

typedef cl_int cl_performance_counter_unit_codeplay;
typedef cl_int cl_performance_counter_storage_codeplay;

/* Accepted as param_value parameter to clGetDeviceInfo. */
typedef struct cl_performance_counter_codeplay {
    cl_performance_counter_unit_codeplay unit;
    cl_performance_counter_storage_codeplay storage;
    cl_uint uuid;
    char name[256];
    char category[256];
    char description[256];
} cl_performance_counter_codeplay;

/* Accepted as descs member of cl_performance_counter_config_codeplay. */
typedef struct cl_performance_counter_desc_codeplay {
    cl_uint uuid;
    void *data;
} cl_performance_counter_desc_codeplay;

/* Accepted as a value in the properties key value array parameter to
 * clCreateCommandQueueWithPropertiesKHR (a pointer to it, cast to cl_queue_properties). */
typedef struct cl_performance_counter_config_codeplay {
    cl_uint count;
    cl_performance_counter_desc_codeplay *descs;
} cl_performance_counter_config_codeplay;

/* Accepted as param_value parameter to clGetEventProfilingInfo. */
typedef struct cl_performance_counter_result_codeplay {
    union {
        cl_int int32;
        cl_long int64;
        cl_uint uint32;
        cl_ulong uint64;
        cl_float float32;
        cl_double float64;
    };
} cl_performance_counter_result_codeplay;

/* cl_khr_create_command_queue, which the extension requires, comes from CL/cl_ext.h
 * (clCreateCommandQueueWithPropertiesKHR_fn, cl_queue_properties_khr). perfq's layer returns
 * the entry point from clGetExtensionFunctionAddress and clGetExtensionFunctionAddressForPlatform. */

#ifdef __cplusplus
}
#endif
#endif
