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
 */
#include "gl/timing/timer_internal.h"
#include "gl/virtualization/query_virtualization.h"

#include <stdlib.h>

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
    if (s->n_free_points)
        p->query = s->free_points[--s->n_free_points];
    else
        vq->fn.gen(1, &p->query);
    vq->fn.counter(p->query, GL_TIMESTAMP);
    c->pub.gl->glFlush();
    GLenum err = perfq_gl_error_guard_end(&c->pub);
    if (err != GL_NO_ERROR || !p->query) {
        if (p->query) {
            perfq_gl_error_guard_begin(&c->pub);
            vq->fn.del(1, &p->query);
            perfq_gl_error_guard_end(&c->pub);
        }
        free(p);
        return NULL;
    }
    p->refs = 1;
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
    }
    *ns = p->value;
    return PERFQ_OK;
}

void perfq_gl_point_release(struct perfq_gl_ctx *c, struct perfq_gl_point *p, int gl_usable)
{
    if (!p || --p->refs > 0)
        return;
    struct perfq_gl_timer_state *s = c->timer;
    /* A name whose counter is done is kept for the next point (no delete and gen a frame); one
     * still pending is deleted (reusing it would make the driver wait for it). Where GL cannot
     * be called (another thread, the context gone) the name is left to the context. */
    if (gl_usable && p->query) {
        if (p->done && s && s->n_free_points < PERFQ_GL_FREE_POINTS_MAX) {
            s->free_points[s->n_free_points++] = p->query;
        } else {
            perfq_gl_error_guard_begin(&c->pub);
            perfq_gl_vq(c)->fn.del(1, &p->query);
            perfq_gl_error_guard_end(&c->pub);
        }
    }
    free(p);
}

void perfq_gl_points_free_names(struct perfq_gl_ctx *c, int gl_usable)
{
    struct perfq_gl_timer_state *s = c->timer;
    if (s && gl_usable && s->n_free_points) {
        perfq_gl_error_guard_begin(&c->pub);
        perfq_gl_vq(c)->fn.del(s->n_free_points, s->free_points);
        perfq_gl_error_guard_end(&c->pub);
    }
    if (s)
        s->n_free_points = 0;
}
