/* The engine with a test-only provider (compiled into this test, never shipped or listed):
 * measurements split across providers keep the caller's order; an asynchronous provider's
 * pending result gives PERFQ_NOT_READY and writes nothing; max_active is enforced; a provider
 * whose probe fails contributes only unavailable counters. A deferred provider (an expensive
 * probe, as CUPTI's) is probed at the first call that needs the whole catalog and never
 * before, once however many threads ask, never when PERFQ_DISABLE names it, and ids already
 * given never change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "core/instance.h"

struct fake_state {
    int probes;          /* probe calls */
    int fail_probe;
    int ready;           /* results become ready when set */
    int sessions_open;
    int fail_begin;      /* begin returns PERFQ_ESYS when set */
};

static const struct perfq_group_desc fake_group = {
    "fake", "test provider", PERFQ_SCOPE_GPU_TIMELINE, 2};
static const struct perfq_counter_desc fake_counters[] = {
    {"a", "Test", "returns 100 + its code", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 0, 1, 0},
    {"b", "Test", "returns 100 + its code", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 0, 2, 0},
    {"c", "Test", "returns 100 + its code", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 0, 3, 0},
};

struct fake_session {
    struct fake_state *state;
    size_t count;
    uint64_t codes[3];
};

static perfq_status_t fake_probe(void *arg, void **state, char *reason, size_t size)
{
    struct fake_state *s = arg;
    __atomic_add_fetch(&s->probes, 1, __ATOMIC_RELAXED);
    if (s->fail_probe) {
        snprintf(reason, size, "no fake device");
        return PERFQ_ENOTSUP;
    }
    *state = s;
    return PERFQ_OK;
}

static perfq_status_t fake_enumerate(void *state, struct perfq_catalog *c, const char *reason)
{
    uint32_t g;
    perfq_status_t st = perfq_catalog_add_group(c, &fake_group, state ? NULL : reason, &g);
    for (int i = 0; st == PERFQ_OK && i < 3; i++)
        st = perfq_catalog_add_counter(c, g, &fake_counters[i], NULL);
    return st;
}

static perfq_status_t fake_open(void *state, const struct perfq_session_request *req,
                                void **session)
{
    struct fake_session *s = calloc(1, sizeof(*s));
    s->state = state;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++)
        s->codes[i] = req->counters[i]->code;
    s->state->sessions_open++;
    *session = s;
    return PERFQ_OK;
}

static perfq_status_t fake_nop(void *session)
{
    (void)session;
    return PERFQ_OK;
}

static perfq_status_t fake_begin(void *session)
{
    struct fake_session *s = session;
    return s->state->fail_begin ? PERFQ_ESYS : PERFQ_OK;
}

static perfq_status_t fake_result(void *session, int wait, perfq_value_t *values)
{
    struct fake_session *s = session;
    if (!s->state->ready && !wait)
        return PERFQ_NOT_READY;
    for (size_t i = 0; i < s->count; i++) {
        memset(&values[i], 0, sizeof(values[i]));
        values[i].v.u64 = 100 + s->codes[i];
    }
    return PERFQ_OK;
}

static void fake_close_session(void *session)
{
    struct fake_session *s = session;
    s->state->sessions_open--;
    free(s);
}

static const struct perfq_provider_ops fake_ops = {
    .name = "fake",
    .probe = fake_probe,
    .enumerate = fake_enumerate,
    .session_open = fake_open,
    .begin = fake_begin,
    .sample = NULL,
    .end = fake_nop,
    .result = fake_result,
    .session_close = fake_close_session,
};

static perfq_t *open_fake(struct fake_state *fs)
{
    const struct perfq_provider_ops *ops[] = {&fake_ops};
    void *args[] = {fs};
    perfq_t *pq = NULL;
    assert_int_equal(perfq__open_with(ops, args, 1, 1, &pq), PERFQ_OK);
    return pq;
}

static perfq_counter_id_t find(perfq_t *pq, const char *name)
{
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, name, &id), PERFQ_OK);
    return id;
}

static void test_split_across_providers_keeps_order(void **state)
{
    (void)state;
    struct fake_state fs = {0};
    perfq_t *pq = open_fake(&fs);
    perfq_counter_id_t ids[4] = {find(pq, "fake/b"), find(pq, "proc-io/write-bytes"),
                                 find(pq, "fake/a"), find(pq, "host/task-clock")};
    perfq_measurement_t *m;
    assert_int_equal(perfq_measurement_create(pq, ids, 4, NULL, &m), PERFQ_OK);
    assert_int_equal(fs.sessions_open, 1);
    perfq_value_t v[4];
    memset(v, 0xab, sizeof(v));
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    /* The fake provider has no sample: the whole measurement cannot be sampled. */
    assert_int_equal(perfq_measurement_sample(m, v, 4), PERFQ_ENOTSUP);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t untouched[4];
    memcpy(untouched, v, sizeof(v));
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 4), PERFQ_NOT_READY);
    assert_memory_equal(v, untouched, sizeof(v));   /* nothing written while pending */
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 4), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 102);
    assert_int_equal(v[2].v.u64, 101);
    assert_int_equal(v[1].v.u64, 0);            /* perfq wrote nothing between begin and end */
    assert_true(v[3].v.u64 > 0);
    fs.ready = 1;
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 4), PERFQ_OK);
    perfq_measurement_destroy(&m);
    assert_int_equal(fs.sessions_open, 0);
    perfq_close(&pq);
}

static void test_max_active(void **state)
{
    (void)state;
    struct fake_state fs = {0};
    perfq_t *pq = open_fake(&fs);
    perfq_counter_id_t ids[3] = {find(pq, "fake/a"), find(pq, "fake/b"), find(pq, "fake/c")};
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, ids, 3, NULL, &m), PERFQ_EBUSY);
    assert_null(m);
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

static void test_failed_probe_lists_unavailable(void **state)
{
    (void)state;
    struct fake_state fs = {.fail_probe = 1};
    perfq_t *pq = open_fake(&fs);
    perfq_counter_id_t id = find(pq, "fake/a");
    perfq_counter_info_t ci;
    perfq_counter_info(pq, id, &ci);
    assert_false(ci.available);
    assert_string_equal(ci.unavailable_reason, "no fake device");
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
    perfq_close(&pq);
}

static void test_catalog_builder_rejects_bad_descriptors(void **state)
{
    (void)state;
    struct perfq_catalog c;
    memset(&c, 0, sizeof(c));
    uint32_t g;
    assert_int_equal(perfq_catalog_add_counter(&c, 0, &fake_counters[0], NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_add_group(&c, &fake_group, NULL, &g), PERFQ_OK);
    assert_int_equal(perfq_catalog_add_group(&c, &fake_group, NULL, &g), PERFQ_EINVAL);
    struct perfq_counter_desc bad = fake_counters[0];
    bad.unit = (perfq_unit_t)PERFQ_UNIT_COUNT;
    assert_int_equal(perfq_catalog_add_counter(&c, g, &bad, NULL), PERFQ_EINVAL);
    bad = fake_counters[0];
    bad.storage = (perfq_storage_t)7;
    assert_int_equal(perfq_catalog_add_counter(&c, g, &bad, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_add_counter(&c, g, &fake_counters[0], NULL), PERFQ_OK);
    assert_int_equal(perfq_catalog_add_counter(&c, g, &fake_counters[0], NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_add_counter(&c, g + 1, &fake_counters[1], NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_add_counter(NULL, g, &fake_counters[1], NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_add_group(&c, NULL, NULL, &g), PERFQ_EINVAL);
    perfq__catalog_free(&c);   /* ASan checks the strings it copied are freed */
}

/* A GPU-timeline provider whose re-begin fails may have dropped its previous result: the
 * measurement's result then returns begin's error, never a stale or partial array. */
static void test_failed_gpu_rebegin_says_so(void **state)
{
    (void)state;
    struct fake_state fs = {.ready = 1};
    perfq_t *pq = open_fake(&fs);
    perfq_counter_id_t ids[2] = {find(pq, "fake/a"), find(pq, "host/task-clock")};
    perfq_measurement_t *m;
    perfq_value_t v[2];
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 2), PERFQ_OK);
    fs.fail_begin = 1;
    assert_int_equal(perfq_measurement_begin(m), PERFQ_ESYS);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 2), PERFQ_ESYS);
    assert_int_equal(perfq_measurement_end(m), PERFQ_ESTATE);
    fs.fail_begin = 0;
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 101);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* A deferred provider: group "late" with fake's counters; with `overflow` set, one group more
 * than it declared (a provider's bug: refused, nothing listed, nothing leaked). */
struct late_state {
    struct fake_state fake;   /* first: the sessions are fake's */
    int overflow;
};

static const struct perfq_group_desc late_group = {"late", "deferred test provider",
                                                   PERFQ_SCOPE_GPU_TIMELINE, 0};
static const struct perfq_group_desc late_extra = {"late-extra", "one group too many",
                                                   PERFQ_SCOPE_GPU_TIMELINE, 0};

static perfq_status_t late_enumerate(void *state, struct perfq_catalog *c, const char *reason)
{
    struct late_state *ls = state;
    perfq_status_t st = perfq_catalog_add_table(c, &late_group, fake_counters, 3,
                                                ls ? NULL : reason);
    if (st == PERFQ_OK && ls && ls->overflow)
        st = perfq_catalog_add_table(c, &late_extra, fake_counters, 1, NULL);
    return st;
}

static const struct perfq_provider_ops late_ops = {
    .name = "late",
    .probe = fake_probe,
    .enumerate = late_enumerate,
    .session_open = fake_open,
    .begin = fake_begin,
    .sample = NULL,
    .end = fake_nop,
    .result = fake_result,
    .session_close = fake_close_session,
    .deferred_max_groups = 1,
    .deferred_max_counters = 3,
};

static perfq_t *open_late(struct late_state *ls)
{
    const struct perfq_provider_ops *ops[] = {&late_ops, &fake_ops};
    void *args[] = {ls, &ls->fake};
    perfq_t *pq = NULL;
    /* No built-ins: their own deferred providers (CUPTI's) would be listed beside it. */
    assert_int_equal(perfq__open_with(ops, args, 2, 0, &pq), PERFQ_OK);
    return pq;
}

static void test_deferred_probed_at_first_whole_catalog_call(void **state)
{
    (void)state;
    struct late_state ls = {.fake = {.ready = 1}};
    perfq_t *pq = open_late(&ls);
    /* The eager extra ("fake", after "late" in the list) is probed; "late" is not. */
    assert_int_equal(ls.fake.probes, 1);
    uint32_t groups0, counters0;
    assert_int_equal(perfq_catalog_probed(pq, &groups0, &counters0), PERFQ_OK);
    assert_int_equal(perfq_catalog_probed(pq, NULL, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_probed(NULL, &groups0, NULL), PERFQ_EINVAL);
    /* Names and ids of the catalog so far: no probe. */
    perfq_counter_id_t fake_c = find(pq, "fake/c"), fake_a = find(pq, "fake/a");
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_info(pq, counters0 - 1, &ci), PERFQ_OK);
    perfq_group_info_t gi;
    assert_int_equal(perfq_group_info(pq, groups0 - 1, &gi), PERFQ_OK);
    assert_int_equal(ls.fake.probes, 1);
    /* A name not found so far lists the deferred provider, once; its groups come last. */
    perfq_counter_id_t late_b = find(pq, "late/b");
    assert_int_equal(ls.fake.probes, 2);
    assert_int_equal(late_b, counters0 + 1);
    uint32_t groups, counters;
    assert_int_equal(perfq_catalog_probed(pq, &groups, &counters), PERFQ_OK);
    assert_int_equal(groups, groups0 + 1);
    assert_int_equal(counters, counters0 + 3);
    assert_int_equal(perfq_counter_count(pq, &counters), PERFQ_OK);
    assert_int_equal(counters, counters0 + 3);
    assert_int_equal(perfq_group_info(pq, groups0, &gi), PERFQ_OK);
    assert_string_equal(gi.name, "late");
    assert_string_equal(gi.provider, "late");
    assert_true(gi.available);
    assert_int_equal(gi.first_counter, counters0);
    assert_int_equal(ls.fake.probes, 2);
    /* Ids given before are the same counters. */
    assert_int_equal(find(pq, "fake/c"), fake_c);
    assert_int_equal(find(pq, "fake/a"), fake_a);
    /* Measured like any counter. */
    perfq_counter_id_t ids[2] = {late_b, fake_c};
    perfq_measurement_t *m;
    perfq_value_t v[2];
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 102);
    assert_int_equal(v[1].v.u64, 103);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);

    /* Each whole-catalog call lists it too: counts, a bare name, an index beyond. */
    ls.fake.probes = 0;
    pq = open_late(&ls);
    assert_int_equal(perfq_group_count(pq, &groups), PERFQ_OK);
    assert_int_equal(ls.fake.probes, 2);
    perfq_close(&pq);
    pq = open_late(&ls);
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "a", &id), PERFQ_ENOTFOUND);   /* fake/a, late/a */
    assert_int_equal(ls.fake.probes, 4);
    perfq_close(&pq);
    pq = open_late(&ls);
    assert_int_equal(perfq_counter_info(pq, counters0 + 2, &ci), PERFQ_OK);
    assert_string_equal(ci.full_name, "late/c");
    assert_int_equal(perfq_counter_info(pq, counters0 + 3, &ci), PERFQ_EINVAL);
    assert_int_equal(ls.fake.probes, 6);
    perfq_close(&pq);
    pq = open_late(&ls);
    assert_int_equal(perfq_measurement_create(pq, &late_b, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(ls.fake.probes, 8);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* A full name lists only the deferred providers whose groups it may name (PROVIDER or
 * PROVIDER-...); perfq_catalog_probe lists one by name. */
static const struct perfq_group_desc other_group = {"late-other", "a second deferred provider",
                                                    PERFQ_SCOPE_GPU_TIMELINE, 0};

static perfq_status_t other_enumerate(void *state, struct perfq_catalog *c, const char *reason)
{
    return perfq_catalog_add_table(c, &other_group, fake_counters, 2, state ? NULL : reason);
}

static const struct perfq_provider_ops other_ops = {
    .name = "late-other",
    .probe = fake_probe,
    .enumerate = other_enumerate,
    .session_open = fake_open,
    .begin = fake_begin,
    .end = fake_nop,
    .result = fake_result,
    .session_close = fake_close_session,
    .deferred_max_groups = 1,
    .deferred_max_counters = 2,
};

static void test_deferred_probed_by_name(void **state)
{
    (void)state;
    struct late_state ls = {.fake = {.ready = 1}}, os = {.fake = {.ready = 1}};
    const struct perfq_provider_ops *ops[] = {&late_ops, &other_ops};
    void *args[] = {&ls, &os};
    perfq_t *pq = NULL;
    assert_int_equal(perfq__open_with(ops, args, 2, 0, &pq), PERFQ_OK);
    /* "late-other/a" may be late's ("late-...") or late-other's: both are listed. */
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "late-other/a", &id), PERFQ_OK);
    assert_int_equal(ls.fake.probes + os.fake.probes, 2);
    perfq_close(&pq);
    ls.fake.probes = os.fake.probes = 0;
    assert_int_equal(perfq__open_with(ops, args, 2, 0, &pq), PERFQ_OK);
    /* "late/b": late's only. */
    assert_int_equal(perfq_counter_find(pq, "late/b", &id), PERFQ_OK);
    assert_int_equal(ls.fake.probes, 1);
    assert_int_equal(os.fake.probes, 0);
    assert_int_equal(perfq_counter_find(pq, "latex/b", &id), PERFQ_ENOTFOUND);
    assert_int_equal(os.fake.probes, 0);
    assert_int_equal(perfq_catalog_probe(pq, "nothing"), PERFQ_ENOTFOUND);
    assert_int_equal(perfq_catalog_probe(NULL, "late"), PERFQ_EINVAL);
    assert_int_equal(perfq_catalog_probe(pq, "late"), PERFQ_OK);   /* probed already */
    assert_int_equal(ls.fake.probes, 1);
    assert_int_equal(perfq_catalog_probe(pq, "late-other"), PERFQ_OK);
    assert_int_equal(os.fake.probes, 1);
    uint32_t counters;
    assert_int_equal(perfq_catalog_probed(pq, NULL, &counters), PERFQ_OK);
    assert_int_equal(counters, 5);
    assert_int_equal(perfq_catalog_probe(pq, NULL), PERFQ_OK);
    assert_int_equal(ls.fake.probes + os.fake.probes, 2);
    assert_int_equal(perfq_counter_find(pq, "late-other/b", &id), PERFQ_OK);
    assert_int_equal(id, 4);   /* appended in the order they were probed */
    perfq_close(&pq);
}

static void test_disabled_providers_never_probed(void **state)
{
    (void)state;
    struct late_state ls = {.fake = {.ready = 1}};
    assert_int_equal(setenv("PERFQ_DISABLE", "late,fake", 1), 0);
    perfq_t *pq = open_late(&ls);
    assert_int_equal(unsetenv("PERFQ_DISABLE"), 0);
    /* Listed at open, unavailable, and neither probed (even by a whole-catalog call). */
    uint32_t groups0, groups;
    assert_int_equal(perfq_catalog_probed(pq, &groups0, NULL), PERFQ_OK);
    assert_int_equal(perfq_group_count(pq, &groups), PERFQ_OK);
    assert_int_equal(groups, groups0);
    assert_int_equal(ls.fake.probes, 0);
    const char *names[] = {"late/a", "fake/a"};
    for (int i = 0; i < 2; i++) {
        perfq_counter_info_t ci;
        perfq_counter_id_t id = find(pq, names[i]);
        assert_int_equal(perfq_counter_info(pq, id, &ci), PERFQ_OK);
        assert_false(ci.available);
        assert_string_equal(ci.unavailable_reason, "disabled by PERFQ_DISABLE");
        perfq_measurement_t *m = NULL;
        assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_ENOTSUP);
    }
    assert_int_equal(ls.fake.probes, 0);
    perfq_close(&pq);
}

static void test_deferred_overflow_refused(void **state)
{
    (void)state;
    struct late_state ls = {.overflow = 1};
    perfq_t *pq = open_late(&ls);
    uint32_t counters0, n;
    assert_int_equal(perfq_catalog_probed(pq, NULL, &counters0), PERFQ_OK);
    assert_int_equal(perfq_counter_count(pq, &n), PERFQ_ENOMEM);
    assert_int_equal(perfq_catalog_probed(pq, NULL, &n), PERFQ_OK);
    assert_int_equal(n, counters0);   /* nothing of it listed; ASan: nothing leaked */
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "late/a", &id), PERFQ_ENOTFOUND);
    find(pq, "fake/a");   /* the rest is intact */
    perfq_close(&pq);
}

/* Readers of the catalog so far on three threads while a fourth lists the deferred provider
 * (TSan: no race; the entries they read never move). */
struct reader {
    perfq_t *pq;
    uint32_t counters0;
    int whole;
};

static void *read_catalog(void *arg)
{
    struct reader *r = arg;
    for (int round = 0; round < 200; round++) {
        if (r->whole) {
            uint32_t n;
            if (perfq_counter_count(r->pq, &n) != PERFQ_OK)
                return (void *)1;
            continue;
        }
        for (uint32_t id = 0; id < r->counters0; id++) {
            perfq_counter_info_t ci;
            if (perfq_counter_info(r->pq, id, &ci) != PERFQ_OK || !ci.full_name[0])
                return (void *)1;
        }
    }
    return NULL;
}

static void test_deferred_listing_while_others_read(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        struct late_state ls = {.fake = {.ready = 1}};
        perfq_t *pq = open_late(&ls);
        struct reader r[4];
        pthread_t t[4];
        for (int i = 0; i < 4; i++) {
            r[i] = (struct reader){.pq = pq, .whole = i >= 2};
            perfq_catalog_probed(pq, NULL, &r[i].counters0);
            assert_int_equal(pthread_create(&t[i], NULL, read_catalog, &r[i]), 0);
        }
        for (int i = 0; i < 4; i++) {
            void *ret;
            pthread_join(t[i], &ret);
            assert_null(ret);
        }
        assert_int_equal(ls.fake.probes, 2);   /* fake at open, late once */
        perfq_close(&pq);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_across_providers_keeps_order),
        cmocka_unit_test(test_max_active),
        cmocka_unit_test(test_failed_probe_lists_unavailable),
        cmocka_unit_test(test_catalog_builder_rejects_bad_descriptors),
        cmocka_unit_test(test_failed_gpu_rebegin_says_so),
        cmocka_unit_test(test_deferred_probed_at_first_whole_catalog_call),
        cmocka_unit_test(test_deferred_probed_by_name),
        cmocka_unit_test(test_disabled_providers_never_probed),
        cmocka_unit_test(test_deferred_overflow_refused),
        cmocka_unit_test(test_deferred_listing_while_others_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
