/*
 * GL_NV_query_resource and GL_NV_query_resource_tag (their extension
 * specifications; the layout the NVIDIA driver writes where they are silent) on every GL driver: the layer's storage observers feed one accounting table per share
 * group (nvres_accounting.c); the four entry points validate at the door in the order below, then
 * make one call down. Decisions where the spec is silent: docs/nv-query-resource.md.
 *
 * On a driver with its own implementation (NVIDIA), perfq's accounting answers by default;
 * PERFQ_NV_QUERY_RESOURCE=driver passes the four entry points through to the driver's.
 */
#include "gl/nvres/nv_query_resource.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/nvres/nvres_accounting.h"
#include "gl/nvres/nvres_stat.h"
#include "gl/nvres/nvres_memory.h"
#include "gl/nvres/nvres_server.h"

/* A share group's table (SHARE_GROUP-scope front end) and a context's current tag (CONTEXT-scope
 * front end): tags belong to the share group, the current tag to the context. */
struct nv_group {
    struct perfq_nvres_group *acc;
    perfq_nvres_memory_source_t memory;     /* the device's: every context of a group is on it */
    uint64_t id;                            /* for PERFQ_GL_DEBUG and `perfq memory` */
    int64_t total_kib, free_kib;            /* last read on the GL thread (atomic; -1 none) */
    struct nv_group *next;                  /* in the list of live groups (groups_lock) */
};


static int group_fe = -1, context_fe = -1;
static int passthrough;                     /* PERFQ_NV_QUERY_RESOURCE=driver */
static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;   /* the list, next_id */
static struct nv_group *groups;
static uint64_t n_groups, next_id;

static struct nv_group *group_of(struct perfq_gl_context *ctx)
{
    return ctx ? perfq_gl_frontend_data(group_fe, ctx) : NULL;
}

static struct perfq_nv_context_state *nv(struct perfq_gl_context *ctx)
{
    return ctx ? perfq_gl_frontend_data(context_fe, ctx) : NULL;
}

struct perfq_nvres_group *perfq_nv_query_resource_table(void *group_data)
{
    return group_data ? ((struct nv_group *)group_data)->acc : NULL;
}

struct perfq_nvres_group *perfq_nv_query_resource_group(struct perfq_gl_context *ctx)
{
    struct nv_group *g = group_of(ctx);
    return g ? g->acc : NULL;
}

struct perfq_nv_context_state *perfq_nv_query_resource_context(struct perfq_gl_context *ctx)
{
    return nv(ctx);
}

int32_t perfq_nv_query_resource_current_tag(struct perfq_gl_context *ctx)
{
    struct perfq_nv_context_state *n = nv(ctx);
    return n ? n->current_tag : 0;
}

/* ---- share groups and contexts ---- */

/* Reads the device's memory now (GL thread, context current) and keeps it for `perfq memory`,
 * whose server thread cannot call GL. */
static void remember_memory(struct nv_group *g, struct perfq_gl_context *ctx)
{
    int64_t total = -1, free_kib = -1;
    if (perfq_nvres_memory_read(ctx, g->memory, &total, &free_kib) != 0)
        total = free_kib = -1;
    __atomic_store_n(&g->total_kib, total, __ATOMIC_RELAXED);
    __atomic_store_n(&g->free_kib, free_kib, __ATOMIC_RELAXED);
}

static void *group_created(const struct perfq_gl_scope_object *at)
{
    struct nv_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    if (!(g->acc = perfq_nvres_group_new())) {
        free(g);
        return NULL;
    }
    g->memory = perfq_nvres_memory_source(at->ctx);
    remember_memory(g, at->ctx);
    pthread_mutex_lock(&groups_lock);
    g->id = ++next_id;
    g->next = groups;
    groups = g;
    n_groups++;
    pthread_mutex_unlock(&groups_lock);
    /* `perfq run`: answer `perfq memory` from now on (a thread started once per process). */
    perfq_nvres_server_start();
    if (getenv("PERFQ_GL_DEBUG"))
        fprintf(stderr, "perfq: GL_NV_query_resource: share group %llu, memory from %s%s\n",
                (unsigned long long)g->id, perfq_nvres_memory_source_name(g->memory),
                passthrough ? ", entry points passed to the driver where it has them" : "");
    return g;
}

/* The share group's last context is gone: its objects died with it, and so does its table. */
static void group_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    (void)at;
    (void)gl_usable;
    struct nv_group *g = data;
    if (!g)
        return;
    pthread_mutex_lock(&groups_lock);
    for (struct nv_group **p = &groups; *p; p = &(*p)->next) {
        if (*p == g) {
            *p = g->next;
            n_groups--;
            break;
        }
    }
    pthread_mutex_unlock(&groups_lock);
    perfq_nvres_stat_forget(g->acc);
    perfq_nvres_group_free(g->acc);
    free(g);
}

static void *context_created(const struct perfq_gl_scope_object *at)
{
    (void)at;
    return calloc(1, sizeof(struct perfq_nv_context_state));
}

static void context_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    (void)at;
    (void)gl_usable;
    free(data);
}

/* ---- the driver's own entry points (pass-through) ---- */

static PFNGLQUERYRESOURCENVPROC driver_query;
static PFNGLGENQUERYRESOURCETAGNVPROC driver_gen;
static PFNGLDELETEQUERYRESOURCETAGNVPROC driver_delete;
static PFNGLQUERYRESOURCETAGNVPROC driver_tag;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void resolve_driver(void)
{
    driver_query = (PFNGLQUERYRESOURCENVPROC)perfq_gl_resolve("glQueryResourceNV");
    driver_gen = (PFNGLGENQUERYRESOURCETAGNVPROC)perfq_gl_resolve("glGenQueryResourceTagNV");
    driver_delete =
        (PFNGLDELETEQUERYRESOURCETAGNVPROC)perfq_gl_resolve("glDeleteQueryResourceTagNV");
    driver_tag = (PFNGLQUERYRESOURCETAGNVPROC)perfq_gl_resolve("glQueryResourceTagNV");
}

/* 1 when this context passes the entry points to the driver: the switch is on and the driver
 * advertises the extension itself (elsewhere perfq answers: there is nothing to pass to). */
static int to_driver(struct perfq_gl_context *ctx)
{
    if (!passthrough || !ctx || !perfq_gl_has_driver_extension(ctx, "GL_NV_query_resource"))
        return 0;
    pthread_once(&driver_once, resolve_driver);
    return driver_query && driver_gen && driver_delete && driver_tag;
}

/* ---- entry points ---- */

PERFQ_GL_EXPORT GLint glQueryResourceNV(GLenum queryType, GLint tagId, GLuint count,
                                        GLint *buffer)
{
    struct perfq_gl_context *ctx = perfq_gl_current_context();
    if (to_driver(ctx))
        return driver_query(queryType, tagId, count, buffer);
    struct nv_group *n = group_of(ctx);
    if (!n || !nv(ctx))
        return 0;                           /* no context (or no memory for its state) */
    /* GL_NV_query_resource: the only queryType. NVIDIA: INVALID_ENUM, return 0. */
    if (queryType != GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV) {
        perfq_gl_record_error(ctx, GL_INVALID_ENUM);
        return 0;
    }
    int64_t total_kib, free_kib;
    if (perfq_nvres_memory_read(ctx, n->memory, &total_kib, &free_kib) != 0)
        total_kib = free_kib = -1;
    __atomic_store_n(&n->total_kib, total_kib, __ATOMIC_RELAXED);
    __atomic_store_n(&n->free_kib, free_kib, __ATOMIC_RELAXED);
    if (free_kib < 0)
        free_kib = 0;                       /* no source: documented as 0 */
    int32_t free32 = free_kib > INT32_MAX ? INT32_MAX : (int32_t)free_kib;
    int64_t need = perfq_nvres_group_report(n->acc, tagId, free32, NULL, 0);
    if (need < 0 || need > INT32_MAX) {
        perfq_gl_record_error(ctx, GL_OUT_OF_MEMORY);
        return 0;
    }
    /* "If the buffer pointer is NULL then the return value specifies the size of buffer needed" */
    if (!buffer)
        return (GLint)need;
    /* A buffer too small: nothing written, 0 and INVALID_VALUE (the NVIDIA driver's answer; the
     * spec's "negative return" would leave a caller that ignores the sign reading garbage). */
    if ((int64_t)count < need) {
        perfq_gl_record_error(ctx, GL_INVALID_VALUE);
        return 0;
    }
    int64_t wrote = perfq_nvres_group_report(n->acc, tagId, free32, buffer, count);
    if (wrote != need || wrote < 0) {
        /* Another thread of the share group allocated between the two calls: the report grew.
         * Nothing was written; the caller asks again. */
        perfq_gl_record_error(ctx, wrote < 0 ? GL_OUT_OF_MEMORY : GL_INVALID_VALUE);
        return 0;
    }
    return (GLint)wrote;
}

PERFQ_GL_EXPORT void glGenQueryResourceTagNV(GLsizei n, GLint *tagIds)
{
    struct perfq_gl_context *ctx = perfq_gl_current_context();
    if (to_driver(ctx)) {
        driver_gen(n, tagIds);
        return;
    }
    struct perfq_nv_context_state *c = nv(ctx);
    struct nv_group *g = group_of(ctx);
    if (!c || !g)
        return;
    /* NVIDIA: n < 0 is INVALID_VALUE. A NULL tagIds with n > 0 cannot receive the names: the
     * same error, rather than a crash. */
    if (n < 0 || (n > 0 && !tagIds)) {
        perfq_gl_record_error(ctx, GL_INVALID_VALUE);
        return;
    }
    if (perfq_nvres_tags_gen(g->acc, n, tagIds) != PERFQ_OK)
        perfq_gl_record_error(ctx, GL_OUT_OF_MEMORY);
}

PERFQ_GL_EXPORT void glDeleteQueryResourceTagNV(GLsizei n, const GLint *tagIds)
{
    struct perfq_gl_context *ctx = perfq_gl_current_context();
    if (to_driver(ctx)) {
        driver_delete(n, tagIds);
        return;
    }
    struct perfq_nv_context_state *c = nv(ctx);
    struct nv_group *g = group_of(ctx);
    if (!c || !g)
        return;
    /* GL's Delete* convention: n < 0 is INVALID_VALUE (the spec lists no error). */
    if (n < 0 || (n > 0 && !tagIds)) {
        perfq_gl_record_error(ctx, GL_INVALID_VALUE);
        return;
    }
    /* "Unused names in <states> are silently ignored, as is the value zero." */
    perfq_nvres_tags_delete(g->acc, n, tagIds);
    for (GLsizei i = 0; i < n; i++)
        if (tagIds[i] == c->current_tag) {
            c->current_tag = 0;             /* this context's current tag is gone: tagging off */
            perfq_gl_object_repeat_forget(ctx);     /* a repeat voted for under that tag */
        }
}

PERFQ_GL_EXPORT void glQueryResourceTagNV(GLint tagId, const GLchar *tagString)
{
    struct perfq_gl_context *ctx = perfq_gl_current_context();
    if (to_driver(ctx)) {
        driver_tag(tagId, tagString);
        return;
    }
    struct perfq_nv_context_state *c = nv(ctx);
    struct nv_group *g = group_of(ctx);
    if (!c || !g)
        return;
    /* "To disable tagging ... set the <tagId> parameter to 0." */
    if (tagId == 0) {
        if (c->current_tag != 0)
            perfq_gl_object_repeat_forget(ctx);     /* a repeat voted for under that tag */
        c->current_tag = 0;
        return;
    }
    /* NVIDIA: an id never generated (or deleted) is INVALID_OPERATION. */
    perfq_status_t st = perfq_nvres_tag_set(g->acc, tagId, tagString);
    if (st == PERFQ_EINVAL) {
        perfq_gl_record_error(ctx, GL_INVALID_OPERATION);
        return;
    }
    if (st != PERFQ_OK) {
        perfq_gl_record_error(ctx, GL_OUT_OF_MEMORY);
        return;
    }
    if (c->current_tag != tagId)
        perfq_gl_object_repeat_forget(ctx);
    c->current_tag = tagId;
}

/* ---- for the layer's other users (tests, counters, `perfq memory`) ---- */

uint64_t perfq_nv_query_resource_group_count(void)
{
    pthread_mutex_lock(&groups_lock);
    uint64_t k = n_groups;
    pthread_mutex_unlock(&groups_lock);
    return k;
}

void perfq_nv_query_resource_foreach(void (*fn)(const struct perfq_nv_query_resource_group_info *g,
                                                void *arg),
                                     void *arg)
{
    pthread_mutex_lock(&groups_lock);
    for (struct nv_group *g = groups; g; g = g->next) {
        struct perfq_nv_query_resource_group_info info = {
            g->id, g->acc, (int)g->memory, __atomic_load_n(&g->total_kib, __ATOMIC_RELAXED),
            __atomic_load_n(&g->free_kib, __ATOMIC_RELAXED)};
        fn(&info, arg);
    }
    pthread_mutex_unlock(&groups_lock);
}

static int available(struct perfq_gl_context *ctx)
{
    return nv(ctx) != NULL && group_of(ctx) != NULL;
}

#define ENTRY(f) {#f, (void (*)(void))f},
static const struct perfq_gl_entry_point entry_points[] = {
    ENTRY(glQueryResourceNV) ENTRY(glGenQueryResourceTagNV) ENTRY(glDeleteQueryResourceTagNV)
    ENTRY(glQueryResourceTagNV)
    {NULL, NULL},
};
#undef ENTRY

static const struct perfq_gl_extension gl_extensions[] = {
    {"GL_NV_query_resource", available},
    {"GL_NV_query_resource_tag", available},
    {NULL, NULL},
};

static const struct perfq_gl_observers observers = {
    .object = perfq_nv_query_resource_observe,
};

/* The share groups' tables alive (leak tests). */
static uint64_t live_tables(void)
{
    return perfq_nv_query_resource_group_count();
}

static const struct perfq_gl_frontend group_frontend = {
    .name = "GL_NV_query_resource (share-group accounting)",
    .scope = PERFQ_GL_SCOPE_SHARE_GROUP,
    .created = group_created,
    .destroyed = group_destroyed,
    .observers = &observers,
    .live_objects = live_tables,
};

static const struct perfq_gl_frontend context_frontend = {
    .name = "GL_NV_query_resource",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = context_created,
    .destroyed = context_destroyed,
    .entry_points = entry_points,
    .gl_extensions = gl_extensions,
};

__attribute__((constructor)) static void nv_query_resource_register(void)
{
    const char *mode = getenv("PERFQ_NV_QUERY_RESOURCE");
    passthrough = mode && strcmp(mode, "driver") == 0;
    group_fe = perfq_gl_register_frontend(&group_frontend);
    context_fe = perfq_gl_register_frontend(&context_frontend);
}
