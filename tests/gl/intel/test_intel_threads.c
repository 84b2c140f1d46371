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

#include "intel_test.h"

#define ROUNDS 60

static int want_gles;

struct worker {
    struct gltest t;
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
    struct gltest *t = &w->t;
    if (gltest_make_current(t) != 0) {
        CHECK(w, !"make current");
        pthread_barrier_wait(w->barrier);
        pthread_barrier_wait(w->barrier);
        return NULL;
    }
    GLuint ps = gltest_query_id(t, "Pipeline Statistics");
    GLuint id = ps ? ps : gltest_query_id(t, "Host CPU");
    GLuint size = 0;
    t->gl.glGetPerfQueryInfoINTEL(id, 0, NULL, &size, NULL, NULL, NULL);
    uint8_t *data = malloc(size);
    for (int r = 0; r < ROUNDS; r++) {
        GLuint h = 0;
        t->gl.glCreatePerfQueryINTEL(id, &h);
        t->gl.glBeginPerfQueryINTEL(h);
        gltest_draw_triangles(t, w->triangles, 0);
        t->gl.glEndPerfQueryINTEL(h);
        CHECK(w, gltest_result_wait(t, h, data, size) == size);
        if (ps) {
            CHECK(w, gltest_counter_u64(t, ps, "Primitives Submitted", data) ==
                         (uint64_t)w->triangles);
            CHECK(w, gltest_counter_u64(t, ps, "Vertices Submitted", data) ==
                         3u * (uint64_t)w->triangles);
        }
        t->gl.glDeletePerfQueryINTEL(h);
        CHECK(w, t->gl.glGetError() == GL_NO_ERROR);
    }
    /* Handles are per context: worker 1 holds handles 1..5, worker 0 only 1; handle 5 of
     * worker 1's context is no query in worker 0's. */
    GLuint held[5] = {0};
    int n_held = w->triangles == 10 ? 1 : 5;
    for (int i = 0; i < n_held; i++)
        t->gl.glCreatePerfQueryINTEL(id, &held[i]);
    w->handle = held[n_held - 1];
    CHECK(w, w->handle == (GLuint)n_held);
    pthread_barrier_wait(w->barrier);
    if (w->triangles == 10) {
        t->gl.glBeginPerfQueryINTEL(w->other->handle);
        CHECK(w, t->gl.glGetError() == GL_INVALID_VALUE);
    }
    pthread_barrier_wait(w->barrier);
    for (int i = 0; i < n_held; i++)
        t->gl.glDeletePerfQueryINTEL(held[i]);
    CHECK(w, t->gl.glGetError() == GL_NO_ERROR);
    free(data);
    gltest_release(t);
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
        int r = gltest_create(&w[i].t, want_gles, 64, 64);
        if (r == INTEL_TEST_SKIP)
            skip();
        assert_int_equal(r, 0);
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
        gltest_destroy(&w[i].t);
    }
    pthread_barrier_destroy(&barrier);
}

int main(int argc, char **argv)
{
    want_gles = gltest_want_gles(argc, argv);
    struct gltest probe;
    int r = gltest_create(&probe, want_gles, 8, 8);
    if (r != 0)
        return r;
    gltest_destroy(&probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests_name(want_gles ? "intel-threads-gles" : "intel-threads",
                                       tests, NULL, NULL);
}
