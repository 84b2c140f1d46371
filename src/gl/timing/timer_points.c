/*
 * Stamp points: the query path's intervals made of two GL_TIMESTAMP query counters instead of
 * a TIME_ELAPSED query, where a driver's TIME_ELAPSED is wrong but its timestamps are right
 * (llvmpipe; timer_path.c says when, docs/gl-layer.md "Stamp points").
 *
 * A point is glQueryCounter(GL_TIMESTAMP) followed by a glFlush: the flush makes the counter
 * the last command of the driver's batch, so its stamp is the time that batch completed, the
 * same point a fence signals at (the fence path's EGL fence flushes too, on Mesa). llvmpipe
 * writes a timestamp from each rasterizer thread as it reaches the command in each tile, and
 * reports the latest: with the counter last in its scene, that is when the scene was done. An
 * interval is the difference of its two points; a frame's end point is the next frame's begin
 * (both hold it, as a fence on the fence path). Nothing waits: a point is read when the driver
 * says its result is available, on the context's thread, with no helper thread and no wake-up.
 *
 * A released point's name is reused (or deleted) only once a later point has read as completed.
 * llvmpipe answers "available" from its fence's count without the fence's lock, while the
 * rasterizer thread that made the count complete may still hold that lock; a counter on the
 * name (or its deletion) then drops the fence's last reference, and Mesa destroys a locked
 * mutex and frees memory that thread is about to unlock (TSan in CI, timer-backlog-compat).
 * A later point's completion means every rasterizer thread has signalled a later scene, which
 * each does after it let go of the earlier scene's fence. The names so held are bounded by the
 * points the context has in flight; the context's release deletes them after a glFinish.
 */
#include "gl/timing/timer_internal.h"
#include "gl/virtualization/query_virtualization.h"

#include <stdlib.h>
#include <string.h>

atomic_ullong perfq_gl_stamp_names_held;

/* A released name that a later completed point has made safe, or 0. */
static GLuint take_released(struct perfq_gl_timer_state *s)
{
    if (s->released_head == s->n_released ||
        s->released[s->released_head].seq >= s->point_done_seq)
        return 0;
    GLuint q = s->released[s->released_head++].query;
    atomic_fetch_sub(&perfq_gl_stamp_names_held, 1);
    if (s->released_head == s->n_released)
        s->released_head = s->n_released = 0;
    return q;
}

/* Keeps a released name (0: out of memory, the name is then left to the context). */
static int keep_released(struct perfq_gl_timer_state *s, GLuint query, uint64_t seq)
{
    if (s->released_head > 0 && s->n_released == s->released_cap) {
        memmove(s->released, s->released + s->released_head,
                (s->n_released - s->released_head) * sizeof *s->released);
        s->n_released -= s->released_head;
        s->released_head = 0;
    }
    if (s->n_released == s->released_cap) {
        size_t cap = s->released_cap ? 2 * s->released_cap : 64;
        void *n = realloc(s->released, cap * sizeof *s->released);
        if (!n)
            return 0;
        s->released = n;
        s->released_cap = cap;
    }
    s->released[s->n_released++] = (struct perfq_gl_released_point){query, seq};
    atomic_fetch_add(&perfq_gl_stamp_names_held, 1);
    return 1;
}

struct perfq_gl_point *perfq_gl_point_insert(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    struct perfq_gl_vq_state *vq = perfq_gl_vq(c);
    struct perfq_gl_point *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    perfq_gl_error_guard_begin(&c->pub);
    /* Mesa's glQueryCounter does not flush the vertices a compatibility-profile program left
     * in its immediate-mode buffer (glBegin/glEnd, glRect; test `glx`: 4000 rects read 4 ms
     * against 74 ms of wall): they would be drawn after the stamp. In a context that used
     * immediate mode (layer_immediate.c) a flush before the counter sends them first (a second
     * batch a point); others, core and ES contexts always, are spared it. */
    if (c->immediate_mode_seen)
        c->pub.gl->glFlush();
    if (!(p->query = take_released(s)))
        p->query = perfq_gl_vq_gen_layer_name(c);
    vq->fn.counter(p->query, GL_TIMESTAMP);
    c->pub.gl->glFlush();
    GLenum err = perfq_gl_error_guard_end(&c->pub);
    if (err != GL_NO_ERROR || !p->query) {
        if (p->query) {
            perfq_gl_error_guard_begin(&c->pub);
            perfq_gl_vq_delete_layer_names(c, 1, &p->query);
            perfq_gl_error_guard_end(&c->pub);
        }
        free(p);
        return NULL;
    }
    p->refs = 1;
    p->seq = ++s->point_seq;
    return p;
}

perfq_status_t perfq_gl_point_result(struct perfq_gl_ctx *c, struct perfq_gl_point *p, int wait,
                                     uint64_t *ns)
{
    if (!p->done) {
        GLuint64 avail = 1;
        perfq_gl_error_guard_begin(&c->pub);
        if (!wait)
            perfq_gl_read_query(c, p->query, GL_QUERY_RESULT_AVAILABLE, &avail);
        if (avail)
            perfq_gl_read_query(c, p->query, GL_QUERY_RESULT, &p->value);
        GLenum err = perfq_gl_error_guard_end(&c->pub);
        if (err != GL_NO_ERROR)
            return PERFQ_ESYS;
        if (!avail)
            return PERFQ_NOT_READY;
        p->done = 1;
        struct perfq_gl_timer_state *s = c->timer;
        if (p->seq > s->point_done_seq)
            s->point_done_seq = p->seq;
    }
    *ns = p->value;
    return PERFQ_OK;
}

/* Released names beyond which a point is made and waited for, and the safe ones deleted down
 * to the reuse reserve: a program that drops its queries unread (no later point is read) would
 * otherwise make the list, and the driver's query objects, grow without end. */
#define RELEASED_MAX 4096
#define RELEASED_RESERVE 64

static void sync_and_trim(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    struct perfq_gl_point *q = perfq_gl_point_insert(c);
    uint64_t v;
    if (q) {
        perfq_gl_point_result(c, q, 1, &v);     /* waited: every earlier name is safe */
        if (!keep_released(s, q->query, q->seq)) {
            perfq_gl_error_guard_begin(&c->pub);
            perfq_gl_vq_delete_layer_names(c, 1, &q->query);
            perfq_gl_error_guard_end(&c->pub);
        }
        free(q);
    }
    perfq_gl_error_guard_begin(&c->pub);
    while (s->n_released - s->released_head > RELEASED_RESERVE &&
           s->released[s->released_head].seq < s->point_done_seq) {
        perfq_gl_vq_delete_layer_names(c, 1, &s->released[s->released_head++].query);
        atomic_fetch_sub(&perfq_gl_stamp_names_held, 1);
    }
    perfq_gl_error_guard_end(&c->pub);
}

void perfq_gl_point_release(struct perfq_gl_ctx *c, struct perfq_gl_point *p, int gl_usable)
{
    if (!p || --p->refs > 0)
        return;
    /* Kept for reuse once a later point has completed (above); where GL cannot be called
     * (another thread, the context gone) the name is left to the context. */
    struct perfq_gl_timer_state *s = c->timer;
    if (gl_usable && p->query && s) {
        if (!keep_released(s, p->query, p->seq)) {
            /* Out of memory: a point waited for makes this name safe to delete now. */
            sync_and_trim(c);
            if (p->seq < s->point_done_seq) {
                perfq_gl_error_guard_begin(&c->pub);
                perfq_gl_vq_delete_layer_names(c, 1, &p->query);
                perfq_gl_error_guard_end(&c->pub);
            }
        } else if (s->n_released - s->released_head > RELEASED_MAX) {
            sync_and_trim(c);
        }
    }
    free(p);
}

void perfq_gl_points_free_names(struct perfq_gl_ctx *c, int gl_usable)
{
    struct perfq_gl_timer_state *s = c->timer;
    if (!s)
        return;
    if (gl_usable && s->n_released > s->released_head) {
        /* Every scene done, every rasterizer thread past its signals: then the names go. */
        perfq_gl_error_guard_begin(&c->pub);
        c->pub.gl->glFinish();
        for (size_t i = s->released_head; i < s->n_released; i++)
            perfq_gl_vq_delete_layer_names(c, 1, &s->released[i].query);
        perfq_gl_error_guard_end(&c->pub);
    }
    atomic_fetch_sub(&perfq_gl_stamp_names_held, s->n_released - s->released_head);
    free(s->released);
    s->released = NULL;
    s->n_released = s->released_head = s->released_cap = 0;
}
