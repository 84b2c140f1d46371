/* perfq serve's request deadline (serve_deadline.h). */
#include "serve_deadline.h"

#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>

/* More than libmicrohttpd's connection limit (64), which it enforces before notifying. */
#define SLOTS 128

struct slot {
    int used;
    int fd;
    int in_request;   /* headers in, being answered: no deadline */
    uint64_t since;   /* opened, or its previous request answered */
};

static struct slot slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *serve_deadline_opened(int fd, uint64_t now_ns)
{
    struct slot *free_slot = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < SLOTS && !free_slot; i++)
        if (!slots[i].used) {
            free_slot = &slots[i];
            *free_slot = (struct slot){.used = 1, .fd = fd, .since = now_ns};
        }
    pthread_mutex_unlock(&lock);
    return free_slot;
}

void serve_deadline_request(void *slot)
{
    struct slot *s = slot;
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    s->in_request = 1;
    pthread_mutex_unlock(&lock);
}

void serve_deadline_answered(void *slot, uint64_t now_ns)
{
    struct slot *s = slot;
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    s->in_request = 0;
    s->since = now_ns;
    pthread_mutex_unlock(&lock);
}

void serve_deadline_closed(void *slot)
{
    struct slot *s = slot;
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    s->used = 0;
    pthread_mutex_unlock(&lock);
}

unsigned serve_deadline_reap(uint64_t now_ns)
{
    unsigned reaped = 0;
    const uint64_t limit = (uint64_t)SERVE_DEADLINE_S * 1000000000u;
    /* Under the lock: a slot still used is a socket libmicrohttpd has not closed yet (it
     * notifies the close first), so the descriptor is still that connection's. */
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < SLOTS; i++) {
        struct slot *s = &slots[i];
        if (s->used && !s->in_request && now_ns - s->since > limit && s->fd >= 0) {
            shutdown(s->fd, SHUT_RDWR);
            s->fd = -1;   /* once: libmicrohttpd closes it at its next look */
            reaped++;
        }
    }
    pthread_mutex_unlock(&lock);
    return reaped;
}
