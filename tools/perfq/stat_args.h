/* perfq stat's command line, parsed apart from running anything (the CLI fuzzer calls it). */
#ifndef PERFQ_TOOLS_STAT_ARGS_H
#define PERFQ_TOOLS_STAT_ARGS_H

struct stat_options {
    char *events;              /* joined -e lists, or NULL for the defaults */
    int json;
    int csv;
    const char *output;
    int device;                /* add every available device counter (--device) */
    int layers;                /* inject perfq's GL/OpenCL layers into CMD (--layers) */
    int per_draw;              /* with the layers: every draw call (--per-draw; implies --layers) */
    unsigned interval_ms;      /* -I MS: print the counters every MS ms; 0: only the total */
    char **cmd;
};

/* Parses argv[1..] (argv[0] is "stat") into o (zeroed by the caller). 0, with o->cmd pointing
 * into argv at the command; or -1 after printing why to stderr. o->events is malloc'ed: the
 * caller frees it, also after a failure. */
int stat_parse_args(int argc, char **argv, struct stat_options *o);

#endif
