/*
 * `perfq memory PID`: the answering end inside the program (channel and protocol:
 * src/core/memory_channel.h; decisions: docs/perfq-memory.md).
 *
 * The program must never block or crash because of it:
 * - one thread per process, started at the first share group (the first make-current) when
 *   `perfq run` set PERFQ_MEMORY_SERVER; it blocks every signal (the program's handlers stay on
 *   its own threads) and makes no GL call (the memory of GL sources is what the program's thread
 *   last read);
 * - a request costs one snapshot per share group, each under that group's lock for O(tags) (the
 *   totals are kept as objects change), then the text goes out with the locks released;
 * - the socket is close-on-exec; a peer gets 1 s to send its request and 1 s per send before it
 *   is dropped; writes never raise SIGPIPE; a failure drops that request only;
 * - a forked child closes its copy of the listening socket and starts its own at its next share
 *   group.
 */
#include "gl/nvres/nvres_server.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/memory_channel.h"
#include "gl/nvres/nv_query_resource.h"
#include "gl/nvres/nvres_accounting.h"
#include "gl/nvres/nvres_memory.h"

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static int started;                 /* this process has tried (start_lock) */
static int listen_fd = -1;          /* start_lock; the thread has its own copy of the number */
static int atfork_registered;

/* A growing text buffer; `failed` once memory ran out (the request is then dropped). */
struct text {
    char *p;
    size_t len, cap;
    int failed;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->p && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap <= t->len + (size_t)n)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
}

static void put_escaped(struct text *t, const char *s)
{
    char small[3 * PERFQ_NVRES_SNAPSHOT_STRING + 4];
    perfq_memory_channel_escape(s, small, sizeof small);
    put(t, "%s", small);
}

struct report {
    struct text text;
    int have_system;                /* /proc/meminfo read for this request */
    int64_t system_total, system_free;
};

static void put_group(const struct perfq_nv_query_resource_group_info *g, void *arg)
{
    static const char *const types[PERFQ_NVRES_NTYPES] = {"texture", "renderbuffer", "buffer"};
    struct report *r = arg;
    struct text *t = &r->text;
    struct perfq_nvres_snapshot snap;
    if (perfq_nvres_group_snapshot(g->acc, &snap) != 0) {
        t->failed = 1;
        return;
    }
    put(t, "group %llu\nmemory ", (unsigned long long)g->id);
    put_escaped(t, perfq_nvres_memory_source_name((perfq_nvres_memory_source_t)g->memory_source));
    /* /proc/meminfo can be read from any thread: now. GL sources: the program's last read. */
    if (g->memory_source == PERFQ_NVRES_MEM_SYSTEM && r->have_system)
        put(t, " %lld %lld now\n", (long long)r->system_total, (long long)r->system_free);
    else
        put(t, " %lld %lld cached\n", (long long)g->cached_total_kib,
            (long long)g->cached_free_kib);
    for (int k = 0; k < PERFQ_NVRES_NTYPES; k++)
        put(t, "type %s %llu %llu\n", types[k], (unsigned long long)snap.types[k].allocs,
            (unsigned long long)snap.types[k].kib);
    for (size_t i = 0; i < snap.n_tags; i++) {
        const struct perfq_nvres_snapshot_tag *tag = &snap.tags[i];
        put(t, "tag %ld %llu %llu %d ", (long)tag->id, (unsigned long long)tag->allocs,
            (unsigned long long)tag->kib, tag->truncated);
        put_escaped(t, tag->string);
        put(t, "\n");
    }
    perfq_nvres_snapshot_free(&snap);
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;      /* the peer went away, or 1 s passed without progress */
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* 1 when the peer sent the hello line within its time. */
static int read_hello(int fd)
{
    char buf[sizeof PERFQ_MEMORY_CHANNEL_HELLO];
    size_t len = 0, want = sizeof PERFQ_MEMORY_CHANNEL_HELLO - 1;
    while (len < want) {
        ssize_t k = recv(fd, buf + len, want - len, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        len += (size_t)k;
    }
    return memcmp(buf, PERFQ_MEMORY_CHANNEL_HELLO, want) == 0;
}

static void answer(int fd)
{
    struct timeval limit = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    struct ucred peer;
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || len != sizeof peer)
        return;
    /* The hello is read first in every case: closing with it unread would reset the
     * connection, and the peer could lose the answer. */
    int hello = read_hello(fd);
    if (peer.uid != geteuid()) {
        /* Private to the program's user: another user learns only that it was refused. */
        static const char refused[] = PERFQ_MEMORY_CHANNEL_HELLO "refused\n";
        send_all(fd, refused, sizeof refused - 1);
        return;
    }
    if (!hello)
        return;
    struct report r;
    memset(&r, 0, sizeof r);
    r.have_system = perfq_nvres_system_memory(&r.system_total, &r.system_free) == 0;
    put(&r.text, PERFQ_MEMORY_CHANNEL_HELLO "process %ld\n", (long)getpid());
    perfq_nv_query_resource_foreach(put_group, &r);
    put(&r.text, "end\n");
    if (!r.text.failed)
        send_all(fd, r.text.p, r.text.len);
    free(r.text.p);
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    for (;;) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK)
                return NULL;                /* the socket is gone */
            /* Out of descriptors or memory: the program's problem first; try again later. */
            struct timespec pause = {0, 100 * 1000 * 1000};
            nanosleep(&pause, NULL);
            continue;
        }
        answer(c);
        close(c);
    }
}

static void after_fork_in_child(void)
{
    /* Only the forking thread exists here: the server is the parent's. */
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    started = 0;
    pthread_mutex_init(&start_lock, NULL);
}

void perfq_nvres_server_start(void)
{
    const char *on = getenv(PERFQ_MEMORY_SERVER_ENV);
    if (!on || !*on || strcmp(on, "0") == 0)
        return;
    pthread_mutex_lock(&start_lock);
    if (started) {
        pthread_mutex_unlock(&start_lock);
        return;
    }
    started = 1;
    if (!atfork_registered && pthread_atfork(NULL, NULL, after_fork_in_child) == 0)
        atfork_registered = 1;
    struct sockaddr_un addr;
    socklen_t alen = perfq_memory_channel_address(getpid(), &addr);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const char *why = NULL;
    if (fd < 0)
        why = "socket";
    else if (bind(fd, (struct sockaddr *)&addr, alen) != 0)
        why = "bind";                       /* EADDRINUSE: another process holds the name */
    else if (listen(fd, 8) != 0)
        why = "listen";
    if (!why) {
        /* Every signal blocked in the thread: it inherits the mask at creation. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_t attr;
        pthread_t thread;
        int ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            int rc = pthread_create(&thread, &attr, serve, (void *)(intptr_t)fd);
            if (rc != 0)
                errno = rc;
            ok = rc == 0;
            pthread_attr_destroy(&attr);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!ok)
            why = "pthread_create";
    }
    if (why) {
        if (getenv("PERFQ_GL_DEBUG"))
            fprintf(stderr, "perfq: perfq memory: this process will not answer (%s: %s)\n", why,
                    strerror(errno));
        if (fd >= 0)
            close(fd);
    } else {
        listen_fd = fd;
        if (getenv("PERFQ_GL_DEBUG"))
            fprintf(stderr, "perfq: perfq memory: process %ld answers\n", (long)getpid());
    }
    pthread_mutex_unlock(&start_lock);
}
