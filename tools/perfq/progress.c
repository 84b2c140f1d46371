/* The progress line: see progress.h. Written with write(2) from its own thread, so it never
 * waits on stdio's lock of stderr; the report is printed only after progress_stop. */
#include "progress.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

struct progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    uint64_t t0;
    struct stat_collect *c;
};

static void show(const struct progress *p)
{
    char line[160];
    double elapsed = (double)(cli_monotonic_ns() - p->t0) / 1e9;
    int n;
    if (p->c) {
        uint64_t frames, commands;
        stat_collect_progress(p->c, &frames, &commands);
        n = snprintf(line, sizeof(line), "\rperfq: %.1f s, %" PRIu64 " frames, %" PRIu64
                     " OpenCL commands\033[K", elapsed, frames, commands);
    } else {
        n = snprintf(line, sizeof(line), "\rperfq: %.1f s\033[K", elapsed);
    }
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
        return;   /* a terminal that went away: nothing to tell it */
}

static void *run(void *arg)
{
    struct progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        show(p);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += PROGRESS_PERIOD_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

struct progress *progress_start(struct stat_collect *c, uint64_t t0_ns)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    struct progress *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->t0 = t0_ns;
    p->c = c;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&p->lock, NULL);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;   /* no progress line; the measurement goes on */
    }
    return p;
}

void progress_stop(struct progress **pp)
{
    struct progress *p = *pp;
    if (!p)
        return;
    *pp = NULL;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    show(p);
    static const char erase[] = "\r\033[K";
    if (write(STDERR_FILENO, erase, sizeof(erase) - 1) < 0)
        (void)0;
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
