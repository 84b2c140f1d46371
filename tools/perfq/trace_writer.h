/*
 * A streaming writer of the Chrome / Perfetto JSON trace format (Trace Event Format: "X"
 * complete events, "C" counter events, "M" metadata events), for `perfq record`
 * (docs/perfq-record.md).
 *
 * Memory is bounded: events wait in a reorder window of at most TRACE_WINDOW events (a heap by
 * timestamp) and leave it, in timestamp order, once their time is TRACE_HORIZON_NS in the past
 * (trace_tick) or when the window is full; names are interned (at most TRACE_MAX_NAMES - 1,
 * more become "(other)", counted in otherData's events_named_other). The file is flushed at most every 100 ms while events flow, so a
 * reader sees it grow; trace_close writes what is left and the closing brackets, making the file
 * valid JSON whatever happened to the traced program. Thread safe (one lock).
 */
#ifndef PERFQ_TOOLS_TRACE_WRITER_H
#define PERFQ_TOOLS_TRACE_WRITER_H

#include <stdint.h>
#include <stdio.h>

#define TRACE_WINDOW 16384
#define TRACE_HORIZON_NS 2000000000ull
#define TRACE_HOLD_MAX_NS 30000000000ull
#define TRACE_MAX_NAMES 65536
#define TRACE_MAX_ARGS 4

struct trace;

struct trace_arg {
    const char *key;            /* a static string */
    uint64_t value;
};

/* Writes the header to f. t0: CLOCK_MONOTONIC ns that becomes timestamp 0. */
struct trace *trace_open(FILE *f, uint64_t t0_ns);
/* "M" process_name / thread_name / *_sort_index, written at once. */
void trace_process_name(struct trace *t, uint32_t pid, const char *name, int sort_index);
void trace_thread_name(struct trace *t, uint32_t pid, uint32_t tid, const char *name,
                       int sort_index);
/* An "X" event from begin to end (CLOCK_MONOTONIC ns). cat and arg keys are static strings. */
void trace_complete(struct trace *t, uint32_t pid, uint32_t tid, uint64_t begin_ns,
                    uint64_t end_ns, const char *cat, const char *name,
                    const struct trace_arg *args, int nargs);
/* A "C" event: counter track `name` of process pid takes `value` at time ns. */
void trace_counter(struct trace *t, uint32_t pid, uint64_t ns, const char *name, double value);
/* The same with more series beside "value" (static keys, integer values). */
void trace_counter_args(struct trace *t, uint32_t pid, uint64_t ns, const char *name,
                        double value, const struct trace_arg *args, int nargs);
/* Lets events older than the horizon out (call regularly: now is CLOCK_MONOTONIC ns). */
void trace_tick(struct trace *t, uint64_t now_ns);
/* Holds back events from hold_ns on (CLOCK_MONOTONIC ns; 0: none): an interval known to have
 * begun then (a frame in progress, an OpenCL command whose times have not come) will be added
 * with that start, later than the horizon would wait. A hold counts for at most
 * TRACE_HOLD_MAX_NS: a frame that never ends (its context or process gone) holds nothing after
 * that. */
void trace_hold(struct trace *t, uint64_t hold_ns);
/* A key of the closing "otherData" object (static key; at most 16). */
void trace_note(struct trace *t, const char *key, uint64_t value);
/* Writes every waiting event and the end of the file and flushes f (the caller closes it).
 * 0, or -1 when a write failed (errno set). */
int trace_close(struct trace **t);

#endif
