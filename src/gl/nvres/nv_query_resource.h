/*
 * GL_NV_query_resource(_tag)'s front end (nv_query_resource.c): what the layer's other parts and
 * the white-box tests may ask of it.
 */
#ifndef PERFQ_GL_NV_QUERY_RESOURCE_H
#define PERFQ_GL_NV_QUERY_RESOURCE_H

#include <stdint.h>

#include "gl/gl_layer.h"
#include "gl/dispatch/wrappers.h"

struct perfq_nvres_group;

/* The accounting table in a share group's front-end data (the observer's `data`). */
struct perfq_nvres_group *perfq_nv_query_resource_table(void *group_data);
/* The accounting table of the context's share group (NULL before its first make-current). */
struct perfq_nvres_group *perfq_nv_query_resource_group(struct perfq_gl_context *ctx);
/* The context's current tag (glQueryResourceTagNV; 0 = tagging off). */
int32_t perfq_nv_query_resource_current_tag(struct perfq_gl_context *ctx);
/* A context's state (CONTEXT-scope front-end data): its current tag, and the last storage call
 * its observer applied to the share group's table, for the observer's fast path
 * (nv_query_resource_observe.c): a call that sets the same object to the same storage under the
 * same tag, while no object of the group changed since (the group's generation), changes
 * nothing and skips the table. */
struct perfq_nv_last_storage {
    uint64_t generation;                /* the group's, returned by that change; 0: none */
    GLuint object;
    int32_t tag;
    struct perfq_gl_object_call call;   /* its fields that size the storage */
};
struct perfq_nv_context_state {
    int32_t current_tag;                /* 0 = tagging off */
    struct perfq_nv_last_storage last;
};
/* NULL before the context's first make-current. */
struct perfq_nv_context_state *perfq_nv_query_resource_context(struct perfq_gl_context *ctx);
/* The object observer (nv_query_resource_observe.c): storage calls into the share group's table. */
void perfq_nv_query_resource_observe(struct perfq_gl_context *ctx, void *data,
                                     const struct perfq_gl_object_call *call);
/* Share groups with accounting tables alive. */
uint64_t perfq_nv_query_resource_group_count(void);
/* What `perfq memory` reports of one share group (nvres_server.c). */
struct perfq_nv_query_resource_group_info {
    uint64_t id;                        /* 1, 2, ... in creation order, never reused */
    struct perfq_nvres_group *acc;
    int memory_source;                  /* perfq_nvres_memory_source_t */
    /* The device's memory as last read on the program's GL thread (at the group's creation and
     * at each glQueryResourceNV), in KiB; -1 where the source has no value. */
    int64_t cached_total_kib, cached_free_kib;
};
/* Calls fn for every share group's table, under the group list's lock (fn must not create or
 * destroy contexts, nor call GL). */
void perfq_nv_query_resource_foreach(void (*fn)(const struct perfq_nv_query_resource_group_info *g,
                                                void *arg),
                                     void *arg);

#endif
