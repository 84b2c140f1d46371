/*
 * perfq stat --layers: reads the layers' records (src/core/stat_channel.h's ring) on a thread while
 * CMD runs and aggregates them: frames (count; CPU and GPU time per frame; vertices per frame)
 * and OpenCL commands by kernel name and by command type. Memory is bounded: series keep at most
 * SERIES_KEEP values (stat_series.h), at most MAX_GROUPS OpenCL groups (further names are summed
 * in "(other)"), contexts, processes, share groups and tags at most STAT_KEYS_MAX each
 * (stat_keys.h: past that the counts say "at least"), and the ring (5 MiB) bounds what is in
 * flight.
 */
#include "stat_collect.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/stat_channel.h"
#include "core/stat_channel_socket.h"
#include "record_timeline.h"
#include "stat_keys.h"
#include "stat_series.h"

#define MAX_GROUPS 256
/* A span record claiming more frames is malformed (a program wrote on the ring): the span rule
 * is at most 10 s, and no program swaps 1.6 million times in that. */
#define MAX_SPAN_FRAMES (1u << 24)

/* GL memory of one share group (key: pid, share group) at its peak total (kinds: textures,
 * renderbuffers, buffers). */
struct memory_group {
    struct stat_key key;
    uint64_t kib[3], objects[3];
};
static const char *const memory_kinds[3] = {"textures", "renderbuffers", "buffers"};

/* The pipeline statistics per frame (perfq_stat_pipeline_statistic order): the name in JSON and
 * CSV, and the table's label. Vertices keep their own series ("vertices"), as before. */
static const char *const pipe_names[PERFQ_STAT_PIPE_COUNT][2] = {
    {"vertices", "vertices per frame"},
    {"primitives", "primitives per frame"},
    {"vertex_shader_invocations", "VS invocations/frame"},
    {"tess_control_shader_patches", "TCS patches/frame"},
    {"tess_evaluation_shader_invocations", "TES invocations/frame"},
    {"geometry_shader_invocations", "GS invocations/frame"},
    {"geometry_shader_primitives_emitted", "GS primitives/frame"},
    {"fragment_shader_invocations", "FS invocations/frame"},
    {"compute_shader_invocations", "CS invocations/frame"},
    {"clipping_input_primitives", "clipper input/frame"},
    {"clipping_output_primitives", "clipper output/frame"},
};

/* GL memory of one GL_NV_query_resource_tag tag (key: pid, share group, tag id) at its own
 * peak. */
struct memory_tag {
    struct stat_key key;
    uint64_t kib, objects;
    char name[64];
};

struct group {
    char name[64];
    uint64_t count, bytes, timed;
    struct series ns;
};

/* A process's OpenCL commands: what its layer counted (PERFQ_STAT_CL_COUNTED: the largest
 * count, and of those the ones it gave up and counted as dropped) and what reached perfq. */
struct cl_process {
    struct stat_key key;
    uint64_t counted, given_up, received;
};

/* A GL context (key: pid, context handle) or an OpenCL process (pid, 0). */
struct context_entry {
    struct stat_key key;
    uint64_t span_next;         /* the frame its next statistics span begins with */
    uint64_t numbered;          /* its highest frame index seen, + 1 (frames_rendered) */
};

struct stat_collect {
    int page_fd, stop[2];
    /* the socket that hands page_fd to a process that cannot reach it otherwise (-1: none) */
    int socket_fd;
    char socket_path[108];
    uint64_t handed_over;         /* memfds handed over on it */
    /* processes whose records came that still ran when CMD exited (stat_collect_finish): what
     * they send later is not in the report */
    uint64_t outliving;
    struct perfq_stat_ring ring;
    struct perfq_stat_page *page;   /* ring.page */
    pthread_t thread;
    int running;
    struct trace *trace;          /* perfq record: the file the timeline goes to */
    /* frames */
    uint64_t frames, frames_gpu, frames_vertices;
    struct series cpu_ns, gpu_ns, vertices;
    struct series pipe[PERFQ_STAT_PIPE_COUNT];   /* [0] unused: vertices above */
    /* statistics spans (docs/perfq-stat.md, "Statistics spans"): the rule asked for, the spans
     * with results, the frames they cover, and of those the frames in spans of several */
    uint64_t span_ns, spans, span_frames, shared_frames;
    uint64_t span_gaps;           /* spans that did not begin where their context's last ended */
    struct stat_keys contexts, pids;   /* entries: struct context_entry, struct stat_key */
    /* OpenCL */
    struct group kernels[MAX_GROUPS], types[MAX_GROUPS];
    size_t n_kernels, n_types;
    uint64_t commands;
    struct stat_keys cl_processes;   /* entries: struct cl_process */
    uint64_t malformed;
    struct stat_keys memory;   /* entries: struct memory_group */
    struct stat_keys tags;     /* entries: struct memory_tag */
    /* draws (--per-draw) */
    int per_draw;
    int no_stats;           /* --no-stats: the layer was told to measure none */
    uint64_t draws, draws_gpu, draws_vertices, draws_primitives;
    struct series draw_ns, draw_vertices, draw_primitives, draws_per_frame;
    /* read by the progress line's thread */
    uint64_t progress_frames, progress_commands;
    struct timeline *timeline;    /* perfq record */
};

const char *stat_command_type_name(uint64_t t)
{
    static const char *const names[] = {
        "NDRANGE_KERNEL", "TASK", "NATIVE_KERNEL", "READ_BUFFER", "WRITE_BUFFER", "COPY_BUFFER",
        "READ_IMAGE", "WRITE_IMAGE", "COPY_IMAGE", "COPY_IMAGE_TO_BUFFER",
        "COPY_BUFFER_TO_IMAGE", "MAP_BUFFER", "MAP_IMAGE", "UNMAP_MEM_OBJECT", "MARKER",
        "ACQUIRE_GL_OBJECTS", "RELEASE_GL_OBJECTS", "READ_BUFFER_RECT", "WRITE_BUFFER_RECT",
        "COPY_BUFFER_RECT", "USER", "BARRIER", "MIGRATE_MEM_OBJECTS", "FILL_BUFFER",
        "FILL_IMAGE", "SVM_FREE", "SVM_MEMCPY", "SVM_MEMFILL", "SVM_MAP", "SVM_UNMAP",
        "SVM_MIGRATE_MEM",   /* OpenCL 2.1 (until 2026-11-30 it read 0x120e) */
    };
    /* CL_COMMAND_NDRANGE_KERNEL is 0x11F0 and the rest follow in this order (cl.h). */
    if (t >= 0x11F0 && t - 0x11F0 < sizeof(names) / sizeof(names[0]))
        return names[t - 0x11F0];
    return NULL;
}

static struct group *group_of(struct group *g, size_t *n, const char *name, int no_values)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    if (*n >= MAX_GROUPS - 1) {
        /* The last slot is "(other)": names past MAX_GROUPS - 1 are summed there. */
        if (*n == MAX_GROUPS - 1) {
            g[*n].ns.no_values = no_values;
            snprintf(g[(*n)++].name, sizeof(g->name), "(other)");
        }
        return &g[MAX_GROUPS - 1];
    }
    struct group *x = &g[(*n)++];
    snprintf(x->name, sizeof(x->name), "%s", name);
    x->ns.no_values = no_values;
    return x;
}

static void group_add(struct group *g, const struct perfq_stat_record *r)
{
    g->count++;
    if (r->flags & PERFQ_STAT_HAS_BYTES)
        g->bytes += r->d;
    if (r->flags & PERFQ_STAT_HAS_GPU_TIME) {
        g->timed++;
        series_add(&g->ns, r->c);
    }
}

static void note_pid(struct stat_collect *c, uint32_t pid)
{
    stat_keys_note(&c->pids, pid, 0, 0, NULL);
}

/* The context's entry (NULL when it cannot be kept: stat_keys.h). */
static struct context_entry *note_context(struct stat_collect *c, uint32_t pid, uint64_t handle)
{
    note_pid(c, pid);
    return stat_keys_note(&c->contexts, pid, handle, 0, NULL);
}

/* A context's frame `index` (0-based, FRAME and FRAME_GPU records' b) was rendered. */
static void note_frame(struct stat_collect *c, uint32_t pid, uint64_t context, uint64_t index)
{
    struct context_entry *e = note_context(c, pid, context);
    if (e && index + 1 > e->numbered)
        e->numbered = index + 1;
}

/* The frames rendered: each context numbers its frames from 0, so where the channel dropped
 * frame records (a full ring) its highest number seen tells how many it rendered, at least;
 * never fewer than the FRAME records read. */
static uint64_t frames_rendered(const struct stat_collect *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->contexts.n; i++)
        n += ((const struct context_entry *)stat_keys_at(&c->contexts, i))->numbered;
    return n > c->frames ? n : c->frames;
}

/* Keys some record brought that could not be kept (past STAT_KEYS_MAX, or out of memory): the
 * counts of contexts, processes, share groups and tags are then lower bounds, and say so. */
static uint64_t untracked(const struct stat_collect *c)
{
    return c->contexts.refused + c->pids.refused + c->memory.refused + c->tags.refused;
}

/* OpenCL commands a layer counted that never reached perfq as read: their process ended (_exit,
 * a signal) before its layer read them, or the channel dropped their records. *counted: the
 * commands the layers counted (at least: a process killed between two counts, which come every
 * PERFQ_STAT_CL_COUNT_STEP commands, counted up to PERFQ_STAT_CL_COUNT_STEP - 1 more). */
static uint64_t cl_unreported(const struct stat_collect *c, uint64_t *counted)
{
    uint64_t unreported = 0, all = 0;
    for (size_t i = 0; i < c->cl_processes.n; i++) {
        const struct cl_process *p = stat_keys_at(&c->cl_processes, i);
        uint64_t known = p->received + p->given_up;
        all += p->counted > known ? p->counted : known;
        if (p->counted > known)
            unreported += p->counted - known;
    }
    if (counted)
        *counted = all;
    return unreported;
}

uint64_t stat_collect_cl_unreported(const struct stat_collect *c)
{
    return cl_unreported(c, NULL);
}

static const char *at_least(const struct stat_keys *k)
{
    return k->refused ? "at least " : "";
}

static struct memory_group *memory_at(const struct stat_collect *c, size_t i)
{
    return stat_keys_at(&c->memory, i);
}

static uint64_t memory_total(const struct memory_group *m)
{
    return m->kib[0] + m->kib[1] + m->kib[2];
}

/* Keeps, per share group, the totals by type at the group's peak total. */
static void take_memory(struct stat_collect *c, const struct perfq_stat_record *r)
{
    struct memory_group now = {{r->pid, r->a, 0}, {r->b, r->c, r->d}, {r->g0, r->g1, r->t1}};
    int added;
    struct memory_group *g = stat_keys_note(&c->memory, r->pid, r->a, 0, &added);
    if (g && (added || memory_total(&now) > memory_total(g)))
        *g = now;   /* a share group's first totals, or a new peak */
}

/* Keeps each tag's totals at its peak, with the tag's string at that moment. */
static void take_memory_tag(struct stat_collect *c, const struct perfq_stat_record *r)
{
    int added;
    struct memory_tag *t = stat_keys_note(&c->tags, r->pid, r->a, r->b, &added);
    if (!t || (!added && r->c <= t->kib))
        return;   /* not kept (counted: untracked), or not a new peak */
    t->kib = r->c;
    t->objects = r->d;
    memcpy(t->name, r->name, sizeof t->name);
    t->name[sizeof t->name - 1] = '\0';
}

/* The report's figure: the sum over share groups of each group's totals at its own peak (the
 * peak of the sum when there is one share group, an upper bound of it otherwise). */
static void memory_sum(const struct stat_collect *c, uint64_t kib[3], uint64_t objects[3])
{
    for (int k = 0; k < 3; k++) {
        kib[k] = objects[k] = 0;
        for (size_t i = 0; i < c->memory.n; i++) {
            kib[k] += memory_at(c, i)->kib[k];
            objects[k] += memory_at(c, i)->objects[k];
        }
    }
}

/* The share group a tag belongs to, as an index into the groups the report counts (the order
 * their first record came in), or the count when its group sent no totals. */
static size_t memory_index(const struct stat_collect *c, const struct memory_tag *t)
{
    return stat_keys_position(&c->memory, t->key.pid, t->key.handle, 0);
}

static void take(struct stat_collect *c, const struct perfq_stat_record *r)
{
    if (c->timeline)
        timeline_take(c->timeline, r);
    switch (r->kind) {
    case PERFQ_STAT_FRAME:
        c->frames++;
        __atomic_store_n(&c->progress_frames, c->frames, __ATOMIC_RELAXED);
        series_add(&c->cpu_ns, r->c);
        note_frame(c, r->pid, r->a, r->b);
        break;
    case PERFQ_STAT_FRAME_GPU:
        note_frame(c, r->pid, r->a, r->b);
        if (r->flags & PERFQ_STAT_HAS_GPU_TIME) {
            c->frames_gpu++;
            series_add(&c->gpu_ns, r->c);
        }
        break;   /* vertices: FRAME_PIPELINE */
    case PERFQ_STAT_CL_COMMAND: {
        c->commands++;
        __atomic_store_n(&c->progress_commands, c->commands, __ATOMIC_RELAXED);
        const char *type = stat_command_type_name(r->a);
        char other[32];
        if (!type) {
            snprintf(other, sizeof(other), "0x%" PRIx64, r->a);
            type = other;
        }
        group_add(group_of(c->types, &c->n_types, type, c->timeline != NULL), r);
        if (r->name[0])
            group_add(group_of(c->kernels, &c->n_kernels, r->name, c->timeline != NULL), r);
        note_pid(c, r->pid);   /* a process, no GL context: frames.contexts counts GL's */
        struct cl_process *p = stat_keys_note(&c->cl_processes, r->pid, 0, 0, NULL);
        if (p)
            p->received++;
        break;
    }
    case PERFQ_STAT_CL_COUNTED: {
        note_pid(c, r->pid);
        struct cl_process *p = stat_keys_note(&c->cl_processes, r->pid, 0, 0, NULL);
        if (p && r->a > p->counted)
            p->counted = r->a;
        if (p && r->b > p->given_up)
            p->given_up = r->b;
        break;
    }
    case PERFQ_STAT_GL_MEMORY:
        take_memory(c, r);
        note_pid(c, r->pid);
        break;
    case PERFQ_STAT_GL_MEMORY_TAG:
        take_memory_tag(c, r);
        note_pid(c, r->pid);
        break;
    case PERFQ_STAT_DRAW:
        c->draws++;
        note_pid(c, r->pid);   /* a program that draws and never swaps sent records too */
        if (r->flags & PERFQ_STAT_HAS_GPU_TIME) {
            c->draws_gpu++;
            series_add(&c->draw_ns, r->c);
        }
        if (r->flags & PERFQ_STAT_HAS_VERTICES) {
            c->draws_vertices++;
            series_add(&c->draw_vertices, r->d);
        }
        if (r->flags & PERFQ_STAT_HAS_PRIMITIVES) {
            c->draws_primitives++;
            series_add(&c->draw_primitives, r->t1);
        }
        break;
    case PERFQ_STAT_FRAME_DRAWS:
        series_add(&c->draws_per_frame, r->c);
        break;
    case PERFQ_STAT_FRAME_PIPELINE: {
        /* A statistics span: its totals over its frames, each frame weighing one (a span of
         * frames of one scene gives that scene's exact count per frame). */
        struct perfq_stat_pipeline p;
        memcpy(&p, r, sizeof(p));
        uint64_t n = p.frames ? p.frames : 1;   /* 0: a layer from before spans */
        if (n > MAX_SPAN_FRAMES || n > p.frame + 1) {
            c->malformed++;
            break;
        }
        /* Spans tile a context's frames: each begins where the one before ended (a context
         * whose handle came again after its end begins at frame 0). */
        struct context_entry *k = note_context(c, r->pid, p.context);
        uint64_t first = p.frame + 1 - n;
        if (k && first != k->span_next && first != 0)
            c->span_gaps++;
        if (k)
            k->span_next = p.frame + 1;
        c->spans++;
        c->span_frames += n;
        if (n > 1)
            c->shared_frames += n;
        if (p.mask & 1u) {
            c->frames_vertices += n;
            series_add_span(&c->vertices, p.value[0], n);
        }
        for (int i = 1; i < PERFQ_STAT_PIPE_COUNT; i++)
            if (p.mask & (1u << i))
                series_add_span(&c->pipe[i], p.value[i], n);
        break;
    }
    case PERFQ_STAT_GL_CONTEXT:
    case PERFQ_STAT_CL_QUEUE:
    case PERFQ_STAT_CL_ENQUEUE:
        break;   /* timeline only */
    default:
        c->malformed++;
    }
}

/* Reads what the ring holds now, at most one lap (writers that keep writing cannot hold the
 * thread). Returns the records read. */
static uint64_t drain_ring(struct stat_collect *c, int final)
{
    struct perfq_stat_record r;
    uint64_t n = 0, now = cli_monotonic_ns();
    while (n < c->ring.n && perfq_stat_ring_read(&c->ring, &r, now, final)) {
        n++;
        if (r.magic != PERFQ_STAT_RECORD_MAGIC) {
            c->malformed++;   /* a program wrote on the ring */
            continue;
        }
        r.name[sizeof(r.name) - 1] = 0;
        take(c, &r);
    }
    return n;
}

/* Reads the ring every PERFQ_STAT_DRAIN_MS while CMD runs: no wake-up per record, and none of the
 * program's cores taken more than 50 times a second. A ring found a quarter full is read again
 * after 1 ms (a flood of per-draw records). Only the stop pipe ends the wait. */
static void *drain(void *arg)
{
    struct stat_collect *c = arg;
    uint64_t last_tick = 0;
    int socket_polled = c->socket_fd >= 0;
    for (;;) {
        uint64_t n = drain_ring(c, 0);
        if (c->timeline)
            timeline_round_end(c->timeline);
        if (c->trace) {
            /* A timeline lets its old events out to the file now and then. */
            uint64_t now = cli_monotonic_ns();
            if (now - last_tick >= 100000000u) {
                timeline_tick(c->timeline, now);
                trace_tick(c->trace, now);
                last_tick = now;
            }
        }
        struct pollfd p[2] = {{c->stop[0], POLLIN, 0}, {c->socket_fd, POLLIN, 0}};
        int rc = poll(p, socket_polled ? 2 : 1, n >= c->ring.n / 4 ? 1 : PERFQ_STAT_DRAIN_MS);
        if (rc < 0 && errno != EINTR)
            break;
        if (rc > 0 && p[0].revents)
            break;
        if (rc > 0 && p[1].revents) {
            c->handed_over += (uint64_t)perfq_stat_socket_serve(c->socket_fd, c->page_fd);
            if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL))
                socket_polled = 0;   /* broken: never a busy loop on it */
        }
    }
    /* CMD exited: what its processes wrote is in the ring; a slot reserved and never published
     * (a writer killed between the two) is given up, counted. Descendants still running are not
     * waited for (as perf stat), what they write later is not counted. */
    drain_ring(c, 1);
    return NULL;
}

/* perfq record's ring: 4 times perfq stat's (20 MiB of memfd, its pages taken only as the ring
 * reaches them). Its drain thread also writes the trace (the reorder window and the JSON), so
 * it reads the ring less often under a burst of commands: with 32768 slots, 60 001 OpenCL
 * commands enqueued in 0.3 s lost two thirds of their records (the fourteenth session's OpenCL
 * probe), none with 131072. */
#define RECORD_RING_SLOTS 131072u

/* The ring's size: PERFQ_STAT_RING_SLOTS (a power of two; tests make a small ring overflow)
 * or the default (perfq stat's, or perfq record's). */
static uint64_t ring_slots(int timeline)
{
    unsigned def = timeline ? RECORD_RING_SLOTS : PERFQ_STAT_RING_SLOTS;
    const char *e = getenv("PERFQ_STAT_RING_SLOTS");
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (!*end && v && v <= PERFQ_STAT_RING_MAX_SLOTS && !(v & (v - 1)))
            return v;
        fprintf(stderr, "perfq: PERFQ_STAT_RING_SLOTS=%s is not a power of two up to %u; "
                "using %u\n", e, PERFQ_STAT_RING_MAX_SLOTS, def);
    }
    return def;
}

struct stat_collect *stat_collect_open(struct trace *trace)
{
    struct stat_collect *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->page_fd = c->stop[0] = c->stop[1] = c->socket_fd = -1;
    stat_keys_init(&c->contexts, sizeof(struct context_entry));
    stat_keys_init(&c->pids, sizeof(struct stat_key));
    stat_keys_init(&c->memory, sizeof(struct memory_group));
    stat_keys_init(&c->tags, sizeof(struct memory_tag));
    stat_keys_init(&c->cl_processes, sizeof(struct cl_process));
    if (pipe2(c->stop, O_CLOEXEC) != 0)
        goto fail;
    /* The memfd is inherited by CMD (no close-on-exec); perfq keeps its copy open until the end,
     * for the layers of processes that lost theirs (stat_channel.h). */
    c->page_fd = perfq_stat_ring_create(&c->ring, ring_slots(trace != NULL));
    if (c->page_fd < 0)
        goto fail;
    c->page = c->ring.page;
    if (trace) {
        c->trace = trace;
        if (!(c->timeline = timeline_open(trace)))
            goto fail;
        c->page->flags = PERFQ_STAT_PAGE_TIMELINE;
        /* perfq record prints no percentiles: its series keep no values, so that its memory
         * does not grow with every frame up to the series' bound (2^20 values each). */
        struct series *all[] = {&c->cpu_ns, &c->gpu_ns, &c->vertices, &c->draw_ns,
                                &c->draw_vertices, &c->draw_primitives, &c->draws_per_frame};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            all[i]->no_values = 1;
        for (int i = 0; i < PERFQ_STAT_PIPE_COUNT; i++)
            c->pipe[i].no_values = 1;
    }
    /* Without the socket, only processes that may open perfq's fds lose nothing: go on. */
    c->socket_fd = perfq_stat_socket_open(c->socket_path, sizeof c->socket_path);
    char env[192];
    if (perfq_stat_channel_env(c->page_fd, c->socket_path, env, sizeof(env)) != 0 ||
        setenv(PERFQ_STAT_CHANNEL_ENV, env, 1) != 0)
        goto fail;
    cli_note_injected(PERFQ_STAT_CHANNEL_ENV, env, 0);
    return c;
fail:
    fprintf(stderr, "perfq stat: cannot make the layers' channel: %s\n", strerror(errno));
    stat_collect_close(&c);
    return NULL;
}

void stat_collect_set_stats_span(struct stat_collect *c, uint64_t ns)
{
    c->span_ns = ns;
    __atomic_store_n(&c->page->stats_span_ns, ns, __ATOMIC_RELAXED);
}

void stat_collect_set_no_stats(struct stat_collect *c)
{
    c->no_stats = 1;
    __atomic_or_fetch(&c->page->flags, PERFQ_STAT_PAGE_NO_STATS, __ATOMIC_RELAXED);
}

void stat_collect_set_per_draw(struct stat_collect *c)
{
    c->per_draw = 1;
    __atomic_or_fetch(&c->page->flags, PERFQ_STAT_PAGE_PER_DRAW, __ATOMIC_RELAXED);
}

int stat_collect_start(struct stat_collect *c)
{
    unsetenv(PERFQ_STAT_CHANNEL_ENV);
    if (pthread_create(&c->thread, NULL, drain, c) != 0)
        return -1;
    c->running = 1;
    return 0;
}

/* 1 while a process runs: there, and neither a zombie nor dead (CMD itself is a zombie when
 * the report is made: perfq waits for it with WNOWAIT). */
static int process_runs(uint32_t pid)
{
    char state = cli_process_state(pid);
    return state && state != 'Z' && state != 'X';
}

void stat_collect_finish(struct stat_collect *c)
{
    if (!c->running)
        return;
    char b = 1;
    if (write(c->stop[1], &b, 1) != 1)
        close(c->stop[1]);   /* poll then sees the pipe's end: the thread stops either way */
    pthread_join(c->thread, NULL);
    c->running = 0;
    for (size_t i = 0; i < c->pids.n; i++) {
        const struct stat_key *k = stat_keys_at(&c->pids, i);
        c->outliving += (uint64_t)process_runs(k->pid);
    }
}

void stat_collect_close(struct stat_collect **pc)
{
    struct stat_collect *c = *pc;
    if (!c)
        return;
    stat_collect_finish(c);
    perfq_stat_socket_close(c->socket_fd, c->socket_path);
    if (c->page_fd >= 0)
        close(c->page_fd);
    if (c->stop[0] >= 0)
        close(c->stop[0]);
    if (c->stop[1] >= 0)
        close(c->stop[1]);
    perfq_stat_ring_close(&c->ring);
    timeline_close(&c->timeline);
    stat_keys_free(&c->contexts);
    stat_keys_free(&c->pids);
    stat_keys_free(&c->memory);
    stat_keys_free(&c->tags);
    stat_keys_free(&c->cl_processes);
    series_free(&c->cpu_ns);
    series_free(&c->gpu_ns);
    series_free(&c->vertices);
    for (int i = 0; i < PERFQ_STAT_PIPE_COUNT; i++)
        series_free(&c->pipe[i]);
    series_free(&c->draw_ns);
    series_free(&c->draw_vertices);
    series_free(&c->draw_primitives);
    series_free(&c->draws_per_frame);
    for (size_t i = 0; i < c->n_kernels; i++)
        series_free(&c->kernels[i].ns);
    for (size_t i = 0; i < c->n_types; i++)
        series_free(&c->types[i].ns);
    free(c);
    *pc = NULL;
}

/* The writers' drops (ring full) and the slots the reader gave up. Read after
 * stat_collect_finish, or racily by the progress line. */
static uint64_t dropped(const struct stat_collect *c)
{
    return perfq_stat_ring_dropped(&c->ring);
}

/* Records that were not the layers' (a program wrote on the ring), and a head a program
 * scribbled on (once). */
static uint64_t malformed(const struct stat_collect *c)
{
    return c->malformed + (c->ring.corrupt ? 1 : 0);
}

void stat_collect_progress(struct stat_collect *c, uint64_t *frames, uint64_t *commands)
{
    *frames = __atomic_load_n(&c->progress_frames, __ATOMIC_RELAXED);
    *commands = __atomic_load_n(&c->progress_commands, __ATOMIC_RELAXED);
}

struct timeline *stat_collect_timeline(struct stat_collect *c)
{
    return c->timeline;
}

uint64_t stat_collect_dropped(const struct stat_collect *c)
{
    return dropped(c);
}

static uint64_t attached(const struct stat_collect *c)
{
    return c->page ? __atomic_load_n(&c->page->attached, __ATOMIC_RELAXED) : 0;
}

uint64_t stat_collect_attached(const struct stat_collect *c)
{
    return attached(c);
}

/* ---- output ---------------------------------------------------------------------------------- */

static void table_series(FILE *out, const char *what, struct series *s, double scale,
                         const char *unit)
{
    fprintf(out, "   %-22s mean %10.3f  p50 %10.3f  p95 %10.3f  p99 %10.3f  max %10.3f %s%s\n",
            what, series_mean(s) / scale, (double)series_percentile(s, 50) / scale,
            (double)series_percentile(s, 95) / scale, (double)series_percentile(s, 99) / scale,
            (double)s->max / scale, unit, series_sampled(s) ? " (percentiles sampled)" : "");
}

static void table_groups(FILE *out, const char *title, struct group *g, size_t n)
{
    if (!n)
        return;
    /* The name column as wide as the longest name (kernel names run long: clpeak's
     * global_bandwidth_v16_global_offset), at least 24 and at most 64 columns. */
    int width = 24;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(g[i].name);
        if (len > (size_t)width)
            width = len > 64 ? 64 : (int)len;
    }
    fprintf(out, "   %-*s %8s %14s %12s %12s %14s\n", width, title, "count", "total ms",
            "mean us", "p95 us", "bytes");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "   %-*s %8" PRIu64 " %14.3f %12.3f %12.3f %14" PRIu64 "%s%s\n", width,
                g[i].name,
                g[i].count, (double)g[i].ns.sum / 1e6, series_mean(&g[i].ns) / 1e3,
                (double)series_percentile(&g[i].ns, 95) / 1e3, g[i].bytes,
                g[i].timed < g[i].count ? "  (some without time)" : "",
                series_sampled(&g[i].ns) ? "  (p95 sampled)" : "");
}

void stat_collect_print_table(struct stat_collect *c, FILE *out)
{
    /* Loads of a layer (each layer in each process counts once) and the processes whose
     * records arrived: a process may load a layer and send nothing (clinfo: no command). */
    fprintf(out, " Layers (%" PRIu64 " loaded, records from %s%zu process%s):\n", attached(c),
            at_least(&c->pids), c->pids.n, c->pids.n == 1 ? "" : "es");
    uint64_t frames = frames_rendered(c);
    if (frames) {
        fprintf(out, "   %" PRIu64 " frames in %s%zu contexts; %" PRIu64 " with GPU time\n",
                frames, at_least(&c->contexts), c->contexts.n, c->frames_gpu);
        if (frames > c->frames)
            fprintf(out, "   (%" PRIu64 " frames' records dropped: counted from the frames' "
                    "numbers; the per-frame figures are of the others)\n", frames - c->frames);
        table_series(out, "CPU frame time", &c->cpu_ns, 1e6, "ms");
        if (c->frames_gpu)
            table_series(out, "GPU time per frame", &c->gpu_ns, 1e6, "ms");
        if (c->frames_vertices)
            fprintf(out, "   %-22s mean %10.1f  min %" PRIu64 "  max %" PRIu64
                    " (%" PRIu64 " frames)\n", "vertices per frame", series_mean(&c->vertices),
                    c->vertices.min, c->vertices.max, c->frames_vertices);
        for (int i = 1; i < PERFQ_STAT_PIPE_COUNT; i++)
            if (c->pipe[i].count)
                fprintf(out, "   %-22s mean %10.1f  min %" PRIu64 "  max %" PRIu64
                        " (%" PRIu64 " frames)\n", pipe_names[i][1], series_mean(&c->pipe[i]),
                        c->pipe[i].min, c->pipe[i].max, c->pipe[i].count);
        if (c->spans)
            fprintf(out, "   pipeline statistics: %" PRIu64 " frames in %" PRIu64 " spans, %"
                    PRIu64 " of them in spans of several frames (--stats-span %.3g ms: frames"
                    " share a span until it lasts that long; per frame: its totals / its"
                    " frames)%s\n", c->span_frames, c->spans, c->shared_frames,
                    (double)c->span_ns / 1e6, c->span_gaps ? "; some spans lost" : "");
        else if (c->no_stats)
            fprintf(out, "   pipeline statistics: not measured (--no-stats)\n");
        else
            fprintf(out, "   pipeline statistics: none came (the contexts had no"
                    " GL_ARB_pipeline_statistics_query, as OpenGL ES has none, or no span ended"
                    " before the program did)\n");
    } else {
        fprintf(out, "   no frames (no EGL or GLX swap through the GL layer)\n");
    }
    if (c->per_draw) {
        fprintf(out, "   %" PRIu64 " draw calls; %" PRIu64 " with GPU time\n", c->draws,
                c->draws_gpu);
        if (c->draws_per_frame.count)
            fprintf(out, "   %-22s mean %10.1f  min %" PRIu64 "  max %" PRIu64
                    " (%" PRIu64 " frames)\n", "draws per frame",
                    series_mean(&c->draws_per_frame), c->draws_per_frame.min,
                    c->draws_per_frame.max, c->draws_per_frame.count);
        if (c->draws_gpu)
            table_series(out, "GPU time per draw", &c->draw_ns, 1e3, "us");
        if (c->draws_vertices)
            fprintf(out, "   %-22s mean %10.1f  min %" PRIu64 "  max %" PRIu64
                    "  total %" PRIu64 " (%" PRIu64 " draws)\n", "vertices per draw",
                    series_mean(&c->draw_vertices), c->draw_vertices.min, c->draw_vertices.max,
                    c->draw_vertices.sum, c->draws_vertices);
        if (c->draws_primitives)
            fprintf(out, "   %-22s mean %10.1f  min %" PRIu64 "  max %" PRIu64
                    "  total %" PRIu64 " (%" PRIu64 " draws)\n", "primitives per draw",
                    series_mean(&c->draw_primitives), c->draw_primitives.min,
                    c->draw_primitives.max, c->draw_primitives.sum, c->draws_primitives);
    }
    if (c->memory.n) {
        uint64_t kib[3], objects[3];
        memory_sum(c, kib, objects);
        fprintf(out, "   GL memory at its peak (%zu share groups%s):", c->memory.n,
                c->memory.refused ? ", more not counted" : "");
        for (int k = 0; k < 3; k++)
            fprintf(out, " %s %" PRIu64 " KiB (%" PRIu64 " objects)%s", memory_kinds[k], kib[k],
                    objects[k], k < 2 ? "," : "");
        fprintf(out, "; total %" PRIu64 " KiB\n", kib[0] + kib[1] + kib[2]);
    }
    if (c->tags.n) {
        fprintf(out, "   GL memory by tag, each at its own peak%s:\n",
                c->tags.refused ? " (more tags not counted)" : "");
        for (size_t i = 0; i < c->tags.n; i++) {
            const struct memory_tag *t = stat_keys_at(&c->tags, i);
            fprintf(out, "     tag %-4" PRIu64 " %-24s %10" PRIu64 " KiB (%" PRIu64 " objects)",
                    t->key.id, t->name[0] ? t->name : "(no string)", t->kib, t->objects);
            if (c->pids.n > 1 || c->memory.n > 1)
                fprintf(out, "  pid %" PRIu32 " share group %zu", t->key.pid, memory_index(c, t));
            fprintf(out, "\n");
        }
    }
    uint64_t counted, unreported = cl_unreported(c, &counted);
    if (unreported)
        fprintf(out, "   at least %" PRIu64 " more OpenCL commands were enqueued and never read:"
                " their process ended (_exit, a signal) before perfq's layer read them, or the"
                " channel dropped their records\n", unreported);
    if (c->commands) {
        fprintf(out, "   %" PRIu64 " OpenCL commands\n", c->commands);
        table_groups(out, "kernel", c->kernels, c->n_kernels);
        table_groups(out, "command type", c->types, c->n_types);
    } else {
        fprintf(out, "   no OpenCL commands\n");
    }
    uint64_t d = dropped(c);
    if (d || malformed(c))
        fprintf(out, "   %" PRIu64 " records dropped (channel full), %" PRIu64 " malformed\n",
                d, malformed(c));
    if (untracked(c))
        fprintf(out, "   %" PRIu64 " records of contexts, processes, share groups or tags past "
                "the %u kept of each (counts above are lower bounds)\n", untracked(c),
                STAT_KEYS_MAX);
    if (c->outliving)
        fprintf(out, "   %" PRIu64 " process%s that sent records still ran when CMD exited: "
                "what %s later is not in this report\n", c->outliving,
                c->outliving == 1 ? "" : "es", c->outliving == 1 ? "it sends" : "they send");
    fprintf(out, "\n");
}

static void json_series(FILE *out, const char *name, struct series *s)
{
    fprintf(out, "\"%s\": {\"count\": %" PRIu64 ", \"mean\": %.17g, \"p50\": %" PRIu64
            ", \"p95\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"min\": %" PRIu64 ", \"max\": %"
            PRIu64 ", \"sampled\": %s}", name, s->count, series_mean(s),
            series_percentile(s, 50), series_percentile(s, 95), series_percentile(s, 99),
            s->count ? s->min : 0, s->max, series_sampled(s) ? "true" : "false");
}

static void json_groups(FILE *out, struct group *g, size_t n)
{
    fprintf(out, "[");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s{\"name\": ", i ? ", " : "");
        json_string(out, g[i].name);
        fprintf(out, ", \"count\": %" PRIu64 ", \"timed\": %" PRIu64 ", \"total_ns\": %" PRIu64
                ", \"mean_ns\": %.17g, \"p95_ns\": %" PRIu64 ", \"bytes\": %" PRIu64
                ", \"sampled\": %s}",
                g[i].count, g[i].timed, g[i].ns.sum, series_mean(&g[i].ns),
                series_percentile(&g[i].ns, 95), g[i].bytes,
                series_sampled(&g[i].ns) ? "true" : "false");
    }
    fprintf(out, "]");
}

void stat_collect_print_json(struct stat_collect *c, FILE *out)
{
    fprintf(out, "\"frames\": {\"count\": %" PRIu64 ", \"received\": %" PRIu64
            ", \"contexts\": %zu, \"with_gpu_time\": %" PRIu64 ", ", frames_rendered(c), c->frames,
            c->contexts.n, c->frames_gpu);
    json_series(out, "cpu_frame_ns", &c->cpu_ns);
    fprintf(out, ", ");
    json_series(out, "gpu_frame_ns", &c->gpu_ns);
    fprintf(out, ", ");
    json_series(out, "vertices", &c->vertices);
    fprintf(out, ", \"pipeline\": {");
    int first = 1;
    for (int i = 0; i < PERFQ_STAT_PIPE_COUNT; i++) {
        struct series *ps = i ? &c->pipe[i] : &c->vertices;
        if (!ps->count)
            continue;   /* the driver does not report it: left out, never a zero */
        fprintf(out, "%s", first ? "" : ", ");
        json_series(out, pipe_names[i][0], ps);
        first = 0;
    }
    fprintf(out, "}, \"pipeline_spans\": {\"span_ns\": %" PRIu64 ", \"spans\": %" PRIu64
            ", \"frames\": %" PRIu64 ", \"frames_in_shared_spans\": %" PRIu64 ", \"gaps\": %"
            PRIu64 "}", c->span_ns, c->spans, c->span_frames, c->shared_frames, c->span_gaps);
    uint64_t kib[3], objects[3];
    memory_sum(c, kib, objects);
    if (c->per_draw) {
        fprintf(out, "}, \"draws\": {\"count\": %" PRIu64 ", \"with_gpu_time\": %" PRIu64
                ", \"with_vertices\": %" PRIu64 ", \"with_primitives\": %" PRIu64 ", ",
                c->draws, c->draws_gpu, c->draws_vertices, c->draws_primitives);
        json_series(out, "gpu_draw_ns", &c->draw_ns);
        fprintf(out, ", ");
        json_series(out, "per_frame", &c->draws_per_frame);
        fprintf(out, ", ");
        json_series(out, "vertices", &c->draw_vertices);
        fprintf(out, ", \"vertices_total\": %" PRIu64 ", ", c->draw_vertices.sum);
        json_series(out, "primitives", &c->draw_primitives);
        fprintf(out, ", \"primitives_total\": %" PRIu64, c->draw_primitives.sum);
    }
    fprintf(out, "}, \"gl_memory\": {\"share_groups\": %zu", c->memory.n);
    for (int k = 0; k < 3; k++)
        fprintf(out, ", \"%s_kib\": %" PRIu64 ", \"%s_objects\": %" PRIu64, memory_kinds[k],
                kib[k], memory_kinds[k], objects[k]);
    fprintf(out, ", \"total_kib\": %" PRIu64, kib[0] + kib[1] + kib[2]);
    fprintf(out, ", \"tags\": [");
    for (size_t i = 0; i < c->tags.n; i++) {
        const struct memory_tag *t = stat_keys_at(&c->tags, i);
        fprintf(out, "%s{\"pid\": %" PRIu32 ", \"share_group\": %zu, \"id\": %" PRIu64
                ", \"name\": ", i ? ", " : "", t->key.pid, memory_index(c, t), t->key.id);
        json_string(out, t->name);
        fprintf(out, ", \"kib\": %" PRIu64 ", \"objects\": %" PRIu64 "}", t->kib, t->objects);
    }
    fprintf(out, "]");
    uint64_t counted, unreported = cl_unreported(c, &counted);
    fprintf(out, "}, \"opencl\": {\"commands\": %" PRIu64 ", \"counted\": %" PRIu64
            ", \"unreported\": %" PRIu64 ", \"by_kernel\": ", c->commands, counted, unreported);
    json_groups(out, c->kernels, c->n_kernels);
    fprintf(out, ", \"by_command_type\": ");
    json_groups(out, c->types, c->n_types);
    fprintf(out, "}, \"channel\": {\"attached\": %" PRIu64 ", \"processes\": %zu, \"dropped\": %"
            PRIu64 ", \"malformed\": %" PRIu64 ", \"untracked\": %" PRIu64
            ", \"handed_over\": %" PRIu64 ", \"outliving\": %" PRIu64 "}", attached(c),
            c->pids.n, dropped(c), malformed(c), untracked(c), c->handed_over, c->outliving);
}

/* A field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a quote or a
 * line break; tag strings are the program's. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A series: its min last (the 15th field, added 2026-11-30: the table and JSON had it), empty
 * where it has no value. */
static void csv_series(FILE *out, const char *section, const char *name, struct series *s)
{
    fprintf(out, "%s,%s,%" PRIu64 ",,%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",,,,,", section, name, s->count, s->sum, series_mean(s),
            series_percentile(s, 50), series_percentile(s, 95), series_percentile(s, 99),
            s->max);
    if (s->count)
        fprintf(out, "%" PRIu64, s->min);
    fputc('\n', out);
}

/* A row of one number, in count. */
static void csv_count(FILE *out, const char *section, const char *name, uint64_t count)
{
    fprintf(out, "%s,%s,%" PRIu64 ",,,,,,,," STAT_CSV_NO_MEMORY "\n", section, name, count);
}

static void csv_groups(FILE *out, const char *section, struct group *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,,%" PRIu64 ",,,%" PRIu64
                STAT_CSV_NO_MEMORY "\n", section, g[i].name, g[i].count, g[i].timed, g[i].ns.sum,
                series_mean(&g[i].ns), series_percentile(&g[i].ns, 95), g[i].bytes);
}

void stat_collect_print_csv(struct stat_collect *c, FILE *out)
{
    /* Names are kernel names (C identifiers) and fixed words: no quoting is ever needed. The
     * frames' counts as JSON's (added 2026-11-30): frames rendered, records received, contexts,
     * frames with GPU time. */
    csv_count(out, "frames", "count", frames_rendered(c));
    csv_count(out, "frames", "received", c->frames);
    csv_count(out, "frames", "contexts", c->contexts.n);
    csv_count(out, "frames", "with_gpu_time", c->frames_gpu);
    csv_series(out, "frames", "cpu_frame_ns", &c->cpu_ns);
    csv_series(out, "frames", "gpu_frame_ns", &c->gpu_ns);
    csv_series(out, "frames", "vertices", &c->vertices);
    for (int i = 1; i < PERFQ_STAT_PIPE_COUNT; i++)
        if (c->pipe[i].count)
            csv_series(out, "frames", pipe_names[i][0], &c->pipe[i]);
    /* The span rule: spans in count, frames in spans of several in timed, the rule in total
     * (ns); the frames they cover are the statistics rows' count. */
    fprintf(out, "frames,pipeline_spans,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",,,,,,"
            STAT_CSV_NO_MEMORY "\n", c->spans, c->shared_frames, c->span_ns);
    if (c->per_draw) {
        fprintf(out, "draws,count,%" PRIu64 ",%" PRIu64 ",,,,,,," STAT_CSV_NO_MEMORY "\n",
                c->draws, c->draws_gpu);
        csv_count(out, "draws", "with_vertices", c->draws_vertices);
        csv_count(out, "draws", "with_primitives", c->draws_primitives);
        csv_series(out, "draws", "gpu_draw_ns", &c->draw_ns);
        csv_series(out, "draws", "per_frame", &c->draws_per_frame);
        csv_series(out, "draws", "vertices", &c->draw_vertices);
        csv_series(out, "draws", "primitives", &c->draw_primitives);
    }
    /* GL memory as JSON has it: objects in count, KiB in kib (GL_NV_query_resource's unit,
     * each object rounded up to whole KiB: bytes would claim a precision it does not have);
     * a tag's share group (JSON's index) and id in their own fields, its string as name. */
    uint64_t kib[3], objects[3];
    memory_sum(c, kib, objects);
    for (int k = 0; k < 3; k++)
        fprintf(out, "gl_memory,%s,%" PRIu64 ",,,,,,,,,%" PRIu64 ",,,\n", memory_kinds[k],
                objects[k], kib[k]);
    for (size_t i = 0; i < c->tags.n; i++) {
        const struct memory_tag *t = stat_keys_at(&c->tags, i);
        fprintf(out, "gl_memory_tag,");
        csv_field(out, t->name);
        fprintf(out, ",%" PRIu64 ",,,,,,,,,%" PRIu64 ",%zu,%" PRIu64 ",\n", t->objects, t->kib,
                memory_index(c, t), t->key.id);
    }
    csv_groups(out, "opencl_kernel", c->kernels, c->n_kernels);
    csv_groups(out, "opencl_command_type", c->types, c->n_types);
    uint64_t counted, unreported = cl_unreported(c, &counted);
    csv_count(out, "opencl", "counted", counted);
    csv_count(out, "opencl", "unreported", unreported);
    csv_count(out, "channel", "dropped", dropped(c));
    csv_count(out, "channel", "processes", c->pids.n);
    csv_count(out, "channel", "untracked", untracked(c));
    csv_count(out, "channel", "outliving", c->outliving);
}
