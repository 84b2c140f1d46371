/* Catalog invariants: unique names and uuids, enums in range, uuids stable across instances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/provider.h"
#include "perfq/perfq.h"

static void test_names_and_uuids_unique(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    uint32_t n, groups;
    assert_int_equal(perfq_counter_count(pq, &n), PERFQ_OK);
    assert_int_equal(perfq_group_count(pq, &groups), PERFQ_OK);
    assert_true(n >= 20);
    assert_true(groups >= 5);
    for (uint32_t i = 0; i < n; i++) {
        perfq_counter_info_t a;
        assert_int_equal(perfq_counter_info(pq, i, &a), PERFQ_OK);
        for (uint32_t j = i + 1; j < n; j++) {
            perfq_counter_info_t b;
            assert_int_equal(perfq_counter_info(pq, j, &b), PERFQ_OK);
            assert_string_not_equal(a.full_name, b.full_name);
            assert_int_not_equal(a.uuid, b.uuid);
        }
    }
    for (uint32_t g = 0; g < groups; g++) {
        perfq_group_info_t a;
        assert_int_equal(perfq_group_info(pq, g, &a), PERFQ_OK);
        for (uint32_t h = g + 1; h < groups; h++) {
            perfq_group_info_t b;
            perfq_group_info(pq, h, &b);
            assert_string_not_equal(a.name, b.name);
        }
    }
    perfq_close(&pq);
}

static void test_descriptors_in_range(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    uint32_t groups, total = 0;
    perfq_group_count(pq, &groups);
    for (uint32_t g = 0; g < groups; g++) {
        perfq_group_info_t gi;
        perfq_group_info(pq, g, &gi);
        assert_non_null(perfq_scope_name(gi.scope));
        assert_true(gi.description && gi.description[0]);
        assert_true(gi.provider && gi.provider[0]);
        /* Counters of a group are contiguous and point back at it. */
        assert_int_equal(gi.first_counter, total);
        assert_int_equal(gi.available, gi.unavailable_reason == NULL);
        for (uint32_t c = 0; c < gi.counter_count; c++) {
            perfq_counter_info_t ci;
            assert_int_equal(perfq_counter_info(pq, gi.first_counter + c, &ci), PERFQ_OK);
            assert_int_equal(ci.group, g);
            assert_non_null(perfq_unit_name(ci.unit));
            assert_non_null(perfq_storage_name(ci.storage));
            assert_non_null(perfq_intel_type_name(ci.intel_type));
            assert_true(ci.unit < PERFQ_UNIT_COUNT);
            assert_true(perfq_storage_size(ci.storage) == 4 || perfq_storage_size(ci.storage) == 8);
            assert_true(ci.denominator >= 1);
            assert_true(ci.max == 0 || ci.max >= ci.min);
            assert_true(ci.category[0] && ci.description[0]);
            assert_int_equal(ci.available, ci.unavailable_reason == NULL);
            /* An unavailable group has no available counter. */
            if (!gi.available)
                assert_false(ci.available);
            /* full_name is GROUP/NAME */
            char expect[512];
            snprintf(expect, sizeof(expect), "%s/%s", gi.name, ci.name);
            assert_string_equal(ci.full_name, expect);
            assert_int_equal(ci.uuid, perfq__counter_uuid(gi.provider, gi.name, ci.name));
        }
        total += gi.counter_count;
    }
    uint32_t n;
    perfq_counter_count(pq, &n);
    assert_int_equal(total, n);
    perfq_close(&pq);
}

static void test_uuids_stable_across_instances(void **state)
{
    (void)state;
    perfq_t *a, *b;
    assert_int_equal(perfq_open(&a), PERFQ_OK);
    assert_int_equal(perfq_open(&b), PERFQ_OK);
    uint32_t na, nb;
    perfq_counter_count(a, &na);
    perfq_counter_count(b, &nb);
    assert_int_equal(na, nb);
    for (uint32_t i = 0; i < na; i++) {
        perfq_counter_info_t x, y;
        perfq_counter_info(a, i, &x);
        perfq_counter_info(b, i, &y);
        assert_string_equal(x.full_name, y.full_name);
        assert_int_equal(x.uuid, y.uuid);
    }
    perfq_close(&a);
    perfq_close(&b);
}

static void test_uuid_rule_is_fixed(void **state)
{
    (void)state;
    /* The same on every run and machine: pinned values of the FNV-1a 32 rule. */
    assert_int_equal(perfq__counter_uuid("host", "host", "task-clock"), 0x60735dc9u);
    uint32_t u = perfq__counter_uuid("host", "host", "task-clock");
    assert_int_equal(u, perfq__counter_uuid("host", "host", "task-clock"));
    assert_int_not_equal(u, perfq__counter_uuid("host", "host", "cpu-clock"));
    /* "a/b/c" hashed as one string gives the same value: the separators are part of it. */
    uint32_t h = 2166136261u;
    for (const char *p = "host/host/task-clock"; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 16777619u;
    }
    assert_int_equal(u, h);
}

static void test_find_and_suggest(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_counter_id_t id, id2;
    char buf[128];
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &id), PERFQ_OK);
    perfq_counter_info_t ci;
    perfq_counter_info(pq, id, &ci);
    assert_string_equal(ci.full_name, "host/task-clock");
    /* A bare name works when unique ... */
    assert_int_equal(perfq_counter_find(pq, "task-clock", &id2), PERFQ_OK);
    assert_int_equal(id, id2);
    /* ... and not when two groups have it. */
    assert_int_equal(perfq_counter_find(pq, "minor-faults", &id2), PERFQ_ENOTFOUND);
    assert_int_equal(perfq_counter_find(pq, "host/no-such", &id2), PERFQ_ENOTFOUND);
    assert_int_equal(perfq_counter_suggest(pq, "host/task-clok", buf, sizeof(buf)), PERFQ_OK);
    assert_string_equal(buf, "host/task-clock");
    assert_int_equal(perfq_counter_suggest(pq, "host/task-clok", buf, 4), PERFQ_ENOSPC);
    assert_int_equal(perfq_counter_suggest(pq, "zzzzzzzzzzzzzzzzzzzzzzzzzz", buf, sizeof(buf)),
                     PERFQ_ENOTFOUND);
    perfq_close(&pq);
}

static void test_enum_names(void **state)
{
    (void)state;
    assert_string_equal(perfq_unit_name(PERFQ_UNIT_NANOSECONDS), "ns");
    assert_string_equal(perfq_unit_name(PERFQ_UNIT_JOULES), "J");
    assert_null(perfq_unit_name((perfq_unit_t)PERFQ_UNIT_COUNT));
    assert_null(perfq_unit_name((perfq_unit_t)-1));
    assert_null(perfq_storage_name((perfq_storage_t)7));
    assert_int_equal(perfq_storage_size((perfq_storage_t)99), 0);
    assert_null(perfq_intel_type_name((perfq_intel_type_t)6));
    assert_null(perfq_scope_name((perfq_scope_t)4));
    assert_string_equal(perfq_status_string((perfq_status_t)-99), "unknown status");
    for (int s = -8; s <= 1; s++)
        assert_string_not_equal(perfq_status_string((perfq_status_t)s), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_uuids_unique),
        cmocka_unit_test(test_descriptors_in_range),
        cmocka_unit_test(test_uuids_stable_across_instances),
        cmocka_unit_test(test_uuid_rule_is_fixed),
        cmocka_unit_test(test_find_and_suggest),
        cmocka_unit_test(test_enum_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
