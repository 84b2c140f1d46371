/*
 * Issue 14 item 3: N nested "Pipeline Statistics" instances cost O(N), not O(N^2). Each Begin
 * and End changes the set of active queries on every slot the type uses, so the layer ends the
 * driver's segment there and begins a new one; before the fix every active instance appended
 * every new segment to its own list (500: 0.5 s +48 MB, 3000: 36 s +1.28 GB, 5000 not done in
 * 120 s). For N = 500, 1000, 2000, 3000 and 5000:
 *
 *     for k in 0..N-1: Begin(q[k]); draw 1 triangle
 *     one clear; End(q[N-1]) .. End(q[0]); read every result (WAIT)
 *
 * q[k] counts exactly N - k triangles (primitives N - k, vertices 3 (N - k)). Structural bound,
 * asserted exactly: the references the logical queries hold on their slots' shared pieces are at
 * most 2 per logical query (the layer's stats), where they were the sum of all segments each
 * one saw. After Delete the layer's objects are back where they were (segments: the pools of at
 * most 8 per slot). meson's timeout bounds the run. Runs on desktop GL core and (--compat)
 * compatibility contexts, where "Pipeline Statistics" exists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gl/gl_layer.h"
#include "../gl_test.h"

#define W 64
#define H 48

static struct glt T;

static void nested(int n)
{
    GLuint ps = glt_intel_query_id("Pipeline Statistics");
    assert_int_not_equal(ps, 0);
    GLuint size = 0;
    gl.glGetPerfQueryInfoINTEL(ps, 0, NULL, &size, NULL, NULL, NULL);
    struct perfq_gl_layer_stats before, mid, after;
    gl.glFinish();
    perfq_gl_layer_stats(&before);
    uint64_t t0 = glt_now_ns();
    GLuint *q = calloc((size_t)n, sizeof *q);
    uint8_t *data = malloc(size);
    assert_non_null(q);
    assert_non_null(data);
    for (int k = 0; k < n; k++) {
        gl.glCreatePerfQueryINTEL(ps, &q[k]);
        assert_int_not_equal(q[k], 0);
        gl.glBeginPerfQueryINTEL(q[k]);
        glt_draw_triangles(&T, 1);
    }
    gl.glClear(GL_COLOR_BUFFER_BIT);
    for (int k = n - 1; k >= 0; k--)
        gl.glEndPerfQueryINTEL(q[k]);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    perfq_gl_layer_stats(&mid);
    uint64_t vq = mid.vqueries - before.vqueries;
    fprintf(stderr, "%d nested: %llu logical queries, %llu links, %llu driver segments\n", n,
            (unsigned long long)vq, (unsigned long long)(mid.vquery_links - before.vquery_links),
            (unsigned long long)(mid.segments - before.segments));
    assert_true(mid.vquery_links - before.vquery_links <= 2 * vq);
    for (int k = 0; k < n; k++) {
        assert_int_equal(glt_intel_result_wait(q[k], data, size), size);
        assert_int_equal(glt_intel_counter_u64(ps, "Primitives Submitted", data),
                         (uint64_t)(n - k));
        assert_int_equal(glt_intel_counter_u64(ps, "Vertices Submitted", data),
                         3 * (uint64_t)(n - k));
    }
    for (int k = 0; k < n; k++)
        gl.glDeletePerfQueryINTEL(q[k]);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    perfq_gl_layer_stats(&after);
    fprintf(stderr, "%d nested: %.2f s in all; after Delete: vqueries %llu, links %llu, "
            "segments %llu (before %llu)\n", n, (glt_now_ns() - t0) / 1e9,
            (unsigned long long)after.vqueries, (unsigned long long)after.vquery_links,
            (unsigned long long)after.segments, (unsigned long long)before.segments);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.vquery_links, before.vquery_links);
    assert_true(after.segments <= 8 * 17);
    free(q);
    free(data);
}

static void test_nested_500_to_5000(void **state)
{
    (void)state;
    static const int sizes[] = {500, 1000, 2000, 3000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        nested(sizes[i]);
}

int main(int argc, char **argv)
{
    int r = glt_create_from_args(&T, argc, argv, W, H);
    if (r != 0)
        return r;
    fprintf(stderr, "renderer: %s (%s)\n", T.renderer, glt_kind_name(T.kind));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_500_to_5000),
    };
    r = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&T);
    return r;
}
