/*
 * perfq stat -I MS: the counters printed every MS milliseconds while the command runs, as
 * `perf stat -I` does, read through the continuous sampler (perfq_sampler_*) with read-and-reset,
 * so that each interval's values are what was counted in it and the intervals add up to the
 * total (for gauges the total is the last value). Interval ends are fixed points t0 + k * MS,
 * so a slow print does not shift later intervals; the last interval ends when the command
 * exits (it is usually shorter). The command's exit is seen at once through a pidfd (polling
 * every 10 ms where the kernel has none).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stat_interval.h"

struct stat_interval {
    perfq_sampler_t *sampler;
    size_t n;
    size_t *pos;                  /* measured index i is the sampler's value pos[i] */
    const perfq_counter_info_t *infos;
    perfq_value_t *now, *total;
    unsigned count;               /* intervals printed */
    stat_interval_sink_fn sink;
    void *sink_arg;
    uint64_t t0, last_end;        /* the sink's interval bounds (ns since t0) */
};

void stat_interval_set_sink(struct stat_interval *iv, stat_interval_sink_fn fn, void *arg)
{
    iv->sink = fn;
    iv->sink_arg = arg;
}

perfq_status_t stat_interval_open(perfq_t *pq, const perfq_counter_id_t *ids,
                                  const perfq_counter_info_t *infos, size_t n,
                                  const perfq_target_t *target, struct stat_interval **out)
{
    struct stat_interval *iv = calloc(1, sizeof *iv);
    if (!iv)
        return PERFQ_ENOMEM;
    iv->n = n;
    iv->infos = infos;
    iv->pos = calloc(n + 1, sizeof *iv->pos);
    iv->now = calloc(n + 1, sizeof *iv->now);
    iv->total = calloc(n + 1, sizeof *iv->total);
    perfq_counter_id_t *order = calloc(n + 1, sizeof *order);
    perfq_status_t st = iv->pos && iv->now && iv->total && order ? PERFQ_OK : PERFQ_ENOMEM;
    if (st == PERFQ_OK)
        st = perfq_sampler_create(pq, target, &iv->sampler);
    if (st == PERFQ_OK)
        st = perfq_sampler_choose(iv->sampler, ids, n, 1);
    size_t got = 0;
    if (st == PERFQ_OK)
        st = perfq_sampler_counters(iv->sampler, order, n, &got);
    for (size_t i = 0; st == PERFQ_OK && i < n; i++)
        for (size_t k = 0; k < got; k++)
            if (order[k] == ids[i])
                iv->pos[i] = k;
    /* Started before the command's exec: perf events wait for it (enable_on_exec). */
    if (st == PERFQ_OK)
        st = perfq_sampler_start(iv->sampler);
    free(order);
    if (st != PERFQ_OK) {
        stat_interval_close(&iv);
        return st;
    }
    *out = iv;
    return PERFQ_OK;
}

void stat_interval_close(struct stat_interval **piv)
{
    struct stat_interval *iv = *piv;
    if (!iv)
        return;
    *piv = NULL;
    if (iv->sampler)
        perfq_sampler_destroy(&iv->sampler);
    free(iv->pos);
    free(iv->now);
    free(iv->total);
    free(iv);
}

static void add_to_total(perfq_value_t *t, const perfq_value_t *v, perfq_storage_t st)
{
    switch (st) {
    case PERFQ_STORAGE_INT32: t->v.i32 += v->v.i32; break;
    case PERFQ_STORAGE_INT64: t->v.i64 += v->v.i64; break;
    case PERFQ_STORAGE_UINT32:
    case PERFQ_STORAGE_BOOL32: t->v.u32 += v->v.u32; break;
    case PERFQ_STORAGE_UINT64: t->v.u64 += v->v.u64; break;
    case PERFQ_STORAGE_FLOAT32: t->v.f32 += v->v.f32; break;
    case PERFQ_STORAGE_FLOAT64: t->v.f64 += v->v.f64; break;
    }
    t->time_enabled += v->time_enabled;
    t->time_running += v->time_running;
    t->flags |= v->flags & PERFQ_VALUE_SCALED;
}

static void print_interval(const struct stat_interval *iv, FILE *out, int json,
                           uint64_t elapsed_ns)
{
    double t = (double)elapsed_ns / 1e9;
    if (json) {
        fprintf(out, "{\"interval\": %u, \"time_s\": %.9f, \"counters\": [", iv->count, t);
        for (size_t i = 0; i < iv->n; i++) {
            const perfq_counter_info_t *ci = &iv->infos[i];
            const perfq_value_t *v = &iv->now[iv->pos[i]];
            fprintf(out, "%s{\"name\": ", i ? ", " : "");
            json_string(out, ci->full_name);
            fprintf(out, ", \"unit\": \"%s\", \"value\": %.17g, \"scaled\": %s}",
                    perfq_unit_name(ci->unit), perfq_value_as_double(v, ci->storage),
                    v->flags & PERFQ_VALUE_SCALED ? "true" : "false");
        }
        fprintf(out, "]}\n");
        return;
    }
    if (iv->count == 1)
        fprintf(out, "#           time             counts unit events\n");
    for (size_t i = 0; i < iv->n; i++) {
        const perfq_counter_info_t *ci = &iv->infos[i];
        double value = perfq_value_as_double(&iv->now[iv->pos[i]], ci->storage);
        if (ci->unit == PERFQ_UNIT_NANOSECONDS)
            fprintf(out, "%16.9f %18.2f %-4s %s\n", t, value / 1e6, "msec", ci->full_name);
        else
            fprintf(out, "%16.9f %18.0f %-4s %s\n", t, value,
                    ci->unit == PERFQ_UNIT_GENERIC ? "" : perfq_unit_name(ci->unit),
                    ci->full_name);
    }
    fflush(out);
}

/* One interval: read-and-reset, print, add to the totals. */
static perfq_status_t one_interval(struct stat_interval *iv, FILE *out, int json,
                                   uint64_t elapsed_ns)
{
    perfq_status_t st = perfq_sampler_read(iv->sampler, PERFQ_SAMPLER_RESET, iv->now, iv->n);
    if (st != PERFQ_OK)
        return st;
    iv->count++;
    if (iv->sink) {
        for (size_t i = 0; i < iv->n; i++)
            iv->sink(iv->sink_arg, &iv->infos[i], &iv->now[iv->pos[i]], iv->t0 + iv->last_end,
                     iv->t0 + elapsed_ns);
        iv->last_end = elapsed_ns;
    } else {
        print_interval(iv, out, json, elapsed_ns);
    }
    for (size_t i = 0; i < iv->n; i++) {
        const perfq_counter_info_t *ci = &iv->infos[i];
        const perfq_value_t *v = &iv->now[iv->pos[i]];
        if (cli_counter_is_counting(ci))
            add_to_total(&iv->total[i], v, ci->storage);
        else
            iv->total[i] = *v;
    }
    return PERFQ_OK;
}

static int child_exited(pid_t pid)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int rc;
    do
        rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT | WNOHANG);
    while (rc < 0 && errno == EINTR);
    return rc < 0 || info.si_pid == pid;
}

perfq_status_t stat_interval_run(struct stat_interval *iv, pid_t pid, unsigned interval_ms,
                                 uint64_t t0, FILE *out, int json)
{
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int pidfd = -1;
#endif
    uint64_t step = (uint64_t)interval_ms * 1000000u, next = t0 + step;
    iv->t0 = t0;
    perfq_status_t st = PERFQ_OK;
    while (st == PERFQ_OK && !child_exited(pid)) {
        uint64_t now = cli_monotonic_ns();
        if (now >= next) {
            st = one_interval(iv, out, json, next - t0);
            /* A late wake-up (a stopped perfq) skips the interval ends already past. */
            while (next <= cli_monotonic_ns())
                next += step;
            continue;
        }
        uint64_t wait_ms = (next - now + 999999u) / 1000000u;
        if (pidfd >= 0) {
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            poll(&p, 1, (int)wait_ms);
        } else {
            struct timespec ts = {0, (long)((wait_ms < 10 ? wait_ms : 10) * 1000000u)};
            nanosleep(&ts, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    /* The last, partial interval: up to the command's exit (it is a zombie: /proc still
     * answers for it). */
    if (st == PERFQ_OK)
        st = one_interval(iv, out, json, cli_monotonic_ns() - t0);
    perfq_status_t stop = perfq_sampler_stop(iv->sampler);
    return st != PERFQ_OK ? st : stop;
}

unsigned stat_interval_count(const struct stat_interval *iv)
{
    return iv->count;
}

void stat_interval_totals(const struct stat_interval *iv, perfq_value_t *values)
{
    memcpy(values, iv->total, iv->n * sizeof *values);
}
