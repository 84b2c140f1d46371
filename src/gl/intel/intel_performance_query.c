/*
 * GL_INTEL_performance_query front end: each entry point validates its arguments in the order
 * the spec lists them, raises the spec's error and returns; the work is one call into the perfq
 * engine (a query instance is a perfq measurement of its type's counters). Where the spec is
 * vague the choices are Mesa's (src/mesa/main/performance_query.c), except where
 * docs/intel-performance-query.md says otherwise and why. Checks the spec does not list are
 * labelled "Not in spec".
 */
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gl/intel/intel_performance_query.h"

/*
 * How an instance counts. A type with GPU-timeline counters gets a perfq measurement of its own
 * per instance (begun at Begin, ended at End, its result asynchronous). A type whose counters are
 * all on the CPU timeline ("Host CPU", device and system groups) shares one measurement per
 * context, begun at its first instance and never ended: Begin and End sample it, and the result
 * is the difference (ready at End). Instances then cost no resources of their own: the spec's
 * own example creates 1000 instances, which at one perf_event descriptor per counter each would
 * exceed the usual limit of 1024 open files.
 */
enum type_mode { MODE_UNKNOWN, MODE_OWN, MODE_SAMPLED };

struct intel_perf_object {
    uint32_t type;               /* index in ctx->types */
    perfq_measurement_t *m;      /* MODE_OWN: the instance's measurement */
    bool active;                 /* between Begin and End */
    bool used;                   /* begun at least once */
    bool ready;                  /* the last result is in values */
    perfq_value_t *values;       /* the last result, type->counter_count entries */
    perfq_value_t *begin;        /* MODE_SAMPLED: the sample taken at Begin */
};

struct type_state {
    enum type_mode mode;
    perfq_measurement_t *shared; /* MODE_SAMPLED */
};

struct intel_perf_context {
    struct intel_perf_host host;
    bool initialised;
    perfq_status_t init_status;
    /* [0] the process's instance of the built-ins (shared, never closed here), [1] the
     * context's own (its GL counters); a type's `source` indexes this. */
    perfq_t *pq[2];
    struct intel_query_types types;
    uint32_t *instances;         /* created instances per type */
    struct type_state *type_state;  /* per type */
    struct intel_perf_object **objects;  /* handle h is objects[h - 1]; NULL: free */
    uint32_t object_cap;
    uint32_t lowest_free;        /* no free slot below this index */
};

/* ---- per-context state ---------------------------------------------------------------- */

struct intel_perf_context *intel_perf_context_create(const struct intel_perf_host *host)
{
    if (!host)
        return NULL;
    struct intel_perf_context *ipc = calloc(1, sizeof(*ipc));
    if (ipc)
        ipc->host = *host;
    return ipc;
}

static void object_free(struct intel_perf_object *obj)
{
    if (!obj)
        return;
    if (obj->m)
        perfq_measurement_destroy(&obj->m);   /* ends it when active */
    free(obj->values);
    free(obj->begin);
    free(obj);
}

void intel_perf_context_destroy(struct intel_perf_context *ipc)
{
    if (!ipc)
        return;
    for (uint32_t i = 0; i < ipc->object_cap; i++)
        object_free(ipc->objects[i]);
    free(ipc->objects);
    free(ipc->instances);
    for (uint32_t i = 0; ipc->type_state && i < ipc->types.count; i++)
        if (ipc->type_state[i].shared)
            perfq_measurement_destroy(&ipc->type_state[i].shared);
    free(ipc->type_state);
    intel_query_types_free(&ipc->types);
    if (ipc->pq[1])
        perfq_close(&ipc->pq[1]);
    free(ipc);
}

/* Builds the query types on first use: the catalog probes providers (perf_event_open, the GL
 * driver's queries), which a program that never asks should not pay for. */
static bool ensure_types(struct intel_perf_context *ipc)
{
    if (ipc->initialised)
        return ipc->init_status == PERFQ_OK;
    ipc->initialised = true;
    perfq_status_t st = ipc->host.open(ipc->host.ctx, &ipc->pq[0], &ipc->pq[1]);
    if (st == PERFQ_OK)
        st = intel_query_types_build_from((const perfq_t *const *)ipc->pq, 2, &ipc->types);
    if (st == PERFQ_OK && ipc->types.count) {
        ipc->instances = calloc(ipc->types.count, sizeof(*ipc->instances));
        ipc->type_state = calloc(ipc->types.count, sizeof(*ipc->type_state));
        if (!ipc->instances || !ipc->type_state)
            st = PERFQ_ENOMEM;
    }
    if (st != PERFQ_OK) {
        intel_query_types_free(&ipc->types);
        if (ipc->pq[1])
            perfq_close(&ipc->pq[1]);
        ipc->pq[0] = NULL;
    }
    ipc->init_status = st;
    return st == PERFQ_OK;
}

/* The number of query types; 0 when the catalog could not be built (then no query exists). */
static uint32_t num_queries(struct intel_perf_context *ipc)
{
    return ensure_types(ipc) ? ipc->types.count : 0;
}

static void gl_error(struct intel_perf_context *ipc, GLenum error)
{
    ipc->host.error(ipc->host.ctx, error);
}

/* INTEL spec: "Performance counter ids values start with 1. Performance counter id 0 is
 * reserved as an invalid counter." Query ids follow the same rule (as Mesa's): id = index + 1. */
static bool queryid_valid(uint32_t num, uint32_t queryId)
{
    return queryId != 0 && queryId - 1 < num;
}

static struct intel_perf_object *lookup_object(struct intel_perf_context *ipc, uint32_t handle)
{
    if (handle == 0 || handle > ipc->object_cap)
        return NULL;
    return ipc->objects[handle - 1];
}

/* Names are truncated to the caller's length and always NUL-terminated (the spec does not say;
 * Mesa does this, as there is no other way to tell the caller the length). NULL: skipped. */
static void output_clipped_string(char *out, uint32_t max, const char *s)
{
    if (!out || max == 0)
        return;
    size_t len = s ? strlen(s) : 0;
    if (len > max - 1)
        len = max - 1;
    if (len)
        memcpy(out, s, len);
    out[len] = '\0';
}

/* ---- the entry points ------------------------------------------------------------------ */

void intel_GetFirstPerfQueryIdINTEL(uint32_t *queryId)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If queryId pointer is equal to 0, INVALID_VALUE error is generated." */
    if (!queryId) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* INTEL spec: "If the given hardware platform doesn't support any performance queries,
     * then the value of 0 is returned and INVALID_OPERATION error is raised." */
    if (num_queries(ipc) == 0) {
        *queryId = 0;
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }
    *queryId = 1;
}

void intel_GetNextPerfQueryIdINTEL(uint32_t queryId, uint32_t *nextQueryId)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If nextQueryId pointer is equal to 0, an INVALID_VALUE error is
     * generated." (Nothing can be returned through a NULL pointer.) */
    if (!nextQueryId) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* INTEL spec: "If the specified performance query identifier is invalid then
     * INVALID_VALUE error is generated. [...] Whenever error is generated, the value of 0 is
     * returned." (Mesa leaves *nextQueryId untouched here; the spec says 0.) */
    uint32_t num = num_queries(ipc);
    if (!queryid_valid(num, queryId)) {
        *nextQueryId = 0;
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* INTEL spec: "If query identified by queryId is the last query available the value of 0
     * is returned." */
    *nextQueryId = queryid_valid(num, queryId + 1) ? queryId + 1 : 0;
}

void intel_GetPerfQueryIdByNameINTEL(char *queryName, uint32_t *queryId)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If queryName does not reference a valid query name, an INVALID_VALUE
     * error is generated." A NULL name references none. */
    if (!queryName) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: a NULL queryId is INVALID_VALUE, as in GetFirstPerfQueryIdINTEL (Mesa). */
    if (!queryId) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    uint32_t num = num_queries(ipc);
    for (uint32_t i = 0; i < num; i++) {
        if (strcmp(ipc->types.types[i].name, queryName) == 0) {
            *queryId = i + 1;
            return;
        }
    }
    /* INTEL spec: "If queryName does not reference a valid query name, an INVALID_VALUE
     * error is generated." */
    gl_error(ipc, GL_INVALID_VALUE);
}

void intel_GetPerfQueryInfoINTEL(uint32_t queryId, uint32_t queryNameLength, char *queryName,
                                 uint32_t *dataSize, uint32_t *noCounters,
                                 uint32_t *noInstances, uint32_t *capsMask)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If queryId does not reference a valid query type, an INVALID_VALUE error
     * is generated." */
    if (!queryid_valid(num_queries(ipc), queryId)) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    const struct intel_query_type *t = &ipc->types.types[queryId - 1];
    /* Not in spec: NULL output pointers are skipped (Mesa; Intel's Windows driver crashed on
     * a NULL capsMask, which real programs pass). */
    output_clipped_string(queryName, queryNameLength, t->name);
    if (dataSize)
        *dataSize = t->data_size;
    if (noCounters)
        *noCounters = t->counter_count;
    /* INTEL spec: "the actual number of already created query instances" (the prototype calls
     * it noInstances; Mesa returns the number of active ones instead: see the docs). */
    if (noInstances)
        *noInstances = ipc->instances[queryId - 1];
    if (capsMask)
        *capsMask = t->caps;
}

void intel_GetPerfCounterInfoINTEL(uint32_t queryId, uint32_t counterId,
                                   uint32_t counterNameLength, char *counterName,
                                   uint32_t counterDescLength, char *counterDesc,
                                   uint32_t *counterOffset, uint32_t *counterDataSize,
                                   uint32_t *counterTypeEnum, uint32_t *counterDataTypeEnum,
                                   uint64_t *rawCounterMaxValue)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If the pair of queryId and counterId does not reference a valid counter,
     * an INVALID_VALUE error is generated." */
    if (!queryid_valid(num_queries(ipc), queryId)) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }
    const struct intel_query_type *t = &ipc->types.types[queryId - 1];
    /* INTEL spec: "Performance counter ids values start with 1. Performance counter id 0 is
     * reserved as an invalid counter." */
    if (counterId == 0 || counterId > t->counter_count) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    const struct intel_counter *c = &t->counters[counterId - 1];
    /* Not in spec: NULL output pointers are skipped (Mesa). */
    output_clipped_string(counterName, counterNameLength, c->name);
    output_clipped_string(counterDesc, counterDescLength, c->description);
    if (counterOffset)
        *counterOffset = c->offset;
    if (counterDataSize)
        *counterDataSize = c->size;
    if (counterTypeEnum)
        *counterTypeEnum = c->type_enum;
    if (counterDataTypeEnum)
        *counterDataTypeEnum = c->data_type_enum;
    /* INTEL spec: "for some raw counters for which the maximal value is deterministic, the
     * maximal value of the counter in 1 second is returned in the location pointed by
     * rawCounterMaxValue, otherwise, the location is written with the value of 0." */
    if (rawCounterMaxValue)
        *rawCounterMaxValue = c->raw_max;
}

/* A free handle slot: the lowest free index (handles are reused, as GL names are), growing the
 * table when full. Returns 0 when out of memory or handles. */
static uint32_t alloc_handle(struct intel_perf_context *ipc)
{
    for (uint32_t i = ipc->lowest_free; i < ipc->object_cap; i++) {
        if (!ipc->objects[i]) {
            ipc->lowest_free = i + 1;
            return i + 1;
        }
    }
    if (ipc->object_cap >= UINT32_MAX / 2)
        return 0;
    uint32_t ncap = ipc->object_cap ? ipc->object_cap * 2 : 16;
    struct intel_perf_object **n = realloc(ipc->objects, ncap * sizeof(*n));
    if (!n)
        return 0;
    memset(n + ipc->object_cap, 0, (ncap - ipc->object_cap) * sizeof(*n));
    uint32_t h = ipc->object_cap + 1;
    ipc->objects = n;
    ipc->object_cap = ncap;
    ipc->lowest_free = h;
    return h;
}

/* ---- instances on the engine (no validation: the entry points did it) ------------------ */

/* Whom a type's measurement counts. A GLOBAL_CONTEXT type ("Host CPU", device groups) counts
 * the process: every thread it has, whenever the type's first instance is created (issue 14
 * item 8: a thread-scoped task-clock read 0 beside a process CPU time of 107 ms). A
 * SINGLE_CONTEXT type counts this context's GL work, which the calling thread issues. */
static const perfq_target_t *type_target(const struct intel_query_type *t)
{
    static const perfq_target_t process = {.kind = PERFQ_TARGET_PROCESS};
    static const perfq_target_t self = {.kind = PERFQ_TARGET_SELF};
    return t->caps & GL_PERFQUERY_GLOBAL_CONTEXT_INTEL ? &process : &self;
}

/* The shared measurement of a CPU-timeline type, created and begun at its first instance. A
 * type whose providers cannot be sampled after all falls back to measurements of their own. */
static perfq_status_t shared_open(struct intel_perf_context *ipc, uint32_t type)
{
    const struct intel_query_type *t = &ipc->types.types[type];
    struct type_state *ts = &ipc->type_state[type];
    if (ts->mode != MODE_UNKNOWN)
        return PERFQ_OK;
    if (!t->cpu_timeline) {
        ts->mode = MODE_OWN;
        return PERFQ_OK;
    }
    perfq_value_t *probe = calloc(t->counter_count, sizeof(*probe));
    if (!probe)
        return PERFQ_ENOMEM;
    perfq_status_t st = perfq_measurement_create(ipc->pq[t->source], t->ids, t->counter_count,
                                                 type_target(t), &ts->shared);
    if (st == PERFQ_OK)
        st = perfq_measurement_begin(ts->shared);
    if (st == PERFQ_OK)
        st = perfq_measurement_sample(ts->shared, probe, t->counter_count);
    free(probe);
    if (st == PERFQ_OK) {
        ts->mode = MODE_SAMPLED;
        return PERFQ_OK;
    }
    if (ts->shared)
        perfq_measurement_destroy(&ts->shared);
    if (st != PERFQ_ENOTSUP)
        return st;               /* resources: the Create fails, a later one tries again */
    ts->mode = MODE_OWN;
    return PERFQ_OK;
}

static perfq_status_t instance_open(struct intel_perf_context *ipc, struct intel_perf_object *obj)
{
    const struct intel_query_type *t = &ipc->types.types[obj->type];
    obj->values = calloc(t->counter_count, sizeof(*obj->values));
    if (!obj->values)
        return PERFQ_ENOMEM;
    perfq_status_t st = shared_open(ipc, obj->type);
    if (st != PERFQ_OK)
        return st;
    if (ipc->type_state[obj->type].mode == MODE_SAMPLED) {
        obj->begin = calloc(t->counter_count, sizeof(*obj->begin));
        return obj->begin ? PERFQ_OK : PERFQ_ENOMEM;
    }
    return perfq_measurement_create(ipc->pq[t->source], t->ids, t->counter_count, type_target(t),
                                    &obj->m);
}

static perfq_status_t instance_begin(struct intel_perf_context *ipc,
                                     struct intel_perf_object *obj)
{
    const struct intel_query_type *t = &ipc->types.types[obj->type];
    if (obj->m)
        return perfq_measurement_begin(obj->m);
    return perfq_measurement_sample(ipc->type_state[obj->type].shared, obj->begin,
                                    t->counter_count);
}

/* The interval's value of a sampled counter: the difference for counts and durations; the
 * value at End for levels (RAW gauges, timestamps, rates, fractions) and flags. */
static void sampled_value(const struct intel_counter *c, const perfq_value_t *begin,
                          perfq_value_t *v)
{
    if (c->type_enum != GL_PERFQUERY_COUNTER_EVENT_INTEL &&
        c->type_enum != GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL)
        return;
    switch (c->storage) {
    case PERFQ_STORAGE_INT32:
        v->v.i32 = (int32_t)((uint32_t)v->v.i32 - (uint32_t)begin->v.i32);
        break;
    case PERFQ_STORAGE_INT64:
        v->v.i64 = (int64_t)((uint64_t)v->v.i64 - (uint64_t)begin->v.i64);
        break;
    case PERFQ_STORAGE_UINT32: v->v.u32 -= begin->v.u32; break;
    case PERFQ_STORAGE_UINT64: v->v.u64 -= begin->v.u64; break;
    case PERFQ_STORAGE_FLOAT32: v->v.f32 -= begin->v.f32; break;
    case PERFQ_STORAGE_FLOAT64: v->v.f64 -= begin->v.f64; break;
    case PERFQ_STORAGE_BOOL32:
    default: break;
    }
}

/* Ends an active instance. A failure to end shows up as a failed result, as in Mesa. */
static void instance_end(struct intel_perf_context *ipc, struct intel_perf_object *obj)
{
    const struct intel_query_type *t = &ipc->types.types[obj->type];
    obj->active = false;
    obj->ready = false;
    if (obj->m) {
        perfq_measurement_end(obj->m);
        return;
    }
    /* Sampled: the result is known now. A failed sample leaves it not ready, and the
     * measurement's result then says why (ESTATE: INVALID_OPERATION at GetPerfQueryData). */
    if (perfq_measurement_sample(ipc->type_state[obj->type].shared, obj->values,
                                 t->counter_count) == PERFQ_OK) {
        for (uint32_t i = 0; i < t->counter_count; i++)
            sampled_value(&t->counters[i], &obj->begin[i], &obj->values[i]);
        obj->ready = true;
    }
}

/* The result: PERFQ_OK (in obj->values), PERFQ_NOT_READY, or an error. */
static perfq_status_t instance_result(struct intel_perf_context *ipc,
                                      struct intel_perf_object *obj, int wait)
{
    const struct intel_query_type *t = &ipc->types.types[obj->type];
    if (!obj->m)
        return PERFQ_ESYS;       /* sampled, and the sample at End failed */
    return perfq_measurement_result(obj->m, wait ? PERFQ_RESULT_WAIT : PERFQ_RESULT_NOWAIT,
                                    obj->values, t->counter_count);
}

void intel_CreatePerfQueryINTEL(uint32_t queryId, uint32_t *queryHandle)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    /* INTEL spec: "If queryId does not reference a valid query type, an INVALID_VALUE error
     * is generated." */
    if (!queryid_valid(num_queries(ipc), queryId)) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: a NULL queryHandle is INVALID_VALUE ("the only sane thing", Mesa). */
    if (!queryHandle) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    struct intel_perf_object *obj = calloc(1, sizeof(*obj));
    uint32_t handle = 0;
    perfq_status_t st = PERFQ_ENOMEM;
    if (obj) {
        obj->type = queryId - 1;
        st = instance_open(ipc, obj);
        if (st == PERFQ_OK && !(handle = alloc_handle(ipc)))
            st = PERFQ_ENOMEM;
    }
    /* INTEL spec: "If the query instance cannot be created due to exceeding the number of
     * allowed instances or driver fails query creation due to an insufficient memory reason,
     * an OUT_OF_MEMORY error is generated, and the location pointed by queryHandle returns
     * NULL." Any failure to create the measurement (memory, file descriptors, driver) is one
     * of these. */
    if (st != PERFQ_OK) {
        object_free(obj);
        *queryHandle = 0;
        gl_error(ipc, GL_OUT_OF_MEMORY);
        return;
    }
    ipc->objects[handle - 1] = obj;
    ipc->instances[obj->type]++;
    *queryHandle = handle;
}

void intel_DeletePerfQueryINTEL(uint32_t queryHandle)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    struct intel_perf_object *obj = lookup_object(ipc, queryHandle);
    /* INTEL spec: "If a query handle doesn't reference a previously created performance
     * query instance, an INVALID_VALUE error is generated." */
    if (!obj) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: deleting an active query ends it first, with no error (Mesa). A pending
     * result is dropped without waiting (Mesa waits; GL allows deleting pending queries). */
    if (obj->active)
        instance_end(ipc, obj);
    ipc->objects[queryHandle - 1] = NULL;
    if (queryHandle - 1 < ipc->lowest_free)
        ipc->lowest_free = queryHandle - 1;
    ipc->instances[obj->type]--;
    object_free(obj);
}

void intel_BeginPerfQueryINTEL(uint32_t queryHandle)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    struct intel_perf_object *obj = lookup_object(ipc, queryHandle);
    /* INTEL spec: "If a query handle doesn't reference a previously created performance
     * query instance, an INVALID_VALUE error is generated." */
    if (!obj) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: beginning a query that is already active is INVALID_OPERATION (Mesa).
     * The spec's own INVALID_OPERATION, for nesting types that "cannot be collected in the
     * same time", never arises: every perfq type can be collected beside every other (GL
     * queries are split and summed by the layer). */
    if (obj->active) {
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }

    /* A previous result still pending is dropped: GL allows beginning a query object whose
     * result is pending, and the providers restart their counts (Mesa waits for it). */
    perfq_status_t st = instance_begin(ipc, obj);
    if (st != PERFQ_OK) {
        /* Not in spec: a provider unable to begin is INVALID_OPERATION (Mesa: "driver unable
         * to begin query"). */
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }
    obj->used = true;
    obj->active = true;
    obj->ready = false;
}

void intel_EndPerfQueryINTEL(uint32_t queryHandle)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    struct intel_perf_object *obj = lookup_object(ipc, queryHandle);
    /* Not in spec: an invalid handle is INVALID_VALUE, as for Begin and Delete (Mesa). */
    if (!obj) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* INTEL spec: "If a performance query is not currently started, an INVALID_OPERATION
     * error will be generated." */
    if (!obj->active) {
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }
    instance_end(ipc, obj);
}

void intel_GetPerfQueryDataINTEL(uint32_t queryHandle, uint32_t flags, int32_t dataSize,
                                 void *data, uint32_t *bytesWritten)
{
    struct intel_perf_context *ipc = intel_perf_current();
    if (!ipc)
        return;

    struct intel_perf_object *obj = lookup_object(ipc, queryHandle);
    /* Not in spec: an invalid handle is INVALID_VALUE, as for the other handle calls (Mesa). */
    if (!obj) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* INTEL spec: "If bytesWritten or data pointers are NULL then an INVALID_VALUE error is
     * generated." */
    if (!bytesWritten || !data) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: 0 first, for programs that check only bytesWritten (Mesa). */
    *bytesWritten = 0;

    /* Not in spec: a negative dataSize is INVALID_VALUE and nothing is written (GL's rule for
     * negative sizes; Mesa passes it on unchecked). */
    if (dataSize < 0) {
        gl_error(ipc, GL_INVALID_VALUE);
        return;
    }

    /* Not in spec: a query never begun has no data: INVALID_OPERATION (Mesa). */
    if (!obj->used) {
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }

    /* Not in spec: a query still active has no data: INVALID_OPERATION, consistent with
     * EndPerfQueryINTEL (Mesa). */
    if (obj->active) {
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }

    const struct intel_query_type *t = &ipc->types.types[obj->type];
    perfq_status_t st = PERFQ_OK;
    if (!obj->ready) {
        if (flags == GL_PERFQUERY_WAIT_INTEL) {
            /* PERFQUERY_WAIT_INTEL: "blocking and waits till the query results are
             * available and returns them." (A result already available returns at once: no
             * separate poll first.) */
            st = instance_result(ipc, obj, 1);
        } else {
            /* PERFQUERY_DONOT_FLUSH_INTEL (and any other value, 0 included, as in Mesa):
             * "checks for results and returns them if they are available". */
            st = instance_result(ipc, obj, 0);
            if (st == PERFQ_NOT_READY && flags == GL_PERFQUERY_FLUSH_INTEL) {
                /* PERFQUERY_FLUSH_INTEL: "Otherwise, it implicitly submits any outstanding
                 * 3D commands to the GPU for execution." Then one more poll, still without
                 * blocking: work that was only waiting for the flush may be done by now. */
                ipc->host.flush(ipc->host.ctx);
                st = instance_result(ipc, obj, 0);
            }
        }
        obj->ready = st == PERFQ_OK;
    }
    if (st != PERFQ_OK && st != PERFQ_NOT_READY) {
        /* Not in spec: a provider that failed after Begin (a driver query that could not be
         * read) has no result: INVALID_OPERATION, nothing written (Mesa: "deferred begin
         * query failure"). */
        gl_error(ipc, GL_INVALID_OPERATION);
        return;
    }
    if (!obj->ready) {
        /* INTEL spec: "The call may end without returning any data if they are not ready
         * [...] In this case location pointed by the bytesWritten parameter will be set to
         * 0." */
        return;
    }
    /* INTEL spec: "If the measurement session indentified by queryHandle is completed then
     * the call of GetPerfQueryDataINTEL() always writes query result to the location pointed
     * by the data parameter and the amount of bytes written is stored in the location pointed
     * by the bytesWritten parameter." Not in spec: a dataSize smaller than the result gets
     * the whole counters that fit, never a byte past dataSize, and bytesWritten says how many
     * bytes that was (docs/intel-performance-query.md). */
    *bytesWritten = intel_query_type_write_result(t, obj->values, data, (size_t)dataSize);
}

int intel_perf_get_integer(unsigned pname, int64_t *value)
{
    switch (pname) {
    case GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL:
        *value = INTEL_QUERY_NAME_LENGTH_MAX;
        return 1;
    case GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL:
        *value = INTEL_COUNTER_NAME_LENGTH_MAX;
        return 1;
    case GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL:
        *value = INTEL_COUNTER_DESC_LENGTH_MAX;
        return 1;
    case GL_PERFQUERY_GPA_EXTENDED_COUNTERS_INTEL:
        /* No Intel GPA extended counter set is exposed. */
        *value = 0;
        return 1;
    default:
        return 0;
    }
}
