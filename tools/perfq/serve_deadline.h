/* perfq serve: a deadline for each request to arrive (docs/perfq-serve.md, "Slow clients").
 * libmicrohttpd's timeout is an idle one: a client that sends a byte every few seconds keeps
 * its connection for ever, and 64 such clients (the connection limit) keep every scraper out.
 * Each connection here has until SERVE_DEADLINE_S after it opened, or after its previous
 * request was answered, to send a whole request's headers; past that its socket is shut down
 * (libmicrohttpd then sees the end of the stream and closes it). Thread-safe: the HTTP
 * server's thread registers, marks and forgets connections; perfq's main thread reaps. */
#ifndef PERFQ_TOOLS_SERVE_DEADLINE_H
#define PERFQ_TOOLS_SERVE_DEADLINE_H

#include <stdint.h>

#define SERVE_DEADLINE_S 10

/* A connection opened on socket fd: its slot, for the calls below (NULL: no slot free, and
 * the connection has only libmicrohttpd's own timeout). */
void *serve_deadline_opened(int fd, uint64_t now_ns);
/* Its request's headers are in (it is being answered): no deadline until it is answered. */
void serve_deadline_request(void *slot);
/* Its request was answered: the next one (keep-alive) has SERVE_DEADLINE_S from now. */
void serve_deadline_answered(void *slot, uint64_t now_ns);
/* Closed (before libmicrohttpd closes its socket): the slot is free. */
void serve_deadline_closed(void *slot);
/* Shuts down the sockets of connections past their deadline at now_ns; how many. */
unsigned serve_deadline_reap(uint64_t now_ns);

#endif
