/*
 * bench-threads-timer [THREADS [FRAMES [DRAWS [ROUNDS]]]]: what a GPU timer per frame costs
 * the driver when several threads render at once, each its own context, without perfq (issue
 * 12, docs/perfq-stat.md "Several threads rendering at once"). THREADS threads (default 8), each
 * with its own 64x64 pbuffer and desktop GL context on one display, render FRAMES frames
 * (default 300) of a clear and DRAWS (default 3) glDrawArrays(GL_TRIANGLES, 0, 6) from a
 * client-side array, then eglSwapBuffers: tests/gl/threads_frames_app.c's frame, so that
 * `perfq stat -- gl-threads-app THREADS FRAMES DRAWS` (bench-stat-layers) can be set beside it.
 * At each swap, by hand, what perfq stat's frame timer asks of the driver:
 *
 *   bare    nothing
 *   timer   the frame's GL_TIME_ELAPSED query ended and the next frame's begun; the oldest
 *           frame read once 8 frames ended after it, asked first (GL_QUERY_RESULT_AVAILABLE)
 *           and left for a later swap if not in; waited for (GL_QUERY_RESULT) when 128 are
 *           pending; the rest read after the last frame (perfq's frames_in_flight.h rule,
 *           without its 4 ms age)
 *   stamp   one glQueryCounter(GL_TIMESTAMP) per swap (a frame's GPU time is the difference
 *           of two), read as timer
 *   noread  timer's end and begin, nothing ever read (objects reused after 128 frames)
 *
 * The variants run in an order that rotates every round (default 11 rounds); each run starts
 * every thread's frames together (a barrier). Per variant: the median over rounds of the run's
 * wall time and its ratio to the same round's bare run (median and range), and of the wall
 * time a thread spent inside the timer's end and begin (or counter) calls and inside the
 * reads, per frame. An unmodified program: links only libEGL, GL through eglGetProcAddress;
 * run it without perfq. Exit 0; 1 on a GL/EGL failure; 77 without an EGL display, desktop GL
 * pbuffers or timer queries.
 */
#include "headless_display.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 128
#define READ_AFTER 8
#define MAX_THREADS 64
#define MAX_ROUNDS 101

enum { V_BARE, V_TIMER, V_STAMP, V_NOREAD, NVARIANTS };
static const char *const variant_names[NVARIANTS] = {"bare", "timer", "stamp", "noread"};

typedef void (*t_clear)(GLbitfield);
typedef void (*t_enum)(GLenum);
typedef void (*t_vertexpointer)(GLint, GLenum, GLsizei, const void *);
typedef void (*t_drawarrays)(GLenum, GLint, GLsizei);
typedef GLenum (*t_geterror)(void);

static struct {
    t_clear Clear;
    t_enum EnableClientState;
    t_vertexpointer VertexPointer;
    t_drawarrays DrawArrays;
    t_geterror GetError;
    PFNGLGENQUERIESPROC GenQueries;
    PFNGLDELETEQUERIESPROC DeleteQueries;
    PFNGLBEGINQUERYPROC BeginQuery;
    PFNGLENDQUERYPROC EndQuery;
    PFNGLQUERYCOUNTERPROC QueryCounter;
    PFNGLGETQUERYOBJECTUIVPROC GetQueryObjectuiv;
    PFNGLGETQUERYOBJECTUI64VPROC GetQueryObjectui64v;
} gl;

static struct {
    EGLDisplay dpy;
    EGLConfig config;
    int frames, draws;
    pthread_barrier_t start;
} app;

struct worker {
    pthread_t thread;
    int variant;
    EGLSurface surf;
    EGLContext ctx;
    GLuint q[RING];                 /* TIME_ELAPSED queries */
    GLuint stamps[RING];            /* GL_TIMESTAMP queries (a query object keeps its target) */
    uint64_t t_calls, t_reads;      /* wall ns inside the timer's calls and the reads */
    uint64_t results;               /* results read */
    const char *failed;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int load(void)
{
#define L(member, name) if (!(*(void **)&gl.member = (void *)eglGetProcAddress(name))) return -1
    L(Clear, "glClear"); L(EnableClientState, "glEnableClientState");
    L(VertexPointer, "glVertexPointer"); L(DrawArrays, "glDrawArrays");
    L(GetError, "glGetError"); L(GenQueries, "glGenQueries"); L(DeleteQueries, "glDeleteQueries");
    L(BeginQuery, "glBeginQuery"); L(EndQuery, "glEndQuery"); L(QueryCounter, "glQueryCounter");
    L(GetQueryObjectuiv, "glGetQueryObjectuiv"); L(GetQueryObjectui64v, "glGetQueryObjectui64v");
#undef L
    return 0;
}

/* Reads the oldest pending frame's query: asked first unless `wait`. 1 when read. */
static int read_oldest(struct worker *w, unsigned oldest, int wait)
{
    GLuint q = (w->variant == V_STAMP ? w->stamps : w->q)[oldest % RING];
    uint64_t t0 = now_ns();
    GLuint avail = 1;
    if (!wait)
        gl.GetQueryObjectuiv(q, GL_QUERY_RESULT_AVAILABLE, &avail);
    if (avail) {
        GLuint64 v = 0;
        gl.GetQueryObjectui64v(q, GL_QUERY_RESULT, &v);
        w->results++;
    }
    w->t_reads += now_ns() - t0;
    return avail != 0;
}

static void frames(struct worker *w)
{
    static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    gl.EnableClientState(GL_VERTEX_ARRAY);
    gl.VertexPointer(2, GL_FLOAT, 0, quad);
    int v = w->variant;
    unsigned ended = 0, read = 0;   /* frames ended, frames read (the oldest pending: read) */
    if (v == V_TIMER || v == V_NOREAD)
        gl.BeginQuery(GL_TIME_ELAPSED, w->q[0]);
    for (int f = 0; f < app.frames; f++) {
        gl.Clear(GL_COLOR_BUFFER_BIT);
        for (int d = 0; d < app.draws; d++)
            gl.DrawArrays(GL_TRIANGLES, 0, 6);
        if (v != V_BARE) {
            /* The objects this swap uses must be read: the pending ones, the one that ends and
             * the next frame's (the timer's) fit in the ring; a full ring waits. */
            while (v != V_NOREAD && ended - read > RING - 2 && read_oldest(w, read, 1))
                read++;
            uint64_t t0 = now_ns();
            if (v == V_STAMP) {
                gl.QueryCounter(w->stamps[ended % RING], GL_TIMESTAMP);
            } else {
                gl.EndQuery(GL_TIME_ELAPSED);
                gl.BeginQuery(GL_TIME_ELAPSED, w->q[(ended + 1) % RING]);
            }
            w->t_calls += now_ns() - t0;
            ended++;
            if (v != V_NOREAD && ended - read > READ_AFTER && read_oldest(w, read, 0))
                read++;
        }
        if (!eglSwapBuffers(app.dpy, w->surf)) {
            w->failed = "eglSwapBuffers";
            return;
        }
    }
    if (v == V_TIMER || v == V_NOREAD)
        gl.EndQuery(GL_TIME_ELAPSED);
    if (v == V_TIMER || v == V_STAMP)
        while (read < ended && read_oldest(w, read, 1))
            read++;
    if (gl.GetError() != GL_NO_ERROR)
        w->failed = "a GL error";
}

static void *render(void *p)
{
    struct worker *w = p;
    if (!eglMakeCurrent(app.dpy, w->surf, w->surf, w->ctx))
        w->failed = "eglMakeCurrent";
    pthread_barrier_wait(&app.start);
    if (!w->failed)
        frames(w);
    eglMakeCurrent(app.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    return NULL;
}

/* One run of a variant on every thread at once: its wall time in ns, 0 on a failure. */
static uint64_t run(struct worker *workers, int threads, int variant)
{
    for (int i = 0; i < threads; i++) {
        workers[i].variant = variant;
        workers[i].t_calls = workers[i].t_reads = workers[i].results = 0;
    }
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++)
        if (pthread_create(&workers[i].thread, NULL, render, &workers[i]) != 0) {
            fprintf(stderr, "FAIL: cannot start thread %d\n", i);
            _Exit(1);   /* the barrier would never open for the others */
        }
    for (int i = 0; i < threads; i++)
        pthread_join(workers[i].thread, NULL);
    uint64_t wall = now_ns() - t0;
    for (int i = 0; i < threads; i++)
        if (workers[i].failed) {
            fprintf(stderr, "FAIL: %s, thread %d: %s\n", variant_names[variant], i,
                    workers[i].failed);
            return 0;
        }
    return wall;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    app.frames = argc > 2 ? atoi(argv[2]) : 300;
    app.draws = argc > 3 ? atoi(argv[3]) : 3;
    int rounds = argc > 4 ? atoi(argv[4]) : 11;
    if (threads < 1 || threads > MAX_THREADS || app.frames < 1 || app.draws < 1 || rounds < 1 ||
        rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench-threads-timer [THREADS 1..64 [FRAMES [DRAWS [ROUNDS "
                        "1..101]]]]\n");
        return 2;
    }
    app.dpy = bench_headless_display();
    if (app.dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return 77;
    }
    static const EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                    EGL_BLUE_SIZE, 8, EGL_NONE};
    static const EGLint sattrs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
    EGLint n = 0;
    if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(app.dpy, cattrs, &app.config, 1, &n) ||
        n < 1) {
        fprintf(stderr, "no desktop GL pbuffer config: skipping\n");
        return 77;
    }
    static struct worker workers[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        w->surf = eglCreatePbufferSurface(app.dpy, app.config, sattrs);
        w->ctx = eglCreateContext(app.dpy, app.config, EGL_NO_CONTEXT, NULL);
        if (w->surf == EGL_NO_SURFACE || w->ctx == EGL_NO_CONTEXT ||
            !eglMakeCurrent(app.dpy, w->surf, w->surf, w->ctx)) {
            fprintf(stderr, "FAIL: a pbuffer, a context or eglMakeCurrent\n");
            return 1;
        }
        if (i == 0 && load() != 0) {
            fprintf(stderr, "no timer queries (glQueryCounter, glBeginQuery): skipping\n");
            return 77;
        }
        gl.GenQueries(RING, w->q);
        gl.GenQueries(RING, w->stamps);
        eglMakeCurrent(app.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    if (pthread_barrier_init(&app.start, NULL, (unsigned)threads) != 0)
        return 1;
    static double wall[NVARIANTS][MAX_ROUNDS], ratio[NVARIANTS][MAX_ROUNDS];
    static double calls[NVARIANTS][MAX_ROUNDS], reads[NVARIANTS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        uint64_t ns[NVARIANTS];
        for (int k = 0; k < NVARIANTS; k++) {
            int v = (k + r) % NVARIANTS;
            if (!(ns[v] = run(workers, threads, v)))
                return 1;
            double c = 0, rd = 0;
            for (int i = 0; i < threads; i++) {
                c += (double)workers[i].t_calls;
                rd += (double)workers[i].t_reads;
            }
            calls[v][r] = c / threads / app.frames / 1e3;
            reads[v][r] = rd / threads / app.frames / 1e3;
        }
        for (int v = 0; v < NVARIANTS; v++) {
            wall[v][r] = (double)ns[v] / 1e6;
            ratio[v][r] = (double)ns[v] / (double)ns[V_BARE];
        }
    }
    printf("bench-threads-timer: %d threads x %d frames x %d draws, %d rounds (medians)\n",
           threads, app.frames, app.draws, rounds);
    printf("%-8s %10s %8s %8s %8s %12s %12s\n", "variant", "wall ms", "/bare", "min", "max",
           "calls us/f", "reads us/f");
    for (int v = 0; v < NVARIANTS; v++) {
        double lo = ratio[v][0], hi = ratio[v][0];
        for (int r = 1; r < rounds; r++) {
            lo = ratio[v][r] < lo ? ratio[v][r] : lo;
            hi = ratio[v][r] > hi ? ratio[v][r] : hi;
        }
        printf("%-8s %10.2f %8.3f %8.3f %8.3f %12.2f %12.2f\n", variant_names[v],
               median(wall[v], rounds), median(ratio[v], rounds), lo, hi,
               median(calls[v], rounds), median(reads[v], rounds));
    }
    for (int i = 0; i < threads; i++) {
        eglMakeCurrent(app.dpy, workers[i].surf, workers[i].surf, workers[i].ctx);
        gl.DeleteQueries(RING, workers[i].q);
        gl.DeleteQueries(RING, workers[i].stamps);
        eglMakeCurrent(app.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(app.dpy, workers[i].ctx);
        eglDestroySurface(app.dpy, workers[i].surf);
    }
    pthread_barrier_destroy(&app.start);
    eglTerminate(app.dpy);
    return 0;
}
