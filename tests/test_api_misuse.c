/* API misuse returns status codes: NULL pointers, unknown counters, wrong states, double close,
 * unavailable counters, PERFQ_DISABLE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfq/perfq.h"

static perfq_counter_id_t find(perfq_t *pq, const char *name)
{
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, name, &id), PERFQ_OK);
    return id;
}

/* The loaded library's version is the header's (one project version, meson.build), and NULL
 * parts are allowed. */
static void test_version(void **state)
{
    (void)state;
    int major = -1, minor = -1, patch = -1;
    const char *v = perfq_version(&major, &minor, &patch);
    assert_non_null(v);
    assert_int_equal(major, PERFQ_VERSION_MAJOR);
    assert_int_equal(minor, PERFQ_VERSION_MINOR);
    assert_int_equal(patch, PERFQ_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", PERFQ_VERSION_MAJOR, PERFQ_VERSION_MINOR,
             PERFQ_VERSION_PATCH);
    assert_string_equal(v, want);
    assert_ptr_equal(perfq_version(NULL, NULL, NULL), v);
}

static void test_null_pointers(void **state)
{
    (void)state;
    perfq_t *pq;
    uint32_t n;
    perfq_counter_id_t id;
    perfq_group_info_t gi;
    perfq_counter_info_t ci;
    perfq_measurement_t *m;
    perfq_value_t v;
    char buf[8];
    assert_int_equal(perfq_open(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_close(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    assert_int_equal(perfq_group_count(NULL, &n), PERFQ_EINVAL);
    assert_int_equal(perfq_group_count(pq, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_count(NULL, &n), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_count(pq, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_group_info(pq, 0, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_group_info(NULL, 0, &gi), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_info(pq, 0, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_info(NULL, 0, &ci), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_find(pq, NULL, &id), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_suggest(pq, NULL, buf, sizeof(buf)), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_suggest(pq, "x", NULL, 8), PERFQ_EINVAL);
    assert_int_equal(perfq_counter_suggest(pq, "x", buf, 0), PERFQ_EINVAL);
    id = find(pq, "host/task-clock");
    assert_int_equal(perfq_measurement_create(NULL, &id, 1, NULL, &m), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_create(pq, NULL, 1, NULL, &m), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_create(pq, &id, 0, NULL, &m), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_begin(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_end(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_sample(NULL, &v, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_result(NULL, 0, &v, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_destroy(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_sample(m, NULL, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_result(m, 0, NULL, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_counter_count(m, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
    assert_null(m);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
}

static void test_bad_ids_and_targets(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    uint32_t n;
    perfq_counter_count(pq, &n);
    perfq_counter_id_t out_of_range = n;
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_info(pq, n, &ci), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_create(pq, &out_of_range, 1, NULL, &m), PERFQ_EINVAL);
    perfq_counter_id_t dup[2] = {find(pq, "host/task-clock"), find(pq, "host/task-clock")};
    assert_int_equal(perfq_measurement_create(pq, dup, 2, NULL, &m), PERFQ_EINVAL);
    perfq_target_t bad_pid = {.kind = PERFQ_TARGET_PID, .pid = 0};
    assert_int_equal(perfq_measurement_create(pq, dup, 1, &bad_pid, &m), PERFQ_EINVAL);
    perfq_target_t bad_kind = {.kind = (perfq_target_kind_t)7};
    assert_int_equal(perfq_measurement_create(pq, dup, 1, &bad_kind, &m), PERFQ_EINVAL);
    /* A pid that does not exist (pid_max is at most 2^22). */
    perfq_target_t gone = {.kind = PERFQ_TARGET_PID, .pid = 0x7ffffff0};
    assert_int_equal(perfq_measurement_create(pq, dup, 1, &gone, &m), PERFQ_EINVAL);
    /* Whatever the counters: those of providers that never look at the pid too (they gave
     * ENOTSUP), and a sampler's. */
    perfq_counter_id_t others[2] = {find(pq, "clock/process-cpu-time"),
                                    find(pq, "rusage/user-time")};
    for (int i = 0; i < 2; i++)
        assert_int_equal(perfq_measurement_create(pq, &others[i], 1, &gone, &m), PERFQ_EINVAL);
    perfq_sampler_t *s = NULL;
    assert_int_equal(perfq_sampler_create(pq, &gone, &s), PERFQ_EINVAL);
    assert_null(s);
    /* rusage measures only the calling process. */
    perfq_counter_id_t ru = find(pq, "rusage/user-time");
    perfq_target_t me = {.kind = PERFQ_TARGET_PID, .pid = 1};
    assert_int_equal(perfq_measurement_create(pq, &ru, 1, &me, &m), PERFQ_ENOTSUP);
    assert_null(m);
    perfq_close(&pq);
}

static void test_unavailable_counter(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id = find(pq, "host-hw/cycles");
    perfq_counter_info_t ci;
    perfq_counter_info(pq, id, &ci);
    if (ci.available) {
        /* A machine with a PMU: the counter must then really count. */
        assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
        perfq_measurement_destroy(&m);
        perfq_close(&pq);
        skip();
    }
    assert_non_null(ci.unavailable_reason);
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
    assert_null(m);
    perfq_close(&pq);
}

static void test_wrong_states(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m;
    perfq_value_t v[2];
    size_t n;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[2] = {find(pq, "host/task-clock"), find(pq, "proc-io/read-bytes")};
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_counter_count(m, &n), PERFQ_OK);
    assert_int_equal(n, 2);
    /* Ending what never began, reading what never ended. */
    assert_int_equal(perfq_measurement_end(m), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_sample(m, v, 2), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_sample(m, v, 1), PERFQ_ENOSPC);   /* too small */
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_result(m, 0x10, v, 2), PERFQ_EINVAL);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 1), PERFQ_ENOSPC);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    /* Double destroy and double close. */
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_EINVAL);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
    assert_null(pq);
    assert_int_equal(perfq_close(&pq), PERFQ_EINVAL);
}

static void test_close_with_open_measurement(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id = find(pq, "host/context-switches");
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    /* perfq_close leaves it to its owner: it keeps the instance alive until destroyed (ASan
     * would see a leak, or a use after free, otherwise). */
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
}

static void test_disable_env(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m = NULL;
    setenv("PERFQ_DISABLE", "proc-io,nothing", 1);
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    unsetenv("PERFQ_DISABLE");
    perfq_counter_id_t id = find(pq, "proc-io/read-bytes");
    perfq_counter_info_t ci;
    perfq_counter_info(pq, id, &ci);
    assert_false(ci.available);
    assert_string_equal(ci.unavailable_reason, "disabled by PERFQ_DISABLE");
    perfq_group_info_t gi;
    perfq_group_info(pq, ci.group, &gi);
    assert_false(gi.available);
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
    perfq_counter_info(pq, find(pq, "host/task-clock"), &ci);
    assert_true(ci.available);
    perfq_close(&pq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_bad_ids_and_targets),
        cmocka_unit_test(test_unavailable_counter),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_wrong_states),
        cmocka_unit_test(test_close_with_open_measurement),
        cmocka_unit_test(test_disable_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
