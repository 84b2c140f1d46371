/*
 * Provider "cupti": device-wide hardware counters of every NVIDIA GPU from CUPTI PM sampling
 * (cupti_pm.c), for any program on the device (GL, OpenCL, CUDA). One group per CUDA device,
 * "cupti-gpuN" (N the CUDA device index); without the driver or CUPTI, the single group "cupti"
 * is listed unavailable with the reason. A counter the device refuses (unsupported metric, no
 * permission, counters held by another process) is listed unavailable with CUPTI's message.
 * Values are sums of the PM samples that overlap [begin, end] (cupti_pm.c says why whole).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"
#include "providers/cupti_pm.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct perfq_counter_desc counters[CUPTI_METRICS] = {
    {"sm__cycles_active.avg", "SM", "Cycles with at least one warp in flight, averaged over "
     "the SMs, summed over the interval's PM samples; PM sampling loses SM counts (short work can "
     "read far low at the default 1 ms samples; PERFQ_CUPTI_INTERVAL_US=100 for short work)",
     PERFQ_UNIT_CYCLES, PERFQ_STORAGE_FLOAT64,
     PERFQ_INTEL_EVENT, 0, 0, 1, 0, 0},
    {"dram__bytes_read.sum", "DRAM", "Bytes read from device memory (DRAM/HBM)",
     PERFQ_UNIT_BYTES, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 1, 0},
    {"dram__bytes_write.sum", "DRAM", "Bytes written to device memory (DRAM/HBM)",
     PERFQ_UNIT_BYTES, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 2, 0},
    {"smsp__inst_executed.sum", "SM", "Warp instructions executed, all SM sub-partitions; PM "
     "sampling loses SM counts (short work can read far low at the default 1 ms samples; "
     "PERFQ_CUPTI_INTERVAL_US=100 for short work)",
     PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 3, 0},
};

struct cupti_state {
    const struct cupti_global *g;
    struct perfq_counter_desc descs[CUPTI_MAX_DEVICES][CUPTI_METRICS];   /* code2: device */
};

static perfq_status_t cupti_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    struct cupti_state *st = calloc(1, sizeof(*st));
    if (!st)
        return PERFQ_ENOMEM;
    if (perfq__cupti_acquire(&st->g, reason, size)) {
        free(st);
        return PERFQ_ENOTSUP;
    }
    for (unsigned d = 0; d < CUPTI_MAX_DEVICES; d++)
        for (int m = 0; m < CUPTI_METRICS; m++) {
            st->descs[d][m] = counters[m];
            st->descs[d][m].code2 = d;
        }
    *state = st;
    return PERFQ_OK;
}

static perfq_status_t cupti_enumerate(void *state, struct perfq_catalog *catalog,
                                      const char *probe_reason)
{
    struct cupti_state *st = state;
    char name[32], description[256];
    if (!st) {
        struct perfq_group_desc group = {"cupti", "GPU hardware counters from CUPTI PM "
                                         "sampling, one group per CUDA device (cupti-gpu0, "
                                         "cupti-gpu1...) where the driver and CUPTI are present",
                                         PERFQ_SCOPE_DEVICE, 0};
        return perfq_catalog_add_table(catalog, &group, counters, ARRAY_SIZE(counters),
                                       probe_reason);
    }
    perfq_status_t s = PERFQ_OK;
    for (unsigned d = 0; d < st->g->device_count && s == PERFQ_OK; d++) {
        const struct cupti_device_info *dev = &st->g->dev[d];
        snprintf(name, sizeof(name), "cupti-gpu%u", d);
        snprintf(description, sizeof(description), "Hardware counters of CUDA device %u (%s) "
                 "from CUPTI PM sampling, device-wide (every context and process)%s", d,
                 dev->chip[0] ? dev->chip : "unknown chip",
                 dev->passes == 1 ? ", one pass" : "");
        struct perfq_group_desc group = {name, description, PERFQ_SCOPE_DEVICE, 0};
        uint32_t gi;
        s = perfq_catalog_add_group(catalog, &group, NULL, &gi);
        for (int m = 0; m < CUPTI_METRICS && s == PERFQ_OK; m++)
            s = perfq_catalog_add_counter(catalog, gi, &st->descs[d][m], dev->reason[m]);
    }
    return s;
}

static void cupti_close(void *state)
{
    free(state);
    perfq__cupti_release();
}

struct cupti_session {
    size_t count;
    int metric[CUPTI_MAX_DEVICES * CUPTI_METRICS];
    unsigned dev[CUPTI_MAX_DEVICES * CUPTI_METRICS];
    perfq_storage_t storage[CUPTI_MAX_DEVICES * CUPTI_METRICS];
    unsigned need;
    struct cupti_anchor begin, end;
    int started;
    int open;        /* between begin and end: perfq__cupti_interval counts it */
};

static perfq_status_t cupti_session_open(void *state, const struct perfq_session_request *req,
                                         void **session)
{
    (void)state;   /* device-wide counters: any target */
    if (req->count > CUPTI_MAX_DEVICES * CUPTI_METRICS)
        return PERFQ_EINVAL;
    struct cupti_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++) {
        s->metric[i] = (int)req->counters[i]->code;
        s->dev[i] = (unsigned)req->counters[i]->code2;
        s->storage[i] = req->counters[i]->storage;
        if (s->metric[i] < 0 || s->metric[i] >= CUPTI_METRICS || s->dev[i] >= CUPTI_MAX_DEVICES) {
            free(s);
            return PERFQ_EINVAL;
        }
        s->need |= 1u << s->dev[i];
    }
    s->begin.need = s->end.need = s->need;
    perfq_status_t st = (perfq_status_t)perfq__cupti_start(s->need);
    if (st != PERFQ_OK) {
        free(s);
        return st;
    }
    s->started = 1;
    *session = s;
    return PERFQ_OK;
}

static void cupti_session_close(void *session)
{
    struct cupti_session *s = session;
    perfq__cupti_anchor_cancel(&s->begin);
    perfq__cupti_anchor_cancel(&s->end);
    if (s->open)
        perfq__cupti_interval(s->need, 0);
    if (s->started)
        perfq__cupti_stop(s->need);
    free(s);
}

static perfq_status_t cupti_begin(void *session)
{
    struct cupti_session *s = session;
    perfq__cupti_anchor_cancel(&s->end);
    if (!s->open) {   /* open before the anchor is posted: no sample after it is skipped */
        perfq__cupti_interval(s->need, 1);
        s->open = 1;
    }
    perfq__cupti_anchor_post(&s->begin, 0);
    return PERFQ_OK;
}

static perfq_status_t cupti_end(void *session)
{
    struct cupti_session *s = session;
    perfq__cupti_anchor_post(&s->end, 1);
    if (s->open) {    /* closed after: the pending end anchor keeps its samples evaluated */
        perfq__cupti_interval(s->need, 0);
        s->open = 0;
    }
    return PERFQ_OK;
}

static void compute(const struct cupti_session *s, const struct cupti_anchor *b,
                    double e[CUPTI_MAX_DEVICES][CUPTI_METRICS],
                    const uint64_t e_lost[CUPTI_MAX_DEVICES], perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        perfq_value_t *v = &values[i];
        memset(v, 0, sizeof(*v));
        unsigned d = s->dev[i];
        /* Samples lost between the ends (hardware buffer overflow, a failed decode): no
         * value rather than a low one. */
        if (b->pending & (1u << d) || e_lost[d] != b->lost[d]) {
            v->flags = PERFQ_VALUE_NOT_COUNTED;
            continue;
        }
        double delta = e[d][s->metric[i]] - b->value[d][s->metric[i]];
        if (delta < 0)
            delta = 0;
        if (s->storage[i] == PERFQ_STORAGE_FLOAT64)
            v->v.f64 = delta;
        else
            v->v.u64 = (uint64_t)(delta + 0.5);
    }
}

static perfq_status_t cupti_sample(void *session, perfq_value_t *values)
{
    /* From memory: the running sums at the newest decoded sample (no CUPTI call). */
    struct cupti_session *s = session;
    double now[CUPTI_MAX_DEVICES][CUPTI_METRICS] = {{0}};
    uint64_t lost[CUPTI_MAX_DEVICES] = {0};
    perfq__cupti_read_now(s->need, now, lost);
    struct cupti_anchor b;
    perfq__cupti_anchor_read(&s->begin, &b);
    compute(s, &b, now, lost, values);
    return PERFQ_OK;
}

static perfq_status_t cupti_result(void *session, int wait, perfq_value_t *values)
{
    struct cupti_session *s = session;
    int rc = perfq__cupti_anchor_wait(&s->begin, wait);
    if (rc == 0)
        rc = perfq__cupti_anchor_wait(&s->end, wait);
    if (rc < 0)
        return PERFQ_ESYS;
    if (rc > 0)
        return PERFQ_NOT_READY;
    compute(s, &s->begin, s->end.value, s->end.lost, values);
    return PERFQ_OK;
}

const struct perfq_provider_ops perfq_cupti_provider = {
    .name = "cupti",
    .probe = cupti_probe,
    .enumerate = cupti_enumerate,
    .session_open = cupti_session_open,
    .begin = cupti_begin,
    .sample = cupti_sample,
    .end = cupti_end,
    .result = cupti_result,
    .session_close = cupti_session_close,
    .close = cupti_close,
    /* Its probe initialises CUDA and CUPTI (seconds): probed when the whole catalog is read. */
    .deferred_max_groups = CUPTI_MAX_DEVICES,
    .deferred_max_counters = CUPTI_MAX_DEVICES * CUPTI_METRICS,
};
