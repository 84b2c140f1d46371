/* The progress line: see progress.h. Written with write(2) from its own thread, so it never
 * waits on stdio's lock of stderr; the report is printed only after progress_stop. On a
 * terminal that gives its size the line has the bottom row to itself, CMD's output scrolling
 * above it (a scrolling region, as apt's progress bar has), so that neither overwrites or
 * runs into the other. */
#include "progress.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
    int rows;   /* the terminal's rows, where the line has the bottom one; 0: in place */
};

/* The terminal's size; 0 where it does not say (a pseudo-terminal nobody sized). */
static int terminal_rows(int *cols)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) != 0)
        return *cols = 0;
    *cols = ws.ws_col;
    return ws.ws_row;
}

/* One write(2) of the formatted text (cut at 255 bytes), which the terminal does not
 * interleave with CMD's own writes. */
__attribute__((format(printf, 1, 2))) static void put(const char *fmt, ...)
{
    char seq[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(seq, sizeof(seq), fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(seq) - 1)
        n = (int)sizeof(seq) - 1;
    if (n > 0 && write(STDERR_FILENO, seq, (size_t)n) < 0)
        return;   /* a terminal that went away: nothing to tell it */
}

static void show(struct progress *p)
{
    char text[120];
    double elapsed = (double)(cli_monotonic_ns() - p->t0) / 1e9;
    if (p->c) {
        uint64_t frames, commands;
        stat_collect_progress(p->c, &frames, &commands);
        snprintf(text, sizeof(text), "perfq: %.1f s, %" PRIu64 " frames, %" PRIu64
                 " OpenCL commands", elapsed, frames, commands);
    } else {
        snprintf(text, sizeof(text), "perfq: %.1f s", elapsed);
    }
    if (!p->rows) {
        put("\r%s\033[K", text);
        return;
    }
    /* A resized terminal: the bottom row is another one (terminals reset the scrolling region
     * when resized). The line is cut short of the last column, which would wrap and scroll. */
    int cols, rows = terminal_rows(&cols);
    if (rows >= PROGRESS_MIN_ROWS && rows != p->rows) {
        put("\0337\033[1;%dr\0338", rows - 1);
        p->rows = rows;
    }
    put("\0337\033[%d;1H%.*s\033[K\0338", p->rows, cols > 1 ? cols - 1 : 0, text);
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
    const char *term = getenv("TERM");
    if (!isatty(STDERR_FILENO) || (term && strcmp(term, "dumb") == 0))
        return NULL;
    struct progress *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->t0 = t0_ns;
    p->c = c;
    int cols, rows = terminal_rows(&cols);
    if (rows >= PROGRESS_MIN_ROWS && cols >= PROGRESS_MIN_COLS) {
        /* Rows 1 to rows - 1 scroll, the bottom row is the line's. A new line first, so that
         * a cursor on the bottom row has one above it to go back to (DECSTBM homes the
         * cursor: it is saved and restored around it). */
        p->rows = rows;
        put("\n\0337\033[1;%dr\0338\033[1A", rows - 1);
    }
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
    if (p->rows)   /* the bottom row emptied and given back; the cursor where CMD left it */
        put("\0337\033[%d;1H\033[K\033[r\0338", p->rows);
    else
        put("\r\033[K");
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
