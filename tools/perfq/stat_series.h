/* A series of nanosecond (or other) values with exact count, sum, min and max, and percentiles:
 * exact up to SERIES_KEEP values, past that from a uniform reservoir sample of SERIES_KEEP
 * (Vitter's algorithm R), so memory stays bounded on long runs (docs/perfq-stat.md). */
#ifndef PERFQ_TOOLS_STAT_SERIES_H
#define PERFQ_TOOLS_STAT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define SERIES_KEEP (1u << 20)

struct series {
    uint64_t count, sum, min, max;
    uint64_t *kept;
    size_t n_kept, cap;
    uint64_t rng;
    int sorted;
    int no_values;   /* count, sum, min and max only: no percentiles asked (perfq record) */
};

void series_add(struct series *s, uint64_t v);
/* A total over n values whose own values are not known (a statistics span of n frames): n
 * values of total / n (rounded to the nearest) for min, max and percentiles, while count grows
 * by n and sum by the exact total, so the mean stays exact (docs/perfq-stat.md, "Statistics
 * spans"). n = 1 is series_add. */
void series_add_span(struct series *s, uint64_t total, uint64_t n);
/* Nearest-rank percentile (0 < p <= 100) of the kept values; 0 for an empty series. */
uint64_t series_percentile(struct series *s, double p);
double series_mean(const struct series *s);
/* 1 when percentiles come from a sample (count > SERIES_KEEP). */
int series_sampled(const struct series *s);
void series_free(struct series *s);

#endif
