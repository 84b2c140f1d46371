/* The layers' end of the `perfq stat` channel: see stat_channel.h for the protocol. */
#include "core/stat_channel.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int sock = -1;
static struct perfq_stat_page *page;
static int timeline;
static int per_draw;
static uint64_t local_dropped;  /* when the page cannot be mapped: still counted, here */

/* fd is open and is the file with inode `ino` of the given type: otherwise the program reused
 * the number and it is not ours to write to. */
static int is_ours(int fd, unsigned long long ino, mode_t type)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type &&
           (unsigned long long)st.st_ino == ino;
}

static void attach(void)
{
    const char *env = getenv(PERFQ_STAT_CHANNEL_ENV);
    int sfd, pfd;
    unsigned long long sino, pino;
    if (!env || sscanf(env, "%d:%llu:%d:%llu", &sfd, &sino, &pfd, &pino) != 4)
        return;
    if (!is_ours(sfd, sino, S_IFSOCK) || !is_ours(pfd, pino, S_IFREG))
        return;
    /* Our own close-on-exec copies: the program may close or reuse the inherited numbers. */
    int s = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
    if (s < 0)
        return;
    void *p = mmap(NULL, sizeof(struct perfq_stat_page), PROT_READ | PROT_WRITE, MAP_SHARED,
                   pfd, 0);
    page = p == MAP_FAILED ? NULL : p;
    if (page) {
        __atomic_add_fetch(&page->attached, 1, __ATOMIC_RELAXED);
        timeline = (__atomic_load_n(&page->flags, __ATOMIC_RELAXED) &
                    PERFQ_STAT_PAGE_TIMELINE) != 0;
        per_draw = (__atomic_load_n(&page->flags, __ATOMIC_RELAXED) &
                    PERFQ_STAT_PAGE_PER_DRAW) != 0;
    }
    sock = s;
}

int perfq_stat_channel_active(void)
{
    pthread_once(&once, attach);
    return sock >= 0;
}

int perfq_stat_channel_timeline(void)
{
    return perfq_stat_channel_active() && timeline;
}

int perfq_stat_channel_per_draw(void)
{
    return perfq_stat_channel_active() && per_draw;
}

uint64_t perfq_stat_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t perfq_stat_tid(void)
{
    /* Not cached: a cache in thread-local storage would survive fork() with the parent's id. */
    return (uint32_t)syscall(SYS_gettid);
}

void perfq_stat_channel_send(struct perfq_stat_record *r)
{
    if (!perfq_stat_channel_active())
        return;
    r->magic = PERFQ_STAT_RECORD_MAGIC;
    r->pid = (uint32_t)getpid();
    if (!r->tid)
        r->tid = perfq_stat_tid();
    if (send(sock, r, sizeof(*r), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(*r))
        return;
    __atomic_add_fetch(page ? &page->dropped : &local_dropped, 1, __ATOMIC_RELAXED);
}

void perfq_stat_channel_count_drops(uint64_t n)
{
    if (n && perfq_stat_channel_active())
        __atomic_add_fetch(page ? &page->dropped : &local_dropped, n, __ATOMIC_RELAXED);
}
