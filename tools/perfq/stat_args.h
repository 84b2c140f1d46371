/* perfq stat's command line, parsed apart from running anything (the CLI fuzzer calls it). */
#ifndef PERFQ_TOOLS_STAT_ARGS_H
#define PERFQ_TOOLS_STAT_ARGS_H

enum { STAT_DEVICE_AUTO = 0, STAT_DEVICE_ON = 1, STAT_DEVICE_OFF = 2 };

/* The default statistics span (docs/perfq-stat.md, "Statistics spans"): on the H100 the eleven
 * statistics' ends and begins and their reads cost about 31 us, under 1% of 4 ms. */
#define STAT_STATS_SPAN_DEFAULT_NS 4000000ull
/* --stats-span's largest value, in ms. */
#define STAT_STATS_SPAN_MAX_MS 10000.0

/* Parses --stats-span's MS (a decimal number of milliseconds, 0 to STAT_STATS_SPAN_MAX_MS) into
 * ns: 0, or -1 when it is not one. perfq record shares it. */
int stat_parse_span_ms(const char *v, unsigned long long *ns);

struct stat_options {
    char *events;              /* joined -e lists, or NULL for the defaults */
    int json;
    int csv;
    const char *output;
    /* Device counters (docs/perfq-stat.md, "Defaults"): STAT_DEVICE_AUTO (the default: the
     * NVIDIA device counters where NVML finds a device, silently none elsewhere; none when -e
     * is given), STAT_DEVICE_ON (--device: also beside -e, and say why they are missing),
     * STAT_DEVICE_OFF (--no-device). */
    int device;
    int layers;                /* inject perfq's GL/OpenCL layers into CMD: 1 unless --no-layers */
    int per_draw;              /* with the layers: every draw call (--per-draw) */
    int no_stats;              /* with the layers: no pipeline statistics (--no-stats) */
    /* --stats-span MS: a context's pipeline statistics queries stay open across swaps until
     * they have lasted at least this long (0: a span per frame); docs/perfq-stat.md,
     * "Statistics spans" */
    unsigned long long stats_span_ns;
    unsigned interval_ms;      /* -I MS: print the counters every MS ms; 0: only the total */
    char **cmd;
};

/* Parses argv[1..] (argv[0] is "stat") into o (zeroed by the caller; the defaults, layers on
 * and device counters AUTO, are set here). 0, with o->cmd pointing
 * into argv at the command; or -1 after printing why to stderr. o->events is malloc'ed: the
 * caller frees it, also after a failure. */
int stat_parse_args(int argc, char **argv, struct stat_options *o);

#endif
