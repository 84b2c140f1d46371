/*
 * perfq record's tracks (docs/perfq-record.md):
 *  - each thread of CMD (and of its children) that renders or enqueues: its frames (CPU time
 *    from swap to swap) and its OpenCL enqueue calls, on its own (pid, tid) track;
 *  - each device a "process" of its own (pid DEVICE_PID + n, named after GL_RENDERER or
 *    CL_DEVICE_NAME) with one track per GL context and per OpenCL queue on it: the GPU
 *    intervals of frames and commands, on the CPU clock; with --per-draw, beside each context's
 *    track a second one with the GPU interval of each draw call (on a track of its own, so that
 *    a draw placed with its clock error never straddles a frame's slice);
 *  - counter tracks: vertices per frame (per context, on the device), host counters (cmd_record).
 *
 * OpenCL clocks: a command's QUEUED time (device clock) is taken by the driver inside the
 * enqueue call, which the layer brackets with two CPU clock reads t0 <= t1, so the offset
 * device - CPU lies in [QUEUED - t1, QUEUED - t0]. Each queue keeps the intersection of these
 * ranges over its commands; the midpoint converts START and END to the CPU clock, half the width
 * is the error (written with each interval as clock_error_ns). An empty intersection (clocks
 * that drift, a driver that stamps QUEUED outside the call) restarts from the latest command.
 *
 * The reorder window's hold (trace_hold): a GL context holds it from the start of its oldest
 * frame whose events may still come, an OpenCL queue from the start of the oldest enqueue call
 * whose command has not come (the layer reads a command's times at the program's blocking
 * calls, possibly seconds after it ran). A command's interval never begins before its call's
 * t0, the time its queue holds from: the offset used is at most QUEUED - t0 of that command
 * (the intersection includes its range), and START >= QUEUED, so START - offset >= t0.
 */
#include "record_timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/stat_channel.h"
#include "stat_collect.h"
#include "stat_keys.h"

#define DEVICE_PID 0x40000000u
#define MAX_DEVICES 64
/* A context's draws track: its own track's tid (1 to STAT_KEYS_MAX) plus this. */
#define DRAWS_TID_OFFSET STAT_KEYS_MAX

struct device {
    char name[64];
    int is_cl;
};

/* At least the frames the GL layer keeps waiting for results (a power of two) */
#define PENDING_STARTS 256
_Static_assert(PENDING_STARTS >= PERFQ_STAT_GL_FRAMES_IN_FLIGHT, "a start for every frame in flight");
/* OpenCL enqueue calls whose command has not come, over all queues: 1 MiB. Calls past it do
 * not hold the window (their commands may then be written out of order, counted). */
#define MAX_CL_WAITS 65536

/* An OpenCL enqueue call waiting for its command's record: its CPU start (0: the command came,
 * a hole left until it reaches the front), and the earliest start of it and every later call
 * of its queue (so the oldest call's entry holds for the whole queue, whatever order calls of
 * several threads arrived in). */
struct cl_wait {
    uint64_t t0, hold;
};

/* A context's or queue's track: its key is CMD's process that owns it, its handle, and 1 for an
 * OpenCL queue (0 for a GL context). */
struct gpu_track {
    struct stat_key key;
    uint32_t device;            /* index into devices */
    uint32_t tid;               /* track id in the device's process */
    /* OpenCL: the device - CPU clock offset range */
    int have_range;
    int64_t lo, hi;
    uint64_t resets;
    uint64_t gl_error_ns;       /* GL: the context's stated clock error */
    int draws_named;            /* GL: its draws' track (tid + DRAWS_TID_OFFSET) is named */
    uint64_t open_since;        /* GL: when its frame in progress began (CLOCK_MONOTONIC ns) */
    uint64_t frame_end, draw_end;   /* GL: the end of the last frame, draw placed on its track */
    /* GL: frames whose GPU record has not come yet (the layer reads results up to
     * PERFQ_STAT_GL_FRAMES_IN_FLIGHT frames later): their starts, by frame index modulo
     * PENDING_STARTS (allocated at its first frame, freed when its process is found gone: a
     * gone track keeps about 200 bytes, so that a run of a million contexts stays bounded). */
    uint64_t frames_sent, gpu_done;
    uint64_t *pending_start;
    /* OpenCL: the calls whose command has not come, oldest first: a ring of waits_cap (a power
     * of two) from waits_head, waits_n entries, waits_done of them holes. */
    struct cl_wait *waits;
    size_t waits_head, waits_n, waits_cap, waits_done;
    /* Its process: 0 alive (as far as known), 1 found gone (what it sent is in the ring and read
     * by the next drain), 2 gone: it holds nothing (timeline_tick) and leaves the live list. */
    int gone;
    /* GL: the newest statistics span's vertices, placed at its last frame's GPU end (its
     * FRAME_PIPELINE record comes just before that frame's FRAME_GPU) */
    int span_valid;
    uint64_t span_frame, span_frames, span_vertices;
    /* OpenCL: whether the queue executes out of order (its CL_QUEUE record's properties), the
     * end of its last command placed (in order), and an out-of-order queue's lanes (made at its
     * first command, freed when its process is found gone). */
    int out_of_order;
    uint64_t cl_end;
    struct cl_lanes *lanes;
    struct cl_history *history;   /* an in-order queue's recent intervals (cl_place) */
    /* OpenCL: commands not placed yet, oldest first (cl_interval: placed once the queue's clock
     * estimate is good, UNPLACED_MAX of them, or UNPLACED_MAX_NS after the first), with the
     * CLOCK_MONOTONIC time the first was kept. Their calls still hold the window. */
    struct perfq_stat_record *unplaced;
    size_t unplaced_n, unplaced_cap;
    uint64_t unplaced_since;
    int waiting;                /* in the timeline's waiting list */
};

/* A queue's first commands come with a poor clock estimate: the offset range is as wide as the
 * first enqueue calls were long (87 ms for a first write on PoCL under load), and a command
 * placed with its midpoint may lie milliseconds from where it ran. The commands after it,
 * placed with a narrower estimate, then began before its end and were moved behind it: an
 * outside probe (2026-11-30) saw 999 of 1000 commands of one in-order queue squashed to 0 ns
 * and moved by up to 43 ms, each saying an error of 0.3-3.6 us; a second one, after a first
 * fix that placed them one by one once the error was under 100 us, still saw 341-390 ns
 * commands squashed behind a first one placed with a 20 us error. So a queue's commands are
 * placed together, with the estimate of the latest: at the end of each drain of the channel
 * (timeline_round_end) once the estimate's error (half the range) is under UNPLACED_ERROR_NS,
 * once UNPLACED_MAX wait, UNPLACED_MAX_NS after the first waited (timeline_tick), and at the
 * end. A drain reads what the layer sent at once (a batch of completed commands), so that
 * commands that ran together get one estimate, and the next batch's is at least as good. */
#define UNPLACED_ERROR_NS 100000u
#define UNPLACED_MAX 256
#define UNPLACED_MAX_NS 1000000000ull

/* An out-of-order queue runs commands at once, and slices on one track must nest or be
 * disjoint: its commands go on up to CL_LANES tracks, each on the first whose last command has
 * ended by its start (lane 0 is the queue's own track, lane k's track id its id + (k + 1) *
 * STAT_KEYS_MAX, past the draws' tracks). Where none has, it goes on the lane that ends first,
 * begun there (counted in gpu_intervals_moved). */
#define CL_LANES 8
struct cl_lanes {
    uint64_t end[CL_LANES];
    int named[CL_LANES];
};

/* An in-order queue's intervals placed in the last CL_HISTORY_NS (at most CL_HISTORY_MAX),
 * sorted by begin, disjoint. A command that comes after later ones of its queue (a thread of
 * the program held between its enqueue call and the layer's record of it while other threads'
 * later commands ran and were read: 3.7 and 22 ms on the development machine, 4 threads on one
 * queue) is placed where it ran, in the gap between them, where that overlaps none of them;
 * until 2026-11-30 it was moved behind the last one, squashed to 0 ns. */
#define CL_HISTORY_NS TRACE_HORIZON_NS
#define CL_HISTORY_MAX 16384
struct cl_interval {
    uint64_t begin, end;
};
struct cl_history {
    struct cl_interval *iv;
    size_t head, n, cap;     /* iv[head .. n) */
    int forgot;              /* an interval was forgotten (or could not be kept) */
};

/* A named process (tid 0) or thread. A process keeps its short name, its comm (the kernel's:
 * 15 bytes), for its threads whose own comm is gone by the time they are named (a thread that
 * ended before the drain read its first record). */
struct named {
    struct stat_key key;        /* pid, handle: tid (0: the process) */
    char comm[16];
};

/* A thread's own track holds the CPU frames of the first context it swapped; each other context
 * it swaps gets a lane of its own in the process (frame_track). */
struct frame_thread {
    struct stat_key key;        /* pid, tid */
    uint64_t context;
};
struct frame_lane {
    struct stat_key key;        /* pid, tid, context (as id) */
    uint32_t tid;               /* the lane's track */
};
/* Lanes' track ids: above any thread id (pid_max is at most 2^22). */
#define FRAME_LANE_TID 0x20000000u

struct timeline {
    struct trace *trace;
    pthread_mutex_t lock;       /* named processes and threads */
    struct device devices[MAX_DEVICES];
    size_t n_devices;
    /* Every context and queue seen, in order of first sight (a track's tid is its position + 1):
     * as many as a run brings, up to STAT_KEYS_MAX (past that their events are unmatched). */
    struct stat_keys tracks;
    /* Positions of the tracks whose process is not known gone (gone != 2): the trace's hold
     * and the ticks look at these only, so that a test suite's thousands of ended programs
     * cost nothing per record. */
    uint32_t *live;
    size_t n_live, live_cap;
    struct stat_keys named;     /* struct named: named processes (tid 0) and threads */
    /* CPU frames (frame_track): the context whose frames go on each thread's own track, and
     * the lane of each other context that thread swaps */
    struct stat_keys frame_threads, frame_lanes;
    uint32_t n_frame_lanes;
    uint64_t gpu_intervals, cpu_events, unmatched, clock_resets;
    uint64_t draws, draw_intervals;
    uint64_t clamped;           /* GPU intervals whose start was moved to their track's last end */
    uint64_t newest;            /* the latest swap or enqueue call seen (CLOCK_MONOTONIC ns) */
    size_t cl_waits;            /* entries in every queue's waits */
    /* Positions of the queues with commands waiting to be placed (cl_interval) */
    uint32_t *waiting_tracks;
    size_t n_waiting, waiting_cap;
};

struct timeline *timeline_open(struct trace *t)
{
    struct timeline *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return NULL;
    tl->trace = t;
    stat_keys_init(&tl->tracks, sizeof(struct gpu_track));
    stat_keys_init(&tl->named, sizeof(struct named));
    stat_keys_init(&tl->frame_threads, sizeof(struct frame_thread));
    stat_keys_init(&tl->frame_lanes, sizeof(struct frame_lane));
    pthread_mutex_init(&tl->lock, NULL);
    return tl;
}

static struct gpu_track *track_at(const struct timeline *tl, size_t position)
{
    return stat_keys_at(&tl->tracks, position);
}

/* Appends a track's position to a growable list (the live list, the waiting list). 0, or -1
 * when memory runs out. */
static int positions_add(uint32_t **list, size_t *n, size_t *cap, size_t position)
{
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 64;
        uint32_t *grown = realloc(*list, grown_cap * sizeof(*grown));
        if (!grown)
            return -1;
        *list = grown;
        *cap = grown_cap;
    }
    (*list)[(*n)++] = (uint32_t)position;
    return 0;
}

/* The track in position joins the live list. 0, or -1 when memory runs out (it then holds
 * nothing, as a gone one). */
static int live_add(struct timeline *tl, size_t position)
{
    return positions_add(&tl->live, &tl->n_live, &tl->live_cap, position);
}

/* A GL context's frame in progress began at t (its announcement, or its last swap). */
static void frame_opens(struct timeline *tl, struct gpu_track *g, uint64_t t)
{
    g->open_since = t;
    if (t > tl->newest)
        tl->newest = t;
}

/* 1 the first time (pid, tid) is seen (then the caller names it; a process's comm, where given,
 * is kept for its threads); 0 after, or when it cannot be kept (then it goes unnamed). */
static int first_sight(struct timeline *tl, uint32_t pid, uint32_t tid, const char *comm)
{
    pthread_mutex_lock(&tl->lock);
    int first = 0;
    struct named *n = stat_keys_note(&tl->named, pid, tid, 0, &first);
    if (n && first && comm)
        snprintf(n->comm, sizeof(n->comm), "%s", comm);
    pthread_mutex_unlock(&tl->lock);
    return n && first;
}

static void read_small(const char *path, char *buf, size_t size, int args)
{
    buf[0] = 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    size_t got = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[got] = 0;
    for (size_t i = 0; i + 1 < got; i++)
        if (buf[i] == 0 && args)
            buf[i] = ' ';   /* cmdline: NUL-separated arguments */
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = 0;
}

static void name_process(struct timeline *tl, uint32_t pid, const char *cmd, const char *comm)
{
    if (!first_sight(tl, pid, 0, comm))
        return;
    char name[256];
    snprintf(name, sizeof(name), "%s (pid %" PRIu32 ")", cmd[0] ? cmd : "process", pid);
    trace_process_name(tl->trace, pid, name, 0);
}

void timeline_name_process(struct timeline *tl, uint32_t pid)
{
    char path[64], cmd[200], comm[16];
    snprintf(path, sizeof(path), "/proc/%" PRIu32 "/cmdline", pid);
    read_small(path, cmd, sizeof(cmd), 1);
    snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
    read_small(path, comm, sizeof(comm), 0);
    name_process(tl, pid, cmd, comm);
}

void timeline_name_command(struct timeline *tl, uint32_t pid, char *const *argv)
{
    char cmd[200] = "", comm[16];
    size_t used = 0;
    for (size_t i = 0; argv[i] && used + 1 < sizeof(cmd); i++) {
        int w = snprintf(cmd + used, sizeof(cmd) - used, "%s%s", i ? " " : "", argv[i]);
        used += w < 0 ? 0 : (size_t)w;
    }
    /* The comm the kernel gives at exec: the file's base name, cut to 15 bytes. */
    const char *base = strrchr(argv[0], '/');
    snprintf(comm, sizeof(comm), "%s", base ? base + 1 : argv[0]);
    name_process(tl, pid, cmd, comm);
}

static void name_thread(struct timeline *tl, uint32_t pid, uint32_t tid)
{
    timeline_name_process(tl, pid);
    if (!tid || !first_sight(tl, pid, tid, NULL))
        return;
    char path[96], comm[64], name[96];
    snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/comm", pid, tid);
    read_small(path, comm, sizeof(comm), 0);
    if (!comm[0]) {
        /* Gone (it ended before its first record was read): its process's comm. */
        pthread_mutex_lock(&tl->lock);
        const struct named *p = stat_keys_find(&tl->named, pid, 0, 0);
        snprintf(comm, sizeof(comm), "%s", p && p->comm[0] ? p->comm : "thread");
        pthread_mutex_unlock(&tl->lock);
    }
    snprintf(name, sizeof(name), "%s (tid %" PRIu32 ")", comm, tid);
    trace_thread_name(tl->trace, pid, tid, name, (int)(tid == pid ? 0 : 1));
}

/* The track of a context's CPU frames (from its previous swap to this one) swapped on a thread:
 * the thread's own, or where the thread swaps several contexts in turn (glxheads, a program
 * with a window per context), a lane for each but the first: their frames overlap one another,
 * and slices on one track must nest or be disjoint. Until 2026-11-29 they all went on the
 * thread's track (an outside probe: 3364 of 3367 of glxheads' frames overlapped there). */
static uint32_t frame_track(struct timeline *tl, uint32_t pid, uint32_t tid, uint64_t context)
{
    int added;
    struct frame_thread *t = stat_keys_note(&tl->frame_threads, pid, tid, 0, &added);
    if (!t)
        return tid;
    if (added)
        t->context = context;
    if (t->context == context)
        return tid;
    struct frame_lane *l = stat_keys_note(&tl->frame_lanes, pid, tid, context, &added);
    if (!l)
        return tid;
    if (added) {
        l->tid = FRAME_LANE_TID + tl->n_frame_lanes++;
        char name[96];
        snprintf(name, sizeof(name), "GL context %" PRIu64 " frames (tid %" PRIu32 ")", context,
                 tid);
        trace_thread_name(tl->trace, pid, l->tid, name, 2);
    }
    return l->tid;
}

/* Slices on one track must nest or be disjoint (the Trace Event Format). A context's frames are
 * placed back to back from the stamps their timers share (one's end is the next one's begin),
 * its draws from their own two stamps; but fence stamps are each only within the stamp window
 * of their signal, not ordered, and a TIME_ELAPSED is placed ending at a stamp taken after it:
 * an interval that would begin before the end of the previous one on its track begins there
 * (its end no earlier). Returns by how much its begin moved (0: as measured). */
static uint64_t fit_on_track(struct timeline *tl, uint64_t *last_end, uint64_t *g0, uint64_t *g1)
{
    uint64_t moved = 0;
    if (*g0 < *last_end) {
        moved = *last_end - *g0;
        *g0 = *last_end;
        tl->clamped++;
    }
    if (*g1 < *g0)
        *g1 = *g0;
    *last_end = *g1;
    return moved;
}

static uint32_t device_of(struct timeline *tl, const char *name, int is_cl)
{
    for (size_t i = 0; i < tl->n_devices; i++)
        if (tl->devices[i].is_cl == is_cl && strcmp(tl->devices[i].name, name) == 0)
            return (uint32_t)i;
    if (tl->n_devices == MAX_DEVICES)
        return MAX_DEVICES - 1;   /* the last one takes the rest */
    struct device *d = &tl->devices[tl->n_devices];
    snprintf(d->name, sizeof(d->name), "%s", name);
    d->is_cl = is_cl;
    char label[128];
    snprintf(label, sizeof(label), "%s: %s", is_cl ? "OpenCL device" : "GL device",
             name[0] ? name : "(unnamed)");
    trace_process_name(tl->trace, DEVICE_PID + (uint32_t)tl->n_devices, label,
                       1 + (int)tl->n_devices);
    return (uint32_t)tl->n_devices++;
}

/* The GPU track of a context or queue; made (on an "unknown" device when its announcement was
 * lost) at first sight. NULL when it cannot be kept (STAT_KEYS_MAX of them, or no memory).
 * The pointer lasts until the next track is made. */
static struct gpu_track *track_of(struct timeline *tl, uint32_t pid, uint64_t handle, int is_cl,
                                  const char *device)
{
    int added;
    struct gpu_track *g = stat_keys_note(&tl->tracks, pid, handle, (uint64_t)is_cl, &added);
    if (!added)
        return g;
    g->device = device_of(tl, device ? device : "unknown device", is_cl);
    g->tid = (uint32_t)tl->tracks.n;
    if (live_add(tl, tl->tracks.n - 1) != 0)
        g->gone = 2;
    char label[128];
    if (is_cl)
        snprintf(label, sizeof(label), "OpenCL queue %" PRIu64 " (pid %" PRIu32 ")", handle,
                 pid);
    else   /* the layers' numbers for the context or queue in its process (stat_channel.h) */
        snprintf(label, sizeof(label), "GL context %" PRIu64 " (pid %" PRIu32 ")", handle, pid);
    trace_thread_name(tl->trace, DEVICE_PID + g->device, g->tid, label, (int)g->tid);
    return g;
}

static struct cl_wait *wait_at(const struct gpu_track *g, size_t i)
{
    return &g->waits[(g->waits_head + i) & (g->waits_cap - 1)];
}

/* Drops the holes at the front, and entries older than TRACE_HOLD_MAX_NS before the newest
 * call or swap (a command whose record never comes: dropped, its process gone); when holes are
 * more than half, closes them up and makes each entry's hold exact again. */
static void waits_trim(struct timeline *tl, struct gpu_track *g)
{
    while (g->waits_n) {
        struct cl_wait *w = wait_at(g, 0);
        if (w->t0 && w->t0 + TRACE_HOLD_MAX_NS >= tl->newest)
            break;
        if (!w->t0)
            g->waits_done--;
        g->waits_head = (g->waits_head + 1) & (g->waits_cap - 1);
        g->waits_n--;
        tl->cl_waits--;
    }
    if (g->waits_done * 2 <= g->waits_n)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < g->waits_n; i++)
        if (wait_at(g, i)->t0)
            *wait_at(g, kept++) = *wait_at(g, i);
    tl->cl_waits -= g->waits_n - kept;
    g->waits_n = kept;
    g->waits_done = 0;
    uint64_t min = UINT64_MAX;
    for (size_t i = kept; i-- > 0;) {
        struct cl_wait *w = wait_at(g, i);
        min = w->t0 < min ? w->t0 : min;
        w->hold = min;
    }
}

/* An enqueue call on this queue (its command's record comes when the layer reads its times). */
static void wait_add(struct timeline *tl, struct gpu_track *g, uint64_t t0)
{
    waits_trim(tl, g);   /* a queue whose commands stopped coming keeps no more */
    if (!t0 || tl->cl_waits >= MAX_CL_WAITS)
        return;
    if (g->waits_n == g->waits_cap) {
        size_t cap = g->waits_cap ? 2 * g->waits_cap : 8;   /* a queue per task: small */
        struct cl_wait *grown = malloc(cap * sizeof(*grown));
        if (!grown)
            return;
        for (size_t i = 0; i < g->waits_n; i++)
            grown[i] = *wait_at(g, i);
        free(g->waits);
        g->waits = grown;
        g->waits_cap = cap;
        g->waits_head = 0;
    }
    *wait_at(g, g->waits_n++) = (struct cl_wait){t0, t0};
    tl->cl_waits++;
    /* Calls of several threads may come in another order than they began. */
    for (size_t i = g->waits_n - 1; i-- > 0 && wait_at(g, i)->hold > t0;)
        wait_at(g, i)->hold = t0;
}

/* Its command came: the call holds no more. */
static void wait_done(struct timeline *tl, struct gpu_track *g, uint64_t t0)
{
    for (size_t i = 0; t0 && i < g->waits_n; i++) {
        struct cl_wait *w = wait_at(g, i);
        if (w->t0 == t0) {
            w->t0 = 0;
            g->waits_done++;
            break;
        }
    }
    waits_trim(tl, g);
}

/* The oldest start of a frame of this context whose events may still come: the frame in
 * progress (its CPU event comes at its swap) or an ended frame whose GPU record has not come
 * (its GPU interval starts near its start); of a queue, its oldest enqueue call whose command
 * has not come. 0: none known. */
static uint64_t track_hold(const struct gpu_track *g)
{
    if (g->key.id)
        return g->waits_n ? wait_at(g, 0)->hold : 0;
    if (!g->pending_start)
        return g->open_since;
    uint64_t pending = g->frames_sent - g->gpu_done;
    if (g->gpu_done < g->frames_sent && pending <= PENDING_STARTS)
        return g->pending_start[g->gpu_done % PENDING_STARTS];
    if (g->gpu_done < g->frames_sent)   /* more pending than kept: the oldest kept */
        return g->pending_start[g->frames_sent % PENDING_STARTS];
    return g->open_since;
}

/* Those frames and commands hold the trace's events from the oldest one's start: their events
 * come later than the trace's horizon may wait (a first frame compiling shaders under a
 * sanitizer, a program stopped mid-frame with the GPU results of its last frames unread, OpenCL
 * commands read at a clFinish seconds after they ran). */
static void hold_open_frames(struct timeline *tl)
{
    /* A context whose frames stopped (destroyed with results unread, its process gone) or a
     * queue whose command never comes would hold the window for every other one: it counts
     * only while its hold is within TRACE_HOLD_MAX_NS of the newest swap or call seen. */
    uint64_t oldest = 0;
    for (size_t i = 0; i < tl->n_live; i++) {
        uint64_t since = track_hold(track_at(tl, tl->live[i]));
        if (since && since + TRACE_HOLD_MAX_NS >= tl->newest && (!oldest || since < oldest))
            oldest = since;
    }
    trace_hold(tl->trace, oldest);
}

/* The GL context's track if it is known (announced by its PERFQ_STAT_GL_CONTEXT record). */
static struct gpu_track *known_context(struct timeline *tl, uint32_t pid, uint64_t handle)
{
    return stat_keys_find(&tl->tracks, pid, handle, 0);
}

/* A context or queue announced again (its pid reused, at worst): alive, and live again if its
 * process had been found gone. */
static void announced(struct timeline *tl, struct gpu_track *g)
{
    if (g->gone == 2 && live_add(tl, (size_t)g->tid - 1) != 0)
        return;
    g->gone = 0;
}

static const char *command_label(const struct perfq_stat_record *r, char *buf, size_t size)
{
    if (r->name[0])
        return r->name;
    const char *type = stat_command_type_name(r->a);
    if (type)
        return type;
    snprintf(buf, size, "command 0x%" PRIx64, r->a);
    return buf;
}

/* Where a command's GPU interval goes on its queue's tracks: the track id, with begin (and
 * end) moved where it could not be placed as measured, by *moved ns (0: as measured). An
 * in-order queue's commands are placed on its track as its GL contexts' frames are (the
 * clock's correlation may make two touch). */
static void history_free(struct cl_history **h)
{
    if (*h)
        free((*h)->iv);
    free(*h);
    *h = NULL;
}

/* Forgets every interval when the newest ended before `before` (a queue idle for the
 * history's length), its memory too. */
static void history_forget_before(struct cl_history *h, uint64_t before)
{
    if (h->n > h->head && h->iv[h->n - 1].end >= before)
        return;
    if (h->n > h->head)
        h->forgot = 1;
    free(h->iv);
    h->iv = NULL;
    h->head = h->n = h->cap = 0;
}

/* The first interval of h beginning at or after begin (h->n where none). */
static size_t history_find(const struct cl_history *h, uint64_t begin)
{
    size_t lo = h->head, hi = h->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->iv[mid].begin < begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Keeps [begin, end] (placed: disjoint from the others), and forgets what ended more than
 * CL_HISTORY_NS before the newest end, or the oldest past CL_HISTORY_MAX. */
static void history_add(struct cl_history *h, uint64_t begin, uint64_t end)
{
    if (h->n > h->head && h->iv[h->n - 1].end > CL_HISTORY_NS) {
        uint64_t old = h->iv[h->n - 1].end - CL_HISTORY_NS;
        while (h->head < h->n && h->iv[h->head].end < old) {
            h->head++;
            h->forgot = 1;
        }
    }
    if (h->n - h->head >= CL_HISTORY_MAX) {
        h->head++;
        h->forgot = 1;
    }
    if (h->head && (h->n == h->cap || h->head >= h->n / 2)) {
        memmove(h->iv, h->iv + h->head, (h->n - h->head) * sizeof(*h->iv));
        h->n -= h->head;
        h->head = 0;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 8;
        struct cl_interval *iv = realloc(h->iv, cap * sizeof(*iv));
        if (!iv) {
            h->forgot = 1;   /* not kept: a late command there is moved, as before */
            return;
        }
        h->iv = iv;
        h->cap = cap;
    }
    size_t at = h->n;
    if (h->n > h->head && h->iv[h->n - 1].begin > begin) {
        at = history_find(h, begin);
        memmove(h->iv + at + 1, h->iv + at, (h->n - at) * sizeof(*h->iv));
    }
    h->iv[at] = (struct cl_interval){begin, end};
    h->n++;
}

/* Whether [begin, end] lies in a gap of the history, overlapping none of its intervals
 * (touching allowed): not before its first one where one was forgotten (nothing is known
 * there then). */
static int history_gap(const struct cl_history *h, uint64_t begin, uint64_t end)
{
    if (h->n == h->head || (h->forgot && begin < h->iv[h->head].begin))
        return 0;
    size_t at = history_find(h, begin);
    if (at < h->n && h->iv[at].begin < end)
        return 0;
    return at == h->head || h->iv[at - 1].end <= begin;
}

static uint32_t cl_place(struct timeline *tl, struct gpu_track *g, uint64_t *begin,
                         uint64_t *end, uint64_t *moved)
{
    if (!g->out_of_order) {
        if (!g->history)
            g->history = calloc(1, sizeof(*g->history));
        if (g->history && *begin < g->cl_end && history_gap(g->history, *begin, *end)) {
            *moved = 0;   /* came late, placed where it ran: the track's end stays */
        } else {
            *moved = fit_on_track(tl, &g->cl_end, begin, end);
        }
        if (g->history)
            history_add(g->history, *begin, *end);
        return g->tid;
    }
    if (!g->lanes && !(g->lanes = calloc(1, sizeof(*g->lanes)))) {
        *moved = fit_on_track(tl, &g->cl_end, begin, end);
        return g->tid;
    }
    struct cl_lanes *l = g->lanes;
    int k = 0, first_free = -1;
    for (int i = 0; i < CL_LANES; i++) {
        if (l->end[i] <= *begin) {
            first_free = i;
            break;
        }
        if (l->end[i] < l->end[k])
            k = i;
    }
    if (first_free >= 0)
        k = first_free;
    *moved = fit_on_track(tl, &l->end[k], begin, end);
    uint32_t tid = g->tid + (uint32_t)(k ? (k + 1) * STAT_KEYS_MAX : 0);
    if (k && !l->named[k]) {
        char label[140];
        snprintf(label, sizeof(label), "OpenCL queue %" PRIu64 " (pid %" PRIu32
                 "), concurrent %d", g->key.handle, g->key.pid, k + 1);
        trace_thread_name(tl->trace, DEVICE_PID + g->device, tid, label, (int)g->tid);
        l->named[k] = 1;
    }
    return tid;
}

/* Puts g in the list of queues with commands waiting (timeline_round_end). 0, or -1 when
 * out of memory. */
static int waiting_add(struct timeline *tl, struct gpu_track *g)
{
    if (positions_add(&tl->waiting_tracks, &tl->n_waiting, &tl->waiting_cap, g->tid - 1) != 0)
        return -1;
    g->waiting = 1;
    return 0;
}

/* Places a command with the queue's current estimate and writes it. */
static void cl_write(struct timeline *tl, struct gpu_track *g, const struct perfq_stat_record *r)
{
    int64_t off = g->lo + (g->hi - g->lo) / 2;
    uint64_t begin = (uint64_t)((int64_t)r->g1 - off), end = begin + r->c;
    uint64_t moved;
    uint32_t tid = cl_place(tl, g, &begin, &end, &moved);
    char buf[32];
    /* moved_ns where it was moved, as the frames and draws have it (counted in
     * gpu_intervals_moved; until 2026-11-29 the commands' move was not said). */
    struct trace_arg args[4] = {{"clock_error_ns", (uint64_t)((g->hi - g->lo) / 2)},
                                {"bytes", r->flags & PERFQ_STAT_HAS_BYTES ? r->d : 0},
                                {"command_type", r->a},
                                {"moved_ns", moved}};
    trace_complete(tl->trace, DEVICE_PID + g->device, tid, begin, end, "opencl",
                   command_label(r, buf, sizeof(buf)), args, moved ? 4 : 3);
    tl->gpu_intervals++;
}

/* The queue's waiting commands, placed with its current estimate; their calls stop holding. */
static void cl_place_unplaced(struct timeline *tl, struct gpu_track *g)
{
    if (!g->unplaced_n)
        return;
    uint64_t before = track_hold(g);
    for (size_t i = 0; i < g->unplaced_n; i++) {
        cl_write(tl, g, &g->unplaced[i]);
        wait_done(tl, g, g->unplaced[i].t0);
    }
    g->unplaced_n = 0;
    free(g->unplaced);   /* kept only while commands wait: a run may make thousands of queues */
    g->unplaced = NULL;
    g->unplaced_cap = 0;
    if (track_hold(g) != before)
        hold_open_frames(tl);
}

/* A command's GPU interval: the queue's clock estimate narrowed with it, then written, or kept
 * until the estimate is good (above). Returns 1 when it was kept: its call holds until then. */
static int cl_interval(struct timeline *tl, const struct perfq_stat_record *r, uint64_t now)
{
    struct gpu_track *g = track_of(tl, r->pid, r->b, 1, NULL);
    if (!g || !(r->flags & PERFQ_STAT_HAS_INTERVAL) || r->t1 < r->t0) {
        tl->unmatched++;
        return 0;
    }
    int64_t lo = (int64_t)(r->g0 - r->t1), hi = (int64_t)(r->g0 - r->t0);
    if (g->have_range && lo <= g->hi && hi >= g->lo) {
        g->lo = lo > g->lo ? lo : g->lo;
        g->hi = hi < g->hi ? hi : g->hi;
    } else {
        if (g->have_range) {
            g->resets++;
            tl->clock_resets++;
        }
        /* A new estimate: the waiting commands go with the one they were kept under. */
        if (g->have_range)
            cl_place_unplaced(tl, g);
        g->lo = lo;
        g->hi = hi;
        g->have_range = 1;
    }
    if (g->unplaced_n == g->unplaced_cap) {
        /* Grown as commands come (a drain behind a flood of queues has thousands waiting at
         * once: a whole UNPLACED_MAX each took 7 KB of perfq's memory a queue). */
        size_t cap = g->unplaced_cap ? 2 * g->unplaced_cap : 8;
        struct perfq_stat_record *grown = realloc(g->unplaced, cap * sizeof(*grown));
        if (grown) {
            g->unplaced = grown;
            g->unplaced_cap = cap;
        }
    }
    if (g->unplaced_n == g->unplaced_cap || (!g->waiting && waiting_add(tl, g) != 0)) {
        cl_write(tl, g, r);   /* no memory to keep it: placed now */
        return 0;
    }
    if (!g->unplaced_n)
        g->unplaced_since = now;
    g->unplaced[g->unplaced_n++] = *r;
    if (g->unplaced_n == UNPLACED_MAX)
        cl_place_unplaced(tl, g);
    return 1;
}

void timeline_round_end(struct timeline *tl)
{
    size_t keep = 0;
    for (size_t i = 0; i < tl->n_waiting; i++) {
        struct gpu_track *g = track_at(tl, tl->waiting_tracks[i]);
        if (g->unplaced_n && (uint64_t)((g->hi - g->lo) / 2) > UNPLACED_ERROR_NS) {
            tl->waiting_tracks[keep++] = tl->waiting_tracks[i];   /* its estimate is poor yet */
            continue;
        }
        cl_place_unplaced(tl, g);
        g->waiting = 0;
    }
    tl->n_waiting = keep;
}

void timeline_take(struct timeline *tl, const struct perfq_stat_record *r)
{
    char buf[80];
    switch (r->kind) {
    case PERFQ_STAT_GL_CONTEXT: {
        struct gpu_track *g = track_of(tl, r->pid, r->a, 0, r->name);
        if (g) {
            announced(tl, g);
            g->gl_error_ns = r->c;
            frame_opens(tl, g, r->t0);   /* its frame 0 began then */
            hold_open_frames(tl);
        }
        break;
    }
    case PERFQ_STAT_CL_QUEUE: {
        struct gpu_track *q = track_of(tl, r->pid, r->a, 1, r->name);
        if (q) {
            announced(tl, q);
            q->out_of_order = (r->c & 1u) != 0;   /* CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE */
        }
        break;
    }
    case PERFQ_STAT_FRAME: {
        if (!r->t1)
            break;
        struct gpu_track *open = known_context(tl, r->pid, r->a);
        if (open && !open->pending_start)
            open->pending_start = calloc(PENDING_STARTS, sizeof(*open->pending_start));
        if (open && open->pending_start) {
            open->pending_start[r->b % PENDING_STARTS] = r->t0;
            if (r->b + 1 > open->frames_sent)
                open->frames_sent = r->b + 1;
            frame_opens(tl, open, r->t1);   /* the next frame begins at this swap */
            hold_open_frames(tl);
        }
        name_thread(tl, r->pid, r->tid);
        struct trace_arg args[2] = {{"frame", r->b}, {"context", r->a}};
        trace_complete(tl->trace, r->pid, frame_track(tl, r->pid, r->tid, r->a), r->t0, r->t1,
                       "gl", "frame", args, 2);
        tl->cpu_events++;
        break;
    }
    case PERFQ_STAT_FRAME_GPU: {
        struct gpu_track *done = known_context(tl, r->pid, r->a);
        if (done && r->b + 1 > done->gpu_done) {
            done->gpu_done = r->b + 1;   /* results come oldest first */
            hold_open_frames(tl);
        }
        if (!(r->flags & PERFQ_STAT_HAS_INTERVAL))
            break;
        struct gpu_track *g = track_of(tl, r->pid, r->a, 0, NULL);
        if (!g) {
            tl->unmatched++;
            break;
        }
        uint64_t g0 = r->g0, g1 = r->g1;
        uint64_t moved = fit_on_track(tl, &g->frame_end, &g0, &g1);
        struct trace_arg args[3] = {{"frame", r->b}, {"clock_error_ns", r->t0},
                                    {"moved_ns", moved}};
        trace_complete(tl->trace, DEVICE_PID + g->device, g->tid, g0, g1, "gl-gpu",
                       "frame", args, moved ? 3 : 2);
        tl->gpu_intervals++;
        if (g->span_valid && g->span_frame == r->b) {
            /* A statistics span's vertices per frame (its total / its frames), at the GPU end
             * of its last frame; the span's frames as a series beside it. */
            snprintf(buf, sizeof(buf), "vertices per frame, context %" PRIu64, r->a);
            struct trace_arg args[1] = {{"frames", g->span_frames}};
            trace_counter_args(tl->trace, DEVICE_PID + g->device, r->g1, buf,
                               (double)g->span_vertices / (double)g->span_frames, args, 1);
            g->span_valid = 0;
        }
        break;
    }
    case PERFQ_STAT_FRAME_PIPELINE: {
        struct perfq_stat_pipeline p;
        memcpy(&p, r, sizeof(p));
        struct gpu_track *g = track_of(tl, r->pid, p.context, 0, NULL);
        if (g && (p.mask & 1u)) {
            g->span_valid = 1;
            g->span_frame = p.frame;
            g->span_frames = p.frames ? p.frames : 1;
            g->span_vertices = p.value[PERFQ_STAT_PIPE_VERTICES];
        }
        break;
    }
    case PERFQ_STAT_DRAW: {
        tl->draws++;
        if (!(r->flags & PERFQ_STAT_HAS_INTERVAL))
            break;   /* no GPU time, or no trustworthy place on the clock */
        struct gpu_track *g = track_of(tl, r->pid, r->a, 0, NULL);
        if (!g) {
            tl->unmatched++;
            break;
        }
        uint32_t tid = g->tid + DRAWS_TID_OFFSET;
        if (!g->draws_named) {
            char label[128];
            snprintf(label, sizeof(label), "GL context %" PRIu64 " draws (pid %" PRIu32 ")",
                     g->key.handle, g->key.pid);
            trace_thread_name(tl->trace, DEVICE_PID + g->device, tid, label, (int)g->tid);
            g->draws_named = 1;
        }
        uint64_t g0 = r->g0, g1 = r->g1;
        uint64_t moved = fit_on_track(tl, &g->draw_end, &g0, &g1);
        struct trace_arg args[5] = {{"frame", r->b},
                                    {"clock_error_ns", r->t0},
                                    {"vertices", r->flags & PERFQ_STAT_HAS_VERTICES ? r->d : 0},
                                    {"primitives",
                                     r->flags & PERFQ_STAT_HAS_PRIMITIVES ? r->t1 : 0},
                                    {"moved_ns", moved}};
        trace_complete(tl->trace, DEVICE_PID + g->device, tid, g0, g1, "gl-gpu-draw",
                       r->name[0] ? r->name : "draw", args, moved ? 5 : 4);
        tl->gpu_intervals++;
        tl->draw_intervals++;
        break;
    }
    case PERFQ_STAT_CL_ENQUEUE: {
        struct gpu_track *q = track_of(tl, r->pid, r->b, 1, NULL);
        if (q && r->t0) {
            if (r->t0 > tl->newest)
                tl->newest = r->t0;
            /* The trace's hold changes only with the queue's (usually its first call). */
            uint64_t before = track_hold(q);
            wait_add(tl, q, r->t0);
            if (track_hold(q) != before)
                hold_open_frames(tl);
        }
        name_thread(tl, r->pid, r->tid);
        char label[100];
        snprintf(label, sizeof(label), "enqueue %s", command_label(r, buf, sizeof(buf)));
        struct trace_arg args[2] = {{"queue", r->b}, {"command_type", r->a}};
        trace_complete(tl->trace, r->pid, r->tid, r->t0, r->t1, "opencl-call", label, args, 2);
        tl->cpu_events++;
        break;
    }
    case PERFQ_STAT_CL_COMMAND: {
        /* Kept: its call holds until it is placed (cl_place_unplaced). */
        if ((r->flags & PERFQ_STAT_HAS_GPU_TIME) && cl_interval(tl, r, cli_monotonic_ns()))
            break;
        /* Its interval is in the window: the queue holds from its next call. */
        struct gpu_track *q = r->t0 ? track_of(tl, r->pid, r->b, 1, NULL) : NULL;
        if (q && q->waits_n) {
            uint64_t before = track_hold(q);
            wait_done(tl, q, r->t0);
            if (track_hold(q) != before)
                hold_open_frames(tl);
        }
        break;
    }
    case PERFQ_STAT_GL_MEMORY: {
        static const char *const kinds[3] = {"textures", "renderbuffers", "buffers"};
        const uint64_t kib[3] = {r->b, r->c, r->d};
        timeline_name_process(tl, r->pid);
        for (int k = 0; k < 3; k++) {
            snprintf(buf, sizeof(buf), "GL memory KiB: %s, share group 0x%" PRIx64, kinds[k],
                     r->a);
            trace_counter(tl->trace, r->pid, r->t0, buf, (double)kib[k]);
        }
        break;
    }
    default:
        break;
    }
}

/* 1 when process pid has ended (reaped, or a zombie: everything it sent is in the ring). */
static int process_gone(uint32_t pid)
{
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char state = cli_process_state(pid);
    return state == 'Z' || state == 'X';
}

void timeline_tick(struct timeline *tl, uint64_t now)
{
    for (size_t i = 0; i < tl->n_live;) {
        struct gpu_track *g = track_at(tl, tl->live[i]);
        if (g->unplaced_n && (g->gone || g->unplaced_since + UNPLACED_MAX_NS <= now))
            cl_place_unplaced(tl, g);
        /* A queue's buffers go when idle: a program that makes a queue per task, thousands in
         * a run, keeps none of them (until its process ends, a track stays live). */
        if (g->history)
            history_forget_before(g->history, now > CL_HISTORY_NS ? now - CL_HISTORY_NS : 0);
        if (g->waits && !g->waits_n) {
            free(g->waits);
            g->waits = NULL;
            g->waits_cap = g->waits_head = g->waits_done = 0;
        }
        if (g->gone == 1) {
            /* Found gone at the previous tick: a drain since has read what it sent. It leaves
             * the live list (the last entry takes its place). */
            g->gone = 2;
            tl->cl_waits -= g->waits_n;
            g->waits_n = g->waits_done = g->waits_cap = g->waits_head = 0;
            free(g->waits);
            g->waits = NULL;
            free(g->pending_start);
            g->pending_start = NULL;
            free(g->lanes);
            g->lanes = NULL;
            free(g->unplaced);
            g->unplaced = NULL;
            g->unplaced_cap = 0;
            history_free(&g->history);
            g->gpu_done = g->frames_sent;
            tl->live[i] = tl->live[--tl->n_live];
            continue;
        }
        /* Asked only of a track whose hold keeps events back from the file now. */
        uint64_t since = g->gone ? 0 : track_hold(g);
        if (since && since + TRACE_HORIZON_NS < now && process_gone(g->key.pid))
            g->gone = 1;
        i++;
    }
    hold_open_frames(tl);   /* also drops holds that fell 30 s behind the newest */
}

void timeline_close(struct timeline **ptl)
{
    struct timeline *tl = *ptl;
    if (!tl)
        return;
    *ptl = NULL;
    for (size_t i = 0; i < tl->tracks.n; i++)
        cl_place_unplaced(tl, track_at(tl, i));
    trace_note(tl->trace, "gpu_intervals", tl->gpu_intervals);
    trace_note(tl->trace, "cpu_events", tl->cpu_events);
    trace_note(tl->trace, "gpu_intervals_unmatched", tl->unmatched);
    trace_note(tl->trace, "opencl_clock_resets", tl->clock_resets);
    trace_note(tl->trace, "draws", tl->draws);
    trace_note(tl->trace, "draw_intervals", tl->draw_intervals);
    trace_note(tl->trace, "gpu_intervals_moved", tl->clamped);
    for (size_t i = 0; i < tl->tracks.n; i++) {
        free(track_at(tl, i)->waits);
        free(track_at(tl, i)->pending_start);
        free(track_at(tl, i)->lanes);
        free(track_at(tl, i)->unplaced);
        history_free(&track_at(tl, i)->history);
    }
    free(tl->waiting_tracks);
    stat_keys_free(&tl->tracks);
    stat_keys_free(&tl->named);
    stat_keys_free(&tl->frame_threads);
    stat_keys_free(&tl->frame_lanes);
    free(tl->live);
    pthread_mutex_destroy(&tl->lock);
    free(tl);
}
