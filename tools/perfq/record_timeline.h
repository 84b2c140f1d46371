/* perfq record: turns the layers' records (src/core/stat_channel.h, timeline mode) into trace
 * events and tracks (docs/perfq-record.md): one track per thread of CMD, one "process" per
 * device with one track per GL context or OpenCL queue on it, counter tracks. */
#ifndef PERFQ_TOOLS_RECORD_TIMELINE_H
#define PERFQ_TOOLS_RECORD_TIMELINE_H

#include "core/stat_channel.h"
#include "trace_writer.h"

struct timeline;

struct timeline *timeline_open(struct trace *t);
/* Called on the collector's thread only. */
void timeline_take(struct timeline *tl, const struct perfq_stat_record *r);
/* Called on the collector's thread after each drain of the ring: places the OpenCL commands
 * that came in it, each queue's with its latest clock estimate (record_timeline.c). */
void timeline_round_end(struct timeline *tl);
/* Called on the collector's thread after a drain of the ring, now and then (now:
 * CLOCK_MONOTONIC ns): a context or queue whose hold keeps events back past the horizon is
 * checked for its process; one found gone (reaped, or a zombie) holds nothing from the next
 * call on, once the drain between has read what it sent before it ended. The trace's hold is
 * computed again (records change it only when a context's or queue's own hold changes). */
void timeline_tick(struct timeline *tl, uint64_t now);
/* Names the process pid (its command line, read from /proc) if not named yet. Thread safe. */
void timeline_name_process(struct timeline *tl, uint32_t pid);
/* Names CMD's process pid from its argv (NULL-terminated) whatever becomes of it (exec'd or
 * not, gone or not), its comm the base name of argv[0]; before any record can name it. */
void timeline_name_command(struct timeline *tl, uint32_t pid, char *const *argv);
/* Adds the timeline's figures to the trace's otherData. */
void timeline_close(struct timeline **tl);

#endif
