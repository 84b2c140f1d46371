/* The progress line of perfq stat and perfq record: on stderr when it is a terminal, as
 * long-running tools do; never otherwise (a file or a pipe gets only the report). */
#ifndef PERFQ_TOOLS_PROGRESS_H
#define PERFQ_TOOLS_PROGRESS_H

#include <stdint.h>

#include "stat_collect.h"

struct progress;

/* NULL (and nothing is ever printed) unless stderr is a terminal. Every PROGRESS_PERIOD_MS it
 * rewrites "perfq: ELAPSED s, N frames, M OpenCL commands" (the counts only with a collector)
 * in place; t0 is CLOCK_MONOTONIC ns at the command's start. */
#define PROGRESS_PERIOD_MS 500
struct progress *progress_start(struct stat_collect *c, uint64_t t0_ns);
/* Writes the line once more with the final counts, then erases it, so that what follows on
 * stderr (the report) starts on a clean line. */
void progress_stop(struct progress **p);

#endif
