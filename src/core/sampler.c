/*
 * The continuous sampler (perfq.h, "Continuous sampling"): a chosen set of counters over one
 * measurement, read again and again. The measurement counts from its begin; the sampler keeps,
 * per counter, `acc` (what earlier started periods left, or the value kept while stopped) and
 * `base` (the measurement's reading at the last reset). A read reports acc + (now - base); a
 * reset sets base = now and acc = 0 with the very reading it reported, which is why
 * read-and-reset loses nothing and counts nothing twice.
 */
#include <stdlib.h>
#include <string.h>

#include "core/instance.h"

struct perfq_sampler {
    perfq_t *pq;
    perfq_target_t target;
    pthread_mutex_t lock;
    int running;
    size_t count;
    perfq_counter_id_t *ids;      /* ascending catalog order */
    unsigned char *counting;      /* 1: accumulates; 0: gauge (latest value) */
    perfq_storage_t *storage;
    perfq_value_t *acc, *base, *now;
    perfq_measurement_t *m;       /* for the current set; NULL when empty or not yet made */
    unsigned fork_generation;     /* perfq__fork_generation() at create */
};

/* Made before a fork() this process is the child of: the parent's (instance.h). */
static int parents(const struct perfq_sampler *s)
{
    return perfq__made_before_fork(s->fork_generation);
}

/* a + b and a - b in the value's storage type (unsigned wrap is what counters do). */
static void value_add(perfq_value_t *out, const perfq_value_t *a, const perfq_value_t *b,
                      perfq_storage_t st, int sign)
{
    switch (st) {
    case PERFQ_STORAGE_INT32:
        /* In unsigned arithmetic: -INT32_MIN overflows an int. */
        out->v.i32 = (int32_t)((uint32_t)a->v.i32 +
                               (sign > 0 ? (uint32_t)b->v.i32 : 0u - (uint32_t)b->v.i32));
        break;
    case PERFQ_STORAGE_INT64:
        out->v.i64 = (int64_t)((uint64_t)a->v.i64 +
                               (sign > 0 ? (uint64_t)b->v.i64 : 0u - (uint64_t)b->v.i64));
        break;
    case PERFQ_STORAGE_UINT32:
    case PERFQ_STORAGE_BOOL32:
        out->v.u32 = sign > 0 ? a->v.u32 + b->v.u32 : a->v.u32 - b->v.u32;
        break;
    case PERFQ_STORAGE_UINT64:
        out->v.u64 = sign > 0 ? a->v.u64 + b->v.u64 : a->v.u64 - b->v.u64;
        break;
    case PERFQ_STORAGE_FLOAT32:
        out->v.f32 = a->v.f32 + (float)sign * b->v.f32;
        break;
    case PERFQ_STORAGE_FLOAT64:
        out->v.f64 = a->v.f64 + (double)sign * b->v.f64;
        break;
    }
    out->time_enabled = sign > 0 ? a->time_enabled + b->time_enabled
                                 : a->time_enabled - b->time_enabled;
    out->time_running = sign > 0 ? a->time_running + b->time_running
                                 : a->time_running - b->time_running;
}

/* acc + (now - base) for counting counters, now for gauges. */
static void combine(const struct perfq_sampler *s, size_t i, perfq_value_t *out)
{
    if (!s->counting[i]) {
        *out = s->now[i];
        return;
    }
    perfq_value_t d;
    memset(&d, 0, sizeof d);
    value_add(&d, &s->now[i], &s->base[i], s->storage[i], -1);
    value_add(out, &s->acc[i], &d, s->storage[i], 1);
    out->flags = (s->acc[i].flags | s->now[i].flags) & PERFQ_VALUE_SCALED;
    /* A source that never ran in any interval summed here (its time_running 0 throughout). */
    if ((s->now[i].flags & PERFQ_VALUE_NOT_COUNTED) && out->time_running == 0)
        out->flags |= PERFQ_VALUE_NOT_COUNTED;
}

static int is_counting(const perfq_counter_info_t *ci)
{
    return ci->storage != PERFQ_STORAGE_BOOL32 &&
           (ci->intel_type == PERFQ_INTEL_EVENT || ci->intel_type == PERFQ_INTEL_DURATION_RAW);
}

perfq_status_t perfq_sampler_create(perfq_t *pq, const perfq_target_t *target,
                                    perfq_sampler_t **out)
{
    if (!pq || !out)
        return PERFQ_EINVAL;
    perfq_target_t self = {.kind = PERFQ_TARGET_SELF};
    if (!target)
        target = &self;
    if (target->kind != PERFQ_TARGET_SELF && target->kind != PERFQ_TARGET_PROCESS &&
        (target->kind != PERFQ_TARGET_PID || target->pid <= 0))
        return PERFQ_EINVAL;
    if (!perfq__pid_exists(target))
        return PERFQ_EINVAL;   /* whatever the counters: not only where a provider asks */
    struct perfq_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return PERFQ_ENOMEM;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return PERFQ_ENOMEM;
    }
    s->fork_generation = perfq__fork_generation();
    s->pq = perfq__instance_ref(pq);   /* usable after perfq_close, like a measurement */
    s->target = *target;
    *out = s;
    return PERFQ_OK;
}

static void free_arrays(struct perfq_sampler *s)
{
    free(s->ids);
    free(s->counting);
    free(s->storage);
    free(s->acc);
    free(s->base);
    free(s->now);
}

perfq_status_t perfq_sampler_destroy(perfq_sampler_t **ps)
{
    if (!ps || !*ps)
        return PERFQ_EINVAL;
    struct perfq_sampler *s = *ps;
    *ps = NULL;
    perfq_measurement_destroy(&s->m);   /* ends it when active (not in a fork child) */
    free_arrays(s);
    if (!parents(s))   /* a fork child's copy may be held by a thread the child lacks */
        pthread_mutex_destroy(&s->lock);
    perfq_t *pq = s->pq;
    free(s);
    perfq__instance_unref(pq);
    return PERFQ_OK;
}

/* Can this counter be chosen? */
static perfq_status_t check_id(const perfq_t *pq, perfq_counter_id_t id)
{
    const struct perfq_catalog *c = &pq->catalog;
    if (!perfq__catalog_has_counter(pq, id))
        return PERFQ_EINVAL;
    const struct perfq_counter_entry *e = &c->counters[id];
    if (!e->info.available)
        return PERFQ_ENOTSUP;
    const struct perfq_provider_slot *p = &pq->providers[e->provider];
    /* GPU-timeline sources have values only after end: they cannot be read while counting. */
    if (!p->ops->sample || c->groups[e->info.group].info.scope == PERFQ_SCOPE_GPU_TIMELINE)
        return PERFQ_ENOTSUP;
    return PERFQ_OK;
}

static int id_cmp(const void *a, const void *b)
{
    perfq_counter_id_t x = *(const perfq_counter_id_t *)a, y = *(const perfq_counter_id_t *)b;
    return x < y ? -1 : x > y;
}

static int in_list(const perfq_counter_id_t *ids, size_t n, perfq_counter_id_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* The chosen set after this choose: sorted, without duplicates. */
static perfq_status_t new_set(const struct perfq_sampler *s, const perfq_counter_id_t *ids,
                              size_t n, int enable, perfq_counter_id_t **out, size_t *out_n)
{
    perfq_counter_id_t *set = malloc((s->count + n + 1) * sizeof *set);
    if (!set)
        return PERFQ_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < s->count; i++)
        if (enable || !in_list(ids, n, s->ids[i]))
            set[k++] = s->ids[i];
    for (size_t j = 0; enable && j < n; j++)
        if (!in_list(set, k, ids[j]))
            set[k++] = ids[j];
    qsort(set, k, sizeof *set, id_cmp);
    *out = set;
    *out_n = k;
    return PERFQ_OK;
}

/* max_active of every group must hold for the new set. */
static perfq_status_t check_limits(const perfq_t *pq, const perfq_counter_id_t *set, size_t n)
{
    const struct perfq_catalog *c = &pq->catalog;
    for (size_t i = 0; i < n;) {
        uint32_t g = c->counters[set[i]].info.group;
        size_t j = i;
        while (j < n && c->counters[set[j]].info.group == g)
            j++;
        uint32_t max = c->groups[g].info.max_active;
        if (max && j - i > max)
            return PERFQ_EBUSY;
        i = j;
    }
    return PERFQ_OK;
}

perfq_status_t perfq_sampler_choose(perfq_sampler_t *s, const perfq_counter_id_t *ids, size_t n,
                                    int enable)
{
    if (!s || (!ids && n))
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    for (size_t i = 0; i < n; i++) {
        perfq_status_t st = check_id(s->pq, ids[i]);
        if (st != PERFQ_OK && !(st == PERFQ_ENOTSUP && !enable))
            return st;
    }
    pthread_mutex_lock(&s->lock);
    perfq_counter_id_t *set = NULL;
    size_t k = 0;
    perfq_status_t st = new_set(s, ids, n, enable, &set, &k);
    if (st == PERFQ_OK)
        st = check_limits(s->pq, set, k);
    /* The new arrays, filled before anything of the old state is dropped. */
    unsigned char *counting = calloc(k + 1, 1);
    perfq_storage_t *storage = calloc(k + 1, sizeof *storage);
    perfq_value_t *acc = calloc(k + 1, sizeof *acc), *base = calloc(k + 1, sizeof *base),
                  *now = calloc(k + 1, sizeof *now);
    if (st == PERFQ_OK && (!counting || !storage || !acc || !base || !now))
        st = PERFQ_ENOMEM;
    perfq_measurement_t *m = NULL;
    if (st == PERFQ_OK && s->running && k)
        st = perfq_measurement_create(s->pq, set, k, &s->target, &m);
    if (st == PERFQ_OK && m)
        st = perfq_measurement_begin(m);
    if (st != PERFQ_OK) {
        perfq_measurement_destroy(&m);
        free(set);
        free(counting);
        free(storage);
        free(acc);
        free(base);
        free(now);
        pthread_mutex_unlock(&s->lock);
        return st;
    }
    for (size_t i = 0; i < k; i++) {
        perfq_counter_info_t ci = s->pq->catalog.counters[set[i]].info;
        counting[i] = (unsigned char)is_counting(&ci);
        storage[i] = ci.storage;
        /* Stopped: counters that stay chosen keep their values. Started: all start at zero
         * (EGL_BRCM: choosing while counting is an implicit reset). */
        for (size_t j = 0; !s->running && j < s->count; j++)
            if (s->ids[j] == set[i]) {
                acc[i] = s->acc[j];
                now[i] = s->now[j];
            }
    }
    perfq_measurement_destroy(&s->m);
    free_arrays(s);
    s->ids = set;
    s->count = k;
    s->counting = counting;
    s->storage = storage;
    s->acc = acc;
    s->base = base;
    s->now = now;
    s->m = m;
    pthread_mutex_unlock(&s->lock);
    return PERFQ_OK;
}

perfq_status_t perfq_sampler_counters(perfq_sampler_t *s, perfq_counter_id_t *ids, size_t cap,
                                      size_t *n)
{
    if (!s || !n)
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&s->lock);
    perfq_status_t st = PERFQ_OK;
    if (ids && cap < s->count)
        st = PERFQ_ENOSPC;
    else if (ids && s->count)
        memcpy(ids, s->ids, s->count * sizeof *ids);
    *n = s->count;
    pthread_mutex_unlock(&s->lock);
    return st;
}

perfq_status_t perfq_sampler_start(perfq_sampler_t *s)
{
    if (!s)
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&s->lock);
    perfq_status_t st = PERFQ_OK;
    if (!s->running && s->count) {
        if (!s->m)
            st = perfq_measurement_create(s->pq, s->ids, s->count, &s->target, &s->m);
        if (st == PERFQ_OK)
            st = perfq_measurement_begin(s->m);
        /* The measurement counts from zero: the base of this period is zero. */
        if (st == PERFQ_OK)
            memset(s->base, 0, s->count * sizeof *s->base);
    }
    if (st == PERFQ_OK)
        s->running = 1;
    pthread_mutex_unlock(&s->lock);
    return st;
}

perfq_status_t perfq_sampler_stop(perfq_sampler_t *s)
{
    if (!s)
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&s->lock);
    perfq_status_t st = PERFQ_OK;
    if (s->running && s->m) {
        st = perfq_measurement_end(s->m);
        if (st == PERFQ_OK)
            st = perfq_measurement_result(s->m, PERFQ_RESULT_WAIT, s->now, s->count);
        if (st == PERFQ_OK)
            for (size_t i = 0; i < s->count; i++) {
                perfq_value_t v;
                memset(&v, 0, sizeof v);
                combine(s, i, &v);
                s->acc[i] = v;
            }
    }
    /* Stopped even when the last reading failed: the measurement has ended. */
    s->running = 0;
    pthread_mutex_unlock(&s->lock);
    return st;
}

int perfq_sampler_running(perfq_sampler_t *s)
{
    if (!s)
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&s->lock);
    int r = s->running;
    pthread_mutex_unlock(&s->lock);
    return r;
}

perfq_status_t perfq_sampler_read(perfq_sampler_t *s, unsigned flags, perfq_value_t *values,
                                  size_t n)
{
    if (!s || (flags & ~PERFQ_SAMPLER_RESET) || (!values && (n || !(flags & PERFQ_SAMPLER_RESET))))
        return PERFQ_EINVAL;
    if (parents(s))
        return PERFQ_ESTATE;
    pthread_mutex_lock(&s->lock);
    perfq_status_t st = PERFQ_OK;
    if (values && n < s->count)
        st = PERFQ_ENOSPC;   /* as perfq_measurement_sample's: nothing written */
    int live = s->running && s->m;
    if (st == PERFQ_OK && live)
        st = perfq_measurement_sample(s->m, s->now, s->count);
    for (size_t i = 0; st == PERFQ_OK && i < s->count; i++) {
        perfq_value_t v;
        memset(&v, 0, sizeof v);
        if (live)
            combine(s, i, &v);
        else
            v = s->acc[i];
        if (values)
            values[i] = v;
        if (flags & PERFQ_SAMPLER_RESET) {
            if (live)
                s->base[i] = s->now[i];
            if (s->counting[i])
                memset(&s->acc[i], 0, sizeof s->acc[i]);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}
