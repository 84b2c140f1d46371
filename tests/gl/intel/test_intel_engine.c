/*
 * GL_INTEL_performance_query opens one perfq instance of the built-in providers per process,
 * shared by every GL context, and only its own GL counters per context (issue 7): a device-wide
 * source is set up once, not once per context.
 *
 * Runs against tests/nvidia/fake-nvml (first on LD_LIBRARY_PATH): the fake counts its
 * nvmlInit_v2 calls, and NVML is initialised when the first instance with the built-ins opens
 * and shut down when the last one closes. One instance per context would initialise it once
 * per context that comes after the previous one is gone; the process's instance does it once.
 * Several contexts on several threads then use the shared instance at once (also under TSan):
 * every query still gives the fake's known readings, and every context the same query ids.
 * EGL_BRCM_performance_counters and the program's own C API, in the same process, use the same
 * engine: NVML is still initialised once.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gl_test.h"
#include "perfq/egl_brcm_performance_counters.h"
#include "perfq/perfq.h"

#define SEQUENTIAL_CONTEXTS 3
#define THREADS 4
#define ROUNDS 3

static enum glt_kind kind;
static EGLDisplay dpy;
static const unsigned *nvml_inits;   /* the fake's count of nvmlInit_v2 calls */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The fake NVML the engine loads (same name, so the same object). */
static int setup(void **state)
{
    (void)state;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "FAIL: the test-only libnvidia-ml.so.1 is not on LD_LIBRARY_PATH\n");
        return -1;
    }
    nvml_inits = dlsym(h, "fake_nvml_init_calls");
    if (!nvml_inits) {
        fprintf(stderr, "FAIL: libnvidia-ml.so.1 is not tests/nvidia/fake-nvml\n");
        return -1;
    }
    return 0;
}

/* One query of each type the test uses, in the current context; 0 when all is as expected. */
struct result {
    GLuint host_cpu, nvidia;     /* the query ids this context gave */
    char why[256];
};

#define CHECK(r, cond)                                                                   \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (!(r)->why[0])                                                            \
                snprintf((r)->why, sizeof((r)->why), "%s:%d: %s", __FILE__, __LINE__,    \
                         #cond);                                                         \
            return -1;                                                                   \
        }                                                                                \
    } while (0)

static int one_query(struct glt *t, GLuint qid, struct result *r, double *power)
{
    GLuint size = 0;
    gl.glGetPerfQueryInfoINTEL(qid, 0, NULL, &size, NULL, NULL, NULL);
    CHECK(r, size > 0);
    unsigned char *data = calloc(1, size);
    CHECK(r, data != NULL);
    GLuint h = 0;
    gl.glCreatePerfQueryINTEL(qid, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(t, 16);
    sleep_ms(20);
    gl.glEndPerfQueryINTEL(h);
    GLuint written = glt_intel_result_wait(h, data, size);
    gl.glDeletePerfQueryINTEL(h);
    GLenum err = gl.glGetError();
    int i = power ? glt_intel_counter_index(qid, "nvml-gpu0/average-power") : -1;
    if (power && i >= 0) {
        GLuint off = 0, csize = 0;
        gl.glGetPerfCounterInfoINTEL(qid, (GLuint)i + 1, 0, NULL, 0, NULL, &off, &csize,
                                        NULL, NULL, NULL);
        memcpy(power, data + off, sizeof(*power));
    }
    free(data);
    CHECK(r, err == GL_NO_ERROR);
    CHECK(r, written == size);
    CHECK(r, !power || i >= 0);
    return 0;
}

/* The context current on this thread: its ids, one Host CPU and one NVIDIA Device query (the
 * fake's power is 100 W, so every mean is exactly that). */
static int use_context(struct glt *t, struct result *r)
{
    r->host_cpu = glt_intel_query_id("Host CPU");
    r->nvidia = glt_intel_query_id("NVIDIA Device");
    CHECK(r, r->host_cpu != 0);
    CHECK(r, r->nvidia != 0);
    double power = 0;
    if (one_query(t, r->host_cpu, r, NULL) != 0 || one_query(t, r->nvidia, r, &power) != 0)
        return -1;
    CHECK(r, fabs(power - 100.0) < 1e-6);
    return 0;
}

/* Contexts one after another, each gone before the next: NVML is initialised once. */
static void test_sequential_contexts_one_engine(void **state)
{
    (void)state;
    GLuint host_cpu = 0, nvidia = 0;
    for (int i = 0; i < SEQUENTIAL_CONTEXTS; i++) {
        struct glt t;
        assert_int_equal(glt_create(&t, dpy, kind, 64, 64), 0);
        assert_int_equal(glt_make_current(&t), 0);
        struct result r = {0};
        int rc = use_context(&t, &r);
        if (rc)
            fprintf(stderr, "context %d: %s\n", i, r.why);
        assert_int_equal(rc, 0);
        if (i == 0) {
            host_cpu = r.host_cpu;
            nvidia = r.nvidia;
        }
        /* Every context lists the same types in the same order. */
        assert_int_equal(r.host_cpu, host_cpu);
        assert_int_equal(r.nvidia, nvidia);
        glt_destroy(&t);
    }
    /* One instance per context would have initialised NVML once per context. */
    assert_int_equal(__atomic_load_n(nvml_inits, __ATOMIC_ACQUIRE), 1);
}

struct worker {
    struct glt t;
    pthread_barrier_t *barrier;
    struct result r[ROUNDS];
    int rc;
};

static void *run(void *arg)
{
    struct worker *w = arg;
    if (glt_make_current(&w->t) != 0) {
        snprintf(w->r[0].why, sizeof(w->r[0].why), "make current");
        w->rc = -1;
        pthread_barrier_wait(w->barrier);
        return NULL;
    }
    /* All threads reach their first INTEL call together: they race to the process instance. */
    pthread_barrier_wait(w->barrier);
    for (int i = 0; i < ROUNDS && w->rc == 0; i++)
        w->rc = use_context(&w->t, &w->r[i]);
    glt_release(&w->t);
    return NULL;
}

/* Several contexts on several threads at once share the one instance. */
static void test_threads_share_one_engine(void **state)
{
    (void)state;
    struct worker w[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, THREADS);
    memset(w, 0, sizeof(w));
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(glt_create(&w[i].t, dpy, kind, 64, 64), 0);
        glt_release(&w[i].t);   /* made current by its thread */
        w[i].barrier = &barrier;
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].rc)
            for (int k = 0; k < ROUNDS; k++)
                if (w[i].r[k].why[0])
                    fprintf(stderr, "thread %d round %d: %s\n", i, k, w[i].r[k].why);
        assert_int_equal(w[i].rc, 0);
        assert_int_equal(w[i].r[0].host_cpu, w[0].r[0].host_cpu);
        assert_int_equal(w[i].r[0].nvidia, w[0].r[0].nvidia);
        glt_destroy(&w[i].t);
    }
    assert_int_equal(__atomic_load_n(nvml_inits, __ATOMIC_ACQUIRE), 1);
}

/* EGL_BRCM_performance_counters shares the process's engine with INTEL: the engine was opened
 * by the tests above, before PERFQ_DISABLE named the NVIDIA group here, so BRCM (whose groups are
 * built at its first call, now) still lists it; an instance of BRCM's own, opened now, would
 * have it disabled and BRCM would leave it out. NVML is still initialised once. */
static void test_brcm_shares_the_engine(void **state)
{
    (void)state;
    struct glt_brcm brcm;
    glt_brcm_load(&brcm);
    assert_non_null(brcm.GetConstant);
    assert_non_null(brcm.GetGroupInfo);
    assert_int_equal(setenv("PERFQ_DISABLE", "nvml-gpu0", 1), 0);
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), nvidia = 0;
    for (EGLint g = 0; g < groups; g++) {
        char name[64] = "";
        EGLint n = 0, max_active = 0;
        assert_true(brcm.GetGroupInfo(g, sizeof(name), name, &n, &max_active));
        if (strcmp(name, "nvml-gpu0") == 0)
            nvidia = n;
    }
    unsetenv("PERFQ_DISABLE");
    assert_true(nvidia > 0);
    assert_int_equal(__atomic_load_n(nvml_inits, __ATOMIC_ACQUIRE), 1);
}

/* The program's own C API in the same process uses the same engine (the one libperfq.so the layer
 * links): its perfq_open() probes NVML and measures with it while the layer's instance keeps it
 * initialised, so nvmlInit_v2 is still called once; an engine of its own (a second copy) would
 * initialise NVML again. The reading is the fake's known 100 W. */
static void test_c_api_shares_the_engine(void **state)
{
    (void)state;
    perfq_t *pq = NULL;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id;
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/average-power", &id), PERFQ_OK);
    assert_int_equal(perfq_counter_info(pq, id, &ci), PERFQ_OK);
    assert_true(ci.available);
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    sleep_ms(30);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v;
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, &v, 1), PERFQ_OK);
    assert_int_equal(ci.storage, PERFQ_STORAGE_FLOAT64);
    assert_true(fabs(v.v.f64 - 100.0) < 1e-6);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
    assert_int_equal(__atomic_load_n(nvml_inits, __ATOMIC_ACQUIRE), 1);
}

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    int rc = glt_open_display(&dpy);
    if (rc != 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequential_contexts_one_engine),
        cmocka_unit_test(test_threads_share_one_engine),
        cmocka_unit_test(test_brcm_shares_the_engine),
        cmocka_unit_test(test_c_api_shares_the_engine),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
