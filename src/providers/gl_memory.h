/*
 * Provider "gl-memory", group "gl-memory" (GL Memory): GL_NV_query_resource's accounting as
 * catalog counters, as data (gl_memory.c; no GL code), so that libperfq lists the group, marked
 * as counted inside a GL program by the GL layer. The GL layer's provider of the same name
 * (src/gl/gl_memory_provider.c) reads the same table and replaces this one in the instances it
 * opens per context (perfq__open_with: an extra provider replaces the built-in of its name).
 */
#ifndef PERFQ_PROVIDERS_GL_MEMORY_H
#define PERFQ_PROVIDERS_GL_MEMORY_H

#include "core/provider.h"

#define PERFQ_GL_MEMORY_PROVIDER_NAME "gl-memory"

/* Per-tag counters: tag ids 1..PERFQ_GL_MEMORY_TAG_SLOTS of the context's share group (ids are
 * 1, 2, 3, ... in glGenQueryResourceTagNV order, never reused), allocations and KiB each
 * (docs/nv-query-resource.md, "Per-tag counters"). */
#define PERFQ_GL_MEMORY_TAG_SLOTS 16

/* perfq_counter_desc.code2 of each counter: what the layer reads for it. Tag k (1-based):
 * allocations at PERFQ_GL_MEMORY_TAGS + 2 * (k - 1), KiB at the next code. */
enum perfq_gl_memory_code {
    PERFQ_GL_MEMORY_TEX_ALLOCS, PERFQ_GL_MEMORY_TEX_KIB, PERFQ_GL_MEMORY_RB_ALLOCS,
    PERFQ_GL_MEMORY_RB_KIB, PERFQ_GL_MEMORY_BUF_ALLOCS, PERFQ_GL_MEMORY_BUF_KIB,
    PERFQ_GL_MEMORY_ALLOCS, PERFQ_GL_MEMORY_KIB, PERFQ_GL_MEMORY_TAG_ALLOCS,
    PERFQ_GL_MEMORY_TAG_KIB, PERFQ_GL_MEMORY_DEV_TOTAL, PERFQ_GL_MEMORY_DEV_FREE,
    PERFQ_GL_MEMORY_TAGS,
    PERFQ_GL_MEMORY_COUNT = PERFQ_GL_MEMORY_TAGS + 2 * PERFQ_GL_MEMORY_TAG_SLOTS
};

PERFQ_API extern const struct perfq_group_desc perfq_gl_memory_group;
/* Indexed by enum perfq_gl_memory_code. */
PERFQ_API extern const struct perfq_counter_desc perfq_gl_memory_counters[PERFQ_GL_MEMORY_COUNT];
/* The built-in listing: unavailable, with the reason (no GL context in libperfq). */
extern const struct perfq_provider_ops perfq_gl_memory_catalog_provider;

#endif
