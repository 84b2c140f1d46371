/*
 * GL_INTEL_performance_query in an unmodified program: this program links libEGL only (not the
 * layer) and gets every GL function through eglGetProcAddress; meson runs it with
 * LD_PRELOAD=libperfq-gl.so, as `perfq run` does. It must see the extension, walk the query
 * types the way RenderDoc does (First/Next until 0, buffers sized from the *_LENGTH_MAX_INTEL
 * limits, flags 0 and WAIT), and get exact counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "intel_test.h"

static struct gltest T;
#define GL (T.gl)

static void test_extension_and_walk(void **state)
{
    (void)state;
    assert_true(gltest_has_extension(&T, "GL_INTEL_performance_query"));
    GLint name_max = 0, counter_max = 0, desc_max = 0;
    GL.glGetIntegerv(GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL, &name_max);
    GL.glGetIntegerv(GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL, &counter_max);
    GL.glGetIntegerv(GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL, &desc_max);
    assert_int_equal(name_max, 256);
    assert_int_equal(counter_max, 256);
    assert_int_equal(desc_max, 1024);
    char *name = malloc((size_t)name_max), *cname = malloc((size_t)counter_max);
    char *desc = malloc((size_t)desc_max);
    int types = 0, host = 0;
    GLuint id = 0;
    for (GL.glGetFirstPerfQueryIdINTEL(&id); id; GL.glGetNextPerfQueryIdINTEL(id, &id)) {
        GLuint size = 0, counters = 0, instances = 0, caps = 0;
        GL.glGetPerfQueryInfoINTEL(id, (GLuint)name_max, name, &size, &counters, &instances,
                                   &caps);
        fprintf(stderr, "query %u \"%s\": %u counters, %u bytes, caps %u\n", id, name, counters,
                size, caps);
        host |= strcmp(name, "Host CPU") == 0;
        for (GLuint c = 1; c <= counters; c++) {
            GLuint off, csize, type, dtype;
            GLuint64 max;
            GL.glGetPerfCounterInfoINTEL(id, c, (GLuint)counter_max, cname, (GLuint)desc_max,
                                         desc, &off, &csize, &type, &dtype, &max);
        }
        types++;
    }
    assert_int_equal(GL.glGetError(), GL_NO_ERROR);
    assert_true(types >= 1);
    assert_true(host);
    free(name);
    free(cname);
    free(desc);
}

static void test_counts(void **state)
{
    (void)state;
    GLuint id = gltest_query_id(&T, "Pipeline Statistics");
    if (!id)
        id = gltest_query_id(&T, "GPU Time");
    assert_int_not_equal(id, 0);
    GLuint size = 0, h = 0, written = 0;
    GL.glGetPerfQueryInfoINTEL(id, 0, NULL, &size, NULL, NULL, NULL);
    uint8_t *data = malloc(size);
    GL.glCreatePerfQueryINTEL(id, &h);
    GL.glBeginPerfQueryINTEL(h);
    gltest_draw_triangles(&T, 42, 0);
    GL.glEndPerfQueryINTEL(h);
    GL.glFlush();
    /* RenderDoc polls with flags 0, then waits. */
    for (int i = 0; i < 1000 && !written; i++)
        GL.glGetPerfQueryDataINTEL(h, 0, (GLsizei)size, data, &written);
    if (!written)
        GL.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data, &written);
    assert_int_equal(written, size);
    if (gltest_counter_index(&T, id, "Primitives Submitted") >= 0)
        assert_int_equal(gltest_counter_u64(&T, id, "Primitives Submitted", data), 42);
    assert_true(gltest_counter_u64(&T, id, "GPU Time Elapsed", data) > 0);
    GL.glDeletePerfQueryINTEL(h);
    assert_int_equal(GL.glGetError(), GL_NO_ERROR);
    free(data);
}

int main(int argc, char **argv)
{
    int r = gltest_create(&T, gltest_want_gles(argc, argv), 32, 32);
    if (r != 0)
        return r;
    if (gltest_make_current(&T) != 0)
        return 1;
    fprintf(stderr, "renderer: %s (%s)\n", T.renderer, gltest_kind_name(&T));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extension_and_walk),
        cmocka_unit_test(test_counts),
    };
    int failed = cmocka_run_group_tests_name("intel-preload", tests, NULL, NULL);
    gltest_destroy(&T);
    return failed;
}
