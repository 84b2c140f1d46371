/*
 * Provider "nvml": device counters of every NVIDIA GPU, read from NVML (libnvidia-ml.so.1,
 * opened at run time) by perfq's sampler thread; one group per device, "nvml-gpuN" with N the
 * NVML index. Without the library the single group "nvml" is listed unavailable with the
 * reason. Means are time-weighted over the measured interval, interpolated between samples
 * (nvml_sampler.c; docs/nvidia-providers.md).
 */
#include "providers/nvml_session.h"
#include "providers/builtin_providers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MEAN(n, cat, desc, unit, itype, max, ch) \
    {n, cat, desc, unit, PERFQ_STORAGE_FLOAT64, itype, 0, max, 1, NVML_CODE(ch, KIND_MEAN), 0}

static const struct perfq_counter_desc counters[] = {
    {"energy", "Power", "Energy the device consumed over the interval, in joules. NVML's "
     "total-energy counter, read every 2 s, carried between reads by the integral of the power "
     "reading", PERFQ_UNIT_JOULES, PERFQ_STORAGE_FLOAT64,
     PERFQ_INTEL_EVENT, 0, 0, 1, NVML_CODE(CH_ENERGY, KIND_ENERGY), 0},
    MEAN("average-power", "Power", "Mean power draw over the interval (NVML instant power "
         "field where the driver has it, else nvmlDeviceGetPowerUsage)", PERFQ_UNIT_WATTS,
         PERFQ_INTEL_RAW, 0, CH_POWER),
    MEAN("sm-clock", "Clocks", "Mean SM clock over the interval", PERFQ_UNIT_HERTZ,
         PERFQ_INTEL_RAW, 0, CH_SM_CLOCK),
    MEAN("memory-clock", "Clocks", "Mean memory clock over the interval", PERFQ_UNIT_HERTZ,
         PERFQ_INTEL_RAW, 0, CH_MEM_CLOCK),
    MEAN("gpu-utilization", "Utilization", "Mean of NVML's GPU utilisation: percent of time a "
         "kernel ran, which the driver averages over its own 1/6 s to 1 s window",
         PERFQ_UNIT_PERCENTAGE, PERFQ_INTEL_RAW, 100, CH_GPU_UTIL),
    MEAN("memory-utilization", "Utilization", "Mean of NVML's memory utilisation: percent of "
         "time device memory was read or written (driver-averaged like gpu-utilization)",
         PERFQ_UNIT_PERCENTAGE, PERFQ_INTEL_RAW, 100, CH_MEM_UTIL),
    MEAN("temperature", "Thermal", "Mean GPU core temperature over the interval",
         PERFQ_UNIT_KELVIN, PERFQ_INTEL_RAW, 0, CH_TEMP),
    MEAN("memory-used", "Memory", "Mean device memory allocated (by every process) over the "
         "interval (read every 50 ms; after the newest read, that read held to the end)",
         PERFQ_UNIT_BYTES, PERFQ_INTEL_RAW, 0, CH_MEM_USED),
    MEAN("pcie-tx", "PCIe", "Mean PCIe transmit throughput (nvmlDeviceGetPcieThroughput, each "
         "a 20 ms window, read once a second; after the newest read, that read held to the end: a "
         "result does not wait for the next)", PERFQ_UNIT_BYTES_PER_SECOND,
         PERFQ_INTEL_THROUGHPUT, 0, CH_PCIE_TX),
    MEAN("pcie-rx", "PCIe", "Mean PCIe receive throughput (as pcie-tx)",
         PERFQ_UNIT_BYTES_PER_SECOND, PERFQ_INTEL_THROUGHPUT, 0, CH_PCIE_RX),
    {"clocks-changed", "Clocks", "1 if the SM or memory clock changed during the interval "
     "(GL_INTEL_performance_query's frequency-changed condition)", PERFQ_UNIT_GENERIC,
     PERFQ_STORAGE_BOOL32, PERFQ_INTEL_RAW, 0, 1, 1, NVML_CODE(CH_CLOCK_CHANGES, KIND_FLAG), 0},
    {"throttled", "Clocks", "1 if a clock event reason limited the clocks during the interval "
     "(power cap, thermal or hardware slowdown, power brake, sync boost; not idle or "
     "application settings)", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_BOOL32, PERFQ_INTEL_RAW, 0, 1,
     1, NVML_CODE(CH_THROTTLED, KIND_FLAG), 0},
    {"samples", "Sampler", "Fast-cadence samples the sampler took of this device during the "
     "interval", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1,
     NVML_CODE(CH_SAMPLES, KIND_COUNT), 0},
    {"sample-age", "Sampler", "Time from the newest power sample before each end of the "
     "interval to that end, the larger of the two (how far values were interpolated or, for "
     "a sample during the measurement, extrapolated)", PERFQ_UNIT_NANOSECONDS,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_DURATION_RAW, 0, 0, 1,
     NVML_CODE(CH_POWER, KIND_AGE), 0},
};

static perfq_status_t nvml_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    return perfq__nvml_probe(counters, ARRAY_SIZE(counters), state, reason, size);
}

static perfq_status_t nvml_enumerate(void *state, struct perfq_catalog *catalog,
                                     const char *probe_reason)
{
    return perfq__nvml_enumerate(state, catalog, probe_reason, "nvml",
                                 "Device counters sampled from NVML", counters,
                                 ARRAY_SIZE(counters), 0);
}

const struct perfq_provider_ops perfq_nvml_provider = {
    .name = "nvml",
    .probe = nvml_probe,
    .enumerate = nvml_enumerate,
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
