/*
 * The `perfq stat` front end: frames of every context, sent to the CLI through the stat channel
 * (src/core/stat_channel.h, docs/perfq-stat.md). Registered only when PERFQ_STAT_CHANNEL names a
 * valid channel (perfq stat --layers): otherwise it costs nothing, not even a swap observer.
 *
 * A frame is what a context renders between two swaps (eglSwapBuffers, its damage variants,
 * glXSwapBuffers); frame 0 starts at the context's first make-current. At each swap, before the
 * real one:
 *  - a FRAME record (context, index, CPU frame time) goes at once, so the frame count does not
 *    depend on GPU results arriving;
 *  - the pipeline statistics (one query per ARB_pipeline_statistics_query target the driver
 *    runs, through the query-virtualisation service, so the program's own queries of those
 *    targets stay exact) end and the next span's begin, if the statistics span has lasted at
 *    least the CLI's span (perfq stat --stats-span, the channel page's stats_span_ns; 0: every
 *    swap): on the NVIDIA driver (H100) the eleven ends and begins cost 24-28 us of CPU, more
 *    than a whole 13-22 us frame of the GL example, so short frames share a span
 *    (docs/perfq-stat.md, "Statistics spans"), and a span lasts at least 100 times what its
 *    end and begin cost (span_rule.h: with several contexts on one GPU they blocked for
 *    milliseconds); every frame is in exactly one span, whose
 *    record carries how many frames it covers; then the frame's GPU timer (the layer's
 *    trustworthy timer service: the driver's timer queries where they are trustworthy, fences
 *    stamped with the CPU clock elsewhere) ends and the next frame's begins at the same point
 *    (perfq_gl_timer_end_begin: on the fence path one fence per frame);
 *  - ended frames wait in a ring of RING; on the fence path, results of frames ended at
 *    earlier swaps are read without waiting, oldest first (the timer first, then the statistics
 *    without asking their availability), and sent as FRAME_PIPELINE (at a span's last frame)
 *    and FRAME_GPU records; the swap waits for the oldest once 8 frames ended after it and it
 *    is 4 ms old, or the ring is full (frames_in_flight.h). On the query path nothing is asked:
 *    only those reads are made (asking costs the NVIDIA driver more than the read, see
 *    swap()).
 * A frame whose timer says disjoint is sent without GPU time (never an untrustworthy number).
 * At context destruction with the context current, pending frames are waited for; so they are
 * at a release (eglMakeCurrent(NONE) first, as most programs do: `leave`), where the span open
 * since the last swap also ends if the program drew nothing since that swap, and at the
 * process's exit with the context still current on the exiting thread (`leave` again, from
 * the layer's exit handler). A program that ends otherwise (_exit, a signal, its context
 * current on another thread), or draws after its last swap, leaves the last frames (8, or
 * those of its last 4 ms if more, at most RING) with only their FRAME record (counted, with
 * CPU time, without GPU results) and the open span without statistics (what follows the last
 * swap is no frame).
 *
 * Timeline mode (`perfq record`, docs/perfq-record.md) adds, per context, a GL_CONTEXT record
 * (renderer, timer path, clock error) and, per frame, its GPU interval on the CPU clock. Where the
 * timer's interval has its own begin and end stamps (perfq_gl_timer_span: the fence path, and
 * the query path's stamp points) it is [begin, end], the stamps the GPU time is computed from:
 * a context's frames share one (end_begin), so they lie back to back, never overlapping. Where
 * it is a duration only (TIME_ELAPSED), a GPU stamp after the frame's last command
 * (perfq_gl_timer_stamp) places it: [stamp - GPU time, stamp]. (Until 2026-11-29 the fence path
 * took that stamp too, a second fence per frame: on llvmpipe it was stamped up to milliseconds
 * after the frame's end fence, and about half of the frames overlapped the one before.) On the
 * fence path the stamps already are CLOCK_MONOTONIC (error: the stamp resolution). On the query
 * path they are in the driver's GL_TIMESTAMP domain: the offset to CLOCK_MONOTONIC comes from
 * glGetInteger64v(GL_TIMESTAMP) bracketed by two CPU clock reads (error: half the bracket),
 * taken at the context's first frame and again every CORRELATE_EVERY frames (clock drift);
 * stat_clock.c holds that conversion.
 */
#include "gl/gl_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stat_channel.h"
#include "gl/stat/frames_in_flight.h"
#include "gl/stat/span_rule.h"
#include "gl/stat/release_wait.h"
#include "gl/stat/stat_clock.h"

#define RING PERFQ_STAT_GL_FRAMES_IN_FLIGHT   /* frames_in_flight.h: when one is read */
#define CORRELATE_EVERY 64
#define NSTATS PERFQ_STAT_PIPE_COUNT

/* ARB_pipeline_statistics_query's targets, in perfq_stat_pipeline_statistic order. */
static const GLenum stat_targets[NSTATS] = {
    GL_VERTICES_SUBMITTED_ARB, GL_PRIMITIVES_SUBMITTED_ARB, GL_VERTEX_SHADER_INVOCATIONS_ARB,
    GL_TESS_CONTROL_SHADER_PATCHES_ARB, GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB,
    GL_GEOMETRY_SHADER_INVOCATIONS, GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB,
    GL_FRAGMENT_SHADER_INVOCATIONS_ARB, GL_COMPUTE_SHADER_INVOCATIONS_ARB,
    GL_CLIPPING_INPUT_PRIMITIVES_ARB, GL_CLIPPING_OUTPUT_PRIMITIVES_ARB,
};

struct pending {
    struct perfq_gl_timer *timer;
    struct perfq_gl_timer *stamp;         /* timeline mode: GPU time at the frame's end */
    struct perfq_gl_vquery *stats[NSTATS];  /* the span that ended with this frame, if any */
    uint64_t span_frames;                 /* its frames (0: the span goes on after this frame) */
    uint64_t index;
    uint64_t swap_ns;                     /* CPU time of its swap */
};

struct stat_ctx {
    struct pending ring[RING];
    unsigned head, count;
    struct perfq_gl_timer *timer;         /* the frame being rendered */
    struct perfq_gl_vquery *stats[NSTATS];  /* the statistics span in progress */
    uint64_t span_frames;                 /* frames ended in it so far */
    uint64_t span_start_ns;               /* CPU time it started (a swap) */
    uint64_t span_ns;                     /* the CLI's span rule (0: a span per frame) */
    uint64_t span_cost_ns;                /* CPU time the last span's end and begin took */
    uint64_t draws_at_swap;               /* the context's draw calls at the last swap */
    uint64_t waited_leave_ns;             /* when the last release that waited did (leave) */
    uint64_t frame;                       /* its index */
    uint64_t start_ns;                    /* CPU time it started */
    unsigned stat_mask;                   /* bit i: the driver runs stat_targets[i] */
    uint64_t context;                     /* perfq_gl_context.serial: records name it */
    /* timeline mode */
    int timeline;
    struct perfq_stat_clock clock;
};

static void free_stats(struct perfq_gl_context *ctx, struct perfq_gl_vquery **stats)
{
    for (int i = 0; i < NSTATS; i++) {
        perfq_gl_vquery_free(ctx, stats[i]);
        stats[i] = NULL;
    }
}

/* The statistics queries of the frame that begins (one per target the driver runs). */
static void begin_stats(struct perfq_gl_context *ctx, struct stat_ctx *s,
                        struct perfq_gl_vquery **stats)
{
    for (int i = 0; i < NSTATS; i++) {
        stats[i] = NULL;
        if (!(s->stat_mask & (1u << i)))
            continue;
        perfq_status_t st = perfq_gl_vquery_begin(ctx, stat_targets[i], 0, &stats[i]);
        if (st != PERFQ_OK) {
            stats[i] = NULL;
            if (st == PERFQ_ESYS || st == PERFQ_ENOTSUP)
                s->stat_mask &= ~(1u << i);   /* the driver refuses it: not asked again */
        }
    }
}

/* The frame's pipeline statistics: all, or NOT_READY while one is pending. Without wait only
 * the last one ended (the highest target: they end in this order) is asked whether it is
 * available; the others are read when it is (their results came before it). */
static perfq_status_t stats_result(struct perfq_gl_context *ctx, struct pending *p, int wait,
                                   struct perfq_stat_pipeline *out)
{
    int last = NSTATS - 1;
    while (last >= 0 && !p->stats[last])
        last--;
    for (int k = 0; k <= last; k++) {
        int i = k == 0 ? last : k - 1;    /* the last one first */
        if (!p->stats[i])
            continue;
        uint64_t v = 0;
        perfq_status_t st = perfq_gl_vquery_result(ctx, p->stats[i], wait, &v);
        if (st == PERFQ_NOT_READY)
            return st;
        if (st == PERFQ_OK) {
            out->mask |= 1u << i;
            out->value[i] = v;
            wait = 1;   /* the others ended before it: their results are in */
        }
    }
    return PERFQ_OK;
}

/* Sends the oldest pending frame's results if available (or wait). 1 when it went. The timer
 * is asked first: its point (the frame's end fence, or the end of its TIME_ELAPSED query) comes
 * after the statistics queries' ends, so once it is ready the statistics are read without
 * asking each one's availability. On the fence path its fence signalled: every command before
 * it completed, those ends included. On the query path its TIME_ELAPSED is available, which
 * GL says of the queries issued before it too ("GL_TRUE ... indicates that the results of all
 * previous queries are available as well", glGetQueryObject); a driver that orders them per
 * type only would make the read wait for a result due at once, never make it inexact. */
static int drain_one(struct perfq_gl_context *ctx, struct stat_ctx *s, int wait)
{
    struct pending *p = &s->ring[s->head];
    uint64_t ns = 0;
    perfq_status_t ts = p->timer ? perfq_gl_timer_result(ctx, p->timer, wait, &ns) : PERFQ_ENOTSUP;
    if (ts == PERFQ_NOT_READY)
        return 0;
    uint64_t stamp = 0;
    perfq_status_t ss = p->stamp ? perfq_gl_timer_result(ctx, p->stamp, wait, &stamp)
                                 : PERFQ_ENOTSUP;
    if (ss == PERFQ_NOT_READY)
        return 0;
    struct perfq_stat_pipeline pipe;
    memset(&pipe, 0, sizeof(pipe));
    if (stats_result(ctx, p, wait || ts == PERFQ_OK, &pipe) == PERFQ_NOT_READY)
        return 0;
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_FRAME_GPU;
    r.a = s->context;
    r.b = p->index;
    if (ts == PERFQ_OK && !perfq_gl_timer_disjoint(p->timer)) {
        r.flags |= PERFQ_STAT_HAS_GPU_TIME;
        r.c = ns;
        uint64_t err = 0, begin = 0, end = 0;
        if (perfq_stat_clock_span(&s->clock, p->timer, &begin, &end, &err) != 0) {
            /* A duration only (TIME_ELAPSED): it ends at the stamp taken after it. */
            end = ss == PERFQ_OK && !perfq_gl_timer_disjoint(p->stamp)
                      ? perfq_stat_clock_to_cpu(&s->clock, stamp, &err) : 0;
            begin = end > ns ? end - ns : 0;
        }
        if (begin && end >= begin) {
            r.flags |= PERFQ_STAT_HAS_INTERVAL;
            r.g0 = begin;
            r.g1 = end;
            r.t0 = err;
        }
    }
    if (pipe.mask) {
        struct perfq_stat_record pr;
        pipe.kind = PERFQ_STAT_FRAME_PIPELINE;
        pipe.context = s->context;
        pipe.frame = p->index;
        pipe.frames = p->span_frames;
        memcpy(&pr, &pipe, sizeof(pr));
        perfq_stat_channel_send(&pr);
    }
    perfq_stat_channel_send(&r);
    perfq_gl_timer_free(ctx, p->timer);
    perfq_gl_timer_free(ctx, p->stamp);
    free_stats(ctx, p->stats);
    s->head = (s->head + 1) % RING;
    s->count--;
    return 1;
}

static void *created(const struct perfq_gl_scope_object *at)
{
    struct stat_ctx *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;   /* this context is then not measured; the program goes on */
    s->context = at->ctx->serial;   /* a handle may be reused */
    for (int i = 0; i < NSTATS && perfq_stat_channel_pipeline_stats(); i++)
        if (perfq_gl_vquery_target_supported(at->ctx, stat_targets[i]))
            s->stat_mask |= 1u << i;
    s->timeline = perfq_stat_channel_timeline();
    s->span_ns = perfq_stat_channel_stats_span_ns();
    if (s->timeline)
        perfq_stat_clock_init(&s->clock, at->ctx);
    /* Frame 0 starts after the clock's set-up (which may decide the timer path: a self-check
     * of up to seconds on a loaded machine), so that the announcement below leaves at once
     * after its t0: perfq record's reorder window holds from t0 only when it arrives, and
     * other threads' events written meanwhile would otherwise precede it in the file. */
    s->start_ns = perfq_gl_now_ns();
    s->span_start_ns = s->start_ns;
    if (s->timeline) {
        struct perfq_stat_record r;
        memset(&r, 0, sizeof(r));
        r.kind = PERFQ_STAT_GL_CONTEXT;
        r.a = s->context;
        r.b = (uint64_t)s->clock.path;
        r.c = perfq_stat_clock_error(&s->clock);
        r.t0 = s->start_ns;
        snprintf(r.name, sizeof(r.name), "%s", at->ctx->renderer ? at->ctx->renderer : "");
        perfq_stat_channel_send(&r);
    }
    begin_stats(at->ctx, s, s->stats);
    if (perfq_gl_timer_begin(at->ctx, &s->timer) != PERFQ_OK)
        s->timer = NULL;
    return s;
}

static void swap(struct perfq_gl_context *ctx, void *data)
{
    struct stat_ctx *s = data;
    if (!s)
        return;
    uint64_t now = perfq_gl_now_ns();
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_FRAME;
    r.a = s->context;
    r.b = s->frame;
    r.c = now - s->start_ns;
    r.t0 = s->start_ns;
    r.t1 = now;
    perfq_stat_channel_send(&r);

    /* This frame ends and the next begins at one point, in this order: the statistics queries
     * end and the next frame's begin, then the timer ends and the next one begins at once
     * (perfq_gl_timer_end_begin: on the fence path one fence is both). So all of it goes to
     * the driver with that fence's flush: on Mesa's llvmpipe, one scene per frame, as without
     * perfq. Before, a frame had two fences, its begin right after the previous frame's end
     * (two syncs, two flushes, two wakes of the helper thread), and the queries began after
     * the second one: they made a scene of their own, flushed at the program's next texture
     * upload (llvmpipe flushes, and waits for, what may use a bound texture), waking the
     * rasterizer threads twice a frame. The next frame's statistics begin before the timer's
     * point: they count commands, and there is none between. The timer ends last, so that its
     * result tells the statistics' are in (drain_one). The statistics end only where their span
     * has lasted at least span_ns (CPU time, swap to swap): a frame that long alone is a span
     * of its own, shorter ones share one. */
    s->span_frames++;
    int span_ends = now - s->span_start_ns >= perfq_gl_span_min_ns(s->span_ns, s->span_cost_ns);
    struct perfq_gl_vquery *next_stats[NSTATS];
    if (span_ends) {
        for (int i = 0; i < NSTATS; i++)
            if (s->stats[i])
                perfq_gl_vquery_end(ctx, s->stats[i]);
        begin_stats(ctx, s, next_stats);
        s->span_cost_ns = perfq_gl_now_ns() - now;
    }
    struct perfq_gl_timer *next_timer = NULL;
    if (s->timer)
        perfq_gl_timer_end_begin_swap(ctx, s->timer, &next_timer);
    else if (perfq_gl_timer_begin(ctx, &next_timer) != PERFQ_OK)
        next_timer = NULL;
    struct perfq_gl_timer *stamp = NULL;
    /* The stamp that places a duration; an interval with its own stamps needs none (its begin
     * is the previous frame's end: frames on the timeline are back to back). */
    if (s->timeline && s->timer && !perfq_gl_timer_has_span(ctx) &&
        perfq_gl_timer_stamp(ctx, &stamp) != PERFQ_OK)
        stamp = NULL;
    if (s->timeline && s->frame % CORRELATE_EVERY == CORRELATE_EVERY - 1)
        perfq_stat_clock_correlate(&s->clock, ctx);
    while (s->count && perfq_gl_frames_read_oldest(s->count, now - s->ring[s->head].swap_ns)) {
        if (drain_one(ctx, s, 0))
            continue;
        if (!perfq_gl_frames_wait_oldest(s->count) || !drain_one(ctx, s, 1))
            break;
    }
    /* On the query path only the oldest frame is asked about (above), once 8 frames ended
     * after it and it ended 4 ms ago, or 128 frames after its end (frames_in_flight.h); it is
     * waited for only when 128 are pending. On the NVIDIA driver (H200,
     * docs/gl-layer-performance.md "The frame's timer: query buffer objects and the reads") the
     * first question about a frame's query costs 2.9 us when the answer is no (it seems to
     * submit the frame's commands), and a frame 128 swaps old is done, its read 0.16 us. Until
     * 2026-11-28 that frame was read waiting (1.7 us for a frame 8 swaps old, 1.2 us a frame
     * less than asking, on one context): with several contexts taking turns on the GPU the wait
     * lasted until the GPU came back to the context, milliseconds a frame (frames_in_flight.h).
     * On the fence path, frames ended at earlier swaps only: their commands went to the driver
     * with those swaps. Asking about the frame just ended (nothing of it can be ready yet)
     * would make a driver flush there (Mesa's llvmpipe: a second scene a frame, waking every
     * rasterizer thread). */
    if (perfq_gl_timer_path(ctx) != PERFQ_GL_TIMER_QUERY)
        while (s->count && drain_one(ctx, s, 0))
            ;
    struct pending *p = &s->ring[(s->head + s->count) % RING];
    p->timer = s->timer;
    p->stamp = stamp;
    p->swap_ns = now;
    if (span_ends) {
        memcpy(p->stats, s->stats, sizeof(p->stats));
        p->span_frames = s->span_frames;
        memcpy(s->stats, next_stats, sizeof(s->stats));
        s->span_frames = 0;
        s->span_start_ns = now;
    } else {
        memset(p->stats, 0, sizeof(p->stats));
        p->span_frames = 0;
    }
    p->index = s->frame;
    s->draws_at_swap = perfq_gl_context_own_draw_calls(ctx);
    s->count++;
    s->frame++;
    s->start_ns = now;
    s->timer = next_timer;
}

/* The context is released (eglMakeCurrent to no context, eglReleaseThread; most programs do
 * this before eglDestroyContext, which then finds it not current and can read nothing): the
 * last GL calls this front end can make in it. The span open since the last swap would have no
 * statistics (what follows the last swap is no frame): if the program drew nothing since that
 * swap, it ends here, at the same point in the command stream as at the swap, so its counts
 * are exactly its frames' (a draw since then: it is left open, never given commands of no
 * frame), and the next begins; then the pending frames are waited for, so the last frames get
 * their GPU time and statistics. A program that hands its context from thread to thread every
 * frame releases it every frame: only a release a second or more after the last one that
 * waited does this (the others read what is ready), so such a program does not wait for the
 * GPU each frame and keeps its spans. The last moment the context is usable (destroyed while
 * current and leaving now, or the process exiting with it current: PERFQ_GL_LEAVE_FINAL)
 * always does: after it the pending frames could only go without results. */
static void leave(struct perfq_gl_context *ctx, void *data, int released)
{
    struct stat_ctx *s = data;
    if (!s || !released)
        return;
    uint64_t now = perfq_gl_now_ns();
    if (released != PERFQ_GL_LEAVE_FINAL && !perfq_gl_release_waits(&s->waited_leave_ns, now)) {
        while (s->count && drain_one(ctx, s, 0))
            ;
        return;
    }
    if (s->span_frames && s->count &&
        perfq_gl_context_own_draw_calls(ctx) == s->draws_at_swap) {
        struct pending *last = &s->ring[(s->head + s->count - 1) % RING];
        if (!last->span_frames) {
            for (int i = 0; i < NSTATS; i++)
                if (s->stats[i])
                    perfq_gl_vquery_end(ctx, s->stats[i]);
            memcpy(last->stats, s->stats, sizeof(last->stats));
            last->span_frames = s->span_frames;
            begin_stats(ctx, s, s->stats);
            s->span_frames = 0;
            s->span_start_ns = now;
        }
    }
    while (s->count && drain_one(ctx, s, 1))
        ;
}

static void destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    struct stat_ctx *s = data;
    if (!s)
        return;
    struct perfq_gl_context *ctx = at->ctx;
    /* Current here: wait for every pending frame. Not current: no GL call may be made, so the
     * pending frames (at most RING) stay CPU-only: counted as frames, without GPU results. */
    while (gl_usable && s->count && drain_one(ctx, s, 1))
        ;
    while (s->count) {
        struct pending *p = &s->ring[s->head];
        perfq_gl_timer_free(ctx, p->timer);
        perfq_gl_timer_free(ctx, p->stamp);
        free_stats(ctx, p->stats);
        s->head = (s->head + 1) % RING;
        s->count--;
    }
    /* The commands after the last swap are no frame. */
    perfq_gl_timer_free(ctx, s->timer);
    free_stats(ctx, s->stats);
    free(s);
}

static const struct perfq_gl_observers observers = {.swap = swap, .leave = leave};

static const struct perfq_gl_frontend stat_frontend = {
    .name = "perfq-stat-frames",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = created,
    .destroyed = destroyed,
    .observers = &observers,
};

__attribute__((constructor)) static void register_stat_frames(void)
{
    if (perfq_stat_channel_active())
        perfq_gl_register_frontend(&stat_frontend);
}
