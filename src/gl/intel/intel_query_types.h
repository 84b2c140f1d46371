/*
 * GL_INTEL_performance_query: the query types of one GL context, as a view of the perfq catalog.
 *
 * A query type is a set of catalog counters measured together. A small table
 * (intel_query_types.c) names the documented types ("Pipeline Statistics", "Host CPU") and the
 * catalog groups behind them; every other available catalog group (one added by a later
 * provider: NVML, CUPTI...) becomes a query type of its own, named after the group, with no code
 * here. The catalog is whole and fixed once perfq_group_count() has returned (it lists the
 * deferred providers first: perfq.h, perfq_open), so the list is built once per context and
 * query ids stay stable for the context's life.
 *
 * The result layout of a type: its counters in order, each at an offset aligned to its own size,
 * the total rounded up to 8 bytes (docs/intel-performance-query.md, "Result layout").
 */
#ifndef PERFQ_GL_INTEL_QUERY_TYPES_H
#define PERFQ_GL_INTEL_QUERY_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "perfq/perfq.h"

/* The INTEL spec's limits (its "New Implementation Dependent State" table). */
#define INTEL_QUERY_NAME_LENGTH_MAX 256
#define INTEL_COUNTER_NAME_LENGTH_MAX 256
#define INTEL_COUNTER_DESC_LENGTH_MAX 1024

/* The names of the documented query types. */
#define INTEL_TYPE_PIPELINE_STATISTICS "Pipeline Statistics"
#define INTEL_TYPE_GPU_TIME "GPU Time"
#define INTEL_TYPE_HOST_CPU "Host CPU"
#define INTEL_TYPE_GL_MEMORY "GL Memory"
#define INTEL_TYPE_NVIDIA_DEVICE "NVIDIA Device"
#define INTEL_TYPE_NVIDIA_HARDWARE "NVIDIA GPU Hardware"

struct intel_counter {
    const char *name;            /* points into the catalog or the mapping table */
    const char *description;
    perfq_counter_id_t catalog_id;
    perfq_storage_t storage;     /* the catalog's storage type of the value */
    uint32_t offset;             /* byte offset in the result */
    uint32_t size;               /* bytes: 4 or 8 */
    uint32_t type_enum;          /* GL_PERFQUERY_COUNTER_*_INTEL */
    uint32_t data_type_enum;     /* GL_PERFQUERY_COUNTER_DATA_*_INTEL */
    uint64_t raw_max;            /* "maximal value of the counter in 1 second", else 0 */
};

struct intel_query_type {
    char *name;
    uint32_t caps;               /* GL_PERFQUERY_SINGLE_CONTEXT_INTEL or _GLOBAL_CONTEXT_INTEL */
    uint32_t data_size;          /* bytes of a whole result */
    uint32_t counter_count;
    struct intel_counter *counters;
    perfq_counter_id_t *ids;     /* catalog ids in counter order, for perfq_measurement_create */
    int cpu_timeline;            /* no counter is on a GPU timeline: values can be sampled */
    uint32_t source;             /* the instance (index in intel_query_types_build_from's
                                  * list) whose catalog ids these are */
};

struct intel_query_types {
    uint32_t count;
    struct intel_query_type *types;
};

/* Builds the list of query types from pq's catalog. */
perfq_status_t intel_query_types_build(const perfq_t *pq, struct intel_query_types *out);
/* The same over the catalogs of n instances (the process's built-ins, a GL context's own
 * providers): a type takes its counters from one instance, the first whose catalog gives it any
 * (its `source`); the other groups follow instance by instance, each in catalog order. */
perfq_status_t intel_query_types_build_from(const perfq_t *const *pqs, uint32_t n,
                                            struct intel_query_types *out);
void intel_query_types_free(struct intel_query_types *types);

/* Writes one result: each counter whose bytes lie wholly inside [0, data_size) (whole counters
 * only, never a byte past data_size). Returns the bytes written: the type's data_size when all
 * counters fit, else the end of the last counter written (0 when none fit). Padding bytes of
 * the layout are written as zero. */
uint32_t intel_query_type_write_result(const struct intel_query_type *type,
                                       const perfq_value_t *values, void *data,
                                       size_t data_size);

#endif
