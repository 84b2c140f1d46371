/*
 * The NVML sampler's sample history (src/providers/nvml_history.c): the arithmetic that gives
 * an OpenCL command's energy, mean power and clocks after the command ended. Inputs are made
 * here (no NVML, no GPU): each expected value is worked out by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "providers/nvml_history.h"

#define MS 1000000ull   /* ns */

static void push(struct nvml_history *h, uint64_t t, double power, double sm, unsigned ok)
{
    struct nvml_hist_sample s = {.t = t, .v = {power, sm, 1.6e9}, .ok = ok};
    perfq__nvml_history_push(h, &s);
}

#define ALL ((1u << HIST_COUNT) - 1)

/* Power 100 W at 0, 200 W at 20 ms, 100 W at 40 ms (linear between): a triangle. */
static void triangle(struct nvml_history *h)
{
    assert_int_equal(perfq__nvml_history_init(h, 16), 0);
    push(h, 0 * MS, 100, 1.0e9, ALL);
    push(h, 20 * MS, 200, 2.0e9, ALL);
    push(h, 40 * MS, 100, 1.0e9, ALL);
}

static void test_whole_and_partial(void **state)
{
    (void)state;
    struct nvml_history h;
    triangle(&h);
    double i, m;
    unsigned n;
    /* [0, 40 ms]: two trapezoids of 20 ms x 150 W = 6 J; mean 150 W; three samples inside. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 0, 40 * MS, &i, &m, &n), 0);
    assert_float_equal(i, 6.0, 1e-12);
    assert_float_equal(m, 150.0, 1e-9);
    assert_int_equal(n, 3);
    /* [10, 30 ms]: the power is 150 W at 10 and 30 ms, 200 W at 20: 10 ms x 175 W twice =
     * 3.5 J, mean 175 W; one sample inside. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 10 * MS, 30 * MS, &i, &m, &n),
                     0);
    assert_float_equal(i, 3.5, 1e-12);
    assert_float_equal(m, 175.0, 1e-9);
    assert_int_equal(n, 1);
    /* [5, 15 ms], within one segment: 125 W to 175 W, mean 150 W, 1.5 J, no sample inside. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 5 * MS, 15 * MS, &i, &m, &n),
                     0);
    assert_float_equal(i, 1.5, 1e-12);
    assert_float_equal(m, 150.0, 1e-9);
    assert_int_equal(n, 0);
    /* The SM clock the same way: mean over [10, 30 ms] of 1.5, 2, 1.5 GHz = 1.75 GHz. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_SM_CLOCK, 10 * MS, 30 * MS, NULL, &m,
                                                  NULL), 0);
    assert_float_equal(m, 1.75e9, 1.0);
    perfq__nvml_history_free(&h);
}

static void test_instant(void **state)
{
    (void)state;
    struct nvml_history h;
    triangle(&h);
    double i, m;
    /* A zero-length interval: no energy, the value at that instant (175 W at 15 ms). */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 15 * MS, 15 * MS, &i, &m, NULL),
                     0);
    assert_float_equal(i, 0.0, 0);
    assert_float_equal(m, 175.0, 1e-9);
    /* On a sample: its value. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 20 * MS, 20 * MS, &i, &m, NULL),
                     0);
    assert_float_equal(m, 200.0, 1e-9);
    perfq__nvml_history_free(&h);
}

static void test_pending_and_lost(void **state)
{
    (void)state;
    struct nvml_history h;
    triangle(&h);
    double i = -1, m = -1;
    /* An end after the newest sample: not yet. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 30 * MS, 41 * MS, &i, &m, NULL),
                     HIST_PENDING);
    /* Once a sample after the end has come: answered. */
    push(&h, 60 * MS, 100, 1e9, ALL);
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 0, 41 * MS, &i, &m, NULL), 0);
    perfq__nvml_history_free(&h);
    /* A begin before the oldest sample: never (the sampler did not run then). */
    assert_int_equal(perfq__nvml_history_init(&h, 4), 0);
    push(&h, 10 * MS, 100, 1e9, ALL);
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 5 * MS, 10 * MS, &i, &m, NULL),
                     HIST_LOST);
    /* A failed power reading in the span: no guess; the clock, read then, still answers. */
    push(&h, 30 * MS, 0, 1e9, ALL & ~(1u << HIST_POWER));
    push(&h, 50 * MS, 100, 1e9, ALL);
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 20 * MS, 40 * MS, &i, &m, NULL),
                     HIST_LOST);
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_SM_CLOCK, 20 * MS, 40 * MS, NULL, &m,
                                                  NULL), 0);
    assert_float_equal(m, 1e9, 1e-3);
    /* Outside the failed sample's segments the power answers: [40, 50 ms] lies between 30 and
     * 50, so it does need the 30 ms reading. [50, 50] needs only the 50 ms one. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 40 * MS, 50 * MS, &i, &m, NULL),
                     HIST_LOST);
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 50 * MS, 50 * MS, &i, &m, NULL),
                     0);
    assert_float_equal(m, 100.0, 1e-9);
    /* A reversed interval is refused. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 50 * MS, 40 * MS, &i, &m, NULL),
                     HIST_LOST);
    perfq__nvml_history_free(&h);
}

static void test_ring(void **state)
{
    (void)state;
    struct nvml_history h;
    /* 8 slots, 20 samples of 10 W + k W at k x 10 ms: samples 12..19 (120..190 ms) remain. */
    assert_int_equal(perfq__nvml_history_init(&h, 8), 0);
    for (unsigned k = 0; k < 20; k++)
        push(&h, k * 10 * MS, 10.0 + k, 1e9, ALL);
    assert_int_equal(h.count, 8);
    assert_int_equal(perfq__nvml_history_newest(&h), 190 * MS);
    double i, m;
    unsigned n;
    /* 115 ms is before the oldest kept (120 ms): gone. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 115 * MS, 150 * MS, &i, &m, &n),
                     HIST_LOST);
    /* [120, 190 ms]: linear from 22 W to 29 W: mean 25.5 W, 70 ms x 25.5 W = 1.785 J,
     * 8 samples. Across the ring's wrap. */
    assert_int_equal(perfq__nvml_history_interval(&h, HIST_POWER, 120 * MS, 190 * MS, &i, &m, &n),
                     0);
    assert_float_equal(m, 25.5, 1e-9);
    assert_float_equal(i, 1.785, 1e-12);
    assert_int_equal(n, 8);
    /* A sample stamped before the newest is kept in order (at the newest's time). */
    push(&h, 100 * MS, 50, 1e9, ALL);
    assert_int_equal(perfq__nvml_history_newest(&h), 190 * MS);
    perfq__nvml_history_free(&h);
    /* No room at all: every interval is pending, nothing is written. */
    struct nvml_history empty = {0};
    push(&empty, 10, 1, 1, ALL);
    assert_int_equal(perfq__nvml_history_interval(&empty, HIST_POWER, 0, 0, &i, &m, NULL),
                     HIST_PENDING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_and_partial),
        cmocka_unit_test(test_instant),
        cmocka_unit_test(test_pending_and_lost),
        cmocka_unit_test(test_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
