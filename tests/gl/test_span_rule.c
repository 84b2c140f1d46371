/*
 * How long perfq stat's pipeline statistics span lasts at least (src/gl/stat/span_rule.h), on
 * numbers: the CLI's span where the end and begin are cheap (one context on the NVIDIA driver,
 * 24-28 us), 100 times their cost where they are not (several contexts on one GPU: milliseconds),
 * never past 10 s, and a span of 0 (each frame its own, as asked) whatever the cost.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gl/stat/span_rule.h"

#define US 1000ull
#define MS 1000000ull

static void test_cheap_keeps_the_cli_span(void **state)
{
    (void)state;
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 0), 4 * MS);          /* before the first */
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 28 * US), 4 * MS);    /* one NVIDIA context */
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 40 * US), 4 * MS);    /* exactly 1% */
    assert_int_equal(perfq_gl_span_min_ns(20 * MS, 100 * US), 20 * MS);
}

static void test_costly_lengthens_the_span(void **state)
{
    (void)state;
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 41 * US), 4100 * US);
    /* 8 contexts on the H100: an end and begin blocked about 5 ms: spans of 0.5 s. */
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 5 * MS), 500 * MS);
}

static void test_bounds(void **state)
{
    (void)state;
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, 200 * MS), PERFQ_GL_SPAN_MAX_NS);
    assert_int_equal(perfq_gl_span_min_ns(4 * MS, UINT64_MAX), PERFQ_GL_SPAN_MAX_NS);
    assert_int_equal(perfq_gl_span_min_ns(PERFQ_GL_SPAN_MAX_NS, 1 * MS), PERFQ_GL_SPAN_MAX_NS);
    /* --stats-span 0: each frame its own span, as the user asked, whatever it costs. */
    assert_int_equal(perfq_gl_span_min_ns(0, 0), 0);
    assert_int_equal(perfq_gl_span_min_ns(0, 5 * MS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cheap_keeps_the_cli_span),
        cmocka_unit_test(test_costly_lengthens_the_span),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
