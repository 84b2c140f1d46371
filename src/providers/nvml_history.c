/* The sampler's bounded sample history (nvml_history.h): a ring, searched by time. */
#include <stdlib.h>

#include "providers/nvml_history.h"

int perfq__nvml_history_init(struct nvml_history *h, unsigned cap)
{
    h->s = cap ? calloc(cap, sizeof(*h->s)) : NULL;
    h->cap = h->s ? cap : 0;
    h->head = h->count = 0;
    return h->s ? 0 : -1;
}

void perfq__nvml_history_free(struct nvml_history *h)
{
    free(h->s);
    h->s = NULL;
    h->cap = h->head = h->count = 0;
}

/* The i-th sample, oldest first. */
static const struct nvml_hist_sample *at(const struct nvml_history *h, unsigned i)
{
    return &h->s[(h->head + h->cap - h->count + i) % h->cap];
}

uint64_t perfq__nvml_history_newest(const struct nvml_history *h)
{
    return h->count ? at(h, h->count - 1)->t : 0;
}

void perfq__nvml_history_push(struct nvml_history *h, const struct nvml_hist_sample *s)
{
    if (!h->cap)
        return;
    struct nvml_hist_sample x = *s;
    uint64_t newest = perfq__nvml_history_newest(h);
    if (h->count && x.t < newest)
        x.t = newest;
    h->s[h->head] = x;
    h->head = (h->head + 1) % h->cap;
    if (h->count < h->cap)
        h->count++;
}

/* The index of the last sample with t <= x, or -1 when every sample is after x. */
static long last_at_or_before(const struct nvml_history *h, uint64_t x)
{
    long lo = 0, hi = (long)h->count - 1, found = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (at(h, (unsigned)mid)->t <= x) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

/* The value at x on the segment from p to q (p->t <= x <= q->t). */
static double value_at(const struct nvml_hist_sample *p, const struct nvml_hist_sample *q, int c,
                       uint64_t x)
{
    if (q->t == p->t)
        return q->v[c];
    return p->v[c] + (q->v[c] - p->v[c]) * (double)(x - p->t) / (double)(q->t - p->t);
}

int perfq__nvml_history_interval(const struct nvml_history *h, int c, uint64_t a, uint64_t b,
                                 double *integral, double *mean, unsigned *samples)
{
    if (c < 0 || c >= HIST_COUNT || b < a)
        return HIST_LOST;
    if (!h->count || perfq__nvml_history_newest(h) < b)
        return HIST_PENDING;
    long first = last_at_or_before(h, a);
    if (first < 0)
        return HIST_LOST;   /* older than anything kept (or before the sampler started) */
    /* The first sample at or after b. */
    long last = last_at_or_before(h, b);
    if (at(h, (unsigned)last)->t < b)
        last++;
    double sum = 0;
    unsigned inside = 0;
    for (long i = first; i <= last; i++) {
        const struct nvml_hist_sample *q = at(h, (unsigned)i);
        if (!(q->ok & (1u << c)))
            return HIST_LOST;   /* NVML gave no reading here: no guess */
        inside += q->t >= a && q->t <= b;
        if (i == first)
            continue;
        const struct nvml_hist_sample *p = at(h, (unsigned)(i - 1));
        /* The part of segment [p->t, q->t] inside [a, b]: a trapezoid. */
        uint64_t lo = p->t > a ? p->t : a, hi = q->t < b ? q->t : b;
        if (hi <= lo)
            continue;
        sum += (double)(hi - lo) / 1e9 * (value_at(p, q, c, lo) + value_at(p, q, c, hi)) / 2;
    }
    if (integral)
        *integral = sum;
    if (mean) {
        if (b > a) {
            *mean = sum / ((double)(b - a) / 1e9);
        } else {
            const struct nvml_hist_sample *p = at(h, (unsigned)first);
            const struct nvml_hist_sample *q = at(h, (unsigned)last);
            *mean = value_at(p, q, c, a);
        }
    }
    if (samples)
        *samples = inside;
    return HIST_OK;
}
