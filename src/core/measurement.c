/* Measurements: a set of catalog counters split into one session per provider. The front door
 * validates; the sessions only ever see legal transitions (created -> active -> ended ->
 * active ...), like Mesa's Active/Ready tracking.
 *
 * A failed call changes nothing the caller can see (issue 14): sample and result write the
 * caller's array only when every session succeeded; a failed end makes result return that
 * error, never values computed from a read that did not happen; a failed re-begin leaves the
 * previous result readable. For that, begin snapshots the CPU-timeline sessions' results (cheap:
 * arithmetic on what end read) and begins them before the GPU-timeline ones, whose begin drops
 * their previous result: when a CPU-timeline session fails, no GPU-timeline session was touched.
 * Each measurement holds a reference to its instance (perfq_close only drops the caller's). */
#include <pthread.h>
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
    perfq_value_t *kept;          /* the previous result, kept across a failed re-begin */
};

struct perfq_measurement {
    perfq_t *pq;
    pthread_mutex_t lock;               /* protects state and the sessions' use */
    enum measurement_state state;
    /* PERFQ_OK, or the error result() returns instead of values: the end that failed, or the
     * re-begin that lost the previous result. Cleared by a successful begin. */
    perfq_status_t result_status;
    int kept;                     /* result() serves CPU-timeline sessions from slot.kept */
    size_t count;
    struct session_slot *slots;
    size_t slot_count;
    unsigned fork_generation;     /* perfq__fork_generation() at create */
};

/* Made before a fork() this process is the child of: the parent's (instance.h). */
static int parents(const struct perfq_measurement *m)
{
    return perfq__made_before_fork(m->fork_generation);
}

static void slot_free(struct session_slot *s)
{
    if (s->session && s->provider->ops->session_close)
        s->provider->ops->session_close(s->session);
    free(s->out_index);
    free(s->descs);
    free(s->groups);
    free(s->scratch);
    free(s->kept);
}

static void measurement_free(struct perfq_measurement *m)
{
    if (parents(m)) {
        /* A fork child's copy: no provider call (an end would disable the parent's counters,
         * perf's being shared with it) and no lock (a thread the child lacks may hold it);
         * the fds stay open until the child execs or exits. */
        for (size_t i = 0; i < m->slot_count; i++) {
            m->slots[i].session = NULL;
            slot_free(&m->slots[i]);
        }
        free(m->slots);
        perfq_t *pq = m->pq;
        free(m);
        perfq__instance_unref(pq);
        return;
    }
    for (size_t i = 0; i < m->slot_count; i++) {
        if (m->state == MEASUREMENT_ACTIVE && m->slots[i].session)
            m->slots[i].provider->ops->end(m->slots[i].session);
        slot_free(&m->slots[i]);
    }
    free(m->slots);
    pthread_mutex_destroy(&m->lock);
    perfq_t *pq = m->pq;
    free(m);
    if (pq)
        perfq__instance_unref(pq);
}

static perfq_status_t validate_ids(const perfq_t *pq, const perfq_counter_id_t *ids, size_t n)
{
    const struct perfq_catalog *c = &pq->catalog;
    for (size_t i = 0; i < n; i++)
        if (!perfq__catalog_has_counter(pq, ids[i]))
            return PERFQ_EINVAL;
    /* Counters first: the groups published with them are then all there. */
    uint32_t counters = perfq__catalog_counters(c), groups = perfq__catalog_groups(c);
    uint32_t *active = calloc(groups ? groups : 1, sizeof(*active));
    if (!active)
        return PERFQ_ENOMEM;
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; i < n && st == PERFQ_OK; i++) {
        if (ids[i] >= counters) {
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
    s->kept = calloc(count, sizeof(*s->kept));
    if (!s->out_index || !s->descs || !s->groups || !s->scratch || !s->kept)
        return PERFQ_ENOMEM;
    for (size_t i = 0, k = 0; i < n; i++) {
        const struct perfq_counter_entry *e = &pq->catalog.counters[ids[i]];
        if (e->provider != provider)
            continue;
        s->out_index[k] = i;
        s->descs[k] = e->desc;
        s->groups[k] = e->info.group;
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
    if (target->kind != PERFQ_TARGET_SELF && target->kind != PERFQ_TARGET_PROCESS &&
        (target->kind != PERFQ_TARGET_PID || target->pid <= 0))
        return PERFQ_EINVAL;
    if (!perfq__pid_exists(target))
        return PERFQ_EINVAL;   /* whatever the counters: not only where a provider asks */
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
    m->pq = perfq__instance_ref(pq);
    m->count = n;
    m->fork_generation = perfq__fork_generation();
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
    *out = m;
    return PERFQ_OK;
}

perfq_status_t perfq_measurement_destroy(perfq_measurement_t **pm)
{
    if (!pm || !*pm)
        return PERFQ_EINVAL;
    struct perfq_measurement *m = *pm;
    *pm = NULL;
    measurement_free(m);   /* drops its reference: the instance goes with the last one */
    return PERFQ_OK;
}

perfq_status_t perfq_measurement_counter_count(const perfq_measurement_t *m, size_t *n)
{
    if (!m || !n)
        return PERFQ_EINVAL;
    *n = m->count;
    return PERFQ_OK;
}

/* CPU-timeline sessions (they can be sampled) begin first: see the top of this file. */
static int cpu_timeline(const struct session_slot *s)
{
    return s->provider->ops->sample != NULL;
}

/* Before a re-begin: the CPU-timeline sessions' current result into slot.kept. */
static perfq_status_t keep_previous(struct perfq_measurement *m)
{
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        struct session_slot *s = &m->slots[i];
        if (cpu_timeline(s))
            st = s->provider->ops->result(s->session, 0, s->kept);
    }
    return st;
}

perfq_status_t perfq_measurement_begin(perfq_measurement_t *m)
{
    if (!m)
        return PERFQ_EINVAL;
    if (parents(m))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&m->lock);
    if (m->state == MEASUREMENT_ACTIVE) {
        pthread_mutex_unlock(&m->lock);
        return PERFQ_ESTATE;
    }
    /* A result worth keeping: ended without error and not already kept from an earlier failed
     * begin (the sessions' own state is then stale). */
    perfq_status_t keep = PERFQ_ESTATE;
    if (m->state == MEASUREMENT_ENDED && m->result_status == PERFQ_OK)
        keep = m->kept ? PERFQ_OK : keep_previous(m);
    perfq_status_t st = PERFQ_OK;
    const struct session_slot *failed = NULL;
    for (int pass = 0; pass < 2 && !failed; pass++) {
        for (size_t i = 0; i < m->slot_count && !failed; i++) {
            struct session_slot *s = &m->slots[i];
            if (cpu_timeline(s) != (pass == 0))
                continue;
            st = s->provider->ops->begin(s->session);
            if (st != PERFQ_OK)
                failed = s;
        }
    }
    if (st == PERFQ_OK) {
        m->state = MEASUREMENT_ACTIVE;
        m->result_status = PERFQ_OK;
        m->kept = 0;
    } else {
        /* Undo the sessions that did begin (in the same order, up to the failed one): the
         * measurement stays not active. */
        int gpu_begun = !cpu_timeline(failed);   /* its begin may have dropped its result */
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < m->slot_count; i++) {
                struct session_slot *s = &m->slots[i];
                if (cpu_timeline(s) != (pass == 0))
                    continue;
                if (s == failed)
                    goto undone;
                s->provider->ops->end(s->session);
                gpu_begun |= pass == 1;
            }
        }
    undone:
        if (m->state == MEASUREMENT_ENDED && m->result_status == PERFQ_OK) {
            if (keep == PERFQ_OK && !gpu_begun)
                m->kept = 1;            /* result() still gives the previous values */
            else
                m->result_status = st;  /* the previous result is gone: say why */
        }
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

static void scatter(const struct session_slot *s, const perfq_value_t *from,
                    perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++)
        values[s->out_index[i]] = from[i];
}

perfq_status_t perfq_measurement_sample(perfq_measurement_t *m, perfq_value_t *values, size_t n)
{
    if (!m || !values)
        return PERFQ_EINVAL;
    if (n < m->count)
        return PERFQ_ENOSPC;
    if (parents(m))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ACTIVE ? PERFQ_OK : PERFQ_ESTATE;
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++)
        if (!m->slots[i].provider->ops->sample)
            st = PERFQ_ENOTSUP;
    /* All sessions into scratch first: the header promises outputs only on success. */
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        struct session_slot *s = &m->slots[i];
        st = s->provider->ops->sample(s->session, s->scratch);
    }
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++)
        scatter(&m->slots[i], m->slots[i].scratch, values);
    pthread_mutex_unlock(&m->lock);
    return st;
}

perfq_status_t perfq_measurement_end(perfq_measurement_t *m)
{
    if (!m)
        return PERFQ_EINVAL;
    if (parents(m))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ACTIVE ? PERFQ_OK : PERFQ_ESTATE;
    if (st == PERFQ_OK) {
        for (size_t i = 0; i < m->slot_count; i++) {
            perfq_status_t e = m->slots[i].provider->ops->end(m->slots[i].session);
            if (e != PERFQ_OK && st == PERFQ_OK)
                st = e;
        }
        /* Ended even if a provider failed; result() then returns that error, not values
         * computed from a read that did not happen. */
        m->state = MEASUREMENT_ENDED;
        m->result_status = st;
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

perfq_status_t perfq_measurement_result(perfq_measurement_t *m, unsigned flags,
                                        perfq_value_t *values, size_t n)
{
    if (!m || !values || (flags & ~PERFQ_RESULT_WAIT))
        return PERFQ_EINVAL;
    if (n < m->count)
        return PERFQ_ENOSPC;
    if (parents(m))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&m->lock);
    perfq_status_t st = m->state == MEASUREMENT_ENDED ? m->result_status : PERFQ_ESTATE;
    /* All sessions first into scratch: nothing reaches the caller unless all are ready. */
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        struct session_slot *s = &m->slots[i];
        if (!(m->kept && cpu_timeline(s)))
            st = s->provider->ops->result(s->session, flags & PERFQ_RESULT_WAIT, s->scratch);
    }
    for (size_t i = 0; st == PERFQ_OK && i < m->slot_count; i++) {
        const struct session_slot *s = &m->slots[i];
        scatter(s, m->kept && cpu_timeline(s) ? s->kept : s->scratch, values);
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}
