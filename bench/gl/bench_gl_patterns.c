/*
 * Issue 10: the GL layer's cost per query as a profiler uses it, at three read patterns, side by
 * side with the same driver work in one process (llvmpipe here, NVIDIA on the GPU machine).
 *
 * One iteration = begin a query, one 1-triangle draw with rasterizer discard, end it. Results
 * are read (waiting, GL_QUERY_RESULT / PERFQUERY_WAIT_INTEL):
 *   "waited"   right after each query (1 outstanding),
 *   "every 64" after every 64 queries (64 outstanding),
 *   "at end"   all 4000 after the last one (4000 outstanding).
 * Compared:
 *   ANGLE: glBeginQueryANGLE/glEndQueryANGLE/glGetQueryObjectui64vANGLE through the layer against
 *          the driver's own GL_TIME_ELAPSED query (glBeginQuery, glEndQuery,
 *          glGetQueryObjectui64v) around the same draw;
 *   INTEL: "Pipeline Statistics" (glBeginPerfQueryINTEL, glEndPerfQueryINTEL,
 *          glGetPerfQueryDataINTEL) against "by hand": the driver queries the layer issues for
 *          that result, in the layer's order (GL_TIME_ELAPSED first, then each pipeline
 *          statistic, SAMPLES_PASSED and PRIMITIVES_GENERATED; ended in the same order, the
 *          timer last; read timer first).
 * The driver's queries are called as a program under `perfq run` calls them: through the
 * layer's wrappers, which pass them straight to the driver while perfq has nothing active on
 * their target (the figures were taken so).
 * On the stamp-point path (PERFQ_GL_TIMER=stamps; llvmpipe's own choice, docs/gl-layer.md
 * "Stamp points") the layer times an interval with two GL_TIMESTAMP counters, each followed by
 * a glFlush, so two more references are printed there: "2 stamps" (the same two counters and
 * flushes around the draw, both read at read time) and INTEL's "by hand + 2 stamps" (the
 * statistics queries between those two counters).
 * On the fence path the layer times with EGL fences instead of GL_TIME_ELAPSED, so two more
 * references are printed there: "2 fences" (eglCreateSyncKHR before and after the draw, both
 * waited with eglClientWaitSyncKHR at read time, then destroyed: the least a fence timer does)
 * and INTEL's "by hand + 2 fences" (the statistics queries without GL_TIME_ELAPSED, plus those
 * fences).
 * 4000 iterations per pattern; wall-clock time per iteration on the calling thread; 5 rounds,
 * the order of driver and layer alternating; medians; ratio = layer / driver. The paths are run
 * one after the other, each in a new context with PERFQ_GL_TIMER set (query, fence, stamps).
 * No assertions: it prints figures.
 *
 * --count: instead of timing, one pass of each variant with the driver functions the layer
 * calls replaced by counting wrappers (the real table, perfq_gl_real_table): calls per
 * iteration of each, for the layer and for the same work by hand.
 * --calls: the time of single driver calls the layer may make per query (glGetError,
 * glGetQueryiv, glGenQueries + glDeleteQueries, glGetIntegerv) and of a calloc + free.
 * --layer-only: the same timing with the driver's query calls and the draw replaced by stubs
 * that do nothing (results read 1): the layer's own CPU time per query against the wrappers'
 * pass-through, without the driver's noise (a profile of the layer, not a driver figure).
 * --only=angle, --only=intel: that extension's comparisons alone.
 * --cpu: time by the CPU time of the whole process (every thread: the driver's, the layer's fence
 * helper) instead of the calling thread's wall clock: what a query costs in CPU, where a
 * driver's or the layer's threads do part of the work (llvmpipe's fence path).
 * Usage: bench-gl-patterns [--count|--calls|--layer-only] [--paths=query,fence,stamps] [--rounds=N]
 *        [--iterations=N] [--only=angle|intel] [--cpu]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_test.h"
#include "gl/contexts/layer_internal.h"
#include "gl/timing/timer_internal.h"

#define MAX_ROUNDS 15
#define MAX_HAND 16

static struct glt T;
static int iterations = 4000;
static int rounds = 5;
static int counting;
static int calls_only;
static int layer_only;
static int want_angle = 1, want_intel = 1;  /* --only=angle|intel */
static int cpu_time;                          /* --cpu: the process's CPU time, every thread */

/* What an iteration is timed by: the wall clock, or with --cpu the CPU time of every thread of
 * the process (the driver's threads and the layer's fence helper included). */
static uint64_t bench_now(void)
{
    if (!cpu_time)
        return glt_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static const int batches[3] = {1, 64, 4000};
static const char *const batch_names[3] = {"waited", "every 64", "at end"};

static struct {
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC GetPerfQueryIdByName;
    PFNGLGETPERFQUERYINFOINTELPROC GetPerfQueryInfo;
    PFNGLGETPERFCOUNTERINFOINTELPROC GetPerfCounterInfo;
    PFNGLCREATEPERFQUERYINTELPROC CreatePerfQuery;
    PFNGLDELETEPERFQUERYINTELPROC DeletePerfQuery;
    PFNGLBEGINPERFQUERYINTELPROC BeginPerfQuery;
    PFNGLENDPERFQUERYINTELPROC EndPerfQuery;
    PFNGLGETPERFQUERYDATAINTELPROC GetPerfQueryData;
} intel;

/* ---- counting wrappers over the real table -------------------------------------------- */

#define COUNTED(X)                                                                            \
    X(glGetError) X(glGetIntegerv) X(glGenQueries) X(glDeleteQueries) X(glBeginQuery)          \
    X(glEndQuery) X(glGetQueryObjectui64v) X(glGetQueryObjectuiv) X(glGetQueryiv)              \
    X(glQueryCounter) X(glDrawArrays) X(glFlush) X(glFinish) X(eglCreateSyncKHR) X(eglClientWaitSyncKHR)       \
    X(eglDestroySyncKHR)

enum {
#define ENUM(name) C_##name,
    COUNTED(ENUM)
#undef ENUM
    C_COUNT
};
static const char *const counted_names[] = {
#define NAME(name) #name,
    COUNTED(NAME)
#undef NAME
};
static unsigned long long calls[C_COUNT];
static struct perfq_gl_dispatch saved;
/* --layer-only: the driver's query calls and the draw do nothing (results read 1), so that what
 * is timed is the layer's own CPU work per query beside the wrappers' pass-through. */
static int stubbed;
static GLuint stub_next_name = 1u << 24;

static GLenum c_glGetError(void)
{
    calls[C_glGetError]++;
    if (stubbed)
        return GL_NO_ERROR;
    return saved.glGetError();
}
static void c_glGetIntegerv(GLenum p, GLint *v)
{
    calls[C_glGetIntegerv]++;
    saved.glGetIntegerv(p, v);
}
static void c_glGenQueries(GLsizei n, GLuint *ids)
{
    calls[C_glGenQueries]++;
    if (stubbed) {
        for (GLsizei i = 0; i < n; i++)
            ids[i] = stub_next_name++;
        return;
    }
    saved.glGenQueries(n, ids);
}
static void c_glDeleteQueries(GLsizei n, const GLuint *ids)
{
    calls[C_glDeleteQueries]++;
    if (stubbed)
        return;
    saved.glDeleteQueries(n, ids);
}
static void c_glBeginQuery(GLenum t, GLuint id)
{
    calls[C_glBeginQuery]++;
    if (stubbed)
        return;
    saved.glBeginQuery(t, id);
}
static void c_glEndQuery(GLenum t)
{
    calls[C_glEndQuery]++;
    if (stubbed)
        return;
    saved.glEndQuery(t);
}
static void c_glGetQueryObjectui64v(GLuint id, GLenum p, GLuint64 *v)
{
    calls[C_glGetQueryObjectui64v]++;
    if (stubbed) {
        *v = 1;
        return;
    }
    saved.glGetQueryObjectui64v(id, p, v);
}
static void c_glGetQueryObjectuiv(GLuint id, GLenum p, GLuint *v)
{
    calls[C_glGetQueryObjectuiv]++;
    if (stubbed) {
        *v = 1;
        return;
    }
    saved.glGetQueryObjectuiv(id, p, v);
}
static void c_glGetQueryiv(GLenum t, GLenum p, GLint *v)
{
    calls[C_glGetQueryiv]++;
    if (stubbed) {
        *v = 0;
        return;
    }
    saved.glGetQueryiv(t, p, v);
}
static void c_glQueryCounter(GLuint id, GLenum t)
{
    calls[C_glQueryCounter]++;
    if (stubbed)
        return;
    saved.glQueryCounter(id, t);
}
static void c_glDrawArrays(GLenum mode, GLint first, GLsizei count)
{
    calls[C_glDrawArrays]++;
    if (stubbed)
        return;
    saved.glDrawArrays(mode, first, count);
}
static void c_glFlush(void)
{
    calls[C_glFlush]++;
    saved.glFlush();
}
static void c_glFinish(void)
{
    calls[C_glFinish]++;
    saved.glFinish();
}
static EGLSyncKHR c_eglCreateSyncKHR(EGLDisplay d, EGLenum type, const EGLint *attribs)
{
    __atomic_fetch_add(&calls[C_eglCreateSyncKHR], 1, __ATOMIC_RELAXED);
    return saved.eglCreateSyncKHR(d, type, attribs);
}
/* Also called by the fence path's helper thread: counted atomically, both threads' calls. */
static EGLint c_eglClientWaitSyncKHR(EGLDisplay d, EGLSyncKHR s, EGLint flags, EGLTimeKHR t)
{
    __atomic_fetch_add(&calls[C_eglClientWaitSyncKHR], 1, __ATOMIC_RELAXED);
    return saved.eglClientWaitSyncKHR(d, s, flags, t);
}
static EGLBoolean c_eglDestroySyncKHR(EGLDisplay d, EGLSyncKHR s)
{
    __atomic_fetch_add(&calls[C_eglDestroySyncKHR], 1, __ATOMIC_RELAXED);
    return saved.eglDestroySyncKHR(d, s);
}

/* Before any context exists: the layer copies some of these pointers per context. */
static void install_counters(void)
{
    perfq_gl_dispatch();
    saved = perfq_gl_real_table;
#define SWAP(name) if (saved.name) perfq_gl_real_table.name = c_##name;
    COUNTED(SWAP)
#undef SWAP
}

static void counts_take(unsigned long long *out)
{
    for (int i = 0; i < C_COUNT; i++)
        out[i] = __atomic_load_n(&calls[i], __ATOMIC_RELAXED);
}

static void counts_print(const char *what, const unsigned long long *before, int n)
{
    unsigned long long now[C_COUNT];
    counts_take(now);
    printf("  %-34s", what);
    int any = 0;
    for (int i = 0; i < C_COUNT; i++) {
        if (now[i] == before[i])
            continue;
        printf("%s %s %.2f", any ? "," : "", counted_names[i], (double)(now[i] - before[i]) / n);
        any = 1;
    }
    printf("%s\n", any ? "" : " (none)");
}

/* ---- the work ------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The program's draw (through the layer's wrapper, as under `perfq run`). */
static void draw(void)
{
    gl.glDrawArrays(GL_TRIANGLES, 0, 3);
}

static GLuint64 sink;

/* The driver's GL_TIME_ELAPSED, q[batch], called as the program calls it (through the layer's
 * wrappers, which pass it to the driver while perfq has nothing active on the target). */
static double run_driver(int batch, const GLuint *q)
{
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        gl.glBeginQuery(GL_TIME_ELAPSED, q[i % batch]);
        draw();
        gl.glEndQuery(GL_TIME_ELAPSED);
        if (i % batch == batch - 1 || i == iterations - 1) {
            for (int k = 0; k <= i % batch; k++) {
                GLuint64 v = 0;
                gl.glGetQueryObjectui64v(q[k], GL_QUERY_RESULT, &v);
                sink += v;
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

static double run_angle(int batch, const GLuint *q)
{
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, q[i % batch]);
        draw();
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        if (i % batch == batch - 1 || i == iterations - 1) {
            for (int k = 0; k <= i % batch; k++) {
                GLuint64 v = 0;
                gl.glGetQueryObjectui64vANGLE(q[k], GL_QUERY_RESULT_ANGLE, &v);
                sink += v;
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

/* Two EGL fences around the draw, waited and destroyed at read time (f[2 * batch]); with
 * `hand` (n targets, queries hq[target][batch]) the statistics queries too. */
static double run_fences(int batch, EGLSyncKHR *f, int n, const GLenum *targets,
                         GLuint *const *hq)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    EGLDisplay dpy = T.dpy;
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        int j = i % batch;
        for (int k = 0; k < n; k++)
            gl.glBeginQuery(targets[k], hq[k][j]);
        f[2 * j] = real->eglCreateSyncKHR(dpy, EGL_SYNC_FENCE_KHR, NULL);
        draw();
        for (int k = 0; k < n; k++)
            gl.glEndQuery(targets[k]);
        f[2 * j + 1] = real->eglCreateSyncKHR(dpy, EGL_SYNC_FENCE_KHR, NULL);
        if (j == batch - 1 || i == iterations - 1) {
            for (int b = 0; b <= j; b++) {
                for (int e = 0; e < 2; e++) {
                    real->eglClientWaitSyncKHR(dpy, f[2 * b + e], EGL_SYNC_FLUSH_COMMANDS_BIT_KHR,
                                               EGL_FOREVER_KHR);
                    sink += glt_now_ns();
                    real->eglDestroySyncKHR(dpy, f[2 * b + e]);
                }
                for (int k = 0; k < n; k++) {
                    GLuint64 v = 0;
                    gl.glGetQueryObjectui64v(hq[k][b], GL_QUERY_RESULT, &v);
                    sink += v;
                }
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

/* The driver queries by hand, in the layer's order (targets[0] is GL_TIME_ELAPSED). */
static double run_hand(int batch, int n, const GLenum *targets, GLuint *const *hq)
{
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        int j = i % batch;
        for (int k = 0; k < n; k++)
            gl.glBeginQuery(targets[k], hq[k][j]);
        draw();
        for (int k = 1; k < n; k++)
            gl.glEndQuery(targets[k]);
        gl.glEndQuery(targets[0]);
        if (j == batch - 1 || i == iterations - 1) {
            for (int b = 0; b <= j; b++) {
                for (int k = 0; k < n; k++) {
                    GLuint64 v = 0;
                    gl.glGetQueryObjectui64v(hq[k][b], GL_QUERY_RESULT, &v);
                    sink += v;
                }
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

/* Two GL_TIMESTAMP counters, each flushed (q[2 * batch]), around the draw and n statistics
 * queries (targets[0..n), hq[target][batch]; 0 for ANGLE's reference), in the layer's order: the
 * begin point, the statistics, the draw, the statistics' ends, the end point; read the points
 * first. What the layer's stamp points do for an interval. */
static double run_stamps(int batch, const GLuint *q, int n, const GLenum *targets,
                         GLuint *const *hq)
{
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        int j = i % batch;
        gl.glQueryCounter(q[2 * j], GL_TIMESTAMP);
        gl.glFlush();
        for (int k = 0; k < n; k++)
            gl.glBeginQuery(targets[k], hq[k][j]);
        draw();
        for (int k = 0; k < n; k++)
            gl.glEndQuery(targets[k]);
        gl.glQueryCounter(q[2 * j + 1], GL_TIMESTAMP);
        gl.glFlush();
        if (j == batch - 1 || i == iterations - 1) {
            for (int b = 0; b <= j; b++) {
                GLuint64 begin = 0, end = 0;
                gl.glGetQueryObjectui64v(q[2 * b], GL_QUERY_RESULT, &begin);
                gl.glGetQueryObjectui64v(q[2 * b + 1], GL_QUERY_RESULT, &end);
                sink += end - begin;
                for (int k = 0; k < n; k++) {
                    GLuint64 v = 0;
                    gl.glGetQueryObjectui64v(hq[k][b], GL_QUERY_RESULT, &v);
                    sink += v;
                }
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

static double run_intel(int batch, const GLuint *h, void *data, GLuint size)
{
    uint64_t t0 = bench_now();
    for (int i = 0; i < iterations; i++) {
        int j = i % batch;
        intel.BeginPerfQuery(h[j]);
        draw();
        intel.EndPerfQuery(h[j]);
        if (j == batch - 1 || i == iterations - 1) {
            for (int b = 0; b <= j; b++) {
                GLuint written = 0;
                intel.GetPerfQueryData(h[b], GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data,
                                       &written);
                sink += written;
            }
        }
    }
    return (double)(bench_now() - t0) / iterations;
}

/* ---- single driver calls (--calls) ---------------------------------------------------- */

static double time_calls(int which, int n)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    GLuint q = 0;
    GLint v = 0;
    real->glGenQueries(1, &q);
    uint64_t t0 = bench_now();
    for (int i = 0; i < n; i++) {
        switch (which) {
        case 0: sink += real->glGetError(); break;
        case 1: real->glGetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &v); sink += (GLuint)v; break;
        case 2: {
            GLuint t = 0;
            real->glGenQueries(1, &t);
            real->glDeleteQueries(1, &t);
            break;
        }
        case 3: real->glGetIntegerv(GL_QUERY_BUFFER_BINDING, &v); sink += (GLuint)v; break;
        case 4: {
            void *p = calloc(1, 96);
            sink += (uintptr_t)p & 1;
            free(p);
            break;
        }
        default: break;
        }
    }
    double r = (double)(bench_now() - t0) / n;
    real->glDeleteQueries(1, &q);
    return r;
}

static void run_calls(void)
{
    static const char *const names[] = {
        "glGetError", "glGetQueryiv(CURRENT_QUERY)", "glGenQueries(1) + glDeleteQueries(1)",
        "glGetIntegerv(QUERY_BUFFER_BINDING)", "calloc(96) + free",
    };
    printf("single calls, ns each (median of 5 x 20000):\n");
    for (int w = 0; w < 5; w++) {
        double t[5];
        time_calls(w, 1000);
        for (int r = 0; r < 5; r++)
            t[r] = time_calls(w, 20000);
        printf("  %-40s %8.1f\n", names[w], median(t, 5));
    }
}

/* ---- one path ------------------------------------------------------------------------- */

/* The INTEL counters of "Pipeline Statistics" and the driver query behind each, in the order
 * the layer begins them (the timer first). */
static const struct { const char *name; GLenum target; } intel_targets[] = {
    {"GPU Time Elapsed", GL_TIME_ELAPSED},
    {"Vertices Submitted", GL_VERTICES_SUBMITTED_ARB},
    {"Primitives Submitted", GL_PRIMITIVES_SUBMITTED_ARB},
    {"Vertex Shader Invocations", GL_VERTEX_SHADER_INVOCATIONS_ARB},
    {"Tessellation Control Shader Patches", GL_TESS_CONTROL_SHADER_PATCHES_ARB},
    {"Tessellation Evaluation Shader Invocations", GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB},
    {"Geometry Shader Invocations", GL_GEOMETRY_SHADER_INVOCATIONS},
    {"Geometry Shader Primitives Emitted", GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB},
    {"Fragment Shader Invocations", GL_FRAGMENT_SHADER_INVOCATIONS_ARB},
    {"Compute Shader Invocations", GL_COMPUTE_SHADER_INVOCATIONS_ARB},
    {"Clipper Input Primitives", GL_CLIPPING_INPUT_PRIMITIVES_ARB},
    {"Clipper Output Primitives", GL_CLIPPING_OUTPUT_PRIMITIVES_ARB},
    {"Samples Passed", GL_SAMPLES_PASSED},
    {"Primitives Generated", GL_PRIMITIVES_GENERATED},
};
#define N_INTEL_TARGETS (int)(sizeof intel_targets / sizeof intel_targets[0])

struct objects {
    int max;                    /* objects per kind: the largest batch */
    GLuint *driver, *angle, *intel, *stamps;
    GLuint *hand[MAX_HAND];
    EGLSyncKHR *fences;
    GLenum targets[MAX_HAND];
    int n_hand;                 /* by hand: targets[0..n_hand) (targets[0] GL_TIME_ELAPSED) */
    GLuint intel_size;
    void *intel_data;
    int have_intel;
};

static void objects_make(struct objects *o)
{
    memset(o, 0, sizeof *o);
    o->max = batches[2] < iterations ? batches[2] : iterations;
    o->driver = calloc((size_t)o->max, sizeof(GLuint));
    o->angle = calloc((size_t)o->max, sizeof(GLuint));
    o->intel = calloc((size_t)o->max, sizeof(GLuint));
    o->fences = calloc(2 * (size_t)o->max, sizeof(EGLSyncKHR));
    o->stamps = calloc(2 * (size_t)o->max, sizeof(GLuint));
    gl.glGenQueries(o->max, o->driver);
    gl.glGenQueries(2 * o->max, o->stamps);
    gl.glGenQueriesANGLE(o->max, o->angle);
    GLuint type = 0, count = 0;
    if (intel.GetPerfQueryIdByName)
        intel.GetPerfQueryIdByName((GLchar *)"Pipeline Statistics", &type);
    glt_error();    /* no such type: INVALID_VALUE */
    if (!type)
        return;
    intel.GetPerfQueryInfo(type, 0, NULL, &o->intel_size, &count, NULL, NULL);
    /* By hand: one driver query per INTEL counter that has a driver target. */
    for (int k = 0; k < N_INTEL_TARGETS; k++) {
        for (GLuint ci = 1; ci <= count; ci++) {
            char name[256];
            intel.GetPerfCounterInfo(type, ci, sizeof name, name, 0, NULL, NULL, NULL, NULL,
                                     NULL, NULL);
            if (strcmp(name, intel_targets[k].name) == 0 && o->n_hand < MAX_HAND) {
                o->targets[o->n_hand] = intel_targets[k].target;
                o->hand[o->n_hand] = calloc((size_t)o->max, sizeof(GLuint));
                gl.glGenQueries(o->max, o->hand[o->n_hand]);
                o->n_hand++;
            }
        }
    }
    for (int i = 0; i < o->max; i++)
        intel.CreatePerfQuery(type, &o->intel[i]);
    o->intel_data = malloc(o->intel_size);
    o->have_intel = o->n_hand > 0 && o->intel[o->max - 1] != 0 && o->intel_data;
}

static void objects_free(struct objects *o)
{
    gl.glDeleteQueries(o->max, o->driver);
    gl.glDeleteQueries(2 * o->max, o->stamps);
    gl.glDeleteQueriesANGLE(o->max, o->angle);
    for (int k = 0; k < o->n_hand; k++) {
        gl.glDeleteQueries(o->max, o->hand[k]);
        free(o->hand[k]);
    }
    for (int i = 0; i < o->max && o->have_intel; i++)
        intel.DeletePerfQuery(o->intel[i]);
    free(o->driver);
    free(o->angle);
    free(o->intel);
    free(o->fences);
    free(o->stamps);
    free(o->intel_data);
}

enum variant {
    V_DRIVER, V_ANGLE, V_FENCES, V_STAMPS, V_HAND, V_HAND_FENCES, V_HAND_STAMPS, V_INTEL, V_COUNT
};
static const char *const variant_names[V_COUNT] = {
    "driver GL_TIME_ELAPSED", "perfq ANGLE", "2 EGL fences", "2 stamps", "by hand",
    "by hand + 2 fences", "by hand + 2 stamps", "perfq INTEL",
};

static double run_variant(enum variant v, int batch, struct objects *o)
{
    int b = batch < iterations ? batch : iterations;
    switch (v) {
    case V_DRIVER: return run_driver(b, o->driver);
    case V_ANGLE: return run_angle(b, o->angle);
    case V_FENCES: return run_fences(b, o->fences, 0, NULL, NULL);
    case V_STAMPS: return run_stamps(b, o->stamps, 0, NULL, NULL);
    case V_HAND: return run_hand(b, o->n_hand, o->targets, o->hand);
    case V_HAND_FENCES: return run_fences(b, o->fences, o->n_hand - 1, o->targets + 1,
                                          o->hand + 1);
    case V_HAND_STAMPS: return run_stamps(b, o->stamps, o->n_hand - 1, o->targets + 1,
                                          o->hand + 1);
    case V_INTEL: return run_intel(b, o->intel, o->intel_data, o->intel_size);
    default: return 0;
    }
}

/* Whether variant v runs on this path (--only=, the fence and stamp references, INTEL
 * present). */
static int variant_wanted(enum variant v, int fence, int stamps, const struct objects *o)
{
    if ((v == V_FENCES || v == V_HAND_FENCES) && !fence)
        return 0;
    if ((v == V_STAMPS || v == V_HAND_STAMPS) && !stamps)
        return 0;
    if (v >= V_HAND)
        return o->have_intel && want_intel;
    return want_angle;
}

/* The INTEL entry points, once a context is current (the layer's GetProcAddress answers
 * them). */
static void load_intel(void)
{
#define LOAD(member, name) *(void **)&intel.member = (void *)eglGetProcAddress(name)
    LOAD(GetPerfQueryIdByName, "glGetPerfQueryIdByNameINTEL");
    LOAD(GetPerfQueryInfo, "glGetPerfQueryInfoINTEL");
    LOAD(GetPerfCounterInfo, "glGetPerfCounterInfoINTEL");
    LOAD(CreatePerfQuery, "glCreatePerfQueryINTEL");
    LOAD(DeletePerfQuery, "glDeletePerfQueryINTEL");
    LOAD(BeginPerfQuery, "glBeginPerfQueryINTEL");
    LOAD(EndPerfQuery, "glEndPerfQueryINTEL");
    LOAD(GetPerfQueryData, "glGetPerfQueryDataINTEL");
#undef LOAD
    if (!intel.CreatePerfQuery || !intel.GetPerfQueryData)
        intel.GetPerfQueryIdByName = NULL;
}

static void run_path(const char *path)
{
    setenv("PERFQ_GL_TIMER", path, 1);
    EGLDisplay dpy;
    if (glt_open_display(&dpy) != 0 || glt_create(&T, dpy, GLT_CORE, 64, 64) != 0) {
        printf("path %s: no desktop GL 4.5 core context here\n", path);
        return;
    }
    load_intel();
    struct perfq_gl_context *ctx = perfq_gl_current_context();
    perfq_gl_timer_path_t p = perfq_gl_timer_path(ctx);
    struct perfq_gl_timer_state *ts = perfq_gl_ctx(ctx)->timer;
    int stamps = p == PERFQ_GL_TIMER_QUERY && ts && ts->elapsed_by_stamps;
    const char *got = stamps ? "stamps" : p == PERFQ_GL_TIMER_QUERY ? "query"
                    : p == PERFQ_GL_TIMER_FENCE ? "fence" : "none";
    printf("\n== PERFQ_GL_TIMER=%s: the layer's timer path is %s (%s)\n", path, got,
           perfq_gl_timer_reason(ctx));
    if (strcmp(got, path) != 0 ||
        !perfq_gl_vquery_target_supported(ctx, GL_TIME_ELAPSED)) {
        printf("   (not that path, or no driver GL_TIME_ELAPSED here: nothing to compare)\n");
        glt_destroy(&T);
        return;
    }
    int fence = p == PERFQ_GL_TIMER_FENCE;
    perfq_gl_dispatch()->glEnable(GL_RASTERIZER_DISCARD);
    gl.glUniform1i(T.u_mode, 1);
    gl.glUniform1i(T.u_iters, 0);
    struct objects o;
    objects_make(&o);
    if (!o.have_intel)
        printf("   (no INTEL \"Pipeline Statistics\" here: INTEL left out)\n");
    /* The variants compared, in pairs (reference, layer). */
    struct { enum variant ref, layer; } pairs[4];
    int npairs = 0;
    if (want_angle) {
        pairs[npairs].ref = V_DRIVER, pairs[npairs++].layer = V_ANGLE;
        if (fence)
            pairs[npairs].ref = V_FENCES, pairs[npairs++].layer = V_ANGLE;
        if (stamps)
            pairs[npairs].ref = V_STAMPS, pairs[npairs++].layer = V_ANGLE;
    }
    if (o.have_intel && want_intel) {
        pairs[npairs].ref = V_HAND, pairs[npairs++].layer = V_INTEL;
        if (fence)
            pairs[npairs].ref = V_HAND_FENCES, pairs[npairs++].layer = V_INTEL;
        if (stamps)
            pairs[npairs].ref = V_HAND_STAMPS, pairs[npairs++].layer = V_INTEL;
    }
    /* Warm-up: every variant once, briefly (shader compile, first queries). */
    int saved_iterations = iterations;
    iterations = iterations < 64 ? iterations : 64;
    for (int v = 0; v < V_COUNT; v++)
        if (variant_wanted((enum variant)v, fence, stamps, &o))
            run_variant((enum variant)v, 64, &o);
    iterations = saved_iterations;
    glt_error();
    gl.glFinish();
    stubbed = layer_only;

    if (calls_only) {
        run_calls();
    } else if (counting) {
        printf("driver calls per iteration (%d iterations; each pattern):\n", iterations);
        for (int bi = 0; bi < 3; bi++) {
            printf(" %s:\n", batch_names[bi]);
            for (int v = 0; v < V_COUNT; v++) {
                if (!variant_wanted((enum variant)v, fence, stamps, &o))
                    continue;
                unsigned long long before[C_COUNT];
                gl.glFinish();
                counts_take(before);
                run_variant((enum variant)v, batches[bi], &o);
                gl.glFinish();
                counts_print(variant_names[v], before, iterations);
            }
        }
    } else {
        /* ns per iteration: [pattern][variant][round] */
        static double t[3][V_COUNT][MAX_ROUNDS];
        int used[V_COUNT] = {0};
        for (int k = 0; k < npairs; k++)
            used[pairs[k].ref] = used[pairs[k].layer] = 1;
        for (int r = 0; r < rounds; r++) {
            for (int bi = 0; bi < 3; bi++) {
                /* Alternate the order of the variants from round to round. */
                for (int i = 0; i < V_COUNT; i++) {
                    int v = r % 2 ? V_COUNT - 1 - i : i;
                    if (used[v])
                        t[bi][v][r] = run_variant((enum variant)v, batches[bi], &o);
                }
            }
        }
        double m[3][V_COUNT];
        for (int bi = 0; bi < 3; bi++)
            for (int v = 0; v < V_COUNT; v++)
                m[bi][v] = used[v] ? median(t[bi][v], rounds) : 0;
        printf("us %s per iteration (1-triangle draw, rasterizer discard), median of %d "
               "rounds of %d:\n", cpu_time ? "of process CPU time" : "(wall clock)", rounds,
               iterations);
        for (int k = 0; k < npairs; k++) {
            int ref = pairs[k].ref, lay = pairs[k].layer;
            char head[96];
            if (ref == V_HAND || ref == V_HAND_FENCES || ref == V_HAND_STAMPS)
                snprintf(head, sizeof head, "%s vs %s (%d driver queries%s)", variant_names[lay],
                         variant_names[ref], ref == V_HAND ? o.n_hand : o.n_hand - 1,
                         ref == V_HAND_FENCES ? ", 2 fences"
                         : ref == V_HAND_STAMPS ? ", 2 stamps" : "");
            else
                snprintf(head, sizeof head, "%s vs %s", variant_names[lay], variant_names[ref]);
            printf("  %s:\n", head);
            for (int bi = 0; bi < 3; bi++)
                printf("    %-9s %9.2f vs %9.2f us: ratio %.3f\n", batch_names[bi],
                       m[bi][lay] / 1e3, m[bi][ref] / 1e3, m[bi][lay] / m[bi][ref]);
        }
    }
    stubbed = 0;
    objects_free(&o);
    GLenum e = glt_error();
    if (e != GL_NO_ERROR)
        printf("   (GL error 0x%x after the runs)\n", e);
    glt_destroy(&T);
}

int main(int argc, char **argv)
{
    const char *paths = "query,fence,stamps";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0)
            counting = 1;
        else if (strcmp(argv[i], "--calls") == 0)
            calls_only = 1;
        else if (strcmp(argv[i], "--layer-only") == 0)
            layer_only = 1;
        else if (strcmp(argv[i], "--cpu") == 0)
            cpu_time = 1;
        else if (strcmp(argv[i], "--only=angle") == 0)
            want_intel = 0;
        else if (strcmp(argv[i], "--only=intel") == 0)
            want_angle = 0;
        else if (strncmp(argv[i], "--paths=", 8) == 0)
            paths = argv[i] + 8;
        else if (strncmp(argv[i], "--rounds=", 9) == 0)
            rounds = atoi(argv[i] + 9);
        else if (strncmp(argv[i], "--iterations=", 13) == 0)
            iterations = atoi(argv[i] + 13);
        else {
            fprintf(stderr, "usage: %s [--count|--calls] [--paths=query,fence,stamps] [--rounds=N] "
                    "[--iterations=N] [--layer-only] [--only=angle|intel] [--cpu]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || iterations < 64) {
        fprintf(stderr, "rounds 1..%d, iterations >= 64\n", MAX_ROUNDS);
        return 2;
    }
    if (counting || layer_only)
        install_counters();
    EGLDisplay dpy;
    int setup = glt_open_display(&dpy);
    if (setup != 0)
        return setup;
    printf("bench-gl-patterns: %d iterations per pattern, %d rounds%s\n", iterations, rounds,
           counting ? ", counting driver calls"
           : layer_only ? ", LAYER ONLY: the driver's query calls and the draw stubbed out" : "");
    char list[64];
    snprintf(list, sizeof list, "%s", paths);
    for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
        run_path(p);
    fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
    return 0;
}
