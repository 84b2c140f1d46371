/* Sessions shared by the "nvml" and "gpm" providers (nvml_session.h): begin and end post
 * anchors to the sampler thread; sample and result compute from memory, never calling NVML.
 * result() covers [begin, end], both ends interpolated between the samples around them;
 * sample() covers [begin, newest fast sample], so it reads "not counted" until the sampler
 * has sampled once after begin (at most one fast period, 20 ms by default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/nvml_session.h"

perfq_status_t perfq__nvml_probe(const struct perfq_counter_desc *table, size_t count,
                                 void **state, char *reason, size_t size)
{
    struct nvml_provider_state *st = calloc(1, sizeof(*st));
    if (!st)
        return PERFQ_ENOMEM;
    if (perfq__nvml_acquire(&st->g, reason, size)) {
        free(st);
        return PERFQ_ENOTSUP;
    }
    st->descs = calloc((size_t)st->g->device_count * count, sizeof(*st->descs));
    if (!st->descs) {
        perfq__nvml_release();
        free(st);
        return PERFQ_ENOMEM;
    }
    for (unsigned d = 0; d < st->g->device_count; d++)
        for (size_t i = 0; i < count; i++) {
            st->descs[d * count + i] = table[i];
            st->descs[d * count + i].code2 = d;
        }
    *state = st;
    return PERFQ_OK;
}

void perfq__nvml_close(void *state)
{
    struct nvml_provider_state *st = state;
    free(st->descs);
    free(st);
    perfq__nvml_release();
}

/* The channel whose availability decides a counter's. */
static int gate_channel(uint64_t code)
{
    int kind = NVML_CODE_KIND(code);
    return kind == KIND_AGE ? CH_POWER : NVML_CODE_CHANNEL(code);
}

perfq_status_t perfq__nvml_enumerate(struct nvml_provider_state *st,
                                     struct perfq_catalog *catalog, const char *probe_reason,
                                     const char *prefix, const char *what,
                                     const struct perfq_counter_desc *table, size_t count,
                                     int gpm)
{
    char name[32], description[256];
    if (!st) {
        snprintf(description, sizeof(description), "%s, one group per NVIDIA device (%s-gpu0, "
                 "%s-gpu1...) where the driver is present", what, prefix, prefix);
        struct perfq_group_desc group = {name, description, PERFQ_SCOPE_DEVICE, 0};
        snprintf(name, sizeof(name), "%s", prefix);
        return perfq_catalog_add_table(catalog, &group, table, count, probe_reason);
    }
    perfq_status_t s = PERFQ_OK;
    for (unsigned d = 0; d < st->g->device_count && s == PERFQ_OK; d++) {
        const struct nvml_device_info *dev = &st->g->dev[d];
        snprintf(name, sizeof(name), "%s-gpu%u", prefix, d);
        snprintf(description, sizeof(description), "%s of NVML device %u, %s%s%s%s", what, d,
                 dev->name, dev->uuid[0] ? " (" : "", dev->uuid, dev->uuid[0] ? ")" : "");
        struct perfq_group_desc group = {name, description, PERFQ_SCOPE_DEVICE, 0};
        const char *group_reason = gpm && !dev->gpm_supported ? dev->reason[CH_GPM_FIRST]
                                                              : NULL;
        uint32_t gi;
        s = perfq_catalog_add_group(catalog, &group, group_reason, &gi);
        for (size_t i = 0; i < count && s == PERFQ_OK; i++) {
            const struct perfq_counter_desc *c = &st->descs[d * count + i];
            s = perfq_catalog_add_counter(catalog, gi, c, dev->reason[gate_channel(c->code)]);
        }
    }
    return s;
}

struct nvml_session {
    size_t count;
    int *channel, *kind, *dev;
    uint64_t need[NVML_MAX_DEVICES];
    struct nvml_anchor begin, end, begin_now, now;
    int started;
};

perfq_status_t perfq__nvml_session_open(void *state, const struct perfq_session_request *req,
                                        void **session)
{
    (void)state;   /* device counters count the device whoever uses it: any target */
    struct nvml_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    s->channel = calloc(req->count, sizeof(int));
    s->kind = calloc(req->count, sizeof(int));
    s->dev = calloc(req->count, sizeof(int));
    if (!s->channel || !s->kind || !s->dev) {
        perfq__nvml_session_close(s);
        return PERFQ_ENOMEM;
    }
    for (size_t i = 0; i < req->count; i++) {
        uint64_t code = req->counters[i]->code;
        unsigned d = (unsigned)req->counters[i]->code2;
        if (d >= NVML_MAX_DEVICES) {
            perfq__nvml_session_close(s);
            return PERFQ_EINVAL;
        }
        s->channel[i] = NVML_CODE_CHANNEL(code);
        s->kind[i] = NVML_CODE_KIND(code);
        s->dev[i] = (int)d;
        s->need[d] |= CH_BIT(s->channel[i]);
        if (s->kind[i] == KIND_ENERGY || s->kind[i] == KIND_AGE)
            s->need[d] |= CH_BIT(CH_POWER);
    }
    memcpy(s->begin.need, s->need, sizeof(s->need));
    memcpy(s->end.need, s->need, sizeof(s->need));
    if (perfq__nvml_sampler_start(s->need)) {
        perfq__nvml_session_close(s);
        return PERFQ_ESYS;
    }
    s->started = 1;
    *session = s;
    return PERFQ_OK;
}

void perfq__nvml_session_close(void *session)
{
    struct nvml_session *s = session;
    perfq__nvml_anchor_cancel(&s->begin);
    perfq__nvml_anchor_cancel(&s->end);
    if (s->started)
        perfq__nvml_sampler_stop(s->need);
    free(s->channel);
    free(s->kind);
    free(s->dev);
    free(s);
}

perfq_status_t perfq__nvml_begin(void *session)
{
    struct nvml_session *s = session;
    perfq__nvml_anchor_cancel(&s->end);
    perfq__nvml_anchor_post(&s->begin, 0);
    return PERFQ_OK;
}

perfq_status_t perfq__nvml_end(void *session)
{
    struct nvml_session *s = session;
    perfq__nvml_anchor_post(&s->end, 1);
    return PERFQ_OK;
}

static void compute(const struct nvml_session *s, const struct nvml_anchor *b,
                    const struct nvml_anchor *e, const uint64_t *has_value,
                    perfq_value_t *values)
{
    double seconds = e->t > b->t ? (double)(e->t - b->t) / 1e9 : 0;
    for (size_t i = 0; i < s->count; i++) {
        perfq_value_t *v = &values[i];
        memset(v, 0, sizeof(*v));
        if (seconds == 0) {
            /* A sample() before the sampler's first sample after begin: no interval yet. */
            v->flags = PERFQ_VALUE_NOT_COUNTED;
            continue;
        }
        int c = s->channel[i], d = s->dev[i];
        double delta = e->value[d][c] - b->value[d][c];
        if ((b->failed[d] | e->failed[d]) & CH_BIT(c)) {
            v->flags = PERFQ_VALUE_NOT_COUNTED;   /* NVML gave no valid value at an end */
            continue;
        }
        switch (s->kind[i]) {
        case KIND_MEAN:
            if (seconds > 0 && (!has_value || (has_value[d] & CH_BIT(c))))
                v->v.f64 = delta / seconds;
            else
                v->flags = PERFQ_VALUE_NOT_COUNTED;
            break;
        case KIND_ENERGY:
            v->v.f64 = delta;
            break;
        case KIND_FLAG:
            v->v.u32 = delta > 0;
            break;
        case KIND_COUNT:
            v->v.u64 = delta > 0 ? (uint64_t)(delta + 0.5) : 0;
            break;
        case KIND_AGE:
            v->v.u64 = b->age[d] > e->age[d] ? b->age[d] : e->age[d];
            break;
        }
    }
}

perfq_status_t perfq__nvml_sample(void *session, perfq_value_t *values)
{
    struct nvml_session *s = session;
    perfq__nvml_read_now(&s->begin, &s->begin_now, &s->now);
    compute(s, &s->begin_now, &s->now, s->now.need, values);
    return PERFQ_OK;
}

perfq_status_t perfq__nvml_result(void *session, int wait, perfq_value_t *values)
{
    struct nvml_session *s = session;
    int rc = perfq__nvml_anchor_wait(&s->begin, wait);
    if (rc == 0)
        rc = perfq__nvml_anchor_wait(&s->end, wait);
    if (rc < 0)
        return PERFQ_ESYS;
    if (rc > 0)
        return PERFQ_NOT_READY;
    compute(s, &s->begin, &s->end, NULL, values);
    return PERFQ_OK;
}
