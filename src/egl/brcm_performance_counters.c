/*
 * EGL_BRCM_performance_counters (its extension specification) over perfq's
 * catalog: each entry point validates at the door in the order of the spec's Errors section,
 * then makes one call down to the C API: ownership (perfq_counters_*, machine-wide) and one
 * continuous sampler (perfq_sampler_*) that holds the chosen counters.
 *
 * Groups (built once, at the first call): "Host CPU" with "CPU Time" (the process CPU clock),
 * "Driver Counters" (the layer's own counts of the program's calls, driver_counters.c), then
 * every catalog group with counters that can be sampled continuously here, each with only
 * those counters. Records are {u32 group, u32 counter, u64 value} in (group, counter) order.
 * Decisions where the text is silent: docs/egl-brcm-performance-counters.md.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/provider.h"
#include "gl/providers/driver_counters.h"
#include "gl/gl_layer.h"
#include "perfq/egl_brcm_performance_counters.h"
#include "perfq/perfq.h"

/* Broadcom's value (its VideoCore driver's EGL_MAX_COUNTER_STRING_LEN_BRCM); names and units are cut to fit, NUL included. */
#define MAX_STRING 64
#define RECORD_BYTES 16
/* Records hold integers: float counters (NVML's means, energy) travel in thousandths of their
 * unit, with denominator 1000 (docs/egl-brcm-performance-counters.md). */
#define FLOAT_SCALE 1000.0

struct brcm_counter {
    perfq_counter_id_t id;
    char name[MAX_STRING], unit[MAX_STRING];
    uint64_t min, max, denominator;
    perfq_storage_t storage;
};

struct brcm_group {
    char name[MAX_STRING];
    uint32_t count, max_active;
    struct brcm_counter *counters;
    unsigned char *enabled;
    uint32_t enabled_count;
};

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;        /* everything below, after init */
    perfq_t *pq;
    perfq_sampler_t *sampler;
    struct brcm_group *groups;
    uint32_t group_count;
    uint32_t counter_total;
    perfq_counter_id_t *chosen;  /* the sampler's set, ascending */
    size_t chosen_n;
    perfq_value_t *values;       /* room for counter_total */
} B = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n > MAX_STRING - 1)
        n = MAX_STRING - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static uint64_t storage_max(perfq_storage_t s)
{
    switch (s) {
    case PERFQ_STORAGE_INT32: return INT32_MAX;
    case PERFQ_STORAGE_UINT32: return UINT32_MAX;
    case PERFQ_STORAGE_INT64: return INT64_MAX;
    case PERFQ_STORAGE_BOOL32: return 1;
    default: return UINT64_MAX;
    }
}

/* Can the sampler take this counter? (available, readable while counting) */
static int choosable(perfq_sampler_t *probe, perfq_counter_id_t id)
{
    if (perfq_sampler_choose(probe, &id, 1, 1) != PERFQ_OK)
        return 0;
    perfq_sampler_choose(probe, &id, 1, 0);
    return 1;
}

static void fill_counter(struct brcm_counter *c, const perfq_counter_info_t *ci,
                         perfq_counter_id_t id, const char *name)
{
    c->id = id;
    copy_name(c->name, name);
    copy_name(c->unit, perfq_unit_name(ci->unit));
    uint64_t denominator = ci->denominator ? ci->denominator : 1;
    int is_float = ci->storage == PERFQ_STORAGE_FLOAT32 || ci->storage == PERFQ_STORAGE_FLOAT64;
    c->denominator = is_float ? denominator * (uint64_t)FLOAT_SCALE : denominator;
    /* "minValue and maxValue are specified in units of unitStr". */
    c->min = ci->min / denominator;
    c->max = (ci->max ? ci->max : storage_max(ci->storage)) / denominator;
    c->storage = ci->storage;
}

static int add_group(const char *name, uint32_t max_active, uint32_t n)
{
    struct brcm_group *g = realloc(B.groups, (B.group_count + 1) * sizeof *g);
    if (!g)
        return -1;
    B.groups = g;
    g = &B.groups[B.group_count];
    memset(g, 0, sizeof *g);
    copy_name(g->name, name);
    g->counters = calloc(n ? n : 1, sizeof *g->counters);
    g->enabled = calloc(n ? n : 1, 1);
    if (!g->counters || !g->enabled) {
        free(g->counters);
        free(g->enabled);
        return -1;
    }
    g->max_active = max_active;
    B.group_count++;
    return 0;
}

/* A catalog group's choosable counters as one EGL group. */
static void add_catalog_group(perfq_sampler_t *probe, uint32_t gi)
{
    perfq_group_info_t gin;
    if (perfq_group_info(B.pq, gi, &gin) != PERFQ_OK || !gin.available ||
        gin.scope == PERFQ_SCOPE_GPU_TIMELINE)
        return;
    if (add_group(gin.name, 0, gin.counter_count))
        return;
    struct brcm_group *g = &B.groups[B.group_count - 1];
    for (uint32_t k = 0; k < gin.counter_count; k++) {
        perfq_counter_id_t id = gin.first_counter + k;
        perfq_counter_info_t ci;
        if (perfq_counter_info(B.pq, id, &ci) == PERFQ_OK && choosable(probe, id))
            fill_counter(&g->counters[g->count++], &ci, id, ci.name);
    }
    /* What the group can really count at once: its sources' limit, else all of them. */
    g->max_active = gin.max_active && gin.max_active < g->count ? gin.max_active : g->count;
    if (!g->count) {
        free(g->counters);
        free(g->enabled);
        B.group_count--;
    }
}

/* The groups come from the GL layer's one engine instance per process (built-ins and Driver
 * Counters), shared with INTEL's built-in query types: NVML and the like are set up once. */
static void init(void)
{
    perfq_sampler_t *probe = NULL;
    if (perfq_gl_process_engine(&B.pq) != PERFQ_OK ||
        perfq_sampler_create(B.pq, NULL, &B.sampler) != PERFQ_OK ||
        perfq_sampler_create(B.pq, NULL, &probe) != PERFQ_OK)
        return;   /* no groups: every group index is then invalid */
    perfq_counter_id_t cpu;
    perfq_counter_info_t ci;
    if (perfq_counter_find(B.pq, "clock/process-cpu-time", &cpu) == PERFQ_OK &&
        perfq_counter_info(B.pq, cpu, &ci) == PERFQ_OK && choosable(probe, cpu) &&
        add_group("Host CPU", 1, 1) == 0) {
        struct brcm_group *g = &B.groups[B.group_count - 1];
        fill_counter(&g->counters[g->count++], &ci, cpu, "CPU Time");
    }
    uint32_t groups = 0, driver = UINT32_MAX;
    perfq_group_count(B.pq, &groups);
    for (uint32_t gi = 0; gi < groups; gi++) {
        perfq_group_info_t gin;
        if (perfq_group_info(B.pq, gi, &gin) == PERFQ_OK &&
            strcmp(gin.name, "Driver Counters") == 0)
            driver = gi;
    }
    if (driver != UINT32_MAX)
        add_catalog_group(probe, driver);
    for (uint32_t gi = 0; gi < groups; gi++)
        if (gi != driver)
            add_catalog_group(probe, gi);
    perfq_sampler_destroy(&probe);
    for (uint32_t g = 0; g < B.group_count; g++)
        B.counter_total += B.groups[g].count;
    B.chosen = calloc(B.counter_total + 1, sizeof *B.chosen);
    B.values = calloc(B.counter_total + 1, sizeof *B.values);
    if (!B.chosen || !B.values)
        B.group_count = 0;
}

static void ensure_init(void)
{
    pthread_once(&B.once, init);
}

/* EGL 1.5 section 3.1: every EGL call sets the thread's error, so this call's outcome replaces
 * a driver error still pending from an earlier call (read and dropped here). */
static void egl_outcome(EGLint error)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (gl->eglGetError)
        gl->eglGetError();
    perfq_gl_egl_record_error(error);
}

static EGLBoolean fail(EGLint error)
{
    egl_outcome(error);
    return EGL_FALSE;
}

static EGLBoolean succeed(void)
{
    egl_outcome(EGL_SUCCESS);
    return EGL_TRUE;
}

PERFQ_GL_EXPORT EGLint eglGetPerfCounterConstantBRCM(EGLenum pname)
{
    ensure_init();
    switch (pname) {
    case EGL_NUM_COUNTER_GROUPS_BRCM:
        egl_outcome(EGL_SUCCESS);
        return (EGLint)B.group_count;
    case EGL_MAX_COUNTER_STRING_LEN_BRCM:
        egl_outcome(EGL_SUCCESS);
        return MAX_STRING;
    default:
        /* Not in the Errors section; the same error as eglSetPerfCountingBRCM's invalid pname
         * (docs: decisions). */
        egl_outcome(EGL_BAD_PARAMETER);
        return 0;
    }
}

/* "A maximum of <nameStrSize> characters will be copied into the buffer including a null
 * termination. If <nameStrSize> is 0 or <groupNameStr> is NULL, no name will be returned." */
static void copy_out(char *dst, EGLint size, const char *src)
{
    if (!dst || size <= 0)
        return;
    size_t n = strlen(src);
    if (n > (size_t)size - 1)
        n = (size_t)size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

PERFQ_GL_EXPORT EGLBoolean eglGetPerfCounterGroupInfoBRCM(EGLint group, EGLint nameStrSize,
                                                          char *groupNameStr,
                                                          EGLint *numCounters,
                                                          EGLint *maxActiveCounters)
{
    ensure_init();
    if (group < 0 || (uint32_t)group >= B.group_count)
        return fail(EGL_BAD_PARAMETER);
    const struct brcm_group *g = &B.groups[group];
    copy_out(groupNameStr, nameStrSize, g->name);
    if (numCounters)
        *numCounters = (EGLint)g->count;
    if (maxActiveCounters)
        *maxActiveCounters = (EGLint)g->max_active;
    return succeed();
}

PERFQ_GL_EXPORT EGLBoolean eglGetPerfCounterInfoBRCM(EGLint group, EGLint counter,
                                                     EGLuint64BRCM *minValue,
                                                     EGLuint64BRCM *maxValue,
                                                     EGLuint64BRCM *denominator,
                                                     EGLint nameStrSize, char *nameStr,
                                                     EGLint unitStrSize, char *unitStr)
{
    ensure_init();
    if (group < 0 || (uint32_t)group >= B.group_count || counter < 0 ||
        (uint32_t)counter >= B.groups[group].count)
        return fail(EGL_BAD_PARAMETER);
    const struct brcm_counter *c = &B.groups[group].counters[counter];
    if (minValue)
        *minValue = c->min;
    if (maxValue)
        *maxValue = c->max;
    if (denominator)   /* the shipping header's pointer (erratum): NULL skips it */
        *denominator = c->denominator;
    copy_out(nameStr, nameStrSize, c->name);
    copy_out(unitStr, unitStrSize, c->unit);
    return succeed();
}

/* Nothing chosen, stopped: the state a new owner starts from. Under B.lock. */
static void reset_choice(void)
{
    perfq_sampler_stop(B.sampler);
    if (B.chosen_n)
        perfq_sampler_choose(B.sampler, B.chosen, B.chosen_n, 0);
    B.chosen_n = 0;
    for (uint32_t g = 0; g < B.group_count; g++) {
        memset(B.groups[g].enabled, 0, B.groups[g].count);
        B.groups[g].enabled_count = 0;
    }
}

PERFQ_GL_EXPORT EGLBoolean eglSetPerfCountingBRCM(EGLenum pname)
{
    ensure_init();
    if (pname != EGL_ACQUIRE_COUNTERS_BRCM && pname != EGL_RELEASE_COUNTERS_BRCM &&
        pname != EGL_START_COUNTERS_BRCM && pname != EGL_STOP_COUNTERS_BRCM)
        return fail(EGL_BAD_PARAMETER);
    pthread_mutex_lock(&B.lock);
    EGLint error = EGL_SUCCESS;
    int owned = perfq_counters_owned();
    switch (pname) {
    case EGL_ACQUIRE_COUNTERS_BRCM:
        if (!owned) {
            /* Another client's, or the system refuses (both: not acquired by this client). */
            if (perfq_counters_acquire() != PERFQ_OK)
                error = EGL_BAD_ACCESS;
            else
                reset_choice();   /* e.g. a fork child's copy of its parent's choice */
        }
        break;
    case EGL_RELEASE_COUNTERS_BRCM:
        if (!owned) {
            error = EGL_BAD_ACCESS;
        } else {
            reset_choice();
            perfq_counters_release();
        }
        break;
    case EGL_START_COUNTERS_BRCM:
        if (!owned)
            error = EGL_BAD_ACCESS;
        else if (perfq_sampler_start(B.sampler) != PERFQ_OK)
            error = EGL_BAD_ALLOC;   /* a source the system refused to open */
        break;
    default: /* EGL_STOP_COUNTERS_BRCM */
        if (!owned)
            error = EGL_BAD_ACCESS;
        else
            perfq_sampler_stop(B.sampler);
        break;
    }
    pthread_mutex_unlock(&B.lock);
    return error == EGL_SUCCESS ? succeed() : fail(error);
}

static int id_in(const perfq_counter_id_t *ids, size_t n, perfq_counter_id_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ids[mid] == id)
            return (int)mid;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Makes the sampler's set what the enabled flags need; resets when counting (the spec's
 * implicit reset), also when the set is unchanged. Under B.lock. */
static perfq_status_t apply_choice(void)
{
    perfq_counter_id_t *want = calloc(B.counter_total + 1, sizeof *want);
    perfq_counter_id_t *add = calloc(B.counter_total + 1, sizeof *add);
    perfq_counter_id_t *drop = calloc(B.counter_total + 1, sizeof *drop);
    perfq_status_t st = want && add && drop ? PERFQ_OK : PERFQ_ENOMEM;
    size_t nw = 0, na = 0, nd = 0;
    for (uint32_t g = 0; st == PERFQ_OK && g < B.group_count; g++)
        for (uint32_t k = 0; k < B.groups[g].count; k++) {
            perfq_counter_id_t id = B.groups[g].counters[k].id;
            int dup = 0;
            for (size_t i = 0; i < nw && !dup; i++)
                dup = want[i] == id;
            if (B.groups[g].enabled[k] && !dup)
                want[nw++] = id;
        }
    for (size_t i = 0; st == PERFQ_OK && i < nw; i++) {
        int found = 0;
        for (size_t j = 0; j < B.chosen_n && !found; j++)
            found = B.chosen[j] == want[i];
        if (!found)
            add[na++] = want[i];
    }
    for (size_t j = 0; st == PERFQ_OK && j < B.chosen_n; j++) {
        int found = 0;
        for (size_t i = 0; i < nw && !found; i++)
            found = want[i] == B.chosen[j];
        if (!found)
            drop[nd++] = B.chosen[j];
    }
    if (st == PERFQ_OK && nd)
        st = perfq_sampler_choose(B.sampler, drop, nd, 0);
    if (st == PERFQ_OK && (na || !nd))
        st = perfq_sampler_choose(B.sampler, add, na, 1);
    size_t n = 0;
    if (st == PERFQ_OK)
        st = perfq_sampler_counters(B.sampler, B.chosen, B.counter_total, &n);
    if (st == PERFQ_OK)
        B.chosen_n = n;
    free(want);
    free(add);
    free(drop);
    return st;
}

PERFQ_GL_EXPORT EGLBoolean eglChoosePerfCountersBRCM(EGLBoolean enable, EGLint group,
                                                     EGLint numCounters, EGLint *counterList)
{
    ensure_init();
    /* Errors section order: invalid group or counter index, then ownership. */
    if (group < 0 || (uint32_t)group >= B.group_count || numCounters < 0)
        return fail(EGL_BAD_PARAMETER);
    struct brcm_group *g = &B.groups[group];
    int whole = numCounters == 0 || !counterList;
    for (EGLint i = 0; !whole && i < numCounters; i++)
        if (counterList[i] < 0 || (uint32_t)counterList[i] >= g->count)
            return fail(EGL_BAD_PARAMETER);
    pthread_mutex_lock(&B.lock);
    if (!perfq_counters_owned()) {
        pthread_mutex_unlock(&B.lock);
        return fail(EGL_BAD_ACCESS);
    }
    unsigned char *old = malloc(g->count);
    if (!old) {
        pthread_mutex_unlock(&B.lock);
        return fail(EGL_BAD_ALLOC);
    }
    memcpy(old, g->enabled, g->count);
    uint32_t old_count = g->enabled_count;
    uint32_t n = whole ? g->count : (uint32_t)numCounters;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = whole ? i : (uint32_t)counterList[i];
        if (!enable && g->enabled[k]) {
            g->enabled[k] = 0;
            g->enabled_count--;
        } else if (enable && !g->enabled[k] && g->enabled_count < g->max_active) {
            /* "only the first maxActiveCounters will be enabled" */
            g->enabled[k] = 1;
            g->enabled_count++;
        }
    }
    perfq_status_t st = apply_choice();
    if (st != PERFQ_OK) {
        memcpy(g->enabled, old, g->count);
        g->enabled_count = old_count;
    }
    free(old);
    pthread_mutex_unlock(&B.lock);
    return st == PERFQ_OK ? succeed() : fail(EGL_BAD_ALLOC);
}

static uint64_t as_fixed(double f)
{
    double x = f * FLOAT_SCALE + 0.5;
    if (!(x > 0))                 /* negative, zero or NaN */
        return 0;
    return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

static uint64_t as_u64(const perfq_value_t *v, perfq_storage_t s)
{
    switch (s) {
    case PERFQ_STORAGE_UINT64: return v->v.u64;
    case PERFQ_STORAGE_UINT32:
    case PERFQ_STORAGE_BOOL32: return v->v.u32;
    case PERFQ_STORAGE_INT64: return v->v.i64 > 0 ? (uint64_t)v->v.i64 : 0;
    case PERFQ_STORAGE_INT32: return v->v.i32 > 0 ? (uint64_t)v->v.i32 : 0;
    case PERFQ_STORAGE_FLOAT32: return as_fixed((double)v->v.f32);
    case PERFQ_STORAGE_FLOAT64: return as_fixed(v->v.f64);
    }
    return 0;
}

PERFQ_GL_EXPORT EGLBoolean eglGetPerfCounterDataBRCM(EGLint dataBufferBytes, void *data,
                                                     EGLint *bytesWritten,
                                                     EGLBoolean resetCounters)
{
    ensure_init();
    pthread_mutex_lock(&B.lock);
    if (!perfq_counters_owned()) {
        pthread_mutex_unlock(&B.lock);
        return fail(EGL_BAD_ACCESS);
    }
    uint32_t records = 0;
    for (uint32_t g = 0; g < B.group_count; g++)
        records += B.groups[g].enabled_count;
    /* The size query: nothing is read, nothing reset. */
    if (!data || dataBufferBytes <= 0) {
        if (bytesWritten)
            *bytesWritten = (EGLint)(records * RECORD_BYTES);
        pthread_mutex_unlock(&B.lock);
        return succeed();
    }
    /* Whole records only, never past dataBufferBytes. A reset is applied only when every
     * record fits: a counter left out is not reset, so no count is lost. */
    uint32_t fit = (uint32_t)dataBufferBytes / RECORD_BYTES;
    uint32_t k = fit < records ? fit : records;
    unsigned flags = resetCounters && k == records ? PERFQ_SAMPLER_RESET : 0;
    perfq_status_t st = perfq_sampler_read(B.sampler, flags, B.values, B.chosen_n);
    if (st != PERFQ_OK) {
        pthread_mutex_unlock(&B.lock);
        return fail(EGL_BAD_ALLOC);
    }
    unsigned char *out = data;
    uint32_t written = 0;
    for (uint32_t g = 0; g < B.group_count && written < k; g++)
        for (uint32_t c = 0; c < B.groups[g].count && written < k; c++) {
            if (!B.groups[g].enabled[c])
                continue;
            const struct brcm_counter *bc = &B.groups[g].counters[c];
            int pos = id_in(B.chosen, B.chosen_n, bc->id);
            uint32_t rec[2] = {g, c};
            uint64_t value = pos >= 0 ? as_u64(&B.values[pos], bc->storage) : 0;
            memcpy(out + (size_t)written * RECORD_BYTES, rec, sizeof rec);
            memcpy(out + (size_t)written * RECORD_BYTES + 8, &value, sizeof value);
            written++;
        }
    if (bytesWritten)
        *bytesWritten = (EGLint)(written * RECORD_BYTES);
    pthread_mutex_unlock(&B.lock);
    /* The statistics loop's hot path: the driver's pending error is not read and dropped here
     * (glvnd's eglGetError cost about 5 us, half again the whole read: docs, deviations). */
    perfq_gl_egl_record_error(EGL_SUCCESS);
    return EGL_TRUE;
}

/* Driver Counters from the layer's observers (gl_layer.h): every context and thread. */

static void observe_object(struct perfq_gl_context *ctx, void *data,
                           const struct perfq_gl_object_call *c)
{
    (void)data;
    if (c->event != PERFQ_GL_OBJECT_ALLOCATE || c->error != GL_NO_ERROR)
        return;
    enum perfq_gl_driver_count which = PERFQ_GL_DRIVER_BUFFER_BYTES;
    uint64_t bytes = 0;
    if (c->kind == PERFQ_GL_OBJECT_BUFFER && c->size > 0 &&
        strstr(c->function, "Storage") == NULL) {
        /* glBufferData and its aliases; glBufferStorage allocates immutable storage. */
        bytes = (uint64_t)c->size;
    } else if (c->kind == PERFQ_GL_OBJECT_TEXTURE) {
        which = PERFQ_GL_DRIVER_TEXTURE_BYTES;
        if (strncmp(c->function, "glCompressedTexImage", 20) == 0 && c->size > 0)
            bytes = (uint64_t)c->size;
        else if (strncmp(c->function, "glTexImage", 10) == 0 && c->format && c->type)
            bytes = perfq_gl_upload_bytes(c->format, c->type, c->width, c->height, c->depth);
    }
    if (bytes)
        perfq_gl_driver_add(which, bytes);
    /* The same call again counts the same bytes again: the layer may add them itself
     * (gl_layer.h, perfq_gl_object_repeatable). */
    perfq_gl_object_repeatable(ctx, NULL, 0, bytes ? (uint64_t *)&perfq_gl_driver_counts[which]
                                                   : NULL, bytes);
}

static void observe_clear(struct perfq_gl_context *ctx, void *data, GLbitfield mask)
{
    (void)ctx;
    (void)data;
    (void)mask;
    perfq_gl_driver_add(PERFQ_GL_DRIVER_CLEARS, 1);
}

static void observe_swap(struct perfq_gl_context *ctx, void *data)
{
    (void)ctx;
    (void)data;
    perfq_gl_driver_add(PERFQ_GL_DRIVER_SWAPS, 1);
}

static const struct perfq_gl_observers observers = {
    /* Draw calls: counted per context by the layer's draw wrappers (driver_counters.c reads
     * them), not observed here: a draw observer makes every draw of every layered program
     * fan out to the front ends. */
    .object = observe_object, .clear = observe_clear,
    .swap = observe_swap,
};

#define ENTRY(f) {#f, (void (*)(void))f}
static const struct perfq_gl_entry_point entry_points[] = {
    ENTRY(eglGetPerfCounterConstantBRCM), ENTRY(eglGetPerfCounterGroupInfoBRCM),
    ENTRY(eglGetPerfCounterInfoBRCM),     ENTRY(eglSetPerfCountingBRCM),
    ENTRY(eglChoosePerfCountersBRCM),     ENTRY(eglGetPerfCounterDataBRCM),
    {NULL, NULL},
};
#undef ENTRY

/* On every initialised display: the counters are the process's, not a display's. */
static int every_display(void *display)
{
    (void)display;
    return 1;
}

static const struct perfq_egl_extension egl_extensions[] = {
    {"EGL_BRCM_performance_counters", every_display},
    {NULL, NULL},
};

static const struct perfq_gl_frontend frontend = {
    .name = "EGL_BRCM_performance_counters",
    .scope = PERFQ_GL_SCOPE_PROCESS,
    .entry_points = entry_points,
    .egl_extensions = egl_extensions,
    .observers = &observers,
};

__attribute__((constructor)) static void register_brcm(void)
{
    perfq_gl_register_frontend(&frontend);
}
