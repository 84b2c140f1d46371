/*
 * Machine-wide ownership of the counters (perfq.h, perfq_counters_acquire), held as a bound
 * socket in the Linux abstract unix-socket namespace: bind() of a name succeeds for exactly
 * one socket of the network namespace, and the kernel frees the name when that socket's last
 * descriptor closes, which it does itself when the process exits or is killed. There is no
 * file to leave behind, to pre-create with hostile permissions or to unlink and recreate, and
 * no call that unbinds another process's socket: the only ways to end ownership are the
 * owner's close and the owner's death. Why not a lock file: docs/egl-brcm-performance-counters.md.
 *
 * The socket is SOCK_STREAM and never listens, so connecting to the name is refused; it is
 * close-on-exec, and a fork child closes its copy (pthread_atfork), so ownership stays with the
 * process that acquired it.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "perfq/perfq.h"

static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;
static int owner_fd = -1;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    pthread_mutex_lock(&owner_lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&owner_lock);
}

/* The child is another process: it is not the owner. Closing its copy of the descriptor
 * leaves the parent's socket bound. */
static void after_fork_child(void)
{
    if (owner_fd >= 0)
        close(owner_fd);
    owner_fd = -1;
    pthread_mutex_unlock(&owner_lock);
}

static void register_atfork(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* "\0perfq-counters" or "\0perfq-counters:" PERFQ_LOCK_NAME; returns the address length. */
static socklen_t lock_address(struct sockaddr_un *addr)
{
    static const char base[] = "perfq-counters";
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    size_t len = 1;   /* sun_path[0] == NUL: the abstract namespace */
    memcpy(addr->sun_path + len, base, sizeof base - 1);
    len += sizeof base - 1;
    const char *domain = getenv("PERFQ_LOCK_NAME");
    if (domain && *domain) {
        size_t room = sizeof addr->sun_path - len - 1, n = strlen(domain);
        addr->sun_path[len++] = ':';
        if (n <= room) {
            memcpy(addr->sun_path + len, domain, n);
            len += n;
        } else {
            /* Too long for the address: its head, then '#' and a 64-bit FNV-1a hash of the
             * whole name, so that two long names that differ only past the head stay two
             * domains (they were cut to one). */
            uint64_t h = 0xcbf29ce484222325ull;
            for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)domain[i]) * 0x100000001b3ull;
            size_t head = room - 17;
            memcpy(addr->sun_path + len, domain, head);
            len += head;
            addr->sun_path[len++] = '#';
            for (int i = 15; i >= 0; i--)
                addr->sun_path[len++] = "0123456789abcdef"[(h >> (4 * i)) & 0xf];
        }
    }
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
}

perfq_status_t perfq_counters_acquire(void)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&owner_lock);
    perfq_status_t st = PERFQ_OK;
    if (owner_fd < 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un addr;
        socklen_t len = lock_address(&addr);
        if (fd < 0) {
            st = PERFQ_ESYS;
        } else if (bind(fd, (const struct sockaddr *)&addr, len) != 0) {
            st = errno == EADDRINUSE ? PERFQ_EBUSY : PERFQ_ESYS;
            close(fd);
        } else {
            owner_fd = fd;
        }
    }
    pthread_mutex_unlock(&owner_lock);
    return st;
}

perfq_status_t perfq_counters_release(void)
{
    pthread_mutex_lock(&owner_lock);
    perfq_status_t st = PERFQ_ESTATE;
    if (owner_fd >= 0) {
        close(owner_fd);   /* the name is free when this returns */
        owner_fd = -1;
        st = PERFQ_OK;
    }
    pthread_mutex_unlock(&owner_lock);
    return st;
}

int perfq_counters_owned(void)
{
    pthread_mutex_lock(&owner_lock);
    int owned = owner_fd >= 0;
    pthread_mutex_unlock(&owner_lock);
    return owned;
}
