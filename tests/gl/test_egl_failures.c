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

#include "gl_test.h"
#include "gl/gl_layer.h"

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

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    int rc = glt_open_display(&dpy);
    if (rc != 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_context_bad_display),
        cmocka_unit_test(test_make_current_fails_after_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
