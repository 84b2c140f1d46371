/*
 * The query virtualisation service ("split and sum", as ANGLE's GL back end does for its own
 * queries): perfq-owned logical queries on GL query targets, beside the program's own. See
 * query_virtualization.h for the model.
 */
#include "gl/virtualization/query_virtualization.h"

#include <stdlib.h>
#include <string.h>

atomic_ullong perfq_gl_vq_live_segments, perfq_gl_vq_live_records;

static const GLenum pipeline_targets[11] = {
    GL_VERTICES_SUBMITTED_ARB, GL_PRIMITIVES_SUBMITTED_ARB, GL_VERTEX_SHADER_INVOCATIONS_ARB,
    GL_TESS_CONTROL_SHADER_PATCHES_ARB, GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB,
    GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB, GL_FRAGMENT_SHADER_INVOCATIONS_ARB,
    GL_COMPUTE_SHADER_INVOCATIONS_ARB, GL_CLIPPING_INPUT_PRIMITIVES_ARB,
    GL_CLIPPING_OUTPUT_PRIMITIVES_ARB, GL_GEOMETRY_SHADER_INVOCATIONS,
};

int perfq_gl_vq_slot_of(GLenum target, GLuint index)
{
    switch (target) {
    case GL_SAMPLES_PASSED:
    case GL_ANY_SAMPLES_PASSED:
    case GL_ANY_SAMPLES_PASSED_CONSERVATIVE:
        return index == 0 ? 0 : -1;
    case GL_TIME_ELAPSED:
        return index == 0 ? 1 : -1;
    case GL_PRIMITIVES_GENERATED:
        return index < 4 ? 2 + (int)index : -1;
    default:
        break;
    }
    if (index != 0)
        return -1;
    for (int i = 0; i < 11; i++)
        if (pipeline_targets[i] == target)
            return 6 + i;
    return -1;
}

unsigned perfq_gl_vq_target_bit(GLenum target)
{
    switch (target) {
    case GL_ANY_SAMPLES_PASSED: return 2;
    case GL_ANY_SAMPLES_PASSED_CONSERVATIVE: return 4;
    default: return 1;
    }
}

static int is_any_samples(GLenum target)
{
    return target == GL_ANY_SAMPLES_PASSED || target == GL_ANY_SAMPLES_PASSED_CONSERVATIVE;
}

static int has(struct perfq_gl_ctx *c, const char *ext)
{
    return perfq_gl_has_driver_extension(&c->pub, ext);
}

static int desktop(struct perfq_gl_ctx *c, int major, int minor)
{
    return c->pub.api == PERFQ_GL_API_GL && perfq_gl_version_at_least(&c->pub, major, minor);
}

static int gles(struct perfq_gl_ctx *c, int major, int minor)
{
    return c->pub.api == PERFQ_GL_API_GLES && perfq_gl_version_at_least(&c->pub, major, minor);
}

static int target_supported_uncached(struct perfq_gl_ctx *c, GLenum target);

/* A small index for the cache of target_supported: 0..15, or -1. */
static int target_index(GLenum target)
{
    switch (target) {
    case GL_SAMPLES_PASSED: return 0;
    case GL_ANY_SAMPLES_PASSED: return 1;
    case GL_ANY_SAMPLES_PASSED_CONSERVATIVE: return 2;
    case GL_TIME_ELAPSED: return 3;
    case GL_PRIMITIVES_GENERATED: return 4;
    default: break;
    }
    int slot = perfq_gl_vq_slot_of(target, 0);
    return slot >= 6 ? 5 + (slot - 6) : -1;
}

int perfq_gl_vquery_target_supported(struct perfq_gl_context *pub, GLenum target)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    int i = target_index(target);
    if (i < 0)
        return 0;
    if (c->vq && c->vq->supported[i] >= 0)
        return c->vq->supported[i];
    int r = target_supported_uncached(c, target);
    if (c->vq)
        c->vq->supported[i] = (signed char)r;
    return r;
}

static int target_supported_uncached(struct perfq_gl_ctx *c, GLenum target)
{
    int gl = c->pub.api == PERFQ_GL_API_GL;
    switch (target) {
    case GL_TIME_ELAPSED:
        return desktop(c, 3, 3) || (gl && (has(c, "GL_ARB_timer_query") ||
                                           has(c, "GL_EXT_timer_query"))) ||
               (!gl && has(c, "GL_EXT_disjoint_timer_query"));
    case GL_SAMPLES_PASSED:
        return desktop(c, 1, 5) || (gl && has(c, "GL_ARB_occlusion_query"));
    case GL_ANY_SAMPLES_PASSED:
        return desktop(c, 3, 3) || (gl && has(c, "GL_ARB_occlusion_query2")) || gles(c, 3, 0) ||
               (!gl && has(c, "GL_EXT_occlusion_query_boolean"));
    case GL_ANY_SAMPLES_PASSED_CONSERVATIVE:
        return desktop(c, 4, 3) || (gl && has(c, "GL_ARB_ES3_compatibility")) ||
               gles(c, 3, 0) || (!gl && has(c, "GL_EXT_occlusion_query_boolean"));
    case GL_PRIMITIVES_GENERATED:
        return desktop(c, 3, 0) || gles(c, 3, 2) ||
               (!gl && (has(c, "GL_EXT_geometry_shader") || has(c, "GL_OES_geometry_shader")));
    default:
        break;
    }
    if (perfq_gl_vq_slot_of(target, 0) >= 6)
        return desktop(c, 4, 6) || (gl && has(c, "GL_ARB_pipeline_statistics_query"));
    return 0;
}

static void choose_fns(struct perfq_gl_ctx *c, struct perfq_gl_query_fns *f)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    if (c->use_ext_queries) {
        f->gen = gl->glGenQueriesEXT;
        f->del = gl->glDeleteQueriesEXT;
        f->begin = gl->glBeginQueryEXT;
        f->end = gl->glEndQueryEXT;
        f->get_iv = gl->glGetQueryivEXT;
        f->obj_uiv = gl->glGetQueryObjectuivEXT;
    } else {
        f->gen = gl->glGenQueries;
        f->del = gl->glDeleteQueries;
        f->begin = gl->glBeginQuery;
        f->end = gl->glEndQuery;
        f->get_iv = gl->glGetQueryiv;
        f->obj_uiv = gl->glGetQueryObjectuiv;
    }
    if (c->pub.api == PERFQ_GL_API_GL) {
        if (desktop(c, 3, 3) || has(c, "GL_ARB_timer_query")) {
            f->obj_ui64v = gl->glGetQueryObjectui64v;
            f->counter = gl->glQueryCounter;
        }
        if (desktop(c, 4, 0) || has(c, "GL_ARB_transform_feedback3")) {
            f->begin_indexed = gl->glBeginQueryIndexed;
            f->end_indexed = gl->glEndQueryIndexed;
        }
    } else if (has(c, "GL_EXT_disjoint_timer_query")) {
        f->obj_ui64v = gl->glGetQueryObjectui64vEXT;
        f->counter = gl->glQueryCounterEXT;
    }
}

struct perfq_gl_vq_state *perfq_gl_vq_make(struct perfq_gl_ctx *c)
{
    if (!c->vq) {
        struct perfq_gl_vq_state *s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        memset(s->supported, -1, sizeof s->supported);
        choose_fns(c, &s->fn);
        for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++) {
            struct perfq_gl_vq_slot *sl = &s->slots[i];
            if (i == 0)
                sl->seg_target = perfq_gl_vquery_target_supported(&c->pub, GL_SAMPLES_PASSED) ?
                    GL_SAMPLES_PASSED : GL_ANY_SAMPLES_PASSED;
            else if (i == 1)
                sl->seg_target = GL_TIME_ELAPSED;
            else if (i < 6)
                sl->seg_target = GL_PRIMITIVES_GENERATED;
            else
                sl->seg_target = pipeline_targets[i - 6];
            sl->index = i >= 2 && i < 6 ? (GLuint)(i - 2) : 0;
        }
        c->vq = s;
    }
    return c->vq;
}

void perfq_gl_vq_begin_driver(struct perfq_gl_ctx *c, GLenum target, GLuint index, GLuint id)
{
    struct perfq_gl_query_fns *f = &perfq_gl_vq(c)->fn;
    if (index != 0 && f->begin_indexed)
        f->begin_indexed(target, index, id);
    else
        f->begin(target, id);
}

void perfq_gl_vq_end_driver(struct perfq_gl_ctx *c, GLenum target, GLuint index)
{
    struct perfq_gl_query_fns *f = &perfq_gl_vq(c)->fn;
    if (index != 0 && f->end_indexed)
        f->end_indexed(target, index);
    else
        f->end(target);
}

/* GL_QUERY_BUFFER exists with ARB_query_buffer_object (core in GL 4.4); known at the first read
 * after the program bound a buffer there. */
int perfq_gl_vq_query_buffer_bound(struct perfq_gl_ctx *c)
{
    if (!c->query_buffer_bound)
        return 0;
    if (!c->has_query_buffer)
        c->has_query_buffer = c->pub.api == PERFQ_GL_API_GL &&
            (perfq_gl_version_at_least(&c->pub, 4, 4) ||
             perfq_gl_has_driver_extension(&c->pub, "GL_ARB_query_buffer_object")) ? 2 : 1;
    return c->has_query_buffer == 2;
}

void perfq_gl_read_query(struct perfq_gl_ctx *c, GLuint name, GLenum pname, GLuint64 *value)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    struct perfq_gl_query_fns *f = &perfq_gl_vq(c)->fn;
    /* With a buffer bound to GL_QUERY_BUFFER (ARB_query_buffer_object) the pointer would be read
     * as an offset into the program's buffer: unbind it around the read. */
    GLint buffer = 0;
    if (perfq_gl_vq_query_buffer_bound(c)) {
        gl->glGetIntegerv(GL_QUERY_BUFFER_BINDING, &buffer);
        if (buffer)
            gl->glBindBuffer(GL_QUERY_BUFFER, 0);
    }
    if (f->obj_ui64v) {
        f->obj_ui64v(name, pname, value);
    } else {
        GLuint v = 0;
        f->obj_uiv(name, pname, &v);
        *value = v;
    }
    if (buffer)
        gl->glBindBuffer(GL_QUERY_BUFFER, (GLuint)buffer);
}

/* ---- segments and marks: the slot's queue ---- */

static void queue_append(struct perfq_gl_vq_slot *sl, struct perfq_gl_segment *it)
{
    it->prev = sl->tail;
    it->next = NULL;
    if (sl->tail)
        sl->tail->next = it;
    else
        sl->head = it;
    sl->tail = it;
    it->queued = 1;
}

static void queue_unlink(struct perfq_gl_vq_slot *sl, struct perfq_gl_segment *it)
{
    if (it->prev)
        it->prev->next = it->next;
    else
        sl->head = it->next;
    if (it->next)
        it->next->prev = it->prev;
    else
        sl->tail = it->prev;
    it->prev = it->next = NULL;
    it->queued = 0;
}

/* A new driver query object for a segment (the pool is empty). Out of line: segment_get's pool
 * path is taken per query (issue 10). */
static __attribute__((noinline)) struct perfq_gl_segment *segment_new(struct perfq_gl_ctx *c)
{
    struct perfq_gl_vq_state *s = c->vq;
    struct perfq_gl_segment *seg = calloc(1, sizeof *seg);
    if (!seg)
        return NULL;
    s->fn.gen(1, &seg->name);
    if (!seg->name || perfq_gl_name_table_put(&s->internal, seg->name, seg) != 0) {
        if (seg->name)
            s->fn.del(1, &seg->name);
        free(seg);
        return NULL;
    }
    atomic_fetch_add(&perfq_gl_vq_live_segments, 1);
    return seg;
}

static struct perfq_gl_segment *segment_get(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl)
{
    struct perfq_gl_segment *seg = sl->pool;
    if (!seg)
        return segment_new(c);
    sl->pool = seg->next;
    sl->pool_n--;
    seg->next = seg->prev = NULL;
    return seg;
}

/* A segment off the queue: back to the pool (see PERFQ_GL_VQ_POOL_MAX), or deleted where GL
 * cannot be called. */
static void segment_free(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl,
                         struct perfq_gl_segment *seg, int gl_usable)
{
    if (gl_usable) {
        /* Its result was read: the GPU is done with the object, which is the one to reuse
         * first (still in the driver's caches, as the program's own objects are). */
        seg->next = sl->pool;
        sl->pool = seg;
        sl->pool_n++;
        return;
    }
    perfq_gl_name_table_remove(&c->vq->internal, seg->name);
    if (gl_usable)
        c->vq->fn.del(1, &seg->name);
    free(seg);
    atomic_fetch_sub(&perfq_gl_vq_live_segments, 1);
}

/* The slot's last logical query is gone: the pool goes back to PERFQ_GL_VQ_POOL_MAX objects,
 * deleted in batches (one driver call per 64). */
static void pool_trim(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl)
{
    while (sl->pool_n > PERFQ_GL_VQ_POOL_MAX) {
        GLuint names[64];
        int n = 0;
        while (n < 64 && sl->pool_n > PERFQ_GL_VQ_POOL_MAX) {
            struct perfq_gl_segment *seg = sl->pool;
            sl->pool = seg->next;
            sl->pool_n--;
            names[n++] = seg->name;
            perfq_gl_name_table_remove(&c->vq->internal, seg->name);
            free(seg);
            atomic_fetch_sub(&perfq_gl_vq_live_segments, 1);
        }
        perfq_gl_vq_delete_layer_names(c, n, names);     /* no error to catch */
    }
}

void perfq_gl_vq_slot_user(struct perfq_gl_ctx *c, int slot, int delta, int gl_usable)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[slot];
    sl->users += delta;
    if (sl->users == 0 && gl_usable && !sl->head)
        pool_trim(c, sl);
}

static __attribute__((noinline)) struct perfq_gl_segment *mark_new(void)
{
    return calloc(1, sizeof(struct perfq_gl_segment));
}

/* The mark at the queue's end (shared with whoever took it in the same rotation). Where nothing
 * is queued, every segment so far was read: its value is the running sum now. */
static struct perfq_gl_segment *mark_take(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl)
{
    struct perfq_gl_vq_state *s = c->vq;
    struct perfq_gl_segment *m = sl->tail;
    if (m && m->mark) {
        m->refs++;
    } else {
        if ((m = s->free_marks)) {
            s->free_marks = m->next;
            s->n_free_marks--;
            memset(m, 0, sizeof *m);
        } else if (!(m = mark_new())) {
            return NULL;
        }
        m->mark = 1;
        m->refs = 1;
        m->serial = sl->serial;
        if (sl->head)
            queue_append(sl, m);
        else
            m->value = sl->sum;
    }
    perfq_gl_ctx_count(&c->live_links, 1);
    return m;
}

/* While no logical query is active on the slot, the segments after its last pending mark are
 * in nobody's interval: they are dropped unread. */
static void queue_trim(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl, int gl_usable)
{
    if (sl->active)
        return;
    while (sl->tail && !sl->tail->mark) {
        struct perfq_gl_segment *seg = sl->tail;
        queue_unlink(sl, seg);
        segment_free(c, sl, seg, gl_usable);
    }
}

static void mark_put(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl,
                     struct perfq_gl_segment *m, int gl_usable)
{
    if (!m)
        return;
    perfq_gl_ctx_count(&c->live_links, -1);
    if (--m->refs > 0)
        return;
    if (m->queued)
        queue_unlink(sl, m);
    struct perfq_gl_vq_state *s = c->vq;
    if (!c->finalized && s->n_free_marks < PERFQ_GL_VQ_FREE_MAX) {
        m->next = s->free_marks;
        s->free_marks = m;
        s->n_free_marks++;
    } else {
        free(m);
    }
    queue_trim(c, sl, gl_usable);
}

/* Reads the queue up to `target` (a mark): each segment is read once, added to the running sum
 * and recycled; each mark passed gets the sum as its value. wait 0: PERFQ_NOT_READY unless the
 * newest segment before target is available (the driver's ordering makes the older ones so). */
static perfq_status_t queue_resolve(struct perfq_gl_ctx *c, struct perfq_gl_vq_slot *sl,
                                    struct perfq_gl_segment *target, int wait)
{
    if (!target->queued)
        return PERFQ_OK;
    if (!wait) {
        struct perfq_gl_segment *last = target->prev;
        while (last && last->mark)
            last = last->prev;
        if (last) {
            GLuint64 avail = 0;
            perfq_gl_read_query(c, last->name, GL_QUERY_RESULT_AVAILABLE, &avail);
            if (!avail)
                return PERFQ_NOT_READY;
        }
    }
    while (target->queued) {
        struct perfq_gl_segment *it = sl->head;
        queue_unlink(sl, it);
        if (it->mark) {
            it->value = sl->sum;
            continue;
        }
        GLuint64 v = 0;
        perfq_gl_read_query(c, it->name, GL_QUERY_RESULT, &v);
        sl->sum += v;
        segment_free(c, sl, it, 1);
    }
    return PERFQ_OK;
}

void perfq_gl_vq_add_active(struct perfq_gl_vq_slot *sl, struct perfq_gl_vquery *q)
{
    q->prev_active = NULL;
    q->next_active = sl->active;
    if (sl->active)
        sl->active->prev_active = q;
    sl->active = q;
}

void perfq_gl_vq_remove_active(struct perfq_gl_vq_slot *sl, struct perfq_gl_vquery *q)
{
    if (q->prev_active)
        q->prev_active->next_active = q->next_active;
    else if (sl->active == q)
        sl->active = q->next_active;
    else
        return;     /* not on the list */
    if (q->next_active)
        q->next_active->prev_active = q->prev_active;
    q->next_active = q->prev_active = NULL;
}

void perfq_gl_vq_rotate(struct perfq_gl_ctx *c, int slot, struct perfq_gl_vquery *joining,
                        struct perfq_gl_vquery *leaving)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[slot];
    if (sl->cur) {
        perfq_gl_vq_end_driver(c, sl->seg_target, sl->index);
        sl->cur = NULL;     /* stays queued until read or trimmed */
    }
    if (leaving)
        leaving->end = mark_take(c, sl);
    if (joining)
        joining->start = mark_take(c, sl);
    if (!sl->active)
        return;
    struct perfq_gl_segment *seg = segment_get(c, sl);
    if (!seg)
        return;     /* out of memory: the active queries miss this stretch */
    perfq_gl_vq_begin_driver(c, sl->seg_target, sl->index, seg->name);
    sl->cur = seg;
    queue_append(sl, seg);
    sl->serial++;
}

__attribute__((constructor)) static void vq_register_context_services(void)
{
    perfq_gl_context_services.vq_suspend = perfq_gl_vq_suspend;
    perfq_gl_context_services.vq_resume = perfq_gl_vq_resume;
    perfq_gl_context_services.vq_free_context = perfq_gl_vq_free_context;
}

void perfq_gl_vq_suspend(struct perfq_gl_ctx *c)
{
    struct perfq_gl_vq_state *s = c->vq;
    if (!s)
        return;
    int any = 0;
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS && !any; i++)
        any = s->slots[i].cur != NULL;
    if (!any)
        return;
    /* Once per release of a context with perfq queries active: the guard's round trips are
     * nothing beside the make-current. */
    perfq_gl_error_guard_begin(&c->pub);
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++) {
        struct perfq_gl_vq_slot *sl = &s->slots[i];
        if (!sl->cur)
            continue;
        /* The segment stays queued: it is read like any other, and every logical query active
         * now covers it and the one resume begins (no mark between them). */
        perfq_gl_vq_end_driver(c, sl->seg_target, sl->index);
        sl->cur = NULL;
        sl->suspended = 1;
    }
    perfq_gl_error_guard_end(&c->pub);
}

void perfq_gl_vq_resume(struct perfq_gl_ctx *c)
{
    struct perfq_gl_vq_state *s = c->vq;
    if (!s)
        return;
    int any = 0;
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS && !any; i++)
        any = s->slots[i].suspended;
    if (!any)
        return;
    perfq_gl_error_guard_begin(&c->pub);
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++) {
        struct perfq_gl_vq_slot *sl = &s->slots[i];
        if (!sl->suspended)
            continue;
        sl->suspended = 0;
        if (!sl->active || sl->cur)
            continue;
        struct perfq_gl_segment *seg = segment_get(c, sl);
        if (!seg)
            continue;   /* out of memory: the active queries miss this stretch */
        perfq_gl_vq_begin_driver(c, sl->seg_target, sl->index, seg->name);
        sl->cur = seg;
        queue_append(sl, seg);
        sl->serial++;
    }
    perfq_gl_error_guard_end(&c->pub);
}

void perfq_gl_vq_split_program_now(struct perfq_gl_ctx *c, int slot)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[slot];
    if (!sl->prog_name || sl->prog_rec)
        return;
    struct perfq_gl_vquery *rec = perfq_gl_vq_alloc(c->vq);
    if (!rec)
        return;
    rec->program = 1;
    rec->active = 1;
    rec->target = sl->prog_target;
    rec->index = sl->index;
    rec->slot = slot;
    rec->name = sl->prog_name;
    rec->native = sl->prog_name;
    /* End the program's own driver query: it is the record's first piece. The layer has no
     * segment active here (the slot was idle), so the record's start mark is the queue's end. */
    perfq_gl_vq_end_driver(c, sl->prog_target, sl->index);
    sl->prog_maybe &= ~perfq_gl_vq_target_bit(sl->prog_target);
    sl->users++;
    rec->start = mark_take(c, sl);
    struct perfq_gl_vquery *old = perfq_gl_name_table_remove(&c->vq->records, rec->name);
    if (old)
        perfq_gl_vq_release(c, old);
    perfq_gl_name_table_put(&c->vq->records, rec->name, rec);
    atomic_fetch_add(&perfq_gl_vq_live_records, 1);
    sl->prog_rec = rec;
    perfq_gl_vq_add_active(sl, rec);
}

static perfq_status_t read_piece(struct perfq_gl_ctx *c, GLuint name, int *done, GLuint64 *value,
                                 int wait)
{
    if (*done)
        return PERFQ_OK;
    if (!wait) {
        GLuint64 avail = 0;
        perfq_gl_read_query(c, name, GL_QUERY_RESULT_AVAILABLE, &avail);
        if (!avail)
            return PERFQ_NOT_READY;
    }
    perfq_gl_read_query(c, name, GL_QUERY_RESULT, value);
    *done = 1;
    return PERFQ_OK;
}

perfq_status_t perfq_gl_vq_value(struct perfq_gl_ctx *c, struct perfq_gl_vquery *q, int wait,
                                 GLuint64 *value)
{
    if (q->active || !q->ended)
        return PERFQ_ESTATE;
    if (!q->start || !q->end)
        return PERFQ_ENOMEM;    /* a mark could not be made: the interval is unknown */
    /* Newest piece first: when it is available, the driver's ordering makes the older ones so. */
    perfq_status_t st = queue_resolve(c, &c->vq->slots[q->slot], q->end, wait);
    if (st != PERFQ_OK)
        return st;
    if (q->native && read_piece(c, q->native, &q->native_done, &q->native_value, wait) ==
        PERFQ_NOT_READY)
        return PERFQ_NOT_READY;
    /* The start mark is before the end mark in the queue: resolved too. Unsigned differences
     * stay right when the running sum wraps. */
    GLuint64 sum = (q->native ? q->native_value : 0) + (q->end->value - q->start->value);
    *value = is_any_samples(q->target) ? (sum != 0) : sum;
    return PERFQ_OK;
}

/* Frees a logical query that is no longer active (program records included). */
void perfq_gl_vq_release(struct perfq_gl_ctx *c, struct perfq_gl_vquery *q)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[q->slot];
    /* GL only where the context is current here (a destroyed hook with gl_usable == 0 is not). */
    int gl_usable = !c->finalized && perfq_gl_tls_current == c;
    mark_put(c, sl, q->start, gl_usable);
    mark_put(c, sl, q->end, gl_usable);
    perfq_gl_vq_slot_user(c, q->slot, -1, gl_usable);
    if (q->program)
        atomic_fetch_sub(&perfq_gl_vq_live_records, 1);
    else
        perfq_gl_ctx_count(&c->live_vqueries, -1);
    struct perfq_gl_vq_state *s = c->vq;
    if (!c->finalized && s->n_free_vqueries < PERFQ_GL_VQ_FREE_MAX) {
        q->next_active = s->free_vqueries;
        s->free_vqueries = q;
        s->n_free_vqueries++;
    } else {
        free(q);
    }
}

struct perfq_gl_vquery *perfq_gl_vq_alloc(struct perfq_gl_vq_state *s)
{
    struct perfq_gl_vquery *q = s->free_vqueries;
    if (!q)
        return calloc(1, sizeof *q);
    s->free_vqueries = q->next_active;
    s->n_free_vqueries--;
    memset(q, 0, sizeof *q);
    return q;
}

/* While the layer has nothing active on a slot it does not follow the program's queries there
 * (they go straight to the driver): ask the driver which one is active, if any. */
static void discover_program_query(struct perfq_gl_ctx *c, int slot)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[slot];
    static const GLenum occlusion[3] = {GL_SAMPLES_PASSED, GL_ANY_SAMPLES_PASSED,
                                        GL_ANY_SAMPLES_PASSED_CONSERVATIVE};
    const GLenum *targets = slot == 0 ? occlusion : &sl->seg_target;
    int n = slot == 0 ? 3 : 1;
    sl->prog_name = 0;
    /* The layer sees every glBeginQuery* of the program (wrapped by name, by GetProcAddress and
     * through dlopen): only a target it saw begun and not ended can have a program query. */
    if (!sl->prog_maybe)
        return;
    for (int i = 0; i < n; i++) {
        if (!(sl->prog_maybe & perfq_gl_vq_target_bit(targets[i])) ||
            !perfq_gl_vquery_target_supported(&c->pub, targets[i]))
            continue;
        GLint name = 0;
        if (sl->index != 0 && c->pub.gl->glGetQueryIndexediv)
            c->pub.gl->glGetQueryIndexediv(targets[i], sl->index, GL_CURRENT_QUERY, &name);
        else
            c->vq->fn.get_iv(targets[i], GL_CURRENT_QUERY, &name);
        if (name > 0) {
            sl->prog_name = (GLuint)name;
            sl->prog_target = targets[i];
            return;
        }
    }
}

/* ---- the service (gl_layer.h) ---- */

/* q (made or restarted, not active, no marks) joins the logical queries active on its slot. On
 * failure q is ended and PERFQ_ESYS returned (the caller frees it). */
static perfq_status_t vq_start(struct perfq_gl_ctx *c, struct perfq_gl_vquery *q)
{
    struct perfq_gl_vq_slot *sl = &c->vq->slots[q->slot];
    q->active = 1;
    /* Where no program query can be active on the slot (prog_maybe clear), ending and beginning
     * the layer's own segments on its own names raises none of the errors GL 4.6 4.2.1 lists:
     * no glGetError round trip (two per call were most of the layer's cost: issue 10). */
    int guard = sl->prog_maybe != 0;
    if (guard)
        perfq_gl_error_guard_begin(&c->pub);
    if (!sl->active)
        discover_program_query(c, q->slot);
    perfq_gl_vq_split_program(c, q->slot);
    perfq_gl_vq_add_active(sl, q);
    perfq_gl_vq_rotate(c, q->slot, q, NULL);
    GLenum err = guard ? perfq_gl_error_guard_end(&c->pub) : GL_NO_ERROR;
    if (err != GL_NO_ERROR || !sl->cur || !q->start) {
        perfq_gl_vquery_end(&c->pub, q);
        return PERFQ_ESYS;
    }
    return PERFQ_OK;
}

perfq_status_t perfq_gl_vquery_begin(struct perfq_gl_context *pub, GLenum target, GLuint index,
                                     struct perfq_gl_vquery **out)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    int slot = perfq_gl_vq_slot_of(target, index);
    if (!out || slot < 0 || !perfq_gl_vquery_target_supported(pub, target))
        return PERFQ_ENOTSUP;
    if (index != 0 && !(perfq_gl_vq(c) && c->vq->fn.begin_indexed))
        return PERFQ_ENOTSUP;
    struct perfq_gl_vq_state *s = perfq_gl_vq(c);
    struct perfq_gl_vquery *q = s ? perfq_gl_vq_alloc(s) : NULL;
    if (!q)
        return PERFQ_ENOMEM;
    q->target = target;
    q->index = index;
    q->slot = slot;
    perfq_gl_ctx_count(&c->live_vqueries, 1);
    s->slots[slot].users++;
    if (vq_start(c, q) != PERFQ_OK) {
        perfq_gl_vquery_free(pub, q);
        return PERFQ_ESYS;
    }
    *out = q;
    return PERFQ_OK;
}

perfq_status_t perfq_gl_vquery_restart(struct perfq_gl_context *pub, struct perfq_gl_vquery *q)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!q || q->active || !q->ended || q->program || c->finalized || perfq_gl_tls_current != c)
        return PERFQ_ESTATE;
    /* What perfq_gl_vquery_free and perfq_gl_vquery_begin would do, less the free and the
     * allocation: its marks go (the queue is trimmed as at a release), it stays one of the
     * slot's users (so the slot's pool is kept), and it begins again on the same slot. */
    struct perfq_gl_vq_slot *sl = &c->vq->slots[q->slot];
    mark_put(c, sl, q->start, 1);
    mark_put(c, sl, q->end, 1);
    q->start = q->end = NULL;
    q->ended = 0;
    return vq_start(c, q);
}

perfq_status_t perfq_gl_vquery_end(struct perfq_gl_context *pub, struct perfq_gl_vquery *q)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!q || !q->active)
        return PERFQ_ESTATE;
    struct perfq_gl_vq_slot *sl = &c->vq->slots[q->slot];
    perfq_gl_vq_remove_active(sl, q);
    q->active = 0;
    q->ended = 1;
    /* The slot is the layer's while q was active (the program's queries begun meanwhile are
     * records), so this ends the layer's segment and begins another: no guard where no native
     * program query can be active beside it (see perfq_gl_vquery_begin). */
    int guard = sl->prog_maybe != 0;
    if (guard)
        perfq_gl_error_guard_begin(pub);
    perfq_gl_vq_rotate(c, q->slot, NULL, q);
    if (guard)
        perfq_gl_error_guard_end(pub);
    return PERFQ_OK;
}

perfq_status_t perfq_gl_vquery_result(struct perfq_gl_context *pub, struct perfq_gl_vquery *q,
                                      int wait, uint64_t *value)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!q || !value)
        return PERFQ_EINVAL;
    GLuint64 v = 0;
    /* Reads of ended query objects (the layer's, or a program record's own): none of the errors
     * of GL 4.6 4.2.3 can arise, and a bound GL_QUERY_BUFFER is unbound around them: no
     * guard. */
    perfq_status_t st = perfq_gl_vq_value(c, q, wait, &v);
    if (st == PERFQ_OK)
        *value = v;
    return st;
}

int perfq_gl_vquery_was_split(const struct perfq_gl_vquery *q)
{
    if (!q || !q->start || !q->end)
        return 0;
    return q->end->serial - q->start->serial + (q->native ? 1 : 0) > 1;
}

void perfq_gl_vquery_free(struct perfq_gl_context *pub, struct perfq_gl_vquery *q)
{
    if (!q)
        return;
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (q->active) {
        if (c->finalized || perfq_gl_tls_current != c) {
            perfq_gl_vq_remove_active(&c->vq->slots[q->slot], q);
            q->active = 0;
        } else {
            perfq_gl_vquery_end(pub, q);
        }
    }
    perfq_gl_vq_release(c, q);
}

static void release_record(uint32_t key, void *value, void *arg)
{
    (void)key;
    struct perfq_gl_vquery *q = value;
    struct perfq_gl_ctx *c = arg;
    perfq_gl_vq_remove_active(&c->vq->slots[q->slot], q);
    perfq_gl_vq_release(c, q);
}

static void free_segment(uint32_t key, void *value, void *arg)
{
    struct perfq_gl_ctx *c = ((void **)arg)[0];
    int gl_usable = *(int *)((void **)arg)[1];
    GLuint name = key;
    if (gl_usable)
        c->vq->fn.del(1, &name);
    free(value);
    atomic_fetch_sub(&perfq_gl_vq_live_segments, 1);
}

void perfq_gl_vq_free_context(struct perfq_gl_ctx *c, int gl_usable)
{
    struct perfq_gl_vq_state *s = c->vq;
    if (!s)
        return;
    /* Front ends freed their logical queries in their destroyed hooks; what is left is the
     * program's records and the layer's segments. */
    if (gl_usable)
        perfq_gl_error_guard_begin(&c->pub);
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++) {
        struct perfq_gl_vq_slot *sl = &s->slots[i];
        if (sl->cur && gl_usable)
            perfq_gl_vq_end_driver(c, sl->seg_target, sl->index);
        sl->cur = NULL;
        for (struct perfq_gl_vquery *q = sl->active, *n; q; q = n) {
            n = q->next_active;
            q->next_active = q->prev_active = NULL;
        }
        sl->active = NULL;
        sl->pool = NULL;
    }
    int usable = gl_usable;
    c->finalized = 1;   /* releases below must not pool */
    perfq_gl_name_table_each(&s->records, release_record, c);
    perfq_gl_name_table_free(&s->records);
    /* Every mark was released with its queries; segments still queued are freed with the
     * table of the layer's names below. */
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++) {
        struct perfq_gl_vq_slot *sl = &s->slots[i];
        while (sl->head) {
            struct perfq_gl_segment *it = sl->head;
            queue_unlink(sl, it);
            if (it->mark)
                free(it);
        }
    }
    void *args[2] = {c, &usable};
    perfq_gl_name_table_each(&s->internal, free_segment, args);
    perfq_gl_name_table_free(&s->internal);
    perfq_gl_name_table_free(&s->layer_names);
    perfq_gl_name_table_free(&s->aliases);
    while (s->free_marks) {
        struct perfq_gl_segment *m = s->free_marks;
        s->free_marks = m->next;
        free(m);
    }
    while (s->free_vqueries) {
        struct perfq_gl_vquery *q = s->free_vqueries;
        s->free_vqueries = q->next_active;
        free(q);
    }
    c->finalized = 0;
    if (gl_usable)
        perfq_gl_error_guard_end(&c->pub);
    free(s);
    c->vq = NULL;
}
