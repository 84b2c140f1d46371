/*
 * `perfq stat --layers --per-draw`: every draw call of every context, timed on the GPU and
 * counted (vertices, primitives), sent to the CLI through the stat channel
 * (src/core/stat_channel.h, docs/perfq-stat.md). Registered only when the CLI asked for it
 * (PERFQ_STAT_PAGE_PER_DRAW in the channel's page): otherwise there is no draw_begin observer
 * and the draw wrappers pay one test of a global, as before.
 *
 * Around each glDraw* the program makes (draw_begin: just before the real call; draw: just
 * after it; a draw GL refuses with an error is neither counted nor timed):
 *  - a trustworthy GPU timer (the layer's timer service: the driver's TIME_ELAPSED queries where
 *    they are trustworthy, else two fences per draw stamped with CLOCK_MONOTONIC by the helper
 *    thread: on the fence path, Mesa llvmpipe, that is the honest cost of a GPU time per draw);
 *  - GL_VERTICES_SUBMITTED_ARB and GL_PRIMITIVES_SUBMITTED_ARB through the query-virtualisation
 *    service, so the program's own queries and the frame's vertex query stay exact.
 * Ended draws wait in a ring of RING; results are read without waiting, oldest first, after
 * each draw and at each swap, of draws of earlier frames (drain_ready says why); only a full
 * ring makes a draw wait for the oldest. A disjoint timer
 * sends the draw without GPU time. At each swap a FRAME_DRAWS record gives the frame's draw count.
 * At a release (eglMakeCurrent to no context first, as most programs do) the pending draws are
 * waited for (leave). A context destroyed while not current (no GL call allowed) sends its
 * pending draws without results, so the draw count stays exact.
 *
 * Timeline mode too (`perfq record --per-draw`): the draw's GPU interval on the CPU clock, as
 * the frames are placed (stat_frames.c, stat_clock.c): [begin, end] from its timer's own stamps
 * where it has them (perfq_gl_timer_span: the fence path's two fences, the query path's stamp
 * points), else [stamp - GPU time, stamp] with a GPU stamp after the draw (a third timer object
 * per draw, TIME_ELAPSED only), sent in the DRAW record (flag INTERVAL: g0, g1, t0 = the
 * error). The offset of the query path is measured again every CORRELATE_EVERY draws.
 */
#include "gl/gl_layer.h"

#include <stdlib.h>
#include <string.h>

#include "core/stat_channel.h"
#include "gl/stat/release_wait.h"
#include "gl/stat/stat_clock.h"

#define RING 256
#define CORRELATE_EVERY 1024

struct draw {
    struct perfq_gl_timer *timer;
    struct perfq_gl_timer *stamp;   /* timeline mode: GPU time at the draw's end */
    struct perfq_gl_vquery *vertices, *primitives;
    uint64_t frame;
    const char *function;       /* a string literal of the wrapper */
};

struct draw_ctx {
    struct draw ring[RING];
    unsigned head, count;
    struct draw cur;            /* between draw_begin and draw */
    int in_draw;
    uint64_t context, frame, draws_in_frame;   /* context: perfq_gl_context.serial */
    int count_vertices, count_primitives;
    int timeline;
    uint64_t draws;             /* every draw so far (the next correlation) */
    uint64_t waited_leave_ns;   /* when a release last waited for the pending draws */
    struct perfq_stat_clock clock;
};

static void draw_free(struct perfq_gl_context *ctx, struct draw *d)
{
    perfq_gl_timer_free(ctx, d->timer);
    perfq_gl_timer_free(ctx, d->stamp);
    perfq_gl_vquery_free(ctx, d->vertices);
    perfq_gl_vquery_free(ctx, d->primitives);
    memset(d, 0, sizeof(*d));
}

/* The draw's GPU interval on the CPU clock, in timeline mode (g0, g1, t0 of the record). */
struct interval {
    uint64_t begin, end, err;
};

static void send_draw(const struct draw_ctx *s, const struct draw *d, uint16_t flags, uint64_t ns,
                      uint64_t vertices, uint64_t primitives, const struct interval *at)
{
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    if (at) {
        flags |= PERFQ_STAT_HAS_INTERVAL;
        r.g0 = at->begin;
        r.g1 = at->end;
        r.t0 = at->err;
    }
    r.kind = PERFQ_STAT_DRAW;
    r.flags = flags;
    r.a = s->context;
    r.b = d->frame;
    r.c = ns;
    r.d = vertices;
    r.t1 = primitives;
    size_t n = strlen(d->function);
    memcpy(r.name, d->function, n < sizeof(r.name) - 1 ? n : sizeof(r.name) - 1);
    perfq_stat_channel_send(&r);
}

/* Sends the oldest pending draw's results if available (or waits). 1 when it went. The timer
 * ends after the draw's queries (draw_end), so it is asked first, and once it is ready the
 * queries are read without asking their availability (stat_frames.c's drain_one says why);
 * without a timer the primitives query (ended last) is asked, then the vertices query read. */
static int drain_one(struct perfq_gl_context *ctx, struct draw_ctx *s, int wait)
{
    struct draw *d = &s->ring[s->head];
    uint64_t ns = 0, v = 0, p = 0;
    perfq_status_t ts = d->timer ? perfq_gl_timer_result(ctx, d->timer, wait, &ns) : PERFQ_ENOTSUP;
    if (ts == PERFQ_NOT_READY)
        return 0;
    uint64_t stamp = 0;
    perfq_status_t ss = d->stamp ? perfq_gl_timer_result(ctx, d->stamp, wait, &stamp)
                                 : PERFQ_ENOTSUP;
    if (ss == PERFQ_NOT_READY)
        return 0;
    int known = wait || ts == PERFQ_OK;
    perfq_status_t ps = d->primitives ? perfq_gl_vquery_result(ctx, d->primitives, known, &p)
                                      : PERFQ_ENOTSUP;
    if (ps == PERFQ_NOT_READY)
        return 0;
    known = known || ps == PERFQ_OK;
    perfq_status_t vs = d->vertices ? perfq_gl_vquery_result(ctx, d->vertices, known, &v)
                                    : PERFQ_ENOTSUP;
    if (vs == PERFQ_NOT_READY)
        return 0;
    uint16_t flags = 0;
    struct interval at, *placed = NULL;
    if (ts == PERFQ_OK && !perfq_gl_timer_disjoint(d->timer)) {
        flags |= PERFQ_STAT_HAS_GPU_TIME;
        at.err = 0;
        if (perfq_stat_clock_span(&s->clock, d->timer, &at.begin, &at.end, &at.err) != 0) {
            /* A duration only (TIME_ELAPSED): it ends at the stamp taken after it; a stamp
             * that is disjoint or late (the timer service's rules) places nothing. */
            at.end = ss == PERFQ_OK && !perfq_gl_timer_disjoint(d->stamp)
                         ? perfq_stat_clock_to_cpu(&s->clock, stamp, &at.err) : 0;
            at.begin = at.end > ns ? at.end - ns : 0;
        }
        if (at.begin && at.end >= at.begin)
            placed = &at;
    }
    if (vs == PERFQ_OK)
        flags |= PERFQ_STAT_HAS_VERTICES;
    if (ps == PERFQ_OK)
        flags |= PERFQ_STAT_HAS_PRIMITIVES;
    send_draw(s, d, flags, ns, v, p, placed);
    draw_free(ctx, d);
    s->head = (s->head + 1) % RING;
    s->count--;
    return 1;
}

/* Sends what is ready, oldest first, without waiting, asking only about draws of earlier
 * frames (the swaps sent their commands to the driver) while the ring is less than half full:
 * asking about a draw the driver has not been sent makes it flush there (glGetQueryObject's
 * QUERY_RESULT_AVAILABLE must eventually become true), a submission per draw. Past half, the
 * oldest is asked (one flush per RING / 2 draws of a long frame), so a full ring stays rare. */
static void drain_ready(struct perfq_gl_context *ctx, struct draw_ctx *s)
{
    while (s->count && (s->ring[s->head].frame < s->frame || s->count >= RING / 2) &&
           drain_one(ctx, s, 0))
        ;
}

static void *created(const struct perfq_gl_scope_object *at)
{
    struct draw_ctx *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;   /* this context's draws are then not measured; the program goes on */
    s->context = at->ctx->serial;   /* a handle may be reused */
    s->count_vertices = perfq_gl_vquery_target_supported(at->ctx, GL_VERTICES_SUBMITTED_ARB);
    s->count_primitives = perfq_gl_vquery_target_supported(at->ctx, GL_PRIMITIVES_SUBMITTED_ARB);
    s->timeline = perfq_stat_channel_timeline();
    if (s->timeline)
        perfq_stat_clock_init(&s->clock, at->ctx);
    return s;
}

static void draw_begin(struct perfq_gl_context *ctx, void *data, const char *function)
{
    struct draw_ctx *s = data;
    if (!s)
        return;
    if (s->in_draw)
        draw_free(ctx, &s->cur);   /* never seen: a begin whose draw did not come */
    s->in_draw = 1;
    s->cur.frame = s->frame;
    s->cur.function = function;
    if (s->count_vertices &&
        perfq_gl_vquery_begin(ctx, GL_VERTICES_SUBMITTED_ARB, 0, &s->cur.vertices) != PERFQ_OK)
        s->cur.vertices = NULL;
    if (s->count_primitives &&
        perfq_gl_vquery_begin(ctx, GL_PRIMITIVES_SUBMITTED_ARB, 0, &s->cur.primitives) != PERFQ_OK)
        s->cur.primitives = NULL;
    /* The timer last, closest to the draw. */
    if (perfq_gl_timer_begin(ctx, &s->cur.timer) != PERFQ_OK)
        s->cur.timer = NULL;
    perfq_gl_program_call_begin(ctx);   /* what the draw raises is then its own (draw_end) */
}

static void draw_end(struct perfq_gl_context *ctx, void *data, const char *function)
{
    struct draw_ctx *s = data;
    (void)function;
    if (!s || !s->in_draw)
        return;
    s->in_draw = 0;
    /* A draw GL refused (it raised an error: "the command generating the error is ignored")
     * drew nothing: neither counted nor timed. Its error stays the program's. */
    int refused = perfq_gl_program_call_end(ctx) != GL_NO_ERROR;
    /* The queries end first, the timer last (begun the other way round): its result tells
     * theirs are in (drain_one). */
    if (s->cur.vertices)
        perfq_gl_vquery_end(ctx, s->cur.vertices);
    if (s->cur.primitives)
        perfq_gl_vquery_end(ctx, s->cur.primitives);
    if (s->cur.timer)
        perfq_gl_timer_end(ctx, s->cur.timer);
    if (refused) {
        draw_free(ctx, &s->cur);
        return;
    }
    if (s->timeline && s->cur.timer && !perfq_gl_timer_has_span(ctx) &&
        perfq_gl_timer_stamp(ctx, &s->cur.stamp) != PERFQ_OK)
        s->cur.stamp = NULL;
    if (s->timeline && ++s->draws % CORRELATE_EVERY == 0)
        perfq_stat_clock_correlate(&s->clock, ctx);
    s->draws_in_frame++;
    if (s->count == RING && !drain_one(ctx, s, 1)) {
        /* Never expected (a waited result is ready); the ring must not overflow: the oldest
         * draw goes without results, still counted. */
        struct draw *d = &s->ring[s->head];
        send_draw(s, d, 0, 0, 0, 0, NULL);
        draw_free(ctx, d);
        s->head = (s->head + 1) % RING;
        s->count--;
    }
    s->ring[(s->head + s->count) % RING] = s->cur;
    s->count++;
    memset(&s->cur, 0, sizeof(s->cur));
    drain_ready(ctx, s);
}

static void swap(struct perfq_gl_context *ctx, void *data)
{
    struct draw_ctx *s = data;
    if (!s)
        return;
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_FRAME_DRAWS;
    r.a = s->context;
    r.b = s->frame;
    r.c = s->draws_in_frame;
    perfq_stat_channel_send(&r);
    drain_ready(ctx, s);
    s->frame++;
    s->draws_in_frame = 0;
}

static void destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    struct draw_ctx *s = data;
    if (!s)
        return;
    struct perfq_gl_context *ctx = at->ctx;
    /* Current here: wait for every pending draw. Not current: no GL call may be made, so the
     * pending draws go without results (counted, never lost). */
    while (gl_usable && s->count && drain_one(ctx, s, 1))
        ;
    while (s->count) {
        struct draw *d = &s->ring[s->head];
        send_draw(s, d, 0, 0, 0, 0, NULL);
        draw_free(ctx, d);
        s->head = (s->head + 1) % RING;
        s->count--;
    }
    if (s->in_draw)
        draw_free(ctx, &s->cur);
    free(s);
}

/* The context is released (eglMakeCurrent to no context, eglReleaseThread; most programs do
 * this before eglDestroyContext, which then finds it not current and can make no GL call): the
 * pending draws are waited for, so the last frame's draws get their GPU time and counts too
 * (before, those of the last frame or two went without). Not at every release of a program
 * that hands its context between threads: the frames' rule (release_wait.h). */
static void leave(struct perfq_gl_context *ctx, void *data, int released)
{
    struct draw_ctx *s = data;
    if (!s || !released || !s->count)
        return;
    int wait = released == PERFQ_GL_LEAVE_FINAL ||
               perfq_gl_release_waits(&s->waited_leave_ns, perfq_gl_now_ns());
    while (s->count && drain_one(ctx, s, wait))
        ;
}

static const struct perfq_gl_observers observers = {
    .leave = leave,
    .draw_begin = draw_begin,
    .draw = draw_end,
    .swap = swap,
};

static const struct perfq_gl_frontend stat_draws_frontend = {
    .name = "perfq-stat-draws",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = created,
    .destroyed = destroyed,
    .observers = &observers,
};

__attribute__((constructor)) static void register_stat_draws(void)
{
    if (perfq_stat_channel_per_draw())
        perfq_gl_register_frontend(&stat_draws_frontend);
}
