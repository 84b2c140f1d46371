/*
 * A bounded history of the NVML sampler's fast samples of one device (power, SM and memory
 * clocks), so that an interval which ended before it is read (an OpenCL command, known only
 * from its event's profiling once it completed) can be integrated afterwards. Pure data and
 * arithmetic, no NVML and no lock: nvml_sampler.c owns one per device and locks around it.
 */
#ifndef PERFQ_PROVIDERS_NVML_HISTORY_H
#define PERFQ_PROVIDERS_NVML_HISTORY_H

#include <stdint.h>

enum nvml_hist_channel {
    HIST_POWER,      /* W */
    HIST_SM_CLOCK,   /* Hz */
    HIST_MEM_CLOCK,  /* Hz */
    HIST_COUNT,
};

struct nvml_hist_sample {
    uint64_t t;                /* CLOCK_MONOTONIC ns, non-decreasing along the history */
    double v[HIST_COUNT];
    unsigned ok;               /* bit c: v[c] is a valid reading */
};

struct nvml_history {
    struct nvml_hist_sample *s;   /* ring of cap samples */
    unsigned cap, head, count;    /* head: where the next sample goes */
};

/* Allocates a ring of cap samples (0 on success). */
int perfq__nvml_history_init(struct nvml_history *h, unsigned cap);
void perfq__nvml_history_free(struct nvml_history *h);
/* Appends a sample, dropping the oldest when full. A sample older than the newest is stamped
 * with the newest's time (the history stays ordered). */
void perfq__nvml_history_push(struct nvml_history *h, const struct nvml_hist_sample *s);
/* The newest sample's time, 0 when empty. */
uint64_t perfq__nvml_history_newest(const struct nvml_history *h);

enum {
    HIST_OK = 0,
    HIST_PENDING = 1,   /* no sample at or after b yet: ask again after the next one */
    HIST_LOST = -1,     /* a is before the oldest sample kept, or a reading in the span failed */
};

/* Channel c over [a, b] (a <= b), the channel linear between consecutive samples:
 * *integral the integral in value x seconds, *mean the time-weighted mean (for a == b the
 * value at a), *samples the samples taken within [a, b]. Uses the samples from the last one at
 * or before a to the first one at or after b. */
int perfq__nvml_history_interval(const struct nvml_history *h, int c, uint64_t a, uint64_t b,
                                 double *integral, double *mean, unsigned *samples);

#endif
