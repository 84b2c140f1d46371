/* perfq run -- CMD: prepare the environment with perfq's layers and exec CMD. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/memory_channel.h"

int cmd_run(int argc, char **argv)
{
    int verbose = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "perfq run: unknown option '%s' (usage: perfq run [-v] -- CMD "
                    "[ARGS])\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (i >= argc || i + 1 >= argc) {
        fprintf(stderr, "perfq run: missing command (usage: perfq run [-v] -- CMD [ARGS])\n");
        return CLI_EXIT_USAGE;
    }
    if (layers_inject(verbose) != 0)
        return CLI_EXIT_USAGE;   /* the message says which layer and why */
    /* The GL layer answers `perfq memory PID` (docs/perfq-memory.md). */
    if (setenv(PERFQ_MEMORY_SERVER_ENV, "1", 1) != 0) {
        fprintf(stderr, "perfq run: cannot set %s: out of memory\n", PERFQ_MEMORY_SERVER_ENV);
        return CLI_EXIT_USAGE;
    }
    cli_note_injected(PERFQ_MEMORY_SERVER_ENV, "1", 0);
    char **cmd = argv + i + 1;
    execvp(cmd[0], cmd);
    int err = errno;
    fprintf(stderr, "perfq run: cannot execute '%s': %s\n", cmd[0], strerror(err));
    return cli_exec_failed_status(err);
}
