/*
 * GL_ANGLE_timer_query (its extension specification, revision 1), with the semantics of
 * GL_EXT_disjoint_timer_query, built on the layer's trustworthy timer (gpu_timer.c): the
 * driver's timer queries where they are trustworthy, else fences.
 *
 * Each entry point validates in the order of the spec and records the spec's error, then makes
 * one call into the timer service (Mesa's queryobj.c shape). Decisions where the text is silent
 * are marked "Not in spec" and listed in docs/gl-layer.md.
 *
 * Query names are the layer's own namespace (the extension is written against ES 2.0, which has
 * no query objects): glIsQuery and the core query calls do not see them, nor they those.
 */
#include "gl/gl_layer.h"
#include "gl/virtualization/name_table.h"
#include "perfq/angle_timer_query.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_ullong live_angle_queries;

struct angle_query {
    GLuint name;
    GLenum type;                    /* 0 until first used; then TIME_ELAPSED or TIMESTAMP */
    int active;
    struct perfq_gl_timer *timer;   /* the last query issued on this object */
    int done;                       /* result read and cached */
    uint64_t result;
    struct angle_query *next_pending, *prev_pending;    /* issue order, per type */
};

struct pending_list {
    struct angle_query *head, *tail;
};

struct angle_state {
    struct perfq_gl_name_table names;   /* generated names -> query (type 0: no object yet) */
    GLuint next_name;
    struct angle_query *active;         /* the active TIME_ELAPSED query, or NULL */
    struct pending_list pending[2];     /* 0: TIME_ELAPSED, 1: TIMESTAMP */
};

static int frontend_id = -1;

/* The current context and the extension's state in it (created with the context: NULL only when
 * out of memory). */
struct angle_ctx {
    struct perfq_gl_context *pub;
    struct angle_state *angle;
};

static int current(struct angle_ctx *c)
{
    void *data;
    c->pub = perfq_gl_current_with_data(frontend_id, &data);
    c->angle = data;
    return c->pub != NULL;
}

static struct angle_state *angle(struct angle_ctx *c)
{
    return c->angle;
}

static int pending_index(GLenum type)
{
    return type == GL_TIMESTAMP_ANGLE ? 1 : 0;
}

static void pending_remove(struct angle_state *a, struct angle_query *q)
{
    if (!q->type)
        return;
    struct pending_list *l = &a->pending[pending_index(q->type)];
    if (!q->prev_pending && l->head != q)
        return;     /* not in the list */
    if (q->prev_pending)
        q->prev_pending->next_pending = q->next_pending;
    else
        l->head = q->next_pending;
    if (q->next_pending)
        q->next_pending->prev_pending = q->prev_pending;
    else
        l->tail = q->prev_pending;
    q->next_pending = q->prev_pending = NULL;
}

static void pending_append(struct angle_state *a, struct angle_query *q)
{
    struct pending_list *l = &a->pending[pending_index(q->type)];
    q->next_pending = NULL;
    q->prev_pending = l->tail;
    if (l->tail)
        l->tail->next_pending = q;
    else
        l->head = q;
    l->tail = q;
}

/* Drops the object's last issued query (its result is lost, as the spec says for a new query on
 * the same id). */
static void drop_timer(struct angle_ctx *c, struct angle_query *q)
{
    pending_remove(c->angle, q);
    perfq_gl_timer_free(c->pub, q->timer);
    q->timer = NULL;
    q->done = 0;
    q->result = 0;
}

static void free_query(struct angle_ctx *c, struct angle_query *q)
{
    drop_timer(c, q);
    free(q);
    atomic_fetch_sub(&live_angle_queries, 1);
}

static struct angle_query *new_query(struct angle_state *a, GLuint name)
{
    struct angle_query *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->name = name;
    if (perfq_gl_name_table_put(&a->names, name, q) != 0) {
        free(q);
        return NULL;
    }
    atomic_fetch_add(&live_angle_queries, 1);
    return q;
}

/* Reads q's result if it is there (wait: blocks). 1 when q->done. */
static int poll_query(struct angle_ctx *c, struct angle_query *q, int wait)
{
    if (q->done)
        return 1;
    if (!q->timer)
        return 0;
    uint64_t ns = 0;
    perfq_status_t st = perfq_gl_timer_result(c->pub, q->timer, wait, &ns);
    if (st == PERFQ_NOT_READY)
        return 0;
    /* A fence that could not be waited gives no time: report 0 rather than invent one. */
    q->result = st == PERFQ_OK ? ns : 0;
    q->done = 1;
    pending_remove(c->angle, q);
    return 1;
}

/* "It must always be true that if any query object returns a result available of TRUE, all
 * queries of the same type issued prior to that query must also return TRUE." Walks the older
 * queries of q's type first; q is available only once all of them are. */
static int available(struct angle_ctx *c, struct angle_query *q)
{
    if (q->done)
        return 1;
    struct pending_list *l = &c->angle->pending[pending_index(q->type)];
    for (struct angle_query *p = l->head; p;) {
        struct angle_query *next = p->next_pending;
        if (!poll_query(c, p, 0))
            return 0;
        if (p == q)
            return 1;
        p = next;
    }
    return poll_query(c, q, 0);
}

static int angle_available(struct perfq_gl_context *pub)
{
    if (pub->api == PERFQ_GL_API_GLES && pub->major < 2)
        return 0;
    return perfq_gl_timer_path(pub) != PERFQ_GL_TIMER_NONE;
}

/* ---- entry points ---- */

PERFQ_GL_EXPORT void glGenQueriesANGLE(GLsizei n, GLuint *ids)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    /* "The error INVALID_VALUE is generated if GenQueriesANGLE is called where <n> is
     * negative." */
    if (n < 0) {
        perfq_gl_record_error(c->pub, GL_INVALID_VALUE);
        return;
    }
    struct angle_state *a = angle(c);
    if (!ids || n == 0 || !a)   /* Not in spec: a NULL array is ignored */
        return;
    for (GLsizei i = 0; i < n; i++) {
        /* "returns <n> previously unused query object names": skip names still in use. */
        GLuint name;
        do {
            name = a->next_name++;
            if (a->next_name == 0)
                a->next_name = 1;
        } while (name == 0 || perfq_gl_name_table_get(&a->names, name));
        if (!new_query(a, name)) {
            perfq_gl_record_error(c->pub, GL_OUT_OF_MEMORY);
            for (GLsizei j = 0; j < i; j++) {
                struct angle_query *q = perfq_gl_name_table_remove(&a->names, ids[j]);
                if (q)
                    free_query(c, q);
            }
            return;
        }
        ids[i] = name;
    }
}

PERFQ_GL_EXPORT void glDeleteQueriesANGLE(GLsizei n, const GLuint *ids)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    /* "The error INVALID_VALUE is generated if DeleteQueriesANGLE is called where <n> is
     * negative." */
    if (n < 0) {
        perfq_gl_record_error(c->pub, GL_INVALID_VALUE);
        return;
    }
    struct angle_state *a = c->angle;
    if (!ids || !a)
        return;
    for (GLsizei i = 0; i < n; i++) {
        /* "Unused names in <ids> are silently ignored." */
        struct angle_query *q = perfq_gl_name_table_remove(&a->names, ids[i]);
        if (!q)
            continue;
        /* "If an active query object is deleted its name immediately becomes unused, but the
         * underlying object is not deleted until it is no longer active." Not in spec which
         * makes it no longer active: as Mesa does, deleting ends it (its result is discarded),
         * so the target is free for a new query at once. */
        if (q->active) {
            perfq_gl_timer_end(c->pub, q->timer);
            a->active = NULL;
            q->active = 0;
        }
        free_query(c, q);
    }
}

PERFQ_GL_EXPORT GLboolean glIsQueryANGLE(GLuint id)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c) || !c->angle)
        return GL_FALSE;
    /* "returns TRUE if <id> is the name of a query object. If <id> is zero, or if <id> is a
     * non-zero value that is not the name of a query object, IsQueryANGLE returns FALSE."
     * A generated name has no object "until the first time [it is] used". */
    struct angle_query *q = perfq_gl_name_table_get(&c->angle->names, id);
    return q && q->type ? GL_TRUE : GL_FALSE;
}

PERFQ_GL_EXPORT void glBeginQueryANGLE(GLenum target, GLuint id)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    struct angle_state *a = angle(c);
    if (!a) {
        perfq_gl_record_error(c->pub, GL_OUT_OF_MEMORY);
        return;
    }
    /* "The error INVALID_ENUM is generated if BeginQueryANGLE or EndQueryANGLE is called where
     * <target> is not TIME_ELAPSED_ANGLE." */
    if (target != GL_TIME_ELAPSED_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    /* "The error INVALID_OPERATION is generated if BeginQueryANGLE is called when a query of
     * the given <target> is already active." (This also covers "where <id> is the name of a
     * query currently in progress": TIME_ELAPSED is the only target that can be active.) */
    if (a->active) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "The error INVALID_OPERATION is generated if BeginQueryANGLE is called where <id> is
     * zero." */
    if (id == 0) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    struct angle_query *q = perfq_gl_name_table_get(&a->names, id);
    /* "The error INVALID_OPERATION is generated if BeginQueryANGLE is called where <id> is the
     * name of an existing query object whose type does not match <target>." */
    if (q && q->type && q->type != GL_TIME_ELAPSED_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "If BeginQueryANGLE is called with an unused <id>, that name is marked as used and
     * associated with a new query object." */
    if (!q && !(q = new_query(a, id))) {
        perfq_gl_record_error(c->pub, GL_OUT_OF_MEMORY);
        return;
    }
    /* "The results from any queries before the last one will be lost". The object's last
     * interval is begun again in place where it can be (issue 10: no timer, logical query and
     * marks released and taken anew per query), else dropped for a new one. */
    perfq_status_t st = PERFQ_ESTATE;
    if (q->timer && q->type == GL_TIME_ELAPSED_ANGLE) {
        pending_remove(a, q);
        q->done = 0;
        q->result = 0;
        st = perfq_gl_timer_restart(c->pub, q->timer);
    }
    if (st != PERFQ_OK)
        drop_timer(c, q);
    if (st == PERFQ_ESTATE)
        st = perfq_gl_timer_begin(c->pub, &q->timer);
    q->type = GL_TIME_ELAPSED_ANGLE;
    if (st != PERFQ_OK) {
        /* Not in spec: no timer in this context (the extension is not advertised here), or the
         * driver failed. */
        q->timer = NULL;
        perfq_gl_record_error(c->pub, st == PERFQ_ENOMEM ? GL_OUT_OF_MEMORY
                                                          : GL_INVALID_OPERATION);
        return;
    }
    q->active = 1;
    a->active = q;
}

PERFQ_GL_EXPORT void glEndQueryANGLE(GLenum target)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    /* "The error INVALID_ENUM is generated if BeginQueryANGLE or EndQueryANGLE is called where
     * <target> is not TIME_ELAPSED_ANGLE." */
    if (target != GL_TIME_ELAPSED_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    struct angle_state *a = c->angle;
    /* "The error INVALID_OPERATION is generated if EndQueryANGLE is called when a query of the
     * given <target> is not active." */
    if (!a || !a->active) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    struct angle_query *q = a->active;
    a->active = NULL;
    q->active = 0;
    if (perfq_gl_timer_end(c->pub, q->timer) != PERFQ_OK) {
        /* Not in spec: the end fence could not be created; the result will read 0. */
        perfq_gl_record_error(c->pub, GL_OUT_OF_MEMORY);
    }
    pending_append(a, q);
}

PERFQ_GL_EXPORT void glQueryCounterANGLE(GLuint id, GLenum target)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    /* "The error INVALID_ENUM is generated if QueryCounterANGLE is called where <target> is not
     * TIMESTAMP_ANGLE." */
    if (target != GL_TIMESTAMP_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    struct angle_state *a = angle(c);
    struct angle_query *q = a ? perfq_gl_name_table_get(&a->names, id) : NULL;
    /* ANGLE's validator (of the EXT_disjoint_timer_query entry points these alias): QueryCounter on a name never generated is
     * INVALID_OPERATION. */
    if (!q) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "The error INVALID_OPERATION is generated if QueryCounterANGLE is called on a query
     * object that is already in use inside a BeginQueryANGLE/EndQueryANGLE." */
    if (q->active) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* ANGLE's validator (of the EXT_disjoint_timer_query entry points these alias): on a name whose object has another type,
     * INVALID_OPERATION. */
    if (q->type && q->type != GL_TIMESTAMP_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    drop_timer(c, q);
    q->type = GL_TIMESTAMP_ANGLE;
    perfq_status_t st = perfq_gl_timer_stamp(c->pub, &q->timer);
    if (st != PERFQ_OK) {
        q->timer = NULL;
        q->done = 1;    /* Not in spec: no timer here; the object reads 0, available */
        perfq_gl_record_error(c->pub, st == PERFQ_ENOMEM ? GL_OUT_OF_MEMORY
                                                          : GL_INVALID_OPERATION);
        return;
    }
    pending_append(a, q);
}

PERFQ_GL_EXPORT void glGetQueryivANGLE(GLenum target, GLenum pname, GLint *params)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    /* "The error INVALID_ENUM is generated if GetQueryivANGLE is called where <target> is not
     * TIME_ELAPSED_ANGLE or TIMESTAMP_ANGLE." */
    if (target != GL_TIME_ELAPSED_ANGLE && target != GL_TIMESTAMP_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    /* "The error INVALID_ENUM is generated if GetQueryivANGLE is called where <pname> is not
     * QUERY_COUNTER_BITS_ANGLE or CURRENT_QUERY_ANGLE." */
    if (pname != GL_QUERY_COUNTER_BITS_ANGLE && pname != GL_CURRENT_QUERY_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    /* ANGLE's validator (of the EXT_disjoint_timer_query entry points these alias): (TIMESTAMP, CURRENT_QUERY) is INVALID_ENUM. */
    if (target == GL_TIMESTAMP_ANGLE && pname == GL_CURRENT_QUERY_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    if (!params)
        return;     /* Not in spec: a NULL pointer is not written */
    if (pname == GL_CURRENT_QUERY_ANGLE) {
        /* "the name of the currently active query for <target>, or zero" */
        *params = c->angle && c->angle->active ? (GLint)c->angle->active->name : 0;
        return;
    }
    /* "the implementation-dependent number of bits used to hold the query result" */
    *params = perfq_gl_timer_bits(c->pub, target == GL_TIMESTAMP_ANGLE);
}

enum value_type { V_INT32, V_UINT32, V_INT64, V_UINT64 };

static void get_query_object(GLuint id, GLenum pname, void *params, enum value_type type)
{
    struct angle_ctx cur, *c = &cur;
    if (!current(c))
        return;
    struct angle_query *q = c->angle ? perfq_gl_name_table_get(&c->angle->names, id) : NULL;
    /* "The error INVALID_OPERATION is generated if GetQueryObject*ANGLE is called where <id> is
     * not the name of a query object." */
    if (!q || !q->type) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "... where <id> is the name of a currently active query object." */
    if (q->active) {
        perfq_gl_record_error(c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "The error INVALID_ENUM is generated if GetQueryObject*ANGLE is called where <pname> is
     * not QUERY_RESULT_ANGLE or QUERY_RESULT_AVAILABLE_ANGLE." */
    if (pname != GL_QUERY_RESULT_ANGLE && pname != GL_QUERY_RESULT_AVAILABLE_ANGLE) {
        perfq_gl_record_error(c->pub, GL_INVALID_ENUM);
        return;
    }
    if (!params)
        return;     /* Not in spec: a NULL pointer is not written */
    uint64_t v;
    if (pname == GL_QUERY_RESULT_AVAILABLE_ANGLE) {
        /* "Querying the state for a given timer query forces that timer query to complete
         * within a finite amount of time": every fence and query was flushed when issued. */
        v = available(c, q);
    } else {
        /* "There may be an indeterminate delay before the above query returns." */
        poll_query(c, q, 1);
        v = q->result;
        /* "If the number of query counter bits for target is zero, then the result is
         * returned as a single integer with the value zero." */
        if (perfq_gl_timer_bits(c->pub, q->type == GL_TIMESTAMP_ANGLE) == 0)
            v = 0;
    }
    /* "If the value is so large in magnitude that it cannot be represented with the requested
     * type, then the nearest value representable using the requested type is returned." */
    switch (type) {
    case V_INT32: *(GLint *)params = v > (uint64_t)INT_MAX ? INT_MAX : (GLint)v; break;
    case V_UINT32: *(GLuint *)params = v > (uint64_t)UINT_MAX ? UINT_MAX : (GLuint)v; break;
    case V_INT64: *(GLint64 *)params = v > (uint64_t)INT64_MAX ? INT64_MAX : (GLint64)v; break;
    default: *(GLuint64 *)params = v; break;
    }
}

PERFQ_GL_EXPORT void glGetQueryObjectivANGLE(GLuint id, GLenum pname, GLint *params)
{
    get_query_object(id, pname, params, V_INT32);
}

PERFQ_GL_EXPORT void glGetQueryObjectuivANGLE(GLuint id, GLenum pname, GLuint *params)
{
    get_query_object(id, pname, params, V_UINT32);
}

PERFQ_GL_EXPORT void glGetQueryObjecti64vANGLE(GLuint id, GLenum pname, GLint64 *params)
{
    get_query_object(id, pname, params, V_INT64);
}

PERFQ_GL_EXPORT void glGetQueryObjectui64vANGLE(GLuint id, GLenum pname, GLuint64 *params)
{
    get_query_object(id, pname, params, V_UINT64);
}

/* ---- glGet values EXT_disjoint_timer_query has ---- */

/* GL_TIMESTAMP: answered by the layer only where the driver has no GL_TIMESTAMP (GLES without
 * EXT_disjoint_timer_query, desktop GL without ARB_timer_query); the fence path's domain,
 * CLOCK_MONOTONIC. */
static int layer_timestamp(struct perfq_gl_context *pub)
{
    if (!angle_available(pub))
        return 0;
    if (pub->api == PERFQ_GL_API_GLES)
        return !perfq_gl_has_driver_extension(pub, "GL_EXT_disjoint_timer_query");
    return !perfq_gl_version_at_least(pub, 3, 3) &&
           !perfq_gl_has_driver_extension(pub, "GL_ARB_timer_query");
}

static int64_t timestamp_value(struct perfq_gl_context *pub, GLenum pname)
{
    (void)pub;
    (void)pname;
    return (int64_t)perfq_gl_now_ns();
}

/* GL_GPU_DISJOINT_EXT: the driver's flag (where it has one) or'ed with what the layer's own
 * reads of it took away from the program; 0 on the fence path (one CPU clock cannot be
 * disjoint). Reading clears it, as EXT_disjoint_timer_query says. */
static int64_t disjoint_value(struct perfq_gl_context *pub, GLenum pname)
{
    GLint d = 0;
    if (perfq_gl_has_driver_extension(pub, "GL_EXT_disjoint_timer_query")) {
        perfq_gl_error_guard_begin(pub);
        pub->gl->glGetIntegerv(pname, &d);
        perfq_gl_error_guard_end(pub);
    }
    return d || perfq_gl_timer_disjoint_for_program(pub);
}

static void free_one(uint32_t key, void *value, void *arg)
{
    (void)key;
    struct angle_query *q = value;
    struct perfq_gl_context *pub = arg;
    perfq_gl_timer_free(pub, q->timer);
    free(q);
    atomic_fetch_sub(&live_angle_queries, 1);
}

/* ---- the front end ---- */

static void *context_created(const struct perfq_gl_scope_object *at)
{
    (void)at;
    struct angle_state *a = calloc(1, sizeof *a);
    if (a)
        a->next_name = 1;
    return a;
}

static void context_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    (void)gl_usable;    /* timer_free skips GL calls when the context is not current here */
    struct angle_state *a = data;
    if (!a)
        return;
    perfq_gl_name_table_each(&a->names, free_one, at->ctx);
    perfq_gl_name_table_free(&a->names);
    free(a);
}

static uint64_t live_objects(void)
{
    return atomic_load(&live_angle_queries);
}

#define ENTRY(name) {#name, (void (*)(void))name},
static const struct perfq_gl_entry_point entry_points[] = {
    ENTRY(glGenQueriesANGLE) ENTRY(glDeleteQueriesANGLE) ENTRY(glIsQueryANGLE)
    ENTRY(glBeginQueryANGLE) ENTRY(glEndQueryANGLE) ENTRY(glQueryCounterANGLE)
    ENTRY(glGetQueryivANGLE) ENTRY(glGetQueryObjectivANGLE) ENTRY(glGetQueryObjectuivANGLE)
    ENTRY(glGetQueryObjecti64vANGLE) ENTRY(glGetQueryObjectui64vANGLE)
    {NULL, NULL},
};
#undef ENTRY

static const struct perfq_gl_extension gl_extensions[] = {
    {"GL_ANGLE_timer_query", angle_available},
    {NULL, NULL},
};

static const struct perfq_gl_integer integers[] = {
    {GL_TIMESTAMP_ANGLE, layer_timestamp, timestamp_value},
    {GL_GPU_DISJOINT_EXT, angle_available, disjoint_value},
    {0, NULL, NULL},
};

static const struct perfq_gl_frontend angle_frontend = {
    .name = "GL_ANGLE_timer_query",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = context_created,
    .destroyed = context_destroyed,
    .entry_points = entry_points,
    .gl_extensions = gl_extensions,
    .integers = integers,
    .live_objects = live_objects,
};

__attribute__((constructor)) static void angle_register(void)
{
    frontend_id = perfq_gl_register_frontend(&angle_frontend);
}
