/*
 * perfq stat [-e LIST] [-I MS] [--json|--csv] [-o FILE] [--no-device] [--no-layers|--per-draw]
 *            -- CMD [ARGS]
 *
 * By default (issue 12) the layers are injected (stat_collect.c reports what they send) and
 * the NVIDIA device counters are added where NVML finds a device, opened on a thread once
 * CMD's driver start is over (stat_device.c).
 *
 * Runs CMD and counts for it and its descendants. Where a perf event measures it, the child
 * waits on a pipe until the measurement exists, and perf events are enabled at its exec
 * (enable_on_exec), so perfq's own fork/exec work is not counted; where only counters that
 * count a process from its start do (proc-io; rusage comes from wait4), CMD is spawned at once
 * (posix_spawnp). When the child exits, perfq waits for it without reaping
 * (WNOWAIT), ends the measurement while /proc/PID/io still exists, then reaps it with wait4 for
 * its rusage (user, system time, max RSS). Exits with CMD's status (128+N for signal N).
 * With -I MS the counters are also printed every MS ms (stat_interval.c) and the total is the
 * sum of the intervals.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "providers/host_rusage.h"
#include "stat_args.h"
#include "stat_collect.h"
#include "stat_device.h"
#include "stat_interval.h"

#define MAX_EVENTS 256

/* The default counters. CPU time, context switches and faults come from the kernel's own
 * accounting of CMD, which perfq reads when it reaps CMD (wait4: the rusage/... rows), not
 * from perf_event software events: an inherited perf event is switched out and in with each of
 * CMD's threads at every context switch, which slowed the GL example by 3-4% on the 2-core VM
 * (docs/perfq-stat.md, "The host counters"). The accounting is the same (the kernel's runtime
 * and switch and fault counts of every thread of CMD and of the children it waited for);
 * cpu-migrations has none and is counted when named (-e host/cpu-migrations). The PMU's events
 * (host-hw) have no such other source: they are counted where a PMU exists. */
static const char *const default_cpu_events[] = {
    "rusage/user-time",    "rusage/system-time",
    "rusage/voluntary-context-switches", "rusage/involuntary-context-switches",
    "rusage/minor-faults", "rusage/major-faults",
};

/* With -I: each interval needs the counts while CMD runs, which wait4 gives only at its end, so
 * the software events stand in for the rusage rows. */
static const char *const default_interval_cpu_events[] = {
    "host/task-clock",     "host/context-switches", "host/cpu-migrations",
    "host/page-faults",    "host/minor-faults",     "host/major-faults",
};

/* After those, with or without -I. */
static const char *const default_other_events[] = {
    "host-hw/cycles",      "host-hw/instructions",  "host-hw/branches",
    "host-hw/branch-misses", "host-hw/cache-references", "host-hw/cache-misses",
    "proc-io/read-bytes",  "proc-io/write-bytes",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define RUSAGE_GROUP "rusage/"

struct stat_row {
    perfq_counter_info_t info;
    perfq_counter_id_t id;
    int measured;              /* index into the measurement, or -1 when unavailable */
    int device;                /* a device counter (nvml, gpm): no "CPUs utilized" */
    int explicit_name;         /* named with -e */
    int from_wait4;            /* a rusage/... row: CMD's, from wait4 when perfq reaps it */
};

static volatile sig_atomic_t child_pid;

/* SIGTERM and SIGHUP sent to perfq (kill, a service manager, a closed terminal) go to the
 * command, as in perfq record: it ends, and perfq still prints what it counted and exits with
 * the command's status. Without this perfq died at once, the report was lost and the command
 * ran on, orphaned. */
static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

int cli_counts_other_process(perfq_t *pq, perfq_counter_id_t id)
{
    perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = getpid()};
    perfq_measurement_t *m;
    if (perfq_measurement_create(pq, &id, 1, &t, &m) != PERFQ_OK)
        return 0;
    perfq_measurement_destroy(&m);
    return 1;
}

static int add_row(perfq_t *pq, struct stat_row *rows, size_t *n, const char *name,
                   int explicit_name)
{
    perfq_counter_id_t id;
    if (*n >= MAX_EVENTS)
        return fprintf(stderr, "perfq stat: more than %d counters\n", MAX_EVENTS), -1;
    if (explicit_name) {
        if (cli_find_counter(pq, name, &id))
            return -1;
    } else if (perfq_counter_find(pq, name, &id) != PERFQ_OK) {
        return 0;   /* a default this build does not have */
    }
    for (size_t i = 0; i < *n; i++)
        if (rows[i].id == id)
            return 0;
    struct stat_row *r = &rows[(*n)++];
    perfq_counter_info(pq, id, &r->info);
    r->id = id;
    r->measured = -1;
    r->explicit_name = explicit_name;
    r->from_wait4 = r->info.available &&
                    strncmp(r->info.full_name, RUSAGE_GROUP, strlen(RUSAGE_GROUP)) == 0;
    return 0;
}

/* A counter that can measure perfq's own process only (rusage: the kernel has no getrusage of
 * another process) is looked for only when the measurement of CMD could not be created: it is
 * an error when named with -e, and a default is left out. Trying every counter on perfq's own
 * pid before every run cost a measurement per counter: a perf_event_open and close each (the
 * kernel's static-key patching at each, an IPI in a VM) and 0.5 ms of host_perf's settling
 * pause each, about 3 ms per run for the defaults. Returns the rows left out, or -1 after
 * printing why. */
static int drop_own_process_only(perfq_t *pq, struct stat_row *rows, size_t *n)
{
    int dropped = 0;
    for (size_t i = 0; i < *n;) {
        if (!rows[i].info.available || rows[i].device || rows[i].from_wait4 ||
            cli_counts_other_process(pq, rows[i].id)) {
            i++;
            continue;
        }
        if (rows[i].explicit_name)
            return fprintf(stderr, "perfq stat: counter '%s' can only measure perfq's own "
                           "process, not a command\n", rows[i].info.full_name), -1;
        memmove(&rows[i], &rows[i + 1], (*n - i - 1) * sizeof(rows[0]));
        (*n)--;
        dropped++;
    }
    return dropped;
}

/* The available rows' ids and infos, in order; each row's index among them. The rows from
 * wait4 are not measured: add_wait4_results gives them theirs. */
static size_t measured_ids(struct stat_row *rows, size_t n, perfq_counter_id_t *ids,
                           perfq_counter_info_t *infos)
{
    size_t measured = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i].measured = -1;
        if (rows[i].info.available && !rows[i].from_wait4) {
            rows[i].measured = (int)measured;
            infos[measured] = rows[i].info;
            ids[measured++] = rows[i].id;
        }
    }
    return measured;
}

/* Whether CMD may be spawned at once: every counter measured on it (rows[i].measured >= 0) is
 * one that counts a process from its start (proc-io, perfq.h), none that must be attached
 * before the exec (perf events: host, host-hw), and no -I (its intervals begin with CMD's
 * exec). */
static int spawn_at_once(const struct stat_options *o, const struct stat_row *rows, size_t n)
{
    static const char from_start[] = "proc-io/";
    if (o->interval_ms)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].measured >= 0 &&
            strncmp(rows[i].info.full_name, from_start, sizeof(from_start) - 1) != 0)
            return 0;
    return 1;
}

/* The device counters with -I only (their intervals need them in the interval set): every
 * available device counter of the NVIDIA providers nvml and gpm (nvml-gpuN and gpm-gpuN where
 * a driver is present), probed here, before CMD starts (NVML's start, 31 ms on an H100, is
 * then waited for). Without -I they are opened on a thread after CMD's driver start
 * (stat_device.c). explicit_ (--device): unavailable ones too, so that the table says why.
 * CUPTI's device-wide counters (cupti-gpuN) are not among them (its probe initialises CUDA,
 * 0.6 s of CPU; its sampling costs about 5% of a core): they are counted when named with -e. */
static int add_device_rows(perfq_t *pq, struct stat_row *rows, size_t *n, int explicit_)
{
    uint32_t count = 0;
    /* Deferred providers (perfq.h): NVML's are probed here, CUPTI's not. A failure leaves
     * their groups out, as an unavailable group would be. */
    perfq_catalog_probe(pq, "nvml");
    perfq_catalog_probe(pq, "gpm");
    perfq_catalog_probed(pq, NULL, &count);
    for (uint32_t id = 0; id < count; id++) {
        perfq_counter_info_t ci;
        perfq_group_info_t gi;
        if (perfq_counter_info(pq, id, &ci) != PERFQ_OK || (!ci.available && !explicit_) ||
            perfq_group_info(pq, ci.group, &gi) != PERFQ_OK || !stat_device_counter(&gi, &ci))
            continue;
        if (*n >= MAX_EVENTS)
            break;
        /* A device counter counts the device, whoever uses it: no need to try it on another
         * process (add_row), which would start NVML's sampler once per counter. */
        int seen = 0;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = rows[i].id == id;
        if (seen)
            continue;
        struct stat_row *r = &rows[(*n)++];
        r->info = ci;
        r->id = id;
        r->measured = -1;
        r->device = 1;
    }
    return 0;
}

/* Device counters: by default where NVML finds a device (none with -e: an -e list replaces
 * the default counters, device ones included, as perf stat's -e does); --device adds them also
 * beside -e; --no-device never. */
static int want_device(const struct stat_options *o)
{
    return o->device == STAT_DEVICE_ON || (o->device == STAT_DEVICE_AUTO && !o->events);
}

static int select_rows(perfq_t *pq, const struct stat_options *o, struct stat_row *rows,
                       size_t *n)
{
    *n = 0;
    int device_now = o->interval_ms && want_device(o);
    if (!o->events) {
        const char *const *cpu = o->interval_ms ? default_interval_cpu_events
                                                : default_cpu_events;
        size_t n_cpu = o->interval_ms ? ARRAY_SIZE(default_interval_cpu_events)
                                      : ARRAY_SIZE(default_cpu_events);
        for (size_t i = 0; i < n_cpu; i++)
            if (add_row(pq, rows, n, cpu[i], 0))
                return -1;
        for (size_t i = 0; i < ARRAY_SIZE(default_other_events); i++)
            if (add_row(pq, rows, n, default_other_events[i], 0))
                return -1;
        return device_now ? add_device_rows(pq, rows, n, o->device == STAT_DEVICE_ON) : 0;
    }
    char *list = strdup(o->events);
    if (!list)
        return -1;
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save))
        rc = add_row(pq, rows, n, tok, 1);
    free(list);
    for (size_t i = 0; i < *n && !rc && o->interval_ms; i++) {
        if (!rows[i].from_wait4)
            continue;
        fprintf(stderr, "perfq stat: '%s' is CMD's rusage, which the kernel gives when CMD is "
                "reaped: not with -I (host/... counts the same by interval)\n",
                rows[i].info.full_name);
        rc = -1;
    }
    if (!rc && device_now)
        rc = add_device_rows(pq, rows, n, 1);
    if (!rc && *n == 0 && !want_device(o)) {
        fprintf(stderr, "perfq stat: no counters given\n");
        rc = -1;
    }
    return rc;
}

struct child_result {
    int status;
    struct rusage usage;
    uint64_t elapsed_ns;
    unsigned intervals;        /* -I: intervals printed */
    int device_rows;           /* device counters opened on perfq's thread (stat_device.c) */
    int64_t device_begin_ns;   /* when they began, from CMD's start; -1: never */
    enum stat_device_cause device_cause;   /* what started NVML */
    int64_t device_start_ns;   /* when NVML's start began, from CMD's start; -1: never */
    struct stat_device *device; /* perfq leaves with _exit: NVML's sampler or start runs */
    int exec_errno;            /* CMD could not be executed: why (exit 126 or 127) */
};

static const char *const device_cause_text[] = {
    [STAT_DEVICE_NONE] = "",
    [STAT_DEVICE_NOT_STARTED] = "",
    [STAT_DEVICE_FIRST_FRAME] = "past the delay, at CMD's first frame",
    [STAT_DEVICE_FIRST_COMMAND] = "past the delay, at CMD's first OpenCL command",
    [STAT_DEVICE_DELAY] = "at the delay (PERFQ_STAT_DEVICE_DELAY_MS)",
    [STAT_DEVICE_NO_FIRST] = "past the delay, no frame or OpenCL command came",
    [STAT_DEVICE_AT_ONCE] = "at once (--device, or PERFQ_STAT_DEVICE_DELAY_MS=0)",
};
static const char *const device_cause_json[] = {
    [STAT_DEVICE_NONE] = "none", [STAT_DEVICE_NOT_STARTED] = "not_started",
    [STAT_DEVICE_FIRST_FRAME] = "first_frame", [STAT_DEVICE_FIRST_COMMAND] = "first_command",
    [STAT_DEVICE_DELAY] = "delay", [STAT_DEVICE_NO_FIRST] = "no_first",
    [STAT_DEVICE_AT_ONCE] = "at_once",
};

/* Device counters opened on perfq's thread (not -I): when they began, what started NVML. */
static int device_said(const struct child_result *r)
{
    return r->device_cause != STAT_DEVICE_NONE || r->device_rows;
}

/* Where the thread's device counters were read: the interval they cover. */
static void print_device_interval(FILE *out, const struct child_result *r)
{
    if (!device_said(r))
        return;
    if (r->device_begin_ns >= 0)
        fprintf(out, "\n   device counters from %.3f s after CMD's start to its exit (NVML started "
                "%.3f s after CMD's start, %s)\n", (double)r->device_begin_ns / 1e9,
                (double)r->device_start_ns / 1e9, device_cause_text[r->device_cause]);
    else if (r->device_start_ns >= 0)
        fprintf(out, "\n   device counters not counted: CMD ended while NVML was starting (from "
                "%.3f s after CMD's start, %s;\n   --device starts it with CMD, slowing CMD's own "
                "driver start)\n", (double)r->device_start_ns / 1e9,
                device_cause_text[r->device_cause]);
    else
        fprintf(out, "\n   device counters not counted: CMD ended before NVML was to start (at "
                "%.3f s after its start, or past it at its first frame or OpenCL command;\n"
                "   --device starts it with CMD, slowing CMD's own driver start)\n",
                stat_device_delay_s());
}

static void print_table(FILE *out, const struct stat_options *o, const struct stat_row *rows,
                        size_t n, const perfq_value_t *values, const struct child_result *r)
{
    double seconds = (double)r->elapsed_ns / 1e9;
    fprintf(out, "\n Performance counter stats for '");
    for (char **a = o->cmd; *a; a++)
        fprintf(out, "%s%s", a == o->cmd ? "" : " ", *a);
    fprintf(out, "' (perfq):\n\n");
    const char *last_reason = NULL;
    for (size_t i = 0; i < n; i++) {
        const perfq_counter_info_t *ci = &rows[i].info;
        if (rows[i].measured < 0) {
            /* Rows of one unavailable group share a reason: print it once. */
            int repeated = last_reason && strcmp(last_reason, ci->unavailable_reason) == 0;
            if (repeated)
                fprintf(out, "   %18s  %-8s %s\n", "<not supported>", "", ci->full_name);
            else
                fprintf(out, "   %18s  %-8s %-35s (%s)\n", "<not supported>", "",
                        ci->full_name, ci->unavailable_reason);
            last_reason = ci->unavailable_reason;
            continue;
        }
        const perfq_value_t *v = &values[rows[i].measured];
        if (v->flags & PERFQ_VALUE_NOT_COUNTED) {
            fprintf(out, "   %18s  %-8s %s\n", "<not counted>", "", ci->full_name);
            continue;
        }
        double value = perfq_value_as_double(v, ci->storage);
        int scaled = (v->flags & PERFQ_VALUE_SCALED) != 0;
        if (ci->unit == PERFQ_UNIT_NANOSECONDS) {
            int cpus = ci->intel_type == PERFQ_INTEL_DURATION_RAW && r->elapsed_ns &&
                       !rows[i].device;
            fprintf(out, "   %18.2f  %-8s %-*s", value / 1e6, "msec", cpus || scaled ? 35 : 0,
                    ci->full_name);
            if (cpus)
                fprintf(out, " # %10.3f CPUs utilized", value / (double)r->elapsed_ns);
        } else if (ci->intel_type != PERFQ_INTEL_EVENT) {
            /* A level or a mean (power, clocks, utilisation): no rate per second. */
            fprintf(out, "   %18.0f  %-8s %-*s", value,
                    ci->unit == PERFQ_UNIT_GENERIC ? "" : perfq_unit_name(ci->unit),
                    scaled ? 35 : 0, ci->full_name);
        } else {
            fprintf(out, "   %18.0f  %-8s %-35s #", value,
                    ci->unit == PERFQ_UNIT_GENERIC ? "" : perfq_unit_name(ci->unit),
                    ci->full_name);
            double rate = seconds > 0 ? value / seconds : 0;
            const char *scale = "";
            static const struct { double at; const char *prefix; } scales[] = {
                {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
            for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
                if (rate >= scales[k].at) {
                    rate /= scales[k].at;
                    scale = scales[k].prefix;
                    break;
                }
            }
            fprintf(out, " %10.3f %s/sec", rate, scale);
        }
        if (scaled)
            fprintf(out, "  (scaled: counted %.2f%% of the time)",
                    100.0 * (double)v->time_running / (double)v->time_enabled);
        fprintf(out, "\n");
    }
    if (o->interval_ms)
        fprintf(out, "\n   %u intervals of %u ms: the values above are their sums\n",
                r->intervals, o->interval_ms);
    print_device_interval(out, r);
    fprintf(out, "\n   %18.9f seconds time elapsed\n", seconds);
    fprintf(out, "   %18.9f seconds user\n",
            (double)r->usage.ru_utime.tv_sec + (double)r->usage.ru_utime.tv_usec / 1e6);
    fprintf(out, "   %18.9f seconds sys\n",
            (double)r->usage.ru_stime.tv_sec + (double)r->usage.ru_stime.tv_usec / 1e6);
    fprintf(out, "   %18ld KiB max resident set\n\n", r->usage.ru_maxrss);
}

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* "exit_status" is the shell's (128 + N for signal N), as perfq's own exit and the CSV's run
 * row; "signal" is N (0: CMD exited). */
static void print_json(FILE *out, const struct stat_options *o, const struct stat_row *rows,
                       size_t n, const perfq_value_t *values, const struct child_result *r,
                       struct stat_collect *collect)
{
    fprintf(out, "{\"command\": [");
    for (char **a = o->cmd; *a; a++) {
        fprintf(out, "%s", a == o->cmd ? "" : ", ");
        json_string(out, *a);
    }
    fprintf(out, "], \"exit_status\": %d, \"signal\": %d, \"elapsed_ns\": %" PRIu64
            ", \"user_ns\": %" PRIu64 ", \"system_ns\": %" PRIu64
            ", \"max_rss_bytes\": %" PRIu64,
            WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status),
            WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0, r->elapsed_ns,
            tv_ns(r->usage.ru_utime), tv_ns(r->usage.ru_stime),
            (uint64_t)r->usage.ru_maxrss * 1024u);
    if (o->interval_ms)
        fprintf(out, ", \"interval_ms\": %u, \"intervals\": %u", o->interval_ms, r->intervals);
    if (device_said(r) && r->device_begin_ns >= 0)
        fprintf(out, ", \"device_begin_ns\": %" PRId64, r->device_begin_ns);
    else if (device_said(r))
        fprintf(out, ", \"device_begin_ns\": null");
    if (device_said(r) && r->device_start_ns >= 0)
        fprintf(out, ", \"device_start_ns\": %" PRId64, r->device_start_ns);
    else if (device_said(r))
        fprintf(out, ", \"device_start_ns\": null");
    if (device_said(r))
        fprintf(out, ", \"device_start\": \"%s\"", device_cause_json[r->device_cause]);
    fprintf(out, ", \"counters\": [");
    /* With -I the intervals are one object a line, and so is the total: the whole output is
     * JSON Lines. Without -I, a counter a line for the eye (still one JSON document). */
    const char *first = o->interval_ms ? "" : "\n  ", *next = o->interval_ms ? ", " : ",\n  ";
    double seconds = (double)r->elapsed_ns / 1e9;
    for (size_t i = 0; i < n; i++) {
        const perfq_counter_info_t *ci = &rows[i].info;
        fprintf(out, "%s{\"name\": ", i ? next : first);
        json_string(out, ci->full_name);
        fprintf(out, ", \"unit\": \"%s\", \"available\": %s", perfq_unit_name(ci->unit),
                rows[i].measured >= 0 ? "true" : "false");
        if (rows[i].measured < 0) {
            fprintf(out, ", \"reason\": ");
            json_string(out, ci->unavailable_reason);
            fprintf(out, "}");
            continue;
        }
        const perfq_value_t *v = &values[rows[i].measured];
        double value = perfq_value_as_double(v, ci->storage);
        fprintf(out, ", \"value\": %.17g", value);
        /* A rate of a level (rusage/max-rss), a mean or a timestamp would mean nothing. */
        if (cli_counter_is_counting(ci))
            fprintf(out, ", \"rate_per_second\": %.17g", seconds > 0 ? value / seconds : 0.0);
        /* A counted value with no running time comes from a source that has no enabled and
         * running times (proc-io, the layers' and the device's counters: the C API's "else
         * 0"); a 0 there would read as "never ran". perf's counters have them (a counted
         * one ran), the rusage rows CMD's whole run. */
        if ((v->flags & PERFQ_VALUE_NOT_COUNTED) || v->time_running)
            fprintf(out, ", \"time_enabled\": %" PRIu64 ", \"time_running\": %" PRIu64,
                    v->time_enabled, v->time_running);
        fprintf(out, ", \"scaled\": %s, \"counted\": %s}",
                v->flags & PERFQ_VALUE_SCALED ? "true" : "false",
                v->flags & PERFQ_VALUE_NOT_COUNTED ? "false" : "true");
    }
    fprintf(out, "%s]", o->interval_ms ? "" : "\n");
    if (collect) {
        fprintf(out, ", ");
        stat_collect_print_json(collect, out);
    }
    fprintf(out, "}\n");
}

/* One header, then one row per counter and per layer record group (docs/perfq-stat.md). */
static void print_csv(FILE *out, const struct stat_row *rows, size_t n,
                      const perfq_value_t *values, const struct child_result *r,
                      struct stat_collect *collect)
{
    fputs(STAT_CSV_HEADER, out);
    fprintf(out, "run,exit_status,%d,,,,,,,," STAT_CSV_NO_MEMORY "\n",
            WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status));
    /* As JSON's "signal": the signal that killed CMD, 0 when it exited (exit 139 and SIGSEGV
     * read the same in exit_status; until 2026-11-30 the CSV could not tell them apart). */
    fprintf(out, "run,signal,%d,,,,,,,," STAT_CSV_NO_MEMORY "\n",
            WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0);
    fprintf(out, "run,elapsed_ns,,,%" PRIu64 ",,,,,," STAT_CSV_NO_MEMORY "\n", r->elapsed_ns);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].measured < 0)
            continue;   /* unavailable: the table and JSON say why */
        const perfq_value_t *v = &values[rows[i].measured];
        if (v->flags & PERFQ_VALUE_NOT_COUNTED)
            continue;
        fprintf(out, "counter,%s,,,%.17g,,,,,," STAT_CSV_NO_MEMORY "\n", rows[i].info.full_name,
                perfq_value_as_double(v, rows[i].info.storage));
    }
    if (collect)
        stat_collect_print_csv(collect, out);
}

/* The rusage/... rows: CMD's, from the rusage wait4 gave when perfq reaped it (CMD and the
 * children it waited for), after the measured values. Returns the values' count after them. */
static size_t add_wait4_results(struct stat_row *rows, size_t n, size_t measured,
                                perfq_value_t *values, const struct child_result *r)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t value;
        if (!rows[i].from_wait4 ||
            perfq_rusage_counter_value(rows[i].info.name, &r->usage, &value) != 0)
            continue;
        perfq_value_t *v = &values[measured];
        memset(v, 0, sizeof(*v));
        v->v.u64 = value;
        v->time_enabled = v->time_running = r->elapsed_ns;   /* counted all along */
        rows[i].measured = (int)measured++;
    }
    return measured;
}

/* The thread's device counters become rows after the others (values after theirs). */
static void add_device_results(perfq_t *pq, const struct stat_device *device,
                               struct stat_row *rows,
                               size_t *n_rows, size_t measured, perfq_value_t *values,
                               uint64_t t0, struct child_result *r)
{
    const perfq_counter_id_t *ids;
    const perfq_value_t *dv;
    size_t n, n_measured;
    uint64_t begin;
    stat_device_result(device, &ids, &n, &n_measured, &dv, &begin);
    for (size_t i = 0; i < n && *n_rows < MAX_EVENTS; i++) {
        struct stat_row *row = &rows[*n_rows];
        if (perfq_counter_info(pq, ids[i], &row->info) != PERFQ_OK)
            continue;
        row->id = ids[i];
        row->measured = -1;
        row->device = 1;
        if (i < n_measured) {
            row->measured = (int)measured;
            values[measured++] = dv[i];
            r->device_rows++;
        }
        (*n_rows)++;
    }
    /* Begun before CMD's start (NVML was quick): they cover all of it. */
    r->device_begin_ns = !begin ? -1 : begin > t0 ? (int64_t)(begin - t0) : 0;
    uint64_t start;
    r->device_cause = stat_device_cause(device, &start);
    r->device_start_ns = !start ? -1 : start > t0 ? (int64_t)(start - t0) : 0;
}

static int run_and_measure(perfq_t *pq, const struct stat_options *o, struct stat_row *rows,
                           size_t *n_rows, perfq_value_t *values, struct child_result *r,
                           struct cli_output_file *file, struct stat_collect **collect)
{
    FILE *out = file->f;
    size_t n = *n_rows;
    perfq_counter_id_t ids[MAX_EVENTS];
    perfq_counter_info_t infos[MAX_EVENTS];
    size_t measured = measured_ids(rows, n, ids, infos);
    if (o->layers && layers_inject(0) != 0)
        return -1;   /* never run the command without the layers it asked for */
    if (o->layers && !(*collect = stat_collect_open(NULL)))
        return -1;
    if (o->per_draw)
        stat_collect_set_per_draw(*collect);
    if (o->no_stats)
        stat_collect_set_no_stats(*collect);
    if (*collect)
        stat_collect_set_stats_span(*collect, o->stats_span_ns);
    int go = -1, exec_err = -1;
    pid_t pid = -1;
    /* Where nothing must be attached to CMD before its exec (perf events are), CMD is spawned
     * at once: no fork of perfq's memory and no wait for a go byte (1.6-2.0 ms of a perfq stat
     * run on the 2-core VM, 0.2 ms on the H100: docs/perfq-stat.md). The terminal's and kill's
     * signals are held until perfq's own dispositions are set, then forwarded or ignored as
     * below; CMD gets the mask and dispositions perfq had. */
    int at_once = spawn_at_once(o, rows, n);
    sigset_t held, old_mask;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGQUIT);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGHUP);
    uint64_t t0 = 0;
    if (at_once) {
        pthread_sigmask(SIG_BLOCK, &held, &old_mask);
        t0 = cli_monotonic_ns();
        int e = cli_spawn_now(o->cmd, &old_mask, &pid);
        if (e) {
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
            at_once = 0;
            if (e != ENOEXEC) {
                r->exec_errno = e;
                return fprintf(stderr, "perfq stat: cannot execute '%s': %s\n", o->cmd[0],
                               strerror(e)), -1;
            }
        }
    }
    if (!at_once && (pid = cli_spawn_waiting(o->cmd, &go, &exec_err)) < 0)
        return fprintf(stderr, "perfq stat: cannot start a process: %s\n", strerror(errno)), -1;
    struct stat_device *device = NULL;   /* started with CMD's exec, below */
    perfq_measurement_t *m = NULL;
    struct stat_interval *iv = NULL;
    perfq_target_t target = {.kind = PERFQ_TARGET_PID, .pid = pid, .enable_on_exec = 1};
    perfq_status_t st = PERFQ_OK;
    int refused = 0;   /* a counter named with -e cannot measure CMD: said why */
    for (int attempt = 0; attempt < 2; attempt++) {
        st = PERFQ_OK;
        if (measured && o->interval_ms)
            st = stat_interval_open(pq, ids, infos, measured, &target, &iv);
        else if (measured)
            st = perfq_measurement_create(pq, ids, measured, &target, &m);
        if (st == PERFQ_OK || attempt > 0)
            break;
        int dropped = drop_own_process_only(pq, rows, &n);
        refused = dropped < 0;
        if (dropped <= 0)
            break;
        *n_rows = n;
        measured = measured_ids(rows, n, ids, infos);
    }
    if (st == PERFQ_OK && m)
        st = perfq_measurement_begin(m);
    if (st != PERFQ_OK && at_once) {
        /* CMD runs already: it is not stopped; what could not be opened is not counted. */
        fprintf(stderr, "perfq stat: cannot measure CMD: %s; its counters are not counted\n",
                perfq_status_string(st));
        perfq_measurement_destroy(&m);
        for (size_t i = 0; i < measured; i++)
            values[i].flags = PERFQ_VALUE_NOT_COUNTED;
        st = PERFQ_OK;
    }
    if (st != PERFQ_OK || refused) {
        if (!refused)
            fprintf(stderr, "perfq stat: cannot measure: %s%s\n", perfq_status_string(st),
                o->interval_ms && st == PERFQ_ENOTSUP
                    ? " (a counter that can be read only at the end cannot be printed by "
                      "interval)" : "");
        close(go);   /* the child reads EOF and exits 127 without running cmd */
        waitpid(pid, NULL, 0);
        stat_device_stop(device, 0);
        stat_device_free(&device);
        perfq_measurement_destroy(&m);
        stat_interval_close(&iv);
        return -1;
    }
    /* Signals from the terminal go to the command; perfq stays to print what it counted. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward};
    struct sigaction old_int, old_quit, old_term, old_hup;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    child_pid = pid;
    sigaction(SIGTERM, &fwd, &old_term);
    sigaction(SIGHUP, &fwd, &old_hup);
    char byte = 1;
    int err = 0;
    ssize_t got = -1;
    int released = 0;
    if (at_once) {
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);   /* held signals arrive now */
    } else {
        t0 = cli_monotonic_ns();
        released = write(go, &byte, 1) == 1;
    }
    /* perfq's threads start while CMD execs, no longer before it (the layers' records wait in
     * the ring meanwhile). The drain thread first: its creation waited for the device thread's
     * dlopen of NVML (the dynamic loader's lock: a thread's TLS is set up under it). The device
     * counters start on a thread after the fork (NVML's descriptors are not CMD's to inherit):
     * CMD does not wait for NVML (-I: select_rows). */
    if (*collect && stat_collect_start(*collect) != 0)
        fprintf(stderr, "perfq stat: cannot read the layers' records: %s\n", strerror(errno));
    if (!o->interval_ms && want_device(o))
        device = stat_device_start(pq, o->device == STAT_DEVICE_ON, *collect);
    stat_device_released(device, t0);
    if (released) {
        do
            got = read(exec_err, &err, sizeof(err));
        while (got < 0 && errno == EINTR);
    }
    if (go >= 0)
        close(go);
    if (exec_err >= 0)
        close(exec_err);
    /* Not while -I writes its intervals to the same terminal. */
    struct progress *progress = o->interval_ms && out == stderr ? NULL
                                                                : progress_start(*collect, t0);
    if (iv) {
        cli_output_file_start(file);   /* CMD runs: the intervals are the report's start */
        /* Returns when the command has exited, not reaped: see stat_interval.c. */
        st = stat_interval_run(iv, pid, o->interval_ms, t0, out, o->json);
        r->intervals = stat_interval_count(iv);
        stat_interval_totals(iv, values);
        stat_interval_close(&iv);
    }
    siginfo_t info;
    int wrc;
    do
        wrc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
    while (wrc < 0 && errno == EINTR);
    r->elapsed_ns = cli_monotonic_ns() - t0;
    stat_device_stop(device, 1);   /* read at CMD's exit, before the rest of the ending */
    if (*collect)
        stat_collect_finish(*collect);
    progress_stop(&progress);
    if (m) {
        st = perfq_measurement_end(m);
        if (st == PERFQ_OK)
            st = perfq_measurement_result(m, PERFQ_RESULT_WAIT, values, measured);
    }
    child_pid = 0;   /* exited (a zombie until wait4): nothing left to forward to */
    while (wait4(pid, &r->status, 0, &r->usage) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    perfq_measurement_destroy(&m);
    measured = add_wait4_results(rows, n, measured, values, r);
    add_device_results(pq, device, rows, n_rows, measured, values, t0, r);
    if (stat_device_must_leave(device))
        r->device = device;   /* cmd_stat leaves without closing it */
    else
        stat_device_free(&device);
    if (got == (ssize_t)sizeof(err)) {
        r->exec_errno = err;
        return fprintf(stderr, "perfq stat: cannot execute '%s': %s\n", o->cmd[0],
                       strerror(err)), -1;
    }
    if (st != PERFQ_OK)
        return fprintf(stderr, "perfq stat: reading the counters failed: %s\n",
                       perfq_status_string(st)), -1;
    return 0;
}

int cmd_stat(int argc, char **argv)
{
    struct stat_options o = {0};
    struct stat_row *rows = calloc(MAX_EVENTS, sizeof(*rows));
    perfq_value_t *values = calloc(MAX_EVENTS, sizeof(*values));
    perfq_t *pq = NULL;
    int rc = CLI_EXIT_USAGE;
    size_t n = 0;
    if (!rows || !values || stat_parse_args(argc, argv, &o))
        goto out;
    perfq_status_t st = perfq_open(&pq);
    if (st != PERFQ_OK) {
        fprintf(stderr, "perfq: cannot open the library: %s\n", perfq_status_string(st));
        goto out;
    }
    if (select_rows(pq, &o, rows, &n))
        goto out;
    /* Opened, not emptied: a usage error found below leaves FILE as it was (output.c). */
    struct cli_output_file file;
    if (cli_output_file_open(&file, o.output) != 0) {
        fprintf(stderr, "perfq stat: cannot write '%s': %s\n", o.output, strerror(errno));
        goto out;
    }
    FILE *out = file.f;
    struct child_result result = {0};
    cli_output_begin(out);   /* -I writes interval records to out while CMD runs */
    struct stat_collect *collect = NULL;
    int measured = run_and_measure(pq, &o, rows, &n, values, &result, &file, &collect) == 0;
    if (!ferror(out))
        errno = 0;           /* a failure from here on reports its own errno */
    if (measured) {
        cli_output_file_start(&file);
        if (o.json)
            print_json(out, &o, rows, n, values, &result, collect);
        else if (o.csv)
            print_csv(out, rows, n, values, &result, collect);
        else {
            print_table(out, &o, rows, n, values, &result);
            if (collect)
                stat_collect_print_table(collect, out);
        }
        rc = WIFEXITED(result.status) ? WEXITSTATUS(result.status)
                                      : 128 + WTERMSIG(result.status);
    } else if (result.exec_errno) {
        rc = cli_exec_failed_status(result.exec_errno);
    }
    char name[64 + 4096];
    snprintf(name, sizeof(name), o.output ? "'%s'" : "%s", o.output ? o.output : "standard error");
    /* The counts are the point of perfq stat: losing them is a failure, whatever CMD did. */
    if (cli_output_file_end(&file, name) != 0 && measured)
        rc = CLI_EXIT_OUTPUT;
    stat_collect_close(&collect);
    if (result.device) {
        /* The report is out. Stopping NVML's sampler and shutting NVML down would add about
         * 5 ms to what the user waits for (H100): leave without them, the kernel ends the
         * sampler's thread and takes the rest (docs/perfq-stat.md, "Device counters"). */
        if (cli_output_end(stdout, "standard output") != 0 && rc == 0)
            rc = CLI_EXIT_OUTPUT;   /* what main() would have checked */
        _exit(rc);
    }
out:
    perfq_close(&pq);
    free(o.events);
    free(rows);
    free(values);
    return rc;
}
