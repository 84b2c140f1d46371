/*
 * The front-end registry: every extension joins the layer through one struct perfq_gl_frontend
 * (gl_layer.h). The registry is append-only: a front end's pointer is written before the count
 * is published (release), so the hot paths (GetProcAddress, glGet*, the observers) read it
 * without a lock.
 *
 * This file runs the front ends' scope hooks (context, share group, display, process) and
 * dispatches the program calls the layer observes. It names no extension.
 */
#include "gl/contexts/layer_internal.h"

#include <stdlib.h>
#include <string.h>

static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct perfq_gl_frontend *frontends[PERFQ_GL_MAX_FRONTENDS];
static int n_frontends;             /* published with release; read with acquire */
static void *process_data[PERFQ_GL_MAX_FRONTENDS];
int perfq_gl_observing;             /* PERFQ_GL_OBSERVE_* of every registered front end */
/* The object observers alone, packed (written before n_object_observers is published, like the
 * registry): a storage call follows one short array instead of every front end's struct, which a
 * 64 KiB upload has just evicted from the cache (bench-nv-query-resource (6)). */
static struct {
    void (*fn)(struct perfq_gl_context *, void *, const struct perfq_gl_object_call *);
    int id;
} object_observers[PERFQ_GL_MAX_FRONTENDS];
static int n_object_observers;      /* published with release; read with acquire */

int perfq_gl_frontend_count(void)
{
    return __atomic_load_n(&n_frontends, __ATOMIC_ACQUIRE);
}

const struct perfq_gl_frontend *perfq_gl_frontend_at(int i)
{
    return frontends[i];
}

int perfq_gl_register_frontend(const struct perfq_gl_frontend *fe)
{
    if (!fe || !fe->name || fe->scope < PERFQ_GL_SCOPE_CONTEXT ||
        fe->scope > PERFQ_GL_SCOPE_PROCESS)
        return -1;
    pthread_mutex_lock(&register_lock);
    int id = n_frontends;
    if (id >= PERFQ_GL_MAX_FRONTENDS) {
        pthread_mutex_unlock(&register_lock);
        return -1;
    }
    frontends[id] = fe;
    if (fe->scope == PERFQ_GL_SCOPE_PROCESS && fe->created) {
        struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_PROCESS, NULL, NULL, NULL};
        process_data[id] = fe->created(&at);
    }
    int observe = 0;
    if (fe->observers) {
        observe |= fe->observers->object ? PERFQ_GL_OBSERVE_OBJECTS : 0;
        observe |= fe->observers->draw ? PERFQ_GL_OBSERVE_DRAWS : 0;
        observe |= fe->observers->clear ? PERFQ_GL_OBSERVE_CLEARS : 0;
        observe |= fe->observers->swap ? PERFQ_GL_OBSERVE_SWAPS : 0;
        observe |= fe->observers->draw_begin ? PERFQ_GL_OBSERVE_DRAW_BEGIN : 0;
    }
    __atomic_fetch_or(&perfq_gl_observing, observe, __ATOMIC_RELEASE);
    __atomic_store_n(&n_frontends, id + 1, __ATOMIC_RELEASE);
    if (fe->observers && fe->observers->object) {
        int k = n_object_observers;
        object_observers[k].fn = fe->observers->object;
        object_observers[k].id = id;
        __atomic_store_n(&n_object_observers, k + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&register_lock);
    return id;
}

__attribute__((destructor)) static void process_scope_end(void)
{
    int n = perfq_gl_frontend_count();
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_PROCESS, NULL, NULL, NULL};
    for (int i = n - 1; i >= 0; i--)
        if (frontends[i]->scope == PERFQ_GL_SCOPE_PROCESS && frontends[i]->destroyed)
            frontends[i]->destroyed(&at, process_data[i], 0);
}

/* ---- scope data ------------------------------------------------------------------------------ */

void *perfq_gl_frontend_data(int id, const struct perfq_gl_context *pub)
{
    if (id < 0 || id >= perfq_gl_frontend_count())
        return NULL;
    const struct perfq_gl_ctx *c = (const struct perfq_gl_ctx *)pub;
    switch (frontends[id]->scope) {
    case PERFQ_GL_SCOPE_CONTEXT:
        return c ? c->frontend_data[id] : NULL;
    case PERFQ_GL_SCOPE_SHARE_GROUP:
        return c ? perfq_gl_share_group_data(c->group, id) : NULL;
    case PERFQ_GL_SCOPE_DISPLAY:
        return c && c->pub.window_system == PERFQ_GL_WS_EGL ?
            perfq_gl_frontend_display_data(id, c->pub.display) : NULL;
    case PERFQ_GL_SCOPE_PROCESS:
        return process_data[id];
    }
    return NULL;
}

struct perfq_gl_context *perfq_gl_current_with_data(int id, void **data)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (!c) {
        *data = NULL;
        return NULL;
    }
    /* A context-scoped front end's data is the context's (set at its creation for the front
     * ends registered then, NULL for later ones). */
    if (id >= 0 && id < c->n_frontends && frontends[id]->scope == PERFQ_GL_SCOPE_CONTEXT)
        *data = c->frontend_data[id];
    else
        *data = perfq_gl_frontend_data(id, &c->pub);
    return &c->pub;
}

void perfq_gl_frontends_context_created(struct perfq_gl_ctx *c, uint64_t *took_ns)
{
    int n = perfq_gl_frontend_count();
    c->n_frontends = n;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = took_ns ? perfq_gl_debug_now_ns() : 0;
        const struct perfq_gl_frontend *fe = frontends[i];
        if (fe->scope == PERFQ_GL_SCOPE_CONTEXT && fe->created) {
            struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_CONTEXT, &c->pub, c->group,
                                               c->pub.display};
            c->frontend_data[i] = fe->created(&at);
        } else if (fe->scope == PERFQ_GL_SCOPE_SHARE_GROUP) {
            perfq_gl_share_group_create_data(c, i, fe);
        }
        if (took_ns)
            took_ns[i] = perfq_gl_debug_now_ns() - t0;
    }
}

void perfq_gl_frontends_context_destroyed(struct perfq_gl_ctx *c, int gl_usable)
{
    for (int i = c->n_frontends - 1; i >= 0; i--) {
        const struct perfq_gl_frontend *fe = frontends[i];
        if (fe->scope == PERFQ_GL_SCOPE_CONTEXT && fe->destroyed) {
            struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_CONTEXT, &c->pub, c->group,
                                               c->pub.display};
            fe->destroyed(&at, c->frontend_data[i], gl_usable);
        }
        c->frontend_data[i] = NULL;
    }
    c->n_frontends = 0;
}

/* ---- what the layer asks of them ------------------------------------------------------------- */

void (*perfq_gl_frontend_entry_point(const char *name))(void)
{
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++)
        for (const struct perfq_gl_entry_point *e = frontends[i]->entry_points; e && e->name; e++)
            if (strcmp(e->name, name) == 0)
                return e->fn;
    return NULL;
}

uint64_t perfq_gl_frontends_live_objects(void)
{
    uint64_t sum = 0;
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++)
        if (frontends[i]->live_objects)
            sum += frontends[i]->live_objects();
    return sum;
}

/* ---- observers ------------------------------------------------------------------------------- */

void perfq_gl_observe_object(struct perfq_gl_ctx *c, const struct perfq_gl_object_call *call)
{
    perfq_gl_repeat_clear(&c->repeat);                    /* another call came between */
    int n = __atomic_load_n(&n_object_observers, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        object_observers[i].fn(&c->pub, perfq_gl_frontend_data(object_observers[i].id, &c->pub),
                               call);
}

void perfq_gl_observe_object_repeatable(struct perfq_gl_ctx *c,
                                        const struct perfq_gl_object_call *call)
{
    struct perfq_gl_repeat *r = &c->repeat;
    perfq_gl_repeat_clear(r);
    r->collecting = 1;
    r->votes = 0;
    r->vetoed = 0;
    r->generation = NULL;
    __atomic_store_n(&r->counter, NULL, __ATOMIC_RELAXED);     /* pending is 0 (cleared) */
    int n = __atomic_load_n(&n_object_observers, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        object_observers[i].fn(&c->pub, perfq_gl_frontend_data(object_observers[i].id, &c->pub),
                               call);
    r->collecting = 0;
    /* Recorded only for an accepted call every observer voted for, whose object the layer names
     * again without the driver: by name, or by a binding it tracks (any change of which clears
     * the record, contexts/bindings.c). */
    if (call->error != GL_NO_ERROR || r->vetoed || r->votes != n || n == 0 ||
        (!call->name && !perfq_gl_binding_tracked(c, call->kind, call->target)))
        return;
    /* A texture image from a pixel unpack buffer reads it at `pixels`, an offset the key does
     * not hold, and GL refuses it past the buffer's end or while it is mapped: only uploads from
     * the program's memory are answered again (a bind of another unpack buffer clears it). */
    if (call->kind == PERFQ_GL_OBJECT_TEXTURE && !perfq_gl_no_unpack_buffer(c))
        return;
    r->key = (struct perfq_gl_repeat_key){
        .function = call->function, .size = call->size, .name = call->name,
        .target = call->target, .level = call->level, .levels = call->levels,
        .internalformat = call->internalformat, .width = call->width, .height = call->height,
        .depth = call->depth, .samples = call->samples, .border = call->border,
        .format = call->format,
        .type = call->type,
    };
}

void perfq_gl_object_repeatable(struct perfq_gl_context *pub, const uint64_t *generation,
                                uint64_t expected, uint64_t *counter, uint64_t amount)
{
    struct perfq_gl_repeat *r = &perfq_gl_ctx(pub)->repeat;
    if (!r->collecting)
        return;
    /* One generation and one counter per record: a second of either is a veto. */
    if ((generation && r->generation) || (counter && r->counter)) {
        r->vetoed = 1;
        return;
    }
    if (generation) {
        r->generation = generation;
        r->expected = expected;
    }
    if (counter) {
        __atomic_store_n(&r->counter, counter, __ATOMIC_RELAXED);  /* read by
                                                                 * perfq_gl_repeat_counter_read */
        r->amount = amount;
    }
    r->votes++;
}

void perfq_gl_object_repeat_forget(struct perfq_gl_context *pub)
{
    if (pub)
        perfq_gl_repeat_clear(&perfq_gl_ctx(pub)->repeat);
}

void perfq_gl_observe_draw(struct perfq_gl_ctx *c, const char *function)
{
    if (c->compiling_list)
        return;   /* compiled, not (only) run: see compiling_list */
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_observers *o = frontends[i]->observers;
        if (o && o->draw)
            o->draw(&c->pub, perfq_gl_frontend_data(i, &c->pub), function);
    }
}

void perfq_gl_observe_draw_begin(const char *function)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (!c || c->compiling_list)
        return;
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_observers *o = frontends[i]->observers;
        if (o && o->draw_begin)
            o->draw_begin(&c->pub, perfq_gl_frontend_data(i, &c->pub), function);
    }
}

void perfq_gl_observe_clear(struct perfq_gl_ctx *c, GLbitfield mask)
{
    if (c->compiling_list)
        return;
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_observers *o = frontends[i]->observers;
        if (o && o->clear)
            o->clear(&c->pub, perfq_gl_frontend_data(i, &c->pub), mask);
    }
}

int perfq_gl_observe_leave_wanted(void)
{
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++)
        if (frontends[i]->observers && frontends[i]->observers->leave)
            return 1;
    return 0;
}

void perfq_gl_observe_leave(struct perfq_gl_ctx *c, int released)
{
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_observers *o = frontends[i]->observers;
        if (o && o->leave)
            o->leave(&c->pub, perfq_gl_frontend_data(i, &c->pub), released);
    }
}

void perfq_gl_observe_swap(struct perfq_gl_ctx *c)
{
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_observers *o = frontends[i]->observers;
        if (o && o->swap)
            o->swap(&c->pub, perfq_gl_frontend_data(i, &c->pub));
    }
}
