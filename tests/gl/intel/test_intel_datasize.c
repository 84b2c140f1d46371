/*
 * GL_INTEL_performance_query: a dataSize smaller than the result never leads to a write past
 * dataSize. perfq writes the whole counters that fit and returns their extent in bytesWritten
 * (docs/intel-performance-query.md). Checked two ways for every type and every dataSize from 0
 * to the full size + 16: a buffer with a guard region (bytes past dataSize keep their pattern),
 * and a heap buffer of exactly dataSize bytes (AddressSanitizer catches any byte past it).
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

#define GUARD 64

static struct glt T;

/* The bytes written for dataSize `size`: the end of the last counter that fits whole. */
static GLuint expected_written(GLuint id, GLuint count, GLuint full, GLuint size)
{
    if (size >= full)
        return full;
    GLuint end = 0;
    for (GLuint c = 1; c <= count; c++) {
        GLuint off = 0, csize = 0;
        gl.glGetPerfCounterInfoINTEL(id, c, 0, NULL, 0, NULL, &off, &csize, NULL, NULL, NULL);
        if (off + csize > size)
            break;
        end = off + csize;
    }
    return end;
}

static void test_small_data_size(void **state)
{
    (void)state;
    GLuint n = 0, first = 0;
    gl.glGetFirstPerfQueryIdINTEL(&first);
    for (GLuint q = first; q; gl.glGetNextPerfQueryIdINTEL(q, &q))
        n++;
    for (GLuint id = 1; id <= n; id++) {
        GLuint full = 0, count = 0, h = 0;
        gl.glGetPerfQueryInfoINTEL(id, 0, NULL, &full, &count, NULL, NULL);
        gl.glCreatePerfQueryINTEL(id, &h);
        gl.glBeginPerfQueryINTEL(h);
        glt_draw_triangles(&T, 3);
        gl.glEndPerfQueryINTEL(h);
        uint8_t *reference = malloc(full);
        GLuint written = 0;
        gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)full, reference,
                                   &written);
        assert_int_equal(written, full);
        uint8_t *guarded = malloc(full + 16 + GUARD);
        for (GLuint size = 0; size <= full + 16; size++) {
            /* Guard region. */
            memset(guarded, 0xa5, full + 16 + GUARD);
            written = 1234;
            gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, guarded,
                                       &written);
            assert_int_equal(gl.glGetError(), GL_NO_ERROR);
            assert_true(written <= size);
            assert_int_equal(written, expected_written(id, count, full, size));
            assert_memory_equal(guarded, reference, written);
            for (GLuint b = written; b < full + 16 + GUARD; b++)
                assert_int_equal(guarded[b], 0xa5);
            /* Exact-size heap buffer (ASan: a write past it aborts the test). */
            uint8_t *exact = malloc(size ? size : 1);
            gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, exact,
                                       &written);
            assert_int_equal(written, expected_written(id, count, full, size));
            free(exact);
        }
        free(guarded);
        free(reference);
        gl.glDeletePerfQueryINTEL(h);
    }
}

int main(int argc, char **argv)
{
    int r = glt_create_from_args(&T, argc, argv, 32, 32);
    if (r != 0)
        return r;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_data_size),
    };
    int failed = cmocka_run_group_tests_name(T.kind == GLT_GLES3 ? "intel-datasize-gles" : "intel-datasize",
                                             tests, NULL, NULL);
    glt_destroy(&T);
    return failed;
}
