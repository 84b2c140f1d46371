/* perfq command line: shared declarations of the subcommands. */
#ifndef PERFQ_TOOLS_CLI_H
#define PERFQ_TOOLS_CLI_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "perfq/perfq.h"

/* Exit status for usage errors, unknown counters and commands that cannot run. */
#define CLI_EXIT_USAGE 2
/* Exit status when perfq's own output could not be written (a full disk, a closed pipe...). */
#define CLI_EXIT_OUTPUT 1
/* Exit status when CMD cannot be executed (found, but not executable...) or is not found: what
 * env(1), nice(1), timeout(1) and the shell give, so that scripts that wrap a command in perfq
 * read the same status as without it. */
#define CLI_EXIT_CANNOT_RUN 126
#define CLI_EXIT_NOT_FOUND 127

/* CLOCK_MONOTONIC in ns: the clock of every time perfq measures and of its waits. */
static inline uint64_t cli_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Process pid's state letter from /proc/PID/stat (R, S, D, Z for a zombie, X dead, ...); 0 where
 * /proc has no such process or it cannot be read (proc_state.c). */
char cli_process_state(uint32_t pid);

/* The exit status for CMD's exec failing with err (an errno). */
static inline int cli_exec_failed_status(int err)
{
    return err == ENOENT ? CLI_EXIT_NOT_FOUND : CLI_EXIT_CANNOT_RUN;
}

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_memory(int argc, char **argv);

/* Prepends perfq's layers to LD_PRELOAD and OPENCL_LAYERS in this process's environment, for
 * a command about to be executed. Returns 0, or -1 after printing why when a layer this build
 * has cannot be injected (not found, or its path holds a separator of the variable): the
 * caller then refuses to run the command (CLI_EXIT_USAGE) rather than run it without layers. */
int layers_inject(int verbose);

/* Notes in PERFQ_INJECTED (this process's environment, which CMD inherits) that var was set to
 * value (prepend 0) or that value was put first in the list var holds (prepend 1), so that a
 * child of CMD started with a cleaned environment gets it back (core/injected_env.h). A value
 * that cannot be noted (it holds ';', or PERFQ_INJECTED would pass PERFQ_INJECTED_MAX) is left
 * out of it: such a child then lacks it. */
void cli_note_injected(const char *var, const char *value, int prepend);

/* The linker cache's (/etc/ld.so.cache) entry for soname: 1 with its path in out when it has
 * exactly one for this ABI, 0 when it has none, -1 when it cannot tell (layers.c). */
int cli_linker_cache(const char *soname, char *out, size_t size);

/* soname in LD_LIBRARY_PATH's folders, as the dynamic loader would find it, without loading it:
 * 1 with its path in out, 0 when none of them has it (or the variable is unset), -1 when only
 * the dynamic loader can tell (layers.c). */
int cli_library_path_find(const char *soname, char *out, size_t size);

/* Resolves a counter name for the command line: prints "unknown counter" with a suggestion,
 * or "not available here" with the reason, and returns nonzero on failure. */
int cli_find_counter(perfq_t *pq, const char *name, perfq_counter_id_t *id);

/* Can this counter count another process? Tried on perfq's own pid, which always exists. */
int cli_counts_other_process(perfq_t *pq, perfq_counter_id_t id);

/* Does the counter count (events, or a duration that adds up: INTEL EVENT or DURATION_RAW, not
 * a flag), so that its value over a time is a rate? A level (rusage/max-rss, a gauge: RAW), a
 * mean, a throughput or a timestamp is not: a rate of it means nothing. */
int cli_counter_is_counting(const perfq_counter_info_t *ci);

/* Forks a child that waits for a byte on *go before it execs cmd (execvp); an exec failure
 * comes back as its errno on *exec_err (EOF when the exec succeeded). Returns its pid, or -1. */
pid_t cli_spawn_waiting(char **cmd, int *go, int *exec_err);
/* Starts cmd at once (posix_spawnp: no copy of perfq's memory, no wait for a go byte) with
 * the signal mask *mask and perfq's signal dispositions. Returns 0 with *pid once cmd has
 * exec'ed, or the exec's error (no child is left). ENOEXEC: a file that execvp would give to
 * /bin/sh (no "#!"): cli_spawn_waiting runs it as before. */
int cli_spawn_now(char **cmd, const sigset_t *mask, pid_t *pid);

/* JSON output helpers. Bytes that are not UTF-8 are written as U+FFFD (json.c). */
void json_string(FILE *out, const char *s);

/* Output streams: call cli_output_begin() before writing to f, cli_output_end() after the
 * last write. cli_output_end flushes f (and closes it unless it is stdout or stderr); on any
 * write error, now or earlier, it prints "perfq: cannot write NAME: REASON" to stderr and
 * returns -1. */
void cli_output_begin(FILE *f);
int cli_output_end(FILE *f, const char *name);

/* -o FILE, so that a run that ends without a report (a usage error found once FILE was open,
 * CMD that could not be started) leaves FILE as it was: opened without emptying it (created
 * if missing), emptied by cli_output_file_start just before the first write, and at
 * cli_output_file_end, if never started, closed untouched (removed if this run created it).
 * Without a path, f is stderr, started from the beginning. */
struct cli_output_file {
    FILE *f;
    const char *path;
    int created;    /* the open created FILE */
    int started;    /* cli_output_file_start emptied it: the report is being written */
    int err;        /* emptying it failed (errno): reported at the end */
};
int cli_output_file_open(struct cli_output_file *o, const char *path);  /* -1 with errno */
void cli_output_file_start(struct cli_output_file *o);                  /* once; then no-op */
/* Started: cli_output_end's check (-1 after saying why). Not started: 0. */
int cli_output_file_end(struct cli_output_file *o, const char *name);

#endif
