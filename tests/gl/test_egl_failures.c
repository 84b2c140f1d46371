/*
 * Issue 14 item 4: the layer acts on what the driver did, not on what was asked.
 * - eglDestroyContext that fails (EGL_BAD_DISPLAY) leaves the context and the layer's state for
 *   it as they were: its GL_ANGLE_timer_query names stay valid and readable.
 * - eglMakeCurrent that fails after the program destroyed its current context leaves that
 *   context current (EGL 1.5 3.7.3: on failure the current context is unchanged), and the
 *   layer's extensions keep working in it: no silent no-ops.
 * Runs on a compatibility context, or --core / --gles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "gl/gl_layer.h"
#include "perfq/angle_timer_query.h"

static EGLDisplay dpy;
static enum glt_kind kind;

static GLuint64 timed_query(GLuint q)
{
    gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, q);
    gl.glClear(GL_COLOR_BUFFER_BIT);
    gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
    GLuint64 ns = 0;
    gl.glGetQueryObjectui64vANGLE(q, GL_QUERY_RESULT_ANGLE, &ns);
    return ns;
}

static void test_destroy_context_bad_display(void **state)
{
    (void)state;
    struct glt a, b;
    assert_int_equal(glt_create(&a, dpy, kind, 32, 32), 0);
    assert_int_equal(glt_create(&b, dpy, kind, 32, 32), 0);   /* b current */
    GLuint q = 0;
    gl.glGenQueriesANGLE(1, &q);
    (void)timed_query(q);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a.ctx));
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    /* b is current nowhere: the layer used to finalise it before the driver's call. */
    assert_false(eglDestroyContext((EGLDisplay)(uintptr_t)0x1234, b.ctx));
    assert_int_equal(eglGetError(), EGL_BAD_DISPLAY);
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before.contexts);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b.ctx));
    assert_true(gl.glIsQueryANGLE(q));
    GLuint64 ns = 0;
    gl.glGetQueryObjectui64vANGLE(q, GL_QUERY_RESULT_ANGLE, &ns);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(timed_query(q) > 0);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glDeleteQueriesANGLE(1, &q);
    glt_destroy(&b);
    glt_destroy(&a);
}

static void test_make_current_fails_after_destroy(void **state)
{
    (void)state;
    struct glt a, b;
    assert_int_equal(glt_create(&b, dpy, kind, 32, 32), 0);
    assert_int_equal(glt_create(&a, dpy, kind, 32, 32), 0);   /* a current */
    GLuint q = 0;
    gl.glGenQueriesANGLE(1, &q);
    (void)timed_query(q);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    /* Destroyed while current: EGL keeps it alive until it is released. */
    assert_true(eglDestroyContext(dpy, a.ctx));
    EGLSurface bogus = (EGLSurface)(uintptr_t)0x1234;
    assert_false(eglMakeCurrent(dpy, bogus, bogus, b.ctx));
    assert_int_equal(eglGetError(), EGL_BAD_SURFACE);
    assert_true(eglGetCurrentContext() == a.ctx);
    /* Still current, so still the layer's: the extension works, the name is still there. */
    assert_true(glt_has_extension("GL_ANGLE_timer_query"));
    assert_true(gl.glIsQueryANGLE(q));
    assert_true(timed_query(q) > 0);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before.contexts);
    /* Released: now it goes, with the layer's state. */
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b.ctx));
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before.contexts - 1);
    a.ctx = EGL_NO_CONTEXT;     /* destroyed */
    glt_destroy(&b);
}

/* EGL 1.5 3.1: "eglGetError returns the error of the last called EGL function in the current
 * thread". GL calls are no EGL functions: the EGL calls the layer makes inside them (the fence
 * timer's eglCreateSyncKHR, eglClientWaitSyncKHR, eglDestroySyncKHR on llvmpipe) must leave the
 * program's pending EGL error as it was. */
static void test_gl_calls_keep_the_egl_error(void **state)
{
    (void)state;
    struct glt a;
    assert_int_equal(glt_create(&a, dpy, kind, 32, 32), 0);
    GLuint q[2] = {0, 0};
    gl.glGenQueriesANGLE(2, q);
    GLuint id = glt_intel_query_id("GPU Time"), h = 0;
    assert_int_not_equal(id, 0);
    gl.glCreatePerfQueryINTEL(id, &h);
    GLuint size = glt_intel_data_size(id);
    void *data = malloc(size);
    assert_non_null(data);
    for (int round = 0; round < 3; round++) {
        EGLSurface bogus = (EGLSurface)(uintptr_t)0x1234;
        assert_false(eglMakeCurrent(dpy, bogus, bogus, a.ctx));   /* EGL_BAD_SURFACE pending */
        gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, q[0]);
        gl.glBeginPerfQueryINTEL(h);
        glt_draw_quads(&a, 1, 0);
        gl.glEndPerfQueryINTEL(h);
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        gl.glQueryCounterANGLE(q[1], GL_TIMESTAMP_ANGLE);
        GLuint64 ns = 0;
        gl.glGetQueryObjectui64vANGLE(q[0], GL_QUERY_RESULT_ANGLE, &ns);
        gl.glGetQueryObjectui64vANGLE(q[1], GL_QUERY_RESULT_ANGLE, &ns);
        assert_int_equal(glt_intel_result_wait(h, data, size), size);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        assert_int_equal(eglGetError(), EGL_BAD_SURFACE);
        assert_int_equal(eglGetError(), EGL_SUCCESS);
    }
    free(data);
    gl.glDeletePerfQueryINTEL(h);
    gl.glDeleteQueriesANGLE(2, q);
    glt_destroy(&a);
}

/* Another display than the tests' own (eglTerminate of that one would end every context of the
 * process): Mesa's surfaceless one, or else the first EGL device's. */
/* In the current context, something of every extension left in flight: an instance of every
 * GL_INTEL_performance_query type active (and one ended, unread), a GL_ANGLE_timer_query
 * TIME_ELAPSED query active and a timestamp pending, the program's own ANY_SAMPLES_PASSED query
 * active while the layer's queries run beside it, a GL_NV_query_resource_tag tag current with a
 * tagged buffer. */
struct in_flight {
    GLuint gpu_time_type, gpu_time;     /* an active "GPU Time" instance */
    GLuint angle_elapsed;               /* the active TIME_ELAPSED query */
    GLuint program_query;               /* the program's active ANY_SAMPLES_PASSED query */
};

static void start_every_query(struct glt *t, struct in_flight *f)
{
    GLuint first = 0, n = 0;
    gl.glGetFirstPerfQueryIdINTEL(&first);
    for (GLuint q = first; q; gl.glGetNextPerfQueryIdINTEL(q, &q))
        n++;
    assert_true(n > 0);
    GLuint prog = 0;
    gl.glGenQueries(1, &prog);
    gl.glBeginQuery(GL_ANY_SAMPLES_PASSED, prog);
    for (GLuint q = 1; q <= n; q++) {
        GLuint active = 0, ended = 0;
        gl.glCreatePerfQueryINTEL(q, &active);
        gl.glCreatePerfQueryINTEL(q, &ended);
        gl.glBeginPerfQueryINTEL(ended);
        gl.glBeginPerfQueryINTEL(active);
        glt_draw_quads(t, 1, 0);
        gl.glEndPerfQueryINTEL(ended);
        char name[64] = "";
        gl.glGetPerfQueryInfoINTEL(q, sizeof name, name, NULL, NULL, NULL, NULL);
        if (strcmp(name, "GPU Time") == 0) {
            f->gpu_time_type = q;
            f->gpu_time = active;
        }
    }
    assert_int_not_equal(f->gpu_time, 0);
    f->program_query = prog;
    GLuint angle[2] = {0, 0};
    gl.glGenQueriesANGLE(2, angle);
    gl.glQueryCounterANGLE(angle[1], GL_TIMESTAMP_ANGLE);
    gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, angle[0]);
    f->angle_elapsed = angle[0];
    glt_draw_quads(t, 1, 0);
    PFNGLGENQUERYRESOURCETAGNVPROC gen_tag =
        (PFNGLGENQUERYRESOURCETAGNVPROC)eglGetProcAddress("glGenQueryResourceTagNV");
    PFNGLQUERYRESOURCETAGNVPROC tag =
        (PFNGLQUERYRESOURCETAGNVPROC)eglGetProcAddress("glQueryResourceTagNV");
    assert_non_null(gen_tag);
    assert_non_null(tag);
    GLint tag_id = 0;
    GLuint buf = 0;
    gen_tag(1, &tag_id);
    assert_true(tag_id > 0);
    tag(tag_id, "in flight");
    gl.glGenBuffers(1, &buf);
    gl.glBindBuffer(GL_ARRAY_BUFFER, buf);
    gl.glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STATIC_DRAW);
    gl.glBindBuffer(GL_ARRAY_BUFFER, 0);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

static void assert_layer_back_to(const struct perfq_gl_layer_stats *before)
{
    struct perfq_gl_layer_stats after;
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before->contexts);
    assert_int_equal(after.vqueries, before->vqueries);
    assert_int_equal(after.timers, before->timers);
    assert_int_equal(after.segments, before->segments);
    assert_int_equal(after.program_records, before->program_records);
    assert_int_equal(after.frontend_objects, before->frontend_objects);
    assert_int_equal(after.vquery_links, before->vquery_links);
}

/* A context lost to the program with queries of every extension in flight: its display
 * terminated (EGL 1.5 3.2: its contexts are destroyed once no thread has them current), once
 * while the context is current nowhere and once while it is current here. Neither the layer nor
 * the program crashes, the layer's objects for that context go with it, the tests' own context
 * is undisturbed, and the display initialised again gives a context where every extension works
 * from the start. */
static void terminate_with_queries_active(int current_at_terminate)
{
    struct perfq_gl_layer_stats before;
    EGLDisplay other = glt_other_display(dpy);
    assert_ptr_not_equal(other, EGL_NO_DISPLAY);
    assert_true(eglInitialize(other, NULL, NULL));
    perfq_gl_layer_stats(&before);
    struct glt c;
    struct in_flight f = {0};
    assert_int_equal(glt_create(&c, other, kind, 32, 32), 0);
    start_every_query(&c, &f);
    if (!current_at_terminate)
        glt_release(&c);
    assert_true(eglTerminate(other));
    if (current_at_terminate) {
        /* Still current, so still usable until released (EGL 1.5 3.2). The program's own query
         * is the driver's. On the fence path (PERFQ_GL_TIMER=fence: the egl-failures-*-fence
         * tests) the layer's intervals lost their clock with the display's EGL syncs: they end
         * without an error and read as disjoint, no time invented (before: End raised
         * GL_OUT_OF_MEMORY, from a failed eglCreateSyncKHR). llvmpipe's default, stamp points,
         * are GL queries of the context: they keep their clock, and the interval its time. */
        const char *forced = getenv("PERFQ_GL_TIMER");
        int fence = forced && strcmp(forced, "fence") == 0;
        gl.glEndQuery(GL_ANY_SAMPLES_PASSED);
        GLuint any = 7;
        gl.glGetQueryObjectuiv(f.program_query, GL_QUERY_RESULT, &any);
        assert_int_equal(any, 1);
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        GLuint64 ns = 1;
        gl.glGetQueryObjectui64vANGLE(f.angle_elapsed, GL_QUERY_RESULT_ANGLE, &ns);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        GLint disjoint = 0;
        gl.glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
        printf("# after eglTerminate: elapsed %llu ns, GPU_DISJOINT %d\n",
               (unsigned long long)ns, disjoint);
        if (fence)
            assert_true(ns == 0 || disjoint);
        else
            assert_int_equal(disjoint, 0);
        gl.glEndPerfQueryINTEL(f.gpu_time);
        GLuint size = glt_intel_data_size(f.gpu_time_type);
        void *data = malloc(size);
        assert_int_equal(glt_intel_result_wait(f.gpu_time, data, size), size);
        if (glt_intel_counter_index(f.gpu_time_type, "GPU Time Disjoint") >= 0)
            assert_int_equal(glt_intel_counter_u64(f.gpu_time_type, "GPU Time Disjoint", data),
                             fence ? 1 : 0);
        free(data);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        /* No EGL call of the layer's on this thread since eglTerminate: its EGL_SUCCESS is what
         * the program reads (an eglCreateSyncKHR on the terminated display left
         * EGL_NOT_INITIALIZED). */
        assert_int_equal(eglGetError(), EGL_SUCCESS);
        /* Released on the terminated display: Mesa allows it; the NVIDIA driver (580, H200)
         * refuses it with EGL_NOT_INITIALIZED, bare as under the layer, and releases the
         * thread's context at eglReleaseThread (EGL 1.5 3.11), which a program then calls. */
        if (!eglMakeCurrent(other, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT)) {
            EGLint error = eglGetError();
            if (error != EGL_NOT_INITIALIZED)
                fail_msg("eglMakeCurrent(other, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT) "
                         "on the terminated display: EGL error 0x%x", error);
            assert_true(eglReleaseThread());
        }
        assert_ptr_equal(eglGetCurrentContext(), EGL_NO_CONTEXT);
    }
    assert_layer_back_to(&before);
    /* Initialised again: a new context where the extensions work. */
    assert_true(eglInitialize(other, NULL, NULL));
    struct glt d;
    assert_int_equal(glt_create(&d, other, kind, 32, 32), 0);
    GLuint h = 0, id = glt_intel_query_id("GPU Time");
    assert_int_not_equal(id, 0);
    gl.glCreatePerfQueryINTEL(id, &h);
    assert_int_equal(h, 1);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_quads(&d, 1, 0);
    gl.glEndPerfQueryINTEL(h);
    GLuint size = glt_intel_data_size(id);
    void *data = malloc(size);
    assert_int_equal(glt_intel_result_wait(h, data, size), size);
    free(data);
    gl.glDeletePerfQueryINTEL(h);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    glt_destroy(&d);
    assert_true(eglTerminate(other));
    assert_layer_back_to(&before);
}

static void test_terminate_display_queries_active_not_current(void **state)
{
    (void)state;
    terminate_with_queries_active(0);
}

static void test_terminate_display_queries_active_current(void **state)
{
    (void)state;
    terminate_with_queries_active(1);
}

/* The same in-flight set, its context destroyed by eglDestroyContext: while current (destroyed
 * when released) and while current nowhere. */
static void destroy_with_queries_active(int current_at_destroy)
{
    struct perfq_gl_layer_stats before;
    perfq_gl_layer_stats(&before);
    struct glt c;
    struct in_flight f = {0};
    assert_int_equal(glt_create(&c, dpy, kind, 32, 32), 0);
    start_every_query(&c, &f);
    if (!current_at_destroy)
        glt_release(&c);
    assert_true(eglDestroyContext(dpy, c.ctx));
    if (current_at_destroy)
        glt_release(&c);
    assert_layer_back_to(&before);
}

static void test_destroy_context_queries_active_not_current(void **state)
{
    (void)state;
    destroy_with_queries_active(0);
}

static void test_destroy_context_queries_active_current(void **state)
{
    (void)state;
    destroy_with_queries_active(1);
}

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    int rc = glt_open_display(&dpy);
    if (rc != 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_context_bad_display),
        cmocka_unit_test(test_make_current_fails_after_destroy),
        cmocka_unit_test(test_gl_calls_keep_the_egl_error),
        cmocka_unit_test(test_destroy_context_queries_active_not_current),
        cmocka_unit_test(test_destroy_context_queries_active_current),
        cmocka_unit_test(test_terminate_display_queries_active_not_current),
        cmocka_unit_test(test_terminate_display_queries_active_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
