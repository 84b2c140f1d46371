/*
 * The GPU timer service's private header: the state its four files share (gpu_timer.c: timer
 * objects and the gl_layer.h timer calls; timer_fence.c: the fence helper thread and its stamps;
 * timer_path.c: which path a context gets, and the self-check; timer_disjoint.c: disjoint
 * tracking). Not for front ends: they use gl_layer.h.
 */
#ifndef PERFQ_GL_TIMER_INTERNAL_H
#define PERFQ_GL_TIMER_INTERNAL_H

#include "gl/contexts/layer_internal.h"
#include "gl/timing/swap_wait_rule.h"

/* A stamp is the time a waiter saw the fence signalled. It is the time the GPU reached the
 * fence (within the wake-up latency) when the wait blocked, that is when the fence was seen
 * unsignalled just before, and the waiting thread ran as soon as it was woken; a fence found
 * already signalled only tells that it signalled between a lower bound (its creation, the
 * previous fence's signal, a waiter's earlier look) and now. If the stamp may be later than the
 * signal by more than a window, the stamp is "late": the interval is reported disjoint rather
 * than as a number that may be far off (issue 14 item 1: a helper behind a backlog stamped a
 * begin fence 100 ms late, and a 100 ms interval read 0.004 ms).
 * Where the waiting thread's CPU time and run-queue delay can be read (/proc/thread-self/
 * schedstat, CONFIG_SCHED_INFO), a blocked wait's lateness is bounded too (the thread was awake,
 * running or waiting for a CPU, at most that long after the signal: fence_stamp_rule.h), and the
 * window is 1 ms: every stamp not flagged is then within 1 ms of the signal, the bound the
 * layer's tests hold a clean interval to against the wall clock around it. Without it (no
 * schedstat), a woken waiter left runnable on a loaded machine is late unseen, and the window is
 * 4 ms, one scheduler time slice (250 Hz): a narrower one would flag only the visible half of
 * the same error (docs/gl-layer.md). */
#define PERFQ_GL_FENCE_STAMP_WINDOW_NS 4000000ull
#define PERFQ_GL_FENCE_STAMP_WINDOW_RUN_NS 1000000ull

struct fence_stamp {
    void *sync;             /* an EGLSyncKHR, or a GLsync on the GLX fence path */
    int done;               /* stamped; under the state's lock (as every field below) */
    int failed;
    int late;               /* the stamp may be later than the signal by more than the window */
    uint64_t ns;
    uint64_t created_ns;    /* before the sync was created: it cannot have signalled earlier */
    uint64_t unsignaled_ns; /* the latest time a waiter saw it unsignalled (0: never) */
    uint64_t seen_ns;       /* the earliest time a waiter found it signalled and left the
                             * stamp to the helper (0: none) */
    int refs;               /* its timers (two where it ends one interval and begins the next:
                             * perfq_gl_timer_end_begin) and the helper thread */
    int waiters;            /* threads inside eglClientWaitSyncKHR on it */
    int passed;             /* the helper has taken it off its queue */
    int helper_waiting;     /* the helper is inside its wait on it */
    int destroyed;          /* the sync was destroyed */
    struct fence_stamp *next, *prev;    /* in the helper's queue */
};

/* A stamp point (timer_points.c): a GL_TIMESTAMP query counter, flushed. */
struct perfq_gl_point {
    GLuint query;
    int refs;               /* its timers: two where it ends one interval and begins the next */
    int done;
    uint64_t seq;           /* its place among the context's points (1, 2, ...) */
    GLuint64 value;
};
/* A released point's query name, kept until a later point has completed (timer_points.c). */
struct perfq_gl_released_point {
    GLuint query;
    uint64_t seq;
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
    uint64_t stamp_window_ns;           /* PERFQ_GL_FENCE_STAMP_WINDOW_RUN_NS where the helper
                                         * reads its schedstat, else ..._WINDOW_NS (set by the
                                         * helper before it is ready) */
    int stop, started;
    int ready;                          /* the helper runs (start_helper waits for it) */
    int driver_flushes_fences;          /* Mesa: eglCreateSyncKHR flushes */
    atomic_int *display_gone;           /* EGL: the context's display_terminated (any thread) */
    int has_disjoint;                   /* the driver has EXT_disjoint_timer_query */
    /* query path: intervals from two stamp points instead of TIME_ELAPSED (timer_points.c),
     * and the points' query names kept for reuse (the context's thread only) */
    int elapsed_by_stamps;
    uint64_t point_seq;                 /* the last point's seq */
    uint64_t point_done_seq;            /* the latest point read as completed */
    struct perfq_gl_released_point *released;   /* a FIFO: [released_head, n_released) */
    size_t n_released, released_head, released_cap;
    struct perfq_gl_glx_waiter *glx;    /* GLX: GL_ARB_sync fences, waited in a shared context */
    int bind_failed;                    /* GLX: the helper could not make its context current */
    pthread_t thread;
    /* Timers freed in this context, kept for its next ones (at most PERFQ_GL_TIMER_FREE_MAX;
     * issue 10: no allocation per query). Used on the context's thread only. */
    struct perfq_gl_timer *free_timers;
    int n_free_timers;
    /* Who waits the frames' fences (perfq_gl_timer_end_begin_swap, swap_wait_rule.h); used on
     * the context's thread only. swap_wait: PERFQ_GL_FENCE_SWAP_WAIT (0 auto: the rule, 1
     * helper, 2 inline). */
    int swap_wait;
    struct perfq_gl_swap_wait_rule swap_rule;
    uint64_t last_swap_ns;              /* the previous frame fence's time (0: none yet) */
    int last_swap_inline;               /* it was waited inline */
    int debug;                          /* PERFQ_GL_DEBUG: say each trial's choice */
};
#define PERFQ_GL_TIMER_FREE_MAX 1024

struct perfq_gl_timer {
    int stamp;                          /* a QueryCounter-style point, not an interval */
    int active, ended;
    perfq_gl_timer_path_t path;
    struct perfq_gl_vquery *vq;         /* query path, interval */
    GLuint query;                       /* query path, stamp */
    int query_done;
    GLuint64 query_value;
    struct fence_stamp *f0, *f1;        /* fence path */
    struct perfq_gl_point *p0, *p1;     /* query path with elapsed_by_stamps, interval */
    unsigned epoch;
    int disjoint;
    int have_span;                      /* span0, span1: the stamps of the result (fence path,
                                         * or the query path's points): perfq_gl_timer_span */
    uint64_t span0, span1;
    struct perfq_gl_timer *next_free;
};

/* timer_fence.c */
extern atomic_ullong perfq_gl_fences_pending;   /* fences not yet stamped (diagnostics) */
extern atomic_ullong perfq_gl_thread_schedstat_fds; /* kept per program thread (diagnostics) */
extern atomic_ullong perfq_gl_stamp_names_held;     /* timer_points.c (diagnostics) */
extern atomic_ullong perfq_gl_timer_self_checks; /* self-checks run, not answered by the cache */

/* timer_verdict_cache.c: the self-check's verdict for this context's driver from earlier runs:
 * 1 passed, 0 failed, -1 not known (or the cache is off); and storing one. */
int perfq_gl_timer_verdict_cached(const struct perfq_gl_ctx *c);
void perfq_gl_timer_verdict_store(const struct perfq_gl_ctx *c, int pass);
/* Creates a fence in the current context's command stream and hands it to the helper. */
struct fence_stamp *perfq_gl_fence_insert(struct perfq_gl_ctx *c, int wait_here,
                                          int *waited_here);
/* The timer lets go of f (under the state's lock). */
void perfq_gl_fence_release(struct perfq_gl_timer_state *s, struct fence_stamp *f, int gl_usable);
/* One fence's stamp: PERFQ_OK, PERFQ_NOT_READY, or PERFQ_ESYS if it failed. */
perfq_status_t perfq_gl_fence_result(struct perfq_gl_timer_state *s, struct fence_stamp *f,
                                     int wait, uint64_t *ns, int *late);
/* The helper's wake-up latency, the fence path's stated resolution. */
uint64_t perfq_gl_fence_wake_latency(void);
/* Stops the context's helper thread, if it runs, and joins it. */
void perfq_gl_fence_helper_stop(struct perfq_gl_timer_state *s);

/* timer_points.c: a stamp point made now in the current context (NULL: the driver refused);
 * its value (PERFQ_OK, PERFQ_NOT_READY, PERFQ_ESYS); a timer letting go of it; the kept names
 * deleted (the context's release). */
struct perfq_gl_point *perfq_gl_point_insert(struct perfq_gl_ctx *c);
perfq_status_t perfq_gl_point_result(struct perfq_gl_ctx *c, struct perfq_gl_point *p, int wait,
                                     uint64_t *ns);
void perfq_gl_point_release(struct perfq_gl_ctx *c, struct perfq_gl_point *p, int gl_usable);
void perfq_gl_points_free_names(struct perfq_gl_ctx *c, int gl_usable);

/* timer_path.c: the context's timer state, made and its path decided on first use (NULL: out of
 * memory). Inline where it is decided already: it is asked on every query (issue 10). */
struct perfq_gl_timer_state *perfq_gl_timer_state_make(struct perfq_gl_ctx *c);
static inline struct perfq_gl_timer_state *perfq_gl_timer_state_of(struct perfq_gl_ctx *c)
{
    return c->timer && c->timer->decided ? c->timer : perfq_gl_timer_state_make(c);
}

/* timer_disjoint.c: reads GPU_DISJOINT_EXT on the query path (reading clears it), where the
 * driver has it; the check is inline, as it is made twice per query (issue 10). */
void perfq_gl_timer_read_disjoint(struct perfq_gl_ctx *c);
static inline void perfq_gl_timer_poll_disjoint(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    if (s->path == PERFQ_GL_TIMER_QUERY && s->has_disjoint)
        perfq_gl_timer_read_disjoint(c);
}

#endif
