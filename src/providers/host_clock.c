/*
 * Provider "clock": the POSIX clocks of the calling process. process-cpu-time is the CPU time of
 * all threads of the process (CLOCK_PROCESS_CPUTIME_ID, ns resolution), also with a
 * PERFQ_TARGET_SELF target, where perf's task-clock counts the calling thread only.
 * wall-time is CLOCK_MONOTONIC elapsed. PERFQ_TARGET_SELF and PERFQ_TARGET_PROCESS (the same
 * clocks), not PERFQ_TARGET_PID: another process's CPU clock would leave out its children,
 * which a pid target includes everywhere else in perfq.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct perfq_group_desc group = {
    "clock", "POSIX clocks of the calling process (clock_gettime)", PERFQ_SCOPE_PROCESS, 0};

static const struct perfq_counter_desc counters[] = {
    {"process-cpu-time", "CPU", "CPU time of every thread of the process, user and system "
     "(CLOCK_PROCESS_CPUTIME_ID)", PERFQ_UNIT_NANOSECONDS, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_DURATION_RAW, 0, 0, 1, CLOCK_PROCESS_CPUTIME_ID, 0},
    {"wall-time", "Time", "Elapsed real time (CLOCK_MONOTONIC)", PERFQ_UNIT_NANOSECONDS,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_DURATION_RAW, 0, 0, 1, CLOCK_MONOTONIC, 0},
};

static int now(clockid_t clock, uint64_t *ns)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return -1;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
}

static perfq_status_t clock_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    (void)reason;
    (void)size;
    *state = (void *)&group;
    return PERFQ_OK;
}

static perfq_status_t clock_enumerate(void *state, struct perfq_catalog *catalog,
                                      const char *probe_reason)
{
    uint32_t gi;
    perfq_status_t st = perfq_catalog_add_group(catalog, &group, state ? NULL : probe_reason,
                                                &gi);
    for (size_t i = 0; st == PERFQ_OK && i < ARRAY_SIZE(counters); i++) {
        uint64_t ns;
        st = perfq_catalog_add_counter(catalog, gi, &counters[i],
                                       now((clockid_t)counters[i].code, &ns)
                                           ? "clock_gettime refused this clock" : NULL);
    }
    return st;
}

struct clock_session {
    size_t count;
    clockid_t clocks[ARRAY_SIZE(counters)];
    uint64_t base[ARRAY_SIZE(counters)];
    uint64_t last[ARRAY_SIZE(counters)];
};

static perfq_status_t clock_session_open(void *state, const struct perfq_session_request *req,
                                         void **session)
{
    (void)state;
    if (req->target.kind != PERFQ_TARGET_SELF && req->target.kind != PERFQ_TARGET_PROCESS)
        return PERFQ_ENOTSUP;
    if (req->count > ARRAY_SIZE(counters))
        return PERFQ_EINVAL;
    struct clock_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++)
        s->clocks[i] = (clockid_t)req->counters[i]->code;
    *session = s;
    return PERFQ_OK;
}

static perfq_status_t read_clocks(struct clock_session *s, uint64_t *out)
{
    for (size_t i = 0; i < s->count; i++)
        if (now(s->clocks[i], &out[i]))
            return PERFQ_ESYS;
    return PERFQ_OK;
}

static perfq_status_t clock_begin(void *session)
{
    struct clock_session *s = session;
    return read_clocks(s, s->base);
}

static void compute(const struct clock_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        memset(&values[i], 0, sizeof(values[i]));
        values[i].v.u64 = s->last[i] - s->base[i];
    }
}

static perfq_status_t clock_sample(void *session, perfq_value_t *values)
{
    struct clock_session *s = session;
    perfq_status_t st = read_clocks(s, s->last);
    if (st == PERFQ_OK)
        compute(s, values);
    return st;
}

static perfq_status_t clock_end(void *session)
{
    struct clock_session *s = session;
    return read_clocks(s, s->last);
}

static perfq_status_t clock_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    compute(session, values);
    return PERFQ_OK;
}

const struct perfq_provider_ops perfq_host_clock_provider = {
    .name = "clock",
    .probe = clock_probe,
    .enumerate = clock_enumerate,
    .session_open = clock_session_open,
    .begin = clock_begin,
    .sample = clock_sample,
    .end = clock_end,
    .result = clock_result,
    .session_close = free,
    .close = NULL,
};
