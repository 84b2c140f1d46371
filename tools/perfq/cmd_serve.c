/*
 * perfq serve [--listen ADDR:PORT] [-e LIST] [-p PID]... [-I MS]
 *
 * A Prometheus endpoint (docs/perfq-serve.md): GET /metrics answers the text exposition format
 * 0.0.4 (serve_metrics.c) of the counters that the continuous sampler can read while counting.
 * This thread samples every MS ms (1000 by default) and formats the text once per sample; the
 * HTTP server (libmicrohttpd, its own thread) only copies the latest text, so a scrape does a
 * bounded amount of work and never waits on a device. Listens on 127.0.0.1:9464 unless told
 * otherwise. SIGINT and SIGTERM, taken here with sigtimedwait (every thread has them blocked),
 * stop the server cleanly: exit status 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef PERFQ_HAVE_MICROHTTPD

int cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "perfq serve: this perfq was built without libmicrohttpd (install "
            "libmicrohttpd-dev, as scripts/install-deps.sh does, and run meson setup again)\n");
    return CLI_EXIT_USAGE;
}

#else

#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#include "serve_deadline.h"
#include "serve_metrics.h"

#define MAX_PIDS 64
#define MAX_SERIES 4096

/* libmicrohttpd is opened when perfq serve starts rather than linked: linked, it and what it
 * needs (GnuTLS, nettle, gmp, p11-kit, libidn2...: ten libraries) were loaded and relocated at
 * every perfq start, about 12 ms of CPU per run on the development machine (a program that
 * links it against one that does not), paid by every perfq stat and perfq record of a short
 * program. Its header still gives the types, so each pointer has the function's own type. */
#define MHD_FUNCTIONS(X)                                                                      \
    X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_get_daemon_info)                             \
    X(MHD_create_response_from_buffer) X(MHD_add_response_header) X(MHD_queue_response)       \
    X(MHD_destroy_response) X(MHD_get_connection_info)

static struct {
#define MHD_POINTER(name) __typeof__(name) *name;
    MHD_FUNCTIONS(MHD_POINTER)
#undef MHD_POINTER
} mhd;

static int load_microhttpd(void)
{
    static const char *const names[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        fprintf(stderr, "perfq serve: cannot load libmicrohttpd (Debian: libmicrohttpd12): %s\n",
                e ? e : "not found");
        return -1;
    }
#define MHD_LOAD(name)                                                                        \
    if (!(*(void **)&mhd.name = dlsym(h, #name))) {                                           \
        fprintf(stderr, "perfq serve: libmicrohttpd lacks %s\n", #name);                       \
        return -1;                                                                            \
    }
    MHD_FUNCTIONS(MHD_LOAD)
#undef MHD_LOAD
    return 0;
}

/* libmicrohttpd's own messages, once it listens (a request it cannot serve, say), prefixed as
 * perfq's; before that, none: its text for a port in use names the port of the socket address
 * it was given as 0, and perfq says what failed itself. */
static atomic_int mhd_listening;

/* At most MHD_LOG_BURST of its lines a minute: each is about a client (a request cut short,
 * the connection limit reached), and any client could otherwise fill perfq's log. The first
 * line held back says so; the next minute's first line says how many were. */
#define MHD_LOG_BURST 10
static pthread_mutex_t mhd_log_lock = PTHREAD_MUTEX_INITIALIZER;

static int mhd_log_allowed(void)
{
    static uint64_t minute;
    static unsigned lines, held;
    uint64_t now_minute = cli_monotonic_ns() / 60000000000u;
    pthread_mutex_lock(&mhd_log_lock);
    if (now_minute != minute) {
        minute = now_minute;
        if (held)
            fprintf(stderr, "perfq serve: libmicrohttpd: %u more messages held back\n", held);
        lines = held = 0;
    }
    int ok = lines < MHD_LOG_BURST;
    if (ok)
        lines++;
    else if (held++ == 0)
        fprintf(stderr, "perfq serve: libmicrohttpd: more than %d messages this minute; the "
                "rest are counted, not printed\n", MHD_LOG_BURST);
    pthread_mutex_unlock(&mhd_log_lock);
    return ok;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    if (!atomic_load(&mhd_listening) || !mhd_log_allowed())
        return;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    fprintf(stderr, "perfq serve: libmicrohttpd: %s\n", line);
}

struct target {
    perfq_sampler_t *sampler;
    int pid;                    /* 0: perfq serve itself */
    size_t n;                   /* counters chosen */
    size_t first;               /* index of its first series */
    perfq_value_t *values;      /* in the sampler's order */
    size_t *series_of;          /* sampler value k is series series_of[k] */
};

struct server {
    pthread_mutex_t lock;
    struct text current;        /* the text served */
};

struct serve_options {
    const char *listen;
    const char *events;
    int pids[MAX_PIDS];
    size_t n_pids;
    unsigned interval_ms;
};

static int parse_args(int argc, char **argv, struct serve_options *o)
{
    o->listen = "127.0.0.1:9464";
    o->interval_ms = 1000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--listen") == 0 || strcmp(a, "-l") == 0) {
            if (!v)
                return fprintf(stderr, "perfq serve: %s needs ADDRESS:PORT\n", a), -1;
            o->listen = argv[++i];
        } else if (strncmp(a, "--listen=", 9) == 0) {
            o->listen = a + 9;
        } else if (strcmp(a, "-e") == 0 || strcmp(a, "--events") == 0 ||
                   strncmp(a, "--events=", 9) == 0) {
            /* --events=LIST as perfq stat takes it; an empty list is no list (as there). */
            const char *list = a[1] == '-' && a[8] == '=' ? a + 9 : (i++, v);
            if (!list || !*list)
                return fprintf(stderr, "perfq serve: %.8s needs a list of counters\n", a), -1;
            o->events = list;
        } else if (strcmp(a, "-p") == 0 || strcmp(a, "--pid") == 0 ||
                   strncmp(a, "--pid=", 6) == 0) {
            const char *arg = a[1] == '-' && a[5] == '=' ? a + 6 : (i++, v);
            long pid = arg ? strtol(arg, &end, 10) : 0;
            if (!arg || !*arg || *end || pid <= 0 || pid > 0x3fffffff)
                return fprintf(stderr, "perfq serve: %.5s needs a process id\n", a), -1;
            /* A process named twice is served once (each of its series twice would be
             * duplicate samples, which Prometheus drops as errors). */
            size_t k = 0;
            while (k < o->n_pids && o->pids[k] != (int)pid)
                k++;
            if (k < o->n_pids)
                continue;
            if (o->n_pids == MAX_PIDS)
                return fprintf(stderr, "perfq serve: at most %d processes\n", MAX_PIDS), -1;
            o->pids[o->n_pids++] = (int)pid;
        } else if (strcmp(a, "-I") == 0 || strcmp(a, "--interval") == 0) {
            unsigned long ms = v ? strtoul(v, &end, 10) : 0;
            if (!v || !*v || *end || v[0] == '-' || ms < 10 || ms > 3600000)
                return fprintf(stderr, "perfq serve: %s needs a whole number of milliseconds "
                               "from 10 to 3600000\n", a), -1;
            o->interval_ms = (unsigned)ms;
            i++;
        } else {
            return fprintf(stderr, "perfq serve: unknown argument '%s' (usage: perfq serve "
                           "[--listen ADDRESS:PORT] [-e LIST] [-p PID]... [-I MS])\n", a), -1;
        }
    }
    return 0;
}

/* "127.0.0.1:9464", "[::1]:9464", "localhost:9464". */
static int parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *len, int *v6)
{
    const char *colon = strrchr(s, ':');
    if (!colon || !colon[1])
        return -1;
    char *end = NULL;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || port > 65535)
        return -1;
    char host[64];
    size_t hl = (size_t)(colon - s);
    if (hl >= sizeof(host))
        return -1;
    memcpy(host, s, hl);
    host[hl] = 0;
    memset(addr, 0, sizeof(*addr));
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)addr;
        host[hl - 1] = 0;
        if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
            return -1;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a);
        *v6 = 1;
        return 0;
    }
    struct sockaddr_in *a = (struct sockaddr_in *)addr;
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof(host), "127.0.0.1");
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
        return -1;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    *len = sizeof(*a);
    *v6 = 0;
    return 0;
}

/* Each connection's request deadline (serve_deadline.h): its slot is its socket context. */
static void connection_notified(void *cls, struct MHD_Connection *conn, void **socket_context,
                                enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci ? serve_deadline_opened(ci->connect_fd, cli_monotonic_ns()) : NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        serve_deadline_closed(*socket_context);
        *socket_context = NULL;
    }
}

static void *connection_slot(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **state,
                              enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)state;
    (void)code;
    serve_deadline_answered(connection_slot(conn), cli_monotonic_ns());
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    struct server *srv = cls;
    serve_deadline_request(connection_slot(conn));   /* its headers are in */
    static const char not_found[] = "perfq serve: the metrics are at /metrics\n";
    static const char not_allowed[] = "perfq serve: GET /metrics\n";
    struct MHD_Response *r;
    unsigned code;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        r = mhd.MHD_create_response_from_buffer(sizeof(not_allowed) - 1, (void *)not_allowed,
                                            MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
        if (r)
            mhd.MHD_add_response_header(r, "Allow", "GET, HEAD");
    } else if (strcmp(url, "/metrics") != 0) {
        r = mhd.MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
                                            MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_FOUND;
    } else {
        /* The scrape's whole work: one copy of the text the sampling thread formatted. */
        pthread_mutex_lock(&srv->lock);
        r = mhd.MHD_create_response_from_buffer(srv->current.len, srv->current.s,
                                            MHD_RESPMEM_MUST_COPY);
        pthread_mutex_unlock(&srv->lock);
        code = MHD_HTTP_OK;
        if (r)
            mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                    "text/plain; version=0.0.4; charset=utf-8");
    }
    if (!r)
        return MHD_NO;
    enum MHD_Result ret = mhd.MHD_queue_response(conn, code, r);
    mhd.MHD_destroy_response(r);
    return ret;
}

/* Chooses one counter in t's sampler; 0, or the status. */
static perfq_status_t choose(struct target *t, perfq_counter_id_t id)
{
    return perfq_sampler_choose(t->sampler, &id, 1, 1);
}

/* Sets up the samplers and the series. Device- and system-scope counters go to the first target
 * only (they count the machine whoever the target is); process-scope ones to every target. */
static int setup(perfq_t *pq, const struct serve_options *o, struct target *targets,
                 size_t n_targets, struct serve_series *series, size_t *n_series)
{
    perfq_counter_id_t wanted[MAX_SERIES];
    size_t n_wanted = 0;
    if (o->events) {
        char *list = strdup(o->events);
        if (!list)
            return -1;
        int rc = 0;
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && !rc;
             tok = strtok_r(NULL, ",", &save)) {
            if (n_wanted == MAX_SERIES || cli_find_counter(pq, tok, &wanted[n_wanted]) != 0)
                rc = -1;
            else
                n_wanted++;
        }
        free(list);
        if (rc)
            return -1;
    } else {
        uint32_t count = 0;
        perfq_counter_count(pq, &count);
        for (uint32_t id = 0; id < count && n_wanted < MAX_SERIES; id++) {
            perfq_counter_info_t ci;
            if (perfq_counter_info(pq, (perfq_counter_id_t)id, &ci) == PERFQ_OK && ci.available)
                wanted[n_wanted++] = (perfq_counter_id_t)id;
        }
    }
    *n_series = 0;
    for (size_t ti = 0; ti < n_targets; ti++) {
        struct target *t = &targets[ti];
        perfq_target_t target = {.kind = t->pid ? PERFQ_TARGET_PID : PERFQ_TARGET_SELF,
                                 .pid = t->pid};
        perfq_status_t st = perfq_sampler_create(pq, &target, &t->sampler);
        if (st != PERFQ_OK)
            return fprintf(stderr, "perfq serve: cannot sample %s%d: %s\n", t->pid ? "pid " : "",
                           t->pid, perfq_status_string(st)), -1;
        for (size_t k = 0; k < n_wanted; k++) {
            perfq_counter_info_t ci;
            perfq_group_info_t gi;
            perfq_counter_info(pq, wanted[k], &ci);
            perfq_group_info(pq, ci.group, &gi);
            if (gi.scope == PERFQ_SCOPE_GPU_TIMELINE ||
                (ti > 0 && gi.scope != PERFQ_SCOPE_PROCESS))
                continue;
            /* Some sources count only the caller (rusage of its own process). */
            st = t->pid && gi.scope == PERFQ_SCOPE_PROCESS &&
                         !cli_counts_other_process(pq, wanted[k]) ? PERFQ_ENOTSUP
                                                                  : choose(t, wanted[k]);
            if (st != PERFQ_OK && o->events)
                return fprintf(stderr, "perfq serve: counter '%s' cannot be sampled "
                               "continuously: %s\n", ci.full_name, perfq_status_string(st)), -1;
        }
        size_t got = 0;
        perfq_counter_id_t order[MAX_SERIES];
        if (perfq_sampler_counters(t->sampler, order, MAX_SERIES, &got) != PERFQ_OK ||
            *n_series + got > MAX_SERIES)
            return fprintf(stderr, "perfq serve: too many counters\n"), -1;
        t->n = got;
        t->first = *n_series;
        t->values = calloc(got + 1, sizeof(*t->values));
        t->series_of = calloc(got + 1, sizeof(*t->series_of));
        if (!t->values || !t->series_of)
            return -1;
        for (size_t k = 0; k < got; k++) {
            struct serve_series *s = &series[*n_series];
            perfq_group_info_t gi;
            perfq_counter_info(pq, order[k], &s->info);
            perfq_group_info(pq, s->info.group, &gi);
            s->group = gi.name;
            s->device = serve_device_label(&gi);
            s->pid = gi.scope == PERFQ_SCOPE_PROCESS && t->pid ? t->pid : 0;
            s->counting = cli_counter_is_counting(&s->info);
            t->series_of[k] = (*n_series)++;
        }
        st = perfq_sampler_start(t->sampler);
        if (st != PERFQ_OK && t->pid)
            return fprintf(stderr, "perfq serve: cannot sample process %d: %s (reading its "
                           "/proc/%d/io or opening perf events on it was refused; -e without "
                           "those counters)\n", t->pid, perfq_status_string(st), t->pid), -1;
        if (st != PERFQ_OK)
            return fprintf(stderr, "perfq serve: cannot start sampling: %s\n",
                           perfq_status_string(st)), -1;
    }
    return 0;
}

/* One sample of every target, formatted and swapped in. */
static void sample(struct server *srv, struct target *targets, size_t n_targets,
                   const struct serve_series *series, perfq_value_t *values, size_t n_series,
                   uint64_t *samples, uint64_t *errors)
{
    int failed = 0;
    for (size_t ti = 0; ti < n_targets; ti++) {
        struct target *t = &targets[ti];
        if (!t->n)
            continue;
        if (perfq_sampler_read(t->sampler, 0, t->values, t->n) != PERFQ_OK) {
            failed = 1;   /* a process that exited, for example: its last values stay */
            continue;
        }
        for (size_t k = 0; k < t->n; k++)
            values[t->series_of[k]] = t->values[k];
    }
    if (failed)
        ++*errors;
    ++*samples;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct text next = {0};
    serve_format(&next, series, values, n_series, *samples, *errors,
                 (double)now.tv_sec + (double)now.tv_nsec / 1e9);
    if (next.failed) {
        text_free(&next);
        ++*errors;
        return;
    }
    pthread_mutex_lock(&srv->lock);
    struct text old = srv->current;
    srv->current = next;
    pthread_mutex_unlock(&srv->lock);
    text_free(&old);
}

int cmd_serve(int argc, char **argv)
{
    struct serve_options o = {0};
    if (parse_args(argc, argv, &o))
        return CLI_EXIT_USAGE;
    struct sockaddr_storage addr;
    socklen_t addr_len = 0;
    int v6 = 0;
    if (parse_listen(o.listen, &addr, &addr_len, &v6) != 0) {
        fprintf(stderr, "perfq serve: '%s' is not ADDRESS:PORT (127.0.0.1:9464, [::1]:9464)\n",
                o.listen);
        return CLI_EXIT_USAGE;
    }
    if (load_microhttpd() != 0)
        return CLI_EXIT_USAGE;
    perfq_t *pq = NULL;
    perfq_status_t st = perfq_open(&pq);
    if (st != PERFQ_OK) {
        fprintf(stderr, "perfq: cannot open the library: %s\n", perfq_status_string(st));
        return CLI_EXIT_USAGE;
    }
    size_t n_targets = o.n_pids ? o.n_pids : 1;
    struct target *targets = calloc(n_targets, sizeof(*targets));
    struct serve_series *series = calloc(MAX_SERIES, sizeof(*series));
    perfq_value_t *values = calloc(MAX_SERIES, sizeof(*values));
    struct server srv = {.lock = PTHREAD_MUTEX_INITIALIZER};
    struct MHD_Daemon *d = NULL;
    int rc = CLI_EXIT_USAGE;
    size_t n_series = 0;
    uint64_t samples = 0, errors = 0;
    if (!targets || !series || !values)
        goto out;
    for (size_t i = 0; i < o.n_pids; i++) {
        targets[i].pid = o.pids[i];
        if (kill((pid_t)o.pids[i], 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "perfq serve: no process %d\n", o.pids[i]);
            goto out;
        }
    }
    if (setup(pq, &o, targets, n_targets, series, &n_series) != 0)
        goto out;
    sample(&srv, targets, n_targets, series, values, n_series, &samples, &errors);

    /* Every thread (libmicrohttpd's too) inherits this mask: the signals come to sigtimedwait. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* "[::]" is every address, IPv4 too, as the system's dual-stack default would have it:
     * libmicrohttpd's IPv6 socket is IPv6-only unless told (the unspecified address only; a
     * given IPv6 address has no IPv4 side). */
    int any6 = v6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&addr)->sin6_addr);
    d = mhd.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                             (any6 ? MHD_USE_DUAL_STACK : v6 ? MHD_USE_IPv6 : 0),
                         0, NULL, NULL, answer, &srv,
                         MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                         /* HTTP/1.1 as written: a request without Host is answered 400 */
                         MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
                         MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
                         MHD_OPTION_NOTIFY_CONNECTION, connection_notified, NULL,
                         MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
                         MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "perfq serve: cannot listen on %s (in use, or not an address of this "
                "machine)\n", o.listen);
        goto out;
    }
    atomic_store(&mhd_listening, 1);
    const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char shown[96];
    snprintf(shown, sizeof(shown), "%.*s:%u", (int)(strrchr(o.listen, ':') - o.listen),
             o.listen, info ? (unsigned)info->port : 0u);
    fprintf(stderr, "perfq serve: %zu series; listening on http://%s/metrics (sampling every %u "
            "ms)\n", n_series, shown, o.interval_ms);
    fflush(stderr);
    /* Wakes for the next sample, and at least every second for the request deadlines. */
    const uint64_t interval = (uint64_t)o.interval_ms * 1000000u;
    uint64_t next_sample = cli_monotonic_ns() + interval;
    for (;;) {
        uint64_t now = cli_monotonic_ns();
        if (now >= next_sample) {
            sample(&srv, targets, n_targets, series, values, n_series, &samples, &errors);
            now = cli_monotonic_ns();
            next_sample = next_sample + interval > now ? next_sample + interval : now + interval;
        }
        serve_deadline_reap(now);
        uint64_t until = next_sample - now < 1000000000u ? next_sample - now : 1000000000u;
        struct timespec wait = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
        siginfo_t si;
        int sig = sigtimedwait(&stop, &si, &wait);
        if (sig == SIGINT || sig == SIGTERM) {
            fprintf(stderr, "perfq serve: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
        if (sig < 0 && errno != EAGAIN && errno != EINTR) {
            fprintf(stderr, "perfq serve: sigtimedwait: %s\n", strerror(errno));
            break;
        }
    }
    rc = 0;
out:
    if (d)
        mhd.MHD_stop_daemon(d);   /* joins its thread: no request is in flight after this */
    for (size_t i = 0; targets && i < n_targets; i++) {
        if (targets[i].sampler)
            perfq_sampler_destroy(&targets[i].sampler);
        free(targets[i].values);
        free(targets[i].series_of);
    }
    text_free(&srv.current);
    free(targets);
    free(series);
    free(values);
    perfq_close(&pq);
    return rc;
}

#endif
