/*
 * GL_INTEL_performance_query query types as a view of the perfq catalog (see the header, and
 * docs/intel-performance-query.md for the documented catalog these tables produce).
 */
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/provider.h"
#include "gl/intel/intel_query_types.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A counter of a documented type: its INTEL name and the catalog counter behind it. */
struct counter_map {
    const char *intel_name;
    const char *catalog_name;    /* "GROUP/COUNTER" */
    uint64_t raw_max;            /* INTEL_RAW_MAX_* or a value; 0: none */
};

/* raw_max markers, resolved at build time. */
#define RAW_MAX_ONE_SECOND_NS 1000000000ull   /* one timeline: at most 1 s of time per s */
#define RAW_MAX_CPUS_SECOND_NS UINT64_MAX     /* 1 s per online CPU */

/* A documented query type: its name, caps, the catalog groups it takes, and the counters it
 * names. Counters of those groups that the table does not name follow the named ones, under
 * their catalog full names ("rusage/user-time"); only available counters are listed. */
struct type_map {
    const char *name;
    uint32_t caps;
    const char *groups[6];
    const struct counter_map *counters;
    size_t counter_count;
    int rest;                    /* list the other counters of the groups too */
    int full_names;              /* name the other counters "GROUP/COUNTER" */
};

static const struct counter_map pipeline_counters[] = {
    {"GPU Time Elapsed", "gl-pipeline/gpu-time-elapsed", RAW_MAX_ONE_SECOND_NS},
    {"Vertices Submitted", "gl-pipeline/vertices-submitted", 0},
    {"Primitives Submitted", "gl-pipeline/primitives-submitted", 0},
    {"Vertex Shader Invocations", "gl-pipeline/vertex-shader-invocations", 0},
    {"Tessellation Control Shader Patches", "gl-pipeline/tess-control-shader-patches", 0},
    {"Tessellation Evaluation Shader Invocations",
     "gl-pipeline/tess-evaluation-shader-invocations", 0},
    {"Geometry Shader Invocations", "gl-pipeline/geometry-shader-invocations", 0},
    {"Geometry Shader Primitives Emitted", "gl-pipeline/geometry-shader-primitives-emitted", 0},
    {"Fragment Shader Invocations", "gl-pipeline/fragment-shader-invocations", 0},
    {"Compute Shader Invocations", "gl-pipeline/compute-shader-invocations", 0},
    {"Clipper Input Primitives", "gl-pipeline/clipping-input-primitives", 0},
    {"Clipper Output Primitives", "gl-pipeline/clipping-output-primitives", 0},
    {"Samples Passed", "gl-pipeline/samples-passed", 0},
    {"Primitives Generated", "gl-pipeline/primitives-generated", 0},
    {"Split Occurred", "gl-pipeline/split-occurred", 0},
    {"GPU Time Disjoint", "gl-pipeline/gpu-time-disjoint", 0},
};

static const struct counter_map timer_counters[] = {
    {"GPU Time Elapsed", "gl-timer/gpu-time-elapsed", RAW_MAX_ONE_SECOND_NS},
    {"GPU Time Disjoint", "gl-timer/gpu-time-disjoint", 0},
};

static const struct counter_map host_counters[] = {
    {"CPU Time", "clock/process-cpu-time", RAW_MAX_CPUS_SECOND_NS},
    {"Wall Time", "clock/wall-time", RAW_MAX_ONE_SECOND_NS},
};

static const struct type_map type_maps[] = {
    {INTEL_TYPE_PIPELINE_STATISTICS, GL_PERFQUERY_SINGLE_CONTEXT_INTEL, {"gl-pipeline"},
     pipeline_counters, ARRAY_SIZE(pipeline_counters), 1, 0},
    {INTEL_TYPE_GPU_TIME, GL_PERFQUERY_SINGLE_CONTEXT_INTEL, {"gl-timer"},
     timer_counters, ARRAY_SIZE(timer_counters), 1, 0},
    /* GL_NV_query_resource's accounting (gl_memory_provider.c), counters under catalog names */
    {INTEL_TYPE_GL_MEMORY, GL_PERFQUERY_SINGLE_CONTEXT_INTEL, {"gl-memory"}, NULL, 0, 1, 0},
    {INTEL_TYPE_HOST_CPU, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL,
     {"clock", "host", "host-hw", "rusage", "proc-io"},
     host_counters, ARRAY_SIZE(host_counters), 1, 0},
};

static uint32_t intel_type_enum(perfq_intel_type_t t)
{
    switch (t) {
    case PERFQ_INTEL_EVENT: return GL_PERFQUERY_COUNTER_EVENT_INTEL;
    case PERFQ_INTEL_DURATION_NORM: return GL_PERFQUERY_COUNTER_DURATION_NORM_INTEL;
    case PERFQ_INTEL_DURATION_RAW: return GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL;
    case PERFQ_INTEL_THROUGHPUT: return GL_PERFQUERY_COUNTER_THROUGHPUT_INTEL;
    case PERFQ_INTEL_TIMESTAMP: return GL_PERFQUERY_COUNTER_TIMESTAMP_INTEL;
    case PERFQ_INTEL_RAW:
    default: return GL_PERFQUERY_COUNTER_RAW_INTEL;
    }
}

/* INTEL has no signed data types: signed counters travel as the unsigned type of their size
 * (two's complement), which the documentation states. */
static uint32_t data_type_enum(perfq_storage_t s, uint32_t *size)
{
    switch (s) {
    case PERFQ_STORAGE_INT32:
    case PERFQ_STORAGE_UINT32: *size = 4; return GL_PERFQUERY_COUNTER_DATA_UINT32_INTEL;
    case PERFQ_STORAGE_FLOAT32: *size = 4; return GL_PERFQUERY_COUNTER_DATA_FLOAT_INTEL;
    case PERFQ_STORAGE_FLOAT64: *size = 8; return GL_PERFQUERY_COUNTER_DATA_DOUBLE_INTEL;
    case PERFQ_STORAGE_BOOL32: *size = 4; return GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL;
    case PERFQ_STORAGE_INT64:
    case PERFQ_STORAGE_UINT64:
    default: *size = 8; return GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL;
    }
}

static int group_index(const perfq_t *pq, const char *name, uint32_t *index)
{
    uint32_t n = 0;
    perfq_group_count(pq, &n);
    for (uint32_t g = 0; g < n; g++) {
        perfq_group_info_t gi;
        if (perfq_group_info(pq, g, &gi) == PERFQ_OK && strcmp(gi.name, name) == 0) {
            *index = g;
            return 1;
        }
    }
    return 0;
}

static int group_in(const struct type_map *map, const char *group)
{
    for (size_t i = 0; i < ARRAY_SIZE(map->groups) && map->groups[i]; i++)
        if (strcmp(map->groups[i], group) == 0)
            return 1;
    return 0;
}

/* Device types: one per NVIDIA device N (NVML index), taking the groups "PREFIX-gpuN" of each
 * prefix; device 0's type has the plain name, device N's "NAME N" (docs: "NVIDIA Device"). */
struct device_type_map {
    const char *name;
    const char *prefixes[3];
};

static const struct device_type_map device_types[] = {
    {INTEL_TYPE_NVIDIA_DEVICE, {"nvml", "gpm"}},
    {INTEL_TYPE_NVIDIA_HARDWARE, {"cupti"}},
};

#define DEVICE_TYPES_MAX_DEVICES 8

/* Is group "PREFIX-gpuN" of a device type? */
static int device_group(const char *group)
{
    for (size_t t = 0; t < ARRAY_SIZE(device_types); t++)
        for (size_t p = 0; p < ARRAY_SIZE(device_types[t].prefixes) &&
                           device_types[t].prefixes[p]; p++) {
            const char *prefix = device_types[t].prefixes[p];
            size_t n = strlen(prefix);
            if (strncmp(group, prefix, n) == 0 && strncmp(group + n, "-gpu", 4) == 0 &&
                group[n + 4] >= '0' && group[n + 4] <= '9')
                return 1;
        }
    return 0;
}

/* Providers whose groups are no INTEL query type:
 * - "gl-driver": the GL layer's "Driver Counters" (in the process engine for EGL_BRCM), no
 *   INTEL type so that the list is what it was before the engine was shared;
 * - "cupti-range": CUPTI's range profiler measures the CUDA work of the calling thread's own
 *   CUDA context between begin and end (docs/nvidia-providers.md), which a GL query cannot
 *   bracket: a GL thread has no current CUDA context (creation refused, PERFQ_ESTATE), and its
 *   whole group needs two passes on GH100 (refused, PERFQ_EPASSES), so such a type could be
 *   listed but never created. */
static const char *const not_intel_providers[] = {"gl-driver", "cupti-range"};

static int provider_excluded(const char *provider)
{
    for (size_t i = 0; i < ARRAY_SIZE(not_intel_providers); i++)
        if (strcmp(provider, not_intel_providers[i]) == 0)
            return 1;
    return 0;
}

static int group_taken(const char *group)
{
    for (size_t t = 0; t < ARRAY_SIZE(type_maps); t++)
        if (group_in(&type_maps[t], group))
            return 1;
    return device_group(group);
}

/* A type under construction. */
struct builder {
    const perfq_t *pq;           /* the instance being read, source's entry of the list */
    uint32_t source;
    struct intel_query_type type;
    uint32_t cap;
    uint32_t *group_used;        /* counters taken per catalog group, for max_active */
};

static int builder_has(const struct builder *b, perfq_counter_id_t id)
{
    for (uint32_t i = 0; i < b->type.counter_count; i++)
        if (b->type.ids[i] == id)
            return 1;
    return 0;
}

/* Appends catalog counter id under name (NULL: the catalog name), when it is available, not
 * already in, and its group's max_active leaves room. */
static perfq_status_t builder_add(struct builder *b, perfq_counter_id_t id, const char *name,
                                  uint64_t raw_max)
{
    perfq_counter_info_t ci;
    perfq_group_info_t gi;
    if (perfq_counter_info(b->pq, id, &ci) != PERFQ_OK || !ci.available || builder_has(b, id))
        return PERFQ_OK;
    if (perfq_group_info(b->pq, ci.group, &gi) != PERFQ_OK || !gi.available)
        return PERFQ_OK;
    if (gi.max_active && b->group_used[ci.group] >= gi.max_active)
        return PERFQ_OK;
    if (b->type.counter_count == b->cap) {
        uint32_t ncap = b->cap ? b->cap * 2 : 16;
        struct intel_counter *nc = realloc(b->type.counters, ncap * sizeof(*nc));
        if (!nc)
            return PERFQ_ENOMEM;
        b->type.counters = nc;
        perfq_counter_id_t *ni = realloc(b->type.ids, ncap * sizeof(*ni));
        if (!ni)
            return PERFQ_ENOMEM;
        b->type.ids = ni;
        b->cap = ncap;
    }
    struct intel_counter *c = &b->type.counters[b->type.counter_count];
    memset(c, 0, sizeof(*c));
    c->name = name ? name : ci.name;
    c->description = ci.description;
    c->catalog_id = id;
    c->storage = ci.storage;
    c->type_enum = intel_type_enum(ci.intel_type);
    c->data_type_enum = data_type_enum(ci.storage, &c->size);
    if (raw_max == RAW_MAX_CPUS_SECOND_NS) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        raw_max = RAW_MAX_ONE_SECOND_NS * (uint64_t)(cpus > 0 ? cpus : 1);
    } else if (!raw_max && ci.intel_type == PERFQ_INTEL_RAW) {
        /* A gauge's bound holds in any second. */
        raw_max = ci.max;
    }
    c->raw_max = raw_max;
    b->type.ids[b->type.counter_count++] = id;
    b->group_used[ci.group]++;
    return PERFQ_OK;
}

static void layout(const perfq_t *pq, struct intel_query_type *t)
{
    uint32_t off = 0;
    t->cpu_timeline = 1;
    for (uint32_t i = 0; i < t->counter_count; i++) {
        perfq_counter_info_t ci;
        perfq_group_info_t gi;
        if (perfq_counter_info(pq, t->ids[i], &ci) != PERFQ_OK ||
            perfq_group_info(pq, ci.group, &gi) != PERFQ_OK ||
            gi.scope == PERFQ_SCOPE_GPU_TIMELINE || gi.scope == PERFQ_SCOPE_DEVICE)
            /* Device groups (NVML, GPM, CUPTI) compute means over their own [begin, end]
             * (interpolated by their samplers): two samples of one shared measurement would
             * give means since the shared begin, so each instance measures on its own. */
            t->cpu_timeline = 0;
    }
    for (uint32_t i = 0; i < t->counter_count; i++) {
        struct intel_counter *c = &t->counters[i];
        off = (off + c->size - 1) / c->size * c->size;
        c->offset = off;
        off += c->size;
    }
    t->data_size = (off + 7u) / 8u * 8u;
}

static void type_free(struct intel_query_type *t)
{
    free(t->name);
    free(t->counters);
    free(t->ids);
    memset(t, 0, sizeof(*t));
}

/* Finishes the builder's type into out (taking its arrays), or drops it when empty. */
static perfq_status_t types_push(struct intel_query_types *out, struct builder *b,
                                 const char *name, uint32_t caps)
{
    if (b->type.counter_count == 0) {
        type_free(&b->type);
        return PERFQ_OK;
    }
    b->type.name = strdup(name);
    struct intel_query_type *nt = realloc(out->types, (out->count + 1) * sizeof(*nt));
    if (!b->type.name || !nt) {
        if (nt)
            out->types = nt;
        type_free(&b->type);
        return PERFQ_ENOMEM;
    }
    out->types = nt;
    b->type.caps = caps;
    b->type.source = b->source;
    layout(b->pq, &b->type);
    out->types[out->count++] = b->type;
    memset(&b->type, 0, sizeof(b->type));
    b->cap = 0;
    return PERFQ_OK;
}

static perfq_status_t build_mapped(const perfq_t *pq, const struct type_map *map,
                                   struct builder *b)
{
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; i < map->counter_count && st == PERFQ_OK; i++) {
        perfq_counter_id_t id;
        if (perfq_counter_find(pq, map->counters[i].catalog_name, &id) == PERFQ_OK)
            st = builder_add(b, id, map->counters[i].intel_name, map->counters[i].raw_max);
    }
    for (size_t g = 0; map->rest && g < ARRAY_SIZE(map->groups) && map->groups[g] &&
                       st == PERFQ_OK; g++) {
        uint32_t gi_index;
        perfq_group_info_t gi;
        if (!group_index(pq, map->groups[g], &gi_index) ||
            perfq_group_info(pq, gi_index, &gi) != PERFQ_OK)
            continue;
        for (uint32_t k = 0; k < gi.counter_count && st == PERFQ_OK; k++) {
            perfq_counter_info_t ci;
            perfq_counter_id_t id = gi.first_counter + k;
            if (perfq_counter_info(pq, id, &ci) != PERFQ_OK)
                continue;
            /* Unnamed counters of a type that takes several groups keep their group in the
             * name, so that names stay unique ("rusage/minor-faults", "host/minor-faults"). */
            int many = map->full_names || map->groups[1] != NULL;
            st = builder_add(b, id, many ? ci.full_name : ci.name, 0);
        }
    }
    return st;
}

/* Orders the types by counter count, fewest first, keeping the build order among equals
 * (insertion sort: a handful of types). Query ids are then as small as they can be where the
 * counters are few: apitrace's INTEL backend (metric_backend_intel_perfquery.cpp, enableMetric)
 * refuses a query whose id is not below its own counter count, so with "GPU Time" (2 counters)
 * at id 3 nothing of it could be selected. Sorted this way every type satisfies id < counter
 * count whenever any order could (if the k-th fewest had k counters or less, k types would
 * need the k-1 ids below k); a type of one counter never can (none today). */
static void types_order(struct intel_query_types *out)
{
    for (uint32_t i = 1; i < out->count; i++) {
        struct intel_query_type t = out->types[i];
        uint32_t j = i;
        while (j > 0 && out->types[j - 1].counter_count > t.counter_count) {
            out->types[j] = out->types[j - 1];
            j--;
        }
        out->types[j] = t;
    }
}

perfq_status_t intel_query_types_build(const perfq_t *pq, struct intel_query_types *out)
{
    return intel_query_types_build_from(&pq, 1, out);
}

/* Points the builder at instance i of the list. */
static void builder_use(struct builder *b, const perfq_t *const *pqs, uint32_t *const *used,
                        uint32_t i)
{
    b->pq = pqs[i];
    b->source = i;
    b->group_used = used[i];
}

perfq_status_t intel_query_types_build_from(const perfq_t *const *pqs, uint32_t n_pq,
                                            struct intel_query_types *out)
{
    if (!pqs || !n_pq || !out)
        return PERFQ_EINVAL;
    for (uint32_t i = 0; i < n_pq; i++)
        if (!pqs[i])
            return PERFQ_EINVAL;
    memset(out, 0, sizeof(*out));
    /* Counters taken per catalog group, one array per instance (for max_active). */
    uint32_t **used = calloc(n_pq, sizeof(*used));
    perfq_status_t st = used ? PERFQ_OK : PERFQ_ENOMEM;
    for (uint32_t i = 0; i < n_pq && st == PERFQ_OK; i++) {
        uint32_t group_count = 0;
        perfq_group_count(pqs[i], &group_count);
        used[i] = calloc(group_count ? group_count : 1, sizeof(*used[i]));
        if (!used[i])
            st = PERFQ_ENOMEM;
    }
    struct builder b = {0};

    /* A mapped type comes from the first instance whose catalog gives it counters. */
    for (size_t t = 0; t < ARRAY_SIZE(type_maps) && st == PERFQ_OK; t++) {
        for (uint32_t i = 0; i < n_pq && st == PERFQ_OK && !b.type.counter_count; i++) {
            builder_use(&b, pqs, used, i);
            st = build_mapped(pqs[i], &type_maps[t], &b);
        }
        if (st == PERFQ_OK)
            st = types_push(out, &b, type_maps[t].name, type_maps[t].caps);
    }
    /* One type per NVIDIA device and device type map, with the groups of that device (from the
     * first instance that has any of them). */
    for (size_t t = 0; t < ARRAY_SIZE(device_types) && st == PERFQ_OK; t++)
        for (unsigned d = 0; d < DEVICE_TYPES_MAX_DEVICES && st == PERFQ_OK; d++) {
            char groups[ARRAY_SIZE(device_types[t].prefixes)][32];
            struct type_map map = {device_types[t].name, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL,
                                   {NULL}, NULL, 0, 1, 1};
            size_t n = 0;
            uint32_t i = 0;
            for (; i < n_pq && !n; i++)
                for (size_t p = 0; p < ARRAY_SIZE(device_types[t].prefixes) &&
                                   device_types[t].prefixes[p]; p++) {
                    snprintf(groups[n], sizeof(groups[n]), "%s-gpu%u",
                             device_types[t].prefixes[p], d);
                    uint32_t unused;
                    if (group_index(pqs[i], groups[n], &unused)) {
                        map.groups[n] = groups[n];
                        n++;
                    }
                }
            if (!n)
                continue;
            builder_use(&b, pqs, used, i - 1);
            /* Counters keep their full catalog names ("nvml-gpu0/energy",
             * "gpm-gpu0/sm-activity"): unique across the type's groups. */
            char name[INTEL_QUERY_NAME_LENGTH_MAX];
            if (d == 0)
                snprintf(name, sizeof(name), "%s", device_types[t].name);
            else
                snprintf(name, sizeof(name), "%s %u", device_types[t].name, d);
            st = build_mapped(b.pq, &map, &b);
            if (st == PERFQ_OK)
                st = types_push(out, &b, name, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
        }
    /* Every other available group is a query type of its own, in catalog order. */
    for (uint32_t i = 0; i < n_pq && st == PERFQ_OK; i++) {
        builder_use(&b, pqs, used, i);
        uint32_t group_count = 0;
        perfq_group_count(pqs[i], &group_count);
        for (uint32_t g = 0; g < group_count && st == PERFQ_OK; g++) {
            perfq_group_info_t gi;
            if (perfq_group_info(pqs[i], g, &gi) != PERFQ_OK || !gi.available ||
                group_taken(gi.name) || provider_excluded(gi.provider))
                continue;
            for (uint32_t k = 0; k < gi.counter_count && st == PERFQ_OK; k++)
                st = builder_add(&b, gi.first_counter + k, NULL, 0);
            if (st == PERFQ_OK)
                st = types_push(out, &b, gi.name,
                                gi.scope == PERFQ_SCOPE_GPU_TIMELINE
                                    ? GL_PERFQUERY_SINGLE_CONTEXT_INTEL
                                    : GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
        }
    }
    type_free(&b.type);
    for (uint32_t i = 0; used && i < n_pq; i++)
        free(used[i]);
    free(used);
    if (st != PERFQ_OK)
        intel_query_types_free(out);
    else
        types_order(out);
    return st;
}

void intel_query_types_free(struct intel_query_types *types)
{
    if (!types)
        return;
    for (uint32_t i = 0; i < types->count; i++)
        type_free(&types->types[i]);
    free(types->types);
    memset(types, 0, sizeof(*types));
}

uint32_t intel_query_type_write_result(const struct intel_query_type *type,
                                       const perfq_value_t *values, void *data,
                                       size_t data_size)
{
    unsigned char *out = data;
    uint32_t end = 0;
    for (uint32_t i = 0; i < type->counter_count; i++) {
        const struct intel_counter *c = &type->counters[i];
        if ((size_t)c->offset + c->size > data_size)
            break;
        /* Zero the padding before this counter. */
        if (c->offset > end)
            memset(out + end, 0, c->offset - end);
        if (c->size == 4) {
            uint32_t v = values[i].v.u32;   /* u32, i32, f32 and bool32 share these bytes */
            memcpy(out + c->offset, &v, 4);
        } else {
            uint64_t v = values[i].v.u64;   /* u64, i64 and f64 share these bytes */
            memcpy(out + c->offset, &v, 8);
        }
        end = c->offset + c->size;
    }
    if (end == type->counters[type->counter_count - 1].offset +
                   type->counters[type->counter_count - 1].size &&
        type->data_size <= data_size) {
        memset(out + end, 0, type->data_size - end);
        end = type->data_size;
    }
    return end;
}
