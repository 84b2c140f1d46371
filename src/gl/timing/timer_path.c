/*
 * Which GPU timer path a context gets (gpu_timer.c, docs/gl-layer.md): PERFQ_GL_TIMER=
 * query|stamps|fence forces one; else a quirk table keyed on GL_RENDERER names drivers whose
 * TIME_ELAPSED was measured wrong (llvmpipe, softpipe; PERFQ_GL_TIMER_QUIRKS=0 leaves it out, to
 * see what the self-check alone decides): those get the QUERY path with intervals from stamp
 * points (timer_points.c) where their GL_TIMESTAMP counters pass the stamp check, else the
 * FENCE path; else a driver with timer queries of at least 30 bits gets a self-check (two empty
 * TIME_ELAPSED queries must not exceed the CPU interval around them and a glFinish) and the
 * QUERY path if it passes (the verdict is kept per driver between runs:
 * timer_verdict_cache.c); every other EGL context with EGL_KHR_fence_sync gets the FENCE path;
 * else NONE.
 */
#include "gl/timing/glx_fence.h"
#include "gl/timing/timer_internal.h"
#include "gl/virtualization/query_virtualization.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- choosing the path ---- */

struct quirk {
    const char *renderer_prefix;
    const char *reason;
};

/* Drivers whose timer queries were measured wrong. */
static const struct quirk timer_quirks[] = {
    {"llvmpipe", "llvmpipe timer queries are wrong (Mesa 22.3.6: first TIME_ELAPSED ~1.48e12 ns; "
                 "387 ms of GPU-bound work reported as 66-87 ms)"},
    {"softpipe", "softpipe shares llvmpipe's timer query implementation"},
};

static int egl_fences(struct perfq_gl_ctx *c)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    if (c->pub.window_system != PERFQ_GL_WS_EGL || !gl->eglCreateSyncKHR ||
        !gl->eglClientWaitSyncKHR || !gl->eglDestroySyncKHR || !gl->eglQueryString)
        return 0;
    perfq_gl_egl_own_call();    /* inside a GL call: keep the program's EGL error */
    const char *ext = gl->eglQueryString(c->pub.display, EGL_EXTENSIONS);
    if (!ext)
        return 0;
    size_t n = strlen("EGL_KHR_fence_sync");
    for (const char *p = strstr(ext, "EGL_KHR_fence_sync"); p; p = strstr(p + 1, "EGL_KHR_fence_sync"))
        if ((p == ext || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static int query_bits(struct perfq_gl_ctx *c, GLenum target)
{
    struct perfq_gl_vq_state *vq = perfq_gl_vq(c);
    if (!vq || !vq->fn.get_iv)
        return 0;
    GLint bits = 0;
    perfq_gl_error_guard_begin(&c->pub);
    vq->fn.get_iv(target, GL_QUERY_COUNTER_BITS, &bits);
    if (perfq_gl_error_guard_end(&c->pub) != GL_NO_ERROR)
        bits = 0;
    return bits;
}

/* One TIME_ELAPSED query around `clears` clears of the layer's own 1024x1024 RGBA8
 * framebuffer, bracketed by the CPU clock (before begin, after a glFinish). The program's state
 * that this touches is saved and restored: framebuffer and renderbuffer bindings, clear color,
 * color mask, scissor test, rasterizer discard. 0 if it could not run. */
static int timed_clears(struct perfq_gl_ctx *c, int clears, uint64_t *gpu, uint64_t *cpu)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    GLint draw_fb = 0, read_fb = 0, rb = 0;
    GLfloat color[4];
    GLboolean mask[4];
    gl->glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fb);
    gl->glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
    gl->glGetIntegerv(GL_RENDERBUFFER_BINDING, &rb);
    gl->glGetFloatv(GL_COLOR_CLEAR_VALUE, color);
    gl->glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    GLboolean scissor = gl->glIsEnabled(GL_SCISSOR_TEST);
    GLboolean discard = gl->glIsEnabled(GL_RASTERIZER_DISCARD);
    GLuint fb = 0, buf = 0;
    gl->glGenRenderbuffers(1, &buf);
    gl->glBindRenderbuffer(GL_RENDERBUFFER, buf);
    gl->glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1024, 1024);
    gl->glGenFramebuffers(1, &fb);
    gl->glBindFramebuffer(GL_FRAMEBUFFER, fb);
    gl->glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, buf);
    gl->glDisable(GL_SCISSOR_TEST);
    gl->glDisable(GL_RASTERIZER_DISCARD);
    gl->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    int ok = 0;
    struct perfq_gl_vquery *q = NULL;
    gl->glFinish();
    uint64_t t0 = perfq_gl_now_ns();
    if (perfq_gl_vquery_begin(&c->pub, GL_TIME_ELAPSED, 0, &q) == PERFQ_OK) {
        for (int i = 0; i < clears; i++) {
            gl->glClearColor((float)(i & 1), 0.5f, (float)(i % 3) / 2.0f, 1.0f);
            gl->glClear(GL_COLOR_BUFFER_BIT);
        }
        perfq_gl_vquery_end(&c->pub, q);
        gl->glFinish();
        *cpu = perfq_gl_now_ns() - t0;
        ok = perfq_gl_vquery_result(&c->pub, q, 1, gpu) == PERFQ_OK;
        perfq_gl_vquery_free(&c->pub, q);
    }
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_fb);
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
    gl->glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)rb);
    gl->glDeleteFramebuffers(1, &fb);
    gl->glDeleteRenderbuffers(1, &buf);
    gl->glClearColor(color[0], color[1], color[2], color[3]);
    gl->glColorMask(mask[0], mask[1], mask[2], mask[3]);
    if (scissor)
        gl->glEnable(GL_SCISSOR_TEST);
    if (discard)
        gl->glEnable(GL_RASTERIZER_DISCARD);
    return ok;
}

/*
 * The self-check, against CPU intervals bounded by glFinish:
 * 1. two empty TIME_ELAPSED queries must not exceed the CPU interval around them (+1 ms);
 * 2. (GL 3 / GLES 3) a query around clears of a 1024x1024 framebuffer must not exceed the CPU
 *    interval either: llvmpipe's first query with rasterisation in it reads its raw
 *    CLOCK_MONOTONIC time (~2e12 ns after 30 minutes of uptime).
 * No lower bound: on a hardware GPU the CPU interval around a few clears is mostly the driver's
 * own CPU time (allocation, first use), so "too small" cannot be told from "right" here; drivers
 * that under-report GPU-bound work are the quirk table's business (NVIDIA's first clears took
 * 5+ ms of CPU for microseconds of GPU work: a lower bound sent it to the fence path).
 */
atomic_ullong perfq_gl_timer_self_checks;

static int self_check(struct perfq_gl_ctx *c)
{
    atomic_fetch_add(&perfq_gl_timer_self_checks, 1);
    perfq_gl_error_guard_begin(&c->pub);
    int ok = 1;
    for (int i = 0; i < 2 && ok; i++) {
        struct perfq_gl_vquery *q = NULL;
        uint64_t t0 = perfq_gl_now_ns();
        if (perfq_gl_vquery_begin(&c->pub, GL_TIME_ELAPSED, 0, &q) != PERFQ_OK) {
            ok = 0;
            break;
        }
        perfq_gl_vquery_end(&c->pub, q);
        c->pub.gl->glFinish();
        uint64_t cpu = perfq_gl_now_ns() - t0;
        uint64_t gpu = 0;
        perfq_status_t st = perfq_gl_vquery_result(&c->pub, q, 1, &gpu);
        perfq_gl_vquery_free(&c->pub, q);
        if (st != PERFQ_OK || gpu > cpu + 1000000u)
            ok = 0;
    }
    if (ok && perfq_gl_version_at_least(&c->pub, 3, 0)) {
        for (int i = 0; i < 2 && ok; i++) {
            uint64_t gpu = 0, cpu = 0;
            if (!timed_clears(c, 16, &gpu, &cpu))
                break;      /* could not run: the empty-query checks stand */
            if (getenv("PERFQ_GL_DEBUG"))
                fprintf(stderr, "perfq-gl: self-check: 16 clears: timer %llu ns, CPU %llu ns\n",
                        (unsigned long long)gpu, (unsigned long long)cpu);
            if (gpu > cpu + 1000000u)
                ok = 0;
        }
    }
    perfq_gl_error_guard_end(&c->pub);
    return ok;
}

/* The stamp check, for a driver whose TIME_ELAPSED is in the quirk table (llvmpipe): two stamp
 * points (timer_points.c), each followed by a glFinish, must read, on the CPU clock (offset
 * from glGetInteger64v(GL_TIMESTAMP) against CLOCK_MONOTONIC around it), between the CPU time
 * before the point and the CPU time after the glFinish, within 1 ms, and in order. It touches
 * no program state (no draw, no binding). Two, not more: each costs a glFinish at the context's
 * first use (0.2-0.7 ms on llvmpipe here). */
static int stamp_check(struct perfq_gl_ctx *c)
{
    void (*get64)(GLenum, GLint64 *) = c->pub.gl->glGetInteger64v ? c->pub.gl->glGetInteger64v
                                                                   : c->pub.gl->glGetInteger64vEXT;
    if (!get64)
        return 0;
    GLint64 gpu = 0;
    perfq_gl_error_guard_begin(&c->pub);
    uint64_t a = perfq_gl_now_ns();
    get64(GL_TIMESTAMP, &gpu);
    uint64_t b = perfq_gl_now_ns();
    if (perfq_gl_error_guard_end(&c->pub) != GL_NO_ERROR || gpu <= 0)
        return 0;
    int64_t offset = (int64_t)(a / 2 + b / 2) - (int64_t)gpu;
    uint64_t tol = (b - a) / 2 + 1000000u, prev = 0;
    int ok = 1;
    for (int i = 0; i < 2 && ok; i++) {
        uint64_t t0 = perfq_gl_now_ns();
        struct perfq_gl_point *p = perfq_gl_point_insert(c);
        if (!p)
            return 0;
        perfq_gl_error_guard_begin(&c->pub);
        c->pub.gl->glFinish();
        perfq_gl_error_guard_end(&c->pub);
        uint64_t t1 = perfq_gl_now_ns(), v = 0;
        ok = perfq_gl_point_result(c, p, 1, &v) == PERFQ_OK;
        perfq_gl_point_release(c, p, 1);
        int64_t cpu = (int64_t)v + offset;
        ok = ok && v >= prev && cpu + (int64_t)tol >= (int64_t)t0 &&
             cpu <= (int64_t)(t1 + tol);
        if (getenv("PERFQ_GL_DEBUG"))
            fprintf(stderr, "perfq-gl: stamp check: point %d at %+lld ns of the CPU time before "
                    "it, the glFinish after it returned at %llu ns: %s\n", i,
                    (long long)(cpu - (int64_t)t0), (unsigned long long)(t1 - t0),
                    ok ? "in" : "out");
        prev = v;
    }
    return ok;
}

/* Keeps a self-check's verdict for the next runs on this driver; returns it. */
static int stored(struct perfq_gl_ctx *c, int pass)
{
    perfq_gl_timer_verdict_store(c, pass);
    return pass;
}

struct perfq_gl_timer_state *perfq_gl_timer_state_make(struct perfq_gl_ctx *c)
{
    if (!c->timer) {
        struct perfq_gl_timer_state *s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->work, NULL);
        pthread_cond_init(&s->done, NULL);
        c->timer = s;
    }
    struct perfq_gl_timer_state *s = c->timer;
    if (s->decided)
        return s;
    s->decided = 1;
    s->dpy = c->pub.display;
    s->display_gone = &c->display_terminated;
    s->driver_flushes_fences = strstr(c->pub.version, "Mesa") != NULL;
    s->has_disjoint = perfq_gl_has_driver_extension(&c->pub, "GL_EXT_disjoint_timer_query");
    int timer_queries = perfq_gl_vquery_target_supported(&c->pub, GL_TIME_ELAPSED) &&
                        perfq_gl_vq(c) && perfq_gl_vq(c)->fn.counter;
    int bits = timer_queries ? query_bits(c, GL_TIME_ELAPSED) : 0;
    int fences = egl_fences(c) || perfq_gl_glx_fences_possible(c);
    int verdict = -1;   /* the self-check's, from the cache: 1 passed, 0 failed, -1 not kept */
    const char *force = getenv("PERFQ_GL_TIMER");
    const char *quirk = NULL;
    const char *use_quirks = getenv("PERFQ_GL_TIMER_QUIRKS");   /* "0": self-check alone */
    for (size_t i = 0; i < sizeof timer_quirks / sizeof timer_quirks[0] &&
                       !(use_quirks && strcmp(use_quirks, "0") == 0); i++)
        if (strncmp(c->pub.renderer, timer_quirks[i].renderer_prefix,
                    strlen(timer_quirks[i].renderer_prefix)) == 0)
            quirk = timer_quirks[i].reason;

    /* Stamp points are asked of quirk-table drivers only, or when forced. */
    int stamps = (quirk || force) && timer_queries && query_bits(c, GL_TIMESTAMP) >= 30;
    if (force && strcmp(force, "stamps") == 0 && stamps) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->elapsed_by_stamps = 1;
        s->reason = "PERFQ_GL_TIMER=stamps";
    } else if (force && strcmp(force, "query") == 0 && timer_queries) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->reason = "PERFQ_GL_TIMER=query";
    } else if (force && strcmp(force, "fence") == 0 && fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = "PERFQ_GL_TIMER=fence";
    } else if (quirk && stamps && stamp_check(c)) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->elapsed_by_stamps = 1;
        s->reason = "TIME_ELAPSED in the quirk table; GL_TIMESTAMP stamps passed the stamp "
                    "check: intervals from stamp points (timer_points.c)";
    } else if (quirk && fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = quirk;
    } else if (timer_queries && bits >= 30 && !quirk &&
               (verdict = perfq_gl_timer_verdict_cached(c)) != 0 &&
               (verdict == 1 || stored(c, self_check(c)))) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->reason = verdict == 1 ? "driver timer queries passed the self-check (the verdict "
                                   "kept for this driver, timer_verdict_cache.c)"
                                 : "driver timer queries passed the self-check";
    } else if (fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = !timer_queries ? "no timer queries in this context"
                    : verdict == 0 ? "driver timer queries failed the self-check (the verdict "
                                     "kept for this driver, timer_verdict_cache.c)"
                                   : "driver timer queries failed the self-check";
    } else {
        s->path = PERFQ_GL_TIMER_NONE;
        s->reason = "no trustworthy timer queries and no fences (EGL_KHR_fence_sync; GLX: GL_ARB_sync, GL 3.2 or GLES 3.0)";
    }
    if (s->path == PERFQ_GL_TIMER_FENCE && c->pub.window_system == PERFQ_GL_WS_GLX) {
        s->glx = perfq_gl_glx_waiter_create(c);
        if (!s->glx) {
            s->path = PERFQ_GL_TIMER_NONE;
            s->reason = "GLX: no context sharing the program's could be made for the fence waiter";
        }
    }
    if (s->path == PERFQ_GL_TIMER_QUERY) {
        s->bits_elapsed = bits;
        s->bits_stamp = query_bits(c, GL_TIMESTAMP);
        s->resolution_ns = 1;
    } else if (s->path == PERFQ_GL_TIMER_FENCE) {
        s->bits_elapsed = s->bits_stamp = 64;
        /* The resolution (the wake-up latency of a thread) is measured when first asked:
         * perfq_gl_timer_resolution_ns. */
        s->resolution_ns = 0;
        /* Who waits the frames' fences (swap_wait_rule.h): measured unless forced. */
        const char *who = getenv("PERFQ_GL_FENCE_SWAP_WAIT");
        s->swap_wait = who && strcmp(who, "helper") == 0   ? 1
                       : who && strcmp(who, "inline") == 0 ? 2
                                                           : 0;
        perfq_gl_swap_wait_rule_init(&s->swap_rule);
        s->debug = getenv("PERFQ_GL_DEBUG") != NULL;
    }
    if (getenv("PERFQ_GL_DEBUG"))
        fprintf(stderr, "perfq-gl: %s: timer path %s (%s), resolution %llu ns\n",
                c->pub.renderer, s->elapsed_by_stamps ? "query (intervals from stamp points)" :
                s->path == PERFQ_GL_TIMER_QUERY ? "query" :
                s->path == PERFQ_GL_TIMER_FENCE ? "fence" : "none", s->reason,
                (unsigned long long)perfq_gl_timer_resolution_ns(&c->pub));
    return s;
}

perfq_gl_timer_path_t perfq_gl_timer_path(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(perfq_gl_ctx(pub));
    return s ? s->path : PERFQ_GL_TIMER_NONE;
}

int perfq_gl_timer_has_span(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(perfq_gl_ctx(pub));
    return s && (s->path == PERFQ_GL_TIMER_FENCE ||
                 (s->path == PERFQ_GL_TIMER_QUERY && s->elapsed_by_stamps));
}

const char *perfq_gl_timer_reason(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(perfq_gl_ctx(pub));
    return s ? s->reason : "out of memory";
}

/* On the fence path the resolution is the wake-up latency of a thread, measured at the first
 * question (64 ping-pongs between two threads): 1.1 ms of the program's time on this 2-core
 * machine when quiet, 11-25 ms beside a build, at every context's first make-current before
 * 2026-11-27, for a number only `perfq record`'s timeline and the tests ask for. */
uint64_t perfq_gl_timer_resolution_ns(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(perfq_gl_ctx(pub));
    if (!s)
        return 0;
    if (s->path == PERFQ_GL_TIMER_FENCE && s->resolution_ns == 0)
        s->resolution_ns = perfq_gl_fence_wake_latency();
    return s->resolution_ns;
}

int perfq_gl_timer_bits(struct perfq_gl_context *pub, int timestamp)
{
    struct perfq_gl_timer_state *s = perfq_gl_timer_state_of(perfq_gl_ctx(pub));
    if (!s)
        return 0;
    return timestamp ? s->bits_stamp : s->bits_elapsed;
}
