/*
 * The channel through which `perfq memory PID` asks a program started under `perfq run` for its
 * GL memory report (docs/perfq-memory.md). memory_channel.c is compiled into the GL layer (the
 * answering end, src/gl/nvres_server.c) and into the CLI (the asking end,
 * tools/perfq/cmd_memory.c); libperfq.so has none of it.
 *
 * Address: the abstract AF_UNIX stream socket "\0perfq-memory-PID" (no file: nothing is left
 * behind by a program that crashed, and no directory has to be made private). Anyone on the
 * machine (in the same network namespace) can connect to an abstract socket, so both ends check
 * the other with SO_PEERCRED: the program answers only a peer of its own effective uid, and
 * otherwise sends the line "refused" and closes; the CLI reads only from a socket whose listener
 * is process PID itself (another process that took the name first is refused).
 *
 * Protocol (text, one record per line, fields separated by one space):
 *   the CLI sends      "perfq-memory 1\n"
 *   the program sends  "perfq-memory 1\n", then either "refused\n" or
 *                      "process PID\n"
 *                      per share group of GL contexts:
 *                      "group ID\n"
 *                      "memory SOURCE TOTAL_KIB FREE_KIB AS_OF\n"  (-1: no value; AS_OF "now"
 *                                                       or "cached": see docs/perfq-memory.md)
 *                      "type texture|renderbuffer|buffer ALLOCATIONS KIB\n" (three lines)
 *                      "tag ID ALLOCATIONS KIB TRUNCATED NAME\n" per tag with state, id order
 *                      then "end\n" and closes.
 * SOURCE and NAME are escaped (perfq_memory_channel_escape): "-" is the empty string.
 */
#ifndef PERFQ_MEMORY_CHANNEL_H
#define PERFQ_MEMORY_CHANNEL_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#define PERFQ_MEMORY_CHANNEL_HELLO "perfq-memory 1\n"
/* Set by `perfq run`: the GL layer then answers `perfq memory` (nothing listens without it). */
#define PERFQ_MEMORY_SERVER_ENV "PERFQ_MEMORY_SERVER"

/* The abstract address of process pid's channel; returns the length to pass to bind/connect. */
socklen_t perfq_memory_channel_address(pid_t pid, struct sockaddr_un *addr);

/* Escapes s for one field: bytes that are not printable ASCII, space and '%' become %XX (two
 * upper-case hex digits); "" becomes "-" and "-" becomes "%2D". Writes at most size bytes
 * (always NUL-terminated); returns the length the whole escape takes (as snprintf). */
size_t perfq_memory_channel_escape(const char *s, char *out, size_t size);
/* Undoes it in place; returns 0, or -1 for a malformed field. */
int perfq_memory_channel_unescape(char *s);

#endif
