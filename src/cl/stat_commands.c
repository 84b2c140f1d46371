/*
 * The OpenCL side of `perfq stat --layers` (docs/perfq-stat.md): when PERFQ_STAT_CHANNEL names a
 * valid channel, every NDRange/task/native kernel, transfer, fill, marker and barrier command
 * (the FORWARD_COUNTED wrappers) is sent to the CLI once it completes: its command type, the
 * kernel's name, the bytes it moves (the same rules as Bytes Transferred) and END - START from
 * the driver's event profiling.
 *
 * For that every queue gets CL_QUEUE_PROFILING_ENABLE underneath (next_create in
 * queue_properties.c, and clCreateCommandQueue here); clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)
 * still answers the program's own bits. A command enqueued without an event gets an internal one,
 * released by the layer when read. The layer holds each command's event (the program's,
 * retained) until the command is CL_COMPLETE, and reads START/END in batches from the program's
 * own threads: after each command it sends, after clFinish and clWaitForEvents, and at exit
 * (below: "pending"). No CL_COMPLETE callback: a driver runs those on a thread of its own, a
 * wake-up and a context switch per command.
 *
 * Timeline mode (`perfq record`, docs/perfq-record.md): each queue is announced once (its
 * device's name); each enqueue call is sent from the calling thread as it returns (CPU start and
 * end); each completed command also carries CL_PROFILING_COMMAND_QUEUED and START on the device
 * clock with the enqueue call's CPU bracket, from which the CLI correlates the two clocks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cl/command_counters.h"
#include "cl/stat_commands.h"
#include "core/stat_channel.h"

int perfq_cl_stat_on;

/* A queue created under perfq stat: whether the layer turned profiling on under it, and the
 * properties the program passed, for CL_QUEUE_PROPERTIES_ARRAY (OpenCL 3.0: "the values
 * specified in the properties argument in the same order and without including additional
 * properties"; size 0 for clCreateCommandQueue or a NULL list). */
struct stat_queue {
    int profiling_underneath;           /* the layer added CL_QUEUE_PROFILING_ENABLE */
    int hidden_profiling;               /* underneath, and the program has it off */
    unsigned program_refs;              /* the program's references */
    uint64_t released;                  /* 0 while the program holds it; then its release's
                                         * number in released_queues */
    uint64_t serial;                    /* the process's number for it (1, 2, ...): the
                                         * timeline's key, since a released queue's handle is
                                         * often the next one's */
    int out_of_order;                   /* timeline mode: the driver's CL_QUEUE_PROPERTIES
                                         * has OUT_OF_ORDER_EXEC_MODE_ENABLE */
    size_t array_size;                  /* bytes, the terminator included; 0: none */
    cl_queue_properties array[];
};
static struct perfq_cl_table stat_queues = PERFQ_CL_TABLE_INIT;
static uint64_t queue_serials;   /* the last serial given (atomic) */

/* The timeline's key for a queue: its serial, or its handle where the layer has no record of
 * it (out of memory at its creation; a handle is no small number, so the two never meet).
 * *in_order: the queue runs its commands in order (unknown: 0). */
static uint64_t queue_key(cl_command_queue queue, int *in_order)
{
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    int known = sq && !sq->released;
    uint64_t key = known ? sq->serial : (uint64_t)(uintptr_t)queue;
    *in_order = known && !sq->out_of_order;
    pthread_mutex_unlock(&stat_queues.lock);
    return key;
}

/* Queues the program released, newest last. Their records stay a while: the program may still
 * hold events of such a queue and ask their profiling (the driver keeps the queue for them), and
 * must get the same answer as before the release. The oldest record is dropped when the
 * RELEASED_KEPT-th later one is released, so that a long run's table holds the queues the
 * program has and at most RELEASED_KEPT others, not every queue it ever made. Under
 * stat_queues.lock. */
#define RELEASED_KEPT 1024
static struct {
    const void *queue;
    uint64_t number;
} released_queues[RELEASED_KEPT];
static uint64_t released_n;   /* releases so far; the newest's number */

uint64_t perfq_cl_stat_clock(void)
{
    return perfq_stat_now_ns();
}

/* A command sent, not yet read: the record waits for its event to be CL_COMPLETE. The layer
 * holds a reference to the event (its own internal event, or the program's, retained). */
struct pending {
    cl_event event;
    uint64_t order_key;     /* timeline mode, an in-order queue: its key (r.b); 0: none */
    cl_ulong start;         /* CL_PROFILING_COMMAND_START, once read (harvest) */
    struct perfq_stat_record r;
};

/* The commands not yet read, oldest first. Read in batches by the program's own threads, never
 * by a driver callback (NVIDIA runs those on a thread of its own: 17-19 us of wall and 57-63 us
 * of CPU per command against 9.1-9.6 / 17-19 without, bench-cl-stat-events on the H100). They
 * are read after a blocking enqueue, clFinish and clWaitForEvents (then complete, at least those
 * the program waited for), when many are pending (below), and at exit. A command is asked its
 * status only there, not after each enqueue: asking for a command not yet run costs a driver
 * call (and may make it submit early). pending_lock protects pending, pending_n, pending_cap, next_scan
 * and taken_n, and the writes of exit_owner. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t harvest_lock = PTHREAD_MUTEX_INITIALIZER;   /* one harvest at a time */
static struct pending *pending;
static size_t pending_n, pending_cap;
/* When this many are pending, a command sent reads those complete (a program that never waits
 * through a call the layer sees, e.g. one polling its own events). After such a scan leaves L
 * not complete, the next comes after max(L, SCAN_STEP) more commands: O(1) status queries per
 * command, memory bounded by what the driver has in flight plus SCAN_STEP. */
#define SCAN_STEP 32
static size_t next_scan = SCAN_STEP;
static size_t taken_n;     /* taken out of the list by a harvest, not yet read or put back */
static pid_t exit_owner;   /* the process whose exit reads what is left; 0 before the first */
/* Set by read_at_exit: the process is ending. A command another thread enqueues from then on is
 * sent at once without its time, never added to the list the exit reads (threads that enqueue
 * until the process is gone kept that list growing, and the exit never ended). Atomic. */
static int exiting;
/* The commands this process counted (each is sent once read, or counted as dropped), sent to the
 * CLI every PERFQ_STAT_CL_COUNT_STEP and at exit (PERFQ_STAT_CL_COUNTED): a process that ends
 * by _exit or a signal with commands unread has them reported as such, not silently missing.
 * Atomic; a forked child starts again at 0 (after_fork). */
static uint64_t counted_n;
/* Of those, the ones the layer gave up and counted as dropped itself (no memory to keep them,
 * still pending at exit or at the loader's unload): not the CLI's to call unreported. Atomic. */
static uint64_t given_up_n;

static void send_counted(int final)
{
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_CL_COUNTED;
    r.a = __atomic_load_n(&counted_n, __ATOMIC_RELAXED);
    r.b = __atomic_load_n(&given_up_n, __ATOMIC_RELAXED);
    r.flags = final ? PERFQ_STAT_FINAL : 0;
    /* The final count is what tells the CLI how many there were: it waits for room (up to
     * 200 ms at exit) where the others are dropped, as any record, when the ring is full. */
    perfq_stat_channel_send_waiting(&r, final ? 200 : 0);
}

static void count_command(void)
{
    uint64_t n = __atomic_add_fetch(&counted_n, 1, __ATOMIC_RELAXED);
    if (n % PERFQ_STAT_CL_COUNT_STEP == 0)
        send_counted(0);
}

/* Commands the layer gives up: counted as dropped, and told to the CLI with the next count. */
static void give_up(size_t n)
{
    perfq_stat_channel_count_drops(n);
    __atomic_add_fetch(&given_up_n, (uint64_t)n, __ATOMIC_RELAXED);
}

/* A forked child: the pending commands are its parent's to read (their events are the
 * parent's), its own are counted from 0 and read at its own exit. The lock is made anew: another
 * thread of the parent may have held it at the fork. */
static void after_fork(void)
{
    pthread_mutex_init(&pending_lock, NULL);
    pthread_mutex_init(&harvest_lock, NULL);
    pending = NULL;      /* the parent's copy: not freed, not released */
    pending_n = pending_cap = 0;
    taken_n = 0;
    next_scan = SCAN_STEP;
    exit_owner = 0;
    counted_n = given_up_n = 0;
    exiting = 0;
}

/* Reads the times of a completed command into its record (END - START; in timeline mode also
 * QUEUED and START). status: the event's execution status (negative: terminated abnormally,
 * no time). */
static void read_times(struct pending *p, cl_int status)
{
    cl_ulong start = 0, end = 0;
    if (status == CL_COMPLETE &&
        perfq_cl_next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_START,
                                              sizeof(start), &start, NULL) == CL_SUCCESS &&
        perfq_cl_next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_END, sizeof(end),
                                              &end, NULL) == CL_SUCCESS &&
        end >= start) {
        p->r.flags |= PERFQ_STAT_HAS_GPU_TIME;
        p->r.c = end - start;
        p->start = start;
        cl_ulong queued = 0;
        if (p->r.t1 &&
            perfq_cl_next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_QUEUED,
                                                  sizeof(queued), &queued, NULL) ==
                CL_SUCCESS &&
            queued && queued <= start) {
            p->r.flags |= PERFQ_STAT_HAS_INTERVAL;
            p->r.g0 = queued;
            p->r.g1 = start;
        }
    }
}

/* The order harvest sends in (perfq record): an in-order queue's commands reach perfq in the
 * order they ran, as its track is laid out in the order they come. A pass asks the commands
 * their status one after another while the device runs, so an earlier command found not
 * complete may be complete by the time a later one of its queue is asked: that later one (and
 * every later one of the queue) waits for the next pass. What one pass sends goes queue by
 * queue in the order of START. And two threads do not harvest at once (harvest_lock: a second
 * returns at once, the first sends what it took, what was added meanwhile waits for the next
 * pass), since each would send its part of one queue's commands. Until 2026-11-30 (an outside
 * probe) up to 791 of 4000 commands of in-order queues came out of order, and perfq record
 * squashed them to 0 ns behind later ones, moved by up to 27.6 ms. */
#define HELD_QUEUES_MAX 32

struct sent_order {
    uint64_t key;
    cl_ulong start;
    size_t i;
};

static int by_queue_and_start(const void *a, const void *b)
{
    const struct sent_order *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int queue_held(const uint64_t *held, size_t n, int all, uint64_t key)
{
    if (all)
        return 1;
    for (size_t k = 0; k < n; k++)
        if (held[k] == key)
            return 1;
    return 0;
}

/* Reads and sends the pending commands that are complete; returns how many are left (also
 * those another thread is reading). The list is taken out under pending_lock and the driver is
 * asked without it: a driver may run a program's event callback inside a status query (a
 * callback may enqueue, which takes the lock). What is not complete goes back in front of what
 * was added meanwhile, oldest first. */
static size_t harvest(void)
{
    const size_t size = sizeof(struct pending);
    if (pthread_mutex_trylock(&harvest_lock) != 0) {
        pthread_mutex_lock(&pending_lock);
        size_t left = pending_n + taken_n;
        pthread_mutex_unlock(&pending_lock);
        return left;
    }
    pthread_mutex_lock(&pending_lock);
    struct pending *t = pending;
    size_t n = pending_n, cap = pending_cap;
    pending = NULL;
    pending_n = pending_cap = 0;
    taken_n += n;
    pthread_mutex_unlock(&pending_lock);
    /* Sent after the pass, sorted (perfq record only: perfq stat's counts need no order;
     * without memory for that: at once, in the list's order). */
    int ordered = perfq_cl_stat_on >= 2 && n;
    struct sent_order *sent = ordered ? malloc(n * sizeof(*sent)) : NULL;
    unsigned char *done = ordered ? calloc(n, 1) : NULL;
    int deferred = sent && done;
    size_t n_sent = 0, keep = 0, n_held = 0;
    uint64_t held[HELD_QUEUES_MAX];
    int all_held = 0;
    for (size_t i = 0; i < n; i++) {
        int complete = 0;
        uint64_t key = t[i].order_key;
        if (!key || !queue_held(held, n_held, all_held, key)) {
            cl_int status = CL_QUEUED;
            if (perfq_cl_next.clGetEventInfo(t[i].event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                             sizeof(status), &status, NULL) != CL_SUCCESS)
                status = CL_INVALID_EVENT;   /* cannot be read: sent without time */
            complete = status == CL_COMPLETE || status < 0;
            if (complete)
                read_times(&t[i], status);
            else if (key && n_held < HELD_QUEUES_MAX)
                held[n_held++] = key;
            else if (key)
                all_held = 1;   /* more queues than kept: every in-order one waits */
        }
        if (deferred) {
            done[i] = (unsigned char)complete;
            if (complete)
                sent[n_sent++] = (struct sent_order){key, t[i].start, i};
        } else if (complete) {
            perfq_stat_channel_send(&t[i].r);
            perfq_cl_next.clReleaseEvent(t[i].event);
        } else {
            t[keep++] = t[i];
        }
    }
    if (deferred) {
        qsort(sent, n_sent, sizeof(*sent), by_queue_and_start);
        for (size_t k = 0; k < n_sent; k++) {
            perfq_stat_channel_send(&t[sent[k].i].r);
            perfq_cl_next.clReleaseEvent(t[sent[k].i].event);
        }
        for (size_t i = 0; i < n; i++)
            if (!done[i])
                t[keep++] = t[i];
    }
    free(sent);
    free(done);
    size_t lost = 0;
    pthread_mutex_lock(&pending_lock);
    taken_n -= n;
    if (t && keep + pending_n <= cap) {   /* t holds both: the usual case */
        if (pending_n)
            memcpy(t + keep, pending, pending_n * size);
        free(pending);
        pending = t;
        pending_cap = cap;
        pending_n += keep;
        t = NULL;
    } else if (keep && keep + pending_n <= pending_cap) {
        memmove(pending + keep, pending, pending_n * size);
        memcpy(pending, t, keep * size);
        pending_n += keep;
        keep = 0;
    } else if (keep) {
        struct pending *both = realloc(t, (keep + pending_n) * size);
        if (both) {
            memcpy(both + keep, pending, pending_n * size);
            free(pending);
            pending = both;
            pending_cap = pending_n += keep;
            t = NULL;
        } else {
            lost = keep;   /* no memory to keep them: counted as dropped below */
        }
    }
    size_t left = pending_n + taken_n;
    next_scan = pending_n + (pending_n > SCAN_STEP ? pending_n : SCAN_STEP);
    pthread_mutex_unlock(&pending_lock);
    if (lost) {
        give_up(lost);
        for (size_t i = 0; i < lost; i++)
            perfq_cl_next.clReleaseEvent(t[i].event);
    }
    free(t);
    pthread_mutex_unlock(&harvest_lock);
    return left;
}

/* At exit (an atexit handler, registered when the first command is sent: after the driver set
 * up its own exit handlers, so it runs before they tear the driver down), the commands still
 * pending: read as they complete for up to READ_AT_EXIT_NS (a program may exit without waiting
 * for its last commands), then what is left is counted as dropped (never silently lost).
 * Commands other threads enqueue meanwhile are sent without time (exiting). Not in a forked
 * child: its copy of the list is its parent's to read. */
#define READ_AT_EXIT_NS 500000000ull
static void read_at_exit(void)
{
    /* Read without the lock: a child forked while another thread held it must not wait. */
    if (__atomic_load_n(&exit_owner, __ATOMIC_ACQUIRE) != getpid())
        return;
    __atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
    uint64_t until = perfq_stat_now_ns() + READ_AT_EXIT_NS;
    size_t left = harvest();
    while (left && perfq_stat_now_ns() < until) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        left = harvest();
    }
    if (left) {
        give_up(left);
        pthread_mutex_lock(&pending_lock);
        pending_n = 0;   /* the process ends: the events are not released */
        pthread_mutex_unlock(&pending_lock);
    }
    send_counted(1);
}

/* Adds a command to the pending list; the list's reference to p->event is taken by the caller.
 * Returns 0, or -1 when out of memory (nothing added). */
static int add_pending(const struct pending *p, int *scan)
{
    pthread_mutex_lock(&pending_lock);
    if (pending_n == pending_cap) {
        size_t cap = pending_cap ? 2 * pending_cap : 64;
        struct pending *grown = realloc(pending, cap * sizeof(*pending));
        if (!grown) {
            pthread_mutex_unlock(&pending_lock);
            return -1;
        }
        pending = grown;
        pending_cap = cap;
    }
    pending[pending_n++] = *p;
    *scan = pending_n >= next_scan;
    int first = __atomic_load_n(&exit_owner, __ATOMIC_RELAXED) == 0;
    if (first)
        __atomic_store_n(&exit_owner, getpid(), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pending_lock);
    if (first)
        atexit(read_at_exit);
    return 0;
}

/* The kernel's name as the record carries it: a name that does not fit (63 bytes) is its first
 * size - 10 bytes, '~' and 8 hex digits of a hash (FNV-1a, 32 bits) of the whole name, so that
 * two long names with the same beginning (C++ templates, SYCL's mangled names) stay two rows. */
static void kernel_name(cl_kernel kernel, char *out, size_t size)
{
    size_t need = 0;
    if (perfq_cl_next.clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, NULL, &need) !=
            CL_SUCCESS || need == 0)
        return;
    char *name = malloc(need);
    if (name && perfq_cl_next.clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, need, name,
                                              NULL) == CL_SUCCESS) {
        name[need - 1] = 0;
        size_t len = strlen(name);
        if (len < size) {
            memcpy(out, name, len + 1);
        } else {
            uint32_t h = 2166136261u;
            for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char)name[i]) * 16777619u;
            snprintf(out, size, "%.*s~%08" PRIx32, (int)(size - 10), name, h);
        }
    }
    free(name);
}

void perfq_cl_stat_command(const struct perfq_cl_command *cmd, cl_int err, cl_event *event,
                           int internal, cl_command_queue queue, uint64_t t0, cl_bool blocking)
{
    uint64_t t1 = t0 ? perfq_stat_now_ns() : 0;
    if (err != CL_SUCCESS || !event || !*event)
        return;
    struct pending p;
    memset(&p, 0, sizeof(p));
    cl_command_type type = 0;
    if (perfq_cl_next.clGetEventInfo(*event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
                                     NULL) != CL_SUCCESS) {
        /* No command type: the command is still counted, as a drop. */
        p.r.kind = 0xffff;
        perfq_stat_channel_send(&p.r);
        if (internal) {
            perfq_cl_next.clReleaseEvent(*event);
            *event = NULL;
        }
        return;
    }
    p.r.kind = PERFQ_STAT_CL_COMMAND;
    p.r.a = type;
    count_command();
    if (cmd->bytes_known) {
        p.r.flags |= PERFQ_STAT_HAS_BYTES;
        p.r.d = cmd->bytes;
    }
    if (cmd->kernel)
        kernel_name(cmd->kernel, p.r.name, sizeof(p.r.name));
    if (t0) {
        /* The CPU side of the call, now, from this thread: a timeline's thread track. */
        struct perfq_stat_record call = p.r;
        call.kind = PERFQ_STAT_CL_ENQUEUE;
        call.flags = 0;
        int in_order = 0;
        call.b = queue_key(queue, &in_order);
        p.order_key = in_order ? call.b : 0;
        call.t0 = t0;
        call.t1 = t1;
        perfq_stat_channel_send(&call);
        p.r.b = call.b;
        p.r.tid = perfq_stat_tid();
        p.r.t0 = t0;
        p.r.t1 = t1;
    }
    /* The layer's reference keeps the program's event valid until the layer has read it. */
    p.event = *event;
    if (internal)
        *event = NULL;   /* the program passed no event: it gets none */
    int scan = 0;
    if (__atomic_load_n(&exiting, __ATOMIC_ACQUIRE)) {
        perfq_stat_channel_send(&p.r);   /* the process is ending: counted, without time */
        if (internal)
            perfq_cl_next.clReleaseEvent(p.event);
        return;
    }
    if (!internal && perfq_cl_next.clRetainEvent(p.event) != CL_SUCCESS) {
        perfq_stat_channel_send(&p.r);   /* counted, without time */
    } else if (add_pending(&p, &scan) != 0) {
        perfq_stat_channel_send(&p.r);
        perfq_cl_next.clReleaseEvent(p.event);
    }
    /* A blocking command has run, and on an in-order queue all before it. */
    if (scan || blocking)
        harvest();
}

void perfq_cl_stat_queue_retained(cl_command_queue queue)
{
    if (!perfq_cl_stat_on)
        return;
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    if (sq && !sq->released)
        sq->program_refs++;
    pthread_mutex_unlock(&stat_queues.lock);
}

void perfq_cl_stat_queue_releasing(cl_command_queue queue)
{
    if (!perfq_cl_stat_on)
        return;
    harvest();
    struct stat_queue *gone = NULL;
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    if (sq && !sq->released && --sq->program_refs == 0) {
        uint64_t number = ++released_n;
        size_t slot = (size_t)(number % RELEASED_KEPT);
        if (number > RELEASED_KEPT) {
            /* The oldest kept goes, unless its handle was reused by a queue made since (that
             * one's record replaced it). */
            struct stat_queue *old =
                perfq_cl_table_find_locked(&stat_queues, released_queues[slot].queue);
            if (old && old->released == released_queues[slot].number)
                gone = perfq_cl_table_remove_locked(&stat_queues, released_queues[slot].queue);
        }
        sq->released = number;
        released_queues[slot].queue = queue;
        released_queues[slot].number = number;
    }
    pthread_mutex_unlock(&stat_queues.lock);
    free(gone);
}

size_t perfq_cl_stat_queue_count(void)
{
    return perfq_cl_table_count_hint(&stat_queues);
}

/* clFinish and clWaitForEvents: the commands they waited for are complete now. */
static cl_int CL_API_CALL Finish_stat(cl_command_queue queue)
{
    cl_int err = perfq_cl_next.clFinish(queue);
    harvest();
    return err;
}

static cl_int CL_API_CALL WaitForEvents_stat(cl_uint n, const cl_event *events)
{
    cl_int err = perfq_cl_next.clWaitForEvents(n, events);
    harvest();
    return err;
}

/* ---- queues: profiling underneath ------------------------------------------------------------ */

const cl_queue_properties *perfq_cl_stat_queue_properties(const cl_queue_properties *in,
                                                          cl_queue_properties *buf, size_t cap,
                                                          int *program_profiling)
{
    size_t n = 0;
    int has = 0;
    *program_profiling = 0;
    for (; in && in[n]; n += 2) {
        if (n + 3 >= cap)
            return in;   /* longer than any real list: passed as it is, without profiling */
        buf[n] = in[n];
        buf[n + 1] = in[n + 1];
        if (in[n] == CL_QUEUE_PROPERTIES) {
            has = 1;
            *program_profiling = (in[n + 1] & CL_QUEUE_PROFILING_ENABLE) != 0;
            buf[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
        }
    }
    if (!has) {
        buf[n++] = CL_QUEUE_PROPERTIES;
        buf[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    buf[n] = 0;
    return buf;
}

void perfq_cl_stat_queue_created(cl_command_queue queue, const cl_queue_properties *program,
                                 int profiling_underneath, int program_profiling)
{
    size_t n = 0;
    while (program && program[n])
        n += 2;
    size_t array_size = program ? (n + 1) * sizeof(*program) : 0;
    struct stat_queue *sq = malloc(sizeof(*sq) + array_size);
    uint64_t key = (uint64_t)(uintptr_t)queue;   /* queue_key's */
    cl_command_queue_properties props = 0;   /* out of order: perfq record's lanes */
    if (perfq_cl_stat_on >= 2 &&
        perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(props), &props,
                                            NULL) != CL_SUCCESS)
        props = 0;
    if (sq) {
        sq->out_of_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
        sq->profiling_underneath = profiling_underneath;
        sq->hidden_profiling = profiling_underneath && !program_profiling;
        sq->program_refs = 1;
        sq->released = 0;
        sq->serial = __atomic_add_fetch(&queue_serials, 1, __ATOMIC_RELAXED);
        sq->array_size = array_size;
        if (array_size)
            memcpy(sq->array, program, array_size);
        void *old = NULL;
        pthread_mutex_lock(&stat_queues.lock);
        if (perfq_cl_table_put_locked(&stat_queues, queue, sq, &old) != 0) {
            free(sq);   /* out of memory: this queue answers as the driver does */
            sq = NULL;
        } else {
            key = sq->serial;
        }
        pthread_mutex_unlock(&stat_queues.lock);
        free(old);      /* a record left by a handle the driver has reused */
    }
    if (perfq_cl_stat_on < 2)
        return;
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_CL_QUEUE;
    r.a = key;
    r.c = props;
    cl_device_id device = NULL;
    if (perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device,
                                            NULL) == CL_SUCCESS && device) {
        r.b = (uint64_t)(uintptr_t)device;
        char name[256] = "";
        if (perfq_cl_next.clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name,
                                          NULL) == CL_SUCCESS)
            snprintf(r.name, sizeof(r.name), "%.*s", (int)sizeof(r.name) - 1, name);
    }
    perfq_stat_channel_send(&r);
}

int perfq_cl_stat_hidden_profiling(cl_command_queue queue)
{
    if (!perfq_cl_stat_on)
        return 0;
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    int hidden = sq && sq->hidden_profiling;
    pthread_mutex_unlock(&stat_queues.lock);
    return hidden;
}

int perfq_cl_stat_queue_profiling(cl_command_queue queue, int *underneath,
                                  int *program_profiling)
{
    if (!perfq_cl_stat_on)
        return 0;
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    if (sq) {
        *underneath = sq->profiling_underneath;
        *program_profiling = !sq->hidden_profiling;
    }
    pthread_mutex_unlock(&stat_queues.lock);
    return sq != NULL;
}

void perfq_cl_stat_queue_set_program_profiling(cl_command_queue queue, int on)
{
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    if (sq)
        sq->hidden_profiling = sq->profiling_underneath && !on;
    pthread_mutex_unlock(&stat_queues.lock);
}

int perfq_cl_stat_queue_array(cl_command_queue queue, cl_queue_properties **array,
                              size_t *array_size)
{
    *array = NULL;
    *array_size = 0;
    if (!perfq_cl_stat_on)
        return 0;
    pthread_mutex_lock(&stat_queues.lock);
    struct stat_queue *sq = perfq_cl_table_find_locked(&stat_queues, queue);
    int found = sq != NULL;
    if (sq && sq->array_size && (*array = malloc(sq->array_size)) != NULL) {
        memcpy(*array, sq->array, sq->array_size);
        *array_size = sq->array_size;
    } else if (sq && sq->array_size) {
        found = -1;
    }
    pthread_mutex_unlock(&stat_queues.lock);
    return found;
}

static cl_command_queue CL_API_CALL CreateCommandQueue_stat(cl_context context,
                                                            cl_device_id device,
                                                            cl_command_queue_properties props,
                                                            cl_int *errcode_ret)
{
    cl_command_queue q = perfq_cl_next.clCreateCommandQueue(
        context, device, props | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
    if (q)
        perfq_cl_stat_queue_created(q, NULL, 1, (props & CL_QUEUE_PROFILING_ENABLE) != 0);
    return q;
}

void perfq_cl_install_stat_commands(cl_icd_dispatch *d)
{
    perfq_cl_stat_on = perfq_stat_channel_timeline() ? 2 : perfq_stat_channel_active();
    if (!perfq_cl_stat_on)
        return;
    static int fork_handled;
    if (!fork_handled++)
        pthread_atfork(NULL, NULL, after_fork);
    if (perfq_cl_next.clCreateCommandQueue)
        d->clCreateCommandQueue = CreateCommandQueue_stat;
    d->clFinish = Finish_stat;
    d->clWaitForEvents = WaitForEvents_stat;
}

/* clDeinitLayer (the Khronos loader's unload): the exit handler has read what completed; what
 * is still pending is counted as dropped, its events left to the driver's own teardown. */
void perfq_cl_stat_commands_fini(void)
{
    perfq_cl_table_clear(&stat_queues, free);
    released_n = 0;
    pthread_mutex_lock(&pending_lock);
    if (pending_n) {
        give_up(pending_n);
        send_counted(1);
    }
    free(pending);
    pending = NULL;
    pending_n = pending_cap = 0;
    next_scan = SCAN_STEP;
    pthread_mutex_unlock(&pending_lock);
}
