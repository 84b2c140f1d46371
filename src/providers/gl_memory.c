/*
 * Provider "gl-memory" as catalog data (gl_memory.h). Listed by libperfq (`perfq list`, the C
 * API) unavailable, with the reason: only the GL layer, which sees a program's storage calls,
 * counts it. Values are levels (PERFQ_INTEL_RAW): KiB each object rounded up
 * (docs/nv-query-resource.md).
 */
#include <stdio.h>

#include "providers/gl_memory.h"

const struct perfq_group_desc perfq_gl_memory_group = {
    "gl-memory", "GL Memory: video memory the GL context's share group holds in textures, "
    "renderbuffers and buffer objects, by type, for the context's current resource tag and for "
    "each of the share group's tag ids 1 to 16, as GL_NV_query_resource reports it (KiB, each "
    "object rounded up), and the device's total and free video memory", PERFQ_SCOPE_PROCESS, 0};

/* Tag k's two counters (k = 1..PERFQ_GL_MEMORY_TAG_SLOTS): the tag with id k of the share group,
 * whatever context made it current. */
#define TAG(k) \
    C("tag-" #k "-allocations", "Tags", "Objects holding storage that belong to resource tag id " \
      #k " of the share group (GL_NV_query_resource_tag: ids are 1, 2, 3, ... in " \
      "glGenQueryResourceTagNV order, never reused); 0 while the tag has no state or after it " \
      "is deleted, as glQueryResourceNV reports it", PERFQ_GL_MEMORY_TAGS + 2 * ((k) - 1)), \
    C("tag-" #k "-kib", "Tags", "KiB of resource tag id " #k " of the share group (each object " \
      "rounded up); 0 while the tag has no state or after it is deleted", \
      PERFQ_GL_MEMORY_TAGS + 2 * ((k) - 1) + 1)

#define C(n, cat, d, w) \
    {n, cat, d, PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_RAW, 0, 0, 1, 0, w}
const struct perfq_counter_desc perfq_gl_memory_counters[PERFQ_GL_MEMORY_COUNT] = {
    C("texture-allocations", "Textures", "Textures holding storage", PERFQ_GL_MEMORY_TEX_ALLOCS),
    C("texture-kib", "Textures", "KiB of texture storage (every level and face)",
      PERFQ_GL_MEMORY_TEX_KIB),
    C("renderbuffer-allocations", "Renderbuffers", "Renderbuffers holding storage",
      PERFQ_GL_MEMORY_RB_ALLOCS),
    C("renderbuffer-kib", "Renderbuffers", "KiB of renderbuffer storage",
      PERFQ_GL_MEMORY_RB_KIB),
    C("buffer-allocations", "Buffers", "Buffer objects holding storage",
      PERFQ_GL_MEMORY_BUF_ALLOCS),
    C("buffer-kib", "Buffers", "KiB of buffer object storage", PERFQ_GL_MEMORY_BUF_KIB),
    C("allocations", "Total", "Objects holding storage, all types", PERFQ_GL_MEMORY_ALLOCS),
    C("kib", "Total", "KiB of storage, all types", PERFQ_GL_MEMORY_KIB),
    C("current-tag-allocations", "Tag", "Objects of the resource tag current in the context "
      "(glQueryResourceTagNV; 0 when tagging is off)", PERFQ_GL_MEMORY_TAG_ALLOCS),
    C("current-tag-kib", "Tag", "KiB of the resource tag current in the context",
      PERFQ_GL_MEMORY_TAG_KIB),
    C("device-total-kib", "Device", "Total video memory of the device, KiB",
      PERFQ_GL_MEMORY_DEV_TOTAL),
    C("device-free-kib", "Device", "Free video memory of the device now, KiB",
      PERFQ_GL_MEMORY_DEV_FREE),
    TAG(1), TAG(2), TAG(3), TAG(4), TAG(5), TAG(6), TAG(7), TAG(8),
    TAG(9), TAG(10), TAG(11), TAG(12), TAG(13), TAG(14), TAG(15), TAG(16),
};
_Static_assert(PERFQ_GL_MEMORY_TAG_SLOTS == 16, "one TAG() per slot above");
#undef TAG
#undef C

static perfq_status_t listing_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    (void)state;
    if (size)
        snprintf(reason, size, "%s", "counted inside a GL program by perfq's GL layer "
                 "libperfq-gl.so (perfq run): GL_INTEL_performance_query query type "
                 "\"GL Memory\", the C API in the program, perfq memory PID");
    return PERFQ_ENOTSUP;
}

static perfq_status_t listing_enumerate(void *state, struct perfq_catalog *catalog,
                                        const char *probe_reason)
{
    (void)state;
    return perfq_catalog_add_table(catalog, &perfq_gl_memory_group, perfq_gl_memory_counters,
                                   PERFQ_GL_MEMORY_COUNT, probe_reason);
}

const struct perfq_provider_ops perfq_gl_memory_catalog_provider = {
    .name = PERFQ_GL_MEMORY_PROVIDER_NAME,
    .probe = listing_probe,
    .enumerate = listing_enumerate,
};
