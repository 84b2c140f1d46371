/*
 * The GPU timer's FENCE path (gpu_timer.c): EGL_KHR_fence_sync fences (GL_ARB_sync on GLX,
 * glx_fence.c) created at begin and end, each waited by a helper thread of the context and
 * stamped with CLOCK_MONOTONIC when the wait returns; a caller that asks for a result with wait
 * waits the fence itself beside the helper.
 */
#include "gl/timing/fence_stamp_rule.h"
#include "gl/timing/glx_fence.h"
#include "gl/timing/timer_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The longest a program's thread waits its frame's fence inline (perfq_gl_fence_insert's
 * wait_here) before it hands the fence to the helper as usual. */
#define INLINE_WAIT_NS 100000000ull

atomic_ullong perfq_gl_fences_pending;
atomic_ullong perfq_gl_thread_schedstat_fds;

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

/* The context's EGL display was terminated under it: its syncs are gone (any thread). */
static int display_gone(const struct perfq_gl_timer_state *s)
{
    return s->display_gone && atomic_load_explicit(s->display_gone, memory_order_acquire);
}

/* Destroys a sync taken by fence_take_sync (any thread, the lock held or not). */
static void sync_destroy(struct perfq_gl_timer_state *s, void *sync)
{
    if (!sync)
        return;
    if (s->glx)
        perfq_gl_dispatch()->glDeleteSync((GLsync)sync);
    else if (!display_gone(s))
        perfq_gl_dispatch()->eglDestroySyncKHR(s->dpy, sync);
    /* else: eglTerminate destroyed it with the display (an EGL call on it now would only
     * leave EGL_NOT_INITIALIZED on the calling thread, the program's perhaps) */
}

/* Once nobody waits on f's sync and the helper has passed it (under the lock): marks it
 * destroyed and returns the sync for sync_destroy, which the caller may call after letting go
 * of the lock (the helper does: the program's thread, which takes the lock at each fence,
 * does not wait for the driver's destroy); NULL when it is not to be destroyed now. */
static void *fence_take_sync(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    (void)s;
    if (f->waiters == 0 && f->passed && !f->destroyed) {
        f->destroyed = 1;
        return f->sync;
    }
    return NULL;
}

/* Destroys the sync once nobody waits on it and the helper has passed it (under the lock). */
static void fence_maybe_destroy(struct perfq_gl_timer_state *s, struct fence_stamp *f)
{
    sync_destroy(s, fence_take_sync(s, f));
}

/* The timer lets go of f (under the lock). When nobody else wants its stamp (only the helper's
 * reference is left, no waiter) and GL may be called here, the fence is taken off the helper's
 * queue and its sync destroyed now: dropped queries' fences cost the helper nothing, and the
 * driver's sync objects do not pile up (Mesa looks a sync up in a list of the display's live
 * ones, so a pile makes every wait slower). */
void perfq_gl_fence_release(struct perfq_gl_timer_state *s, struct fence_stamp *f, int gl_usable)
{
    if (f->refs == 2 && !f->passed && f->waiters == 0 && gl_usable) {
        if (!s->glx && !f->destroyed && !display_gone(s))
            perfq_gl_egl_own_call();    /* the program's thread: keep its EGL error */
        queue_unlink(s, f);
        f->passed = 1;
        if (!f->done) {
            f->done = f->failed = 1;
            atomic_fetch_sub(&perfq_gl_fences_pending, 1);
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
    if (display_gone(s))
        return -1;      /* the sync went with the display: it will never be stamped */
    EGLint r = gl->eglClientWaitSyncKHR(s->dpy, f->sync, 0, timeout_ns);
    if (r == EGL_TIMEOUT_EXPIRED_KHR)
        return 0;
    return r == EGL_CONDITION_SATISFIED_KHR ? 1 : -1;
}

/* The calling thread's /proc schedstat (its CPU time and run-queue delay), opened once per
 * waiting thread; -1 where the kernel has none (no CONFIG_SCHED_INFO, no /proc): the stamps are
 * then taken as before, a blocked wait's as the signal (fence_stamp_rule.h). */
static int schedstat_open(void)
{
    return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

/* CPU time plus run-queue delay of the calling thread, whose schedstat fd is open: 0 and *ns,
 * or -1. The CPU time is the thread's CPU clock, not schedstat's first number: for the running
 * thread that one is as of its last switch in, so a thread that ran a while before it waits
 * (the program's, at a swap) read a time too short before the wait and the whole of it after
 * (measured on llvmpipe: 1.1 ms "awake" over a 0.4 ms wait, stamps marked late). The run-queue
 * delay is current for a running thread (it grows only while it waits for a CPU). */
static int schedstat_awake(int fd, uint64_t *ns)
{
    char buf[96];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    uint64_t cpu, delay;
    struct timespec ts;
    if (perfq_gl_schedstat_parse(buf, &cpu, &delay) != 0 ||
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + delay;
    return 0;
}

/* The calling thread's schedstat, kept open for the program's threads that wait their frames'
 * fences inline (a frame each: no open and close a frame). Stored as fd + 2 (1: cannot be
 * opened); closed at the thread's exit, and forgotten in a child after fork (the descriptor
 * would read the parent's thread). */
static pthread_key_t thread_schedstat_key;
static int thread_schedstat_key_ok;
static pthread_once_t thread_schedstat_once = PTHREAD_ONCE_INIT;

static void thread_schedstat_close(void *v)
{
    intptr_t x = (intptr_t)v;
    if (x >= 2) {
        close((int)(x - 2));
        atomic_fetch_sub(&perfq_gl_thread_schedstat_fds, 1);
    }
}

static void thread_schedstat_forget(void)
{
    if (!thread_schedstat_key_ok)
        return;
    thread_schedstat_close(pthread_getspecific(thread_schedstat_key));
    pthread_setspecific(thread_schedstat_key, NULL);
}

static void thread_schedstat_key_make(void)
{
    thread_schedstat_key_ok = pthread_key_create(&thread_schedstat_key,
                                                 thread_schedstat_close) == 0;
    if (thread_schedstat_key_ok)
        pthread_atfork(NULL, NULL, thread_schedstat_forget);
}

static int thread_schedstat_fd(void)
{
    pthread_once(&thread_schedstat_once, thread_schedstat_key_make);
    if (!thread_schedstat_key_ok)
        return -1;
    intptr_t x = (intptr_t)pthread_getspecific(thread_schedstat_key);
    if (!x) {
        int fd = schedstat_open();
        if (fd >= 0)
            atomic_fetch_add(&perfq_gl_thread_schedstat_fds, 1);
        x = fd >= 0 ? (intptr_t)fd + 2 : 1;
        if (pthread_setspecific(thread_schedstat_key, (void *)x) != 0) {
            thread_schedstat_close((void *)x);
            return -1;
        }
    }
    return x >= 2 ? (int)(x - 2) : -1;
}

/* Waits on f's sync from the calling thread (no lock held) and stamps it if nobody did yet.
 * helper: the calling thread is the helper, schedstat_fd its schedstat (or -1); another thread
 * uses its own if it has to block (thread_schedstat_fd: opened once, kept for the thread). A caller that finds the fence signalled while the helper
 * waits on it leaves the stamp to the helper, with its look as an upper bound (seen_ns): the
 * helper's blocked stamp is exact, the caller's look only bounded by when the fence was last
 * seen unsignalled (often the interval's start: a late stamp, the interval disjoint).
 * Called with the lock held; returns with it held. */
static void fence_wait_and_stamp(struct perfq_gl_timer_state *s, struct fence_stamp *f,
                                 int helper, int schedstat_fd)
{
    f->waiters++;
    if (helper && !s->bind_failed)
        f->helper_waiting = 1;
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
    /* The thread's awake time (CPU + run-queue delay) over the last blocked slice. */
    int have_run = 0;
    uint64_t run0 = 0, run1 = 0;
    if (r == 0 && schedstat_fd < 0 && !helper)
        schedstat_fd = thread_schedstat_fd();   /* kept open for the thread */
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
        have_run = schedstat_fd >= 0 && schedstat_awake(schedstat_fd, &run0) == 0;
        before = perfq_gl_now_ns();
        r = fence_client_wait(s, f, 100000000ull);
        if (have_run)
            have_run = schedstat_awake(schedstat_fd, &run1) == 0;
    }
    uint64_t t = perfq_gl_now_ns();
    pthread_mutex_lock(&s->lock);
    f->waiters--;
    if (helper)
        f->helper_waiting = 0;
    if (!f->done && !helper && !unsignaled && r == 1 && f->helper_waiting) {
        /* Found signalled beside the helper, which waits on it: the helper stamps it (the
         * result waits for that, perfq_gl_fence_result), no later than this look. */
        if (!f->seen_ns || t < f->seen_ns)
            f->seen_ns = t;
        return;
    }
    if (!f->done) {
        /* It signalled after lo (its creation, the previous fence's signal, a look that found
         * it unsignalled); fence_stamp_rule.c decides the stamp and whether it is late. */
        struct perfq_gl_stamp_obs o = {
            .t = t,
            .lo = f->created_ns,
            .blocked = unsignaled != 0,
            .have_run = have_run,
            .run_ns = have_run && run1 > run0 ? run1 - run0 : 0,
            .seen_ns = f->seen_ns,
        };
        if (s->signaled_lo > o.lo)
            o.lo = s->signaled_lo;
        uint64_t seen = __atomic_load_n(&f->unsignaled_ns, __ATOMIC_RELAXED);
        if (seen > o.lo)
            o.lo = seen;
        /* A blocked wait's lower bound is the start of its last slice (it saw the fence
         * unsignalled then, or a slice that timed out did). */
        if (unsignaled && before > o.lo)
            o.lo = before;
        uint64_t lo;
        perfq_gl_fence_stamp_decide(&o, s->stamp_window_ns, &f->ns, &f->late, &lo);
        f->failed = r != 1;
        if (!f->failed && lo > s->signaled_lo)
            s->signaled_lo = lo;
        f->done = 1;
        atomic_fetch_sub(&perfq_gl_fences_pending, 1);
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
    int schedstat_fd = schedstat_open();
    uint64_t awake;
    if (schedstat_fd >= 0 && schedstat_awake(schedstat_fd, &awake) != 0) {
        close(schedstat_fd);
        schedstat_fd = -1;
    }
    pthread_mutex_lock(&s->lock);
    s->stamp_window_ns = schedstat_fd >= 0 ? PERFQ_GL_FENCE_STAMP_WINDOW_RUN_NS
                                           : PERFQ_GL_FENCE_STAMP_WINDOW_NS;
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
            atomic_fetch_sub(&perfq_gl_fences_pending, 1);
        }
        if (!f->done)
            fence_wait_and_stamp(s, f, 1, schedstat_fd);
        queue_unlink(s, f);
        f->passed = 1;
        void *sync = fence_take_sync(s, f);
        fence_unref(s, f);
        if (sync) {
            /* Outside the lock: the program's thread takes it at its next fence, often right
             * now (it was woken by the same signal), and would wait for the driver's call. */
            pthread_mutex_unlock(&s->lock);
            sync_destroy(s, sync);
            pthread_mutex_lock(&s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (schedstat_fd >= 0)
        close(schedstat_fd);
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

uint64_t perfq_gl_fence_wake_latency(void)
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

/* Creates a fence in the current context's command stream and hands it to the helper; with
 * wait_here, where no earlier fence waits for its stamp, the calling thread waits it itself
 * first (at most INLINE_WAIT_NS) and stamps it as the helper would: *waited_here (may be NULL)
 * says whether it was stamped here as asked, waited or found signalled (swap_wait_rule.h). */
struct fence_stamp *perfq_gl_fence_insert(struct perfq_gl_ctx *c, int wait_here,
                                          int *waited_here)
{
    if (waited_here)
        *waited_here = 0;
    struct perfq_gl_timer_state *s = c->timer;
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    if (start_helper(s) != 0)
        return NULL;
    struct fence_stamp *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->created_ns = perfq_gl_now_ns();
    if (!s->glx && display_gone(s)) {
        /* No display to make a sync on: a stamp that failed (its interval disjoint, no time),
         * never the helper's, no EGL call (struct perfq_gl_ctx, display_terminated). */
        f->done = f->failed = f->passed = f->destroyed = 1;
        f->refs = 1;
        return f;
    }
    if (s->glx) {
        perfq_gl_error_guard_begin(&c->pub);
        f->sync = gl->glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        gl->glFlush();      /* another thread waits on it: it must reach the driver now */
        perfq_gl_error_guard_end(&c->pub);
    } else {
        perfq_gl_egl_own_call();    /* the program's thread: keep its EGL error */
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
    /* Waited here (wait_here, no earlier fence waiting for the helper: stamps keep the fences'
     * order; only this thread adds to the queue, so it stays empty while this thread waits):
     * first for at most what the stamp window leaves since the fence's lower bound, with no
     * look before and no schedstat read (a stamp within the window of its lower bound is not
     * late, whatever woke the thread: four syscalls and an EGL call a frame fewer than a
     * bounded wait); if the fence has not signalled by then, a blocked wait bounded by this
     * thread's schedstat, as the helper's (at most INLINE_WAIT_NS, then the helper takes it).
     * Otherwise a look now: a fence that signalled already (nothing was pending) is stamped
     * here, within the creation call, and never reaches the helper; one that has not is known
     * to signal after this moment, which bounds its stamp's window if the helper finds it
     * signalled. */
    int here = 0;
    if (wait_here) {
        pthread_mutex_lock(&s->lock);
        here = !s->head;
        pthread_mutex_unlock(&s->lock);
    }
    uint64_t before = perfq_gl_now_ns();
    int blocked = 0, have_run = 0, r = 0;
    uint64_t run0 = 0, run1 = 0, wait_from = before;
    if (here) {
        pthread_mutex_lock(&s->lock);
        uint64_t lo = f->created_ns > s->signaled_lo ? f->created_ns : s->signaled_lo;
        pthread_mutex_unlock(&s->lock);
        if (before - lo < s->stamp_window_ns)
            r = fence_client_wait(s, f, s->stamp_window_ns - (before - lo));
        if (r == 0) {
            int fd = thread_schedstat_fd();
            before = perfq_gl_now_ns();     /* unsignalled then (the wait timed out) */
            have_run = fd >= 0 && schedstat_awake(fd, &run0) == 0;
            wait_from = perfq_gl_now_ns();
            r = fence_client_wait(s, f, INLINE_WAIT_NS);
            if (have_run)
                have_run = schedstat_awake(fd, &run1) == 0;
            blocked = r == 1;
        }
    } else {
        r = fence_client_wait(s, f, 0);
    }
    pthread_mutex_lock(&s->lock);
    if (r != 0 && !s->head) {
        uint64_t t = perfq_gl_now_ns();
        uint64_t lo = f->created_ns > s->signaled_lo ? f->created_ns : s->signaled_lo;
        f->failed = r != 1;
        if (blocked) {
            /* Seen unsignalled at `before`, then waited until it signalled: the helper's
             * rule for a blocked wait (this thread's schedstat bounds how late t is). It may
             * have signalled before the wait began, after the look: that gap counts too. */
            struct perfq_gl_stamp_obs o = {
                .t = t,
                .lo = before > lo ? before : lo,
                .blocked = 1,
                .have_run = have_run,
                .run_ns = (have_run && run1 > run0 ? run1 - run0 : 0) + (wait_from - before),
            };
            perfq_gl_fence_stamp_decide(&o, s->stamp_window_ns, &f->ns, &f->late, &lo);
        } else {
            f->ns = t;
            f->late = t - lo > s->stamp_window_ns;
        }
        if (!f->failed && lo > s->signaled_lo)
            s->signaled_lo = lo;
        if (waited_here)
            *waited_here = wait_here;   /* done here, without the helper, as asked */
        f->done = f->passed = 1;
        f->refs = 1;
        void *sync = fence_take_sync(s, f);
        pthread_mutex_unlock(&s->lock);
        sync_destroy(s, sync);
        return f;
    }
    if (r == 0)
        f->unsignaled_ns = before;
    f->refs = 2;
    atomic_fetch_add(&perfq_gl_fences_pending, 1);
    f->prev = s->tail;
    if (s->tail)
        s->tail->next = f;
    else
        s->head = f;
    s->tail = f;
    /* Signalled after the unlock: the helper, woken, does not block at once on the lock this
     * thread still holds (a futex wait and wake more per fence). */
    pthread_mutex_unlock(&s->lock);
    pthread_cond_signal(&s->work);
    return f;
}

/* Waits (or polls) one fence. Returns PERFQ_OK, PERFQ_NOT_READY, or PERFQ_ESYS if it failed.
 * When the helper is waiting on this very fence, the caller waits on it too
 * (eglClientWaitSyncKHR): it is woken by the driver directly, without the helper's round trip. */
perfq_status_t perfq_gl_fence_result(struct perfq_gl_timer_state *s, struct fence_stamp *f,
                                   int wait, uint64_t *ns, int *late)
{
    pthread_mutex_lock(&s->lock);
    /* Only beside the helper (f is the fence it is on): a caller never runs ahead of it, so the
     * helper's queue (and the driver's sync objects) cannot pile up behind the caller. */
    if (wait && !f->done && !f->destroyed && s->head == f) {
        if (!s->glx)
            perfq_gl_egl_own_call();    /* a program's thread: keep its EGL error */
        fence_wait_and_stamp(s, f, 0, -1);
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

void perfq_gl_fence_helper_stop(struct perfq_gl_timer_state *s)
{
    if (s->started) {
        /* The helper finishes the fences it has (Mesa signals them; each was flushed). */
        pthread_mutex_lock(&s->lock);
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
        pthread_cond_signal(&s->work);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
}

