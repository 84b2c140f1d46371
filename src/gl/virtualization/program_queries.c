/*
 * The program's own query entry points (core, ARB and EXT names), so that its queries keep
 * their exact results and errors while perfq's queries share their targets
 * (query_virtualization.h). While perfq has nothing active on a query's slot, every call goes
 * straight to the driver: the layer only steps in on slots where it has work in flight, and for
 * query names whose result it had to split.
 */
#include "gl/virtualization/query_virtualization.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct perfq_gl_ctx *vq_ctx(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    return c && c->initialized && !c->finalized && c->vq ? c : NULL;
}

/* The driver's name for a program's query name (layer_names.c): its alias's, 0 for one of the
 * layer's (the driver then answers as for a name that is no query object), else itself. */
static GLuint door(GLuint id)
{
    struct perfq_gl_ctx *c = vq_ctx();
    return c ? perfq_gl_vq_driver_name(c->vq, id) : id;
}

static struct perfq_gl_vq_slot *busy_slot(struct perfq_gl_ctx *c, GLenum target, GLuint index,
                                          int *slot_out)
{
    int slot = perfq_gl_vq_slot_of(target, index);
    if (!c || slot < 0 || !c->vq->slots[slot].active)
        return NULL;
    *slot_out = slot;
    return &c->vq->slots[slot];
}

static void drop_record(struct perfq_gl_ctx *c, GLuint id)
{
    struct perfq_gl_vquery *rec = perfq_gl_name_table_remove(&c->vq->records, id);
    if (!rec)
        return;
    if (rec->active) {
        struct perfq_gl_vq_slot *sl = &c->vq->slots[rec->slot];
        perfq_gl_vq_remove_active(sl, rec);
        sl->prog_rec = NULL;
        sl->prog_name = 0;
        rec->active = 0;
        rec->ended = 1;
        perfq_gl_error_guard_begin(&c->pub);
        perfq_gl_vq_rotate(c, rec->slot, NULL, rec);
        perfq_gl_error_guard_end(&c->pub);
    }
    perfq_gl_error_guard_begin(&c->pub);
    perfq_gl_vq_release(c, rec);
    perfq_gl_error_guard_end(&c->pub);
}

static int active_program_name(struct perfq_gl_ctx *c, GLuint id)
{
    for (int i = 0; i < PERFQ_GL_VQ_SLOTS; i++)
        if (c->vq->slots[i].prog_rec && c->vq->slots[i].prog_name == id)
            return 1;
    return 0;
}

typedef void (*begin_fn)(GLenum, GLuint);
typedef void (*begin_indexed_fn)(GLenum, GLuint, GLuint);
typedef void (*end_fn)(GLenum);
typedef void (*end_indexed_fn)(GLenum, GLuint);

static void call_begin(GLenum target, GLuint index, GLuint id, begin_fn b, begin_indexed_fn bi)
{
    if (bi)
        bi(target, index, id);
    else if (b)
        b(target, id);
}

static void call_end(GLenum target, GLuint index, end_fn e, end_indexed_fn ei)
{
    if (ei)
        ei(target, index);
    else if (e)
        e(target);
}

static void begin_named(struct perfq_gl_ctx *c, GLenum target, GLuint index, GLuint id,
                        begin_fn b, begin_indexed_fn bi, end_fn e, end_indexed_fn ei)
{
    int slot = -1;
    struct perfq_gl_vq_slot *sl = busy_slot(c, target, index, &slot);
    if (!sl) {
        /* Straight to the driver: the query may be active there from now on (if the driver
         * accepts it), until the program ends a query of this target. */
        int s0 = perfq_gl_vq_slot_of(target, index);
        if (c && s0 >= 0)
            c->vq->slots[s0].prog_maybe |= perfq_gl_vq_target_bit(target);
        if (c && c->vq->records.count && perfq_gl_name_table_get(&c->vq->records, id)) {
            /* A new query on a name whose old result was split: the old result is lost. */
            perfq_gl_call_checked_begin(c);
            call_begin(target, index, id, b, bi);
            if (perfq_gl_call_checked_end(c) == GL_NO_ERROR)
                drop_record(c, id);
            return;
        }
        call_begin(target, index, id, b, bi);
        return;
    }
    /* perfq has queries in flight on this slot: the driver's query is the layer's segment, so
     * the checks that the driver would make against the program's state are made here. */
    /* GL 4.6 4.2.1: "An INVALID_OPERATION error is generated if BeginQuery is called when a
     * query of the given target is already active" */
    if (sl->prog_name) {
        perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* "... if id is the name of a query currently in progress" (split ones are not known to the
     * driver as active). Not in spec: names the layer owns are refused the same way. */
    if (active_program_name(c, id) || perfq_gl_name_table_get(&c->vq->internal, id)) {
        perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
        return;
    }
    /* The remaining checks (id 0, a name not generated, a type mismatch, id active on another
     * target natively) are the driver's: end the layer's segment, let the driver begin the
     * program's query, and, if it accepts, end it at once: it is the record's first piece (it
     * covers no commands) and the rest is covered by shared segments. */
    perfq_gl_error_guard_begin(&c->pub);
    perfq_gl_vq_end_driver(c, sl->seg_target, sl->index);
    sl->cur = NULL;     /* still queued: the active logical queries cover it */
    perfq_gl_error_guard_end(&c->pub);

    perfq_gl_call_checked_begin(c);
    call_begin(target, index, id, b, bi);
    GLenum err = perfq_gl_call_checked_end(c);

    perfq_gl_error_guard_begin(&c->pub);
    struct perfq_gl_vquery *joining = NULL;
    if (err == GL_NO_ERROR) {
        call_end(target, index, e, ei);
        drop_record(c, id);
        struct perfq_gl_vquery *rec = perfq_gl_vq_alloc(c->vq);
        if (rec) {
            rec->program = 1;
            rec->active = 1;
            rec->target = target;
            rec->index = index;
            rec->slot = slot;
            rec->name = id;
            rec->native = id;
            if (perfq_gl_name_table_put(&c->vq->records, id, rec) == 0) {
                atomic_fetch_add(&perfq_gl_vq_live_records, 1);
                sl->users++;
                perfq_gl_vq_add_active(sl, rec);
                joining = rec;
                sl->prog_rec = rec;
                sl->prog_name = id;
                sl->prog_target = target;
            } else {
                free(rec);
            }
        }
    }
    perfq_gl_vq_rotate(c, slot, joining, NULL);
    perfq_gl_error_guard_end(&c->pub);
}

static void begin_common(GLenum target, GLuint index, GLuint id, begin_fn b, begin_indexed_fn bi,
                         end_fn e, end_indexed_fn ei)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized && !c->vq)
        perfq_gl_vq(c);     /* so that prog_maybe is kept from the first query on */
    c = vq_ctx();
    if (!c) {
        begin_named(NULL, target, index, id, b, bi, e, ei);
        return;
    }
    int alias_pending = 0;
    GLuint driver_name = perfq_gl_vq_alias_for_new(c, id, &alias_pending);
    begin_named(c, target, index, driver_name, b, bi, e, ei);
    if (alias_pending)
        perfq_gl_vq_alias_settle(c, id, driver_name);
}

static void end_common(GLenum target, GLuint index, end_fn e, end_indexed_fn ei)
{
    struct perfq_gl_ctx *c = vq_ctx();
    int slot = -1;
    struct perfq_gl_vq_slot *sl = busy_slot(c, target, index, &slot);
    if (!sl) {
        /* Whether the driver accepts it or not, no query of this target is active after it. */
        int s0 = perfq_gl_vq_slot_of(target, index);
        if (c && s0 >= 0)
            c->vq->slots[s0].prog_maybe &= ~perfq_gl_vq_target_bit(target);
        call_end(target, index, e, ei);
        return;
    }
    /* GL 4.6 4.2.1: "An INVALID_OPERATION error is generated if EndQuery is called when a query
     * of the given target is not active" (the driver's active query is the layer's here). */
    if (!sl->prog_name || sl->prog_target != target || !sl->prog_rec) {
        perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
        return;
    }
    struct perfq_gl_vquery *rec = sl->prog_rec;
    perfq_gl_vq_remove_active(sl, rec);
    rec->active = 0;
    rec->ended = 1;
    sl->prog_rec = NULL;
    sl->prog_name = 0;
    perfq_gl_error_guard_begin(&c->pub);
    perfq_gl_vq_rotate(c, slot, NULL, rec);
    perfq_gl_error_guard_end(&c->pub);
}

static void get_iv_common(GLenum target, GLuint index, GLenum pname, GLint *params,
                          void (*real)(GLenum, GLenum, GLint *),
                          void (*real_indexed)(GLenum, GLuint, GLenum, GLint *))
{
    struct perfq_gl_ctx *c = vq_ctx();
    int slot = -1;
    struct perfq_gl_vq_slot *sl = busy_slot(c, target, index, &slot);
    if (sl && pname == GL_CURRENT_QUERY) {
        /* The program's query, never the layer's segment. */
        if (params)
            *params = sl->prog_name && sl->prog_target == target ?
                (GLint)perfq_gl_vq_program_name(c->vq, sl->prog_name) : 0;
        return;
    }
    if (real_indexed)
        real_indexed(target, index, pname, params);
    else if (real)
        real(target, pname, params);
    /* A query active under an alias is the program's name to the program. */
    if (c && c->vq->aliases.count && pname == GL_CURRENT_QUERY && params)
        *params = (GLint)perfq_gl_vq_program_name(c->vq, (GLuint)*params);
}

enum value_type { V_INT32, V_UINT32, V_INT64, V_UINT64 };

union query_value {
    GLint i;
    GLuint u;
    GLint64 i64;
    GLuint64 u64;
};

/* A result as the type holds it (values too large for it saturate); returns its size. */
static size_t convert(enum value_type type, GLuint64 v, union query_value *out)
{
    switch (type) {
    case V_INT32: out->i = v > (GLuint64)INT_MAX ? INT_MAX : (GLint)v; return 4;
    case V_UINT32: out->u = v > (GLuint64)UINT_MAX ? UINT_MAX : (GLuint)v; return 4;
    case V_INT64: out->i64 = v > (GLuint64)INT64_MAX ? INT64_MAX : (GLint64)v; return 8;
    default: out->u64 = v; return 8;
    }
}

/* Writes a result as GL would: to *params, or into the buffer bound to GL_QUERY_BUFFER at the
 * offset `params` (ARB_query_buffer_object). */
static void deliver(struct perfq_gl_ctx *c, void *params, enum value_type type, GLuint64 v)
{
    union query_value out;
    size_t size = convert(type, v, &out);
    GLint buffer = 0;
    if (perfq_gl_vq_query_buffer_bound(c)) {
        perfq_gl_error_guard_begin(&c->pub);
        c->pub.gl->glGetIntegerv(GL_QUERY_BUFFER_BINDING, &buffer);
        if (buffer)
            c->pub.gl->glBufferSubData(GL_QUERY_BUFFER, (GLintptr)params, (GLsizeiptr)size, &out);
        perfq_gl_error_guard_end(&c->pub);
    }
    if (!buffer && params)
        memcpy(params, &out, size);
}

enum split_answer { DRIVER_ANSWERS, LAYER_REFUSED, LAYER_VALUE };

/* Who answers a query object's pname for `id`: the driver where the name has no split record,
 * or for a pname other than the result's (GL_QUERY_TARGET, bad pnames: the driver's object
 * answers); else the layer, which refuses an active query or reads the summed result into *st
 * and *v (in *c_out's context). */
static enum split_answer split_result(GLuint id, GLenum pname, struct perfq_gl_ctx **c_out,
                                      perfq_status_t *st, GLuint64 *v)
{
    struct perfq_gl_ctx *c = vq_ctx();
    if (!c || !c->vq->records.count)
        return DRIVER_ANSWERS;
    struct perfq_gl_vquery *rec = perfq_gl_name_table_get(&c->vq->records, id);
    if (!rec)
        return DRIVER_ANSWERS;
    /* GL 4.6 4.2.3: "An INVALID_OPERATION error is generated if id is the name of a currently
     * active query object". */
    if (rec->active) {
        perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
        return LAYER_REFUSED;
    }
    if (pname != GL_QUERY_RESULT && pname != GL_QUERY_RESULT_AVAILABLE &&
        pname != GL_QUERY_RESULT_NO_WAIT)
        return DRIVER_ANSWERS;
    perfq_gl_error_guard_begin(&c->pub);
    *st = perfq_gl_vq_value(c, rec, pname == GL_QUERY_RESULT, v);
    perfq_gl_error_guard_end(&c->pub);
    *c_out = c;
    return LAYER_VALUE;
}

/* 1 if the layer answered (the name has a split record), 0 to let the driver answer. */
static int get_object_common(GLuint id, GLenum pname, void *params, enum value_type type)
{
    struct perfq_gl_ctx *c = NULL;
    perfq_status_t st = PERFQ_OK;
    GLuint64 v = 0;
    enum split_answer who = split_result(id, pname, &c, &st, &v);
    if (who != LAYER_VALUE)
        return who == LAYER_REFUSED;
    if (pname == GL_QUERY_RESULT_AVAILABLE)
        deliver(c, params, type, st == PERFQ_OK ? GL_TRUE : GL_FALSE);
    else if (st == PERFQ_OK)
        deliver(c, params, type, v);
    return 1;
}

/* GL 4.5 DSA: the result of a split query goes into the named buffer at offset, as the driver
 * would write it. 1 if the layer answered. */
static int get_buffer_object_common(GLuint id, GLuint buffer, GLenum pname, GLintptr offset,
                                    enum value_type type)
{
    struct perfq_gl_ctx *c = NULL;
    perfq_status_t st = PERFQ_OK;
    GLuint64 v = 0;
    enum split_answer who = split_result(id, pname, &c, &st, &v);
    if (who != LAYER_VALUE)
        return who == LAYER_REFUSED;
    if (pname == GL_QUERY_RESULT_AVAILABLE)
        v = st == PERFQ_OK;
    else if (st != PERFQ_OK)
        return 1;   /* NO_WAIT and not available: nothing written */
    union query_value out;
    GLsizeiptr size = (GLsizeiptr)convert(type, v, &out);
    /* The driver's own errors (a bad buffer name, an offset out of range) are the program's. */
    c->pub.gl->glNamedBufferSubData(buffer, offset, size, &out);
    return 1;
}

static void delete_common(GLsizei n, const GLuint *ids, void (*real)(GLsizei, const GLuint *))
{
    struct perfq_gl_ctx *c = vq_ctx();
    if (!c || n <= 0 || !ids) {
        if (real)
            real(n, ids);
        return;
    }
    int mapped = 0;
    for (GLsizei i = 0; i < n; i++) {
        GLuint d = perfq_gl_vq_driver_name(c->vq, ids[i]);
        if (d != ids[i])
            mapped = 1;
        if (d)
            drop_record(c, d);  /* deleting an active split query ends it, as Mesa does */
    }
    if (!mapped) {
        if (real)
            real(n, ids);
        return;
    }
    /* Names the layer owns are not the program's to delete ("unused names are silently
     * ignored"); an alias goes with the program's name (layer_names.c). */
    GLuint *keep = malloc(2 * (size_t)n * sizeof *keep);
    if (!keep)
        return;
    GLsizei k = 0;
    for (GLsizei i = 0; i < n; i++)
        k += perfq_gl_vq_alias_delete(c, ids[i], &keep[k]);
    if (real && k)
        real(k, keep);
    free(keep);
}

static GLboolean is_query_common(GLuint id, GLboolean (*real)(GLuint))
{
    GLuint d = door(id);
    return real && d ? real(d) : GL_FALSE;
}

static void counter_named(struct perfq_gl_ctx *c, GLuint id, GLenum target,
                          void (*real)(GLuint, GLenum))
{
    if (c && c->vq->records.count) {
        /* GL 4.6 4.2.2: "INVALID_OPERATION ... if id is the name of a query object that is
         * already in use within a BeginQuery / EndQuery block" */
        if (active_program_name(c, id)) {
            perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
            return;
        }
        if (perfq_gl_name_table_get(&c->vq->records, id)) {
            perfq_gl_call_checked_begin(c);
            if (real)
                real(id, target);
            if (perfq_gl_call_checked_end(c) == GL_NO_ERROR)
                drop_record(c, id);
            return;
        }
    }
    if (real)
        real(id, target);
}

static void counter_common(GLuint id, GLenum target, void (*real)(GLuint, GLenum))
{
    struct perfq_gl_ctx *c = vq_ctx();
    if (!c) {
        counter_named(NULL, id, target, real);
        return;
    }
    int alias_pending = 0;
    GLuint driver_name = perfq_gl_vq_alias_for_new(c, id, &alias_pending);
    counter_named(c, driver_name, target, real);
    if (alias_pending)
        perfq_gl_vq_alias_settle(c, id, driver_name);
}

/* The driver's pair a program's call goes to: the core names (GL 3.0) or NV_conditional_render's
 * (the same driver state; a program may fetch either name). */
struct conditional_render_fns {
    PFNGLBEGINCONDITIONALRENDERPROC begin;
    PFNGLENDCONDITIONALRENDERPROC end;
};

/*
 * Before the layer answers a glBeginConditionalRender itself: GL 4.6 10.10, "An
 * INVALID_OPERATION error is generated if BeginConditionalRender is called while conditional
 * rendering is active". Where the program's last glBeginConditionalRender went to the driver
 * and no glEndConditionalRender followed, the driver's conditional rendering may be active, and
 * only the driver knows whether it accepted that call. Its answer is asked where it is needed
 * (no glGetError on the common path): the program's call goes to the driver; refused, the
 * driver's error is the program's answer (1); accepted, nothing was active, so the layer ends
 * that conditional rendering at once (it covered no commands) and decides itself (0).
 */
static int driver_refuses_begin(struct perfq_gl_ctx *c, GLuint id, GLenum mode,
                                const struct conditional_render_fns *real)
{
    if (!c->conditional_render_forwarded)
        return 0;
    perfq_gl_call_checked_begin(c);
    real->begin(id, mode);
    if (perfq_gl_call_checked_end(c) != GL_NO_ERROR)
        return 1;
    perfq_gl_error_guard_begin(&c->pub);
    real->end();
    perfq_gl_error_guard_end(&c->pub);
    c->conditional_render_forwarded = 0;
    return 0;
}

/*
 * Conditional rendering on a split query: the driver's object (the program's name) holds only the
 * first piece. The layer decides from the summed result instead (GL 4.6 10.10: with a WAIT mode
 * "the GL will wait for the query result"; with NO_WAIT "the GL may choose to render as though
 * the result were non-zero" if it is not available):
 * - sum 0: every piece is 0, the first one too, so the driver's own conditional render on the
 *   program's name discards exactly as GL would;
 * - sum non-zero (or not available, NO_WAIT): render unconditionally; the matching
 *   glEndConditionalRender is the layer's;
 * - inverted modes (GL 4.5: render only where the result is zero): sum 0, or a non-zero first
 *   piece, is the driver's to decide, rightly. A non-zero sum whose first piece is 0 must
 *   discard, which the inverted mode on the first piece would not: the driver is given the
 *   non-inverted QUERY_WAIT on the same object instead, whose result (the first piece, 0, and
 *   available) discards the block, as GL does for the sum. The driver's conditional rendering
 *   is then active, so its glEndConditionalRender and its nesting error stay the driver's.
 *   (Issue 13's known defect: this case rendered.)
 * Returns 1 when the layer took the call; else *mode is what the driver is to be given.
 */
static int begin_conditional_render(GLuint id, GLenum *mode_io,
                                    const struct conditional_render_fns *real)
{
    GLenum mode = *mode_io;
    struct perfq_gl_ctx *c = vq_ctx();
    if (!c)
        return 0;
    /* "INVALID_OPERATION ... if BeginConditionalRender is called while conditional rendering is
     * active" (the driver cannot see the layer's). */
    if (c->conditional_render_emulated) {
        perfq_gl_record_error(&c->pub, GL_INVALID_OPERATION);
        return 1;
    }
    if (!c->vq->records.count)
        return 0;
    struct perfq_gl_vquery *rec = perfq_gl_name_table_get(&c->vq->records, id);
    if (!rec || rec->active || rec->slot != 0)
        return 0;   /* the driver's checks and answer (an active query is its error too) */
    int wait = mode == GL_QUERY_WAIT || mode == GL_QUERY_BY_REGION_WAIT ||
               mode == GL_QUERY_WAIT_INVERTED || mode == GL_QUERY_BY_REGION_WAIT_INVERTED;
    int inverted = mode == GL_QUERY_WAIT_INVERTED || mode == GL_QUERY_NO_WAIT_INVERTED ||
                   mode == GL_QUERY_BY_REGION_WAIT_INVERTED ||
                   mode == GL_QUERY_BY_REGION_NO_WAIT_INVERTED;
    int known = wait || inverted || mode == GL_QUERY_NO_WAIT || mode == GL_QUERY_BY_REGION_NO_WAIT;
    if (!known)
        return 0;   /* the driver's INVALID_ENUM */
    GLuint64 v = 0;
    perfq_gl_error_guard_begin(&c->pub);
    perfq_status_t st = perfq_gl_vq_value(c, rec, wait, &v);
    perfq_gl_error_guard_end(&c->pub);
    if (st == PERFQ_OK) {
        /* Non-inverted: sum 0 means every piece is 0, the first one too: the driver discards
         * as GL would. Inverted, sum 0: the driver renders, as GL would; inverted, sum non-zero
         * and a non-zero first piece: the driver discards, as GL would. */
        if (v == 0 || (inverted && rec->native_value != 0))
            return 0;
        /* Inverted, sum non-zero, first piece 0 (perfq_gl_vq_value has read it): GL discards;
         * the first piece under the non-inverted wait discards too. */
        if (inverted) {
            *mode_io = GL_QUERY_WAIT;
            return 0;
        }
    }
    /* Non-inverted and non-zero, or not available under NO_WAIT ("the GL may choose to
     * unconditionally execute the subsequent rendering commands"): render. */
    if (driver_refuses_begin(c, id, mode, real))
        return 1;
    c->conditional_render_emulated = 1;
    return 1;
}

static void begin_conditional_render_common(GLuint id, GLenum mode,
                                            const struct conditional_render_fns *real)
{
    if (!real->begin || !real->end)
        return;     /* the driver has neither name: nothing to call (never reached through it) */
    id = door(id);
    if (begin_conditional_render(id, &mode, real))
        return;
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized)
        c->conditional_render_forwarded = 1;
    real->begin(id, mode);
}

static void end_conditional_render_common(PFNGLENDCONDITIONALRENDERPROC real_end)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized) {
        if (c->conditional_render_emulated) {
            c->conditional_render_emulated = 0;
            return;
        }
        c->conditional_render_forwarded = 0;
    }
    if (real_end)
        real_end();
}

PERFQ_GL_EXPORT void glBeginConditionalRender(GLuint id, GLenum mode)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    const struct conditional_render_fns real = {gl->glBeginConditionalRender,
                                                gl->glEndConditionalRender};
    begin_conditional_render_common(id, mode, &real);
}

PERFQ_GL_EXPORT void glEndConditionalRender(void)
{
    end_conditional_render_common(perfq_gl_dispatch()->glEndConditionalRender);
}

/* ---- NV_conditional_render names: the same decision on a split query ---- */
PERFQ_GL_EXPORT void glBeginConditionalRenderNV(GLuint id, GLenum mode)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    const struct conditional_render_fns real = {gl->glBeginConditionalRenderNV,
                                                gl->glEndConditionalRenderNV};
    begin_conditional_render_common(id, mode, &real);
}

PERFQ_GL_EXPORT void glEndConditionalRenderNV(void)
{
    end_conditional_render_common(perfq_gl_dispatch()->glEndConditionalRenderNV);
}

#define GL_ (perfq_gl_dispatch())

/* ---- core names ---- */
PERFQ_GL_EXPORT void glBeginQuery(GLenum target, GLuint id)
{
    begin_common(target, 0, id, GL_->glBeginQuery, NULL, GL_->glEndQuery, NULL);
}
PERFQ_GL_EXPORT void glEndQuery(GLenum target)
{
    end_common(target, 0, GL_->glEndQuery, NULL);
}
PERFQ_GL_EXPORT void glBeginQueryIndexed(GLenum target, GLuint index, GLuint id)
{
    begin_common(target, index, id, NULL, GL_->glBeginQueryIndexed, NULL,
                 GL_->glEndQueryIndexed);
}
PERFQ_GL_EXPORT void glEndQueryIndexed(GLenum target, GLuint index)
{
    end_common(target, index, NULL, GL_->glEndQueryIndexed);
}
PERFQ_GL_EXPORT void glGetQueryiv(GLenum target, GLenum pname, GLint *params)
{
    get_iv_common(target, 0, pname, params, GL_->glGetQueryiv, NULL);
}
PERFQ_GL_EXPORT void glGetQueryIndexediv(GLenum target, GLuint index, GLenum pname,
                                         GLint *params)
{
    get_iv_common(target, index, pname, params, NULL, GL_->glGetQueryIndexediv);
}
PERFQ_GL_EXPORT void glGetQueryObjectiv(GLuint id, GLenum pname, GLint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_INT32))
        GL_->glGetQueryObjectiv(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjectuiv(GLuint id, GLenum pname, GLuint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_UINT32))
        GL_->glGetQueryObjectuiv(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjecti64v(GLuint id, GLenum pname, GLint64 *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_INT64))
        GL_->glGetQueryObjecti64v(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjectui64v(GLuint id, GLenum pname, GLuint64 *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_UINT64))
        GL_->glGetQueryObjectui64v(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryBufferObjectiv(GLuint id, GLuint buffer, GLenum pname,
                                              GLintptr offset)
{
    id = door(id);
    if (!get_buffer_object_common(id, buffer, pname, offset, V_INT32))
        GL_->glGetQueryBufferObjectiv(id, buffer, pname, offset);
}
PERFQ_GL_EXPORT void glGetQueryBufferObjectuiv(GLuint id, GLuint buffer, GLenum pname,
                                               GLintptr offset)
{
    id = door(id);
    if (!get_buffer_object_common(id, buffer, pname, offset, V_UINT32))
        GL_->glGetQueryBufferObjectuiv(id, buffer, pname, offset);
}
PERFQ_GL_EXPORT void glGetQueryBufferObjecti64v(GLuint id, GLuint buffer, GLenum pname,
                                                GLintptr offset)
{
    id = door(id);
    if (!get_buffer_object_common(id, buffer, pname, offset, V_INT64))
        GL_->glGetQueryBufferObjecti64v(id, buffer, pname, offset);
}
PERFQ_GL_EXPORT void glGetQueryBufferObjectui64v(GLuint id, GLuint buffer, GLenum pname,
                                                 GLintptr offset)
{
    id = door(id);
    if (!get_buffer_object_common(id, buffer, pname, offset, V_UINT64))
        GL_->glGetQueryBufferObjectui64v(id, buffer, pname, offset);
}
PERFQ_GL_EXPORT void glDeleteQueries(GLsizei n, const GLuint *ids)
{
    delete_common(n, ids, GL_->glDeleteQueries);
}
PERFQ_GL_EXPORT GLboolean glIsQuery(GLuint id)
{
    return is_query_common(id, GL_->glIsQuery);
}
PERFQ_GL_EXPORT void glQueryCounter(GLuint id, GLenum target)
{
    counter_common(id, target, GL_->glQueryCounter);
}

/* ---- ARB_occlusion_query names ---- */
PERFQ_GL_EXPORT void glBeginQueryARB(GLenum target, GLuint id)
{
    begin_common(target, 0, id, GL_->glBeginQueryARB, NULL, GL_->glEndQueryARB, NULL);
}
PERFQ_GL_EXPORT void glEndQueryARB(GLenum target)
{
    end_common(target, 0, GL_->glEndQueryARB, NULL);
}
PERFQ_GL_EXPORT void glGetQueryivARB(GLenum target, GLenum pname, GLint *params)
{
    get_iv_common(target, 0, pname, params, GL_->glGetQueryivARB, NULL);
}
PERFQ_GL_EXPORT void glGetQueryObjectivARB(GLuint id, GLenum pname, GLint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_INT32))
        GL_->glGetQueryObjectivARB(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjectuivARB(GLuint id, GLenum pname, GLuint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_UINT32))
        GL_->glGetQueryObjectuivARB(id, pname, params);
}
PERFQ_GL_EXPORT void glDeleteQueriesARB(GLsizei n, const GLuint *ids)
{
    delete_common(n, ids, GL_->glDeleteQueriesARB);
}
PERFQ_GL_EXPORT GLboolean glIsQueryARB(GLuint id)
{
    return is_query_common(id, GL_->glIsQueryARB);
}

/* ---- GLES EXT_occlusion_query_boolean / EXT_disjoint_timer_query names ---- */
PERFQ_GL_EXPORT void glBeginQueryEXT(GLenum target, GLuint id)
{
    begin_common(target, 0, id, GL_->glBeginQueryEXT, NULL, GL_->glEndQueryEXT, NULL);
}
PERFQ_GL_EXPORT void glEndQueryEXT(GLenum target)
{
    end_common(target, 0, GL_->glEndQueryEXT, NULL);
}
PERFQ_GL_EXPORT void glGetQueryivEXT(GLenum target, GLenum pname, GLint *params)
{
    get_iv_common(target, 0, pname, params, GL_->glGetQueryivEXT, NULL);
}
PERFQ_GL_EXPORT void glGetQueryObjectivEXT(GLuint id, GLenum pname, GLint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_INT32))
        GL_->glGetQueryObjectivEXT(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjectuivEXT(GLuint id, GLenum pname, GLuint *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_UINT32))
        GL_->glGetQueryObjectuivEXT(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjecti64vEXT(GLuint id, GLenum pname, GLint64 *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_INT64))
        GL_->glGetQueryObjecti64vEXT(id, pname, params);
}
PERFQ_GL_EXPORT void glGetQueryObjectui64vEXT(GLuint id, GLenum pname, GLuint64 *params)
{
    id = door(id);
    if (!get_object_common(id, pname, params, V_UINT64))
        GL_->glGetQueryObjectui64vEXT(id, pname, params);
}
PERFQ_GL_EXPORT void glDeleteQueriesEXT(GLsizei n, const GLuint *ids)
{
    delete_common(n, ids, GL_->glDeleteQueriesEXT);
}
PERFQ_GL_EXPORT GLboolean glIsQueryEXT(GLuint id)
{
    return is_query_common(id, GL_->glIsQueryEXT);
}
PERFQ_GL_EXPORT void glQueryCounterEXT(GLuint id, GLenum target)
{
    counter_common(id, target, GL_->glQueryCounterEXT);
}
