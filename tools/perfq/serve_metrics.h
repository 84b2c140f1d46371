/* perfq serve: the Prometheus text exposition (format 0.0.4) of the continuous samplers'
 * values (docs/perfq-serve.md). Formatting is done by the sampling thread, once per sample,
 * never per request: a scrape only copies the latest text. */
#ifndef PERFQ_TOOLS_SERVE_METRICS_H
#define PERFQ_TOOLS_SERVE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "perfq/perfq.h"

/* A growing text buffer. */
struct text {
    char *s;
    size_t len, cap;
    int failed;                 /* out of memory: the text is incomplete */
};

void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void text_free(struct text *t);

/* One exported series: the counter and the labels that tell it apart. */
struct serve_series {
    perfq_counter_info_t info;
    const char *group;          /* its group's name */
    const char *device;         /* "host", or "gpuN" for a device group "PROVIDER-gpuN" */
    int pid;                    /* the sampled process for process-scope counters; 0: none */
    int counting;               /* exposed as a counter (cumulative); else a gauge */
};

/* The device label of a group: "host" for process and system scope, else the part of the
 * group's name after its last '-' ("nvml-gpu0" -> "gpu0"), or the whole name. */
const char *serve_device_label(const perfq_group_info_t *g);

/* Appends the exposition of n series with their values (values[i] is series[i]'s) and the
 * exporter's own metrics: samples taken, sample errors, time of the last sample. */
void serve_format(struct text *t, const struct serve_series *series, const perfq_value_t *values,
                  size_t n, uint64_t samples, uint64_t errors, double last_sample_unix_s);

#endif
