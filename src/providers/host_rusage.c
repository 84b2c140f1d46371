/*
 * Provider "rusage": getrusage(2) of the calling process (RUSAGE_SELF) plus its waited-for
 * children (RUSAGE_CHILDREN). It needs no permission, so it keeps CPU time, faults and context
 * switches measurable where perf_event_open is refused. PERFQ_TARGET_SELF and
 * PERFQ_TARGET_PROCESS (both count the whole process: RUSAGE_SELF has no per-thread form here),
 * not PERFQ_TARGET_PID: the kernel offers no getrusage of another process (perfq stat takes
 * the child's from wait4 instead, through perfq_rusage_counter_value: host_rusage.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"
#include "providers/host_rusage.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum field {
    F_USER_TIME, F_SYSTEM_TIME, F_MAX_RSS, F_MINOR_FAULTS, F_MAJOR_FAULTS,
    F_VOLUNTARY_SWITCHES, F_INVOLUNTARY_SWITCHES, F_BLOCK_INPUT, F_BLOCK_OUTPUT, F_COUNT
};

static const struct perfq_group_desc group = {
    "rusage", "getrusage(2) of the process and its waited-for children; needs no permission",
    PERFQ_SCOPE_PROCESS, 0};

#define C(n, cat, desc, unit, itype, f) \
    {n, cat, desc, unit, PERFQ_STORAGE_UINT64, itype, 0, 0, 1, f, 0}

static const struct perfq_counter_desc counters[] = {
    C("user-time", "CPU", "CPU time in user mode (ns; the kernel's resolution is 1 us)",
      PERFQ_UNIT_NANOSECONDS, PERFQ_INTEL_DURATION_RAW, F_USER_TIME),
    C("system-time", "CPU", "CPU time in the kernel on the process's behalf (ns)",
      PERFQ_UNIT_NANOSECONDS, PERFQ_INTEL_DURATION_RAW, F_SYSTEM_TIME),
    C("max-rss", "Memory", "Largest resident set size so far, of the process or of its "
      "largest waited-for child (a level, not a difference)", PERFQ_UNIT_BYTES,
      PERFQ_INTEL_RAW, F_MAX_RSS),
    C("minor-faults", "Memory", "Page faults served without I/O", PERFQ_UNIT_GENERIC,
      PERFQ_INTEL_EVENT, F_MINOR_FAULTS),
    C("major-faults", "Memory", "Page faults that needed I/O", PERFQ_UNIT_GENERIC,
      PERFQ_INTEL_EVENT, F_MAJOR_FAULTS),
    C("voluntary-context-switches", "Scheduler", "Switches because the process waited",
      PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, F_VOLUNTARY_SWITCHES),
    C("involuntary-context-switches", "Scheduler", "Switches because the time slice ended or "
      "a task of higher priority ran", PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT,
      F_INVOLUNTARY_SWITCHES),
    C("block-input-ops", "I/O", "File system inputs that reached a block device",
      PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, F_BLOCK_INPUT),
    C("block-output-ops", "I/O", "File system outputs that reached a block device",
      PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, F_BLOCK_OUTPUT),
};
_Static_assert(ARRAY_SIZE(counters) == F_COUNT, "one counter per field");

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* The fields of one rusage, plus a second one's where given (RUSAGE_CHILDREN: a level such as
 * max-rss takes the larger). */
static void fields_of(const struct rusage *a, const struct rusage *b, uint64_t *out)
{
    static const struct rusage none;
    if (!b)
        b = &none;
    out[F_USER_TIME] = tv_ns(a->ru_utime) + tv_ns(b->ru_utime);
    out[F_SYSTEM_TIME] = tv_ns(a->ru_stime) + tv_ns(b->ru_stime);
    long rss = a->ru_maxrss > b->ru_maxrss ? a->ru_maxrss : b->ru_maxrss;
    out[F_MAX_RSS] = (uint64_t)rss * 1024u;   /* Linux reports KiB */
    out[F_MINOR_FAULTS] = (uint64_t)(a->ru_minflt + b->ru_minflt);
    out[F_MAJOR_FAULTS] = (uint64_t)(a->ru_majflt + b->ru_majflt);
    out[F_VOLUNTARY_SWITCHES] = (uint64_t)(a->ru_nvcsw + b->ru_nvcsw);
    out[F_INVOLUNTARY_SWITCHES] = (uint64_t)(a->ru_nivcsw + b->ru_nivcsw);
    out[F_BLOCK_INPUT] = (uint64_t)(a->ru_inblock + b->ru_inblock);
    out[F_BLOCK_OUTPUT] = (uint64_t)(a->ru_oublock + b->ru_oublock);
}

static int read_fields(uint64_t *out)
{
    struct rusage self, children;
    if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &children) != 0)
        return -1;
    fields_of(&self, &children, out);
    return 0;
}

int perfq_rusage_counter_value(const char *counter, const struct rusage *usage,
                               uint64_t *value)
{
    for (size_t i = 0; i < ARRAY_SIZE(counters); i++) {
        if (strcmp(counters[i].name, counter) != 0)
            continue;
        uint64_t fields[F_COUNT];
        fields_of(usage, NULL, fields);
        *value = fields[counters[i].code];
        return 0;
    }
    return -1;
}

static perfq_status_t rusage_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    (void)reason;
    (void)size;
    *state = (void *)&group;   /* stateless: any non-NULL marks it usable */
    return PERFQ_OK;
}

static perfq_status_t rusage_enumerate(void *state, struct perfq_catalog *catalog,
                                       const char *probe_reason)
{
    return perfq_catalog_add_table(catalog, &group, counters, ARRAY_SIZE(counters),
                                   state ? NULL : probe_reason);
}

struct rusage_session {
    size_t count;
    enum field fields[F_COUNT];
    uint64_t base[F_COUNT];
    uint64_t last[F_COUNT];
};

static perfq_status_t rusage_session_open(void *state, const struct perfq_session_request *req,
                                          void **session)
{
    (void)state;
    if (req->target.kind != PERFQ_TARGET_SELF && req->target.kind != PERFQ_TARGET_PROCESS)
        return PERFQ_ENOTSUP;
    if (req->count > F_COUNT)
        return PERFQ_EINVAL;
    struct rusage_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++)
        s->fields[i] = (enum field)req->counters[i]->code;
    *session = s;
    return PERFQ_OK;
}

static perfq_status_t rusage_begin(void *session)
{
    struct rusage_session *s = session;
    return read_fields(s->base) ? PERFQ_ESYS : PERFQ_OK;
}

static void compute(const struct rusage_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        enum field f = s->fields[i];
        memset(&values[i], 0, sizeof(values[i]));
        /* max-rss is a level: report it, not a difference. */
        values[i].v.u64 = f == F_MAX_RSS ? s->last[f] : s->last[f] - s->base[f];
    }
}

static perfq_status_t rusage_sample(void *session, perfq_value_t *values)
{
    struct rusage_session *s = session;
    if (read_fields(s->last))
        return PERFQ_ESYS;
    compute(s, values);
    return PERFQ_OK;
}

static perfq_status_t rusage_end(void *session)
{
    struct rusage_session *s = session;
    return read_fields(s->last) ? PERFQ_ESYS : PERFQ_OK;
}

static perfq_status_t rusage_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    compute(session, values);
    return PERFQ_OK;
}

const struct perfq_provider_ops perfq_host_rusage_provider = {
    .name = "rusage",
    .probe = rusage_probe,
    .enumerate = rusage_enumerate,
    .session_open = rusage_session_open,
    .begin = rusage_begin,
    .sample = rusage_sample,
    .end = rusage_end,
    .result = rusage_result,
    .session_close = free,
    .close = NULL,
};
