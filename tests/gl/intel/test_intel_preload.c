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

#include "../gl_test.h"

static struct glt T;

static void test_extension_and_walk(void **state)
{
    (void)state;
    assert_true(glt_has_extension("GL_INTEL_performance_query"));
    GLint name_max = 0, counter_max = 0, desc_max = 0;
    gl.glGetIntegerv(GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL, &name_max);
    gl.glGetIntegerv(GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL, &counter_max);
    gl.glGetIntegerv(GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL, &desc_max);
    assert_int_equal(name_max, 256);
    assert_int_equal(counter_max, 256);
    assert_int_equal(desc_max, 1024);
    char *name = malloc((size_t)name_max), *cname = malloc((size_t)counter_max);
    char *desc = malloc((size_t)desc_max);
    int types = 0, host = 0;
    GLuint id = 0;
    for (gl.glGetFirstPerfQueryIdINTEL(&id); id; gl.glGetNextPerfQueryIdINTEL(id, &id)) {
        GLuint size = 0, counters = 0, instances = 0, caps = 0;
        gl.glGetPerfQueryInfoINTEL(id, (GLuint)name_max, name, &size, &counters, &instances,
                                   &caps);
        fprintf(stderr, "query %u \"%s\": %u counters, %u bytes, caps %u\n", id, name, counters,
                size, caps);
        host |= strcmp(name, "Host CPU") == 0;
        for (GLuint c = 1; c <= counters; c++) {
            GLuint off, csize, type, dtype;
            GLuint64 max;
            gl.glGetPerfCounterInfoINTEL(id, c, (GLuint)counter_max, cname, (GLuint)desc_max,
                                         desc, &off, &csize, &type, &dtype, &max);
        }
        types++;
    }
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_true(types >= 1);
    assert_true(host);
    free(name);
    free(cname);
    free(desc);
}

static void test_counts(void **state)
{
    (void)state;
    GLuint id = glt_intel_query_id("Pipeline Statistics");
    if (!id)
        id = glt_intel_query_id("GPU Time");
    assert_int_not_equal(id, 0);
    GLuint size = 0, h = 0, written = 0;
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, &size, NULL, NULL, NULL);
    uint8_t *data = malloc(size);
    gl.glCreatePerfQueryINTEL(id, &h);
    gl.glBeginPerfQueryINTEL(h);
    glt_draw_triangles(&T, 42);
    gl.glEndPerfQueryINTEL(h);
    gl.glFlush();
    /* RenderDoc polls with flags 0, then waits. */
    for (int i = 0; i < 1000 && !written; i++)
        gl.glGetPerfQueryDataINTEL(h, 0, (GLsizei)size, data, &written);
    if (!written)
        gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data, &written);
    assert_int_equal(written, size);
    if (glt_intel_counter_index(id, "Primitives Submitted") >= 0)
        assert_int_equal(glt_intel_counter_u64(id, "Primitives Submitted", data), 42);
    assert_true(glt_intel_counter_u64(id, "GPU Time Elapsed", data) > 0);
    gl.glDeletePerfQueryINTEL(h);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    free(data);
}

int main(int argc, char **argv)
{
    int r = glt_create_from_args(&T, argc, argv, 32, 32);
    if (r != 0)
        return r;
    fprintf(stderr, "renderer: %s (%s)\n", T.renderer, glt_kind_name(T.kind));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extension_and_walk),
        cmocka_unit_test(test_counts),
    };
    int failed = cmocka_run_group_tests_name("intel-preload", tests, NULL, NULL);
    glt_destroy(&T);
    return failed;
}
