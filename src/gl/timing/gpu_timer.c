/*
 * The trustworthy GPU timer service (gl_layer.h), with two paths:
 *
 * QUERY: the driver's TIME_ELAPSED queries (through the query virtualisation service, so the
 *   program's own TIME_ELAPSED queries keep working) and QueryCounter(TIMESTAMP), where they are
 *   trustworthy; where only the timestamps are (llvmpipe), intervals of two stamp points
 *   (timer_points.c: a flushed QueryCounter each, nothing waited).
 * FENCE: EGL_KHR_fence_sync fences created at begin and end (and for a stamp), each waited by a
 *   helper thread of the context with eglClientWaitSyncKHR and stamped with CLOCK_MONOTONIC when
 *   the wait returns. A fence signals when every command before it has completed, which is the
 *   point ARB_timer_query's timer starts and stops at ("when the effects from all previous
 *   commands ... have been fully realized"). The stamp is late by the helper's wake-up latency:
 *   that latency (measured when the helper starts) is the stated resolution.
 *
 * Files: this one (timer objects, the gl_layer.h timer calls), timer_fence.c (the helper thread
 * and its stamps), timer_path.c (which path a context gets, and the self-check; its comment has
 * the rules), timer_disjoint.c (disjoint tracking), timer_internal.h (what they share).
 */
#include "gl/timing/glx_fence.h"
#include "gl/timing/gpu_timer.h"
#include "gl/timing/timer_internal.h"
#include "gl/virtualization/query_virtualization.h"
#include "perfq/angle_timer_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


uint64_t perfq_gl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- timers ---- */

static struct perfq_gl_timer *timer_new(struct perfq_gl_ctx *c, struct perfq_gl_timer_state *s,
                                        int stamp)
{
    struct perfq_gl_timer *t = s->free_timers;
    if (t) {
        s->free_timers = t->next_free;
        s->n_free_timers--;
        memset(t, 0, sizeof *t);
    } else if (!(t = calloc(1, sizeof *t))) {
        return NULL;
    }
    t->stamp = stamp;
    t->path = s->path;
    t->epoch = s->disjoint_epoch;
    perfq_gl_ctx_count(&c->live_timers, 1);
    return t;
}

/* The checks begin and stamp share, then a new timer of the context's path. */
static perfq_status_t timer_open(struct perfq_gl_ctx *c, int stamp,
                                   struct perfq_gl_timer **out, struct perfq_gl_timer **t)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(c);
    if (!out)
        return PERFQ_EINVAL;
    if (!s)
        return PERFQ_ENOMEM;
    if (s->path == PERFQ_GL_TIMER_NONE)
        return PERFQ_ENOTSUP;
    *t = timer_new(c, s, stamp);
    return *t ? PERFQ_OK : PERFQ_ENOMEM;
}

perfq_status_t perfq_gl_timer_begin(struct perfq_gl_context *pub, struct perfq_gl_timer **out)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    struct perfq_gl_timer *t;
    perfq_status_t st = timer_open(c, 0, out, &t);
    if (st != PERFQ_OK)
        return st;
    struct perfq_gl_timer_state *s = c->timer;   /* made and decided by timer_open */
    if (t->path == PERFQ_GL_TIMER_QUERY) {
        perfq_gl_timer_poll_disjoint(c);
        t->epoch = s->disjoint_epoch;
        if (s->elapsed_by_stamps)
            st = (t->p0 = perfq_gl_point_insert(c)) ? PERFQ_OK : PERFQ_ESYS;
        else
            st = perfq_gl_vquery_begin(pub, GL_TIME_ELAPSED, 0, &t->vq);
    } else {
        t->f0 = perfq_gl_fence_insert(c, 0, NULL);
        if (!t->f0)
            st = PERFQ_ESYS;
    }
    if (st != PERFQ_OK) {
        perfq_gl_timer_free(pub, t);
        return st;
    }
    t->active = 1;
    *out = t;
    return PERFQ_OK;
}

perfq_status_t perfq_gl_timer_restart(struct perfq_gl_context *pub, struct perfq_gl_timer *t)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    /* The query path's intervals only: a fence timer's fences are single-use. */
    if (!t || t->stamp || t->active || !t->ended || t->path != PERFQ_GL_TIMER_QUERY || !t->vq)
        return PERFQ_ESTATE;
    struct perfq_gl_timer_state *s = c->timer;
    perfq_gl_timer_poll_disjoint(c);
    perfq_status_t st = perfq_gl_vquery_restart(pub, t->vq);
    if (st == PERFQ_ESTATE)
        return st;
    /* From here t is a new interval (its old result is gone), begun or failed. */
    t->epoch = s->disjoint_epoch;
    t->disjoint = 0;
    t->have_span = 0;
    t->ended = st != PERFQ_OK;
    t->active = st == PERFQ_OK;
    return st;
}

/* Ends t; on the fence path its end fence is waited by this thread first with wait_here
 * (perfq_gl_fence_insert), *waited_here says whether it was. */
static perfq_status_t timer_end(struct perfq_gl_context *pub, struct perfq_gl_timer *t,
                                int wait_here, int *waited_here)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!t || !t->active)
        return PERFQ_ESTATE;
    t->active = 0;
    t->ended = 1;
    if (t->path == PERFQ_GL_TIMER_QUERY && t->p0)
        return (t->p1 = perfq_gl_point_insert(c)) ? PERFQ_OK : PERFQ_ESYS;
    if (t->path == PERFQ_GL_TIMER_QUERY)
        return perfq_gl_vquery_end(pub, t->vq);
    t->f1 = perfq_gl_fence_insert(c, wait_here, waited_here);
    return t->f1 ? PERFQ_OK : PERFQ_ESYS;
}

perfq_status_t perfq_gl_timer_end(struct perfq_gl_context *pub, struct perfq_gl_timer *t)
{
    return timer_end(pub, t, 0, NULL);
}

/* perfq_gl_timer_end_begin and perfq_gl_timer_end_begin_swap. */
static perfq_status_t end_begin(struct perfq_gl_context *pub, struct perfq_gl_timer *t,
                                struct perfq_gl_timer **next, int at_swap)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!next)
        return PERFQ_EINVAL;
    *next = NULL;
    if (!t || !t->active || t->stamp)
        return PERFQ_ESTATE;
    int wait_here = 0, waited_here = 0;
    struct perfq_gl_timer_state *ts = c->timer;
    uint64_t now = 0;
    if (at_swap && t->path == PERFQ_GL_TIMER_FENCE && ts) {
        /* Who waits this frame's fence: swap_wait_rule.h, on the frames' wall time. */
        now = perfq_gl_now_ns();
        if (ts->swap_wait == 0) {
            struct perfq_gl_swap_wait_rule *r = &ts->swap_rule;
            uint64_t trials = r->trials;
            wait_here = perfq_gl_swap_wait_decide(r, ts->last_swap_ns ? now - ts->last_swap_ns : 0,
                                                  ts->last_swap_inline);
            if (ts->debug && r->trials != trials)
                fprintf(stderr, "perfq-gl: frame %llu: the frames' fences are waited by %s "
                        "(swap_wait_rule.h)\n", (unsigned long long)r->frames,
                        r->keep_inline ? "the program's thread at its swap" : "the helper");
        } else {
            wait_here = ts->swap_wait == 2;
        }
    }
    perfq_status_t st = timer_end(pub, t, wait_here, &waited_here);
    if (now) {
        ts->last_swap_ns = now;
        ts->last_swap_inline = waited_here;
    }
    if (t->path == PERFQ_GL_TIMER_QUERY && t->p0) {
        /* Stamp points: t's end point is the next interval's begin, as a fence below. */
        if (st != PERFQ_OK || !t->p1)
            return st;
        struct perfq_gl_timer *n = timer_new(c, c->timer, 0);
        if (!n)
            return st;
        t->p1->refs++;
        n->p0 = t->p1;
        n->active = 1;
        *next = n;
        return st;
    }
    if (t->path == PERFQ_GL_TIMER_QUERY) {
        if (perfq_gl_timer_begin(pub, next) != PERFQ_OK)
            *next = NULL;
        return st;
    }
    /* The fence path: t's end fence is the next interval's begin (both hold it: it is
     * stamped once, and its sync destroyed when the last of them lets go). Nothing lies
     * between the two points, so the next interval starts where this one stops, as
     * perfq_gl_timer_begin's own fence would (it would be created right after this one, with
     * no command between them: it signals when this one does). */
    if (st != PERFQ_OK || !t->f1)
        return st;
    struct perfq_gl_timer_state *s = c->timer;
    struct perfq_gl_timer *n = timer_new(c, s, 0);
    if (!n)
        return st;
    pthread_mutex_lock(&s->lock);
    t->f1->refs++;
    pthread_mutex_unlock(&s->lock);
    n->f0 = t->f1;
    n->active = 1;
    *next = n;
    return st;
}

perfq_status_t perfq_gl_timer_end_begin(struct perfq_gl_context *pub, struct perfq_gl_timer *t,
                                        struct perfq_gl_timer **next)
{
    return end_begin(pub, t, next, 0);
}

perfq_status_t perfq_gl_timer_end_begin_swap(struct perfq_gl_context *pub,
                                             struct perfq_gl_timer *t,
                                             struct perfq_gl_timer **next)
{
    return end_begin(pub, t, next, 1);
}

perfq_status_t perfq_gl_timer_stamp(struct perfq_gl_context *pub, struct perfq_gl_timer **out)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    struct perfq_gl_timer *t;
    perfq_status_t st = timer_open(c, 1, out, &t);
    if (st != PERFQ_OK)
        return st;
    t->ended = 1;
    if (t->path == PERFQ_GL_TIMER_QUERY && c->timer->elapsed_by_stamps) {
        /* A stamp point (timer_points.c): flushed, its name reused only when safe. */
        if (!(t->p1 = perfq_gl_point_insert(c))) {
            perfq_gl_timer_free(pub, t);
            return PERFQ_ESYS;
        }
    } else if (t->path == PERFQ_GL_TIMER_QUERY) {
        struct perfq_gl_vq_state *vq = perfq_gl_vq(c);
        perfq_gl_error_guard_begin(pub);
        t->query = perfq_gl_vq_gen_layer_name(c);
        vq->fn.counter(t->query, GL_TIMESTAMP);
        GLenum err = perfq_gl_error_guard_end(pub);
        if (err != GL_NO_ERROR) {
            perfq_gl_timer_free(pub, t);
            return PERFQ_ESYS;
        }
    } else {
        t->f1 = perfq_gl_fence_insert(c, 0, NULL);
        if (!t->f1) {
            perfq_gl_timer_free(pub, t);
            return PERFQ_ESYS;
        }
    }
    *out = t;
    return PERFQ_OK;
}

/* A fence path stamp failed: the interval has no time. Say so to the program too
 * (GL_GPU_DISJOINT_EXT for GL_ANGLE_timer_query), as for a late stamp. */
static void mark_failed(struct perfq_gl_timer_state *s, struct perfq_gl_timer *t)
{
    if (!t->disjoint)
        s->disjoint_for_program = 1;
    t->disjoint = 1;
}

perfq_status_t perfq_gl_timer_result(struct perfq_gl_context *pub, struct perfq_gl_timer *t,
                                     int wait, uint64_t *ns)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!t || !ns)
        return PERFQ_EINVAL;
    if (t->active || !t->ended)
        return PERFQ_ESTATE;
    struct perfq_gl_timer_state *s = c->timer;
    if (t->path == PERFQ_GL_TIMER_QUERY) {
        perfq_status_t st;
        uint64_t v = 0;
        if (t->stamp && t->p1) {
            st = perfq_gl_point_result(c, t->p1, wait, &v);
        } else if (t->stamp) {
            st = PERFQ_OK;
            if (!t->query_done) {
                GLuint64 avail = 1;
                perfq_gl_error_guard_begin(pub);
                if (!wait)
                    perfq_gl_read_query(c, t->query, GL_QUERY_RESULT_AVAILABLE, &avail);
                if (avail) {
                    perfq_gl_read_query(c, t->query, GL_QUERY_RESULT, &t->query_value);
                    t->query_done = 1;
                }
                perfq_gl_error_guard_end(pub);
                if (!avail)
                    st = PERFQ_NOT_READY;
            }
            v = t->query_value;
        } else if (t->p0) {
            /* The begin point first: it completes first. */
            uint64_t v0 = 0, v1 = 0;
            st = t->p1 ? perfq_gl_point_result(c, t->p0, wait, &v0) : PERFQ_ESYS;
            if (st == PERFQ_OK)
                st = perfq_gl_point_result(c, t->p1, wait, &v1);
            v = v1 > v0 ? v1 - v0 : 0;
            t->have_span = st == PERFQ_OK;
            t->span0 = v0;
            t->span1 = v1;
        } else {
            st = perfq_gl_vquery_result(pub, t->vq, wait, &v);
        }
        if (st == PERFQ_OK) {
            perfq_gl_timer_poll_disjoint(c);
            t->disjoint = s->disjoint_epoch != t->epoch;
            *ns = v;
        }
        return st;
    }
    uint64_t t0 = 0, t1 = 0;
    perfq_status_t st;
    int late = 0;
    if (!t->f1 || (!t->stamp && !t->f0)) {
        /* A fence that could not be made (perfq_gl_timer_end said PERFQ_ESYS): no time. */
        mark_failed(s, t);
        return PERFQ_ESYS;
    }
    if (!t->stamp) {
        /* The begin fence first: it signals first, and a waiter stamps when its wait returns. */
        st = perfq_gl_fence_result(s, t->f0, wait, &t0, &late);
        if (st != PERFQ_OK) {
            if (st == PERFQ_ESYS)
                mark_failed(s, t);
            return st;
        }
    }
    st = perfq_gl_fence_result(s, t->f1, wait, &t1, &late);
    if (st != PERFQ_OK) {
        if (st == PERFQ_ESYS)
            mark_failed(s, t);
        return st;
    }
    if (late) {
        /* A stamp is not the time the GPU reached its fence: say so (INTEL "GPU Time Disjoint",
         * GL_GPU_DISJOINT_EXT for GL_ANGLE_timer_query) rather than pass a wrong time as right. */
        if (!t->disjoint)
            s->disjoint_for_program = 1;
        t->disjoint = 1;
    }
    *ns = t->stamp ? t1 : (t1 > t0 ? t1 - t0 : 0);
    t->have_span = !t->stamp;
    t->span0 = t0;
    t->span1 = t1;
    return PERFQ_OK;
}

perfq_status_t perfq_gl_timer_span(const struct perfq_gl_timer *t, uint64_t *begin,
                                   uint64_t *end)
{
    if (!t || !begin || !end)
        return PERFQ_EINVAL;
    if (t->stamp || (t->path == PERFQ_GL_TIMER_QUERY && !t->p0))
        return PERFQ_ENOTSUP;
    if (!t->have_span)
        return PERFQ_ESTATE;
    *begin = t->span0;
    *end = t->span1;
    return PERFQ_OK;
}

void perfq_gl_timer_free(struct perfq_gl_context *pub, struct perfq_gl_timer *t)
{
    if (!t)
        return;
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    int gl_usable = !c->finalized && perfq_gl_tls_current == c;
    if (t->active && gl_usable)
        perfq_gl_timer_end(pub, t);
    if (t->vq)
        perfq_gl_vquery_free(pub, t->vq);
    perfq_gl_point_release(c, t->p0, gl_usable);
    perfq_gl_point_release(c, t->p1, gl_usable);
    if (t->query && gl_usable) {
        perfq_gl_error_guard_begin(pub);
        perfq_gl_vq_delete_layer_names(c, 1, &t->query);
        perfq_gl_error_guard_end(pub);
    }
    struct perfq_gl_timer_state *s = c->timer;
    if (s && (t->f0 || t->f1)) {
        pthread_mutex_lock(&s->lock);
        if (t->f0)
            perfq_gl_fence_release(s, t->f0, gl_usable);
        if (t->f1)
            perfq_gl_fence_release(s, t->f1, gl_usable);
        pthread_mutex_unlock(&s->lock);
    }
    perfq_gl_ctx_count(&c->live_timers, -1);
    if (s && !c->finalized && s->n_free_timers < PERFQ_GL_TIMER_FREE_MAX) {
        t->next_free = s->free_timers;
        s->free_timers = t;
        s->n_free_timers++;
        return;
    }
    free(t);
}

__attribute__((constructor)) static void timer_register_context_services(void)
{
    perfq_gl_context_services.timer_free_context = perfq_gl_timer_free_context;
}

void perfq_gl_timer_free_context(struct perfq_gl_ctx *c, int gl_usable)
{
    struct perfq_gl_timer_state *s = c->timer;
    if (!s)
        return;
    perfq_gl_points_free_names(c, gl_usable);
    perfq_gl_fence_helper_stop(s);
    perfq_gl_glx_waiter_destroy(s->glx, c->pub.gl);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    while (s->free_timers) {
        struct perfq_gl_timer *t = s->free_timers;
        s->free_timers = t->next_free;
        free(t);
    }
    free(s);
    c->timer = NULL;
}

void perfq_gl_timer_stats(struct perfq_gl_layer_stats *out)
{
    out->fences_pending = atomic_load(&perfq_gl_fences_pending);
    out->timer_self_checks = atomic_load(&perfq_gl_timer_self_checks);
    out->thread_schedstat_fds = atomic_load(&perfq_gl_thread_schedstat_fds);
    out->stamp_names_held = atomic_load(&perfq_gl_stamp_names_held);
}
