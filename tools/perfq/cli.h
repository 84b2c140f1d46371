/* perfq command line: shared declarations of the subcommands. */
#ifndef PERFQ_TOOLS_CLI_H
#define PERFQ_TOOLS_CLI_H

#include <stdio.h>

#include "perfq/perfq.h"

/* Exit status for usage errors, unknown counters and commands that cannot run. */
#define CLI_EXIT_USAGE 2

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Prepends perfq's layers to LD_PRELOAD and OPENCL_LAYERS in this process's environment, for
 * a command about to be executed. Returns the number of layers found. */
int layers_inject(int verbose);

/* Resolves a counter name for the command line: prints "unknown counter" with a suggestion,
 * or "not available here" with the reason, and returns nonzero on failure. */
int cli_find_counter(perfq_t *pq, const char *name, perfq_counter_id_t *id);

/* JSON output helpers. */
void json_string(FILE *out, const char *s);

#endif
