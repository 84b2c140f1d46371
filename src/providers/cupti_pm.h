/*
 * CUPTI PM sampling, shared by every "cupti" session of the process: libcuda.so.1 and libcupti
 * opened once with dlopen (no NVIDIA header at build time: cupti_api.h), and one decoder thread
 * ("perfq-cupti") that, while any session uses a device, decodes that device's PM samples every
 * few milliseconds and keeps per metric the running sum of the sampled values. A session's begin
 * and end post anchors (CLOCK_MONOTONIC times); the thread resolves each from the sample that
 * contains it (a sample overlapping an interval counts whole), so reading a counter never calls
 * CUPTI. docs/nvidia-providers.md.
 */
#ifndef PERFQ_PROVIDERS_CUPTI_PM_H
#define PERFQ_PROVIDERS_CUPTI_PM_H

#include <stddef.h>
#include <stdint.h>

#define CUPTI_MAX_DEVICES 8
#define CUPTI_METRICS 4

/* The PM sampling metrics, in channel order. */
extern const char *const perfq__cupti_metrics[CUPTI_METRICS];

struct cupti_device_info {
    char chip[32];
    /* NULL where the metric can be sampled on this device, else why not (per counter). */
    const char *reason[CUPTI_METRICS];
    size_t passes;              /* of the whole metric set; 1 is required */
};

struct cupti_global {
    unsigned device_count;
    struct cupti_device_info dev[CUPTI_MAX_DEVICES];
};

/* Opens the libraries and probes every device once per process (reference counted). On
 * failure returns -1 and writes why. */
int perfq__cupti_acquire(const struct cupti_global **g, char *reason, size_t size);
void perfq__cupti_release(void);

struct cupti_anchor {
    uint64_t t;                              /* CLOCK_MONOTONIC ns */
    int is_end;
    unsigned need;                           /* device bits */
    unsigned pending;                        /* of those, not resolved yet */
    double value[CUPTI_MAX_DEVICES][CUPTI_METRICS];   /* running sums at t */
    uint64_t lost[CUPTI_MAX_DEVICES];        /* the device's overflow count when resolved */
    struct cupti_anchor *next;
    int posted;
};

/* Starts PM sampling on the devices in `need` (bits) for one more user. Returns PERFQ_OK, or
 * PERFQ_EBUSY (another process holds the counters), PERFQ_ENOTSUP (no permission) or
 * PERFQ_ESYS, with nothing held; the reason is kept for the device (perfq__cupti_reason). */
int perfq__cupti_start(unsigned need);
void perfq__cupti_stop(unsigned need);

/* A session's interval opens (begin, before its anchor is posted) or closes (end, after its
 * anchor is posted; or the session closes while open). Samples are evaluated only while some
 * interval of the device is open or an anchor of it pending: the others are decoded (so the
 * hardware buffer drains) and skipped, saving their evaluation (H100, the defaults: about a
 * fifth of the decoder's CPU time; docs/nvidia-providers.md). */
void perfq__cupti_interval(unsigned need, int open);
void perfq__cupti_anchor_post(struct cupti_anchor *a, int is_end);
/* 0: resolved; 1: pending (wait == 0); -1: no sample came in time. */
int perfq__cupti_anchor_wait(struct cupti_anchor *a, int wait);
void perfq__cupti_anchor_cancel(struct cupti_anchor *a);
/* A copy of an anchor as it stands (the decoder thread may be resolving it). */
void perfq__cupti_anchor_read(const struct cupti_anchor *a, struct cupti_anchor *out);
/* The running sums at the newest decoded sample of each needed device; *lost likewise. */
void perfq__cupti_read_now(unsigned need, double value[CUPTI_MAX_DEVICES][CUPTI_METRICS],
                           uint64_t lost[CUPTI_MAX_DEVICES]);

#endif
