/* perfq stat --layers: the CLI's end of the layers' channel (src/core/stat_channel.h): receives
 * frame and OpenCL command records while CMD runs and reports them at the end. */
#ifndef PERFQ_TOOLS_STAT_COLLECT_H
#define PERFQ_TOOLS_STAT_COLLECT_H

#include <stdio.h>

struct stat_collect;

/* Makes the channel and exports PERFQ_STAT_CHANNEL into this process's environment (for the
 * command about to be started). Returns NULL after printing why. */
struct stat_collect *stat_collect_open(void);
/* After fork: closes perfq's copies of the sending end and starts draining. */
int stat_collect_start(struct stat_collect *c);
/* After CMD exited: reads what is left without waiting, stops. */
void stat_collect_finish(struct stat_collect *c);
void stat_collect_print_table(struct stat_collect *c, FILE *out);
/* `"frames": {...}, "opencl": {...}, "channel": {...}` members, without the braces around. */
void stat_collect_print_json(struct stat_collect *c, FILE *out);
void stat_collect_print_csv(struct stat_collect *c, FILE *out);
void stat_collect_close(struct stat_collect **c);

#endif
