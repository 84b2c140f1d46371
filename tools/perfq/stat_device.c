/*
 * perfq stat's device counters (docs/perfq-stat.md, "Device counters"): every available counter
 * of the NVIDIA providers nvml and gpm (nvml-gpuN, gpm-gpuN). They count the device, whoever
 * uses it, so they work for any command. NVML's start costs about 30 ms of CPU and 56 ms of
 * wall on an H100: done on this thread, while CMD starts and runs, so that CMD never waits for
 * it. The counters begin when NVML is ready and are read at CMD's exit with
 * perfq_measurement_sample, which does not wait for a sample after the end: they cover from
 * their begin (reported relative to CMD's start) to the sampler's newest sample at CMD's exit
 * (at most one fast period, 20 ms, before it; nvml-gpuN/sample-age says how far). A CMD that
 * ends before NVML is ready waits for NVML's start to end (the thread is joined, never left
 * inside NVML at exit) and its device counters are "not counted". Once they were counted,
 * perfq leaves after its report without stopping NVML's sampler or shutting NVML down (about
 * 5 ms of wall on the H100, docs/perfq-stat.md): cmd_stat.c ends with _exit there.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stat_device.h"

struct stat_device {
    perfq_t *pq;
    int explicit_;
    pthread_t thread;
    pthread_mutex_t lock;
    int stop;                    /* CMD exited: do not begin any more */
    perfq_measurement_t *m;      /* begun (under lock) */
    perfq_counter_id_t *ids;     /* available ones first */
    size_t n, n_measured;
    perfq_value_t *values;
    uint64_t begin_ns;
};

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int stopped(struct stat_device *d)
{
    pthread_mutex_lock(&d->lock);
    int s = d->stop;
    pthread_mutex_unlock(&d->lock);
    return s;
}

int stat_device_counter(const perfq_group_info_t *gi, const perfq_counter_info_t *ci)
{
    if (gi->scope != PERFQ_SCOPE_DEVICE || !gi->provider ||
        (strcmp(gi->provider, "nvml") != 0 && strcmp(gi->provider, "gpm") != 0))
        return 0;
    /* NVML's PCIe throughput: each of its two reads blocks NVML's sampler about 20 ms (the
     * fast gauges wait meanwhile), the first at once when the counters begin, and perfq's exit
     * joins the sampler, so a short CMD's run could end waiting for one. GPM's pcie-tx and
     * pcie-rx (from GPM samples, 52 us each) stay; NVML's are counted when named with -e. */
    return !(strcmp(gi->provider, "nvml") == 0 &&
             (strcmp(ci->name, "pcie-tx") == 0 || strcmp(ci->name, "pcie-rx") == 0));
}

static void *device_main(void *arg)
{
    struct stat_device *d = arg;
    /* Deferred providers (perfq.h): NVML's are probed here, CUPTI's not (cupti-gpuN: -e). A
     * failure leaves their groups out or unavailable, as for any provider. */
    perfq_catalog_probe(d->pq, "nvml");
    /* CMD already ended: the counters are listed (not counted), without GPM's probe. */
    if (!stopped(d))
        perfq_catalog_probe(d->pq, "gpm");
    uint32_t count = 0;
    perfq_catalog_probed(d->pq, NULL, &count);
    d->ids = calloc(count ? count : 1, sizeof(*d->ids));
    if (!d->ids)
        return NULL;
    /* Available ones first, then (--device only) the unavailable ones, for their reason. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t id = 0; id < count; id++) {
            perfq_counter_info_t ci;
            perfq_group_info_t gi;
            if (perfq_counter_info(d->pq, id, &ci) != PERFQ_OK ||
                perfq_group_info(d->pq, ci.group, &gi) != PERFQ_OK || !stat_device_counter(&gi, &ci))
                continue;
            if (pass == 0 ? ci.available : !ci.available && d->explicit_)
                d->ids[d->n++] = id;
        }
        if (pass == 0)
            d->n_measured = d->n;
    }
    if (!d->n_measured || stopped(d))
        return NULL;
    perfq_measurement_t *m = NULL;
    if (perfq_measurement_create(d->pq, d->ids, d->n_measured, NULL, &m) != PERFQ_OK)
        return NULL;
    if (perfq_measurement_begin(m) != PERFQ_OK) {
        perfq_measurement_destroy(&m);
        return NULL;
    }
    uint64_t t = monotonic_ns();
    pthread_mutex_lock(&d->lock);
    if (!d->stop) {
        d->m = m;
        d->begin_ns = t;
        m = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    if (m)
        perfq_measurement_destroy(&m);   /* CMD ended while it began: it covers none of it */
    return NULL;
}

struct stat_device *stat_device_start(perfq_t *pq, int explicit_)
{
    struct stat_device *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->pq = pq;
    d->explicit_ = explicit_;
    pthread_mutex_init(&d->lock, NULL);
    if (pthread_create(&d->thread, NULL, device_main, d) != 0) {
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    return d;
}

void stat_device_stop(struct stat_device *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    perfq_measurement_t *m = d->m;
    pthread_mutex_unlock(&d->lock);
    /* Read first (at CMD's exit), join after. d->n_measured was written before d->m (the lock
     * orders them). */
    perfq_value_t *values = NULL;
    int read = 0;
    if (m && (values = calloc(d->n_measured, sizeof(*values)))) {
        read = perfq_measurement_sample(m, values, d->n_measured) == PERFQ_OK;
        /* A provider that cannot be read while counting: its result after the end. */
        if (!read)
            read = perfq_measurement_end(m) == PERFQ_OK &&
                   perfq_measurement_result(m, PERFQ_RESULT_WAIT, values, d->n_measured) ==
                       PERFQ_OK;
    }
    pthread_join(d->thread, NULL);
    if (!values)
        values = calloc(d->n_measured ? d->n_measured : 1, sizeof(*values));
    if (!values) {
        d->n = d->n_measured = 0;   /* out of memory: none reported */
    } else if (!read) {
        /* Never begun (NVML not ready when CMD ended), or unreadable: not counted. */
        for (size_t i = 0; i < d->n_measured; i++) {
            memset(&values[i], 0, sizeof(values[i]));
            values[i].flags = PERFQ_VALUE_NOT_COUNTED;
        }
    }
    d->values = values;
    /* The measurement stays open (its sampler too) until stat_device_free, or until perfq
     * leaves with stat_device_leave. */
}

int stat_device_counting(const struct stat_device *d)
{
    return d && d->m;
}

void stat_device_result(const struct stat_device *d, const perfq_counter_id_t **ids,
                        size_t *n, size_t *n_measured, const perfq_value_t **values,
                        uint64_t *begin_ns)
{
    *ids = d ? d->ids : NULL;
    *n = d ? d->n : 0;
    *n_measured = d ? d->n_measured : 0;
    *values = d ? d->values : NULL;
    *begin_ns = d ? d->begin_ns : 0;
}

void stat_device_free(struct stat_device **d)
{
    if (!d || !*d)
        return;
    perfq_measurement_destroy(&(*d)->m);
    pthread_mutex_destroy(&(*d)->lock);
    free((*d)->ids);
    free((*d)->values);
    free(*d);
    *d = NULL;
}
