/*
 * perfq memory [--json] PID: asks a program started under `perfq run` for the GL memory its
 * share groups hold, by object type and by resource tag (the GL layer's GL_NV_query_resource
 * accounting), through the channel of src/core/memory_channel.h (docs/perfq-memory.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/memory_channel.h"

#define MAX_REPLY (64u << 20)       /* far above any real report; bounds a bad peer */
#define REPLY_WAIT_MS 5000

static const char usage[] = "usage: perfq memory [--json] PID";
static const char *const type_names[3] = {"texture", "renderbuffer", "buffer"};

struct tag {
    long id;
    uint64_t allocs, kib;
    int truncated;
    char *name;                     /* points into the reply */
};

struct group {
    unsigned long long id;
    char *source;
    long long total_kib, free_kib;
    int now;
    uint64_t allocs[3], kib[3];
    struct tag *tags;
    size_t n_tags, cap_tags;
};

struct reply {
    long pid;
    struct group *groups;
    size_t n_groups, cap_groups;
};

/* Connects to pid's channel; -1 after printing why. */
static int connect_to(long pid)
{
    struct sockaddr_un addr;
    socklen_t alen = perfq_memory_channel_address((pid_t)pid, &addr);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "perfq memory: cannot make a socket: %s\n", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&addr, alen) != 0) {
        int err = errno;
        close(fd);
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            fprintf(stderr, "perfq memory: no process %ld\n", pid);
        else if (err == ECONNREFUSED || err == ENOENT)
            fprintf(stderr, "perfq memory: process %ld does not answer: only a program started "
                    "under 'perfq run' answers, once it has made a GL context current\n", pid);
        else
            fprintf(stderr, "perfq memory: cannot reach process %ld: %s\n", pid,
                    strerror(err));
        return -1;
    }
    /* Anyone can take an abstract name: read only from process pid itself. */
    struct ucred peer;
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || len != sizeof peer ||
        (long)peer.pid != pid) {
        fprintf(stderr, "perfq memory: the channel of process %ld is held by another process "
                "(%ld, uid %ld): not reading it\n", pid, len == sizeof peer ? (long)peer.pid : -1L,
                len == sizeof peer ? (long)peer.uid : -1L);
        close(fd);
        return -1;
    }
    return fd;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends the hello and reads until the program closes: the reply (malloc'd, NUL-terminated), or
 * NULL after printing why. */
static char *exchange(int fd, long pid)
{
    const char *hello = PERFQ_MEMORY_CHANNEL_HELLO;
    size_t n = strlen(hello);
    while (n) {
        ssize_t k = send(fd, hello, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        hello += k;
        n -= (size_t)k;
    }
    /* A refusal may come before the program reads our hello: read whatever arrives. */
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    if (!buf) {
        fprintf(stderr, "perfq memory: out of memory\n");
        return NULL;
    }
    int64_t deadline = now_ms() + REPLY_WAIT_MS;
    for (;;) {
        int64_t left = deadline - now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        int r = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "perfq memory: process %ld sent no complete report within %d ms\n",
                    pid, REPLY_WAIT_MS);
            free(buf);
            return NULL;
        }
        if (len + 1 >= cap) {
            char *b = cap < MAX_REPLY ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                fprintf(stderr, "perfq memory: the report of process %ld is too large\n", pid);
                free(buf);
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t k = recv(fd, buf + len, cap - len - 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && len == 0) {
            fprintf(stderr, "perfq memory: reading from process %ld: %s\n", pid,
                    strerror(errno));
            free(buf);
            return NULL;
        }
        if (k <= 0)
            break;          /* closed (a reset after a complete answer is still an answer) */
        len += (size_t)k;
    }
    buf[len] = '\0';
    return buf;
}

static struct group *add_group(struct reply *r)
{
    if (r->n_groups == r->cap_groups) {
        size_t cap = r->cap_groups ? 2 * r->cap_groups : 4;
        struct group *g = realloc(r->groups, cap * sizeof *g);
        if (!g)
            return NULL;
        r->groups = g;
        r->cap_groups = cap;
    }
    struct group *g = &r->groups[r->n_groups++];
    memset(g, 0, sizeof *g);
    g->total_kib = g->free_kib = -1;
    return g;
}

static struct tag *add_tag(struct group *g)
{
    if (g->n_tags == g->cap_tags) {
        size_t cap = g->cap_tags ? 2 * g->cap_tags : 8;
        struct tag *t = realloc(g->tags, cap * sizeof *t);
        if (!t)
            return NULL;
        g->tags = t;
        g->cap_tags = cap;
    }
    return &g->tags[g->n_tags++];
}

static void reply_free(struct reply *r)
{
    for (size_t i = 0; i < r->n_groups; i++)
        free(r->groups[i].tags);
    free(r->groups);
}

/* Splits line into at most max space-separated fields; returns their number. */
static int fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " ", &save); w && n < max;
         w = strtok_r(NULL, " ", &save))
        f[n++] = w;
    return n;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-')
        return -1;
    *v = x;
    return 0;
}

static int parse_ll(const char *s, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* 0: parsed (share groups in creation order); 1: refused; -1: malformed. */
static int parse(char *text, long pid, struct reply *r)
{
    memset(r, 0, sizeof *r);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (!line || strcmp(line, "perfq-memory 1") != 0)
        return -1;
    struct group *g = NULL;
    int ended = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL && !ended) {
        char *f[8];
        int n = fields(line, f, 8);
        long long a;
        uint64_t u, v;
        if (n == 1 && strcmp(f[0], "refused") == 0)
            return 1;
        if (n == 1 && strcmp(f[0], "end") == 0) {
            ended = 1;
        } else if (n == 2 && strcmp(f[0], "process") == 0) {
            if (parse_ll(f[1], &a) != 0 || a != pid)
                return -1;
            r->pid = (long)a;
        } else if (n == 2 && strcmp(f[0], "group") == 0) {
            if (parse_u64(f[1], &u) != 0 || !(g = add_group(r)))
                return -1;
            g->id = u;
        } else if (n == 5 && strcmp(f[0], "memory") == 0 && g) {
            if (perfq_memory_channel_unescape(f[1]) != 0 || parse_ll(f[2], &g->total_kib) ||
                parse_ll(f[3], &g->free_kib))
                return -1;
            g->source = f[1];
            g->now = strcmp(f[4], "now") == 0;
        } else if (n == 4 && strcmp(f[0], "type") == 0 && g) {
            int k = 0;
            while (k < 3 && strcmp(f[1], type_names[k]) != 0)
                k++;
            if (k == 3 || parse_u64(f[2], &u) || parse_u64(f[3], &v))
                return -1;
            g->allocs[k] = u;
            g->kib[k] = v;
        } else if (n == 6 && strcmp(f[0], "tag") == 0 && g) {
            struct tag *t = add_tag(g);
            if (!t || parse_ll(f[1], &a) || parse_u64(f[2], &t->allocs) ||
                parse_u64(f[3], &t->kib) || perfq_memory_channel_unescape(f[5]) != 0)
                return -1;
            t->id = (long)a;
            t->truncated = strcmp(f[4], "1") == 0;
            t->name = f[5];
        } else {
            return -1;
        }
    }
    if (!ended || r->pid != pid)
        return -1;
    qsort(r->groups, r->n_groups, sizeof *r->groups, by_id);
    return 0;
}

static void print_text(const struct reply *r)
{
    printf("process %ld: GL memory in %zu share group%s (perfq's GL_NV_query_resource "
           "accounting; KiB, each object rounded up)\n", r->pid, r->n_groups,
           r->n_groups == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct group *g = &r->groups[i];
        printf("\nshare group %llu\n", g->id);
        printf("  device memory: ");
        if (g->total_kib >= 0)
            printf("total %lld KiB, ", g->total_kib);
        if (g->free_kib >= 0)
            printf("free %lld KiB ", g->free_kib);
        else
            printf("free unknown ");
        printf("(%s, %s)\n", g->source && *g->source ? g->source : "no source",
               g->now ? "read now" : "as the program last read it");
        printf("  %-14s %12s %14s\n", "type", "allocations", "KiB");
        uint64_t ta = 0, tk = 0;
        for (int k = 0; k < 3; k++) {
            printf("  %-14s %12" PRIu64 " %14" PRIu64 "\n", type_names[k], g->allocs[k],
                   g->kib[k]);
            ta += g->allocs[k];
            tk += g->kib[k];
        }
        printf("  %-14s %12" PRIu64 " %14" PRIu64 "\n", "total", ta, tk);
        if (!g->n_tags) {
            printf("  no resource tags\n");
            continue;
        }
        printf("  %-14s %12s %14s  %s\n", "tag", "allocations", "KiB", "name");
        for (size_t j = 0; j < g->n_tags; j++) {
            const struct tag *t = &g->tags[j];
            printf("  %-14ld %12" PRIu64 " %14" PRIu64 "  ", t->id, t->allocs, t->kib);
            /* The name as JSON escapes it: control bytes cannot reach the terminal raw. */
            if (*t->name)
                json_string(stdout, t->name);
            else
                printf("(no name)");
            printf("%s\n", t->truncated ? " (truncated)" : "");
        }
    }
}

static void print_json(const struct reply *r)
{
    printf("{\"pid\": %ld, \"share_groups\": [", r->pid);
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct group *g = &r->groups[i];
        printf("%s\n  {\"id\": %llu, \"device_memory\": {\"source\": ", i ? "," : "", g->id);
        json_string(stdout, g->source ? g->source : "");
        printf(", \"total_kib\": ");
        g->total_kib >= 0 ? printf("%lld", g->total_kib) : printf("null");
        printf(", \"free_kib\": ");
        g->free_kib >= 0 ? printf("%lld", g->free_kib) : printf("null");
        printf(", \"as_of\": \"%s\"}, \"types\": {", g->now ? "now" : "last-read");
        uint64_t ta = 0, tk = 0;
        for (int k = 0; k < 3; k++) {
            printf("%s\"%s\": {\"allocations\": %" PRIu64 ", \"kib\": %" PRIu64 "}",
                   k ? ", " : "", type_names[k], g->allocs[k], g->kib[k]);
            ta += g->allocs[k];
            tk += g->kib[k];
        }
        printf("}, \"total\": {\"allocations\": %" PRIu64 ", \"kib\": %" PRIu64 "}, \"tags\": [",
               ta, tk);
        for (size_t j = 0; j < g->n_tags; j++) {
            const struct tag *t = &g->tags[j];
            printf("%s\n    {\"id\": %ld, \"allocations\": %" PRIu64 ", \"kib\": %" PRIu64
                   ", \"name\": ", j ? "," : "", t->id, t->allocs, t->kib);
            json_string(stdout, t->name);
            printf(", \"name_truncated\": %s}", t->truncated ? "true" : "false");
        }
        printf("]}");
    }
    printf("\n]}\n");
}

int cmd_memory(int argc, char **argv)
{
    int json = 0;
    const char *pid_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "perfq memory: unknown option '%s' (%s)\n", argv[i], usage);
            return CLI_EXIT_USAGE;
        } else if (pid_arg) {
            fprintf(stderr, "perfq memory: one PID only (%s)\n", usage);
            return CLI_EXIT_USAGE;
        } else {
            pid_arg = argv[i];
        }
    }
    long long pid;
    if (!pid_arg || parse_ll(pid_arg, &pid) != 0 || pid <= 0 || pid > INT32_MAX) {
        fprintf(stderr, "perfq memory: %s%s%s (%s)\n", pid_arg ? "'" : "missing PID",
                pid_arg ? pid_arg : "", pid_arg ? "' is not a process id" : "", usage);
        return CLI_EXIT_USAGE;
    }
    int fd = connect_to((long)pid);
    if (fd < 0)
        return CLI_EXIT_USAGE;
    char *text = exchange(fd, (long)pid);
    close(fd);
    if (!text)
        return CLI_EXIT_USAGE;
    struct reply r;
    int st = parse(text, (long)pid, &r);
    if (st == 1)
        fprintf(stderr, "perfq memory: process %lld refused: it belongs to another user, and "
                "only that user may read its memory report\n", pid);
    else if (st != 0)
        fprintf(stderr, "perfq memory: process %lld sent a malformed report\n", pid);
    else if (json)
        print_json(&r);
    else
        print_text(&r);
    reply_free(&r);
    free(text);
    return st == 0 ? 0 : CLI_EXIT_USAGE;
}
