/*
 * GL layer benchmarks of issue 3, side by side in one process (llvmpipe here, NVIDIA on the GPU
 * machine). The layer's sources are compiled in, so that the driver's own functions
 * (perfq_gl_dispatch()) and the layer's wrappers can be called on the same work.
 *
 * (1) One GL_ANGLE_timer_query interval through perfq (glBeginQueryANGLE, a draw,
 *     glEndQueryANGLE, glGetQueryObjectui64vANGLE(QUERY_RESULT)) against the driver's own
 *     GL_TIME_ELAPSED query around the same draw (glBeginQuery, draw, glEndQuery,
 *     glGetQueryObjectui64v(QUERY_RESULT)), per iteration; also pipelined (16 queries issued,
 *     then read). Target: ratio <= 1.10.
 * (3) A wrapped glDrawArrays (the layer's, no query active) against the driver's glDrawArrays, on
 *     a one-triangle draw. Target: the layer adds under 5% of a draw on llvmpipe.
 * Alternating blocks; medians of the per-block means. No assertions: it prints ratios.
 * Usage: bench-gl-layer [--gles|--core] [blocks]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "gl/contexts/layer_internal.h"

#define MAX_BLOCKS 64

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

static struct glt T;
/* The work around each query: 8 small triangles, or (heavy) 4 full-viewport quads of shading,
 * a frame-sized amount of work. */
static int heavy;

static void work(void)
{
    if (heavy)
        glt_draw_quads(&T, 4, 40);
    else
        glt_draw_triangles(&T, 8);
}

/* The driver's GL_TIME_ELAPSED query: the real functions, not the layer's wrappers. */
static double block_driver(int iterations, int pipelined, GLuint *q)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    PFNGLGETQUERYOBJECTUI64VPROC get = T.kind == GLT_GLES3 ? real->glGetQueryObjectui64vEXT
                                                           : real->glGetQueryObjectui64v;
    uint64_t t0 = glt_now_ns();
    GLuint64 sum = 0;
    for (int i = 0; i < iterations; i++) {
        GLuint id = q[pipelined ? i % 16 : 0];
        real->glBeginQuery(GL_TIME_ELAPSED, id);
        work();
        real->glEndQuery(GL_TIME_ELAPSED);
        if (!pipelined || i % 16 == 15) {
            for (int k = pipelined ? 0 : 0; k < (pipelined ? 16 : 1); k++) {
                GLuint64 v = 0;
                get(q[k], GL_QUERY_RESULT, &v);
                sum += v;
            }
        }
    }
    (void)sum;
    return (double)(glt_now_ns() - t0) / iterations;
}

static double block_angle(int iterations, int pipelined, GLuint *q)
{
    uint64_t t0 = glt_now_ns();
    GLuint64 sum = 0;
    for (int i = 0; i < iterations; i++) {
        GLuint id = q[pipelined ? i % 16 : 0];
        gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, id);
        work();
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        if (!pipelined || i % 16 == 15) {
            for (int k = 0; k < (pipelined ? 16 : 1); k++) {
                GLuint64 v = 0;
                gl.glGetQueryObjectui64vANGLE(q[k], GL_QUERY_RESULT_ANGLE, &v);
                sum += v;
            }
        }
    }
    (void)sum;
    return (double)(glt_now_ns() - t0) / iterations;
}

static void bench_timer(int blocks, int pipelined)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    GLuint dq[16], aq[16];
    real->glGenQueries(16, dq);
    gl.glGenQueriesANGLE(16, aq);
    int iterations = heavy ? 16 : 64;
    double d[MAX_BLOCKS], a[MAX_BLOCKS];
    block_driver(16, pipelined, dq);    /* warm-up: llvmpipe's first query, shader compile */
    block_angle(16, pipelined, aq);
    for (int b = 0; b < blocks; b++) {
        if (b % 2) {
            d[b] = block_driver(iterations, pipelined, dq);
            a[b] = block_angle(iterations, pipelined, aq);
        } else {
            a[b] = block_angle(iterations, pipelined, aq);
            d[b] = block_driver(iterations, pipelined, dq);
        }
    }
    double md = median(d, blocks), ma = median(a, blocks);
    printf("(1) %s, %-9s driver GL_TIME_ELAPSED %8.1f us/query, perfq ANGLE %8.1f us/query"
           " (%s path): ratio %.3f (target <= 1.10)\n",
           heavy ? "frame-sized work" : "8 triangles     ", pipelined ? "pipelined" : "waited",
           md / 1e3, ma / 1e3,
           perfq_gl_timer_path(perfq_gl_current_context()) == PERFQ_GL_TIMER_FENCE ? "fence"
                                                                                   : "query",
           ma / md);
    real->glDeleteQueries(16, dq);
    gl.glDeleteQueriesANGLE(16, aq);
    glt_error();
}

static double block_draws(int draws, int wrapped)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    void (*draw)(GLenum, GLint, GLsizei) = wrapped ? gl.glDrawArrays : real->glDrawArrays;
    gl.glUniform1i(T.u_mode, 1);
    gl.glUniform1i(T.u_iters, 0);
    gl.glFinish();
    uint64_t t0 = glt_now_ns();
    for (int i = 0; i < draws; i++)
        draw(GL_TRIANGLES, 3 * (i % 64), 3);
    gl.glFinish();
    return (double)(glt_now_ns() - t0) / draws;
}

static void bench_draw(int blocks)
{
    int draws = 4000;
    double w[MAX_BLOCKS], r[MAX_BLOCKS];
    if (gl.glDrawArrays == perfq_gl_dispatch()->glDrawArrays) {
        printf("(3) glDrawArrays is not wrapped here\n");
        return;
    }
    block_draws(draws, 0);
    block_draws(draws, 1);
    for (int b = 0; b < blocks; b++) {
        if (b % 2) {
            r[b] = block_draws(draws, 0);
            w[b] = block_draws(draws, 1);
        } else {
            w[b] = block_draws(draws, 1);
            r[b] = block_draws(draws, 0);
        }
    }
    double mr = median(r, blocks), mw = median(w, blocks);
    printf("(3) draw call    driver glDrawArrays %8.1f ns/draw, wrapped by the layer %8.1f ns/draw:"
           " ratio %.4f, the layer adds %.2f%% (target < 5%%)\n", mr, mw, mw / mr,
           (mw - mr) / mr * 100.0);
}

int main(int argc, char **argv)
{
    enum glt_kind kind = glt_kind_from_args(argc, argv);
    int blocks = 15;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            blocks = atoi(argv[i]);
    if (blocks < 1 || blocks > MAX_BLOCKS)
        blocks = 15;
    EGLDisplay dpy;
    int setup = glt_open_display(&dpy);
    if (setup == 0)
        setup = glt_create(&T, dpy, kind, 64, 64);
    if (setup != 0)
        return setup;
    printf("bench-gl-layer: %s, %s | %s, %d blocks\n", glt_kind_name(kind),
           gl.glGetString(GL_RENDERER), gl.glGetString(GL_VERSION), blocks);
    if (perfq_gl_vquery_target_supported(perfq_gl_current_context(), GL_TIME_ELAPSED)) {
        for (heavy = 0; heavy < 2; heavy++) {
            bench_timer(blocks, 0);
            bench_timer(blocks, 1);
        }
    } else {
        printf("(1) no driver GL_TIME_ELAPSED in this context: nothing to compare\n");
    }
    bench_draw(blocks);
    glt_destroy(&T);
    return 0;
}
