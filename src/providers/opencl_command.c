/*
 * Provider "opencl", group "opencl-command": counters of one OpenCL command, as data (libpfm4
 * style). Their uuids follow the catalog rule (perfq__counter_uuid("opencl", "opencl-command",
 * name)), so clGetDeviceInfo(CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY) reports the same uuid on
 * every run and machine, and a counter added here appears in the catalog and on every device.
 */
#include <stdio.h>

#include "providers/opencl_command.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct perfq_group_desc group = {
    PERFQ_CL_GROUP_NAME,
    "Counters of each OpenCL command (cl_codeplay_performance_counters): event profiling "
    "timestamps and what the command's arguments say it moves or runs",
    PERFQ_SCOPE_GPU_TIMELINE, 0};

#define C(n, cat, desc, unit, itype, min, code) \
    {n, cat, desc, unit, PERFQ_STORAGE_UINT64, itype, min, 0, 1, code, 0}

static const struct perfq_counter_desc counters[] = {
    C("Command Duration", "Timing",
      "CL_PROFILING_COMMAND_END minus CL_PROFILING_COMMAND_START of the command (ns)",
      PERFQ_UNIT_NANOSECONDS, PERFQ_INTEL_DURATION_RAW, 0, PERFQ_CL_COMMAND_DURATION),
    C("Bytes Transferred", "Memory",
      "Bytes a read, write, copy, fill, map, unmap or migrate command moves, from its "
      "arguments (rect and image commands: region size); 0 for kernels, markers, barriers",
      PERFQ_UNIT_BYTES, PERFQ_INTEL_EVENT, 0, PERFQ_CL_BYTES_TRANSFERRED),
    C("Queued To Start", "Timing",
      "CL_PROFILING_COMMAND_START minus CL_PROFILING_COMMAND_QUEUED of the command (ns)",
      PERFQ_UNIT_NANOSECONDS, PERFQ_INTEL_DURATION_RAW, 0, PERFQ_CL_QUEUED_TO_START),
    C("Work Items", "Execution",
      "Work-items of an NDRange command (product of the global sizes; 1 for a task); "
      "0 for other commands",
      PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, 0, PERFQ_CL_WORK_ITEMS),
    C("Work Groups", "Execution",
      "Work-groups of an NDRange command (product of ceil(global/local); 1 for a task); 0 when "
      "the driver chose the local size (NULL local size, no reqd_work_group_size) or for other "
      "commands",
      PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, 0, PERFQ_CL_WORK_GROUPS),
};

static const struct perfq_group_desc nvidia_group = {
    PERFQ_CL_NVIDIA_GROUP_NAME,
    "Device counters over each OpenCL command on an NVIDIA device (cl_codeplay_performance_"
    "counters): NVML's power and clocks, integrated over the command's [START, END] from the "
    "NVML sampler's history",
    PERFQ_SCOPE_GPU_TIMELINE, 0};

#define NV(n, cat, desc, unit, storage, code) \
    {n, cat, desc, unit, storage, PERFQ_INTEL_RAW, 0, 0, 1, code, 0}

/* Energy has no unit in the extension's enum: perfq's JOULES, which the layer reports as
 * GENERIC with the description naming joules (docs/nvidia-providers.md). */
static const struct perfq_counter_desc nvidia_counters[] = {
    NV("Energy", "Power",
       "Energy the NVIDIA device consumed during the command, in joules: the integral of "
       "NVML's power over [START, END] (samples every 20 ms, linear between them)",
       PERFQ_UNIT_JOULES, PERFQ_STORAGE_FLOAT64, PERFQ_CL_NV_ENERGY),
    NV("Average Power", "Power",
       "Mean power draw of the NVIDIA device during the command (W)",
       PERFQ_UNIT_WATTS, PERFQ_STORAGE_FLOAT64, PERFQ_CL_NV_POWER),
    NV("SM Clock", "Clocks", "Mean SM clock of the NVIDIA device during the command (Hz)",
       PERFQ_UNIT_HERTZ, PERFQ_STORAGE_FLOAT64, PERFQ_CL_NV_SM_CLOCK),
    NV("Memory Clock", "Clocks",
       "Mean memory clock of the NVIDIA device during the command (Hz)",
       PERFQ_UNIT_HERTZ, PERFQ_STORAGE_FLOAT64, PERFQ_CL_NV_MEM_CLOCK),
    NV("NVML Samples", "Sampler",
       "NVML samples taken within the command: 0 means every value above is interpolated "
       "between the two samples around a command shorter than the sampling period (20 ms)",
       PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_CL_NV_SAMPLES),
};

static perfq_status_t cl_probe(void *arg, void **state, char *reason, size_t size)
{
    if (!arg) {
        /* Listed by libperfq: nothing there sees OpenCL commands. */
        if (size)
            snprintf(reason, size, "%s",
                     "counted per OpenCL command by the OpenCL layer libperfq-cl.so "
                     "(perfq run); read with clGetEventProfilingInfo");
        return PERFQ_ENOTSUP;
    }
    *state = arg;
    return PERFQ_OK;
}

static perfq_status_t cl_enumerate(void *state, struct perfq_catalog *catalog,
                                   const char *probe_reason)
{
    (void)state;
    perfq_status_t s = perfq_catalog_add_table(catalog, &group, counters, ARRAY_SIZE(counters),
                                               probe_reason);
    if (s == PERFQ_OK)
        s = perfq_catalog_add_table(catalog, &nvidia_group, nvidia_counters,
                                    ARRAY_SIZE(nvidia_counters), probe_reason);
    return s;
}

/* The values exist per command only, read from the command's event by the layer: a perfq
 * measurement (an interval between begin and end) cannot count them. */
static perfq_status_t cl_session_open(void *state, const struct perfq_session_request *request,
                                      void **session)
{
    (void)state;
    (void)request;
    (void)session;
    return PERFQ_ENOTSUP;
}

static perfq_status_t cl_unsupported(void *session)
{
    (void)session;
    return PERFQ_ENOTSUP;
}

static perfq_status_t cl_result(void *session, int wait, perfq_value_t *values)
{
    (void)session;
    (void)wait;
    (void)values;
    return PERFQ_ENOTSUP;
}

static void cl_session_close(void *session)
{
    (void)session;
}

const struct perfq_provider_ops perfq_cl_command_provider = {
    .name = PERFQ_CL_PROVIDER_NAME,
    .probe = cl_probe,
    .enumerate = cl_enumerate,
    .session_open = cl_session_open,
    .begin = cl_unsupported,
    .sample = NULL,
    .end = cl_unsupported,
    .result = cl_result,
    .session_close = cl_session_close,
    .close = NULL,
};
