/*
 * perfq's folder for what it keeps between runs: the GL layer's timer self-check verdicts
 * (src/gl/timing/timer_verdict_cache.c) and the CLI's OpenCL loader orders
 * (tools/perfq/layers.c). Compiled into the GL layer and the CLI (no engine symbol to export).
 */
#ifndef PERFQ_CORE_CACHE_DIR_H
#define PERFQ_CORE_CACHE_DIR_H

#include <stddef.h>

/* $PERFQ_CACHE_DIR, else $XDG_CACHE_HOME/perfq, else $HOME/.cache/perfq; with `make`, the
 * folder (and ~/.cache) made when missing (mode 0700; a failure shows when it is used). 0 with
 * the path in `out`; -1 where none of the variables is set or the path does not fit. */
int perfq_cache_dir(char *out, size_t size, int make);

#endif
