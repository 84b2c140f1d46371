/*
 * What the "nvml" and "gpm" providers share: the process's one copy of libnvidia-ml (opened
 * with dlopen, nvml_lib.c) and its one sampler thread (nvml_sampler.c), which reads every
 * device on fixed cadences and keeps, per device and channel, the time integral of the value
 * up to the newest sample. A measurement's begin and end post an "anchor" (a CLOCK_MONOTONIC
 * time); the sampler resolves each anchor from the two samples around its time, so reading a
 * counter never calls NVML. docs/nvidia-providers.md describes cadences and interpolation.
 */
#ifndef PERFQ_PROVIDERS_NVML_SHARED_H
#define PERFQ_PROVIDERS_NVML_SHARED_H

#include <stddef.h>
#include <stdint.h>

#include "providers/nvml_api.h"

#define NVML_MAX_DEVICES 8

/* Channels of one device. Gauges are integrated piecewise-linearly between samples; GPM
 * metrics are averages over the interval between two GPM samples, integrated as steps; the
 * energy channel is the driver's total-energy counter (see nvml_sampler.c); counts are
 * cumulative event counts. */
enum nvml_channel {
    CH_POWER,          /* W */
    CH_ENERGY,         /* J (cumulative) */
    CH_SM_CLOCK,       /* Hz */
    CH_MEM_CLOCK,      /* Hz */
    CH_GPU_UTIL,       /* % */
    CH_MEM_UTIL,       /* % */
    CH_TEMP,           /* K */
    CH_MEM_USED,       /* bytes */
    CH_PCIE_TX,        /* bytes/s */
    CH_PCIE_RX,        /* bytes/s */
    CH_THROTTLED,      /* count of samples with a clock-limiting event reason */
    CH_CLOCK_CHANGES,  /* count of samples whose SM or memory clock differed from the last */
    CH_SAMPLES,        /* count of fast-cadence samples */
    CH_GPM_FIRST,      /* GPM metrics, in the order of perfq__gpm_metric_ids */
    CH_COUNT = CH_GPM_FIRST + PERFQ_GPM_METRICS_MAX,
};

#define CH_BIT(c) (1ull << (c))
#define CH_GPM_MASK (((1ull << PERFQ_GPM_METRICS_MAX) - 1) << CH_GPM_FIRST)
#define CH_PCIE_MASK (CH_BIT(CH_PCIE_TX) | CH_BIT(CH_PCIE_RX))
#define CH_COUNT_MASK (CH_BIT(CH_THROTTLED) | CH_BIT(CH_CLOCK_CHANGES) | CH_BIT(CH_SAMPLES))

/* The GPM metric id of each GPM channel. */
extern const unsigned int perfq__gpm_metric_ids[PERFQ_GPM_METRICS_MAX];

/* The loaded library: function pointers, filled by perfq__nvml_acquire. */
struct nvml_fns {
#define PERFQ_NVML_FN(name, ret, args) ret(*name) args;
    PERFQ_NVML_FUNCTIONS(PERFQ_NVML_FN, PERFQ_NVML_FN)
#undef PERFQ_NVML_FN
};

struct nvml_device_info {
    nvmlDevice_t handle;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    /* Per channel: NULL where the channel reads on this device, else why not. */
    const char *reason[CH_COUNT];
    int power_instant;        /* power from the instant field, not the 1 s average */
    int gpm_supported;
};

struct nvml_global {
    struct nvml_fns fn;
    unsigned device_count;
    struct nvml_device_info dev[NVML_MAX_DEVICES];
};

/* Opens and initialises NVML once per process (reference counted; each successful call is
 * matched by perfq__nvml_release). On failure returns -1 and writes why. */
int perfq__nvml_acquire(const struct nvml_global **g, char *reason, size_t size);
void perfq__nvml_release(void);

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t perfq__nvml_now(void);

/* A point in time whose channel integrals the sampler fills in. */
struct nvml_anchor {
    uint64_t t;                                  /* CLOCK_MONOTONIC ns */
    int is_end;
    uint64_t need[NVML_MAX_DEVICES];             /* channels asked for */
    uint64_t pending[NVML_MAX_DEVICES];          /* of those, not resolved yet */
    uint64_t failed[NVML_MAX_DEVICES];           /* of those, NVML gave no valid value */
    double value[NVML_MAX_DEVICES][CH_COUNT];    /* integral (or count) at t */
    uint64_t age[NVML_MAX_DEVICES];              /* t minus the newest fast sample before t */
    struct nvml_anchor *next;                    /* in the sampler's pending list */
    int posted;
};

/* Counts a user of the sampler for the channels in need[] (starting its thread if needed) and
 * waits until each of those channels has a first sample. Returns 0, or -1 (nothing held). */
int perfq__nvml_sampler_start(const uint64_t need[NVML_MAX_DEVICES]);
void perfq__nvml_sampler_stop(const uint64_t need[NVML_MAX_DEVICES]);

/* Posts an anchor at the current time (need[] set by the caller). */
void perfq__nvml_anchor_post(struct nvml_anchor *a, int is_end);
/* 0: resolved; 1: pending (wait == 0); -1: the sampler gave no sample in time. */
int perfq__nvml_anchor_wait(struct nvml_anchor *a, int wait);
/* Takes an anchor off the pending list (session close). */
void perfq__nvml_anchor_cancel(struct nvml_anchor *a);
/* For sample(): *now gets the channel values at the current time, extrapolated from the newest
 * samples; *begin_now gets the begin anchor's values, extrapolated where still pending. */
void perfq__nvml_read_now(const struct nvml_anchor *begin, struct nvml_anchor *begin_now,
                          struct nvml_anchor *now);

#endif
