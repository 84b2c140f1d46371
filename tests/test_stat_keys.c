/*
 * perfq stat's table of distinct (process, handle, id) keys (tools/perfq/stat_keys.c): GL
 * contexts, processes, share groups and memory tags, each counted exactly however many a run
 * brings (a test suite under perfq stat starts thousands of processes; the tables held 1024,
 * 1024, 256 and 256 before and counted no more), up to STAT_KEYS_MAX, past which new keys are
 * refused and counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stat_keys.h"

struct entry {
    struct stat_key key;
    uint64_t value;
};

/* Keys that differ in the process only, in the handle only, in the id only, and in all; every
 * one is found again, in order of arrival, with what was written in its entry, across the
 * array's and the index's growth. */
static void test_distinct_keys_exact(void **state)
{
    (void)state;
    struct stat_keys s;
    stat_keys_init(&s, sizeof(struct entry));
    enum { PIDS = 300, HANDLES = 5, IDS = 2 };
    for (int round = 0; round < 2; round++)
        for (uint32_t pid = 1; pid <= PIDS; pid++)
            for (uint64_t h = 0; h < HANDLES; h++)
                for (uint64_t id = 0; id < IDS; id++) {
                    int added = -1;
                    struct entry *e = stat_keys_note(&s, pid, h * 0x10000000ull, id, &added);
                    uint64_t want = pid * 100u + h * 10u + id;
                    assert_non_null(e);
                    assert_int_equal(added, round == 0);   /* new in the first round only */
                    if (round == 0) {
                        assert_int_equal(e->value, 0);   /* new: zeroed past the key */
                        e->value = want;
                    } else {
                        assert_int_equal(e->value, want);
                    }
                }
    assert_int_equal(s.n, PIDS * HANDLES * IDS);
    assert_int_equal(s.refused, 0);
    for (size_t i = 0; i < s.n; i++) {
        const struct entry *e = stat_keys_at(&s, i);
        assert_int_equal(e->key.pid, 1 + i / (HANDLES * IDS));
        assert_int_equal(e->key.handle, (i / IDS % HANDLES) * 0x10000000ull);
        assert_int_equal(e->key.id, i % IDS);
        assert_ptr_equal(stat_keys_find(&s, e->key.pid, e->key.handle, e->key.id), e);
        assert_int_equal(stat_keys_position(&s, e->key.pid, e->key.handle, e->key.id), i);
    }
    assert_null(stat_keys_find(&s, PIDS + 1, 0, 0));
    assert_null(stat_keys_find(&s, 1, 1, 0));
    assert_null(stat_keys_find(&s, 1, 0, IDS));
    assert_int_equal(stat_keys_position(&s, 1, 0, IDS), s.n);
    stat_keys_free(&s);
    assert_int_equal(s.n, 0);
    assert_null(stat_keys_find(&s, 1, 0, 0));
}

/* Past STAT_KEYS_MAX a new key is refused and counted; keys already kept are still found. */
static void test_refused_past_the_limit(void **state)
{
    (void)state;
    struct stat_keys s;
    stat_keys_init(&s, sizeof(struct stat_key));
    for (uint32_t pid = 0; pid < STAT_KEYS_MAX; pid++)
        assert_non_null(stat_keys_note(&s, pid, 7, 0, NULL));
    assert_int_equal(s.n, STAT_KEYS_MAX);
    int added = -1;
    assert_null(stat_keys_note(&s, STAT_KEYS_MAX, 7, 0, &added));
    assert_int_equal(added, 0);   /* refused: not added */
    assert_null(stat_keys_note(&s, 0, 7, 1, NULL));
    assert_int_equal(s.refused, 2);
    assert_non_null(stat_keys_note(&s, STAT_KEYS_MAX - 1, 7, 0, NULL));
    assert_int_equal(s.refused, 2);
    assert_int_equal(s.n, STAT_KEYS_MAX);
    stat_keys_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_keys_exact),
        cmocka_unit_test(test_refused_past_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
