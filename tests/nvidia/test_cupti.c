/*
 * The "cupti" provider (CUPTI PM sampling).
 * Everywhere: the catalog tells the truth. Without libcuda.so.1 (CI, the development machines)
 * the group "cupti" is listed unavailable with the dlopen reason and cannot be measured; with
 * the driver, one group per CUDA device, each counter available or unavailable with CUPTI's own
 * reason (no permission, counters held by another process, unsupported metric).
 * With an NVIDIA GPU whose counters perfq may read (skipped, naming what is missing,
 * elsewhere): an idle interval measured through the C API gives counted values (not "not
 * counted", not an error) whose DRAM traffic is small, and sample() during it reads from
 * memory.
 * Known work (DRAM bytes of a copy within 2 %) is bench/cuda/cupti_dram.cu, a CUDA program.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "nvidia_test.h"
#include "perfq/perfq.h"

static const char *const metrics[] = {"sm__cycles_active.avg", "dram__bytes_read.sum",
                                      "dram__bytes_write.sum", "smsp__inst_executed.sum"};

static void test_catalog(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_group_info_t g;
    if (!nvt_have_library("libcuda.so.1")) {
        assert_true(nvt_find_group(pq, "cupti", &g));
        assert_int_equal(g.available, 0);
        assert_non_null(strstr(g.unavailable_reason, "libcuda.so.1 not found"));
        assert_int_equal(g.scope, PERFQ_SCOPE_DEVICE);
        assert_int_equal(g.counter_count, 4);
        for (uint32_t c = 0; c < g.counter_count; c++) {
            perfq_counter_info_t ci;
            assert_int_equal(perfq_counter_info(pq, g.first_counter + c, &ci), PERFQ_OK);
            assert_string_equal(ci.name, metrics[c]);
            assert_int_equal(ci.available, 0);
            assert_string_equal(ci.unavailable_reason, g.unavailable_reason);
        }
        assert_false(nvt_find_group(pq, "cupti-gpu0", &g));
        perfq_counter_id_t id;
        assert_int_equal(perfq_counter_find(pq, "cupti/dram__bytes_read.sum", &id), PERFQ_OK);
        perfq_measurement_t *m = NULL;
        assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
        assert_null(m);
        printf("no NVIDIA driver here: cupti listed unavailable (%s)\n", g.unavailable_reason);
    } else if (nvt_find_group(pq, "cupti", &g)) {
        /* The driver is there but CUPTI or CUDA is not usable: the reason says which. */
        assert_int_equal(g.available, 0);
        assert_non_null(g.unavailable_reason);
        printf("cupti unavailable: %s\n", g.unavailable_reason);
    } else {
        assert_true(nvt_find_group(pq, "cupti-gpu0", &g));
        assert_int_equal(g.counter_count, 4);
        for (unsigned d = 0; d < 8; d++) {
            char name[32];
            snprintf(name, sizeof(name), "cupti-gpu%u", d);
            if (!nvt_find_group(pq, name, &g))
                break;
            printf("%s: %s\n", name, g.description);
            for (uint32_t c = 0; c < g.counter_count; c++) {
                perfq_counter_info_t ci;
                assert_int_equal(perfq_counter_info(pq, g.first_counter + c, &ci), PERFQ_OK);
                assert_string_equal(ci.name, metrics[c]);
                /* Per counter: available, or a reason that is CUPTI's, never a silent 0. */
                assert_true(ci.available || (ci.unavailable_reason && *ci.unavailable_reason));
                printf("  %s: %s\n", ci.full_name,
                       ci.available ? "available" : ci.unavailable_reason);
            }
        }
    }
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void test_idle_interval(void **state)
{
    (void)state;
    if (!nvt_have_library("libcuda.so.1")) {
        assert_true(test_may_lack("libcuda.so.1"));   /* no NVIDIA driver: no PM sampling */
        return;
    }
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[4];
    for (int i = 0; i < 4; i++) {
        char full[64];
        snprintf(full, sizeof(full), "cupti-gpu0/%s", metrics[i]);
        perfq_counter_info_t ci;
        if (perfq_counter_find(pq, full, &ids[i]) != PERFQ_OK ||
            perfq_counter_info(pq, ids[i], &ci) != PERFQ_OK || !ci.available) {
            printf("SKIP: libcuda.so.1 is here but %s is not measurable: %s\n", full,
                   perfq_counter_info(pq, ids[i], &ci) == PERFQ_OK && ci.unavailable_reason
                       ? ci.unavailable_reason : "no such counter");
            perfq_close(&pq);
            assert_true(test_may_lack("CUPTI PM sampling"));
            return;
        }
    }
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, ids, 4, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    sleep_ms(100);
    perfq_value_t mid[4], v[4];
    assert_int_equal(perfq_measurement_sample(m, mid, 4), PERFQ_OK);
    sleep_ms(100);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 4), PERFQ_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(v[i].flags & PERFQ_VALUE_NOT_COUNTED, 0);
    printf("idle 200 ms: sm__cycles_active.avg %.0f, dram read %llu B, write %llu B, "
           "inst %llu; at 100 ms (sample) dram read %llu B\n", v[0].v.f64,
           (unsigned long long)v[1].v.u64, (unsigned long long)v[2].v.u64,
           (unsigned long long)v[3].v.u64, (unsigned long long)mid[1].v.u64);
    /* An idle H100 moves well under 100 MB in 200 ms (its peak is 3.35 TB/s). */
    assert_true(v[1].v.u64 < 100000000ull);
    assert_true(v[2].v.u64 < 100000000ull);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog),
        cmocka_unit_test(test_idle_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
