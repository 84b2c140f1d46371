/*
 * Device counters over an interval in the past, for the OpenCL layer's per-command counters
 * (cl_codeplay_performance_counters on NVIDIA devices): the NVML sampler keeps a bounded
 * history of its fast samples (nvml_history.h), and a command's [START, END], once placed on
 * CLOCK_MONOTONIC, is integrated from it after the command completed.
 * docs/nvidia-providers.md ("Per OpenCL command") says how and with what accuracy.
 */
#ifndef PERFQ_PROVIDERS_NVML_INTERVAL_H
#define PERFQ_PROVIDERS_NVML_INTERVAL_H

#include <stdint.h>

#include "perfq/perfq.h"

struct perfq_nvml_interval {
    double energy_j;       /* integral of power over the interval */
    double power_w;        /* its time-weighted mean (the power at the instant for a zero span) */
    double sm_clock_hz;    /* time-weighted mean SM clock */
    double mem_clock_hz;   /* time-weighted mean memory clock */
    unsigned samples;      /* fast samples taken within the interval */
};

/* The NVML index of the device with this 16-byte UUID (OpenCL's CL_DEVICE_UUID_KHR, NVML's
 * "GPU-..." string), or -1 (no driver, no such device). */
PERFQ_API int perfq__nvml_device_from_uuid(const unsigned char uuid[16]);
/* The number of NVML devices (0 without the driver). */
PERFQ_API unsigned perfq__nvml_device_count(void);

/* Keeps the sampler running, with its history, for device d's power and clocks while held.
 * 0, or -1 (no driver, or the channels do not read on this device). */
PERFQ_API int perfq__nvml_interval_hold(unsigned d);
PERFQ_API void perfq__nvml_interval_release(unsigned d);

/* Device d over [a, b] (CLOCK_MONOTONIC ns; a <= b). wait: block until the sampler has a
 * sample at or after b (at most a fast period, bounded by a second beyond that).
 * Returns 0; 1 not yet (wait 0); -1 the history no longer (or never) covered a, or a reading
 * in the span failed, or no sample came in time. Needs a hold on d. */
PERFQ_API int perfq__nvml_interval_read(unsigned d, uint64_t a, uint64_t b, int wait,
                                        struct perfq_nvml_interval *out);

#endif
