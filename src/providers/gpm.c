/*
 * Provider "gpm": NVML GPU Performance Monitoring (Hopper and later, no root needed), one
 * group per device ("gpm-gpuN"). The sampler thread takes a GPM sample of each device every
 * 100 ms while a GPM counter is measured; nvmlGpmMetricsGet gives each metric's mean between
 * two samples, and a counter's value is the time-weighted mean of those over the interval
 * (nvml_sampler.c; docs/nvidia-providers.md). Without NVML the group "gpm" is listed
 * unavailable with the reason; a device without GPM lists its group unavailable.
 */
#include "providers/nvml_session.h"
#include "providers/builtin_providers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define PCT(n, desc, i)                                                                    \
    {n, "GPM", desc, PERFQ_UNIT_PERCENTAGE, PERFQ_STORAGE_FLOAT64, PERFQ_INTEL_RAW, 0, 100, 1, \
     NVML_CODE(CH_GPM_FIRST + (i), KIND_MEAN), 0}
#define RATE(n, desc, i)                                                                   \
    {n, "GPM", desc, PERFQ_UNIT_BYTES_PER_SECOND, PERFQ_STORAGE_FLOAT64,                    \
     PERFQ_INTEL_THROUGHPUT, 0, 0, 1, NVML_CODE(CH_GPM_FIRST + (i), KIND_MEAN), 0}

/* In the order of perfq__gpm_metric_ids (nvml_lib.c). */
static const struct perfq_counter_desc counters[] = {
    PCT("sm-activity", "Percent of time the SMs were busy, averaged over all SMs "
        "(NVML_GPM_METRIC_SM_UTIL)", 0),
    PCT("sm-occupancy", "Resident warps as a percent of the SMs' maximum "
        "(NVML_GPM_METRIC_SM_OCCUPANCY)", 1),
    PCT("graphics-activity", "Percent of time the graphics engine was busy "
        "(NVML_GPM_METRIC_GRAPHICS_UTIL)", 2),
    PCT("dram-bandwidth-utilization", "DRAM bandwidth used as a percent of the theoretical "
        "maximum (NVML_GPM_METRIC_DRAM_BW_UTIL)", 3),
    PCT("tensor-activity", "Percent of time the SMs did any tensor operation "
        "(NVML_GPM_METRIC_ANY_TENSOR_UTIL)", 4),
    PCT("tensor-dfma-activity", "Percent of time the SMs did DFMA tensor operations", 5),
    PCT("tensor-hmma-activity", "Percent of time the SMs did HMMA tensor operations", 6),
    PCT("tensor-imma-activity", "Percent of time the SMs did IMMA tensor operations", 7),
    PCT("fp64-activity", "Percent of time the SMs' non-tensor FP64 pipe was busy", 8),
    PCT("fp32-activity", "Percent of time the SMs' non-tensor FP32 pipe was busy", 9),
    PCT("fp16-activity", "Percent of time the SMs' non-tensor FP16 pipe was busy", 10),
    PCT("integer-activity", "Percent of time the SMs' integer pipe was busy", 11),
    RATE("pcie-tx", "PCIe bytes sent by the GPU per second (NVML reports MiB/s)", 12),
    RATE("pcie-rx", "PCIe bytes received by the GPU per second", 13),
    RATE("nvlink-tx", "NVLink bytes sent per second, all links", 14),
    RATE("nvlink-rx", "NVLink bytes received per second, all links", 15),
};

_Static_assert(ARRAY_SIZE(counters) == PERFQ_GPM_METRICS_MAX, "one counter per GPM channel");

static perfq_status_t gpm_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    return perfq__nvml_probe(counters, ARRAY_SIZE(counters), state, reason, size);
}

static perfq_status_t gpm_enumerate(void *state, struct perfq_catalog *catalog,
                                    const char *probe_reason)
{
    return perfq__nvml_enumerate(state, catalog, probe_reason, "gpm",
                                 "GPU Performance Monitoring metrics (NVML GPM)", counters,
                                 ARRAY_SIZE(counters), 1);
}

const struct perfq_provider_ops perfq_gpm_provider = {
    .name = "gpm",
    .probe = gpm_probe,
    .enumerate = gpm_enumerate,
    .session_open = perfq__nvml_session_open,
    .begin = perfq__nvml_begin,
    .sample = perfq__nvml_sample,
    .end = perfq__nvml_end,
    .result = perfq__nvml_result,
    .session_close = perfq__nvml_session_close,
    .close = perfq__nvml_close,
    /* Its probe initialises NVML (31 ms, 23 ms of CPU on an H100): probed when a name or the
     * whole catalog needs it. */
    .deferred_max_groups = NVML_MAX_DEVICES,
    .deferred_max_counters = NVML_MAX_DEVICES * ARRAY_SIZE(counters),
};
