/* perfq stat's device counters, opened on a thread of perfq while CMD starts (stat_device.c,
 * docs/perfq-stat.md "Device counters"). */
#ifndef PERFQ_TOOLS_STAT_DEVICE_H
#define PERFQ_TOOLS_STAT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "perfq/perfq.h"

struct stat_device;

/* Is this one of perfq stat's device counters: a counter of the providers nvml and gpm
 * (nvml-gpuN, gpm-gpuN), but NVML's PCIe throughput (stat_device.c says why)? */
int stat_device_counter(const perfq_group_info_t *gi, const perfq_counter_info_t *ci);

/* Starts a thread that probes the NVIDIA providers nvml and gpm (NVML's start: about 30 ms of
 * CPU, 56 ms on an H100) and then begins counting every available device counter of theirs
 * (stat_device_counter).
 * explicit_ (--device): their unavailable counters are kept too, so that the report says why
 * they are missing. NULL when no thread could be started (then there are none). */
struct stat_device *stat_device_start(perfq_t *pq, int explicit_);

/* CMD has exited: reads the counters without waiting (perfq_measurement_sample: from their
 * begin to the device sampler's newest sample) and joins the thread; when NVML was not ready
 * yet, waits for its start to end and never begins (the values are "not counted"). */
void stat_device_stop(struct stat_device *d);

/* After stat_device_stop: the counters, available first; values[i] for i < *n_measured.
 * begin_ns: CLOCK_MONOTONIC at their begin, 0 when they never began. */
void stat_device_result(const struct stat_device *d, const perfq_counter_id_t **ids,
                        size_t *n, size_t *n_measured, const perfq_value_t **values,
                        uint64_t *begin_ns);

/* 1 when the counters were begun and read: their measurement (NVML's sampler) is still open
 * until stat_device_free. */
int stat_device_counting(const struct stat_device *d);

void stat_device_free(struct stat_device **d);

#endif
