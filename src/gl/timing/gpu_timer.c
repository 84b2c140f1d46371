/*
 * The trustworthy GPU timer service (gl_layer.h), with two paths:
 *
 * QUERY: the driver's TIME_ELAPSED queries (through the query virtualisation service, so the
 *   program's own TIME_ELAPSED queries keep working) and QueryCounter(TIMESTAMP), where they are
 *   trustworthy.
 * FENCE: EGL_KHR_fence_sync fences created at begin and end (and for a stamp), each waited by a
 *   helper thread of the context with eglClientWaitSyncKHR and stamped with CLOCK_MONOTONIC when
 *   the wait returns. A fence signals when every command before it has completed, which is the
 *   point ARB_timer_query's timer starts and stops at ("when the effects from all previous
 *   commands ... have been fully realized"). The stamp is late by the helper's wake-up latency:
 *   that latency (measured when the helper starts) is the stated resolution.
 *
 * Which path a context gets (docs/gl-layer.md): PERFQ_GL_TIMER=query|fence forces one; else a
 * quirk table keyed on GL_RENDERER names drivers measured wrong (llvmpipe, softpipe;
 * PERFQ_GL_TIMER_QUIRKS=0 leaves it out, to see what the self-check alone decides); else a
 * driver with timer queries of at least 30 bits gets a self-check (two empty TIME_ELAPSED
 * queries must not exceed the CPU interval around them and a glFinish) and the QUERY path if it
 * passes; every other EGL context with EGL_KHR_fence_sync gets the FENCE path; else NONE.
 */
#include "gl/contexts/layer_internal.h"
#include "gl/timing/glx_fence.h"
#include "gl/virtualization/query_virtualization.h"
#include "perfq/angle_timer_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_ullong live_timers, fences_pending;

uint64_t perfq_gl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A stamp is the time a waiter saw the fence signalled. It is the time the GPU reached the
 * fence (within the wake-up latency) when the wait blocked, that is when the fence was seen
 * unsignalled just before; a fence found already signalled only tells that it signalled between
 * a lower bound (its creation, the previous fence's signal, a waiter's earlier look) and now.
 * If that window is wider than this, the stamp is "late": the interval is reported disjoint
 * rather than as a number that may be far too small (issue 14 item 1: a helper behind a backlog
 * stamped a begin fence 100 ms late, and a 100 ms interval read 0.004 ms). 4 ms is one scheduler
 * time slice (250 Hz): a blocked waiter on a loaded machine can be woken that late too, unseen,
 * so a narrower bound would flag only the visible half of the same error (docs/gl-layer.md). */
#define PERFQ_GL_FENCE_STAMP_WINDOW_NS 4000000ull

struct fence_stamp {
    void *sync;             /* an EGLSyncKHR, or a GLsync on the GLX fence path */
    int done;               /* stamped; under the state's lock (as every field below) */
    int failed;
    int late;               /* the stamp may be later than the signal by more than the window */
    uint64_t ns;
    uint64_t created_ns;    /* before the sync was created: it cannot have signalled earlier */
    uint64_t unsignaled_ns; /* the latest time a waiter saw it unsignalled (0: never) */
    int refs;               /* the timer and the helper thread */
    int waiters;            /* threads inside eglClientWaitSyncKHR on it */
    int passed;             /* the helper has taken it off its queue */
    int destroyed;          /* the sync was destroyed */
    struct fence_stamp *next, *prev;    /* in the helper's queue */
};

struct perfq_gl_timer_state {
    int decided;
    perfq_gl_timer_path_t path;
    const char *reason;
    uint64_t resolution_ns;
    int bits_elapsed, bits_stamp;
    unsigned disjoint_epoch;            /* times GPU_DISJOINT was seen set */
    int disjoint_for_program;           /* seen by the layer, not yet by the program */
    /* fence path */
    EGLDisplay dpy;
    pthread_mutex_t lock;               /* protects the queue and fence_stamp.done/refs */
    pthread_cond_t work, done;
    struct fence_stamp *head, *tail;
    uint64_t signaled_lo;               /* the last stamped fence signalled after this time: a
                                         * later fence (same context, in order) did too */
    int stop, started;
    int ready;                          /* the helper runs (start_helper waits for it) */
    int driver_flushes_fences;          /* Mesa: eglCreateSyncKHR flushes */
    int has_disjoint;                   /* the driver has EXT_disjoint_timer_query */
    struct perfq_gl_glx_waiter *glx;    /* GLX: GL_ARB_sync fences, waited in a shared context */
    int bind_failed;                    /* GLX: the helper could not make its context current */
    pthread_t thread;
};

struct perfq_gl_timer {
    int stamp;                          /* a QueryCounter-style point, not an interval */
    int active, ended;
    perfq_gl_timer_path_t path;
    struct perfq_gl_vquery *vq;         /* query path, interval */
    GLuint query;                       /* query path, stamp */
    int query_done;
    GLuint64 query_value;
    struct fence_stamp *f0, *f1;        /* fence path */
    unsigned epoch;
    int disjoint;
};

/* ---- the helper thread ---- */

static void fence_unref(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    (void)s;
    if (--f->refs == 0)
        free(f);
}

static void queue_unlink(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else
        s->head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        s->tail = f->prev;
    f->next = f->prev = NULL;
}

/* Destroys the sync once nobody waits on it and the helper has passed it (under the lock). */
static void fence_maybe_destroy(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    if (f->waiters == 0 && f->passed && !f->destroyed) {
        if (s->glx)
            perfq_gl_dispatch()->glDeleteSync((GLsync)f->sync);
        else
            perfq_gl_dispatch()->eglDestroySyncKHR(s->dpy, f->sync);
        f->destroyed = 1;
    }
}

/* The timer lets go of f (under the lock). When nobody else wants its stamp (only the helper's
 * reference is left, no waiter) and GL may be called here, the fence is taken off the helper's
 * queue and its sync destroyed now: dropped queries' fences cost the helper nothing, and the
 * driver's sync objects do not pile up (Mesa looks a sync up in a list of the display's live
 * ones, so a pile makes every wait slower). */
static void fence_release(struct perfq_gl_timer_state *s, struct fence_stamp *f, int gl_usable)
{
    if (f->refs == 2 && !f->passed && f->waiters == 0 && gl_usable) {
        queue_unlink(s, f);
        f->passed = 1;
        if (!f->done) {
            f->done = f->failed = 1;
            atomic_fetch_sub(&fences_pending, 1);
        }
        fence_maybe_destroy(s, f);
        f->refs--;      /* the helper's */
    }
    fence_unref(s, f);
}

/* One wait on f's sync with timeout_ns: 1 signalled, 0 timed out, -1 failed. */
static int fence_client_wait(struct perfq_gl_timer_state *s, struct fence_stamp *f,
                             uint64_t timeout_ns)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (s->glx) {
        /* GL_ARB_sync: the waiting thread has a context sharing the sync (the helper's own,
         * or the program's when the caller waits). */
        if (s->bind_failed && pthread_equal(pthread_self(), s->thread))
            return -1;
        GLenum g = gl->glClientWaitSync((GLsync)f->sync, 0, timeout_ns);
        if (g == GL_TIMEOUT_EXPIRED)
            return 0;
        return g == GL_ALREADY_SIGNALED || g == GL_CONDITION_SATISFIED ? 1 : -1;
    }
    EGLint r = gl->eglClientWaitSyncKHR(s->dpy, f->sync, 0, timeout_ns);
    if (r == EGL_TIMEOUT_EXPIRED_KHR)
        return 0;
    return r == EGL_CONDITION_SATISFIED_KHR ? 1 : -1;
}

/* Waits on f's sync from the calling thread (no lock held) and stamps it if nobody did yet.
 * Called with the lock held; returns with it held. */
static void fence_wait_and_stamp(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    f->waiters++;
    pthread_mutex_unlock(&s->lock);
    /* First a look without waiting: a fence seen unsignalled and then waited is stamped when it
     * signals (the wait returns then); one found signalled already is only known to have
     * signalled since the last look at it (see PERFQ_GL_FENCE_STAMP_WINDOW_NS). Then waits in
     * 100 ms slices, so that a helper told to stop cannot hang on a fence that will never
     * signal (it gives up 2 s after the stop, and the stamp is marked failed). */
    uint64_t before = perfq_gl_now_ns();
    int r = fence_client_wait(s, f, 0);
    uint64_t unsignaled = 0;        /* this thread saw it unsignalled then */
    uint64_t stop_seen = 0;
    while (r == 0) {
        unsignaled = before;
        __atomic_store_n(&f->unsignaled_ns, before, __ATOMIC_RELAXED);
        if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
            uint64_t now = perfq_gl_now_ns();
            if (!stop_seen)
                stop_seen = now;
            else if (now - stop_seen > 2000000000ull)
                break;
        }
        before = perfq_gl_now_ns();
        r = fence_client_wait(s, f, 100000000ull);
    }
    uint64_t t = perfq_gl_now_ns();
    pthread_mutex_lock(&s->lock);
    f->waiters--;
    if (!f->done) {
        f->ns = t;
        f->failed = r != 1;
        /* It signalled after lo; if this wait did not block, the stamp is only an upper bound. */
        uint64_t lo = f->created_ns;
        if (s->signaled_lo > lo)
            lo = s->signaled_lo;
        uint64_t seen = __atomic_load_n(&f->unsignaled_ns, __ATOMIC_RELAXED);
        if (seen > lo)
            lo = seen;
        f->late = !unsignaled && t - lo > PERFQ_GL_FENCE_STAMP_WINDOW_NS;
        /* A blocked wait's stamp is taken as the signal (to the wake-up latency): the next
         * fence signalled after it. */
        if (unsignaled)
            lo = t;
        if (!f->failed && lo > s->signaled_lo)
            s->signaled_lo = lo;
        f->done = 1;
        atomic_fetch_sub(&fences_pending, 1);
        pthread_cond_broadcast(&s->done);
    }
}

/* The helper: waits the context's fences in order and stamps each when its wait returns. A
 * thread that asks for a result with wait also waits the fence itself (perfq_gl_timer_result),
 * so whoever wakes first stamps it. */
static void *helper_main(void *arg)
{
    struct perfq_gl_timer_state *s = arg;
    if (s->glx && perfq_gl_glx_waiter_bind(s->glx, perfq_gl_dispatch()) != 0)
        s->bind_failed = 1;     /* fences are then stamped only by callers that wait */
    pthread_mutex_lock(&s->lock);
    s->ready = 1;
    pthread_cond_broadcast(&s->done);
    for (;;) {
        while (!s->head && !s->stop)
            pthread_cond_wait(&s->work, &s->lock);
        if (!s->head)
            break;
        struct fence_stamp *f = s->head;
        if (!f->done && f->refs == 1) {
            /* Nobody wants its stamp (its timer was freed where GL could not be called). */
            f->done = f->failed = 1;
            atomic_fetch_sub(&fences_pending, 1);
        }
        if (!f->done)
            fence_wait_and_stamp(s, f);
        queue_unlink(s, f);
        f->passed = 1;
        fence_maybe_destroy(s, f);
        fence_unref(s, f);
    }
    pthread_mutex_unlock(&s->lock);
    if (s->glx && !s->bind_failed)
        perfq_gl_glx_waiter_unbind(s->glx, perfq_gl_dispatch());
    return NULL;
}

/* The wake-up latency of a condition variable between two threads (the mechanism that wakes the
 * helper when a Mesa fence signals): median of 64 ping-pongs, halved. */
struct pingpong {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int turn, rounds;
};

static void *pong_main(void *arg)
{
    struct pingpong *p = arg;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->rounds; i++) {
        while (p->turn != 1)
            pthread_cond_wait(&p->cond, &p->lock);
        p->turn = 0;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t measure_wake_latency(void)
{
    struct pingpong p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 64};
    uint64_t samples[64];
    pthread_t t;
    if (pthread_create(&t, NULL, pong_main, &p) != 0)
        return 0;
    pthread_mutex_lock(&p.lock);
    for (int i = 0; i < p.rounds; i++) {
        uint64_t t0 = perfq_gl_now_ns();
        p.turn = 1;
        pthread_cond_broadcast(&p.cond);
        while (p.turn != 0)
            pthread_cond_wait(&p.cond, &p.lock);
        samples[i] = (perfq_gl_now_ns() - t0) / 2;
    }
    pthread_mutex_unlock(&p.lock);
    pthread_join(t, NULL);
    qsort(samples, 64, sizeof samples[0], cmp_u64);
    return samples[32] ? samples[32] : 1;
}

/* Starts the helper and waits until it waits for work: the first fence is then waited from the
 * moment it exists, not stamped late by the thread's start (a "late" first stamp, see
 * PERFQ_GL_FENCE_STAMP_WINDOW_NS). */
static int start_helper(struct perfq_gl_timer_state *s)
{
    if (s->started)
        return 0;
    if (pthread_create(&s->thread, NULL, helper_main, s) != 0)
        return -1;
    s->started = 1;
    pthread_mutex_lock(&s->lock);
    while (!s->ready)
        pthread_cond_wait(&s->done, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

/* Creates a fence in the current context's command stream and hands it to the helper. */
static struct fence_stamp *fence_insert(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    if (start_helper(s) != 0)
        return NULL;
    struct fence_stamp *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->created_ns = perfq_gl_now_ns();
    if (s->glx) {
        perfq_gl_error_guard_begin(&c->pub);
        f->sync = gl->glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        gl->glFlush();      /* another thread waits on it: it must reach the driver now */
        perfq_gl_error_guard_end(&c->pub);
    } else {
        f->sync = gl->eglCreateSyncKHR(s->dpy, EGL_SYNC_FENCE_KHR, NULL);
    }
    if (!f->sync) {
        free(f);
        return NULL;
    }
    /* The helper's wait cannot flush this context (it is not current there): the fence must
     * reach the driver's queue now. Mesa flushes when it creates a fence (dri2_create_sync ->
     * st flush); elsewhere, flush here. */
    if (!s->glx && !s->driver_flushes_fences) {
        perfq_gl_error_guard_begin(&c->pub);
        gl->glFlush();
        perfq_gl_error_guard_end(&c->pub);
    }
    /* A look now: a fence that signalled already (nothing was pending) is stamped here, within
     * the creation call, and never reaches the helper; one that has not is known to signal
     * after this moment, which bounds its stamp's window if the helper finds it signalled. */
    uint64_t before = perfq_gl_now_ns();
    int r = fence_client_wait(s, f, 0);
    pthread_mutex_lock(&s->lock);
    /* Only where no earlier fence waits for its stamp: stamps must keep the fences' order (an
     * earlier fence found signalled later by the helper would be stamped after this one). */
    if (r != 0 && !s->head) {
        uint64_t t = perfq_gl_now_ns();
        uint64_t lo = f->created_ns > s->signaled_lo ? f->created_ns : s->signaled_lo;
        f->ns = t;
        f->failed = r != 1;
        f->late = t - lo > PERFQ_GL_FENCE_STAMP_WINDOW_NS;
        if (!f->failed)
            s->signaled_lo = lo;
        f->done = f->passed = 1;
        f->refs = 1;
        fence_maybe_destroy(s, f);
        pthread_mutex_unlock(&s->lock);
        return f;
    }
    if (r == 0)
        f->unsignaled_ns = before;
    f->refs = 2;
    atomic_fetch_add(&fences_pending, 1);
    f->prev = s->tail;
    if (s->tail)
        s->tail->next = f;
    else
        s->head = f;
    s->tail = f;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    return f;
}

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
static int self_check(struct perfq_gl_ctx *c)
{
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

static struct perfq_gl_timer_state *state(struct perfq_gl_ctx *c)
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
    s->driver_flushes_fences = strstr(c->pub.version, "Mesa") != NULL;
    s->has_disjoint = perfq_gl_has_driver_extension(&c->pub, "GL_EXT_disjoint_timer_query");
    int timer_queries = perfq_gl_vquery_target_supported(&c->pub, GL_TIME_ELAPSED) &&
                        perfq_gl_vq(c) && perfq_gl_vq(c)->fn.counter;
    int bits = timer_queries ? query_bits(c, GL_TIME_ELAPSED) : 0;
    int fences = egl_fences(c) || perfq_gl_glx_fences_possible(c);
    const char *force = getenv("PERFQ_GL_TIMER");
    const char *quirk = NULL;
    const char *use_quirks = getenv("PERFQ_GL_TIMER_QUIRKS");   /* "0": self-check alone */
    for (size_t i = 0; i < sizeof timer_quirks / sizeof timer_quirks[0] &&
                       !(use_quirks && strcmp(use_quirks, "0") == 0); i++)
        if (strncmp(c->pub.renderer, timer_quirks[i].renderer_prefix,
                    strlen(timer_quirks[i].renderer_prefix)) == 0)
            quirk = timer_quirks[i].reason;

    if (force && strcmp(force, "query") == 0 && timer_queries) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->reason = "PERFQ_GL_TIMER=query";
    } else if (force && strcmp(force, "fence") == 0 && fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = "PERFQ_GL_TIMER=fence";
    } else if (quirk && fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = quirk;
    } else if (timer_queries && bits >= 30 && !quirk && self_check(c)) {
        s->path = PERFQ_GL_TIMER_QUERY;
        s->reason = "driver timer queries passed the self-check";
    } else if (fences) {
        s->path = PERFQ_GL_TIMER_FENCE;
        s->reason = timer_queries ? "driver timer queries failed the self-check"
                                  : "no timer queries in this context";
    } else {
        s->path = PERFQ_GL_TIMER_NONE;
        s->reason = "no trustworthy timer queries and no EGL_KHR_fence_sync";
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
        s->resolution_ns = measure_wake_latency();
    }
    if (getenv("PERFQ_GL_DEBUG"))
        fprintf(stderr, "perfq-gl: %s: timer path %s (%s), resolution %llu ns\n",
                c->pub.renderer, s->path == PERFQ_GL_TIMER_QUERY ? "query" :
                s->path == PERFQ_GL_TIMER_FENCE ? "fence" : "none", s->reason,
                (unsigned long long)s->resolution_ns);
    return s;
}

perfq_gl_timer_path_t perfq_gl_timer_path(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = state(perfq_gl_ctx(pub));
    return s ? s->path : PERFQ_GL_TIMER_NONE;
}

const char *perfq_gl_timer_reason(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = state(perfq_gl_ctx(pub));
    return s ? s->reason : "out of memory";
}

uint64_t perfq_gl_timer_resolution_ns(struct perfq_gl_context *pub)
{
    struct perfq_gl_timer_state *s = state(perfq_gl_ctx(pub));
    return s ? s->resolution_ns : 0;
}

int perfq_gl_timer_bits(struct perfq_gl_context *pub, int timestamp)
{
    struct perfq_gl_timer_state *s = state(perfq_gl_ctx(pub));
    if (!s)
        return 0;
    return timestamp ? s->bits_stamp : s->bits_elapsed;
}

/* GPU_DISJOINT_EXT: reading it clears it, so a read by the layer is remembered for the program
 * (perfq_gl_timer_disjoint_for_program) and for every timer that was in flight. */
static void poll_disjoint(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    if (s->path != PERFQ_GL_TIMER_QUERY || !s->has_disjoint)
        return;
    GLint d = 0;
    perfq_gl_error_guard_begin(&c->pub);
    c->pub.gl->glGetIntegerv(GL_GPU_DISJOINT_EXT, &d);
    perfq_gl_error_guard_end(&c->pub);
    if (d) {
        s->disjoint_epoch++;
        s->disjoint_for_program = 1;
    }
}

int perfq_gl_timer_disjoint_for_program(struct perfq_gl_context *pub);
int perfq_gl_timer_disjoint_for_program(struct perfq_gl_context *pub)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!c->timer)
        return 0;
    int d = c->timer->disjoint_for_program;
    c->timer->disjoint_for_program = 0;
    return d;
}

/* ---- timers ---- */

static struct perfq_gl_timer *timer_new(struct perfq_gl_timer_state *s, int stamp)
{
    struct perfq_gl_timer *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->stamp = stamp;
    t->path = s->path;
    t->epoch = s->disjoint_epoch;
    atomic_fetch_add(&live_timers, 1);
    return t;
}

/* The checks begin and stamp share, then a new timer of the context's path. */
static perfq_status_t timer_open(struct perfq_gl_ctx *c, int stamp,
                                   struct perfq_gl_timer **out, struct perfq_gl_timer **t)
{
    struct perfq_gl_timer_state *s = state(c);
    if (!out)
        return PERFQ_EINVAL;
    if (!s)
        return PERFQ_ENOMEM;
    if (s->path == PERFQ_GL_TIMER_NONE)
        return PERFQ_ENOTSUP;
    *t = timer_new(s, stamp);
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
        poll_disjoint(c);
        t->epoch = s->disjoint_epoch;
        st = perfq_gl_vquery_begin(pub, GL_TIME_ELAPSED, 0, &t->vq);
    } else {
        t->f0 = fence_insert(c);
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

perfq_status_t perfq_gl_timer_end(struct perfq_gl_context *pub, struct perfq_gl_timer *t)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!t || !t->active)
        return PERFQ_ESTATE;
    t->active = 0;
    t->ended = 1;
    if (t->path == PERFQ_GL_TIMER_QUERY)
        return perfq_gl_vquery_end(pub, t->vq);
    t->f1 = fence_insert(c);
    return t->f1 ? PERFQ_OK : PERFQ_ESYS;
}

perfq_status_t perfq_gl_timer_stamp(struct perfq_gl_context *pub, struct perfq_gl_timer **out)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    struct perfq_gl_timer *t;
    perfq_status_t st = timer_open(c, 1, out, &t);
    if (st != PERFQ_OK)
        return st;
    t->ended = 1;
    if (t->path == PERFQ_GL_TIMER_QUERY) {
        struct perfq_gl_vq_state *vq = perfq_gl_vq(c);
        perfq_gl_error_guard_begin(pub);
        vq->fn.gen(1, &t->query);
        vq->fn.counter(t->query, GL_TIMESTAMP);
        GLenum err = perfq_gl_error_guard_end(pub);
        if (err != GL_NO_ERROR) {
            perfq_gl_timer_free(pub, t);
            return PERFQ_ESYS;
        }
    } else {
        t->f1 = fence_insert(c);
        if (!t->f1) {
            perfq_gl_timer_free(pub, t);
            return PERFQ_ESYS;
        }
    }
    *out = t;
    return PERFQ_OK;
}

/* Waits (or polls) one fence. Returns PERFQ_OK, PERFQ_NOT_READY, or PERFQ_ESYS if it failed.
 * When the helper is waiting on this very fence, the caller waits on it too
 * (eglClientWaitSyncKHR): it is woken by the driver directly, without the helper's round trip. */
static perfq_status_t fence_result(struct perfq_gl_timer_state *s, struct fence_stamp *f,
                                   int wait, uint64_t *ns, int *late)
{
    pthread_mutex_lock(&s->lock);
    /* Only beside the helper (f is the fence it is on): a caller never runs ahead of it, so the
     * helper's queue (and the driver's sync objects) cannot pile up behind the caller. */
    if (wait && !f->done && !f->destroyed && s->head == f) {
        fence_wait_and_stamp(s, f);
        fence_maybe_destroy(s, f);
    }
    while (wait && !f->done)
        pthread_cond_wait(&s->done, &s->lock);
    int done = f->done, failed = f->failed;
    uint64_t v = f->ns;
    *late |= f->late;
    pthread_mutex_unlock(&s->lock);
    if (!done)
        return PERFQ_NOT_READY;
    if (failed)
        return PERFQ_ESYS;
    *ns = v;
    return PERFQ_OK;
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
        if (t->stamp) {
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
        } else {
            st = perfq_gl_vquery_result(pub, t->vq, wait, &v);
        }
        if (st == PERFQ_OK) {
            poll_disjoint(c);
            t->disjoint = s->disjoint_epoch != t->epoch;
            *ns = v;
        }
        return st;
    }
    uint64_t t0 = 0, t1 = 0;
    perfq_status_t st;
    int late = 0;
    if (!t->stamp) {
        /* The begin fence first: it signals first, and a waiter stamps when its wait returns. */
        st = fence_result(s, t->f0, wait, &t0, &late);
        if (st != PERFQ_OK) {
            if (st == PERFQ_ESYS)
                t->disjoint = 1;
            return st;
        }
    }
    st = fence_result(s, t->f1, wait, &t1, &late);
    if (st != PERFQ_OK) {
        if (st == PERFQ_ESYS)
            t->disjoint = 1;
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
    return PERFQ_OK;
}

int perfq_gl_timer_disjoint(const struct perfq_gl_timer *t)
{
    return t ? t->disjoint : 0;
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
    if (t->query && gl_usable) {
        perfq_gl_error_guard_begin(pub);
        perfq_gl_vq(c)->fn.del(1, &t->query);
        perfq_gl_error_guard_end(pub);
    }
    struct perfq_gl_timer_state *s = c->timer;
    if (s && (t->f0 || t->f1)) {
        pthread_mutex_lock(&s->lock);
        if (t->f0)
            fence_release(s, t->f0, gl_usable);
        if (t->f1)
            fence_release(s, t->f1, gl_usable);
        pthread_mutex_unlock(&s->lock);
    }
    free(t);
    atomic_fetch_sub(&live_timers, 1);
}

void perfq_gl_timer_free_context(struct perfq_gl_ctx *c, int gl_usable)
{
    struct perfq_gl_timer_state *s = c->timer;
    (void)gl_usable;
    if (!s)
        return;
    if (s->started) {
        /* The helper finishes the fences it has (Mesa signals them; each was flushed). */
        pthread_mutex_lock(&s->lock);
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
        pthread_cond_signal(&s->work);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
    perfq_gl_glx_waiter_destroy(s->glx, c->pub.gl);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    free(s);
    c->timer = NULL;
}

void perfq_gl_timer_stats(struct perfq_gl_layer_stats *out);
void perfq_gl_timer_stats(struct perfq_gl_layer_stats *out)
{
    out->timers = atomic_load(&live_timers);
    out->fences_pending = atomic_load(&fences_pending);
}
