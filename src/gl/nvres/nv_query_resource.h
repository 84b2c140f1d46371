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
/* The object observer (nv_query_resource_observe.c): storage calls into the share group's table. */
void perfq_nv_query_resource_observe(struct perfq_gl_context *ctx, void *data,
                                     const struct perfq_gl_object_call *call);
/* Share groups with accounting tables alive. */
uint64_t perfq_nv_query_resource_group_count(void);
/* Calls fn for every share group's table, under the group list's lock (fn must not create or
 * destroy contexts). */
void perfq_nv_query_resource_foreach(void (*fn)(uint64_t share_group,
                                                struct perfq_nvres_group *acc, void *arg),
                                     void *arg);

#endif
