/*
 * The last way a layer reaches the `perfq stat` channel's memfd (stat_channel.h): a UNIX socket
 * by path on which perfq hands the memfd over (SCM_RIGHTS) to whoever of its user asks.
 *
 * A layer first uses the fd it inherited, then perfq's own copy through /proc/PID/fd. Neither
 * is there for a process that lost its fds and may not open perfq's: /proc/PID/fd is opened
 * only as ptrace's read mode allows, so a process in another user namespace (a sandbox's) or
 * one with fewer capabilities than perfq (every child of a perfq run as root that drops its
 * capabilities: Chromium's GPU process, which root runs with --no-sandbox) gets EACCES. A socket file asks only for write permission on it, which its owner has in any user
 * namespace that maps it (the same kernel uid). perfq's drain thread polls the listening socket
 * with its stop pipe: a layer is answered within one poll, and the layer's wait is bounded
 * (PERFQ_STAT_SOCKET_WAIT_MS) should perfq be stopped.
 *
 * The socket is made in /dev/shm (else /tmp), named perfq-stat-PID-N.sock, mode 0600, and
 * unlinked when perfq ends. perfq killed by SIGKILL leaves an empty socket file: the next perfq
 * unlinks those whose PID is gone. A socket holds no memory: the ring stays a memfd, which no
 * full /dev/shm can turn into a SIGBUS in the program.
 */
#ifndef PERFQ_STAT_CHANNEL_SOCKET_H
#define PERFQ_STAT_CHANNEL_SOCKET_H

#include <stddef.h>

/* How long a layer waits for perfq's answer before it gives up (once per process). */
#define PERFQ_STAT_SOCKET_WAIT_MS 2000

/* perfq's side. Makes the listening socket (non-blocking, close-on-exec) and writes its path
 * to path[size]; first unlinks the socket files of perfq processes that are gone. Returns the
 * fd, or -1 with errno set (no directory would take it). */
int perfq_stat_socket_open(char *path, size_t size);
/* Answers every connection waiting on `listen_fd`: the peer gets `page_fd` when its user is
 * perfq's (SO_PEERCRED), else nothing. Never blocks. Returns the fds handed over. */
int perfq_stat_socket_serve(int listen_fd, int page_fd);
/* Unlinks `path` and closes `listen_fd` (either may be absent: -1, ""). */
void perfq_stat_socket_close(int listen_fd, const char *path);

/* The layer's side: the fd perfq handed over on `path` (close-on-exec), or -1. */
int perfq_stat_socket_fetch(const char *path);

#endif
