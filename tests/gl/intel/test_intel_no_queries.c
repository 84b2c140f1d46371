/*
 * GL_INTEL_performance_query where no query type exists: the program sets PERFQ_DISABLE to every
 * group of the built-in catalog (read from libperfq) and the GL provider's groups before the
 * first INTEL call, so the context's catalog has nothing available.
 *   "If the given hardware platform doesn't support any performance queries, then the value of
 *    0 is returned and INVALID_OPERATION error is raised."
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
#include "perfq/perfq.h"

static struct glt T;

static void test_first_none(void **state)
{
    (void)state;
    GLuint id = 1234;
    gl.glGetFirstPerfQueryIdINTEL(&id);
    assert_int_equal(gl.glGetError(), GL_INVALID_OPERATION);
    assert_int_equal(id, 0);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
}

/* With no types, every id is invalid. */
static void test_every_id_invalid(void **state)
{
    (void)state;
    GLuint next = 1234, h = 1234;
    gl.glGetNextPerfQueryIdINTEL(1, &next);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(next, 0);
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"Host CPU", &next);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    gl.glGetPerfQueryInfoINTEL(1, 0, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    gl.glCreatePerfQueryINTEL(1, &h);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(h, 1234);
}

/* PERFQ_DISABLE = every built-in group, and the GL providers' (gl, gl-memory). */
static int disable_everything(void)
{
    perfq_t *pq;
    if (perfq_open(&pq) != PERFQ_OK)
        return -1;
    static char list[4096] = "gl,gl-pipeline,gl-timer,gl-memory";
    uint32_t n = 0;
    perfq_group_count(pq, &n);
    for (uint32_t g = 0; g < n; g++) {
        perfq_group_info_t gi;
        if (perfq_group_info(pq, g, &gi) != PERFQ_OK ||
            strlen(list) + strlen(gi.name) + strlen(gi.provider) + 3 >= sizeof(list))
            continue;
        strcat(list, ",");
        strcat(list, gi.name);
        strcat(list, ",");
        strcat(list, gi.provider);
    }
    perfq_close(&pq);
    return setenv("PERFQ_DISABLE", list, 1);
}

int main(int argc, char **argv)
{
    if (disable_everything() != 0)
        return 1;
    int r = glt_create_from_args(&T, argc, argv, 16, 16);
    if (r != 0)
        return r;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_none),
        cmocka_unit_test(test_every_id_invalid),
    };
    int failed = cmocka_run_group_tests_name("intel-no-queries", tests, NULL, NULL);
    glt_destroy(&T);
    return failed;
}
