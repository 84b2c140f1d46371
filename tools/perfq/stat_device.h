/* perfq stat's device counters, opened on a thread of perfq while CMD starts (stat_device.c,
 * docs/perfq-stat.md "Device counters"). */
#ifndef PERFQ_TOOLS_STAT_DEVICE_H
#define PERFQ_TOOLS_STAT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "perfq/perfq.h"
#include "stat_collect.h"

struct stat_device;

/* What started NVML (stat_device.c says why it waits). */
enum stat_device_cause {
    STAT_DEVICE_NONE,           /* none to speak of: no NVML library, providers disabled,
                                 * nothing available (--device lists why) */
    STAT_DEVICE_NOT_STARTED,    /* CMD ended before NVML was to start */
    STAT_DEVICE_FIRST_FRAME,    /* past the delay, the layers' first frame */
    STAT_DEVICE_FIRST_COMMAND,  /* past the delay, the layers' first OpenCL command */
    STAT_DEVICE_DELAY,          /* PERFQ_STAT_DEVICE_DELAY_MS after CMD's start */
    STAT_DEVICE_NO_FIRST,       /* a layer loaded, no frame or command by the wait's end */
    STAT_DEVICE_AT_ONCE,        /* --device, or PERFQ_STAT_DEVICE_DELAY_MS=0 */
};

/* Is this one of perfq stat's device counters: a counter of the providers nvml and gpm
 * (nvml-gpuN, gpm-gpuN), but NVML's PCIe throughput (stat_device.c says why)? */
int stat_device_counter(const perfq_group_info_t *gi, const perfq_counter_info_t *ci);

/* Just before CMD is released: starts a thread that waits for CMD's driver start to be over
 * (PERFQ_STAT_DEVICE_DELAY_MS after its start, and then, where a process of CMD loaded a layer,
 * its first frame or OpenCL command, at most 0.8 s more: collect), then
 * probes the NVIDIA providers nvml and gpm (NVML's start: about 30 ms of CPU on an H100) and
 * begins counting every available device counter of theirs (stat_device_counter).
 * explicit_ (--device): their unavailable counters are kept too, so that the report says why
 * they are missing. NULL when no thread could be started or the providers are disabled (then
 * there are none). */
struct stat_device *stat_device_start(perfq_t *pq, int explicit_, struct stat_collect *collect);

/* CMD was released at t0 (CLOCK_MONOTONIC): the delay counts from then. */
void stat_device_released(struct stat_device *d, uint64_t t0);

/* CMD has exited: reads the counters without waiting (perfq_measurement_sample: from their
 * begin to the device sampler's newest sample) and joins the thread. When they never began:
 * before NVML's start, the thread ends at once; during it, it is not waited for (perfq must
 * leave with _exit: stat_device_must_leave), but with explicit_, which waits for it to list
 * the counters ("not counted") with their reasons, or without may_leave (always joined). */
void stat_device_stop(struct stat_device *d, int may_leave);

/* After stat_device_stop: 1 when perfq must leave with _exit after its report, never closing
 * its perfq_t: NVML's sampler runs (counted), or NVML is still starting on the thread. */
int stat_device_must_leave(const struct stat_device *d);

/* After stat_device_stop: what started NVML, and when (CLOCK_MONOTONIC; 0 when it did not). */
enum stat_device_cause stat_device_cause(const struct stat_device *d, uint64_t *start_ns);

/* After stat_device_stop: the counters, available first; values[i] for i < *n_measured.
 * begin_ns: CLOCK_MONOTONIC at their begin, 0 when they never began. */
void stat_device_result(const struct stat_device *d, const perfq_counter_id_t **ids,
                        size_t *n, size_t *n_measured, const perfq_value_t **values,
                        uint64_t *begin_ns);

/* 1 when the counters were begun and read: their measurement (NVML's sampler) is still open
 * until stat_device_free. */
int stat_device_counting(const struct stat_device *d);

/* Without a frame or an OpenCL command, NVML starts this long after CMD (seconds). */
double stat_device_delay_s(void);

void stat_device_free(struct stat_device **d);

#endif
