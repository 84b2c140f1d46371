/* perfq stat --layers: the CLI's end of the layers' channel (src/core/stat_channel.h): receives
 * frame and OpenCL command records while CMD runs and reports them at the end. */
#ifndef PERFQ_TOOLS_STAT_COLLECT_H
#define PERFQ_TOOLS_STAT_COLLECT_H

#include <stdint.h>
#include <stdio.h>

#include "trace_writer.h"

struct stat_collect;

/* Makes the channel and exports PERFQ_STAT_CHANNEL into this process's environment (for the
 * command about to be started). With a trace (perfq record) the layers are asked for a timeline
 * and its events go to the trace. Returns NULL after printing why. */
struct stat_collect *stat_collect_open(struct trace *trace);
/* perfq stat --per-draw: asks the GL layer for every draw call (before stat_collect_start). */
void stat_collect_set_per_draw(struct stat_collect *c);
/* --no-stats: the GL layer measures no pipeline statistics (before CMD starts). */
void stat_collect_set_no_stats(struct stat_collect *c);
/* --stats-span: the layers' statistics span in ns (0: a span per frame), before
 * stat_collect_start; the report states it. */
void stat_collect_set_stats_span(struct stat_collect *c, uint64_t ns);
/* After CMD's start: starts draining the ring (every 20 ms) and answering the channel's socket
 * (src/core/stat_channel_socket.h) on a thread. */
int stat_collect_start(struct stat_collect *c);
/* After CMD exited: reads what is left without waiting (a slot reserved by a writer that was
 * killed before it published is given up, counted as dropped), stops. */
void stat_collect_finish(struct stat_collect *c);
void stat_collect_print_table(struct stat_collect *c, FILE *out);
/* `"frames": {...}, "opencl": {...}, "channel": {...}` members, without the braces around. */
void stat_collect_print_json(struct stat_collect *c, FILE *out);
void stat_collect_print_csv(struct stat_collect *c, FILE *out);

/* perfq stat --csv's header: every row has these 14 fields (docs/perfq-stat.md). GL memory is
 * in KiB as GL_NV_query_resource counts it (each object rounded up to whole KiB), in kib, not
 * bytes; a memory tag's share group (JSON's index) and id have their own fields. */
#define STAT_CSV_HEADER \
    "section,name,count,timed,total,mean,p50,p95,p99,max,bytes,kib,share_group,id,min\n"
/* The four fields after bytes, empty: the rows that are neither GL memory nor a series. */
#define STAT_CSV_NO_MEMORY ",,,,"
void stat_collect_close(struct stat_collect **c);
/* Frames and OpenCL commands received so far (any thread: the progress line). */
void stat_collect_progress(struct stat_collect *c, uint64_t *frames, uint64_t *commands);
uint64_t stat_collect_dropped(const struct stat_collect *c);
/* OpenCL commands a process's layer counted that never reached perfq (stat_collect.c). */
uint64_t stat_collect_cl_unreported(const struct stat_collect *c);
/* The layers attached so far (processes of CMD that loaded a GL or OpenCL layer). */
uint64_t stat_collect_attached(const struct stat_collect *c);
/* perfq record's timeline (NULL for perfq stat). */
struct timeline *stat_collect_timeline(struct stat_collect *c);
/* CL_COMMAND_* as a name without its prefix ("NDRANGE_KERNEL"), or NULL when unknown. */
const char *stat_command_type_name(uint64_t type);

#endif
