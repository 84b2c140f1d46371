/* perfq stat's options: -e/--events (joined), -I MS, --json, --csv, -o FILE, --device,
 * --no-device, --layers (the default, accepted), --no-layers, --per-draw, --no-stats,
 * --stats-span MS, -- CMD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_args.h"

static int append_events(struct stat_options *o, const char *list)
{
    size_t old = o->events ? strlen(o->events) : 0;
    char *n = realloc(o->events, old + strlen(list) + 2);
    if (!n)
        return -1;
    if (old)
        n[old++] = ',';
    memcpy(n + old, list, strlen(list) + 1);
    o->events = n;
    return 0;
}

int stat_parse_span_ms(const char *v, unsigned long long *ns)
{
    char *end = NULL;
    if (!v || !*v || *v == '-' || *v == '+' || *v == ' ')
        return -1;
    double ms = strtod(v, &end);
    if (*end || !isfinite(ms) || ms < 0 || ms > STAT_STATS_SPAN_MAX_MS)
        return -1;
    *ns = (unsigned long long)(ms * 1e6 + 0.5);
    return 0;
}

int stat_parse_args(int argc, char **argv, struct stat_options *o)
{
    o->stats_span_ns = STAT_STATS_SPAN_DEFAULT_NS;
    int i = 1, layers_on = 0, layers_off = 0, device_on = 0, device_off = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "-e") == 0 || strcmp(a, "--events") == 0) {
            if (++i >= argc || append_events(o, argv[i]))
                return fprintf(stderr, "perfq stat: %s needs a list of counters\n", a), -1;
        } else if (strncmp(a, "--events=", 9) == 0) {
            if (append_events(o, a + 9))
                return -1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return fprintf(stderr, "perfq stat: %s needs a file name\n", a), -1;
            o->output = argv[i];
        } else if (strncmp(a, "--output=", 9) == 0) {   /* as --events= */
            if (!a[9])
                return fprintf(stderr, "perfq stat: --output needs a file name\n"), -1;
            o->output = a + 9;
        } else if (strcmp(a, "-I") == 0 || strcmp(a, "--interval-print") == 0 ||
                   strcmp(a, "--interval") == 0 ||   /* record's and serve's name for it */
                   (strncmp(a, "-I", 2) == 0 && a[2])) {
            const char *v = a[2] && a[1] == 'I' ? a + 2 : ++i < argc ? argv[i] : NULL;
            char *end = NULL;
            unsigned long ms = v ? strtoul(v, &end, 10) : 0;
            if (!v || !*v || *end || v[0] == '-' || ms < 10 || ms > 3600000)
                return fprintf(stderr, "perfq stat: %s needs a whole number of milliseconds "
                               "from 10 to 3600000\n", a[2] && a[1] == 'I' ? "-I" : a), -1;
            o->interval_ms = (unsigned)ms;
        } else if (strcmp(a, "--device") == 0) {
            device_on = 1;
        } else if (strcmp(a, "--no-device") == 0) {
            device_off = 1;
        } else if (strcmp(a, "--layers") == 0) {
            layers_on = 1;   /* the default since issue 12's decision: kept for scripts */
        } else if (strcmp(a, "--no-layers") == 0) {
            layers_off = 1;
        } else if (strcmp(a, "--per-draw") == 0) {
            o->per_draw = 1;
        } else if (strcmp(a, "--no-stats") == 0) {
            o->no_stats = 1;
        } else if (strcmp(a, "--stats-span") == 0 || strncmp(a, "--stats-span=", 13) == 0) {
            const char *v = a[12] == '=' ? a + 13 : ++i < argc ? argv[i] : NULL;
            if (stat_parse_span_ms(v, &o->stats_span_ns) != 0)
                return fprintf(stderr, "perfq stat: --stats-span needs a number of milliseconds "
                               "from 0 to %.0f\n", STAT_STATS_SPAN_MAX_MS), -1;
        } else {
            return fprintf(stderr, "perfq stat: unknown option '%s'\n", a), -1;
        }
    }
    if (layers_on && layers_off)
        return fprintf(stderr, "perfq stat: --layers and --no-layers exclude each other\n"), -1;
    if (o->per_draw && layers_off)
        return fprintf(stderr, "perfq stat: --per-draw needs the layers (not with --no-layers)\n"),
               -1;
    if (o->no_stats && layers_off)
        return fprintf(stderr, "perfq stat: --no-stats is about the layers (not with --no-layers)\n"),
               -1;
    if (device_on && device_off)
        return fprintf(stderr, "perfq stat: --device and --no-device exclude each other\n"), -1;
    o->layers = !layers_off;
    o->device = device_on ? STAT_DEVICE_ON : device_off ? STAT_DEVICE_OFF : STAT_DEVICE_AUTO;
    if (o->json && o->csv)
        return fprintf(stderr, "perfq stat: --json and --csv exclude each other\n"), -1;
    if (o->csv && o->interval_ms)
        return fprintf(stderr, "perfq stat: --csv cannot be combined with -I\n"), -1;
    if (i >= argc)
        return fprintf(stderr, "perfq stat: missing command (usage: perfq stat [-e LIST] "
                       "[-I MS] [--json|--csv] [-o FILE] [--device|--no-device] "
                       "[--no-layers|--per-draw] [--no-stats] [--stats-span MS] -- CMD "
                       "[ARGS])\n"), -1;
    o->cmd = argv + i;
    return 0;
}

