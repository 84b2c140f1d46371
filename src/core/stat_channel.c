/* Both ends of the `perfq stat` channel's ring: see stat_channel.h for the protocol. */
#include "core/stat_channel.h"
#include "core/stat_channel_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- the writers (the layers) ---------------------------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int attached_ok;
static struct perfq_stat_page *page;
static struct perfq_stat_slot *slots;   /* NULL when the page's slot count was not valid */
static uint64_t mask;                   /* checked once at attach; never read again from the page */
static int timeline;
static int per_draw;
static int no_stats;
static uint64_t stats_span_ns;
static uint32_t pid_cache;      /* refreshed in a fork's child (after_fork_child) */
static __thread uint32_t tid_cache;

/* A CAS of head that fails means another writer took the slot; this many in a row (or a head
 * that a program scribbled on, which never matches a slot) and the record is dropped, counted. */
#define PUT_TRIES 1024

static void after_fork_child(void)
{
    /* The child's only thread is the one that forked: its cached tid is its parent's. */
    __atomic_store_n(&pid_cache, (uint32_t)getpid(), __ATOMIC_RELAXED);
    tid_cache = 0;
}

/* The slot count the CLI wrote, if the mapping of `size` bytes holds that many slots. */
static uint64_t valid_slots(const struct perfq_stat_page *p, size_t size)
{
    uint64_t n = __atomic_load_n(&p->slots, __ATOMIC_RELAXED);
    if (n == 0 || n > PERFQ_STAT_RING_MAX_SLOTS || (n & (n - 1)) != 0 ||
        size < PERFQ_STAT_PAGE_BYTES + n * sizeof(struct perfq_stat_slot))
        return 0;
    return n;
}

/* Whether fd is the channel's memfd (inode ino), its size in *st. */
static int is_page(int fd, unsigned long long ino, struct stat *st)
{
    return fd >= 0 && fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
           (unsigned long long)st->st_ino == ino && st->st_size >= (off_t)PERFQ_STAT_PAGE_BYTES;
}

/* The channel's memfd where this process cannot use the fd it inherited (the parsed
 * PERFQ_STAT_CHANNEL): perfq's copy through /proc, else handed over on perfq's socket. An fd
 * this call opened, to close once mapped (its size in *st), or -1. */
static int fetch_page(int pfd, unsigned long long pino, long perfq_pid, const char *socket_path,
                      struct stat *st)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", perfq_pid, pfd);
    errno = 0;
    int fd = perfq_pid > 0 && pfd >= 0 ? open(path, O_RDWR | O_CLOEXEC) : -1;
    int refused = fd < 0 && (errno == EACCES || errno == EPERM);
    if (!is_page(fd, pino, st)) {
        if (fd >= 0)
            close(fd);
        /* The socket only where /proc refused us (another user namespace, fewer capabilities
         * than perfq's): where it is missing (a chroot) or the pid is not perfq's, no socket
         * call is made, which a seccomp filter might not allow. */
        fd = refused && socket_path ? perfq_stat_socket_fetch(socket_path) : -1;
        if (!is_page(fd, pino, st)) {
            if (fd >= 0)
                close(fd);
            return -1;
        }
    }
    return fd;
}

static void attach(void)
{
    const char *env = getenv(PERFQ_STAT_CHANNEL_ENV);
    int pfd, used = 0;
    unsigned long long pino;
    long perfq_pid;
    /* "FD:INO:PID" or "FD:INO:PID:SOCKET" (perfq_stat_channel_env) */
    if (!env || sscanf(env, "%d:%llu:%ld%n", &pfd, &pino, &perfq_pid, &used) != 3 ||
        (env[used] != '\0' && env[used] != ':'))
        return;
    const char *socket_path = env[used] == ':' ? env + used + 1 : NULL;
    /* pfd is open and is that memfd: otherwise the program closed it (and may have reused the
     * number: that is not ours to write to), and the memfd is fetched from perfq instead. */
    struct stat st;
    int opened = -1;
    if (!is_page(pfd, pino, &st)) {
        if ((opened = fetch_page(pfd, pino, perfq_pid, socket_path, &st)) < 0)
            return;
        pfd = opened;
    }
    size_t size = (size_t)st.st_size;
    size_t most = PERFQ_STAT_PAGE_BYTES +
                  (size_t)PERFQ_STAT_RING_MAX_SLOTS * sizeof(struct perfq_stat_slot);
    if (size > most)
        size = most;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    if (opened >= 0)
        close(opened);   /* the mapping needs no fd */
    if (p == MAP_FAILED)
        return;
    page = p;
    uint64_t n = valid_slots(page, size);
    if (n) {
        slots = (struct perfq_stat_slot *)((char *)p + PERFQ_STAT_PAGE_BYTES);
        mask = n - 1;
    }
    uint64_t flags = __atomic_load_n(&page->flags, __ATOMIC_RELAXED);
    timeline = (flags & PERFQ_STAT_PAGE_TIMELINE) != 0;
    per_draw = (flags & PERFQ_STAT_PAGE_PER_DRAW) != 0;
    no_stats = (flags & PERFQ_STAT_PAGE_NO_STATS) != 0;
    stats_span_ns = __atomic_load_n(&page->stats_span_ns, __ATOMIC_RELAXED);
    pid_cache = (uint32_t)getpid();
    pthread_atfork(NULL, NULL, after_fork_child);
    __atomic_add_fetch(&page->attached, 1, __ATOMIC_RELAXED);
    attached_ok = 1;
}

int perfq_stat_channel_active(void)
{
    pthread_once(&once, attach);
    return attached_ok;
}

int perfq_stat_channel_timeline(void)
{
    return perfq_stat_channel_active() && timeline;
}

int perfq_stat_channel_per_draw(void)
{
    return perfq_stat_channel_active() && per_draw;
}

int perfq_stat_channel_pipeline_stats(void)
{
    return perfq_stat_channel_active() && !no_stats;
}

uint64_t perfq_stat_channel_stats_span_ns(void)
{
    return perfq_stat_channel_active() ? stats_span_ns : 0;
}

uint64_t perfq_stat_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t perfq_stat_tid(void)
{
    if (!tid_cache)
        tid_cache = (uint32_t)syscall(SYS_gettid);
    return tid_cache;
}

/* 1 when the record is in the ring (or was given up by the reader, which counted it). */
static int ring_put(const struct perfq_stat_record *r)
{
    uint64_t pos = __atomic_load_n(&page->head, __ATOMIC_RELAXED);
    for (int tries = 0; tries < PUT_TRIES; tries++) {
        struct perfq_stat_slot *s = &slots[pos & mask];
        uint64_t lap = pos & ~mask;   /* seq as the slot keeps it (stat_channel.h) */
        uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        int64_t dif = (int64_t)(seq - lap);
        if (dif == 0) {
            if (__atomic_compare_exchange_n(&page->head, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                memcpy(&s->record, r, sizeof(*r));
                /* A CAS, not a store: a reader that gave the slot up (we were stopped for
                 * PERFQ_STAT_RING_STUCK_NS) has moved seq on and counted the record. */
                uint64_t expect = lap;
                __atomic_compare_exchange_n(&s->seq, &expect, lap + 1, 0, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED);
                return 1;
            }
            /* pos now holds the head another writer moved on */
        } else if (dif < 0) {
            return 0;   /* the slot holds the previous lap's record: the ring is full */
        } else {
            pos = __atomic_load_n(&page->head, __ATOMIC_RELAXED);
        }
    }
    return 0;
}

void perfq_stat_channel_send(struct perfq_stat_record *r)
{
    perfq_stat_channel_send_waiting(r, 0);
}

void perfq_stat_channel_send_waiting(struct perfq_stat_record *r, unsigned max_ms)
{
    if (!perfq_stat_channel_active())
        return;
    r->magic = PERFQ_STAT_RECORD_MAGIC;
    r->pid = __atomic_load_n(&pid_cache, __ATOMIC_RELAXED);
    if (!r->tid)
        r->tid = perfq_stat_tid();
    for (unsigned waited = 0; slots; waited++) {
        if (ring_put(r))
            return;
        if (waited == max_ms)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);   /* the drain reads every few ms */
    }
    __atomic_add_fetch(&page->dropped, 1, __ATOMIC_RELAXED);
}

void perfq_stat_channel_count_drops(uint64_t n)
{
    if (n && perfq_stat_channel_active())
        __atomic_add_fetch(&page->dropped, n, __ATOMIC_RELAXED);
}

/* ---- the reader (perfq) ---------------------------------------------------------------------- */

int perfq_stat_channel_env(int fd, const char *socket_path, char *out, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    int n = snprintf(out, size, "%d:%llu:%ld%s%s", fd, (unsigned long long)st.st_ino,
                     (long)getpid(), socket_path && *socket_path ? ":" : "",
                     socket_path ? socket_path : "");
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int perfq_stat_ring_create(struct perfq_stat_ring *ring, uint64_t n)
{
    memset(ring, 0, sizeof(*ring));
    if (n == 0 || n > PERFQ_STAT_RING_MAX_SLOTS || (n & (n - 1)) != 0) {
        errno = EINVAL;
        return -1;
    }
    size_t bytes = PERFQ_STAT_PAGE_BYTES + (size_t)n * sizeof(struct perfq_stat_slot);
    /* Not close-on-exec: CMD and its children inherit it. */
    int fd = memfd_create("perfq-stat", 0);
    if (fd < 0)
        return -1;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) != 0 ||
        (p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    ring->page = p;
    ring->slots = (struct perfq_stat_slot *)((char *)p + PERFQ_STAT_PAGE_BYTES);
    ring->n = n;
    ring->bytes = bytes;
    /* A memfd reads zero: every slot is free for its first lap, and a page of slots takes memory
     * only once the ring reaches it. */
    ring->page->slots = n;
    return fd;
}

int perfq_stat_ring_read(struct perfq_stat_ring *ring, struct perfq_stat_record *out,
                         uint64_t now_ns, int final)
{
    if (!ring->page)
        return 0;
    for (;;) {
        uint64_t t = ring->tail, lap = t & ~(ring->n - 1);
        struct perfq_stat_slot *s = &ring->slots[t & (ring->n - 1)];
        uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (seq == lap + 1) {
            memcpy(out, &s->record, sizeof(*out));
            __atomic_store_n(&s->seq, lap + ring->n, __ATOMIC_RELEASE);   /* free: next lap */
            ring->tail = t + 1;
            ring->stuck_since = 0;
            return 1;
        }
        /* Not published: nothing reserved there yet, or a writer is between reserve and
         * publish (or was killed there), or a program scribbled on the page. */
        uint64_t ahead = __atomic_load_n(&ring->page->head, __ATOMIC_RELAXED) - t;
        if (ahead == 0)
            return 0;
        if (ahead > ring->n) {
            ring->corrupt++;   /* no writer can reserve past tail + n: the head is garbage */
            return 0;
        }
        if (!final) {
            if (!ring->stuck_since) {
                ring->stuck_since = now_ns ? now_ns : 1;
                return 0;
            }
            if (now_ns - ring->stuck_since < PERFQ_STAT_RING_STUCK_NS)
                return 0;
        }
        /* Give the slot up; if its writer publishes meanwhile, the CAS fails and we take it. */
        if (__atomic_compare_exchange_n(&s->seq, &seq, lap + ring->n, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            ring->tail = t + 1;
            ring->stuck_since = 0;
            ring->given_up++;
        }
    }
}

uint64_t perfq_stat_ring_dropped(const struct perfq_stat_ring *ring)
{
    return (ring->page ? __atomic_load_n(&ring->page->dropped, __ATOMIC_RELAXED) : 0) +
           ring->given_up;
}

void perfq_stat_ring_close(struct perfq_stat_ring *ring)
{
    if (ring->page)
        munmap(ring->page, ring->bytes);
    ring->page = NULL;
    ring->slots = NULL;
}
