/*
 * Provider "gl-memory" (GL Memory): the numbers of GL_NV_query_resource as catalog counters of
 * one GL context, so that the C API and GL_INTEL_performance_query (query type "GL Memory") offer
 * them: allocations and KiB per object type (textures, renderbuffers, buffer objects) and in all,
 * of the context's share group; the same for the tag current in the context and for each of the
 * share group's tag ids 1..PERFQ_GL_MEMORY_TAG_SLOTS; the device's total and free video memory
 * from the context's memory source (nvres_memory.c).
 *
 * Every value is a level, not a count of events (PERFQ_INTEL_RAW): a measurement reads it at
 * sample and at end; the result is the level at end. KiB follow the accounting's rule (each
 * object rounded up to whole KiB: docs/nv-query-resource.md). Device memory counters are
 * unavailable, with the reason, where the context has no source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/nvres/gl_memory_provider.h"
#include "gl/providers/gl_provider.h"
#include "gl/nvres/nv_query_resource.h"
#include "gl/nvres/nvres_accounting.h"
#include "gl/nvres/nvres_memory.h"
#include "providers/gl_memory.h"

/* The group and its counters are catalog data shared with libperfq's listing
 * (providers/gl_memory.h); code2 says what each reads. */
typedef enum perfq_gl_memory_code what_t;

struct state {
    struct gl_provider_link *link;
    perfq_nvres_memory_source_t memory;
};

struct session {
    struct state *s;
    size_t count;
    what_t *what;
    perfq_value_t *last;            /* the levels read at end */
};

static perfq_status_t mem_probe(void *arg, void **state, char *reason, size_t size)
{
    struct gl_provider_link *link = arg;
    if (!link || !link->ctx || !perfq_nv_query_resource_group(link->ctx)) {
        snprintf(reason, size, "needs a GL context under perfq's GL layer "
                 "(GL_NV_query_resource's accounting)");
        return PERFQ_ENOTSUP;
    }
    struct state *s = calloc(1, sizeof *s);
    if (!s)
        return PERFQ_ENOMEM;
    s->link = link;
    s->memory = perfq_nvres_memory_source(link->ctx);
    *state = s;
    return PERFQ_OK;
}

static perfq_status_t mem_enumerate(void *state, struct perfq_catalog *catalog,
                                    const char *probe_reason)
{
    struct state *s = state;
    uint32_t gi;
    perfq_status_t st = perfq_catalog_add_group(catalog, &perfq_gl_memory_group, s ? NULL : probe_reason, &gi);
    if (st != PERFQ_OK)
        return st;
    int64_t total = -1, free_kib = -1;
    if (s)
        perfq_nvres_memory_read(s->link->ctx, s->memory, &total, &free_kib);
    for (int i = 0; i < PERFQ_GL_MEMORY_COUNT && st == PERFQ_OK; i++) {
        const char *why = NULL;
        if (s && i == PERFQ_GL_MEMORY_DEV_TOTAL && total < 0)
            why = s->memory == PERFQ_NVRES_MEM_NONE ? "no source of video memory in this "
                  "driver (no GL_NVX_gpu_memory_info, GL_ATI_meminfo, software renderer)"
                  : "the driver's source gives free memory only (GL_ATI_meminfo)";
        if (s && i == PERFQ_GL_MEMORY_DEV_FREE && free_kib < 0)
            why = "no source of video memory in this driver (no GL_NVX_gpu_memory_info, "
                  "GL_ATI_meminfo, software renderer)";
        st = perfq_catalog_add_counter(catalog, gi, &perfq_gl_memory_counters[i], s ? why : probe_reason);
    }
    return st;
}

static perfq_status_t mem_session_open(void *state, const struct perfq_session_request *req,
                                       void **session)
{
    struct session *ss = calloc(1, sizeof *ss);
    if (!ss)
        return PERFQ_ENOMEM;
    ss->s = state;
    ss->count = req->count;
    ss->what = calloc(req->count ? req->count : 1, sizeof *ss->what);
    ss->last = calloc(req->count ? req->count : 1, sizeof *ss->last);
    if (!ss->what || !ss->last) {
        free(ss->what);
        free(ss->last);
        free(ss);
        return PERFQ_ENOMEM;
    }
    for (size_t i = 0; i < req->count; i++)
        ss->what[i] = (what_t)req->counters[i]->code2;
    *session = ss;
    return PERFQ_OK;
}

static perfq_status_t read_levels(struct session *ss, perfq_value_t *values)
{
    struct perfq_gl_context *ctx = ss->s->link->ctx;
    if (ss->s->link->gl_lost)
        return PERFQ_ESTATE;
    struct perfq_nvres_group *acc = perfq_nv_query_resource_group(ctx);
    if (!acc)
        return PERFQ_ESTATE;
    struct perfq_nvres_totals t[PERFQ_NVRES_NTYPES], tag, tags[PERFQ_GL_MEMORY_TAG_SLOTS];
    for (int k = 0; k < PERFQ_NVRES_NTYPES; k++)
        perfq_nvres_type_totals(acc, (perfq_nvres_type_t)k, &t[k]);
    perfq_nvres_tag_totals(acc, perfq_nv_query_resource_current_tag(ctx), &tag);
    perfq_nvres_tags_reported_totals(acc, 1, PERFQ_GL_MEMORY_TAG_SLOTS, tags);
    int64_t total = -1, free_kib = -1;
    perfq_nvres_memory_read(ctx, ss->s->memory, &total, &free_kib);
    for (size_t i = 0; i < ss->count; i++) {
        uint64_t v = 0;
        switch (ss->what[i]) {
        case PERFQ_GL_MEMORY_TEX_ALLOCS: v = t[PERFQ_NVRES_TEXTURE].allocs; break;
        case PERFQ_GL_MEMORY_TEX_KIB: v = t[PERFQ_NVRES_TEXTURE].kib; break;
        case PERFQ_GL_MEMORY_RB_ALLOCS: v = t[PERFQ_NVRES_RENDERBUFFER].allocs; break;
        case PERFQ_GL_MEMORY_RB_KIB: v = t[PERFQ_NVRES_RENDERBUFFER].kib; break;
        case PERFQ_GL_MEMORY_BUF_ALLOCS: v = t[PERFQ_NVRES_BUFFER].allocs; break;
        case PERFQ_GL_MEMORY_BUF_KIB: v = t[PERFQ_NVRES_BUFFER].kib; break;
        case PERFQ_GL_MEMORY_ALLOCS:
            v = t[0].allocs + t[1].allocs + t[2].allocs;
            break;
        case PERFQ_GL_MEMORY_KIB: v = t[0].kib + t[1].kib + t[2].kib; break;
        case PERFQ_GL_MEMORY_TAG_ALLOCS: v = tag.allocs; break;
        case PERFQ_GL_MEMORY_TAG_KIB: v = tag.kib; break;
        case PERFQ_GL_MEMORY_DEV_TOTAL: v = total > 0 ? (uint64_t)total : 0; break;
        case PERFQ_GL_MEMORY_DEV_FREE: v = free_kib > 0 ? (uint64_t)free_kib : 0; break;
        default:
            if (ss->what[i] >= PERFQ_GL_MEMORY_TAGS && ss->what[i] < PERFQ_GL_MEMORY_COUNT) {
                int k = (ss->what[i] - PERFQ_GL_MEMORY_TAGS) / 2;
                v = (ss->what[i] - PERFQ_GL_MEMORY_TAGS) % 2 ? tags[k].kib : tags[k].allocs;
            }
            break;
        }
        values[i].v.u64 = v;
    }
    return PERFQ_OK;
}

static perfq_status_t mem_begin(void *session)
{
    (void)session;
    return PERFQ_OK;
}

static perfq_status_t mem_sample(void *session, perfq_value_t *values)
{
    return read_levels(session, values);
}

static perfq_status_t mem_end(void *session)
{
    struct session *ss = session;
    return read_levels(ss, ss->last);
}

static perfq_status_t mem_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    struct session *ss = session;
    memcpy(values, ss->last, ss->count * sizeof *values);
    return PERFQ_OK;
}

static void mem_session_close(void *session)
{
    struct session *ss = session;
    if (!ss)
        return;
    free(ss->what);
    free(ss->last);
    free(ss);
}

static void mem_close(void *state)
{
    free(state);
}

const struct perfq_provider_ops perfq_gl_memory_provider = {
    .name = PERFQ_GL_MEMORY_PROVIDER_NAME,
    .probe = mem_probe,
    .enumerate = mem_enumerate,
    .session_open = mem_session_open,
    .begin = mem_begin,
    .sample = mem_sample,
    .end = mem_end,
    .result = mem_result,
    .session_close = mem_session_close,
    .close = mem_close,
};
