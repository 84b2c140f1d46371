/*
 * `perfq memory PID`'s answering end inside a program started under `perfq run`
 * (nvres_server.c; channel and protocol: src/core/memory_channel.h, docs/perfq-memory.md).
 */
#ifndef PERFQ_GL_NVRES_SERVER_H
#define PERFQ_GL_NVRES_SERVER_H

/* Starts the server once per process when PERFQ_MEMORY_SERVER is set (again in a forked child):
 * the socket listens when this returns. Never fails the caller: without it nothing answers. */
void perfq_nvres_server_start(void);

#endif
