/*
 * The OpenCL layer's shared state: the next dispatch table (the loader's or the next layer's),
 * the counters every device offers, and the side tables. Each area's wrappers live in their
 * own file and install themselves into the layer's dispatch table.
 */
#ifndef PERFQ_CL_LAYER_H
#define PERFQ_CL_LAYER_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_icd.h>
#include <stdint.h>

#include "cl/side_table.h"
#include "perfq/cl_codeplay_performance_counters.h"
#include "perfq/perfq.h"

#define PERFQ_CL_EXPORT __attribute__((visibility("default")))

/* The table every wrapper calls: a copy of the target dispatch the loader gave clInitLayer
 * (entries past its num_entries are NULL). Never the public cl* entry points. */
extern cl_icd_dispatch perfq_cl_next;

/* A counter the layer offers on every (non-native) device: catalog data plus its code. */
struct perfq_cl_counter {
    cl_performance_counter_codeplay info;   /* what clGetDeviceInfo returns */
    uint32_t code;                          /* enum perfq_cl_counter_code */
};
/* The catalog's counters: first those of every device, then (from perfq_cl_base_counter_count
 * on) those of NVIDIA devices matched to an NVML device (opencl-command-nvidia). */
extern const struct perfq_cl_counter *perfq_cl_counters;
extern uint32_t perfq_cl_counter_count;
extern uint32_t perfq_cl_base_counter_count;

/* The counters enabled on a queue, in enable order; shared by the queue and its commands'
 * records, freed with the last reference. */
struct perfq_cl_config {
    uint32_t refs;        /* atomic */
    uint32_t count;
    uint32_t needs_times; /* bit 0: START/END, bit 1: QUEUED/START are read */
    uint32_t needs_bytes;
    int nvml_device;      /* NVIDIA counters enabled: the NVML device (held), else -1 */
    const struct perfq_cl_counter *counters[];
};
struct perfq_cl_config *perfq_cl_config_ref(struct perfq_cl_config *c);
void perfq_cl_config_unref(struct perfq_cl_config *c);

/* A queue created with CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY. */
struct perfq_cl_queue {
    uint32_t program_refs;          /* the program's references (retain/release), under lock */
    int program_profiling;          /* did the program itself ask for CL_QUEUE_PROFILING_ENABLE */
    int hidden_profiling;           /* the layer turned it on underneath (time counters) */
    cl_device_id device;
    struct perfq_cl_config *config;
    cl_queue_properties *properties; /* what the program passed, terminator included */
    size_t properties_size;          /* in bytes */
};
extern struct perfq_cl_table perfq_cl_queues;

/* What the layer knows of one command of a queue with counters, taken before the driver call.
 * bytes_known 0: the arguments do not say (SVM migration of whole allocations). */
struct perfq_cl_command {
    struct perfq_cl_config *config;
    int program_profiling;
    int bytes_known;
    uint64_t bytes;
    uint64_t work_items;
    uint64_t work_groups;
    cl_kernel kernel;               /* NDRange and task commands: for perfq stat's kernel name */
    uint64_t host_t0;               /* NVIDIA counters: CLOCK_MONOTONIC just before the driver
                                     * call, which places the event's QUEUED on that clock */
};

/* command_counters.c: starts a command. Returns 1 when the command is counted (queue with
 * counters and an event for the program to read them from); cmd then holds a reference to the
 * queue's config that perfq_cl_command_end (or _abandon) gives back. */
int perfq_cl_command_begin(cl_command_queue queue, cl_event *event,
                           struct perfq_cl_command *cmd, cl_device_id *device);
/* After the driver call: on success records the command for *event. Returns err. */
cl_int perfq_cl_command_end(struct perfq_cl_command *cmd, cl_int err, cl_event *event);

/* event_counters.c: the records of counted commands' events. */
int perfq_cl_event_record(cl_event event, const struct perfq_cl_command *cmd);
extern struct perfq_cl_table perfq_cl_events;
/* Live queues whose profiling the layer turned on behind the program's back. */
extern uint32_t perfq_cl_hidden_profiling_queues;   /* atomic */

/* Installers: each area puts its wrappers into the layer's dispatch table. */
void perfq_cl_install_platform_info(cl_icd_dispatch *d);
void perfq_cl_install_device_info(cl_icd_dispatch *d);
void perfq_cl_install_queue_properties(cl_icd_dispatch *d);
void perfq_cl_install_event_counters(cl_icd_dispatch *d);
void perfq_cl_install_command_counters(cl_icd_dispatch *d);

/* device_info.c: is this device's own driver implementing the extension (passed through)?
 * Returns CL_SUCCESS and *native, or the driver's error for a bad device. */
cl_int perfq_cl_device_native(cl_device_id device, int *native);
/* The NVML device index the OpenCL device is (-1: none; CL_DEVICE_UUID_KHR against NVML's
 * UUIDs), with the number of counters it lists. CL_SUCCESS or the driver's error. */
cl_int perfq_cl_device_nvml(cl_device_id device, int *nvml_device, uint32_t *counter_count);
void perfq_cl_device_info_fini(void);
void perfq_cl_platform_info_fini(void);
/* queue_properties.c */
cl_command_queue CL_API_CALL perfq_clCreateCommandQueueWithPropertiesKHR(
    cl_context context, cl_device_id device, const cl_queue_properties *properties,
    cl_int *errcode_ret);
void perfq_cl_queue_properties_fini(void);
/* map_commands.c: drops every mapping record; with perfq_cl_queues.lock held, when the last
 * queue with counters is released. */
void perfq_cl_maps_forget_all_locked(void);
extern struct perfq_cl_table perfq_cl_maps;
/* layer.c: test hook, not an API: how many records the side tables hold now (tests check that
 * thousands of commands leave none behind). Any pointer may be NULL. */
PERFQ_CL_EXPORT void perfq_cl_layer_debug_counts(size_t *queues, size_t *events, size_t *maps);
/* layer.c: test hook, not an API: how many queue records perfq stat's table holds now. */
PERFQ_CL_EXPORT size_t perfq_cl_layer_debug_stat_queues(void);
void perfq_cl_event_counters_fini(void);
void perfq_cl_command_counters_fini(void);

/* The size-query contract of every clGet*Info: param_value NULL asks for the size; a buffer
 * smaller than the value is CL_INVALID_VALUE; nothing is written on error. */
cl_int perfq_cl_set_param(const void *value, size_t value_size, size_t param_value_size,
                          void *param_value, size_t *param_value_size_ret);

#endif
