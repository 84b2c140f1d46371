/*
 * GL_INTEL_performance_query: exact counts of known work, the result layout, GPU time against
 * the wall clock, CPU time against the thread's own CPU clock, and the three GetPerfQueryData
 * modes. Desktop GL and (--gles) GLES 3; "Pipeline Statistics" tests skip where the driver has
 * no pipeline statistics queries (GLES).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../gl_test.h"

#define W 128
#define H 96

static struct glt T;

static int clear_errors(void **state)
{
    (void)state;
    while (gl.glGetError() != GL_NO_ERROR)
        ;
    return 0;
}

/* "Pipeline Statistics" is listed wherever the driver has pipeline statistics queries; where
 * it has none (GLES 3) the test does not apply: that is asserted before the skip. */
static GLuint pipeline_or_skip(void)
{
    GLuint id = glt_intel_query_id("Pipeline Statistics");
    if (!id) {
        assert_false(glt_has_pipeline_statistics());
        skip();
    }
    return id;
}

#define C(data, name) glt_intel_counter_u64(ps, name, data)

/* N triangles: vertices 3N, primitives N (submitted, clipper input, generated), vertex shader
 * invocations 3N (glDrawArrays shares no vertices). */
static void test_triangles_exact(void **state)
{
    (void)state;
    GLuint ps = pipeline_or_skip(), h = 0, size = glt_intel_data_size(ps);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(ps, &h);
    for (int round = 0; round < 3; round++) {
        int n = 100 + 37 * round;
        gl.glBeginPerfQueryINTEL(h);
        glt_draw_triangles(&T, n);
        gl.glEndPerfQueryINTEL(h);
        assert_int_equal(glt_intel_result_wait(h, data, size), size);
        assert_int_equal(gl.glGetError(), GL_NO_ERROR);
        assert_int_equal(C(data, "Vertices Submitted"), 3 * n);
        assert_int_equal(C(data, "Primitives Submitted"), n);
        assert_int_equal(C(data, "Vertex Shader Invocations"), 3 * n);
        assert_int_equal(C(data, "Clipper Input Primitives"), n);
        assert_int_equal(C(data, "Clipper Output Primitives"), n);
        if (glt_intel_counter_index(ps, "Primitives Generated") >= 0)
            assert_int_equal(C(data, "Primitives Generated"), n);
        /* No geometry, tessellation or compute work was done. */
        if (glt_intel_counter_index(ps, "Geometry Shader Invocations") >= 0)
            assert_int_equal(C(data, "Geometry Shader Invocations"), 0);
        if (glt_intel_counter_index(ps, "Compute Shader Invocations") >= 0)
            assert_int_equal(C(data, "Compute Shader Invocations"), 0);
        if (glt_intel_counter_index(ps, "Split Occurred") >= 0)
            assert_int_equal(C(data, "Split Occurred"), 0);
    }
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

/* A full-viewport quad: samples passed = width x height (no depth or stencil test), and as
 * many fragment shader invocations. */
static void test_quad_samples_exact(void **state)
{
    (void)state;
    GLuint ps = pipeline_or_skip(), h = 0, size = glt_intel_data_size(ps);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(ps, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_quads(&T, 1, 0);
    gl.glEndPerfQueryINTEL(h);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    assert_int_equal(C(data, "Samples Passed"), W * H);
    assert_int_equal(C(data, "Vertices Submitted"), 6);
    assert_int_equal(C(data, "Primitives Submitted"), 2);
    fprintf(stderr, "quad: fragment shader invocations %llu (pixels %d)\n",
            (unsigned long long)C(data, "Fragment Shader Invocations"), W * H);
    assert_true(C(data, "Fragment Shader Invocations") >= (uint64_t)W * H);
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

/* The result is laid out exactly as GetPerfCounterInfo says: write the data into a buffer
 * filled with a pattern, then every byte outside the counters (padding) is 0 and each counter
 * read at its offset with its size gives the value. */
static void test_layout_matches_info(void **state)
{
    (void)state;
    GLuint ps = glt_intel_query_id("Pipeline Statistics");
    GLuint id = ps ? ps : glt_intel_query_id("Host CPU");
    GLuint size = glt_intel_data_size(id), count = 0, h = 0;
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, NULL, &count, NULL, NULL);
    uint8_t *data = malloc(size);
    uint8_t *covered = calloc(size, 1);
    memset(data, 0x5a, size);
    gl.glCreatePerfQueryINTEL(id, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(&T, 10);
    gl.glEndPerfQueryINTEL(h);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    for (GLuint c = 1; c <= count; c++) {
        GLuint off = 0, csize = 0, dtype = 0;
        gl.glGetPerfCounterInfoINTEL(id, c, 0, NULL, 0, NULL, &off, &csize, NULL, &dtype, NULL);
        memset(covered + off, 1, csize);
        if (dtype == GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL) {
            uint32_t v;
            memcpy(&v, data + off, 4);
            assert_true(v == 0 || v == 1);
        }
    }
    for (GLuint b = 0; b < size; b++)
        if (!covered[b])
            assert_int_equal(data[b], 0);
    if (ps)
        assert_int_equal(glt_intel_counter_u64(ps, "Vertices Submitted", data), 30);
    gl.glDeletePerfQueryINTEL(h);
    free(covered);
    free(data);
}

/* GPU time elapsed of GPU-bound work against the wall clock around it. The work (heavy
 * fragment shading) runs on the GPU between Begin and a glFinish after End, so the GPU time
 * cannot exceed the wall time from before Begin to after glFinish (plus the timer's
 * resolution), and GPU-bound work fills most of it: the stated tolerance is that the GPU time
 * is at least half of that wall time. */
static void test_gpu_time_vs_wall(void **state)
{
    (void)state;
    GLuint id = glt_intel_query_id("Pipeline Statistics");
    const char *counter = "GPU Time Elapsed";
    if (!id)
        id = glt_intel_query_id("GPU Time");
    /* The layer's GPU timer works in every context the harness makes (GL 3.3, GLES 3.0: the
     * fence path at least), so one of the two types is always there, with the counter. */
    assert_int_not_equal(id, 0);
    assert_true(glt_intel_counter_index(id, counter) >= 0);
    GLuint h = 0, size = glt_intel_data_size(id);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(id, &h);
    /* Warm up (shader compilation happens at the first draw on some drivers). */
    glt_draw_quads(&T, 1, 10);
    gl.glFinish();
    int quads = 1, iterations = 2000;
    uint64_t wall = 0, gpu = 0;
    int has_disjoint = glt_intel_counter_index(id, "GPU Time Disjoint") >= 0, redone = 0;
    int disjoint = 0;
    /* Grow the work until it takes at least 100 ms of wall time. A disjoint interval's time is
     * not guaranteed (a fence stamp that may be late on a loaded machine: docs/gl-layer.md), so
     * it is looked at first and measured again, at most 20 times; the bound is asserted on every
     * interval that is not disjoint. */
    for (int attempt = 0; attempt < 40; attempt++) {
        uint64_t t0 = glt_now_ns();
        gl.glBeginPerfQueryINTEL(h);
        for (int i = 0; i < quads; i++)
            glt_draw_quads(&T, 1, iterations);
        gl.glEndPerfQueryINTEL(h);
        gl.glFinish();
        wall = glt_now_ns() - t0;
        assert_int_equal(glt_intel_result_wait(h, data, size), size);
        gpu = glt_intel_counter_u64(id, counter, data);
        disjoint = has_disjoint && glt_intel_counter_u64(id, "GPU Time Disjoint", data) != 0;
        if (disjoint) {
            fprintf(stderr, "disjoint: GPU time %.3f ms, wall %.3f ms, measured again\n",
                    gpu / 1e6, wall / 1e6);
            if (redone++ < 20)
                continue;
            break;
        }
        if (gpu > wall + 1000000u)
            fprintf(stderr, "GPU time %.3f ms > wall %.3f ms + 1 ms (%d quads)\n", gpu / 1e6,
                    wall / 1e6, quads);
        assert_true(gpu <= wall + 1000000u);   /* + 1 ms: the fence path's wake-up resolution */
        /* Less than half the wall time: on a machine so loaded that llvmpipe's rasterizer
         * threads started the work late (a stamp point's begin is when they reached it: CI under
         * TSan, 210 ms of GPU time in 788 ms of wall), measured again, as a disjoint one. */
        if (wall >= 100000000u && gpu < wall / 2 && redone++ < 20) {
            fprintf(stderr, "GPU time %.3f ms < half the wall %.3f ms, measured again\n",
                    gpu / 1e6, wall / 1e6);
            continue;
        }
        if (wall >= 100000000u)
            break;
        quads *= 2;
    }
    fprintf(stderr, "GPU time %.3f ms, wall %.3f ms (%d quads of %d iterations, %dx%d), "
            "%d disjoint measured again\n", gpu / 1e6, wall / 1e6, quads, iterations, W, H, redone);
    /* 21 disjoint intervals: the layer could not time this work (a machine so loaded that
     * its helper thread, woken, waits for a CPU more than 1 ms every time). */
    assert_false(disjoint);
    assert_true(gpu <= wall + 1000000u);
    assert_true(gpu >= wall / 2);
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "CPU Time": process CPU time between Begin and End. The process includes this thread, so it
 * is at least this thread's CPU time over the same interval (exact), and at most the wall time
 * times the CPUs (exact too). */
static void test_cpu_time(void **state)
{
    (void)state;
    GLuint id = glt_intel_query_id("Host CPU"), h = 0, size = glt_intel_data_size(id);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(id, &h);
    volatile uint64_t sink = 0;
    uint64_t w0 = glt_now_ns();
    gl.glBeginPerfQueryINTEL(h);
    uint64_t c0 = thread_cpu_ns();
    while (thread_cpu_ns() - c0 < 30000000u)
        sink += 1;
    uint64_t c1 = thread_cpu_ns();
    gl.glEndPerfQueryINTEL(h);
    uint64_t w1 = glt_now_ns();
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    uint64_t cpu = glt_intel_counter_u64(id, "CPU Time", data);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(stderr, "CPU Time %.3f ms, this thread %.3f ms, wall %.3f ms\n", cpu / 1e6,
            (c1 - c0) / 1e6, (w1 - w0) / 1e6);
    assert_true(cpu >= c1 - c0);
    assert_true(cpu <= (w1 - w0) * (uint64_t)(cpus > 0 ? cpus : 1));
    (void)sink;
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

/* A thread that exists before anything of perfq does: it waits, burns BURN_NS of its own CPU
 * time when told, says how much it burned, and waits to be told to exit. */
#define BURN_NS 60000000u
struct burner {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                   /* 0 wait, 1 burn, 2 burned, 3 exit */
    uint64_t burned;
};

static void burner_set(struct burner *b, int state)
{
    pthread_mutex_lock(&b->mu);
    b->state = state;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void burner_wait(struct burner *b, int state)
{
    pthread_mutex_lock(&b->mu);
    while (b->state != state)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

static void *burner_main(void *arg)
{
    struct burner *b = arg;
    burner_wait(b, 1);
    volatile uint64_t sink = 0;
    uint64_t c0 = thread_cpu_ns();
    while (thread_cpu_ns() - c0 < BURN_NS)
        sink += 1;
    b->burned = thread_cpu_ns() - c0;
    (void)sink;
    burner_set(b, 2);
    burner_wait(b, 3);
    return NULL;
}

/* Issue 14 item 8: "Host CPU" is a GLOBAL_CONTEXT type; its perf counters (groups host,
 * host-hw) count the process, also a thread that existed before the context and its first
 * instance. The thread burns its CPU strictly between Begin and End while this thread sleeps.
 * perf's task clock and the thread's CPU clock are two accountings that differ under load
 * (seen 8% apart), so the bound is half of what was burned: far above the calling thread's own
 * CPU time, which is what was counted before (0.1 ms), far below the ~60 ms counted now. */
static void test_host_counters_count_existing_threads(void **state)
{
    (void)state;
    static struct burner b;   /* static: a failed assertion leaves the thread waiting on it */
    b.state = 0;
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, burner_main, &b), 0);
    struct glt fresh;
    assert_int_equal(glt_create(&fresh, T.dpy, T.kind, 8, 8), 0);
    assert_int_equal(glt_make_current(&fresh), 0);
    GLuint id = glt_intel_query_id("Host CPU"), h = 0, size = 0;
    assert_int_not_equal(id, 0);
    /* task-clock is a software perf event: there wherever perf_event_open is allowed. Under
     * no-perf-event (PERFQ_TEST_PERF_REFUSED, tests/no_perf_event.c) it is not offered, and
     * "CPU Time" (the process's clock) still counts the thread. */
    int refused = getenv("PERFQ_TEST_PERF_REFUSED") != NULL;
    assert_true(refused ? glt_intel_counter_index(id, "host/task-clock") < 0
                        : glt_intel_counter_index(id, "host/task-clock") >= 0);
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, &size, NULL, NULL, NULL);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(id, &h);
    gl.glBeginPerfQueryINTEL(h);
    burner_set(&b, 1);
    burner_wait(&b, 2);
    gl.glEndPerfQueryINTEL(h);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    uint64_t task = refused ? 0 : glt_intel_counter_u64(id, "host/task-clock", data);
    uint64_t cpu = glt_intel_counter_u64(id, "CPU Time", data);
    fprintf(stderr, "thread started before the context burned %.3f ms; host/task-clock "
            "%.3f ms, CPU Time %.3f ms\n", b.burned / 1e6, task / 1e6, cpu / 1e6);
    if (!refused)
        assert_true(task >= b.burned / 2);
    assert_true(cpu >= b.burned);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    gl.glDeletePerfQueryINTEL(h);
    burner_set(&b, 3);
    pthread_join(th, NULL);
    free(data);
    glt_destroy(&fresh);
    assert_int_equal(glt_make_current(&T), 0);
}

/* DONOT_FLUSH polls: bytesWritten is 0 (and data untouched) while pending, the whole result
 * once ready; FLUSH flushes then polls; WAIT blocks and returns the whole result. A result read
 * again is the same. */
static void test_data_modes(void **state)
{
    (void)state;
    GLuint id = glt_intel_query_id("Pipeline Statistics");
    if (!id)
        id = glt_intel_query_id("GPU Time");
    assert_int_not_equal(id, 0);   /* "GPU Time" is in every context (the timer works) */
    GLuint h = 0, size = glt_intel_data_size(id), written = 1234;
    uint8_t *data = malloc(size), *again = malloc(size);
    gl.glCreatePerfQueryINTEL(id, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_quads(&T, 1, 500);
    gl.glEndPerfQueryINTEL(h);
    memset(data, 0xee, size);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_FLUSH_INTEL, (GLsizei)size, data, &written);
    int polls = 0, pending_seen = 0;
    while (written == 0 && polls < 10000000) {
        for (GLuint b = 0; b < size; b++)
            assert_int_equal(data[b], 0xee);
        pending_seen = 1;
        gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_DONOT_FLUSH_INTEL, (GLsizei)size, data,
                                   &written);
        polls++;
    }
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_int_equal(written, size);
    fprintf(stderr, "DONOT_FLUSH polls until ready: %d (pending seen: %d)\n", polls,
            pending_seen);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_DONOT_FLUSH_INTEL, (GLsizei)size, again,
                               &written);
    assert_int_equal(written, size);
    assert_memory_equal(data, again, size);
    /* WAIT right after End. */
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_quads(&T, 1, 500);
    gl.glEndPerfQueryINTEL(h);
    written = 0;
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data, &written);
    assert_int_equal(written, size);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    gl.glDeletePerfQueryINTEL(h);
    free(data);
    free(again);
}

/* A query begun again counts only its new interval. */
static void test_rebegin_restarts(void **state)
{
    (void)state;
    GLuint ps = pipeline_or_skip(), h = 0, size = glt_intel_data_size(ps);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(ps, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(&T, 50);
    gl.glEndPerfQueryINTEL(h);
    /* Begin again without reading the first result. */
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(&T, 7);
    gl.glEndPerfQueryINTEL(h);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    assert_int_equal(C(data, "Primitives Submitted"), 7);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

/* INTEL spec 4.4: "it is guaranteed that collecting of performance counters will start before
 * any draw calls specified in the same context after call to BeginPerfQueryINTEL()" and "results
 * [of] any draw calls specified in the same context after call to EndPerfQueryINTEL() will be
 * not measured by this query": draws before Begin and after End (issued before the result is
 * read, so still in flight with it) are not counted, those between are, exactly. */
static void test_draws_outside_not_counted(void **state)
{
    (void)state;
    GLuint ps = pipeline_or_skip(), h = 0, size = glt_intel_data_size(ps);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(ps, &h);
    glt_draw_triangles(&T, 40);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(&T, 11);
    gl.glEndPerfQueryINTEL(h);
    glt_draw_triangles(&T, 23);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_int_equal(C(data, "Primitives Submitted"), 11);
    assert_int_equal(C(data, "Vertices Submitted"), 33);
    gl.glDeletePerfQueryINTEL(h);
    free(data);
}

int main(int argc, char **argv)
{
    int r = glt_create_from_args(&T, argc, argv, W, H);
    if (r != 0)
        return r;
    fprintf(stderr, "renderer: %s (%s)\n", T.renderer, glt_kind_name(T.kind));
#define TEST(f) cmocka_unit_test_setup(f, clear_errors)
    const struct CMUnitTest tests[] = {
        TEST(test_triangles_exact),
        TEST(test_quad_samples_exact),
        TEST(test_layout_matches_info),
        TEST(test_gpu_time_vs_wall),
        TEST(test_cpu_time),
        TEST(test_host_counters_count_existing_threads),
        TEST(test_data_modes),
        TEST(test_rebegin_restarts),
        TEST(test_draws_outside_not_counted),
    };
    int failed = cmocka_run_group_tests_name(T.kind == GLT_GLES3 ? "intel-counts-gles" : "intel-counts",
                                             tests, NULL, NULL);
    glt_destroy(&T);
    return failed;
}
