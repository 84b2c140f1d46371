/*
 * The Prometheus text exposition format, version 0.0.4 (prometheus.io/docs/instrumenting/
 * exposition_formats): "# HELP" and "# TYPE" once per metric family, then one line per series,
 * `name{label="value",...} value`; label values escape backslash, double quote and newline.
 * Two families carry every counter, told apart by labels (as dcgm-exporter and node_exporter
 * label by device): perfq_counted_total (counting counters, cumulative since perfq serve
 * started: a Prometheus counter) and perfq_level (levels). Nanosecond counters are exported in
 * seconds (Prometheus' base unit), with unit="seconds".
 */
#include "serve_metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_printf(struct text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int n = vsnprintf(t->s ? t->s + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 16384;
        while (cap - t->len <= (size_t)n)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

void text_free(struct text *t)
{
    free(t->s);
    memset(t, 0, sizeof(*t));
}

const char *serve_device_label(const perfq_group_info_t *g)
{
    if (g->scope != PERFQ_SCOPE_DEVICE)
        return "host";
    const char *dash = strrchr(g->name, '-');
    return dash && dash[1] ? dash + 1 : g->name;
}

static void label_value(struct text *t, const char *v)
{
    text_printf(t, "\"");
    for (const char *p = v; *p; p++) {
        if (*p == '\\')
            text_printf(t, "\\\\");
        else if (*p == '"')
            text_printf(t, "\\\"");
        else if (*p == '\n')
            text_printf(t, "\\n");
        else
            text_printf(t, "%c", *p);
    }
    text_printf(t, "\"");
}

static const char *unit_label(const perfq_counter_info_t *ci)
{
    return ci->unit == PERFQ_UNIT_NANOSECONDS ? "seconds" : perfq_unit_name(ci->unit);
}

static void series_line(struct text *t, const char *family, const struct serve_series *s,
                        const perfq_value_t *v)
{
    double value = perfq_value_as_double(v, s->info.storage);
    if (s->info.unit == PERFQ_UNIT_NANOSECONDS)
        value /= 1e9;
    text_printf(t, "%s{device=", family);
    label_value(t, s->device);
    text_printf(t, ",group=");
    label_value(t, s->group);
    text_printf(t, ",counter=");
    label_value(t, s->info.name);
    text_printf(t, ",unit=");
    label_value(t, unit_label(&s->info));
    if (s->pid)
        text_printf(t, ",pid=\"%d\"", s->pid);
    text_printf(t, "} %.17g\n", value);
}

/* Is series s served in this scrape? A counter the sampler marks not counted is left out, but
 * for one: a -p process's counting counter that was never enabled nor ran (time_enabled and
 * time_running 0: a task-bound perf event's times advance only while the task runs) counted
 * nothing because the process has not run since perfq began counting it. Its value, 0, is
 * what happened, and a series that appears only once a daemon wakes breaks rate() and
 * absent() (perf stat -p prints <not counted> there). A counter multiplexed out (enabled,
 * never running) stays out. */
static int served(const struct serve_series *s, const perfq_value_t *v)
{
    if (!(v->flags & PERFQ_VALUE_NOT_COUNTED))
        return 1;
    return s->pid && s->counting && v->time_enabled == 0 && v->time_running == 0;
}

void serve_format(struct text *t, const struct serve_series *series, const perfq_value_t *values,
                  size_t n, uint64_t samples, uint64_t errors, double last_sample_unix_s)
{
    static const struct {
        const char *name, *type, *help;
        int counting;
    } families[] = {
        {"perfq_counted_total", "counter",
         "Counting counters of perfq's continuous sampler since perfq serve started, by device, "
         "group and counter (perfq list describes each; nanoseconds are given in seconds).", 1},
        {"perfq_level", "gauge",
         "Levels read by perfq's continuous sampler, by device, group and counter (perfq list "
         "describes each).", 0},
    };
    for (size_t f = 0; f < 2; f++) {
        size_t count = 0;
        for (size_t i = 0; i < n; i++)
            count += series[i].counting == families[f].counting &&
                     served(&series[i], &values[i]);
        if (!count)
            continue;
        text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", families[f].name, families[f].help,
                    families[f].name, families[f].type);
        for (size_t i = 0; i < n; i++)
            if (series[i].counting == families[f].counting && served(&series[i], &values[i])) {
                perfq_value_t none = {0};   /* not run yet: 0, whatever was left in v */
                int ran = !(values[i].flags & PERFQ_VALUE_NOT_COUNTED);
                series_line(t, families[f].name, &series[i], ran ? &values[i] : &none);
            }
    }
    text_printf(t, "# HELP perfq_samples_total Samples perfq serve has taken from its samplers.\n"
                   "# TYPE perfq_samples_total counter\nperfq_samples_total %llu\n"
                   "# HELP perfq_sample_errors_total Samples that failed (the previous values "
                   "stay served).\n# TYPE perfq_sample_errors_total counter\n"
                   "perfq_sample_errors_total %llu\n"
                   "# HELP perfq_last_sample_timestamp_seconds Unix time of the sample served.\n"
                   "# TYPE perfq_last_sample_timestamp_seconds gauge\n"
                   "perfq_last_sample_timestamp_seconds %.3f\n",
                (unsigned long long)samples, (unsigned long long)errors, last_sample_unix_s);
}
