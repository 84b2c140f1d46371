/* The streaming Trace Event Format writer: see trace_writer.h. */
#include "trace_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define NAME_SLOTS (2u * TRACE_MAX_NAMES)
#define OTHER_NAME (TRACE_MAX_NAMES - 1u)
#define MAX_NOTES 16
#define FLUSH_EVERY_NS 100000000ull

struct event {
    int64_t ts;                 /* ns since t0 */
    uint64_t dur;
    uint64_t seq;               /* arrival order: ties keep it */
    uint32_t pid, tid;
    double value;               /* "C" */
    const char *cat;
    struct trace_arg args[TRACE_MAX_ARGS];
    uint16_t name;              /* index into names */
    uint8_t nargs;
    char ph;
};

struct trace {
    pthread_mutex_t lock;
    FILE *f;
    uint64_t t0;
    struct event *heap;
    size_t n;
    uint64_t seq;
    int64_t emitted;            /* the latest timestamp written */
    uint64_t hold;              /* trace_hold's CLOCK_MONOTONIC ns; 0: none */
    uint64_t events, out_of_order;
    uint64_t last_flush;
    int first;                  /* no event written yet (no comma before the next) */
    char **names;               /* TRACE_MAX_NAMES; the last is "(other)" */
    uint32_t *slots;            /* NAME_SLOTS: name index + 1; 0 free */
    size_t n_names;
    uint64_t other_events;      /* events whose name became "(other)" */
    struct trace_arg notes[MAX_NOTES];
    size_t n_notes;
};

static uint16_t intern(struct trace *t, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    for (size_t i = 0; i < NAME_SLOTS; i++) {
        uint32_t *slot = &t->slots[(h + i) % NAME_SLOTS];
        if (!*slot) {
            if (t->n_names >= OTHER_NAME)
                break;
            char *copy = strdup(name);
            if (!copy)
                break;
            t->names[t->n_names] = copy;
            *slot = (uint32_t)(++t->n_names);
            return (uint16_t)(*slot - 1);
        }
        if (strcmp(t->names[*slot - 1], name) == 0)
            return (uint16_t)(*slot - 1);
    }
    t->other_events++;
    return OTHER_NAME;
}

static void write_us(FILE *f, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)(-ns) : (uint64_t)ns;
    fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000u, (unsigned)(a % 1000u));
}

static void begin_line(struct trace *t)
{
    fputs(t->first ? "\n" : ",\n", t->f);
    t->first = 0;
}

static void write_event(struct trace *t, const struct event *e)
{
    begin_line(t);
    fprintf(t->f, "{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", e->ph,
            e->pid, e->tid);
    write_us(t->f, e->ts);
    if (e->ph == 'X') {
        fputs(",\"dur\":", t->f);
        write_us(t->f, (int64_t)e->dur);
        fprintf(t->f, ",\"cat\":\"%s\"", e->cat);
    }
    fputs(",\"name\":", t->f);
    json_string(t->f, t->names[e->name]);
    fputs(",\"args\":{", t->f);
    if (e->ph == 'C')
        fprintf(t->f, "\"value\":%.17g", e->value);
    for (int i = 0; i < e->nargs; i++)
        fprintf(t->f, "%s\"%s\":%" PRIu64, i || e->ph == 'C' ? "," : "", e->args[i].key,
                e->args[i].value);
    fputs("}}", t->f);
    t->events++;
    if (e->ts < t->emitted)
        t->out_of_order++;
    else
        t->emitted = e->ts;
}

static int before(const struct event *a, const struct event *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void heap_push(struct trace *t, const struct event *e)
{
    size_t i = t->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(e, &t->heap[up]))
            break;
        t->heap[i] = t->heap[up];
        i = up;
    }
    t->heap[i] = *e;
}

static void heap_pop_write(struct trace *t)
{
    write_event(t, &t->heap[0]);
    struct event last = t->heap[--t->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct event *best = &last;
        if (l < t->n && before(&t->heap[l], best)) {
            m = l;
            best = &t->heap[l];
        }
        if (r < t->n && before(&t->heap[r], best))
            m = r;
        if (m == i)
            break;
        t->heap[i] = t->heap[m];
        i = m;
    }
    if (t->n)
        t->heap[i] = last;
}

/* Under the lock: lets out what is older than the horizon, flushes now and then. */
static void release(struct trace *t, uint64_t now)
{
    int64_t limit = (int64_t)(now - t->t0) - (int64_t)TRACE_HORIZON_NS;
    /* A frame in progress since hold: its event will start there. Held at most
     * TRACE_HOLD_MAX_NS (memory stays bounded by the window either way). */
    if (t->hold && now - t->hold < TRACE_HOLD_MAX_NS && (int64_t)(t->hold - t->t0) < limit)
        limit = (int64_t)(t->hold - t->t0);
    while (t->n && t->heap[0].ts < limit)
        heap_pop_write(t);
    if (now - t->last_flush >= FLUSH_EVERY_NS) {
        fflush(t->f);
        t->last_flush = now;
    }
}

static void add(struct trace *t, struct event *e)
{
    pthread_mutex_lock(&t->lock);
    e->seq = t->seq++;
    if (t->n == TRACE_WINDOW)
        heap_pop_write(t);
    heap_push(t, e);
    pthread_mutex_unlock(&t->lock);
}

struct trace *trace_open(FILE *f, uint64_t t0_ns)
{
    struct trace *t = calloc(1, sizeof(*t));
    if (!t || !(t->heap = calloc(TRACE_WINDOW, sizeof(*t->heap))) ||
        !(t->names = calloc(TRACE_MAX_NAMES, sizeof(*t->names))) ||
        !(t->slots = calloc(NAME_SLOTS, sizeof(*t->slots)))) {
        if (t) {
            free(t->heap);
            free(t->names);
        }
        free(t);
        return NULL;
    }
    pthread_mutex_init(&t->lock, NULL);
    t->f = f;
    t->t0 = t0_ns;
    t->first = 1;
    t->last_flush = cli_monotonic_ns();
    t->names[OTHER_NAME] = "(other)";
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    fflush(f);
    return t;
}

static void metadata(struct trace *t, const char *what, uint32_t pid, uint32_t tid,
                     const char *name, int sort_index)
{
    pthread_mutex_lock(&t->lock);
    begin_line(t);
    fprintf(t->f, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"name\":\"%s_name\","
            "\"args\":{\"name\":", pid, tid, what);
    json_string(t->f, name);
    fputs("}}", t->f);
    begin_line(t);
    fprintf(t->f, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"name\":\"%s_sort_index\","
            "\"args\":{\"sort_index\":%d}}", pid, tid, what, sort_index);
    pthread_mutex_unlock(&t->lock);
}

void trace_process_name(struct trace *t, uint32_t pid, const char *name, int sort_index)
{
    metadata(t, "process", pid, 0, name, sort_index);
}

void trace_thread_name(struct trace *t, uint32_t pid, uint32_t tid, const char *name,
                       int sort_index)
{
    metadata(t, "thread", pid, tid, name, sort_index);
}

void trace_complete(struct trace *t, uint32_t pid, uint32_t tid, uint64_t begin_ns,
                    uint64_t end_ns, const char *cat, const char *name,
                    const struct trace_arg *args, int nargs)
{
    struct event e = {.ph = 'X', .pid = pid, .tid = tid, .cat = cat};
    e.ts = (int64_t)(begin_ns - t->t0);
    e.dur = end_ns > begin_ns ? end_ns - begin_ns : 0;
    e.nargs = (uint8_t)(nargs < TRACE_MAX_ARGS ? nargs : TRACE_MAX_ARGS);
    memcpy(e.args, args, e.nargs * sizeof(*args));
    pthread_mutex_lock(&t->lock);
    e.name = intern(t, name);
    pthread_mutex_unlock(&t->lock);
    add(t, &e);
}

void trace_counter(struct trace *t, uint32_t pid, uint64_t ns, const char *name, double value)
{
    trace_counter_args(t, pid, ns, name, value, NULL, 0);
}

void trace_counter_args(struct trace *t, uint32_t pid, uint64_t ns, const char *name,
                        double value, const struct trace_arg *args, int nargs)
{
    struct event e = {.ph = 'C', .pid = pid, .value = value};
    e.ts = (int64_t)(ns - t->t0);
    e.nargs = (uint8_t)(nargs < TRACE_MAX_ARGS ? nargs : TRACE_MAX_ARGS);
    if (e.nargs)
        memcpy(e.args, args, e.nargs * sizeof(*args));
    pthread_mutex_lock(&t->lock);
    e.name = intern(t, name);
    pthread_mutex_unlock(&t->lock);
    add(t, &e);
}

void trace_tick(struct trace *t, uint64_t now)
{
    pthread_mutex_lock(&t->lock);
    release(t, now);
    pthread_mutex_unlock(&t->lock);
}

void trace_hold(struct trace *t, uint64_t hold_ns)
{
    pthread_mutex_lock(&t->lock);
    t->hold = hold_ns;
    pthread_mutex_unlock(&t->lock);
}

void trace_note(struct trace *t, const char *key, uint64_t value)
{
    pthread_mutex_lock(&t->lock);
    size_t i = 0;
    while (i < t->n_notes && strcmp(t->notes[i].key, key) != 0)
        i++;
    if (i < MAX_NOTES) {
        t->notes[i] = (struct trace_arg){key, value};
        if (i == t->n_notes)
            t->n_notes++;
    }
    pthread_mutex_unlock(&t->lock);
}

int trace_close(struct trace **pt)
{
    struct trace *t = *pt;
    if (!t)
        return 0;
    *pt = NULL;
    while (t->n)
        heap_pop_write(t);
    fprintf(t->f, "\n],\"otherData\":{\"generator\":\"perfq record\",\"events\":%" PRIu64
            ",\"events_out_of_order\":%" PRIu64 ",\"events_named_other\":%" PRIu64, t->events,
            t->out_of_order, t->other_events);
    for (size_t i = 0; i < t->n_notes; i++)
        fprintf(t->f, ",\"%s\":%" PRIu64, t->notes[i].key, t->notes[i].value);
    fputs("}}\n", t->f);
    int rc = fflush(t->f) == 0 && !ferror(t->f) ? 0 : -1;
    int err = errno;
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    free(t->slots);
    free(t->heap);
    pthread_mutex_destroy(&t->lock);
    free(t);
    errno = err;
    return rc;
}
