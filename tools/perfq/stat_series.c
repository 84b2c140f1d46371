/* Bounded series with percentiles: see stat_series.h. */
#include "stat_series.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t next_random(struct series *s)
{
    /* xorshift64*: only to pick reservoir slots uniformly, never a measured value. */
    if (!s->rng)
        s->rng = 0x9E3779B97F4A7C15ull;
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return s->rng * 2685821657736338717ull;
}

/* Keeps v among the values percentiles come from; count already counts it. */
static void keep(struct series *s, uint64_t v)
{
    if (s->no_values)
        return;
    if (s->n_kept < SERIES_KEEP) {
        if (s->n_kept == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 64;
            uint64_t *k = realloc(s->kept, cap * sizeof(*k));
            if (!k)
                return;   /* percentiles then come from the values kept so far */
            s->kept = k;
            s->cap = cap;
        }
        s->kept[s->n_kept++] = v;
        return;
    }
    uint64_t j = next_random(s) % s->count;
    if (j < SERIES_KEEP)
        s->kept[j] = v;
}

void series_add(struct series *s, uint64_t v)
{
    series_add_span(s, v, 1);
}

void series_add_span(struct series *s, uint64_t total, uint64_t n)
{
    if (n == 0)
        return;
    uint64_t v = total / n + (total % n >= n - n / 2 ? 1 : 0);   /* nearest, halves up */
    if (s->count == 0 || v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    s->sum += total;
    s->sorted = 0;
    for (uint64_t k = 0; k < n; k++) {
        s->count++;
        keep(s, v);
    }
}

uint64_t series_percentile(struct series *s, double p)
{
    if (!s->n_kept)
        return 0;
    if (!s->sorted) {
        qsort(s->kept, s->n_kept, sizeof(*s->kept), cmp_u64);
        s->sorted = 1;
    }
    /* Nearest rank: the smallest value with at least p% of the values at or below it. */
    double rank = p / 100.0 * (double)s->n_kept;
    size_t r = (size_t)rank;
    if ((double)r < rank)
        r++;
    if (r < 1)
        r = 1;
    if (r > s->n_kept)
        r = s->n_kept;
    return s->kept[r - 1];
}

double series_mean(const struct series *s)
{
    return s->count ? (double)s->sum / (double)s->count : 0.0;
}

int series_sampled(const struct series *s)
{
    return s->count > SERIES_KEEP;
}

void series_free(struct series *s)
{
    free(s->kept);
    s->kept = NULL;
    s->n_kept = s->cap = 0;
}
