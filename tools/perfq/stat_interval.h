/* perfq stat -I: interval printing over the continuous sampler (stat_interval.c). */
#ifndef PERFQ_TOOLS_STAT_INTERVAL_H
#define PERFQ_TOOLS_STAT_INTERVAL_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

struct stat_interval;

/* Chooses the n counters (infos[i] describes ids[i]; kept by pointer) and starts counting for
 * target, before the command's exec. */
perfq_status_t stat_interval_open(perfq_t *pq, const perfq_counter_id_t *ids,
                                  const perfq_counter_info_t *infos, size_t n,
                                  const perfq_target_t *target, struct stat_interval **out);

/* Instead of printing, hands each counter of each interval to fn (perfq record's counter
 * tracks): begin and end of the interval in CLOCK_MONOTONIC ns. */
typedef void (*stat_interval_sink_fn)(void *arg, const perfq_counter_info_t *info,
                                      const perfq_value_t *value, uint64_t begin_ns,
                                      uint64_t end_ns);
void stat_interval_set_sink(struct stat_interval *iv, stat_interval_sink_fn fn, void *arg);

/* Prints an interval every interval_ms from t0 (CLOCK_MONOTONIC ns) until pid exits (it is
 * not reaped), then the last partial interval, and stops counting. */
perfq_status_t stat_interval_run(struct stat_interval *iv, pid_t pid, unsigned interval_ms,
                                 uint64_t t0, FILE *out, int json);

/* The intervals printed, and the totals: the sum of the intervals (gauges: the last value),
 * in ids order. */
unsigned stat_interval_count(const struct stat_interval *iv);
void stat_interval_totals(const struct stat_interval *iv, perfq_value_t *values);

void stat_interval_close(struct stat_interval **iv);

#endif
