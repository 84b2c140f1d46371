/*
 * GL_INTEL_performance_query in two contexts on two threads at once: each context has its own
 * query objects and counts only its own work (exact where "Pipeline Statistics" exists), and
 * handles of one context mean nothing in the other.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../gl_test.h"

#define ROUNDS 60

static enum glt_kind kind;
static EGLDisplay dpy;

struct worker {
    struct glt t;
    int triangles;
    int failures;
    char why[256];
    GLuint handle;               /* a handle created in this context, for the cross check */
    pthread_barrier_t *barrier;
    struct worker *other;
};

#define CHECK(w, cond)                                                                  \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            if (!(w)->failures++)                                                       \
                snprintf((w)->why, sizeof((w)->why), "%s:%d: %s", __FILE__, __LINE__, #cond); \
        }                                                                               \
    } while (0)

static void *run(void *arg)
{
    struct worker *w = arg;
    struct glt *t = &w->t;
    if (glt_make_current(t) != 0) {
        CHECK(w, !"make current");
        pthread_barrier_wait(w->barrier);
        pthread_barrier_wait(w->barrier);
        return NULL;
    }
    GLuint ps = glt_intel_query_id("Pipeline Statistics");
    GLuint id = ps ? ps : glt_intel_query_id("Host CPU");
    GLuint size = 0;
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, &size, NULL, NULL, NULL);
    uint8_t *data = malloc(size);
    for (int r = 0; r < ROUNDS; r++) {
        GLuint h = 0;
        gl.glCreatePerfQueryINTEL(id, &h);
        gl.glBeginPerfQueryINTEL(h);
        glt_draw_triangles(t, w->triangles);
        gl.glEndPerfQueryINTEL(h);
        CHECK(w, glt_intel_result_wait(h, data, size) == size);
        if (ps) {
            CHECK(w, glt_intel_counter_u64(ps, "Primitives Submitted", data) ==
                         (uint64_t)w->triangles);
            CHECK(w, glt_intel_counter_u64(ps, "Vertices Submitted", data) ==
                         3u * (uint64_t)w->triangles);
        }
        gl.glDeletePerfQueryINTEL(h);
        CHECK(w, gl.glGetError() == GL_NO_ERROR);
    }
    /* Handles are per context: worker 1 holds handles 1..5, worker 0 only 1; handle 5 of
     * worker 1's context is no query in worker 0's. */
    GLuint held[5] = {0};
    int n_held = w->triangles == 10 ? 1 : 5;
    for (int i = 0; i < n_held; i++)
        gl.glCreatePerfQueryINTEL(id, &held[i]);
    w->handle = held[n_held - 1];
    CHECK(w, w->handle == (GLuint)n_held);
    pthread_barrier_wait(w->barrier);
    if (w->triangles == 10) {
        gl.glBeginPerfQueryINTEL(w->other->handle);
        CHECK(w, gl.glGetError() == GL_INVALID_VALUE);
    }
    pthread_barrier_wait(w->barrier);
    for (int i = 0; i < n_held; i++)
        gl.glDeletePerfQueryINTEL(held[i]);
    CHECK(w, gl.glGetError() == GL_NO_ERROR);
    free(data);
    glt_release(t);
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    struct worker w[2];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    memset(w, 0, sizeof(w));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(glt_create(&w[i].t, dpy, kind, 64, 64), 0);
        glt_release(&w[i].t);   /* made current by its thread */
        w[i].triangles = i ? 17 : 10;
        w[i].barrier = &barrier;
        w[i].other = &w[1 - i];
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        if (w[i].failures)
            fail_msg("worker %d: %d failures, first: %s", i, w[i].failures, w[i].why);
        glt_destroy(&w[i].t);
    }
    pthread_barrier_destroy(&barrier);
}

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    struct glt probe;
    int r = glt_open_display(&dpy);
    if (r == 0)
        r = glt_create(&probe, dpy, kind, 8, 8);
    if (r != 0)
        return r;
    glt_destroy(&probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests_name(kind == GLT_GLES3 ? "intel-threads-gles" : "intel-threads",
                                       tests, NULL, NULL);
}
