/* The progress line of perfq stat and perfq record: on stderr when it is a terminal, as
 * long-running tools do; never otherwise (a file or a pipe gets only the report). */
#ifndef PERFQ_TOOLS_PROGRESS_H
#define PERFQ_TOOLS_PROGRESS_H

#include <stdint.h>

#include "stat_collect.h"

struct progress;

/* NULL (and nothing is ever printed) unless stderr is a terminal, and not a dumb one
 * (TERM=dumb). Every PROGRESS_PERIOD_MS it rewrites "perfq: ELAPSED s, N frames, M OpenCL
 * commands" (the counts only with a collector); t0 is CLOCK_MONOTONIC ns at the command's
 * start. Where the terminal gives a size of at least PROGRESS_MIN_ROWS by PROGRESS_MIN_COLS,
 * the line is on its bottom row, which is taken out of the scrolling region while CMD runs;
 * elsewhere it is rewritten in place ("\r...\033[K") on the cursor's row. */
#define PROGRESS_PERIOD_MS 500
#define PROGRESS_MIN_ROWS 3
#define PROGRESS_MIN_COLS 20
struct progress *progress_start(struct stat_collect *c, uint64_t t0_ns);
/* Writes the line once more with the final counts, then erases it (and gives the bottom row
 * back to the scrolling region), so that what follows on stderr (the report) starts on a
 * clean line, after CMD's output. */
void progress_stop(struct progress **p);

#endif
