/* Measurements: a set of catalog counters split into one session per provider. The front door
 * validates; the sessions only ever see legal transitions (created -> active -> ended ->
 * active ...), like Mesa's Active/Ready tracking. */
#include <stdlib.h>
#include <string.h>

#include "core/instance.h"

enum measurement_state { MEASUREMENT_CREATED, MEASUREMENT_ACTIVE, MEASUREMENT_ENDED };

struct session_slot {
    struct perfq_provider_slot *provider;
    void *session;
    size_t count;
    size_t *out_index;            /* value i of this session goes to values[out_index[i]] */
    const struct perfq_counter_desc **descs;
    uint32_t *groups;
    perfq_value_t *scratch;
    int identity;                 /* out_index[i] == i: write straight into the caller's array */
};

struct perfq_measurement {
    perfq_t *pq;
    struct perfq_measurement *next;     /* in pq->measurements, under pq->measurements_lock */
    pthread_mutex_t lock;               /* protects state and the sessions' use */
    enum measurement_state state;
    size_t count;
    struct session_slot *slots;
    size_t slot_count;
};

static void slot_free(struct session_slot *s)
{
    if (s->session && s->provider->ops->session_close)
        s->provider->ops->session_close(s->session);
    free(s->out_index);
    free(s->descs);
    free(s->groups);
    free(s->scratch);
}

static void measurement_free(struct perfq_measurement *m)
{
    for (size_t i = 0; i < m->slot_count; i++) {
        if (m->state == MEASUREMENT_ACTIVE && m->slots[i].session)
            m->slots[i].provider->ops->end(m->slots[i].session);
        slot_free(&m->slots[i]);
    }
    free(m->slots);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static perfq_status_t validate_ids(const perfq_t *pq, const perfq_counter_id_t *ids, size_t n)
{
    const struct perfq_catalog *c = &pq->catalog;
    uint32_t *active = calloc(c->group_count ? c->group_count : 1, sizeof(*active));
    if (!active)
        return PERFQ_ENOMEM;
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; i < n && st == PERFQ_OK; i++) {
        if (ids[i] >= c->counter_count) {
            st = PERFQ_EINVAL;
            break;
        }
        for (size_t j = 0; j < i; j++)
            if (ids[j] == ids[i])
                st = PERFQ_EINVAL;
        const struct perfq_counter_entry *e = &c->counters[ids[i]];
        if (st == PERFQ_OK && !e->info.available)
            st = PERFQ_ENOTSUP;
        uint32_t g = e->info.group;
        uint32_t max = c->groups[g].info.max_active;
        if (st == PERFQ_OK && max && ++active[g] > max)
            st = PERFQ_EBUSY;
    }
    free(active);
    return st;
}

static perfq_status_t open_slot(perfq_t *pq, struct session_slot *s, uint32_t provider,
                                const perfq_counter_id_t *ids, size_t n,
                                const perfq_target_t *target)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += pq->catalog.counters[ids[i]].provider == provider;
    s->provider = &pq->providers[provider];
    s->count = count;
    s->out_index = calloc(count, sizeof(*s->out_index));
    s->descs = calloc(count, sizeof(*s->descs));
    s->groups = calloc(count, sizeof(*s->groups));
    s->scratch = calloc(count, sizeof(*s->scratch));
    if (!s->out_index || !s->descs || !s->groups || !s->scratch)
        return PERFQ_ENOMEM;
    s->identity = 1;
    for (size_t i = 0, k = 0; i < n; i++) {
        const struct perfq_counter_entry *e = &pq->catalog.counters[ids[i]];
        if (e->provider != provider)
            continue;
        s->out_index[k] = i;
        s->descs[k] = e->desc;
        s->groups[k] = e->info.group;
        s->identity &= i == k;
        k++;
    }
    struct perfq_session_request req = {
        .counters = s->descs, .groups = s->groups, .count = count, .target = *target,
    };
    if (!s->provider->state)
        return PERFQ_ENOTSUP;
    return s->provider->ops->session_open(s->provider->state, &req, &s->session);
}

perfq_status_t perfq_measurement_create(perfq_t *pq, const perfq_counter_id_t *ids, size_t n,
                                        const perfq_target_t *target,
                                        perfq_measurement_t **out)
{
    if (!pq || !ids || n == 0 || !out)
        return PERFQ_EINVAL;
    perfq_target_t self = {.kind = PERFQ_TARGET_SELF};
    if (!target)
        target = &self;
    if (target->kind != PERFQ_TARGET_SELF &&
        (target->kind != PERFQ_TARGET_PID || target->pid <= 0))
        return PERFQ_EINVAL;
    perfq_status_t st = validate_ids(pq, ids, n);
    if (st != PERFQ_OK)
        return st;

    struct perfq_measurement *m = calloc(1, sizeof(*m));
    if (!m)
        return PERFQ_ENOMEM;
    m->slots = calloc(pq->provider_count, sizeof(*m->slots));
    if (!m->slots || pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m->slots);
        free(m);
        return PERFQ_ENOMEM;
    }
    m->pq = pq;
    m->count = n;
    /* One session per provider, in the order providers first appear in ids. */
    for (size_t i = 0; i < n && st == PERFQ_OK; i++) {
        uint32_t p = pq->catalog.counters[ids[i]].provider;
        int seen = 0;
        for (size_t j = 0; j < m->slot_count; j++)
            seen |= m->slots[j].provider == &pq->providers[p];
        if (seen)
            continue;
        st = open_slot(pq, &m->slots[m->slot_count++], p, ids, n, target);
    }
    if (st != PERFQ_OK) {
        measurement_free(m);
        return st;
    }
    pthread_mutex_lock(&pq->measurements_lock);
    m->next = pq->measurements;
    pq->measurements = m;
    pthread_mutex_unlock(&pq->measurements_lock);
    *out = m;
    return PERFQ_OK;
}

void perfq__measurement_destroy_locked(struct perfq_measurement *m)
{
    struct perfq_measurement **link = &m->pq->measurements;
    while (*link && *link != m)
        link = &(*link)->next;
    if (*link)
        *link = m->next;
    measurement_free(m);
}

perfq_status_t perfq_measurement_destroy(perfq_measurement_t **pm)
{
    if (!pm || !*pm)
        return PERFQ_EINVAL;
    struct perfq_measurement *m = *pm;
    *pm = NULL;
    pthread_mutex_t *list_lock = &m->pq->measurements_lock;
    pthread_mutex_lock(list_lock);
    perfq__measurement_destroy_locked(m);
    pthread_mutex_unlock(list_lock);
    return PERFQ_OK;
}

perfq_status_t perfq_measurement_counter_count(const perfq_measurement_t *m, size_t *n)
{
    if (!m || !n)
        return PERFQ_EINVAL;
    *n = m->count;
    return PERFQ_OK;
}

perfq_status_t perfq_measurement_begin(perfq_measurement_t *m)
{
    if (!m)
        return PERFQ_EINVAL;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = PERFQ_OK;
    if (m->state == MEASUREMENT_ACTIVE)
        st = PERFQ_ESTATE;
    size_t begun = 0;
    for (; st == PERFQ_OK && begun < m->slot_count; begun++) {
        struct session_slot *s = &m->slots[begun];
        st = s->provider->ops->begin(s->session);
    }
    if (st == PERFQ_OK) {
        m->state = MEASUREMENT_ACTIVE;
    } else if (m->state != MEASUREMENT_ACTIVE) {
        /* Undo the sessions that did begin: the measurement stays not active. */
        for (size_t i = 0; i + 1 < begun; i++)
            m->slots[i].provider->ops->end(m->slots[i].session);
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

static void scatter(const struct session_slot *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++)
        values[s->out_index[i]] = s->scratch[i];
}

perfq_status_t perfq_measurement_sample(perfq_measurement_t *m, perfq_value_t *values, size_t n)
{
    if (!m || !values)
        return PERFQ_EINVAL;
    if (n != m->count)
        return PERFQ_EINVAL;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ACTIVE ? PERFQ_OK : PERFQ_ESTATE;
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++)
        if (!m->slots[i].provider->ops->sample)
            st = PERFQ_ENOTSUP;
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        struct session_slot *s = &m->slots[i];
        if (s->identity && m->slot_count == 1) {
            st = s->provider->ops->sample(s->session, values);
        } else {
            st = s->provider->ops->sample(s->session, s->scratch);
            if (st == PERFQ_OK)
                scatter(s, values);
        }
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

perfq_status_t perfq_measurement_end(perfq_measurement_t *m)
{
    if (!m)
        return PERFQ_EINVAL;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ACTIVE ? PERFQ_OK : PERFQ_ESTATE;
    if (st == PERFQ_OK) {
        for (size_t i = 0; i < m->slot_count; i++) {
            perfq_status_t e = m->slots[i].provider->ops->end(m->slots[i].session);
            if (e != PERFQ_OK && st == PERFQ_OK)
                st = e;
        }
        /* Ended even if a provider failed: its result will say so. */
        m->state = MEASUREMENT_ENDED;
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

perfq_status_t perfq_measurement_result(perfq_measurement_t *m, unsigned flags,
                                        perfq_value_t *values, size_t n)
{
    if (!m || !values || (flags & ~PERFQ_RESULT_WAIT))
        return PERFQ_EINVAL;
    if (n != m->count)
        return PERFQ_EINVAL;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ENDED ? PERFQ_OK : PERFQ_ESTATE;
    /* All sessions first into scratch: nothing reaches the caller unless all are ready. */
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        struct session_slot *s = &m->slots[i];
        st = s->provider->ops->result(s->session, flags & PERFQ_RESULT_WAIT, s->scratch);
    }
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++)
        scatter(&m->slots[i], values);
    pthread_mutex_unlock(&m->lock);
    return st;
}
