/*
 * perfq record -o FILE [-e LIST] [-I MS] [--per-draw] -- CMD [ARGS]
 *
 * Runs CMD with perfq's layers in timeline mode and writes a Chrome / Perfetto JSON trace
 * (docs/perfq-record.md): frames and OpenCL enqueue calls on CMD's thread tracks, GPU intervals
 * of frames and OpenCL commands on one track per GL context and OpenCL queue, grouped by device,
 * host counters sampled every MS ms (100 by default) as counter tracks. The layers' records are
 * turned into events on the collector's thread (record_timeline.c) and streamed
 * (trace_writer.c); the counters come from the continuous sampler (stat_interval.c) on this
 * thread. Whatever happens to CMD (a crash, SIGKILL), perfq finishes the file when CMD has
 * exited, and exits with CMD's status (128+N for signal N).
 */
#include <errno.h>
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
#include "record_timeline.h"
#include "stat_args.h"
#include "stat_collect.h"
#include "stat_interval.h"
#include "trace_writer.h"

#define MAX_COUNTERS 64

static const char *const default_counters[] = {
    "host/task-clock", "host/context-switches", "host/page-faults",
    "proc-io/read-bytes", "proc-io/write-bytes",
};

struct record_options {
    const char *output;
    const char *events;
    unsigned interval_ms;
    int per_draw;
    int no_stats;
    unsigned long long stats_span_ns;
    char **cmd;
};

static int parse_args(int argc, char **argv, struct record_options *o)
{
    o->interval_ms = 100;
    o->stats_span_ns = STAT_STATS_SPAN_DEFAULT_NS;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return fprintf(stderr, "perfq record: %s needs a file name\n", a), -1;
            o->output = argv[i];
        } else if (strcmp(a, "-e") == 0 || strcmp(a, "--events") == 0) {
            if (++i >= argc)
                return fprintf(stderr, "perfq record: %s needs a list of counters\n", a), -1;
            o->events = argv[i];
        } else if (strcmp(a, "-I") == 0 || strcmp(a, "--interval") == 0) {
            char *end = NULL;
            unsigned long ms = ++i < argc ? strtoul(argv[i], &end, 10) : 0;
            if (i >= argc || !*argv[i] || *end || argv[i][0] == '-' || ms < 10 || ms > 3600000)
                return fprintf(stderr, "perfq record: %s needs a whole number of "
                               "milliseconds from 10 to 3600000\n", a), -1;
            o->interval_ms = (unsigned)ms;
        } else if (strcmp(a, "--per-draw") == 0) {
            o->per_draw = 1;
        } else if (strcmp(a, "--no-stats") == 0) {
            o->no_stats = 1;
        } else if (strcmp(a, "--stats-span") == 0) {
            if (stat_parse_span_ms(++i < argc ? argv[i] : NULL, &o->stats_span_ns) != 0)
                return fprintf(stderr, "perfq record: --stats-span needs a number of "
                               "milliseconds from 0 to %.0f\n", STAT_STATS_SPAN_MAX_MS), -1;
        } else {
            return fprintf(stderr, "perfq record: unknown option '%s'\n", a), -1;
        }
    }
    if (!o->output)
        return fprintf(stderr, "perfq record: -o FILE is required (usage: perfq record -o "
                       "trace.json [-e LIST] [-I MS] [--per-draw] [--no-stats] [--stats-span MS] "
                       "-- CMD [ARGS])\n"), -1;
    if (i >= argc)
        return fprintf(stderr, "perfq record: missing command (usage: perfq record -o "
                       "trace.json [-e LIST] [-I MS] [--per-draw] [--no-stats] [--stats-span MS] "
                       "-- CMD [ARGS])\n"), -1;
    o->cmd = argv + i;
    return 0;
}

/* The counters to sample: -e's (each must work: an error otherwise) or the defaults that can
 * be sampled here for another process (the others are left out). */
static int select_counters(perfq_t *pq, const struct record_options *o, perfq_counter_id_t *ids,
                           perfq_counter_info_t *infos, size_t *n)
{
    *n = 0;
    char *list = o->events ? strdup(o->events) : NULL;
    if (o->events && !list)
        return -1;
    const char *names[MAX_COUNTERS];
    size_t count = 0;
    if (list) {
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && count < MAX_COUNTERS;
             tok = strtok_r(NULL, ",", &save))
            names[count++] = tok;
    } else {
        for (size_t i = 0; i < sizeof(default_counters) / sizeof(*default_counters); i++)
            names[count++] = default_counters[i];
    }
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        perfq_counter_id_t id;
        if (list ? cli_find_counter(pq, names[i], &id) != 0
                 : perfq_counter_find(pq, names[i], &id) != PERFQ_OK) {
            rc = list ? -1 : 0;
            continue;
        }
        perfq_counter_info_t info;
        perfq_counter_info(pq, id, &info);
        int ok = info.available &&
                 cli_counts_other_process(pq, id);
        if (!ok && list) {
            fprintf(stderr, "perfq record: counter '%s' cannot be sampled for a command%s%s\n",
                    info.full_name, info.available ? "" : ": ",
                    info.available ? "" : info.unavailable_reason);
            rc = -1;
        }
        int dup = 0;
        for (size_t k = 0; k < *n; k++)
            dup |= ids[k] == id;
        if (ok && !dup) {
            ids[*n] = id;
            infos[(*n)++] = info;
        }
    }
    free(list);
    return rc;
}

struct counter_sink {
    struct trace *trace;
    uint32_t pid;
};

/* Counting counters become a rate over the interval (per second; nanosecond counters as CPUs),
 * placed at the interval's start so the value covers it; gauges their value at its end. */
static void counter_event(void *arg, const perfq_counter_info_t *info,
                          const perfq_value_t *value, uint64_t begin, uint64_t end)
{
    struct counter_sink *s = arg;
    if (value->flags & PERFQ_VALUE_NOT_COUNTED)
        return;
    double v = perfq_value_as_double(value, info->storage);
    char name[200];
    if (!cli_counter_is_counting(info)) {
        trace_counter(s->trace, s->pid, end, info->full_name, v);
        return;
    }
    if (end <= begin)
        return;
    double seconds = (double)(end - begin) / 1e9;
    if (info->unit == PERFQ_UNIT_NANOSECONDS)
        snprintf(name, sizeof(name), "%s (CPUs)", info->full_name);
    else
        snprintf(name, sizeof(name), "%s per second", info->full_name);
    trace_counter(s->trace, s->pid, begin,
                  name, info->unit == PERFQ_UNIT_NANOSECONDS ? v / 1e9 / seconds : v / seconds);
}

static volatile sig_atomic_t child_pid;

/* SIGTERM, SIGHUP to perfq go to the command: it ends, and perfq finishes the trace. */
static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

/* Runs CMD and writes its trace. 0 with CMD's wait status in *status; 1 when the trace could not
 * be finished; -1 when CMD did not run (said why), *status then -1 - errno where its exec failed
 * (exit 126 or 127), left 0 otherwise. */
static int record(perfq_t *pq, const struct record_options *o, struct cli_output_file *file,
                  int *status)
{
    perfq_counter_id_t ids[MAX_COUNTERS];
    perfq_counter_info_t infos[MAX_COUNTERS];
    size_t n = 0;
    if (select_counters(pq, o, ids, infos, &n) != 0 || layers_inject(0) != 0)
        return -1;   /* a usage error: the trace file is left as it was */
    cli_output_file_start(file);
    uint64_t t0 = cli_monotonic_ns();
    struct trace *trace = trace_open(file->f, t0);
    struct stat_collect *collect = trace ? stat_collect_open(trace) : NULL;
    if (collect && o->per_draw)
        stat_collect_set_per_draw(collect);
    if (collect && o->no_stats)
        stat_collect_set_no_stats(collect);
    if (collect)
        stat_collect_set_stats_span(collect, o->stats_span_ns);
    if (!collect) {
        if (!trace)
            fprintf(stderr, "perfq record: out of memory\n");
        trace_close(&trace);
        return -1;
    }
    int go, exec_err;
    pid_t pid = cli_spawn_waiting(o->cmd, &go, &exec_err);
    if (pid < 0) {
        fprintf(stderr, "perfq record: cannot start a process: %s\n", strerror(errno));
        stat_collect_close(&collect);
        trace_close(&trace);
        return -1;
    }
    /* From CMD's argv, before any record of it (until CMD has exec'd, /proc has perfq's
     * copy; where the exec fails, nothing else would name it). */
    timeline_name_command(stat_collect_timeline(collect), (uint32_t)pid, o->cmd);
    trace_note(trace, "pid", (uint64_t)pid);
    if (stat_collect_start(collect) != 0)
        fprintf(stderr, "perfq record: cannot read the layers' records: %s\n", strerror(errno));
    struct stat_interval *iv = NULL;
    perfq_target_t target = {.kind = PERFQ_TARGET_PID, .pid = pid, .enable_on_exec = 1};
    if (n && stat_interval_open(pq, ids, infos, n, &target, &iv) != PERFQ_OK) {
        fprintf(stderr, "perfq record: the counters cannot be sampled; recording without "
                "them\n");
        iv = NULL;
    }
    struct counter_sink sink = {trace, (uint32_t)pid};
    if (iv)
        stat_interval_set_sink(iv, counter_event, &sink);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward};
    struct sigaction old_int, old_quit, old_term, old_hup;
    sigaction(SIGINT, &ignore, &old_int);     /* the terminal's ^C reaches CMD itself */
    sigaction(SIGQUIT, &ignore, &old_quit);
    child_pid = pid;
    sigaction(SIGTERM, &fwd, &old_term);
    sigaction(SIGHUP, &fwd, &old_hup);
    char byte = 1;
    int err = 0;
    ssize_t got = -1;
    if (write(go, &byte, 1) == 1) {
        do
            got = read(exec_err, &err, sizeof(err));
        while (got < 0 && errno == EINTR);
    }
    close(go);
    close(exec_err);
    struct progress *progress = progress_start(collect, t0);
    if (iv) {
        stat_interval_run(iv, pid, o->interval_ms, t0, NULL, 0);
        stat_interval_close(&iv);
    }
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    stat_collect_finish(collect);
    progress_stop(&progress);
    struct rusage usage;
    while (wait4(pid, status, 0, &usage) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    uint64_t dropped = stat_collect_dropped(collect);
    uint64_t frames, commands;
    stat_collect_progress(collect, &frames, &commands);
    trace_note(trace, "records_dropped", dropped);
    trace_note(trace, "frames", frames);
    trace_note(trace, "opencl_commands", commands);
    uint64_t unreported = stat_collect_cl_unreported(collect);
    trace_note(trace, "opencl_unreported", unreported);
    /* Where CMD's exec failed, its child's 127 is not what perfq exits with (126 for a CMD
     * found but not executable: cli_exec_failed_status); until 2026-11-30 the trace said 127
     * there while perfq exited 126. */
    int exit_status = got == (ssize_t)sizeof(err) ? cli_exec_failed_status(err)
                      : WIFEXITED(*status)        ? WEXITSTATUS(*status)
                                                  : 128 + WTERMSIG(*status);
    trace_note(trace, "exit_status", (uint64_t)exit_status);
    stat_collect_close(&collect);   /* its timeline adds its notes */
    if (got == (ssize_t)sizeof(err)) {
        trace_close(&trace);
        *status = -1 - err;   /* cmd_record: exit 126 or 127 */
        return fprintf(stderr, "perfq record: cannot execute '%s': %s\n", o->cmd[0],
                       strerror(err)), -1;
    }
    if (trace_close(&trace) != 0)
        return 1;
    fprintf(stderr, "perfq record: %" PRIu64 " frames, %" PRIu64 " OpenCL commands%s, %" PRIu64
            " records dropped; trace written to '%s'\n", frames, commands,
            unreported ? " (more enqueued, never read: see opencl_unreported)" : "", dropped,
            o->output);
    return 0;
}

int cmd_record(int argc, char **argv)
{
    struct record_options o = {0};
    if (parse_args(argc, argv, &o))
        return CLI_EXIT_USAGE;
    perfq_t *pq = NULL;
    perfq_status_t st = perfq_open(&pq);
    if (st != PERFQ_OK) {
        fprintf(stderr, "perfq: cannot open the library: %s\n", perfq_status_string(st));
        return CLI_EXIT_USAGE;
    }
    /* Opened, not emptied: a usage error found in record() leaves FILE as it was (output.c). */
    struct cli_output_file file;
    if (cli_output_file_open(&file, o.output) != 0) {
        fprintf(stderr, "perfq record: cannot write '%s': %s\n", o.output, strerror(errno));
        perfq_close(&pq);
        return CLI_EXIT_USAGE;
    }
    cli_output_begin(file.f);
    int status = 0;
    int r = record(pq, &o, &file, &status);
    char name[4200];
    snprintf(name, sizeof(name), "'%s'", o.output);
    int written = cli_output_file_end(&file, name) == 0 && r != 1;
    perfq_close(&pq);
    if (r < 0)
        return status < 0 ? cli_exec_failed_status(-1 - status) : CLI_EXIT_USAGE;
    if (!written)
        return CLI_EXIT_OUTPUT;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
